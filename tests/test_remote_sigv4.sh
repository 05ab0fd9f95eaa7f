#!/bin/bash
# AWS Signature Version 4 of the S3 backend, checked by tests/s3proxy.py (its
# own SigV4 code, which checks itself against AWS's published example at
# start) in front of s3rver:
#
#   a wrong secret, an unknown access key, a wrong region, a wrong bucket, a
#   closed endpoint and an unsigned mount of a private bucket each fail the
#   mount with one line naming the cause, and no secret is ever printed;
#   the right credentials pass for every request the daemon makes: LIST,
#   GET, HEAD (if any), PUT (staging) and a multipart upload (a .parquet
#   above 8 MiB copied into staging/), whose object is the file's bytes.
#
# Exit 0 pass, 77 skip (no FUSE, no s3rver/npm, a parquetfs without remote
# sources), 1 fail.
set -u

WORK_NAME=pfs-remote-sigv4
. "$(dirname "$0")/mount_lib.sh"
. "$(dirname "$0")/remote_lib.sh"
remote_need_support
PQWRITE=$top_builddir/tests/pqwrite
[ -x "$PQWRITE" ] || { echo "FAIL: no tests/pqwrite in $top_builddir"; exit 1; }
s3_start
UMOUNT_SETTLE=0.3
mkdir -p "$S3_DIR/bkt"
"$PQWRITE" "$WORK/t.parquet" rows=2000 rg_rows=1000 >/dev/null || { echo "FAIL: pqwrite"; exit 1; }
s3_seed bkt d/t.parquet "$WORK/t.parquet"
M=$WORK/mnt

# ---- refused mounts
secret=wrongSECRETnotS3RVER0123456789
AWS_SECRET_ACCESS_KEY=$secret mount_must_fail "wrong secret" "$M" -o endpoint="$S3_ENDPOINT" s3://bkt/d &&
	says "wrong secret" SignatureDoesNotMatch
AWS_ACCESS_KEY_ID=AKIDUNKNOWN mount_must_fail "unknown key" "$M" -o endpoint="$S3_ENDPOINT" s3://bkt/d &&
	says "unknown key" InvalidAccessKeyId
mount_must_fail "wrong region" "$M" -o endpoint="$S3_ENDPOINT" -o region=eu-west-3 s3://bkt/d &&
	says "wrong region" AuthorizationHeaderMalformed
mount_must_fail "wrong bucket" "$M" -o endpoint="$S3_ENDPOINT" s3://nosuchbucket/d &&
	says "wrong bucket" NoSuchBucket
closed=http://127.0.0.1:$(free_ports 1)
mount_must_fail "closed endpoint" "$M" -o endpoint="$closed" -o retries=0 s3://bkt/d &&
	says "closed endpoint" "127.0.0.1"
mount_must_fail "unsigned, private bucket" "$M" -o endpoint="$S3_ENDPOINT" -o no_sign s3://bkt/d &&
	says "unsigned, private bucket" AccessDenied
grep -q "$secret" "$WORK/daemon.log" && fail "the secret appears on the daemon's stderr"
read -r bad _ < <(s3_count "" . )
echo "requests of the refused mounts: $bad"

# ---- the right credentials: no request refused
s3_reset
mount_fs "$M" -o endpoint="$S3_ENDPOINT" -o index_dir=none s3://bkt/d || finish
[ "$(ls "$M")" = "$(printf 'staging\nt.parquet')" ] || fail "ls: $(ls "$M" | tr '\n' ' ')"
cmp -s "$M/t.parquet/file.parquet" "$WORK/t.parquet" && ok "GET: file.parquet byte-exact" || fail "file.parquet differs"
{ echo "a,b"; for i in $(seq 1 100); do echo "$i,x$i"; done; } >"$WORK/s.csv"
cp "$WORK/s.csv" "$M/staging/s.csv" && [ -f "$S3_DIR/bkt/d/s.parquet._S3rver_object" ] && ok "PUT: staged s.parquet uploaded" ||
	fail "staging of s.csv: no object d/s.parquet"
# above the multipart part size (8 MiB): pass-through of a .parquet
"$PQWRITE" "$WORK/big.parquet" rows=150000 rg_rows=50000 codec=uncompressed >/dev/null
big=$(stat -c %s "$WORK/big.parquet")
if cp "$WORK/big.parquet" "$M/staging/big.parquet"; then
	obj=$S3_DIR/bkt/d/big.parquet._S3rver_object
	[ -f "$obj" ] && cmp -s "$obj" "$WORK/big.parquet" && ok "multipart: big.parquet ($big bytes) uploaded byte for byte" ||
		fail "multipart: the object d/big.parquet is missing or differs from the file"
else
	fail "cp of big.parquet ($big bytes) into staging/ failed"
fi
umount_fs "$M"
for k in LIST GET HEAD PUT PART POST; do
	read -r n _ < <(s3_count $k)
	read -r r _ < <(s3_ctl GET "count?kind=$k&status=403")
	read -r r4 _ < <(s3_ctl GET "count?kind=$k&status=400")
	echo "requests: $k: $n ($r refused with 403, $r4 with 400)"
	[ "$r" = 0 ] && [ "$r4" = 0 ] || fail "$k: $r + $r4 correctly signed requests refused: $(s3_log | grep " 40[03] " | head -3)"
	case $k in HEAD) ;; *) [ "$n" -gt 0 ] || fail "no $k request was made (nothing checked its signature)" ;; esac
done
# the proxy's own check: curl's SigV4 signer against it (HEAD, sorted query)
s3_curl bkt/d/t.parquet -I -o /dev/null -w '%{http_code}' | grep -q 200 || fail "the proxy refuses curl's signed HEAD"
finish
