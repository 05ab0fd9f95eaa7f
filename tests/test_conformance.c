/* Conformance: every file under parquet-testing/{data,shredded_variant,
 * geospatial} with an expectation under testdata/expected renders data.csv,
 * data.jsonl and each column's values.txt byte for byte as the independent
 * reader did (whichever of them the expectation holds). */
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
#include "pq_schema.h"
#include "test_files.h"

#define DATA_DIR TESTDATA_DIR "/parquet-testing"
#define EXP_DIR TESTDATA_DIR "/expected"
/* The folders checked; files are named "folder/file" below. */
static const char *const folders[] = {"data", "shredded_variant", "geospatial"};

static char **files;
static int nfiles;


/* The expected text of an output, following facts.json's same_as. */
static char *expected(const char *file, const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", EXP_DIR, file, name);
	char *t = test_read_file(path, len);
	if (t)
		return t;
	snprintf(path, sizeof path, "%s/%s/facts.json", EXP_DIR, file);
	size_t flen;
	char *facts = test_read_file(path, &flen);
	if (!facts)
		return NULL;
	char key[1024];
	snprintf(key, sizeof key, "\"%s\": {", name);
	char *k = strstr(facts, key), *end = k ? strchr(k, '}') : NULL;
	char *sa = k ? strstr(k, "\"same_as\": \"") : NULL;
	if (sa && sa < end) {
		sa += strlen("\"same_as\": \"");
		char *q = strchr(sa, '"');
		if (q) {
			*q = '\0';
			snprintf(path, sizeof path, "%s/%s/%s", EXP_DIR, file, sa);
			t = test_read_file(path, len);
		}
	}
	free(facts);
	return t;
}

static void compare(const char *file, const char *name, const pq_buf *got)
{
	size_t elen;
	char *exp = expected(file, name, &elen);
	if (!exp)
		return; /* no expectation for this output */
	if (elen != got->len || memcmp(exp, got->p, elen) != 0) {
		size_t i = 0, line = 1, ls = 0;
		while (i < elen && i < got->len && exp[i] == (char)got->p[i]) {
			if (exp[i] == '\n') {
				line++;
				ls = i + 1;
			}
			i++;
		}
		const char *ee = strchr(exp + ls, '\n');
		int el = ee ? (int)(ee - (exp + ls)) : (int)(elen - ls);
		size_t ge = ls;
		while (ge < got->len && got->p[ge] != '\n')
			ge++;
		free(exp);
		ck_abort_msg("%s %s: differs at line %zu:\n expected: %.*s\n got:      %.*s\n (%zu vs %zu bytes)",
			     file, name, line, el > 300 ? 300 : el, exp + ls,
			     (int)(ge - ls > 300 ? 300 : ge - ls), (const char *)got->p + ls, elen, got->len);
	}
	free(exp);
}

START_TEST(test_file)
{
	const char *file = files[_i];
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", DATA_DIR, file);
	int fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "cannot open %s", path);
	struct stat st;
	ck_assert(fstat(fd, &st) == 0);
	pq_error err;
	pq_error_clear(&err);
	pq_file *f = NULL;
	pq_status s = pq_file_open_fd(fd, file, NULL, &f, &err);
	ck_assert_msg(s == PQ_OK, "%s: open: %s", file, err.msg);
	/* expected/ holds the decoded values of the two corrupt-checksum
	 * files (what -o crc_check=off serves); that their reads fail with
	 * the check on is test_page_crc's and check-mount.sh's */
	pq_file_set_crc_check(f, false);
	pq_buf out = PQ_BUF_INIT;
	s = pq_dump_rows(f, PQ_ALL, PQ_ROWS_CSV, &out, &err);
	ck_assert_msg(s == PQ_OK, "%s: data.csv: %s", file, err.msg);
	compare(file, "data.csv", &out);
	out.len = 0;
	s = pq_dump_rows(f, PQ_ALL, PQ_ROWS_JSONL, &out, &err);
	ck_assert_msg(s == PQ_OK, "%s: data.jsonl: %s", file, err.msg);
	compare(file, "data.jsonl", &out);
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_leaf *leaf = pq_schema_leaf(pq_file_schema(f), c);
		char name[1100];
		snprintf(name, sizeof name, "columns/%s/values.txt", leaf->dir);
		out.len = 0;
		s = pq_dump_column(f, PQ_ALL, c, false, &out, &err);
		ck_assert_msg(s == PQ_OK, "%s: %s: %s", file, name, err.msg);
		compare(file, name, &out);
	}
	pq_buf_free(&out);
	pq_file_free(f);
	close(fd);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_folder(const char *folder)
{
	char dir[2048];
	snprintf(dir, sizeof dir, "%s/%s", EXP_DIR, folder);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_name[0] == '_' || strstr(e->d_name, ".encrypted"))
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s/facts.json", dir, e->d_name);
		size_t n;
		char *facts = test_read_file(p, &n);
		if (!facts) {
			/* shredded_variant: data.jsonl alone */
			snprintf(p, sizeof p, "%s/%s/data.jsonl", dir, e->d_name);
			facts = test_read_file(p, &n);
			if (!facts)
				continue;
			facts[0] = '\0';
		}
		bool skip = strstr(facts, "\"expect_error\"") || strstr(facts, "\"robustness_only\"");
		free(facts);
		if (skip)
			continue;
		files = realloc(files, sizeof *files * (size_t)(nfiles + 1));
		files[nfiles] = malloc(strlen(folder) + strlen(e->d_name) + 2);
		sprintf(files[nfiles++], "%s/%s", folder, e->d_name);
	}
	closedir(d);
}

/* Files with an expectation, except encrypted ones (tests/test_encrypted.c) and
 * those expected to fail (their own tests). */
static void collect(void)
{
	for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++)
		collect_folder(folders[i]);
	qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
}

int main(void)
{
	struct stat st;
	if (stat(EXP_DIR, &st) != 0 || stat(DATA_DIR, &st) != 0) {
		printf("SKIP: test data not found at %s (../shared/testdata beside the checkout)\n",
		       TESTDATA_DIR);
		return 77;
	}
	collect();
	Suite *s = suite_create("conformance");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_file, 0, nfiles);
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
