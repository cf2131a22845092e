/*
 * check_tree.c -- CompositePodGroup trees and the topology annotations
 * (doc/input.md, doc/formulation.md §9): decoding and its errors, greedy tree placement, the ILP's
 * tree rows, and the verifier's tree checks.
 *
 * Clusters are written as YAML by a small builder; every plan goes
 * through tu_solve, hence through the verifier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define GPU "nvidia.com/gpu"
#define BLOCK "example.com/block"
#define RACK "example.com/rack"
#define EXCL "alpha.jobset.sigs.k8s.io/exclusive-topology: " RACK

/* Short names: the builders below call these on every line. */
typedef tu_buf yb;
#define y tu_printf

/* A node in block/rack with `gpus` GPUs; `extra` is more YAML under spec
 * (taints) or "". */
static void y_node(yb *b, const char *name, const char *block,
		   const char *rack, int gpus, const char *spec)
{
	y(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n"
	     "  labels: {" BLOCK ": %s, " RACK ": %s}\n", name, block, rack);
	if (*spec)
		y(b, "spec:\n%s", spec);
	y(b, "status:\n  allocatable: {cpu: \"64\", memory: 512Gi, "
	     "pods: \"110\", " GPU ": \"%d\"}\n", gpus);
}

/* A CompositePodGroup: mgc 0 = basic; parent, key, ann may be NULL. */
static void y_cpg(yb *b, const char *name, const char *parent, int mgc,
		  const char *key, const char *ann)
{
	y(b, "---\napiVersion: scheduling.k8s.io/v1alpha3\n"
	     "kind: CompositePodGroup\nmetadata:\n  name: %s\n"
	     "  namespace: ml\n", name);
	if (ann)
		y(b, "  annotations: {%s}\n", ann);
	y(b, "spec:\n");
	if (parent)
		y(b, "  parentCompositePodGroupName: %s\n", parent);
	if (mgc)
		y(b, "  schedulingPolicy: {gang: {minGroupCount: %d}}\n", mgc);
	else
		y(b, "  schedulingPolicy: {basic: {}}\n");
	if (key)
		y(b, "  schedulingConstraints: {topology: [{key: %s}]}\n", key);
}

/* A PodGroup under `parent` (gang minCount min, 0: basic) and its n
 * pending pods <name>-<i> of `gpus` GPUs; `tol` adds a toleration of
 * every taint. */
static void y_pg(yb *b, const char *name, const char *parent, int min,
		 int n, int gpus, const char *key, const char *ann, bool tol)
{
	y(b, "---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\n"
	     "metadata:\n  name: %s\n  namespace: ml\n", name);
	if (ann)
		y(b, "  annotations: {%s}\n", ann);
	y(b, "spec:\n");
	if (parent)
		y(b, "  parentCompositePodGroupName: %s\n", parent);
	if (min)
		y(b, "  schedulingPolicy: {gang: {minCount: %d}}\n", min);
	else
		y(b, "  schedulingPolicy: {basic: {}}\n");
	if (key)
		y(b, "  schedulingConstraints: {topology: [{key: %s}]}\n", key);
	for (int i = 0; i < n; i++) {
		y(b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%d, "
		     "namespace: ml}\nspec:\n  schedulingGroup: {podGroupName:"
		     " %s}\n", name, i, name);
		if (tol)
			y(b, "  tolerations: [{operator: Exists}]\n");
		y(b, "  containers:\n  - name: c\n    resources: {requests: "
		     "{cpu: \"1\", " GPU ": \"%d\"}}\n", gpus);
	}
}

static const char *node_label(const wasp_snapshot *s, const char *node,
			      const char *key)
{
	int n = ws_node_index(s, node);
	ck_assert_int_ge(n, 0);
	return ws_label(&s->nodes[n], key);
}

/* The value of `key` shared by every placed pod of group g (fails the
 * test if they differ); NULL when none is placed. */
static const char *group_dom(const wasp_snapshot *s, const wasp_plan *p,
			     const char *g, const char *key)
{
	const char *d = NULL;
	for (int i = 0; i < p->nplace; i++) {
		if (!p->place[i].group || strcmp(p->place[i].group, g))
			continue;
		const char *v = node_label(s, p->place[i].node, key);
		if (!d)
			d = v;
		ck_assert_str_eq(d, v);
	}
	return d;
}

static wasp_plan *solve(const wasp_snapshot *s, int mode)
{
	wasp_plan *p = tu_solve_mode(s, mode);
	if (mode == WASP_MODE_ILP) {
		/* the ILP ran and proved its answer */
		ck_assert_str_eq(p->sum.mode, "ilp");
		ck_assert_str_eq(p->sum.status, "optimal");
	}
	return p;
}

/* ---------------------------------------------------------- decoding */

START_TEST(decode_tree)
{
	yb b = {0};
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_cpg(&b, "mid", "root", 0, RACK, NULL);
	y_pg(&b, "a", "root", 2, 2, 1, NULL, NULL, false);
	y_pg(&b, "c", "mid", 1, 1, 1, NULL, NULL, false);
	wasp_snapshot *s = tu_load(b.buf);
	ck_assert_int_eq(s->ncomps, 2);
	ck_assert_int_eq(s->comps[0].depth, 1);
	ck_assert_int_eq(s->comps[1].depth, 2);
	ck_assert_int_eq(s->comps[1].pcomp, 1);
	ck_assert_int_eq(s->comps[0].min_groups, 2);
	ck_assert_int_eq(s->comps[1].min_groups, 1);
	ck_assert_int_eq(s->comps[1].policy, WS_POLICY_BASIC);
	ck_assert_str_eq(s->comps[0].topo_key, BLOCK);
	/* children: groups then composites, input order */
	ck_assert_int_eq(s->comps[0].nkids, 2);
	ck_assert_int_eq(s->comps[0].kids[0], 0);
	ck_assert_int_eq(s->comps[0].kids[1], -2);
	ck_assert_int_eq(s->groups[1].pcomp, 2);
	ck_assert_int_eq(s->nwarnings, 0);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* The corpus (read-only, outside the repository; skipped when absent). */
#define CORPUS "/work/shared/corpus/real/"

static bool have(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

START_TEST(decode_corpus)
{
	const char *path[] = {CORPUS "cpg-v1alpha3-hierarchy-website.yaml"};
	if (!have(path[0]))
		return;
	wasp_snapshot *s = NULL;
	wasp_error e;
	ck_assert_int_eq(wasp_snapshot_load(&s, path, 1, &e), WASP_OK);
	ck_assert_int_eq(s->ncomps, 1);
	ck_assert_str_eq(s->comps[0].name, "root-group-0");
	ck_assert_int_eq(s->comps[0].min_groups, 2);
	ck_assert_int_eq(s->comps[0].nkids, 2);
	ck_assert_int_eq(s->ngroups, 2);
	ck_assert_int_eq(s->groups[0].min_count, 4);
	/* one pod of 4 needed: the tree waits */
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 0);
	ck_assert_ptr_nonnull(tu_wait_reason(p, "default", "workers-a-0"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

#define CPG(name, extra)                                                     \
	"apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"  \
	"metadata: {name: " name "}\nspec:\n"                                \
	"  schedulingPolicy: {gang: {minGroupCount: 1}}\n" extra

START_TEST(decode_errors)
{
	wasp_error e;
	/* dangling parent, at the parent's name */
	e = tu_load_fail(CPG("a", "  parentCompositePodGroupName: ghost\n"));
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 6);
	ck_assert_int_eq(e.col, 32);
	ck_assert_str_eq(e.msg, "spec.parentCompositePodGroupName: "
			 "CompositePodGroup default/ghost does not exist");
	/* a cycle */
	e = tu_load_fail(CPG("a", "  parentCompositePodGroupName: b\n")
			 "---\n" CPG("b", "  parentCompositePodGroupName: a\n"));
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 6);
	ck_assert_str_eq(e.msg, "spec.parentCompositePodGroupName: "
			 "CompositePodGroup default/a is its own ancestor "
			 "(a cycle through b)");
	/* depth: a -> b -> c -> d puts d at depth 4, its PodGroups at 5 */
	e = tu_load_fail(CPG("a", "") "---\n"
			 CPG("b", "  parentCompositePodGroupName: a\n") "---\n"
			 CPG("c", "  parentCompositePodGroupName: b\n") "---\n"
			 CPG("d", "  parentCompositePodGroupName: c\n"));
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 26);
	ck_assert_str_eq(e.msg, "spec.parentCompositePodGroupName: "
			 "CompositePodGroup default/d is at depth 4; its "
			 "PodGroups would be deeper than 4 levels");
	/* mixed priorities */
	e = tu_load_fail(CPG("a", "  priority: 5\n") "---\n"
			 "apiVersion: scheduling.k8s.io/v1beta1\n"
			 "kind: PodGroup\nmetadata: {name: p}\nspec:\n"
			 "  parentCompositePodGroupName: a\n"
			 "  schedulingPolicy: {gang: {minCount: 1}}\n"
			 "  priority: 7\n");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 14);
	ck_assert_int_eq(e.col, 13);
	ck_assert_str_eq(e.msg, "PodGroup default/p has priority 7 but its "
			 "tree (parent a) has 5; a tree shares one priority");
	/* an `all` parent with a `single` child */
	e = tu_load_fail(CPG("a", "  disruptionMode: {all: {}}\n") "---\n"
			 "apiVersion: scheduling.k8s.io/v1beta1\n"
			 "kind: PodGroup\nmetadata: {name: p}\nspec:\n"
			 "  parentCompositePodGroupName: a\n"
			 "  schedulingPolicy: {gang: {minCount: 1}}\n"
			 "  disruptionMode: {single: {}}\n");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 14);
	ck_assert_str_eq(e.msg, "disruptionMode: parent a has disruptionMode "
			 "all, so its children must too");
	/* a PodGroup's minCount is not a composite's minGroupCount */
	e = tu_load_fail("apiVersion: scheduling.k8s.io/v1alpha3\n"
			 "kind: CompositePodGroup\nmetadata: {name: a}\n"
			 "spec:\n  schedulingPolicy: {gang: {minCount: 2}}\n");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 5);
	ck_assert_str_eq(e.msg, "spec.schedulingPolicy.gang: gang needs "
			 "minGroupCount");
	/* annotations other than the required key: PodGroups only */
	e = tu_load_fail(CPG("a", "") "  schedulingConstraints: {}\n"
			 "---\n"
			 "apiVersion: scheduling.k8s.io/v1alpha3\n"
			 "kind: CompositePodGroup\nmetadata:\n  name: b\n"
			 "  annotations: {" EXCL "}\n"
			 "spec: {schedulingPolicy: {basic: {}}}\n");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 12);
	ck_assert_str_eq(e.msg, "metadata.annotations: preferred, slice and "
			 "exclusive topology annotations are not supported "
			 "on a CompositePodGroup yet; put them on its "
			 "PodGroups");
	/* the required-topology annotation is a key, also on composites */
	wasp_snapshot *s0 = tu_load(
	    "apiVersion: scheduling.k8s.io/v1alpha3\n"
	    "kind: CompositePodGroup\nmetadata:\n  name: b\n"
	    "  annotations: {kueue.x-k8s.io/podset-required-topology: "
	    BLOCK "}\nspec: {schedulingPolicy: {basic: {}}}\n");
	ck_assert_str_eq(s0->comps[0].topo_key, BLOCK);
	wasp_snapshot_free(s0);
	/* the API fixture sets both basic and gang */
	wasp_snapshot *s = NULL;
	wasp_error e2;
	const char *path[] = {CORPUS "api-fixture-cpg-v1alpha3-all-fields.yaml"};
	if (!have(path[0]))
		return;
	ck_assert_int_eq(wasp_snapshot_load(&s, path, 1, &e2), WASP_EINPUT);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(e2.msg, "spec.schedulingPolicy: exactly one of "
			 "basic and gang must be set");
}
END_TEST

/* The tree inherits the root's priority when its members name none. */
START_TEST(decode_inherit)
{
	wasp_snapshot *s = tu_load(
	    CPG("a", "  priority: 5\n  disruptionMode: {all: {}}\n") "---\n"
	    "apiVersion: scheduling.k8s.io/v1beta1\n"
	    "kind: PodGroup\nmetadata: {name: p}\nspec:\n"
	    "  parentCompositePodGroupName: a\n"
	    "  schedulingPolicy: {gang: {minCount: 1}}\n"
	    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"
	    "spec: {schedulingGroup: {podGroupName: p}, containers: []}\n");
	ck_assert_int_eq(s->groups[0].priority, 5);
	ck_assert_int_eq(s->groups[0].disruption, WS_DISRUPT_ALL);
	ck_assert_int_eq(s->pods[0].priority, 5);
	ck_assert_ptr_null(s->groups[0].invalid);
	wasp_snapshot_free(s);
}
END_TEST

/* ------------------------------------------------------------ greedy */

/* Block b1: rack r1 with 2 nodes (8 GPUs), rack r2 with 1 node (4).
 * Children in creation order: a (4 pods) then b (8 pods), both per rack.
 * First fit in creation order puts a in r1 and strands b; wasp places b
 * (the more constrained) first. */
static char *strand_cluster(void)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 4, "");
	y_node(&b, "n2", "b1", "r1", 4, "");
	y_node(&b, "n3", "b1", "r2", 4, "");
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_pg(&b, "a", "root", 4, 4, 1, RACK, NULL, false);
	y_pg(&b, "b", "root", 8, 8, 1, RACK, NULL, false);
	return b.buf;
}

static void strand_check(int mode)
{
	char *text = strand_cluster();
	wasp_snapshot *s = tu_load(text);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "a"), 4);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "b"), 8);
	ck_assert_str_eq(group_dom(s, p, "a", RACK), "r2");
	ck_assert_str_eq(group_dom(s, p, "b", RACK), "r1");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(text);
}

START_TEST(greedy_strand)
{
	strand_check(WASP_MODE_GREEDY);
}
END_TEST

/* Sibling backtracking: a (2 pods of 1 CPU) and b (two pods of 2 GPUs,
 * in two classes) each need one rack, and each has two candidate racks,
 * so a (first created) goes first.  Rack r1 (n1: 3 pod slots, 2 CPUs,
 * 4 GPUs) is a's tightest fit and b's only real one; r3 (2 GPUs, half a
 * CPU) looks big enough for b to the per-class roll-up but is not.
 * Placing a in r1 strands b; wasp undoes it and puts a in r2, b in r1
 * (without retrying a's other racks the tree would wait). */
START_TEST(greedy_backtrack)
{
	yb b = {0};
	y(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
	      "  labels: {" RACK ": r1}\nstatus:\n  allocatable: {cpu: "
	      "\"2\", pods: \"3\", " GPU ": \"4\"}\n");
	y(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n"
	      "  labels: {" RACK ": r2}\nstatus:\n  allocatable: {cpu: "
	      "\"64\", pods: \"110\"}\n");
	y(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n3\n"
	      "  labels: {" RACK ": r3}\nstatus:\n  allocatable: {cpu: "
	      "500m, pods: \"110\", " GPU ": \"2\"}\n");
	y_cpg(&b, "root", NULL, 2, NULL, NULL);
	y(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	      "metadata: {name: a, namespace: ml}\nspec:\n"
	      "  parentCompositePodGroupName: root\n"
	      "  schedulingPolicy: {gang: {minCount: 2}}\n"
	      "  schedulingConstraints: {topology: [{key: " RACK "}]}\n"
	      "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	      "metadata: {name: b, namespace: ml}\nspec:\n"
	      "  parentCompositePodGroupName: root\n"
	      "  schedulingPolicy: {gang: {minCount: 2}}\n"
	      "  schedulingConstraints: {topology: [{key: " RACK "}]}\n");
	for (int i = 0; i < 2; i++)
		y(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a-%d, "
		      "namespace: ml}\nspec:\n  schedulingGroup: {podGroupName:"
		      " a}\n  containers:\n  - name: c\n    resources: "
		      "{requests: {cpu: \"1\"}}\n", i);
	for (int i = 0; i < 2; i++)
		y(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b-%d, "
		      "namespace: ml}\nspec:\n  schedulingGroup: {podGroupName:"
		      " b}\n  containers:\n  - name: c\n    resources: "
		      "{requests: {cpu: \"%dm\", " GPU ": \"2\"}}\n", i,
		  100 + 100 * i);
	wasp_snapshot *s = tu_load(b.buf);
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		wasp_plan *p = solve(s, mode);
		ck_assert_int_eq(p->nplace, 4);
		ck_assert_str_eq(group_dom(s, p, "a", RACK), "r2");
		ck_assert_str_eq(group_dom(s, p, "b", RACK), "r1");
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Two blocks; b1 has three 4-GPU nodes but n3 is tainted, b2 has two.
 * The tree needs three whole nodes in one block: without a toleration it
 * waits (and says why); with one it lands in b1. */
static char *taint_cluster(bool tol)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 4, "");
	y_node(&b, "n2", "b1", "r1", 4, "");
	y_node(&b, "n3", "b1", "r2", 4,
	       "  taints: [{key: maint, effect: NoSchedule}]\n");
	y_node(&b, "n4", "b2", "r3", 4, "");
	y_node(&b, "n5", "b2", "r3", 4, "");
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_pg(&b, "a", "root", 2, 2, 4, NULL, NULL, tol);
	y_pg(&b, "b", "root", 1, 1, 4, NULL, NULL, tol);
	return b.buf;
}

static void taint_check(int mode)
{
	char *text = taint_cluster(false);
	wasp_snapshot *s = tu_load(text);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 0);
	const char *why = tu_wait_reason(p, "ml", "a");
	ck_assert_ptr_nonnull(why);
	if (mode == WASP_MODE_GREEDY)
		ck_assert_str_eq(why, "CompositePodGroup ml/root needs 2 child "
				 "groups admitted in one example.com/block "
				 "domain; at most 1 fit together (block b1, "
				 "2 domains tried)");
	ck_assert_ptr_nonnull(tu_wait_reason(p, "ml", "b"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(text);

	text = taint_cluster(true);
	s = tu_load(text);
	p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 3);
	ck_assert_str_eq(group_dom(s, p, "a", BLOCK), "b1");
	ck_assert_str_eq(group_dom(s, p, "b", BLOCK), "b1");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(text);
}

START_TEST(greedy_taint)
{
	taint_check(WASP_MODE_GREEDY);
}
END_TEST

/* minGroupCount 2 of 3 children, room for two: the tree is admitted with
 * the two that fit and the third waits, saying so. */
static void mgc_check(int mode)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 4, "");
	y_node(&b, "n2", "b1", "r1", 4, "");
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_pg(&b, "a", "root", 1, 1, 4, NULL, NULL, false);
	y_pg(&b, "b", "root", 1, 1, 4, NULL, NULL, false);
	y_pg(&b, "c", "root", 1, 1, 4, NULL, NULL, false);
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 2);
	ck_assert_int_eq(p->nwait, 1);
	if (mode == WASP_MODE_GREEDY)
		ck_assert_str_eq(tu_wait_reason(p, "ml", "c"),
				 "its CompositePodGroup ml/root was admitted "
				 "without it: no room left for it inside the "
				 "parent's domain");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}

/* The whole tree before its minimum: root (block, minGroupCount 1) has
 * c1 and c2, each 3 whole-node pods in one rack.  Block bA (racks a1 of
 * 4 nodes, a2 of 2) has 6 node slots, the tightest that holds the tree
 * by roll-up, but only c1 fits there; bB (two racks of 4) holds both.
 * The greedy used to take bA and leave c2 waiting ("admitted without
 * it"); it must put the whole tree in bB. */
static void whole_tree_check(int mode)
{
	yb b = {0};
	const char *racks[] = {"a1", "a1", "a1", "a1", "a2", "a2",
			       "b1", "b1", "b1", "b1", "b2", "b2", "b2", "b2"};
	for (int i = 0; i < 14; i++) {
		char name[8];
		snprintf(name, sizeof name, "n%d", i);
		y_node(&b, name, racks[i][0] == 'a' ? "bA" : "bB", racks[i], 8,
		       "");
	}
	y_cpg(&b, "root", NULL, 1, BLOCK, NULL);
	y_pg(&b, "c1", "root", 3, 3, 8, RACK, NULL, false);
	y_pg(&b, "c2", "root", 3, 3, 8, RACK, NULL, false);
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "c1"), 3);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "c2"), 3);
	ck_assert_str_eq(group_dom(s, p, "c1", BLOCK), "bB");
	ck_assert_str_eq(group_dom(s, p, "c2", BLOCK), "bB");
	ck_assert_str_ne(group_dom(s, p, "c1", RACK),
			 group_dom(s, p, "c2", RACK));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}

START_TEST(greedy_whole_tree)
{
	whole_tree_check(WASP_MODE_GREEDY);
	whole_tree_check(WASP_MODE_ILP);
}
END_TEST

START_TEST(greedy_mgc)
{
	mgc_check(WASP_MODE_GREEDY);
}
END_TEST

/* a fits alone, b never does: the parent (minGroupCount 2) cannot be
 * admitted, so a waits too; a flat group alongside still goes. */
static void parent_wait_check(int mode)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 4, "");
	y_node(&b, "n2", "b2", "r2", 4, "");
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_pg(&b, "a", "root", 1, 1, 4, NULL, NULL, false);
	y_pg(&b, "b", "root", 2, 2, 4, NULL, NULL, false);
	y_pg(&b, "flat", NULL, 1, 1, 4, NULL, NULL, false);
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "a"), 0);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "b"), 0);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "flat"), 1);
	const char *why = tu_wait_reason(p, "ml", "a");
	ck_assert_ptr_nonnull(why);
	if (mode == WASP_MODE_GREEDY)
		ck_assert_str_eq(why, "CompositePodGroup ml/root needs 2 child "
				 "groups admitted in one example.com/block "
				 "domain; at most 1 fit together (block b1, "
				 "2 domains tried)");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}

START_TEST(greedy_parent_wait)
{
	parent_wait_check(WASP_MODE_GREEDY);
}
END_TEST

/* Three levels: root per block, two mid composites per rack, leaves.
 * Every descendant shares the root's block; each mid's leaves share a
 * rack. */
static void nested_check(int mode)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 4, "");
	y_node(&b, "n2", "b1", "r2", 4, "");
	y_node(&b, "n3", "b2", "r3", 8, "");
	y_node(&b, "n4", "b2", "r4", 8, "");
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_cpg(&b, "m1", "root", 2, RACK, NULL);
	y_cpg(&b, "m2", "root", 2, RACK, NULL);
	y_pg(&b, "x1", "m1", 2, 2, 2, NULL, NULL, false);
	y_pg(&b, "x2", "m1", 2, 2, 2, NULL, NULL, false);
	y_pg(&b, "y1", "m2", 2, 2, 2, NULL, NULL, false);
	y_pg(&b, "y2", "m2", 1, 1, 2, NULL, NULL, false);
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 7);
	/* 14 GPUs: only b2 (16) holds them */
	ck_assert_str_eq(group_dom(s, p, "x1", BLOCK), "b2");
	ck_assert_str_eq(group_dom(s, p, "y2", BLOCK), "b2");
	ck_assert_str_eq(group_dom(s, p, "x1", RACK),
			 group_dom(s, p, "x2", RACK));
	ck_assert_str_eq(group_dom(s, p, "y1", RACK),
			 group_dom(s, p, "y2", RACK));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}

START_TEST(greedy_nested)
{
	nested_check(WASP_MODE_GREEDY);
}
END_TEST

/* Path domains (Kueue's reading): rack r1 under b1 and under b2 are two
 * domains; the tree (block key) and its rack-confined child follow. */
START_TEST(greedy_path_mode)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 2, "");
	y_node(&b, "n2", "b2", "r1", 4, "");
	y_node(&b, "n3", "b2", "r2", 4, "");
	y_cpg(&b, "root", NULL, 2, BLOCK, NULL);
	y_pg(&b, "a", "root", 4, 4, 1, RACK, NULL, false);
	y_pg(&b, "c", "root", 2, 2, 2, NULL, NULL, false);
	wasp_snapshot *s = tu_load(b.buf);
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		wasp_options o;
		wasp_options_init(&o);
		o.mode = mode;
		o.domain_mode = WASP_DOMAIN_PATH;
		wasp_plan *p = tu_solve(s, &o);
		ck_assert_int_eq(p->nplace, 6);
		ck_assert_str_eq(group_dom(s, p, "a", BLOCK), "b2");
		ck_assert_str_eq(group_dom(s, p, "c", BLOCK), "b2");
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* --------------------------------------------------------------- ILP */

START_TEST(ilp_scenarios)
{
	strand_check(WASP_MODE_ILP);
	taint_check(WASP_MODE_ILP);
	mgc_check(WASP_MODE_ILP);
	parent_wait_check(WASP_MODE_ILP);
	nested_check(WASP_MODE_ILP);
}
END_TEST

/* ------------------------------------------------------- annotations */

static size_t vcheck(const char *cluster, const char *places, char **rep);
#define PL(pod, node) "{\"namespace\":\"ml\",\"pod\":\"" pod "\",\"node\":\"" node "\"}"

#define PREF "kueue.x-k8s.io/podset-preferred-topology: " RACK
#define SLICE "kueue.x-k8s.io/podset-slice-required-topology: " RACK \
	      ", kueue.x-k8s.io/podset-slice-size: \"4\""

/* Three racks; a running exclusive group holds r1; three pending
 * exclusive groups of one pod: two get r2 and r3, the third waits. */
static void excl_check(int mode)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 8, "");
	y_node(&b, "n2", "b1", "r2", 8, "");
	y_node(&b, "n3", "b2", "r3", 8, "");
	y_pg(&b, "x1", NULL, 1, 1, 1, NULL, EXCL, false);
	y_pg(&b, "x2", NULL, 1, 1, 1, NULL, EXCL, false);
	y_pg(&b, "x3", NULL, 1, 1, 1, NULL, EXCL, false);
	/* the running one: a group with a pod bound to n1 */
	y_pg(&b, "old", NULL, 1, 0, 1, NULL, EXCL, false);
	y(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: old-0, "
	      "namespace: ml}\nspec:\n  nodeName: n1\n  schedulingGroup: "
	      "{podGroupName: old}\n  containers: []\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 2);
	const char *r1 = group_dom(s, p, "x1", RACK);
	const char *r2 = group_dom(s, p, "x2", RACK);
	ck_assert_str_eq(r1, "r2");
	ck_assert_str_eq(r2, "r3");
	const char *why = tu_wait_reason(p, "ml", "x3");
	ck_assert_ptr_nonnull(why);
	if (mode == WASP_MODE_GREEDY)
		ck_assert_str_eq(why, "every example.com/rack domain is held "
				 "by another group with that exclusive "
				 "topology");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}

START_TEST(annot_exclusive)
{
	excl_check(WASP_MODE_GREEDY);
	excl_check(WASP_MODE_ILP);
}
END_TEST

/* Preferred rack: no rack holds the 4 pods; block b2 does (racks of 3
 * and 1), block b1 has only 3: the pods stay inside b2. */
#define TOPOLOGY                                                             \
	"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"        \
	"metadata: {name: t}\nspec:\n  levels:\n"                          \
	"  - nodeLabel: " BLOCK "\n  - nodeLabel: " RACK "\n"

static void pref_check(int mode)
{
	yb b = {0};
	y(&b, TOPOLOGY);
	y_node(&b, "n1", "b1", "r1", 2, "");
	y_node(&b, "n2", "b1", "r4", 1, "");
	y_node(&b, "n3", "b2", "r2", 3, "");
	y_node(&b, "n4", "b2", "r3", 1, "");
	y_pg(&b, "p", NULL, 4, 4, 1, NULL, PREF, false);
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 4);
	ck_assert_str_eq(group_dom(s, p, "p", BLOCK), "b2");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);

	/* a rack that holds them all: one rack */
	b = (yb){0};
	y(&b, TOPOLOGY);
	y_node(&b, "n1", "b1", "r1", 2, "");
	y_node(&b, "n2", "b1", "r1", 2, "");
	y_node(&b, "n3", "b2", "r2", 3, "");
	y_node(&b, "n4", "b2", "r3", 8, "");
	y_pg(&b, "p", NULL, 4, 4, 1, NULL, PREF, false);
	s = tu_load(b.buf);
	p = solve(s, mode);
	ck_assert_int_eq(p->nplace, 4);
	/* r1 (two half-free nodes) over r3 (one roomy node): the ILP may
	 * take either rack, both are one rack */
	if (mode == WASP_MODE_GREEDY)
		ck_assert_str_eq(group_dom(s, p, "p", RACK), "r1");
	else
		ck_assert_ptr_nonnull(group_dom(s, p, "p", RACK));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}

START_TEST(annot_preferred)
{
	pref_check(WASP_MODE_GREEDY);
	pref_check(WASP_MODE_ILP);
}
END_TEST

/* 8 pods in slices of 4 per rack, the whole group in one block: b1 has
 * 8 GPUs (racks of 3 and 5: one slice), b2 has 8 (4 and 4: two).  Raw
 * capacity fits in both; only b2 holds the slices.  Without b2 the group
 * waits. */
static void slice_check(int mode)
{
	for (int with_b2 = 1; with_b2 >= 0; with_b2--) {
		yb b = {0};
		y_node(&b, "n1", "b1", "r1", 3, "");
		y_node(&b, "n2", "b1", "r2", 5, "");
		if (with_b2) {
			y_node(&b, "n3", "b2", "r3", 4, "");
			y_node(&b, "n4", "b2", "r4", 4, "");
		}
		y_pg(&b, "s", NULL, 8, 8, 1, BLOCK, SLICE, false);
		wasp_snapshot *s = tu_load(b.buf);
		wasp_plan *p = solve(s, mode);
		if (with_b2) {
			ck_assert_int_eq(p->nplace, 8);
			ck_assert_str_eq(group_dom(s, p, "s", BLOCK), "b2");
		} else {
			ck_assert_int_eq(p->nplace, 0);
			if (mode == WASP_MODE_GREEDY)
				ck_assert_str_eq(tu_wait_reason(p, "ml", "s"),
						 "its 8 pods do not fit as "
						 "slices of 4, each inside "
						 "one example.com/rack "
						 "domain");
		}
		wasp_plan_free(p);
		wasp_snapshot_free(s);
		free(b.buf);
	}
}

START_TEST(annot_slices)
{
	slice_check(WASP_MODE_GREEDY);
	slice_check(WASP_MODE_ILP);
}
END_TEST

/* Two layers: slices of 4 per block, of 2 per rack.  b1: racks of 3 and
 * 1 (4 GPUs, but only one 2-slice); b2: racks of 2 and 2. */
START_TEST(annot_layers)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 3, "");
	y_node(&b, "n2", "b1", "r2", 1, "");
	y_node(&b, "n3", "b2", "r3", 2, "");
	y_node(&b, "n4", "b2", "r4", 2, "");
	y_pg(&b, "s", NULL, 4, 4, 1, NULL,
	     "kueue.x-k8s.io/podset-slice-required-topology-constraints: "
	     "'[{\"topology\": \"" BLOCK "\", \"size\": 4}, "
	     "{\"topology\": \"" RACK "\", \"size\": 2}]'", false);
	wasp_snapshot *s = tu_load(b.buf);
	ck_assert_int_eq(s->groups[0].tas->nslices, 2);
	ck_assert_int_eq(s->groups[0].tas->slice_size[1], 2);
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		wasp_plan *p = solve(s, mode);
		ck_assert_int_eq(p->nplace, 4);
		ck_assert_str_eq(group_dom(s, p, "s", BLOCK), "b2");
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
	free(b.buf);

	/* inner size must divide the outer one */
	wasp_error e = tu_load_fail(
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata:\n  name: a\n  annotations:\n"
	    "    kueue.x-k8s.io/podset-slice-required-topology-constraints: "
	    "'[{\"topology\": \"x\", \"size\": 4}, {\"topology\": \"y\","
	    " \"size\": 3}]'\n"
	    "spec: {schedulingPolicy: {basic: {}}}\n");
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_int_eq(e.line, 6);
	ck_assert_str_eq(e.msg, "metadata.annotations.kueue.x-k8s.io/"
			 "podset-slice-required-topology-constraints: size 3 "
			 "of layer 2 does not divide the outer size 4");
}
END_TEST

START_TEST(verify_annotations)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", 8, "");
	y_node(&b, "n2", "b1", "r2", 8, "");
	y_pg(&b, "x1", NULL, 1, 1, 1, NULL, EXCL, false);
	y_pg(&b, "x2", NULL, 1, 1, 1, NULL, EXCL, false);
	y_pg(&b, "s", NULL, 8, 8, 1, NULL, SLICE, false);
	char *rep = NULL;
	size_t nv = vcheck(b.buf, PL("x1-0", "n1") "," PL("x2-0", "n1") ","
			   PL("s-0", "n1") "," PL("s-1", "n1") ","
			   PL("s-2", "n1") "," PL("s-3", "n2") ","
			   PL("s-4", "n2") "," PL("s-5", "n2") ","
			   PL("s-6", "n2") "," PL("s-7", "n2"), &rep);
	ck_assert_int_eq(nv, 3);
	ck_assert_str_eq(rep, "exclusive topology example.com/rack: domain r1 "
			 "holds both ml/x1 and ml/x2\n"
			 "group ml/s: 3 pods in example.com/rack r1, not a "
			 "multiple of the slice size 4\n"
			 "group ml/s: 5 pods in example.com/rack r2, not a "
			 "multiple of the slice size 4\n");
	wasp_free(rep);
	free(b.buf);
}
END_TEST

/* ---------------------------------------------------------- verifier */

static size_t vcheck(const char *cluster, const char *places, char **rep)
{
	wasp_snapshot *s = tu_load(cluster);
	char *text = NULL;
	size_t n = strlen(places) + 256;
	text = malloc(n);
	snprintf(text, n,
		 "{\"apiVersion\":\"wasp.dev/v1alpha1\",\"kind\":\"Plan\","
		 "\"summary\":{\"domainMode\":\"value\"},"
		 "\"placements\":[%s],\"waiting\":[]}", places);
	wasp_plan *p = NULL;
	wasp_error e;
	ck_assert_int_eq(wasp_plan_from_text(&p, text, strlen(text), "p",
					     &e), WASP_OK);
	size_t nv = 0;
	ck_assert_int_eq(wasp_check(s, p, &nv, rep, &e), WASP_OK);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(text);
	return nv;
}

START_TEST(verify_tree)
{
	char *text = strand_cluster();
	char *rep = NULL;
	/* b alone: the parent needs 2 children */
	size_t nv = vcheck(text,
			   PL("b-0", "n1") "," PL("b-1", "n1") ","
			   PL("b-2", "n1") "," PL("b-3", "n1") ","
			   PL("b-4", "n2") "," PL("b-5", "n2") ","
			   PL("b-6", "n2") "," PL("b-7", "n2"), &rep);
	ck_assert_int_eq(nv, 1);
	ck_assert_str_eq(rep, "CompositePodGroup ml/root: 8 pods placed below "
			 "it but only 1 of minGroupCount 2 child groups "
			 "admitted\n");
	wasp_free(rep);
	free(text);

	/* the taint cluster with tolerations: a in b1, b in b2 */
	text = taint_cluster(true);
	nv = vcheck(text, PL("a-0", "n1") "," PL("a-1", "n2") ","
			  PL("b-0", "n4"), &rep);
	ck_assert_int_eq(nv, 1);
	ck_assert_str_eq(rep, "CompositePodGroup ml/root: pods span more than "
			 "one example.com/block domain: b1 (pod a-0 on n1) "
			 "and b2 (pod b-0 on n4)\n");
	wasp_free(rep);
	nv = vcheck(text, PL("a-0", "n1") "," PL("a-1", "n2") ","
			  PL("b-0", "n3"), &rep);
	ck_assert_int_eq(nv, 0);
	wasp_free(rep);
	free(text);
}
END_TEST

/* wasp gen --trees: deterministic, decodes into trees, plans verify. */
START_TEST(gen_trees)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.levels = 3;
	g.fanout = 2;
	g.nodes = 32;
	g.gangs = 2;
	g.trees = 6;
	wasp_error e;
	char *a = wasp_gen(&g, &e), *b = wasp_gen(&g, &e);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a, b);
	wasp_snapshot *s = tu_load(a);
	ck_assert_int_ge(s->ncomps, 6);
	int roots = 0;
	for (int h = 0; h < s->ncomps; h++)
		roots += s->comps[h].pcomp == 0;
	ck_assert_int_eq(roots, 6);
	/* a smoke test of the generated trees, not of the ILP's speed:
	 * GLPK does not prove this one within a minute (cbc takes 19 s) */
	wasp_options o;
	wasp_options_init(&o);
	o.time_limit_s = 3;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_int_gt(p->nplace, 0);
	wasp_plan_free(p);
	o.mode = WASP_MODE_ILP;
	p = tu_solve(s, &o);
	ck_assert_int_gt(p->nplace, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	wasp_free(a);
	wasp_free(b);
	g.trees = -1;
	ck_assert_ptr_null(wasp_gen(&g, &e));
	ck_assert_int_eq(e.code, WASP_EINVAL);
}
END_TEST

/* A plain gang of n pods of 1 GPU at priority prio (group and pods). */
static void y_gang_prio(yb *b, const char *name, int n, int prio)
{
	y(b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	     "metadata: {name: %s, namespace: ml}\nspec:\n"
	     "  schedulingPolicy: {gang: {minCount: %d}}\n  priority: %d\n",
	  name, n, prio);
	for (int i = 0; i < n; i++)
		y(b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%d, "
		     "namespace: ml}\nspec:\n  priority: %d\n"
		     "  schedulingGroup: {podGroupName: %s}\n  containers:\n"
		     "  - name: c\n    resources: {requests: {cpu: \"1\", "
		     GPU ": \"1\"}}\n", name, i, prio, name);
}

/* A tree is placed at its (shared) priority, among the plain gangs: a
 * higher-priority gang beats it for scarce GPUs, a lower-priority one
 * loses to it.  The tree (root per block, priority 5) has one child of 4
 * pods of 1 GPU; gangs hi (priority 10) and lo (priority 1) want 4 GPUs
 * each.  gpus: GPUs of the one node; hi, lo: whether those gangs exist. */
static wasp_plan *prio_case(int mode, int gpus, bool hi, bool lo,
			    wasp_snapshot **sp)
{
	yb b = {0};
	y_node(&b, "n1", "b1", "r1", gpus, "");
	y_cpg(&b, "tree", NULL, 1, BLOCK, NULL);
	y(&b, "  priority: 5\n");
	y_pg(&b, "kid", "tree", 4, 4, 1, NULL, NULL, false);
	if (hi)
		y_gang_prio(&b, "hi", 4, 10);
	if (lo)
		y_gang_prio(&b, "lo", 4, 1);
	*sp = tu_load(b.buf);
	free(b.buf);
	return solve(*sp, mode);
}

static void prio_check(int mode)
{
	wasp_snapshot *s;
	/* 8 GPUs: hi, then the tree; lo waits */
	wasp_plan *p = prio_case(mode, 8, true, true, &s);
	ck_assert_int_eq(p->nplace, 8);
	ck_assert_str_eq(group_dom(s, p, "hi", RACK), "r1");
	ck_assert_str_eq(group_dom(s, p, "kid", RACK), "r1");
	ck_assert_ptr_null(group_dom(s, p, "lo", RACK));
	ck_assert_ptr_nonnull(tu_wait_reason(p, "ml", "lo"));
	ck_assert_ptr_null(tu_wait_reason(p, "ml", "kid"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	/* 4 GPUs, hi against the tree: hi wins, the tree waits */
	p = prio_case(mode, 4, true, false, &s);
	ck_assert_int_eq(p->nplace, 4);
	ck_assert_str_eq(group_dom(s, p, "hi", RACK), "r1");
	ck_assert_ptr_null(group_dom(s, p, "kid", RACK));
	ck_assert_ptr_nonnull(tu_wait_reason(p, "ml", "kid"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	/* 4 GPUs, the tree against lo: the tree wins */
	p = prio_case(mode, 4, false, true, &s);
	ck_assert_int_eq(p->nplace, 4);
	ck_assert_str_eq(group_dom(s, p, "kid", RACK), "r1");
	ck_assert_ptr_null(group_dom(s, p, "lo", RACK));
	ck_assert_ptr_nonnull(tu_wait_reason(p, "ml", "lo"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}

START_TEST(tree_priority)
{
	prio_check(WASP_MODE_GREEDY);
	prio_check(WASP_MODE_ILP);
}
END_TEST

/* Trees placed by the greedy: the same plan with 1 and 2 threads (the
 * root's candidate domains are scored in parallel when large), on the
 * 2,048-node / 200-tree instance of doc/formulation.md §9. */
START_TEST(greedy_threads)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.levels = 3;
	g.fanout = 4;
	g.nodes = 2048;
	g.gangs = 0;
	g.trees = 200;
	wasp_plan *p = tu_greedy_threads_same(&g);
	ck_assert_int_gt(p->nplace, 1000);
	wasp_plan_free(p);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("decode");
	tcase_add_test(tc, decode_tree);
	tcase_add_test(tc, decode_corpus);
	tcase_add_test(tc, decode_errors);
	tcase_add_test(tc, decode_inherit);
	suite_add_tcase(s, tc);
	tc = tcase_create("greedy");
	tcase_add_test(tc, greedy_strand);
	tcase_add_test(tc, greedy_backtrack);
	tcase_add_test(tc, greedy_taint);
	tcase_add_test(tc, greedy_mgc);
	tcase_add_test(tc, greedy_whole_tree);
	tcase_add_test(tc, greedy_parent_wait);
	tcase_add_test(tc, greedy_nested);
	tcase_add_test(tc, greedy_path_mode);
	tcase_add_test(tc, greedy_threads);
	tcase_add_test(tc, tree_priority);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("ilp");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ilp_scenarios);
	suite_add_tcase(s, tc);
	tc = tcase_create("annotations");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, annot_exclusive);
	tcase_add_test(tc, annot_preferred);
	tcase_add_test(tc, annot_slices);
	tcase_add_test(tc, annot_layers);
	tcase_add_test(tc, verify_annotations);
	tcase_add_test(tc, gen_trees);
	suite_add_tcase(s, tc);
	tc = tcase_create("verify");
	tcase_add_test(tc, verify_tree);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
