/* The size pass (pq_sizes.h): every aggregate size of a file from one
 * decode of each distinct page, on several threads, in bounded memory.
 *
 * 1. Chunks that hold the same bytes (row groups pointing at the same
 *    column chunk: same column, byte range, dictionary offset, codec and
 *    value count; never an encrypted one, whose pages are bound to their
 *    row group) are found from the footer; the first in (row group,
 *    column) order is measured, the others copy its results.
 * 2. Workers take the distinct chunks in order (sizes_chunk.c): each page
 *    is decoded once, by verify.txt's walk, and measured. Chunks that
 *    differ but point at the same pages share them through the page memo
 *    (page_memo.c): a page is decoded and measured once whichever chunks
 *    hold it. The decoded
 *    bytes in flight stay under mem_max (pq_mem_budget).
 * 3. Workers then do what depends on the first step's results: verify's
 *    checks of a shared chunk whose walk found problems (they name their
 *    row group, so they are redone), and the rows of a non-flat schema
 *    (rendered and counted, sizes_rows.c).
 * 4. Totals, and verify.txt assembled in (row group, column) order.
 * Every result is a function of the chunk alone, so the thread count does
 * not change any of them. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pq_assemble.h"
#include "sizes_internal.h"

#define DEFAULT_MEM_MAX ((uint64_t)256 << 20)
#define MAX_THREADS 256

void pq_mem_reserve(pq_mem_budget *b, uint64_t n)
{
	pthread_mutex_lock(&b->mu);
	while (b->used && b->used + n > b->max)
		pthread_cond_wait(&b->cv, &b->mu);
	b->used += n;
	pthread_mutex_unlock(&b->mu);
}

void pq_mem_release(pq_mem_budget *b, uint64_t n)
{
	pthread_mutex_lock(&b->mu);
	b->used -= n;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

void pq_file_sizes_free(pq_file_sizes *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->chunks && i < (size_t)s->num_row_groups * s->num_columns; i++) {
		if (!s->chunks[i].pages_borrowed)
			free(s->chunks[i].pages);
		free(s->chunks[i].msg);
	}
	free(s->chunks);
	free(s->rg_csv);
	free(s->rg_jsonl);
	free(s->col_values);
	free(s->verify_text);
	free(s);
}

/* ---- the pass --------------------------------------------------------------- */

typedef enum { T_CHUNK, T_VERIFY, T_ROWS_CSV, T_ROWS_JSONL } task_kind;

typedef struct task {
	task_kind kind;
	size_t index; /* chunk (rg * ncol + col), or row group */
} task;

typedef struct pass {
	const pq_file *f;
	const pq_sizes_options *opt;
	pq_file_sizes *s;
	pq_chunk_work *w;
	pq_mem_budget budget;
	pq_page_memo *memo;  /* distinct pages, measured once (NULL: none) */
	task *tasks;
	size_t ntasks;
	size_t next; /* atomic: the next task to take */
	bool flat;
	/* row groups last to first: a far source's byte cache then ends the
	 * pass holding the file's beginning, where a render starts next */
	bool reverse;
} pass;

static bool cancelled(const pass *p)
{
	return p->opt && p->opt->cancel && atomic_load(p->opt->cancel);
}

/* Memory a row reader holds: a page (and dictionary) of every column. */
static uint64_t rows_need(const pass *p, uint32_t rg)
{
	uint64_t n = 0;
	for (uint32_t c = 0; c < p->s->num_columns; c++)
		n += p->w[(size_t)rg * p->s->num_columns + c].need;
	return n < p->budget.max ? n : p->budget.max;
}

static void run_task(pass *p, const task *t, pq_buf *scratch)
{
	const pq_file *f = p->f;
	uint32_t ncol = p->s->num_columns;
	switch (t->kind) {
	case T_CHUNK:
		/* the workers take a row group's chunks one after the other:
		 * its bytes (and the next one's) asked for at the first; a
		 * column measured alone reads only its own chunks */
		if (t->index % ncol == 0 && !(p->opt && p->opt->one_column)) {
			/* at every second row group, it and the next one in
			 * one request (the next one's is then held) */
			uint32_t rg = (uint32_t)(t->index / ncol), nrg = p->s->num_row_groups;
			if (!p->reverse)
				pq_file_advise_row_groups(f, rg, rg % 2 ? 1 : 2);
			else if ((nrg - 1 - rg) % 2 == 0 && rg > 0)
				pq_file_advise_row_groups(f, rg - 1, 2);
			else
				pq_file_advise_row_group(f, rg);
		}
		pq_sizes_chunk(f, (uint32_t)(t->index / ncol), (uint32_t)(t->index % ncol), &p->budget,
			       p->memo, &p->s->chunks[t->index], &p->w[t->index]);
		return;
	case T_VERIFY: {
		/* a shared chunk whose walk found problems: they name the row group */
		pq_chunk_work *w = &p->w[t->index];
		pq_mem_reserve(&p->budget, w->need);
		pq_verify_chunk_run(f, (uint32_t)(t->index / ncol), (uint32_t)(t->index % ncol), NULL,
				    NULL, NULL, &w->verify);
		pq_mem_release(&p->budget, w->need);
		w->verified = true;
		return;
	}
	case T_ROWS_CSV:
	case T_ROWS_JSONL: {
		uint32_t rg = (uint32_t)t->index;
		for (uint32_t c = 0; c < ncol; c++) /* a chunk over the limit: rows are too */
			if (p->w[(size_t)rg * ncol + c].need > p->budget.chunk_max)
				return;
		uint64_t need = rows_need(p, rg);
		pq_mem_reserve(&p->budget, need);
		uint64_t n = pq_sizes_render_rows(f, rg, t->kind == T_ROWS_CSV ? PQ_ROWS_CSV : PQ_ROWS_JSONL,
						  scratch);
		pq_mem_release(&p->budget, need);
		(t->kind == T_ROWS_CSV ? p->s->rg_csv : p->s->rg_jsonl)[rg] = n;
		return;
	}
	}
}

static void *worker(void *arg)
{
	pass *p = arg;
	pq_buf scratch = PQ_BUF_INIT;
	/* counted on the file's budget but never refused: the pass keeps to
	 * its own limit (p->budget, waiting), and a page refused here would
	 * be measured as failed */
	bool was = pq_budget_thread_exempt(true);
	for (;;) {
		size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		if (i >= p->ntasks || cancelled(p))
			break;
		run_task(p, &p->tasks[i], &scratch);
	}
	pq_buf_free(&scratch);
	pq_budget_thread_exempt(was);
	return NULL;
}

/* Runs p->tasks on up to threads threads (the caller's among them). */
static void run_all(pass *p, unsigned threads)
{
	p->next = 0;
	if (threads > p->ntasks)
		threads = (unsigned)p->ntasks;
	pthread_t tid[MAX_THREADS];
	unsigned started = 0;
	for (unsigned i = 1; i < threads; i++) {
		if (pthread_create(&tid[started], NULL, worker, p) != 0)
			break; /* fewer threads: the same results, later */
		started++;
	}
	worker(p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

/* ---- shared chunks ------------------------------------------------------------ */

typedef struct chunk_key {
	uint64_t offset, length, data_page, values;
	int64_t dict; /* -1: none */
	int32_t codec;
	uint32_t col;
} chunk_key;

static bool chunk_key_of(const pq_file *f, uint32_t rg, uint32_t col, chunk_key *k)
{
	const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, col);
	pq_error err;
	memset(k, 0, sizeof *k);
	if (!m || pq_file_chunk_crypto(f, rg, col) ||
	    pq_chunk_range(f, rg, col, &k->offset, &k->length, &err) != PQ_OK)
		return false;
	k->data_page = (uint64_t)m->data_page_offset;
	k->values = (uint64_t)m->num_values;
	k->dict = m->has_dictionary_page_offset ? m->dictionary_page_offset : -1;
	k->codec = m->codec;
	k->col = col;
	return true;
}

static uint64_t key_hash(const chunk_key *k)
{
	uint64_t h = 1469598103934665603ull;
	const uint64_t parts[6] = {k->offset, k->length, k->data_page, k->values, (uint64_t)k->dict,
				   (uint64_t)k->codec << 32 | k->col};
	for (int i = 0; i < 6; i++) {
		h ^= parts[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

/* w[i].primary: the first chunk with i's bytes (open addressing over
 * 2n slots; the footer alone is read). */
static pq_status find_shared(const pq_file *f, pq_chunk_work *w, size_t n, uint32_t ncol)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slot = malloc(cap * sizeof *slot);
	chunk_key *keys = malloc((n ? n : 1) * sizeof *keys);
	bool *has = malloc(n ? n : 1);
	if (!slot || !keys || !has) {
		free(slot);
		free(keys);
		free(has);
		return PQ_ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		slot[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		w[i].primary = i;
		has[i] = chunk_key_of(f, (uint32_t)(i / ncol), (uint32_t)(i % ncol), &keys[i]);
		if (!has[i])
			continue;
		for (size_t h = key_hash(&keys[i]) & (cap - 1);; h = (h + 1) & (cap - 1)) {
			if (slot[h] == SIZE_MAX) {
				slot[h] = i;
				break;
			}
			if (memcmp(&keys[slot[h]], &keys[i], sizeof keys[i]) == 0) {
				w[i].primary = slot[h];
				break;
			}
		}
	}
	free(slot);
	free(keys);
	free(has);
	return PQ_OK;
}

/* ---- totals -------------------------------------------------------------------- */

static uint64_t add(uint64_t a, uint64_t b)
{
	return a == PQ_SIZE_FAILED || b == PQ_SIZE_FAILED ? PQ_SIZE_FAILED : a + b;
}

static void totals(pass *p, pq_buf *header)
{
	pq_file_sizes *s = p->s;
	uint32_t nrg = s->num_row_groups, ncol = s->num_columns;
	pq_text_csv_header(p->f, header);
	s->csv_header = header->len;
	s->csv = s->csv_header;
	s->jsonl = 0;
	for (uint32_t r = 0; r < nrg; r++) {
		for (uint32_t c = 0; c < ncol; c++) {
			size_t i = (size_t)r * ncol + c;
			s->col_values[c] = add(s->col_values[c], s->chunks[i].values);
			if (p->w[i].primary == i) /* the memo's pages: below */
				s->pages_measured += p->w[i].pages_ok - p->w[i].memoable;
			if (p->w[i].primary == i)
				s->pages_shared += p->w[i].memoable;
			else
				s->pages_shared += s->chunks[i].num_pages;
		}
		if (p->flat)
			pq_sizes_flat_rows(p->f, r, p->w, &s->rg_csv[r], &s->rg_jsonl[r]);
		s->csv = add(s->csv, s->rg_csv[r]);
		s->jsonl = add(s->jsonl, s->rg_jsonl[r]);
	}
	/* each distinct page kept once; the thread count changes which chunk
	 * measured it, not how many there are */
	uint64_t kept = p->memo ? pq_page_memo_count(p->memo) : 0;
	s->pages_measured += kept;
	s->pages_shared -= kept;
}

static bool verify_text(pass *p, pq_buf *out)
{
	size_t n = (size_t)p->s->num_row_groups * p->s->num_columns;
	pq_verify_chunk *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return false;
	bool all = true;
	for (size_t i = 0; i < n; i++) {
		v[i] = p->w[i].verify;
		/* (not made for want of memory: no size, verify.txt fails) */
		all &= p->w[i].verified && p->w[i].verify.fail.status == PQ_OK;
	}
	pq_error err;
	pq_error_clear(&err);
	if (all && pq_verify_assemble(p->f, v, out, &err) != PQ_OK)
		all = false;
	free(v);
	return all;
}

static void footprint(pq_file_sizes *s)
{
	size_t n = (size_t)s->num_row_groups * s->num_columns;
	s->footprint = sizeof *s + (uint64_t)s->num_row_groups * 2 * sizeof(uint64_t) +
		       (uint64_t)s->num_columns * sizeof(uint64_t) + n * sizeof(pq_chunk_sizes) +
		       (s->verify_text ? s->verify : 0);
	for (size_t i = 0; i < n; i++) {
		if (!s->chunks[i].pages_borrowed)
			s->footprint += (uint64_t)s->chunks[i].num_pages * sizeof(pq_page_sizes);
		if (s->chunks[i].msg)
			s->footprint += strlen(s->chunks[i].msg) + 1;
	}
}

static unsigned thread_count(const pq_sizes_options *opt)
{
	unsigned t = opt ? opt->threads : 0;
	if (!t) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		t = n > 0 ? (unsigned)n : 1;
	}
	return t > MAX_THREADS ? MAX_THREADS : t;
}

/* The row group whose rows are rg's: the one holding the chunks every
 * chunk of rg shares, when that is one row group (rows depend on their
 * chunks' bytes alone); else rg itself. */
static uint32_t rows_twin(const pass *p, uint32_t rg)
{
	uint32_t ncol = p->s->num_columns;
	if (!ncol)
		return rg;
	size_t first = p->w[(size_t)rg * ncol].primary;
	uint32_t twin = (uint32_t)(first / ncol);
	for (uint32_t c = 0; c < ncol; c++)
		if (p->w[(size_t)rg * ncol + c].primary != (size_t)twin * ncol + c)
			return rg;
	return twin;
}

/* Steps 2 and 3 (see the top). */
static pq_status run_pass(pass *p, size_t n)
{
	uint32_t ncol = p->s->num_columns, nrg = p->s->num_row_groups;
	unsigned threads = thread_count(p->opt);
	p->tasks = malloc((n + 2 * (size_t)nrg + 1) * sizeof *p->tasks);
	if (!p->tasks)
		return PQ_ENOMEM;
	p->ntasks = 0;
	p->reverse = pq_source_far(p->f->src) && pq_source_advises(p->f->src);
	for (size_t k = 0; k < n; k++) {
		/* columns in file order within each row group either way */
		size_t i = p->reverse ? (size_t)(nrg - 1 - k / ncol) * ncol + k % ncol : k;
		if (p->w[i].primary == i)
			p->tasks[p->ntasks++] = (task){T_CHUNK, i};
	}
	run_all(p, threads);
	if (cancelled(p))
		return PQ_EIO;
	p->ntasks = 0;
	for (size_t i = 0; i < n; i++) {
		size_t from = p->w[i].primary;
		if (from == i)
			continue;
		if (pq_sizes_chunk_copy(&p->s->chunks[from], &p->w[from], &p->s->chunks[i], &p->w[i]) != PQ_OK)
			return PQ_ENOMEM;
		const pq_verify_chunk *vf = &p->w[from].verify;
		if (!p->w[from].verified)
			continue; /* over the limit: so is this one */
		if (vf->walk_problems == 0) {
			pq_verify_chunk_reuse(p->f, (uint32_t)(i / ncol), (uint32_t)(i % ncol), vf,
					      &p->w[i].verify);
			p->w[i].verified = true;
		} else {
			p->tasks[p->ntasks++] = (task){T_VERIFY, i};
		}
	}
	for (uint32_t k = 0; !p->flat && k < nrg; k++) {
		uint32_t r = p->reverse ? nrg - 1 - k : k;
		if (rows_twin(p, r) != r)
			continue;
		p->tasks[p->ntasks++] = (task){T_ROWS_CSV, r};
		p->tasks[p->ntasks++] = (task){T_ROWS_JSONL, r};
	}
	run_all(p, threads);
	for (uint32_t r = 0; !p->flat && r < nrg; r++) {
		uint32_t twin = rows_twin(p, r);
		p->s->rg_csv[r] = p->s->rg_csv[twin];
		p->s->rg_jsonl[r] = p->s->rg_jsonl[twin];
	}
	return cancelled(p) ? PQ_EIO : PQ_OK;
}

/* pq_sizes_options.one_column: that column's chunks (each distinct one
 * once), nothing else; a column of a 16-column file costs about a
 * sixteenth of the pass. */
static pq_status column_pass(pass *p, size_t n, uint32_t column)
{
	pq_file_sizes *s = p->s;
	uint32_t ncol = s->num_columns, nrg = s->num_row_groups;
	p->tasks = malloc((nrg ? nrg : 1) * sizeof *p->tasks);
	if (!p->tasks)
		return PQ_ENOMEM;
	p->ntasks = 0;
	for (uint32_t r = 0; r < nrg; r++) {
		size_t i = (size_t)r * ncol + column;
		if (p->w[i].primary == i)
			p->tasks[p->ntasks++] = (task){T_CHUNK, i};
	}
	run_all(p, thread_count(p->opt));
	if (cancelled(p))
		return PQ_EIO;
	for (size_t i = 0; i < n; i++) {
		size_t from = p->w[i].primary;
		if (i % ncol != column)
			s->chunks[i].status = PQ_EINVAL; /* not measured */
		else if (from != i && pq_sizes_chunk_copy(&s->chunks[from], &p->w[from], &s->chunks[i],
							  &p->w[i]) != PQ_OK)
			return PQ_ENOMEM;
	}
	for (uint32_t c = 0; c < ncol; c++)
		s->col_values[c] = c == column ? 0 : PQ_SIZE_FAILED;
	for (uint32_t r = 0; r < nrg; r++)
		s->col_values[column] = add(s->col_values[column],
					    s->chunks[(size_t)r * ncol + column].values);
	s->csv = s->jsonl = s->verify = s->csv_header = PQ_SIZE_FAILED;
	s->one_column = true;
	return PQ_OK;
}

pq_status pq_file_measure(const pq_file *f, const pq_sizes_options *opt, pq_file_sizes **out,
			  pq_error *err)
{
	*out = NULL;
	pq_file_sizes *s = calloc(1, sizeof *s);
	PQ_CHECK(s, err, PQ_ENOMEM, "no memory for the size pass");
	uint32_t nrg = pq_file_num_row_groups(f), ncol = pq_file_num_columns(f);
	size_t n = (size_t)nrg * ncol;
	s->num_row_groups = nrg;
	s->num_columns = ncol;
	s->rg_csv = calloc(nrg ? nrg : 1, sizeof *s->rg_csv);
	s->rg_jsonl = calloc(nrg ? nrg : 1, sizeof *s->rg_jsonl);
	s->col_values = calloc(ncol ? ncol : 1, sizeof *s->col_values);
	s->chunks = calloc(n ? n : 1, sizeof *s->chunks);
	pass p = {.f = f, .opt = opt, .s = s, .flat = pq_schema_is_flat(f->schema)};
	p.w = calloc(n ? n : 1, sizeof *p.w);
	p.budget.max = opt && opt->mem_max ? opt->mem_max : DEFAULT_MEM_MAX;
	p.budget.chunk_max = opt && opt->chunk_max > p.budget.max ? opt->chunk_max : p.budget.max;
	/* a page kept costs about 256 bytes: a sixteenth of the budget */
	p.memo = pq_page_memo_new(p.budget.max / 16 / 256);
	pthread_mutex_init(&p.budget.mu, NULL);
	pthread_cond_init(&p.budget.cv, NULL);
	pq_buf buf = PQ_BUF_INIT;
	pq_status st = PQ_ENOMEM;
	if (!s->rg_csv || !s->rg_jsonl || !s->col_values || !s->chunks || !p.w)
		goto done;
	for (uint32_t r = 0; r < nrg; r++) /* stays so unless measured */
		s->rg_csv[r] = s->rg_jsonl[r] = PQ_SIZE_FAILED;
	if (opt && opt->one_column) {
		st = opt->column >= ncol ? PQ_EINVAL : find_shared(f, p.w, n, ncol);
		if (st == PQ_OK)
			st = column_pass(&p, n, opt->column);
		if (st != PQ_OK)
			goto done;
		goto measured;
	}
	if ((st = find_shared(f, p.w, n, ncol)) != PQ_OK || (st = run_pass(&p, n)) != PQ_OK)
		goto done;
	/* A header or verify text cut short by memory is no size: the pass
	 * fails (checked before pq_buf_take, which clears the flag). */
	totals(&p, &buf);
	st = PQ_ENOMEM;
	if (buf.oom)
		goto done;
	buf.len = 0;
	bool verified = verify_text(&p, &buf);
	if (buf.oom)
		goto done;
	if (verified) {
		s->verify = buf.len;
		if (opt && opt->keep_verify_text)
			s->verify_text = pq_buf_take(&buf, NULL);
	} else {
		s->verify = PQ_SIZE_FAILED;
	}
measured:
	st = PQ_OK;
done:
	for (size_t i = 0; p.w && i < n; i++)
		pq_verify_chunk_free(&p.w[i].verify);
	free(p.w);
	free(p.tasks);
	pq_page_memo_free(p.memo);
	pq_buf_free(&buf);
	pthread_mutex_destroy(&p.budget.mu);
	pthread_cond_destroy(&p.budget.cv);
	if (st != PQ_OK) {
		pq_file_sizes_free(s);
		return st == PQ_EIO     ? pq_fail(err, PQ_EIO, "size pass cancelled")
		       : st == PQ_EINVAL ? pq_fail(err, PQ_EINVAL, "no column %u", opt->column)
					 : pq_fail(err, PQ_ENOMEM, "no memory for the size pass");
	}
	footprint(s);
	*out = s;
	return PQ_OK;
}
