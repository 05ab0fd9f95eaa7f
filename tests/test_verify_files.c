/* verify.txt over the test data: every readable file of parquet-testing's
 * data/, shredded_variant/ and geospatial/ ends in `OK`, except the files
 * broken on purpose, which must report their own finding (and only FAILED
 * for it). Encrypted files that need keys are left to test_encrypted. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pq_file.h"

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
	pq_text_verify(f, &out);
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
