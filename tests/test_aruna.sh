#!/bin/bash
# ARUNA containers in the mount (interface.md, "ARUNA containers"), with
# containers made by tests/aruna.py, an implementation written from the
# contract alone: every size boundary reads back byte for byte through
# file.parquet; a three-chunk Parquet container shows the same tree as its
# plain file; every broken kind of the contract is refused as the contract
# says (the whole file, or the reads of one chunk); no key gives EACCES;
# the rest of the mount is unaffected. Containers parquetfs-convert writes
# decode with aruna.py (when it can write them). With ../shared/testdata,
# the shared containers are checked too; without, that part is skipped.
#
# Exit 0 pass, 77 skip (no /dev/fuse, fusermount3, python3-cryptography or
# zstd), 1 fail. Every mount is unmounted on exit.
set -u

WORK_NAME=pfs-aruna
. "$(dirname "$0")/mount_lib.sh"
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography not installed (scripts/bootstrap)"
command -v zstd >/dev/null || skip "the zstd tool is not installed (scripts/bootstrap)"
ARUNA="python3 $top_srcdir/tests/aruna.py"
PQWRITE=$top_builddir/tests/pqwrite
CONV=$top_builddir/src/parquetfs-convert

errno_of() {
	python3 - "$1" <<'PY'
import errno, sys
try:
    open(sys.argv[1], "rb").read()
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
PY
}
# errno_at PATH OFFSET: reading 4 KiB there
errno_at() {
	python3 - "$1" "$2" <<'PY'
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDONLY)
    os.pread(fd, 4096, int(sys.argv[2]))
    print("ok")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
PY
}

K=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
S=$WORK/src; P=$WORK/plain; M=$WORK/mnt
mkdir -p "$S/sizes" "$S/bad" "$S/nokey" "$P"
# nokey/ has none: the key is given only in sections
printf '[*]\ncontainer: %s\n[sizes/*]\ncontainer: %s\n[bad/*]\ncontainer: %s\n' "$K" "$K" "$K" > "$WORK/keys"
chmod 600 "$WORK/keys"

# ---- size boundaries (plaintext need not be Parquet: file.parquet is served)
MIB=5242880
SIZES="0 1 65535 65536 65537 $((MIB - 1)) $MIB $((MIB + 1)) $((2 * MIB + 12345))"
$ARUNA sizes $K "$P" || fail "aruna.py sizes (its own round trip)"
for n in $SIZES; do mv "$P/s$n.parquet.aruna" "$S/sizes/" || fail "aruna.py sizes: no s$n"; done
"$PQWRITE" "$P/three.parquet" rows=150000 rg_rows=50000 codec=uncompressed dict=off >/dev/null ||
	fail "pqwrite three"
$ARUNA seal $K "$P/three.parquet" "$S/three.parquet.aruna" || fail "seal three"
cp "$P/three.parquet" "$S/plain.parquet"
"$PQWRITE" "$P/small.parquet" rows=2000 >/dev/null || fail "pqwrite small"
$ARUNA seal $K "$P/small.parquet" "$S/Small.PARQUET.ARUNA" || fail "seal small"
cp "$S/Small.PARQUET.ARUNA" "$S/nokey/small.parquet.aruna"
# ---- every broken kind, of the three-chunk file
$ARUNA broken all $K "$P/three.parquet" "$S/bad" --nonce-seed 1 || fail "aruna.py broken all"
# and a damaged block in chunk 0 (one byte of block 0's ciphertext flipped)
python3 - "$S/three.parquet.aruna" "$S/bad/chunk0_damaged.parquet.aruna" <<'PY'
import sys
c = bytearray(open(sys.argv[1], "rb").read())
c[1000] ^= 0x40
open(sys.argv[2], "wb").write(c)
PY

mount_fs "$M" -o "key_file=$WORK/keys" "$S" || exit 1
bad=0
for n in $SIZES; do
	same "$M/sizes/s$n.parquet.aruna/file.parquet" "$P/s$n" || { bad=1; fail "$n bytes: file.parquet differs"; }
	[ "$(stat -c %s "$M/sizes/s$n.parquet.aruna/file.parquet")" = "$n" ] || { bad=1; fail "$n bytes: st_size"; }
done
[ $bad = 0 ] && ok "every size boundary reads back byte for byte (0, 1, 64 KiB ± 1, 5 MiB ± 1, 3 chunks)"

T=$M/three.parquet.aruna
same "$T/file.parquet" "$P/three.parquet" && ok "three chunks: file.parquet is the plain file" ||
	fail "three chunks: file.parquet differs"
grep -qx "container: aruna, 3 chunks, [0-9]* blocks, index: footer" "$T/metadata.txt" &&
	grep -qx "container: aruna, 1 chunks, [0-9]* blocks, index: none (read whole)" "$M/Small.PARQUET.ARUNA/metadata.txt" &&
	[ "$(grep '^container:' "$T/metadata.txt")" = "$($ARUNA info $K "$S/three.parquet.aruna")" ] &&
	ok "metadata.txt has the container line (footer / none), as aruna.py counts" || fail "metadata.txt: $(grep container "$T/metadata.txt")"
diff <(grep -v '^container:\|^file:' "$T/metadata.txt") <(grep -v '^file:' "$M/plain.parquet/metadata.txt") >/dev/null &&
	same "$T/data.csv" "$M/plain.parquet/data.csv" && same "$T/row_groups/2/data.jsonl" "$M/plain.parquet/row_groups/2/data.jsonl" &&
	diff <(cd "$T" && find . | sort) <(cd "$M/plain.parquet" && find . | sort) >/dev/null &&
	ok "three chunks: the same tree, metadata and rows as the plain file" || fail "three chunks: tree differs from the plain file"
tail -1 "$T/verify.txt" | grep -qx OK && grep -q "^container: checked [0-9]* blocks (footer: ok), 3 chunks" "$T/verify.txt" &&
	ok "verify.txt checks the blocks and chunks: OK" || fail "verify.txt: $(head -3 "$T/verify.txt")"

# ---- refused as a whole: error.txt names the cause, file.parquet EIO
whole() { # kind pattern
	local d=$M/bad/$1.parquet.aruna
	if grep -q -- "$2" "$d/error.txt" 2>/dev/null && [ "$(errno_of "$d/file.parquet")" = EIO ] &&
		[ ! -e "$d/data.csv" ]; then
		ok "$1: refused as a whole ($(cut -c1-90 "$d/error.txt"))"
	else
		fail "$1: expected error.txt with '$2' and EIO: $(cat "$d/error.txt" 2>&1 | head -c 200)"
	fi
}
whole wrong_key "block [0-9]* (byte [0-9]*) failed authentication: wrong container key or damaged file"
whole footer_auth "failed authentication"
whole cut_mid_block "failed authentication"
whole cut_footer "footer missing"
whole footer_total "Block_Total"
whole footer_list_sum "Block_List adds up to"
whole second_frame "footer missing"
whole padding_no_footer "footer missing"

# ---- one chunk refused (chunk 1; chunk 0 below; the last holds the Parquet
# footer): its reads fail, the others read, verify.txt fails
# (verify.txt, a whole size pass, for two of them: CI time)
chunk1() { # kind [verify]
	local d=$M/bad/$1.parquet.aruna
	if [ -e "$d/schema.txt" ] && [ "$(errno_at "$d/file.parquet" $((MIB + 100)))" = EIO ] &&
		[ "$(errno_at "$d/file.parquet" 100)" = ok ] &&
		[ "$(errno_at "$d/file.parquet" $((2 * MIB + 100)))" = ok ] &&
		{ [ -z "${2:-}" ] || { tail -1 "$d/verify.txt" 2>/dev/null | grep -q "^FAILED" &&
			grep -q "^container: chunk 1\( (blocks [0-9-]*)\)\?[: ]" "$d/verify.txt"; }; }; then
		ok "$1: chunk 1's reads fail with EIO, chunks 0 and 2 read${2:+; verify.txt: $(grep -m1 '^container: chunk 1' "$d/verify.txt" | cut -c1-100)}"
	else
		fail "$1: expected chunk 1 EIO, chunks 0, 2 ok${2:+, verify FAILED}: $(head -c 300 "$d/verify.txt" 2>&1; cat "$d/error.txt" 2>&1)"
	fi
}
chunk1 damaged_block verify
chunk1 chunk_two_frames
chunk1 chunk_short
chunk1 blocks_swapped verify
# chunk 0 damaged: the file opens (the footer is in the last chunk; the leading
# magic is checked by the first chunk's read, not at open), chunk 0's reads
# fail with EIO, the others read
d=$M/bad/chunk0_damaged.parquet.aruna
if [ -e "$d/schema.txt" ] && [ ! -e "$d/error.txt" ] && [ "$(errno_at "$d/file.parquet" 100)" = EIO ] &&
	[ "$(errno_at "$d/file.parquet" $((2 * MIB + 100)))" = ok ] && [ "$(errno_of "$d/row_groups/0/data.csv")" = EIO ]; then
	ok "chunk 0 damaged: the file opens, chunk 0's reads fail with EIO, chunk 2 reads"
else
	fail "chunk 0 damaged: want schema.txt, chunk 0 EIO, chunk 2 ok: $(cat "$d/error.txt" 2>&1 | head -c 300)"
fi

# ---- no key: error.txt names it, file.parquet EACCES; the rest unaffected
grep -q "container:" "$M/nokey/small.parquet.aruna/error.txt" &&
	[ "$(errno_of "$M/nokey/small.parquet.aruna/file.parquet")" = EACCES ] &&
	ok "no container: key: error.txt names it, file.parquet EACCES" ||
	fail "no key: $(cat "$M/nokey/small.parquet.aruna/error.txt" 2>&1)"
same "$M/plain.parquet/file.parquet" "$P/three.parquet" && ok "a plain file beside them is unaffected" ||
	fail "the plain file differs"
umount_fs "$M"

# ---- containers parquetfs writes decode with aruna.py
if "$CONV" -o "container=aruna,key_file=$WORK/keys" "$P/three.parquet" "$WORK/conv.parquet.aruna" 2>"$WORK/conv.log"; then
	$ARUNA open $K "$WORK/conv.parquet.aruna" "$WORK/conv.out" && cmp -s "$WORK/conv.out" "$P/three.parquet" &&
		ok "parquetfs-convert's container decodes with aruna.py to the same bytes" ||
		fail "parquetfs-convert's container does not decode with aruna.py"
else
	fail "parquetfs-convert -o container=aruna: $(head -c 300 "$WORK/conv.log")"
fi

# CSV through parquetfs-convert into a container (encrypted inside too):
# aruna.py decodes it, DuckDB reads the rows back identical
python3 -c "
print('id,name,score')
for i in range(3000): print(f'{i},n{i % 97},{(i * 37) % 1000 - 500}')" > "$P/in.csv"
printf '[*]\nkey kf: "0123456789abcdef"\n' >> "$WORK/keys"
if "$CONV" -o "container=aruna,key_file=$WORK/keys" "$P/in.csv" "$WORK/csv.parquet.aruna" 2>"$WORK/conv.log" &&
	"$CONV" -o "container=aruna,key_file=$WORK/keys,encrypt=kf" "$P/in.csv" "$WORK/enc.parquet.aruna" 2>>"$WORK/conv.log" &&
	$ARUNA open $K "$WORK/csv.parquet.aruna" "$WORK/csv.parquet" && $ARUNA open $K "$WORK/enc.parquet.aruna" "$WORK/enc.parquet" &&
	[ "$(head -c 4 "$WORK/enc.parquet")" = PARE ]; then
	ok "CSV to container (and with encrypt=) by parquetfs-convert: aruna.py decodes them"
	DUCK=$top_srcdir/scripts/duckdb-sql
	if timeout 300 "$DUCK" "SELECT 1" >/dev/null 2>&1; then
		timeout 300 "$DUCK" "COPY (SELECT * FROM read_parquet('$WORK/csv.parquet')) TO '$WORK/duck.csv' (HEADER)" \
			>/dev/null 2>"$WORK/duck.log" && cmp -s "$WORK/duck.csv" "$P/in.csv" &&
			ok "DuckDB reads the decoded container's rows identical to the CSV" ||
			fail "DuckDB: $(tail -c 300 "$WORK/duck.log")"
	else
		echo "skip: DuckDB (scripts/duckdb-sql) cannot run here"
	fi
	# staging/ with container=aruna: CSV and .parquet sealed, a container
	# checked then published byte for byte, a broken one refused (EINVAL),
	# no key for the target: EACCES
	C2=$WORK/c2; mkdir -p "$C2/nokey"
	cp "$WORK/enc.parquet.aruna" "$C2/"
	mount_fs "$M" -o "key_file=$WORK/keys,container=aruna" "$C2" || exit 1
	same "$M/enc.parquet.aruna/data.csv" "$P/in.csv" && grep -q "^container: aruna" "$M/enc.parquet.aruna/metadata.txt" &&
		ok "Parquet modular encryption inside a container reads back in the mount" ||
		fail "encrypted inside a container: $(cat "$M/enc.parquet.aruna/error.txt" 2>&1 | head -c 200)"
	cp "$P/in.csv" "$M/staging/st.csv" && cp "$P/small.parquet" "$M/staging/sp.parquet" &&
		$ARUNA open $K "$C2/st.parquet.aruna" "$WORK/st.out" && $ARUNA open $K "$C2/sp.parquet.aruna" "$WORK/sp.out" &&
		cmp -s "$WORK/sp.out" "$P/small.parquet" && same "$M/st.parquet.aruna/data.csv" "$P/in.csv" &&
		ok "staging/ with container=aruna: CSV and .parquet published as containers aruna.py decodes" ||
		fail "staging container=aruna: $(cat "$M"/staging/*.error 2>&1 | head -c 300)"
	cp "$S/three.parquet.aruna" "$M/staging/copied.parquet.aruna" && cmp -s "$C2/copied.parquet.aruna" "$S/three.parquet.aruna" &&
		ok "a .parquet.aruna copied into staging/ is published byte for byte" || fail "staged container not published as is"
	if cp "$S/bad/blocks_swapped.parquet.aruna" "$M/staging/broken.parquet.aruna" 2>"$WORK/cp.err"; then
		fail "a broken container was published"
	else
		grep -q "Invalid argument" "$WORK/cp.err" && [ ! -e "$C2/broken.parquet.aruna" ] &&
			grep -q "chunk 1" "$M/staging/broken.parquet.aruna.error" &&
			ok "a broken container copied into staging/: EINVAL, .error names chunk 1, nothing published" ||
			fail "broken container: $(cat "$WORK/cp.err") $(cat "$M/staging/broken.parquet.aruna.error" 2>&1)"
	fi
	mkdir -p "$M/staging/nokey" 2>/dev/null
	if cp "$P/in.csv" "$M/staging/nokey/x.csv" 2>"$WORK/cp.err"; then
		fail "published without a container key"
	else
		grep -q "Permission denied" "$WORK/cp.err" && [ ! -e "$C2/nokey/x.parquet.aruna" ] &&
			ok "no container: key for the target: close() fails with EACCES, nothing published" ||
			fail "no key in staging: $(cat "$WORK/cp.err")"
	fi
	umount_fs "$M"
else
	fail "parquetfs-convert CSV to container: $(head -c 300 "$WORK/conv.log")"
fi

# ---- the shared containers (made by another implementation)
A=$TD/aruna
if [ -f "$A/keyfile" ]; then
	cp "$A/keyfile" "$WORK/skeys" && chmod 600 "$WORK/skeys"
	mount_fs "$M" -o "key_file=$WORK/skeys" "$A" || exit 1
	for f in hyparquet_mixed big_zstd; do
		same "$M/$f.parquet.aruna/file.parquet" "$A/plain/$f.parquet" &&
			same "$M/$f.parquet.aruna/data.csv" "$M/plain/$f.parquet/data.csv" &&
			ok "shared $f: the same bytes and rows as its plain file" || fail "shared $f differs"
	done
	grep -q "block 0 (byte 0) failed authentication" "$M/bad/wrong_key.parquet.aruna/error.txt" &&
		grep -q "block 16" "$M/bad/truncated_mid_block.parquet.aruna/error.txt" &&
		grep -q "Block_List adds up to 20 blocks" "$M/bad/footer_list_sum.parquet.aruna/error.txt" &&
		ok "shared broken containers: refused, naming block or footer" || fail "shared broken containers"
	umount_fs "$M"
else
	echo "skip: shared containers ($A not present)"
fi

finish
