/* A closed staged file becomes a Parquet file in SOURCE.
 *
 * CSV/TSV go through pq_convert_csv (with the sidecar `<stem>.schema` when
 * one is staged); a .parquet is checked (magic at both ends, the footer
 * when it is readable with the keys at hand) and copied byte for byte; a
 * .schema is only validated. Publishing goes through the backend's
 * pfs_publish_ops: locally `.<target>.tmp-PID-N` is written beside the
 * target, fsynced, renamed over the target and the directory fsynced
 * (source_local.c), so a reader sees the old file or the new one, never a part,
 * and readers holding the old file keep it. Then the mount forgets what it
 * knew of the target (source.c) and the kernel is told before the flush
 * that caused it returns, so `cp` returns with the new file visible. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pfs_source.h"
#include "pq_file.h"
#include "pq_crypto.h"
#include "pq_keyring.h"
#include "staging_internal.h"

#define COPY_CHUNK ((size_t)1 << 20)
#define PARQUET_MIN_SIZE 12 /* magic, footer length, magic */

int stg_target_rel(const char *rel, char *buf, size_t n)
{
	/* the last extension, or both of a compressed one (x.csv.gz) */
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	if (stg_type_of(name) == STG_T_NONE)
		return -EINVAL;
	size_t keep = (size_t)(name - rel) + stg_stem_len(name);
	int k = snprintf(buf, n, "%.*s.parquet", (int)keep, rel);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

/* errno for a failed conversion: bad content is EINVAL, the rest EIO. */
static int status_errno(pq_status st)
{
	switch (st) {
	case PQ_EINVAL:
	case PQ_ECORRUPT:
	case PQ_EUNSUPPORTED:
	case PQ_ELIMIT:
	case PQ_ECHECKSUM:
	case PQ_EAUTH:
	case PQ_EKEY:
		return EINVAL;
	default:
		return EIO;
	}
}

/* The whole text of a sidecar (bounded, no NUL bytes). */
static pq_status read_text(int fd, const char *name, char **out, pq_error *err)
{
	*out = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return pq_fail(err, PQ_EIO, "%s: %s", name, strerror(errno));
	PQ_CHECK(st.st_size >= 0 && (uint64_t)st.st_size <= STG_SIDECAR_MAX, err, PQ_EINVAL,
		 "%s: a schema of %lld bytes is larger than the %zu bytes allowed", name,
		 (long long)st.st_size, STG_SIDECAR_MAX);
	size_t n = (size_t)st.st_size;
	char *text = malloc(n + 1);
	if (!text)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for the schema", name);
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, text + got, n - got, (off_t)got);
		if (r <= 0) {
			free(text);
			return pq_fail(err, PQ_EIO, "%s: cannot read: %s", name,
				       r < 0 ? strerror(errno) : "file shrank while read");
		}
		got += (size_t)r;
	}
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		free(text);
		return pq_fail(err, PQ_EINVAL, "%s: a schema is text; it holds a NUL byte", name);
	}
	*out = text;
	return PQ_OK;
}

/* The sidecar of a staged CSV: `<stem>.schema` (extension in any case) in
 * the same staging directory; NULL text when there is none. */
static pq_status read_sidecar(pfs_staging *s, const char *rel, char **text, pq_error *err)
{
	*text = NULL;
	char dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	size_t dlen = slash ? (size_t)(slash - rel) : 0;
	size_t stem = stg_stem_len(name);
	if (dlen >= sizeof dir)
		return pq_fail(err, PQ_EIO, "%s: path too long", name);
	memcpy(dir, rel, dlen);
	dir[dlen] = '\0';
	char dpath[PATH_MAX];
	if (stg_store_path(s, dir, NULL, dpath, sizeof dpath))
		return pq_fail(err, PQ_EIO, "%s: path too long", name);
	DIR *d = opendir(dpath);
	if (!d)
		return PQ_OK;
	struct dirent *de;
	char found[NAME_MAX + 1] = "";
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strncmp(n, name, stem) && !strcasecmp(n + stem, ".schema")) {
			snprintf(found, sizeof found, "%s", n);
			break;
		}
	}
	closedir(d);
	if (!found[0])
		return PQ_OK;
	char path[PATH_MAX];
	int fd = -1;
	if (snprintf(path, sizeof path, "%s/%s", dpath, found) < (int)sizeof path)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? PQ_OK : pq_fail(err, PQ_EIO, "%s: %s", found, strerror(errno));
	pq_status st = read_text(fd, found, text, err);
	close(fd);
	return st;
}

static pq_status check_sidecar(int fd, const char *name, pq_error *err)
{
	char *text;
	PQ_TRY(read_text(fd, name, &text, err));
	pq_status st = pq_convert_check_schema(text, name, err);
	free(text);
	return st;
}

/* verify.txt's text: OK as its last line, else the first PROBLEM line
 * (or FAILED) becomes the message. */
static pq_status verdict(const pq_buf *v, const char *name, pq_error *err)
{
	if (v->oom)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory to verify the file", name);
	const char *t = (const char *)v->p;
	size_t n = v->len;
	if (n >= 3 && !memcmp(t + n - 3, "OK\n", 3) && (n == 3 || t[n - 4] == '\n'))
		return PQ_OK;
	const char *first = "the check did not end with OK";
	size_t len = strlen(first);
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - t) : n;
		if (end - i >= 9 && !memcmp(t + i, "PROBLEM: ", 9)) {
			first = t + i + 9;
			len = end - i - 9;
			break;
		}
		i = end + 1;
	}
	return pq_fail(err, PQ_ECORRUPT, "%s: verify failed: %.*s", name,
		       (int)(len < 400 ? len : 400), first);
}

/* Magic at both ends and, when the keys at hand allow, the whole check of
 * verify.txt (interface.md: published only when that check is OK). */
static pq_status check_parquet(pfs_staging *s, int fd, const char *name, const char *trel,
			       pq_error *err)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return pq_fail(err, PQ_EIO, "%s: %s", name, strerror(errno));
	PQ_CHECK(st.st_size >= PARQUET_MIN_SIZE, err, PQ_EINVAL,
		 "%s: %lld bytes is too short for a Parquet file", name, (long long)st.st_size);
	char head[4], tail[4];
	if (pread(fd, head, 4, 0) != 4 || pread(fd, tail, 4, st.st_size - 4) != 4)
		return pq_fail(err, PQ_EIO, "%s: cannot read: %s", name, strerror(errno));
	PQ_CHECK(pq_magic_is_parquet(head, sizeof head), err, PQ_EINVAL,
		 "%s: not a Parquet file (no PAR1 or PARE magic at the start)", name);
	PQ_CHECK(pq_magic_is_parquet(tail, sizeof tail), err, PQ_EINVAL,
		 "%s: not a complete Parquet file (no PAR1 or PARE magic at the end)", name);
	pq_file *f = NULL;
	pq_error ferr = {0};
	pq_status rc = pq_file_open_fd(fd, trel, s->fs->keys, &f, &ferr);
	if (rc == PQ_OK) {
		/* the whole check of verify.txt: every page header, CRC and page */
		pq_buf v = PQ_BUF_INIT;
		pq_error verr;
		pq_error_clear(&verr);
		rc = pq_text_verify(f, &v, &verr);
		pq_file_free(f);
		/* a check that could not be made (memory, I/O) is no verdict */
		rc = rc == PQ_OK ? verdict(&v, name, err) : pq_fail(err, rc, "%s: %s", name, verr.msg);
		pq_buf_free(&v);
		return rc;
	}
	if (rc == PQ_EKEY)
		return PQ_OK; /* encrypted for keys we do not hold: published unchecked */
	return pq_fail(err, rc, "%s: %s", name, ferr.msg);
}

static pq_status copy_bytes(int in, int out, const char *name, pq_error *err)
{
	struct stat st;
	if (fstat(in, &st) != 0)
		return pq_fail(err, PQ_EIO, "%s: %s", name, strerror(errno));
	uint64_t size = (uint64_t)st.st_size, done = 0;
	char *buf = NULL;
	while (done < size) {
		size_t want = size - done > COPY_CHUNK ? COPY_CHUNK : (size_t)(size - done);
		ssize_t n = -1;
		if (!buf) {
			off_t io = (off_t)done, oo = (off_t)done;
			n = copy_file_range(in, &io, out, &oo, want, 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
				      errno == EOPNOTSUPP)) {
				buf = malloc(COPY_CHUNK);
				if (!buf)
					return pq_fail(err, PQ_ENOMEM, "%s: no memory to copy", name);
				continue;
			}
		} else {
			n = pread(in, buf, want, (off_t)done);
			if (n > 0 && pwrite(out, buf, (size_t)n, (off_t)done) != n)
				n = -1;
		}
		if (n <= 0) {
			free(buf);
			return pq_fail(err, PQ_EIO, "%s: cannot copy: %s", name,
				       n < 0 ? strerror(errno) : "file shrank while copied");
		}
		done += (uint64_t)n;
	}
	free(buf);
	return PQ_OK;
}

/* ---- staging/<name>.progress while a CSV converts ---------------------- */

#define PROGRESS_EVERY_NS 500000000LL /* rewritten at most twice a second */

typedef struct progress {
	pfs_staging *s;
	const char *rel;
	int64_t last_ns;
	bool shown;
} progress;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* `412 MB of 1049 MB, 2710000 rows, 39%` (interface.md); the percent
 * covers both passes when types are inferred. Written to a temporary name
 * and renamed, so a reader sees one whole line. */
static void progress_show(void *ctx, const pq_convert_progress *p)
{
	progress *pr = ctx;
	int64_t now = now_ns();
	if (pr->shown && now - pr->last_ns < PROGRESS_EVERY_NS)
		return;
	pr->last_ns = now;
	double frac = p->bytes_total ? (double)p->bytes_read / (double)p->bytes_total : 0;
	if (frac > 1)
		frac = 1;
	double pct = 100.0 * ((double)(p->pass - 1) + frac) / (p->passes > 0 ? p->passes : 1);
	char line[160], path[PATH_MAX], tmp[PATH_MAX];
	int n = snprintf(line, sizeof line, "%llu MB of %llu MB, %llu rows, %d%%\n",
			 (unsigned long long)(p->bytes_read >> 20),
			 (unsigned long long)(p->bytes_total >> 20), (unsigned long long)p->rows,
			 (int)pct);
	if (stg_store_path(pr->s, pr->rel, STG_PROGRESS, path, sizeof path) ||
	    stg_store_path(pr->s, pr->rel, STG_PROGRESS ".tmp", tmp, sizeof tmp))
		return;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (fd < 0)
		return;
	bool ok = write(fd, line, (size_t)n) == n;
	close(fd);
	if (ok && rename(tmp, path) == 0)
		pr->shown = true;
	else
		(void)unlink(tmp);
}

static void progress_end(progress *pr)
{
	char path[PATH_MAX];
	if (pr->shown && stg_store_path(pr->s, pr->rel, STG_PROGRESS, path, sizeof path) == 0)
		(void)unlink(path);
	pr->shown = false;
}

static pq_status convert_plain(pfs_staging *s, stg_ent *e, stg_type t, int in, int out,
			       const char *trel, pq_error *err)
{
	if (t == STG_T_PARQUET) {
		PQ_TRY(check_parquet(s, in, e->name, trel, err));
		return copy_bytes(in, out, e->name, err);
	}
	/* Encryption (-o encrypt=, encrypt_columns=, ...): keys resolved per
	 * file, as key_file sections match the path under SOURCE. */
	const pfs_options *o = s->fs->opts;
	pq_write_options wo = s->wopts;
	pq_write_keys keys;
	memset(&keys, 0, sizeof keys);
	if (o->encrypt || o->encrypt_columns) {
		if (!s->fs->keys)
			return pq_fail(err, PQ_EKEY, "%s: encryption asked for, but no key_file given",
				       e->name);
		PQ_TRY(pq_write_keys_resolve(s->fs->keys, trel, o->encrypt, o->encrypt_columns,
					     o->plaintext_footer != 0, o->encrypt_ctr, o->aad_prefix,
					     &keys, &wo, err));
	}
	/* the conversion's buffers count in cache_size: readers wait for
	 * them, as for each other's (doc/design.md, "Memory") */
	wo.budget = s->fs->budget;
	char *schema;
	pq_status st = read_sidecar(s, e->rel, &schema, err);
	if (st != PQ_OK) {
		pq_write_keys_free(&keys);
		return st;
	}
	pq_convert_stats stats = {0};
	progress pr = {.s = s, .rel = e->rel};
	pq_convert_input ci = {.format = t == STG_T_TSV ? PQ_CSV_TAB : PQ_CSV_COMMA,
			       .delimiter = o->delimiter, .codec = stg_codec_of(e->name),
			       .progress = progress_show, .progress_ctx = &pr,
			       .ahead = e->ahead};
	st = pq_convert_csv_ex(in, out, e->name, &ci, schema, &wo, &stats, err);
	progress_end(&pr);
	pq_write_keys_free(&keys);
	free(schema);
	if (st == PQ_OK)
		pfs_log(LOG_INFO, "staging: %s: %llu rows in %llu row groups, %llu bytes%s", e->rel,
			(unsigned long long)stats.rows, (unsigned long long)stats.row_groups,
			(unsigned long long)stats.bytes_out,
			stats.inferred_ahead ? " (types inferred while it was written)" : "");
	return st;
}

/* The Parquet file, or its container (staging_aruna.c): a staged container
 * checked and copied; under container=aruna the Parquet file made in a
 * scratch file of the store, then sealed into out. */
static pq_status convert(pfs_staging *s, stg_ent *e, stg_type t, int in, int out,
			 const char *trel, pq_error *err)
{
	if (!stg_sealed(s, t))
		return convert_plain(s, e, t, in, out, trel, err);
	uint8_t key[32];
	PQ_TRY(stg_container_key(s, trel, e->name, key, err));
	pq_status st;
	if (t == STG_T_ARUNA) {
		st = stg_aruna_check(s, in, e->name, trel, key, err);
		if (st == PQ_OK)
			st = copy_bytes(in, out, e->name, err);
	} else {
		int mid = stg_scratch_fd(s, e->rel);
		st = mid < 0 ? pq_fail(err, PQ_EIO, "%s: no scratch file: %s", e->name, strerror(errno))
			     : convert_plain(s, e, t, in, mid, trel, err);
		if (st == PQ_OK)
			st = stg_aruna_seal(mid, out, e->name, key, err);
		if (mid >= 0)
			close(mid);
	}
	pq_crypto_wipe(key, sizeof key);
	return st;
}

/* Whom a staged file is published for: its creator when this mount saw
 * the create, else (a file recovered at mount) the owner of its bytes, with
 * that user's groups. */
static void owner_of(const stg_ent *e, int fd, pfs_cred *c)
{
	if (e->has_owner) {
		*c = e->owner;
		return;
	}
	memset(c, 0, sizeof *c);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		c->uid = geteuid();
		c->gid = getegid();
		return;
	}
	c->uid = st.st_uid;
	c->gid = st.st_gid;
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(st.st_uid, &pw, buf, sizeof buf, &res) == 0 && res) {
		int n = PFS_CRED_GROUPS;
		if (getgrouplist(pw.pw_name, st.st_gid, c->groups, &n) < 0)
			n = PFS_CRED_GROUPS; /* more than fit: the first ones */
		c->ngroups = n;
	}
}

/* -o replace=no: whether the target is there (then err says so). */
static bool target_exists(pfs_staging *s, const char *trel, const char *name, pq_error *err)
{
	struct stat st;
	if (pfs_source_stat(s->fs, trel, &st) != 0)
		return false;
	const char *base = strrchr(trel, '/');
	pq_fail(err, PQ_EINVAL, "%s: %s exists and the mount has -o replace=no: nothing was "
		"published", name, base ? base + 1 : trel);
	return true;
}

/* Converts into a new file of SOURCE's backend (pfs_source.h; locally a
 * temporary file beside the target, renamed over it), with the rights of
 * the staged file's writer. */
static pq_status publish(pfs_staging *s, stg_ent *e, stg_type t, int in, bool *exists,
			 pq_error *err)
{
	char trel[PATH_MAX];
	if (stg_target_rel_of(s, e->rel, trel, sizeof trel))
		return pq_fail(err, PQ_EIO, "%s: the target path is too long", e->name);
	void *be;
	const pfs_publish_ops *pub = pfs_source_publish(s->fs, &be);
	if (!pub)
		return pq_fail(err, PQ_EIO, "%s: SOURCE cannot be written", e->name);
	/* x.csv and x.tsv publish the same file: one at a time, in close order */
	size_t li = 0;
	for (const char *c = trel; *c; c++)
		li = li * 31 + (uint8_t)*c;
	li %= STG_TARGET_LOCKS;
	pthread_mutex_lock(&s->target_locks[li]);
	pfs_publish *p;
	int out;
	pfs_cred cred;
	owner_of(e, in, &cred);
	pq_status st = PQ_OK;
	/* an append keeps every row: -o replace=no does not refuse it */
	bool append = t != STG_T_SCHEMA && stg_append_wanted(s, e->rel);
	uint64_t appended = 0;
	if (!append && s->fs->opts->no_replace && target_exists(s, trel, e->name, err)) {
		*exists = true; /* checked first: no work is done for nothing */
		st = PQ_EINVAL;
	}
	if (st == PQ_OK)
		st = pub->begin(be, trel, e->name, &cred, &p, &out, err);
	/* the staged file's permission bits (its owner is cred): a private
	 * CSV is published private */
	struct stat sst;
	if (st == PQ_OK && fstat(in, &sst) == 0 && fchmod(out, sst.st_mode & 0777) != 0)
		pfs_log(LOG_WARNING, "staging: %s: cannot set the mode of its Parquet file: %s",
			e->rel, strerror(errno));
	if (st == PQ_OK) {
		st = append ? stg_append_convert(s, e, t, in, out, trel, &appended, err)
			    : convert(s, e, t, in, out, trel, err);
		/* and again: the target may have come meanwhile */
		if (st == PQ_OK && !append && s->fs->opts->no_replace &&
		    target_exists(s, trel, e->name, err)) {
			*exists = true;
			st = PQ_EINVAL;
		}
		if (st == PQ_OK && !(append && appended == 0))
			st = pub->commit(p, err);
		else
			pub->abort(p); /* (no row to append: the file stays as it is) */
	}
	pthread_mutex_unlock(&s->target_locks[li]);
	if (st == PQ_OK && !(append && appended == 0)) {
		pfs_src_changed(s->fs, trel);
		pfs_notify_wait(s->fs->notify);
	}
	return st;
}

int stg_finish(pfs_staging *s, stg_ent *e, int fd, bool handles_open)
{
	stg_type t = stg_type_of(e->name);
	pq_error err = {0};
	if (stg_append_empty(s, e, fd, handles_open))
		return 0; /* `>>` that wrote nothing (yet): nothing to append */
	/* Closed, durably, before anything slow (the fdatasync of a large
	 * file takes seconds): a kill now leaves a closed file that the
	 * remount converts, never one "never closed". */
	stg_marker_closed(s, e);
	if (e->write_err) {
		/* a write failed: the bytes are not what the writer sent */
		int eno = e->write_err;
		snprintf(err.msg, sizeof err.msg,
			 "%s: a write failed (%s); nothing was converted: copy it again",
			 e->name, strerror(eno));
		e->dirty = e->written = false;
		stg_error_write(s, e->rel, err.msg);
		stg_retry_mark(s, e->rel, false); /* the bytes are wrong: nothing to retry */
		pfs_log(LOG_NOTICE, "staging: %s", err.msg);
		return -eno;
	}
	/* The staged bytes are not fdatasync'ed (a writer that wants them
	 * durable calls fsync, which reaches the store): a daemon crash loses
	 * nothing without it, the published file is synced before its rename,
	 * and a CSV unlinked once published is then never written to disk at
	 * all. An operating-system crash before the publish loses what the
	 * writer had not synced, as on any filesystem (parquetfs(1)). */
	bool exists = false;
	pq_status st = t == STG_T_SCHEMA ? check_sidecar(fd, e->name, &err)
					 : publish(s, e, t, fd, &exists, &err);
	e->dirty = e->written = false;
	if (st != PQ_OK) {
		if (!err.msg[0])
			snprintf(err.msg, sizeof err.msg, "%s: conversion failed (%s)", e->name,
				 pq_status_name(st));
		stg_error_write(s, e->rel, err.msg);
		/* an I/O failure is no verdict on the bytes: a remount retries */
		stg_retry_mark(s, e->rel, !exists && status_errno(st) == EIO);
		pfs_log(LOG_NOTICE, "staging: %s", err.msg);
		/* a container without its key: EACCES, as reading one */
		return exists ? -EEXIST
		       : st == PQ_EKEY && stg_sealed(s, t) ? -EACCES : -status_errno(st);
	}
	stg_error_remove(s, e->rel);
	stg_retry_mark(s, e->rel, false);
	if (t == STG_T_SCHEMA)
		return 0;
	stg_append_published(s, e, fd, handles_open); /* its rows are in the target now */
	char p[PATH_MAX], done[PATH_MAX];
	if (stg_store_path(s, e->rel, NULL, p, sizeof p) ||
	    stg_store_path(s, e->rel, STG_MARK_DONE, done, sizeof done))
		return 0;
	/* handles still open (a dup'd descriptor) keep the bytes, hidden */
	if (handles_open && rename(p, done) == 0) {
		e->converted = true;
	} else {
		(void)unlink(p);
		e->gen = 0; /* no bytes file under the name any more */
	}
	return 0;
}
