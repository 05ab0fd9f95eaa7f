#include "config.h"

/* The encoding of a column chunk's pages when the writer chooses it (the
 * default: dictionary on and no per-column encoding), decided from the
 * values once per chunk, by the bytes each candidate takes before
 * compression:
 *
 * - with the dictionary: the bit-width byte and the RLE/bit-packed hybrid
 *   of the page's indices (Encodings.md, "Dictionary Encoding"), plus every
 *   entry of the dictionary so far as PLAIN (its page is charged to the
 *   first data page, which is where it pays or not);
 * - PLAIN: 4-byte length + bytes per BYTE_ARRAY value, else the type's
 *   width per value;
 * - DELTA_BINARY_PACKED (INT32 and INT64 only): the page encoded, blocks of
 *   128 values in 4 miniblocks.
 *
 * The dictionary of an INT32/INT64 column is weighed on the chunk's first
 * page holding at least PQ_WRITER_CHOOSE_MIN values (smaller pages differ
 * by a few bytes, and the small files of the tests and of users keep their
 * dictionary); it stays when it is no larger than the best encoding
 * without it. Other types keep the dictionary until it is given up. A
 * dictionary that is given up (it passed 1 MiB of entries, or the
 * distinct-values probe) falls back to PLAIN for the rest of the chunk, as
 * the contract says (interface.md, "Writer options"): a page it ended is
 * not weighed. A sorted column
 * of repeated keys (lineitem's l_orderkey) takes DELTA_BINARY_PACKED, at
 * one or two bits a value; dates and few-valued keys keep the dictionary.
 * Decisions depend on the column's values only, never on how rows arrived
 * in batches or on which thread encodes the column. */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <string.h>

#include "encoding/pq_encoding.h"

static bool delta_applies(int32_t type)
{
	return type == PQ_INT32 || type == PQ_INT64;
}

pq_status pq_wcol_costs(const pq_wcol *c, bool with_dict, pq_buf *scratch, pq_wcosts *out,
			pq_error *err)
{
	memset(out, 0, sizeof *out);
	size_t n = c->nvalues;
	out->plain = c->type == PQ_BYTE_ARRAY ? c->ba_bytes_est : (uint64_t)n * c->width;
	const uint32_t *idx = (const uint32_t *)(const void *)c->idx.p;
	if (with_dict)
		PQ_CHECK(c->idx.len == n * sizeof(uint32_t), err, PQ_EINVAL,
			 "page of %zu values holds %zu indices", n, c->idx.len / sizeof(uint32_t));
	else
		PQ_CHECK(c->type == PQ_BYTE_ARRAY || c->vals.len == n * c->width, err, PQ_EINVAL,
			 "page of %zu values holds %zu bytes", n, c->vals.len);
	if (delta_applies(c->type)) {
		/* through the dictionary's entries: the page is not expanded */
		bool is64 = c->type == PQ_INT64;
		out->delta = with_dict ? pq_delta_encoded_size(is64, c->dict.data.p, idx, n)
				       : pq_delta_encoded_size(is64, c->vals.p, NULL, n);
	}
	if (with_dict) {
		/* The bit width encode_values (writer_column.c) writes. All
		 * indices bit-packed (rle.c: a one-byte header per 504 values,
		 * counted twice here) is about the most the hybrid takes (runs
		 * of 8 to 15 repeats at small widths can take a byte or two
		 * more); only when that estimate would lose is the page's
		 * hybrid measured. */
		int bw = pq_bit_width(c->dict.count > 1 ? c->dict.count - 1 : 1);
		uint64_t packed = ((uint64_t)n + 7) / 8 * (uint64_t)bw + ((uint64_t)n / 504 + 1) * 2;
		out->dict = 1 + packed + c->dict.plain_bytes;
		uint64_t alt = delta_applies(c->type) && out->delta < out->plain ? out->delta : out->plain;
		if (out->dict > alt) {
			scratch->len = 0;
			PQ_TRY(pq_rle_encode_u32(idx, n, bw, scratch, err));
			out->dict = 1 + (uint64_t)scratch->len + c->dict.plain_bytes;
		}
	}
	return PQ_OK;
}

/* The smaller encoding without the dictionary; PLAIN wins ties. */
static int best_alt(int32_t type, const pq_wcosts *k, uint64_t *cost)
{
	if (delta_applies(type) && k->delta < k->plain) {
		*cost = k->delta;
		return PQ_ENC_DELTA_BINARY_PACKED;
	}
	*cost = k->plain;
	return PQ_ENC_PLAIN;
}

pq_status pq_wcol_choose(pq_wcol *c, pq_wwork *wk, bool last_dict, pq_error *err)
{
	if (!c->auto_enc || c->nvalues == 0)
		return PQ_OK;
	pq_wcosts k;
	if (!c->dict_active) {
		if (!c->alt_decided) {
			/* the dictionary was given up: PLAIN for the rest */
			c->encoding = PQ_ENC_PLAIN;
			c->alt_decided = true;
		}
		return PQ_OK;
	}
	if (c->dict_decided || !delta_applies(c->type) || last_dict ||
	    c->nvalues < PQ_WRITER_CHOOSE_MIN)
		return PQ_OK;
	c->dict_decided = true;
	PQ_TRY(pq_wcol_costs(c, true, &wk->raw, &k, err));
	uint64_t alt;
	int enc = best_alt(c->type, &k, &alt);
	if (k.dict <= alt)
		return PQ_OK; /* kept; should it fall back later, the encoding
			       * without it is chosen from the page where it does */
	/* The dictionary does not pay: this page and the rest of the chunk go
	 * without it; with no page written through it, no dictionary page. The
	 * page's values themselves (the dictionary path kept only indices); they
	 * take less than the dictionary encoding would (or, PLAIN beside a
	 * smaller DELTA_BINARY_PACKED, at most 8 bytes a value). */
	PQ_CHECK(c->vals.len == 0 && c->lens.len == 0, err, PQ_EINVAL,
		 "dictionary page with %zu bytes of values", c->vals.len);
	PQ_TRY(pq_wdict_expand(&c->dict, (const uint32_t *)(const void *)c->idx.p, c->nvalues,
			       &c->vals, &c->lens, err));
	c->encoding = enc;
	c->alt_decided = true;
	c->dict_active = false;
	if (c->pages_by_enc[PQ_ENC_RLE_DICTIONARY] == 0) {
		pq_wdict_clear(&c->dict);
		c->dict_values = 0;
	}
	return PQ_OK;
}
