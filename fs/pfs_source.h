/* The SOURCE interface: where the mount's directories and Parquet files
 * come from, and where staging/ publishes what it converts.
 *
 * fs/source.c holds what every backend shares (the pfs_src entries, file
 * generations, change detection, hidden names); a backend only answers
 * questions about paths. Paths are relative to SOURCE ("" is SOURCE
 * itself: a directory, or the one Parquet file of a single-file SOURCE),
 * without leading or trailing '/'. Today there is one backend, the local
 * directory (fs/source_local.c); a remote one (S3, HTTP) is one more file
 * filling these tables.
 *
 * Identities (pq_io.h) are how generic code notices change: an entry
 * whose identity differs from the one its generation was made from is a
 * new generation. They are compared, never interpreted. */
#ifndef PFS_SOURCE_H
#define PFS_SOURCE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "pq_budget.h"
#include "pq_error.h"
#include "pq_io.h"

/* Whom staging/ acts for (interface.md, "Mounting": staging acts with the
 * caller's rights): the user, group and supplementary groups of the FUSE
 * request that created the staged file. Groups past PFS_CRED_GROUPS are
 * dropped, which can only refuse more. */
#define PFS_CRED_GROUPS 64
typedef struct pfs_cred {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[PFS_CRED_GROUPS];
} pfs_cred;

/* One conversion being published (the backend's state). */
typedef struct pfs_publish pfs_publish;

/* Writing one Parquet file into SOURCE atomically: readers see the old
 * file or the new one, never a part, and readers of the old file keep it.
 * `who` (the staged file's name) starts every message, as staging/'s
 * .error files show them. */
typedef struct pfs_publish_ops {
	/* Whether cred could have written rel in SOURCE itself: search on
	 * every directory leading to it, write on the one holding it (or on
	 * the nearest existing one, when directories are missing), and for
	 * an existing rel write permission on it and, in a sticky directory,
	 * ownership of it or of the directory. 0, -EACCES, -EPERM or -errno. */
	int (*may_write)(void *be, const char *rel, const pfs_cred *cred);
	/* Starts writing rel for cred (checked as may_write; directories
	 * leading to it are created, owned by cred): *fd is an empty
	 * descriptor open for reading and writing, owned by the publication,
	 * that the conversion writes into. The file will belong to cred. */
	pq_status (*begin)(void *be, const char *rel, const char *who, const pfs_cred *cred,
			   pfs_publish **out, int *fd, pq_error *err);
	/* Makes the bytes written durable and puts them at rel (local:
	 * fsync, rename over the target, fsync of the directory), after
	 * checking cred against the target again. Frees p, whatever the
	 * outcome; a failed commit leaves nothing behind. */
	pq_status (*commit)(pfs_publish *p, pq_error *err);
	/* Drops what was written; frees p. */
	void (*abort)(pfs_publish *p);
	/* Directories of SOURCE, which staging/'s directories are (mkdir and
	 * rmdir in staging/) with cred's rights; a new one belongs to cred.
	 * 0 or -errno, as mkdir(2) and rmdir(2). */
	int (*mkdir)(void *be, const char *rel, mode_t mode, const pfs_cred *cred);
	int (*rmdir)(void *be, const char *rel, const pfs_cred *cred);
} pfs_publish_ops;

/* Called by list for each entry: a directory or a regular file (links
 * inside SOURCE are not followed, so never listed: doc/design.md,
 * "Symbolic links"), with its attributes and identity. Non-zero stops the list
 * and is returned by it. */
typedef int (*pfs_source_list_fn)(void *ctx, const char *name, const struct stat *st,
				  const pq_identity *id);

typedef struct pfs_source_ops {
	/* Entries of directory rel; other kinds (sockets, devices, links)
	 * are skipped. -errno when rel cannot be listed. */
	int (*list)(void *be, const char *rel, pfs_source_list_fn fn, void *ctx);
	/* Attributes and identity of rel, no link followed on the way; -errno
	 * (-ENOENT when it is not there, or a link is). */
	int (*stat)(void *be, const char *rel, struct stat *st, pq_identity *id);
	/* Whether rel starts with a Parquet magic (pq_magic_is_parquet):
	 * 1 yes, 0 no (or unreadable), -errno when the daemon is short of a
	 * resource (descriptors, memory: the answer says nothing of rel). */
	int (*sniff)(void *be, const char *rel);
	/* rel as a pq_source (one reference). The message names the file
	 * ("x.parquet: cannot open: Permission denied"). */
	pq_status (*open)(void *be, const char *rel, pq_source **out, pq_error *err);
	/* Space for statfs (df, and tools that check it); -errno if none. */
	int (*statfs)(void *be, struct statvfs *sv);
	void (*free)(void *be);
	/* NULL for a backend staging/ cannot write to. */
	const pfs_publish_ops *publish;
	/* Optional (remote backends): fetched bytes may also be kept in the
	 * mount's budget's spare room (pfs_ra_budget_lend), and reclaim gives
	 * up to need of them back when it is short (returns what it gave;
	 * never waits). */
	void (*lend)(void *be, pq_budget *mem);
	uint64_t (*reclaim)(void *be, uint64_t need);
	/* Optional (remote backends): requests made and body bytes received
	 * so far, for the mount totals line. */
	void (*counts)(void *be, uint64_t *requests, uint64_t *bytes);
} pfs_source_ops;

typedef struct pfs_source {
	const pfs_source_ops *ops;
	void *be;
} pfs_source;

/* The local directory (or single Parquet file) at root, an absolute path.
 * NULL when out of memory. */
pfs_source *pfs_source_local_new(const char *root);

/* A remote SOURCE (src/ picks the kind from the SOURCE syntax). */
#include "s3_conf.h"
typedef struct pfs_remote_opts {
	const char *url;          /* s3://BUCKET/PREFIX, or http(s)://... */
	pfs_s3_opts s3;
	const char *ca_file;
	const char *spool_dir;    /* staging's spool (S3) */
	long timeout_s;           /* a request receiving nothing this long */
	long connect_timeout_s;
	int retries;
	unsigned backoff_ms;
	long metadata_ttl;        /* seconds listings and identities are trusted */
	uint64_t readahead_budget;
	const char *cache_dir;    /* fetched bytes on disk, or NULL */
	uint64_t cache_dir_size;
} pfs_remote_opts;

/* S3 and HTTP(S): each checks its source once (lists the prefix, HEADs
 * the URL and checks that Range is honoured) and fails with one line
 * naming the cause. */
pq_status pfs_source_s3_new(const pfs_remote_opts *ro, pfs_source **out, pq_error *err);
pq_status pfs_source_http_new(const pfs_remote_opts *ro, pfs_source **out, pq_error *err);

/* mkdir -p of the directory holding path (0 or -errno): for the local
 * backend and staging's store, which is local whatever the backend. */
int pfs_local_mkdirs_for(const char *path);
void pfs_source_free(pfs_source *s);

#endif
