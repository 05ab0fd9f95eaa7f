/* A parallel loop for waits that overlap: the disk reads of a cold
 * directory's listing (stats, magic bytes) cost a seek each, and issued
 * one after the other they are most of what a first `ls` takes. */
#ifndef PFS_PARALLEL_H
#define PFS_PARALLEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Runs fn(ctx, i) for every i in [0, n), each exactly once, on up to
 * max_threads threads (the caller's included): one thread per per_thread
 * items, so a small n stays on the caller's thread. Returns when all are
 * done. A thread that cannot be started leaves its share to the others. */
void pfs_parallel_for(size_t n, size_t per_thread, unsigned max_threads,
		      void (*fn)(void *ctx, size_t i), void *ctx);

/* A task for a parked helper (the same threads as the loops'): work that
 * runs beside its owner, such as rendering the next chunk of a stream,
 * without a thread started for each. Loops go first; tasks wait in order.
 * The owner keeps the struct until pfs_task_wait or pfs_task_cancel says
 * it is no longer queued or running. */
typedef struct pfs_task {
	void (*fn)(void *arg);
	void *arg;
	/* set by the owner, or NULL: while it is set, the helper's waits for
	 * a server give up (interrupt.h, pfs_intr_watch) */
	atomic_bool *cancel;
	int state; /* under the pool's lock */
	struct pfs_task *next;
} pfs_task;

/* Queues fn(arg); false when no helper exists or can be started (nothing
 * queued: the owner does the work itself). */
bool pfs_task_start(pfs_task *t, void (*fn)(void *arg), void *arg);
/* A task no helper has taken yet is withdrawn (fn never runs: false);
 * else waits until fn returned (true). */
bool pfs_task_wait(pfs_task *t);
/* pfs_task_wait, unless the caller's request is interrupted while the task
 * runs (interrupt.h): then -1, and the wait is still owed. 1: it ran, 0:
 * withdrawn. */
int pfs_task_wait_intr(pfs_task *t);
/* Withdraws the task if no helper has taken it yet (true); false when it
 * runs or ran (then pfs_task_wait is still owed). Never waits. */
bool pfs_task_cancel(pfs_task *t);

#endif
