#include "config.h"

/* Bit-packing kernels (least significant bit first, as the RLE/bit-packing
 * hybrid and DELTA_BINARY_PACKED use) and the deprecated BIT_PACKED level
 * encoding (most significant bit first).
 *
 * Unpacking works on groups of 8 values, which always start on a byte
 * boundary (8 * bw bits = bw bytes). Each value is taken from one unaligned
 * 64-bit little-endian load; the width is a compile-time constant inside the
 * per-width loops, so the shifts and masks fold. A group is read in place
 * when 8 bytes (16 for 64-bit values) of slack follow it in the input;
 * otherwise it is first copied to a zero-padded buffer, so loads never pass
 * the end of the input. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

int pq_bit_width(uint64_t max_value)
{
	int w = 0;
	while (max_value) {
		w++;
		max_value >>= 1;
	}
	return w;
}

/* ---- LSB-first unpacking, values up to 32 bits ---- */

/* Eight values of width w from src; src must have w + 8 readable bytes. */
static PQ_ALWAYS_INLINE void unpack8_32(const uint8_t *src, const int w, uint32_t *out)
{
	const uint64_t mask = ((uint64_t)1 << w) - 1;
	for (int i = 0; i < 8; i++) {
		const unsigned off = (unsigned)(i * w);
		out[i] = (uint32_t)((pq_load64le(src + (off >> 3)) >> (off & 7)) & mask);
	}
}

static PQ_ALWAYS_INLINE void unpack_groups32(const uint8_t *src, size_t ngroups, const int w,
					     uint32_t *out)
{
	for (size_t g = 0; g < ngroups; g++)
		unpack8_32(src + g * (size_t)w, w, out + 8 * g);
}

/* Group g of the packed data, tolerating its end past avail. */
static void unpack_group32_safe(const uint8_t *in, size_t avail, int w, uint64_t g,
				uint32_t out[8])
{
	uint8_t tmp[32 + 8] = {0};
	uint64_t start = g * (uint64_t)w;
	if (start < avail)
		memcpy(tmp, in + start, pq_min_size(avail - (size_t)start, (size_t)w));
	unpack8_32(tmp, w, out);
}

/* Number of groups from group g on that can be read in place. */
static size_t fast_groups(size_t avail, int w, size_t slack, uint64_t g, size_t full)
{
	if (avail < slack)
		return 0;
	uint64_t lim = (avail - slack) / (uint64_t)w; /* groups 0..lim-1 have slack */
	if (lim <= g)
		return 0;
	return lim - g < full ? (size_t)(lim - g) : full;
}

#define W8(M, a) M(a + 1) M(a + 2) M(a + 3) M(a + 4) M(a + 5) M(a + 6) M(a + 7) M(a + 8)

void pq_unpack32(const uint8_t *in, size_t avail, int bw, uint64_t first, size_t count,
		 uint32_t *out)
{
	if (bw <= 0 || count == 0) {
		memset(out, 0, count * sizeof *out);
		return;
	}
	uint32_t tmp[8];
	uint64_t g = first / 8;
	size_t skip = (size_t)(first % 8);
	if (skip) {
		unpack_group32_safe(in, avail, bw, g, tmp);
		size_t take = pq_min_size(8 - skip, count);
		memcpy(out, tmp + skip, take * sizeof *out);
		out += take;
		count -= take;
		g++;
	}
	size_t nfast = fast_groups(avail, bw, 8, g, count / 8);
	if (nfast) {
		const uint8_t *src = in + (size_t)(g * (uint64_t)bw);
		switch (bw) {
#define CASE32(W)                                        \
	case W:                                          \
		unpack_groups32(src, nfast, W, out);     \
		break;
			W8(CASE32, 0) W8(CASE32, 8) W8(CASE32, 16) W8(CASE32, 24)
#undef CASE32
		default:
			break;
		}
		out += 8 * nfast;
		count -= 8 * nfast;
		g += nfast;
	}
	while (count) {
		unpack_group32_safe(in, avail, bw, g, tmp);
		size_t take = pq_min_size(8, count);
		memcpy(out, tmp, take * sizeof *out);
		out += take;
		count -= take;
		g++;
	}
}

/* ---- LSB-first unpacking, values up to 64 bits ---- */

/* Eight values of width w; src must have w + 16 readable bytes. A value
 * can span 9 bytes (7 bits of offset + 64), hence the extra byte. */
static PQ_ALWAYS_INLINE void unpack8_64(const uint8_t *src, const int w, uint64_t *out)
{
	const uint64_t mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << (w & 63)) - 1;
	for (int i = 0; i < 8; i++) {
		const unsigned off = (unsigned)(i * w);
		const unsigned s = off & 7;
		const uint8_t *q = src + (off >> 3);
		uint64_t v = pq_load64le(q) >> s;
		if (s + (unsigned)w > 64)
			v |= (uint64_t)q[8] << ((64 - s) & 63);
		out[i] = v & mask;
	}
}

static PQ_ALWAYS_INLINE void unpack_groups64(const uint8_t *src, size_t ngroups, const int w,
					     uint64_t *out)
{
	for (size_t g = 0; g < ngroups; g++)
		unpack8_64(src + g * (size_t)w, w, out + 8 * g);
}

static void unpack_group64_safe(const uint8_t *in, size_t avail, int w, uint64_t g,
				uint64_t out[8])
{
	uint8_t tmp[64 + 16] = {0};
	uint64_t start = g * (uint64_t)w;
	if (start < avail)
		memcpy(tmp, in + start, pq_min_size(avail - (size_t)start, (size_t)w));
	unpack8_64(tmp, w, out);
}

void pq_unpack64(const uint8_t *in, size_t avail, int bw, uint64_t first, size_t count,
		 uint64_t *out)
{
	if (bw <= 0 || count == 0) {
		memset(out, 0, count * sizeof *out);
		return;
	}
	uint64_t tmp[8];
	uint64_t g = first / 8;
	size_t skip = (size_t)(first % 8);
	if (skip) {
		unpack_group64_safe(in, avail, bw, g, tmp);
		size_t take = pq_min_size(8 - skip, count);
		memcpy(out, tmp + skip, take * sizeof *out);
		out += take;
		count -= take;
		g++;
	}
	size_t nfast = fast_groups(avail, bw, 16, g, count / 8);
	if (nfast) {
		const uint8_t *src = in + (size_t)(g * (uint64_t)bw);
		switch (bw) {
#define CASE64(W)                                        \
	case W:                                          \
		unpack_groups64(src, nfast, W, out);     \
		break;
			W8(CASE64, 0) W8(CASE64, 8) W8(CASE64, 16) W8(CASE64, 24)
			W8(CASE64, 32) W8(CASE64, 40) W8(CASE64, 48) W8(CASE64, 56)
#undef CASE64
		default:
			break;
		}
		out += 8 * nfast;
		count -= 8 * nfast;
		g += nfast;
	}
	while (count) {
		unpack_group64_safe(in, avail, bw, g, tmp);
		size_t take = pq_min_size(8, count);
		memcpy(out, tmp, take * sizeof *out);
		out += take;
		count -= take;
		g++;
	}
}

/* ---- LSB-first packing ---- */

void pq_pack64(uint8_t *dst, const uint64_t *v, size_t count, int bw)
{
	if (bw <= 0)
		return;
	const uint64_t mask = bw >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bw) - 1;
	const unsigned w = (unsigned)bw;
	uint64_t acc = 0;
	unsigned nb = 0; /* bits pending in acc, always < 64 */
	for (size_t i = 0; i < count; i++) {
		uint64_t x = v[i] & mask;
		acc |= x << nb;
		if (nb + w >= 64) {
			pq_store64le(dst, acc);
			dst += 8;
			acc = nb ? x >> (64 - nb) : 0;
			nb = nb + w - 64;
		} else {
			nb += w;
		}
	}
	while (nb) {
		*dst++ = (uint8_t)acc;
		acc >>= 8;
		nb = nb > 8 ? nb - 8 : 0;
	}
}

/* ---- deprecated BIT_PACKED levels (most significant bit first) ---- */

static inline uint32_t load32be_tail(const uint8_t *p, size_t len, size_t at)
{
	uint32_t w = 0;
	for (size_t k = 0; k < 4; k++)
		w = w << 8 | (at + k < len ? p[at + k] : 0);
	return w;
}

pq_status pq_bitpacked_decode_levels(const uint8_t *p, size_t len, int bit_width, uint16_t *out,
				     size_t n, size_t *used, pq_error *err)
{
	PQ_CHECK(bit_width >= 0 && bit_width <= 16, err, PQ_ECORRUPT,
		 "BIT_PACKED levels: bit width %d is not in 0..16", bit_width);
	uint64_t bytes = ((uint64_t)n * (uint64_t)bit_width + 7) / 8;
	PQ_CHECK(bytes <= len, err, PQ_ECORRUPT,
		 "BIT_PACKED levels: %zu values of %d bits need %llu bytes, %zu present", n,
		 bit_width, (unsigned long long)bytes, len);
	if (used)
		*used = (size_t)bytes;
	if (bit_width == 0) {
		memset(out, 0, n * sizeof *out);
		return PQ_OK;
	}
	const unsigned w = (unsigned)bit_width;
	const uint32_t mask = ((uint32_t)1 << w) - 1;
	/* Values whose 4-byte big-endian window lies inside the input. */
	size_t nfast = 0;
	if (len >= 4) {
		uint64_t lim = (uint64_t)(len - 4) * 8 / w + 1;
		nfast = lim < n ? (size_t)lim : n;
	}
	uint64_t off = 0;
	size_t i = 0;
	for (; i < nfast; i++, off += w) {
		const uint8_t *q = p + (size_t)(off >> 3);
		uint32_t word = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
		out[i] = (uint16_t)((word >> (32 - (off & 7) - w)) & mask);
	}
	for (; i < n; i++, off += w) {
		uint32_t word = load32be_tail(p, len, (size_t)(off >> 3));
		out[i] = (uint16_t)((word >> (32 - (off & 7) - w)) & mask);
	}
	return PQ_OK;
}

pq_status pq_bitpacked_encode_levels(const uint16_t *v, size_t n, int bit_width, pq_buf *out,
				     pq_error *err)
{
	PQ_CHECK(bit_width >= 0 && bit_width <= 16, err, PQ_EINVAL,
		 "BIT_PACKED levels: bit width %d is not in 0..16", bit_width);
	size_t bytes = (size_t)(((uint64_t)n * (uint64_t)bit_width + 7) / 8);
	for (size_t i = 0; i < n; i++)
		PQ_CHECK(bit_width == 16 || v[i] >> bit_width == 0, err, PQ_EINVAL,
			 "BIT_PACKED levels: value %u at %zu does not fit in %d bits", v[i], i,
			 bit_width);
	if (!pq_buf_grow(out, bytes))
		return pq_fail(err, PQ_ENOMEM, "BIT_PACKED levels: out of memory");
	uint8_t *dst = out->p + out->len;
	memset(dst, 0, bytes);
	uint32_t acc = 0; /* bits pending, aligned to the top: at most 7 + 16 */
	unsigned nb = 0;
	for (size_t i = 0; i < n && bit_width; i++) {
		acc |= (uint32_t)v[i] << (32 - nb - (unsigned)bit_width);
		nb += (unsigned)bit_width;
		while (nb >= 8) {
			*dst++ = (uint8_t)(acc >> 24);
			acc <<= 8;
			nb -= 8;
		}
	}
	if (nb)
		*dst = (uint8_t)(acc >> 24);
	out->len += bytes;
	return PQ_OK;
}
