/* Record assembly: leaf level/value streams -> CSV and JSONL rows.
 *
 * Rows are built by walking the schema tree once per row. At each node the
 * first leaf below it tells, by its next slot's definition level, whether
 * the node is null (or a list empty); if so every leaf below holds exactly
 * one slot for it, which is skipped. A repeated node loops over elements
 * while that leaf's next repetition level equals the node's own. Each slot
 * taken is checked against what the structure expects: its repetition
 * level (0 at a row start, the enclosing repeated node's level for a later
 * element) and the range its definition level must lie in. So leaves that
 * disagree, or levels beyond their maxima, are reported, not trusted. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PQ_READ_INTERNAL
#include "assemble_internal.h"
#include "pq_render.h"

pq_status pq_asm_corrupt(asm_state *st, uint32_t li, const char *fmt, ...)
{
	char msg[PQ_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return pq_fail(st->err, PQ_ECORRUPT, "column %s: %s", st->leaves[li].path, msg);
}
/* Moves leaf li to its next batch once the current one is used up. */
static pq_status refill(asm_state *st, uint32_t li)
{
	pq_leaf_cursor *c = &st->cur[li];
	const pq_leaf *lf = &st->leaves[li];
	while (c->pos >= c->nslots && !c->end) {
		if (c->nslots && c->vpos != c->vals.n)
			return pq_asm_corrupt(st, li, "a batch holds %zu values but its levels define %zu",
				       c->vals.n, c->vpos);
		if (!c->next) {
			c->end = true;
			break;
		}
		if (c->next(c->ctx, c, st->err) != PQ_OK)
			return pq_context(st->err, "column %s", lf->path);
		c->pos = c->vpos = 0;
		if (c->nslots == 0) {
			c->end = true;
			break;
		}
		if ((lf->max_rep && !c->rep) || (lf->max_def && !c->def))
			return pq_asm_corrupt(st, li, "a batch of %zu slots comes without levels", c->nslots);
	}
	return PQ_OK;
}

pq_status pq_asm_have_slot(asm_state *st, uint32_t li, bool *have)
{
	pq_leaf_cursor *c = &st->cur[li];
	if (c->pos >= c->nslots)
		PQ_TRY(refill(st, li));
	*have = c->pos < c->nslots;
	return PQ_OK;
}
static inline uint16_t def_at(const pq_leaf_cursor *c) { return c->def ? c->def[c->pos] : 0; }

pq_status pq_asm_peek_def(asm_state *st, uint32_t li, uint16_t *d)
{
	bool have;
	PQ_TRY(pq_asm_have_slot(st, li, &have));
	if (!have)
		return pq_asm_corrupt(st, li, "the column ends in the middle of a row");
	*d = def_at(&st->cur[li]);
	return PQ_OK;
}

pq_status pq_asm_take(asm_state *st, uint32_t li, uint16_t re, uint16_t dk, uint16_t *d)
{
	bool have;
	PQ_TRY(pq_asm_have_slot(st, li, &have));
	if (!have)
		return pq_asm_corrupt(st, li, "the column ends in the middle of a row");
	pq_leaf_cursor *c = &st->cur[li];
	const pq_leaf *lf = &st->leaves[li];
	uint16_t r = pq_asm_rep_at(c), dd = def_at(c);
	if (dd > lf->max_def)
		return pq_asm_corrupt(st, li, "definition level %u exceeds the maximum %u", dd, lf->max_def);
	if (r > lf->max_rep)
		return pq_asm_corrupt(st, li, "repetition level %u exceeds the maximum %u", r, lf->max_rep);
	if (r != re)
		return pq_asm_corrupt(st, li, "repetition level %u where the row structure needs %u", r, re);
	if (dd < dk)
		return pq_asm_corrupt(st, li, "definition level %u where the row structure needs at least %u",
			       dd, dk);
	c->pos++;
	*d = dd;
	return PQ_OK;
}

pq_status pq_asm_emit_value(asm_state *st, uint32_t li, pq_render_mode mode, pq_buf *out)
{
	pq_leaf_cursor *c = &st->cur[li];
	if (c->vpos >= c->vals.n)
		return pq_asm_corrupt(st, li, "the levels define more values than the batch holds (%zu)",
			       c->vals.n);
	pq_render_value(&st->leaves[li].render, &c->vals, c->vpos++, mode, out);
	return PQ_OK;
}

pq_status pq_asm_skip(asm_state *st, const pq_node *n, uint16_t re, uint16_t dk, uint16_t below)
{
	for (uint32_t li = n->first_leaf; li < n->first_leaf + n->nleaves; li++) {
		uint16_t d;
		PQ_TRY(pq_asm_take(st, li, re, dk, &d));
		if (d >= below)
			return pq_asm_corrupt(st, li, "definition level %u where %s is absent (below %u)", d,
				       (const char *)n->name.p, below);
	}
	return PQ_OK;
}

static void put_empty(const pq_node *n, pq_buf *out)
{
	pq_buf_puts(out, n->kind == PQ_AK_REPEATED || n->value_kind == PQ_AK_LIST ? "[]" : "{}");
}

static pq_status render_value(asm_state *st, const pq_node *n, uint16_t re, uint16_t dk,
			      pq_buf *out);

/* A map key as a JSON string: the key's text (a primitive rendered as text,
 * anything else as its JSON), `"null"` for a null key. */
static pq_status render_key(asm_state *st, const pq_node *k, uint16_t re, uint16_t dk,
			    pq_buf *out)
{
	if (k->kind == PQ_AK_PRIMITIVE) {
		uint32_t li = (uint32_t)k->leaf;
		uint16_t d;
		PQ_TRY(pq_asm_take(st, li, re, dk, &d));
		if (d < k->max_def) {
			pq_buf_puts(out, "\"null\"");
			return PQ_OK;
		}
		st->key.len = 0;
		PQ_TRY(pq_asm_emit_value(st, li, PQ_MODE_TEXT, &st->key));
		pq_render_json_string(st->key.p, st->key.len, out);
		return PQ_OK;
	}
	pq_buf tmp = PQ_BUF_INIT; /* nested keys are rare: no scratch reuse */
	pq_status rc = pq_asm_render_field(st, k, re, dk, &tmp);
	if (rc == PQ_OK && tmp.oom)
		rc = pq_fail(st->err, PQ_ENOMEM, "no memory for a map key");
	if (rc == PQ_OK)
		pq_render_json_string(tmp.p, tmp.len, out);
	pq_buf_free(&tmp);
	return rc;
}

/* The elements of repeated node r (its parent present at level dk) as a
 * JSON array, or a MAP's entries as an object when map is set. elem is the
 * element node (r itself for 2-level lists and plain repeated fields). */
static pq_status render_repeated(asm_state *st, const pq_node *r, const pq_node *elem,
				 const pq_node *map, uint16_t re, uint16_t dk, pq_buf *out)
{
	uint32_t li = r->first_leaf;
	if (r->nleaves == 0) {
		pq_buf_puts(out, map ? "{}" : "[]");
		return PQ_OK;
	}
	uint16_t d;
	PQ_TRY(pq_asm_peek_def(st, li, &d));
	if (d < r->max_def) {
		PQ_TRY(pq_asm_skip(st, r, re, dk, r->max_def));
		pq_buf_puts(out, map ? "{}" : "[]");
		return PQ_OK;
	}
	pq_buf_putc(out, map ? '{' : '[');
	for (uint16_t ri = re;; ri = r->max_rep) {
		if (map) {
			PQ_TRY(render_key(st, map->key, ri, r->max_def, out));
			pq_buf_putc(out, ':');
			if (map->value)
				PQ_TRY(pq_asm_render_field(st, map->value, ri, r->max_def, out));
			else
				pq_buf_puts(out, "null");
		} else if (elem == r) {
			/* The repeated node is the element: its value, never null. */
			PQ_TRY(render_value(st, r, ri, r->max_def, out));
		} else {
			PQ_TRY(pq_asm_render_field(st, elem, ri, r->max_def, out));
		}
		bool have;
		PQ_TRY(pq_asm_have_slot(st, li, &have));
		if (!have)
			break;
		uint16_t next = pq_asm_rep_at(&st->cur[li]);
		if (next < r->max_rep)
			break;
		if (next > st->leaves[li].max_rep)
			return pq_asm_corrupt(st, li, "repetition level %u exceeds the maximum %u", next,
				       st->leaves[li].max_rep);
		if (next > r->max_rep)
			return pq_asm_corrupt(st, li, "repetition level %u after a whole element of %s (level %u)",
				       next, (const char *)r->name.p, r->max_rep);
		pq_buf_putc(out, ',');
	}
	pq_buf_putc(out, map ? '}' : ']');
	return PQ_OK;
}

/* One value of n, its parent present at level dk. A repeated n is rendered
 * as one element here (never null: its presence was established above). */
static pq_status render_value(asm_state *st, const pq_node *n, uint16_t re, uint16_t dk,
			      pq_buf *out)
{
	if (n->leaf >= 0) {
		uint32_t li = (uint32_t)n->leaf;
		uint16_t d;
		PQ_TRY(pq_asm_take(st, li, re, dk, &d));
		if (d < n->max_def) {
			pq_buf_puts(out, "null");
			return PQ_OK;
		}
		return pq_asm_emit_value(st, li, PQ_MODE_JSON, out);
	}
	if (n->nleaves == 0) {
		put_empty(n, out);
		return PQ_OK;
	}
	if (n->repetition == PQ_OPTIONAL) {
		uint16_t d;
		PQ_TRY(pq_asm_peek_def(st, n->first_leaf, &d));
		if (d < n->max_def) {
			PQ_TRY(pq_asm_skip(st, n, re, dk, n->max_def));
			pq_buf_puts(out, "null");
			return PQ_OK;
		}
	}
	dk = n->max_def;
	switch (n->value_kind) {
	case PQ_AK_LIST:
		return render_repeated(st, n->list_rep, n->element, NULL, re, dk, out);
	case PQ_AK_MAP:
		return render_repeated(st, n->map_rep, NULL, n, re, dk, out);
	case PQ_AK_VARIANT:
		return pq_asm_variant(st, n, re, out);
	default:
		pq_buf_putc(out, '{');
		for (uint32_t i = 0; i < n->nchildren; i++) {
			const pq_node *c = n->children[i];
			if (i)
				pq_buf_putc(out, ',');
			pq_buf_append(out, c->json_key.p, c->json_key.n);
			PQ_TRY(pq_asm_render_field(st, c, re, dk, out));
		}
		pq_buf_putc(out, '}');
		return PQ_OK;
	}
}

pq_status pq_asm_render_field(asm_state *st, const pq_node *n, uint16_t re, uint16_t dk,
			      pq_buf *out)
{
	if (n->kind == PQ_AK_REPEATED)
		return render_repeated(st, n, n, NULL, re, dk, out);
	return render_value(st, n, re, dk, out);
}

static pq_status json_row(asm_state *st, const pq_node *root, pq_buf *out)
{
	pq_buf_putc(out, '{');
	for (uint32_t i = 0; i < root->nchildren; i++) {
		const pq_node *c = root->children[i];
		if (i)
			pq_buf_putc(out, ',');
		pq_buf_append(out, c->json_key.p, c->json_key.n);
		PQ_TRY(pq_asm_render_field(st, c, 0, 0, out));
	}
	pq_buf_puts(out, "}\n");
	return PQ_OK;
}

static pq_status csv_row(asm_state *st, const pq_node *root, pq_buf *out)
{
	for (uint32_t i = 0; i < root->nchildren; i++) {
		const pq_node *c = root->children[i];
		if (i)
			pq_buf_putc(out, ',');
		if (c->kind == PQ_AK_PRIMITIVE) {
			uint32_t li = (uint32_t)c->leaf;
			uint16_t d;
			PQ_TRY(pq_asm_take(st, li, 0, 0, &d));
			if (d >= c->max_def)
				PQ_TRY(pq_asm_emit_value(st, li, PQ_MODE_CSV, out));
			continue; /* NULL: the empty field */
		}
		/* Nested: its JSON text as one field; a null group, list or map
		 * (JSON `null`, which no object or array renders as) is NULL. */
		st->field.len = 0;
		PQ_TRY(pq_asm_render_field(st, c, 0, 0, &st->field));
		if (st->field.oom)
			return pq_fail(st->err, PQ_ENOMEM, "no memory for a row");
		if (!(st->field.len == 4 && memcmp(st->field.p, "null", 4) == 0))
			pq_render_csv_field(st->field.p, st->field.len, out);
	}
	pq_buf_putc(out, '\n');
	return PQ_OK;
}

/* Whether another row starts: every leaf at a slot of repetition level 0,
 * or every leaf at its end. */
static pq_status row_starts(asm_state *st, size_t nleaves, bool *more)
{
	uint32_t with = UINT32_MAX, without = UINT32_MAX;
	for (uint32_t li = 0; li < nleaves; li++) {
		bool have;
		PQ_TRY(pq_asm_have_slot(st, li, &have));
		if (!have) {
			without = li;
			continue;
		}
		with = li;
		uint16_t r = pq_asm_rep_at(&st->cur[li]);
		if (r != 0)
			return pq_asm_corrupt(st, li, "a row starts at repetition level %u, not 0", r);
	}
	if (with != UINT32_MAX && without != UINT32_MAX)
		return pq_asm_corrupt(st, with, "has more rows than column %s",
			       st->leaves[without].path);
	*more = with != UINT32_MAX;
	return PQ_OK;
}

pq_status pq_assemble_rows(const pq_schema *s, pq_leaf_cursor *cursors, uint64_t max_rows,
			   pq_row_format fmt, pq_buf *out, uint64_t *rows_done, pq_error *err)
{
	return pq_assemble_rows_report(s, cursors, max_rows, fmt, out, rows_done, NULL, err);
}

pq_status pq_assemble_rows_report(const pq_schema *s, pq_leaf_cursor *cursors, uint64_t max_rows,
				  pq_row_format fmt, pq_buf *out, uint64_t *rows_done,
				  pq_variant_report *vrep, pq_error *err)
{
	*rows_done = 0;
	asm_state st = {.s = s, .leaves = pq_schema_leaf(s, 0), .cur = cursors, .err = err,
			.key = PQ_BUF_INIT, .field = PQ_BUF_INIT, .vrep = vrep,
			.vmeta_bytes = PQ_BUF_INIT};
	const pq_node *root = pq_schema_root(s);
	size_t nleaves = pq_schema_num_leaves(s);
	pq_status rc = PQ_OK;
	while (*rows_done < max_rows && nleaves) {
		size_t mark = out->len;
		bool more = false;
		rc = row_starts(&st, nleaves, &more);
		if (rc != PQ_OK || !more)
			break;
		rc = fmt == PQ_ROWS_CSV ? csv_row(&st, root, out) : json_row(&st, root, out);
		if (rc == PQ_OK && (out->oom || st.key.oom))
			rc = pq_fail(err, PQ_ENOMEM, "no memory for rendered rows");
		if (rc != PQ_OK) {
			out->len = mark;
			break;
		}
		(*rows_done)++;
	}
	pq_buf_free(&st.key);
	pq_buf_free(&st.field);
	pq_buf_free(&st.vmeta_bytes);
	return rc;
}

void pq_rows_header(const pq_schema *s, pq_buf *out)
{
	const pq_node *root = pq_schema_root(s);
	for (uint32_t i = 0; i < root->nchildren; i++) {
		if (i)
			pq_buf_putc(out, ',');
		pq_render_csv_field(root->children[i]->name.p, root->children[i]->name.n, out);
	}
	pq_buf_putc(out, '\n');
}

void pq_render_values_txt(const pq_leaf *leaf, const uint16_t *def, size_t nslots,
			  const pq_values *vals, pq_buf *out)
{
	size_t v = 0, i = 0;
	while (i < nslots) {
		/* A run of slots with values, rendered as one batch. The page
		 * decoder checks levels and counts values by them; should a batch
		 * disagree anyway, a slot without its value shows as NULL. */
		size_t run = i;
		while (run < nslots && (!def || def[run] >= leaf->max_def) && v + (run - i) < vals->n)
			run++;
		if (run > i) {
			pq_render_batch(&leaf->render, vals, v, run - i, PQ_MODE_VALUES, '\n', out, NULL);
			v += run - i;
			i = run;
			continue;
		}
		pq_buf_append(out, "\\N\n", 3);
		i++;
	}
}

/* Appends a level (at most 65535) in decimal. */
static char *put_level(char *o, uint16_t v)
{
	char tmp[5];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*o++ = tmp[--n];
	return o;
}

void pq_render_levels_txt(const uint16_t *rep, const uint16_t *def, size_t nslots, pq_buf *out)
{
	for (size_t i = 0; i < nslots; i++) {
		if (!pq_buf_grow(out, 12))
			return;
		char *o = (char *)out->p + out->len;
		char *start = o;
		o = put_level(o, rep ? rep[i] : 0);
		*o++ = ' ';
		o = put_level(o, def ? def[i] : 0);
		*o++ = '\n';
		out->len += (size_t)(o - start);
	}
}
