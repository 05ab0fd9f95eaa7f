/* A parallel loop for waits that overlap: the disk reads of a cold
 * directory's listing (stats, magic bytes) cost a seek each, and issued
 * one after the other they are most of what a first `ls` takes. */
#ifndef PFS_PARALLEL_H
#define PFS_PARALLEL_H

#include <stddef.h>

/* Runs fn(ctx, i) for every i in [0, n), each exactly once, on up to
 * max_threads threads (the caller's included): one thread per per_thread
 * items, so a small n stays on the caller's thread. Returns when all are
 * done. A thread that cannot be started leaves its share to the others. */
void pfs_parallel_for(size_t n, size_t per_thread, unsigned max_threads,
		      void (*fn)(void *ctx, size_t i), void *ctx);

#endif
