/* Directory listings: READDIR and READDIRPLUS, with or without OPENDIR.
 *
 * An `ls -lR` of a file with thousands of row groups is a walk of over
 * 100,000 directories, and every request the kernel sends us costs a round
 * trip (two context switches) whatever we do with it. The kernel can list
 * a directory from its own cache, but it still sends OPENDIR and
 * RELEASEDIR for every open unless OPENDIR was once answered ENOSYS: it
 * then never sends either again and caches every listing itself
 * (FOPEN_KEEP_CACHE | FOPEN_CACHE_DIR). So where the kernel offers that
 * (FUSE_CAP_NO_OPENDIR_SUPPORT), we take it:
 *
 *  - readdir is stateless: it gets no handle. A listing is made at offset
 *    0 and kept in a small cache for the requests that follow; the offsets
 *    we hand out name the listing (its snapshot number in the high 32
 *    bits), so a reader that continues after another one started a new
 *    listing of the same directory continues in its own.
 *  - A Parquet file's directories never change within a generation (a new
 *    generation has new inodes): the kernel keeps them, and one listing of
 *    each serves every later walk without a request.
 *  - SOURCE's directories and a layer's (staging/) change behind the
 *    kernel's back: once a listing of one has been read to its end, the
 *    kernel's copy is invalidated (from the notify thread), so the next
 *    listing asks us again, as it did when every open sent OPENDIR.
 *
 * Older kernels get the handles they always had: OPENDIR makes the listing
 * (the same structure), READDIR reads it, RELEASEDIR frees it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "kinds.h"

#define DIRS_SLOTS 16 /* listings kept for stateless readdir */

typedef struct dent {
	char *name;
	pfs_node *n;
	pfs_src *src; /* SOURCE children: to stat for readdirplus */
	bool layer;   /* a layer's entry: attributes from the handle's attr */
} dent;

struct pfs_dirh {
	pfs_live live;        /* first: the list of open handles (OPENDIR's) */
	atomic_int refs;      /* the handle or cache slot, and readers */
	pthread_mutex_t lock;
	bool listed;
	bool fixed;           /* a file's directory: the listing never changes */
	uint32_t snap;        /* its number in offsets (0: an OPENDIR handle's) */
	dent *v;
	size_t n, cap;
	pfs_fs *fs;
	pfs_node *self;
	fuse_ino_t ino;
	pfs_key dir;
	pfs_pf *pf;
	struct stat base;
	pfs_dir_list_fn list; /* a layer's listing (NULL: SOURCE's or the file's) */
	pfs_dir_attr_fn attr; /* ... and its entries' attributes */
	const char *hide;     /* a SOURCE name the layer shows instead */
};
typedef pfs_dirh dirh;

struct pfs_dirs {
	pthread_mutex_t lock;
	dirh *slot[DIRS_SLOTS];
	uint64_t used[DIRS_SLOTS]; /* LRU ticks */
	uint64_t tick;
	uint32_t next_snap;
};

static pfs_fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static int dir_add(dirh *d, const char *name, pfs_node *n, pfs_src *src, bool layer)
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
	d->v[d->n++] = (dent){copy, n, src, layer};
	return 0;
}

int pfs_dir_add(pfs_dirh *d, const char *name, pfs_node *n)
{
	return dir_add(d, name, n, NULL, true);
}

static int add_src(void *arg, const char *name, pfs_src *c)
{
	dirh *d = arg;
	if (d->hide && !strcmp(name, d->hide))
		return 0;
	pfs_key k = pfs_key_make(c->id, c->is_file ? PFS_K_FILE : PFS_K_SRC_DIR, 0, 0, 0);
	return dir_add(d, name, pfs_inode_get(d->fs->inodes, &k, c), c, false);
}

int pfs_dir_add_source(pfs_dirh *d, const char *hide)
{
	d->hide = hide;
	return pfs_src_list(d->fs, d->self->src, d->self->ino, add_src, d);
}

static int add_tree(void *arg, const char *name, const pfs_key *k)
{
	dirh *d = arg;
	return dir_add(d, name, pfs_inode_get(d->fs->inodes, k, d->self->src), NULL, false);
}

static void dirh_free(dirh *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
	if (d->pf)
		pfs_pf_unref(d->pf);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static void dirh_unref(dirh *d)
{
	if (d && atomic_fetch_sub(&d->refs, 1) == 1)
		dirh_free(d);
}

/* An OPENDIR handle whose RELEASEDIR never came (at exit). */
static void dirh_drop(pfs_fs *fs, pfs_live *l)
{
	pfs_live_del(fs, l);
	dirh_unref((dirh *)(void *)l);
}

static int dir_list(dirh *d)
{
	if (d->listed)
		return 0;
	int rc;
	if (d->list)
		rc = d->list(d->fs, d->self, d);
	else if (d->self->key.kind == PFS_K_SRC_DIR)
		rc = pfs_dir_add_source(d, NULL);
	else
		rc = pfs_tree_list(d->fs, d->pf, &d->dir, add_tree, d);
	if (rc) {
		for (size_t i = 0; i < d->n; i++)
			free(d->v[i].name);
		d->n = 0;
		return rc;
	}
	d->listed = true;
	atomic_fetch_add(&d->fs->listings, 1);
	return 0;
}

/* A listing of the resolved directory r, not made yet (dir_list does that
 * under its lock); takes r's file reference. */
static dirh *dirh_of(pfs_fs *fs, fuse_ino_t ino, pfs_res *r, pfs_dir_list_fn list,
		     pfs_dir_attr_fn attr)
{
	dirh *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	atomic_init(&d->refs, 1);
	pthread_mutex_init(&d->lock, NULL);
	d->fs = fs;
	d->self = r->n;
	d->ino = ino;
	d->dir = r->dir;
	d->base = r->base;
	d->list = list;
	d->attr = attr;
	/* the listing of a file generation never changes */
	d->fixed = r->pf != NULL;
	d->pf = r->pf;
	r->pf = NULL;
	return d;
}

static int dir_resolve(pfs_fs *fs, fuse_ino_t ino, pfs_res *r)
{
	int rc = pfs_resolve(fs, ino, true, r);
	if (rc == 0 && !pfs_kind_is_dir((pfs_kind)r->n->key.kind))
		rc = -ENOTDIR;
	if (rc)
		pfs_res_done(r);
	return rc;
}

void pfs_opendir_with(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		      pfs_dir_list_fn list, pfs_dir_attr_fn attr)
{
	pfs_fs *fs = fs_of(req);
	if (fs->no_opendir) {
		pfs_reply_err(req, ENOSYS); /* once: the kernel sends no more */
		return;
	}
	pfs_res r;
	int rc = dir_resolve(fs, ino, &r);
	dirh *d = rc ? NULL : dirh_of(fs, ino, &r, list, attr);
	if (!rc)
		pfs_res_done(&r);
	if (!d) {
		pfs_reply_err(req, rc ? -rc : ENOMEM);
		return;
	}
	if (d->fixed) {
		fi->cache_readdir = 1;
		fi->keep_cache = 1;
	}
	fi->fh = (uint64_t)(uintptr_t)d;
	atomic_fetch_add(&fs->dir_opens, 1);
	pfs_live_add(fs, &d->live, dirh_drop);
	if (fuse_reply_open(req, fi) == -ENOENT) { /* interrupted: no release will come */
		pfs_live_del(fs, &d->live);
		dirh_unref(d);
	}
}

void pfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dirh *d = (dirh *)(uintptr_t)fi->fh;
	if (d) {
		pfs_live_del(d->fs, &d->live);
		dirh_unref(d);
	}
	pfs_reply_err(req, 0);
}

/* ---- the listing cache of stateless readdir ----------------------------------------- */

pfs_dirs *pfs_dirs_new(void)
{
	pfs_dirs *c = calloc(1, sizeof *c);
	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

void pfs_dirs_free(pfs_dirs *c)
{
	if (!c)
		return;
	for (int i = 0; i < DIRS_SLOTS; i++)
		dirh_unref(c->slot[i]);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* The listing a stateless readdir of ino at off continues (a reference).
 * At offset 0 the directory is resolved (a file's directory may have a
 * new generation) and a file generation's listing is reused; SOURCE's and
 * a layer's are made anew. Further on, the listing the offset names, or
 * a new one when it is no longer kept. */
static int dirs_get(pfs_fs *fs, fuse_ino_t ino, off_t off, pfs_dir_list_fn list,
		    pfs_dir_attr_fn attr, dirh **out)
{
	pfs_dirs *c = fs->dirs;
	uint32_t snap = (uint32_t)((uint64_t)off >> 32);
	pfs_res r;
	memset(&r, 0, sizeof r);
	if (off == 0) {
		int rc = dir_resolve(fs, ino, &r);
		if (rc)
			return rc;
	}
	pthread_mutex_lock(&c->lock);
	for (int i = 0; i < DIRS_SLOTS; i++) {
		dirh *d = c->slot[i];
		if (!d || d->ino != ino)
			continue;
		if (off ? d->snap == snap
			: d->fixed && r.pf == d->pf && pfs_key_eq(&r.dir, &d->dir)) {
			c->used[i] = ++c->tick;
			atomic_fetch_add(&d->refs, 1);
			*out = d;
			pthread_mutex_unlock(&c->lock);
			pfs_res_done(&r);
			return 0;
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (off != 0) {
		int rc = dir_resolve(fs, ino, &r);
		if (rc)
			return rc;
	}
	dirh *d = dirh_of(fs, ino, &r, list, attr);
	pfs_res_done(&r);
	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&c->lock);
	if (++c->next_snap >= (1u << 31)) /* offsets stay positive */
		c->next_snap = 1;
	d->snap = c->next_snap;
	int lru = 0;
	for (int i = 1; i < DIRS_SLOTS; i++)
		if (c->used[i] < c->used[lru])
			lru = i;
	dirh *old = c->slot[lru];
	c->slot[lru] = d;
	c->used[lru] = ++c->tick;
	atomic_fetch_add(&d->refs, 1); /* the slot's and ours */
	pthread_mutex_unlock(&c->lock);
	dirh_unref(old);
	*out = d;
	return 0;
}

/* ---- readdir ------------------------------------------------------------------------ */

/* The entry's attributes for READDIRPLUS; false: leave it out (gone). */
static bool plus_attr(dirh *d, dent *de, struct fuse_entry_param *e)
{
	pfs_fs *fs = d->fs;
	struct stat base = d->base;
	pfs_node *n = de->n;
	e->ino = n->ino;
	double t = pfs_attr_timeout(n);
	pfs_node *cn;
	if (de->layer) {
		if (d->attr(fs, n, &e->attr, &t))
			return false; /* gone since listed */
	} else if (de->src && pfs_src_child(fs, de->src, &cn, &base)) {
		return false; /* vanished since listed */
	} else if (pfs_in_file(n) && !pfs_content_size_ready(fs, d->pf, n)) {
		/* Its size costs a size pass, which a listing (ls, find) must
		 * not: no attributes (ino 0), the kernel looks it up when a
		 * stat asks. */
		e->ino = 0;
		e->attr.st_ino = n->ino;
		e->attr.st_mode = S_IFREG;
	} else if (pfs_make_attr(fs, n, pfs_in_file(n) ? d->pf : NULL, &base, &e->attr)) {
		e->ino = 0; /* not measurable now: looked up later */
		e->attr.st_ino = n->ino;
	}
	e->attr_timeout = t;
	e->entry_timeout = de->layer ? t : pfs_entry_timeout(n);
	return true;
}

void pfs_readdir_with(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi, bool plus, pfs_dir_list_fn list,
		      pfs_dir_attr_fn attr)
{
	pfs_fs *fs = fs_of(req);
	dirh *d = (dirh *)(uintptr_t)fi->fh;
	bool held = !d;
	int rc = 0;
	if (off < 0)
		rc = -EINVAL;
	else if (held)
		rc = dirs_get(fs, ino, off, list, attr, &d);
	if (rc) {
		pfs_reply_err(req, -rc);
		return;
	}
	pthread_mutex_lock(&d->lock);
	rc = dir_list(d);
	char *buf = rc ? NULL : malloc(size ? size : 1);
	if (!buf) {
		pthread_mutex_unlock(&d->lock);
		if (held)
			dirh_unref(d);
		pfs_reply_err(req, rc ? -rc : ENOMEM);
		return;
	}
	size_t pos = 0;
	uint64_t snap = (uint64_t)d->snap << 32;
	/* offsets: snapshot in the high half; low half 0 start, 1 after
	 * ".", 2 after "..", 2 + i after entry i */
	uint64_t i = (uint64_t)off & 0xffffffffu;
	for (; i < (uint64_t)d->n + 2; i++) {
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
				if (!plus_attr(d, de, &e))
					continue;
			} else {
				e.attr.st_ino = de->n->ino;
				e.attr.st_mode = pfs_kind_is_dir((pfs_kind)de->n->key.kind) ? S_IFDIR
											       : S_IFREG;
			}
		}
		off_t next = (off_t)(snap | (i + 1));
		size_t need = plus ? fuse_add_direntry_plus(req, buf + pos, size - pos, name, &e,
							     next)
				   : fuse_add_direntry(req, buf + pos, size - pos, name, &e.attr,
						       next);
		if (need > size - pos)
			break;
		pos += need;
	}
	/* The end of a listing that can change, read by a kernel that keeps
	 * it: drop the kernel's copy, so the next listing is made anew. */
	bool stale = held && !d->fixed && pos == 0 && i >= (uint64_t)d->n + 2;
	pthread_mutex_unlock(&d->lock);
	if (held)
		dirh_unref(d);
	fuse_reply_buf(req, buf, pos);
	free(buf);
	if (stale)
		pfs_notify_inode(fs->notify, ino);
}
