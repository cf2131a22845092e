/*
 * check_decode_predicates.c -- the static node-fit predicates of
 * snapshot.c (taints and tolerations, node selectors, node affinity, the
 * node's own state), on hand-built pods and nodes and on decoded ones,
 * and the snapshot's lookups (the name indexes, ws_map).
 *
 * Split from check_decode.c, which tests the decoder itself; the decoded
 * case loads its text through tu_load.
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "model/snapshot.h"

/* ------------------------------------------------------- predicates */

static ws_kv node_labels[] = {
    {"gen", "5"}, {"rack", "r1"}, {"type", "gpu"}, {"zone", "z1"}};

static ws_node mk_node(ws_taint *t, int nt)
{
	ws_node n = {0};
	n.name = "node-1";
	n.labels = node_labels;
	n.nlabels = 4;
	n.taints = t;
	n.ntaints = nt;
	n.ready = true;
	return n;
}

START_TEST(predicate_taints)
{
	ws_taint t_ns = {"gpu", "yes", WS_EFFECT_NOSCHEDULE};
	ws_taint t_ne = {"spot", "", WS_EFFECT_NOEXECUTE};
	ws_taint t_pref = {"soft", "x", WS_EFFECT_PREFERNOSCHEDULE};
	struct {
		ws_toleration tol;
		int ntol;
		ws_taint *taint;
		bool fits;
	} cases[] = {
	    /* no tolerations */
	    {{0}, 0, &t_ns, false},
	    {{0}, 0, &t_ne, false},
	    {{0}, 0, &t_pref, true}, /* PreferNoSchedule is ignored */
	    /* empty key + Exists tolerates everything */
	    {{"", true, "", WS_EFFECT_ALL}, 1, &t_ns, true},
	    {{NULL, true, NULL, WS_EFFECT_ALL}, 1, &t_ne, true},
	    /* ... but only the effect it names */
	    {{"", true, "", WS_EFFECT_NOEXECUTE}, 1, &t_ns, false},
	    {{"gpu", true, "", WS_EFFECT_NOSCHEDULE}, 1, &t_ns, true},
	    {{"gpu", false, "yes", WS_EFFECT_ALL}, 1, &t_ns, true},
	    {{"gpu", false, "no", WS_EFFECT_ALL}, 1, &t_ns, false},
	    {{"gpu", false, "", WS_EFFECT_ALL}, 1, &t_ns, false},
	    {{"other", true, "", WS_EFFECT_ALL}, 1, &t_ns, false},
	    {{"spot", false, "", WS_EFFECT_NOEXECUTE}, 1, &t_ne, true},
	    {{"spot", false, "", WS_EFFECT_NOSCHEDULE}, 1, &t_ne, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ws_node n = mk_node(cases[i].taint, 1);
		ws_pod p = {0};
		p.tolerations = &cases[i].tol;
		p.ntolerations = cases[i].ntol;
		const char *why = NULL;
		bool ok = ws_pod_fits_node_static(&p, &n, &why);
		ck_assert_msg(ok == cases[i].fits, "case %zu", i);
		ck_assert(ws_tolerates(&p, &n, NULL) == cases[i].fits);
		if (!ok)
			ck_assert_str_eq(why, "untolerated taint");
	}
	/* every taint must be tolerated */
	ws_taint two[] = {t_ns, t_ne};
	ws_toleration one = {"gpu", true, "", WS_EFFECT_ALL};
	ws_node n = mk_node(two, 2);
	ws_pod p = {0};
	p.tolerations = &one;
	p.ntolerations = 1;
	ck_assert(!ws_tolerates(&p, &n, NULL));
	ws_toleration both[] = {one, {"spot", true, "", WS_EFFECT_ALL}};
	p.tolerations = both;
	p.ntolerations = 2;
	ck_assert(ws_tolerates(&p, &n, NULL));
}
END_TEST

START_TEST(predicate_selector_and_node_state)
{
	ws_node n = mk_node(NULL, 0);
	ws_kv sel_ok[] = {{"rack", "r1"}, {"zone", "z1"}};
	ws_kv sel_bad[] = {{"rack", "r1"}, {"zone", "z2"}};
	ws_kv sel_missing[] = {{"disk", "ssd"}};
	ws_pod p = {0};
	const char *why = NULL;
	ck_assert(ws_pod_fits_node_static(&p, &n, &why));
	p.selector = sel_ok;
	p.nselector = 2;
	ck_assert(ws_selector_matches(&p, &n, NULL));
	p.selector = sel_bad;
	ck_assert(!ws_pod_fits_node_static(&p, &n, &why));
	ck_assert_str_eq(why, "node selector does not match");
	p.selector = sel_missing;
	p.nselector = 1;
	ck_assert(!ws_selector_matches(&p, &n, NULL));
	p.nselector = 0;
	n.unschedulable = true;
	ck_assert(!ws_pod_fits_node_static(&p, &n, &why));
	ck_assert_str_eq(why, "node is unschedulable");
	n.unschedulable = false;
	n.ready = false;
	ck_assert(!ws_node_schedulable(&n, &why));
	ck_assert_str_eq(why, "node is not ready");
}
END_TEST

START_TEST(predicate_affinity)
{
	ws_node n = mk_node(NULL, 0);
	const char *v_gpu[] = {"cpu", "gpu"}, *v_r2[] = {"r2"},
		   *v_node[] = {"node-1"}, *v_x[] = {"x"};
	struct {
		ws_expr e;
		bool match;
	} cases[] = {
	    {{"type", WS_OP_IN, v_gpu, 2, 0, false}, true},
	    {{"rack", WS_OP_IN, v_r2, 1, 0, false}, false},
	    {{"absent", WS_OP_IN, v_gpu, 2, 0, false}, false},
	    {{"rack", WS_OP_NOTIN, v_r2, 1, 0, false}, true},
	    {{"type", WS_OP_NOTIN, v_gpu, 2, 0, false}, false},
	    {{"absent", WS_OP_NOTIN, v_r2, 1, 0, false}, true},
	    {{"zone", WS_OP_EXISTS, NULL, 0, 0, false}, true},
	    {{"absent", WS_OP_EXISTS, NULL, 0, 0, false}, false},
	    {{"absent", WS_OP_DOESNOTEXIST, NULL, 0, 0, false}, true},
	    {{"zone", WS_OP_DOESNOTEXIST, NULL, 0, 0, false}, false},
	    {{"gen", WS_OP_GT, NULL, 0, 4, false}, true},
	    {{"gen", WS_OP_GT, NULL, 0, 5, false}, false},
	    {{"gen", WS_OP_LT, NULL, 0, 6, false}, true},
	    {{"gen", WS_OP_LT, NULL, 0, -1, false}, false},
	    {{"rack", WS_OP_GT, NULL, 0, 0, false}, false}, /* "r1": no */
	    {{"absent", WS_OP_LT, NULL, 0, 100, false}, false},
	    {{"metadata.name", WS_OP_IN, v_node, 1, 0, true}, true},
	    {{"metadata.name", WS_OP_NOTIN, v_node, 1, 0, true}, false},
	    {{"metadata.name", WS_OP_IN, v_x, 1, 0, true}, false},
	    /* a label called metadata.name is not the field */
	    {{"metadata.name", WS_OP_IN, v_node, 1, 0, false}, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_msg(ws_expr_matches(&cases[i].e, &n) ==
				  cases[i].match, "case %zu", i);
		ws_term t = {&cases[i].e, 1};
		ws_pod p = {0};
		p.affinity = &t;
		p.naffinity = 1;
		const char *why = NULL;
		ck_assert(ws_pod_fits_node_static(&p, &n, &why) ==
			  cases[i].match);
		if (!cases[i].match)
			ck_assert_str_eq(why, "node affinity does not match");
	}
	/* AND within a term, OR over terms, empty term matches nothing */
	ws_expr yes = cases[0].e, no = cases[1].e;
	ws_expr and_no[] = {yes, no}, and_yes[] = {yes, cases[3].e};
	ws_term terms[3] = {{and_no, 2}, {NULL, 0}, {and_yes, 2}};
	ws_pod p = {0};
	p.affinity = terms;
	p.naffinity = 2;
	ck_assert(!ws_affinity_matches(&p, &n, NULL));
	p.naffinity = 3;
	ck_assert(ws_affinity_matches(&p, &n, NULL));
	p.affinity = &terms[1];
	p.naffinity = 1;
	ck_assert(!ws_affinity_matches(&p, &n, NULL));
}
END_TEST

/* Decoded pods against decoded nodes: the same answers end to end. */
START_TEST(predicate_decoded)
{
	ws_snapshot *s = tu_load(
	    "apiVersion: v1\nkind: Node\nmetadata:\n  name: kwok-0\n"
	    "  labels: {type: kwok, gen: \"4\"}\n"
	    "spec: {taints: [{key: kwok.x-k8s.io/node, value: fake, "
	    "effect: NoSchedule}]}\n"
	    "status: {allocatable: {pods: 110}}\n---\n"
	    "apiVersion: v1\nkind: Node\nmetadata:\n  name: real-0\n"
	    "  labels: {type: real}\n"
	    "status: {allocatable: {pods: 110}}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  affinity: {nodeAffinity: "
	    "{requiredDuringSchedulingIgnoredDuringExecution: "
	    "{nodeSelectorTerms: [{matchExpressions: [{key: type, operator: "
	    "In, values: [kwok]}]}]}}}\n"
	    "  tolerations: [{key: kwok.x-k8s.io/node, operator: Exists, "
	    "effect: NoSchedule}]\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"
	    "  affinity: {nodeAffinity: "
	    "{requiredDuringSchedulingIgnoredDuringExecution: "
	    "{nodeSelectorTerms: [{matchExpressions: [{key: gen, operator: "
	    "Lt, values: [\"5\"]}]}, {matchFields: [{key: metadata.name, "
	    "operator: In, values: [real-0]}]}]}}}\n");
	const ws_node *kw = &s->nodes[0], *re = &s->nodes[1];
	const ws_pod *p = &s->pods[0], *q = &s->pods[1];
	ck_assert(ws_pod_fits_node_static(p, kw, NULL));
	ck_assert(!ws_pod_fits_node_static(p, re, NULL));
	ck_assert(!ws_pod_fits_node_static(q, kw, NULL)); /* taint */
	ck_assert(ws_affinity_matches(q, kw, NULL));      /* gen 4 < 5 */
	ck_assert(ws_pod_fits_node_static(q, re, NULL));  /* by name */
	ws_snapshot_free(s);
}
END_TEST

START_TEST(hand_built_lookups)
{
	/* without indexes the lookups scan; with them they hash */
	ws_snapshot s = {0};
	ws_node nodes[2] = {{.name = "a"}, {.name = "b"}};
	ws_pod pods[2] = {{.ns = "x", .name = "p"}, {.ns = "y", .name = "p"}};
	ws_group groups[1] = {{.ns = "y", .name = "g"}};
	const char *res[] = {"pods", "cpu"};
	s.nodes = nodes;
	s.nnodes = 2;
	s.pods = pods;
	s.npods = 2;
	s.groups = groups;
	s.ngroups = 1;
	s.res = res;
	s.nres = 2;
	for (int pass = 0; pass < 2; pass++) {
		ck_assert_int_eq(ws_node_index(&s, "b"), 1);
		ck_assert_int_eq(ws_node_index(&s, "c"), -1);
		ck_assert_int_eq(ws_pod_index(&s, "y", "p"), 1);
		ck_assert_int_eq(ws_pod_index(&s, "z", "p"), -1);
		ck_assert_int_eq(ws_group_index(&s, "y", "g"), 0);
		ck_assert_int_eq(ws_group_index(&s, "x", "g"), -1);
		ck_assert_int_eq(ws_res_index(&s, "cpu"), 1);
		ck_assert_int_eq(ws_res_index(&s, "memory"), -1);
		if (pass == 0) {
			s.arena = wa_new();
			ck_assert_int_eq(ws_snapshot_index(&s), WASP_OK);
			ck_assert_ptr_nonnull(s.node_idx);
		}
	}
	wa_destroy(s.arena);
}
END_TEST

START_TEST(map_grows)
{
	wa_arena *a = wa_new();
	ws_map *m = ws_map_new(a);
	for (int i = 0; i < 5000; i++) {
		const char *k = wa_printf(a, "key-%d", i);
		ck_assert_int_eq(ws_map_put(m, k, i), -1);
	}
	ck_assert_int_eq(ws_map_put(m, "key-17", 99), 17);
	ck_assert_uint_eq(ws_map_count(m), 5000);
	for (int i = 0; i < 5000; i += 7) {
		char k[32];
		snprintf(k, sizeof k, "key-%d", i);
		ck_assert_int_eq(ws_map_get(m, k), i);
	}
	ck_assert_int_eq(ws_map_get(m, "key-5000"), -1);
	wa_destroy(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decode_predicates");
	TCase *tp = tcase_create("predicates");
	tcase_add_test(tp, predicate_taints);
	tcase_add_test(tp, predicate_selector_and_node_state);
	tcase_add_test(tp, predicate_affinity);
	tcase_add_test(tp, predicate_decoded);
	tcase_add_test(tp, hand_built_lookups);
	tcase_add_test(tp, map_grows);
	suite_add_tcase(s, tp);
	return tu_run(s);
}
