/* columns/<column>/stats.txt (pq_text_column_summary): files written here
 * with several row groups whose bounds differ, checked line by line against
 * values this test knows from the data it wrote (bounds, nulls) or adds up
 * itself from the decoded footer and page headers (sizes, encodings,
 * pages). Footers are rewritten here to drop statistics, keep only the
 * deprecated min/max, or mark bounds inexact. */
#include "config.h"

#include <check.h>
#include <inttypes.h>

#include "test_writer_helpers.h"

/* ---- expected text ------------------------------------------------------------------------ */

typedef struct want {
	const char *path, *physical, *logical, *repetition;
	const char *num_values, *null_count, *min, *max;
	const char *exact;     /* NULL: no `exact:` line */
	const char *distinct;  /* NULL: no `distinct_count:` line */
} want;

static void put_enum_list(pq_buf *out, const int32_t *v, uint32_t n, const char *(*name)(int32_t))
{
	for (uint32_t i = 0; i < n; i++)
		pq_buf_printf(out, "%s%s", i ? ", " : " ", name(v[i]));
	pq_buf_putc(out, '\n');
}

/* The lines the metadata decides, computed here from the chunks (page
 * counts from the page headers, independently of encoding_stats). */
static char *expected(const pq_file *f, uint32_t col, const want *w)
{
	pq_buf out = PQ_BUF_INIT;
	uint32_t nrg = pq_file_num_row_groups(f);
	pq_buf_printf(&out, "column: %s\nphysical_type: %s\nlogical_type: %s\nrepetition: %s\n",
		      w->path, w->physical, w->logical, w->repetition);
	pq_buf_printf(&out, "row_groups: %u\nnum_values: %s\nnull_count: %s\nmin: %s\nmax: %s\n", nrg,
		      w->num_values, w->null_count, w->min, w->max);
	if (w->exact)
		pq_buf_printf(&out, "exact: %s\n", w->exact);
	if (w->distinct)
		pq_buf_printf(&out, "distinct_count: %s\n", w->distinct);
	uint64_t comp = 0, uncomp = 0, data = 0, dict = 0;
	int32_t codecs[16], encs[16];
	uint32_t ncodecs = 0, nencs = 0, blooms = 0, indexed = 0;
	for (uint32_t rg = 0; rg < nrg; rg++) {
		const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, col);
		ck_assert_ptr_nonnull(m);
		comp += (uint64_t)m->total_compressed_size;
		uncomp += (uint64_t)m->total_uncompressed_size;
		bool seen = false;
		for (uint32_t i = 0; i < ncodecs; i++)
			seen = seen || codecs[i] == m->codec;
		if (!seen)
			codecs[ncodecs++] = m->codec;
		for (uint32_t e = 0; e < m->encodings.n; e++) {
			seen = false;
			for (uint32_t i = 0; i < nencs; i++)
				seen = seen || encs[i] == m->encodings.v[e];
			if (!seen)
				encs[nencs++] = m->encodings.v[e];
		}
		pq_chunk_layout *l;
		pq_error err = {0};
		ck_assert_msg(pq_chunk_layout_load(f, rg, col, &l, &err) == PQ_OK, "%s", err.msg);
		data += l->num_pages;
		dict += l->dict != NULL;
		pq_chunk_layout_free(l);
		const pq_column_chunk *cc = pq_file_chunk(f, rg, col);
		blooms += m->has_bloom_filter_offset;
		indexed += cc->has_column_index_offset || cc->has_offset_index_offset;
	}
	uint64_t hundredths = (uncomp * 100 + comp / 2) / comp; /* round half up */
	pq_buf_printf(&out, "compressed_bytes: %" PRIu64 "\nuncompressed_bytes: %" PRIu64
		      "\ncompression_ratio: %" PRIu64 ".%02" PRIu64 "\ncodecs:",
		      comp, uncomp, hundredths / 100, hundredths % 100);
	put_enum_list(&out, codecs, ncodecs, pq_codec_enum_name);
	pq_buf_puts(&out, "encodings:");
	put_enum_list(&out, encs, nencs, pq_encoding_name);
	pq_buf_printf(&out, "data_pages: %" PRIu64 "\ndictionary_pages: %" PRIu64 "\n", data, dict);
	pq_buf_printf(&out, "bloom_filters: %u of %u row groups\npage_index: %u of %u row groups\n",
		      blooms, nrg, indexed, nrg);
	pq_buf_putc(&out, '\0');
	return (char *)out.p;
}

static void check_col(const pq_file *f, uint32_t col, const want *w)
{
	char *exp = expected(f, col, w);
	pq_buf got = PQ_BUF_INIT;
	pq_error err = {0};
	ck_assert_msg(pq_text_column_summary(f, col, &got, &err) == PQ_OK, "%s", err.msg);
	pq_buf_putc(&got, '\0');
	ck_assert_msg(strcmp((char *)got.p, exp) == 0, "column %s:\n--- got\n%s--- want\n%s", w->path,
		      (char *)got.p, exp);
	pq_buf_free(&got);
	free(exp);
}

/* ---- the file: 3 row groups of 3 rows ----------------------------------------------------- */

enum { C_I32, C_U32, C_S, C_DEC64, C_DECBA, C_DBL, C_U64, NCOLS };

static void schema(els *e)
{
	memset(e, 0, sizeof *e);
	grp(e, "schema", -1, NCOLS);
	prim(e, "i", PQ_REQUIRED, PQ_INT32);
	conv(prim(e, "u", PQ_REQUIRED, PQ_INT32), PQ_CT_UINT_32);
	conv(prim(e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8);
	pq_schema_element *x = conv(prim(e, "d", PQ_REQUIRED, PQ_INT64), PQ_CT_DECIMAL);
	x->has_scale = x->has_precision = true;
	x->scale = 2;
	x->precision = 18;
	x = conv(prim(e, "b", PQ_REQUIRED, PQ_BYTE_ARRAY), PQ_CT_DECIMAL);
	x->has_scale = x->has_precision = true;
	x->scale = 1;
	x->precision = 10;
	prim(e, "f", PQ_OPTIONAL, PQ_DOUBLE);
	conv(prim(e, "w", PQ_REQUIRED, PQ_INT64), PQ_CT_UINT_64);
}

/* Signed ints: -10 is the min, though -3 comes first. */
static int32_t i32s[3][3] = {{5, -3, 7}, {-10, 2, 1}, {100, 0, 4}};
/* Unsigned: 4294967295 is -1 as signed, 2147483648 is INT32_MIN. */
static uint32_t u32s[3][3] = {{1, 2147483648u, 3}, {4294967295u, 7, 9}, {6, 8, 2}};
/* Strings: bytewise unsigned, so "Zebra" < "apple" < "pear" < "éclair";
 * the last row group holds nulls only. */
static const char *strs[3][3] = {{"pear", NULL, "apple"}, {"Zebra", "\xc3\xa9" "clair", NULL},
				 {NULL, NULL, NULL}};
static int64_t decs[3][3] = {{-150, 20, 0}, {-5, 999, 3}, {1, 2, -149}};
/* Big-endian two's complement of different widths: 0x00ff 255, 0x80 -128,
 * 0xff7f -129, 0x0100 256, 0x7f 127. */
static const char *decba[3][3] = {{"\x00\xff", "\x80", "\x7f"}, {"\xff\x7f", "\x01\x00", "\x01"},
				  {"\x02", "\xff", "\x00"}};
static const size_t decba_len[3][3] = {{2, 1, 1}, {2, 2, 1}, {1, 1, 1}};
static double dbls[3][2] = {{1.5, -0.25}, {3.0, 2.0}, {0.5, 0.75}}; /* row 1 null */
static uint64_t u64s[3][3] = {{UINT64_MAX, 1, 2}, {3, 4, 5}, {6, 9223372036854775808u, 7}};

static void write_file(wfile *x, int codec)
{
	els e;
	schema(&e);
	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = codec;
	wopen(x, &e, &o);
	for (int r = 0; r < 3; r++) {
		pq_values v = vals(PQ_INT32, 0, 3, i32s[r]);
		wput(x, C_I32, 3, NULL, &v);
		v = vals(PQ_INT32, 0, 3, u32s[r]);
		wput(x, C_U32, 3, NULL, &v);
		pq_bytes sv[3];
		uint8_t def[3];
		size_t n = 0;
		for (int i = 0; i < 3; i++) {
			def[i] = strs[r][i] != NULL;
			if (strs[r][i])
				sv[n++] = (pq_bytes){(const uint8_t *)strs[r][i], strlen(strs[r][i])};
		}
		v = vals(PQ_BYTE_ARRAY, 0, n, sv);
		wput(x, C_S, 3, def, &v);
		v = vals(PQ_INT64, 0, 3, decs[r]);
		wput(x, C_DEC64, 3, NULL, &v);
		pq_bytes bv[3];
		for (int i = 0; i < 3; i++)
			bv[i] = (pq_bytes){(const uint8_t *)decba[r][i], decba_len[r][i]};
		v = vals(PQ_BYTE_ARRAY, 0, 3, bv);
		wput(x, C_DECBA, 3, NULL, &v);
		uint8_t fdef[3] = {1, 0, 1};
		v = vals(PQ_DOUBLE, 0, 2, dbls[r]);
		wput(x, C_DBL, 3, fdef, &v);
		v = vals(PQ_INT64, 0, 3, u64s[r]);
		wput(x, C_U64, 3, NULL, &v);
		wend(x);
	}
	wclose(x);
}

static const want w_i32 = {"i", "INT32", "none", "REQUIRED", "9", "0", "-10", "100", NULL, NULL};
static const want w_u32 = {"u", "INT32", "INTEGER(32,false)", "REQUIRED", "9", "0", "1",
			   "4294967295", NULL, NULL};
static const want w_s = {"s", "BYTE_ARRAY", "STRING", "OPTIONAL", "9", "5", "Zebra",
			 "\xc3\xa9" "clair", NULL, NULL};
static const want w_dec = {"d", "INT64", "DECIMAL(18,2)", "REQUIRED", "9", "0", "-1.50", "9.99",
			   NULL, NULL};
static const want w_decba = {"b", "BYTE_ARRAY", "DECIMAL(10,1)", "REQUIRED", "9", "0", "-12.9",
			     "25.6", NULL, NULL};
static const want w_dbl = {"f", "DOUBLE", "none", "OPTIONAL", "9", "3", "-0.25", "3", NULL, NULL};
static const want w_u64 = {"w", "INT64", "INTEGER(64,false)", "REQUIRED", "9", "0", "1",
			   "18446744073709551615", NULL, NULL};

START_TEST(bounds_by_sort_order)
{
	wfile x;
	write_file(&x, _i ? PQ_CODEC_ZSTD : PQ_CODEC_UNCOMPRESSED);
	check_col(x.f, C_I32, &w_i32);
	check_col(x.f, C_U32, &w_u32);
	check_col(x.f, C_S, &w_s);
	check_col(x.f, C_DEC64, &w_dec);
	check_col(x.f, C_DECBA, &w_decba);
	check_col(x.f, C_DBL, &w_dbl);
	check_col(x.f, C_U64, &w_u64);
	pq_buf out = PQ_BUF_INIT;
	pq_error err = {0};
	ck_assert_int_eq(pq_text_column_summary(x.f, NCOLS, &out, &err), PQ_EINVAL);
	pq_buf_free(&out);
	wdone(&x);
}
END_TEST

/* ---- rewritten footers -------------------------------------------------------------------- */

typedef void (*edit_fn)(pq_file_meta_data *md);

/* Writes the file again with its footer decoded, edited and re-encoded,
 * and opens that. */
static pq_file *rewrite(wfile *x, edit_fn edit, char *path)
{
	pq_bytes fb = pq_file_footer_bytes(x->f);
	pq_arena a;
	pq_arena_init(&a, 1 << 16);
	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	size_t used;
	pq_error err = {0};
	ck_assert_msg(pq_thrift_decode(PQ_S_FILE_META_DATA, fb.p, fb.n, &md, &used, &a, &err) == PQ_OK,
		      "%s", err.msg);
	edit(&md);
	pq_buf nf = PQ_BUF_INIT;
	ck_assert_msg(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &nf, &err) == PQ_OK, "%s", err.msg);
	struct stat sb;
	ck_assert_int_eq(fstat(x->fd, &sb), 0);
	size_t body = (size_t)sb.st_size - 8 - fb.n;
	uint8_t *buf = malloc(body);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(x->fd, buf, body, 0), (ssize_t)body);
	int fd = tmpfile_fd(path);
	uint8_t tail[8] = {(uint8_t)nf.len, (uint8_t)(nf.len >> 8), (uint8_t)(nf.len >> 16),
			   (uint8_t)(nf.len >> 24), 'P', 'A', 'R', '1'};
	ck_assert_int_eq(write(fd, buf, body), (ssize_t)body);
	ck_assert_int_eq(write(fd, nf.p, nf.len), (ssize_t)nf.len);
	ck_assert_int_eq(write(fd, tail, 8), 8);
	free(buf);
	pq_buf_free(&nf);
	pq_arena_free(&a);
	pq_file *f;
	ck_assert_msg(pq_file_open_fd(fd, "rewritten.parquet", NULL, &f, &err) == PQ_OK, "%s",
		      err.msg);
	return f;
}

static pq_statistics *st(pq_file_meta_data *md, uint32_t rg, uint32_t col)
{
	return &md->row_groups.v[rg].columns.v[col].meta_data.statistics;
}

/* Row group 1 has no statistics for i and u; s keeps only the deprecated
 * min/max (not sorted by its order: ignored); d keeps only the deprecated
 * ones (signed INT64: usable). */
static void edit_missing(pq_file_meta_data *md)
{
	md->row_groups.v[1].columns.v[C_I32].meta_data.has_statistics = false;
	pq_statistics *s = st(md, 1, C_U32);
	s->has_min_value = s->has_max_value = false; /* null_count stays */
	for (uint32_t rg = 0; rg < 3; rg++) {
		pq_statistics *t = st(md, rg, C_S);
		t->has_min = t->has_min_value;
		t->min = t->min_value;
		t->has_max = t->has_max_value;
		t->max = t->max_value;
		t->has_min_value = t->has_max_value = false;
		t = st(md, rg, C_DEC64);
		t->has_min = t->has_max = true;
		t->min = t->min_value;
		t->max = t->max_value;
		t->has_min_value = t->has_max_value = false;
	}
}

/* Bounds marked inexact, distinct counts, no column_orders (min_value is
 * then still taken as the type's order), and the f column's row group 2
 * without a null count. */
static void edit_inexact(pq_file_meta_data *md)
{
	md->has_column_orders = false;
	pq_statistics *s = st(md, 1, C_I32); /* holds the min, -10 */
	s->has_is_min_value_exact = true;
	s->is_min_value_exact = false;
	s = st(md, 0, C_I32); /* max 7 is not the column's max: no effect */
	s->has_is_max_value_exact = true;
	s->is_max_value_exact = false;
	for (uint32_t rg = 0; rg < 3; rg++) {
		s = st(md, rg, C_DEC64);
		s->has_distinct_count = true;
		s->distinct_count = 3;
		s = st(md, rg, C_U32);
		s->has_distinct_count = true;
		s->distinct_count = rg == 1 ? 3 : 0;
	}
	st(md, 2, C_DBL)->has_null_count = false;
}

START_TEST(missing_and_legacy_bounds)
{
	wfile x;
	write_file(&x, PQ_CODEC_SNAPPY);
	char path[256];
	pq_file *f = rewrite(&x, edit_missing, path);
	want w = w_i32;
	w.min = w.max = w.null_count = "unknown";
	check_col(f, C_I32, &w);
	w = w_u32;
	w.min = w.max = "unknown";
	check_col(f, C_U32, &w);
	w = w_s;
	w.min = w.max = "unknown";
	check_col(f, C_S, &w);
	check_col(f, C_DEC64, &w_dec);
	check_col(f, C_DBL, &w_dbl);
	pq_file_free(f);
	unlink(path);

	f = rewrite(&x, edit_inexact, path);
	w = w_i32;
	w.exact = "false";
	check_col(f, C_I32, &w);
	w = w_dec;
	w.distinct = "between 3 and 9";
	check_col(f, C_DEC64, &w);
	w = w_u32;
	w.distinct = "3";
	check_col(f, C_U32, &w);
	w = w_dbl;
	w.null_count = "unknown";
	check_col(f, C_DBL, &w);
	check_col(f, C_S, &w_s);
	pq_file_free(f);
	unlink(path);
	wdone(&x);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stats");
	TCase *t = tcase_create("stats");
	tcase_add_loop_test(t, bounds_by_sort_order, 0, 2);
	tcase_add_test(t, missing_and_legacy_bounds);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
