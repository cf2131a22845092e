/*
 * check_preempt_dra.c -- preemption and DRA devices: the devices of a
 * running pod's allocated ResourceClaims are freed when every pod that
 * holds the claim is evicted (the greedy's victim search, the ILP's
 * freed-device columns of doc/formulation.md section 3b), and the
 * verifier's rule that a freed device goes only to a pod of higher
 * priority than its holders.
 *
 * Scenarios are small clusters written as YAML and solved through
 * tu_solve_serial, so every plan passes the verifier; the ILP is also run
 * alone (no warm start), and random clusters are cross-checked against
 * cbc and glpsol on the exported models.  The rest of preemption is in
 * check_preempt.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/ilp/ilp.h"
#include "run/run.h"
#include "reduce/problem.h"
#include "testutil.h"

#define RACK "example.com/rack"

/* Short names: the builders below call these on every line. */
typedef tu_buf yb;
#define y tu_printf

/* ------------------------------------------------------- DRA devices */

/* The head of node's ResourceSlice (driver gpu.example.com, pool
 * <node>); its devices follow. */
static void y_slice(yb *b, const char *node)
{
	y(b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	     "metadata: {name: %s-gpus}\nspec:\n  driver: gpu.example.com\n"
	     "  nodeName: %s\n  pool: {name: %s, generation: 1, "
	     "resourceSliceCount: 1}\n  devices:\n", node, node, node);
}

/* Node n0 (no labels, 64 cpus) and the head of its ResourceSlice. */
static void y_n0(yb *b)
{
	y(b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: n0}\n"
	     "status:\n  allocatable: {cpu: \"64\", pods: \"110\"}\n");
	y_slice(b, "n0");
}

/* The DeviceClass gpu: every device of driver gpu.example.com. */
static void y_dclass(yb *b)
{
	y(b, "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
	     "metadata: {name: gpu}\nspec:\n  selectors:\n  - cel: "
	     "{expression: \"device.driver == 'gpu.example.com'\"}\n");
}

/* One node with one GPU device, held by a running pod of priority 10
 * through the allocated ResourceClaim "old": how (0) its claim list
 * names it, (1) the claim's status.reservedFor lists the pod, which names
 * a template, (2) the pod's status.resourceClaimStatuses names it for
 * its template entry; a pending pod of priority `hi` needs one GPU. */
static wasp_snapshot *dra_victim(int how, int hi)
{
	yb b = {0};
	y_n0(&b);
	y(&b, "  - name: gpu-0\n");
	y_dclass(&b);
	y(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	      "metadata: {name: old, namespace: ml}\nspec:\n  devices:\n"
	      "    requests:\n    - name: g\n      exactly: {deviceClassName: "
	      "gpu}\nstatus:\n  allocation:\n    devices:\n      results:\n"
	      "      - {request: g, driver: gpu.example.com, pool: n0, "
	      "device: gpu-0}\n");
	bool reserved = how > 0;
	if (how == 1)
		y(&b, "  reservedFor:\n  - {resource: pods, name: low, "
		      "uid: u1}\n");
	y(&b, "---\napiVersion: resource.k8s.io/v1\n"
	      "kind: ResourceClaimTemplate\nmetadata: {name: one, namespace: "
	      "ml}\nspec:\n  spec:\n    devices:\n      requests:\n"
	      "      - name: g\n        exactly: {deviceClassName: gpu}\n");
	y(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: low, "
	      "namespace: ml}\nspec:\n  priority: 10\n  nodeName: n0\n"
	      "  containers:\n  - name: c\n    resources: {requests: {cpu: "
	      "\"1\"}}\n  resourceClaims:\n  - {name: x, %s: %s}\n",
	  reserved ? "resourceClaimTemplateName" : "resourceClaimName",
	  reserved ? "one" : "old");
	if (how == 2)
		y(&b, "status:\n  resourceClaimStatuses:\n  - {name: x, "
		      "resourceClaimName: old}\n");
	y(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: hi, "
	      "namespace: ml}\nspec:\n  priority: %d\n  containers:\n"
	      "  - name: c\n    resources: {requests: {cpu: \"1\"}}\n"
	      "  resourceClaims:\n  - {name: x, resourceClaimTemplateName: "
	      "one}\n", hi);
	return tu_load_buf(&b);
}

START_TEST(test_dra_victim_devices_freed)
{
	for (int reserved = 0; reserved < 3; reserved++)
		for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP;
		     mode++) {
			wasp_snapshot *s = dra_victim(reserved, 100);
			wasp_plan *p = tu_solve_serial(s, mode); /* verified */
			ck_assert_msg(tu_placed_in_group(p, "ml", "hi") == 1 ||
				      p->sum.placed_pods == 1,
				      "reserved %d mode %d", reserved, mode);
			ck_assert_int_eq(p->nevict, 1);
			ck_assert_str_eq(p->evict[0].pod, "low");
			ck_assert_int_eq(p->nclaims, 1);
			ck_assert_str_eq(p->claims[0].results[0].device,
					 "gpu-0");
			/* equal priority: no eviction, the pod waits */
			wasp_snapshot *s2 = dra_victim(reserved, 10);
			wasp_plan *p2 = tu_solve_serial(s2, mode);
			ck_assert_int_eq(p2->sum.placed_pods, 0);
			ck_assert_int_eq(p2->nevict, 0);
			wasp_plan_free(p2);
			/* the verifier: the first plan against the snapshot
			 * where hi has priority 10 uses a freed device at
			 * the victim's priority */
			size_t nv = 0;
			char *rep = NULL;
			ck_assert_int_eq(wasp_check(s2, p, &nv, &rep, NULL),
					 WASP_OK);
			ck_assert_msg(rep && strstr(rep, "freed by evicting "
						    "pods of priority 10, is "
						    "used at priority 10"),
				      "%s", rep ? rep : "");
			wasp_free(rep);
			wasp_snapshot_free(s2);
			wasp_plan_free(p);
			wasp_snapshot_free(s);
		}
}
END_TEST

/* ------------------------------------ DRA devices freed in the ILP */

/* A node with a cpu limit and a ResourceSlice of `ngpu` local devices
 * gpu-0.. in pool <name>. */
static void y_dnode(yb *b, const char *name, const char *rack, int cpu,
		    int ngpu)
{
	y(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n"
	     "  labels: {" RACK ": %s}\nstatus:\n  allocatable: {cpu: \"%d\", "
	     "pods: \"110\"}\n", name, rack, cpu);
	y_slice(b, name);
	for (int i = 0; i < ngpu; i++)
		y(b, "  - name: gpu-%d\n", i);
}

/* The DeviceClass and the templates one (1 GPU) and two (2 GPUs). */
static void y_dclasses(yb *b)
{
	y_dclass(b);
	for (int k = 1; k <= 2; k++)
		y(b, "---\napiVersion: resource.k8s.io/v1\n"
		     "kind: ResourceClaimTemplate\nmetadata: {name: %s, "
		     "namespace: ml}\nspec:\n  spec:\n    devices:\n"
		     "      requests:\n      - name: g\n        exactly: "
		     "{deviceClassName: gpu, count: %d}\n",
		  k == 1 ? "one" : "two", k);
}

/* ResourceClaim <claim> allocated to devices dev[0..n) of node's pool. */
static void y_aclaim(yb *b, const char *claim, const char *node,
		     const int *dev, int n)
{
	y(b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	     "metadata: {name: %s, namespace: ml}\nspec:\n  devices:\n"
	     "    requests:\n    - name: g\n      exactly: {deviceClassName: "
	     "gpu, count: %d}\nstatus:\n  allocation:\n    devices:\n"
	     "      results:\n", claim, n);
	for (int i = 0; i < n; i++)
		y(b, "      - {request: g, driver: gpu.example.com, pool: %s, "
		     "device: gpu-%d}\n", node, dev[i]);
}

/* A pod (running on node, or pending when node is NULL) of priority
 * prio and `cpu` cpus, in group (or none), whose claim entry x names
 * ResourceClaim claim or (claim NULL) template tpl (NULL: no claim). */
static void y_dpod(yb *b, const char *name, const char *group,
		   const char *node, int prio, int cpu, const char *claim,
		   const char *tpl)
{
	tu_pod_head_yaml(b, name, group, node, prio);
	y(b, "  containers:\n  - name: c\n    resources: {requests: "
	     "{cpu: \"%d\"}}\n", cpu);
	if (claim)
		y(b, "  resourceClaims:\n  - {name: x, resourceClaimName: %s}\n",
		  claim);
	else if (tpl)
		y(b, "  resourceClaims:\n  - {name: x, "
		     "resourceClaimTemplateName: %s}\n", tpl);
}

/* n0 (rack r0): gpu-0 held by `low` (priority 10), gpu-1 by `peer`
 * (priority 100, or 10 when both_low); n1 (rack r0): one free GPU.
 * extra: what is pending. */
static wasp_snapshot *dra_holders(bool both_low, int extra)
{
	yb b = {0};
	y_dnode(&b, "n0", "r0", 64, 2);
	y_dnode(&b, "n1", "r0", 64, 1);
	y_dclasses(&b);
	int d0 = 0, d1 = 1;
	y_aclaim(&b, "rc-low", "n0", &d0, 1);
	y_aclaim(&b, "rc-peer", "n0", &d1, 1);
	y_dpod(&b, "low", NULL, "n0", 10, 1, "rc-low", NULL);
	y_dpod(&b, "peer", NULL, "n0", both_low ? 10 : 100, 1, "rc-peer",
	       NULL);
	if (extra == 0) {
		/* a gang of two one-GPU pods at priority 100 in one rack */
		tu_group_yaml(&b, "g", 2, RACK, 100, "");
		y_dpod(&b, "g-0", "g", NULL, 100, 1, NULL, "one");
		y_dpod(&b, "g-1", "g", NULL, 100, 1, NULL, "one");
	} else if (extra == 1) {
		/* a gang of three: only with peer gone too */
		tu_group_yaml(&b, "g", 3, RACK, 100, "");
		for (int i = 0; i < 3; i++) {
			char nm[8];
			snprintf(nm, sizeof nm, "g-%d", i);
			y_dpod(&b, nm, "g", NULL, 100, 1, NULL, "one");
		}
	} else {
		/* a high pod and a lower one (priority 5) that must not
		 * take a device freed from priority 10 */
		y_dpod(&b, "hi", NULL, NULL, 100, 1, NULL, "one");
		y_dpod(&b, "lo", NULL, NULL, 5, 1, NULL, "one");
	}
	return tu_load_buf(&b);
}

/* The ILP alone (no warm start): optimal, its plan feasible, with
 * `placed` pods in the answer (x) and `evicted` units evicted (-1: any
 * number). */
static void ilp_alone(const wasp_snapshot *s, int placed, int evicted)
{
	wasp_options o;
	wasp_options_init(&o);
	o.threads = 1;
	wa_arena *a = wa_new();
	wp_problem *p = NULL;
	wasp_error e;
	ck_assert_int_eq(wsv_problem(s, &o, a, &p, &e), 0);
	wp_sol *x = wp_sol_new(p, a);
	wilp_stats st;
	ck_assert_int_eq(wilp_solve(p, &o, wdl_none(), NULL, x, &st, &e), 0);
	ck_assert_str_eq(st.status, "optimal");
	const char *why = NULL;
	ck_assert_msg(wp_sol_feasible(p, x, &why) == 0, "%s", why);
	int np = 0, ne = 0;
	for (int i = 0; i < p->nx; i++)
		np += wp_x(x, i);
	for (int u = 0; u < p->nunits; u++)
		ne += x->evict[u];
	if (placed >= 0)
		ck_assert_int_eq(np, placed);
	if (evicted >= 0)
		ck_assert_int_eq(ne, evicted);
	ck_assert_ptr_nonnull(x->dra); /* its own device allocation */
	wa_destroy(a);
}

/* A high-priority gang needs a device that only a lower-priority
 * running pod's claim holds: both solvers evict that pod (never the
 * equal-priority holder) and give its device to the gang; a gang that
 * would need the equal-priority holder's device too waits and evicts
 * nothing; a lower-priority pending pod never gets a freed device (the
 * ILP evicts for the high pod and gives the lower one the free GPU,
 * greedy leaves it waiting). */
START_TEST(test_dra_freed_devices_scenarios)
{
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		wasp_snapshot *s = dra_holders(false, 0);
		wasp_plan *p = tu_solve_serial(s, mode); /* verified */
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "g"), 2);
		ck_assert_int_eq(p->nevict, 1);
		ck_assert_str_eq(p->evict[0].pod, "low");
		wasp_plan_free(p);
		ilp_alone(s, 2, 1);
		wasp_snapshot_free(s);
		/* three pods: peer's device would be needed, it stays */
		s = dra_holders(false, 1);
		p = tu_solve_serial(s, mode);
		ck_assert_int_eq(p->sum.placed_pods, 0);
		ck_assert_int_eq(p->nevict, 0);
		wasp_plan_free(p);
		ilp_alone(s, 0, 0);
		wasp_snapshot_free(s);
		/* ... unless peer is of priority 10 too: both evicted */
		s = dra_holders(true, 1);
		p = tu_solve_serial(s, mode);
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "g"), 3);
		ck_assert_int_eq(p->nevict, 2);
		wasp_plan_free(p);
		wasp_snapshot_free(s);
		/* a lower pending pod */
		s = dra_holders(false, 2);
		p = tu_solve_serial(s, mode);
		if (mode == WASP_MODE_ILP) {
			ck_assert_int_eq(p->sum.placed_pods, 2);
			ck_assert_str_eq(tu_node_of(p, "ml", "hi"), "n0");
			ck_assert_str_eq(tu_node_of(p, "ml", "lo"), "n1");
			ck_assert_int_eq(p->nevict, 1);
			ck_assert_str_eq(p->evict[0].pod, "low");
			ilp_alone(s, 2, 1);
		} else {
			ck_assert_str_eq(tu_node_of(p, "ml", "hi"), "n1");
			ck_assert_int_eq(p->sum.placed_pods, 1);
			ck_assert_int_eq(p->nevict, 0);
		}
		wasp_plan_free(p);
		wasp_snapshot_free(s);
	}
	/* the three ways a pod holds a claim (dra_victim), ILP alone */
	for (int how = 0; how < 3; how++) {
		wasp_snapshot *s = dra_victim(how, 100);
		ilp_alone(s, 1, 1);
		wasp_snapshot_free(s);
		s = dra_victim(how, 10);
		ilp_alone(s, 0, 0);
		wasp_snapshot_free(s);
	}
}
END_TEST

/* Overlapping kinds and priorities (doc/formulation.md §3b): n0 has an
 * H100 (free) and an A100 held by `low` (priority 10).  (a) hi
 * (priority 100) takes any GPU, lo (priority 5) only an H100: evicting
 * low lets hi take the A100 and lo the H100, which the ILP finds (greedy
 * gives hi the H100 first).  (b) hi needs the H100, lo takes any GPU:
 * lo may not use the A100 freed from priority 10, so evicting low
 * admits nothing more; hi alone, no eviction (rows per priority level
 * instead of per-priority kinds would accept both). */
static wasp_snapshot *dra_kinds(bool hi_h100)
{
	yb b = {0};
	y_n0(&b);
	for (int i = 0; i < 2; i++)
		y(&b, "  - name: gpu-%d\n    attributes:\n      model: "
		      "{string: %s}\n", i, i ? "A100" : "H100");
	y_dclasses(&b);
	y(&b, "---\napiVersion: resource.k8s.io/v1\n"
	      "kind: ResourceClaimTemplate\nmetadata: {name: h100, "
	      "namespace: ml}\nspec:\n  spec:\n    devices:\n"
	      "      requests:\n      - name: g\n        exactly:\n"
	      "          deviceClassName: gpu\n          selectors:\n"
	      "          - cel: {expression: \"device.attributes["
	      "'gpu.example.com'].model == 'H100'\"}\n");
	int d1 = 1;
	y_aclaim(&b, "rc-low", "n0", &d1, 1);
	y_dpod(&b, "low", NULL, "n0", 10, 1, "rc-low", NULL);
	y_dpod(&b, "hi", NULL, NULL, 100, 1, NULL, hi_h100 ? "h100" : "one");
	y_dpod(&b, "lo", NULL, NULL, 5, 1, NULL, hi_h100 ? "one" : "h100");
	return tu_load_buf(&b);
}

START_TEST(test_dra_freed_overlapping_kinds)
{
	wasp_snapshot *s = dra_kinds(false);
	wasp_plan *p = tu_solve_serial(s, WASP_MODE_ILP); /* verified */
	ck_assert_int_eq(p->sum.placed_pods, 2);
	ck_assert_int_eq(p->nevict, 1);
	const wpl_claim *c = NULL;
	for (int i = 0; i < p->nclaims; i++)
		if (!strcmp(p->claims[i].name, "hi-x"))
			c = &p->claims[i];
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->results[0].device, "gpu-1");
	wasp_plan_free(p);
	p = tu_solve_serial(s, WASP_MODE_GREEDY);
	ck_assert_int_eq(p->sum.placed_pods, 1);
	wasp_plan_free(p);
	ilp_alone(s, 2, 1);
	wasp_snapshot_free(s);
	s = dra_kinds(true);
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		p = tu_solve_serial(s, mode);
		ck_assert_int_eq(p->sum.placed_pods, 1);
		ck_assert_str_eq(tu_node_of(p, "ml", "hi"), "n0");
		ck_assert_int_eq(p->nevict, 0);
		wasp_plan_free(p);
	}
	ilp_alone(s, 1, 0);
	wasp_snapshot_free(s);
}
END_TEST

/* Random small clusters where running pods of priorities 1, 10 and 100
 * hold allocated claims (one or two devices; some claims held by two
 * lone pods, some by an `all` group), with pending gangs, basic groups
 * and lone pods (priorities 5-1000, one or two devices, some Never) and
 * a cpu limit that sometimes binds. */
static char *gen_dra_preempt(uint64_t seed)
{
	tu_rng r = {seed * 0x9E3779B97F4A7C15ull + 7};
	yb b = {0};
	static const int hp[] = {1, 10, 100};
	static const int pp[] = {5, 10, 100, 1000};
	int nn = tu_rnd(&r, 1, 3), id = 0;
	y_dclasses(&b);
	for (int n = 0; n < nn; n++) {
		char node[8], rack[8];
		snprintf(node, sizeof node, "n%d", n);
		snprintf(rack, sizeof rack, "r%d", n / 2);
		int nd = tu_rnd(&r, 2, 4), cpu = tu_rnd(&r, 0, 2) ? 64 : 4;
		y_dnode(&b, node, rack, cpu, nd);
		/* allocated claims over a prefix of the devices */
		for (int d = 0; d < nd;) {
			int k = tu_rnd(&r, 0, 3);
			if (k == 0) {
				d++; /* stays free */
				continue;
			}
			int dev[2] = {d, d + 1}, cnt = k == 3 && d + 1 < nd
							   ? 2 : 1;
			char claim[16], pod[16];
			snprintf(claim, sizeof claim, "rc-%d", id);
			y_aclaim(&b, claim, node, dev, cnt);
			int pr = hp[tu_rnd(&r, 0, 2)], shape = tu_rnd(&r, 0, 5);
			if (shape == 0) {
				/* two lone holders of one claim */
				for (int h = 0; h < 2; h++) {
					snprintf(pod, sizeof pod, "h%d-%d", id, h);
					y_dpod(&b, pod, NULL, node,
					       h ? pr : hp[tu_rnd(&r, 0, 2)], 1,
					       claim, NULL);
				}
			} else if (shape == 1) {
				/* an `all` group of two holders */
				char grp[16];
				snprintf(grp, sizeof grp, "ag%d", id);
				tu_group_yaml(&b, grp, 2, NULL, pr,
					      "  disruptionMode: {all: {}}\n");
				for (int h = 0; h < 2; h++) {
					snprintf(pod, sizeof pod, "h%d-%d", id, h);
					y_dpod(&b, pod, grp, node, pr, 1,
					       claim, NULL);
				}
			} else {
				snprintf(pod, sizeof pod, "h%d", id);
				y_dpod(&b, pod, NULL, node, pr,
				       tu_rnd(&r, 1, 2), claim, NULL);
			}
			id++;
			d += cnt;
		}
		/* a running pod without claims */
		if (tu_rnd(&r, 0, 1)) {
			char pod[16];
			snprintf(pod, sizeof pod, "c%d", id++);
			y_dpod(&b, pod, NULL, node, hp[tu_rnd(&r, 0, 2)], 1,
			       NULL, NULL);
		}
	}
	int ng = tu_rnd(&r, 1, 3);
	for (int g = 0; g < ng; g++) {
		char nm[16];
		snprintf(nm, sizeof nm, "g%d", g);
		int n = tu_rnd(&r, 1, 3), pr = pp[tu_rnd(&r, 0, 3)];
		const char *extra = tu_rnd(&r, 0, 5) ? ""
				    : "  preemptionPolicy: Never\n";
		const char *tpl = tu_rnd(&r, 0, 2) ? "one" : "two";
		tu_group_yaml(&b, nm, tu_rnd(&r, 0, 3) ? n : 0,
			      tu_rnd(&r, 0, 1) ? RACK : NULL, pr, extra);
		for (int i = 0; i < n; i++) {
			char pod[24];
			snprintf(pod, sizeof pod, "%s-%d", nm, i);
			y_dpod(&b, pod, nm, NULL, pr, tu_rnd(&r, 1, 2), NULL,
			       tpl);
			y(&b, "%s", extra);
		}
	}
	for (int i = tu_rnd(&r, 0, 2); i > 0; i--) {
		char pod[16];
		snprintf(pod, sizeof pod, "lone%d", i);
		y_dpod(&b, pod, NULL, NULL, pp[tu_rnd(&r, 0, 3)], 1, NULL,
		       tu_rnd(&r, 0, 2) ? "one" : "two");
	}
	return b.buf;
}

/* Each: the ILP (plan and alone) is optimal, never worse than greedy,
 * allocates its own devices, every plan is verified, and cbc on the
 * exported MPS and glpsol on models/wasp.mod find the same optimum.
 * Some seeds must evict a device holder and some must have the ILP
 * beat greedy.  WASP_PE_SEEDS: more seeds by hand. */
START_TEST(test_dra_freed_cross_check)
{
	int nseeds = getenv("WASP_PE_SEEDS") ? atoi(getenv("WASP_PE_SEEDS"))
					     : 40;
	int nhold = 0, nbeat = 0;
	wasp_options ilp_o;
	wasp_options_init(&ilp_o);
	ilp_o.mode = WASP_MODE_ILP;
	for (int seed = 1; seed <= nseeds; seed++) {
		char *yaml = gen_dra_preempt((uint64_t)seed);
		if (getenv("WASP_KEEP"))
			fprintf(stderr, "dra cross-check: seed %d\n", seed);
		tu_dump_seed(seed, yaml);
		wasp_snapshot *s = tu_load(yaml);
		wasp_plan *g = tu_solve_serial(s, WASP_MODE_GREEDY);
		wasp_plan *i = tu_solve_serial(s, WASP_MODE_ILP);
		ck_assert_msg(!strcmp(i->sum.status, "optimal") ||
			      !strcmp(i->sum.status, "greedy"),
			      "seed %d: status %s", seed, i->sum.status);
		ck_assert_msg(wp_value_cmp(&i->sum.tiers, &g->sum.tiers) >= 0,
			      "seed %d: ILP worse than greedy", seed);
		nbeat += wp_value_cmp(&i->sum.tiers, &g->sum.tiers) > 0;
		for (int w = 0; w < i->nwarnings; w++)
			ck_assert_msg(!strstr(i->warnings[w], "claim by claim"),
				      "seed %d: %s", seed, i->warnings[w]);
		for (int k = 0; k < i->nevict; k++)
			nhold += i->evict[k].pod[0] == 'h';
		ilp_alone(s, -1, -1);
		tu_ext_agree(s, &ilp_o, i->sum.objective, i->sum.cols > 0,
			     seed);
		wasp_plan_free(g);
		wasp_plan_free(i);
		wasp_snapshot_free(s);
		free(yaml);
	}
	if (getenv("WASP_KEEP"))
		fprintf(stderr, "dra cross-check: %d holder evictions, ILP "
				"beats greedy on %d seeds\n", nhold, nbeat);
	ck_assert_int_gt(nhold, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("preempt_dra");
	TCase *tc = tcase_create("devices");
	tcase_add_test(tc, test_dra_victim_devices_freed);
	tcase_add_test(tc, test_dra_freed_devices_scenarios);
	tcase_add_test(tc, test_dra_freed_overlapping_kinds);
	suite_add_tcase(s, tc);
	tc = tcase_create("ilp");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_dra_freed_cross_check);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
