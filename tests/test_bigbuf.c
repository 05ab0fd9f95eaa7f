/* Big buffers (core/include/pq_bigbuf.h): whole and writable, reused after
 * being freed while the keep bound and the budget allow, charged to the
 * budget only while kept, given back by trim, shrink and reconfiguring;
 * and pq_buf's big mode on top of them. */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pq_bigbuf.h"
#include "pq_buf.h"
#include "pq_budget.h"

#define MIB ((size_t)1 << 20)

/* Under AddressSanitizer the buffers are plain malloc'd ones (no pool):
 * their footprint is then exactly what was asked for. */
static bool pooled(void)
{
	return pq_bigbuf_footprint(3 * MIB) > 3 * MIB;
}

START_TEST(test_whole_and_aligned)
{
	for (size_t n = PQ_BIGBUF_MIN; n <= 9 * MIB; n += 3 * MIB + 12345) {
		uint8_t *p = pq_bigbuf_alloc(n);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		memset(p, 0xa5, n);
		ck_assert_uint_eq(p[n - 1], 0xa5);
		ck_assert_uint_ge(pq_bigbuf_footprint(n), n);
		pq_bigbuf_free(p);
	}
	pq_bigbuf_free(NULL);
	pq_bigbuf_trim();
}
END_TEST

START_TEST(test_reuse_and_charges)
{
	pq_budget *b = pq_budget_new(64 * MIB);
	pq_bigbuf_configure(b, 16 * MIB);
	uint8_t *p = pq_bigbuf_alloc(5 * MIB);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(pq_budget_used(b), 0); /* in use: the user's to charge */
	pq_bigbuf_free(p);
	if (pooled()) {
		size_t fp = pq_bigbuf_footprint(5 * MIB);
		ck_assert_uint_eq(pq_budget_used(b), fp); /* kept: charged */
		uint8_t *q = pq_bigbuf_alloc(5 * MIB - 100);
		ck_assert_ptr_eq(q, p); /* the same buffer again, no fresh pages */
		ck_assert_uint_eq(pq_budget_used(b), 0);
		/* a much smaller request does not take a big buffer */
		pq_bigbuf_free(q);
		uint8_t *r = pq_bigbuf_alloc(PQ_BIGBUF_MIN);
		ck_assert_ptr_ne(r, p);
		pq_bigbuf_free(r);
		ck_assert_uint_eq(pq_budget_used(b), fp + pq_bigbuf_footprint(PQ_BIGBUF_MIN));
		/* shrink gives back at least what was asked */
		ck_assert_uint_ge(pq_bigbuf_shrink(1), 1);
		pq_bigbuf_trim();
		ck_assert_uint_eq(pq_budget_used(b), 0);
		/* past the keep bound: unmapped, not kept */
		uint8_t *big[4];
		for (int i = 0; i < 4; i++)
			big[i] = pq_bigbuf_alloc(6 * MIB);
		for (int i = 0; i < 4; i++)
			pq_bigbuf_free(big[i]);
		ck_assert_uint_le(pq_budget_used(b), 16 * MIB);
		ck_assert_uint_gt(pq_budget_used(b), 0);
	}
	pq_bigbuf_configure(NULL, 0); /* the kept buffers' charges go */
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_budget_free(b);
}
END_TEST

/* A budget that refuses the charge: the freed buffer is not kept. */
START_TEST(test_budget_full)
{
	pq_budget *b = pq_budget_new(1 * MIB);
	pq_bigbuf_configure(b, 64 * MIB);
	uint8_t *p = pq_bigbuf_alloc(4 * MIB);
	ck_assert_ptr_nonnull(p);
	pq_bigbuf_free(p);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_bigbuf_configure(NULL, 0);
	pq_budget_free(b);
}
END_TEST

/* Keeping a spare never asks the budget's reclaim hook for room (that
 * would push out what is in use to keep a buffer nobody needs yet). */
static int reclaims;
static void count_reclaim(void *ctx, uint64_t need)
{
	(void)ctx, (void)need;
	reclaims++;
}

START_TEST(test_spare_never_reclaims)
{
	pq_budget *b = pq_budget_new(8 * MIB);
	pq_budget_set_reclaim(b, count_reclaim, NULL);
	pq_bigbuf_configure(b, 64 * MIB);
	pq_budget_charge(b, 7 * MIB); /* in use by someone */
	uint8_t *p = pq_bigbuf_alloc(4 * MIB);
	ck_assert_ptr_nonnull(p);
	pq_bigbuf_free(p);
	ck_assert_int_eq(reclaims, 0);
	ck_assert_uint_eq(pq_budget_used(b), 7 * MIB); /* not kept: no room */
	pq_budget_release(b, 7 * MIB);
	pq_bigbuf_configure(NULL, 0);
	pq_budget_free(b);
}
END_TEST

/* A pq_buf marked big grows through pq_bigbuf (its bytes kept), charges
 * the whole capacity, goes back to the kept buffers when freed, and is
 * never handed out with pq_buf_take (whose taker would free() it). */
START_TEST(test_buf_big)
{
	pq_budget *b = pq_budget_new(64 * MIB);
	pq_bigbuf_configure(b, 16 * MIB);
	pq_buf w = PQ_BUF_INIT;
	w.big = true;
	w.budget = b;
	for (uint32_t i = 0; i < 1300000; i++)
		pq_buf_append(&w, &i, sizeof i); /* 5.2 MB: malloc, then big, then bigger */
	ck_assert(!w.oom && w.len == 5200000);
	for (uint32_t i = 0; i < 1300000; i += 997) {
		uint32_t got;
		memcpy(&got, w.p + (size_t)i * 4, 4);
		ck_assert_uint_eq(got, i);
	}
	ck_assert(w.in_big);
	ck_assert_uint_eq(w.charged, w.cap); /* the whole capacity */
	ck_assert_uint_ge(pq_budget_used(b), w.charged); /* (and the spares it grew out of) */
	ck_assert_uint_ge(w.cap, w.len);
	size_t len = 1;
	ck_assert_ptr_null(pq_buf_take(&w, &len));
	ck_assert(w.oom);
	uint8_t *was = w.p;
	pq_buf_free(&w);
	ck_assert(!w.in_big && w.p == NULL);
	if (pooled()) {
		ck_assert_uint_gt(pq_budget_used(b), 0); /* kept: charged as a spare */
		uint8_t *again = pq_bigbuf_alloc(5200000);
		ck_assert_ptr_eq(again, was);
		pq_bigbuf_free(again);
	}
	/* a small buffer marked big stays malloc'd and can be taken */
	pq_buf s = PQ_BUF_INIT;
	s.big = true;
	pq_buf_append(&s, "abc", 3);
	ck_assert(!s.in_big);
	free(pq_buf_take(&s, &len));
	ck_assert_uint_eq(len, 3);
	pq_bigbuf_configure(NULL, 0);
	ck_assert_uint_eq(pq_budget_used(b), 0);
	pq_budget_free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bigbuf");
	TCase *tc = tcase_create("bigbuf");
	tcase_add_test(tc, test_whole_and_aligned);
	tcase_add_test(tc, test_reuse_and_charges);
	tcase_add_test(tc, test_budget_full);
	tcase_add_test(tc, test_spare_never_reclaims);
	tcase_add_test(tc, test_buf_big);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
