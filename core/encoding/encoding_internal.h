/* Helpers shared by the encoding files (core/encoding/bitpack.c, core/encoding/rle.c,
 * core/encoding_*.c): little-endian loads, varints, bit-packing kernels and
 * the raw delta codec. Not part of the library's interface. */
#ifndef PQ_ENCODING_INTERNAL_H
#define PQ_ENCODING_INTERNAL_H
#ifndef PQ_ENCODING_INTERNAL
#error "encoding_internal.h is private to core/encoding/"
#endif


#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_error.h"

#if defined(__GNUC__)
#define PQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PQ_ALWAYS_INLINE inline
#endif

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PQ_BIG_ENDIAN 1
#else
#define PQ_BIG_ENDIAN 0
#endif

static inline uint64_t pq_load64le(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if PQ_BIG_ENDIAN
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t pq_load32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void pq_store64le(uint8_t *p, uint64_t v)
{
#if PQ_BIG_ENDIAN
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

static inline void pq_store32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline size_t pq_min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ULEB128 varints (at most 10 bytes, value fits 64 bits). */
enum { PQ_VARINT_OK = 0, PQ_VARINT_TRUNCATED = -1, PQ_VARINT_OVERFLOW = -2 };

static inline int pq_uleb_read(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = *pos;
	for (unsigned shift = 0;; shift += 7) {
		if (i >= len)
			return PQ_VARINT_TRUNCATED;
		uint8_t c = p[i++];
		if (shift == 63 && c > 1)
			return PQ_VARINT_OVERFLOW;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	*pos = i;
	*out = v;
	return PQ_VARINT_OK;
}

static inline void pq_uleb_put(pq_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	pq_buf_append(b, tmp, n);
}

/* Zigzag in unsigned arithmetic: the result is the two's complement bits. */
static inline uint64_t pq_zigzag_decode(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static inline uint64_t pq_zigzag_encode(uint64_t v)
{
	return (v << 1) ^ (0 - (v >> 63));
}

/* Bit-packing, least significant bit first (the hybrid and delta order).
 * Unpacks count values of bw bits, starting at value index first of the
 * packed data in[0..avail). The caller checks that avail holds the bits of
 * the values wanted; bytes of a group past avail read as zero. */
void pq_unpack32(const uint8_t *in, size_t avail, int bw, uint64_t first, size_t count,
		 uint32_t *out);
void pq_unpack64(const uint8_t *in, size_t avail, int bw, uint64_t first, size_t count,
		 uint64_t *out);
/* Packs count values (their low bw bits) into exactly ceil(count*bw/8)
 * bytes at dst. */
void pq_pack64(uint8_t *dst, const uint64_t *v, size_t count, int bw);

/* DELTA_BINARY_PACKED into a new arena array of n int32 (is64 false) or
 * int64 values (see pq_decode_delta_binary_packed). Messages start with
 * what (e.g. "DELTA_LENGTH_BYTE_ARRAY lengths"). */
pq_status pq_delta_decode_alloc(const char *what, bool is64, const uint8_t *p, size_t len, size_t n,
				void **out, size_t *used, pq_arena *arena, pq_error *err);
/* DELTA_BINARY_PACKED of n int32 (is64 false) or int64 values. */
void pq_delta_encode(bool is64, const void *v, size_t n, pq_buf *out);

#endif
