/*
 * check_render.c -- plan documents: JSON and YAML round trips, the text
 * report, number formatting, string escaping, and strict reading back.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STARTS(s, lit) (!strncmp((s), lit, sizeof(lit) - 1))
#define NASTY "say \"hi\"\\ back\nline\ttab\x01 caf\xc3\xa9"

/* A plan built by hand, with every field set. */
static wasp_plan *sample(void)
{
	wasp_plan *p = wpl_new();
	ck_assert_ptr_nonnull(p);
	wa_arena *a = p->arena;
	wpl_summary *s = &p->sum;
	s->mode = "ilp";
	s->mode_reason = "auto: model has 12 columns; ILP within budget";
	s->status = "optimal";
	s->domain_mode = "path";
	s->value = "nvidia.com/gpu";
	s->objective = 1234.5;
	s->bound = 1234.5;
	s->gap = 0;
	s->tiers.nprio = 2;
	s->tiers.prio[0] = 1000;
	s->tiers.prio[1] = -5;
	s->tiers.work[0] = 8;
	s->tiers.work[1] = 2.5;
	s->tiers.packing = 3;
	s->t_load = 0.0123;
	s->t_reduce = 0.1 / 3;
	s->t_greedy = 1e-7;
	s->t_ilp = 0;
	s->t_total = 0.1 + 0.2;
	s->rows = 10;
	s->cols = 12;
	s->ints = 12;
	s->nonzeros = 40;
	s->admitted_groups = 2;
	s->waiting_groups = 2;
	s->placed_pods = 3;
	s->free_nodes_before = 3;
	s->free_nodes_after = 1;
	s->nutil = 2;
	s->util = wa_calloc(a, 2, sizeof *s->util);
	s->util[0] = (wpl_util){"cpu", 64, 10.5, 20.25};
	s->util[1] = (wpl_util){"memory", 274877906944.0, 68719476736.0,
				103079215104.0};
	p->nplace = 3;
	p->place = wa_calloc(a, 3, sizeof *p->place);
	p->place[0] = (wpl_place){"ml", "a-0", "n1", "a"};
	p->place[1] = (wpl_place){"ml", "a-1", "n1", "a"};
	p->place[2] = (wpl_place){"web", "solo", "n2", NULL};
	p->nadmit = 2;
	p->admit = wa_calloc(a, 2, sizeof *p->admit);
	p->admit[0] = (wpl_admit){.ns = "ml", .group = "a", .pods = 2,
				  .pending = 2, .running = 1, .priority = 1000,
				  .key = "example.com/rack", .domain = "b1/r1"};
	p->admit[1] = (wpl_admit){.ns = "ml", .group = "b", .pending = 3,
				  .running = 2};
	p->nwait = 2;
	p->wait = wa_calloc(a, 2, sizeof *p->wait);
	p->wait[0] = (wpl_wait){"ml", "big", "PodGroup", 16, 1000,
				"no example.com/rack domain has 16 free "
				"nvidia.com/gpu; the best has 12"};
	p->wait[1] = (wpl_wait){"web", "stray", "Pod", 1, -5,
				"untolerated taint on 2 nodes"};
	ck_assert_int_eq(wpl_add_warning(p, "rack labels do not nest"), 0);
	ck_assert_int_eq(wpl_add_warning(p, NASTY), 0);
	return p;
}

static char *render(const wasp_plan *p, int fmt)
{
	wasp_error e;
	char *t = wasp_plan_render(p, fmt, &e);
	ck_assert_msg(t != NULL, "render failed: %s", e.msg);
	return t;
}

static wasp_plan *parse(const char *text)
{
	wasp_plan *p = NULL;
	wasp_error e;
	char buf[1024];
	int rc = wasp_plan_from_text(&p, text, strlen(text), "plan", &e);
	ck_assert_msg(rc == WASP_OK, "plan does not read back: %s\n%s",
		      wasp_error_format(&e, buf, sizeof buf), text);
	return p;
}

static wasp_error parse_fail(const char *text)
{
	wasp_plan *p = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wasp_plan_from_text(&p, text, strlen(text), "plan.json", &e);
	ck_assert_msg(rc != WASP_OK, "plan read but should not have");
	ck_assert_ptr_null(p);
	return e;
}

START_TEST(json_round_trip)
{
	wasp_plan *p = sample();
	char *j1 = render(p, WASP_FORMAT_JSON);
	wasp_plan *q = parse(j1);
	char *j2 = render(q, WASP_FORMAT_JSON);
	ck_assert_str_eq(j1, j2);
	/* fields survive, not just the text */
	ck_assert_int_eq(q->nplace, 3);
	ck_assert_ptr_null(q->place[2].group);
	ck_assert_str_eq(q->sum.domain_mode, "path");
	ck_assert_double_eq(q->sum.t_reduce, 0.1 / 3);
	ck_assert_double_eq(q->sum.t_total, 0.1 + 0.2);
	ck_assert_double_eq(q->sum.util[1].alloc, 274877906944.0);
	ck_assert_int_eq(q->wait[1].priority, -5);
	ck_assert_str_eq(q->warnings[1], NASTY);
	wasp_free(j1);
	wasp_free(j2);
	wasp_plan_free(p);
	wasp_plan_free(q);
}
END_TEST

START_TEST(json_layout)
{
	wasp_plan *p = sample();
	char *j = render(p, WASP_FORMAT_JSON);
	ck_assert_msg(STARTS(j, "{\n  \"apiVersion\": \"wasp.dev/v1alpha1\",\n"
				"  \"kind\": \"Plan\",\n  \"summary\": {\n"
				"    \"mode\": \"ilp\",\n"),
		      "%s", j);
	/* one row per line; null for a lone pod's group */
	ck_assert_msg(strstr(j, "\n    {\"namespace\": \"ml\", \"pod\": \"a-1\", "
				"\"node\": \"n1\", \"group\": \"a\"},\n"),
		      "%s", j);
	ck_assert_msg(strstr(j, "{\"namespace\": \"web\", \"pod\": \"solo\", "
				"\"node\": \"n2\", \"group\": null}\n  ],"),
		      "%s", j);
	ck_assert_msg(strstr(j, "\"evictions\": [],\n  \"moves\": [],\n"), "%s",
		      j);
	/* numbers: integers exactly, others shortest round-trip */
	ck_assert_msg(strstr(j, "\"allocatable\": 274877906944,"), "%s", j);
	ck_assert_msg(strstr(j, "\"reduce\": 0.03333333333333333,"), "%s", j);
	ck_assert_msg(strstr(j, "\"greedy\": 1e-07,"), "%s", j);
	ck_assert_msg(strstr(j, "\"total\": 0.30000000000000004\n"), "%s", j);
	ck_assert_msg(strstr(j, "{\"priority\": -5, \"admitted\": 2.5}"), "%s",
		      j);
	ck_assert_int_eq(j[strlen(j) - 1], '\n');
	wasp_free(j);
	wasp_plan_free(p);
}
END_TEST

START_TEST(yaml_round_trip)
{
	wasp_plan *p = sample();
	char *y1 = render(p, WASP_FORMAT_YAML);
	wasp_plan *q = parse(y1);
	char *y2 = render(q, WASP_FORMAT_YAML);
	ck_assert_str_eq(y1, y2);
	/* the YAML is the same document as the JSON */
	char *j1 = render(p, WASP_FORMAT_JSON);
	char *j2 = render(q, WASP_FORMAT_JSON);
	ck_assert_str_eq(j1, j2);
	ck_assert_msg(STARTS(y1, "apiVersion: \"wasp.dev/v1alpha1\"\n"
				 "kind: \"Plan\"\nsummary:\n  mode: \"ilp\"\n"),
		      "%s", y1);
	ck_assert_msg(strstr(y1, "\nplacements:\n- namespace: \"ml\"\n"
				 "  pod: \"a-0\"\n  node: \"n1\"\n  group: \"a\"\n"),
		      "%s", y1);
	ck_assert_msg(strstr(y1, "  tiers:\n    work:\n    - priority: 1000\n"
				 "      admitted: 8\n"),
		      "%s", y1);
	ck_assert_msg(strstr(y1, "\nevictions: []\n"), "%s", y1);
	wasp_free(y1);
	wasp_free(y2);
	wasp_free(j1);
	wasp_free(j2);
	wasp_plan_free(p);
	wasp_plan_free(q);
}
END_TEST

START_TEST(nan_is_null)
{
	wasp_plan *p = sample();
	p->sum.objective = NAN;
	p->sum.bound = NAN;
	p->sum.gap = INFINITY;
	char *j = render(p, WASP_FORMAT_JSON);
	ck_assert_msg(strstr(j, "\"objective\": null,\n    \"bound\": null,\n"
				"    \"gap\": null,\n"),
		      "%s", j);
	char *y = render(p, WASP_FORMAT_YAML);
	ck_assert_msg(strstr(y, "\n  objective: null\n  bound: null\n"), "%s",
		      y);
	wasp_plan *q = parse(j);
	ck_assert(isnan(q->sum.objective));
	ck_assert(isnan(q->sum.gap));
	wasp_plan_free(q);
	q = parse(y);
	ck_assert(isnan(q->sum.bound));
	wasp_plan_free(q);
	wasp_free(j);
	wasp_free(y);
	wasp_plan_free(p);
}
END_TEST

START_TEST(string_escaping)
{
	wasp_plan *p = sample();
	char *j = render(p, WASP_FORMAT_JSON);
	ck_assert_msg(strstr(j, "\"say \\\"hi\\\"\\\\ back\\nline\\ttab\\u0001 "
				"caf\xc3\xa9\""),
		      "%s", j);
	char *y = render(p, WASP_FORMAT_YAML);
	ck_assert_msg(strstr(y, "- \"say \\\"hi\\\"\\\\ back\\nline\\ttab\\x01 "
				"caf\xc3\xa9\"\n"),
		      "%s", y);
	wasp_plan *q = parse(y);
	ck_assert_int_eq(q->nwarnings, 2);
	ck_assert_str_eq(q->warnings[1], NASTY);
	wasp_plan_free(q);
	/* a name that YAML would otherwise read as a number or a bool */
	p->place[0].pod = "123";
	p->place[1].pod = "true";
	wasp_free(y);
	y = render(p, WASP_FORMAT_YAML);
	q = parse(y);
	ck_assert_str_eq(q->place[0].pod, "123");
	ck_assert_str_eq(q->place[1].pod, "true");
	wasp_plan_free(q);
	wasp_free(j);
	wasp_free(y);
	wasp_plan_free(p);
}
END_TEST

START_TEST(text_report)
{
	wasp_plan *p = sample();
	char *t = render(p, WASP_FORMAT_TEXT);
	ck_assert_msg(strstr(t, "no example.com/rack domain has 16 free "
				"nvidia.com/gpu; the best has 12"),
		      "%s", t);
	ck_assert_msg(strstr(t, "ml/big"), "%s", t);
	ck_assert_msg(strstr(t, "example.com/rack=b1/r1"), "%s", t);
	ck_assert_msg(strstr(t, "n1 x2"), "%s", t);
	ck_assert_msg(strstr(t, "  ml/a            2/2        1      1000  "
				"example.com/rack=b1/r1  n1 x2\n"),
		      "%s", t);
	ck_assert_msg(strstr(t, "auto: model has 12 columns"), "%s", t);
	ck_assert_msg(strstr(t, "rack labels do not nest"), "%s", t);
	/* quantities in Kubernetes units */
	ck_assert_msg(strstr(t, "256Gi"), "%s", t);
	ck_assert_msg(strstr(t, "( 25.0%)"), "%s", t);
	wasp_free(t);
	wasp_plan_free(p);
}
END_TEST

START_TEST(empty_plan)
{
	wasp_plan *p = wpl_new();
	char *j = render(p, WASP_FORMAT_JSON);
	wasp_plan *q = parse(j);
	char *j2 = render(q, WASP_FORMAT_JSON);
	ck_assert_str_eq(j, j2);
	ck_assert_msg(strstr(j, "\"placements\": [],"), "%s", j);
	char *y = render(p, WASP_FORMAT_YAML);
	wasp_plan *r = parse(y);
	wasp_plan_free(r);
	char *t = render(p, WASP_FORMAT_TEXT);
	ck_assert_msg(strstr(t, "0 pods placed"), "%s", t);
	wasp_plan_stats st;
	wasp_plan_stats_get(q, &st);
	ck_assert_str_eq(st.status, "empty");
	ck_assert_uint_eq(st.placed_pods, 0);
	wasp_free(j);
	wasp_free(j2);
	wasp_free(y);
	wasp_free(t);
	wasp_plan_free(p);
	wasp_plan_free(q);
}
END_TEST

START_TEST(minimal_hand_written_plan)
{
	wasp_plan *p = parse("apiVersion: wasp.dev/v1alpha1\nkind: Plan\n"
			     "placements:\n"
			     "- {namespace: ml, pod: a, node: n1}\n"
			     "- {namespace: ml, pod: b, node: n1, group: g}\n");
	ck_assert_int_eq(p->nplace, 2);
	ck_assert_ptr_null(p->place[0].group);
	ck_assert_str_eq(p->place[1].group, "g");
	ck_assert_int_eq(p->sum.placed_pods, 2);
	ck_assert_str_eq(p->sum.domain_mode, "value");
	wasp_plan_free(p);
}
END_TEST

START_TEST(strict_types)
{
	wasp_error e = parse_fail(
	    "{\"apiVersion\": \"wasp.dev/v1alpha1\", \"kind\": \"Plan\",\n"
	    " \"placements\": [{\"namespace\": \"ml\", \"pod\": \"p\", "
	    "\"node\": {}}]}");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_str_eq(e.file, "plan.json");
	ck_assert_int_eq(e.line, 2);
	ck_assert_int_eq(e.col, 57);
	ck_assert_str_eq(e.msg, "placements[].node: expected a string, "
				"found a map");

	e = parse_fail("{\"apiVersion\": \"wasp.dev/v1alpha1\", \"kind\": "
		       "\"Plan\",\n \"summary\": {\"gap\": \"small\"}}");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 2);
	ck_assert_int_eq(e.col, 21);
	ck_assert_str_eq(e.msg, "summary.gap: expected a number or null, "
				"found a string");

	e = parse_fail("{\"apiVersion\": \"wasp.dev/v2\", \"kind\": \"Plan\"}");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 1);
	ck_assert_int_eq(e.col, 16);
	ck_assert_msg(strstr(e.msg, "wasp.dev/v2"), "%s", e.msg);

	e = parse_fail("{\"apiVersion\": \"wasp.dev/v1alpha1\", \"kind\": "
		       "\"Plan\", \"placements\": [{\"pod\": \"p\", "
		       "\"node\": \"n\"}]}");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_str_eq(e.msg, "placements[]: missing \"namespace\"");

	e = parse_fail("{\"apiVersion\": \"wasp.dev/v1alpha1\", \"kind\": "
		       "\"Plan\", \"summary\": {\"counts\": {\"placedPods\": "
		       "1.5}}}");
	ck_assert_str_eq(e.msg, "summary.counts.placedPods: expected an "
				"integer");

	e = parse_fail("{\"apiVersion\": \"wasp.dev/v1alpha1\", \"kind\": "
		       "\"Plan\", \"waiting\": {}}");
	ck_assert_str_eq(e.msg, "waiting: expected a list, found a map");

	e = parse_fail("[1, 2]");
	ck_assert_str_eq(e.msg, "a plan is a map, found a list");

	e = parse_fail("apiVersion: wasp.dev/v1alpha1\nkind: Plan\n---\n"
		       "apiVersion: wasp.dev/v1alpha1\nkind: Plan\n");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_msg(strstr(e.msg, "one plan document, found 2"), "%s",
		      e.msg);
	ck_assert_int_eq(e.line, 4); /* the second document */
	ck_assert_int_eq(e.col, 1);

	/* an empty file is refused at its start (found by fuzz_pipeline) */
	e = parse_fail("");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_str_eq(e.file, "plan.json");
	ck_assert_int_eq(e.line, 1);
	ck_assert_int_eq(e.col, 1);
	ck_assert_str_eq(e.msg, "expected one plan document, found 0");

	/* unknown fields inside the summary are ignored; at the top they
	 * are refused (a misspelt "placements" would read as none) */
	wasp_plan *p = parse("{\"apiVersion\": \"wasp.dev/v1alpha1\", "
			     "\"kind\": \"Plan\", "
			     "\"summary\": {\"future\": true}}");
	wasp_plan_free(p);
	e = parse_fail("{\"apiVersion\": \"wasp.dev/v1alpha1\", "
		       "\"kind\": \"Plan\", \"placement\": []}");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 1);
	ck_assert_int_eq(e.col, 53);
	ck_assert_msg(strstr(e.msg, "unknown field \"placement\"") != NULL,
		      "%s", e.msg);
}
END_TEST

START_TEST(api_arguments)
{
	wasp_error e;
	ck_assert_ptr_null(wasp_plan_render(NULL, WASP_FORMAT_JSON, &e));
	ck_assert_int_eq(e.code, WASP_EINVAL);
	wasp_plan *p = wpl_new();
	ck_assert_ptr_null(wasp_plan_render(p, 17, &e));
	ck_assert_int_eq(e.code, WASP_EINVAL);
	wasp_plan_free(p);
	ck_assert_int_eq(wasp_plan_from_text(NULL, "{}", 2, "x", &e),
			 WASP_EINVAL);
	ck_assert_int_eq(wasp_plan_load(&p, NULL, &e), WASP_EINVAL);
	ck_assert_int_eq(wasp_plan_load(&p, "/nonexistent/plan.json", &e),
			 WASP_EIO);
	ck_assert_ptr_null(p);
}
END_TEST

/* End to end: a solved plan reads back to the same text and still
 * verifies. */
START_TEST(solved_round_trip)
{
	wasp_snapshot *s = tu_load_file("tests/fixtures/plan/cluster.yaml");
	wasp_plan *p = tu_solve(s, NULL);
	for (int f = WASP_FORMAT_JSON; f <= WASP_FORMAT_YAML; f++) {
		char *t1 = render(p, f);
		wasp_plan *q = parse(t1);
		char *t2 = render(q, f);
		ck_assert_str_eq(t1, t2);
		size_t nv = 1;
		char *rep = NULL;
		wasp_error e;
		ck_assert_int_eq(wasp_check(s, q, &nv, &rep, &e), WASP_OK);
		ck_assert_msg(nv == 0, "%s", rep);
		wasp_free(rep);
		wasp_free(t1);
		wasp_free(t2);
		wasp_plan_free(q);
	}
	char *t = render(p, WASP_FORMAT_TEXT);
	ck_assert_msg(strstr(t, "ml/train"), "%s", t);
	wasp_free(t);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, json_round_trip);
	tcase_add_test(tc, json_layout);
	tcase_add_test(tc, yaml_round_trip);
	tcase_add_test(tc, nan_is_null);
	tcase_add_test(tc, string_escaping);
	tcase_add_test(tc, text_report);
	tcase_add_test(tc, empty_plan);
	tcase_add_test(tc, minimal_hand_written_plan);
	tcase_add_test(tc, strict_types);
	tcase_add_test(tc, api_arguments);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("solved");
	tcase_add_test(te, solved_round_trip);
	suite_add_tcase(s, te);
	return tu_run(s);
}
