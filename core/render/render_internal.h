/* Shared by the render files only. */
#ifndef PQ_RENDER_INTERNAL_H
#define PQ_RENDER_INTERNAL_H
#ifndef PQ_RENDER_INTERNAL
#error "render_internal.h is private to core/render/"
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

#endif

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

#endif
