/*
 * fuzz_cel.c -- fuzz driver for the DRA CEL selector subset (cel.c).
 *
 * The input is one expression: it is compiled, and when it compiles it is
 * evaluated against a few devices that hold every attribute type, a
 * capacity, and an unqualified driver.  Built by `make check` as a plain
 * program that replays files (or standard input) and exits 0 unless
 * something crashed or broke an invariant; built with -DWASP_LIBFUZZER it
 * is a libFuzzer target (tests/fixtures/cel/README says how to run it).
 *
 * Invariants (abort() on violation): compile errors are WASP_EINPUT with a
 * message and the given position; eval returns -1, 0 or 1, and -1 comes
 * with a WASP_EINPUT error and a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cel.h"
#include "io/load.h"

#define MAX_EXPR 65536

#define ENSURE(c)                                                        \
	do {                                                             \
		if (!(c)) {                                              \
			fprintf(stderr, "fuzz_cel: invariant failed: %s " \
					"(%s:%d)\n", #c, __FILE__, __LINE__); \
			abort();                                         \
		}                                                        \
	} while (0)

static const int64_t numa[] = {0, -1, INT64_MAX};
static const char *const tags[] = {"nvlink", "", "ib"};
static const char *const vers[] = {"1.2.0", "2.0.0-rc.1+b", "v3"};
static const bool flags[] = {true, false};

static const wcel_attr attrs[] = {
	{.domain = "gpu.example.com", .name = "model", .type = WCEL_A_STRING,
	 .s = "H100-SXM"},
	{.domain = "gpu.example.com", .name = "index", .type = WCEL_A_INT,
	 .i = INT64_MIN},
	{.domain = "gpu.example.com", .name = "big", .type = WCEL_A_INT,
	 .i = INT64_MAX},
	{.domain = "gpu.example.com", .name = "mig", .type = WCEL_A_BOOL,
	 .b = true},
	{.domain = "gpu.example.com", .name = "driverVersion",
	 .type = WCEL_A_VERSION, .s = "550.54.15"},
	{.domain = "gpu.example.com", .name = "badVersion",
	 .type = WCEL_A_VERSION, .s = "1..x"},
	{.domain = "gpu.example.com", .name = "numa", .type = WCEL_A_INTS,
	 .li = numa, .n = 3},
	{.domain = "gpu.example.com", .name = "tags", .type = WCEL_A_STRINGS,
	 .ls = (const char **)tags, .n = 3},
	{.domain = "gpu.example.com", .name = "vers", .type = WCEL_A_VERSIONS,
	 .ls = (const char **)vers, .n = 3},
	{.domain = "gpu.example.com", .name = "flags", .type = WCEL_A_BOOLS,
	 .lb = flags, .n = 2},
	{.domain = "gpu.example.com", .name = "empty", .type = WCEL_A_STRINGS,
	 .n = 0},
	{.domain = "resource.kubernetes.io", .name = "pcieRoot",
	 .type = WCEL_A_STRING, .s = "pci0000:00"},
};
static const wcel_cap caps[] = {
	{.domain = "gpu.example.com", .name = "memory",
	 .milli = 80LL * 1024 * 1024 * 1024 * 1000},
	{.domain = "gpu.example.com", .name = "cores", .milli = INT64_MAX},
	{.domain = "gpu.example.com", .name = "neg", .milli = INT64_MIN},
};
static const wcel_device devs[] = {
	{.driver = "gpu.example.com", .attrs = attrs,
	 .nattrs = sizeof attrs / sizeof attrs[0], .caps = caps,
	 .ncaps = sizeof caps / sizeof caps[0]},
	{.driver = "", .attrs = NULL, .nattrs = 0, .caps = NULL, .ncaps = 0},
};

static void one(const uint8_t *data, size_t size)
{
	if (size > MAX_EXPR)
		return;
	char *expr = malloc(size + 1);
	wa_arena *a = wa_new();
	if (!expr || !a) {
		free(expr);
		wa_destroy(a);
		return;
	}
	memcpy(expr, data, size);
	expr[size] = '\0'; /* an embedded NUL ends the expression early */
	wsrc at = {.file = "fuzz", .line = 7, .col = 9};
	wcel_prog *p = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wcel_compile(a, expr, at, &p, &e);
	if (rc) {
		ENSURE(rc == WASP_EINPUT || rc == WASP_ENOMEM);
		ENSURE(e.code == rc && e.msg[0]);
		if (rc == WASP_EINPUT)
			ENSURE(e.line == 7 && e.col == 9);
	} else {
		ENSURE(p && wcel_text(p));
		for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
			memset(&e, 0, sizeof e);
			int r = wcel_eval(p, &devs[i], &e);
			ENSURE(r == -1 || r == 0 || r == 1);
			if (r < 0)
				ENSURE(e.code == WASP_EINPUT && e.msg[0]);
		}
	}
	wa_destroy(a);
	free(expr);
}

#define FUZZ_NAME "fuzz_cel"
#include "fuzz_main.h"
