/* data.csv / data.jsonl of a row group, rendered in pieces: one cursor per
 * leaf column streams its pages, and the assembler turns levels into rows. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdlib.h>

#include "pq_assemble.h"

typedef struct leaf_stream {
	const pq_file *f;
	pq_chunk_layout *layout;
	pq_page_data *dict, *page; /* page: the current window of the current page */
	pq_page_reader *reader;    /* the current page, NULL between pages */
	uint32_t next_page;
} leaf_stream;

struct pq_row_reader {
	const pq_file *f;
	uint32_t rg, ncols;
	pq_row_format fmt;
	leaf_stream *streams;
	pq_leaf_cursor *cursors;
	pq_flat_rows *flat; /* the fast path for flat schemas, else NULL */
	pq_variant_report *vrep; /* pq_rows_check_variants' findings, or NULL */
	bool done;
	uint64_t charged; /* its own arrays on f->budget (its pages charge themselves) */
};

/* Batches are windows of pages (pq_page_reader): a page that claims
 * billions of slots streams in bounded memory. */
static pq_status stream_next(void *ctx, pq_leaf_cursor *c, pq_error *err)
{
	leaf_stream *s = ctx;
	c->nslots = c->pos = c->vpos = 0;
	c->rep = c->def = NULL;
	/* Pages without slots are legal (empty v2 pages): a loop, not recursion,
	 * so a file of thousands of them cannot exhaust the stack. */
	for (;;) {
		if (s->page) {
			pq_page_data_unref(s->page);
			s->page = NULL;
		}
		if (!s->reader) {
			if (s->next_page >= s->layout->num_pages)
				return PQ_OK;
			if (!s->dict && s->layout->dict)
				PQ_TRY(pq_page_decode(s->f, s->layout, s->layout->dict, NULL, &s->dict,
						      err));
			const pq_page_info *pi = &s->layout->pages[s->next_page++];
			PQ_TRY(pq_page_reader_open(s->f, s->layout, pi, s->dict, s->f->crc_check,
						   &s->reader, err));
		}
		PQ_TRY(pq_page_reader_next(s->reader, 0, &s->page, err));
		if (!s->page) {
			pq_page_reader_free(s->reader);
			s->reader = NULL;
			continue;
		}
		if (s->page->nslots == 0)
			continue;
		c->nslots = s->page->nslots;
		c->rep = s->page->rep;
		c->def = s->page->def;
		c->vals = s->page->values;
		return PQ_OK;
	}
}

pq_status pq_row_reader_open(const pq_file *f, uint32_t rg, pq_row_format fmt,
			     pq_row_reader **out, pq_error *err)
{
	*out = NULL;
	PQ_CHECK(rg < f->md.row_groups.n, err, PQ_EINVAL, "no row group %u", rg);
	pq_row_reader *r = calloc(1, sizeof *r);
	PQ_CHECK(r, err, PQ_ENOMEM, "no memory for a row reader");
	r->f = f;
	r->rg = rg;
	r->fmt = fmt;
	r->ncols = f->num_columns;
	/* its pages come in a request or two; at every second row group the
	 * next one with it (a stream renders one row group ahead) */
	pq_file_advise_row_groups(f, rg, rg % 2 ? 1 : 2);
	r->streams = calloc(r->ncols ? r->ncols : 1, sizeof *r->streams);
	r->cursors = calloc(r->ncols ? r->ncols : 1, sizeof *r->cursors);
	pq_status st = r->streams && r->cursors ? PQ_OK
						: pq_fail(err, PQ_ENOMEM, "no memory for a row reader");
	for (uint32_t c = 0; st == PQ_OK && c < r->ncols; c++) {
		leaf_stream *s = &r->streams[c];
		s->f = f;
		st = pq_chunk_layout_load(f, rg, c, &s->layout, err);
		r->cursors[c].next = stream_next;
		r->cursors[c].ctx = s;
	}
	if (st == PQ_OK && pq_schema_is_flat(pq_file_schema(f)))
		st = pq_flat_rows_new(pq_file_schema(f), fmt, &r->flat, err);
	if (st == PQ_OK) {
		/* The cursors it keeps while it lives. Its chunk layouts (page
		 * headers) are metadata: like the daemon's meta pool they are not
		 * decoded data, and a file of thousands of tiny pages would make a
		 * small budget refuse every reader of its rows. */
		uint64_t n = sizeof *r + (uint64_t)r->ncols * (sizeof *r->streams + sizeof *r->cursors);
		if (pq_budget_try_charge(f->budget, n))
			r->charged = n;
		else
			st = pq_budget_fail(f->budget, n, err);
	}
	if (st != PQ_OK) {
		pq_row_reader_free(r);
		return st;
	}
	*out = r;
	return PQ_OK;
}

pq_status pq_row_reader_next(pq_row_reader *r, size_t chunk_hint, pq_buf *out, bool *done,
			     pq_error *err)
{
	size_t start = out->len;
	/* Rows are counted by the data: the footer's count may be wrong
	 * (the contract: rows are the rows the row groups hold). */
	while (!r->done && out->len - start < chunk_hint) {
		uint64_t got = 0;
		if (r->flat) {
			PQ_TRY(pq_flat_rows_next(r->flat, r->cursors, 1024, out, &got, err));
			if (got < 1024)
				r->done = true;
			continue;
		}
		PQ_TRY(pq_assemble_rows_report(pq_file_schema(r->f), r->cursors, 1024, r->fmt, out,
					       &got, r->vrep, err));
		if (got < 1024)
			r->done = true;
		PQ_CHECK(!out->oom, err, PQ_ENOMEM, "no memory for rendered rows");
	}
	*done = r->done;
	return PQ_OK;
}

void pq_row_reader_free(pq_row_reader *r)
{
	if (!r)
		return;
	for (uint32_t c = 0; r->streams && c < r->ncols; c++) {
		leaf_stream *s = &r->streams[c];
		pq_page_data_unref(s->page);
		pq_page_reader_free(s->reader);
		pq_page_data_unref(s->dict);
		pq_chunk_layout_free(s->layout);
	}
	pq_flat_rows_free(r->flat);
	pq_budget_release(r->f->budget, r->charged);
	free(r->streams);
	free(r->cursors);
	free(r);
}

pq_status pq_rows_check_variants(const pq_file *f, uint32_t rg, pq_variant_report *rep,
				 pq_error *err)
{
	pq_row_reader *r;
	PQ_TRY(pq_row_reader_open(f, rg, PQ_ROWS_JSONL, &r, err));
	r->vrep = rep;
	pq_buf scratch = PQ_BUF_INIT; /* rows are rendered and dropped */
	bool done = false;
	pq_status st = PQ_OK;
	while (st == PQ_OK && !done) {
		scratch.len = 0;
		st = pq_row_reader_next(r, 1u << 20, &scratch, &done, err);
	}
	pq_buf_free(&scratch);
	pq_row_reader_free(r);
	return st;
}

void pq_text_csv_header(const pq_file *f, pq_buf *out)
{
	pq_rows_header(pq_file_schema(f), out);
}
