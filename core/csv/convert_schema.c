/* Sidecar schemas for CSV conversion (pq_convert_check_schema) and the
 * name helpers the conversion shares: sorting names, messages. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_csv.h"
#include "pq_schema.h"
#define PQ_CSV_INTERNAL
#include "convert_internal.h"

/* A name for messages: control bytes escaped, long names cut. */
void pq_conv_msg_name(pq_bytes n, char *out, size_t len)
{
	char q[PQ_ERROR_MSG_MAX / 2];
	pq_cv_quote(n.p, n.n, q, sizeof q);
	size_t l = strlen(q);
	if (l >= 2) {
		q[l - 1] = '\0';
		snprintf(out, len, "%s", q + 1);
	} else {
		snprintf(out, len, "?");
	}
}

/* ---- schema ------------------------------------------------------------- */

static int cmp_names(const pq_bytes *names, size_t i, size_t j)
{
	const pq_bytes *x = &names[i], *y = &names[j];
	size_t n = x->n < y->n ? x->n : y->n;
	int c = n ? memcmp(x->p, y->p, n) : 0;
	if (c)
		return c;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* A merge sort of positions (qsort has no context argument, and library
 * code keeps no global state). */
size_t *pq_conv_sorted_names(const pq_bytes *names, size_t n)
{
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	if (!idx || !tmp) {
		free(idx);
		free(tmp);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, o = lo;
			while (a < mid && b < hi)
				tmp[o++] = cmp_names(names, idx[a], idx[b]) <= 0 ? idx[a++] : idx[b++];
			while (a < mid)
				tmp[o++] = idx[a++];
			while (b < hi)
				tmp[o++] = idx[b++];
		}
		size_t *s = idx;
		idx = tmp;
		tmp = s;
	}
	free(tmp);
	return idx;
}

bool pq_conv_same(pq_bytes a, pq_bytes b)
{
	return a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, a.n));
}

/* The line of the index-th field declaration (1-based) in schema text: a
 * best effort for messages (the k-th required/optional/repeated word). */
static unsigned decl_line(const char *text, size_t len, uint32_t index)
{
	static const char *const kw[] = {"required", "optional", "repeated"};
	unsigned line = 1;
	uint32_t seen = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n') {
			line++;
			continue;
		}
		if (i > 0 && !strchr(" \t\r\n{};", text[i - 1]))
			continue;
		for (int k = 0; k < 3; k++)
			if (len - i > 8 && !memcmp(text + i, kw[k], 8) &&
			    strchr(" \t\r\n", text[i + 8]) && ++seen == index)
				return line;
	}
	return 0;
}

/* Parses and checks a sidecar: a flat list of REQUIRED / OPTIONAL
 * primitive fields of types a CSV value can become, names unique. */
pq_status pq_conv_load_schema(const char *text, const char *name, pq_arena *arena,
			     pq_schema_element **els, uint32_t *n, pq_error *err)
{
	size_t len = strlen(text);
	pq_status st = pq_schema_parse(text, len, arena, els, n, err);
	if (st != PQ_OK)
		return pq_context(err, "%s", name);
	const pq_schema_element *e = *els;
	const char *why = NULL;
	uint32_t bad = 0;
	for (uint32_t i = 1; i < *n && !why; i++) {
		pq_cv_type t;
		bad = i;
		if (!e[i].has_type)
			why = e[i].logicalType.has_LIST ? "a LIST cannot come from CSV"
			      : e[i].logicalType.has_MAP ? "a MAP cannot come from CSV"
							 : "a nested group cannot come from CSV";
		else if (e[i].repetition_type == PQ_REPEATED)
			why = "a repeated field cannot come from CSV";
		else
			why = pq_cv_type_of(&e[i], &t);
	}
	if (!why) {
		pq_bytes *names = pq_arena_calloc(arena, *n, sizeof *names);
		if (!names)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for the schema", name);
		for (uint32_t i = 0; i < *n; i++)
			names[i] = e[i].name;
		size_t *idx = pq_conv_sorted_names(names + 1, *n - 1);
		if (!idx)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for the schema", name);
		for (size_t k = 1; k + 1 < *n && !why; k++)
			if (pq_conv_same(names[1 + idx[k]], names[1 + idx[k - 1]])) {
				why = "a second field of this name";
				bad = (uint32_t)(1 + (idx[k] > idx[k - 1] ? idx[k] : idx[k - 1]));
			}
		free(idx);
	}
	if (!why)
		return PQ_OK;
	char nm[128];
	pq_conv_msg_name(e[bad].name, nm, sizeof nm);
	unsigned line = decl_line(text, len, bad);
	if (line)
		return pq_fail(err, PQ_EINVAL, "%s: line %u: field '%s': %s", name, line, nm, why);
	return pq_fail(err, PQ_EINVAL, "%s: field '%s': %s", name, nm, why);
}

pq_status pq_convert_check_schema(const char *schema_text, const char *display_name,
				  pq_error *err)
{
	pq_arena arena;
	pq_arena_init(&arena, 64u << 20);
	pq_schema_element *els;
	uint32_t n;
	pq_status st = pq_conv_load_schema(schema_text, display_name ? display_name : "schema", &arena,
				   &els, &n, err);
	pq_arena_free(&arena);
	return st;
}

