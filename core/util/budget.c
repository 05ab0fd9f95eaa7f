/* The process-wide memory budget (pq_budget.h): atomic counters, a
 * reclaim hook, never a wait. */
#include "config.h"

#include "pq_budget.h"

#include <stdatomic.h>
#include <stdlib.h>

struct pq_budget {
	uint64_t limit;         /* past it, the reclaim hook is asked for room */
	uint64_t hard;          /* past it, a charge is refused: limit + headroom */
	_Atomic uint64_t used, peak, refusals;
	pq_budget_reclaim_fn reclaim;
	void *ctx;
};

static _Thread_local bool exempt;
/* The reclaim hook frees memory; a charge made while it runs (it should
 * make none) must not call it again. */
static _Thread_local bool reclaiming;

pq_budget *pq_budget_new(uint64_t limit)
{
	pq_budget *b = calloc(1, sizeof *b);
	if (b)
		b->limit = b->hard = limit;
	return b;
}

void pq_budget_free(pq_budget *b)
{
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
	 * reader's working set past a small limit */
	if (charge_if_fits(b, n, b->hard))
		return true;
	atomic_fetch_add(&b->refusals, 1);
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
	return pq_fail(err, PQ_ELIMIT,
		       "%llu more bytes of memory do not fit the memory budget (cache_size %llu "
		       "bytes, %llu in use by other readers and the cache)",
		       (unsigned long long)need, (unsigned long long)pq_budget_limit(b),
		       (unsigned long long)pq_budget_used(b));
}
