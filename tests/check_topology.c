/*
 * check_topology.c -- topology keys, domains (value and path readings),
 * level order (Topology object, nesting inference) and the warnings for
 * labels that do not nest.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "model/topology.h"
#include "plan/plan.h"
#include "fixtures/solve/hand.h"

#define BLOCK "example.com/block"
#define RACK "example.com/rack"
#define ZONE "example.com/zone"
#define HOST "kubernetes.io/hostname"

static wtp_topo *build(const ws_snapshot *s, int mode, wa_arena *a)
{
	wtp_topo *t = NULL;
	wasp_error e;
	ck_assert_int_eq(wtp_build(s, mode, a, &t, &e), WASP_OK);
	ck_assert_ptr_nonnull(t);
	return t;
}

static const wtp_key *key(const wtp_topo *t, const char *label)
{
	int k = wtp_key_index(t, label);
	ck_assert_msg(k >= 0, "no key %s", label);
	return &t->keys[k];
}

/* rack r1 exists under both blocks: n1 (b1/r1), n2 (b1/r2), n3 (b2/r1),
 * n4 (b2/r3), and n5 has a rack but no block. */
static ws_snapshot *split_racks(hb *b)
{
	hb_init(b);
	hb_res(b, "cpu");
	hb_node(b, "n1", BLOCK "=b1," RACK "=r1", "cpu=8");
	hb_node(b, "n2", BLOCK "=b1," RACK "=r2", "cpu=8");
	hb_node(b, "n3", BLOCK "=b2," RACK "=r1", "cpu=8");
	hb_node(b, "n4", BLOCK "=b2," RACK "=r3", "cpu=8");
	hb_node(b, "n5", RACK "=r9", "cpu=8");
	const char *lv[] = {BLOCK, RACK};
	hb_topology(b, "default", lv, 2);
	return hb_done(b);
}

START_TEST(value_domains)
{
	hb b;
	ws_snapshot *s = split_racks(&b);
	wa_arena *a = wa_new();
	wtp_topo *t = build(s, WASP_DOMAIN_VALUE, a);
	ck_assert_int_eq(t->mode, WASP_DOMAIN_VALUE);
	ck_assert_int_eq(t->nkeys, 2);
	ck_assert_str_eq(t->keys[0].label, BLOCK);
	ck_assert_str_eq(t->keys[1].label, RACK);
	const wtp_key *r = &t->keys[1];
	/* upstream reading: r1 is one domain spanning both blocks */
	ck_assert_int_eq(r->ndom, 4);
	ck_assert_str_eq(r->dom_name[0], "r1");
	ck_assert_str_eq(r->dom_name[1], "r2");
	ck_assert_str_eq(r->dom_name[2], "r3");
	ck_assert_str_eq(r->dom_name[3], "r9");
	ck_assert_int_eq(r->dom_nnodes[0], 2);
	ck_assert_int_eq(r->dom_nodes[0][0], 0);
	ck_assert_int_eq(r->dom_nodes[0][1], 2);
	ck_assert_int_eq(r->node_dom[2], 0);
	ck_assert_int_eq(r->node_dom[4], 3);
	const wtp_key *bk = &t->keys[0];
	ck_assert_int_eq(bk->ndom, 2);
	ck_assert_int_eq(bk->node_dom[4], -1);
	ck_assert_int_eq(bk->parent, -1);
	/* rack does not nest in block: no parent */
	ck_assert_int_eq(r->parent, -1);
	ck_assert_int_eq(r->dom_parent[0], -1);
	ck_assert_int_eq(t->nwarnings, 1);
	ck_assert_str_eq(t->warnings[0],
			 "labels example.com/rack and example.com/block do "
			 "not nest: rack r1 spans blocks b1 and b2; reading "
			 "each key on its own, so a group that requires one "
			 "rack r1 may be split across blocks; the Kueue "
			 "Topology means paths: use --domain path");
	wa_destroy(a);
	ws_snapshot_free(s);
}
END_TEST

START_TEST(path_domains)
{
	hb b;
	ws_snapshot *s = split_racks(&b);
	wa_arena *a = wa_new();
	wtp_topo *t = build(s, WASP_DOMAIN_PATH, a);
	ck_assert_int_eq(t->mode, WASP_DOMAIN_PATH);
	const wtp_key *r = key(t, RACK), *bk = key(t, BLOCK);
	/* Kueue's reading: r1 under b1 and r1 under b2 are two domains; a
	 * node without a block gets "" in its path */
	ck_assert_int_eq(r->ndom, 5);
	ck_assert_str_eq(r->dom_name[0], "/r9");
	ck_assert_str_eq(r->dom_name[1], "b1/r1");
	ck_assert_str_eq(r->dom_name[2], "b1/r2");
	ck_assert_str_eq(r->dom_name[3], "b2/r1");
	ck_assert_str_eq(r->dom_name[4], "b2/r3");
	ck_assert_int_eq(r->node_dom[0], 1);
	ck_assert_int_eq(r->node_dom[2], 3);
	ck_assert_int_eq(r->node_dom[4], 0);
	ck_assert_int_eq(r->dom_nnodes[1], 1);
	ck_assert_str_eq(bk->dom_name[0], "b1");
	/* path domains nest by construction */
	ck_assert_int_eq(r->parent, 0);
	ck_assert_int_eq(r->dom_parent[0], -1);
	ck_assert_int_eq(r->dom_parent[1], 0);
	ck_assert_int_eq(r->dom_parent[3], 1);
	ck_assert_int_eq(r->dom_parent[4], 1);
	ck_assert_int_eq(t->nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(t->warnings[0],
				     "rack r1 spans blocks b1 and b2"));
	wa_destroy(a);
	ws_snapshot_free(s);
}
END_TEST

/* zone > block > rack, no Topology object: the order comes from nesting,
 * whatever order the groups name the keys in. */
START_TEST(nesting_inference)
{
	hb b;
	hb_init(&b);
	hb_res(&b, "cpu");
	int n = 0;
	for (int z = 0; z < 2; z++)
		for (int bl = 0; bl < 2; bl++)
			for (int r = 0; r < 2; r++) {
				char name[32], lab[256];
				snprintf(name, sizeof name, "n%d", n++);
				snprintf(lab, sizeof lab,
					 ZONE "=z%d," BLOCK "=b%d%d," RACK
					      "=r%d%d%d",
					 z, z, bl, z, bl, r);
				hb_node(&b, name, lab, "cpu=1");
			}
	hb_group(&b, "g1", WS_POLICY_GANG, 1, RACK, 0);
	hb_group(&b, "g2", WS_POLICY_GANG, 1, ZONE, 0);
	hb_group(&b, "g3", WS_POLICY_GANG, 1, BLOCK, 0);
	ws_snapshot *s = hb_done(&b);
	wa_arena *a = wa_new();
	wtp_topo *t = build(s, WASP_DOMAIN_VALUE, a);
	ck_assert_int_eq(t->nkeys, 3);
	ck_assert_str_eq(t->keys[0].label, ZONE);
	ck_assert_str_eq(t->keys[1].label, BLOCK);
	ck_assert_str_eq(t->keys[2].label, RACK);
	ck_assert_int_eq(t->nwarnings, 0);
	ck_assert_int_eq(t->keys[0].parent, -1);
	ck_assert_int_eq(t->keys[1].parent, 0);
	ck_assert_int_eq(t->keys[2].parent, 1);
	/* rack r110 (index 6) lies in block b11 (index 3) */
	ck_assert_str_eq(t->keys[2].dom_name[6], "r110");
	ck_assert_int_eq(t->keys[2].dom_parent[6], 3);
	ck_assert_str_eq(t->keys[1].dom_name[3], "b11");
	ck_assert_int_eq(t->keys[1].dom_parent[3], 1);
	ck_assert_int_eq(wtp_key_index(t, "example.com/none"), -1);
	wa_destroy(a);

	/* the same in path mode */
	a = wa_new();
	t = build(s, WASP_DOMAIN_PATH, a);
	ck_assert_str_eq(t->keys[2].dom_name[6], "z1/b11/r110");
	ck_assert_int_eq(t->keys[2].dom_parent[6], 3);
	wa_destroy(a);
	ws_snapshot_free(s);
}
END_TEST

/* The Topology object's order is kept; a group key it does not list is
 * slotted in by nesting (rack between block and host). */
START_TEST(topology_object_order)
{
	hb b;
	hb_init(&b);
	hb_res(&b, "cpu");
	for (int i = 0; i < 8; i++) {
		char name[32], lab[256];
		snprintf(name, sizeof name, "h%d", i);
		snprintf(lab, sizeof lab,
			 BLOCK "=b%d," RACK "=r%d," HOST "=h%d", i / 4, i / 2,
			 i);
		hb_node(&b, name, lab, "cpu=1");
	}
	const char *lv[] = {BLOCK, HOST};
	hb_topology(&b, "t1", lv, 2);
	const char *lv2[] = {HOST};
	hb_topology(&b, "t2", lv2, 1);
	hb_group(&b, "g", WS_POLICY_GANG, 1, RACK, 0);
	ws_snapshot *s = hb_done(&b);
	wa_arena *a = wa_new();
	wtp_topo *t = build(s, WASP_DOMAIN_VALUE, a);
	ck_assert_int_eq(t->nkeys, 3);
	ck_assert_str_eq(t->keys[0].label, BLOCK);
	ck_assert_str_eq(t->keys[1].label, RACK);
	ck_assert_str_eq(t->keys[2].label, HOST);
	ck_assert_int_eq(t->keys[2].parent, 1);
	ck_assert_int_eq(t->keys[2].dom_parent[5], 2);
	ck_assert_int_eq(t->nwarnings, 1);
	ck_assert_str_eq(t->warnings[0], "2 kueue Topology objects; using the "
					 "first (t1) for the level order");
	wa_destroy(a);
	ws_snapshot_free(s);
}
END_TEST

/* A key that nests with nothing goes last and is warned about once. */
START_TEST(non_nesting_warning)
{
	hb b;
	hb_init(&b);
	hb_res(&b, "cpu");
	hb_node(&b, "n1", BLOCK "=b1,example.com/color=red", "cpu=1");
	hb_node(&b, "n2", BLOCK "=b1,example.com/color=blue", "cpu=1");
	hb_node(&b, "n3", BLOCK "=b2,example.com/color=red", "cpu=1");
	hb_node(&b, "n4", BLOCK "=b2", "cpu=1");
	hb_group(&b, "g1", WS_POLICY_GANG, 1, "example.com/color", 0);
	hb_group(&b, "g2", WS_POLICY_GANG, 1, BLOCK, 0);
	hb_group(&b, "g3", WS_POLICY_GANG, 1, "example.com/none", 0);
	ws_snapshot *s = hb_done(&b);
	wa_arena *a = wa_new();
	wtp_topo *t = build(s, WASP_DOMAIN_VALUE, a);
	ck_assert_int_eq(t->nkeys, 3);
	ck_assert_str_eq(t->keys[0].label, BLOCK);
	ck_assert_str_eq(t->keys[1].label, "example.com/color");
	ck_assert_str_eq(t->keys[2].label, "example.com/none");
	ck_assert_int_eq(t->keys[2].ndom, 0);
	ck_assert_int_eq(t->nwarnings, 2);
	ck_assert_str_eq(t->warnings[0], "topology key example.com/none: no "
					 "node carries this label");
	ck_assert_str_eq(t->warnings[1],
			 "labels example.com/color and example.com/block do "
			 "not nest: color red spans blocks b1 and b2; "
			 "reading each key on its own");
	wa_destroy(a);
	ws_snapshot_free(s);
}
END_TEST

/* A Kueue Topology whose rack values recur under two blocks: in value
 * mode the warning names the value and --domain path; a gang that
 * requires a rack then stays within one block only in path mode. */
START_TEST(kueue_value_recurs)
{
	tu_buf b = {0};
	tu_printf(&b, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\n"
		      "metadata: {name: t}\nspec:\n  levels:\n  - nodeLabel: "
		      BLOCK "\n  - nodeLabel: " RACK "\n");
	for (int n = 0; n < 4; n++)
		tu_printf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
			      "  name: n%d\n  labels: {" BLOCK ": b%d, " RACK
			      ": r%d}\nstatus:\n  allocatable: {cpu: \"4\", "
			      "pods: \"10\", nvidia.com/gpu: \"1\"}\n",
			  n, n / 2, n % 2);
	tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: "
		      "PodGroup\nmetadata: {name: g, namespace: ml}\nspec:\n"
		      "  schedulingPolicy: {gang: {minCount: 2}}\n"
		      "  schedulingConstraints: {topology: [{key: " RACK "}]}\n");
	tu_pod_yaml(&b, "g-0", "g", NULL, 1, 0);
	tu_pod_yaml(&b, "g-1", "g", NULL, 1, 0);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_GREEDY;
	wasp_plan *p = tu_solve(s, &o);
	bool named = false;
	for (int i = 0; i < p->nwarnings; i++)
		named |= strstr(p->warnings[i], "one rack r0 may be split "
				"across blocks") &&
			 strstr(p->warnings[i], "--domain path");
	ck_assert(named);
	/* value mode: rack r0 = n0 (b0) and n2 (b1), one domain */
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "g"), 2);
	wasp_plan_free(p);
	/* path mode: b0/r0 has one node, one GPU: the gang cannot fit in
	 * any rack path, and there is no warning about it */
	o.domain_mode = WASP_DOMAIN_PATH;
	p = tu_solve(s, &o);
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "g"), 0);
	for (int i = 0; i < p->nwarnings; i++)
		ck_assert(!strstr(p->warnings[i], "--domain path"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* A rack that is partly outside any block. */
START_TEST(missing_coarser_label)
{
	hb b;
	hb_init(&b);
	hb_res(&b, "cpu");
	hb_node(&b, "n1", BLOCK "=b1," RACK "=r1", "cpu=1");
	hb_node(&b, "n2", RACK "=r1", "cpu=1");
	hb_node(&b, "n3", BLOCK "=b1," RACK "=r2", "cpu=1");
	const char *lv[] = {BLOCK, RACK};
	hb_topology(&b, "t", lv, 2);
	ws_snapshot *s = hb_done(&b);
	wa_arena *a = wa_new();
	wtp_topo *t = build(s, WASP_DOMAIN_VALUE, a);
	ck_assert_int_eq(t->nwarnings, 1);
	ck_assert_str_eq(t->warnings[0],
			 "labels example.com/rack and example.com/block do "
			 "not nest: rack r1 spans block b1 and nodes without "
			 "example.com/block; reading each key on its own, so a "
			 "group that requires one rack r1 may be split across "
			 "blocks; the Kueue Topology means paths: use "
			 "--domain path");
	wa_destroy(a);
	ws_snapshot_free(s);
}
END_TEST

/* 10,000 nodes x 4 keys in well under a second. */
START_TEST(scale)
{
	hb b;
	hb_init(&b);
	hb_res(&b, "cpu");
	for (int i = 0; i < 10000; i++) {
		char name[32], lab[256];
		snprintf(name, sizeof name, "node-%05d", i);
		snprintf(lab, sizeof lab,
			 BLOCK "=b%d," RACK "=r%d," ZONE "=z%d," HOST "=%s",
			 i / 1024, i / 32, i / 4096, name);
		hb_node(&b, name, lab, "cpu=1");
	}
	const char *lv[] = {ZONE, BLOCK, RACK, HOST};
	hb_topology(&b, "t", lv, 4);
	ws_snapshot *s = hb_done(&b);
	for (int mode = 0; mode < 2; mode++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		wa_arena *a = wa_new();
		wtp_topo *t = build(s, mode, a);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double sec = (double)(t1.tv_sec - t0.tv_sec) +
			     (t1.tv_nsec - t0.tv_nsec) / 1e9;
		ck_assert_msg(sec < 1.0, "topology took %.3f s", sec);
		ck_assert_msg(t->nwarnings == 0, "%s", t->warnings[0]);
		ck_assert_int_eq(t->keys[3].ndom, 10000);
		ck_assert_int_eq(t->keys[2].ndom, 313);
		ck_assert_int_eq(t->keys[3].dom_parent[9999],
				 t->keys[2].node_dom[9999]);
		wa_destroy(a);
	}
	ws_snapshot_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, value_domains);
	tcase_add_test(tc, path_domains);
	tcase_add_test(tc, nesting_inference);
	tcase_add_test(tc, topology_object_order);
	tcase_add_test(tc, non_nesting_warning);
	tcase_add_test(tc, missing_coarser_label);
	tcase_add_test(tc, kueue_value_recurs);
	tcase_add_test(tc, scale);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
