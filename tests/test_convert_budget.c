/* A conversion's memory in a budget (pq_write_options.budget): the
 * buffers that grow with the data (record sets, a row group's values,
 * indices and encoded pages, dictionaries) are charged as they grow and all
 * given back at the end; the charges are never refused, even past the
 * limit (a conversion is not failed half done for room readers took).
 *
 * That the charges are the conversion's real memory is measured: the
 * heap in use (mallinfo2, sampled by a thread every millisecond) grows by
 * no more during the conversion than the charged peak plus a margin for
 * what is not charged (the CSV reader's chunk, each thread's page scratch,
 * statistics: bounded by the page size, not by the data). Issue 31 point 15:
 * before, a conversion held ~210 MB outside the mount's budget. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "pq_budget.h"
#include "pq_convert.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) && !defined(__SANITIZE_ADDRESS__)
#define HAVE_HEAP_SAMPLE 1
static uint64_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return (uint64_t)m.uordblks + (uint64_t)m.hblkhd;
}
#else
#define HAVE_HEAP_SAMPLE 0
static uint64_t heap_in_use(void)
{
	return 0;
}
#endif

static int tmpfd(void)
{
	char path[] = "/tmp/pq_test_budget_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

/* rows of a lineitem-like table: numbers, a decimal, a flag, a date and
 * a comment of 10-40 bytes (the column whose pages grow most) */
static int make_csv(unsigned rows)
{
	int fd = tmpfd();
	FILE *f = fdopen(dup(fd), "w");
	ck_assert_ptr_nonnull(f);
	fputs("id,qty,price,flag,day,comment\n", f);
	unsigned x = 12345;
	for (unsigned i = 0; i < rows; i++) {
		char comment[48];
		unsigned n = 10 + (x = x * 1103515245u + 12345u) % 31;
		for (unsigned k = 0; k < n; k++)
			comment[k] = (char)('a' + (x = x * 1103515245u + 12345u) % 17);
		comment[n] = 0;
		fprintf(f, "%u,%u,%u.%02u,%c,2024-%02u-%02u,%s\n", i, x % 50 + 1, x % 100000, x % 100,
			"ARN"[x % 3], x % 12 + 1, x % 28 + 1, comment);
	}
	ck_assert_int_eq(fclose(f), 0);
	return fd;
}

typedef struct sampler {
	atomic_bool stop;
	_Atomic uint64_t peak;
} sampler;

static void *sample(void *arg)
{
	sampler *s = arg;
	while (!atomic_load(&s->stop)) {
		uint64_t now = heap_in_use();
		if (now > atomic_load(&s->peak))
			atomic_store(&s->peak, now);
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void check_conversion(unsigned threads, uint64_t row_group_rows, uint64_t limit)
{
	int in = make_csv(300000);
	int out = tmpfd();
	pq_budget *b = pq_budget_new(limit);
	ck_assert_ptr_nonnull(b);
	pq_write_options wo;
	pq_write_options_init(&wo);
	wo.row_group_rows = row_group_rows;
	wo.budget = b;
	pq_convert_input ci = {.format = PQ_CSV_COMMA, .delimiter = ',', .codec = PQ_INPUT_PLAIN,
			       .threads = threads};
	pq_convert_stats stats;
	pq_error err = {0};
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	sampler s;
	atomic_init(&s.stop, false);
	uint64_t base = heap_in_use();
	atomic_init(&s.peak, base);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, sample, &s), 0);
	pq_status st = pq_convert_csv_ex(in, out, "x.csv", &ci, NULL, &wo, &stats, &err);
	atomic_store(&s.stop, true);
	pthread_join(t, NULL);
	ck_assert_msg(st == PQ_OK, "conversion failed: %s", err.msg);
	ck_assert_uint_eq(stats.rows, 300000);
	uint64_t charged = pq_budget_peak(b), grew = atomic_load(&s.peak) - base;
	fprintf(stderr,
		"threads=%u row_group_rows=%llu limit=%llu: charged peak %llu bytes, heap grew "
		"by %llu bytes at most\n",
		threads, (unsigned long long)row_group_rows, (unsigned long long)limit,
		(unsigned long long)charged, (unsigned long long)grew);
	/* every charge given back, none refused (past the limit too) */
	ck_assert_uint_eq(pq_budget_used(b), 0);
	ck_assert_uint_eq(pq_budget_refusals(b), 0);
	ck_assert_uint_gt(charged, 1u << 20);
	/* the charges are the memory: what is not charged stays within a
	 * margin the data does not set (page scratch per thread, the reader's
	 * chunks, statistics) */
	if (HAVE_HEAP_SAMPLE)
		ck_assert_msg(grew <= charged + (24u << 20),
			      "the heap grew by %llu bytes, %llu charged",
			      (unsigned long long)grew, (unsigned long long)charged);
	pq_budget_free(b);
	close(in);
	close(out);
}

START_TEST(test_one_thread)
{
	check_conversion(1, 1048576, 256u << 20);
}
END_TEST

START_TEST(test_threads)
{
	check_conversion(2, 1048576, 256u << 20);
}
END_TEST

START_TEST(test_past_limit)
{
	/* a limit far below the conversion's need: counted, never refused */
	check_conversion(2, 100000, 1u << 20);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("convert_budget");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_one_thread);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_past_limit);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
