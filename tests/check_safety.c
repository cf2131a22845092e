/*
 * check_safety.c -- the safety switches of an unattended run
 * (doc/preemption.md, "Safety switches"): --preempt never, --max-evictions
 * in the greedy, the node ILP and the model over parts, and the table of
 * what the evictions buy, in the plan and read back.
 *
 * Every plan goes through tu_solve, so the verifier checks it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "testutil.h"

/* Two racks of two 4-GPU nodes, every GPU held by a running lone pod at
 * priority 10 (one GPU each).  Pending: gang "big" (2 pods x 2 GPUs, one
 * rack, priority 100: 4 evictions) and gang "small" (1 pod x 1 GPU,
 * priority 50: 1 eviction). */
static wasp_snapshot *full_cluster(void)
{
	tu_buf b = {0};
	static const char *const racks[] = {"ra", "ra", "rb", "rb"};
	for (int n = 0; n < 4; n++)
		tu_printf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
			      "  name: n%d\n  labels: {example.com/rack: %s}\n"
			      "status:\n  allocatable: {cpu: \"64\", memory: "
			      "64Gi, pods: \"110\", nvidia.com/gpu: \"4\"}\n",
			  n, racks[n]);
	for (int n = 0; n < 4; n++)
		for (int i = 0; i < 4; i++) {
			char name[32], node[8];
			snprintf(name, sizeof name, "run-%d-%d", n, i);
			snprintf(node, sizeof node, "n%d", n);
			tu_pod_yaml(&b, name, NULL, node, 1, 10);
		}
	const struct {
		const char *name;
		int pods, gpus, prio;
	} g[] = {{"big", 2, 2, 100}, {"small", 1, 1, 50}};
	for (int k = 0; k < 2; k++) {
		tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\n"
			      "kind: PodGroup\nmetadata: {name: %s, namespace: "
			      "ml}\nspec:\n  priority: %d\n  schedulingPolicy: "
			      "{gang: {minCount: %d}}\n  "
			      "schedulingConstraints: {topology: [{key: "
			      "example.com/rack}]}\n",
			  g[k].name, g[k].prio, g[k].pods);
		for (int i = 0; i < g[k].pods; i++) {
			char name[32];
			snprintf(name, sizeof name, "%s-%d", g[k].name, i);
			tu_pod_yaml(&b, name, g[k].name, NULL, g[k].gpus,
				    g[k].prio);
		}
	}
	return tu_load_buf(&b);
}

static const wpl_buy *buy_at(const wasp_plan *p, int prio)
{
	for (int i = 0; i < p->nbuy; i++)
		if (p->buy[i].priority == prio)
			return &p->buy[i];
	return NULL;
}

/* mode x model: greedy, node ILP, ILP over parts */
static void opts(wasp_options *o, int variant)
{
	wasp_options_init(o);
	o->mode = variant == 0 ? WASP_MODE_GREEDY : WASP_MODE_ILP;
	o->node_model = variant == 1;
}

START_TEST(test_unlimited_evicts_for_both)
{
	wasp_snapshot *s = full_cluster();
	wasp_options o;
	opts(&o, _i);
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "big"), 2);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "small"), 1);
	ck_assert_int_eq(p->nevict, 5);
	/* the evictions buy everything: nothing fits without them */
	ck_assert_int_eq(p->nbuy, 2);
	ck_assert_int_eq(p->buy[0].priority, 100); /* highest first */
	ck_assert_int_eq(p->buy[0].with, 2);
	ck_assert_int_eq(p->buy[0].without, 0);
	ck_assert_int_eq(p->buy[1].priority, 50);
	ck_assert_int_eq(p->buy[1].with, 1);
	ck_assert_int_eq(p->buy[1].without, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

START_TEST(test_preempt_never)
{
	wasp_snapshot *s = full_cluster();
	wasp_options o;
	opts(&o, _i);
	o.preempt = WASP_PREEMPT_NEVER;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_int_eq(p->nevict, 0);
	ck_assert_int_eq(p->nplace, 0);
	ck_assert_int_eq(p->nwait, 2);
	ck_assert_ptr_null(p->buy); /* nothing evicted, nothing bought */
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Three evictions allow "small" (1) but not "big" (4): tier 1 would
 * rather have "big", the cap forbids it. */
START_TEST(test_max_evictions)
{
	wasp_snapshot *s = full_cluster();
	wasp_options o;
	opts(&o, _i);
	o.max_evictions = 3;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_int_le(p->nevict, 3);
	ck_assert_int_eq(p->nevict, 1);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "big"), 0);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "small"), 1);
	const wpl_buy *b = buy_at(p, 50);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->with, 1);
	ck_assert_int_eq(b->without, 0);
	wasp_plan_free(p);
	/* four: "big" instead (higher priority), "small" must wait */
	o.max_evictions = 4;
	p = tu_solve(s, &o);
	ck_assert_int_eq(p->nevict, 4);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "big"), 2);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "small"), 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

START_TEST(test_bad_options)
{
	wasp_snapshot *s = full_cluster();
	wasp_options o;
	wasp_plan *p = NULL;
	wasp_error e;
	wasp_options_init(&o);
	o.preempt = 7;
	ck_assert_int_eq(wasp_solve(s, &o, &p, &e), WASP_EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(e.msg, "preempt"), "%s", e.msg);
	wasp_options_init(&o);
	o.max_evictions = -1;
	ck_assert_int_eq(wasp_solve(s, &o, &p, &e), WASP_EINVAL);
	ck_assert_msg(strstr(e.msg, "max_evictions"), "%s", e.msg);
	wasp_snapshot_free(s);
}
END_TEST

/* evictionsBuy in JSON and YAML, read back; the text report's table. */
START_TEST(test_buy_roundtrip)
{
	wasp_snapshot *s = full_cluster();
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nbuy, 2);
	for (int f = WASP_FORMAT_JSON; f <= WASP_FORMAT_YAML; f++) {
		char *t = wasp_plan_render(p, f, NULL);
		ck_assert_ptr_nonnull(t);
		ck_assert_msg(strstr(t, "admittedPodsWithoutEvictions"), "%s",
			      t);
		wasp_plan *q = NULL;
		ck_assert_int_eq(wasp_plan_from_text(&q, t, strlen(t), "p",
						     NULL), WASP_OK);
		ck_assert_int_eq(q->nbuy, p->nbuy);
		for (int i = 0; i < p->nbuy; i++) {
			ck_assert_int_eq(q->buy[i].priority, p->buy[i].priority);
			ck_assert_int_eq(q->buy[i].with, p->buy[i].with);
			ck_assert_int_eq(q->buy[i].without, p->buy[i].without);
		}
		wasp_plan_free(q);
		wasp_free(t);
	}
	char *t = wasp_plan_render(p, WASP_FORMAT_TEXT, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(strstr(t, "What the evictions buy"), "%s", t);
	ck_assert_msg(strstr(t, "for 5 evicted pods"), "%s", t);
	wasp_free(t);
	/* a bad row is a positioned error */
	const char *bad = "{\"apiVersion\": \"" WASP_PLAN_API_VERSION "\", "
			  "\"kind\": \"Plan\", \"evictionsBuy\": "
			  "[{\"priority\": \"high\"}]}";
	wasp_plan *q = NULL;
	wasp_error e;
	ck_assert_int_eq(wasp_plan_from_text(&q, bad, strlen(bad), "b", &e),
			 WASP_EINPUT);
	ck_assert_int_gt(e.line, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("safety");
	TCase *tc = tcase_create("switches");
	/* 0 greedy, 1 node ILP, 2 ILP (over parts where it applies) */
	tcase_add_loop_test(tc, test_unlimited_evicts_for_both, 0, 3);
	tcase_add_loop_test(tc, test_preempt_never, 0, 3);
	tcase_add_loop_test(tc, test_max_evictions, 0, 3);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_buy_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
