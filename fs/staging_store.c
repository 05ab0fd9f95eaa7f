/* Staged bytes on disk, and what a crash leaves behind.
 *
 * The store mirrors staging/ under SOURCE/.parquetfs/staging: a staged
 * file x.csv is store/x.csv, its error store/x.csv.error. Two markers
 * carry the life cycle across a crash (names ending in them are never
 * accepted in staging/, so they cannot clash with a user's file):
 *
 *   x.csv.open   exists while a writer may still add bytes (from the
 *                create/open for writing, or the first write after a
 *                conversion, until the converting flush or the release);
 *   x.csv.done   the bytes of a file already published whose handle is
 *                still open (a dup'd descriptor); removed at release.
 *
 * x.csv.progress (shown in staging/) exists while x.csv converts.
 *
 *   x.csv.retry  its last conversion failed for I/O (EIO: an upload the
 *                server refused, a disk error), not for its content.
 *
 * At mount, recovery (a thread of its own) gives every unclosed file an
 * .error, removes .done files, converts every closed staged file that has
 * no .error yet or whose .error came with a .retry marker, and removes
 * temporary files of publishing (.NAME.parquet.tmp-PID-N) that no writer
 * holds locked. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "staging_internal.h"

#define RECOVERY_MAX_DEPTH 64
/* A temporary file still held at mount is looked at again after a second,
 * then less and less often (the thread wakes every 100 ms, so an unmount
 * does not wait for it). */
#define RECOVERY_RETRY_NS 100000000L
#define RECOVERY_RETRY_PASS 10   /* ticks before the second pass */
#define RECOVERY_RETRY_MAX 600   /* ticks between passes, at most (a minute) */

static const struct {
	const char *ext;
	stg_type t;
	pq_input_codec codec;
} exts[] = {
	{".csv", STG_T_CSV, PQ_INPUT_PLAIN},
	{".tsv", STG_T_TSV, PQ_INPUT_PLAIN},
	{".schema", STG_T_SCHEMA, PQ_INPUT_PLAIN},
	{".parquet", STG_T_PARQUET, PQ_INPUT_PLAIN},
	{".csv.gz", STG_T_CSV, PQ_INPUT_GZIP},
	{".tsv.gz", STG_T_TSV, PQ_INPUT_GZIP},
	{".csv.zst", STG_T_CSV, PQ_INPUT_ZSTD},
	{".tsv.zst", STG_T_TSV, PQ_INPUT_ZSTD},
	{".parquet.aruna", STG_T_ARUNA, PQ_INPUT_PLAIN}, /* published as is */
};

/* The entry of exts that name ends with (a compressed one before its
 * last part), or -1. A name is a stem and an extension: ".csv" alone has
 * no stem, hidden names are never staged. */
static int ext_of(const char *name)
{
	size_t n = strlen(name);
	if (name[0] == '.')
		return -1;
	int best = -1;
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		size_t k = strlen(exts[i].ext);
		if (n > k && !strcasecmp(name + n - k, exts[i].ext) &&
		    (best < 0 || k > strlen(exts[best].ext)))
			best = (int)i;
	}
	return best;
}

stg_type stg_type_of(const char *name)
{
	int i = ext_of(name);
	return i < 0 ? STG_T_NONE : exts[i].t;
}

pq_input_codec stg_codec_of(const char *name)
{
	int i = ext_of(name);
	return i < 0 ? PQ_INPUT_PLAIN : exts[i].codec;
}

size_t stg_stem_len(const char *name)
{
	int i = ext_of(name);
	return i < 0 ? strlen(name) : strlen(name) - strlen(exts[i].ext);
}

/* Length of the staged name a name with this suffix belongs to, or 0. */
static size_t suffix_base(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	if (n <= k || strcmp(name + n - k, suffix))
		return 0;
	char base[NAME_MAX + 1];
	if (n - k > NAME_MAX)
		return 0;
	memcpy(base, name, n - k);
	base[n - k] = '\0';
	return stg_type_of(base) != STG_T_NONE ? n - k : 0;
}

size_t stg_error_base(const char *name)
{
	return suffix_base(name, STG_ERROR);
}

size_t stg_progress_base(const char *name)
{
	return suffix_base(name, STG_PROGRESS);
}

int stg_store_path(const pfs_staging *s, const char *rel, const char *suffix, char *buf,
		   size_t n)
{
	int k = snprintf(buf, n, "%s%s%s%s", s->store, rel[0] ? "/" : "", rel,
			 suffix ? suffix : "");
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

int stg_join(const char *rel, const char *name, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s%s%s", rel, rel[0] ? "/" : "", name);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

/* fsync of the directory holding path, so a new or removed name survives
 * a power loss. */
static void sync_dir_of(const char *path)
{
	char d[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof d)
		return;
	memcpy(d, path, n + 1);
	char *slash = strrchr(d, '/');
	if (!slash)
		return;
	*slash = '\0';
	int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int stg_marker_set(pfs_staging *s, stg_ent *e)
{
	if (e->marker)
		return 0;
	char p[PATH_MAX];
	int rc = stg_store_path(s, e->rel, STG_MARK_OPEN, p, sizeof p);
	if (rc)
		return rc;
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	sync_dir_of(p);
	e->marker = true;
	return 0;
}

void stg_marker_clear(pfs_staging *s, stg_ent *e)
{
	char p[PATH_MAX];
	if (e->marker && stg_store_path(s, e->rel, STG_MARK_OPEN, p, sizeof p) == 0)
		(void)unlink(p);
	e->marker = false;
}

void stg_marker_closed(pfs_staging *s, stg_ent *e)
{
	char p[PATH_MAX];
	if (e->marker && stg_store_path(s, e->rel, STG_MARK_OPEN, p, sizeof p) == 0 &&
	    unlink(p) == 0)
		sync_dir_of(p);
	e->marker = false;
}

void stg_error_write(pfs_staging *s, const char *rel, const char *msg)
{
	char p[PATH_MAX], tmp[PATH_MAX];
	if (stg_store_path(s, rel, STG_ERROR, p, sizeof p) ||
	    stg_store_path(s, rel, STG_ERROR ".tmp", tmp, sizeof tmp))
		return;
	/* one line: control bytes of a name or value escaped (\x0a) */
	char line[PQ_ERROR_MSG_MAX * 2 + 2];
	size_t n = pfs_escape_line(msg, line, sizeof line - 1);
	line[n++] = '\n';
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		pfs_log(LOG_ERR, "%s: %s", tmp, strerror(errno));
		return;
	}
	/* the .error belongs to whom the staged file belongs (who may rm it
	 * from a sticky directory), with its mode: it may quote its values */
	char sp[PATH_MAX];
	struct stat sst;
	bool staged = stg_store_path(s, rel, NULL, sp, sizeof sp) == 0 && stat(sp, &sst) == 0;
	if (staged && geteuid() == 0 && fchown(fd, sst.st_uid, sst.st_gid) != 0)
		pfs_log(LOG_WARNING, "%s: %s", tmp, strerror(errno));
	if (fchmod(fd, staged ? sst.st_mode & 0666 : 0644) != 0)
		pfs_log(LOG_WARNING, "%s: %s", tmp, strerror(errno));
	bool ok = write(fd, line, n) == (ssize_t)n && fsync(fd) == 0;
	close(fd);
	if (!ok || rename(tmp, p) != 0) {
		pfs_log(LOG_ERR, "cannot write %s: %s", p, strerror(errno));
		(void)unlink(tmp);
		return;
	}
	sync_dir_of(p);
}

void stg_error_remove(pfs_staging *s, const char *rel)
{
	char p[PATH_MAX];
	if (stg_store_path(s, rel, STG_ERROR, p, sizeof p) == 0)
		(void)unlink(p);
}

void stg_retry_mark(pfs_staging *s, const char *rel, bool on)
{
	char p[PATH_MAX];
	if (stg_store_path(s, rel, STG_MARK_RETRY, p, sizeof p) != 0)
		return;
	if (!on) {
		(void)unlink(p);
		return;
	}
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		pfs_log(LOG_ERR, "%s: %s", p, strerror(errno));
		return;
	}
	close(fd);
	sync_dir_of(p);
}

/* ---- recovery ------------------------------------------------------------------ */

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n > k && !strcmp(name + n - k, suffix);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Pass 1 over one store directory: markers and .done files. */
static void recover_markers(pfs_staging *s, const char *rel, DIR *d)
{
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		if (stg_append_stale(s, rel, name))
			continue;
		bool open_m = has_suffix(name, STG_MARK_OPEN);
		bool done_m = has_suffix(name, STG_MARK_DONE);
		bool err_tmp = has_suffix(name, STG_ERROR ".tmp");
		bool prog = has_suffix(name, STG_PROGRESS) || has_suffix(name, STG_PROGRESS ".tmp");
		if (!open_m && !done_m && !err_tmp && !prog)
			continue;
		char frel[PATH_MAX], p[PATH_MAX];
		if (stg_join(rel, name, frel, sizeof frel) ||
		    stg_store_path(s, frel, NULL, p, sizeof p))
			continue;
		if (open_m) {
			/* the staged name: frel without the marker suffix */
			frel[strlen(frel) - strlen(STG_MARK_OPEN)] = '\0';
			char data[PATH_MAX];
			if (stg_store_path(s, frel, NULL, data, sizeof data) == 0 && exists(data)) {
				const char *base = strrchr(frel, '/');
				base = base ? base + 1 : frel;
				char msg[PQ_ERROR_MSG_MAX];
				snprintf(msg, sizeof msg,
					 "%s: the writer never closed it (parquetfs stopped while it "
					 "was being written); nothing was published: copy it again "
					 "or remove it", base);
				stg_error_write(s, frel, msg);
				pfs_log(LOG_WARNING, "staging: %s was never closed", frel);
			}
		}
		(void)unlink(p);
	}
}

/* Pass 2: sidecars first (so conversions see their verdict), then data. */
static void recover_files(pfs_staging *s, const char *rel, DIR *d, bool schemas)
{
	struct dirent *de;
	rewinddir(d);
	while (!atomic_load(&s->stop) && (de = readdir(d))) {
		stg_type t = stg_type_of(de->d_name);
		if (t == STG_T_NONE || (t == STG_T_SCHEMA) != schemas)
			continue;
		char frel[PATH_MAX], p[PATH_MAX], ep[PATH_MAX];
		if (stg_join(rel, de->d_name, frel, sizeof frel) ||
		    stg_store_path(s, frel, NULL, p, sizeof p) ||
		    stg_store_path(s, frel, STG_ERROR, ep, sizeof ep))
			continue;
		char rp[PATH_MAX];
		struct stat st;
		/* an .error: its bytes are known to be bad, unless it failed for
		 * I/O (the .retry marker: an upload the server refused), which a
		 * remount tries again */
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) ||
		    (exists(ep) && (stg_store_path(s, frel, STG_MARK_RETRY, rp, sizeof rp) ||
				    !exists(rp))))
			continue;
		stg_ent *e = stg_ent_get(s, frel);
		if (!e)
			continue;
		pthread_mutex_lock(&e->lock);
		/* a writer that came since the mount owns the file now */
		if (e->writers == 0 && !e->marker) {
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				pfs_log(LOG_INFO, "staging: converting %s, closed before a restart",
					frel);
				(void)stg_finish(s, e, fd, false);
				close(fd);
			}
		}
		pthread_mutex_unlock(&e->lock);
	}
}

static void recover_dir(pfs_staging *s, const char *rel, int depth)
{
	char p[PATH_MAX];
	if (depth > RECOVERY_MAX_DEPTH || stg_store_path(s, rel, NULL, p, sizeof p))
		return;
	DIR *d = opendir(p);
	if (!d)
		return;
	recover_markers(s, rel, d);
	recover_files(s, rel, d, true);
	recover_files(s, rel, d, false);
	rewinddir(d);
	struct dirent *de;
	while (!atomic_load(&s->stop) && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char crel[PATH_MAX];
		struct stat st;
		if (stg_join(rel, de->d_name, crel, sizeof crel) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		recover_dir(s, crel, depth + 1);
	}
	closedir(d);
}

/* ".NAME.parquet.tmp-PID-N": a publication's temporary file. */
static bool publish_tmp(const char *name)
{
	if (name[0] != '.')
		return false;
	const char *t = strstr(name, ".parquet.tmp-");
	if (!t)
		return false;
	char *end;
	long pid = strtol(t + strlen(".parquet.tmp-"), &end, 10);
	return pid > 0 && *end == '-';
}

/* Removes a publication's temporary file that no one writes: its writer
 * holds an flock on it until it is renamed (source_local.c), and the
 * kernel drops that lock with the writer's last descriptor, however it
 * ended (a killed daemon's process id may live on as a zombie, or be
 * reused). 0 removed or gone, -EWOULDBLOCK held. */
static int remove_tmp(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat a, b;
	int rc = 0;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		rc = errno == EWOULDBLOCK ? -EWOULDBLOCK : 0;
	/* still the file locked (not a new one under the name), then gone */
	else if (fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		 a.st_ino == b.st_ino && a.st_dev == b.st_dev && unlinkat(dfd, name, 0) == 0)
		pfs_log(LOG_INFO, "staging: removed %s, left by a stopped conversion", name);
	close(fd);
	return rc;
}

/* Temporary files in SOURCE; those held by a writer are counted in *held
 * (when the writer is a daemon still exiting, a later pass removes them). */
static void clean_tmp(pfs_staging *s, int dfd, int depth, int *held)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while (!atomic_load(&s->stop) && (de = readdir(d))) {
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".parquetfs"))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode) && publish_tmp(name)) {
			if (remove_tmp(dirfd(d), name) != 0)
				(*held)++;
		} else if (S_ISDIR(st.st_mode) && depth < RECOVERY_MAX_DEPTH) {
			int c = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (c >= 0)
				clean_tmp(s, c, depth + 1, held);
		}
	}
	closedir(d);
}

/* One pass over SOURCE; the number of temporary files still held. */
static int clean_source(pfs_staging *s)
{
	int held = 0;
	int dfd = open(s->fs->opts->source_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		clean_tmp(s, dfd, 0, &held);
	return held;
}

void *stg_recovery_run(void *arg)
{
	pfs_staging *s = arg;
	int held = clean_source(s);
	int rc = stg_store_check(s, false);
	if (rc == 0)
		recover_dir(s, "", 0);
	else if (rc != -ENOENT)
		pfs_log(LOG_ERR, "staging: %s is not the daemon's own directory: not recovered",
			s->store);
	/* Files still locked: a killed daemon whose exit is not over (a
	 * thread in a long fdatasync), or another daemon's conversion, which
	 * renames or removes its own. Looked at again until none is left,
	 * after 1 s, then 2, 4 ... at most RECOVERY_RETRY_MAX ticks apart (a
	 * pass walks all of SOURCE). */
	for (int i = 0, next = RECOVERY_RETRY_PASS, gap = RECOVERY_RETRY_PASS;
	     held > 0 && !atomic_load(&s->stop); i++) {
		struct timespec ts = {0, RECOVERY_RETRY_NS};
		nanosleep(&ts, NULL);
		if (i + 1 >= next) {
			held = clean_source(s);
			gap = gap * 2 > RECOVERY_RETRY_MAX ? RECOVERY_RETRY_MAX : gap * 2;
			next = i + 1 + gap;
		}
	}
	return NULL;
}

/* One directory of the store's path: made when missing (with make), then
 * it must be a directory (not a link) of the daemon's user. */
static int own_dir(const char *p, bool make)
{
	if (make && mkdir(p, 0755) != 0 && errno != EEXIST)
		return -errno;
	struct stat st;
	if (lstat(p, &st) != 0)
		return -errno;
	return S_ISDIR(st.st_mode) && st.st_uid == geteuid() ? 0 : -EACCES;
}

int stg_store_check(pfs_staging *s, bool make)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", s->store);
	char *slash = strrchr(p, '/');
	if (slash)
		*slash = '\0'; /* SOURCE/.parquetfs */
	int rc = own_dir(p, make);
	return rc ? rc : own_dir(s->store, make);
}
