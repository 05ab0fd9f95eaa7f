#!/bin/bash
# Integration test of exact sizes (interface.md, "Sizes and reading"):
#
#   every entry's st_size at its first stat, before anything was read,
#   equals the bytes a read returns (files the test makes itself, and every
#   file of parquet-testing/data when ../shared is there); listings run no
#   size pass; tar, rsync, mmap and tail -c of never-read entries; the size
#   index (a remount runs no pass and, for ls -lR, loads no chunk layout:
#   the sizes of pages/ and dictionary/ come from the index's chunk shapes,
#   and equal the bytes read; a damaged index entry is rebuilt, never
#   trusted; index_size bounds it, the least recently used entries going
#   first); a source file replaced during the mount gets new sizes.
#
# "A size pass ran" is the daemon's log line "size pass: PATH (...)"; at
# unmount the daemon logs "mount totals: N size passes, M chunk layouts
# loaded".
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3 or python3), 1 fail.
# Env: PARQUETFS (binary).
set -u

WORK_NAME=pfs-sizes
. "$(dirname "$0")/mount_lib.sh"
CONVERT=$top_builddir/src/parquetfs-convert
PQWRITE=$top_builddir/tests/pqwrite
WALK=$top_srcdir/tests/sizes_walk.py
[ -x "$CONVERT" ] && [ -x "$PQWRITE" ] || { echo "FAIL: no $CONVERT or $PQWRITE"; exit 1; }

SRC=$WORK/src
IDX=$WORK/idx
MNT=$WORK/mnt
mkdir -p "$SRC" "$IDX"

# passes: the number of "size pass:" lines in the daemons' log so far
passes() { grep -c "size pass:" "$WORK/daemon.log" 2>/dev/null || true; }

# ---- files made here (a fresh clone has no ../shared) --------------------------------
python3 - "$SRC" <<'PY'
import sys
src = sys.argv[1]
# several row groups and pages, quoted text, empty fields (nulls)
with open(f"{src}/people.csv", "w") as f:
    f.write("id,name,score,city\n")
    for i in range(5000):
        name = f'"Name, {i}"' if i % 7 == 0 else f"name{i}"
        score = "" if i % 11 == 0 else f"{i * 0.25}"
        f.write(f"{i},{name},{score},city{i % 13}\n")
with open(f"{src}/small.csv", "w") as f:
    f.write("k,v\n")
    for i in range(10):
        f.write(f"{i},v{i}\n")
with open(f"{src}/other.csv", "w") as f:
    f.write("a,b,c\n")
    for i in range(3000):
        f.write(f"{i},{i * 3},text {i} here\n")
PY
"$CONVERT" -o row_group_rows=700,page_size=4096 "$SRC/people.csv" "$SRC/people.parquet" || fail "convert people"
"$CONVERT" "$SRC/small.csv" "$SRC/small.parquet" || fail "convert small"
"$CONVERT" -o row_group_rows=500 "$SRC/other.csv" "$SRC/other.parquet" || fail "convert other"
"$PQWRITE" "$SRC/typed.parquet" rows=10000 rg_rows=3000 page_size=4096 >/dev/null || fail "pqwrite typed"
"$PQWRITE" "$SRC/typed_v2.parquet" rows=4000 v=2 codec=snappy rg_rows=1500 >/dev/null || fail "pqwrite v2"
"$PQWRITE" "$SRC/empty.parquet" rows=0 >/dev/null || fail "pqwrite empty"
rm -f "$SRC"/*.csv
OWN="people.parquet small.parquet other.parquet typed.parquet typed_v2.parquet empty.parquet"

# ---- listings run no pass; ls -l of a chunk directory runs none either -------------
mount_fs "$MNT" -o ro,index_dir=none "$SRC" || finish
ls "$MNT/people.parquet" >/dev/null && ls "$MNT/people.parquet/row_groups/1" >/dev/null
ls -l "$MNT/people.parquet/row_groups/1/columns/name" >/dev/null
find "$MNT/typed.parquet" -maxdepth 2 >/dev/null
[ "$(passes)" = 0 ] && ok "ls, find and ls -l of a chunk run no size pass" ||
	fail "a listing ran a size pass: $(grep 'size pass:' "$WORK/daemon.log")"
ls -l "$MNT/people.parquet" >/dev/null
[ "$(passes)" = 1 ] && ok "ls -l of the file's directory: one size pass" ||
	fail "ls -l of the file's directory: $(passes) passes"
# concurrent first stats of one file wait for one pass
before=$(passes)
pids=()
for i in 1 2 3 4 5 6; do
	stat -c %s "$MNT/typed.parquet/data.csv" "$MNT/typed.parquet/columns/s/values.txt" >/dev/null &
	pids+=($!)
done
wait "${pids[@]}" # not the daemon's
[ "$(passes)" = $((before + 1)) ] && ok "6 concurrent stats: one size pass" ||
	fail "6 concurrent stats ran $(( $(passes) - before )) passes"
umount_fs "$MNT"

# ---- one column's values.txt of a never-read file: that column measured alone --------
mount_fs "$MNT" -o ro,index_dir=none "$SRC" || finish
before=$(passes)
v=$MNT/people.parquet/columns/name/values.txt
sz=$(stat -c %s "$v")
got=$(cat "$v" | wc -c)
[ "$sz" = "$got" ] && [ "$sz" -gt 10000 ] && ok "columns/name/values.txt: st_size $sz = the bytes read, at the first stat" ||
	fail "columns/name/values.txt: st_size $sz, read $got bytes"
[ "$(passes)" = "$before" ] && grep -q "column measured: .*people.parquet column 1" "$WORK/daemon.log" &&
	ok "its stat measured the column alone (no size pass)" ||
	fail "stat of one column's values.txt: $(( $(passes) - before )) size passes; $(grep 'column measured' "$WORK/daemon.log" | tail -1)"
for rg in 0 3 7; do
	c=$MNT/people.parquet/row_groups/$rg/columns/name/values.txt
	[ "$(stat -c %s "$c")" = "$(cat "$c" | wc -c)" ] || fail "row group $rg's name/values.txt: st_size $(stat -c %s "$c"), read $(cat "$c" | wc -c)"
done
# the whole file's sizes still come from one pass, and agree
stat -c %s "$MNT/people.parquet/data.csv" >/dev/null
[ "$(passes)" = $((before + 1)) ] || fail "data.csv after a column was measured: $(( $(passes) - before )) passes (want 1)"
grep -q "bytes measured, .* rendered" "$WORK/daemon.log" &&
	fail "a size measured alone and by the pass differ: $(grep 'bytes measured' "$WORK/daemon.log" | head -2)"
umount_fs "$MNT"

# ---- sizes at the first stat equal the bytes read (fresh mount, empty index) --------
mount_fs "$MNT" -o ro,index_dir="$IDX" "$SRC" || finish
# tar of a directory never read, against cp -r of it after
mkdir -p "$WORK/tar" "$WORK/cp"
(cd "$MNT" && tar cf "$WORK/other.tar" other.parquet) || fail "tar cf exited $?"
(cd "$WORK/tar" && tar xf "$WORK/other.tar")
cp -r "$MNT/other.parquet" "$WORK/cp/" || fail "cp -r"
if diff -r "$WORK/tar/other.parquet" "$WORK/cp/other.parquet" >"$WORK/diff" 2>&1; then
	n=$(stat -c %s "$WORK/tar/other.parquet/data.csv")
	[ "$n" -gt 1000 ] && ok "tar of a never-read file directory equals cp -r (data.csv $n bytes)" ||
		fail "tar: data.csv has $n bytes"
else
	fail "tar differs from cp -r: $(head -5 "$WORK/diff")"
fi
# rsync -a likewise (another never-read file)
if command -v rsync >/dev/null; then
	mkdir -p "$WORK/rs"
	rsync -a "$MNT/typed_v2.parquet" "$WORK/rs/" || fail "rsync exited $?"
	cp -r "$MNT/typed_v2.parquet" "$WORK/cp/"
	diff -r "$WORK/rs/typed_v2.parquet" "$WORK/cp/typed_v2.parquet" >"$WORK/diff" 2>&1 &&
		ok "rsync -a of a never-read file directory equals cp -r" ||
		fail "rsync differs from cp -r: $(head -5 "$WORK/diff")"
else
	echo "note: rsync not installed: its check skipped"
fi
# tail -c of a never-read data.csv, then mmap of another never-read one
tail -c 1000 "$MNT/typed.parquet/data.csv" >"$WORK/tail" || fail "tail -c exited $?"
cat "$MNT/typed.parquet/data.csv" | tail -c 1000 | cmp -s - "$WORK/tail" &&
	[ "$(stat -c %s "$WORK/tail")" = 1000 ] && ok "tail -c 1000 of a never-read data.csv" ||
	fail "tail -c 1000 of data.csv differs from the end of a full read"
python3 - "$MNT/people.parquet/data.csv" "$MNT/people.parquet/columns/score/values.txt" <<'PY' || fail "mmap"
import mmap, os, sys
for p in sys.argv[1:]:
    with open(p, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        got = bytes(m)
        m.close()
    with open(p, "rb") as f:
        want = f.read()
    if got != want or len(got) != os.stat(p).st_size:
        sys.exit(f"{p}: mmap {len(got)} bytes, read {len(want)}")
print("ok: mmap of never-read data.csv and values.txt equals read()")
PY
# pread in the middle of a never-read data.jsonl (a later row group)
python3 - "$MNT/other.parquet/data.jsonl" <<'PY' || fail "pread"
import os, sys
p = sys.argv[1]
size = os.stat(p).st_size
fd = os.open(p, os.O_RDONLY)
mid = os.pread(fd, 200, size * 3 // 4)
os.close(fd)
whole = open(p, "rb").read()
if len(whole) != size or mid != whole[size * 3 // 4:size * 3 // 4 + 200]:
    sys.exit("pread at 3/4 of data.jsonl differs from a full read")
print("ok: pread in the middle of a never-read data.jsonl")
PY
python3 "$WALK" "$MNT" --pages 100 $OWN || fail "sizes of the files made here"
own_passes=$(passes)
umount_fs "$MNT"
nidx=$(ls "$IDX" | grep -c '\.sz$')
[ "$nidx" -ge 5 ] && ok "size index: $nidx entries written" || fail "size index: $nidx entries"

# ---- remount with the same index: ls -lR loads no layout, runs no pass -----------------
# (the mount's own totals line, logged at unmount)
mount_fs "$MNT" -o ro,index_dir="$IDX" "$SRC" || finish
(cd "$MNT" && find . \( -path '*/pages/*' -o -path '*/dictionary/*' -o -name 'bloom_filter.*' \
	-o -name column_index.txt -o -name offset_index.txt -o -path '*.parquet/columns/*/stats.txt' \) \
	-type f -printf '%s %P\n') >"$WORK/shape_sizes"
ls -lR "$MNT" >/dev/null
umount_fs "$MNT"
totals=$(grep "mount totals:" "$WORK/daemon.log" | tail -1)
npage=$(wc -l <"$WORK/shape_sizes")
ndict=$(grep -c /dictionary/ "$WORK/shape_sizes")
nidxs=$(grep -c '_index.txt$\|bloom_filter' "$WORK/shape_sizes")
nstats=$(grep -c '/stats.txt$' "$WORK/shape_sizes")
case $totals in
*": 0 size passes, 0 chunk layouts loaded, "*", 0 column summaries rendered, "*) ok "remount: ls -lR ($npage entries of pages, dictionary/, page indexes and bloom filters: $ndict, $nidxs of the last two; $nstats columns' stats.txt) ran no pass, loaded no layout, rendered no column summary" ;;
*) fail "remount: ls -lR: ${totals:-no totals line}" ;;
esac
[ "$nstats" -gt 10 ] || fail "remount: only $nstats columns/*/stats.txt"
[ "$npage" -gt 500 ] && [ "$ndict" -gt 10 ] || fail "remount: only $npage page entries, $ndict in dictionary/"
# those sizes are the bytes a read returns (a mount of its own, reading)
mount_fs "$MNT" -o ro,index_dir=none "$SRC" || finish
python3 - "$MNT" "$WORK/shape_sizes" <<'PY' || fail "sizes from the index's shapes"
import sys
mnt, listing = sys.argv[1], sys.argv[2]
bad = n = 0
for line in open(listing):
    size, path = line.rstrip("\n").split(" ", 1)
    got = len(open(f"{mnt}/{path}", "rb").read())
    n += 1
    if got != int(size):
        bad += 1
        if bad <= 5:
            print(f"{path}: st_size {size} from the index, {got} bytes read")
if bad:
    sys.exit(f"{bad} of {n} page entries differ")
print(f"ok: {n} entries: sizes from the index's shapes equal the bytes read")
PY
umount_fs "$MNT"

# ---- remount with the same index: no pass at all --------------------------------------
before=$(passes)
mount_fs "$MNT" -o ro,index_dir="$IDX" "$SRC" || finish
python3 "$WALK" "$MNT" --pages 3 $OWN >/dev/null || fail "sizes after remount"
ls -lR "$MNT" >/dev/null
[ "$(passes)" = "$before" ] && ok "remount with the index: every size known, no size pass" ||
	fail "remount with the index ran $(( $(passes) - before )) passes"
umount_fs "$MNT"

# ---- damaged index entries: ignored, rebuilt, never trusted ---------------------------
i=0
for f in "$IDX"/*.sz; do
	case $((i % 3)) in
	0) truncate -s 100 "$f" ;;                    # cut short
	1) printf '\x7f\x7f\x7f\x7f' | dd of="$f" bs=1 seek=90 conv=notrunc 2>/dev/null ;; # a size changed
	2) printf 'XXXX' | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null ;; # the magic
	esac
	i=$((i + 1))
done
before=$(passes)
mount_fs "$MNT" -o ro,index_dir="$IDX" "$SRC" || finish
python3 "$WALK" "$MNT" --pages 100 $OWN || fail "sizes with a damaged index"
rebuilt=$(( $(passes) - before ))
umount_fs "$MNT"
[ "$rebuilt" -ge "$nidx" ] && ok "damaged index entries: $rebuilt passes, sizes exact" ||
	fail "damaged index: only $rebuilt passes for $nidx damaged entries"
before=$(passes)
mount_fs "$MNT" -o ro,index_dir="$IDX" "$SRC" || finish
ls -lR "$MNT" >/dev/null
[ "$(passes)" = "$before" ] && ok "the rebuilt index serves the next mount" ||
	fail "the rebuilt index is not used: $(( $(passes) - before )) passes"
umount_fs "$MNT"

# ---- an index_dir that cannot be written costs speed only -----------------------------
touch "$WORK/notadir"
mount_fs "$MNT" -o ro,index_dir="$WORK/notadir/x" "$SRC" || finish
python3 "$WALK" "$MNT" --pages 2 small.parquet >/dev/null &&
	grep -q "size index $WORK/notadir/x" "$WORK/daemon.log" && ok "unwritable index_dir: sizes exact, one log line" ||
	fail "unwritable index_dir"
umount_fs "$MNT"

# ---- index_size: a bound, least recently used entries go ------------------------------
# Six copies of small.parquet (one entry each, all of one size), a bound of
# 4.5 entries: a pass stored past it removes the oldest down to 3/4 of it.
# A load makes an entry the most recently used: it outlives older writes.
LSRC=$WORK/lru_src
LRU=$WORK/lru
mkdir -p "$LSRC" "$LRU"
for i in 1 2 3 4 5 6; do cp "$SRC/small.parquet" "$LSRC/s$i.parquet"; done
taken() { stat -c '%b %B %s' "$@" | awk '{ b = $1 * $2; t += b > $3 ? b : $3 } END { print t + 0 }'; }
# the size of one entry, from a mount of the default bound
mount_fs "$MNT" -o ro,index_dir="$LRU" "$LSRC" || finish
stat -c %s "$MNT/s1.parquet/data.csv" >/dev/null
umount_fs "$MNT"
one=$(taken "$LRU"/*.sz)
rm -f "$LRU"/*.sz
bound=$((one * 9 / 2))
mount_fs "$MNT" -o ro,index_dir="$LRU",index_size=$bound "$LSRC" || finish
for i in 1 2 3 4 5 6; do
	ls -l "$MNT/s$i.parquet/" >/dev/null # runs its size pass (and stores the entry)
	sleep 0.5 # the chunk shapes rewrite it in the background: one at a time
done
umount_fs "$MNT"
n=$(ls "$LRU" | grep -c '\.sz$')
total=$(taken "$LRU"/*.sz)
[ "$total" -le "$bound" ] && [ "$n" -ge 3 ] && [ "$n" -le 4 ] &&
	ok "index_size=$bound: $n entries, $total bytes after 6 passes" ||
	fail "index_size=$bound: $n entries, $total bytes after 6 passes (at most 4, $bound bytes)"
# s3 ... s6 are kept (s1 and s2 went first); s3, the oldest, is loaded, then
# s1's pass is stored: s4 and s5 go, not s3
before=$(passes)
mount_fs "$MNT" -o ro,index_dir="$LRU",index_size=$bound "$LSRC" || finish
stat -c %s "$MNT/s3.parquet/data.csv" >/dev/null
[ "$(passes)" = "$before" ] || fail "index_size: s3 was not in the index"
ls -l "$MNT/s1.parquet/" >/dev/null
sleep 0.5
umount_fs "$MNT"
before=$(passes)
mount_fs "$MNT" -o ro,index_dir="$LRU",index_size=$bound "$LSRC" || finish
for i in 3 6 1; do stat -c %s "$MNT/s$i.parquet/data.csv" >/dev/null; done
kept=$(( $(passes) - before ))
stat -c %s "$MNT/s4.parquet/data.csv" >/dev/null
gone=$(( $(passes) - before - kept ))
umount_fs "$MNT"
[ "$kept" = 0 ] && [ "$gone" = 1 ] &&
	ok "index_size: the least recently used entry goes, a loaded one stays" ||
	fail "index_size: $kept passes for s3, s6, s1 (want 0), $gone for s4 (want 1)"

# ---- a file replaced during the mount: new sizes, never the old -----------------------
mount_fs "$MNT" -o ro,index_dir="$IDX" "$SRC" || finish
old=$(stat -c %s "$MNT/small.parquet/data.csv")
cat "$MNT/small.parquet/data.csv" >/dev/null
printf 'k,v\n' >"$WORK/new.csv"
for i in $(seq 100 400); do printf '%d,value number %d\n' "$i" "$i"; done >>"$WORK/new.csv"
"$CONVERT" "$WORK/new.csv" "$WORK/new.parquet" && mv "$WORK/new.parquet" "$SRC/small.parquet"
sleep 1.5 # the file's directory entry is trusted for 1 s (PFS_SOURCE_TIMEOUT)
new=$(stat -c %s "$MNT/small.parquet/data.csv")
got=$(cat "$MNT/small.parquet/data.csv" | wc -c)
[ "$new" != "$old" ] && [ "$new" = "$got" ] && cat "$MNT/small.parquet/data.csv" | cmp -s - "$WORK/new.csv" &&
	ok "replaced file: data.csv $old -> $new bytes, content the new file's" ||
	fail "replaced file: st_size $old then $new, $got bytes read"
python3 "$WALK" "$MNT" --pages 4 small.parquet || fail "sizes of the replaced file"
umount_fs "$MNT"

# ---- a column's values.txt streamed with chunks rendered ahead -------------------------
# 6 row groups of 2 MB of values text each: past the first 4 MB read in a row
# the next chunks are rendered on other threads (the totals line counts the
# segments served so); the bytes are the column's values, one per line, as
# the CSV they were converted from has them (and st_size is their count).
python3 - "$WORK/long.csv" "$WORK/long_s.txt" "$WORK/long_i.txt" <<'PY'
import sys
csv, s_out, i_out = sys.argv[1:]
with open(csv, "w") as f, open(s_out, "w") as s, open(i_out, "w") as i:
    f.write("i,s\n")
    for n in range(600000):
        v = f"value {n * 7919 % 1000003} of the long column"
        f.write(f"{n * 3},{v}\n")
        s.write(v + "\n")
        i.write(f"{n * 3}\n")
PY
mkdir -p "$WORK/long"
"$CONVERT" -o row_group_rows=100000 "$WORK/long.csv" "$WORK/long/long.parquet" || fail "convert long"
mount_fs "$MNT" -o ro,index_dir=none "$WORK/long" || finish
V=$MNT/long.parquet/columns
cmp -s "$V/s/values.txt" "$WORK/long_s.txt" && cmp -s "$V/i/values.txt" "$WORK/long_i.txt" &&
	[ "$(stat -c %s "$V/s/values.txt")" = "$(stat -c %s "$WORK/long_s.txt")" ] &&
	ok "columns/*/values.txt of 6 row groups equal the converted column ($(stat -c %s "$WORK/long_s.txt") bytes)" ||
	fail "columns/*/values.txt differ from the converted columns"
# a reader that jumps back and forth while chunks are rendered ahead
python3 - "$V/s/values.txt" "$WORK/long_s.txt" <<'PY' || fail "values.txt read out of order"
import os, sys
got, want = sys.argv[1], open(sys.argv[2], "rb").read()
fd = os.open(got, os.O_RDONLY)
for off in (0, 5_000_000, 1_000_000, 9_000_000, 4_500_000, len(want) - 10, 7_000_000):
    b = os.pread(fd, 3_000_000, off)
    if b != want[off:off + 3_000_000]:
        sys.exit(f"pread at {off}: {len(b)} bytes differ")
os.close(fd)
print("ok: values.txt read at jumping offsets equals the column")
PY
# one strictly sequential reader (O_DIRECT, 128 KiB at a time, one request
# after the other: no kernel readahead reordering reads under load), so the
# stream sees more than 4 MB read in a row and renders the next chunks ahead
python3 - "$V/s/values.txt" "$WORK/long_s.txt" <<'PY' || fail "values.txt read sequentially with O_DIRECT"
import mmap, os, sys
got, want = sys.argv[1], open(sys.argv[2], "rb").read()
fd = os.open(got, os.O_RDONLY | os.O_DIRECT)
buf, off = mmap.mmap(-1, 128 << 10), 0
while True:
    n = os.preadv(fd, [buf], off)
    if n <= 0:
        break
    if buf[:n] != want[off:off + n]:
        sys.exit(f"O_DIRECT read at {off}: {n} bytes differ")
    off += n
os.close(fd)
if off != len(want):
    sys.exit(f"O_DIRECT reads ended at {off}, want {len(want)}")
print("ok: values.txt read sequentially with O_DIRECT equals the column")
PY
umount_fs "$MNT"
ahead=$(grep "mount totals:" "$WORK/daemon.log" | tail -1 | sed -n 's/.*, \([0-9]*\) segments rendered ahead,.*/\1/p')
[ "${ahead:-0}" -ge 2 ] && ok "values.txt: $ahead chunks were rendered ahead" ||
	fail "values.txt: ${ahead:-no} chunks rendered ahead (12 MB in 6 chunks, read sequentially)"
# a reader whose first read is large and from the start (cat, cp) gets the
# next chunks rendered ahead at once, before 4 MB were read in a row: here
# 4 MiB in 1 MiB reads (O_DIRECT: the sizes reach the daemon as they are)
# reach into the second chunk (at 3.2 MB) before 4 MiB were read, and take
# it from those rendered ahead (a pause after the first
# read lets the helpers take it: one not taken yet when the reader gets
# there is the reader's to render)
mount_fs "$MNT" -o ro,index_dir=none "$WORK/long" || finish
python3 - "$V/s/values.txt" "$WORK/long_s.txt" <<'PY' || fail "values.txt: the first 4 MiB read with O_DIRECT"
import mmap, os, sys, time
got, want = sys.argv[1], open(sys.argv[2], "rb").read()
fd = os.open(got, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 1 << 20)
for off in (0, 1 << 20, 2 << 20, 3 << 20):
    n = os.preadv(fd, [buf], off)
    time.sleep(0.3)
    if n != 1 << 20 or buf[:n] != want[off:off + n]:
        sys.exit(f"O_DIRECT read at {off}: {n} bytes, not the column's")
os.close(fd)
PY
umount_fs "$MNT"
ahead=$(grep "mount totals:" "$WORK/daemon.log" | tail -1 | sed -n 's/.*, \([0-9]*\) segments rendered ahead,.*/\1/p')
[ "${ahead:-0}" -ge 1 ] && ok "values.txt: a large first read from the start gets chunks rendered ahead at once ($ahead within 4 MiB)" ||
	fail "values.txt: ${ahead:-no} chunks rendered ahead within the first 4 MiB of a large first read"

# ---- every file of parquet-testing/data ------------------------------------------------
if [ -d "$DATA" ]; then
	KEYS=$WORK/keys.txt
	cp "$TD/keys.txt" "$KEYS" 2>/dev/null && chmod 600 "$KEYS" && kopt=",key_file=$KEYS" || kopt=
	mount_fs "$MNT" -o "ro,index_dir=none$kopt" "$DATA" || finish
	names=$(cd "$MNT" && ls)
	# shellcheck disable=SC2086
	python3 "$WALK" "$MNT" --pages 3 $names || fail "sizes of parquet-testing/data"
	umount_fs "$MNT"
else
	echo "note: $DATA not found: only the files made here were checked"
fi
echo "size passes in all: $(passes) (files made here, first mount: $own_passes)"
finish
