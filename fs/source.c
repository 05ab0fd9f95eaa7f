/* SOURCE: its directories and Parquet files, and the generations of each
 * file, over a backend (pfs_source.h; the local one is source_local.c).
 *
 * Listing a directory reads only the first four bytes of its files (the
 * magic), and remembers the answer for as long as the file's identity
 * stays the same. A Parquet file is opened (footer and schema) on the
 * first access below its directory. When a file's identity changes, it
 * gets a new generation: the inodes of the old one turn stale, its cache
 * entries are dropped and the kernel is told to forget what it cached. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"
#include "kinds.h"
#include "loop.h"
#include "parallel.h"
#include "pfs_source.h"
#include "pq_aruna.h"
#include "pq_crypto.h"
#include "pq_keyring.h"
#include "pq_schema.h"

#define HIDDEN_DIR ".parquetfs" /* staging's private area under SOURCE */

struct pfs_sources {
	pthread_mutex_t lock;
	pfs_src **buckets;
	size_t nbuckets, count;
	pfs_src *root;
	pfs_source *be;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 1099511628211u;
	}
	return h;
}

static pfs_src *src_new(const char *rel, const char *path, bool is_file)
{
	pfs_src *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->rel = strdup(rel);
	s->path = strdup(path);
	if (!s->rel || !s->path) {
		free(s->rel);
		free(s->path);
		free(s);
		return NULL;
	}
	const char *slash = strrchr(s->rel, '/');
	s->name = slash ? slash + 1 : s->rel;
	s->is_file = is_file;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->opened, NULL);
	return s;
}

pfs_sources *pfs_sources_new(const char *root, bool root_is_file, pfs_source *be)
{
	pfs_sources *t = calloc(1, sizeof *t);
	if (!t) {
		pfs_source_free(be);
		return NULL;
	}
	t->nbuckets = 1024;
	t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
	/* A single file is matched (key_file sections) by its name. */
	const char *base = strrchr(root, '/');
	t->root = src_new("", root, root_is_file);
	/* the backend src/ chose by the SOURCE syntax (fs.c made it) */
	t->be = be;
	if (!t->buckets || !t->root || !t->be) {
		if (t->root) {
			free(t->root->rel);
			free(t->root->path);
			pthread_mutex_destroy(&t->root->lock);
			pthread_cond_destroy(&t->root->opened);
			free(t->root);
		}
		pfs_source_free(t->be);
		free(t->buckets);
		free(t);
		return NULL;
	}
	if (root_is_file)
		t->root->name = base ? base + 1 : root;
	pthread_mutex_init(&t->lock, NULL);
	t->buckets[str_hash("") & (t->nbuckets - 1)] = t->root;
	t->count = 1;
	return t;
}

void pfs_sources_free(pfs_sources *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nbuckets; i++) {
		for (pfs_src *s = t->buckets[i], *n; s; s = n) {
			n = s->hnext;
			if (s->pf)
				pfs_pf_unref(s->pf);
			pthread_mutex_destroy(&s->lock);
			pthread_cond_destroy(&s->opened);
			free(s->rel);
			free(s->path);
			free(s);
		}
	}
	free(t->buckets);
	pfs_source_free(t->be);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const pfs_source *backend(const pfs_fs *fs)
{
	return fs->sources->be;
}

int pfs_source_statfs(pfs_fs *fs, struct statvfs *sv)
{
	return backend(fs)->ops->statfs(backend(fs)->be, sv);
}

void pfs_source_lend(pfs_fs *fs, pq_budget *mem)
{
	if (backend(fs)->ops->lend)
		backend(fs)->ops->lend(backend(fs)->be, mem);
}

uint64_t pfs_source_reclaim(pfs_fs *fs, uint64_t need)
{
	return backend(fs)->ops->reclaim ? backend(fs)->ops->reclaim(backend(fs)->be, need) : 0;
}

bool pfs_source_counts(pfs_fs *fs, uint64_t *requests, uint64_t *bytes)
{
	if (!backend(fs)->ops->counts)
		return false;
	backend(fs)->ops->counts(backend(fs)->be, requests, bytes);
	return true;
}

int pfs_source_stat(pfs_fs *fs, const char *rel, struct stat *st)
{
	pq_identity id;
	return backend(fs)->ops->stat(backend(fs)->be, rel, st, &id);
}

pq_status pfs_source_open_rel(pfs_fs *fs, const char *rel, pq_source **out, pq_identity *id,
			      pq_error *err)
{
	struct stat st;
	int rc = backend(fs)->ops->stat(backend(fs)->be, rel, &st, id);
	if (rc)
		return pq_fail(err, rc == -ENOENT ? PQ_EINVAL : PQ_EIO, "%s: %s", rel,
			       rc == -ENOENT ? "no longer exists" : strerror(-rc));
	return backend(fs)->ops->open(backend(fs)->be, rel, out, err);
}

int pfs_source_ident(pfs_fs *fs, const char *rel, pq_identity *id)
{
	struct stat st;
	return backend(fs)->ops->stat(backend(fs)->be, rel, &st, id);
}

int pfs_source_list(pfs_fs *fs, const char *rel, pfs_source_list_fn fn, void *ctx)
{
	return backend(fs)->ops->list(backend(fs)->be, rel, fn, ctx);
}

const pfs_publish_ops *pfs_source_publish(pfs_fs *fs, void **be)
{
	*be = backend(fs)->be;
	return backend(fs)->ops->publish;
}

pfs_src *pfs_src_root(pfs_fs *fs)
{
	return fs->sources->root;
}

static pfs_src *src_find(pfs_fs *fs, const char *rel)
{
	pfs_sources *t = fs->sources;
	pthread_mutex_lock(&t->lock);
	pfs_src *s = t->buckets[str_hash(rel) & (t->nbuckets - 1)];
	while (s && strcmp(s->rel, rel))
		s = s->hnext;
	pthread_mutex_unlock(&t->lock);
	return s;
}

void pfs_src_changed(pfs_fs *fs, const char *rel)
{
	/* the entry itself: a new stat is a new generation (see pfs_src_check) */
	pfs_src *s = src_find(fs, rel);
	if (s) {
		uint64_t gen;
		(void)pfs_src_check(fs, s, &gen, NULL);
		pfs_key k = pfs_key_make(s->id, s->is_file ? PFS_K_FILE : PFS_K_SRC_DIR, 0, 0, 0);
		pfs_node *n = pfs_inode_find(fs->inodes, &k);
		if (n)
			pfs_notify_inode(fs->notify, n->ino);
	}
	/* its name in the parent (a negative entry, or the old file's) */
	const char *slash = strrchr(rel, '/');
	char *prel = strndup(rel, slash ? (size_t)(slash - rel) : 0);
	pfs_src *p = prel ? src_find(fs, prel) : NULL;
	free(prel);
	if (!p)
		return;
	pfs_key k = pfs_key_make(p->id, PFS_K_SRC_DIR, 0, 0, 0);
	pfs_node *n = pfs_inode_find(fs->inodes, &k);
	if (n) {
		pfs_notify_entry(fs->notify, n->ino, slash ? slash + 1 : rel);
		pfs_notify_inode(fs->notify, n->ino);
	}
}

/* The entry for rel, created on first use. A path that changed between
 * directory and Parquet file keeps its entry; is_file is updated. */
static pfs_src *src_get(pfs_fs *fs, const char *rel, bool is_file, fuse_ino_t parent_ino)
{
	pfs_sources *t = fs->sources;
	size_t h = str_hash(rel);
	pthread_mutex_lock(&t->lock);
	pfs_src *s = t->buckets[h & (t->nbuckets - 1)];
	while (s && strcmp(s->rel, rel))
		s = s->hnext;
	if (!s) {
		size_t plen = strlen(fs->opts->source_abs) + 1 + strlen(rel) + 1;
		char *path = malloc(plen);
		if (path) {
			snprintf(path, plen, "%s/%s", fs->opts->source_abs, rel);
			s = src_new(rel, path, is_file);
			free(path);
		}
		if (s) {
			s->id = pfs_fs_new_id(fs);
			s->parent_ino = parent_ino;
			size_t b = h & (t->nbuckets - 1);
			s->hnext = t->buckets[b];
			t->buckets[b] = s;
			t->count++;
		}
	}
	pthread_mutex_unlock(&t->lock);
	if (s && s->is_file != is_file) {
		pthread_mutex_lock(&s->lock);
		s->is_file = is_file;
		pthread_mutex_unlock(&s->lock);
	}
	return s;
}

/* 1: starts with PAR1/PARE, 0: does not (or cannot be read), -errno: the
 * daemon is short of a resource (no answer: nothing may be remembered).
 * An ARUNA container is known by its name: its bytes are sealed, and
 * whether they hold Parquet shows when core opens it (error.txt). */
static int has_magic(const pfs_fs *fs, const pfs_src *s)
{
	if (pq_aruna_name(s->name))
		return 1;
	return backend(fs)->ops->sniff(backend(fs)->be, s->rel);
}

/* An ARUNA container's plaintext over its raw bytes, with the key_file's
 * `container:` key for its path; *io is replaced (core checks the footer
 * and decodes the last chunk here). */
static pq_status open_container(const pfs_fs *fs, const pfs_src *s, pq_source **io, pq_error *err)
{
	const char *path = s->rel[0] ? s->rel : s->name;
	pq_key k;
	if (!pq_keyring_container_key(fs->keys, path, &k))
		return pq_fail(err, PQ_EKEY, "%s: no `container:` key for this ARUNA container in the "
			       "key_file", s->name);
	pq_source *c;
	pq_status st = pq_aruna_open(*io, k.b, fs->opts->cache_size, fs->budget, &c, err);
	pq_crypto_wipe(&k, sizeof k);
	if (st != PQ_OK)
		return pq_context(err, "%s: ARUNA container", s->name);
	pq_source_unref(*io);
	*io = c;
	return PQ_OK;
}

/* Under s->lock: forget the current generation. */
static pfs_pf *retire_locked(pfs_fs *fs, pfs_src *s)
{
	pfs_pf *old = s->pf;
	uint64_t gen = s->gen;
	s->pf = NULL;
	s->gen = 0;
	if (old) /* a size pass of the old bytes is of no use any more */
		atomic_store(&old->sz_cancel, true);
	if (!gen)
		return old;
	pfs_cache_drop_gen(fs->cache, gen);
	pfs_cache_drop_gen(fs->meta, gen);
	pfs_key k = pfs_key_make(s->id, PFS_K_FILE, 0, 0, 0);
	pfs_node *n = pfs_inode_find(fs->inodes, &k);
	if (n) {
		/* now, before the reply to the request that found the change:
		 * the kernel checks a cached listing against the directory's
		 * mtime only, and a file replaced within the same clock tick
		 * (4 ms) keeps it; a queued invalidation could come after the
		 * next readdir, which would list the old generation */
		pfs_notify_dir_now(fs->notify, n->ino);
		/* the kernel's dentries of the file's top-level names */
		for (uint32_t kind = 0; kind < PFS_K_COUNT; kind++) {
			const pfs_kind_desc *d = pfs_kind_info(kind);
			if (d->parent == PFS_K_FILE && d->name)
				pfs_notify_entry(fs->notify, n->ino, d->name);
		}
	}
	pfs_log(LOG_INFO, "%s changed: reloading on next access", s->path);
	return old;
}

int pfs_src_check(pfs_fs *fs, pfs_src *s, uint64_t *gen, struct stat *out)
{
	pfs_kept_sweep(fs, false);
	struct stat st;
	pq_identity id;
	int rc = backend(fs)->ops->stat(backend(fs)->be, s->rel, &st, &id);
	if (out && rc == 0)
		*out = st;
	if (!s->is_file) {
		*gen = s->id;
		if (rc == 0 && !S_ISDIR(st.st_mode))
			rc = -ENOENT;
		if (rc && s->parent_ino)
			pfs_notify_entry(fs->notify, s->parent_ino, s->name);
		return rc == -ENOENT || rc == -ENOTDIR ? -ENOENT : rc;
	}
	if (rc == 0 && !S_ISREG(st.st_mode))
		rc = -ENOENT;
	pfs_pf *old = NULL;
	pthread_mutex_lock(&s->lock);
	if (rc == 0 && s->gen && pq_identity_eq(&s->ident, &id)) {
		*gen = s->gen;
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	bool had = s->gen != 0;
	old = retire_locked(fs, s);
	if (rc == 0) {
		int m = has_magic(fs, s);
		rc = m < 0 ? -EIO : m == 0 ? -ENOENT : 0;
	}
	if (rc == 0) {
		s->gen = pfs_fs_new_id(fs);
		s->st = st;
		s->ident = id;
		*gen = s->gen;
	}
	pthread_mutex_unlock(&s->lock);
	if (rc && had && s->parent_ino)
		pfs_notify_entry(fs->notify, s->parent_ino, s->name);
	if (old) /* the kernel may still show it for a moment: source_kept.c */
		pfs_kept_add(fs, old);
	if (rc == -ENOTDIR)
		rc = -ENOENT;
	return rc;
}

/* The file of generation gen, opened (s->opening set, s->lock not held:
 * st is the generation's attributes, copied under it). */
static pfs_pf *pf_open(const pfs_fs *fs, pfs_src *s, uint64_t gen, const struct stat *st)
{
	pfs_pf *pf = calloc(1, sizeof *pf);
	if (!pf)
		return NULL;
	atomic_init(&pf->refs, 1);
	atomic_init(&pf->checked_ms, 0);
	pf->gen = gen;
	pf->src = s;
	pf->st = *st; /* the attributes the generation was taken from */
	pfs_pf_sizes_init(pf);
	pq_error err = {0};
	if (backend(fs)->ops->open(backend(fs)->be, s->rel, &pf->io, &err) == PQ_OK &&
	    (!pq_aruna_name(s->name) || open_container(fs, s, &pf->io, &err) == PQ_OK)) {
		const char *name = s->rel[0] ? s->rel : s->name;
		if (pq_file_open(pf->io, name, fs->keys, &pf->f, &err) == PQ_OK) {
			/* a page larger than the cache fails (EIO), naming its size */
			pq_file_set_page_budget(pf->f, fs->opts->cache_size);
			/* ... and all decoded pages together stay within it */
			pq_file_set_budget(pf->f, fs->budget);
			/* damaged pages fail their reads (EIO), or are served */
			pq_file_set_crc_check(pf->f, fs->opts->crc_check);
			pf->nrg = pq_file_num_row_groups(pf->f);
			pf->ncol = pq_file_num_columns(pf->f);
			return pf;
		}
		pf->f = NULL;
	}
	pf->status = err.status ? err.status : PQ_EIO;
	pf->msg = strdup(err.msg[0] ? err.msg : "cannot open the file");
	pfs_log(LOG_NOTICE, "%s: %s", s->path, pf->msg ? pf->msg : "cannot open");
	return pf;
}

int pfs_src_pf(pfs_fs *fs, pfs_src *s, uint64_t gen, pfs_pf **out)
{
	*out = NULL;
	pthread_mutex_lock(&s->lock);
	int rc = 0;
	/* one thread opens the file, without the lock; the others wait for
	 * it (interruptibly: the open may wait for a stalled server) */
	while (s->gen == gen && !s->pf && s->opening) {
		pfs_loop_will_wait();
		if (pfs_intr_arm()) {
			pthread_mutex_unlock(&s->lock);
			return -EINTR;
		}
		pfs_intr_timedwait(&s->opened, &s->lock);
	}
	if (s->gen == gen && !s->pf) {
		struct stat st = s->st;
		s->opening = true;
		pthread_mutex_unlock(&s->lock);
		pfs_pf *pf = pf_open(fs, s, gen, &st);
		pthread_mutex_lock(&s->lock);
		s->opening = false;
		pthread_cond_broadcast(&s->opened);
		if (s->gen == gen && !s->pf)
			s->pf = pf;
		else if (pf) /* a new generation meanwhile: this one is gone */
			pfs_pf_unref(pf);
	}
	if (s->gen != gen) {
		rc = s->gen ? -ESTALE : -ENOENT;
	} else {
		if (!s->pf) {
			rc = -ENOMEM;
		} else {
			pfs_pf_ref(s->pf);
			*out = s->pf;
			/* Out of memory or descriptors says nothing about the
			 * file: this request sees the error, the next tries again. */
			if (!s->pf->f && (s->pf->status == PQ_ENOMEM || s->pf->status == PQ_EIO ||
					  /* a remote 403 may be lifted */
					  (s->pf->status == PQ_EKEY &&
					   fs->opts->source_kind != PFS_SRC_LOCAL))) {
				pfs_pf_unref(s->pf);
				s->pf = NULL;
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void pfs_pf_ref(pfs_pf *pf)
{
	atomic_fetch_add(&pf->refs, 1);
}

void pfs_pf_unref(pfs_pf *pf)
{
	if (!pf || atomic_fetch_sub(&pf->refs, 1) != 1)
		return;
	if (pf->f)
		pq_file_free(pf->f);
	pfs_pf_sizes_fini(pf);
	pq_source_unref(pf->io);
	free(pf->msg);
	free((void *)atomic_load(&pf->adv_local));
	free(pf);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int pfs_pf_still_valid(pfs_pf *pf)
{
	if (!pf->io)
		return -EIO;
	/* At most one check a second per opened file, not one per read: an
	 * in-place rewrite is noticed as soon as a path walk would notice it
	 * (PFS_SOURCE_TIMEOUT). A failed check is not remembered as passed,
	 * so every later read fails too. */
	int64_t now = now_ms(), last = atomic_load(&pf->checked_ms);
	if (last && now - last < (int64_t)(PFS_SOURCE_TIMEOUT * 1000))
		return 0;
	if (pq_source_check(pf->io, NULL) != PQ_OK)
		return -EIO;
	atomic_store(&pf->checked_ms, now ? now : 1);
	return 0;
}

int pfs_pf_reply_range(fuse_req_t req, pfs_pf *pf, uint64_t off, size_t n)
{
	if (n == 0)
		return fuse_reply_buf(req, NULL, 0);
	int fd = pq_source_fd(pf->io);
	if (fd >= 0) {
		/* zero-copy: spliced from the file into the reply when allowed */
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(n);
		bv.buf[0].flags = (enum fuse_buf_flags)(FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK |
							FUSE_BUF_FD_RETRY);
		bv.buf[0].fd = fd;
		bv.buf[0].pos = (off_t)off;
		return fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE);
	}
	pq_error err = {0};
	const void *p;
	void *hold;
	pq_status st = pq_source_borrow(pf->io, n, off, &p, &hold, &err);
	if (st == PQ_OK && p) { /* from the source's memory (a decoded chunk) */
		int rc = fuse_reply_buf(req, p, n);
		pq_source_release(pf->io, hold);
		return rc;
	}
	if (st != PQ_OK) {
		pfs_log(LOG_WARNING, "%s: %s", pf->src->path, err.msg);
		return pfs_reply_err(req, pq_status_errno(st));
	}
	uint8_t *buf = malloc(n);
	if (!buf)
		return pfs_reply_err(req, ENOMEM);
	st = pq_source_pread(pf->io, buf, n, off, &err);
	if (st != PQ_OK) /* the errno alone would not say why (a changed object, ...) */
		pfs_log(LOG_WARNING, "%s: %s", pf->src->path, err.msg);
	int rc = st == PQ_OK ? fuse_reply_buf(req, (const char *)buf, n)
			     : pfs_reply_err(req, pq_status_errno(st));
	free(buf);
	return rc;
}

/* A row group is fetched whole (on the second chunk.bin of it opened in a
 * row) only when it is at most this large: beyond, a chunk is large
 * enough for its own requests to run at the server's speed. */
#define ADVISE_ROW_GROUP_MAX ((uint64_t)8 << 20)

/* A remote object costs a round trip per request: chunk.bin read as the
 * kernel asks (128 KiB, then a window) is two or three GETs per chunk,
 * and a file of small row groups has hundreds of chunks. Opening one
 * fetches it whole at once, and the second chunk.bin of the same row group
 * opened next (tar, cp -r, cat row_groups/N/columns/x/chunk.bin in any
 * order) fetches the rest of the row group whole; from then on, the first
 * chunk.bin of another row group fetches that row group whole at once.
 * Ahead of the reader, the row group after the current one comes too;
 * once the reader has taken row groups in file order for two in a row,
 * those after it come in requests of up to ADVISE_ROW_GROUP_MAX (two of
 * lineitem's 3.7 MB row groups at once), one or two row groups ahead: the
 * server sees half as many requests, each fetched while the reader reads
 * the one before, and a reader that jumps (a shell's sorted 1, 10, 11 ...
 * 19, 2, 20) wastes no more than one row group at each jump.
 * One column read across row groups still fetches only its chunks.
 * A local file gets the same advice as POSIX_FADV_WILLNEED (io_fd.c): a
 * cold `cat` of every chunk.bin otherwise waits for the disk
 * one readahead window at a time, in a shell's order (lineitem, 912
 * chunks, 8 rounds alternating, cold: 223-581 ms, median 350 -> 237-275
 * ms, median 246; passthrough_ll reads the whole file in 176-226 ms). */
/* pq_source_advise, once per block of a local file: the kernel's
 * readahead needs telling once, and a warm open then costs no system call
 * (a far source keeps track of its own held and fetched ranges). Blocks of
 * 64 KiB (larger for files beyond 64 GiB: at most 2^20 blocks, 128 KiB of
 * bits); a range is advised unless every block it touches was before (a
 * small chunk sharing its blocks with advised neighbours gets the kernel's
 * own readahead). */
static void advise(pfs_pf *pf, uint64_t off, uint64_t len)
{
	uint64_t size = pq_source_size(pf->io);
	if (pq_source_far(pf->io) || len == 0 || off >= size) {
		pq_source_advise(pf->io, off, len);
		return;
	}
	unsigned shift = 16;
	while ((size >> shift) >= ((uint64_t)1 << 20))
		shift++;
	_Atomic uint64_t *bits = atomic_load(&pf->adv_local);
	if (!bits) {
		size_t words = (size_t)((size >> shift) / 64 + 1);
		_Atomic uint64_t *fresh = calloc(words, sizeof *fresh), *none = NULL;
		if (!fresh) {
			pq_source_advise(pf->io, off, len);
			return;
		}
		if (atomic_compare_exchange_strong(&pf->adv_local, &none, fresh))
			bits = fresh;
		else {
			free((void *)fresh);
			bits = none;
		}
	}
	uint64_t end = len > size - off ? size : off + len;
	bool all = true;
	for (uint64_t b = off >> shift; b <= (end - 1) >> shift; b++) {
		uint64_t m = (uint64_t)1 << (b % 64);
		if (!(atomic_fetch_or(&bits[b / 64], m) & m))
			all = false;
	}
	if (!all)
		pq_source_advise(pf->io, off, end - off);
}

void pfs_pf_advise_chunk(pfs_pf *pf, uint32_t rg, uint32_t col, uint64_t off, uint64_t len)
{
	if (!pf->io || !pf->f || !pq_source_advises(pf->io))
		return;
	uint64_t me = ((uint64_t)rg << 32 | col) + 1;
	uint64_t prev = atomic_exchange(&pf->adv_last, me);
	uint64_t prev_rg = prev ? (prev - 1) >> 32 : 0, whole = atomic_load(&pf->adv_rg);
	/* a second chunk of this row group, or the first of another one right
	 * after a row group read whole (the reader goes row group by row group,
	 * in whatever order: tar, a shell's sorted names) */
	if (prev == 0 || prev == me || whole == (uint64_t)rg + 1 ||
	    (prev_rg != rg && whole != prev_rg + 1)) {
		advise(pf, off, len); /* this chunk (or nothing new) */
		return;
	}
	atomic_store(&pf->adv_rg, (uint64_t)rg + 1);
	/* row groups taken in file order for a while now: more at once */
	uint64_t run = whole == rg ? atomic_load(&pf->adv_run) + 1 : 0;
	atomic_store(&pf->adv_run, run);
	uint64_t o, l;
	/* this row group first, so that the chunk is one request with it */
	if (pq_row_groups_run(pf->f, rg, 1, ADVISE_ROW_GROUP_MAX, &o, &l))
		advise(pf, o, l);
	advise(pf, off, len);
	/* ahead: from the first row group not asked for yet, as many as fit
	 * in one request, when that row group is at most two ahead (a jump
	 * elsewhere, a shell's 19 -> 2, starts the window again) */
	uint64_t hi = atomic_load(&pf->adv_hi);
	if (hi <= rg || hi > (uint64_t)rg + 3)
		hi = (uint64_t)rg + 1;
	if (hi > (uint64_t)rg + 2 || hi >= pf->nrg)
		return;
	/* the ones after it while they lie end to end and fit (at most 64) */
	uint32_t from = (uint32_t)hi;
	uint32_t n = pq_row_groups_run(pf->f, from, run >= 2 ? 64 : 1, ADVISE_ROW_GROUP_MAX, &o, &l);
	if (n == 0) {
		atomic_store(&pf->adv_hi, hi + 1); /* too large: left to its chunks */
		return;
	}
	uint32_t to = from + n;
	atomic_store(&pf->adv_hi, to);
	advise(pf, o, l);
}

/* ---- directories ------------------------------------------------------------- */

static char *child_rel(const pfs_src *dir, const char *name)
{
	size_t n = strlen(dir->rel) + 1 + strlen(name) + 1;
	char *rel = malloc(n);
	if (rel)
		snprintf(rel, n, dir->rel[0] ? "%s/%s" : "%s%s", dir->rel, name);
	return rel;
}

/* What a directory entry is: 1 directory, 2 Parquet file, 0 hidden. */
static int classify(pfs_fs *fs, pfs_src *dir, fuse_ino_t dir_ino, const char *name,
		    const struct stat *st, const pq_identity *id, pfs_src **out)
{
	*out = NULL;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	if (!dir->rel[0] && !strcmp(name, HIDDEN_DIR))
		return 0;
	/* staging's temporary files (".NAME.parquet.tmp-PID-N") are never shown:
	 * half-written Parquet files start with the magic too */
	if (name[0] == '.' && strstr(name, ".tmp-"))
		return 0;
	bool is_dir = S_ISDIR(st->st_mode);
	if (!is_dir && !S_ISREG(st->st_mode))
		return 0;
	char *rel = child_rel(dir, name);
	if (!rel)
		return -ENOMEM;
	pfs_src *c = src_get(fs, rel, !is_dir, dir_ino);
	free(rel);
	if (!c)
		return -ENOMEM;
	if (is_dir) {
		*out = c;
		return 1;
	}
	/* The magic of a file whose identity is unchanged is not read again. */
	pthread_mutex_lock(&c->lock);
	bool known = c->magic_known && pq_identity_eq(&c->magic_id, id);
	bool ok = c->magic_ok;
	pthread_mutex_unlock(&c->lock);
	if (!known) {
		int m = has_magic(fs, c);
		if (m < 0)
			return -EIO; /* out of descriptors: neither shown nor hidden */
		ok = m == 1;
		pthread_mutex_lock(&c->lock);
		c->magic_known = true;
		c->magic_ok = ok;
		c->magic_id = *id;
		pthread_mutex_unlock(&c->lock);
	}
	if (!ok)
		return 0;
	*out = c;
	return 2;
}

/* Listing reads the magic of the files it has not seen (or whose identity
 * changed) a batch at a time on several threads: in a cold directory of
 * 10,000 files each read waits for the disk, and waiting for them one
 * after the other is most of what a first `ls` costs. The batch bounds the
 * memory a huge directory can take. */
#define LIST_BATCH 1024
#define SNIFF_THREADS 8
#define SNIFF_MIN_PER_THREAD 16

typedef struct list_ent {
	char *name;
	struct stat st;
	pq_identity id;
} list_ent;

typedef struct list_ctx {
	pfs_fs *fs;
	pfs_src *dir;
	fuse_ino_t dir_ino;
	pfs_src_list_fn fn;
	void *ctx;
	list_ent ents[LIST_BATCH];
	size_t n;
	/* the sniff jobs of a batch: files whose magic is not known */
	pfs_src *todo[LIST_BATCH];
	pq_identity todo_id[LIST_BATCH];
	size_t ntodo;
} list_ctx;

/* Reads and remembers the magic of todo[i]; a daemon short of descriptors
 * remembers nothing (classify asks again and skips the file). */
static void sniff_one(void *ctx, size_t i)
{
	list_ctx *l = ctx;
	pfs_src *c = l->todo[i];
	int m = has_magic(l->fs, c);
	if (m < 0)
		return;
	pthread_mutex_lock(&c->lock);
	c->magic_known = true;
	c->magic_ok = m == 1;
	c->magic_id = l->todo_id[i];
	pthread_mutex_unlock(&c->lock);
}

/* The magic of the batch's unknown files, on up to SNIFF_THREADS threads
 * (this one included); on one when there are few. */
static void sniff_batch(list_ctx *l)
{
	l->ntodo = 0;
	for (size_t i = 0; i < l->n; i++) {
		list_ent *e = &l->ents[i];
		if (!S_ISREG(e->st.st_mode))
			continue;
		char *rel = child_rel(l->dir, e->name);
		pfs_src *c = rel ? src_get(l->fs, rel, true, l->dir_ino) : NULL;
		free(rel);
		if (!c)
			continue; /* classify reports it */
		pthread_mutex_lock(&c->lock);
		bool known = c->magic_known && pq_identity_eq(&c->magic_id, &e->id);
		pthread_mutex_unlock(&c->lock);
		if (!known) {
			l->todo[l->ntodo] = c;
			l->todo_id[l->ntodo++] = e->id;
		}
	}
	pfs_parallel_for(l->ntodo, SNIFF_MIN_PER_THREAD, SNIFF_THREADS, sniff_one, l);
}

/* Sniffs the batch, then shows its entries in the backend's order (show:
 * false after a failure, only frees them). */
static int flush_batch(list_ctx *l, bool show)
{
	int rc = show ? 0 : -1;
	if (show)
		sniff_batch(l);
	for (size_t i = 0; i < l->n; i++) {
		list_ent *e = &l->ents[i];
		if (rc == 0) {
			pfs_src *c;
			int k = classify(l->fs, l->dir, l->dir_ino, e->name, &e->st, &e->id, &c);
			if (k == -EIO)
				k = 0; /* skipped this time, not remembered */
			if (k < 0)
				rc = k;
			else if (k > 0)
				rc = l->fn(l->ctx, e->name, c);
		}
		free(e->name);
	}
	l->n = 0;
	return rc;
}

static int list_one(void *ctx, const char *name, const struct stat *st, const pq_identity *id)
{
	list_ctx *l = ctx;
	list_ent *e = &l->ents[l->n];
	if (!(e->name = strdup(name)))
		return -ENOMEM;
	e->st = *st;
	e->id = *id;
	return ++l->n == LIST_BATCH ? flush_batch(l, true) : 0;
}

int pfs_src_list(pfs_fs *fs, pfs_src *dir, fuse_ino_t dir_ino, pfs_src_list_fn fn, void *ctx)
{
	list_ctx *l = malloc(sizeof *l);
	if (!l)
		return -ENOMEM;
	l->fs = fs;
	l->dir = dir;
	l->dir_ino = dir_ino;
	l->fn = fn;
	l->ctx = ctx;
	l->n = 0;
	int rc = backend(fs)->ops->list(backend(fs)->be, dir->rel, list_one, l);
	int frc = flush_batch(l, rc == 0); /* the rest */
	free(l);
	if (rc == 0)
		rc = frc;
	return rc < 0 ? rc : 0;
}

int pfs_src_lookup(pfs_fs *fs, pfs_src *dir, fuse_ino_t dir_ino, const char *name,
		   pfs_src **out)
{
	*out = NULL;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -ENOENT;
	char *rel = child_rel(dir, name);
	if (!rel)
		return -ENOMEM;
	struct stat st;
	pq_identity id;
	int rc = backend(fs)->ops->stat(backend(fs)->be, rel, &st, &id);
	free(rel);
	if (rc)
		return rc == -ENOMEM ? rc : -ENOENT;
	int k = classify(fs, dir, dir_ino, name, &st, &id, out);
	if (k < 0)
		return k;
	return k == 0 ? -ENOENT : 0;
}
