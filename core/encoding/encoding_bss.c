#include "config.h"

/* BYTE_STREAM_SPLIT (Encodings.md, "BYTE_STREAM_SPLIT = 9"): for values of
 * K bytes, byte k of every value goes to stream k; the K streams of N bytes
 * are concatenated. No header: N is the page's value section length / K. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

/* Bytes per value, or 0 when the type does not support the encoding
 * (BOOLEAN, INT96, BYTE_ARRAY: BYTE_STREAM_SPLIT is defined for the other
 * fixed-width types only). */
static size_t bss_width(int32_t type, int32_t type_length)
{
	return type == PQ_BOOLEAN || type == PQ_INT96 ? 0 : pq_value_width(type, type_length);
}

/* Gathers n values of constant width K from streams of length stride. The
 * output is little-endian bytes; numeric types are fixed up afterwards on
 * big-endian hosts. */
static PQ_ALWAYS_INLINE void gather_k(const uint8_t *p, size_t stride, size_t n, const size_t k,
				      uint8_t *dst)
{
	for (size_t i = 0; i < n; i++)
		for (size_t s = 0; s < k; s++)
			dst[i * k + s] = p[s * stride + i];
}

static PQ_ALWAYS_INLINE void scatter_k(const uint8_t *src, size_t n, const size_t k, uint8_t *dst)
{
	for (size_t s = 0; s < k; s++)
		for (size_t i = 0; i < n; i++)
			dst[s * n + i] = src[i * k + s];
}

#if PQ_BIG_ENDIAN
static void swap_words(uint8_t *d, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++)
		for (size_t a = 0, b = k - 1; a < b; a++, b--) {
			uint8_t t = d[i * k + a];
			d[i * k + a] = d[i * k + b];
			d[i * k + b] = t;
		}
}
#endif

pq_status pq_decode_byte_stream_split(int32_t type, int32_t type_length, const uint8_t *p,
				      size_t len, size_t n, pq_values *out, pq_arena *arena,
				      pq_error *err)
{
	size_t k = bss_width(type, type_length);
	PQ_CHECK(k, err, PQ_ECORRUPT,
		 "BYTE_STREAM_SPLIT: physical type %d (length %d) is not supported", type,
		 type_length);
	PQ_CHECK(len % k == 0, err, PQ_ECORRUPT,
		 "BYTE_STREAM_SPLIT: %zu bytes do not split into %zu streams", len, k);
	size_t stride = len / k;
	PQ_CHECK(n <= stride, err, PQ_ECORRUPT,
		 "BYTE_STREAM_SPLIT: %zu values expected, streams hold %zu", n, stride);
	uint8_t *dst = pq_arena_calloc(arena, n, k);
	PQ_CHECK(dst, err, PQ_ENOMEM, "BYTE_STREAM_SPLIT: out of memory for %zu values", n);
	if (k == 4)
		gather_k(p, stride, n, 4, dst);
	else if (k == 8)
		gather_k(p, stride, n, 8, dst);
	else
		gather_k(p, stride, n, k, dst);
#if PQ_BIG_ENDIAN
	if (type != PQ_FIXED_LEN_BYTE_ARRAY)
		swap_words(dst, n, k);
#endif
	out->type = type;
	out->type_length = type == PQ_FIXED_LEN_BYTE_ARRAY ? type_length : 0;
	out->n = n;
	out->v.any = dst;
	return PQ_OK;
}

pq_status pq_encode_byte_stream_split(const pq_values *in, pq_buf *out, pq_error *err)
{
	size_t k = bss_width(in->type, in->type_length);
	PQ_CHECK(k, err, PQ_EINVAL,
		 "BYTE_STREAM_SPLIT encoder: type %d (length %d) is not supported", in->type,
		 in->type_length);
	size_t n = in->n;
	PQ_CHECK(n <= SIZE_MAX / k, err, PQ_EINVAL, "BYTE_STREAM_SPLIT encoder: too many values");
	if (!pq_buf_grow(out, n * k))
		return pq_fail(err, PQ_ENOMEM, "BYTE_STREAM_SPLIT encoder: out of memory");
	const uint8_t *src = in->v.any;
	uint8_t *dst = out->p + out->len;
#if PQ_BIG_ENDIAN
	pq_buf tmp = PQ_BUF_INIT;
	if (in->type != PQ_FIXED_LEN_BYTE_ARRAY) {
		pq_buf_append(&tmp, src, n * k);
		if (tmp.oom)
			return pq_fail(err, PQ_ENOMEM, "BYTE_STREAM_SPLIT encoder: out of memory");
		swap_words(tmp.p, n, k);
		src = tmp.p;
	}
#endif
	if (k == 4)
		scatter_k(src, n, 4, dst);
	else if (k == 8)
		scatter_k(src, n, 8, dst);
	else
		scatter_k(src, n, k, dst);
#if PQ_BIG_ENDIAN
	pq_buf_free(&tmp);
#endif
	out->len += n * k;
	return PQ_OK;
}
