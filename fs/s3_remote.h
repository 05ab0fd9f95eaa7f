/* The S3 backend's state, shared by its listing (source_s3.c) and its
 * publishing (s3_publish.c). */
#ifndef PFS_S3_REMOTE_H
#define PFS_S3_REMOTE_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "pfs_source.h"
#include "remote_file.h"
#include "remote_http.h"
#include "s3_conf.h"

struct s3_dir;

typedef struct pfs_s3 {
	pfs_http *http;
	pfs_s3_conf conf;
	char bucket[64];
	char prefix[1024];          /* no leading or trailing '/' */
	char bucket_url[1024];      /* keys are appended after a '/' */
	char display[1100];         /* s3://bucket/prefix, for messages */
	char *spool_dir;
	long ttl;
	uid_t uid;
	gid_t gid;
	pfs_ra_budget budget;
	pthread_mutex_t lock;       /* dirs, listing */
	pthread_cond_t listed;      /* a listing under way ended */
	struct s3_dir *dirs;
	/* the directories being listed now, one thread each (the caller's
	 * rel strings) */
	const char **listing;
	size_t nlisting;
	unsigned forgets; /* pfs_s3_forget calls */
	/* directories made in staging/ that hold no object yet (S3 has
	 * none: a prefix exists while a key is under it); under lock */
	char **vdirs;
	size_t nvdirs;
	/* keys left out of listings (no path can name them), by hash: each
	 * is logged once; under lock */
	uint64_t *told;
	size_t ntold;
	bool told_full;
} pfs_s3;

/* .parquet, .parq, .pq in any case. */
bool pfs_s3_is_parquet_name(const char *name);
/* The URL of key (escaped) into buf: 0 or -ENAMETOOLONG. */
int pfs_s3_object_url(const pfs_s3 *s, const char *key, char *buf, size_t n);
/* Why a key's path component of len bytes cannot be a name here (a '.'
 * or '..', empty, over 255 bytes), or NULL when it can (s3_names.c). */
const char *pfs_s3_bad_name(const char *name, size_t len);
/* The log names key, left out of a listing for why: once per mount. */
void pfs_s3_tell_left_out(pfs_s3 *s, const char *key, const char *why);
/* Drops the cached listing of directory rel (after a publish into it). */
void pfs_s3_forget(pfs_s3 *s, const char *rel);

/* staging/'s mkdir and rmdir: 0 or -errno as mkdir(2), rmdir(2). */
int pfs_s3_vdir_add(pfs_s3 *s, const char *rel);
int pfs_s3_vdir_remove(pfs_s3 *s, const char *rel);

extern const pfs_publish_ops pfs_s3_publish_ops;

#endif
