#!/bin/bash
# Integration test: really mounts parquetfs and reads the mount.
#
#   startup errors, the tree of every file of parquet-testing/data (every
#   entry read, sizes, JSON, contents against expected/), bad_data files,
#   8 concurrent readers, a SOURCE file that changes, a single-file SOURCE,
#   read-only behaviour, -o ro and mount -t fuse.parquetfs (fstab).
#
# Without ../shared/testdata it runs on files it makes (parquetfs-convert)
# and skips only the walk against parquet-testing's expected/.
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3 or python3), 1 fail. Every mount is unmounted on exit, whatever happens.
# Env: PARQUETFS (binary), PFS_TEST_CONC_SECONDS (default 20).
set -u

WORK_NAME=pfs-test
. "$(dirname "$0")/mount_lib.sh"
EXP=$TD/expected/data
BAD=$TD/parquet-testing/bad_data
KEYS=$WORK/keys.txt
if [ -d "$DATA" ] && [ -d "$EXP" ]; then
	CONFORMANCE=1
	cp "$TD/keys.txt" "$KEYS" && chmod 600 "$KEYS"
else
	# Without ../shared/testdata: files this test makes with parquetfs-convert
	# under the conformance files' names, their CSV input as the expected
	# data.csv (an independent golden: the bytes the file was made from), and
	# bad files cut and flipped from them. Only the walk against
	# parquet-testing's expected/ needs ../shared; it is skipped, said below.
	CONFORMANCE=0
	CONV=$top_builddir/src/parquetfs-convert
	[ -x "$CONV" ] || { echo "FAIL: no parquetfs-convert at $CONV"; exit 1; }
	DATA=$WORK/data EXP=$WORK/expected BAD=$WORK/bad
	mkdir -p "$DATA" "$BAD" "$EXP/alltypes_plain.parquet" "$EXP/alltypes_dictionary.parquet"
	python3 - "$EXP" <<'PY'
import sys
exp = sys.argv[1]
with open(f"{exp}/alltypes_plain.parquet/data.csv", "w") as f:
    f.write("id,name,score\n")
    for i in range(8):
        f.write(f"{i},n{i},{i * 37 % 100 - 50}\n")
with open(f"{exp}/alltypes_dictionary.parquet/data.csv", "w") as f:
    f.write("id,city\n")
    for i in range(2000):
        f.write(f"{i},{['Oslo', 'Lima', 'Pune'][i % 3]}\n")
PY
	"$CONV" "$EXP/alltypes_plain.parquet/data.csv" "$DATA/alltypes_plain.parquet" &&
		"$CONV" -o codec=zstd,row_group_rows=500 "$EXP/alltypes_dictionary.parquet/data.csv" "$DATA/alltypes_dictionary.parquet" ||
		{ echo "FAIL: parquetfs-convert could not make the test's files"; exit 1; }
	echo "These files were made by test_mount.sh." > "$DATA/README.md"
	printf 'key kf: "0123456789abcdef"\n' > "$KEYS" && chmod 600 "$KEYS"
	python3 - "$DATA/alltypes_dictionary.parquet" "$BAD" <<'PY'
import sys
src, bad = sys.argv[1:3]
b = open(src, "rb").read()
for name, data in (("cut-footer", b[:-9] + b"PAR1"), ("cut-half", b[:len(b) // 2]),
                   ("no-magic", b[:-4] + b"PAR0"),
                   ("flip-footer", b[:-40] + bytes([b[-40] ^ 0x5a]) + b[-39:]),
                   ("flip-page", b[:60] + bytes([b[60] ^ 0xff]) + b[61:]),
                   ("huge-footer-len", b[:-8] + (0x7ffffff0).to_bytes(4, "little") + b"PAR1")):
    open(f"{bad}/{name}.parquet", "wb").write(data)
PY
	echo "note: no ../shared/testdata: the walk against parquet-testing's expected/ is skipped; the rest runs on files this test made"
fi

cat > "$WORK/walk.py" <<'PY'
#!/usr/bin/env python3
"""Walks a parquetfs mount of parquet-testing/data and checks every entry.

Used by tests/test_mount.sh. For every Parquet file of SOURCE: the tree's
names, every regular entry read in full (pages capped per chunk to keep the
run short), sizes equal to the bytes read (exact entries at once; the
aggregates once they have been read), JSON entries parse, data.csv /
data.jsonl / values.txt equal to expected/, chunk.bin equal to facts.json's
range (or EIO where facts say so), a failing entry only where an error.txt
explains it. Prints one FAIL line per problem; exit status 1 if any.
"""
import errno
import hashlib
import json
import os
import sys
import time

MNT, SRC, EXP = sys.argv[1:4]
PAGES_PER_CHUNK = int(os.environ.get("PFS_TEST_PAGES", "4"))

AGGREGATE = {"data.csv", "data.jsonl", "verify.txt"}
fails = []
stats = {"files": 0, "entries": 0, "bytes": 0}


def fail(path, why):
    fails.append(f"FAIL {os.path.relpath(path, MNT)}: {why}")


def is_parquet(p):
    try:
        with open(p, "rb") as f:
            return f.read(4) in (b"PAR1", b"PARE")
    except OSError:
        return False


def aggregate(rel):
    """The aggregates: a row group or column, or the whole file."""
    parts = rel.split("/")
    name = parts[-1]
    if name == "verify.txt" and len(parts) == 1:
        return True
    if name in ("data.csv", "data.jsonl") and (len(parts) == 1 or (len(parts) == 3 and parts[0] == "row_groups")):
        return True
    return len(parts) == 3 and parts[0] == "columns" and name == "values.txt"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def has_error(fdir, path):
    """An error.txt in the entry's directory or above it (within the file);
    for the aggregates (rows, a column across row groups), in any chunk."""
    r = os.path.relpath(path, fdir)
    if aggregate(r):
        import glob
        if glob.glob(os.path.join(fdir, "row_groups", "*", "columns", "*", "error.txt")):
            return True
    d = os.path.dirname(path)
    while True:
        if os.path.exists(os.path.join(d, "error.txt")):
            return True
        if os.path.samefile(d, fdir) or len(d) <= len(fdir):
            return False
        d = os.path.dirname(d)


def walk(fdir, d, rel=""):
    names = sorted(os.listdir(d))
    for name in names:
        p = os.path.join(d, name)
        r = f"{rel}/{name}" if rel else name
        if os.path.isdir(p):
            sub = sorted(os.listdir(p))
            if name == "pages":
                nums = sorted(int(x) for x in sub)
                if nums != list(range(len(nums))):
                    fail(p, f"pages not numbered 0..n-1: {sub[:5]}")
                keep = set(nums[:PAGES_PER_CHUNK] + nums[-1:])
                for n in sorted(keep):
                    walk(fdir, os.path.join(p, str(n)), f"{r}/{n}")
                continue
            walk(fdir, p, r)
            continue
        yield_entry(fdir, p, r)


def yield_entry(fdir, p, r):
    stats["entries"] += 1
    st = os.stat(p)
    try:
        data = read(p)
    except OSError as e:
        if not has_error(fdir, p):
            fail(p, f"read failed ({e.strerror}) and no error.txt explains it")
        return
    stats["bytes"] += len(data)
    # exact at the first stat, aggregates included (size pass)
    if st.st_size != len(data):
        fail(p, f"st_size {st.st_size} != {len(data)} bytes read")
    if r.endswith(".json"):
        try:
            json.loads(data.decode("utf-8"), parse_constant=lambda c: c)
        except Exception as e:  # noqa: BLE001
            fail(p, f"not valid JSON: {e}")
    CONTENT[r] = data


def compare_expected(name, fdir, facts):
    exp = os.path.join(EXP, name)
    for rel, data in CONTENT.items():
        e = os.path.join(exp, rel)
        if (rel in ("data.csv", "data.jsonl") or (rel.startswith("columns/") and rel.endswith("/values.txt"))) \
                and os.path.exists(e):
            want = read(e)
            if data != want:
                fail(os.path.join(fdir, rel), f"differs from expected ({len(data)} vs {len(want)} bytes)")
    # row groups concatenate to the file
    rgs = facts.get("num_row_groups", 0) if facts else 0
    if "data.jsonl" in CONTENT and rgs:
        cat = b"".join(CONTENT.get(f"row_groups/{i}/data.jsonl", b"") for i in range(rgs))
        if cat != CONTENT["data.jsonl"]:
            fail(os.path.join(fdir, "data.jsonl"), "row_groups/*/data.jsonl do not concatenate to it")
    if not facts:
        return
    for ri, rg in enumerate(facts.get("row_groups", [])):
        for cf in rg.get("columns", []):
            p = os.path.join(fdir, "row_groups", str(ri), "columns", cf["dir"], "chunk.bin")
            if cf.get("chunk_eio"):
                try:
                    read(p)
                    fail(p, "read succeeded; expected EIO")
                except OSError as e:
                    if e.errno != errno.EIO:
                        fail(p, f"expected EIO, got {e.strerror}")
                if not os.path.exists(os.path.join(os.path.dirname(p), "error.txt")):
                    fail(p, "chunk.bin fails but no error.txt")
            elif cf.get("chunk_sha256"):
                data = CONTENT.get(os.path.relpath(p, fdir))
                if data is not None and hashlib.sha256(data).hexdigest() != cf["chunk_sha256"]:
                    fail(p, "bytes differ from the footer's range")


expected_names = sorted(n for n in os.listdir(SRC) if is_parquet(os.path.join(SRC, n)))
shown = sorted(n for n in os.listdir(MNT) if n != "staging")  # the writable folder
if shown != expected_names:
    fail(MNT, f"listing differs: extra {sorted(set(shown) - set(expected_names))[:5]}, "
              f"missing {sorted(set(expected_names) - set(shown))[:5]}")

FILE_ENTRIES = {"schema.txt", "metadata.txt", "metadata.json", "footer.bin", "verify.txt",
                "data.csv", "data.jsonl", "file.parquet", "columns", "row_groups"}
for name in expected_names:
    fdir = os.path.join(MNT, name)
    stats["files"] += 1
    top = set(os.listdir(fdir))
    if top != FILE_ENTRIES and top != {"error.txt"}:
        fail(fdir, f"unexpected top-level entries {sorted(top)}")
    facts = None
    fp = os.path.join(EXP, name, "facts.json")
    if os.path.exists(fp):
        facts = json.load(open(fp))
    if top == {"error.txt"}:
        msg = read(os.path.join(fdir, "error.txt"))
        if not msg.endswith(b"\n") or msg.count(b"\n") != 1:
            fail(fdir, f"error.txt is not one line: {msg[:80]!r}")
        if facts and not facts.get("expect_error") and not name.endswith(".encrypted"):
            fail(fdir, f"cannot be opened: {msg.decode(errors='replace').strip()}")
        continue
    if facts:
        cols = sorted(c["dir"] for c in facts.get("columns", []))
        if cols and sorted(os.listdir(os.path.join(fdir, "columns"))) != cols:
            fail(fdir, "columns/ names differ from facts.json")
    CONTENT = {}
    walk(fdir, fdir)
    if not name.endswith(".encrypted"):
        compare_expected(name, fdir, facts)

for line in fails[:50]:
    print(line)
print(f"walked {stats['files']} files, {stats['entries']} entries, {stats['bytes']} bytes; "
      f"{len(fails)} problems")
sys.exit(1 if fails else 0)
PY

cat > "$WORK/conc.py" <<'PY'
#!/usr/bin/env python3
"""8 processes read entries of a mount for a while: full reads and preads at
random offsets, each compared with a single-threaded reference read. Page
cache pages are dropped after each read, so reads reach the daemon."""
import multiprocessing
import os
import random
import sys
import time

MNT, SECS = sys.argv[1], float(sys.argv[2])
FILES = ["alltypes_tiny_pages.parquet", "nested_structs.rust.parquet",
         "overflow_i16_page_cnt.parquet", "delta_binary_packed.parquet",
         "byte_stream_split_extended.gzip.parquet", "nested_lists.snappy.parquet",
         "data_index_bloom_encoding_stats.parquet", "datapage_v2.snappy.parquet",
         "alltypes_dictionary.parquet"]


def entries():
    out = []
    for f in FILES:
        d = os.path.join(MNT, f)
        if not os.path.isdir(os.path.join(d, "columns")):
            continue
        cols = sorted(os.listdir(os.path.join(d, "columns")))[:2]
        out += [os.path.join(d, "data.csv"), os.path.join(d, "data.jsonl")]
        out += [os.path.join(d, "columns", c, "values.txt") for c in cols]
        for c in cols:
            cd = os.path.join(d, "row_groups", "0", "columns", c)
            out += [os.path.join(cd, "values.txt"), os.path.join(cd, "chunk.bin")]
            if os.path.exists(os.path.join(cd, "pages", "0")):
                out.append(os.path.join(cd, "pages", "0", "data.bin"))
    return out


def readall(p):
    fd = os.open(p, os.O_RDONLY)
    try:
        parts = []
        while True:
            b = os.read(fd, 1 << 17)
            if not b:
                break
            parts.append(b)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return b"".join(parts)
    finally:
        os.close(fd)


def worker(i, ents, refs, q):
    rnd = random.Random(i)
    mine = ents[i::8] or ents
    bad, n = [], 0
    end = time.time() + SECS
    while time.time() < end:
        e = rnd.choice(mine) if rnd.random() < 0.7 else rnd.choice(ents)
        ref = refs[e]
        try:
            if rnd.random() < 0.5:
                got = readall(e)
                if got != ref:
                    bad.append(f"{e}: full read differs ({len(got)} vs {len(ref)} bytes)")
            else:
                fd = os.open(e, os.O_RDONLY)
                try:
                    for _ in range(4):
                        off = rnd.randrange(0, len(ref) + 1)
                        ln = rnd.randrange(1, 200000)
                        got = os.pread(fd, ln, off)
                        if got != ref[off:off + ln]:
                            bad.append(f"{e}: pread {ln} at {off} differs")
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
        except OSError as ex:
            bad.append(f"{e}: {ex}")
        n += 1
    q.put((n, bad[:5], len(bad)))


ents = entries()
if not ents:
    sys.exit("concurrency: none of the files to read is in the mount")
refs = {e: readall(e) for e in ents}
q = multiprocessing.Queue()
ps = [multiprocessing.Process(target=worker, args=(i, ents, refs, q)) for i in range(8)]
for p in ps:
    p.start()
res = [q.get() for _ in ps]
for p in ps:
    p.join()
total = sum(r[0] for r in res)
nbad = sum(r[2] for r in res)
for r in res:
    for b in r[1]:
        print("FAIL", b)
print(f"concurrency: {len(ents)} entries, {total} reads by 8 readers in {SECS:.0f} s, {nbad} problems")
sys.exit(1 if nbad or total == 0 else 0)
PY

# ---- startup errors: non-zero exit, one line, nothing mounted --------------
M0=$WORK/m0; mkdir -p "$M0"
# SAYS: a word the line must hold; SE_MNT: the mount point to look at.
# Mounted is read from mountinfo, not by stat: a mount on SOURCE itself
# (refused now) answered its own requests through itself and hung; such a
# mount's connection is aborted (fusectl) so that its daemon ends.
mounted_dev() { awk -v m="$1" '$5 == m { print $3; exit }' /proc/self/mountinfo; }
startup_error() {
	local what=$1; shift
	local out rc m=${SE_MNT:-$M0} dev
	out=$(timeout 10 "$BIN" "$@" 2>&1 >/dev/null </dev/null); rc=$?
	dev=$(mounted_dev "$m")
	if [ -n "$dev" ]; then
		fail "$what: mounted anyway (exit $rc: $out)"
		[ -w "/sys/fs/fuse/connections/${dev#*:}/abort" ] && echo 1 >"/sys/fs/fuse/connections/${dev#*:}/abort"
		fusermount3 -uz "$m"
	elif [ $rc -eq 0 ] || [ $rc -eq 124 ]; then fail "$what: exit $rc"
	elif [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ]; then fail "$what: not one line: $out"
	elif [ -n "${SAYS:-}" ] && [[ "$out" != *"$SAYS"* ]]; then fail "$what: does not say $SAYS: $out"
	else ok "$what: $out"; fi
}
startup_error "no SOURCE" 
startup_error "missing SOURCE" /nonexistent/dir "$M0"
startup_error "SOURCE not Parquet" "$DATA/README.md" "$M0"
startup_error "bad cache_size" -o cache_size=12X "$DATA" "$M0"
startup_error "bad codec" -o codec=lzo "$DATA" "$M0"
startup_error "bad compression_level" -o codec=zstd,compression_level=30 "$DATA" "$M0"
startup_error "bad data_page_version" -o data_page_version=3 "$DATA" "$M0"
startup_error "bad bloom_fpp" -o bloom_fpp=2 "$DATA" "$M0"
startup_error "bad poll_us" -o poll_us=fast "$DATA" "$M0"
# issue 31: an unknown option is named; a cache_size no page fits in is refused
SAYS=cache_sise startup_error "unknown option" -o cache_sise=1G "$DATA" "$M0"
SAYS=16M startup_error "cache_size below 16M" -o cache_size=1 "$DATA" "$M0"
# issue 31: a MOUNTPOINT inside SOURCE (or SOURCE itself), however it is named
IN=$WORK/insrc; mkdir -p "$IN/mnt" "$IN/a/b/mnt"
cp "$DATA/alltypes_plain.parquet" "$IN/"
ln -s "$IN/a" "$WORK/to-a"
SE_MNT=$IN/mnt SAYS=inside startup_error "MOUNTPOINT inside SOURCE" "$IN" "$IN/mnt"
SE_MNT=$IN/a/b/mnt SAYS=inside startup_error "MOUNTPOINT deeper in SOURCE" "$IN" "$IN/a/b/mnt"
SE_MNT=$IN/a/b/mnt SAYS=inside startup_error "MOUNTPOINT in SOURCE by a symlink" "$IN" "$WORK/to-a/b/mnt"
pushd "$IN/a" >/dev/null
SE_MNT=$IN/a/b/mnt SAYS=inside startup_error "MOUNTPOINT in SOURCE, both relative" ../../insrc b/mnt
popd >/dev/null
SE_MNT=$IN SAYS=SOURCE startup_error "MOUNTPOINT is SOURCE" "$IN" "$IN"
cp "$KEYS" "$WORK/keys644.txt"; chmod 644 "$WORK/keys644.txt"
startup_error "key_file readable by others" -o key_file="$WORK/keys644.txt" "$DATA" "$M0"
startup_error "bad index_size" -o index_size=0 "$DATA" "$M0"
# --help lists every option of src/options.c's table, -o ro and the mount
# options a user gives, and none of libfuse's internals (its own help)
out=$("$BIN" --help 2>&1)
opts=$(sed -n 's/^\tPFS_OPT("\([a-z_]*=\).*/\1/p; s/^\t{"\([a-z_]*\)", offsetof.*/\1/p' \
	"$top_srcdir/src/options.c")
[ "$(echo "$opts" | wc -w)" -ge 30 ] || fail "options of src/options.c not found: $opts"
for o in $opts allow_other max_threads= fuse.parquetfs; do
	case "$out" in *"$o"*) ;; *) fail "--help does not list $o" ;; esac
done
echo "$out" | grep -q '^ *-o ro  ' || fail "--help has no line for -o ro"
case "$out" in *"fuse device fd"* | *max_idle_threads*) fail "--help lists libfuse's internals" ;; esac
"$BIN" --version | grep -q "^parquetfs " || fail "--version"

# ---- can this machine mount at all? (containers without the right) --------
PR=$WORK/probe; mkdir -p "$PR"
MNTS+=("$PR"); PIDS+=("")
"$BIN" "$DATA/alltypes_plain.parquet" "$PR" 2>"$WORK/probe.log"
if ! mountpoint -q "$PR"; then
	if grep -qi "permission\|not permitted\|device not found\|/dev/fuse" "$WORK/probe.log"; then
		skip "FUSE mounts are not allowed here: $(head -1 "$WORK/probe.log")"
	fi
	fail "probe mount failed: $(head -1 "$WORK/probe.log")"
else
	fusermount3 -u "$PR"
fi

# ---- issue 31: messages a user sees ------------------------------------------
# After the daemon detaches its messages go to syslog, and to its standard
# error as well when there is no syslog socket (fuse_daemonize had made it
# /dev/null: they went nowhere). A truncated file's error.txt says so. The
# unmount's counters print under -d, not at every -f unmount.
MS=$WORK/msrc; M8=$WORK/m8; mkdir -p "$MS" "$M8"
cp "$DATA/alltypes_plain.parquet" "$MS/"
sz=$(stat -c %s "$MS/alltypes_plain.parquet")
head -c $((sz / 2)) "$MS/alltypes_plain.parquet" > "$MS/cut.parquet"
MNTS+=("$M8"); PIDS+=("")
# wait_log FILE WORD: up to 10 s for WORD in FILE (a daemon's last lines)
wait_log() { local i; for i in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
if timeout 20 "$BIN" "$MS" "$M8" 2>"$WORK/detached.log" </dev/null && mountpoint -q "$M8"; then
	e=$(cat "$M8/cut.parquet/error.txt" 2>&1)
	case "$e" in *"truncated or still being written"*) ok "a truncated file: $e" ;;
	*) fail "a truncated file's error.txt: $e" ;; esac
	umount_fs "$M8"
	wait_log "$WORK/detached.log" "unmounting"
	if [ -S /dev/log ]; then
		echo "note: a syslog socket exists here: messages after detaching go there (not checked)"
	elif grep -q "mounted $MS on" "$WORK/detached.log" && grep -q "cut.parquet: the file is truncated" "$WORK/detached.log"; then
		ok "no syslog socket: the detached daemon's messages on its standard error"
	else
		fail "no syslog socket: the detached daemon's messages are lost (stderr: $(head -c 300 "$WORK/detached.log"))"
	fi
else
	fail "mount in the background: $(cat "$WORK/detached.log")"
fi
for flag in -f -d; do
	env -u PARQUETFS_TEST_TOTALS "$BIN" $flag "$MS" "$M8" 2>"$WORK/totals$flag.log" &
	p=$!
	for i in $(seq 100); do mountpoint -q "$M8" && break; sleep 0.1; done
	ls "$M8/alltypes_plain.parquet" >/dev/null
	umount_fs "$M8"
	wait $p
	n=$(grep -c "mount totals:\|request loop:\|memory budget at unmount" "$WORK/totals$flag.log")
	if [ $flag = -f ]; then
		[ "$n" = 0 ] && ok "-f: no counters at unmount" || fail "-f: $n counter lines at unmount: $(grep "mount totals" "$WORK/totals$flag.log")"
	else
		[ "$n" -ge 3 ] && ok "-d: the counters at unmount" || fail "-d: $n counter lines at unmount"
	fi
done

# ---- the tree of every file ----------------------------------------------
M1=$WORK/m1
LSLR_FILES="alltypes_plain.parquet nested_structs.rust.parquet datapage_v2.snappy.parquet"
[ $CONFORMANCE = 1 ] || LSLR_FILES="alltypes_plain.parquet alltypes_dictionary.parquet"
if mount_fs "$M1" -o key_file="$KEYS" "$DATA"; then
	if [ $CONFORMANCE = 1 ]; then
		start=$(date +%s)
		python3 "$WORK/walk.py" "$M1" "$DATA" "$EXP" || fail "walking the mount (see above)"
		ok "walk took $(( $(date +%s) - start )) s"
	else
		for f in alltypes_plain.parquet alltypes_dictionary.parquet; do
			same "$M1/$f/data.csv" "$EXP/$f/data.csv" && ok "$f: data.csv is the CSV it was made from" ||
				fail "$f: data.csv differs from its CSV"
		done
		[ "$(tail -1 "$M1/alltypes_dictionary.parquet/verify.txt")" = OK ] || fail "verify.txt not OK"
		[ "$(ls "$M1/alltypes_dictionary.parquet/row_groups" | wc -l)" = 4 ] || fail "row_groups/ of 2000 rows by 500"
	fi
	# ls -lR (readdirplus) sizes equal the bytes a read returns
	for f in $LSLR_FILES; do
		(cd "$M1/$f" && ls -lR --time-style=+ . ) > "$WORK/lslr" || fail "ls -lR $f"
		python3 - "$M1/$f" "$WORK/lslr" <<'PY' || fail "ls -lR sizes of $f"
import os, sys
root, listing = sys.argv[1], sys.argv[2]
d, bad = None, 0
for line in open(listing):
    line = line.rstrip("\n")
    if line.endswith(":") and not line.startswith("-"):
        d = line[:-1]
        continue
    f = line.split()
    if len(f) >= 6 and line.startswith("-"):
        p = os.path.join(root, d, " ".join(f[5:]))
        try:
            n = len(open(p, "rb").read())
        except OSError:
            continue  # unreadable entries have their error.txt (checked by the walk)
        if n != int(f[4]):
            print(f"FAIL {p}: ls -l says {f[4]}, read {n}")
            bad += 1
sys.exit(1 if bad else 0)
PY
	done
	# read-only: every change fails
	touch "$M1/new" 2>/dev/null && fail "creating a file succeeded"
	mkdir "$M1/newdir" 2>/dev/null && fail "mkdir succeeded"
	f=$M1/alltypes_plain.parquet
	rm -f "$f/schema.txt" 2>/dev/null; [ -e "$f/schema.txt" ] || fail "rm succeeded"
	( echo x > "$f/schema.txt" ) 2>/dev/null && fail "writing succeeded"
	mv "$f/schema.txt" "$f/s.txt" 2>/dev/null && fail "rename succeeded"
	umount_fs "$M1"
fi

# ---- bad files never take the mount down ----------------------------------
M2=$WORK/m2
if mount_fs "$M2" "$BAD"; then
	for d in "$M2"/*; do
		ls "$d" >/dev/null || fail "cannot list $d"
		if [ -e "$d/error.txt" ]; then
			[ "$(wc -l < "$d/error.txt")" -eq 1 ] || fail "$d/error.txt is not one line"
		else
			timeout 20 cat "$d/data.csv" >/dev/null 2>&1
			[ $? -eq 124 ] && fail "reading $d/data.csv hung"
			timeout 60 find "$d" -type f -name '*.txt' -exec cat {} + >/dev/null 2>&1
		fi
		ls "$M2" >/dev/null || { fail "mount died after $d"; break; }
	done
	ok "bad_data: $(ls "$M2" | wc -l) files, mount alive"
	umount_fs "$M2"
fi

# ---- 8 concurrent readers: identical bytes to a single-threaded read ------
M3=$WORK/m3
SECS=${PFS_TEST_CONC_SECONDS:-20}
# cache_size bounds every reader's pages and window too (interface.md): 2M,
# the small cache this phase used to stress eviction with, no longer holds
# one reader of delta_binary_packed's 66 columns; at 32M the data pool is
# still far smaller than what the 8 readers decode, and reclaim is exercised
if mount_fs "$M3" -o cache_size=32M "$DATA"; then
	python3 "$WORK/conc.py" "$M3" "$SECS" || fail "concurrent readers (see above)"
	umount_fs "$M3"
fi

# ---- a SOURCE that changes under the mount --------------------------------
S=$WORK/src; M4=$WORK/m4
mkdir -p "$S/sub" "$S/.parquetfs"
cp "$DATA/alltypes_plain.parquet" "$S/t.parquet"
cp "$DATA/alltypes_dictionary.parquet" "$S/sub/d.parquet"
cp "$DATA/alltypes_plain.parquet" "$S/.parquetfs/hidden.parquet"
echo "not parquet" > "$S/notes.txt"
if mount_fs "$M4" "$S"; then
	[ "$(ls -A "$M4" | tr '\n' ' ')" = "staging sub t.parquet " ] || fail "listing of a SOURCE dir: $(ls -A "$M4" | tr '\n' ' ')"
	same "$M4/t.parquet/data.csv" "$EXP/alltypes_plain.parquet/data.csv" || fail "t.parquet/data.csv"
	same "$M4/sub/d.parquet/data.csv" "$EXP/alltypes_dictionary.parquet/data.csv" || fail "sub/d.parquet/data.csv"
	# a process whose cwd is inside the file's directory
	python3 - "$M4/t.parquet" "$S" "$DATA" "$EXP" <<'PY' || fail "reading from a cwd inside a replaced file"
import os, shutil, sys, time
d, src, data, exp = sys.argv[1:5]
os.chdir(d)
old = open("schema.txt", "rb").read()
with open("data.csv", "rb") as h:      # an open handle across the change
    first = h.read(10)
    shutil.copy(os.path.join(data, "alltypes_dictionary.parquet"), os.path.join(src, ".new"))
    os.rename(os.path.join(src, ".new"), os.path.join(src, "t.parquet"))
    time.sleep(1.5)
    try:
        rest = h.read()
        want = open(os.path.join(exp, "alltypes_plain.parquet", "data.csv"), "rb").read()
        if first + rest != want:
            sys.exit("open handle returned bytes of neither generation")
    except OSError:
        pass                           # EIO is allowed, wrong bytes are not
want = open(os.path.join(exp, "alltypes_dictionary.parquet", "data.csv"), "rb").read()
for attempt in range(3):
    try:
        got = open("data.csv", "rb").read()
        break
    except OSError as e:               # ESTALE once is fine: the kernel looks again
        got = e
if got != want:
    sys.exit(f"after the change, data.csv from the old cwd: {got!r:.80}")
PY
	same "$M4/t.parquet/data.csv" "$EXP/alltypes_dictionary.parquet/data.csv" || fail "replaced t.parquet not noticed"
	grep -q "alltypes_dictionary\|t.parquet" "$M4/t.parquet/metadata.txt" || fail "metadata.txt after replace"
	[ "$(stat -c %s "$M4/t.parquet/schema.txt")" = "$(cat "$M4/t.parquet/schema.txt" | wc -c)" ] || fail "schema.txt size after replace"
	rm "$S/t.parquet"; sleep 1.5
	[ -e "$M4/t.parquet" ] && fail "removed t.parquet still shown"
	cp "$DATA/alltypes_plain.parquet" "$S/sub/new.parquet"
	ls "$M4/sub" | grep -qx new.parquet || fail "new file not shown"
	same "$M4/sub/new.parquet/data.csv" "$EXP/alltypes_plain.parquet/data.csv" || fail "new file's data.csv"
	ok "changes in SOURCE"
	# a directory larger than one listing batch (1,024 entries, their magic
	# read on several threads): every Parquet file shown once, nothing else
	mkdir "$S/many"
	for i in $(seq 1300); do
		ln "$DATA/alltypes_plain.parquet" "$S/many/p$i.parquet"
		echo "text $i" > "$S/many/t$i.parquet"
	done
	n=$(ls "$M4/many" | grep -c '^p[0-9]*\.parquet$')
	t=$(ls "$M4/many" | grep -c '^t')
	[ "$n" = 1300 ] && [ "$t" = 0 ] && ok "a directory of 2,600 entries: the 1,300 Parquet files shown" ||
		fail "a directory of 2,600 entries: $n of 1,300 Parquet files shown, $t others"
	# a file that turns into Parquet under the same name is seen as one
	cp "$DATA/alltypes_plain.parquet" "$S/many/.x" && mv "$S/many/.x" "$S/many/t7.parquet"
	sleep 1.5
	ls "$M4/many" | grep -qx t7.parquet || fail "a text file replaced by Parquet not shown"
	umount_fs "$M4"
fi

# ---- SOURCE is one file: the mount point is its directory -----------------
M5=$WORK/m5
if mount_fs "$M5" "$DATA/alltypes_plain.parquet"; then
	[ -f "$M5/schema.txt" ] && [ -d "$M5/row_groups/0" ] || fail "single-file tree: $(ls "$M5" | tr '\n' ' ')"
	same "$M5/data.csv" "$EXP/alltypes_plain.parquet/data.csv" || fail "single-file data.csv"
	umount_fs "$M5"
fi

# ---- -o ro ------------------------------------------------------------------
M6=$WORK/m6
if mount_fs "$M6" -o ro -s "$DATA"; then
	ls "$M6/alltypes_plain.parquet/row_groups/0/columns" >/dev/null || fail "-o ro -s listing"
	umount_fs "$M6"
fi
# the request loops other than fs/loop.c's default: libfuse's own
# (clone_fd) and ours sleeping at once (poll_us=0), with a few threads
for loop_opts in "-o clone_fd" "-o poll_us=0 -o max_threads=2"; do
	# shellcheck disable=SC2086 # two words each
	if mount_fs "$M6" $loop_opts "$DATA"; then
		same "$M6/alltypes_plain.parquet/data.csv" "$EXP/alltypes_plain.parquet/data.csv" &&
			ok "$loop_opts: data.csv right" || fail "$loop_opts: data.csv"
		umount_fs "$M6"
	else
		fail "mount with $loop_opts"
	fi
done
# While the reader polls, the watchdog keeps a second CPU awake (loop.c,
# stay_awake): its time is in the unmount's log line. A burst of opens
# (an OPEN and a RELEASE each) must show some; poll_us=0 none.
kept_awake() { # the last unmount's "N ms kept awake"
	grep -o "request loop: .*" "$WORK/daemon.log" | tail -1 | sed -n 's/.*, \([0-9]*\) ms kept awake.*/\1/p'
}
burst() {
	local chunks i
	chunks=$(find "$1" -name chunk.bin | head -300)
	# shellcheck disable=SC2086 # one word per file
	for i in $(seq 10); do cat $chunks >/dev/null; done
}
for loop_opts in "" "-o poll_us=0"; do
	# shellcheck disable=SC2086 # none or two words
	mount_fs "$M6" $loop_opts "$DATA" || continue
	burst "$M6"
	umount_fs "$M6"
	ms=$(kept_awake)
	if [ -z "$ms" ]; then
		fail "mount ${loop_opts:-(defaults)}: no request loop line in the log"
	elif [ -n "$loop_opts" ]; then
		[ "$ms" = 0 ] && ok "$loop_opts: no CPU kept awake" || fail "$loop_opts kept a CPU awake for $ms ms"
	elif [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
		[ "$ms" = 0 ] && echo "note: one CPU, none kept awake (as designed)" || fail "one CPU, kept awake $ms ms"
	else
		[ "$ms" -gt 0 ] && ok "a burst of opens: a second CPU kept awake for $ms ms" ||
			fail "a burst of opens: no CPU kept awake ($(grep -o 'request loop: .*' "$WORK/daemon.log" | tail -1))"
	fi
done

# ---- fstab: mount(8) runs "parquetfs SOURCE MOUNTPOINT -o options" --------
# An fstab line of type fuse.parquetfs finds parquetfs in the default PATH
# (once installed); an uninstalled build is named with the type fuse and
# "PROGRAM#SOURCE", which mount.fuse3 runs with the same arguments.
M7=$WORK/m7; mkdir -p "$M7"
if [ "$(id -u)" = 0 ] && command -v mount.fuse3 >/dev/null; then
	MNTS+=("$M7"); PIDS+=("")
	if timeout 20 mount -t fuse -o noauto,nofail,cache_size=64M "$BIN#$DATA" "$M7" 2>"$WORK/fstab.log"; then
		[ -d "$M7/alltypes_plain.parquet/columns" ] || fail "mount -t fuse: tree"
		umount_fs "$M7"
		ok "mount -t fuse (fstab)"
	else
		fail "mount -t fuse $BIN#$DATA: $(cat "$WORK/fstab.log")"
	fi
else
	echo "note: fstab mounting not tried (needs root and mount.fuse3)"
fi

finish
