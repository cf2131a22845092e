/*
 * fuzz_pipeline.c -- fuzz driver for everything after the loader: decode,
 * topology, reduce, the greedy core with preemption, the plan, the plan
 * reader and the verifier, through the public API.
 *
 * Built by `make check` as a plain program that replays files (or standard
 * input) and exits 0 unless something crashed or broke an invariant; built
 * with -DWASP_LIBFUZZER it is a libFuzzer target (tests/fixtures/load/README
 * says how).  With -DWASP_FUZZ_PLAN (or WASP_FUZZ_PLAN=1 in the
 * environment of the replaying program) the input is a plan instead,
 * checked against the snapshot named by $WASP_FUZZ_SNAPSHOT.
 *
 * Invariants (abort() on violation, which the fuzzer reports):
 * - every error has a code and a message, input errors a position;
 * - a snapshot that decodes gets a greedy plan, and that plan passes the
 *   independent verifier with no violation (greedy and verifier agree on
 *   whatever input the fuzzer finds);
 * - the plan survives JSON and YAML rendering and reading back, and the
 *   read-back plan verifies the same;
 * - a fuzzed plan is either refused with a position or checked, never a
 *   crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasp.h"

#define ENSURE(c)                                                        \
	do {                                                             \
		if (!(c)) {                                              \
			fprintf(stderr, "fuzz_pipeline: invariant failed: " \
					"%s (%s:%d)\n", #c, __FILE__,      \
				__LINE__);                               \
			abort();                                         \
		}                                                        \
	} while (0)

/* A run's budget: inputs can describe large clusters cheaply (`replicas`
 * style counts are not expanded, but many small objects are), and the
 * fuzzer needs answers in milliseconds. */
#define FUZZ_TIME_LIMIT_S 2.0

static void ensure_error(int rc, const wasp_error *e)
{
	ENSURE(rc != WASP_OK);
	ENSURE(e->code == rc && e->msg[0]);
	if (rc == WASP_EINPUT)
		ENSURE(e->line >= 1 && e->col >= 1 && e->file[0]);
}

/* Violations found; `loud`: print them (they are a failure then). */
static size_t verify(const wasp_snapshot *s, const wasp_plan *p, int loud)
{
	size_t nv = 99;
	char *report = NULL;
	wasp_error e;
	int rc = wasp_check(s, p, &nv, &report, &e);
	if (rc)
		ensure_error(rc, &e);
	if (!rc && nv && loud)
		fprintf(stderr, "%s", report ? report : "");
	wasp_free(report);
	return rc ? (size_t)-1 : nv;
}

/* Render in `fmt`, read back, verify again. */
static void round_trip(const wasp_snapshot *s, const wasp_plan *p, int fmt)
{
	wasp_error e;
	char *text = wasp_plan_render(p, fmt, &e);
	ENSURE(text);
	wasp_plan *q = NULL;
	int rc = wasp_plan_from_text(&q, text, strlen(text), "plan", &e);
	if (rc)
		fprintf(stderr, "%s:%d:%d: %s\n", e.file, e.line, e.col,
			e.msg);
	ENSURE(rc == WASP_OK);
	ENSURE(verify(s, q, 1) == 0);
	wasp_plan_free(q);
	wasp_free(text);
}

static void snapshot_case(const uint8_t *data, size_t size)
{
	wasp_snapshot *s = NULL;
	wasp_error e;
	int rc = wasp_snapshot_from_text(&s, (const char *)data, size, "fuzz",
					 &e);
	if (rc) {
		ensure_error(rc, &e);
		return;
	}
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_GREEDY;
	o.time_limit_s = FUZZ_TIME_LIMIT_S;
	o.threads = 1;
	wasp_plan *p = NULL;
	rc = wasp_solve(s, &o, &p, &e);
	if (rc) {
		/* the options are valid, so a refusal is about the input
		 * (a limit, memory), never the call */
		ensure_error(rc, &e);
		ENSURE(rc != WASP_EINVAL);
	} else {
		ENSURE(verify(s, p, 1) == 0);
		round_trip(s, p, WASP_FORMAT_JSON);
		round_trip(s, p, WASP_FORMAT_YAML);
		char *txt = wasp_plan_render(p, WASP_FORMAT_TEXT, &e);
		ENSURE(txt);
		wasp_free(txt);
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
}

static wasp_snapshot *plan_snapshot(void)
{
	static wasp_snapshot *snap; /* loaded once per fuzzing process */
	if (!snap) {
		const char *path = getenv("WASP_FUZZ_SNAPSHOT");
		wasp_error e;
		ENSURE(path && *path);
		if (wasp_snapshot_load(&snap, &path, 1, &e)) {
			fprintf(stderr, "fuzz_pipeline: %s: %s\n", path, e.msg);
			exit(2);
		}
	}
	return snap;
}

static void plan_case(const uint8_t *data, size_t size)
{
	wasp_plan *p = NULL;
	wasp_error e;
	int rc = wasp_plan_from_text(&p, (const char *)data, size, "plan", &e);
	if (rc) {
		ensure_error(rc, &e);
		return;
	}
	(void)verify(plan_snapshot(), p, 0);
	char *text = wasp_plan_render(p, WASP_FORMAT_JSON, &e);
	ENSURE(text);
	wasp_free(text);
	wasp_plan_free(p);
}

/* Plans with -DWASP_FUZZ_PLAN or WASP_FUZZ_PLAN=1, else snapshots. */
static void one(const uint8_t *data, size_t size)
{
#ifdef WASP_FUZZ_PLAN
	plan_case(data, size);
#else
	const char *mode = getenv("WASP_FUZZ_PLAN");
	if (mode && *mode && strcmp(mode, "0"))
		plan_case(data, size);
	else
		snapshot_case(data, size);
#endif
}

#define FUZZ_NAME "fuzz_pipeline"
#include "fuzz_main.h"
