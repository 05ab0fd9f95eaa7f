/* Schema tree, levels, assembly kinds, names, schema.txt print and parse. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/pq_assemble.h"
#include "pq_schema.h"
#include "schema_builder.h"
#include "test_files.h"

/* ---- hand-built element lists ------------------------------------------ */

static pq_schema_element *as_list(pq_schema_element *x)
{
	x->has_logicalType = true;
	x->logicalType.has_LIST = true;
	return conv(x, PQ_CT_LIST);
}

static pq_schema_element *as_map(pq_schema_element *x)
{
	x->has_logicalType = true;
	x->logicalType.has_MAP = true;
	return conv(x, PQ_CT_MAP);
}

static pq_schema_element *as_string(pq_schema_element *x)
{
	x->has_logicalType = true;
	x->logicalType.has_STRING = true;
	return conv(x, PQ_CT_UTF8);
}

static pq_schema *build(const els *e)
{
	pq_schema *s = NULL;
	pq_error err = {0};
	pq_status st = pq_schema_build_list(e->v, e->n, &s, &err);
	ck_assert_msg(st == PQ_OK, "build failed: %s", err.msg);
	return s;
}

static pq_status build_fail(const els *e, pq_error *err)
{
	pq_schema *s = NULL;
	pq_status st = pq_schema_build_list(e->v, e->n, &s, err);
	ck_assert_ptr_null(s);
	return st;
}

/* The node named by a dotted path below the root (names without dots). */
static const pq_node *node_at(const pq_schema *s, const char *path)
{
	const pq_node *n = pq_schema_root(s);
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *save = NULL, *tok = strtok_r(buf, ".", &save); tok;
	     tok = strtok_r(NULL, ".", &save)) {
		const pq_node *next = NULL;
		for (uint32_t i = 0; i < n->nchildren; i++)
			if (strcmp((const char *)n->children[i]->name.p, tok) == 0)
				next = n->children[i];
		ck_assert_msg(next, "no node %s", path);
		n = next;
	}
	return n;
}

/* The Dremel paper's Document schema. */
static void document(els *e)
{
	grp(e, "Document", -1, 3);
	prim(e, "DocId", PQ_REQUIRED, PQ_INT64);
	grp(e, "Links", PQ_OPTIONAL, 2);
	prim(e, "Backward", PQ_REPEATED, PQ_INT64);
	prim(e, "Forward", PQ_REPEATED, PQ_INT64);
	grp(e, "Name", PQ_REPEATED, 2);
	grp(e, "Language", PQ_REPEATED, 2);
	as_string(prim(e, "Code", PQ_REQUIRED, PQ_BYTE_ARRAY));
	as_string(prim(e, "Country", PQ_OPTIONAL, PQ_BYTE_ARRAY));
	as_string(prim(e, "Url", PQ_OPTIONAL, PQ_BYTE_ARRAY));
}

START_TEST(test_document_levels)
{
	els e = {.n = 0};
	document(&e);
	pq_schema *s = build(&e);
	ck_assert_uint_eq(pq_schema_num_leaves(s), 6);
	ck_assert_uint_eq(pq_schema_num_nodes(s), 10);
	/* Levels as in the paper (Figure 3). */
	static const struct {
		const char *path;
		unsigned rep, def;
	} want[] = {{"DocId", 0, 0},	     {"Links.Backward", 1, 2},	      {"Links.Forward", 1, 2},
		    {"Name.Language.Code", 2, 2}, {"Name.Language.Country", 2, 3}, {"Name.Url", 1, 2}};
	for (size_t i = 0; i < 6; i++) {
		const pq_leaf *lf = pq_schema_leaf(s, i);
		ck_assert_str_eq(lf->path, want[i].path);
		ck_assert_str_eq(lf->dir, want[i].path);
		ck_assert_uint_eq(lf->max_rep, want[i].rep);
		ck_assert_uint_eq(lf->max_def, want[i].def);
		ck_assert_uint_eq(lf->index, i);
		ck_assert_ptr_eq(lf->node, node_at(s, want[i].path));
	}
	ck_assert_ptr_null(pq_schema_leaf(s, 6));
	const pq_leaf *code = pq_schema_leaf(s, 3);
	ck_assert_uint_eq(code->ncomponents, 3);
	ck_assert_int_eq(code->components[1].n, 8);
	ck_assert_int_eq(memcmp(code->components[1].p, "Language", 8), 0);
	ck_assert_int_eq(code->render.kind, PQ_R_STRING);
	ck_assert_int_eq(pq_schema_leaf(s, 0)->render.kind, PQ_R_INT);
	/* Kinds: unannotated repeated fields are arrays of their values. */
	ck_assert_int_eq(node_at(s, "Links")->kind, PQ_AK_STRUCT);
	ck_assert_int_eq(node_at(s, "Links.Backward")->kind, PQ_AK_REPEATED);
	ck_assert_int_eq(node_at(s, "Links.Backward")->value_kind, PQ_AK_PRIMITIVE);
	ck_assert_int_eq(node_at(s, "Name")->kind, PQ_AK_REPEATED);
	ck_assert_int_eq(node_at(s, "Name")->value_kind, PQ_AK_STRUCT);
	ck_assert_int_eq(node_at(s, "Name.Language")->kind, PQ_AK_REPEATED);
	ck_assert_int_eq(node_at(s, "DocId")->kind, PQ_AK_PRIMITIVE);
	const pq_node *links = node_at(s, "Links");
	ck_assert_uint_eq(links->first_leaf, 1);
	ck_assert_uint_eq(links->nleaves, 2);
	ck_assert_uint_eq(node_at(s, "Name")->first_leaf, 3);
	ck_assert_uint_eq(node_at(s, "Name")->nleaves, 3);
	ck_assert_str_eq((const char *)links->json_key.p, "\"Links\":");
	ck_assert_ptr_eq(pq_schema_leaf_by_dir(s, "Name.Url"), pq_schema_leaf(s, 5));
	ck_assert_ptr_null(pq_schema_leaf_by_dir(s, "Name"));
	pq_schema_free(s);
}
END_TEST

/* LogicalTypes.md LIST examples: standard 3-level and the five
 * backward-compatibility rules. */
START_TEST(test_list_rules)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 7);
	/* standard */
	as_list(grp(&e, "std", PQ_OPTIONAL, 1));
	grp(&e, "list", PQ_REPEATED, 1);
	as_string(prim(&e, "element", PQ_OPTIONAL, PQ_BYTE_ARRAY));
	/* rule 1 */
	as_list(grp(&e, "r1", PQ_OPTIONAL, 1));
	prim(&e, "element", PQ_REPEATED, PQ_INT32);
	/* rule 2 */
	as_list(grp(&e, "r2", PQ_OPTIONAL, 1));
	grp(&e, "element", PQ_REPEATED, 2);
	as_string(prim(&e, "str", PQ_REQUIRED, PQ_BYTE_ARRAY));
	prim(&e, "num", PQ_REQUIRED, PQ_INT32);
	/* rule 3: List<List<Integer>> */
	as_list(grp(&e, "r3", PQ_OPTIONAL, 1));
	as_list(grp(&e, "array", PQ_REPEATED, 1));
	prim(&e, "array", PQ_REPEATED, PQ_INT32);
	/* rule 4: named array */
	as_list(grp(&e, "r4", PQ_OPTIONAL, 1));
	grp(&e, "array", PQ_REPEATED, 1);
	as_string(prim(&e, "str", PQ_REQUIRED, PQ_BYTE_ARRAY));
	/* rule 4: <name>_tuple */
	as_list(grp(&e, "my_list", PQ_OPTIONAL, 1));
	grp(&e, "my_list_tuple", PQ_REPEATED, 1);
	as_string(prim(&e, "str", PQ_REQUIRED, PQ_BYTE_ARRAY));
	/* rule 5 */
	as_list(grp(&e, "r5", PQ_OPTIONAL, 1));
	grp(&e, "element", PQ_REPEATED, 1);
	as_string(prim(&e, "str", PQ_OPTIONAL, PQ_BYTE_ARRAY));
	pq_schema *s = build(&e);

	const pq_node *n = node_at(s, "std");
	ck_assert_int_eq(n->kind, PQ_AK_LIST);
	ck_assert_ptr_eq(n->list_rep, node_at(s, "std.list"));
	ck_assert_ptr_eq(n->element, node_at(s, "std.list.element"));
	ck_assert_int_eq(n->list_rep->kind, PQ_AK_STRUCT); /* taken over: not REPEATED */
	ck_assert_uint_eq(n->element->max_def, 3);
	ck_assert_uint_eq(n->element->max_rep, 1);

	n = node_at(s, "r1");
	ck_assert_ptr_eq(n->element, n->list_rep);
	ck_assert_int_eq(n->list_rep->kind, PQ_AK_PRIMITIVE);
	n = node_at(s, "r2");
	ck_assert_ptr_eq(n->element, node_at(s, "r2.element"));
	ck_assert_int_eq(n->element->value_kind, PQ_AK_STRUCT);
	n = node_at(s, "r3");
	ck_assert_ptr_eq(n->element, node_at(s, "r3.array"));
	ck_assert_int_eq(n->element->kind, PQ_AK_LIST); /* itself a 2-level list */
	ck_assert_ptr_eq(n->element->element, node_at(s, "r3.array.array"));
	n = node_at(s, "r4");
	ck_assert_ptr_eq(n->element, node_at(s, "r4.array"));
	n = node_at(s, "my_list");
	ck_assert_ptr_eq(n->element, node_at(s, "my_list.my_list_tuple"));
	n = node_at(s, "r5");
	ck_assert_ptr_eq(n->element, node_at(s, "r5.element.str"));
	pq_schema_free(s);
}
END_TEST

START_TEST(test_map_rules)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 5);
	/* standard */
	as_map(grp(&e, "std", PQ_REQUIRED, 1));
	grp(&e, "key_value", PQ_REPEATED, 2);
	as_string(prim(&e, "key", PQ_REQUIRED, PQ_BYTE_ARRAY));
	prim(&e, "value", PQ_OPTIONAL, PQ_INT32);
	/* no value column */
	as_map(grp(&e, "keys", PQ_OPTIONAL, 1));
	grp(&e, "key_value", PQ_REPEATED, 1);
	prim(&e, "key", PQ_REQUIRED, PQ_INT32);
	/* legacy: MAP_KEY_VALUE in place of MAP */
	conv(grp(&e, "legacy", PQ_OPTIONAL, 1), PQ_CT_MAP_KEY_VALUE);
	grp(&e, "map", PQ_REPEATED, 2);
	prim(&e, "key", PQ_REQUIRED, PQ_INT32);
	prim(&e, "value", PQ_OPTIONAL, PQ_INT32);
	/* MAP around a MAP_KEY_VALUE layer (old parquet-mr) */
	as_map(grp(&e, "mkv", PQ_OPTIONAL, 1));
	conv(grp(&e, "map", PQ_REPEATED, 2), PQ_CT_MAP_KEY_VALUE);
	prim(&e, "key", PQ_REQUIRED, PQ_INT32);
	prim(&e, "value", PQ_REQUIRED, PQ_INT32);
	/* malformed: the layer is not repeated -> a plain struct */
	as_map(grp(&e, "bad", PQ_OPTIONAL, 1));
	grp(&e, "key_value", PQ_OPTIONAL, 1);
	prim(&e, "key", PQ_REQUIRED, PQ_INT32);
	pq_schema *s = build(&e);

	const pq_node *n = node_at(s, "std");
	ck_assert_int_eq(n->kind, PQ_AK_MAP);
	ck_assert_ptr_eq(n->map_rep, node_at(s, "std.key_value"));
	ck_assert_ptr_eq(n->key, node_at(s, "std.key_value.key"));
	ck_assert_ptr_eq(n->value, node_at(s, "std.key_value.value"));
	n = node_at(s, "keys");
	ck_assert_int_eq(n->kind, PQ_AK_MAP);
	ck_assert_ptr_null(n->value);
	n = node_at(s, "legacy");
	ck_assert_int_eq(n->kind, PQ_AK_MAP);
	ck_assert_ptr_eq(n->value, node_at(s, "legacy.map.value"));
	n = node_at(s, "mkv");
	ck_assert_int_eq(n->kind, PQ_AK_MAP);
	ck_assert_ptr_eq(n->map_rep, node_at(s, "mkv.map"));
	ck_assert_int_eq(n->map_rep->kind, PQ_AK_STRUCT);
	n = node_at(s, "bad");
	ck_assert_int_eq(n->kind, PQ_AK_STRUCT);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_bounds)
{
	pq_error err = {0};
	els e = {.n = 0};
	/* num_children beyond the list */
	grp(&e, "m", -1, 3);
	prim(&e, "a", PQ_REQUIRED, PQ_INT32);
	prim(&e, "b", PQ_REQUIRED, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "num_children 3 but only 2"));
	/* ... deeper down */
	e.n = 0;
	grp(&e, "m", -1, 1);
	grp(&e, "g", PQ_OPTIONAL, 2);
	prim(&e, "a", PQ_REQUIRED, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	/* negative */
	e.n = 0;
	grp(&e, "m", -1, -1);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	/* elements left over after the root's tree */
	e.n = 0;
	grp(&e, "m", -1, 1);
	prim(&e, "a", PQ_REQUIRED, PQ_INT32);
	prim(&e, "b", PQ_REQUIRED, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "3 elements"));
	/* root must be a group */
	e.n = 0;
	prim(&e, "m", -1, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	/* a name is required */
	e.n = 0;
	grp(&e, "m", -1, 1);
	prim(&e, "a", PQ_REQUIRED, PQ_INT32)->name.p = NULL;
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	/* unknown repetition, unknown type, FLBA without length, type + children */
	e.n = 0;
	grp(&e, "m", -1, 1);
	prim(&e, "a", 7, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	e.n = 0;
	grp(&e, "m", -1, 1);
	prim(&e, "a", PQ_REQUIRED, 8);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	e.n = 0;
	grp(&e, "m", -1, 1);
	prim(&e, "a", PQ_REQUIRED, PQ_FIXED_LEN_BYTE_ARRAY);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	e.n = 0;
	grp(&e, "m", -1, 1);
	pq_schema_element *x = prim(&e, "a", PQ_REQUIRED, PQ_INT32);
	x->has_num_children = true;
	x->num_children = 1;
	prim(&e, "b", PQ_REQUIRED, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	/* long names repeated in every leaf path: bounded in total */
	e.n = 0;
	size_t big = 1u << 20;
	char *name = malloc(big + 1);
	memset(name, 'n', big);
	name[big] = 0;
	grp(&e, "m", -1, 1);
	grp(&e, name, PQ_OPTIONAL, 65);
	for (int i = 0; i < 65; i++)
		prim(&e, "x", PQ_OPTIONAL, PQ_INT32);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "column paths exceed"));
	e.n = 0;
	grp(&e, "m", -1, 1);
	grp(&e, name, PQ_OPTIONAL, 60); /* 60 MiB of paths: accepted */
	for (int i = 0; i < 60; i++)
		prim(&e, "x", PQ_OPTIONAL, PQ_INT32);
	pq_schema *ok = build(&e);
	ck_assert_uint_eq(pq_schema_leaf(ok, 59)->path_len, big + 2);
	pq_schema_free(ok);
	free(name);
	/* empty list, too many elements */
	e.n = 0;
	ck_assert_int_eq(build_fail(&e, &err), PQ_ECORRUPT);
	pq_schema *s = NULL;
	ck_assert_int_eq(pq_schema_build_list(e.v, PQ_SCHEMA_MAX_ELEMENTS + 1, &s, &err),
			 PQ_ELIMIT);
	ck_assert_ptr_null(s);
}
END_TEST

/* A chain of groups: depth PQ_SCHEMA_MAX_DEPTH is accepted, one more is not. */
static void chain(els *e, int depth)
{
	e->n = 0;
	grp(e, "m", -1, 1);
	for (int i = 1; i < depth; i++)
		grp(e, "g", PQ_OPTIONAL, 1);
	prim(e, "leaf", PQ_OPTIONAL, PQ_INT32);
}

START_TEST(test_depth_bound)
{
	static els e;
	pq_error err = {0};
	chain(&e, PQ_SCHEMA_MAX_DEPTH);
	pq_schema *s = build(&e);
	ck_assert_uint_eq(pq_schema_leaf(s, 0)->max_def, PQ_SCHEMA_MAX_DEPTH);
	ck_assert_uint_eq(pq_schema_leaf(s, 0)->ncomponents, PQ_SCHEMA_MAX_DEPTH);
	pq_schema_free(s);
	chain(&e, PQ_SCHEMA_MAX_DEPTH + 1);
	ck_assert_int_eq(build_fail(&e, &err), PQ_ELIMIT);
	ck_assert_ptr_nonnull(strstr(err.msg, "deeper than 128"));
}
END_TEST

START_TEST(test_names_escape)
{
	pq_buf b = PQ_BUF_INIT;
	pq_name_escape((const uint8_t *)"a.b/c%d\x01\x1f z\x7f", 12, &b);
	ck_assert_uint_eq(b.len, strlen("a%2Eb%2Fc%25d%01%1F z\x7f"));
	ck_assert_int_eq(memcmp(b.p, "a%2Eb%2Fc%25d%01%1F z\x7f", b.len), 0);
	pq_buf_free(&b);

	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	grp(&e, "a.b", PQ_OPTIONAL, 1);
	grp(&e, "c/d", PQ_OPTIONAL, 1);
	grp(&e, "e%f", PQ_OPTIONAL, 1);
	prim(&e, "g\nh", PQ_OPTIONAL, PQ_INT32);
	pq_schema *s = build(&e);
	const pq_leaf *lf = pq_schema_leaf(s, 0);
	ck_assert_str_eq(lf->dir, "a%2Eb.c%2Fd.e%25f.g%0Ah");
	ck_assert_str_eq(lf->path, "a.b.c/d.e%f.g\nh");
	ck_assert_uint_eq(lf->path_len, strlen(lf->path));
	ck_assert_ptr_eq(pq_schema_leaf_by_dir(s, "a%2Eb.c%2Fd.e%25f.g%0Ah"), lf);
	pq_schema_free(s);

	/* A NUL byte inside a name: kept in path (with path_len), escaped in dir. */
	e.n = 0;
	grp(&e, "m", -1, 1);
	pq_schema_element *x = prim(&e, "x", PQ_OPTIONAL, PQ_INT32);
	x->name.p = (const uint8_t *)"a\0b";
	x->name.n = 3;
	s = build(&e);
	lf = pq_schema_leaf(s, 0);
	ck_assert_str_eq(lf->dir, "a%00b");
	ck_assert_uint_eq(lf->path_len, 3);
	ck_assert_int_eq(memcmp(lf->path, "a\0b", 4), 0);
	pq_schema_free(s);
}
END_TEST

/* ---- schema.txt ------------------------------------------------------ */

/* interface.md "Schema syntax", verbatim. */
static const char example_text[] =
	"message schema {\n"
	"  required int64 id;\n"
	"  optional binary name (STRING);\n"
	"  optional fixed_len_byte_array(16) uid (UUID);\n"
	"  optional int32 price (DECIMAL(9,2));\n"
	"  optional int64 ts (TIMESTAMP(MICROS,true));\n"
	"  optional group tags (LIST) {\n"
	"    repeated group list {\n"
	"      optional binary element (STRING);\n"
	"    }\n"
	"  }\n"
	"}\n";

static void print_to(const pq_schema *s, pq_buf *b)
{
	b->len = 0;
	pq_schema_print(s, b);
	pq_buf_putc(b, '\0');
	ck_assert(!b->oom);
}

START_TEST(test_print_example)
{
	els e = {.n = 0};
	grp(&e, "schema", -1, 6);
	prim(&e, "id", PQ_REQUIRED, PQ_INT64);
	as_string(prim(&e, "name", PQ_OPTIONAL, PQ_BYTE_ARRAY));
	pq_schema_element *x = prim(&e, "uid", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
	x->has_type_length = true;
	x->type_length = 16;
	x->has_logicalType = true;
	x->logicalType.has_UUID = true;
	/* legacy-only decimal: converted type with scale and precision */
	x = conv(prim(&e, "price", PQ_OPTIONAL, PQ_INT32), PQ_CT_DECIMAL);
	x->has_scale = x->has_precision = true;
	x->scale = 2;
	x->precision = 9;
	x = prim(&e, "ts", PQ_OPTIONAL, PQ_INT64);
	x->has_logicalType = true;
	x->logicalType.has_TIMESTAMP = true;
	x->logicalType.TIMESTAMP.isAdjustedToUTC = true;
	x->logicalType.TIMESTAMP.unit.has_MICROS = true;
	as_list(grp(&e, "tags", PQ_OPTIONAL, 1));
	grp(&e, "list", PQ_REPEATED, 1);
	as_string(prim(&e, "element", PQ_OPTIONAL, PQ_BYTE_ARRAY));
	pq_schema *s = build(&e);
	pq_buf b = PQ_BUF_INIT;
	print_to(s, &b);
	ck_assert_str_eq((const char *)b.p, example_text);
	pq_buf_free(&b);
	pq_schema_free(s);
}
END_TEST

static void ann_is(const pq_schema_element *x, const char *want)
{
	pq_buf b = PQ_BUF_INIT;
	bool got = pq_schema_annotation(x, &b);
	pq_buf_putc(&b, '\0');
	if (!want) {
		ck_assert_msg(!got, "unexpected annotation %s", b.p);
		ck_assert_uint_eq(b.len, 1);
	} else {
		ck_assert_msg(got, "no annotation, want %s", want);
		ck_assert_str_eq((const char *)b.p, want);
	}
	pq_buf_free(&b);
}

/* parquet-java: LogicalTypeAnnotation.toString(), and the converted type
 * winning when the logical type does not map to it. */
START_TEST(test_annotations)
{
	pq_schema_element x;
	memset(&x, 0, sizeof x);
	ann_is(&x, NULL);
	conv(&x, PQ_CT_UTF8);
	ann_is(&x, "STRING");
	conv(&x, PQ_CT_TIMESTAMP_MILLIS);
	ann_is(&x, "TIMESTAMP(MILLIS,true)");
	conv(&x, PQ_CT_TIME_MICROS);
	ann_is(&x, "TIME(MICROS,true)");
	conv(&x, PQ_CT_UINT_16);
	ann_is(&x, "INTEGER(16,false)");
	conv(&x, PQ_CT_INT_64);
	ann_is(&x, "INTEGER(64,true)");
	conv(&x, PQ_CT_MAP_KEY_VALUE);
	ann_is(&x, "MAP_KEY_VALUE");
	conv(&x, PQ_CT_INTERVAL);
	ann_is(&x, "INTERVAL");
	conv(&x, PQ_CT_DECIMAL);
	ann_is(&x, "DECIMAL(0,0)");
	x.has_precision = x.has_scale = true;
	x.precision = 38;
	x.scale = 10;
	ann_is(&x, "DECIMAL(38,10)");
	conv(&x, 99);
	ann_is(&x, NULL);

	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.has_TIMESTAMP = true;
	x.logicalType.TIMESTAMP.unit.has_MILLIS = true;
	ann_is(&x, "TIMESTAMP(MILLIS,false)");
	conv(&x, PQ_CT_TIMESTAMP_MILLIS); /* same original type: logical kept */
	ann_is(&x, "TIMESTAMP(MILLIS,false)");
	conv(&x, PQ_CT_TIMESTAMP_MICROS); /* mismatch: the converted type wins */
	ann_is(&x, "TIMESTAMP(MICROS,true)");
	x.has_converted_type = false;
	x.logicalType.TIMESTAMP.unit.has_MILLIS = false;
	x.logicalType.TIMESTAMP.unit.has_NANOS = true;
	ann_is(&x, "TIMESTAMP(NANOS,false)");
	x.logicalType.TIMESTAMP.unit.has_NANOS = false;
	ann_is(&x, NULL); /* no unit */

	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.has_INTEGER = true;
	x.logicalType.INTEGER.bitWidth = 8;
	ann_is(&x, "INTEGER(8,false)");
	x.logicalType.INTEGER.isSigned = true;
	conv(&x, PQ_CT_INT_8);
	ann_is(&x, "INTEGER(8,true)");

	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.has_DECIMAL = true;
	x.logicalType.DECIMAL.precision = 9;
	x.logicalType.DECIMAL.scale = 2;
	conv(&x, PQ_CT_DECIMAL);
	x.has_scale = x.has_precision = true; /* logical's parameters are shown */
	x.scale = 1;
	x.precision = 5;
	ann_is(&x, "DECIMAL(9,2)");

	static const struct {
		size_t off;
		const char *s;
	} simple[] = {
		{offsetof(pq_logical_type, has_STRING), "STRING"},
		{offsetof(pq_logical_type, has_MAP), "MAP"},
		{offsetof(pq_logical_type, has_LIST), "LIST"},
		{offsetof(pq_logical_type, has_ENUM), "ENUM"},
		{offsetof(pq_logical_type, has_DATE), "DATE"},
		{offsetof(pq_logical_type, has_UNKNOWN), "UNKNOWN"},
		{offsetof(pq_logical_type, has_JSON), "JSON"},
		{offsetof(pq_logical_type, has_BSON), "BSON"},
		{offsetof(pq_logical_type, has_UUID), "UUID"},
		{offsetof(pq_logical_type, has_FLOAT16), "FLOAT16"},
		{offsetof(pq_logical_type, has_GEOMETRY), "GEOMETRY"},
		{offsetof(pq_logical_type, has_GEOGRAPHY), "GEOGRAPHY"},
	};
	for (size_t i = 0; i < sizeof simple / sizeof *simple; i++) {
		memset(&x, 0, sizeof x);
		x.has_logicalType = true;
		*(bool *)((char *)&x.logicalType + simple[i].off) = true;
		ann_is(&x, simple[i].s);
	}
	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.has_UUID = true;
	conv(&x, PQ_CT_UTF8); /* UUID has no converted type: UTF8 wins */
	ann_is(&x, "STRING");
	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.unknown_member = 2555; /* unknown-logical-type.parquet */
	ann_is(&x, NULL);
	conv(&x, PQ_CT_UTF8);
	ann_is(&x, "STRING");
	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.has_VARIANT = true;
	x.logicalType.VARIANT.has_specification_version = true;
	x.logicalType.VARIANT.specification_version = 1;
	ann_is(&x, "VARIANT(1)");
	memset(&x, 0, sizeof x);
	x.has_logicalType = true;
	x.logicalType.has_GEOGRAPHY = true;
	x.logicalType.GEOGRAPHY.has_crs = true;
	x.logicalType.GEOGRAPHY.crs.p = (const uint8_t *)"OGC:CRS84";
	x.logicalType.GEOGRAPHY.crs.n = 9;
	x.logicalType.GEOGRAPHY.has_algorithm = true;
	x.logicalType.GEOGRAPHY.algorithm = 2;
	ann_is(&x, "GEOGRAPHY(OGC:CRS84,THOMAS)");
}
END_TEST

/* Parses text, builds, prints; returns the printed text (caller frees). */
static char *reprint(const char *text, size_t len)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_schema_element *v = NULL;
	uint32_t n = 0;
	pq_error err = {0};
	pq_status st = pq_schema_parse(text, len, &a, &v, &n, &err);
	ck_assert_msg(st == PQ_OK, "parse failed: %s\n%.*s", err.msg, (int)len, text);
	pq_schema *s = NULL;
	st = pq_schema_build_list(v, n, &s, &err);
	ck_assert_msg(st == PQ_OK, "build failed: %s", err.msg);
	pq_buf b = PQ_BUF_INIT;
	print_to(s, &b);
	pq_schema_free(s);
	pq_arena_free(&a);
	return (char *)b.p;
}

START_TEST(test_parse_roundtrip)
{
	char *t = reprint(example_text, strlen(example_text));
	ck_assert_str_eq(t, example_text);
	free(t);
	/* Every annotation form, ids, names with spaces, nested groups. */
	static const char all[] =
		"message m {\n"
		"  required boolean b = 1;\n"
		"  optional int32 i8 (INTEGER(8,true)) = 2;\n"
		"  optional int32 u16 (INTEGER(16,false));\n"
		"  optional int64 u64 (INTEGER(64,false));\n"
		"  optional int32 d (DATE);\n"
		"  optional int32 t1 (TIME(MILLIS,true));\n"
		"  optional int64 t2 (TIME(NANOS,false));\n"
		"  optional int64 ts (TIMESTAMP(NANOS,true));\n"
		"  optional int64 ts2 (TIMESTAMP(MILLIS,false));\n"
		"  optional int96 old;\n"
		"  optional float f;\n"
		"  optional double g = -7;\n"
		"  optional binary e (ENUM);\n"
		"  optional binary j (JSON);\n"
		"  optional binary bs (BSON);\n"
		"  optional binary column with spaces (STRING);\n"
		"  optional binary dec (DECIMAL(40,3));\n"
		"  optional fixed_len_byte_array(2) h (FLOAT16);\n"
		"  optional fixed_len_byte_array(12) iv (INTERVAL);\n"
		"  optional fixed_len_byte_array(16) fd (DECIMAL(38,0));\n"
		"  optional int64 d18 (DECIMAL(18,18));\n"
		"  optional int32 n (UNKNOWN);\n"
		"  optional binary geo (GEOMETRY);\n"
		"  optional binary geo2 (GEOMETRY(OGC:CRS84));\n"
		"  optional binary geog (GEOGRAPHY(srid:4326,KARNEY));\n"
		"  required group mp (MAP) = 9 {\n"
		"    repeated group key_value (MAP_KEY_VALUE) {\n"
		"      required binary key (STRING);\n"
		"      optional group value {\n"
		"        repeated int32 x;\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"  optional group v (VARIANT(1)) {\n"
		"    required binary metadata;\n"
		"    required binary value;\n"
		"  }\n"
		"  optional group empty {\n"
		"  }\n"
		"}\n";
	t = reprint(all, strlen(all));
	ck_assert_str_eq(t, all);
	free(t);
	/* Legacy converted names, other spacing, case, optional ';' after '}'. */
	static const char legacy[] =
		"MESSAGE  spark_schema{ OPTIONAL BINARY s(UTF8);optional int64 t (TIMESTAMP_MILLIS);\n"
		"optional int32 u (uint_8); optional int32 dd (DECIMAL(9,2)) ;\n"
		"optional group l (LIST) { repeated group list { optional int32 element; } };\n"
		"}";
	static const char legacy_out[] =
		"message spark_schema {\n"
		"  optional binary s (STRING);\n"
		"  optional int64 t (TIMESTAMP(MILLIS,true));\n"
		"  optional int32 u (INTEGER(8,false));\n"
		"  optional int32 dd (DECIMAL(9,2));\n"
		"  optional group l (LIST) {\n"
		"    repeated group list {\n"
		"      optional int32 element;\n"
		"    }\n"
		"  }\n"
		"}\n";
	t = reprint(legacy, strlen(legacy));
	ck_assert_str_eq(t, legacy_out);
	free(t);
}
END_TEST

/* The elements a parse yields are what a writer stores. */
START_TEST(test_parse_elements)
{
	static const char text[] = "message m {\n"
				   "  optional int64 ts (TIMESTAMP(MICROS,false));\n"
				   "  required fixed_len_byte_array(16) d (DECIMAL(30,4)) = 12;\n"
				   "  optional int32 t (TIME(MILLIS,true));\n"
				   "}\n";
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_schema_element *v;
	uint32_t n;
	pq_error err = {0};
	ck_assert_int_eq(pq_schema_parse(text, strlen(text), &a, &v, &n, &err), PQ_OK);
	ck_assert_uint_eq(n, 4);
	ck_assert(v[0].has_num_children && v[0].num_children == 3);
	ck_assert(!v[0].has_repetition_type && !v[0].has_type);
	ck_assert_int_eq(v[0].name.n, 1);
	/* non-UTC timestamp: no converted type */
	ck_assert(v[1].has_logicalType && v[1].logicalType.has_TIMESTAMP);
	ck_assert(v[1].logicalType.TIMESTAMP.unit.has_MICROS);
	ck_assert(!v[1].logicalType.TIMESTAMP.isAdjustedToUTC);
	ck_assert(!v[1].has_converted_type);
	ck_assert(v[1].has_repetition_type && v[1].repetition_type == PQ_OPTIONAL);
	ck_assert_int_eq(v[2].type, PQ_FIXED_LEN_BYTE_ARRAY);
	ck_assert(v[2].has_type_length && v[2].type_length == 16);
	ck_assert(v[2].has_converted_type && v[2].converted_type == PQ_CT_DECIMAL);
	ck_assert(v[2].has_scale && v[2].scale == 4 && v[2].has_precision && v[2].precision == 30);
	ck_assert(v[2].logicalType.has_DECIMAL && v[2].logicalType.DECIMAL.scale == 4);
	ck_assert(v[2].has_field_id && v[2].field_id == 12);
	ck_assert(v[3].has_converted_type && v[3].converted_type == PQ_CT_TIME_MILLIS);
	pq_arena_free(&a);
}
END_TEST

static void parse_err(const char *text, pq_status want, const char *msg_part)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_schema_element *v;
	uint32_t n;
	pq_error err = {0};
	pq_status st = pq_schema_parse(text, strlen(text), &a, &v, &n, &err);
	ck_assert_msg(st == want, "status %d for: %s (%s)", st, text, err.msg);
	ck_assert_msg(strstr(err.msg, msg_part), "message '%s' lacks '%s'", err.msg, msg_part);
	ck_assert_ptr_null(v);
	pq_arena_free(&a);
}

START_TEST(test_parse_errors)
{
	parse_err("", PQ_EINVAL, "line 1, column 1: expected 'message'");
	parse_err("message m {\n  optional int32 a\n}", PQ_EINVAL,
		  "line 3, column 1: expected ';'");
	parse_err("message m {\n  optional int32 a (STRING);\n}", PQ_EINVAL,
		  "line 2, column 3: field 'a': this annotation needs binary");
	parse_err("message m { optional binary a (FOO); }", PQ_EINVAL, "unknown annotation 'FOO'");
	parse_err("message m { maybe int32 a; }", PQ_EINVAL, "required, optional or repeated");
	parse_err("message m { optional int33 a; }", PQ_EINVAL, "not 'int33'");
	parse_err("message m { optional int32 a (DECIMAL(10,2)); }", PQ_EINVAL,
		  "precision exceeds");
	parse_err("message m { optional int32 a (DECIMAL(5,6)); }", PQ_EINVAL,
		  "scale exceeds");
	parse_err("message m { optional fixed_len_byte_array(4) a (DECIMAL(10,2)); }", PQ_EINVAL,
		  "precision exceeds");
	parse_err("message m { optional fixed_len_byte_array(15) a (UUID); }", PQ_EINVAL,
		  "UUID needs");
	parse_err("message m { optional fixed_len_byte_array(0) a; }", PQ_EINVAL, "out of range");
	parse_err("message m { optional int32 a (INTEGER(12,true)); }", PQ_EINVAL, "bit width");
	parse_err("message m { optional int32 a (INTEGER(64,true)); }", PQ_EINVAL, "INTEGER(64)");
	parse_err("message m { optional int64 a (TIMESTAMP(SECONDS,true)); }", PQ_EINVAL,
		  "MILLIS, MICROS or NANOS");
	parse_err("message m { optional int32 a (TIME(MICROS,true)); }", PQ_EINVAL, "needs int64");
	parse_err("message m { optional int32 a (DATE(1)); }", PQ_EINVAL, "takes no parameters");
	parse_err("message m { optional group g (STRING) { } }", PQ_EINVAL, "primitive");
	parse_err("message m { optional int32 a (LIST); }", PQ_EINVAL, "needs a group");
	parse_err("message m { optional int32 a = 99999999999; }", PQ_EINVAL, "field id");
	parse_err("message m { optional int32 a; } x", PQ_EINVAL, "unexpected text");
	parse_err("message m { optional int32 a;", PQ_EINVAL, "to close the message");
	parse_err("message m { optional int32 ; }", PQ_EINVAL, "expected a name");
	/* Depth bound. */
	size_t cap = 20 * (PQ_SCHEMA_MAX_DEPTH + 2) + 64, len = 0;
	char *deep = malloc(cap);
	len += (size_t)snprintf(deep + len, cap - len, "message m {");
	for (int i = 0; i < PQ_SCHEMA_MAX_DEPTH + 1; i++)
		len += (size_t)snprintf(deep + len, cap - len, " optional group g {");
	parse_err(deep, PQ_ELIMIT, "deeper than 128");
	free(deep);
}
END_TEST

/* ---- the files of parquet-testing ------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len)
{
	return (uint8_t *)test_read_file(path, len);
}

/* Finds `"key": ` after *pos (before end) and returns where its value starts. */
static const char *json_field(const char *pos, const char *end, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(pos, pat);
	return p && p < end ? p + strlen(pat) : NULL;
}

/* Compares the leaves with facts.json "columns" (dir, kind, levels) and the
 * CSV header with the first line of the expected data.csv. */
static void check_facts(const char *file, const pq_schema *s)
{
	char path[1024];
	size_t len;
	snprintf(path, sizeof path, "%s/expected/data/%s/facts.json", TESTDATA_DIR, file);
	char *facts = (char *)slurp(path, &len);
	if (!facts)
		return;
	const char *p = strstr(facts, "\"columns\": [");
	ck_assert_ptr_nonnull(p);
	const char *end = strstr(p, "\n ]");
	ck_assert_ptr_nonnull(end);
	size_t i = 0;
	for (;; i++) {
		const char *d = json_field(p, end, "dir");
		if (!d)
			break;
		const pq_leaf *lf = pq_schema_leaf(s, i);
		ck_assert_msg(lf, "%s: more columns in facts than leaves", file);
		size_t dl = strlen(lf->dir);
		ck_assert_msg(d[0] == '"' && strncmp(d + 1, lf->dir, dl) == 0 && d[dl + 1] == '"',
			      "%s: column %zu dir %s, facts %.40s", file, i, lf->dir, d);
		const char *k = json_field(d, end, "kind");
		const char *kn = pq_render_kind_name(lf->render.kind);
		ck_assert_msg(k && strncmp(k + 1, kn, strlen(kn)) == 0 && k[strlen(kn) + 1] == '"',
			      "%s: column %s kind %s, facts %.12s", file, lf->dir, kn, k);
		const char *md = json_field(d, end, "max_def"), *mr = json_field(d, end, "max_rep");
		ck_assert(md && mr);
		ck_assert_msg(atoi(md) == lf->max_def && atoi(mr) == lf->max_rep,
			      "%s: column %s levels %u/%u, facts %d/%d", file, lf->dir, lf->max_def,
			      lf->max_rep, atoi(md), atoi(mr));
		p = mr;
	}
	ck_assert_uint_eq(i, pq_schema_num_leaves(s));
	free(facts);

	snprintf(path, sizeof path, "%s/expected/data/%s/data.csv", TESTDATA_DIR, file);
	char *csv = (char *)slurp(path, &len);
	if (!csv)
		return;
	char *nl = strchr(csv, '\n');
	ck_assert_ptr_nonnull(nl);
	pq_buf b = PQ_BUF_INIT;
	pq_rows_header(s, &b);
	ck_assert_msg(b.len == (size_t)(nl - csv + 1) && memcmp(b.p, csv, b.len) == 0,
		      "%s: header %.*s", file, (int)b.len, (const char *)b.p);
	pq_buf_free(&b);
	free(csv);
}

START_TEST(test_files)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/parquet-testing/data", TESTDATA_DIR);
	DIR *d = opendir(dir);
	if (!d) {
		/* A fresh clone has no ../shared: the unit cases still run. */
		printf("SKIP test_files: test data not found at %s\n", dir);
		return;
	}
	int checked = 0;
	for (struct dirent *de; (de = readdir(d));) {
		const char *nm = de->d_name;
		if (!strstr(nm, ".parquet"))
			continue;
		char path[2048];
		snprintf(path, sizeof path, "%s/%s", dir, nm);
		size_t len;
		uint8_t *buf = slurp(path, &len);
		ck_assert_ptr_nonnull(buf);
		/* Plaintext footers only (PARE files need keys). */
		if (len < 12 || memcmp(buf + len - 4, "PAR1", 4) != 0) {
			free(buf);
			continue;
		}
		uint32_t flen = (uint32_t)buf[len - 8] | (uint32_t)buf[len - 7] << 8 |
				(uint32_t)buf[len - 6] << 16 | (uint32_t)buf[len - 5] << 24;
		ck_assert_msg(flen <= len - 8, "%s: footer length", nm);
		pq_arena a;
		pq_arena_init(&a, 0);
		pq_file_meta_data md;
		memset(&md, 0, sizeof md);
		size_t used;
		pq_error err = {0};
		pq_status st = pq_thrift_decode(PQ_S_FILE_META_DATA, buf + len - 8 - flen, flen, &md,
						&used, &a, &err);
		ck_assert_msg(st == PQ_OK, "%s: footer: %s", nm, err.msg);
		pq_schema *s = NULL;
		st = pq_schema_build(&md, &s, &err);
		ck_assert_msg(st == PQ_OK, "%s: schema: %s", nm, err.msg);
		pq_buf b = PQ_BUF_INIT;
		print_to(s, &b);
		char *again = reprint((const char *)b.p, b.len - 1);
		ck_assert_msg(strcmp(again, (const char *)b.p) == 0, "%s: round trip\n%s\n---\n%s", nm,
			      (const char *)b.p, again);
		free(again);
		check_facts(nm, s);
		pq_buf_free(&b);
		pq_schema_free(s);
		pq_arena_free(&a);
		free(buf);
		checked++;
	}
	closedir(d);
	ck_assert_int_gt(checked, 50);
}
END_TEST

static Suite *schema_suite(void)
{
	Suite *s = suite_create("schema");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_document_levels);
	tcase_add_test(tc, test_list_rules);
	tcase_add_test(tc, test_map_rules);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_depth_bound);
	tcase_add_test(tc, test_names_escape);
	tcase_add_test(tc, test_print_example);
	tcase_add_test(tc, test_annotations);
	tcase_add_test(tc, test_parse_roundtrip);
	tcase_add_test(tc, test_parse_elements);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_files);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(schema_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
