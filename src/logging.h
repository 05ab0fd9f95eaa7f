/* Where the daemon's messages go (src/logging.c). */
#ifndef PFS_SRC_LOGGING_H
#define PFS_SRC_LOGGING_H

#include <stdbool.h>
#include <stddef.h>

/* From now on messages (ours and libfuse's) go to standard error, and
 * libfuse's are kept to be named in the one line of a failed start. */
void pfs_logging_start(bool debug);
/* fuse_session_new failed: the line to print (an unknown option named). */
void pfs_logging_session_failed(char *msg, size_t msglen);
/* ": what libfuse said" (or ""), for the line of a failed mount. */
const char *pfs_logging_fuse_said(void);
/* Before fuse_daemonize: a copy of standard error (-1: none to keep). */
int pfs_logging_before_detach(void);
/* After it: syslog, and standard error too in the foreground or when no
 * syslog socket exists (then the copy becomes standard error again). */
void pfs_logging_detached(bool foreground, int saved_stderr);

#endif
