#include "config.h"

/* Split block Bloom filter primitives. Golden values: the spec's salts
 * worked by hand, XXH64's published empty-input hash, the sizing table
 * published with arrow-rs's implementation of the spec formula, and the
 * filters parquet-mr wrote into parquet-testing (bloom_filter*.bin). */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "encoding/pq_bloom.h"
#include "test_files.h"

#ifndef TESTDATA_DIR
#define TESTDATA_DIR "../shared/testdata"
#endif
#define BLOOM_DIR TESTDATA_DIR "/parquet-testing/data/"

/* Reads a whole test file; NULL (after saying so) when the shared test
 * data is not there, so the caller skips rather than fails. */
static uint8_t *slurp(const char *path, size_t *n)
{
	uint8_t *p = (uint8_t *)test_read_file(path, n);
	if (!p)
		fprintf(stderr, "SKIP: %s not found (shared test data absent)\n", path);
	return p;
}

static size_t nonzero_blocks(const uint8_t *bits, size_t nbytes)
{
	size_t count = 0;
	for (size_t b = 0; b < nbytes; b += 32)
		for (size_t i = 0; i < 32; i++)
			if (bits[b + i]) {
				count++;
				break;
			}
	return count;
}

START_TEST(test_xxh64_known)
{
	/* xxHash's documented sanity value for XXH64 of no bytes, seed 0. */
	ck_assert_uint_eq(pq_bloom_hash("", 0), 0xEF46DB3751D8E999ull);
	ck_assert_uint_eq(pq_bloom_hash(NULL, 0), 0xEF46DB3751D8E999ull);
}
END_TEST

/* Plain encoding is little-endian: compare with XXH64 over spelled-out bytes. */
START_TEST(test_typed_hashes)
{
	static const uint8_t i32[] = {0x01, 0x02, 0x03, 0x04};
	ck_assert_uint_eq(pq_bloom_hash_int32(0x04030201), XXH64(i32, 4, 0));
	static const uint8_t m1[] = {0xff, 0xff, 0xff, 0xff};
	ck_assert_uint_eq(pq_bloom_hash_int32(-1), XXH64(m1, 4, 0));
	static const uint8_t i64[] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
	ck_assert_uint_eq(pq_bloom_hash_int64(0x0102030405060708ll), XXH64(i64, 8, 0));
	static const uint8_t f1[] = {0x00, 0x00, 0x80, 0x3f}; /* 1.0f */
	ck_assert_uint_eq(pq_bloom_hash_float(1.0f), XXH64(f1, 4, 0));
	static const uint8_t d1[] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}; /* 1.0 */
	ck_assert_uint_eq(pq_bloom_hash_double(1.0), XXH64(d1, 8, 0));
	ck_assert_uint_ne(pq_bloom_hash_double(0.0), pq_bloom_hash_double(-0.0));
	ck_assert_uint_eq(pq_bloom_hash("hello", 5), XXH64("hello", 5, 0));
}
END_TEST

/* Key 1 sets bit salt[i] >> 27 of word i. From the spec's salts:
 * 0x47>>3=8, 0x44>>3=8, 0x88>>3=17, 0xa2>>3=20, 0x70>>3=14, 0x2d>>3=5,
 * 0x9e>>3=19, 0x5c>>3=11. Upper hash bits 0 select block 0. */
START_TEST(test_mask_worked_example)
{
	static const unsigned bit[8] = {8, 8, 17, 20, 14, 5, 19, 11};
	uint8_t f[64];
	memset(f, 0, sizeof f);
	pq_bloom_insert(f, sizeof f, 1);
	for (int w = 0; w < 8; w++) {
		uint32_t word = (uint32_t)f[4 * w] | (uint32_t)f[4 * w + 1] << 8 |
				(uint32_t)f[4 * w + 2] << 16 | (uint32_t)f[4 * w + 3] << 24;
		ck_assert_uint_eq(word, 1u << bit[w]);
	}
	for (int i = 32; i < 64; i++)
		ck_assert_uint_eq(f[i], 0);
	ck_assert(pq_bloom_check(f, sizeof f, 1));
	/* Key 0 sets bit 0 of each word; still absent. */
	ck_assert(!pq_bloom_check(f, sizeof f, 0));
	pq_bloom_insert(f, sizeof f, 0);
	for (int w = 0; w < 8; w++)
		ck_assert_uint_eq(f[4 * w] & 1, 1);
	ck_assert_uint_eq(pq_bloom_bits_set(f, sizeof f), 16);
}
END_TEST

/* Block index ((hash >> 32) * z) >> 32: top half 0 -> block 0,
 * 0xFFFFFFFF -> block z-1, 0x80000000 -> block z/2. */
START_TEST(test_block_index)
{
	enum { Z = 32 };
	static const struct {
		uint64_t high;
		size_t block;
	} cases[] = {{0, 0}, {0xFFFFFFFFu, Z - 1}, {0x80000000u, Z / 2}, {0x08000000u, 1},
		     {0x07FFFFFFu, 0}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		uint8_t f[Z * 32];
		memset(f, 0, sizeof f);
		uint64_t h = cases[c].high << 32 | 0x12345678u;
		pq_bloom_insert(f, sizeof f, h);
		ck_assert_uint_eq(pq_bloom_bits_set(f, sizeof f), 8);
		for (size_t b = 0; b < Z; b++) {
			size_t bits = pq_bloom_bits_set(f + 32 * b, 32);
			ck_assert_uint_eq(bits, b == cases[c].block ? 8 : 0);
		}
		ck_assert(pq_bloom_check(f, sizeof f, h));
	}
}
END_TEST

START_TEST(test_degenerate_sizes)
{
	uint8_t f[40];
	memset(f, 0, sizeof f);
	ck_assert(pq_bloom_check(f, 0, 42)); /* nothing to exclude with */
	ck_assert(pq_bloom_check(f, 31, 42));
	pq_bloom_insert(f, 31, 42);
	ck_assert_uint_eq(pq_bloom_bits_set(f, sizeof f), 0);
	/* 40 bytes: one whole block; the 8 trailing bytes are never touched. */
	for (uint64_t h = 0; h < 1000; h++)
		pq_bloom_insert(f, sizeof f, h * 0x9E3779B97F4A7C15ull);
	for (int i = 32; i < 40; i++)
		ck_assert_uint_eq(f[i], 0);
	ck_assert(!pq_bloom_size_ok(0));
	ck_assert(!pq_bloom_size_ok(31));
	ck_assert(!pq_bloom_size_ok(40));
	ck_assert(pq_bloom_size_ok(32));
	ck_assert(pq_bloom_size_ok(96)); /* need not be a power of two */
	ck_assert(pq_bloom_size_ok(PQ_BLOOM_MAX_BYTES));
	ck_assert(!pq_bloom_size_ok(PQ_BLOOM_MAX_BYTES + 32));
}
END_TEST

/* Sizes from the table published with arrow-rs's parquet::bloom_filter
 * (blocks * 32 bytes), computed independently from the same formula. */
START_TEST(test_optimal_bytes_table)
{
	static const struct {
		uint64_t ndv;
		double fpp;
		size_t bytes;
	} t[] = {
	    {10000, 0.1, 256 * 32},         {10000, 0.01, 512 * 32},
	    {10000, 0.001, 1024 * 32},      {10000, 0.0001, 1024 * 32},
	    {100000, 0.1, 4096 * 32},       {100000, 0.01, 4096 * 32},
	    {100000, 0.001, 8192 * 32},     {100000, 0.0001, 16384 * 32},
	    {1000000, 0.1, 32768 * 32},     {1000000, 0.01, 65536 * 32},
	    {1000000, 0.001, 65536 * 32},   {1000000, 0.0001, 131072 * 32},
	    {1000000, 0.000001, 262144 * 32},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		ck_assert_msg(pq_bloom_optimal_bytes(t[i].ndv, t[i].fpp) == t[i].bytes,
			      "ndv %llu fpp %g: got %zu, want %zu", (unsigned long long)t[i].ndv,
			      t[i].fpp, pq_bloom_optimal_bytes(t[i].ndv, t[i].fpp), t[i].bytes);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(0, 0.01), PQ_BLOOM_MIN_BYTES);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(1, 0.5), PQ_BLOOM_MIN_BYTES);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(1000, 1.0), PQ_BLOOM_MIN_BYTES);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(1000, 0.0), PQ_BLOOM_MAX_BYTES);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(1000, -1.0), PQ_BLOOM_MAX_BYTES);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(UINT64_MAX, 0.01), PQ_BLOOM_MAX_BYTES);
	ck_assert_uint_eq(pq_bloom_optimal_bytes(1000000000000ull, 0.01), PQ_BLOOM_MAX_BYTES);
}
END_TEST

/* No false negatives; false positives near the spec's estimate. With
 * c = -8 / ln(1 - p^(1/8)) bits per value (9.68 for p = 1%), 131072 bits
 * hold 13540 values at about 1%. */
START_TEST(test_false_positive_rate)
{
	size_t nbytes = 16384;
	uint8_t *f = calloc(nbytes, 1);
	ck_assert_ptr_nonnull(f);
	const int64_t n = 13540;
	for (int64_t v = 0; v < n; v++)
		pq_bloom_insert(f, nbytes, pq_bloom_hash_int64(v));
	for (int64_t v = 0; v < n; v++)
		ck_assert(pq_bloom_check(f, nbytes, pq_bloom_hash_int64(v)));
	const int64_t probes = 200000;
	int64_t fp = 0;
	for (int64_t v = n; v < n + probes; v++)
		fp += pq_bloom_check(f, nbytes, pq_bloom_hash_int64(v));
	double rate = (double)fp / (double)probes;
	ck_assert_msg(rate > 0.005 && rate < 0.02, "false-positive rate %g, target 0.01", rate);
	free(f);

	/* A filter sized by pq_bloom_optimal_bytes meets its target. */
	nbytes = pq_bloom_optimal_bytes(5000, 0.001);
	f = calloc(nbytes, 1);
	for (int64_t v = 0; v < 5000; v++)
		pq_bloom_insert(f, nbytes, pq_bloom_hash_int64(v));
	fp = 0;
	for (int64_t v = 1000000; v < 1000000 + probes; v++)
		fp += pq_bloom_check(f, nbytes, pq_bloom_hash_int64(v));
	rate = (double)fp / (double)probes;
	ck_assert_msg(rate < 0.001, "sized filter: false-positive rate %g, target 0.001", rate);
	free(f);
}
END_TEST

static const char *const inserted[] = {"hello", "parquet", "bloom", "filter"};

/* parquet-mr's xxHash filter with a compact-thrift BloomFilterHeader in
 * front; its README says it holds the four strings above. Rebuilding the
 * filter from those strings must give the same bitset, byte for byte. */
START_TEST(test_parquet_mr_xxhash_file)
{
	size_t n;
	uint8_t *p = slurp(BLOOM_DIR "bloom_filter.xxhash.bin", &n);
	if (!p)
		return;
	/* Field 1 (i32 numBytes): header byte 0x15, then a zigzag varint. */
	ck_assert_uint_eq(p[0], 0x15);
	uint32_t z = 0;
	size_t i = 1;
	for (int shift = 0; i < n && shift < 35; shift += 7) {
		z |= (uint32_t)(p[i] & 0x7f) << shift;
		if (!(p[i++] & 0x80))
			break;
	}
	size_t nbytes = (size_t)((z >> 1) ^ -(z & 1));
	ck_assert_uint_eq(nbytes, 1024);
	ck_assert_uint_gt(n, nbytes);
	const uint8_t *bits = p + n - nbytes;
	ck_assert(pq_bloom_size_ok(nbytes));

	for (size_t s = 0; s < 4; s++)
		ck_assert_msg(pq_bloom_check(bits, nbytes, pq_bloom_hash(inserted[s], strlen(inserted[s]))),
			      "%s not found", inserted[s]);
	static const char *const absent[] = {"world", "Hello", "parquet ", "", "bloom_filter"};
	for (size_t s = 0; s < sizeof absent / sizeof absent[0]; s++)
		ck_assert_msg(!pq_bloom_check(bits, nbytes, pq_bloom_hash(absent[s], strlen(absent[s]))),
			      "%s found", absent[s]);

	uint8_t ours[1024];
	memset(ours, 0, sizeof ours);
	for (size_t s = 0; s < 4; s++)
		pq_bloom_insert(ours, sizeof ours, pq_bloom_hash(inserted[s], strlen(inserted[s])));
	ck_assert(memcmp(ours, bits, nbytes) == 0);
	free(p);
}
END_TEST

/* The older file (Murmur3 hashing, a 12-byte little-endian binary header)
 * cannot be queried with XXH64, but its layout is the same: 32-byte blocks
 * of eight words, each insertion setting one bit in every word of one
 * block. Four insertions: at most four blocks touched, every word of a
 * touched block non-zero, between 8 and 32 bits in all. */
START_TEST(test_parquet_mr_murmur3_layout)
{
	size_t n;
	uint8_t *p = slurp(BLOOM_DIR "bloom_filter.bin", &n);
	if (!p)
		return;
	ck_assert_uint_eq(n, 12 + 1024);
	uint32_t num_bytes = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			     (uint32_t)p[3] << 24;
	ck_assert_uint_eq(num_bytes, 1024);
	const uint8_t *bits = p + 12;
	size_t set = pq_bloom_bits_set(bits, 1024);
	ck_assert_uint_ge(set, 8);
	ck_assert_uint_le(set, 32);
	size_t blocks = nonzero_blocks(bits, 1024);
	ck_assert_uint_ge(blocks, 1);
	ck_assert_uint_le(blocks, 4);
	for (size_t b = 0; b < 1024; b += 32) {
		if (!pq_bloom_bits_set(bits + b, 32))
			continue;
		for (size_t w = 0; w < 8; w++) {
			size_t wb = pq_bloom_bits_set(bits + b + 4 * w, 4);
			ck_assert_uint_ge(wb, 1);
			ck_assert_uint_le(wb, 4);
		}
	}
	free(p);
}
END_TEST

START_TEST(test_bits_set)
{
	uint8_t f[67];
	memset(f, 0, sizeof f);
	ck_assert_uint_eq(pq_bloom_bits_set(f, sizeof f), 0);
	f[0] = 0xff;
	f[9] = 0x81;
	f[66] = 0x10;
	ck_assert_uint_eq(pq_bloom_bits_set(f, sizeof f), 11);
	ck_assert_uint_eq(pq_bloom_bits_set(f, 66), 10);
	memset(f, 0xff, sizeof f);
	ck_assert_uint_eq(pq_bloom_bits_set(f, sizeof f), 67 * 8);
}
END_TEST

static Suite *bloom_suite(void)
{
	Suite *s = suite_create("bloom");
	TCase *tc = tcase_create("bloom");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_xxh64_known);
	tcase_add_test(tc, test_typed_hashes);
	tcase_add_test(tc, test_mask_worked_example);
	tcase_add_test(tc, test_block_index);
	tcase_add_test(tc, test_degenerate_sizes);
	tcase_add_test(tc, test_optimal_bytes_table);
	tcase_add_test(tc, test_false_positive_rate);
	tcase_add_test(tc, test_parquet_mr_xxhash_file);
	tcase_add_test(tc, test_parquet_mr_murmur3_layout);
	tcase_add_test(tc, test_bits_set);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bloom_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
