/* Shredded VARIANT reassembly in record assembly (core/read/
 * assemble_variant.c): the examples of VariantShredding.md (the `event`
 * objects and the `tags` arrays, row by row as its tables give them),
 * rendered per interface.md "Variant as JSON", with batch boundaries
 * anywhere; the rules that make a value invalid (hex) and what the report
 * for verify.txt counts. Variant bytes are written by hand from
 * VariantEncoding.md; timestamps computed with Python's datetime. */
#include "config.h"

#include "test_assemble_helpers.h"

/* Bytes that outlive the block they are written in (compound literals do
 * not): copied into a static pool. */
static pq_bytes keep(pq_bytes b)
{
	static uint8_t pool[1 << 16];
	static size_t used;
	ck_assert_uint_le(b.n, sizeof pool - used);
	memcpy(pool + used, b.p, b.n);
	pq_bytes k = {pool + used, b.n};
	used += b.n;
	return k;
}
#define B(...) keep((pq_bytes){(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})})

static pq_schema_element *variant(els *e, const char *name, int rep, int nchildren)
{
	pq_schema_element *x = grp(e, name, rep, nchildren);
	x->has_logicalType = x->logicalType.has_VARIANT = true;
	return x;
}

static pq_schema_element *str(els *e, const char *name, int rep)
{
	pq_schema_element *x = prim(e, name, rep, PQ_BYTE_ARRAY);
	x->has_logicalType = x->logicalType.has_STRING = true;
	return x;
}

/* ---- objects: the `event` example ------------------------------------- */

static pq_schema *event_schema(void)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	variant(&e, "event", PQ_OPTIONAL, 3);
	prim(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	grp(&e, "typed_value", PQ_OPTIONAL, 2);
	grp(&e, "event_type", PQ_REQUIRED, 2);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	str(&e, "typed_value", PQ_OPTIONAL);
	grp(&e, "event_ts", PQ_REQUIRED, 2);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_schema_element *ts = prim(&e, "typed_value", PQ_OPTIONAL, PQ_INT64);
	ts->has_logicalType = ts->logicalType.has_TIMESTAMP = true;
	ts->logicalType.TIMESTAMP.isAdjustedToUTC = true;
	ts->logicalType.TIMESTAMP.unit.has_MICROS = true;
	return build(&e);
}

/* keys: click email error_msg event_ts event_type (ids 0-4), sorted */
#define EVENT_META B(0x11, 5, 0, 5, 10, 19, 27, 37, 'c', 'l', 'i', 'c', 'k', 'e', 'm', 'a', 'i', \
		     'l', 'e', 'r', 'r', 'o', 'r', '_', 'm', 's', 'g', 'e', 'v', 'e', 'n', 't', '_',   \
		     't', 's', 'e', 'v', 'e', 'n', 't', '_', 't', 'y', 'p', 'e')

static void event_cols(col *c)
{
	pq_bytes meta[12];
	for (int i = 0; i < 12; i++)
		meta[i] = EVENT_META;
	/* rows: 1 fully shredded, 2 partially, 3 all shredded fields missing,
	 * 4 not an object, 5 event_type missing, 6 event_type null, 7 event_ts
	 * not a timestamp, 8 empty object, 9 variant null, 10 missing, 11 the
	 * group null, 12 (invalid) a shredded field also in value, 13 (invalid)
	 * typed_value beside a value that is not an object */
	col_bins(&c[0], "0:1 0:1 0:1 0:1 0:1 0:1 0:1 0:1 0:1 0:1 0:0 0:1 0:1", 1, 0, meta);
	col_bins(&c[1], "0:1 0:2 0:2 0:2 0:2 0:1 0:1 0:1 0:2 0:1 0:0 0:2 0:2", 2, 0,
		 (pq_bytes[]){
			 B(0x02, 1, 1, 0, 17, 0x41, 'u', 's', 'e', 'r', '@', 'e', 'x', 'a', 'm', 'p',
			   'l', 'e', '.', 'c', 'o', 'm'),
			 B(0x02, 1, 2, 0, 10, 0x25, 'm', 'a', 'l', 'f', 'o', 'r', 'm', 'e', 'd'),
			 B(0x35, 'n', 'o', 't', ' ', 'a', 'n', ' ', 'o', 'b', 'j', 'e', 'c', 't'),
			 B(0x02, 1, 0, 0, 8, 0x1D, '_', 'b', 'u', 't', 't', 'o', 'n'),
			 B(0x00),
			 B(0x02, 1, 4, 0, 4, 0x0D, 'o', 'l', 'd'),
			 B(0x05, 'a'),
		 });
	col_bins(&c[2], "0:2 0:2 0:2 0:1 0:2 0:3 0:2 0:2 0:1 0:1 0:0 0:2 0:2", 3, 0,
		 (pq_bytes[]){B(0x00)});
	col_strs(&c[3], "0:3 0:3 0:2 0:1 0:2 0:2 0:3 0:2 0:1 0:1 0:0 0:3 0:2", 3, 0,
		 (const char *const[]){"noop", "login", "noop", "login"});
	col_bins(&c[4], "0:2 0:2 0:2 0:1 0:2 0:2 0:3 0:2 0:1 0:1 0:0 0:2 0:2", 3, 0,
		 (pq_bytes[]){B(0x29, '2', '0', '2', '4', '-', '1', '0', '-', '2', '4')});
	col_ints(&c[5], "0:3 0:3 0:2 0:1 0:3 0:3 0:2 0:2 0:1 0:1 0:0 0:3 0:2", 3, 0,
		 (int64_t[]){1729794114937, 1729794146402, 1729794240241, 1729794954163,
			     1729795057774});
}

static const char event_jsonl[] =
	"{\"event\":{\"event_ts\":\"1970-01-21T00:29:54.114937Z\",\"event_type\":\"noop\"}}\n"
	"{\"event\":{\"email\":\"user@example.com\",\"event_ts\":\"1970-01-21T00:29:54.146402Z\","
	"\"event_type\":\"login\"}}\n"
	"{\"event\":{\"error_msg\":\"malformed\"}}\n"
	"{\"event\":\"not an object\"}\n"
	"{\"event\":{\"click\":\"_button\",\"event_ts\":\"1970-01-21T00:29:54.240241Z\"}}\n"
	"{\"event\":{\"event_ts\":\"1970-01-21T00:29:54.954163Z\",\"event_type\":null}}\n"
	"{\"event\":{\"event_ts\":\"2024-10-24\",\"event_type\":\"noop\"}}\n"
	"{\"event\":{}}\n"
	"{\"event\":null}\n"
	"{\"event\":null}\n"
	"{\"event\":null}\n"
	"{\"event\":{\"event_ts\":\"1970-01-21T00:29:55.057774Z\",\"event_type\":\"login\"}}\n"
	"{\"event\":\"0x0561\"}\n";

START_TEST(test_variant_event_objects)
{
	pq_schema *s = event_schema();
	ck_assert_int_eq(pq_schema_root(s)->children[0]->kind, PQ_AK_VARIANT);
	col c[6];
	event_cols(c);
	expect_all(s, c, PQ_ROWS_JSONL, event_jsonl, 13);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_variant_event_csv)
{
	pq_schema *s = event_schema();
	col c[6];
	event_cols(c);
	expect_all(s, c, PQ_ROWS_CSV,
		   "\"{\"\"event_ts\"\":\"\"1970-01-21T00:29:54.114937Z\"\",\"\"event_type\"\":\"\"noop\"\"}\"\n"
		   "\"{\"\"email\"\":\"\"user@example.com\"\",\"\"event_ts\"\":\"\"1970-01-21T00:29:54.146402Z\"\","
		   "\"\"event_type\"\":\"\"login\"\"}\"\n"
		   "\"{\"\"error_msg\"\":\"\"malformed\"\"}\"\n"
		   "\"\"\"not an object\"\"\"\n"
		   "\"{\"\"click\"\":\"\"_button\"\",\"\"event_ts\"\":\"\"1970-01-21T00:29:54.240241Z\"\"}\"\n"
		   "\"{\"\"event_ts\"\":\"\"1970-01-21T00:29:54.954163Z\"\",\"\"event_type\"\":null}\"\n"
		   "\"{\"\"event_ts\"\":\"\"2024-10-24\"\",\"\"event_type\"\":\"\"noop\"\"}\"\n"
		   "{}\n\n\n\n"
		   "\"{\"\"event_ts\"\":\"\"1970-01-21T00:29:55.057774Z\"\",\"\"event_type\"\":\"\"login\"\"}\"\n"
		   "\"\"\"0x0561\"\"\"\n",
		   13);
	pq_schema_free(s);
}
END_TEST

START_TEST(test_variant_report)
{
	pq_schema *s = event_schema();
	col c[6];
	event_cols(c);
	pq_leaf_cursor cur[6];
	cursors_for(c, 6, 0, cur);
	pq_buf out = PQ_BUF_INIT;
	uint64_t rows;
	pq_error err = {0};
	pq_variant_report rep = {0};
	ck_assert_int_eq(pq_assemble_rows_report(s, cur, 100, PQ_ROWS_JSONL, &out, &rows, &rep, &err),
			 PQ_OK);
	ck_assert_uint_eq(rows, 13);
	ck_assert_uint_eq(rep.errors, 1); /* row 13 */
	ck_assert_str_eq(rep.first_error, "a value that is not an object beside shredded fields");
	ck_assert_uint_eq(rep.notes, 1); /* row 12 */
	ck_assert_str_eq(rep.first_note, "a shredded field is also present in value");
	ck_assert_str_eq((const char *)rep.error_node->name.p, "event");
	pq_buf_free(&out);
	pq_schema_free(s);
}
END_TEST

/* ---- arrays: the `tags` example ----------------------------------------- */

static pq_schema *tags_schema(void)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	variant(&e, "tags", PQ_OPTIONAL, 3);
	prim(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_schema_element *l = grp(&e, "typed_value", PQ_OPTIONAL, 1);
	l->has_logicalType = l->logicalType.has_LIST = true;
	grp(&e, "list", PQ_REPEATED, 1);
	grp(&e, "element", PQ_REQUIRED, 2);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	str(&e, "typed_value", PQ_OPTIONAL);
	return build(&e);
}

START_TEST(test_variant_tags_arrays)
{
	pq_schema *s = tags_schema();
	col c[4];
	pq_bytes meta[7];
	for (int i = 0; i < 7; i++)
		meta[i] = B(0x01, 0, 0);
	/* rows: ["comedy","drama"], ["horror",null], ["comedy","drama","romance"],
	 * null, [], [a missing element], (invalid) both value and a list */
	col_bins(&c[0], "0:1 0:1 0:1 0:1 0:1 0:1 0:1", 1, 0, meta);
	col_bins(&c[1], "0:1 0:1 0:1 0:2 0:1 0:1 0:2", 2, 0, (pq_bytes[]){B(0x00), B(0x05, 'x')});
	col_bins(&c[2], "0:3 1:3 0:3 1:4 0:3 1:3 1:3 0:1 0:2 0:3 0:3", 4, 1, (pq_bytes[]){B(0x00)});
	col_strs(&c[3], "0:4 1:4 0:4 1:3 0:4 1:4 1:4 0:1 0:2 0:3 0:4", 4, 1,
		 (const char *const[]){"comedy", "drama", "horror", "comedy", "drama", "romance",
				       "a"});
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"tags\":[\"comedy\",\"drama\"]}\n"
		   "{\"tags\":[\"horror\",null]}\n"
		   "{\"tags\":[\"comedy\",\"drama\",\"romance\"]}\n"
		   "{\"tags\":null}\n"
		   "{\"tags\":[]}\n"
		   "{\"tags\":[null]}\n"
		   "{\"tags\":\"0x0578\"}\n",
		   7);
	pq_schema_free(s);
}
END_TEST

/* ---- typed_value types ---------------------------------------------------- */

/* A required variant {metadata, value, typed_value}: the caller adds the
 * typed_value leaf. */
static void typed_start(els *e)
{
	e->n = 0;
	grp(e, "m", -1, 1);
	variant(e, "v", PQ_REQUIRED, 3);
	prim(e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim(e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
}

/* Two rows: typed_value set (typed, already filled), then both null. */
static void typed_run(els *e, col *c, const char *want_first)
{
	pq_schema *s = build(e);
	col_bins(&c[0], "0:0 0:0", 0, 0, (pq_bytes[]){B(0x01, 0, 0), B(0x01, 0, 0)});
	col_bins(&c[1], "0:0 0:0", 1, 0, NULL);
	char want[256];
	snprintf(want, sizeof want, "{\"v\":%s}\n{\"v\":null}\n", want_first);
	expect_all(s, c, PQ_ROWS_JSONL, want, 2);
	pq_schema_free(s);
}

START_TEST(test_variant_typed_types)
{
	els e;
	col c[3];
	/* binary: hex even when the bytes are text */
	typed_start(&e);
	prim(&e, "typed_value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	col_strs(&c[2], "0:1 0:0", 1, 0, (const char *const[]){"abc"});
	typed_run(&e, c, "\"0x616263\"");
	/* TIME(false, MICROS) */
	typed_start(&e);
	pq_schema_element *t = prim(&e, "typed_value", PQ_OPTIONAL, PQ_INT64);
	t->has_logicalType = t->logicalType.has_TIME = true;
	t->logicalType.TIME.unit.has_MICROS = true;
	col_ints(&c[2], "0:1 0:0", 1, 0, (int64_t[]){1});
	typed_run(&e, c, "\"00:00:00.000001\"");
	/* not in the shredding table: TIME(true, MICROS), INT(8, unsigned),
	 * TIMESTAMP(MILLIS): the hex of `value` (null here: "0x") */
	t->logicalType.TIME.isAdjustedToUTC = true;
	typed_run(&e, c, "\"0x\"");
	typed_start(&e);
	t = prim(&e, "typed_value", PQ_OPTIONAL, PQ_INT32);
	t->has_logicalType = t->logicalType.has_INTEGER = true;
	t->logicalType.INTEGER.bitWidth = 8;
	col_int32s(&c[2], "0:1 0:0", 1, 0, (int32_t[]){5});
	typed_run(&e, c, "\"0x\"");
	t->logicalType.INTEGER.isSigned = true;
	typed_run(&e, c, "5");
	typed_start(&e);
	t = prim(&e, "typed_value", PQ_OPTIONAL, PQ_INT64);
	t->has_logicalType = t->logicalType.has_TIMESTAMP = true;
	t->logicalType.TIMESTAMP.unit.has_MILLIS = true;
	col_ints(&c[2], "0:1 0:0", 1, 0, (int64_t[]){1});
	typed_run(&e, c, "\"0x\"");
	t->logicalType.TIMESTAMP.unit.has_MILLIS = false;
	t->logicalType.TIMESTAMP.unit.has_NANOS = true;
	typed_run(&e, c, "\"1970-01-01T00:00:00.000000001\"");
}
END_TEST

/* ---- typed_value types against the shredding table ------------------------- */

/* Row 1's typed_value of a leaf of physical type ph (FLBA width tl): 5,
 * "abc", "abcd" or bytes 0..15, whichever the type holds. */
static void typed_fill(col *c, int ph, int32_t tl)
{
	static const uint8_t b16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	if (ph == PQ_INT32)
		col_int32s(&c[2], "0:1 0:0", 1, 0, (int32_t[]){5});
	else if (ph == PQ_INT64)
		col_ints(&c[2], "0:1 0:0", 1, 0, (int64_t[]){5});
	else if (ph == PQ_BYTE_ARRAY)
		col_strs(&c[2], "0:1 0:0", 1, 0, (const char *const[]){"abc"});
	else
		col_fixed(&c[2], "0:1 0:0", 1, 0, tl, tl == 4 ? (const uint8_t *)"\0\0\0\5" : b16);
}

static pq_schema_element *lt_int(pq_schema_element *t, int8_t width, bool is_signed)
{
	t->has_logicalType = t->logicalType.has_INTEGER = true;
	t->logicalType.INTEGER.bitWidth = width;
	t->logicalType.INTEGER.isSigned = is_signed;
	return t;
}

static pq_schema_element *lt_dec(pq_schema_element *t, int32_t precision, int32_t scale)
{
	t->has_logicalType = t->logicalType.has_DECIMAL = true;
	t->logicalType.DECIMAL.precision = precision;
	t->logicalType.DECIMAL.scale = scale;
	return t;
}

/* A required variant whose typed_value is physical ph (FLBA width tl),
 * annotated by the statements that follow, row 1 rendering as want. */
#define TYPED(ph, tl, want, ...)                                                  \
	do {                                                                      \
		typed_start(&e);                                                  \
		pq_schema_element *t = prim(&e, "typed_value", PQ_OPTIONAL, ph); \
		if (tl) {                                                         \
			t->has_type_length = true;                                \
			t->type_length = tl;                                      \
		}                                                                 \
		__VA_ARGS__;                                                      \
		typed_fill(c, ph, tl);                                            \
		typed_run(&e, c, want);                                           \
	} while (0)

/* Every row of VariantShredding.md's "Shredded Value Types" table that the
 * helpers can feed renders its value; every type the table does not allow
 * (an unsigned or mis-sized INTEGER, an annotation on the wrong physical
 * type, ENUM, JSON, BSON, a bare or mis-sized FIXED_LEN_BYTE_ARRAY, a
 * decimal too wide for its Variant decimal, a union of two annotations)
 * is the hex of `value` (null here: "0x"), whatever the render type
 * would make of it. */
START_TEST(test_variant_typed_table)
{
	els e;
	col c[3];
	/* allowed */
	TYPED(PQ_INT32, 0, "5", (void)t);                            /* int32 */
	TYPED(PQ_INT32, 0, "5", lt_int(t, 8, true));                 /* int8 */
	TYPED(PQ_INT32, 0, "5", lt_int(t, 16, true));                /* int16 */
	TYPED(PQ_INT32, 0, "5", lt_int(t, 32, true));                /* int32, annotated */
	TYPED(PQ_INT32, 0, "5", conv(t, PQ_CT_INT_8));               /* int8, legacy */
	TYPED(PQ_INT64, 0, "5", (void)t);                            /* int64 */
	TYPED(PQ_INT64, 0, "5", lt_int(t, 64, true));
	TYPED(PQ_INT32, 0, "0.05", lt_dec(t, 9, 2));                 /* decimal4 */
	TYPED(PQ_INT64, 0, "0.05", lt_dec(t, 18, 2));                /* decimal8 */
	TYPED(PQ_FIXED_LEN_BYTE_ARRAY, 4, "0.05", lt_dec(t, 9, 2));  /* decimal16 */
	TYPED(PQ_INT32, 0, "\"1970-01-06\"", t->has_logicalType = t->logicalType.has_DATE = true);
	TYPED(PQ_INT64, 0, "\"1970-01-01T00:00:00.000005Z\"", conv(t, PQ_CT_TIMESTAMP_MICROS));
	TYPED(PQ_BYTE_ARRAY, 0, "\"0x616263\"", (void)t);           /* binary */
	TYPED(PQ_BYTE_ARRAY, 0, "\"abc\"", t->has_logicalType = t->logicalType.has_STRING = true);
	TYPED(PQ_BYTE_ARRAY, 0, "\"abc\"", conv(t, PQ_CT_UTF8));
	TYPED(PQ_FIXED_LEN_BYTE_ARRAY, 16, "\"00010203-0405-0607-0809-0a0b0c0d0e0f\"",
	      t->has_logicalType = t->logicalType.has_UUID = true);
	/* not in the table */
	TYPED(PQ_INT32, 0, "\"0x\"", lt_int(t, 32, false));          /* INTEGER(32,false) */
	TYPED(PQ_INT64, 0, "\"0x\"", lt_int(t, 64, false));
	TYPED(PQ_INT32, 0, "\"0x\"", conv(t, PQ_CT_UINT_32));
	TYPED(PQ_INT64, 0, "\"0x\"", lt_int(t, 8, true));            /* int8 is INT32 */
	TYPED(PQ_INT64, 0, "\"0x\"", lt_int(t, 16, true));
	TYPED(PQ_INT64, 0, "\"0x\"", conv(t, PQ_CT_INT_16));
	TYPED(PQ_INT32, 0, "\"0x\"", lt_int(t, 64, true));
	TYPED(PQ_FIXED_LEN_BYTE_ARRAY, 4, "\"0x\"", (void)t);        /* FIXED_LEN_BYTE_ARRAY(4) */
	TYPED(PQ_FIXED_LEN_BYTE_ARRAY, 16, "\"0x\"", (void)t);
	TYPED(PQ_FIXED_LEN_BYTE_ARRAY, 4, "\"0x\"",
	      t->has_logicalType = t->logicalType.has_STRING = true);
	TYPED(PQ_BYTE_ARRAY, 0, "\"0x\"", t->has_logicalType = t->logicalType.has_ENUM = true);
	TYPED(PQ_BYTE_ARRAY, 0, "\"0x\"", conv(t, PQ_CT_ENUM));
	TYPED(PQ_BYTE_ARRAY, 0, "\"0x\"", t->has_logicalType = t->logicalType.has_JSON = true);
	TYPED(PQ_BYTE_ARRAY, 0, "\"0x\"", t->has_logicalType = t->logicalType.has_BSON = true);
	TYPED(PQ_BYTE_ARRAY, 0, "\"0x\"", conv(t, PQ_CT_BSON));
	TYPED(PQ_INT32, 0, "\"0x\"", t->has_logicalType = t->logicalType.has_STRING = true);
	TYPED(PQ_INT64, 0, "\"0x\"", t->has_logicalType = t->logicalType.has_DATE = true);
	TYPED(PQ_INT64, 0, "\"0x\"", conv(t, PQ_CT_TIME_MICROS));     /* UTC */
	TYPED(PQ_INT32, 0, "\"0x\"", lt_dec(t, 10, 2));                /* decimal4 holds 9 */
	TYPED(PQ_INT64, 0, "\"0x\"", lt_dec(t, 19, 2));
	TYPED(PQ_INT32, 0, "\"0x\"", lt_dec(t, 4, 5));                 /* scale > precision */
	TYPED(PQ_INT32, 0, "\"0x\"", lt_int(t, 8, true); t->logicalType.has_DATE = true);
	TYPED(PQ_INT32, 0, "\"0x\"", t->has_logicalType = true; t->logicalType.unknown_member = 42);
}
END_TEST

/* The two files: an optional variant beside an id, its typed_value
 * INTEGER(32,false) or FIXED_LEN_BYTE_ARRAY(4). The row is the hex of its
 * `value` (null: "0x"), never null, and the report verify.txt prints
 * counts it. */
START_TEST(test_variant_typed_report)
{
	for (int k = 0; k < 2; k++) {
		els e = {.n = 0};
		grp(&e, "m", -1, 2);
		prim(&e, "id", PQ_REQUIRED, PQ_INT32);
		variant(&e, "var", PQ_OPTIONAL, 3);
		prim(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
		prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
		col c[4];
		col_int32s(&c[0], "0:0 0:0", 0, 0, (int32_t[]){1, 2});
		col_bins(&c[1], "0:1 0:1", 1, 0, (pq_bytes[]){B(0x01, 0, 0), B(0x01, 0, 0)});
		col_bins(&c[2], "0:1 0:2", 2, 0, (pq_bytes[]){B(0x0C, 7)});
		pq_schema_element *t = prim(&e, "typed_value", PQ_OPTIONAL,
					    k ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_INT32);
		if (k) {
			t->has_type_length = true;
			t->type_length = 4;
			col_fixed(&c[3], "0:2 0:1", 2, 0, 4, (const uint8_t *)"abcd");
		} else {
			lt_int(t, 32, false);
			col_int32s(&c[3], "0:2 0:1", 2, 0, (int32_t[]){12345});
		}
		pq_schema *s = build(&e);
		expect_all(s, c, PQ_ROWS_JSONL, "{\"id\":1,\"var\":\"0x\"}\n{\"id\":2,\"var\":7}\n", 2);
		pq_leaf_cursor cur[4];
		cursors_for(c, 4, 0, cur);
		pq_buf out = PQ_BUF_INIT;
		uint64_t rows;
		pq_error err = {0};
		pq_variant_report rep = {0};
		ck_assert_int_eq(pq_assemble_rows_report(s, cur, 100, PQ_ROWS_JSONL, &out, &rows,
							 &rep, &err),
				 PQ_OK);
		ck_assert_uint_eq(rows, 2);
		ck_assert_uint_eq(rep.errors, 1);
		ck_assert_str_eq(rep.first_error,
				 "a typed_value of a type the shredding table does not allow");
		pq_buf_free(&out);
		pq_schema_free(s);
	}
}
END_TEST

/* A group annotated VARIANT that is not shaped like one stays a group. */
START_TEST(test_variant_bad_shape)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	variant(&e, "v", PQ_OPTIONAL, 2);
	prim(&e, "metadata", PQ_REQUIRED, PQ_INT32);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_schema *s = build(&e);
	ck_assert_int_eq(pq_schema_root(s)->children[0]->kind, PQ_AK_STRUCT);
	pq_schema_free(s);
	e.n = 0;
	grp(&e, "m", -1, 1);
	variant(&e, "v", PQ_OPTIONAL, 3);
	prim(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	prim(&e, "other", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	s = build(&e);
	ck_assert_int_eq(pq_schema_root(s)->children[0]->kind, PQ_AK_STRUCT);
	pq_schema_free(s);
}
END_TEST

/* Unshredded, in a list: each element its own variant; a bad one is hex. */
START_TEST(test_variant_in_list)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	pq_schema_element *l = grp(&e, "vs", PQ_OPTIONAL, 1);
	l->has_logicalType = l->logicalType.has_LIST = true;
	grp(&e, "list", PQ_REPEATED, 1);
	variant(&e, "element", PQ_OPTIONAL, 2);
	prim(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
	prim(&e, "value", PQ_REQUIRED, PQ_BYTE_ARRAY);
	pq_schema *s = build(&e);
	col c[2];
	pq_bytes m = B(0x11, 1, 0, 1, 'k');
	col_bins(&c[0], "0:3 1:2 1:3 0:1", 3, 1, (pq_bytes[]){m, m});
	col_bins(&c[1], "0:3 1:2 1:3 0:1", 3, 1,
		 (pq_bytes[]){B(0x02, 1, 0, 0, 1, 0x04), B(0x02, 1, 1, 0, 1, 0x04)});
	expect_all(s, c, PQ_ROWS_JSONL,
		   "{\"vs\":[{\"k\":true},null,\"0x020101000104\"]}\n{\"vs\":[]}\n", 2);
	pq_schema_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("assemble_variant");
	TCase *tc = tcase_create("shredding");
	tcase_add_test(tc, test_variant_event_objects);
	tcase_add_test(tc, test_variant_event_csv);
	tcase_add_test(tc, test_variant_report);
	tcase_add_test(tc, test_variant_tags_arrays);
	tcase_add_test(tc, test_variant_typed_types);
	tcase_add_test(tc, test_variant_typed_table);
	tcase_add_test(tc, test_variant_typed_report);
	tcase_add_test(tc, test_variant_bad_shape);
	tcase_add_test(tc, test_variant_in_list);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
