#include "config.h"
#include <check.h>
#include <stdlib.h>
#include "pq_csv.h"
START_TEST(test_dummy) { ck_assert(1); }
END_TEST
int main(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("csv");
	tcase_add_test(tc, test_dummy);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int f = srunner_ntests_failed(sr);
	srunner_free(sr);
	return f ? EXIT_FAILURE : EXIT_SUCCESS;
}
