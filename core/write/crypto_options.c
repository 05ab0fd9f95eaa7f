/* The contract's encryption options for writing (encrypt=KEYID,
 * encrypt_columns=COL:KEYID;..., plaintext_footer, encryption_algorithm=,
 * aad_prefix=) turned into pq_write_options with the keys of the key_file,
 * for staging/ and parquetfs-convert alike. */
#include "config.h"

#include "pq_keyring.h"

#include <stdlib.h>
#include <string.h>

#include "pq_write_options.h"

static pq_status lookup(const pq_keyring *kr, const char *path, const char *id, size_t n,
			pq_key *out, const char *what, pq_error *err)
{
	PQ_CHECK(n > 0, err, PQ_EINVAL, "%s: an empty key id", what);
	PQ_CHECK(pq_keyring_key(kr, path, (const uint8_t *)id, n, out), err, PQ_EKEY,
		 "%s: the key_file has no 'key %.*s:' line for %s", what, (int)(n > 64 ? 64 : n), id,
		 path);
	return PQ_OK;
}

pq_status pq_write_keys_resolve(const pq_keyring *kr, const char *path, const char *encrypt,
				const char *encrypt_columns, bool plaintext_footer, bool gcm_ctr,
				const char *aad_prefix, pq_write_keys *k, pq_write_options *wo,
				pq_error *err)
{
	memset(k, 0, sizeof *k);
	if (!encrypt)
		return PQ_OK;
	PQ_TRY(lookup(kr, path, encrypt, strlen(encrypt), &k->footer, "encrypt", err));
	wo->footer_key_id = encrypt;
	wo->footer_key = k->footer.b;
	wo->footer_key_len = k->footer.len;
	wo->plaintext_footer = plaintext_footer;
	wo->gcm_ctr = gcm_ctr;
	wo->aad_prefix = aad_prefix && *aad_prefix ? aad_prefix : NULL;
	if (!encrypt_columns || !*encrypt_columns)
		return PQ_OK;
	size_t n = 1;
	for (const char *p = encrypt_columns; *p; p++)
		n += *p == ';';
	k->text = strdup(encrypt_columns);
	k->keys = calloc(n, sizeof *k->keys);
	k->cols = calloc(n, sizeof *k->cols);
	if (!k->text || !k->keys || !k->cols) {
		pq_write_keys_free(k);
		return pq_fail(err, PQ_ENOMEM, "no memory for column keys");
	}
	/* COL:KEYID, split at the last colon (a column name may hold one) */
	for (char *item = k->text, *next; item && *item; item = next) {
		next = strchr(item, ';');
		if (next)
			*next++ = '\0';
		char *colon = strrchr(item, ':');
		if (!colon || colon == item) {
			pq_write_keys_free(k);
			return pq_fail(err, PQ_EINVAL, "encrypt_columns: '%s' is not COLUMN:KEYID", item);
		}
		*colon = '\0';
		pq_status st = lookup(kr, path, colon + 1, strlen(colon + 1), &k->keys[k->n],
				      "encrypt_columns", err);
		if (st != PQ_OK) {
			pq_write_keys_free(k);
			return st;
		}
		k->cols[k->n] = (pq_column_key){item, colon + 1, k->keys[k->n].b, k->keys[k->n].len};
		k->n++;
	}
	wo->column_keys = k->cols;
	wo->n_column_keys = k->n;
	return PQ_OK;
}

void pq_write_keys_free(pq_write_keys *k)
{
	if (!k)
		return;
	pq_crypto_wipe(&k->footer, sizeof k->footer);
	if (k->keys)
		pq_crypto_wipe(k->keys, k->n * sizeof *k->keys);
	free(k->keys);
	free(k->cols);
	free(k->text);
	memset(k, 0, sizeof *k);
}
