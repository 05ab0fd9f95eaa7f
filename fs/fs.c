/* The filesystem object: its parts, how they are wired, their lifetime. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <xxhash.h>

#include "pfs_internal.h"
#include "pfs_source.h"
#include "pq_keyring.h"

/* The size index keys hold a fingerprint of the key_file: other keys may
 * decrypt what these could not (and so change sizes). */
static void key_fingerprint(const char *path, uint8_t fp[16])
{
	FILE *f = fopen(path, "rb");
	XXH3_state_t *st = XXH3_createState();
	if (f && st && XXH3_128bits_reset(st) == XXH_OK) {
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			XXH3_128bits_update(st, buf, n);
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
		memcpy(fp, c.digest, 16);
		explicit_bzero(buf, sizeof buf);
	} else {
		memset(fp, 0xff, 16); /* unknown: never the "no keys" of zeros */
	}
	XXH3_freeState(st);
	if (f)
		fclose(f);
}

/* The sizes are those of this build's renderers: an index written by
 * another build (whose rendering may differ by a byte) must not be
 * trusted. The executable's identity (device, inode, size, mtime) is
 * mixed into the fingerprint, so a rebuilt or upgraded daemon measures
 * again, and an unchanged one reuses its index across mounts. */
static void mix_build_identity(uint8_t fp[16])
{
	struct stat st;
	uint64_t id[6] = {0};
	if (stat("/proc/self/exe", &st) == 0) {
		id[0] = (uint64_t)st.st_dev;
		id[1] = (uint64_t)st.st_ino;
		id[2] = (uint64_t)st.st_size;
		id[3] = (uint64_t)st.st_mtim.tv_sec;
		id[4] = (uint64_t)st.st_mtim.tv_nsec;
	} else {
		id[5] = (uint64_t)getpid(); /* unknown build: an index of this mount only */
	}
	uint8_t buf[16 + sizeof id];
	memcpy(buf, fp, 16);
	memcpy(buf + 16, id, sizeof id);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(buf, sizeof buf));
	memcpy(fp, c.digest, 16);
}

/* The mount options the sizes depend on, mixed into the fingerprint:
 * with crc_check=off a damaged page is measured as decoded, with it on it
 * is a failed segment (doc/design.md), so the index keeps the two apart. */
static void mix_settings(uint8_t fp[16], const pfs_options *opts)
{
	if (opts->crc_check)
		return; /* the default: the fingerprint as before */
	uint8_t buf[16 + 9];
	memcpy(buf, fp, 16);
	memcpy(buf + 16, "crc_check", 9);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(buf, sizeof buf));
	memcpy(fp, c.digest, 16);
}

/* Fetched bytes of every remote reader together, past which they are
 * kept only in cache_size's spare room. PARQUETFS_TEST_READAHEAD sets it
 * (the tests' files are smaller than 48 MiB). */
static uint64_t readahead_budget(void)
{
	const char *t = getenv("PARQUETFS_TEST_READAHEAD");
	unsigned long long v = t ? strtoull(t, NULL, 10) : 0;
	return v >= 65536 ? (uint64_t)v : (uint64_t)48 << 20;
}

/* Nothing in SOURCE is hidden: when a local SOURCE holds an entry of the
 * staging folder's name ("staging" is a common name), that entry is shown
 * as it is and the mount has no staging folder, saying so (at mount: on
 * standard error). A remote prefix is not asked: a mount makes no request
 * before its first access. */
static bool staging_name_taken(pfs_fs *fs)
{
	const char *name = fs->opts->staging ? fs->opts->staging : PFS_DEFAULT_STAGING;
	struct stat st;
	if (fs->opts->source_kind != PFS_SRC_LOCAL || pfs_source_stat(fs, name, &st) != 0)
		return false;
	pfs_log(LOG_WARNING, "%s/%s exists: it is shown as it is, and the staging folder is off "
		"(mount with -o staging=NAME, a name SOURCE does not hold, to have one)",
		fs->opts->source_abs, name);
	return true;
}

pq_status pfs_fs_new(const pfs_options *opts, pfs_fs **out, pq_error *err)
{
	*out = NULL;
	pfs_fs *fs = calloc(1, sizeof *fs);
	if (!fs)
		return pq_fail(err, PQ_ENOMEM, "no memory");
	fs->opts = opts;
	atomic_init(&fs->next_id, 1);
	pfs_live_init(fs);
	pfs_kept_init(fs);
	pfs_sizes_bg_init(fs);
	fs->uid = getuid();
	fs->gid = getgid();
	/* A key_file that does not parse refuses the mount: better than
	 * files that fail one by one with "key not available". */
	if (opts->key_file) {
		pq_status st = pq_keyring_load(opts->key_file, &fs->keys, err);
		if (st != PQ_OK) {
			pfs_fs_free(fs);
			return st;
		}
		key_fingerprint(opts->key_file, fs->key_fp);
	}
	mix_build_identity(fs->key_fp);
	mix_settings(fs->key_fp, opts);
	fs->inodes = pfs_inodes_new();
	pfs_source *be = NULL;
	if (opts->source_kind == PFS_SRC_LOCAL) {
		be = pfs_source_local_new(opts->source_abs);
	} else {
		pfs_remote_opts ro = {
			.url = opts->source_abs,
			.s3 = {.profile = opts->profile, .region = opts->region,
			       .endpoint = opts->endpoint, .no_sign = opts->no_sign,
			       .path_style = opts->path_style,
			       .virtual_hosted = opts->virtual_hosted},
			.ca_file = opts->ca_file,
			.spool_dir = opts->spool_dir,
			.timeout_s = opts->timeout,
			.connect_timeout_s = opts->connect_timeout,
			.retries = opts->retries,
			.metadata_ttl = opts->metadata_ttl,
			/* readahead windows of every reader together */
			.readahead_budget = readahead_budget(),
			.cache_dir = opts->cache_dir,
			.cache_dir_size = opts->cache_dir_size,
		};
		pq_status st = opts->source_kind == PFS_SRC_S3 ? pfs_source_s3_new(&ro, &be, err)
							       : pfs_source_http_new(&ro, &be, err);
		if (st != PQ_OK) {
			pfs_fs_free(fs);
			return st;
		}
	}
	fs->sources = pfs_sources_new(opts->source_abs, opts->source_is_file, be);
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
	fs->dirs = pfs_dirs_new();
	int mrc = pfs_memory_init(fs);
	if (fs->cache)
		pfs_cache_set_budget(fs->cache, fs->budget);
	if (fs->budget && fs->sources)
		pfs_source_lend(fs, fs->budget);
	if (mrc || !fs->inodes || !fs->sources || !fs->cache || !fs->meta || !fs->notify ||
	    !fs->dirs) {
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
	if (!opts->read_only && !opts->source_is_file && opts->source_kind != PFS_SRC_HTTP &&
	    !staging_name_taken(fs) && pfs_staging_new(fs, &fs->staging, err) != PQ_OK) {
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
	fs->started = true;
	return rc;
}

void pfs_fs_stop(pfs_fs *fs)
{
	if (fs)
		pfs_notify_stop(fs->notify);
}

void pfs_fs_free(pfs_fs *fs)
{
	if (!fs)
		return;
	pfs_sizes_bg_wait(fs); /* shape jobs hold files and write the index */
	pfs_live_drop_all(fs);
	pfs_kept_sweep(fs, true);
	/* what the tests count: "no pass, no layout" after a remount (a mount
	 * that failed says its one line on stderr, nothing more) */
	if (fs->started)
		pfs_log(pfs_log_totals(), "mount totals: %llu size passes, %llu chunk layouts loaded, "
			"%llu segments rendered ahead, %llu reads behind a window, "
			"%llu columns measured alone, %llu column summaries rendered, "
			"%llu directory listings made, %llu directory handles opened",
			(unsigned long long)atomic_load(&fs->size_passes),
			(unsigned long long)atomic_load(&fs->layout_loads),
			(unsigned long long)atomic_load(&fs->ahead_used),
			(unsigned long long)atomic_load(&fs->restarts),
			(unsigned long long)atomic_load(&fs->column_passes),
			(unsigned long long)atomic_load(&fs->summaries),
			(unsigned long long)atomic_load(&fs->listings),
			(unsigned long long)atomic_load(&fs->dir_opens));
	uint64_t reqs, bytes;
	if (fs->started && fs->sources && pfs_source_counts(fs, &reqs, &bytes))
		pfs_log(pfs_log_totals(), "remote totals: %llu requests, %llu bytes received",
			(unsigned long long)reqs, (unsigned long long)bytes);
	pfs_staging_free(fs->staging); /* its recovery thread notifies */
	pfs_notify_free(fs->notify);
	pfs_dirs_free(fs->dirs); /* listings hold files */
	pfs_sources_free(fs->sources);
	pfs_cache_free(fs->cache);
	pfs_cache_free(fs->meta);
	pfs_inodes_free(fs->inodes);
	pq_keyring_free(fs->keys);
	pfs_memory_fini(fs); /* last: everything charged is gone by now */
	free(fs);
}

const struct fuse_lowlevel_ops *pfs_ll_ops(pfs_fs *fs)
{
	return fs->staging ? pfs_stg_ops(fs->staging, pfs_ro_ops()) : pfs_ro_ops();
}
