/* pfs_parallel_for (parallel.h): threads take the next index from one
 * atomic counter, so uneven waits balance themselves. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>

#include "parallel.h"

#define MAX_THREADS 16u

typedef struct loop {
	size_t n;
	atomic_size_t next;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
} loop;

static void *worker(void *arg)
{
	loop *l = arg;
	for (size_t i; (i = atomic_fetch_add(&l->next, 1)) < l->n;)
		l->fn(l->ctx, i);
	return NULL;
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
	pthread_t th[MAX_THREADS];
	size_t started = 0;
	for (; started + 1 < want; started++)
		if (pthread_create(&th[started], NULL, worker, &l) != 0)
			break;
	worker(&l);
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
}
