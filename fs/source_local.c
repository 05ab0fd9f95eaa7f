/* The local SOURCE backend (pfs_source.h): a directory on this machine,
 * or a single Parquet file. Paths under SOURCE become root/rel; a file is
 * a pq_source over its descriptor (so chunk.bin and raw.bin splice), its
 * identity is device, inode, size and mtime. Publishing writes a
 * temporary file beside the target and renames it over. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <syslog.h>
#include <unistd.h>

#include "parallel.h"
#include "pfs.h"
#include "pfs_source.h"

typedef struct local {
	char *root;            /* absolute */
	atomic_uint tmp_seq;   /* temporary names of publications */
} local;

/* root/rel, or root itself for "". -ENAMETOOLONG when it does not fit. */
static int path_of(const local *l, const char *rel, char *buf, size_t n)
{
	int k = rel[0] ? snprintf(buf, n, "%s/%s", l->root, rel) : snprintf(buf, n, "%s", l->root);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

/* Symbolic links inside SOURCE are never followed (doc/design.md,
 * "Symbolic links"): a link could lead a user of an allow_other mount to a
 * file outside SOURCE, or past a directory they may not search, whose
 * bytes the daemon would serve with only the file's own mode shown. So
 * rel is reached one name at a time from SOURCE with O_NOFOLLOW (a link
 * anywhere on the way fails with ELOOP or ENOTDIR, even one swapped in
 * after the lookup), and listings take links for what they are (lstat),
 * which are neither directories nor files: not shown. SOURCE itself may
 * be a link: the administrator chose it. Returns a descriptor or -errno. */
static int open_beneath(const local *l, const char *rel, int flags)
{
	if (!rel[0]) {
		int fd = open(l->root, flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	char buf[PATH_MAX];
	if (!strchr(rel, '/')) {
		/* a name in SOURCE itself: one open by path, not three calls (a
		 * listing sniffs 10,000 files this way). No directory lies
		 * between SOURCE and the name, and O_NOFOLLOW refuses the name
		 * if it is a link, as the walk's last step does. */
		if (!strcmp(rel, ".") || !strcmp(rel, ".."))
			return -ENOENT;
		if (path_of(l, rel, buf, sizeof buf))
			return -ENAMETOOLONG;
		int fd = open(buf, flags | O_NOFOLLOW | O_CLOEXEC);
		return fd >= 0 ? fd : errno == ELOOP ? -ENOENT : -errno;
	}
	if (strlen(rel) >= sizeof buf)
		return -ENAMETOOLONG;
	snprintf(buf, sizeof buf, "%s", rel);
	int dfd = open(l->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	char *save = NULL, *comp = strtok_r(buf, "/", &save);
	while (comp) {
		char *next = strtok_r(NULL, "/", &save);
		int rc = 0;
		if (!strcmp(comp, ".") || !strcmp(comp, ".."))
			rc = -ENOENT; /* names of the mount never are; never leave SOURCE */
		int fd = rc ? -1
			    : openat(dfd, comp, (next ? O_PATH | O_DIRECTORY : flags) | O_NOFOLLOW |
							O_CLOEXEC);
		if (!rc && fd < 0)
			rc = errno == ELOOP ? -ENOENT : -errno; /* a link: not there */
		close(dfd);
		if (rc)
			return rc;
		if (!next)
			return fd;
		dfd = fd;
		comp = next;
	}
	close(dfd);
	return -ENOENT;
}

/* A listing stats its entries a batch at a time on several threads
 * (parallel.h): in a cold directory each stat may wait for the disk. */
#define LIST_BATCH 1024
#define STAT_THREADS 8
#define STAT_MIN_PER_THREAD 32

typedef struct list_batch {
	int dfd;
	size_t n;
	char *names[LIST_BATCH];
	struct stat st[LIST_BATCH];
	int rc[LIST_BATCH];
} list_batch;

static void stat_one(void *ctx, size_t i)
{
	list_batch *b = ctx;
	b->rc[i] = fstatat(b->dfd, b->names[i], &b->st[i], AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

/* Stats the batch, then hands its directories and regular files to fn in
 * readdir's order (fn's nonzero answer stops it; the names are freed). */
static int list_flush(list_batch *b, int rc, pfs_source_list_fn fn, void *ctx)
{
	if (rc == 0)
		pfs_parallel_for(b->n, STAT_MIN_PER_THREAD, STAT_THREADS, stat_one, b);
	for (size_t i = 0; i < b->n; i++) {
		if (rc == 0 && b->rc[i] == 0 && (S_ISDIR(b->st[i].st_mode) || S_ISREG(b->st[i].st_mode))) {
			pq_identity id;
			pq_identity_of_stat(&b->st[i], &id);
			rc = fn(ctx, b->names[i], &b->st[i], &id);
		}
		free(b->names[i]);
	}
	b->n = 0;
	return rc;
}

static int local_list(void *be, const char *rel, pfs_source_list_fn fn, void *ctx)
{
	int rc = 0;
	int dfd = open_beneath(be, rel, O_RDONLY | O_DIRECTORY);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	list_batch *b = d ? malloc(sizeof *b) : NULL;
	if (!b) {
		rc = dfd < 0 ? dfd : -ENOMEM;
		if (d)
			closedir(d);
		else if (dfd >= 0)
			close(dfd);
		return rc;
	}
	b->dfd = dirfd(d);
	b->n = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* the type readdir knows spares a stat of what is never shown */
		if (de->d_type != DT_UNKNOWN && de->d_type != DT_DIR && de->d_type != DT_REG)
			continue;
		if (!(b->names[b->n] = strdup(de->d_name)))
			rc = -ENOMEM;
		else if (++b->n == LIST_BATCH)
			rc = list_flush(b, 0, fn, ctx);
	}
	rc = list_flush(b, rc, fn, ctx);
	free(b);
	closedir(d);
	return rc;
}

/* Every FUSE request on a Parquet file's tree stats its source (a
 * replaced file is a new generation), so a name in SOURCE itself takes one
 * fstatat by path, not the five calls of a walk: with no directory between
 * SOURCE and the name, there is no link to refuse but the name itself,
 * which AT_SYMLINK_NOFOLLOW shows as a link. SOURCE itself is one stat;
 * deeper names are walked. */
static int local_stat(void *be, const char *rel, struct stat *st, pq_identity *id)
{
	int rc;
	char path[PATH_MAX];
	if (!rel[0]) {
		rc = stat(((local *)be)->root, st) == 0 ? 0 : -errno; /* SOURCE may be a link */
	} else if (!strchr(rel, '/')) {
		if (!strcmp(rel, ".") || !strcmp(rel, ".."))
			return -ENOENT; /* as open_beneath */
		rc = path_of(be, rel, path, sizeof path);
		if (rc == 0)
			rc = fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
	} else {
		int fd = open_beneath(be, rel, O_PATH);
		if (fd < 0)
			return fd;
		rc = fstat(fd, st) == 0 ? 0 : -errno;
		close(fd);
	}
	if (rc == 0 && S_ISLNK(st->st_mode))
		rc = -ENOENT; /* not followed: not there */
	if (rc == 0)
		pq_identity_of_stat(st, id);
	return rc;
}

static int local_sniff(void *be, const char *rel)
{
	int fd = open_beneath(be, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM ? fd : 0;
	char m[PQ_MAGIC_LEN];
	bool ok = pread(fd, m, sizeof m, 0) == (ssize_t)sizeof m && pq_magic_is_parquet(m, sizeof m);
	close(fd);
	return ok;
}

static pq_status local_open(void *be, const char *rel, pq_source **out, pq_error *err)
{
	*out = NULL;
	char path[PATH_MAX];
	const char *name = strrchr(rel[0] ? rel : ((local *)be)->root, '/');
	name = name ? name + 1 : rel;
	if (path_of(be, rel, path, sizeof path))
		return pq_fail(err, PQ_EIO, "%s: cannot open: %s", name, strerror(ENAMETOOLONG));
	int fd = open_beneath(be, rel, O_RDONLY | O_NOCTTY);
	if (fd < 0)
		return pq_fail(err, PQ_EIO, "%s: cannot open: %s", name, strerror(-fd));
	pq_status st = pq_source_fd_new(fd, true, out, err);
	if (st != PQ_OK)
		return pq_context(err, "%s", name);
	return PQ_OK;
}

static int local_statfs(void *be, struct statvfs *sv)
{
	return statvfs(((local *)be)->root, sv) == 0 ? 0 : -errno;
}

static void local_free(void *be)
{
	local *l = be;
	free(l->root);
	free(l);
}

/* ---- publishing ------------------------------------------------------------ */

struct pfs_publish {
	int dfd;                /* the target's directory */
	int fd;                 /* the temporary file */
	pfs_cred cred;          /* whom it is published for */
	char who[NAME_MAX + 1]; /* for messages */
	char rel[PATH_MAX];
	char tmp[NAME_MAX + 1];
	const char *base;       /* the target's name (in rel) */
};

int pfs_local_mkdirs_for(const char *path)
{
	char p[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof p)
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	char *slash = strrchr(p, '/');
	if (!slash || slash == p)
		return 0;
	*slash = '\0';
	struct stat st;
	if (stat(p, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		int rc = mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -errno;
		*q = '/';
		if (rc)
			return rc;
	}
	return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -errno;
}

/* ---- the caller's rights ----------------------------------------------------
 *
 * Staging acts for the user who wrote the staged file: what it does in
 * SOURCE is checked against that user's rights here, from the mode bits as
 * the kernel reads them (POSIX ACLs are not consulted: a right granted
 * only by an ACL is refused). Paths are walked one directory at a time
 * with O_NOFOLLOW, from a descriptor of the directory above, so a link
 * swapped into SOURCE between the check and the rename cannot lead out of
 * it. Root (uid 0) may do everything, as with CAP_DAC_OVERRIDE. */

static bool in_group(const pfs_cred *c, gid_t g)
{
	if (c->gid == g)
		return true;
	for (int i = 0; i < c->ngroups && i < PFS_CRED_GROUPS; i++)
		if (c->groups[i] == g)
			return true;
	return false;
}

/* want: R_OK, W_OK, X_OK bits (4, 2, 1, as in the mode). */
static bool cred_may(const pfs_cred *c, const struct stat *st, int want)
{
	if (c->uid == 0)
		return true;
	unsigned bits = st->st_uid == c->uid ? (st->st_mode >> 6) & 7
		      : in_group(c, st->st_gid) ? (st->st_mode >> 3) & 7
						: st->st_mode & 7;
	return (bits & (unsigned)want) == (unsigned)want;
}

/* Makes what the daemon created belong to c (when the daemon may). */
static int own_at(int dfd, const char *name, const pfs_cred *c)
{
	if (geteuid() != 0 || c->uid == 0)
		return 0;
	return fchownat(dfd, name, c->uid, c->gid, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

/* A descriptor of directory dir of SOURCE ("" for SOURCE itself), walked
 * for c: c searches every directory. A missing directory is made (owned
 * by c, where c may write) when make; otherwise *missing (when not NULL)
 * says so and the deepest existing directory is returned. -errno. */
static int open_dir_as(const local *l, const char *dir, const pfs_cred *c, bool make,
		       bool *missing)
{
	if (missing)
		*missing = false;
	char buf[PATH_MAX];
	if (strlen(dir) >= sizeof buf)
		return -ENAMETOOLONG;
	snprintf(buf, sizeof buf, "%s", dir);
	int fd = open(l->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char *save = NULL;
	for (char *comp = strtok_r(buf, "/", &save);; comp = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int rc = fstat(fd, &st) != 0 ? -errno : !cred_may(c, &st, X_OK) ? -EACCES : 0;
		if (rc) {
			close(fd);
			return rc;
		}
		if (!comp)
			return fd;
		int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && (make || missing)) {
			if (!cred_may(c, &st, W_OK | X_OK)) {
				close(fd);
				return -EACCES;
			}
			if (!make) {
				*missing = true;
				return fd;
			}
			rc = mkdirat(fd, comp, 0755) == 0 || errno == EEXIST ? 0 : -errno;
			if (rc == 0)
				rc = own_at(fd, comp, c);
			if (rc) {
				close(fd);
				return rc;
			}
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int err = errno == ELOOP ? ENOTDIR : errno; /* a link is no directory here */
		close(fd);
		if (nfd < 0)
			return -err;
		fd = nfd;
	}
}

/* Whether c may put a file named base into directory dfd: write and
 * search on the directory; an existing base must be writable by c and, in
 * a sticky directory, c's or the directory's (what unlink(2) asks). */
static int may_replace(int dfd, const char *base, const pfs_cred *c)
{
	struct stat d, t;
	if (fstat(dfd, &d) != 0)
		return -errno;
	if (!cred_may(c, &d, W_OK | X_OK))
		return -EACCES;
	if (fstatat(dfd, base, &t, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(t.st_mode))
		return -EISDIR;
	if ((d.st_mode & S_ISVTX) && c->uid != 0 && c->uid != t.st_uid && c->uid != d.st_uid)
		return -EPERM;
	if (S_ISREG(t.st_mode) && !cred_may(c, &t, W_OK))
		return -EACCES;
	return 0;
}

/* rel split into its directory (in buf) and its last name. */
static int split_rel(const char *rel, char *buf, size_t n, const char **base)
{
	if (strlen(rel) >= n)
		return -ENAMETOOLONG;
	snprintf(buf, n, "%s", rel);
	char *slash = strrchr(buf, '/');
	if (!slash) {
		*base = rel;
		buf[0] = '\0';
	} else {
		*slash = '\0';
		*base = rel + (slash - buf) + 1;
	}
	return **base ? 0 : -EINVAL;
}

static int pub_may_write(void *be, const char *rel, const pfs_cred *c)
{
	char dir[PATH_MAX];
	const char *base;
	bool missing;
	int rc = split_rel(rel, dir, sizeof dir, &base);
	int dfd = rc ? rc : open_dir_as(be, dir, c, false, &missing);
	if (dfd < 0)
		return dfd;
	rc = missing ? 0 : may_replace(dfd, base, c);
	close(dfd);
	return rc;
}

static pq_status pub_begin(void *be, const char *rel, const char *who, const pfs_cred *c,
			   pfs_publish **out, int *fd, pq_error *err)
{
	local *l = be;
	*out = NULL;
	char dir[PATH_MAX];
	const char *base;
	if (split_rel(rel, dir, sizeof dir, &base))
		return pq_fail(err, PQ_EIO, "%s: the target path is too long", who);
	int dfd = open_dir_as(l, dir, c, true, NULL);
	if (dfd < 0)
		return pq_fail(err, PQ_EIO, "%s: cannot create the directory of %s: %s", who, rel,
			       strerror(-dfd));
	int rc = may_replace(dfd, base, c);
	if (rc) {
		close(dfd);
		return pq_fail(err, PQ_EIO, "%s: may not write %s: %s", who, rel, strerror(-rc));
	}
	pfs_publish *p = calloc(1, sizeof *p);
	if (!p) {
		close(dfd);
		return pq_fail(err, PQ_ENOMEM, "%s: no memory", who);
	}
	p->dfd = dfd;
	p->fd = -1;
	p->cred = *c;
	snprintf(p->who, sizeof p->who, "%s", who);
	snprintf(p->rel, sizeof p->rel, "%s", rel);
	const char *b = strrchr(p->rel, '/');
	p->base = b ? b + 1 : p->rel;
	/* A hidden name the listing skips (source.c), locked (flock) while
	 * it is written: recovery removes it once no one holds the lock
	 * (staging_store.c), which the kernel drops with the last descriptor
	 * of a process however it ends; a process id may be alive (a zombie,
	 * a process still exiting, a reused id) long after. Recovery locks a
	 * name before it removes it: a name removed between our create and
	 * our lock has no link left, and another is taken. */
	pq_status st = PQ_OK;
	for (int tries = 0; st == PQ_OK && p->fd < 0; tries++) {
		int k = snprintf(p->tmp, sizeof p->tmp, ".%s.tmp-%ld-%u", p->base, (long)getpid(),
				 atomic_fetch_add(&l->tmp_seq, 1));
		struct stat tst;
		if (k < 0 || (size_t)k >= sizeof p->tmp)
			st = pq_fail(err, PQ_EIO, "%s: the name %s is too long", who, p->base);
		else if ((p->fd = openat(dfd, p->tmp,
					 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					 0666)) < 0 && (errno != EEXIST || tries >= 8))
			st = pq_fail(err, PQ_EIO, "%s: cannot create %s beside %s: %s", who, p->tmp,
				     rel, strerror(errno));
		else if (p->fd >= 0 && flock(p->fd, LOCK_EX) == 0 && fstat(p->fd, &tst) == 0 &&
			 tst.st_nlink == 0) {
			close(p->fd); /* removed by a recovery: another name */
			p->fd = -1;
			if (tries >= 8)
				st = pq_fail(err, PQ_EIO, "%s: cannot keep %s beside %s", who, p->tmp, rel);
		}
	}
	if (st == PQ_OK && (rc = own_at(dfd, p->tmp, c)) != 0)
		st = pq_fail(err, PQ_EIO, "%s: cannot give %s to its writer: %s", who, p->tmp,
			     strerror(-rc));
	if (st != PQ_OK) {
		if (p->fd >= 0) {
			close(p->fd);
			(void)unlinkat(dfd, p->tmp, 0);
		}
		close(dfd);
		free(p);
		return st;
	}
	*out = p;
	*fd = p->fd;
	return PQ_OK;
}

static void pub_abort(pfs_publish *p)
{
	if (p->fd >= 0) {
		close(p->fd);
		(void)unlinkat(p->dfd, p->tmp, 0);
	}
	close(p->dfd);
	free(p);
}

static pq_status pub_commit(pfs_publish *p, pq_error *err)
{
	pq_status st = PQ_OK;
	if (fsync(p->fd) != 0)
		st = pq_fail(err, PQ_EIO, "%s: cannot write %s: %s", p->who, p->rel, strerror(errno));
	int fd = p->fd;
	p->fd = -1;
	int lock = dup(fd); /* the lock held until the rename (a recovery keeps off) */
	if (close(fd) != 0 && st == PQ_OK)
		st = pq_fail(err, PQ_EIO, "%s: cannot write %s: %s", p->who, p->rel, strerror(errno));
	/* SOURCE may have changed while converting (a file put there since) */
	int rc = st == PQ_OK ? may_replace(p->dfd, p->base, &p->cred) : 0;
	if (rc)
		st = pq_fail(err, PQ_EIO, "%s: may not write %s: %s", p->who, p->rel, strerror(-rc));
	if (st == PQ_OK && renameat(p->dfd, p->tmp, p->dfd, p->base) != 0)
		st = pq_fail(err, PQ_EIO, "%s: cannot rename to %s: %s", p->who, p->rel,
			     strerror(errno));
	if (st != PQ_OK)
		(void)unlinkat(p->dfd, p->tmp, 0);
	if (lock >= 0)
		close(lock);
	if (st == PQ_OK && fsync(p->dfd) != 0)
		pfs_log(LOG_WARNING, "staging: fsync of the directory of %s: %s", p->rel,
			strerror(errno));
	close(p->dfd);
	free(p);
	return st;
}

static int pub_mkdir(void *be, const char *rel, mode_t mode, const pfs_cred *c)
{
	char dir[PATH_MAX];
	const char *base;
	int rc = split_rel(rel, dir, sizeof dir, &base);
	int dfd = rc ? rc : open_dir_as(be, dir, c, false, NULL);
	if (dfd < 0)
		return dfd;
	struct stat d;
	if (fstat(dfd, &d) != 0)
		rc = -errno;
	else if (!cred_may(c, &d, W_OK | X_OK))
		rc = -EACCES;
	else if (mkdirat(dfd, base, mode) != 0)
		rc = -errno;
	else if ((rc = own_at(dfd, base, c)) != 0)
		(void)unlinkat(dfd, base, AT_REMOVEDIR);
	close(dfd);
	return rc;
}

static int pub_rmdir(void *be, const char *rel, const pfs_cred *c)
{
	char dir[PATH_MAX];
	const char *base;
	int rc = split_rel(rel, dir, sizeof dir, &base);
	int dfd = rc ? rc : open_dir_as(be, dir, c, false, NULL);
	if (dfd < 0)
		return dfd;
	struct stat d, t;
	if (fstat(dfd, &d) != 0 || fstatat(dfd, base, &t, AT_SYMLINK_NOFOLLOW) != 0)
		rc = -errno;
	else if (!S_ISDIR(t.st_mode))
		rc = -ENOTDIR;
	else if (!cred_may(c, &d, W_OK | X_OK))
		rc = -EACCES;
	else if ((d.st_mode & S_ISVTX) && c->uid != 0 && c->uid != t.st_uid && c->uid != d.st_uid)
		rc = -EPERM;
	else if (unlinkat(dfd, base, AT_REMOVEDIR) != 0)
		rc = -errno;
	close(dfd);
	return rc;
}

static const pfs_publish_ops local_publish = {
	.may_write = pub_may_write,
	.begin = pub_begin,
	.commit = pub_commit,
	.abort = pub_abort,
	.mkdir = pub_mkdir,
	.rmdir = pub_rmdir,
};

static const pfs_source_ops local_ops = {
	.list = local_list,
	.stat = local_stat,
	.sniff = local_sniff,
	.open = local_open,
	.statfs = local_statfs,
	.free = local_free,
	.publish = &local_publish,
};

pfs_source *pfs_source_local_new(const char *root)
{
	pfs_source *s = calloc(1, sizeof *s);
	local *l = calloc(1, sizeof *l);
	if (l)
		l->root = strdup(root);
	if (!s || !l || !l->root) {
		if (l)
			free(l->root);
		free(l);
		free(s);
		return NULL;
	}
	atomic_init(&l->tmp_seq, 0);
	s->ops = &local_ops;
	s->be = l;
	return s;
}

void pfs_source_free(pfs_source *s)
{
	if (!s)
		return;
	s->ops->free(s->be);
	free(s);
}
