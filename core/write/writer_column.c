#include "config.h"

/* One column chunk of the writer: rows arrive in batches, are cut into data
 * pages of about opts->page_size uncompressed bytes, encoded (definition
 * levels as the RLE/bit-packed hybrid, values PLAIN, RLE_DICTIONARY or the
 * column's chosen encoding), compressed, checksummed and kept in memory
 * until the row group ends; then the dictionary page and the data pages go
 * to the file and the chunk's metadata, page indexes and bloom filter are
 * built.
 *
 * Dictionary encoding falls back to the column's encoding without it for
 * the rest of the chunk once the dictionary's PLAIN size passes 1 MiB; the
 * pages already written keep using the dictionary (encoding_stats says how
 * many pages took each encoding). By default the dictionary is also weighed
 * against the encodings without it on the chunk's first page, and which
 * encoding the pages without it take is chosen from the data
 * (writer_choose.c). */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <stdlib.h>
#include <string.h>

#include "codec/pq_codec.h"
#include "encoding/pq_encoding.h"
#include "format/pq_metadata_codec.h"

static bool encoding_fits(int enc, int32_t type)
{
	switch (enc) {
	case PQ_ENC_PLAIN:
		return true;
	case PQ_ENC_RLE_DICTIONARY:
		/* Two values gain nothing from a dictionary, and readers such
		 * as Arrow do not expect one for BOOLEAN. */
		return type != PQ_BOOLEAN;
	case PQ_ENC_RLE:
		return type == PQ_BOOLEAN;
	case PQ_ENC_DELTA_BINARY_PACKED:
		return type == PQ_INT32 || type == PQ_INT64;
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		return type == PQ_BYTE_ARRAY;
	case PQ_ENC_DELTA_BYTE_ARRAY:
		return type == PQ_BYTE_ARRAY || type == PQ_FIXED_LEN_BYTE_ARRAY;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		return type == PQ_FLOAT || type == PQ_DOUBLE || type == PQ_INT32 ||
		       type == PQ_INT64 || type == PQ_FIXED_LEN_BYTE_ARRAY;
	default:
		return false;
	}
}

static const char *enc_name(int e)
{
	const char *s = pq_encoding_name(e);
	return s ? s : "unknown encoding";
}

pq_status pq_wcol_new(pq_writer *w, uint32_t index, const pq_schema_element *el,
		      pq_wcol **out, pq_error *err)
{
	const char *name = (const char *)el->name.p;
	size_t name_len = el->name.n;
	pq_wcol *c = calloc(1, sizeof *c);
	PQ_CHECK(c, err, PQ_ENOMEM, "column %.*s: out of memory", (int)name_len, name);
	c->index = index;
	c->el = el;
	c->type = el->type;
	c->type_length = el->type == PQ_INT96 ? 12 : el->has_type_length ? el->type_length : 0;
	c->width = pq_value_width(c->type, c->type_length);
	c->optional = el->repetition_type == PQ_OPTIONAL;
	c->order = pq_writer_sort_order(el);
	c->pstats.truncatable = c->cstats.truncatable = c->type == PQ_BYTE_ARRAY;
	pq_wdict_init(&c->dict, c->type, c->type_length);
	/* the buffers that hold a whole row group (their size follows the
	 * data): charged, so a conversion counts in its mount's budget */
	pq_buf *bufs[] = {&c->def, &c->vals, &c->lens, &c->idx, &c->pages, &c->dict.data,
			  &c->dict.offs};
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		bufs[i]->budget = w->opts.budget;

	int want = pq_writer_column_encoding(w, name, name_len);
	if (want < 0) {
		c->encoding = PQ_ENC_PLAIN;
		c->use_dict = w->opts.dictionary && c->type != PQ_BOOLEAN;
		c->auto_enc = c->use_dict;
	} else {
		if (!encoding_fits(want, c->type)) {
			free(c);
			return pq_fail(err, PQ_EINVAL, "column %.*s: encoding %s does not apply to %s",
				       (int)name_len, name, enc_name(want),
				       pq_type_name(el->type) ? pq_type_name(el->type) : "this type");
		}
		c->use_dict = want == PQ_ENC_RLE_DICTIONARY;
		c->encoding = c->use_dict ? PQ_ENC_PLAIN : want;
	}
	c->dict_active = c->use_dict;
	c->bloom = pq_writer_column_bloom(w, name, name_len) && c->type != PQ_BOOLEAN;
	*out = c;
	return PQ_OK;
}

static void free_pages(pq_wcol *c)
{
	for (size_t i = 0; i < c->npl; i++) {
		free(c->pl[i].min);
		free(c->pl[i].max);
	}
	c->npl = 0;
}

void pq_wcol_free(pq_wcol *c)
{
	if (!c)
		return;
	free_pages(c);
	free(c->pl);
	pq_buf *bufs[] = {&c->def, &c->vals, &c->lens, &c->idx, &c->pages};
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		pq_buf_free(bufs[i]);
	pq_wstats_free(&c->pstats);
	pq_wstats_free(&c->cstats);
	pq_wdict_free(&c->dict);
	pq_wbloom_free(&c->bloomset);
	free(c);
}

uint64_t pq_wcol_rows(const pq_wcol *c)
{
	return (uint64_t)c->rows;
}

static const char *col_name(const pq_wcol *c)
{
	return (const char *)c->el->name.p;
}

/* ---- one page ---------------------------------------------------------- */

static pq_status encode_values(pq_wcol *c, pq_buf *out, int *encoding, pq_error *err)
{
	if (c->dict_active && c->nvalues > 0) {
		/* Indices: one byte of bit width, then the hybrid. */
		int bw = pq_bit_width(c->dict.count > 1 ? c->dict.count - 1 : 1);
		uint8_t b = (uint8_t)bw;
		pq_buf_append(out, &b, 1);
		*encoding = PQ_ENC_RLE_DICTIONARY;
		return pq_rle_encode_u32((const uint32_t *)(const void *)c->idx.p, c->nvalues, bw, out,
					 err);
	}
	pq_values v;
	memset(&v, 0, sizeof v);
	v.type = c->type;
	v.type_length = c->type_length;
	v.n = c->nvalues;
	v.v.any = c->vals.p;
	pq_bytes *views = NULL;
	if (c->type == PQ_BYTE_ARRAY) {
		views = malloc((c->nvalues ? c->nvalues : 1) * sizeof *views);
		PQ_CHECK(views, err, PQ_ENOMEM, "out of memory for %zu values", c->nvalues);
		const uint32_t *lens = (const uint32_t *)(const void *)c->lens.p;
		size_t at = 0;
		for (size_t i = 0; i < c->nvalues; i++) {
			views[i].p = pq_buf_at(&c->vals, at);
			views[i].n = lens[i];
			at += lens[i];
		}
		v.v.ba = views;
	}
	/* A page without values (all NULL) is PLAIN: nothing to encode, and no
	 * dictionary needed for it. */
	int e = c->nvalues == 0 ? PQ_ENC_PLAIN : c->encoding;
	*encoding = e;
	pq_status st;
	switch (e) {
	case PQ_ENC_RLE:
		st = pq_encode_rle_bool(&v, out, err);
		break;
	case PQ_ENC_DELTA_BINARY_PACKED:
		st = pq_encode_delta_binary_packed(&v, out, err);
		break;
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		st = pq_encode_delta_length_byte_array(&v, out, err);
		break;
	case PQ_ENC_DELTA_BYTE_ARRAY:
		st = pq_encode_delta_byte_array(&v, out, err);
		break;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		st = pq_encode_byte_stream_split(&v, out, err);
		break;
	default:
		st = pq_encode_plain(&v, out, err);
		break;
	}
	free(views);
	return st;
}

static pq_status push_page_record(pq_wcol *c, const pq_wpage *rec, pq_error *err)
{
	if (c->npl == c->cappl) {
		size_t cap = c->cappl ? c->cappl * 2 : 16;
		pq_wpage *pl = realloc(c->pl, cap * sizeof *pl);
		PQ_CHECK(pl, err, PQ_ENOMEM, "out of memory for %zu page records", cap);
		c->pl = pl;
		c->cappl = cap;
	}
	c->pl[c->npl++] = *rec;
	return PQ_OK;
}

/* Compresses src into wk->comp (unless UNCOMPRESSED) and returns the bytes
 * to store. */
static pq_status compress(pq_writer *w, pq_wwork *wk, const pq_buf *src, const pq_buf **res,
			  pq_error *err)
{
	if (w->opts.codec == PQ_CODEC_UNCOMPRESSED) {
		*res = src;
		return PQ_OK;
	}
	wk->comp.len = 0;
	PQ_TRY(pq_compress(w->opts.codec, w->opts.has_compression_level ? w->opts.compression_level : 0,
			   src->p, src->len, &wk->comp, err));
	*res = &wk->comp;
	return PQ_OK;
}

static pq_status check_i32(size_t n, const char *what, pq_error *err)
{
	PQ_CHECK(n <= INT32_MAX, err, PQ_ELIMIT, "%s of %zu bytes exceeds 2^31-1", what, n);
	return PQ_OK;
}

/* Page header through the module seam, then the stored body, onto dest. */
static pq_status put_page(pq_writer *w, pq_wwork *wk, pq_page_header *h, bool dict, pq_wmodule_at at,
			  pq_buf *dest, size_t *hdr_len, pq_error *err)
{
	PQ_TRY(check_i32(wk->stored.len, "page body", err));
	h->compressed_page_size = (int32_t)wk->stored.len;
	if (w->opts.crc) {
		h->has_crc = true;
		h->crc = (int32_t)pq_crc32(wk->stored.p, wk->stored.len);
	}
	wk->hdr.len = 0;
	PQ_TRY(pq_thrift_encode(PQ_S_PAGE_HEADER, h, &wk->hdr, err));
	size_t before = dest->len;
	PQ_TRY(pq_wmodule_put(w, dict ? PQ_WM_DICT_PAGE_HEADER : PQ_WM_DATA_PAGE_HEADER, at,
			      wk->hdr.p, wk->hdr.len, dest, err));
	*hdr_len = dest->len - before;
	pq_buf_append(dest, wk->stored.p, wk->stored.len);
	PQ_CHECK(!dest->oom, err, PQ_ENOMEM, "out of memory for the pages of a chunk");
	return PQ_OK;
}

/* The page's bounds for the column index (malloc'd into rec). */
static pq_status page_bounds(pq_wwork *wk, pq_wcol *c, pq_wpage *rec, pq_error *err)
{
	if (!c->pstats.has || c->order == PQ_ORDER_NONE)
		return PQ_OK;
	PQ_TRY(pq_wstats_bounds(&c->pstats, c->order, &wk->bound_min, &rec->min_exact,
				&wk->bound_max, &rec->max_exact, err));
	rec->min = malloc(wk->bound_min.len ? wk->bound_min.len : 1);
	rec->max = malloc(wk->bound_max.len ? wk->bound_max.len : 1);
	if (!rec->min || !rec->max) {
		free(rec->min);
		free(rec->max);
		return pq_fail(err, PQ_ENOMEM, "out of memory for page bounds");
	}
	if (wk->bound_min.len)
		memcpy(rec->min, wk->bound_min.p, wk->bound_min.len);
	if (wk->bound_max.len)
		memcpy(rec->max, wk->bound_max.p, wk->bound_max.len);
	rec->min_n = wk->bound_min.len;
	rec->max_n = wk->bound_max.len;
	rec->bounds = true;
	return PQ_OK;
}

static pq_status flush_page_inner(pq_writer *w, pq_wwork *wk, pq_wcol *c, uint32_t rg, pq_arena *a,
				  pq_error *err)
{
	bool v2 = w->opts.data_page_version == 2;
	wk->lev.len = wk->enc.len = wk->raw.len = wk->stored.len = 0;
	PQ_TRY(check_i32(c->slots, "page value count", err));
	if (c->optional) {
		if (!v2) {
			static const uint8_t zero[4];
			pq_buf_append(&wk->lev, zero, 4);
		}
		PQ_TRY(pq_rle_encode_levels((const uint16_t *)(const void *)c->def.p, c->slots, 1,
					    &wk->lev, err));
		if (!v2) {
			size_t n = wk->lev.len - 4;
			wk->lev.p[0] = (uint8_t)n;
			wk->lev.p[1] = (uint8_t)(n >> 8);
			wk->lev.p[2] = (uint8_t)(n >> 16);
			wk->lev.p[3] = (uint8_t)(n >> 24);
		}
	}
	int encoding = PQ_ENC_PLAIN; /* set by encode_values on success */
	PQ_TRY(encode_values(c, &wk->enc, &encoding, err));
	/* it indexes pages_by_enc (checked at open; bounded here all the same) */
	PQ_CHECK(encoding >= 0 && (size_t)encoding < sizeof c->pages_by_enc / sizeof c->pages_by_enc[0],
		 err, PQ_EINVAL, "page encoding %d out of range", encoding);
	size_t uncompressed = wk->lev.len + wk->enc.len;
	PQ_TRY(check_i32(uncompressed, "page", err));

	pq_page_header h;
	memset(&h, 0, sizeof h);
	h.uncompressed_page_size = (int32_t)uncompressed;
	pq_wpage rec;
	memset(&rec, 0, sizeof rec);
	pq_statistics st;
	PQ_TRY(pq_wstats_to_thrift(&c->pstats, c->order, &st, a, err));
	int64_t nulls = c->pstats.nulls;
	if (!v2) {
		/* v1: levels and values compressed together. */
		pq_buf_append(&wk->raw, wk->lev.p, wk->lev.len);
		pq_buf_append(&wk->raw, wk->enc.p, wk->enc.len);
		PQ_CHECK(!wk->raw.oom, err, PQ_ENOMEM, "out of memory for a page");
		const pq_buf *body;
		PQ_TRY(compress(w, wk, &wk->raw, &body, err));
		if (body != &wk->raw) {
			wk->raw.len = 0;
			pq_buf_append(&wk->raw, body->p, body->len);
		}
		h.type = PQ_PAGE_DATA;
		h.has_data_page_header = true;
		h.data_page_header.num_values = (int32_t)c->slots;
		h.data_page_header.encoding = encoding;
		h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
		h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
		h.data_page_header.has_statistics = true;
		h.data_page_header.statistics = st;
	} else {
		/* v2: levels stay uncompressed in front of the (compressed) values;
		 * values that do not shrink are stored as they are. */
		const pq_buf *vals;
		PQ_TRY(compress(w, wk, &wk->enc, &vals, err));
		bool compressed = vals != &wk->enc && vals->len < wk->enc.len;
		if (!compressed)
			vals = &wk->enc;
		pq_buf_append(&wk->raw, wk->lev.p, wk->lev.len);
		pq_buf_append(&wk->raw, vals->p, vals->len);
		PQ_CHECK(!wk->raw.oom, err, PQ_ENOMEM, "out of memory for a page");
		h.type = PQ_PAGE_DATA_V2;
		h.has_data_page_header_v2 = true;
		pq_data_page_header_v2 *d = &h.data_page_header_v2;
		d->num_values = (int32_t)c->slots;
		d->num_nulls = (int32_t)nulls;
		d->num_rows = (int32_t)c->slots;
		d->encoding = encoding;
		d->definition_levels_byte_length = (int32_t)wk->lev.len;
		d->repetition_levels_byte_length = 0;
		d->has_is_compressed = true;
		d->is_compressed = compressed;
		d->has_statistics = true;
		d->statistics = st;
	}
	pq_wmodule_at at = {rg, c->index, (int32_t)c->npl};
	PQ_TRY(pq_wmodule_put(w, PQ_WM_DATA_PAGE, at, wk->raw.p, wk->raw.len, &wk->stored, err));
	size_t start = c->pages.len, hdr_len;
	PQ_TRY(put_page(w, wk, &h, false, at, &c->pages, &hdr_len, err));
	PQ_TRY(check_i32(c->pages.len - start, "page", err));

	rec.offset = (int64_t)start;
	rec.size = (int32_t)(c->pages.len - start);
	rec.first_row = c->rows - (int64_t)c->slots;
	rec.nulls = nulls;
	rec.null_page = c->nvalues == 0;
	rec.def_hist[0] = nulls;
	rec.def_hist[1] = (int64_t)c->nvalues;
	rec.unencoded_ba = c->type == PQ_BYTE_ARRAY ? (int64_t)(c->ba_bytes_est - 4 * c->nvalues) : 0;
	PQ_TRY(page_bounds(wk, c, &rec, err));
	pq_status s = push_page_record(c, &rec, err);
	if (s != PQ_OK) {
		free(rec.min);
		free(rec.max);
		return s;
	}
	c->uncompressed += (int64_t)(hdr_len + uncompressed);
	c->compressed += (int64_t)(hdr_len + wk->stored.len);
	c->pages_by_enc[encoding]++;
	c->ba_bytes += rec.unencoded_ba;
	c->def_hist[0] += rec.def_hist[0];
	c->def_hist[1] += rec.def_hist[1];
	pq_wstats_merge(&c->cstats, c->order, &c->pstats);
	return PQ_OK;
}

/* last_dict: the dictionary is given up after this page. */
static pq_status flush_page(pq_writer *w, pq_wwork *wk, pq_wcol *c, uint32_t rg, bool last_dict,
			    pq_error *err)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_status st = pq_wcol_choose(c, wk, last_dict, err);
	if (st == PQ_OK)
		st = flush_page_inner(w, wk, c, rg, &a, err);
	pq_arena_free(&a);
	if (st != PQ_OK)
		return pq_context(err, "column %s, page %zu", col_name(c), c->npl);
	c->def.len = c->vals.len = c->lens.len = c->idx.len = 0;
	c->slots = c->nvalues = 0;
	c->ba_bytes_est = 0;
	pq_wstats_reset(&c->pstats);
	return PQ_OK;
}

/* ---- adding rows --------------------------------------------------------- */

static size_t page_estimate(const pq_wcol *c)
{
	size_t levels = c->optional ? c->slots / 8 : 0;
	if (c->dict_active)
		return levels + c->nvalues * (size_t)pq_bit_width(c->dict.count) / 8;
	if (c->type == PQ_BOOLEAN)
		return levels + c->nvalues / 8;
	if (c->type == PQ_BYTE_ARRAY)
		return levels + (size_t)c->ba_bytes_est;
	return levels + c->nvalues * c->width;
}

/* Values [from, from + n) of the batch went into the current page: fold
 * them into its statistics and, without the dictionary, copy them and
 * feed the bloom filter (the dictionary path did that value by value). */
static pq_status close_segment(pq_wcol *c, const pq_values *v, size_t from, size_t n,
			       pq_error *err)
{
	if (n == 0)
		return PQ_OK;
	pq_wstats_add(&c->pstats, c->order, v, from, n);
	if (c->dict_active)
		return PQ_OK;
	if (c->type == PQ_BYTE_ARRAY) {
		for (size_t i = from; i < from + n; i++) {
			PQ_CHECK(v->v.ba[i].n <= INT32_MAX, err, PQ_EINVAL,
				 "value %zu has %zu bytes, over 2^31-1", i, v->v.ba[i].n);
			uint32_t l = (uint32_t)v->v.ba[i].n;
			pq_buf_append(&c->lens, &l, sizeof l);
			pq_buf_append(&c->vals, v->v.ba[i].p, v->v.ba[i].n);
		}
	} else {
		pq_buf_append(&c->vals, (const uint8_t *)v->v.any + from * c->width, n * c->width);
	}
	PQ_CHECK(!c->vals.oom && !c->lens.oom, err, PQ_ENOMEM, "out of memory for page values");
	if (c->bloom)
		for (size_t i = from; i < from + n; i++)
			PQ_TRY(pq_wbloom_add(&c->bloomset, pq_wbloom_hash(v, i), err));
	return PQ_OK;
}

static pq_status check_batch(const pq_wcol *c, size_t rows, const uint8_t *def,
			     const pq_values *v, pq_error *err)
{
	PQ_CHECK(v, err, PQ_EINVAL, "no values");
	PQ_CHECK(v->type == c->type, err, PQ_EINVAL, "values of type %d for a %s column", v->type,
		 pq_type_name(c->type));
	PQ_CHECK(c->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length == c->type_length, err,
		 PQ_EINVAL, "values of length %d for FIXED_LEN_BYTE_ARRAY(%d)", v->type_length,
		 c->type_length);
	PQ_CHECK(v->n == 0 || v->v.any, err, PQ_EINVAL, "%zu values but no array", v->n);
	if (v->type == PQ_BYTE_ARRAY)
		for (size_t i = 0; i < v->n; i++)
			PQ_CHECK(v->v.ba[i].p || !v->v.ba[i].n, err, PQ_EINVAL,
				 "value %zu: %zu bytes but no pointer", i, v->v.ba[i].n);
	if (!def) {
		PQ_CHECK(v->n == rows, err, PQ_EINVAL,
			 "%zu rows without definition levels but %zu values", rows, v->n);
		return PQ_OK;
	}
	size_t present = 0;
	for (size_t r = 0; r < rows; r++) {
		PQ_CHECK(def[r] <= 1, err, PQ_EINVAL, "row %zu: definition level %u is not 0 or 1", r,
			 def[r]);
		PQ_CHECK(def[r] == 1 || c->optional, err, PQ_EINVAL,
			 "row %zu: NULL in a REQUIRED column", r);
		present += def[r];
	}
	PQ_CHECK(present == v->n, err, PQ_EINVAL, "%zu rows hold %zu values but %zu were given",
		 rows, present, v->n);
	return PQ_OK;
}

/* Checked as the dictionary reaches 8192, 16384, ... entries: when more
 * than 3/4 of the values seen are distinct, indices plus entries cost
 * about what PLAIN does, and the hash table would only hold memory. (At
 * 1024 entries a column of 10,000 keys drawn at random still looks all
 * distinct, and dates spread over 2,500 days nearly so.) */
static bool useless_dict(const pq_wcol *c)
{
	size_t n = c->dict.count;
	if (n < PQ_WRITER_DICT_PROBE || (n & (n - 1)) != 0)
		return false;
	return (uint64_t)n * 4 > (uint64_t)c->dict_values * 3;
}

static pq_status write_rows(pq_writer *w, pq_wwork *wk, pq_wcol *c, uint32_t rg, size_t rows,
			    const uint8_t *def, const pq_values *v, pq_error *err)
{
	size_t vi = 0, seg = 0;
	uint64_t page_size = w->opts.page_size;
	for (size_t r = 0; r < rows; r++) {
		bool present = !def || def[r];
		bool fallback = false;
		if (c->optional) {
			uint16_t l = present;
			pq_buf_append(&c->def, &l, sizeof l);
		}
		c->slots++;
		c->rows++;
		if (present) {
			if (c->dict_active) {
				uint64_t hash = pq_wbloom_hash(v, vi);
				if (c->bloom)
					PQ_TRY(pq_wbloom_add(&c->bloomset, hash, err));
				uint32_t ix;
				PQ_TRY(pq_wdict_index(&c->dict, v, vi, hash, &ix, err));
				pq_buf_append(&c->idx, &ix, sizeof ix);
				c->dict_values++;
				fallback = c->dict.plain_bytes > PQ_WRITER_DICT_LIMIT ||
					   (ix + 1 == c->dict.count && useless_dict(c));
			}
			if (c->type == PQ_BYTE_ARRAY)
				c->ba_bytes_est += 4 + v->v.ba[vi].n;
			vi++;
			c->nvalues++;
		} else {
			c->pstats.nulls++;
		}
		if (fallback || c->slots >= PQ_WRITER_MAX_PAGE_SLOTS || page_estimate(c) >= page_size) {
			PQ_TRY(close_segment(c, v, seg, vi - seg, err));
			seg = vi;
			PQ_CHECK(!c->def.oom && !c->idx.oom, err, PQ_ENOMEM, "out of memory for a page");
			PQ_TRY(flush_page(w, wk, c, rg, fallback, err));
			if (fallback)
				c->dict_active = false;
		}
	}
	PQ_CHECK(!c->def.oom && !c->idx.oom, err, PQ_ENOMEM, "out of memory for a page");
	return close_segment(c, v, seg, vi - seg, err);
}

pq_status pq_wcol_write(pq_writer *w, pq_wwork *wk, pq_wcol *c, size_t rows, const uint8_t *def,
			const pq_values *values, pq_error *err)
{
	uint32_t rg = w->nrgs;
	pq_status st = check_batch(c, rows, def, values, err);
	if (st == PQ_OK)
		st = write_rows(w, wk, c, rg, rows, def, values, err);
	if (st != PQ_OK && err && strncmp(err->msg, "column ", 7) != 0)
		pq_context(err, "column %s", col_name(c));
	return st;
}

/* ---- the end of a chunk ---------------------------------------------------- */

static pq_status dictionary_page(pq_writer *w, pq_wcol *c, uint32_t rg, pq_buf *out,
				 size_t *hdr_len, size_t *uncompressed, pq_error *err)
{
	pq_wwork *wk = &w->work;
	pq_values dv;
	pq_bytes *views;
	PQ_TRY(pq_wdict_values(&c->dict, &dv, &views, err));
	wk->raw.len = 0;
	pq_status st = pq_encode_plain(&dv, &wk->raw, err);
	free(views);
	PQ_TRY(st);
	PQ_TRY(check_i32(wk->raw.len, "dictionary page", err));
	*uncompressed = wk->raw.len;
	const pq_buf *body;
	PQ_TRY(compress(w, wk, &wk->raw, &body, err));
	pq_wmodule_at at = {rg, c->index, -1};
	wk->stored.len = 0;
	PQ_TRY(pq_wmodule_put(w, PQ_WM_DICT_PAGE, at, body->p, body->len, &wk->stored, err));
	pq_page_header h;
	memset(&h, 0, sizeof h);
	h.type = PQ_PAGE_DICTIONARY;
	h.uncompressed_page_size = (int32_t)*uncompressed;
	h.has_dictionary_page_header = true;
	h.dictionary_page_header.num_values = (int32_t)c->dict.count;
	h.dictionary_page_header.encoding = PQ_ENC_PLAIN;
	return put_page(w, wk, &h, true, at, out, hdr_len, err);
}

static pq_status add_encoding(pq_arena *a, pq_list_i32 *l, int32_t e, pq_error *err)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i] == e)
			return PQ_OK;
	l->v[l->n++] = e;
	(void)a;
	(void)err;
	return PQ_OK;
}

static pq_status chunk_meta(pq_writer *w, pq_wcol *c, pq_column_meta_data *m, bool has_dict,
			    pq_error *err)
{
	pq_arena *a = &w->arena;
	bool v2 = w->opts.data_page_version == 2;
	m->type = c->type;
	m->encodings.v = pq_arena_calloc(a, 16, sizeof(int32_t));
	m->path_in_schema.v = pq_arena_calloc(a, 1, sizeof(pq_bytes));
	m->encoding_stats.v = pq_arena_calloc(a, 12, sizeof(pq_page_encoding_stats));
	PQ_CHECK(m->encodings.v && m->path_in_schema.v && m->encoding_stats.v, err, PQ_ENOMEM,
		 "out of memory for column metadata");
	m->path_in_schema.n = 1;
	m->path_in_schema.v[0] = c->el->name;
	m->codec = w->opts.codec;
	m->num_values = c->rows;
	m->has_encoding_stats = true;
	if (has_dict) {
		PQ_TRY(add_encoding(a, &m->encodings, PQ_ENC_PLAIN, err));
		m->encoding_stats.v[m->encoding_stats.n++] =
			(pq_page_encoding_stats){PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN, 1};
	}
	if (c->optional)
		PQ_TRY(add_encoding(a, &m->encodings, PQ_ENC_RLE, err));
	for (int e = 0; e < (int)(sizeof c->pages_by_enc / sizeof c->pages_by_enc[0]); e++) {
		if (!c->pages_by_enc[e])
			continue;
		PQ_TRY(add_encoding(a, &m->encodings, e, err));
		m->encoding_stats.v[m->encoding_stats.n++] = (pq_page_encoding_stats){
			v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA, e, c->pages_by_enc[e]};
	}
	m->has_statistics = true;
	PQ_TRY(pq_wstats_to_thrift(&c->cstats, c->order, &m->statistics, a, err));
	m->has_size_statistics = true;
	if (c->type == PQ_BYTE_ARRAY) {
		m->size_statistics.has_unencoded_byte_array_data_bytes = true;
		m->size_statistics.unencoded_byte_array_data_bytes = c->ba_bytes;
	}
	if (c->optional) {
		int64_t *h = pq_arena_memdup(a, c->def_hist, sizeof c->def_hist);
		PQ_CHECK(h, err, PQ_ENOMEM, "out of memory for column metadata");
		m->size_statistics.has_definition_level_histogram = true;
		m->size_statistics.definition_level_histogram = (pq_list_i64){2, h};
	}
	return PQ_OK;
}

static pq_status finish(pq_writer *w, pq_wcol *c, uint32_t rg, pq_column_chunk *cc,
			pq_error *err)
{
	if (c->slots > 0 || c->npl == 0)
		PQ_TRY(flush_page(w, &w->work, c, rg, false, err));
	pq_column_meta_data *m = &cc->meta_data;
	memset(cc, 0, sizeof *cc);
	cc->has_meta_data = true;
	bool has_dict = c->use_dict && c->dict.count > 0;
	int64_t start = (int64_t)w->offset;
	int64_t dict_bytes_unc = 0, dict_bytes = 0;
	if (has_dict) {
		pq_buf dp = PQ_BUF_INIT;
		size_t hdr_len = 0, unc = 0;
		pq_status st = dictionary_page(w, c, rg, &dp, &hdr_len, &unc, err);
		if (st == PQ_OK)
			st = pq_writer_put(w, dp.p, dp.len, err);
		dict_bytes_unc = (int64_t)(hdr_len + unc);
		dict_bytes = (int64_t)dp.len;
		pq_buf_free(&dp);
		PQ_TRY(st);
		m->has_dictionary_page_offset = true;
		m->dictionary_page_offset = start;
	}
	m->data_page_offset = (int64_t)w->offset;
	PQ_TRY(pq_writer_put(w, c->pages.p, c->pages.len, err));
	cc->file_offset = start;
	PQ_TRY(chunk_meta(w, c, m, has_dict, err));
	m->total_uncompressed_size = c->uncompressed + dict_bytes_unc;
	m->total_compressed_size = c->compressed + dict_bytes;

	bool want_index = w->opts.page_index;
	if (want_index || c->bloom) {
		pq_wdeferred *d;
		PQ_TRY(pq_writer_defer(w, rg, c->index, &d, err));
		pq_wmodule_at at = {rg, c->index, -1};
		if (want_index) {
			pq_buf ci = PQ_BUF_INIT, oi = PQ_BUF_INIT;
			bool ci_ok = false;
			pq_status st = pq_windex_build(c->pl, c->npl, c->order, m->data_page_offset,
						       c->optional, c->type == PQ_BYTE_ARRAY, &ci,
						       &ci_ok, &oi, err);
			if (st == PQ_OK && ci_ok)
				st = pq_wmodule_put(w, PQ_WM_COLUMN_INDEX, at, ci.p, ci.len,
						    &d->column_index, err);
			if (st == PQ_OK)
				st = pq_wmodule_put(w, PQ_WM_OFFSET_INDEX, at, oi.p, oi.len,
						    &d->offset_index, err);
			pq_buf_free(&ci);
			pq_buf_free(&oi);
			PQ_TRY(st);
		}
		if (c->bloom)
			PQ_TRY(pq_wbloom_finish(w, &c->bloomset, w->opts.bloom_fpp, at, &d->bloom, err));
	}
	return PQ_OK;
}

static void reset_chunk(pq_wcol *c)
{
	free_pages(c);
	c->pages.len = 0;
	c->rows = 0;
	pq_wstats_reset(&c->cstats);
	c->def_hist[0] = c->def_hist[1] = 0;
	c->ba_bytes = 0;
	c->uncompressed = c->compressed = 0;
	memset(c->pages_by_enc, 0, sizeof c->pages_by_enc);
	pq_wdict_clear(&c->dict);
	c->dict_values = 0;
	c->dict_active = c->use_dict;
	c->dict_decided = c->alt_decided = false;
	if (c->auto_enc)
		c->encoding = PQ_ENC_PLAIN;
	pq_wbloom_free(&c->bloomset);
}

pq_status pq_wcol_finish(pq_writer *w, pq_wcol *c, uint32_t rg, pq_column_chunk *cc,
			 pq_error *err)
{
	pq_status st = finish(w, c, rg, cc, err);
	reset_chunk(c);
	if (st != PQ_OK && err && strncmp(err->msg, "column ", 7) != 0)
		pq_context(err, "row group %u, column %s", rg, col_name(c));
	return st;
}
