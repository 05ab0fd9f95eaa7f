/* parquetfs: mount Parquet files as directories of text and binary views.
 *
 *   parquetfs [options] SOURCE MOUNTPOINT
 *
 * Everything is checked before mounting (SOURCE, option values, the key
 * file's mode, a MOUNTPOINT inside SOURCE); a problem is one line on stderr
 * and exit status 1. Once detached, messages go to syslog (and stderr in
 * the foreground, or when there is no syslog socket: src/logging.c). */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <syslog.h>

#include <fuse_lowlevel.h>

#include "logging.h"
#include "loop.h"
#include "options.h"
#include "pfs.h"

static void die_msg(const char *fmt, ...) PQ_PRINTF(1, 2);
static void die_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("parquetfs: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int add_opt(struct fuse_args *args, const char *prefix, const char *val)
{
	size_t n = strlen(prefix) + strlen(val) + 1;
	char *s = malloc(n);
	if (!s)
		return -1;
	snprintf(s, n, "%s%s", prefix, val);
	int rc = fuse_opt_add_arg(args, s);
	free(s);
	return rc;
}

/* fsname= must not hold a comma (option separator); fall back to a name. */
static const char *fsname_of(const char *src)
{
	return strchr(src, ',') ? "parquetfs" : src;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cmd;
	struct fuse_session *se = NULL;
	struct fuse_loop_config *loop = NULL;
	pfs_options opts;
	pfs_fs *fs = NULL;
	pq_error err = {0};
	char msg[1024];
	int ret = 1;

	/* Big buffers (rendered pages, row groups) come and go on many threads:
	 * a fixed mmap threshold returns them to the system when freed, so the
	 * daemon's memory stays near cache_size (glibc would otherwise raise the
	 * threshold and keep freed buffers in per-thread heaps). */
	mallopt(M_MMAP_THRESHOLD, 2 << 20);
	/* ...but a heap that shrinks whenever its top is free (the default:
	 * 128 KiB) faults its pages in again for the next page decoded, and a
	 * page fault costs more than decoding the page on a virtual machine.
	 * Up to 8 MiB per heap stays (the biggest buffers are pq_bigbuf's). */
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	/* glibc gives each new thread its own heap (up to 8 per core), and
	 * each keeps what was freed in it: with FUSE's and the prefetchers'
	 * threads that multiplies the daemon's footprint. A few heaps shared
	 * by all threads (and malloc_trim, fs/memory.c) keep it near what the
	 * memory budget counts. */
	mallopt(M_ARENA_MAX, 4);
	memset(&cmd, 0, sizeof cmd);
	pfs_options_init(&opts);
	if (pfs_options_parse(&args, &opts) != 0)
		goto out_args; /* fuse_opt printed why */
	/* the unmount's counters: under -d (and for the tests) */
	if (getenv("PARQUETFS_TEST_TOTALS"))
		pfs_log_set_totals(LOG_INFO);
	if (fuse_parse_cmdline(&args, &cmd) != 0)
		goto out_args;
	if (cmd.show_help) {
		pfs_options_help(argv[0]);
		pfs_options_help_mount();
		ret = 0;
		goto out_cmd;
	}
	if (cmd.show_version) {
		printf("parquetfs %s\n", PACKAGE_VERSION);
		fflush(stdout);
		fuse_lowlevel_version();
		ret = 0;
		goto out_cmd;
	}
	if (!pfs_options_validate(&opts, msg, sizeof msg)) {
		die_msg("%s", msg);
		goto out_cmd;
	}
	if (!cmd.mountpoint) {
		die_msg("no MOUNTPOINT given (usage: parquetfs [options] SOURCE MOUNTPOINT)");
		goto out_cmd;
	}
	if (!pfs_mountpoint_check(&opts, cmd.mountpoint, msg, sizeof msg)) {
		die_msg("%s", msg);
		goto out_cmd;
	}

	pfs_logging_start(cmd.debug);

	/* Permissions are the modes we show; names and type for mount(8).
	 * noatime: access times are not ours to keep, and without it the
	 * kernel asks for a directory's attributes again after each readdir
	 * (ls -lR would cost a GETATTR per directory). */
	if (fuse_opt_add_arg(&args, "-odefault_permissions") ||
	    fuse_opt_add_arg(&args, "-onoatime") ||
	    add_opt(&args, "-ofsname=", fsname_of(opts.source_abs)) ||
	    fuse_opt_add_arg(&args, "-osubtype=parquetfs")) {
		die_msg("out of memory");
		goto out_log;
	}
	if (pfs_fs_new(&opts, &fs, &err) != PQ_OK) {
		die_msg("%s", err.msg);
		goto out_log;
	}
	se = fuse_session_new(&args, pfs_ll_ops(fs), sizeof *pfs_ll_ops(fs), fs);
	if (!se) {
		pfs_logging_session_failed(msg, sizeof msg);
		die_msg("%s", msg);
		goto out_fs;
	}
	if (fuse_set_signal_handlers(se) != 0) {
		die_msg("cannot install signal handlers");
		goto out_session;
	}
	if (fuse_session_mount(se, cmd.mountpoint) != 0) {
		die_msg("cannot mount on %s%s", cmd.mountpoint, pfs_logging_fuse_said());
		goto out_signals;
	}
	int keep_stderr = pfs_logging_before_detach();
	if (fuse_daemonize(cmd.foreground) != 0) {
		die_msg("cannot go to the background");
		goto out_unmount;
	}
	pfs_logging_detached(cmd.foreground, keep_stderr);
	if (pfs_fs_start(fs, se) != 0) {
		syslog(LOG_ERR, "cannot start the notifier thread");
		goto out_unmount;
	}
	syslog(LOG_INFO, "mounted %s on %s", opts.source_abs, cmd.mountpoint);
	if (cmd.singlethread) {
		ret = fuse_session_loop(se);
	} else if (cmd.clone_fd) {
		/* a /dev/fuse per thread, as asked: libfuse's loop */
		loop = fuse_loop_cfg_create();
		if (!loop) {
			syslog(LOG_ERR, "out of memory");
			goto out_unmount;
		}
		fuse_loop_cfg_set_clone_fd(loop, (unsigned)cmd.clone_fd);
		if (cmd.max_threads > 0 && cmd.max_threads <= 100000) /* else: libfuse's default */
			fuse_loop_cfg_set_max_threads(loop, cmd.max_threads);
		if (cmd.max_idle_threads != UINT_MAX) /* UINT_MAX: not given */
			fuse_loop_cfg_set_idle_threads(loop, cmd.max_idle_threads);
		ret = fuse_session_loop_mt(se, loop);
	} else {
		/* one reader that stays awake between a client's requests (fs/loop.h) */
		ret = pfs_loop_run(se, cmd.max_threads, opts.poll_us);
	}
	ret = ret != 0;
	syslog(LOG_INFO, "unmounting %s", cmd.mountpoint);
	pfs_fs_stop(fs);

	fuse_loop_cfg_destroy(loop);
out_unmount:
	pfs_fs_stop(fs);
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	/* the notifier writes to the session: stop it first */
	pfs_fs_free(fs);
	fs = NULL;
	fuse_session_destroy(se);
out_fs:
	pfs_fs_free(fs);
out_log:
	closelog();
out_cmd:
	free(cmd.mountpoint);
out_args:
	fuse_opt_free_args(&args);
	pfs_options_free(&opts);
	return ret;
}
