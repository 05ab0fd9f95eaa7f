#!/bin/bash
# Appending through staging/ (interface.md, "Staging details", Appending;
# issue 31 point 1): `>>` to a CSV/TSV name whose Parquet file exists adds
# rows to that file.
#
#   the loop of the issue (a header written with >, three rows with >>)
#   gives 3 rows with columns id,name (data.csv, and DuckDB when at hand);
#   the old row groups stay byte for byte, and the file its mode and owner (chunk.bin of row group 0, and
#   the old file up to its footer is a prefix of the new one); rows are
#   typed by the file's schema (a DOUBLE column takes an integer; a file
#   DuckDB wrote takes its DECIMAL, DATE and INTEGER(32) rows); a line
#   that does not fit fails the close (the writer's exit status), says its
#   line and column in .error, and changes nothing; rm of the staged file
#   then ends the append; `>>` to a name staging/ holds appends to its
#   bytes; `>>` with no Parquet file is a whole CSV (header first);
#   rows published one by one through a descriptor kept open are each
#   appended once; -o replace=no allows appends; a nested and an encrypted
#   file refuse with a clear .error and stay as they were; kill -9 with
#   `>>` open leaves the file as it was (the remount says "never closed"),
#   and a closed append found in the store at mount is appended (never
#   taken for a whole CSV); with -o allow_other another user appends to a
#   file it may read and write (which stays its owner's), and gets EACCES
#   for one it may only write.
#
# Makes its own files (parquetfs-convert); the nested and encrypted cases
# use ../shared/testdata when it is there.
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3 or python3), 1 fail.
set -u

WORK_NAME=pfs-append
. "$(dirname "$0")/mount_lib.sh"
CONVERT=${PARQUETFS_CONVERT:-$top_builddir/src/parquetfs-convert}
case "$CONVERT" in /*) ;; *) CONVERT=$PWD/$CONVERT ;; esac
[ -x "$CONVERT" ] || { echo "FAIL: no parquetfs-convert at $CONVERT"; exit 1; }
UMOUNT_SETTLE=0.3

DUCK=""
if [ -x "$top_srcdir/scripts/duckdb-sql" ] && command -v node >/dev/null &&
	timeout 120 "$top_srcdir/scripts/duckdb-sql" "SELECT 42" 2>/dev/null | grep -qx 42; then
	DUCK=$top_srcdir/scripts/duckdb-sql
else
	echo "note: DuckDB not available (scripts/duckdb-sql): its checks are skipped"
fi

error_says() {
	local f=$1; shift
	[ -f "$f" ] || { fail "no $f"; return 1; }
	local w
	for w in "$@"; do
		grep -qF -- "$w" "$f" || { fail "$f does not say '$w': $(cat "$f")"; return 1; }
	done
	ok "$(basename "$f"): $(cat "$f")"
}

# the parquet-testing files (a worktree may keep ../shared elsewhere)
DATA=${PFS_TEST_DATA:-$DATA}
SRC=$WORK/src
M=$WORK/mnt
mkdir -p "$SRC"
mount_fs "$M" "$SRC" || finish
S=$M/staging

# ---- the issue's loop ------------------------------------------------------
echo 'id,name' > "$S/loop.csv" || fail "header of loop.csv: exit $?"
for i in 1 2 3; do
	echo "$i,n$i" >> "$S/loop.csv" || fail "echo $i,n$i >> loop.csv: exit $?"
done
printf 'id,name\n1,n1\n2,n2\n3,n3\n' > "$WORK/loop.want"
if same "$M/loop.parquet/data.csv" "$WORK/loop.want"; then
	ok "header, then 3 rows appended with >>: loop.parquet has id,name and 3 rows"
else
	fail "loop.parquet after the appends: $(cat "$M/loop.parquet/data.csv" 2>&1 | head -5)"
fi
[ -e "$S/loop.csv" ] && fail "loop.csv stayed in staging/ ($(cat "$S/loop.csv.error" 2>/dev/null))"
if [ -n "$DUCK" ]; then
	got=$("$DUCK" "SELECT count(*) || ' ' || string_agg(id || ':' || name, ' ' ORDER BY id) FROM '$SRC/loop.parquet'" 2>&1)
	[ "$got" = "3 1:n1 2:n2 3:n3" ] && ok "DuckDB reads the appended file: $got" ||
		fail "DuckDB on loop.parquet: $got"
fi

# ---- old row groups unchanged, new rows typed by the schema ----------------
{ echo "id,name,x"; for i in $(seq 1 50); do echo "$i,name $i,$i.5"; done; } > "$WORK/big.csv"
"$CONVERT" -o row_group_rows=20 "$WORK/big.csv" "$SRC/big.parquet" || fail "parquetfs-convert big.csv"
cp "$SRC/big.parquet" "$WORK/big.before"
cp "$M/big.parquet/row_groups/0/columns/name/chunk.bin" "$WORK/chunk0.before"
footer_off=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
print(len(b) - 8 - struct.unpack("<I", b[-8:-4])[0])' "$WORK/big.before")
printf '51,name 51,7\n52,,\n53,"quoted, name",-1e3\n' >> "$S/big.csv" || fail "append to big.csv: exit $?"
if cmp -s "$M/big.parquet/row_groups/0/columns/name/chunk.bin" "$WORK/chunk0.before"; then
	ok "chunk.bin of row group 0 is the same bytes after the append"
else
	fail "chunk.bin of row group 0 changed"
fi
if cmp -s -n "$footer_off" "$SRC/big.parquet" "$WORK/big.before"; then
	ok "the old file up to its footer ($footer_off bytes) is a prefix of the new one"
else
	fail "the old bytes were not kept as they were"
fi
ls "$M/big.parquet/row_groups/" | sort -n | tr '\n' ' ' > "$WORK/rgs"
[ "$(cat "$WORK/rgs")" = "0 1 2 3 " ] && ok "row groups: $(cat "$WORK/rgs")" ||
	fail "row groups after the append: $(cat "$WORK/rgs")"
{ cat "$WORK/big.csv"; printf '51,name 51,7\n52,,\n53,"quoted, name",-1000\n'; } > "$WORK/big.want"
python3 - "$M/big.parquet/data.csv" "$WORK/big.want" <<'EOF' || fail "big.parquet's rows after the append"
import csv, sys
got = list(csv.reader(open(sys.argv[1])))
want = list(csv.reader(open(sys.argv[2])))
norm = lambda rows: [[r[0], r[1], "" if r[2] == "" else float(r[2])] for r in rows[1:]]
if got[0] != want[0] or norm(got) != norm(want):
    print("got", got[-4:], "want", want[-4:])
    sys.exit(1)
print("ok: 53 rows, the new ones typed by the file's schema (x DOUBLE took 7 and -1e3)")
EOF
grep -q "num_rows: 53\|num_rows 53\|53 rows" "$M/big.parquet/metadata.txt" ||
	fail "metadata.txt does not say 53 rows: $(grep -i rows "$M/big.parquet/metadata.txt" | head -3)"
tail -1 "$M/big.parquet/verify.txt" | grep -qx OK && ok "verify.txt of the appended file: OK" ||
	fail "verify.txt: $(tail -3 "$M/big.parquet/verify.txt")"

# ---- a file DuckDB wrote (its codec, FLBA DECIMAL, DATE, INTEGER(32)) -----
if [ -n "$DUCK" ]; then
	"$DUCK" "COPY (SELECT i::INTEGER AS id, 'v' || i AS s, i * 0.5 AS d, DATE '2024-01-01' + i::INTEGER AS dt FROM range(1, 1001) t(i)) TO '$SRC/duck.parquet' (FORMAT parquet)" >/dev/null ||
		fail "DuckDB COPY TO duck.parquet"
	printf '1001,v1001,500.5,2026-11-28\n1002,,,\n' >> "$S/duck.csv" || fail "append to DuckDB's file: exit $?"
	got=$("$DUCK" "SELECT count(*), max(id), sum(d), max(dt), count(s) FROM '$SRC/duck.parquet'" 2>&1)
	[ "$got" = "$(printf '1002\t1002\t250750.5\t2026-11-28\t1001')" ] &&
		ok "DuckDB reads its own file with 2 rows appended: $got" ||
		fail "DuckDB on duck.parquet after the append: $got $(cat "$S/duck.csv.error" 2>/dev/null)"
fi

# ---- a line that does not fit: the close fails, nothing changes ------------
cp "$SRC/big.parquet" "$WORK/big.mid"
if printf '54,ok,1\n55,bad,abc\n' | cat >> "$S/big.csv" 2>"$WORK/cat.err"; then
	fail "appending a bad line: cat exited 0"
else
	ok "appending a bad line fails the close: $(head -1 "$WORK/cat.err")"
fi
cmp -s "$SRC/big.parquet" "$WORK/big.mid" && ok "big.parquet unchanged by the failed append" ||
	fail "the failed append changed big.parquet"
error_says "$S/big.csv.error" "line 2" "column 3" "(x)" "abc"
[ -f "$S/big.csv" ] && ok "the rows stay in staging/" || fail "big.csv left staging/"
rm "$S/big.csv" || fail "rm of the failed append"
echo '54,ok,1' >> "$S/big.csv" || fail "append after rm: exit $?"
[ "$(tail -1 "$M/big.parquet/data.csv")" = "54,ok,1" ] && ok "after rm, a new >> appends again" ||
	fail "after rm and >>: last row $(tail -1 "$M/big.parquet/data.csv")"

# an append keeps the file's mode and owner (as O_APPEND would)
chmod 0640 "$SRC/big.parquet"
chown 65534:65534 "$SRC/big.parquet"
echo '55,m,0' >> "$S/big.csv" || fail "append to a 0640 file of uid 65534: exit $?"
[ "$(stat -c '%a %u %g' "$SRC/big.parquet")" = "640 65534 65534" ] &&
	ok "the appended file keeps mode 640 and owner 65534" ||
	fail "after the append: mode, owner $(stat -c '%a %u %g' "$SRC/big.parquet")"
[ "$(tail -1 "$M/big.parquet/data.csv")" = "55,m,0" ] || fail "55,m,0 not appended"
chown 0:0 "$SRC/big.parquet"

# ---- TSV, a name staging/ holds, no Parquet file ---------------------------
printf '56\tt56\t2.5\n' >> "$S/big.tsv" || fail "append to big.tsv: exit $?"
[ "$(tail -1 "$M/big.parquet/data.csv")" = "56,t56,2.5" ] && ok ">> to big.tsv appends too" ||
	fail "after >> big.tsv: last row $(tail -1 "$M/big.parquet/data.csv")"
printf 'a,b\n1,2\n' >> "$S/fresh.csv" || fail ">> with no Parquet file: exit $?"
printf 'a,b\n1,2\n' > "$WORK/fresh.want"
same "$M/fresh.parquet/data.csv" "$WORK/fresh.want" && ok ">> with no Parquet file: a whole CSV, header first" ||
	fail "fresh.parquet: $(cat "$M/fresh.parquet/data.csv" 2>&1)"
# one open file, two writes: both rows appended once
{ echo '57,a,1'; echo '58,b,2'; } >> "$S/big.csv" || fail "two rows through one open: exit $?"
[ "$(tail -2 "$M/big.parquet/data.csv" | tr '\n' ' ')" = "57,a,1 58,b,2 " ] &&
	ok "two writes through one >> append both rows" ||
	fail "after { ...; } >> big.csv: $(tail -3 "$M/big.parquet/data.csv" | tr '\n' ' ')"
# a descriptor kept open while each write is published (every `>&3`
# closes a dup: a close, so a publish): each row is appended once
exec 3>>"$S/big.csv"
echo '59,c,1' >&3
echo '60,d,2' >&3
exec 3>&-
[ "$(tail -4 "$M/big.parquet/data.csv" | tr '\n' ' ')" = "57,a,1 58,b,2 59,c,1 60,d,2 " ] &&
	ok "writes published one by one through a kept descriptor: each row once" ||
	fail "after exec 3>>: $(tail -5 "$M/big.parquet/data.csv" | tr '\n' ' ')"
n=$(($(wc -l < "$M/big.parquet/data.csv") - 1))
[ "$n" = 60 ] && ok "60 rows, none twice" || fail "$n rows in big.parquet, expected 60"
umount_fs "$M"

# ---- -o replace=no, then kill -9 before the close -------------------------
mount_fs "$M" -o replace=no "$SRC" || finish
echo '1,n1b' >> "$S/loop.csv" || fail "append under -o replace=no: exit $?"
[ "$(tail -1 "$M/loop.parquet/data.csv")" = "1,n1b" ] && ok "-o replace=no allows an append" ||
	fail "under replace=no: $(tail -1 "$M/loop.parquet/data.csv") $(cat "$S/loop.csv.error" 2>/dev/null)"
# a writer that holds the staged file when the daemon dies: the remount
# says it was never closed, and never takes its rows for a whole CSV
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
os.write(fd, b"9,n9\n")
time.sleep(60)' "$S/loop.csv" &
wp=$!
sleep 1
p=$(for i in "${!MNTS[@]}"; do [ "${MNTS[$i]}" = "$M" ] && echo "${PIDS[$i]}"; done)
kill -9 "$p"; wait "$p" 2>/dev/null
kill "$wp"; wait "$wp" 2>/dev/null
for i in "${!MNTS[@]}"; do [ "${MNTS[$i]}" = "$M" ] && PIDS[$i]=""; done
timeout 10 fusermount3 -uz "$M" 2>/dev/null || umount -l "$M" 2>/dev/null
cp "$SRC/loop.parquet" "$WORK/loop.killed"
mount_fs "$M" "$SRC" || finish
sleep 1
cmp -s "$SRC/loop.parquet" "$WORK/loop.killed" && ok "kill -9 with >> open: loop.parquet kept as it was" ||
	fail "the remount changed loop.parquet: $(head -3 "$M/loop.parquet/data.csv")"
error_says "$S/loop.csv.error" "never closed"
# and appending goes on after the remount
rm -f "$S/loop.csv"
echo '10,n10' >> "$S/loop.csv"
n_after=$(($(wc -l < "$M/loop.parquet/data.csv") - 1))
[ "$(tail -1 "$M/loop.parquet/data.csv")" = "10,n10" ] && ok "append after the remount" ||
	fail "append after the remount: $(tail -2 "$M/loop.parquet/data.csv")"
[ "$n_after" = 5 ] && ok "loop.parquet: 5 rows" || fail "loop.parquet: $n_after rows, expected 5"
# closed but not yet converted when the daemon died (as the store then
# holds it): the next mount appends the rows, never takes them for a CSV
umount_fs "$M"
printf '11,n11\n12,n12\n' > "$SRC/.parquetfs/staging/loop.csv"
: > "$SRC/.parquetfs/staging/loop.csv.append"
mount_fs "$M" "$SRC" || finish
for i in $(seq 100); do [ -e "$SRC/.parquetfs/staging/loop.csv" ] || break; sleep 0.2; done
n=$(($(wc -l < "$M/loop.parquet/data.csv") - 1))
[ "$n" = 7 ] && [ "$(tail -1 "$M/loop.parquet/data.csv")" = "12,n12" ] &&
	ok "recovery at mount appends a closed append's rows (7 rows)" ||
	fail "recovery of a closed append: $n rows, $(head -2 "$M/loop.parquet/data.csv" | tr '\n' ' ')"
[ -e "$SRC/.parquetfs/staging/loop.csv.append" ] && fail "the .append marker stayed after recovery"
# a marker left without its staged file (published while a dup kept it,
# then a crash) is removed at mount
umount_fs "$M"
echo 7 > "$SRC/.parquetfs/staging/gone.csv.append"
mount_fs "$M" "$SRC" || finish
for i in $(seq 50); do [ -e "$SRC/.parquetfs/staging/gone.csv.append" ] || break; sleep 0.2; done
[ -e "$SRC/.parquetfs/staging/gone.csv.append" ] && fail "a stale .append marker stayed after the mount"

# ---- another user, -o allow_other (root daemon): an append needs read -----
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	umount_fs "$M"
	NU=$(id -u nobody); NG=$(id -g nobody)
	chmod 755 "$WORK"
	chmod 777 "$SRC" # (not sticky: there only an owner may replace a file)
	cp "$SRC/loop.parquet" "$SRC/open.parquet"; chmod 666 "$SRC/open.parquet"
	cp "$SRC/loop.parquet" "$SRC/wonly.parquet"; chmod 622 "$SRC/wonly.parquet"
	mount_fs "$M" -o allow_other "$SRC" || finish
	as_user() { setpriv --reuid="$NU" --regid="$NG" --clear-groups -- "$@"; }
	as_user /bin/sh -c "echo '61,u' >> '$S/open.csv'" || fail "uid $NU appending to a 0666 file: exit $?"
	[ "$(tail -1 "$M/open.parquet/data.csv")" = "61,u" ] &&
		[ "$(stat -c '%a %u' "$SRC/open.parquet")" = "666 0" ] &&
		ok "uid $NU appends to root's 0666 file; it stays root's, 666" ||
		fail "uid $NU's append: $(tail -1 "$M/open.parquet/data.csv"), $(stat -c '%a %u' "$SRC/open.parquet")"
	cp "$SRC/wonly.parquet" "$WORK/wonly.before"
	if as_user /bin/sh -c "echo '62,u' >> '$S/wonly.csv'" 2>"$WORK/sh.err"; then
		fail "uid $NU appended to a file it may not read (0622)"
	else
		grep -q "Permission denied" "$WORK/sh.err" && ok "appending to a file one may not read: $(cat "$WORK/sh.err")" ||
			fail "appending to a 0622 file: $(cat "$WORK/sh.err")"
	fi
	cmp -s "$SRC/wonly.parquet" "$WORK/wonly.before" || fail "wonly.parquet changed"
	[ -e "$S/wonly.csv" ] && fail "a refused append stays in staging/"
else
	echo "note: not root, or no setpriv or user nobody: the second-user checks are skipped"
fi

# ---- files that cannot take rows -------------------------------------------
if [ -d "$DATA" ]; then
	cp "$DATA/nested_lists.snappy.parquet" "$SRC/nested.parquet"
	if echo '1' >> "$S/nested.csv" 2>/dev/null && [ ! -f "$S/nested.csv.error" ]; then
		fail "append to a nested file succeeded"
	fi
	error_says "$S/nested.csv.error" "cannot append" "nested.parquet" "nothing was changed"
	cmp -s "$SRC/nested.parquet" "$DATA/nested_lists.snappy.parquet" || fail "nested.parquet changed"
	cp "$DATA/encrypt_columns_and_footer.parquet.encrypted" "$SRC/enc.parquet"
	echo '1,2' >> "$S/enc.csv" 2>/dev/null
	error_says "$S/enc.csv.error" "cannot append" "encrypted" "nothing was changed"
	cmp -s "$SRC/enc.parquet" "$DATA/encrypt_columns_and_footer.parquet.encrypted" ||
		fail "enc.parquet changed"
	cp "$DATA/encrypt_columns_plaintext_footer.parquet.encrypted" "$SRC/encp.parquet"
	echo '1,2' >> "$S/encp.csv" 2>/dev/null
	error_says "$S/encp.csv.error" "cannot append" "encrypted" "nothing was changed"
else
	echo "note: no ../shared/testdata: the nested and encrypted cases are skipped"
fi
umount_fs "$M"
finish
