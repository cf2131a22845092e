/*
 * check_dra.c -- DRA decoding, device matching and allocation.
 */
#include "testutil.h"
#include "dra.h"

START_TEST(placeholder)
{
	ck_assert_int_eq(1, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dra");
	TCase *t = tcase_create("dra");
	tcase_add_test(t, placeholder);
	suite_add_tcase(s, t);
	return tu_run(s);
}
