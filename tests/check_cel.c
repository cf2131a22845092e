/*
 * check_cel.c -- the DRA CEL selector subset (cel.c): one case per
 * construct, per runtime error and per compile error with its position.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "model/cel.h"

static const int64_t numa[] = {0, 1};
static const char *const tags[] = {"nvlink", "ib"};
static const char *const vers[] = {"1.2.0", "2.0.0-rc.1"};
static const bool flags[] = {true, false};

static const wcel_attr attrs[] = {
	{.domain = "gpu.example.com", .name = "model", .type = WCEL_A_STRING,
	 .s = "H100-SXM"},
	{.domain = "gpu.example.com", .name = "index", .type = WCEL_A_INT,
	 .i = 3},
	{.domain = "gpu.example.com", .name = "mig", .type = WCEL_A_BOOL,
	 .b = true},
	{.domain = "gpu.example.com", .name = "driverVersion",
	 .type = WCEL_A_VERSION, .s = "550.54.15"},
	{.domain = "gpu.example.com", .name = "numa", .type = WCEL_A_INTS,
	 .li = numa, .n = 2},
	{.domain = "gpu.example.com", .name = "tags", .type = WCEL_A_STRINGS,
	 .ls = (const char **)tags, .n = 2},
	{.domain = "gpu.example.com", .name = "vers", .type = WCEL_A_VERSIONS,
	 .ls = (const char **)vers, .n = 2},
	{.domain = "gpu.example.com", .name = "flags", .type = WCEL_A_BOOLS,
	 .lb = flags, .n = 2},
	{.domain = "resource.kubernetes.io", .name = "pcieRoot",
	 .type = WCEL_A_STRING, .s = "pci0000:00"},
};
static const wcel_cap caps[] = {
	{.domain = "gpu.example.com", .name = "memory",
	 .milli = 80LL * 1024 * 1024 * 1024 * 1000},
	{.domain = "gpu.example.com", .name = "cores", .milli = 1500},
};
static const wcel_device dev = {
	.driver = "gpu.example.com", .attrs = attrs,
	.nattrs = sizeof attrs / sizeof attrs[0], .caps = caps,
	.ncaps = sizeof caps / sizeof caps[0],
};

struct ecase {
	const char *expr;
	int want; /* 1 true, 0 false, -1 runtime error */
};

static const struct ecase evals[] = {
	/* device fields */
	{"device.driver == 'gpu.example.com'", 1},
	{"device.driver == \"other\"", 0},
	{"device.driver != 'other'", 1},
	{"device.attributes['gpu.example.com'].model == 'H100-SXM'", 1},
	{"device.attributes[\"gpu.example.com\"].index == 3", 1},
	{"device.attributes['gpu.example.com'].index > 2", 1},
	{"device.attributes['gpu.example.com'].index >= 4", 0},
	{"device.attributes['gpu.example.com'].index < 3.5", 1},
	{"device.attributes['gpu.example.com'].index <= 3", 1},
	{"device.attributes['gpu.example.com'].mig", 1},
	{"!device.attributes['gpu.example.com'].mig", 0},
	{"device.attributes['gpu.example.com']['model'] == 'H100-SXM'", 1},
	{"device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'",
	 1},
	/* logic and absorption of errors */
	{"true && false", 0},
	{"false || true", 1},
	{"true && (false || !false)", 1},
	{"device.attributes['x'].y == 1 && false", 0},
	{"false && device.attributes['x'].y == 1", 0},
	{"device.attributes['x'].y == 1 || true", 1},
	{"device.attributes['x'].y == 1 || false", -1},
	{"true ? device.driver == 'gpu.example.com' : false", 1},
	{"1 == 1 ? false : true", 0},
	/* arithmetic */
	{"device.attributes['gpu.example.com'].index * 2 + 1 == 7", 1},
	{"7 / 2 == 3 && 7 % 2 == 1 && -7 / 2 == -3", 1},
	{"1 / 0 == 0", -1},
	{"9223372036854775807 + 1 > 0", -1},
	{"-9223372036854775807 - 1 < 0", 1},
	{"2u == 2u && 1.5 * 2.0 == 3.0", 1},
	/* in, has, size */
	{"device.attributes['gpu.example.com'].model in ['A100', 'H100-SXM']",
	 1},
	{"device.attributes['gpu.example.com'].model in ['A100']", 0},
	{"'gpu.example.com' in device.attributes", 1},
	{"'other.io' in device.attributes", 0},
	{"'model' in device.attributes['gpu.example.com']", 1},
	{"has(device.attributes['gpu.example.com'].model)", 1},
	{"has(device.attributes['gpu.example.com'].nope)", 0},
	{"has(device.attributes['unknown.io'].model)", 0},
	{"has(device.capacity['gpu.example.com'].memory)", 1},
	{"size(device.attributes['gpu.example.com'].model) == 8", 1},
	{"device.attributes['gpu.example.com'].model.size() == 8", 1},
	/* strings */
	{"device.attributes['gpu.example.com'].model.startsWith('H100')", 1},
	{"device.attributes['gpu.example.com'].model.endsWith('SXM')", 1},
	{"device.attributes['gpu.example.com'].model.contains('100-')", 1},
	{"device.attributes['gpu.example.com'].model.contains('A100')", 0},
	{"device.attributes['gpu.example.com'].model.matches('^H[0-9]+-')", 1},
	{"device.attributes['gpu.example.com'].model.matches('\\\\d{3}')", 1},
	{"device.attributes['gpu.example.com'].model.matches('^A')", 0},
	{"device.attributes['gpu.example.com'].model.matches('S.M$')", 1},
	{"r'a\\d' == 'a\\\\d'", 1},
	{"'''tri'ple''' == \"tri'ple\"", 1},
	/* quantities */
	{"device.capacity['gpu.example.com'].memory == quantity('80Gi')", 1},
	{"device.capacity['gpu.example.com'].memory.compareTo("
	 "quantity('40Gi')) > 0", 1},
	{"device.capacity['gpu.example.com'].memory.compareTo("
	 "quantity('1Ti')) >= 0", 0},
	{"device.capacity['gpu.example.com'].memory.isGreaterThan("
	 "quantity('79Gi'))", 1},
	{"device.capacity['gpu.example.com'].memory.isLessThan("
	 "quantity('79Gi'))", 0},
	{"device.capacity['gpu.example.com'].cores.isInteger()", 0},
	{"device.capacity['gpu.example.com'].cores.asInteger() == 1", -1},
	{"quantity('2').asInteger() == 2", 1},
	{"quantity('1500m') == quantity('1.5')", 1},
	{"device.capacity['gpu.example.com'].memory > quantity('1Gi')", -1},
	{"device.capacity['gpu.example.com'].nope == quantity('1')", -1},
	{"device.capacity['other.io'].memory == quantity('1')", -1},
	/* versions */
	{"device.attributes['gpu.example.com'].driverVersion.isGreaterThan("
	 "semver('550.0.0'))", 1},
	{"device.attributes['gpu.example.com'].driverVersion.isLessThan("
	 "semver('550.54.15'))", 0},
	{"device.attributes['gpu.example.com'].driverVersion.compareTo("
	 "semver('550.54.15')) == 0", 1},
	{"device.attributes['gpu.example.com'].driverVersion == "
	 "semver('550.54.15')", 1},
	{"device.attributes['gpu.example.com'].driverVersion.major() == 550",
	 1},
	{"semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))", 1},
	{"semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))", 1},
	{"semver('1.0.0-beta.11').isGreaterThan(semver('1.0.0-beta.2'))", 1},
	{"semver('1.10.0').isGreaterThan(semver('1.9.9'))", 1},
	{"semver('1.0.0+build.5') == semver('1.0.0')", 1},
	/* lists */
	{"device.attributes['gpu.example.com'].numa.includes(1)", 1},
	{"device.attributes['gpu.example.com'].numa.includes(2)", 0},
	{"1 in device.attributes['gpu.example.com'].numa", 1},
	{"device.attributes['gpu.example.com'].tags.includes('ib')", 1},
	{"'eth' in device.attributes['gpu.example.com'].tags", 0},
	{"device.attributes['gpu.example.com'].vers.includes("
	 "semver('2.0.0-rc.1'))", 1},
	{"device.attributes['gpu.example.com'].flags.includes(false)", 1},
	{"device.attributes['gpu.example.com'].numa.size() == 2", 1},
	{"device.attributes['gpu.example.com'].numa[1] == 1", 1},
	{"device.attributes['gpu.example.com'].numa[2] == 1", -1},
	{"[1, 2] == [1, 2]", 1},
	/* missing field: error; unknown domain: empty map */
	{"device.attributes['gpu.example.com'].nope == 'x'", -1},
	{"device.attributes['unknown.io'].model == 'x'", -1},
	/* type errors */
	{"device.attributes['gpu.example.com'].model < 3", -1},
	{"device.attributes['gpu.example.com'].model", -1},
	{"!device.driver", -1},
	{"'a' + 'b' == 'ab'", -1},
	{"device.attributes['gpu.example.com'].model == 3", 0},
};

START_TEST(eval_cases)
{
	const struct ecase *c = &evals[_i];
	wa_arena *a = wa_new();
	wcel_prog *p = NULL;
	wasp_error e = {0};
	wsrc at = {"t.yaml", 4, 9};
	int rc = wcel_compile(a, c->expr, at, &p, &e);
	ck_assert_msg(rc == WASP_OK, "%s: compile: %s", c->expr, e.msg);
	memset(&e, 0, sizeof e);
	int r = wcel_eval(p, &dev, &e);
	ck_assert_msg(r == c->want, "%s: got %d want %d (%s)", c->expr, r,
		      c->want, e.msg);
	if (r < 0) {
		ck_assert_int_eq(e.code, WASP_EINPUT);
		ck_assert_str_eq(e.file, "t.yaml");
		ck_assert_int_eq(e.line, 4);
		ck_assert_ptr_nonnull(strstr(e.msg, "at offset"));
	}
	wa_destroy(a);
}
END_TEST

struct ccase {
	const char *expr;
	const char *msg; /* exact message */
};

static const struct ccase cerrs[] = {
	{"device.driver = 'x'",
	 "CEL: unexpected '=' (use '==') at offset 14"},
	{"device.name == 'x'",
	 "CEL: unsupported field 'device.name' at offset 7"},
	{"device.attributes['a'].b.exists(x, x > 1)",
	 "CEL: unsupported construct '.exists()' at offset 25"},
	{"foo == 1", "CEL: undeclared reference to 'foo' at offset 0"},
	{"int('3') == 3", "CEL: unsupported function 'int' at offset 0"},
	{"quantity('12XB') == quantity('1')",
	 "CEL: invalid quantity '12XB' at offset 9"},
	{"semver('1.2') == semver('1.2.0')",
	 "CEL: invalid semver '1.2' at offset 7"},
	{"device.driver.matches('(?i)gpu')",
	 "CEL: RE2 group flags (?...) are not supported at offset 22"},
	{"device.driver.matches('a+?')",
	 "CEL: non-greedy quantifiers are not supported at offset 22"},
	{"device.driver.matches('\\\\bgpu')",
	 "CEL: RE2 escape not available in POSIX regular expressions "
	 "at offset 22"},
	{"device.driver == 'x", "CEL: unterminated string literal at offset 17"},
	{"(device.driver == 'x'", "CEL: expected ')' at offset 21"},
	{"device.driver == 'x' 1", 
	 "CEL: unexpected text after the expression at offset 21"},
	{"", "CEL: empty expression at offset 0"},
	{"{'a': 1}", "CEL: unsupported construct 'map literal' at offset 0"},
	{"has(device)", "CEL: has() needs one field selection argument "
	 "at offset 0"},
	{"device.driver & true",
	 "CEL: unexpected '&' (use '&&' or '||') at offset 14"},
	{"99999999999999999999 > 1",
	 "CEL: integer literal out of range at offset 0"},
	{"'\\q' == 'x'",
	 "CEL: unsupported escape sequence in string at offset 1"},
	/* found by tests/fuzz_cel: glibc's regcomp took > 2 GB on a run
	 * of quantifiers; RE2 refuses them too */
	{"device.driver.matches('a++')",
	 "CEL: bad repetition operator (a quantifier after a quantifier) "
	 "at offset 22"},
	{"device.driver.matches('[g0, 2]+++++++++++++++++++++')",
	 "CEL: bad repetition operator (a quantifier after a quantifier) "
	 "at offset 22"},
	{"device.driver.matches('a{2}*')",
	 "CEL: bad repetition operator (a quantifier after a quantifier) "
	 "at offset 22"},
	{"device.driver.matches('(a{1000}){2}')",
	 "CEL: bad repetition count (the counts of a pattern add up to at "
	 "most 1000) at offset 22"},
	{"device.driver.matches('a{1001}')",
	 "CEL: bad repetition count (the counts of a pattern add up to at "
	 "most 1000) at offset 22"},
};

START_TEST(compile_errors)
{
	const struct ccase *c = &cerrs[_i];
	wa_arena *a = wa_new();
	wcel_prog *p = NULL;
	wasp_error e = {0};
	wsrc at = {"dc.yaml", 12, 19};
	int rc = wcel_compile(a, c->expr, at, &p, &e);
	ck_assert_msg(rc == WASP_EINPUT, "%s: rc %d", c->expr, rc);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(e.msg, c->msg);
	ck_assert_str_eq(e.file, "dc.yaml");
	ck_assert_int_eq(e.line, 12);
	ck_assert_int_eq(e.col, 19);
	wa_destroy(a);
}
END_TEST

START_TEST(runtime_error_message)
{
	wa_arena *a = wa_new();
	wcel_prog *p = NULL;
	wasp_error e = {0};
	wsrc at = {"c.yaml", 7, 21};
	ck_assert_int_eq(wcel_compile(a,
		"device.attributes['gpu.example.com'].nope == 'x'", at, &p,
		&e), WASP_OK);
	ck_assert_int_eq(wcel_eval(p, &dev, &e), -1);
	ck_assert_str_eq(e.msg, "CEL: no such key: 'nope' at offset 37");
	ck_assert_int_eq(e.col, 21);
	/* Non-bool result. */
	ck_assert_int_eq(wcel_compile(a, "device.driver", at, &p, &e),
			 WASP_OK);
	ck_assert_int_eq(wcel_eval(p, &dev, &e), -1);
	ck_assert_str_eq(e.msg, "CEL: expression yields string, not bool at offset 0");
	/* Relational operators on quantities are refused as in k8s. */
	ck_assert_int_eq(wcel_compile(a, "quantity('1') < quantity('2')", at,
				      &p, &e), WASP_OK);
	ck_assert_int_eq(wcel_eval(p, &dev, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "use compareTo"));
	wa_destroy(a);
}
END_TEST

START_TEST(semver_cmp)
{
	int k = 9;
	ck_assert_int_eq(wcel_semver_cmp("v1.2.3", "1.2.3", &k), 0);
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(wcel_semver_cmp("1.2.3", "1.10.0", &k), 0);
	ck_assert_int_eq(k, -1);
	ck_assert_int_eq(wcel_semver_cmp("1.0.0-alpha.beta", "1.0.0-alpha.1",
					 &k), 0);
	ck_assert_int_eq(k, 1);
	ck_assert_int_eq(wcel_semver_cmp("01.0.0", "1.0.0", &k), -1);
	ck_assert_int_eq(wcel_semver_cmp("1.0", "1.0.0", &k), -1);
}
END_TEST

/* Inputs tests/fuzz_cel found (tests/fixtures/cel/): each compiles to
 * an error or evaluates, without running out of memory. */
START_TEST(fuzz_regressions)
{
	static const char *const files[][2] = {
		{"tests/fixtures/cel/oom-stacked-quantifiers",
		 "bad repetition operator"},
		{"tests/fixtures/cel/stack-long-chain",
		 "expression too large"},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *text = tu_slurp(tu_src_path(files[i][0]));
		ck_assert_ptr_nonnull(text);
		wa_arena *a = wa_new();
		wcel_prog *p = NULL;
		wasp_error e = {0};
		wsrc at = {"x", 1, 1};
		int rc = wcel_compile(a, text, at, &p, &e);
		ck_assert_int_eq(rc, WASP_EINPUT);
		ck_assert_msg(strstr(e.msg, files[i][1]) != NULL, "%s: %s",
			      files[i][0], e.msg);
		wa_destroy(a);
		free(text);
	}
	/* a chain 1+1+...: at most 512 nodes in all */
	char buf[4096] = "1";
	for (int i = 0; i < 200; i++)
		strcat(buf, "+1");
	strcat(buf, " == 201");
	wa_arena *a = wa_new();
	wcel_prog *p = NULL;
	wasp_error e = {0};
	wsrc at = {"x", 1, 1};
	ck_assert_int_eq(wcel_compile(a, buf, at, &p, &e), WASP_OK);
	ck_assert_int_eq(wcel_eval(p, &dev, NULL), 1);
	memmove(buf + 200, buf, strlen(buf) + 1);
	for (int i = 0; i < 100; i++)
		memcpy(buf + 2 * i, "1+", 2); /* 1+1+...+1+1+...+1 == 201 */
	ck_assert_int_eq(wcel_compile(a, buf, at, &p, &e), WASP_EINPUT);
	ck_assert_str_eq(e.msg, "CEL: expression too large (more than 512 "
			 "operands and operators) at offset 511");
	wa_destroy(a);
}
END_TEST

/* Compiled once, evaluated for many devices: no per-call state leaks. */
START_TEST(many_devices)
{
	wa_arena *a = wa_new();
	wcel_prog *p = NULL;
	wsrc at = {"x", 1, 1};
	ck_assert_int_eq(wcel_compile(a,
		"device.attributes['d.io'].idx % 2 == 0 && "
		"device.attributes['d.io'].name.matches('^gpu-[0-9]+$')",
		at, &p, NULL), WASP_OK);
	int hits = 0;
	for (int i = 0; i < 200; i++) {
		char name[32];
		snprintf(name, sizeof name, "gpu-%d", i);
		wcel_attr at2[2] = {
			{.domain = "d.io", .name = "idx", .type = WCEL_A_INT,
			 .i = i},
			{.domain = "d.io", .name = "name",
			 .type = WCEL_A_STRING, .s = name},
		};
		wcel_device d = {.driver = "d.io", .attrs = at2, .nattrs = 2};
		hits += wcel_eval(p, &d, NULL) == 1;
	}
	ck_assert_int_eq(hits, 100);
	wa_destroy(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cel");
	TCase *t = tcase_create("eval");
	tcase_add_loop_test(t, eval_cases, 0, sizeof evals / sizeof evals[0]);
	tcase_add_loop_test(t, compile_errors, 0,
			    sizeof cerrs / sizeof cerrs[0]);
	tcase_add_test(t, runtime_error_message);
	tcase_add_test(t, semver_cmp);
	tcase_add_test(t, many_devices);
	tcase_add_test(t, fuzz_regressions);
	suite_add_tcase(s, t);
	return tu_run(s);
}
