/* verify.txt over the test data: every readable file of parquet-testing's
 * data/, shredded_variant/ and geospatial/ ends in `OK`, except the files
 * broken on purpose, which must report their own finding (and only FAILED
 * for it). Encrypted files that need keys are left to test_encrypted.
 * And two files the shredding table refuses, made from one of them. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/pq_metadata_codec.h"
#include "pq_arena.h"
#include "pq_file.h"
#include "read/pq_dump.h"

#define PT_DIR TESTDATA_DIR "/parquet-testing"

static const char *const folders[] = {"data", "shredded_variant", "geospatial"};

/* Files whose defect is the point, and a phrase of the finding each must
 * report. */
static const struct {
	const char *file, *finding;
} broken[] = {
	{"data/datapage_v1-corrupt-checksum.parquet", "CRC mismatch"},
	{"data/rle-dict-uncompressed-corrupt-checksum.parquet", "CRC mismatch"},
	{"data/repeated_no_annotation.parquet", "footer num_rows 0"},
	/* cases.json: "Invalid variant, conflicting value and typed_value" */
	{"shredded_variant/case-040.parquet", "both value and typed_value"},
};

static char **files;
static int nfiles;

static void collect(void)
{
	for (size_t k = 0; k < sizeof folders / sizeof folders[0]; k++) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/%s", PT_DIR, folders[k]);
		DIR *d = opendir(dir);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (n < 9 || strcmp(e->d_name + n - 8, ".parquet") != 0)
				continue;
			files = realloc(files, sizeof *files * (size_t)(nfiles + 1));
			files[nfiles] = malloc(strlen(folders[k]) + n + 2);
			sprintf(files[nfiles++], "%s/%s", folders[k], e->d_name);
		}
		closedir(d);
	}
}

START_TEST(test_verify_file)
{
	const char *file = files[_i];
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", PT_DIR, file);
	int fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "cannot open %s", path);
	pq_error err;
	pq_error_clear(&err);
	pq_file *f = NULL;
	if (pq_file_open_fd(fd, file, NULL, &f, &err) != PQ_OK) {
		close(fd); /* needs a key, or not a file meant to open: not ours */
		return;
	}
	pq_buf out = PQ_BUF_INIT;
	ck_assert_msg(pq_text_verify(f, &out, &err) == PQ_OK, "%s: %s", file, err.msg);
	pq_buf_putc(&out, '\0');
	const char *text = (const char *)out.p;
	const char *finding = NULL;
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
		if (strcmp(broken[i].file, file) == 0)
			finding = broken[i].finding;
	size_t len = strlen(text);
	if (!finding) {
		ck_assert_msg(len >= 3 && strcmp(text + len - 3, "OK\n") == 0, "%s:\n%s", file, text);
	} else {
		ck_assert_msg(strstr(text, finding) && strstr(text, "FAILED"), "%s:\n%s", file, text);
	}
	pq_buf_free(&out);
	pq_file_free(f);
	close(fd);
}
END_TEST

/* shredded_variant/case-010.parquet (`var` shredded as a plain INT32, one
 * row: typed_value 12345, value null) with its typed_value retyped in the
 * footer, the pages unchanged: INTEGER(32,false), or FIXED_LEN_BYTE_ARRAY(4)
 * (the same 4 bytes a value, PLAIN). VariantShredding.md allows neither:
 * the row is the hex of its `value` ("0x", it is null), verify.txt reports
 * it (issue 31: the row was null and verify.txt said OK). */
START_TEST(test_variant_retyped)
{
	char src[4096];
	snprintf(src, sizeof src, "%s/shredded_variant/case-010.parquet", PT_DIR);
	FILE *in = fopen(src, "rb");
	ck_assert_ptr_nonnull(in);
	static uint8_t b[1 << 16];
	size_t n = fread(b, 1, sizeof b, in);
	fclose(in);
	ck_assert(n > 12 && n < sizeof b && !memcmp(b + n - 4, "PAR1", 4));
	uint32_t flen = (uint32_t)b[n - 8] | (uint32_t)b[n - 7] << 8 | (uint32_t)b[n - 6] << 16 |
			(uint32_t)b[n - 5] << 24;
	ck_assert_uint_lt(flen, n - 8);
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err;
	pq_error_clear(&err);
	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	size_t used;
	ck_assert_int_eq(pq_thrift_decode(PQ_S_FILE_META_DATA, b + n - 8 - flen, flen, &md, &used,
					  &a, &err), PQ_OK);
	pq_schema_element *t = NULL;
	for (uint32_t i = 0; i < md.schema.n; i++)
		if (md.schema.v[i].has_type && md.schema.v[i].name.n == 11 &&
		    !memcmp(md.schema.v[i].name.p, "typed_value", 11))
			t = &md.schema.v[i];
	ck_assert(t && t->type == 1 /* INT32 */ && !t->has_logicalType);
	if (_i == 0) {
		t->has_logicalType = t->logicalType.has_INTEGER = true;
		t->logicalType.INTEGER.bitWidth = 32;
		t->logicalType.INTEGER.isSigned = false;
	} else {
		t->type = 7; /* FIXED_LEN_BYTE_ARRAY */
		t->has_type_length = true;
		t->type_length = 4;
		t->has_converted_type = false;
	}
	pq_buf foot = PQ_BUF_INIT;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &foot, &err), PQ_OK);
	char path[] = "/tmp/pfs-variant-retyped.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	uint8_t tail[8] = {(uint8_t)foot.len, (uint8_t)(foot.len >> 8), (uint8_t)(foot.len >> 16),
			   (uint8_t)(foot.len >> 24), 'P', 'A', 'R', '1'};
	ck_assert(write(fd, b, n - 8 - flen) == (ssize_t)(n - 8 - flen) &&
		  write(fd, foot.p, foot.len) == (ssize_t)foot.len && write(fd, tail, 8) == 8);
	pq_file *f = NULL;
	ck_assert_int_eq(pq_file_open_fd(fd, "retyped.parquet", NULL, &f, &err), PQ_OK);
	pq_buf out = PQ_BUF_INIT;
	ck_assert_int_eq(pq_dump_rows(f, PQ_ALL, PQ_ROWS_JSONL, &out, &err), PQ_OK);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "{\"id\":1,\"var\":\"0x\"}\n");
	out.len = 0;
	ck_assert_int_eq(pq_text_verify(f, &out, &err), PQ_OK);
	pq_buf_putc(&out, '\0');
	const char *text = (const char *)out.p;
	ck_assert_msg(strstr(text, "a typed_value of a type the shredding table does not allow") &&
			      strstr(text, "FAILED"),
		      "%s", text);
	pq_buf_free(&out);
	pq_buf_free(&foot);
	pq_file_free(f);
	close(fd);
	pq_arena_free(&a);
}
END_TEST

int main(void)
{
	struct stat st;
	if (stat(PT_DIR "/data", &st) != 0) {
		printf("SKIP: test data not found at %s\n", PT_DIR);
		return 77;
	}
	collect();
	Suite *s = suite_create("verify_files");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_verify_file, 0, nfiles);
	tcase_add_loop_test(tc, test_variant_retyped, 0, 2);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	return failed ? 1 : 0;
}
