/* Appending through staging/ (interface.md, "Staging details",
 * Appending): `echo '4,d' >> MNT/staging/x.csv` adds a row to
 * SOURCE/x.parquet.
 *
 * A staged CSV/TSV created with O_APPEND (and without O_TRUNC) while its
 * target exists in SOURCE is an append: its bytes are rows without a
 * header, and its close extends the target instead of replacing it (the
 * old row groups kept byte for byte, core's pq_convert_csv_append; the
 * result published as any conversion: a temporary file renamed, or one
 * whole object on S3). Which staged files are appends is kept on disk, in
 * an `<name>.append` marker beside the bytes in the store, made durable
 * before the file is created: a remount that converts a closed staged
 * file must never take its rows for a whole CSV (whose first row would
 * become the header, and whose rows would replace the file's).
 *
 * A `>>` to a name staging/ already holds (not yet published, or kept
 * after a failed close) is a plain append to its bytes, in whatever mode
 * the file has. Creating it anew (O_TRUNC, or after rm) makes it a whole
 * CSV again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staging_internal.h"

static int marker_path(const pfs_staging *s, const char *rel, char *p, size_t n)
{
	return stg_store_path(s, rel, STG_MARK_APPEND, p, n);
}

bool stg_append_wanted(const pfs_staging *s, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	return marker_path(s, rel, p, sizeof p) == 0 && lstat(p, &st) == 0 && S_ISREG(st.st_mode);
}

void stg_append_forget(pfs_staging *s, const char *rel)
{
	char p[PATH_MAX];
	if (marker_path(s, rel, p, sizeof p) == 0)
		(void)unlink(p);
}

/* Whether c may read a file of these attributes (as access(2) decides
 * from the mode bits): the appended file holds the old rows, and is
 * published for the writer. */
static bool may_read(const struct stat *st, const pfs_cred *c)
{
	if (c->uid == 0)
		return true;
	if (c->uid == st->st_uid)
		return st->st_mode & S_IRUSR;
	bool group = c->gid == st->st_gid;
	for (int i = 0; !group && i < c->ngroups; i++)
		group = c->groups[i] == st->st_gid;
	return st->st_mode & (group ? S_IRGRP : S_IROTH);
}

static void sync_dir(const char *path)
{
	char d[PATH_MAX];
	snprintf(d, sizeof d, "%s", path);
	int fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int stg_append_begin(pfs_staging *s, stg_ent *e, int flags, const pfs_cred *c)
{
	char p[PATH_MAX], m[PATH_MAX], trel[PATH_MAX];
	struct stat st;
	int rc = stg_store_path(s, e->rel, NULL, p, sizeof p);
	if (rc == 0)
		rc = marker_path(s, e->rel, m, sizeof m);
	if (rc)
		return rc;
	if (lstat(p, &st) == 0 || errno != ENOENT)
		return 0; /* staging/ holds it: its bytes are appended to, as they are */
	(void)unlink(m); /* a leftover of an earlier file of the name */
	stg_type t = stg_type_of(e->name);
	if (!(flags & O_APPEND) || (flags & O_TRUNC) || (t != STG_T_CSV && t != STG_T_TSV))
		return 0;
	if (stg_target_rel_of(s, e->rel, trel, sizeof trel) != 0 ||
	    pfs_source_stat(s->fs, trel, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* no file to extend: a whole CSV, as a plain write */
	if (!may_read(&st, c))
		return -EACCES;
	if ((rc = pfs_local_mkdirs_for(m)) != 0)
		return rc;
	int fd = open(m, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	rc = fsync(fd) == 0 ? 0 : -errno;
	close(fd);
	if (rc) {
		(void)unlink(m);
		return rc;
	}
	sync_dir(m);
	return 1;
}

bool stg_append_stale(pfs_staging *s, const char *dir, const char *name)
{
	size_t n = strlen(name), k = strlen(STG_MARK_APPEND);
	char rel[PATH_MAX], p[PATH_MAX];
	struct stat st;
	if (n <= k || strcmp(name + n - k, STG_MARK_APPEND) || stg_join(dir, name, rel, sizeof rel))
		return false;
	rel[strlen(rel) - k] = '\0'; /* the staged name */
	if (stg_store_path(s, rel, NULL, p, sizeof p) || lstat(p, &st) == 0)
		return false;
	stg_append_forget(s, rel);
	return true;
}

bool stg_append_empty(pfs_staging *s, stg_ent *e, int fd, bool handles_open)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size != 0 || !stg_append_wanted(s, e->rel))
		return false;
	if (handles_open)
		return true; /* (the shell's open, dup2, close before the first write) */
	char p[PATH_MAX];
	if (stg_store_path(s, e->rel, NULL, p, sizeof p) == 0)
		(void)unlink(p);
	stg_append_forget(s, e->rel);
	e->gen = 0;
	e->dirty = e->written = false;
	return true;
}

/* Bytes of the staged file already appended (the marker's content): a
 * file published while a descriptor kept it open (a dup in another
 * process) and then written again holds rows the target has already. */
static uint64_t appended_before(const pfs_staging *s, const char *rel)
{
	char p[PATH_MAX], buf[32];
	if (marker_path(s, rel, p, sizeof p))
		return 0;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	unsigned long long v = 0;
	return sscanf(buf, "%llu", &v) == 1 ? (uint64_t)v : 0;
}

void stg_append_published(pfs_staging *s, stg_ent *e, int fd, bool handles_open)
{
	if (!stg_append_wanted(s, e->rel))
		return;
	struct stat st;
	char p[PATH_MAX], line[32];
	if (!handles_open || fstat(fd, &st) != 0 || marker_path(s, e->rel, p, sizeof p)) {
		stg_append_forget(s, e->rel);
		return;
	}
	/* still open: a later write stages the file again, whole; only the
	 * bytes after these are rows the target lacks */
	int n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)st.st_size);
	int m = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (m >= 0) {
		if (write(m, line, (size_t)n) != n || fsync(m) != 0)
			pfs_log(LOG_WARNING, "staging: %s: cannot record the bytes appended: %s",
				e->rel, strerror(errno));
		close(m);
	}
}

/* in from byte skip on, in a scratch file of the store (the rows written
 * after those already appended). */
static pq_status tail_of(pfs_staging *s, stg_ent *e, int in, uint64_t skip, int *out,
			 pq_error *err)
{
	struct stat st;
	if (fstat(in, &st) != 0)
		return pq_fail(err, PQ_EIO, "%s: %s", e->name, strerror(errno));
	int fd = stg_scratch_fd(s, e->rel);
	if (fd < 0)
		return pq_fail(err, PQ_EIO, "%s: no scratch file: %s", e->name, strerror(errno));
	off_t io = (off_t)skip;
	uint64_t left = (uint64_t)st.st_size > skip ? (uint64_t)st.st_size - skip : 0;
	while (left > 0) {
		ssize_t k = copy_file_range(in, &io, fd, NULL, left, 0);
		if (k <= 0) {
			int eno = k < 0 ? errno : EIO;
			close(fd);
			return pq_fail(err, PQ_EIO, "%s: cannot copy its new rows: %s", e->name,
				       strerror(eno));
		}
		left -= (uint64_t)k;
	}
	*out = fd;
	return PQ_OK;
}

pq_status stg_append_convert(pfs_staging *s, stg_ent *e, stg_type t, int in, int out,
			     const char *trel, uint64_t *rows, pq_error *err)
{
	*rows = 0;
	const char *base = strrchr(trel, '/');
	base = base ? base + 1 : trel;
	if (stg_sealed(s, t))
		return pq_fail(err, PQ_EUNSUPPORTED, "%s: cannot append to %s: the mount publishes "
			       "containers (-o container=aruna); nothing was changed", e->name, base);
	pq_source *old = NULL;
	pq_identity before, now;
	struct stat tst;
	bool local = s->fs->opts->source_kind == PFS_SRC_LOCAL;
	if (local && pfs_source_stat(s->fs, trel, &tst) != 0)
		local = false; /* (gone: the open says so) */
	pq_status st = pfs_source_open_rel(s->fs, trel, &old, &before, err);
	if (st != PQ_OK)
		return pq_context(err, "%s: cannot append", e->name);
	const pfs_options *o = s->fs->opts;
	pq_convert_input ci = {.format = t == STG_T_TSV ? PQ_CSV_TAB : PQ_CSV_COMMA,
			       .delimiter = o->delimiter, .codec = stg_codec_of(e->name)};
	pq_write_options wo = s->wopts;
	wo.budget = s->fs->budget; /* counts in cache_size, as a conversion does */
	pq_convert_stats stats = {0};
	uint64_t skip = appended_before(s, e->rel);
	int tail = -1;
	if (skip > 0)
		st = tail_of(s, e, in, skip, &tail, err);
	if (st == PQ_OK)
		st = pq_convert_csv_append(old, base, tail >= 0 ? tail : in, out, e->name, &ci,
					   &wo, &stats, err);
	if (tail >= 0)
		close(tail);
	/* the old file must still be the one extended: a file put there
	 * meanwhile (by a writer outside the mount) is not overwritten */
	if (st == PQ_OK && (pfs_source_ident(s->fs, trel, &now) != 0 ||
			    !pq_identity_eq(&before, &now)))
		st = pq_fail(err, PQ_EIO, "%s: %s changed while rows were appended to it; nothing "
			     "was changed", e->name, base);
	pq_source_unref(old);
	/* an append changes the file, not whose it is or who may read it (as
	 * O_APPEND on a local file): the new file takes the old one's owner
	 * when the daemon may give it, then its mode */
	if (st == PQ_OK && local &&
	    ((geteuid() == 0 && fchown(out, tst.st_uid, tst.st_gid) != 0) ||
	     fchmod(out, tst.st_mode & 07777) != 0))
		st = pq_fail(err, PQ_EIO, "%s: cannot give the appended %s its mode and owner: %s",
			     e->name, base, strerror(errno));
	if (st == PQ_OK) {
		*rows = stats.rows;
		pfs_log(LOG_INFO, "staging: %s: %llu rows appended to %s in %llu row groups, now "
			"%llu bytes", e->rel, (unsigned long long)stats.rows, trel,
			(unsigned long long)stats.row_groups, (unsigned long long)stats.bytes_out);
	}
	return st;
}
