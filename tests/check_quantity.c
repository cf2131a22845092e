/*
 * check_quantity.c -- exact quantity parsing and formatting (quantity.c).
 *
 * Expected values follow apimachinery's resource.Quantity.MilliValue():
 * exact decimal/binary scaling, magnitudes rounded up to a milli-unit.
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "model/quantity.h"

struct qcase {
	const char *in;
	int status;
	int64_t milli;
};

static const struct qcase cases[] = {
	/* plain numbers (also what unquoted YAML/JSON numbers look like) */
	{"0", WQ_OK, 0},
	{"1", WQ_OK, 1000},
	{"96", WQ_OK, 96000},
	{"110", WQ_OK, 110000},
	{"+5", WQ_OK, 5000},
	{"-1", WQ_OK, -1000},
	{"-0", WQ_OK, 0},
	{"007", WQ_OK, 7000},
	{"1.5", WQ_OK, 1500},
	{"1.", WQ_OK, 1000},
	{".5", WQ_OK, 500},
	{"0.1", WQ_OK, 100},
	{"1.500000000000000000000000", WQ_OK, 1500},
	{"3920m", WQ_OK, 3920},
	{"100m", WQ_OK, 100},
	{"0.5m", WQ_OK, 1},
	{"1500m", WQ_OK, 1500},
	/* sub-milli rounds the magnitude up */
	{"0.0001", WQ_OK, 1},
	{"0.0011", WQ_OK, 2},
	{"1n", WQ_OK, 1},
	{"1000000n", WQ_OK, 1},
	{"1000001n", WQ_OK, 2},
	{"1u", WQ_OK, 1},
	{"1500u", WQ_OK, 2},
	{"-0.0001", WQ_OK, -1},
	{"0n", WQ_OK, 0},
	{"0.000", WQ_OK, 0},
	/* decimal SI */
	{"1k", WQ_OK, 1000000},
	{"2M", WQ_OK, 2000000000},
	{"1G", WQ_OK, 1000000000000LL},
	{"1T", WQ_OK, 1000000000000000LL},
	{"1P", WQ_OK, 1000000000000000000LL},
	{"9P", WQ_OK, 9000000000000000000LL},
	{"10P", WQ_RANGE, 0},
	{"1E", WQ_RANGE, 0},
	{"0E", WQ_OK, 0},
	{"1.5k", WQ_OK, 1500000},
	/* binary SI */
	{"1Ki", WQ_OK, 1024000},
	{"100Mi", WQ_OK, 104857600000LL},
	{"64Gi", WQ_OK, 68719476736000LL},
	{"1.5Gi", WQ_OK, 1610612736000LL},
	{"0.5Ki", WQ_OK, 512000},
	{"1Ti", WQ_OK, 1099511627776000LL},
	{"15Ti", WQ_OK, 16492674416640000LL},
	{"8063156Ki", WQ_OK, 8256671744000LL},
	{"23034Mi", WQ_OK, 24152899584000LL},
	{"1Pi", WQ_OK, 1125899906842624000LL},
	{"8Pi", WQ_OK, 9007199254740992000LL},
	{"9Pi", WQ_RANGE, 0},
	{"9Ei", WQ_RANGE, 0},
	{"0.001Ki", WQ_OK, 1024},
	{"0.0001Ki", WQ_OK, 103}, /* 0.1024 -> 103m */
	/* exponents */
	{"2e3", WQ_OK, 2000000},
	{"1E-3", WQ_OK, 1},
	{"1e-4", WQ_OK, 1},
	{"1.5e+2", WQ_OK, 150000},
	{"15e-1", WQ_OK, 1500},
	{"1e15", WQ_OK, 1000000000000000000LL},
	{"1e16", WQ_RANGE, 0},
	{"1e99999999999", WQ_RANGE, 0},
	{"1e-99999999999", WQ_OK, 1},
	{"0e99999999999", WQ_OK, 0},
	/* int64 edges, in milli */
	{"9223372036854775807m", WQ_OK, INT64_MAX},
	{"9223372036854775808m", WQ_RANGE, 0},
	{"-9223372036854775807m", WQ_OK, -INT64_MAX},
	{"9223372036854775", WQ_OK, 9223372036854775000LL},
	{"9223372036854776", WQ_RANGE, 0},
	{"9223372036854775.807", WQ_OK, INT64_MAX},
	{"9223372036854775.8071", WQ_RANGE, 0},
	{"9007199254740993", WQ_OK, 9007199254740993000LL},
	{"15625027559", WQ_OK, 15625027559000LL},
	/* junk */
	{"", WQ_SYNTAX, 0},
	{"1.2.3", WQ_SYNTAX, 0},
	{"Gi", WQ_SYNTAX, 0},
	{"1 Gi", WQ_SYNTAX, 0},
	{" 1", WQ_SYNTAX, 0},
	{"1 ", WQ_SYNTAX, 0},
	{"1Kb", WQ_SYNTAX, 0},
	{"1K", WQ_SYNTAX, 0},
	{"1kb", WQ_SYNTAX, 0},
	{"1gi", WQ_SYNTAX, 0},
	{"abc", WQ_SYNTAX, 0},
	{"-", WQ_SYNTAX, 0},
	{"+", WQ_SYNTAX, 0},
	{".", WQ_SYNTAX, 0},
	{"1e", WQ_SYNTAX, 0},
	{"1e+", WQ_SYNTAX, 0},
	{"1e1.5", WQ_SYNTAX, 0},
	{"1Mi2", WQ_SYNTAX, 0},
	{"--1", WQ_SYNTAX, 0},
	{"0x10", WQ_SYNTAX, 0},
	{"1,5", WQ_SYNTAX, 0},
	{"true", WQ_SYNTAX, 0},
};

START_TEST(parse_table)
{
	const struct qcase *c = &cases[_i];
	int64_t v = 12345;
	const char *why = NULL;
	int st = wq_parse(c->in, strlen(c->in), &v, &why);
	ck_assert_msg(st == c->status, "\"%s\": status %d, want %d (%s)",
		      c->in, st, c->status, why ? why : "");
	if (st == WQ_OK)
		ck_assert_msg(v == c->milli, "\"%s\": %lld, want %lld", c->in,
			      (long long)v, (long long)c->milli);
	else
		ck_assert_msg(why && *why, "\"%s\": no reason", c->in);
}
END_TEST

START_TEST(parse_uses_len)
{
	/* Only s[0..len) is read: "100m" inside a longer buffer. */
	int64_t v;
	ck_assert_int_eq(wq_parse("100mXYZ", 4, &v, NULL), WQ_OK);
	ck_assert_int_eq(v, 100);
	ck_assert_int_eq(wq_parse("1Kb", 2, &v, NULL), WQ_SYNTAX);
	ck_assert_int_eq(wq_parse("64Gi", 3, &v, NULL), WQ_OK); /* 64G */
	ck_assert_int_eq(v, 64000000000000LL);
	ck_assert_int_eq(wq_parse("12", 1, &v, NULL), WQ_OK);
	ck_assert_int_eq(v, 1000);
}
END_TEST

START_TEST(parse_why)
{
	int64_t v;
	const char *why = NULL;
	wq_parse("1Kb", 3, &v, &why);
	ck_assert_str_eq(why, "unknown suffix");
	wq_parse("9Ei", 3, &v, &why);
	ck_assert_str_eq(why, "too large");
	wq_parse("", 0, &v, &why);
	ck_assert_str_eq(why, "empty quantity");
}
END_TEST

struct fcase {
	int64_t milli;
	int bytes;
	const char *out;
};

static const struct fcase fcases[] = {
	{0, 0, "0"},
	{0, 1, "0"},
	{8000, 0, "8"},
	{1500, 0, "1500m"},
	{1, 0, "1m"},
	{-1500, 0, "-1500m"},
	{-2000, 0, "-2"},
	{68719476736000LL, 1, "64Gi"},
	{68719476736000LL, 0, "68719476736"},
	{1024000, 1, "1Ki"},
	{1536000, 1, "1536"},  /* not a whole Ki... */
	{1572864000, 1, "1536Ki"},
	{1000000000000000LL, 1, "1T"},       /* shorter than 976562500Ki */
	{1000000000000000LL, 0, "1000000000000"},
	{1000000, 1, "1k"},
	{-1073741824000LL, 1, "-1Gi"},
	{1048576000000LL, 1, "1000Mi"}, /* not "1048576k" */
	{8256671744000LL, 1, "8063156Ki"},
	{1125899906842624000LL, 1, "1Pi"},
	{INT64_MAX, 0, "9223372036854775807m"},
	{INT64_MIN, 0, "-9223372036854775808m"},
};

START_TEST(format_table)
{
	const struct fcase *c = &fcases[_i];
	char buf[64];
	ck_assert_str_eq(wq_format(c->milli, c->bytes, buf, sizeof buf),
			 c->out);
}
END_TEST

START_TEST(format_truncates)
{
	char buf[4];
	wq_format(123456000, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "123");
}
END_TEST

/* Everything that parses formats back to the same value. */
START_TEST(round_trip)
{
	static const int64_t vals[] = {
	    0, 1, 999, 1000, 1001, 1500, 3920, 96000, 110000,
	    68719476736000LL, 1610612736000LL, 8256671744000LL,
	    1000000000000000LL, 1099511627776000LL, INT64_MAX, -1, -1000,
	    -68719476736000LL, 9007199254740993000LL};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		for (int b = 0; b < 2; b++) {
			char buf[64];
			int64_t back = -7;
			wq_format(vals[i], b, buf, sizeof buf);
			ck_assert_int_eq(wq_parse(buf, strlen(buf), &back,
						  NULL), WQ_OK);
			ck_assert_msg(back == vals[i], "%s -> %lld", buf,
				      (long long)back);
		}
	/* and every parseable case of the table */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].status != WQ_OK)
			continue;
		char buf[64];
		int64_t back;
		wq_format(cases[i].milli, 1, buf, sizeof buf);
		ck_assert_int_eq(wq_parse(buf, strlen(buf), &back, NULL),
				 WQ_OK);
		ck_assert_int_eq(back, cases[i].milli);
	}
}
END_TEST

START_TEST(bytes_resources)
{
	ck_assert(wq_is_bytes_resource("memory"));
	ck_assert(wq_is_bytes_resource("ephemeral-storage"));
	ck_assert(wq_is_bytes_resource("hugepages-2Mi"));
	ck_assert(wq_is_bytes_resource("hugepages-1Gi"));
	ck_assert(wq_is_bytes_resource("example.com/gpu-memory"));
	ck_assert(!wq_is_bytes_resource("cpu"));
	ck_assert(!wq_is_bytes_resource("pods"));
	ck_assert(!wq_is_bytes_resource("nvidia.com/gpu"));
	ck_assert(!wq_is_bytes_resource("memoryless"));
	ck_assert(!wq_is_bytes_resource(NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("quantity");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, parse_table, 0,
			    (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, parse_uses_len);
	tcase_add_test(tc, parse_why);
	tcase_add_loop_test(tc, format_table, 0,
			    (int)(sizeof fcases / sizeof fcases[0]));
	tcase_add_test(tc, format_truncates);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, bytes_resources);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
