#include "config.h"

#include "pq_arena.h"
#include "pq_bigbuf.h"
#include "pq_budget.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pq_arena_block {
	pq_arena_block *next;
	size_t cap, off;
	bool big; /* from pq_bigbuf (a decompressed page, its values) */
	_Alignas(16) unsigned char data[];
};

/* Blocks start small and double: most arenas (a page header list, a small
 * page) need a few KiB, and caches hold thousands of them. */
enum { ARENA_FIRST_BLOCK = 2 * 1024, ARENA_BLOCK = 64 * 1024 };

void pq_arena_init(pq_arena *a, size_t limit)
{
	a->head = NULL;
	a->used = 0;
	a->held = 0;
	a->limit = limit;
	a->budget = NULL;
	a->refused = 0;
}

void pq_arena_use_budget(pq_arena *a, struct pq_budget *budget)
{
	a->budget = budget;
}

pq_status pq_arena_budget_error(const pq_arena *a, pq_status st, pq_error *err)
{
	if (st == PQ_OK || !a->refused)
		return st;
	return pq_budget_fail(a->budget, a->refused, err);
}

void *pq_arena_alloc_uninit(pq_arena *a, size_t size)
{
	size_t need = (size + 15) & ~(size_t)15;
	if (need < size)
		return NULL;
	if (a->limit && (need > a->limit || a->used > a->limit - need))
		return NULL;
	pq_arena_block *b = a->head;
	if (!b || b->cap - b->off < need) {
		size_t cap = !a->head ? ARENA_FIRST_BLOCK : a->head->cap * 2;
		if (cap > ARENA_BLOCK)
			cap = ARENA_BLOCK;
		if (cap < need)
			cap = need;
		if (cap > SIZE_MAX - sizeof *b)
			return NULL;
		bool big = sizeof *b + cap >= PQ_BIGBUF_MIN;
		/* a big buffer holds its whole mapping */
		size_t charge = big ? pq_bigbuf_footprint(sizeof *b + cap) : cap;
		if (!pq_budget_try_charge(a->budget, charge)) {
			a->refused = charge;
			return NULL;
		}
		b = big ? pq_bigbuf_alloc(sizeof *b + cap) : malloc(sizeof *b + cap);
		if (!b) {
			pq_budget_release(a->budget, charge);
			return NULL;
		}
		b->cap = cap;
		b->off = 0;
		b->big = big;
		a->held += charge;
		if (a->head && need > ARENA_BLOCK / 2) {
			/* Big blocks go behind the current one so its free space stays usable. */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->off;
	b->off += need;
	a->used += need;
	return p;
}

void *pq_arena_alloc(pq_arena *a, size_t size)
{
	void *p = pq_arena_alloc_uninit(a, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void *pq_arena_calloc(pq_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return pq_arena_alloc(a, n * size);
}

void *pq_arena_memdup(pq_arena *a, const void *p, size_t n)
{
	void *q = pq_arena_alloc(a, n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

void pq_arena_free(pq_arena *a)
{
	pq_arena_block *b = a->head;
	while (b) {
		pq_arena_block *next = b->next;
		if (b->big)
			pq_bigbuf_free(b);
		else
			free(b);
		b = next;
	}
	pq_budget_release(a->budget, a->held); /* what its blocks charged */
	a->head = NULL;
	a->used = 0;
	a->held = 0;
}
