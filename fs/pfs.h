/* The parquetfs filesystem as the daemon (src/main.c) sees it. */
#ifndef PFS_H
#define PFS_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

#include <fuse_lowlevel.h>

#include "pfs_options.h"
#include "pq_error.h"

typedef struct pfs_fs pfs_fs;

/* Prepares the filesystem for the validated options (no I/O on SOURCE
 * beyond what validation did). opts must outlive the pfs_fs. */
pq_status pfs_fs_new(const pfs_options *opts, pfs_fs **out, pq_error *err);
/* Starts the background notifier; call after fuse_daemonize (threads do
 * not survive fork). */
int pfs_fs_start(pfs_fs *fs, struct fuse_session *se);
/* The request loop ended: nothing more is sent to the kernel (call before
 * fuse_session_unmount; background jobs may still finish meanwhile). */
void pfs_fs_stop(pfs_fs *fs);
/* Stops the notifier (before fuse_session_destroy) and frees everything. */
void pfs_fs_free(pfs_fs *fs);

/* The operations of the mount: the read-only tree, wrapped in staging/'s
 * layer when there is one. Lives as long as fs. */
const struct fuse_lowlevel_ops *pfs_ll_ops(pfs_fs *fs);

/* syslog, and stderr when in the foreground; control bytes escaped. */
void pfs_log(int priority, const char *fmt, ...) PQ_PRINTF(2, 3);
/* The priority of the counters the daemon logs at unmount (mount totals,
 * request loop, remote totals, the memory budget when nothing leaked):
 * LOG_DEBUG, so that they show under -d and not at every -f unmount;
 * src/main.c raises it to LOG_INFO for the tests (PARQUETFS_TEST_TOTALS). */
void pfs_log_set_totals(int priority);
int pfs_log_totals(void);
/* in with every byte below 0x20 and 0x7F written as \xNN, cut to fit
 * outlen (NUL-terminated); the length written. */
size_t pfs_escape_line(const char *in, char *out, size_t outlen);

#endif
