/* Reading encrypted files (Encryption.md): the encrypted footer (PARE and
 * FileCryptoMetaData), the signed plaintext footer, each column chunk's
 * key and its encrypted column metadata, and the decryption of modules
 * (pages, headers, indexes, bloom filters) with their AADs.
 *
 * Everything here runs once, in pq_file_open: the keys and the decrypted
 * column metadata are stored in the pq_file, which stays immutable. A
 * chunk whose key is missing or whose metadata fails to authenticate keeps
 * its status and message; only reading that chunk fails. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_keyring.h"
#include "format/pq_metadata_codec.h"

/* A key id (key_metadata) for messages: printable bytes as they are,
 * others as \xHH, at most about 60 characters. */
static void key_id_text(pq_bytes id, char *buf, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < id.n && k + 5 < cap; i++) {
		if (k >= 60) {
			snprintf(buf + k, cap - k, "...");
			return;
		}
		uint8_t c = id.p[i];
		if (c >= 0x20 && c < 0x7f && c != '\'')
			buf[k++] = (char)c;
		else
			k += (size_t)snprintf(buf + k, cap - k, "\\x%02x", c);
	}
	buf[k] = '\0';
}

/* Key material written by a KMS (parquet-mr's PKMT1 JSON) names no key a
 * key_file could hold: say so instead of showing it as a key id. */
static bool is_kms_material(pq_bytes id)
{
	const char tag[] = "keyMaterialType";
	if (id.n < sizeof tag || id.p[0] != '{')
		return false;
	for (size_t i = 0; i + sizeof tag - 1 <= id.n; i++)
		if (memcmp(id.p + i, tag, sizeof tag - 1) == 0)
			return true;
	return false;
}

static void describe_missing(pq_bytes id, bool has_id, const char *fallback, char *buf, size_t cap)
{
	if (!has_id) {
		snprintf(buf, cap, "no key id is stored and the key_file has no '%s' line", fallback);
	} else if (is_kms_material(id)) {
		snprintf(buf, cap, "its key_metadata is KMS-wrapped key material, which a key_file cannot express");
	} else {
		char t[80];
		key_id_text(id, t, sizeof t);
		snprintf(buf, cap, "key '%s' is not in the key_file (add 'key %s: ...')", t, t);
	}
}

static const pq_aes_gcm *algorithm_params(const pq_encryption_algorithm *a, pq_cipher *pages)
{
	if (a->has_AES_GCM_V1) {
		*pages = PQ_CIPHER_GCM;
		return &a->AES_GCM_V1;
	}
	if (a->has_AES_GCM_CTR_V1) {
		*pages = PQ_CIPHER_CTR;
		return &a->AES_GCM_CTR_V1;
	}
	return NULL;
}

/* file_aad = AAD prefix (stored, else supplied by the key_file) followed
 * by aad_file_unique. */
static pq_status setup_algorithm(pq_file *f, const pq_encryption_algorithm *a,
				 const pq_keyring *keys, pq_error *err)
{
	pq_file_crypto *c = f->crypto;
	const pq_aes_gcm *g = algorithm_params(a, &c->page_cipher);
	PQ_CHECK(g, err, PQ_EUNSUPPORTED,
		 "encrypted with an algorithm parquetfs does not know (only AES_GCM_V1 and AES_GCM_CTR_V1)");
	const uint8_t *prefix = NULL;
	size_t prefix_len = 0;
	if (g->has_aad_prefix) {
		prefix = g->aad_prefix.p;
		prefix_len = g->aad_prefix.n;
	} else if (g->has_supply_aad_prefix && g->supply_aad_prefix) {
		PQ_CHECK(pq_keyring_aad_prefix(keys, f->name, &prefix, &prefix_len), err, PQ_EKEY,
			 "the file was encrypted with an AAD prefix it does not store: give it in the "
			 "key_file ('aad_prefix: TEXT' in a section matching %s)", f->name);
		c->aad_supplied = true;
	}
	size_t n = prefix_len + (g->has_aad_file_unique ? g->aad_file_unique.n : 0);
	PQ_CHECK(n <= (1u << 20), err, PQ_ELIMIT, "AAD of %zu bytes is too long", n);
	c->file_aad = malloc(n + PQ_AAD_SUFFIX_MAX);
	PQ_CHECK(c->file_aad, err, PQ_ENOMEM, "no memory for the AAD");
	if (prefix_len)
		memcpy(c->file_aad, prefix, prefix_len);
	if (g->has_aad_file_unique && g->aad_file_unique.n)
		memcpy(c->file_aad + prefix_len, g->aad_file_unique.p, g->aad_file_unique.n);
	c->file_aad_len = n;
	return PQ_OK;
}

/* The footer key: the key_file's `key ID` for the stored key_metadata;
 * its `footer:` key only for files that store none (the contract). */
static pq_status find_footer_key(pq_file *f, pq_bytes id, bool has_id, const pq_keyring *keys,
				 const char *what, bool required, pq_error *err)
{
	pq_file_crypto *c = f->crypto;
	if (has_id ? pq_keyring_key(keys, f->name, id.p, id.n, &c->footer_key)
		   : pq_keyring_footer_key(keys, f->name, &c->footer_key)) {
		c->has_footer_key = true;
		return PQ_OK;
	}
	if (!required)
		return PQ_OK;
	char why[256];
	describe_missing(id, has_id, "footer: KEY", why, sizeof why);
	return pq_fail(err, PQ_EKEY, "%s: footer key not available: %s", what, why);
}

static const char *tag_hint(const pq_file *f)
{
	return f->crypto->aad_supplied ? " (tampered data, wrong key or wrong aad_prefix)"
				       : " (tampered data or wrong key)";
}

static pq_status new_crypto(pq_file *f, pq_error *err)
{
	f->crypto = calloc(1, sizeof *f->crypto);
	PQ_CHECK(f->crypto, err, PQ_ENOMEM, "no memory");
	return PQ_OK;
}

pq_status pq_crypto_open_encrypted_footer(pq_file *f, const pq_footer_loc *loc, uint8_t *raw,
					  const pq_keyring *keys, pq_error *err)
{
	pq_status st0 = new_crypto(f, err);
	if (st0 != PQ_OK) {
		free(raw);
		return st0;
	}
	pq_file_crypto *c = f->crypto;
	c->footer_encrypted = true;
	c->fcmd_raw = raw; /* freed with the crypto state, whatever happens next */
	PQ_CHECK(loc->length <= PQ_MAX_FOOTER_BYTES, err, PQ_ELIMIT,
		 "footer of %u bytes exceeds the %u-byte limit", loc->length, PQ_MAX_FOOTER_BYTES);
	size_t used = 0;
	pq_status st = pq_thrift_decode(PQ_S_FILE_CRYPTO_META_DATA, c->fcmd_raw, loc->length,
					&c->fcmd, &used, &f->arena, err);
	if (st != PQ_OK)
		return pq_context(err, "encrypted footer: FileCryptoMetaData at offset %llu",
				  (unsigned long long)loc->offset);
	PQ_TRY(setup_algorithm(f, &c->fcmd.encryption_algorithm, keys, err));
	PQ_TRY(find_footer_key(f, c->fcmd.key_metadata, c->fcmd.has_key_metadata, keys,
			       "encrypted footer", true, err));
	const uint8_t *m = c->fcmd_raw + used;
	size_t n = loc->length - used;
	uint64_t size;
	st = pq_module_stored_size(m, n, PQ_CIPHER_GCM, n, &size, err);
	if (st != PQ_OK)
		return pq_context(err, "encrypted footer at offset %llu",
				  (unsigned long long)(loc->offset + used));
	f->footer = malloc(n);
	PQ_CHECK(f->footer, err, PQ_ENOMEM, "no memory for a %zu-byte footer", n);
	uint8_t aad[PQ_AAD_SUFFIX_MAX];
	uint8_t *full = malloc(c->file_aad_len + sizeof aad);
	PQ_CHECK(full, err, PQ_ENOMEM, "no memory");
	size_t aad_len;
	st = pq_aad_build(c->file_aad, c->file_aad_len, PQ_MOD_FOOTER, 0, 0, 0, full, &aad_len, err);
	if (st == PQ_OK)
		st = pq_module_decrypt(PQ_CIPHER_GCM, &c->footer_key, full, aad_len, m, (size_t)size,
				       f->footer, &f->footer_len, err);
	/* DuckDB writes modules without any AAD, and no aad_file_unique: a
	 * file that stores no AAD material is tried that way too, and then
	 * read that way throughout. Spec writers always store aad_file_unique. */
	if (st == PQ_EAUTH && c->file_aad_len == 0 &&
	    pq_module_decrypt(PQ_CIPHER_GCM, &c->footer_key, NULL, 0, m, (size_t)size, f->footer,
			      &f->footer_len, err) == PQ_OK) {
		c->no_aad = true;
		st = PQ_OK;
	}
	free(full);
	if (st == PQ_EAUTH)
		return pq_fail(err, PQ_EAUTH, "encrypted footer: GCM tag check failed%s", tag_hint(f));
	if (st != PQ_OK)
		return pq_context(err, "encrypted footer");
	return PQ_OK;
}

pq_status pq_crypto_open_plaintext_footer(pq_file *f, size_t used, const pq_keyring *keys,
					  pq_error *err)
{
	PQ_TRY(new_crypto(f, err));
	pq_file_crypto *c = f->crypto;
	const pq_file_meta_data *md = &f->md;
	PQ_TRY(setup_algorithm(f, &md->encryption_algorithm, keys, err));
	PQ_CHECK(f->footer_len >= used && f->footer_len - used == PQ_CRYPTO_SIGNATURE_BYTES, err,
		 PQ_ECORRUPT,
		 "plaintext footer of an encrypted file: %zu bytes follow the FileMetaData, "
		 "the signature takes %d", f->footer_len - used, PQ_CRYPTO_SIGNATURE_BYTES);
	/* Without the signing key the plaintext columns are still readable
	 * (that is what this mode is for); metadata.txt says "not verified". */
	PQ_TRY(find_footer_key(f, md->footer_signing_key_metadata, md->has_footer_signing_key_metadata,
			       keys, "plaintext footer", false, err));
	c->signature = PQ_SIG_NO_KEY;
	if (c->has_footer_key) {
		const uint8_t *nonce = f->footer + used;
		uint8_t tag[PQ_CRYPTO_TAG_BYTES];
		uint8_t *aad = malloc(c->file_aad_len + PQ_AAD_SUFFIX_MAX);
		PQ_CHECK(aad, err, PQ_ENOMEM, "no memory");
		size_t aad_len;
		pq_status st = pq_aad_build(c->file_aad, c->file_aad_len, PQ_MOD_FOOTER, 0, 0, 0, aad,
					    &aad_len, err);
		if (st == PQ_OK)
			st = pq_gcm_tag(&c->footer_key, nonce, aad, aad_len, f->footer, used, tag, err);
		bool ok = st == PQ_OK && pq_crypto_equal(tag, nonce + PQ_CRYPTO_NONCE_BYTES, PQ_CRYPTO_TAG_BYTES);
		/* as for the encrypted footer: a file without AAD material */
		if (st == PQ_OK && !ok && c->file_aad_len == 0) {
			st = pq_gcm_tag(&c->footer_key, nonce, NULL, 0, f->footer, used, tag, err);
			ok = st == PQ_OK && pq_crypto_equal(tag, nonce + PQ_CRYPTO_NONCE_BYTES, PQ_CRYPTO_TAG_BYTES);
			c->no_aad = ok;
		}
		free(aad);
		PQ_TRY(st);
		PQ_CHECK(ok, err, PQ_EAUTH, "plaintext footer: signature check failed%s", tag_hint(f));
		c->signature = PQ_SIG_VERIFIED;
	}
	f->footer_len = used;
	return PQ_OK;
}

/* Keeps a chunk's problem: only reading that chunk fails. */
static pq_status chunk_fail(pq_file *f, pq_chunk_crypto *cc, pq_status st, const char *where,
			    const char *msg)
{
	char buf[PQ_ERROR_MSG_MAX];
	if (where)
		snprintf(buf, sizeof buf, "%.200s: %.300s", where, msg);
	else
		snprintf(buf, sizeof buf, "%s", msg);
	char *p = pq_arena_memdup(&f->arena, buf, strlen(buf) + 1);
	cc->status = p ? st : PQ_ENOMEM;
	cc->msg = p ? p : "no memory";
	return PQ_OK;
}

/* Decrypts encrypted_column_metadata into c->meta_data. */
static pq_status decrypt_column_meta(pq_file *f, uint32_t rg, uint32_t col, pq_column_chunk *c,
				     pq_error *err)
{
	pq_bytes e = c->encrypted_column_metadata;
	uint8_t *plain = pq_arena_alloc(&f->arena, e.n ? e.n : 1);
	PQ_CHECK(plain, err, PQ_ENOMEM, "no memory for column metadata");
	size_t n;
	char where[256];
	pq_file_where(f, rg, col, where, sizeof where);
	if (pq_chunk_decrypt(f, rg, col, PQ_MOD_COLUMN_META, 0, e.p, e.n, plain, &n, err) != PQ_OK)
		return pq_context(err, "%s", where);
	pq_column_meta_data md;
	memset(&md, 0, sizeof md);
	size_t used;
	pq_status st = pq_thrift_decode(PQ_S_COLUMN_META_DATA, plain, n, &md, &used, &f->arena, err);
	if (st != PQ_OK)
		return pq_context(err, "%s: decrypted column metadata", where);
	c->meta_data = md;
	c->has_meta_data = true;
	return PQ_OK;
}

static pq_status setup_chunk(pq_file *f, uint32_t rg, uint32_t col, const pq_keyring *keys,
			     pq_error *err)
{
	pq_column_chunk *c = &f->md.row_groups.v[rg].columns.v[col];
	pq_chunk_crypto *cc = &f->crypto->chunks[(size_t)rg * f->num_columns + col];
	/* DuckDB's files (no AADs) store no crypto_metadata and encrypt every
	 * column with the footer key; elsewhere its absence means plaintext. */
	bool duck = f->crypto->no_aad && f->crypto->footer_encrypted;
	if (!c->has_crypto_metadata && !duck)
		return PQ_OK; /* a plaintext column */
	cc->encrypted = true;
	char where[256], why[300];
	pq_file_where(f, rg, col, where, sizeof where);
	const pq_column_crypto_meta_data *cm = &c->crypto_metadata;
	if (cm->has_ENCRYPTION_WITH_FOOTER_KEY || !c->has_crypto_metadata) {
		if (!f->crypto->has_footer_key) {
			describe_missing(f->md.footer_signing_key_metadata,
					 f->md.has_footer_signing_key_metadata, "footer: KEY", why, sizeof why);
			char msg[400];
			snprintf(msg, sizeof msg, "encrypted with the footer key, which is not available: %s", why);
			return chunk_fail(f, cc, PQ_EKEY, where, msg);
		}
		cc->key = f->crypto->footer_key;
	} else if (cm->has_ENCRYPTION_WITH_COLUMN_KEY) {
		const pq_encryption_with_column_key *k = &cm->ENCRYPTION_WITH_COLUMN_KEY;
		const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
		bool found = (k->has_key_metadata &&
			      pq_keyring_key(keys, f->name, k->key_metadata.p, k->key_metadata.n, &cc->key)) ||
			     (leaf && pq_keyring_column_key(keys, f->name, leaf->path, leaf->path_len, &cc->key));
		if (!found) {
			char alt[300];
			snprintf(alt, sizeof alt, "column %s: KEY", leaf ? leaf->path : "?");
			describe_missing(k->key_metadata, k->has_key_metadata, alt, why, sizeof why);
			char msg[400];
			snprintf(msg, sizeof msg, "column key not available: %s", why);
			return chunk_fail(f, cc, PQ_EKEY, where, msg);
		}
	} else {
		return chunk_fail(f, cc, PQ_ECORRUPT, where, "crypto_metadata names no key");
	}
	if (c->has_encrypted_column_metadata) {
		pq_error e2;
		pq_error_clear(&e2);
		pq_status st = decrypt_column_meta(f, rg, col, c, &e2);
		if (st == PQ_ENOMEM)
			return pq_fail(err, st, "%s", e2.msg);
		if (st != PQ_OK)
			return chunk_fail(f, cc, st, NULL, e2.msg);
	}
	return PQ_OK;
}

pq_status pq_crypto_setup_chunks(pq_file *f, const pq_keyring *keys, pq_error *err)
{
	pq_file_crypto *c = f->crypto;
	size_t n = (size_t)f->md.row_groups.n * f->num_columns;
	c->chunks = calloc(n ? n : 1, sizeof *c->chunks);
	PQ_CHECK(c->chunks, err, PQ_ENOMEM, "no memory for %zu column chunks", n);
	c->nchunks = n;
	for (uint32_t rg = 0; rg < f->md.row_groups.n; rg++)
		for (uint32_t col = 0; col < f->num_columns; col++)
			PQ_TRY(setup_chunk(f, rg, col, keys, err));
	return PQ_OK;
}

void pq_crypto_free(pq_file_crypto *c)
{
	if (!c)
		return;
	pq_crypto_wipe(c->chunks, c->nchunks * sizeof *c->chunks);
	pq_crypto_wipe(&c->footer_key, sizeof c->footer_key);
	free(c->chunks);
	free(c->file_aad);
	free(c->fcmd_raw);
	free(c);
}

const pq_chunk_crypto *pq_file_chunk_crypto(const pq_file *f, uint32_t rg, uint32_t col)
{
	if (!f->crypto || !f->crypto->chunks || rg >= f->md.row_groups.n || col >= f->num_columns)
		return NULL;
	const pq_chunk_crypto *cc = &f->crypto->chunks[(size_t)rg * f->num_columns + col];
	return cc->encrypted ? cc : NULL;
}

/* "data page 3", "column index": the module, for messages. */
static void module_name(pq_module_type type, uint32_t page, char *buf, size_t cap)
{
	if (type == PQ_MOD_DATA_PAGE || type == PQ_MOD_DATA_PAGE_HEADER)
		snprintf(buf, cap, "%s %u", pq_module_type_name(type), page);
	else
		snprintf(buf, cap, "%s", pq_module_type_name(type));
}

pq_status pq_chunk_decrypt(const pq_file *f, uint32_t rg, uint32_t col, pq_module_type type,
			   uint32_t page, const uint8_t *m, size_t n, uint8_t *out,
			   size_t *out_len, pq_error *err)
{
	const pq_chunk_crypto *cc = pq_file_chunk_crypto(f, rg, col);
	PQ_CHECK(cc, err, PQ_EINVAL, "column %u of row group %u is not encrypted", col, rg);
	if (cc->status != PQ_OK)
		return pq_fail(err, cc->status, "%s", cc->msg);
	pq_cipher ci = (type == PQ_MOD_DATA_PAGE || type == PQ_MOD_DICT_PAGE) ? f->crypto->page_cipher
									    : PQ_CIPHER_GCM;
	uint8_t *aad = malloc(f->crypto->file_aad_len + PQ_AAD_SUFFIX_MAX);
	PQ_CHECK(aad, err, PQ_ENOMEM, "no memory");
	size_t aad_len;
	pq_status st = pq_aad_build(f->crypto->file_aad, f->crypto->file_aad_len, type, rg, col, page,
				    aad, &aad_len, err);
	if (st == PQ_OK)
		st = pq_module_decrypt(ci, &cc->key, aad, f->crypto->no_aad ? 0 : aad_len, m, n, out,
				       out_len, err);
	free(aad);
	if (st != PQ_OK) {
		char what[64];
		module_name(type, page, what, sizeof what);
		if (st == PQ_EAUTH)
			return pq_fail(err, st, "%s: GCM tag check failed%s", what, tag_hint(f));
		return pq_context(err, "%s", what);
	}
	return PQ_OK;
}

pq_status pq_chunk_read_module(const pq_file *f, uint32_t rg, uint32_t col, pq_module_type type,
			       uint32_t page, uint64_t off, uint64_t max, uint8_t **out,
			       size_t *out_len, uint64_t *stored, pq_error *err)
{
	*out = NULL;
	char where[320], w[256], what[48];
	pq_file_where(f, rg, col, w, sizeof w);
	module_name(type, page, what, sizeof what);
	snprintf(where, sizeof where, "%.250s: %.48s", w, what);
	PQ_CHECK(off <= f->size && f->size - off >= PQ_CRYPTO_LEN_BYTES, err, PQ_ECORRUPT,
		 "%s at offset %llu lies outside the file", where, (unsigned long long)off);
	if (max > f->size - off)
		max = f->size - off;
	if (max > PQ_MAX_PAGE_BYTES)
		max = PQ_MAX_PAGE_BYTES;
	uint8_t len[PQ_CRYPTO_LEN_BYTES];
	PQ_TRY(pq_file_pread(f, len, sizeof len, off, err));
	pq_cipher ci = (type == PQ_MOD_DATA_PAGE || type == PQ_MOD_DICT_PAGE) ? f->crypto->page_cipher
									    : PQ_CIPHER_GCM;
	uint64_t size;
	pq_status st = pq_module_stored_size(len, sizeof len, ci, max, &size, err);
	if (st != PQ_OK)
		return pq_context(err, "%s at offset %llu", where, (unsigned long long)off);
	uint8_t *m = malloc((size_t)size);
	uint8_t *p = malloc((size_t)size);
	if (!m || !p) {
		free(m);
		free(p);
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for %llu bytes", where,
			       (unsigned long long)size);
	}
	st = pq_file_pread(f, m, (size_t)size, off, err);
	if (st == PQ_OK && pq_chunk_decrypt(f, rg, col, type, page, m, (size_t)size, p, out_len,
					    err) != PQ_OK)
		st = pq_context(err, "%s", w);
	free(m);
	if (st != PQ_OK) {
		free(p);
		return st;
	}
	*out = p;
	*stored = size;
	return PQ_OK;
}

/* ---- what metadata.txt and metadata.json say about encryption ---- */

static void put_key_id(pq_buf *out, pq_bytes id, bool has)
{
	if (!has) {
		pq_buf_puts(out, "(no key id stored)");
	} else if (is_kms_material(id)) {
		pq_buf_puts(out, "(KMS key material)");
	} else {
		char t[80];
		key_id_text(id, t, sizeof t);
		pq_buf_puts(out, t);
	}
}

void pq_text_file_encryption(const pq_file *f, pq_buf *out)
{
	const pq_file_crypto *c = f->crypto;
	const pq_encryption_algorithm *a = c->footer_encrypted ? &c->fcmd.encryption_algorithm
							       : &f->md.encryption_algorithm;
	pq_cipher pages;
	const pq_aes_gcm *g = algorithm_params(a, &pages);
	pq_buf_printf(out, "encryption_algorithm: %s", a->has_AES_GCM_V1 ? "AES_GCM_V1" : "AES_GCM_CTR_V1");
	if (g && g->has_aad_prefix)
		pq_buf_puts(out, ", aad_prefix stored");
	else if (c->aad_supplied)
		pq_buf_puts(out, ", aad_prefix supplied by the key_file");
	if (c->no_aad)
		pq_buf_puts(out, ", written without module AADs");
	pq_buf_putc(out, '\n');
	if (c->footer_encrypted) {
		pq_buf_puts(out, "footer: encrypted, key ");
		put_key_id(out, c->fcmd.key_metadata, c->fcmd.has_key_metadata);
	} else {
		pq_buf_puts(out, "footer: plaintext, signed with key ");
		put_key_id(out, f->md.footer_signing_key_metadata, f->md.has_footer_signing_key_metadata);
		pq_buf_puts(out, c->signature == PQ_SIG_VERIFIED ? ", signature verified"
							       : ", signature not verified (footer key not available)");
	}
	pq_buf_putc(out, '\n');
	/* Which columns, by the first row group (writers encrypt a column the
	 * same way in every row group). */
	uint32_t n = 0;
	for (uint32_t col = 0; col < f->num_columns; col++)
		n += pq_file_chunk_crypto(f, 0, col) != NULL;
	pq_buf_printf(out, "encrypted_columns: %u of %u\n", n, f->num_columns);
	for (uint32_t col = 0; col < f->num_columns && n; col++) {
		const pq_chunk_crypto *cc = pq_file_chunk_crypto(f, 0, col);
		if (!cc)
			continue;
		const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
		const pq_column_crypto_meta_data *cm = &f->md.row_groups.v[0].columns.v[col].crypto_metadata;
		pq_buf_printf(out, "  %s: ", leaf ? leaf->path : "?");
		if (cm->has_ENCRYPTION_WITH_COLUMN_KEY) {
			pq_buf_puts(out, "column key ");
			put_key_id(out, cm->ENCRYPTION_WITH_COLUMN_KEY.key_metadata,
				   cm->ENCRYPTION_WITH_COLUMN_KEY.has_key_metadata);
		} else {
			pq_buf_puts(out, "footer key");
		}
		if (cc->status == PQ_EKEY)
			pq_buf_puts(out, " (key not available)");
		else if (cc->status != PQ_OK)
			pq_buf_puts(out, " (unreadable: see its error.txt)");
		pq_buf_putc(out, '\n');
	}
}

void pq_json_file_encryption(const pq_file *f, pq_buf *out)
{
	const pq_file_crypto *c = f->crypto;
	if (!c || !c->footer_encrypted)
		return;
	pq_buf_puts(out, "  \"file_crypto_metadata\": ");
	size_t start = out->len;
	pq_metadata_json(PQ_S_FILE_CRYPTO_META_DATA, &c->fcmd, NULL, out);
	/* indent the nested object by two spaces, as a member */
	pq_buf tmp = PQ_BUF_INIT;
	for (size_t i = start; i < out->len; i++) {
		pq_buf_putc(&tmp, (char)out->p[i]);
		if (out->p[i] == '\n' && i + 1 < out->len)
			pq_buf_puts(&tmp, "  ");
	}
	out->len = start;
	while (tmp.len && tmp.p[tmp.len - 1] == '\n')
		tmp.len--;
	pq_buf_append(out, tmp.p, tmp.len);
	if (tmp.oom) /* the indented copy is short: so is the view */
		out->oom = true;
	pq_buf_free(&tmp);
}
