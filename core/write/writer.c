#include "config.h"

/* The writer's file level: the leading magic, row groups (each column's
 * chunk written when the row group ends), then after the last row group the
 * column indexes, offset indexes and bloom filters of every chunk, the
 * FileMetaData footer, its length and the trailing magic.
 *
 * Every serialized module passes through pq_wmodule_put before it is
 * written, the one place modular encryption (writer_crypt.c) transforms it. */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/pq_codec.h"
#include "format/pq_metadata_codec.h"

/* The build in created_by ("parquetfs version 0.1.0 (build ...)"): a
 * release or commit id given at build time, e.g. CPPFLAGS=-DPQ_BUILD_ID=... */
#ifndef PQ_BUILD_ID
#define PQ_BUILD_ID "source"
#endif
#define PQ_CREATED_BY "parquetfs version " PACKAGE_VERSION " (build " PQ_BUILD_ID ")"

pq_status pq_wmodule_put(pq_writer *w, pq_wmodule kind, pq_wmodule_at at, const uint8_t *p,
			 size_t n, pq_buf *dest, pq_error *err)
{
	if (w->crypt)
		return pq_wcrypt_module(w, kind, at, p, n, dest, err);
	pq_buf_append(dest, p, n);
	PQ_CHECK(!dest->oom, err, PQ_ENOMEM, "out of memory for %zu bytes of output", n);
	return PQ_OK;
}

pq_status pq_writer_put(pq_writer *w, const uint8_t *p, size_t n, pq_error *err)
{
	while (n > 0) {
		PQ_CHECK(w->offset <= (uint64_t)INT64_MAX - n, err, PQ_ELIMIT, "file too large");
		size_t piece = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
		ssize_t k = pwrite(w->fd, p, piece, (off_t)w->offset);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->failed = true;
			return pq_fail(err, PQ_EIO, "write at offset %llu: %s",
				       (unsigned long long)w->offset,
				       k < 0 ? strerror(errno) : "nothing written");
		}
		p += k;
		n -= (size_t)k;
		w->offset += (uint64_t)k;
	}
	return PQ_OK;
}

pq_status pq_writer_defer(pq_writer *w, uint32_t rg, uint32_t col, pq_wdeferred **out,
			  pq_error *err)
{
	if (w->ndeferred == w->capdeferred) {
		size_t cap = w->capdeferred ? w->capdeferred * 2 : 64;
		pq_wdeferred *d = realloc(w->deferred, cap * sizeof *d);
		PQ_CHECK(d, err, PQ_ENOMEM, "out of memory for page indexes");
		w->deferred = d;
		w->capdeferred = cap;
	}
	pq_wdeferred *d = &w->deferred[w->ndeferred++];
	memset(d, 0, sizeof *d);
	d->rg = rg;
	d->col = col;
	*out = d;
	return PQ_OK;
}

/* ---- opening ---------------------------------------------------------------- */

static pq_status check_options(const pq_write_options *o, pq_error *err)
{
	PQ_CHECK(pq_codec_supported(o->codec), err, PQ_EINVAL, "codec %d is not supported for writing",
		 o->codec);
	if (o->has_compression_level) {
		int l = o->compression_level;
		bool ok = true;
		if (o->codec == PQ_CODEC_GZIP)
			ok = l >= 1 && l <= 9;
		else if (o->codec == PQ_CODEC_BROTLI)
			ok = l >= 0 && l <= 11;
		else if (o->codec == PQ_CODEC_ZSTD)
			ok = l >= -131072 && l <= 22;
		PQ_CHECK(ok, err, PQ_EINVAL, "compression level %d is out of range for %s", l,
			 pq_codec_name(o->codec));
	}
	PQ_CHECK(o->data_page_version == 1 || o->data_page_version == 2, err, PQ_EINVAL,
		 "data page version %d is not 1 or 2", o->data_page_version);
	PQ_CHECK(o->page_size > 0, err, PQ_EINVAL, "page size 0");
	PQ_CHECK(!o->bloom_columns || (o->bloom_fpp > 0 && o->bloom_fpp < 1), err, PQ_EINVAL,
		 "bloom filter false-positive probability %g is not in (0, 1)", o->bloom_fpp);
	return PQ_OK;
}

static pq_status copy_bytes(pq_arena *a, pq_bytes *b, pq_error *err)
{
	if (!b->n) {
		b->p = (const uint8_t *)"";
		return PQ_OK;
	}
	uint8_t *p = pq_arena_alloc(a, b->n + 1);
	PQ_CHECK(p && b->p, err, PQ_ENOMEM, "out of memory for the schema");
	memcpy(p, b->p, b->n);
	b->p = p;
	return PQ_OK;
}

static pq_status copy_schema(pq_writer *w, const pq_schema_element *schema, uint32_t n,
			     pq_error *err)
{
	PQ_CHECK(schema && n >= 2, err, PQ_EINVAL, "the schema has no columns");
	const pq_schema_element *root = &schema[0];
	PQ_CHECK(!root->has_type && root->has_num_children && root->num_children >= 0 &&
			 (uint32_t)root->num_children == n - 1,
		 err, PQ_EUNSUPPORTED,
		 "only flat schemas can be written: the root must be a group of every column");
	w->schema = pq_arena_calloc(&w->arena, n, sizeof *w->schema);
	PQ_CHECK(w->schema, err, PQ_ENOMEM, "out of memory for the schema");
	memcpy(w->schema, schema, n * sizeof *schema);
	w->nschema = n;
	for (uint32_t i = 0; i < n; i++) {
		pq_schema_element *e = &w->schema[i];
		PQ_TRY(copy_bytes(&w->arena, &e->name, err));
		if (e->logicalType.has_GEOMETRY && e->logicalType.GEOMETRY.has_crs)
			PQ_TRY(copy_bytes(&w->arena, &e->logicalType.GEOMETRY.crs, err));
		if (e->logicalType.has_GEOGRAPHY && e->logicalType.GEOGRAPHY.has_crs)
			PQ_TRY(copy_bytes(&w->arena, &e->logicalType.GEOGRAPHY.crs, err));
		if (i == 0)
			continue;
		int nm = (int)(e->name.n < 200 ? e->name.n : 200);
		const char *name = (const char *)e->name.p;
		PQ_CHECK(e->has_type && !(e->has_num_children && e->num_children > 0), err,
			 PQ_EUNSUPPORTED, "column %.*s: nested groups cannot be written", nm, name);
		PQ_CHECK(e->type >= PQ_BOOLEAN && e->type <= PQ_FIXED_LEN_BYTE_ARRAY, err, PQ_EINVAL,
			 "column %.*s: unknown physical type %d", nm, name, e->type);
		PQ_CHECK(e->has_repetition_type && (e->repetition_type == PQ_REQUIRED ||
						    e->repetition_type == PQ_OPTIONAL),
			 err, PQ_EUNSUPPORTED, "column %.*s: only REQUIRED and OPTIONAL columns", nm,
			 name);
		PQ_CHECK(e->type != PQ_FIXED_LEN_BYTE_ARRAY ||
				 (e->has_type_length && e->type_length > 0),
			 err, PQ_EINVAL, "column %.*s: FIXED_LEN_BYTE_ARRAY without a length", nm,
			 name);
	}
	return PQ_OK;
}

static bool is_column(const pq_writer *w, const char *name)
{
	size_t n = strlen(name);
	for (uint32_t i = 1; i < w->nschema; i++)
		if (w->schema[i].name.n == n && memcmp(w->schema[i].name.p, name, n) == 0)
			return true;
	return false;
}

static pq_status check_column_names(const pq_writer *w, pq_error *err)
{
	const pq_write_options *o = &w->opts;
	for (const char *const *c = o->bloom_columns; c && *c; c++)
		PQ_CHECK(is_column(w, *c), err, PQ_EINVAL, "bloom filter for %s: no such column", *c);
	for (size_t i = 0; o->column_encodings && i < o->n_column_encodings; i++) {
		const char *c = o->column_encodings[i].column;
		PQ_CHECK(c && is_column(w, c), err, PQ_EINVAL, "encoding for %s: no such column",
			 c ? c : "(null)");
	}
	return PQ_OK;
}

static pq_status copy_key_values(pq_writer *w, const pq_key_value *kv, uint32_t n, pq_error *err)
{
	if (!n)
		return PQ_OK;
	PQ_CHECK(kv, err, PQ_EINVAL, "%u key/value pairs but no array", n);
	w->kv = pq_arena_calloc(&w->arena, n, sizeof *w->kv);
	PQ_CHECK(w->kv, err, PQ_ENOMEM, "out of memory for key/value metadata");
	for (uint32_t i = 0; i < n; i++) {
		w->kv[i] = kv[i];
		PQ_TRY(copy_bytes(&w->arena, &w->kv[i].key, err));
		if (w->kv[i].has_value)
			PQ_TRY(copy_bytes(&w->arena, &w->kv[i].value, err));
	}
	w->nkv = n;
	return PQ_OK;
}

/* pq_writer_open, or with magic false pq_writer_open_at: the file's first
 * byte is at offset (what lies before it is the caller's). */
static pq_status writer_open(pq_writer **out, int fd, uint64_t offset, bool magic,
			     const pq_schema_element *schema, uint32_t n,
			     const pq_write_options *opts, const pq_key_value *key_values,
			     uint32_t n_key_values, pq_error *err)
{
	PQ_CHECK(out, err, PQ_EINVAL, "pq_writer_open: no output pointer");
	*out = NULL;
	pq_writer *w = calloc(1, sizeof *w);
	PQ_CHECK(w, err, PQ_ENOMEM, "out of memory for the writer");
	w->fd = fd;
	w->offset = offset;
	w->nworkers = 1;
	pq_arena_init(&w->arena, 0);
	if (opts)
		w->opts = *opts;
	else
		pq_write_options_init(&w->opts);
	pq_status st = check_options(&w->opts, err);
	if (w->opts.page_size > PQ_WRITER_MAX_PAGE_BYTES)
		w->opts.page_size = PQ_WRITER_MAX_PAGE_BYTES;
	if (st == PQ_OK)
		st = copy_schema(w, schema, n, err);
	if (st == PQ_OK)
		st = check_column_names(w, err);
	if (st == PQ_OK)
		st = copy_key_values(w, key_values, n_key_values, err);
	if (st == PQ_OK) {
		w->ncols = n - 1;
		w->cols = calloc(w->ncols, sizeof *w->cols);
		if (!w->cols)
			st = pq_fail(err, PQ_ENOMEM, "out of memory for %u columns", w->ncols);
	}
	for (uint32_t i = 0; st == PQ_OK && i < w->ncols; i++)
		st = pq_wcol_new(w, i, &w->schema[i + 1], &w->cols[i], err);
	if (st == PQ_OK)
		st = pq_wcrypt_open(w, err);
	if (st == PQ_OK && magic)
		st = pq_writer_put(w, (const uint8_t *)pq_wcrypt_magic(w), 4, err);
	if (st != PQ_OK) {
		pq_writer_free(w);
		return st;
	}
	*out = w;
	return PQ_OK;
}

pq_status pq_writer_open(pq_writer **out, int fd, const pq_schema_element *schema, uint32_t n,
			 const pq_write_options *opts, const pq_key_value *key_values,
			 uint32_t n_key_values, pq_error *err)
{
	return writer_open(out, fd, 0, true, schema, n, opts, key_values, n_key_values, err);
}

pq_status pq_writer_open_at(pq_writer **out, int fd, uint64_t offset, uint32_t first_rg,
			    const pq_schema_element *schema, uint32_t n,
			    const pq_write_options *opts, pq_error *err)
{
	if (out)
		*out = NULL;
	/* the existing footer is kept as it is: no key can be added to it */
	PQ_CHECK(!opts || (!opts->footer_key && !opts->n_column_keys), err, PQ_EUNSUPPORTED,
		 "row groups appended to a file cannot be encrypted");
	PQ_CHECK(offset >= 4 && first_rg < INT32_MAX, err, PQ_EINVAL,
		 "appending at offset %llu after %u row groups", (unsigned long long)offset,
		 first_rg);
	PQ_TRY(writer_open(out, fd, offset, false, schema, n, opts, NULL, 0, err));
	(*out)->rg_base = first_rg;
	return PQ_OK;
}

/* ---- writing ---------------------------------------------------------------- */

static pq_status usable(const pq_writer *w, pq_error *err)
{
	PQ_CHECK(w, err, PQ_EINVAL, "no writer");
	PQ_CHECK(!w->closed, err, PQ_EINVAL, "the writer is closed");
	PQ_CHECK(!w->failed, err, PQ_EINVAL, "the writer failed earlier; the file is unusable");
	return PQ_OK;
}

static void free_work(pq_wwork *k)
{
	pq_buf *b[] = {&k->lev, &k->enc, &k->raw, &k->comp, &k->stored, &k->hdr, &k->bound_min,
		       &k->bound_max};
	for (size_t i = 0; i < sizeof b / sizeof *b; i++)
		pq_buf_free(b[i]);
}

pq_status pq_writer_workers(pq_writer *w, unsigned n, unsigned *got, pq_error *err)
{
	PQ_TRY(usable(w, err));
	PQ_CHECK(n >= 1 && n <= 64, err, PQ_EINVAL, "%u workers (1 to 64)", n);
	if (w->crypt)
		n = 1;
	for (unsigned i = 1; i < w->nworkers; i++)
		free_work(&w->workers[i - 1]);
	free(w->workers);
	w->workers = NULL;
	w->nworkers = 1;
	if (n > 1) {
		w->workers = calloc(n - 1, sizeof *w->workers);
		PQ_CHECK(w->workers, err, PQ_ENOMEM, "out of memory for %u workers", n);
		w->nworkers = n;
	}
	if (got)
		*got = w->nworkers;
	return PQ_OK;
}

pq_status pq_writer_write_on(pq_writer *w, unsigned k, size_t col, size_t rows,
			     const uint8_t *def, const pq_values *values, pq_error *err)
{
	PQ_TRY(usable(w, err));
	PQ_CHECK(col < w->ncols, err, PQ_EINVAL, "column %zu does not exist (%u columns)", col,
		 w->ncols);
	PQ_CHECK(k < (w->nworkers ? w->nworkers : 1), err, PQ_EINVAL,
		 "worker %u does not exist (%u workers)", k, w->nworkers);
	pq_wwork *wk = k == 0 ? &w->work : &w->workers[k - 1];
	pq_status st = pq_wcol_write(w, wk, w->cols[col], rows, def, values, err);
	if (st != PQ_OK)
		w->failed = true;
	return st;
}

pq_status pq_writer_write(pq_writer *w, size_t col, size_t rows, const uint8_t *def,
			  const pq_values *values, pq_error *err)
{
	return pq_writer_write_on(w, 0, col, rows, def, values, err);
}

static pq_status end_row_group(pq_writer *w, pq_error *err)
{
	uint64_t rows = pq_wcol_rows(w->cols[0]);
	for (uint32_t i = 1; i < w->ncols; i++)
		PQ_CHECK(pq_wcol_rows(w->cols[i]) == rows, err, PQ_EINVAL,
			 "row group %u: column %u has %llu rows, column 0 has %llu", w->nrgs, i,
			 (unsigned long long)pq_wcol_rows(w->cols[i]), (unsigned long long)rows);
	if (rows == 0)
		return PQ_OK;
	if (w->nrgs == w->caprgs) {
		uint32_t cap = w->caprgs ? w->caprgs * 2 : 8;
		PQ_CHECK(cap < INT32_MAX / 2, err, PQ_ELIMIT, "too many row groups");
		pq_row_group *r = realloc(w->rgs, cap * sizeof *r);
		PQ_CHECK(r, err, PQ_ENOMEM, "out of memory for row group metadata");
		w->rgs = r;
		w->caprgs = cap;
	}
	pq_row_group *rg = &w->rgs[w->nrgs];
	memset(rg, 0, sizeof *rg);
	rg->columns.v = pq_arena_calloc(&w->arena, w->ncols, sizeof *rg->columns.v);
	PQ_CHECK(rg->columns.v, err, PQ_ENOMEM, "out of memory for row group metadata");
	rg->columns.n = w->ncols;
	for (uint32_t i = 0; i < w->ncols; i++) {
		pq_column_chunk *cc = &rg->columns.v[i];
		PQ_TRY(pq_wcol_finish(w, w->cols[i], w->nrgs, cc, err));
		rg->total_byte_size += cc->meta_data.total_uncompressed_size;
		rg->total_compressed_size += cc->meta_data.total_compressed_size;
	}
	rg->num_rows = (int64_t)rows;
	rg->has_file_offset = true;
	rg->file_offset = rg->columns.v[0].file_offset;
	rg->has_total_compressed_size = true;
	if ((uint64_t)w->rg_base + w->nrgs <= INT16_MAX) {
		rg->has_ordinal = true;
		rg->ordinal = (int16_t)(w->rg_base + w->nrgs);
	}
	w->nrgs++;
	w->rows += (int64_t)rows;
	return PQ_OK;
}

pq_status pq_writer_end_row_group(pq_writer *w, pq_error *err)
{
	PQ_TRY(usable(w, err));
	pq_status st = end_row_group(w, err);
	if (st != PQ_OK)
		w->failed = true;
	return st;
}

/* ---- closing ---------------------------------------------------------------- */

static pq_status put_deferred(pq_writer *w, pq_error *err)
{
	/* All column indexes, then all offset indexes, then bloom filters. */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < w->ndeferred; i++) {
			pq_wdeferred *d = &w->deferred[i];
			pq_column_chunk *cc = &w->rgs[d->rg].columns.v[d->col];
			pq_buf *b = pass == 0 ? &d->column_index : pass == 1 ? &d->offset_index : &d->bloom;
			if (!b->len)
				continue;
			PQ_CHECK(b->len <= INT32_MAX, err, PQ_ELIMIT,
				 "row group %u, column %u: index of %zu bytes", d->rg, d->col, b->len);
			int64_t at = (int64_t)w->offset;
			PQ_TRY(pq_writer_put(w, b->p, b->len, err));
			if (pass == 0) {
				cc->has_column_index_offset = cc->has_column_index_length = true;
				cc->column_index_offset = at;
				cc->column_index_length = (int32_t)b->len;
			} else if (pass == 1) {
				cc->has_offset_index_offset = cc->has_offset_index_length = true;
				cc->offset_index_offset = at;
				cc->offset_index_length = (int32_t)b->len;
			} else {
				cc->meta_data.has_bloom_filter_offset = true;
				cc->meta_data.has_bloom_filter_length = true;
				cc->meta_data.bloom_filter_offset = at;
				cc->meta_data.bloom_filter_length = (int32_t)b->len;
			}
			pq_buf_free(b);
		}
	}
	return PQ_OK;
}

/* The ColumnMetaData of a chunk as the footer carries it: in
 * ColumnChunk.meta_data, or, encrypted, sealed by writer_crypt.c into
 * encrypted_column_metadata (meta_data then dropped, or kept without
 * statistics under a plaintext footer). */
static pq_status seal_column_meta(pq_writer *w, uint32_t rg, uint32_t col, pq_column_chunk *cc,
				  pq_error *err)
{
	return w->crypt ? pq_wcrypt_seal_column(w, rg, col, cc, err) : PQ_OK;
}

static pq_status put_footer(pq_writer *w, pq_error *err)
{
	for (uint32_t rg = 0; rg < w->nrgs; rg++)
		for (uint32_t col = 0; col < w->ncols; col++)
			PQ_TRY(seal_column_meta(w, rg, col, &w->rgs[rg].columns.v[col], err));

	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	md.version = 2;
	md.schema.n = w->nschema;
	md.schema.v = w->schema;
	md.num_rows = w->rows;
	md.row_groups.n = w->nrgs;
	md.row_groups.v = w->rgs;
	if (w->nkv) {
		md.has_key_value_metadata = true;
		md.key_value_metadata.n = w->nkv;
		md.key_value_metadata.v = w->kv;
	}
	md.has_created_by = true;
	md.created_by = (pq_bytes){(const uint8_t *)PQ_CREATED_BY, strlen(PQ_CREATED_BY)};
	md.has_column_orders = true;
	md.column_orders.n = w->ncols;
	md.column_orders.v = pq_arena_calloc(&w->arena, w->ncols, sizeof *md.column_orders.v);
	PQ_CHECK(md.column_orders.v, err, PQ_ENOMEM, "out of memory for the footer");
	for (uint32_t i = 0; i < w->ncols; i++)
		md.column_orders.v[i].has_TYPE_ORDER = true;
	pq_wcrypt_footer_fields(w, &md);

	pq_buf raw = PQ_BUF_INIT, out = PQ_BUF_INIT;
	pq_status st = pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &raw, err);
	pq_wmodule_at at = {0, 0, -1};
	if (st == PQ_OK)
		st = pq_wmodule_put(w, PQ_WM_FOOTER, at, raw.p, raw.len, &out, err);
	if (st == PQ_OK && out.len > UINT32_MAX)
		st = pq_fail(err, PQ_ELIMIT, "footer of %zu bytes", out.len);
	if (st == PQ_OK) {
		uint8_t tail[8];
		uint32_t n = (uint32_t)out.len;
		for (int i = 0; i < 4; i++)
			tail[i] = (uint8_t)(n >> (8 * i));
		memcpy(tail + 4, pq_wcrypt_magic(w), 4);
		pq_buf_append(&out, tail, sizeof tail);
		st = out.oom ? pq_fail(err, PQ_ENOMEM, "out of memory for the footer")
			     : pq_writer_put(w, out.p, out.len, err);
	}
	pq_buf_free(&raw);
	pq_buf_free(&out);
	return st;
}

pq_status pq_writer_close(pq_writer *w, pq_write_stats *stats, pq_error *err)
{
	PQ_TRY(usable(w, err));
	pq_status st = end_row_group(w, err);
	if (st == PQ_OK)
		st = put_deferred(w, err);
	if (st == PQ_OK && w->base_footer) {
		pq_buf f = PQ_BUF_INIT;
		st = pq_writer_append_footer(w, &f, err);
		if (st == PQ_OK)
			st = pq_writer_put(w, f.p, f.len, err);
		pq_buf_free(&f);
	} else if (st == PQ_OK) {
		st = put_footer(w, err);
	}
	if (st != PQ_OK) {
		w->failed = true;
		return st;
	}
	w->closed = true;
	if (stats) {
		stats->rows = (uint64_t)w->rows;
		stats->row_groups = w->nrgs;
		stats->bytes_out = w->offset;
	}
	return PQ_OK;
}

pq_status pq_writer_close_append(pq_writer *w, const uint8_t *footer, size_t len,
				 pq_write_stats *stats, pq_error *err)
{
	PQ_TRY(usable(w, err));
	PQ_CHECK(footer && len && w->rg_base < INT32_MAX, err, PQ_EINVAL,
		 "pq_writer_close_append: no footer to extend (open with pq_writer_open_at)");
	w->base_footer = footer;
	w->base_footer_len = len;
	return pq_writer_close(w, stats, err);
}

void pq_writer_free(pq_writer *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; w->cols && i < w->ncols; i++)
		pq_wcol_free(w->cols[i]);
	free(w->cols);
	for (size_t i = 0; i < w->ndeferred; i++) {
		pq_buf_free(&w->deferred[i].column_index);
		pq_buf_free(&w->deferred[i].offset_index);
		pq_buf_free(&w->deferred[i].bloom);
	}
	free(w->deferred);
	free(w->rgs);
	free_work(&w->work);
	for (unsigned i = 1; i < w->nworkers; i++)
		free_work(&w->workers[i - 1]);
	free(w->workers);
	pq_wcrypt_free(w);
	pq_arena_free(&w->arena);
	free(w);
}
