#!/bin/bash
# Directory listings (fs/dirs.c), on files made here with parquetfs-convert
# (no ../shared needed), run twice: as the kernel allows (OPENDIR answered
# ENOSYS once, stateless readdir, every listing in the kernel's cache) and
# with PARQUETFS_TEST_OPENDIR=1 (a handle per open, as older kernels have).
#
#   - a second `ls -lR` of a file's tree makes no listing: the daemon's
#     "mount totals" line counts listings made and OPENDIR handles;
#   - `ls -lR` and `find` list the same entries each time, and the same as
#     the other mode;
#   - a file's directory lists its current generation (a broken file put
#     in its place lists error.txt, the good one back the tree again);
#   - SOURCE's listings stay fresh without waiting: a file added, removed
#     or renamed in SOURCE shows in the very next `ls`, in the root and in a
#     subdirectory, and so does a file copied into staging/ (and its
#     conversion's output);
#   - a reader part-way through a SOURCE directory of 3,000 files, while
#     another lists it anew and files are added, still sees every file that
#     was there throughout exactly once (its offsets name its listing).
#
# Exit 0 pass, 77 skip (no FUSE), 1 fail. Env: PARQUETFS, PARQUETFS_CONVERT.
set -u

WORK_NAME=pfs-dirs
. "$(dirname "$0")/mount_lib.sh"
CONVERT=${PARQUETFS_CONVERT:-$top_builddir/src/parquetfs-convert}
case "$CONVERT" in /*) ;; *) CONVERT=$PWD/$CONVERT ;; esac
[ -x "$CONVERT" ] || { echo "FAIL: no parquetfs-convert at $CONVERT"; exit 1; }

SRC=$WORK/src
MNT=$WORK/mnt
mkdir -p "$SRC/sub" "$SRC/many"
python3 - "$WORK/t.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("id,name,amount\n")
    for i in range(20000):
        f.write(f"{i},n{(i * 7919) % 1000:04d},{i * 0.25}\n")
PY
# 5 row groups, several pages each: a tree of some 60 directories
"$CONVERT" -o row_group_rows=4000,page_size=8000 "$WORK/t.csv" "$SRC/t.parquet" 2>"$WORK/convert.err" ||
	{ echo "FAIL: parquetfs-convert: $(cat "$WORK/convert.err")"; exit 1; }
cp "$SRC/t.parquet" "$SRC/sub/u.parquet"
printf 'a,b\n1,x\n' >"$WORK/small.csv"
"$CONVERT" "$WORK/small.csv" "$WORK/small.parquet" 2>"$WORK/convert.err" ||
	{ echo "FAIL: parquetfs-convert: $(cat "$WORK/convert.err")"; exit 1; }
python3 -c '
import shutil, sys
for i in range(3000):
    shutil.copyfile(sys.argv[1], "%s/f%04d.parquet" % (sys.argv[2], i))
' "$WORK/small.parquet" "$SRC/many"

totals() { grep "mount totals:" "$WORK/daemon.log" | tail -1; }
count() { sed -n "s/.* \([0-9]*\) $1.*/\1/p"; }

for mode in stateless handles; do
	if [ $mode = handles ]; then export PARQUETFS_TEST_OPENDIR=1; else unset PARQUETFS_TEST_OPENDIR; fi
	mount_fs "$MNT" -o index_dir=none "$SRC" || exit 1
	ndirs=$(find "$MNT/t.parquet" -type d | wc -l)
	ls -lR "$MNT/t.parquet" >"$WORK/ls1.$mode"
	ls -lR "$MNT/t.parquet" >"$WORK/ls2.$mode"
	(cd "$MNT/t.parquet" && find . | sort) >"$WORK/find.$mode"
	cmp -s "$WORK/ls1.$mode" "$WORK/ls2.$mode" && ok "$mode: two ls -lR of the tree agree" ||
		fail "$mode: the second ls -lR differs: $(diff "$WORK/ls1.$mode" "$WORK/ls2.$mode" | head -5)"
	[ "$ndirs" -gt 40 ] || fail "$mode: only $ndirs directories in the tree"

	# a file's directory listing belongs to its generation: replaced by a
	# broken file it lists error.txt alone, and the tree again when the
	# good file is back (1 s: the file's attribute timeout)
	cp "$SRC/t.parquet" "$SRC/g.parquet"
	good=$(ls "$MNT/g.parquet" | tr '\n' ' ')
	printf 'PAR1 not a footer PAR1' >"$WORK/bad" && mv "$WORK/bad" "$SRC/g.parquet"
	sleep 1.1
	bad=$(ls "$MNT/g.parquet" | tr '\n' ' ')
	cp "$SRC/t.parquet" "$WORK/g" && mv "$WORK/g" "$SRC/g.parquet"
	sleep 1.1
	again=$(ls "$MNT/g.parquet" | tr '\n' ' ')
	if [ "$bad" = "error.txt " ] && [ "$again" = "$good" ] && [ "$good" != "$bad" ]; then
		ok "$mode: a file's listing follows its generation (error.txt, then the tree again)"
	else
		fail "$mode: listings of a replaced file: '$good', then '$bad', then '$again'"
	fi
	rm "$SRC/g.parquet"

	# freshness of SOURCE's listings and staging/'s, without waiting
	ls "$MNT" >/dev/null; ls "$MNT/sub" >/dev/null
	cp "$SRC/t.parquet" "$SRC/new.parquet"
	cp "$SRC/t.parquet" "$SRC/sub/new2.parquet"
	ls "$MNT" | grep -qx new.parquet && ok "$mode: a file added to SOURCE is listed at once" ||
		fail "$mode: new.parquet not in ls of the root: $(ls "$MNT" | tr '\n' ' ')"
	ls "$MNT/sub" | grep -qx new2.parquet && ok "$mode: ... and in a subdirectory" ||
		fail "$mode: new2.parquet not in ls of sub/: $(ls "$MNT/sub" | tr '\n' ' ')"
	mv "$SRC/new.parquet" "$SRC/renamed.parquet"; rm "$SRC/sub/new2.parquet"
	l=$(ls "$MNT" | tr '\n' ' '); l2=$(ls "$MNT/sub" | tr '\n' ' ')
	case " $l" in *" renamed.parquet "*) case " $l" in *" new.parquet "*) fail "$mode: old name still listed: $l" ;; *) ok "$mode: a rename in SOURCE is listed at once" ;; esac ;;
	*) fail "$mode: renamed.parquet not listed: $l" ;; esac
	[ "$l2" = "u.parquet " ] && ok "$mode: a removal in SOURCE is listed at once" ||
		fail "$mode: ls of sub/ after the removal: $l2"
	rm "$SRC/renamed.parquet"
	ls "$MNT/staging" >/dev/null
	cp "$WORK/t.csv" "$MNT/staging/s_$mode.csv"
	ls "$MNT" | grep -qx "s_$mode.parquet" && ok "$mode: staging's output is listed once cp returns" ||
		fail "$mode: s_$mode.parquet not in the root after cp: $(ls "$MNT" | tr '\n' ' ')"
	ls "$MNT/staging" | grep -qx "s_$mode.csv" &&
		fail "$mode: staging/ still lists s_$mode.csv after its conversion: $(ls "$MNT/staging" | tr '\n' ' ')"
	rm -f "$SRC/s_$mode.parquet"

	# a reader part-way through 3,000 names while the directory changes
	python3 - "$MNT/many" "$SRC/many" "$WORK/small.parquet" >"$WORK/scan.$mode" 2>&1 <<'PY' ||
import os, sys, subprocess
import shutil
mnt, src, small = sys.argv[1], sys.argv[2], sys.argv[3]
it = os.scandir(mnt)
seen = [next(it).name for _ in range(200)]
# another process lists it anew, then names sorting before and after appear
subprocess.run(["ls", mnt], stdout=subprocess.DEVNULL, check=True)
for n in ("a0.parquet", "f0000x.parquet", "zz.parquet"):
    shutil.copy(small, os.path.join(src, n))
subprocess.run(["ls", mnt], stdout=subprocess.DEVNULL, check=True)
seen += [e.name for e in it]
want = {f"f{i:04d}.parquet" for i in range(3000)}
dups = {n for n in seen if seen.count(n) > 1} if len(seen) != len(set(seen)) else set()
missing = want - set(seen)
for n in ("a0.parquet", "f0000x.parquet", "zz.parquet"):
    os.unlink(os.path.join(src, n))
if dups or missing:
    print("listed twice:", sorted(dups)[:5], "missing:", sorted(missing)[:5])
    sys.exit(1)
print(len(seen), "names")
PY
		fail "$mode: a listing read while the directory changed: $(cat "$WORK/scan.$mode")"
	[ -s "$WORK/scan.$mode" ] && grep -q names "$WORK/scan.$mode" &&
		ok "$mode: a reader part-way through 3,000 names saw each one once ($(cat "$WORK/scan.$mode"))"

	umount_fs "$MNT"
	t=$(totals)
	listings=$(echo "$t" | count "directory listings made")
	opens=$(echo "$t" | count "directory handles opened")
	# every directory of the tree listed once for both ls -lR and the find
	# (SOURCE's root, sub/, many/ and staging/ anew each time: at most 40)
	if [ -z "$listings" ]; then
		fail "$mode: no totals line: $t"
	elif [ "$listings" -lt "$ndirs" ] || [ "$listings" -gt $((ndirs + 40)) ]; then
		fail "$mode: $listings listings made for $ndirs directories listed 4 times"
	else
		ok "$mode: $ndirs directories listed 4 times: $listings listings made"
	fi
	if [ $mode = stateless ]; then
		[ "$opens" = 0 ] && ok "stateless: no OPENDIR handle at all" ||
			fail "stateless: $opens OPENDIR handles (the kernel sent OPENDIR)"
	else
		[ "${opens:-0}" -gt $((2 * ndirs)) ] && ok "handles: $opens OPENDIR handles" ||
			fail "handles: only ${opens:-0} OPENDIR handles for $ndirs directories listed 4 times"
	fi
done
unset PARQUETFS_TEST_OPENDIR

# A file replaced within one clock tick keeps its mtime (file times come
# from a coarse clock: cp and then printf+mv a millisecond later give the
# same nanoseconds; touch -r makes it certain here), and the kernel checks
# a cached listing against the mtime alone: the old generation's listing
# must be dropped before the reply to the lookup that finds the change,
# not whenever the notifier gets to it (here it lags 400 ms per
# invalidation, as on a busy machine; a fast daemon made the first tests
# above fail now and then)
PARQUETFS_TEST_NOTIFY_LAG_MS=400 mount_fs "$MNT" -o index_dir=none "$SRC" || exit 1
cp "$SRC/t.parquet" "$SRC/g.parquet"
good=$(ls "$MNT/g.parquet" | tr '\n' ' ')
printf 'PAR1 not a footer PAR1' >"$WORK/bad" && touch -r "$SRC/g.parquet" "$WORK/bad" &&
	mv "$WORK/bad" "$SRC/g.parquet"
sleep 1.1
bad=$(ls "$MNT/g.parquet" | tr '\n' ' ')
[ "$bad" = "error.txt " ] && [ "$good" != "$bad" ] &&
	ok "a file replaced within a clock tick lists its new generation, with invalidations lagging" ||
	fail "replaced within a clock tick, notifier lagging: '$good', then '$bad'"
umount_fs "$MNT"
rm -f "$SRC/g.parquet"

# issue 31: right after `mv new.parquet a.parquet` in SOURCE the kernel
# still has a.parquet/data.csv's name and size (its names are looked up
# again each second): stat gave the old size and the read that followed the
# new content. Size and bytes come from one generation: the open of the old
# inode is served the old generation, kept open for that moment; then the
# name shows the new one. Each try looks the name up afresh (sleep), reads
# it, replaces it and stats and reads it at once (well within the second).
printf 'id,name\n1,a\n2,b\n3,c\n' >"$WORK/r3.csv"
printf 'id,name\n1,aaaa\n2,bbbb\n3,cccc\n4,dddd\n5,eeee\n' >"$WORK/r5.csv"
"$CONVERT" "$WORK/r3.csv" "$WORK/r3.parquet" && "$CONVERT" "$WORK/r5.csv" "$WORK/r5.parquet" ||
	fail "parquetfs-convert of r3/r5"
cp "$WORK/r3.parquet" "$SRC/a.parquet"
PARQUETFS_TEST_NOTIFY_LAG_MS=400 mount_fs "$MNT" -o index_dir=none "$SRC" || exit 1
bad=0
for try in 1 2 3 4; do
	[ $((try % 2)) = 1 ] && next=r5 || next=r3
	cp "$WORK/$next.parquet" "$SRC/new.parquet"
	sleep 1.2
	stat -c %s "$MNT/a.parquet/data.csv" >/dev/null && cat "$MNT/a.parquet/data.csv" >/dev/null
	mv "$SRC/new.parquet" "$SRC/a.parquet"
	sz=$(stat -c %s "$MNT/a.parquet/data.csv"); got=$(cat "$MNT/a.parquet/data.csv" | wc -c)
	[ "$sz" = "$got" ] || { fail "try $try: after mv, stat said $sz bytes and the read gave $got"; bad=1; }
done
sleep 2.5
sz=$(stat -c %s "$MNT/a.parquet/data.csv")
if cat "$MNT/a.parquet/data.csv" | cmp -s - "$WORK/r3.csv" && [ "$sz" = "$(wc -c <"$WORK/r3.csv")" ]; then
	[ $bad = 0 ] && ok "after mv in SOURCE: size and bytes from one generation, then the new one"
else
	fail "after mv in SOURCE and 2.5 s: stat $sz, data.csv $(head -c 80 "$MNT/a.parquet/data.csv")"
fi
# The daemon sends the kernel nothing once its session is closing: with
# invalidations still queued at the unmount (the notifier lagging 400 ms
# each, as on a busy machine), libfuse logged "writing device: Bad file
# descriptor" for each one sent after the device was closed.
cp "$WORK/r5.parquet" "$SRC/new.parquet"
mv "$SRC/new.parquet" "$SRC/a.parquet"
sleep 1.2
from=$(wc -l <"$WORK/daemon.log")
ls "$MNT/a.parquet" >/dev/null # finds the change: its names' invalidations queued
umount_fs "$MNT"
tail -n +$((from + 1)) "$WORK/daemon.log" | grep -q "Bad file descriptor" &&
	fail "the unmount with invalidations queued: $(tail -n +$((from + 1)) "$WORK/daemon.log" | grep -m1 "Bad file descriptor")" ||
	ok "the unmount with invalidations queued sends nothing to the closed device"
rm -f "$SRC/a.parquet"

cmp -s "$WORK/ls1.stateless" "$WORK/ls1.handles" && cmp -s "$WORK/find.stateless" "$WORK/find.handles" &&
	ok "both modes list the same tree" ||
	fail "the modes list different trees: $(diff "$WORK/find.stateless" "$WORK/find.handles" | head -5)"

[ "$FAILS" = 0 ] || { echo "$FAILS failed"; exit 1; }
echo "all passed"
