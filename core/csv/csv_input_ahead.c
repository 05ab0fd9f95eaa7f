/* Decompression on a thread of its own (pq_csv_input.read_ahead): a gzip
 * or zstd input is inflated into a ring of AHEAD_SLOTS blocks of
 * AHEAD_BLOCK bytes while the reader's thread tokenizes the blocks before,
 * so the tokenizer never waits on zlib / libzstd unless inflating is the
 * slower of the two.
 *
 * The thread owns the decoder, the raw block and the file position (a copy
 * of the input, `inner`) from its start to its stop; the reader's side only
 * takes filled blocks, and sets raw_off and calls on_block when it starts
 * one, on its own thread as before. A failure travels in its block, after
 * the bytes before it. A rewind stops the thread first (pq_csv_ahead_stop
 * gives the decoder back); the next read starts it again.
 *
 * Memory: AHEAD_SLOTS × AHEAD_BLOCK (4 MiB), allocated once per input. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pq_csv.h"

#define AHEAD_SLOTS 4u
#define AHEAD_BLOCK (1u << 20)

typedef struct slot {
	uint8_t *p;
	size_t len, pos;
	uint64_t raw_off;   /* bytes of the file read once this block was filled */
	pq_status st;       /* a failure after the len bytes; len 0 and PQ_OK: the end */
	pq_error err;
} slot;

struct pq_csv_ahead {
	pq_csv_input inner; /* the decoder's state while the thread runs */
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool running, stop;
	slot s[AHEAD_SLOTS];
	size_t filled, taken; /* blocks filled / taken so far (ring indexes mod AHEAD_SLOTS) */
	bool reading;       /* the reader's side is inside block `taken` */
};

static void *ahead_thread(void *arg)
{
	struct pq_csv_ahead *a = arg;
	for (;;) {
		pthread_mutex_lock(&a->lock);
		while (!a->stop && a->filled - a->taken == AHEAD_SLOTS)
			pthread_cond_wait(&a->cond, &a->lock);
		bool stop = a->stop;
		pthread_mutex_unlock(&a->lock);
		if (stop)
			return NULL;
		slot *s = &a->s[a->filled % AHEAD_SLOTS];
		s->len = s->pos = 0;
		s->st = PQ_OK;
		/* fill the block (a short one only at the end or on failure) */
		while (s->len < AHEAD_BLOCK) {
			size_t got = 0;
			s->st = pq_csv_input_unpack(&a->inner, s->p + s->len, AHEAD_BLOCK - s->len, &got,
						    &s->err);
			s->len += got;
			if (s->st != PQ_OK || got == 0)
				break;
		}
		s->raw_off = a->inner.raw_off;
		bool last = s->st != PQ_OK || s->len < AHEAD_BLOCK;
		pthread_mutex_lock(&a->lock);
		a->filled++;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
		if (last && s->len > 0 && s->st == PQ_OK) {
			/* the end: one more, empty block says so */
			pthread_mutex_lock(&a->lock);
			while (!a->stop && a->filled - a->taken == AHEAD_SLOTS)
				pthread_cond_wait(&a->cond, &a->lock);
			if (!a->stop) {
				slot *e = &a->s[a->filled % AHEAD_SLOTS];
				e->len = e->pos = 0;
				e->st = PQ_OK;
				e->raw_off = a->inner.raw_off;
				a->filled++;
				pthread_cond_broadcast(&a->cond);
			}
			pthread_mutex_unlock(&a->lock);
		}
		if (last)
			return NULL;
	}
}

static pq_status ahead_start(pq_csv_input *in, pq_error *err)
{
	struct pq_csv_ahead *a = in->ahead;
	if (!a) {
		a = calloc(1, sizeof *a);
		if (!a)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory to read ahead", in->name);
		in->ahead = a;
		for (unsigned i = 0; i < AHEAD_SLOTS; i++)
			if (!(a->s[i].p = malloc(AHEAD_BLOCK)))
				return pq_fail(err, PQ_ENOMEM, "%s: no memory to read ahead", in->name);
	}
	a->inner = *in;
	a->inner.on_block = NULL;
	a->inner.read_ahead = false;
	a->inner.ahead = NULL;
	a->inner.spool = NULL; /* kept by the reader's side, off this thread */
	a->filled = a->taken = 0;
	a->reading = false;
	a->stop = false;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if (pthread_create(&a->th, NULL, ahead_thread, a) != 0) {
		pthread_cond_destroy(&a->cond);
		pthread_mutex_destroy(&a->lock);
		return pq_fail(err, PQ_ENOMEM, "%s: cannot start the decompression thread", in->name);
	}
	a->running = true;
	return PQ_OK;
}

void pq_csv_ahead_stop(pq_csv_input *in)
{
	struct pq_csv_ahead *a = in->ahead;
	if (!a || !a->running)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->th, NULL);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	a->running = false;
	/* the decoder's state back (the raw block is the same memory) */
	in->raw = a->inner.raw;
	in->raw_pos = a->inner.raw_pos;
	in->raw_end = a->inner.raw_end;
	in->raw_eof = a->inner.raw_eof;
	in->u = a->inner.u;
}

void pq_csv_ahead_free(pq_csv_input *in)
{
	struct pq_csv_ahead *a = in->ahead;
	if (!a)
		return;
	pq_csv_ahead_stop(in);
	for (unsigned i = 0; i < AHEAD_SLOTS; i++)
		free(a->s[i].p);
	free(a);
	in->ahead = NULL;
}

pq_status pq_csv_ahead_read(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			    pq_error *err)
{
	*got = 0;
	if (!in->ahead || !in->ahead->running)
		PQ_TRY(ahead_start(in, err));
	struct pq_csv_ahead *a = in->ahead;
	pthread_mutex_lock(&a->lock);
	while (a->filled == a->taken)
		pthread_cond_wait(&a->cond, &a->lock);
	pthread_mutex_unlock(&a->lock);
	slot *s = &a->s[a->taken % AHEAD_SLOTS];
	if (!a->reading) { /* a new block: where the file stands */
		a->reading = true;
		in->raw_off = s->raw_off;
		pq_csv_input_spool_put(in, s->p, s->len, s->len == 0 && s->st == PQ_OK);
		if (in->on_block)
			in->on_block(in->ctx);
	}
	size_t n = s->len - s->pos < cap ? s->len - s->pos : cap;
	if (n) {
		memcpy(buf, s->p + s->pos, n);
		s->pos += n;
		*got = n;
	}
	if (s->pos < s->len)
		return PQ_OK;
	if (s->st != PQ_OK) {
		if (n)
			return PQ_OK; /* the bytes first, the failure on the next call */
		*err = s->err;
		return s->st;
	}
	if (s->len == 0)
		return PQ_OK; /* the end (stays the end) */
	pthread_mutex_lock(&a->lock);
	a->taken++;
	a->reading = false;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return PQ_OK;
}
