/* Types inferred while the CSV is written (core/csv/convert_ahead.c,
 * pq_infer_ahead in pq_convert.h): the conversion that takes them must
 * write exactly the bytes of a conversion that infers on its own, and must
 * not take them when the file changed behind the writer's back (a rewrite,
 * growth it was not told of) or holds an error (which the conversion then
 * reports as always).
 *
 * The golden file is the conversion without the ahead (its own first pass
 * is tested against independent readers elsewhere); what is tested here is
 * that the shortcut is invisible. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pq_convert.h"

static int tmpfd(void)
{
	char path[] = "/tmp/pq_test_ahead_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

/* The whole output file of a conversion of in_fd. */
static char *convert(int in_fd, const pq_convert_input *ci, pq_convert_stats *stats,
		     size_t *len, pq_error *err)
{
	int out = tmpfd();
	pq_status st = pq_convert_csv_ex(in_fd, out, "x.csv", ci, NULL, NULL, stats, err);
	char *buf = NULL;
	*len = 0;
	if (st == PQ_OK) {
		off_t n = lseek(out, 0, SEEK_END);
		ck_assert_int_gt(n, 0);
		buf = malloc((size_t)n);
		ck_assert_ptr_nonnull(buf);
		ck_assert_int_eq(pread(out, buf, (size_t)n, 0), n);
		*len = (size_t)n;
	}
	close(out);
	return buf;
}

/* Writes text into a fresh file in pieces of `piece` bytes, telling the
 * ahead after each (told_at: after that many bytes stop telling, so the
 * ahead knows less than the file holds). */
static int write_growing(const char *text, size_t n, size_t piece, pq_infer_ahead *a,
			 size_t told_at, int fd)
{
	for (size_t off = 0; off < n; off += piece) {
		size_t k = n - off < piece ? n - off : piece;
		ck_assert_int_eq(pwrite(fd, text + off, k, (off_t)off), (ssize_t)k);
		if (off + k <= told_at)
			pq_infer_ahead_grow(a, off + k);
	}
	return fd;
}

/* Converts text with the ahead fed in pieces and without it: the same
 * bytes; returns whether the ahead's states were taken. */
static bool same_with_ahead(const char *text, size_t n, size_t piece, unsigned threads,
			    uint8_t delim, uint64_t *ranges)
{
	pq_convert_input ci = {.format = PQ_CSV_COMMA, .delimiter = delim, .codec = PQ_INPUT_PLAIN,
			       .threads = threads};
	int fd = tmpfd();
	pq_error err;
	pq_infer_ahead *a = NULL;
	ck_assert_int_eq(pq_infer_ahead_start(fd, "x.csv", &ci, &a, &err), PQ_OK);
	write_growing(text, n, piece, a, SIZE_MAX, fd);
	pq_convert_stats s1, s2;
	size_t l1, l2;
	/* with the ahead first: it is told the end at once, so a large rest
	 * is left for its threads */
	ci.ahead = a;
	char *fast = convert(fd, &ci, &s2, &l2, &err);
	ck_assert_msg(fast, "%s", err.msg);
	ci.ahead = NULL;
	char *plain = convert(fd, &ci, &s1, &l1, &err);
	ck_assert_msg(plain, "%s", err.msg);
	ck_assert(!s1.inferred_ahead);
	ck_assert_uint_eq(l1, l2);
	ck_assert(!memcmp(plain, fast, l1));
	ck_assert_uint_eq(s1.rows, s2.rows);
	pq_infer_ahead_free(a);
	free(plain);
	free(fast);
	close(fd);
	if (ranges)
		*ranges = s2.infer_ranges;
	return s2.inferred_ahead;
}

/* Rows of every inferred kind, with quoted fields holding newlines,
 * delimiters and quotes; the last row turns column a into STRING. */
static char *sample(size_t rows, char sep, size_t *n)
{
	size_t cap = rows * 160 + 256;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	size_t k = (size_t)snprintf(t, cap, "a%cb%cc%cd%ce%cf\n", sep, sep, sep, sep, sep);
	uint32_t seed = 7;
	for (size_t r = 0; r < rows; r++) {
		seed = seed * 1103515245u + 12345u;
		k += (size_t)snprintf(t + k, cap - k,
				      "%zu%c%u.%02u%c2024-%02u-%02u%c\"q%c\"\"\n%u\"%c%s%c%s\n", r, sep,
				      seed % 1000, (seed >> 8) % 100, sep, 1 + (seed >> 4) % 12,
				      1 + (seed >> 12) % 28, sep, sep, seed % 97, sep,
				      (seed >> 3) % 3 ? "true" : "false", sep,
				      (seed >> 5) % 5 ? "2024-01-02 03:04:05" : "");
	}
	k += (size_t)snprintf(t + k, cap - k, "last%c1.5%c2024-02-03%cx%ctrue%c\n", sep, sep, sep,
			      sep, sep);
	*n = k;
	return t;
}

START_TEST(test_ahead_same_bytes)
{
	size_t n;
	char *t = sample(3000, ',', &n);
	/* tiny pieces: the thread waits on the writer again and again, and
	 * catches up mid-record, mid-quote, mid-header */
	ck_assert(same_with_ahead(t, n, 7, 2, 0, NULL));
	ck_assert(same_with_ahead(t, n, 4096, 1, 0, NULL));
	ck_assert(same_with_ahead(t, n, n, 2, ',', NULL));
	free(t);
	t = sample(3000, ';', &n); /* the delimiter detected by the ahead too */
	ck_assert(same_with_ahead(t, n, 1000, 2, 0, NULL));
	free(t);
}
END_TEST

/* A file complete long before the thread reads it: the rest is inferred on
 * threads over ranges; 200,000 integers and one text value last still make
 * a STRING column (every value seen). */
START_TEST(test_ahead_rest_on_threads)
{
	size_t n;
	char *t = sample(200000, ',', &n);
	ck_assert_uint_gt(n, 8u << 20); /* a rest of at least 4 MiB for the threads */
	uint64_t ranges = 0;
	ck_assert(same_with_ahead(t, n, n, 2, 0, &ranges));
	ck_assert_uint_gt(ranges, 1); /* the rest went to the threads */
	ck_assert(same_with_ahead(t, n, n, 3, 0, &ranges));
	ck_assert_uint_gt(ranges, 1);
	free(t);
}
END_TEST

/* Not taken: growth it was not told of, a rewrite it was told of (cancel),
 * a compressed file, an error in the records (reported as without it). */
START_TEST(test_ahead_not_taken)
{
	size_t n;
	char *t = sample(2000, ',', &n);
	pq_convert_input ci = {.format = PQ_CSV_COMMA, .codec = PQ_INPUT_PLAIN, .threads = 2};
	pq_error err;
	pq_convert_stats s;
	size_t len, l0;
	/* told half of it */
	int fd = tmpfd();
	pq_infer_ahead *a = NULL;
	ck_assert_int_eq(pq_infer_ahead_start(fd, "x.csv", &ci, &a, &err), PQ_OK);
	write_growing(t, n, 512, a, n / 2, fd);
	char *ref = convert(fd, &ci, &s, &l0, &err);
	ci.ahead = a;
	char *got = convert(fd, &ci, &s, &len, &err);
	ck_assert_ptr_nonnull(got);
	ck_assert(!s.inferred_ahead);
	ck_assert_uint_eq(len, l0);
	ck_assert(!memcmp(ref, got, len));
	free(got);
	pq_infer_ahead_free(a);
	/* rewritten after it read the bytes: cancelled by the writer */
	ci.ahead = NULL;
	ck_assert_int_eq(pq_infer_ahead_start(fd, "x.csv", &ci, &a, &err), PQ_OK);
	pq_infer_ahead_grow(a, n);
	usleep(20000);
	ck_assert_int_eq(pwrite(fd, "zzz", 3, (off_t)(n / 2)), 3);
	pq_infer_ahead_cancel(a);
	ci.ahead = a;
	got = convert(fd, &ci, &s, &len, &err);
	ck_assert(!s.inferred_ahead);
	free(got);
	pq_infer_ahead_free(a);
	close(fd);
	/* a ragged record: the conversion's own message */
	const char *bad = "a,b\n1,2\n3\n4,5\n";
	fd = tmpfd();
	ci.ahead = NULL;
	ck_assert_int_eq(pq_infer_ahead_start(fd, "x.csv", &ci, &a, &err), PQ_OK);
	write_growing(bad, strlen(bad), 3, a, SIZE_MAX, fd);
	ci.ahead = a;
	got = convert(fd, &ci, &s, &len, &err);
	ck_assert_ptr_null(got);
	ck_assert_msg(strstr(err.msg, "line 3, column 2 (b): missing"), "%s", err.msg);
	pq_infer_ahead_free(a);
	close(fd);
	/* compressed: refused at the start, the caller converts as usual */
	ci.codec = PQ_INPUT_GZIP;
	ci.ahead = NULL;
	ck_assert_int_ne(pq_infer_ahead_start(0, "x.csv.gz", &ci, &a, &err), PQ_OK);
	ck_assert_ptr_null(a);
	/* freed without a conversion, while it waits for bytes */
	ci.codec = PQ_INPUT_PLAIN;
	fd = tmpfd();
	ck_assert_int_eq(pq_infer_ahead_start(fd, "x.csv", &ci, &a, &err), PQ_OK);
	write_growing(t, n / 3, 100, a, SIZE_MAX, fd);
	pq_infer_ahead_free(a);
	pq_infer_ahead_free(NULL);
	close(fd);
	free(ref);
	free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("convert_ahead");
	TCase *tc = tcase_create("ahead");
	tcase_add_test(tc, test_ahead_same_bytes);
	tcase_add_test(tc, test_ahead_rest_on_threads);
	tcase_add_test(tc, test_ahead_not_taken);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
