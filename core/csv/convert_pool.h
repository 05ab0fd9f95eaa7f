/* The column jobs of a conversion on threads (convert_pool.c). Private to
 * core/csv/. */
#ifndef PQ_CONVERT_POOL_H
#define PQ_CONVERT_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pq_error.h"

#define PQ_CONV_POOL_MAX 16u

/* Column i of job as thread k (0 .. threads-1). On failure *rank orders
 * it against the other failures of the job (lowest is reported). */
typedef pq_status (*pq_conv_col_fn)(void *ctx, unsigned k, void *job, size_t i, uint64_t *rank,
				    pq_error *err);
/* After every column of a job succeeded (on the last thread out). */
typedef pq_status (*pq_conv_end_fn)(void *ctx, void *job, pq_error *err);

typedef struct pq_conv_pool pq_conv_pool;
typedef struct pq_conv_pool_col {
	size_t i;           /* the column */
	uint64_t cost;      /* ns it took in the job before */
} pq_conv_pool_col;
typedef struct pq_conv_pool_arg {
	pq_conv_pool *pool;
	unsigned k;
} pq_conv_pool_arg;

struct pq_conv_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t threads[PQ_CONV_POOL_MAX];
	pq_conv_pool_arg args[PQ_CONV_POOL_MAX];
	unsigned nthreads;  /* running (0: the caller's thread does the work) */
	bool started;
	pq_conv_col_fn col;
	pq_conv_end_fn end;
	void *ctx;
	void *job;          /* handed over, not yet done */
	uint64_t gen;       /* jobs handed over so far */
	size_t ncols, next_col;
	/* Columns handed out costliest first (by their time in the job
	 * before), so no thread is left alone with a long column at the end
	 * of a job while the other waits: order[k] is the k-th handed out. */
	pq_conv_pool_col *order;
	size_t order_cap;
	unsigned active;    /* threads not yet done with the job */
	bool stop;
	pq_status st;       /* the failure of lowest rank of the first failing job */
	uint64_t rank;
	pq_error err;
};

/* threads 0: no thread, pq_conv_pool_submit does the work itself. */
void pq_conv_pool_start(pq_conv_pool *p, unsigned threads, pq_conv_col_fn col,
			pq_conv_end_fn end, void *ctx);
/* Waits for the job before (returning its failure, or an earlier one),
 * then hands this one over (or does it, without threads). */
pq_status pq_conv_pool_submit(pq_conv_pool *p, void *job, size_t ncols, pq_error *err);
/* Waits until no job is pending; the failure, if any. */
pq_status pq_conv_pool_wait(pq_conv_pool *p, pq_error *err);
/* Lets a pending job finish, then ends the threads. Safe to call twice. */
void pq_conv_pool_stop(pq_conv_pool *p);

#endif
