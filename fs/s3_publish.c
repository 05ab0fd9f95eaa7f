/* Publishing to S3 (pfs_publish_ops of source_s3.c): the conversion
 * writes into an unlinked spool file under spool_dir; commit uploads it
 * as PREFIX/rel with one PutObject, or above PFS_S3_PART bytes with a
 * multipart upload whose parts go up in parallel (aborted on any
 * failure, so no half-uploaded parts stay billed). An object is visible
 * to every reader once S3 answered the PUT (or the completion), so commit
 * returning means `cp` returns with the object there; the listing of its
 * directory is dropped so the mount shows it at once.
 *
 * The staged CSV itself stays in staging's store (under spool_dir for an
 * S3 SOURCE) until commit succeeded: a crash before that leaves it there,
 * and the next mount's recovery converts and uploads it again. S3 has no
 * directories (a prefix exists while an object is under it): mkdir and
 * rmdir in staging/ have nothing to do in SOURCE. Rights are S3's: the
 * credentials of the mount decide, an AccessDenied fails the commit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs.h"
#include "s3_remote.h"
#include "s3_xml.h"

#define PFS_S3_PART ((uint64_t)8 << 20)
#define PFS_S3_MAX_PARTS 10000
#define UPLOAD_THREADS 4
#define URL_MAX 4096

struct pfs_publish {
	pfs_s3 *s;
	int fd;
	char who[256];
	char rel[PFS_S3_KEY_MAX + 1];
	char url[URL_MAX];
};

static int pub_may_write(void *be, const char *rel, const pfs_cred *c)
{
	(void)be;
	(void)c;
	return strlen(rel) > PFS_S3_KEY_MAX ? -ENAMETOOLONG : 0;
}

static pq_status pub_begin(void *be, const char *rel, const char *who, const pfs_cred *c,
			   pfs_publish **out, int *fd, pq_error *err)
{
	(void)c;
	pfs_s3 *s = be;
	*out = NULL;
	pfs_publish *p = calloc(1, sizeof *p);
	if (!p)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory", who);
	p->s = s;
	p->fd = -1;
	snprintf(p->who, sizeof p->who, "%s", who);
	char key[PFS_S3_KEY_MAX + 2];
	int k = snprintf(key, sizeof key, "%s%s%s", s->prefix, s->prefix[0] ? "/" : "", rel);
	if (k < 0 || (size_t)k > PFS_S3_KEY_MAX || strlen(rel) >= sizeof p->rel ||
	    pfs_s3_object_url(s, key, p->url, sizeof p->url)) {
		free(p);
		return pq_fail(err, PQ_EIO, "%s: the key %s is too long for S3", who, rel);
	}
	snprintf(p->rel, sizeof p->rel, "%s", rel);
	if (!s->spool_dir) {
		free(p);
		return pq_fail(err, PQ_EIO, "%s: no spool_dir to write into", who);
	}
	char tmpl[PATH_MAX];
	k = snprintf(tmpl, sizeof tmpl, "%s/upload-XXXXXX", s->spool_dir);
	int rc = k < 0 || (size_t)k >= sizeof tmpl ? -ENAMETOOLONG : pfs_local_mkdirs_for(tmpl);
	if (rc == 0) {
		p->fd = mkostemp(tmpl, O_CLOEXEC);
		if (p->fd < 0)
			rc = -errno;
		else
			(void)unlink(tmpl); /* gone with its descriptor, crash or not */
	}
	if (rc) {
		free(p);
		return pq_fail(err, PQ_EIO, "%s: cannot make a spool file in %s: %s", who,
			       s->spool_dir, strerror(-rc));
	}
	*out = p;
	*fd = p->fd;
	return PQ_OK;
}

static void pub_free(pfs_publish *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

static void pub_abort(pfs_publish *p)
{
	pub_free(p);
}

/* A response that must be 200 (S3 may also send an <Error> in a 200 to a
 * completion). */
static pq_status judge(const pfs_publish *p, const pfs_http_resp *rs, const char *what,
		       pq_error *err)
{
	if (rs->status == 200) {
		char code[128];
		if (!rs->body || !pfs_s3_xml_value(rs->body, rs->body_len, "Code", code, sizeof code))
			return PQ_OK;
		return pq_fail(err, PQ_EIO, "%s: %s of %s failed: %s", p->who, what, p->rel, code);
	}
	pq_status st = pfs_remote_fail(rs, p->who, what, err);
	return st;
}

static pq_status put_whole(pfs_publish *p, uint64_t size, pq_error *err)
{
	pfs_http_req rq = {.method = "PUT", .url = p->url, .fd = p->fd, .off = 0, .len = size,
			   .content_type = "application/vnd.apache.parquet", .max_body = 1 << 16};
	pfs_http_resp rs;
	pq_status st = pfs_http_do(p->s->http, &rq, &rs, err);
	if (st == PQ_OK)
		st = judge(p, &rs, "PutObject", err);
	else
		pq_context(err, "%s: PutObject of %s", p->who, p->rel);
	free(rs.body);
	return st;
}

/* ---- multipart ----------------------------------------------------------------- */

typedef struct upload {
	pfs_publish *p;
	char id[1024];          /* UploadId, escaped for the query */
	uint64_t size, part;
	uint32_t nparts;
	char (*etags)[PFS_ETAG_MAX];
	atomic_uint next;       /* the next part to send */
	atomic_bool failed;
	pthread_mutex_t lock;   /* err */
	pq_error err;
} upload;

static void *part_worker(void *arg)
{
	upload *u = arg;
	for (;;) {
		unsigned i = atomic_fetch_add(&u->next, 1);
		if (i >= u->nparts || atomic_load(&u->failed))
			return NULL;
		uint64_t off = (uint64_t)i * u->part;
		uint64_t len = off + u->part > u->size ? u->size - off : u->part;
		char url[URL_MAX + 1100];
		snprintf(url, sizeof url, "%s?partNumber=%u&uploadId=%s", u->p->url, i + 1, u->id);
		pfs_http_req rq = {.method = "PUT", .url = url, .fd = u->p->fd, .off = off,
				   .len = len, .max_body = 1 << 16};
		pfs_http_resp rs;
		pq_error e = {0};
		pq_status st = pfs_http_do(u->p->s->http, &rq, &rs, &e);
		if (st == PQ_OK)
			st = judge(u->p, &rs, "UploadPart", &e);
		if (st == PQ_OK && !rs.etag[0])
			st = pq_fail(&e, PQ_EIO, "%s: UploadPart %u of %s: no ETag in the answer",
				     u->p->who, i + 1, u->p->rel);
		if (st == PQ_OK)
			snprintf(u->etags[i], PFS_ETAG_MAX, "%s", rs.etag);
		free(rs.body);
		if (st != PQ_OK) {
			pthread_mutex_lock(&u->lock);
			if (!atomic_exchange(&u->failed, true))
				u->err = e;
			pthread_mutex_unlock(&u->lock);
			return NULL;
		}
	}
}

/* The CompleteMultipartUpload document: part numbers and their ETags
 * (quotes escaped; an ETag holds no other XML specials). */
static char *complete_doc(const upload *u, size_t *len)
{
	size_t cap = 128 + (size_t)u->nparts * (64 + 2 * PFS_ETAG_MAX * 3);
	char *d = malloc(cap);
	if (!d)
		return NULL;
	size_t n = (size_t)snprintf(d, cap, "<CompleteMultipartUpload>");
	for (uint32_t i = 0; i < u->nparts; i++) {
		n += (size_t)snprintf(d + n, cap - n, "<Part><PartNumber>%u</PartNumber><ETag>",
				      i + 1);
		for (const char *e = u->etags[i]; *e; e++) {
			if (*e == '"')
				n += (size_t)snprintf(d + n, cap - n, "&quot;");
			else if (*e == '&')
				n += (size_t)snprintf(d + n, cap - n, "&amp;");
			else if (*e == '<')
				n += (size_t)snprintf(d + n, cap - n, "&lt;");
			else
				d[n++] = *e;
		}
		n += (size_t)snprintf(d + n, cap - n, "</ETag></Part>");
	}
	n += (size_t)snprintf(d + n, cap - n, "</CompleteMultipartUpload>");
	*len = n;
	return d;
}

static void abort_upload(upload *u)
{
	char url[URL_MAX + 1100];
	snprintf(url, sizeof url, "%s?uploadId=%s", u->p->url, u->id);
	pfs_http_req rq = {.method = "DELETE", .url = url, .fd = -1, .max_body = 1 << 16};
	pfs_http_resp rs;
	pq_error e = {0};
	if (pfs_http_do(u->p->s->http, &rq, &rs, &e) != PQ_OK || rs.status >= 300)
		pfs_log(LOG_WARNING, "staging: AbortMultipartUpload of %s failed (HTTP %ld): "
			"its parts stay until the bucket's lifecycle removes them",
			u->p->rel, rs.status);
	free(rs.body);
}

static pq_status put_multipart(pfs_publish *p, uint64_t size, pq_error *err)
{
	upload *u = calloc(1, sizeof *u);
	if (!u)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory", p->who);
	u->p = p;
	u->size = size;
	u->part = PFS_S3_PART;
	while ((size + u->part - 1) / u->part > PFS_S3_MAX_PARTS)
		u->part *= 2;
	u->nparts = (uint32_t)((size + u->part - 1) / u->part);
	u->etags = calloc(u->nparts, sizeof *u->etags);
	pthread_mutex_init(&u->lock, NULL);
	atomic_init(&u->next, 0);
	atomic_init(&u->failed, false);
	pq_status st = u->etags ? PQ_OK : pq_fail(err, PQ_ENOMEM, "%s: no memory", p->who);

	/* CreateMultipartUpload ("uploads=": SigV4's canonical form of a
	 * parameter without a value) */
	char url[URL_MAX + 1100];
	pfs_http_resp rs = {0};
	if (st == PQ_OK) {
		snprintf(url, sizeof url, "%s?uploads=", p->url);
		pfs_http_req rq = {.method = "POST", .url = url, .fd = -1, .max_body = 1 << 16,
				   .content_type = "application/vnd.apache.parquet"};
		st = pfs_http_do(p->s->http, &rq, &rs, err);
		if (st == PQ_OK)
			st = judge(p, &rs, "CreateMultipartUpload", err);
		char id[700];
		if (st == PQ_OK && (!rs.body || !pfs_s3_xml_value(rs.body, rs.body_len, "UploadId",
								   id, sizeof id) ||
				    !pfs_url_escape(id, false, u->id, sizeof u->id)))
			st = pq_fail(err, PQ_EIO, "%s: CreateMultipartUpload of %s: no UploadId",
				     p->who, p->rel);
		free(rs.body);
		rs.body = NULL;
	}
	bool created = st == PQ_OK;
	if (st == PQ_OK) {
		pthread_t th[UPLOAD_THREADS];
		int n = 0;
		for (; n < UPLOAD_THREADS && (uint32_t)n < u->nparts; n++)
			if (pthread_create(&th[n], NULL, part_worker, u) != 0)
				break;
		if (n == 0)
			part_worker(u);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		if (atomic_load(&u->failed)) {
			*err = u->err;
			st = err->status ? err->status : PQ_EIO;
		}
	}
	if (st == PQ_OK) {
		size_t len = 0;
		char *doc = complete_doc(u, &len);
		snprintf(url, sizeof url, "%s?uploadId=%s", p->url, u->id);
		pfs_http_req rq = {.method = "POST", .url = url, .fd = -1, .mem = doc, .len = len,
				   .content_type = "application/xml", .max_body = 1 << 20};
		st = doc ? pfs_http_do(p->s->http, &rq, &rs, err)
			 : pq_fail(err, PQ_ENOMEM, "%s: no memory", p->who);
		if (st == PQ_OK)
			st = judge(p, &rs, "CompleteMultipartUpload", err);
		free(rs.body);
		free(doc);
	}
	if (st != PQ_OK && created)
		abort_upload(u);
	pthread_mutex_destroy(&u->lock);
	free(u->etags);
	free(u);
	return st;
}

static pq_status pub_commit(pfs_publish *p, pq_error *err)
{
	struct stat st;
	pq_status rc = PQ_OK;
	if (fstat(p->fd, &st) != 0)
		rc = pq_fail(err, PQ_EIO, "%s: spool file: %s", p->who, strerror(errno));
	else if ((uint64_t)st.st_size > PFS_S3_PART)
		rc = put_multipart(p, (uint64_t)st.st_size, err);
	else
		rc = put_whole(p, (uint64_t)st.st_size, err);
	if (rc == PQ_OK) {
		/* the listings of its directory (and of each one above: a new
		 * prefix appears in its parent) are stale now */
		char dir[PFS_S3_KEY_MAX + 1];
		snprintf(dir, sizeof dir, "%s", p->rel);
		for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
			*slash = '\0';
			pfs_s3_forget(p->s, dir);
		}
		pfs_s3_forget(p->s, "");
		pfs_log(LOG_INFO, "staging: uploaded %s (%" PRIu64 " bytes)", p->rel,
			(uint64_t)st.st_size);
	}
	pub_free(p);
	return rc;
}

static int pub_mkdir(void *be, const char *rel, mode_t mode, const pfs_cred *c)
{
	(void)mode;
	(void)c;
	return strlen(rel) > PFS_S3_KEY_MAX ? -ENAMETOOLONG : pfs_s3_vdir_add(be, rel);
}

static int pub_rmdir(void *be, const char *rel, const pfs_cred *c)
{
	(void)c;
	return pfs_s3_vdir_remove(be, rel);
}

const pfs_publish_ops pfs_s3_publish_ops = {
	.may_write = pub_may_write,
	.begin = pub_begin,
	.commit = pub_commit,
	.abort = pub_abort,
	.mkdir = pub_mkdir,
	.rmdir = pub_rmdir,
};
