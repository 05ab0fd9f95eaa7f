#!/usr/bin/env bash
# cache_size bounds all decoded data the daemon holds (interface.md,
# Mounting; doc/design.md, "Memory"):
#  1. many handles: PFS_MEM_HANDLES (100 plain, 30 under the sanitizers;
#     each renders 2 MiB of rows: 1,500 take many minutes on a busy machine)
#     handles open at once on one file's data.jsonl with cache_size=16M,
#     2 MiB read from each (O_DIRECT, so every read reaches the daemon)
#     and kept open: every byte equals a single cat's, the daemon's VmHWM
#     stays under cache_size + 64 MiB, and once they are closed its VmRSS
#     comes back near where it was before they were opened;
#  2. a decompression bomb: 8 concurrent readers of four zstd pages of
#     40 MiB each (a few KiB stored) with cache_size=64M: every read fails
#     with EIO, the log names the bytes that did not fit, the daemon stays
#     up and its VmHWM under cache_size + 64 MiB;
#  3. after each mount: the unmount report says 0 bytes are still charged
#     to the budget (every charge was given back);
#  4. readers wait, in turn, for memory other readers hold (issue 31,
#     points 7, 14, 15): a file made by parquetfs-convert from a generated
#     CSV, one row group with one page per column (a page of 8 MiB: one
#     reader fits cache_size=16M with its headroom, two do not), read by 6
#     concurrent readers of data.csv, data.jsonl, verify.txt and a column's
#     values.txt at cache_size=16M: every read returns exactly the bytes
#     and size of a mount at the default cache_size (none fails, verify.txt
#     never turns a refused charge into a PROBLEM); a page larger than
#     cache_size: EIO with a log line naming the bytes it needs, and its
#     values.txt keeps the size a mount that reads it measured.
# Files: made by tests/pqwrite and tests/pqbomb (no ../shared needed).
# Env: PFS_MEM_HANDLES, PFS_MEM_SLACK_MB (the VmHWM margin over cache_size,
# default 64 plain, 640 under the sanitizers: ASan's shadow and quarantine).
# Exit 0 pass, 77 skip (no FUSE or python3), 1 fail.
set -u
WORK_NAME=pfs-memory
. "$(dirname "$0")/mount_lib.sh"
PQWRITE=$top_builddir/tests/pqwrite
PQBOMB=$top_builddir/tests/pqbomb
CONVERT=$top_builddir/src/parquetfs-convert
for t in "$PQWRITE" "$PQBOMB" "$CONVERT"; do
	[ -x "$t" ] || { echo "FAIL: no $t (make check builds it)"; exit 1; }
done
ASAN=0
# gcc links libasan dynamically, clang statically: look for the runtime itself
if grep -q __asan_init "$BIN" 2>/dev/null; then
	ASAN=1
	HANDLES=${PFS_MEM_HANDLES:-30}
	SLACK=${PFS_MEM_SLACK_MB:-640}
else
	HANDLES=${PFS_MEM_HANDLES:-100}
	SLACK=${PFS_MEM_SLACK_MB:-64}
fi

S=$WORK/src
mkdir -p "$S"
# 256 KiB pages without dictionaries: one reader of its rows needs about
# 12 MiB of decoded pages and window, so a 16M budget serves one at a time
# (with 1 MiB pages and 1 MiB dictionaries it needs more than 16M alone)
"$PQWRITE" "$S/big.parquet" rows=400000 page_size=262144 dict=off >/dev/null ||
	{ echo "FAIL: pqwrite"; exit 1; }
"$PQBOMB" "$S/bomb.parquet" pages=4 page_mb=40 || { echo "FAIL: pqbomb"; exit 1; }
# the writer's defaults (1 MiB pages, dictionaries): one reader of its rows
# needs more than 16M, which the budget's headroom lends it
S3=$WORK/src3
mkdir -p "$S3"
"$PQWRITE" "$S3/plain.parquet" rows=300000 >/dev/null || { echo "FAIL: pqwrite"; exit 1; }

kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }

# the "memory budget at unmount" line of the mount just unmounted
budget_zero() {
	local line
	line=$(grep "memory budget at unmount" "$WORK/daemon.log" | tail -1)
	case "$line" in
	*": 0 bytes still charged"*) ok "$1: budget back to 0 at unmount (${line#*: })" ;;
	"") fail "$1: no 'memory budget at unmount' line in the log" ;;
	*) fail "$1: charges never given back: $line" ;;
	esac
}

# ---- 1. many handles on one data.jsonl ------------------------------------------
M=$WORK/m1
mount_fs "$M" -o cache_size=16M "$S" || finish
PID=${PIDS[-1]}
J=$M/big.parquet/data.jsonl
head -c $((2 << 20)) "$J" > "$WORK/ref" # the size pass, and the reference
[ "$(stat -c %s "$WORK/ref")" = $((2 << 20)) ] || fail "data.jsonl shorter than 2 MiB"
# a clean start: the size pass and the reference read done, memory returned
sleep 1
RSS0=$(kb "$PID" VmRSS)
python3 - "$J" "$WORK/ref" "$HANDLES" "$PID" > "$WORK/handles.out" 2>&1 <<'PY'
import mmap, os, resource, sys
path, ref, n, pid = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3]), sys.argv[4]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < n + 64:
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(n + 64, hard), max(n + 64, hard)))
buf = mmap.mmap(-1, len(ref))  # page-aligned, as O_DIRECT wants
fds, bad = [], 0
for i in range(n):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    fds.append(fd)
    got = bytearray()
    while len(got) < len(ref):
        k = os.preadv(fd, [buf], len(got))
        if k <= 0:
            break
        got += buf[:k]
    if bytes(got[:len(ref)]) != ref:
        bad += 1
        if bad <= 3:
            print(f"handle {i}: {len(got)} bytes, differ from the reference")
def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
print(f"open {len(fds)} bad {bad} hwm_kb {status('VmHWM')} rss_kb {status('VmRSS')}")
for fd in fds:
    os.close(fd)
PY
RC=$?
sed 's/^/  /' "$WORK/handles.out"
read -r _ NOPEN _ BAD _ HWM _ RSS_OPEN < <(grep '^open ' "$WORK/handles.out")
if [ $RC -ne 0 ] || [ -z "${NOPEN:-}" ]; then
	fail "the $HANDLES readers did not finish (python exit $RC)"
else
	[ "$BAD" = 0 ] && ok "$NOPEN handles read 2 MiB each, all equal to cat's bytes" ||
		fail "$BAD of $NOPEN handles read other bytes than cat"
	LIMIT=$(( (16 + SLACK) * 1024 ))
	[ "$HWM" -lt "$LIMIT" ] && ok "VmHWM $((HWM / 1024)) MiB with $NOPEN handles open (< $((LIMIT / 1024)))" ||
		fail "VmHWM $((HWM / 1024)) MiB with $NOPEN handles open, over cache_size + $SLACK MiB"
	sleep 2 # the releases are asynchronous
	RSS1=$(kb "$PID" VmRSS)
	if [ $ASAN = 1 ]; then
		# not a pass: ASan's allocator keeps freed memory (its quarantine)
		echo "not checked under ASan: VmRSS after closing ($((RSS1 / 1024)) MiB)"
	elif [ "$RSS1" -lt $((RSS0 + 24 * 1024)) ]; then
		ok "VmRSS $((RSS0 / 1024)) MiB before, $((RSS_OPEN / 1024)) MiB open, $((RSS1 / 1024)) MiB after closing"
	else
		fail "VmRSS $((RSS0 / 1024)) MiB before, $((RSS1 / 1024)) MiB after closing the handles"
	fi
fi
kill -0 "$PID" 2>/dev/null || fail "the daemon died"
umount_fs "$M"
budget_zero "many handles"

# ---- 2. decompression bombs ------------------------------------------------------
M=$WORK/m2
LOG0=$(wc -l < "$WORK/daemon.log")
mount_fs "$M" -o cache_size=64M "$S" || finish
PID=${PIDS[-1]}
B=$M/bomb.parquet/row_groups/0/columns/s/pages
RPIDS=()
for r in 0 1 2 3 4 5 6 7; do
	cat "$B/$((r % 4))/values.txt" > /dev/null 2> "$WORK/bomb.$r.err" &
	RPIDS+=($!)
done
EIO=0
for r in 0 1 2 3 4 5 6 7; do
	wait "${RPIDS[$r]}" && continue
	grep -q "Input/output error" "$WORK/bomb.$r.err" && EIO=$((EIO + 1))
done
[ $EIO = 8 ] && ok "8 readers of 40 MiB zstd pages: EIO for all" ||
	fail "8 readers of 40 MiB zstd pages: $EIO failed with EIO (want 8)"
FIT="[0-9]+ (more )?bytes[^:]*(do not fit|does not fit|more than) the memory budget"
tail -n +$((LOG0 + 1)) "$WORK/daemon.log" > "$WORK/bomb.log"
grep -Eq "$FIT" "$WORK/bomb.log" &&
	ok "the log names the bytes: $(grep -E "$FIT" "$WORK/bomb.log" | tail -1 | cut -c1-200)" ||
	fail "no log line names the memory a bomb page needs"
HWM=$(kb "$PID" VmHWM)
LIMIT=$(( (64 + SLACK) * 1024 ))
[ "$HWM" -lt "$LIMIT" ] && ok "VmHWM $((HWM / 1024)) MiB (< $((LIMIT / 1024)))" ||
	fail "VmHWM $((HWM / 1024)) MiB reading the bombs, over cache_size + $SLACK MiB"
kill -0 "$PID" 2>/dev/null && [ -s "$M/bomb.parquet/schema.txt" ] && ok "the daemon is up" ||
	fail "the daemon is gone after the bombs"
umount_fs "$M"
budget_zero "bombs"

# ---- 3. an ordinary file at a small cache_size ------------------------------------
M=$WORK/m3
mount_fs "$M" "$S3" || finish
cat "$M/plain.parquet/data.csv" > "$WORK/plain.ref" || fail "data.csv at the default cache_size"
umount_fs "$M"
M=$WORK/m4
mount_fs "$M" -o cache_size=16M "$S3" || finish
PID=${PIDS[-1]}
if cat "$M/plain.parquet/data.csv" > "$WORK/plain.16m" 2> "$WORK/plain.err" &&
	cmp -s "$WORK/plain.ref" "$WORK/plain.16m"; then
	ok "data.csv of a file with 1 MiB pages and dictionaries reads whole at cache_size=16M ($(stat -c %s "$WORK/plain.ref") bytes)"
else
	fail "data.csv at cache_size=16M: $(head -c 200 "$WORK/plain.err")"
fi
HWM=$(kb "$PID" VmHWM)
LIMIT=$(( (16 + 32 + SLACK) * 1024 ))
[ "$HWM" -lt "$LIMIT" ] && ok "VmHWM $((HWM / 1024)) MiB (< cache_size + 32 MiB headroom + $SLACK MiB)" ||
	fail "VmHWM $((HWM / 1024)) MiB reading it, over cache_size + 32 + $SLACK MiB"
umount_fs "$M"
budget_zero "small cache_size"

# ---- 4. concurrent readers wait for memory, in turn --------------------------------------
S4=$WORK/src4
mkdir -p "$S4"
python3 - "$WORK/li.csv" "$WORK/w.csv" "$WORK/big.csv" <<'PY'
import random, sys
r = random.Random(31)
def words(lo, hi):
    return "".join(r.choice("abcdefghij klmnop") for _ in range(r.randint(lo, hi)))
# one chunk (comment) needs more than the size pass's share of cache_size=16M
with open(sys.argv[1], "w") as f:
    f.write("orderkey,partkey,quantity,price,flag,shipdate,comment\n")
    for i in range(300000):
        f.write("%d,%d,%d,%.2f,%s,199%d-0%d-1%d,%s\n" % (
            i, r.randint(1, 200000), r.randint(1, 50), r.randint(100, 100000) / 100,
            r.choice("ANR"), r.randint(2, 8), r.randint(1, 9), r.randint(0, 9), words(10, 40)))
# three string pages of 6 MiB: one reader of the rows fits cache_size=16M
# and its headroom, two do not
with open(sys.argv[2], "w") as f:
    f.write("id,a,b,c\n")
    for i in range(200000):
        f.write("%d,%s,%s,%s\n" % (i, words(20, 40), words(20, 40), words(20, 40)))
# one column, one page of about 24 MiB: larger than cache_size=16M
with open(sys.argv[3], "w") as f:
    f.write("s\n")
    for i in range(400000):
        f.write("%060d\n" % r.getrandbits(190))
PY
"$CONVERT" -q -o row_group_rows=300000,dictionary=off,page_size=16M "$WORK/li.csv" "$S4/li.parquet" ||
	fail "parquetfs-convert li.csv"
"$CONVERT" -q -o row_group_rows=200000,dictionary=off,page_size=16M "$WORK/w.csv" "$S4/w.parquet" ||
	fail "parquetfs-convert w.csv"
"$CONVERT" -q -o row_group_rows=400000,dictionary=off,page_size=64M,codec=uncompressed \
	"$WORK/big.csv" "$S4/big.parquet" || fail "parquetfs-convert big.csv"
LI_ENTRIES="data.csv verify.txt columns/comment/values.txt"
W_ENTRIES="data.csv data.jsonl verify.txt columns/a/values.txt"
name() { echo "$1" | tr / _; }
IDX=$WORK/idx
M=$WORK/m5
mount_fs "$M" -o index_dir="$IDX" "$S4" || finish
for e in $LI_ENTRIES; do
	cat "$M/li.parquet/$e" > "$WORK/ref.li.$(name "$e")" || fail "li.parquet/$e at the default cache_size"
done
for e in $W_ENTRIES; do
	cat "$M/w.parquet/$e" > "$WORK/ref.w.$(name "$e")" || fail "w.parquet/$e at the default cache_size"
done
stat "$M/big.parquet/data.csv" > /dev/null # the whole size pass (into the index)
BIGV=$M/big.parquet/columns/s/values.txt
BIGSIZE=$(stat -c %s "$BIGV")
[ "$(cat "$BIGV" | wc -c)" = "$BIGSIZE" ] || fail "big.parquet's values.txt: not $BIGSIZE bytes at the default cache_size"
umount_fs "$M"

# readers MNT FILE ENTRIES WHAT: 6 concurrent readers, each reads every entry
# once; every read whole and equal to the reference, none failed
readers() {
	local m=$1 f=$2 entries=$3 what=$4 r e bad=0 pids=()
	for r in 1 2 3 4 5 6; do
		(
			for e in $entries; do
				cat "$m/$f.parquet/$e" > "$WORK/out.$r.$(name "$e")" 2>> "$WORK/out.$r.err" ||
					echo "reader $r: $e: exit $?" >> "$WORK/out.$r.err"
			done
		) &
		pids+=($!)
	done
	wait "${pids[@]}"
	for r in 1 2 3 4 5 6; do
		if [ -s "$WORK/out.$r.err" ]; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "  $(head -c 300 "$WORK/out.$r.err")"
		fi
		rm -f "$WORK/out.$r.err"
		for e in $entries; do
			cmp -s "$WORK/out.$r.$(name "$e")" "$WORK/ref.$f.$(name "$e")" || {
				bad=$((bad + 1))
				[ $bad -le 3 ] && echo "  reader $r: $e: $(stat -c %s "$WORK/out.$r.$(name "$e")") bytes, not the reference's ($(tail -c 80 "$WORK/out.$r.$(name "$e")" | tr '\n' '|'))"
			}
		done
	done
	[ $bad = 0 ] && ok "$what: 6 concurrent readers of $entries at cache_size=16M: every read whole and exact" ||
		fail "$what: 6 concurrent readers at cache_size=16M: $bad failed or differ"
}

# a size pass at cache_size=16M (no index): the chunk over its share is
# measured alone, not given a placeholder size that every read fails at
M=$WORK/m6
mount_fs "$M" -o cache_size=16M,index_dir=none "$S4" || finish
bad=0
for e in $LI_ENTRIES; do
	want=$(stat -c %s "$WORK/ref.li.$(name "$e")") got=$(stat -c %s "$M/li.parquet/$e")
	[ "$want" = "$got" ] || { fail "li.parquet/$e: st_size $got at cache_size=16M, $want at the default"; bad=1; }
done
[ $bad = 0 ] && ok "sizes measured at cache_size=16M are those of the default cache_size"
readers "$M" li "$LI_ENTRIES" "a chunk over the size pass's share"
umount_fs "$M"
budget_zero "a chunk over the size pass's share"
# sizes from the index, verify.txt rendered while the readers hold the memory
M=$WORK/m6
mount_fs "$M" -o cache_size=16M,index_dir="$IDX" "$S4" || finish
readers "$M" w "$W_ENTRIES" "readers wait in turn"
umount_fs "$M"
budget_zero "readers wait in turn"
# the bound of the wait is an option: a bad one fails the mount, named
mkdir -p "$WORK/m9"
if "$BIN" -f -o mem_wait=soon "$S4" "$WORK/m9" > "$WORK/m9.out" 2>&1; then
	fail "-o mem_wait=soon mounted"
	fusermount3 -u "$WORK/m9" 2>/dev/null
else
	grep -q "mem_wait=soon" "$WORK/m9.out" && ok "-o mem_wait=soon refused: $(head -c 120 "$WORK/m9.out")" ||
		fail "-o mem_wait=soon: the message does not name it: $(head -c 200 "$WORK/m9.out")"
fi
"$BIN" --help 2>&1 | grep -q "mem_wait=SECONDS" && ok "--help lists mem_wait" || fail "--help does not list mem_wait"

# the page larger than cache_size: the size the first mount measured (in the
# index), reads fail with a line naming the bytes
M=$WORK/m7
LOG0=$(wc -l < "$WORK/daemon.log")
mount_fs "$M" -o cache_size=16M,index_dir="$IDX" "$S4" || finish
BIGV=$M/big.parquet/columns/s/values.txt
got=$(stat -c %s "$BIGV")
[ "$got" = "$BIGSIZE" ] && ok "a page larger than cache_size: values.txt's size stays $BIGSIZE" ||
	fail "a page larger than cache_size: values.txt's st_size $got, $BIGSIZE when read whole"
if cat "$BIGV" > /dev/null 2> "$WORK/big.err"; then
	fail "a page larger than cache_size: values.txt read without error"
else
	grep -q "Input/output error" "$WORK/big.err" && ok "a page larger than cache_size: EIO" ||
		fail "a page larger than cache_size: $(head -c 200 "$WORK/big.err")"
fi
sleep 0.5
tail -n +$((LOG0 + 1)) "$WORK/daemon.log" > "$WORK/m7.log"
grep -Eq "big.parquet.*needs [0-9]+ bytes" "$WORK/m7.log" &&
	ok "the log names the bytes: $(grep -E "needs [0-9]+ bytes" "$WORK/m7.log" | tail -1 | cut -c1-200)" ||
	fail "no log line names the bytes the page needs"
umount_fs "$M"
# the same with no size known: the read still fails with a line
M=$WORK/m8
LOG0=$(wc -l < "$WORK/daemon.log")
mount_fs "$M" -o cache_size=16M,index_dir=none "$S4" || finish
BIGV=$M/big.parquet/columns/s/values.txt
cat "$BIGV" > /dev/null 2>&1 && fail "a page larger than cache_size, no index: values.txt read without error"
sleep 0.5
tail -n +$((LOG0 + 1)) "$WORK/daemon.log" | grep -Eq "big.parquet.*values.txt.*needs? [0-9]+ bytes" &&
	ok "no index: the read fails with a line naming the entry and the bytes" ||
	fail "no index: no log line names values.txt and the bytes its page needs"
umount_fs "$M"

finish
