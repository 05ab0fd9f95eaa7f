/* staging/ as a layer around the read-only operations (as sshfs wraps its
 * cache around next_oper): each operation on an inode of staging/ (or a
 * name in one of its directories) is handled by staging.c; every other
 * one goes to the next table unchanged, which refuses changes with EROFS.
 *
 * At the mount root, staging/ is the first entry and hides a SOURCE entry
 * of the same name. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>

#include "staging_internal.h"

static pfs_fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static const struct fuse_lowlevel_ops *next_of(fuse_req_t req)
{
	return fs_of(req)->staging->next;
}

/* The node of ino when it belongs to staging/, else NULL. */
static pfs_node *stg_node(fuse_req_t req, fuse_ino_t ino)
{
	pfs_node *n = pfs_inode_by_ino(fs_of(req)->inodes, ino);
	return n && pfs_kind_is_staging((pfs_kind)n->key.kind) ? n : NULL;
}

/* A directory of staging/, where names are created and removed. */
static pfs_node *stg_dir(fuse_req_t req, fuse_ino_t ino)
{
	pfs_node *n = stg_node(req, ino);
	return n && n->key.kind == PFS_K_STG_DIR ? n : NULL;
}

static void stg_init(void *userdata, struct fuse_conn_info *conn)
{
	pfs_fs *fs = userdata;
	if (fs->staging->next->init)
		fs->staging->next->init(userdata, conn);
}

/* Entries here change behind the kernel's back (a conversion removes a
 * staged file): entry and attribute timeouts are 0, negative ones too. */
static void stg_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_fs *fs = fs_of(req);
	pfs_node *dir = stg_node(req, parent), *n = NULL;
	bool root = parent == FUSE_ROOT_ID && !strcmp(name, pfs_stg_name(fs));
	if (!dir && !root) {
		next_of(req)->lookup(req, parent, name);
		return;
	}
	struct fuse_entry_param e;
	memset(&e, 0, sizeof e);
	int rc;
	if (root) {
		n = pfs_stg_root(fs);
		rc = pfs_stg_stat(fs, n, &e.attr);
	} else if ((rc = pfs_stg_stat(fs, dir, &e.attr)) == 0) {
		rc = dir->key.kind == PFS_K_STG_DIR ? pfs_stg_lookup(fs, dir, name, &n, &e.attr)
						    : -ENOTDIR;
	}
	if (rc == -ENOENT && !root) /* published a moment ago by the caller's close */
		rc = pfs_stg_gone_lookup(req, dir, name, &n, &e.attr);
	if (rc == 0)
		e.ino = n->ino;
	if (rc == 0 || rc == -ENOENT)
		fuse_reply_entry(req, &e);
	else
		fuse_reply_err(req, -rc);
}

static void stg_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_node *n = stg_node(req, ino);
	if (n)
		pfs_stg_getattr(req, n, fi);
	else
		next_of(req)->getattr(req, ino, fi);
}

static void stg_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			struct fuse_file_info *fi)
{
	pfs_node *n = stg_node(req, ino);
	if (n)
		pfs_stg_setattr(req, n, attr, to_set, fi);
	else
		next_of(req)->setattr(req, ino, attr, to_set, fi);
}

static void stg_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	pfs_node *dir = stg_dir(req, parent);
	if (dir)
		pfs_stg_mkdir(req, dir, name, mode);
	else
		next_of(req)->mkdir(req, parent, name, mode);
}

static void stg_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_node *dir = stg_dir(req, parent);
	if (dir)
		pfs_stg_unlink(req, dir, name);
	else
		next_of(req)->unlink(req, parent, name);
}

static void stg_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	pfs_node *dir = stg_dir(req, parent);
	if (dir)
		pfs_stg_rmdir(req, dir, name);
	else
		next_of(req)->rmdir(req, parent, name);
}

static void stg_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	/* In staging/, a temporary file renamed (staging_names.c); into or
	 * out of it nothing is: EXDEV makes mv copy (and so convert). */
	pfs_node *dir = stg_dir(req, parent), *newdir = stg_dir(req, newparent);
	if (dir && newdir)
		pfs_stg_rename(req, dir, name, newdir, newname, flags);
	else if (stg_node(req, parent) || stg_node(req, newparent))
		fuse_reply_err(req, EXDEV);
	else
		next_of(req)->rename(req, parent, name, newparent, newname, flags);
}

static void stg_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		       struct fuse_file_info *fi)
{
	pfs_node *dir = stg_dir(req, parent);
	if (dir)
		pfs_stg_create(req, dir, name, mode, fi);
	else
		next_of(req)->create(req, parent, name, mode, fi);
}

static void stg_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_node *n = stg_node(req, ino);
	if (n)
		pfs_stg_open(req, n, fi);
	else
		next_of(req)->open(req, ino, fi);
}

static void stg_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	if (off >= 0 && stg_node(req, ino))
		pfs_stg_read(req, size, off, fi);
	else
		next_of(req)->read(req, ino, size, off, fi);
}

static void stg_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	if (stg_node(req, ino))
		pfs_stg_write(req, buf, size, off, fi);
	else
		next_of(req)->write(req, ino, buf, size, off, fi);
}

static void stg_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (stg_node(req, ino))
		pfs_stg_flush(req, fi);
	else
		next_of(req)->flush(req, ino, fi);
}

static void stg_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	if (stg_node(req, ino))
		pfs_stg_fsync(req, datasync, fi);
	else
		next_of(req)->fsync(req, ino, datasync, fi);
}

static void stg_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (stg_node(req, ino))
		pfs_stg_release(req, fi);
	else
		next_of(req)->release(req, ino, fi);
}

/* ---- directories: the read-only table's handles, with this layer's listing ---------- */

static int entry_attr(pfs_fs *fs, pfs_node *n, struct stat *st, double *timeout)
{
	*timeout = 0;
	return pfs_stg_stat(fs, n, st);
}

static int add_entry(void *d, const char *name, pfs_node *n)
{
	return pfs_dir_add(d, name, n);
}

static int list_dir(pfs_fs *fs, pfs_node *self, pfs_dirh *d)
{
	return pfs_stg_list(fs, self, add_entry, d);
}

/* The mount root: staging/ first, then SOURCE without an entry of its name. */
static int list_root(pfs_fs *fs, pfs_node *self, pfs_dirh *d)
{
	(void)self;
	int rc = pfs_dir_add(d, pfs_stg_name(fs), pfs_stg_root(fs));
	return rc ? rc : pfs_dir_add_source(d, pfs_stg_name(fs));
}

static void stg_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	pfs_node *n = stg_node(req, ino);
	struct stat st;
	int rc;
	if (ino == FUSE_ROOT_ID)
		pfs_opendir_with(req, ino, fi, list_root, entry_attr);
	else if (!n)
		next_of(req)->opendir(req, ino, fi);
	else if ((rc = pfs_stg_stat(fs_of(req), n, &st)) != 0)
		fuse_reply_err(req, -rc); /* gone since looked up */
	else
		pfs_opendir_with(req, ino, fi, list_dir, entry_attr);
}

/* Stateless readdir (dirs.c): the listing of this layer's directories. */
static void stg_readdir_any(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi, bool plus)
{
	if (ino == FUSE_ROOT_ID)
		pfs_readdir_with(req, ino, size, off, fi, plus, list_root, entry_attr);
	else if (stg_node(req, ino))
		pfs_readdir_with(req, ino, size, off, fi, plus, list_dir, entry_attr);
	else if (plus)
		next_of(req)->readdirplus(req, ino, size, off, fi);
	else
		next_of(req)->readdir(req, ino, size, off, fi);
}

static void stg_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	stg_readdir_any(req, ino, size, off, fi, false);
}

static void stg_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	stg_readdir_any(req, ino, size, off, fi, true);
}

/* With staging/, the space is SOURCE's (df, and tools that check it). */
static void stg_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct statvfs sv;
	/* the space is SOURCE's (df, and tools that check it), from its backend */
	if (pfs_source_statfs(fs_of(req), &sv) != 0) {
		memset(&sv, 0, sizeof sv);
		sv.f_bsize = sv.f_frsize = 4096;
	}
	sv.f_namemax = 255;
	sv.f_flag = ST_NOSUID | ST_NODEV;
	fuse_reply_statfs(req, &sv);
}

/* Staged files keep no extended attributes (cp -p then uses chmod). */
static void stg_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			 size_t size, int flags)
{
	if (stg_node(req, ino))
		fuse_reply_err(req, ENOTSUP);
	else
		next_of(req)->setxattr(req, ino, name, value, size, flags);
}

static void stg_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	if (stg_node(req, ino))
		fuse_reply_err(req, ENOTSUP);
	else
		next_of(req)->removexattr(req, ino, name);
}

/* What staging/ adds to or changes in the next table; the rest of it
 * (releasedir, mknod, symlink, link ...) is taken as it is. */
static void wrap(struct fuse_lowlevel_ops *o)
{
	o->init = stg_init;
	o->lookup = stg_lookup;
	o->getattr = stg_getattr;
	o->setattr = stg_setattr;
	o->mkdir = stg_mkdir;
	o->unlink = stg_unlink;
	o->rmdir = stg_rmdir;
	o->rename = stg_rename;
	o->create = stg_create;
	o->open = stg_open;
	o->read = stg_read;
	o->write = stg_write;
	o->flush = stg_flush;
	o->fsync = stg_fsync;
	o->release = stg_release;
	o->opendir = stg_opendir;
	o->readdir = stg_readdir;
	o->readdirplus = stg_readdirplus;
	o->statfs = stg_statfs;
	o->setxattr = stg_setxattr;
	o->removexattr = stg_removexattr;
}

const struct fuse_lowlevel_ops *pfs_stg_ops(pfs_staging *s, const struct fuse_lowlevel_ops *next)
{
	s->next = next;
	s->ops = *next;
	wrap(&s->ops);
	return &s->ops;
}
