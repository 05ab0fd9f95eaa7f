/* Record assembly: hand-made level streams -> CSV / JSONL rows, with batch
 * boundaries anywhere, and hostile levels. Expected rows are written by
 * hand from the Dremel paper and the LIST/MAP rules of LogicalTypes.md. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_assemble_helpers.h"

/* ---- the Dremel paper's Document example ------------------------------- */

static pq_schema *document_schema(void)
{
	els e = {.n = 0};
	grp(&e, "Document", -1, 3);
	prim_s(&e, "DocId", PQ_REQUIRED, PQ_INT64);
	grp(&e, "Links", PQ_OPTIONAL, 2);
	prim_s(&e, "Backward", PQ_REPEATED, PQ_INT64);
	prim_s(&e, "Forward", PQ_REPEATED, PQ_INT64);
	grp(&e, "Name", PQ_REPEATED, 2);
	grp(&e, "Language", PQ_REPEATED, 2);
	prim_s(&e, "Code", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim_s(&e, "Country", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	prim_s(&e, "Url", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	return build(&e);
}

/* Column stripes of records r1 and r2 (the paper, Figure 3). */
static void document_cols(col *c)
{
	col_ints(&c[0], "0:0 0:0", 0, 0, (int64_t[]){10, 20});
	col_ints(&c[1], "0:1 0:2 1:2", 2, 1, (int64_t[]){10, 30});
	col_ints(&c[2], "0:2 1:2 1:2 0:2", 2, 1, (int64_t[]){20, 40, 60, 80});
	col_strs(&c[3], "0:2 2:2 1:1 1:2 0:1", 2, 2,
		 (const char *const[]){"en-us", "en", "en-gb"});
	col_strs(&c[4], "0:3 2:2 1:1 1:3 0:1", 3, 2, (const char *const[]){"us", "gb"});
	col_strs(&c[5], "0:2 1:2 1:1 0:2", 2, 1,
		 (const char *const[]){"http://A", "http://B", "http://C"});
}

static const char document_jsonl[] =
	"{\"DocId\":10,\"Links\":{\"Backward\":[],\"Forward\":[20,40,60]},\"Name\":["
	"{\"Language\":[{\"Code\":\"en-us\",\"Country\":\"us\"},{\"Code\":\"en\",\"Country\":null}],"
	"\"Url\":\"http://A\"},"
	"{\"Language\":[],\"Url\":\"http://B\"},"
	"{\"Language\":[{\"Code\":\"en-gb\",\"Country\":\"gb\"}],\"Url\":null}]}\n"
	"{\"DocId\":20,\"Links\":{\"Backward\":[10,30],\"Forward\":[80]},\"Name\":["
	"{\"Language\":[],\"Url\":\"http://C\"}]}\n";

START_TEST(test_document_jsonl)
{
	pq_schema *s = document_schema();
	col c[6];
	document_cols(c);
	expect_all(s, c, PQ_ROWS_JSONL, document_jsonl, 2);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_document_csv)
{
	pq_schema *s = document_schema();
	col c[6];
	document_cols(c);
	pq_buf h = PQ_BUF_INIT;
	pq_rows_header(s, &h);
	ck_assert_uint_eq(h.len, strlen("DocId,Links,Name\n"));
	ck_assert_int_eq(memcmp(h.p, "DocId,Links,Name\n", h.len), 0);
	pq_buf_free(&h);
	static const char want[] =
		"10,\"{\"\"Backward\"\":[],\"\"Forward\"\":[20,40,60]}\",\"[{\"\"Language\"\":["
		"{\"\"Code\"\":\"\"en-us\"\",\"\"Country\"\":\"\"us\"\"},{\"\"Code\"\":\"\"en\"\","
		"\"\"Country\"\":null}],\"\"Url\"\":\"\"http://A\"\"},{\"\"Language\"\":[],"
		"\"\"Url\"\":\"\"http://B\"\"},{\"\"Language\"\":[{\"\"Code\"\":\"\"en-gb\"\","
		"\"\"Country\"\":\"\"gb\"\"}],\"\"Url\"\":null}]\"\n"
		"20,\"{\"\"Backward\"\":[10,30],\"\"Forward\"\":[80]}\",\"[{\"\"Language\"\":[],"
		"\"\"Url\"\":\"\"http://C\"\"}]\"\n";
	expect_all(s, c, PQ_ROWS_CSV, want, 2);
	pq_schema_free(s);
}
END_TEST

/* ---- LIST --------------------------------------------------------------- */

START_TEST(test_list_cases)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 2);
	prim_s(&e, "id", PQ_REQUIRED, PQ_INT32);
	conv(grp(&e, "l", PQ_OPTIONAL, 1), PQ_CT_LIST);
	grp(&e, "list", PQ_REPEATED, 1);
	prim_s(&e, "element", PQ_OPTIONAL, PQ_INT32);
	pq_schema *s = build(&e);
	col c[2];
	col_int32s(&c[0], "0:0 0:0 0:0 0:0 0:0", 0, 0, (int32_t[]){1, 2, 3, 4, 5});
	/* [1,2,3]  []  null  [null]  [4,null] */
	col_int32s(&c[1], "0:3 1:3 1:3 0:1 0:0 0:2 0:3 1:2", 3, 1, (int32_t[]){1, 2, 3, 4});
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"id\":1,\"l\":[1,2,3]}\n{\"id\":2,\"l\":[]}\n{\"id\":3,\"l\":null}\n"
		   "{\"id\":4,\"l\":[null]}\n{\"id\":5,\"l\":[4,null]}\n",
		   5);
	expect_all(s, c, PQ_ROWS_CSV, "1,\"[1,2,3]\"\n2,[]\n3,\n4,[null]\n5,\"[4,null]\"\n", 5);
	pq_schema_free(s);
}
END_TEST

/* Legacy lists: LogicalTypes.md rule 1 (repeated primitive) and rule 3
 * (old_list_structure.parquet: a 2-level list of 2-level lists). */
START_TEST(test_legacy_lists)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 2);
	conv(grp(&e, "r1", PQ_OPTIONAL, 1), PQ_CT_LIST);
	prim_s(&e, "element", PQ_REPEATED, PQ_INT32);
	conv(grp(&e, "a", PQ_REQUIRED, 1), PQ_CT_LIST);
	conv(grp(&e, "array", PQ_REPEATED, 1), PQ_CT_LIST);
	prim_s(&e, "array", PQ_REPEATED, PQ_INT32);
	pq_schema *s = build(&e);
	col c[2];
	/* r1: [7,8]  null  [] */
	col_int32s(&c[0], "0:2 1:2 0:0 0:1", 2, 1, (int32_t[]){7, 8});
	/* a: [[1,2],[3,4]]  [[],[5]]  [] */
	col_int32s(&c[1], "0:2 2:2 1:2 2:2 0:1 1:2 0:0", 2, 2, (int32_t[]){1, 2, 3, 4, 5});
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"r1\":[7,8],\"a\":[[1,2],[3,4]]}\n{\"r1\":null,\"a\":[[],[5]]}\n"
		   "{\"r1\":[],\"a\":[]}\n",
		   3);
	pq_schema_free(s);
}
END_TEST

/* Repeated fields without annotation (repeated_primitive_no_list.parquet,
 * repeated_no_annotation.parquet): arrays of their values. */
START_TEST(test_repeated_fields)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 2);
	prim_s(&e, "x", PQ_REPEATED, PQ_INT32);
	grp(&e, "p", PQ_OPTIONAL, 1);
	grp(&e, "phone", PQ_REPEATED, 2);
	prim_s(&e, "number", PQ_REQUIRED, PQ_INT64);
	prim_s(&e, "kind", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_schema *s = build(&e);
	col c[3];
	col_int32s(&c[0], "0:1 1:1 0:0 0:1", 1, 1, (int32_t[]){0, 1, 9});
	col_ints(&c[1], "0:2 1:2 0:0 0:1", 2, 1, (int64_t[]){55, 66});
	col_strs(&c[2], "0:3 1:2 0:0 0:1", 3, 1, (const char *const[]){"home"});
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"x\":[0,1],\"p\":{\"phone\":[{\"number\":55,\"kind\":\"home\"},"
		   "{\"number\":66,\"kind\":null}]}}\n"
		   "{\"x\":[],\"p\":null}\n{\"x\":[9],\"p\":{\"phone\":[]}}\n",
		   3);
	expect_all(s, c, PQ_ROWS_CSV,
		   "\"[0,1]\",\"{\"\"phone\"\":[{\"\"number\"\":55,\"\"kind\"\":\"\"home\"\"},"
		   "{\"\"number\"\":66,\"\"kind\"\":null}]}\"\n[],\n[9],\"{\"\"phone\"\":[]}\"\n",
		   3);
	pq_schema_free(s);
}
END_TEST

/* ---- MAP ---------------------------------------------------------------- */

START_TEST(test_map_cases)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 3);
	conv(grp(&e, "mp", PQ_OPTIONAL, 1), PQ_CT_MAP);
	grp(&e, "key_value", PQ_REPEATED, 2);
	prim_s(&e, "key", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim_s(&e, "value", PQ_OPTIONAL, PQ_INT32);
	/* int keys, no value column (map_no_value.parquet) */
	conv(grp(&e, "keys", PQ_REQUIRED, 1), PQ_CT_MAP);
	grp(&e, "key_value", PQ_REPEATED, 1);
	prim_s(&e, "key", PQ_REQUIRED, PQ_INT32);
	/* nullable keys (incorrect_map_schema.parquet) */
	conv(grp(&e, "nk", PQ_OPTIONAL, 1), PQ_CT_MAP);
	grp(&e, "key_value", PQ_REPEATED, 1);
	prim_s(&e, "key", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_schema *s = build(&e);
	col c[4];
	/* {"a":1,"b":null}  {}  null  {"a":5,"a":6} (duplicates kept)  {"q\"\n":7} */
	col_strs(&c[0], "0:2 1:2 0:1 0:0 0:2 1:2 0:2", 2, 1,
		 (const char *const[]){"a", "b", "a", "a", "q\"\n"});
	col_int32s(&c[1], "0:3 1:2 0:1 0:0 0:3 1:3 0:3", 3, 1, (int32_t[]){1, 5, 6, 7});
	col_int32s(&c[2], "0:1 1:1 0:0 0:1 0:1 0:0", 1, 1, (int32_t[]){1, -2, 3, 4});
	col_strs(&c[3], "0:3 1:2 0:0 0:1 0:0 0:0", 3, 1, (const char *const[]){"k"});
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"mp\":{\"a\":1,\"b\":null},\"keys\":{\"1\":null,\"-2\":null},"
		   "\"nk\":{\"k\":null,\"null\":null}}\n"
		   "{\"mp\":{},\"keys\":{},\"nk\":null}\n"
		   "{\"mp\":null,\"keys\":{\"3\":null},\"nk\":{}}\n"
		   "{\"mp\":{\"a\":5,\"a\":6},\"keys\":{\"4\":null},\"nk\":null}\n"
		   "{\"mp\":{\"q\\\"\\n\":7},\"keys\":{},\"nk\":null}\n",
		   5);
	pq_schema_free(s);
}
END_TEST

/* A map whose key is a group: the key is its JSON text. */
START_TEST(test_map_nested_key)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	conv(grp(&e, "mp", PQ_REQUIRED, 1), PQ_CT_MAP);
	grp(&e, "key_value", PQ_REPEATED, 2);
	grp(&e, "key", PQ_REQUIRED, 1);
	prim_s(&e, "k", PQ_OPTIONAL, PQ_INT32);
	prim_s(&e, "value", PQ_REQUIRED, PQ_INT32);
	pq_schema *s = build(&e);
	col c[2];
	col_int32s(&c[0], "0:2 1:1", 2, 1, (int32_t[]){3});
	col_int32s(&c[1], "0:1 1:1", 1, 1, (int32_t[]){10, 20});
	expect_all(s, c, PQ_ROWS_JSONL, "{\"mp\":{\"{\\\"k\\\":3}\":10,\"{\\\"k\\\":null}\":20}}\n",
		   1);
	pq_schema_free(s);
}
END_TEST

/* ---- errors --------------------------------------------------------------- */

/* ---- flat schemas: the fast path ---------------------------------------- */

START_TEST(test_flat_rows)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 3);
	prim_s(&e, "id", PQ_REQUIRED, PQ_INT64);
	prim_s(&e, "name", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	prim_s(&e, "n", PQ_OPTIONAL, PQ_INT32);
	pq_schema *s = build(&e);
	ck_assert(pq_schema_is_flat(s));
	col c[3];
	col_ints(&c[0], "0:0 0:0 0:0 0:0 0:0", 0, 0, (int64_t[]){1, -2, 3, 9223372036854775807, 0});
	col_strs(&c[1], "0:1 0:0 0:1 0:1 0:1", 1, 0,
		 (const char *const[]){"plain", "", "a,b \"q\"", "l\u00ednea\nz"});
	col_int32s(&c[2], "0:0 0:1 0:1 0:0 0:1", 1, 0, (int32_t[]){7, -2147483647 - 1, 0});
	expect_all(s, c, PQ_ROWS_CSV,
		   "1,plain,\n"
		   "-2,,7\n"
		   "3,\"\",-2147483648\n"
		   "9223372036854775807,\"a,b \"\"q\"\"\",\n"
		   "0,\"l\u00ednea\nz\",0\n", 5);
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"id\":1,\"name\":\"plain\",\"n\":null}\n"
		   "{\"id\":-2,\"name\":null,\"n\":7}\n"
		   "{\"id\":3,\"name\":\"\",\"n\":-2147483648}\n"
		   "{\"id\":9223372036854775807,\"name\":\"a,b \\\"q\\\"\",\"n\":null}\n"
		   "{\"id\":0,\"name\":\"l\u00ednea\\nz\",\"n\":0}\n", 5);
	/* Not flat: a repeated top-level field, or a group. */
	els g = {.n = 0};
	grp(&g, "m", -1, 1);
	prim_s(&g, "r", PQ_REPEATED, PQ_INT64);
	pq_schema *s2 = build(&g);
	ck_assert(!pq_schema_is_flat(s2));
	pq_schema_free(s2);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_flat_mismatch)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 2);
	prim_s(&e, "a", PQ_REQUIRED, PQ_INT32);
	prim_s(&e, "b", PQ_OPTIONAL, PQ_INT32);
	pq_schema *s = build(&e);
	col c[2];
	col_int32s(&c[0], "0:0 0:0 0:0", 0, 0, (int32_t[]){1, 2, 3});
	col_int32s(&c[1], "0:1 0:0", 1, 0, (int32_t[]){9});
	pq_leaf_cursor cur[2];
	cursors_for(c, 2, 1, cur);
	pq_flat_rows *f;
	pq_error err = {0};
	ck_assert_int_eq(pq_flat_rows_new(s, PQ_ROWS_CSV, &f, &err), PQ_OK);
	pq_buf out = PQ_BUF_INIT;
	uint64_t rows;
	ck_assert_int_eq(pq_flat_rows_next(f, cur, 100, &out, &rows, &err), PQ_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "column a: has more rows than column b"));
	/* a page that fails to load names its column */
	c[1].fail_with = PQ_EIO;
	cursors_for(c, 2, 1, cur);
	ck_assert_int_eq(pq_flat_rows_next(f, cur, 100, &out, &rows, &err), PQ_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, "column b"));
	/* values missing for the levels */
	c[1].fail_with = PQ_OK;
	col_int32s(&c[1], "0:1 0:1 0:1", 1, 0, (int32_t[]){9, 8, 7});
	c[1].extra_values = -1;
	cursors_for(c, 2, 0, cur);
	ck_assert_int_eq(pq_flat_rows_next(f, cur, 100, &out, &rows, &err), PQ_ECORRUPT);
	pq_buf_free(&out);
	pq_flat_rows_free(f);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_row_count_mismatch)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 2);
	prim_s(&e, "a", PQ_REQUIRED, PQ_INT32);
	prim_s(&e, "b", PQ_OPTIONAL, PQ_INT32);
	pq_schema *s = build(&e);
	col c[2];
	col_int32s(&c[0], "0:0 0:0 0:0", 0, 0, (int32_t[]){1, 2, 3});
	col_int32s(&c[1], "0:1 0:0", 1, 0, (int32_t[]){9});
	pq_error err = {0};
	uint64_t rows;
	pq_buf out = PQ_BUF_INIT;
	ck_assert_int_eq(run_fail(s, c, 1, &err, &rows, &out), PQ_ECORRUPT);
	ck_assert_uint_eq(rows, 2);
	ck_assert_ptr_nonnull(strstr(err.msg, "column a: has more rows than column b"));
	ck_assert_uint_eq(out.len, strlen("{\"a\":1,\"b\":9}\n{\"a\":2,\"b\":null}\n"));
	pq_buf_free(&out);
	/* The other way round. */
	col_int32s(&c[0], "0:0", 0, 0, (int32_t[]){1});
	col_int32s(&c[1], "0:1 0:0", 1, 0, (int32_t[]){9});
	ck_assert_int_eq(run_fail(s, c, 0, &err, &rows, &out), PQ_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err.msg, "column b: has more rows than column a"));
	pq_buf_free(&out);
	pq_schema_free(s);
}
END_TEST

static void hostile(pq_schema *s, col *c, const char *msg_part)
{
	for (size_t batch = 0; batch <= 2; batch++) {
		pq_error err = {0};
		uint64_t rows = 99;
		pq_buf out = PQ_BUF_INIT;
		pq_buf_puts(&out, "before");
		pq_status st = run_fail(s, c, batch, &err, &rows, &out);
		ck_assert_msg(st == PQ_ECORRUPT, "status %d (%s), want '%s'", st, err.msg, msg_part);
		ck_assert_msg(strstr(err.msg, msg_part), "message '%s' lacks '%s'", err.msg, msg_part);
		/* Whole rows only stay in out. */
		ck_assert(out.len >= 6 && memcmp(out.p, "before", 6) == 0);
		ck_assert(out.len == 6 || out.p[out.len - 1] == '\n');
		pq_buf_free(&out);
	}
}

START_TEST(test_hostile_levels)
{
	pq_schema *s = document_schema();
	col c[6];
	document_cols(c);
	c[2].rep[1] = 2; /* Forward: rep level above max_rep 1 */
	hostile(s, c, "column Links.Forward: repetition level 2 exceeds the maximum 1");
	document_cols(c);
	c[4].def[0] = 4; /* Country: def above max_def 3 */
	hostile(s, c, "column Name.Language.Country: definition level 4 exceeds the maximum 3");
	document_cols(c);
	c[5].rep[0] = 1; /* Url: the first row does not start at 0 */
	hostile(s, c, "column Name.Url: a row starts at repetition level 1");
	document_cols(c);
	c[0].rep[0] = 1; /* DocId has no repetition: rep array set anyway */
	c[0].has_rep = true;
	hostile(s, c, "column DocId: a row starts at repetition level 1");
	document_cols(c);
	c[1].def[0] = 0; /* Backward says Links is null, Forward says it is not */
	hostile(s, c, "column Links.Forward: definition level 2 where Links is absent (below 1)");
	document_cols(c);
	c[2].def[0] = 0; /* Forward says Links is null, Backward says it is there */
	hostile(s, c, "column Links.Forward: definition level 0");
	document_cols(c);
	c[4].rep[1] = 1; /* Country leaves the Language element Code continues */
	hostile(s, c, "column Name.Language.Country: repetition level 1 where the row structure needs 2");
	document_cols(c);
	/* Country lacks the slots after its first: ends inside row 1 */
	col_strs(&c[4], "0:3", 3, 2, (const char *const[]){"us"});
	hostile(s, c, "column Name.Language.Country: the column ends in the middle of a row");
	document_cols(c);
	c[5].rep[1] = 2; /* Url: deeper than its level after a whole element */
	hostile(s, c, "column Name.Url: repetition level 2");
	pq_schema_free(s);
}
END_TEST

START_TEST(test_hostile_values)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	prim_s(&e, "a", PQ_OPTIONAL, PQ_INT32);
	pq_schema *s = build(&e);
	col c[1];
	/* fewer values than defined slots */
	col_int32s(&c[0], "0:1 0:1 0:0", 1, 0, (int32_t[]){1, 2});
	c[0].extra_values = -1;
	hostile(s, c, "column a: the levels define more values than the batch holds");
	/* more values than defined slots */
	col_int32s(&c[0], "0:1 0:0", 1, 0, (int32_t[]){1});
	c[0].extra_values = 1;
	hostile(s, c, "values but its levels define");
	/* a batch without its definition levels */
	col_int32s(&c[0], "0:1 0:0", 1, 0, (int32_t[]){1});
	c[0].has_def = false;
	hostile(s, c, "column a: a batch of");
	/* next() fails: its error, with the column named */
	col_int32s(&c[0], "0:1", 1, 0, (int32_t[]){1});
	c[0].fail_with = PQ_EIO;
	pq_error err = {0};
	uint64_t rows;
	pq_buf out = PQ_BUF_INIT;
	ck_assert_int_eq(run_fail(s, c, 0, &err, &rows, &out), PQ_EIO);
	ck_assert_str_eq(err.msg, "column a: page 7 is unreadable");
	pq_buf_free(&out);
	pq_schema_free(s);
}
END_TEST

/* A cursor with no next: its one batch is all there is. */
START_TEST(test_static_batch)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	prim_s(&e, "a,b", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_schema *s = build(&e);
	static const uint16_t def[] = {1, 0, 1};
	pq_bytes v[] = {{(const uint8_t *)"", 0}, {(const uint8_t *)"x\"y", 3}};
	pq_leaf_cursor cur = {.nslots = 3, .def = def, .vals = {.type = PQ_BYTE_ARRAY, .n = 2}};
	cur.vals.v.ba = v;
	pq_buf out = PQ_BUF_INIT;
	pq_rows_header(s, &out);
	uint64_t rows;
	pq_error err = {0};
	ck_assert_int_eq(pq_assemble_rows(s, &cur, 10, PQ_ROWS_CSV, &out, &rows, &err), PQ_OK);
	ck_assert_uint_eq(rows, 3);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "\"a,b\"\n\"\"\n\n\"x\"\"y\"\n");
	/* At the end: nothing more, no error. */
	out.len = 0;
	ck_assert_int_eq(pq_assemble_rows(s, &cur, 10, PQ_ROWS_JSONL, &out, &rows, &err), PQ_OK);
	ck_assert_uint_eq(rows, 0);
	ck_assert_uint_eq(out.len, 0);
	pq_buf_free(&out);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_no_leaves)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	grp(&e, "g", PQ_OPTIONAL, 0);
	pq_schema *s = build(&e);
	pq_buf out = PQ_BUF_INIT;
	uint64_t rows = 5;
	pq_error err = {0};
	ck_assert_int_eq(pq_assemble_rows(s, NULL, 10, PQ_ROWS_JSONL, &out, &rows, &err), PQ_OK);
	ck_assert_uint_eq(rows, 0);
	pq_buf_free(&out);
	pq_schema_free(s);
}
END_TEST

/* ---- values.txt, levels.txt ------------------------------------------------ */

START_TEST(test_values_levels_txt)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 2);
	conv(grp(&e, "l", PQ_OPTIONAL, 1), PQ_CT_LIST);
	prim_s(&e, "s", PQ_REPEATED, PQ_BYTE_ARRAY);
	prim_s(&e, "n", PQ_REQUIRED, PQ_INT64);
	pq_schema *s = build(&e);
	const pq_leaf *lf = pq_schema_leaf(s, 0);
	ck_assert_uint_eq(lf->max_def, 2);
	static const uint16_t rep[] = {0, 1, 0, 0, 1};
	static const uint16_t def[] = {2, 2, 0, 1, 2};
	pq_bytes v[] = {{(const uint8_t *)"a\nb", 3}, {(const uint8_t *)"\\N", 2},
			{(const uint8_t *)"t\tr\r", 4}};
	pq_values vals = {.type = PQ_BYTE_ARRAY, .n = 3};
	vals.v.ba = v;
	pq_buf out = PQ_BUF_INIT;
	pq_render_values_txt(lf, def, 5, &vals, &out);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "a\\nb\n\\\\N\n\\N\n\\N\nt\\tr\\r\n");
	out.len = 0;
	pq_render_levels_txt(rep, def, 5, &out);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "0 2\n1 2\n0 0\n0 1\n1 2\n");
	out.len = 0;
	static const uint16_t big[] = {65535, 10};
	pq_render_levels_txt(NULL, big, 2, &out);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "0 65535\n0 10\n");
	/* Required column, no levels at all. */
	int64_t nums[] = {-5, 7};
	pq_values nv = {.type = PQ_INT64, .n = 2};
	nv.v.i64 = nums;
	out.len = 0;
	pq_render_values_txt(pq_schema_leaf(s, 1), NULL, 2, &nv, &out);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "-5\n7\n");
	/* An inconsistent batch (more defined slots than values): \N, no overread. */
	out.len = 0;
	nv.n = 1;
	pq_render_values_txt(pq_schema_leaf(s, 1), NULL, 2, &nv, &out);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "-5\n\\N\n");
	pq_buf_free(&out);
	pq_schema_free(s);
}
END_TEST

static Suite *assemble_suite(void)
{
	Suite *s = suite_create("assemble");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_document_jsonl);
	tcase_add_test(tc, test_document_csv);
	tcase_add_test(tc, test_list_cases);
	tcase_add_test(tc, test_legacy_lists);
	tcase_add_test(tc, test_repeated_fields);
	tcase_add_test(tc, test_map_cases);
	tcase_add_test(tc, test_map_nested_key);
	tcase_add_test(tc, test_row_count_mismatch);
	tcase_add_test(tc, test_flat_rows);
	tcase_add_test(tc, test_flat_mismatch);
	tcase_add_test(tc, test_hostile_levels);
	tcase_add_test(tc, test_hostile_values);
	tcase_add_test(tc, test_static_batch);
	tcase_add_test(tc, test_no_leaves);
	tcase_add_test(tc, test_values_levels_txt);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(assemble_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
