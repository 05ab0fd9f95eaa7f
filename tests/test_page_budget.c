/* The page budget (pq_file_set_page_budget): a page whose stored body and
 * uncompressed bytes exceed it fails with PQ_EBUDGET and a message naming
 * the bytes it needs; at that many bytes it decodes. (The daemon sets the
 * budget to cache_size: interface.md, a page larger than cache_size fails
 * its reads with EIO and names the size it needs.) */
#include "config.h"

#include <errno.h>

#include "pq_budget.h"
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
		ck_assert_int_eq(pq_dump_column(f, 0, 0, false, &out, &err), PQ_EBUDGET);
		/* "the page needs N bytes of memory (...)": N is what suffices */
		const char *p = strstr(err.msg, "the page needs ");
		ck_assert_msg(p, "%s", err.msg);
		unsigned long long need = strtoull(p + strlen("the page needs "), NULL, 10);
		ck_assert_uint_ge(need, 32768); /* 4096 x 8 bytes */
		ck_assert_int_eq(pq_status_errno(err.status), EIO);
		pq_file_set_page_budget(f, need - 1);
		pq_error_clear(&err);
		ck_assert_int_eq(pq_dump_column(f, 0, 0, false, &out, &err), PQ_EBUDGET);
		pq_file_set_page_budget(f, need);
		out.len = 0;
		pq_error_clear(&err);
		ck_assert_msg(pq_dump_column(f, 0, 0, false, &out, &err) == PQ_OK, "%s", err.msg);
		pq_buf_free(&out);
		wdone(&x);
	}
}
END_TEST

static int reclaims;
static void count_reclaim(void *ctx, uint64_t need)
{
	(void)ctx;
	ck_assert_uint_gt(need, 0);
	reclaims++;
}

/* The mount's budget (pq_budget.h): charges that do not fit are refused
 * after one reclaim call, exempt threads are counted but never refused,
 * arenas and buffers give back exactly what they charged. */
START_TEST(test_budget_counts)
{
	pq_budget *b = pq_budget_new(1000);
	ck_assert_ptr_nonnull(b);
	pq_budget_set_reclaim(b, count_reclaim, NULL);
	ck_assert(pq_budget_try_charge(b, 600));
	ck_assert(!pq_budget_try_charge(b, 500));
	ck_assert_int_eq(reclaims, 1);
	ck_assert_uint_eq(pq_budget_refusals(b), 1);
	bool was = pq_budget_thread_exempt(true);
	ck_assert(pq_budget_try_charge(b, 500)); /* counted anyway */
	pq_budget_thread_exempt(was);
	ck_assert_uint_eq(pq_budget_used(b), 1100);
	ck_assert_uint_eq(pq_budget_peak(b), 1100);
	pq_budget_release(b, 1100);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	ck_assert(pq_budget_try_charge(NULL, 1u << 30)); /* no budget: anything */
	pq_budget_free(b);

	/* headroom: past the limit the reclaim hook is asked first, then the
	 * charge fits up to limit + headroom, never beyond */
	reclaims = 0;
	b = pq_budget_new(1000);
	pq_budget_set_reclaim(b, count_reclaim, NULL);
	pq_budget_set_headroom(b, 500);
	ck_assert(pq_budget_try_charge(b, 900));
	ck_assert_int_eq(reclaims, 0);
	ck_assert(pq_budget_try_charge(b, 400)); /* 1300: in the headroom */
	ck_assert_int_eq(reclaims, 1);
	ck_assert(!pq_budget_try_charge(b, 201)); /* 1501: past it */
	ck_assert_int_eq(reclaims, 2);
	ck_assert(pq_budget_try_charge(b, 200)); /* exactly 1500 */
	ck_assert(!pq_budget_try_charge(b, 2000)); /* larger than limit + headroom */
	ck_assert_uint_eq(pq_budget_used(b), 1500);
	ck_assert_uint_eq(pq_budget_refusals(b), 2);
	pq_budget_release(b, 1500);
	pq_budget_free(b);
	b = pq_budget_new(10000);

	/* an arena: charged per block, all of it back at free */
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_arena_use_budget(&a, b);
	ck_assert_ptr_nonnull(pq_arena_alloc(&a, 100));
	ck_assert_uint_eq(pq_budget_used(b), pq_arena_footprint(&a));
	ck_assert_ptr_null(pq_arena_alloc(&a, 20000)); /* over the budget */
	ck_assert_uint_ge(a.refused, 20000);
	pq_error err;
	pq_error_clear(&err);
	ck_assert_int_eq(pq_arena_budget_error(&a, PQ_ENOMEM, &err), PQ_EBUDGET);
	ck_assert_msg(strstr(err.msg, "do not fit the memory budget"), "%s", err.msg);
	pq_arena_free(&a);
	ck_assert_uint_eq(pq_budget_used(b), 0);

	/* a buffer: its capacity, back when freed or taken */
	pq_buf buf = PQ_BUF_INIT;
	buf.budget = b;
	pq_buf_puts(&buf, "hello");
	ck_assert_uint_eq(pq_budget_used(b), buf.cap);
	static char big[20000];
	pq_buf_append(&buf, big, sizeof big);
	ck_assert(buf.oom);
	ck_assert_uint_gt(buf.refused, 0);
	pq_buf_free(&buf);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	buf.budget = b;
	pq_buf_puts(&buf, "again");
	free(pq_buf_take(&buf, NULL));
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_budget_free(b);
}
END_TEST

/* Decoded pages and row readers are charged to the file's budget while
 * they live and give it all back; a decode that does not fit fails with
 * PQ_EBUDGET naming the bytes, and leaves nothing charged. */
START_TEST(test_budget_pages)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	prim(&e, "x", PQ_REQUIRED, PQ_INT64);
	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_ZSTD;
	o.dictionary = false;
	static int64_t v[65536];
	for (size_t i = 0; i < 65536; i++)
		v[i] = (int64_t)(i * 2654435761u);
	wfile x;
	wopen(&x, &e, &o);
	pq_values pv = vals(PQ_INT64, 0, 65536, v);
	wput(&x, 0, 65536, NULL, &pv);
	wend(&x);
	pq_file *f = (pq_file *)wclose(&x);
	pq_budget *b = pq_budget_new(64u << 20);
	pq_file_set_budget(f, b);
	pq_error err;
	pq_error_clear(&err);
	pq_row_reader *r;
	ck_assert_int_eq(pq_row_reader_open(f, 0, PQ_ROWS_CSV, &r, &err), PQ_OK);
	pq_buf out = PQ_BUF_INIT;
	bool done = false;
	ck_assert_int_eq(pq_row_reader_next(r, 1000, &out, &done, &err), PQ_OK);
	/* 512 KiB of values decoded: the page (and the reader) are charged */
	ck_assert_uint_ge(pq_budget_used(b), 65536 * 8);
	pq_row_reader_free(r);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_budget_free(b);

	/* a budget too small for the page: refused, named, nothing left */
	b = pq_budget_new(100000);
	pq_file_set_budget(f, b);
	out.len = 0;
	pq_error_clear(&err);
	ck_assert_int_eq(pq_dump_column(f, 0, 0, false, &out, &err), PQ_EBUDGET);
	ck_assert_msg(strstr(err.msg, "do not fit the memory budget"), "%s", err.msg);
	ck_assert_int_eq(pq_status_errno(err.status), EIO);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	ck_assert_uint_ge(pq_budget_refusals(b), 1);
	/* verify.txt the same: the check fails, its text names no problem of
	 * the file (issue 31: a refused charge became "PROBLEM: ... page 0") */
	out.len = 0;
	pq_error_clear(&err);
	uint64_t mine = pq_budget_thread_refused(NULL);
	ck_assert_int_eq(pq_text_verify(f, &out, &err), PQ_EBUDGET);
	ck_assert_msg(strstr(err.msg, "verify.txt cannot be made"), "%s", err.msg);
	ck_assert_ptr_null(out.p ? memmem(out.p, out.len, "PROBLEM", 7) : NULL);
	ck_assert_uint_gt(pq_budget_thread_refused(NULL), mine); /* counted for this thread */
	ck_assert_uint_eq(pq_budget_used(b), 0);
	/* with room, the same check says OK */
	pq_budget_free(b);
	b = pq_budget_new(64u << 20);
	pq_file_set_budget(f, b);
	out.len = 0;
	ck_assert_int_eq(pq_text_verify(f, &out, &err), PQ_OK);
	ck_assert(out.len >= 3 && memcmp(out.p + out.len - 3, "OK\n", 3) == 0);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_file_set_budget(f, NULL);
	pq_budget_free(b);
	pq_buf_free(&out);
	wdone(&x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("page_budget");
	TCase *tc = tcase_create("budget");
	tcase_add_test(tc, test_page_budget);
	tcase_add_test(tc, test_budget_counts);
	tcase_add_test(tc, test_budget_pages);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
