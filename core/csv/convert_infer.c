/* The inference pass on several threads (doc/convert.md "Threads"): the
 * records after the header of a plain, seekable file are cut into byte
 * ranges, each range is tokenized and fed to inference on its own, and the
 * states are merged (pq_infer_merge: the kind depends on the set of values
 * only, not on their order).
 *
 * A range is guessed to start after the first LF at or after its nominal
 * offset. That is a record boundary unless the LF sits inside a quoted
 * field, so every guess is checked: range i runs until the first record
 * that starts at or after range i+1's guessed start and reports where that
 * record starts (X); range i+1 reports where its own first record starts
 * (F). The ranges chain when X(i) == F(i+1): both tokenizers then stand at
 * the same byte in the same state (between records, outside quotes), so
 * they see the same records the single-threaded pass sees. A guess inside
 * quotes gives F < X (the closing quote lies between them) and that range
 * is tokenized again from X on this thread. Any error (a ragged record, a
 * bad quote, a limit) gives up: the caller runs the single-threaded pass,
 * which reports it with the exact line numbers.
 *
 * Memory: per thread one tokenizer (a 256 KiB buffer and one record), and
 * one inference state per column for every range (ranges are capped so
 * that stays under about 2^20 states). */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pq_csv.h"
#define PQ_CSV_INTERNAL
#include "convert_internal.h"

#define RANGE_BYTES ((uint64_t)16 << 20) /* nominal range size: progress, balance */
#define MAX_RANGES 4096u
#define MAX_STATES ((size_t)1 << 20)     /* ranges x columns */
#define NO_RECORD UINT64_MAX             /* F / X at the end of the file */
#define FIND_BLOCK 4096u

typedef struct range {
	uint64_t start;     /* guessed: after an LF (or the data's first byte) */
	uint64_t end;       /* the next range's start */
	uint64_t first;     /* F: where its first record starts */
	uint64_t next;      /* X: the first record starting at or after end */
	bool failed;
	pq_infer *inf;      /* ncols */
} range;

typedef struct job {
	const pq_conv_infer_in *in;
	range *r;
	size_t nranges;
	atomic_size_t next_range;
	atomic_uint_fast64_t bytes;  /* read by every thread (progress) */
} job;

/* The input file read from byte off on, uncompressed, unbounded. */
static void plain_input(pq_csv_input *fin, const pq_conv_infer_in *in, uint64_t off)
{
	memset(fin, 0, sizeof *fin);
	fin->fd = in->fd;
	fin->name = in->name;
	fin->seekable = true;
	fin->codec = PQ_INPUT_PLAIN;
	fin->raw_eof = false;
	fin->raw_off = off;
	fin->max_out = UINT64_MAX;
}

/* The byte after the first LF at or after off (the file's size when none). */
static pq_status find_start(const pq_conv_infer_in *in, uint64_t off, uint64_t *out,
			    pq_error *err)
{
	uint8_t b[FIND_BLOCK];
	pq_csv_input fin;
	plain_input(&fin, in, off);
	for (;;) {
		size_t got;
		uint64_t at = fin.raw_off;
		PQ_TRY(pq_csv_input_read(&fin, b, sizeof b, &got, err));
		if (got == 0) {
			*out = in->size;
			return PQ_OK;
		}
		const uint8_t *lf = memchr(b, '\n', got);
		if (lf) {
			*out = at + (uint64_t)(lf - b) + 1;
			return PQ_OK;
		}
	}
}

/* Tokenizes range rg from byte `from` (rg->start, or the checked X of the
 * range before) and fills rg->inf, ->first, ->next; ->failed on any error
 * (the serial pass reports it). */
static void run_range(job *j, range *rg, uint64_t from, bool report)
{
	const pq_conv_infer_in *in = j->in;
	memset(rg->inf, 0, in->ncols * sizeof *rg->inf);
	rg->first = rg->next = NO_RECORD;
	rg->failed = false;
	pq_csv_input fin;
	plain_input(&fin, in, from);
	pq_csv_reader r;
	pq_error e;
	if (pq_csv_reader_init_input(&r, &fin, in->format, in->delim, &e) != PQ_OK) {
		pq_csv_reader_free(&r);
		rg->failed = true;
		return;
	}
	r.no_bom = true;
	if (in->split_bytes && in->split_bytes < r.cap) /* the test hook: small reads too */
		r.cap = in->split_bytes < 16 ? 16 : (size_t)in->split_bytes;
	uint64_t seen = 0;
	for (;;) {
		bool done;
		if (pq_csv_next(&r, &done, &e) != PQ_OK) {
			rg->failed = true;
			break;
		}
		if (fin.out_bytes > seen) {
			uint64_t total = atomic_fetch_add(&j->bytes, fin.out_bytes - seen) +
					 (fin.out_bytes - seen);
			seen = fin.out_bytes;
			if (report && in->progress)
				in->progress(in->ctx, total < in->size ? total : in->size);
		}
		if (done)
			break;
		uint64_t off = from + r.record_off;
		if (rg->first == NO_RECORD)
			rg->first = off;
		if (off >= rg->end) {
			rg->next = off;
			break;
		}
		if (r.nfields != in->ncols) {
			rg->failed = true;
			break;
		}
		for (size_t i = 0; i < in->ncols; i++) {
			const pq_csv_field *f = &r.fields[i];
			if (!f->null && f->n)
				pq_infer_add(&rg->inf[i], f->p, f->n);
		}
	}
	pq_csv_reader_free(&r);
}

static void work(job *j, bool report)
{
	for (;;) {
		size_t i = atomic_fetch_add(&j->next_range, 1);
		if (i >= j->nranges)
			return;
		run_range(j, &j->r[i], j->r[i].start, report);
	}
}

static void *worker(void *arg)
{
	work(arg, false);
	return NULL;
}

pq_status pq_conv_infer_parallel(const pq_conv_infer_in *in, pq_infer *out, bool *ok,
				 pq_error *err)
{
	*ok = false;
	if (in->threads < 2 || in->data_start >= in->size || !in->ncols)
		return PQ_OK;
	uint64_t len = in->size - in->data_start;
	uint64_t step = in->split_bytes ? in->split_bytes : len / in->threads;
	if (!in->split_bytes && step > RANGE_BYTES)
		step = RANGE_BYTES;
	if (!in->split_bytes && step < ((uint64_t)1 << 20))
		return PQ_OK; /* a small file: not worth the threads */
	uint64_t n = (len + step - 1) / step;
	uint64_t cap = MAX_STATES / in->ncols;
	if (cap > MAX_RANGES)
		cap = MAX_RANGES;
	if (n > cap) {
		n = cap;
		step = (len + n - 1) / n;
	}
	if (n < 2)
		return PQ_OK;
	job j = {.in = in, .nranges = (size_t)n};
	atomic_init(&j.next_range, 0);
	atomic_init(&j.bytes, 0);
	j.r = calloc(j.nranges, sizeof *j.r);
	pq_infer *states = calloc(j.nranges * in->ncols, sizeof *states);
	pq_status st = PQ_OK;
	if (!j.r || !states)
		st = pq_fail(err, PQ_ENOMEM, "%s: no memory for %zu inference ranges", in->name,
			     j.nranges);
	/* Starts: the data's first byte, then after the first LF at or after
	 * each nominal offset (never before the previous start). */
	for (size_t i = 0; st == PQ_OK && i < j.nranges; i++) {
		j.r[i].inf = states + i * in->ncols;
		if (i == 0) {
			j.r[i].start = in->data_start;
		} else {
			st = find_start(in, in->data_start + step * i, &j.r[i].start, err);
			if (st == PQ_OK && j.r[i].start < j.r[i - 1].start)
				j.r[i].start = j.r[i - 1].start;
		}
	}
	for (size_t i = 0; st == PQ_OK && i < j.nranges; i++)
		j.r[i].end = i + 1 < j.nranges ? j.r[i + 1].start : in->size;
	if (st != PQ_OK) {
		free(j.r);
		free(states);
		return st;
	}
	pthread_t th[16];
	unsigned nth = 0;
	for (unsigned t = 1; t < in->threads && t <= 16; t++)
		if (pthread_create(&th[nth], NULL, worker, &j) == 0)
			nth++;
	work(&j, true);
	for (unsigned t = 0; t < nth; t++)
		pthread_join(th[t], NULL);
	/* Chain the ranges; a wrong guess is tokenized again from the real
	 * boundary. */
	bool good = true;
	uint64_t expect = j.r[0].start; /* a record boundary: after the header */
	for (size_t i = 0; good && i < j.nranges; i++) {
		range *rg = &j.r[i];
		if (i > 0 && !rg->failed && rg->first != expect)
			rg->failed = true;
		if (rg->failed && i > 0 && expect == NO_RECORD) {
			/* the ranges before ended the file: nothing is left here */
			memset(rg->inf, 0, in->ncols * sizeof *rg->inf);
			rg->failed = false;
			rg->next = NO_RECORD;
		} else if (rg->failed && i > 0) {
			run_range(&j, rg, expect, false);
			(*in->reparsed)++;
		}
		if (rg->failed) {
			good = false;
			break;
		}
		for (size_t c = 0; c < in->ncols; c++)
			pq_infer_merge(&out[c], &rg->inf[c]);
		expect = rg->next;
	}
	free(j.r);
	free(states);
	if (good)
		*in->ranges = j.nranges;
	*ok = good;
	return PQ_OK;
}
