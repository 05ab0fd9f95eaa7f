/* The column jobs of a conversion on threads (doc/convert.md "Threads"):
 * the converting thread tokenizes records into one set while the pool's
 * threads work on the other set, each taking the set's next column nobody
 * took yet (inference: feed the column's values to its state; the value
 * pass: parse the column's values and encode them). A column of a set is
 * touched by one thread only and sets are handed over one at a time, so a
 * column sees its values in file order whatever the number of threads.
 *
 * Failures keep the order of a single-threaded run: a column stops at its
 * first bad value and reports its rank (row * columns + column); every
 * column of the failing set still runs, and the failure of lowest rank is
 * the one returned. No later set is started after a failure. With no
 * thread (threads=0, or none could be created) the same calls run on the
 * converting thread, column by column. */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "convert_pool.h"

#define ORDER_MAX_COLS 65536u /* more columns: handed out in order */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int by_cost(const void *a, const void *b)
{
	const pq_conv_pool_col *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

/* The order of the next job's columns (before it is handed over: no
 * thread runs a job meanwhile). */
static void plan(pq_conv_pool *p, size_t ncols)
{
	if (ncols > ORDER_MAX_COLS)
		return;
	if (p->order_cap != ncols) {
		free(p->order);
		p->order = calloc(ncols, sizeof *p->order);
		p->order_cap = p->order ? ncols : 0;
		for (size_t i = 0; i < p->order_cap; i++)
			p->order[i].i = i;
		return; /* no times yet */
	}
	qsort(p->order, ncols, sizeof *p->order, by_cost);
}

static void fail(pq_conv_pool *p, pq_status st, uint64_t rank, const pq_error *e)
{
	if (st == PQ_OK)
		return;
	if (p->st == PQ_OK || rank < p->rank) {
		p->st = st;
		p->rank = rank;
		p->err = *e;
	}
}

static void *pool_thread(void *arg)
{
	pq_conv_pool_arg *a = arg;
	pq_conv_pool *p = a->pool;
	uint64_t seen = 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && (!p->job || p->gen == seen))
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->job || p->gen == seen)
			break; /* stopped, and nothing left of ours */
		seen = p->gen;
		void *job = p->job;
		while (p->next_col < p->ncols) {
			size_t k = p->next_col++;
			size_t i = p->order_cap == p->ncols ? p->order[k].i : k;
			pthread_mutex_unlock(&p->lock);
			pq_error e;
			uint64_t rank = 0, t0 = now_ns();
			pq_status st = p->col(p->ctx, a->k, job, i, &rank, &e);
			uint64_t t1 = now_ns();
			pthread_mutex_lock(&p->lock);
			if (p->order_cap == p->ncols)
				p->order[k].cost = t1 - t0;
			fail(p, st, rank, &e);
		}
		if (--p->active > 0)
			continue;
		/* the last one out ends the set */
		if (p->st == PQ_OK && p->end) {
			pthread_mutex_unlock(&p->lock);
			pq_error e;
			pq_status st = p->end(p->ctx, job, &e);
			pthread_mutex_lock(&p->lock);
			fail(p, st, 0, &e);
		}
		p->job = NULL;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void pq_conv_pool_start(pq_conv_pool *p, unsigned threads, pq_conv_col_fn col,
			pq_conv_end_fn end, void *ctx)
{
	memset(p, 0, sizeof *p);
	p->col = col;
	p->end = end;
	p->ctx = ctx;
	if (threads == 0)
		return;
	if (threads > PQ_CONV_POOL_MAX)
		threads = PQ_CONV_POOL_MAX;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->started = true;
	for (unsigned i = 0; i < threads; i++) {
		p->args[i] = (pq_conv_pool_arg){p, i};
		if (pthread_create(&p->threads[i], NULL, pool_thread, &p->args[i]) != 0)
			break;
		p->nthreads++;
	}
	if (p->nthreads == 0) { /* no thread: the same work, on the caller's */
		p->started = false;
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
	}
}

pq_status pq_conv_pool_wait(pq_conv_pool *p, pq_error *err)
{
	if (!p->started)
		return p->st == PQ_OK || !err ? p->st : (*err = p->err, p->st);
	pthread_mutex_lock(&p->lock);
	while (p->job)
		pthread_cond_wait(&p->cond, &p->lock);
	pq_status st = p->st;
	if (st != PQ_OK && err)
		*err = p->err;
	pthread_mutex_unlock(&p->lock);
	return st;
}

pq_status pq_conv_pool_submit(pq_conv_pool *p, void *job, size_t ncols, pq_error *err)
{
	PQ_TRY(pq_conv_pool_wait(p, err));
	if (!p->started) {
		for (size_t i = 0; i < ncols; i++) {
			pq_error e;
			uint64_t rank = 0;
			pq_status st = p->col(p->ctx, 0, job, i, &rank, &e);
			fail(p, st, rank, &e);
		}
		if (p->st == PQ_OK && p->end) {
			pq_error e;
			pq_status st = p->end(p->ctx, job, &e);
			fail(p, st, 0, &e);
		}
		return pq_conv_pool_wait(p, err);
	}
	plan(p, ncols);
	pthread_mutex_lock(&p->lock);
	p->job = job;
	p->gen++;
	p->ncols = ncols;
	p->next_col = 0;
	p->active = p->nthreads;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return PQ_OK;
}

void pq_conv_pool_stop(pq_conv_pool *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->lock);
	while (p->job) /* a failure on this side: let the set finish first */
		pthread_cond_wait(&p->cond, &p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->order);
	p->order = NULL;
	p->order_cap = 0;
	p->nthreads = 0;
	p->started = false;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
}
