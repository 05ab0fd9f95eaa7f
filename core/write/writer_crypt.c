/* Modular encryption in the writer (Encryption.md; the contract's
 * encrypt=, encrypt_columns=, plaintext_footer, encryption_algorithm=,
 * aad_prefix=): every module that passes pq_wmodule_put is encrypted with
 * its column's key (a column key, or the footer key for the others) and its
 * AAD; column metadata of column-key columns, and of every column under a
 * plaintext footer, is sealed into encrypted_column_metadata; the footer is
 * encrypted after a FileCryptoMetaData ("PARE"), or kept plaintext and
 * signed. Nonces and aad_file_unique come from OpenSSL's RNG. */
#include "config.h"

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <stdlib.h>
#include <string.h>

#include "format/pq_metadata_codec.h"

#define AAD_FILE_UNIQUE_BYTES 8

struct pq_wcrypt {
	pq_cipher page_cipher;
	bool plaintext_footer;
	pq_key footer_key;
	pq_bytes footer_key_id;
	pq_encryption_algorithm alg;
	uint8_t unique[AAD_FILE_UNIQUE_BYTES];
	uint8_t *file_aad;
	size_t file_aad_len;
	/* per column: its own key, or NULL for the footer key */
	pq_key *col_key;
	pq_bytes *col_key_id;
	bool *has_col_key;
};

static bool key_ok(size_t n)
{
	return n == 16 || n == 24 || n == 32;
}

pq_status pq_wcrypt_open(pq_writer *w, pq_error *err)
{
	const pq_write_options *o = &w->opts;
	if (!o->footer_key) {
		PQ_CHECK(!o->n_column_keys && !o->plaintext_footer && !o->aad_prefix, err, PQ_EINVAL,
			 "column keys, a plaintext footer or an AAD prefix need a footer key");
		return PQ_OK;
	}
	PQ_CHECK(key_ok(o->footer_key_len), err, PQ_EINVAL,
		 "footer key of %zu bytes: AES keys are 16, 24 or 32 bytes", o->footer_key_len);
	pq_wcrypt *c = pq_arena_calloc(&w->arena, 1, sizeof *c);
	PQ_CHECK(c, err, PQ_ENOMEM, "out of memory for encryption");
	w->crypt = c;
	c->page_cipher = o->gcm_ctr ? PQ_CIPHER_CTR : PQ_CIPHER_GCM;
	c->plaintext_footer = o->plaintext_footer;
	memcpy(c->footer_key.b, o->footer_key, o->footer_key_len);
	c->footer_key.len = (uint8_t)o->footer_key_len;
	const char *fid = o->footer_key_id ? o->footer_key_id : "";
	c->footer_key_id = (pq_bytes){pq_arena_memdup(&w->arena, fid, strlen(fid) + 1), strlen(fid)};
	PQ_CHECK(c->footer_key_id.p, err, PQ_ENOMEM, "out of memory for encryption");
	PQ_TRY(pq_random_bytes(c->unique, sizeof c->unique, err));
	size_t plen = o->aad_prefix ? strlen(o->aad_prefix) : 0;
	c->file_aad_len = plen + sizeof c->unique;
	c->file_aad = pq_arena_alloc(&w->arena, c->file_aad_len);
	PQ_CHECK(c->file_aad, err, PQ_ENOMEM, "out of memory for encryption");
	if (plen)
		memcpy(c->file_aad, o->aad_prefix, plen);
	memcpy(c->file_aad + plen, c->unique, sizeof c->unique);
	pq_aes_gcm *g = o->gcm_ctr ? &c->alg.AES_GCM_CTR_V1 : &c->alg.AES_GCM_V1;
	if (o->gcm_ctr)
		c->alg.has_AES_GCM_CTR_V1 = true;
	else
		c->alg.has_AES_GCM_V1 = true;
	g->has_aad_file_unique = true;
	g->aad_file_unique = (pq_bytes){c->unique, sizeof c->unique};
	if (plen) {
		g->has_aad_prefix = true;
		g->aad_prefix = (pq_bytes){c->file_aad, plen};
	}

	c->col_key = pq_arena_calloc(&w->arena, w->ncols ? w->ncols : 1, sizeof *c->col_key);
	c->col_key_id = pq_arena_calloc(&w->arena, w->ncols ? w->ncols : 1, sizeof *c->col_key_id);
	c->has_col_key = pq_arena_calloc(&w->arena, w->ncols ? w->ncols : 1, sizeof *c->has_col_key);
	PQ_CHECK(c->col_key && c->col_key_id && c->has_col_key, err, PQ_ENOMEM,
		 "out of memory for encryption");
	for (size_t k = 0; k < o->n_column_keys; k++) {
		const pq_column_key *ck = &o->column_keys[k];
		PQ_CHECK(ck->column && key_ok(ck->key_len), err, PQ_EINVAL,
			 "column key for %s: AES keys are 16, 24 or 32 bytes",
			 ck->column ? ck->column : "?");
		uint32_t i = 0;
		while (i < w->ncols && !(w->schema[i + 1].name.n == strlen(ck->column) &&
					 memcmp(w->schema[i + 1].name.p, ck->column, strlen(ck->column)) == 0))
			i++;
		PQ_CHECK(i < w->ncols, err, PQ_EINVAL, "encrypt_columns: no column named %s", ck->column);
		memcpy(c->col_key[i].b, ck->key, ck->key_len);
		c->col_key[i].len = (uint8_t)ck->key_len;
		const char *id = ck->key_id ? ck->key_id : "";
		c->col_key_id[i] = (pq_bytes){pq_arena_memdup(&w->arena, id, strlen(id) + 1), strlen(id)};
		PQ_CHECK(c->col_key_id[i].p, err, PQ_ENOMEM, "out of memory for encryption");
		c->has_col_key[i] = true;
	}
	return PQ_OK;
}

void pq_wcrypt_free(pq_writer *w)
{
	pq_wcrypt *c = w->crypt;
	if (!c)
		return;
	pq_crypto_wipe(&c->footer_key, sizeof c->footer_key);
	pq_crypto_wipe(c->col_key, w->ncols * sizeof *c->col_key);
	w->crypt = NULL;
}

const char *pq_wcrypt_magic(const pq_writer *w)
{
	return w->crypt && !w->crypt->plaintext_footer ? "PARE" : "PAR1";
}

pq_status pq_wcrypt_module(pq_writer *w, pq_wmodule kind, pq_wmodule_at at, const uint8_t *p,
			   size_t n, pq_buf *dest, pq_error *err)
{
	pq_wcrypt *c = w->crypt;
	if (kind == PQ_WM_FOOTER) {
		if (c->plaintext_footer) {
			uint8_t sig[PQ_CRYPTO_SIGNATURE_BYTES];
			PQ_TRY(pq_footer_signature(&c->footer_key, c->file_aad, c->file_aad_len, p, n, sig, err));
			pq_buf_append(dest, p, n);
			pq_buf_append(dest, sig, sizeof sig);
			PQ_CHECK(!dest->oom, err, PQ_ENOMEM, "out of memory for the footer");
			return PQ_OK;
		}
		pq_file_crypto_meta_data fc;
		memset(&fc, 0, sizeof fc);
		fc.encryption_algorithm = c->alg;
		fc.has_key_metadata = c->footer_key_id.n > 0;
		fc.key_metadata = c->footer_key_id;
		PQ_TRY(pq_thrift_encode(PQ_S_FILE_CRYPTO_META_DATA, &fc, dest, err));
		return pq_module_encrypt_to(dest, c->page_cipher, &c->footer_key, c->file_aad,
					    c->file_aad_len, PQ_MOD_FOOTER, 0, 0, 0, p, n, err);
	}
	const pq_key *key = at.col < w->ncols && c->has_col_key[at.col] ? &c->col_key[at.col]
									 : &c->footer_key;
	return pq_module_encrypt_to(dest, c->page_cipher, key, c->file_aad, c->file_aad_len,
				    (pq_module_type)kind, at.rg, at.col,
				    at.page < 0 ? 0 : (uint32_t)at.page, p, n, err);
}

pq_status pq_wcrypt_seal_column(pq_writer *w, uint32_t rg, uint32_t col, pq_column_chunk *cc,
				pq_error *err)
{
	pq_wcrypt *c = w->crypt;
	bool own = c->has_col_key[col];
	cc->has_crypto_metadata = true;
	if (own) {
		pq_encryption_with_column_key *k = &cc->crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY;
		cc->crypto_metadata.has_ENCRYPTION_WITH_COLUMN_KEY = true;
		k->path_in_schema = cc->meta_data.path_in_schema;
		k->has_key_metadata = c->col_key_id[col].n > 0;
		k->key_metadata = c->col_key_id[col];
	} else {
		cc->crypto_metadata.has_ENCRYPTION_WITH_FOOTER_KEY = true;
	}
	/* Under an encrypted footer, footer-key columns keep meta_data where
	 * it is (the footer protects it); everything else is sealed. */
	if (!own && !c->plaintext_footer)
		return PQ_OK;
	pq_buf raw = PQ_BUF_INIT, sealed = PQ_BUF_INIT;
	pq_status st = pq_thrift_encode(PQ_S_COLUMN_META_DATA, &cc->meta_data, &raw, err);
	if (st == PQ_OK)
		st = pq_module_encrypt_to(&sealed, c->page_cipher, own ? &c->col_key[col] : &c->footer_key,
					  c->file_aad, c->file_aad_len, PQ_MOD_COLUMN_META, rg, col, 0,
					  raw.p, raw.len, err);
	size_t slen = sealed.len;
	uint8_t *p = st == PQ_OK ? pq_arena_memdup(&w->arena, sealed.p, slen ? slen : 1) : NULL;
	if (st == PQ_OK && !p)
		st = pq_fail(err, PQ_ENOMEM, "out of memory for column metadata");
	pq_buf_free(&raw);
	pq_buf_free(&sealed);
	PQ_TRY(st);
	cc->has_encrypted_column_metadata = true;
	cc->encrypted_column_metadata = (pq_bytes){p, slen};
	if (c->plaintext_footer) {
		/* legacy readers still find the chunk; its statistics are secret */
		cc->meta_data.has_statistics = false;
		cc->meta_data.has_size_statistics = false;
		cc->meta_data.has_encoding_stats = false;
	} else {
		cc->has_meta_data = false;
	}
	return PQ_OK;
}

void pq_wcrypt_footer_fields(const pq_writer *w, pq_file_meta_data *md)
{
	const pq_wcrypt *c = w->crypt;
	if (!c || !c->plaintext_footer)
		return;
	md->has_encryption_algorithm = true;
	md->encryption_algorithm = c->alg;
	md->has_footer_signing_key_metadata = c->footer_key_id.n > 0;
	md->footer_signing_key_metadata = c->footer_key_id;
}
