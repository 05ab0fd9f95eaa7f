/* The size index's bound (-o index_size; size_index.h): least recently
 * used entries go when the directory grows past it.
 *
 * "Used" is an entry's mtime: a store writes the entry (mtime now) and a
 * load sets it to now, so the order survives remounts and is shared by
 * every mount of the same index_dir (access times are not kept on most
 * file systems: noatime, relatime). An entry counts what it takes on disk
 * (its blocks, at least its length).
 *
 * The work per store is bounded: a mount counts the bytes it stores, and
 * only when that count passes the bound does it list the directory, count
 * it exactly and remove the oldest entries down to 3/4 of the bound. The
 * next listing is then at least a quarter of the bound of stores away (the
 * first store of a mount lists once, the count being unknown). Several
 * mounts sharing a directory each keep their own count: between their
 * listings it may pass the bound by what the others stored meanwhile.
 *
 * Only files named as entries (32 hex digits and ".sz") and their
 * temporaries are counted or removed: anything else in the directory
 * (a spool or cache_dir below it) is left alone. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "size_index.h"

#define NAME_LEN 35 /* 32 hex digits + ".sz" */
/* A temporary left by a writer that died (".NAME.tmp-PID") is removed once
 * it is this old: a live writer renames its own within milliseconds. */
#define STALE_TMP_SEC 3600

struct pfs_index_lru {
	pthread_mutex_t lock;
	uint64_t limit;
	uint64_t used; /* bytes this mount knows of (the limit + 1: unknown) */
};

pfs_index_lru *pfs_index_lru_new(uint64_t limit)
{
	pfs_index_lru *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	pthread_mutex_init(&b->lock, NULL);
	b->limit = limit;
	b->used = limit + 1; /* unknown: the first store lists the directory */
	return b;
}

void pfs_index_lru_free(pfs_index_lru *b)
{
	if (!b)
		return;
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool is_entry(const char *name)
{
	return strlen(name) == NAME_LEN && is_hex(name, 32) && !strcmp(name + 32, ".sz");
}

/* ".<entry>.tmp-<digits>", as pfs_index_store names its temporaries */
static bool is_tmp(const char *name)
{
	size_t n = strlen(name);
	if (n <= 1 + NAME_LEN + 5 || name[0] != '.' || !is_hex(name + 1, 32) ||
	    memcmp(name + 33, ".sz.tmp-", 8) != 0)
		return false;
	for (size_t i = 1 + NAME_LEN + 5; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

static uint64_t disk_bytes(const struct stat *st)
{
	uint64_t blocks = (uint64_t)st->st_blocks * 512, len = (uint64_t)st->st_size;
	return blocks > len ? blocks : len;
}

typedef struct ent {
	char name[NAME_LEN + 1];
	struct timespec used;
	uint64_t bytes;
} ent;

static int older_first(const void *a, const void *b)
{
	const struct timespec *x = &((const ent *)a)->used, *y = &((const ent *)b)->used;
	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	if (x->tv_nsec != y->tv_nsec)
		return x->tv_nsec < y->tv_nsec ? -1 : 1;
	return strcmp(((const ent *)a)->name, ((const ent *)b)->name);
}

uint64_t pfs_index_evict(const char *dir, uint64_t target)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	ent *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	time_t now = time(NULL);
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		bool entry = is_entry(de->d_name);
		if ((!entry && !is_tmp(de->d_name)) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (!entry) {
			if (now - st.st_mtim.tv_sec > STALE_TMP_SEC)
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (n == cap) {
			ent *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *nv);
			if (!nv) {
				/* no memory to order them: count what is listed so
				 * far, remove nothing (the next store tries again) */
				total = target + 1;
				goto out;
			}
			v = nv;
		}
		memcpy(v[n].name, de->d_name, NAME_LEN + 1);
		v[n].used = st.st_mtim;
		v[n].bytes = disk_bytes(&st);
		total += v[n].bytes;
		n++;
	}
	if (total > target && n > 1)
		qsort(v, n, sizeof *v, older_first);
	for (size_t i = 0; i < n && total > target; i++)
		if (unlinkat(dirfd(d), v[i].name, 0) == 0 || errno == ENOENT)
			total -= v[i].bytes;
out:
	free(v);
	closedir(d);
	return total;
}

void pfs_index_touch(const char *dir, const pfs_index_key *key)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", dir, key->name) >= (int)sizeof path)
		return;
	const struct timespec t[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
	(void)utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW); /* a cache: best effort */
}

uint64_t pfs_index_taken(const char *dir, const pfs_index_key *key)
{
	char path[4096];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/%s", dir, key->name) >= (int)sizeof path ||
	    lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return disk_bytes(&st);
}

void pfs_index_lru_stored(pfs_index_lru *b, const char *dir, const pfs_index_key *key,
			  uint64_t before)
{
	if (!b)
		return;
	uint64_t bytes = pfs_index_taken(dir, key);
	if (bytes > b->limit) {
		/* one entry past the whole bound is not kept: it would push
		 * out every other and then itself */
		char path[4096];
		if (snprintf(path, sizeof path, "%s/%s", dir, key->name) < (int)sizeof path)
			(void)unlink(path);
		return;
	}
	pthread_mutex_lock(&b->lock);
	/* a rewrite (the chunk shapes added to an entry) counts its growth */
	if (b->used <= b->limit)
		b->used += bytes > before ? bytes - before : 0;
	if (b->used > b->limit)
		b->used = pfs_index_evict(dir, b->limit - b->limit / 4);
	pthread_mutex_unlock(&b->lock);
}
