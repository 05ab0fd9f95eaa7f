/* pq_render_measure (core/render/render_measure.c) against the renderers:
 * for every render kind on every physical type (so also the kinds that
 * do not fit and fall back to the physical rendering), with scales, units
 * and UTC flags, over edge values, the measured lengths in VALUES, CSV and
 * JSON mode equal the lengths pq_render_value renders, value by value and
 * summed over a batch. The renderers themselves are tested against
 * independent goldens in test_render*.c. */
#include "config.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_render.h"

static pq_buf rb = PQ_BUF_INIT;

static uint64_t rendered_len(const pq_render_type *t, const pq_values *v, size_t i,
			     pq_render_mode mode)
{
	rb.len = 0;
	pq_render_value(t, v, i, mode, &rb);
	ck_assert(!rb.oom);
	return rb.len;
}

static const char *kind_str(const pq_render_type *t)
{
	static char s[96];
	snprintf(s, sizeof s, "%s/phys %d/len %d/scale %d/unit %d/utc %d", pq_render_kind_name(t->kind),
		 t->physical, t->type_length, t->scale, t->unit, t->utc);
	return s;
}

/* Every value alone, then the whole batch and a middle slice. */
static void check_all(const pq_render_type *t, const pq_values *v)
{
	pq_render_sizes total = {0};
	for (size_t i = 0; i < v->n; i++) {
		pq_render_sizes one = {0};
		pq_render_measure(t, v, i, 1, &one);
		uint64_t rv = rendered_len(t, v, i, PQ_MODE_VALUES);
		uint64_t rc = rendered_len(t, v, i, PQ_MODE_CSV);
		uint64_t rj = rendered_len(t, v, i, PQ_MODE_JSON);
		ck_assert_msg(one.values == rv && one.csv == rc && one.json == rj,
			      "%s value %zu: measured %llu/%llu/%llu, rendered %llu/%llu/%llu (json %.*s)",
			      kind_str(t), i, (unsigned long long)one.values,
			      (unsigned long long)one.csv, (unsigned long long)one.json,
			      (unsigned long long)rv, (unsigned long long)rc, (unsigned long long)rj,
			      (int)(rb.len < 80 ? rb.len : 80), (const char *)rb.p);
		ck_assert_uint_eq(one.json_empty, rj == 0);
		total.values += rv;
		total.csv += rc;
		total.json += rj;
		total.json_empty += rj == 0;
	}
	pq_render_sizes all = {0};
	pq_render_measure(t, v, 0, v->n, &all);
	ck_assert_msg(all.values == total.values && all.csv == total.csv && all.json == total.json &&
			      all.json_empty == total.json_empty,
		      "%s: batch differs", kind_str(t));
	/* clipped at the end, like the renderers */
	pq_render_sizes clip = {0};
	pq_render_measure(t, v, v->n, 5, &clip);
	ck_assert_uint_eq(clip.values + clip.csv + clip.json, 0);
}

/* ---- value sets per physical type ---------------------------------------- */

static int64_t i64s[200];
static int32_t i32s[200];
static size_t ni64, ni32;

static void fill_ints(void)
{
	int64_t extra[] = {0, 1, -1, 9, -9, 10, -10, INT64_MIN, INT64_MAX, INT64_MIN + 1,
			   INT32_MIN, INT32_MAX, 86399999, 86400000, 86399999999LL, 86400000000LL,
			   86399999999999LL, 86400000000000LL, -719528, -719529, 2932896, 2932897,
			   -719528LL * 86400000, -719528LL * 86400000 - 1, 2932897LL * 86400000 - 1,
			   2932897LL * 86400000, 1500000000123LL, 1500000000123456LL,
			   1500000000123456789LL, 1500000000000LL, 12300, 120, 1000000, 5, 50, 500};
	ni64 = 0;
	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
		i64s[ni64++] = extra[i];
	int64_t p = 1;
	for (int k = 0; k < 19; k++, p = k < 19 ? p * 10 : p) {
		i64s[ni64++] = p;
		i64s[ni64++] = p - 1;
		i64s[ni64++] = -p;
		i64s[ni64++] = -(p - 1);
	}
	ni32 = 0;
	for (size_t i = 0; i < ni64 && ni32 < 200; i++)
		if (i64s[i] >= INT32_MIN && i64s[i] <= INT32_MAX)
			i32s[ni32++] = (int32_t)i64s[i];
}

static float f32s[64];
static double f64s[64];
static size_t nf;

static void fill_floats(void)
{
	double d[] = {0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY, 1.0, -1.5, 0.1, 1e21, 1e-7,
		      123456789.125, DBL_MAX, DBL_MIN, 4.9e-324, -4.9e-324, 2.2250738585072009e-308,
		      1e300, 5e-324, 9007199254740993.0, 1e15, 1e16, 1e-6, 123e-20};
	nf = sizeof d / sizeof *d;
	for (size_t i = 0; i < nf; i++) {
		f64s[i] = d[i];
		f32s[i] = (float)d[i];
	}
	f32s[nf] = FLT_MAX;
	f32s[nf + 1] = FLT_MIN;
	f32s[nf + 2] = 1.4e-45f;
	f64s[nf] = 3.4028234663852886e38;
	f64s[nf + 1] = 1e22;
	f64s[nf + 2] = 1e-5;
	nf += 3;
}

/* Strings of every escape class, invalid UTF-8 and random bytes. */
static pq_bytes strs[400];
static uint8_t strbuf[200000];
static size_t nstr;

static void add_str(const void *p, size_t n)
{
	static size_t used;
	if (nstr == 0)
		used = 0;
	ck_assert(used + n <= sizeof strbuf && nstr < 400);
	memcpy(strbuf + used, p, n);
	strs[nstr++] = (pq_bytes){strbuf + used, n};
	used += n;
}

static void fill_strings(void)
{
	static const char *lit[] = {"", "a", "hello world", ",", "\"", "a,b", "say \"hi\"", "\n",
				    "\r", "\r\n", "\t", "\\", "\b", "\f", "\x01", "\x1f", "\x7f",
				    "x\x00y", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
				    "\xff", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
				    "\xe2\x82", "\xf0\x9f\x98", "a\xff" "b\xfe", "\xc3", "\"\"\"",
				    "null", "0x00", "plain ASCII with spaces"};
	static const size_t litn[] = {0, 1, 11, 1, 1, 3, 8, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 3, 5, 3,
				      4, 1, 2, 3, 3, 4, 2, 3, 4, 1, 3, 4, 4, 23};
	nstr = 0;
	for (size_t i = 0; i < sizeof lit / sizeof *lit; i++)
		add_str(lit[i], litn[i]);
	/* long runs of escapes: the measure sums in lanes it must flush */
	uint8_t big[20000];
	memset(big, 0x01, sizeof big);
	add_str(big, sizeof big);
	memset(big, '"', sizeof big);
	add_str(big, sizeof big);
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)"\\\n\t\x02,\"\xc3\xa9\xff"[i % 9];
	add_str(big, sizeof big);
	srand(42);
	/* mostly plain text: the word-at-a-time path, specials at every offset */
	for (int k = 0; k < 60; k++) {
		uint8_t r[100];
		size_t n = (size_t)(rand() % 100);
		for (size_t i = 0; i < n; i++) {
			int c = rand() % 40;
			r[i] = (uint8_t)(c == 0 ? "\",\\\n\x01\x7f"[rand() % 6] : c == 1 ? 0xC3 : 'a' + rand() % 26);
		}
		add_str(r, n);
	}
	for (int k = 0; k < 240; k++) {
		uint8_t r[40];
		size_t n = (size_t)(rand() % 40);
		for (size_t i = 0; i < n; i++) {
			int c = rand() % 4;
			r[i] = (uint8_t)(c == 0 ? rand() % 0x20 : c == 1 ? 0x80 + rand() % 0x80
					 : c == 2 ? "\",\\\n\r\t"[rand() % 6] : 'a' + rand() % 26);
		}
		add_str(r, n);
	}
}

static uint8_t fixed[400 * 40];
static uint8_t bools[2] = {0, 1};

/* Fixed-width values of width w: random, plus all-zero, all-0xFF and
 * sign-boundary patterns (decimals), 200 of them. */
static size_t fill_fixed(size_t w)
{
	size_t n = w ? 200 : 10;
	for (size_t i = 0; i < n * w; i++)
		fixed[i] = (uint8_t)rand();
	if (w) {
		memset(fixed, 0, w);
		memset(fixed + w, 0xFF, w);
		memset(fixed + 2 * w, 0, w);
		fixed[2 * w] = 0x80;
		memset(fixed + 3 * w, 0xFF, w);
		fixed[3 * w] = 0x7F;
		for (size_t i = 0; i < w; i++) /* small ASCII: text for the binary rule */
			fixed[4 * w + i] = (uint8_t)('a' + i % 26);
	}
	return n;
}

static const int32_t scales[] = {-1001, -1000, -5, -1, 0, 1, 2, 5, 9, 18, 19, 25, 38, 1000, 1001};

/* Every kind, with its parameter variants, over v. */
static void check_kinds(const pq_values *v)
{
	for (int k = PQ_R_BOOLEAN; k <= PQ_R_NULL; k++) {
		pq_render_type t = {.kind = (pq_render_kind)k, .physical = v->type,
				    .type_length = v->type_length};
		if (k == PQ_R_DECIMAL) {
			for (size_t s = 0; s < sizeof scales / sizeof *scales; s++) {
				t.scale = scales[s];
				check_all(&t, v);
			}
		} else if (k == PQ_R_TIME || k == PQ_R_TIMESTAMP) {
			for (int32_t u = 0; u <= 4; u++)
				for (int utc = 0; utc < 2; utc++) {
					t.unit = u;
					t.utc = utc;
					check_all(&t, v);
				}
		} else {
			check_all(&t, v);
		}
	}
}

START_TEST(test_integers_every_kind)
{
	fill_ints();
	pq_values v = {.type = PQ_INT64, .n = ni64, .v.i64 = i64s};
	check_kinds(&v);
	pq_values w = {.type = PQ_INT32, .n = ni32, .v.i32 = i32s};
	check_kinds(&w);
}
END_TEST

START_TEST(test_floats_every_kind)
{
	fill_floats();
	pq_values v = {.type = PQ_DOUBLE, .n = nf, .v.f64 = f64s};
	check_kinds(&v);
	pq_values w = {.type = PQ_FLOAT, .n = nf, .v.f32 = f32s};
	check_kinds(&w);
	pq_values b = {.type = PQ_BOOLEAN, .n = 2, .v.b = bools};
	check_kinds(&b);
}
END_TEST

START_TEST(test_float16_all)
{
	static uint8_t h[65536 * 2];
	for (uint32_t i = 0; i < 65536; i++) {
		h[2 * i] = (uint8_t)i;
		h[2 * i + 1] = (uint8_t)(i >> 8);
	}
	pq_values v = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 2, .n = 65536, .v.fixed = h};
	pq_render_type t = {.kind = PQ_R_FLOAT16, .physical = PQ_FIXED_LEN_BYTE_ARRAY,
			    .type_length = 2};
	check_all(&t, &v);
}
END_TEST

START_TEST(test_strings_every_kind)
{
	fill_strings();
	pq_values v = {.type = PQ_BYTE_ARRAY, .n = nstr, .v.ba = strs};
	check_kinds(&v);
}
END_TEST

START_TEST(test_fixed_every_kind)
{
	srand(7);
	static const int32_t widths[] = {0, 1, 2, 3, 5, 8, 12, 16, 17, 33};
	for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
		size_t n = fill_fixed((size_t)widths[i]);
		pq_values v = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = widths[i], .n = n,
			       .v.fixed = fixed};
		check_kinds(&v);
	}
	size_t n = fill_fixed(12);
	pq_values i96 = {.type = PQ_INT96, .type_length = 12, .n = n, .v.fixed = fixed};
	check_kinds(&i96);
	/* wide byte-array decimals: more than 18 digits, up to past the cap */
	static pq_bytes wide[6];
	static uint8_t wb[300];
	for (size_t i = 0; i < sizeof wb; i++)
		wb[i] = (uint8_t)(i * 37 + 11);
	size_t lens[6] = {9, 16, 32, 100, 256, 300};
	for (size_t i = 0; i < 6; i++)
		wide[i] = (pq_bytes){wb, lens[i]};
	pq_values w = {.type = PQ_BYTE_ARRAY, .n = 6, .v.ba = wide};
	check_kinds(&w);
}
END_TEST

START_TEST(test_text_measure_modes)
{
	/* The literal cases, against pq_render_text directly. */
	fill_strings();
	for (size_t i = 0; i < nstr; i++) {
		uint64_t v = 0, c = 0, j = 0;
		pq_text_measure(strs[i].p, strs[i].n, &v, &c, &j);
		rb.len = 0;
		pq_render_text(strs[i].p, strs[i].n, PQ_MODE_VALUES, &rb);
		ck_assert_uint_eq(v, rb.len);
		rb.len = 0;
		pq_render_text(strs[i].p, strs[i].n, PQ_MODE_CSV, &rb);
		ck_assert_uint_eq(c, rb.len);
		rb.len = 0;
		pq_render_text(strs[i].p, strs[i].n, PQ_MODE_JSON, &rb);
		ck_assert_uint_eq(j, rb.len);
	}
}
END_TEST

static Suite *measure_suite(void)
{
	Suite *s = suite_create("render_measure");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_integers_every_kind);
	tcase_add_test(tc, test_floats_every_kind);
	tcase_add_test(tc, test_float16_all);
	tcase_add_test(tc, test_strings_every_kind);
	tcase_add_test(tc, test_fixed_every_kind);
	tcase_add_test(tc, test_text_measure_modes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(measure_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	pq_buf_free(&rb);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
