/* ARUNA containers in core (core/include/pq_aruna.h): containers this test
 * seals at every size boundary read back byte for byte; damage of every
 * kind the contract names is refused, naming the block or chunk; the
 * decoded-chunk cache bounds what is decoded again; the same nonces give
 * the same bytes. The shared containers (../shared/testdata/aruna, made
 * by an independent implementation) are checked when present. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pq_aruna.h"
#include "pq_budget.h"
#include "pq_io.h"
#include "pq_keyring.h"
#include "test_files.h"

#define MIB (1024u * 1024u)
#define ARUNA_DIR TESTDATA_DIR "/aruna"

static const uint8_t key[32] = "0123456789abcdef0123456789abcdef";

/* Half compressible text, half pseudo-random bytes, so chunks have
 * several blocks. */
static uint8_t *make_plain(size_t n, uint32_t seed)
{
	uint8_t *p = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(p);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (i / 4096) % 2 ? (uint8_t)(x >> 24) : (uint8_t)('a' + i % 26);
	}
	return p;
}

static pq_status counter_nonce(void *ctx, uint64_t chunk, uint32_t block, unsigned attempt,
			       uint8_t nonce[PQ_ARUNA_NONCE])
{
	(void)ctx;
	memset(nonce, 0, PQ_ARUNA_NONCE);
	memcpy(nonce, &chunk, 4);
	memcpy(nonce + 4, &block, 4);
	memcpy(nonce + 8, &attempt, 4);
	return PQ_OK;
}

/* Seals plain into a memory buffer (through a temporary file). */
static uint8_t *seal(const uint8_t *plain, size_t n, const pq_aruna_write_opts *o, size_t *out_len)
{
	char path[] = "/tmp/test_aruna_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	pq_source *in;
	pq_error err = {0};
	ck_assert_int_eq(pq_source_mem_new(plain, n, false, &in, &err), PQ_OK);
	pq_status st = pq_aruna_seal(in, key, o, fd, &err);
	ck_assert_msg(st == PQ_OK, "seal: %s", err.msg);
	pq_source_unref(in);
	off_t len = lseek(fd, 0, SEEK_END);
	uint8_t *p = malloc((size_t)len + 1);
	ck_assert_int_eq(pread(fd, p, (size_t)len, 0), len);
	close(fd);
	*out_len = (size_t)len;
	return p;
}

static pq_status open_mem(const uint8_t *c, size_t n, const uint8_t *k, pq_source **out, pq_error *err)
{
	pq_source *raw;
	ck_assert_int_eq(pq_source_mem_new(c, n, false, &raw, err), PQ_OK);
	pq_status st = pq_aruna_open(raw, k, 0, NULL, out, err);
	pq_source_unref(raw);
	return st;
}

static void check_roundtrip(size_t n)
{
	uint8_t *plain = make_plain(n, (uint32_t)n);
	size_t clen;
	pq_aruna_write_opts o = {.threads = 2};
	uint8_t *c = seal(plain, n, &o, &clen);
	uint64_t chunks = n <= 5 * MIB ? 1 : (n + 5 * MIB - 1) / (5 * MIB);
	if (chunks > 1)
		ck_assert_uint_eq(clen % PQ_ARUNA_BLOCK, 0);
	pq_source *s;
	pq_error err = {0};
	ck_assert_msg(open_mem(c, clen, key, &s, &err) == PQ_OK, "%zu bytes: %s", n, err.msg);
	ck_assert_uint_eq(pq_source_size(s), n);
	pq_aruna_stats st;
	ck_assert(pq_aruna_stats_get(s, &st));
	ck_assert_uint_eq(st.chunks, chunks);
	ck_assert(st.footer == (chunks > 1));
	ck_assert_uint_eq(st.chunks_decoded, 1); /* opening decodes the last chunk only */
	uint8_t *back = malloc(n ? n : 1);
	ck_assert_int_eq(pq_source_pread(s, back, n, 0, &err), PQ_OK);
	ck_assert(n == 0 || memcmp(back, plain, n) == 0);
	/* a range across a chunk boundary */
	if (n >= 5 * MIB + 50) {
		uint8_t mid[100];
		ck_assert_int_eq(pq_source_pread(s, mid, sizeof mid, 5 * MIB - 50, &err), PQ_OK);
		ck_assert(memcmp(mid, plain + 5 * MIB - 50, sizeof mid) == 0);
	}
	pq_buf b = {0};
	ck_assert_uint_eq(pq_aruna_verify(s, &b), 0);
	pq_buf_free(&b);
	pq_source_unref(s);
	free(back);
	free(c);
	free(plain);
}

START_TEST(test_sizes)
{
	static const size_t sizes[] = {0, 1, 65535, 65536, 65537, 5 * MIB - 1, 5 * MIB, 5 * MIB + 1,
				       10 * MIB + 12345};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		check_roundtrip(sizes[i]);
}
END_TEST

START_TEST(test_same_nonces_same_bytes)
{
	size_t n = 11 * MIB;
	uint8_t *plain = make_plain(n, 7);
	pq_aruna_write_opts o1 = {.threads = 1, .nonce = counter_nonce};
	pq_aruna_write_opts o3 = {.threads = 3, .nonce = counter_nonce};
	size_t l1, l3, lr;
	uint8_t *a = seal(plain, n, &o1, &l1), *b = seal(plain, n, &o3, &l3);
	ck_assert_uint_eq(l1, l3);
	ck_assert(memcmp(a, b, l1) == 0);
	uint8_t *r = seal(plain, n, NULL, &lr); /* random nonces: other bytes */
	ck_assert_uint_eq(lr, l1);
	ck_assert(memcmp(a, r, l1) != 0);
	free(a);
	free(b);
	free(r);
	free(plain);
}
END_TEST

/* Three chunks; damage in one fails the reads of that chunk only. */
START_TEST(test_damage)
{
	size_t n = 10 * MIB + 4321, clen;
	uint8_t *plain = make_plain(n, 3);
	uint8_t *c = seal(plain, n, NULL, &clen);
	pq_source *s;
	pq_error err = {0};
	uint8_t buf[64];

	/* a flipped byte in chunk 0 (half of it is random bytes: about 40
	 * blocks, so block 10 is inside it) */
	uint8_t *bad = malloc(clen);
	memcpy(bad, c, clen);
	bad[10 * PQ_ARUNA_BLOCK + 100] ^= 1;
	ck_assert_int_eq(open_mem(bad, clen, key, &s, &err), PQ_OK);
	ck_assert_int_eq(pq_source_pread(s, buf, sizeof buf, 6 * MIB, &err), PQ_OK);
	ck_assert_int_eq(pq_source_pread(s, buf, sizeof buf, 0, &err), PQ_EAUTH);
	ck_assert_msg(strstr(err.msg, "block 10 (byte 655640) failed authentication"), "%s", err.msg);
	pq_buf b = {0};
	ck_assert_uint_eq(pq_aruna_verify(s, &b), 1);
	ck_assert(strstr((const char *)b.p, "chunk 0: block 10"));
	pq_buf_free(&b);
	pq_source_unref(s);

	/* two blocks of chunk 0 swapped: each authenticates, the frame does not */
	memcpy(bad, c, clen);
	memcpy(bad + 3 * PQ_ARUNA_BLOCK, c + 4 * PQ_ARUNA_BLOCK, PQ_ARUNA_BLOCK);
	memcpy(bad + 4 * PQ_ARUNA_BLOCK, c + 3 * PQ_ARUNA_BLOCK, PQ_ARUNA_BLOCK);
	ck_assert_int_eq(open_mem(bad, clen, key, &s, &err), PQ_OK);
	ck_assert_int_eq(pq_source_pread(s, buf, sizeof buf, 0, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "chunk 0"), "%s", err.msg);
	pq_source_unref(s);

	/* the wrong key: the footer fails */
	uint8_t other[32];
	memcpy(other, key, 32);
	other[0] ^= 1;
	ck_assert_int_eq(open_mem(c, clen, other, &s, &err), PQ_EAUTH);
	ck_assert_msg(strstr(err.msg, "wrong container key or damaged file"), "%s", err.msg);

	/* cut: inside a block, and by whole blocks (the footer gone) */
	ck_assert_int_ne(open_mem(c, clen - 1000, key, &s, &err), PQ_OK);
	ck_assert_int_ne(open_mem(c, clen - PQ_ARUNA_BLOCK, key, &s, &err), PQ_OK);
	ck_assert_int_ne(open_mem(c, 20, key, &s, &err), PQ_OK);
	ck_assert_int_ne(open_mem(c, 0, key, &s, &err), PQ_OK);
	free(bad);
	free(c);
	free(plain);
}
END_TEST

/* A footer-less container whose data holds a padding frame: footer missing. */
START_TEST(test_footer_missing)
{
	size_t n = 10 * MIB, clen;
	uint8_t *plain = make_plain(n, 5);
	uint8_t *c = seal(plain, n, NULL, &clen);
	pq_source *s;
	pq_error err = {0};
	/* chunk 0 and its padding alone, without the rest: no footer */
	pq_source *full;
	ck_assert_int_eq(open_mem(c, clen, key, &full, &err), PQ_OK);
	pq_source_unref(full);
	/* chunk 0 ends where chunk 1's data starts; try each block count */
	bool refused = false;
	for (size_t k = 2; k <= 81 && !refused; k++) {
		pq_status st = open_mem(c, k * PQ_ARUNA_BLOCK, key, &s, &err);
		if (st == PQ_OK)
			pq_source_unref(s);
		ck_assert_int_ne(st, PQ_OK);
		if (strstr(err.msg, "footer missing"))
			refused = true;
	}
	ck_assert(refused);
	free(c);
	free(plain);
}
END_TEST

START_TEST(test_cache)
{
	size_t n = 16 * MIB, clen;
	uint8_t *plain = make_plain(n, 9);
	uint8_t *c = seal(plain, n, NULL, &clen);
	pq_source *raw, *s;
	pq_error err = {0};
	ck_assert_int_eq(pq_source_mem_new(c, clen, false, &raw, &err), PQ_OK);
	ck_assert_int_eq(pq_aruna_open(raw, key, 0, NULL, &s, &err), PQ_OK);
	pq_source_unref(raw);
	uint8_t buf[4096];
	for (int round = 0; round < 3; round++)
		for (uint64_t off = 0; off < 2 * 5 * MIB; off += 1 * MIB)
			ck_assert_int_eq(pq_source_pread(s, buf, sizeof buf, off, &err), PQ_OK);
	pq_aruna_stats st;
	pq_aruna_stats_get(s, &st);
	ck_assert_uint_eq(st.chunks, 4);
	ck_assert_uint_eq(st.cache_slots, 2);
	/* the last chunk (at open), then chunks 0 and 1 once each */
	ck_assert_uint_eq(st.chunks_decoded, 3);
	ck_assert_uint_ge(st.cache_hits, 25);
	pq_buf b = {0};
	pq_aruna_describe(s, &b);
	pq_buf_putc(&b, '\0');
	ck_assert_msg(!strncmp((const char *)b.p, "container: aruna, 4 chunks, ", 28) &&
			      strstr((const char *)b.p, " blocks, index: footer\n"), "%s", b.p);
	pq_buf_free(&b);
	pq_source_unref(s);
	free(c);
	free(plain);
}
END_TEST

/* Decoded chunks are charged to the mount's budget while they live: a
 * budget too small for one more chunk fails the read (PQ_EBUDGET), and
 * everything charged is given back when the container goes. */
START_TEST(test_budget)
{
	size_t n = 11 * MIB, clen;
	uint8_t *plain = make_plain(n, 5);
	uint8_t *c = seal(plain, n, NULL, &clen);
	pq_source *raw, *s;
	pq_error err = {0};
	/* room for the last chunk (1 MiB, opened with the container) and one
	 * whole chunk, not two */
	pq_budget *b = pq_budget_new(7 * MIB);
	ck_assert_int_eq(pq_source_mem_new(c, clen, false, &raw, &err), PQ_OK);
	ck_assert_int_eq(pq_aruna_open(raw, key, 64 * MIB, b, &s, &err), PQ_OK);
	pq_source_unref(raw);
	ck_assert_uint_eq(pq_budget_used(b), 1 * MIB); /* the last chunk, shrunk to its bytes */
	uint8_t buf[4096];
	ck_assert_int_eq(pq_source_pread(s, buf, sizeof buf, 0, &err), PQ_OK);
	ck_assert(memcmp(buf, plain, sizeof buf) == 0);
	/* a whole chunk: its 5 MiB and the pages its buffer holds beyond them */
	uint64_t one = pq_budget_used(b);
	ck_assert_uint_ge(one, 6 * MIB);
	ck_assert_uint_le(one, 6 * MIB + 8192);
	pq_status st = pq_source_pread(s, buf, sizeof buf, 5 * MIB, &err);
	ck_assert_int_eq(st, PQ_EBUDGET);
	ck_assert_msg(strstr(err.msg, "chunk 1") && strstr(err.msg, "budget"), "%s", err.msg);
	ck_assert_uint_eq(pq_budget_used(b), one);
	pq_source_unref(s);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_budget_free(b);
	free(c);
	free(plain);
}
END_TEST

START_TEST(test_check_fd)
{
	size_t n = 6 * MIB, clen;
	uint8_t *plain = make_plain(n, 11);
	uint8_t *c = seal(plain, n, NULL, &clen);
	char path[] = "/tmp/test_aruna_XXXXXX";
	int fd = mkstemp(path);
	unlink(path);
	ck_assert_int_eq(write(fd, c, clen), (ssize_t)clen);
	uint64_t size = 0;
	pq_error err = {0};
	ck_assert_int_eq(pq_aruna_check_fd(fd, key, &size, &err), PQ_OK);
	ck_assert_uint_eq(size, n);
	c[100] ^= 1;
	ck_assert_int_eq(pwrite(fd, c, clen, 0), (ssize_t)clen);
	ck_assert_int_ne(pq_aruna_check_fd(fd, key, &size, &err), PQ_OK);
	ck_assert_msg(strstr(err.msg, "block 0 (byte 0) failed authentication"), "%s", err.msg);
	close(fd);
	free(c);
	free(plain);
}
END_TEST

/* ---- the shared containers ------------------------------------------------ */

static pq_keyring *shared_keys(void)
{
	size_t n;
	char *text = test_read_file(ARUNA_DIR "/keyfile", &n);
	if (!text)
		return NULL;
	pq_keyring *kr;
	pq_error err = {0};
	pq_status st = pq_keyring_parse(text, n, "keyfile", &kr, &err);
	free(text);
	ck_assert_msg(st == PQ_OK, "%s", err.msg);
	return kr;
}

static pq_status open_shared(pq_keyring *kr, const char *rel, pq_source **out, pq_error *err)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", ARUNA_DIR, rel);
	pq_key k;
	ck_assert(pq_keyring_container_key(kr, rel, &k));
	ck_assert_uint_eq(k.len, 32);
	int fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	pq_source *raw;
	ck_assert_int_eq(pq_source_fd_new(fd, true, &raw, err), PQ_OK);
	pq_status st = pq_aruna_open(raw, k.b, 64 * MIB, NULL, out, err);
	pq_source_unref(raw);
	return st;
}

START_TEST(test_shared)
{
	pq_keyring *kr = shared_keys();
	if (!kr) {
		fprintf(stderr, "test_shared: skipped (no %s)\n", ARUNA_DIR);
		return;
	}
	static const char *good[] = {"hyparquet_mixed", "big_zstd"};
	for (int i = 0; i < 2; i++) {
		char rel[128], plain_path[512];
		snprintf(rel, sizeof rel, "%s.parquet.aruna", good[i]);
		snprintf(plain_path, sizeof plain_path, "%s/plain/%s.parquet", ARUNA_DIR, good[i]);
		size_t n;
		char *plain = test_read_file(plain_path, &n);
		ck_assert_ptr_nonnull(plain);
		pq_source *s;
		pq_error err = {0};
		ck_assert_msg(open_shared(kr, rel, &s, &err) == PQ_OK, "%s: %s", rel, err.msg);
		ck_assert_uint_eq(pq_source_size(s), n);
		pq_aruna_stats st;
		pq_aruna_stats_get(s, &st);
		/* the Parquet footer lies in the last chunk, decoded at open */
		uint8_t tail[8];
		ck_assert_int_eq(pq_source_pread(s, tail, 8, n - 8, &err), PQ_OK);
		pq_aruna_stats_get(s, &st);
		ck_assert_uint_eq(st.chunks_decoded, 1);
		ck_assert_uint_eq(st.chunks, i == 0 ? 1 : 2);
		ck_assert(st.footer == (i == 1));
		char *back = malloc(n);
		ck_assert_int_eq(pq_source_pread(s, back, n, 0, &err), PQ_OK);
		ck_assert(memcmp(back, plain, n) == 0);
		pq_buf b = {0};
		ck_assert_uint_eq(pq_aruna_verify(s, &b), 0);
		pq_buf_free(&b);
		free(back);
		free(plain);
		pq_source_unref(s);
	}
	pq_source *s;
	pq_error err = {0};
	ck_assert_int_eq(open_shared(kr, "bad/wrong_key.parquet.aruna", &s, &err), PQ_EAUTH);
	ck_assert_msg(strstr(err.msg, "block 0 (byte 0) failed authentication"), "%s", err.msg);
	ck_assert_int_ne(open_shared(kr, "bad/truncated_mid_block.parquet.aruna", &s, &err), PQ_OK);
	ck_assert_msg(strstr(err.msg, "block 16"), "%s", err.msg);
	ck_assert_int_eq(open_shared(kr, "bad/footer_list_sum.parquet.aruna", &s, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "Block_List adds up to 20 blocks, Block_Total says 19"), "%s", err.msg);
	pq_keyring_free(kr);
}
END_TEST

START_TEST(test_keyring_container)
{
	static const char text[] =
		"container: \"0123456789abcdef0123456789abcdef\"\n"
		"[a/*.parquet.aruna]\n"
		"container: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";
	pq_keyring *kr;
	pq_error err = {0};
	ck_assert_int_eq(pq_keyring_parse(text, sizeof text - 1, "k", &kr, &err), PQ_OK);
	pq_key k;
	ck_assert(pq_keyring_container_key(kr, "x.parquet.aruna", &k));
	ck_assert(memcmp(k.b, key, 32) == 0);
	ck_assert(pq_keyring_container_key(kr, "a/y.parquet.aruna", &k));
	ck_assert_uint_eq(k.b[31], 0x1f);
	pq_keyring_free(kr);
	static const char short_key[] = "container: 000102030405060708090a0b0c0d0e0f\n";
	ck_assert_int_eq(pq_keyring_parse(short_key, sizeof short_key - 1, "k", &kr, &err), PQ_EINVAL);
	ck_assert_msg(strstr(err.msg, "32 bytes"), "%s", err.msg);
	ck_assert(pq_aruna_name("x.PARQUET.Aruna"));
	ck_assert(!pq_aruna_name(".parquet.aruna"));
	ck_assert(!pq_aruna_name("x.parquet"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("aruna");
	TCase *tc = tcase_create("containers");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_keyring_container);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_same_nonces_same_bytes);
	tcase_add_test(tc, test_damage);
	tcase_add_test(tc, test_footer_missing);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_check_fd);
	tcase_add_test(tc, test_shared);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
