#include "config.h"

#include "pq_buf.h"
#include "pq_bigbuf.h"
#include "pq_budget.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool pq_buf_grow(pq_buf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->cap - b->len >= extra)
		return true;
	size_t want = b->len + extra;
	if (want < b->len) {
		b->oom = true;
		return false;
	}
	size_t cap = b->cap ? b->cap : 256;
	while (cap < want) {
		if (cap > SIZE_MAX / 2) {
			cap = want;
			break;
		}
		cap *= 2;
	}
	bool big = b->big && cap >= PQ_BIGBUF_MIN;
	/* a big buffer holds its whole mapping: use it and charge it */
	if (big)
		cap = pq_bigbuf_capacity(cap);
	size_t more = cap > b->charged ? cap - b->charged : 0;
	if (b->budget && !pq_budget_try_charge(b->budget, more)) {
		b->refused = more;
		b->oom = true;
		return false;
	}
	uint8_t *p;
	if (big) {
		p = pq_bigbuf_alloc(cap);
		if (p && b->len)
			memcpy(p, b->p, b->len);
		if (p) {
			if (b->in_big)
				pq_bigbuf_free(b->p);
			else
				free(b->p);
		}
	} else {
		p = realloc(b->p, cap);
	}
	if (!p) {
		if (b->budget)
			pq_budget_release(b->budget, more);
		b->oom = true;
		return false;
	}
	b->in_big = big;
	if (b->budget)
		b->charged += more;
	b->p = p;
	b->cap = cap;
	return true;
}

static void uncharge(pq_buf *b)
{
	pq_budget_release(b->budget, b->charged);
	b->charged = 0;
	b->refused = 0;
}

void pq_buf_free(pq_buf *b)
{
	if (b->in_big)
		pq_bigbuf_free(b->p);
	else
		free(b->p);
	b->in_big = false;
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = false;
	uncharge(b);
}

void pq_buf_printf(pq_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		pq_buf_append(b, tmp, (size_t)n);
		return;
	}
	if (!pq_buf_grow(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

uint8_t *pq_buf_take(pq_buf *b, size_t *len)
{
	if (b->in_big) {
		b->oom = true;
		return NULL;
	}
	uint8_t *p = b->p;
	if (len)
		*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = false;
	uncharge(b);
	return p;
}
