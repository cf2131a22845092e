/*
 * check_greedy.c -- the greedy core (src/solve/greedy/).
 *
 * Scenario tests write small clusters as YAML (a builder below, or files
 * under tests/fixtures/solve/) and go through tu_load + tu_solve, so every
 * plan is checked by the verifier.  A few unit tests drive wgr_solve on
 * hand-built snapshots to look at the solution itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/greedy/greedy.h"
#include "testutil.h"
#include "fixtures/solve/hand.h"

#define GPU "nvidia.com/gpu"
#define RACK "example.com/rack"

/* ------------------------------------------------------- YAML builder */

/* Short names: the builders below call these on every line. */
typedef tu_buf yb;
#define y tu_printf

/* A node with `gpus` GPUs; labels as a YAML flow map body ("" for none). */
static void y_node(yb *b, const char *name, const char *labels, int gpus)
{
	y(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n",
	  name);
	if (*labels)
		y(b, "  labels: {%s}\n", labels);
	y(b, "status:\n  allocatable: {cpu: \"64\", memory: 512Gi, "
	     "pods: \"110\", " GPU ": \"%d\"}\n", gpus);
}


/* A PodGroup (min > 0: gang with minCount min; 0: basic) and its n
 * pending pods "<name>-<i>". */
static void y_group(yb *b, const char *name, int min, int n, int gpus,
		    const char *key, int prio)
{
	y(b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	     "metadata: {name: %s, namespace: ml}\nspec:\n  priority: %d\n",
	  name, prio);
	if (min > 0)
		y(b, "  schedulingPolicy: {gang: {minCount: %d}}\n", min);
	else
		y(b, "  schedulingPolicy: {basic: {}}\n");
	if (key)
		y(b, "  schedulingConstraints: {topology: [{key: %s}]}\n", key);
	for (int i = 0; i < n; i++) {
		char pod[128];
		snprintf(pod, sizeof pod, "%s-%d", name, i);
		tu_pod_yaml(b, pod, name, NULL, gpus, prio);
	}
}

/* Racks of nodes: rack r gets nodes "<r>-n<i>", each with `gpus` GPUs. */
static void y_rack(yb *b, const char *rack, int nodes, int gpus)
{
	for (int i = 0; i < nodes; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s-n%d", rack, i);
		char lab[128];
		snprintf(lab, sizeof lab, RACK ": %s", rack);
		y_node(b, name, lab, gpus);
	}
}

static const char *rack_of(const char *node)
{
	static char r[64];
	snprintf(r, sizeof r, "%s", node);
	char *dash = strchr(r, '-');
	if (dash)
		*dash = 0;
	return r;
}

/* Every placed pod of group g sits in rack `rack`. */
static void assert_group_in(const wasp_plan *p, const char *g,
			    const char *rack, int want)
{
	int n = 0;
	for (int i = 0; i < p->nplace; i++) {
		if (!p->place[i].group || strcmp(p->place[i].group, g))
			continue;
		ck_assert_str_eq(rack_of(p->place[i].node), rack);
		n++;
	}
	ck_assert_int_eq(n, want);
}

/* -------------------------------------------------------- scenarios */

/* A gang that cannot fully fit places nothing and leaves its capacity to
 * a lower-priority gang. */
START_TEST(gang_all_or_nothing)
{
	yb b = {0};
	y_node(&b, "n1", "", 8);
	y_node(&b, "n2", "", 8);
	y_group(&b, "big", 3, 3, 8, NULL, 100);
	y_group(&b, "small", 2, 2, 8, NULL, 10);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "big"), 0);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "small"), 2);
	ck_assert_str_eq(tu_wait_reason(p, "ml", "big"),
			 "only 2 of 3 required pods fit anywhere in the "
			 "cluster (8 nvidia.com/gpu each)");
	ck_assert_ptr_null(tu_wait_reason(p, "ml", "small"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* minCount 2 of 4: the gang is admitted and takes the extra pod that
 * fits, not the one that does not. */
START_TEST(gang_extras)
{
	yb b = {0};
	for (int i = 0; i < 3; i++) {
		char n[16];
		snprintf(n, sizeof n, "n%d", i);
		y_node(&b, n, "", 4);
	}
	y_group(&b, "g", 2, 4, 4, NULL, 0);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "g"), 3);
	ck_assert_ptr_null(tu_wait_reason(p, "ml", "g"));
	ck_assert_int_eq(p->sum.admitted_groups, 1);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Higher priority first, whatever the input order. */
START_TEST(priority_order)
{
	yb b = {0};
	y_node(&b, "n1", "", 8);
	y_node(&b, "n2", "", 8);
	y_group(&b, "low", 2, 2, 8, NULL, 1);
	y_group(&b, "high", 2, 2, 8, NULL, 1000);
	y_group(&b, "mid", 1, 1, 8, NULL, 500);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "high"), 2);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "mid"), 0);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "low"), 0);
	ck_assert_ptr_nonnull(tu_wait_reason(p, "ml", "mid"));
	ck_assert_int_eq(p->sum.tiers.nprio, 3);
	ck_assert(p->sum.tiers.work[0] == 2);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* A 2-pod gang takes the rack with exactly 2 free slots and keeps the
 * empty rack whole (for a later 4-pod gang). */
START_TEST(tightest_domain)
{
	yb b = {0};
	y_rack(&b, "ra", 4, 8);
	y_rack(&b, "rb", 3, 8);
	tu_pod_yaml(&b, "busy", NULL, "rb-n0", 8, 0);
	y_group(&b, "pair", 2, 2, 8, RACK, 100);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	assert_group_in(p, "pair", "rb", 2);
	ck_assert_int_eq(p->sum.free_nodes_after, 4);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* First fit (by name) would put the pair in ra and leave no rack for the
 * quad; the tightest fit admits both. */
START_TEST(tightest_admits_both)
{
	wasp_snapshot *s = tu_load_file("tests/fixtures/solve/fragment.yaml");
	wasp_plan *p = tu_solve(s, NULL);
	assert_group_in(p, "pair", "rb", 2);
	assert_group_in(p, "quad", "ra", 4);
	ck_assert_int_eq(p->sum.admitted_groups, 2);
	ck_assert_int_eq(p->sum.waiting_groups, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Rack ra has the only 4 free nodes of one rack; rb has 3 (its fourth
 * runs a pod of the same priority) and node x, in no rack, 1.  A gang of
 * 4 whole-node pods without a key and one that needs a rack: greedy's
 * order counts one candidate domain (the cluster) for the first and
 * places it first, on ra, and the rack gang waits.  The keyed-first
 * pass (WGR_SEED_KEYED) places the rack gang first, on ra, and the other
 * on rb and x; the restarts take that plan. */
static wasp_snapshot *keyed_first_case(void)
{
	yb b = {0};
	y_rack(&b, "ra", 4, 8);
	y_rack(&b, "rb", 4, 8);
	y_node(&b, "x", "", 8);
	tu_pod_yaml(&b, "busy", NULL, "rb-n0", 8, 100);
	y_group(&b, "anywhere", 4, 4, 8, NULL, 100);
	y_group(&b, "onerack", 4, 4, 8, RACK, 100);
	return tu_load_buf(&b);
}

static int admitted(const wp_problem *p, const wp_sol *x)
{
	int n = 0;
	for (int g = 0; g < p->ngroups; g++)
		n += x->admit[g] != 0;
	return n;
}

START_TEST(keyed_first_pass)
{
	tu_inst in;
	tu_inst_load(&in, keyed_first_case());
	ck_assert_int_eq(in.p->ngroups, 2);
	/* greedy's own order leaves the rack gang waiting */
	ck_assert_int_eq(admitted(in.p, in.greedy), 1);
	wasp_error e;
	memset(&e, 0, sizeof e);
	wp_sol *k = wp_sol_new(in.p, in.a);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(wgr_solve_seeded(in.p, &in.o, k, WGR_SEED_KEYED, &e),
			 WASP_OK);
	tu_sol_verified(in.snap, in.p, k, in.greedy, "keyed first");
	ck_assert_int_eq(admitted(in.p, k), 2);
	/* the restarts run it before their numbered seeds */
	wp_sol *best = wp_sol_new(in.p, in.a);
	ck_assert_ptr_nonnull(best);
	wp_sol_copy(in.p, best, in.greedy);
	int ran = 0, better = 0;
	ck_assert_int_eq(wgr_restarts(in.p, &in.o, 1, wdl_none(), best, &ran,
				      &better, &e),
			 WASP_OK);
	ck_assert_int_ge(better, 1);
	tu_sol_verified(in.snap, in.p, best, in.greedy, "restarts");
	ck_assert_int_eq(admitted(in.p, best), 2);
	tu_inst_free(&in);
}
END_TEST

/* Basic groups and lone pods: each pod on its own; what fits is placed,
 * the rest waits with a reason. */
START_TEST(basic_independent)
{
	yb b = {0};
	y_node(&b, "n1", "", 8);
	y_node(&b, "n2", "", 8);
	y_node(&b, "n3", "", 8);
	y_group(&b, "web", 0, 3, 4, NULL, 10);
	tu_pod_yaml(&b, "lone-a", NULL, NULL, 8, 0);
	tu_pod_yaml(&b, "lone-b", NULL, NULL, 8, 0);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "web"), 3);
	ck_assert_ptr_null(tu_wait_reason(p, "ml", "web"));
	/* web packs n1 and half of n2; one lone pod takes n3, the other
	 * finds no node with 8 GPUs left */
	ck_assert_str_eq(tu_node_of(p, "ml", "web-0"), "n1");
	ck_assert_str_eq(tu_node_of(p, "ml", "web-1"), "n1");
	ck_assert_str_eq(tu_node_of(p, "ml", "web-2"), "n2");
	ck_assert_str_eq(tu_node_of(p, "ml", "lone-a"), "n3");
	ck_assert_ptr_null(tu_node_of(p, "ml", "lone-b"));
	ck_assert_ptr_null(tu_wait_reason(p, "ml", "lone-a"));
	ck_assert_str_eq(tu_wait_reason(p, "ml", "lone-b"),
			 "no eligible node has room for a pod of 8 "
			 "nvidia.com/gpu (3 eligible nodes)");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* A basic group with a topology key: all its pods in one domain, the one
 * that holds the most. */
START_TEST(basic_with_key)
{
	yb b = {0};
	y_rack(&b, "ra", 1, 8);
	y_rack(&b, "rb", 2, 8);
	y_group(&b, "web", 0, 6, 4, RACK, 0);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	assert_group_in(p, "web", "rb", 4);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Running pods pin the domain: a gang grows in rack rb although ra is
 * empty; a gang whose rack has too little room waits and says so. */
START_TEST(fixed_domain)
{
	yb b = {0};
	y_rack(&b, "ra", 4, 8);
	y_rack(&b, "rb", 4, 8);
	y_group(&b, "grow", 3, 2, 8, RACK, 0);
	tu_pod_yaml(&b, "grow-run", "grow", "rb-n0", 8, 0);
	y_group(&b, "stuck", 4, 3, 8, RACK, 0);
	tu_pod_yaml(&b, "stuck-run", "stuck", "rb-n1", 8, 0);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	assert_group_in(p, "grow", "rb", 2);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "stuck"), 0);
	ck_assert_str_eq(tu_wait_reason(p, "ml", "stuck"),
			 "its running pods pin it to rack rb, which has room "
			 "for 2 of the 3 more pods it needs (8 nvidia.com/gpu "
			 "each)");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* The reason names the key, the pod size and the best domain's room. */
START_TEST(reason_numbers)
{
	yb b = {0};
	y_rack(&b, "r1", 2, 8);
	y_rack(&b, "r2", 3, 8);
	y_rack(&b, "r3", 5, 8);
	y_group(&b, "train", 8, 8, 8, RACK, 0);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_str_eq(tu_wait_reason(p, "ml", "train"),
			 "no example.com/rack domain has room for 8 pods of 8 "
			 "nvidia.com/gpu each; the best rack (r3) fits 5");
	ck_assert_int_eq(p->nplace, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

START_TEST(reason_no_node)
{
	wasp_snapshot *s = tu_load_file("tests/fixtures/solve/tainted.yaml");
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_str_eq(tu_wait_reason(p, "ml", "train"),
			 "no node matches: untolerated taint on 2 nodes; "
			 "insufficient nvidia.com/gpu on 1 node");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Same plan with 1 and 2 threads, on a generated fragmented cluster. */
START_TEST(threads_deterministic)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.seed = 7;
	g.nodes = 512;
	g.levels = 2;
	g.gangs = 120;
	g.max_gang = 24;
	g.busy = 0.4;
	wasp_plan *p = tu_greedy_threads_same(&g);
	ck_assert_int_gt(p->nplace, 0);
	ck_assert_int_gt(p->nwait, 0);
	wasp_plan_free(p);
}
END_TEST

/* Preemption over 256 rack domains, through the public API: the plan
 * must not depend on the thread count, and it must evict (or the
 * victim search did not run).  index_matches_recount below forces the
 * parallel scoring of domains and compares 1 and 2 threads too. */
START_TEST(threads_deterministic_preempt)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.seed = 23;
	g.nodes = 1024;
	g.levels = 3;
	g.fanout = 4;    /* racks of 4 nodes: 256 of them */
	g.gangs = 300;
	g.max_gang = 24;
	g.busy = 0.5;
	g.priorities = 4;
	wasp_plan *p = tu_greedy_threads_same(&g);
	ck_assert_int_gt(p->nplace, 0);
	ck_assert_int_gt(p->nevict, 0);
	wasp_plan_free(p);
}
END_TEST

/* The domain index (index.c) is kept incrementally through every
 * placement, rollback, trial eviction, committed eviction and move of a
 * greedy pass; after each group it must equal a recount from scratch.
 * Generated clusters of several kinds make the sequence: preemption of
 * single pods, of whole groups (--preemptible), with moves
 * (--rebalance), with device claims.  wgr_solve_checked scores the
 * victim search's domains on OpenMP threads however few there are:
 * 1 and 2 threads must give the same solution; it also searches again
 * wherever the victim search's memo (pcache.c) answers, and with the
 * nodes scanned wherever a search over the cluster did not: the answers
 * must agree.  Every plan is verified. */
START_TEST(index_matches_recount)
{
	static const struct {
		int seed, nodes, gangs, dra, preemptible, rebalance, prios;
	} cases[] = {
		{31, 256, 90, 0, 0, 0, 4},
		{32, 256, 60, 0, 1, 0, 3},
		{33, 128, 40, 0, 0, 1, 3},
		{34, 128, 40, 1, 0, 0, 3},
		{35, 128, 40, 1, 1, 0, 3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wasp_gen_options g;
		wasp_gen_options_init(&g);
		g.seed = (uint64_t)cases[i].seed;
		g.nodes = cases[i].nodes;
		g.levels = 2;
		g.gangs = cases[i].gangs;
		g.max_gang = 16;
		g.busy = 0.6;
		g.priorities = cases[i].prios;
		g.dra = cases[i].dra;
		g.preemptible = cases[i].preemptible;
		wasp_error e;
		wasp_snapshot *s = tu_gen_load(&g);
		wasp_options o;
		wasp_options_init(&o);
		o.threads = 1;
		o.rebalance = cases[i].rebalance;
		wa_arena *a = wa_new();
		wtp_topo *t;
		wp_problem *p;
		ck_assert_int_eq(wtp_build(s, 0, a, &t, &e), WASP_OK);
		ck_assert_int_eq(wp_reduce(s, t, &o, a, &p, &e), WASP_OK);
		wp_sol *sol = wp_sol_new(p, a), *two = wp_sol_new(p, a);
		int checks = 0, bad = 0, checks2 = 0, bad2 = 0;
		int hits[4] = {0, 0, 0, 0};
		ck_assert_int_eq(wgr_solve_checked(p, &o, sol, &checks, &bad,
						   hits, &e), WASP_OK);
		o.threads = 2;
		ck_assert_int_eq(wgr_solve_checked(p, &o, two, &checks2,
						   &bad2, NULL, &e), WASP_OK);
		char lab[48];
		snprintf(lab, sizeof lab, "case %zu: 1 and 2 threads", i);
		tu_sol_same(p, sol, two, lab);
		ck_assert_int_eq(bad2, 0);
		int evicted = 0;
		for (int u = 0; u < p->nunits; u++)
			evicted += sol->evict[u];
		ck_assert_msg(checks > 0 && evicted > 0,
			      "case %zu: the pass did not preempt (%d checks, "
			      "%d evictions)", i, checks, evicted);
		ck_assert_msg(bad == 0, "case %zu: %d of %d recounts differ",
			      i, bad, checks);
		/* without moves the victim search's memo answers (with
		 * claims too: their devices keep to their nodes), and
		 * without claims searches over the cluster skip the scan of
		 * the nodes (the checked pass compared each answer above) */
		ck_assert_msg(cases[i].rebalance ||
			      (hits[0] > 0 && (cases[i].dra || hits[1] > 0)),
			      "case %zu: the memo answered %d, %d cluster "
			      "searches without the scan", i, hits[0], hits[1]);
		tu_sol_verified(s, p, sol, NULL, "index_matches_recount");
		tu_sol_verified(s, p, two, NULL, "index_matches_recount -j 2");
		wa_destroy(a);
		wasp_snapshot_free(s);
	}
}
END_TEST

/* A generated cluster solved by the checked pass (wgr_solve_checked)
 * and by the plain pass, on 1 and 2 threads: the checked pass's
 * comparisons must all agree, the structure under test must have
 * answered more than `least` times (hits[which]), and the plans must be
 * the same and verified.  `wants` says whether the topology has what the
 * structure serves. */
static void checked_case(const wasp_gen_options *g,
			 bool (*wants)(const wtp_topo *), int which,
			 int least, const char *what)
{
	wasp_error e;
	wasp_snapshot *s = tu_gen_load(g);
	wasp_options o;
	wasp_options_init(&o);
	o.threads = 1;
	wa_arena *a = wa_new();
	wtp_topo *t;
	wp_problem *p;
	ck_assert_int_eq(wtp_build(s, 0, a, &t, &e), WASP_OK);
	ck_assert_int_eq(wp_reduce(s, t, &o, a, &p, &e), WASP_OK);
	ck_assert_msg(wants(t), "%s: the cluster lacks what it tests", what);
	ck_assert_int_gt(p->nunits, 0);
	wp_sol *chk = wp_sol_new(p, a), *plain = wp_sol_new(p, a);
	wp_sol *two = wp_sol_new(p, a);
	int checks = 0, bad = 0, hits[4] = {0, 0, 0, 0};
	ck_assert_int_eq(wgr_solve_checked(p, &o, chk, &checks, &bad, hits,
					   &e), WASP_OK);
	ck_assert_msg(bad == 0, "%s: %d of %d checks differ", what, bad,
		      checks);
	ck_assert_msg(hits[which] > least, "%s: answered %d times", what,
		      hits[which]);
	ck_assert_int_eq(wgr_solve_ex(p, &o, plain, true, &e), WASP_OK);
	tu_sol_same(p, chk, plain, what);
	o.threads = 2;
	ck_assert_int_eq(wgr_solve_ex(p, &o, two, true, &e), WASP_OK);
	tu_sol_same(p, plain, two, what);
	tu_sol_verified(s, p, plain, NULL, what);
	wa_destroy(a);
	wasp_snapshot_free(s);
}

/* keyed domains of 64 nodes or more: the room tree serves them */
static bool big_racks(const wtp_topo *t)
{
	for (int k = 0; k < t->nkeys; k++)
		if (t->keys[k].ndom > 1 && t->keys[k].dom_nnodes[0] >= 64)
			return true;
	return false;
}

/* a key of 256 domains or more (WGR_DT_MIN): it has a domain tree */
static bool many_racks(const wtp_topo *t)
{
	for (int k = 0; k < t->nkeys; k++)
		if (t->keys[k].ndom >= 256)
			return true;
	return false;
}

/* checked_case on 1,024 nodes in two levels (fanout children each),
 * 300 gangs of up to 24 pods, 60% busy, without and with claims. */
static void tree_cases(uint64_t seed, int fanout, int priorities,
		       bool (*wants)(const wtp_topo *), int which, int least,
		       const char *what)
{
	for (int dra = 0; dra <= 1; dra++) {
		wasp_gen_options g;
		wasp_gen_options_init(&g);
		g.seed = seed + (uint64_t)dra;
		g.nodes = 1024;
		g.levels = 2;
		g.fanout = fanout;
		g.gangs = 300;
		g.max_gang = 24;
		g.busy = 0.6;
		g.priorities = priorities;
		g.dra = dra;
		char lab[64];
		snprintf(lab, sizeof lab, "%s%s", what, dra ? ", claims" : "");
		checked_case(&g, wants, which, least, lab);
	}
}

/* The room tree (room.c) finds a class's nodes with room in the
 * cluster and in large domains whose nodes are a range of indices,
 * sums their fits and orders a placement's nodes, instead of scanning
 * them.  Racks of 64 nodes (fanout 4), gangs with and without a key,
 * three priorities: the checked pass compares every list, sum and
 * order the tree gives with a scan. */
START_TEST(room_tree_matches_scan)
{
	tree_cases(41, 4, 3, big_racks, 2, 100, "room tree");
}
END_TEST

/* The domain tree (dtree.c) gives the victim search the domains of a
 * key that have something of lower priority and room enough with it
 * gone, instead of a loop over every domain.  256 racks of 4 nodes in
 * 16 blocks (fanout 16), gangs with rack and block keys, four
 * priorities: the checked pass compares every list the tree gives with
 * the loop. */
START_TEST(domain_tree_matches_loop)
{
	tree_cases(43, 16, 4, many_racks, 3, 40, "domain tree");
}
END_TEST

/* ------------------------------------------------ hand-built units */

typedef struct run {
	wa_arena *a;
	wtp_topo *t;
	wp_problem *p;
	wp_sol *sol;
} run;

static void solve_hand(ws_snapshot *s, run *r)
{
	wasp_error e;
	wasp_options o;
	memset(&o, 0, sizeof o);
	r->a = wa_new();
	ck_assert_int_eq(wtp_build(s, 0, r->a, &r->t, &e), WASP_OK);
	ck_assert_int_eq(wp_reduce(s, r->t, &o, r->a, &r->p, &e), WASP_OK);
	r->sol = wp_sol_new(r->p, r->a);
	ck_assert_int_eq(wgr_solve(r->p, &o, r->sol, &e), WASP_OK);
	const char *why = NULL;
	ck_assert_msg(wp_sol_feasible(r->p, r->sol, &why) == 0, "%s", why);
}

/* Best fit: a 2-GPU pod goes to the node with 2 GPUs left, not to the
 * empty one; the count lands in the right slot. */
START_TEST(best_fit_node)
{
	hb b;
	hb_init(&b);
	hb_res(&b, GPU);
	hb_node(&b, "empty", "", GPU "=8");
	hb_node(&b, "almost", "", GPU "=8");
	hb_pod(&b, "run", -1, "almost", GPU "=6", 0);
	hb_pods(&b, "p", 1, -1, GPU "=2", 0);
	ws_snapshot *s = hb_done(&b);
	run r;
	solve_hand(s, &r);
	ck_assert_int_eq(r.p->ngroups, 1);
	const wp_class *c = &r.p->classes[0];
	ck_assert_int_eq(c->nelig, 2);
	ck_assert_int_eq(wp_x(r.sol, c->off + 0), 0);
	ck_assert_int_eq(wp_x(r.sol, c->off + 1), 1);
	ck_assert(r.sol->admit[0]);
	ck_assert_ptr_null(r.sol->reason[0]);
	wa_destroy(r.a);
	ws_snapshot_free(s);
}
END_TEST

/* Invalid groups and groups that span domains wait with their reason;
 * a gang already at minCount is admitted with what fits. */
START_TEST(unit_reasons)
{
	hb b;
	hb_init(&b);
	hb_res(&b, GPU);
	hb_node(&b, "a", RACK "=r1", GPU "=8");
	hb_node(&b, "b", RACK "=r2", GPU "=8");
	int g0 = hb_group(&b, "bad", WS_POLICY_GANG, 1, NULL, 0);
	hb_pods(&b, "bad", 1, g0, GPU "=1", 0);
	int g1 = hb_group(&b, "split", WS_POLICY_GANG, 2, RACK, 0);
	hb_pod(&b, "split-a", g1, "a", GPU "=1", 0);
	hb_pod(&b, "split-b", g1, "b", GPU "=1", 0);
	hb_pods(&b, "split-p", 1, g1, GPU "=1", 0);
	int g2 = hb_group(&b, "done", WS_POLICY_GANG, 1, NULL, 0);
	hb_pod(&b, "done-r", g2, "a", GPU "=1", 0);
	hb_pods(&b, "done-p", 2, g2, GPU "=20", 0);
	b.s->groups[g0].invalid = "pods disagree on priority (1 vs 2)";
	ws_snapshot *s = hb_done(&b);
	run r;
	solve_hand(s, &r);
	for (int g = 0; g < r.p->ngroups; g++) {
		const wp_group *wg = &r.p->groups[g];
		if (wg->sg == g0) {
			ck_assert(!r.sol->admit[g]);
			ck_assert_str_eq(r.sol->reason[g],
					 "pods disagree on priority (1 vs 2)");
		} else if (wg->sg == g1) {
			ck_assert(!r.sol->admit[g]);
			ck_assert_str_eq(r.sol->reason[g],
					 "its 2 running pods already span "
					 "several example.com/rack domains (or "
					 "nodes without example.com/rack); it "
					 "cannot grow");
		} else {
			/* extras of 20 GPUs never fit; minCount is met */
			ck_assert(r.sol->admit[g]);
		}
	}
	wa_destroy(r.a);
	ws_snapshot_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("greedy");
	TCase *tc = tcase_create("scenarios");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, gang_all_or_nothing);
	tcase_add_test(tc, gang_extras);
	tcase_add_test(tc, priority_order);
	tcase_add_test(tc, tightest_domain);
	tcase_add_test(tc, tightest_admits_both);
	tcase_add_test(tc, basic_independent);
	tcase_add_test(tc, basic_with_key);
	tcase_add_test(tc, fixed_domain);
	tcase_add_test(tc, reason_numbers);
	tcase_add_test(tc, reason_no_node);
	tcase_add_test(tc, threads_deterministic);
	tcase_add_test(tc, threads_deterministic_preempt);
	tcase_add_test(tc, index_matches_recount);
	tcase_add_test(tc, room_tree_matches_scan);
	tcase_add_test(tc, domain_tree_matches_loop);
	suite_add_tcase(s, tc);
	TCase *tu = tcase_create("units");
	tcase_add_test(tu, best_fit_node);
	tcase_add_test(tu, keyed_first_pass);
	tcase_add_test(tu, unit_reasons);
	suite_add_tcase(s, tu);
	return tu_run(s);
}
