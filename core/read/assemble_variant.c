/* A VARIANT group's value during record assembly: `metadata` and `value`
 * decoded (render/render_variant.c), shredded `typed_value` columns merged
 * back as VariantShredding.md's "Reconstructing a Shredded Variant" says,
 * rendered as JSON per interface.md "Variant as JSON".
 *
 * The walk takes every slot of every leaf below the variant exactly as the
 * levels say, whatever it finds in the bytes: a value that cannot be
 * decoded, or one that breaks the shredding rules, is only noted while
 * walking; at the end the variant's JSON is replaced by the hex of its
 * `value` bytes. Structural level errors stay PQ_ECORRUPT like anywhere
 * else in assembly. */
#include "config.h"

#include <string.h>

#define PQ_READ_INTERNAL
#include "assemble_internal.h"
#include "pq_render.h"

typedef struct shred {
	asm_state *st;
	pq_variant_meta meta;
	bool meta_ok;
	pq_variant_diag diag;
} shred;

static void bad(shred *c, const char *why)
{
	if (!c->diag.error)
		c->diag.error = why;
}

static void note(shred *c, const char *why)
{
	if (!c->diag.note)
		c->diag.note = why;
}

/* Takes the slot of binary leaf node n; *present and *b (a view valid until
 * the leaf's next slot is taken) when its value is there. */
static pq_status take_bytes(shred *c, const pq_node *n, uint16_t re, uint16_t dk, pq_bytes *b,
			    bool *present)
{
	asm_state *st = c->st;
	uint32_t li = (uint32_t)n->leaf;
	uint16_t d;
	PQ_TRY(pq_asm_take(st, li, re, dk, &d));
	*present = d >= n->max_def;
	b->p = NULL;
	b->n = 0;
	if (!*present)
		return PQ_OK;
	pq_leaf_cursor *cur = &st->cur[li];
	if (cur->vpos >= cur->vals.n || cur->vals.type != PQ_BYTE_ARRAY)
		return pq_asm_corrupt(st, li, "the levels define more values than the batch holds (%zu)",
				      cur->vals.n);
	*b = cur->vals.v.ba[cur->vpos++];
	return PQ_OK;
}

/* A DECIMAL(p, s) as the table's decimal4 (INT32), decimal8 (INT64) or
 * decimal16 (BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY): the precision the
 * Variant decimal of that width holds, a scale within it. */
static bool decimal_fits(int32_t physical, int32_t precision, int32_t scale)
{
	int32_t max = physical == PQ_INT32 ? 9 : physical == PQ_INT64 ? 18
		      : physical == PQ_BYTE_ARRAY || physical == PQ_FIXED_LEN_BYTE_ARRAY ? 38 : 0;
	return precision >= 1 && precision <= max && scale >= 0 && scale <= precision;
}

/* Whether a typed_value leaf's type is one of VariantShredding.md's
 * "Shredded Value Types" table: its physical type and the one annotation
 * it carries (the logical type when there is one, else the converted
 * type), exactly. Decided on the element, not on the render type, which
 * cannot tell a STRING from an ENUM or a binary from a BSON and drops an
 * annotation that does not fit its physical type (INT(8) on INT64,
 * STRING on INT32) instead of refusing it. */
static bool shreddable(const pq_leaf *lf)
{
	const pq_schema_element *e = &lf->node->el;
	int32_t ph = lf->physical;
	const pq_logical_type *l = &e->logicalType;
	int n = e->has_logicalType
			? l->has_STRING + l->has_MAP + l->has_LIST + l->has_ENUM + l->has_DECIMAL +
				  l->has_DATE + l->has_TIME + l->has_TIMESTAMP + l->has_INTEGER +
				  l->has_UNKNOWN + l->has_JSON + l->has_BSON + l->has_UUID +
				  l->has_FLOAT16 + l->has_VARIANT + l->has_GEOMETRY + l->has_GEOGRAPHY +
				  (l->unknown_member != 0)
			: 0;
	if (n) { /* (an empty LogicalType says nothing: the converted type decides) */
		if (n != 1 || l->unknown_member)
			return false; /* several, or one this build does not know */
		if (l->has_STRING)
			return ph == PQ_BYTE_ARRAY;
		if (l->has_DECIMAL)
			return decimal_fits(ph, l->DECIMAL.precision, l->DECIMAL.scale);
		if (l->has_DATE)
			return ph == PQ_INT32;
		if (l->has_TIME)
			return ph == PQ_INT64 && !l->TIME.isAdjustedToUTC && l->TIME.unit.has_MICROS &&
			       !l->TIME.unit.has_MILLIS && !l->TIME.unit.has_NANOS;
		if (l->has_TIMESTAMP) {
			const pq_time_unit_u *u = &l->TIMESTAMP.unit;
			return ph == PQ_INT64 && !u->has_MILLIS && u->has_MICROS + u->has_NANOS == 1;
		}
		if (l->has_INTEGER) {
			int8_t w = l->INTEGER.bitWidth;
			return l->INTEGER.isSigned &&
			       ((ph == PQ_INT32 && (w == 8 || w == 16 || w == 32)) ||
				(ph == PQ_INT64 && w == 64));
		}
		if (l->has_UUID)
			return ph == PQ_FIXED_LEN_BYTE_ARRAY && lf->type_length == 16;
		return false; /* ENUM, JSON, BSON, FLOAT16, INTERVAL, geometry, ... */
	}
	if (e->has_converted_type) {
		switch (e->converted_type) {
		case PQ_CT_UTF8:
			return ph == PQ_BYTE_ARRAY;
		case PQ_CT_DECIMAL:
			return e->has_precision && decimal_fits(ph, e->precision,
								 e->has_scale ? e->scale : 0);
		case PQ_CT_DATE:
			return ph == PQ_INT32;
		case PQ_CT_TIMESTAMP_MICROS: /* UTC: timestamptz(6) */
			return ph == PQ_INT64;
		case PQ_CT_INT_8:
		case PQ_CT_INT_16:
		case PQ_CT_INT_32:
			return ph == PQ_INT32;
		case PQ_CT_INT_64:
			return ph == PQ_INT64;
		default: /* TIME_MICROS is UTC; UINT_*, ENUM, JSON, BSON, INTERVAL, MILLIS */
			return false;
		}
	}
	return ph == PQ_BOOLEAN || ph == PQ_INT32 || ph == PQ_INT64 || ph == PQ_FLOAT ||
	       ph == PQ_DOUBLE || ph == PQ_BYTE_ARRAY;
}

static pq_status put_value_bytes(shred *c, pq_bytes v, pq_buf *out)
{
	if (!c->meta_ok)
		return PQ_OK; /* the variant is bad already: its hex replaces all */
	pq_render_variant(&c->meta, v.p, v.n, out, &c->diag);
	return PQ_OK;
}

/* A present typed_value leaf t (its parent present at level dk). */
static pq_status typed_leaf(shred *c, const pq_node *t, uint16_t re, uint16_t dk, pq_buf *out)
{
	asm_state *st = c->st;
	uint32_t li = (uint32_t)t->leaf;
	const pq_leaf *lf = &st->leaves[li];
	if (!shreddable(lf)) {
		bad(c, "a typed_value of a type the shredding table does not allow");
		pq_buf tmp = PQ_BUF_INIT; /* rare: taken and dropped */
		pq_status rc = pq_asm_render_field(st, t, re, dk, &tmp);
		pq_buf_free(&tmp);
		return rc;
	}
	if (lf->render.kind != PQ_R_BINARY)
		return pq_asm_render_field(st, t, re, dk, out);
	/* binary: always `0x` + hex, whatever the bytes (the text rule of
	 * other binary columns does not apply inside a variant) */
	pq_bytes b;
	bool present;
	PQ_TRY(take_bytes(c, t, re, dk, &b, &present));
	if (present)
		pq_render_hex(b.p, b.n, PQ_MODE_JSON, out);
	else
		pq_buf_puts(out, "null");
	return PQ_OK;
}

static pq_status group(shred *c, const pq_node *g, uint16_t re, uint16_t dk, pq_buf *out,
		       bool *missing, pq_bytes *value_out);

/* A present shredded array: typed_value t is a LIST of element groups. */
static pq_status typed_array(shred *c, const pq_node *t, uint16_t re, pq_buf *out)
{
	asm_state *st = c->st;
	const pq_node *r = t->list_rep, *e = t->element;
	uint32_t li = r->first_leaf;
	uint16_t d;
	PQ_TRY(pq_asm_peek_def(st, li, &d));
	if (d < r->max_def) {
		PQ_TRY(pq_asm_skip(st, r, re, t->max_def, r->max_def));
		pq_buf_puts(out, "[]");
		return PQ_OK;
	}
	pq_buf_putc(out, '[');
	for (uint16_t ri = re;; ri = r->max_rep) {
		bool missing;
		size_t mark = out->len;
		PQ_TRY(group(c, e, ri, r->max_def, out, &missing, NULL));
		if (missing) { /* an element must be present: null stands in */
			out->len = mark;
			pq_buf_puts(out, "null");
		}
		bool have;
		PQ_TRY(pq_asm_have_slot(st, li, &have));
		if (!have)
			break;
		uint16_t next = pq_asm_rep_at(&st->cur[li]);
		if (next < r->max_rep)
			break;
		if (next > r->max_rep)
			return pq_asm_corrupt(st, li, "repetition level %u after a whole element of %s (level %u)",
					      next, (const char *)r->name.p, r->max_rep);
		pq_buf_putc(out, ',');
	}
	pq_buf_putc(out, ']');
	return PQ_OK;
}

static void put_key(pq_buf *out, bool *first, const uint8_t *k, size_t n)
{
	if (!*first)
		pq_buf_putc(out, ',');
	*first = false;
	pq_render_json_string(k, n, out);
	pq_buf_putc(out, ':');
}

/* A present shredded object: typed_value t's field groups merged with the
 * fields of value v (when present), in key order. */
static pq_status typed_object(shred *c, const pq_node *t, pq_bytes v, bool have_v, uint16_t re,
			      pq_buf *out)
{
	pq_variant_object o = {0};
	uint32_t nv = 0;
	if (have_v && c->meta_ok) {
		int isobj = pq_variant_object_open(v.p, v.n, &o, &c->diag);
		if (isobj == 0)
			bad(c, "a value that is not an object beside shredded fields");
		if (isobj == 1)
			nv = o.count;
	}
	pq_buf_putc(out, '{');
	bool first = true;
	uint32_t ti = 0, vi = 0;
	pq_bytes key = {NULL, 0}, fv;
	bool have_key = false;
	while (ti < t->nv_fields || vi < nv) {
		if (vi < nv && !have_key) {
			if (!pq_variant_object_field(&c->meta, &o, vi, &key, &fv, &c->diag)) {
				nv = vi; /* bad already: stop reading value's fields */
				continue;
			}
			have_key = true;
		}
		const pq_node *tf = ti < t->nv_fields ? t->v_fields[ti] : NULL;
		int cmp = !tf ? 1 : !have_key ? -1
				  : pq_variant_key_cmp(tf->name.p, tf->name.n, key.p, key.n);
		if (cmp <= 0) {
			size_t mark = out->len;
			bool was_first = first, missing;
			put_key(out, &first, tf->name.p, tf->name.n);
			PQ_TRY(group(c, tf, re, t->max_def, out, &missing, NULL));
			ti++;
			if (missing) {
				out->len = mark;
				first = was_first;
			}
			if (cmp == 0) {
				note(c, "a shredded field is also present in value");
				if (missing) { /* the shredded field is missing: value's reading */
					put_key(out, &first, key.p, key.n);
					PQ_TRY(put_value_bytes(c, fv, out));
				}
				vi++;
				have_key = false;
			}
			continue;
		}
		put_key(out, &first, key.p, key.n);
		PQ_TRY(put_value_bytes(c, fv, out));
		vi++;
		have_key = false;
	}
	pq_buf_putc(out, '}');
	return PQ_OK;
}

/* The value of shredded group g (a variant, an object field, an array
 * element; its parent present at level dk): *missing when it is absent
 * (g null, or `value` and `typed_value` both null); value_out (may be NULL)
 * gets g's `value` bytes. */
static pq_status group(shred *c, const pq_node *g, uint16_t re, uint16_t dk, pq_buf *out,
		       bool *missing, pq_bytes *value_out)
{
	asm_state *st = c->st;
	*missing = false;
	/* (the variant itself is known present: its metadata is taken) */
	if (g->repetition == PQ_OPTIONAL && !g->v_metadata && g->nleaves) {
		uint16_t d;
		PQ_TRY(pq_asm_peek_def(st, g->first_leaf, &d));
		if (d < g->max_def) {
			*missing = true;
			return pq_asm_skip(st, g, re, dk, g->max_def);
		}
	}
	dk = g->max_def;
	const pq_node *vn = g->v_value, *t = g->v_typed;
	pq_bytes v = {NULL, 0};
	bool have_v = false, have_t = false;
	if (vn)
		PQ_TRY(take_bytes(c, vn, re, dk, &v, &have_v));
	if (value_out)
		*value_out = v;
	if (t) {
		have_t = t->repetition == PQ_REQUIRED;
		if (!have_t && t->nleaves) {
			uint16_t d;
			PQ_TRY(pq_asm_peek_def(st, t->first_leaf, &d));
			have_t = d >= t->max_def;
		}
	}
	if (!have_t) {
		if (t && t->nleaves)
			PQ_TRY(pq_asm_skip(st, t, re, dk, t->max_def));
		if (!have_v) {
			*missing = true;
			return PQ_OK;
		}
		return put_value_bytes(c, v, out);
	}
	if (t->leaf >= 0) {
		if (have_v)
			bad(c, "a value that is not an object has both value and typed_value");
		return typed_leaf(c, t, re, dk, out);
	}
	if (t->value_kind == PQ_AK_LIST) {
		if (have_v)
			bad(c, "an array has both value and typed_value");
		return typed_array(c, t, re, out);
	}
	return typed_object(c, t, v, have_v, re, out);
}

static void report(asm_state *st, const pq_node *n, const pq_variant_diag *d)
{
	pq_variant_report *r = st->vrep;
	if (!r)
		return;
	if (d->error) {
		if (!r->errors++) {
			r->first_error = d->error;
			r->error_node = n;
		}
	} else if (d->note) {
		if (!r->notes++) {
			r->first_note = d->note;
			r->note_node = n;
		}
	}
}

/* Parses metadata m into c, reusing the last parse when the bytes are the
 * same (the parse is kept on a copy of them, so it never points into a
 * page that is gone). */
static void parse_meta(shred *c, pq_bytes m)
{
	asm_state *st = c->st;
	pq_buf *kb = &st->vmeta_bytes;
	if (!(st->vmeta_valid && kb->len == m.n && (m.n == 0 || memcmp(kb->p, m.p, m.n) == 0))) {
		st->vmeta_valid = false;
		kb->len = 0;
		pq_buf_append(kb, m.p, m.n);
		if (kb->oom) { /* no cache: parse in place */
			c->meta_ok = pq_variant_meta_parse(m.p, m.n, &c->meta, &c->diag);
			return;
		}
		memset(&st->vmeta_diag, 0, sizeof st->vmeta_diag);
		st->vmeta_ok = pq_variant_meta_parse(kb->p, kb->len, &st->vmeta, &st->vmeta_diag);
		st->vmeta_valid = true;
	}
	c->meta = st->vmeta;
	c->meta_ok = st->vmeta_ok;
	c->diag = st->vmeta_diag;
}

pq_status pq_asm_variant(asm_state *st, const pq_node *n, uint16_t re, pq_buf *out)
{
	shred c = {.st = st};
	size_t mark = out->len;
	pq_bytes meta, value = {NULL, 0};
	bool have_meta, missing;
	PQ_TRY(take_bytes(&c, n->v_metadata, re, n->max_def, &meta, &have_meta));
	if (!have_meta)
		bad(&c, "variant metadata is null");
	else
		parse_meta(&c, meta);
	/* n is present: only its value and typed_value may be missing */
	PQ_TRY(group(&c, n, re, n->max_def, out, &missing, &value));
	if (c.diag.error) {
		out->len = mark;
		pq_render_hex(value.p, value.n, PQ_MODE_JSON, out);
	} else if (missing) {
		out->len = mark;
		pq_buf_puts(out, "null");
	}
	report(st, n, &c.diag);
	return PQ_OK;
}
