#!/bin/bash
# Who may do what through a mount (interface.md, "Mounting", last bullet, and
# "Staging details"): staging names with control characters are refused;
# with -o allow_other and a root daemon, staging acts with the caller's
# rights (sticky SOURCE, files owned by the caller) and symlinks in SOURCE
# never lead a user to what SOURCE would not let them read.
#
# Makes its own data (parquetfs-convert from a CSV it writes). The parts
# that need a second user run only as root, as an unprivileged user made
# with setpriv (or runuser); without either they skip, and say so.
#
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3 or python3), 1 fail.
# Env: PARQUETFS (binary), PARQUETFS_CONVERT.
set -u

WORK_NAME=pfs-access
. "$(dirname "$0")/mount_lib.sh"
CONVERT=${PARQUETFS_CONVERT:-$top_builddir/src/parquetfs-convert}
case "$CONVERT" in /*) ;; *) CONVERT=$PWD/$CONVERT ;; esac
[ -x "$CONVERT" ] || { echo "FAIL: no parquetfs-convert at $CONVERT"; exit 1; }
UMOUNT_SETTLE=0.3

printf 'id,name\n1,a\n2,b\n' > "$WORK/t.csv"
"$CONVERT" "$WORK/t.csv" "$WORK/t.parquet" || { echo "FAIL: parquetfs-convert"; exit 1; }

# errno_of PYTHON-STATEMENT: the errno name the statement fails with, or OK.
errno_of() {
	python3 - "$@" <<'PY'
import errno, os, sys
try:
    exec(sys.argv[1])
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
PY
}

# ---- staging names with control characters: EINVAL ------------------------
SRC=$WORK/src
MNT=$WORK/mnt
mkdir -p "$SRC"
if mount_fs "$MNT" "$SRC"; then
	S=$MNT/staging
	for name in 'a\nb.csv' 'a\tb.csv' 'a\x01b.csv' 'a\x7fb.csv' 'a\x1fb.tsv' '\rx.schema'; do
		got=$(errno_of "os.close(os.open('$S/$name', os.O_CREAT | os.O_WRONLY, 0o644))")
		[ "$got" = EINVAL ] && ok "create '$name': EINVAL" ||
			fail "create '$name' in staging/: $got, not EINVAL"
	done
	for name in 'd\nx' 'd\x7f' 'd\x02'; do
		got=$(errno_of "os.mkdir('$S/$name')")
		[ "$got" = EINVAL ] && ok "mkdir '$name': EINVAL" ||
			fail "mkdir '$name' in staging/: $got, not EINVAL"
	done
	# what is allowed stays allowed: UTF-8 and spaces
	got=$(errno_of "open('$S/é x.csv', 'w').write('id\n1\n')")
	[ "$got" = OK ] && [ -f "$SRC/é x.parquet" ] && ok "a UTF-8 name with a space publishes" ||
		fail "'é x.csv' in staging/: $got"
	left=$(find "$SRC" "$SRC/.parquetfs" -name '*[[:cntrl:]]*' | head -3)
	[ -z "$left" ] || fail "names with control characters made it to disk: $left"
	umount_fs "$MNT"
fi

# ---- a second, unprivileged user ------------------------------------------
# as_user CMD...: runs CMD as USER_UID:USER_GID without supplementary groups
USER_UID=; USER_GID=
if [ "$(id -u)" -ne 0 ]; then
	WHY="not root: the daemon cannot act for another user"
elif ! command -v setpriv >/dev/null && ! command -v runuser >/dev/null; then
	WHY="neither setpriv nor runuser to drop privileges"
else
	id pfs_test_user >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin pfs_test_user 2>/dev/null
	U=pfs_test_user
	id "$U" >/dev/null 2>&1 || U=nobody
	if id "$U" >/dev/null 2>&1; then
		USER_UID=$(id -u "$U"); USER_GID=$(id -g "$U")
	else
		WHY="no user pfs_test_user or nobody (useradd failed)"
	fi
fi
as_user() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid="$USER_UID" --regid="$USER_GID" --clear-groups -- "$@"
	else
		runuser -u "$U" -- "$@"
	fi
}
owner_of() { stat -c %u "$1" 2>/dev/null; }

if [ -z "$USER_UID" ]; then
	echo "SKIP (part): the allow_other checks as a second user: $WHY"
	SKIPPED_USER=1
else
	SKIPPED_USER=0
	chmod 755 "$WORK"
	printf 'id,name\n7,evil\n' > "$WORK/v.csv"
	printf 'id,name\n7,"unclosed\n' > "$WORK/bad.csv"
	chmod 644 "$WORK/v.csv" "$WORK/bad.csv"
fi

# ---- staging acts with the caller's rights (sticky SOURCE) ----------------
if [ "$SKIPPED_USER" = 0 ]; then
	SRC=$WORK/sticky
	MNT=$WORK/mnt2
	mkdir -p "$SRC/rootdir"
	chmod 1777 "$SRC"
	cp "$WORK/t.parquet" "$SRC/victim.parquet"
	chmod 644 "$SRC/victim.parquet"
	as_user rm -f "$SRC/victim.parquet" 2>/dev/null
	[ -f "$SRC/victim.parquet" ] || fail "setup: the user could rm the victim in SOURCE itself"
	if mount_fs "$MNT" -o allow_other "$SRC"; then
		S=$MNT/staging
		as_user ls "$MNT/victim.parquet/" >/dev/null 2>&1 || fail "the user cannot list the mount"
		# the attack: replace a root-owned file of a sticky directory
		if as_user cp "$WORK/v.csv" "$S/victim.csv" 2>"$WORK/cp.err"; then
			fail "cp v.csv staging/victim.csv as uid $USER_UID succeeded in a sticky SOURCE"
		else
			ok "cp over a root-owned file in a sticky SOURCE refused: $(head -1 "$WORK/cp.err")"
		fi
		cmp -s "$SRC/victim.parquet" "$WORK/t.parquet" || fail "victim.parquet was replaced"
		[ "$(owner_of "$SRC/victim.parquet")" = 0 ] || fail "victim.parquet changed owner"
		[ -e "$S/victim.csv" ] && fail "a refused staged file stays in staging/"
		# a directory the user may not write (0755 root)
		as_user cp "$WORK/v.csv" "$S/rootdir/x.csv" 2>/dev/null &&
			fail "cp into staging/rootdir (root's 0755) succeeded"
		[ -e "$SRC/rootdir/x.parquet" ] && fail "rootdir/x.parquet was published"
		# what the user may do, they may, and it is theirs
		if as_user cp "$WORK/v.csv" "$S/mine.csv" 2>"$WORK/cp.err"; then
			[ "$(owner_of "$SRC/mine.parquet")" = "$USER_UID" ] &&
				ok "mine.parquet published, owned by uid $USER_UID" ||
				fail "mine.parquet is owned by uid $(owner_of "$SRC/mine.parquet"), not $USER_UID"
		else
			fail "cp v.csv staging/mine.csv as the user: $(cat "$WORK/cp.err")"
		fi
		as_user cp "$WORK/v.csv" "$S/mine.csv" 2>/dev/null ||
			fail "the user cannot replace their own mine.parquet"
		# root may still replace the user's file (root may do everything)
		cp "$WORK/v.csv" "$S/mine.csv" 2>/dev/null || fail "root cannot replace mine.parquet"
		# a failed upload stays, belongs to the user, who may remove it
		as_user cp "$WORK/bad.csv" "$S/bad.csv" 2>/dev/null && fail "cp bad.csv succeeded"
		[ "$(owner_of "$S/bad.csv")" = "$USER_UID" ] ||
			fail "staged bad.csv is owned by uid $(owner_of "$S/bad.csv"), not $USER_UID"
		[ "$(owner_of "$S/bad.csv.error")" = "$USER_UID" ] ||
			fail "bad.csv.error is owned by uid $(owner_of "$S/bad.csv.error"), not $USER_UID"
		as_user rm "$S/bad.csv" "$S/bad.csv.error" 2>"$WORK/rm.err" &&
			ok "the user removed their failed upload and its .error" ||
			fail "the user cannot rm their failed upload: $(cat "$WORK/rm.err")"
		# directories: made for the user; root's not removable by the user
		as_user mkdir "$S/udir" || fail "the user cannot mkdir staging/udir"
		[ "$(owner_of "$SRC/udir")" = "$USER_UID" ] ||
			fail "SOURCE/udir is owned by uid $(owner_of "$SRC/udir"), not $USER_UID"
		as_user rmdir "$S/rootdir" 2>/dev/null && fail "the user removed root's rootdir"
		[ -d "$SRC/rootdir" ] || fail "rootdir is gone"
		umount_fs "$MNT"
	fi
fi

# ---- the store is the daemon's own ------------------------------------------
# In a world-writable SOURCE a user puts a link at SOURCE/.parquetfs (where
# staging keeps its bytes) to a directory only root may write.
if [ "$SKIPPED_USER" = 0 ]; then
	SRC=$WORK/store
	MNT=$WORK/mnt4
	mkdir -p "$SRC" "$WORK/rootonly/staging"
	chmod 1777 "$SRC"
	chmod 755 "$WORK/rootonly"
	printf 'id\n1\n' > "$WORK/rootonly/staging/keep.csv"
	as_user ln -s "$WORK/rootonly" "$SRC/.parquetfs" || fail "setup: the user cannot ln -s"
	if mount_fs "$MNT" -o allow_other "$SRC"; then
		sleep 0.5 # recovery: it must not convert keep.csv from the linked store
		as_user ls "$MNT/staging/" 2>/dev/null | grep -q keep.csv &&
			fail "staging/ lists the linked store's keep.csv"
		as_user cp "$WORK/v.csv" "$MNT/staging/x.csv" 2>/dev/null &&
			fail "cp into staging/ with SOURCE/.parquetfs a user's link succeeded"
		as_user rm "$MNT/staging/keep.csv" 2>/dev/null
		[ -e "$WORK/rootonly/staging/x.csv" ] && fail "the daemon wrote through the user's link"
		[ -e "$WORK/rootonly/staging/keep.csv" ] || fail "the daemon removed through the user's link"
		[ -e "$SRC/keep.parquet" ] && fail "recovery converted the linked store's keep.csv"
		ok "a link at SOURCE/.parquetfs is not used"
		umount_fs "$MNT"
	fi
fi

# ---- symlinks in SOURCE are not followed ----------------------------------
if [ "$SKIPPED_USER" = 0 ]; then
	SRC=$WORK/links
	MNT=$WORK/mnt3
	OUT=$WORK/outside
	mkdir -p "$SRC/private" "$OUT"
	chmod 755 "$SRC"
	chmod 700 "$SRC/private" "$OUT"
	cp "$WORK/t.parquet" "$SRC/plain.parquet"
	cp "$WORK/t.parquet" "$SRC/private/pub.parquet"
	cp "$WORK/t.parquet" "$OUT/secret.parquet"
	printf 'not parquet\n' > "$OUT/secret.txt"
	chmod 644 "$SRC/plain.parquet" "$SRC/private/pub.parquet"
	chmod 600 "$OUT/secret.parquet" "$OUT/secret.txt"
	chmod 755 "$OUT" # the directory searchable: only the files' 0600 protects them
	ln -s private/pub.parquet "$SRC/link.parquet"      # world-readable file, 0700 dir
	ln -s private "$SRC/linkdir"                       # a directory link
	ln -s "$OUT/secret.parquet" "$SRC/s1.parquet"      # out of SOURCE, 0600, Parquet
	ln -s "$OUT/secret.txt" "$SRC/s2.parquet"          # out of SOURCE, 0600, not
	if mount_fs "$MNT" -o allow_other "$SRC"; then
		as_user head -c 100 "$MNT/plain.parquet/data.csv" >/dev/null 2>&1 ||
			fail "the user cannot read plain.parquet/data.csv (setup)"
		as_user ls "$MNT/private/" >/dev/null 2>&1 && fail "the user lists private/ (0700)"
		listing=$(as_user ls -a "$MNT" 2>&1)
		for n in link.parquet linkdir s1.parquet s2.parquet; do
			grep -qx "$n" <<<"$listing" && fail "the symlink $n is listed: $(echo $listing)"
		done
		ok "listing as the user: $(echo $listing)"
		for p in link.parquet/data.csv link.parquet/schema.txt linkdir/pub.parquet/data.csv \
			s1.parquet/schema.txt; do
			if as_user cat "$MNT/$p" >/dev/null 2>"$WORK/cat.err"; then
				fail "the user read $p through a symlink"
			else
				ok "$p: $(head -1 "$WORK/cat.err" | sed 's/.*: //')"
			fi
		done
		# whether a 0600 file is Parquet: no difference to see between s1 and s2
		a=$(as_user stat -c %F "$MNT/s1.parquet" 2>&1 | sed 's/.*: //')
		b=$(as_user stat -c %F "$MNT/s2.parquet" 2>&1 | sed 's/.*: //')
		[ "$a" = "$b" ] && ok "s1 (Parquet) and s2 (text) look alike: $a" ||
			fail "a 0600 file's Parquet-ness shows: s1.parquet is '$a', s2.parquet '$b'"
		# root too: links are not followed for anyone (one listing for all)
		[ -e "$MNT/link.parquet" ] && fail "link.parquet exists for root"
		umount_fs "$MNT"
	fi
fi

[ "$SKIPPED_USER" = 1 ] && [ "$FAILS" -eq 0 ] && skip "names passed; the allow_other parts need a second user: $WHY"
finish
