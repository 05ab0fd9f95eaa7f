#!/bin/bash
# Integration test of staging/ with the tools users write with (issue 31):
#
#   temporary names and rename (point 2): rsync (a dot-file, renamed),
#   rsync --inplace (times set by name after the close), vim, DuckDB
#   COPY ... TO (also over a staged name, which it writes beside and
#   renames), pandas to_csv; temporary files listed, readable, removable,
#   kept as they are across a remount; a rename onto an accepted name
#   converts, failing as a close would;
#   several writers through one open file (point 13): a shell group
#   `{ head; tail; } > x.csv` converts once (also with -o replace=no),
#   `cat > x.csv` logs no "empty file" first, an opener that closes first
#   leaves the conversion to the last close;
#   modes (point 16): a private CSV is published private, its .error too;
#   kill -9 mid-conversion (point 17): the first remount removes the
#   temporary file the killed daemon left, even while its process id lives
#   on (a zombie no one reaped).
#
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3 or python3), 1 fail.
# vim, DuckDB (scripts/duckdb-sql) and pandas are each skipped with a note
# when missing. Env: PARQUETFS, PFS_TEST_BIG_ROWS (rows of the kill -9 CSV).
set -u

WORK_NAME=pfs-stgtools
. "$(dirname "$0")/mount_lib.sh"
UMOUNT_SETTLE=0.3

S=$WORK/src; M=$WORK/m; IN=$WORK/in
mkdir -p "$S" "$IN"

{ echo "id,name,score"; for i in $(seq 1 200); do echo "$i,name $i,$i.5"; done; } > "$IN/a.csv"
printf 'id,name\n1,a\n2,b\n' > "$IN/small.csv"
printf 'a,b\n1,2\n3\n' > "$IN/ragged.csv"

# staged NAME published as NAME.parquet with data.csv equal to FILE
published() {
	local what=$1 base=$2 file=$3
	if same "$M/$base.parquet/data.csv" "$file"; then
		ok "$what"
	else
		fail "$what: $base.parquet/data.csv is $(head -c 120 "$M/$base.parquet/data.csv" 2>&1)"
	fi
}
# conversion lines of the log for staged name $1 (after line $2)
# ok when no failure came since FAILS was $1
okif() { [ "$FAILS" = "$1" ] && ok "$2"; }
conversions() { tail -n +"$(($2 + 1))" "$WORK/daemon.log" | grep -c "staging: $1: "; }
loglines() { wc -l < "$WORK/daemon.log"; }

mount_fs "$M" "$S" || { echo "$FAILS failure(s)"; exit 1; }

# ---- point 2: rsync, rsync --inplace -------------------------------------------
if rsync "$IN/small.csv" "$M/staging/" 2>"$WORK/rsync.err"; then
	published "rsync (a temporary file renamed)" small "$IN/small.csv"
else
	fail "rsync into staging/: $(cat "$WORK/rsync.err")"
fi
cp "$IN/a.csv" "$IN/ra.csv"
if rsync -a "$IN/ra.csv" "$M/staging/" 2>"$WORK/rsync.err"; then
	published "rsync -a" ra "$IN/a.csv"
else
	fail "rsync -a into staging/: $(cat "$WORK/rsync.err")"
fi
cp "$IN/a.csv" "$IN/inplace.csv"
if rsync -a --inplace "$IN/inplace.csv" "$M/staging/" 2>"$WORK/rsync.err"; then
	published "rsync -a --inplace (times and mode set by name after the close)" inplace "$IN/a.csv"
else
	fail "rsync --inplace into staging/: $(cat "$WORK/rsync.err")"
fi
[ -z "$(ls -A "$M/staging")" ] || fail "staging/ not empty after rsync: $(ls -A "$M/staging")"
[ -e "$M/staging/inplace.csv" ] && fail "inplace.csv is still seen by another process after its conversion"

# ---- temporary files: kept, listed, readable, removable; rename converts --------
f0=$FAILS
cp "$IN/small.csv" "$M/staging/.t.csv.Ab12Cd" || fail "cp to a dot-file"
cp "$IN/small.csv" "$M/staging/t.csv.tmp" || fail "cp to x.csv.tmp"
cp "$IN/small.csv" "$M/staging/notes.txt" || fail "cp to notes.txt"
for t in .t.csv.Ab12Cd t.csv.tmp notes.txt; do
	ls -A "$M/staging" | grep -qxF "$t" || fail "temporary $t not listed: $(ls -A "$M/staging")"
	same "$M/staging/$t" "$IN/small.csv" || fail "temporary $t does not read back"
	[ -e "$M/staging/$t.error" ] && fail "temporary $t has an .error"
done
[ -e "$M/t.parquet" ] && fail "a temporary file was converted"
grep -q "staging: .*t\.csv\.tmp\|staging: .*notes\.txt" "$WORK/daemon.log" && fail "a temporary file was converted: $(grep 'notes.txt\|t.csv.tmp' "$WORK/daemon.log")"
okif "$f0" "temporary files kept, listed, readable"
f0=$FAILS
printf 'x\n' > "$M/staging/gone.tmp" && rm "$M/staging/gone.tmp" || fail "rm of a temporary file"
[ -e "$M/staging/gone.tmp" ] && fail "rm of a temporary file left it"
cp "$IN/ragged.csv" "$M/staging/bad.csv.tmp" || fail "cp to bad.csv.tmp"
python3 - "$M/staging" <<'PY' || fail "rename of a ragged CSV onto bad.csv"
import errno, os, sys
d = sys.argv[1]
try:
    os.rename(os.path.join(d, "bad.csv.tmp"), os.path.join(d, "bad.csv"))
    sys.exit("it succeeded")
except OSError as e:
    if e.errno != errno.EINVAL:
        sys.exit(f"{e}, not EINVAL")
PY
grep -q "line 3" "$M/staging/bad.csv.error" 2>/dev/null || fail "no bad.csv.error after the rename: $(ls -A "$M/staging")"
[ -f "$M/staging/bad.csv" ] || fail "the ragged CSV left staging/ after a failed rename"
[ -e "$M/bad.parquet" ] && fail "a ragged CSV was published by a rename"
okif "$f0" "a rename that does not convert fails as a close does"

# ---- vim ---------------------------------------------------------------------------
VIM=""
for v in vim vim.tiny vim.basic; do command -v $v >/dev/null && { VIM=$v; break; }; done
if [ -z "$VIM" ]; then
	echo "note: vim is not installed: its checks are skipped"
else
	# a new file; then the failed bad.csv fixed in place, with a backup
	# written the way that renames the original (EXDEV: vim copies)
	(cd "$M/staging" && $VIM -Es -u NONE -c "r $IN/small.csv" -c 'g/^$/d' -c wq vimnew.csv </dev/null) ||
		fail "vim writing vimnew.csv exited $?"
	published "vim writes a new CSV" vimnew "$IN/small.csv"
	(cd "$M/staging" && $VIM -Es -u NONE -c 'set nocompatible backup writebackup backupcopy=no backupdir=. backupskip=' \
		-c '3d' -c wq bad.csv </dev/null) || fail "vim fixing bad.csv exited $?"
	printf 'a,b\n1,2\n' > "$IN/fixed.csv"
	published "vim fixes a staged CSV in place (with a backup)" bad "$IN/fixed.csv"
	[ -e "$M/staging/bad.csv.error" ] && fail "bad.csv.error stays after vim fixed it"
	rm -f "$M/staging/bad.csv~"
fi

# ---- DuckDB COPY ... TO --------------------------------------------------------------
DUCK=""
if [ -x "$top_srcdir/scripts/duckdb-sql" ] && command -v node >/dev/null &&
	timeout 120 "$top_srcdir/scripts/duckdb-sql" "SELECT 42" 2>/dev/null | grep -qx 42; then
	DUCK=$top_srcdir/scripts/duckdb-sql
else
	echo "note: DuckDB (scripts/duckdb-sql) is not available: its checks are skipped"
fi
if [ -n "$DUCK" ]; then
	q="COPY (SELECT i AS id, 'n' || i AS name FROM range(1, 6) t(i) ORDER BY i) TO"
	{ echo "id,name"; for i in 1 2 3 4 5; do echo "$i,n$i"; done; } > "$IN/duck.csv"
	"$DUCK" "$q '$M/staging/duck.csv' (HEADER)" >"$WORK/duck.err" 2>&1 || fail "DuckDB COPY TO staging/duck.csv: $(cat "$WORK/duck.err")"
	published "DuckDB COPY TO a new name" duck "$IN/duck.csv"
	# again: duck.parquet is replaced
	q="COPY (SELECT i AS id, 'm' || i AS name FROM range(1, 4) t(i) ORDER BY i) TO"
	{ echo "id,name"; for i in 1 2 3; do echo "$i,m$i"; done; } > "$IN/duck2.csv"
	"$DUCK" "$q '$M/staging/duck.csv' (HEADER)" >"$WORK/duck.err" 2>&1 || fail "DuckDB COPY TO staging/duck.csv again: $(cat "$WORK/duck.err")"
	published "DuckDB COPY TO replaces a published file" duck "$IN/duck2.csv"
	# twice in one process: the second finds the name gone (else it
	# writes tmp_duck3.csv, published as tmp_duck3.parquet, and renames)
	"$DUCK" "COPY (SELECT 1 AS id, 'x' AS name) TO '$M/staging/duck3.csv' (HEADER); $q '$M/staging/duck3.csv' (HEADER)" \
		>"$WORK/duck.err" 2>&1 || fail "DuckDB COPY TO one name twice: $(cat "$WORK/duck.err")"
	published "DuckDB COPY TO one name twice in one process" duck3 "$IN/duck2.csv"
	[ -e "$M/tmp_duck3.parquet" ] && fail "DuckDB COPY TO one name twice published tmp_duck3.parquet"
	[ -z "$(ls -A "$M/staging" | grep -v '^\.t\.csv\|^t\.csv\.tmp$\|^notes\.txt$')" ] ||
		fail "staging/ holds more after DuckDB: $(ls -A "$M/staging")"
fi

# ---- pandas to_csv -------------------------------------------------------------------
PY=""
for p in python3 /usr/bin/python3; do
	$p -c 'import pandas' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
	echo "note: pandas (python3-pandas) is not installed: its check is skipped"
else
	$PY - "$M/staging/pd.csv" <<'PY' || fail "pandas to_csv into staging/"
import sys
import pandas as pd
pd.DataFrame({"id": [1, 2], "name": ["a", "b"]}).to_csv(sys.argv[1], index=False)
PY
	published "pandas to_csv" pd "$IN/small.csv"
fi

# ---- point 13: several writers through one open file ---------------------------------
n0=$(loglines)
{ head -n 1 "$IN/a.csv"; tail -n +2 "$IN/a.csv"; } > "$M/staging/grp.csv" || fail "{ head; tail; } > staging/grp.csv"
published "{ head; tail; } > x.csv" grp "$IN/a.csv"
sleep 0.3
c=$(conversions grp.csv "$n0")
[ "$c" = 1 ] || fail "{ head; tail; } > grp.csv: $c conversions: $(tail -n +$((n0 + 1)) "$WORK/daemon.log" | grep 'grp.csv')"
n0=$(loglines)
cat "$IN/a.csv" > "$M/staging/catr.csv" || fail "cat > staging/catr.csv"
[ -e "$M/staging/catr.csv" ] && fail "cat > catr.csv: the shell that opened it still finds it after its conversion"
published "cat > x.csv" catr "$IN/a.csv"
sleep 0.3
tail -n +$((n0 + 1)) "$WORK/daemon.log" | grep -q "catr.csv: empty" && fail "cat > catr.csv logged an empty file first"
[ "$(conversions catr.csv "$n0")" = 1 ] || fail "cat > catr.csv: not one conversion: $(tail -n +$((n0 + 1)) "$WORK/daemon.log" | grep catr.csv)"
# an empty file still fails its close
: > "$IN/empty.csv"
cp "$IN/empty.csv" "$M/staging/empty.csv" 2>"$WORK/cp.err" && fail "cp of an empty CSV succeeded"
grep -q "Invalid argument" "$WORK/cp.err" || fail "cp of an empty CSV: $(cat "$WORK/cp.err")"
grep -q "empty file" "$M/staging/empty.csv.error" 2>/dev/null || fail "no empty.csv.error saying so"
rm -f "$M/staging/empty.csv" "$M/staging/empty.csv.error"
# the opener closes first, while another process still writes: the last
# close converts (A writes, B writes and exits, the opener closes, A ends)
n0=$(loglines)
python3 - "$M/staging/late.csv" "$IN/a.csv" <<'PY' || fail "opener closing first"
import os, subprocess, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
data = open(sys.argv[2], "rb").read()
x = data.index(b"\n50,") + 1
y = data.index(b"\n100,") + 1
writer = """
import os, sys
d = open(sys.argv[1], 'rb').read()
os.write(1, d[int(sys.argv[2]):int(sys.argv[3])])
if len(sys.argv) > 4:
    os.read(0, 1)   # until the opener has closed
    os.write(1, d[int(sys.argv[4]):])
"""
r, w = os.pipe()
a = subprocess.Popen(["python3", "-c", writer, sys.argv[2], "0", str(x), str(y)], stdout=fd, stdin=r)
os.close(r)
time.sleep(0.5)            # A wrote its first part
b = subprocess.Popen(["python3", "-c", writer, sys.argv[2], str(x), str(y)], stdout=fd)
if b.wait():
    sys.exit("writer B failed")
os.close(fd)               # the opener's close: A still writes, nothing may publish
time.sleep(0.3)
p = os.path.join(os.path.dirname(os.path.dirname(sys.argv[1])), "late.parquet")
if os.path.exists(p):
    sys.exit("the opener's close published while another process was writing")
os.write(w, b"x")
if a.wait():
    sys.exit("writer A failed")
PY
for i in $(seq 100); do [ -e "$M/late.parquet" ] && break; sleep 0.1; done
published "the opener closes first: the last close converts" late "$IN/a.csv"
sleep 0.3
[ "$(conversions late.csv "$n0")" = 1 ] || fail "late.csv: not one conversion: $(tail -n +$((n0 + 1)) "$WORK/daemon.log" | grep late.csv)"

# ---- point 16: modes -------------------------------------------------------------------
f0=$FAILS
(umask 077; cp "$IN/small.csv" "$IN/secret.csv"; cp "$IN/secret.csv" "$M/staging/private.csv") || fail "umask 077 cp"
[ "$(stat -c %a "$S/private.parquet" 2>&1)" = 600 ] || fail "a 0600 CSV published as $(stat -c %a "$S/private.parquet" 2>&1)"
cp "$IN/small.csv" "$IN/g.csv"; chmod 640 "$IN/g.csv"
cp -p "$IN/g.csv" "$M/staging/g.csv" || fail "cp -p of a 0640 CSV"
[ "$(stat -c %a "$S/g.parquet" 2>&1)" = 640 ] || fail "a 0640 CSV published as $(stat -c %a "$S/g.parquet" 2>&1)"
(umask 077; cp "$IN/ragged.csv" "$M/staging/privbad.csv") 2>/dev/null && fail "a ragged CSV was accepted"
[ "$(stat -c %a "$M/staging/privbad.csv.error" 2>&1)" = 600 ] ||
	fail "the .error of a 0600 CSV is $(stat -c %a "$M/staging/privbad.csv.error" 2>&1) in the mount"
[ "$(stat -c %a "$S/.parquetfs/staging/privbad.csv.error" 2>&1)" = 600 ] ||
	fail "the .error of a 0600 CSV is $(stat -c %a "$S/.parquetfs/staging/privbad.csv.error" 2>&1) in the store"
rm -f "$M/staging/privbad.csv" "$M/staging/privbad.csv.error"
okif "$f0" "modes: published and .error files take the staged file's"

umount_fs "$M"

# ---- temporary files survive a remount as they are; -o replace=no sees one write -------
if mount_fs "$M" -o replace=no "$S"; then
	f0=$FAILS
	for t in .t.csv.Ab12Cd t.csv.tmp notes.txt; do
		same "$M/staging/$t" "$IN/small.csv" || fail "temporary $t after a remount: $(ls -A "$M/staging")"
		[ -e "$M/staging/$t.error" ] && fail "temporary $t has an .error after a remount"
	done
	sleep 0.5
	[ -e "$M/t.parquet" ] && fail "a temporary file was converted at the remount"
	okif "$f0" "temporary files kept across a remount"
	mv "$M/staging/t.csv.tmp" "$M/staging/t.csv" || fail "rename of t.csv.tmp onto t.csv"
	published "a rename onto an accepted name converts" t "$IN/small.csv"
	[ -e "$M/staging/t.csv" ] && fail "t.csv stays in staging/ after its rename converted it"
	{ head -n 1 "$IN/a.csv"; tail -n +2 "$IN/a.csv"; } > "$M/staging/nr.csv" 2>"$WORK/grp.err" ||
		fail "replace=no: { head; tail; } > nr.csv: $(cat "$WORK/grp.err")"
	published "replace=no: { head; tail; } > x.csv is one write" nr "$IN/a.csv"
	ls "$M/staging" | grep -q '^nr\.csv' && fail "replace=no: nr.csv stays in staging/: $(cat "$M/staging/nr.csv.error" 2>&1)"
	rm -f "$M/staging/.t.csv.Ab12Cd" "$M/staging/notes.txt"
	umount_fs "$M"
fi

# ---- point 17: kill -9 mid-conversion, the daemon's process id still alive ------------
ROWS=${PFS_TEST_BIG_ROWS:-1500000}
python3 - "$IN/big.csv" "$ROWS" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("id,name,value,day\n")
    for i in range(n):
        f.write(f"{i},name{i % 1000},{i * 0.5},2024-01-{i % 28 + 1:02d}\n")
PY
# the daemon's parent is a sleep that never reaps it: killed, it stays a zombie
MZ=$WORK/mz; mkdir -p "$MZ"
( "$BIN" -f "$S" "$MZ" 2>>"$WORK/daemon.log" & echo $! > "$WORK/zpid"; exec sleep 600 ) &
keeper=$!
for i in $(seq 100); do mountpoint -q "$MZ" && break; sleep 0.1; done
zpid=$(cat "$WORK/zpid")
MNTS+=("$MZ"); PIDS+=("$zpid")
if mountpoint -q "$MZ"; then
	cp "$IN/big.csv" "$MZ/staging/big.csv" 2>/dev/null &
	cpid=$!
	seen=""
	for i in $(seq 3000); do
		ls -A "$S" | grep -q "^\.big\.parquet\.tmp-$zpid-" && { seen=1; break; }
		kill -0 $cpid 2>/dev/null || break
		sleep 0.01
	done
	kill -9 "$zpid"
	for i in "${!MNTS[@]}"; do [ "${MNTS[$i]}" = "$MZ" ] && PIDS[$i]=""; done
	for i in $(seq 50); do grep -q '^State:.*Z' "/proc/$zpid/status" 2>/dev/null && break; sleep 0.1; done
	timeout 10 fusermount3 -uz "$MZ" 2>/dev/null || umount -l "$MZ" 2>/dev/null
	wait $cpid 2>/dev/null
	if [ -z "$seen" ]; then
		echo "note: the conversion ended before it could be killed (raise PFS_TEST_BIG_ROWS)"
	else
		grep -q '^State:.*Z' "/proc/$zpid/status" 2>/dev/null ||
			echo "note: the killed daemon is not a zombie here"
		left=$(ls -A "$S" | grep "^\.big\.parquet\.tmp-$zpid-")
		[ -n "$left" ] || echo "note: the killed daemon left no temporary file"
		if mount_fs "$M" "$S"; then
			for i in $(seq 600); do
				[ -e "$S/big.parquet" ] && [ ! -e "$M/staging/big.csv" ] && break
				sleep 0.1
			done
			n=$(wc -l < "$M/big.parquet/data.csv")
			[ "$n" -eq $((ROWS + 1)) ] || fail "after the remount big.parquet has $n lines, want $((ROWS + 1))"
			for i in $(seq 50); do
				[ -z "$(ls -A "$S" | grep "^\.big\.parquet\.tmp-$zpid-")" ] && break
				sleep 0.1
			done
			left=$(ls -A "$S" | grep "^\.big\.parquet\.tmp-")
			[ -z "$left" ] || fail "the first remount left $left beside big.parquet"
			[ -z "$left" ] && ok "kill -9 mid-conversion: the first remount converts and removes the temporary file"
			umount_fs "$M"
		fi
	fi
else
	fail "the zombie-keeping mount did not come up: $(tail -3 "$WORK/daemon.log")"
fi
kill $keeper 2>/dev/null; wait $keeper 2>/dev/null

# a temporary file still locked at mount (its daemon still exiting) is kept,
# and removed by a later pass once the lock is gone
if command -v flock >/dev/null; then
	: > "$S/.held.parquet.tmp-1-0"
	flock -x "$S/.held.parquet.tmp-1-0" -c 'sleep 3' &
	holder=$!
	sleep 0.3
	if mount_fs "$M" "$S"; then
		sleep 1
		[ -e "$S/.held.parquet.tmp-1-0" ] || fail "a temporary file still locked was removed at mount"
		wait $holder
		for i in $(seq 100); do [ -e "$S/.held.parquet.tmp-1-0" ] || break; sleep 0.1; done
		[ -e "$S/.held.parquet.tmp-1-0" ] && fail "a temporary file locked at mount stays once the lock is gone"
		[ -e "$S/.held.parquet.tmp-1-0" ] || ok "a temporary file locked at mount: kept, then removed once unlocked"
		umount_fs "$M"
	fi
else
	echo "note: flock(1) missing: the locked temporary file check is skipped"
fi

finish
