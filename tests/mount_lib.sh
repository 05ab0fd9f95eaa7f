# Shared by the tests that really mount (test_mount.sh, test_staging.sh,
# test_encrypted_mount.sh); sourced, not run. The caller sets WORK_NAME
# (mktemp prefix) first. Skips (exit 77) without /dev/fuse, fusermount3 or
# python3; fails without a parquetfs binary. Sets top_srcdir, top_builddir,
# TD (../shared/testdata), DATA, BIN, WORK, FAILS; every mount made with
# mount_fs is unmounted on exit, whatever happens.
# Env: PARQUETFS (binary). Exports PARQUETFS_TEST_TOTALS=1 (the counters at unmount).

skip() { echo "SKIP: $*"; exit 77; }
[ -c /dev/fuse ] || skip "no /dev/fuse (FUSE not available here)"
command -v fusermount3 >/dev/null || skip "fusermount3 not installed"
command -v python3 >/dev/null || skip "python3 not installed"
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
TD=$top_srcdir/../shared/testdata
DATA=$TD/parquet-testing/data
BIN=${PARQUETFS:-$top_builddir/src/parquetfs}
case "$BIN" in /*) ;; *) BIN=$PWD/$BIN ;; esac
[ -x "$BIN" ] || { echo "FAIL: no parquetfs binary at $BIN"; exit 1; }

WORK=$(mktemp -d "/tmp/${WORK_NAME:-pfs-test}.XXXXXX")
# the daemons log the unmount's counters (mount totals, request loop,
# memory budget) at LOG_INFO, not only under -d: the tests read them
export PARQUETFS_TEST_TOTALS=1
MNTS=()
PIDS=()
FAILS=0

cleanup() {
	local i
	for i in "${!MNTS[@]}"; do
		local m=${MNTS[$i]} p=${PIDS[$i]}
		mountpoint -q "$m" 2>/dev/null && timeout 10 fusermount3 -u "$m" 2>/dev/null
		if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
			kill "$p" 2>/dev/null; sleep 0.5
			kill -9 "$p" 2>/dev/null
		fi
		mountpoint -q "$m" 2>/dev/null && { timeout 10 fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; }
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }
# same MOUNTED EXPECTED: compares by reading through a pipe
same() { cat "$1" 2>/dev/null | cmp -s - "$2"; }

# mount_fs MNT ARGS... : mounts in the foreground (background job), waits.
mount_fs() {
	local m=$1; shift
	mkdir -p "$m"
	"$BIN" -f "$@" "$m" 2>>"$WORK/daemon.log" &
	MNTS+=("$m"); PIDS+=($!)
	local i
	for i in $(seq 100); do
		mountpoint -q "$m" && return 0
		kill -0 "${PIDS[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "mount $* on $m did not come up: $(tail -c 300 "$WORK/daemon.log")"
	return 1
}

# Processes with their cwd or an open file under mount point $1.
holders() {
	local p
	for p in /proc/[0-9]*; do
		{ readlink "$p/cwd"; ls -l "$p/fd" 2>/dev/null; } 2>/dev/null | grep -q "$1" &&
			printf '%s ' "${p#/proc/}:$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -c1-60)"
	done
}

# umount_fs MNT: unmounts and waits for its daemon. UMOUNT_SETTLE (seconds)
# waits first, for tests whose last closes must reach the daemon (releases
# are asynchronous; the kernel drops those still queued at unmount).
umount_fs() {
	local m=$1 i gone=0
	[ -n "${UMOUNT_SETTLE:-}" ] && sleep "$UMOUNT_SETTLE"
	# EBUSY can be transient (a process elsewhere on the machine walking
	# /tmp, a close not yet finished): retry before calling it a failure.
	for i in $(seq 20); do
		if fusermount3 -u "$m" 2>"$WORK/umount.err" || ! mountpoint -q "$m"; then
			gone=1
			break
		fi
		sleep 0.5
	done
	if [ $gone = 0 ]; then
		fail "fusermount3 -u $m for 10 s: $(cat "$WORK/umount.err"); held by: $(holders "$m")"
		fusermount3 -uz "$m" 2>/dev/null # detach, so the test goes on
	fi
	for i in "${!MNTS[@]}"; do
		[ "${MNTS[$i]}" = "$m" ] && [ -n "${PIDS[$i]}" ] || continue
		[ $gone = 1 ] || kill "${PIDS[$i]}" 2>/dev/null
		wait "${PIDS[$i]}" 2>/dev/null
		PIDS[$i]=""
	done
}

# Sanitizer reports of the daemons, their log when something failed, and
# the closing verdict.
finish() {
	if grep -q "AddressSanitizer\|LeakSanitizer\|runtime error" "$WORK/daemon.log" 2>/dev/null; then
		fail "sanitizer reports in the daemon log:"
		grep -A20 "Sanitizer\|runtime error" "$WORK/daemon.log" | head -40
	fi
	# every charge to a mount's memory budget is given back by its unmount
	# (a daemon killed with -9 says nothing, which is fine)
	if grep "memory budget at unmount" "$WORK/daemon.log" 2>/dev/null | grep -qv ": 0 bytes still charged"; then
		fail "a mount's memory budget was not back to 0 at unmount:"
		grep "memory budget at unmount" "$WORK/daemon.log" | grep -v ": 0 bytes still charged" | head -3
	fi
	if [ "$FAILS" -ne 0 ]; then
		echo "--- the daemons' log (last lines):"
		tail -25 "$WORK/daemon.log" 2>/dev/null | sed 's/^/daemon: /'
	fi
	[ -n "${PFS_TEST_KEEP_LOG:-}" ] && cp "$WORK/daemon.log" "$PFS_TEST_KEEP_LOG"
	[ "$FAILS" -eq 0 ] && { echo "PASS"; exit 0; }
	echo "$FAILS failure(s)"
	exit 1
}
