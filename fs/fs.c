/* The filesystem object: its parts, their lifetime, and logging. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "pfs_internal.h"
#include "pq_keyring.h"

void pfs_log(int priority, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsyslog(priority, fmt, ap);
	va_end(ap);
}

uint64_t pfs_fs_new_id(pfs_fs *fs)
{
	return (uint64_t)atomic_fetch_add(&fs->next_id, 1);
}

pq_status pfs_fs_new(const pfs_options *opts, pfs_fs **out, pq_error *err)
{
	*out = NULL;
	pfs_fs *fs = calloc(1, sizeof *fs);
	if (!fs)
		return pq_fail(err, PQ_ENOMEM, "no memory");
	fs->opts = opts;
	atomic_init(&fs->next_id, 1);
	pthread_mutex_init(&fs->live_lock, NULL);
	fs->live.prev = fs->live.next = &fs->live;
	fs->uid = getuid();
	fs->gid = getgid();
	/* A key_file that does not parse refuses the mount: better than
	 * files that fail one by one with "key not available". */
	if (opts->key_file) {
		pq_status st = pq_keyring_load(opts->key_file, &fs->keys, err);
		if (st != PQ_OK) {
			free(fs);
			return st;
		}
	}
	fs->inodes = pfs_inodes_new();
	fs->sources = pfs_sources_new(opts->source_abs, opts->source_is_file);
	/* A quarter for layouts and metadata (at least 16 MiB: a chunk of
	 * 40,000 pages has a 12 MiB layout, and a layout that does not fit
	 * would be re-read for every page), the rest for decoded data. */
	uint64_t meta = opts->cache_size / 4;
	if (meta < PFS_META_MIN)
		meta = PFS_META_MIN;
	uint64_t data = opts->cache_size - opts->cache_size / 4;
	fs->meta = pfs_cache_new(meta);
	fs->cache = pfs_cache_new(data);
	fs->notify = pfs_notify_new();
	if (!fs->inodes || !fs->sources || !fs->cache || !fs->meta || !fs->notify) {
		pfs_fs_free(fs);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	/* The root is inode 1 (FUSE_ROOT_ID): the first key handed out. */
	pfs_src *root = pfs_src_root(fs);
	root->id = pfs_fs_new_id(fs);
	pfs_key k = pfs_key_make(root->id, root->is_file ? PFS_K_FILE : PFS_K_SRC_DIR, 0, 0, 0);
	pfs_node *n = pfs_inode_get(fs->inodes, &k, root);
	if (!n || n->ino != FUSE_ROOT_ID) {
		pfs_fs_free(fs);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	/* staging/ needs a writable mount and a SOURCE directory to write in */
	if (!opts->read_only && !opts->source_is_file &&
	    pfs_staging_new(fs, &fs->staging, err) != PQ_OK) {
		pfs_fs_free(fs);
		return err->status;
	}
	*out = fs;
	return PQ_OK;
}

int pfs_fs_start(pfs_fs *fs, struct fuse_session *se)
{
	int rc = pfs_notify_start(fs->notify, se);
	if (rc == 0 && fs->staging)
		rc = pfs_staging_start(fs->staging);
	return rc;
}

void pfs_live_add(pfs_fs *fs, pfs_live *l, int what)
{
	pthread_mutex_lock(&fs->live_lock);
	l->what = what;
	l->prev = &fs->live;
	l->next = fs->live.next;
	fs->live.next->prev = l;
	fs->live.next = l;
	pthread_mutex_unlock(&fs->live_lock);
}

void pfs_live_del(pfs_fs *fs, pfs_live *l)
{
	pthread_mutex_lock(&fs->live_lock);
	if (l->next) {
		l->prev->next = l->next;
		l->next->prev = l->prev;
		l->prev = l->next = NULL;
	}
	pthread_mutex_unlock(&fs->live_lock);
}

void pfs_fs_free(pfs_fs *fs)
{
	if (!fs)
		return;
	pfs_ops_free_live(fs);
	pfs_staging_free(fs->staging); /* its recovery thread notifies */
	pfs_notify_free(fs->notify);
	pfs_sources_free(fs->sources);
	pfs_cache_free(fs->cache);
	pfs_cache_free(fs->meta);
	pfs_inodes_free(fs->inodes);
	pthread_mutex_destroy(&fs->live_lock);
	pq_keyring_free(fs->keys);
	free(fs);
}

pfs_cache *pfs_cache_for(pfs_fs *fs, pfs_kind kind)
{
	switch (kind) {
	case PFS_C_PAGE_DATA:
	case PFS_K_PAGE_VALUES:
	case PFS_K_PAGE_LEVELS:
	case PFS_K_PAGE_DATA:
	case PFS_K_BLOOM_BIN:
	case PFS_K_VERIFY:
		return fs->cache;
	default:
		return fs->meta;
	}
}

