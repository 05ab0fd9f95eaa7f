#!/bin/bash
# The parallel conversion (core/csv/convert.c, doc/convert.md "Threads")
# must write the same bytes as a run on one thread: parquetfs-convert with
# threads=1 (no thread at all) against threads=2, 3 and 16, on
#  - random CSVs of every inferred type with quoted fields holding newlines,
#    delimiters and quotes, NULLs and empty strings, in several row groups
#    and pages (small row_group_rows / page_size so every boundary is hit);
#  - a CSV whose first 100,000 rows are integers and whose last row is
#    text: the column must be STRING (checked with pqdump's schema, not
#    with our own reader's output), whatever the threads;
#  - a lineitem-like CSV (the shape of scripts/bench's table), also gzip'd.
# The split hook (PARQUETFS_CONVERT_SPLIT=BYTES: ranges of that size for
# the parallel inference pass) is set to tiny sizes so quoted newlines fall
# on split points.
#
# Needs python3 (generating the CSVs); no network, no ../shared.
# Exit 0 pass, 77 skip (no python3), 1 fail.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
BIN=$top_builddir/src/parquetfs-convert
DUMP=$top_builddir/tests/pqdump
case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac
case "$DUMP" in /*) ;; *) DUMP=$PWD/$DUMP ;; esac
[ -x "$BIN" ] || { echo "FAIL: no parquetfs-convert at $BIN"; exit 1; }
[ -x "$DUMP" ] || { echo "FAIL: no pqdump at $DUMP"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: needs python3 to generate CSVs"; exit 77; }

WORK=$(mktemp -d /tmp/pfs-convert-par.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }

# same NAME FILE OPTS [SPLITS...]: threads=1 vs 2, 3, 16 (threads=2 with
# each split size given, 3 and 16 with the first) write identical bytes.
same() {
	local name=$1 in=$2 opts=$3
	shift 3
	if ! "$BIN" -q -o "$opts,threads=1" "$in" ref.parquet 2>err.txt; then
		fail "$name: threads=1 failed: $(cat err.txt)"
		return
	fi
	local t s bad=0 splits
	for t in 2 3 16; do
		# every split size at threads=2; 3 and 16 threads with the first
		# (smallest) only: the ranges are the same, the thread count only
		# changes who tokenizes them (keeps the sanitizer run short)
		splits=("" "$@")
		[ "$t" != 2 ] && [ $# -gt 0 ] && splits=("" "$1")
		for s in "${splits[@]}"; do
			rm -f par.parquet
			if ! PARQUETFS_CONVERT_SPLIT=$s "$BIN" -q -o "$opts,threads=$t" "$in" par.parquet \
				2>err.txt; then
				fail "$name: threads=$t split=${s:-default} failed: $(cat err.txt)"
				bad=1
			elif ! cmp -s ref.parquet par.parquet; then
				fail "$name: threads=$t split=${s:-default}: bytes differ from threads=1"
				bad=1
			elif [ -n "$s" ]; then
				# the hook reports the ranges: the parallel pass really ran
				local nr ng
				read -r nr ng < <(sed -n 's/^inference ranges \([0-9]*\), tokenized again \([0-9]*\)$/\1 \2/p' err.txt)
				if [ "${nr:-0}" -lt 2 ]; then
					fail "$name: threads=$t split=$s: the inference pass did not run on ranges ($(cat err.txt))"
					bad=1
				fi
				RANGES=$((RANGES + ${nr:-0})); REPARSED=$((REPARSED + ${ng:-0}))
			fi
		done
	done
	[ $bad = 0 ] && ok "$name: threads 2 (splits: ${*:-none}), 3 and 16 (split: ${1:-none}) = threads=1 ($(stat -c %s ref.parquet) bytes)"
}

# Random CSVs: every inferred type, quoted fields with CR/LF/CRLF, commas,
# doubled quotes; NULLs (empty) and "" values; blank lines.
cat >gen.py <<'EOF'
import random, sys
seed, rows, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = random.Random(seed)
def text():
    parts = ["a", "b c", ",", "\n", "\r\n", "\r", '""', "x\ny", "é", "  "]
    return '"' + "".join(r.choice(parts) for _ in range(r.randint(0, 6))) + '"'
gens = [
    lambda: str(r.randint(-10**12, 10**12)),
    lambda: "%.3f" % r.uniform(-1e6, 1e6),
    lambda: "%04d-%02d-%02d" % (r.randint(1900, 2100), r.randint(1, 12), r.randint(1, 28)),
    lambda: "%04d-%02d-%02dT%02d:%02d:%02d.%06d" % (r.randint(1970, 2030), r.randint(1, 12),
             r.randint(1, 28), r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999999)),
    lambda: r.choice(["true", "false", "TRUE"]),
    text,
    lambda: r.choice(["plain", "x", "carefully final deposits", text()]),
]
with open(path, "w", newline="") as f:
    f.write("i,d,day,ts,b,quoted,mixed\n")
    for n in range(rows):
        vals = []
        for g in gens:
            v = g()
            if r.random() < 0.05:
                v = ""            # NULL
            vals.append(v)
        f.write(",".join(vals) + r.choice(["\n", "\n", "\r\n"]))
        if r.random() < 0.01:
            f.write("\n")         # a blank line
EOF
RANGES=0 REPARSED=0
for seed in 1 2 3; do
	python3 gen.py "$seed" 3000 rand$seed.csv
	same "random CSV $seed" rand$seed.csv row_group_rows=700,page_size=4096 1 7 61 509 4096
done
# Quoted newlines at split points must have sent ranges back to the real
# record boundary (else the check above proved nothing about them).
if [ $REPARSED -gt 0 ]; then
	ok "random CSVs: $RANGES ranges, $REPARSED started inside quotes and were tokenized again"
else
	fail "random CSVs: no range started inside quotes ($RANGES ranges): the test misses its point"
fi

# An error in the records (a missing field near the end): the same message
# as the single-threaded pass, with the same line number.
{ head -n 2500 rand1.csv; printf '1,2.5,2020-01-01\n'; } >ragged.csv
"$BIN" -q -o threads=1 ragged.csv r1.parquet 2>err1.txt
PARQUETFS_CONVERT_SPLIT=509 "$BIN" -q -o threads=2 ragged.csv r2.parquet 2>err2.txt
if [ -s err1.txt ] && cmp -s err1.txt err2.txt; then
	ok "a ragged record: the same error on ranges ($(cat err1.txt))"
else
	fail "a ragged record: threads=1 said '$(cat err1.txt)', ranges said '$(cat err2.txt)'"
fi

# 100,000 integers, then a text value in the last row: STRING.
python3 -c '
import sys
with open("ints.csv", "w") as f:
    f.write("n,m\n")
    for i in range(100000):
        f.write("%d,%d\n" % (i, i * 7))
    f.write("text,1\n")'
same "100k ints then text" ints.csv codec=zstd 64 4096 65536
if "$DUMP" ref.parquet schema >schema.txt 2>&1; then
	if grep -q "optional binary n (STRING)" schema.txt && grep -q "optional int64 m" schema.txt; then
		ok "100k ints then text: n is STRING, m INT64"
	else
		fail "100k ints then text: schema $(tr '\n' ' ' <schema.txt)"
	fi
else
	fail "pqdump schema: $(cat schema.txt)"
fi

# A lineitem-like table (scripts/bench's columns), plain and gzip.
python3 - <<'EOF'
import random
r = random.Random(7)
modes = ["TRUCK", "MAIL", "REG AIR", "AIR", "FOB", "RAIL", "SHIP"]
with open("lineitem.csv", "w") as f:
    f.write("l_orderkey,l_partkey,l_quantity,l_extendedprice,l_returnflag,l_shipdate,l_shipmode,l_comment\n")
    for i in range(60000):
        f.write("%d,%d,%d.00,%.2f,%s,1995-%02d-%02d,%s,carefully %d final deposits %d\n" % (
            i // 4 + 1, r.randint(1, 200000), r.randint(1, 50), r.uniform(900, 100000),
            r.choice("ANR"), r.randint(1, 12), r.randint(1, 28), r.choice(modes),
            r.getrandbits(60), i % 977))
EOF
same "lineitem-like" lineitem.csv codec=zstd,row_group_rows=20000 4096 100000
gzip -k lineitem.csv
same "lineitem-like .csv.gz" lineitem.csv.gz codec=zstd,row_group_rows=20000
# zstd, and quoted newlines through the read-ahead thread's blocks
if command -v zstd >/dev/null; then
	zstd -q lineitem.csv -o lineitem.csv.zst
	same "lineitem-like .csv.zst" lineitem.csv.zst codec=zstd,row_group_rows=20000
	zstd -q rand2.csv -o rand2.csv.zst
	same "random CSV 2 .csv.zst" rand2.csv.zst row_group_rows=700,page_size=4096
fi
gzip -k rand1.csv
same "random CSV 1 .csv.gz" rand1.csv.gz row_group_rows=700,page_size=4096
# the second pass reads the decompressed bytes the first kept in $TMPDIR;
# with nowhere to keep them it decompresses again: the same bytes
"$BIN" -q -o threads=2,row_group_rows=700,page_size=4096 rand1.csv.gz kept.parquet 2>err.txt
TMPDIR=/nonexistent "$BIN" -q -o threads=2,row_group_rows=700,page_size=4096 rand1.csv.gz again.parquet 2>>err.txt
if cmp -s kept.parquet again.parquet && cmp -s kept.parquet ref.parquet; then
	ok "random CSV 1 .csv.gz: the same bytes without a place to keep the decompressed bytes"
else
	fail "random CSV 1 .csv.gz: bytes differ with TMPDIR=/nonexistent ($(cat err.txt))"
fi

# Errors keep the single-threaded order although columns are parsed on
# threads: the earliest row's bad value (then the leftmost column), a bad
# value before a ragged record, a truncated compressed file.
same_error() { # NAME FILE OPTS EXPECTED (a grep pattern of the message)
	local name=$1 in=$2 opts=$3
	"$BIN" -q -o "$opts,threads=1" "$in" e1.parquet 2>err1.txt
	"$BIN" -q -o "$opts,threads=2" "$in" e2.parquet 2>err2.txt
	if [ -s err1.txt ] && cmp -s err1.txt err2.txt && grep -q "$4" err1.txt; then
		ok "$name: the same error on threads ($(cat err1.txt))"
	else
		fail "$name: threads=1 said '$(cat err1.txt)', threads=2 said '$(cat err2.txt)'"
	fi
}
printf 'message schema {\n  optional int64 a;\n  optional int64 b;\n  optional int64 c;\n}\n' >bad.schema
python3 -c '
import sys
with open("bad.csv", "w") as f:
    f.write("a,b,c\n")
    for i in range(30000):
        a, b, c = str(i), str(i * 2), str(i * 3)
        if i == 20000: c = "x3"     # later column, earlier row: reported
        if i == 20001: a = "x1"
        if i == 25000: b = "x2"
        f.write("%s,%s,%s\n" % (a, b, c))'
same_error "bad values in three columns" bad.csv schema=bad.schema "line 20002, column 3 (c): \"x3\""
{ head -n 25000 bad.csv; printf '1,2\n'; } >bad2.csv
same_error "a bad value before a ragged record" bad2.csv schema=bad.schema "line 20002, column 3"
head -c 100000 lineitem.csv.gz >trunc.csv.gz
same_error "a truncated .csv.gz" trunc.csv.gz codec=zstd "ends inside a compressed member"

# threads= is checked
if "$BIN" -q -o threads=0 ints.csv x.parquet 2>err.txt || ! grep -q "threads=0: expected 1 to 16" err.txt; then
	fail "threads=0 accepted or wrong message: $(cat err.txt)"
else
	ok "threads=0 refused"
fi

[ $FAILS -eq 0 ] && { echo "PASS"; exit 0; }
echo "$FAILS failure(s)"
exit 1
