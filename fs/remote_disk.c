/* Fetched bytes of remote objects on disk (-o cache_dir, cache_dir_size):
 * reused across mounts, keyed by the object's identity (URL, size, ETag),
 * so a changed object never meets the bytes of its old version.
 *
 * One object is two files: NAME.blk holds its bytes at their offsets (a
 * sparse file), NAME.map one 8-byte XXH3 per PFS_DISK_BLOCK block of it (0:
 * not there). A block is used only when its hash matches what is read,
 * so a torn write, a crash between the two files or a damaged disk costs
 * a fetch, never wrong bytes. Only whole blocks (and the object's last,
 * shorter one) are kept. When the directory grows past its size, the
 * least recently written objects are removed. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "pfs.h"
#include "pfs_source.h"
#include "remote_disk.h"

struct pfs_disk {
	char *dir;
	uint64_t limit;
	pthread_mutex_t lock;  /* used, and eviction */
	uint64_t used;         /* bytes of .blk files, as far as we know */
};

pfs_disk *pfs_disk_new(const char *dir, uint64_t limit)
{
	char probe[PATH_MAX];
	int rc = snprintf(probe, sizeof probe, "%s/x", dir) >= (int)sizeof probe ? -ENAMETOOLONG
										 : pfs_local_mkdirs_for(probe);
	if (rc) {
		pfs_log(LOG_WARNING, "cache_dir %s: %s: fetched bytes are not kept on disk", dir,
			strerror(-rc));
		return NULL;
	}
	pfs_disk *d = calloc(1, sizeof *d);
	if (!d || !(d->dir = strdup(dir))) {
		free(d);
		return NULL;
	}
	d->limit = limit;
	d->used = limit; /* unknown: the first write measures */
	pthread_mutex_init(&d->lock, NULL);
	return d;
}

void pfs_disk_free(pfs_disk *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	free(d->dir);
	free(d);
}

static void paths(const pfs_disk *d, const pq_identity *id, char *blk, char *map, size_t n)
{
	XXH128_hash_t h = XXH3_128bits(id->bytes, id->len);
	snprintf(blk, n, "%s/%016" PRIx64 "%016" PRIx64 ".blk", d->dir, (uint64_t)h.high64,
		 (uint64_t)h.low64);
	snprintf(map, n, "%s/%016" PRIx64 "%016" PRIx64 ".map", d->dir, (uint64_t)h.high64,
		 (uint64_t)h.low64);
}

static uint64_t block_hash(const void *p, size_t n)
{
	uint64_t h = XXH3_64bits(p, n);
	return h ? h : 1; /* 0 means "not there" */
}

bool pfs_disk_read(pfs_disk *d, const pq_identity *id, uint64_t size, void *buf, uint64_t off,
		   uint64_t len)
{
	if (!d || !id->len || !len || off + len > size || off % PFS_DISK_BLOCK ||
	    (len % PFS_DISK_BLOCK && off + len != size))
		return false;
	char blk[PATH_MAX], map[PATH_MAX];
	paths(d, id, blk, map, sizeof blk);
	int bf = open(blk, O_RDONLY | O_CLOEXEC), mf = open(map, O_RDONLY | O_CLOEXEC);
	bool ok = bf >= 0 && mf >= 0;
	for (uint64_t at = off; ok && at < off + len; at += PFS_DISK_BLOCK) {
		uint64_t n = off + len - at < PFS_DISK_BLOCK ? off + len - at : PFS_DISK_BLOCK;
		uint64_t want = 0;
		ok = pread(mf, &want, 8, (off_t)(at / PFS_DISK_BLOCK * 8)) == 8 && want &&
		     pread(bf, (char *)buf + (at - off), (size_t)n, (off_t)at) == (ssize_t)n &&
		     block_hash((char *)buf + (at - off), (size_t)n) == want;
	}
	if (bf >= 0)
		close(bf);
	if (mf >= 0)
		close(mf);
	return ok;
}

/* Removes the oldest objects until the directory holds at most 3/4 of
 * its size (under d->lock). */
static void evict(pfs_disk *d)
{
	DIR *dir = opendir(d->dir);
	if (!dir)
		return;
	typedef struct { char name[64]; time_t mtime; uint64_t size; } obj;
	obj *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		size_t l = strlen(de->d_name);
		if (l != 36 || strcmp(de->d_name + 32, ".blk"))
			continue;
		struct stat st;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			obj *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *nv);
			if (!nv)
				break;
			v = nv;
		}
		snprintf(v[n].name, sizeof v[n].name, "%s", de->d_name);
		v[n].mtime = st.st_mtim.tv_sec;
		v[n].size = (uint64_t)st.st_blocks * 512; /* sparse: what it takes */
		total += v[n].size;
		n++;
	}
	while (total > d->limit - d->limit / 4 && n) {
		size_t old = 0;
		for (size_t i = 1; i < n; i++)
			if (v[i].mtime < v[old].mtime)
				old = i;
		(void)unlinkat(dirfd(dir), v[old].name, 0);
		memcpy(v[old].name + 32, ".map", 5);
		(void)unlinkat(dirfd(dir), v[old].name, 0);
		total -= v[old].size;
		v[old] = v[--n];
	}
	d->used = total;
	free(v);
	closedir(dir);
}

void pfs_disk_write(pfs_disk *d, const pq_identity *id, uint64_t size, const void *data,
		    uint64_t off, uint64_t len)
{
	if (!d || !id->len || !len || off + len > size)
		return;
	/* the whole blocks inside [off, off + len), and the last one of the object */
	uint64_t first = (off + PFS_DISK_BLOCK - 1) / PFS_DISK_BLOCK * PFS_DISK_BLOCK;
	if (first >= off + len)
		return;
	char blk[PATH_MAX], map[PATH_MAX];
	paths(d, id, blk, map, sizeof blk);
	int bf = open(blk, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	int mf = open(map, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	uint64_t wrote = 0;
	for (uint64_t at = first; bf >= 0 && mf >= 0 && at < off + len; at += PFS_DISK_BLOCK) {
		uint64_t n = size - at < PFS_DISK_BLOCK ? size - at : PFS_DISK_BLOCK;
		if (at + n > off + len)
			break; /* a block we have only part of */
		const char *p = (const char *)data + (at - off);
		uint64_t h = block_hash(p, (size_t)n);
		if (pwrite(bf, p, (size_t)n, (off_t)at) != (ssize_t)n ||
		    pwrite(mf, &h, 8, (off_t)(at / PFS_DISK_BLOCK * 8)) != 8)
			break;
		wrote += n;
	}
	if (bf >= 0)
		close(bf);
	if (mf >= 0)
		close(mf);
	pthread_mutex_lock(&d->lock);
	d->used += wrote;
	if (d->used > d->limit)
		evict(d);
	pthread_mutex_unlock(&d->lock);
}
