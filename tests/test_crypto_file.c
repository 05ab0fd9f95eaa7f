/* Encrypted files built by hand from the spec, read back through
 * pq_file_open: every combination the test files of parquet-testing do not
 * cover (AES_GCM_CTR_V1, 192- and 256-bit keys, a stored AAD prefix, a
 * column key found by column path, several pages with their ordinals),
 * with known values. The files are put together here from the thrift
 * structs, pq_module_encrypt_to and pq_footer_signature (the write side),
 * following Encryption.md section 5. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pq_crypto.h"
#include "read/pq_dump.h"
#include "pq_keyring.h"
#include "pq_metadata.h"
#include "format/pq_metadata_codec.h"

#define PAGES 3
#define PER_PAGE 10

typedef struct spec {
	bool ctr;
	bool plaintext_footer;
	bool column_key;    /* else the footer key */
	size_t key_len;     /* 16, 24, 32 */
	int aad;            /* 0 none, 1 stored, 2 supplied (not stored) */
} spec;

static pq_key make_key(uint8_t seed, size_t len)
{
	pq_key k = {{0}, (uint8_t)len};
	for (size_t i = 0; i < len; i++)
		k.b[i] = (uint8_t)(seed + i);
	return k;
}

static void put_le32(pq_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	pq_buf_append(b, x, 4);
}

static pq_bytes str(const char *s)
{
	pq_bytes b = {(const uint8_t *)s, strlen(s)};
	return b;
}

static void enc(pq_struct_kind kind, const void *s, pq_buf *out)
{
	pq_error err;
	ck_assert_msg(pq_thrift_encode(kind, s, out, &err) == PQ_OK, "%s", err.msg);
}

/* One REQUIRED INT32 column "v" holding 0..PAGES*PER_PAGE-1 in PAGES plain,
 * uncompressed v1 pages. */
static pq_buf build(const spec *sp, const pq_key *fk, const pq_key *ck)
{
	pq_error err;
	pq_cipher pc = sp->ctr ? PQ_CIPHER_CTR : PQ_CIPHER_GCM;
	const char *prefix = "table.part7";
	uint8_t unique[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t file_aad[64];
	size_t fal = 0;
	if (sp->aad) {
		memcpy(file_aad, prefix, strlen(prefix));
		fal = strlen(prefix);
	}
	memcpy(file_aad + fal, unique, 8);
	fal += 8;
	const pq_key *key = sp->column_key ? ck : fk;

	pq_buf f = PQ_BUF_INIT;
	pq_buf_append(&f, sp->plaintext_footer ? "PAR1" : "PARE", 4);
	for (uint32_t p = 0; p < PAGES; p++) {
		uint8_t body[PER_PAGE * 4];
		for (int i = 0; i < PER_PAGE; i++) {
			uint32_t v = p * PER_PAGE + (uint32_t)i;
			memcpy(body + 4 * i, &v, 4); /* little-endian host */
		}
		pq_buf bm = PQ_BUF_INIT, hb = PQ_BUF_INIT;
		ck_assert(pq_module_encrypt_to(&bm, pc, key, file_aad, fal, PQ_MOD_DATA_PAGE, 0, 0, p, body,
					       sizeof body, &err) == PQ_OK);
		pq_page_header h;
		memset(&h, 0, sizeof h);
		h.type = PQ_PAGE_DATA;
		h.uncompressed_page_size = (int32_t)sizeof body;
		h.compressed_page_size = (int32_t)bm.len; /* the whole module, as Arrow writes */
		h.has_data_page_header = true;
		h.data_page_header.num_values = PER_PAGE;
		h.data_page_header.encoding = PQ_ENC_PLAIN;
		h.data_page_header.definition_level_encoding = PQ_ENC_RLE;
		h.data_page_header.repetition_level_encoding = PQ_ENC_RLE;
		enc(PQ_S_PAGE_HEADER, &h, &hb);
		ck_assert(pq_module_encrypt_to(&f, pc, key, file_aad, fal, PQ_MOD_DATA_PAGE_HEADER, 0, 0, p,
					       hb.p, hb.len, &err) == PQ_OK);
		pq_buf_append(&f, bm.p, bm.len);
		pq_buf_free(&bm);
		pq_buf_free(&hb);
	}
	int64_t chunk_len = (int64_t)f.len - 4;

	pq_column_meta_data m;
	memset(&m, 0, sizeof m);
	int32_t encs[2] = {PQ_ENC_PLAIN, PQ_ENC_RLE};
	pq_bytes path[1] = {str("v")};
	m.type = PQ_INT32;
	m.encodings.n = 2;
	m.encodings.v = encs;
	m.path_in_schema.n = 1;
	m.path_in_schema.v = path;
	m.codec = PQ_CODEC_UNCOMPRESSED;
	m.num_values = PAGES * PER_PAGE;
	m.total_uncompressed_size = chunk_len;
	m.total_compressed_size = chunk_len;
	m.data_page_offset = 4;

	pq_column_chunk cc;
	memset(&cc, 0, sizeof cc);
	cc.file_offset = 4;
	cc.has_crypto_metadata = true;
	pq_buf ecm = PQ_BUF_INIT;
	if (sp->column_key) {
		cc.crypto_metadata.has_ENCRYPTION_WITH_COLUMN_KEY = true;
		cc.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY.path_in_schema.n = 1;
		cc.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY.path_in_schema.v = path;
		/* no key_metadata: the key_file's "column v:" is found by path */
		pq_buf mb = PQ_BUF_INIT;
		enc(PQ_S_COLUMN_META_DATA, &m, &mb);
		ck_assert(pq_module_encrypt_to(&ecm, pc, ck, file_aad, fal, PQ_MOD_COLUMN_META, 0, 0, 0, mb.p,
					       mb.len, &err) == PQ_OK);
		pq_buf_free(&mb);
		cc.has_encrypted_column_metadata = true;
		cc.encrypted_column_metadata.p = ecm.p;
		cc.encrypted_column_metadata.n = ecm.len;
		if (sp->plaintext_footer) {
			/* legacy readers see offsets and sizes, no statistics */
			cc.has_meta_data = true;
			cc.meta_data = m;
		}
	} else {
		cc.crypto_metadata.has_ENCRYPTION_WITH_FOOTER_KEY = true;
		cc.has_meta_data = true;
		cc.meta_data = m;
	}

	pq_row_group rg;
	memset(&rg, 0, sizeof rg);
	rg.columns.n = 1;
	rg.columns.v = &cc;
	rg.total_byte_size = chunk_len;
	rg.num_rows = PAGES * PER_PAGE;
	rg.has_ordinal = true;
	rg.ordinal = 0;

	pq_schema_element el[2];
	memset(el, 0, sizeof el);
	el[0].name = str("schema");
	el[0].has_num_children = true;
	el[0].num_children = 1;
	el[1].name = str("v");
	el[1].has_type = true;
	el[1].type = PQ_INT32;
	el[1].has_repetition_type = true;
	el[1].repetition_type = PQ_REQUIRED;

	pq_encryption_algorithm alg;
	memset(&alg, 0, sizeof alg);
	pq_aes_gcm *g = sp->ctr ? &alg.AES_GCM_CTR_V1 : &alg.AES_GCM_V1;
	if (sp->ctr)
		alg.has_AES_GCM_CTR_V1 = true;
	else
		alg.has_AES_GCM_V1 = true;
	g->has_aad_file_unique = true;
	g->aad_file_unique.p = unique;
	g->aad_file_unique.n = 8;
	if (sp->aad == 1) {
		g->has_aad_prefix = true;
		g->aad_prefix = str(prefix);
	} else if (sp->aad == 2) {
		g->has_supply_aad_prefix = true;
		g->supply_aad_prefix = true;
	}

	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	md.version = 1;
	md.schema.n = 2;
	md.schema.v = el;
	md.num_rows = PAGES * PER_PAGE;
	md.row_groups.n = 1;
	md.row_groups.v = &rg;
	pq_buf footer = PQ_BUF_INIT;
	size_t start = f.len;
	if (sp->plaintext_footer) {
		md.has_encryption_algorithm = true;
		md.encryption_algorithm = alg;
		md.has_footer_signing_key_metadata = true;
		md.footer_signing_key_metadata = str("kf");
		enc(PQ_S_FILE_META_DATA, &md, &footer);
		uint8_t sig[PQ_CRYPTO_SIGNATURE_BYTES];
		ck_assert(pq_footer_signature(fk, file_aad, fal, footer.p, footer.len, sig, &err) == PQ_OK);
		pq_buf_append(&f, footer.p, footer.len);
		pq_buf_append(&f, sig, sizeof sig);
	} else {
		pq_file_crypto_meta_data fc;
		memset(&fc, 0, sizeof fc);
		fc.encryption_algorithm = alg;
		fc.has_key_metadata = true;
		fc.key_metadata = str("kf");
		enc(PQ_S_FILE_CRYPTO_META_DATA, &fc, &f);
		enc(PQ_S_FILE_META_DATA, &md, &footer);
		ck_assert(pq_module_encrypt_to(&f, pc, fk, file_aad, fal, PQ_MOD_FOOTER, 0, 0, 0, footer.p,
					       footer.len, &err) == PQ_OK);
	}
	put_le32(&f, (uint32_t)(f.len - start));
	pq_buf_append(&f, sp->plaintext_footer ? "PAR1" : "PARE", 4);
	pq_buf_free(&footer);
	pq_buf_free(&ecm);
	ck_assert(!f.oom);
	return f;
}

static int to_fd(const pq_buf *b)
{
	char tmpl[] = "/tmp/pq-crypto-file-XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert(fd >= 0);
	unlink(tmpl);
	ck_assert(write(fd, b->p, b->len) == (ssize_t)b->len);
	return fd;
}

static pq_keyring *keyring_for(const pq_key *fk, const pq_key *ck, bool supply_prefix)
{
	pq_buf t = PQ_BUF_INIT;
	pq_buf_puts(&t, "key kf: ");
	for (int i = 0; i < fk->len; i++)
		pq_buf_printf(&t, "%02x", fk->b[i]);
	pq_buf_puts(&t, "\ncolumn v: ");
	for (int i = 0; i < ck->len; i++)
		pq_buf_printf(&t, "%02x", ck->b[i]);
	pq_buf_puts(&t, "\n[t?st/*.parquet]\n");
	if (supply_prefix)
		pq_buf_puts(&t, "aad_prefix: table.part7\n");
	pq_keyring *kr;
	pq_error err;
	ck_assert_msg(pq_keyring_parse((const char *)t.p, t.len, "k", &kr, &err) == PQ_OK, "%s", err.msg);
	pq_buf_free(&t);
	return kr;
}

static void expect_values(const pq_file *f)
{
	pq_buf out = PQ_BUF_INIT, want = PQ_BUF_INIT;
	pq_error err;
	ck_assert_msg(pq_dump_column(f, PQ_ALL, 0, false, &out, &err) == PQ_OK, "%s", err.msg);
	for (int i = 0; i < PAGES * PER_PAGE; i++)
		pq_buf_printf(&want, "%d\n", i);
	ck_assert_uint_eq(out.len, want.len);
	ck_assert(memcmp(out.p, want.p, out.len) == 0);
	pq_buf_free(&out);
	pq_buf_free(&want);
}

/* All 2 x 2 x 2 x 3 x 3 combinations. */
START_TEST(test_combinations)
{
	int i = _i;
	spec sp = {i & 1, (i >> 1) & 1, (i >> 2) & 1, (size_t)(16 + 8 * ((i >> 3) % 3)), (i / 24) % 3};
	pq_key fk = make_key(0x10, sp.key_len), ck = make_key(0x80, 32 - (sp.key_len - 16));
	pq_buf file = build(&sp, &fk, &ck);
	int fd = to_fd(&file);
	pq_keyring *kr = keyring_for(&fk, &ck, sp.aad == 2);
	pq_file *f = NULL;
	pq_error err;
	pq_status st = pq_file_open_fd(fd, "test/x.parquet", kr, &f, &err);
	ck_assert_msg(st == PQ_OK, "case %d (ctr %d, plain footer %d, column key %d, key %zu, aad %d): %s", i,
		      sp.ctr, sp.plaintext_footer, sp.column_key, sp.key_len, sp.aad, err.msg);
	expect_values(f);
	pq_buf meta = PQ_BUF_INIT;
	pq_text_file_metadata(f, &meta);
	pq_buf_putc(&meta, '\0');
	ck_assert_msg(strstr((char *)meta.p, sp.ctr ? "AES_GCM_CTR_V1" : "AES_GCM_V1"), "%s", (char *)meta.p);
	ck_assert_msg(strstr((char *)meta.p, sp.column_key ? "v: column key (no key id stored)" : "v: footer key"),
		      "%s", (char *)meta.p);
	if (sp.plaintext_footer)
		ck_assert(strstr((char *)meta.p, "signature verified"));
	pq_buf_free(&meta);
	pq_file_free(f);

	/* the page headers are GCM in both algorithms: a flip there fails */
	size_t hdr = 4 + 20;
	file.p[hdr] ^= 1;
	ck_assert(pwrite(fd, file.p, file.len, 0) == (ssize_t)file.len);
	ck_assert(pq_file_open_fd(fd, "test/x.parquet", kr, &f, &err) == PQ_OK);
	pq_buf out = PQ_BUF_INIT;
	ck_assert_int_eq(pq_dump_column(f, PQ_ALL, 0, false, &out, &err), PQ_EAUTH);
	ck_assert_msg(strstr(err.msg, "data page header 0: GCM tag check failed"), "%s", err.msg);
	pq_buf_free(&out);
	pq_file_free(f);
	file.p[hdr] ^= 1;

	/* with another file name the supplied prefix is not found */
	ck_assert(pwrite(fd, file.p, file.len, 0) == (ssize_t)file.len);
	st = pq_file_open_fd(fd, "other/x.parquet", kr, &f, &err);
	if (sp.aad == 2) {
		ck_assert_int_eq(st, PQ_EKEY);
	} else {
		ck_assert(st == PQ_OK);
		pq_file_free(f);
	}
	pq_keyring_free(kr);
	close(fd);
	pq_buf_free(&file);
}
END_TEST

/* AES_GCM_CTR_V1 authenticates metadata but not page bodies: a flipped
 * byte in a body decrypts to a different value (the spec's trade-off),
 * and in AES_GCM_V1 the same flip is caught. */
START_TEST(test_ctr_pages_are_not_authenticated)
{
	for (int ctr = 0; ctr < 2; ctr++) {
		spec sp = {ctr, false, false, 16, 0};
		pq_key fk = make_key(1, 16), ck = make_key(2, 16);
		pq_buf file = build(&sp, &fk, &ck);
		/* page 0's body module starts after its header module */
		uint32_t hl = (uint32_t)file.p[4] | (uint32_t)file.p[5] << 8;
		size_t body = 4 + 4 + hl + 4 + 12; /* first ciphertext byte */
		file.p[body] ^= 0x01;
		int fd = to_fd(&file);
		pq_keyring *kr = keyring_for(&fk, &ck, false);
		pq_file *f;
		pq_error err;
		ck_assert_msg(pq_file_open_fd(fd, "x", kr, &f, &err) == PQ_OK, "%s", err.msg);
		pq_buf out = PQ_BUF_INIT;
		pq_status st = pq_dump_column(f, PQ_ALL, 0, false, &out, &err);
		if (ctr) {
			ck_assert(st == PQ_OK);
			ck_assert(out.p[0] == '1' && out.p[1] == '\n'); /* 0 became 1 */
		} else {
			ck_assert_int_eq(st, PQ_EAUTH);
			ck_assert_msg(strstr(err.msg, "data page 0: GCM tag check failed"), "%s", err.msg);
		}
		pq_buf_free(&out);
		pq_file_free(f);
		pq_keyring_free(kr);
		close(fd);
		pq_buf_free(&file);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("crypto_file");
	TCase *tc = tcase_create("files");
	tcase_add_loop_test(tc, test_combinations, 0, 72);
	tcase_add_test(tc, test_ctr_pages_are_not_authenticated);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
