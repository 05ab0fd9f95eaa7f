#include "config.h"

/* Dictionary encoding (Encodings.md, "PLAIN_DICTIONARY = 2 and
 * RLE_DICTIONARY = 8"): data pages hold a bit-width byte and then
 * RLE/bit-packed indices into the dictionary page's PLAIN values. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

pq_status pq_decode_dict_indices(const uint8_t *p, size_t len, uint32_t *out, size_t n,
				 size_t *used, pq_error *err)
{
	if (n == 0 && len == 0) {
		if (used)
			*used = 0;
		return PQ_OK;
	}
	PQ_CHECK(len >= 1, err, PQ_ECORRUPT, "dictionary indices: bit width byte missing");
	PQ_CHECK(p[0] <= 32, err, PQ_ECORRUPT, "dictionary indices: bit width %u exceeds 32", p[0]);
	size_t u;
	pq_status st = pq_rle_decode_u32(p + 1, len - 1, p[0], out, n, &u, err);
	if (st != PQ_OK)
		return pq_context(err, "dictionary indices (after the bit width byte)");
	if (used)
		*used = u + 1;
	return PQ_OK;
}

/* Element size of the dictionary's array, 0 for BYTE_ARRAY, -1 if unknown. */
static int64_t elem_size(const pq_values *d)
{
	if (d->type == PQ_BYTE_ARRAY)
		return 0;
	size_t w = pq_value_width(d->type, d->type_length);
	return w ? (int64_t)w : -1;
}

/* out[at + i] = dict[idx[i]] for i < k; out's array is already allocated. */
static pq_status gather(const pq_values *dict, size_t es, const uint32_t *idx, size_t k,
			pq_values *out, size_t at, pq_error *err)
{
	const size_t dn = dict->n;
	for (size_t i = 0; i < k; i++)
		PQ_CHECK(idx[i] < dn, err, PQ_ECORRUPT,
			 "dictionary: value %zu: index %u out of range (dictionary has %zu entries)",
			 at + i, idx[i], dn);
	switch (dict->type) {
	case PQ_BYTE_ARRAY:
		for (size_t i = 0; i < k; i++)
			out->v.ba[at + i] = dict->v.ba[idx[i]];
		break;
	case PQ_INT32:
	case PQ_FLOAT:
		for (size_t i = 0; i < k; i++)
			out->v.i32[at + i] = dict->v.i32[idx[i]];
		break;
	case PQ_INT64:
	case PQ_DOUBLE:
		for (size_t i = 0; i < k; i++)
			out->v.i64[at + i] = dict->v.i64[idx[i]];
		break;
	default: /* BOOLEAN, INT96, FIXED_LEN_BYTE_ARRAY: es-byte records */
		for (size_t i = 0; i < k; i++)
			memcpy(out->v.fixed + (at + i) * es, dict->v.fixed + idx[i] * es, es);
		break;
	}
	return PQ_OK;
}

static pq_status alloc_like(const pq_values *dict, size_t n, pq_values *out, size_t *es,
			    pq_arena *arena, pq_error *err)
{
	int64_t s = elem_size(dict);
	PQ_CHECK(s >= 0, err, PQ_ECORRUPT, "dictionary: physical type %d (length %d) unknown",
		 dict->type, dict->type_length);
	*es = (size_t)s;
	size_t bytes_each = dict->type == PQ_BYTE_ARRAY ? sizeof(pq_bytes) : *es;
	out->type = dict->type;
	out->type_length = dict->type_length;
	out->n = n;
	out->v.any = pq_arena_calloc(arena, n, bytes_each);
	PQ_CHECK(out->v.any, err, PQ_ENOMEM, "dictionary: out of memory for %zu values", n);
	return PQ_OK;
}

pq_status pq_dict_gather(const pq_values *dict, const uint32_t *idx, size_t n, pq_values *out,
			 pq_arena *arena, pq_error *err)
{
	size_t es;
	PQ_TRY(alloc_like(dict, n, out, &es, arena, err));
	return gather(dict, es, idx, n, out, 0, err);
}

pq_status pq_decode_rle_dictionary(const pq_values *dict, const uint8_t *p, size_t len, size_t n,
				   pq_values *out, size_t *used, pq_arena *arena, pq_error *err)
{
	enum { CHUNK = 1024 };
	size_t es;
	if (n)
		PQ_CHECK(len >= 1, err, PQ_ECORRUPT, "dictionary indices: bit width byte missing");
	PQ_CHECK(len == 0 || p[0] <= 32, err, PQ_ECORRUPT,
		 "dictionary indices: bit width %u exceeds 32", p[0]);
	PQ_TRY(alloc_like(dict, n, out, &es, arena, err));
	if (!n) {
		if (used)
			*used = len ? 1 : 0;
		return PQ_OK;
	}
	pq_rle_decoder d;
	PQ_TRY(pq_rle_decoder_init(&d, p + 1, len - 1, p[0], err));
	uint32_t idx[CHUNK];
	for (size_t at = 0; at < n;) {
		size_t k = pq_min_size(n - at, CHUNK);
		if (pq_rle_decoder_next(&d, idx, k, err) != PQ_OK)
			return pq_context(err, "dictionary indices (after the bit width byte)");
		PQ_TRY(gather(dict, es, idx, k, out, at, err));
		at += k;
	}
	if (used)
		*used = 1 + pq_rle_decoder_used(&d);
	return PQ_OK;
}
