/* The FUSE low-level operations of the read-only tree: SOURCE and the
 * Parquet files in it.
 *
 * Every request starts by resolving its inode: SOURCE entries are stat'ed
 * (a changed file moves to a new generation, see source.c); entries inside
 * a file need that file's current generation, else they are stale
 * (ESTALE makes the kernel look the path up again). Changes fail with
 * EROFS. staging/ is a layer around these operations (staging_ops.c): it
 * serves its own inodes and passes the rest on. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "interrupt.h"
#include "kinds.h"

static pfs_fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* ---- resolving inodes -------------------------------------------------------------- */


void pfs_res_done(pfs_res *r)
{
	if (r->pf)
		pfs_pf_unref(r->pf);
	r->pf = NULL;
}

/* need_pf: open the file even for its own directory (lookups below it). */
int pfs_resolve(pfs_fs *fs, fuse_ino_t ino, bool need_pf, pfs_res *r)
{
	memset(r, 0, sizeof *r);
	r->n = pfs_inode_by_ino(fs->inodes, ino);
	if (!r->n)
		return -ESTALE;
	pfs_kind kind = (pfs_kind)r->n->key.kind;
	pfs_src *src = r->n->src;
	if (!src)
		return 0; /* a layer's directory (staging/): its layer has the attributes */
	uint64_t gen;
	int rc = pfs_src_check(fs, src, &gen, &r->base);
	if (rc)
		return kind == PFS_K_SRC_DIR || kind == PFS_K_FILE ? rc : -ESTALE;
	r->dir = r->n->key;
	if (kind == PFS_K_SRC_DIR)
		return 0;
	if (kind == PFS_K_FILE) {
		r->dir.gen = gen;
		if (!need_pf)
			return 0;
	} else if (gen != r->n->key.gen) {
		/* an inode of the generation just replaced, reached through a
		 * name the kernel has not looked up again yet: served that
		 * generation, as its cached size was (source_kept.c) */
		if (!(r->pf = pfs_kept_get(fs, src, r->n->key.gen)))
			return -ESTALE;
		r->base = r->pf->st;
		r->kept = true;
		return 0;
	}
	rc = pfs_src_pf(fs, src, r->dir.gen, &r->pf);
	if (rc)
		return rc;
	if (kind != PFS_K_FILE)
		r->base = r->pf->st;
	return 0;
}

/* 0, or -errno when an aggregate's size could not be measured. */
int pfs_make_attr(pfs_fs *fs, pfs_node *n, pfs_pf *pf, const struct stat *base,
		     struct stat *st)
{
	pfs_kind k = (pfs_kind)n->key.kind;
	memset(st, 0, sizeof *st);
	mode_t r = base->st_mode & 0444;
	bool dir = pfs_kind_is_dir(k);
	st->st_ino = n->ino;
	st->st_mode = dir ? (S_IFDIR | r | (r >> 2)) : (S_IFREG | r);
	if (k == PFS_K_SRC_DIR)
		st->st_mode = S_IFDIR | (base->st_mode & 0555);
	st->st_nlink = dir ? 2 : 1;
	st->st_uid = base->st_uid;
	st->st_gid = base->st_gid;
	st->st_atim = base->st_atim;
	st->st_mtim = base->st_mtim;
	st->st_ctim = base->st_ctim;
	st->st_blksize = 4096;
	uint64_t size = 0;
	int rc = 0;
	if (!dir && pf) {
		/* (a size rendered may wait for memory, as a read does) */
		pfs_mem_try t;
		pfs_memory_try_begin(fs, &t, pf->src->path);
		do
			rc = pfs_content_size(fs, pf, n, &size);
		while (pfs_memory_try_again(&t, rc));
		pfs_memory_try_end(&t);
	}
	st->st_size = (off_t)size;
	st->st_blocks = (st->st_size + 511) / 512;
	return rc;
}

double pfs_attr_timeout(const pfs_node *n)
{
	pfs_kind k = (pfs_kind)n->key.kind;
	return k == PFS_K_SRC_DIR || k == PFS_K_FILE ? PFS_SOURCE_TIMEOUT : PFS_FILE_TIMEOUT;
}

/* Names right in a file's directory are re-checked as often as the file
 * itself: a new generation puts a new inode behind the same name, and the
 * notifier's invalidation of the old one may come after the next path walk
 * (which would then find the old inode and its old size). */
double pfs_entry_timeout(const pfs_node *n)
{
	return pfs_kind_info(n->key.kind)->parent == PFS_K_FILE ? PFS_SOURCE_TIMEOUT
								 : pfs_attr_timeout(n);
}

/* The node and stat of a SOURCE child (directory or Parquet file). */
int pfs_src_child(pfs_fs *fs, pfs_src *c, pfs_node **n, struct stat *st)
{
	uint64_t gen;
	int rc = pfs_src_check(fs, c, &gen, st);
	if (rc)
		return rc;
	pfs_key k = pfs_key_make(c->id, c->is_file ? PFS_K_FILE : PFS_K_SRC_DIR, 0, 0, 0);
	*n = pfs_inode_get(fs->inodes, &k, c);
	return *n ? 0 : -ENOMEM;
}

/* ---- lookup, getattr ----------------------------------------------------------------- */

static void pfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_fs *fs = fs_of(req);
	pfs_res r;
	int rc = pfs_resolve(fs, parent, true, &r);
	struct fuse_entry_param e;
	memset(&e, 0, sizeof e);
	if (rc)
		goto out;
	pfs_node *n = NULL;
	pfs_pf *pf = r.pf;
	struct stat base = r.base;
	if (r.n->key.kind == PFS_K_SRC_DIR) {
		pfs_src *c;
		rc = pfs_src_lookup(fs, r.n->src, parent, name, &c);
		if (rc == 0)
			rc = pfs_src_child(fs, c, &n, &base);
	} else {
		pfs_key k;
		rc = pfs_tree_lookup(fs, pf, &r.dir, name, &k);
		/* a remote file that could not be fetched (server errors, a
		 * refused object, a changed one): the entries are not missing,
		 * the read failed; the next lookup tries again */
		if (rc == -ENOENT && pf && !pf->f && fs->opts->source_kind != PFS_SRC_LOCAL &&
		    (pf->status == PQ_EIO || pf->status == PQ_EKEY))
			rc = pf->status == PQ_EKEY ? -EACCES : -EIO;
		if (rc == 0 && !(n = pfs_inode_get(fs->inodes, &k, r.n->src)))
			rc = -ENOMEM;
	}
	if (rc)
		goto out;
	if ((rc = pfs_make_attr(fs, n, pfs_in_file(n) ? pf : NULL, &base, &e.attr)))
		goto out;
	e.ino = n->ino;
	e.attr_timeout = pfs_attr_timeout(n);
	e.entry_timeout = pfs_entry_timeout(n);
out:
	if (rc && rc != -ENOENT && r.kept)
		rc = -ESTALE; /* (its size pass was stopped): the new generation */
	pfs_res_done(&r);
	if (rc == -ENOENT) {
		/* a negative entry, cached as long as the directory's entries */
		e.ino = 0;
		e.entry_timeout = r.n ? pfs_attr_timeout(r.n) : PFS_SOURCE_TIMEOUT;
		if (r.n && r.n->key.kind == PFS_K_SRC_DIR)
			e.entry_timeout = PFS_SOURCE_TIMEOUT;
		fuse_reply_entry(req, &e);
		return;
	}
	if (rc)
		pfs_reply_err(req, -rc);
	else
		fuse_reply_entry(req, &e);
}

static pfs_pf *open_pf_of(pfs_fs *fs, const pfs_node *n);

static void pfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	pfs_fs *fs = fs_of(req);
	pfs_res r;
	int rc = pfs_resolve(fs, ino, false, &r);
	if (rc == -ESTALE && r.n && r.n->src && pfs_in_file(r.n) && (r.pf = open_pf_of(fs, r.n))) {
		/* An entry of a replaced file that is still open: its reader
		 * keeps the old generation (as on a local filesystem), and
		 * fstat() on it must not fail. The kernel asks (without the
		 * handle: fi is NULL for fstat) once the name's invalidation
		 * has dropped the inode's attributes. */
		r.base = r.pf->st;
		rc = 0;
	}
	if (rc) {
		pfs_res_done(&r);
		pfs_reply_err(req, -rc);
		return;
	}
	struct stat st;
	rc = pfs_make_attr(fs, r.n, r.pf, &r.base, &st);
	if (rc && r.kept)
		rc = -ESTALE;
	double t = pfs_attr_timeout(r.n);
	pfs_res_done(&r);
	if (rc)
		pfs_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, t);
}

/* ---- directories (dirs.c) ------------------------------------------------------------ */

static void pfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_opendir_with(req, ino, fi, NULL, NULL);
}

static void pfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	pfs_readdir_with(req, ino, size, off, fi, false, NULL, NULL);
}

static void pfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	pfs_readdir_with(req, ino, size, off, fi, true, NULL, NULL);
}

/* ---- files ---------------------------------------------------------------------------- */

typedef enum { H_TEXT, H_MEM, H_RANGE, H_STREAM } htype;

typedef struct handle {
	pfs_live live;        /* first: the list of open handles */
	atomic_int refs;      /* the open file, and a stream read replying */
	htype type;
	pfs_pf *pf;
	pfs_node *n;
	pfs_cobj *text;       /* H_TEXT */
	const uint8_t *p;     /* H_TEXT, H_MEM */
	uint64_t len;         /* all but H_STREAM */
	uint64_t base;        /* H_RANGE: file offset */
	pfs_stream *stream;
} handle;

static void handle_free(pfs_fs *fs, handle *h)
{
	if (!h)
		return;
	pfs_live_del(fs, &h->live);
	pfs_cache_release(fs->cache, h->text);
	pfs_stream_free(h->stream);
	if (h->pf)
		pfs_pf_unref(h->pf);
	free(h);
}

/* What a failed open_handle may have left, before it runs again. */
static void handle_clear(pfs_fs *fs, handle *h)
{
	pfs_cache_release(fs->cache, h->text);
	h->text = NULL;
	pfs_stream_free(h->stream);
	h->stream = NULL;
}

static void handle_drop(pfs_fs *fs, pfs_live *l)
{
	handle_free(fs, (handle *)(void *)l);
}

/* The file generation an open handle of n holds (a new reference), or
 * NULL. A handle leaves the live list before it lets its pf go, so the
 * pf is alive while the list is locked. Only asked for a stale node. */
static pfs_pf *open_pf_of(pfs_fs *fs, const pfs_node *n)
{
	pfs_pf *pf = NULL;
	pthread_mutex_lock(&fs->live_lock);
	for (pfs_live *l = fs->live.next; l != &fs->live; l = l->next) {
		const handle *h = (const handle *)(void *)l;
		if (l->drop == handle_drop && h->n == n && h->pf) {
			pf = h->pf;
			pfs_pf_ref(pf);
			break;
		}
	}
	pthread_mutex_unlock(&fs->live_lock);
	return pf;
}

static int open_handle(pfs_fs *fs, handle *h, struct fuse_file_info *fi)
{
	pfs_node *n = h->n;
	pfs_kind kind = (pfs_kind)n->key.kind;
	const pfs_kind_desc *d = pfs_kind_info(kind);
	pq_error err = {0};
	pfs_kctx c = {fs, h->pf, NULL, &n->key, &err, false};
	int rc = -EINVAL;
	switch (d->body) {
	case PFS_BODY_MEM:
		h->type = H_MEM;
		rc = d->mem(&c, &h->p, &h->len);
		break;
	case PFS_BODY_RANGE:
		h->type = H_RANGE;
		rc = d->range(&c, &h->base, &h->len);
		if (rc == 0 && kind == PFS_K_CHUNK_BIN)
			pfs_pf_advise_chunk(h->pf, n->key.rg, n->key.col, h->base, h->len);
		break;
	case PFS_BODY_STREAM:
		h->type = H_STREAM;
		rc = 0;
		if (d->size == PFS_SZ_PAGES) {
			/* exact size: fails here, like its getattr, when undecodable */
			uint64_t sz;
			rc = pfs_chunk_text_size(fs, h->pf, kind, n->key.rg, n->key.col, &sz);
		}
		if (rc == 0)
			rc = pfs_stream_open(fs, h->pf, n, &h->stream);
		break;
	case PFS_BODY_TEXT:
		h->type = H_TEXT;
		rc = pfs_content_text(fs, h->pf, &n->key, &h->text);
		if (rc == 0) {
			const pfs_text *t = pfs_cobj_obj(h->text);
			h->p = t->p;
			h->len = t->len;
			/* never other content than the size was measured from
			 * (verify.txt: by the size pass, rendered again now) */
			uint64_t sz = atomic_load(&n->size);
			if (sz != PFS_SIZE_UNKNOWN && sz != t->len) {
				pfs_log(LOG_ERR, "%s: %s: %zu bytes rendered, its size is %llu: the read fails",
					h->pf->src->path, d->name, t->len, (unsigned long long)sz);
				rc = -EIO;
			}
		}
		break;
	case PFS_BODY_NONE:
		break;
	}
	if (rc)
		return rc;
	/* Every size is exact from the first stat (aggregates by the size
	 * pass), and nothing changes within a file generation (a new one has
	 * new inodes): everything goes through the page cache, kept across
	 * opens, and mmap works. */
	fi->keep_cache = 1;
	fi->noflush = 1;
	return 0;
}

static void pfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_fs *fs = fs_of(req);
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		pfs_reply_err(req, EROFS);
		return;
	}
	pfs_res r;
	int rc = pfs_resolve(fs, ino, true, &r);
	handle *h = NULL;
	if (rc == 0 && pfs_kind_is_dir((pfs_kind)r.n->key.kind))
		rc = -EISDIR;
	if (rc == 0 && !(h = calloc(1, sizeof *h)))
		rc = -ENOMEM;
	if (rc == 0) {
		atomic_init(&h->refs, 1);
		h->n = r.n;
		h->pf = r.pf;
		r.pf = NULL;
		/* (what a text or stream needs at open may wait for memory) */
		pfs_mem_try t;
		pfs_memory_try_begin(fs, &t, h->pf->src->path);
		while ((rc = open_handle(fs, h, fi)) != 0 && pfs_memory_try_again(&t, rc))
			handle_clear(fs, h);
		pfs_memory_try_end(&t);
		/* (file.parquet of a container that opened: its range said so) */
		if (rc == 0 && !h->pf->f && !pfs_kind_info(h->n->key.kind)->without_file &&
		    h->n->key.kind != PFS_K_FILE_PARQUET)
			rc = h->pf->status == PQ_EKEY ? -EACCES : -EIO;
	}
	if (rc) {
		if (r.kept && rc != -EISDIR)
			rc = -ESTALE;
		r.pf = h ? h->pf : r.pf;
		if (h)
			h->pf = NULL;
		handle_free(fs, h);
		pfs_res_done(&r);
		pfs_reply_err(req, -rc);
		return;
	}
	pfs_res_done(&r);
	fi->fh = (uint64_t)(uintptr_t)h;
	pfs_live_add(fs, &h->live, handle_drop);
	if (fuse_reply_open(req, fi) == -ENOENT) /* interrupted */
		handle_free(fs, h);
}

/* Replies with the bytes of one read. Replies point into the handle (its
 * text, its stream's window): once written, the kernel may release the
 * handle on another thread, so pfs_read holds a reference meanwhile. */
static void read_reply(pfs_fs *fs, fuse_req_t req, handle *h, size_t size, uint64_t o)
{
	if (h->type == H_TEXT || h->type == H_MEM) {
		size_t n = o >= h->len ? 0 : (size_t)(h->len - o < size ? h->len - o : size);
		fuse_reply_buf(req, n ? (const char *)h->p + o : NULL, n);
		return;
	}
	/* bytes read from the source now must be the bytes the handle opened */
	int rc = pfs_pf_still_valid(h->pf);
	if (rc) {
		pfs_reply_err(req, -rc);
		return;
	}
	if (h->type == H_RANGE) {
		size_t n = o >= h->len ? 0 : (size_t)(h->len - o < size ? h->len - o : size);
		pfs_pf_reply_range(req, h->pf, h->base + o, n);
		return;
	}
	/* straight from the stream's window, under its lock; a read that
	 * failed for want of memory has given back all the stream held, and
	 * waits (unlocked) for memory other readers hold */
	const uint8_t *buf;
	size_t got;
	pfs_mem_try t;
	pfs_memory_try_begin(fs, &t, h->pf->src->path);
	for (;;) {
		rc = pfs_stream_read(h->stream, o, size, &buf, &got);
		if (rc == 0) {
			fuse_reply_buf(req, (const char *)buf, got);
			pfs_stream_read_done(h->stream);
			break;
		}
		pfs_stream_read_done(h->stream);
		if (!pfs_memory_try_again(&t, rc)) {
			pfs_reply_err(req, -rc);
			break;
		}
	}
	pfs_memory_try_end(&t);
}

static void pfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	handle *h = (handle *)(uintptr_t)fi->fh;
	if (off < 0) {
		pfs_reply_err(req, EINVAL);
		return;
	}
	(void)ino;
	pfs_fs *fs = fs_of(req); /* req is gone once replied to */
	atomic_fetch_add(&h->refs, 1);
	read_reply(fs, req, h, size, (uint64_t)off);
	if (atomic_fetch_sub(&h->refs, 1) == 1)
		handle_free(fs, h);
}

static void pfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	handle *h = (handle *)(uintptr_t)fi->fh;
	(void)ino;
	pfs_fs *fs = fs_of(req);
	pfs_reply_err(req, 0);
	if (atomic_fetch_sub(&h->refs, 1) == 1)
		handle_free(fs, h);
}

/* Without staging/ (its layer reports SOURCE's space), nothing can be
 * written: a read-only filesystem. */
/* Without staging/: the source's size (its backend's statfs: SOURCE's
 * filesystem, the spool of an S3 mount, an HTTP object's size), with
 * nothing free, since nothing can be written. */
static void pfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct statvfs sv;
	if (pfs_source_statfs(fs_of(req), &sv) != 0) {
		memset(&sv, 0, sizeof sv);
		sv.f_bsize = sv.f_frsize = 4096;
	}
	sv.f_bfree = sv.f_bavail = 0;
	sv.f_ffree = sv.f_favail = 0;
	sv.f_namemax = 255;
	sv.f_flag = ST_NOSUID | ST_NODEV | ST_RDONLY;
	fuse_reply_statfs(req, &sv);
}

/* ---- everything that would change the tree: read-only ------------------------------- */

static void rofs(fuse_req_t req)
{
	pfs_reply_err(req, EROFS);
}

static void pfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			struct fuse_file_info *fi)
{
	(void)ino, (void)attr, (void)to_set, (void)fi;
	rofs(req);
}

static void pfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      dev_t rdev)
{
	(void)parent, (void)name, (void)mode, (void)rdev;
	rofs(req);
}

static void pfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	(void)parent, (void)name, (void)mode;
	rofs(req);
}

static void pfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	rofs(req);
}

static void pfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent, (void)name;
	rofs(req);
}

static void pfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link, (void)parent, (void)name;
	rofs(req);
}

static void pfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	(void)parent, (void)name, (void)newparent, (void)newname, (void)flags;
	rofs(req);
}

static void pfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino, (void)newparent, (void)newname;
	rofs(req);
}

static void pfs_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		       struct fuse_file_info *fi)
{
	(void)parent, (void)name, (void)mode, (void)fi;
	rofs(req);
}

static void pfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	(void)ino, (void)buf, (void)size, (void)off, (void)fi;
	rofs(req);
}

/* Never asked for: handles here are opened noflush. */
static void pfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	pfs_reply_err(req, 0);
}

static void pfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino, (void)datasync, (void)fi;
	pfs_reply_err(req, 0);
}

static void pfs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			 size_t size, int flags)
{
	(void)ino, (void)name, (void)value, (void)size, (void)flags;
	rofs(req);
}

static void pfs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)ino, (void)name;
	rofs(req);
}

static void pfs_init(void *userdata, struct fuse_conn_info *conn)
{
	pfs_fs *fs = userdata;
	/* no OPENDIR/RELEASEDIR round trips, every listing in the kernel's
	 * cache (dirs.c); PARQUETFS_TEST_OPENDIR=1 keeps the handles, as
	 * older kernels have them (the tests run both) */
	const char *t = getenv("PARQUETFS_TEST_OPENDIR");
	fs->no_opendir = (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) && !(t && *t == '1');
	/* Binary ranges are spliced from the source file when the kernel can. */
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_SPLICE_MOVE)
		conn->want |= FUSE_CAP_SPLICE_MOVE;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* writes into staging/ of up to 1 MiB each (st_blksize there says so):
	 * a 1 GB cp is 1,000 requests instead of 8,000 */
	conn->max_write = PFS_STG_WRITE_BLOCK;
	/* the tree changes only by generations, which we invalidate ourselves */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
	/* A remote source's reads are synchronous requests: the kernel sends
	 * the readahead of an asynchronous one in the background, never
	 * interrupts it, and a reader whose signal is not fatal (Python,
	 * DuckDB) waits for it on a page lock until the server answers or
	 * the timeouts end it. A synchronous read is interrupted, and answered
	 * EINTR at once (interrupt.h). The source's own readahead windows
	 * keep the transfers large and ahead (remote_file.h); what the kernel
	 * no longer overlaps cost 10-25% on a server on this machine (95 MB
	 * file.parquet 282-329 -> 364-365 ms, a column's values.txt 58-64 ->
	 * 77-114 ms), less than any network adds. */
	if (fs->opts->source_kind != PFS_SRC_LOCAL)
		conn->want &= ~(unsigned)FUSE_CAP_ASYNC_READ;
}

/* The requests that may wait for a server can be interrupted
 * (interrupt.h): each replies last. */
static void w_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_intr_begin(req);
	pfs_lookup(req, parent, name);
	pfs_intr_end();
}

static void w_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_intr_begin(req);
	pfs_getattr(req, ino, fi);
	pfs_intr_end();
}

static void w_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_intr_begin(req);
	pfs_open(req, ino, fi);
	pfs_intr_end();
}

static void w_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	pfs_intr_begin(req);
	pfs_read(req, ino, size, off, fi);
	pfs_intr_end();
}

static void w_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_intr_begin(req);
	pfs_opendir(req, ino, fi);
	pfs_intr_end();
}

static void w_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	pfs_intr_begin(req);
	pfs_readdir(req, ino, size, off, fi);
	pfs_intr_end();
}

static void w_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	pfs_intr_begin(req);
	pfs_readdirplus(req, ino, size, off, fi);
	pfs_intr_end();
}

static const struct fuse_lowlevel_ops pfs_ops = {
	.init = pfs_init,
	.lookup = w_lookup,
	.getattr = w_getattr,
	.setattr = pfs_setattr,
	.mknod = pfs_mknod,
	.mkdir = pfs_mkdir,
	.unlink = pfs_unlink,
	.rmdir = pfs_rmdir,
	.symlink = pfs_symlink,
	.rename = pfs_rename,
	.link = pfs_link,
	.open = w_open,
	.read = w_read,
	.write = pfs_write,
	.flush = pfs_flush,
	.fsync = pfs_fsync,
	.release = pfs_release,
	.opendir = w_opendir,
	.readdir = w_readdir,
	.readdirplus = w_readdirplus,
	.releasedir = pfs_releasedir,
	.statfs = pfs_statfs,
	.setxattr = pfs_setxattr,
	.removexattr = pfs_removexattr,
	.create = pfs_create,
};

const struct fuse_lowlevel_ops *pfs_ro_ops(void)
{
	return &pfs_ops;
}
