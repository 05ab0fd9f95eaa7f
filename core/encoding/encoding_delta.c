#include "config.h"

/* DELTA_BINARY_PACKED (Encodings.md, "DELTA_BINARY_PACKED = 5").
 *
 *   header: <block size> <miniblocks per block> <total count> <first value>
 *           (ULEB128, ULEB128, ULEB128, zigzag ULEB128)
 *   block:  <min delta (zigzag ULEB128)> <one bit-width byte per miniblock>
 *           <miniblocks: block size / miniblocks values each, bit-packed>
 *
 * value[i] = value[i-1] + min_delta + packed[i], computed in unsigned
 * arithmetic so that wrap-around (which the spec allows writers to rely on)
 * is defined: modulo 2^32 for INT32, 2^64 for INT64. Miniblocks of INT32
 * may use bit widths up to 64 (DuckDB computes INT32 deltas in 64 bits,
 * other readers accept it): such values are unpacked at 64 bits and only
 * their low 32 bits enter the 32-bit sum, which is the same modulo 2^32. */

#define PQ_ENCODING_INTERNAL
#include "encoding_internal.h"
#include "pq_encoding.h"

/* Largest block size accepted; real writers use 128 to 1024. */
#define DELTA_MAX_BLOCK ((uint64_t)1 << 31)

static pq_status read_uleb(const char *what, const char *field, const uint8_t *p, size_t len,
			   size_t *pos, uint64_t *v, pq_error *err)
{
	size_t at = *pos;
	int r = pq_uleb_read(p, len, pos, v);
	PQ_CHECK(r != PQ_VARINT_TRUNCATED, err, PQ_ECORRUPT, "%s: %s at byte %zu: input ends",
		 what, field, at);
	PQ_CHECK(r == PQ_VARINT_OK, err, PQ_ECORRUPT, "%s: %s at byte %zu: varint over 64 bits",
		 what, field, at);
	return PQ_OK;
}

typedef struct delta_header {
	uint64_t block, nmini, total, vpm; /* vpm: values per miniblock */
	uint64_t first;
} delta_header;

static pq_status read_header(const char *what, const uint8_t *p, size_t len, size_t *pos,
			     delta_header *h, pq_error *err)
{
	uint64_t zz;
	PQ_TRY(read_uleb(what, "block size", p, len, pos, &h->block, err));
	PQ_TRY(read_uleb(what, "miniblock count", p, len, pos, &h->nmini, err));
	PQ_TRY(read_uleb(what, "value count", p, len, pos, &h->total, err));
	PQ_TRY(read_uleb(what, "first value", p, len, pos, &zz, err));
	PQ_CHECK(h->block && h->block % 128 == 0 && h->block <= DELTA_MAX_BLOCK, err, PQ_ECORRUPT,
		 "%s: block size %llu is not a positive multiple of 128 up to 2^31", what,
		 (unsigned long long)h->block);
	PQ_CHECK(h->nmini && h->block % h->nmini == 0 && (h->block / h->nmini) % 32 == 0, err,
		 PQ_ECORRUPT,
		 "%s: %llu miniblocks do not divide block size %llu into multiples of 32 values",
		 what, (unsigned long long)h->nmini, (unsigned long long)h->block);
	h->vpm = h->block / h->nmini;
	h->first = pq_zigzag_decode(zz);
	return PQ_OK;
}

/* Decodes into out32 or out64 (exactly one non-NULL), n values. */
static pq_status delta_decode(const char *what, const uint8_t *p, size_t len, size_t pos,
			      const delta_header *h, size_t n, uint32_t *out32, uint64_t *out64,
			      size_t *used, pq_error *err)
{
	const int maxw = 64;
	uint64_t last = h->first;
	size_t produced = 0;
	if (h->total && n) {
		if (out64)
			out64[0] = last;
		else
			out32[0] = (uint32_t)last;
		produced = 1;
	}
	uint64_t remaining = h->total ? h->total - 1 : 0; /* deltas still to read */
	for (uint64_t blk = 0; remaining; blk++) {
		uint64_t zz;
		size_t bstart = pos;
		PQ_TRY(read_uleb(what, "min delta", p, len, &pos, &zz, err));
		const uint64_t md = pq_zigzag_decode(zz);
		PQ_CHECK(len - pos >= h->nmini, err, PQ_ECORRUPT,
			 "%s: block %llu at byte %zu: %llu miniblock bit widths truncated", what,
			 (unsigned long long)blk, bstart, (unsigned long long)h->nmini);
		const uint8_t *widths = p + pos;
		pos += (size_t)h->nmini;
		for (uint64_t m = 0; m < h->nmini && remaining; m++) {
			const int bw = widths[m];
			PQ_CHECK(bw <= maxw, err, PQ_ECORRUPT,
				 "%s: block %llu miniblock %llu at byte %zu: bit width %d exceeds %d",
				 what, (unsigned long long)blk, (unsigned long long)m, pos, bw, maxw);
			const uint64_t cnt = remaining < h->vpm ? remaining : h->vpm;
			const uint64_t full = h->vpm * (uint64_t)bw / 8;
			const size_t avail = len - pos;
			size_t body;
			if (full <= avail) {
				body = (size_t)full;
			} else {
				/* Tolerate a last miniblock without its padding. */
				uint64_t need = (cnt * (uint64_t)bw + 7) / 8;
				PQ_CHECK(cnt == remaining && need <= avail, err, PQ_ECORRUPT,
					 "%s: block %llu miniblock %llu at byte %zu: needs %llu bytes, %zu left",
					 what, (unsigned long long)blk, (unsigned long long)m, pos,
					 (unsigned long long)(cnt == remaining ? need : full), avail);
				body = avail;
			}
			size_t want = pq_min_size(n - produced, cnt < SIZE_MAX ? (size_t)cnt : SIZE_MAX);
			/* The kernels get all the input that follows (not just this
			 * miniblock) so that they can load whole words in place; the
			 * bits of the values wanted lie within body. */
			if (want && out64) {
				uint64_t *o = out64 + produced;
				pq_unpack64(p + pos, avail, bw, 0, want, o);
				for (size_t i = 0; i < want; i++) {
					last += md + o[i];
					o[i] = last;
				}
			} else if (want && bw <= 32) {
				uint32_t *o = out32 + produced;
				const uint32_t md32 = (uint32_t)md;
				uint32_t l = (uint32_t)last;
				pq_unpack32(p + pos, avail, bw, 0, want, o);
				for (size_t i = 0; i < want; i++) {
					l += md32 + o[i];
					o[i] = l;
				}
				last = l;
			} else if (want) {
				/* INT32 with a width above 32: 64-bit unpacking in
				 * pieces, 32-bit sums. */
				uint32_t *o = out32 + produced;
				const uint32_t md32 = (uint32_t)md;
				uint32_t l = (uint32_t)last;
				uint64_t tmp[256];
				for (size_t done = 0; done < want;) {
					size_t k = pq_min_size(want - done, 256);
					pq_unpack64(p + pos, avail, bw, done, k, tmp);
					for (size_t i = 0; i < k; i++) {
						l += md32 + (uint32_t)tmp[i];
						o[done + i] = l;
					}
					done += k;
				}
				last = l;
			}
			produced += want;
			pos += body;
			remaining -= cnt;
		}
	}
	if (used)
		*used = pos;
	return PQ_OK;
}

pq_status pq_delta_decode_alloc(const char *what, bool is64, const uint8_t *p, size_t len, size_t n,
				void **out, size_t *used, pq_arena *arena, pq_error *err)
{
	delta_header h;
	size_t pos = 0;
	PQ_TRY(read_header(what, p, len, &pos, &h, err));
	PQ_CHECK(h.total >= n, err, PQ_ECORRUPT, "%s: header holds %llu values, %zu expected", what,
		 (unsigned long long)h.total, n);
	void *arr = pq_arena_calloc(arena, n, is64 ? 8 : 4);
	PQ_CHECK(arr, err, PQ_ENOMEM, "%s: out of memory for %zu values", what, n);
	PQ_TRY(delta_decode(what, p, len, pos, &h, n, is64 ? NULL : arr, is64 ? arr : NULL, used,
			    err));
	*out = arr;
	return PQ_OK;
}

pq_status pq_decode_delta_binary_packed(int32_t type, const uint8_t *p, size_t len, size_t n,
					pq_values *out, size_t *used, pq_arena *arena,
					pq_error *err)
{
	PQ_CHECK(type == PQ_INT32 || type == PQ_INT64, err, PQ_ECORRUPT,
		 "DELTA_BINARY_PACKED: physical type %d is not INT32 or INT64", type);
	void *arr;
	PQ_TRY(pq_delta_decode_alloc("DELTA_BINARY_PACKED", type == PQ_INT64, p, len, n, &arr, used,
				     arena, err));
	out->type = type;
	out->type_length = 0;
	out->n = n;
	out->v.any = arr;
	return PQ_OK;
}

/* ---- encoder: blocks of 128 values, 4 miniblocks of 32 ---- */

enum { ENC_BLOCK = 128, ENC_MINI = 4, ENC_VPM = ENC_BLOCK / ENC_MINI };

static inline uint64_t get_value(bool is64, const void *v, size_t i)
{
	if (is64)
		return (uint64_t)((const int64_t *)v)[i];
	return (uint32_t)((const int32_t *)v)[i];
}

/* The k deltas of values i, i+1, ... (through idx when given) into d, each
 * wrapped in the type's width (INT32 deltas as 32-bit numbers); *prev is
 * the value before i, and becomes the last one. Returns min_delta, their
 * signed minimum. */
static int64_t block_deltas(bool is64, const void *v, const uint32_t *idx, size_t i, size_t k,
			    uint64_t *prev, uint64_t *d)
{
	int64_t mind = INT64_MAX;
	for (size_t j = 0; j < k; j++) {
		uint64_t cur = get_value(is64, v, idx ? idx[i + j] : i + j);
		int64_t delta = is64 ? (int64_t)(cur - *prev) : (int64_t)(int32_t)(uint32_t)(cur - *prev);
		d[j] = (uint64_t)delta;
		if (delta < mind)
			mind = delta;
		*prev = cur;
	}
	return mind;
}

void pq_delta_encode(bool is64, const void *v, size_t n, pq_buf *out)
{
	pq_uleb_put(out, ENC_BLOCK);
	pq_uleb_put(out, ENC_MINI);
	pq_uleb_put(out, n);
	if (!n) {
		pq_uleb_put(out, 0);
		return;
	}
	uint64_t prev = get_value(is64, v, 0);
	/* INT32 values are zigzag-encoded as 32-bit numbers (sign-extended). */
	pq_uleb_put(out, pq_zigzag_encode(is64 ? prev : (uint64_t)(int64_t)(int32_t)prev));
	uint64_t d[ENC_BLOCK];
	for (size_t i = 1; i < n;) {
		size_t k = pq_min_size(n - i, ENC_BLOCK);
		int64_t mind = block_deltas(is64, v, NULL, i, k, &prev, d);
		/* Relative deltas: d - min, exact as an unsigned difference (it is
		 * below 2^32 for INT32 and below 2^64 for INT64). Padding is 0. */
		uint64_t maxrel[ENC_MINI] = {0};
		for (size_t j = 0; j < ENC_BLOCK; j++) {
			d[j] = j < k ? d[j] - (uint64_t)mind : 0;
			if (!is64)
				d[j] &= 0xffffffffu;
			if (d[j] > maxrel[j / ENC_VPM])
				maxrel[j / ENC_VPM] = d[j];
		}
		pq_uleb_put(out, pq_zigzag_encode((uint64_t)mind));
		size_t used_mini = (k + ENC_VPM - 1) / ENC_VPM;
		uint8_t widths[ENC_MINI] = {0};
		for (size_t m = 0; m < used_mini; m++)
			widths[m] = (uint8_t)pq_bit_width(maxrel[m]);
		pq_buf_append(out, widths, ENC_MINI);
		for (size_t m = 0; m < used_mini; m++) {
			size_t bytes = (size_t)ENC_VPM * widths[m] / 8;
			if (pq_buf_grow(out, bytes)) {
				pq_pack64(out->p + out->len, d + m * ENC_VPM, ENC_VPM, widths[m]);
				out->len += bytes;
			}
		}
		i += k;
	}
}

static size_t uleb_len(uint64_t x)
{
	size_t n = 1;
	while (x >= 0x80) {
		x >>= 7;
		n++;
	}
	return n;
}

size_t pq_delta_encoded_size(bool is64, const void *v, const uint32_t *idx, size_t n)
{
	size_t len = uleb_len(ENC_BLOCK) + uleb_len(ENC_MINI) + uleb_len(n);
	if (!n)
		return len + 1;
	uint64_t prev = get_value(is64, v, idx ? idx[0] : 0);
	len += uleb_len(pq_zigzag_encode(is64 ? prev : (uint64_t)(int64_t)(int32_t)prev));
	uint64_t d[ENC_BLOCK];
	for (size_t i = 1; i < n;) {
		size_t k = pq_min_size(n - i, ENC_BLOCK);
		int64_t mind = block_deltas(is64, v, idx, i, k, &prev, d);
		uint64_t maxrel[ENC_MINI] = {0};
		for (size_t j = 0; j < k; j++) {
			uint64_t r = d[j] - (uint64_t)mind;
			if (!is64)
				r &= 0xffffffffu;
			if (r > maxrel[j / ENC_VPM])
				maxrel[j / ENC_VPM] = r;
		}
		len += uleb_len(pq_zigzag_encode((uint64_t)mind)) + ENC_MINI;
		size_t used_mini = (k + ENC_VPM - 1) / ENC_VPM;
		for (size_t m = 0; m < used_mini; m++)
			len += (size_t)ENC_VPM * (size_t)pq_bit_width(maxrel[m]) / 8;
		i += k;
	}
	return len;
}

pq_status pq_encode_delta_binary_packed(const pq_values *in, pq_buf *out, pq_error *err)
{
	PQ_CHECK(in->type == PQ_INT32 || in->type == PQ_INT64, err, PQ_EINVAL,
		 "DELTA_BINARY_PACKED encoder: type %d is not INT32 or INT64", in->type);
	pq_delta_encode(in->type == PQ_INT64, in->v.any, in->n, out);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "DELTA_BINARY_PACKED encoder: out of memory");
	return PQ_OK;
}
