/* The process-wide memory budget (pq_budget.h): atomic counters, a
 * reclaim hook; a charge never waits, a caller holding nothing may wait
 * for room (pq_budget_wait_room). */
#include "config.h"

#include "pq_budget.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* A waiter looks again this often even without a release: readers that
 * stopped reading hold memory the reclaim hook can take, and nothing
 * tells it when they stop. */
#define WAIT_POLL_MS 20

struct pq_budget {
	uint64_t limit;         /* past it, the reclaim hook is asked for room */
	uint64_t hard;          /* past it, a charge is refused: limit + headroom */
	_Atomic uint64_t used, peak, refusals;
	pq_budget_reclaim_fn reclaim;
	void *ctx;
	uint64_t wait_ms;       /* pq_budget_set_wait */
	/* a release wakes the waiters (only then is the lock taken) */
	_Atomic unsigned waiters;
	_Atomic unsigned turns; /* threads trying again after a wait */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static _Thread_local bool exempt;
static _Thread_local uint64_t refused_count, refused_last;
static _Thread_local bool turn;
/* The reclaim hook frees memory; a charge made while it runs (it should
 * make none) must not call it again. */
static _Thread_local bool reclaiming;

pq_budget *pq_budget_new(uint64_t limit)
{
	pq_budget *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->limit = b->hard = limit;
	pthread_mutex_init(&b->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cv, &ca);
	pthread_condattr_destroy(&ca);
	return b;
}

void pq_budget_free(pq_budget *b)
{
	if (!b)
		return;
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

void pq_budget_set_headroom(pq_budget *b, uint64_t bytes)
{
	b->hard = b->limit > UINT64_MAX - bytes ? UINT64_MAX : b->limit + bytes;
}

void pq_budget_set_reclaim(pq_budget *b, pq_budget_reclaim_fn fn, void *ctx)
{
	b->reclaim = fn;
	b->ctx = ctx;
}

static void note_peak(pq_budget *b, uint64_t now)
{
	uint64_t p = atomic_load_explicit(&b->peak, memory_order_relaxed);
	while (now > p && !atomic_compare_exchange_weak(&b->peak, &p, now))
		;
}

static bool charge_if_fits(pq_budget *b, uint64_t n, uint64_t limit)
{
	uint64_t cur = atomic_load(&b->used);
	do {
		if (n > limit || cur > limit - n)
			return false;
	} while (!atomic_compare_exchange_weak(&b->used, &cur, cur + n));
	note_peak(b, cur + n);
	return true;
}

void pq_budget_charge(pq_budget *b, uint64_t n)
{
	if (!b || !n)
		return;
	note_peak(b, atomic_fetch_add(&b->used, n) + n);
}

bool pq_budget_try_charge(pq_budget *b, uint64_t n)
{
	if (!b || !n)
		return true;
	if (exempt) {
		pq_budget_charge(b, n);
		return true;
	}
	if (charge_if_fits(b, n, b->limit))
		return true;
	if (b->reclaim && !reclaiming && n <= b->hard) {
		uint64_t used = atomic_load(&b->used);
		uint64_t over = n > b->limit ? used + n - b->limit
			      : used > b->limit - n ? used - (b->limit - n) : 0;
		reclaiming = true;
		b->reclaim(b->ctx, over ? over : n);
		reclaiming = false;
	}
	/* what reclaiming could not free may still fit the headroom: one
	 * reader's working set past a small limit; while a reader that
	 * waited tries again, the headroom is its alone (others then wait
	 * after it, rather than keep taking the room it waited for) */
	bool yield = !turn && (atomic_load(&b->turns) || atomic_load(&b->waiters));
	if (charge_if_fits(b, n, yield ? b->limit : b->hard))
		return true;
	atomic_fetch_add(&b->refusals, 1);
	refused_count++;
	refused_last = n;
	return false;
}

bool pq_budget_try_charge_spare(pq_budget *b, uint64_t n)
{
	return !b || !n || charge_if_fits(b, n, b->limit);
}

void pq_budget_release(pq_budget *b, uint64_t n)
{
	if (!b || !n)
		return;
	/* more than was charged (a caller's bug) wraps: the unmount report
	 * shows it rather than hiding it */
	atomic_fetch_sub(&b->used, n);
	if (atomic_load(&b->waiters)) {
		pthread_mutex_lock(&b->mu);
		pthread_cond_broadcast(&b->cv);
		pthread_mutex_unlock(&b->mu);
	}
}

uint64_t pq_budget_thread_refused(uint64_t *last)
{
	if (last)
		*last = refused_last;
	return refused_count;
}

void pq_budget_thread_turn(pq_budget *b, bool on)
{
	if (!b || turn == on)
		return;
	turn = on;
	if (on)
		atomic_fetch_add(&b->turns, 1);
	else
		atomic_fetch_sub(&b->turns, 1);
}

void pq_budget_set_wait(pq_budget *b, uint64_t ms)
{
	b->wait_ms = ms;
}

uint64_t pq_budget_wait_ms(const pq_budget *b)
{
	return b ? b->wait_ms : 0;
}

int64_t pq_budget_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Room for need as things stand: under the limit (a charge larger than
 * the limit alone: under limit + headroom). */
static bool room_for(pq_budget *b, uint64_t need)
{
	uint64_t top = need <= b->limit ? b->limit : b->hard;
	return need <= top && atomic_load(&b->used) <= top - need;
}

bool pq_budget_wait_room(pq_budget *b, uint64_t need, int64_t deadline_ms)
{
	if (!b || room_for(b, need))
		return true;
	if (need > b->hard)
		return false; /* never */
	atomic_fetch_add(&b->waiters, 1);
	bool ok = false;
	for (;;) {
		uint64_t used = atomic_load(&b->used);
		uint64_t over = used + need > b->limit ? used + need - b->limit : 0;
		if (over && b->reclaim && !reclaiming) {
			reclaiming = true;
			b->reclaim(b->ctx, over);
			reclaiming = false;
		}
		if ((ok = room_for(b, need)))
			break;
		int64_t now = pq_budget_now_ms();
		if (now >= deadline_ms)
			break;
		int64_t until = now + WAIT_POLL_MS < deadline_ms ? now + WAIT_POLL_MS : deadline_ms;
		struct timespec ts = {(time_t)(until / 1000), (long)(until % 1000) * 1000000};
		pthread_mutex_lock(&b->mu);
		/* (a release between the check and here is seen at the next poll) */
		if (!room_for(b, need))
			pthread_cond_timedwait(&b->cv, &b->mu, &ts);
		pthread_mutex_unlock(&b->mu);
	}
	atomic_fetch_sub(&b->waiters, 1);
	return ok;
}

uint64_t pq_budget_hard(const pq_budget *b)
{
	return b ? b->hard : UINT64_MAX;
}

uint64_t pq_budget_limit(const pq_budget *b)
{
	return b ? b->limit : 0;
}

uint64_t pq_budget_used(const pq_budget *b)
{
	return b ? atomic_load(&((pq_budget *)b)->used) : 0;
}

uint64_t pq_budget_peak(const pq_budget *b)
{
	return b ? atomic_load(&((pq_budget *)b)->peak) : 0;
}

uint64_t pq_budget_refusals(const pq_budget *b)
{
	return b ? atomic_load(&((pq_budget *)b)->refusals) : 0;
}

bool pq_budget_thread_exempt(bool on)
{
	bool was = exempt;
	exempt = on;
	return was;
}

pq_status pq_budget_fail(const pq_budget *b, uint64_t need, pq_error *err)
{
	return pq_fail(err, PQ_EBUDGET,
		       "%llu more bytes of memory do not fit the memory budget (cache_size %llu "
		       "bytes, %llu in use by other readers and the cache)",
		       (unsigned long long)need, (unsigned long long)pq_budget_limit(b),
		       (unsigned long long)pq_budget_used(b));
}
