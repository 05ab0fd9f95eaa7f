/* The write side of modular encryption: a module encrypted with its AAD
 * and appended as stored, and the signature of a plaintext footer. The
 * writer calls these where each serialized module passes on its way to
 * the file; tests use them to build encrypted files by hand. */
#include "config.h"

#include "pq_crypto.h"

#include <stdlib.h>
#include <string.h>

/* file_aad and the suffix, in a buffer of the caller's. */
static pq_status module_aad(const uint8_t *file_aad, size_t file_aad_len, pq_module_type type,
			    uint32_t rg, uint32_t col, uint32_t page, uint8_t **aad, size_t *len,
			    pq_error *err)
{
	*aad = malloc(file_aad_len + PQ_AAD_SUFFIX_MAX);
	PQ_CHECK(*aad, err, PQ_ENOMEM, "no memory for an AAD");
	pq_status st = pq_aad_build(file_aad, file_aad_len, type, rg, col, page, *aad, len, err);
	if (st != PQ_OK) {
		free(*aad);
		*aad = NULL;
	}
	return st;
}

pq_status pq_module_encrypt_to(pq_buf *dest, pq_cipher page_cipher, const pq_key *key,
			       const uint8_t *file_aad, size_t file_aad_len, pq_module_type type,
			       uint32_t rg, uint32_t col, uint32_t page, const uint8_t *plain,
			       size_t n, pq_error *err)
{
	pq_cipher c = (type == PQ_MOD_DATA_PAGE || type == PQ_MOD_DICT_PAGE) ? page_cipher
									   : PQ_CIPHER_GCM;
	size_t room = n + PQ_CRYPTO_GCM_OVERHEAD;
	PQ_CHECK(room > n && pq_buf_grow(dest, room), err, PQ_ENOMEM,
		 "no memory for a %zu-byte encrypted module", n);
	uint8_t *aad;
	size_t aad_len, got;
	PQ_TRY(module_aad(file_aad, file_aad_len, type, rg, col, page, &aad, &aad_len, err));
	pq_status st = pq_module_encrypt(c, key, aad, aad_len, NULL, plain, n, dest->p + dest->len,
					 &got, err);
	free(aad);
	if (st == PQ_OK)
		dest->len += got;
	return st;
}

pq_status pq_footer_signature(const pq_key *key, const uint8_t *file_aad, size_t file_aad_len,
			      const uint8_t *footer, size_t n,
			      uint8_t sig[PQ_CRYPTO_SIGNATURE_BYTES], pq_error *err)
{
	uint8_t *aad;
	size_t aad_len;
	PQ_TRY(pq_random_bytes(sig, PQ_CRYPTO_NONCE_BYTES, err));
	PQ_TRY(module_aad(file_aad, file_aad_len, PQ_MOD_FOOTER, 0, 0, 0, &aad, &aad_len, err));
	pq_status st = pq_gcm_tag(key, sig, aad, aad_len, footer, n, sig + PQ_CRYPTO_NONCE_BYTES, err);
	free(aad);
	return st;
}
