/* verify.txt: an integrity check computed when read. Every page header is
 * walked, every CRC recomputed, every page decoded, and counts compared
 * with what the footer and page headers claim. One line per finding.
 *
 * The checks of a chunk (check_chunk) write into the chunk's own
 * pq_verify_chunk, so the size pass can run them on its threads, on the
 * pages it decodes anyway, and assemble the text after (verify_internal.h). */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

#include "pq_aruna.h"
#include "pq_budget.h"

typedef struct verifier {
	const pq_file *f;
	pq_buf *out;
	uint64_t problems, pages, crcs;
	pq_page_memo *memo;  /* or NULL */
	uint64_t memoable;   /* data pages found in memo or kept there */
	pq_wkb_box box; /* GEOMETRY / GEOGRAPHY: the coordinates of the chunk */
} verifier;

/* A lack of memory (the budget included) or an I/O error while checking
 * says nothing about the file: the check stops and verify.txt fails
 * (interface.md), rather than reporting a problem the file does not have. */
static bool lacking(const pq_error *e)
{
	return e->status == PQ_ENOMEM || e->status == PQ_EIO || e->status == PQ_EBUDGET;
}

static void problem(verifier *v, const char *fmt, ...) PQ_PRINTF(2, 3);
static void problem(verifier *v, const char *fmt, ...)
{
	char line[PQ_ERROR_MSG_MAX + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	pq_buf_printf(v->out, "PROBLEM: %s\n", line);
	v->problems++;
}

/* GEOMETRY / GEOGRAPHY: every value must be valid WKB (else it shows as
 * hex). One finding per page: the count and the first reason. */
static void check_wkb(verifier *v, const pq_page_data *pd, const char *where)
{
	if (pd->values.type != PQ_BYTE_ARRAY)
		return;
	pq_buf scratch = PQ_BUF_INIT;
	uint64_t bad = 0;
	const char *first = NULL;
	for (size_t i = 0; i < pd->values.n; i++) {
		const char *why = NULL;
		scratch.len = 0;
		if (!pq_render_wkt_box(pd->values.v.ba[i].p, pd->values.v.ba[i].n, &scratch, &why,
				       &v->box) &&
		    !bad++)
			first = why;
	}
	pq_buf_free(&scratch);
	if (bad)
		problem(v, "%s: %" PRIu64 " values are not valid WKB (first: %s)", where, bad,
			first ? first : "?");
}

/* What the pieces of one data page (windows and runs) add up to. */
typedef struct page_tally {
	uint64_t rows, nulls; /* rows started, null slots */
	bool started;         /* a piece with slots was seen */
	uint16_t first_rep;   /* ... and the repetition level of its first slot */
} page_tally;

/* The chunk's first slot must start a row. */
static void check_first_rep(verifier *v, const pq_page_info *pi, page_tally *t, unsigned rep,
			    const char *where)
{
	if (t->started)
		return;
	if (pi->first_slot == 0 && rep != 0)
		problem(v, "%s: first value of the chunk has repetition level %u, not 0", where, rep);
	t->started = true;
	t->first_rep = (uint16_t)rep;
}

/* A window of a data page. */
static void tally_window(verifier *v, const pq_leaf *leaf, const pq_page_info *pi,
			 const pq_page_data *pd, const char *where, page_tally *t)
{
	uint64_t rows = 0, nn = 0;
	for (size_t i = 0; i < pd->nslots; i++) {
		if (!pd->rep || pd->rep[i] == 0)
			rows++;
		if (pd->def && pd->def[i] < leaf->max_def)
			nn++;
	}
	if (pd->nslots)
		check_first_rep(v, pi, t, pd->rep ? pd->rep[0] : 0, where);
	t->rows += rows;
	t->nulls += nn;
	if (leaf->render.kind == PQ_R_GEO)
		check_wkb(v, pd, where);
}

/* A run of slots with the same levels: counted, not expanded. (GEO
 * columns take no runs: their WKB check counts values one by one.) */
static void tally_run(verifier *v, const pq_leaf *leaf, const pq_page_info *pi,
		      const pq_slot_run *run, const char *where, page_tally *t)
{
	if (run->n)
		check_first_rep(v, pi, t, run->rep, where);
	if (leaf->max_rep == 0 || run->rep == 0)
		t->rows += run->n;
	if (leaf->max_def > 0 && run->def < leaf->max_def)
		t->nulls += run->n;
}

/* The checks of a whole data page against its header; returns the rows
 * started in it. */
static uint64_t check_page_end(verifier *v, const pq_leaf *leaf, const pq_page_info *pi,
			       const page_tally *t, const char *where, uint64_t *nulls)
{
	uint64_t rows = t->rows, nn = t->nulls;
	const pq_page_header *h = &pi->header;
	if (h->type == PQ_PAGE_DATA_V2) {
		const pq_data_page_header_v2 *d = &h->data_page_header_v2;
		if ((uint64_t)d->num_rows != rows)
			problem(v, "%s: header says %d rows, levels give %" PRIu64, where, d->num_rows, rows);
		if ((uint64_t)d->num_nulls != nn)
			problem(v, "%s: header says %d nulls, levels give %" PRIu64, where, d->num_nulls, nn);
	}
	const pq_statistics *s = h->type == PQ_PAGE_DATA && h->data_page_header.has_statistics
					 ? &h->data_page_header.statistics
				 : h->type == PQ_PAGE_DATA_V2 && h->data_page_header_v2.has_statistics
					 ? &h->data_page_header_v2.statistics
					 : NULL;
	if (s && s->has_null_count && leaf->max_rep == 0 && (uint64_t)s->null_count != nn)
		problem(v, "%s: statistics null_count %" PRId64 ", data has %" PRIu64, where,
			s->null_count, nn);
	*nulls += nn;
	return rows;
}

/* Slots a run must span to be taken as one (shorter ones: windows). */
#define RUN_MIN 4096

/* Walks one data page piece by piece (runs where the encoding has them,
 * else windows), handing each to fn. PQ_OK with its rows, or the failure
 * in err (fn has been told). */
static pq_status walk_page(verifier *v, const pq_chunk_layout *l, const pq_page_info *pi,
			   pq_page_data *dict, const char *pw, pq_verify_page_fn fn, void *ctx,
			   uint64_t *rows, uint64_t *nulls, page_tally *tally, void *save,
			   pq_error *err)
{
	const pq_file *f = v->f;
	const pq_leaf *leaf = pq_schema_leaf(f->schema, l->col);
	uint32_t index = (uint32_t)(pi - l->pages);
	page_tally t = {0};
	pq_page_reader *r = NULL;
	/* unchecked: the CRC is reported on its own, and what the page holds
	 * is checked whatever its CRC says */
	pq_status st = pq_page_reader_open(f, l, pi, dict, false, &r, err);
	bool first = true;
	while (st == PQ_OK) {
		pq_slot_run run;
		bool found;
		st = pq_page_reader_run(r, leaf->render.kind == PQ_R_GEO ? UINT64_MAX : RUN_MIN, &run,
					&found, err);
		if (st != PQ_OK)
			break;
		if (found) {
			tally_run(v, leaf, pi, &run, pw, &t);
			if (fn)
				fn(ctx, l, index, &(pq_verify_piece){NULL, &run, first, false, NULL, NULL}, NULL);
			first = false;
			continue;
		}
		pq_page_data *pd = NULL;
		st = pq_page_reader_next(r, 0, &pd, err);
		if (st != PQ_OK || !pd)
			break;
		tally_window(v, leaf, pi, pd, pw, &t);
		if (fn)
			fn(ctx, l, index, &(pq_verify_piece){pd, NULL, first, false, NULL, NULL}, NULL);
		first = false;
		pq_page_data_unref(pd);
	}
	pq_page_reader_free(r);
	if (st != PQ_OK) {
		if (fn)
			fn(ctx, l, index, NULL, err);
		return st;
	}
	if (fn)
		fn(ctx, l, index, &(pq_verify_piece){NULL, NULL, first, true, NULL, save}, NULL);
	*tally = t;
	*rows += check_page_end(v, leaf, pi, &t, pw, nulls);
	return PQ_OK;
}

/* The memo's key for a data page, false when the page is never kept. */
static bool memo_key(const verifier *v, const pq_chunk_layout *l, const pq_page_info *pi,
		     pq_page_memo_key *k)
{
	const pq_leaf *leaf = pq_schema_leaf(v->f->schema, l->col);
	const pq_column_meta_data *m = pq_file_chunk_meta(v->f, l->rg, l->col);
	if (!v->memo || !m || leaf->render.kind == PQ_R_GEO ||
	    pq_file_chunk_crypto(v->f, l->rg, l->col))
		return false;
	k->header_offset = pi->header_offset;
	k->dict_offset = l->dict ? l->dict->header_offset : UINT64_MAX;
	/* the same bytes decompress by the codec of the chunk that holds them */
	k->col = (uint64_t)l->col | (uint64_t)(uint32_t)m->codec << 32;
	return true;
}

/* A page walked before: its findings replayed, nothing read. */
static void replay_page(verifier *v, const pq_chunk_layout *l, const pq_page_info *pi,
			const pq_page_memo_entry *e, const char *pw, pq_verify_page_fn fn,
			void *ctx, uint64_t *rows, uint64_t *nulls)
{
	const pq_leaf *leaf = pq_schema_leaf(v->f->schema, l->col);
	if (e->crc == PQ_CRC_OK)
		v->crcs++;
	page_tally t = {0};
	if (e->has_slots)
		check_first_rep(v, pi, &t, e->first_rep, pw);
	t.rows = e->rows;
	t.nulls = e->nulls;
	if (fn)
		fn(ctx, l, (uint32_t)(pi - l->pages),
		   &(pq_verify_piece){NULL, NULL, true, true, e->user, NULL}, NULL);
	*rows += check_page_end(v, leaf, pi, &t, pw, nulls);
	v->memoable++;
}

/* The chunk's values lie inside its stored bounding box (Geospatial.md;
 * a GEOGRAPHY box with xmin > xmax crosses the antimeridian: its x range
 * wraps, and only y, z and m are checked). */
static void check_bbox(verifier *v, const pq_leaf *leaf, const pq_column_meta_data *m,
		       const pq_wkb_box *box, const char *where)
{
	if (leaf->render.kind != PQ_R_GEO || !m->has_geospatial_statistics ||
	    !m->geospatial_statistics.has_bbox)
		return;
	const pq_bounding_box *b = &m->geospatial_statistics.bbox;
	const struct {
		bool check;
		double lo, hi;
		const char *name;
	} ax[4] = {{b->xmin <= b->xmax, b->xmin, b->xmax, "x"},
		   {true, b->ymin, b->ymax, "y"},
		   {b->has_zmin && b->has_zmax, b->zmin, b->zmax, "z"},
		   {b->has_mmin && b->has_mmax, b->mmin, b->mmax, "m"}};
	for (int a = 0; a < 4; a++) {
		if (!ax[a].check || !box->has[a])
			continue;
		if (box->min[a] < ax[a].lo || box->max[a] > ax[a].hi) {
			char lo[PQ_FORMAT_BUF], hi[PQ_FORMAT_BUF], vlo[PQ_FORMAT_BUF], vhi[PQ_FORMAT_BUF];
			pq_format_double(ax[a].lo, lo);
			pq_format_double(ax[a].hi, hi);
			pq_format_double(box->min[a], vlo);
			pq_format_double(box->max[a], vhi);
			problem(v, "%s: values span %s %s to %s, outside the bounding box's %s to %s",
				where, ax[a].name, vlo, vhi, lo, hi);
		}
	}
}

/* The metadata checks of a chunk whose pages were walked: what the row
 * group's footer entry claims against what the pages hold. */
static void check_chunk_meta(verifier *v, uint32_t rg, uint32_t col, const pq_verify_chunk *res)
{
	const pq_file *f = v->f;
	const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, col);
	if (!res->ok || !m)
		return;
	char where[256];
	pq_file_where(f, rg, col, where, sizeof where);
	if ((uint64_t)m->num_values != res->slots)
		problem(v, "%s: metadata says %" PRId64 " values, pages hold %" PRIu64, where,
			m->num_values, res->slots);
	/* A repeated column's null_count is not defined by the spec
	 * (writers count empty lists and null elements differently):
	 * checked only where every slot is one value of one row. */
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	if (m->has_statistics && m->statistics.has_null_count && leaf->max_rep == 0 &&
	    (uint64_t)m->statistics.null_count != res->nulls)
		problem(v, "%s: statistics null_count %" PRId64 ", data has %" PRIu64, where,
			m->statistics.null_count, res->nulls);
	check_bbox(v, leaf, m, &res->box, where);
}

/* Walks the pages of a chunk: CRC, decode, per-page checks; fn sees each
 * data page. given: the caller's layout, or NULL to load it here.
 * What is checked here must follow from the chunk's bytes alone: the size
 * pass reuses a clean walk for row groups that point at the same chunk.
 * Checks against the row group's footer entry go in check_chunk_meta. */
static void check_chunk(verifier *v, uint32_t rg, uint32_t col, const pq_chunk_layout *given,
			pq_verify_page_fn fn, void *ctx, pq_verify_chunk *res)
{
	const pq_file *f = v->f;
	char where[256];
	pq_file_where(f, rg, col, where, sizeof where);
	pq_error err;
	pq_error_clear(&err);
	pq_chunk_layout *own = NULL;
	const pq_chunk_layout *l = given;
	res->ok = false;
	res->walked = true;
	memset(&v->box, 0, sizeof v->box);
	if (!l && pq_chunk_layout_load(f, rg, col, &own, &err) != PQ_OK) {
		if (lacking(&err))
			res->fail = err;
		else
			problem(v, "%s", err.msg);
		return;
	}
	if (!l)
		l = own;
	pq_page_data *dict = NULL;
	pq_error dict_crc; /* the dictionary's CRC failure, when it fails its reads */
	bool dict_bad = false;
	uint64_t rows = 0, nulls = 0;
	bool ok = true;
	uint32_t n = l->num_pages + (l->dict ? 1 : 0);
	for (uint32_t i = 0; i < n; i++) {
		const pq_page_info *pi = l->dict ? (i == 0 ? l->dict : &l->pages[i - 1]) : &l->pages[i];
		uint32_t index = pi == l->dict ? PQ_VERIFY_DICT : (uint32_t)(pi - l->pages);
		char pw[320];
		if (pi == l->dict)
			snprintf(pw, sizeof pw, "%s, dictionary page", where);
		else
			snprintf(pw, sizeof pw, "%s, page %td", where, pi - l->pages);
		v->pages++;
		pq_page_memo_key key;
		pq_page_memo_entry e;
		bool through_bad = pi != l->dict && dict_bad && pq_page_wants_dict(pi);
		bool keep = pi != l->dict && !through_bad && memo_key(v, l, pi, &key);
		if (keep && pq_page_memo_get(v->memo, &key, &e)) {
			replay_page(v, l, pi, &e, pw, fn, ctx, &rows, &nulls);
			continue;
		}
		uint64_t problems = v->problems;
		pq_crc_state crc;
		uint32_t computed;
		if (pq_page_crc(f, pi, &crc, &computed, &err) != PQ_OK) {
			if (lacking(&err)) {
				res->fail = err;
				ok = false;
				break;
			}
			problem(v, "%s: %s", pw, err.msg);
		} else if (crc == PQ_CRC_MISMATCH)
			problem(v, "%s: CRC mismatch: stored 0x%08" PRIx32 ", computed 0x%08" PRIx32, pw,
				(uint32_t)pi->header.crc, computed);
		else if (crc == PQ_CRC_OK)
			v->crcs++;
		/* With crc_check the page (or the dictionary it decodes through)
		 * fails its reads: verify.txt checks it all the same, and fn (the
		 * size pass) is told it failed, as the page's reads will. */
		pq_error ferr;
		bool fails = through_bad;
		if (through_bad) {
			ferr = dict_crc;
		} else if (crc == PQ_CRC_MISMATCH && f->crc_check) {
			char pwhere[320];
			pq_page_where(f, l, pi, pwhere, sizeof pwhere);
			pq_page_crc_fail(pi, computed, &ferr);
			pq_context(&ferr, "%s", pwhere);
			fails = true;
		}
		if (pi != l->dict) {
			page_tally t;
			if (keep)
				memset(&e, 0, sizeof e);
			pq_status ws = walk_page(v, l, pi, dict, pw, fails ? NULL : fn, ctx, &rows, &nulls,
						 &t, keep ? e.user : NULL, &err);
			/* the read's own order: an encrypted module's check first */
			if (fails && fn)
				fn(ctx, l, index, NULL,
				   ws != PQ_OK && pq_file_chunk_crypto(f, l->rg, l->col) ? &err : &ferr);
			if (ws != PQ_OK) {
				ok = false;
				if (lacking(&err)) {
					res->fail = err;
					break;
				}
				problem(v, "%s", err.msg);
			} else if (keep && v->problems == problems) {
				e.crc = crc;
				e.rows = t.rows;
				e.nulls = t.nulls;
				e.has_slots = t.started;
				e.first_rep = t.first_rep;
				pq_page_memo_put(v->memo, &key, &e);
				v->memoable++;
			}
			continue;
		}
		pq_page_data *pd = NULL;
		pq_status st = pq_page_decode_as(f, l, pi, NULL, false, &pd, &err);
		if (fn)
			fn(ctx, l, index,
			   st == PQ_OK && !fails ? &(pq_verify_piece){pd, NULL, true, true, NULL, NULL}
						: NULL,
			   st != PQ_OK ? &err : fails ? &ferr : NULL);
		if (st != PQ_OK) {
			if (lacking(&err))
				res->fail = err;
			else
				problem(v, "%s", err.msg);
			ok = false;
			break;
		}
		if (fails) {
			dict_bad = true;
			dict_crc = ferr;
		}
		dict = pd;
	}
	res->rows = rows;
	res->nulls = nulls;
	res->slots = l->num_slots;
	res->box = v->box;
	res->ok = ok;
	pq_page_data_unref(dict);
	pq_chunk_layout_free(own);
}

/* After the page walk: the metadata checks of the chunk's own row group,
 * and the totals. */
static void finish_chunk(verifier *v, uint32_t rg, uint32_t col, pq_verify_chunk *out)
{
	out->walk_len = out->text.len;
	out->walk_problems = v->problems;
	check_chunk_meta(v, rg, col, out);
	out->problems = v->problems;
	out->pages = v->pages;
	out->crcs = v->crcs;
}

void pq_verify_chunk_run_memo(const pq_file *f, uint32_t rg, uint32_t col,
			      const pq_chunk_layout *l, pq_verify_page_fn fn, void *ctx,
			      pq_page_memo *memo, uint64_t *memoable, pq_verify_chunk *out)
{
	memset(out, 0, sizeof *out);
	verifier v = {.f = f, .out = &out->text, .memo = memo};
	check_chunk(&v, rg, col, l, fn, ctx, out);
	finish_chunk(&v, rg, col, out);
	if (memoable)
		*memoable = v.memoable;
}

void pq_verify_chunk_run(const pq_file *f, uint32_t rg, uint32_t col, const pq_chunk_layout *l,
			 pq_verify_page_fn fn, void *ctx, pq_verify_chunk *out)
{
	pq_verify_chunk_run_memo(f, rg, col, l, fn, ctx, NULL, NULL, out);
}

void pq_verify_chunk_reuse(const pq_file *f, uint32_t rg, uint32_t col,
			   const pq_verify_chunk *from, pq_verify_chunk *out)
{
	/* the walk's results (they follow from the bytes), a text of our own */
	*out = *from;
	out->text = (pq_buf)PQ_BUF_INIT;
	pq_buf_append(&out->text, from->text.p, from->walk_len);
	verifier v = {.f = f, .out = &out->text, .problems = from->walk_problems,
		      .pages = from->pages, .crcs = from->crcs};
	finish_chunk(&v, rg, col, out);
}

void pq_verify_chunk_free(pq_verify_chunk *c)
{
	pq_buf_free(&c->text);
}

/* VARIANT columns: values that cannot be decoded or break the spec's
 * rules (rendered as hex) and invariants broken (keys out of order or
 * repeated, a shredded field also in value, ...), found by rendering the
 * rows of each row group. */
static pq_status check_variants(verifier *v, pq_error *fail)
{
	const pq_schema *s = v->f->schema;
	bool any = false;
	for (size_t i = 0; i < pq_schema_num_leaves(s) && !any; i++)
		for (const pq_node *n = pq_schema_leaf(s, i)->node; n && !any; n = n->parent)
			any = n->value_kind == PQ_AK_VARIANT;
	for (uint32_t r = 0; any && r < v->f->md.row_groups.n; r++) {
		pq_variant_report rep = {0};
		pq_error err;
		pq_error_clear(&err);
		if (pq_rows_check_variants(v->f, r, &rep, &err) != PQ_OK) {
			if (lacking(&err)) {
				*fail = err;
				return err.status;
			}
			problem(v, "row group %" PRIu32 ": rows: %s", r, err.msg);
			continue;
		}
		if (rep.errors) {
			const pq_leaf *lf = pq_schema_leaf(s, (size_t)rep.error_node->v_metadata->leaf);
			problem(v, "row group %" PRIu32 ", column %.*s: %" PRIu64
				   " variant values cannot be decoded (first: %s)", r,
				(int)(lf->path_len - strlen(".metadata")), lf->path, rep.errors,
				rep.first_error);
		}
		if (rep.notes) {
			const pq_leaf *lf = pq_schema_leaf(s, (size_t)rep.note_node->v_metadata->leaf);
			problem(v, "row group %" PRIu32 ", column %.*s: %" PRIu64
				   " variant values break a rule of the spec (first: %s)", r,
				(int)(lf->path_len - strlen(".metadata")), lf->path, rep.notes,
				rep.first_note);
		}
	}
	return PQ_OK;
}

pq_status pq_verify_assemble(const pq_file *f, const pq_verify_chunk *chunks, pq_buf *out,
			      pq_error *err)
{
	verifier v = {.f = f, .out = out};
	size_t n = (size_t)f->md.row_groups.n * f->num_columns;
	for (size_t i = 0; i < n; i++)
		if (chunks[i].fail.status != PQ_OK)
			return pq_fail(err, chunks[i].fail.status, "verify.txt cannot be made: %s",
				       chunks[i].fail.msg);
	const pq_file_meta_data *md = &f->md;
	/* a container's blocks and chunks first: every one, not only those
	 * the pages needed (nothing for other sources) */
	v.problems += pq_aruna_verify(f->src, out);
	pq_buf_printf(out, "magic and footer: ok (%zu bytes)\n", f->footer_len);
	int64_t total = 0;
	for (uint32_t r = 0; r < md->row_groups.n; r++) {
		const pq_row_group *rg = &md->row_groups.v[r];
		total += rg->num_rows;
		for (uint32_t c = 0; c < f->num_columns; c++) {
			const pq_verify_chunk *k = &chunks[(size_t)r * f->num_columns + c];
			pq_buf_append(out, k->text.p, k->text.len);
			v.problems += k->problems;
			v.pages += k->pages;
			v.crcs += k->crcs;
			if (k->ok && k->rows != (uint64_t)rg->num_rows) {
				char where[256];
				pq_file_where(f, r, c, where, sizeof where);
				problem(&v, "%s: row group says %" PRId64 " rows, the column holds %" PRIu64,
					where, rg->num_rows, k->rows);
			}
		}
	}
	pq_error fail;
	pq_error_clear(&fail);
	if (check_variants(&v, &fail) != PQ_OK)
		return pq_fail(err, fail.status, "verify.txt cannot be made: %s", fail.msg);
	if (total != md->num_rows)
		problem(&v, "footer num_rows %" PRId64 " but the row groups hold %" PRId64, md->num_rows, total);
	pq_buf_printf(out, "checked %" PRIu32 " row groups, %" PRIu32 " columns, %" PRIu64
		      " pages, %" PRIu64 " CRCs\n", md->row_groups.n, f->num_columns, v.pages, v.crcs);
	if (v.problems)
		pq_buf_printf(out, "FAILED: %" PRIu64 " problems\n", v.problems);
	else
		pq_buf_puts(out, "OK\n");
	if (out->oom)
		return out->refused ? pq_budget_fail(out->budget, out->refused, err)
				    : pq_fail(err, PQ_ENOMEM, "no memory for the text of verify.txt");
	return PQ_OK;
}

pq_status pq_text_verify(const pq_file *f, pq_buf *out, pq_error *err)
{
	size_t n = (size_t)f->md.row_groups.n * f->num_columns;
	pq_verify_chunk *chunks = calloc(n ? n : 1, sizeof *chunks);
	if (!chunks)
		return pq_fail(err, PQ_ENOMEM, "no memory to check the file");
	pq_status st = PQ_OK;
	for (uint32_t r = 0; r < f->md.row_groups.n && st == PQ_OK; r++)
		for (uint32_t c = 0; c < f->num_columns && st == PQ_OK; c++) {
			pq_verify_chunk *k = &chunks[(size_t)r * f->num_columns + c];
			pq_verify_chunk_run(f, r, c, NULL, NULL, NULL, k);
			st = k->fail.status; /* no use checking on */
		}
	/* (a chunk that could not be checked: it says why) */
	st = pq_verify_assemble(f, chunks, out, err);
	for (size_t i = 0; i < n; i++)
		pq_verify_chunk_free(&chunks[i]);
	free(chunks);
	return st;
}
