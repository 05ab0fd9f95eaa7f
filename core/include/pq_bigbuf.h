/* Big buffers (a decompressed page, a decoded container chunk: 256 KiB and
 * more) that come and go at the rate data is read.
 *
 * A fresh buffer costs a page fault per 4 KiB on first touch, and on a
 * virtual machine a fault costs more than decompressing the page (20 ms
 * for 5 MiB measured on the CI machine class, 0.4 ms with huge pages).
 * So these buffers are mapped 2 MiB-aligned with transparent huge pages
 * asked for (MADV_HUGEPAGE), and freed ones are kept for the next
 * allocation, up to a bound (pq_bigbuf_configure) that is counted in a
 * memory budget. Thread-safe. Under AddressSanitizer they are plain
 * malloc'd buffers, so overruns are still caught. */
#ifndef PQ_BIGBUF_H
#define PQ_BIGBUF_H

#include <stddef.h>

struct pq_budget;

/* Below this, malloc serves better (glibc's heaps reuse small blocks). */
#define PQ_BIGBUF_MIN ((size_t)256 << 10)

/* n bytes, not zeroed, 64-byte aligned; NULL when out of memory. */
void *pq_bigbuf_alloc(size_t n);
/* The memory an allocation of n bytes really holds (what to charge). */
size_t pq_bigbuf_footprint(size_t n);
/* The bytes an allocation of n bytes can hold (n or more: the rest of its
 * last 4 KiB page). */
size_t pq_bigbuf_capacity(size_t n);
/* Back to the kept buffers, or unmapped. NULL is fine. */
void pq_bigbuf_free(void *p);
/* Keep at most keep_bytes of freed buffers (default 32 MiB), each charged
 * to budget while kept (NULL: not counted); a buffer the budget refuses
 * is unmapped. Call before sharing, or between uses. */
void pq_bigbuf_configure(struct pq_budget *budget, size_t keep_bytes);
/* Unmaps every kept buffer (an idle daemon gives its memory back). */
void pq_bigbuf_trim(void);
/* Unmaps kept buffers until at least need bytes went (a full budget's
 * reclaim hook); returns the bytes unmapped. */
size_t pq_bigbuf_shrink(size_t need);

#endif
