/* One column chunk of the size pass: verify.txt's page walk decodes each
 * page once, and hands it here to be measured (pq_render_measure: the
 * values in VALUES, CSV and JSON mode at once) before it is dropped.
 * Nothing rendered is kept.
 *
 * From one page come: its values.txt (each value and `\n`; `\N\n` for a
 * slot without a value, as pq_render_values_txt), its levels.txt ("r d\n"
 * per slot), and its fields in the rows of a flat schema (rows_flat.c:
 * a NULL is the empty CSV field and JSON `null`, as is a value whose JSON
 * text is empty). */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_render.h"
#include "sizes_internal.h"

/* What the pieces of the page being walked add up to. */
typedef struct page_acc {
	uint64_t values, levels; /* its values.txt and levels.txt */
	uint64_t rows, csv, json; /* its part of the rows of a flat schema */
	bool rows_bad;            /* levels define other than the values */
	bool oom;
} page_acc;

_Static_assert(sizeof(page_acc) <= PQ_PAGE_MEMO_USER, "a page's sizes fit the page memo");

typedef struct page_ctx {
	const pq_file *f;
	const pq_leaf *leaf;
	pq_chunk_sizes *cs;
	pq_chunk_work *w;
	bool levels;      /* the column has levels.txt */
	bool dict_failed; /* the walk stopped at the dictionary */
	uint64_t values, lev; /* sums of the pages measured */
	bool page_failed;
	page_acc acc;     /* the current page */
} page_ctx;

static void fail(pq_chunk_sizes *cs, pq_status st, const char *msg)
{
	if (cs->status != PQ_OK)
		return;
	cs->status = st;
	free(cs->msg);
	cs->msg = strdup(msg);
}

static uint64_t digits(unsigned x)
{
	return 1 + (x >= 10) + (x >= 100) + (x >= 1000) + (x >= 10000);
}

/* "r d\n" per slot: 4 bytes while both levels have one digit. */
static uint64_t levels_len(const pq_leaf *leaf, const pq_page_data *pd)
{
	if (leaf->max_rep <= 9 && leaf->max_def <= 9)
		return 4 * (uint64_t)pd->nslots;
	uint64_t n = 2 * (uint64_t)pd->nslots;
	for (size_t i = 0; i < pd->nslots; i++)
		n += digits(pd->rep ? pd->rep[i] : 0) + digits(pd->def ? pd->def[i] : 0);
	return n;
}

/* A window of the page (or the whole page), measured value by value. */
static void measure_window(page_ctx *c, const pq_page_data *pd)
{
	const pq_leaf *leaf = c->leaf;
	const pq_values *vals = &pd->values;
	const uint16_t *def = pd->def;
	size_t nslots = pd->nslots ? pd->nslots : vals->n; /* values.txt's lines */
	pq_render_sizes rs = {0};
	size_t v = 0, nulls = 0, defined = 0;
	if (def) { /* a page without nulls (most): one run */
		size_t present = 0;
		for (size_t i = 0; i < nslots; i++)
			present += def[i] >= leaf->max_def;
		if (present == nslots && nslots <= vals->n)
			def = NULL;
	}
	if (!def) {
		v = nslots < vals->n ? nslots : vals->n;
		pq_render_measure(&leaf->render, vals, 0, v, &rs);
		nulls = nslots - v;
		defined = nslots;
	} else {
		/* runs of slots with values, as pq_render_values_txt takes them */
		size_t i = 0;
		while (i < nslots) {
			size_t run = i;
			while (run < nslots && def[run] >= leaf->max_def && v + (run - i) < vals->n)
				run++;
			if (run > i) {
				pq_render_measure(&leaf->render, vals, v, run - i, &rs);
				defined += run - i;
				v += run - i;
				i = run;
				continue;
			}
			defined += def[i] >= leaf->max_def;
			nulls++;
			i++;
		}
	}
	page_acc *a = &c->acc;
	a->oom |= rs.oom;
	a->values += rs.values + v + 3 * (uint64_t)nulls;
	a->levels += c->levels ? levels_len(leaf, pd) : 0;
	/* Rows (flat schemas): a page without slots adds none; the row
	 * renderer fails when the levels define other than the values. */
	if (pd->nslots == 0)
		return;
	if (defined != vals->n || v != vals->n) {
		a->rows_bad = true;
		return;
	}
	a->rows += pd->nslots;
	a->csv += rs.csv;
	a->json += rs.json + 4 * (rs.json_empty + (uint64_t)(pd->nslots - v));
}

/* n slots of one value (or of none): that value measured once, times n. */
static void measure_run(page_ctx *c, const pq_slot_run *run)
{
	const pq_leaf *leaf = c->leaf;
	page_acc *a = &c->acc;
	uint64_t n = run->n;
	if (c->levels)
		a->levels += leaf->max_rep <= 9 && leaf->max_def <= 9
				     ? 4 * n
				     : n * (2 + digits(run->rep) + digits(run->def));
	a->rows += n;
	if (!run->has_value) { /* `\N\n`; an empty CSV field; `null` */
		a->values += 3 * n;
		a->json += 4 * n;
		return;
	}
	pq_render_sizes one = {0};
	pq_render_measure(&leaf->render, &run->value, 0, 1, &one);
	a->oom |= one.oom;
	a->values += n * (one.values + 1);
	a->csv += n * one.csv;
	a->json += n * (one.json + 4 * one.json_empty);
}

/* The page is complete: its sizes recorded. */
static void page_done(page_ctx *c, uint32_t page)
{
	page_acc *a = &c->acc;
	if (a->oom) { /* counted short: as a page that did not decode */
		c->page_failed = true;
		c->w->rows_ok = false;
		fail(c->cs, PQ_ENOMEM, "no memory to measure a page");
		return;
	}
	pq_page_sizes *ps = &c->cs->pages[page];
	ps->values = a->values;
	ps->levels = a->levels;
	c->values += ps->values;
	c->lev += ps->levels;
	c->w->pages_ok++;
	if (a->rows_bad) {
		c->w->rows_ok = false;
		return;
	}
	c->w->rows += a->rows;
	c->w->csv += a->csv;
	c->w->json += a->json;
}

static void on_page(void *ctx, const pq_chunk_layout *l, uint32_t page,
		    const pq_verify_piece *piece, const pq_error *err)
{
	page_ctx *c = ctx;
	if (page == PQ_VERIFY_DICT) {
		if (!piece && err && err->status == PQ_ECHECKSUM) {
			/* it decoded, but fails its reads (crc_check): the walk goes
			 * on, and each page that decodes through it fails alone */
			c->w->rows_ok = false;
			fail(c->cs, err->status, err->msg);
		} else if (!piece) {
			c->dict_failed = true;
			c->w->rows_ok = false; /* the row reader needs the dictionary */
		}
		return;
	}
	if (page >= l->num_pages)
		return;
	if (!piece) {
		c->page_failed = true;
		c->w->rows_ok = false;
		fail(c->cs, err ? err->status : PQ_ECORRUPT, err ? err->msg : "page did not decode");
		return;
	}
	if (piece->memo) { /* measured before, through another row group */
		memcpy(&c->acc, piece->memo, sizeof c->acc);
		page_done(c, page);
		return;
	}
	if (piece->first)
		memset(&c->acc, 0, sizeof c->acc);
	if (piece->last && piece->save)
		memcpy(piece->save, &c->acc, sizeof c->acc);
	if (piece->pd)
		measure_window(c, piece->pd);
	else if (piece->run)
		measure_run(c, piece->run);
	if (piece->last)
		page_done(c, page);
}

/* Decoded bytes a page takes: its body as read and decompressed, levels
 * and values (an estimate from the header; views for BYTE_ARRAY). */
static uint64_t page_need(const pq_file *f, const pq_leaf *leaf, const pq_page_info *pi,
			  int64_t nvalues)
{
	uint64_t width = leaf->physical == PQ_BYTE_ARRAY
				 ? sizeof(pq_bytes)
				 : pq_value_width(leaf->physical, leaf->type_length);
	uint64_t unc = pi->header.uncompressed_page_size > 0
			       ? (uint64_t)pi->header.uncompressed_page_size
			       : 0;
	uint64_t n = nvalues > 0 ? (uint64_t)nvalues : 0;
	if (pi->header.type != PQ_PAGE_DICTIONARY && pq_page_windowed(f, leaf, pi))
		n = f->page_window; /* decoded a window at a time */
	return (uint64_t)pi->body_len + unc + n * (width + 4) + 4096;
}

static uint64_t chunk_need(const pq_file *f, const pq_leaf *leaf, const pq_chunk_layout *l)
{
	uint64_t max = 0;
	for (uint32_t p = 0; p < l->num_pages; p++) {
		uint64_t n = page_need(f, leaf, &l->pages[p], l->pages[p].num_slots);
		if (n > max)
			max = n;
	}
	if (l->dict)
		max += page_need(f, leaf, l->dict, l->dict->header.dictionary_page_header.num_values);
	return max;
}

void pq_sizes_chunk(const pq_file *f, uint32_t rg, uint32_t col, pq_mem_budget *budget,
		    pq_page_memo *memo, pq_chunk_sizes *cs, pq_chunk_work *w)
{
	pq_error err;
	pq_error_clear(&err);
	pq_chunk_layout *l = NULL;
	cs->values = cs->levels = PQ_SIZE_FAILED;
	w->rows_ok = false;
	pq_status st = pq_chunk_layout_load(f, rg, col, &l, &err);
	if (st != PQ_OK) {
		fail(cs, st, err.msg);
		/* verify.txt reports the same failure its own way */
		pq_verify_chunk_run(f, rg, col, NULL, NULL, NULL, &w->verify);
		w->verified = true;
		return;
	}
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	w->need = chunk_need(f, leaf, l);
	if (w->need > budget->chunk_max) {
		char where[256], msg[PQ_ERROR_MSG_MAX];
		pq_file_where(f, rg, col, where, sizeof where);
		snprintf(msg, sizeof msg,
			 "%s: its pages need %" PRIu64 " bytes of memory at once, more than the %"
			 PRIu64 " allowed (cache_size)", where, w->need, budget->chunk_max);
		fail(cs, PQ_EBUDGET, msg);
		pq_chunk_layout_free(l);
		return;
	}
	cs->pages = calloc(l->num_pages ? l->num_pages : 1, sizeof *cs->pages);
	if (!cs->pages) {
		fail(cs, PQ_ENOMEM, "no memory for the size pass");
		pq_chunk_layout_free(l);
		return;
	}
	cs->num_pages = l->num_pages;
	for (uint32_t p = 0; p < l->num_pages; p++)
		cs->pages[p].values = cs->pages[p].levels = PQ_SIZE_FAILED;
	page_ctx c = {.f = f, .leaf = leaf, .cs = cs, .w = w, .levels = pq_column_has_levels(f, col)};
	w->rows_ok = true;
	pq_mem_reserve(budget, w->need);
	/* over the pass's share, alone: its pages (charged, never refused)
	 * first wait for that much room in the budget, so that they do not
	 * take the daemon past cache_size beside its readers */
	if (w->need > budget->max)
		(void)pq_budget_wait_room(f->budget, w->need,
					  pq_budget_now_ms() + (int64_t)pq_budget_wait_ms(f->budget));
	pq_verify_chunk_run_memo(f, rg, col, l, on_page, &c, memo, &w->memoable, &w->verify);
	w->verified = true;
	if (c.dict_failed) {
		/* The walk stops at a broken dictionary; pages that need none
		 * still have a values.txt (content.c decodes them so). */
		for (uint32_t p = 0; p < l->num_pages; p++) {
			pq_page_data *pd = NULL;
			pq_error perr;
			pq_error_clear(&perr);
			if (pq_page_decode(f, l, &l->pages[p], NULL, &pd, &perr) != PQ_OK) {
				on_page(&c, l, p, NULL, &perr);
				continue;
			}
			on_page(&c, l, p, &(pq_verify_piece){pd, NULL, true, true, NULL, NULL}, NULL);
			pq_page_data_unref(pd);
		}
	}
	pq_mem_release(budget, w->need);
	if (!w->verify.ok)
		w->rows_ok = false;
	if (!c.page_failed) {
		cs->values = c.values;
		cs->levels = c.lev;
	}
	pq_chunk_layout_free(l);
}

pq_status pq_sizes_chunk_copy(const pq_chunk_sizes *from, const pq_chunk_work *wfrom,
			      pq_chunk_sizes *cs, pq_chunk_work *w)
{
	cs->status = from->status;
	cs->num_pages = from->num_pages;
	cs->pages = from->pages;
	cs->pages_borrowed = from->pages != NULL;
	cs->values = from->values;
	cs->levels = from->levels;
	cs->msg = from->msg ? strdup(from->msg) : NULL;
	w->csv = wfrom->csv;
	w->json = wfrom->json;
	w->rows = wfrom->rows;
	w->rows_ok = wfrom->rows_ok;
	w->need = wfrom->need;
	return from->msg && !cs->msg ? PQ_ENOMEM : PQ_OK;
}
