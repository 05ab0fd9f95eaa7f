#!/usr/bin/env bash
# Soak: 16 readers at random offsets over every entry of a mount's files
# (every entry kind the files have), while one file is replaced under them
# again and again, staging writers publish and remove conversions, and the
# mount is remounted between rounds. The daemon's memory (VmRSS, VmHWM) is
# sampled throughout and must stay under the budget. Files that are not
# replaced must read as a single-threaded read did before the soak.
#
# Files: made by parquetfs-convert (no ../shared needed).
# Env: PFS_SOAK_SECONDS (default 15; scripts/soak runs it for minutes),
#      PFS_SOAK_ROUNDS (mounts, default 3), PFS_SOAK_RSS_MB (the budget,
#      default 128 plain (cache_size 16M + the daemon), 768 under the sanitizers).
# Exit 0 pass, 77 skip (no FUSE or python3), 1 fail.
set -u
WORK_NAME=pfs-soak
. "$(dirname "$0")/mount_lib.sh"
CONV=$top_builddir/src/parquetfs-convert
[ -x "$CONV" ] || { echo "FAIL: no parquetfs-convert at $CONV"; exit 1; }
SECS=${PFS_SOAK_SECONDS:-15}
ROUNDS=${PFS_SOAK_ROUNDS:-3}
CACHE=16M
# gcc links libasan dynamically, clang statically: look for the runtime itself.
if grep -q __asan_init "$BIN" 2>/dev/null; then RSS_MB=${PFS_SOAK_RSS_MB:-768}; else RSS_MB=${PFS_SOAK_RSS_MB:-128}; fi

# ---- the files ----------------------------------------------------------------
S=$WORK/src IN=$WORK/in
mkdir -p "$S/sub" "$IN"
python3 - "$IN" <<'PY'
import sys
d = sys.argv[1]
with open(f"{d}/wide.csv", "w") as f:
    f.write("id,name,score,day,flag\n")
    for i in range(20000):
        f.write(f"{i},name {i % 101},{(i * 37) % 1000 / 8},2024-01-{i % 28 + 1:02d},{'true' if i % 3 else 'false'}\n")
for v in (1, 2):
    with open(f"{d}/gen{v}.csv", "w") as f:
        f.write("k,v\n")
        for i in range(3000 * v):
            f.write(f"{i},gen{v}-{i % 17}\n")
with open(f"{d}/stage.csv", "w") as f:
    f.write("a,b\n")
    for i in range(500):
        f.write(f"{i},s{i % 7}\n")
PY
"$CONV" -o row_group_rows=5000,page_size=16384 "$IN/wide.csv" "$S/wide.parquet" &&
	"$CONV" -o codec=zstd,data_page_version=2,row_group_rows=7000 "$IN/wide.csv" "$S/sub/v2.parquet" &&
	"$CONV" "$IN/gen1.csv" "$WORK/gen1.parquet" && "$CONV" -o codec=gzip "$IN/gen2.csv" "$WORK/gen2.parquet" ||
	{ echo "FAIL: parquetfs-convert could not make the soak's files"; exit 1; }
cp "$WORK/gen1.parquet" "$S/moving.parquet"

cat > "$WORK/soak.py" <<'PY'
"""soak.py MNT SRC WORK SECONDS: readers, a replacer and staging writers."""
import errno, os, random, shutil, sys, threading, time

MNT, SRC, WORK, SECS = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
STABLE = ("wide.parquet", "sub/v2.parquet")
ALLOWED = {errno.EIO, errno.ENOENT, errno.ESTALE, errno.EACCES}
lock = threading.Lock()
problems, counts = [], {"reads": 0, "errors": 0, "bytes": 0, "replaced": 0, "staged": 0}


def problem(msg):
    with lock:
        if len(problems) < 20:
            problems.append(msg)


def entries(top, limit=400):
    out = []
    for d, dirs, files in os.walk(top):
        dirs.sort()
        # pages beyond the first few: the same kinds again
        if os.path.basename(d) == "pages":
            dirs[:] = dirs[:3]
        out += [os.path.join(d, f) for f in sorted(files)]
        if len(out) >= limit:
            break
    return out


# Every entry of the stable files, read once before the soak: the reference.
ref = {}
for f in STABLE:
    for p in entries(os.path.join(MNT, f)):
        try:
            ref[p] = open(p, "rb").read()
        except OSError as e:
            if e.errno not in ALLOWED:
                problem(f"{p}: reference read: {e}")
moving = entries(os.path.join(MNT, "moving.parquet"), 150)
paths = list(ref) + moving
kinds = {os.path.basename(p) for p in paths}
stop = time.time() + SECS  # after the reference reads, slow under the sanitizers


def reader(seed):
    rnd = random.Random(seed)
    while time.time() < stop:
        p = rnd.choice(paths)
        try:
            with open(p, "rb") as h:
                size = os.fstat(h.fileno()).st_size
                off = rnd.randrange(0, size + 1) if size else 0
                n = rnd.choice((1, 100, 4096, 65536, 1 << 20))
                h.seek(off)
                b = h.read(n)
        except OSError as e:
            with lock:
                counts["errors"] += 1
            if e.errno not in ALLOWED or p in ref and e.errno != errno.EIO:
                problem(f"{p}: {e}")
            continue
        with lock:
            counts["reads"] += 1
            counts["bytes"] += len(b)
        if p in ref and b != ref[p][off:off + n]:
            problem(f"{p}: {len(b)} bytes at {off} differ from the reference read")


def replacer():
    gen = 1
    while time.time() < stop:
        gen = 3 - gen
        shutil.copy(os.path.join(WORK, f"gen{gen}.parquet"), os.path.join(SRC, ".moving.tmp"))
        os.rename(os.path.join(SRC, ".moving.tmp"), os.path.join(SRC, "moving.parquet"))
        with lock:
            counts["replaced"] += 1
        time.sleep(0.3)


def stager(k):
    i = 0
    while time.time() < stop:
        i += 1
        name = f"st{k}_{i}"
        try:
            # copyfile, not copy: the file is published (and gone from staging/)
            # at close, before a chmod could follow
            shutil.copyfile(os.path.join(WORK, "in", "stage.csv"), os.path.join(MNT, "staging", name + ".csv"))
        except OSError as e:
            problem(f"staging {name}: {e}")
            time.sleep(0.5)
            continue
        pub = os.path.join(SRC, name + ".parquet")
        for _ in range(100):
            if os.path.exists(pub):
                break
            time.sleep(0.1)
        else:
            problem(f"staging {name}: not published within 10 s")
            continue
        with lock:
            counts["staged"] += 1
        try:
            os.unlink(pub)
        except OSError as e:
            problem(f"removing {pub}: {e}")


ts = [threading.Thread(target=reader, args=(i,)) for i in range(16)]
ts += [threading.Thread(target=replacer)] + [threading.Thread(target=stager, args=(k,)) for k in range(2)]
for t in ts:
    t.start()
for t in ts:
    t.join()
for p in problems:
    print("FAIL", p)
print(f"soak: {len(paths)} entries of {len(kinds)} kinds, {counts['reads']} reads "
      f"({counts['bytes'] >> 20} MiB), {counts['errors']} errors, {counts['replaced']} replacements, "
      f"{counts['staged']} staged and published")
sys.exit(1 if problems or counts["reads"] == 0 or counts["staged"] == 0 else 0)
PY

# ---- rounds: mount, soak, sample memory, unmount -----------------------------
M=$WORK/m
per=$(( SECS / ROUNDS > 5 ? SECS / ROUNDS : 5 ))
peak_all=0
for r in $(seq "$ROUNDS"); do
	mount_fs "$M" -o cache_size=$CACHE "$S" || break
	pid=${PIDS[-1]}
	python3 "$WORK/soak.py" "$M" "$S" "$WORK" "$per" > "$WORK/soak.log" 2>&1 &
	driver=$!
	over=0
	while kill -0 $driver 2>/dev/null; do
		rss=$(sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
		[ -n "$rss" ] && [ "$rss" -gt $((RSS_MB * 1024)) ] && over=$rss
		sleep 0.5
	done
	wait $driver && ok "round $r: $(tail -1 "$WORK/soak.log")" ||
		{ fail "round $r:"; sed 's/^/  /' "$WORK/soak.log" | tail -22; }
	[ "$over" = 0 ] || fail "round $r: daemon RSS $((over / 1024)) MB over the $RSS_MB MB budget"
	hwm=$(sed -n 's/^VmHWM:\s*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
	[ -n "$hwm" ] && [ "$hwm" -gt "$peak_all" ] && peak_all=$hwm
	kill -0 "$pid" 2>/dev/null || fail "round $r: the daemon died"
	UMOUNT_SETTLE=0.5 umount_fs "$M"
done
[ "$peak_all" -gt 0 ] && [ "$peak_all" -le $((RSS_MB * 1024)) ] &&
	ok "daemon peak RSS $((peak_all / 1024)) MB within the $RSS_MB MB budget (cache_size=$CACHE)" ||
	fail "daemon peak RSS $((peak_all / 1024)) MB (budget $RSS_MB MB)"
finish
