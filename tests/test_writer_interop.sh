#!/usr/bin/env bash
# Interop: DuckDB (the independent reader) reads every variant of file the
# core writer produces — each codec, data page v1 and v2, dictionary on and
# off and past its fallback limit, the non-default encodings, bloom filters,
# nulls, unicode, 0 rows, 300 columns, several row groups — with values
# identical to DuckDB's own reading of the same table as CSV with the same
# types; parquet_metadata() shows the statistics DuckDB computes itself from
# the CSV; parquet_bloom_probe() finds the bloom filters.
# Skips (77) without node/npm or when @duckdb/node-api cannot be installed.
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
pqwrite=$top_builddir/tests/pqwrite
duck=$top_srcdir/scripts/duckdb-sql

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "SKIP: node and npm are needed for DuckDB (apt-get install nodejs npm)"
	exit 77
fi
if ! "$duck" "SELECT 42" >/dev/null 2>&1; then
	echo "SKIP: DuckDB (@duckdb/node-api from npm) is not available (no network?)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pqwrite-interop.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

typed_cols="'b':'BOOLEAN','i32':'INTEGER','i64':'BIGINT','f':'FLOAT','d':'DOUBLE','s':'VARCHAR','u':'UUID','dec':'DECIMAL(38,2)','dt':'DATE','ts':'BIGINT'"
wide_cols=$(for i in $(seq 0 299); do
	if [ $((i % 2)) = 0 ]; then printf "'c%d':'BIGINT'," "$i"; else printf "'c%d':'VARCHAR'," "$i"; fi
done)
wide_cols=${wide_cols%,}
csv_opts="header=true, auto_detect=false, delim=',', quote='\"', escape='\"', nullstr='', allow_quoted_nulls=false"

# name rows kind(typed|wide) pqwrite-options...
variants=(
	"v1_uncompressed 3000 typed codec=uncompressed v=1"
	"v1_snappy 3000 typed codec=snappy v=1"
	"v1_gzip 3000 typed codec=gzip v=1 level=9"
	"v1_brotli 3000 typed codec=brotli v=1 level=5"
	"v1_zstd 3000 typed codec=zstd v=1 level=19"
	"v1_lz4_raw 3000 typed codec=lz4_raw v=1"
	"v2_uncompressed 3000 typed codec=uncompressed v=2"
	"v2_snappy 3000 typed codec=snappy v=2"
	"v2_gzip 3000 typed codec=gzip v=2"
	"v2_brotli 3000 typed codec=brotli v=2"
	"v2_zstd 3000 typed codec=zstd v=2"
	"v2_lz4_raw 3000 typed codec=lz4_raw v=2"
	"v1_nodict 3000 typed dict=off v=1"
	"v2_nodict 3000 typed dict=off v=2 codec=snappy"
	"nonulls 3000 typed nulls=off"
	"bloom 3000 typed bloom=s:i64:d fpp=0.001"
	"fallback 60000 typed longstr=on rg_rows=40000 page_size=65536"
	"rowgroups 10000 typed rg_rows=3000 page_size=4096"
	"noindex_nocrc 3000 typed page_index=off crc=off"
	"delta_v2 3000 typed v=2 enc=i32:DELTA_BINARY_PACKED enc=i64:DELTA_BINARY_PACKED enc=s:DELTA_BYTE_ARRAY enc=f:BYTE_STREAM_SPLIT enc=d:BYTE_STREAM_SPLIT enc=u:DELTA_BYTE_ARRAY enc=b:RLE"
	"delta_v1 3000 typed v=1 enc=s:DELTA_LENGTH_BYTE_ARRAY enc=dt:DELTA_BINARY_PACKED enc=dec:DELTA_BYTE_ARRAY enc=ts:DELTA_BINARY_PACKED enc=b:RLE"
	"zero_rows 0 typed"
	"wide300 500 wide wide=300 v=2"
)

sql=""
expect=""
for v in "${variants[@]}"; do
	read -r name rows kind opts <<<"$v"
	# shellcheck disable=SC2086
	if ! "$pqwrite" "$tmp/$name.parquet" "$tmp/$name.csv" rows="$rows" $opts; then
		echo "FAIL: pqwrite $name"
		fail=1
		continue
	fi
	if [ "$kind" = typed ]; then
		psel="SELECT b,i32,i64,f,d,s,u,dec,dt,epoch_us(ts) AS ts FROM read_parquet('$tmp/$name.parquet')"
		cols=$typed_cols
	else
		psel="FROM read_parquet('$tmp/$name.parquet')"
		cols=$wide_cols
	fi
	sql+="CREATE VIEW p_$name AS $psel; "
	sql+="CREATE VIEW c_$name AS FROM read_csv('$tmp/$name.csv', $csv_opts, columns={$cols}); "
	expect+="$name	$rows	$rows	0	0"$'\n'
done
sel=""
for v in "${variants[@]}"; do
	read -r name _ <<<"$v"
	[ -n "$sel" ] && sel+=" UNION ALL "
	sel+="SELECT '$name', (SELECT count(*) FROM p_$name), (SELECT count(*) FROM c_$name),"
	sel+=" (SELECT count(*) FROM (FROM p_$name EXCEPT ALL FROM c_$name)),"
	sel+=" (SELECT count(*) FROM (FROM c_$name EXCEPT ALL FROM p_$name))"
done
# Negative control: a file compared with another table's CSV must differ,
# or the comparison could not fail.
sel+=" UNION ALL SELECT 'control', (SELECT count(*) FROM p_v1_zstd), (SELECT count(*) FROM c_nonulls),"
sel+=" (SELECT count(*) > 0 FROM (FROM p_v1_zstd EXCEPT ALL FROM c_nonulls)), 0"
expect+="control	3000	3000	1	0"$'\n'

if ! got=$("$duck" "$sql SELECT * FROM ($sel)" 2>&1); then
	echo "FAIL: DuckDB could not read the files:"
	echo "$got"
	exit 1
fi
if [ "$got" != "${expect%$'\n'}" ]; then
	echo "FAIL: DuckDB reads differ from the CSV (name, parquet rows, csv rows, only-in-parquet, only-in-csv):"
	diff <(echo "${expect%$'\n'}") <(echo "$got") || true
	fail=1
else
	echo "ok: ${#variants[@]} variants read by DuckDB with identical values"
fi

# Statistics: parquet_metadata() of the written file against DuckDB's own
# min / max / null count over the CSV (strings compare bytewise in both).
# i64 is row * 1000003 - 5e9, which gives each CSV row its row group.
stats_sql="CREATE VIEW c AS FROM read_csv('$tmp/rowgroups.csv', $csv_opts, columns={$typed_cols}); "
stats_sql+="CREATE VIEW m AS SELECT path_in_schema AS col, row_group_id AS rg, stats_min_value AS lo, stats_max_value AS hi, stats_null_count AS nulls FROM parquet_metadata('$tmp/rowgroups.parquet'); "
stats_sql+="SELECT col, string_agg(ok, ',' ORDER BY rg) FROM ("
first=1
for col in i32 i64 s dt dec b; do
	[ $first = 1 ] || stats_sql+=" UNION ALL "
	first=0
	stats_sql+="SELECT '$col' AS col, g AS rg, ((SELECT lo FROM m WHERE m.col = '$col' AND m.rg = g) = min($col)::VARCHAR"
	stats_sql+=" AND (SELECT hi FROM m WHERE m.col = '$col' AND m.rg = g) = max($col)::VARCHAR"
	stats_sql+=" AND (SELECT nulls FROM m WHERE m.col = '$col' AND m.rg = g) = count(*) - count($col))::VARCHAR AS ok"
	stats_sql+=" FROM (SELECT *, (i64 + 5000000000) // 1000003 // 3000 AS g FROM c) GROUP BY g"
done
stats_sql+=") GROUP BY col ORDER BY col"
stats_expect=$(printf '%s\ttrue,true,true,true\n' b dec dt i32 i64 s)
if ! got=$("$duck" "$stats_sql" 2>&1) || [ "$got" != "$stats_expect" ]; then
	echo "FAIL: statistics differ from DuckDB's own over the CSV (column, per row group):"
	echo "$got"
	fail=1
else
	echo "ok: statistics (min, max, null count) of 4 row groups match DuckDB's"
fi

# Bloom filters: present where asked, found values not excluded, absent
# values excluded, columns without a filter never exclude.
b=$tmp/bloom.parquet
bloom_sql="SELECT (SELECT count(*) FROM parquet_metadata('$b') WHERE bloom_filter_offset IS NOT NULL),"
bloom_sql+=" (SELECT bool_or(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 's', 'zeta')),"
bloom_sql+=" (SELECT bool_or(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 's', '日本語テキスト')),"
bloom_sql+=" (SELECT bool_and(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 's', 'not in the table')),"
bloom_sql+=" (SELECT bool_or(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 'i64', -5000000000)),"
bloom_sql+=" (SELECT bool_and(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 'i64', 12)),"
bloom_sql+=" (SELECT bool_and(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 'd', 0.25)),"
bloom_sql+=" (SELECT bool_or(bloom_filter_excludes) FROM parquet_bloom_probe('$b', 'i32', 123456))"
bloom_expect=$(printf '3\tfalse\tfalse\ttrue\tfalse\ttrue\ttrue\tfalse')
if ! got=$("$duck" "$bloom_sql" 2>&1) || [ "$got" != "$bloom_expect" ]; then
	echo "FAIL: bloom filters: expected"
	echo "$bloom_expect"
	echo "got"
	echo "$got"
	fail=1
else
	echo "ok: bloom filters present and probed by DuckDB"
fi

exit $fail
