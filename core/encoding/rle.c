#include "config.h"

/* The RLE / bit-packing hybrid (Encodings.md, "RLE = 3"): a sequence of
 * runs, each a ULEB128 header whose low bit says bit-packed (groups of 8
 * values, header >> 1 groups) or RLE (header >> 1 repeats of one value
 * stored in ceil(bit_width / 8) bytes). Used for levels, dictionary indices
 * and RLE booleans. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

/* Spec: run lengths are in [1, 2^31 - 1]. */
#define RLE_MAX_RUN 0x7fffffffu

pq_status pq_rle_decoder_init(pq_rle_decoder *d, const uint8_t *p, size_t len, int bit_width,
			      pq_error *err)
{
	memset(d, 0, sizeof *d);
	d->p = p;
	d->len = len;
	d->bit_width = bit_width;
	PQ_CHECK(bit_width >= 0 && bit_width <= 32, err, PQ_ECORRUPT,
		 "RLE/bit-packed hybrid: bit width %d is not in 0..32", bit_width);
	return PQ_OK;
}

static pq_status next_run(pq_rle_decoder *d, pq_error *err)
{
	size_t hdr = d->pos;
	uint64_t h;
	int r = pq_uleb_read(d->p, d->len, &d->pos, &h);
	PQ_CHECK(r != PQ_VARINT_TRUNCATED, err, PQ_ECORRUPT,
		 "RLE/bit-packed hybrid: input ends at byte %zu but more values are expected", hdr);
	PQ_CHECK(r == PQ_VARINT_OK && h <= UINT32_MAX, err, PQ_ECORRUPT,
		 "RLE/bit-packed hybrid: run header at byte %zu does not fit 32 bits", hdr);
	d->run_hdr = hdr;
	if (h & 1) {
		uint64_t groups = h >> 1;
		PQ_CHECK(groups * 8 <= RLE_MAX_RUN, err, PQ_ECORRUPT,
			 "RLE/bit-packed hybrid: bit-packed run at byte %zu claims %llu values, over 2^31-1",
			 hdr, (unsigned long long)(groups * 8));
		uint64_t bytes = groups * (uint64_t)d->bit_width;
		size_t avail = d->len - d->pos;
		/* A last run may be cut short by the end of the input; whether the
		 * values actually needed are there is checked when decoding. */
		size_t take = bytes < avail ? (size_t)bytes : avail;
		d->packed = true;
		d->run = d->p + d->pos;
		d->run_avail = take;
		d->run_next = 0;
		d->left = groups * 8;
		d->pos += take;
	} else {
		size_t vb = ((size_t)d->bit_width + 7) / 8;
		PQ_CHECK(d->len - d->pos >= vb, err, PQ_ECORRUPT,
			 "RLE/bit-packed hybrid: RLE run at byte %zu: value truncated", hdr);
		uint32_t v = 0;
		for (size_t k = 0; k < vb; k++)
			v |= (uint32_t)d->p[d->pos + k] << (8 * k);
		PQ_CHECK(d->bit_width == 32 || v >> d->bit_width == 0, err, PQ_ECORRUPT,
			 "RLE/bit-packed hybrid: RLE run at byte %zu: value %u does not fit in %d bits",
			 hdr, v, d->bit_width);
		d->pos += vb;
		d->packed = false;
		d->value = v;
		d->left = h >> 1;
	}
	return PQ_OK;
}

pq_status pq_rle_decoder_next(pq_rle_decoder *d, uint32_t *out, size_t n, pq_error *err)
{
	while (n) {
		if (!d->left) {
			PQ_TRY(next_run(d, err));
			continue;
		}
		size_t take = d->left < n ? (size_t)d->left : n;
		if (!d->packed) {
			const uint32_t v = d->value;
			for (size_t i = 0; i < take; i++)
				out[i] = v;
		} else {
			uint64_t need = ((d->run_next + take) * (uint64_t)d->bit_width + 7) / 8;
			PQ_CHECK(need <= d->run_avail, err, PQ_ECORRUPT,
				 "RLE/bit-packed hybrid: bit-packed run at byte %zu: input ends after %zu bytes, %llu needed",
				 d->run_hdr, d->run_avail, (unsigned long long)need);
			/* All the input from the run on, so the kernel can load whole
			 * words in place; the bits needed lie within run_avail. */
			pq_unpack32(d->run, d->len - (size_t)(d->run - d->p), d->bit_width, d->run_next,
				    take, out);
			d->run_next += take;
		}
		d->left -= take;
		out += take;
		n -= take;
	}
	return PQ_OK;
}

pq_status pq_rle_decoder_peek(pq_rle_decoder *d, uint64_t *rle_left, uint32_t *value,
			      pq_error *err)
{
	while (!d->left) /* zero-length runs are legal: skipped */
		PQ_TRY(next_run(d, err));
	*rle_left = d->packed ? 0 : d->left;
	*value = d->packed ? 0 : d->value;
	return PQ_OK;
}

void pq_rle_decoder_skip_rle(pq_rle_decoder *d, uint64_t n)
{
	if (!d->packed && n <= d->left)
		d->left -= n;
}

pq_status pq_rle_decode_u32(const uint8_t *p, size_t len, int bit_width, uint32_t *out, size_t n,
			    size_t *used, pq_error *err)
{
	pq_rle_decoder d;
	PQ_TRY(pq_rle_decoder_init(&d, p, len, bit_width, err));
	PQ_TRY(pq_rle_decoder_next(&d, out, n, err));
	if (used)
		*used = pq_rle_decoder_used(&d);
	return PQ_OK;
}

enum { RLE_CHUNK = 512 };

pq_status pq_rle_decode_levels(const uint8_t *p, size_t len, int bit_width, uint16_t *out,
			       size_t n, size_t *used, pq_error *err)
{
	PQ_CHECK(bit_width >= 0 && bit_width <= 16, err, PQ_ECORRUPT,
		 "RLE levels: bit width %d is not in 0..16", bit_width);
	pq_rle_decoder d;
	PQ_TRY(pq_rle_decoder_init(&d, p, len, bit_width, err));
	uint32_t tmp[RLE_CHUNK];
	for (size_t i = 0; i < n;) {
		size_t k = pq_min_size(n - i, RLE_CHUNK);
		PQ_TRY(pq_rle_decoder_next(&d, tmp, k, err));
		for (size_t j = 0; j < k; j++)
			out[i + j] = (uint16_t)tmp[j];
		i += k;
	}
	if (used)
		*used = pq_rle_decoder_used(&d);
	return PQ_OK;
}

pq_status pq_decode_rle_bool(const uint8_t *p, size_t len, size_t n, pq_values *out, size_t *used,
			     pq_arena *arena, pq_error *err)
{
	PQ_CHECK(len >= 4, err, PQ_ECORRUPT,
		 "RLE BOOLEAN: %zu bytes, too short for the 4-byte length", len);
	uint32_t body = pq_load32le(p);
	PQ_CHECK(body <= len - 4, err, PQ_ECORRUPT,
		 "RLE BOOLEAN: length %u exceeds the %zu bytes that follow it", body, len - 4);
	out->type = PQ_BOOLEAN;
	out->type_length = 0;
	out->n = n;
	out->v.b = pq_arena_calloc(arena, n, 1);
	PQ_CHECK(out->v.b, err, PQ_ENOMEM, "RLE BOOLEAN: out of memory for %zu values", n);
	pq_rle_decoder d;
	PQ_TRY(pq_rle_decoder_init(&d, p + 4, body, 1, err));
	uint32_t tmp[RLE_CHUNK];
	for (size_t i = 0; i < n;) {
		size_t k = pq_min_size(n - i, RLE_CHUNK);
		pq_status st = pq_rle_decoder_next(&d, tmp, k, err);
		if (st != PQ_OK)
			return pq_context(err, "RLE BOOLEAN (after the 4-byte length)");
		for (size_t j = 0; j < k; j++)
			out->v.b[i + j] = (uint8_t)tmp[j];
		i += k;
	}
	if (used)
		*used = 4 + (size_t)body;
	return PQ_OK;
}

/* ---- encoder ---- */

/* The encoder reads 1-, 2- or 4-byte unsigned values (booleans, levels,
 * indices) through one switch that the branch predictor settles. */
typedef struct rle_src {
	const void *v;
	int size;
} rle_src;

static inline uint32_t src_get(rle_src s, size_t i)
{
	switch (s.size) {
	case 1:
		return ((const uint8_t *)s.v)[i];
	case 2:
		return ((const uint16_t *)s.v)[i];
	default:
		return ((const uint32_t *)s.v)[i];
	}
}

/* Bit-packs values [at, at+count) as bit-packed runs; the last group is
 * padded with zero values. */
static void put_packed(rle_src s, size_t at, size_t count, int bw, pq_buf *out)
{
	/* Chunks of up to 63 groups keep each header to one byte. */
	enum { GROUPS = 63 };
	uint64_t tmp[GROUPS * 8];
	while (count) {
		size_t k = pq_min_size(count, GROUPS * 8);
		size_t groups = (k + 7) / 8;
		for (size_t i = 0; i < groups * 8; i++)
			tmp[i] = i < k ? src_get(s, at + i) : 0;
		pq_uleb_put(out, (uint64_t)groups << 1 | 1);
		size_t bytes = groups * (size_t)bw;
		if (pq_buf_grow(out, bytes)) {
			pq_pack64(out->p + out->len, tmp, groups * 8, bw);
			out->len += bytes;
		}
		at += k;
		count -= k;
	}
}

static void put_rle(uint32_t value, size_t count, int bw, pq_buf *out)
{
	uint8_t vb[4];
	size_t nb = ((size_t)bw + 7) / 8;
	pq_store32le(vb, value);
	while (count) {
		size_t k = count < RLE_MAX_RUN ? count : RLE_MAX_RUN;
		pq_uleb_put(out, (uint64_t)k << 1);
		pq_buf_append(out, vb, nb);
		count -= k;
	}
}

static pq_status rle_encode(rle_src s, size_t n, int bit_width, pq_buf *out, pq_error *err)
{
	PQ_CHECK(bit_width >= 0 && bit_width <= 32, err, PQ_EINVAL,
		 "RLE encoder: bit width %d is not in 0..32", bit_width);
	for (size_t i = 0; i < n; i++) {
		uint32_t x = src_get(s, i);
		PQ_CHECK(bit_width == 32 || x >> bit_width == 0, err, PQ_EINVAL,
			 "RLE encoder: value %u at %zu does not fit in %d bits", x, i, bit_width);
	}
	/* Literals accumulate in [lit, lit+nlit). A repeat of 8 or more ends
	 * them: first some of its copies fill the last literal group (packed
	 * runs hold whole groups), the rest becomes an RLE run. */
	size_t lit = 0, nlit = 0;
	size_t i = 0;
	while (i < n) {
		uint32_t x = src_get(s, i);
		size_t r = 1;
		while (i + r < n && src_get(s, i + r) == x)
			r++;
		if (r >= 8) {
			size_t pad = nlit % 8 ? 8 - nlit % 8 : 0;
			if (nlit) {
				put_packed(s, lit, nlit + pad, bit_width, out);
				i += pad;
				r -= pad;
				nlit = 0;
			}
			if (r >= 8) {
				put_rle(x, r, bit_width, out);
			} else {
				lit = i;
				nlit = r;
			}
			i += r;
		} else {
			if (!nlit)
				lit = i;
			nlit += r;
			i += r;
		}
	}
	if (nlit)
		put_packed(s, lit, nlit, bit_width, out);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "RLE encoder: out of memory");
	return PQ_OK;
}

pq_status pq_rle_encode_u32(const uint32_t *v, size_t n, int bit_width, pq_buf *out,
			    pq_error *err)
{
	return rle_encode((rle_src){v, 4}, n, bit_width, out, err);
}

pq_status pq_rle_encode_levels(const uint16_t *v, size_t n, int bit_width, pq_buf *out,
			       pq_error *err)
{
	PQ_CHECK(bit_width >= 0 && bit_width <= 16, err, PQ_EINVAL,
		 "RLE levels encoder: bit width %d is not in 0..16", bit_width);
	return rle_encode((rle_src){v, 2}, n, bit_width, out, err);
}

pq_status pq_encode_rle_bool(const pq_values *in, pq_buf *out, pq_error *err)
{
	PQ_CHECK(in->type == PQ_BOOLEAN, err, PQ_EINVAL,
		 "RLE BOOLEAN encoder: type %d is not BOOLEAN", in->type);
	size_t start = out->len;
	static const uint8_t zero[4] = {0};
	pq_buf_append(out, zero, 4);
	/* Values other than 0 and 1 are refused by the width check. */
	PQ_TRY(rle_encode((rle_src){in->v.b, 1}, in->n, 1, out, err));
	size_t body = out->len - start - 4;
	PQ_CHECK(body <= UINT32_MAX, err, PQ_EINVAL,
		 "RLE BOOLEAN encoder: %zu bytes exceed 2^32-1", body);
	pq_store32le(out->p + start, (uint32_t)body);
	return PQ_OK;
}
