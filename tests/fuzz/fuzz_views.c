/* Every view of a file, as fs/ renders them (fs/kinds.c, fs/content.c,
 * fs/stream.c, fs/size_pass.c), without FUSE: the one place the fuzz
 * targets, the allocation-failure test and test_robustness share. */
#define _GNU_SOURCE
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz_views.h"
#include "pq_buf.h"
#include "pq_io.h"
#include "pq_sizes.h"


uint64_t fuzz_key(unsigned kind, uint32_t rg, uint32_t col, uint32_t page)
{
	return (uint64_t)kind << 56 ^ (uint64_t)(rg & 0xffffff) << 32 ^
	       (uint64_t)(col & 0xffff) << 16 ^ (page & 0xffff);
}

/* FNV-1a: a digest to compare one run's output with another's. */
static uint64_t digest(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Records without allocating (the allocation-failure test counts every
 * allocation): the caller gives the log its storage. */
static void note(fuzz_log *log, uint64_t key, pq_status st, const pq_buf *out)
{
	if (!log)
		return;
	if (log->n == log->cap) {
		log->overflow = true;
		return;
	}
	fuzz_outcome *o = &log->v[log->n++];
	o->key = key;
	o->status = st;
	o->oom = out ? out->oom : false;
	o->len = out ? out->len : 0;
	o->digest = out && out->p ? digest(out->p, out->len) : 0;
}

/* verify.txt reports what failed in its text, memory too: such a report
 * is an error outcome (PQ_ENOMEM), not a different rendering. */
static pq_status in_band(const pq_buf *out)
{
	return out->p && (memmem(out->p, out->len, "no memory", 9) ||
			  memmem(out->p, out->len, "out of memory", 13))
		       ? PQ_ENOMEM
		       : PQ_OK;
}

static void rows(pq_file *f, uint32_t rg, pq_row_format fmt, fuzz_log *log)
{
	pq_error err;
	pq_error_clear(&err);
	pq_buf out = PQ_BUF_INIT;
	pq_row_reader *r;
	pq_status st = pq_row_reader_open(f, rg, fmt, &r, &err);
	if (st == PQ_OK) {
		bool done = false;
		while (st == PQ_OK && !done && out.len < FUZZ_MAX_ROWS_BYTES)
			st = pq_row_reader_next(r, 64 * 1024, &out, &done, &err);
		pq_row_reader_free(r);
	}
	note(log, fuzz_key(fmt == PQ_ROWS_CSV ? V_ROWS_CSV : V_ROWS_JSONL, rg, 0, 0), st, &out);
	pq_buf_free(&out);
}

/* One page: header, body, CRC, decoded values and levels. */
static void page(pq_file *f, const pq_chunk_layout *l, const pq_page_info *pi, uint32_t p,
		 pq_page_data *dict, fuzz_log *log)
{
	uint32_t rg = l->rg, col = l->col;
	pq_error err;
	pq_error_clear(&err);
	pq_buf out = PQ_BUF_INIT;
	pq_status st = pq_text_page_header(f, l, pi, &out, &err);
	note(log, fuzz_key(V_PAGE_HEADER, rg, col, p), st, &out);
	out.len = 0;
	st = pq_json_page_header(f, l, pi, &out, &err);
	note(log, fuzz_key(V_PAGE_HEADER_JSON, rg, col, p), st, &out);
	uint8_t *body = NULL;
	size_t blen = 0;
	st = pq_page_body(f, l, pi, &body, &blen, &err);
	pq_buf b = {.p = body, .len = blen, .cap = blen};
	note(log, fuzz_key(V_PAGE_BODY, rg, col, p), st, st == PQ_OK ? &b : NULL);
	free(body);
	pq_crc_state crc;
	uint32_t computed;
	st = pq_page_crc(f, pi, &crc, &computed, &err);
	if (st == PQ_OK && crc == PQ_CRC_MISMATCH)
		st = PQ_ECHECKSUM;
	note(log, fuzz_key(V_PAGE_CRC, rg, col, p), st, NULL);
	pq_page_data *pd;
	st = pq_page_decode(f, l, pi, dict, &pd, &err);
	note(log, fuzz_key(V_PAGE_DECODE, rg, col, p), st, NULL);
	if (st == PQ_OK) {
		out.len = 0;
		pq_text_page_values(f, col, pd, &out);
		note(log, fuzz_key(V_VALUES, rg, col, p), PQ_OK, &out);
		if (pq_column_has_levels(f, col)) {
			out.len = 0;
			pq_text_page_levels(pd, &out);
			note(log, fuzz_key(V_LEVELS, rg, col, p), PQ_OK, &out);
		}
		pq_page_data_unref(pd);
	}
	uint64_t size;
	(void)pq_page_levels_size(f, col, pi, &size);
	pq_buf_free(&out);
}

static void chunk(pq_file *f, uint32_t rg, uint32_t col, fuzz_log *log)
{
	pq_error err;
	pq_error_clear(&err);
	pq_buf out = PQ_BUF_INIT;
	pq_text_chunk_metadata(f, rg, col, &out);
	note(log, fuzz_key(V_CHUNK_META, rg, col, 0), PQ_OK, &out);
	out.len = 0;
	pq_json_chunk_metadata(f, rg, col, &out);
	note(log, fuzz_key(V_CHUNK_META_JSON, rg, col, 0), PQ_OK, &out);
	out.len = 0;
	pq_status st = pq_text_column_index(f, rg, col, &out, &err);
	note(log, fuzz_key(V_COLUMN_INDEX, rg, col, 0), st, &out);
	out.len = 0;
	st = pq_text_offset_index(f, rg, col, &out, &err);
	note(log, fuzz_key(V_OFFSET_INDEX, rg, col, 0), st, &out);
	out.len = 0;
	st = pq_text_bloom_filter(f, rg, col, &out, &err);
	note(log, fuzz_key(V_BLOOM, rg, col, 0), st, &out);
	out.len = 0;
	st = pq_bloom_filter_bitset(f, rg, col, &out, &err);
	note(log, fuzz_key(V_BLOOM_BITSET, rg, col, 0), st, &out);
	(void)pq_chunk_has_column_index(f, rg, col);
	(void)pq_chunk_has_offset_index(f, rg, col);
	(void)pq_chunk_has_bloom_filter(f, rg, col);
	pq_buf_free(&out);

	pq_chunk_layout *l;
	st = pq_chunk_layout_load(f, rg, col, &l, &err);
	note(log, fuzz_key(V_LAYOUT, rg, col, 0), st, NULL);
	if (st != PQ_OK)
		return;
	pq_page_data *dict = NULL;
	if (l->dict) {
		st = pq_page_decode(f, l, l->dict, NULL, &dict, &err);
		note(log, fuzz_key(V_DICT, rg, col, 0), st, NULL);
		if (st != PQ_OK)
			dict = NULL;
		else
			page(f, l, l->dict, 0xffff, NULL, log);
	}
	for (uint32_t p = 0; p < l->num_pages && p < FUZZ_MAX_PAGES; p++)
		page(f, l, &l->pages[p], p, dict, log);
	pq_page_data_unref(dict);
	pq_chunk_layout_free(l);
}

void fuzz_views(pq_file *f, fuzz_log *log)
{
	pq_error err;
	pq_error_clear(&err);
	pq_file_set_page_budget(f, FUZZ_PAGE_BUDGET);
	pq_buf out = PQ_BUF_INIT;
	pq_text_schema(f, &out);
	note(log, fuzz_key(V_SCHEMA, 0, 0, 0), PQ_OK, &out);
	out.len = 0;
	pq_text_file_metadata(f, &out);
	note(log, fuzz_key(V_META, 0, 0, 0), PQ_OK, &out);
	out.len = 0;
	pq_json_file_metadata(f, &out);
	note(log, fuzz_key(V_META_JSON, 0, 0, 0), PQ_OK, &out);
	out.len = 0;
	{
		pq_error verr;
		pq_error_clear(&verr);
		pq_status vst = pq_text_verify(f, &out, &verr);
		note(log, fuzz_key(V_VERIFY, 0, 0, 0), vst != PQ_OK ? vst : in_band(&out), &out);
	}
	out.len = 0;
	pq_text_csv_header(f, &out);
	note(log, fuzz_key(V_CSV_HEADER, 0, 0, 0), PQ_OK, &out);

	uint32_t nrg = pq_file_num_row_groups(f), ncol = pq_file_num_columns(f);
	for (uint32_t rg = 0; rg < nrg; rg++) {
		out.len = 0;
		pq_text_row_group_metadata(f, rg, &out);
		note(log, fuzz_key(V_RG_META, rg, 0, 0), PQ_OK, &out);
		out.len = 0;
		pq_json_row_group_metadata(f, rg, &out);
		note(log, fuzz_key(V_RG_META_JSON, rg, 0, 0), PQ_OK, &out);
		rows(f, rg, PQ_ROWS_CSV, log);
		rows(f, rg, PQ_ROWS_JSONL, log);
		for (uint32_t c = 0; c < ncol; c++)
			chunk(f, rg, c, log);
	}
	for (uint32_t c = 0; c < ncol; c++) {
		out.len = 0;
		pq_status st = pq_text_column_summary(f, c, &out, &err);
		note(log, fuzz_key(V_SUMMARY, 0, c, 0), st, &out);
	}
	pq_buf_free(&out);

	/* The size pass fs/size_pass.c runs on every file (one thread: the
	 * fuzzer and the allocation counter want one order of events). */
	pq_sizes_options o = {0};
	o.threads = 1;
	o.mem_max = FUZZ_PAGE_BUDGET;
	o.keep_verify_text = true;
	pq_file_sizes *s;
	pq_status st = pq_file_measure(f, &o, &s, &err);
	if (st == PQ_OK) {
		/* A chunk that could not be measured is that chunk's error, not
		 * the pass's: record it as one. */
		for (size_t i = 0; i < (size_t)s->num_row_groups * s->num_columns; i++)
			if (s->chunks[i].status != PQ_OK && st == PQ_OK)
				st = s->chunks[i].status;
		uint64_t v[3] = {s->csv, s->jsonl, s->verify};
		for (unsigned i = 0; i < 3; i++) {
			pq_buf sz = {.p = (uint8_t *)&v[i], .len = sizeof v[i], .cap = sizeof v[i]};
			pq_buf vt = {.p = s->verify_text, .len = s->verify, .cap = s->verify};
			pq_status vst = i == 2 && s->verify_text ? in_band(&vt) : PQ_OK;
			if (v[i] == PQ_SIZE_FAILED) /* the size pass's own "failed" */
				vst = PQ_EIO;
			note(log, fuzz_key(V_SIZES, 0, 0, i), st != PQ_OK ? st : vst, &sz);
		}
		pq_file_sizes_free(s);
	} else {
		note(log, fuzz_key(V_SIZES, 0, 0, 0), st, NULL);
	}
}

pq_status fuzz_file_bytes(const uint8_t *p, size_t n, const pq_keyring *keys, fuzz_log *log)
{
	pq_error err;
	pq_error_clear(&err);
	pq_source *src;
	pq_status st = pq_source_mem_new(p, n, false, &src, &err);
	if (st != PQ_OK) {
		note(log, fuzz_key(V_OPEN, 0, 0, 0), st, NULL);
		return st;
	}
	pq_file *f = NULL;
	st = pq_file_open(src, "fuzz.parquet", keys, &f, &err);
	pq_source_unref(src);
	note(log, fuzz_key(V_OPEN, 0, 0, 0), st, NULL);
	if (st != PQ_OK)
		return st;
	fuzz_views(f, log);
	pq_file_free(f);
	return PQ_OK;
}
