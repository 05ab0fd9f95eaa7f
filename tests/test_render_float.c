/* Float formatting (core/render/render_float.c): shortest round-trip digits at
 * 64, 32 and 16 bits, JavaScript layout.
 *
 * Golden values come from independent sources: JavaScript's
 * Number.prototype.toString (node) for doubles; an exact rational-arithmetic
 * search (Python fractions: shortest, then closest, ties to even) for FLOAT
 * and FLOAT16; and every float in the expected outputs of the test data
 * (DuckDB), read at run time. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_render.h"
#include "test_files.h"

static const char *fmt_double_bits(uint64_t bits)
{
	static char buf[32];
	double d;
	memcpy(&d, &bits, 8);
	size_t n = pq_format_double(d, buf);
	ck_assert_uint_eq(n, strlen(buf));
	return buf;
}

static const char *fmt_float_bits(uint32_t bits)
{
	static char buf[32];
	float f;
	memcpy(&f, &bits, 4);
	size_t n = pq_format_float(f, buf);
	ck_assert_uint_eq(n, strlen(buf));
	return buf;
}

static const char *fmt_half(uint16_t h)
{
	static char buf[32];
	size_t n = pq_format_float16(h, buf);
	ck_assert_uint_eq(n, strlen(buf));
	return buf;
}

/* ---- floats ---------------------------------------------------------- */

START_TEST(test_double_shortest_js_layout)
{
	/* bits and String(x) from node (v18); -0 per interface.md. */
	static const struct { uint64_t bits; const char *s; } c[] = {
		{0x4059000000000000ull, "100"},
		{0x3fb999999999999aull, "0.1"},
		{0x3e8421f5f40d8376ull, "1.5e-7"},
		{0x3e7ad7f29abcaf48ull, "1e-7"},
		{0x3eb0c6f7a0b5ed8dull, "0.000001"},
		{0x444b1ae4d6e2ef50ull, "1e+21"},
		{0x444b1ae4d6e2ef4full, "999999999999999900000"},
		{0x441ac53a7e04bcdaull, "123456789012345680000"},
		{0x0000000000000001ull, "5e-324"},
		{0x7fefffffffffffffull, "1.7976931348623157e+308"},
		{0x0010000000000000ull, "2.2250738585072014e-308"},
		{0xc62f29c4eeb155e5ull, "-1.2345e+30"},
		{0x3fd5555555555555ull, "0.3333333333333333"},
		{0x3fe5555555555555ull, "0.6666666666666666"},
		{0x4340000000000000ull, "9007199254740992"},
		{0x44b52d02c7e14af6ull, "1e+23"},
		{0x3fd3333333333333ull, "0.3"},
		{0xbea0c6f7a0b5ed8dull, "-5e-7"},
		{0x4011666666666666ull, "4.35"},
		{0x405edd2f1a9fbe77ull, "123.456"},
		{0x3ff8000000000000ull, "1.5"},
		{0x0028000000000000ull, "6.675221575521604e-308"},
		{0x43b0000000000000ull, "1152921504606847000"},
		{0x4023a409f907360cull, "9.82038858616854"},
		{0x0000000000000000ull, "0"},
		{0x8000000000000000ull, "-0"},
		{0x7ff8000000000000ull, "NaN"},
		{0xfff8000000000001ull, "NaN"},
		{0x7ff0000000000000ull, "Infinity"},
		{0xfff0000000000000ull, "-Infinity"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		ck_assert_str_eq(fmt_double_bits(c[i].bits), c[i].s);
}
END_TEST

START_TEST(test_float_shortest_at_32_bits)
{
	/* Exact rational search: the shortest decimal that rounds back to the
	 * float, the closest of those, ties to even. */
	static const struct { uint32_t bits; const char *s; } c[] = {
		{0x00000001u, "1e-45"},
		{0x7f7fffffu, "3.4028235e+38"},
		{0x00800000u, "1.1754944e-38"},
		{0x0f800000u, "1.2621775e-29"},  /* power of two: the candidate above */
		{0x6b000000u, "1.5474251e+26"},  /* same */
		{0x473fb750u, "49079.312"},      /* tie 49079.3125: even digit */
		{0x482db7f8u, "177887.88"},      /* tie 177887.875 */
		{0x39800000u, "0.00024414062"},  /* tie, and a power of two */
		{0x3dcccccdu, "0.1"},
		{0x4b800001u, "16777218"},
		{0x40533334u, "3.3000002"},      /* from uniform_encryption expected */
		{0x3f8ccccdu, "1.1"},
		{0x412566b5u, "10.337575"},      /* byte_stream_split_extended */
		{0x7f800000u, "Infinity"},
		{0xff800000u, "-Infinity"},
		{0x7fc00000u, "NaN"},
		{0x80000000u, "-0"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		ck_assert_str_eq(fmt_float_bits(c[i].bits), c[i].s);
}
END_TEST

START_TEST(test_float16_shortest_at_16_bits)
{
	static const struct { uint16_t h; const char *s; } c[] = {
		{0x0001, "6e-8"},       /* smallest subnormal */
		{0x03ff, "0.000061"},   /* largest subnormal */
		{0x0400, "0.00006104"}, /* smallest normal */
		{0x2400, "0.01563"},    /* 2^-6: tie below falls outside, take above */
		{0x3100, "0.1562"},     /* tie 0.15625: even */
		{0x3300, "0.2188"},     /* tie 0.21875: even */
		{0x4020, "2.062"},      /* tie 2.0625 */
		{0x7bff, "65500"},      /* 65504: 655e2 reads back */
		{0x3c00, "1"},
		{0x3555, "0.3333"},
		{0x3c01, "1.001"},
		{0x4927, "10.305"},     /* byte_stream_split_extended expected */
		{0x487b, "8.96"},
		{0x4960, "10.75"},
		{0x4978, "10.94"},
		{0xc000, "-2"},
		{0x8000, "-0"},
		{0x0000, "0"},
		{0x7c00, "Infinity"},
		{0xfc00, "-Infinity"},
		{0x7e00, "NaN"},
		{0xfe01, "NaN"},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		ck_assert_str_eq(fmt_half(c[i].h), c[i].s);
	ck_assert(pq_half_to_double(0x7bff) == 65504.0);
	ck_assert(pq_half_to_double(0x0001) == ldexp(1, -24));
	ck_assert(pq_half_to_double(0xc000) == -2.0);
}
END_TEST

/* Every half reads back: the decimal, rounded to the nearest half (ties
 * to even; positive halves are ordered like their bit patterns, so a
 * bisection finds the two neighbours), is the same half. */
static uint16_t nearest_half(double d)
{
	if (isnan(d))
		return 0x7e00;
	uint16_t sign = signbit(d) ? 0x8000 : 0;
	double a = fabs(d);
	if (a >= 65520.0) /* half an ulp above the largest half: infinity */
		return (uint16_t)(sign | 0x7c00);
	uint32_t lo = 0, hi = 0x7bff; /* largest h with value <= a */
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;
		if (pq_half_to_double((uint16_t)mid) <= a)
			lo = mid;
		else
			hi = mid - 1;
	}
	uint32_t best = lo;
	if (lo < 0x7bff) {
		double below = a - pq_half_to_double((uint16_t)lo);
		double above = pq_half_to_double((uint16_t)(lo + 1)) - a;
		if (above < below || (above == below && (lo & 1)))
			best = lo + 1;
	}
	return (uint16_t)(sign | best);
}

START_TEST(test_float16_all_read_back)
{
	char buf[32];
	for (uint32_t h = 0; h < 0x10000; h++) {
		unsigned ex = (h >> 10) & 0x1f;
		if (ex == 0x1f)
			continue;
		pq_format_float16((uint16_t)h, buf);
		double d = strtod(buf, NULL);
		if ((h & 0x7fff) == 0)
			ck_assert(d == 0);
		else
			ck_assert_msg(nearest_half(d) == h, "half %04x -> %s", h, buf);
	}
}
END_TEST

/* Every float / double reads back at its width (random bit patterns). */
START_TEST(test_float_double_read_back_random)
{
	uint64_t s = 0x9E3779B97F4A7C15ull;
	char buf[32];
	for (int i = 0; i < 20000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		double d;
		memcpy(&d, &s, 8);
		if (!isfinite(d))
			continue;
		pq_format_double(d, buf);
		ck_assert_msg(strtod(buf, NULL) == d, "%s", buf);
		uint32_t b32 = (uint32_t)(s >> 32);
		float f;
		memcpy(&f, &b32, 4);
		if (!isfinite(f))
			continue;
		pq_format_float(f, buf);
		ck_assert_msg(strtof(buf, NULL) == f, "%s", buf);
	}
}
END_TEST

/* ---- golden float text from the test data (DuckDB) ------------------- */


/* Checks each float line of one values.txt: formatting the value it
 * reads back as gives the same line. Returns the count checked. A file
 * stored once for several outputs ("same_as" in facts.json) is checked
 * where it is stored. */
static size_t check_float_file(const char *path, int bits)
{
	size_t len, count = 0;
	char *text = test_read_file(path, &len);
	if (!text)
		return 0;
	char buf[32];
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strcmp(line, "\\N") == 0)
			continue;
		if (bits == 64)
			pq_format_double(strtod(line, NULL), buf);
		else if (bits == 32)
			pq_format_float(strtof(line, NULL), buf);
		else
			pq_format_float16(nearest_half(strtod(line, NULL)), buf);
		ck_assert_msg(strcmp(buf, line) == 0, "%s: expected %s, got %s", path, line, buf);
		count++;
	}
	free(text);
	return count;
}

START_TEST(test_expected_floats)
{
	const char *base = TESTDATA_DIR "/expected/data";
	DIR *dir = opendir(base);
	if (!dir) {
		fprintf(stderr, "test data not found at %s: skipped\n", base);
		return;
	}
	size_t checked = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s/facts.json", base, de->d_name);
		size_t len;
		char *facts = test_read_file(path, &len);
		if (!facts)
			continue;
		/* Leaf column entries: "dir": "...", ..., "kind": "float",
		 * "float_bits": N within one object. */
		for (char *k = strstr(facts, "\"kind\": \"float\""); k;
		     k = strstr(k + 1, "\"kind\": \"float\"")) {
			char *fb = strstr(k, "\"float_bits\": ");
			char *end = strchr(k, '}');
			if (!fb || (end && fb > end))
				continue;
			int bits = atoi(fb + 14);
			char *d = NULL;
			for (char *q = facts; (q = strstr(q, "\"dir\": \"")) && q < k; q++)
				d = q + 8;
			if (!d)
				continue;
			char *dq = strchr(d, '"');
			char name[1024];
			snprintf(name, sizeof name, "%.*s", (int)(dq - d), d);
			char vpath[4096 + 1024];
			snprintf(vpath, sizeof vpath, "%s/%s/columns/%s/values.txt", base,
				 de->d_name, name);
			checked += check_float_file(vpath, bits);
		}
		free(facts);
	}
	closedir(dir);
	ck_assert_msg(checked > 1000, "only %zu float values found", checked);
	fprintf(stderr, "test_expected_floats: %zu values checked\n", checked);
}
END_TEST

static Suite *render_float_suite(void)
{
	Suite *s = suite_create("render_float");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_double_shortest_js_layout);
	tcase_add_test(tc, test_float_shortest_at_32_bits);
	tcase_add_test(tc, test_float16_shortest_at_16_bits);
	tcase_add_test(tc, test_float16_all_read_back);
	tcase_add_test(tc, test_float_double_read_back_random);
	tcase_add_test(tc, test_expected_floats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(render_float_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
