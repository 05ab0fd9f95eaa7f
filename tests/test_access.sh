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

finish
