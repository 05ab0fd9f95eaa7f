/* Shared by the render files only. */
#ifndef PQ_RENDER_INTERNAL_H
#define PQ_RENDER_INTERNAL_H
#ifndef PQ_RENDER_INTERNAL
#error "render_internal.h is private to core/render/"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_values.h"

/* "00" "01" ... "99": two digits per lookup. */
extern const char pq_two_digits[201];

static inline char *pq_put2(char *o, unsigned v) /* v < 100 */
{
	o[0] = pq_two_digits[2 * v];
	o[1] = pq_two_digits[2 * v + 1];
	return o + 2;
}

/* 10^0 .. 10^19. */
extern const uint64_t pq_pow10_u64[20];

/* Decimal digits of v: from its bit length (log10(2) ~ 1233 / 4096), then
 * one comparison. */
static inline size_t pq_u64_digits(uint64_t v)
{
	uint64_t w = v | 1; /* as many digits as v, and 0 has one */
	unsigned bits = 64u - (unsigned)__builtin_clzll(w);
	size_t d = (bits * 1233u) >> 12;
	return d + (w >= pq_pow10_u64[d]);
}

/* Bytes of value i of a BYTE_ARRAY / FLBA / INT96 batch (false for the
 * other physical types). */
static inline bool pq_value_bytes(const pq_values *v, size_t i, const uint8_t **p, size_t *n)
{
	if (v->type == PQ_BYTE_ARRAY) {
		*p = v->v.ba[i].p;
		*n = v->v.ba[i].n;
		return true;
	}
	if ((v->type == PQ_FIXED_LEN_BYTE_ARRAY || v->type == PQ_INT96) && v->type_length >= 0) {
		*n = (size_t)v->type_length;
		*p = *n ? v->v.fixed + i * *n : v->v.fixed;
		return true;
	}
	return false;
}

/* Value i of an INT32 / INT64 batch (false for the other types). */
static inline bool pq_value_int(const pq_values *v, size_t i, int64_t *x)
{
	if (v->type == PQ_INT32)
		*x = v->v.i32[i];
	else if (v->type == PQ_INT64)
		*x = v->v.i64[i];
	else
		return false;
	return true;
}

#endif
