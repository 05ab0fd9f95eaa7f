/* VARIANT binary decoding (core/render/render_variant.c) against
 * VariantEncoding.md and interface.md "Variant as JSON".
 *
 * Golden values: the byte layouts are written by hand from the spec's
 * tables (header bits, little-endian sizes), the expected JSON from the
 * contract's rules with numbers computed independently (Python integers for
 * decimals and int64 limits, Python's datetime for dates and times); the
 * binary files of parquet-testing/variant are checked against
 * testdata/expected/variant (written from Spark's data_dictionary.json in
 * the contract's spelling). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_variant.h"
#include "test_files.h"

#ifndef TESTDATA_DIR
#define TESTDATA_DIR "../shared/testdata"
#endif
#define VAR_DIR TESTDATA_DIR "/parquet-testing/variant/"
#define VAR_EXP TESTDATA_DIR "/expected/variant/"

static pq_buf out = PQ_BUF_INIT;
static pq_variant_diag diag;

/* Metadata: version 1, sorted, 1-byte offsets, keys "a" "b" "c". */
static const uint8_t META_ABC[] = {0x11, 3, 0, 1, 2, 3, 'a', 'b', 'c'};
/* Metadata: no keys. */
static const uint8_t META_EMPTY[] = {0x01, 0, 0};

static const char *render(const uint8_t *meta, size_t mn, const uint8_t *v, size_t vn)
{
	out.len = 0;
	memset(&diag, 0, sizeof diag);
	pq_render_variant_json(meta, mn, v, vn, &out, &diag);
	pq_buf_putc(&out, '\0');
	ck_assert(!out.oom);
	return (const char *)out.p;
}

#define R(meta, ...)                                                                 \
	render(meta, sizeof meta, (const uint8_t[]){__VA_ARGS__},                   \
	       sizeof((const uint8_t[]){__VA_ARGS__}))
#define P(...) R(META_EMPTY, __VA_ARGS__)

/* Whether value v renders without an error. */
static bool decodes(const uint8_t *meta, size_t mn, const uint8_t *v, size_t vn)
{
	pq_variant_meta m;
	memset(&diag, 0, sizeof diag);
	out.len = 0;
	return pq_variant_meta_parse(meta, mn, &m, &diag) &&
	       pq_render_variant(&m, v, vn, &out, &diag);
}

START_TEST(test_variant_primitives)
{
	ck_assert_str_eq(P(0x00), "null");
	ck_assert_str_eq(P(0x04), "true");
	ck_assert_str_eq(P(0x08), "false");
	ck_assert_str_eq(P(0x0C, 0xD6), "-42");                                     /* int8 */
	ck_assert_str_eq(P(0x10, 0x2E, 0xFB), "-1234");                             /* int16 */
	ck_assert_str_eq(P(0x14, 0, 0, 0, 0x80), "-2147483648");                    /* int32 */
	ck_assert_str_eq(P(0x18, 0, 0, 0, 0, 0, 0, 0, 0x80), "-9223372036854775808"); /* int64 */
	ck_assert_str_eq(P(0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F),
			 "9223372036854775807");
	/* double 0.1 = 0x3FB999999999999A, NaN, -Infinity */
	ck_assert_str_eq(P(0x1C, 0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F), "0.1");
	ck_assert_str_eq(P(0x1C, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F), "\"NaN\"");
	ck_assert_str_eq(P(0x1C, 0, 0, 0, 0, 0, 0, 0xF0, 0xFF), "\"-Infinity\"");
	/* float 0.1f = 0x3DCCCCCD: shortest at 32 bits */
	ck_assert_str_eq(P(0x38, 0xCD, 0xCC, 0xCC, 0x3D), "0.1");
	ck_assert_str_eq(P(0x38, 0, 0, 0x80, 0x7F), "\"Infinity\"");
	/* decimal4 scale 2, -50; decimal8 scale 0, 123; decimal16 */
	ck_assert_str_eq(P(0x20, 2, 0xCE, 0xFF, 0xFF, 0xFF), "-0.50");
	ck_assert_str_eq(P(0x24, 0, 123, 0, 0, 0, 0, 0, 0, 0), "123");
	ck_assert_str_eq(P(0x28, 38, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			 "0.00000000000000000000000000000000000001");
	ck_assert_str_eq(P(0x28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80),
			 "-170141183460469231731687303715884105728");
	/* date: 0, -719528 (0000-01-01) */
	ck_assert_str_eq(P(0x2C, 0, 0, 0, 0), "\"1970-01-01\"");
	ck_assert_str_eq(P(0x2C, 0x58, 0x05, 0xF5, 0xFF), "\"0000-01-01\"");
	/* timestamps: micros UTC / not, nanos UTC / not */
	ck_assert_str_eq(P(0x30, 1, 0, 0, 0, 0, 0, 0, 0), "\"1970-01-01T00:00:00.000001Z\"");
	ck_assert_str_eq(P(0x34, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF),
			 "\"1969-12-31T23:59:59.999999\"");
	ck_assert_str_eq(P(0x48, 1, 0, 0, 0, 0, 0, 0, 0), "\"1970-01-01T00:00:00.000000001Z\"");
	ck_assert_str_eq(P(0x4C, 0, 0, 0, 0, 0, 0, 0, 0), "\"1970-01-01T00:00:00\"");
	/* time: 86399999999 us, 24:00:00, beyond a day (the plain integer) */
	ck_assert_str_eq(P(0x44, 0xFF, 0x5F, 0xD7, 0x1D, 0x14, 0, 0, 0), "\"23:59:59.999999\"");
	ck_assert_str_eq(P(0x44, 0x00, 0x60, 0xD7, 0x1D, 0x14, 0, 0, 0), "\"24:00:00\"");
	ck_assert_str_eq(P(0x44, 0x01, 0x60, 0xD7, 0x1D, 0x14, 0, 0, 0), "86400000001");
	/* binary, string, uuid, short strings */
	ck_assert_str_eq(P(0x3C, 2, 0, 0, 0, 0x00, 0xFF), "\"0x00ff\"");
	ck_assert_str_eq(P(0x3C, 0, 0, 0, 0), "\"0x\"");
	ck_assert_str_eq(P(0x40, 3, 0, 0, 0, 'a', '"', 'b'), "\"a\\\"b\"");
	ck_assert_str_eq(P(0x50, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
			 "\"00010203-0405-0607-0809-0a0b0c0d0e0f\"");
	ck_assert_str_eq(P(0x09, 'h', 'i'), "\"hi\"");
	ck_assert_str_eq(P(0x01), "\"\"");
	ck_assert_str_eq(P(0x05, '\n'), "\"\\n\"");
	ck_assert(diag.note == NULL && diag.error == NULL);
	/* invalid UTF-8: U+FFFD and a note */
	ck_assert_str_eq(P(0x05, 0xFF), "\"\xEF\xBF\xBD\"");
	ck_assert_ptr_nonnull(diag.note);
	ck_assert_ptr_null(diag.error);
}
END_TEST

START_TEST(test_variant_objects_arrays)
{
	/* {"a":1,"b":true}, values in key order and reversed */
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 0, 1, 0, 2, 3, 0x0C, 1, 0x04), "{\"a\":1,\"b\":true}");
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 0, 1, 1, 0, 3, 0x04, 0x0C, 1), "{\"a\":1,\"b\":true}");
	ck_assert(diag.note == NULL);
	/* keys stored out of order: rendered in key order, with a note */
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 1, 0, 0, 2, 3, 0x0C, 1, 0x04), "{\"a\":true,\"b\":1}");
	ck_assert_ptr_nonnull(diag.note);
	/* the same key twice: both kept, a note */
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 2, 2, 0, 1, 2, 0x00, 0x04), "{\"c\":null,\"c\":true}");
	ck_assert_ptr_nonnull(diag.note);
	/* empty object and array */
	ck_assert_str_eq(R(META_ABC, 0x02, 0, 0), "{}");
	ck_assert_str_eq(P(0x03, 0, 0), "[]");
	/* [1,"x",null] */
	ck_assert_str_eq(P(0x03, 3, 0, 2, 4, 5, 0x0C, 1, 0x05, 'x', 0x00), "[1,\"x\",null]");
	/* is_large, 2-byte ids and offsets: {"c":[true]} */
	ck_assert_str_eq(R(META_ABC, 0x02 | (1 << 6) | (1 << 4) | (1 << 2), 1, 0, 0, 0, 2, 0, 0, 0,
			   5, 0, 0x03, 1, 0, 1, 0x04),
			 "{\"c\":[true]}");
	/* array with is_large and 3-byte offsets: ["hi"] */
	ck_assert_str_eq(P(0x03 | (1 << 4) | (2 << 2), 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0x09, 'h', 'i'),
			 "[\"hi\"]");
	/* nested: {"a":{"b":[{}]}} */
	ck_assert_str_eq(R(META_ABC, 0x02, 1, 0, 0, 12, 0x02, 1, 1, 0, 7, 0x03, 1, 0, 3, 0x02, 0, 0),
			 "{\"a\":{\"b\":[{}]}}");
	ck_assert(diag.error == NULL && diag.note == NULL);
}
END_TEST

/* A value of `depth` nested one-element arrays around null (4-byte
 * offsets, so any depth fits). */
static uint8_t *nested(unsigned depth, size_t *n)
{
	size_t len = 1 + (size_t)depth * 10;
	uint8_t *p = malloc(len);
	size_t inner = 1;
	p[len - 1] = 0x00;
	for (unsigned i = 0; i < depth; i++) {
		uint8_t *h = p + len - inner - 10;
		h[0] = 0x03 | (3 << 2);
		h[1] = 1;
		memset(h + 2, 0, 4);
		h[6] = (uint8_t)inner;
		h[7] = (uint8_t)(inner >> 8);
		h[8] = (uint8_t)(inner >> 16);
		h[9] = 0;
		inner += 10;
	}
	*n = len;
	return p;
}

START_TEST(test_variant_nesting_cap)
{
	size_t n;
	uint8_t *p = nested(PQ_VARIANT_MAX_DEPTH, &n);
	ck_assert(decodes(META_EMPTY, sizeof META_EMPTY, p, n));
	ck_assert_uint_eq(out.len, 2 * PQ_VARIANT_MAX_DEPTH + 4);
	free(p);
	p = nested(PQ_VARIANT_MAX_DEPTH + 1, &n);
	ck_assert(!decodes(META_EMPTY, sizeof META_EMPTY, p, n));
	ck_assert_str_eq(diag.error, "variant nesting is too deep");
	ck_assert_uint_eq(out.len, 0);
	free(p);
}
END_TEST

START_TEST(test_variant_corrupt_value)
{
	/* bad values render as the hex of their bytes */
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 0, 7, 0, 2, 3, 0x0C, 1, 0x04), /* field id 7 */
			 "\"0x020200070002030c0104\"");
	ck_assert_str_eq(diag.error, "variant object: a field id is not in the metadata dictionary");
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 0, 1, 0, 3, 3, 0x0C, 1, 0x04), /* offset = end */
			 "\"0x020200010003030c0104\"");
	ck_assert_str_eq(R(META_ABC, 0x02, 1, 0, 0, 9, 0x0C, 1), "\"0x0201000009" "0c01\"");
	ck_assert_str_eq(P(0x03, 2, 0, 2, 1, 0x0C), "\"0x03020002010c\""); /* element past the end */
	ck_assert_str_eq(P(0x54), "\"0x54\"");                           /* type id 21 */
	ck_assert_str_eq(P(0x28, 39, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			 "\"0x282700000000000000000000000000000000\""); /* scale 39 */
	ck_assert_str_eq(P(0x40, 0xFF, 0xFF, 0xFF, 0xFF, 'a'), "\"0x40ffffffff61\"");
	ck_assert_str_eq(P(0x03, 0xFF, 0), "\"0x03ff00\""); /* count beyond the bytes */
	ck_assert_str_eq(P(0x1D), "\"0x1d\"");               /* short string of 7 bytes, none there */
	ck_assert_str_eq(render(META_EMPTY, sizeof META_EMPTY, NULL, 0), "\"0x\"");
	ck_assert_str_eq(diag.error, "variant value is empty");
	/* an element that is itself bad spoils the whole value */
	ck_assert_str_eq(P(0x03, 2, 0, 1, 2, 0x00, 0x54), "\"0x030200010200" "54\"");
	/* stray bytes after a value: rendered, with a note */
	ck_assert_str_eq(P(0x04, 0x00), "true");
	ck_assert_ptr_nonnull(diag.note);
}
END_TEST

/* Values sharing bytes: an error, not a rendering that multiplies (two
 * elements at the same offset, nested 60 deep, would be 2^60 values). */
START_TEST(test_variant_shared_values)
{
	ck_assert_str_eq(P(0x03, 2, 0, 0, 1, 0x04), "\"0x030200000104\"");
	ck_assert_str_eq(diag.error, "variant array: element values overlap");
	ck_assert_str_eq(R(META_ABC, 0x02, 2, 0, 1, 0, 0, 1, 0x04), "\"0x02020001000001" "04\"");
	ck_assert_str_eq(diag.error, "variant object: field values overlap");
	/* [X, X] where X is the level below, 60 levels: 4-byte offsets */
	size_t n = 1 + 60 * 14;
	uint8_t *p = malloc(n);
	size_t inner = 1;
	p[n - 1] = 0x00;
	for (int lvl = 0; lvl < 60; lvl++) {
		uint8_t *h = p + n - inner - 14;
		h[0] = 0x03 | (3 << 2);
		h[1] = 2;
		memset(h + 2, 0, 8); /* offsets 0, 0 */
		h[10] = (uint8_t)inner;
		h[11] = (uint8_t)(inner >> 8);
		h[12] = (uint8_t)(inner >> 16);
		h[13] = 0;
		inner += 14;
	}
	ck_assert(!decodes(META_EMPTY, sizeof META_EMPTY, p, n));
	ck_assert_uint_eq(out.len, 0);
	free(p);
}
END_TEST

START_TEST(test_variant_corrupt_metadata)
{
	static const uint8_t v[] = {0x04};
	static const uint8_t version2[] = {0x02, 0, 0};
	static const uint8_t too_many[] = {0x01, 200, 0, 1};
	static const uint8_t decreasing[] = {0x01, 2, 0, 2, 1, 'a', 'b'};
	static const uint8_t beyond[] = {0x01, 1, 0, 5, 'a'};
	static const uint8_t short_hdr[] = {0xC1, 1, 0};
	render(version2, sizeof version2, v, 1);
	ck_assert_str_eq((const char *)out.p, "\"0x04\"");
	ck_assert_str_eq(diag.error, "variant metadata version is not 1");
	render(too_many, sizeof too_many, v, 1);
	ck_assert_str_eq(diag.error, "variant metadata: dictionary size exceeds its bytes");
	render(decreasing, sizeof decreasing, v, 1);
	ck_assert_str_eq(diag.error, "variant metadata: a string offset is out of range");
	render(beyond, sizeof beyond, v, 1);
	ck_assert_str_eq(diag.error, "variant metadata: a string offset is out of range");
	render(short_hdr, sizeof short_hdr, v, 1);
	ck_assert_str_eq(diag.error, "variant metadata is truncated");
	render(NULL, 0, v, 1);
	ck_assert_str_eq(diag.error, "variant metadata is empty");
	/* sorted flag with keys out of order: decodes, with a note */
	static const uint8_t unsorted[] = {0x11, 2, 0, 1, 2, 'b', 'a'};
	ck_assert_str_eq(render(unsorted, sizeof unsorted, v, 1), "true");
	ck_assert_ptr_nonnull(diag.note);
	/* 4-byte offsets */
	static const uint8_t wide[] = {0xC1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 'k'};
	static const uint8_t obj[] = {0x02, 1, 0, 0, 1, 0x04};
	ck_assert_str_eq(render(wide, sizeof wide, obj, sizeof obj), "{\"k\":true}");
}
END_TEST

/* Every prefix of a valid value fails to decode, and no length crashes. */
START_TEST(test_variant_truncation)
{
	static const uint8_t vals[][24] = {
		{0x02, 1, 0, 0, 12, 0x02, 1, 1, 0, 7, 0x03, 1, 0, 3, 0x02, 0, 0},
		{0x03, 3, 0, 2, 4, 5, 0x0C, 1, 0x05, 'x', 0x00},
		{0x40, 3, 0, 0, 0, 'a', 'b', 'c'},
		{0x28, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0x50, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	};
	static const size_t lens[] = {17, 11, 8, 18, 17};
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		ck_assert(decodes(META_ABC, sizeof META_ABC, vals[k], lens[k]));
		for (size_t n = 0; n < lens[k]; n++) {
			uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees overreads */
			memcpy(copy, vals[k], n);
			ck_assert_msg(!decodes(META_ABC, sizeof META_ABC, copy, n),
				      "value %zu decodes at length %zu", k, n);
			ck_assert_uint_eq(out.len, 0);
			free(copy);
		}
	}
	for (size_t n = 0; n < sizeof META_ABC; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, META_ABC, n);
		pq_variant_meta m;
		memset(&diag, 0, sizeof diag);
		ck_assert(!pq_variant_meta_parse(copy, n, &m, &diag));
		free(copy);
	}
}
END_TEST

/* The binary examples of parquet-testing/variant. */
START_TEST(test_variant_files)
{
	DIR *d = opendir(VAR_DIR);
	if (!d) {
		fprintf(stderr, "note: %s absent, file examples not checked\n", VAR_DIR);
		return;
	}
	int checked = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t nl = strlen(e->d_name);
		if (nl < 7 || strcmp(e->d_name + nl - 6, ".value") != 0)
			continue;
		char base[256], path[512];
		snprintf(base, sizeof base, "%.*s", (int)(nl - 6), e->d_name);
		size_t mn = 0, vn = 0, jn = 0;
		snprintf(path, sizeof path, "%s%s.metadata", VAR_DIR, base);
		char *meta = test_read_file(path, &mn);
		snprintf(path, sizeof path, "%s%s.value", VAR_DIR, base);
		char *val = test_read_file(path, &vn);
		snprintf(path, sizeof path, "%s%s.json", VAR_EXP, base);
		char *json = test_read_file(path, &jn);
		ck_assert_msg(meta && val && json, "%s: files missing", base);
		while (jn && json[jn - 1] == '\n')
			json[--jn] = '\0';
		const char *got = render((const uint8_t *)meta, mn, (const uint8_t *)val, vn);
		ck_assert_msg(strcmp(got, json) == 0, "%s: got %s, want %s", base, got, json);
		ck_assert_msg(!diag.error && !diag.note, "%s: %s", base,
			      diag.error ? diag.error : diag.note);
		checked++;
		free(meta);
		free(val);
		free(json);
	}
	closedir(d);
	ck_assert_int_ge(checked, 29);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("variant");
	TCase *tc = tcase_create("decode");
	tcase_add_test(tc, test_variant_primitives);
	tcase_add_test(tc, test_variant_objects_arrays);
	tcase_add_test(tc, test_variant_nesting_cap);
	tcase_add_test(tc, test_variant_corrupt_value);
	tcase_add_test(tc, test_variant_corrupt_metadata);
	tcase_add_test(tc, test_variant_shared_values);
	tcase_add_test(tc, test_variant_truncation);
	tcase_add_test(tc, test_variant_files);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	pq_buf_free(&out);
	return failed ? 1 : 0;
}
