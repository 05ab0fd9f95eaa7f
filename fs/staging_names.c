/* Names in staging/ beyond the staged ones, and the closes that convert.
 *
 * Temporary files (interface.md, "Staging details"): a name that is not
 * accepted (a dot-file, x.csv.tmp, .x.csv.Ab12Cd, vim's 4913) is kept in
 * the store as written and never converted; a rename of it onto an
 * accepted name is the write of that name: converted then, the rename
 * failing as a close would (the file stays, with its .error). So rsync,
 * editors and writers that write a temporary file and rename it work.
 * Only the names the store uses for itself (x.csv.open, x.csv.error ...)
 * are refused.
 *
 * Whose close converts (staging.c, pfs_stg_flush): the process that
 * opened the file. A tool that rewrites a file in place and then sets its
 * times or mode by name (rsync --inplace: no O_TRUNC) finds the name gone;
 * for a moment the process whose close published it still sees it
 * (stg_gone_*), and what it changes then is ignored. Only then: a writer
 * that checks whether the name exists before writing it again (DuckDB
 * writes tmp_NAME and renames it when NAME exists) must find it gone.
 *
 * mkdir and rmdir act on SOURCE's directories; unlink on staged,
 * temporary and .error files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "staging_internal.h"

#define GONE_NS (2LL * 1000000000LL) /* how long a writer sees its published name */
#define GONE_WAIT_MS 100               /* for the release of its last descriptor */

/* Suffixes of the store's own files (staging_store.c, staging_aruna.c). */
static const char *const reserved[] = {
	STG_MARK_OPEN, STG_MARK_DONE, STG_MARK_RETRY, STG_MARK_APPEND, STG_ERROR, STG_PROGRESS,
	STG_ERROR ".tmp", STG_PROGRESS ".tmp", ".plain-tmp",
};

bool stg_reserved(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
		size_t k = strlen(reserved[i]);
		if (n >= k && !strcmp(name + n - k, reserved[i]))
			return true;
	}
	return false;
}

bool stg_temp_name(const char *name)
{
	return stg_type_of(name) == STG_T_NONE && !stg_reserved(name);
}

pid_t stg_tgid(pid_t tid)
{
	if (tid <= 0)
		return 0;
	char p[64], buf[512];
	snprintf(p, sizeof p, "/proc/%ld/status", (long)tid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tid; /* gone, or no /proc: the thread stands for itself */
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *t = strstr(buf, "\nTgid:");
	long g = t ? strtol(t + 6, NULL, 10) : 0;
	return g > 0 ? (pid_t)g : tid;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void stg_gone_set(stg_ent *e, pid_t who, const struct stat *st)
{
	e->gone_pid = who;
	e->gone_until = who ? mono_ns() + GONE_NS : 0;
	e->gone_st = *st;
}

int stg_gone_stat(stg_ent *e, pid_t pid, struct stat *st)
{
	pthread_mutex_lock(&e->lock);
	/* Not while a descriptor of it is still open (a dup'd one: its writer
	 * sees the name gone, as after any conversion). The release of the
	 * last one is under way when the close returned: waited for a little. */
	for (int i = 0; i < GONE_WAIT_MS && e->converted && e->gone_pid == pid; i++) {
		pthread_mutex_unlock(&e->lock);
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		pthread_mutex_lock(&e->lock);
	}
	bool ok = pid && e->gone_pid == pid && !e->converted && mono_ns() < e->gone_until;
	if (ok)
		*st = e->gone_st; /* (its st_ino is the store's: the caller sets its own) */
	pthread_mutex_unlock(&e->lock);
	return ok ? 0 : -ENOENT;
}

int pfs_stg_gone_lookup(fuse_req_t req, pfs_node *dir, const char *name, pfs_node **out,
			struct stat *st)
{
	pfs_staging *s = stg_of(req);
	stg_ent *d = stg_ent_of_node(s, dir), *e;
	char rel[PATH_MAX];
	if (!d || stg_type_of(name) == STG_T_NONE || stg_join(d->rel, name, rel, sizeof rel) ||
	    !(e = stg_ent_find(s, rel)))
		return -ENOENT;
	int rc = stg_gone_stat(e, stg_tgid(fuse_req_ctx(req)->pid), st);
	pfs_node *n = rc == 0 ? stg_node_of(s, e, PFS_K_STG_FILE) : NULL;
	if (rc == 0 && !n)
		return -ENOMEM;
	if (n) {
		st->st_ino = n->ino;
		*out = n;
	}
	return rc;
}

int stg_empty_told(pfs_staging *s, stg_ent *e)
{
	stg_type t = stg_type_of(e->name);
	char msg[PQ_ERROR_MSG_MAX];
	snprintf(msg, sizeof msg, "%s: empty file%s", e->name,
		 t == STG_T_CSV || t == STG_T_TSV ? " (the first line must be the header)" : "");
	stg_error_write(s, e->rel, msg);
	e->empty_told = true;
	return -EINVAL;
}

/* ---- rename ---------------------------------------------------------------------- */

/* A temporary file renamed onto name: the bytes file of e is new, and
 * its conversion is this rename's outcome. e->lock held. */
static int rename_converts(pfs_staging *s, stg_ent *e, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	stg_adopt_file(s, e, &st);
	stg_ahead_drop(s, e);
	stg_marker_clear(s, e);
	stg_append_forget(s, e->rel); /* a renamed file is a whole CSV */
	/* published for the owner of the bytes (who wrote them), as a file
	 * recovered at mount is */
	e->has_owner = false;
	e->write_err = 0;
	e->dirty = e->written = true;
	e->empty_told = false;
	stg_error_remove(s, e->rel);
	int rc = stg_finish(s, e, fd, false);
	close(fd);
	return rc;
}

void pfs_stg_rename(fuse_req_t req, pfs_node *dir, const char *name, pfs_node *newdir,
		    const char *newname, unsigned int flags)
{
	pfs_staging *s = stg_of(req);
	stg_ent *d = stg_ent_of_node(s, dir), *nd = stg_ent_of_node(s, newdir), *e = NULL;
	char rel[PATH_MAX], nrel[PATH_MAX], p[PATH_MAX], np[PATH_MAX];
	int rc = !d || !nd ? -ESTALE : 0;
	/* Only a temporary file is renamed: a staged file is published by its
	 * close, a directory is SOURCE's, an .error ours. EXDEV makes mv copy
	 * (and so convert) instead. */
	if (rc == 0 && !stg_temp_name(name))
		rc = -EXDEV;
	if (rc == 0 && (flags & ~(unsigned)RENAME_NOREPLACE))
		rc = -EINVAL; /* RENAME_EXCHANGE, RENAME_WHITEOUT */
	if (rc == 0)
		stg_valid_new_name(newname, false, &rc);
	if (rc == 0 && ((rc = stg_join(d->rel, name, rel, sizeof rel)) != 0 ||
			(rc = stg_join(nd->rel, newname, nrel, sizeof nrel)) != 0 ||
			(rc = stg_store_path(s, rel, NULL, p, sizeof p)) != 0 ||
			(rc = stg_store_path(s, nrel, NULL, np, sizeof np)) != 0))
		rc = rc ? rc : -ENAMETOOLONG;
	bool converts = rc == 0 && !stg_temp_name(newname);
	pfs_cred cred;
	stg_cred_of(req, &cred);
	if (converts)
		rc = stg_may_stage(s, nrel, &cred);
	if (rc == 0)
		rc = stg_store_check(s, false); /* never through someone's link */
	struct stat st;
	if (rc == 0 && lstat(p, &st) != 0)
		rc = -ENOENT;
	else if (rc == 0 && !S_ISREG(st.st_mode))
		rc = -EXDEV; /* a directory: SOURCE's */
	if (rc == 0 && (rc = pfs_local_mkdirs_for(np)) == 0 && !(e = stg_ent_get(s, nrel)))
		rc = -ENOMEM;
	if (rc == 0) {
		pthread_mutex_lock(&e->lock);
		if (renameat2(AT_FDCWD, p, AT_FDCWD, np, flags) != 0)
			rc = -errno;
		else if (converts)
			rc = rename_converts(s, e, np);
		pthread_mutex_unlock(&e->lock);
	}
	fuse_reply_err(req, -rc);
}

/* ---- directories and removal ---------------------------------------------------------- */

/* staging/'s directories are SOURCE's: made and removed by its backend. */
static int source_mkdir(pfs_staging *s, const char *rel, mode_t mode, const pfs_cred *c)
{
	void *be;
	const pfs_publish_ops *pub = pfs_source_publish(s->fs, &be);
	return pub ? pub->mkdir(be, rel, mode, c) : -EROFS;
}

static int source_rmdir(pfs_staging *s, const char *rel, const pfs_cred *c)
{
	void *be;
	const pfs_publish_ops *pub = pfs_source_publish(s->fs, &be);
	return pub ? pub->rmdir(be, rel, c) : -EROFS;
}

void pfs_stg_mkdir(fuse_req_t req, pfs_node *dir, const char *name, mode_t mode)
{
	pfs_staging *s = stg_of(req);
	stg_ent *d = stg_ent_of_node(s, dir);
	char rel[PATH_MAX];
	int rc = !d ? -ESTALE : 0;
	if (rc == 0 && stg_valid_new_name(name, true, &rc))
		rc = stg_join(d->rel, name, rel, sizeof rel);
	/* a directory of staging/ is a directory of SOURCE */
	pfs_cred cred;
	stg_cred_of(req, &cred);
	if (rc == 0)
		rc = source_mkdir(s, rel, mode & 07777, &cred);
	pfs_node *n = NULL;
	struct stat st;
	if (rc == 0) {
		pfs_src_changed(s->fs, rel);
		rc = stg_lookup_ent(s, d, name, &n, &st);
	}
	if (rc)
		fuse_reply_err(req, -rc);
	else
		stg_reply_entry(req, n, &st);
}

void pfs_stg_rmdir(fuse_req_t req, pfs_node *dir, const char *name)
{
	pfs_staging *s = stg_of(req);
	stg_ent *d = stg_ent_of_node(s, dir);
	char rel[PATH_MAX], tp[PATH_MAX];
	int rc = !d ? -ESTALE : stg_join(d->rel, name, rel, sizeof rel);
	if (rc == 0)
		rc = stg_store_path(s, rel, NULL, tp, sizeof tp);
	if (rc == 0) {
		/* staged files first: rmdir fails while the store holds any */
		int a = stg_store_check(s, false) ? ENOENT : rmdir(tp) == 0 ? 0 : errno;
		pfs_cred cred;
		stg_cred_of(req, &cred);
		int b = a == 0 || a == ENOENT ? -source_rmdir(s, rel, &cred) : EEXIST;
		if (a == ENOTEMPTY || a == EEXIST || b == ENOTEMPTY || b == EEXIST)
			rc = -ENOTEMPTY;
		else if (a == ENOENT && b == ENOENT)
			rc = -ENOENT;
		else if (a && a != ENOENT)
			rc = -a;
		else if (b && b != ENOENT)
			rc = -b;
		if (b == 0)
			pfs_src_changed(s->fs, rel);
	}
	fuse_reply_err(req, -rc);
}

void pfs_stg_unlink(fuse_req_t req, pfs_node *dir, const char *name)
{
	pfs_staging *s = stg_of(req);
	stg_ent *d = stg_ent_of_node(s, dir), *e = NULL;
	char rel[PATH_MAX], p[PATH_MAX];
	int rc = !d ? -ESTALE : stg_join(d->rel, name, rel, sizeof rel);
	if (rc == 0 && stg_progress_base(name))
		rc = -EPERM; /* goes when its conversion ends */
	if (rc == 0 && !stg_error_base(name) && stg_reserved(name))
		rc = -ENOENT; /* the store's own names */
	if (rc == 0)
		rc = stg_store_path(s, rel, NULL, p, sizeof p);
	if (rc == 0)
		rc = stg_store_check(s, false); /* never unlink through someone's link */
	if (rc == 0 && !(e = stg_ent_get(s, rel)))
		rc = -ENOMEM;
	if (rc == 0) {
		pthread_mutex_lock(&e->lock);
		if (unlink(p) != 0) {
			rc = -errno;
		} else if (!stg_error_base(name)) {
			/* open handles keep writing to the removed bytes, unconverted */
			stg_marker_clear(s, e);
			stg_append_forget(s, e->rel);
			stg_ahead_drop(s, e);
			e->gen = 0;
			e->writers = 0;
			e->dirty = e->written = false;
		}
		pthread_mutex_unlock(&e->lock);
	}
	fuse_reply_err(req, -rc);
}

