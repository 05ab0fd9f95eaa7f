# Real servers for the remote tests (test_remote_*.sh, scripts/bench remote);
# sourced after tests/mount_lib.sh (which sets WORK, BIN, skip, fail, ok).
#   s3_start [s3proxy args]   s3rver (npm, cached in ~/.cache/parquetfs/s3rver)
#                             behind tests/s3proxy.py (SigV4 checks, counts,
#                             faults); sets S3_ENDPOINT (the proxy), S3_DIRECT
#                             (s3rver itself), S3_DIR (s3rver's store)
#   s3_seed BUCKET KEY FILE   puts an object straight into s3rver's store
#   s3_count KIND [KEYRE]     "N BYTES" of requests the proxy forwarded
#   s3_reset / s3_fault QUERY / s3_clear     the proxy's stats and faults
#   s3_curl ARGS              curl signed with SigV4 (curl's own signer)
#   nginx_start ROOT          nginx (Debian) serving ROOT: NGX_HTTP, NGX_HTTPS
#                             (certificate of a CA made here: NGX_CA), NGX_NORANGE
#                             (a server with max_ranges 0: ignores Range)
#   remote_need_support       skips (77) when the daemon has no remote sources
# Every server runs on 127.0.0.1 with a random port and is stopped on exit.
# Skips (77) when node/npm cannot give s3rver, or nginx/openssl are missing.

REMOTE_PIDS=()
# pyenv's shim costs seconds per start on a loaded machine: the system one
PY=$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3)
S3_BUCKET_KEY=S3RVER S3_SECRET=S3RVER S3_REGION=us-east-1
remote_stop() {
	local p
	for p in "${REMOTE_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${REMOTE_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	REMOTE_PIDS=()
	case ${S3_DIR:-} in /dev/shm/pfs-s3store.*) rm -rf "$S3_DIR" ;; esac
}
# unmount first (the daemons may still talk to the servers), then stop them
trap 'cleanup; remote_stop' EXIT

# The daemon's environment: only these credentials, no profile files.
export AWS_ACCESS_KEY_ID=$S3_BUCKET_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET AWS_REGION=$S3_REGION
export AWS_SHARED_CREDENTIALS_FILE=$WORK/no-credentials AWS_CONFIG_FILE=$WORK/no-config
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_DEFAULT_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3

# wait_file FILE [TENTHS]: until FILE is non-empty
wait_file() {
	local i
	for i in $(seq "${2:-100}"); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

s3rver_js() {
	local cache=${PARQUETFS_S3RVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquetfs/s3rver}
	if [ ! -f "$cache/node_modules/s3rver/package.json" ]; then
		command -v npm >/dev/null || skip "s3rver needs node and npm (apt-get install nodejs npm)"
		mkdir -p "$cache"
		(cd "$cache" && npm init -y >/dev/null 2>&1 &&
			timeout 300 npm install --silent --no-audit --no-fund s3rver@3 >/dev/null 2>&1) ||
			skip "npm install s3rver failed (no npm registry?)"
	fi
	S3RVER_MODULE=$cache/node_modules/s3rver
}

s3_start() {
	command -v node >/dev/null || skip "s3rver needs node"
	command -v curl >/dev/null || skip "curl not installed"
	s3rver_js
	# on tmpfs when there is one: deleting thousands of objects from a busy
	# disk took a minute here
	S3_DIR=$(mktemp -d /dev/shm/pfs-s3store.XXXXXX 2>/dev/null || mktemp -d "$WORK/s3store.XXXXXX")
	# DES (s3rver's continuation tokens) is in OpenSSL 3's legacy provider
	S3RVER_MODULE=$S3RVER_MODULE node --openssl-legacy-provider -e '
const S3rver = require(process.env.S3RVER_MODULE);
const fs = require("fs");
new S3rver({ address: "127.0.0.1", port: 0, directory: process.argv[1], silent: true })
  .run().then(a => fs.writeFileSync(process.argv[2], String(a.port) + "\n"));
' "$S3_DIR" "$WORK/s3rver.port" >"$WORK/s3rver.log" 2>&1 &
	REMOTE_PIDS+=($!)
	wait_file "$WORK/s3rver.port" || { fail "s3rver did not start: $(tail -3 "$WORK/s3rver.log")"; finish; }
	S3_DIRECT=http://127.0.0.1:$(cat "$WORK/s3rver.port")
	"$PY" "$top_srcdir/tests/s3proxy.py" --upstream "${S3_DIRECT#http://}" \
		--port-file "$WORK/proxy.port" --access-key "$S3_BUCKET_KEY" --secret "$S3_SECRET" \
		--region "$S3_REGION" "$@" >"$WORK/proxy.log" 2>&1 &
	REMOTE_PIDS+=($!)
	wait_file "$WORK/proxy.port" || { fail "s3proxy did not start: $(tail -3 "$WORK/proxy.log")"; finish; }
	S3_ENDPOINT=http://127.0.0.1:$(cat "$WORK/proxy.port")
}

# s3_seed BUCKET KEY FILE: the object as s3rver stores it (its ETag = MD5).
# S3_SEED_LINK=1 links instead of copying (benchmarks' big files).
s3_seed() {
	local obj=$S3_DIR/$1/$2._S3rver_object
	mkdir -p "$(dirname "$obj")"
	if [ -n "${S3_SEED_LINK:-}" ]; then ln -sf "$(realpath "$3")" "$obj"; else cp "$3" "$obj"; fi
	md5sum <"$3" | cut -c1-32 | tr -d '\n' >"$obj.md5"
}

# s3_seed_many BUCKET PREFIX N FILE: N copies PREFIX/f00000.parquet ... (fast)
s3_seed_many() {
	"$PY" - "$S3_DIR/$1/$2" "$3" "$4" <<-'EOF'
	import hashlib, os, sys
	d, n, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	os.makedirs(d, exist_ok=True)
	data = open(src, "rb").read()
	md5 = hashlib.md5(data).hexdigest()
	for i in range(n):
	    p = os.path.join(d, "f%05d.parquet._S3rver_object" % i)
	    open(p, "wb").write(data)
	    open(p + ".md5", "w").write(md5)
	EOF
}

s3_ctl() { curl -sS --max-time 30 -X "$1" "$S3_ENDPOINT/__proxy__/$2"; }
s3_count() { s3_ctl GET "count?kind=$1&key=${2:-.}"; }
s3_reset() { s3_ctl POST reset >/dev/null; }
s3_fault() { s3_ctl POST "fault?$1" >/dev/null; }
s3_clear() { s3_ctl POST clear >/dev/null; }
s3_log() { s3_ctl GET log; }
# s3_curl URL-PATH [curl args]: a request signed by curl's own SigV4 code
s3_curl() {
	local p=$1; shift
	curl -sS --max-time 60 --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_BUCKET_KEY:$S3_SECRET" \
		-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@" "$S3_ENDPOINT/$p"
}

# free_ports N: N ports free now (bound together, so all distinct)
free_ports() {
	"$PY" -c 'import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# make_ca DIR: DIR/ca.pem (a CA) and DIR/server.{pem,key} (127.0.0.1, localhost)
make_ca() {
	command -v openssl >/dev/null || skip "openssl not installed"
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=parquetfs-test-ca -keyout "$d/ca.key" -out "$d/ca.pem" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
		-keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$d/ext" &&
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
		-days 2 -extfile "$d/ext" -out "$d/server.pem" 2>/dev/null ||
		{ fail "openssl could not make the test CA"; finish; }
}

nginx_start() {
	local ngx
	ngx=$(command -v nginx || echo /usr/sbin/nginx)
	[ -x "$ngx" ] || skip "nginx not installed (scripts/bootstrap installs nginx-light)"
	local root=$1 d=$WORK/nginx try
	make_ca "$d"
	mkdir -p "$d/tmp" "$d/logs"
	for try in 1 2 3; do
		local p1 p2 p3
		read -r p1 p2 p3 < <(free_ports 3)
		cat >"$d/nginx.conf" <<-EOF
		daemon off;
		$( [ "$(id -u)" = 0 ] && echo "user root;" )
		worker_processes 1;
		pid $d/nginx.pid;
		error_log $d/logs/error.log;
		events { worker_connections 64; }
		http {
		  access_log $d/logs/access.log;
		  client_body_temp_path $d/tmp/body; proxy_temp_path $d/tmp/proxy;
		  fastcgi_temp_path $d/tmp/fcgi; uwsgi_temp_path $d/tmp/uwsgi; scgi_temp_path $d/tmp/scgi;
		  default_type application/octet-stream;
		  sendfile on;
		  server { listen 127.0.0.1:$p1; root $root; }
		  server { listen 127.0.0.1:$p2 ssl; root $root;
		           ssl_certificate $d/server.pem; ssl_certificate_key $d/server.key; }
		  server { listen 127.0.0.1:$p3; root $root; max_ranges 0; }
		}
		EOF
		"$ngx" -p "$d" -e "$d/logs/error.log" -c "$d/nginx.conf" >"$d/logs/stdout" 2>&1 &
		local pid=$!
		local i up=0
		for i in $(seq 50); do
			curl -s -o /dev/null "http://127.0.0.1:$p1/" && { up=1; break; }
			kill -0 $pid 2>/dev/null || break
			sleep 0.1
		done
		if [ $up = 1 ]; then
			REMOTE_PIDS+=($pid)
			NGX_HTTP=http://127.0.0.1:$p1 NGX_HTTPS=https://127.0.0.1:$p2
			NGX_NORANGE=http://127.0.0.1:$p3 NGX_CA=$d/ca.pem
			return 0
		fi
		kill $pid 2>/dev/null; wait $pid 2>/dev/null
	done
	fail "nginx did not start: $(tail -3 "$d/logs/error.log" 2>/dev/null)"
	finish
}

# remote_need_support: the daemon must know s3:// (its --help names
# endpoint=); otherwise this test has nothing to test yet, and says so.
remote_need_support() {
	"$BIN" --help 2>&1 | grep -q 'endpoint=' ||
		skip "this parquetfs has no remote sources (its --help names no endpoint= option)"
}

# mount_s3 MNT BUCKET[/PREFIX] [options]: mounts through the proxy
mount_s3() {
	local m=$1 src=$2; shift 2
	mount_fs "$m" -o endpoint="$S3_ENDPOINT" -o index_dir=none "$@" "s3://$src"
}

# mount_must_fail WHAT MNT ARGS...: the mount is refused within 20 s with a
# one-line message; it lands in MOUNT_ERR for the caller to look at.
mount_must_fail() {
	local what=$1 m=$2; shift 2
	mkdir -p "$m"
	MOUNT_ERR=
	timeout 20 "$BIN" -f "$@" "$m" 2>"$WORK/mount.err" &
	local p=$! i
	for i in $(seq 200); do
		kill -0 $p 2>/dev/null || break
		mountpoint -q "$m" && break
		sleep 0.1
	done
	if mountpoint -q "$m"; then
		fail "$what: mounted, but should have been refused"
		fusermount3 -u "$m"
		wait $p 2>/dev/null
		return 1
	fi
	wait $p
	local rc=$?
	MOUNT_ERR=$(grep -v '^$' "$WORK/mount.err")
	cat "$WORK/mount.err" >>"$WORK/daemon.log"
	if [ $rc = 0 ] || [ $rc = 124 ]; then
		fail "$what: the daemon exited $rc without mounting (want an error exit)"
		return 1
	fi
	if [ "$(printf '%s\n' "$MOUNT_ERR" | wc -l)" -ne 1 ] || [ -z "$MOUNT_ERR" ]; then
		fail "$what: want one line on stderr, got: $MOUNT_ERR"
		return 1
	fi
	return 0
}

# says WHAT WORD...: MOUNT_ERR names every WORD (any case)
says() {
	local what=$1 w; shift
	for w; do
		grep -qi -- "$w" <<<"$MOUNT_ERR" || { fail "$what: the message does not say '$w': $MOUNT_ERR"; return 1; }
	done
	ok "$what: $MOUNT_ERR"
}

# read_errno FILE: OK when FILE reads to its end, else the errno's name
read_errno() {
	"$PY" -c 'import errno, sys
try:
    with open(sys.argv[1], "rb") as f:
        while f.read(1 << 20):
            pass
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))' "$1"
}
