/* The size pass (pq_sizes.h). This first version measures by rendering
 * into a scratch buffer that is reset as it goes: the sizes are those of
 * the renderers by construction. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdlib.h>
#include <string.h>

#include "pq_sizes.h"

#define SCRATCH_HINT ((size_t)1 << 20)

void pq_file_sizes_free(pq_file_sizes *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->chunks && i < (size_t)s->num_row_groups * s->num_columns; i++)
		free(s->chunks[i].pages);
	free(s->chunks);
	free(s->rg_csv);
	free(s->rg_jsonl);
	free(s->col_values);
	free(s->verify_text);
	free(s);
}

static bool cancelled(const pq_sizes_options *o)
{
	return o && o->cancel && atomic_load(o->cancel);
}

/* values.txt and levels.txt of every data page of one chunk. */
static void measure_chunk(const pq_file *f, uint32_t rg, uint32_t col, pq_chunk_sizes *cs,
			  pq_buf *scratch, uint64_t *pages_done)
{
	pq_error err;
	pq_error_clear(&err);
	pq_chunk_layout *l = NULL;
	cs->values = cs->levels = PQ_SIZE_FAILED;
	cs->status = pq_chunk_layout_load(f, rg, col, &l, &err);
	if (cs->status != PQ_OK)
		return;
	cs->pages = calloc(l->num_pages ? l->num_pages : 1, sizeof *cs->pages);
	if (!cs->pages) {
		cs->status = PQ_ENOMEM;
		pq_chunk_layout_free(l);
		return;
	}
	cs->num_pages = l->num_pages;
	bool levels = pq_column_has_levels(f, col);
	pq_page_data *dict = NULL;
	pq_status dst = PQ_OK;
	if (l->dict)
		dst = pq_page_decode(f, l, l->dict, NULL, &dict, &err);
	uint64_t values = 0, lev = 0;
	for (uint32_t p = 0; p < l->num_pages; p++) {
		pq_page_sizes *ps = &cs->pages[p];
		pq_page_data *pd = NULL;
		pq_status st = pq_page_decode(f, l, &l->pages[p], dict, &pd, &err);
		if (st != PQ_OK) {
			ps->values = ps->levels = PQ_SIZE_FAILED;
			if (cs->status == PQ_OK)
				cs->status = dst != PQ_OK ? dst : st;
			continue;
		}
		scratch->len = 0;
		pq_text_page_values(f, col, pd, scratch);
		ps->values = scratch->len;
		if (levels) {
			scratch->len = 0;
			pq_text_page_levels(pd, scratch);
			ps->levels = scratch->len;
		}
		if (scratch->oom && cs->status == PQ_OK)
			cs->status = PQ_ENOMEM;
		values += ps->values;
		lev += ps->levels;
		pq_page_data_unref(pd);
		(*pages_done)++;
	}
	pq_page_data_unref(dict);
	pq_chunk_layout_free(l);
	if (cs->status == PQ_OK) {
		cs->values = values;
		cs->levels = lev;
	}
}

/* The rows of a row group in fmt, rendered piece by piece and counted. */
static uint64_t measure_rows(const pq_file *f, uint32_t rg, pq_row_format fmt, pq_buf *scratch)
{
	pq_error err;
	pq_row_reader *rr;
	if (pq_row_reader_open(f, rg, fmt, &rr, &err) != PQ_OK)
		return PQ_SIZE_FAILED;
	uint64_t total = 0;
	bool done = false;
	while (!done) {
		scratch->len = 0;
		if (pq_row_reader_next(rr, SCRATCH_HINT, scratch, &done, &err) != PQ_OK ||
		    scratch->oom) {
			total = PQ_SIZE_FAILED;
			break;
		}
		total += scratch->len;
	}
	pq_row_reader_free(rr);
	return total;
}

static uint64_t add(uint64_t a, uint64_t b)
{
	return a == PQ_SIZE_FAILED || b == PQ_SIZE_FAILED ? PQ_SIZE_FAILED : a + b;
}

pq_status pq_file_measure(const pq_file *f, const pq_sizes_options *opt, pq_file_sizes **out,
			  pq_error *err)
{
	*out = NULL;
	pq_file_sizes *s = calloc(1, sizeof *s);
	PQ_CHECK(s, err, PQ_ENOMEM, "no memory for the size pass");
	uint32_t nrg = pq_file_num_row_groups(f), ncol = pq_file_num_columns(f);
	s->num_row_groups = nrg;
	s->num_columns = ncol;
	s->rg_csv = calloc(nrg ? nrg : 1, sizeof *s->rg_csv);
	s->rg_jsonl = calloc(nrg ? nrg : 1, sizeof *s->rg_jsonl);
	s->col_values = calloc(ncol ? ncol : 1, sizeof *s->col_values);
	s->chunks = calloc(nrg && ncol ? (size_t)nrg * ncol : 1, sizeof *s->chunks);
	pq_buf scratch = PQ_BUF_INIT;
	if (!s->rg_csv || !s->rg_jsonl || !s->col_values || !s->chunks) {
		pq_file_sizes_free(s);
		return pq_fail(err, PQ_ENOMEM, "no memory for the size pass");
	}
	pq_text_csv_header(f, &scratch);
	s->csv_header = scratch.len;
	s->csv = s->csv_header;
	s->jsonl = 0;
	for (uint32_t r = 0; r < nrg; r++) {
		for (uint32_t c = 0; c < ncol; c++) {
			if (cancelled(opt))
				goto stop;
			pq_chunk_sizes *cs = &s->chunks[(size_t)r * ncol + c];
			measure_chunk(f, r, c, cs, &scratch, &s->pages_measured);
			s->col_values[c] = add(s->col_values[c], cs->values);
		}
		s->rg_csv[r] = measure_rows(f, r, PQ_ROWS_CSV, &scratch);
		s->rg_jsonl[r] = measure_rows(f, r, PQ_ROWS_JSONL, &scratch);
		s->csv = add(s->csv, s->rg_csv[r]);
		s->jsonl = add(s->jsonl, s->rg_jsonl[r]);
	}
	scratch.len = 0;
	pq_text_verify(f, &scratch);
	if (scratch.oom)
		goto oom;
	s->verify = scratch.len;
	if (opt && opt->keep_verify_text) {
		s->verify_text = pq_buf_take(&scratch, NULL);
	}
	pq_buf_free(&scratch);
	s->footprint = sizeof *s + (uint64_t)nrg * (2 * sizeof(uint64_t)) + ncol * sizeof(uint64_t) +
		       (uint64_t)nrg * ncol * sizeof(pq_chunk_sizes) + s->verify;
	for (size_t i = 0; i < (size_t)nrg * ncol; i++)
		s->footprint += s->chunks[i].num_pages * sizeof(pq_page_sizes);
	*out = s;
	return PQ_OK;
stop:
	pq_buf_free(&scratch);
	pq_file_sizes_free(s);
	return pq_fail(err, PQ_EIO, "size pass cancelled");
oom:
	pq_buf_free(&scratch);
	pq_file_sizes_free(s);
	return pq_fail(err, PQ_ENOMEM, "no memory for the size pass");
}
