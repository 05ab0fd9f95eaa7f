/* Batch rendering (core/render/render_batch.c) gives exactly the bytes of the
 * per-value path, whose own tests (test_render.c) hold the hand-written
 * expectations; plus a few literal batches. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pq_render.h"

static const pq_render_mode modes[] = {PQ_MODE_TEXT, PQ_MODE_VALUES, PQ_MODE_CSV, PQ_MODE_JSON};

/* Batch of v[first, first+count) with separator '|' against per-value. */
static void same_as_per_value(const pq_render_type *t, const pq_values *v)
{
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		for (size_t first = 0; first < v->n; first += 3) {
			size_t count = v->n - first;
			pq_buf a = PQ_BUF_INIT, b = PQ_BUF_INIT;
			size_t ends[64];
			ck_assert_uint_le(count, 64);
			pq_render_batch(t, v, first, count, modes[m], '|', &a, ends);
			for (size_t k = 0; k < count; k++) {
				pq_render_value(t, v, first + k, modes[m], &b);
				pq_buf_putc(&b, '|');
				ck_assert_uint_eq(ends[k], b.len);
			}
			ck_assert_msg(a.len == b.len && memcmp(a.p, b.p, a.len) == 0,
				      "kind %s mode %zu first %zu:\n%.*s\nper value:\n%.*s",
				      pq_render_kind_name(t->kind), m, first, (int)a.len,
				      (const char *)a.p, (int)b.len, (const char *)b.p);
			pq_buf_free(&a);
			pq_buf_free(&b);
		}
	}
}

static pq_render_type kind(pq_render_kind k, int32_t physical, int32_t scale)
{
	pq_render_type t = pq_render_type_physical(physical, 0);
	t.kind = k;
	t.scale = scale;
	return t;
}

START_TEST(test_ints_and_decimals)
{
	int64_t i64[] = {0, 1, -1, 9, 10, -10, 99, 100, 12345, -987654321, INT64_MAX, INT64_MIN,
			 1000000000000000000, -5, 50};
	int32_t i32[] = {0, 7, -7, INT32_MAX, INT32_MIN, 100, -100, 3};
	pq_values v64 = {.type = PQ_INT64, .n = sizeof i64 / sizeof i64[0], .v.i64 = i64};
	pq_values v32 = {.type = PQ_INT32, .n = sizeof i32 / sizeof i32[0], .v.i32 = i32};
	same_as_per_value(&(pq_render_type){.kind = PQ_R_INT, .physical = PQ_INT64}, &v64);
	same_as_per_value(&(pq_render_type){.kind = PQ_R_INT, .physical = PQ_INT32}, &v32);
	for (int32_t scale = -3; scale <= 20; scale++) {
		pq_render_type t = kind(PQ_R_DECIMAL, PQ_INT64, scale);
		same_as_per_value(&t, &v64);
		t.physical = PQ_INT32;
		same_as_per_value(&t, &v32);
	}
}
END_TEST

/* Digit counts at every power of ten, against the C library. */
START_TEST(test_format_u64_boundaries)
{
	char got[PQ_FORMAT_BUF], want[32];
	uint64_t p = 1;
	for (int e = 0; e <= 19; e++, p *= 10) {
		uint64_t vals[] = {p - 1, p, p + 1, p * 2 - 1};
		for (size_t i = 0; i < 4; i++) {
			size_t n = pq_format_u64(vals[i], got);
			snprintf(want, sizeof want, "%llu", (unsigned long long)vals[i]);
			ck_assert_str_eq(got, want);
			ck_assert_uint_eq(n, strlen(want));
		}
		if (e == 19)
			break;
	}
	ck_assert_uint_eq(pq_format_u64(UINT64_MAX, got), 20);
	ck_assert_str_eq(got, "18446744073709551615");
}
END_TEST

START_TEST(test_dates)
{
	int32_t d[] = {0, -1, 1, 19000, -719528, 2932896, 2932897, -719529, INT32_MAX, INT32_MIN,
		       11016};
	pq_values v = {.type = PQ_INT32, .n = sizeof d / sizeof d[0], .v.i32 = d};
	same_as_per_value(&(pq_render_type){.kind = PQ_R_DATE, .physical = PQ_INT32}, &v);
}
END_TEST

START_TEST(test_text)
{
	static const char *const s[] = {"", "plain", "a,b", "q\"x", "line\nbreak", "cr\r",
					"tab\there", "back\\slash", "ctl\x01", "del\x7f",
					"\xc3\xa9t\xc3\xa9", "bad \xff utf8", "\xe2\x82", " spaces ",
					"x"};
	pq_bytes b[sizeof s / sizeof s[0]];
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		b[i] = (pq_bytes){(const uint8_t *)s[i], strlen(s[i])};
	pq_values v = {.type = PQ_BYTE_ARRAY, .n = sizeof s / sizeof s[0], .v.ba = b};
	same_as_per_value(&(pq_render_type){.kind = PQ_R_STRING, .physical = PQ_BYTE_ARRAY}, &v);
	same_as_per_value(&(pq_render_type){.kind = PQ_R_JSON_TEXT, .physical = PQ_BYTE_ARRAY}, &v);
	same_as_per_value(&(pq_render_type){.kind = PQ_R_BINARY, .physical = PQ_BYTE_ARRAY}, &v);
	/* plain values of every length around the copy's sizes (8, 16, 32, 64) */
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz";
	pq_bytes l[71];
	for (size_t n = 0; n <= 70; n++)
		l[n] = (pq_bytes){(const uint8_t *)abc + (n % 5), n};
	for (size_t from = 0; from <= 70; from += 20) {
		size_t cnt = from + 21 <= 71 ? 21 : 71 - from;
		pq_values lv = {.type = PQ_BYTE_ARRAY, .n = cnt, .v.ba = l + from};
		same_as_per_value(&(pq_render_type){.kind = PQ_R_STRING, .physical = PQ_BYTE_ARRAY},
				  &lv);
	}
	/* one special byte (of some mode) in a long value, at every place the
	 * 16-byte scan treats apart: first, inside, at and around a block's
	 * edge, in the overlapping tail, last */
	static const uint8_t special[] = {',', '"', '\r', '\n', '\\', '\t', 0x01, 0x1f,
					  0x7f, 0x80, 0xc3, 0xff, ' ', '{'};
	static const size_t at[] = {0, 7, 15, 16, 17, 24, 31, 32, 33, 39};
	static const size_t lens[] = {17, 32, 40};
	for (size_t c = 0; c < sizeof special; c++) {
		uint8_t text[3][10][40];
		pq_bytes sb[30];
		size_t ns = 0;
		for (size_t li = 0; li < 3; li++)
			for (size_t ai = 0; ai < 10; ai++) {
				if (at[ai] >= lens[li])
					continue;
				memcpy(text[li][ai], abc, lens[li]);
				text[li][ai][at[ai]] = special[c];
				sb[ns++] = (pq_bytes){text[li][ai], lens[li]};
			}
		pq_values sv = {.type = PQ_BYTE_ARRAY, .n = ns, .v.ba = sb};
		same_as_per_value(&(pq_render_type){.kind = PQ_R_STRING, .physical = PQ_BYTE_ARRAY},
				  &sv);
		same_as_per_value(
			&(pq_render_type){.kind = PQ_R_JSON_TEXT, .physical = PQ_BYTE_ARRAY}, &sv);
	}
}
END_TEST

START_TEST(test_other_kinds)
{
	double f[] = {0.0, -0.0, 1.5, 1e300, -2.5e-10, 0.1};
	pq_values v = {.type = PQ_DOUBLE, .n = 6, .v.f64 = f};
	same_as_per_value(&(pq_render_type){.kind = PQ_R_DOUBLE, .physical = PQ_DOUBLE}, &v);
	uint8_t bools[] = {1, 0, 1};
	pq_values vb = {.type = PQ_BOOLEAN, .n = 3, .v.b = bools};
	same_as_per_value(&(pq_render_type){.kind = PQ_R_BOOLEAN, .physical = PQ_BOOLEAN}, &vb);
	int64_t ts[] = {0, 1700000000123456, -1};
	pq_values vt = {.type = PQ_INT64, .n = 3, .v.i64 = ts};
	same_as_per_value(&(pq_render_type){.kind = PQ_R_TIMESTAMP, .physical = PQ_INT64,
					    .unit = PQ_MICROS, .utc = true}, &vt);
	/* a kind on a physical type it does not fit: the physical rendering */
	same_as_per_value(&(pq_render_type){.kind = PQ_R_DATE, .physical = PQ_DOUBLE}, &v);
}
END_TEST

START_TEST(test_literal_batches)
{
	int64_t x[] = {5, -1234, 7};
	pq_values v = {.type = PQ_INT64, .n = 3, .v.i64 = x};
	pq_buf out = PQ_BUF_INIT;
	size_t ends[3];
	pq_render_batch(&(pq_render_type){.kind = PQ_R_DECIMAL, .physical = PQ_INT64, .scale = 2},
			&v, 0, 3, PQ_MODE_CSV, '\n', &out, ends);
	ck_assert_uint_eq(out.len, strlen("0.05\n-12.34\n0.07\n"));
	ck_assert(memcmp(out.p, "0.05\n-12.34\n0.07\n", out.len) == 0);
	ck_assert_uint_eq(ends[0], 5);
	ck_assert_uint_eq(ends[1], 12);
	/* count beyond the values is clipped; no separator: values abut */
	out.len = 0;
	pq_render_batch(&(pq_render_type){.kind = PQ_R_INT, .physical = PQ_INT64}, &v, 1, 99,
			PQ_MODE_JSON, 0, &out, NULL);
	ck_assert_uint_eq(out.len, 6);
	ck_assert(memcmp(out.p, "-12347", 6) == 0);
	out.len = 0;
	pq_render_batch(&(pq_render_type){.kind = PQ_R_INT, .physical = PQ_INT64}, &v, 9, 1,
			PQ_MODE_JSON, 0, &out, NULL);
	ck_assert_uint_eq(out.len, 0);
	pq_buf_free(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("render_batch");
	TCase *tc = tcase_create("batch");
	tcase_add_test(tc, test_ints_and_decimals);
	tcase_add_test(tc, test_format_u64_boundaries);
	tcase_add_test(tc, test_dates);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_other_kinds);
	tcase_add_test(tc, test_literal_batches);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
