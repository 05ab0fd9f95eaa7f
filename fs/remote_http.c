/* libcurl for the remote backends (remote_http.h). One CURLSH shares the
 * connection cache, DNS and TLS sessions between a bounded pool of easy
 * handles, so requests from many FUSE threads reuse keep-alive connections
 * and never open more than PFS_HTTP_MAX_CONNS at once. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "curl_api.h"
#include "interrupt.h"
#include "loop.h"
#include "remote_http.h"

struct pfs_http {
	CURLSH *share;
	pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_cond;
	CURL *idle[PFS_HTTP_MAX_CONNS];
	int nidle, nlive;
	char *ca_file, *sigv4, *userpwd, *token_hdr;
	long timeout_s, connect_timeout_s;
	int retries;
	unsigned backoff_ms;
	atomic_uint_fast64_t requests, bytes;
};

/* libcurl, loaded by the first pfs_http_new (curl_api.h): every other
 * function here runs on a pfs_http made after that. */
#define C pfs_curl_api_loaded()

static void share_lock(CURL *c, curl_lock_data d, curl_lock_access a, void *u)
{
	(void)c;
	(void)a;
	pfs_http *h = u;
	pthread_mutex_lock(&h->locks[(int)d < CURL_LOCK_DATA_LAST ? d : 0]);
}

static void share_unlock(CURL *c, curl_lock_data d, void *u)
{
	(void)c;
	pfs_http *h = u;
	pthread_mutex_unlock(&h->locks[(int)d < CURL_LOCK_DATA_LAST ? d : 0]);
}

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *p = strdup(s);
	if (!p)
		*oom = true;
	return p;
}

static char *joined(const char *a, const char *b, const char *c, bool *oom)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *p = malloc(n);
	if (!p) {
		*oom = true;
		return NULL;
	}
	snprintf(p, n, "%s%s%s", a, b, c);
	return p;
}

pq_status pfs_http_new(const pfs_http_conf *c, pfs_http **out, pq_error *err)
{
	*out = NULL;
	if (!pfs_curl_api_get(err))
		return err->status;
	pfs_http *h = calloc(1, sizeof *h);
	if (!h)
		return pq_fail(err, PQ_ENOMEM, "no memory");
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&h->locks[i], NULL);
	pthread_mutex_init(&h->pool_lock, NULL);
	pthread_cond_init(&h->pool_cond, NULL);
	atomic_init(&h->requests, 0);
	atomic_init(&h->bytes, 0);
	bool oom = false;
	h->ca_file = dup_or_null(c->ca_file, &oom);
	if (c->region && c->access_key && c->secret_key) {
		h->sigv4 = joined("aws:amz:", c->region, ":s3", &oom);
		h->userpwd = joined(c->access_key, ":", c->secret_key, &oom);
		if (c->session_token && *c->session_token)
			h->token_hdr = joined("x-amz-security-token: ", c->session_token, "", &oom);
	}
	h->timeout_s = c->timeout_s > 0 ? c->timeout_s : 30;
	h->connect_timeout_s = c->connect_timeout_s > 0 ? c->connect_timeout_s : 10;
	h->retries = c->retries < 0 ? 0 : c->retries > 20 ? 20 : c->retries;
	h->backoff_ms = c->backoff_ms ? c->backoff_ms : 100;
	h->share = C->share_init();
	if (oom || !h->share) {
		pfs_http_free(h);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	C->share_setopt(h->share, CURLSHOPT_LOCKFUNC, share_lock);
	C->share_setopt(h->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	C->share_setopt(h->share, CURLSHOPT_USERDATA, h);
	C->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	C->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	C->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	*out = h;
	return PQ_OK;
}

void pfs_http_free(pfs_http *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nidle; i++)
		C->easy_cleanup(h->idle[i]);
	if (h->share)
		C->share_cleanup(h->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&h->locks[i]);
	pthread_mutex_destroy(&h->pool_lock);
	pthread_cond_destroy(&h->pool_cond);
	free(h->ca_file);
	if (h->userpwd)
		explicit_bzero(h->userpwd, strlen(h->userpwd));
	free(h->userpwd);
	free(h->sigv4);
	if (h->token_hdr)
		explicit_bzero(h->token_hdr, strlen(h->token_hdr));
	free(h->token_hdr);
	free(h);
}

void pfs_http_counts(pfs_http *h, uint64_t *requests, uint64_t *bytes)
{
	*requests = atomic_load(&h->requests);
	*bytes = atomic_load(&h->bytes);
}

/* A handle of the pool: waits while PFS_HTTP_MAX_CONNS are busy (NULL
 * with *intr set when the caller's request is interrupted meanwhile). */
static CURL *handle_get(pfs_http *h, bool *intr)
{
	pthread_mutex_lock(&h->pool_lock);
	while (h->nidle == 0 && h->nlive >= PFS_HTTP_MAX_CONNS) {
		if ((*intr = pfs_intr_pending())) {
			pthread_mutex_unlock(&h->pool_lock);
			return NULL;
		}
		pfs_intr_timedwait(&h->pool_cond, &h->pool_lock);
	}
	CURL *c = NULL;
	if (h->nidle > 0) {
		c = h->idle[--h->nidle];
	} else {
		c = C->easy_init();
		if (c)
			h->nlive++;
	}
	pthread_mutex_unlock(&h->pool_lock);
	return c;
}

static void handle_put(pfs_http *h, CURL *c)
{
	pthread_mutex_lock(&h->pool_lock);
	h->idle[h->nidle++] = c;
	pthread_cond_signal(&h->pool_cond);
	pthread_mutex_unlock(&h->pool_lock);
}

bool pfs_url_escape(const char *s, bool keep_slash, char *buf, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = 0;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		bool plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			     (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' ||
			     ch == '~' || (keep_slash && ch == '/');
		if (k + (plain ? 1 : 3) >= n)
			return false;
		if (plain) {
			buf[k++] = (char)ch;
		} else {
			buf[k++] = '%';
			buf[k++] = hex[ch >> 4];
			buf[k++] = hex[ch & 15];
		}
	}
	if (k >= n)
		return false;
	buf[k] = '\0';
	return true;
}

/* ---- one transfer ---------------------------------------------------------- */

typedef struct xfer {
	CURL *c;
	const pfs_http_req *r;
	pfs_http_resp *resp;
	uint64_t sent;      /* upload position */
	bool overflow;      /* more body than the caller's buffer holds */
} xfer;

static size_t on_body(char *p, size_t sz, size_t nm, void *u)
{
	xfer *x = u;
	size_t n = sz * nm;
	long code = 0;
	C->easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
	pfs_http_resp *rs = x->resp;
	if (code >= 300) { /* an error document: keep its start for the message */
		size_t have = strlen(rs->err_body), room = sizeof rs->err_body - 1 - have;
		size_t k = n < room ? n : room;
		memcpy(rs->err_body + have, p, k);
		rs->err_body[have + k] = '\0';
		return n;
	}
	const pfs_http_req *r = x->r;
	if (r->buf) {
		if (rs->body_len + n > r->cap) {
			x->overflow = true;
			return 0; /* stops the transfer */
		}
		memcpy((char *)r->buf + rs->body_len, p, n);
		rs->body_len += n;
		return n;
	}
	if (rs->body_len + n > r->max_body) {
		x->overflow = true;
		return 0;
	}
	char *nb = realloc(rs->body, rs->body_len + n + 1);
	if (!nb)
		return 0;
	memcpy(nb + rs->body_len, p, n);
	rs->body = nb;
	rs->body_len += n;
	rs->body[rs->body_len] = '\0';
	return n;
}

static bool hdr_is(const char *p, size_t n, const char *name, const char **val, size_t *vlen)
{
	size_t k = strlen(name);
	if (n <= k || strncasecmp(p, name, k) || p[k] != ':')
		return false;
	p += k + 1;
	n -= k + 1;
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	*val = p;
	*vlen = n;
	return true;
}

static uint64_t parse_u64(const char *p, size_t n, bool *ok)
{
	uint64_t v = 0;
	*ok = n > 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9' || v > (UINT64_MAX - 9) / 10) {
			*ok = false;
			return 0;
		}
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	return v;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *u)
{
	xfer *x = u;
	size_t n = sz * nm;
	pfs_http_resp *rs = x->resp;
	const char *v;
	size_t vl;
	bool ok;
	if (n >= 5 && !strncmp(p, "HTTP/", 5)) { /* a new response (after a 100) */
		rs->etag[0] = '\0';
		rs->content_length = rs->range_total = UINT64_MAX;
		rs->accept_ranges = false;
	} else if (hdr_is(p, n, "ETag", &v, &vl)) {
		if (vl < sizeof rs->etag) {
			memcpy(rs->etag, v, vl);
			rs->etag[vl] = '\0';
		}
	} else if (hdr_is(p, n, "Content-Length", &v, &vl)) {
		uint64_t len = parse_u64(v, vl, &ok);
		if (ok)
			rs->content_length = len;
	} else if (hdr_is(p, n, "Content-Range", &v, &vl)) {
		const char *slash = memchr(v, '/', vl);
		if (slash) {
			uint64_t t = parse_u64(slash + 1, vl - (size_t)(slash + 1 - v), &ok);
			if (ok)
				rs->range_total = t;
		}
	} else if (hdr_is(p, n, "Accept-Ranges", &v, &vl)) {
		rs->accept_ranges = vl == 5 && !strncasecmp(v, "bytes", 5);
	}
	return n;
}

/* libcurl's progress callback: a request whose caller was interrupted
 * is abandoned (curl calls this about once a second while nothing
 * arrives, often while bytes do). */
static int on_progress(void *u, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)u, (void)dt, (void)dn, (void)ut, (void)un;
	return pfs_intr_pending() ? 1 : 0;
}

static size_t on_read(char *p, size_t sz, size_t nm, void *u)
{
	xfer *x = u;
	const pfs_http_req *r = x->r;
	size_t n = sz * nm;
	uint64_t left = r->len - x->sent;
	if (n > left)
		n = (size_t)left;
	if (n == 0)
		return 0;
	if (r->mem) {
		memcpy(p, (const char *)r->mem + x->sent, n);
	} else {
		ssize_t k = pread(r->fd, p, n, (off_t)(r->off + x->sent));
		if (k <= 0)
			return CURL_READFUNC_ABORT;
		n = (size_t)k;
	}
	x->sent += n;
	return n;
}

static CURLcode attempt(pfs_http *h, CURL *c, const pfs_http_req *r, pfs_http_resp *rs,
			char *errbuf)
{
	xfer x = {.c = c, .r = r, .resp = rs};
	free(rs->body);
	rs->body = NULL;
	rs->body_len = 0;
	rs->status = 0;
	rs->err_body[0] = '\0';
	rs->etag[0] = '\0';
	rs->content_length = rs->range_total = UINT64_MAX;
	rs->accept_ranges = false;

	C->easy_reset(c);
	errbuf[0] = '\0';
	C->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	C->easy_setopt(c, CURLOPT_SHARE, h->share);
	C->easy_setopt(c, CURLOPT_URL, r->url);
	C->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	C->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	C->easy_setopt(c, CURLOPT_CONNECTTIMEOUT, h->connect_timeout_s);
	/* a stall (no byte for timeout_s) is a timeout, a slow body is not */
	long stall = h->timeout_s;
	if (r->probe && h->connect_timeout_s < stall)
		stall = h->connect_timeout_s;
	C->easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	C->easy_setopt(c, CURLOPT_LOW_SPEED_TIME, stall);
	if (r->probe) /* a small answer: all of it within the bound */
		C->easy_setopt(c, CURLOPT_TIMEOUT, h->connect_timeout_s + stall);
	C->easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	/* bodies are megabytes: 512 KiB per receive instead of 16 KiB is 32
	 * times fewer calls here, and fewer, larger writes for the server */
	C->easy_setopt(c, CURLOPT_BUFFERSIZE, 512L * 1024);
	C->easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	C->easy_setopt(c, CURLOPT_ACCEPT_ENCODING, NULL); /* ranges of the bytes as stored */
	if (h->ca_file)
		C->easy_setopt(c, CURLOPT_CAINFO, h->ca_file);
	C->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	C->easy_setopt(c, CURLOPT_WRITEDATA, &x);
	C->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	C->easy_setopt(c, CURLOPT_HEADERDATA, &x);
	if (pfs_intr_arm()) /* a request's caller that can be interrupted */
		return CURLE_ABORTED_BY_CALLBACK;
	C->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	C->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	if (r->range)
		C->easy_setopt(c, CURLOPT_RANGE, r->range + (strncmp(r->range, "bytes=", 6) ? 0 : 6));

	struct curl_slist *hdrs = NULL, *t;
	char line[PFS_ETAG_MAX + 64];
	bool oom = false;
#define ADD(s)                                     \
	do {                                       \
		t = C->slist_append(hdrs, (s)); \
		if (t)                             \
			hdrs = t;                  \
		else                               \
			oom = true;                \
	} while (0)
	if (r->if_match) {
		snprintf(line, sizeof line, "If-Match: %s", r->if_match);
		ADD(line);
	}
	if (r->content_type) {
		snprintf(line, sizeof line, "Content-Type: %s", r->content_type);
		ADD(line);
	}
	if (h->sigv4) {
		/* the payload is not hashed (an upload is streamed): S3 takes
		 * this in place of the body's SHA-256, and curl signs it */
		ADD("x-amz-content-sha256: UNSIGNED-PAYLOAD");
		if (h->token_hdr)
			ADD(h->token_hdr);
		C->easy_setopt(c, CURLOPT_AWS_SIGV4, h->sigv4);
		C->easy_setopt(c, CURLOPT_USERPWD, h->userpwd);
	}
	ADD("Expect:"); /* no 100-continue round trip before uploads */
#undef ADD
	if (oom) {
		C->slist_free_all(hdrs);
		return CURLE_OUT_OF_MEMORY;
	}
	C->easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);

	const char *m = r->method;
	if (!strcmp(m, "HEAD")) {
		C->easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (!strcmp(m, "PUT") || !strcmp(m, "POST")) {
		if (!strcmp(m, "PUT")) {
			C->easy_setopt(c, CURLOPT_UPLOAD, 1L);
			C->easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->len);
			C->easy_setopt(c, CURLOPT_READFUNCTION, on_read);
			C->easy_setopt(c, CURLOPT_READDATA, &x);
		} else {
			C->easy_setopt(c, CURLOPT_POST, 1L);
			C->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
			if (r->mem && r->len)
				C->easy_setopt(c, CURLOPT_POSTFIELDS, r->mem);
			else {
				C->easy_setopt(c, CURLOPT_POSTFIELDS, "");
				C->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
			}
		}
	} else if (strcmp(m, "GET")) {
		C->easy_setopt(c, CURLOPT_CUSTOMREQUEST, m);
	}
	pfs_loop_server_begin(); /* a round trip to the server: others go on meanwhile */
	CURLcode rc = C->easy_perform(c);
	pfs_loop_server_end();
	C->slist_free_all(hdrs);
	atomic_fetch_add(&h->requests, 1);
	atomic_fetch_add(&h->bytes, rs->body_len);
	C->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rs->status);
	if (rc == CURLE_WRITE_ERROR && x.overflow)
		return CURLE_WRITE_ERROR; /* not the server's fault: no retry */
	/* a body shorter than its Content-Length is a truncated transfer */
	if (rc == CURLE_OK && rs->status < 300 && strcmp(m, "HEAD") &&
	    rs->content_length != UINT64_MAX && rs->body_len != rs->content_length)
		rc = CURLE_PARTIAL_FILE;
	return rc;
}

static bool transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_COULDNT_CONNECT:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_COULDNT_RESOLVE_HOST:
		return true;
	default:
		return false;
	}
}

pq_status pfs_http_do(pfs_http *h, const pfs_http_req *r, pfs_http_resp *rs, pq_error *err)
{
	bool intr = false;
	rs->body = NULL;
	rs->status = 0;
	rs->body_len = 0;
	rs->attempts = 0;
	CURL *c = pfs_intr_arm() ? NULL : handle_get(h, &intr);
	if (!c && (intr || pfs_intr_pending()))
		return pq_fail(err, PQ_EIO, "interrupted (the caller got a signal)");
	if (!c)
		return pq_fail(err, PQ_ENOMEM, "no memory for an HTTP request");
	char errbuf[CURL_ERROR_SIZE];
	CURLcode rc = CURLE_OK;
	unsigned wait_ms = h->backoff_ms;
	rs->body = NULL;
	for (int i = 0;; i++) {
		rs->attempts = i + 1;
		rc = attempt(h, c, r, rs, errbuf);
		bool again = rc == CURLE_OK ? rs->status >= 500 || rs->status == 429
					    : transient(rc);
		if (!again || i >= h->retries || r->probe)
			break;
		/* the backoff, in slices: an interrupted caller stops waiting */
		for (unsigned left = wait_ms; left > 0 && !pfs_intr_pending();) {
			unsigned ms = left < PFS_INTR_POLL_MS ? left : PFS_INTR_POLL_MS;
			struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
			nanosleep(&ts, NULL);
			left -= ms;
		}
		if (pfs_intr_pending()) {
			rc = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
		wait_ms = wait_ms < 8000 ? wait_ms * 2 : 16000;
	}
	handle_put(h, c);
	if (rc == CURLE_OK)
		return PQ_OK;
	if (rc == CURLE_ABORTED_BY_CALLBACK && pfs_intr_pending())
		return pq_fail(err, PQ_EIO, "interrupted (the caller got a signal): the request "
			       "was abandoned");
	if (rc == CURLE_WRITE_ERROR && rs->body_len == 0 && rs->status < 300)
		return pq_fail(err, PQ_EIO, "the response is larger than asked for");
	if (rc == CURLE_OUT_OF_MEMORY)
		return pq_fail(err, PQ_ENOMEM, "no memory for an HTTP request");
	if (rc == CURLE_OPERATION_TIMEDOUT && !strncmp(errbuf, "Operation too slow", 18))
		/* curl's "Less than 1 bytes/sec transferred the last N seconds" */
		return pq_fail(err, PQ_EIO, "timed out: the server sent nothing for %ld s "
			       "(-o %s) (after %d attempt%s)",
			       r->probe && h->connect_timeout_s < h->timeout_s ? h->connect_timeout_s
									    : h->timeout_s,
			       r->probe && h->connect_timeout_s < h->timeout_s ? "connect_timeout"
									    : "timeout",
			       rs->attempts, rs->attempts == 1 ? "" : "s");
	return pq_fail(err, PQ_EIO, "%s%s%s (after %d attempts)", C->easy_strerror(rc),
		       errbuf[0] ? ": " : "", errbuf, rs->attempts);
}
