/* Interrupted FUSE requests. When the process behind a request gets a
 * signal (Ctrl-C), the kernel sends INTERRUPT for it and keeps the caller
 * waiting until the request is answered. A request that waits for a
 * server (or for bytes another thread fetches) must then stop waiting and
 * answer EINTR at once (interface.md, Remote sources) -- when the signal
 * asks the process to stop (SIGINT, SIGTERM, SIGALRM ...), not for
 * SIGCHLD or SIGWINCH, after which a shell's stat must not fail
 * (interrupt.c says how).
 *
 * The thread serving a request marks it (pfs_intr_begin/_end around the
 * handler); code about to wait calls pfs_intr_arm, which registers the
 * request's interrupt callback the first time (libfuse calls it at once
 * when the INTERRUPT came first), and polls pfs_intr_pending while it
 * waits. Only the waits arm: a request that never waits costs a
 * thread-local store, nothing more.
 *
 * A handler must not wait after its reply (the request is freed then):
 * the marked handlers (lookup, getattr, open, read, opendir, readdir)
 * reply last. */
#ifndef PFS_INTERRUPT_H
#define PFS_INTERRUPT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <fuse_lowlevel.h>

/* How often a wait looks whether its request was interrupted (ms). */
#define PFS_INTR_POLL_MS 50

void pfs_intr_begin(fuse_req_t req);
void pfs_intr_end(void);
/* The calling thread is about to wait: true when its request has been
 * interrupted (then the wait should not begin). False on threads serving
 * no request (prefetches, conversions). */
bool pfs_intr_arm(void);
/* The calling thread works for a job that can be cancelled (a stream's
 * prefetch on a helper): while *flag is set its waits for a server end as
 * an interrupted request's do. NULL: none. */
void pfs_intr_watch(atomic_bool *flag);
/* pthread_cond_wait for at most PFS_INTR_POLL_MS: the caller then looks
 * at its condition and at its request's interrupt again. */
void pfs_intr_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex);
/* The calling thread serves a request that can be interrupted. */
bool pfs_intr_serving(void);
/* The calling thread's request has been interrupted (cheap). */
bool pfs_intr_pending(void);
/* fuse_reply_err, with EINTR for an error of an interrupted request (its
 * failure was the abandoned wait, whatever the layers below made of it). */
int pfs_reply_err(fuse_req_t req, int err);

#endif
