/* CSV / TSV → Parquet (pq_convert.h): the header, the sidecar schema or
 * type inference (a first pass over the file), then a second pass that
 * parses every value into per-column typed batches fed to pq_writer.
 *
 * Memory: one record (bounded by the tokenizer), plus two sets of batches
 * (one per column each): batch rows are chosen so the fixed-width part
 * stays near BATCH_BYTES, and a batch is also flushed when its text bytes
 * pass BATCH_TEXT_BYTES. The writer holds at most one row group of encoded
 * pages.
 *
 * Threads: while this thread tokenizes and parses into one set of batches,
 * writer threads encode and compress the other (a two-stage pipeline).
 * Encoding is the larger half of the work, so the set's columns are shared
 * out among `threads` writer threads, each taking the next column not yet
 * taken (pq_writer_write_on with its own scratch); a column's pages depend
 * only on its own values, so the file is byte-identical to a run with
 * threads=1 (no thread at all: parse, then write, on this thread). The
 * last writer to finish a set ends the row group when the set says so. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "pq_budget.h"
#include "pq_csv.h"
#include "pq_schema.h"
#include "util/pq_utf8.h"
#include "write/pq_writer.h"
#define PQ_CSV_INTERNAL
#include "convert_internal.h"
#include "convert_pool.h"

#define BATCH_BYTES (8u << 20)
#define BATCH_TEXT_BYTES (16u << 20)
#define BATCH_MAX_ROWS 65536u
#define BATCH_RAW_BYTES (32u << 20)  /* a set's record bytes */
#define INFER_SET_BYTES (8u << 20)   /* field positions of an inference set */
#define MAX_WRITERS 16u

typedef struct column {
	pq_bytes name;      /* header name (arena copy) */
	size_t csv_index;   /* position in the CSV record */
	const pq_schema_element *el;
	pq_cv_type type;
	bool required;
	bool empty_is_value; /* "" is an empty value, not NULL (STRING, binary) */
	size_t width;       /* bytes per value in vals (BYTE_ARRAY: 0) */
	pq_infer inf;
	pq_buf big;         /* wide DECIMAL scratch */
} column;

typedef struct conv conv;
struct conv {
	const char *name;
	pq_csv_input in;
	const pq_convert_input *ip;
	pq_convert_progress prog;
	pq_csv_reader r;
	pq_arena arena;
	column *cols;       /* schema order */
	size_t ncols;
	size_t *by_csv;     /* csv index -> schema column */
	pq_schema_element *els;
	uint32_t nels;
	size_t batch_rows;
	uint64_t group_rows, row_group_rows;
	unsigned threads;   /* 1: everything on this thread */
	uint64_t infer_ranges, infer_reparsed; /* pq_convert_stats */
	pq_writer *w;
	pq_conv_set sets[PQ_CONV_POOL_DEPTH + 1]; /* threads: one filled, the others in the pool */
	unsigned nsets;     /* used (no thread: 1) */
	unsigned cur_set;
	pq_conv_set *cur;   /* sets[cur_set], being filled */
	pq_conv_pool pool;
	bool *text_cols;    /* CSV order: BYTE_ARRAY columns (their bytes end a batch) */
	const pq_conv_append *app; /* appending to an existing file, or NULL */
	const char *width_of; /* what fixes the number of fields: "the header" */
	pq_budget *budget;  /* opts->budget: the sets' memory is charged to it */
};

/* ---- header ------------------------------------------------------------ */

static pq_status read_header(conv *c, pq_bytes **names_out, size_t *n_out, pq_error *err)
{
	bool done;
	PQ_TRY(pq_csv_next(&c->r, &done, err));
	if (done)
		return pq_fail(err, PQ_EINVAL, "%s: empty file (the first line must be the header)",
			       c->name);
	size_t n = c->r.nfields;
	pq_bytes *names = pq_arena_calloc(&c->arena, n, sizeof *names);
	if (!names)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for the header", c->name);
	for (size_t i = 0; i < n; i++) {
		const pq_csv_field *f = &c->r.fields[i];
		size_t bad;
		if (f->n == 0) {
			char gen[32];
			int l = snprintf(gen, sizeof gen, "column_%zu", i + 1);
			names[i].p = pq_arena_memdup(&c->arena, gen, (size_t)l + 1);
			names[i].n = (size_t)l;
		} else {
			if ((bad = pq_utf8_first_invalid(f->p, f->n)) != f->n)
				return pq_fail(err, PQ_EINVAL,
					       "%s: line %llu, column %zu: the column name is not "
					       "valid UTF-8 (byte 0x%02x at offset %zu)",
					       c->name, (unsigned long long)f->line, i + 1,
					       f->p[bad], bad);
			uint8_t *p = pq_arena_alloc(&c->arena, f->n + 1);
			if (p)
				memcpy(p, f->p, f->n);
			names[i].p = p;
			names[i].n = f->n;
		}
		if (!names[i].p)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for the header", c->name);
	}
	size_t *idx = pq_conv_sorted_names(names, n);
	if (!idx)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for the header", c->name);
	/* Equal names sort together, by position: report the run whose second
	 * occurrence comes first in the file. */
	size_t dup = SIZE_MAX, first = 0;
	for (size_t k = 1; k < n; k++)
		if (pq_conv_same(names[idx[k]], names[idx[k - 1]]) &&
		    (k < 2 || !pq_conv_same(names[idx[k - 1]], names[idx[k - 2]])) && idx[k] < dup) {
			dup = idx[k];
			first = idx[k - 1];
		}
	free(idx);
	if (dup != SIZE_MAX) {
		char nm[128];
		pq_conv_msg_name(names[dup], nm, sizeof nm);
		return pq_fail(err, PQ_EINVAL,
			       "%s: line %llu, column %zu (%s): duplicate column name (also column %zu)",
			       c->name, (unsigned long long)c->r.fields[dup].line, dup + 1, nm,
			       first + 1);
	}
	*names_out = names;
	*n_out = n;
	return PQ_OK;
}

/* ---- columns and batches ------------------------------------------------ */

static pq_status setup_column(conv *c, column *col, pq_error *err)
{
	const char *why = pq_cv_type_of(col->el, &col->type);
	if (why) { /* pq_conv_load_schema refused these already */
		char nm[128];
		pq_conv_msg_name(col->name, nm, sizeof nm);
		return pq_fail(err, PQ_EINVAL, "%s: column '%s': %s", c->name, nm, why);
	}
	col->required = col->el->repetition_type == PQ_REQUIRED;
	col->empty_is_value = col->type.kind == PQ_CV_STRING || col->type.kind == PQ_CV_BINARY;
	col->width = pq_value_width(col->type.physical, col->type.type_length);
	return PQ_OK;
}

/* Two sets of records with room for batch_rows each and, for the value
 * pass, every column's typed values (schema order). */
static pq_status alloc_sets(conv *c, size_t rows, bool typed, pq_error *err)
{
	c->nsets = c->threads > 1 ? PQ_CONV_POOL_DEPTH + 1 : 1;
	for (unsigned s = 0; s < c->nsets; s++) {
		pq_conv_set *b = &c->sets[s];
		b->raw.budget = c->budget;
		PQ_TRY(pq_conv_set_alloc(b, c->ncols, rows, c->name, err));
		pq_conv_set_clear(b);
		b->text_cols = typed ? c->text_cols : NULL;
		if (!typed)
			continue;
		b->cb = calloc(c->ncols ? c->ncols : 1, sizeof *b->cb);
		if (!b->cb)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for column batches", c->name);
		for (size_t i = 0; i < c->ncols; i++) {
			pq_conv_colbuf *cb = &b->cb[i];
			size_t width = c->cols[i].width;
			cb->text.budget = c->budget;
			pq_conv_set_charge(b, (uint64_t)rows * (1 + sizeof *cb->views) +
						      (width ? (uint64_t)rows * width
							     : (uint64_t)(rows + 1) * sizeof *cb->offs));
			cb->def = malloc(rows);
			cb->views = malloc(rows * sizeof *cb->views);
			if (width)
				cb->vals = malloc(rows * width);
			else
				cb->offs = malloc((rows + 1) * sizeof *cb->offs);
			if (!cb->def || !cb->views || (width ? !cb->vals : !cb->offs))
				return pq_fail(err, PQ_ENOMEM, "%s: no memory for column batches",
					       c->name);
		}
	}
	c->cur_set = 0;
	c->cur = &c->sets[0];
	return PQ_OK;
}

static pq_status alloc_batches(conv *c, pq_error *err)
{
	size_t per_row = 0;
	for (size_t i = 0; i < c->ncols; i++)
		per_row += 1 + (c->cols[i].width ? c->cols[i].width : sizeof(size_t) + sizeof(pq_bytes));
	size_t rows = per_row ? BATCH_BYTES / per_row : BATCH_MAX_ROWS;
	if (rows > BATCH_MAX_ROWS)
		rows = BATCH_MAX_ROWS;
	if (rows < 1)
		rows = 1;
	if (rows > c->row_group_rows)
		rows = (size_t)c->row_group_rows;
	c->batch_rows = rows;
	c->text_cols = calloc(c->ncols ? c->ncols : 1, sizeof *c->text_cols);
	if (!c->text_cols)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for column batches", c->name);
	for (size_t i = 0; i < c->ncols; i++)
		c->text_cols[c->cols[i].csv_index] = c->cols[i].width == 0;
	return alloc_sets(c, rows, true, err);
}

static void free_sets(conv *c)
{
	for (unsigned s = 0; s < PQ_CONV_POOL_DEPTH + 1; s++) {
		pq_conv_set *b = &c->sets[s];
		for (size_t i = 0; b->cb && i < c->ncols; i++) {
			free(b->cb[i].def);
			free(b->cb[i].vals);
			free(b->cb[i].offs);
			free(b->cb[i].views);
			pq_buf_free(&b->cb[i].text);
		}
		free(b->cb);
		b->cb = NULL;
		pq_conv_set_free(b);
	}
}

static void free_columns(conv *c)
{
	free_sets(c);
	for (size_t i = 0; c->cols && i < c->ncols; i++)
		pq_buf_free(&c->cols[i].big);
	free(c->cols);
	free(c->by_csv);
	free(c->text_cols);
	c->cols = NULL;
	c->by_csv = NULL;
	c->text_cols = NULL;
}

static pq_status value_error(conv *c, const column *col, uint64_t line, pq_status st,
			     const char *what, pq_error *err)
{
	char nm[128];
	pq_conv_msg_name(col->name, nm, sizeof nm);
	return pq_fail(err, st, "%s: line %llu, column %zu (%s): %s", c->name,
		       (unsigned long long)line, col->csv_index + 1, nm, what);
}

/* Parses column i of a set into its typed values (the thread's own
 * column: col->big is used by no other thread meanwhile). */
static pq_status parse_column(conv *c, pq_conv_set *b, size_t i, uint64_t *rank,
			      pq_error *err)
{
	column *col = &c->cols[i];
	pq_conv_colbuf *cb = &b->cb[i];
	size_t at = col->csv_index * b->cap;
	/* a STRING / JSON / binary value is its field's bytes: viewed in place */
	bool in_place = col->type.kind == PQ_CV_STRING || col->type.kind == PQ_CV_JSON ||
			col->type.kind == PQ_CV_BINARY;
	cb->nvals = 0;
	cb->text.len = 0;
	for (size_t row = 0; row < b->rows; row++) {
		uint32_t len = b->len[at + row];
		size_t n = len & ~PQ_CONV_NULL;
		const uint8_t *p = pq_buf_at(&b->raw, b->off[at + row]);
		if ((len & PQ_CONV_NULL) || (n == 0 && !col->empty_is_value)) {
			if (col->required) {
				*rank = (uint64_t)row * c->ncols + i;
				return value_error(c, col, b->line[row] + b->dline[at + row],
						   PQ_EINVAL, "empty value in a REQUIRED column", err);
			}
			cb->def[row] = 0;
			continue;
		}
		cb->def[row] = 1;
		pq_cv_value v;
		char why[160];
		if (!pq_cv_parse(&col->type, p, n, &v, &col->big, why, sizeof why)) {
			char q[PQ_ERROR_MSG_MAX / 2], msg[PQ_ERROR_MSG_MAX];
			pq_cv_quote(p, n, q, sizeof q);
			snprintf(msg, sizeof msg, "%s %s", q, why);
			*rank = (uint64_t)row * c->ncols + i;
			return value_error(c, col, b->line[row] + b->dline[at + row], PQ_EINVAL, msg,
					   err);
		}
		if (in_place) {
			cb->views[cb->nvals++] = (pq_bytes){v.p ? v.p : p, v.n};
			continue;
		}
		if (!col->width) {
			cb->offs[cb->nvals++] = cb->text.len;
			pq_buf_append(&cb->text, v.p, v.n);
			if (cb->text.oom)
				return pq_fail(err, PQ_ENOMEM, "%s: no memory for a batch", c->name);
			continue;
		}
		uint8_t *dst = cb->vals + cb->nvals * col->width;
		switch (col->type.physical) {
		case PQ_BOOLEAN: *dst = v.v.b; break;
		case PQ_INT32: memcpy(dst, &v.v.i32, 4); break;
		case PQ_FLOAT: memcpy(dst, &v.v.f32, 4); break;
		case PQ_INT64: memcpy(dst, &v.v.i64, 8); break;
		case PQ_DOUBLE: memcpy(dst, &v.v.f64, 8); break;
		default: memcpy(dst, v.p, col->width); break; /* FLBA: exactly width bytes */
		}
		cb->nvals++;
	}
	if (!col->width && !in_place) {
		cb->offs[cb->nvals] = cb->text.len;
		for (size_t j = 0; j < cb->nvals; j++)
			cb->views[j] = (pq_bytes){pq_buf_at(&cb->text, cb->offs[j]),
						  cb->offs[j + 1] - cb->offs[j]};
	}
	return PQ_OK;
}

/* The value pass's column job: parse column i of the set, then encode it
 * as writer k. */
static pq_status write_column(void *ctx, unsigned k, void *job, size_t i, uint64_t *rank,
			      pq_error *err)
{
	conv *c = ctx;
	pq_conv_set *b = job;
	if (b->rows == 0)
		return PQ_OK;
	PQ_TRY(parse_column(c, b, i, rank, err));
	const column *col = &c->cols[i];
	pq_conv_colbuf *cb = &b->cb[i];
	pq_values v = {.type = col->type.physical, .type_length = col->type.type_length,
		       .n = cb->nvals};
	if (col->width)
		v.v.any = cb->vals;
	else
		v.v.ba = cb->views;
	*rank = UINT64_MAX;
	pq_status st = pq_writer_write_on(c->w, k, i, b->rows, col->required ? NULL : cb->def, &v,
					  err);
	return st == PQ_OK ? PQ_OK : pq_context(err, "%s", c->name);
}

/* After every column of a set is written: the row group's end if due. */
static pq_status end_set(void *ctx, void *job, pq_error *err)
{
	conv *c = ctx;
	pq_conv_set *b = job;
	if (b->end_group) {
		pq_status st = pq_writer_end_row_group(c->w, err);
		if (st != PQ_OK)
			return pq_context(err, "%s", c->name);
	}
	return PQ_OK;
}

/* The inference pass's column job: column i's values into its state. */
static pq_status infer_column(void *ctx, unsigned k, void *job, size_t i, uint64_t *rank,
			      pq_error *err)
{
	(void)k;
	(void)rank;
	(void)err;
	conv *c = ctx;
	pq_conv_set *b = job;
	size_t at = i * b->cap;
	pq_infer *inf = &c->cols[i].inf;
	for (size_t row = 0; row < b->rows; row++) {
		uint32_t len = b->len[at + row];
		if (len && !(len & PQ_CONV_NULL))
			pq_infer_add(inf, pq_buf_at(&b->raw, b->off[at + row]), len);
	}
	return PQ_OK;
}

/* Hands the filled set to the pool (once fewer than PQ_CONV_POOL_DEPTH are
 * in flight; the failure of one before, if any, is returned) and goes on
 * with the next set. */
static pq_status flush(conv *c, bool end_group, pq_error *err)
{
	pq_conv_set *b = c->cur;
	if (b->rows == 0 && !end_group)
		return PQ_OK;
	b->end_group = end_group;
	PQ_TRY(pq_conv_pool_submit(&c->pool, b, end_group, err));
	/* the oldest set: the pool is done with it (PQ_CONV_POOL_DEPTH in flight at most) */
	c->cur_set = (c->cur_set + 1) % c->nsets;
	c->cur = &c->sets[c->cur_set];
	pq_conv_set_clear(c->cur); /* the pool is done with it */
	return PQ_OK;
}

/* A bad record (a tokenizer error, a missing or extra field): the rows
 * before it come first, as on one thread. */
static pq_status record_failed(conv *c, pq_status st, pq_error *err)
{
	pq_error e;
	pq_status st2 = flush(c, false, &e);
	if (st2 == PQ_OK)
		st2 = pq_conv_pool_wait(&c->pool, &e);
	if (st2 != PQ_OK) {
		*err = e;
		return st2;
	}
	return st;
}

static pq_status check_ragged(conv *c, pq_error *err)
{
	size_t n = c->r.nfields;
	if (n == c->ncols)
		return PQ_OK;
	const pq_csv_field *last = &c->r.fields[n - 1];
	if (n > c->ncols)
		return pq_fail(err, PQ_EINVAL,
			       "%s: line %llu, column %zu: extra field (%s has %zu columns)",
			       c->name, (unsigned long long)c->r.fields[c->ncols].line, c->ncols + 1,
			       c->width_of, c->ncols);
	const column *col = &c->cols[c->by_csv[n]];
	char nm[128];
	pq_conv_msg_name(col->name, nm, sizeof nm);
	return pq_fail(err, PQ_EINVAL,
		       "%s: line %llu, column %zu (%s): missing (the line has %zu field%s, %s "
		       "%zu)",
		       c->name, (unsigned long long)last->line, n + 1, nm, n, n == 1 ? "" : "s",
		       c->width_of, c->ncols);
}

/* ---- the two passes ----------------------------------------------------- */

static void on_range_bytes(void *ctx, uint64_t bytes)
{
	conv *c = ctx;
	c->prog.bytes_read = bytes;
	c->ip->progress(c->ip->progress_ctx, &c->prog);
}

/* On threads over byte ranges when the file allows (plain, seekable; see
 * convert_infer.c); else, or on any error in the records, on this thread
 * from where the header ended. */
static pq_status infer_pass(conv *c, pq_error *err)
{
	if (c->threads > 1 && c->in.codec == PQ_INPUT_PLAIN && c->in.seekable) {
		pq_conv_infer_in in = {
			.fd = c->in.fd, .name = c->name, .format = c->r.format, .delim = c->r.delim,
			.ncols = c->ncols, .data_start = c->r.bytes_read - (c->r.end - c->r.pos),
			.size = c->in.raw_size, .threads = c->threads,
			.split_bytes = c->ip->split_bytes,
			.progress = c->ip->progress ? on_range_bytes : NULL, .ctx = c,
			.ranges = &c->infer_ranges, .reparsed = &c->infer_reparsed};
		pq_infer *inf = calloc(c->ncols ? c->ncols : 1, sizeof *inf);
		if (!inf)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for inference", c->name);
		bool ok = false;
		pq_status st = pq_conv_infer_parallel(&in, inf, &ok, err);
		if (st == PQ_OK && ok)
			for (size_t i = 0; i < c->ncols; i++)
				c->cols[i].inf = inf[i];
		free(inf);
		PQ_TRY(st);
		if (ok)
			return PQ_OK;
	}
	if (c->threads < 2) { /* no copy of the records: straight into the states */
		for (;;) {
			bool done;
			PQ_TRY(pq_csv_next(&c->r, &done, err));
			if (done)
				return PQ_OK;
			PQ_TRY(check_ragged(c, err));
			for (size_t i = 0; i < c->ncols; i++) {
				const pq_csv_field *f = &c->r.fields[i];
				if (!f->null && f->n)
					pq_infer_add(&c->cols[i].inf, f->p, f->n);
			}
		}
	}
	/* This thread tokenizes, the pool's threads feed the columns to
	 * inference (a column's values in file order, as on one thread). */
	size_t rows = c->ncols ? INFER_SET_BYTES / (c->ncols * 12 + 8) : BATCH_MAX_ROWS;
	rows = rows < 1 ? 1 : rows > BATCH_MAX_ROWS ? BATCH_MAX_ROWS : rows;
	PQ_TRY(alloc_sets(c, rows, false, err));
	PQ_TRY(pq_conv_pool_start(&c->pool, c->threads, c->ncols, infer_column, NULL, c, err));
	pq_status st = PQ_OK;
	for (;;) {
		bool done;
		st = pq_csv_next(&c->r, &done, err);
		if (st == PQ_OK && !done)
			st = check_ragged(c, err);
		if (st != PQ_OK || done)
			break;
		PQ_TRY(pq_conv_set_add(c->cur, &c->r, c->name, err));
		if (c->cur->rows == c->cur->cap || c->cur->raw.len >= BATCH_TEXT_BYTES)
			PQ_TRY(flush(c, false, err));
	}
	if (st == PQ_OK)
		st = flush(c, false, err);
	if (st == PQ_OK)
		st = pq_conv_pool_wait(&c->pool, err);
	pq_conv_pool_stop(&c->pool);
	free_sets(c);
	return st;
}

static pq_status write_pass(conv *c, const pq_write_options *opts, pq_convert_stats *stats,
			    int out_fd, pq_error *err)
{
	const pq_conv_append *app = c->app;
	pq_status st = app ? pq_writer_open_at(&c->w, out_fd, app->offset, app->rgs, c->els, c->nels,
					       opts, err)
			   : pq_writer_open(&c->w, out_fd, c->els, c->nels, opts, NULL, 0, err);
	if (st != PQ_OK)
		return pq_context(err, "%s", c->name);
	PQ_TRY(alloc_batches(c, err));
	unsigned want = c->threads;
	if (want > c->ncols)
		want = c->ncols ? (unsigned)c->ncols : 1;
	if (want > 1) { /* one writer per thread; this thread parses */
		st = pq_writer_workers(c->w, want, &want, err);
		if (st != PQ_OK)
			return pq_context(err, "%s", c->name);
	}
	/* threads=1: no thread, every set parsed and written on this one */
	st = pq_conv_pool_start(&c->pool, c->threads > 1 ? want : 0, c->ncols, write_column, end_set,
				c, err);
	if (st != PQ_OK)
		return pq_context(err, "%s", c->name);
	for (;;) {
		bool done;
		st = pq_csv_next(&c->r, &done, err);
		if (st == PQ_OK && !done)
			st = check_ragged(c, err);
		if (st != PQ_OK)
			return record_failed(c, st, err);
		if (done)
			break;
		PQ_TRY(pq_conv_set_add(c->cur, &c->r, c->name, err));
		c->group_rows++;
		c->prog.rows++;
		if (c->group_rows == c->row_group_rows) {
			PQ_TRY(flush(c, true, err));
			c->group_rows = 0;
		} else if (c->cur->rows == c->batch_rows || c->cur->text_bytes >= BATCH_TEXT_BYTES ||
			   c->cur->raw.len >= BATCH_RAW_BYTES) {
			PQ_TRY(flush(c, false, err));
		}
	}
	PQ_TRY(flush(c, false, err));
	PQ_TRY(pq_conv_pool_wait(&c->pool, err));
	pq_conv_pool_stop(&c->pool);
	pq_write_stats ws = {0};
	st = app ? pq_writer_close_append(c->w, app->footer, app->footer_len, &ws, err)
		 : pq_writer_close(c->w, &ws, err);
	if (st != PQ_OK)
		return pq_context(err, "%s", c->name);
	if (stats) {
		stats->rows = ws.rows;
		stats->row_groups = ws.row_groups;
		stats->bytes_out = ws.bytes_out;
	}
	return PQ_OK;
}

/* Columns in sidecar order, matched to header names. */
static pq_status match_sidecar(conv *c, const pq_bytes *names, size_t n, pq_error *err)
{
	size_t nleaves = c->nels - 1;
	size_t *idx = pq_conv_sorted_names(names, n);
	if (!idx)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory", c->name);
	bool *used = calloc(n ? n : 1, 1);
	pq_status st = used ? PQ_OK : pq_fail(err, PQ_ENOMEM, "%s: no memory", c->name);
	for (size_t j = 0; j < nleaves && st == PQ_OK; j++) {
		pq_bytes want = c->els[j + 1].name;
		size_t lo = 0, hi = n;
		while (lo < hi) { /* first name >= want */
			size_t mid = (lo + hi) / 2;
			const pq_bytes *x = &names[idx[mid]];
			size_t m = x->n < want.n ? x->n : want.n;
			int cmp = m ? memcmp(x->p, want.p, m) : 0;
			if (cmp < 0 || (cmp == 0 && x->n < want.n))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || !pq_conv_same(names[idx[lo]], want)) {
			char nm[128];
			pq_conv_msg_name(want, nm, sizeof nm);
			st = pq_fail(err, PQ_EINVAL,
				     "%s: line 1: column '%s' of the schema is not in the header",
				     c->name, nm);
			break;
		}
		column *col = &c->cols[j];
		col->csv_index = idx[lo];
		col->name = names[idx[lo]];
		col->el = &c->els[j + 1];
		c->by_csv[idx[lo]] = j;
		used[idx[lo]] = true;
	}
	for (size_t i = 0; i < n && st == PQ_OK; i++)
		if (!used[i]) {
			char nm[128];
			pq_conv_msg_name(names[i], nm, sizeof nm);
			st = pq_fail(err, PQ_EINVAL,
				     "%s: line 1, column %zu (%s): not a field of the schema", c->name,
				     i + 1, nm);
		}
	free(idx);
	free(used);
	return st;
}

static pq_status build_inferred(conv *c, pq_error *err)
{
	c->nels = (uint32_t)c->ncols + 1;
	c->els = pq_arena_calloc(&c->arena, c->nels, sizeof *c->els);
	if (!c->els)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for the schema", c->name);
	c->els[0].name = (pq_bytes){(const uint8_t *)"schema", 6};
	c->els[0].has_num_children = true;
	c->els[0].num_children = (int32_t)c->ncols;
	for (size_t i = 0; i < c->ncols; i++) {
		pq_infer_element(&c->cols[i].inf, c->cols[i].name, &c->els[i + 1]);
		c->cols[i].el = &c->els[i + 1];
	}
	return PQ_OK;
}

/* After every block of the file: where the conversion stands. */
static void on_block(void *ctx)
{
	conv *c = ctx;
	c->prog.bytes_read = c->in.raw_off;
	c->ip->progress(c->ip->progress_ctx, &c->prog);
}

/* The states of pq_convert_input.ahead, when they describe exactly this
 * uncompressed file (its size, delimiter and columns). */
static bool take_ahead(conv *c)
{
	if (!c->ip->ahead || c->in.codec != PQ_INPUT_PLAIN || !c->in.seekable)
		return false;
	pq_infer *inf = calloc(c->ncols ? c->ncols : 1, sizeof *inf);
	if (!inf)
		return false;
	bool ok = pq_conv_ahead_take(c->ip->ahead, c->in.raw_size, c->r.delim, c->ncols, inf,
				     &c->infer_ranges);
	if (ok)
		for (size_t i = 0; i < c->ncols; i++)
			c->cols[i].inf = inf[i];
	free(inf);
	return ok;
}

static pq_status convert(conv *c, int in_fd, int out_fd, const char *schema_text,
			 const pq_write_options *opts, pq_convert_stats *stats, pq_error *err)
{
	const pq_convert_input *ip = c->ip;
	PQ_TRY(pq_csv_input_open(&c->in, in_fd, c->name, ip->codec, ip->max_inflated, err));
	c->prog.bytes_total = c->in.raw_size;
	c->prog.pass = 1;
	c->prog.passes = schema_text || c->app ? 1 : 2;
	if (ip->progress) {
		c->in.on_block = on_block;
		c->in.ctx = c;
	}
	uint8_t delim = ip->delimiter;
	if (ip->format == PQ_CSV_COMMA && !delim)
		PQ_TRY(pq_csv_detect_delimiter(&c->in, &delim, err));
	/* with threads: a compressed input is inflated on a thread of its own */
	c->in.read_ahead = c->threads > 1;
	/* inferring types reads a compressed file twice: the second time from
	 * the bytes the first pass kept (when they fit), not decompressed again */
	if (!schema_text && !c->app)
		pq_csv_input_spool(&c->in, NULL);
	PQ_TRY(pq_csv_reader_init_input(&c->r, &c->in, ip->format, delim, err));
	pq_bytes *names = NULL;
	size_t n = 0;
	if (c->app)
		n = c->app->nels - 1; /* no header: the file's columns, in order */
	else
		PQ_TRY(read_header(c, &names, &n, err));
	c->ncols = n;
	c->cols = calloc(n, sizeof *c->cols);
	c->by_csv = calloc(n, sizeof *c->by_csv);
	if (!c->cols || !c->by_csv)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for %zu columns", c->name, n);
	if (c->app) {
		c->els = (pq_schema_element *)c->app->els;
		c->nels = c->app->nels;
		for (size_t i = 0; i < n; i++) {
			c->cols[i].name = c->els[i + 1].name;
			c->cols[i].csv_index = i;
			c->cols[i].el = &c->els[i + 1];
			c->by_csv[i] = i;
		}
	} else if (schema_text) {
		char sname[PQ_ERROR_MSG_MAX / 2];
		snprintf(sname, sizeof sname, "%s (schema)", c->name);
		PQ_TRY(pq_conv_load_schema(schema_text, sname, &c->arena, &c->els, &c->nels, err));
		PQ_TRY(match_sidecar(c, names, n, err));
	} else {
		for (size_t i = 0; i < n; i++) {
			c->cols[i].name = names[i];
			c->cols[i].csv_index = i;
			c->by_csv[i] = i;
		}
		if (take_ahead(c)) {
			/* the types were inferred while the file was written */
			c->prog.passes = 1;
			if (stats)
				stats->inferred_ahead = true;
			PQ_TRY(build_inferred(c, err));
		} else {
			PQ_TRY(infer_pass(c, err));
			PQ_TRY(build_inferred(c, err));
			/* Read again from the start for the values. */
			pq_csv_reader_free(&c->r);
			PQ_TRY(pq_csv_input_rewind(&c->in, err));
			c->prog.pass = 2;
			PQ_TRY(pq_csv_reader_init_input(&c->r, &c->in, ip->format, delim, err));
			bool done;
			PQ_TRY(pq_csv_next(&c->r, &done, err));
		}
	}
	for (size_t i = 0; i < n; i++)
		PQ_TRY(setup_column(c, &c->cols[i], err));
	PQ_TRY(write_pass(c, opts, stats, out_fd, err));
	if (stats) {
		stats->bytes_in = c->in.raw_off;
		stats->infer_ranges = c->infer_ranges;
		stats->infer_reparsed = c->infer_reparsed;
	}
	if (ip->progress) {
		c->prog.bytes_read = c->in.raw_off;
		c->prog.finished = true;
		ip->progress(ip->progress_ctx, &c->prog);
	}
	return PQ_OK;
}

pq_status pq_conv_run(int in_fd, int out_fd, const char *display_name,
		      const pq_convert_input *in, const char *schema_text, const pq_conv_append *app,
		      const pq_write_options *opts, pq_convert_stats *stats, pq_error *err)
{
	conv c = {.name = display_name ? display_name : "input", .ip = in, .app = app,
		  .width_of = app && app->target ? app->target : "the header"};
	c.in.fd = -1;
	pq_write_options defaults;
	pq_write_options_init(&defaults);
	if (!opts)
		opts = &defaults;
	c.row_group_rows = opts->row_group_rows ? opts->row_group_rows : defaults.row_group_rows;
	c.threads = in->threads;
	if (!c.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c.threads = n < 1 ? 1 : n > (long)MAX_WRITERS ? MAX_WRITERS : (unsigned)n;
	}
	if (c.threads > MAX_WRITERS)
		c.threads = MAX_WRITERS;
	pq_arena_init(&c.arena, 0);
	if (stats)
		memset(stats, 0, sizeof *stats);
	/* charges counted, never refused: failing half done for room readers
	 * took would lose the copy (the pool's threads likewise) */
	c.budget = opts->budget;
	bool exempt = pq_budget_thread_exempt(true);
	pq_status st = convert(&c, in_fd, out_fd, schema_text, opts, stats, err);
	pq_conv_pool_stop(&c.pool); /* after a failure: lets a pending set finish */
	if (c.w)
		pq_writer_free(c.w);
	free_columns(&c);
	pq_budget_thread_exempt(exempt);
	pq_csv_reader_free(&c.r);
	pq_csv_input_free(&c.in);
	pq_arena_free(&c.arena);
	return st;
}

pq_status pq_convert_csv_ex(int in_fd, int out_fd, const char *display_name,
			    const pq_convert_input *in, const char *schema_text,
			    const pq_write_options *opts, pq_convert_stats *stats, pq_error *err)
{
	return pq_conv_run(in_fd, out_fd, display_name, in, schema_text, NULL, opts, stats, err);
}

pq_status pq_convert_csv(int in_fd, int out_fd, const char *display_name,
			 pq_csv_format format, const char *schema_text,
			 const pq_write_options *opts, pq_convert_stats *stats, pq_error *err)
{
	/* as before the input options: plain, and CSV split at commas */
	pq_convert_input in = {.format = format, .delimiter = ',', .codec = PQ_INPUT_PLAIN};
	return pq_convert_csv_ex(in_fd, out_fd, display_name, &in, schema_text, opts, stats, err);
}
