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
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <syslog.h>
#include <unistd.h>

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

static int local_list(void *be, const char *rel, pfs_source_list_fn fn, void *ctx)
{
	char path[PATH_MAX];
	int rc = path_of(be, rel, path, sizeof path);
	if (rc)
		return rc;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0 ||
		    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		pq_identity id;
		pq_identity_of_stat(&st, &id);
		rc = fn(ctx, de->d_name, &st, &id);
	}
	closedir(d);
	return rc;
}

static int local_stat(void *be, const char *rel, struct stat *st, pq_identity *id)
{
	char path[PATH_MAX];
	int rc = path_of(be, rel, path, sizeof path);
	if (rc)
		return rc;
	if (stat(path, st) != 0)
		return -errno;
	pq_identity_of_stat(st, id);
	return 0;
}

static int local_sniff(void *be, const char *rel)
{
	char path[PATH_MAX];
	if (path_of(be, rel, path, sizeof path))
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == EMFILE || errno == ENFILE || errno == ENOMEM ? -errno : 0;
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
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return pq_fail(err, PQ_EIO, "%s: cannot open: %s", name, strerror(errno));
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

static pq_status pub_begin(void *be, const char *rel, const char *who, pfs_publish **out,
			   int *fd, pq_error *err)
{
	local *l = be;
	*out = NULL;
	char tpath[PATH_MAX];
	if (path_of(l, rel, tpath, sizeof tpath) || strlen(rel) >= PATH_MAX)
		return pq_fail(err, PQ_EIO, "%s: the target path is too long", who);
	int rc = pfs_local_mkdirs_for(tpath);
	if (rc)
		return pq_fail(err, PQ_EIO, "%s: cannot create the directory of %s: %s", who, rel,
			       strerror(-rc));
	char *slash = strrchr(tpath, '/');
	*slash = '\0';
	int dfd = open(tpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (dfd < 0)
		return pq_fail(err, PQ_EIO, "%s: cannot open the directory of %s: %s", who, rel,
			       strerror(errno));
	pfs_publish *p = calloc(1, sizeof *p);
	if (!p) {
		close(dfd);
		return pq_fail(err, PQ_ENOMEM, "%s: no memory", who);
	}
	p->dfd = dfd;
	p->fd = -1;
	snprintf(p->who, sizeof p->who, "%s", who);
	snprintf(p->rel, sizeof p->rel, "%s", rel);
	const char *b = strrchr(p->rel, '/');
	p->base = b ? b + 1 : p->rel;
	/* a hidden name the listing skips (source.c) and recovery removes
	 * when its process is gone (staging_store.c) */
	int k = snprintf(p->tmp, sizeof p->tmp, ".%s.tmp-%ld-%u", p->base, (long)getpid(),
			 atomic_fetch_add(&l->tmp_seq, 1));
	pq_status st = PQ_OK;
	if (k < 0 || (size_t)k >= sizeof p->tmp)
		st = pq_fail(err, PQ_EIO, "%s: the name %s is too long", who, p->base);
	else if ((p->fd = openat(dfd, p->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0)
		st = pq_fail(err, PQ_EIO, "%s: cannot create %s beside %s: %s", who, p->tmp, rel,
			     strerror(errno));
	if (st != PQ_OK) {
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
	if (close(fd) != 0 && st == PQ_OK)
		st = pq_fail(err, PQ_EIO, "%s: cannot write %s: %s", p->who, p->rel, strerror(errno));
	if (st == PQ_OK && renameat(p->dfd, p->tmp, p->dfd, p->base) != 0)
		st = pq_fail(err, PQ_EIO, "%s: cannot rename to %s: %s", p->who, p->rel,
			     strerror(errno));
	if (st != PQ_OK)
		(void)unlinkat(p->dfd, p->tmp, 0);
	else if (fsync(p->dfd) != 0)
		pfs_log(LOG_WARNING, "staging: fsync of the directory of %s: %s", p->rel,
			strerror(errno));
	close(p->dfd);
	free(p);
	return st;
}

static int pub_mkdir(void *be, const char *rel, mode_t mode)
{
	char p[PATH_MAX];
	int rc = path_of(be, rel, p, sizeof p);
	return rc ? rc : mkdir(p, mode) == 0 ? 0 : -errno;
}

static int pub_rmdir(void *be, const char *rel)
{
	char p[PATH_MAX];
	int rc = path_of(be, rel, p, sizeof p);
	return rc ? rc : rmdir(p) == 0 ? 0 : -errno;
}

static const pfs_publish_ops local_publish = {
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
