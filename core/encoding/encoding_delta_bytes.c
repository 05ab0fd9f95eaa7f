#include "config.h"

/* The byte-array deltas (Encodings.md):
 *  - DELTA_LENGTH_BYTE_ARRAY (= 6): DELTA_BINARY_PACKED lengths, then all
 *    the bytes back to back;
 *  - DELTA_BYTE_ARRAY (= 7): DELTA_BINARY_PACKED prefix lengths (bytes
 *    shared with the previous value), then the suffixes as
 *    DELTA_LENGTH_BYTE_ARRAY.
 * Lengths are written by real writers as INT32 deltas, so they are decoded
 * as INT32 and must not be negative. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

static pq_status dlba_decode(const char *what, const uint8_t *p, size_t len, size_t n,
			     pq_bytes **out, size_t *used, pq_arena *arena, pq_error *err)
{
	void *arr;
	size_t pos;
	PQ_TRY(pq_delta_decode_alloc(what, false, p, len, n, &arr, &pos, arena, err));
	const int32_t *lens = arr;
	pq_bytes *ba = pq_arena_calloc(arena, n, sizeof *ba);
	PQ_CHECK(ba, err, PQ_ENOMEM, "%s: out of memory for %zu values", what, n);
	for (size_t i = 0; i < n; i++) {
		PQ_CHECK(lens[i] >= 0, err, PQ_ECORRUPT, "%s: value %zu has negative length %d",
			 what, i, (int)lens[i]);
		size_t l = (size_t)lens[i];
		PQ_CHECK(l <= len - pos, err, PQ_ECORRUPT,
			 "%s: value %zu at byte %zu: length %zu exceeds the %zu bytes left", what, i,
			 pos, l, len - pos);
		ba[i].p = p + pos;
		ba[i].n = l;
		pos += l;
	}
	*out = ba;
	if (used)
		*used = pos;
	return PQ_OK;
}

pq_status pq_decode_delta_length_byte_array(const uint8_t *p, size_t len, size_t n,
					    pq_values *out, size_t *used, pq_arena *arena,
					    pq_error *err)
{
	pq_bytes *ba;
	PQ_TRY(dlba_decode("DELTA_LENGTH_BYTE_ARRAY", p, len, n, &ba, used, arena, err));
	out->type = PQ_BYTE_ARRAY;
	out->type_length = 0;
	out->n = n;
	out->v.ba = ba;
	return PQ_OK;
}

/* Rebuilds the values back to back in one arena block (so FIXED_LEN_BYTE_ARRAY
 * output is contiguous); *base gets that block. */
static pq_status dba_decode(const uint8_t *p, size_t len, size_t n, pq_bytes **out,
			    uint8_t **base, size_t *used, pq_arena *arena, pq_error *err)
{
	void *arr;
	size_t pos;
	PQ_TRY(pq_delta_decode_alloc("DELTA_BYTE_ARRAY prefix lengths", false, p, len, n, &arr,
				     &pos, arena, err));
	const int32_t *plen = arr;
	pq_bytes *suf;
	size_t sused;
	pq_status st = dlba_decode("DELTA_BYTE_ARRAY suffixes", p + pos, len - pos, n, &suf, &sused,
				   arena, err);
	if (st != PQ_OK)
		return pq_context(err, "at byte %zu", pos);
	/* Check the prefixes and size the output before allocating it. */
	uint64_t total = 0, prev = 0;
	for (size_t i = 0; i < n; i++) {
		PQ_CHECK(plen[i] >= 0 && (uint64_t)plen[i] <= prev, err, PQ_ECORRUPT,
			 "DELTA_BYTE_ARRAY: value %zu: prefix length %d is %s", i, (int)plen[i],
			 plen[i] < 0 ? "negative" : i ? "longer than the previous value"
						      : "not 0 for the first value");
		prev = (uint64_t)plen[i] + suf[i].n;
		total += prev;
		PQ_CHECK(total <= PQ_ENCODING_MAX_OUTPUT, err, PQ_ELIMIT,
			 "DELTA_BYTE_ARRAY: decoded values would exceed %zu bytes",
			 (size_t)PQ_ENCODING_MAX_OUTPUT);
	}
	uint8_t *dst = pq_arena_alloc(arena, total ? (size_t)total : 1);
	PQ_CHECK(dst, err, PQ_ENOMEM, "DELTA_BYTE_ARRAY: out of memory for %llu bytes",
		 (unsigned long long)total);
	*base = dst;
	pq_bytes *ba = (pq_bytes *)suf; /* rewritten in place: suffix i is read before value i is set */
	const uint8_t *prevp = dst;
	for (size_t i = 0; i < n; i++) {
		size_t pl = (size_t)plen[i], sl = suf[i].n;
		if (pl)
			memcpy(dst, prevp, pl);
		if (sl)
			memcpy(dst + pl, suf[i].p, sl);
		ba[i].p = dst;
		ba[i].n = pl + sl;
		prevp = dst;
		dst += pl + sl;
	}
	*out = ba;
	if (used)
		*used = pos + sused;
	return PQ_OK;
}

pq_status pq_decode_delta_byte_array(const uint8_t *p, size_t len, size_t n, pq_values *out,
				     size_t *used, pq_arena *arena, pq_error *err)
{
	pq_bytes *ba;
	uint8_t *base;
	PQ_TRY(dba_decode(p, len, n, &ba, &base, used, arena, err));
	out->type = PQ_BYTE_ARRAY;
	out->type_length = 0;
	out->n = n;
	out->v.ba = ba;
	return PQ_OK;
}

pq_status pq_decode_delta_byte_array_fixed(int32_t type_length, const uint8_t *p, size_t len,
					   size_t n, pq_values *out, size_t *used,
					   pq_arena *arena, pq_error *err)
{
	PQ_CHECK(type_length >= 0, err, PQ_ECORRUPT,
		 "DELTA_BYTE_ARRAY: FIXED_LEN_BYTE_ARRAY length %d is negative", type_length);
	pq_bytes *ba;
	uint8_t *base;
	PQ_TRY(dba_decode(p, len, n, &ba, &base, used, arena, err));
	for (size_t i = 0; i < n; i++)
		PQ_CHECK(ba[i].n == (size_t)type_length, err, PQ_ECORRUPT,
			 "DELTA_BYTE_ARRAY: value %zu has %zu bytes, FIXED_LEN_BYTE_ARRAY(%d) expected",
			 i, ba[i].n, type_length);
	out->type = PQ_FIXED_LEN_BYTE_ARRAY;
	out->type_length = type_length;
	out->n = n;
	out->v.fixed = base;
	return PQ_OK;
}

/* ---- encoders ---- */

/* Lengths of n values as INT32 deltas; fails if one is over 2^31-1. */
static pq_status put_lengths(const char *what, const int32_t *lens, size_t n, pq_buf *out,
			     pq_error *err)
{
	pq_delta_encode(false, lens, n, out);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "%s encoder: out of memory", what);
	return PQ_OK;
}

/* Value i of a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY pq_values. */
static inline pq_bytes value_at(const pq_values *in, size_t i)
{
	if (in->type == PQ_BYTE_ARRAY)
		return in->v.ba[i];
	return (pq_bytes){in->v.fixed + i * (size_t)in->type_length, (size_t)in->type_length};
}

static pq_status scratch_i32(pq_buf *s, size_t n, const char *what, pq_error *err)
{
	PQ_CHECK(n <= SIZE_MAX / 4 - 1 && pq_buf_grow(s, n * 4 + 4), err, PQ_ENOMEM,
		 "%s encoder: out of memory", what);
	return PQ_OK;
}

pq_status pq_encode_delta_length_byte_array(const pq_values *in, pq_buf *out, pq_error *err)
{
	static const char what[] = "DELTA_LENGTH_BYTE_ARRAY";
	PQ_CHECK(in->type == PQ_BYTE_ARRAY, err, PQ_EINVAL, "%s encoder: type %d is not BYTE_ARRAY",
		 what, in->type);
	pq_buf s = PQ_BUF_INIT;
	PQ_TRY(scratch_i32(&s, in->n, what, err));
	int32_t *lens = (int32_t *)(void *)s.p;
	for (size_t i = 0; i < in->n; i++) {
		if (in->v.ba[i].n > INT32_MAX) {
			pq_buf_free(&s);
			return pq_fail(err, PQ_EINVAL, "%s encoder: value %zu has %zu bytes, over 2^31-1",
				       what, i, in->v.ba[i].n);
		}
		lens[i] = (int32_t)in->v.ba[i].n;
	}
	pq_status st = put_lengths(what, lens, in->n, out, err);
	pq_buf_free(&s);
	PQ_TRY(st);
	for (size_t i = 0; i < in->n; i++)
		pq_buf_append(out, in->v.ba[i].p, in->v.ba[i].n);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "%s encoder: out of memory", what);
	return PQ_OK;
}

pq_status pq_encode_delta_byte_array(const pq_values *in, pq_buf *out, pq_error *err)
{
	static const char what[] = "DELTA_BYTE_ARRAY";
	PQ_CHECK(in->type == PQ_BYTE_ARRAY ||
			 (in->type == PQ_FIXED_LEN_BYTE_ARRAY && in->type_length >= 0),
		 err, PQ_EINVAL, "%s encoder: type %d is not BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY",
		 what, in->type);
	size_t n = in->n;
	pq_buf s = PQ_BUF_INIT;
	PQ_TRY(scratch_i32(&s, 2 * n, what, err));
	int32_t *plen = (int32_t *)(void *)s.p, *slen = plen + n;
	pq_bytes prev = {NULL, 0};
	for (size_t i = 0; i < n; i++) {
		pq_bytes cur = value_at(in, i);
		if (cur.n > INT32_MAX) {
			pq_buf_free(&s);
			return pq_fail(err, PQ_EINVAL, "%s encoder: value %zu has %zu bytes, over 2^31-1",
				       what, i, cur.n);
		}
		size_t k = 0, lim = pq_min_size(prev.n, cur.n);
		while (k < lim && prev.p[k] == cur.p[k])
			k++;
		plen[i] = (int32_t)k;
		slen[i] = (int32_t)(cur.n - k);
		prev = cur;
	}
	pq_status st = put_lengths(what, plen, n, out, err);
	if (st == PQ_OK)
		st = put_lengths(what, slen, n, out, err);
	if (st == PQ_OK)
		for (size_t i = 0; i < n; i++) {
			pq_bytes cur = value_at(in, i);
			pq_buf_append(out, cur.p + plen[i], (size_t)slen[i]);
		}
	pq_buf_free(&s);
	PQ_TRY(st);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "%s encoder: out of memory", what);
	return PQ_OK;
}
