/* A growable output buffer with a sticky out-of-memory flag, so rendering
 * loops append without checking every call and test once at the end. */
#ifndef PQ_BUF_H
#define PQ_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pq_error.h"

struct pq_budget;

typedef struct pq_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
	/* When set, the capacity is charged to it (pq_budget.h) while the
	 * buffer holds it: growth the budget refuses sets oom and refused
	 * (the bytes asked for). pq_buf_free gives the charge back;
	 * pq_buf_take too (the taker counts the bytes as it sees fit). */
	struct pq_budget *budget;
	size_t charged, refused;
	/* Set by the owner: capacities from PQ_BIGBUF_MIN up come from
	 * pq_bigbuf (huge pages, reused when freed: buffers that are filled
	 * over and over, such as a stream's window). Such a buffer is freed
	 * with pq_buf_free; pq_buf_take refuses it (NULL, oom). */
	bool big;
	bool in_big; /* p is a pq_bigbuf buffer */
} pq_buf;

#define PQ_BUF_INIT {NULL, 0, 0, false, NULL, 0, 0, false, false}

/* Ensures room for extra more bytes; false (and oom set) on failure. */
bool pq_buf_grow(pq_buf *b, size_t extra);
void pq_buf_free(pq_buf *b);
void pq_buf_printf(pq_buf *b, const char *fmt, ...) PQ_PRINTF(2, 3);
/* Hands the bytes to the caller (who frees them) and resets the buffer
 * (not for a buffer in pq_bigbuf: NULL). */
uint8_t *pq_buf_take(pq_buf *b, size_t *len);

/* The byte at offset off of b's contents (off <= len). A buffer that never
 * grew has no storage (p is NULL) and NULL + 0 is undefined in C, so
 * views of empty values point at a static empty string instead. */
static inline const uint8_t *pq_buf_at(const pq_buf *b, size_t off)
{
	return b->p ? b->p + off : (const uint8_t *)"";
}

static inline void pq_buf_append(pq_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n && !pq_buf_grow(b, n))
		return;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void pq_buf_putc(pq_buf *b, char c)
{
	if (b->cap == b->len && !pq_buf_grow(b, 1))
		return;
	b->p[b->len++] = (uint8_t)c;
}

static inline void pq_buf_puts(pq_buf *b, const char *s)
{
	pq_buf_append(b, s, strlen(s));
}

#endif
