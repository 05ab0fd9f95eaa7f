#!/bin/bash
# Pages whose stored CRC does not match their bytes (interface.md, "The tree
# of one Parquet file"), on files made here with parquetfs-convert (which
# writes page CRCs by default) and then damaged: two bytes flipped inside one
# page body, so the page still decodes (to wrong values). No ../shared needed.
#
#   default (crc_check=on): the page's data.bin / values.txt / levels.txt, the
#   chunk's values.txt / levels.txt, the row group's and the file's data.csv,
#   data.jsonl and the column's values.txt fail with EIO (a log line says
#   why); before the page nothing damaged is served and st_size never
#   promises less than a read delivers; the chunk's error.txt names the
#   page and both CRCs; raw.bin, chunk.bin, header.txt,
#   file.parquet read as stored; verify.txt reports the mismatch; other row
#   groups and columns read as before.
#   A damaged dictionary page: its own entries and every data page of the
#   chunk that decodes through it fail; the data pages' data.bin (their own
#   bytes, whose CRCs match) still reads.
#   The same for a column's values.txt read before any other aggregate (the
#   column is then measured alone).
#   -o crc_check=off: the same entries read whole (the damaged values, size
#   = bytes read), verify.txt still reports them; the size index of the
#   first mount (shared index_dir) is not taken for this one's sizes.
#
# Exit 0 pass, 77 skip (no FUSE), 1 fail. Env: PARQUETFS, PARQUETFS_CONVERT.
set -u

WORK_NAME=pfs-crc
. "$(dirname "$0")/mount_lib.sh"
CONVERT=${PARQUETFS_CONVERT:-$top_builddir/src/parquetfs-convert}
case "$CONVERT" in /*) ;; *) CONVERT=$PWD/$CONVERT ;; esac
[ -x "$CONVERT" ] || { echo "FAIL: no parquetfs-convert at $CONVERT"; exit 1; }

SRC=$WORK/src
MNT=$WORK/mnt
IDX=$WORK/index
mkdir -p "$SRC"
python3 - "$WORK/t.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("id,name,amount\n")
    for i in range(3000):
        f.write(f"{i * 7},n{i % 10},{(i % 97) / 4}\n")
PY
# plain.parquet: PLAIN pages; dict.parquet: dictionary pages. 3 row groups.
"$CONVERT" -o codec=uncompressed,dictionary=off,row_group_rows=1000 "$WORK/t.csv" "$SRC/plain.parquet" ||
	fail "parquetfs-convert plain"
"$CONVERT" -o codec=uncompressed,row_group_rows=1000 "$WORK/t.csv" "$SRC/dict.parquet" ||
	fail "parquetfs-convert dict"
# pages.parquet: one row group, the id column in 2 pages (page 1 damaged)
"$CONVERT" -o codec=uncompressed,dictionary=off,page_size=16384 "$WORK/t.csv" "$SRC/pages.parquet" ||
	fail "parquetfs-convert pages"
cp "$SRC/plain.parquet" "$WORK/plain.orig"
cp "$SRC/dict.parquet" "$WORK/dict.orig"

# Where the bodies are: from the undamaged files' header.txt.
mount_fs "$MNT" -o index_dir=none "$SRC" || exit 1
hdr() { sed -n "s/^$2: //p" "$1/header.txt"; }
P1=row_groups/1/columns/id/pages/0
D1=row_groups/1/columns/name/dictionary
grep -q "^crc: 0x.*(matches" "$MNT/plain.parquet/$P1/header.txt" || fail "the writer stored no page CRC"
grep -q "^crc: 0x.*(matches" "$MNT/dict.parquet/$D1/header.txt" || fail "the writer stored no dictionary page CRC"
body_end() { echo $(( $(hdr "$1" file_offset) + $(hdr "$1" header_size) + $(hdr "$1" compressed_page_size) )); }
PEND=$(body_end "$MNT/plain.parquet/$P1")
DEND=$(body_end "$MNT/dict.parquet/$D1")
[ -d "$MNT/pages.parquet/row_groups/0/columns/id/pages/1" ] || fail "pages.parquet: one page"
SEND=$(body_end "$MNT/pages.parquet/row_groups/0/columns/id/pages/1")
cp "$MNT/plain.parquet/data.csv" "$WORK/plain.good.csv"
umount_fs "$MNT"

# The body's last two bytes flipped: the last value changes (the last
# dictionary entry "n9" becomes "o8"), the page still decodes.
flip() {
	python3 - "$1" "$2" <<'PY'
import sys
path, end = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(end - 2)
    b = bytearray(f.read(2))
    b[0] ^= 1; b[1] ^= 1
    f.seek(end - 2)
    f.write(b)
PY
}
flip "$SRC/plain.parquet" "$PEND"
flip "$SRC/dict.parquet" "$DEND"
flip "$SRC/pages.parquet" "$SEND"

# eio LABEL PATH: reading fails with EIO
eio() {
	local err
	if err=$(cat "$2" 2>&1 >/dev/null); then
		fail "$1: read succeeded, expected EIO"
	elif [[ $err == *"Input/output error"* ]]; then
		ok "$1: EIO"
	else
		fail "$1: expected EIO, got: $err"
	fi
}
# reads LABEL PATH: reads whole, exit 0, as many bytes as st_size
reads() {
	local n
	if ! n=$(cat "$2" 2>/dev/null | wc -c) || ! cat "$2" >/dev/null 2>&1; then
		fail "$1: read failed"
	elif [ "$n" != "$(stat -c %s "$2")" ]; then
		fail "$1: $n bytes read, st_size $(stat -c %s "$2")"
	else
		ok "$1: reads ($n bytes)"
	fi
}

# ---- crc_check on (the default) ---------------------------------------------------------

mount_fs "$MNT" -o index_dir="$IDX" "$SRC" || exit 1
F=$MNT/plain.parquet
H=$(cat "$F/$P1/header.txt")
STORED=$(sed -n 's/^crc: \(0x[0-9a-f]*\) (MISMATCH, computed \(0x[0-9a-f]*\))$/\1/p' <<<"$H")
COMPUTED=$(sed -n 's/^crc: \(0x[0-9a-f]*\) (MISMATCH, computed \(0x[0-9a-f]*\))$/\2/p' <<<"$H")
[ -n "$STORED" ] && [ -n "$COMPUTED" ] && ok "header.txt: MISMATCH $STORED / $COMPUTED" ||
	fail "header.txt shows no MISMATCH: $(grep crc: <<<"$H")"
# sizes first (the pass), then the reads
CSV_SIZE=$(stat -c %s "$F/data.csv")
LOG0=$(wc -l < "$WORK/daemon.log")
eio "plain: data.csv" "$F/data.csv"
tail -n +$((LOG0 + 1)) "$WORK/daemon.log" |
	grep -q "plain.parquet: data.csv: row group 1 .*CRC mismatch: stored $STORED, computed $COMPUTED" &&
	ok "data.csv: the log says why" || fail "data.csv: no log line names the CRC mismatch"
for e in data.jsonl columns/id/values.txt row_groups/1/data.csv row_groups/1/data.jsonl \
	row_groups/1/columns/id/values.txt row_groups/1/columns/id/levels.txt \
	$P1/data.bin $P1/values.txt $P1/levels.txt; do
	eio "plain: $e" "$F/$e"
done
ERR=$(cat "$F/row_groups/1/columns/id/error.txt" 2>&1)
[[ $ERR == *"page 0"* && $ERR == *"$STORED"* && $ERR == *"$COMPUTED"* ]] &&
	ok "error.txt: $ERR" || fail "error.txt does not name page 0, $STORED and $COMPUTED: $ERR"
[ -e "$F/row_groups/0/columns/id/error.txt" ] && fail "row group 0's id chunk shows error.txt"
[ -e "$F/row_groups/1/columns/name/error.txt" ] && fail "row group 1's name chunk shows error.txt"
# as stored
cmp -s "$F/$P1/raw.bin" <(dd if="$WORK/plain.orig" bs=1 skip=$(( $(hdr "$F/$P1" file_offset) + $(hdr "$F/$P1" header_size) )) \
	count=$(hdr "$F/$P1" compressed_page_size) status=none | python3 -c "
import sys
b = bytearray(sys.stdin.buffer.read()); b[-2] ^= 1; b[-1] ^= 1; sys.stdout.buffer.write(b)") &&
	ok "raw.bin: the damaged bytes as stored" || fail "raw.bin differs from the stored body"
cmp -s "$F/file.parquet" "$SRC/plain.parquet" && ok "file.parquet as stored" || fail "file.parquet differs"
reads "plain: chunk.bin" "$F/row_groups/1/columns/id/chunk.bin"
V=$(cat "$F/verify.txt")
grep -q "row group 1, column id, page 0: CRC mismatch: stored $STORED, computed $COMPUTED" <<<"$V" &&
	[[ $(tail -1 <<<"$V") == "FAILED: "* ]] && ok "verify.txt reports it" || fail "verify.txt: $V"
# what does not hold the page reads as before
for e in row_groups/0/data.csv row_groups/2/data.jsonl columns/name/values.txt \
	row_groups/1/columns/name/values.txt row_groups/0/columns/id/values.txt; do
	reads "plain: $e" "$F/$e"
done
# nothing damaged before the failure, and st_size never less than delivered
GOT=$(head -c "$CSV_SIZE" "$F/data.csv" 2>/dev/null | wc -c)
[ "$GOT" -le "$CSV_SIZE" ] && cmp -s <(head -c "$GOT" "$F/data.csv" 2>/dev/null) <(head -c "$GOT" "$WORK/plain.good.csv") &&
	ok "data.csv: $GOT good bytes before EIO, st_size $CSV_SIZE" ||
	fail "data.csv: $GOT bytes delivered (st_size $CSV_SIZE) differ from the undamaged file's"

G=$MNT/dict.parquet
DH=$(cat "$G/$D1/header.txt")
DSTORED=$(sed -n 's/^crc: \(0x[0-9a-f]*\) (MISMATCH, computed \(0x[0-9a-f]*\))$/\1/p' <<<"$DH")
DCOMPUTED=$(sed -n 's/^crc: \(0x[0-9a-f]*\) (MISMATCH, computed \(0x[0-9a-f]*\))$/\2/p' <<<"$DH")
[ -n "$DSTORED" ] || fail "dictionary header.txt shows no MISMATCH"
for e in data.csv data.jsonl columns/name/values.txt row_groups/1/data.csv \
	row_groups/1/columns/name/values.txt $D1/data.bin $D1/values.txt \
	row_groups/1/columns/name/pages/0/values.txt row_groups/1/columns/name/pages/0/levels.txt; do
	eio "dict: $e" "$G/$e"
done
ERR=$(cat "$G/row_groups/1/columns/name/error.txt" 2>&1)
[[ $ERR == *"dictionary page"* && $ERR == *"$DSTORED"* && $ERR == *"$DCOMPUTED"* ]] &&
	ok "dict error.txt: $ERR" || fail "dict error.txt does not name the dictionary page and both CRCs: $ERR"
reads "dict: data page data.bin (its own CRC matches)" "$G/row_groups/1/columns/name/pages/0/data.bin"
reads "dict: raw.bin" "$G/$D1/raw.bin"
reads "dict: columns/id/values.txt" "$G/columns/id/values.txt"
reads "dict: row_groups/2/data.csv" "$G/row_groups/2/data.csv"
grep -q "dictionary page: CRC mismatch" "$G/verify.txt" && ok "dict: verify.txt reports it" ||
	fail "dict verify.txt: $(cat "$G/verify.txt")"
cp "$F/verify.txt" "$WORK/verify.on"
umount_fs "$MNT"

# ---- a column's values.txt asked for first (measured alone, no whole pass) ---------------

mount_fs "$MNT" -o index_dir=none "$SRC" || exit 1
# the chunk's first page is good: its text must not pass for the column's
eio "first access: pages: columns/id/values.txt" "$MNT/pages.parquet/columns/id/values.txt"
eio "first access: plain: columns/id/values.txt" "$F/columns/id/values.txt"
eio "first access: dict: columns/name/values.txt" "$G/columns/name/values.txt"
reads "first access: plain: columns/name/values.txt" "$F/columns/name/values.txt"
umount_fs "$MNT"

# ---- crc_check=off: served as decoded -----------------------------------------------------

mount_fs "$MNT" -o index_dir="$IDX",crc_check=off "$SRC" || exit 1
for e in data.csv data.jsonl columns/id/values.txt row_groups/1/data.csv \
	row_groups/1/columns/id/values.txt $P1/data.bin $P1/values.txt $P1/levels.txt; do
	reads "off: plain: $e" "$F/$e"
done
cmp -s "$F/data.csv" "$WORK/plain.good.csv" && fail "off: data.csv shows no damaged value" ||
	ok "off: data.csv holds the damaged values"
[ -e "$F/row_groups/1/columns/id/error.txt" ] && fail "off: the chunk shows error.txt"
for e in data.csv columns/name/values.txt $D1/values.txt row_groups/1/columns/name/pages/0/values.txt; do
	reads "off: dict: $e" "$G/$e"
done
grep -qx "o8" "$G/$D1/values.txt" && ok "off: the damaged dictionary entry" ||
	fail "off: dictionary values: $(cat "$G/$D1/values.txt" | tr '\n' ' ')"
cmp -s "$F/verify.txt" "$WORK/verify.on" && ok "off: verify.txt as with crc_check on" ||
	fail "off: verify.txt differs: $(cat "$F/verify.txt")"
umount_fs "$MNT"

# ---- a bad value ------------------------------------------------------------------------------
if timeout 20 "$BIN" -f -o crc_check=maybe "$SRC" "$MNT" 2>"$WORK/bad.err"; then
	fail "crc_check=maybe mounted"
	umount_fs "$MNT"
else
	grep -q "crc_check=maybe" "$WORK/bad.err" && ok "crc_check=maybe refused: $(cat "$WORK/bad.err")" ||
		fail "crc_check=maybe: $(cat "$WORK/bad.err")"
fi
finish
