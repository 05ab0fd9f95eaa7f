/* The harness of the record assembly tests: hand-built schemas and leaf
 * columns fed to pq_assemble_rows in batches of any size. */
#ifndef TEST_ASSEMBLE_HELPERS_H
#define TEST_ASSEMBLE_HELPERS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/pq_assemble.h"
#include "pq_schema.h"
#include "schema_builder.h"

/* ---- schemas ------------------------------------------------------------ */

/* A BYTE_ARRAY leaf here is a STRING: the rows render as text. */
static inline pq_schema_element *prim_s(els *e, const char *name, int rep, int type)
{
	pq_schema_element *x = prim(e, name, rep, type);
	if (type == PQ_BYTE_ARRAY) {
		x->has_logicalType = x->logicalType.has_STRING = true;
		conv(x, PQ_CT_UTF8);
	}
	return x;
}

static inline pq_schema *build(const els *e)
{
	pq_schema *s = NULL;
	pq_error err = {0};
	ck_assert_msg(pq_schema_build_list(e->v, e->n, &s, &err) == PQ_OK, "%s", err.msg);
	return s;
}

/* ---- columns fed in batches --------------------------------------------- */

#define MAXSLOTS 64
typedef struct col {
	size_t n;                 /* slots */
	uint16_t rep[MAXSLOTS], def[MAXSLOTS];
	bool has_rep, has_def;
	uint16_t max_def;
	int type;                 /* PQ_INT32, PQ_INT64, PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY */
	int64_t ival[MAXSLOTS];   /* values of the defined slots, in order */
	int32_t i32[MAXSLOTS];
	uint8_t fixed[MAXSLOTS * 16]; /* FIXED_LEN_BYTE_ARRAY values, type_length each */
	int32_t type_length;
	pq_bytes sval[MAXSLOTS];
	size_t nvals;
	int extra_values;         /* hostile: values a batch claims beyond the levels */
	size_t batch;             /* slots per batch (0: all in one) */
	size_t fed, vfed;         /* feed position */
	pq_status fail_with;      /* next() fails with this when set */
} col;

/* Slots as "rep:def" pairs with the values of defined slots, e.g.
 * col_ints(c, "0:2 1:2 1:1", (int64_t[]){20, 40}). */
static inline void col_levels(col *c, const char *spec, uint16_t max_def, bool has_rep, bool has_def)
{
	memset(c, 0, sizeof *c);
	c->max_def = max_def;
	c->has_rep = has_rep;
	c->has_def = has_def;
	for (const char *p = spec; *p;) {
		unsigned r, d;
		int used;
		ck_assert(sscanf(p, "%u:%u%n", &r, &d, &used) == 2);
		ck_assert_uint_lt(c->n, MAXSLOTS);
		c->rep[c->n] = (uint16_t)r;
		c->def[c->n] = (uint16_t)d;
		if (d >= max_def)
			c->nvals++;
		c->n++;
		p += used;
		while (*p == ' ')
			p++;
	}
}

static inline void col_ints(col *c, const char *spec, uint16_t max_def, uint16_t max_rep,
		     const int64_t *v)
{
	col_levels(c, spec, max_def, max_rep > 0, max_def > 0);
	c->type = PQ_INT64;
	for (size_t i = 0; i < c->nvals; i++)
		c->ival[i] = v[i];
}

static inline void col_int32s(col *c, const char *spec, uint16_t max_def, uint16_t max_rep,
		       const int32_t *v)
{
	col_levels(c, spec, max_def, max_rep > 0, max_def > 0);
	c->type = PQ_INT32;
	for (size_t i = 0; i < c->nvals; i++)
		c->i32[i] = v[i];
}

static inline void col_strs(col *c, const char *spec, uint16_t max_def, uint16_t max_rep,
		     const char *const *v)
{
	col_levels(c, spec, max_def, max_rep > 0, max_def > 0);
	c->type = PQ_BYTE_ARRAY;
	for (size_t i = 0; i < c->nvals; i++) {
		c->sval[i].p = (const uint8_t *)v[i];
		c->sval[i].n = strlen(v[i]);
	}
}

/* FIXED_LEN_BYTE_ARRAY(len) values, len <= 16, back to back in v. */
static inline void col_fixed(col *c, const char *spec, uint16_t max_def, uint16_t max_rep,
			     int32_t len, const uint8_t *v)
{
	col_levels(c, spec, max_def, max_rep > 0, max_def > 0);
	ck_assert(len >= 1 && len <= 16);
	c->type = PQ_FIXED_LEN_BYTE_ARRAY;
	c->type_length = len;
	memcpy(c->fixed, v, c->nvals * (size_t)len);
}

/* Binary values with explicit lengths (variant bytes hold NULs). */
static inline void col_bins(col *c, const char *spec, uint16_t max_def, uint16_t max_rep,
			    const pq_bytes *v)
{
	col_levels(c, spec, max_def, max_rep > 0, max_def > 0);
	c->type = PQ_BYTE_ARRAY;
	for (size_t i = 0; i < c->nvals; i++)
		c->sval[i] = v[i];
}

static inline pq_status col_next(void *ctx, pq_leaf_cursor *cur, pq_error *err)
{
	col *c = ctx;
	if (c->fail_with)
		return pq_fail(err, c->fail_with, "page 7 is unreadable");
	size_t k = c->batch ? c->batch : c->n;
	if (k > c->n - c->fed)
		k = c->n - c->fed;
	cur->nslots = k;
	cur->rep = c->has_rep ? c->rep + c->fed : NULL;
	cur->def = c->has_def ? c->def + c->fed : NULL;
	size_t nv = 0;
	for (size_t i = 0; i < k; i++)
		nv += !c->has_def || c->def[c->fed + i] >= c->max_def;
	cur->vals.type = c->type;
	cur->vals.n = nv;
	if (nv > 0 || c->extra_values > 0)
		cur->vals.n = (size_t)((long)nv + c->extra_values);
	if (c->type == PQ_INT64)
		cur->vals.v.i64 = c->ival + c->vfed;
	else if (c->type == PQ_INT32)
		cur->vals.v.i32 = c->i32 + c->vfed;
	else if (c->type == PQ_FIXED_LEN_BYTE_ARRAY) {
		cur->vals.type_length = c->type_length;
		cur->vals.v.fixed = c->fixed + c->vfed * (size_t)c->type_length;
	} else
		cur->vals.v.ba = c->sval + c->vfed;
	c->fed += k;
	c->vfed += nv;
	return PQ_OK;
}

static inline void cursors_for(col *cols, size_t n, size_t batch, pq_leaf_cursor *cur)
{
	for (size_t i = 0; i < n; i++) {
		cols[i].fed = cols[i].vfed = 0;
		cols[i].batch = batch;
		memset(&cur[i], 0, sizeof cur[i]);
		cur[i].next = col_next;
		cur[i].ctx = &cols[i];
	}
}

/* Renders all rows (max_rows at a time) and compares with want. */
static inline void expect_rows(const pq_schema *s, col *cols, size_t batch, uint64_t step,
			pq_row_format fmt, const char *want, uint64_t want_rows)
{
	size_t n = pq_schema_num_leaves(s);
	pq_leaf_cursor cur[16];
	ck_assert_uint_le(n, 16);
	cursors_for(cols, n, batch, cur);
	pq_buf out = PQ_BUF_INIT;
	uint64_t total = 0, got;
	pq_error err = {0};
	do {
		pq_status st = pq_assemble_rows(s, cur, step, fmt, &out, &got, &err);
		ck_assert_msg(st == PQ_OK, "batch %zu: %s", batch, err.msg);
		ck_assert_uint_le(got, step);
		total += got;
	} while (got == step);
	ck_assert_uint_eq(total, want_rows);
	pq_buf_putc(&out, '\0');
	ck_assert_msg(strcmp((const char *)out.p, want) == 0, "batch %zu step %llu:\n%s\nwant:\n%s",
		      batch, (unsigned long long)step, (const char *)out.p, want);
	if (pq_schema_is_flat(s)) {
		/* The flat fast path must give the same rows. */
		pq_flat_rows *f;
		ck_assert_int_eq(pq_flat_rows_new(s, fmt, &f, &err), PQ_OK);
		cursors_for(cols, n, batch, cur);
		out.len = 0;
		total = 0;
		do {
			pq_status st = pq_flat_rows_next(f, cur, step, &out, &got, &err);
			ck_assert_msg(st == PQ_OK, "flat, batch %zu: %s", batch, err.msg);
			total += got;
		} while (got == step);
		ck_assert_uint_eq(total, want_rows);
		pq_buf_putc(&out, '\0');
		ck_assert_msg(strcmp((const char *)out.p, want) == 0,
			      "flat, batch %zu step %llu:\n%s\nwant:\n%s", batch,
			      (unsigned long long)step, (const char *)out.p, want);
		pq_flat_rows_free(f);
	}
	pq_buf_free(&out);
}

/* Every batch size and several row steps give the same text. */
static inline void expect_all(const pq_schema *s, col *cols, pq_row_format fmt, const char *want,
		       uint64_t want_rows)
{
	for (size_t batch = 0; batch <= 5; batch++)
		for (uint64_t step = 1; step <= 3; step += 2)
			expect_rows(s, cols, batch, step, fmt, want, want_rows);
	expect_rows(s, cols, 0, 1000, fmt, want, want_rows);
}

static inline pq_status run_fail(const pq_schema *s, col *cols, size_t batch, pq_error *err,
			  uint64_t *rows, pq_buf *out)
{
	pq_leaf_cursor cur[16];
	cursors_for(cols, pq_schema_num_leaves(s), batch, cur);
	return pq_assemble_rows(s, cur, 100, PQ_ROWS_JSONL, out, rows, err);
}

#endif
