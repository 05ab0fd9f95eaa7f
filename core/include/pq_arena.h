/* Arena allocation: many small objects freed together (a parsed footer,
 * a decoded page). Memory is zeroed. A byte limit caps what hostile input
 * can make us allocate. */
#ifndef PQ_ARENA_H
#define PQ_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "pq_error.h"

typedef struct pq_arena_block pq_arena_block;
struct pq_budget;

typedef struct pq_arena {
	pq_arena_block *head;
	size_t used;  /* bytes handed out, for limits and accounting */
	size_t held;  /* bytes of blocks held (what the arena costs) */
	size_t limit; /* 0: no limit */
	/* Blocks are charged to it (pq_budget.h) and released by
	 * pq_arena_free: the arena owns its charge. NULL: not counted. */
	struct pq_budget *budget;
	size_t refused; /* a block the budget refused (bytes), 0 if none */
} pq_arena;

void pq_arena_init(pq_arena *a, size_t limit);
/* Counts the arena's blocks against budget (right after init, before
 * any allocation). An allocation the budget refuses returns NULL and
 * leaves refused set (pq_arena_budget_error says so). */
void pq_arena_use_budget(pq_arena *a, struct pq_budget *budget);
/* Zeroed, 16-byte aligned; NULL when out of memory or over the limit. */
void *pq_arena_alloc(pq_arena *a, size_t size);
/* The same without zeroing, for buffers the caller fills completely
 * (a page body read from the file, a decompressor's exact output). */
void *pq_arena_alloc_uninit(pq_arena *a, size_t size);
/* n * size with overflow check. */
void *pq_arena_calloc(pq_arena *a, size_t n, size_t size);
void *pq_arena_memdup(pq_arena *a, const void *p, size_t n);
void pq_arena_free(pq_arena *a);
/* When st failed because the budget refused a block: err rewritten to
 * say so (PQ_EBUDGET, the bytes and the budget); else st unchanged. */
pq_status pq_arena_budget_error(const pq_arena *a, pq_status st, pq_error *err);
/* Memory the arena holds, for caches that count what they keep. */
static inline size_t pq_arena_footprint(const pq_arena *a) { return a->held; }

#endif
