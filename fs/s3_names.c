/* Names of S3 keys that no path can hold (s3_remote.h): left out of
 * listings, each logged once per mount. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs.h"
#include "s3_remote.h"

/* Keys logged as left out are remembered (by hash) up to this many; past
 * it, the log says so once and stops naming them. */
#define TOLD_MAX 4096

/* Why a name (one path component) cannot be shown, or NULL when it can. */
const char *pfs_s3_bad_name(const char *name, size_t len)
{
	if (len == 0)
		return "an empty path component";
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return "a '.' or '..' path component";
	if (len > 255)
		return "a path component over 255 bytes";
	return NULL;
}

/* The log names a key left out of a listing, once per mount. */
void pfs_s3_tell_left_out(pfs_s3 *s, const char *key, const char *why)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	bool say = false, say_full = false;
	pthread_mutex_lock(&s->lock);
	bool seen = false;
	for (size_t i = 0; i < s->ntold && !seen; i++)
		seen = s->told[i] == h;
	if (!seen && s->ntold < TOLD_MAX) {
		uint64_t *nt = realloc(s->told, (s->ntold + 1) * sizeof *nt);
		if (nt) {
			s->told = nt;
			s->told[s->ntold++] = h;
		}
		say = true;
	} else if (!seen && !s->told_full) {
		s->told_full = say_full = true;
	}
	pthread_mutex_unlock(&s->lock);
	if (say_full)
		pfs_log(LOG_NOTICE, "%s: more keys that cannot be paths are left out of listings "
			"(not named)", s->display);
	if (!say)
		return;
	/* control bytes (and '%') as URL escapes, so the line stays one line;
	 * at most 300 bytes of the key */
	char shown[3 * 300 + 4];
	size_t k = 0, i = 0;
	for (; key[i] && i < 300; i++) {
		unsigned char c = (unsigned char)key[i];
		if (c < 0x20 || c == 0x7f || c == '%')
			k += (size_t)snprintf(shown + k, sizeof shown - k, "%%%02X", c);
		else
			shown[k++] = (char)c;
	}
	shown[k] = '\0';
	pfs_log(LOG_NOTICE, "%s: key '%s%s' left out of the listing: %s", s->display, shown,
		key[i] ? "..." : "", why);
}
