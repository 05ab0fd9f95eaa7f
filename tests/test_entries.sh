#!/bin/bash
# Mount test of file.parquet and columns/<col>/stats.txt on files made here
# with parquetfs-convert (no ../shared needed):
#
#   file.parquet: st_size equals the source's, cmp equal, random access
#   (tail -c, dd skip=) equal, and DuckDB reading it through the mount
#   returns what DuckDB reads from the source;
#   stats.txt: in every column directory, the contract's keys in order, and
#   rows, nulls, min/max, row groups and compressed bytes equal to what
#   DuckDB says of the source (count, min, max, parquet_metadata).
#
# Exit 0 pass, 77 skip (no FUSE, or no DuckDB: then the checks without it
# still run first), 1 fail. Env: PARQUETFS, PARQUETFS_CONVERT (binaries).
set -u

WORK_NAME=pfs-entries
. "$(dirname "$0")/mount_lib.sh"
CONVERT=${PARQUETFS_CONVERT:-$top_builddir/src/parquetfs-convert}
case "$CONVERT" in /*) ;; *) CONVERT=$PWD/$CONVERT ;; esac
[ -x "$CONVERT" ] || { echo "FAIL: no parquetfs-convert at $CONVERT"; exit 1; }
DUCK=$top_srcdir/scripts/duckdb-sql
HAVE_DUCK=1
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	HAVE_DUCK=0; WHY="needs node and npm for DuckDB"
elif ! "$DUCK" "SELECT 42" >/dev/null 2>&1; then
	HAVE_DUCK=0; WHY="DuckDB (@duckdb/node-api) could not be installed"
fi

SRC=$WORK/src
MNT=$WORK/mnt
mkdir -p "$SRC"

# 3000 rows: ints, strings with NULLs (empty fields), doubles, dates.
python3 - "$WORK/t.csv" <<'PY'
import sys, datetime
with open(sys.argv[1], "w") as f:
    f.write("id,name,amount,day\n")
    for i in range(3000):
        name = "" if i % 7 == 3 else f"n{(i * 7919) % 1000:04d}"
        day = datetime.date(2000, 1, 1) + datetime.timedelta(days=(i * 37) % 9000)
        f.write(f"{(i * 613) % 5000 - 2500},{name},{(i % 97) / 4},{day}\n")
PY
head -1 "$WORK/t.csv" > "$WORK/empty.csv"
conv() { "$CONVERT" -o "$1" "$2" "$SRC/$3" || fail "parquetfs-convert $1 $3"; }
conv codec=snappy,row_group_rows=1000,bloom_filter=name "$WORK/t.csv" a.parquet
conv codec=zstd,page_index=off,dictionary=off,page_size=4096 "$WORK/t.csv" b.parquet
conv codec=uncompressed "$WORK/empty.csv" empty.parquet

mount_fs "$MNT" "$SRC" || exit 1

# ---- file.parquet --------------------------------------------------------------------------

for f in a.parquet b.parquet empty.parquet; do
	P=$MNT/$f/file.parquet
	[ -f "$P" ] || { fail "$f: no file.parquet"; continue; }
	# the size at the first stat, before anything was read
	[ "$(stat -c %s "$P")" = "$(stat -c %s "$SRC/$f")" ] &&
		ok "$f: st_size $(stat -c %s "$P")" || fail "$f: st_size $(stat -c %s "$P") != $(stat -c %s "$SRC/$f")"
	cmp -s "$P" "$SRC/$f" && ok "$f: cmp equal" || fail "$f: file.parquet differs from the source"
	cmp -s <(tail -c 1000 "$P") <(tail -c 1000 "$SRC/$f") &&
		cmp -s <(dd if="$P" bs=100 skip=3 count=7 2>/dev/null) <(dd if="$SRC/$f" bs=100 skip=3 count=7 2>/dev/null) &&
		ok "$f: random access" || fail "$f: tail -c / dd skip= differ"
done
ls -U "$MNT/a.parquet" | tr '\n' ' ' | grep -q "data.jsonl file.parquet columns" &&
	ok "listed after data.jsonl" || fail "listing order: $(ls -U "$MNT/a.parquet" | tr '\n' ' ')"

# ---- stats.txt -----------------------------------------------------------------------------

KEYS="column physical_type logical_type repetition row_groups num_values null_count min max exact distinct_count compressed_bytes uncompressed_bytes compression_ratio codecs encodings data_pages dictionary_pages bloom_filters page_index"
# value FILE COL KEY: the value of KEY in the column's stats.txt
value() { sed -n "s/^$3: //p" "$MNT/$1/columns/$2/stats.txt"; }
for f in a.parquet b.parquet empty.parquet; do
	for d in "$MNT/$f"/columns/*/; do
		c=$(basename "$d")
		S=$d/stats.txt
		[ -f "$S" ] || { fail "$f: no columns/$c/stats.txt"; continue; }
		# keys: the contract's, in its order (exact and distinct_count optional)
		got=$(cut -d: -f1 "$S" | tr '\n' ' ')
		want=$(for k in $KEYS; do grep -q "^$k: " "$S" && printf '%s ' "$k"; done)
		[ "$got" = "$want" ] && [ "$(wc -l < "$S")" -ge 18 ] &&
			[ "$(stat -c %s "$S")" = "$(cat "$S" | wc -c)" ] &&
			[ "$(value "$f" "$c" column)" = "$c" ] ||
			fail "$f: columns/$c/stats.txt keys: $got"
	done
done
ok "stats.txt in every column directory, keys in the contract's order"
[ "$(value a.parquet name bloom_filters)" = "3 of 3 row groups" ] &&
	[ "$(value a.parquet id bloom_filters)" = "0 of 3 row groups" ] &&
	[ "$(value a.parquet id page_index)" = "3 of 3 row groups" ] &&
	[ "$(value b.parquet id page_index)" = "0 of 1 row groups" ] &&
	[ "$(value b.parquet id codecs)" = "ZSTD" ] && [ "$(value a.parquet id codecs)" = "SNAPPY" ] &&
	[ "$(value empty.parquet id min)" = "unknown" ] && [ "$(value empty.parquet id row_groups)" = 0 ] &&
	ok "bloom filters, page index, codecs as written" ||
	fail "bloom_filters/page_index/codecs: $(grep -h "bloom\|page_index\|codecs" "$MNT"/a.parquet/columns/*/stats.txt | tr '\n' ' ')"

if [ "$HAVE_DUCK" = 0 ]; then
	[ "$FAILS" = 0 ] || { echo "$FAILS failed"; exit 1; }
	skip "$WHY (the checks without it passed)"
fi

# ---- DuckDB --------------------------------------------------------------------------------

for f in a.parquet b.parquet empty.parquet; do
	rows=3000; [ "$f" = empty.parquet ] && rows=0
	if via=$("$DUCK" "FROM '$MNT/$f/file.parquet' ORDER BY ALL" 2>&1) &&
		direct=$("$DUCK" "FROM '$SRC/$f' ORDER BY ALL" 2>&1) &&
		[ "$via" = "$direct" ] && [ "$(printf '%s' "$via" | grep -c .)" = "$rows" ]; then
		ok "$f: DuckDB reads file.parquet as the source ($rows rows)"
	else
		fail "$f: DuckDB through the mount: $(printf '%s' "$via" | head -c 200)"
	fi
done

for f in a.parquet b.parquet; do
	for c in id name day; do
		q="SELECT count(*), count(*) - count($c), min($c), max($c) FROM '$SRC/$f'"
		want=$("$DUCK" "$q")
		got=$(printf '%s\t%s\t%s\t%s' "$(value $f $c num_values)" "$(value $f $c null_count)" \
			"$(value $f $c min)" "$(value $f $c max)")
		[ "$got" = "$want" ] && ok "$f $c: num_values, null_count, min, max as DuckDB's ($want)" ||
			fail "$f $c: stats.txt says '$got', DuckDB '$want'"
	done
	q="SELECT count(DISTINCT row_group_id), sum(total_compressed_size) FROM parquet_metadata('$SRC/$f') WHERE path_in_schema = 'name'"
	want=$("$DUCK" "$q")
	got=$(printf '%s\t%s' "$(value $f name row_groups)" "$(value $f name compressed_bytes)")
	[ "$got" = "$want" ] && ok "$f: row_groups, compressed_bytes as parquet_metadata ($want)" ||
		fail "$f: stats.txt row_groups/compressed_bytes '$got', DuckDB '$want'"
done

[ "$FAILS" = 0 ] || { echo "$FAILS failed"; exit 1; }
echo "all passed"
