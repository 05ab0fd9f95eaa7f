/* The page budget (pq_file_set_page_budget): a page whose stored body and
 * uncompressed bytes exceed it fails with PQ_ELIMIT and a message naming
 * the bytes it needs; at that many bytes it decodes. (The daemon sets the
 * budget to cache_size: interface.md, a page larger than cache_size fails
 * its reads with EIO and names the size it needs.) */
#include "config.h"

#include <errno.h>

#include "test_writer_helpers.h"

START_TEST(test_page_budget)
{
	for (int zstd = 0; zstd <= 1; zstd++) {
		els e = {.n = 0};
		grp(&e, "m", -1, 1);
		prim(&e, "x", PQ_REQUIRED, PQ_INT64);
		pq_write_options o;
		pq_write_options_init(&o);
		o.codec = zstd ? PQ_CODEC_ZSTD : PQ_CODEC_UNCOMPRESSED;
		o.dictionary = false;
		o.page_size = 1 << 20;
		static int64_t v[4096];
		for (size_t i = 0; i < 4096; i++)
			v[i] = (int64_t)(i * 2654435761u);
		wfile x;
		wopen(&x, &e, &o);
		pq_values pv = vals(PQ_INT64, 0, 4096, v);
		wput(&x, 0, 4096, NULL, &pv);
		wend(&x);
		pq_file *f = (pq_file *)wclose(&x);
		pq_buf out = PQ_BUF_INIT;
		pq_error err;
		pq_error_clear(&err);
		ck_assert_int_eq(pq_dump_column(f, 0, 0, false, &out, &err), PQ_OK);
		pq_file_set_page_budget(f, 1000);
		out.len = 0;
		ck_assert_int_eq(pq_dump_column(f, 0, 0, false, &out, &err), PQ_ELIMIT);
		/* "the page needs N bytes of memory (...)": N is what suffices */
		const char *p = strstr(err.msg, "the page needs ");
		ck_assert_msg(p, "%s", err.msg);
		unsigned long long need = strtoull(p + strlen("the page needs "), NULL, 10);
		ck_assert_uint_ge(need, 32768); /* 4096 x 8 bytes */
		ck_assert_int_eq(pq_status_errno(err.status), EIO);
		pq_file_set_page_budget(f, need - 1);
		pq_error_clear(&err);
		ck_assert_int_eq(pq_dump_column(f, 0, 0, false, &out, &err), PQ_ELIMIT);
		pq_file_set_page_budget(f, need);
		out.len = 0;
		pq_error_clear(&err);
		ck_assert_msg(pq_dump_column(f, 0, 0, false, &out, &err) == PQ_OK, "%s", err.msg);
		pq_buf_free(&out);
		wdone(&x);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("page_budget");
	TCase *tc = tcase_create("budget");
	tcase_add_test(tc, test_page_budget);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
