/* The mount's memory budget: cache_size bounds every decoded byte the
 * daemon holds (doc/design.md, "Memory").
 *
 * Charged to it: decoded pages with their stored and decompressed bytes
 * (core, through the pages' arenas), row readers' state (core), cache
 * entries (cache.c), stream windows and prefetched row groups (stream.c).
 * A charge that does not fit first makes room here -- the data cache's
 * cold end, then streams that are not reading at this moment -- and is
 * refused when that was not enough. A charge never waits (a reader
 * waiting with memory in hand could wait for another waiting reader);
 * the request's work fails instead, gives back what it holds, and waits
 * here for its turn and for room, then runs again (pfs_mem_try): only
 * what can never fit, or what waited mem_wait seconds, fails with EIO
 * and a log line. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "interrupt.h"
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
	pq_budget_set_wait(fs->budget, (uint64_t)fs->opts->mem_wait * 1000);
	/* freed big buffers (pages, container chunks) are kept for reuse, up
	 * to a quarter of cache_size, counted in it (a row reader holds a page
	 * of every column: all of them come and go together) */
	pq_bigbuf_configure(fs->budget, (size_t)(fs->opts->cache_size / 4));
	pthread_mutex_init(&fs->streams_lock, NULL);
	pthread_mutex_init(&fs->mw_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&fs->mw_cond, &ca);
	pthread_condattr_destroy(&ca);
	fs->mw_head = fs->mw_tail = NULL;
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
	pthread_cond_destroy(&fs->mw_cond);
	pthread_mutex_destroy(&fs->mw_lock);
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

/* ---- waiting for memory, in turn ---------------------------------------------------------- */

static _Thread_local unsigned in_try;
static _Thread_local uint64_t try_mark; /* the thread's refusals at the last look */

/* Quiet only for a failure the try itself will speak of: one that a
 * refused charge caused (a page larger than cache_size is refused by no
 * charge, and logged as it is). */
int pfs_memory_log_level(void)
{
	return in_try && pq_budget_thread_refused(NULL) != try_mark ? LOG_DEBUG : LOG_NOTICE;
}

void pfs_memory_try_begin(pfs_fs *fs, pfs_mem_try *t, const char *what)
{
	memset(t, 0, sizeof *t);
	t->fs = fs;
	t->what = what ? what : "?";
	t->refused = try_mark = pq_budget_thread_refused(NULL);
	in_try++;
}

static void leave_queue(pfs_mem_try *t)
{
	pfs_fs *fs = t->fs;
	if (!t->queued)
		return;
	pthread_mutex_lock(&fs->mw_lock);
	pfs_mem_try **pp = &fs->mw_head, *prev = NULL;
	while (*pp && *pp != t) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (*pp) {
		*pp = t->next;
		if (fs->mw_tail == t)
			fs->mw_tail = prev;
	}
	t->queued = false;
	pthread_cond_broadcast(&fs->mw_cond); /* the next one's turn */
	pthread_mutex_unlock(&fs->mw_lock);
}

/* Waits until t is first in line, or its deadline; true when it is. */
static bool wait_turn(pfs_mem_try *t)
{
	pfs_fs *fs = t->fs;
	pthread_mutex_lock(&fs->mw_lock);
	if (!t->queued) {
		t->next = NULL;
		if (fs->mw_tail)
			fs->mw_tail->next = t;
		else
			fs->mw_head = t;
		fs->mw_tail = t;
		t->queued = true;
	}
	/* looked at again every PFS_INTR_POLL_MS: Ctrl-C ends the wait */
	int64_t now;
	while (fs->mw_head != t && (now = pq_budget_now_ms()) < t->deadline && !pfs_intr_arm()) {
		int64_t until = now + PFS_INTR_POLL_MS < t->deadline ? now + PFS_INTR_POLL_MS
								    : t->deadline;
		struct timespec ts = {(time_t)(until / 1000), (long)(until % 1000) * 1000000};
		pthread_cond_timedwait(&fs->mw_cond, &fs->mw_lock, &ts);
	}
	bool first = fs->mw_head == t;
	pthread_mutex_unlock(&fs->mw_lock);
	return first;
}

/* pq_budget_wait_room in steps of PFS_INTR_POLL_MS, so that an
 * interrupted request (Ctrl-C) stops waiting at once. */
static bool wait_room(pfs_fs *fs, uint64_t need, int64_t deadline)
{
	for (;;) {
		int64_t now = pq_budget_now_ms();
		if (now >= deadline || pfs_intr_arm())
			return false;
		int64_t until = now + PFS_INTR_POLL_MS < deadline ? now + PFS_INTR_POLL_MS : deadline;
		if (pq_budget_wait_room(fs->budget, need, until))
			return true;
	}
}

bool pfs_memory_try_again(pfs_mem_try *t, int rc)
{
	pfs_fs *fs = t->fs;
	uint64_t last, refused = pq_budget_thread_refused(&last);
	if (rc == 0 || refused == t->refused)
		return false; /* done, or failed for another reason */
	t->refused = try_mark = refused;
	uint64_t limit = pq_budget_limit(fs->budget), hard = pq_budget_hard(fs->budget);
	/* more than the budget at once, or refused though the try began with
	 * all of it free: it cannot fit at all */
	if (last > hard || t->need >= limit) {
		pfs_log(LOG_NOTICE,
			"%s: a read needs more than %llu bytes of memory at once, more than the "
			"memory budget can ever hold (cache_size %llu bytes): it fails "
			"(-o cache_size= larger reads it)",
			t->what, (unsigned long long)(last > hard ? last : hard),
			(unsigned long long)limit);
		return false;
	}
	int64_t now = pq_budget_now_ms();
	if (!t->deadline)
		t->deadline = now + (int64_t)fs->opts->mem_wait * 1000;
	/* The work needs more than its refused charge (what it held before
	 * is gone too): an eighth of the budget first, twice as much after
	 * each try that failed again, at last all of it. */
	uint64_t need = t->need ? t->need * 2 : limit / 8;
	t->need = need < last ? last : need > limit ? limit : need;
	bool ok = now < t->deadline && wait_turn(t) && wait_room(fs, t->need, t->deadline);
	if (!ok && pfs_intr_pending())
		return false; /* the caller got a signal: EINTR (pfs_reply_err) */
	if (!ok) {
		pfs_log(LOG_NOTICE,
			"%s: a read waited %u s for %llu bytes of memory that other reads hold "
			"(cache_size %llu bytes, %llu in use): it fails (-o mem_wait=, cache_size=)",
			t->what, fs->opts->mem_wait, (unsigned long long)t->need,
			(unsigned long long)limit, (unsigned long long)pq_budget_used(fs->budget));
		return false;
	}
	if (!t->turn) {
		pq_budget_thread_turn(fs->budget, true);
		t->turn = true;
	}
	return true;
}

void pfs_memory_try_end(pfs_mem_try *t)
{
	if (t->turn)
		pq_budget_thread_turn(t->fs->budget, false);
	leave_queue(t);
	in_try--;
}
