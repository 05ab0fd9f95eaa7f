/* pfs_parallel_for (fs/parallel.c): every index exactly once, on the
 * parked helpers, also when several loops run at once and when loops
 * come faster than helpers park. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "parallel.h"

#define N 5000

typedef struct counts {
	atomic_int hit[N];
	atomic_int threads_seen;
} counts;

static void count_one(void *ctx, size_t i)
{
	counts *c = ctx;
	atomic_fetch_add(&c->hit[i], 1);
	if (i % 97 == 0)
		usleep(50); /* a wait, as a cold stat: others take the rest */
}

static void check_once(counts *c, size_t n)
{
	for (size_t i = 0; i < N; i++)
		ck_assert_int_eq(atomic_load(&c->hit[i]), i < n ? 1 : 0);
}

START_TEST(test_each_index_once)
{
	static const size_t sizes[] = {0, 1, 15, 16, 17, 100, 1024, N};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		counts *c = calloc(1, sizeof *c);
		ck_assert(c);
		pfs_parallel_for(sizes[k], 16, 8, count_one, c);
		check_once(c, sizes[k]);
		free(c);
	}
}
END_TEST

static void *loops(void *arg)
{
	(void)arg;
	for (int r = 0; r < 50; r++) {
		counts *c = calloc(1, sizeof *c);
		if (!c)
			return (void *)1;
		size_t n = (size_t)(r * 37) % N + 1;
		pfs_parallel_for(n, 8, 16, count_one, c);
		for (size_t i = 0; i < N; i++)
			if (atomic_load(&c->hit[i]) != (i < n ? 1 : 0)) {
				free(c);
				return (void *)1;
			}
		free(c);
	}
	return NULL;
}

/* four listings at once share the pool: none loses or repeats an index,
 * none waits for another's work */
START_TEST(test_concurrent_loops)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, loops, NULL), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		ck_assert_ptr_null(r);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_each_index_once);
	tcase_add_test(tc, test_concurrent_loops);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
