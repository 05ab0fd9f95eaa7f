/* The HTTP(S) SOURCE backend (pfs_source.h): one Parquet file by URL, a
 * single-file SOURCE. Its size and ETag come from a HEAD, trusted for
 * metadata_ttl seconds, then asked again (a new ETag is a new generation,
 * as a changed local file). At mount the URL is HEADed and its first four
 * bytes read with a Range: a server that answers 200 with the whole file
 * is refused, since every later read would download it all. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfs.h"
#include "pfs_source.h"
#include "remote_disk.h"
#include "remote_file.h"
#include "remote_http.h"

typedef struct hsrc {
	pfs_http *http;
	char *url;
	const char *name;       /* in url */
	long ttl;
	uid_t uid;
	gid_t gid;
	pfs_ra_budget budget;
	pthread_mutex_t lock;   /* the fields below */
	uint64_t size;
	char etag[PFS_ETAG_MAX];
	time_t mtime;
	time_t checked;         /* monotonic seconds of the last HEAD */
} hsrc;

static time_t now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* HEAD: the size and ETag now (probe: the mount's check, pfs_http_req). */
static pq_status head(hsrc *h, bool probe, uint64_t *size, char *etag, pq_error *err)
{
	pfs_http_req rq = {.method = "HEAD", .url = h->url, .fd = -1, .probe = probe};
	pfs_http_resp rs;
	pq_status st = pfs_http_do(h->http, &rq, &rs, err);
	free(rs.body);
	if (st != PQ_OK)
		return pq_context(err, "%s: HEAD", h->url);
	if (rs.status != 200)
		return pfs_remote_fail(&rs, h->url, "HEAD", err);
	if (rs.content_length == UINT64_MAX)
		return pq_fail(err, PQ_EIO, "%s: the server sends no Content-Length", h->url);
	*size = rs.content_length;
	snprintf(etag, PFS_ETAG_MAX, "%s", rs.etag);
	return PQ_OK;
}

/* The first bytes with a Range: refuses a server that ignores it. */
static pq_status check_range(hsrc *h, pq_error *err)
{
	char b[PQ_MAGIC_LEN];
	if (h->size < 2 * PQ_MAGIC_LEN + 4)
		return pq_fail(err, PQ_EINVAL, "%s is not a Parquet file (%" PRIu64 " bytes)",
			       h->url, h->size);
	pfs_http_req rq = {.method = "GET", .url = h->url, .range = "bytes=0-3", .fd = -1,
			   .buf = b, .cap = sizeof b, .probe = true};
	pfs_http_resp rs;
	pq_status st = pfs_http_do(h->http, &rq, &rs, err);
	free(rs.body);
	if (rs.status == 200)
		return pq_fail(err, PQ_EINVAL, "%s: the server ignores Range requests "
			       "(HTTP 200 for bytes=0-3): cannot read it piecewise", h->url);
	if (st != PQ_OK)
		return pq_context(err, "%s: GET", h->url);
	if (rs.status != 206)
		return pfs_remote_fail(&rs, h->url, "range GET", err);
	if (rs.body_len != sizeof b || !pq_magic_is_parquet(b, sizeof b))
		return pq_fail(err, PQ_EINVAL, "%s is not a Parquet file (no PAR1/PARE magic)",
			       h->url);
	return PQ_OK;
}

/* The size and ETag, asked again once metadata_ttl has passed. */
static int current(hsrc *h, uint64_t *size, char *etag, time_t *mtime)
{
	pthread_mutex_lock(&h->lock);
	bool fresh = now_s() - h->checked <= h->ttl;
	pthread_mutex_unlock(&h->lock);
	if (!fresh) {
		pq_error err = {0};
		uint64_t sz;
		char et[PFS_ETAG_MAX];
		if (head(h, false, &sz, et, &err) != PQ_OK) {
			pfs_log(LOG_NOTICE, "%s", err.msg);
			return err.status == PQ_EKEY ? -EACCES : strstr(err.msg, "HTTP 404") ? -ENOENT
											: -EIO;
		}
		pthread_mutex_lock(&h->lock);
		if (sz != h->size || strcmp(et, h->etag))
			h->mtime = time(NULL);
		h->size = sz;
		snprintf(h->etag, sizeof h->etag, "%s", et);
		h->checked = now_s();
		pthread_mutex_unlock(&h->lock);
	}
	pthread_mutex_lock(&h->lock);
	*size = h->size;
	snprintf(etag, PFS_ETAG_MAX, "%s", h->etag);
	*mtime = h->mtime;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int http_list(void *be, const char *rel, pfs_source_list_fn fn, void *ctx)
{
	(void)be;
	(void)rel;
	(void)fn;
	(void)ctx;
	return -ENOTDIR;
}

static int http_stat(void *be, const char *rel, struct stat *st, pq_identity *id)
{
	hsrc *h = be;
	if (rel[0])
		return -ENOENT;
	uint64_t size;
	char etag[PFS_ETAG_MAX];
	time_t mtime;
	int rc = current(h, &size, etag, &mtime);
	if (rc)
		return rc;
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_uid = h->uid;
	st->st_gid = h->gid;
	st->st_size = (off_t)size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
	st->st_mtim.tv_sec = mtime;
	st->st_atim = st->st_ctim = st->st_mtim;
	pfs_remote_identity(h->url, size, etag, id);
	return 0;
}

static int http_sniff(void *be, const char *rel)
{
	(void)be;
	return !rel[0]; /* the magic was checked at mount */
}

static pq_status http_open(void *be, const char *rel, pq_source **out, pq_error *err)
{
	hsrc *h = be;
	*out = NULL;
	uint64_t size;
	char etag[PFS_ETAG_MAX];
	time_t mtime;
	int rc = rel[0] ? -ENOENT : current(h, &size, etag, &mtime);
	if (rc)
		return pq_fail(err, rc == -EACCES ? PQ_EKEY : PQ_EIO, "%s: cannot open: %s",
			       h->name, strerror(-rc));
	return pfs_remote_open(h->http, &h->budget, h->url, h->name, size, etag, out, err);
}

/* One read-only object: df shows its size as used, nothing free (HTTP
 * sources have no staging), one file. */
static int http_statfs(void *be, struct statvfs *sv)
{
	hsrc *h = be;
	memset(sv, 0, sizeof *sv);
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_namemax = 255;
	pthread_mutex_lock(&h->lock);
	sv->f_blocks = (fsblkcnt_t)((h->size + 4095) / 4096);
	pthread_mutex_unlock(&h->lock);
	sv->f_files = 1;
	return 0;
}

static void http_free(void *be)
{
	hsrc *h = be;
	pfs_ra_budget_quiesce(&h->budget);
	pfs_http_free(h->http);
	pthread_mutex_destroy(&h->lock);
	pfs_disk_free(h->budget.disk);
	pfs_ra_budget_destroy(&h->budget);
	free(h->url);
	free(h);
}

static void http_lend(void *be, pq_budget *mem)
{
	pfs_ra_budget_lend(&((hsrc *)be)->budget, mem);
}

static uint64_t http_reclaim(void *be, uint64_t need)
{
	return pfs_ra_budget_reclaim(&((hsrc *)be)->budget, need);
}

static void http_counts(void *be, uint64_t *requests, uint64_t *bytes)
{
	pfs_http_counts(((hsrc *)be)->http, requests, bytes);
}

static const pfs_source_ops http_ops = {
	.list = http_list,
	.stat = http_stat,
	.sniff = http_sniff,
	.open = http_open,
	.statfs = http_statfs,
	.free = http_free,
	.publish = NULL, /* HTTP sources have no staging */
	.lend = http_lend,
	.reclaim = http_reclaim,
	.counts = http_counts,
};

pq_status pfs_source_http_new(const pfs_remote_opts *ro, pfs_source **out, pq_error *err)
{
	*out = NULL;
	hsrc *h = calloc(1, sizeof *h);
	pfs_source *src = calloc(1, sizeof *src);
	if (!h || !src || !(h->url = strdup(ro->url))) {
		free(h);
		free(src);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	pthread_mutex_init(&h->lock, NULL);
	const char *slash = strrchr(h->url, '/');
	h->name = slash ? slash + 1 : h->url;
	h->ttl = ro->metadata_ttl;
	h->uid = getuid();
	h->gid = getgid();
	pfs_ra_budget_init(&h->budget, ro->readahead_budget);
	if (ro->cache_dir)
		h->budget.disk = pfs_disk_new(ro->cache_dir, ro->cache_dir_size);
	src->ops = &http_ops;
	src->be = h;
	pfs_http_conf hc = {.ca_file = ro->ca_file, .timeout_s = ro->timeout_s,
			    .connect_timeout_s = ro->connect_timeout_s,
			    .retries = ro->retries, .backoff_ms = ro->backoff_ms};
	pq_status st = pfs_http_new(&hc, &h->http, err);
	if (st == PQ_OK)
		st = head(h, true, &h->size, h->etag, err);
	if (st == PQ_OK)
		st = check_range(h, err);
	if (st != PQ_OK) {
		pfs_source_free(src);
		return st;
	}
	h->mtime = time(NULL);
	h->checked = now_s();
	*out = src;
	return PQ_OK;
}
