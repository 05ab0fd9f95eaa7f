#!/bin/bash
# S3 sources against a real fake S3 (s3rver from npm) behind tests/s3proxy.py,
# which checks every signature and counts requests:
#
#   the tree of s3://bucket/prefix as a local mount of the same files shows
#   it (sub-directories, other objects hidden); byte-exact file.parquet,
#   data.csv, a page's values.txt, random reads; requests per view: `ls -l`
#   reads no object body (no GET, no HEAD), metadata.txt takes one GET,
#   one column's values.txt O(row groups) GETs (not one per page), one page's
#   values.txt in a random row group at most 2 x its compressed size + the
#   offset index + 64 KiB; staging: a CSV copied into staging/ is uploaded
#   as PREFIX/<name>.parquet and reads back (DuckDB compares the values when
#   available), `>>` appends rows to that object (uploaded whole, its old
#   bytes kept; a bad line changes nothing), a failed upload (PUT answered 500) fails cp with EIO and is
#   uploaded by the next mount; a prefix of 2,500 objects lists completely (3 pages of
#   ListObjectsV2) without reading any; an ARUNA container (sealed by
#   tests/aruna.py) shows metadata.txt in at most 3 GETs and one row group's
#   data.csv fetches only the container chunks holding it (python3-cryptography
#   and zstd, else that part is noted and not run); with ../shared, a conformance file
#   through s3:// gives 0 failures (../shared/tools/check-mount.sh --strict).
#
# PFS_LONG=1: 10,000 objects instead of 2,500, every conformance file.
#
# Exit 0 pass, 77 skip (no FUSE, no s3rver/npm, a parquetfs without remote
# sources), 1 fail. Servers and mounts are stopped on exit.
# Env: PARQUETFS (binary), PFS_TEST_KEEP_LOG.
set -u

WORK_NAME=pfs-remote-s3
. "$(dirname "$0")/mount_lib.sh"
. "$(dirname "$0")/remote_lib.sh"
remote_need_support
PQWRITE=$top_builddir/tests/pqwrite
CONVERT=$top_builddir/src/parquetfs-convert
[ -x "$PQWRITE" ] && [ -x "$CONVERT" ] || { echo "FAIL: no tests/pqwrite or src/parquetfs-convert in $top_builddir"; exit 1; }
s3_start
UMOUNT_SETTLE=0.3
section() { echo "-- $* (at ${SECONDS} s)"; }
show_log() { s3_log | head -12 | sed 's/^/  proxy: /'; }

# ---- the objects: 4 row groups of 25,000 rows, 8 KiB pages, uncompressed, so
# a chunk (~200 KB) is much larger than one page's budget
L=$WORK/local
mkdir -p "$L/sub" "$S3_DIR/bkt"
"$PQWRITE" "$L/t.parquet" rows=100000 rg_rows=25000 page_size=8192 codec=uncompressed wide=1 >/dev/null &&
"$PQWRITE" "$L/v.parquet" rows=3000 rg_rows=1000 >/dev/null || { echo "FAIL: pqwrite"; exit 1; }
{ echo "id,name"; for i in $(seq 1 300); do echo "$i,n$i"; done; } >"$WORK/u.csv"
"$CONVERT" "$WORK/u.csv" "$L/sub/u.parquet" || { echo "FAIL: parquetfs-convert"; exit 1; }
s3_seed bkt data/t.parquet "$L/t.parquet"
s3_seed bkt data/v.parquet "$L/v.parquet"
s3_seed bkt data/sub/u.parquet "$L/sub/u.parquet"
s3_seed bkt data/notes.txt "$WORK/u.csv"
s3_seed bkt other/x.parquet "$L/sub/u.parquet"
cp "$WORK/u.csv" "$L/notes.txt"

LM=$WORK/lmnt R=$WORK/rmnt
mount_fs "$LM" -o index_dir=none "$L" || finish
s3_reset
mount_s3 "$R" bkt/data || finish
# ---- the tree, from the listing alone
s3_reset
[ "$(ls "$R")" = "$(printf 'staging\nsub\nt.parquet\nv.parquet')" ] && ok "ls of the prefix" ||
	fail "ls of s3://bkt/data: $(ls "$R" | tr '\n' ' ') (want staging sub t.parquet v.parquet)"
[ "$(ls "$R/sub")" = "u.parquet" ] && ok "ls of a sub-directory" || fail "ls sub: $(ls "$R/sub" | tr '\n' ' ')"
ls -l "$R" "$R/sub" >/dev/null
read -r g _ < <(s3_count GET)
read -r h _ < <(s3_count HEAD)
read -r l _ < <(s3_count LIST)
[ "$g" = 0 ] && [ "$h" = 0 ] && ok "ls -l read no object (LIST $l, GET 0, HEAD 0)" ||
	fail "ls -l of the prefix read objects: GET $g, HEAD $h (LIST $l)"

# df: a bucket has no capacity; the mount shows spool_dir's file system
# (staged bytes wait there for their upload), not zeros
read -r fb fa < <(stat -f -c '%b %a' "$R")
[ "${fb:-0}" -gt 0 ] && [ "${fa:-0}" -gt 0 ] && ok "statfs: $fb blocks, $fa available (the spool's file system)" ||
	fail "statfs of the S3 mount: ${fb:-?} blocks, ${fa:-?} available (want the spool's file system)"

# ---- metadata.txt: the footer from one speculative tail read
section "requests per view"
s3_reset
same "$R/t.parquet/metadata.txt" "$LM/t.parquet/metadata.txt" && ok "metadata.txt" || fail "metadata.txt differs"
read -r g gb < <(s3_count GET)
echo "requests: metadata.txt of t.parquet: $g GET, $gb bytes"
# the footer lies in the speculative tail read; the leading magic is
# checked with the first chunk's read, not fetched on its own (issue 12)
[ "$g" = 1 ] && ok "metadata.txt in one GET" || fail "metadata.txt took $g GETs (want 1: the footer is in the tail read)"

# ---- one column's values.txt: O(row groups), not one GET per page
pages=$(ls -d "$LM"/t.parquet/row_groups/*/columns/c0/pages/* | wc -l)
s3_reset
same "$R/t.parquet/columns/c0/values.txt" "$LM/t.parquet/columns/c0/values.txt" && ok "columns/c0/values.txt" ||
	fail "columns/c0/values.txt differs"
read -r g gb < <(s3_count GET)
echo "requests: columns/c0/values.txt (4 row groups, $pages pages): $g GET, $gb bytes"
[ "$g" -le 14 ] || { fail "one column's values.txt took $g GETs for 4 row groups ($pages pages): want O(row groups), at most 14"; show_log; }

# ---- byte-exact entries and random reads
s3_reset
cmp -s "$R/t.parquet/file.parquet" "$L/t.parquet" && ok "file.parquet byte-exact" || fail "file.parquet differs"
read -r g gb < <(s3_count GET)
echo "requests: file.parquet ($(stat -c %s "$L/t.parquet") bytes): $g GET, $gb bytes"
same "$R/t.parquet/data.csv" "$LM/t.parquet/data.csv" && ok "data.csv" || fail "data.csv differs"
same "$R/v.parquet/data.csv" "$LM/v.parquet/data.csv" && ok "v.parquet/data.csv" || fail "v.parquet/data.csv differs"
same "$R/sub/u.parquet/data.jsonl" "$LM/sub/u.parquet/data.jsonl" && ok "sub/u.parquet/data.jsonl" || fail "sub/u.parquet/data.jsonl differs"
for e in data.csv row_groups/3/columns/c0/chunk.bin; do
	sz=$(stat -c %s "$LM/t.parquet/$e")
	for off in 0 $((sz / 3)) $((sz - 5000)); do
		cmp -s <(tail -c +$((off + 1)) "$R/t.parquet/$e" | head -c 4096) \
			<(tail -c +$((off + 1)) "$LM/t.parquet/$e" | head -c 4096) ||
			fail "$e: 4096 bytes at $off differ"
	done
	[ "$(stat -c %s "$R/t.parquet/$e")" = "$sz" ] || fail "$e: st_size $(stat -c %s "$R/t.parquet/$e"), local $sz"
done
[ -e "$R/notes.txt" ] && fail "notes.txt (not Parquet by name) is shown"
umount_fs "$R"

# ---- chunk.bin: a chunk in one GET when opened, a row group read chunk by
# chunk in a request or two (fs/source.c pfs_pf_advise_chunk); one column
# across row groups fetches only its chunks. w.parquet: 4 row groups x 8
# columns of ~100 KB chunks, uncompressed. Fresh mounts: nothing held.
W=$WORK/wide WM=$WORK/wmnt
mkdir -p "$W"
python3 -c '
import sys
print("a,b,c,d,e,f,g,h")
for i in range(80000):
    print("%d,%d,%d.5,s%07d,%d,t%d,%d,%d" % (i, i * 7919 % 1000003, i, i * 31 % 9999991, -i, i % 977, i * 13, i ^ 0x5555))
' >"$WORK/w.csv"
"$CONVERT" -o row_group_rows=20000,codec=uncompressed,dictionary=off "$WORK/w.csv" "$W/w.parquet" ||
	{ fail "parquetfs-convert w.csv"; finish; }
s3_seed bkt wide/w.parquet "$W/w.parquet"
mount_fs "$WM" -o index_dir=none "$W" || finish
mount_s3 "$R" bkt/wide || finish
cat "$R/w.parquet/metadata.txt" >/dev/null
s3_reset
same <(cat "$R"/w.parquet/row_groups/*/columns/c/chunk.bin) <(cat "$WM"/w.parquet/row_groups/*/columns/c/chunk.bin) ||
	fail "chunk.bin of c in every row group differs"
read -r g gb < <(s3_count GET)
want=$(du -cb "$WM"/w.parquet/row_groups/*/columns/c/chunk.bin | tail -1 | cut -f1)
echo "requests: c's chunk.bin in 4 row groups ($want bytes): $g GET, $gb bytes"
[ "$g" -le 4 ] && [ "$gb" -le "$want" ] && ok "one column's chunk.bin across row groups: $g GETs, only its bytes" ||
	{ fail "one column's chunk.bin across 4 row groups: $g GETs (want <= 4), $gb bytes (its chunks: $want)"; show_log; }
umount_fs "$R"
# every_chunk PREFIX FILE WHAT MAX ORDER...: cat of the chunk.bin entries
# ORDER (paths in FILE's tree) on a fresh mount of bkt/PREFIX, the same
# bytes as the local mount's, in at most MAX GETs and each byte once
every_chunk() {
	local prefix=$1 file=$2 what=$3 max=$4 g gb sz
	shift 4
	mount_s3 "$R" "bkt/$prefix" || finish
	cat "$R/$file/metadata.txt" >/dev/null
	s3_reset
	same <(for e in "$@"; do cat "$R/$file/$e"; done) <(for e in "$@"; do cat "$WM/$file/$e"; done) ||
		fail "every chunk.bin ($what) differs"
	read -r g gb < <(s3_count GET)
	sz=$(stat -c %s "$W/$file")
	echo "requests: every chunk.bin $what (file $sz bytes): $g GET, $gb bytes"
	[ "$g" -le "$max" ] && [ "$gb" -le "$sz" ] && ok "every chunk.bin $what: $g GETs, $gb bytes" ||
		{ fail "every chunk.bin $what: $g GETs (want <= $max), $gb bytes (file: $sz)"; show_log; }
	umount_fs "$R"
}
# every chunk, never in file order: row groups 2 0 3 1, columns backwards
# (before: two GETs per chunk, the kernel's first 128 KiB, then the rest)
every_chunk wide w.parquet "out of file order (4 row groups x 8 columns)" 12 \
	$(for rg in 2 0 3 1; do for c in h g f e d c b a; do echo "row_groups/$rg/columns/$c/chunk.bin"; done; done)
# in file order (tar, cp -r), 16 small row groups: once the reader has gone
# row group by row group for a while, the ones ahead come several at a
# time (up to 8 MiB a request); before: one request or two per row group (18)
"$CONVERT" -o row_group_rows=5000,codec=uncompressed,dictionary=off "$WORK/w.csv" "$W/w16.parquet" ||
	{ fail "parquetfs-convert w16"; finish; }
s3_seed bkt wide16/w16.parquet "$W/w16.parquet"
every_chunk wide16 w16.parquet "in file order (16 row groups x 8 columns)" 6 \
	$(for rg in $(seq 0 15); do for c in a b c d e f g h; do echo "row_groups/$rg/columns/$c/chunk.bin"; done; done)
# the size pass and data.csv ask for each row group's bytes as a whole
# (pq_file_advise_row_group): a request or two per row group, not one or
# more per chunk
mount_s3 "$R" bkt/wide || finish
cat "$R/w.parquet/metadata.txt" >/dev/null
s3_reset
stat -c %s "$R/w.parquet/data.csv" >/dev/null
read -r g gb < <(s3_count GET)
echo "requests: the size pass of w.parquet (4 row groups x 8 columns): $g GET, $gb bytes"
[ "$g" -le 8 ] && ok "the size pass: $g GETs for 4 row groups" ||
	{ fail "the size pass of w.parquet: $g GETs for 4 row groups (want <= 8)"; show_log; }
umount_fs "$R"
# ---- fetched once: the size pass, then cat data.csv, with a readahead
# budget (256 KiB here, 48 MiB by default) far below the file: what the
# pass fetched stays in cache_size's spare room, so the render refetches
# (almost) nothing; with the least cache_size (16M) it may refetch, and
# reads the same bytes (the budget at unmount is checked by finish)
wsz=$(stat -c %s "$W/w.parquet")
export PARQUETFS_TEST_READAHEAD=262144
for cs in 256M 16M; do
	mount_s3 "$R" bkt/wide -o cache_size=$cs || finish
	s3_reset
	stat -c %s "$R/w.parquet/data.csv" >/dev/null
	read -r g1 gb1 < <(s3_count GET)
	s3_reset
	same "$R/w.parquet/data.csv" "$WM/w.parquet/data.csv" || fail "data.csv (cache_size=$cs) differs"
	read -r g2 gb2 < <(s3_count GET)
	echo "requests: cache_size=$cs, readahead 256 KiB, file $wsz bytes: size pass $g1 GET, $gb1 bytes; then data.csv $g2 GET, $gb2 bytes"
	if [ $cs = 256M ]; then
		[ "$gb2" -le $((wsz / 10)) ] && ok "data.csv after the size pass refetched $gb2 of $wsz bytes" ||
			{ fail "data.csv after the size pass refetched $gb2 bytes (want <= $((wsz / 10)) of $wsz): the pass's bytes were not kept"; show_log; }
		# a plain stream (no pass told the source it will read again)
		# stays within the readahead budget: read twice, fetched twice
		umount_fs "$R"
		mount_s3 "$R" bkt/wide -o cache_size=$cs || finish
		# (O_DIRECT: past the kernel's page cache, to the daemon; fd 9
		# keeps the file, and so its source and fetched bytes, open)
		exec 9<"$R/w.parquet/file.parquet"
		dd if="$R/w.parquet/file.parquet" iflag=direct bs=1M status=none >/dev/null
		s3_reset
		dd if="$R/w.parquet/file.parquet" iflag=direct bs=1M status=none | cmp -s - "$W/w.parquet" ||
			fail "file.parquet (O_DIRECT) differs"
		read -r g3 gb3 < <(s3_count GET)
		exec 9<&-
		[ "$gb3" -ge $((wsz * 9 / 10)) ] && ok "file.parquet read again: fetched again ($gb3 bytes), not kept past the readahead budget" ||
			{ fail "file.parquet read twice: the second read fetched only $gb3 of $wsz bytes: a plain stream was kept past the readahead budget"; show_log; }
	fi
	umount_fs "$R"
done
# ---- a range read to its end goes first: with no pass running, the LRU
# (256 KiB: four 64 KiB windows) gives up the windows readers finished
# before one a reader is still in (O_DIRECT reads, the file held open)
mount_s3 "$R" bkt/wide || finish
exec 9<"$R/w.parquet/file.parquet"
rd() { dd if="$R/w.parquet/file.parquet" iflag=direct bs="$1" skip="$2" count="$3" status=none >/dev/null; }
rd 16K 0 1 # [0, 16K): exactly what is asked (not where the last read ended)
rd 16K 1 2 # [16K, 48K): goes on where it ended, a window [16K, 80K), half read
for mb in 1 2 3 4; do rd 64K $((mb * 16)) 1; done # four windows read to their ends
s3_reset
rd 16K 3 2 # [48K, 80K): the rest of the half-read window
read -r g4 gb4 < <(s3_count GET)
[ "$g4" -eq 0 ] && ok "a window still being read outlived four read to their ends" ||
	{ fail "the half-read window was pushed out by windows read to their ends ($g4 GETs, $gb4 bytes)"; show_log; }
exec 9<&-
umount_fs "$R"
unset PARQUETFS_TEST_READAHEAD
umount_fs "$WM"

# ---- one page's values.txt in a random row group, fresh mount (footer only)
mount_s3 "$R" bkt/data || finish
cat "$R/t.parquet/metadata.txt" >/dev/null
rg=2 pg=13
cm=$LM/t.parquet/row_groups/$rg/columns/c0
cs=$(awk -v p=$pg '$1 == p {print $3}' "$cm/offset_index.txt")
oi=$(sed -n 's/^offset_index_length: //p' "$cm/metadata.txt")
chunk=$(sed -n 's/^total_compressed_size: //p' "$cm/metadata.txt")
s3_reset
p=t.parquet/row_groups/$rg/columns/c0/pages/$pg/values.txt
same "$R/$p" "$LM/$p" && ok "one page's values.txt" || fail "$p differs"
read -r g gb < <(s3_count GET)
bound=$((2 * cs + oi + 65536))
echo "requests: one page's values.txt (page $cs bytes, chunk $chunk bytes): $g GET, $gb bytes (bound $bound)"
show_log
# the page is located through the chunk's offset index (core/read/page_layout.c,
# pq_chunk_layout_load_page): the pages before it are not fetched
[ -n "$cs" ] || fail "no compressed size for page $pg in offset_index.txt"
[ -n "$cs" ] && [ "$gb" -le "$bound" ] && ok "one page's values.txt fetched $gb bytes <= 2 x $cs + $oi + 64 KiB" ||
	fail "one page's values.txt fetched $gb bytes, more than 2 x $cs + $oi + 64 KiB = $bound (chunk: $chunk)"

# ---- staging: the CSV becomes PREFIX/st.parquet, visible when cp returns
section staging
{ echo "id,name,score"; for i in $(seq 1 2000); do echo "$i,name $((i % 37)),$i.25"; done; } >"$WORK/st.csv"
s3_reset
if cp "$WORK/st.csv" "$R/staging/st.csv"; then
	[ -f "$S3_DIR/bkt/data/st.parquet._S3rver_object" ] && ok "staging: data/st.parquet uploaded" ||
		fail "staging: no object data/st.parquet after cp returned"
	read -r pu _ < <(s3_count PUT)
	read -r pa _ < <(s3_count PART)
	echo "requests: staging upload of st.parquet: $pu PUT, $pa parts"
	[ -d "$R/st.parquet" ] || fail "staging: st.parquet not in the mount after cp"
	cp "$WORK/st.csv" "$LM/staging/st.csv" 2>/dev/null
	same "$R/st.parquet/data.csv" "$LM/st.parquet/data.csv" && ok "staging: data.csv as through a local mount" ||
		fail "staging: st.parquet/data.csv differs from the same CSV staged locally"
	if "$top_srcdir/scripts/duckdb-sql" "SELECT 1" >/dev/null 2>&1; then
		obj=$S3_DIR/bkt/data/st.parquet._S3rver_object
		cp "$obj" "$WORK/st.parquet"
		q="SELECT id, name, score FROM"
		a=$("$top_srcdir/scripts/duckdb-sql" "$q read_parquet('$WORK/st.parquet') ORDER BY id" 2>&1)
		b=$("$top_srcdir/scripts/duckdb-sql" "$q read_csv('$WORK/st.csv', header=true, columns={'id':'BIGINT','name':'VARCHAR','score':'DOUBLE'}) ORDER BY id" 2>&1)
		[ "$(wc -l <<<"$a")" = 2000 ] && [ "$a" = "$b" ] && ok "staging: DuckDB reads the uploaded object as the CSV" ||
			fail "staging: DuckDB reads the uploaded object as [$(head -c 200 <<<"$a")], the CSV as [$(head -c 200 <<<"$b")]"
	else
		echo "note: DuckDB not available, staging values not compared by DuckDB"
	fi
else
	fail "staging: cp into staging/ failed"
fi

# ---- appending (issue 31): `>>` adds rows to the object, uploaded whole;
# its old bytes up to the footer are kept as they were
section append
obj=$S3_DIR/bkt/data/st.parquet._S3rver_object
cp "$obj" "$WORK/st.before"
foff=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
print(len(b) - 8 - struct.unpack("<I", b[-8:-4])[0])' "$WORK/st.before")
s3_reset
if printf '2001,name x,1.5\n2002,,\n' >> "$R/staging/st.csv"; then
	read -r pu _ < <(s3_count PUT)
	echo "requests: append to st.parquet: $pu PUT"
	n=$(($(wc -l < "$R/st.parquet/data.csv") - 1))
	[ "$n" = 2002 ] && [ "$(tail -1 "$R/st.parquet/data.csv")" = "2002,," ] &&
		ok "append: st.parquet has 2002 rows, the last two appended" ||
		fail "append: $n rows, last $(tail -1 "$R/st.parquet/data.csv")"
	cmp -s -n "$foff" "$obj" "$WORK/st.before" && ok "append: the object's old bytes kept ($foff)" ||
		fail "append: the old bytes of st.parquet changed"
	[ ! -e "$R/staging/st.csv" ] || fail "append: st.csv stayed in staging/: $(cat "$R/staging/st.csv.error" 2>&1)"
else
	fail "append: >> to staging/st.csv failed: $(cat "$R/staging/st.csv.error" 2>&1)"
fi
cp "$obj" "$WORK/st.mid"
printf '2003,y,zz\n' | cat >> "$R/staging/st.csv" 2>/dev/null &&
	fail "append: a bad line did not fail the close"
cmp -s "$obj" "$WORK/st.mid" && grep -q 'line 1, column 3 (score)' "$R/staging/st.csv.error" &&
	ok "append: a bad line changes nothing: $(cat "$R/staging/st.csv.error")" ||
	fail "append: after a bad line: $(cat "$R/staging/st.csv.error" 2>&1)"
rm -f "$R/staging/st.csv"
umount_fs "$R"

# ---- a failed upload: cp fails with EIO and an .error; the staged bytes
# stay in spool_dir, and the next mount (recovery) uploads them: an I/O
# failure is no verdict on the bytes (a bad CSV's .error is not retried)
section "failed upload"
SP=$WORK/spool
mount_s3 "$R" bkt/data -o spool_dir="$SP" -o retries=0 || finish
s3_fault "kind=status&code=500&method=PUT&key=rt\.parquet&count=1000"
obj=$S3_DIR/bkt/data/rt.parquet._S3rver_object
if cp "$WORK/st.csv" "$R/staging/rt.csv" 2>"$WORK/cp.err"; then
	fail "failed upload: cp succeeded under a PUT answered 500"
else
	grep -q "Input/output error" "$WORK/cp.err" && [ -s "$R/staging/rt.csv.error" ] && [ ! -e "$obj" ] &&
		ok "failed upload: cp fails with EIO, .error: $(head -c 120 "$R/staging/rt.csv.error")" ||
		fail "failed upload: $(cat "$WORK/cp.err") / $(cat "$R/staging/rt.csv.error" 2>&1)"
fi
s3_clear
umount_fs "$R"
mount_s3 "$R" bkt/data -o spool_dir="$SP" || finish
# recovery runs beside the mount: the object lands, then the mount shows it
for i in $(seq 150); do [ -e "$obj" ] && [ -d "$R/rt.parquet" ] && break; sleep 0.2; done
[ -e "$obj" ] && [ ! -e "$R/staging/rt.csv.error" ] && [ ! -e "$R/staging/rt.csv" ] &&
	same "$R/rt.parquet/data.csv" "$LM/st.parquet/data.csv" &&
	ok "failed upload: the next mount uploaded it, the .error is gone" ||
	fail "failed upload: not retried by the next mount (object: $([ -e "$obj" ] && echo yes || echo no), staging: $(ls "$R/staging" | tr '\n' ' '))"
umount_fs "$R"

# ---- an ARUNA container (issue 15), sealed by tests/aruna.py: metadata.txt
# costs at most 3 GETs (the speculative tail, the footer block, the last
# chunk), and one row group's data.csv fetches only the container chunks
# holding that row group's bytes (the proxy logs every range)
section containers
if python3 -c 'import cryptography' 2>/dev/null && command -v zstd >/dev/null; then
	K=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
	printf 'container: %s\n' "$K" >"$WORK/keys" && chmod 600 "$WORK/keys"
	"$PQWRITE" "$L/three.parquet" rows=150000 rg_rows=50000 codec=uncompressed dict=off >/dev/null &&
		python3 "$top_srcdir/tests/aruna.py" seal $K "$L/three.parquet" "$WORK/three.parquet.aruna" ||
		fail "pqwrite/aruna.py seal"
	s3_seed bkt arn/three.parquet.aruna "$WORK/three.parquet.aruna"
	mkdir -p "$WORK/plain" && cp "$L/three.parquet" "$WORK/plain/"
	PM=$WORK/pmnt
	mount_fs "$PM" -o index_dir=none "$WORK/plain" || finish
	mount_s3 "$R" bkt/arn -o "key_file=$WORK/keys" || finish
	T=$R/three.parquet.aruna
	s3_reset
	diff <(grep -v '^container:\|^file:' "$T/metadata.txt") <(grep -v '^file:' "$PM/three.parquet/metadata.txt") >/dev/null &&
		ok "container metadata.txt as the plain file's" || fail "container metadata.txt differs from the plain file's"
	read -r g gb < <(s3_count GET)
	echo "requests: container metadata.txt: $g GET, $gb bytes"
	[ "$g" -ge 1 ] && [ "$g" -le 3 ] && ok "container metadata.txt in $g GETs (at most 3)" ||
		{ fail "container metadata.txt took $g GETs (at most 3: tail, footer block, last chunk)"; show_log; }
	rg=1
	s3_reset
	same "$T/row_groups/$rg/data.csv" "$PM/three.parquet/row_groups/$rg/data.csv" &&
		ok "container row_groups/$rg/data.csv" || fail "container row_groups/$rg/data.csv differs"
	read -r g gb < <(s3_count GET)
	# the container chunks holding row group rg's plaintext bytes, in container bytes
	allowed=$(python3 - "$top_srcdir/tests/aruna.py" "$WORK/three.parquet.aruna" $K "$PM/three.parquet/row_groups/$rg/columns" <<-'PY'
	import glob, importlib.util, os, re, sys
	spec = importlib.util.spec_from_file_location("aruna", sys.argv[1])
	a = importlib.util.module_from_spec(spec); spec.loader.exec_module(a)
	c = open(sys.argv[2], "rb").read()
	chunks, _ = a.layout(c, a.ChaCha20Poly1305(bytes.fromhex(sys.argv[3])))
	lo, hi = None, 0
	for m in glob.glob(os.path.join(sys.argv[4], "*", "metadata.txt")):
	    t = open(m).read()
	    offs = [int(x) for x in re.findall(r"^(?:data|dictionary)_page_offset: (\d+)$", t, re.M)]
	    n = int(re.search(r"^total_compressed_size: (\d+)$", t, re.M).group(1))
	    lo = min(offs) if lo is None else min(lo, min(offs))
	    hi = max(hi, min(offs) + n)
	k0, k1 = lo // a.CHUNK, (hi - 1) // a.CHUNK
	first, _ = chunks[k0]
	last, count = chunks[k1]
	print(first * a.BLOCK, (last + count) * a.BLOCK, k0, k1, len(chunks))
	PY
	)
	read -r from to k0 k1 nch <<<"$allowed"
	outside=$(s3_log | awk -v f="$from" -v t="$to" '$1 == "GET" && $2 ~ /three/ {
		if (match($0, /bytes=[0-9]+-[0-9]+/)) { split(substr($0, RSTART + 6, RLENGTH - 6), r, "-");
			if (r[1] + 0 < f + 0 || r[2] + 0 >= t + 0) print r[1] "-" r[2] } }')
	echo "requests: container row_groups/$rg/data.csv (chunks $k0-$k1 of $nch, bytes $from-$to): $g GET, $gb bytes"
	[ -n "$from" ] && [ "$g" -ge 1 ] && [ -z "$outside" ] && [ "$gb" -le $((to - from)) ] &&
		ok "container row group $rg: only chunks $k0-$k1 fetched ($gb bytes)" ||
		{ fail "container row group $rg: fetched ranges outside chunks $k0-$k1 ($from-$to): ${outside:-none}, $gb bytes"; show_log; }
	umount_fs "$R"
	umount_fs "$PM"
else
	echo "note: python3-cryptography or zstd missing: the container section is not run"
fi

# ---- many objects: every page of the listing, no object read (s3rver takes
# about a second a page here: 2,500 objects by default, 10,000 with PFS_LONG=1)
NOBJ=2500
[ -n "${PFS_LONG:-}" ] && NOBJ=10000
section "$NOBJ objects"
s3_seed_many bkt many $NOBJ "$L/sub/u.parquet"
s3_reset
mount_s3 "$R" bkt/many || finish
n=$(ls "$R" | grep -c '\.parquet$')
[ "$n" = $NOBJ ] && ok "$NOBJ objects listed" || fail "ls of $NOBJ objects shows $n"
ls -l "$R" >/dev/null
read -r l _ < <(s3_count LIST)
read -r g _ < <(s3_count GET)
echo "requests: mount and ls -l of $NOBJ objects: $l LIST, $g GET"
[ "$l" -ge $((NOBJ / 1000)) ] || fail "$NOBJ objects in $l ListObjectsV2 pages (S3 gives at most 1000 a page)"
[ "$g" = 0 ] || fail "ls -l of $NOBJ objects made $g GETs"
umount_fs "$R"

# ---- key names (interface.md, S3): listings ask for encoding-type=url
# (s3proxy.py encodes as S3 does; s3rver ignores it), so a key holding a
# control character lists like any other instead of failing its whole
# directory (s3rver writes it as &#x1;, which XML 1.0 forbids); keys no
# path can name (a '.', '..' or empty component, one over 255 bytes) are
# left out with one log line each, once, and never hide the rest
section "key names"
CTL=$(printf 'ctl\001name.parquet')
s3_seed bkt "names/$CTL" "$L/v.parquet"
s3_seed bkt "names/with space+plus.parquet" "$L/v.parquet"
s3_seed bkt names/good.parquet "$L/v.parquet"
long=$(printf 'a%.0s' $(seq 300)).parquet
longdir=$(printf 'b%.0s' $(seq 300))
adds=""
for k in "names/$long" "names/../up.parquet" "names/./dot.parquet" "names//empty.parquet" "names/$longdir/deep.parquet"; do
	adds+="&add=$("$PY" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$k")"
done
s3_fault "kind=listadd&count=-1$adds"
N=$WORK/names
mount_s3 "$N" bkt/names -o ro -o metadata_ttl=1 || finish
want=$(printf '%s\n' "$CTL" good.parquet "with space+plus.parquet" | LC_ALL=C sort)
for pass in 1 2; do
	got=$(LC_ALL=C ls -A "$N" 2>&1 | LC_ALL=C sort)
	if [ "$got" = "$want" ]; then
		ok "key names, listing $pass: the control-character key and the space listed, the others left out"
	else
		fail "key names, listing $pass: ls gives '$(printf '%q' "$got")', want '$(printf '%q' "$want")'"
	fi
	sleep 1.5 # metadata_ttl=1: the second listing is fetched again
done
same "$N/$CTL/data.csv" "$LM/v.parquet/data.csv" && ok "key names: the control-character key reads" ||
	fail "key names: $(printf '%q' "$CTL")/data.csv unreadable or wrong ($(read_errno "$N/$CTL/data.csv"))"
same "$N/with space+plus.parquet/data.csv" "$LM/v.parquet/data.csv" && ok "key names: a key with a space and a '+' reads" ||
	fail "key names: 'with space+plus.parquet'/data.csv unreadable or wrong"
# (a key under a common prefix is named by its prefix: what the listing holds)
for k in "$long'" "../'" "./'" "/'" "$longdir/"; do
	pat="key 'names/${k:0:40}"
	n=$(grep -cF -- "$pat" "$WORK/daemon.log")
	[ "$n" = 1 ] && ok "key names: the log names 'names/${k:0:20}...' once: $(grep -F -m1 -- "$pat" "$WORK/daemon.log" | cut -c1-160)" ||
		fail "key names: the log names 'names/${k:0:40}' $n times (want once)"
done
umount_fs "$N"
s3_clear

# ---- the conformance files through s3:// (all of them take minutes: a
# sample by default, every file with PFS_LONG=1)
section conformance
CHECK=$top_srcdir/../shared/tools/check-mount.sh
SAMPLE="alltypes_plain.parquet"
if [ -x "$CHECK" ] && [ -d "$DATA" ] && [ -d "$TD/expected/data" ]; then
	# the contract shows objects by name (.parquet, .parq, .pq), local files
	# by magic: the expectations of the others do not apply to S3
	E=$WORK/expected
	mkdir -p "$E"
	n=0
	for f in "$DATA"/*; do
		b=$(basename "$f")
		[ -n "${PFS_LONG:-}" ] || [[ " $(echo $SAMPLE) " == *" $b "* ]] || continue
		s3_seed bkt conf/"$b" "$f"
		shopt -s nocasematch
		if [[ $b =~ \.(parquet|parq|pq)$ ]] && [ -e "$TD/expected/data/$b" ]; then
			cp -r "$TD/expected/data/$b" "$E/$b"
			n=$((n + 1))
		fi
		shopt -u nocasematch
	done
	W=$WORK/pfs-s3
	cat >"$W" <<-EOF
	#!/bin/bash
	# check-mount.sh calls BIN -f [-o key_file=K] SOURCE MNT: SOURCE -> s3://bkt/conf
	a=()
	for x in "\$@"; do [ "\$x" = "$DATA" ] && x=s3://bkt/conf; a+=("\$x"); done
	exec "$BIN" -o endpoint=$S3_ENDPOINT -o index_dir=none "\${a[@]}"
	EOF
	chmod +x "$W"
	out=$(CHECK_BUDGET_S=600 "$CHECK" "$W" --strict "$DATA" "$E" "$TD/keys.txt" 2>&1)
	last=$(echo "$out" | tail -1)
	# each file gives many checks: a handful passed means nothing was compared
	if [[ $last =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] && [ "${BASH_REMATCH[1]}" -gt $((10 * n)) ]; then
		ok "conformance through s3:// ($n files): $last"
	else
		fail "conformance through s3:// ($n files): $last"
		echo "$out" | grep '^FAIL' | head -20
	fi
else
	echo "note: ../shared (testdata, tools/check-mount.sh) missing: conformance through s3:// not run"
fi
section end
finish
