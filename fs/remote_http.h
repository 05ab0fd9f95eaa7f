/* HTTP for the remote SOURCE backends (S3, HTTP(S)): libcurl does the
 * protocol, TLS and AWS Signature Version 4 (CURLOPT_AWS_SIGV4); this layer
 * adds what every request of a backend needs: a bounded pool of easy
 * handles sharing one connection cache (keep-alive across threads),
 * retries with exponential backoff on 5xx, 429, timeouts, resets and
 * truncated bodies, bodies into a caller's buffer (bounded) or a growing
 * one (capped), and the response headers a backend looks at. */
#ifndef PFS_REMOTE_HTTP_H
#define PFS_REMOTE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

#define PFS_ETAG_MAX 80
#define PFS_HTTP_MAX_CONNS 8

typedef struct pfs_http pfs_http;

typedef struct pfs_http_conf {
	const char *ca_file;  /* a private CA added to the system's, or NULL */
	long timeout_s;       /* per request receiving nothing (0: 30 s) */
	long connect_timeout_s; /* connecting (0: 10 s) */
	int retries;          /* after the first attempt */
	/* SigV4 (NULL: unsigned): the region, and the credentials. */
	const char *region;
	const char *access_key, *secret_key, *session_token;
	unsigned backoff_ms;  /* first retry's wait (0: 100 ms), doubling */
} pfs_http_conf;

typedef struct pfs_http_req {
	const char *method;     /* GET, HEAD, PUT, POST, DELETE */
	const char *url;        /* already escaped */
	const char *range;      /* "bytes=A-B" or NULL */
	const char *if_match;   /* an ETag (quoted as received) or NULL */
	const char *content_type;
	/* Upload body: len bytes from memory (mem), else from descriptor fd at
	 * off (fd >= 0), else none. */
	const void *mem;
	int fd;
	uint64_t off, len;
	/* Download: into buf (exactly up to cap bytes; more is an error), or
	 * when buf is NULL into a growing buffer of at most max_body bytes. */
	void *buf;
	size_t cap;
	size_t max_body;
	/* The mount's check of its source: one attempt, and an answer that
	 * does not come within the connect timeout is a failure (a dead
	 * endpoint fails the mount in about connect_timeout, not in
	 * retries x timeout). */
	bool probe;
} pfs_http_req;

typedef struct pfs_http_resp {
	long status;                /* 0: no response */
	char etag[PFS_ETAG_MAX];    /* as sent, quotes included; "" none */
	uint64_t content_length;    /* UINT64_MAX: not sent */
	uint64_t range_total;       /* from Content-Range, UINT64_MAX: none */
	bool accept_ranges;         /* Accept-Ranges: bytes */
	char *body;                 /* growing buffer (free()), or NULL */
	size_t body_len;            /* bytes received (either buffer) */
	char err_body[2048];        /* start of the body of a status >= 300 */
	int attempts;
} pfs_http_resp;

/* A client (the conf's strings are copied). */
pq_status pfs_http_new(const pfs_http_conf *c, pfs_http **out, pq_error *err);
void pfs_http_free(pfs_http *h);

/* Runs r, retrying as the conf says; PQ_OK with resp->status set when a
 * response came (whatever its status: the caller judges it), PQ_EIO with
 * the transport's error when none did after the retries. The caller frees
 * resp->body (also on failure). */
pq_status pfs_http_do(pfs_http *h, const pfs_http_req *r, pfs_http_resp *resp, pq_error *err);

/* s escaped for a URL (every byte but A-Z a-z 0-9 - . _ ~, and '/' when
 * keep_slash) into buf: false when it does not fit. SigV4 wants exactly
 * this encoding for keys and query values. */
bool pfs_url_escape(const char *s, bool keep_slash, char *buf, size_t n);

/* Requests sent and body bytes received by this client (for the log). */
void pfs_http_counts(pfs_http *h, uint64_t *requests, uint64_t *bytes);

#endif
