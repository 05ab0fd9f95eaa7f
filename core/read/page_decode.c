/* Reading, checking, decompressing and decoding one page. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/pq_codec.h"
#include "encoding/pq_encoding.h"

void pq_page_where(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
		       char *buf, size_t len)
{
	char w[256];
	pq_file_where(f, l->rg, l->col, w, sizeof w);
	if (page == l->dict)
		snprintf(buf, len, "%s, dictionary page at offset %llu", w,
			 (unsigned long long)page->header_offset);
	else
		snprintf(buf, len, "%s, page %llu at offset %llu", w,
			 (unsigned long long)(page - l->pages) + l->first_page,
			 (unsigned long long)page->header_offset);
}

pq_status pq_page_crc(const pq_file *f, const pq_page_info *page, pq_crc_state *state,
		      uint32_t *computed, pq_error *err)
{
	*state = PQ_CRC_ABSENT;
	*computed = 0;
	if (!page->header.has_crc)
		return PQ_OK;
	uint8_t *raw = malloc(page->body_len ? page->body_len : 1);
	PQ_CHECK(raw, err, PQ_ENOMEM, "no memory for a %u-byte page", page->body_len);
	pq_status st = pq_file_pread(f, raw, page->body_len, page->body_offset, err);
	if (st == PQ_OK) {
		*computed = pq_crc32(raw, page->body_len);
		*state = *computed == (uint32_t)page->header.crc ? PQ_CRC_OK : PQ_CRC_MISMATCH;
	}
	free(raw);
	return st;
}

pq_status pq_page_crc_fail(const pq_page_info *page, uint32_t computed, pq_error *err)
{
	return pq_fail(err, PQ_ECHECKSUM, "CRC mismatch: stored 0x%08" PRIx32 ", computed 0x%08" PRIx32,
		       (uint32_t)page->header.crc, computed);
}

/* Bytes of levels that v2 pages store uncompressed in front of the body. */
static pq_status v2_level_bytes(const pq_page_info *page, size_t body_len, size_t *n, pq_error *err)
{
	*n = 0;
	if (page->header.type != PQ_PAGE_DATA_V2)
		return PQ_OK;
	const pq_data_page_header_v2 *h = &page->header.data_page_header_v2;
	PQ_CHECK(h->repetition_levels_byte_length >= 0 && h->definition_levels_byte_length >= 0,
		 err, PQ_ECORRUPT, "negative level byte lengths");
	uint64_t lv = (uint64_t)h->repetition_levels_byte_length +
		      (uint64_t)h->definition_levels_byte_length;
	PQ_CHECK(lv <= body_len, err, PQ_ECORRUPT,
		 "level bytes (%llu) exceed the page body (%zu)", (unsigned long long)lv, body_len);
	PQ_CHECK(lv <= (uint64_t)page->header.uncompressed_page_size, err, PQ_ECORRUPT,
		 "level bytes (%llu) exceed the uncompressed page size (%d)", (unsigned long long)lv, page->header.uncompressed_page_size);
	*n = (size_t)lv;
	return PQ_OK;
}

/* An encrypted chunk stores each page body as a module: decrypted here,
 * before anything else looks at it. */
static pq_status decrypt_body(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			      pq_arena *arena, uint8_t **raw, size_t *raw_len, pq_error *err)
{
	bool dict = page == l->dict;
	uint8_t *plain = pq_arena_alloc(arena, *raw_len ? *raw_len : 1);
	PQ_CHECK(plain, err, PQ_ENOMEM, "no memory for %zu bytes", *raw_len);
	PQ_TRY(pq_chunk_decrypt(f, l->rg, l->col, dict ? PQ_MOD_DICT_PAGE : PQ_MOD_DATA_PAGE,
				dict ? 0 : (uint32_t)(page - l->pages) + l->first_page, *raw, *raw_len, plain, raw_len,
				err));
	*raw = plain;
	return PQ_OK;
}

/* Reads the page's stored body into raw_arena and, its CRC checked when
 * asked, decrypted and decompressed as the chunk says, gives its bytes in
 * arena. The CRC covers the body as stored (parquet.thrift), so it is
 * computed on those bytes, and a mismatch fails the page before anything
 * interprets them. */
static pq_status load_transformed(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
				  bool crc_check, bool compressed, bool crypto, pq_arena *raw_arena,
				  pq_arena *arena, uint8_t **out, pq_error *err)
{
	const pq_column_meta_data *m;
	PQ_TRY(pq_file_chunk_meta_checked(f, l->rg, l->col, &m, err));
	size_t ulen = (size_t)page->header.uncompressed_page_size;
	uint8_t *raw = pq_arena_alloc_uninit(raw_arena, page->body_len ? page->body_len : 1);
	PQ_CHECK(raw, err, PQ_ENOMEM, "no memory for %u bytes", page->body_len);
	pq_status st = pq_file_pread(f, raw, page->body_len, page->body_offset, err);
	if (st != PQ_OK)
		return err->status;
	uint32_t computed = 0;
	bool crc_bad = crc_check && page->header.has_crc &&
		       (computed = pq_crc32(raw, page->body_len)) != (uint32_t)page->header.crc;
	size_t raw_len = page->body_len;
	/* an encrypted module's own check says more (a wrong key, tampering):
	 * it goes first, the CRC right after */
	if (crypto)
		PQ_TRY(decrypt_body(f, l, page, compressed ? raw_arena : arena, &raw, &raw_len, err));
	if (crc_bad)
		return pq_page_crc_fail(page, computed, err);

	size_t lv;
	PQ_TRY(v2_level_bytes(page, raw_len, &lv, err));
	if (!compressed) {
		PQ_CHECK(raw_len == ulen, err, PQ_ECORRUPT,
			 "uncompressed page of %zu bytes, header says %zu", raw_len, ulen);
		*out = raw;
		return PQ_OK;
	}
	uint8_t *dec = pq_arena_alloc_uninit(arena, ulen ? ulen : 1);
	PQ_CHECK(dec, err, PQ_ENOMEM, "no memory for %zu bytes", ulen);
	memcpy(dec, raw, lv);
	size_t clen = raw_len - lv, dlen = ulen - lv;
	if (clen == 0) {
		/* Never hand an empty body to a decompressor. */
		PQ_CHECK(dlen == 0, err, PQ_ECORRUPT,
			 "empty compressed body but %zu bytes expected", dlen);
	} else {
		st = pq_decompress(m->codec, raw + lv, clen, dec + lv, dlen, err);
		if (st != PQ_OK)
			return err->status;
	}
	*out = dec;
	return PQ_OK;
}

pq_status pq_page_load_body(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			    bool crc_check, pq_arena *arena, uint8_t **out, size_t *out_len,
			    pq_error *err)
{
	const pq_column_meta_data *m;
	PQ_TRY(pq_file_chunk_meta_checked(f, l->rg, l->col, &m, err));
	size_t ulen = (size_t)page->header.uncompressed_page_size;
	PQ_CHECK(ulen <= PQ_MAX_PAGE_BYTES, err, PQ_ELIMIT,
		 "uncompressed size %zu exceeds the %zu-byte page limit", ulen,
		 (size_t)PQ_MAX_PAGE_BYTES);
	/* The stored body and the uncompressed bytes live at once (only the
	 * body when it is stored uncompressed and not encrypted). */
	uint64_t need = (uint64_t)page->body_len +
			(m->codec != PQ_CODEC_UNCOMPRESSED || pq_file_chunk_crypto(f, l->rg, l->col)
				 ? ulen : 0);
	PQ_CHECK(need <= f->page_budget, err, PQ_EBUDGET,
		 "the page needs %llu bytes of memory (%u stored, %zu uncompressed), more than "
		 "the %llu bytes allowed (cache_size)",
		 (unsigned long long)need, page->body_len, ulen,
		 (unsigned long long)f->page_budget);
	/* The stored body is scratch when it is decrypted or decompressed: it
	 * goes back (to pq_bigbuf's kept buffers, warm for the next page) as
	 * soon as the page's bytes are out, instead of living as long as the
	 * decoded page. */
	bool crypto = pq_file_chunk_crypto(f, l->rg, l->col) != NULL;
	bool compressed = m->codec != PQ_CODEC_UNCOMPRESSED;
	if (page->header.type == PQ_PAGE_DATA_V2 && page->header.data_page_header_v2.has_is_compressed &&
	    !page->header.data_page_header_v2.is_compressed)
		compressed = false;
	pq_arena scratch;
	pq_arena_init(&scratch, 0);
	pq_arena_use_budget(&scratch, arena->budget);
	pq_status st = load_transformed(f, l, page, crc_check, compressed, crypto,
					compressed || crypto ? &scratch : arena, arena, out, err);
	st = pq_arena_budget_error(&scratch, st, err);
	pq_arena_free(&scratch);
	if (st == PQ_OK)
		*out_len = ulen;
	return st;
}

pq_status pq_page_body(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
		       uint8_t **out, size_t *len, pq_error *err)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_arena_use_budget(&a, f->budget);
	uint8_t *p;
	size_t n;
	pq_status st = pq_page_load_body(f, l, page, f->crc_check, &a, &p, &n, err);
	st = pq_arena_budget_error(&a, st, err);
	if (st != PQ_OK) {
		char where[320];
		pq_page_where(f, l, page, where, sizeof where);
		pq_context(err, "%s", where);
	} else {
		*out = malloc(n ? n : 1);
		if (*out) {
			memcpy(*out, p, n);
			*len = n;
		} else {
			st = pq_fail(err, PQ_ENOMEM, "no memory for a %zu-byte page", n);
		}
	}
	pq_arena_free(&a);
	return st;
}

int pq_level_bits(int max)
{
	int b = 0;
	while (b < 16 && (1 << b) <= max)
		b++;
	return b;
}

/* v1 levels: RLE with a 4-byte length prefix, or the deprecated BIT_PACKED. */
static pq_status levels_v1(const uint8_t *p, size_t len, size_t *pos, int32_t enc, int max,
			   uint16_t *out, size_t n, const char *what, pq_error *err)
{
	int bw = pq_level_bits(max);
	size_t used = 0;
	pq_status st;
	if (enc == PQ_ENC_RLE) {
		PQ_CHECK(len - *pos >= 4, err, PQ_ECORRUPT, "%s levels: missing length", what);
		const uint8_t *q = p + *pos;
		uint32_t ll = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
		PQ_CHECK(ll <= len - *pos - 4, err, PQ_ECORRUPT,
			 "%s levels: length %u exceeds the page (%zu bytes left)", what,
			 ll, len - *pos - 4);
		st = pq_rle_decode_levels(q + 4, ll, bw, out, n, &used, err);
		used = (size_t)ll + 4;
	} else if (enc == PQ_ENC_BIT_PACKED) {
		st = pq_bitpacked_decode_levels(p + *pos, len - *pos, bw, out, n, &used, err);
	} else {
		return pq_fail(err, PQ_EUNSUPPORTED, "%s levels use encoding %d", what, enc);
	}
	if (st != PQ_OK)
		return pq_context(err, "%s levels", what);
	*pos += used;
	return PQ_OK;
}

static pq_status check_levels(const uint16_t *lv, size_t n, int max, const char *what,
			      pq_error *err)
{
	for (size_t i = 0; i < n; i++)
		PQ_CHECK(lv[i] <= max, err, PQ_ECORRUPT, "%s level %u at slot %zu exceeds the maximum %d", what, lv[i], i, max);
	return PQ_OK;
}

static pq_status decode_values(const pq_leaf *leaf, int32_t enc, const uint8_t *p, size_t len,
			       size_t n, pq_page_data *dict, pq_values *out, pq_arena *arena,
			       pq_error *err)
{
	size_t used = 0;
	pq_status st;
	out->type = leaf->physical;
	out->type_length = leaf->type_length;
	switch (enc) {
	case PQ_ENC_PLAIN:
		/* p is the page's own bytes (in the page's arena): no copy */
		st = pq_plain_view(leaf->physical, leaf->type_length, p, len, n, out, &used)
			     ? PQ_OK
			     : pq_decode_plain(leaf->physical, leaf->type_length, p, len, n, out, &used, arena, err);
		break;
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		PQ_CHECK(dict, err, PQ_ECORRUPT, "dictionary-encoded page but the chunk has no dictionary page");
		st = pq_decode_rle_dictionary(&dict->values, p, len, n, out, &used, arena, err);
		break;
	case PQ_ENC_RLE:
		PQ_CHECK(leaf->physical == PQ_BOOLEAN, err, PQ_EUNSUPPORTED,
			 "RLE value encoding on a non-BOOLEAN column");
		st = pq_decode_rle_bool(p, len, n, out, &used, arena, err);
		break;
	case PQ_ENC_DELTA_BINARY_PACKED:
		PQ_CHECK(leaf->physical == PQ_INT32 || leaf->physical == PQ_INT64, err, PQ_ECORRUPT,
			 "DELTA_BINARY_PACKED on a non-integer column");
		st = pq_decode_delta_binary_packed(leaf->physical, p, len, n, out, &used, arena, err);
		break;
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		PQ_CHECK(leaf->physical == PQ_BYTE_ARRAY, err, PQ_ECORRUPT,
			 "DELTA_LENGTH_BYTE_ARRAY on a non-BYTE_ARRAY column");
		st = pq_decode_delta_length_byte_array(p, len, n, out, &used, arena, err);
		break;
	case PQ_ENC_DELTA_BYTE_ARRAY:
		PQ_CHECK(leaf->physical == PQ_BYTE_ARRAY || leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY,
			 err, PQ_ECORRUPT, "DELTA_BYTE_ARRAY on a non-binary column");
		st = leaf->physical == PQ_FIXED_LEN_BYTE_ARRAY
			     ? pq_decode_delta_byte_array_fixed(leaf->type_length, p, len, n, out, &used, arena, err)
			     : pq_decode_delta_byte_array(p, len, n, out, &used, arena, err);
		break;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		st = pq_decode_byte_stream_split(leaf->physical, leaf->type_length, p, len, n, out, arena, err);
		break;
	default:
		return pq_fail(err, PQ_EUNSUPPORTED, "unsupported value encoding %d", enc);
	}
	out->type = leaf->physical;
	out->type_length = leaf->type_length;
	if (st != PQ_OK)
		return err->status;
	return PQ_OK;
}

static pq_status decode_dict(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			     const pq_leaf *leaf, bool crc_check, pq_page_data *pd, pq_error *err)
{
	const pq_dictionary_page_header *h = &page->header.dictionary_page_header;
	PQ_CHECK(h->num_values >= 0, err, PQ_ECORRUPT, "negative dictionary size %d", h->num_values);
	PQ_CHECK(h->encoding == PQ_ENC_PLAIN || h->encoding == PQ_ENC_PLAIN_DICTIONARY, err,
		 PQ_EUNSUPPORTED, "dictionary encoding %d", h->encoding);
	uint8_t *body;
	size_t blen;
	PQ_TRY(pq_page_load_body(f, l, page, crc_check, &pd->arena, &body, &blen, err));
	return decode_values(leaf, PQ_ENC_PLAIN, body, blen, (size_t)h->num_values, NULL,
			     &pd->values, &pd->arena, err);
}

static pq_status decode_data(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			     const pq_leaf *leaf, pq_page_data *dict, bool crc_check,
			     pq_page_data *pd, pq_error *err)
{
	const pq_page_header *h = &page->header;
	size_t n = page->num_slots;
	uint8_t *body;
	size_t blen;
	PQ_TRY(pq_page_load_body(f, l, page, crc_check, &pd->arena, &body, &blen, err));
	/* RLE runs let a few bytes claim any number of values; a hard cap keeps
	 * a hostile header from making us allocate gigabytes. */
	PQ_CHECK(n <= PQ_MAX_PAGE_SLOTS, err, PQ_ELIMIT,
		 "%zu values in one page exceed the limit of %u", n, PQ_MAX_PAGE_SLOTS);
	pd->nslots = n;
	if (leaf->max_rep > 0)
		pd->rep = pq_arena_calloc(&pd->arena, n ? n : 1, sizeof *pd->rep);
	if (leaf->max_def > 0)
		pd->def = pq_arena_calloc(&pd->arena, n ? n : 1, sizeof *pd->def);
	PQ_CHECK((leaf->max_rep == 0 || pd->rep) && (leaf->max_def == 0 || pd->def), err,
		 PQ_ENOMEM, "no memory for %zu levels", n);
	size_t pos = 0;
	int32_t enc;
	if (h->type == PQ_PAGE_DATA) {
		const pq_data_page_header *d = &h->data_page_header;
		enc = d->encoding;
		if (leaf->max_rep > 0)
			PQ_TRY(levels_v1(body, blen, &pos, d->repetition_level_encoding, leaf->max_rep,
					 pd->rep, n, "repetition", err));
		if (leaf->max_def > 0)
			PQ_TRY(levels_v1(body, blen, &pos, d->definition_level_encoding, leaf->max_def,
					 pd->def, n, "definition", err));
	} else {
		const pq_data_page_header_v2 *d = &h->data_page_header_v2;
		enc = d->encoding;
		size_t rl = (size_t)d->repetition_levels_byte_length;
		size_t dl = (size_t)d->definition_levels_byte_length;
		size_t used;
		if (leaf->max_rep > 0) {
			pq_status st = pq_rle_decode_levels(body, rl, pq_level_bits(leaf->max_rep), pd->rep, n, &used, err);
			if (st != PQ_OK)
				return pq_context(err, "repetition levels");
		}
		if (leaf->max_def > 0) {
			pq_status st = pq_rle_decode_levels(body + rl, dl, pq_level_bits(leaf->max_def), pd->def, n, &used, err);
			if (st != PQ_OK)
				return pq_context(err, "definition levels");
		}
		pos = rl + dl;
	}
	size_t nonnull = n;
	if (pd->def) {
		PQ_TRY(check_levels(pd->def, n, leaf->max_def, "definition", err));
		nonnull = 0;
		for (size_t i = 0; i < n; i++)
			nonnull += pd->def[i] == leaf->max_def;
	}
	if (pd->rep)
		PQ_TRY(check_levels(pd->rep, n, leaf->max_rep, "repetition", err));
	if (dict) {
		__atomic_add_fetch(&dict->refs, 1, __ATOMIC_RELAXED); /* held by pd */
		pd->dict = dict;
	}
	return decode_values(leaf, enc, body + pos, blen - pos, nonnull, dict, &pd->values,
			     &pd->arena, err);
}

pq_status pq_page_decode(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			 pq_page_data *dict, pq_page_data **out, pq_error *err)
{
	return pq_page_decode_as(f, l, page, dict, f->crc_check, out, err);
}

pq_status pq_page_decode_as(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			    pq_page_data *dict, bool crc_check, pq_page_data **out, pq_error *err)
{
	*out = NULL;
	const pq_leaf *leaf = pq_schema_leaf(f->schema, l->col);
	PQ_CHECK(leaf, err, PQ_EINVAL, "no such column");
	pq_page_data *pd = calloc(1, sizeof *pd);
	PQ_CHECK(pd, err, PQ_ENOMEM, "no memory");
	pd->refs = 1;
	pq_arena_init(&pd->arena, 0);
	pq_arena_use_budget(&pd->arena, f->budget); /* charged while it lives */
	pq_status st = page == l->dict ? decode_dict(f, l, page, leaf, crc_check, pd, err)
				       : decode_data(f, l, page, leaf, dict, crc_check, pd, err);
	st = pq_arena_budget_error(&pd->arena, st, err);
	if (st != PQ_OK) {
		/* Where it happened is only worth formatting when it did. */
		char where[320];
		pq_page_where(f, l, page, where, sizeof where);
		pq_context(err, "%s", where);
		pq_page_data_unref(pd);
		return st;
	}
	*out = pd;
	return PQ_OK;
}

void pq_page_data_unref(pq_page_data *p)
{
	if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (p->dict)
		pq_page_data_unref(p->dict);
	pq_arena_free(&p->arena);
	free(p);
}
