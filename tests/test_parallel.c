/* pfs_parallel_for (fs/parallel.c): every index exactly once, on the
 * parked helpers, also when several loops run at once and when loops
 * come faster than helpers park. Tasks (pfs_task): run once on a helper,
 * waited for; one no helper took is withdrawn and never runs. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
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

typedef struct who {
	pthread_t seen[64];
	atomic_int n;
} who;

static void note_thread(void *ctx, size_t i)
{
	(void)i;
	who *w = ctx;
	usleep(2000); /* long enough for the helpers to join */
	int k = atomic_fetch_add(&w->n, 1);
	if (k < 64)
		w->seen[k] = pthread_self();
}

static int distinct_threads(void)
{
	who *w = calloc(1, sizeof *w);
	if (!w)
		return 0;
	pfs_parallel_for(32, 4, 4, note_thread, w);
	int n = atomic_load(&w->n) < 64 ? atomic_load(&w->n) : 64, d = 0;
	for (int i = 0; i < n; i++) {
		int j = 0;
		while (j < i && !pthread_equal(w->seen[j], w->seen[i]))
			j++;
		d += j == i;
	}
	free(w);
	return d;
}

/* the daemon forks after mounting: its child has no helpers, and must not
 * count on the parent's parked ones */
START_TEST(test_after_fork)
{
	ck_assert_int_gt(distinct_threads(), 1); /* helpers parked here */
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(distinct_threads() > 1 ? 0 : 1);
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "the child ran its loop on one thread");
}
END_TEST

typedef struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
	atomic_int started, ran;
	pthread_t on;
} gate;

/* Holds its helper until the gate opens. */
static void blocked(void *arg)
{
	gate *g = arg;
	atomic_fetch_add(&g->started, 1);
	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	atomic_fetch_add(&g->ran, 1);
}

static void counted(void *arg)
{
	gate *g = arg;
	g->on = pthread_self();
	atomic_fetch_add(&g->ran, 1);
}

START_TEST(test_tasks)
{
	/* a task runs once, on a helper, and waiting says it ran */
	gate one = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	pfs_task t;
	ck_assert(pfs_task_start(&t, counted, &one));
	for (int i = 0; i < 2000 && atomic_load(&one.ran) == 0; i++)
		usleep(1000); /* taken by a helper (else wait would withdraw it) */
	ck_assert(pfs_task_wait(&t));
	ck_assert_int_eq(atomic_load(&one.ran), 1);
	ck_assert(!pthread_equal(one.on, pthread_self()));
	ck_assert(!pfs_task_cancel(&t)); /* done: nothing to withdraw */

	/* every helper held (at most 15): a task queued behind them is
	 * withdrawn by cancel and by wait, and never runs */
	enum { HOLD = 15 };
	gate g = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	pfs_task hold[HOLD];
	int held = 0;
	for (int i = 0; i < HOLD; i++)
		held += pfs_task_start(&hold[i], blocked, &g) ? 1 : 0;
	ck_assert_int_eq(held, HOLD);
	for (int i = 0; i < 2000 && atomic_load(&g.started) < HOLD; i++)
		usleep(1000);
	ck_assert_int_eq(atomic_load(&g.started), HOLD);
	gate late = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	pfs_task a, b;
	ck_assert(pfs_task_start(&a, counted, &late));
	ck_assert(pfs_task_start(&b, counted, &late));
	ck_assert(pfs_task_cancel(&a));
	ck_assert(!pfs_task_wait(&b));
	/* a loop still runs (on its caller) while the helpers are held */
	counts *c = calloc(1, sizeof *c);
	ck_assert_ptr_nonnull(c);
	pfs_parallel_for(100, 1, 8, count_one, c);
	check_once(c, 100);
	free(c);
	pthread_mutex_lock(&g.lock);
	g.open = true;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	for (int i = 0; i < HOLD; i++)
		ck_assert(pfs_task_wait(&hold[i]));
	ck_assert_int_eq(atomic_load(&g.ran), HOLD);
	usleep(20000);
	ck_assert_int_eq(atomic_load(&late.ran), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_each_index_once);
	tcase_add_test(tc, test_concurrent_loops);
	tcase_add_test(tc, test_after_fork);
	tcase_add_test(tc, test_tasks);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
