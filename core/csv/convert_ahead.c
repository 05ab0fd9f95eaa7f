/* Type inference while the CSV is still being written (pq_infer_ahead,
 * pq_convert.h). A `cp` into staging/ delivers the file through write()
 * over seconds; inferring types is a pass over every value that the
 * conversion would otherwise start with once the file is closed. Here a
 * thread of its own follows the writer: it reads the bytes already final
 * (the writer only appends, in order, and says how far), tokenizes them
 * and feeds each column's inference state, waiting when it catches up.
 * When the file is complete before the thread reached its end, the rest
 * is inferred on all threads over byte ranges (convert_infer.c).
 *
 * The conversion (convert.c) takes the states only when they describe
 * exactly the bytes it converts: the same size, an uncompressed file, the
 * same delimiter and number of columns, and no change reported meanwhile.
 * pq_infer_merge makes the kinds depend only on the set of values, so the
 * states equal those of the conversion's own first pass and the output is
 * byte for byte the same; anything unusual (a ragged record, a bad quote,
 * a limit) just leaves the first pass to run and report it. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pq_csv.h"
#define PQ_CSV_INTERNAL
#include "convert_internal.h"

#define CHECK_EVERY 1024u                     /* records between looks at `complete` */
#define PARALLEL_MIN ((uint64_t)4 << 20)      /* rest worth handing to the threads */
#define MAX_THREADS 16u

struct pq_infer_ahead {
	int fd;
	char *name;
	pq_csv_format format;
	uint8_t delim;          /* given, or 0 until detected */
	pq_input_codec codec;
	unsigned threads;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;   /* the fields below */
	pthread_cond_t cond;
	uint64_t final;         /* bytes [0, final) are written for good */
	bool complete;          /* the file ends at final */
	bool cancelled;
	bool done;              /* the thread finished */
	bool ok;                /* done: states hold every record of [0, covered) */
	uint64_t covered;
	uint64_t ranges;        /* byte ranges the rest was cut into (0: none) */
	size_t ncols;
	pq_infer *states;
};

/* The tokenizer's wait for bytes past off (csv_input.c's grow_wait). */
static bool grow_wait(void *ctx, uint64_t off, uint64_t *avail)
{
	pq_infer_ahead *a = ctx;
	pthread_mutex_lock(&a->lock);
	while (!a->cancelled && !a->complete && a->final <= off)
		pthread_cond_wait(&a->cond, &a->lock);
	bool go = !a->cancelled;
	*avail = a->final;
	pthread_mutex_unlock(&a->lock);
	return go;
}

/* The file is complete and much of it is left: its size, else 0. */
static uint64_t complete_size(pq_infer_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	uint64_t size = a->complete && !a->cancelled ? a->final : 0;
	pthread_mutex_unlock(&a->lock);
	return size;
}

/* The records from pos (a record boundary) to the end on threads, folded
 * into the states; *ok false when the ranges gave up (the caller goes on
 * alone and meets the same error, or a remainder too small to split). */
static pq_status rest_on_threads(pq_infer_ahead *a, uint64_t pos, uint64_t size, bool *ok,
				 pq_error *err)
{
	pq_infer *tmp = calloc(a->ncols, sizeof *tmp);
	if (!tmp)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for inference", a->name);
	pq_conv_infer_in pin = {.fd = a->fd, .name = a->name, .format = a->format,
				.delim = a->delim, .ncols = a->ncols, .data_start = pos,
				.size = size, .threads = a->threads};
	uint64_t reparsed = 0;
	pin.ranges = &a->ranges;
	pin.reparsed = &reparsed;
	pq_status st = pq_conv_infer_parallel(&pin, tmp, ok, err);
	if (st == PQ_OK && *ok)
		for (size_t i = 0; i < a->ncols; i++)
			pq_infer_merge(&a->states[i], &tmp[i]);
	free(tmp);
	return st;
}

static pq_status infer(pq_infer_ahead *a, pq_csv_input *in, pq_csv_reader *r, pq_error *err)
{
	PQ_TRY(pq_csv_input_open_growing(in, a->fd, a->name, a->codec, grow_wait, a, err));
	if (in->codec != PQ_INPUT_PLAIN)
		return pq_fail(err, PQ_EINVAL, "%s: compressed: not inferred ahead", a->name);
	if (a->format == PQ_CSV_COMMA && !a->delim)
		PQ_TRY(pq_csv_detect_delimiter(in, &a->delim, err));
	PQ_TRY(pq_csv_reader_init_input(r, in, a->format, a->delim, err));
	a->delim = r->delim;
	bool done;
	PQ_TRY(pq_csv_next(r, &done, err)); /* the header: the conversion checks it */
	if (done)
		return pq_fail(err, PQ_EINVAL, "%s: empty", a->name);
	a->ncols = r->nfields;
	a->states = calloc(a->ncols, sizeof *a->states);
	if (!a->states)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for inference", a->name);
	bool tried_threads = a->threads < 2;
	for (uint64_t k = 1;; k++) {
		if (!tried_threads && k % CHECK_EVERY == 0) {
			uint64_t pos = r->bytes_read - (r->end - r->pos), size = complete_size(a);
			if (size && size > pos && size - pos >= PARALLEL_MIN) {
				tried_threads = true;
				bool ok = false;
				PQ_TRY(rest_on_threads(a, pos, size, &ok, err));
				if (ok) {
					a->covered = size;
					return PQ_OK;
				}
			}
		}
		PQ_TRY(pq_csv_next(r, &done, err));
		if (done)
			break;
		if (r->nfields != a->ncols)
			return pq_fail(err, PQ_EINVAL, "%s: a ragged record", a->name);
		for (size_t i = 0; i < a->ncols; i++) {
			const pq_csv_field *f = &r->fields[i];
			if (!f->null && f->n)
				pq_infer_add(&a->states[i], f->p, f->n);
		}
	}
	a->covered = in->raw_off;
	return PQ_OK;
}

static void *run(void *arg)
{
	pq_infer_ahead *a = arg;
	pq_csv_input in;
	pq_csv_reader r;
	memset(&in, 0, sizeof in);
	in.fd = -1;
	memset(&r, 0, sizeof r);
	pq_error err;
	pq_error_clear(&err);
	pq_status st = infer(a, &in, &r, &err);
	pq_csv_reader_free(&r);
	pq_csv_input_free(&in);
	pthread_mutex_lock(&a->lock);
	a->ok = st == PQ_OK;
	a->done = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

pq_status pq_infer_ahead_start(int fd, const char *display_name, const pq_convert_input *in,
			       pq_infer_ahead **out, pq_error *err)
{
	*out = NULL;
	if (in->codec != PQ_INPUT_PLAIN && in->codec != PQ_INPUT_AUTO)
		return pq_fail(err, PQ_EINVAL, "compressed input is not inferred ahead");
	pq_infer_ahead *a = calloc(1, sizeof *a);
	if (!a)
		return pq_fail(err, PQ_ENOMEM, "no memory for inference ahead");
	a->fd = dup(fd);
	a->name = strdup(display_name ? display_name : "input");
	if (a->fd < 0 || !a->name) {
		if (a->fd >= 0)
			close(a->fd);
		free(a->name);
		free(a);
		return pq_fail(err, PQ_ENOMEM, "no descriptor or memory for inference ahead");
	}
	a->format = in->format;
	a->delim = in->format == PQ_CSV_COMMA ? in->delimiter : '\t';
	a->codec = in->codec;
	a->threads = in->threads;
	if (!a->threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		a->threads = n < 1 ? 1 : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	int rc = pthread_create(&a->thread, NULL, run, a);
	if (rc) {
		a->started = false;
		pq_infer_ahead_free(a);
		return pq_fail(err, PQ_ENOMEM, "no thread for inference ahead: %s", strerror(rc));
	}
	a->started = true;
	*out = a;
	return PQ_OK;
}

void pq_infer_ahead_grow(pq_infer_ahead *a, uint64_t final_bytes)
{
	pthread_mutex_lock(&a->lock);
	if (final_bytes > a->final && !a->complete) {
		a->final = final_bytes;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
}

void pq_infer_ahead_cancel(pq_infer_ahead *a)
{
	pthread_mutex_lock(&a->lock);
	a->cancelled = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

static void join(pq_infer_ahead *a)
{
	if (a->started)
		pthread_join(a->thread, NULL);
	a->started = false;
}

void pq_infer_ahead_free(pq_infer_ahead *a)
{
	if (!a)
		return;
	pq_infer_ahead_cancel(a);
	join(a);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	close(a->fd);
	free(a->name);
	free(a->states);
	free(a);
}

bool pq_conv_ahead_take(pq_infer_ahead *a, uint64_t size, uint8_t delim, size_t ncols,
			struct pq_infer *out, uint64_t *ranges)
{
	pthread_mutex_lock(&a->lock);
	if (a->final != size) /* written further than it was told, or less */
		a->cancelled = true;
	a->complete = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	join(a);
	/* the thread is gone: its fields are this thread's to read */
	bool use = a->done && a->ok && !a->cancelled && a->covered == size && a->delim == delim &&
		   a->ncols == ncols && a->states;
	if (use) {
		memcpy(out, a->states, ncols * sizeof *out);
		*ranges = a->ranges;
	}
	return use;
}
