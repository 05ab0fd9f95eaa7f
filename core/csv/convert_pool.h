/* The column jobs of a conversion on threads (convert_pool.c). Private to
 * core/csv/. */
#ifndef PQ_CONVERT_POOL_H
#define PQ_CONVERT_POOL_H
#ifndef PQ_CORE_BUILD
#error "convert_pool.h is private to core/"
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pq_error.h"

#define PQ_CONV_POOL_MAX 16u
/* Jobs handed over and not yet done: the caller needs one more set of
 * records than this to fill meanwhile. */
#define PQ_CONV_POOL_DEPTH 2u

/* Column i of job as thread k (0 .. threads-1). On failure *rank orders
 * it against the other failures of the job (lowest is reported). */
typedef pq_status (*pq_conv_col_fn)(void *ctx, unsigned k, void *job, size_t i, uint64_t *rank,
				    pq_error *err);
/* After every column of a job succeeded (on the last thread out). */
typedef pq_status (*pq_conv_end_fn)(void *ctx, void *job, pq_error *err);

typedef struct pq_conv_pool pq_conv_pool;
typedef struct pq_conv_pool_arg {
	pq_conv_pool *pool;
	unsigned k;
} pq_conv_pool_arg;

typedef struct pq_conv_pool_col {
	size_t i;           /* the column */
	uint64_t cost;      /* ns it took the last time */
} pq_conv_pool_col;

/* A job handed over: its columns in the order they are handed out. */
typedef struct pq_conv_pool_job {
	void *job;
	uint64_t seq;       /* 1, 2, ... in the order handed over */
	bool barrier;       /* the next job starts only after this one ended */
	bool ending;        /* its end function runs */
	size_t next;        /* order[0 .. next) are all taken */
	size_t done;        /* columns done */
	pq_conv_pool_col *order;
	uint8_t *taken;     /* by column */
} pq_conv_pool_job;

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
	size_t ncols;
	/* Jobs in flight, oldest first (q[(head + j) % DEPTH]); a column of
	 * the second may start once the first is done with that column, so a
	 * thread that finished its part of a job need not wait for the
	 * slowest column of it. */
	pq_conv_pool_job q[PQ_CONV_POOL_DEPTH];
	unsigned head, count;
	uint64_t seq;       /* jobs handed over so far */
	uint64_t *col_seq;  /* by column: the last job that column is done in */
	uint64_t *cost;     /* by column: ns it took the last time */
	bool lookahead;     /* few enough columns to look for the second job's */
	unsigned inflight;  /* columns being worked on */
	bool stop;
	pq_status st;       /* the failure of lowest (job, rank) */
	uint64_t fail_seq, rank;
	pq_error err;
};

/* threads 0: no thread, pq_conv_pool_submit does the work itself. ncols:
 * the columns of every job. */
pq_status pq_conv_pool_start(pq_conv_pool *p, unsigned threads, size_t ncols, pq_conv_col_fn col,
			     pq_conv_end_fn end, void *ctx, pq_error *err);
/* Hands a job over once fewer than PQ_CONV_POOL_DEPTH are in flight (or
 * does it, without threads); the failure of a job before, if any.
 * barrier: the next job's columns wait until this one has ended. */
pq_status pq_conv_pool_submit(pq_conv_pool *p, void *job, bool barrier, pq_error *err);
/* Waits until every job is done; the failure, if any. */
pq_status pq_conv_pool_wait(pq_conv_pool *p, pq_error *err);
/* Lets the jobs in flight finish, then ends the threads. Safe to call
 * twice. */
void pq_conv_pool_stop(pq_conv_pool *p);

#endif
