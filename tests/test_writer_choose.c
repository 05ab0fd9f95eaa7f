#include "config.h"

/* The writer's choice of encoding by default (core/write/writer_choose.c):
 * the dictionary when it pays, else the smaller of PLAIN and
 * DELTA_BINARY_PACKED (INT32/INT64). Page sizes expected here are computed
 * by hand from Encodings.md (apache/parquet-format), not taken from the
 * writer's output; values are read back with the project's reader. */

#include "test_writer_helpers.h"

/* One REQUIRED column of type, n values, uncompressed v1 pages; the chunk's
 * layout is loaded into *l (free it, then wdone(x)). */
static const pq_file *write_one(wfile *x, int type, size_t n, void *values, uint64_t page_size,
				pq_chunk_layout **l)
{
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 1);
	prim(&e, "c", PQ_REQUIRED, type);
	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_UNCOMPRESSED;
	if (page_size)
		o.page_size = page_size;
	pq_values v = vals(type, 0, n, values); /* BYTE_ARRAY: values are pq_bytes */
	wopen(x, &e, &o);
	wput(x, 0, n, NULL, &v);
	const pq_file *f = wclose(x);
	expect_column(f, 0, n, NULL, &v);
	char *vt = verify(f);
	ck_assert_msg(ends_with(vt, "OK\n"), "%s", vt);
	free(vt);
	pq_error err;
	ck_assert_int_eq(pq_chunk_layout_load(f, 0, 0, l, &err), PQ_OK);
	return f;
}

/* Data pages of the chunk with value encoding enc. */
static int32_t pages_with(const pq_file *f, int enc)
{
	const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, 0);
	int32_t k = 0;
	for (uint32_t i = 0; i < m->encoding_stats.n; i++)
		if (m->encoding_stats.v[i].page_type != PQ_PAGE_DICTIONARY &&
		    m->encoding_stats.v[i].encoding == enc)
			k += m->encoding_stats.v[i].count;
	return k;
}

START_TEST(test_sorted_repeated_keys_take_delta)
{
	/* 0,0,0,0,1,1,1,1,...,1023 (lineitem's l_orderkey): deltas 0,0,0,1 ...
	 * DELTA_BINARY_PACKED (Encodings.md): header ULEB128 block size 128
	 * (2 bytes), miniblocks 4 (1), count 4096 (2), zigzag first value 0
	 * (1) = 6 bytes; 4095 deltas in 32 blocks (31 full, one of 127), each
	 * block: zigzag min delta 0 (1 byte), 4 bit widths (4), 4 miniblocks of
	 * 32 deltas at width 1 (every miniblock holds a 1) = 16: 21 bytes.
	 * 6 + 32 * 21 = 678. The dictionary (1024 entries, 8 KiB, plus 10-bit
	 * indices) and PLAIN (32 KiB) are larger: no dictionary page. */
	static int64_t v[4096];
	for (size_t k = 0; k < 4096; k++)
		v[k] = (int64_t)(k / 4);
	wfile x;
	pq_chunk_layout *l;
	const pq_file *f = write_one(&x, PQ_INT64, 4096, v, 0, &l);
	ck_assert_ptr_null(l->dict);
	ck_assert_uint_eq(l->num_pages, 1);
	ck_assert_int_eq(l->pages[0].header.data_page_header.encoding, PQ_ENC_DELTA_BINARY_PACKED);
	ck_assert_int_eq(l->pages[0].header.uncompressed_page_size, 678);
	ck_assert_int_eq(pages_with(f, PQ_ENC_DELTA_BINARY_PACKED), 1);
	pq_chunk_layout_free(l);
	wdone(&x);
}
END_TEST

START_TEST(test_few_values_keep_dictionary)
{
	/* 16 distinct INT32 values in no order: the dictionary page is 16
	 * PLAIN entries of 4 bytes = 64 bytes, the indices 4 bits a value;
	 * PLAIN would be 16 KiB and deltas (+7 / -9) need 5 bits. */
	static int32_t v[4096];
	for (size_t k = 0; k < 4096; k++)
		v[k] = (int32_t)((k * 7) % 16) + 100;
	wfile x;
	pq_chunk_layout *l;
	const pq_file *f = write_one(&x, PQ_INT32, 4096, v, 0, &l);
	ck_assert_ptr_nonnull(l->dict);
	ck_assert_int_eq(l->dict->header.dictionary_page_header.num_values, 16);
	ck_assert_int_eq(l->dict->header.uncompressed_page_size, 64);
	ck_assert_int_eq(pages_with(f, PQ_ENC_RLE_DICTIONARY), 1);
	pq_chunk_layout_free(l);
	wdone(&x);
}
END_TEST

START_TEST(test_distinct_values_take_plain)
{
	/* 4096 distinct values spread over all of int64: the dictionary costs
	 * PLAIN plus indices, deltas need 64 bits plus block headers; PLAIN is
	 * 8 bytes a value (Encodings.md): one page of 32768 bytes. */
	static int64_t v[4096];
	for (size_t k = 0; k < 4096; k++) {
		uint64_t z = (uint64_t)(k + 1) * 0x9E3779B97F4A7C15ull; /* splitmix64's mix */
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		v[k] = (int64_t)(z ^ (z >> 31));
	}
	wfile x;
	pq_chunk_layout *l;
	const pq_file *f = write_one(&x, PQ_INT64, 4096, v, 0, &l);
	ck_assert_ptr_null(l->dict);
	ck_assert_uint_eq(l->num_pages, 1);
	ck_assert_int_eq(l->pages[0].header.data_page_header.encoding, PQ_ENC_PLAIN);
	ck_assert_int_eq(l->pages[0].header.uncompressed_page_size, 32768);
	ck_assert_int_eq(pages_with(f, PQ_ENC_PLAIN), 1);
	pq_chunk_layout_free(l);
	wdone(&x);
}
END_TEST

START_TEST(test_small_chunk_keeps_dictionary)
{
	/* Below PQ_WRITER_CHOOSE_MIN (1024) values the dictionary is not
	 * weighed: 1000 sorted keys, 250 entries (250 * 8 bytes PLAIN). */
	static int64_t v[1000];
	for (size_t k = 0; k < 1000; k++)
		v[k] = (int64_t)(k / 4);
	wfile x;
	pq_chunk_layout *l;
	const pq_file *f = write_one(&x, PQ_INT64, 1000, v, 0, &l);
	ck_assert_ptr_nonnull(l->dict);
	ck_assert_int_eq(l->dict->header.dictionary_page_header.num_values, 250);
	ck_assert_int_eq(l->dict->header.uncompressed_page_size, 2000);
	ck_assert_int_eq(pages_with(f, PQ_ENC_RLE_DICTIONARY), 1);
	pq_chunk_layout_free(l);
	wdone(&x);
}
END_TEST

START_TEST(test_fallback_after_dictionary_takes_plain)
{
	/* 200,000 values of 16 distinct ones (the dictionary pays on the first
	 * 64 KiB page), then 140,000 increasing distinct ones: the dictionary
	 * passes 1 MiB (131,072 entries of 8 bytes) and the rest of the chunk
	 * goes without it, as PLAIN (interface.md, "Writer options": dictionary
	 * encoding falls back to PLAIN), although DELTA_BINARY_PACKED would be
	 * smaller here. */
	size_t n = 340000;
	int64_t *v = malloc(n * sizeof *v);
	ck_assert_ptr_nonnull(v);
	for (size_t k = 0; k < n; k++)
		v[k] = k < 200000 ? (int64_t)((k * 7) % 16) : (int64_t)k;
	wfile x;
	pq_chunk_layout *l;
	const pq_file *f = write_one(&x, PQ_INT64, n, v, 64 * 1024, &l);
	ck_assert_ptr_nonnull(l->dict);
	ck_assert_int_eq(l->dict->header.dictionary_page_header.num_values, 16 + 131057);
	ck_assert_int_ge(pages_with(f, PQ_ENC_RLE_DICTIONARY), 1);
	ck_assert_int_ge(pages_with(f, PQ_ENC_PLAIN), 1);
	ck_assert_int_eq(pages_with(f, PQ_ENC_DELTA_BINARY_PACKED), 0);
	pq_chunk_layout_free(l);
	wdone(&x);
	free(v);
}
END_TEST

START_TEST(test_long_distinct_strings_fall_back_to_plain)
{
	/* 600 distinct strings of 2000 bytes: the dictionary passes 1 MiB with
	 * its 524th entry (524 * (4 + 2000) > 2^20). Strings are never weighed:
	 * the first page goes through the dictionary, whose page holds the 524
	 * entries as PLAIN BYTE_ARRAY (a 4-byte length and the bytes: 524 *
	 * 2004 = 1,050,096 bytes), and the rest falls back to PLAIN (76 * 2004
	 * = 152,304 bytes), as the contract says. */
	size_t n = 600, len = 2000;
	char *text = malloc(n * len);
	pq_bytes *views = malloc(n * sizeof *views);
	ck_assert(text && views);
	for (size_t k = 0; k < n; k++) {
		memset(text + k * len, 'a' + (int)(k % 26), len);
		snprintf(text + k * len, 16, "%09zu", k);
		views[k] = (pq_bytes){(const uint8_t *)text + k * len, len};
	}
	wfile x;
	pq_chunk_layout *l;
	const pq_file *f = write_one(&x, PQ_BYTE_ARRAY, n, views, 0, &l);
	ck_assert_ptr_nonnull(l->dict);
	ck_assert_int_eq(l->dict->header.dictionary_page_header.num_values, 524);
	ck_assert_int_eq(l->dict->header.uncompressed_page_size, 1050096);
	ck_assert_uint_eq(l->num_pages, 2);
	ck_assert_int_eq(l->pages[0].header.data_page_header.encoding, PQ_ENC_RLE_DICTIONARY);
	ck_assert_int_eq(l->pages[1].header.data_page_header.encoding, PQ_ENC_PLAIN);
	ck_assert_int_eq(l->pages[1].header.uncompressed_page_size, 152304);
	ck_assert_int_eq(pages_with(f, PQ_ENC_PLAIN), 1);
	pq_chunk_layout_free(l);
	wdone(&x);
	free(text);
	free(views);
}
END_TEST

START_TEST(test_explicit_choices_untouched)
{
	/* dictionary=off keeps PLAIN even where DELTA_BINARY_PACKED is far
	 * smaller (the sorted keys above): 4096 * 8 bytes. */
	static int64_t v[4096];
	for (size_t k = 0; k < 4096; k++)
		v[k] = (int64_t)(k / 4);
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 1);
	prim(&e, "c", PQ_REQUIRED, PQ_INT64);
	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.dictionary = false;
	pq_values pv = vals(PQ_INT64, 0, 4096, v);
	wfile x;
	wopen(&x, &e, &o);
	wput(&x, 0, 4096, NULL, &pv);
	const pq_file *f = wclose(&x);
	expect_column(f, 0, 4096, NULL, &pv);
	pq_chunk_layout *l;
	pq_error err;
	ck_assert_int_eq(pq_chunk_layout_load(f, 0, 0, &l, &err), PQ_OK);
	ck_assert_ptr_null(l->dict);
	ck_assert_int_eq(l->pages[0].header.data_page_header.encoding, PQ_ENC_PLAIN);
	ck_assert_int_eq(l->pages[0].header.uncompressed_page_size, 32768);
	pq_chunk_layout_free(l);
	wdone(&x);
}
END_TEST

static Suite *choose_suite(void)
{
	Suite *s = suite_create("writer_choose");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sorted_repeated_keys_take_delta);
	tcase_add_test(tc, test_few_values_keep_dictionary);
	tcase_add_test(tc, test_distinct_values_take_plain);
	tcase_add_test(tc, test_small_chunk_keeps_dictionary);
	tcase_add_test(tc, test_fallback_after_dictionary_takes_plain);
	tcase_add_test(tc, test_long_distinct_strings_fall_back_to_plain);
	tcase_add_test(tc, test_explicit_choices_untouched);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(choose_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
