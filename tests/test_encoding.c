#include "config.h"

/* Decoders (RLE/bit-packing hybrid, BIT_PACKED, PLAIN, BYTE_STREAM_SPLIT,
 * dictionary): the worked examples of Encodings.md, streams built by the
 * reference writers of test_encoding_helpers.h, and hostile input. The
 * DELTA_* decoders are in test_encoding_delta.c. */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_encoding_helpers.h"

static pq_error err;

/* ---- RLE / bit-packing hybrid and BIT_PACKED ---- */

/* Encodings.md: 0..7 at bit width 3, hybrid order "10001000 11000110
 * 11111010", behind a bit-packed header of one group. */
START_TEST(test_rle_spec_bitpacked_0_to_7)
{
	const uint8_t in[] = {0x03, 0x88, 0xC6, 0xFA};
	uint32_t out[8];
	size_t used = 0;
	ASSERT_OK(pq_rle_decode_u32(in, sizeof in, 3, out, 8, &used, &err), &err);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(out[i], i);
	ck_assert_uint_eq(used, 4);
	uint16_t lv[8];
	ASSERT_OK(pq_rle_decode_levels(in, sizeof in, 3, lv, 8, &used, &err), &err);
	for (uint16_t i = 0; i < 8; i++)
		ck_assert_uint_eq(lv[i], i);
}
END_TEST

/* Encodings.md: 0..7 at bit width 3, deprecated order "00000101 00111001
 * 01110111". */
START_TEST(test_bitpacked_spec_msb_0_to_7)
{
	const uint8_t in[] = {0x05, 0x39, 0x77};
	uint16_t out[8];
	size_t used = 0;
	ASSERT_OK(pq_bitpacked_decode_levels(in, sizeof in, 3, out, 8, &used, &err), &err);
	for (uint16_t i = 0; i < 8; i++)
		ck_assert_uint_eq(out[i], i);
	ck_assert_uint_eq(used, 3);
	/* Every truncation fails. */
	for (size_t len = 0; len < sizeof in; len++)
		ASSERT_STATUS(pq_bitpacked_decode_levels(in, len, 3, out, 8, NULL, &err), PQ_ECORRUPT,
			      &err);
	/* Fewer values need fewer bytes: 7 values * 3 bits = 21 bits. */
	ASSERT_OK(pq_bitpacked_decode_levels(in, 3, 3, out, 7, &used, &err), &err);
	ck_assert_uint_eq(used, 3);
	ASSERT_OK(pq_bitpacked_decode_levels(in, 2, 3, out, 5, &used, &err), &err);
	ck_assert_uint_eq(used, 2);
	ck_assert_uint_eq(out[4], 4);
}
END_TEST

START_TEST(test_bitpacked_levels_widths)
{
	/* Width 16: values are whole big-endian 16-bit words. */
	const uint8_t in[] = {0x12, 0x34, 0xff, 0xfe, 0x00, 0x01};
	uint16_t out[3];
	ASSERT_OK(pq_bitpacked_decode_levels(in, sizeof in, 16, out, 3, NULL, &err), &err);
	ck_assert_uint_eq(out[0], 0x1234);
	ck_assert_uint_eq(out[1], 0xfffe);
	ck_assert_uint_eq(out[2], 1);
	/* Width 1: MSB first. */
	const uint8_t b1[] = {0xA0};
	uint16_t o1[3];
	ASSERT_OK(pq_bitpacked_decode_levels(b1, 1, 1, o1, 3, NULL, &err), &err);
	ck_assert(o1[0] == 1 && o1[1] == 0 && o1[2] == 1);
	/* Width 0 needs no bytes. */
	size_t used = 9;
	ASSERT_OK(pq_bitpacked_decode_levels(NULL, 0, 0, out, 3, &used, &err), &err);
	ck_assert(used == 0 && out[0] == 0 && out[2] == 0);
	ASSERT_STATUS(pq_bitpacked_decode_levels(in, sizeof in, 17, out, 1, NULL, &err),
		      PQ_ECORRUPT, &err);
}
END_TEST

START_TEST(test_rle_runs_and_width0)
{
	/* RLE run of 5 fours at width 3, then a bit-packed group. */
	const uint8_t in[] = {0x0A, 0x04, 0x03, 0x88, 0xC6, 0xFA};
	uint32_t out[13];
	size_t used;
	ASSERT_OK(pq_rle_decode_u32(in, sizeof in, 3, out, 13, &used, &err), &err);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(out[i], 4);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(out[5 + i], i);
	ck_assert_uint_eq(used, 6);
	/* Width 0: an RLE run has no value bytes; a packed group no data. */
	const uint8_t z[] = {0x14, 0x03};
	uint32_t oz[18];
	memset(oz, 0xff, sizeof oz);
	ASSERT_OK(pq_rle_decode_u32(z, sizeof z, 0, oz, 18, &used, &err), &err);
	for (int i = 0; i < 18; i++)
		ck_assert_uint_eq(oz[i], 0);
	ck_assert_uint_eq(used, 2);
	/* A run longer than needed is clipped; used ends after it. */
	const uint8_t longrun[] = {0xC8, 0x01, 0x02}; /* 100 twos */
	ASSERT_OK(pq_rle_decode_u32(longrun, sizeof longrun, 2, out, 10, &used, &err), &err);
	ck_assert_uint_eq(out[9], 2);
	ck_assert_uint_eq(used, 3);
	/* n = 0 reads nothing. */
	ASSERT_OK(pq_rle_decode_u32(NULL, 0, 5, out, 0, &used, &err), &err);
	ck_assert_uint_eq(used, 0);
}
END_TEST

START_TEST(test_rle_width32_and_16)
{
	tbuf *b = calloc(1, sizeof *b);
	tb_uleb(b, 3 << 1);
	tb_bytes(b, "\xff\xff\xff\xff", 4);
	uint64_t v[8] = {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 12345678, 0xdeadbeef, 42};
	tb_uleb(b, 1 << 1 | 1);
	tb_pack_lsb(b, v, 8, 32);
	uint32_t out[11];
	size_t used;
	ASSERT_OK(pq_rle_decode_u32(b->p, b->n, 32, out, 11, &used, &err), &err);
	ck_assert_uint_eq(out[0], 0xffffffffu);
	ck_assert_uint_eq(out[2], 0xffffffffu);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(out[3 + i], v[i]);
	ck_assert_uint_eq(used, b->n);
	/* Levels at width 16, value 0xffff. */
	const uint8_t l16[] = {0x04, 0xff, 0xff};
	uint16_t lv[2];
	ASSERT_OK(pq_rle_decode_levels(l16, 3, 16, lv, 2, NULL, &err), &err);
	ck_assert_uint_eq(lv[1], 0xffff);
	ASSERT_STATUS(pq_rle_decode_levels(l16, 3, 17, lv, 2, NULL, &err), PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_rle_decode_u32(l16, 3, 33, out, 2, NULL, &err), PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_rle_decode_u32(l16, 3, -1, out, 2, NULL, &err), PQ_ECORRUPT, &err);
	free(b);
}
END_TEST

START_TEST(test_rle_bad_headers)
{
	uint32_t out[16];
	/* Varint over 32 bits. */
	const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x7f};
	ASSERT_STATUS(pq_rle_decode_u32(big, sizeof big, 1, out, 1, NULL, &err), PQ_ECORRUPT, &err);
	const uint8_t endless[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
	ASSERT_STATUS(pq_rle_decode_u32(endless, sizeof endless, 1, out, 1, NULL, &err),
		      PQ_ECORRUPT, &err);
	/* Bit-packed run of (2^31-1) groups: over 2^31-1 values. */
	const uint8_t huge_bp[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
	ASSERT_STATUS(pq_rle_decode_u32(huge_bp, sizeof huge_bp, 1, out, 1, NULL, &err),
		      PQ_ECORRUPT, &err);
	/* RLE run of 2^31-1 values is legal and clipped to n. */
	const uint8_t max_rle[] = {0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01};
	size_t used;
	ASSERT_OK(pq_rle_decode_u32(max_rle, sizeof max_rle, 1, out, 16, &used, &err), &err);
	ck_assert_uint_eq(out[15], 1);
	ck_assert_uint_eq(used, 6);
	/* RLE value wider than the bit width. */
	const uint8_t wide[] = {0x02, 0x09};
	ASSERT_STATUS(pq_rle_decode_u32(wide, sizeof wide, 3, out, 1, NULL, &err), PQ_ECORRUPT,
		      &err);
	ck_assert_ptr_nonnull(strstr(err.msg, "byte 0"));
	/* Runs end before n values. */
	const uint8_t few[] = {0x06, 0x01};
	ASSERT_STATUS(pq_rle_decode_u32(few, sizeof few, 1, out, 4, NULL, &err), PQ_ECORRUPT, &err);
	/* Zero-length runs are skipped, not looped on. */
	const uint8_t zeros[] = {0x00, 0x01, 0x01, 0x04, 0x01};
	ASSERT_OK(pq_rle_decode_u32(zeros, sizeof zeros, 1, out, 2, &used, &err), &err);
	ck_assert(out[0] == 1 && out[1] == 1 && used == 5);
}
END_TEST

/* A bit-packed run may be cut short by the end of the input as long as the
 * values needed are there. */
START_TEST(test_rle_short_last_group)
{
	const uint8_t in[] = {0x05, 0x88, 0xC6, 0xFA}; /* claims 2 groups, has 1 */
	uint32_t out[9];
	size_t used;
	ASSERT_OK(pq_rle_decode_u32(in, sizeof in, 3, out, 8, &used, &err), &err);
	ck_assert_uint_eq(out[7], 7);
	ck_assert_uint_eq(used, 4);
	ASSERT_STATUS(pq_rle_decode_u32(in, sizeof in, 3, out, 9, NULL, &err), PQ_ECORRUPT, &err);
	/* 6 values need 18 bits = 3 bytes; 5 values 15 bits = 2 bytes. */
	ASSERT_OK(pq_rle_decode_u32(in, 3, 3, out, 5, NULL, &err), &err);
	ck_assert_uint_eq(out[4], 4);
	ASSERT_STATUS(pq_rle_decode_u32(in, 2, 3, out, 6, NULL, &err), PQ_ECORRUPT, &err);
}
END_TEST

/* Random streams from the reference writer, every width, decoded whole and
 * in odd-sized batches (partial groups at both ends). */
START_TEST(test_rle_random_all_widths)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;
	tbuf *b = calloc(1, sizeof *b);
	enum { N = 1000 };
	uint32_t want[N + 64], got[N + 64];
	for (int bw = 0; bw <= 32; bw++) {
		b->n = 0;
		size_t n = 0;
		while (n < N) {
			if (rnd(&seed) % 3 == 0) {
				size_t r = 1 + rnd(&seed) % 40;
				uint64_t v = rnd_bits(&seed, bw);
				tb_uleb(b, r << 1);
				for (int k = 0; k < (bw + 7) / 8; k++)
					tb_byte(b, (unsigned)(v >> (8 * k)) & 0xff);
				for (size_t k = 0; k < r; k++)
					want[n++] = (uint32_t)v;
			} else {
				size_t g = 1 + rnd(&seed) % 5;
				uint64_t v[40];
				for (size_t k = 0; k < 8 * g; k++) {
					v[k] = rnd_bits(&seed, bw);
					want[n++] = (uint32_t)v[k];
				}
				tb_uleb(b, g << 1 | 1);
				tb_pack_lsb(b, v, 8 * g, bw);
			}
		}
		size_t used;
		ASSERT_OK(pq_rle_decode_u32(b->p, b->n, bw, got, n, &used, &err), &err);
		ck_assert_uint_eq(used, b->n);
		ck_assert(memcmp(got, want, n * sizeof *got) == 0);
		pq_rle_decoder d;
		ASSERT_OK(pq_rle_decoder_init(&d, b->p, b->n, bw, &err), &err);
		memset(got, 0, sizeof got);
		for (size_t at = 0, step = 1; at < n; step = step % 13 + 2) {
			size_t k = at + step <= n ? step : n - at;
			ASSERT_OK(pq_rle_decoder_next(&d, got + at, k, &err), &err);
			at += k;
		}
		ck_assert_msg(memcmp(got, want, n * sizeof *got) == 0, "width %d batches", bw);
		if (bw <= 16) {
			uint16_t lv[N + 64];
			ASSERT_OK(pq_rle_decode_levels(b->p, b->n, bw, lv, n, NULL, &err), &err);
			for (size_t i = 0; i < n; i++)
				ck_assert_uint_eq(lv[i], want[i]);
		}
	}
	free(b);
}
END_TEST

/* Every truncation of a stream whose last byte is needed must fail. */
START_TEST(test_rle_truncated_everywhere)
{
	tbuf *b = calloc(1, sizeof *b);
	uint64_t v[16];
	for (int i = 0; i < 16; i++)
		v[i] = (uint64_t)(i * 37) & 0x7f;
	tb_uleb(b, 2 << 1 | 1);
	tb_pack_lsb(b, v, 16, 7);
	tb_uleb(b, 300 << 1);
	tb_byte(b, 0x55);
	tb_uleb(b, 1 << 1 | 1);
	tb_pack_lsb(b, v, 8, 7);
	size_t n = 16 + 300 + 8;
	uint32_t *out = calloc(n, sizeof *out);
	ASSERT_OK(pq_rle_decode_u32(b->p, b->n, 7, out, n, NULL, &err), &err);
	for (size_t len = 0; len < b->n; len++) {
		uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees over-reads */
		memcpy(copy, b->p, len);
		ASSERT_STATUS(pq_rle_decode_u32(copy, len, 7, out, n, NULL, &err), PQ_ECORRUPT, &err);
		free(copy);
	}
	free(out);
	free(b);
}
END_TEST

START_TEST(test_rle_bool)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	/* length 3: bit-packed group 0b00001101 then an RLE run of 4 ones;
	 * a trailing byte that belongs to what follows. */
	const uint8_t in[] = {0x03, 0, 0, 0, 0x03, 0x0D, 0x08, 0x01, 0x99};
	ASSERT_STATUS(pq_decode_rle_bool(in, sizeof in, 12, &v, &used, &a, &err), PQ_ECORRUPT, &err);
	const uint8_t in2[] = {0x05, 0, 0, 0, 0x03, 0x0D, 0x08, 0x01, 0x99};
	ASSERT_OK(pq_decode_rle_bool(in2, sizeof in2, 12, &v, &used, &a, &err), &err);
	const uint8_t want[12] = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1};
	ck_assert(v.type == PQ_BOOLEAN && v.n == 12 && memcmp(v.v.b, want, 12) == 0);
	ck_assert_uint_eq(used, 9);
	const uint8_t bad_len[] = {0x10, 0, 0, 0, 0x03};
	ASSERT_STATUS(pq_decode_rle_bool(bad_len, sizeof bad_len, 1, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_decode_rle_bool(bad_len, 3, 1, &v, NULL, &a, &err), PQ_ECORRUPT, &err);
	pq_arena_free(&a);
}
END_TEST

/* ---- PLAIN ---- */

START_TEST(test_plain_fixed_types)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	const uint8_t i32[] = {0x01, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x80};
	ASSERT_OK(pq_decode_plain(PQ_INT32, 0, i32, sizeof i32, 3, &v, &used, &a, &err), &err);
	ck_assert(v.v.i32[0] == 1 && v.v.i32[1] == -1 && v.v.i32[2] == INT32_MIN && used == 12);
	const uint8_t i64[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
	ASSERT_OK(pq_decode_plain(PQ_INT64, 0, i64, sizeof i64, 1, &v, &used, &a, &err), &err);
	ck_assert(v.v.i64[0] == INT64_MAX - 1 && used == 8);
	const uint8_t f32[] = {0x00, 0x00, 0xc0, 0x3f}; /* 1.5f */
	ASSERT_OK(pq_decode_plain(PQ_FLOAT, 0, f32, 4, 1, &v, &used, &a, &err), &err);
	ck_assert(v.v.f32[0] == 1.5f);
	const uint8_t f64[] = {0, 0, 0, 0, 0, 0, 0x04, 0xc0}; /* -2.5 */
	ASSERT_OK(pq_decode_plain(PQ_DOUBLE, 0, f64, 8, 1, &v, &used, &a, &err), &err);
	ck_assert(v.v.f64[0] == -2.5);
	uint8_t i96[24];
	for (int i = 0; i < 24; i++)
		i96[i] = (uint8_t)i;
	ASSERT_OK(pq_decode_plain(PQ_INT96, 99, i96, 24, 2, &v, &used, &a, &err), &err);
	ck_assert(v.type_length == 12 && used == 24 && memcmp(v.v.fixed, i96, 24) == 0);
	ASSERT_OK(pq_decode_plain(PQ_FIXED_LEN_BYTE_ARRAY, 3, i96, 24, 8, &v, &used, &a, &err),
		  &err);
	ck_assert(v.type_length == 3 && used == 24 && v.v.fixed[23] == 23 && v.v.fixed != i96);
	const uint8_t bools[] = {0x0D, 0x01};
	ASSERT_OK(pq_decode_plain(PQ_BOOLEAN, 0, bools, 2, 9, &v, &used, &a, &err), &err);
	const uint8_t wantb[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
	ck_assert(memcmp(v.v.b, wantb, 9) == 0 && used == 2);
	ASSERT_STATUS(pq_decode_plain(PQ_BOOLEAN, 0, bools, 1, 9, &v, &used, &a, &err), PQ_ECORRUPT,
		      &err);
	pq_arena_free(&a);
}
END_TEST

/* A view of PLAIN values is the page's own bytes: only where the element's
 * alignment holds, the count fits, and the type is fixed-width. */
START_TEST(test_plain_view)
{
	_Alignas(8) uint8_t page[40];
	for (int i = 0; i < 40; i++)
		page[i] = (uint8_t)(i * 7);
	pq_values v;
	size_t used = 0;
	ck_assert(pq_plain_view(PQ_INT64, 0, page, sizeof page, 5, &v, &used));
	ck_assert(v.v.any == (void *)page && v.n == 5 && used == 40 && v.type == PQ_INT64);
	int64_t want;
	memcpy(&want, page + 8, 8);
	ck_assert(v.v.i64[1] == want); /* little-endian host: the bytes as stored */
	ck_assert(pq_plain_view(PQ_INT32, 0, page + 4, 36, 9, &v, &used) && used == 36);
	ck_assert(!pq_plain_view(PQ_INT32, 0, page + 4, 36, 10, &v, &used)); /* too many */
	ck_assert(!pq_plain_view(PQ_INT64, 0, page + 4, 36, 1, &v, &used));  /* misaligned */
	ck_assert(!pq_plain_view(PQ_DOUBLE, 0, page + 1, 39, 1, &v, &used));
	ck_assert(pq_plain_view(PQ_FIXED_LEN_BYTE_ARRAY, 3, page + 1, 39, 13, &v, &used));
	ck_assert(v.type_length == 3 && v.v.fixed == page + 1 && used == 39);
	ck_assert(pq_plain_view(PQ_INT96, 0, page + 4, 36, 3, &v, &used) && v.type_length == 12);
	ck_assert(!pq_plain_view(PQ_INT96, 0, page + 2, 36, 1, &v, &used));
	ck_assert(!pq_plain_view(PQ_BYTE_ARRAY, 0, page, 40, 1, &v, &used));
	ck_assert(!pq_plain_view(PQ_BOOLEAN, 0, page, 40, 1, &v, &used));
	ck_assert(!pq_plain_view(PQ_INT64, 0, page, 40, 0, &v, &used)); /* nothing to view */
}
END_TEST

START_TEST(test_plain_byte_array)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	const uint8_t in[] = {1, 0, 0, 0, 'a', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z', 0xEE};
	ASSERT_OK(pq_decode_plain(PQ_BYTE_ARRAY, 0, in, sizeof in, 3, &v, &used, &a, &err), &err);
	ck_assert(v.n == 3 && used == 16);
	ck_assert(v.v.ba[0].n == 1 && v.v.ba[0].p == in + 4);
	ck_assert(v.v.ba[1].n == 0);
	ck_assert(v.v.ba[2].n == 3 && memcmp(v.v.ba[2].p, "xyz", 3) == 0);
	for (size_t len = 0; len < 16; len++)
		ASSERT_STATUS(pq_decode_plain(PQ_BYTE_ARRAY, 0, in, len, 3, &v, NULL, &a, &err),
			      PQ_ECORRUPT, &err);
	const uint8_t neg[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
	ASSERT_STATUS(pq_decode_plain(PQ_BYTE_ARRAY, 0, neg, sizeof neg, 1, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	const uint8_t over[] = {5, 0, 0, 0, 'a', 'b', 'c', 'd'};
	ASSERT_STATUS(pq_decode_plain(PQ_BYTE_ARRAY, 0, over, sizeof over, 1, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	pq_arena_free(&a);
}
END_TEST

/* Truncation of every fixed-width type fails before allocating; absurd
 * counts do not allocate. */
START_TEST(test_plain_truncated_and_huge)
{
	pq_arena a;
	pq_arena_init(&a, 1 << 20);
	pq_values v;
	uint8_t buf[64] = {0};
	const int32_t types[] = {PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT, PQ_DOUBLE,
				 PQ_FIXED_LEN_BYTE_ARRAY, PQ_BOOLEAN, PQ_BYTE_ARRAY};
	const size_t need[] = {16, 32, 48, 16, 32, 20, 1, 16};
	for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
		for (size_t len = 0; len < need[t]; len++) {
			uint8_t *copy = malloc(len ? len : 1);
			memcpy(copy, buf, len);
			ASSERT_STATUS(pq_decode_plain(types[t], 5, copy, len, 4, &v, NULL, &a, &err),
				      PQ_ECORRUPT, &err);
			free(copy);
		}
		ASSERT_OK(pq_decode_plain(types[t], 5, buf, need[t], 4, &v, NULL, &a, &err), &err);
		ASSERT_STATUS(pq_decode_plain(types[t], 5, buf, sizeof buf, SIZE_MAX / 2, &v, NULL, &a,
					      &err),
			      PQ_ECORRUPT, &err);
	}
	ASSERT_STATUS(pq_decode_plain(PQ_FIXED_LEN_BYTE_ARRAY, -1, buf, 8, 1, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_decode_plain(42, 0, buf, 8, 1, &v, NULL, &a, &err), PQ_ECORRUPT, &err);
	pq_arena_free(&a);
}
END_TEST

/* ---- BYTE_STREAM_SPLIT ---- */

/* Encodings.md: three floats AA BB CC DD, 00 11 22 33, A3 B4 C5 D6 are
 * stored as AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6. */
START_TEST(test_bss_spec_example)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	const uint8_t in[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
			      0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
	const uint8_t want[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11,
				0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
	ASSERT_OK(pq_decode_byte_stream_split(PQ_FLOAT, 0, in, sizeof in, 3, &v, &a, &err), &err);
	uint32_t w0;
	memcpy(&w0, &v.v.f32[0], 4);
	ck_assert_uint_eq(w0, 0xDDCCBBAAu); /* little-endian value of AA BB CC DD */
	uint8_t raw[12];
	for (int i = 0; i < 3; i++) {
		uint32_t w;
		memcpy(&w, &v.v.f32[i], 4);
		for (int k = 0; k < 4; k++)
			raw[4 * i + k] = (uint8_t)(w >> (8 * k));
	}
	ck_assert(memcmp(raw, want, 12) == 0);
	/* The same bytes as FIXED_LEN_BYTE_ARRAY(4), INT32; as 2 values of 6. */
	ASSERT_OK(pq_decode_byte_stream_split(PQ_FIXED_LEN_BYTE_ARRAY, 4, in, 12, 3, &v, &a, &err),
		  &err);
	ck_assert(memcmp(v.v.fixed, want, 12) == 0);
	ASSERT_OK(pq_decode_byte_stream_split(PQ_INT32, 0, in, 12, 3, &v, &a, &err), &err);
	ck_assert_int_eq(v.v.i32[1], 0x33221100);
	ASSERT_OK(pq_decode_byte_stream_split(PQ_FIXED_LEN_BYTE_ARRAY, 6, in, 12, 2, &v, &a, &err),
		  &err);
	const uint8_t want6[] = {0xAA, 0xA3, 0x11, 0xCC, 0xC5, 0x33,
				 0x00, 0xBB, 0xB4, 0x22, 0xDD, 0xD6};
	ck_assert(memcmp(v.v.fixed, want6, 12) == 0);
	/* Fewer values than the streams hold: the stride stays len / K. */
	ASSERT_OK(pq_decode_byte_stream_split(PQ_FLOAT, 0, in, 12, 2, &v, &a, &err), &err);
	memcpy(&w0, &v.v.f32[1], 4);
	ck_assert_uint_eq(w0, 0x33221100u);
	ASSERT_STATUS(pq_decode_byte_stream_split(PQ_FLOAT, 0, in, 12, 4, &v, &a, &err), PQ_ECORRUPT,
		      &err);
	ASSERT_STATUS(pq_decode_byte_stream_split(PQ_DOUBLE, 0, in, 12, 1, &v, &a, &err),
		      PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_decode_byte_stream_split(PQ_BYTE_ARRAY, 0, in, 12, 1, &v, &a, &err),
		      PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_decode_byte_stream_split(PQ_FIXED_LEN_BYTE_ARRAY, 0, in, 12, 1, &v, &a,
						  &err),
		      PQ_ECORRUPT, &err);
	ASSERT_OK(pq_decode_byte_stream_split(PQ_INT64, 0, in, 0, 0, &v, &a, &err), &err);
	pq_arena_free(&a);
}
END_TEST

/* ---- dictionary ---- */

START_TEST(test_dict_gather)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	int64_t d64[] = {10, 20, 30};
	pq_values dict = {.type = PQ_INT64, .n = 3, .v.i64 = d64};
	const uint32_t idx[] = {2, 0, 0, 1};
	ASSERT_OK(pq_dict_gather(&dict, idx, 4, &v, &a, &err), &err);
	ck_assert(v.n == 4 && v.v.i64[0] == 30 && v.v.i64[3] == 20);
	const uint32_t bad[] = {0, 3};
	ASSERT_STATUS(pq_dict_gather(&dict, bad, 2, &v, &a, &err), PQ_ECORRUPT, &err);
	ck_assert_ptr_nonnull(strstr(err.msg, "index 3"));
	pq_bytes dba[] = {{(const uint8_t *)"x", 1}, {(const uint8_t *)"yz", 2}};
	pq_values dict2 = {.type = PQ_BYTE_ARRAY, .n = 2, .v.ba = dba};
	ASSERT_OK(pq_dict_gather(&dict2, idx + 1, 3, &v, &a, &err), &err);
	ck_assert(v.v.ba[2].n == 2 && v.v.ba[2].p == dba[1].p);
	uint8_t fl[] = {1, 2, 3, 4, 5, 6};
	pq_values dict3 = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 3, .n = 2, .v.fixed = fl};
	ASSERT_OK(pq_dict_gather(&dict3, idx + 1, 3, &v, &a, &err), &err);
	ck_assert(v.type_length == 3 && memcmp(v.v.fixed, "\1\2\3\1\2\3\4\5\6", 9) == 0);
	/* RLE_DICTIONARY: width byte 2, run of 3 x index 1, group 0,1,2,... */
	const uint8_t page[] = {2, 0x06, 0x01, 0x03, 0x24, 0x00};
	ASSERT_OK(pq_decode_rle_dictionary(&dict, page, sizeof page, 6, &v, NULL, &a, &err), &err);
	const int64_t want[] = {20, 20, 20, 10, 20, 30};
	ck_assert(memcmp(v.v.i64, want, sizeof want) == 0);
	/* Index 3 appears in the group's padding only if n covers it. */
	const uint8_t page_bad[] = {2, 0x03, 0xE4};
	ASSERT_OK(pq_decode_rle_dictionary(&dict, page_bad, 3, 3, &v, NULL, &a, &err), &err);
	ASSERT_STATUS(pq_decode_rle_dictionary(&dict, page_bad, 3, 4, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	const uint8_t page_w[] = {33, 0x02, 0};
	ASSERT_STATUS(pq_decode_rle_dictionary(&dict, page_w, 3, 1, &v, NULL, &a, &err), PQ_ECORRUPT,
		      &err);
	uint32_t ix[4];
	size_t used;
	ASSERT_OK(pq_decode_dict_indices(page, sizeof page, ix, 4, &used, &err), &err);
	ck_assert(ix[3] == 0 && used == sizeof page);
	ASSERT_STATUS(pq_decode_dict_indices(page, 0, ix, 1, NULL, &err), PQ_ECORRUPT, &err);
	pq_arena_free(&a);
}
END_TEST


/* ---- hostile bytes ---- */

/* Random and mutated valid streams through every decoder: the result must
 * be a clean status, never a crash (run under ASan/UBSan), and no huge
 * allocation (the arena is capped). */
START_TEST(test_decoders_random_bytes)
{
	uint64_t seed = 0xabcdef + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 64 << 20);
	const uint8_t *seeds[] = {dlba_spec, dba_spec};
	const size_t seed_len[] = {sizeof dlba_spec, sizeof dba_spec};
	for (int iter = 0; iter < 300; iter++) {
		size_t len = rnd(&seed) % 200;
		uint8_t *p = malloc(len ? len : 1);
		if (rnd(&seed) % 2) {
			int k = (int)(rnd(&seed) % 2);
			len = len < seed_len[k] ? len : seed_len[k];
			memcpy(p, seeds[k], len);
			for (int m = 0; m < 3; m++)
				if (len)
					p[rnd(&seed) % len] = (uint8_t)rnd(&seed);
		} else {
			for (size_t i = 0; i < len; i++)
				p[i] = (uint8_t)(rnd(&seed) % 3 ? rnd(&seed) : rnd(&seed) % 4);
		}
		size_t n = rnd(&seed) % 300;
		int bw = (int)(rnd(&seed) % 34);
		int32_t type = (int32_t)(rnd(&seed) % 9);
		int32_t tl = (int32_t)(rnd(&seed) % 20) - 2;
		uint32_t u[300];
		uint16_t l[300];
		pq_values v, dict = {.type = PQ_INT32, .n = 3, .v.i32 = (int32_t[]){1, 2, 3}};
		pq_status st[12];
		st[0] = pq_rle_decode_u32(p, len, bw, u, n, NULL, &err);
		st[1] = pq_rle_decode_levels(p, len, bw, l, n, NULL, &err);
		st[2] = pq_bitpacked_decode_levels(p, len, bw, l, n, NULL, &err);
		st[3] = pq_decode_rle_bool(p, len, n, &v, NULL, &a, &err);
		st[4] = pq_decode_plain(type, tl, p, len, n, &v, NULL, &a, &err);
		st[5] = pq_decode_delta_binary_packed(type, p, len, n, &v, NULL, &a, &err);
		st[6] = pq_decode_delta_length_byte_array(p, len, n, &v, NULL, &a, &err);
		st[7] = pq_decode_delta_byte_array(p, len, n, &v, NULL, &a, &err);
		st[8] = pq_decode_delta_byte_array_fixed(tl, p, len, n, &v, NULL, &a, &err);
		st[9] = pq_decode_byte_stream_split(type, tl, p, len, n, &v, &a, &err);
		st[10] = pq_decode_rle_dictionary(&dict, p, len, n, &v, NULL, &a, &err);
		st[11] = pq_decode_dict_indices(p, len, u, n, NULL, &err);
		for (int k = 0; k < 12; k++)
			ck_assert_msg(st[k] == PQ_OK || st[k] == PQ_ECORRUPT || st[k] == PQ_ELIMIT,
				      "decoder %d: %s", k, pq_status_name(st[k]));
		free(p);
		pq_arena_free(&a);
	}
}
END_TEST

static Suite *encoding_suite(void)
{
	Suite *s = suite_create("encoding");
	TCase *tc = tcase_create("rle");
	tcase_add_test(tc, test_rle_spec_bitpacked_0_to_7);
	tcase_add_test(tc, test_plain_view);
	tcase_add_test(tc, test_bitpacked_spec_msb_0_to_7);
	tcase_add_test(tc, test_bitpacked_levels_widths);
	tcase_add_test(tc, test_rle_runs_and_width0);
	tcase_add_test(tc, test_rle_width32_and_16);
	tcase_add_test(tc, test_rle_bad_headers);
	tcase_add_test(tc, test_rle_short_last_group);
	tcase_add_loop_test(tc, test_rle_random_all_widths, 0, 4);
	tcase_add_test(tc, test_rle_truncated_everywhere);
	tcase_add_test(tc, test_rle_bool);
	suite_add_tcase(s, tc);
	tc = tcase_create("plain");
	tcase_add_test(tc, test_plain_fixed_types);
	tcase_add_test(tc, test_plain_byte_array);
	tcase_add_test(tc, test_plain_truncated_and_huge);
	suite_add_tcase(s, tc);
	tc = tcase_create("bss_dict");
	tcase_add_test(tc, test_bss_spec_example);
	tcase_add_test(tc, test_dict_gather);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_decoders_random_bytes, 0, 20);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(encoding_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
