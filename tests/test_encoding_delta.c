#include "config.h"

/* DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decoders:
 * the worked examples of Encodings.md, streams built bit by bit by the
 * reference writers of test_encoding_helpers.h, wrap-around and hostile
 * headers. */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_encoding_helpers.h"

static pq_error err;

/* ---- DELTA_BINARY_PACKED ---- */

/* Header with block 128, 4 miniblocks (the spec's examples use block 8,
 * which it calls invalid for real use). */
static void delta_header(tbuf *b, uint64_t total, int64_t first)
{
	tb_uleb(b, 128);
	tb_uleb(b, 4);
	tb_uleb(b, total);
	tb_zigzag(b, first);
}

/* Encodings.md example 1 (1, 2, 3, 4, 5) verbatim is rejected for its block
 * size 8; with block 128 it is: min delta 1, all bit widths 0. */
START_TEST(test_delta_spec_example1)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	const uint8_t verbatim[] = {8, 1, 5, 2, 2, 0};
	ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_INT32, verbatim, sizeof verbatim, 5, &v,
						    NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	ck_assert_ptr_nonnull(strstr(err.msg, "block size 8"));
	const uint8_t in[] = {0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0};
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, in, sizeof in, 5, &v, &used, &a, &err),
		  &err);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(v.v.i32[i], i + 1);
	ck_assert_uint_eq(used, sizeof in);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT64, in, sizeof in, 5, &v, &used, &a, &err),
		  &err);
	ck_assert(v.type == PQ_INT64 && v.v.i64[4] == 5);
	pq_arena_free(&a);
}
END_TEST

/* Example 2 (7, 5, 3, 1, 2, 3, 4, 5): min delta -2, width 2, relative
 * deltas 0,0,0,3,3,3,3 packed LSB first = 0xC0 0x3F (then the miniblock's
 * padding to 32 values). */
START_TEST(test_delta_spec_example2)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	const uint8_t in[] = {0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
	const int32_t want[] = {7, 5, 3, 1, 2, 3, 4, 5};
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, in, sizeof in, 8, &v, &used, &a, &err),
		  &err);
	ck_assert(memcmp(v.v.i32, want, sizeof want) == 0);
	ck_assert_uint_eq(used, sizeof in);
	/* Fewer values than the header: the first n, used still spans all. */
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, in, sizeof in, 3, &v, &used, &a, &err),
		  &err);
	ck_assert(v.n == 3 && v.v.i32[2] == 3 && used == sizeof in);
	/* More values than the header holds. */
	ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_INT32, in, sizeof in, 9, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	/* The last miniblock without its padding is tolerated. */
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, in, 12, 8, &v, &used, &a, &err), &err);
	ck_assert(memcmp(v.v.i32, want, sizeof want) == 0 && used == 12);
	/* ...but not without bytes of values. */
	ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_INT32, in, 11, 8, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_delta_bad_headers)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	const struct {
		uint64_t block, mini;
	} bad[] = {{0, 4}, {100, 4}, {128, 0}, {128, 3}, {128, 8}, {256, 16}, {128, 129},
		   {(uint64_t)1 << 32, 4}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		tbuf *b = calloc(1, sizeof *b);
		tb_uleb(b, bad[i].block);
		tb_uleb(b, bad[i].mini);
		tb_uleb(b, 1);
		tb_zigzag(b, 0);
		ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 1, &v, NULL, &a, &err),
			      PQ_ECORRUPT, &err);
		free(b);
	}
	ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_FLOAT, NULL, 0, 0, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	/* A 256-value block of 8 miniblocks is fine; one value needs no block. */
	const uint8_t ok[] = {0x80, 0x02, 8, 1, 0x7f};
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, ok, sizeof ok, 1, &v, NULL, &a, &err),
		  &err);
	ck_assert_int_eq(v.v.i32[0], -64);
	/* Zero values. */
	const uint8_t none[] = {0x80, 0x01, 4, 0, 0};
	size_t used;
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, none, sizeof none, 0, &v, &used, &a, &err),
		  &err);
	ck_assert(v.n == 0 && used == 5);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_delta_widths_over_limit)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	tbuf *b = calloc(1, sizeof *b);
	delta_header(b, 2, 0);
	tb_zigzag(b, 0);
	tb_bytes(b, "\x21\0\0\0", 4); /* 33 bits */
	uint8_t body[33 * 4] = {0};
	tb_bytes(b, body, sizeof body);
	/* INT32 miniblocks may be up to 64 bits wide (DuckDB writes 33) */
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, b->p, b->n, 2, &v, NULL, &a, &err), &err);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 2, &v, NULL, &a, &err), &err);
	b->n = 0;
	delta_header(b, 2, 0);
	tb_zigzag(b, 0);
	tb_bytes(b, "\x41\0\0\0", 4); /* 65 bits */
	uint8_t body65[65 * 4] = {0};
	tb_bytes(b, body65, sizeof body65);
	ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 2, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	ASSERT_STATUS(pq_decode_delta_binary_packed(PQ_INT32, b->p, b->n, 2, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	ck_assert_ptr_nonnull(strstr(err.msg, "bit width 65 exceeds 64"));
	/* Widths of miniblocks no value uses are arbitrary. */
	b->n = 0;
	delta_header(b, 2, 5);
	tb_zigzag(b, 1);
	tb_bytes(b, "\0\xff\xff\xff", 4);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, b->p, b->n, 2, &v, NULL, &a, &err), &err);
	ck_assert(v.v.i32[0] == 5 && v.v.i32[1] == 6);
	free(b);
	pq_arena_free(&a);
}
END_TEST

/* INT32 0, 2147483647, -2147483648 with deltas computed in 64 bits (as
 * DuckDB does): min delta -4294967295, packed deltas 6442450942 and 0, a
 * 33-bit miniblock; the 32-bit sums wrap to the same values. */
START_TEST(test_delta_int32_width33)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	tbuf *b = calloc(1, sizeof *b);
	delta_header(b, 3, 0);
	tb_zigzag(b, -4294967295ll);
	tb_bytes(b, "\x21\0\0\0", 4);
	uint8_t body[33 * 4] = {0xFE, 0xFF, 0xFF, 0x7F, 0x01}; /* 0x17FFFFFFE, LSB first */
	tb_bytes(b, body, sizeof body);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, b->p, b->n, 3, &v, NULL, &a, &err), &err);
	ck_assert_int_eq(v.v.i32[0], 0);
	ck_assert_int_eq(v.v.i32[1], INT32_MAX);
	ck_assert_int_eq(v.v.i32[2], INT32_MIN);
	/* the same bytes as INT64 give the 64-bit sums */
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 3, &v, NULL, &a, &err), &err);
	ck_assert(v.v.i64[1] == INT32_MAX && v.v.i64[2] == INT32_MIN);
	free(b);
	pq_arena_free(&a);
}
END_TEST

/* Wrap-around: deltas and min deltas that overflow the type, widths 32/64. */
START_TEST(test_delta_wraparound)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	tbuf *b = calloc(1, sizeof *b);
	/* INT32: MAX, MIN (delta +1 wraps). */
	delta_header(b, 2, INT32_MAX);
	tb_zigzag(b, 1);
	tb_bytes(b, "\0\0\0\0", 4);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, b->p, b->n, 2, &v, NULL, &a, &err), &err);
	ck_assert(v.v.i32[0] == INT32_MAX && v.v.i32[1] == INT32_MIN);
	/* INT32: 0, MIN, -1: min delta -2^31, relative 0 and 2^32-1 (width 32). */
	b->n = 0;
	delta_header(b, 3, 0);
	tb_zigzag(b, INT32_MIN);
	tb_bytes(b, "\x20\0\0\0", 4);
	uint64_t rel32[32] = {0, 0xffffffffu};
	tb_pack_lsb(b, rel32, 32, 32);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT32, b->p, b->n, 3, &v, NULL, &a, &err), &err);
	ck_assert(v.v.i32[0] == 0 && v.v.i32[1] == INT32_MIN && v.v.i32[2] == -1);
	/* INT64: 0, MIN, -1: min delta -2^63, relative 0 and 2^64-1 (width 64). */
	b->n = 0;
	delta_header(b, 3, 0);
	tb_zigzag(b, INT64_MIN);
	tb_bytes(b, "\x40\0\0\0", 4);
	uint64_t rel64[32] = {0, UINT64_MAX};
	tb_pack_lsb(b, rel64, 32, 64);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 3, &v, NULL, &a, &err), &err);
	ck_assert(v.v.i64[0] == 0 && v.v.i64[1] == INT64_MIN && v.v.i64[2] == -1);
	/* INT64: MAX then +1. */
	b->n = 0;
	delta_header(b, 2, INT64_MAX);
	tb_zigzag(b, 1);
	tb_bytes(b, "\0\0\0\0", 4);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 2, &v, NULL, &a, &err), &err);
	ck_assert(v.v.i64[1] == INT64_MIN);
	free(b);
	pq_arena_free(&a);
}
END_TEST

/* Streams of several blocks from the reference writer, every width, values
 * computed independently with unsigned wrap-around. */
static size_t build_delta(tbuf *b, uint64_t *seed, bool is64, size_t total, uint64_t *vals)
{
	const int maxw = is64 ? 64 : 32;
	const uint64_t mask = is64 ? UINT64_MAX : 0xffffffffu;
	int64_t first = is64 ? (int64_t)rnd(seed) : (int32_t)(uint32_t)rnd(seed);
	delta_header(b, total, first);
	uint64_t cur = (uint64_t)first & mask;
	vals[0] = cur;
	size_t n = 1;
	while (n < total) {
		int64_t md = is64 ? (int64_t)rnd(seed) : (int32_t)(uint32_t)rnd(seed);
		if (rnd(seed) % 2)
			md = (int64_t)(rnd(seed) % 100) - 50;
		tb_zigzag(b, md);
		uint8_t w[4];
		for (int m = 0; m < 4; m++)
			w[m] = (uint8_t)(rnd(seed) % (uint64_t)(maxw + 1));
		tb_bytes(b, w, 4);
		for (int m = 0; m < 4 && n < total; m++) {
			uint64_t rel[32];
			for (int k = 0; k < 32; k++)
				rel[k] = rnd_bits(seed, w[m]);
			tb_pack_lsb(b, rel, 32, w[m]);
			for (int k = 0; k < 32 && n < total; k++) {
				cur = (cur + (uint64_t)md + rel[k]) & mask;
				vals[n++] = cur;
			}
		}
	}
	return n;
}

START_TEST(test_delta_random_blocks)
{
	uint64_t seed = 12345 + (uint64_t)_i;
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	tbuf *b = calloc(1, sizeof *b);
	uint64_t vals[700];
	for (int is64 = 0; is64 <= 1; is64++) {
		size_t total = 1 + rnd(&seed) % 600;
		b->n = 0;
		build_delta(b, &seed, is64, total, vals);
		size_t used;
		ASSERT_OK(pq_decode_delta_binary_packed(is64 ? PQ_INT64 : PQ_INT32, b->p, b->n, total,
							&v, &used, &a, &err),
			  &err);
		ck_assert_uint_eq(used, b->n);
		for (size_t i = 0; i < total; i++) {
			if (is64)
				ck_assert_msg((uint64_t)v.v.i64[i] == vals[i], "value %zu", i);
			else
				ck_assert_msg((uint32_t)v.v.i32[i] == (uint32_t)vals[i], "value %zu", i);
		}
	}
	free(b);
	pq_arena_free(&a);
}
END_TEST

/* pq_delta_encoded_size: the writer's measure of a page without writing
 * it (core/write/writer_choose.c). Golden sizes from Encodings.md's layout:
 * header = ULEB128 128 (2 bytes) + ULEB128 4 (1) + ULEB128 count + zigzag
 * ULEB128 first value; per block of up to 128 deltas: zigzag ULEB128 min
 * delta, 4 width bytes, 32 * width / 8 bytes per miniblock holding a
 * delta. */
START_TEST(test_delta_encoded_size)
{
	static int64_t v64[4096];
	static int32_t v32[300];
	/* 0,0,0,0,1,1,1,1,...: 6 + 32 blocks * (1 + 4 + 4 * 4) = 678. */
	for (size_t k = 0; k < 4096; k++)
		v64[k] = (int64_t)(k / 4);
	ck_assert_uint_eq(pq_delta_encoded_size(true, v64, NULL, 4096), 678);
	/* Empty: header with count 0 and first value 0 = 5 bytes; one value
	 * 7 (zigzag 14): 5 bytes, no block. */
	ck_assert_uint_eq(pq_delta_encoded_size(true, v64, NULL, 0), 5);
	v32[0] = 7;
	ck_assert_uint_eq(pq_delta_encoded_size(false, v32, NULL, 1), 5);
	/* INT32 1..300 step 1: min delta 1 (1 byte), widths 0: 6 header bytes
	 * (count 300 takes 2), 3 blocks of 1 + 4 = 15: 21. */
	for (int k = 0; k < 300; k++)
		v32[k] = k + 1;
	ck_assert_uint_eq(pq_delta_encoded_size(false, v32, NULL, 300), 21);
	/* Through indices: the same values as entries v32[idx[i]]. */
	static uint32_t idx[300];
	for (uint32_t k = 0; k < 300; k++)
		idx[k] = k;
	ck_assert_uint_eq(pq_delta_encoded_size(false, v32, idx, 300), 21);
	/* INT32 wrap: MAX then MIN is a delta of +1 in 32 bits (min delta 1,
	 * width 0): 2 + 1 + 1 + 5 (zigzag 2^32 - 2) + 1 + 4 = 14. */
	v32[0] = INT32_MAX;
	v32[1] = INT32_MIN;
	ck_assert_uint_eq(pq_delta_encoded_size(false, v32, NULL, 2), 14);
	/* Equal to what the encoder writes, on pseudo-random values of every
	 * width and count. */
	uint64_t seed = 99;
	pq_buf out = PQ_BUF_INIT;
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(rnd(&seed) % 700);
		int w = (int)(rnd(&seed) % 65);
		for (size_t k = 0; k < n; k++)
			v64[k] = (int64_t)rnd_bits(&seed, w);
		for (int is64 = 0; is64 <= 1; is64++) {
			static int32_t p32[700];
			for (size_t k = 0; k < n && !is64; k++)
				p32[k] = (int32_t)(uint32_t)v64[k];
			pq_values pv;
			memset(&pv, 0, sizeof pv);
			pv.type = is64 ? PQ_INT64 : PQ_INT32;
			pv.n = n;
			pv.v.any = is64 ? (void *)v64 : (void *)p32;
			out.len = 0;
			ASSERT_OK(pq_encode_delta_binary_packed(&pv, &out, &err), &err);
			ck_assert_uint_eq(pq_delta_encoded_size(is64, pv.v.any, NULL, n), out.len);
		}
	}
	pq_buf_free(&out);
}
END_TEST

/* 161 values = first + a full block + one full miniblock: no padding, so
 * every truncation removes needed bytes. */
START_TEST(test_delta_truncated_everywhere)
{
	uint64_t seed = 777;
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	tbuf *b = calloc(1, sizeof *b);
	uint64_t vals[200];
	build_delta(b, &seed, true, 161, vals);
	ASSERT_OK(pq_decode_delta_binary_packed(PQ_INT64, b->p, b->n, 161, &v, NULL, &a, &err),
		  &err);
	for (size_t len = 0; len < b->n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, b->p, len);
		pq_status st =
			pq_decode_delta_binary_packed(PQ_INT64, copy, len, 161, &v, NULL, &a, &err);
		/* A cut inside a zero-width miniblock's neighbourhood may still
		 * leave all bytes of values; only the last miniblock may be short
		 * and it has no padding here, so every cut must fail. */
		ck_assert_msg(st == PQ_ECORRUPT, "len %zu: %s", len, pq_status_name(st));
		free(copy);
	}
	free(b);
	pq_arena_free(&a);
}
END_TEST

/* ---- DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY ---- */

START_TEST(test_dlba_spec_example)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	ASSERT_OK(pq_decode_delta_length_byte_array(dlba_spec, sizeof dlba_spec, 4, &v, &used, &a,
						    &err),
		  &err);
	const char *want[] = {"Hello", "World", "Foobar", "ABCDEF"};
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(v.v.ba[i].n, strlen(want[i]));
		ck_assert(memcmp(v.v.ba[i].p, want[i], v.v.ba[i].n) == 0);
	}
	ck_assert(v.v.ba[0].p == dlba_spec + 14); /* zero-copy */
	ck_assert_uint_eq(used, sizeof dlba_spec);
	for (size_t len = 0; len < sizeof dlba_spec; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, dlba_spec, len);
		ASSERT_STATUS(pq_decode_delta_length_byte_array(copy, len, 4, &v, NULL, &a, &err),
			      PQ_ECORRUPT, &err);
		free(copy);
	}
	/* A negative length: first value -1. */
	const uint8_t neg[] = {0x80, 0x01, 4, 1, 1};
	ASSERT_STATUS(pq_decode_delta_length_byte_array(neg, sizeof neg, 1, &v, NULL, &a, &err),
		      PQ_ECORRUPT, &err);
	ck_assert_ptr_nonnull(strstr(err.msg, "negative"));
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_dba_spec_example)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	size_t used;
	ASSERT_OK(pq_decode_delta_byte_array(dba_spec, sizeof dba_spec, 4, &v, &used, &a, &err),
		  &err);
	const char *want[] = {"axis", "axle", "babble", "babyhood"};
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_eq(v.v.ba[i].n, strlen(want[i]));
		ck_assert(memcmp(v.v.ba[i].p, want[i], v.v.ba[i].n) == 0);
	}
	ck_assert_uint_eq(used, sizeof dba_spec);
	for (size_t len = 0; len < sizeof dba_spec; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, dba_spec, len);
		ASSERT_STATUS(pq_decode_delta_byte_array(copy, len, 4, &v, NULL, &a, &err),
			      PQ_ECORRUPT, &err);
		free(copy);
	}
	/* The first two values as FIXED_LEN_BYTE_ARRAY(4); not as (5). */
	ASSERT_OK(pq_decode_delta_byte_array_fixed(4, dba_spec, sizeof dba_spec, 2, &v, NULL, &a,
						   &err),
		  &err);
	ck_assert(v.type == PQ_FIXED_LEN_BYTE_ARRAY && memcmp(v.v.fixed, "axisaxle", 8) == 0);
	ASSERT_STATUS(pq_decode_delta_byte_array_fixed(5, dba_spec, sizeof dba_spec, 2, &v, NULL,
						       &a, &err),
		      PQ_ECORRUPT, &err);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_dba_bad_prefixes)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	tbuf *b = calloc(1, sizeof *b);
	/* First prefix 1 (no previous value). */
	delta_header(b, 1, 1);
	delta_header(b, 1, 2);
	tb_bytes(b, "ab", 2);
	ASSERT_STATUS(pq_decode_delta_byte_array(b->p, b->n, 1, &v, NULL, &a, &err), PQ_ECORRUPT,
		      &err);
	/* Prefix 3 after a 2-byte value. */
	b->n = 0;
	delta_header(b, 2, 0);
	tb_zigzag(b, 3);
	tb_bytes(b, "\0\0\0\0", 4);
	delta_header(b, 2, 2);
	tb_zigzag(b, -2);
	tb_bytes(b, "\0\0\0\0", 4);
	tb_bytes(b, "ab", 2);
	ASSERT_STATUS(pq_decode_delta_byte_array(b->p, b->n, 2, &v, NULL, &a, &err), PQ_ECORRUPT,
		      &err);
	ck_assert_ptr_nonnull(strstr(err.msg, "longer than the previous"));
	/* Negative prefix. */
	b->n = 0;
	delta_header(b, 2, 0);
	tb_zigzag(b, -1);
	tb_bytes(b, "\0\0\0\0", 4);
	delta_header(b, 2, 1);
	tb_zigzag(b, 0);
	tb_bytes(b, "\0\0\0\0", 4);
	tb_bytes(b, "ab", 2);
	ASSERT_STATUS(pq_decode_delta_byte_array(b->p, b->n, 2, &v, NULL, &a, &err), PQ_ECORRUPT,
		      &err);
	free(b);
	pq_arena_free(&a);
}
END_TEST

/* Prefix lengths can ask for far more output than input: refused by size. */
START_TEST(test_dba_prefix_bomb)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_values v;
	const size_t n = 1200000, l0 = 1000;
	pq_buf b = PQ_BUF_INIT;
	int32_t *pl = calloc(n, sizeof *pl), *sl = calloc(n, sizeof *sl);
	for (size_t i = 1; i < n; i++)
		pl[i] = (int32_t)l0;
	sl[0] = (int32_t)l0;
	pq_values pv = {.type = PQ_INT32, .n = n, .v.i32 = pl};
	pq_values sv = {.type = PQ_INT32, .n = n, .v.i32 = sl};
	ASSERT_OK(pq_encode_delta_binary_packed(&pv, &b, &err), &err);
	ASSERT_OK(pq_encode_delta_binary_packed(&sv, &b, &err), &err);
	uint8_t zeros[1000] = {0};
	pq_buf_append(&b, zeros, l0);
	ck_assert(b.len < 200000);
	ASSERT_STATUS(pq_decode_delta_byte_array(b.p, b.len, n, &v, NULL, &a, &err), PQ_ELIMIT, &err);
	free(pl);
	free(sl);
	pq_buf_free(&b);
	pq_arena_free(&a);
}
END_TEST

static Suite *delta_suite(void)
{
	Suite *s = suite_create("encoding_delta");
	TCase *tc = tcase_create("delta");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_delta_spec_example1);
	tcase_add_test(tc, test_delta_spec_example2);
	tcase_add_test(tc, test_delta_bad_headers);
	tcase_add_test(tc, test_delta_widths_over_limit);
	tcase_add_test(tc, test_delta_wraparound);
	tcase_add_test(tc, test_delta_encoded_size);
	tcase_add_test(tc, test_delta_int32_width33);
	tcase_add_loop_test(tc, test_delta_random_blocks, 0, 40);
	tcase_add_test(tc, test_delta_truncated_everywhere);
	suite_add_tcase(s, tc);
	tc = tcase_create("delta_bytes");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_dlba_spec_example);
	tcase_add_test(tc, test_dba_spec_example);
	tcase_add_test(tc, test_dba_bad_prefixes);
	tcase_add_test(tc, test_dba_prefix_bomb);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(delta_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
