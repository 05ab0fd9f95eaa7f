/* staging/ and ARUNA containers (interface.md, "ARUNA containers",
 * "Writing"): with -o container=aruna a staged CSV/TSV or .parquet is
 * published as SOURCE/<name>.parquet.aruna, sealed with the key_file's
 * `container:` key for that path; a staged .parquet.aruna is checked as
 * verify.txt checks a container (every block, the footer, every chunk,
 * then the Parquet file inside) and published byte for byte. The bytes
 * are core's business (pq_aruna.h): nothing here looks inside them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pq_aruna.h"
#include "pq_crypto.h"
#include "pq_keyring.h"
#include "staging_internal.h"

bool stg_sealed(const pfs_staging *s, stg_type t)
{
	return t == STG_T_ARUNA || (s->fs->opts->container && t != STG_T_SCHEMA);
}

int stg_target_rel_of(const pfs_staging *s, const char *rel, char *buf, size_t n)
{
	if (stg_type_of(rel) == STG_T_ARUNA) { /* x.parquet.aruna: the same name */
		int k = snprintf(buf, n, "%s", rel);
		return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
	}
	int rc = stg_target_rel(rel, buf, n);
	if (rc || !s->fs->opts->container)
		return rc;
	size_t len = strlen(buf);
	if (len + sizeof ".aruna" > n)
		return -ENAMETOOLONG;
	memcpy(buf + len, ".aruna", sizeof ".aruna");
	return 0;
}

pq_status stg_container_key(const pfs_staging *s, const char *trel, const char *name,
			    uint8_t key[PQ_ARUNA_KEY_BYTES], pq_error *err)
{
	pq_key k;
	if (!s->fs->keys || !pq_keyring_container_key(s->fs->keys, trel, &k))
		return pq_fail(err, PQ_EKEY, "%s: no `container:` key for %s in the key_file", name, trel);
	memcpy(key, k.b, PQ_ARUNA_KEY_BYTES);
	pq_crypto_wipe(&k, sizeof k);
	return PQ_OK;
}

pq_status stg_aruna_check(const pfs_staging *s, int fd, const char *name, const char *trel,
			  const uint8_t key[PQ_ARUNA_KEY_BYTES], pq_error *err)
{
	uint64_t size;
	pq_status st = pq_aruna_check_fd(fd, key, &size, err);
	if (st != PQ_OK)
		return pq_context(err, "%s", name);
	pq_source *raw, *c;
	PQ_TRY(pq_source_fd_new(fd, false, &raw, err));
	st = pq_aruna_open(raw, key, 0, NULL, &c, err);
	pq_source_unref(raw);
	if (st != PQ_OK)
		return pq_context(err, "%s", name);
	pq_file *f = NULL;
	st = pq_file_open(c, trel, s->fs->keys, &f, err);
	pq_source_unref(c);
	if (st == PQ_OK) {
		pq_buf v = {0};
		pq_error verr;
		pq_error_clear(&verr);
		/* the Parquet checks, as verify.txt makes them */
		pq_status vst = pq_text_verify(f, &v, &verr);
		const char *p = v.p ? (const char *)v.p : "";
		bool ok = v.len >= 3 && !memcmp(p + v.len - 3, "OK\n", 3) &&
			  (v.len == 3 || p[v.len - 4] == '\n');
		if (vst != PQ_OK) {
			st = pq_fail(err, vst, "%s: cannot check it: %s", name, verr.msg);
		} else if (!ok) { /* its last line: FAILED: N problems */
			size_t end = v.len ? v.len - 1 : 0, start = end;
			while (start > 0 && p[start - 1] != '\n')
				start--;
			st = pq_fail(err, PQ_ECORRUPT, "%s: the Parquet file inside: %.*s", name,
				     (int)(end - start), p + start);
		}
		pq_buf_free(&v);
		pq_file_free(f);
	} else if (st == PQ_EKEY) {
		st = PQ_OK; /* encrypted inside for keys we do not hold: as a .parquet */
	} else {
		pq_context(err, "%s", name);
	}
	return st;
}

pq_status stg_aruna_seal(int plain_fd, int out, const char *name,
			 const uint8_t key[PQ_ARUNA_KEY_BYTES], pq_error *err)
{
	pq_source *src;
	PQ_TRY(pq_source_fd_new(plain_fd, false, &src, err));
	pq_status st = pq_aruna_seal(src, key, NULL, out, err);
	pq_source_unref(src);
	return st == PQ_OK ? st : pq_context(err, "%s", name);
}

int stg_scratch_fd(const pfs_staging *s, const char *rel)
{
	char p[PATH_MAX];
	if (stg_store_path(s, rel, ".plain-tmp", p, sizeof p))
		return -1;
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		unlink(p);
	return fd;
}
