/* JSON rendering of the pq_metadata.h structs, driven by the descriptor
 * tables: pretty-printed for `cat` (metadata.json, header.json). Values
 * only the caller can type (statistics, page-index bounds) go through a
 * hook that also learns which row group and column they belong to. */
#include "config.h"

#define PQ_FORMAT_INTERNAL
#include "metadata_internal.h"
#include "pq_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Strings ---------------------------------------------------------- */

/* Text and the binary rule are value rendering's (core/render_text.c). */
static void json_binary_default(const pq_json_binary_info *info, pq_bytes value, pq_buf *out)
{
	const uint8_t *p = value.p ? value.p : (const uint8_t *)"";
	if (info && info->is_string)
		pq_render_json_string(p, value.n, out);
	else
		pq_render_binary(p, value.n, PQ_MODE_JSON, out);
}

/* ---- Values ----------------------------------------------------------- */

typedef struct jw {
	pq_buf *out;
	const pq_json_hooks *hooks;
	int64_t row_group, column;
	const pq_column_meta_data *column_meta;
} jw;

static void newline(jw *j, int level)
{
	pq_buf_putc(j->out, '\n');
	for (int i = 0; i < level; i++)
		pq_buf_puts(j->out, "  ");
}

/* Shortest %g form that reads back to the same double. */
static void put_double(pq_buf *out, double v)
{
	if (isnan(v)) {
		pq_buf_puts(out, "\"NaN\"");
		return;
	}
	if (isinf(v)) {
		pq_buf_puts(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
		return;
	}
	char tmp[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	pq_buf_puts(out, tmp);
}

static void put_enum(pq_buf *out, const pq_enum_desc *en, int32_t v)
{
	const char *name = en && v >= 0 && v < en->count ? en->names[v] : NULL;
	if (name)
		pq_buf_printf(out, "\"%s\"", name);
	else
		pq_buf_printf(out, "%d", v);
}

static void put_struct(jw *j, const pq_sdesc *s, const char *base, int level);

static void put_binary(jw *j, const pq_sdesc *s, const pq_fdesc *f, const char *base,
		       int64_t index, pq_bytes b)
{
	pq_json_binary_info info = {
		.role = (pq_json_binary_role)f->role,
		.struct_name = s->name,
		.field_name = f->name,
		.field_id = f->id,
		.is_string = (f->kind == PQ_FK_STRING) ||
			     (f->kind == PQ_FK_LIST && f->elem == PQ_FK_STRING),
		.index = index,
		.parent = base,
		.row_group = j->row_group,
		.column = j->column,
		.column_meta = j->column_meta,
	};
	if (j->hooks && j->hooks->binary && j->hooks->binary(j->hooks->ctx, &info, b, j->out))
		return;
	json_binary_default(&info, b, j->out);
}

/* One scalar of a kind at p (a field value or a list element). */
static void put_scalar(jw *j, const pq_sdesc *s, const pq_fdesc *f, uint8_t kind,
		       const char *base, const char *p, int64_t index)
{
	pq_buf *out = j->out;
	switch (kind) {
	case PQ_FK_BOOL: pq_buf_puts(out, *(const bool *)p ? "true" : "false"); break;
	case PQ_FK_I8: pq_buf_printf(out, "%d", *(const int8_t *)p); break;
	case PQ_FK_I16: pq_buf_printf(out, "%d", *(const int16_t *)p); break;
	case PQ_FK_I32: pq_buf_printf(out, "%d", *(const int32_t *)p); break;
	case PQ_FK_I64: pq_buf_printf(out, "%lld", (long long)*(const int64_t *)p); break;
	case PQ_FK_DOUBLE: put_double(out, *(const double *)p); break;
	case PQ_FK_ENUM: put_enum(out, f->en, *(const int32_t *)p); break;
	case PQ_FK_BINARY:
	case PQ_FK_STRING: put_binary(j, s, f, base, index, *(const pq_bytes *)p); break;
	default: pq_buf_puts(out, "null"); break;
	}
}

static void put_list(jw *j, const pq_sdesc *s, const pq_fdesc *f, const char *base, int level)
{
	uint32_t n;
	const char *v;
	memcpy(&n, base + f->off, sizeof n);
	memcpy(&v, base + f->voff, sizeof v);
	if (!v)
		n = 0;
	pq_buf_putc(j->out, '[');
	if (f->elem != PQ_FK_STRUCT) {
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				pq_buf_puts(j->out, ", ");
			put_scalar(j, s, f, f->elem, base, v + (size_t)i * f->elem_size, i);
		}
		pq_buf_putc(j->out, ']');
		return;
	}
	jw saved = *j;
	for (uint32_t i = 0; i < n; i++) {
		if (f->sub == &pq_desc_row_group)
			j->row_group = i;
		else if (f->sub == &pq_desc_column_chunk)
			j->column = i;
		if (i)
			pq_buf_putc(j->out, ',');
		newline(j, level + 1);
		put_struct(j, f->sub, v + (size_t)i * f->elem_size, level + 1);
	}
	j->row_group = saved.row_group;
	j->column = saved.column;
	if (n)
		newline(j, level);
	pq_buf_putc(j->out, ']');
}

static bool present(const pq_fdesc *f, const char *base)
{
	return f->has < 0 || *(const bool *)(base + f->has);
}

static int16_t unknown_member(const pq_sdesc *s, const char *base)
{
	if (s->unknown_member < 0)
		return 0;
	int16_t id;
	memcpy(&id, base + s->unknown_member, sizeof id);
	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].id == id)
			return 0;
	return id;
}

static void put_struct(jw *j, const pq_sdesc *s, const char *base, int level)
{
	const pq_column_meta_data *saved_meta = j->column_meta;
	if (s == &pq_desc_column_meta_data)
		j->column_meta = (const pq_column_meta_data *)(const void *)base;
	bool first = true;
	pq_buf_putc(j->out, '{');
	for (size_t i = 0; i < s->nfields; i++) {
		const pq_fdesc *f = &s->fields[i];
		if (!present(f, base))
			continue;
		if (!first)
			pq_buf_putc(j->out, ',');
		first = false;
		newline(j, level + 1);
		pq_buf_printf(j->out, "\"%s\": ", f->name);
		if (f->kind == PQ_FK_STRUCT)
			put_struct(j, f->sub, base + f->off, level + 1);
		else if (f->kind == PQ_FK_LIST)
			put_list(j, s, f, base, level + 1);
		else
			put_scalar(j, s, f, f->kind, base, base + f->off, -1);
	}
	int16_t unknown = unknown_member(s, base);
	if (unknown) {
		if (!first)
			pq_buf_putc(j->out, ',');
		first = false;
		newline(j, level + 1);
		pq_buf_printf(j->out, "\"unknown_member\": %d", unknown);
	}
	if (!first)
		newline(j, level);
	pq_buf_putc(j->out, '}');
	j->column_meta = saved_meta;
}

void pq_metadata_json(pq_struct_kind kind, const void *in, const pq_json_hooks *hooks,
		      pq_buf *out)
{
	const pq_sdesc *s = pq_meta_desc(kind);
	if (!s || !in) {
		pq_buf_puts(out, "null\n");
		return;
	}
	jw j = {.out = out, .hooks = hooks, .row_group = -1, .column = -1, .column_meta = NULL};
	put_struct(&j, s, in, 0);
	pq_buf_putc(out, '\n');
}
