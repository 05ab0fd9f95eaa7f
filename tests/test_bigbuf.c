/* Big buffers (core/include/pq_bigbuf.h): whole and writable, reused after
 * being freed while the keep bound and the budget allow, charged to the
 * budget only while kept, given back by trim, shrink and reconfiguring. */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pq_bigbuf.h"
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

int main(void)
{
	Suite *s = suite_create("bigbuf");
	TCase *tc = tcase_create("bigbuf");
	tcase_add_test(tc, test_whole_and_aligned);
	tcase_add_test(tc, test_reuse_and_charges);
	tcase_add_test(tc, test_budget_full);
	tcase_add_test(tc, test_spare_never_reclaims);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
