/* Rows of flat schemas (every column a top-level, non-repeated primitive —
 * most files): a batch of rows is rendered column by column with
 * pq_render_batch, then interleaved into lines. Same bytes as the general
 * assembler (tests/test_assemble.c compares them), at a fraction of the
 * per-value work: no schema walk, level checks or kind switch per value. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pq_assemble.h"
#include "pq_render.h"

#define FLAT_BATCH 2048 /* rows rendered per column pass */
#define SLACK 16        /* fields this short are copied as 16 fixed bytes */

struct pq_flat_rows {
	const pq_schema *s;
	size_t ncols;
	pq_row_format fmt;
	pq_buf *cols;     /* per column: the batch's rendered values */
	size_t *ends;     /* per column: FLAT_BATCH end offsets */
	pq_bytes *prefix; /* per column: what comes before its field */
};

bool pq_schema_is_flat(const pq_schema *s)
{
	const pq_node *root = pq_schema_root(s);
	size_t n = pq_schema_num_leaves(s);
	if (!root || n == 0 || root->nchildren != n)
		return false;
	for (uint32_t i = 0; i < root->nchildren; i++) {
		const pq_node *c = root->children[i];
		if (c->kind != PQ_AK_PRIMITIVE || c->leaf != (int32_t)i || c->max_rep != 0)
			return false;
	}
	return true;
}

void pq_flat_rows_free(pq_flat_rows *f)
{
	if (!f)
		return;
	for (size_t c = 0; f->cols && c < f->ncols; c++) {
		pq_buf_free(&f->cols[c]);
		if (f->prefix)
			free((void *)f->prefix[c].p);
	}
	free(f->cols);
	free(f->ends);
	free(f->prefix);
	free(f);
}

pq_status pq_flat_rows_new(const pq_schema *s, pq_row_format fmt, pq_flat_rows **out,
			   pq_error *err)
{
	*out = NULL;
	pq_flat_rows *f = calloc(1, sizeof *f);
	PQ_CHECK(f, err, PQ_ENOMEM, "no memory for a row renderer");
	f->s = s;
	f->fmt = fmt;
	f->ncols = pq_schema_num_leaves(s);
	f->cols = calloc(f->ncols, sizeof *f->cols);
	f->prefix = calloc(f->ncols, sizeof *f->prefix);
	f->ends = f->ncols <= SIZE_MAX / FLAT_BATCH / sizeof(size_t)
			  ? malloc(f->ncols * FLAT_BATCH * sizeof(size_t))
			  : NULL;
	if (!f->cols || !f->prefix || !f->ends) {
		pq_flat_rows_free(f);
		return pq_fail(err, PQ_ENOMEM, "no memory for a row renderer");
	}
	const pq_node *root = pq_schema_root(s);
	for (size_t c = 0; c < f->ncols; c++) {
		/* CSV: "," between fields. JSONL: `{"a":` then `,"b":`. */
		const pq_bytes *key = &root->children[c]->json_key;
		size_t n = fmt == PQ_ROWS_CSV ? (c ? 1 : 0) : 1 + key->n;
		uint8_t *p = malloc(n + 1);
		if (!p) {
			pq_flat_rows_free(f);
			return pq_fail(err, PQ_ENOMEM, "no memory for a row renderer");
		}
		if (fmt == PQ_ROWS_CSV) {
			p[0] = ',';
		} else {
			p[0] = c ? ',' : '{';
			memcpy(p + 1, key->p, key->n);
		}
		f->prefix[c] = (pq_bytes){p, n};
	}
	*out = f;
	return PQ_OK;
}

/* Loads column c's next batch when its current one is used up. */
static pq_status refill(pq_flat_rows *f, pq_leaf_cursor *cur, size_t c, pq_error *err)
{
	pq_leaf_cursor *k = &cur[c];
	const pq_leaf *lf = pq_schema_leaf(f->s, c);
	while (k->pos >= k->nslots && !k->end) {
		if (k->nslots && k->vpos != k->vals.n)
			return pq_fail(err, PQ_ECORRUPT,
				       "column %s: a batch holds %zu values but its levels define %zu",
				       lf->path, k->vals.n, k->vpos);
		if (!k->next) {
			k->end = true;
			break;
		}
		if (k->next(k->ctx, k, err) != PQ_OK)
			return pq_context(err, "column %s", lf->path);
		k->pos = k->vpos = 0;
		if (k->nslots == 0)
			k->end = true;
		else if (lf->max_def && !k->def)
			return pq_fail(err, PQ_ECORRUPT, "column %s: a batch of %zu slots comes without levels",
				       lf->path, k->nslots);
	}
	return PQ_OK;
}

/* Renders column c's next n slots into f->cols[c]; ends[i] is the end of
 * row i's field, equal to the previous end for a NULL. */
static pq_status render_column(pq_flat_rows *f, pq_leaf_cursor *k, size_t c, size_t n,
			       pq_error *err)
{
	const pq_leaf *lf = pq_schema_leaf(f->s, c);
	pq_buf *b = &f->cols[c];
	size_t *ends = f->ends + c * FLAT_BATCH;
	pq_render_mode mode = f->fmt == PQ_ROWS_CSV ? PQ_MODE_CSV : PQ_MODE_JSON;
	b->len = 0;
	const uint16_t *def = k->def ? k->def + k->pos : NULL;
	size_t i = 0;
	while (i < n) {
		/* a run of present slots, rendered in one call */
		size_t run = i;
		while (run < n && (!def || def[run] >= lf->max_def))
			run++;
		size_t cnt = run - i;
		if (cnt) {
			if (k->vpos + cnt > k->vals.n)
				return pq_fail(err, PQ_ECORRUPT,
					       "column %s: the levels define more values than the batch holds (%zu)",
					       lf->path, k->vals.n);
			pq_render_batch(&lf->render, &k->vals, k->vpos, cnt, mode, 0, b, ends + i);
			k->vpos += cnt;
			i = run;
		}
		size_t end = b->len;
		while (i < n && def && def[i] < lf->max_def)
			ends[i++] = end;
	}
	k->pos += n;
	pq_buf_grow(b, SLACK); /* the interleave may read SLACK bytes past a field */
	if (b->oom)
		return pq_fail(err, PQ_ENOMEM, "no memory for rendered rows");
	return PQ_OK;
}

pq_status pq_flat_rows_next(pq_flat_rows *f, pq_leaf_cursor *cur, uint64_t max_rows,
			    pq_buf *out, uint64_t *rows_done, pq_error *err)
{
	*rows_done = 0;
	static const char null_json[] = "null";
	bool csv = f->fmt == PQ_ROWS_CSV;
	while (*rows_done < max_rows) {
		/* The batch: as many rows as every column has slots for. */
		size_t n = FLAT_BATCH, ended = SIZE_MAX, with = SIZE_MAX;
		if (max_rows - *rows_done < n)
			n = (size_t)(max_rows - *rows_done);
		for (size_t c = 0; c < f->ncols; c++) {
			PQ_TRY(refill(f, cur, c, err));
			size_t left = cur[c].nslots - cur[c].pos;
			if (cur[c].end || left == 0) {
				ended = c;
				continue;
			}
			with = c;
			if (left < n)
				n = left;
		}
		if (ended != SIZE_MAX) {
			if (with != SIZE_MAX)
				return pq_fail(err, PQ_ECORRUPT, "column %s: has more rows than column %s",
					       pq_schema_leaf(f->s, with)->path,
					       pq_schema_leaf(f->s, ended)->path);
			break;
		}
		size_t need = n * (csv ? 1 : 2) + SLACK;
		for (size_t c = 0; c < f->ncols; c++) {
			PQ_TRY(render_column(f, &cur[c], c, n, err));
			need += f->cols[c].len + n * (f->prefix[c].n + (csv ? 0 : 4));
		}
		PQ_CHECK(pq_buf_grow(out, need), err, PQ_ENOMEM, "no memory for rendered rows");
		uint8_t *o = out->p + out->len;
		for (size_t r = 0; r < n; r++) {
			for (size_t c = 0; c < f->ncols; c++) {
				const size_t *ends = f->ends + c * FLAT_BATCH;
				size_t from = r ? ends[r - 1] : 0, len = ends[r] - from;
				if (csv) {
					*o = ',';
					o += c != 0;
				} else {
					memcpy(o, f->prefix[c].p, f->prefix[c].n);
					o += f->prefix[c].n;
				}
				/* Short fields (most) as one fixed-size copy: both
				 * buffers have SLACK bytes of room beyond their data. */
				if (len <= SLACK)
					memcpy(o, f->cols[c].p + from, SLACK);
				else
					memcpy(o, f->cols[c].p + from, len);
				o += len;
				if (!len && !csv) {
					memcpy(o, null_json, 4);
					o += 4;
				}
			}
			if (!csv)
				*o++ = '}';
			*o++ = '\n';
		}
		out->len = (size_t)(o - out->p);
		*rows_done += n;
	}
	return PQ_OK;
}
