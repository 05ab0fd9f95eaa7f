/* The column jobs of a conversion on threads (doc/convert.md "Threads"):
 * the converting thread tokenizes records into one set while the pool's
 * threads work on the sets before, each taking a column nobody took yet
 * (inference: feed the column's values to its state; the value pass:
 * parse the column's values and encode them). Columns are handed out
 * costliest first (by their time the last time), so no thread is left
 * alone with a long column at the end of a job; and a thread done with
 * its part of a job goes on with the next job's columns that the first
 * is done with, so it does not wait for the slowest one either.
 *
 * Order: a column of a job starts only after the same column of the job
 * before is done, and a job handed over with a barrier (a row group ends
 * after it) is ended (its end function) before any column of the next
 * starts. So every column sees its values in file order, whatever the
 * number of threads, and the output does not depend on it.
 *
 * Failures keep the order of a single-threaded run: a column stops at its
 * first bad value and reports its rank (row * columns + column); every
 * column of the failing job still runs, no column of a later job starts,
 * and the failure of the earliest job, then lowest rank, is returned. With
 * no thread (threads=0, or none could be created) the same calls run on
 * the converting thread, column by column, job by job. */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "convert_pool.h"
#include "pq_budget.h"

#define LOOKAHEAD_MAX_COLS 4096u /* more columns: the next job waits for the first */

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

static void fail(pq_conv_pool *p, pq_status st, uint64_t seq, uint64_t rank, const pq_error *e)
{
	if (st == PQ_OK)
		return;
	if (p->st == PQ_OK || seq < p->fail_seq || (seq == p->fail_seq && rank < p->rank)) {
		p->st = st;
		p->fail_seq = seq;
		p->rank = rank;
		p->err = *e;
	}
}

static pq_conv_pool_job *qjob(pq_conv_pool *p, unsigned j)
{
	return &p->q[(p->head + j) % PQ_CONV_POOL_DEPTH];
}

/* May columns of job x still start? (After a failure only those of the
 * failing job and the ones before it, for the lowest failure.) */
static bool open_job(const pq_conv_pool *p, const pq_conv_pool_job *x)
{
	return p->st == PQ_OK || x->seq <= p->fail_seq;
}

/* A column to work on: the oldest job's next, else a column of the second
 * job that the first is done with. */
static pq_conv_pool_job *pick(pq_conv_pool *p, size_t *col)
{
	if (p->count == 0)
		return NULL;
	pq_conv_pool_job *a = qjob(p, 0);
	if (open_job(p, a)) {
		while (a->next < p->ncols && a->taken[a->order[a->next].i])
			a->next++;
		if (a->next < p->ncols) {
			*col = a->order[a->next].i;
			a->taken[*col] = 1;
			return a;
		}
	}
	if (p->count < 2 || a->barrier || !p->lookahead)
		return NULL;
	pq_conv_pool_job *b = qjob(p, 1);
	if (!open_job(p, b))
		return NULL;
	while (b->next < p->ncols && b->taken[b->order[b->next].i])
		b->next++;
	for (size_t k = b->next; k < p->ncols; k++) {
		size_t i = b->order[k].i;
		if (!b->taken[i] && p->col_seq[i] + 1 == b->seq) {
			b->taken[i] = 1;
			*col = i;
			return b;
		}
	}
	return NULL;
}

/* The oldest jobs that are done leave the queue (their end function run
 * first, unlocked, when nothing failed). Called with the lock held. */
static void retire(pq_conv_pool *p)
{
	while (p->count > 0) {
		pq_conv_pool_job *a = qjob(p, 0);
		if (a->done < p->ncols || a->ending)
			return;
		if (p->st == PQ_OK && p->end) {
			a->ending = true;
			pthread_mutex_unlock(&p->lock);
			pq_error e;
			pq_status st = p->end(p->ctx, a->job, &e);
			pthread_mutex_lock(&p->lock);
			a->ending = false;
			fail(p, st, a->seq, UINT64_MAX, &e);
		}
		a->job = NULL;
		p->head = (p->head + 1) % PQ_CONV_POOL_DEPTH;
		p->count--;
		pthread_cond_broadcast(&p->cond);
	}
}

static void *pool_thread(void *arg)
{
	pq_conv_pool_arg *a = arg;
	pq_conv_pool *p = a->pool;
	/* a conversion's charges are counted, never refused (pq_conv_run) */
	pq_budget_thread_exempt(true);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t i;
		pq_conv_pool_job *x = pick(p, &i);
		if (!x) {
			if (p->stop && p->inflight == 0)
				break; /* nothing to do now, and nobody who could change that */
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		void *job = x->job;
		uint64_t seq = x->seq;
		p->inflight++;
		pthread_mutex_unlock(&p->lock);
		pq_error e;
		uint64_t rank = 0, t0 = now_ns();
		pq_status st = p->col(p->ctx, a->k, job, i, &rank, &e);
		uint64_t t1 = now_ns();
		pthread_mutex_lock(&p->lock);
		p->inflight--;
		p->cost[i] = t1 - t0;
		p->col_seq[i] = seq;
		x->done++;
		fail(p, st, seq, rank, &e);
		retire(p);
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void free_queue(pq_conv_pool *p)
{
	for (unsigned j = 0; j < PQ_CONV_POOL_DEPTH; j++) {
		free(p->q[j].order);
		free(p->q[j].taken);
	}
	free(p->col_seq);
	free(p->cost);
}

/* Back to a pool not started (its threads are gone or never came). */
static void teardown(pq_conv_pool *p)
{
	p->started = false;
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free_queue(p);
	p->col_seq = p->cost = NULL;
	memset(p->q, 0, sizeof p->q);
}

pq_status pq_conv_pool_start(pq_conv_pool *p, unsigned threads, size_t ncols, pq_conv_col_fn col,
			     pq_conv_end_fn end, void *ctx, pq_error *err)
{
	memset(p, 0, sizeof *p);
	p->col = col;
	p->end = end;
	p->ctx = ctx;
	p->ncols = ncols;
	if (threads == 0)
		return PQ_OK;
	if (threads > PQ_CONV_POOL_MAX)
		threads = PQ_CONV_POOL_MAX;
	size_t n = ncols ? ncols : 1;
	p->col_seq = calloc(n, sizeof *p->col_seq);
	p->cost = calloc(n, sizeof *p->cost);
	bool ok = p->col_seq && p->cost;
	for (unsigned j = 0; ok && j < PQ_CONV_POOL_DEPTH; j++) {
		p->q[j].order = calloc(n, sizeof *p->q[j].order);
		p->q[j].taken = calloc(n, 1);
		ok = p->q[j].order && p->q[j].taken;
	}
	if (!ok) {
		free_queue(p);
		memset(p, 0, sizeof *p);
		return pq_fail(err, PQ_ENOMEM, "no memory for %zu columns' jobs", ncols);
	}
	p->lookahead = ncols <= LOOKAHEAD_MAX_COLS;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->started = true;
	for (unsigned i = 0; i < threads; i++) {
		p->args[i] = (pq_conv_pool_arg){p, i};
		if (pthread_create(&p->threads[i], NULL, pool_thread, &p->args[i]) != 0)
			break;
		p->nthreads++;
	}
	if (p->nthreads == 0) /* no thread: the same work, on the caller's */
		teardown(p);
	return PQ_OK;
}

/* With the lock held: until nothing is in flight (or what failed is over). */
static pq_status wait_locked(pq_conv_pool *p, pq_error *err)
{
	while (p->count > 0 && (p->st == PQ_OK || qjob(p, 0)->seq <= p->fail_seq))
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->st != PQ_OK && err)
		*err = p->err;
	return p->st;
}

pq_status pq_conv_pool_wait(pq_conv_pool *p, pq_error *err)
{
	if (!p->started) {
		if (p->st != PQ_OK && err)
			*err = p->err;
		return p->st;
	}
	pthread_mutex_lock(&p->lock);
	pq_status st = wait_locked(p, err);
	pthread_mutex_unlock(&p->lock);
	return st;
}

pq_status pq_conv_pool_submit(pq_conv_pool *p, void *job, bool barrier, pq_error *err)
{
	if (!p->started) {
		PQ_TRY(pq_conv_pool_wait(p, err));
		for (size_t i = 0; i < p->ncols; i++) {
			pq_error e;
			uint64_t rank = 0;
			pq_status st = p->col(p->ctx, 0, job, i, &rank, &e);
			fail(p, st, 0, rank, &e);
		}
		if (p->st == PQ_OK && p->end) {
			pq_error e;
			pq_status st = p->end(p->ctx, job, &e);
			fail(p, st, 0, 0, &e);
		}
		return pq_conv_pool_wait(p, err);
	}
	pthread_mutex_lock(&p->lock);
	while (p->count == PQ_CONV_POOL_DEPTH && p->st == PQ_OK)
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->st != PQ_OK) {
		pq_status st = wait_locked(p, err);
		pthread_mutex_unlock(&p->lock);
		return st;
	}
	pq_conv_pool_job *x = qjob(p, p->count);
	x->job = job;
	x->seq = ++p->seq;
	x->barrier = barrier;
	x->ending = false;
	x->next = x->done = 0;
	/* costliest first, by the times of the jobs before */
	for (size_t i = 0; i < p->ncols; i++)
		x->order[i] = (pq_conv_pool_col){i, p->cost[i]};
	if (x->seq > 1 && p->ncols > 1)
		qsort(x->order, p->ncols, sizeof *x->order, by_cost);
	memset(x->taken, 0, p->ncols);
	p->count++;
	retire(p); /* a job of no columns is done at once */
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return PQ_OK;
}

void pq_conv_pool_stop(pq_conv_pool *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	p->nthreads = 0;
	teardown(p);
}
