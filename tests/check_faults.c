/*
 * check_faults.c -- allocation failure at the Nth allocation of a solve,
 * for a sweep of N: the call returns a clean error (out of memory, or a
 * GLPK fault) or a plan that verifies (greedy's, when the failure came
 * after greedy), never crashes, and frees everything it allocated (but
 * a block GLPK itself loses when its realloc fails: see realloc below).
 *
 * The hook is confined to this test program: it defines malloc, calloc,
 * realloc and free over glibc's (__libc_malloc ...), so every allocation
 * of the library, of GLPK (glp_alloc ends in malloc) and of libyaml goes
 * through it, and it acts only in the thread that armed it
 * (_Thread_local), only between fault_arm and fault_disarm.  The library
 * itself has no test hook and no global state for this.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "wasp.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* Per thread: fail the countdown-th allocation (0: never); the blocks
 * allocated while armed and not yet freed, in an open-addressing set
 * (glibc's own functions, strdup or fopen, allocate inside libc where
 * this hook does not see them; their frees are not counted). */
static _Thread_local long countdown;
static _Thread_local int armed;
static _Thread_local long calls, live;
#define SET_SIZE (1u << 21)
static _Thread_local void **set;

/* Under AddressSanitizer the program keeps ASan's allocator (mixing
 * the two corrupts both); the sweep then skips (sweep below). */
#if !TU_ASAN
static size_t slot(void *p)
{
	size_t h = ((size_t)p >> 4) * 0x9E3779B97F4A7C15ULL;
	return h & (SET_SIZE - 1);
}

static void set_add(void *p)
{
	if (!armed || !p || !set)
		return;
	size_t i = slot(p);
	while (set[i] && set[i] != (void *)1)
		i = (i + 1) & (SET_SIZE - 1);
	set[i] = p;
	live++;
}

static void set_del(void *p)
{
	if (!p || !set || !live)
		return;
	for (size_t i = slot(p); set[i]; i = (i + 1) & (SET_SIZE - 1))
		if (set[i] == p) {
			set[i] = (void *)1; /* a tombstone */
			live--;
			return;
		}
}

static int fail_now(void)
{
	if (!armed)
		return 0;
	calls++;
	return countdown > 0 && --countdown == 0;
}

void *malloc(size_t n)
{
	if (fail_now())
		return NULL;
	void *p = __libc_malloc(n);
	set_add(p);
	return p;
}

void *calloc(size_t n, size_t k)
{
	if (fail_now())
		return NULL;
	void *p = __libc_calloc(n, k);
	set_add(p);
	return p;
}

/* Whether return address ra lies in GLPK's shared library. */
static int in_glpk(void *ra)
{
	Dl_info d;
	return dladdr(ra, &d) && d.dli_fname && strstr(d.dli_fname, "libglpk");
}

void *realloc(void *q, size_t n)
{
	if (fail_now()) {
		/* GLPK 5.0's glp_realloc (env/alloc.c, dma) takes the block
		 * off its list of blocks before it calls realloc, and raises
		 * its error when realloc fails: glp_free_env then never sees
		 * that block.  GLPK's leak, not the library's: such a block
		 * is left out of the count. */
		if (q && in_glpk(__builtin_return_address(0)))
			set_del(q);
		return NULL;
	}
	void *p = __libc_realloc(q, n);
	if (p) {
		set_del(q);
		set_add(p);
	}
	return p;
}

void free(void *p)
{
	set_del(p);
	__libc_free(p);
}
#endif

static void fault_arm(long n)
{
	if (!set)
		set = __libc_calloc(SET_SIZE, sizeof *set);
	ck_assert_ptr_nonnull(set);
	memset(set, 0, SET_SIZE * sizeof *set);
	countdown = n;
	calls = live = 0;
	armed = 1;
}

static void fault_disarm(void)
{
	armed = 0;
}

/* One solve of s with the Nth allocation failing (0: none; -1: none and
 * no leak check, for the first call's lazy set-up); returns the
 * allocations the call made.  Checks the outcome and that nothing the
 * call allocated outlives it. */
static long solve_failing(const wasp_snapshot *s, int mode, long n,
			  int *failed)
{
	wasp_options o;
	wasp_options_init(&o);
	o.mode = mode;
	o.threads = 1;
	o.time_limit_s = 0; /* the outcome must not depend on the clock */
	wasp_plan *p = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	fault_arm(n < 0 ? 0 : n);
	int rc = wasp_solve(s, &o, &p, &e);
	fault_disarm();
	long made = calls;
	if (rc == WASP_OK) {
		ck_assert_ptr_nonnull(p);
		size_t nv = 99;
		char *rep = NULL;
		ck_assert_int_eq(wasp_check(s, p, &nv, &rep, &e), WASP_OK);
		ck_assert_msg(nv == 0, "N=%ld: plan has violations:\n%s", n,
			      rep);
		wasp_free(rep);
		*failed = 0;
	} else {
		ck_assert_msg(rc == WASP_ENOMEM || rc == WASP_ESOLVER,
			      "N=%ld: code %d (%s)", n, rc, e.msg);
		ck_assert_msg(e.msg[0] != 0, "N=%ld: no message", n);
		ck_assert_ptr_null(p);
		*failed = 1;
	}
	/* what the call allocated and did not hand back is freed: count
	 * the plan's frees too */
	armed = 1;
	wasp_plan_free(p);
	armed = 0;
	ck_assert_msg(live == 0 || n < 0, "N=%ld: %ld allocations outlive "
		      "the call (rc %d)", n, live, rc);
	return made;
}

/* Every N up to FAULT_ALL, then a stride, over the allocations one solve
 * makes. */
#define FAULT_ALL 300
#define FAULT_STEP 53

static void sweep(const char *path, int mode)
{
	if (TU_ASAN) {
		fprintf(stderr, "fault sweep skipped under AddressSanitizer "
				"(its allocator cannot be interposed)\n");
		return;
	}
	wasp_snapshot *s = tu_load_file(path);
	int failed;
	/* once unarmed first: the library's lazy set-up (GLPK's
	 * environment, OpenMP) happens outside the count */
	(void)solve_failing(s, mode, -1, &failed);
	long total = solve_failing(s, mode, 0, &failed);
	ck_assert_int_eq(failed, 0);
	ck_assert_int_gt(total, 10);
	int errors = 0, plans = 0;
	for (long n = 1; n <= total; n += n < FAULT_ALL ? 1 : FAULT_STEP) {
		solve_failing(s, mode, n, &failed);
		errors += failed;
		plans += !failed;
	}
	fprintf(stderr, "check_faults: %s: %ld allocations per solve; %d "
		"failures gave an error, %d a plan\n",
		mode == WASP_MODE_GREEDY ? "greedy" : "ilp", total, errors,
		plans);
	/* both outcomes happen: early failures are errors, late ones keep
	 * greedy's plan */
	ck_assert_int_gt(errors, 0);
	if (mode != WASP_MODE_GREEDY)
		ck_assert_int_gt(plans, 0);
	wasp_snapshot_free(s);
}

START_TEST(faults_greedy)
{
	sweep("models/examples/gpu16.yaml", WASP_MODE_GREEDY);
}
END_TEST

START_TEST(faults_ilp)
{
	sweep("models/examples/gpu16.yaml", WASP_MODE_ILP);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("sweep");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, faults_greedy);
	tcase_add_test(tc, faults_ilp);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
