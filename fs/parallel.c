/* pfs_parallel_for (parallel.h): threads take the next index from one
 * atomic counter, so uneven waits balance themselves.
 *
 * The helpers are parked threads, not new ones: a first `ls` of 10,000
 * files runs twenty loops (a stat pass and a magic pass per batch of
 * 1,024), and starting seven threads for each cost more than the stats of
 * a warm directory. A loop posts tickets; parked helpers take them; the
 * caller works too, withdraws the tickets nobody took once the work is
 * done, and waits only for the helpers that joined. Tasks (pfs_task) are
 * single jobs queued behind the loops; a task nobody took yet is withdrawn
 * by its owner instead of waited for. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "interrupt.h"
#include "loop.h"
#include "parallel.h"

#define MAX_THREADS 16u

typedef struct loop {
	size_t n;
	atomic_size_t next;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	/* under the pool's lock */
	unsigned tickets;  /* helpers still wanted */
	unsigned running;  /* helpers inside */
	pthread_cond_t done;
	struct loop *next_loop; /* the pool's loops with tickets */
} loop;

enum { TASK_QUEUED = 1, TASK_RUNNING, TASK_DONE };

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work;
	pthread_cond_t task_done;
	loop *loops;
	pfs_task *tasks, **tasks_tail; /* queued, oldest first */
	unsigned ntasks;
	unsigned threads, idle;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
	  NULL, NULL, &pool.tasks, 0, 0, 0};

/* A child of fork (the daemon forks once, after mounting) has none of
 * the parent's helpers: it starts from an empty pool. */
static void forget_helpers(void)
{
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.work, NULL);
	pthread_cond_init(&pool.task_done, NULL);
	pool.loops = NULL;
	pool.tasks = NULL;
	pool.tasks_tail = &pool.tasks;
	pool.ntasks = 0;
	pool.threads = pool.idle = 0;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void register_fork(void)
{
	pthread_atfork(NULL, NULL, forget_helpers);
}

static void run(loop *l)
{
	for (size_t i; (i = atomic_fetch_add(&l->next, 1)) < l->n;)
		l->fn(l->ctx, i);
}

static void unlink_loop(loop *l)
{
	for (loop **p = &pool.loops; *p; p = &(*p)->next_loop)
		if (*p == l) {
			*p = l->next_loop;
			return;
		}
}

/* Takes task t off the queue, wherever it stands (under the lock). */
static void unlink_task(pfs_task *t)
{
	for (pfs_task **p = &pool.tasks; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			if (pool.tasks_tail == &t->next)
				pool.tasks_tail = p;
			pool.ntasks--;
			return;
		}
}

static void run_task(pfs_task *t)
{
	unlink_task(t);
	t->state = TASK_RUNNING;
	pthread_mutex_unlock(&pool.lock);
	pfs_intr_watch(t->cancel);
	t->fn(t->arg);
	pfs_intr_watch(NULL);
	pthread_mutex_lock(&pool.lock);
	t->state = TASK_DONE;
	pthread_cond_broadcast(&pool.task_done);
}

static void *helper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (!pool.loops && !pool.tasks) {
			pool.idle++;
			pthread_cond_wait(&pool.work, &pool.lock);
			pool.idle--;
		}
		if (!pool.loops) {
			run_task(pool.tasks);
			continue;
		}
		loop *l = pool.loops;
		if (--l->tickets == 0)
			unlink_loop(l);
		l->running++;
		pthread_mutex_unlock(&pool.lock);
		run(l);
		pthread_mutex_lock(&pool.lock);
		if (--l->running == 0)
			pthread_cond_signal(&l->done);
	}
	return NULL;
}

/* Starts helpers until the idle ones cover the tickets posted (under the
 * lock); a thread that cannot be started leaves its share to the others. */
static void grow(unsigned wanted)
{
	while (pool.idle < wanted && pool.threads < MAX_THREADS - 1) {
		pthread_t t;
		pthread_attr_t a;
		if (pthread_attr_init(&a) != 0)
			return;
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		int rc = pthread_create(&t, &a, helper, NULL);
		pthread_attr_destroy(&a);
		if (rc != 0)
			return;
		pool.threads++;
		wanted--; /* it will take one once it runs */
	}
}

void pfs_parallel_for(size_t n, size_t per_thread, unsigned max_threads,
		      void (*fn)(void *ctx, size_t i), void *ctx)
{
	loop l = {.n = n, .fn = fn, .ctx = ctx};
	atomic_init(&l.next, 0);
	size_t want = per_thread ? n / per_thread : n;
	if (max_threads > MAX_THREADS)
		max_threads = MAX_THREADS;
	if (want > max_threads)
		want = max_threads;
	if (want > 1) {
		pthread_once(&once, register_fork);
		pthread_cond_init(&l.done, NULL);
		pthread_mutex_lock(&pool.lock);
		l.tickets = (unsigned)want - 1;
		l.next_loop = pool.loops;
		pool.loops = &l;
		grow(l.tickets);
		pthread_cond_broadcast(&pool.work);
		pthread_mutex_unlock(&pool.lock);
	}
	run(&l);
	if (want > 1) {
		pthread_mutex_lock(&pool.lock);
		if (l.tickets)
			unlink_loop(&l); /* nobody needed: the work is done */
		l.tickets = 0;
		while (l.running)
			pthread_cond_wait(&l.done, &pool.lock);
		pthread_mutex_unlock(&pool.lock);
		pthread_cond_destroy(&l.done);
	}
}

bool pfs_task_start(pfs_task *t, void (*fn)(void *arg), void *arg)
{
	pthread_once(&once, register_fork);
	t->fn = fn;
	t->arg = arg;
	t->next = NULL;
	pthread_mutex_lock(&pool.lock);
	grow(pool.ntasks + 1);
	bool ok = pool.threads > 0;
	if (ok) {
		t->state = TASK_QUEUED;
		*pool.tasks_tail = t;
		pool.tasks_tail = &t->next;
		pool.ntasks++;
		pthread_cond_signal(&pool.work);
	} else {
		t->state = TASK_DONE;
	}
	pthread_mutex_unlock(&pool.lock);
	return ok;
}

bool pfs_task_wait(pfs_task *t)
{
	pthread_mutex_lock(&pool.lock);
	bool ran = t->state != TASK_QUEUED;
	if (!ran) {
		unlink_task(t);
		t->state = TASK_DONE;
	}
	while (t->state != TASK_DONE)
		pthread_cond_wait(&pool.task_done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	return ran;
}

int pfs_task_wait_intr(pfs_task *t)
{
	pthread_mutex_lock(&pool.lock);
	bool ran = t->state != TASK_QUEUED;
	if (!ran) {
		unlink_task(t);
		t->state = TASK_DONE;
	}
	while (t->state != TASK_DONE) {
		pfs_loop_will_wait();
		if (pfs_intr_arm()) {
			pthread_mutex_unlock(&pool.lock);
			return -1;
		}
		pfs_intr_timedwait(&pool.task_done, &pool.lock);
	}
	pthread_mutex_unlock(&pool.lock);
	return ran;
}

bool pfs_task_cancel(pfs_task *t)
{
	pthread_mutex_lock(&pool.lock);
	bool queued = t->state == TASK_QUEUED;
	if (queued) {
		unlink_task(t);
		t->state = TASK_DONE;
	}
	pthread_mutex_unlock(&pool.lock);
	return queued;
}
