/* The sizes of a file generation's aggregates (data.csv, data.jsonl,
 * values.txt, verify.txt at every level): from the meta cache, else from
 * the size index on disk (size_index.c), else from one size pass over the
 * whole file (core/include/pq_sizes.h).
 *
 * The pass runs at the first stat that needs such a size, on the request's
 * thread with workers on every CPU; other requests for the same file wait
 * for it (one pass per generation, not one per request). Listings never
 * run it: they answer those entries without attributes (ops.c). The result
 * lives in the meta cache under (gen, PFS_C_SIZES), counted by its
 * footprint; evicted, it is read back from the index (or measured again
 * with index_dir=none). verify.txt's text, which the pass produces on the
 * way, goes to the data pool as that entry's text.
 *
 * A segment that failed (a page that does not decode, a missing key)
 * counts PFS_FAILED_BYTES in every entry that holds it: reading reaches it
 * and fails with EIO, where a size without it would end the file short
 * and "successfully" (doc/design.md). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "kinds.h"
#include "loop.h"
#include "size_index.h"

static void sizes_free(void *p)
{
	pq_file_sizes_free(p);
}

static void shapes_free(void *p)
{
	pfs_shapes_free(p);
}

/* The chunk shapes go into the meta cache beside the sizes (consumed). */
static void keep_shapes(pfs_fs *fs, pfs_pf *pf, pfs_file_shapes *sh)
{
	if (!sh)
		return;
	pfs_key k = pfs_key_make(pf->gen, PFS_C_SHAPES, 0, 0, 0);
	pfs_cache_release(fs->meta,
			  pfs_cache_put(fs->meta, &k, sh, (size_t)sh->footprint, shapes_free));
}

void pfs_pf_sizes_init(pfs_pf *pf)
{
	pthread_mutex_init(&pf->sz_lock, NULL);
	pthread_cond_init(&pf->sz_cond, NULL);
	atomic_init(&pf->sz_cancel, false);
}

void pfs_pf_sizes_fini(pfs_pf *pf)
{
	pthread_cond_destroy(&pf->sz_cond);
	pthread_mutex_destroy(&pf->sz_lock);
}

/* ---- chunk shapes, in the background ----------------------------------------------------- */

/* Measuring the shapes renders every chunk's page headers: seconds on a
 * file of 40,000 chunks, which the stat that ran the pass must not wait
 * for. The index is written with the sizes at once, and again with the
 * shapes when this job has them; a remount in between lists pages from
 * their headers, as without an index. */
static void index_trouble(pfs_fs *fs, const char *what, int rc);

typedef struct shapes_job {
	pfs_fs *fs;
	pfs_pf *pf; /* a reference */
	pfs_index_key ik;
} shapes_job;

void pfs_sizes_bg_init(pfs_fs *fs)
{
	pthread_mutex_init(&fs->bg_lock, NULL);
	pthread_cond_init(&fs->bg_cond, NULL);
	fs->bg_running = 0;
	/* (0: options not validated, as no caller does today: the default) */
	uint64_t bound = fs->opts->index_size ? fs->opts->index_size : PFS_DEFAULT_INDEX_SIZE;
	fs->index_lru = fs->opts->index_dir ? pfs_index_lru_new(bound) : NULL;
}

void pfs_sizes_bg_wait(pfs_fs *fs)
{
	pthread_mutex_lock(&fs->bg_lock);
	while (fs->bg_running)
		pthread_cond_wait(&fs->bg_cond, &fs->bg_lock);
	pthread_mutex_unlock(&fs->bg_lock);
	pthread_cond_destroy(&fs->bg_cond);
	pthread_mutex_destroy(&fs->bg_lock);
	pfs_index_lru_free(fs->index_lru);
	fs->index_lru = NULL;
}

/* One background thread's end: the unmount (pfs_sizes_bg_wait) waits for
 * every thread bg_start started. */
static void bg_end(pfs_fs *fs)
{
	pthread_mutex_lock(&fs->bg_lock);
	if (--fs->bg_running == 0)
		pthread_cond_broadcast(&fs->bg_cond);
	pthread_mutex_unlock(&fs->bg_lock);
}

/* fn(arg) on a detached thread that ends with bg_end; false (nothing
 * started, nothing counted) when no thread can be had. */
static bool bg_start(pfs_fs *fs, void *(*fn)(void *), void *arg)
{
	pthread_mutex_lock(&fs->bg_lock);
	fs->bg_running++;
	pthread_mutex_unlock(&fs->bg_lock);
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&t, &at, fn, arg);
	pthread_attr_destroy(&at);
	if (rc != 0)
		bg_end(fs);
	return rc == 0;
}

static void shapes_now(shapes_job *j)
{
	pfs_fs *fs = j->fs;
	pfs_pf *pf = j->pf;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfs_file_shapes *sh = pfs_shapes_measure(fs, pf);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pfs_log(LOG_INFO, "chunk shapes: %s (%u chunks, %.0f ms)", pf->src->path,
		pf->nrg * pf->ncol,
		(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	pfs_key key = pfs_key_make(pf->gen, PFS_C_SIZES, 0, 0, 0);
	pfs_cobj *so = pfs_cache_get(fs->meta, &key);
	/* a retired generation, or sizes evicted meanwhile: the index keeps
	 * the sizes alone */
	if (sh && so && !atomic_load(&pf->sz_cancel)) {
		const char *dir = fs->opts->index_dir;
		uint64_t was = pfs_index_taken(dir, &j->ik);
		int wrc = pfs_index_store(dir, &j->ik, pfs_cobj_obj(so), sh);
		if (wrc)
			index_trouble(fs, "cannot write", wrc);
		else
			pfs_index_lru_stored(fs->index_lru, dir, &j->ik, was);
		keep_shapes(fs, pf, sh);
	} else {
		pfs_shapes_free(sh);
	}
	if (so)
		pfs_cache_release(fs->meta, so);
}

static void *shapes_run(void *arg)
{
	shapes_job *j = arg;
	pfs_fs *fs = j->fs;
	shapes_now(j);
	pfs_pf_unref(j->pf);
	free(j);
	bg_end(fs);
	return NULL;
}

/* Starts the shapes of pf's generation on a thread of their own (on this
 * one when no thread can be had). */
static void shapes_later(pfs_fs *fs, pfs_pf *pf, const pfs_index_key *ik)
{
	shapes_job *j = malloc(sizeof *j);
	if (!j)
		return; /* the index keeps the sizes alone */
	*j = (shapes_job){fs, pf, *ik};
	pfs_pf_ref(pf);
	if (!bg_start(fs, shapes_run, j)) {
		shapes_now(j); /* on this thread */
		pfs_pf_unref(pf);
		free(j);
	}
}

static pfs_index_key index_key(const pfs_fs *fs, const pfs_pf *pf)
{
	pfs_index_key k;
	const char *rel = pf->src->rel[0] ? pf->src->rel : pf->src->name;
	pfs_index_key_make(pq_source_identity(pf->io), rel, fs->key_fp, &k);
	return k;
}

static void index_trouble(pfs_fs *fs, const char *what, int rc)
{
	/* one line per mount: a read-only or full index_dir costs speed only */
	if (!atomic_exchange(&fs->index_warned, true))
		pfs_log(LOG_NOTICE, "size index %s: %s: %s (sizes are measured again at the next mount)",
			fs->opts->index_dir, what, strerror(-rc));
}

/* Moves verify.txt's text into the data pool as that entry's text. */
static void keep_verify(pfs_fs *fs, pfs_pf *pf, pq_file_sizes *s)
{
	if (!s->verify_text)
		return;
	pfs_text *t = calloc(1, sizeof *t);
	if (t) {
		t->p = s->verify_text;
		t->len = (size_t)s->verify;
		s->verify_text = NULL;
		if (s->footprint >= s->verify)
			s->footprint -= s->verify;
		pfs_key k = pfs_key_make(pf->gen, PFS_K_VERIFY, 0, 0, 0);
		pfs_cache_release(fs->cache, pfs_cache_put(fs->cache, &k, t, t->len, pfs_text_free));
	}
}

/* pq_file_measure on all cores, within a quarter of cache_size (the data
 * pool holds the rest; never less than the meta pool's floor), stopped by
 * pf's cancel flag; o says what to measure. A remote file's bytes are
 * read again by the render that follows: its source keeps them meanwhile. */
static pq_status measure_now(pfs_fs *fs, pfs_pf *pf, pq_sizes_options *o, pq_file_sizes **out,
			     pq_error *err)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	o->threads = cpus > 0 ? (unsigned)cpus : 1;
	o->mem_max = fs->opts->cache_size / 4 > PFS_META_MIN ? fs->opts->cache_size / 4
							      : PFS_META_MIN;
	/* a chunk over that share is measured alone, up to what a reader may
	 * decode (cache_size and the budget's headroom): a page a read can
	 * render always has its size (only a page larger than cache_size
	 * fails, as its reads do) */
	o->chunk_max = pq_budget_hard(fs->budget);
	o->cancel = &pf->sz_cancel;
	pq_source_keep(pq_file_source(pf->f), true);
	pq_status st = pq_file_measure(pf->f, o, out, err);
	pq_source_keep(pq_file_source(pf->f), false);
	return st;
}

/* A remote file's pass waits for its server on threads of its own (core's
 * and the source's), which no interrupt reaches; a stalled server held a
 * `cat data.csv` through every retry, Ctrl-C or not. So for a request that
 * can be interrupted the pass runs on a thread of its own, and the request
 * waits for it interruptibly (interrupt.h): interrupted, it gives up at
 * once, and the pass goes on in the background (its fetched bytes stay in
 * the source's cache), its result dropped. */
typedef struct measure_job {
	pfs_fs *fs;
	pfs_pf *pf; /* a reference */
	pq_sizes_options o;
	pq_file_sizes *out;
	pq_error err;
	pq_status st;
	bool done, abandoned; /* under pf->sz_lock */
} measure_job;

static void *measure_run(void *arg)
{
	measure_job *j = arg;
	pfs_fs *fs = j->fs;
	pfs_pf *pf = j->pf;
	j->st = measure_now(fs, pf, &j->o, &j->out, &j->err);
	pthread_mutex_lock(&pf->sz_lock);
	j->done = true;
	bool abandoned = j->abandoned;
	pthread_cond_broadcast(&pf->sz_cond);
	pthread_mutex_unlock(&pf->sz_lock);
	if (abandoned) { /* else the waiter takes the result and frees j */
		pq_file_sizes_free(j->out);
		free(j);
	}
	pfs_pf_unref(pf);
	bg_end(fs);
	return NULL;
}

static pq_status measure(pfs_fs *fs, pfs_pf *pf, pq_sizes_options *o, pq_file_sizes **out,
			 pq_error *err)
{
	measure_job *j = NULL;
	if (fs->opts->source_kind == PFS_SRC_LOCAL || !pfs_intr_serving() ||
	    !(j = calloc(1, sizeof *j)))
		return measure_now(fs, pf, o, out, err);
	*j = (measure_job){.fs = fs, .pf = pf, .o = *o};
	pfs_pf_ref(pf);
	if (!bg_start(fs, measure_run, j)) { /* no thread: on this one, as for a local file */
		pfs_pf_unref(pf); /* the caller holds its own */
		free(j);
		return measure_now(fs, pf, o, out, err);
	}
	pthread_mutex_lock(&pf->sz_lock);
	while (!j->done) {
		pfs_loop_will_wait();
		if (pfs_intr_arm())
			break;
		pfs_intr_timedwait(&pf->sz_cond, &pf->sz_lock);
	}
	bool done = j->done;
	if (!done)
		j->abandoned = true;
	pthread_mutex_unlock(&pf->sz_lock);
	if (!done)
		return pq_fail(err, PQ_EIO, "interrupted (the caller got a signal); the pass "
			       "goes on in the background");
	*out = j->out;
	*err = j->err;
	pq_status st = j->st;
	free(j);
	return st;
}

static int run_pass(pfs_fs *fs, pfs_pf *pf, pq_file_sizes **out)
{
	pq_sizes_options o = {0};
	o.keep_verify_text = true;
	pq_error err = {0};
	pq_status st = measure(fs, pf, &o, out, &err);
	if (st != PQ_OK) {
		pfs_log(pfs_intr_pending() ? LOG_INFO : LOG_NOTICE, "%s: size pass failed: %s",
			pf->src->path, err.msg);
		return -pfs_status_to_errno(st);
	}
	atomic_fetch_add(&fs->size_passes, 1);
	pfs_log(LOG_INFO, "size pass: %s (%llu pages, %llu shared)", pf->src->path,
		(unsigned long long)(*out)->pages_measured, (unsigned long long)(*out)->pages_shared);
	return 0;
}

/* A chunk that failed for want of memory (or over this mount's
 * cache_size) says nothing about the file: its sizes serve this mount
 * (until evicted, then measured again) but never go into the index, which
 * would make a passing shortage permanent, or keep a mount with a larger
 * cache_size from measuring it. */
static bool short_of_memory(const pq_file_sizes *s)
{
	size_t n = (size_t)s->num_row_groups * s->num_columns;
	for (size_t i = 0; i < n; i++)
		if (s->chunks[i].status == PQ_ENOMEM || s->chunks[i].status == PQ_EBUDGET ||
		    s->chunks[i].status == PQ_EIO)
			return true;
	return false;
}

/* The index serves a file whose bytes have an identity (an unknown one
 * never validates a cache, pq_io.h). */
static const char *index_dir(const pfs_fs *fs, const pfs_pf *pf)
{
	return pq_source_identity(pf->io)->len ? fs->opts->index_dir : NULL;
}

int pfs_sizes_get(pfs_fs *fs, pfs_pf *pf, bool run, pfs_cobj **out)
{
	*out = NULL;
	if (!pf->f)
		return -EIO;
	const char *dir = index_dir(fs, pf);
	pfs_key key = pfs_key_make(pf->gen, PFS_C_SIZES, 0, 0, 0);
	if ((*out = pfs_cache_get(fs->meta, &key)))
		return 0;
	pthread_mutex_lock(&pf->sz_lock);
	/* a listing never waits for a pass; a stat waits for the one running
	 * (unless it is interrupted meanwhile) */
	while (run && pf->sz_running) {
		pfs_loop_will_wait();
		if (pfs_intr_arm()) {
			pthread_mutex_unlock(&pf->sz_lock);
			return -EINTR;
		}
		pfs_intr_timedwait(&pf->sz_cond, &pf->sz_lock);
	}
	if ((*out = pfs_cache_get(fs->meta, &key)) || pf->sz_running ||
	    (!run && (pf->sz_index < 0 || !dir))) {
		pthread_mutex_unlock(&pf->sz_lock);
		return *out ? 0 : -EAGAIN;
	}
	pf->sz_running = true;
	pthread_mutex_unlock(&pf->sz_lock);

	pq_file_sizes *s = NULL;
	pfs_file_shapes *sh = NULL; /* from the index */
	int rc = -ENOENT;
	pfs_index_key ik;
	if (dir) {
		ik = index_key(fs, pf);
		if (pf->sz_index >= 0)
			rc = pfs_index_load(dir, &ik, pf->nrg, pf->ncol, &s, &sh);
		if (rc == -EINVAL)
			pfs_log(LOG_INFO, "size index: %s: damaged or stale entry %s ignored",
				pf->src->path, ik.name);
		else if (rc == 0) {
			pfs_log(LOG_DEBUG, "size index: %s: %s", pf->src->path, ik.name);
			pfs_index_touch(dir, &ik); /* the most recently used (index_size) */
		}
	}
	bool measured = false;
	if (rc && run) {
		rc = run_pass(fs, pf, &s);
		measured = rc == 0 && !short_of_memory(s);
	}
	if (s)
		keep_verify(fs, pf, s);
	if (rc == 0)
		*out = pfs_cache_put(fs->meta, &key, s, (size_t)s->footprint, sizes_free);
	if (rc == 0 && !*out)
		rc = -ENOMEM;
	/* Written before the waiters go on (they find the sizes in the cache
	 * meanwhile, not here): a later load after an eviction finds it. */
	int wrc = 0;
	if (measured && dir) {
		uint64_t was = pfs_index_taken(dir, &ik); /* a damaged or stale one */
		wrc = pfs_index_store(dir, &ik, pfs_cobj_obj(*out), sh);
		if (wrc)
			index_trouble(fs, "cannot write", wrc);
		else
			pfs_index_lru_stored(fs->index_lru, dir, &ik, was);
	}
	if (rc == 0)
		keep_shapes(fs, pf, sh);
	else
		pfs_shapes_free(sh);
	pthread_mutex_lock(&pf->sz_lock);
	pf->sz_running = false;
	/* 1: the index has the sizes (loaded, or just written); -1: it has not */
	pf->sz_index = rc == 0 && wrc == 0 && dir ? 1 : -1;
	pthread_cond_broadcast(&pf->sz_cond);
	pthread_mutex_unlock(&pf->sz_lock);
	/* the index also gets the shapes of the chunks, so that the next
	 * mount lists pages without their headers */
	if (measured && dir && rc == 0 && wrc == 0)
		shapes_later(fs, pf, &ik);
	return rc == -ENOENT ? -EAGAIN : rc;
}

/* `cat columns/x/values.txt` of a file nobody stat'ed: its stat would run
 * the whole pass (every column, every row as CSV and JSON, verify.txt)
 * before the first byte, several times the cost of rendering the one
 * column. Its own chunks are measured instead; the whole pass still runs
 * when something asks for an aggregate of the file. The result goes into
 * the inodes (the column's values.txt and its chunks'), never into the
 * sizes cache or the index, which hold whole passes only. */
int pfs_sizes_column(pfs_fs *fs, pfs_pf *pf, uint32_t col, uint64_t *size)
{
	if (!pf->f || col >= pf->ncol)
		return -EAGAIN;
	pfs_cobj *so;
	if (pfs_sizes_get(fs, pf, false, &so) == 0) {
		pfs_cache_release(fs->meta, so);
		return -EAGAIN;
	}
	pthread_mutex_lock(&pf->sz_lock);
	bool running = pf->sz_running;
	pthread_mutex_unlock(&pf->sz_lock);
	if (running)
		return -EAGAIN; /* wait for it: it has this column too */
	pq_sizes_options o = {0};
	o.one_column = true;
	o.column = col;
	pq_file_sizes *s = NULL;
	pq_error err = {0};
	pq_status st = measure(fs, pf, &o, &s, &err);
	if (st != PQ_OK) {
		pfs_log(LOG_NOTICE, "%s: measuring column %u failed: %s", pf->src->path, col, err.msg);
		return -pfs_status_to_errno(st);
	}
	for (uint32_t r = 0; r < s->num_row_groups; r++) {
		if (pfs_sizes_chunk_text(s, false, r, col) == PQ_SIZE_FAILED) {
			/* a failed chunk counts PFS_FAILED_BYTES, and a stream fails
			 * there only when it knows: the whole pass, which it finds
			 * (a damaged page's chunk would otherwise show the first
			 * bytes of its good pages as the whole file) */
			pq_file_sizes_free(s);
			return -EAGAIN;
		}
	}
	pfs_key k = pfs_key_make(pf->gen, PFS_K_COLUMN_VALUES, 0, col, 0);
	bool ok = pfs_sizes_entry(s, &k, size);
	for (uint32_t r = 0; ok && r < s->num_row_groups; r++) {
		uint64_t cs = pfs_sizes_chunk_text(s, false, r, col);
		pfs_key ck = pfs_key_make(pf->gen, PFS_K_CHUNK_VALUES, r, col, 0);
		pfs_node *cn = cs == PQ_SIZE_FAILED ? NULL : pfs_inode_get(fs->inodes, &ck, pf->src);
		if (cn)
			pfs_node_set_size(fs, cn, cs);
	}
	pq_file_sizes_free(s);
	atomic_fetch_add(&fs->column_passes, 1);
	pfs_log(LOG_INFO, "column measured: %s column %u", pf->src->path, col);
	return ok ? 0 : -EIO;
}

/* ---- reading the sizes --------------------------------------------------------------------- */

static uint64_t or_failed(uint64_t v)
{
	return v == PQ_SIZE_FAILED ? PFS_FAILED_BYTES : v;
}

uint64_t pfs_sizes_rg_body(const pq_file_sizes *s, bool jsonl, uint32_t rg)
{
	if (rg >= s->num_row_groups)
		return PQ_SIZE_FAILED;
	return jsonl ? s->rg_jsonl[rg] : s->rg_csv[rg];
}

int pfs_sizes_seg_errno(const pq_file_sizes *s, bool rows, uint32_t rg, uint32_t col)
{
	uint32_t hi = rows ? s->num_columns : col + 1;
	for (uint32_t c = rows ? 0 : col; c < hi; c++) {
		const pq_chunk_sizes *cs = pfs_sizes_chunk(s, rg, c);
		if (cs && cs->status == PQ_EKEY)
			return -EACCES;
	}
	return -EIO;
}

const pq_chunk_sizes *pfs_sizes_chunk(const pq_file_sizes *s, uint32_t rg, uint32_t col)
{
	if (rg >= s->num_row_groups || col >= s->num_columns)
		return NULL;
	return &s->chunks[(size_t)rg * s->num_columns + col];
}

uint64_t pfs_sizes_chunk_text(const pq_file_sizes *s, bool levels, uint32_t rg, uint32_t col)
{
	const pq_chunk_sizes *cs = pfs_sizes_chunk(s, rg, col);
	if (!cs || cs->status != PQ_OK)
		return PQ_SIZE_FAILED;
	return levels ? cs->levels : cs->values;
}

int pfs_sizes_failed(const pfs_pf *pf, const pq_file_sizes *s, uint32_t rg, uint32_t col,
		     const char *entry)
{
	const char *why = NULL;
	for (uint32_t c = col == UINT32_MAX ? 0 : col; s && !why && c < s->num_columns; c++) {
		const pq_chunk_sizes *cs = pfs_sizes_chunk(s, rg, c);
		if (cs && cs->status != PQ_OK)
			why = cs->msg ? cs->msg : "a column chunk of it failed (its error.txt says why)";
		if (col != UINT32_MAX)
			break;
	}
	pfs_log(LOG_NOTICE, "%s: %s: row group %u cannot be read: %s", pf->src->path, entry, rg,
		why ? why : "its rows did not render");
	if (!s)
		return -EIO;
	return col == UINT32_MAX ? pfs_sizes_seg_errno(s, true, rg, 0)
				 : pfs_sizes_seg_errno(s, false, rg, col);
}

bool pfs_sizes_entry(const pq_file_sizes *s, const pfs_key *k, uint64_t *size)
{
	uint64_t sz = 0;
	switch ((pfs_kind)k->kind) {
	case PFS_K_CSV:
	case PFS_K_JSONL: {
		bool j = k->kind == PFS_K_JSONL;
		sz = j ? 0 : s->csv_header;
		for (uint32_t r = 0; r < s->num_row_groups; r++)
			sz += or_failed(pfs_sizes_rg_body(s, j, r));
		break;
	}
	case PFS_K_RG_CSV:
	case PFS_K_RG_JSONL: {
		bool j = k->kind == PFS_K_RG_JSONL;
		if (k->rg >= s->num_row_groups)
			return false;
		sz = (j ? 0 : s->csv_header) + or_failed(pfs_sizes_rg_body(s, j, k->rg));
		break;
	}
	case PFS_K_COLUMN_VALUES:
		if (k->col >= s->num_columns)
			return false;
		for (uint32_t r = 0; r < s->num_row_groups; r++)
			sz += or_failed(pfs_sizes_chunk_text(s, false, r, k->col));
		break;
	case PFS_K_VERIFY:
		if (s->verify == PQ_SIZE_FAILED)
			return false;
		sz = s->verify;
		break;
	case PFS_K_CHUNK_VALUES:
	case PFS_K_CHUNK_LEVELS:
		sz = pfs_sizes_chunk_text(s, k->kind == PFS_K_CHUNK_LEVELS, k->rg, k->col);
		if (sz == PQ_SIZE_FAILED)
			return false; /* found by rendering, which fails as it should */
		break;
	case PFS_K_PAGE_VALUES:
	case PFS_K_PAGE_LEVELS: {
		const pq_chunk_sizes *cs = pfs_sizes_chunk(s, k->rg, k->col);
		if (!cs || k->page >= cs->num_pages)
			return false;
		sz = k->kind == PFS_K_PAGE_LEVELS ? cs->pages[k->page].levels
						  : cs->pages[k->page].values;
		if (sz == PQ_SIZE_FAILED)
			return false;
		break;
	}
	default:
		return false;
	}
	*size = sz;
	return true;
}

bool pfs_pass_chunk_sound(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col)
{
	pfs_cobj *so;
	if (!pf->f || pfs_sizes_get(fs, pf, false, &so))
		return false;
	const pq_chunk_sizes *cs = pfs_sizes_chunk(pfs_cobj_obj(so), rg, col);
	bool sound = cs && cs->status == PQ_OK;
	pfs_cache_release(fs->cache, so);
	return sound;
}

bool pfs_pass_page_size(const pfs_kctx *c, uint64_t *size)
{
	if (!c->pf->f || c->k->page == PFS_DICT)
		return false;
	pfs_cobj *so;
	if (pfs_sizes_get(c->fs, c->pf, false, &so))
		return false;
	const pq_file_sizes *s = pfs_cobj_obj(so);
	bool ok = false;
	/* the index's page count is trusted only once it matches the layout */
	pfs_cobj *lo = c->layout;
	pq_error err;
	const pq_chunk_sizes *cs = pfs_sizes_chunk(s, c->k->rg, c->k->col);
	uint32_t np;
	/* (the index's shape of the chunk is as good as its layout) */
	if (cs && !lo && pfs_shape_num_pages(c->fs, c->pf, c->k->rg, c->k->col, &np)) {
		ok = np == cs->num_pages && pfs_sizes_entry(s, c->k, size);
	} else if (cs && (lo || pfs_layout_get(c->fs, c->pf, c->k->rg, c->k->col, &lo, &err) == 0)) {
		const pq_chunk_layout *l = pfs_cobj_obj(lo);
		ok = l->num_pages == cs->num_pages && pfs_sizes_entry(s, c->k, size);
		if (!c->layout)
			pfs_cache_release(c->fs->cache, lo);
	}
	pfs_cache_release(c->fs->cache, so);
	return ok;
}
