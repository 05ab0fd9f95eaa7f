#include "config.h"

/* Compression codecs and the page CRC. Known-answer streams are built by
 * hand from the format specs (RFC 1952, RFC 8878, the LZ4 block format,
 * Hadoop's block framing) or with the libraries directly, never with the
 * code under test. Every output buffer is malloc'ed at exactly the size
 * under test, so AddressSanitizer sees any write past out_len. */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include "codec/pq_codec.h"
#include "pq_metadata.h"

static const int32_t all_codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
				     PQ_CODEC_BROTLI,       PQ_CODEC_LZ4,    PQ_CODEC_ZSTD,
				     PQ_CODEC_LZ4_RAW};
#define N_CODECS ((int)(sizeof all_codecs / sizeof all_codecs[0]))

/* Deterministic data: xorshift noise, or text-like runs that compress. */
static uint8_t *make_data(size_t n, bool compressible, uint64_t seed)
{
	uint8_t *p = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(p);
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	static const char words[] = "parquet column page row group dictionary ";
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = compressible ? (uint8_t)words[(i + (x % 3 == 0 ? 1 : 0)) % (sizeof words - 1)]
				    : (uint8_t)x;
	}
	return p;
}

/* Decompresses into a buffer of exactly out_len bytes. */
static pq_status decomp(int32_t codec, const uint8_t *in, size_t in_len, size_t out_len,
			uint8_t **outp, pq_error *err)
{
	uint8_t *out = malloc(out_len ? out_len : 1);
	ck_assert_ptr_nonnull(out);
	pq_error_clear(err);
	pq_status st = pq_decompress(codec, in, in_len, out_len ? out : NULL, out_len, err);
	if (outp)
		*outp = out;
	else
		free(out);
	return st;
}

static void roundtrip(int32_t codec, size_t n, bool compressible)
{
	uint8_t *data = make_data(n, compressible, n + (size_t)codec);
	pq_buf c = PQ_BUF_INIT;
	pq_error err;
	pq_error_clear(&err);
	ck_assert_msg(pq_compress(codec, 0, data, n, &c, &err) == PQ_OK, "%s n=%zu: %s",
		      pq_codec_name(codec), n, err.msg);
	ck_assert(!c.oom);
	uint8_t *out;
	pq_status st = decomp(codec, c.p, c.len, n, &out, &err);
	ck_assert_msg(st == PQ_OK, "%s n=%zu: %s", pq_codec_name(codec), n, err.msg);
	ck_assert(n == 0 || memcmp(out, data, n) == 0);
	free(out);
	/* One byte too few or too many is corrupt, whatever the codec. */
	if (c.len > 0) {
		ck_assert_int_eq(decomp(codec, c.p, c.len, n + 1, NULL, &err), PQ_ECORRUPT);
		ck_assert(strstr(err.msg, pq_codec_name(codec)) == err.msg);
		if (n > 0)
			ck_assert_int_eq(decomp(codec, c.p, c.len, n - 1, NULL, &err), PQ_ECORRUPT);
	}
	pq_buf_free(&c);
	free(data);
}

START_TEST(test_roundtrip_sizes)
{
	int32_t codec = all_codecs[_i];
	static const size_t sizes[] = {0, 1, 2, 100, 65536, 1 << 20};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		roundtrip(codec, sizes[i], false);
		roundtrip(codec, sizes[i], true);
	}
}
END_TEST

START_TEST(test_roundtrip_levels)
{
	static const struct {
		int32_t codec;
		int level;
	} cases[] = {{PQ_CODEC_GZIP, 1},   {PQ_CODEC_GZIP, 9},    {PQ_CODEC_BROTLI, 1},
		     {PQ_CODEC_BROTLI, 11}, {PQ_CODEC_ZSTD, 1},    {PQ_CODEC_ZSTD, 19},
		     {PQ_CODEC_ZSTD, -5},   {PQ_CODEC_LZ4, 9},     {PQ_CODEC_LZ4_RAW, 12}};
	size_t n = 200000;
	uint8_t *data = make_data(n, true, 7);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pq_buf c = PQ_BUF_INIT;
		pq_error err;
		ck_assert_msg(pq_compress(cases[i].codec, cases[i].level, data, n, &c, &err) == PQ_OK,
			      "%s", err.msg);
		ck_assert_msg(c.len < n / 2, "%s level %d did not compress",
			      pq_codec_name(cases[i].codec), cases[i].level);
		uint8_t *out;
		ck_assert_int_eq(decomp(cases[i].codec, c.p, c.len, n, &out, &err), PQ_OK);
		ck_assert(memcmp(out, data, n) == 0);
		free(out);
		pq_buf_free(&c);
	}
	free(data);
}
END_TEST

START_TEST(test_bad_levels)
{
	static const struct {
		int32_t codec;
		int level;
	} cases[] = {{PQ_CODEC_GZIP, 10}, {PQ_CODEC_GZIP, -1}, {PQ_CODEC_BROTLI, 12},
		     {PQ_CODEC_LZ4, 13},  {PQ_CODEC_LZ4_RAW, -1}, {PQ_CODEC_ZSTD, 1000}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pq_buf c = PQ_BUF_INIT;
		pq_buf_append(&c, "XY", 2);
		pq_error err;
		ck_assert_int_eq(pq_compress(cases[i].codec, cases[i].level, (const uint8_t *)"abc", 3,
					     &c, &err),
				 PQ_EINVAL);
		ck_assert_msg(strstr(err.msg, "level"), "%s", err.msg);
		ck_assert_uint_eq(c.len, 2); /* failure leaves the buffer as it was */
		pq_buf_free(&c);
	}
}
END_TEST

/* Compression appends after what the buffer already holds. */
START_TEST(test_compress_appends)
{
	int32_t codec = all_codecs[_i];
	uint8_t *data = make_data(5000, true, 3);
	pq_buf c = PQ_BUF_INIT;
	pq_buf_append(&c, "HEADER", 6);
	pq_error err;
	ck_assert_int_eq(pq_compress(codec, 0, data, 5000, &c, &err), PQ_OK);
	ck_assert(memcmp(c.p, "HEADER", 6) == 0);
	uint8_t *out;
	ck_assert_int_eq(decomp(codec, c.p + 6, c.len - 6, 5000, &out, &err), PQ_OK);
	ck_assert(memcmp(out, data, 5000) == 0);
	free(out);
	pq_buf_free(&c);
	free(data);
}
END_TEST

/* Truncations of a valid page, garbage, and single-byte corruptions: an
 * error or (for codecs without a checksum) some output, never a crash. */
START_TEST(test_truncated_and_garbage)
{
	int32_t codec = all_codecs[_i];
	size_t n = 65536;
	uint8_t *data = make_data(n, true, 11);
	pq_buf c = PQ_BUF_INIT;
	pq_error err;
	ck_assert_int_eq(pq_compress(codec, 0, data, n, &c, &err), PQ_OK);
	size_t cuts[] = {1, 2, 7, c.len / 2, c.len - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		ck_assert_msg(decomp(codec, c.p, cuts[i], n, NULL, &err) == PQ_ECORRUPT,
			      "%s cut at %zu accepted", pq_codec_name(codec), cuts[i]);
		ck_assert(err.msg[0]);
	}
	if (codec != PQ_CODEC_UNCOMPRESSED) {
		uint8_t *junk = make_data(4096, false, 99);
		ck_assert_int_eq(decomp(codec, junk, 4096, n, NULL, &err), PQ_ECORRUPT);
		ck_assert_int_eq(decomp(codec, junk, 4096, 10, NULL, &err), PQ_ECORRUPT);
		free(junk);
	}
	for (size_t pos = 0; pos < c.len; pos += 1 + pos / 8) {
		uint8_t saved = c.p[pos];
		c.p[pos] ^= (uint8_t)(1u << (pos % 8));
		(void)decomp(codec, c.p, c.len, n, NULL, &err);
		c.p[pos] = saved;
	}
	pq_buf_free(&c);
	free(data);
}
END_TEST

START_TEST(test_empty_input)
{
	int32_t codec = all_codecs[_i];
	pq_error err;
	ck_assert_int_eq(pq_decompress(codec, NULL, 0, NULL, 0, &err), PQ_OK);
	uint8_t out[5];
	ck_assert_int_eq(pq_decompress(codec, NULL, 0, out, sizeof out, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "empty"), "%s", err.msg);
}
END_TEST

START_TEST(test_lzo_and_unknown)
{
	pq_error err;
	uint8_t in[4] = {1, 2, 3, 4}, out[4];
	ck_assert_int_eq(pq_decompress(PQ_CODEC_LZO, in, 4, out, 4, &err), PQ_EUNSUPPORTED);
	ck_assert_str_eq(err.msg, "unsupported codec LZO");
	ck_assert_int_eq(pq_decompress(99, in, 4, out, 4, &err), PQ_EUNSUPPORTED);
	ck_assert_msg(strstr(err.msg, "99"), "%s", err.msg);
	ck_assert_int_eq(pq_decompress(-1, in, 4, out, 4, &err), PQ_EUNSUPPORTED);
	ck_assert_msg(strstr(err.msg, "-1"), "%s", err.msg);
	pq_buf c = PQ_BUF_INIT;
	ck_assert_int_eq(pq_compress(PQ_CODEC_LZO, 0, in, 4, &c, &err), PQ_EUNSUPPORTED);
	ck_assert_int_eq(pq_compress(8, 0, in, 4, &c, &err), PQ_EUNSUPPORTED);
	ck_assert_uint_eq(c.len, 0);

	ck_assert_str_eq(pq_codec_name(PQ_CODEC_UNCOMPRESSED), "UNCOMPRESSED");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_SNAPPY), "SNAPPY");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_GZIP), "GZIP");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_LZO), "LZO");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_BROTLI), "BROTLI");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_LZ4), "LZ4");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_ZSTD), "ZSTD");
	ck_assert_str_eq(pq_codec_name(PQ_CODEC_LZ4_RAW), "LZ4_RAW");
	ck_assert_ptr_null(pq_codec_name(8));
	ck_assert_ptr_null(pq_codec_name(-1));
	for (int i = 0; i < N_CODECS; i++)
		ck_assert(pq_codec_supported(all_codecs[i]));
	ck_assert(!pq_codec_supported(PQ_CODEC_LZO));
	ck_assert(!pq_codec_supported(8));
}
END_TEST

START_TEST(test_uncompressed_size_mismatch)
{
	pq_error err;
	uint8_t in[3] = {1, 2, 3};
	ck_assert_int_eq(decomp(PQ_CODEC_UNCOMPRESSED, in, 3, 4, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "3 bytes") && strstr(err.msg, "4"), "%s", err.msg);
}
END_TEST

/* Snappy "abc": varint length 3, literal tag (3-1)<<2, bytes (format_description.txt). */
START_TEST(test_snappy_known_and_claim)
{
	static const uint8_t abc[] = {0x03, 0x08, 'a', 'b', 'c'};
	uint8_t *out;
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_SNAPPY, abc, sizeof abc, 3, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "abc", 3) == 0);
	free(out);
	/* The length prefix disagrees with the page header. */
	ck_assert_int_eq(decomp(PQ_CODEC_SNAPPY, abc, sizeof abc, 4, NULL, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "SNAPPY: block says 3 bytes, page header says 4");
	/* The prefix claims 4 but the body holds 3. */
	static const uint8_t lying[] = {0x04, 0x08, 'a', 'b', 'c'};
	ck_assert_int_eq(decomp(PQ_CODEC_SNAPPY, lying, sizeof lying, 4, NULL, &err), PQ_ECORRUPT);
	/* An unterminated varint. */
	static const uint8_t bad[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	ck_assert_int_eq(decomp(PQ_CODEC_SNAPPY, bad, sizeof bad, 4, NULL, &err), PQ_ECORRUPT);
}
END_TEST

/* One gzip member made with zlib itself (not with the code under test). */
static size_t gzip_member(const char *s, uint8_t *out, size_t cap, int window_bits)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)s;
	zs.avail_in = (uInt)strlen(s);
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t n = cap - zs.avail_out;
	deflateEnd(&zs);
	return n;
}

START_TEST(test_gzip_members)
{
	uint8_t buf[512];
	size_t a = gzip_member("hello ", buf, sizeof buf, 15 + 16);
	size_t b = gzip_member("parquet ", buf + a, sizeof buf - a, 15 + 16);
	size_t c = gzip_member("world", buf + a + b, sizeof buf - a - b, 15 + 16);
	uint8_t *out;
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, a + b + c, 19, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "hello parquet world", 19) == 0);
	free(out);
	/* The page header must cover every member, not only the first. */
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, a + b + c, 6, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "member 2") && strstr(err.msg, "more than"), "%s", err.msg);
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, a + b + c, 20, NULL, &err), PQ_ECORRUPT);
	/* A second member cut short. */
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, a + b - 3, 14, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "member 2") && strstr(err.msg, "truncated"), "%s", err.msg);
	/* Garbage after a member. */
	memcpy(buf + a, "JUNKJUNKJUNK", 12);
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, a + 12, 6, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "member 2"), "%s", err.msg);
}
END_TEST

START_TEST(test_gzip_known_and_zlib)
{
	/* RFC 1952 member for "": ID1 ID2 CM=8 FLG MTIME(4) XFL OS, deflate
	 * fixed-Huffman empty final block 03 00, CRC32 0, ISIZE 0. */
	static const uint8_t empty[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
					0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0};
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, empty, sizeof empty, 0, NULL, &err), PQ_OK);
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, empty, sizeof empty, 1, NULL, &err), PQ_ECORRUPT);
	/* Wrong CRC in the trailer. */
	uint8_t badcrc[sizeof empty];
	memcpy(badcrc, empty, sizeof empty);
	badcrc[12] = 1;
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, badcrc, sizeof badcrc, 0, NULL, &err), PQ_ECORRUPT);
	/* zlib (RFC 1950) streams are accepted too; raw deflate is not. */
	uint8_t buf[128];
	uint8_t *out;
	size_t n = gzip_member("zlib stream", buf, sizeof buf, 15);
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, n, 11, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "zlib stream", 11) == 0);
	free(out);
	n = gzip_member("raw deflate", buf, sizeof buf, -15);
	ck_assert_int_eq(decomp(PQ_CODEC_GZIP, buf, n, 11, NULL, &err), PQ_ECORRUPT);
}
END_TEST

/* RFC 8878 frame for "a": magic, descriptor 0x20 (single segment, 1-byte
 * content size), content size, raw last block header 0x000009, 'a'. */
START_TEST(test_zstd_known_and_claim)
{
	static const uint8_t frame[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x01, 0x09, 0x00, 0x00, 'a'};
	uint8_t *out;
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, frame, sizeof frame, 1, &out, &err), PQ_OK);
	ck_assert_int_eq(out[0], 'a');
	free(out);
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, frame, sizeof frame, 1000, NULL, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "ZSTD: frame says 1 bytes, page header says 1000");
	/* Two frames: the sizes add up. */
	uint8_t two[2 * sizeof frame];
	memcpy(two, frame, sizeof frame);
	memcpy(two + sizeof frame, frame, sizeof frame);
	two[sizeof frame + 9] = 'b';
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, two, sizeof two, 2, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "ab", 2) == 0);
	free(out);
	/* The header claims 2 bytes, the block holds 1. */
	uint8_t lying[sizeof frame];
	memcpy(lying, frame, sizeof frame);
	lying[5] = 2;
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, lying, sizeof lying, 2, NULL, &err), PQ_ECORRUPT);
	/* Trailing bytes that are not a frame. */
	uint8_t trail[sizeof frame + 3];
	memcpy(trail, frame, sizeof frame);
	memcpy(trail + sizeof frame, "xyz", 3);
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, trail, sizeof trail, 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "frame 2"), "%s", err.msg);
}
END_TEST

/* A streamed zstd frame states no content size: exactness then rests on
 * the bounded decode. */
START_TEST(test_zstd_unknown_size)
{
	size_t n = 100000;
	uint8_t *data = make_data(n, true, 5);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n);
	uint8_t *c = malloc(cap);
	ZSTD_outBuffer ob = {c, cap, 0};
	ZSTD_inBuffer ib = {data, n, 0};
	ck_assert(!ZSTD_isError(ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_continue)));
	ck_assert_uint_eq(ZSTD_compressStream2(cctx, &ob, &ib, ZSTD_e_end), 0);
	ZSTD_freeCCtx(cctx);
	ck_assert_uint_eq(ZSTD_getFrameContentSize(c, ob.pos), ZSTD_CONTENTSIZE_UNKNOWN);
	uint8_t *out;
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, c, ob.pos, n, &out, &err), PQ_OK);
	ck_assert(memcmp(out, data, n) == 0);
	free(out);
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, c, ob.pos, n - 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_int_eq(decomp(PQ_CODEC_ZSTD, c, ob.pos, n + 1, NULL, &err), PQ_ECORRUPT);
	free(c);
	free(data);
}
END_TEST

START_TEST(test_brotli_trailing_and_empty)
{
	pq_error err;
	/* The one-byte stream 0x06: WBITS=16, ISLAST, ISLASTEMPTY (RFC 7932). */
	static const uint8_t empty[] = {0x06};
	ck_assert_int_eq(decomp(PQ_CODEC_BROTLI, empty, 1, 0, NULL, &err), PQ_OK);
	ck_assert_int_eq(decomp(PQ_CODEC_BROTLI, empty, 1, 1, NULL, &err), PQ_ECORRUPT);
	pq_buf c = PQ_BUF_INIT;
	ck_assert_int_eq(pq_compress(PQ_CODEC_BROTLI, 0, (const uint8_t *)"brotli", 6, &c, &err),
			 PQ_OK);
	pq_buf_append(&c, "??", 2);
	ck_assert_int_eq(decomp(PQ_CODEC_BROTLI, c.p, c.len, 6, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "trailing"), "%s", err.msg);
	pq_buf_free(&c);
}
END_TEST

/* LZ4 block format: token 0x30 = 3 literals, no match; then "abc". */
static const uint8_t lz4_abc[] = {0x30, 'a', 'b', 'c'};

START_TEST(test_lz4_raw_known)
{
	uint8_t *out;
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4_RAW, lz4_abc, sizeof lz4_abc, 3, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "abc", 3) == 0);
	free(out);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4_RAW, lz4_abc, sizeof lz4_abc, 2, NULL, &err),
			 PQ_ECORRUPT);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4_RAW, lz4_abc, sizeof lz4_abc, 4, NULL, &err),
			 PQ_ECORRUPT);
	ck_assert(strstr(err.msg, "LZ4_RAW") == err.msg);
}
END_TEST

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Appends one raw LZ4 block made by liblz4 itself. */
static size_t lz4_chunk(const uint8_t *src, size_t n, uint8_t *dst)
{
	int c = LZ4_compress_default((const char *)src, (char *)dst, (int)n,
				     LZ4_compressBound((int)n));
	ck_assert_int_gt(c, 0);
	return (size_t)c;
}

START_TEST(test_lz4_hadoop_blocks)
{
	pq_error err;
	uint8_t *out;
	/* Hand-made: [be32 3][be32 4][30 'a' 'b' 'c']. */
	uint8_t one[12];
	put_be32(one, 3);
	put_be32(one + 4, 4);
	memcpy(one + 8, lz4_abc, 4);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, one, sizeof one, 3, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "abc", 3) == 0);
	free(out);

	/* Three blocks of different sizes, the second with two chunks (as
	 * Hadoop's BlockCompressorStream writes large blocks). */
	size_t n = 70000 + 50000 + 3000;
	uint8_t *data = make_data(n, true, 21);
	uint8_t *buf = malloc(n * 2 + 64);
	size_t pos = 0;
	put_be32(buf + pos, 70000);
	size_t k = lz4_chunk(data, 70000, buf + pos + 8);
	put_be32(buf + pos + 4, (uint32_t)k);
	pos += 8 + k;
	put_be32(buf + pos, 50000);
	pos += 4;
	k = lz4_chunk(data + 70000, 20000, buf + pos + 4);
	put_be32(buf + pos, (uint32_t)k);
	pos += 4 + k;
	k = lz4_chunk(data + 90000, 30000, buf + pos + 4);
	put_be32(buf + pos, (uint32_t)k);
	pos += 4 + k;
	put_be32(buf + pos, 3000);
	k = lz4_chunk(data + 120000, 3000, buf + pos + 8);
	put_be32(buf + pos + 4, (uint32_t)k);
	pos += 8 + k;
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, pos, n, &out, &err), PQ_OK);
	ck_assert(memcmp(out, data, n) == 0);
	free(out);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, pos, n - 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "Hadoop"), "%s", err.msg);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, pos, n + 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, pos - 1, n, NULL, &err), PQ_ECORRUPT);
	free(buf);
	free(data);

	/* Our writer: blocks of 128 KiB, each [usize][csize][chunk]. */
	n = 300000;
	data = make_data(n, false, 4);
	pq_buf c = PQ_BUF_INIT;
	ck_assert_int_eq(pq_compress(PQ_CODEC_LZ4, 0, data, n, &c, &err), PQ_OK);
	static const uint8_t first[4] = {0x00, 0x02, 0x00, 0x00}; /* 131072 big-endian */
	ck_assert(memcmp(c.p, first, 4) == 0);
	uint32_t csize = (uint32_t)c.p[4] << 24 | (uint32_t)c.p[5] << 16 | (uint32_t)c.p[6] << 8 |
			 c.p[7];
	uint8_t *chunk = malloc(131072);
	ck_assert_int_eq(LZ4_decompress_safe((const char *)c.p + 8, (char *)chunk, (int)csize,
					     131072),
			 131072);
	ck_assert(memcmp(chunk, data, 131072) == 0);
	free(chunk);
	pq_buf_free(&c);
	free(data);
}
END_TEST

/* Arrow's writer frames an empty page as one block holding an empty chunk. */
START_TEST(test_lz4_hadoop_empty)
{
	static const uint8_t arrow_empty[] = {0, 0, 0, 0, 0, 0, 0, 1, 0x00};
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, arrow_empty, sizeof arrow_empty, 0, NULL, &err),
			 PQ_OK);
	static const uint8_t bare[] = {0, 0, 0, 0};
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, bare, sizeof bare, 0, NULL, &err), PQ_OK);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, arrow_empty, sizeof arrow_empty, 1, NULL, &err),
			 PQ_ECORRUPT);
}
END_TEST

START_TEST(test_lz4_raw_block_fallback)
{
	pq_error err;
	uint8_t *out;
	/* "abc" as a bare raw block under the LZ4 id (old parquet-cpp). */
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, lz4_abc, sizeof lz4_abc, 3, &out, &err), PQ_OK);
	ck_assert(memcmp(out, "abc", 3) == 0);
	free(out);
	size_t n = 40000;
	uint8_t *data = make_data(n, true, 8);
	uint8_t *buf = malloc((size_t)LZ4_compressBound((int)n));
	size_t k = lz4_chunk(data, n, buf);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k, n, &out, &err), PQ_OK);
	ck_assert(memcmp(out, data, n) == 0);
	free(out);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k, n - 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "raw LZ4 block"), "%s", err.msg);
	free(buf);
	free(data);
}
END_TEST

START_TEST(test_lz4_frame_fallback)
{
	size_t n = 50000;
	uint8_t *data = make_data(n, true, 9);
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof prefs);
	prefs.frameInfo.contentSize = n;
	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	size_t cap = LZ4F_compressFrameBound(n, &prefs);
	uint8_t *buf = malloc(cap);
	size_t k = LZ4F_compressFrame(buf, cap, data, n, &prefs);
	ck_assert(!LZ4F_isError(k));
	uint8_t *out;
	pq_error err;
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k, n, &out, &err), PQ_OK);
	ck_assert(memcmp(out, data, n) == 0);
	free(out);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k, n - 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "LZ4 frame"), "%s", err.msg);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k, n + 1, NULL, &err), PQ_ECORRUPT);
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k - 5, n, NULL, &err), PQ_ECORRUPT);
	buf[k / 2] ^= 0x40; /* the content checksum catches this */
	ck_assert_int_eq(decomp(PQ_CODEC_LZ4, buf, k, n, NULL, &err), PQ_ECORRUPT);
	free(buf);
	free(data);
}
END_TEST

START_TEST(test_crc32_known)
{
	const uint8_t *s = (const uint8_t *)"123456789";
	ck_assert_uint_eq(pq_crc32(s, 9), 0xCBF43926u);
	ck_assert_uint_eq(pq_crc32_update(pq_crc32(s, 4), s + 4, 5), 0xCBF43926u);
	ck_assert_uint_eq(pq_crc32(NULL, 0), 0);
	/* "The quick brown fox jumps over the lazy dog": 0x414FA339. */
	const char *fox = "The quick brown fox jumps over the lazy dog";
	ck_assert_uint_eq(pq_crc32((const uint8_t *)fox, strlen(fox)), 0x414FA339u);
}
END_TEST

static Suite *codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *tc = tcase_create("codec");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_roundtrip_sizes, 0, N_CODECS);
	tcase_add_test(tc, test_roundtrip_levels);
	tcase_add_test(tc, test_bad_levels);
	tcase_add_loop_test(tc, test_compress_appends, 0, N_CODECS);
	tcase_add_loop_test(tc, test_truncated_and_garbage, 0, N_CODECS);
	tcase_add_loop_test(tc, test_empty_input, 0, N_CODECS);
	tcase_add_test(tc, test_lzo_and_unknown);
	tcase_add_test(tc, test_uncompressed_size_mismatch);
	tcase_add_test(tc, test_snappy_known_and_claim);
	tcase_add_test(tc, test_gzip_members);
	tcase_add_test(tc, test_gzip_known_and_zlib);
	tcase_add_test(tc, test_zstd_known_and_claim);
	tcase_add_test(tc, test_zstd_unknown_size);
	tcase_add_test(tc, test_brotli_trailing_and_empty);
	tcase_add_test(tc, test_lz4_raw_known);
	tcase_add_test(tc, test_lz4_hadoop_blocks);
	tcase_add_test(tc, test_lz4_hadoop_empty);
	tcase_add_test(tc, test_lz4_raw_block_fallback);
	tcase_add_test(tc, test_lz4_frame_fallback);
	tcase_add_test(tc, test_crc32_known);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(codec_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
