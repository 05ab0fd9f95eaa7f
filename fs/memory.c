/* The mount's memory budget: cache_size bounds every decoded byte the
 * daemon holds (doc/design.md, "Memory").
 *
 * Charged to it: decoded pages with their stored and decompressed bytes
 * (core, through the pages' arenas), row readers' state (core), cache
 * entries (cache.c), stream windows and prefetched row groups (stream.c).
 * A charge that does not fit first makes room here -- the data cache's
 * cold end, then streams that are not reading at this moment -- and is
 * refused when that was not enough: the read fails with EIO and a log
 * line, nothing waits (a waiting reader could wait for another waiting
 * reader). */
#include "config.h"

#include <errno.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "pfs_internal.h"
#include "pq_bigbuf.h"

/* malloc_trim gives back every free page, and the next decodes fault them
 * in again: while reading it runs after this much was freed, or this long
 * after the last trim; an idle daemon trims at once. */
#define TRIM_BYTES ((uint64_t)256 << 20)
#define TRIM_MS 10000
#define PFS_MEMORY_HEADROOM ((uint64_t)32 << 20) /* past cache_size, for one reader */

static void reclaim(void *ctx, uint64_t need)
{
	pfs_fs *fs = ctx;
	/* spare big buffers first (they only save page faults), then cached
	 * data: dropping a stream's window costs re-rendering */
	uint64_t spare = pq_bigbuf_shrink((size_t)need), got = spare;
	if (got < need)
		got += pfs_cache_shrink(fs->cache, need - got);
	/* a remote source's fetched bytes kept in spare room: after decoded
	 * data, since fetching them again costs a request */
	if (got < need)
		got += pfs_source_reclaim(fs, need - got);
	if (got < need)
		got += pfs_streams_reclaim(fs, need - got);
	pfs_memory_freed(fs, got - spare); /* (unmapped already) */
}

int pfs_memory_init(pfs_fs *fs)
{
	fs->budget = pq_budget_new(fs->opts->cache_size);
	if (!fs->budget)
		return -ENOMEM;
	pq_budget_set_reclaim(fs->budget, reclaim, fs);
	/* One reader of rows holds about three times the page size per column
	 * (a file with 1 MiB pages and a dozen columns: ~35 MiB): reclaiming
	 * keeps the total near cache_size, this much more is what a small
	 * cache_size lends a reader before its reads fail. */
	pq_budget_set_headroom(fs->budget, PFS_MEMORY_HEADROOM);
	/* freed big buffers (pages, container chunks) are kept for reuse, up
	 * to a quarter of cache_size, counted in it (a row reader holds a page
	 * of every column: all of them come and go together) */
	pq_bigbuf_configure(fs->budget, (size_t)(fs->opts->cache_size / 4));
	pthread_mutex_init(&fs->streams_lock, NULL);
	atomic_init(&fs->trim_pending, 0);
	atomic_init(&fs->trim_ms, 0);
	return 0;
}

void pfs_memory_fini(pfs_fs *fs)
{
	if (!fs->budget)
		return;
	pq_bigbuf_configure(NULL, 0); /* the kept buffers' charges go first */
	uint64_t left = pq_budget_used(fs->budget);
	/* tests read this line: a charge never given back is a bug (a mount
	 * that failed says only its one line on stderr, unless something leaked) */
	if (fs->started || left)
		pfs_log(left ? LOG_ERR : pfs_log_totals(),
			"memory budget at unmount: %llu bytes still charged, peak %llu of %llu, "
			"%llu charges refused",
			(unsigned long long)left, (unsigned long long)pq_budget_peak(fs->budget),
			(unsigned long long)pq_budget_limit(fs->budget),
			(unsigned long long)pq_budget_refusals(fs->budget));
	pq_budget_free(fs->budget);
	fs->budget = NULL;
	pthread_mutex_destroy(&fs->streams_lock);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void trim(pfs_fs *fs, uint64_t bytes, bool force)
{
	uint64_t pending = atomic_fetch_add(&fs->trim_pending, bytes) + bytes;
	int64_t now = now_ms(), last = atomic_load(&fs->trim_ms);
	if (!pending || (!force && pending < TRIM_BYTES && now - last < TRIM_MS))
		return;
	/* one thread trims; the others go on */
	if (!atomic_compare_exchange_strong(&fs->trim_ms, &last, now))
		return;
	atomic_store(&fs->trim_pending, 0);
#ifdef __GLIBC__
	/* glibc keeps freed memory in its heaps (one per thread arena): give
	 * it back, or a burst of readers leaves the daemon large for good */
	malloc_trim(0);
#endif
	if (force)
		pq_bigbuf_trim();
}

void pfs_memory_freed(pfs_fs *fs, uint64_t bytes)
{
	if (bytes)
		trim(fs, bytes, false);
}

void pfs_memory_idle(pfs_fs *fs)
{
	trim(fs, 0, true);
}
