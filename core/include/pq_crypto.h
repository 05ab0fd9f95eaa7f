/* Parquet modular encryption (Encryption.md): AES-GCM and AES-CTR modules
 * and their AADs.
 *
 * A module as stored is
 *     length (4, little-endian) | nonce (12) | ciphertext | tag (16)   (GCM)
 *     length (4, little-endian) | nonce (12) | ciphertext              (CTR)
 * where length counts the bytes after itself. AES_GCM_V1 encrypts every
 * module with GCM; AES_GCM_CTR_V1 encrypts pages (data and dictionary page
 * bodies) with CTR and everything else with GCM. Keys are 16, 24 or 32
 * bytes (AES-128/192/256). The cipher itself is OpenSSL's EVP. */
#ifndef PQ_CRYPTO_H
#define PQ_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_error.h"

#define PQ_CRYPTO_LEN_BYTES 4
#define PQ_CRYPTO_NONCE_BYTES 12
#define PQ_CRYPTO_TAG_BYTES 16
#define PQ_CRYPTO_KEY_MAX 32
/* Bytes a module adds to its plaintext. */
#define PQ_CRYPTO_GCM_OVERHEAD (PQ_CRYPTO_LEN_BYTES + PQ_CRYPTO_NONCE_BYTES + PQ_CRYPTO_TAG_BYTES)
#define PQ_CRYPTO_CTR_OVERHEAD (PQ_CRYPTO_LEN_BYTES + PQ_CRYPTO_NONCE_BYTES)
/* The footer signature of a plaintext footer: nonce and tag. */
#define PQ_CRYPTO_SIGNATURE_BYTES (PQ_CRYPTO_NONCE_BYTES + PQ_CRYPTO_TAG_BYTES)

typedef struct pq_key {
	uint8_t b[PQ_CRYPTO_KEY_MAX];
	uint8_t len; /* 16, 24 or 32 */
} pq_key;

typedef enum pq_cipher { PQ_CIPHER_GCM, PQ_CIPHER_CTR } pq_cipher;

/* Module types of the AAD suffix (Encryption.md 4.4.2). */
typedef enum pq_module_type {
	PQ_MOD_FOOTER = 0,
	PQ_MOD_COLUMN_META = 1,
	PQ_MOD_DATA_PAGE = 2,
	PQ_MOD_DICT_PAGE = 3,
	PQ_MOD_DATA_PAGE_HEADER = 4,
	PQ_MOD_DICT_PAGE_HEADER = 5,
	PQ_MOD_COLUMN_INDEX = 6,
	PQ_MOD_OFFSET_INDEX = 7,
	PQ_MOD_BLOOM_HEADER = 8,
	PQ_MOD_BLOOM_BITSET = 9
} pq_module_type;

/* "data page", "column index", ... for messages. */
const char *pq_module_type_name(pq_module_type t);

/* The AAD suffix parts after the file AAD: 1 type byte, then row group and
 * column ordinals (int16 LE) for all but the footer, then the page ordinal
 * (int16 LE) for data pages and data page headers. */
#define PQ_AAD_SUFFIX_MAX 7

/* Builds aad_prefix || aad_file_unique || suffix into out (capacity
 * file_aad_len + PQ_AAD_SUFFIX_MAX), where file_aad is prefix and unique
 * part already joined. Ordinals must fit a signed 16-bit value: larger
 * ones fail with PQ_ELIMIT (the format cannot express them). */
pq_status pq_aad_build(const uint8_t *file_aad, size_t file_aad_len, pq_module_type type,
		       uint32_t rg, uint32_t col, uint32_t page, uint8_t *out, size_t *out_len,
		       pq_error *err);

/* The total stored size (4 + length) of the module starting at p, given
 * avail readable bytes there (at least 4). Fails when the length field
 * is smaller than the cipher's overhead or exceeds max. */
pq_status pq_module_stored_size(const uint8_t *p, size_t avail, pq_cipher c, uint64_t max,
				uint64_t *size, pq_error *err);

/* Decrypts the whole module m[0..n) into out (room for n bytes is always
 * enough); *out_len receives the plaintext length. The length field must
 * equal n - 4. A GCM tag that does not verify fails with PQ_EAUTH and
 * "GCM tag check failed (tampered data or wrong key)"; callers add where. */
pq_status pq_module_decrypt(pq_cipher c, const pq_key *key, const uint8_t *aad, size_t aad_len,
			    const uint8_t *m, size_t n, uint8_t *out, size_t *out_len,
			    pq_error *err);

/* Encrypts plain[0..n) into a module at out (room for n + overhead bytes).
 * nonce: 12 bytes, or NULL for a fresh one from OpenSSL's RNG. */
pq_status pq_module_encrypt(pq_cipher c, const pq_key *key, const uint8_t *aad, size_t aad_len,
			    const uint8_t *nonce, const uint8_t *plain, size_t n, uint8_t *out,
			    size_t *out_len, pq_error *err);

/* The GCM tag of plain under key, nonce and aad, the ciphertext dropped:
 * signs a plaintext footer (Encryption.md 5.5) and checks its signature. */
pq_status pq_gcm_tag(const pq_key *key, const uint8_t nonce[PQ_CRYPTO_NONCE_BYTES],
		     const uint8_t *aad, size_t aad_len, const uint8_t *plain, size_t n,
		     uint8_t tag[PQ_CRYPTO_TAG_BYTES], pq_error *err);

/* ---- write side (crypto_write.c) ---- */

/* Appends the module of plain[0..n) as stored to dest: AAD from file_aad
 * and the ordinals, a fresh nonce; pages (PQ_MOD_DATA_PAGE/DICT_PAGE) use
 * page_cipher, every other module GCM. */
pq_status pq_module_encrypt_to(pq_buf *dest, pq_cipher page_cipher, const pq_key *key,
			       const uint8_t *file_aad, size_t file_aad_len, pq_module_type type,
			       uint32_t rg, uint32_t col, uint32_t page, const uint8_t *plain,
			       size_t n, pq_error *err);

/* The signature of a plaintext footer (Encryption.md 5.5): a fresh nonce
 * and the GCM tag of the serialized FileMetaData under the footer AAD. */
pq_status pq_footer_signature(const pq_key *key, const uint8_t *file_aad, size_t file_aad_len,
			      const uint8_t *footer, size_t n,
			      uint8_t sig[PQ_CRYPTO_SIGNATURE_BYTES], pq_error *err);

/* Random bytes from OpenSSL (nonces, aad_file_unique). */
pq_status pq_random_bytes(uint8_t *out, size_t n, pq_error *err);

/* Constant-time comparison. */
bool pq_crypto_equal(const uint8_t *a, const uint8_t *b, size_t n);
/* Overwrites a key (or any secret) so it does not linger in freed memory. */
void pq_crypto_wipe(void *p, size_t n);

#endif
