/* libcurl through dlopen (curl_api.h says why). */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curl_api.h"

/* The runtime name of the library libcurl4-openssl-dev builds against
 * (its soname since libcurl 7.16). */
#define CURL_SONAME "libcurl.so.4"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pfs_curl_api api;
static const pfs_curl_api *loaded;
static char why[256];

/* dlsym returns a data pointer; POSIX guarantees that it converts to the
 * function's type (copied as bytes: no cast between the two in C). */
#define FIND(field, name)                                                      \
	do {                                                                   \
		void *sym_ = dlsym(lib, name);                                 \
		if (!sym_) {                                                   \
			snprintf(why, sizeof why, "%s has no %s", CURL_SONAME, name); \
			return;                                                \
		}                                                              \
		memcpy(&api.field, &sym_, sizeof sym_);                        \
	} while (0)

static void load(void)
{
	/* the tests name a library that is not there, to see the message */
	const char *name = getenv("PARQUETFS_TEST_CURL");
	void *lib = dlopen(name && *name ? name : CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(why, sizeof why,
			 "cannot load libcurl for remote sources (install the Debian package "
			 "libcurl4): %s", e ? e : CURL_SONAME);
		return;
	}
	FIND(global_init, "curl_global_init");
	FIND(easy_init, "curl_easy_init");
	FIND(easy_setopt, "curl_easy_setopt");
	FIND(easy_perform, "curl_easy_perform");
	FIND(easy_getinfo, "curl_easy_getinfo");
	FIND(easy_reset, "curl_easy_reset");
	FIND(easy_cleanup, "curl_easy_cleanup");
	FIND(easy_strerror, "curl_easy_strerror");
	FIND(share_init, "curl_share_init");
	FIND(share_setopt, "curl_share_setopt");
	FIND(share_cleanup, "curl_share_cleanup");
	FIND(slist_append, "curl_slist_append");
	FIND(slist_free_all, "curl_slist_free_all");
	CURLcode rc = api.global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		snprintf(why, sizeof why, "libcurl: %s", api.easy_strerror(rc));
		return;
	}
	loaded = &api;
}

const pfs_curl_api *pfs_curl_api_get(pq_error *err)
{
	pthread_once(&once, load);
	if (!loaded)
		pq_fail(err, PQ_EIO, "%s", why);
	return loaded;
}

const pfs_curl_api *pfs_curl_api_loaded(void)
{
	return loaded;
}
