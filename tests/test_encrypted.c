/* Encrypted files: every encrypted file of parquet-testing/data renders
 * data.csv, data.jsonl and each column's values.txt byte for byte as the
 * independent reader did (keys from testdata/keys.txt); without keys, or
 * with a wrong key, the right part fails with the right status; one byte
 * flipped in any kind of module fails exactly that part, never wrong bytes. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/pq_dump.h"
#include "pq_keyring.h"
#include "pq_metadata.h"
#include "pq_schema.h"
#include "test_files.h"

#define DATA_DIR TESTDATA_DIR "/parquet-testing/data"
#define EXP_DIR TESTDATA_DIR "/expected/data"
#define KEYS TESTDATA_DIR "/keys.txt"

static char **files;
static int nfiles;
static pq_keyring *keys;


static void compare(const char *file, const char *name, const pq_buf *got)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", EXP_DIR, file, name);
	size_t elen;
	char *exp = test_read_file(path, &elen);
	ck_assert_msg(exp, "%s: no expectation %s", file, name);
	bool same = elen == got->len && memcmp(exp, got->p, elen) == 0;
	size_t i = 0;
	while (i < elen && i < got->len && exp[i] == (char)got->p[i])
		i++;
	free(exp);
	ck_assert_msg(same, "%s %s: differs at byte %zu (%zu vs %zu bytes)", file, name, i, elen,
		      got->len);
}

/* Opens a file (a copy's bytes may be given in fd) under the name the
 * key_file's sections see. */
static pq_status open_named(int fd, const char *name, const pq_keyring *kr, pq_file **f,
			    pq_error *err)
{
	struct stat st;
	ck_assert(fstat(fd, &st) == 0);
	pq_error_clear(err);
	return pq_file_open_fd(fd, name, kr, f, err);
}

static int open_data(const char *file)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", DATA_DIR, file);
	int fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "cannot open %s", path);
	return fd;
}

/* Renders every output of the file; st of the first failure. */
static pq_status render_all(pq_file *f, pq_buf *csv, pq_buf *jsonl, pq_error *err)
{
	pq_status s = pq_dump_rows(f, PQ_ALL, PQ_ROWS_CSV, csv, err);
	if (s == PQ_OK)
		s = pq_dump_rows(f, PQ_ALL, PQ_ROWS_JSONL, jsonl, err);
	return s;
}

START_TEST(test_file)
{
	const char *file = files[_i];
	int fd = open_data(file);
	pq_error err;
	pq_file *f = NULL;
	pq_status s = open_named(fd, file, keys, &f, &err);
	ck_assert_msg(s == PQ_OK, "%s: open: %s", file, err.msg);
	pq_buf csv = PQ_BUF_INIT, jsonl = PQ_BUF_INIT;
	s = render_all(f, &csv, &jsonl, &err);
	ck_assert_msg(s == PQ_OK, "%s: rows: %s", file, err.msg);
	compare(file, "data.csv", &csv);
	compare(file, "data.jsonl", &jsonl);
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_leaf *leaf = pq_schema_leaf(pq_file_schema(f), c);
		char name[1100];
		snprintf(name, sizeof name, "columns/%s/values.txt", leaf->dir);
		csv.len = 0;
		s = pq_dump_column(f, PQ_ALL, c, false, &csv, &err);
		ck_assert_msg(s == PQ_OK, "%s: %s: %s", file, name, err.msg);
		compare(file, name, &csv);
	}
	/* Page index and bloom filters decrypt too. */
	for (uint32_t rg = 0; rg < pq_file_num_row_groups(f); rg++)
		for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
			csv.len = 0;
			ck_assert_msg(pq_text_column_index(f, rg, c, &csv, &err) == PQ_OK, "%s: %s", file, err.msg);
			ck_assert_msg(pq_text_offset_index(f, rg, c, &csv, &err) == PQ_OK, "%s: %s", file, err.msg);
			ck_assert_msg(pq_text_bloom_filter(f, rg, c, &csv, &err) == PQ_OK, "%s: %s", file, err.msg);
		}
	/* metadata.txt names the algorithm and key ids, never a key. */
	csv.len = 0;
	pq_text_file_metadata(f, &csv);
	pq_buf_putc(&csv, '\0');
	ck_assert_msg(strstr((char *)csv.p, "AES_GCM_V1"), "%s: metadata.txt: %s", file, (char *)csv.p);
	ck_assert(!strstr((char *)csv.p, "0123456789012345"));
	pq_buf_free(&csv);
	pq_buf_free(&jsonl);
	pq_file_free(f);
	close(fd);
}
END_TEST

START_TEST(test_kms_material_is_an_error)
{
	int fd = open_data("external_key_material_java.parquet.encrypted");
	pq_error err;
	pq_file *f = NULL;
	ck_assert_int_eq(open_named(fd, "external_key_material_java.parquet.encrypted", keys, &f, &err),
			 PQ_EKEY);
	ck_assert_msg(strstr(err.msg, "KMS"), "%s", err.msg);
	close(fd);
}
END_TEST

START_TEST(test_no_keys_encrypted_footer)
{
	int fd = open_data("uniform_encryption.parquet.encrypted");
	pq_error err;
	pq_file *f = NULL;
	ck_assert_int_eq(open_named(fd, "uniform_encryption.parquet.encrypted", NULL, &f, &err), PQ_EKEY);
	ck_assert_msg(strstr(err.msg, "'kf'"), "names the key id: %s", err.msg);
	/* `footer:` is for files that store no key id: this one stores kf */
	const char *t = "footer: \"0123456789012345\"\n";
	pq_keyring *kr;
	ck_assert(pq_keyring_parse(t, strlen(t), "k", &kr, &err) == PQ_OK);
	ck_assert_int_eq(open_named(fd, "uniform_encryption.parquet.encrypted", kr, &f, &err), PQ_EKEY);
	ck_assert_msg(strstr(err.msg, "key 'kf' is not in the key_file"), "%s", err.msg);
	pq_keyring_free(kr);
	close(fd);
}
END_TEST

/* A plaintext footer without keys: the plaintext columns read, the
 * encrypted ones fail with PQ_EKEY naming their key id. */
START_TEST(test_no_keys_plaintext_footer)
{
	const char *name = "encrypt_columns_plaintext_footer.parquet.encrypted";
	int fd = open_data(name);
	pq_error err;
	pq_file *f = NULL;
	ck_assert_msg(open_named(fd, name, NULL, &f, &err) == PQ_OK, "%s", err.msg);
	bool saw_plain = false, saw_kc1 = false;
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_leaf *leaf = pq_schema_leaf(pq_file_schema(f), c);
		pq_buf out = PQ_BUF_INIT;
		pq_status s = pq_dump_column(f, PQ_ALL, c, false, &out, &err);
		if (!strcmp(leaf->path, "double_field") || !strcmp(leaf->path, "float_field")) {
			ck_assert_int_eq(s, PQ_EKEY);
			if (strstr(err.msg, "'kc1'"))
				saw_kc1 = true;
		} else {
			ck_assert_msg(s == PQ_OK, "%s: %s", leaf->path, err.msg);
			char path[1200];
			snprintf(path, sizeof path, "columns/%s/values.txt", leaf->dir);
			compare(name, path, &out);
			saw_plain = true;
		}
		pq_buf_free(&out);
	}
	ck_assert(saw_plain && saw_kc1);
	pq_file_free(f);
	close(fd);
}
END_TEST

START_TEST(test_wrong_key)
{
	const char *text = "key kf: \"0123456789012346\"\nkey kc1: \"1234567890123450\"\n"
			   "key kc2: \"1234567890123451\"\n";
	pq_keyring *kr;
	pq_error err;
	ck_assert(pq_keyring_parse(text, strlen(text), "wrong", &kr, &err) == PQ_OK);
	int fd = open_data("encrypt_columns_and_footer.parquet.encrypted");
	pq_file *f = NULL;
	ck_assert_int_eq(open_named(fd, "x", kr, &f, &err), PQ_EAUTH);
	ck_assert_msg(strstr(err.msg, "footer") && strstr(err.msg, "wrong key"), "%s", err.msg);
	close(fd);
	/* a wrong column key: that column fails, the file opens */
	const char *t2 = "key kf: \"0123456789012345\"\nkey kc1: \"1234567890123459\"\n";
	pq_keyring_free(kr);
	ck_assert(pq_keyring_parse(t2, strlen(t2), "wrong", &kr, &err) == PQ_OK);
	fd = open_data("encrypt_columns_and_footer.parquet.encrypted");
	ck_assert_msg(open_named(fd, "x", kr, &f, &err) == PQ_OK, "%s", err.msg);
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_leaf *leaf = pq_schema_leaf(pq_file_schema(f), c);
		pq_buf out = PQ_BUF_INIT;
		pq_status s = pq_dump_column(f, PQ_ALL, c, false, &out, &err);
		if (!strcmp(leaf->path, "double_field"))
			ck_assert_msg(s == PQ_EAUTH && strstr(err.msg, "column metadata"), "%s", err.msg);
		else if (!strcmp(leaf->path, "float_field"))
			ck_assert_msg(s == PQ_EKEY && strstr(err.msg, "'kc2'"), "%s", err.msg);
		else
			ck_assert_msg(s == PQ_OK, "%s: %s", leaf->path, err.msg);
		pq_buf_free(&out);
	}
	pq_file_free(f);
	close(fd);
	pq_keyring_free(kr);
}
END_TEST

START_TEST(test_aad_prefix_needed)
{
	const char *name = "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted";
	int fd = open_data(name);
	pq_error err;
	pq_file *f = NULL;
	/* under another name the section does not apply: no prefix */
	ck_assert_int_eq(open_named(fd, "elsewhere/x.parquet", keys, &f, &err), PQ_EKEY);
	ck_assert_msg(strstr(err.msg, "aad_prefix"), "%s", err.msg);
	/* a wrong prefix fails the footer's tag */
	const char *t = "key kf: \"0123456789012345\"\naad_prefix: nottester\n";
	pq_keyring *kr;
	ck_assert(pq_keyring_parse(t, strlen(t), "k", &kr, &err) == PQ_OK);
	ck_assert_int_eq(open_named(fd, name, kr, &f, &err), PQ_EAUTH);
	ck_assert_msg(strstr(err.msg, "aad_prefix"), "%s", err.msg);
	pq_keyring_free(kr);
	close(fd);
}
END_TEST

/* ---- tampering: one flipped byte in each kind of module ---------------------- */

/* The module kinds of a file, found through its own (good) metadata. */
typedef struct target {
	const char *what;
	uint64_t off;
} target;

static int tmpfile_with_flip(const char *src, uint64_t off)
{
	size_t n;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", DATA_DIR, src);
	char *b = test_read_file(path, &n);
	ck_assert(b && off < n);
	b[off] ^= 0x01;
	char tmpl[] = "/tmp/pq-tamper-XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert(fd >= 0);
	unlink(tmpl);
	ck_assert(write(fd, b, n) == (ssize_t)n);
	free(b);
	return fd;
}

/* Reads every part; returns the status of the first part that fails and
 * checks that all other columns still render. */
static pq_status read_everything(pq_file *f, char *msg, size_t cap)
{
	pq_status first = PQ_OK;
	pq_error err;
	for (uint32_t rg = 0; rg < pq_file_num_row_groups(f); rg++)
		for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
			pq_buf out = PQ_BUF_INIT;
			pq_status s = pq_dump_column(f, rg, c, false, &out, &err);
			if (s == PQ_OK)
				s = pq_text_column_index(f, rg, c, &out, &err);
			if (s == PQ_OK)
				s = pq_text_offset_index(f, rg, c, &out, &err);
			if (s == PQ_OK)
				s = pq_text_bloom_filter(f, rg, c, &out, &err);
			if (s != PQ_OK && first == PQ_OK) {
				first = s;
				snprintf(msg, cap, "%s", err.msg);
			}
			pq_buf_free(&out);
		}
	return first;
}

static void tamper(const char *file, uint64_t off, pq_status want_open, pq_status want_read,
		   const char *want_msg)
{
	int fd = tmpfile_with_flip(file, off);
	pq_error err;
	pq_file *f = NULL;
	pq_status s = open_named(fd, file, keys, &f, &err);
	if (want_open != PQ_OK) {
		ck_assert_msg(s == want_open, "flip at %llu: open gave %d (%s)", (unsigned long long)off, s, err.msg);
		ck_assert_msg(strstr(err.msg, want_msg), "flip at %llu: %s", (unsigned long long)off, err.msg);
		close(fd);
		return;
	}
	ck_assert_msg(s == PQ_OK, "flip at %llu: open: %s", (unsigned long long)off, err.msg);
	char msg[PQ_ERROR_MSG_MAX] = "";
	s = read_everything(f, msg, sizeof msg);
	ck_assert_msg(s == want_read, "flip at %llu: read gave %d (%s)", (unsigned long long)off, s, msg);
	ck_assert_msg(strstr(msg, want_msg), "flip at %llu: '%s' lacks '%s'", (unsigned long long)off, msg, want_msg);
	pq_file_free(f);
	close(fd);
}

/* Every kind of module of column double_field, and the footer. */
static void tamper_file(const char *file, bool has_bloom, bool has_dict)
{
	int fd = open_data(file);
	pq_error err;
	pq_file *f = NULL;
	ck_assert_msg(open_named(fd, file, keys, &f, &err) == PQ_OK, "%s", err.msg);
	/* the column double_field (kc1): its metadata, header, page, indexes, bloom */
	uint32_t col = UINT32_MAX;
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++)
		if (!strcmp(pq_schema_leaf(pq_file_schema(f), c)->path, "double_field"))
			col = c;
	ck_assert(col != UINT32_MAX);
	const pq_column_chunk *cc = pq_file_chunk(f, 0, col);
	const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, col);
	pq_chunk_layout *l;
	ck_assert_msg(pq_chunk_layout_load(f, 0, col, &l, &err) == PQ_OK, "%s", err.msg);
	const pq_page_info *first = l->dict ? l->dict : &l->pages[0];
	bool l_dict = l->dict != NULL;
	const char *page_kind = l_dict ? "dictionary page" : "data page 0";
	uint64_t hdr = first->header_offset + 20, body = first->body_offset + 20;
	uint64_t ci = cc->has_column_index_offset ? (uint64_t)cc->column_index_offset + 20 : 0;
	uint64_t oi = cc->has_offset_index_offset ? (uint64_t)cc->offset_index_offset + 20 : 0;
	uint64_t bf = m->has_bloom_filter_offset ? (uint64_t)m->bloom_filter_offset + 10 : 0;
	/* the bitset module follows the header module */
	uint64_t bits = 0;
	if (bf) {
		uint8_t len[4];
		ck_assert(pread(fd, len, 4, (off_t)m->bloom_filter_offset) == 4);
		bits = (uint64_t)m->bloom_filter_offset + 4 +
		       ((uint64_t)len[0] | (uint64_t)len[1] << 8 | (uint64_t)len[2] << 16) + 20;
	}
	/* with a dictionary, data page 0 is another pair of modules */
	uint64_t dhdr = l_dict ? l->pages[0].header_offset + 20 : 0;
	uint64_t dbody = l_dict ? l->pages[0].body_offset + 20 : 0;
	pq_chunk_layout_free(l);
	pq_file_free(f);
	close(fd);
	char want[64];
	snprintf(want, sizeof want, "%s", l_dict ? "dictionary page header" : "data page header 0");
	tamper(file, hdr, PQ_OK, PQ_EAUTH, want);
	snprintf(want, sizeof want, "%s: GCM tag check failed", page_kind);
	tamper(file, body, PQ_OK, PQ_EAUTH, want);
	if (ci)
		tamper(file, ci, PQ_OK, PQ_EAUTH, "column index: GCM tag check failed");
	if (oi)
		tamper(file, oi, PQ_OK, PQ_EAUTH, "offset index: GCM tag check failed");
	if (bf)
		tamper(file, bf, PQ_OK, PQ_EAUTH, "bloom filter header: GCM tag check failed");
	if (bits)
		tamper(file, bits, PQ_OK, PQ_EAUTH, "bloom filter bitset: GCM tag check failed");
	if (dhdr) {
		tamper(file, dhdr, PQ_OK, PQ_EAUTH, "data page header 0: GCM tag check failed");
		tamper(file, dbody, PQ_OK, PQ_EAUTH, "data page 0: GCM tag check failed");
	}
	ck_assert_msg(ci && oi && (bits != 0) == has_bloom && (dhdr != 0) == has_dict,
		      "%s: the file has page indexes, bloom filters %d, a dictionary %d", file,
		      has_bloom, has_dict);
	/* the encrypted footer: the whole file fails */
	struct stat st;
	fd = open_data(file);
	ck_assert(fstat(fd, &st) == 0);
	close(fd);
	tamper(file, (uint64_t)st.st_size - 8 - 30, PQ_EAUTH, PQ_OK, "encrypted footer: GCM tag check failed");
}

START_TEST(test_tamper_modules)
{
	tamper_file("encrypt_columns_and_footer_bloom_filter.parquet.encrypted", true, false);
	tamper_file("encrypt_columns_and_footer.parquet.encrypted", false, true);
}
END_TEST

/* The column metadata module and the plaintext footer's signature. */
START_TEST(test_tamper_metadata)
{
	const char *file = "encrypt_columns_plaintext_footer.parquet.encrypted";
	int fd = open_data(file);
	pq_error err;
	pq_file *f = NULL;
	ck_assert_msg(open_named(fd, file, keys, &f, &err) == PQ_OK, "%s", err.msg);
	struct stat st;
	ck_assert(fstat(fd, &st) == 0);
	/* find the encrypted column metadata of double_field in the footer bytes */
	uint64_t ecm = 0;
	pq_bytes footer = pq_file_footer_bytes(f);
	uint64_t footer_off = (uint64_t)st.st_size - 8 - 28 - footer.n;
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_column_chunk *cc = pq_file_chunk(f, 0, c);
		if (cc->has_encrypted_column_metadata && !ecm)
			ecm = footer_off + (uint64_t)(cc->encrypted_column_metadata.p - footer.p) + 20;
	}
	pq_file_free(f);
	close(fd);
	ck_assert(ecm);
	/* the signed footer: any change fails the signature */
	tamper(file, ecm, PQ_EAUTH, PQ_OK, "plaintext footer: signature check failed");
	tamper(file, (uint64_t)st.st_size - 8 - 5, PQ_EAUTH, PQ_OK, "signature check failed");
	/* without the footer key the signature can't be checked, and the
	 * tampered column metadata is then caught by its own tag */
	const char *t = "key kc1: \"1234567890123450\"\nkey kc2: \"1234567890123451\"\n";
	pq_keyring *kr;
	ck_assert(pq_keyring_parse(t, strlen(t), "k", &kr, &err) == PQ_OK);
	fd = tmpfile_with_flip(file, ecm);
	ck_assert_msg(open_named(fd, file, kr, &f, &err) == PQ_OK, "%s", err.msg);
	char msg[PQ_ERROR_MSG_MAX] = "";
	ck_assert_int_eq(read_everything(f, msg, sizeof msg), PQ_EAUTH);
	ck_assert_msg(strstr(msg, "column metadata: GCM tag check failed"), "%s", msg);
	pq_file_free(f);
	close(fd);
	pq_keyring_free(kr);
}
END_TEST

/* Never wrong bytes: with one byte flipped anywhere in the file, every
 * encrypted column either fails or renders exactly its expected values
 * (plaintext columns carry no authentication, so they are not judged). */
static void flip_fuzz(const char *file, int flips)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", DATA_DIR, file);
	size_t n;
	char *orig = test_read_file(path, &n);
	ck_assert(orig);
	char *b = malloc(n);
	uint64_t x = 0x9E3779B97F4A7C15u;
	int failed_opens = 0, failed_cols = 0, good_cols = 0;
	for (int t = 0; t < flips; t++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t off = (size_t)(x % n);
		memcpy(b, orig, n);
		b[off] ^= (char)(1u << (x >> 61));
		char tmpl[] = "/tmp/pq-fuzz-XXXXXX";
		int fd = mkstemp(tmpl);
		ck_assert(fd >= 0);
		unlink(tmpl);
		ck_assert(write(fd, b, n) == (ssize_t)n);
		pq_error err;
		pq_file *f = NULL;
		if (open_named(fd, file, keys, &f, &err) != PQ_OK) {
			failed_opens++;
			close(fd);
			continue;
		}
		for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
			const pq_column_chunk *cc = pq_file_chunk(f, 0, c);
			if (!cc || !cc->has_crypto_metadata)
				continue;
			const pq_leaf *leaf = pq_schema_leaf(pq_file_schema(f), c);
			pq_buf out = PQ_BUF_INIT;
			if (pq_dump_column(f, PQ_ALL, c, false, &out, &err) != PQ_OK) {
				failed_cols++;
			} else {
				char name[1100], ep[4096];
				snprintf(name, sizeof name, "columns/%s/values.txt", leaf->dir);
				snprintf(ep, sizeof ep, "%s/%s/%s", EXP_DIR, file, name);
				size_t elen;
				char *exp = test_read_file(ep, &elen);
				ck_assert_msg(exp && elen == out.len && memcmp(exp, out.p, elen) == 0,
					      "%s: flip at %zu: %s rendered wrong values", file, off, leaf->path);
				free(exp);
				good_cols++;
			}
			pq_buf_free(&out);
		}
		pq_file_free(f);
		close(fd);
	}
	/* the flips did land in both kinds of places */
	ck_assert_msg(failed_opens > 0 && failed_cols > 0 && good_cols > 0, "%s: %d %d %d", file,
		      failed_opens, failed_cols, good_cols);
	free(b);
	free(orig);
}

START_TEST(test_flips_never_give_wrong_values)
{
	flip_fuzz("uniform_encryption.parquet.encrypted", 300);
	flip_fuzz("encrypt_columns_plaintext_footer.parquet.encrypted", 200);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(void)
{
	DIR *d = opendir(EXP_DIR);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strstr(e->d_name, "encrypt"))
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s/facts.json", EXP_DIR, e->d_name);
		size_t n;
		char *facts = test_read_file(p, &n);
		if (!facts)
			continue;
		bool skip = strstr(facts, "\"expect_error\"") != NULL;
		free(facts);
		if (skip)
			continue;
		files = realloc(files, sizeof *files * (size_t)(nfiles + 1));
		files[nfiles++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
}

int main(void)
{
	struct stat st;
	if (stat(EXP_DIR, &st) != 0 || stat(DATA_DIR, &st) != 0 || stat(KEYS, &st) != 0) {
		printf("SKIP: test data not found at %s (../shared/testdata beside the checkout)\n",
		       TESTDATA_DIR);
		return 77;
	}
	pq_error err;
	if (pq_keyring_load(KEYS, &keys, &err) != PQ_OK) {
		printf("keys.txt: %s\n", err.msg);
		return 1;
	}
	collect();
	Suite *s = suite_create("encrypted");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_file, 0, nfiles);
	tcase_add_test(tc, test_kms_material_is_an_error);
	tcase_add_test(tc, test_no_keys_encrypted_footer);
	tcase_add_test(tc, test_no_keys_plaintext_footer);
	tcase_add_test(tc, test_wrong_key);
	tcase_add_test(tc, test_aad_prefix_needed);
	tcase_add_test(tc, test_tamper_modules);
	tcase_add_test(tc, test_tamper_metadata);
	tcase_add_test(tc, test_flips_never_give_wrong_values);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	pq_keyring_free(keys);
	return failed ? 1 : 0;
}
