/* Hostile input: every file in bad_data/, and every conformance file cut
 * at 50 offsets and with 200 random single-byte flips, is opened and every
 * view rendered. Each must give an error or output; never a crash, hang or
 * leak (the suite also runs under ASan+UBSan). Each bad_data file must
 * also fail where its defect is, with the status that says so. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fuzz_views.h"
#include "read/pq_dump.h"
#include "test_files.h"

#define DATA_DIR TESTDATA_DIR "/parquet-testing/data"
#define BAD_DIR TESTDATA_DIR "/parquet-testing/bad_data"
/* Without ../shared: the project's own files (the fuzz seed corpus). */
#define OWN_DIR SRCDIR "/tests/fuzz/corpus/file"

static const char *data_dir = DATA_DIR;

static char **files;
static int nfiles;

static uint8_t *slurp(const char *path, size_t *len)
{
	return (uint8_t *)test_read_file(path, len);
}

/* Renders every view of the file; errors are fine, crashes are not.
 * Files with many pages skip the views that decode the same pages again
 * the same way (JSONL, levels), which keeps the sanitizer run short. */
static void exercise(pq_source *src)
{
	bool full = pq_source_size(src) < 256 * 1024;
	pq_error err;
	pq_error_clear(&err);
	pq_file *f = NULL;
	if (pq_file_open(src, "robust", NULL, &f, &err) != PQ_OK) {
		ck_assert(err.msg[0] != '\0');
		return;
	}
	/* every other file with 3-slot windows: the page reader's resuming
	 * decoders (core/read/page_reader.c) see the same hostile bytes */
	static unsigned opened;
	if (opened++ & 1)
		pq_file_set_page_window(f, 3);
	pq_buf out = PQ_BUF_INIT;
	pq_text_schema(f, &out);
	pq_text_file_metadata(f, &out);
	pq_json_file_metadata(f, &out);
	(void)pq_text_verify(f, &out, &err);
	out.len = 0;
	(void)pq_dump_rows(f, PQ_ALL, PQ_ROWS_CSV, &out, &err);
	out.len = 0;
	if (full)
		(void)pq_dump_rows(f, PQ_ALL, PQ_ROWS_JSONL, &out, &err);
	for (uint32_t r = 0; r < pq_file_num_row_groups(f); r++) {
		pq_text_row_group_metadata(f, r, &out);
		pq_json_row_group_metadata(f, r, &out);
		for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
			out.len = 0;
			pq_text_chunk_metadata(f, r, c, &out);
			pq_json_chunk_metadata(f, r, c, &out);
			(void)pq_text_column_index(f, r, c, &out, &err);
			(void)pq_text_offset_index(f, r, c, &out, &err);
			(void)pq_text_bloom_filter(f, r, c, &out, &err);
			(void)pq_dump_column(f, r, c, false, &out, &err);
			if (full)
				(void)pq_dump_column(f, r, c, true, &out, &err);
			pq_chunk_layout *l;
			if (pq_chunk_layout_load(f, r, c, &l, &err) != PQ_OK)
				continue;
			for (uint32_t p = 0; p < l->num_pages && p < 8; p++) {
				(void)pq_text_page_header(f, l, &l->pages[p], &out, &err);
				(void)pq_json_page_header(f, l, &l->pages[p], &out, &err);
				uint8_t *body;
				size_t blen;
				if (pq_page_body(f, l, &l->pages[p], &body, &blen, &err) == PQ_OK)
					free(body);
			}
			pq_chunk_layout_free(l);
		}
	}
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		out.len = 0;
		ck_assert(pq_text_column_summary(f, c, &out, &err) == PQ_OK);
	}
	pq_buf_free(&out);
	pq_file_free(f);
}

/* From memory, as a fuzz target would: the bytes are not copied. */
static void exercise_bytes(const uint8_t *p, size_t n)
{
	pq_source *src;
	pq_error err;
	ck_assert(pq_source_mem_new(p, n, false, &src, &err) == PQ_OK);
	exercise(src);
	pq_source_unref(src);
}

/* What each bad_data file must do, from bad_data/README.md's account of
 * its defect: the view that fails and how, and whether data.csv fails.
 * A file that is not here fails the test (a new one needs its line). */
static const struct bad_case {
	const char *name;
	unsigned kind;   /* a view (fuzz_views.h) that must fail... */
	pq_status status; /* ...with this status */
	bool rows_fail;  /* data.csv / data.jsonl of every row group fail */
} bad_cases[] = {
	/* schema Thrift corrupted: the footer does not parse */
	{"PARQUET-1481.parquet", V_OPEN, PQ_ECORRUPT, true},
	/* columns of different sizes: refused at open */
	{"ARROW-GH-41317.parquet", V_OPEN, PQ_ECORRUPT, true},
	/* fewer decoded levels than the header's num_values */
	{"ARROW-GH-41321.parquet", V_PAGE_DECODE, PQ_ECORRUPT, true},
	/* dictionary indices with bit width 0: every index is 0, which the
	 * dictionary holds, so the page decodes (no view fails) */
	{"ARROW-GH-43605.parquet", 0, PQ_OK, false},
	/* repetition levels starting with 1: rows cannot be assembled */
	{"ARROW-GH-45185.parquet", V_ROWS_CSV, PQ_ECORRUPT, true},
	/* a REQUIRED column holding nulls */
	{"ARROW-GH-47662.parquet", V_PAGE_DECODE, PQ_ECORRUPT, true},
	/* negative num_values in the dictionary page header: the page list */
	{"ARROW-RS-GH-6229-DICTHEADER.parquet", V_LAYOUT, PQ_ECORRUPT, true},
	/* too few repetition levels in a page */
	{"ARROW-RS-GH-6229-LEVELS.parquet", V_PAGE_DECODE, PQ_ECORRUPT, true},
};

static fuzz_outcome bad_log[65536];

START_TEST(test_bad_data)
{
	DIR *d = opendir(BAD_DIR);
	ck_assert(d);
	struct dirent *e;
	int seen = 0;
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".parquet"))
			continue;
		const struct bad_case *c = NULL;
		for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++)
			if (!strcmp(bad_cases[i].name, e->d_name))
				c = &bad_cases[i];
		ck_assert_msg(c, "%s: no expected outcome in bad_cases", e->d_name);
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", BAD_DIR, e->d_name);
		size_t n;
		uint8_t *p = slurp(path, &n);
		ck_assert_msg(p, "cannot read %s", path);
		exercise_bytes(p, n);
		fuzz_log log = {bad_log, 0, sizeof bad_log / sizeof *bad_log, false};
		(void)fuzz_file_bytes(p, n, NULL, &log);
		free(p);
		bool kind_failed = false, any_failed = false;
		size_t rows = 0, rows_failed = 0;
		for (size_t i = 0; i < log.n; i++) {
			unsigned k = FUZZ_KIND(log.v[i].key);
			pq_status st = log.v[i].status;
			any_failed |= st != PQ_OK;
			kind_failed |= k == c->kind && st == c->status;
			if (k == V_ROWS_CSV || k == V_ROWS_JSONL) {
				rows++;
				rows_failed += st != PQ_OK;
			}
		}
		if (c->kind)
			ck_assert_msg(kind_failed, "%s: view kind %u did not fail with %s", c->name,
				      c->kind, pq_status_name(c->status));
		else
			ck_assert_msg(!any_failed, "%s: a view failed", c->name);
		if (c->rows_fail && c->kind != V_OPEN)
			ck_assert_msg(rows > 0 && rows_failed == rows, "%s: %zu of %zu row views failed",
				      c->name, rows_failed, rows);
		seen++;
	}
	closedir(d);
	ck_assert_int_eq(seen, (int)(sizeof bad_cases / sizeof *bad_cases));
}
END_TEST

/* xorshift: reproducible "random" flips per file. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(test_truncations_and_flips)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", data_dir, files[_i]);
	size_t n;
	clock_t t0 = clock();
	uint8_t *orig = slurp(path, &n);
	ck_assert_msg(orig, "cannot read %s", path);
	uint8_t *p = malloc(n ? n : 1);
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)_i;
	/* 50 cuts: the end region (footer) densely, the rest spread out. */
	for (int k = 0; k < 50 && n > 0; k++) {
		size_t cut = k < 25 ? n - 1 - (size_t)k * (n > 200 ? 7 : 1) % n
				    : (size_t)(next_rand(&seed) % n);
		exercise_bytes(orig, cut);
	}
	const char *full = getenv("PQ_ROBUST_FLIPS");
	int flips = full ? atoi(full) : 200;
	for (int k = 0; k < flips && n > 0; k++) {
		memcpy(p, orig, n);
		size_t at = (size_t)(next_rand(&seed) % n);
		/* Half the flips hit the footer, where one byte changes the most. */
		if (k % 2 && n > 64)
			at = n - 1 - (size_t)(next_rand(&seed) % (n / 8 > 64 ? n / 8 : 64));
		p[at] ^= (uint8_t)(1u + next_rand(&seed) % 255u);
		exercise_bytes(p, n);
	}
	free(p);
	free(orig);
	if (getenv("PQ_ROBUST_TIMES"))
		fprintf(stderr, "%s: %.2f s\n", files[_i], (double)(clock() - t0) / CLOCKS_PER_SEC);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	struct stat st;
	bool conformance = stat(DATA_DIR, &st) == 0 && stat(BAD_DIR, &st) == 0;
	if (!conformance) {
		printf("note: no test data at %s (../shared/testdata beside the checkout): "
		       "bad_data is skipped; cuts and flips of the project's own files\n",
		       TESTDATA_DIR);
		data_dir = OWN_DIR;
	}
	DIR *d = opendir(data_dir);
	if (!d) {
		printf("cannot open %s\n", data_dir);
		return 1;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 8 || strcmp(e->d_name + l - 8, ".parquet") != 0)
			continue;
		files = realloc(files, sizeof *files * (size_t)(nfiles + 1));
		files[nfiles++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
	Suite *s = suite_create("robustness");
	TCase *tc = tcase_create("hostile");
	tcase_set_timeout(tc, 300);
	if (conformance)
		tcase_add_test(tc, test_bad_data);
	tcase_add_loop_test(tc, test_truncations_and_flips, 0, nfiles);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	/* One process, for speed; ASan still aborts on a bug. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	return failed ? 1 : 0;
}
