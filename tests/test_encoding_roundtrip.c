#include "config.h"

/* Encoders: the spec's worked examples byte for byte, argument checks, and
 * encoder -> decoder round trips on random data. */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_encoding_helpers.h"

static pq_error err;

static void assert_bytes(const pq_buf *b, const uint8_t *want, size_t n)
{
	ck_assert_msg(!b->oom && b->len == n, "length %zu, want %zu", b->len, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(b->p[i] == want[i], "byte %zu: %02x, want %02x", i, b->p[i], want[i]);
}

/* ---- the spec's examples, encoded ---- */

START_TEST(test_encode_spec_bitpacking)
{
	pq_buf b = PQ_BUF_INIT;
	const uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	ASSERT_OK(pq_rle_encode_u32(v, 8, 3, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0x03, 0x88, 0xC6, 0xFA}, 4);
	b.len = 0;
	const uint16_t l[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	ASSERT_OK(pq_bitpacked_encode_levels(l, 8, 3, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0x05, 0x39, 0x77}, 3);
	b.len = 0;
	ASSERT_OK(pq_rle_encode_levels(l, 8, 3, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0x03, 0x88, 0xC6, 0xFA}, 4);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_encode_spec_delta)
{
	pq_buf b = PQ_BUF_INIT;
	int32_t ex1[] = {1, 2, 3, 4, 5};
	pq_values v = {.type = PQ_INT32, .n = 5, .v.i32 = ex1};
	ASSERT_OK(pq_encode_delta_binary_packed(&v, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0}, 10);
	b.len = 0;
	int64_t ex2[] = {7, 5, 3, 1, 2, 3, 4, 5};
	v = (pq_values){.type = PQ_INT64, .n = 8, .v.i64 = ex2};
	ASSERT_OK(pq_encode_delta_binary_packed(&v, &b, &err), &err);
	assert_bytes(&b,
		     (const uint8_t[]){0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0,
				       0, 0},
		     18);
	b.len = 0;
	pq_bytes s1[] = {{(const uint8_t *)"Hello", 5},
			 {(const uint8_t *)"World", 5},
			 {(const uint8_t *)"Foobar", 6},
			 {(const uint8_t *)"ABCDEF", 6}};
	v = (pq_values){.type = PQ_BYTE_ARRAY, .n = 4, .v.ba = s1};
	ASSERT_OK(pq_encode_delta_length_byte_array(&v, &b, &err), &err);
	assert_bytes(&b, dlba_spec, sizeof dlba_spec);
	b.len = 0;
	pq_bytes s2[] = {{(const uint8_t *)"axis", 4},
			 {(const uint8_t *)"axle", 4},
			 {(const uint8_t *)"babble", 6},
			 {(const uint8_t *)"babyhood", 8}};
	v = (pq_values){.type = PQ_BYTE_ARRAY, .n = 4, .v.ba = s2};
	ASSERT_OK(pq_encode_delta_byte_array(&v, &b, &err), &err);
	assert_bytes(&b, dba_spec, sizeof dba_spec);
	/* Zero values: a header with count 0 and first value 0. */
	b.len = 0;
	v = (pq_values){.type = PQ_INT64, .n = 0, .v.i64 = ex2};
	ASSERT_OK(pq_encode_delta_binary_packed(&v, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0x80, 0x01, 4, 0, 0}, 5);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_encode_spec_bss_plain)
{
	pq_buf b = PQ_BUF_INIT;
	uint8_t raw[12] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
	pq_values v = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 4, .n = 3, .v.fixed = raw};
	ASSERT_OK(pq_encode_byte_stream_split(&v, &b, &err), &err);
	const uint8_t want[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
				0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
	assert_bytes(&b, want, 12);
	b.len = 0;
	float f[3] = {1.5f, -2.0f, 0.0f};
	v = (pq_values){.type = PQ_FLOAT, .n = 3, .v.f32 = f};
	ASSERT_OK(pq_encode_plain(&v, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0}, 12);
	b.len = 0;
	uint8_t bits[10] = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
	v = (pq_values){.type = PQ_BOOLEAN, .n = 10, .v.b = bits};
	ASSERT_OK(pq_encode_plain(&v, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){0x0D, 0x03}, 2);
	b.len = 0;
	pq_bytes s[] = {{(const uint8_t *)"ab", 2}, {NULL, 0}};
	v = (pq_values){.type = PQ_BYTE_ARRAY, .n = 2, .v.ba = s};
	ASSERT_OK(pq_encode_plain(&v, &b, &err), &err);
	assert_bytes(&b, (const uint8_t[]){2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0}, 10);
	b.len = 0;
	ASSERT_OK(pq_encode_rle_bool(&(pq_values){.type = PQ_BOOLEAN, .n = 10, .v.b = bits}, &b,
				     &err),
		  &err);
	/* length 3: one group of 8 (padded to 16 bits, 2 groups) ... check by decoding. */
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values d;
	size_t used;
	ASSERT_OK(pq_decode_rle_bool(b.p, b.len, 10, &d, &used, &a, &err), &err);
	ck_assert(used == b.len && memcmp(d.v.b, bits, 10) == 0);
	pq_arena_free(&a);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_encode_bad_arguments)
{
	pq_buf b = PQ_BUF_INIT;
	const uint32_t v[3] = {1, 8, 2};
	ASSERT_STATUS(pq_rle_encode_u32(v, 3, 3, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_rle_encode_u32(v, 3, 33, &b, &err), PQ_EINVAL, &err);
	const uint16_t l[2] = {0, 4};
	ASSERT_STATUS(pq_rle_encode_levels(l, 2, 2, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_bitpacked_encode_levels(l, 2, 2, &b, &err), PQ_EINVAL, &err);
	uint8_t two[1] = {2};
	pq_values bv = {.type = PQ_BOOLEAN, .n = 1, .v.b = two};
	ASSERT_STATUS(pq_encode_plain(&bv, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_encode_rle_bool(&bv, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_encode_delta_binary_packed(&bv, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_encode_delta_length_byte_array(&bv, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_encode_delta_byte_array(&bv, &b, &err), PQ_EINVAL, &err);
	ASSERT_STATUS(pq_encode_byte_stream_split(&bv, &b, &err), PQ_EINVAL, &err);
	pq_buf_free(&b);
}
END_TEST

/* Constant data becomes RLE runs: a few bytes for many values. */
START_TEST(test_encode_rle_runs_compact)
{
	enum { N = 100000 };
	uint32_t *v = calloc(N, sizeof *v);
	for (size_t i = 0; i < N; i++)
		v[i] = i < N / 2 ? 5 : 6;
	v[3] = 1; /* a literal group at the start */
	pq_buf b = PQ_BUF_INIT;
	ASSERT_OK(pq_rle_encode_u32(v, N, 3, &b, &err), &err);
	ck_assert_msg(b.len < 16, "%zu bytes", b.len);
	uint32_t *back = calloc(N, sizeof *back);
	size_t used;
	ASSERT_OK(pq_rle_decode_u32(b.p, b.len, 3, back, N, &used, &err), &err);
	ck_assert(used == b.len && memcmp(v, back, N * sizeof *v) == 0);
	free(v);
	free(back);
	pq_buf_free(&b);
}
END_TEST

/* ---- random round trips ---- */

START_TEST(test_roundtrip_rle)
{
	uint64_t seed = 99 + (uint64_t)_i;
	enum { N = 3000 };
	uint32_t *v = calloc(N, sizeof *v), *back = calloc(N, sizeof *back);
	uint16_t lv[N], lback[N];
	for (int bw = 0; bw <= 32; bw++) {
		size_t n = rnd(&seed) % N;
		for (size_t i = 0; i < n;) {
			/* Mixed literals and runs of every length around 8. */
			size_t r = rnd(&seed) % 3 ? 1 : 1 + rnd(&seed) % 20;
			uint32_t x = (uint32_t)rnd_bits(&seed, bw);
			for (size_t k = 0; k < r && i < n; k++)
				v[i++] = x;
		}
		pq_buf b = PQ_BUF_INIT;
		ASSERT_OK(pq_rle_encode_u32(v, n, bw, &b, &err), &err);
		size_t used;
		ASSERT_OK(pq_rle_decode_u32(b.p, b.len, bw, back, n, &used, &err), &err);
		ck_assert_uint_eq(used, b.len);
		ck_assert_msg(memcmp(v, back, n * sizeof *v) == 0, "width %d", bw);
		if (bw <= 16) {
			for (size_t i = 0; i < n; i++)
				lv[i] = (uint16_t)v[i];
			b.len = 0;
			ASSERT_OK(pq_rle_encode_levels(lv, n, bw, &b, &err), &err);
			ASSERT_OK(pq_rle_decode_levels(b.p, b.len, bw, lback, n, NULL, &err), &err);
			ck_assert(memcmp(lv, lback, n * sizeof *lv) == 0);
			b.len = 0;
			ASSERT_OK(pq_bitpacked_encode_levels(lv, n, bw, &b, &err), &err);
			ck_assert_uint_eq(b.len, (n * (size_t)bw + 7) / 8);
			ASSERT_OK(pq_bitpacked_decode_levels(b.p, b.len, bw, lback, n, &used, &err),
				  &err);
			ck_assert(used == b.len && memcmp(lv, lback, n * sizeof *lv) == 0);
		}
		pq_buf_free(&b);
	}
	free(v);
	free(back);
}
END_TEST

static size_t pq_min_keep(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Random values of a type, in the arena: extremes mixed with small numbers. */
static pq_values random_values(int32_t type, int32_t tl, size_t n, uint64_t *seed, pq_arena *a)
{
	pq_values v = {.type = type,
		       .type_length = type == PQ_INT96 ? 12 : type == PQ_FIXED_LEN_BYTE_ARRAY ? tl : 0,
		       .n = n};
	switch (type) {
	case PQ_BOOLEAN:
		v.v.b = pq_arena_calloc(a, n, 1);
		for (size_t i = 0; i < n; i++)
			v.v.b[i] = (uint8_t)(rnd(seed) % 5 == 0);
		break;
	case PQ_INT32:
	case PQ_FLOAT:
		v.v.i32 = pq_arena_calloc(a, n, 4);
		for (size_t i = 0; i < n; i++) {
			uint64_t r = rnd(seed) % 4;
			v.v.i32[i] = r == 0 ? INT32_MIN : r == 1 ? INT32_MAX
					: r == 2 ? (int32_t)(rnd(seed) % 100)
						 : (int32_t)(uint32_t)rnd(seed);
		}
		break;
	case PQ_INT64:
	case PQ_DOUBLE:
		v.v.i64 = pq_arena_calloc(a, n, 8);
		for (size_t i = 0; i < n; i++) {
			uint64_t r = rnd(seed) % 4;
			v.v.i64[i] = r == 0 ? INT64_MIN : r == 1 ? INT64_MAX
					: r == 2 ? (int64_t)(rnd(seed) % 1000) - 500
						 : (int64_t)rnd(seed);
		}
		break;
	case PQ_INT96:
	case PQ_FIXED_LEN_BYTE_ARRAY:
		v.v.fixed = pq_arena_calloc(a, n, (size_t)v.type_length);
		for (size_t i = 0; i < n * (size_t)v.type_length; i++)
			v.v.fixed[i] = (uint8_t)(rnd(seed) % 3 ? 'a' + rnd(seed) % 3 : rnd(seed));
		break;
	case PQ_BYTE_ARRAY:
		v.v.ba = pq_arena_calloc(a, n, sizeof(pq_bytes));
		for (size_t i = 0; i < n; i++) {
			size_t len = rnd(seed) % 5 ? rnd(seed) % 12 : rnd(seed) % 300;
			uint8_t *p = pq_arena_alloc(a, len + 1);
			/* Share prefixes with the previous value often. */
			size_t keep = i && rnd(seed) % 2 ? pq_min_keep(v.v.ba[i - 1].n, len) : 0;
			if (keep)
				memcpy(p, v.v.ba[i - 1].p, keep);
			for (size_t k = keep; k < len; k++)
				p[k] = (uint8_t)('a' + rnd(seed) % 4);
			v.v.ba[i] = (pq_bytes){p, len};
		}
		break;
	default:
		ck_abort();
	}
	return v;
}

static size_t value_size(const pq_values *v)
{
	switch (v->type) {
	case PQ_BOOLEAN:
		return 1;
	case PQ_INT32:
	case PQ_FLOAT:
		return 4;
	case PQ_INT64:
	case PQ_DOUBLE:
		return 8;
	default:
		return (size_t)v->type_length;
	}
}

static void assert_same(const pq_values *a, const pq_values *b)
{
	ck_assert_int_eq(a->type, b->type);
	ck_assert_uint_eq(a->n, b->n);
	if (a->type == PQ_BYTE_ARRAY) {
		for (size_t i = 0; i < a->n; i++) {
			ck_assert_msg(a->v.ba[i].n == b->v.ba[i].n, "value %zu length", i);
			ck_assert_msg(a->v.ba[i].n == 0 ||
					      memcmp(a->v.ba[i].p, b->v.ba[i].p, a->v.ba[i].n) == 0,
				      "value %zu bytes", i);
		}
		return;
	}
	ck_assert_int_eq(a->type_length, b->type_length);
	/* Bitwise comparison: NaN payloads and -0 must survive too. */
	ck_assert(a->n == 0 || memcmp(a->v.any, b->v.any, a->n * value_size(a)) == 0);
}

static const int32_t all_types[] = {PQ_BOOLEAN, PQ_INT32, PQ_INT64, PQ_INT96,
				    PQ_FLOAT, PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY};

START_TEST(test_roundtrip_plain)
{
	uint64_t seed = 5 + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 0);
	for (size_t t = 0; t < sizeof all_types / sizeof *all_types; t++) {
		size_t n = rnd(&seed) % 500;
		int32_t tl = 1 + (int32_t)(rnd(&seed) % 20);
		pq_values in = random_values(all_types[t], tl, n, &seed, &a), out;
		pq_buf b = PQ_BUF_INIT;
		ASSERT_OK(pq_encode_plain(&in, &b, &err), &err);
		size_t used;
		ASSERT_OK(pq_decode_plain(in.type, tl, b.p, b.len, n, &out, &used, &a, &err), &err);
		ck_assert_uint_eq(used, b.len);
		assert_same(&in, &out);
		if (in.type == PQ_BOOLEAN) {
			b.len = 0;
			ASSERT_OK(pq_encode_rle_bool(&in, &b, &err), &err);
			ASSERT_OK(pq_decode_rle_bool(b.p, b.len, n, &out, &used, &a, &err), &err);
			ck_assert_uint_eq(used, b.len);
			assert_same(&in, &out);
		}
		pq_buf_free(&b);
	}
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_roundtrip_delta)
{
	uint64_t seed = 77 + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 0);
	for (int is64 = 0; is64 <= 1; is64++) {
		size_t n = rnd(&seed) % 1000;
		pq_values in = random_values(is64 ? PQ_INT64 : PQ_INT32, 0, n, &seed, &a), out;
		/* Sometimes a smooth sequence, where widths stay small. */
		if (_i % 2)
			for (size_t i = 1; i < n; i++) {
				if (is64)
					in.v.i64[i] = (int64_t)((uint64_t)in.v.i64[i - 1] + rnd(&seed) % 9);
				else
					in.v.i32[i] = (int32_t)((uint32_t)in.v.i32[i - 1] + rnd(&seed) % 9);
			}
		pq_buf b = PQ_BUF_INIT;
		ASSERT_OK(pq_encode_delta_binary_packed(&in, &b, &err), &err);
		/* Writers must not use more bits than the type (Encodings.md). */
		size_t used;
		ASSERT_OK(pq_decode_delta_binary_packed(in.type, b.p, b.len, n, &out, &used, &a, &err),
			  &err);
		ck_assert_uint_eq(used, b.len);
		assert_same(&in, &out);
		pq_buf_free(&b);
	}
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_roundtrip_delta_bytes)
{
	uint64_t seed = 1234 + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 0);
	size_t n = rnd(&seed) % 700;
	pq_values in = random_values(PQ_BYTE_ARRAY, 0, n, &seed, &a), out;
	pq_buf b = PQ_BUF_INIT;
	size_t used;
	ASSERT_OK(pq_encode_delta_length_byte_array(&in, &b, &err), &err);
	ASSERT_OK(pq_decode_delta_length_byte_array(b.p, b.len, n, &out, &used, &a, &err), &err);
	ck_assert_uint_eq(used, b.len);
	assert_same(&in, &out);
	b.len = 0;
	ASSERT_OK(pq_encode_delta_byte_array(&in, &b, &err), &err);
	ASSERT_OK(pq_decode_delta_byte_array(b.p, b.len, n, &out, &used, &a, &err), &err);
	ck_assert_uint_eq(used, b.len);
	assert_same(&in, &out);
	/* FIXED_LEN_BYTE_ARRAY through DELTA_BYTE_ARRAY. */
	int32_t tl = 1 + (int32_t)(rnd(&seed) % 9);
	pq_values fin = random_values(PQ_FIXED_LEN_BYTE_ARRAY, tl, n, &seed, &a);
	b.len = 0;
	ASSERT_OK(pq_encode_delta_byte_array(&fin, &b, &err), &err);
	ASSERT_OK(pq_decode_delta_byte_array_fixed(tl, b.p, b.len, n, &out, &used, &a, &err), &err);
	ck_assert_uint_eq(used, b.len);
	assert_same(&fin, &out);
	pq_buf_free(&b);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_roundtrip_bss)
{
	uint64_t seed = 4321 + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 0);
	const int32_t types[] = {PQ_INT32, PQ_INT64, PQ_FLOAT, PQ_DOUBLE, PQ_FIXED_LEN_BYTE_ARRAY};
	for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
		size_t n = rnd(&seed) % 400;
		int32_t tl = 1 + (int32_t)(rnd(&seed) % 17);
		pq_values in = random_values(types[t], tl, n, &seed, &a), out;
		pq_buf b = PQ_BUF_INIT;
		ASSERT_OK(pq_encode_byte_stream_split(&in, &b, &err), &err);
		ck_assert_uint_eq(b.len, n * value_size(&in));
		ASSERT_OK(pq_decode_byte_stream_split(in.type, tl, b.p, b.len, n, &out, &a, &err),
			  &err);
		assert_same(&in, &out);
		pq_buf_free(&b);
	}
	pq_arena_free(&a);
}
END_TEST

/* Dictionary path end to end: PLAIN dictionary page, RLE_DICTIONARY data. */
START_TEST(test_roundtrip_dictionary)
{
	uint64_t seed = 31 + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 0);
	size_t dn = 1 + rnd(&seed) % 300, n = rnd(&seed) % 2000;
	pq_values dict = random_values(PQ_BYTE_ARRAY, 0, dn, &seed, &a), pdict, out;
	uint32_t *idx = calloc(n + 1, sizeof *idx);
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)(rnd(&seed) % 4 ? rnd(&seed) % dn : dn - 1);
	pq_buf page = PQ_BUF_INIT, data = PQ_BUF_INIT;
	ASSERT_OK(pq_encode_plain(&dict, &page, &err), &err);
	ASSERT_OK(pq_decode_plain(PQ_BYTE_ARRAY, 0, page.p, page.len, dn, &pdict, NULL, &a, &err),
		  &err);
	int bw = pq_bit_width(dn - 1);
	pq_buf_putc(&data, (char)bw);
	ASSERT_OK(pq_rle_encode_u32(idx, n, bw, &data, &err), &err);
	size_t used;
	ASSERT_OK(pq_decode_rle_dictionary(&pdict, data.p, data.len, n, &out, &used, &a, &err), &err);
	ck_assert_uint_eq(used, data.len);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(out.v.ba[i].n, dict.v.ba[idx[i]].n);
		ck_assert(out.v.ba[i].n == 0 ||
			  memcmp(out.v.ba[i].p, dict.v.ba[idx[i]].p, out.v.ba[i].n) == 0);
	}
	free(idx);
	pq_buf_free(&page);
	pq_buf_free(&data);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_bit_width)
{
	ck_assert_int_eq(pq_bit_width(0), 0);
	ck_assert_int_eq(pq_bit_width(1), 1);
	ck_assert_int_eq(pq_bit_width(7), 3);
	ck_assert_int_eq(pq_bit_width(8), 4);
	ck_assert_int_eq(pq_bit_width(UINT32_MAX), 32);
	ck_assert_int_eq(pq_bit_width(UINT64_MAX), 64);
}
END_TEST

static Suite *roundtrip_suite(void)
{
	Suite *s = suite_create("encoding_roundtrip");
	TCase *tc = tcase_create("spec");
	tcase_add_test(tc, test_encode_spec_bitpacking);
	tcase_add_test(tc, test_encode_spec_delta);
	tcase_add_test(tc, test_encode_spec_bss_plain);
	tcase_add_test(tc, test_encode_bad_arguments);
	tcase_add_test(tc, test_encode_rle_runs_compact);
	tcase_add_test(tc, test_bit_width);
	suite_add_tcase(s, tc);
	tc = tcase_create("random");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_roundtrip_rle, 0, 6);
	tcase_add_loop_test(tc, test_roundtrip_plain, 0, 20);
	tcase_add_loop_test(tc, test_roundtrip_delta, 0, 40);
	tcase_add_loop_test(tc, test_roundtrip_delta_bytes, 0, 20);
	tcase_add_loop_test(tc, test_roundtrip_bss, 0, 20);
	tcase_add_loop_test(tc, test_roundtrip_dictionary, 0, 10);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(roundtrip_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
