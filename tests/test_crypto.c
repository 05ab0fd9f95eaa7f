/* Modular encryption pieces: AES-GCM and AES-CTR modules (layout, round
 * trips, known answers, tag failures), module AADs as Encryption.md
 * defines them, and the key_file parser and its lookups. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "pq_crypto.h"
#include "pq_keyring.h"

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static pq_key key_of(const char *hex)
{
	pq_key k = {{0}, 0};
	k.len = (uint8_t)unhex(hex, k.b);
	return k;
}

/* ---- GCM ---------------------------------------------------------------- */

/* Test case 4 of McGrew and Viega, "The Galois/Counter Mode of Operation"
 * (the GCM specification): AES-128, 96-bit IV, 20 bytes of AAD. */
static const char *gcm4_key = "feffe9928665731c6d6a8f9467308308";
static const char *gcm4_iv = "cafebabefacedbaddecaf888";
static const char *gcm4_aad = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char *gcm4_p = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
			    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char *gcm4_c = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
			    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091";
static const char *gcm4_t = "5bc94fbc3221a5db94fae95ae7121a47";

START_TEST(test_gcm_known_answer_module_layout)
{
	pq_key k = key_of(gcm4_key);
	uint8_t iv[12], aad[20], p[60], c[60], t[16];
	unhex(gcm4_iv, iv);
	unhex(gcm4_aad, aad);
	unhex(gcm4_p, p);
	unhex(gcm4_c, c);
	unhex(gcm4_t, t);
	uint8_t m[60 + PQ_CRYPTO_GCM_OVERHEAD];
	size_t n;
	pq_error err;
	ck_assert(pq_module_encrypt(PQ_CIPHER_GCM, &k, aad, 20, iv, p, 60, m, &n, &err) == PQ_OK);
	/* length (LE, counting what follows) | nonce | ciphertext | tag */
	ck_assert_uint_eq(n, 60 + 28 + 4);
	ck_assert(m[0] == 88 && m[1] == 0 && m[2] == 0 && m[3] == 0);
	ck_assert(memcmp(m + 4, iv, 12) == 0);
	ck_assert(memcmp(m + 16, c, 60) == 0);
	ck_assert(memcmp(m + 76, t, 16) == 0);
	uint8_t out[sizeof m];
	size_t on;
	ck_assert(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad, 20, m, n, out, &on, &err) == PQ_OK);
	ck_assert_uint_eq(on, 60);
	ck_assert(memcmp(out, p, 60) == 0);
	/* the footer signature is the same tag without the ciphertext */
	uint8_t tag[16];
	ck_assert(pq_gcm_tag(&k, iv, aad, 20, p, 60, tag, &err) == PQ_OK);
	ck_assert(memcmp(tag, t, 16) == 0);
}
END_TEST

START_TEST(test_gcm_tag_failures)
{
	pq_key k = key_of(gcm4_key);
	uint8_t p[100], m[100 + PQ_CRYPTO_GCM_OVERHEAD], out[sizeof m];
	for (int i = 0; i < 100; i++)
		p[i] = (uint8_t)i;
	const uint8_t aad[] = "file-aad\x02\x00\x00\x01\x00\x03\x00";
	size_t n, on;
	pq_error err;
	ck_assert(pq_module_encrypt(PQ_CIPHER_GCM, &k, aad, sizeof aad - 1, NULL, p, 100, m, &n, &err) == PQ_OK);
	/* every byte after the length authenticates: nonce, ciphertext, tag */
	for (size_t i = 4; i < n; i += 7) {
		m[i] ^= 0x80;
		memset(out, 0xAA, sizeof out);
		ck_assert_int_eq(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad, sizeof aad - 1, m, n, out, &on, &err),
				 PQ_EAUTH);
		ck_assert_str_eq(err.msg, "GCM tag check failed (tampered data or wrong key)");
		/* no unauthenticated plaintext is left behind */
		for (int j = 0; j < 100; j++)
			ck_assert_msg(out[j] == 0 || out[j] == 0xAA, "byte %d left behind", j);
		m[i] ^= 0x80;
	}
	/* another module's AAD (page 4 instead of 3) and a wrong key */
	uint8_t aad2[sizeof aad];
	memcpy(aad2, aad, sizeof aad);
	aad2[sizeof aad - 3] = 4;
	ck_assert_int_eq(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad2, sizeof aad - 1, m, n, out, &on, &err), PQ_EAUTH);
	pq_key k2 = k;
	k2.b[15] ^= 1;
	ck_assert_int_eq(pq_module_decrypt(PQ_CIPHER_GCM, &k2, aad, sizeof aad - 1, m, n, out, &on, &err), PQ_EAUTH);
	ck_assert(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad, sizeof aad - 1, m, n, out, &on, &err) == PQ_OK);
	/* a length field that disagrees with the bytes, and truncated modules */
	m[0] ^= 1;
	ck_assert_int_eq(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad, sizeof aad - 1, m, n, out, &on, &err), PQ_ECORRUPT);
	m[0] ^= 1;
	ck_assert_int_eq(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad, sizeof aad - 1, m, 20, out, &on, &err), PQ_ECORRUPT);
	ck_assert_int_eq(pq_module_decrypt(PQ_CIPHER_GCM, &k, aad, sizeof aad - 1, m, 3, out, &on, &err), PQ_ECORRUPT);
	const uint8_t tiny[4] = {27, 0, 0, 0};
	uint64_t size;
	ck_assert_int_eq(pq_module_stored_size(tiny, 4, PQ_CIPHER_GCM, 1000, &size, &err), PQ_ECORRUPT);
	const uint8_t big[4] = {0xff, 0xff, 0xff, 0x7f};
	ck_assert_int_eq(pq_module_stored_size(big, 4, PQ_CIPHER_GCM, 1000, &size, &err), PQ_ELIMIT);
}
END_TEST

static const char *keys_hex[] = {
	"000102030405060708090a0b0c0d0e0f",
	"000102030405060708090a0b0c0d0e0f1011121314151617",
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
};

START_TEST(test_round_trips_all_key_sizes)
{
	pq_key k = key_of(keys_hex[_i]);
	size_t sizes[] = {0, 1, 15, 16, 17, 4096, 100000};
	pq_error err;
	for (int ci = 0; ci < 2; ci++) {
		pq_cipher c = ci ? PQ_CIPHER_CTR : PQ_CIPHER_GCM;
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
			size_t n = sizes[s];
			uint8_t *p = malloc(n + 1), *m = malloc(n + 64), *o = malloc(n + 64);
			for (size_t i = 0; i < n; i++)
				p[i] = (uint8_t)(i * 7 + 3);
			size_t mn, on;
			ck_assert(pq_module_encrypt(c, &k, (const uint8_t *)"a", 1, NULL, p, n, m, &mn, &err) == PQ_OK);
			ck_assert_uint_eq(mn, n + (c == PQ_CIPHER_GCM ? 32u : 16u));
			ck_assert(pq_module_decrypt(c, &k, (const uint8_t *)"a", 1, m, mn, o, &on, &err) == PQ_OK);
			ck_assert_uint_eq(on, n);
			ck_assert(n == 0 || memcmp(o, p, n) == 0);
			free(p);
			free(m);
			free(o);
		}
	}
	/* two encryptions of the same bytes use fresh nonces */
	uint8_t m1[64], m2[64];
	size_t n1, n2;
	ck_assert(pq_module_encrypt(PQ_CIPHER_GCM, &k, NULL, 0, NULL, (const uint8_t *)"same", 4, m1, &n1, &err) == PQ_OK);
	ck_assert(pq_module_encrypt(PQ_CIPHER_GCM, &k, NULL, 0, NULL, (const uint8_t *)"same", 4, m2, &n2, &err) == PQ_OK);
	ck_assert(memcmp(m1 + 4, m2 + 4, 12) != 0);
}
END_TEST

START_TEST(test_bad_key_length)
{
	pq_key k = key_of("000102030405060708090a0b0c0d0e");
	uint8_t m[64];
	size_t n;
	pq_error err;
	ck_assert_int_eq(pq_module_encrypt(PQ_CIPHER_GCM, &k, NULL, 0, NULL, (const uint8_t *)"x", 1, m, &n, &err),
			 PQ_EINVAL);
}
END_TEST

/* CTR: the IV is the 12-byte nonce followed by a 32-bit counter starting
 * at 1 (Encryption.md 4.2.2). Checked against AES-ECB of those counter
 * blocks, computed here independently. */
START_TEST(test_ctr_counter_starts_at_one)
{
	pq_key k = key_of(keys_hex[0]);
	uint8_t nonce[12];
	for (int i = 0; i < 12; i++)
		nonce[i] = (uint8_t)(0xA0 + i);
	uint8_t p[40] = {0};
	uint8_t m[40 + PQ_CRYPTO_CTR_OVERHEAD];
	size_t n;
	pq_error err;
	ck_assert(pq_module_encrypt(PQ_CIPHER_CTR, &k, NULL, 0, nonce, p, 40, m, &n, &err) == PQ_OK);
	ck_assert_uint_eq(n, 56);
	ck_assert(m[0] == 52 && memcmp(m + 4, nonce, 12) == 0);
	uint8_t blocks[48], ks[48];
	for (int b = 0; b < 3; b++) {
		memcpy(blocks + 16 * b, nonce, 12);
		blocks[16 * b + 12] = 0;
		blocks[16 * b + 13] = 0;
		blocks[16 * b + 14] = 0;
		blocks[16 * b + 15] = (uint8_t)(b + 1);
	}
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int got;
	ck_assert(EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), NULL, k.b, NULL) == 1);
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	ck_assert(EVP_EncryptUpdate(ctx, ks, &got, blocks, 48) == 1 && got == 48);
	EVP_CIPHER_CTX_free(ctx);
	/* plaintext zero: the ciphertext is the key stream */
	ck_assert(memcmp(m + 16, ks, 40) == 0);
}
END_TEST

/* ---- AADs ------------------------------------------------------------------ */

START_TEST(test_aad_suffix_bytes)
{
	const uint8_t fa[] = {'p', 'r', 'e', 0x01, 0x02};
	uint8_t out[32];
	size_t n;
	pq_error err;
	/* footer: file AAD + type 0 only */
	ck_assert(pq_aad_build(fa, 5, PQ_MOD_FOOTER, 9, 9, 9, out, &n, &err) == PQ_OK);
	ck_assert_uint_eq(n, 6);
	ck_assert(memcmp(out, fa, 5) == 0 && out[5] == 0);
	/* data page: type 2, row group, column, page as int16 LE */
	ck_assert(pq_aad_build(fa, 5, PQ_MOD_DATA_PAGE, 1, 0x102, 0x7fff, out, &n, &err) == PQ_OK);
	const uint8_t dp[] = {2, 1, 0, 0x02, 0x01, 0xff, 0x7f};
	ck_assert_uint_eq(n, 12);
	ck_assert(memcmp(out + 5, dp, 7) == 0);
	/* data page header: type 4 with the page ordinal */
	ck_assert(pq_aad_build(fa, 5, PQ_MOD_DATA_PAGE_HEADER, 0, 3, 2, out, &n, &err) == PQ_OK);
	const uint8_t dh[] = {4, 0, 0, 3, 0, 2, 0};
	ck_assert(n == 12 && memcmp(out + 5, dh, 7) == 0);
	/* the others: no page ordinal */
	pq_module_type no_page[] = {PQ_MOD_COLUMN_META, PQ_MOD_DICT_PAGE, PQ_MOD_DICT_PAGE_HEADER,
				    PQ_MOD_COLUMN_INDEX, PQ_MOD_OFFSET_INDEX, PQ_MOD_BLOOM_HEADER,
				    PQ_MOD_BLOOM_BITSET};
	const uint8_t types[] = {1, 3, 5, 6, 7, 8, 9};
	for (int i = 0; i < 7; i++) {
		ck_assert(pq_aad_build(fa, 5, no_page[i], 2, 1, 77, out, &n, &err) == PQ_OK);
		const uint8_t want[] = {types[i], 2, 0, 1, 0};
		ck_assert_uint_eq(n, 10);
		ck_assert(memcmp(out + 5, want, 5) == 0);
	}
	/* no file AAD at all */
	ck_assert(pq_aad_build(NULL, 0, PQ_MOD_OFFSET_INDEX, 0, 0, 0, out, &n, &err) == PQ_OK);
	ck_assert(n == 5 && out[0] == 7);
	/* ordinals beyond int16 cannot be expressed */
	ck_assert_int_eq(pq_aad_build(fa, 5, PQ_MOD_DATA_PAGE, 0, 0, 32768, out, &n, &err), PQ_ELIMIT);
	ck_assert_int_eq(pq_aad_build(fa, 5, PQ_MOD_COLUMN_INDEX, 40000, 0, 0, out, &n, &err), PQ_ELIMIT);
	ck_assert_int_eq(pq_aad_build(fa, 5, PQ_MOD_COLUMN_INDEX, 0, 32768, 0, out, &n, &err), PQ_ELIMIT);
	/* the page ordinal of non-page modules is ignored, even when large */
	ck_assert(pq_aad_build(fa, 5, PQ_MOD_DICT_PAGE, 0, 0, 99999, out, &n, &err) == PQ_OK);
}
END_TEST

/* ---- key_file ------------------------------------------------------------- */

static pq_keyring *parse_ok(const char *text)
{
	pq_keyring *kr = NULL;
	pq_error err;
	pq_error_clear(&err);
	ck_assert_msg(pq_keyring_parse(text, strlen(text), "keys", &kr, &err) == PQ_OK, "%s", err.msg);
	return kr;
}

static void parse_bad(const char *text, const char *want)
{
	pq_keyring *kr = NULL;
	pq_error err;
	pq_error_clear(&err);
	ck_assert_int_eq(pq_keyring_parse(text, strlen(text), "keys", &kr, &err), PQ_EINVAL);
	ck_assert_msg(strstr(err.msg, want), "'%s' lacks '%s'", err.msg, want);
	ck_assert(kr == NULL);
}

/* The contract's example, verbatim. */
static const char *contract =
	"# comments and blank lines allowed; a key is hex (16, 24 or 32 bytes)\n"
	"# or a quoted string of that many bytes\n"
	"key kf:  \"0123456789012345\"        # matched against the key_metadata a file stores\n"
	"key kc1: 31323334353637383930313233343530\n"
	"footer: 000102030405060708090a0b0c0d0e0f   # for files that store no key_metadata\n"
	"column double_field: \"1234567890123450\"\n"
	"\n"
	"[data/aes256/*]                    # a section: lines below apply to files whose\n"
	"key kf: \"01234567890123456789012345678901\"  # path under SOURCE matches the glob\n"
	"aad_prefix: tester                 # for files that ask for a supplied prefix\n";

START_TEST(test_keyring_contract_example)
{
	pq_keyring *kr = parse_ok(contract);
	pq_key k;
	ck_assert(pq_keyring_key(kr, "a.parquet", (const uint8_t *)"kf", 2, &k));
	ck_assert(k.len == 16 && memcmp(k.b, "0123456789012345", 16) == 0);
	ck_assert(pq_keyring_key(kr, "a.parquet", (const uint8_t *)"kc1", 3, &k));
	ck_assert(k.len == 16 && memcmp(k.b, "1234567890123450", 16) == 0);
	ck_assert(!pq_keyring_key(kr, "a.parquet", (const uint8_t *)"kc2", 3, &k));
	ck_assert(!pq_keyring_key(kr, "a.parquet", (const uint8_t *)"k", 1, &k));
	ck_assert(pq_keyring_footer_key(kr, "a.parquet", &k));
	ck_assert(k.len == 16 && k.b[0] == 0 && k.b[15] == 15);
	ck_assert(pq_keyring_column_key(kr, "x/y.parquet", "double_field", 12, &k));
	ck_assert(memcmp(k.b, "1234567890123450", 16) == 0);
	ck_assert(!pq_keyring_column_key(kr, "x/y.parquet", "double", 6, &k));
	/* the section: a later line wins for matching files only */
	ck_assert(pq_keyring_key(kr, "data/aes256/f.parquet", (const uint8_t *)"kf", 2, &k));
	ck_assert(k.len == 32 && memcmp(k.b, "01234567890123456789012345678901", 32) == 0);
	ck_assert(pq_keyring_key(kr, "data/aes256x/f.parquet", (const uint8_t *)"kf", 2, &k));
	ck_assert(k.len == 16);
	ck_assert(pq_keyring_key(kr, "data/aes256/sub/f.parquet", (const uint8_t *)"kf", 2, &k));
	ck_assert(k.len == 16); /* '*' does not match '/' */
	const uint8_t *p;
	size_t n;
	ck_assert(pq_keyring_aad_prefix(kr, "data/aes256/f.parquet", &p, &n));
	ck_assert(n == 6 && memcmp(p, "tester", 6) == 0);
	ck_assert(!pq_keyring_aad_prefix(kr, "data/f.parquet", &p, &n));
	pq_keyring_free(kr);
}
END_TEST

START_TEST(test_keyring_sections_in_order)
{
	pq_keyring *kr = parse_ok("key a: \"aaaaaaaaaaaaaaaa\"\n"
				  "[*.parquet]\nkey a: \"bbbbbbbbbbbbbbbb\"\n"
				  "[x?.parquet]\nkey a: \"cccccccccccccccccccccccc\"\n"
				  "aad_prefix: \"quoted # not a comment \\\" \\\\\"\n"
				  "[*]\naad_prefix: later\n"
				  "[nomatch]\nkey a: \"dddddddddddddddd\"\n");
	pq_key k;
	ck_assert(pq_keyring_key(kr, "x1.parquet", (const uint8_t *)"a", 1, &k));
	ck_assert(k.len == 24 && k.b[0] == 'c');
	ck_assert(pq_keyring_key(kr, "x12.parquet", (const uint8_t *)"a", 1, &k));
	ck_assert(k.len == 16 && k.b[0] == 'b');
	ck_assert(pq_keyring_key(kr, "d/x1.parquet", (const uint8_t *)"a", 1, &k));
	ck_assert(k.len == 16 && k.b[0] == 'a');
	const uint8_t *p;
	size_t n;
	/* "[*]" comes later and also matches: it wins */
	ck_assert(pq_keyring_aad_prefix(kr, "x1.parquet", &p, &n));
	ck_assert(n == 5 && memcmp(p, "later", 5) == 0);
	pq_keyring_free(kr);
	kr = parse_ok("[x?.parquet]\naad_prefix: \"quoted # not a comment \\\" \\\\\"\n");
	ck_assert(pq_keyring_aad_prefix(kr, "x1.parquet", &p, &n));
	ck_assert(n == 26 && memcmp(p, "quoted # not a comment \" \\", 26) == 0);
	pq_keyring_free(kr);
}
END_TEST

START_TEST(test_keyring_errors_name_lines_not_keys)
{
	parse_bad("\n\nkey kf: 0123\n", "keys, line 3: key kf: the key has 4 hex digits");
	parse_bad("key kf: \"short\"\n", "line 1: key kf: the quoted key has 5 bytes");
	parse_bad("key kf: \"0123456789012345\n", "no closing quote");
	parse_bad("footer: 0123456789abcdefXX23456789abcdef\n", "character 17 is not hex");
	parse_bad("key : \"0123456789012345\"\n", "a name is needed");
	parse_bad("key kf \"0123456789012345\"\n", "expected a colon");
	parse_bad("key kf: \"0123456789012345\" extra\n", "unexpected text after the key");
	parse_bad("# ok\nsecretkey: 00\n", "line 2: expected 'key ID: KEY'");
	parse_bad("[abc\n", "the ] is missing");
	parse_bad("[]\n", "needs a glob");
	parse_bad("aad_prefix:   # nothing\n", "aad_prefix: the prefix is empty");
	parse_bad("key kf: \"01234567890123\\x\"\n", "only \\\" and \\\\ are escapes");
	/* a key in a bad line is never echoed */
	pq_keyring *kr;
	pq_error err;
	const char *t = "key kf: 00112233445566778899aabbccddeeff00\n";
	ck_assert_int_eq(pq_keyring_parse(t, strlen(t), "k", &kr, &err), PQ_EINVAL);
	ck_assert(!strstr(err.msg, "0011223344"));
	t = "00112233445566778899aabbccddeeff\n";
	ck_assert_int_eq(pq_keyring_parse(t, strlen(t), "k", &kr, &err), PQ_EINVAL);
	ck_assert(!strstr(err.msg, "0011223344"));
	/* CRLF line ends and an empty file are fine */
	kr = parse_ok("key a: 000102030405060708090a0b0c0d0e0f\r\n\r\n");
	pq_key k;
	ck_assert(pq_keyring_key(kr, "f", (const uint8_t *)"a", 1, &k) && k.len == 16);
	pq_keyring_free(kr);
	kr = parse_ok("");
	ck_assert(!pq_keyring_footer_key(kr, "f", &k));
	pq_keyring_free(kr);
}
END_TEST

/* Whether a key_file section [glob] applies to path: its key is found. */
static bool section_applies(const char *glob, const char *path)
{
	char text[256];
	snprintf(text, sizeof text, "[%s]\nkey a: 000102030405060708090a0b0c0d0e0f\n", glob);
	pq_keyring *kr = parse_ok(text);
	pq_key k;
	bool found = pq_keyring_key(kr, path, (const uint8_t *)"a", 1, &k);
	pq_keyring_free(kr);
	return found;
}

START_TEST(test_glob)
{
	ck_assert(section_applies("*", "a.parquet"));
	ck_assert(!section_applies("*", "d/a.parquet"));
	ck_assert(section_applies("*/*", "d/a.parquet"));
	ck_assert(section_applies("d/*.parquet", "d/a.parquet"));
	ck_assert(!section_applies("d/*.parquet", "d/e/a.parquet"));
	ck_assert(section_applies("d/?.parquet", "d/a.parquet"));
	ck_assert(!section_applies("d?a.parquet", "d/a.parquet"));
	ck_assert(section_applies("a*b*c", "axxbyyc"));
	ck_assert(section_applies("a*b*c", "abbbc"));
	ck_assert(!section_applies("a*b*c", "abx"));
	ck_assert(section_applies("exact.parquet", "exact.parquet"));
	ck_assert(!section_applies("exact.parquet", "exact.parquetx"));
	ck_assert(!section_applies("exact.parquet", "d/exact.parquet"));
	ck_assert(section_applies("**", ""));
	ck_assert(!section_applies("*x/y", "ab/cx/y"));
	ck_assert(section_applies("*x/y", "abx/y"));
	ck_assert(section_applies("*/*/*", "a/b/c.parquet"));
	ck_assert(!section_applies("*/*", "a/b/c.parquet"));
	ck_assert(section_applies("data/aes256/*", "data/aes256/x.parquet.encrypted"));
	ck_assert(!section_applies("data/aes256/*", "data/aes256"));
	ck_assert(section_applies(".*", ".hidden.parquet")); /* no FNM_PERIOD */
	ck_assert(section_applies("*", ".hidden.parquet"));
	ck_assert(section_applies("d/*", "d/.h"));
	/* A section line ends at its first ']': a glob never holds a whole
	 * bracket expression, and a '[' in it is an ordinary byte. */
	ck_assert(section_applies("d[x/*", "d[x/a.parquet"));
	ck_assert(!section_applies("d[x/*", "dx/a.parquet"));
	ck_assert(section_applies("[", "["));
	ck_assert(section_applies("*[a", "x[a"));
	ck_assert(!section_applies("*[a", "x/[a"));
	/* '\\' is an ordinary byte too, not an escape. */
	ck_assert(section_applies("a\\b*", "a\\bc"));
	ck_assert(section_applies("a\\*", "a\\zz"));
	ck_assert(!section_applies("a\\*", "a*"));
	ck_assert(!section_applies("a\\?", "a?"));
	/* No path (SOURCE is one file and the name is unknown): "" */
	pq_keyring *kr = parse_ok("[*]\nkey a: 000102030405060708090a0b0c0d0e0f\n");
	pq_key k;
	ck_assert(pq_keyring_key(kr, NULL, (const uint8_t *)"a", 1, &k));
	pq_keyring_free(kr);
	kr = parse_ok("[?]\nkey a: 000102030405060708090a0b0c0d0e0f\n");
	ck_assert(!pq_keyring_key(kr, NULL, (const uint8_t *)"a", 1, &k));
	pq_keyring_free(kr);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("crypto");
	TCase *tc = tcase_create("crypto");
	tcase_add_test(tc, test_gcm_known_answer_module_layout);
	tcase_add_test(tc, test_gcm_tag_failures);
	tcase_add_loop_test(tc, test_round_trips_all_key_sizes, 0, 3);
	tcase_add_test(tc, test_bad_key_length);
	tcase_add_test(tc, test_ctr_counter_starts_at_one);
	tcase_add_test(tc, test_aad_suffix_bytes);
	tcase_add_test(tc, test_keyring_contract_example);
	tcase_add_test(tc, test_keyring_sections_in_order);
	tcase_add_test(tc, test_keyring_errors_name_lines_not_keys);
	tcase_add_test(tc, test_glob);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
