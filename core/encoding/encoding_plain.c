#include "config.h"

/* PLAIN (Encodings.md, "PLAIN = 0"): values back to back, little endian;
 * BOOLEAN bit-packed LSB first; BYTE_ARRAY as a 4-byte length then the
 * bytes; FIXED_LEN_BYTE_ARRAY and INT96 as raw bytes. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

static const char *type_name(int32_t type)
{
	static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96",
					    "FLOAT", "DOUBLE", "BYTE_ARRAY",
					    "FIXED_LEN_BYTE_ARRAY"};
	return type >= 0 && type <= 7 ? names[type] : "unknown type";
}

/* Bytes per value of the fixed-width types; 0 for BOOLEAN and BYTE_ARRAY,
 * -1 for an unknown type. */
static int64_t fixed_width(int32_t type, int32_t type_length)
{
	if (type == PQ_FIXED_LEN_BYTE_ARRAY)
		return type_length; /* a bad length is the caller's error to name */
	if (type == PQ_BOOLEAN || type == PQ_BYTE_ARRAY)
		return 0;
	size_t w = pq_value_width(type, type_length);
	return w ? (int64_t)w : -1;
}

/* Copies n little-endian numbers of w (4 or 8) bytes, or raw bytes (w other). */
static void copy_le(uint8_t *dst, const uint8_t *src, size_t n, size_t w)
{
#if PQ_BIG_ENDIAN
	if (w == 4 || w == 8) {
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < w; k++)
				dst[i * w + k] = src[i * w + w - 1 - k];
		return;
	}
#endif
	if (n && w)
		memcpy(dst, src, n * w);
}

static pq_status decode_bool(const uint8_t *p, size_t len, size_t n, pq_values *out,
			     size_t *used, pq_arena *arena, pq_error *err)
{
	size_t bytes = n / 8 + (n % 8 != 0);
	PQ_CHECK(bytes <= len, err, PQ_ECORRUPT,
		 "PLAIN BOOLEAN: %zu values need %zu bytes, %zu present", n, bytes, len);
	uint8_t *b = pq_arena_calloc(arena, n, 1);
	PQ_CHECK(b, err, PQ_ENOMEM, "PLAIN BOOLEAN: out of memory for %zu values", n);
	size_t full = n / 8;
	for (size_t i = 0; i < full; i++) {
		unsigned c = p[i];
		for (unsigned k = 0; k < 8; k++)
			b[8 * i + k] = (uint8_t)((c >> k) & 1);
	}
	for (size_t i = full * 8; i < n; i++)
		b[i] = (uint8_t)((p[i / 8] >> (i % 8)) & 1);
	out->v.b = b;
	if (used)
		*used = bytes;
	return PQ_OK;
}

static pq_status decode_byte_array(const uint8_t *p, size_t len, size_t n, pq_values *out,
				   size_t *used, pq_arena *arena, pq_error *err)
{
	/* Each value takes at least its 4-byte length. */
	PQ_CHECK(n <= len / 4, err, PQ_ECORRUPT,
		 "PLAIN BYTE_ARRAY: %zu values need at least %zu bytes, %zu present", n,
		 n <= SIZE_MAX / 4 ? n * 4 : SIZE_MAX, len);
	/* every element is written below before out->v.ba is set (n <= len / 4:
	 * no overflow) */
	pq_bytes *ba = n ? pq_arena_alloc_uninit(arena, n * sizeof *ba) : pq_arena_calloc(arena, 1, sizeof *ba);
	PQ_CHECK(ba, err, PQ_ENOMEM, "PLAIN BYTE_ARRAY: out of memory for %zu values", n);
	size_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		PQ_CHECK(len - pos >= 4, err, PQ_ECORRUPT,
			 "PLAIN BYTE_ARRAY: value %zu at byte %zu: length truncated", i, pos);
		uint32_t l = pq_load32le(p + pos);
		PQ_CHECK(l <= INT32_MAX, err, PQ_ECORRUPT,
			 "PLAIN BYTE_ARRAY: value %zu at byte %zu: length %u is negative as int32",
			 i, pos, l);
		pos += 4;
		PQ_CHECK(l <= len - pos, err, PQ_ECORRUPT,
			 "PLAIN BYTE_ARRAY: value %zu at byte %zu: length %u exceeds the %zu bytes left",
			 i, pos - 4, l, len - pos);
		ba[i].p = p + pos;
		ba[i].n = l;
		pos += l;
	}
	out->v.ba = ba;
	if (used)
		*used = pos;
	return PQ_OK;
}

bool pq_plain_view(int32_t type, int32_t type_length, const uint8_t *p, size_t len, size_t n,
		   pq_values *out, size_t *used)
{
#if PQ_BIG_ENDIAN
	(void)type, (void)type_length, (void)p, (void)len, (void)n, (void)out, (void)used;
	return false;
#else
	int64_t w = fixed_width(type, type_length);
	if (w <= 0 || n == 0 || n > len / (size_t)w)
		return false;
	/* a typed array needs its element's alignment (INT96 is 3 words) */
	size_t align = type == PQ_FIXED_LEN_BYTE_ARRAY ? 1 : type == PQ_INT96 ? 4 : (size_t)w;
	if ((uintptr_t)p % align)
		return false;
	out->type = type;
	out->type_length = type == PQ_INT96 ? 12 : type == PQ_FIXED_LEN_BYTE_ARRAY ? type_length : 0;
	out->n = n;
	out->v.any = (void *)(uintptr_t)p;
	if (used)
		*used = n * (size_t)w;
	return true;
#endif
}

pq_status pq_decode_plain(int32_t type, int32_t type_length, const uint8_t *p, size_t len, size_t n,
			  pq_values *out, size_t *used, pq_arena *arena, pq_error *err)
{
	int64_t w = fixed_width(type, type_length);
	PQ_CHECK(w >= 0, err, PQ_ECORRUPT,
		 type == PQ_FIXED_LEN_BYTE_ARRAY ? "PLAIN: FIXED_LEN_BYTE_ARRAY length %d is negative"
						 : "PLAIN: unknown physical type %d",
		 type == PQ_FIXED_LEN_BYTE_ARRAY ? type_length : type);
	out->type = type;
	out->type_length = type == PQ_INT96 ? 12 : type == PQ_FIXED_LEN_BYTE_ARRAY ? type_length : 0;
	out->n = n;
	if (type == PQ_BOOLEAN)
		return decode_bool(p, len, n, out, used, arena, err);
	if (type == PQ_BYTE_ARRAY)
		return decode_byte_array(p, len, n, out, used, arena, err);
	size_t wz = (size_t)w;
	PQ_CHECK(wz == 0 || n <= len / wz, err, PQ_ECORRUPT,
		 "PLAIN %s: %zu values of %zu bytes do not fit in the %zu bytes present",
		 type_name(type), n, wz, len);
	/* every byte is written below: no zeroing (n * wz <= len, no overflow) */
	uint8_t *dst = n && wz ? pq_arena_alloc_uninit(arena, n * wz) : pq_arena_calloc(arena, n, wz);
	PQ_CHECK(dst, err, PQ_ENOMEM, "PLAIN %s: out of memory for %zu values", type_name(type), n);
	copy_le(dst, p, n, wz);
	out->v.any = dst;
	if (used)
		*used = n * wz;
	return PQ_OK;
}

pq_status pq_encode_plain(const pq_values *in, pq_buf *out, pq_error *err)
{
	int64_t w = fixed_width(in->type, in->type_length);
	PQ_CHECK(w >= 0, err, PQ_EINVAL, "PLAIN encoder: bad type %d / length %d", in->type,
		 in->type_length);
	size_t n = in->n;
	if (in->type == PQ_BOOLEAN) {
		size_t bytes = n / 8 + (n % 8 != 0);
		if (!pq_buf_grow(out, bytes))
			return pq_fail(err, PQ_ENOMEM, "PLAIN encoder: out of memory");
		uint8_t *dst = out->p + out->len;
		memset(dst, 0, bytes);
		for (size_t i = 0; i < n; i++) {
			PQ_CHECK(in->v.b[i] <= 1, err, PQ_EINVAL,
				 "PLAIN encoder: BOOLEAN value %u at %zu is not 0 or 1", in->v.b[i], i);
			dst[i / 8] = (uint8_t)(dst[i / 8] | in->v.b[i] << (i % 8));
		}
		out->len += bytes;
		return PQ_OK;
	}
	if (in->type == PQ_BYTE_ARRAY) {
		for (size_t i = 0; i < n; i++) {
			PQ_CHECK(in->v.ba[i].n <= INT32_MAX, err, PQ_EINVAL,
				 "PLAIN encoder: BYTE_ARRAY value %zu has %zu bytes, over 2^31-1", i,
				 in->v.ba[i].n);
			uint8_t l[4];
			pq_store32le(l, (uint32_t)in->v.ba[i].n);
			pq_buf_append(out, l, 4);
			pq_buf_append(out, in->v.ba[i].p, in->v.ba[i].n);
		}
		PQ_CHECK(!out->oom, err, PQ_ENOMEM, "PLAIN encoder: out of memory");
		return PQ_OK;
	}
	size_t wz = (size_t)w;
	PQ_CHECK(wz == 0 || n <= SIZE_MAX / wz, err, PQ_EINVAL, "PLAIN encoder: %zu values too many",
		 n);
	if (!pq_buf_grow(out, n * wz))
		return pq_fail(err, PQ_ENOMEM, "PLAIN encoder: out of memory");
	copy_le(out->p + out->len, in->v.any, n, wz);
	out->len += n * wz;
	return PQ_OK;
}
