#!/usr/bin/env bash
# A conversion in staging/ counts against cache_size (interface.md,
# Mounting; doc/design.md, "Memory"; issue 31 point 15): a generated CSV of
# 300,000 rows (about 17 MB, one row group) is copied into staging/ of a
# mount at cache_size=64M that nothing else reads; the unmount's budget line
# shows a peak of at least 8 MiB (the conversion's record sets, row group
# buffers and dictionaries, charged as they grow) and 0 bytes still
# charged. Before, a conversion charged nothing: the peak was 0 while the
# conversion held ~50 MB outside the budget. The same for rows appended
# with >> to the published file's CSV. Then 3 readers of data.csv at
# cache_size=16M beside the same conversion (which holds more than the
# budget and its headroom): they wait for room, every read is whole.
# Exit 0 pass, 77 skip (no FUSE or python3), 1 fail.
set -u
WORK_NAME=pfs-convmem
. "$(dirname "$0")/mount_lib.sh"

S=$WORK/src M=$WORK/mnt IN=$WORK/in
mkdir -p "$S" "$IN"
python3 - "$IN/big.csv" <<'PY' || { echo "FAIL: python3"; exit 1; }
import random, sys
random.seed(1)
with open(sys.argv[1], 'w') as f:
    f.write('id,qty,price,flag,day,comment\n')
    for i in range(300000):
        f.write('%d,%d,%.2f,%s,2024-%02d-%02d,%s\n' % (
            i, random.randint(1, 50), random.random() * 1e5, random.choice('ARN'),
            random.randint(1, 12), random.randint(1, 28),
            ''.join(random.choice('abcdefghij klmnop') for _ in range(random.randint(10, 40)))))
PY

mount_fs "$M" -o cache_size=64M "$S" || { echo "$FAILS failure(s)"; exit 1; }
cp "$IN/big.csv" "$M/staging/" || fail "cp into staging/ failed: $(tail -c 400 "$WORK/daemon.log")"
[ -f "$S/big.parquet" ] && ok "big.parquet published" || fail "big.parquet not published"
LOG0=$(wc -l < "$WORK/daemon.log")
umount_fs "$M"
line=$(tail -n +$((LOG0 + 1)) "$WORK/daemon.log" | grep "memory budget at unmount" | tail -1)
peak=$(printf '%s\n' "$line" | sed -n 's/.*peak \([0-9]*\) of.*/\1/p')
case "$line" in
*": 0 bytes still charged"*) ok "budget back to 0 at unmount" ;;
"") fail "no 'memory budget at unmount' line in the log" ;;
*) fail "charges never given back: $line" ;;
esac
if [ -n "$peak" ] && [ "$peak" -ge $((8 << 20)) ]; then
	ok "the conversion's memory was charged (peak $peak bytes)"
else
	fail "the conversion's memory was not charged to the budget: ${line:-no line}"
fi

# Appending rows (>> to a name whose Parquet file exists) is a conversion
# too: its row groups' buffers are charged the same way.
mount_fs "$M" -o cache_size=64M "$S" || { echo "$FAILS failure(s)"; exit 1; }
tail -n +2 "$IN/big.csv" >> "$M/staging/big.csv" || fail "appending to big.csv failed: $(tail -c 400 "$WORK/daemon.log")"
LOG0=$(wc -l < "$WORK/daemon.log")
umount_fs "$M"
line=$(tail -n +$((LOG0 + 1)) "$WORK/daemon.log" | grep "memory budget at unmount" | tail -1)
peak=$(printf '%s\n' "$line" | sed -n 's/.*peak \([0-9]*\) of.*/\1/p')
if [ -n "$peak" ] && [ "$peak" -ge $((8 << 20)) ]; then
	ok "the append's memory was charged (peak $peak bytes)"
else
	fail "the append's memory was not charged to the budget: ${line:-no line}"
fi

# Readers beside a conversion that holds more than cache_size + its
# headroom (16M + 32M): their charges are refused while it runs and they
# wait for room (mem_wait, default 30 s), then read on: every read whole.
CONVERT=$top_builddir/src/parquetfs-convert
"$CONVERT" -q -o row_group_rows=50000 "$IN/big.csv" "$S/r.parquet" || fail "parquetfs-convert big.csv"
mount_fs "$M" -o cache_size=16M "$S" || { echo "$FAILS failure(s)"; exit 1; }
cat "$M/r.parquet/data.csv" > "$WORK/want.csv" || fail "data.csv alone"
rm -f "$S/big.parquet"
pids=()
touch "$WORK/running"
for i in 1 2 3; do
	# read until the conversion has ended, twice at least (O_DIRECT: every
	# read reaches the daemon, none is served from the page cache)
	( k=0; while [ -e "$WORK/running" ] || [ $k -lt 2 ]; do
		k=$((k + 1)); dd if="$M/r.parquet/data.csv" of="$WORK/got$i.$k" bs=1M iflag=direct status=none || exit 1
	done ) &
	pids+=($!)
done
sleep 0.3
cp "$IN/big.csv" "$M/staging/" || fail "cp beside readers failed: $(tail -c 400 "$WORK/daemon.log")"
rm -f "$WORK/running"
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
for f in "$WORK"/got*; do cmp -s "$f" "$WORK/want.csv" || bad=$((bad + 1)); done
[ $bad = 0 ] && ok "3 readers at cache_size=16M beside the conversion: every read whole" ||
	fail "$bad reads failed or differed beside the conversion"
[ -f "$S/big.parquet" ] && ok "big.parquet published beside readers" || fail "big.parquet not published beside readers"
LOG0=$(wc -l < "$WORK/daemon.log")
umount_fs "$M"
tail -n +$((LOG0 + 1)) "$WORK/daemon.log" | grep "memory budget at unmount" | sed 's/^/  /'
finish
