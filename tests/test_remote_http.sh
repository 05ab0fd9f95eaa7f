#!/bin/bash
# HTTP(S) sources against nginx (Debian) on 127.0.0.1:
#
#   http:// and https:// (a CA made here with openssl, -o ca_file=) mounts of
#   one file show what a local mount of the file shows, byte for byte
#   (file.parquet, data.csv, metadata.txt, random reads); refused at mount
#   with one line: a server that ignores Range (max_ranges 0), a 404, an
#   untrusted certificate (no ca_file), no libcurl to load (a local mount
#   never loads it: checked in /proc/PID/maps). With ../shared, one conformance
#   file through https:// gives 0 failures (check-mount.sh --strict).
#
# Exit 0 pass, 77 skip (no FUSE, no nginx/openssl, a parquetfs without
# remote sources), 1 fail.
set -u

WORK_NAME=pfs-remote-http
. "$(dirname "$0")/mount_lib.sh"
. "$(dirname "$0")/remote_lib.sh"
remote_need_support
PQWRITE=$top_builddir/tests/pqwrite
[ -x "$PQWRITE" ] || { echo "FAIL: no tests/pqwrite in $top_builddir"; exit 1; }
WWW=$WORK/www
mkdir -p "$WWW"
"$PQWRITE" "$WWW/t.parquet" rows=12000 rg_rows=4000 >/dev/null || { echo "FAIL: pqwrite"; exit 1; }
CONF=datapage_v2.snappy.parquet
[ -f "$DATA/$CONF" ] && cp "$DATA/$CONF" "$WWW/"
nginx_start "$WWW"
LM=$WORK/lmnt
mount_fs "$LM" -o index_dir=none "$WWW/t.parquet" || finish

compare() { # WHAT MNT: the mount shows t.parquet as the local mount does
	local what=$1 m=$2 e
	cmp -s "$m/file.parquet" "$WWW/t.parquet" && ok "$what: file.parquet byte-exact" || fail "$what: file.parquet differs"
	for e in metadata.txt data.csv row_groups/1/columns/s/values.txt; do
		same "$m/$e" "$LM/$e" || fail "$what: $e differs"
	done
	local sz off
	sz=$(stat -c %s "$LM/data.csv")
	for off in 1 $((sz / 2)) $((sz - 100)); do
		cmp -s <(tail -c +$off "$m/data.csv" | head -c 3000) <(tail -c +$off "$LM/data.csv" | head -c 3000) ||
			fail "$what: data.csv from byte $off differs"
	done
	ok "$what: metadata.txt, data.csv, values.txt, random reads"
}

# libcurl is loaded when a remote source opens, never for a local mount
# (its ~25 libraries cost a cold daemon start 20-80 ms: fs/curl_api.h)
maps_curl() { grep -c 'libcurl' "/proc/${PIDS[-1]}/maps"; }
[ "$(maps_curl)" = 0 ] && ok "a local mount has not loaded libcurl" ||
	fail "a local mount loaded libcurl ($(maps_curl) mappings)"
M=$WORK/mnt
mount_fs "$M" -o index_dir=none "$NGX_HTTP/t.parquet" && {
	[ "$(maps_curl)" -gt 0 ] && ok "an http:// mount loaded libcurl" || fail "an http:// mount shows no libcurl"
	compare "http://" "$M"; umount_fs "$M"; }
mount_fs "$M" -o index_dir=none -o ca_file="$NGX_CA" "$NGX_HTTPS/t.parquet" && { compare "https://" "$M"; umount_fs "$M"; }
read -r n206 < <(grep -c '" 206 ' "$WORK/nginx/logs/access.log")
read -r n200 < <(grep -c '"GET [^"]*" 200 ' "$WORK/nginx/logs/access.log")
echo "requests: nginx served $n206 range GETs and $n200 whole-file GETs"
[ "$n200" = 0 ] || fail "$n200 GETs without Range (a whole-file download)"

mount_must_fail "server ignoring Range" "$M" "$NGX_NORANGE/t.parquet" && says "server ignoring Range" range
mount_must_fail "404" "$M" "$NGX_HTTP/nothere.parquet" && says "404" 404
mount_must_fail "untrusted certificate" "$M" -o retries=0 "$NGX_HTTPS/t.parquet" && says "untrusted certificate" certificate
PARQUETFS_TEST_CURL=libcurl-not-here.so.4 mount_must_fail "no libcurl" "$M" "$NGX_HTTP/t.parquet" &&
	says "no libcurl" libcurl libcurl4 libcurl-not-here

CHECK=$top_srcdir/../shared/tools/check-mount.sh
if [ -x "$CHECK" ] && [ -f "$WWW/$CONF" ] && [ -d "$TD/expected/data/$CONF" ]; then
	W=$WORK/pfs-https
	cat >"$W" <<-EOF
	#!/bin/bash
	# check-mount.sh calls BIN -f [-o key_file=K] SOURCE MNT: SOURCE -> the URL
	a=()
	for x in "\$@"; do [ "\$x" = "$DATA/$CONF" ] && x=$NGX_HTTPS/$CONF; a+=("\$x"); done
	exec "$BIN" -o ca_file=$NGX_CA -o index_dir=none "\${a[@]}"
	EOF
	chmod +x "$W"
	out=$(CHECK_BUDGET_S=120 "$CHECK" "$W" --strict "$DATA/$CONF" "$TD/expected/data/$CONF" "" 2>&1)
	last=$(echo "$out" | tail -1)
	[[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]] && ok "conformance of $CONF through https://: $last" ||
		{ fail "conformance of $CONF through https://: $last"; echo "$out" | grep '^FAIL' | head -10; }
else
	echo "note: ../shared missing: no conformance file through https://"
fi
finish
