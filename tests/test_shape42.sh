#!/bin/bash
# Issue 10, the "42.parquet" shape: row groups that all point at the same
# few pages, each page claiming millions of slots in a few bytes of RLE
# runs (tests/gen_shape42.py writes it; a small variant here, the full
# 290 x 1000 x 2^31-1 shape is `gen_shape42.py --full`).
#
#   - every entry stat'ed before anything is read has its exact size (the
#     generator's own arithmetic, not parquetfs's);
#   - the size pass measures each distinct page once (its log line counts
#     pages measured and pages shared), so ls -l is fast by construction;
#   - head of data.csv and of a page's values.txt are right, and a whole
#     data.csv read equals the generator's text;
#   - the daemon's peak RSS stays bounded while it streams.
# Pages of 1.5M+ slots are decoded in windows (PQ_PAGE_WINDOW_SLOTS = 1M),
# with runs that cross window boundaries.
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3 or python3), 1 fail.
set -u

WORK_NAME=pfs-shape42
. "$(dirname "$0")/mount_lib.sh"
GEN=$top_srcdir/tests/gen_shape42.py
SRC=$WORK/src
MNT=$WORK/mnt
mkdir -p "$SRC"

# same: 3 row groups x 2 pages x 1500007 slots, 7 runs (every third NULL)
# over a 5-entry dictionary; slide: 4 row groups x 3 pages of a 6-page pool
SAME="--row-groups 3 --pages 2 --values 1500007 --runs 7 --dict 5 --nulls"
SLIDE="--layout slide --row-groups 4 --pages 3 --values 1200000 --runs 2"
python3 "$GEN" $SAME "$SRC/same.parquet" || fail "generate same"
python3 "$GEN" $SLIDE "$SRC/slide.parquet" || fail "generate slide"
python3 "$GEN" $SAME --expect sizes >"$WORK/same.json"
python3 "$GEN" $SLIDE --expect sizes >"$WORK/slide.json"

mount_fs "$MNT" -o ro,index_dir=none,cache_size=16M "$SRC" || finish
PID=${PIDS[-1]}

# ---- sizes at the first stat (nothing read yet) -------------------------------------
check_sizes() { # NAME JSON
	python3 - "$MNT/$1" "$2" <<'PY'
import json, os, sys
root, want = sys.argv[1], json.load(open(sys.argv[2]))
bad = []
def chk(rel, n):
    got = os.stat(os.path.join(root, rel)).st_size
    if got != n:
        bad.append(f"{rel}: st_size {got}, expected {n}")
chk("data.csv", want["csv"])
for r, n in enumerate(want["rg_csv"]):
    chk(f"row_groups/{r}/data.csv", n + len("v\n"))  # each has the header
    pages = want["page_values"][r]
    for p, m in enumerate(pages):
        chk(f"row_groups/{r}/columns/v/pages/{p}/values.txt", m)
    chk(f"row_groups/{r}/columns/v/values.txt", sum(pages))
# every other entry has a size too, before any read
for d, _, files in os.walk(root):
    for f in files:
        os.stat(os.path.join(d, f))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
}
check_sizes same.parquet "$WORK/same.json" && ok "same: every size exact at the first stat" ||
	fail "same: sizes"
check_sizes slide.parquet "$WORK/slide.json" && ok "slide: every size exact at the first stat" ||
	fail "slide: sizes"

# each distinct page measured once: "size pass: PATH (N pages, M shared)"
pass_line() { grep "size pass: .*$1" "$WORK/daemon.log" | tail -1; }
line=$(pass_line same.parquet)
[[ "$line" == *"(2 pages, 4 shared)"* ]] &&
	ok "same: the size pass measured its 2 distinct pages once ($line)" ||
	fail "same: size pass line: '$line' (expected 2 pages measured, 4 shared)"
# slide: 12 page references, 6 distinct pages, no two chunks alike
line=$(pass_line slide.parquet)
[[ "$line" == *"(6 pages, 6 shared)"* ]] &&
	ok "slide: the size pass measured its 6 distinct pages once ($line)" ||
	fail "slide: size pass line: '$line' (expected 6 pages measured, 6 shared)"

# ---- heads and whole reads against the generator -------------------------------------
python3 "$GEN" $SAME --expect csv-head --bytes 1000 >"$WORK/head.csv"
head -c 1000 "$MNT/same.parquet/data.csv" | cmp -s - "$WORK/head.csv" &&
	ok "head -c 1000 of data.csv" || fail "head -c 1000 of data.csv differs"
python3 "$GEN" $SAME --expect values-head --rg 2 --page 1 --bytes 5000 >"$WORK/head.txt"
head -c 5000 "$MNT/same.parquet/row_groups/2/columns/v/pages/1/values.txt" |
	cmp -s - "$WORK/head.txt" && ok "head -c 5000 of a page's values.txt" ||
	fail "head of row group 2 page 1 values.txt differs"
size=$(python3 -c "import json; print(json.load(open('$WORK/same.json'))['csv'])")
python3 "$GEN" $SAME --expect csv-head --bytes "$size" >"$WORK/all.csv"
same "$MNT/same.parquet/data.csv" "$WORK/all.csv" && ok "data.csv whole ($size bytes)" ||
	fail "data.csv differs from the generator's"
size=$(python3 -c "import json; print(json.load(open('$WORK/slide.json'))['csv'])")
python3 "$GEN" $SLIDE --expect csv-head --bytes "$size" >"$WORK/slide.csv"
same "$MNT/slide.parquet/data.csv" "$WORK/slide.csv" && ok "slide: data.csv whole ($size bytes)" ||
	fail "slide: data.csv differs from the generator's"
grep -q '^OK' "$MNT/same.parquet/verify.txt" && ok "verify.txt: OK" ||
	fail "verify.txt: $(head -3 "$MNT/same.parquet/verify.txt")"

# ---- memory: the daemon's peak stays bounded (windows, not whole pages) --------------
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
limit=$((${PFS_SHAPE42_HWM_MB:-400} * 1024))
[ -n "$hwm" ] && [ "$hwm" -lt "$limit" ] && ok "daemon VmHWM ${hwm} kB (< $limit kB)" ||
	fail "daemon VmHWM ${hwm:-?} kB, over $limit kB"

umount_fs "$MNT"
finish
