/* libcurl, loaded when the first remote source is opened (dlopen), not
 * linked: libcurl brings some 25 libraries (HTTP/2, SSH, LDAP, Kerberos,
 * IDN ...), and a daemon started with a cold page cache read them all from
 * disk before mounting anything, local sources included (20-80 ms of a cold
 * mount measured on the CI machine class, against 0.5 s for the whole
 * mount and first listing of 10,000 files). */
#ifndef PFS_CURL_API_H
#define PFS_CURL_API_H

#include <curl/curl.h>

#include "pq_error.h"

/* The functions remote_http.c calls, with libcurl's own prototypes. */
typedef struct pfs_curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_reset)(CURL *c);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode rc);
	CURLSH *(*share_init)(void);
	CURLSHcode (*share_setopt)(CURLSH *s, CURLSHoption opt, ...);
	CURLSHcode (*share_cleanup)(CURLSH *s);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
} pfs_curl_api;

/* libcurl loaded and initialized (curl_global_init) once per process;
 * NULL with the reason in err (the library missing: the Debian package to
 * install). Thread-safe. Never unloaded. */
const pfs_curl_api *pfs_curl_api_get(pq_error *err);
/* The API once pfs_curl_api_get succeeded (in this thread, or in one that
 * handed over what it made with it); NULL before. */
const pfs_curl_api *pfs_curl_api_loaded(void);

#endif
