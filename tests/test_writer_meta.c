#include "config.h"

/* The writer's metadata, hand-computed: statistics bounds as PLAIN bytes
 * per column order (NaN, zeros, unsigned, DECIMAL, truncation), exactness,
 * SizeStatistics, ColumnIndex / OffsetIndex entries and boundary orders,
 * and the options and inputs the writer refuses. */

#include <math.h>

#include "test_writer_helpers.h"

/* ---- statistics, hand-computed -------------------------------------------- */

static const pq_statistics *chunk_stats(const pq_file *f, uint32_t col)
{
	const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, col);
	ck_assert(m->has_statistics);
	return &m->statistics;
}

static void expect_bytes(pq_bytes b, const void *want, size_t n)
{
	ck_assert_uint_eq(b.n, n);
	ck_assert(n == 0 || memcmp(b.p, want, n) == 0);
}

START_TEST(test_statistics_values)
{
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 9);
	prim(&e, "i", PQ_OPTIONAL, PQ_INT32);
	conv(prim(&e, "u", PQ_OPTIONAL, PQ_INT32), PQ_CT_UINT_32);
	prim(&e, "f", PQ_OPTIONAL, PQ_FLOAT);
	prim(&e, "d", PQ_OPTIONAL, PQ_DOUBLE);
	prim(&e, "nan", PQ_OPTIONAL, PQ_DOUBLE);
	conv(prim(&e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8);
	pq_schema_element *x = conv(prim(&e, "dec", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_DECIMAL);
	x->has_scale = x->has_precision = true;
	x->scale = 0;
	x->precision = 10;
	prim(&e, "b", PQ_OPTIONAL, PQ_BOOLEAN);
	prim(&e, "l", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_write_options o;
	pq_write_options_init(&o);
	wfile w;
	wopen(&w, &e, &o);
	uint8_t def[5] = {1, 0, 1, 1, 1};
	int32_t iv[4] = {5, -3, 7, 0};
	pq_values v = vals(PQ_INT32, 0, 4, iv);
	wput(&w, 0, 5, def, &v);
	int32_t uv[4] = {1, -1, 2, 0x7fffffff}; /* -1 is 4294967295 unsigned */
	v = vals(PQ_INT32, 0, 4, uv);
	wput(&w, 1, 5, def, &v);
	float fv[4] = {NAN, 0.0f, 2.5f, -0.0f};
	v = vals(PQ_FLOAT, 0, 4, fv);
	wput(&w, 2, 5, def, &v);
	double dv[4] = {0.0, -0.0, 0.0, 0.0};
	v = vals(PQ_DOUBLE, 0, 4, dv);
	wput(&w, 3, 5, def, &v);
	double nv[4] = {NAN, NAN, NAN, NAN};
	v = vals(PQ_DOUBLE, 0, 4, nv);
	wput(&w, 4, 5, def, &v);
	pq_bytes sv[4] = {{(const uint8_t *)"b", 1}, {(const uint8_t *)"a", 1},
			  {(const uint8_t *)"\xc3\xa9", 2}, {(const uint8_t *)"ab", 2}};
	v = vals(PQ_BYTE_ARRAY, 0, 4, sv);
	wput(&w, 5, 5, def, &v);
	/* 255, -256, 1, -1 as minimal big-endian two's complement. */
	pq_bytes dec[4] = {{(const uint8_t *)"\x00\xff", 2}, {(const uint8_t *)"\xff\x00", 2},
			   {(const uint8_t *)"\x01", 1}, {(const uint8_t *)"\xff", 1}};
	v = vals(PQ_BYTE_ARRAY, 0, 4, dec);
	wput(&w, 6, 5, def, &v);
	uint8_t bv[4] = {1, 1, 1, 1};
	v = vals(PQ_BOOLEAN, 0, 4, bv);
	wput(&w, 7, 5, def, &v);
	/* Values longer than the 1024-byte bound are truncated. */
	static uint8_t big1[2000], big2[2000];
	memset(big1, 'a', sizeof big1);
	memset(big2, 'b', sizeof big2);
	big2[1023] = 0xff;
	pq_bytes lv[4] = {{big1, 2000}, {big2, 2000}, {big1, 5}, {big1, 1500}};
	v = vals(PQ_BYTE_ARRAY, 0, 4, lv);
	wput(&w, 8, 5, def, &v);
	const pq_file *f = wclose(&w);

	const pq_statistics *s = chunk_stats(f, 0);
	int32_t lo = -3, hi = 7;
	ck_assert(s->has_null_count && s->null_count == 1);
	expect_bytes(s->min_value, "\xfd\xff\xff\xff", 4);
	expect_bytes(s->max_value, &hi, 4);
	ck_assert(s->has_is_min_value_exact && s->is_min_value_exact && s->is_max_value_exact);
	ck_assert(s->has_min && s->has_max); /* signed order: deprecated fields too */
	expect_bytes(s->min, &lo, 4);

	s = chunk_stats(f, 1);
	expect_bytes(s->min_value, "\x01\x00\x00\x00", 4);
	expect_bytes(s->max_value, "\xff\xff\xff\xff", 4);
	ck_assert(!s->has_min && !s->has_max); /* unsigned: no deprecated fields */

	s = chunk_stats(f, 2); /* NaN skipped, zero min is -0.0 */
	expect_bytes(s->min_value, "\x00\x00\x00\x80", 4);
	expect_bytes(s->max_value, "\x00\x00\x20\x40", 4);

	s = chunk_stats(f, 3); /* only zeros: -0.0 .. +0.0 */
	expect_bytes(s->min_value, "\x00\x00\x00\x00\x00\x00\x00\x80", 8);
	expect_bytes(s->max_value, "\x00\x00\x00\x00\x00\x00\x00\x00", 8);

	s = chunk_stats(f, 4); /* only NaNs: no bounds at all */
	ck_assert(!s->has_min_value && !s->has_max_value && !s->has_min && !s->has_max);
	ck_assert_int_eq(s->null_count, 1);

	s = chunk_stats(f, 5); /* unsigned bytes: "a" < "ab" < "b" < "é" */
	expect_bytes(s->min_value, "a", 1);
	expect_bytes(s->max_value, "\xc3\xa9", 2);
	ck_assert(!s->has_min && !s->has_max);

	s = chunk_stats(f, 6); /* numeric: -256 .. 255 */
	expect_bytes(s->min_value, "\xff\x00", 2);
	expect_bytes(s->max_value, "\x00\xff", 2);

	s = chunk_stats(f, 7);
	expect_bytes(s->min_value, "\x01", 1);
	expect_bytes(s->max_value, "\x01", 1);

	s = chunk_stats(f, 8); /* min: a 1024-byte prefix of "aaaaa"? no: "aaaaa" is the min */
	expect_bytes(s->min_value, big1, 5);
	ck_assert(s->is_min_value_exact);
	/* max "bbb...\xff..." truncated: 1023 'b' then \xff dropped and the last
	 * 'b' incremented: 1022 'b' + 'c', inexact. */
	ck_assert_uint_eq(s->max_value.n, 1023);
	ck_assert(memcmp(s->max_value.p, big2, 1022) == 0 && s->max_value.p[1022] == 'c');
	ck_assert(!s->is_max_value_exact);

	/* SizeStatistics: 1 NULL and 4 values; unencoded bytes of "s": 1+1+2+2. */
	const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, 5);
	ck_assert(m->has_size_statistics);
	ck_assert_int_eq(m->size_statistics.unencoded_byte_array_data_bytes, 6);
	ck_assert_uint_eq(m->size_statistics.definition_level_histogram.n, 2);
	ck_assert_int_eq(m->size_statistics.definition_level_histogram.v[0], 1);
	ck_assert_int_eq(m->size_statistics.definition_level_histogram.v[1], 4);
	wdone(&w);
}
END_TEST

START_TEST(test_statistics_fixed_not_truncated)
{
	/* FIXED_LEN_BYTE_ARRAY bounds keep the type's width, however long. */
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 1);
	pq_schema_element *x = prim(&e, "x", PQ_REQUIRED, PQ_FIXED_LEN_BYTE_ARRAY);
	x->has_type_length = true;
	x->type_length = 1500;
	static uint8_t v2[3000];
	memset(v2, 'q', 1500);
	memset(v2 + 1500, 'p', 1500);
	wfile w;
	wopen(&w, &e, NULL);
	pq_values v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 1500, 2, v2);
	wput(&w, 0, 2, NULL, &v);
	const pq_file *f = wclose(&w);
	const pq_statistics *s = chunk_stats(f, 0);
	expect_bytes(s->min_value, v2 + 1500, 1500);
	expect_bytes(s->max_value, v2, 1500);
	ck_assert(s->is_min_value_exact && s->is_max_value_exact);
	wdone(&w);
}
END_TEST

START_TEST(test_statistics_float16)
{
	/* Half precision, little-endian: NaN 0x7e00 skipped, -2.0 = 0xc000,
	 * 1.0 = 0x3c00, -0.0 = 0x8000; a zeros-only column is -0.0 .. +0.0. */
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 2);
	for (int i = 0; i < 2; i++) {
		pq_schema_element *x = prim(&e, i ? "z" : "h", PQ_REQUIRED, PQ_FIXED_LEN_BYTE_ARRAY);
		x->has_type_length = true;
		x->type_length = 2;
		x->has_logicalType = x->logicalType.has_FLOAT16 = true;
	}
	uint8_t h[8] = {0x00, 0x7e, 0x00, 0x3c, 0x00, 0x80, 0x00, 0xc0};
	uint8_t z[8] = {0x00, 0x00, 0x00, 0x80, 0x00, 0x80, 0x00, 0x00};
	wfile w;
	wopen(&w, &e, NULL);
	pq_values v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 2, 4, h);
	wput(&w, 0, 4, NULL, &v);
	v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 2, 4, z);
	wput(&w, 1, 4, NULL, &v);
	const pq_file *f = wclose(&w);
	const pq_statistics *s = chunk_stats(f, 0);
	expect_bytes(s->min_value, "\x00\xc0", 2);
	expect_bytes(s->max_value, "\x00\x3c", 2);
	s = chunk_stats(f, 1);
	expect_bytes(s->min_value, "\x00\x80", 2);
	expect_bytes(s->max_value, "\x00\x00", 2);
	wdone(&w);
}
END_TEST

/* ---- page indexes ---------------------------------------------------------- */

static void read_struct(const pq_file *f, pq_struct_kind kind, int64_t off, int32_t len, void *out,
			pq_arena *a, uint8_t **buf)
{
	pq_error err;
	ck_assert_int_gt(len, 0);
	*buf = malloc((size_t)len);
	ck_assert_int_eq(pq_file_pread(f, *buf, (size_t)len, (uint64_t)off, &err), PQ_OK);
	size_t used;
	ck_assert_msg(pq_thrift_decode(kind, *buf, (size_t)len, out, &used, a, &err) == PQ_OK, "%s",
		      err.msg);
	ck_assert_uint_eq(used, (size_t)len);
}

START_TEST(test_page_indexes)
{
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 1);
	prim(&e, "x", PQ_OPTIONAL, PQ_INT64);
	pq_write_options o;
	pq_write_options_init(&o);
	o.dictionary = false;
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.page_size = 800; /* 100 values a page */
	/* rows 0..299: values 10*r ascending, then 7000 NULLs. */
	enum { N = 7300 };
	int64_t xs[300];
	static uint8_t def[N];
	for (int r = 0; r < N; r++)
		def[r] = r < 300;
	for (int r = 0; r < 300; r++)
		xs[r] = 10 * r;
	pq_values v = vals(PQ_INT64, 0, 300, xs);
	wfile w;
	wopen(&w, &e, &o);
	wput(&w, 0, N, def, &v);
	const pq_file *f = wclose(&w);
	const pq_column_chunk *cc = pq_file_chunk(f, 0, 0);
	ck_assert(cc->has_column_index_offset && cc->has_offset_index_offset);
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_column_index ci;
	pq_offset_index oi;
	memset(&ci, 0, sizeof ci);
	memset(&oi, 0, sizeof oi);
	uint8_t *b1, *b2;
	read_struct(f, PQ_S_COLUMN_INDEX, cc->column_index_offset, cc->column_index_length, &ci, &a, &b1);
	read_struct(f, PQ_S_OFFSET_INDEX, cc->offset_index_offset, cc->offset_index_length, &oi, &a, &b2);
	/* The size estimate is 8 bytes a value plus one bit a level: a page
	 * ends at the slot where 8 * values + slots / 8 >= 800. With a value in
	 * every slot that is slot 99 (792 + 12); the page from row 297 holds 3
	 * values, so it ends after 6208 slots (24 + 776), at row 6504; the rest
	 * (795 NULLs) is a null page. */
	ck_assert_uint_eq(ci.null_pages.n, oi.page_locations.n);
	uint32_t np = ci.null_pages.n;
	ck_assert_uint_eq(np, 5);
	int64_t want_first[5] = {0, 99, 198, 297, 6505};
	for (uint32_t i = 0; i < np; i++)
		ck_assert_int_eq(oi.page_locations.v[i].first_row_index, want_first[i]);
	ck_assert(!ci.null_pages.v[0] && !ci.null_pages.v[3] && ci.null_pages.v[4]);
	int64_t mn, mx;
	memcpy(&mn, ci.min_values.v[1].p, 8);
	memcpy(&mx, ci.max_values.v[1].p, 8);
	ck_assert_int_eq(mn, 990);
	ck_assert_int_eq(mx, 1970);
	memcpy(&mx, ci.max_values.v[3].p, 8); /* rows 297..299, then NULLs */
	ck_assert_int_eq(mx, 2990);
	ck_assert_uint_eq(ci.min_values.v[4].n, 0);
	ck_assert_int_eq(ci.boundary_order, PQ_ASCENDING);
	ck_assert(ci.has_null_counts);
	ck_assert_int_eq(ci.null_counts.v[0], 0);
	ck_assert_int_eq(ci.null_counts.v[3], 6205);
	ck_assert_int_eq(ci.null_counts.v[4], 795);
	ck_assert(ci.has_definition_level_histograms);
	ck_assert_int_eq(ci.definition_level_histograms.v[6], 6205);
	ck_assert_int_eq(ci.definition_level_histograms.v[7], 3);
	ck_assert_int_eq(ci.definition_level_histograms.v[8], 795);
	ck_assert_int_eq(ci.definition_level_histograms.v[9], 0);
	/* Page locations: the first at data_page_offset, back to back. */
	ck_assert_int_eq(oi.page_locations.v[0].offset, pq_file_chunk_meta(f, 0, 0)->data_page_offset);
	for (uint32_t i = 1; i < np; i++)
		ck_assert_int_eq(oi.page_locations.v[i].offset,
				 oi.page_locations.v[i - 1].offset + oi.page_locations.v[i - 1].compressed_page_size);
	free(b1);
	free(b2);
	pq_arena_free(&a);
	wdone(&w);
}
END_TEST

START_TEST(test_boundary_order_descending_unordered)
{
	for (int kind = 0; kind < 2; kind++) {
		els e;
		e.n = 0;
		grp(&e, "schema", -1, 1);
		conv(prim(&e, "s", PQ_REQUIRED, PQ_BYTE_ARRAY), PQ_CT_UTF8);
		pq_write_options o;
		pq_write_options_init(&o);
		o.dictionary = false;
		o.page_size = 10; /* 4 + length a value: a page every 2 values */
		static const char *const desc[] = {"z9", "z8", "y", "x", "m", "b", "a", "a"};
		static const char *const mixed[] = {"m", "m", "a", "b", "z", "z", "c", "d"};
		const char *const *src = kind ? mixed : desc;
		pq_bytes sv[8];
		for (int i = 0; i < 8; i++)
			sv[i] = (pq_bytes){(const uint8_t *)src[i], strlen(src[i])};
		wfile w;
		wopen(&w, &e, &o);
		pq_values v = vals(PQ_BYTE_ARRAY, 0, 8, sv);
		v.v.ba = sv;
		wput(&w, 0, 8, NULL, &v);
		const pq_file *f = wclose(&w);
		const pq_column_chunk *cc = pq_file_chunk(f, 0, 0);
		pq_arena a;
		pq_arena_init(&a, 0);
		pq_column_index ci;
		memset(&ci, 0, sizeof ci);
		uint8_t *buf;
		read_struct(f, PQ_S_COLUMN_INDEX, cc->column_index_offset, cc->column_index_length, &ci,
			    &a, &buf);
		ck_assert_int_eq(ci.boundary_order, kind ? PQ_UNORDERED : PQ_DESCENDING);
		free(buf);
		pq_arena_free(&a);
		wdone(&w);
	}
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

START_TEST(test_refusals)
{
	pq_error err;
	pq_writer *w = NULL;
	char path[256];
	int fd = tmpfile_fd(path);
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 2);
	prim(&e, "a", PQ_REQUIRED, PQ_INT32);
	prim(&e, "b", PQ_OPTIONAL, PQ_INT64);
	pq_write_options o;

	pq_write_options_init(&o);
	pq_column_encoding bad = {"a", PQ_ENC_DELTA_LENGTH_BYTE_ARRAY};
	o.column_encodings = &bad;
	o.n_column_encodings = 1;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	ck_assert_msg(strstr(err.msg, "column a") && strstr(err.msg, "DELTA_LENGTH_BYTE_ARRAY"), "%s", err.msg);

	els be;
	be.n = 0;
	grp(&be, "schema", -1, 1);
	prim(&be, "flag", PQ_OPTIONAL, PQ_BOOLEAN);
	pq_column_encoding bdict = {"flag", PQ_ENC_RLE_DICTIONARY};
	o.column_encodings = &bdict;
	ck_assert_int_eq(pq_writer_open(&w, fd, be.v, be.n, &o, NULL, 0, &err), PQ_EINVAL);
	ck_assert_msg(strstr(err.msg, "column flag"), "%s", err.msg);

	pq_write_options_init(&o);
	const char *bloom[] = {"nope", NULL};
	o.bloom_columns = bloom;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	ck_assert_msg(strstr(err.msg, "nope"), "%s", err.msg);

	pq_write_options_init(&o);
	o.codec = PQ_CODEC_LZO;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_GZIP;
	o.has_compression_level = true;
	o.compression_level = 10;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	pq_write_options_init(&o);
	o.data_page_version = 3;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	pq_write_options_init(&o);
	/* encryption is supported (tests/test_writer_crypt.c); a key that is
	 * no AES key is refused */
	static const unsigned char key[16];
	o.footer_key = key;
	o.footer_key_len = 15;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);

	/* An unwritable file: the magic cannot be written. */
	ck_assert_int_eq(pq_writer_open(&w, -1, e.v, e.n, NULL, NULL, 0, &err), PQ_EIO);
	ck_assert_msg(strstr(err.msg, "write at offset 0"), "%s", err.msg);
	ck_assert_ptr_null(w);

	els nested;
	nested.n = 0;
	grp(&nested, "schema", -1, 1);
	grp(&nested, "g", PQ_OPTIONAL, 1);
	prim(&nested, "x", PQ_OPTIONAL, PQ_INT32);
	ck_assert_int_eq(pq_writer_open(&w, fd, nested.v, nested.n, NULL, NULL, 0, &err),
			 PQ_EUNSUPPORTED);
	ck_assert_ptr_null(w);

	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, NULL, NULL, 0, &err), PQ_OK);
	int32_t a[3] = {1, 2, 3};
	int64_t b[3] = {1, 2, 3};
	pq_values va = vals(PQ_INT32, 0, 3, a), vb = vals(PQ_INT64, 0, 3, b);
	ck_assert_int_eq(pq_writer_write(w, 0, 3, NULL, &vb, &err), PQ_EINVAL); /* wrong type */
	ck_assert_msg(strstr(err.msg, "column a"), "%s", err.msg);
	pq_writer_free(w);

	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, NULL, NULL, 0, &err), PQ_OK);
	uint8_t nulls[3] = {1, 0, 1};
	ck_assert_int_eq(pq_writer_write(w, 0, 3, nulls, &va, &err), PQ_EINVAL); /* NULL in REQUIRED */
	pq_writer_free(w);

	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, NULL, NULL, 0, &err), PQ_OK);
	ck_assert_int_eq(pq_writer_write(w, 1, 3, nulls, &vb, &err), PQ_EINVAL); /* 2 present, 3 given */
	ck_assert_int_eq(pq_writer_write(w, 1, 3, NULL, &vb, &err), PQ_EINVAL); /* failed writer */
	pq_writer_free(w);

	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, NULL, NULL, 0, &err), PQ_OK);
	ck_assert_int_eq(pq_writer_write(w, 0, 3, NULL, &va, &err), PQ_OK);
	ck_assert_int_eq(pq_writer_write(w, 1, 2, NULL, &(pq_values){PQ_INT64, 0, 2, {.i64 = b}}, &err), PQ_OK);
	ck_assert_int_eq(pq_writer_end_row_group(w, &err), PQ_EINVAL); /* 3 rows vs 2 */
	ck_assert_msg(strstr(err.msg, "column 1 has 2 rows"), "%s", err.msg);
	ck_assert_int_eq(pq_writer_write(w, 2, 1, NULL, &va, &err), PQ_EINVAL);
	pq_writer_free(w);
	close(fd);
	unlink(path);
}
END_TEST


static Suite *writer_meta_suite(void)
{
	Suite *s = suite_create("writer_meta");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_statistics_values);
	tcase_add_test(tc, test_statistics_fixed_not_truncated);
	tcase_add_test(tc, test_statistics_float16);
	tcase_add_test(tc, test_page_indexes);
	tcase_add_test(tc, test_boundary_order_descending_unordered);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(writer_meta_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
