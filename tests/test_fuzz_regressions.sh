#!/usr/bin/env bash
# Other projects' crashers through the mount: ../shared/testdata/
# fuzz-regressions/arrow/ holds Parquet files OSS-Fuzz found crashing Apache
# Arrow's reader (forged counts, broken thrift, bombs). Mounted with
# cache_size=64M, every entry of every file is listed and read, each file's
# tree under its own timeout: no hang, no sanitizer report (under the
# sanitize build), and the daemon's peak RSS (VmHWM) stays under 600 MB.
# Skips (77) without ../shared/testdata.
WORK_NAME=pfs-fuzzreg
. "$(dirname "$0")/mount_lib.sh"
SRC=$TD/fuzz-regressions/arrow
[ -d "$SRC" ] || skip "no $SRC (../shared/testdata is not here)"
PER_FILE=${PFS_FUZZREG_TIMEOUT:-60}
RSS_MAX_KB=$((600 * 1024))

# A copy: the daemon may keep size indexes beside what it serves.
mkdir -p "$WORK/src"
cp "$SRC"/*.parquet "$WORK/src"/
M=$WORK/m
mount_fs "$M" -o cache_size=64M "$WORK/src" || finish
pid=${PIDS[-1]}
hwm() { sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null; }

# Only files that start with a Parquet magic are shown (interface.md).
n=$(python3 - "$WORK/src" <<'PY'
import os, sys
d = sys.argv[1]
print(sum(open(os.path.join(d, f), 'rb').read(4) in (b'PAR1', b'PARE') for f in os.listdir(d)))
PY
)
listed=$(ls "$M" | grep -vx staging | wc -l)
[ "$listed" -eq "$n" ] && ok "all $n Parquet files listed" || fail "listed $listed, expected $n"
# One walker for every file (python starts slowly on a loaded machine),
# a deadline per file; the daemon's peak RSS is checked between files.
python3 "$top_srcdir/tests/walk_entries.py" -t "$PER_FILE" "$M"/*.parquet > "$WORK/walk.log" 2>&1 &
walker=$!
over=0
while kill -0 $walker 2>/dev/null; do
	peak=$(hwm)
	if [ -n "$peak" ] && [ "$peak" -ge $RSS_MAX_KB ]; then over=$peak; break; fi
	sleep 0.2
done
wait $walker; rc=$?
[ $over -eq 0 ] || fail "daemon peak RSS ${over} kB >= 600 MB while walking: $(tail -1 "$WORK/walk.log")"
kill -0 "$pid" 2>/dev/null || fail "the daemon died: $(tail -1 "$WORK/walk.log")"
done_n=$(grep -c ' dirs, ' "$WORK/walk.log")
[ $rc -eq 0 ] && [ "$done_n" -eq "$n" ] && ok "every entry of $n files listed and read, none hung" ||
	fail "walked $done_n of $n files (walker exit $rc): $(grep -v ' dirs, ' "$WORK/walk.log" | tail -3)"
peak=$(hwm)
[ -n "$peak" ] && [ "$peak" -lt $RSS_MAX_KB ] && ok "daemon peak RSS $((peak / 1024)) MB < 600 MB" ||
	fail "daemon peak RSS ${peak:-?} kB"
umount_fs "$M"
finish
