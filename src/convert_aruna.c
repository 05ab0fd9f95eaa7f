/* parquetfs-convert -o container=aruna: the Parquet file (converted from
 * CSV/TSV first, or given) sealed into an ARUNA container by core
 * (pq_aruna_seal: chunks compress and seal on every core), written beside
 * OUT and renamed into place, like every output of parquetfs-convert. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert_aruna.h"
#include "pq_aruna.h"
#include "pq_crypto.h"
#include "pq_keyring.h"

bool pfs_convert_aruna_key(const char *key_file, const char *out_path, uint8_t key[32], char *msg,
			   size_t msglen)
{
	struct stat st;
	if (!key_file || stat(key_file, &st) != 0) {
		snprintf(msg, msglen, "container=aruna needs key_file=PATH with a `container:` key");
		return false;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH)) {
		snprintf(msg, msglen, "key_file %s is readable by group or others (mode %03o): run chmod 600 %s",
			 key_file, (unsigned)(st.st_mode & 0777), key_file);
		return false;
	}
	pq_keyring *kr = NULL;
	pq_error err;
	pq_error_clear(&err);
	if (pq_keyring_load(key_file, &kr, &err) != PQ_OK) {
		snprintf(msg, msglen, "%s", err.msg);
		return false;
	}
	char *copy = strdup(out_path);
	pq_key k;
	bool found = copy && pq_keyring_container_key(kr, basename(copy), &k);
	if (found)
		memcpy(key, k.b, 32);
	else
		snprintf(msg, msglen, "key_file %s has no `container:` key for %s", key_file,
			 copy ? basename(copy) : out_path);
	pq_crypto_wipe(&k, sizeof k);
	free(copy);
	pq_keyring_free(kr);
	return found;
}

int pfs_convert_aruna(const char *in_path, const char *out_path, const uint8_t key[32])
{
	int in = open(in_path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "%s: %s\n", in_path, strerror(errno));
		return 1;
	}
	pq_error err;
	pq_error_clear(&err);
	pq_source *src = NULL;
	uint8_t head[4] = {0}, tail[4] = {0};
	pq_status st = pq_source_fd_new(in, true, &src, &err);
	if (st == PQ_OK) {
		uint64_t n = pq_source_size(src);
		if (n < 12 || pq_source_pread(src, head, 4, 0, &err) != PQ_OK ||
		    pq_source_pread(src, tail, 4, n - 4, &err) != PQ_OK ||
		    !pq_magic_is_parquet(head, 4) || !pq_magic_is_parquet(tail, 4))
			st = pq_fail(&err, PQ_EINVAL, "%s: not a Parquet file (no PAR1/PARE at both ends)",
				     in_path);
	}
	size_t len = strlen(out_path) + 64;
	char *tmp = malloc(len), *d = strdup(out_path), *b = strdup(out_path);
	int out = -1;
	if (st == PQ_OK && (!tmp || !d || !b))
		st = pq_fail(&err, PQ_ENOMEM, "out of memory");
	if (st == PQ_OK) {
		snprintf(tmp, len, "%s/.%s.tmp-XXXXXX", dirname(d), basename(b));
		out = mkstemp(tmp);
		if (out < 0)
			st = pq_fail(&err, PQ_EIO, "%s: %s", tmp, strerror(errno));
	}
	if (st == PQ_OK)
		st = pq_aruna_seal(src, key, NULL, out, &err);
	if (st == PQ_OK) {
		mode_t mask = umask(0);
		umask(mask);
		if (fchmod(out, 0666 & ~mask) != 0 || fsync(out) != 0)
			st = pq_fail(&err, PQ_EIO, "%s: %s", tmp, strerror(errno));
	}
	if (out >= 0 && close(out) != 0 && st == PQ_OK)
		st = pq_fail(&err, PQ_EIO, "%s: %s", tmp, strerror(errno));
	if (st == PQ_OK && rename(tmp, out_path) != 0)
		st = pq_fail(&err, PQ_EIO, "%s: %s", out_path, strerror(errno));
	if (st != PQ_OK) {
		if (out >= 0)
			unlink(tmp);
		fprintf(stderr, "%s\n", err.msg);
	}
	pq_source_unref(src);
	free(tmp);
	free(d);
	free(b);
	return st == PQ_OK ? 0 : 1;
}
