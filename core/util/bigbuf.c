/* Big buffers: 2 MiB-aligned mappings with huge pages asked for, freed
 * ones kept for reuse (pq_bigbuf.h says why). */
#include "config.h"

#include "pq_bigbuf.h"
#include "pq_budget.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PQ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PQ_ASAN 1
#endif

#ifndef PQ_ASAN
#include <sys/mman.h>

#define HUGE ((size_t)2 << 20)
#define PAGE ((size_t)4096)
#define HEADER ((size_t)64) /* keeps the caller's bytes 64-byte aligned */
#define MAX_KEPT 64u

typedef struct header {
	size_t cap; /* bytes after the header */
	size_t map; /* bytes mapped, header included */
} header;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static header *kept[MAX_KEPT];
static unsigned nkept;
static size_t kept_bytes, keep_max = (size_t)32 << 20;
static pq_budget *budget;

/* Whole 4 KiB pages from a 2 MiB boundary: the kernel backs the whole
 * 2 MiB extents with huge pages, the rest with small ones. */
size_t pq_bigbuf_footprint(size_t n)
{
	return n > SIZE_MAX - HEADER - 2 * HUGE ? SIZE_MAX : (n + HEADER + PAGE - 1) & ~(PAGE - 1);
}

size_t pq_bigbuf_capacity(size_t n)
{
	size_t f = pq_bigbuf_footprint(n);
	return f == SIZE_MAX ? n : f - HEADER;
}

static header *map_new(size_t n)
{
	if (n > SIZE_MAX - HEADER - 2 * HUGE)
		return NULL;
	size_t map = pq_bigbuf_footprint(n);
	/* over-map by 2 MiB and cut both ends: an aligned mapping is what
	 * lets the kernel back it with huge pages */
	uint8_t *p = mmap(NULL, map + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	uintptr_t start = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	size_t head = start - (uintptr_t)p, tail = HUGE - head;
	if (head)
		munmap(p, head);
	if (tail)
		munmap((uint8_t *)start + map, tail);
#ifdef MADV_HUGEPAGE
	madvise((void *)start, map, MADV_HUGEPAGE); /* a hint: no THP, no harm */
#endif
	header *h = (header *)start;
	h->cap = map - HEADER;
	h->map = map;
	return h;
}

void *pq_bigbuf_alloc(size_t n)
{
	header *h = NULL;
	pthread_mutex_lock(&lock);
	/* the smallest kept buffer that fits and wastes at most half */
	unsigned best = MAX_KEPT;
	for (unsigned i = 0; i < nkept; i++)
		if (kept[i]->cap >= n && kept[i]->cap / 2 <= n + PAGE &&
		    (best == MAX_KEPT || kept[i]->cap < kept[best]->cap))
			best = i;
	if (best < MAX_KEPT) {
		h = kept[best];
		kept[best] = kept[--nkept];
		kept_bytes -= h->map;
		pq_budget_release(budget, h->map);
	}
	pthread_mutex_unlock(&lock);
	if (!h)
		h = map_new(n);
	return h ? (uint8_t *)h + HEADER : NULL;
}

void pq_bigbuf_free(void *p)
{
	if (!p)
		return;
	header *h = (header *)((uint8_t *)p - HEADER);
	/* kept only where it fits as things stand: a spare never makes the
	 * budget push out what is in use */
	pthread_mutex_lock(&lock);
	pq_budget *b = budget;
	pthread_mutex_unlock(&lock);
	bool charged = pq_budget_try_charge_spare(b, h->map), keep = false;
	pthread_mutex_lock(&lock);
	if (charged && b == budget && nkept < MAX_KEPT && kept_bytes + h->map <= keep_max) {
		kept[nkept++] = h;
		kept_bytes += h->map;
		keep = true;
	}
	pthread_mutex_unlock(&lock);
	if (!keep) {
		if (charged)
			pq_budget_release(b, h->map);
		munmap(h, h->map);
	}
}

static void drop_all(void)
{
	for (unsigned i = 0; i < nkept; i++) {
		pq_budget_release(budget, kept[i]->map);
		munmap(kept[i], kept[i]->map);
	}
	nkept = 0;
	kept_bytes = 0;
}

void pq_bigbuf_configure(pq_budget *b, size_t keep_bytes)
{
	pthread_mutex_lock(&lock);
	drop_all();
	budget = b;
	keep_max = keep_bytes;
	pthread_mutex_unlock(&lock);
}

void pq_bigbuf_trim(void)
{
	pthread_mutex_lock(&lock);
	drop_all();
	pthread_mutex_unlock(&lock);
}

size_t pq_bigbuf_shrink(size_t need)
{
	size_t got = 0;
	pthread_mutex_lock(&lock);
	while (nkept && got < need) {
		header *h = kept[--nkept];
		kept_bytes -= h->map;
		got += h->map;
		pq_budget_release(budget, h->map);
		munmap(h, h->map);
	}
	pthread_mutex_unlock(&lock);
	return got;
}

#else /* AddressSanitizer: plain buffers, every overrun reported */

void *pq_bigbuf_alloc(size_t n)
{
	return malloc(n ? n : 1);
}

size_t pq_bigbuf_footprint(size_t n)
{
	return n;
}

size_t pq_bigbuf_capacity(size_t n)
{
	return n;
}

void pq_bigbuf_free(void *p)
{
	free(p);
}

void pq_bigbuf_configure(pq_budget *b, size_t keep_bytes)
{
	(void)b, (void)keep_bytes;
}

void pq_bigbuf_trim(void)
{
}

size_t pq_bigbuf_shrink(size_t need)
{
	(void)need;
	return 0;
}

#endif
