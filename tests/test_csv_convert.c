/* CSV / TSV conversions as a whole (core/convert*.c) against interface.md
 * "Staging details": sidecar checks, the one-line error messages, NULL
 * rules, schema order and row groups, random inputs, and the data.csv
 * round trip of the conformance files.
 *
 * Golden values are independent: the contract's own examples for messages,
 * the test data's facts.json for which conformance schemas are flat, and
 * the test data's expected data.csv (not written by parquetfs). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "minijson.h"
#include "pq_convert.h"
#include "csv/pq_csv.h"
#include "pq_file.h"
#include "pq_schema.h"
#include "test_files.h"

static int tmpfd_with(const char *content, size_t n)
{
	char path[] = "/tmp/pq_test_csv_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, content, n), (ssize_t)n);
	return fd;
}

/* ---- sidecar schemas ---------------------------------------------------- */

static const char *check_schema(const char *text)
{
	static pq_error err;
	pq_error_clear(&err);
	if (pq_convert_check_schema(text, "x.schema", &err) == PQ_OK)
		return "OK";
	return err.msg;
}

START_TEST(test_schema_checks)
{
	ck_assert_str_eq(check_schema("message m {\n  required int64 id;\n"
				      "  optional binary name (STRING);\n"
				      "  optional fixed_len_byte_array(16) u (UUID);\n"
				      "  optional int32 price (DECIMAL(9,2));\n"
				      "  optional int64 ts (TIMESTAMP(MICROS,true));\n"
				      "  optional int32 t (TIME(MILLIS,false));\n"
				      "  optional float f;\n  optional binary e (ENUM);\n"
				      "  optional binary j (JSON);\n}\n"),
			 "OK");
	ck_assert_str_eq(check_schema("message m {\n  required int64 id;\n"
				      "  optional group tags (LIST) {\n"
				      "    repeated group list {\n"
				      "      optional binary element (STRING);\n    }\n  }\n}\n"),
			 "x.schema: line 3: field 'tags': a LIST cannot come from CSV");
	ck_assert_str_eq(check_schema("message m {\n  required int64 id;\n"
				      "  optional group g {\n    optional int32 a;\n  }\n}\n"),
			 "x.schema: line 3: field 'g': a nested group cannot come from CSV");
	ck_assert_str_eq(check_schema("message m {\n  optional group m (MAP) {\n"
				      "    repeated group key_value {\n"
				      "      required binary key (STRING);\n    }\n  }\n}\n"),
			 "x.schema: line 2: field 'm': a MAP cannot come from CSV");
	ck_assert_str_eq(check_schema("message m {\n  required int64 id;\n\n  optional int96 t;\n}\n"),
			 "x.schema: line 4: field 't': INT96 cannot come from CSV (use TIMESTAMP)");
	ck_assert_str_eq(check_schema("message m {\n  repeated int32 r;\n}\n"),
			 "x.schema: line 2: field 'r': a repeated field cannot come from CSV");
	ck_assert_str_eq(check_schema("message m {\n  optional int32 a;\n  optional int64 a;\n}\n"),
			 "x.schema: line 3: field 'a': a second field of this name");
	ck_assert_str_eq(check_schema("message m {\n  optional int33 a;\n}\n"),
			 "x.schema: line 2, column 17: expected group or a primitive type, not 'int33'");
}
END_TEST

/* Every readable conformance file: its schema text (as parquetfs prints
 * schema.txt) is accepted exactly when the file is flat (facts.json: every
 * column a top-level field, no repetition) and has no INT96 column. */
START_TEST(test_schema_conformance)
{
	const char *dir = TESTDATA_DIR "/expected/data";
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "test_schema_conformance: %s absent, skipped\n", dir);
		return;
	}
	struct dirent *de;
	int accepted = 0, refused = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s/facts.json", dir, de->d_name);
		FILE *fp = fopen(path, "rb");
		if (!fp)
			continue;
		static char buf[1 << 22];
		size_t n = fread(buf, 1, sizeof buf, fp);
		fclose(fp);
		mj *facts = mj_parse(buf, n);
		ck_assert_msg(facts, "%s", path);
		mj *enc = mj_get(facts, "encrypted");
		mj *cols = mj_get(facts, "columns");
		if ((enc && enc->type == 't') || !cols) {
			mj_free(facts);
			continue;
		}
		bool flat = true;
		for (size_t i = 0; i < cols->n; i++) {
			mj *c = mj_at(cols, i);
			mj *p = mj_get(c, "path"), *rep = mj_get(c, "max_rep"),
			   *pt = mj_get(c, "physical_type");
			if (p->n != 1 || rep->num != 0 || !strcmp(pt->str, "INT96"))
				flat = false;
		}
		mj_free(facts);
		snprintf(path, sizeof path, "%s/parquet-testing/data/%s", TESTDATA_DIR, de->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		struct stat st;
		fstat(fd, &st);
		pq_file *f;
		pq_error err;
		if (pq_file_open_fd(fd, de->d_name, NULL, &f, &err) != PQ_OK) {
			close(fd);
			continue;
		}
		pq_buf text = PQ_BUF_INIT;
		pq_schema_print(pq_file_schema(f), &text);
		pq_buf_putc(&text, '\0');
		pq_error cerr;
		pq_status cst = pq_convert_check_schema((const char *)text.p, "s.schema", &cerr);
		ck_assert_msg((cst == PQ_OK) == flat, "%s: flat %d, check: %s\n%s", de->d_name, flat,
			      cst == PQ_OK ? "accepted" : cerr.msg, (const char *)text.p);
		if (flat)
			accepted++;
		else
			refused++;
		pq_buf_free(&text);
		pq_file_free(f);
		close(fd);
	}
	closedir(d);
	ck_assert_int_gt(accepted, 10);
	ck_assert_int_gt(refused, 5);
}
END_TEST


/* ---- whole conversions ---------------------------------------------------- */

static pq_error conv_err;
static pq_file *conv_file;
static int conv_out = -1;

/* Converts text; on success opens the output as conv_file. */
static pq_status conv(const char *in, pq_csv_format fmt, const char *schema, uint64_t rg_rows)
{
	int fd = tmpfd_with(in, strlen(in));
	char path[] = "/tmp/pq_test_csv_out_XXXXXX";
	conv_out = mkstemp(path);
	ck_assert_int_ge(conv_out, 0);
	unlink(path);
	pq_write_options o;
	pq_write_options_init(&o);
	if (rg_rows)
		o.row_group_rows = rg_rows;
	pq_convert_stats stats;
	pq_error_clear(&conv_err);
	pq_status st = pq_convert_csv(fd, conv_out, fmt == PQ_CSV_TAB ? "x.tsv" : "x.csv", fmt,
				      schema, &o, &stats, &conv_err);
	close(fd);
	conv_file = NULL;
	if (st == PQ_OK) {
		struct stat sb;
		ck_assert_int_eq(fstat(conv_out, &sb), 0);
		ck_assert_uint_eq(stats.bytes_out, (uint64_t)sb.st_size);
		pq_error e;
		ck_assert_msg(pq_file_open_fd(conv_out, "out", NULL, &conv_file,
					   &e) == PQ_OK, "%s", e.msg);
	} else {
		close(conv_out);
		conv_out = -1;
	}
	return st;
}

static void conv_done(void)
{
	if (conv_file)
		pq_file_free(conv_file);
	if (conv_out >= 0)
		close(conv_out);
	conv_file = NULL;
	conv_out = -1;
}

static const char *conv_error(const char *in, pq_csv_format fmt, const char *schema)
{
	ck_assert_int_ne(conv(in, fmt, schema, 0), PQ_OK);
	return conv_err.msg;
}

/* Null counts of every column of row group rg, "n,n,n". */
static const char *null_counts(uint32_t rg)
{
	static char out[256];
	const pq_file_meta_data *md = pq_file_metadata(conv_file);
	ck_assert_uint_gt(md->row_groups.n, rg);
	size_t o = 0;
	out[0] = '\0';
	const pq_row_group *g = &md->row_groups.v[rg];
	for (uint32_t i = 0; i < g->columns.n; i++) {
		const pq_statistics *st = &g->columns.v[i].meta_data.statistics;
		ck_assert(st->has_null_count);
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%lld", i ? "," : "",
				      (long long)st->null_count);
	}
	return out;
}

/* The schema text of the output. */
static const char *out_schema(void)
{
	static pq_buf b = PQ_BUF_INIT;
	b.len = 0;
	pq_schema_print(pq_file_schema(conv_file), &b);
	pq_buf_putc(&b, '\0');
	return (const char *)b.p;
}

START_TEST(test_convert_message)
{
	/* the contract's example, with a quoted newline so that physical lines
	 * and records differ */
	pq_buf in = PQ_BUF_INIT;
	pq_buf_puts(&in, "id,name,age\n1,\"two\nlines\",30\n");
	for (int l = 4; l < 17; l++)
		pq_buf_printf(&in, "%d,n,%d\n", l, l);
	pq_buf_puts(&in, "17,x,abc\n18,y,1\n");
	pq_buf_putc(&in, '\0');
	const char *schema = "message m {\n  required int64 id;\n  optional binary name (STRING);\n"
			     "  optional int32 age;\n}\n";
	ck_assert_str_eq(conv_error((const char *)in.p, PQ_CSV_COMMA, schema),
			 "x.csv: line 17, column 3 (age): \"abc\" is not an INT32");
	pq_buf_free(&in);
	ck_assert_str_eq(conv_error("a,b\n1,2\n3\n", PQ_CSV_COMMA, NULL),
			 "x.csv: line 3, column 2 (b): missing (the line has 1 field, the header 2)");
	ck_assert_str_eq(conv_error("a,b\n1,2,\n", PQ_CSV_COMMA, NULL),
			 "x.csv: line 2, column 3: extra field (the header has 2 columns)");
	ck_assert_str_eq(conv_error("a,,b,,a\n", PQ_CSV_COMMA, NULL),
			 "x.csv: line 1, column 5 (a): duplicate column name (also column 1)");
	ck_assert_str_eq(conv_error("a,,column_2\n", PQ_CSV_COMMA, NULL),
			 "x.csv: line 1, column 3 (column_2): duplicate column name (also column 2)");
	ck_assert_str_eq(conv_error("a\tb\n1\tx\xC3\n", PQ_CSV_TAB, NULL),
			 "x.tsv: line 2, column 2 (b): \"x\\xc3\" is not valid UTF-8 (byte 0xc3 at "
			 "offset 1) for STRING");
	ck_assert_str_eq(conv_error("a,b\n1,2\n", PQ_CSV_COMMA, "message m {\n  optional int64 a;\n}\n"),
			 "x.csv: line 1, column 2 (b): not a field of the schema");
	ck_assert_str_eq(conv_error("a\n1\n", PQ_CSV_COMMA,
				    "message m {\n  optional int64 a;\n  optional int64 b;\n}\n"),
			 "x.csv: line 1: column 'b' of the schema is not in the header");
	ck_assert_str_eq(conv_error("a,s\n1,x\n,\n", PQ_CSV_COMMA,
				    "message m {\n  required int64 a;\n  required binary s (STRING);\n}\n"),
			 "x.csv: line 3, column 1 (a): empty value in a REQUIRED column");
	ck_assert_str_eq(conv_error("a,s\n\"\",x\n", PQ_CSV_COMMA,
				    "message m {\n  required int64 a;\n  required binary s (STRING);\n}\n"),
			 "x.csv: line 2, column 1 (a): empty value in a REQUIRED column");
	ck_assert_str_eq(conv_error("s,a\nx,1\n,2\n", PQ_CSV_COMMA,
				    "message m {\n  required int64 a;\n  required binary s (STRING);\n}\n"),
			 "x.csv: line 3, column 1 (s): empty value in a REQUIRED column");
	ck_assert_str_eq(conv_error("", PQ_CSV_COMMA, NULL),
			 "x.csv: empty file (the first line must be the header)");
}
END_TEST

START_TEST(test_convert_nulls)
{
	/* CSV: unquoted empty is NULL; "" is an empty string in STRING, NULL otherwise */
	ck_assert_int_eq(conv("i,s,d\n1,x,2024-01-01\n\"\",\"\",\"\"\n,,\n", PQ_CSV_COMMA, NULL, 0),
			 PQ_OK);
	ck_assert_str_eq(null_counts(0), "2,1,2");
	ck_assert_str_eq(out_schema(), "message schema {\n  optional int64 i;\n"
				       "  optional binary s (STRING);\n  optional int32 d (DATE);\n}\n");
	conv_done();
	/* TSV: \N is NULL; empty is "" in STRING, NULL otherwise */
	ck_assert_int_eq(conv("i\ts\n1\tx\n\t\n\\N\t\\N\n", PQ_CSV_TAB, NULL, 0), PQ_OK);
	ck_assert_str_eq(null_counts(0), "2,1");
	conv_done();
	/* required STRING takes "" (and unquoted empty is an error, above) */
	ck_assert_int_eq(conv("s\n\"\"\nx\n", PQ_CSV_COMMA,
			      "message m {\n  required binary s (STRING);\n}\n", 0), PQ_OK);
	ck_assert_str_eq(null_counts(0), "0");
	conv_done();
}
END_TEST

START_TEST(test_convert_shape)
{
	/* sidecar order, row groups of 3, empty names */
	ck_assert_int_eq(conv("b,a,\n1,x,t\n2,y,u\n3,z,v\n4,w,\n5,,\n6,a,b\n7,b,c\n", PQ_CSV_COMMA,
			      "message m {\n  optional binary a (STRING);\n  required int32 b;\n"
			      "  optional binary column_3 (ENUM);\n}\n", 3),
			 PQ_OK);
	const pq_file_meta_data *md = pq_file_metadata(conv_file);
	ck_assert_int_eq(md->num_rows, 7);
	ck_assert_uint_eq(md->row_groups.n, 3);
	ck_assert_int_eq(md->row_groups.v[0].num_rows, 3);
	ck_assert_int_eq(md->row_groups.v[2].num_rows, 1);
	ck_assert_str_eq(null_counts(1), "1,0,2");
	ck_assert_str_eq(out_schema(), "message m {\n  optional binary a (STRING);\n"
				       "  required int32 b;\n  optional binary column_3 (ENUM);\n}\n");
	conv_done();
	/* header only: 0 rows, STRING columns; blank lines and a BOM */
	ck_assert_int_eq(conv("\xEF\xBB\xBF" "x,y\r\n\r\n", PQ_CSV_COMMA, NULL, 0), PQ_OK);
	md = pq_file_metadata(conv_file);
	ck_assert_int_eq(md->num_rows, 0);
	ck_assert_str_eq(out_schema(), "message schema {\n  optional binary x (STRING);\n"
				       "  optional binary y (STRING);\n}\n");
	conv_done();
}
END_TEST

/* Random inputs from an alphabet of the dialect's special bytes: every
 * conversion ends with PQ_OK (and a readable file of the right row count)
 * or PQ_EINVAL with a message naming x.csv; ASan watches the rest. */
START_TEST(test_convert_random)
{
	static const char alphabet[] = ",\"\n\r\t\\N aZ1-.e:T0\xff\xc3\xa9";
	uint32_t seed = 12345;
	char in[512];
	int ok = 0, bad = 0;
	for (int iter = 0; iter < 1500; iter++) {
		size_t n = 0;
		bool tsv = iter % 2;
		if (iter % 3 == 0) { /* raw bytes */
			size_t len = 1 + iter % 90;
			for (; n < len; n++) {
				seed = seed * 1103515245u + 12345u;
				in[n] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
			}
		} else { /* 3 well-formed columns of random text */
			n = (size_t)sprintf(in, tsv ? "a\tb\tc\n" : "a,b,c\n");
			for (int row = 0; row < 1 + iter % 7; row++)
				for (int col = 0; col < 3; col++) {
					seed = seed * 1103515245u + 12345u;
					size_t len = (seed >> 16) % 6;
					bool quote = !tsv && (seed >> 8) % 2;
					if (quote)
						in[n++] = '"';
					for (size_t k = 0; k < len; k++) {
						seed = seed * 1103515245u + 12345u;
						/* valid UTF-8 here: no 0xff / lone 0xc3 0xa9 */
						char ch = alphabet[(seed >> 16) % (sizeof alphabet - 4)];
						if (strchr(tsv ? "\t\n\r" : ",\n\r\"", ch) && !quote)
							ch = 'x';
						if (ch == '"')
							in[n++] = '"';
						in[n++] = ch;
					}
					if (quote)
						in[n++] = '"';
					in[n++] = col < 2 ? (tsv ? '\t' : ',') : '\n';
				}
		}
		in[n] = '\0';
		if (strlen(in) != n)
			continue;
		pq_csv_format fmt = tsv ? PQ_CSV_TAB : PQ_CSV_COMMA;
		pq_status st = conv(in, fmt, NULL, 1 + iter % 4);
		ck_assert_msg(st == PQ_OK || st == PQ_EINVAL, "%d: %s", st, conv_err.msg);
		if (st == PQ_EINVAL)
			ck_assert_msg(!strncmp(conv_err.msg, fmt == PQ_CSV_TAB ? "x.tsv: " : "x.csv: ", 7),
				      "%s", conv_err.msg);
		if (st == PQ_OK)
			ok++;
		else if (++bad < 12 && getenv("PQ_TEST_VERBOSE"))
			fprintf(stderr, "%s\n", conv_err.msg);
		conv_done();
	}
	fprintf(stderr, "test_convert_random: %d converted, %d refused\n", ok, bad);
	ck_assert_int_gt(ok, 100);
	ck_assert_int_gt(bad, 100);
}
END_TEST

/* data.csv round trip (interface.md: "data.csv copied back in round-trips"):
 * for every flat conformance file without INT96, its expected data.csv
 * (derived independently of parquetfs) converted with the file's schema as
 * the sidecar must render back to the same data.csv. Columns of raw bytes
 * (kind "bytes" in facts.json: rendered as text or 0x-hex) are the
 * exception, since their text is not their value; those files only must
 * not crash. */

START_TEST(test_roundtrip_conformance)
{
	const char *dir = TESTDATA_DIR "/expected/data";
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "test_roundtrip_conformance: %s absent, skipped\n", dir);
		return;
	}
	struct dirent *de;
	int same = 0, bytes_only = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		size_t n;
		snprintf(path, sizeof path, "%s/%s/facts.json", dir, de->d_name);
		char *fj = test_read_file(path, &n);
		if (!fj)
			continue;
		mj *facts = mj_parse(fj, n);
		free(fj);
		ck_assert(facts);
		mj *enc = mj_get(facts, "encrypted"), *cols = mj_get(facts, "columns");
		bool flat = cols && !(enc && enc->type == 't'), has_bytes = false;
		size_t ncols = cols ? cols->n : 0;
		for (size_t i = 0; flat && i < cols->n; i++) {
			mj *c = mj_at(cols, i);
			if (mj_get(c, "path")->n != 1 || mj_get(c, "max_rep")->num != 0 ||
			    !strcmp(mj_get(c, "physical_type")->str, "INT96"))
				flat = false;
			if (!strcmp(mj_get(c, "kind")->str, "bytes"))
				has_bytes = true;
		}
		mj_free(facts);
		if (!flat)
			continue;
		snprintf(path, sizeof path, "%s/parquet-testing/data/%s", TESTDATA_DIR, de->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		struct stat st;
		fstat(fd, &st);
		pq_file *f;
		pq_error err;
		if (pq_file_open_fd(fd, de->d_name, NULL, &f, &err) != PQ_OK) {
			close(fd);
			continue;
		}
		pq_buf schema = PQ_BUF_INIT;
		pq_schema_print(pq_file_schema(f), &schema);
		pq_buf_putc(&schema, '\0');
		pq_file_free(f);
		close(fd);
		snprintf(path, sizeof path, "%s/%s/data.csv", dir, de->d_name);
		char *csv = test_read_file(path, &n);
		if (!csv) { /* large files have no expected data.csv */
			pq_buf_free(&schema);
			continue;
		}
		pq_status cst = conv(csv, PQ_CSV_COMMA, (const char *)schema.p, 0);
		if (has_bytes) {
			bytes_only++;
			ck_assert_msg(cst == PQ_OK || cst == PQ_EINVAL, "%s: %s", de->d_name,
				      conv_err.msg);
		} else {
			ck_assert_msg(cst == PQ_OK, "%s: %s", de->d_name, conv_err.msg);
			pq_buf back = PQ_BUF_INIT;
			pq_text_csv_header(conv_file, &back);
			const pq_file_meta_data *md = pq_file_metadata(conv_file);
			for (uint32_t rg = 0; rg < md->row_groups.n; rg++) {
				pq_row_reader *rr;
				ck_assert_int_eq(pq_row_reader_open(conv_file, rg, PQ_ROWS_CSV, &rr, &err),
						 PQ_OK);
				bool done = false;
				while (!done)
					ck_assert_int_eq(pq_row_reader_next(rr, 1 << 20, &back, &done, &err),
							 PQ_OK);
				pq_row_reader_free(rr);
			}
			if (ncols == 1) {
				/* A NULL of a one-column file is an empty line, which
				 * the contract skips as a blank line. */
				size_t o = 0;
				for (size_t k = 0; k < n; k++)
					if (!(csv[k] == '\n' && k > 0 && csv[k - 1] == '\n'))
						csv[o++] = csv[k];
				n = o;
			}
			ck_assert_msg(back.len == n && !memcmp(back.p, csv, n),
				      "%s: data.csv does not round-trip", de->d_name);
			pq_buf_free(&back);
			same++;
		}
		conv_done();
		free(csv);
		pq_buf_free(&schema);
	}
	closedir(d);
	fprintf(stderr, "test_roundtrip_conformance: %d files round-trip, %d with raw bytes\n",
		same, bytes_only);
	ck_assert_int_gt(same, 10);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("csv_convert");
	TCase *tc = tcase_create("convert");
	tcase_add_test(tc, test_convert_message);
	tcase_add_test(tc, test_convert_nulls);
	tcase_add_test(tc, test_convert_shape);
	tcase_add_test(tc, test_convert_random);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	tc = tcase_create("schema");
	tcase_add_test(tc, test_schema_checks);
	tcase_add_test(tc, test_schema_conformance);
	tcase_add_test(tc, test_roundtrip_conformance);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
