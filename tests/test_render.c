/* Value rendering (core/render*.c) against interface.md "Rendering values":
 * text and escapes, decimals, dates and times, dispatch, plain bytes and
 * schema mapping. Floats are in test_render_float.c.
 *
 * Golden values come from independent sources: Python's datetime (with
 * 400-year cycles) and node's Date for dates; the published int64 limits of
 * Java / pandas / Spark timestamps; the Unicode Standard (3.9, Table 3-8)
 * for U+FFFD substitution; Python integers for wide decimals; the expected
 * outputs of the test data (DuckDB) for the binary rule and INT96. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv/pq_csv.h"
#include "pq_render.h"
#include "util/pq_utf8.h"

/* ---- helpers --------------------------------------------------------- */

static pq_buf out_buf = PQ_BUF_INIT;

static const char *take(pq_buf *b)
{
	pq_buf_putc(b, '\0');
	ck_assert(!b->oom);
	return (const char *)b->p;
}

/* Renders value 0 of a one-value batch. */
static const char *render1(pq_render_type t, pq_values v, pq_render_mode mode)
{
	out_buf.len = 0;
	pq_render_value(&t, &v, 0, mode, &out_buf);
	return take(&out_buf);
}

static const char *render_i32(pq_render_type t, int32_t x, pq_render_mode mode)
{
	pq_values v = {.type = PQ_INT32, .n = 1, .v.i32 = &x};
	return render1(t, v, mode);
}

static const char *render_i64(pq_render_type t, int64_t x, pq_render_mode mode)
{
	pq_values v = {.type = PQ_INT64, .n = 1, .v.i64 = &x};
	return render1(t, v, mode);
}

static const char *render_ba(pq_render_type t, const char *s, size_t n, pq_render_mode mode)
{
	pq_bytes b = {(const uint8_t *)s, n};
	pq_values v = {.type = PQ_BYTE_ARRAY, .n = 1, .v.ba = &b};
	return render1(t, v, mode);
}

static const char *render_flba(pq_render_type t, const void *p, int32_t len, pq_render_mode mode)
{
	pq_values v = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = len, .n = 1,
		       .v.fixed = (uint8_t *)(uintptr_t)p};
	return render1(t, v, mode);
}

static pq_render_type kind(pq_render_kind k, int32_t physical)
{
	pq_render_type t = {.kind = k, .physical = physical};
	return t;
}

/* ---- integers, decimals ---------------------------------------------- */

START_TEST(test_integers)
{
	char buf[32];
	ck_assert_uint_eq(pq_format_i64(INT64_MIN, buf), 20);
	ck_assert_str_eq(buf, "-9223372036854775808");
	pq_format_i64(INT64_MAX, buf);
	ck_assert_str_eq(buf, "9223372036854775807");
	pq_format_u64(UINT64_MAX, buf);
	ck_assert_str_eq(buf, "18446744073709551615");
	pq_format_i64(0, buf);
	ck_assert_str_eq(buf, "0");
	pq_format_i64(-7, buf);
	ck_assert_str_eq(buf, "-7");
	pq_format_u64(10, buf);
	ck_assert_str_eq(buf, "10");
	pq_format_u64(100, buf);
	ck_assert_str_eq(buf, "100");

	pq_render_type ti = kind(PQ_R_INT, PQ_INT32), tu = kind(PQ_R_UINT, PQ_INT32);
	ck_assert_str_eq(render_i32(ti, -1, PQ_MODE_JSON), "-1");
	ck_assert_str_eq(render_i32(tu, -1, PQ_MODE_JSON), "4294967295");
	ck_assert_str_eq(render_i64(tu, -1, PQ_MODE_CSV), "18446744073709551615");
	ck_assert_str_eq(render_i64(ti, INT64_MIN, PQ_MODE_VALUES), "-9223372036854775808");
}
END_TEST

START_TEST(test_decimal_int)
{
	pq_render_type t = kind(PQ_R_DECIMAL, PQ_INT32);
	t.scale = 2;
	ck_assert_str_eq(render_i32(t, 100, PQ_MODE_TEXT), "1.00");
	ck_assert_str_eq(render_i32(t, -50, PQ_MODE_JSON), "-0.50");
	ck_assert_str_eq(render_i32(t, 5, PQ_MODE_CSV), "0.05");
	ck_assert_str_eq(render_i32(t, 0, PQ_MODE_TEXT), "0.00");
	ck_assert_str_eq(render_i32(t, -5, PQ_MODE_TEXT), "-0.05");
	t.scale = 0;
	ck_assert_str_eq(render_i32(t, 123, PQ_MODE_TEXT), "123");
	t.scale = -2;
	ck_assert_str_eq(render_i32(t, 123, PQ_MODE_TEXT), "12300");
	ck_assert_str_eq(render_i32(t, 0, PQ_MODE_TEXT), "0");
	t.scale = 20;
	ck_assert_str_eq(render_i64(t, 1, PQ_MODE_TEXT), "0.00000000000000000001");
	t.scale = 5;
	ck_assert_str_eq(render_i64(t, INT64_MIN, PQ_MODE_TEXT), "-92233720368547.75808");
	t.scale = 2000; /* beyond PQ_DECIMAL_SCALE_MAX: exact exponent form */
	ck_assert_str_eq(render_i64(t, -15, PQ_MODE_TEXT), "-15e-2000");
}
END_TEST

static const char *dec_bytes(const uint8_t *p, size_t n, int32_t scale)
{
	out_buf.len = 0;
	ck_assert(pq_render_decimal_be(p, n, scale, &out_buf));
	return take(&out_buf);
}

START_TEST(test_decimal_bytes)
{
	uint8_t b[40];
	/* -1 in 16 bytes */
	memset(b, 0xff, 16);
	ck_assert_str_eq(dec_bytes(b, 16, 2), "-0.01");
	/* -2^127 and 2^127 - 1 (Python) */
	memset(b, 0, 16);
	b[0] = 0x80;
	ck_assert_str_eq(dec_bytes(b, 16, 0), "-170141183460469231731687303715884105728");
	memset(b, 0xff, 16);
	b[0] = 0x7f;
	ck_assert_str_eq(dec_bytes(b, 16, 0), "170141183460469231731687303715884105727");
	ck_assert_str_eq(dec_bytes(b, 16, 38), "1.70141183460469231731687303715884105727");
	/* 2^255 - 1 and -2^255 in 32 bytes */
	memset(b, 0xff, 32);
	b[0] = 0x7f;
	ck_assert_str_eq(dec_bytes(b, 32, 0),
			 "57896044618658097711785492504343953926634992332820282019728792003956564819967");
	memset(b, 0, 32);
	b[0] = 0x80;
	ck_assert_str_eq(dec_bytes(b, 32, 10),
			 "-5789604461865809771178549250434395392663499233282028201972879200395.6564819968");
	/* Sign extension and chunk boundaries. */
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0x00, 0x80}, 2, 0), "128");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0x80}, 1, 0), "-128");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0xff, 0x00}, 2, 0), "-256");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0xff, 0x7f}, 2, 0), "-129");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0x01, 0, 0, 0, 0}, 5, 0), "4294967296");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0x3b, 0x9a, 0xca, 0x00}, 4, 0), "1000000000");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0xc4, 0x65, 0x36, 0x00}, 4, 9), "-1.000000000");
	ck_assert_str_eq(dec_bytes((const uint8_t[]){0x0d, 0xe0, 0xb6, 0xb3, 0xa7, 0x64, 0x00, 0x00},
				   8, 18), "1.000000000000000000");
	ck_assert_str_eq(dec_bytes(NULL, 0, 2), "0.00");
	/* 300 bytes of sign extension before the value: fine. */
	uint8_t big[301];
	memset(big, 0, sizeof big);
	big[300] = 5;
	ck_assert_str_eq(dec_bytes(big, sizeof big, 1), "0.5");
	memset(big, 0xff, sizeof big);
	ck_assert_str_eq(dec_bytes(big, sizeof big, 0), "-1");
	/* More significant bytes than PQ_DECIMAL_BYTES_MAX: refused, and the
	 * value falls back to the binary rule. */
	memset(big, 0x11, sizeof big);
	out_buf.len = 0;
	ck_assert(!pq_render_decimal_be(big, sizeof big, 0, &out_buf));
	ck_assert_uint_eq(out_buf.len, 0);
	pq_render_type t = kind(PQ_R_DECIMAL, PQ_BYTE_ARRAY);
	const char *s = render_ba(t, (const char *)big, sizeof big, PQ_MODE_TEXT);
	ck_assert(strncmp(s, "0x1111", 6) == 0);
	/* From a value batch: FLBA(11), as fixed_length_decimal.parquet. */
	uint8_t f11[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100};
	t = kind(PQ_R_DECIMAL, PQ_FIXED_LEN_BYTE_ARRAY);
	t.scale = 2;
	ck_assert_str_eq(render_flba(t, f11, 11, PQ_MODE_JSON), "1.00");
	ck_assert_str_eq(render_ba(t, "\xff\x38", 2, PQ_MODE_CSV), "-2.00");
}
END_TEST

/* ---- dates and times ------------------------------------------------- */

START_TEST(test_dates)
{
	static const struct { int64_t days; const char *s; } c[] = {
		{0, "1970-01-01"}, {-1, "1969-12-31"}, {1, "1970-01-02"},
		{-719528, "0000-01-01"}, {-719529, "-0001-12-31"}, {-719162, "0001-01-01"},
		{-2440588, "-4713-11-24"}, {2932896, "9999-12-31"}, {2932897, "+10000-01-01"},
		{2147483647, "+5881580-07-11"}, {-2147483648ll, "-5877641-06-23"},
		{11016, "2000-02-29"}, {19723, "2024-01-01"}, {59, "1970-03-01"},
		{-25567, "1900-01-01"}, {47482, "2100-01-01"},
		{-100000000, "-271821-04-20"}, {100000000, "+275760-09-13"}, /* node Date */
	};
	char buf[PQ_FORMAT_BUF];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		ck_assert_uint_eq(pq_format_date(c[i].days, buf), strlen(c[i].s));
		ck_assert_str_eq(buf, c[i].s);
	}
	/* Extremes must not overflow (no golden: just sane and bounded). */
	ck_assert(pq_format_date(INT64_MIN, buf) < PQ_FORMAT_BUF);
	ck_assert(buf[0] == '-');
	ck_assert(pq_format_date(INT64_MAX, buf) < PQ_FORMAT_BUF);
	ck_assert(buf[0] == '+');

	pq_render_type t = kind(PQ_R_DATE, PQ_INT32);
	ck_assert_str_eq(render_i32(t, 19723, PQ_MODE_JSON), "\"2024-01-01\"");
	ck_assert_str_eq(render_i32(t, 19723, PQ_MODE_CSV), "2024-01-01");
}
END_TEST

START_TEST(test_times)
{
	char buf[PQ_FORMAT_BUF];
	pq_format_time(0, PQ_MILLIS, false, buf);
	ck_assert_str_eq(buf, "00:00:00");
	pq_format_time(43200000, PQ_MILLIS, false, buf);
	ck_assert_str_eq(buf, "12:00:00");
	pq_format_time(43200500, PQ_MILLIS, false, buf);
	ck_assert_str_eq(buf, "12:00:00.5");
	pq_format_time(43200000123ll, PQ_MICROS, false, buf);
	ck_assert_str_eq(buf, "12:00:00.000123");
	pq_format_time(86399999, PQ_MILLIS, true, buf);
	ck_assert_str_eq(buf, "23:59:59.999Z");
	pq_format_time(86399999999999ll, PQ_NANOS, true, buf);
	ck_assert_str_eq(buf, "23:59:59.999999999Z");
	pq_format_time(1, PQ_MILLIS, true, buf); /* encrypted files' int32_field */
	ck_assert_str_eq(buf, "00:00:00.001Z");
	pq_format_time(86400000, PQ_MILLIS, true, buf); /* 24:00:00 is in range */
	ck_assert_str_eq(buf, "24:00:00Z");
	pq_format_time(86400001, PQ_MILLIS, true, buf);
	ck_assert_str_eq(buf, "86400001");
	pq_format_time(-1, PQ_MICROS, true, buf);
	ck_assert_str_eq(buf, "-1");
	pq_format_time(INT64_MIN, PQ_NANOS, false, buf);
	ck_assert_str_eq(buf, "-9223372036854775808");
	pq_format_time(5, 0, false, buf);
	ck_assert_str_eq(buf, "5");

	pq_render_type t = kind(PQ_R_TIME, PQ_INT32);
	t.unit = PQ_MILLIS;
	t.utc = true;
	ck_assert_str_eq(render_i32(t, 2, PQ_MODE_JSON), "\"00:00:00.002Z\"");
	ck_assert_str_eq(render_i32(t, -5, PQ_MODE_JSON), "-5");
	ck_assert_str_eq(render_i32(t, 86400001, PQ_MODE_JSON), "86400001");
	ck_assert_str_eq(render_i32(t, 3, PQ_MODE_VALUES), "00:00:00.003Z");
}
END_TEST

START_TEST(test_timestamps)
{
	/* Python datetime (floor division); the int64 limits agree with
	 * pandas (ns), Spark (us) and java.time.Instant (ms). */
	static const struct { int64_t v; int32_t unit; const char *s; } c[] = {
		{INT64_MIN, PQ_NANOS, "1677-09-21T00:12:43.145224192"},
		{INT64_MAX, PQ_NANOS, "2262-04-11T23:47:16.854775807"},
		{INT64_MIN, PQ_MICROS, "-290308-12-21T19:59:05.224192"},
		{INT64_MAX, PQ_MICROS, "+294247-01-10T04:00:54.775807"},
		{INT64_MIN, PQ_MILLIS, "-292275055-05-16T16:47:04.192"},
		{INT64_MAX, PQ_MILLIS, "+292278994-08-17T07:12:55.807"},
		{-1, PQ_MILLIS, "1969-12-31T23:59:59.999"},
		{-1, PQ_NANOS, "1969-12-31T23:59:59.999999999"},
		{1704141296123456ll, PQ_MICROS, "2024-01-01T20:34:56.123456"},
		{0, PQ_MILLIS, "1970-01-01T00:00:00"},
		{-86400000, PQ_MILLIS, "1969-12-31T00:00:00"},
		{1500, PQ_MILLIS, "1970-01-01T00:00:01.5"},
		{123000, PQ_MICROS, "1970-01-01T00:00:00.123"},
		{1608822900000000ll, PQ_MILLIS, "+52951-07-27T10:00:00"}, /* node Date */
	};
	char buf[PQ_FORMAT_BUF];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		ck_assert_uint_eq(pq_format_timestamp(c[i].v, c[i].unit, false, buf), strlen(c[i].s));
		ck_assert_str_eq(buf, c[i].s);
	}
	pq_format_timestamp(1608822900000000ll, PQ_MILLIS, true, buf);
	ck_assert_str_eq(buf, "+52951-07-27T10:00:00Z"); /* nested_structs.rust expected */
	pq_format_timestamp(42, 7, true, buf);
	ck_assert_str_eq(buf, "42");

	pq_render_type t = kind(PQ_R_TIMESTAMP, PQ_INT64);
	t.unit = PQ_MICROS;
	ck_assert_str_eq(render_i64(t, 0, PQ_MODE_JSON), "\"1970-01-01T00:00:00\"");
	t.utc = true;
	ck_assert_str_eq(render_i64(t, 0, PQ_MODE_CSV), "1970-01-01T00:00:00Z");
}
END_TEST

static void put_int96(uint8_t *p, int64_t nanos, uint32_t jd)
{
	uint64_t u = (uint64_t)nanos;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(u >> (8 * i));
	for (int i = 0; i < 4; i++)
		p[8 + i] = (uint8_t)(jd >> (8 * i));
}

START_TEST(test_int96)
{
	static const struct { uint32_t jd; int64_t nanos; const char *s; } c[] = {
		{2u, 4294967296ll, "-4713-11-26T00:00:04.294967296"},   /* encrypted files */
		{3u, 8589934593ll, "-4713-11-27T00:00:08.589934593"},
		{4189105064u, -32509551616000ll, "+11464668-01-02T14:58:10.448384"}, /* spark */
		{2454892u, 0, "2009-03-01T00:00:00"},
		{2440588u, 86400000000000ll, "1970-01-02T00:00:00"},
		{2440588u, -1, "1969-12-31T23:59:59.999999999"},
		{0u, INT64_MIN, "-5005-08-15T00:12:43.145224192"},
		{4294967295u, INT64_MAX, "+11754801-03-23T23:47:16.854775807"},
		{0u, 0, "-4713-11-24T00:00:00"},
	};
	char buf[PQ_FORMAT_BUF];
	uint8_t b[12];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		put_int96(b, c[i].nanos, c[i].jd);
		ck_assert_uint_eq(pq_format_int96(b, buf), strlen(c[i].s));
		ck_assert_str_eq(buf, c[i].s);
	}
	/* Through a batch of two, in JSON. */
	uint8_t two[24];
	put_int96(two, 0, 2454892u);
	put_int96(two + 12, 60000000000ll, 2454892u);
	pq_values v = {.type = PQ_INT96, .type_length = 12, .n = 2, .v.fixed = two};
	pq_render_type t = pq_render_type_physical(PQ_INT96, 0);
	out_buf.len = 0;
	pq_render_value(&t, &v, 1, PQ_MODE_JSON, &out_buf);
	ck_assert_str_eq(take(&out_buf), "\"2009-03-01T00:01:00\"");
}
END_TEST

START_TEST(test_interval_uuid)
{
	char buf[PQ_FORMAT_BUF];
	uint8_t iv[12] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
	pq_format_interval(iv, buf);
	ck_assert_str_eq(buf, "P1M2DT0.003S");
	memset(iv, 0, 12);
	pq_format_interval(iv, buf);
	ck_assert_str_eq(buf, "P0M0DT0S");
	uint8_t iv2[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0xdc, 0x05, 0, 0}; /* 1500 ms */
	pq_format_interval(iv2, buf);
	ck_assert_str_eq(buf, "P0M1DT1.5S");
	memset(iv, 0xff, 12);
	pq_format_interval(iv, buf);
	ck_assert_str_eq(buf, "P4294967295M4294967295DT4294967.295S");
	pq_render_type t = kind(PQ_R_INTERVAL, PQ_FIXED_LEN_BYTE_ARRAY);
	ck_assert_str_eq(render_flba(t, iv2, 12, PQ_MODE_JSON), "\"P0M1DT1.5S\"");
	/* Wrong width: the binary rule. */
	ck_assert_str_eq(render_flba(t, iv2, 11, PQ_MODE_TEXT), "0x0000000001000000dc0500");

	uint8_t u[16];
	for (int i = 0; i < 16; i++)
		u[i] = (uint8_t)(i * 17 + 10);
	pq_format_uuid(u, buf);
	ck_assert_str_eq(buf, "0a1b2c3d-4e5f-7081-92a3-b4c5d6e7f809");
	t = kind(PQ_R_UUID, PQ_FIXED_LEN_BYTE_ARRAY);
	ck_assert_str_eq(render_flba(t, u, 16, PQ_MODE_JSON),
			 "\"0a1b2c3d-4e5f-7081-92a3-b4c5d6e7f809\"");
	ck_assert_str_eq(render_flba(t, u, 16, PQ_MODE_CSV), "0a1b2c3d-4e5f-7081-92a3-b4c5d6e7f809");
}
END_TEST

/* ---- text ------------------------------------------------------------ */

static const char *plain(pq_render_type t, const void *p, size_t n, pq_render_mode mode, bool *ok);

#define S(lit) lit, sizeof(lit) - 1

START_TEST(test_escapes_every_mode)
{
	pq_render_type t = kind(PQ_R_STRING, PQ_BYTE_ARRAY);
	const char in[] = "a\\b\nc\rd\te\"f,g\x01h\x1fi\x7fj\bk\fl";
	size_t n = sizeof in - 1;
	ck_assert_str_eq(render_ba(t, in, n, PQ_MODE_TEXT), in);
	ck_assert_str_eq(render_ba(t, in, n, PQ_MODE_VALUES),
			 "a\\\\b\\nc\\rd\\te\"f,g\x01h\x1fi\x7fj\bk\fl");
	ck_assert_str_eq(render_ba(t, in, n, PQ_MODE_CSV),
			 "\"a\\b\nc\rd\te\"\"f,g\x01h\x1fi\x7fj\bk\fl\"");
	ck_assert_str_eq(render_ba(t, in, n, PQ_MODE_JSON),
			 "\"a\\\\b\\nc\\rd\\te\\\"f,g\\u0001h\\u001fi\x7fj\\bk\\fl\"");
	/* Empty: CSV `""` (not NULL), JSON "". */
	ck_assert_str_eq(render_ba(t, "", 0, PQ_MODE_CSV), "\"\"");
	ck_assert_str_eq(render_ba(t, "", 0, PQ_MODE_JSON), "\"\"");
	ck_assert_str_eq(render_ba(t, "", 0, PQ_MODE_VALUES), "");
	/* CSV quotes only for , " CR LF. */
	ck_assert_str_eq(render_ba(t, S("plain text\t"), PQ_MODE_CSV), "plain text\t");
	ck_assert_str_eq(render_ba(t, S("a,b"), PQ_MODE_CSV), "\"a,b\"");
	ck_assert_str_eq(render_ba(t, S("say \"hi\""), PQ_MODE_CSV), "\"say \"\"hi\"\"\"");
	ck_assert_str_eq(render_ba(t, S("a\rb"), PQ_MODE_CSV), "\"a\rb\"");
	/* Non-ASCII stays raw UTF-8 everywhere. */
	ck_assert_str_eq(render_ba(t, S("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), PQ_MODE_JSON),
			 "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* Helpers. */
	out_buf.len = 0;
	pq_render_json_string((const uint8_t *)"x\"", 2, &out_buf);
	pq_render_csv_field((const uint8_t *)"y,", 2, &out_buf);
	pq_render_values_escape((const uint8_t *)"z\n", 2, &out_buf);
	ck_assert_str_eq(take(&out_buf), "\"x\\\"\"\"y,\"z\\n");
	/* JSON-typed text is a JSON string too. */
	t.kind = PQ_R_JSON_TEXT;
	ck_assert_str_eq(render_ba(t, S("{\"a\":1}"), PQ_MODE_JSON), "\"{\\\"a\\\":1}\"");
}
END_TEST

START_TEST(test_invalid_utf8_replacement)
{
	pq_render_type t = kind(PQ_R_STRING, PQ_BYTE_ARRAY);
#define FFFD "\xef\xbf\xbd"
	/* Unicode 15, Table 3-8: one U+FFFD per maximal subpart. */
	ck_assert_str_eq(render_ba(t, S("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64"),
				   PQ_MODE_TEXT),
			 "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d");
	ck_assert_str_eq(render_ba(t, S("\xc0\x80"), PQ_MODE_TEXT), FFFD FFFD); /* overlong */
	ck_assert_str_eq(render_ba(t, S("\xe0\x80\x80"), PQ_MODE_TEXT), FFFD FFFD FFFD);
	ck_assert_str_eq(render_ba(t, S("\xed\xa0\x80"), PQ_MODE_TEXT), FFFD FFFD FFFD); /* surrogate */
	ck_assert_str_eq(render_ba(t, S("\xf4\x90\x80\x80"), PQ_MODE_TEXT), FFFD FFFD FFFD FFFD);
	ck_assert_str_eq(render_ba(t, S("\xf5x"), PQ_MODE_TEXT), FFFD "x");
	ck_assert_str_eq(render_ba(t, S("ab\xe2\x82"), PQ_MODE_TEXT), "ab" FFFD); /* truncated */
	ck_assert_str_eq(render_ba(t, S("\xf0\x9f\x98"), PQ_MODE_JSON), "\"" FFFD "\"");
	ck_assert_str_eq(render_ba(t, S("\xff,"), PQ_MODE_CSV), "\"" FFFD ",\"");
	ck_assert_str_eq(render_ba(t, S("\xff\n"), PQ_MODE_VALUES), FFFD "\\n");
	/* Largest valid code point and the edges of the ranges. */
	ck_assert_str_eq(render_ba(t, S("\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80"), PQ_MODE_TEXT),
			 "\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80");
	ck_assert_uint_eq(pq_utf8_first_invalid((const uint8_t *)"ab\xc3\xa9\xc3", 5), 4);
	ck_assert_uint_eq(pq_utf8_first_invalid((const uint8_t *)"ab\xc3\xa9", 4), 4);
}
END_TEST

/* The one UTF-8 validator (pq_utf8.h), as the renderer and the CSV
 * conversion use it: the well-formed edges of Table 3-7 and the invalid
 * examples of Unicode 15 3.9 and Markus Kuhn's UTF-8 decoder stress test
 * (overlongs, surrogates, above U+10FFFF, lone continuations, truncated
 * sequences, bytes that never occur). */
START_TEST(test_utf8_validator)
{
	static const char *const valid[] = {
		"\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf",
		"\xee\x80\x80", "\xef\xbf\xbd", "\xef\xbf\xbe", "\xef\xbf\xbf",
		"\xf0\x90\x80\x80", "\xf3\xbf\xbf\xbf", "\xf4\x8f\xbf\xbf",
		"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5", /* "kosme" */
	};
	static const char *const invalid[] = {
		"\x80", "\xbf", "\x80\xbf\x80",                           /* continuations */
		"\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xe0\x9f\xbf",   /* overlongs */
		"\xf0\x80\x80\xaf", "\xf0\x8f\xbf\xbf", "\xf8\x80\x80\x80\xaf",
		"\xfc\x80\x80\x80\x80\xaf",
		"\xed\xa0\x80", "\xed\xad\xbf", "\xed\xbf\xbf",             /* surrogates */
		"\xed\xa0\x80\xed\xb0\x80",
		"\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf", "\xf5\x80\x80\x80", /* > U+10FFFF */
		"\xc2", "\xe2\x82", "\xf0\x9f\x98", "\xdf", "\xef\xbf",      /* truncated */
		"\xc2\x41", "\xe2\x28\xa1", "\xf0\x28\x8c\xbc",          /* bad continuation */
		"\xfe", "\xff", "\xfe\xfe\xff\xff",                           /* never used */
	};
	char buf[64], json[64];
	for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
		size_t n = strlen(valid[i]);
		ck_assert_uint_eq(pq_utf8_first_invalid((const uint8_t *)valid[i], n), n);
		int l = snprintf(buf, sizeof buf, "abcdefghij%sxyz", valid[i]);
		ck_assert_uint_eq(pq_utf8_first_invalid((const uint8_t *)buf, (size_t)l), (size_t)l);
		l = snprintf(json, sizeof json, "\"%s\"", valid[i]);
		ck_assert(pq_cv_json_valid((const uint8_t *)json, (size_t)l));
	}
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
		size_t n = strlen(invalid[i]);
		ck_assert_msg(pq_utf8_first_invalid((const uint8_t *)invalid[i], n) == 0,
			      "invalid #%zu", i);
		/* after an ASCII run longer than a word, and inside valid text */
		int l = snprintf(buf, sizeof buf, "abcdefghij%s\xc3\xa9", invalid[i]);
		ck_assert_uint_eq(pq_utf8_first_invalid((const uint8_t *)buf, (size_t)l), 10);
		l = snprintf(buf, sizeof buf, "\xc3\xa9%sabcdefghij", invalid[i]);
		ck_assert_uint_eq(pq_utf8_first_invalid((const uint8_t *)buf, (size_t)l), 2);
		l = snprintf(json, sizeof json, "\"%s\"", invalid[i]);
		ck_assert_msg(!pq_cv_json_valid((const uint8_t *)json, (size_t)l), "json #%zu", i);
	}
	ck_assert_uint_eq(pq_utf8_first_invalid(NULL, 0), 0);
	/* Unicode 15 Table 3-8: one U+FFFD per maximal subpart. */
	pq_render_type t = kind(PQ_R_STRING, PQ_BYTE_ARRAY);
	ck_assert_str_eq(render_ba(t, S("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64"),
				   PQ_MODE_TEXT),
			 "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d");
}
END_TEST

START_TEST(test_binary_rule)
{
	pq_render_type t = kind(PQ_R_BINARY, PQ_BYTE_ARRAY);
	/* As binary.parquet's expected: TAB/LF/CR are text, other controls hex. */
	ck_assert_str_eq(render_ba(t, S("\x00"), PQ_MODE_VALUES), "0x00");
	ck_assert_str_eq(render_ba(t, S("\x08"), PQ_MODE_VALUES), "0x08");
	ck_assert_str_eq(render_ba(t, S("\t"), PQ_MODE_VALUES), "\\t");
	ck_assert_str_eq(render_ba(t, S("\n"), PQ_MODE_VALUES), "\\n");
	ck_assert_str_eq(render_ba(t, S("\n"), PQ_MODE_CSV), "\"\n\"");
	ck_assert_str_eq(render_ba(t, S("\x0b"), PQ_MODE_CSV), "0x0b");
	ck_assert_str_eq(render_ba(t, S("\x0c"), PQ_MODE_TEXT), "0x0c");
	ck_assert_str_eq(render_ba(t, S("\x0e"), PQ_MODE_TEXT), "0x0e");
	ck_assert_str_eq(render_ba(t, S("\x1f"), PQ_MODE_TEXT), "0x1f");
	ck_assert_str_eq(render_ba(t, S("\x7f"), PQ_MODE_TEXT), "0x7f");
	ck_assert_str_eq(render_ba(t, S("\x00"), PQ_MODE_JSON), "\"0x00\"");
	ck_assert_str_eq(render_ba(t, S("ok \xc3\xa9"), PQ_MODE_JSON), "\"ok \xc3\xa9\"");
	ck_assert_str_eq(render_ba(t, S("\xc3"), PQ_MODE_TEXT), "0xc3"); /* invalid UTF-8 */
	ck_assert_str_eq(render_ba(t, S("AB\xff"), PQ_MODE_TEXT), "0x4142ff");
	ck_assert_str_eq(render_ba(t, "", 0, PQ_MODE_CSV), "\"\"");
	ck_assert_str_eq(render_ba(t, "", 0, PQ_MODE_TEXT), "");
	ck_assert_str_eq(render_ba(t, NULL, 0, PQ_MODE_JSON), "\"\"");
	ck_assert_str_eq(render_flba(t, NULL, 0, PQ_MODE_CSV), "\"\"");
	bool ok;
	ck_assert_str_eq(plain(t, NULL, 0, PQ_MODE_VALUES, &ok), "");
	ck_assert(ok);
	/* FLBA, as uniform_encryption's flba_field. */
	uint8_t z[10] = {0};
	ck_assert_str_eq(render_flba(t, z, 10, PQ_MODE_VALUES), "0x00000000000000000000");
	ck_assert_str_eq(render_flba(t, "03795", 5, PQ_MODE_VALUES), "03795");
	/* GEOMETRY: always hex, empty `0x`. */
	t.kind = PQ_R_GEO;
	ck_assert_str_eq(render_ba(t, S("abc"), PQ_MODE_TEXT), "0x616263");
	ck_assert_str_eq(render_ba(t, "", 0, PQ_MODE_JSON), "\"0x\"");
	ck_assert(pq_binary_is_text((const uint8_t *)"a\tb\r\n", 5));
	ck_assert(!pq_binary_is_text((const uint8_t *)"a\x7f", 2));
}
END_TEST

/* ---- kinds, modes, plain bytes, schema ------------------------------- */

START_TEST(test_json_and_csv_atoms)
{
	uint8_t bt = 1, bf = 0;
	pq_values vb = {.type = PQ_BOOLEAN, .n = 1, .v.b = &bt};
	pq_render_type tb = pq_render_type_physical(PQ_BOOLEAN, 0);
	ck_assert_str_eq(render1(tb, vb, PQ_MODE_JSON), "true");
	vb.v.b = &bf;
	ck_assert_str_eq(render1(tb, vb, PQ_MODE_CSV), "false");

	double d[4] = {NAN, INFINITY, -INFINITY, -0.0};
	pq_values vd = {.type = PQ_DOUBLE, .n = 4, .v.f64 = d};
	pq_render_type td = pq_render_type_physical(PQ_DOUBLE, 0);
	const char *json[4] = {"\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "-0"};
	const char *csv[4] = {"NaN", "Infinity", "-Infinity", "-0"};
	for (size_t i = 0; i < 4; i++) {
		out_buf.len = 0;
		pq_render_value(&td, &vd, i, PQ_MODE_JSON, &out_buf);
		ck_assert_str_eq(take(&out_buf), json[i]);
		out_buf.len = 0;
		pq_render_value(&td, &vd, i, PQ_MODE_CSV, &out_buf);
		ck_assert_str_eq(take(&out_buf), csv[i]);
	}
	/* Out of range index: nothing. */
	out_buf.len = 0;
	pq_render_value(&td, &vd, 4, PQ_MODE_JSON, &out_buf);
	ck_assert_uint_eq(out_buf.len, 0);

	float f = 1.1f;
	pq_values vf = {.type = PQ_FLOAT, .n = 1, .v.f32 = &f};
	ck_assert_str_eq(render1(pq_render_type_physical(PQ_FLOAT, 0), vf, PQ_MODE_JSON), "1.1");

	uint8_t h[4] = {0x00, 0x7e, 0x27, 0x49}; /* NaN, 10.305 (LE) */
	pq_render_type th = kind(PQ_R_FLOAT16, PQ_FIXED_LEN_BYTE_ARRAY);
	pq_values vh = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 2, .n = 2, .v.fixed = h};
	out_buf.len = 0;
	pq_render_value(&th, &vh, 0, PQ_MODE_JSON, &out_buf);
	pq_render_value(&th, &vh, 1, PQ_MODE_JSON, &out_buf);
	ck_assert_str_eq(take(&out_buf), "\"NaN\"10.305");

	pq_render_type tn = kind(PQ_R_NULL, PQ_INT32);
	ck_assert_str_eq(render_i32(tn, 1, PQ_MODE_JSON), "null");
	ck_assert_str_eq(render_i32(tn, 1, PQ_MODE_VALUES), "\\N");
	ck_assert_str_eq(render_i32(tn, 1, PQ_MODE_CSV), "");

	/* A kind that does not fit the physical type: the physical rendering. */
	pq_render_type tdate = kind(PQ_R_DATE, PQ_DOUBLE);
	double one = 1.5;
	pq_values v1 = {.type = PQ_DOUBLE, .n = 1, .v.f64 = &one};
	ck_assert_str_eq(render1(tdate, v1, PQ_MODE_JSON), "1.5");
	pq_render_type tuuid = kind(PQ_R_UUID, PQ_FIXED_LEN_BYTE_ARRAY);
	ck_assert_str_eq(render_flba(tuuid, "abc", 3, PQ_MODE_JSON), "\"abc\"");
}
END_TEST

static const char *plain(pq_render_type t, const void *p, size_t n, pq_render_mode mode, bool *ok)
{
	out_buf.len = 0;
	*ok = pq_render_plain_bytes(&t, p, n, mode, &out_buf);
	return take(&out_buf);
}

START_TEST(test_plain_bytes)
{
	bool ok;
	pq_render_type t = pq_render_type_physical(PQ_INT32, 0);
	ck_assert_str_eq(plain(t, "\xff\xff\xff\xff", 4, PQ_MODE_JSON, &ok), "-1");
	ck_assert(ok);
	ck_assert_str_eq(plain(t, "\x01\x00\x00", 3, PQ_MODE_JSON, &ok), "");
	ck_assert(!ok);
	t = pq_render_type_physical(PQ_INT64, 0);
	ck_assert_str_eq(plain(t, "\x00\x00\x00\x00\x00\x00\x00\x80", 8, PQ_MODE_TEXT, &ok),
			 "-9223372036854775808");
	t = pq_render_type_physical(PQ_DOUBLE, 0);
	ck_assert_str_eq(plain(t, "\x9a\x99\x99\x99\x99\x99\xb9\x3f", 8, PQ_MODE_TEXT, &ok), "0.1");
	t = pq_render_type_physical(PQ_FLOAT, 0);
	ck_assert_str_eq(plain(t, "\x00\x00\xc0\x7f", 4, PQ_MODE_JSON, &ok), "\"NaN\"");
	t = pq_render_type_physical(PQ_BOOLEAN, 0);
	ck_assert_str_eq(plain(t, "\x01", 1, PQ_MODE_TEXT, &ok), "true");
	ck_assert_str_eq(plain(t, "", 0, PQ_MODE_TEXT, &ok), "");
	ck_assert(!ok);
	uint8_t i96[12];
	put_int96(i96, 0, 2454892u);
	t = pq_render_type_physical(PQ_INT96, 12);
	ck_assert_str_eq(plain(t, i96, 12, PQ_MODE_TEXT, &ok), "2009-03-01T00:00:00");
	ck_assert(ok);
	t = kind(PQ_R_STRING, PQ_BYTE_ARRAY);
	ck_assert_str_eq(plain(t, "Alice", 5, PQ_MODE_JSON, &ok), "\"Alice\"");
	t = kind(PQ_R_UUID, PQ_FIXED_LEN_BYTE_ARRAY);
	t.type_length = 16;
	ck_assert_str_eq(plain(t, "0123456789abcde", 15, PQ_MODE_TEXT, &ok), "");
	ck_assert(!ok);
	t = kind(PQ_R_FLOAT16, PQ_FIXED_LEN_BYTE_ARRAY);
	t.type_length = 2;
	ck_assert_str_eq(plain(t, "\x00\x3c", 2, PQ_MODE_TEXT, &ok), "1");
	ck_assert(ok);
	t = kind(PQ_R_DECIMAL, PQ_FIXED_LEN_BYTE_ARRAY);
	t.type_length = 4;
	t.scale = 3;
	ck_assert_str_eq(plain(t, "\x00\x0f\x51\x62", 4, PQ_MODE_TEXT, &ok), "1003.874");
}
END_TEST

static pq_schema_element leaf(int32_t type, int32_t len)
{
	pq_schema_element e;
	memset(&e, 0, sizeof e);
	e.has_type = true;
	e.type = type;
	if (len) {
		e.has_type_length = true;
		e.type_length = len;
	}
	return e;
}

START_TEST(test_type_of_schema)
{
	pq_schema_element e = leaf(PQ_INT32, 0);
	e.has_converted_type = true;
	e.converted_type = PQ_CT_TIME_MILLIS;
	pq_render_type t = pq_render_type_of(&e);
	ck_assert_int_eq(t.kind, PQ_R_TIME);
	ck_assert_int_eq(t.unit, PQ_MILLIS);
	ck_assert(t.utc); /* legacy converted types are UTC */

	e = leaf(PQ_INT64, 0);
	e.has_logicalType = true;
	e.logicalType.has_TIMESTAMP = true;
	e.logicalType.TIMESTAMP.unit.has_NANOS = true;
	t = pq_render_type_of(&e);
	ck_assert_int_eq(t.kind, PQ_R_TIMESTAMP);
	ck_assert_int_eq(t.unit, PQ_NANOS);
	ck_assert(!t.utc);

	e = leaf(PQ_INT32, 0);
	e.has_logicalType = true;
	e.logicalType.has_INTEGER = true;
	e.logicalType.INTEGER.bitWidth = 8;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_UINT);
	e.logicalType.INTEGER.isSigned = true;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_INT);

	e = leaf(PQ_FIXED_LEN_BYTE_ARRAY, 16);
	e.has_logicalType = true;
	e.logicalType.has_UUID = true;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_UUID);
	e.type_length = 8;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_BINARY);

	e = leaf(PQ_FIXED_LEN_BYTE_ARRAY, 12);
	e.has_converted_type = true;
	e.converted_type = PQ_CT_INTERVAL;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_INTERVAL);

	e = leaf(PQ_BYTE_ARRAY, 0);
	e.has_converted_type = true;
	e.converted_type = PQ_CT_DECIMAL;
	e.has_scale = true;
	e.scale = 3;
	t = pq_render_type_of(&e);
	ck_assert_int_eq(t.kind, PQ_R_DECIMAL);
	ck_assert_int_eq(t.scale, 3);

	/* A logical type this build does not know: the converted type. */
	e = leaf(PQ_BYTE_ARRAY, 0);
	e.has_logicalType = true;
	e.logicalType.unknown_member = 99;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_BINARY);
	e.has_converted_type = true;
	e.converted_type = PQ_CT_UTF8;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_STRING);

	/* An annotation that does not fit the physical type is ignored. */
	e = leaf(PQ_INT32, 0);
	e.has_logicalType = true;
	e.logicalType.has_STRING = true;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_INT);

	e = leaf(PQ_INT32, 0);
	e.has_logicalType = true;
	e.logicalType.has_UNKNOWN = true;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_NULL);

	e = leaf(PQ_BYTE_ARRAY, 0);
	e.has_logicalType = true;
	e.logicalType.has_GEOMETRY = true;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_GEO);

	e = leaf(PQ_FIXED_LEN_BYTE_ARRAY, 2);
	e.has_logicalType = true;
	e.logicalType.has_FLOAT16 = true;
	ck_assert_int_eq(pq_render_type_of(&e).kind, PQ_R_FLOAT16);
	ck_assert_str_eq(pq_render_kind_name(PQ_R_FLOAT16), "float");
	ck_assert_int_eq(pq_render_type_of(&(pq_schema_element){0}).kind, PQ_R_BINARY);
}
END_TEST

static Suite *render_suite(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_integers);
	tcase_add_test(tc, test_decimal_int);
	tcase_add_test(tc, test_decimal_bytes);
	tcase_add_test(tc, test_dates);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_timestamps);
	tcase_add_test(tc, test_int96);
	tcase_add_test(tc, test_interval_uuid);
	tcase_add_test(tc, test_escapes_every_mode);
	tcase_add_test(tc, test_invalid_utf8_replacement);
	tcase_add_test(tc, test_utf8_validator);
	tcase_add_test(tc, test_binary_rule);
	tcase_add_test(tc, test_json_and_csv_atoms);
	tcase_add_test(tc, test_plain_bytes);
	tcase_add_test(tc, test_type_of_schema);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(render_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	pq_buf_free(&out_buf);
	return failed ? 1 : 0;
}
