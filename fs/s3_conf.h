/* Where an S3 mount's region, endpoint and credentials come from
 * (interface.md, "Remote sources"): options, then the environment, then
 * the profile files, first found wins. Kept apart from the backend so
 * the order can be tested with a made-up environment. */
#ifndef PFS_S3_CONF_H
#define PFS_S3_CONF_H

#include <stdbool.h>

#include "pq_error.h"

typedef struct pfs_s3_opts {
	const char *profile, *region, *endpoint;
	bool no_sign, path_style, virtual_hosted;
} pfs_s3_opts;

typedef struct pfs_s3_conf {
	char region[64];
	char endpoint[512];     /* scheme://host[:port][/path], no trailing '/' */
	bool custom_endpoint;
	bool path_style;
	bool sign;
	char access_key[256], secret_key[256], session_token[4096];
	char cred_from[160];    /* "profile x", "the environment" (for messages) */
} pfs_s3_conf;

/* getenv, or a stand-in for tests. */
typedef const char *(*pfs_getenv_fn)(const char *name);

/* Resolves everything for bucket; PQ_EINVAL with a one-line message when
 * a named profile is missing or no credentials are found (and not
 * no_sign). Secrets never enter a message. */
pq_status pfs_s3_conf_resolve(const pfs_s3_opts *o, pfs_getenv_fn env, pfs_s3_conf *out,
			      pq_error *err);
/* Wipes the secrets. */
void pfs_s3_conf_clear(pfs_s3_conf *c);

/* The URL of bucket (path-style ENDPOINT/BUCKET, or virtual-hosted
 * scheme://BUCKET.HOST) into buf: false when it does not fit. */
bool pfs_s3_bucket_url(const pfs_s3_conf *c, const char *bucket, char *buf, size_t n);

/* s3://BUCKET[/PREFIX]: bucket and prefix (no leading or trailing '/'),
 * false when it is not such a URL or the bucket name is not plausible. */
bool pfs_s3_split_url(const char *url, char *bucket, size_t bn, char *prefix, size_t pn);

#endif
