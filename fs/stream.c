/* Resumable rendering of the large entries: data.csv / data.jsonl (file and
 * row group level), columns/<col>/values.txt and a chunk's values.txt /
 * levels.txt.
 *
 * An entry is a sequence of segments: the CSV header, then one segment per
 * row group (rows) or per page (values). Each open handle keeps a cursor
 * and a window of the bytes it rendered last, so sequential reads continue
 * where the previous one stopped, and reads that arrive a little out of
 * order (kernel readahead on several threads) are served from the window.
 * A read elsewhere restarts at the last segment boundary before it whose
 * offset is known: segment sizes come from the file's size pass (held by
 * the stream; size_pass.c), else from the inode table (sizes recorded as
 * segments were rendered), so `tail -c` renders only the segment it lands
 * in. A segment the pass could not measure fails at its start (EIO): its
 * placeholder bytes (PFS_FAILED_BYTES) are never served as content.
 *
 * A reader that streams gets the next segments rendered ahead by parked
 * helper threads (parallel.h; at most PREFETCH per stream, each one row
 * group of rows or one chunk of values): a sequential cat uses more than
 * one core, and no thread is started per segment. A segment no helper
 * took yet when the reader reaches it is withdrawn and rendered by the
 * reader.
 *
 * Memory: the window, the row reader and prefetched row groups are charged
 * to the mount's budget (memory.c). When the budget needs room, handles
 * that are not reading give all of it back, least recently read first
 * (pfs_streams_reclaim): such a handle is as if just opened, and its next
 * read seeks as above. A read whose window cannot be charged fails (EIO). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"
#include "parallel.h"

#define KEEP_BEHIND ((uint64_t)256 << 10) /* window kept before the read offset, */
#define KEEP_SHARE 64                    /* ... at most this share of cache_size */
#define ROW_CHUNK ((size_t)256 << 10)   /* bytes rendered per row reader call */
#define PREFETCH 2                       /* row groups rendered ahead */
#define PREFETCH_AFTER ((uint64_t)4 << 20) /* ... once this much was read in a row, */
#define EAGER_READ ((size_t)128 << 10)     /* ... or at once after a first read this large */
/* a chunk's values rendered ahead are held whole: larger ones are left to
 * the reader (at most PREFETCH of these per stream) */
#define PREFETCH_VALUES_MAX ((size_t)32 << 20)

/* The next row group (rows) or chunk (values), rendered ahead on a helper
 * thread while the reader consumes the current one (sequential reads of
 * data.csv or values.txt use two cores instead of one). */
typedef struct prefetch {
	pfs_task task;          /* on a parked helper (parallel.h) */
	bool active;            /* started and not yet joined */
	uint32_t rg;
	pq_row_format fmt;
	const pq_file *f;
	/* values: the stream's (the stream outlives its tasks) */
	pfs_fs *fs;
	pfs_pf *pf;
	uint32_t col;
	pfs_kind page_kind;
	pq_buf buf;
	size_t front;           /* buf's first bytes are room, not rendered (see adopt) */
	pq_status st;
	pq_error err;
	atomic_bool cancel;     /* the reader went elsewhere or closed */
	atomic_bool finished;   /* the task is done with buf (waiting for it is at once) */
	pq_budget *budget;      /* buf's (rendering ahead stops where it says no) */
} prefetch;

struct pfs_stream {
	pfs_fs *fs;
	pfs_pf *pf;             /* held */
	pfs_node *node;
	pfs_kind kind;
	bool rows;              /* data.csv / data.jsonl */
	pq_row_format fmt;
	bool header;            /* a CSV header segment comes first */
	uint64_t hdr_len;
	uint32_t col, rg_lo, rg_hi;
	pfs_kind page_kind;     /* PFS_K_PAGE_VALUES or _LEVELS (values family) */
	pfs_kind chunk_kind;    /* PFS_K_CHUNK_VALUES or _LEVELS */
	pfs_cobj *sizes;        /* the size pass's pq_file_sizes, held (or NULL) */

	pthread_mutex_t lock;
	/* the cursor: the next byte to render is at offset pos */
	uint64_t pos;
	bool in_hdr;            /* the header is next */
	uint32_t cur_rg, cur_page;
	uint64_t seg_start;     /* offset where the current row group / chunk began */
	bool seg_whole;         /* ... and the cursor rendered it from its start */
	pq_row_reader *rr;
	prefetch pre[PREFETCH];
	pfs_cobj *lo;           /* layout of chunk lo_rg, held while in it */
	uint32_t lo_rg;
	bool eof;
	uint64_t seq_start;     /* where the cursor last jumped to */
	bool eager;             /* the first read was from the start and large: a streamer */
	/* rendered bytes [win_off, pos): win.p[win_skip, win.len) */
	pq_buf win;
	uint64_t win_off;       /* (win is charged to the budget: pq_buf.budget) */
	size_t win_skip;        /* bytes dropped at win's start, not yet reused */
	/* fs->streams_lock: the list of open streams, most recently read first */
	struct pfs_stream *lprev, *lnext;
};

static uint64_t known_size(pfs_stream *s, pfs_kind kind, uint32_t rg, uint32_t col,
			   uint32_t page)
{
	pfs_key k = pfs_key_make(s->pf->gen, kind, rg, col, page);
	pfs_node *n = pfs_inode_find(s->fs->inodes, &k);
	return n ? atomic_load(&n->size) : PFS_SIZE_UNKNOWN;
}

static void record_size(pfs_stream *s, pfs_kind kind, uint32_t rg, uint32_t col,
			uint32_t page, uint64_t size)
{
	pfs_key k = pfs_key_make(s->pf->gen, kind, rg, col, page);
	pfs_node *n = pfs_inode_get(s->fs->inodes, &k, s->pf->src);
	if (n)
		pfs_node_set_size(s->fs, n, size);
}

static const pq_file_sizes *pass(pfs_stream *s)
{
	if (!s->sizes)
		(void)pfs_sizes_get(s->fs, s->pf, false, &s->sizes);
	return s->sizes ? pfs_cobj_obj(s->sizes) : NULL;
}

/* By the size pass: whether row group rg (rows) or chunk rg (values)
 * failed, and its size (a failed one: PFS_FAILED_BYTES). */
static bool pass_seg(pfs_stream *s, uint32_t rg, uint64_t *size, bool *failed)
{
	const pq_file_sizes *ps = pass(s);
	if (!ps)
		return false;
	uint64_t v = s->rows ? pfs_sizes_rg_body(ps, s->fmt == PQ_ROWS_JSONL, rg)
			     : pfs_sizes_chunk_text(ps, s->chunk_kind == PFS_K_CHUNK_LEVELS, rg,
						    s->col);
	*failed = v == PQ_SIZE_FAILED;
	*size = *failed ? PFS_FAILED_BYTES : v;
	return true;
}

/* A page's text size by the size pass, when it ran and its page count is
 * the layout's (np); PFS_SIZE_UNKNOWN otherwise. */
static uint64_t pass_page(pfs_stream *s, uint32_t rg, uint32_t page, uint32_t np)
{
	const pq_file_sizes *ps = pass(s);
	const pq_chunk_sizes *cs = ps ? pfs_sizes_chunk(ps, rg, s->col) : NULL;
	if (!cs || cs->num_pages != np || page >= np)
		return PFS_SIZE_UNKNOWN;
	uint64_t v = s->page_kind == PFS_K_PAGE_LEVELS ? cs->pages[page].levels
						       : cs->pages[page].values;
	return v == PQ_SIZE_FAILED ? PFS_SIZE_UNKNOWN : v;
}

/* Row group body size (its rows, without the header), if known. */
static uint64_t rg_body(pfs_stream *s, uint32_t rg)
{
	uint64_t sz;
	bool failed;
	if (pass_seg(s, rg, &sz, &failed))
		return sz;
	if (s->fmt == PQ_ROWS_JSONL)
		return known_size(s, PFS_K_RG_JSONL, rg, 0, 0);
	sz = known_size(s, PFS_K_RG_CSV, rg, 0, 0);
	return sz == PFS_SIZE_UNKNOWN || sz < s->hdr_len ? PFS_SIZE_UNKNOWN : sz - s->hdr_len;
}

/* Holds the layout of chunk rg (the stream's column) and gives its pages. */
static int num_pages(pfs_stream *s, uint32_t rg, uint32_t *np)
{
	if (!s->lo || s->lo_rg != rg) {
		pfs_cache_release(s->fs->cache, s->lo);
		s->lo = NULL;
		pq_error err;
		int rc = pfs_layout_get(s->fs, s->pf, rg, s->col, &s->lo, &err);
		if (rc)
			return rc;
		s->lo_rg = rg;
	}
	*np = ((const pq_chunk_layout *)pfs_cobj_obj(s->lo))->num_pages;
	return 0;
}

/* An entry below a row group (its data.csv, a chunk's texts) covers that
 * row group only. */
static void scope(pfs_stream *s)
{
	pfs_kind parent = pfs_kind_info(s->kind)->parent;
	if (parent == PFS_K_RG || parent == PFS_K_CHUNK) {
		s->rg_lo = s->node->key.rg;
		s->rg_hi = s->node->key.rg + 1;
	}
}

static int rows(pfs_stream *s, pq_row_format fmt)
{
	scope(s);
	s->rows = true;
	s->fmt = fmt;
	s->header = fmt == PQ_ROWS_CSV;
	return 0;
}

int pfs_stream_csv(pfs_stream *s)
{
	return rows(s, PQ_ROWS_CSV);
}

int pfs_stream_jsonl(pfs_stream *s)
{
	return rows(s, PQ_ROWS_JSONL);
}

/* Values or levels: one segment per page, chunk after chunk. */
int pfs_stream_pages(pfs_stream *s)
{
	scope(s);
	const pfs_kind_desc *d = pfs_kind_info(s->kind);
	/* a column's values.txt is made of chunk texts, each of page texts */
	s->chunk_kind = pfs_kind_info(d->segment)->size == PFS_SZ_PAGES ? d->segment : s->kind;
	s->page_kind = pfs_kind_info(s->chunk_kind)->segment;
	return 0;
}

int pfs_stream_open(pfs_fs *fs, pfs_pf *pf, pfs_node *n, pfs_stream **out)
{
	*out = NULL;
	if (!pf->f)
		return -EIO;
	pfs_stream *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->fs = fs;
	s->pf = pf;
	s->node = n;
	s->kind = (pfs_kind)n->key.kind;
	s->col = n->key.col;
	s->rg_lo = 0;
	s->rg_hi = pf->nrg;
	const pfs_kind_desc *d = pfs_kind_info(s->kind);
	int rc = d->body == PFS_BODY_STREAM && d->stream ? d->stream(s) : -EINVAL;
	if (rc) {
		free(s);
		return rc;
	}
	if (s->header) {
		pfs_key hk = pfs_key_make(pf->gen, PFS_C_CSV_HEADER, 0, 0, 0);
		pfs_cobj *t;
		rc = pfs_content_text(fs, pf, &hk, &t);
		if (rc) {
			free(s);
			return rc;
		}
		s->hdr_len = ((const pfs_text *)pfs_cobj_obj(t))->len;
		pfs_cache_release(fs->cache, t);
	}
	pthread_mutex_init(&s->lock, NULL);
	pfs_pf_ref(pf);
	s->in_hdr = s->header;
	s->cur_rg = s->rg_lo;
	s->seg_whole = true;
	s->win.budget = fs->budget;
	s->win.big = true;
	pthread_mutex_lock(&fs->streams_lock);
	s->lnext = fs->streams_head;
	if (s->lnext)
		s->lnext->lprev = s;
	else
		fs->streams_tail = s;
	fs->streams_head = s;
	fs->nstreams++;
	pthread_mutex_unlock(&fs->streams_lock);
	*out = s;
	return 0;
}

static void unlink_locked(pfs_fs *fs, pfs_stream *s)
{
	if (s->lprev)
		s->lprev->lnext = s->lnext;
	else
		fs->streams_head = s->lnext;
	if (s->lnext)
		s->lnext->lprev = s->lprev;
	else
		fs->streams_tail = s->lprev;
	s->lprev = s->lnext = NULL;
}

/* The stream was read: it goes to the front (reclaim takes from the back). */
static void touch(pfs_stream *s)
{
	pfs_fs *fs = s->fs;
	pthread_mutex_lock(&fs->streams_lock);
	if (fs->streams_head != s) {
		unlink_locked(fs, s);
		s->lnext = fs->streams_head;
		s->lnext->lprev = s; /* s was not the head: the list has another */
		fs->streams_head = s;
	}
	pthread_mutex_unlock(&fs->streams_lock);
}

/* The window kept behind the read offset: KEEP_BEHIND, less with a small
 * cache_size (the window is charged to it: 64 handles reading at once keep
 * at most the whole budget behind them). */
static uint64_t keep_behind(const pfs_stream *s)
{
	uint64_t keep = pq_budget_limit(s->fs->budget) / KEEP_SHARE;
	if (!s->fs->budget || keep > KEEP_BEHIND)
		keep = KEEP_BEHIND;
	return keep;
}

/* Moves the window's bytes to win's start once the dropped ones are as
 * many as the kept ones, before more are appended: each byte is moved at
 * most about once. */
static void win_compact(pfs_stream *s)
{
	size_t live = s->win.len - s->win_skip;
	if (!s->win_skip || s->win_skip < live)
		return;
	memmove(s->win.p, s->win.p + s->win_skip, live);
	s->win.len = live;
	s->win_skip = 0;
}

/* Frees a prefetch slot's buffer (and so its charge). */
static void prefetch_buf_free(prefetch *p)
{
	pq_buf_free(&p->buf);
}

/* Done with a slot's rendered bytes: its capacity (still charged) stays
 * for the slot's next row group or chunk, since a fresh buffer of that
 * size costs more in page faults than rendering into it; reset() and the
 * stream's end free it. */
static void prefetch_buf_done(prefetch *p)
{
	p->buf.len = 0;
}

/* The slot's buffer starts with front bytes of room, for the window's
 * bytes the reader still needs when the rendered ones become its window
 * (adopt); rendering ahead is a bonus: it stops where the budget says no. */
static void take_front(prefetch *p)
{
	p->buf.budget = p->budget;
	p->buf.big = true;
	if (pq_buf_grow(&p->buf, p->front))
		p->buf.len = p->front;
	else
		p->front = 0; /* (and buf.oom: the reader renders it itself) */
}

static void prefetch_run(void *arg)
{
	prefetch *p = arg;
	pq_row_reader *rr;
	p->st = pq_row_reader_open(p->f, p->rg, p->fmt, &rr, &p->err);
	if (p->st != PQ_OK) {
		atomic_store(&p->finished, true);
		return;
	}
	bool done = false;
	take_front(p);
	while (!done && p->st == PQ_OK && !p->buf.oom && !atomic_load(&p->cancel))
		p->st = pq_row_reader_next(rr, (size_t)1 << 20, &p->buf, &done, &p->err);
	pq_row_reader_free(rr);
	if (!done && p->st == PQ_OK)
		p->st = PQ_EIO; /* cancelled: not a whole row group */
	atomic_store(&p->finished, true);
}

/* The texts of every page of chunk (rg, col), as step_values renders them
 * one by one: the pages' cached texts, else rendered (decoded pages go to
 * the cache as they would). */
static void prefetch_values_run(void *arg)
{
	prefetch *p = arg;
	pfs_cobj *lo;
	int rc = pfs_layout_get(p->fs, p->pf, p->rg, p->col, &lo, &p->err);
	p->st = rc ? PQ_EIO : PQ_OK;
	if (rc) {
		atomic_store(&p->finished, true);
		return;
	}
	take_front(p);
	uint32_t np = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->num_pages;
	for (uint32_t pg = 0; pg < np && p->st == PQ_OK; pg++) {
		pfs_key k = pfs_key_make(p->pf->gen, p->page_kind, p->rg, p->col, pg);
		if (atomic_load(&p->cancel) || pfs_page_render(p->fs, p->pf, lo, &k, &p->buf) ||
		    p->buf.oom || p->buf.len - p->front > PREFETCH_VALUES_MAX)
			p->st = PQ_EIO; /* rendered again by the reader, which reports it */
	}
	pfs_cache_release(p->fs->cache, lo);
	atomic_store(&p->finished, true);
}

/* Starts rendering row groups (chunks) rg .. rg + PREFETCH - 1 that are not
 * yet. */
static void prefetch_start(pfs_stream *s, uint32_t rg)
{
	/* only for readers that stream (not `head`), and never past the end:
	 * a first read of EAGER_READ from the start is cat's, cp's, a
	 * reader's of the whole file (the kernel asks `head` for less), so
	 * the cores render ahead from the first segment on instead of after
	 * PREFETCH_AFTER bytes (on the lineitem table, one to five segments
	 * the reader rendered alone) */
	if (!s->eager && s->pos - s->seq_start < PREFETCH_AFTER)
		return;
	for (uint32_t r = rg; r < rg + PREFETCH && r < s->rg_hi; r++) {
		prefetch *free_slot = NULL;
		bool running = false;
		for (int i = 0; i < PREFETCH; i++) {
			if (s->pre[i].active && s->pre[i].rg == r)
				running = true;
			else if (!s->pre[i].active && !free_slot)
				free_slot = &s->pre[i];
		}
		if (running || !free_slot)
			continue;
		uint64_t sz;
		bool failed;
		/* a failed chunk fails at its start, read by the reader; a chunk
		 * known to be too large is not held whole */
		if (!s->rows && pass_seg(s, r, &sz, &failed) && (failed || sz > PREFETCH_VALUES_MAX))
			continue;
		pq_buf keep = free_slot->buf;
		memset(free_slot, 0, sizeof *free_slot);
		free_slot->buf = keep;
		free_slot->buf.len = 0;
		free_slot->buf.oom = false;
		free_slot->buf.refused = 0;
		free_slot->rg = r;
		free_slot->fmt = s->fmt;
		free_slot->f = s->pf->f;
		free_slot->fs = s->fs;
		free_slot->pf = s->pf;
		free_slot->col = s->col;
		free_slot->page_kind = s->page_kind;
		free_slot->budget = s->fs->budget;
		free_slot->task.cancel = &free_slot->cancel; /* its fetches stop too */
		/* room for the window's bytes the reader still needs, so the
		 * rendered rows or chunk become the window without being copied */
		free_slot->front = (size_t)keep_behind(s) + ((size_t)1 << 20);
		if (pfs_task_start(&free_slot->task, s->rows ? prefetch_run : prefetch_values_run,
				   free_slot))
			free_slot->active = true;
	}
	/* a remote file's next row group is fetched while these render (its
	 * reader, when it opens, then finds its bytes held) */
	if (s->rows && rg + PREFETCH < s->rg_hi)
		pq_file_advise_row_group(s->pf->f, rg + PREFETCH);
}

/* Waits for the thread rendering rg (UINT32_MAX: for all of them); the
 * slot whose buffer holds rg, or NULL. */
static prefetch *prefetch_join(pfs_stream *s, uint32_t rg)
{
	prefetch *got = NULL;
	for (int i = 0; i < PREFETCH; i++) {
		prefetch *p = &s->pre[i];
		if (!p->active || (rg != UINT32_MAX && p->rg != rg))
			continue;
		if (rg == UINT32_MAX)
			atomic_store(&p->cancel, true);
		/* a queued one is the reader's to render; an interrupted reader leaves one running */
		int ran = rg == UINT32_MAX ? pfs_task_wait(&p->task) : pfs_task_wait_intr(&p->task);
		if (ran < 0)
			return NULL;
		p->active = false;
		if (ran && p->rg == rg && p->st == PQ_OK && !p->buf.oom)
			got = p;
		else
			prefetch_buf_free(p);
	}
	return got;
}

/* Gives back the window (and its charge). */
static void win_free(pfs_stream *s)
{
	pq_buf_free(&s->win);
	s->win.budget = s->fs->budget;
	s->win.big = true;
	s->win_skip = 0;
}

/* Back to the state of a stream just opened, its memory given back.
 * Prefetch threads that are done are joined and their rows freed; those
 * still running are told to stop and joined later (never waited for here:
 * this may run on one of them, through the budget's reclaim). */
static void reset(pfs_stream *s)
{
	for (int i = 0; i < PREFETCH; i++) {
		prefetch *p = &s->pre[i];
		if (!p->active) {
			prefetch_buf_free(p); /* a kept capacity */
			continue;
		}
		atomic_store(&p->cancel, true);
		if (pfs_task_cancel(&p->task) || atomic_load(&p->finished)) {
			pfs_task_wait(&p->task); /* (at once) */
			p->active = false;
			prefetch_buf_free(p);
		}
	}
	if (s->rr) {
		pq_row_reader_free(s->rr);
		s->rr = NULL;
	}
	win_free(s);
	s->pos = s->win_off = s->seq_start = s->seg_start = 0;
	s->eager = false;
	s->in_hdr = s->header;
	s->cur_rg = s->rg_lo;
	s->cur_page = 0;
	s->seg_whole = true;
	s->eof = false;
}

static bool holds_memory(const pfs_stream *s)
{
	for (int i = 0; i < PREFETCH; i++)
		if (s->pre[i].active || s->pre[i].buf.p)
			return true;
	return s->rr || s->win.charged;
}

uint64_t pfs_streams_reclaim(pfs_fs *fs, uint64_t need)
{
	uint64_t got = 0;
	pthread_mutex_lock(&fs->streams_lock);
	for (pfs_stream *s = fs->streams_tail; s && got < need; s = s->lprev) {
		if (pthread_mutex_trylock(&s->lock) != 0)
			continue; /* reading now (perhaps the very reader asking) */
		if (holds_memory(s)) {
			uint64_t before = pq_budget_used(fs->budget);
			reset(s);
			uint64_t after = pq_budget_used(fs->budget);
			got += before > after ? before - after : 0;
		}
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&fs->streams_lock);
	return got;
}

void pfs_stream_free(pfs_stream *s)
{
	if (!s)
		return;
	pfs_fs *fs = s->fs;
	pthread_mutex_lock(&fs->streams_lock);
	unlink_locked(fs, s);
	bool last = --fs->nstreams == 0;
	pthread_mutex_unlock(&fs->streams_lock);
	uint64_t before = pq_budget_used(fs->budget);
	prefetch_join(s, UINT32_MAX);
	for (int i = 0; i < PREFETCH; i++)
		prefetch_buf_free(&s->pre[i]); /* kept capacities */
	if (s->rr)
		pq_row_reader_free(s->rr);
	pfs_cache_release(fs->cache, s->lo);
	pfs_cache_release(fs->meta, s->sizes);
	win_free(s);
	pthread_mutex_destroy(&s->lock);
	pfs_pf_unref(s->pf);
	free(s);
	uint64_t after = pq_budget_used(fs->budget);
	pfs_memory_freed(fs, before > after ? before - after : 0);
	if (last)
		pfs_memory_idle(fs);
}

/* Moves the cursor to a segment boundary at or before off, as late as the
 * known segment sizes allow. Keeps the cursor when it is already between
 * that boundary and off. */
static int seek(pfs_stream *s, uint64_t off)
{
	uint64_t start = 0;
	bool in_hdr = s->header;
	uint32_t rg = s->rg_lo, page = 0;
	if (s->header && off >= s->hdr_len) {
		in_hdr = false;
		start = s->hdr_len;
	}
	if (!in_hdr) {
		for (; rg < s->rg_hi; rg++) {
			uint64_t sz;
			bool failed;
			if (s->rows)
				sz = rg_body(s, rg);
			else if (!pass_seg(s, rg, &sz, &failed))
				sz = known_size(s, s->chunk_kind, rg, s->col, 0);
			if (sz == PFS_SIZE_UNKNOWN || start + sz > off)
				break;
			start += sz;
		}
		if (!s->rows && rg < s->rg_hi) {
			uint32_t np;
			int rc = num_pages(s, rg, &np);
			if (rc)
				return rc;
			for (; page < np; page++) {
				uint64_t sz = pass_page(s, rg, page, np);
				if (sz == PFS_SIZE_UNKNOWN)
					sz = known_size(s, s->page_kind, rg, s->col, page);
				if (sz == PFS_SIZE_UNKNOWN || start + sz > off)
					break;
				start += sz;
			}
		}
	}
	if (s->pos <= off && s->pos >= start && s->pos >= s->win_off)
		return 0; /* rendering on from here is no slower */
	if (s->rr) {
		pq_row_reader_free(s->rr);
		s->rr = NULL;
	}
	prefetch_join(s, UINT32_MAX); /* ahead of where the reader was */
	s->win.len = 0;
	s->win_skip = 0;
	s->win_off = s->pos = s->seq_start = start;
	s->eager = false; /* a reader that jumps renders ahead once it streams again */
	s->in_hdr = in_hdr;
	s->cur_rg = rg;
	s->cur_page = page;
	s->seg_start = start;
	s->seg_whole = page == 0;
	s->eof = false;
	return 0;
}

static void finish(pfs_stream *s)
{
	s->eof = true;
	pfs_node_set_size(s->fs, s->node, s->pos);
}

/* The row group or chunk rendered ahead in ready goes after the window:
 * its buffer becomes the window, with the bytes still needed copied into
 * the room before it (the old window's buffer goes to the slot), so the
 * rendered bytes are not copied; else (no room) they are appended. */
static int adopt(pfs_stream *s, prefetch *ready)
{
	size_t live = s->win.len - s->win_skip, rendered = ready->buf.len - ready->front;
	if (ready->buf.len >= ready->front && live <= ready->front) {
		if (live)
			memcpy(ready->buf.p + ready->front - live, s->win.p + s->win_skip, live);
		pq_buf old = s->win;
		s->win = ready->buf;
		s->win_skip = ready->front - live;
		ready->buf = old;
	} else {
		pq_buf_append(&s->win, ready->buf.p + ready->front, rendered);
	}
	s->pos += rendered;
	prefetch_buf_done(ready);
	return s->win.oom ? -ENOMEM : 0;
}

static int step_rows(pfs_stream *s)
{
	pq_error err = {0};
	win_compact(s);
	if (s->in_hdr) {
		pfs_key hk = pfs_key_make(s->pf->gen, PFS_C_CSV_HEADER, 0, 0, 0);
		pfs_cobj *t;
		int rc = pfs_content_text(s->fs, s->pf, &hk, &t);
		if (rc)
			return rc;
		const pfs_text *tx = pfs_cobj_obj(t);
		pq_buf_append(&s->win, tx->p, tx->len);
		pfs_cache_release(s->fs->cache, t);
		s->pos += tx->len;
		s->in_hdr = false;
		s->seg_start = s->pos;
		s->seg_whole = true;
		return 0;
	}
	if (s->cur_rg >= s->rg_hi) {
		finish(s);
		return 0;
	}
	uint64_t psz;
	bool failed;
	if (!s->rr && pass_seg(s, s->cur_rg, &psz, &failed) && failed)
		return pfs_sizes_failed(s->pf, pass(s), s->cur_rg, UINT32_MAX,
					pfs_kind_info(s->kind)->name);
	pq_status st;
	prefetch *ready = s->rr ? NULL : prefetch_join(s, s->cur_rg);
	if (ready) {
		/* the whole row group is ready (adopt) */
		s->seg_start = s->pos;
		if (adopt(s, ready))
			return -ENOMEM;
		atomic_fetch_add(&s->fs->ahead_used, 1);
		uint64_t body = s->pos - s->seg_start;
		if (s->fmt == PQ_ROWS_CSV)
			record_size(s, PFS_K_RG_CSV, s->cur_rg, 0, 0, s->hdr_len + body);
		else
			record_size(s, PFS_K_RG_JSONL, s->cur_rg, 0, 0, body);
		s->cur_rg++;
		prefetch_start(s, s->cur_rg);
		return 0;
	}
	if (!s->rr) {
		st = pq_row_reader_open(s->pf->f, s->cur_rg, s->fmt, &s->rr, &err);
		if (st != PQ_OK)
			goto fail;
		s->seg_start = s->pos;
		s->seg_whole = true;
		prefetch_start(s, s->cur_rg + 1);
	}
	size_t before = s->win.len;
	bool done = false;
	st = pq_row_reader_next(s->rr, ROW_CHUNK, &s->win, &done, &err);
	if (st != PQ_OK)
		goto fail;
	if (s->win.oom)
		return -ENOMEM;
	s->pos += s->win.len - before;
	if (done) {
		uint64_t body = s->pos - s->seg_start;
		if (s->seg_whole) {
			if (s->fmt == PQ_ROWS_CSV)
				record_size(s, PFS_K_RG_CSV, s->cur_rg, 0, 0, s->hdr_len + body);
			else
				record_size(s, PFS_K_RG_JSONL, s->cur_rg, 0, 0, body);
		}
		pq_row_reader_free(s->rr);
		s->rr = NULL;
		s->cur_rg++;
	}
	return 0;
fail:
	pfs_log(pfs_memory_log_level(), "%s: %s", s->pf->src->path, err.msg);
	return -pfs_status_to_errno(st);
}

static int step_values(pfs_stream *s)
{
	win_compact(s);
	if (s->cur_rg >= s->rg_hi) {
		finish(s);
		return 0;
	}
	uint32_t np;
	int rc = num_pages(s, s->cur_rg, &np);
	if (rc)
		return rc;
	if (s->cur_page == 0) {
		uint64_t psz;
		bool failed;
		/* a column's values.txt: not a byte of a failed chunk (its pages'
		 * texts would overrun its placeholder); a chunk's own fails at open */
		if (s->chunk_kind != s->kind && pass_seg(s, s->cur_rg, &psz, &failed) && failed)
			return pfs_sizes_failed(s->pf, pass(s), s->cur_rg, s->col, "values.txt");
		s->seg_start = s->pos;
		s->seg_whole = true;
		prefetch *ready = prefetch_join(s, s->cur_rg);
		if (ready) {
			/* the whole chunk is ready */
			if (adopt(s, ready))
				return -ENOMEM;
			record_size(s, s->chunk_kind, s->cur_rg, s->col, 0, s->pos - s->seg_start);
			atomic_fetch_add(&s->fs->ahead_used, 1);
			s->cur_rg++;
			prefetch_start(s, s->cur_rg);
			return 0;
		}
		prefetch_start(s, s->cur_rg + 1);
	}
	if (s->cur_page >= np) {
		if (s->seg_whole)
			record_size(s, s->chunk_kind, s->cur_rg, s->col, 0, s->pos - s->seg_start);
		s->cur_rg++;
		s->cur_page = 0;
		return 0;
	}
	pfs_key k = pfs_key_make(s->pf->gen, s->page_kind, s->cur_rg, s->col, s->cur_page);
	size_t before = s->win.len;
	if ((rc = pfs_page_render(s->fs, s->pf, s->lo, &k, &s->win)))
		return rc;
	size_t len = s->win.len - before;
	record_size(s, s->page_kind, s->cur_rg, s->col, s->cur_page, len);
	s->pos += len;
	s->cur_page++;
	return 0;
}

/* Drops window bytes more than keep_behind before off (nothing moves:
 * win_skip grows, win_compact reuses the room later). Done before every
 * step, so the window's live bytes fit the room before a row group or
 * chunk rendered ahead (adopt: keep_behind + a read). */
static void trim(pfs_stream *s, uint64_t off)
{
	uint64_t keep = keep_behind(s);
	if (off <= s->win_off + keep)
		return;
	uint64_t drop = off - keep - s->win_off;
	if (drop > s->win.len - s->win_skip)
		drop = s->win.len - s->win_skip;
	s->win_skip += (size_t)drop; /* moved by win_compact when worth it */
	s->win_off += drop;
}

int pfs_stream_read(pfs_stream *s, uint64_t off, size_t size, const uint8_t **buf, size_t *got)
{
	*got = 0;
	*buf = NULL;
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	touch(s);
	if (off == 0 && s->pos == 0 && size >= EAGER_READ)
		s->eager = true;
	if (off < s->win_off || off > s->pos) {
		if (off < s->win_off && s->pos)
			atomic_fetch_add(&s->fs->restarts, 1);
		rc = seek(s, off);
	}
	while (rc == 0 && !s->eof && s->pos < off + size) {
		trim(s, off);
		rc = s->rows ? step_rows(s) : step_values(s);
	}
	if (rc && s->win.refused) {
		pfs_log(pfs_memory_log_level(),
			"%s: a read needs %zu more bytes of memory, more than the memory budget "
			"has free (cache_size %llu bytes, %llu in use)",
			s->pf->src->path, s->win.refused,
			(unsigned long long)pq_budget_limit(s->fs->budget),
			(unsigned long long)pq_budget_used(s->fs->budget));
		rc = -EIO;
	}
	if (rc)
		reset(s); /* nothing half-done stays: the next read starts clean */
	if (rc == 0 && off < s->pos && off >= s->win_off) {
		uint64_t avail = s->pos - off;
		*got = avail < size ? (size_t)avail : size;
		*buf = s->win.p + s->win_skip + (off - s->win_off);
	}
	return rc;
}

void pfs_stream_read_done(pfs_stream *s)
{
	pthread_mutex_unlock(&s->lock);
}
