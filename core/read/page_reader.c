/* A data page decoded a window of slots at a time (file_internal.h).
 *
 * A page header may claim up to 2^31-1 values that a few bytes of RLE runs
 * hold (DuckDB's "42.parquet"). Decoding such a page whole would need
 * gigabytes; the reader keeps the decoders of its level and dictionary
 * index streams (pq_rle_decoder) and the offset of its PLAIN values, and
 * decodes the next window from there. Where levels and indices are RLE
 * runs, pq_page_reader_run hands over a whole run without expanding it,
 * so sizes and checks of a run cost O(1).
 *
 * Pages of at most a window of slots, and pages whose encodings
 * cannot resume cheaply, are decoded whole by pq_page_decode (one window,
 * bounded by PQ_MAX_PAGE_SLOTS). */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/pq_encoding.h"

typedef enum { V_DICT, V_PLAIN, V_RLE_BOOL } value_mode;

struct pq_page_reader {
	const pq_file *f;
	const pq_chunk_layout *l;
	const pq_page_info *page;
	const pq_leaf *leaf;
	pq_page_data *whole;   /* decoded whole: the one window, until taken */
	pq_page_data *hold;    /* windowed: holds the body (its arena) and the dictionary */
	uint64_t nslots, pos;  /* slots in the page; slots taken */
	pq_rle_decoder rep, def, idx; /* idx: dictionary indices or RLE booleans */
	value_mode vmode;
	const uint8_t *vals;   /* V_PLAIN: the value section and how much of it is used */
	size_t vlen, vpos;
	uint32_t *scratch;     /* one window of u32 levels or indices */
	size_t scratch_cap;
	uint8_t bool_value;    /* a run's BOOLEAN value (pq_slot_run points here) */
};

/* The reader's allocations of decoded data: a window's arrays live in the
 * window's arena, the u32 scratch in the reader (one window, reused). */
static void *window_alloc(pq_page_data *pd, size_t n, size_t size)
{
	return pq_arena_calloc(&pd->arena, n ? n : 1, size);
}

static pq_status scratch_reserve(pq_page_reader *r, size_t n, pq_error *err)
{
	if (n <= r->scratch_cap)
		return PQ_OK;
	uint32_t *p = realloc(r->scratch, n * sizeof *p);
	PQ_CHECK(p, err, PQ_ENOMEM, "no memory for a window of %zu slots", n);
	r->scratch = p;
	r->scratch_cap = n;
	return PQ_OK;
}

/* v1 RLE levels: a 4-byte length, then the hybrid. */
static pq_status levels_v1(const uint8_t *body, size_t blen, size_t *pos, int max,
			   pq_rle_decoder *d, const char *what, pq_error *err)
{
	PQ_CHECK(blen - *pos >= 4, err, PQ_ECORRUPT, "%s levels: missing length", what);
	const uint8_t *q = body + *pos;
	uint32_t ll = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
		      (uint32_t)q[3] << 24;
	PQ_CHECK(ll <= blen - *pos - 4, err, PQ_ECORRUPT,
		 "%s levels: length %u exceeds the page (%zu bytes left)", what, ll,
		 blen - *pos - 4);
	PQ_TRY(pq_rle_decoder_init(d, q + 4, ll, pq_level_bits(max), err));
	*pos += 4 + (size_t)ll;
	return PQ_OK;
}

/* Whether the page's encodings can resume mid-page. */
static bool resumable(const pq_leaf *leaf, const pq_page_info *pi)
{
	const pq_page_header *h = &pi->header;
	int32_t enc;
	if (h->type == PQ_PAGE_DATA) {
		const pq_data_page_header *d = &h->data_page_header;
		if ((leaf->max_rep > 0 && d->repetition_level_encoding != PQ_ENC_RLE) ||
		    (leaf->max_def > 0 && d->definition_level_encoding != PQ_ENC_RLE))
			return false;
		enc = d->encoding;
	} else if (h->type == PQ_PAGE_DATA_V2) {
		enc = h->data_page_header_v2.encoding;
	} else {
		return false;
	}
	switch (enc) {
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		return true;
	case PQ_ENC_PLAIN:
		return leaf->physical != PQ_BOOLEAN; /* bits: no byte offset per value */
	case PQ_ENC_RLE:
		return leaf->physical == PQ_BOOLEAN;
	default:
		return false;
	}
}

bool pq_page_windowed(const pq_file *f, const pq_leaf *leaf, const pq_page_info *page)
{
	return page->num_slots > f->page_window && resumable(leaf, page);
}

static pq_status setup_windowed(pq_page_reader *r, pq_page_data *dict, bool crc_check,
				pq_error *err)
{
	const pq_leaf *leaf = r->leaf;
	const pq_page_header *h = &r->page->header;
	pq_page_data *hold = calloc(1, sizeof *hold);
	PQ_CHECK(hold, err, PQ_ENOMEM, "no memory");
	hold->refs = 1;
	pq_arena_init(&hold->arena, 0);
	pq_arena_use_budget(&hold->arena, r->f->budget); /* charged while it lives */
	r->hold = hold;
	uint8_t *body;
	size_t blen, pos = 0;
	PQ_TRY(pq_arena_budget_error(&hold->arena,
				     pq_page_load_body(r->f, r->l, r->page, crc_check, &hold->arena,
						       &body, &blen, err),
				     err));
	int32_t enc;
	if (h->type == PQ_PAGE_DATA) {
		enc = h->data_page_header.encoding;
		if (leaf->max_rep > 0)
			PQ_TRY(levels_v1(body, blen, &pos, leaf->max_rep, &r->rep, "repetition", err));
		if (leaf->max_def > 0)
			PQ_TRY(levels_v1(body, blen, &pos, leaf->max_def, &r->def, "definition", err));
	} else {
		/* the level byte lengths were checked against the body by the load */
		const pq_data_page_header_v2 *d = &h->data_page_header_v2;
		enc = d->encoding;
		size_t rl = (size_t)d->repetition_levels_byte_length;
		size_t dl = (size_t)d->definition_levels_byte_length;
		PQ_CHECK(rl + dl <= blen, err, PQ_ECORRUPT, "level bytes exceed the page body");
		if (leaf->max_rep > 0)
			PQ_TRY(pq_rle_decoder_init(&r->rep, body, rl, pq_level_bits(leaf->max_rep), err));
		if (leaf->max_def > 0)
			PQ_TRY(pq_rle_decoder_init(&r->def, body + rl, dl, pq_level_bits(leaf->max_def),
						   err));
		pos = rl + dl;
	}
	const uint8_t *p = body + pos;
	size_t len = blen - pos;
	switch (enc) {
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		PQ_CHECK(dict, err, PQ_ECORRUPT,
			 "dictionary-encoded page but the chunk has no dictionary page");
		r->vmode = V_DICT;
		__atomic_add_fetch(&dict->refs, 1, __ATOMIC_RELAXED); /* held by hold */
		hold->dict = dict;
		if (len == 0) /* no values at all: any index needed fails */
			return pq_rle_decoder_init(&r->idx, p, 0, 0, err);
		PQ_CHECK(p[0] <= 32, err, PQ_ECORRUPT, "dictionary indices: bit width %u exceeds 32",
			 p[0]);
		return pq_rle_decoder_init(&r->idx, p + 1, len - 1, p[0], err);
	case PQ_ENC_RLE: {
		r->vmode = V_RLE_BOOL;
		PQ_CHECK(len >= 4, err, PQ_ECORRUPT,
			 "RLE BOOLEAN: %zu bytes, too short for the 4-byte length", len);
		uint32_t bl = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			      (uint32_t)p[3] << 24;
		PQ_CHECK(bl <= len - 4, err, PQ_ECORRUPT,
			 "RLE BOOLEAN: length %u exceeds the page (%zu bytes left)", bl, len - 4);
		return pq_rle_decoder_init(&r->idx, p + 4, bl, 1, err);
	}
	default: /* PLAIN, as resumable() said */
		r->vmode = V_PLAIN;
		r->vals = p;
		r->vlen = len;
		return PQ_OK;
	}
}

pq_status pq_page_reader_open(const pq_file *f, const pq_chunk_layout *l,
			      const pq_page_info *page, pq_page_data *dict, bool crc_check,
			      pq_page_reader **out, pq_error *err)
{
	*out = NULL;
	const pq_leaf *leaf = pq_schema_leaf(f->schema, l->col);
	PQ_CHECK(leaf, err, PQ_EINVAL, "no such column");
	pq_page_reader *r = calloc(1, sizeof *r);
	PQ_CHECK(r, err, PQ_ENOMEM, "no memory for a page reader");
	r->f = f;
	r->l = l;
	r->page = page;
	r->leaf = leaf;
	r->nslots = page->num_slots;
	pq_status st;
	if (!pq_page_windowed(f, leaf, page)) {
		/* names the page */
		st = pq_page_decode_as(f, l, page, dict, crc_check, &r->whole, err);
	} else {
		st = setup_windowed(r, dict, crc_check, err);
		if (st != PQ_OK) {
			char where[320];
			pq_page_where(f, l, page, where, sizeof where);
			pq_context(err, "%s", where);
		}
	}
	if (st != PQ_OK) {
		pq_page_reader_free(r);
		return st;
	}
	*out = r;
	return PQ_OK;
}

/* n levels (max m) from d into out, each checked. */
static pq_status window_levels(pq_page_reader *r, pq_rle_decoder *d, int m, uint16_t *out,
			       size_t n, const char *what, pq_error *err)
{
	pq_status st = pq_rle_decoder_next(d, r->scratch, n, err);
	if (st != PQ_OK)
		return pq_context(err, "%s levels", what);
	for (size_t i = 0; i < n; i++) {
		PQ_CHECK(r->scratch[i] <= (uint32_t)m, err, PQ_ECORRUPT,
			 "%s level %u at slot %llu exceeds the maximum %d", what, r->scratch[i],
			 (unsigned long long)(r->pos + i), m);
		out[i] = (uint16_t)r->scratch[i];
	}
	return PQ_OK;
}

static pq_status window_values(pq_page_reader *r, pq_page_data *pd, size_t n, pq_error *err)
{
	const pq_leaf *leaf = r->leaf;
	pq_values *out = &pd->values;
	out->type = leaf->physical;
	out->type_length = leaf->type_length;
	switch (r->vmode) {
	case V_DICT: {
		pq_status st = pq_rle_decoder_next(&r->idx, r->scratch, n, err);
		if (st != PQ_OK)
			return pq_context(err, "dictionary indices");
		return pq_dict_gather(&r->hold->dict->values, r->scratch, n, out, &pd->arena, err);
	}
	case V_RLE_BOOL: {
		pq_status st = pq_rle_decoder_next(&r->idx, r->scratch, n, err);
		if (st != PQ_OK)
			return pq_context(err, "RLE BOOLEAN values");
		out->v.b = window_alloc(pd, n, 1);
		PQ_CHECK(out->v.b, err, PQ_ENOMEM, "no memory for %zu values", n);
		for (size_t i = 0; i < n; i++)
			out->v.b[i] = (uint8_t)(r->scratch[i] & 1);
		out->n = n;
		return PQ_OK;
	}
	case V_PLAIN: {
		size_t used = 0;
		PQ_TRY(pq_decode_plain(leaf->physical, leaf->type_length, r->vals + r->vpos,
				       r->vlen - r->vpos, n, out, &used, &pd->arena, err));
		r->vpos += used;
		out->type = leaf->physical;
		out->type_length = leaf->type_length;
		return PQ_OK;
	}
	}
	return PQ_OK;
}

static pq_status next_window(pq_page_reader *r, size_t n, pq_page_data *pd, pq_error *err)
{
	const pq_leaf *leaf = r->leaf;
	PQ_TRY(scratch_reserve(r, n, err));
	pd->nslots = n;
	if (leaf->max_rep > 0)
		pd->rep = window_alloc(pd, n, sizeof *pd->rep);
	if (leaf->max_def > 0)
		pd->def = window_alloc(pd, n, sizeof *pd->def);
	PQ_CHECK((leaf->max_rep == 0 || pd->rep) && (leaf->max_def == 0 || pd->def), err,
		 PQ_ENOMEM, "no memory for %zu levels", n);
	if (pd->rep)
		PQ_TRY(window_levels(r, &r->rep, leaf->max_rep, pd->rep, n, "repetition", err));
	size_t nonnull = n;
	if (pd->def) {
		PQ_TRY(window_levels(r, &r->def, leaf->max_def, pd->def, n, "definition", err));
		nonnull = 0;
		for (size_t i = 0; i < n; i++)
			nonnull += pd->def[i] == leaf->max_def;
	}
	return window_values(r, pd, nonnull, err);
}

pq_status pq_page_reader_next(pq_page_reader *r, size_t max, pq_page_data **out, pq_error *err)
{
	*out = NULL;
	if (r->whole) { /* taken whole, once */
		*out = r->whole;
		r->whole = NULL;
		r->pos = r->nslots;
		return PQ_OK;
	}
	if (!r->hold || r->pos >= r->nslots)
		return PQ_OK;
	if (max == 0 || max > r->f->page_window)
		max = r->f->page_window;
	size_t n = r->nslots - r->pos < max ? (size_t)(r->nslots - r->pos) : max;
	pq_page_data *pd = calloc(1, sizeof *pd);
	PQ_CHECK(pd, err, PQ_ENOMEM, "no memory");
	pd->refs = 1;
	pq_arena_init(&pd->arena, 0);
	pq_arena_use_budget(&pd->arena, r->f->budget); /* the window's arrays */
	/* BYTE_ARRAY values are views into the body or the dictionary: the
	 * window holds both through hold */
	__atomic_add_fetch(&r->hold->refs, 1, __ATOMIC_RELAXED);
	pd->dict = r->hold;
	pq_status st = pq_arena_budget_error(&pd->arena, next_window(r, n, pd, err), err);
	if (st != PQ_OK) {
		char where[320];
		pq_page_where(r->f, r->l, r->page, where, sizeof where);
		pq_context(err, "%s, slots from %llu", where, (unsigned long long)r->pos);
		pq_page_data_unref(pd);
		r->pos = r->nslots; /* no resuming after a failure */
		return st;
	}
	r->pos += n;
	*out = pd;
	return PQ_OK;
}

/* The RLE run d is in, capping *n; false when it is bit-packed. */
static pq_status peek(pq_rle_decoder *d, uint64_t *n, uint32_t *value, bool *rle, pq_error *err)
{
	uint64_t left;
	PQ_TRY(pq_rle_decoder_peek(d, &left, value, err));
	*rle = left > 0;
	if (left < *n)
		*n = left;
	return PQ_OK;
}

static pq_status find_run(pq_page_reader *r, uint64_t min, pq_slot_run *run, bool *found,
			  pq_error *err)
{
	const pq_leaf *leaf = r->leaf;
	uint64_t n = r->nslots - r->pos;
	uint32_t rep = 0, def = (uint32_t)leaf->max_def, idx = 0;
	bool rle = true;
	if (leaf->max_rep > 0)
		PQ_TRY(peek(&r->rep, &n, &rep, &rle, err));
	if (rle && leaf->max_def > 0)
		PQ_TRY(peek(&r->def, &n, &def, &rle, err));
	if (!rle || n < min)
		return PQ_OK;
	PQ_CHECK(rep <= (uint32_t)leaf->max_rep && def <= (uint32_t)leaf->max_def, err,
		 PQ_ECORRUPT, "a level run of %u/%u at slot %llu exceeds the maximum %d/%d", rep,
		 def, (unsigned long long)r->pos, leaf->max_rep, leaf->max_def);
	memset(run, 0, sizeof *run);
	run->has_value = def == (uint32_t)leaf->max_def;
	if (run->has_value) {
		if (r->vmode == V_PLAIN)
			return PQ_OK; /* values differ: windows */
		PQ_TRY(peek(&r->idx, &n, &idx, &rle, err));
		if (!rle || n < min)
			return PQ_OK;
		pq_values *v = &run->value;
		v->type = leaf->physical;
		v->type_length = leaf->type_length;
		v->n = 1;
		if (r->vmode == V_RLE_BOOL) {
			r->bool_value = (uint8_t)(idx & 1);
			v->v.b = &r->bool_value;
		} else {
			const pq_values *d = &r->hold->dict->values;
			PQ_CHECK(idx < d->n, err, PQ_ECORRUPT,
				 "dictionary: index %u out of range (dictionary has %zu entries) at "
				 "slot %llu", idx, d->n, (unsigned long long)r->pos);
			size_t w = pq_value_width(d->type, d->type_length);
			if (d->type == PQ_BYTE_ARRAY)
				v->v.ba = d->v.ba + idx;
			else
				v->v.any = (uint8_t *)d->v.any + (size_t)idx * w;
		}
		pq_rle_decoder_skip_rle(&r->idx, n);
	}
	if (leaf->max_rep > 0)
		pq_rle_decoder_skip_rle(&r->rep, n);
	if (leaf->max_def > 0)
		pq_rle_decoder_skip_rle(&r->def, n);
	run->n = n;
	run->rep = (uint16_t)rep;
	run->def = (uint16_t)def;
	r->pos += n;
	*found = true;
	return PQ_OK;
}

pq_status pq_page_reader_run(pq_page_reader *r, uint64_t min, pq_slot_run *run, bool *found,
			     pq_error *err)
{
	*found = false;
	if (!r->hold || r->pos >= r->nslots)
		return PQ_OK;
	pq_status st = find_run(r, min ? min : 1, run, found, err);
	if (st != PQ_OK) {
		char where[320];
		pq_page_where(r->f, r->l, r->page, where, sizeof where);
		pq_context(err, "%s, slots from %llu", where, (unsigned long long)r->pos);
		r->pos = r->nslots;
	}
	return st;
}

uint64_t pq_page_reader_pos(const pq_page_reader *r)
{
	return r->pos;
}

void pq_page_reader_free(pq_page_reader *r)
{
	if (!r)
		return;
	pq_page_data_unref(r->whole);
	pq_page_data_unref(r->hold);
	free(r->scratch);
	free(r);
}
