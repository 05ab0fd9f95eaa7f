/* Rows appended to an existing Parquet file (pq_convert_csv_append,
 * pq_footer_splice) against interface.md "Staging details", Appending:
 * the old bytes kept up to the footer, the new rows typed by the file's
 * schema as new row groups, the footer's other fields kept, verify.txt OK
 * on the result, a line that does not fit named by line and column, and
 * encrypted files refused before anything is written. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/pq_thrift.h"
#include "pq_convert.h"
#include "pq_file.h"
#include "pq_io.h"
#include "write/pq_writer.h"

static int tmpfd(void)
{
	char path[] = "/tmp/pq_test_append_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

static int tmpfd_with(const char *s)
{
	int fd = tmpfd();
	size_t n = strlen(s);
	ck_assert_int_eq(write(fd, s, n), (ssize_t)n);
	return fd;
}

static uint64_t size_of(int fd)
{
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	return (uint64_t)st.st_size;
}

static const char *SCHEMA = "message m {\n  required int64 id;\n"
			    "  optional binary name (STRING);\n  optional double x;\n}\n";

/* A file of csv (with SCHEMA) in row groups of rg_rows; opts may add more. */
static int make_file(const char *csv, uint64_t rg_rows, pq_write_options *o)
{
	pq_write_options d;
	if (!o) {
		pq_write_options_init(&d);
		o = &d;
	}
	o->row_group_rows = rg_rows;
	int in = tmpfd_with(csv), out = tmpfd();
	pq_error err = {0};
	ck_assert_msg(pq_convert_csv(in, out, "x.csv", PQ_CSV_COMMA, SCHEMA, o, NULL, &err) == PQ_OK,
		      "%s", err.msg);
	close(in);
	return out;
}

static pq_error app_err;

/* rows appended to old; the new file's descriptor, or -1 (app_err). */
static int append(int old, const char *rows, uint64_t rg_rows, pq_convert_stats *stats)
{
	pq_source *src;
	pq_error err = {0};
	ck_assert_int_eq(pq_source_fd_new(old, false, &src, &err), PQ_OK);
	int in = tmpfd_with(rows), out = tmpfd();
	pq_write_options o;
	pq_write_options_init(&o);
	o.row_group_rows = rg_rows;
	pq_convert_input ci = {.format = PQ_CSV_COMMA, .delimiter = ',', .threads = 1};
	memset(&app_err, 0, sizeof app_err);
	pq_status st = pq_convert_csv_append(src, "x.parquet", in, out, "x.csv", &ci, &o, stats,
					     &app_err);
	pq_source_unref(src);
	close(in);
	if (st != PQ_OK) {
		close(out);
		return -1;
	}
	return out;
}

static bool same_prefix(int a, int b, uint64_t n)
{
	char *x = malloc(n), *y = malloc(n);
	bool same = x && y && pread(a, x, n, 0) == (ssize_t)n && pread(b, y, n, 0) == (ssize_t)n &&
		    !memcmp(x, y, n);
	free(x);
	free(y);
	return same;
}

static uint64_t footer_offset(int fd)
{
	uint64_t size = size_of(fd);
	uint8_t t[4];
	ck_assert_int_eq(pread(fd, t, 4, (off_t)size - 8), 4);
	uint32_t len = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
		       (uint32_t)t[3] << 24;
	return size - 8 - len;
}

START_TEST(test_append_rows)
{
	int old = make_file("id,name,x\n1,a,1.5\n2,b,2.5\n3,c,\n", 2, NULL);
	uint64_t foff = footer_offset(old);
	pq_convert_stats stats;
	int out = append(old, "4,d,4\n\n5,,-1e3\n6,\"e, f\",7.25\n", 2, &stats);
	ck_assert_msg(out >= 0, "%s", app_err.msg);
	ck_assert_uint_eq(stats.rows, 3);
	ck_assert_uint_eq(stats.row_groups, 2);
	ck_assert_uint_eq(stats.bytes_out, size_of(out));
	ck_assert_msg(same_prefix(old, out, foff), "the old bytes up to the footer changed");

	pq_file *f;
	pq_error err = {0};
	ck_assert_msg(pq_file_open_fd(out, "out", NULL, &f, &err) == PQ_OK, "%s", err.msg);
	const pq_file_meta_data *md = pq_file_metadata(f);
	ck_assert_int_eq(md->num_rows, 6);
	ck_assert_uint_eq(md->row_groups.n, 4);
	int64_t want_rows[] = {2, 1, 2, 1};
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_int_eq(md->row_groups.v[i].num_rows, want_rows[i]);
		ck_assert(md->row_groups.v[i].has_ordinal);
		ck_assert_int_eq(md->row_groups.v[i].ordinal, (int)i);
	}
	/* the new chunks begin where the old footer was */
	ck_assert_int_eq(md->row_groups.v[2].file_offset, (int64_t)foff);
	const pq_statistics *s = &md->row_groups.v[3].columns.v[0].meta_data.statistics;
	ck_assert(s->has_min_value && s->min_value.n == 8);
	int64_t id;
	memcpy(&id, s->min_value.p, 8);
	ck_assert_int_eq(id, 6);
	/* the whole check of verify.txt: pages, CRCs, statistics, page index */
	pq_buf v = PQ_BUF_INIT;
	ck_assert_msg(pq_text_verify(f, &v, &err) == PQ_OK, "%s", err.msg);
	ck_assert_msg(v.len >= 3 && !memcmp(v.p + v.len - 3, "OK\n", 3), "%.*s", (int)v.len,
		      (const char *)v.p);
	pq_buf_free(&v);
	pq_file_free(f);

	/* appended again: still one file, 7 rows */
	int out2 = append(out, "7,g,0\n", 100, &stats);
	ck_assert_msg(out2 >= 0, "%s", app_err.msg);
	ck_assert_msg(pq_file_open_fd(out2, "out2", NULL, &f, &err) == PQ_OK, "%s", err.msg);
	ck_assert_int_eq(pq_file_metadata(f)->num_rows, 7);
	ck_assert_uint_eq(pq_file_num_row_groups(f), 5);
	pq_file_free(f);

	/* nothing to append: the same file */
	int out3 = append(out2, "", 100, &stats);
	ck_assert_msg(out3 >= 0, "%s", app_err.msg);
	ck_assert_uint_eq(stats.rows, 0);
	ck_assert_uint_eq(size_of(out3), size_of(out2));
	ck_assert(same_prefix(out2, out3, size_of(out2)));
	close(old);
	close(out);
	close(out2);
	close(out3);
}
END_TEST

START_TEST(test_append_errors)
{
	int old = make_file("id,name,x\n1,a,1.5\n", 10, NULL);
	pq_convert_stats stats;
	ck_assert_int_eq(append(old, "2,b,2\n3,c,abc\n", 10, &stats), -1);
	ck_assert_str_eq(app_err.msg, "x.csv: line 2, column 3 (x): \"abc\" is not a DOUBLE");
	ck_assert_int_eq(append(old, "2,b,2,9\n", 10, &stats), -1);
	ck_assert_str_eq(app_err.msg,
			 "x.csv: line 1, column 4: extra field (x.parquet has 3 columns)");
	ck_assert_int_eq(append(old, "2,b,2\n3,c\n", 10, &stats), -1);
	ck_assert_str_eq(app_err.msg, "x.csv: line 2, column 3 (x): missing (the line has 2 "
				      "fields, x.parquet 3)");
	ck_assert_int_eq(append(old, ",b,2\n", 10, &stats), -1);
	ck_assert_str_eq(app_err.msg,
			 "x.csv: line 1, column 1 (id): empty value in a REQUIRED column");
	close(old);

	/* encrypted: the footer (PARE), or the columns under a signed plaintext footer */
	static const unsigned char key[16] = "0123456789abcdef";
	for (int plain = 0; plain < 2; plain++) {
		pq_write_options o;
		pq_write_options_init(&o);
		o.footer_key = key;
		o.footer_key_len = sizeof key;
		o.footer_key_id = "k";
		o.plaintext_footer = plain;
		int enc = make_file("id,name,x\n1,a,1.5\n", 10, &o);
		ck_assert_int_eq(append(enc, "2,b,2\n", 10, &stats), -1);
		ck_assert_msg(strstr(app_err.msg, "x.csv: cannot append to x.parquet: ") &&
				      strstr(app_err.msg, "encrypted") &&
				      strstr(app_err.msg, "nothing was changed"),
			      "%s", app_err.msg);
		close(enc);
	}

	/* not a Parquet file */
	int junk = tmpfd_with("this is not a parquet file at all");
	ck_assert_int_eq(append(junk, "1,a,1\n", 10, &stats), -1);
	ck_assert_msg(strstr(app_err.msg, "x.csv: cannot append to x.parquet: not a Parquet file"),
		      "%s", app_err.msg);
	close(junk);
}
END_TEST

/* The splice on its own: fields it does not know (id 20, after a long
 * delta) and every other byte kept, num_rows and the list changed. */
START_TEST(test_footer_splice)
{
	pq_buf in = PQ_BUF_INIT, rg = PQ_BUF_INIT, out = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &in);
	pq_tw_struct_begin(&w);
	pq_tw_field_i32(&w, 1, 2);
	pq_tw_field(&w, 2, PQ_TT_LIST);
	pq_tw_list_begin(&w, PQ_TT_STRUCT, 0);
	pq_tw_field_i64(&w, 3, 5);
	pq_tw_field(&w, 4, PQ_TT_LIST);
	pq_tw_list_begin(&w, PQ_TT_STRUCT, 14); /* 14 + 1: the long list header */
	for (int i = 0; i < 14; i++) {
		pq_tw_struct_begin(&w);
		pq_tw_field_i64(&w, 3, i);
		pq_tw_struct_end(&w);
	}
	pq_tw_field_binary(&w, 6, "me", 2);
	pq_tw_field_binary(&w, 20, "future", 6);
	pq_tw_struct_end(&w);
	pq_thrift_writer rw;
	pq_tw_init(&rw, &rg);
	pq_tw_struct_begin(&rw);
	pq_tw_field_i64(&rw, 3, 99);
	pq_tw_struct_end(&rw);
	pq_error err = {0};
	ck_assert_int_eq(pq_footer_splice(in.p, in.len, 3, rg.p, rg.len, 1, &out, &err), PQ_OK);

	pq_thrift_reader r;
	pq_tr_init(&r, out.p, out.len, &err);
	ck_assert(pq_tr_struct_begin(&r));
	int16_t last = 0;
	pq_thrift_field f;
	int seen = 0;
	while (pq_tr_field(&r, &last, &f)) {
		if (f.id == 3) {
			ck_assert_int_eq(pq_tr_i64(&r), 8);
		} else if (f.id == 4) {
			uint8_t et;
			uint32_t n;
			ck_assert(pq_tr_list_begin(&r, &et, &n));
			ck_assert_uint_eq(n, 15);
			for (uint32_t i = 0; i < n; i++) {
				int16_t l2 = 0;
				pq_thrift_field g;
				ck_assert(pq_tr_struct_begin(&r));
				ck_assert(pq_tr_field(&r, &l2, &g));
				ck_assert_int_eq(pq_tr_i64(&r), i < 14 ? (int64_t)i : 99);
				ck_assert(!pq_tr_field(&r, &l2, &g));
				pq_tr_struct_end(&r);
			}
			pq_tr_container_end(&r);
		} else if (f.id == 20) {
			pq_bytes b = pq_tr_binary(&r);
			ck_assert(b.n == 6 && !memcmp(b.p, "future", 6));
		} else {
			pq_tr_skip(&r, f.type);
		}
		seen |= 1 << (f.id & 31);
	}
	pq_tr_struct_end(&r);
	ck_assert(pq_tr_ok(&r));
	ck_assert_uint_eq(pq_tr_offset(&r), out.len);
	ck_assert_int_eq(seen, (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 6) | (1 << 20));

	/* a signature after the struct (a signed plaintext footer): refused */
	pq_buf_append(&in, "0123456789abcdef0123456789ab", 28);
	out.len = 0;
	ck_assert_int_eq(pq_footer_splice(in.p, in.len, 3, rg.p, rg.len, 1, &out, &err),
			 PQ_EUNSUPPORTED);
	/* truncated: refused, never read past the end */
	out.len = 0;
	ck_assert_int_ne(pq_footer_splice(in.p, 20, 3, rg.p, rg.len, 1, &out, &err), PQ_OK);
	pq_buf_free(&in);
	pq_buf_free(&rg);
	pq_buf_free(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("csv_append");
	TCase *tc = tcase_create("append");
	tcase_add_test(tc, test_append_rows);
	tcase_add_test(tc, test_append_errors);
	tcase_add_test(tc, test_footer_splice);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
