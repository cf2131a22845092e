/*
 * check_dra2.c -- DRA allocator rules beyond selectors (doc/dra.md
 * "Taints, counters, admin access, CEL errors"): scoped matchAttribute,
 * CEL runtime errors, device taints, shared counters, adminAccess,
 * backtracking across a pod's claims, warnings for fields not modelled.
 * One fixture each (tests/fixtures/dra/), planned by greedy and by the
 * ILP (every plan verified by tu_solve; the ILP's optimum cross-checked
 * with cbc and glpsol), and a plan made for a looser variant of the
 * fixture that the verifier must reject against the fixture itself.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "model/dra.h"
#include "plan/verify.h"

static const wpl_claim *claim_of(const wasp_plan *p, const char *name)
{
	for (int i = 0; i < p->nclaims; i++)
		if (!strcmp(p->claims[i].name, name))
			return &p->claims[i];
	ck_abort_msg("no claim %s in the plan", name);
	return NULL;
}

/* The device of claim `name` for request `req` (the n-th such result). */
static const char *dev_of(const wasp_plan *p, const char *name,
			  const char *req, int nth)
{
	const wpl_claim *c = claim_of(p, name);
	for (int i = 0; i < c->nresults; i++)
		if (!strcmp(c->results[i].request, req) && nth-- == 0)
			return c->results[i].device;
	ck_abort_msg("claim %s has no result %d for %s", name, nth, req);
	return NULL;
}

/* Text t with every `from` replaced by `to` (malloc'd; t is freed). */
static char *replace(char *t, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to), n = 0;
	for (const char *q = t; (q = strstr(q, from)); q += lf)
		n++;
	ck_assert_msg(n > 0, "no \"%s\" to replace", from);
	char *out = malloc(strlen(t) + n * lt + 1), *w = out;
	ck_assert_ptr_nonnull(out);
	const char *q = t, *hit;
	while ((hit = strstr(q, from))) {
		memcpy(w, q, (size_t)(hit - q));
		w += hit - q;
		memcpy(w, to, lt);
		w += lt;
		q = hit + lf;
	}
	strcpy(w, q);
	free(t);
	return out;
}

/* The fixture's text with every `from` replaced by `to` (malloc'd). */
static char *variant(const char *file, const char *from, const char *to)
{
	return replace(tu_slurp(tu_src_path(file)), from, to);
}

/* Violations of plan p against snapshot s; the report in *rep (arena a). */
static size_t violations(const wasp_snapshot *s, const wasp_plan *p,
			 wa_arena *a, char **rep)
{
	size_t nv = 0;
	*rep = NULL;
	ck_assert_int_eq(wv_check(s, p, a, &nv, rep, NULL), WASP_OK);
	return nv;
}

/* Plan s greedily and with the ILP (both verified); the ILP's optimum is
 * cross-checked and never below greedy's.  The caller frees both. */
static void both(const wasp_snapshot *s, wasp_plan **g, wasp_plan **i)
{
	*g = tu_solve_mode(s, WASP_MODE_GREEDY);
	*i = tu_solve_mode(s, WASP_MODE_ILP);
	ck_assert_str_eq((*i)->sum.mode, "ilp");
	ck_assert_msg(wp_value_cmp(&(*i)->sum.tiers, &(*g)->sum.tiers) >= 0,
		      "ILP worse than greedy");
	tu_ilp_cross_check(s, (*i)->sum.objective, 0);
}

/* 1. matchAttribute scoped to request a (and to subrequest a/pair): b's
 * device is outside the constraint, and the only allocation puts it on
 * the other PCIe root.  The verifier agrees with both solvers, and flags
 * a plan whose a-devices differ. */
START_TEST(scoped_match_attribute)
{
	wasp_snapshot *s = tu_load_file("tests/fixtures/dra/scoped.yaml");
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 2);
		ck_assert_str_eq(dev_of(p, "p-x", "b", 0), "gpu-1");
		ck_assert_str_eq(dev_of(p, "p-x", "a", 0), "gpu-0");
		ck_assert_str_eq(dev_of(p, "p-x", "a", 1), "gpu-2");
		ck_assert_str_eq(dev_of(p, "q-x", "b", 0), "gpu-1");
		ck_assert_str_eq(dev_of(p, "q-x", "a/pair", 0), "gpu-0");
	}
	/* swap b's device with a's second: a spans two roots */
	wpl_claim *c = (wpl_claim *)claim_of(pl[0], "p-x");
	wpl_result *rb = NULL, *ra = NULL;
	for (int i = 0; i < c->nresults; i++) {
		if (!strcmp(c->results[i].request, "b"))
			rb = &c->results[i];
		else if (!strcmp(c->results[i].device, "gpu-2"))
			ra = &c->results[i];
	}
	const char *t = rb->device;
	rb->device = ra->device;
	ra->device = t;
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_eq(violations(s, pl[0], a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, "differ in resource.kubernetes.io/"
				     "pcieRoot (matchAttribute)"));
	wa_destroy(a);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 2. A selector that errors on n1's device keeps pod p pending in both
 * solvers, although n2's device matches without error; the reason names
 * the claim's request, the device and the expression's position.  A plan
 * made without the error (the attribute present) is rejected. */
START_TEST(cel_runtime_error)
{
	const char *f = "tests/fixtures/dra/cel-error.yaml";
	wasp_snapshot *s = tu_load_file(f);
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(pl[k]->nplace, 1);
		ck_assert_ptr_nonnull(tu_node_of(pl[k], "default", "q"));
		const char *why = tu_wait_reason(pl[k], "default", "p");
		ck_assert_ptr_nonnull(why);
		ck_assert_ptr_nonnull(strstr(why, "a CEL selector of request g "
					     "of claim default/fast failed on "
					     "device gpu.example.com/n1/gpu-0"));
		ck_assert_ptr_nonnull(strstr(why, "cel-error.yaml:20:23: CEL: "
					     "no such key: 'speed' at offset "
					     "37"));
	}
	char *t = variant(f, "{model: {string: A}}",
			  "{model: {string: A}, speed: {int: 1}}");
	wasp_snapshot *ok = tu_load(t);
	wasp_plan *p = tu_solve(ok, NULL);
	ck_assert_str_eq(tu_node_of(p, "default", "p"), "n2");
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_eq(violations(s, p, a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, "pod default/p: placed, but a CEL "
				     "selector"));
	wa_destroy(a);
	wasp_plan_free(p);
	wasp_snapshot_free(ok);
	free(t);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 3. Taints: NoSchedule and NoExecute repel the pods that do not tolerate
 * them, None does not; t tolerates key health and takes both tainted
 * devices.  A plan made with the taints' effects relaxed to None hands a
 * tainted device to an intolerant pod: rejected. */
START_TEST(device_taints)
{
	const char *f = "tests/fixtures/dra/taints.yaml";
	wasp_snapshot *s = tu_load_file(f);
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 3);
		ck_assert_ptr_nonnull(tu_node_of(p, "default", "t"));
		ck_assert_str_eq(dev_of(p, "t-x", "g", 0), "gpu-0");
		ck_assert_str_eq(dev_of(p, "t-x", "g", 1), "gpu-1");
		const char *w = tu_wait_reason(p, "default", "c");
		ck_assert_ptr_nonnull(w);
		ck_assert_ptr_nonnull(strstr(w, "2 matching devices are "
					     "tainted"));
	}
	char *t = replace(variant(f, "effect: NoSchedule", "effect: None"),
			  "effect: NoExecute", "effect: None");
	wasp_snapshot *loose = tu_load(t);
	wasp_plan *p = tu_solve(loose, NULL);
	ck_assert_str_eq(claim_of(p, "a-x")->results[0].device, "gpu-0");
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_ge(violations(s, p, a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, "claim default/a-x: device "
				     "gpu.example.com/n1/gpu-0 does not match "
				     "request g"));
	wa_destroy(a);
	wasp_plan_free(p);
	wasp_snapshot_free(loose);
	free(t);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* Toleration rules as for pods: Equal compares the value, Exists does
 * not, an empty key with Exists tolerates all, an effect limits. */
START_TEST(toleration_rules)
{
	wdr_taint tn = {"health", "bad", "NoSchedule"};
	wdr_device dv = {0};
	dv.taints = &tn;
	dv.ntaints = 1;
	wdr_tol tl;
	wdr_sub sb = {0};
	sb.tols = &tl;
	ck_assert(!wdr_tolerates(&sb, &dv));
	sb.ntols = 1;
	tl = (wdr_tol){"health", "bad", "", false};
	ck_assert(wdr_tolerates(&sb, &dv));
	tl = (wdr_tol){"health", "good", "", false};
	ck_assert(!wdr_tolerates(&sb, &dv));
	tl = (wdr_tol){"health", "", "", true};
	ck_assert(wdr_tolerates(&sb, &dv));
	tl = (wdr_tol){"health", "", "NoExecute", true};
	ck_assert(!wdr_tolerates(&sb, &dv));
	tl = (wdr_tol){"", "", "", true};
	ck_assert(wdr_tolerates(&sb, &dv));
	tl = (wdr_tol){"other", "", "", true};
	ck_assert(!wdr_tolerates(&sb, &dv));
	tn.effect = "None";
	tl = (wdr_tol){"other", "", "", true};
	ck_assert(wdr_tolerates(&sb, &dv));
}
END_TEST

/* 4. Shared counters: 8Gi per GPU, 4Gi per MIG slice, n2's set already
 * half used by a running pod's claim: three of the five pods run (two on
 * n1, one on n2), the others wait for the counters.  A plan made with
 * 16Gi sets over-consumes the real ones: rejected. */
START_TEST(shared_counters)
{
	const char *f = "tests/fixtures/dra/counters.yaml";
	wasp_snapshot *s = tu_load_file(f);
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 3);
		int on1 = 0;
		for (int i = 0; i < p->nplace; i++)
			on1 += !strcmp(p->place[i].node, "n1");
		ck_assert_int_eq(on1, 2);
		int waits = 0;
		for (int i = 0; i < p->nwait; i++) {
			waits++;
			ck_assert_ptr_nonnull(strstr(p->wait[i].reason,
						     "shared counters"));
		}
		ck_assert_int_eq(waits, 2);
	}
	char *t = variant(f, "memory: {value: 8Gi}\n  devices",
			  "memory: {value: 16Gi}\n  devices");
	wasp_snapshot *loose = tu_load(t);
	wasp_plan *p = tu_solve(loose, NULL);
	ck_assert_int_eq(p->nplace, 5);
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_ge(violations(s, p, a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, "counter memory of counter set "
				     "gpu-0 is over-consumed: 12Gi allocated "
				     "of 8Gi"));
	wa_destroy(a);
	wasp_plan_free(p);
	wasp_snapshot_free(loose);
	free(t);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 4b. One counter set shared by several pod types (whole GPU, halves,
 * slices, a shared claim): each class alone fits, so only the ILP's rows
 * over the counter set find the optimum (s1..s3 on one half plus two
 * slices), proven optimal, equal to cbc's and glpsol's on the exported
 * model, and at least greedy's (both verified). */
START_TEST(shared_counters_mixed)
{
	wasp_snapshot *s =
	    tu_load_file("tests/fixtures/dra/counters-mixed.yaml");
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	wasp_plan *p = pl[1];
	ck_assert_str_eq(p->sum.status, "optimal");
	ck_assert_int_eq(p->nplace, 5);
	ck_assert_ptr_nonnull(tu_node_of(p, "default", "s1"));
	ck_assert_ptr_nonnull(tu_node_of(p, "default", "s3"));
	ck_assert_ptr_null(tu_node_of(p, "default", "big"));
	ck_assert_ptr_null(tu_node_of(p, "default", "m1"));
	ck_assert_ptr_null(tu_node_of(p, "default", "m2"));
	ck_assert_int_ge(p->nplace, pl[0]->nplace);
	/* one half for the shared claim, two slices: 8Gi of 8Gi */
	ck_assert_int_eq(strncmp(claim_of(p, "shared-h")->results[0].device,
				 "half-", 5), 0);
	int migs = 0;
	for (int i = 0; i < p->nclaims; i++)
		migs += !strncmp(p->claims[i].results[0].device, "mig-", 4);
	ck_assert_int_eq(migs, 2);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 9. Waiting reasons: a shared claim for two GPUs that no single node
 * reaches (one GPU per node) says so, not the generic roll-up text. */
START_TEST(shared_claim_unreachable_reason)
{
	static const char y[] =
	"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	"status: {allocatable: {cpu: 8, pods: 110}}\n---\n"
	"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	"metadata: {name: n1-gpus}\nspec:\n  driver: gpu.example.com\n"
	"  nodeName: n1\n"
	"  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
	"  devices:\n  - name: gpu-0\n---\n"
	"apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
	"status: {allocatable: {cpu: 8, pods: 110}}\n---\n"
	"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	"metadata: {name: n2-gpus}\nspec:\n  driver: gpu.example.com\n"
	"  nodeName: n2\n"
	"  pool: {name: n2, generation: 1, resourceSliceCount: 1}\n"
	"  devices:\n  - name: gpu-0\n---\n"
	"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
	"metadata: {name: gpu}\nspec: {}\n---\n"
	"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	"metadata: {name: pair}\nspec:\n  devices:\n    requests:\n"
	"    - name: g\n      exactly: {deviceClassName: gpu, count: 2}\n"
	"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	"  containers:\n  - name: c\n    resources: {requests: {cpu: 1}}\n"
	"  resourceClaims:\n  - {name: x, resourceClaimName: pair}\n";
	wasp_snapshot *s = tu_load(y);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = tu_solve_mode(s, k ? WASP_MODE_ILP
						  : WASP_MODE_GREEDY);
		ck_assert_int_eq(p->nplace, 0);
		const char *r = tu_wait_reason(p, "default", "p");
		ck_assert_msg(strstr(r, "shared claim default/pair cannot be "
				     "allocated from any one of the 2 "
				     "eligible nodes tried") != NULL,
			      "reason: %s", r);
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
}
END_TEST

/* 3b. A DeviceTaintRule taints n1's gpu-0 (selected by driver, pool and
 * device): t (tolerant) gets it, one of a and b gets n2's, the other
 * waits on the taint, in both solvers.  A plan giving the tainted device
 * to an intolerant pod is rejected.  A rule selecting by deviceClassName
 * is not applied, with a warning: two run, none waits on a taint. */
START_TEST(taint_rule)
{
	const char *f = "tests/fixtures/dra/taint-rule.yaml";
	wasp_snapshot *s = tu_load_file(f);
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 2);
		ck_assert_str_eq(tu_node_of(p, "default", "t"), "n1");
		ck_assert_int_eq(p->nwait, 1);
		ck_assert_ptr_nonnull(strstr(p->wait[0].reason, "tainted"));
	}
	/* hand-made: the placed intolerant pod swapped with t */
	wasp_plan *p = pl[0];
	const char *ab = tu_node_of(p, "default", "a") ? "a" : "b";
	for (int i = 0; i < p->nplace; i++)
		p->place[i].node = strcmp(p->place[i].pod, "t") ? "n1" : "n2";
	for (int i = 0; i < p->nclaims; i++) {
		wpl_claim *c = &p->claims[i];
		bool tc = !strcmp(c->name, "t-x");
		c->node = c->results[0].pool = tc ? "n2" : "n1";
	}
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_ge(violations(s, p, a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, ab));
	wa_destroy(a);
	char *t = variant(f, "{driver: gpu.example.com, pool: n1, device: "
			  "gpu-0}", "{deviceClassName: gpu}");
	wasp_snapshot *loose = tu_load(t);
	bool said = false;
	for (int i = 0; i < loose->nwarnings; i++)
		said |= strstr(loose->warnings[i], "its taint is not "
			       "applied") != NULL;
	ck_assert(said);
	wasp_plan *q = tu_solve(loose, NULL);
	ck_assert_int_eq(q->nplace, 2); /* two devices, three pods */
	ck_assert_ptr_null(strstr(q->nwait ? q->wait[0].reason : "",
				  "tainted"));
	wasp_plan_free(q);
	wasp_snapshot_free(loose);
	free(t);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* A device of an unknown counter set is an input error at its slice. */
START_TEST(counter_set_unknown)
{
	char *t = variant("tests/fixtures/dra/counters.yaml",
			  "  - name: mig-2\n    attributes: {kind: {string: "
			  "mig}}\n    consumesCounters:\n    - counterSet: "
			  "gpu-0",
			  "  - name: mig-2\n    attributes: {kind: {string: "
			  "mig}}\n    consumesCounters:\n    - counterSet: "
			  "gpu-9");
	wasp_error e = tu_load_fail(t);
	ck_assert_int_eq(e.code, WASP_EINPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "device mig-2 consumes counter "
				     "memory of counter set gpu-9, which pool "
				     "gpu.example.com/n1 does not define"));
	free(t);
}
END_TEST

/* 5. adminAccess: mon (namespace ops, labelled) may share the GPU a
 * running pod holds on n1; mon2 (namespace dev, not labelled) waits;
 * plain takes n2's free GPU.  A plan moved by hand onto n1's allocated
 * GPU is rejected.  Without Namespace objects the label is not checked,
 * with a warning. */
START_TEST(admin_access)
{
	const char *f = "tests/fixtures/dra/admin.yaml";
	wasp_snapshot *s = tu_load_file(f);
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 2);
		ck_assert_ptr_nonnull(tu_node_of(p, "ops", "mon"));
		ck_assert_str_eq(tu_node_of(p, "dev", "plain"), "n2");
		ck_assert_ptr_nonnull(strstr(tu_wait_reason(p, "dev", "mon2"),
					     "namespace dev is not labelled "
					     "resource.kubernetes.io/"
					     "admin-access=true"));
		/* the admin result is marked, in the plan and through
		 * YAML and JSON and back; the plain one is not */
		const wpl_claim *mc = claim_of(p, "mon-x");
		ck_assert_ptr_nonnull(mc);
		ck_assert_int_eq(mc->nresults, 1);
		ck_assert(mc->results[0].admin);
		ck_assert(!claim_of(p, "plain-x")->results[0].admin);
		for (int fmt = 0; fmt < 2; fmt++) {
			char *y = wasp_plan_render(p, fmt ? WASP_FORMAT_JSON
						       : WASP_FORMAT_YAML,
						   NULL);
			ck_assert_ptr_nonnull(y);
			ck_assert_ptr_nonnull(strstr(y, "adminAccess"));
			wasp_plan *back = NULL;
			wasp_error e = {0};
			ck_assert_int_eq(wasp_plan_from_text(&back, y,
			    strlen(y), fmt ? "p.json" : "p.yaml", &e), WASP_OK);
			ck_assert(claim_of(back, "mon-x")->results[0].admin);
			ck_assert(!claim_of(back, "plain-x")->results[0].admin);
			size_t nv = 9;
			ck_assert_int_eq(wasp_check(s, back, &nv, NULL, NULL),
					 WASP_OK);
			ck_assert_int_eq(nv, 0);
			wasp_plan_free(back);
			wasp_free(y);
		}
	}
	/* hand-moved: plain on n1 with n1's allocated GPU */
	wasp_plan *p = pl[0];
	for (int i = 0; i < p->nplace; i++)
		if (!strcmp(p->place[i].pod, "plain"))
			p->place[i].node = "n1";
	wpl_claim *c = (wpl_claim *)claim_of(p, "plain-x");
	c->node = "n1";
	c->results[0].pool = "n1";
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_ge(violations(s, p, a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, "claim dev/plain-x: device "
				     "gpu.example.com/n1/gpu-0 is already "
				     "allocated"));
	wa_destroy(a);
	char *t = variant(f, "kind: Namespace", "kind: NamespaceX");
	wasp_snapshot *loose = tu_load(t);
	bool said = false;
	for (int i = 0; i < loose->nwarnings; i++)
		said |= strstr(loose->warnings[i], "label resource.kubernetes."
			       "io/admin-access=true was not checked") != NULL;
	ck_assert(said);
	p = tu_solve(loose, NULL);
	ck_assert_int_eq(p->nplace, 3); /* mon2 too */
	wasp_plan_free(p);
	wasp_snapshot_free(loose);
	free(t);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 8. A pod's claims are searched jointly: x (any GPU) gives way to y
 * (only the big one), in both solvers; q finds nothing left. */
START_TEST(claims_backtrack)
{
	wasp_snapshot *s =
	    tu_load_file("tests/fixtures/dra/two-claims.yaml");
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 1);
		ck_assert_str_eq(tu_node_of(p, "default", "p"), "n1");
		ck_assert_str_eq(dev_of(p, "p-x", "g", 0), "gpu-1");
		ck_assert_str_eq(dev_of(p, "p-y", "g", 0), "gpu-0");
		ck_assert_ptr_nonnull(tu_wait_reason(p, "default", "q"));
	}
	/* the same device for both claims is caught */
	wpl_claim *c = (wpl_claim *)claim_of(pl[0], "p-x");
	c->results[0].device = "gpu-0";
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_ge(violations(s, pl[0], a, &rep), 1);
	ck_assert_ptr_nonnull(strstr(rep, "gpu.example.com/n1/gpu-0 is "
				     "already allocated"));
	wa_destroy(a);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 6. Extended resources backed by DRA (KEP-5004): p's 2 example.com/gpu
 * become its claim p-extended-resources on n1's two GPUs; q waits.  When
 * a node advertises the resource, its allocatable serves it (with a
 * warning); a plan made so has no claims and is rejected for the real
 * snapshot. */
START_TEST(extended_resource)
{
	const char *f = "tests/fixtures/dra/ext-resource.yaml";
	wasp_snapshot *s = tu_load_file(f);
	wasp_plan *pl[2];
	both(s, &pl[0], &pl[1]);
	for (int k = 0; k < 2; k++) {
		wasp_plan *p = pl[k];
		ck_assert_int_eq(p->nplace, 1);
		ck_assert_str_eq(tu_node_of(p, "default", "p"), "n1");
		const wpl_claim *c = claim_of(p, "p-extended-resources");
		ck_assert_int_eq(c->nresults, 2);
		ck_assert_str_eq(c->results[0].request, "gpu");
		ck_assert_ptr_nonnull(strstr(tu_wait_reason(p, "default", "q"),
					     "device of class gpu"));
	}
	char *t = variant(f, "allocatable: {cpu: 8, pods: 110}}\n---\n"
			  "apiVersion: resource.k8s.io/v1",
			  "allocatable: {cpu: 8, pods: 110, example.com/gpu: "
			  "4}}\n---\napiVersion: resource.k8s.io/v1");
	wasp_snapshot *adv = tu_load(t);
	bool said = false;
	for (int i = 0; i < adv->nwarnings; i++)
		said |= strstr(adv->warnings[i], "DeviceClass gpu backs "
			       "extended resource example.com/gpu, which 1 "
			       "node also advertises") != NULL;
	ck_assert(said);
	wasp_plan *p = tu_solve(adv, NULL);
	ck_assert_int_eq(p->nplace, 2);
	ck_assert_int_eq(p->nclaims, 0);
	ck_assert_str_eq(tu_node_of(p, "default", "p"), "n2");
	wa_arena *a = wa_new();
	char *rep;
	ck_assert_uint_ge(violations(s, p, a, &rep), 2);
	ck_assert_ptr_nonnull(strstr(rep, "pod default/p: claim "
				     "extended-resources has no allocation"));
	wa_destroy(a);
	wasp_plan_free(p);
	wasp_snapshot_free(adv);
	free(t);
	wasp_plan_free(pl[0]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
}
END_TEST

/* 10. Fields wasp does not model are warned about, naming the object and
 * the field, and the plan still verifies. */
START_TEST(unmodelled_fields_warn)
{
	wasp_snapshot *s =
	    tu_load_file("tests/fixtures/dra/unmodelled.yaml");
	static const char *const want[] = {
		"first: ResourceSlice n1-gpus, spec.devices[0]."
		"bindingConditions",
		"first: ResourceClaimTemplate default/one, spec.spec.devices."
		"requests[0].exactly.capacity",
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		bool hit = false;
		for (int i = 0; i < s->nwarnings; i++)
			hit |= strstr(s->warnings[i], want[k]) != NULL;
		ck_assert_msg(hit, "no warning with \"%s\"", want[k]);
	}
	wasp_plan *g, *i;
	both(s, &g, &i);
	ck_assert_int_eq(g->nplace, 1);
	wasp_plan_free(g);
	wasp_plan_free(i);
	wasp_snapshot_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dra2");
	TCase *t = tcase_create("rules");
	tcase_add_test(t, scoped_match_attribute);
	tcase_add_test(t, cel_runtime_error);
	tcase_add_test(t, device_taints);
	tcase_add_test(t, toleration_rules);
	tcase_add_test(t, shared_counters);
	tcase_add_test(t, counter_set_unknown);
	tcase_add_test(t, admin_access);
	tcase_add_test(t, shared_counters_mixed);
	tcase_add_test(t, shared_claim_unreachable_reason);
	tcase_add_test(t, taint_rule);
	tcase_add_test(t, claims_backtrack);
	tcase_add_test(t, extended_resource);
	tcase_add_test(t, unmodelled_fields_warn);
	suite_add_tcase(s, t);
	return tu_run(s);
}
