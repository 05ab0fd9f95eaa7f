/* The FUSE low-level operations.
 *
 * Every request starts by resolving its inode: SOURCE entries are stat'ed
 * (a changed file moves to a new generation, see source.c); entries inside
 * a file need that file's current generation, else they are stale
 * (ESTALE makes the kernel look the path up again). Everything outside
 * the staging folder (staging.c, which these operations hand its inodes
 * to) is read-only: changes fail with EROFS. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "pfs_internal.h"

static pfs_fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* The node of ino when it belongs to staging/, else NULL. */
static pfs_node *stg_node(pfs_fs *fs, fuse_ino_t ino)
{
	if (!fs->staging)
		return NULL;
	pfs_node *n = pfs_inode_by_ino(fs->inodes, ino);
	return n && pfs_kind_is_staging((pfs_kind)n->key.kind) ? n : NULL;
}

/* ---- resolving inodes -------------------------------------------------------------- */

typedef struct res {
	pfs_node *n;
	pfs_pf *pf;       /* held when the entry is inside a file (or need_pf) */
	pfs_key dir;      /* the node's key as a tree directory (FILE: generation) */
	struct stat base; /* stat the attributes derive from */
} res;

static void res_done(res *r)
{
	if (r->pf)
		pfs_pf_unref(r->pf);
	r->pf = NULL;
}

/* need_pf: open the file even for its own directory (lookups below it). */
static int resolve(pfs_fs *fs, fuse_ino_t ino, bool need_pf, res *r)
{
	memset(r, 0, sizeof *r);
	r->n = pfs_inode_by_ino(fs->inodes, ino);
	if (!r->n)
		return -ESTALE;
	pfs_kind kind = (pfs_kind)r->n->key.kind;
	if (pfs_kind_is_staging(kind))
		return pfs_stg_stat(fs, r->n, &r->base); /* base is the whole attr */
	pfs_src *src = r->n->src;
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
		return -ESTALE;
	}
	rc = pfs_src_pf(fs, src, r->dir.gen, &r->pf);
	if (rc)
		return rc;
	if (kind != PFS_K_FILE)
		r->base = r->pf->st;
	return 0;
}

static void make_attr(pfs_fs *fs, pfs_node *n, pfs_pf *pf, const struct stat *base,
		      struct stat *st)
{
	pfs_kind k = (pfs_kind)n->key.kind;
	if (pfs_kind_is_staging(k)) {
		*st = *base;
		return;
	}
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
	if (!dir && pf)
		st->st_size = (off_t)pfs_content_size(fs, pf, n);
	st->st_blocks = (st->st_size + 511) / 512;
}

static double timeout_of(const pfs_node *n)
{
	pfs_kind k = (pfs_kind)n->key.kind;
	if (pfs_kind_is_staging(k))
		return 0; /* changes behind the kernel's back (a conversion) */
	return k == PFS_K_SRC_DIR || k == PFS_K_FILE ? PFS_SOURCE_TIMEOUT : PFS_FILE_TIMEOUT;
}

/* The node and stat of a SOURCE child (directory or Parquet file). */
static int src_child(pfs_fs *fs, pfs_src *c, pfs_node **n, struct stat *st)
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
	res r;
	int rc = resolve(fs, parent, true, &r);
	struct fuse_entry_param e;
	memset(&e, 0, sizeof e);
	if (rc)
		goto out;
	pfs_node *n = NULL;
	pfs_pf *pf = r.pf;
	struct stat base = r.base;
	if (parent == FUSE_ROOT_ID && pfs_stg_root(fs) && !strcmp(name, pfs_stg_name(fs))) {
		/* staging/ comes before a SOURCE entry of the same name */
		n = pfs_stg_root(fs);
		rc = pfs_stg_stat(fs, n, &base);
	} else if (r.n->key.kind == PFS_K_STG_DIR) {
		rc = pfs_stg_lookup(fs, r.n, name, &n, &base);
	} else if (r.n->key.kind == PFS_K_SRC_DIR) {
		pfs_src *c;
		rc = pfs_src_lookup(fs, r.n->src, parent, name, &c);
		if (rc == 0)
			rc = src_child(fs, c, &n, &base);
	} else {
		pfs_key k;
		rc = pfs_tree_lookup(fs, pf, &r.dir, name, &k);
		if (rc == 0 && !(n = pfs_inode_get(fs->inodes, &k, r.n->src)))
			rc = -ENOMEM;
	}
	if (rc)
		goto out;
	bool in_file = n->key.kind != PFS_K_SRC_DIR && n->key.kind != PFS_K_FILE &&
		       !pfs_kind_is_staging((pfs_kind)n->key.kind);
	make_attr(fs, n, in_file ? pf : NULL, &base, &e.attr);
	e.ino = n->ino;
	e.attr_timeout = e.entry_timeout = timeout_of(n);
out:
	res_done(&r);
	if (rc == -ENOENT) {
		/* a negative entry, cached as long as the directory's entries */
		e.ino = 0;
		e.entry_timeout = r.n ? timeout_of(r.n) : PFS_SOURCE_TIMEOUT;
		if (r.n && r.n->key.kind == PFS_K_SRC_DIR)
			e.entry_timeout = PFS_SOURCE_TIMEOUT;
		if (r.n && r.n->key.kind == PFS_K_STG_DIR)
			e.entry_timeout = 0;
		fuse_reply_entry(req, &e);
		return;
	}
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_entry(req, &e);
}

static void pfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_fs *fs = fs_of(req);
	pfs_node *sn = stg_node(fs, ino);
	if (sn) {
		pfs_stg_getattr(req, sn, fi);
		return;
	}
	res r;
	int rc = resolve(fs, ino, false, &r);
	if (rc) {
		res_done(&r);
		fuse_reply_err(req, -rc);
		return;
	}
	struct stat st;
	make_attr(fs, r.n, r.pf, &r.base, &st);
	double t = timeout_of(r.n);
	res_done(&r);
	fuse_reply_attr(req, &st, t);
}

/* ---- directories ------------------------------------------------------------------------ */

typedef struct dent {
	char *name;
	pfs_node *n;
	pfs_src *src; /* SOURCE children: to stat for readdirplus */
} dent;

/* An open directory. The listing is made on the first readdir, not at
 * opendir: with cache_readdir the kernel often needs none. */
typedef struct dirh {
	pfs_live live;        /* first: the list of open handles */
	pthread_mutex_t lock;
	bool listed;
	dent *v;
	size_t n, cap;
	pfs_fs *fs;
	pfs_node *self;
	pfs_key dir;
	pfs_pf *pf;
	struct stat base;
} dirh;

static int dir_add(dirh *d, const char *name, pfs_node *n, pfs_src *src)
{
	if (!n)
		return -ENOMEM;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 32;
		dent *v = realloc(d->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	d->v[d->n++] = (dent){copy, n, src};
	return 0;
}

static int add_src(void *arg, const char *name, pfs_src *c)
{
	dirh *d = arg;
	pfs_key k = pfs_key_make(c->id, c->is_file ? PFS_K_FILE : PFS_K_SRC_DIR, 0, 0, 0);
	return dir_add(d, name, pfs_inode_get(d->fs->inodes, &k, c), c);
}

/* The mount root: staging/ first, then SOURCE without an entry of its name. */
static int add_root(void *arg, const char *name, pfs_src *c)
{
	dirh *d = arg;
	if (!strcmp(name, pfs_stg_name(d->fs)))
		return 0;
	return add_src(arg, name, c);
}

static int add_stg(void *arg, const char *name, pfs_node *n)
{
	return dir_add(arg, name, n, NULL);
}

static int add_tree(void *arg, const char *name, const pfs_key *k)
{
	dirh *d = arg;
	return dir_add(d, name, pfs_inode_get(d->fs->inodes, k, d->self->src), NULL);
}

static void dirh_free(dirh *d)
{
	if (!d)
		return;
	pfs_live_del(d->fs, &d->live);
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
	if (d->pf)
		pfs_pf_unref(d->pf);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static int dir_list(dirh *d)
{
	if (d->listed)
		return 0;
	int rc;
	pfs_node *stg = pfs_stg_root(d->fs);
	if (d->self->key.kind == PFS_K_STG_DIR) {
		rc = pfs_stg_list(d->fs, d->self, add_stg, d);
	} else if (d->self->ino == FUSE_ROOT_ID && stg) {
		rc = dir_add(d, pfs_stg_name(d->fs), stg, NULL);
		if (rc == 0)
			rc = pfs_src_list(d->fs, d->self->src, d->self->ino, add_root, d);
	} else if (d->self->key.kind == PFS_K_SRC_DIR) {
		rc = pfs_src_list(d->fs, d->self->src, d->self->ino, add_src, d);
	} else {
		rc = pfs_tree_list(d->fs, d->pf, &d->dir, add_tree, d);
	}
	if (rc) {
		for (size_t i = 0; i < d->n; i++)
			free(d->v[i].name);
		d->n = 0;
		return rc;
	}
	d->listed = true;
	return 0;
}

static void pfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_fs *fs = fs_of(req);
	res r;
	int rc = resolve(fs, ino, true, &r);
	dirh *d = NULL;
	if (rc)
		goto fail;
	if (!pfs_kind_is_dir((pfs_kind)r.n->key.kind)) {
		rc = -ENOTDIR;
		goto fail;
	}
	if (!(d = calloc(1, sizeof *d))) {
		rc = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&d->lock, NULL);
	d->fs = fs;
	d->self = r.n;
	d->dir = r.dir;
	d->base = r.base;
	if (r.n->key.kind != PFS_K_SRC_DIR && r.n->key.kind != PFS_K_STG_DIR) {
		d->pf = r.pf;
		r.pf = NULL;
		/* the listing of a file generation never changes */
		fi->cache_readdir = 1;
		fi->keep_cache = 1;
	}
	res_done(&r);
	fi->fh = (uint64_t)(uintptr_t)d;
	pfs_live_add(fs, &d->live, PFS_LIVE_DIR);
	if (fuse_reply_open(req, fi) == -ENOENT) /* interrupted: no release will come */
		dirh_free(d);
	return;
fail:
	res_done(&r);
	dirh_free(d);
	fuse_reply_err(req, -rc);
}

static void do_readdir(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi,
		       bool plus)
{
	dirh *d = (dirh *)(uintptr_t)fi->fh;
	pfs_fs *fs = d->fs;
	pthread_mutex_lock(&d->lock);
	int rc = dir_list(d);
	char *buf = rc ? NULL : malloc(size ? size : 1);
	if (!buf) {
		pthread_mutex_unlock(&d->lock);
		fuse_reply_err(req, rc ? -rc : ENOMEM);
		return;
	}
	size_t pos = 0;
	/* offsets: 0 start, 1 after ".", 2 after "..", 2 + i after entry i */
	for (off_t i = off; i < (off_t)d->n + 2; i++) {
		struct fuse_entry_param e;
		memset(&e, 0, sizeof e);
		const char *name;
		if (i < 2) {
			name = i == 0 ? "." : "..";
			e.attr.st_ino = i == 0 ? d->self->ino : FUSE_ROOT_ID;
			e.attr.st_mode = S_IFDIR;
		} else {
			dent *de = &d->v[i - 2];
			name = de->name;
			if (plus) {
				struct stat base = d->base;
				pfs_node *n = de->n;
				if (pfs_kind_is_staging((pfs_kind)n->key.kind) &&
				    pfs_stg_stat(fs, n, &base))
					continue; /* gone since listed */
				if (de->src) {
					pfs_node *cn;
					if (src_child(fs, de->src, &cn, &base))
						continue; /* vanished since opendir */
				}
				bool in_file = n->key.kind != PFS_K_SRC_DIR &&
					       n->key.kind != PFS_K_FILE &&
					       !pfs_kind_is_staging((pfs_kind)n->key.kind);
				make_attr(fs, n, in_file ? d->pf : NULL, &base, &e.attr);
				e.ino = n->ino;
				e.attr_timeout = e.entry_timeout = timeout_of(n);
			} else {
				e.attr.st_ino = de->n->ino;
				e.attr.st_mode = pfs_kind_is_dir((pfs_kind)de->n->key.kind) ? S_IFDIR
											       : S_IFREG;
			}
		}
		size_t need = plus ? fuse_add_direntry_plus(req, buf + pos, size - pos, name, &e,
							     i + 1)
				   : fuse_add_direntry(req, buf + pos, size - pos, name, &e.attr,
						       i + 1);
		if (need > size - pos)
			break;
		pos += need;
	}
	pthread_mutex_unlock(&d->lock);
	fuse_reply_buf(req, buf, pos);
	free(buf);
}

static void pfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	(void)ino;
	do_readdir(req, size, off, fi, false);
}

static void pfs_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	(void)ino;
	do_readdir(req, size, off, fi, true);
}

static void pfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dirh_free((dirh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
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

static int open_handle(pfs_fs *fs, handle *h, struct fuse_file_info *fi)
{
	pfs_node *n = h->n;
	pfs_kind kind = (pfs_kind)n->key.kind;
	pfs_pf *pf = h->pf;
	int rc = 0;
	if (kind == PFS_K_FOOTER) {
		if (!pf->f)
			return -EIO;
		pq_bytes b = pq_file_footer_bytes(pf->f);
		h->type = H_MEM;
		h->p = b.p;
		h->len = b.n;
	} else if (kind == PFS_K_CHUNK_BIN || kind == PFS_K_PAGE_RAW) {
		h->type = H_RANGE;
		rc = pfs_content_range(fs, pf, &n->key, &h->base, &h->len);
	} else if (pfs_kind_is_stream(kind)) {
		h->type = H_STREAM;
		if (kind == PFS_K_CHUNK_VALUES || kind == PFS_K_CHUNK_LEVELS) {
			/* exact size: fails here, like its getattr, when undecodable */
			uint64_t sz;
			rc = pfs_chunk_text_size(fs, pf, kind, n->key.rg, n->key.col, &sz);
		}
		if (rc == 0)
			rc = pfs_stream_open(fs, pf, n, &h->stream);
	} else {
		h->type = H_TEXT;
		rc = pfs_content_text(fs, pf, &n->key, &h->text);
		if (rc == 0) {
			const pfs_text *t = pfs_cobj_obj(h->text);
			h->p = t->p;
			h->len = t->len;
			if (kind == PFS_K_VERIFY)
				pfs_node_set_size(fs, n, t->len);
		}
	}
	if (rc)
		return rc;
	/* An aggregate is read around the page cache: its st_size was 0 until
	 * rendered, and the kernel may still hold that size (the invalidation
	 * is asynchronous) when this open comes; direct_io reads are not cut
	 * at st_size. The rest is cached across opens: it cannot change within
	 * a file generation. */
	if (pfs_kind_is_aggregate(kind))
		fi->direct_io = 1;
	else
		fi->keep_cache = 1;
	fi->noflush = 1;
	return 0;
}

static void pfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_fs *fs = fs_of(req);
	pfs_node *sn = stg_node(fs, ino);
	if (sn) {
		pfs_stg_open(req, sn, fi);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EROFS);
		return;
	}
	res r;
	int rc = resolve(fs, ino, true, &r);
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
		rc = open_handle(fs, h, fi);
		if (rc == 0 && !h->pf->f && h->n->key.kind != PFS_K_FILE_ERROR)
			rc = -EIO;
	}
	if (rc) {
		r.pf = h ? h->pf : r.pf;
		if (h)
			h->pf = NULL;
		handle_free(fs, h);
		res_done(&r);
		fuse_reply_err(req, -rc);
		return;
	}
	res_done(&r);
	fi->fh = (uint64_t)(uintptr_t)h;
	pfs_live_add(fs, &h->live, PFS_LIVE_FILE);
	if (fuse_reply_open(req, fi) == -ENOENT) /* interrupted */
		handle_free(fs, h);
}

void pfs_ops_free_live(pfs_fs *fs)
{
	for (;;) {
		pthread_mutex_lock(&fs->live_lock);
		pfs_live *l = fs->live.next;
		pthread_mutex_unlock(&fs->live_lock);
		if (l == &fs->live)
			return;
		if (l->what == PFS_LIVE_DIR)
			dirh_free((dirh *)(void *)l);
		else if (l->what == PFS_LIVE_FILE)
			handle_free(fs, (handle *)(void *)l);
		else
			pfs_stg_handle_drop(fs, l);
	}
}

/* Replies with the bytes of one read. Replies point into the handle (its
 * text, its stream's window): once written, the kernel may release the
 * handle on another thread, so pfs_read holds a reference meanwhile. */
static void read_reply(fuse_req_t req, handle *h, size_t size, uint64_t o)
{
	if (h->type == H_TEXT || h->type == H_MEM) {
		size_t n = o >= h->len ? 0 : (size_t)(h->len - o < size ? h->len - o : size);
		fuse_reply_buf(req, n ? (const char *)h->p + o : NULL, n);
		return;
	}
	/* bytes read from the source now must be the bytes the handle opened */
	int rc = pfs_pf_still_valid(h->pf);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	if (h->type == H_RANGE) {
		size_t n = o >= h->len ? 0 : (size_t)(h->len - o < size ? h->len - o : size);
		pfs_pf_reply_range(req, h->pf, h->base + o, n);
		return;
	}
	/* straight from the stream's window, under its lock */
	const uint8_t *buf;
	size_t got;
	rc = pfs_stream_read(h->stream, o, size, &buf, &got);
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_buf(req, (const char *)buf, got);
	pfs_stream_read_done(h->stream);
}

static void pfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	handle *h = (handle *)(uintptr_t)fi->fh;
	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	pfs_fs *fs = fs_of(req); /* req is gone once replied to */
	if (stg_node(fs, ino)) {
		pfs_stg_read(req, size, off, fi);
		return;
	}
	atomic_fetch_add(&h->refs, 1);
	read_reply(req, h, size, (uint64_t)off);
	if (atomic_fetch_sub(&h->refs, 1) == 1)
		handle_free(fs, h);
}

static void pfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	handle *h = (handle *)(uintptr_t)fi->fh;
	pfs_fs *fs = fs_of(req);
	if (stg_node(fs, ino)) {
		pfs_stg_release(req, fi);
		return;
	}
	fuse_reply_err(req, 0);
	if (atomic_fetch_sub(&h->refs, 1) == 1)
		handle_free(fs, h);
}

static void pfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	pfs_fs *fs = fs_of(req);
	struct statvfs sv;
	memset(&sv, 0, sizeof sv);
	/* with staging/, the space is SOURCE's (df, and tools that check it) */
	if (!fs->staging || pfs_source_statfs(fs, &sv) != 0) {
		memset(&sv, 0, sizeof sv);
		sv.f_bsize = sv.f_frsize = 4096;
	}
	sv.f_namemax = 255;
	sv.f_flag = ST_NOSUID | ST_NODEV | (fs->staging ? 0 : ST_RDONLY);
	fuse_reply_statfs(req, &sv);
}

/* ---- everything that would change the tree: staging/ only, else read-only ---------- */

static void rofs(fuse_req_t req)
{
	fuse_reply_err(req, EROFS);
}

static void pfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			struct fuse_file_info *fi)
{
	pfs_node *sn = stg_node(fs_of(req), ino);
	if (sn)
		pfs_stg_setattr(req, sn, attr, to_set, fi);
	else
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
	pfs_node *sn = stg_node(fs_of(req), parent);
	if (sn && sn->key.kind == PFS_K_STG_DIR)
		pfs_stg_mkdir(req, sn, name, mode);
	else
		rofs(req);
}

static void pfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_node *sn = stg_node(fs_of(req), parent);
	if (sn && sn->key.kind == PFS_K_STG_DIR)
		pfs_stg_unlink(req, sn, name);
	else
		rofs(req);
}

static void pfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_node *sn = stg_node(fs_of(req), parent);
	if (sn && sn->key.kind == PFS_K_STG_DIR)
		pfs_stg_rmdir(req, sn, name);
	else
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
	(void)name, (void)newname, (void)flags;
	/* Nothing is renamed in staging/: a staged file is published by its
	 * close, not by a name. EXDEV makes mv copy (and so convert) instead. */
	pfs_fs *fs = fs_of(req);
	if (stg_node(fs, parent) || stg_node(fs, newparent))
		fuse_reply_err(req, EXDEV);
	else
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
	pfs_node *sn = stg_node(fs_of(req), parent);
	if (sn && sn->key.kind == PFS_K_STG_DIR)
		pfs_stg_create(req, sn, name, mode, fi);
	else
		rofs(req);
}

static void pfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	if (stg_node(fs_of(req), ino))
		pfs_stg_write(req, buf, size, off, fi);
	else
		rofs(req);
}

/* Only staging handles ask for flushes (the others are opened noflush). */
static void pfs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (stg_node(fs_of(req), ino))
		pfs_stg_flush(req, fi);
	else
		fuse_reply_err(req, 0);
}

static void pfs_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	if (stg_node(fs_of(req), ino))
		pfs_stg_fsync(req, datasync, fi);
	else
		fuse_reply_err(req, 0);
}

static void pfs_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			 size_t size, int flags)
{
	(void)name, (void)value, (void)size, (void)flags;
	/* staged files keep no extended attributes (cp -p then uses chmod) */
	if (stg_node(fs_of(req), ino))
		fuse_reply_err(req, ENOTSUP);
	else
		rofs(req);
}

static void pfs_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	(void)name;
	if (stg_node(fs_of(req), ino))
		fuse_reply_err(req, ENOTSUP);
	else
		rofs(req);
}

static void pfs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* Binary ranges are spliced from the source file when the kernel can. */
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_SPLICE_MOVE)
		conn->want |= FUSE_CAP_SPLICE_MOVE;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* the tree changes only by generations, which we invalidate ourselves */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
}

static const struct fuse_lowlevel_ops pfs_ops = {
	.init = pfs_init,
	.lookup = pfs_lookup,
	.getattr = pfs_getattr,
	.setattr = pfs_setattr,
	.mknod = pfs_mknod,
	.mkdir = pfs_mkdir,
	.unlink = pfs_unlink,
	.rmdir = pfs_rmdir,
	.symlink = pfs_symlink,
	.rename = pfs_rename,
	.link = pfs_link,
	.open = pfs_open,
	.read = pfs_read,
	.write = pfs_write,
	.flush = pfs_flush,
	.fsync = pfs_fsync,
	.release = pfs_release,
	.opendir = pfs_opendir,
	.readdir = pfs_readdir,
	.readdirplus = pfs_readdirplus,
	.releasedir = pfs_releasedir,
	.statfs = pfs_statfs,
	.setxattr = pfs_setxattr,
	.removexattr = pfs_removexattr,
	.create = pfs_create,
};

const struct fuse_lowlevel_ops *pfs_ll_ops(void)
{
	return &pfs_ops;
}
