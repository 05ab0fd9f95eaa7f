/* Shared by the render files only. */
#ifndef PQ_RENDER_INTERNAL_H
#define PQ_RENDER_INTERNAL_H
#ifndef PQ_RENDER_INTERNAL
#error "render_internal.h is private to core/render/"
#endif

/* "00" "01" ... "99": two digits per lookup. */
extern const char pq_two_digits[201];

static inline char *pq_put2(char *o, unsigned v) /* v < 100 */
{
	o[0] = pq_two_digits[2 * v];
	o[1] = pq_two_digits[2 * v + 1];
	return o + 2;
}

#endif
