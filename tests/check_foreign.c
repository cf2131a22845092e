/*
 * check_foreign.c -- coscheduling (scheduling.x-k8s.io/v1alpha1) and
 * Volcano (scheduling.volcano.sh/v1beta1) PodGroups read as gangs
 * (decode_foreign.c, doc/input.md "PodGroups of other schedulers").
 * Every plan goes through tu_solve, so the verifier checks the gangs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "testutil.h"

#define RACK "example.com/rack"
#define BLOCK "example.com/block"

/* Four 4-GPU nodes: n0, n1 in rack r0 and n2, n3 in rack r1, both racks
 * in block b0; a Kueue Topology block > rack > hostname.  n0 and n2 have
 * 2 GPUs held by running pods. */
static void cluster(tu_buf *b)
{
	tu_printf(b, "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\n"
		     "metadata: {name: t}\nspec:\n  levels:\n  - nodeLabel: "
		     BLOCK "\n  - nodeLabel: " RACK "\n  - nodeLabel: "
		     "kubernetes.io/hostname\n");
	for (int n = 0; n < 4; n++)
		tu_printf(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
			     "  name: n%d\n  labels: {" BLOCK ": b0, " RACK
			     ": r%d, kubernetes.io/hostname: n%d}\nstatus:\n"
			     "  allocatable: {cpu: \"64\", memory: 64Gi, "
			     "pods: \"110\", nvidia.com/gpu: \"4\"}\n",
			  n, n / 2, n);
	tu_pod_yaml(b, "busy-0", NULL, "n0", 2, 0);
	tu_pod_yaml(b, "busy-2", NULL, "n2", 2, 0);
	tu_printf(b, "---\napiVersion: scheduling.k8s.io/v1\nkind: "
		     "PriorityClass\nmetadata: {name: high}\nvalue: 500\n");
}

/* A pending pod that joins a group by label (coscheduling) or
 * annotation (Volcano); priorityClassName high when prio. */
static void member(tu_buf *b, const char *name, const char *how,
		   const char *group, int gpus, bool prio)
{
	tu_printf(b, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n"
		     "  namespace: ml\n  %s: {%s: %s}\nspec:\n%s"
		     "  containers:\n  - name: c\n    resources: {requests: "
		     "{cpu: \"1\", nvidia.com/gpu: \"%d\"}}\n",
		  name, !strcmp(how, "label") ? "labels" : "annotations",
		  !strcmp(how, "label") ? "scheduling.x-k8s.io/pod-group"
					: "scheduling.k8s.io/group-name",
		  group, prio ? "  priorityClassName: high\n" : "", gpus);
}

static void cosched(tu_buf *b, const char *name, int min)
{
	tu_printf(b, "---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: "
		     "PodGroup\nmetadata: {name: %s, namespace: ml}\nspec:\n"
		     "  minMember: %d\n  scheduleTimeoutSeconds: 60\n"
		     "  minResources: {nvidia.com/gpu: \"12\"}\n", name, min);
}

static const wpl_admit *admitted(const wasp_plan *p, const char *g)
{
	for (int i = 0; i < p->nadmit; i++)
		if (!strcmp(p->admit[i].group, g))
			return &p->admit[i];
	return NULL;
}

/* minMember pods or none; the priority is the pods' class. */
START_TEST(test_cosched_gang)
{
	tu_buf b = {0};
	cluster(&b);
	cosched(&b, "train", 3);
	for (int i = 0; i < 3; i++) {
		char n[16];
		snprintf(n, sizeof n, "train-%d", i);
		member(&b, n, "label", "train", 4, true);
	}
	/* four of 4 GPUs but only 2 whole nodes free: never 3 */
	cosched(&b, "big", 4);
	for (int i = 0; i < 4; i++) {
		char n[16];
		snprintf(n, sizeof n, "big-%d", i);
		member(&b, n, "label", "big", 3, false);
	}
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_snapshot_stats st;
	wasp_snapshot_stats_get(s, &st);
	ck_assert_int_eq(st.groups, 2);
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		wasp_options o;
		wasp_options_init(&o);
		o.mode = mode;
		o.preempt = WASP_PREEMPT_NEVER; /* busy-0, busy-2 stay */
		wasp_plan *p = tu_solve(s, &o);
		/* train: 3 x 4 GPUs need n1, n3 and one more whole node:
		 * there is none, so it waits; big: 4 x 3 GPUs fit nowhere
		 * (n0 and n2 have 2 left) */
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "train"), 0);
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "big"), 0);
		ck_assert_int_eq(p->nwait, 2);
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);

	/* minMember 2 of 3: two fit (n1, n3), and the gang is admitted */
	cluster(&b);
	cosched(&b, "train", 2);
	for (int i = 0; i < 3; i++) {
		char n[16];
		snprintf(n, sizeof n, "train-%d", i);
		member(&b, n, "label", "train", 4, true);
	}
	s = tu_load_buf(&b);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.preempt = WASP_PREEMPT_NEVER;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "train"), 2);
	const wpl_admit *a = admitted(p, "train");
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->priority, 500); /* from the pods' class */
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Volcano: priorityClassName on the group, networkTopology hard tier 1
 * = the rack (the finest Kueue level above the host). */
START_TEST(test_volcano_tier)
{
	tu_buf b = {0};
	for (int hard = 1; hard >= 0; hard--) {
		cluster(&b);
		tu_printf(&b, "---\napiVersion: scheduling.volcano.sh/v1beta1\n"
			      "kind: PodGroup\nmetadata: {name: vj, namespace: "
			      "ml}\nspec:\n  minMember: 2\n  queue: default\n"
			      "  priorityClassName: high\n  minTaskMember: "
			      "{worker: 2}\n  networkTopology: {mode: %s, "
			      "highestTierAllowed: 1}\n",
			  hard ? "hard" : "soft");
		member(&b, "vj-0", "annotation", "vj", 2, false);
		member(&b, "vj-1", "annotation", "vj", 2, false);
		wasp_snapshot *s = tu_load_buf(&b);
		bool warned = false;
		const char *w;
		for (size_t i = 0; (w = wasp_snapshot_warning(s, i)); i++)
			warned |= strstr(w, "minTaskMember") != NULL;
		ck_assert(warned);
		wasp_plan *p = tu_solve_mode(s, WASP_MODE_ILP);
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "vj"), 2);
		const wpl_admit *a = admitted(p, "vj");
		ck_assert_ptr_nonnull(a);
		ck_assert_int_eq(a->priority, 500);
		if (hard) {
			ck_assert_ptr_nonnull(a->key);
			ck_assert_str_eq(a->key, RACK);
		}
		/* both pods in one rack either way: soft prefers it, and it
		 * fits */
		const char *n0 = tu_node_of(p, "ml", "vj-0");
		const char *n1 = tu_node_of(p, "ml", "vj-1");
		ck_assert((n0[1] - '0') / 2 == (n1[1] - '0') / 2);
		wasp_plan_free(p);
		wasp_snapshot_free(s);
	}
}
END_TEST

/* The same name in three API groups: three groups, no clash. */
START_TEST(test_no_clash)
{
	tu_buf b = {0};
	cluster(&b);
	tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: "
		      "PodGroup\nmetadata: {name: g, namespace: ml}\nspec:\n"
		      "  schedulingPolicy: {gang: {minCount: 1}}\n");
	tu_pod_yaml(&b, "native-0", "g", NULL, 1, 0);
	cosched(&b, "g", 1);
	member(&b, "cs-0", "label", "g", 1, false);
	tu_printf(&b, "---\napiVersion: scheduling.volcano.sh/v1beta1\n"
		      "kind: PodGroup\nmetadata: {name: g, namespace: ml}\n"
		      "spec: {minMember: 1}\n");
	member(&b, "vc-0", "annotation", "g", 1, false);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_snapshot_stats st;
	wasp_snapshot_stats_get(s, &st);
	ck_assert_int_eq(st.groups, 3);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 3);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

START_TEST(test_bad_input)
{
	const char *bad[][2] = {
	    {"apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
	     "metadata: {name: v, namespace: ml}\nspec:\n  networkTopology:"
	     " {mode: strict}\n", "expected hard or soft"},
	    {"apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
	     "metadata: {name: v, namespace: ml}\nspec:\n  minMember: -1\n",
	     "spec.minMember"},
	    {"apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
	     "metadata: {name: v, namespace: ml}\nspec: {minMember: 1}\n---\n"
	     "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
	     "metadata: {name: v, namespace: ml}\nspec: {minMember: 1}\n",
	     "duplicate PodGroup.scheduling.x-k8s.io"}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		wasp_error e = tu_load_fail(bad[i][0]);
		ck_assert_int_eq(e.code, WASP_EINPUT);
		ck_assert_int_gt(e.line, 0);
		ck_assert_msg(strstr(e.msg, bad[i][1]), "%s", e.msg);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("foreign");
	TCase *tc = tcase_create("podgroups");
	tcase_add_test(tc, test_cosched_gang);
	tcase_add_test(tc, test_volcano_tier);
	tcase_add_test(tc, test_no_clash);
	tcase_add_test(tc, test_bad_input);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
