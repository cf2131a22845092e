/* check_bench.c -- stub: being written. */
#include "testutil.h"
START_TEST(placeholder) { ck_assert_int_eq(1, 1); }
END_TEST
int main(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, placeholder);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
