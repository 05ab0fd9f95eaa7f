/* The one mapping of the writer options (codec=, compression_level=,
 * row_group_rows=, page_size=, data_page_version=, dictionary=,
 * page_index=, crc=, bloom_filter=, bloom_fpp=) to pq_write_options,
 * src/options_writer.c, shared by the mount's staging/ and
 * parquetfs-convert: defaults are pq_write_options_init's, values map as
 * interface.md says, bad values are refused with their message. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pfs_options.h"
#include "pq_metadata.h"

static char msg[512];

static bool check(pfs_options *o)
{
	msg[0] = '\0';
	return pfs_options_check_writer(o, msg, sizeof msg);
}

START_TEST(test_defaults_are_the_core_defaults)
{
	pfs_options o;
	pfs_options_init(&o);
	ck_assert(check(&o));
	pq_write_options d;
	pq_write_options_init(&d);
	ck_assert_int_eq(o.write.codec, d.codec);
	ck_assert_int_eq(o.write.codec, PQ_CODEC_ZSTD);
	ck_assert(!o.write.has_compression_level);
	ck_assert_uint_eq(o.write.row_group_rows, d.row_group_rows);
	ck_assert_uint_eq(o.write.row_group_rows, 1048576);
	ck_assert_uint_eq(o.write.page_size, d.page_size);
	ck_assert_uint_eq(o.write.page_size, 1u << 20);
	ck_assert_int_eq(o.write.data_page_version, 1);
	ck_assert(o.write.dictionary && o.write.page_index && o.write.crc);
	ck_assert(o.write.bloom_fpp == 0.01);
	ck_assert_ptr_null(o.write.bloom_columns);
	ck_assert_ptr_null(o.write.footer_key);
	pfs_options_free(&o);
}
END_TEST

START_TEST(test_values_map)
{
	pfs_options o;
	pfs_options_init(&o);
	o.codec_s = strdup("GZIP");
	o.compression_level_s = strdup("9");
	o.row_group_rows_s = strdup("10k");
	o.page_size_s = strdup("64KiB");
	o.data_page_version_s = strdup("2");
	o.dictionary_s = strdup("off");
	o.page_index_s = strdup("no");
	o.crc_s = strdup("FALSE");
	o.bloom_filter = strdup("a;b.c;d:e");
	o.bloom_fpp_s = strdup("0.001");
	ck_assert(check(&o));
	ck_assert_int_eq(o.write.codec, PQ_CODEC_GZIP);
	ck_assert(o.write.has_compression_level);
	ck_assert_int_eq(o.write.compression_level, 9);
	ck_assert_uint_eq(o.write.row_group_rows, 10240);
	ck_assert_uint_eq(o.write.page_size, 65536);
	ck_assert_int_eq(o.write.data_page_version, 2);
	ck_assert(!o.write.dictionary && !o.write.page_index && !o.write.crc);
	ck_assert(o.write.bloom_fpp == 0.001);
	const char *const *b = o.write.bloom_columns;
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b[0], "a");
	ck_assert_str_eq(b[1], "b.c");
	ck_assert_str_eq(b[2], "d:e");
	ck_assert_ptr_null(b[3]);
	/* checking again gives the same (the list is rebuilt, not leaked) */
	ck_assert(check(&o));
	ck_assert_str_eq(o.write.bloom_columns[2], "d:e");
	pfs_options_free(&o);
	ck_assert_ptr_null(o.write.bloom_columns);
	/* one column; the default codec's levels */
	pfs_options_init(&o);
	o.bloom_filter = strdup("x");
	o.compression_level_s = strdup("22");
	ck_assert(check(&o));
	ck_assert_str_eq(o.write.bloom_columns[0], "x");
	ck_assert_ptr_null(o.write.bloom_columns[1]);
	ck_assert_int_eq(o.write.compression_level, 22);
	pfs_options_free(&o);
}
END_TEST

static void refused(const char *name, const char *value, const char *want)
{
	pfs_options o;
	pfs_options_init(&o);
	char **field = !strcmp(name, "codec") ? &o.codec_s
		       : !strcmp(name, "compression_level") ? &o.compression_level_s
		       : !strcmp(name, "row_group_rows") ? &o.row_group_rows_s
		       : !strcmp(name, "page_size") ? &o.page_size_s
		       : !strcmp(name, "data_page_version") ? &o.data_page_version_s
		       : !strcmp(name, "crc") ? &o.crc_s
		       : !strcmp(name, "bloom_filter") ? &o.bloom_filter
		       : !strcmp(name, "delimiter") ? &o.delimiter_s
		       : !strcmp(name, "replace") ? &o.replace_s
		       : &o.bloom_fpp_s;
	*field = strdup(value);
	ck_assert_msg(!check(&o), "%s=%s accepted", name, value);
	ck_assert_msg(strstr(msg, want), "%s=%s: %s", name, value, msg);
	pfs_options_free(&o);
}

/* delimiter= and replace= (issue 14): the words and characters, an empty
 * value is a comma (what `-o delimiter=,` leaves after the split). */
START_TEST(test_delimiter_replace)
{
	static const struct {
		const char *v;
		uint8_t c;
	} d[] = {{",", ','}, {";", ';'}, {"|", '|'}, {"tab", '\t'}, {"TAB", '\t'},
		 {"", ','}, {"semicolon", ';'}, {"pipe", '|'}, {"comma", ','}};
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
		pfs_options o;
		pfs_options_init(&o);
		o.delimiter_s = strdup(d[i].v);
		ck_assert_msg(check(&o), "delimiter=%s: %s", d[i].v, msg);
		ck_assert_int_eq(o.delimiter, d[i].c);
		pfs_options_free(&o);
	}
	pfs_options o;
	pfs_options_init(&o);
	ck_assert(check(&o));
	ck_assert_int_eq(o.delimiter, 0); /* detected */
	ck_assert(!o.no_replace);         /* replaced by default */
	o.replace_s = strdup("no");
	ck_assert(check(&o));
	ck_assert(o.no_replace);
	pfs_options_free(&o);
}
END_TEST

START_TEST(test_bad_values_refused)
{
	refused("codec", "lzo", "codec=lzo: expected uncompressed, snappy");
	refused("compression_level", "23", "compression_level=23: zstd takes 1 to 22");
	refused("row_group_rows", "0", "row_group_rows=0: expected a positive number");
	refused("page_size", "2G", "page_size=2G: expected a size from 1 to 1G");
	refused("data_page_version", "3", "data_page_version=3: expected 1 or 2");
	refused("crc", "maybe", "crc=maybe: expected on or off");
	refused("bloom_filter", "a;;b", "bloom_filter=a;;b: expected COLUMN");
	refused("bloom_fpp", "1", "bloom_fpp=1: expected a probability");
	refused("delimiter", ":", "delimiter=:: expected , ; | or tab");
	refused("delimiter", ",,", "delimiter=,,: expected , ; | or tab");
	refused("replace", "maybe", "replace=maybe: expected yes or no");
	pfs_options o;
	pfs_options_init(&o);
	o.codec_s = strdup("snappy");
	o.compression_level_s = strdup("1");
	ck_assert(!check(&o));
	ck_assert_str_eq(msg, "compression_level=1: codec snappy has no levels");
	pfs_options_free(&o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("options_writer");
	TCase *tc = tcase_create("options_writer");
	tcase_add_test(tc, test_defaults_are_the_core_defaults);
	tcase_add_test(tc, test_values_map);
	tcase_add_test(tc, test_bad_values_refused);
	tcase_add_test(tc, test_delimiter_replace);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
