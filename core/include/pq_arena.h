/* Arena allocation: many small objects freed together (a parsed footer,
 * a decoded page). Memory is zeroed. A byte limit caps what hostile input
 * can make us allocate. */
#ifndef PQ_ARENA_H
#define PQ_ARENA_H

#include <stddef.h>

typedef struct pq_arena_block pq_arena_block;

typedef struct pq_arena {
	pq_arena_block *head;
	size_t used;  /* bytes handed out, for limits and accounting */
	size_t held;  /* bytes of blocks held (what the arena costs) */
	size_t limit; /* 0: no limit */
} pq_arena;

void pq_arena_init(pq_arena *a, size_t limit);
/* Zeroed, 16-byte aligned; NULL when out of memory or over the limit. */
void *pq_arena_alloc(pq_arena *a, size_t size);
/* The same without zeroing, for buffers the caller fills completely
 * (a page body read from the file, a decompressor's exact output). */
void *pq_arena_alloc_uninit(pq_arena *a, size_t size);
/* n * size with overflow check. */
void *pq_arena_calloc(pq_arena *a, size_t n, size_t size);
void *pq_arena_memdup(pq_arena *a, const void *p, size_t n);
void pq_arena_free(pq_arena *a);
/* Memory the arena holds, for caches that count what they keep. */
static inline size_t pq_arena_footprint(const pq_arena *a) { return a->held; }

#endif
