/*
 * check_reduce.c -- the reduction (problem.c): pod classes, eligible nodes
 * and why none is, groups (minimum, bound pods, fixed domain, invalid,
 * order), the value resource, and the shared objective / feasibility
 * helpers.
 */
#include <stdio.h>
#include <string.h>

#include "plan/plan.h"
#include "reduce/problem.h"
#include "testutil.h"
#include "fixtures/solve/hand.h"

#define GPU "nvidia.com/gpu"
#define RACK "example.com/rack"

typedef struct fx {
	hb b;
	ws_snapshot *s;
	wa_arena *a;
	wtp_topo *t;
	wp_problem *p;
} fx;

static void reduce_opts(fx *f, const wasp_options *o)
{
	wasp_error e;
	f->s = hb_done(&f->b);
	f->a = wa_new();
	ck_assert_int_eq(wtp_build(f->s, WASP_DOMAIN_VALUE, f->a, &f->t, &e),
			 WASP_OK);
	ck_assert_int_eq(wp_reduce(f->s, f->t, o, f->a, &f->p, &e), WASP_OK);
}

static void reduce(fx *f)
{
	reduce_opts(f, NULL);
}

static void fx_free(fx *f)
{
	wa_destroy(f->a);
	ws_snapshot_free(f->s);
}

/* The problem group made from snapshot group sg. */
static const wp_group *pgroup(const fx *f, int sg)
{
	for (int g = 0; g < f->p->ngroups; g++)
		if (f->p->groups[g].sg == sg)
			return &f->p->groups[g];
	ck_abort_msg("no problem group for snapshot group %d", sg);
	return NULL;
}

static const wp_class *pclass(const fx *f, const wp_group *g, int i)
{
	ck_assert_int_lt(i, g->nclasses);
	return &f->p->classes[g->classes[i]];
}

START_TEST(classes_merge_and_split)
{
	fx f;
	hb_init(&f.b);
	hb_res(&f.b, "cpu");
	hb_res(&f.b, GPU);
	hb_node(&f.b, "n0", "", "cpu=64," GPU "=8");
	hb_node(&f.b, "n1", "", "cpu=64," GPU "=8");
	int g = hb_group(&f.b, "train", WS_POLICY_GANG, 4, NULL, 100);
	hb_pods(&f.b, "w", 3, g, "cpu=4," GPU "=8", 100);
	hb_pod(&f.b, "leader", g, NULL, "cpu=2", 100);
	ws_pod *tol = hb_pod(&f.b, "w-tol", g, NULL, "cpu=4," GPU "=8", 100);
	hb_tolerate(&f.b, tol, "dedicated", "gpu", WS_EFFECT_NOSCHEDULE);
	hb_pods(&f.b, "lone", 2, -1, "cpu=1", 0);
	hb_pod(&f.b, "lone-big", -1, NULL, "cpu=2", 0);
	reduce(&f);
	const wp_problem *p = f.p;
	ck_assert_int_eq(p->ngroups, 3);
	ck_assert_int_eq(p->nclasses, 5);
	const wp_group *wg = &p->groups[0];
	ck_assert_int_eq(wg->sg, g);
	ck_assert(wg->gang);
	ck_assert_int_eq(wg->size, 5);
	ck_assert_int_eq(wg->nclasses, 3);
	const wp_class *c = pclass(&f, wg, 0);
	ck_assert_int_eq(c->count, 3);
	ck_assert_int_eq(c->pods[0], 0);
	ck_assert_int_eq(c->pods[2], 2);
	ck_assert_int_eq(c->req[2], 8000);
	ck_assert_int_eq(pclass(&f, wg, 1)->count, 1);
	ck_assert_int_eq(pclass(&f, wg, 1)->pods[0], 3);
	ck_assert_int_eq(pclass(&f, wg, 2)->pods[0], 4);
	/* lone pods: identical ones share a pseudo group */
	ck_assert_int_eq(p->groups[1].sg, -1);
	ck_assert(!p->groups[1].gang);
	ck_assert_int_eq(p->groups[1].size, 2);
	ck_assert_int_eq(p->groups[1].min_need, 0);
	ck_assert_int_eq(pclass(&f, &p->groups[1], 0)->pods[1], 6);
	ck_assert_int_eq(p->groups[2].size, 1);
	ck_assert_int_eq(pclass(&f, &p->groups[2], 0)->pods[0], 7);
	/* slots */
	int off = 0;
	for (int i = 0; i < p->nclasses; i++) {
		ck_assert_int_eq(p->classes[i].off, off);
		ck_assert_int_eq(p->classes[i].nelig, 2);
		off += p->classes[i].nelig;
	}
	ck_assert_int_eq(p->nx, off);
	fx_free(&f);
}
END_TEST

/* n0 plain, n1 tainted, n2 cordoned, n3 not ready, n4 labelled h100,
 * n5 has too few GPUs, n6 has only a PreferNoSchedule taint. */
static void elig_cluster(fx *f)
{
	hb_init(&f->b);
	hb_res(&f->b, "cpu");
	hb_res(&f->b, GPU);
	hb_node(&f->b, "n0", "", "cpu=64," GPU "=8");
	ws_node *n = hb_node(&f->b, "n1", "", "cpu=64," GPU "=8");
	hb_taint(&f->b, n, "dedicated", "gpu", WS_EFFECT_NOSCHEDULE);
	hb_node(&f->b, "n2", "", "cpu=64," GPU "=8")->unschedulable = true;
	hb_node(&f->b, "n3", "", "cpu=64," GPU "=8")->ready = false;
	hb_node(&f->b, "n4", "accel=h100", "cpu=64," GPU "=8");
	hb_node(&f->b, "n5", "accel=h100", "cpu=64," GPU "=4");
	n = hb_node(&f->b, "n6", "", "cpu=64," GPU "=8");
	hb_taint(&f->b, n, "soft", "", WS_EFFECT_PREFERNOSCHEDULE);
}

static void assert_elig(const wp_class *c, const int *want, int n)
{
	ck_assert_int_eq(c->nelig, n);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(c->elig[i], want[i]);
}

START_TEST(eligibility)
{
	fx f;
	elig_cluster(&f);
	hb_pod(&f.b, "plain", -1, NULL, "cpu=1," GPU "=8", 0);
	ws_pod *p = hb_pod(&f.b, "tol", -1, NULL, "cpu=2," GPU "=8", 0);
	hb_tolerate(&f.b, p, "dedicated", NULL, WS_EFFECT_ALL);
	p = hb_pod(&f.b, "sel", -1, NULL, "cpu=3", 0);
	hb_select(&f.b, p, "accel=h100");
	p = hb_pod(&f.b, "aff", -1, NULL, "cpu=4", 0);
	hb_affinity_in(&f.b, p, "accel", "a100", "h100");
	p = hb_pod(&f.b, "sel-big", -1, NULL, "cpu=5," GPU "=8", 0);
	hb_select(&f.b, p, "accel=h100");
	reduce(&f);
	ck_assert_int_eq(f.p->nclasses, 5);
	assert_elig(&f.p->classes[0], (int[]){0, 4, 6}, 3);
	assert_elig(&f.p->classes[1], (int[]){0, 1, 4, 6}, 4);
	assert_elig(&f.p->classes[2], (int[]){4, 5}, 2);
	assert_elig(&f.p->classes[3], (int[]){4, 5}, 2);
	assert_elig(&f.p->classes[4], (int[]){4}, 1);
	for (int i = 0; i < 5; i++)
		ck_assert_ptr_null(f.p->classes[i].why_none);
	fx_free(&f);
}
END_TEST

START_TEST(why_none)
{
	fx f;
	elig_cluster(&f);
	ws_pod *p = hb_pod(&f.b, "huge", -1, NULL, "cpu=1," GPU "=16", 0);
	p = hb_pod(&f.b, "picky", -1, NULL, "cpu=1," GPU "=8", 0);
	hb_select(&f.b, p, "accel=b200");
	reduce(&f);
	ck_assert_int_eq(f.p->nclasses, 2);
	ck_assert_int_eq(f.p->classes[0].nelig, 0);
	ck_assert_str_eq(f.p->classes[0].why_none,
			 "insufficient nvidia.com/gpu on 4 nodes; untolerated "
			 "taint on 1 node; node is unschedulable on 1 node; "
			 "node is not ready on 1 node");
	ck_assert_str_eq(f.p->classes[1].why_none,
			 "node selector does not match on 4 nodes; untolerated "
			 "taint on 1 node; node is unschedulable on 1 node; "
			 "node is not ready on 1 node");
	fx_free(&f);
}
END_TEST

START_TEST(bound_pods_and_domains)
{
	fx f;
	hb_init(&f.b);
	hb_res(&f.b, GPU);
	hb_node(&f.b, "a1", RACK "=r1", GPU "=8");
	hb_node(&f.b, "b1", RACK "=r2", GPU "=8");
	hb_node(&f.b, "b2", RACK "=r2", GPU "=8");
	hb_node(&f.b, "x", "", GPU "=8");
	/* 2 running in r2, 3 pending, minCount 4: needs 2 more, in r2 */
	int g1 = hb_group(&f.b, "g1", WS_POLICY_GANG, 4, RACK, 0);
	hb_pod(&f.b, "g1-r0", g1, "b1", GPU "=1", 0);
	hb_pod(&f.b, "g1-r1", g1, "b2", GPU "=1", 0);
	hb_pods(&f.b, "g1-p", 3, g1, GPU "=1", 0);
	/* running in r1 and r2: spans two domains */
	int g2 = hb_group(&f.b, "g2", WS_POLICY_GANG, 2, RACK, 0);
	hb_pod(&f.b, "g2-r0", g2, "a1", GPU "=1", 0);
	hb_pod(&f.b, "g2-r1", g2, "b1", GPU "=1", 0);
	hb_pods(&f.b, "g2-p", 1, g2, GPU "=1", 0);
	/* running on a node without the label */
	int g3 = hb_group(&f.b, "g3", WS_POLICY_GANG, 1, RACK, 0);
	hb_pod(&f.b, "g3-r0", g3, "x", GPU "=1", 0);
	hb_pods(&f.b, "g3-p", 1, g3, GPU "=1", 0);
	/* more bound than minCount; a terminal pod does not count */
	int g4 = hb_group(&f.b, "g4", WS_POLICY_GANG, 1, NULL, 0);
	hb_pod(&f.b, "g4-r0", g4, "x", GPU "=1", 0);
	hb_pod(&f.b, "g4-r1", g4, "x", GPU "=1", 0);
	hb_pod(&f.b, "g4-done", g4, NULL, GPU "=1", 0)->terminal = true;
	hb_pods(&f.b, "g4-p", 2, g4, GPU "=1", 0);
	/* nothing pending: not in the problem */
	int g5 = hb_group(&f.b, "g5", WS_POLICY_GANG, 1, NULL, 0);
	hb_pod(&f.b, "g5-r0", g5, "x", GPU "=1", 0);
	reduce(&f);
	const wtp_key *rk = &f.t->keys[wtp_key_index(f.t, RACK)];
	const wp_group *w = pgroup(&f, g1);
	ck_assert_int_eq(w->nbound, 2);
	ck_assert_int_eq(w->size, 3);
	ck_assert_int_eq(w->min_need, 2);
	ck_assert_int_eq(w->key, wtp_key_index(f.t, RACK));
	ck_assert_str_eq(rk->dom_name[w->fixed_dom], "r2");
	ck_assert_ptr_null(w->invalid);
	ck_assert_int_eq(pgroup(&f, g2)->fixed_dom, -2);
	ck_assert_int_eq(pgroup(&f, g2)->min_need, 0);
	ck_assert_int_eq(pgroup(&f, g3)->fixed_dom, -2);
	w = pgroup(&f, g4);
	ck_assert_int_eq(w->nbound, 2);
	ck_assert_int_eq(w->size, 2);
	ck_assert_int_eq(w->min_need, 0);
	ck_assert_int_eq(w->key, -1);
	ck_assert_int_eq(w->fixed_dom, -1);
	ck_assert_int_eq(f.p->ngroups, 4);
	/* free = allocatable - bound use: x runs g3-r0, g4-r0, g4-r1, g5-r0 */
	int xi = ws_node_index(f.s, "x");
	ck_assert_int_eq(f.p->free[(size_t)xi * f.p->nres + 1], 4000);
	ck_assert_int_eq(f.p->free[(size_t)xi * f.p->nres + 0], 106000);
	fx_free(&f);
}
END_TEST

START_TEST(invalid_and_order)
{
	fx f;
	hb_init(&f.b);
	hb_res(&f.b, "cpu");
	hb_node(&f.b, "n", "", "cpu=64");
	int g0 = hb_group(&f.b, "low", WS_POLICY_GANG, 1, NULL, 10);
	hb_pods(&f.b, "low", 1, g0, "cpu=1", 10);
	int g1 = hb_group(&f.b, "short", WS_POLICY_GANG, 8, NULL, 50);
	hb_pods(&f.b, "short", 6, g1, "cpu=1", 50);
	int g2 = hb_group(&f.b, "bad", WS_POLICY_BASIC, 1, NULL, 50);
	hb_pods(&f.b, "bad", 2, g2, "cpu=1", 50);
	int g3 = hb_group(&f.b, "top", WS_POLICY_GANG, 1, NULL, 1000);
	hb_pods(&f.b, "top", 1, g3, "cpu=1", 1000);
	hb_pods(&f.b, "lone", 1, -1, "cpu=1", 50);
	hb_pods(&f.b, "lone-top", 1, -1, "cpu=1", 1000);
	f.b.s->groups[g2].invalid = "pods disagree on priority";
	reduce(&f);
	const wp_problem *p = f.p;
	ck_assert_int_eq(p->ngroups, 6);
	/* priority desc, then snapshot groups in input order, then lone */
	ck_assert_int_eq(p->groups[0].sg, g3);
	ck_assert_int_eq(p->groups[1].sg, -1);
	ck_assert_int_eq(p->groups[1].priority, 1000);
	ck_assert_int_eq(p->groups[2].sg, g1);
	ck_assert_int_eq(p->groups[3].sg, g2);
	ck_assert_int_eq(p->groups[4].sg, -1);
	ck_assert_int_eq(p->groups[5].sg, g0);
	ck_assert_str_eq(p->groups[2].invalid,
			 "gang needs minCount 8 but has only 6 pods");
	ck_assert_str_eq(p->groups[3].invalid, "pods disagree on priority");
	ck_assert_ptr_null(p->groups[0].invalid);
	fx_free(&f);
}
END_TEST

START_TEST(value_resource)
{
	fx f;
	hb_init(&f.b);
	hb_res(&f.b, GPU);
	hb_node(&f.b, "n", "", GPU "=8");
	hb_pods(&f.b, "p", 1, -1, GPU "=2", 0);
	wasp_options o;
	memset(&o, 0, sizeof o);
	o.value_resource = GPU;
	reduce_opts(&f, &o);
	ck_assert_int_eq(f.p->value_res, 1);
	wasp_error e;
	wp_problem *q = NULL;
	o.value_resource = "pods";
	ck_assert_int_eq(wp_reduce(f.s, f.t, &o, f.a, &q, &e), WASP_OK);
	ck_assert_int_eq(q->value_res, -1);
	o.value_resource = "example.com/fpga";
	ck_assert_int_eq(wp_reduce(f.s, f.t, &o, f.a, &q, &e), WASP_EINVAL);
	ck_assert_ptr_null(q);
	ck_assert_str_eq(e.msg, "unknown value resource 'example.com/fpga': "
				"no pod requests it (resources: pods, "
				"nvidia.com/gpu)");
	fx_free(&f);
}
END_TEST

/* Objective and feasibility on hand-written solutions. */
START_TEST(evaluate_and_feasible)
{
	fx f;
	hb_init(&f.b);
	hb_res(&f.b, GPU);
	hb_node(&f.b, "a", RACK "=r1", GPU "=8");
	hb_node(&f.b, "b", RACK "=r2", GPU "=8");
	hb_node(&f.b, "c", RACK "=r2", GPU "=8");
	hb_node(&f.b, "d", "", GPU "=8");
	int hi = hb_group(&f.b, "hi", WS_POLICY_GANG, 2, RACK, 100);
	hb_pods(&f.b, "hi", 2, hi, GPU "=4", 100);
	int lo = hb_group(&f.b, "lo", WS_POLICY_GANG, 1, NULL, 0);
	hb_pods(&f.b, "lo", 1, lo, GPU "=8", 0);
	reduce(&f);
	const wp_problem *p = f.p;
	const wp_class *ch = &p->classes[p->groups[0].classes[0]];
	const wp_class *cl = &p->classes[p->groups[1].classes[0]];
	wp_sol *s = wp_sol_new(p, f.a), *t = wp_sol_new(p, f.a);
	const char *why = NULL;
	ck_assert_int_eq(wp_sol_feasible(p, s, &why), 0);
	wp_value v0, v1;
	wp_evaluate(p, s, &v0);
	ck_assert_int_eq(v0.nprio, 2);
	ck_assert_int_eq(v0.prio[0], 100);
	/* 4 free nodes and rack r2 (b, c), a domain of two free nodes */
	ck_assert(v0.work[0] == 0 && v0.packing == 5);

	/* hi on a (both pods), lo on b */
	s->admit[0] = s->admit[1] = 1;
	wp_x_set(s, ch->off + 0, 2);
	wp_x_set(s, cl->off + 1, 1);
	ck_assert_msg(wp_sol_feasible(p, s, &why) == 0, "%s", why);
	wp_evaluate(p, s, &v1);
	ck_assert(v1.work[0] == 2 && v1.work[1] == 1 && v1.packing == 2);
	ck_assert_int_gt(wp_value_cmp(&v1, &v0), 0);
	ck_assert_int_lt(wp_value_cmp(&v0, &v1), 0);
	ck_assert_int_eq(wp_value_cmp(&v1, &v1), 0);

	/* higher tier wins over packing: lo alone is worse than hi alone */
	wp_sol_copy(p, t, s);
	t->admit[1] = 0;
	wp_x_set(t, cl->off + 1, 0);
	wp_value vh, vl;
	wp_evaluate(p, t, &vh);
	wp_sol_copy(p, t, s);
	t->admit[0] = 0;
	wp_x_set(t, ch->off + 0, 0);
	wp_evaluate(p, t, &vl);
	ck_assert_int_gt(wp_value_cmp(&vh, &vl), 0);

	/* violations */
	wp_sol_copy(p, t, s);
	wp_x_set(t, ch->off + 0, 1);
	wp_x_set(t, ch->off + 1, 1); /* a is r1, b is r2 */
	ck_assert_int_ne(wp_sol_feasible(p, t, &why), 0);
	ck_assert_str_eq(why, "a group spans several domains of its topology "
			      "key");
	wp_sol_copy(p, t, s);
	wp_x_set(t, ch->off + 0, 1); /* below minCount 2 */
	ck_assert_int_ne(wp_sol_feasible(p, t, &why), 0);
	ck_assert_str_eq(why, "an admitted gang is placed below its minimum");
	wp_sol_copy(p, t, s);
	wp_x_set(t, cl->off + 1, 0);
	wp_x_set(t, cl->off + 0, 1); /* lo on a with hi: 16 GPUs on 8 */
	ck_assert_int_ne(wp_sol_feasible(p, t, &why), 0);
	ck_assert_str_eq(why, "a node is over capacity");
	wp_sol_copy(p, t, s);
	t->admit[1] = 0;
	ck_assert_int_ne(wp_sol_feasible(p, t, &why), 0);
	ck_assert_str_eq(why, "a group that is not admitted has placed pods");

	/* value in GPUs */
	wasp_options o;
	memset(&o, 0, sizeof o);
	o.value_resource = GPU;
	wp_problem *q;
	wasp_error e;
	ck_assert_int_eq(wp_reduce(f.s, f.t, &o, f.a, &q, &e), WASP_OK);
	wp_evaluate(q, s, &v1);
	ck_assert(v1.work[0] == 8 && v1.work[1] == 8);
	fx_free(&f);
}
END_TEST

/* Same problem for any thread count; identical pods share elig arrays. */
/* wp_sol_feasible_near, which the search's merges use, agrees with the
 * whole check on solutions changed on a few nodes: from greedy's plan
 * of generated clusters with running pods of lower priorities, random
 * changes on one to three nodes (pods placed or taken off, groups
 * admitted or not, units evicted or not, by any group), each judged by
 * both. */
START_TEST(feasible_near_agrees)
{
	int nok = 0, nbad = 0;
	tu_rng r = {88172645463325252ull};
	for (int seed = 1; seed <= 6; seed++) {
		wasp_gen_options g;
		wasp_gen_options_init(&g);
		g.seed = seed;
		g.levels = 2;
		g.fanout = 4;
		g.nodes = 32;
		g.gangs = 12;
		g.max_gang = 8;
		g.busy = 0.5;
		g.priorities = 3;
		g.family = seed % 2 ? 2 : 3; /* fragmented, mixed */
		tu_inst in;
		tu_inst_gen(&in, &g);
		const wp_problem *p = in.p;
		const char *why;
		ck_assert_int_eq(wp_sol_feasible(p, in.greedy, &why), 0);
		wp_sol *s = wp_sol_new(p, in.a);
		int groups[16], nodes[64];
		for (int trial = 0; trial < 300; trial++) {
			wp_sol_copy(p, s, in.greedy);
			int ng = 0, nn = 0, k = tu_rnd(&r, 1, 3);
			for (int i = 0; i < k; i++) {
				int n = tu_rnd(&r, 0, p->nnodes - 1), dup = 0;
				for (int j = 0; j < nn; j++)
					dup |= nodes[j] == n;
				if (!dup)
					nodes[nn++] = n;
			}
			for (int i = 0; i < 3 && trial % 3 != 2; i++) {
				int c = tu_rnd(&r, 0, p->nclasses - 1);
				int n = nodes[tu_rnd(&r, 0, nn - 1)];
				int sl = wp_slot(p, c, n);
				int gr = p->classes[c].group;
				if (sl >= 0)
					wp_x_set(s, sl, tu_rnd(&r, 0, 3));
				if (tu_rnd(&r, 0, 3) == 0)
					s->admit[gr] = !s->admit[gr];
				groups[ng++] = gr;
			}
			/* a unit on one of the nodes evicted or not */
			for (int u = 0; ng && p->nunits && u < 4; u++) {
				int v = tu_rnd(&r, 0, p->nunits - 1);
				const wp_unit *un = &p->units[v];
				int on = 0;
				for (int i = 0; i < un->npods; i++)
					for (int j = 0; j < nn; j++)
						on |= p->snap->pods[un->pods[i]].node ==
						      nodes[j];
				if (!on)
					continue;
				s->evict[v] = !s->evict[v];
				s->evict_by[v] =
				    s->evict[v] ? groups[tu_rnd(&r, 0, ng - 1)]
						: -1;
				break;
			}
			/* every third trial, instead: a pod more of a class
			 * on a node where it has pods (and pods left), and a
			 * unit there of no lower priority evicted by an
			 * admitted group above it: capacity holds, the
			 * capacity-by-priority rows decide */
			for (int t = 0; trial % 3 == 2 && t < p->nx; t++) {
				int sl = (tu_rnd(&r, 0, p->nx - 1) + t) % p->nx;
				int c = wp_slot_class(p, sl);
				const wp_class *cl = &p->classes[c];
				int n = cl->elig[sl - cl->off];
				/* the pod comes from another node of its class
				 * (none: one more, if the class has it) */
				long have = 0;
				int from = -1;
				for (int e = 0; e < cl->nelig; e++) {
					have += wp_x(s, cl->off + e);
					if (wp_x(s, cl->off + e) > 0 &&
					    cl->off + e != sl)
						from = cl->off + e;
				}
				int32_t pc = p->groups[cl->group].priority;
				if (wp_x(s, sl) == 0 || (from < 0 && have >= cl->count))
					continue;
				int v = -1, by = -1;
				for (int u = 0; u < p->nunits && v < 0; u++) {
					const wp_unit *un = &p->units[u];
					for (int i = 0; i < un->npods; i++)
						if (!s->evict[u] &&
						    un->priority >= pc &&
						    p->snap->pods[un->pods[i]]
							    .node == n)
							v = u;
				}
				for (int h = 0; v >= 0 && h < p->ngroups; h++)
					if (s->admit[h] && by < 0 &&
					    p->groups[h].priority >
						p->units[v].priority)
						by = h;
				if (by < 0)
					continue;
				wp_x_add(s, sl, 1);
				if (have >= cl->count)
					wp_x_add(s, from, -1);
				s->evict[v] = 1;
				s->evict_by[v] = by;
				groups[ng++] = cl->group;
				groups[ng++] = by;
				nn = 0;
				nodes[nn++] = n;
				if (have >= cl->count)
					nodes[nn++] = cl->elig[from - cl->off];
				const wp_unit *un = &p->units[v];
				for (int i = 0; i < un->npods; i++) {
					int m = p->snap->pods[un->pods[i]].node,
					    dup = 0;
					for (int j = 0; j < nn; j++)
						dup |= nodes[j] == m;
					if (!dup && nn < 64)
						nodes[nn++] = m;
				}
				break;
			}
			int whole = wp_sol_feasible(p, s, &why);
			int near = wp_sol_feasible_near(p, s, groups, ng, nodes,
							nn, &why);
			ck_assert_msg(whole == near, "seed %d trial %d: whole "
				      "%d, near %d", seed, trial, whole, near);
			if (whole)
				nbad++;
			else
				nok++;
		}
		tu_inst_free(&in);
	}
	/* both verdicts came up often */
	ck_assert_int_gt(nok, 50);
	ck_assert_int_gt(nbad, 100);
}
END_TEST

/* 200 nodes, every 7th tainted, a third with 4 GPUs; 50 gangs of three
 * pods over four priorities. */
static void many_nodes(fx *f)
{
	hb_init(&f->b);
	hb_res(&f->b, GPU);
	for (int i = 0; i < 200; i++) {
		char name[32];
		snprintf(name, sizeof name, "n%03d", i);
		ws_node *n = hb_node(&f->b, name, "", i % 3 ? GPU "=8" : GPU "=4");
		if (i % 7 == 0)
			hb_taint(&f->b, n, "t", "", WS_EFFECT_NOEXECUTE);
	}
	for (int g = 0; g < 50; g++) {
		char name[32];
		snprintf(name, sizeof name, "g%d", g);
		int gi = hb_group(&f->b, name, WS_POLICY_GANG, 2, NULL, g % 4);
		hb_pods(&f->b, name, 3, gi, g % 2 ? GPU "=8" : GPU "=2", g % 4);
		if (g % 5 == 0)
			hb_tolerate(&f->b, &f->b.s->pods[f->b.s->npods - 1], "t",
				    NULL, WS_EFFECT_ALL);
	}
}

/* A solution's paged counts (problem.h) against a dense array: random
 * sets and adds, reads, the walk per class and over any range, copies
 * over a solution holding other pages, the dense round trip, clearing;
 * a zero written where no page is allocates none; a page that cannot
 * be allocated marks the solution, and the check and the plan refuse
 * it. */
START_TEST(paged_counts)
{
	fx f;
	many_nodes(&f);
	reduce(&f);
	const wp_problem *p = f.p;
	int nx = p->nx;
	ck_assert_int_gt(nx, 8 * WP_XPAGE);
	int *ref = calloc((size_t)nx + 1, sizeof *ref);
	int *dense = calloc((size_t)nx + 1, sizeof *dense);
	ck_assert(ref && dense);
	wp_sol *s = wp_sol_new(p, f.a), *t = wp_sol_new(p, f.a);
	for (int sl = 0; sl < nx; sl++)
		ck_assert_int_eq(wp_x_set(s, sl, 0), 0);
	for (int i = 0; i < s->nxpg; i++)
		ck_assert_ptr_null(s->xpg[i]);
	ck_assert_int_eq(wp_x_next(s, 0, nx), -1);
	tu_rng r = {7};
	for (int round = 0; round < 6; round++) {
		for (int i = 0; i < 200; i++) {
			int sl = tu_rnd(&r, 0, nx - 1), v = tu_rnd(&r, -2, 3);
			if (i % 2) {
				ck_assert_int_eq(wp_x_add(s, sl, v), 0);
				ref[sl] += v;
			} else {
				ck_assert_int_eq(wp_x_set(s, sl, v), 0);
				ref[sl] = v;
			}
		}
		for (int sl = 0; sl < nx; sl++)
			ck_assert_int_eq(wp_x(s, sl), ref[sl]);
		for (int c = 0; c < p->nclasses; c++) {
			const wp_class *cl = &p->classes[c];
			int want = cl->off;
			WP_X_EACH(s, cl, sl) {
				while (!ref[want])
					want++;
				ck_assert_int_eq(sl, want++);
			}
			while (want < cl->off + cl->nelig)
				ck_assert_int_eq(ref[want++], 0);
		}
		for (int q = 0; q < 50; q++) {
			int from = tu_rnd(&r, 0, nx - 1);
			int end = tu_rnd(&r, from, nx), want = -1;
			for (int sl = from; sl < end && want < 0; sl++)
				if (ref[sl])
					want = sl;
			ck_assert_int_eq(wp_x_next(s, from, end), want);
		}
		wp_x_to_dense(p, s, dense);
		ck_assert_mem_eq(dense, ref, (size_t)nx * sizeof *ref);
		for (int i = 0; i < 40; i++)
			wp_x_set(t, tu_rnd(&r, 0, nx - 1), tu_rnd(&r, 1, 5));
		wp_sol_copy(p, t, s);
		for (int sl = 0; sl < nx; sl++)
			ck_assert_int_eq(wp_x(t, sl), ref[sl]);
		wp_x_clear(t);
		ck_assert_int_eq(wp_x_next(t, 0, nx), -1);
		ck_assert_int_eq(wp_x_from_dense(p, t, ref), 0);
		for (int sl = 0; sl < nx; sl++)
			ck_assert_int_eq(wp_x(t, sl), ref[sl]);
	}
	wp_x_clear(s);
	ck_assert_int_eq(wp_x_next(s, 0, nx), -1);
	ck_assert(!s->nomem && !t->nomem);

	/* out of memory: fill the arena's chunk under a cap of one byte */
	wa_arena *small = wa_new();
	wp_sol *u = wp_sol_new(p, small);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(wp_x_set(u, 0, 1), 0); /* page 0 exists now */
	wa_set_cap(small, 1);
	while (wa_alloc(small, 1024))
		;
	ck_assert_int_eq(wp_x_set(u, 1, 2), 0); /* the same page */
	ck_assert_int_eq(wp_x_set(u, nx - 1, 1), -1);
	ck_assert(u->nomem);
	ck_assert_int_eq(wp_x(u, nx - 1), 0);
	const char *why = NULL;
	ck_assert_int_ne(wp_sol_feasible(p, u, &why), 0);
	ck_assert_str_eq(why, "out of memory storing the solution");
	wasp_plan *pl = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(wpl_from_sol(p, u, &pl, &e), WASP_ENOMEM);
	ck_assert_ptr_null(pl);
	wa_destroy(small);
	free(ref);
	free(dense);
	fx_free(&f);
}
END_TEST

START_TEST(threads_and_sharing)
{
	fx f;
	many_nodes(&f);
	wasp_options o;
	memset(&o, 0, sizeof o);
	o.threads = 1;
	reduce_opts(&f, &o);
	wp_problem *q;
	wasp_error e;
	o.threads = 2;
	ck_assert_int_eq(wp_reduce(f.s, f.t, &o, f.a, &q, &e), WASP_OK);
	const wp_problem *p = f.p;
	ck_assert_int_eq(p->nclasses, q->nclasses);
	ck_assert_int_eq(p->nx, q->nx);
	for (int c = 0; c < p->nclasses; c++) {
		ck_assert_int_eq(p->classes[c].nelig, q->classes[c].nelig);
		ck_assert_int_eq(p->classes[c].count, q->classes[c].count);
		ck_assert(!memcmp(p->classes[c].elig, q->classes[c].elig,
				  (size_t)p->classes[c].nelig * sizeof(int)));
	}
	/* 8-GPU pods fit the 8-GPU nodes only; taints cut every 7th */
	const wp_class *c8 = NULL, *c8b = NULL;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *k = &p->classes[c];
		if (k->req[1] == 8000 && k->count == 3 && !c8)
			c8 = k;
		else if (k->req[1] == 8000 && k->count == 3 && !c8b)
			c8b = k;
	}
	ck_assert_ptr_nonnull(c8b);
	ck_assert_ptr_eq(c8->elig, c8b->elig);
	int want = 0;
	for (int i = 0; i < 200; i++)
		want += i % 3 && i % 7;
	ck_assert_int_eq(c8->nelig, want);
	fx_free(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reduce");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, classes_merge_and_split);
	tcase_add_test(tc, eligibility);
	tcase_add_test(tc, why_none);
	tcase_add_test(tc, bound_pods_and_domains);
	tcase_add_test(tc, invalid_and_order);
	tcase_add_test(tc, value_resource);
	tcase_add_test(tc, evaluate_and_feasible);
	tcase_add_test(tc, threads_and_sharing);
	tcase_add_test(tc, paged_counts);
	tcase_add_test(tc, feasible_near_agrees);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
