/* staging/: the writable folder of the mount (interface.md, "Staging").
 *
 * staging/ and its sub-directories map to SOURCE's directories: a
 * directory of staging/ lists the sub-directories of SOURCE (and of the
 * store), the staged files (.csv .tsv .schema .parquet), temporary files
 * (staging_names.c) and .error files. Staged bytes go straight to the
 * store (staging_store.c); nothing is kept in memory but a little state
 * per name.
 *
 * Conversion is triggered by a close: the FUSE flush that comes when the
 * process that opened the file closes a descriptor (other processes that
 * wrote through it gone) converts the file when it has been written,
 * created or truncated since the last conversion and no other handle has
 * it open for writing, so close() (and `cp`'s exit status) reports the
 * outcome. A file that only a later release sees as finished (its opener
 * closed first, or flushes raced) is converted at that release; its
 * outcome is then only in `.error`. A failed write is remembered: the
 * next close fails with its errno and converts nothing. A write after a
 * conversion through a descriptor still open (dup) stages the file again,
 * so the next close publishes the whole file as it then is.
 *
 * Entries here change behind the kernel's back (a conversion removes the
 * staged file), so their entry and attribute timeouts are 0. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "staging_internal.h"

#define NBUCKETS 4096
#define STG_OTHERS 4 /* other writers of one handle told apart */
/* A staged name leaves room for the store's suffixes and the temporary
 * name of its target (".NAME.parquet.tmp-PID-N"). */
#define NAME_LIMIT (NAME_MAX - 48)

typedef struct stg_handle {
	pfs_live live;  /* first: the mount's list of open handles */
	stg_ent *e;
	int fd;
	bool writable;
	bool temp;      /* a temporary name: kept, never converted */
	bool in_place;  /* opened without O_TRUNC or O_APPEND (rsync --inplace) */
	uint64_t gen;   /* e->gen when opened: a later gen means another file */
	pid_t opener;   /* the process that opened it (0: unknown): its close converts */
	pid_t others[STG_OTHERS]; /* other processes that wrote through it, not closed */
	bool others_lost; /* more than fit: only the release converts */
} stg_handle;

/* Another process wrote through h, or (closed) its close came: the
 * opener's close converts only when none is left. e->lock held. */
static void other_writer(stg_handle *h, pid_t who, bool closed)
{
	for (int i = 0; i < STG_OTHERS; i++) {
		if (h->others[i] == who) {
			if (closed)
				h->others[i] = 0;
			return;
		}
	}
	for (int i = 0; !closed && i < STG_OTHERS; i++) {
		if (!h->others[i]) {
			h->others[i] = who;
			return;
		}
	}
	h->others_lost |= !closed;
}

static bool others_hold(const stg_handle *h)
{
	for (int i = 0; i < STG_OTHERS; i++)
		if (h->others[i])
			return true;
	return h->others_lost;
}

pfs_staging *stg_of(fuse_req_t req)
{
	return ((pfs_fs *)fuse_req_userdata(req))->staging;
}

/* The caller of req: staging acts with their rights (pfs_source.h). */
void stg_cred_of(fuse_req_t req, pfs_cred *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	memset(c, 0, sizeof *c);
	c->uid = ctx->uid;
	c->gid = ctx->gid;
	int n = fuse_req_getgroups(req, PFS_CRED_GROUPS, c->groups);
	c->ngroups = n < 0 ? 0 : n > PFS_CRED_GROUPS ? PFS_CRED_GROUPS : n;
}

/* Whether c could write the target of the staged name rel in SOURCE:
 * asked before a file is staged, so nothing is accepted that could never
 * be published (publishing asks again). */
int stg_may_stage(pfs_staging *s, const char *rel, const pfs_cred *c)
{
	char trel[PATH_MAX];
	void *be;
	const pfs_publish_ops *pub = pfs_source_publish(s->fs, &be);
	if (!pub)
		return -EROFS;
	int rc = stg_target_rel_of(s, rel, trel, sizeof trel);
	return rc ? rc : pub->may_write(be, trel, c);
}

/* ---- names ------------------------------------------------------------------------ */

static uint64_t rel_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 1099511628211u;
	}
	return h;
}

stg_ent *stg_ent_get(pfs_staging *s, const char *rel)
{
	size_t b = rel_hash(rel) & (s->nbuckets - 1);
	pthread_mutex_lock(&s->lock);
	stg_ent *e = s->by_rel[b];
	while (e && strcmp(e->rel, rel))
		e = e->next_rel;
	if (!e && (e = calloc(1, sizeof *e)) && !(e->rel = strdup(rel))) {
		free(e);
		e = NULL;
	} else if (e && !e->id) {
		e->id = pfs_fs_new_id(s->fs);
		const char *slash = strrchr(e->rel, '/');
		e->name = slash ? slash + 1 : e->rel;
		pthread_mutex_init(&e->lock, NULL);
		e->next_rel = s->by_rel[b];
		s->by_rel[b] = e;
		size_t bi = (size_t)e->id & (s->nbuckets - 1);
		e->next_id = s->by_id[bi];
		s->by_id[bi] = e;
	}
	pthread_mutex_unlock(&s->lock);
	return e;
}

/* The entry of rel when one is kept, else NULL (nothing is made). */
stg_ent *stg_ent_find(pfs_staging *s, const char *rel)
{
	size_t b = rel_hash(rel) & (s->nbuckets - 1);
	pthread_mutex_lock(&s->lock);
	stg_ent *e = s->by_rel[b];
	while (e && strcmp(e->rel, rel))
		e = e->next_rel;
	pthread_mutex_unlock(&s->lock);
	return e;
}

static stg_ent *ent_by_id(pfs_staging *s, uint64_t id)
{
	pthread_mutex_lock(&s->lock);
	stg_ent *e = s->by_id[(size_t)id & (s->nbuckets - 1)];
	while (e && e->id != id)
		e = e->next_id;
	pthread_mutex_unlock(&s->lock);
	return e;
}

pfs_node *stg_node_of(pfs_staging *s, stg_ent *e, pfs_kind kind)
{
	pfs_key k = pfs_key_make(e->id, kind, 0, 0, 0);
	return pfs_inode_get(s->fs->inodes, &k, NULL);
}

stg_ent *stg_ent_of_node(pfs_staging *s, const pfs_node *n)
{
	return ent_by_id(s, n->key.gen);
}

/* Attributes of a staging name, from what is on disk now. */
static int stat_rel(pfs_staging *s, const char *rel, pfs_kind kind, fuse_ino_t ino,
		    struct stat *st)
{
	char p[PATH_MAX];
	int rc;
	if (kind == PFS_K_STG_DIR) {
		/* SOURCE's directory, or only the store's (SOURCE's removed) */
		if (pfs_source_stat(s->fs, rel, st) == 0 && S_ISDIR(st->st_mode))
			goto got;
		rc = stg_store_path(s, rel, NULL, p, sizeof p);
	} else {
		rc = stg_store_path(s, rel, NULL, p, sizeof p);
	}
	if (rc)
		return rc;
	if (stat(p, st) != 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
got:
	if (kind == PFS_K_STG_DIR && !S_ISDIR(st->st_mode))
		return -ENOENT;
	if (kind != PFS_K_STG_DIR && !S_ISREG(st->st_mode))
		return -ENOENT;
	if (kind == PFS_K_STG_ERROR) /* the staged file's mode (.progress: 0444) */
		st->st_mode = S_IFREG | (st->st_mode & 0666);
	if (kind == PFS_K_STG_FILE) /* cp and friends write in blocks of this size */
		st->st_blksize = PFS_STG_WRITE_BLOCK;
	st->st_ino = ino;
	st->st_nlink = kind == PFS_K_STG_DIR ? 2 : 1;
	return 0;
}

int pfs_stg_stat(pfs_fs *fs, pfs_node *n, struct stat *st)
{
	pfs_staging *s = fs->staging;
	stg_ent *e = s ? stg_ent_of_node(s, n) : NULL;
	if (!e)
		return -ESTALE;
	return stat_rel(s, e->rel, (pfs_kind)n->key.kind, n->ino, st);
}

pfs_node *pfs_stg_root(pfs_fs *fs)
{
	return fs->staging ? fs->staging->root : NULL;
}

const char *pfs_stg_name(const pfs_fs *fs)
{
	return fs->opts->staging ? fs->opts->staging : PFS_DEFAULT_STAGING;
}

/* What `name` in the staging directory dir_ent is: an .error, a staged
 * file, or a directory (of SOURCE or of the store). */
int stg_lookup_ent(pfs_staging *s, stg_ent *dir, const char *name, pfs_node **out,
		   struct stat *st)
{
	char rel[PATH_MAX];
	int rc = stg_join(dir->rel, name, rel, sizeof rel);
	if (rc)
		return rc;
	/* a directory, or a temporary file; hidden directories of SOURCE are
	 * never shown */
	pfs_kind kinds[2] = {PFS_K_STG_DIR, PFS_K_STG_FILE};
	if (stg_error_base(name) || stg_progress_base(name))
		kinds[0] = PFS_K_STG_ERROR, kinds[1] = PFS_K_NONE; /* ours, read-only */
	else if (stg_reserved(name))
		return -ENOENT; /* the store's own names */
	else if (stg_type_of(name) != STG_T_NONE)
		kinds[0] = PFS_K_STG_FILE, kinds[1] = PFS_K_STG_DIR;
	else if (name[0] == '.')
		kinds[0] = PFS_K_STG_FILE, kinds[1] = PFS_K_NONE;
	/* nothing is remembered of a name that does not exist */
	for (int i = 0; i < 2 && kinds[i] != PFS_K_NONE; i++) {
		if (stat_rel(s, rel, kinds[i], 0, st))
			continue;
		stg_ent *e = stg_ent_get(s, rel);
		pfs_node *n = e ? stg_node_of(s, e, kinds[i]) : NULL;
		if (!n)
			return -ENOMEM;
		st->st_ino = n->ino;
		*out = n;
		return 0;
	}
	return -ENOENT;
}

int pfs_stg_lookup(pfs_fs *fs, pfs_node *dir, const char *name, pfs_node **out,
		   struct stat *st)
{
	pfs_staging *s = fs->staging;
	stg_ent *d = stg_ent_of_node(s, dir);
	return d ? stg_lookup_ent(s, d, name, out, st) : -ESTALE;
}

/* ---- listing ------------------------------------------------------------------------ */

/* An entry of a staging directory, named and of a kind, to fn. */
static int list_entry(pfs_staging *s, stg_ent *d, const char *name, pfs_kind kind,
		      pfs_stg_list_fn fn, void *ctx)
{
	char rel[PATH_MAX];
	if (stg_join(d->rel, name, rel, sizeof rel))
		return 0;
	stg_ent *e = stg_ent_get(s, rel);
	pfs_node *n = e ? stg_node_of(s, e, kind) : NULL;
	return n ? fn(ctx, name, n) : -ENOMEM;
}

typedef struct {
	pfs_staging *s;
	stg_ent *d;
	pfs_stg_list_fn fn;
	void *ctx;
} list_ctx;

/* SOURCE's sub-directories (from its backend) are staging/'s. */
static int list_source_one(void *ctx, const char *name, const struct stat *st,
			   const pq_identity *id)
{
	(void)id;
	list_ctx *l = ctx;
	if (name[0] == '.' || !S_ISDIR(st->st_mode))
		return 0;
	return list_entry(l->s, l->d, name, PFS_K_STG_DIR, l->fn, l->ctx);
}

/* The store's directories that SOURCE lacks, and the staged files. */
static int list_store(pfs_staging *s, stg_ent *d, const char *path, pfs_stg_list_fn fn,
		      void *ctx)
{
	DIR *dh = opendir(path);
	if (!dh)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(dh))) {
		const char *name = de->d_name;
		struct stat st;
		if ((name[0] == '.' && stg_reserved(name)) || fstatat(dirfd(dh), name, &st, 0) != 0)
			continue;
		pfs_kind kind = PFS_K_NONE;
		if (S_ISDIR(st.st_mode) && name[0] != '.') {
			/* a directory of both SOURCE and the store is listed once */
			char rel[PATH_MAX];
			struct stat sst;
			if (stg_join(d->rel, name, rel, sizeof rel) == 0 &&
			    pfs_source_stat(s->fs, rel, &sst) == 0 && S_ISDIR(sst.st_mode))
				continue;
			kind = PFS_K_STG_DIR;
		} else if (S_ISREG(st.st_mode)) {
			if (stg_error_base(name) || stg_progress_base(name))
				kind = PFS_K_STG_ERROR;
			else if (stg_type_of(name) != STG_T_NONE || stg_temp_name(name))
				kind = PFS_K_STG_FILE; /* staged, or temporary */
		}
		if (kind != PFS_K_NONE)
			rc = list_entry(s, d, name, kind, fn, ctx);
	}
	closedir(dh);
	return rc;
}

int pfs_stg_list(pfs_fs *fs, pfs_node *dir, pfs_stg_list_fn fn, void *ctx)
{
	pfs_staging *s = fs->staging;
	stg_ent *d = stg_ent_of_node(s, dir);
	if (!d)
		return -ESTALE;
	char tp[PATH_MAX];
	int rc = stg_store_path(s, d->rel, NULL, tp, sizeof tp);
	if (rc)
		return rc;
	list_ctx l = {s, d, fn, ctx};
	rc = pfs_source_list(fs, d->rel, list_source_one, &l);
	if (rc == -ENOENT || rc == -ENOTDIR)
		rc = 0; /* only the store has it (SOURCE's was removed) */
	if (rc == 0 && stg_store_check(s, false) != 0)
		return 0; /* no store (or not ours: never listed) */
	return rc ? rc : list_store(s, d, tp, fn, ctx);
}

/* ---- handles ------------------------------------------------------------------------ */

void stg_reply_entry(fuse_req_t req, pfs_node *n, const struct stat *st)
{
	struct fuse_entry_param ep;
	memset(&ep, 0, sizeof ep);
	ep.ino = n->ino;
	ep.attr = *st;
	fuse_reply_entry(req, &ep);
}

/* Bytes file identity: a new inode under the name is a new generation;
 * handles of the old one no longer count as its writers. The generation
 * is the inode number: it cannot be reused while a handle holds the old
 * inode open, and 0 means no file. */
void stg_adopt_file(pfs_staging *s, stg_ent *e, const struct stat *st)
{
	if ((uint64_t)st->st_ino == e->gen)
		return;
	if (e->converted) {
		/* the old, published bytes: their handles keep them, unnamed */
		char done[PATH_MAX];
		if (stg_store_path(s, e->rel, STG_MARK_DONE, done, sizeof done) == 0)
			(void)unlink(done);
		e->converted = false;
	}
	stg_ahead_drop(s, e);
	e->gen = (uint64_t)st->st_ino;
	e->writers = 0;
	e->dirty = e->written = false;
}

/* The bytes changed: an old .error no longer describes them. */
static int touch_dirty(pfs_staging *s, stg_ent *e, bool written)
{
	if (e->converted) {
		/* written again through a descriptor kept open after the
		 * conversion: the file is staged again, whole */
		char p[PATH_MAX], done[PATH_MAX];
		if (stg_store_path(s, e->rel, NULL, p, sizeof p) == 0 &&
		    stg_store_path(s, e->rel, STG_MARK_DONE, done, sizeof done) == 0 &&
		    rename(done, p) != 0)
			return -errno;
		e->converted = false;
	}
	if (!e->dirty || e->empty_told) {
		stg_error_remove(s, e->rel);
		stg_retry_mark(s, e->rel, false);
	}
	e->empty_told = false;
	if (!written)
		e->write_err = 0; /* created or truncated: the old bytes are gone */
	e->dirty = true;
	e->written |= written;
	return e->writers > 0 ? stg_marker_set(s, e) : 0;
}

/* Opens store path p; with create, makes it when missing and gives what
 * it made to c (when the daemon may: staged files belong to their writer,
 * who can then remove them from a sticky directory). */
static int open_store_file(const char *p, int oflags, int flags, mode_t mode, const pfs_cred *c)
{
	if (!c)
		return open(p, oflags, 0);
	int fd = open(p, oflags | O_CREAT | O_EXCL, mode & 0666);
	if (fd < 0 && errno == EEXIST && !(flags & O_EXCL))
		return open(p, oflags, 0);
	/* the mode asked for (the caller's umask applied by the kernel), not
	 * narrowed by the daemon's: the published file takes it */
	if (fd >= 0)
		(void)fchmod(fd, mode & 0777);
	if (fd >= 0 && geteuid() == 0 && c->uid != 0 && fchown(fd, c->uid, c->gid) != 0) {
		int e = errno;
		close(fd);
		(void)unlink(p);
		errno = e;
		return -1;
	}
	return fd;
}

/* With creator (a create), the file is made for creator when missing. */
static int open_staged(pfs_staging *s, stg_ent *e, pfs_kind kind, int flags, mode_t mode,
		       const pfs_cred *creator, stg_handle **out, struct stat *st)
{
	bool create = creator != NULL;
	*out = NULL;
	char p[PATH_MAX];
	int rc = stg_store_path(s, e->rel, NULL, p, sizeof p);
	if (rc)
		return rc;
	bool writable = (flags & O_ACCMODE) != O_RDONLY;
	if (kind == PFS_K_STG_ERROR && (writable || (flags & O_TRUNC)))
		return -EACCES;
	if ((rc = stg_store_check(s, false)) != 0) /* never through someone's link */
		return rc;
	if (create && (rc = pfs_local_mkdirs_for(p)))
		return rc;
	stg_handle *h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	h->e = e;
	h->writable = writable;
	h->temp = kind == PFS_K_STG_FILE && stg_temp_name(e->name);
	/* an appender (`>>`) never touches its name up after the close, and
	 * its next `>>` must create the name anew */
	h->in_place = !(flags & (O_TRUNC | O_APPEND));
	int oflags = O_CLOEXEC | O_NOFOLLOW | (writable ? O_RDWR : O_RDONLY);
	/* readers need no state: they never wait for a conversion */
	bool locked = kind == PFS_K_STG_FILE && writable && !h->temp;
	if (locked)
		pthread_mutex_lock(&e->lock);
	h->fd = open_store_file(p, oflags, flags, mode, creator);
	if (h->fd < 0 || fstat(h->fd, st) != 0) {
		rc = -errno;
		goto fail;
	}
	if (creator) {
		e->owner = *creator;
		e->has_owner = true;
	}
	if (h->temp && writable && (flags & O_TRUNC) && ftruncate(h->fd, 0) != 0) {
		rc = -errno;
		goto fail;
	}
	if (locked) {
		stg_adopt_file(s, e, st);
		h->gen = e->gen;
		e->writers++;
		if ((flags & O_TRUNC) && ftruncate(h->fd, 0) != 0) {
			rc = -errno;
			e->writers--;
			goto fail;
		}
		if (flags & O_TRUNC)
			stg_append_forget(s, e->rel); /* a whole CSV now */
		rc = create || (flags & O_TRUNC) ? touch_dirty(s, e, false) : stg_marker_set(s, e);
		if (rc) {
			e->writers--;
			goto fail;
		}
		(void)fstat(h->fd, st);
		stg_ahead_arm(s, e, (uint64_t)st->st_size);
	}
	if (locked)
		pthread_mutex_unlock(&e->lock);
	*out = h;
	return 0;
fail:
	if (locked)
		pthread_mutex_unlock(&e->lock);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
	return rc;
}

/* The last reference of a handle: a writer's release may convert. */
static void handle_close(pfs_staging *s, stg_handle *h)
{
	pfs_live_del(s->fs, &h->live);
	stg_ent *e = h->e;
	if (h->writable && !h->temp) {
		pthread_mutex_lock(&e->lock);
		if (h->gen == e->gen && e->writers > 0 && --e->writers == 0) {
			if (e->dirty && !e->converted) {
				(void)stg_finish(s, e, h->fd, false);
				stg_ahead_drop(s, e);
			} else if (e->converted) {
				char done[PATH_MAX];
				if (stg_store_path(s, e->rel, STG_MARK_DONE, done, sizeof done) == 0)
					(void)unlink(done);
				e->converted = false;
				stg_append_forget(s, e->rel);
			}
			stg_marker_clear(s, e);
			stg_ahead_drop(s, e);
		}
		pthread_mutex_unlock(&e->lock);
	}
	close(h->fd);
	free(h);
}

/* A handle left at exit: its descriptor closed, no conversion (a remount
 * finds the file and converts it or says it was never closed). */
static void handle_drop(pfs_fs *fs, pfs_live *l)
{
	stg_handle *h = (stg_handle *)(void *)l;
	pfs_live_del(fs, l);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

/* A byte below 0x20 or 0x7F in a name: a newline would forge log lines
 * and break the one-line .error, the others confuse terminals. */
static bool has_control(const char *name)
{
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return true;
	return false;
}

bool stg_valid_new_name(const char *name, bool dir, int *rc)
{
	*rc = 0;
	if (strlen(name) > NAME_LIMIT)
		*rc = -ENAMETOOLONG;
	else if (has_control(name))
		*rc = -EINVAL;
	else if (dir ? name[0] == '.' : stg_reserved(name))
		*rc = -EINVAL; /* hidden directories, and the store's own names */
	return *rc == 0;
}

void pfs_stg_create(fuse_req_t req, pfs_node *dir, const char *name, mode_t mode,
		    struct fuse_file_info *fi)
{
	pfs_staging *s = stg_of(req);
	stg_ent *d = stg_ent_of_node(s, dir), *e = NULL;
	char rel[PATH_MAX];
	int rc;
	if (!d)
		rc = -ESTALE;
	else if (stg_valid_new_name(name, false, &rc) &&
		 (rc = stg_join(d->rel, name, rel, sizeof rel)) == 0 && !(e = stg_ent_get(s, rel)))
		rc = -ENOMEM;
	pfs_cred cred;
	stg_cred_of(req, &cred);
	if (rc == 0 && !stg_temp_name(name)) /* a temporary name publishes nothing */
		rc = stg_may_stage(s, rel, &cred);
	if (rc == 0 && (rc = stg_store_check(s, true)) != 0)
		pfs_log(LOG_ERR, "staging: %s is not the daemon's own directory (%s): nothing is staged",
			s->store, strerror(-rc));
	stg_handle *h = NULL;
	struct stat st;
	int app = rc == 0 ? stg_append_begin(s, e, fi->flags, &cred) : 0; /* `>>` */
	if (app < 0)
		rc = app;
	if (rc == 0)
		rc = open_staged(s, e, PFS_K_STG_FILE, fi->flags, mode, &cred, &h, &st);
	if (rc && app > 0)
		stg_append_forget(s, rel);
	pfs_node *n = rc == 0 ? stg_node_of(s, e, PFS_K_STG_FILE) : NULL;
	if (rc == 0 && !n) {
		handle_close(s, h);
		rc = -ENOMEM;
	}
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	st.st_ino = n->ino;
	struct fuse_entry_param ep;
	memset(&ep, 0, sizeof ep);
	ep.ino = n->ino;
	ep.attr = st;
	h->opener = stg_tgid(fuse_req_ctx(req)->pid);
	fi->fh = (uint64_t)(uintptr_t)h;
	pfs_live_add(s->fs, &h->live, handle_drop);
	if (fuse_reply_create(req, &ep, fi) == -ENOENT) /* interrupted */
		handle_close(s, h);
}

void pfs_stg_open(fuse_req_t req, pfs_node *n, struct fuse_file_info *fi)
{
	pfs_staging *s = stg_of(req);
	stg_ent *e = stg_ent_of_node(s, n);
	pfs_kind kind = (pfs_kind)n->key.kind;
	int rc = !e ? -ESTALE : kind == PFS_K_STG_DIR ? -EISDIR : 0;
	stg_handle *h = NULL;
	struct stat st;
	if (rc == 0)
		rc = open_staged(s, e, kind, fi->flags, 0, NULL, &h, &st);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	h->opener = stg_tgid(fuse_req_ctx(req)->pid);
	fi->fh = (uint64_t)(uintptr_t)h;
	pfs_live_add(s->fs, &h->live, handle_drop);
	if (fuse_reply_open(req, fi) == -ENOENT)
		handle_close(s, h);
}

void pfs_stg_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	stg_handle *h = (stg_handle *)(uintptr_t)fi->fh;
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(size);
	bv.buf[0].flags = (enum fuse_buf_flags)(FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK);
	bv.buf[0].fd = h->fd;
	bv.buf[0].pos = off;
	fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE);
}

void pfs_stg_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	pfs_staging *s = stg_of(req);
	stg_handle *h = (stg_handle *)(uintptr_t)fi->fh;
	stg_ent *e = h->e;
	if (!h->writable || off < 0) {
		fuse_reply_err(req, EBADF);
		return;
	}
	int rc = 0;
	pid_t tid = fuse_req_ctx(req)->pid;
	pthread_mutex_lock(&e->lock);
	/* a handle of a replaced or removed file writes to its own bytes only */
	if (!h->temp && h->gen == e->gen &&
	    (!e->written || e->converted || !e->marker || e->empty_told))
		rc = touch_dirty(s, e, true);
	/* another process writing through the opener's file: the opener's
	 * close waits for it (pfs_stg_flush) */
	pid_t who;
	if (h->opener && tid && tid != h->opener && (who = stg_tgid(tid)) && who != h->opener)
		other_writer(h, who, false);
	pthread_mutex_unlock(&e->lock);
	size_t done = 0;
	while (rc == 0 && done < size) {
		ssize_t n = pwrite(h->fd, buf + done, size - done, off + (off_t)done);
		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (rc) {
		/* remembered: the close that follows fails with it (ENOSPC, EIO) */
		pthread_mutex_lock(&e->lock);
		if (h->gen == e->gen && !e->write_err)
			e->write_err = -rc;
		if (h->gen == e->gen)
			stg_ahead_drop(s, e);
		pthread_mutex_unlock(&e->lock);
		fuse_reply_err(req, -rc);
	} else {
		pthread_mutex_lock(&e->lock); /* (writes are up to 1 MiB: one lock is nothing) */
		if (h->gen == e->gen && !h->temp)
			stg_ahead_wrote(s, e, h->fd, (uint64_t)off, done);
		pthread_mutex_unlock(&e->lock);
		fuse_reply_write(req, done);
	}
}

void pfs_stg_flush(fuse_req_t req, struct fuse_file_info *fi)
{
	pfs_staging *s = stg_of(req);
	stg_handle *h = (stg_handle *)(uintptr_t)fi->fh;
	stg_ent *e = h->e;
	int rc = 0;
	if (h->writable && !h->temp) {
		/* Every close(2) of a descriptor sends a flush, from the closing
		 * process. The file converts at the close of the process that
		 * opened it, once no other process that wrote through it is
		 * still holding it (`{ head; tail; } > x.csv`); else at the
		 * release, the last close. The others' closes publish nothing. */
		pid_t tid = fuse_req_ctx(req)->pid;
		pid_t who = tid == h->opener ? tid : stg_tgid(tid);
		pthread_mutex_lock(&e->lock);
		bool mine = !h->opener || !who || who == h->opener;
		struct stat st;
		if (!mine)
			other_writer(h, who, true);
		/* dirty, not only written: an empty file closes with EINVAL */
		if (mine && !others_hold(h) && h->gen == e->gen && e->dirty && !e->converted &&
		    e->writers == 1) {
			if (!e->written && fstat(h->fd, &st) == 0 && st.st_size == 0) {
				rc = stg_empty_told(s, e);
			} else {
				rc = stg_finish(s, e, h->fd, true);
				stg_ahead_drop(s, e);
				/* a file rewritten in place may have its times and
				 * mode set by name next (rsync --inplace) */
				if (rc == 0 && h->in_place && fstat(h->fd, &st) == 0)
					stg_gone_set(e, who, &st);
			}
		}
		pthread_mutex_unlock(&e->lock);
	}
	fuse_reply_err(req, -rc);
}

void pfs_stg_fsync(fuse_req_t req, int datasync, struct fuse_file_info *fi)
{
	stg_handle *h = (stg_handle *)(uintptr_t)fi->fh;
	int rc = (datasync ? fdatasync(h->fd) : fsync(h->fd)) == 0 ? 0 : errno;
	fuse_reply_err(req, rc);
}

void pfs_stg_release(fuse_req_t req, struct fuse_file_info *fi)
{
	pfs_staging *s = stg_of(req);
	stg_handle *h = (stg_handle *)(uintptr_t)fi->fh;
	handle_close(s, h);
	fuse_reply_err(req, 0);
}

void pfs_stg_getattr(fuse_req_t req, pfs_node *n, struct fuse_file_info *fi)
{
	pfs_fs *fs = fuse_req_userdata(req);
	struct stat st;
	int rc = pfs_stg_stat(fs, n, &st);
	stg_ent *e = rc && !fi && n->key.kind == PFS_K_STG_FILE ? stg_ent_of_node(fs->staging, n) : NULL;
	if (e && (rc = stg_gone_stat(e, stg_tgid(fuse_req_ctx(req)->pid), &st)) == 0)
		st.st_ino = n->ino; /* published a moment ago by the caller's close */
	if (rc && fi && n->key.kind == PFS_K_STG_FILE) {
		/* an open file already published (its bytes are hidden) */
		stg_handle *h = (stg_handle *)(uintptr_t)fi->fh;
		rc = fstat(h->fd, &st) == 0 ? 0 : -errno;
		st.st_ino = n->ino;
	}
	if (rc)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_attr(req, &st, 0);
}

void pfs_stg_setattr(fuse_req_t req, pfs_node *n, struct stat *attr, int to_set,
		     struct fuse_file_info *fi)
{
	pfs_staging *s = stg_of(req);
	stg_ent *e = stg_ent_of_node(s, n);
	pfs_kind kind = (pfs_kind)n->key.kind;
	stg_handle *h = fi ? (stg_handle *)(uintptr_t)fi->fh : NULL;
	char p[PATH_MAX];
	int rc = !e ? -ESTALE : stg_store_path(s, e->rel, NULL, p, sizeof p);
	/* directories are SOURCE's and .error files ours: their attributes
	 * stay; a staged file takes size, mode and times (cp -p) */
	if (rc == 0 && kind == PFS_K_STG_ERROR && (to_set & FUSE_SET_ATTR_SIZE))
		rc = -EPERM;
	struct stat gst;
	if (rc == 0 && !h && kind == PFS_K_STG_FILE && access(p, F_OK) != 0 &&
	    stg_gone_stat(e, stg_tgid(fuse_req_ctx(req)->pid), &gst) == 0) {
		/* its writer's touch-up after the close that published it
		 * (rsync --inplace sets times and mode by name): nothing to do */
		gst.st_ino = n->ino;
		fuse_reply_attr(req, &gst, 0);
		return;
	}
	if (rc == 0 && kind == PFS_K_STG_FILE && (to_set & FUSE_SET_ATTR_SIZE)) {
		pthread_mutex_lock(&e->lock);
		bool temp = stg_temp_name(e->name);
		if (!temp)
			stg_ahead_drop(s, e); /* the bytes it read may go */
		if ((h ? ftruncate(h->fd, attr->st_size) : truncate(p, attr->st_size)) != 0)
			rc = -errno;
		else if (!temp && (!h || h->gen == e->gen))
			rc = touch_dirty(s, e, false);
		if (rc == 0 && attr->st_size == 0 && (!h || h->gen == e->gen))
			stg_append_forget(s, e->rel); /* emptied: a whole CSV now */
		pthread_mutex_unlock(&e->lock);
	}
	if (rc == 0 && kind == PFS_K_STG_FILE && (to_set & FUSE_SET_ATTR_MODE) &&
	    (h ? fchmod(h->fd, attr->st_mode & 07777) : chmod(p, attr->st_mode & 07777)) != 0)
		rc = -errno;
	if (rc == 0 && kind == PFS_K_STG_FILE &&
	    (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME))) {
		struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
		if (to_set & FUSE_SET_ATTR_ATIME_NOW)
			ts[0].tv_nsec = UTIME_NOW;
		else if (to_set & FUSE_SET_ATTR_ATIME)
			ts[0] = attr->st_atim;
		if (to_set & FUSE_SET_ATTR_MTIME_NOW)
			ts[1].tv_nsec = UTIME_NOW;
		else if (to_set & FUSE_SET_ATTR_MTIME)
			ts[1] = attr->st_mtim;
		if ((h ? futimens(h->fd, ts) : utimensat(AT_FDCWD, p, ts, 0)) != 0)
			rc = -errno;
	}
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	pfs_stg_getattr(req, n, fi);
}

/* ---- life cycle ---------------------------------------------------------------------- */

pq_status pfs_staging_new(pfs_fs *fs, pfs_staging **out, pq_error *err)
{
	*out = NULL;
	pfs_staging *s = calloc(1, sizeof *s);
	if (!s)
		return pq_fail(err, PQ_ENOMEM, "no memory");
	s->fs = fs;
	s->nbuckets = NBUCKETS;
	pthread_mutex_init(&s->lock, NULL);
	for (size_t i = 0; i < STG_TARGET_LOCKS; i++)
		pthread_mutex_init(&s->target_locks[i], NULL);
	/* The store: under SOURCE, or for a remote SOURCE under spool_dir in
	 * a folder of its URL, so a later mount of it (with the same
	 * spool_dir) finds and finishes what a crash left there. */
	char remote[64] = "";
	const char *base = fs->opts->source_abs;
	if (fs->opts->source_kind != PFS_SRC_LOCAL) {
		if (!fs->opts->spool_dir) {
			pfs_staging_free(s);
			return pq_fail(err, PQ_EINVAL, "staging on %s needs -o spool_dir=DIR (or "
				       "HOME or XDG_CACHE_HOME), or -o ro", base);
		}
		snprintf(remote, sizeof remote, "/%016llx",
			 (unsigned long long)XXH3_64bits(base, strlen(base)));
		base = fs->opts->spool_dir;
	}
	size_t n = strlen(base) + strlen(remote) + sizeof "/" STG_STORE;
	s->store = malloc(n);
	s->by_rel = calloc(s->nbuckets, sizeof *s->by_rel);
	s->by_id = calloc(s->nbuckets, sizeof *s->by_id);
	if (!s->store || !s->by_rel || !s->by_id) {
		pfs_staging_free(s);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	snprintf(s->store, n, "%s%s/%s", base, remote, remote[0] ? "staging" : STG_STORE);
	if (remote[0]) {
		int rc = pfs_local_mkdirs_for(s->store);
		if (rc) {
			pq_fail(err, PQ_EIO, "spool_dir %s: %s", base, strerror(-rc));
			pfs_staging_free(s);
			return err->status;
		}
	}
	/* Encryption keys are resolved per file at conversion
	 * (staging_publish.c), as key_file sections depend on the path. */
	s->wopts = fs->opts->write;
	s->root_ent = stg_ent_get(s, "");
	s->root = s->root_ent ? stg_node_of(s, s->root_ent, PFS_K_STG_DIR) : NULL;
	if (!s->root) {
		pfs_staging_free(s);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	*out = s;
	return PQ_OK;
}

int pfs_staging_start(pfs_staging *s)
{
	int rc = pthread_create(&s->recovery, NULL, stg_recovery_run, s);
	s->recovery_started = rc == 0;
	return -rc;
}

void pfs_staging_free(pfs_staging *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	if (s->recovery_started)
		pthread_join(s->recovery, NULL);
	for (size_t i = 0; s->by_rel && i < s->nbuckets; i++) {
		for (stg_ent *e = s->by_rel[i], *next; e; e = next) {
			next = e->next_rel;
			stg_ahead_drop(s, e);
			pthread_mutex_destroy(&e->lock);
			free(e->rel);
			free(e);
		}
	}
	for (size_t i = 0; i < STG_TARGET_LOCKS; i++)
		pthread_mutex_destroy(&s->target_locks[i]);
	pthread_mutex_destroy(&s->lock);
	free(s->by_rel);
	free(s->by_id);
	free(s->store);
	free(s);
}
