#!/bin/bash
# DuckDB trusts st_size: read_csv and read_json of a data.csv / data.jsonl
# that nobody read before must return every row, with values equal to
# DuckDB's own reading of the Parquet file (the independent source).
#
# Exit 0 pass, 77 skip (no FUSE, or DuckDB cannot be had: node/npm), 1 fail.
set -u

WORK_NAME=pfs-sizes-duck
. "$(dirname "$0")/mount_lib.sh"
DUCK=$top_srcdir/scripts/duckdb-sql
CONVERT=$top_builddir/src/parquetfs-convert
PQWRITE=$top_builddir/tests/pqwrite
command -v node >/dev/null && command -v npm >/dev/null ||
	skip "node and npm are needed for DuckDB (apt-get install nodejs npm)"
"$DUCK" "SELECT 42" >/dev/null 2>&1 || skip "DuckDB (@duckdb/node-api from npm) is not available"

SRC=$WORK/src
MNT=$WORK/mnt
mkdir -p "$SRC"
python3 - "$SRC/people.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("id,name,score,city\n")
    for i in range(20000):
        name = f'"Name, {i}"' if i % 7 == 0 else f"name{i}"
        score = "" if i % 11 == 0 else f"{i * 0.25}"
        f.write(f"{i},{name},{score},city {i % 13}\n")
PY
"$CONVERT" -o row_group_rows=3000,page_size=8192 "$SRC/people.csv" "$SRC/people.parquet" ||
	fail "convert"
rm -f "$SRC/people.csv"
"$PQWRITE" "$SRC/typed.parquet" rows=12000 rg_rows=5000 page_size=4096 >/dev/null || fail "pqwrite"
"$PQWRITE" "$SRC/typed2.parquet" rows=12000 rg_rows=5000 v=2 codec=snappy >/dev/null || fail "pqwrite v2"

mount_fs "$MNT" -o ro,index_dir=none "$SRC" || finish

# The parquet file's column types, as DuckDB's columns={...} map.
columns() {
	"$DUCK" "SELECT string_agg('''' || column_name || ''': ''' || column_type || '''', ', ')
		FROM (DESCRIBE SELECT * FROM read_parquet('$1'))"
}

for f in people typed typed2; do
	pq=$SRC/$f.parquet
	cols=$(columns "$pq") || { fail "$f: DESCRIBE"; continue; }
	want=$("$DUCK" "SELECT count(*) FROM read_parquet('$pq')")
	for fmt in csv json; do
		if [ $fmt = csv ]; then
			rel="read_csv('$MNT/$f.parquet/data.csv', header=true, auto_detect=false,
				delim=',', quote='\"', escape='\"', nullstr='', allow_quoted_nulls=false,
				columns={$cols})"
		else
			rel="read_json('$MNT/$f.parquet/data.jsonl', format='newline_delimited',
				columns={$cols})"
		fi
		# never read before: the first access is DuckDB's
		out=$("$DUCK" "CREATE TABLE p AS FROM read_parquet('$pq');
			CREATE TABLE m AS FROM $rel;
			SELECT (SELECT count(*) FROM m),
			       (SELECT count(*) FROM (FROM p EXCEPT ALL FROM m)),
			       (SELECT count(*) FROM (FROM m EXCEPT ALL FROM p))" 2>&1)
		if [ "$out" = "$want	0	0" ]; then
			ok "$f: DuckDB read_$fmt of the never-read mount file: $want rows, values equal"
		else
			fail "$f: read_$fmt: rows, missing, extra = '$out' (want $want rows)"
		fi
	done
done
umount_fs "$MNT"
finish
