#include "config.h"

#define PQ_CORE_INTERNAL
#include "file_internal.h"

#include <string.h>

pq_status pq_values_to_fixed(pq_values *v, int32_t w, pq_arena *arena, pq_error *err)
{
	PQ_CHECK(w >= 0, err, PQ_ECORRUPT, "negative fixed length %d", w);
	uint8_t *out = pq_arena_calloc(arena, v->n ? v->n : 1, (size_t)(w ? w : 1));
	PQ_CHECK(out, err, PQ_ENOMEM, "no memory for %zu fixed-length values", v->n);
	for (size_t i = 0; i < v->n; i++) {
		PQ_CHECK(v->v.ba[i].n == (size_t)w, err, PQ_ECORRUPT,
			 "value %zu has %zu bytes in a FIXED_LEN_BYTE_ARRAY(%d) column", i,
			 v->v.ba[i].n, w);
		if (w)
			memcpy(out + i * (size_t)w, v->v.ba[i].p, (size_t)w);
	}
	v->v.fixed = out;
	v->type = PQ_FIXED_LEN_BYTE_ARRAY;
	v->type_length = w;
	return PQ_OK;
}
