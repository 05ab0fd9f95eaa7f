/* AES-GCM and AES-CTR modules through OpenSSL's EVP interface
 * (Encryption.md 4.2 and 5.1). No cipher code of our own: EVP does the
 * AES (with AES-NI where the CPU has it); we do the module framing. */
#include "config.h"

#include "pq_crypto.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

/* EVP counts in int: long buffers go through in steps. */
#define STEP ((size_t)1 << 30)

static const EVP_CIPHER *cipher_of(pq_cipher c, unsigned key_len)
{
	switch (key_len) {
	case 16: return c == PQ_CIPHER_GCM ? EVP_aes_128_gcm() : EVP_aes_128_ctr();
	case 24: return c == PQ_CIPHER_GCM ? EVP_aes_192_gcm() : EVP_aes_192_ctr();
	case 32: return c == PQ_CIPHER_GCM ? EVP_aes_256_gcm() : EVP_aes_256_ctr();
	default: return NULL;
	}
}

static size_t overhead(pq_cipher c)
{
	return c == PQ_CIPHER_GCM ? PQ_CRYPTO_GCM_OVERHEAD : PQ_CRYPTO_CTR_OVERHEAD;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

const char *pq_module_type_name(pq_module_type t)
{
	switch (t) {
	case PQ_MOD_FOOTER: return "footer";
	case PQ_MOD_COLUMN_META: return "column metadata";
	case PQ_MOD_DATA_PAGE: return "data page";
	case PQ_MOD_DICT_PAGE: return "dictionary page";
	case PQ_MOD_DATA_PAGE_HEADER: return "data page header";
	case PQ_MOD_DICT_PAGE_HEADER: return "dictionary page header";
	case PQ_MOD_COLUMN_INDEX: return "column index";
	case PQ_MOD_OFFSET_INDEX: return "offset index";
	case PQ_MOD_BLOOM_HEADER: return "bloom filter header";
	case PQ_MOD_BLOOM_BITSET: return "bloom filter bitset";
	}
	return "module";
}

pq_status pq_module_stored_size(const uint8_t *p, size_t avail, pq_cipher c, uint64_t max,
				uint64_t *size, pq_error *err)
{
	PQ_CHECK(avail >= PQ_CRYPTO_LEN_BYTES, err, PQ_ECORRUPT,
		 "encrypted module: %zu bytes left, its 4-byte length does not fit", avail);
	uint64_t len = get_le32(p);
	PQ_CHECK(len >= overhead(c) - PQ_CRYPTO_LEN_BYTES, err, PQ_ECORRUPT,
		 "encrypted module: length %llu is shorter than its nonce%s",
		 (unsigned long long)len, c == PQ_CIPHER_GCM ? " and tag" : "");
	PQ_CHECK(len + PQ_CRYPTO_LEN_BYTES <= max, err, PQ_ELIMIT,
		 "encrypted module: length %llu exceeds the %llu bytes it may take",
		 (unsigned long long)len, (unsigned long long)max);
	*size = len + PQ_CRYPTO_LEN_BYTES;
	return PQ_OK;
}

/* Runs the cipher over in[0..n) into out, in EVP-sized steps. */
static bool update(EVP_CIPHER_CTX *ctx, const uint8_t *in, size_t n, uint8_t *out)
{
	while (n > 0) {
		size_t step = n < STEP ? n : STEP;
		int got = 0;
		if (EVP_CipherUpdate(ctx, out, &got, in, (int)step) != 1 || (size_t)got != step)
			return false;
		in += step;
		out += step;
		n -= step;
	}
	return true;
}

static bool add_aad(EVP_CIPHER_CTX *ctx, const uint8_t *aad, size_t n)
{
	while (n > 0) {
		size_t step = n < STEP ? n : STEP;
		int got = 0;
		if (EVP_CipherUpdate(ctx, NULL, &got, aad, (int)step) != 1)
			return false;
		aad += step;
		n -= step;
	}
	return true;
}

/* Sets up ctx for one module: key, 12-byte GCM nonce or the 16-byte CTR
 * IV (nonce, then a 32-bit counter starting at 1, Encryption.md 4.2.2). */
static pq_status begin(EVP_CIPHER_CTX *ctx, pq_cipher c, const pq_key *key, const uint8_t *nonce,
		       int enc, pq_error *err)
{
	const EVP_CIPHER *ci = cipher_of(c, key->len);
	PQ_CHECK(ci, err, PQ_EINVAL, "a key of %u bytes: AES keys are 16, 24 or 32 bytes", key->len);
	if (c == PQ_CIPHER_GCM) {
		if (EVP_CipherInit_ex(ctx, ci, NULL, NULL, NULL, enc) != 1 ||
		    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, PQ_CRYPTO_NONCE_BYTES, NULL) != 1 ||
		    EVP_CipherInit_ex(ctx, NULL, NULL, key->b, nonce, enc) != 1)
			return pq_fail(err, PQ_EIO, "OpenSSL could not set up AES-GCM");
		return PQ_OK;
	}
	uint8_t iv[16];
	memcpy(iv, nonce, PQ_CRYPTO_NONCE_BYTES);
	iv[12] = 0;
	iv[13] = 0;
	iv[14] = 0;
	iv[15] = 1;
	if (EVP_CipherInit_ex(ctx, ci, NULL, key->b, iv, enc) != 1)
		return pq_fail(err, PQ_EIO, "OpenSSL could not set up AES-CTR");
	return PQ_OK;
}

pq_status pq_module_decrypt(pq_cipher c, const pq_key *key, const uint8_t *aad, size_t aad_len,
			    const uint8_t *m, size_t n, uint8_t *out, size_t *out_len,
			    pq_error *err)
{
	*out_len = 0;
	uint64_t size;
	PQ_TRY(pq_module_stored_size(m, n, c, UINT64_MAX, &size, err));
	PQ_CHECK(size == n, err, PQ_ECORRUPT,
		 "encrypted module: its length field says %llu bytes, %zu are stored",
		 (unsigned long long)size, n);
	const uint8_t *nonce = m + PQ_CRYPTO_LEN_BYTES;
	const uint8_t *ct = nonce + PQ_CRYPTO_NONCE_BYTES;
	size_t ct_len = n - overhead(c);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	PQ_CHECK(ctx, err, PQ_ENOMEM, "no memory for a cipher context");
	pq_status st = begin(ctx, c, key, nonce, 0, err);
	if (st == PQ_OK && c == PQ_CIPHER_GCM) {
		/* The tag is checked by the final call, after all data. */
		uint8_t tag[PQ_CRYPTO_TAG_BYTES];
		memcpy(tag, ct + ct_len, sizeof tag);
		if (!add_aad(ctx, aad, aad_len) || !update(ctx, ct, ct_len, out) ||
		    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, PQ_CRYPTO_TAG_BYTES, tag) != 1)
			st = pq_fail(err, PQ_EIO, "OpenSSL AES-GCM decryption failed");
		int fin = 0;
		if (st == PQ_OK && EVP_DecryptFinal_ex(ctx, out + ct_len, &fin) != 1) {
			/* Never hand out bytes that did not authenticate. */
			pq_crypto_wipe(out, ct_len);
			st = pq_fail(err, PQ_EAUTH, "GCM tag check failed (tampered data or wrong key)");
		}
	} else if (st == PQ_OK) {
		if (!update(ctx, ct, ct_len, out))
			st = pq_fail(err, PQ_EIO, "OpenSSL AES-CTR decryption failed");
	}
	EVP_CIPHER_CTX_free(ctx);
	if (st == PQ_OK)
		*out_len = ct_len;
	return st;
}

pq_status pq_module_encrypt(pq_cipher c, const pq_key *key, const uint8_t *aad, size_t aad_len,
			    const uint8_t *nonce, const uint8_t *plain, size_t n, uint8_t *out,
			    size_t *out_len, pq_error *err)
{
	*out_len = 0;
	size_t total = n + overhead(c);
	PQ_CHECK(n <= UINT32_MAX - overhead(c), err, PQ_ELIMIT,
		 "%zu bytes are too many for one encrypted module", n);
	uint8_t *nn = out + PQ_CRYPTO_LEN_BYTES;
	if (nonce)
		memcpy(nn, nonce, PQ_CRYPTO_NONCE_BYTES);
	else
		PQ_TRY(pq_random_bytes(nn, PQ_CRYPTO_NONCE_BYTES, err));
	put_le32(out, (uint32_t)(total - PQ_CRYPTO_LEN_BYTES));
	uint8_t *ct = nn + PQ_CRYPTO_NONCE_BYTES;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	PQ_CHECK(ctx, err, PQ_ENOMEM, "no memory for a cipher context");
	pq_status st = begin(ctx, c, key, nn, 1, err);
	if (st == PQ_OK && c == PQ_CIPHER_GCM) {
		int fin = 0;
		if (!add_aad(ctx, aad, aad_len) || !update(ctx, plain, n, ct) ||
		    EVP_EncryptFinal_ex(ctx, ct + n, &fin) != 1 ||
		    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, PQ_CRYPTO_TAG_BYTES, ct + n) != 1)
			st = pq_fail(err, PQ_EIO, "OpenSSL AES-GCM encryption failed");
	} else if (st == PQ_OK) {
		if (!update(ctx, plain, n, ct))
			st = pq_fail(err, PQ_EIO, "OpenSSL AES-CTR encryption failed");
	}
	EVP_CIPHER_CTX_free(ctx);
	if (st == PQ_OK)
		*out_len = total;
	return st;
}

pq_status pq_gcm_tag(const pq_key *key, const uint8_t nonce[PQ_CRYPTO_NONCE_BYTES],
		     const uint8_t *aad, size_t aad_len, const uint8_t *plain, size_t n,
		     uint8_t tag[PQ_CRYPTO_TAG_BYTES], pq_error *err)
{
	/* EVP needs somewhere to put the ciphertext: a small buffer, reused. */
	uint8_t scratch[4096];
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	PQ_CHECK(ctx, err, PQ_ENOMEM, "no memory for a cipher context");
	pq_status st = begin(ctx, PQ_CIPHER_GCM, key, nonce, 1, err);
	if (st == PQ_OK && !add_aad(ctx, aad, aad_len))
		st = pq_fail(err, PQ_EIO, "OpenSSL AES-GCM failed");
	for (size_t i = 0; st == PQ_OK && i < n; i += sizeof scratch) {
		size_t step = n - i < sizeof scratch ? n - i : sizeof scratch;
		if (!update(ctx, plain + i, step, scratch))
			st = pq_fail(err, PQ_EIO, "OpenSSL AES-GCM failed");
	}
	int fin = 0;
	if (st == PQ_OK && (EVP_EncryptFinal_ex(ctx, scratch, &fin) != 1 ||
			    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, PQ_CRYPTO_TAG_BYTES, tag) != 1))
		st = pq_fail(err, PQ_EIO, "OpenSSL AES-GCM failed");
	pq_crypto_wipe(scratch, sizeof scratch);
	EVP_CIPHER_CTX_free(ctx);
	return st;
}

pq_status pq_random_bytes(uint8_t *out, size_t n, pq_error *err)
{
	PQ_CHECK(n <= INT_MAX && RAND_bytes(out, (int)n) == 1, err, PQ_EIO,
		 "OpenSSL's random generator failed");
	return PQ_OK;
}

bool pq_crypto_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

void pq_crypto_wipe(void *p, size_t n)
{
	if (p && n)
		OPENSSL_cleanse(p, n);
}
