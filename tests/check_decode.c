/*
 * check_decode.c -- document trees -> snapshot (decode.c).  The static
 * node-fit predicates and the snapshot's lookups (snapshot.c) are in
 * check_decode_predicates.c.
 *
 * Inputs go through the real loaders (wl_load_text) so positions are the
 * ones a user sees.  Fixtures live in tests/fixtures/decode/; the real
 * corpus (WASP_CORPUS, read-only) is run through load + decode as a
 * robustness check.
 */
#define _DEFAULT_SOURCE /* DT_* */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "model/decode.h"
#include "model/dra.h"
#include "io/load.h"
#include "base/clock.h"
#include "model/quantity.h"

/* ------------------------------------------------------------ helpers */

static int run_decode(const char *text, const char *name, ws_snapshot **s,
		      wasp_error *e)
{
	wa_arena *a = wa_new();
	wt_doc d;
	memset(e, 0, sizeof *e);
	*s = NULL;
	int rc = wl_load_text(a, text, strlen(text), name, &d, e);
	if (!rc)
		rc = wd_decode(&d, 1, s, e);
	wa_destroy(a); /* the snapshot must not need the trees */
	return rc;
}

static ws_snapshot *dec(const char *text)
{
	ws_snapshot *s;
	wasp_error e;
	char buf[1024];
	int rc = run_decode(text, "t.yaml", &s, &e);
	ck_assert_msg(rc == WASP_OK, "decode failed: %s",
		      wasp_error_format(&e, buf, sizeof buf));
	return s;
}

static wasp_error dec_fail_as(const char *text, const char *name)
{
	ws_snapshot *s;
	wasp_error e;
	int rc = run_decode(text, name, &s, &e);
	if (rc == WASP_OK)
		ws_snapshot_free(s);
	ck_assert_msg(rc != WASP_OK, "decoded but should have failed");
	ck_assert_int_eq(e.code, rc);
	ck_assert_ptr_null(s);
	return e;
}

static wasp_error dec_fail(const char *text)
{
	return dec_fail_as(text, "t.yaml");
}

/* Assert an error's code, position and message (substring). */
#define ERR_AT(e, code_, line_, col_, sub)                                   \
	do {                                                                 \
		ck_assert_int_eq((e).code, (code_));                         \
		ck_assert_msg((e).line == (line_) && (e).col == (col_),      \
			      "at %d:%d, want %d:%d (%s)", (e).line, (e).col, \
			      (line_), (col_), (e).msg);                     \
		ck_assert_msg(strstr((e).msg, (sub)) != NULL,                \
			      "message \"%s\" lacks \"%s\"", (e).msg, (sub)); \
	} while (0)

static ws_snapshot *dec_fixture(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s", tu_src_path(rel));
	char *text = tu_slurp(path);
	ws_snapshot *s;
	wasp_error e;
	char buf[1024];
	int rc = run_decode(text, rel, &s, &e);
	free(text);
	ck_assert_msg(rc == WASP_OK, "%s: %s", rel,
		      wasp_error_format(&e, buf, sizeof buf));
	return s;
}

static wasp_error dec_fixture_fail(const char *rel)
{
	char *text = tu_slurp(tu_src_path(rel));
	wasp_error e = dec_fail_as(text, rel);
	free(text);
	return e;
}

static int64_t req(const ws_snapshot *s, int pod, const char *res)
{
	int r = ws_res_index(s, res);
	return r < 0 ? 0 : s->pods[pod].req[r];
}

static int64_t alloc(const ws_snapshot *s, int node, const char *res)
{
	int r = ws_res_index(s, res);
	return r < 0 ? 0 : s->nodes[node].alloc[r];
}

static int pod(const ws_snapshot *s, const char *ns, const char *name)
{
	int i = ws_pod_index(s, ns, name);
	ck_assert_msg(i >= 0, "no pod %s/%s", ns, name);
	return i;
}

static const ws_group *group(const ws_snapshot *s, const char *ns,
			     const char *name)
{
	int i = ws_group_index(s, ns, name);
	ck_assert_msg(i >= 0, "no group %s/%s", ns, name);
	return &s->groups[i];
}

static bool has_warning(const ws_snapshot *s, const char *text)
{
	for (int i = 0; i < s->nwarnings; i++)
		if (!strcmp(s->warnings[i], text))
			return true;
	return false;
}

#define GI ((int64_t)1 << 30)

/* ------------------------------------------------------------ fixture */

START_TEST(fixture_cluster)
{
	ws_snapshot *s = dec_fixture("tests/fixtures/decode/cluster.yaml");
	/* res[0] = pods, then first use: nodes (n1, n2), then pods */
	ck_assert_int_eq(s->nres, 5);
	ck_assert_str_eq(s->res[0], "pods");
	ck_assert_str_eq(s->res[1], "cpu");
	ck_assert_str_eq(s->res[2], "memory");
	ck_assert_str_eq(s->res[3], "nvidia.com/gpu");
	ck_assert_str_eq(s->res[4], "example.com/fpga");

	ck_assert_int_eq(s->nnodes, 2);
	const ws_node *n1 = &s->nodes[0], *n2 = &s->nodes[1];
	ck_assert_str_eq(n1->name, "n1");
	ck_assert_int_eq(n1->src.line, 23);
	ck_assert_str_eq(n1->src.file, "tests/fixtures/decode/cluster.yaml");
	ck_assert_int_eq(alloc(s, 0, "cpu"), 96000);
	ck_assert_int_eq(alloc(s, 0, "memory"), 1024 * GI * 1000);
	ck_assert_int_eq(alloc(s, 0, "nvidia.com/gpu"), 8000);
	ck_assert_int_eq(alloc(s, 0, "pods"), 110000);
	ck_assert_int_eq(alloc(s, 0, "example.com/fpga"), 0);
	ck_assert_int_eq(n1->nlabels, 3);
	ck_assert_str_eq(n1->labels[0].key, "example.com/block");
	ck_assert_str_eq(n1->labels[1].key, "example.com/rack");
	ck_assert_str_eq(n1->labels[2].key, "kubernetes.io/hostname");
	ck_assert_str_eq(ws_label(n1, "example.com/rack"), "r1");
	ck_assert_ptr_null(ws_label(n1, "zone"));
	ck_assert_int_eq(n1->ntaints, 1);
	ck_assert_str_eq(n1->taints[0].key, "nvidia.com/gpu");
	ck_assert_str_eq(n1->taints[0].val, "present");
	ck_assert_int_eq(n1->taints[0].effect, WS_EFFECT_NOSCHEDULE);
	ck_assert(n1->ready && !n1->unschedulable);
	/* n2: capacity (no allocatable), unschedulable, Ready Unknown */
	ck_assert_int_eq(alloc(s, 1, "cpu"), 64000);
	ck_assert_int_eq(alloc(s, 1, "memory"), 512 * GI * 1000);
	ck_assert_int_eq(alloc(s, 1, "example.com/fpga"), 2000);
	ck_assert(n2->unschedulable && !n2->ready);

	/* pods: input order, terminal ones kept but inert */
	ck_assert_int_eq(s->npods, 4);
	int w0 = pod(s, "ml", "w0"), w1 = pod(s, "ml", "w1"),
	    lone = pod(s, "default", "lone"), done = pod(s, "default", "done");
	ck_assert_int_eq(w0, 0);
	ck_assert_int_eq(done, 3);
	ck_assert_int_eq(req(s, w0, "pods"), 1000);
	ck_assert_int_eq(req(s, w0, "cpu"), 8000);
	ck_assert_int_eq(req(s, w0, "memory"), 64 * GI * 1000);
	ck_assert_int_eq(req(s, w0, "nvidia.com/gpu"), 4000); /* limit */
	ck_assert(ws_pod_pending(&s->pods[w0]));
	ck_assert_int_eq(s->pods[w0].node, -1);
	ck_assert(!ws_pod_pending(&s->pods[w1]));
	ck_assert_int_eq(s->pods[w1].node, 0);
	ck_assert(s->pods[done].terminal && !ws_pod_pending(&s->pods[done]));
	ck_assert_int_eq(s->pods[done].group, -1);
	/* n1 holds w1 only (the Succeeded pod does not count) */
	ck_assert_int_eq(n1->used[ws_res_index(s, "cpu")], 8000);
	ck_assert_int_eq(n1->used[WS_RES_PODS], 1000);
	ck_assert_int_eq(n2->used[WS_RES_PODS], 0);

	/* the group takes what it omits from its Workload template */
	ck_assert_int_eq(s->ngroups, 1);
	const ws_group *g = group(s, "ml", "train-0");
	ck_assert_int_eq(g->policy, WS_POLICY_GANG);
	ck_assert_int_eq(g->min_count, 2);
	ck_assert_str_eq(g->topo_key, "example.com/rack");
	ck_assert_int_eq(g->disruption, WS_DISRUPT_ALL);
	ck_assert_int_eq(g->priority, 1000);
	ck_assert_int_eq(g->preempt, WS_PREEMPT_NEVER);
	ck_assert_ptr_null(g->invalid);
	ck_assert_ptr_null(g->parent);
	ck_assert_int_eq(g->npods, 2);
	ck_assert_int_eq(g->pods[0], w0);
	ck_assert_int_eq(g->pods[1], w1);
	ck_assert_int_eq(s->pods[w0].group, 0);
	/* pods without priority fields take the group's */
	ck_assert_int_eq(s->pods[w0].priority, 1000);
	ck_assert_int_eq(s->pods[w0].preempt, WS_PREEMPT_NEVER);
	/* a lone pod gets the global default */
	ck_assert_int_eq(s->pods[lone].priority, 10);
	ck_assert_int_eq(s->pods[lone].preempt, WS_PREEMPT_LOWER);
	ck_assert_int_eq(req(s, lone, "cpu"), 500);
	ck_assert_int_eq(req(s, lone, "example.com/fpga"), 1000);

	ck_assert_int_eq(s->npcs, 2);
	ck_assert_str_eq(s->pcs[0].name, "high");
	ck_assert_int_eq(s->pcs[0].preempt, WS_PREEMPT_NEVER);
	ck_assert(s->pcs[1].global_default);
	ck_assert_int_eq(s->ntopologies, 1);
	ck_assert_str_eq(s->topologies[0].name, "gpu-topology");
	ck_assert_int_eq(s->topologies[0].nlabels, 3);
	ck_assert_str_eq(s->topologies[0].labels[0], "example.com/block");
	ck_assert_str_eq(s->topologies[0].labels[2],
			 "kubernetes.io/hostname");

	ck_assert_int_eq(s->nwarnings, 1);
	ck_assert_str_eq(s->warnings[0], "skipped 1 object of kind Deployment "
			 "(apps/v1): not used by wasp");
	ck_assert_int_eq(ws_node_index(s, "n2"), 1);
	ck_assert_int_eq(ws_node_index(s, "n3"), -1);
	ck_assert_int_eq(ws_pod_index(s, "default", "w0"), -1);
	ck_assert_int_eq(ws_group_index(s, "default", "train-0"), -1);
	ws_snapshot_free(s);
}
END_TEST

START_TEST(fixture_list_json)
{
	ws_snapshot *s = dec_fixture("tests/fixtures/decode/list.json");
	ck_assert_int_eq(s->nnodes, 1);
	ck_assert_int_eq(s->npods, 1);
	ck_assert_int_eq(alloc(s, 0, "cpu"), 3920);
	ck_assert_int_eq(alloc(s, 0, "memory"), 8063156LL * 1024 * 1000);
	/* JSON numbers keep their text: 0.25 cpu, 1e3 bytes */
	ck_assert_int_eq(req(s, 0, "cpu"), 250);
	ck_assert_int_eq(req(s, 0, "memory"), 1000000);
	ck_assert_str_eq(s->pods[0].ns, "kube-system");
	ck_assert_int_eq(s->pods[0].priority, 2000000000);
	ck_assert_int_eq(s->pods[0].node, 0);
	ck_assert_int_eq(s->nodes[0].used[ws_res_index(s, "cpu")], 250);
	ck_assert_int_eq(s->nwarnings, 0);
	ws_snapshot_free(s);
}
END_TEST

/* ----------------------------------------------------------- requests */

START_TEST(requests_limits_fallback)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  containers:\n"
	    "  - name: a\n"
	    "    resources:\n"
	    "      requests: {cpu: 1}\n"
	    "      limits: {cpu: 2, nvidia.com/gpu: 1, memory: 1Gi}\n"
	    "  - name: b\n"
	    "    resources: {limits: {memory: 512Mi}}\n"
	    "  - name: c\n");
	ck_assert_int_eq(req(s, 0, "cpu"), 1000);        /* request wins */
	ck_assert_int_eq(req(s, 0, "nvidia.com/gpu"), 1000);
	ck_assert_int_eq(req(s, 0, "memory"), 1536LL * 1024 * 1024 * 1000);
	ck_assert_int_eq(req(s, 0, "pods"), 1000);
	/* order of first use inside the pod */
	ck_assert_str_eq(s->res[1], "cpu");
	ck_assert_str_eq(s->res[2], "nvidia.com/gpu");
	ck_assert_str_eq(s->res[3], "memory");
	ws_snapshot_free(s);
}
END_TEST

START_TEST(requests_init_max_rule)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  initContainers:\n"
	    "  - {name: i1, resources: {requests: {cpu: 2, memory: 1Gi}}}\n"
	    "  - {name: i2, resources: {requests: {cpu: 5}}}\n"
	    "  containers:\n"
	    "  - {name: a, resources: {requests: {cpu: 1, memory: 2Gi}}}\n"
	    "  - {name: b, resources: {requests: {cpu: 1}}}\n");
	ck_assert_int_eq(req(s, 0, "cpu"), 5000);     /* max(1+1, 2, 5) */
	ck_assert_int_eq(req(s, 0, "memory"), 2 * GI * 1000);
	ws_snapshot_free(s);
}
END_TEST

/* KEP-753: a restartable init container keeps running next to the later
 * init containers and the main containers. */
START_TEST(requests_sidecars)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  initContainers:\n"
	    "  - {name: s1, restartPolicy: Always, resources: {requests: "
	    "{cpu: 1}}}\n"
	    "  - {name: i1, resources: {requests: {cpu: 8}}}\n"
	    "  - {name: s2, restartPolicy: Always, resources: {requests: "
	    "{cpu: 2}}}\n"
	    "  - {name: i2, resources: {requests: {cpu: 1}}}\n"
	    "  containers:\n"
	    "  - {name: a, resources: {requests: {cpu: 3}}}\n"
	    "---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"
	    "  initContainers:\n"
	    "  - {name: s1, restartPolicy: Always, resources: {requests: "
	    "{cpu: 1}}}\n"
	    "  - {name: i1, resources: {requests: {cpu: 2}}}\n"
	    "  containers:\n"
	    "  - {name: a, resources: {requests: {cpu: 3}}}\n");
	/* p: init peak i1 + s1 = 9 beats containers 3 + sidecars 3 */
	ck_assert_int_eq(req(s, 0, "cpu"), 9000);
	/* q: containers 3 + sidecar 1 = 4 beats i1 + s1 = 3 */
	ck_assert_int_eq(req(s, 1, "cpu"), 4000);
	ws_snapshot_free(s);
}
END_TEST

START_TEST(requests_overhead_and_pod_level)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  overhead: {cpu: 250m, memory: 120Mi}\n"
	    "  containers:\n"
	    "  - {name: a, resources: {requests: {cpu: 1, memory: 1Gi}}}\n"
	    "---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"
	    "  resources:\n"
	    "    requests: {cpu: 4}\n"
	    "    limits: {memory: 8Gi}\n"
	    "  containers:\n"
	    "  - {name: a, resources: {requests: {cpu: 1, memory: 1Gi, "
	    "nvidia.com/gpu: 2}}}\n");
	ck_assert_int_eq(req(s, 0, "cpu"), 1250);
	ck_assert_int_eq(req(s, 0, "memory"), (GI + 120LL * 1024 * 1024) *
						  1000);
	/* pod-level requests (and limits as requests) replace the sum for
	 * cpu and memory; other resources stay per container */
	ck_assert_int_eq(req(s, 1, "cpu"), 4000);
	ck_assert_int_eq(req(s, 1, "memory"), 8 * GI * 1000);
	ck_assert_int_eq(req(s, 1, "nvidia.com/gpu"), 2000);
	ws_snapshot_free(s);
}
END_TEST

START_TEST(resource_order)
{
	/* a pod before the nodes still leaves node resources first */
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  containers: [{name: a, resources: {requests: "
	    "{example.com/x: 1, cpu: 1}}}]\n"
	    "---\n"
	    "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
	    "status: {allocatable: {memory: 1Gi, cpu: 2}}\n");
	ck_assert_int_eq(s->nres, 4);
	ck_assert_str_eq(s->res[0], "pods");
	ck_assert_str_eq(s->res[1], "memory");
	ck_assert_str_eq(s->res[2], "cpu");
	ck_assert_str_eq(s->res[3], "example.com/x");
	ck_assert_int_eq(req(s, 0, "example.com/x"), 1000);
	ck_assert_int_eq(s->nodes[0].alloc[3], 0);
	/* the node lists no pods: it takes none, and we say so */
	ck_assert_int_eq(s->nodes[0].alloc[WS_RES_PODS], 0);
	ck_assert(has_warning(s, "1 node lists no allocatable pods (first: "
			      "n), so it takes no pods"));
	ws_snapshot_free(s);
}
END_TEST

/* ------------------------------------------------------------- nodes */

START_TEST(node_conditions)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"
	    "status: {allocatable: {pods: 1}, conditions: [{type: Ready, "
	    "status: \"False\"}]}\n---\n"
	    "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n"
	    "status: {allocatable: {pods: 1}}\n---\n"
	    "apiVersion: v1\nkind: Node\nmetadata: {name: c}\n"
	    "spec: {unschedulable: false, taints: [{key: k, effect: "
	    "PreferNoSchedule}, {key: j, value: v, effect: NoExecute}]}\n"
	    "status: {allocatable: {pods: 1}, conditions: [{type: Ready, "
	    "status: \"True\"}, {type: DiskPressure, status: \"True\"}]}\n");
	ck_assert(!s->nodes[0].ready);
	ck_assert(s->nodes[1].ready); /* no conditions: ready */
	ck_assert(s->nodes[2].ready && !s->nodes[2].unschedulable);
	ck_assert_int_eq(s->nodes[2].ntaints, 2);
	ck_assert_int_eq(s->nodes[2].taints[0].effect,
			 WS_EFFECT_PREFERNOSCHEDULE);
	ck_assert_str_eq(s->nodes[2].taints[0].val, "");
	ck_assert_int_eq(s->nodes[2].taints[1].effect, WS_EFFECT_NOEXECUTE);
	ck_assert_int_eq(s->nwarnings, 0);
	ws_snapshot_free(s);
}
END_TEST

/* --------------------------------------------------- pod scheduling bits */

START_TEST(pod_selectors_and_tolerations)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	    "  nodeSelector: {zone: z1, arch: amd64, gen: 3}\n"
	    "  tolerations:\n"
	    "  - {operator: Exists}\n"
	    "  - {key: a, value: b}\n"
	    "  - {key: c, operator: Equal, value: d, effect: NoExecute, "
	    "tolerationSeconds: 30}\n"
	    "  affinity:\n"
	    "    nodeAffinity:\n"
	    "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	    "        nodeSelectorTerms:\n"
	    "        - matchExpressions:\n"
	    "          - {key: type, operator: In, values: [kwok, real]}\n"
	    "          - {key: gen, operator: Gt, values: [\"2\"]}\n"
	    "          matchFields:\n"
	    "          - {key: metadata.name, operator: NotIn, values: [x]}\n"
	    "        - matchExpressions:\n"
	    "          - {key: spot, operator: DoesNotExist}\n"
	    "      preferredDuringSchedulingIgnoredDuringExecution:\n"
	    "      - {weight: 1, preference: {matchExpressions: []}}\n"
	    "  containers: [{name: a}]\n");
	const ws_pod *p = &s->pods[0];
	ck_assert_int_eq(p->nselector, 3);
	ck_assert_str_eq(p->selector[0].key, "arch");
	ck_assert_str_eq(p->selector[1].key, "gen");
	ck_assert_str_eq(p->selector[1].val, "3"); /* unquoted number */
	ck_assert_str_eq(p->selector[2].key, "zone");
	ck_assert_int_eq(p->ntolerations, 3);
	ck_assert(p->tolerations[0].exists);
	ck_assert_str_eq(p->tolerations[0].key, "");
	ck_assert_int_eq(p->tolerations[0].effect, WS_EFFECT_ALL);
	ck_assert(!p->tolerations[1].exists);
	ck_assert_str_eq(p->tolerations[1].val, "b");
	ck_assert_int_eq(p->tolerations[2].effect, WS_EFFECT_NOEXECUTE);
	ck_assert_int_eq(p->naffinity, 2);
	ck_assert_int_eq(p->affinity[0].nexprs, 3);
	ck_assert_int_eq(p->affinity[0].exprs[0].op, WS_OP_IN);
	ck_assert_int_eq(p->affinity[0].exprs[0].nvals, 2);
	ck_assert_str_eq(p->affinity[0].exprs[0].vals[1], "real");
	ck_assert_int_eq(p->affinity[0].exprs[1].op, WS_OP_GT);
	ck_assert_int_eq(p->affinity[0].exprs[1].num, 2);
	ck_assert(p->affinity[0].exprs[2].field);
	ck_assert_int_eq(p->affinity[1].exprs[0].op, WS_OP_DOESNOTEXIST);
	ws_snapshot_free(s);
}
END_TEST

struct bad_case {
	const char *spec; /* lines under "spec:\n" */
	int line, col;    /* of the offending value (the text starts with 4
			     header lines) */
	const char *msg;
};

static const struct bad_case bad_pods[] = {
	{"  tolerations: [{key: a, operator: Maybe}]\n", 5, 36,
	 "spec.tolerations[0].operator: unknown operator \"Maybe\""},
	{"  tolerations: [{key: a, effect: NoWay}]\n", 5, 34,
	 "spec.tolerations[0].effect: unknown effect \"NoWay\""},
	{"  tolerations: [{value: v}]\n", 5, 17,
	 "operator must be Exists when the key is empty"},
	{"  tolerations: {key: a}\n", 5, 16,
	 "spec.tolerations: expected a list, got a map"},
	{"  nodeSelector: [a]\n", 5, 17,
	 "spec.nodeSelector: expected a map, got a list"},
	{"  nodeSelector: {a: [b]}\n", 5, 21,
	 "spec.nodeSelector.a: expected a string, got a list"},
	{"  priority: high\n", 5, 13,
	 "spec.priority: expected an integer, got the string \"high\""},
	{"  priority: 3000000000\n", 5, 13, "out of range"},
	{"  preemptionPolicy: Sometimes\n", 5, 21,
	 "unknown preemptionPolicy \"Sometimes\""},
	{"  containers: [{name: a, resources: {requests: {cpu: -1}}}]\n", 5,
	 54, "spec.containers[0].resources.requests.cpu: negative quantity "
	 "\"-1\""},
	{"  containers: [{name: a, resources: {requests: {cpu: 1Kb}}}]\n", 5,
	 54, "spec.containers[0].resources.requests.cpu: bad quantity "
	 "\"1Kb\": unknown suffix"},
	{"  containers: [{name: a, resources: {limits: {memory: true}}}]\n",
	 5, 55, "spec.containers[0].resources.limits.memory: expected a "
	 "quantity, got a boolean"},
	{"  containers: [{name: a, resources: {requests: {memory: 9Ei}}}]\n",
	 5, 57, "bad quantity \"9Ei\": too large"},
	{"  initContainers: [{name: a, resources: {requests: {cpu: x}}}]\n",
	 5, 58, "spec.initContainers[0].resources.requests.cpu: bad quantity"},
	{"  overhead: {cpu: 1.2.3}\n", 5, 19,
	 "spec.overhead.cpu: bad quantity \"1.2.3\""},
	{"  containers: a\n", 5, 15,
	 "spec.containers: expected a list, got a string"},
	{"  affinity:\n    nodeAffinity:\n"
	 "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "        nodeSelectorTerms:\n"
	 "        - matchExpressions: [{key: a, operator: Gt, values: [x1]}]\n",
	 9, 62, "Gt needs an integer, got \"x1\""},
	{"  affinity:\n    nodeAffinity:\n"
	 "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "        nodeSelectorTerms:\n"
	 "        - matchExpressions: [{key: a, operator: Near}]\n",
	 9, 49, "unknown operator \"Near\""},
	{"  affinity:\n    nodeAffinity:\n"
	 "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "        nodeSelectorTerms:\n"
	 "        - matchExpressions: [{key: a, operator: In}]\n",
	 9, 49, "In needs at least one value"},
	{"  affinity:\n    nodeAffinity:\n"
	 "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "        nodeSelectorTerms:\n"
	 "        - matchFields: [{key: metadata.uid, operator: In, "
	 "values: [a]}]\n",
	 9, 31, "matchFields supports only metadata.name"},
	{"  affinity:\n    nodeAffinity:\n"
	 "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	 "        nodeSelectorTerms: []\n",
	 8, 28, "needs at least one term"},
	{"  schedulingGroup: {podGroupName: [a]}\n", 5, 35,
	 "spec.schedulingGroup.podGroupName: expected a string"},
	{"  priorityClassName: nope\n", 5, 22,
	 "spec.priorityClassName: PriorityClass \"nope\" does not exist"},
};

START_TEST(pod_bad_values)
{
	const struct bad_case *b = &bad_pods[_i];
	char text[2048];
	snprintf(text, sizeof text, "apiVersion: v1\nkind: Pod\n"
		 "metadata: {name: p}\nspec:\n%s", b->spec);
	wasp_error e = dec_fail(text);
	ERR_AT(e, WASP_EINPUT, b->line, b->col, b->msg);
	ck_assert_str_eq(e.file, "t.yaml");
}
END_TEST

/* ------------------------------------------------------------ errors */

START_TEST(error_positions_yaml_json)
{
	wasp_error e = dec_fixture_fail("tests/fixtures/decode/bad-quantity.yaml");
	ERR_AT(e, WASP_EINPUT, 14, 14,
	       "spec.containers[1].resources.requests.cpu: bad quantity "
	       "\"abc\": no digits");
	ck_assert_str_eq(e.file, "tests/fixtures/decode/bad-quantity.yaml");
	e = dec_fixture_fail("tests/fixtures/decode/bad-quantity.json");
	ERR_AT(e, WASP_EINPUT, 8, 55,
	       "spec.containers[1].resources.requests.cpu: bad quantity "
	       "\"abc\": no digits");

	/* missing required fields: at the object */
	e = dec_fail("---\nkind: Pod\nmetadata: {name: p}\n");
	ERR_AT(e, WASP_EINPUT, 2, 1, "Pod object has no apiVersion");
	e = dec_fail("apiVersion: v1\nmetadata: {name: p}\n");
	ERR_AT(e, WASP_EINPUT, 1, 1, "object has no kind");
	e = dec_fail("apiVersion: v1\nkind: Node\nmetadata: {labels: {}}\n");
	ERR_AT(e, WASP_EINPUT, 1, 1, "Node object has no metadata.name");
	e = dec_fail_as("[{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}]",
			"t.json");
	ERR_AT(e, WASP_EINPUT, 1, 1, "expected a Kubernetes object");
	e = dec_fail_as("{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\"}",
			"t.json");
	ERR_AT(e, WASP_EINPUT, 1, 1, "Pod object has no metadata.name");
	ck_assert_str_eq(e.file, "t.json");
	e = dec_fail_as("{\"apiVersion\": \"v1\", \"kind\": \"Node\",\n"
			" \"metadata\": {\"name\": \"n\"},\n"
			" \"spec\": {\"taints\": [{\"key\": \"k\", "
			"\"effect\": \"Sometimes\"}]}}", "t.json");
	ERR_AT(e, WASP_EINPUT, 3, 45,
	       "spec.taints[0].effect: unknown effect \"Sometimes\"");
	e = dec_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
		     "spec: {taints: [{key: k}]}\n");
	ERR_AT(e, WASP_EINPUT, 4, 17, "spec.taints[0]: taint has no effect");
	e = dec_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
		     "spec: {unschedulable: yes please}\n");
	ERR_AT(e, WASP_EINPUT, 4, 23,
	       "spec.unschedulable: expected true or false");
	e = dec_fail("apiVersion: v1\nkind: Node\nmetadata: {name: a/b}\n");
	ERR_AT(e, WASP_EINPUT, 3, 18, "must not contain '/'");
	e = dec_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
		     "status: {allocatable: {cpu: 2, memory: 2Gb}}\n");
	ERR_AT(e, WASP_EINPUT, 4, 40,
	       "status.allocatable.memory: bad quantity \"2Gb\"");
	/* a scalar document */
	e = dec_fail("just text\n");
	ERR_AT(e, WASP_EINPUT, 1, 1, "got a string");
}
END_TEST

START_TEST(duplicates)
{
	wasp_error e = dec_fail(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: y}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: default\n"
	    "  name: x\n");
	ERR_AT(e, WASP_EINPUT, 13, 9,
	       "duplicate Pod default/x (first at t.yaml:3:18)");
	e = dec_fail("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
		     "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
	ERR_AT(e, WASP_EINPUT, 7, 18,
	       "duplicate Node n (first at t.yaml:3:18)");
	/* same name, other namespace or kind: fine */
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: b}\n"
	    "---\napiVersion: v1\nkind: Node\nmetadata: {name: x}\n");
	ck_assert_int_eq(s->npods, 2);
	ck_assert_int_eq(ws_pod_index(s, "b", "x"), 1);
	ws_snapshot_free(s);
}
END_TEST

/* Several files decode as one snapshot; a duplicate names both files. */
START_TEST(several_files)
{
	static const char *a_txt =
	    "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
	    "status: {allocatable: {pods: 10, cpu: 4}}\n";
	static const char *b_txt =
	    "{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n"
	    " \"metadata\": {\"name\": \"p\"},\n"
	    " \"spec\": {\"nodeName\": \"n\", \"containers\": [{\"name\": \"c\","
	    " \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}}\n";
	static const char *c_txt =
	    "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n\n";
	wa_arena *a = wa_new();
	wt_doc d[3];
	wasp_error e;
	ck_assert_int_eq(wl_load_text(a, a_txt, strlen(a_txt), "a.yaml",
				      &d[0], &e), WASP_OK);
	ck_assert_int_eq(wl_load_text(a, b_txt, strlen(b_txt), "b.json",
				      &d[1], &e), WASP_OK);
	ck_assert_int_eq(wl_load_text(a, c_txt, strlen(c_txt), "c.yaml",
				      &d[2], &e), WASP_OK);
	ws_snapshot *s = NULL;
	ck_assert_int_eq(wd_decode(d, 2, &s, &e), WASP_OK);
	ck_assert_int_eq(s->pods[0].node, 0);
	ck_assert_int_eq(s->nodes[0].used[ws_res_index(s, "cpu")], 1000);
	ck_assert_str_eq(s->pods[0].src.file, "b.json");
	ck_assert_str_eq(s->nodes[0].src.file, "a.yaml");
	ws_snapshot *s2 = (ws_snapshot *)1;
	ck_assert_int_eq(wd_decode(d, 3, &s2, &e), WASP_EINPUT);
	ck_assert_ptr_null(s2);
	ck_assert_str_eq(e.file, "c.yaml");
	ck_assert_int_eq(e.line, 5);
	ck_assert_int_eq(e.col, 9);
	ck_assert_str_eq(e.msg, "duplicate Node n (first at a.yaml:3:18)");
	wa_destroy(a);
	/* the snapshot outlives the trees */
	ck_assert_str_eq(s->nodes[0].src.file, "a.yaml");
	ck_assert_str_eq(s->pods[0].name, "p");
	ws_snapshot_free(s);
}
END_TEST

/* ---------------------------------------------------- retired versions */

START_TEST(refuse_v1alpha2)
{
	wasp_error e =
	    dec_fixture_fail("tests/fixtures/decode/v1alpha2-podgroup.yaml");
	ERR_AT(e, WASP_EINPUT, 7, 13, "");
	ck_assert_str_eq(e.msg,
			 "scheduling.k8s.io/v1alpha2 PodGroup is no longer "
			 "served; rewrite it as scheduling.k8s.io/v1beta1: "
			 "podGroupTemplateRef.workload{workloadName,"
			 "podGroupTemplateName} -> workloadRef{workloadName,"
			 "templateName}, disruptionMode: Pod|PodGroup -> "
			 "{single: {}}|{all: {}}");
	e = dec_fail("apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\n"
		     "metadata: {name: w}\n");
	ERR_AT(e, WASP_EINPUT, 1, 13,
	       "scheduling.k8s.io/v1alpha2 Workload is no longer served");
	e = dec_fail_as("{\"kind\": \"Workload\", \"apiVersion\": "
			"\"scheduling.k8s.io/v1alpha1\", \"metadata\": "
			"{\"name\": \"w\"}, \"spec\": {\"podGroups\": []}}",
			"t.json");
	ERR_AT(e, WASP_EINPUT, 1, 36,
	       "spec.podGroups[]{name, policy} -> spec.podGroupTemplates[]"
	       "{name, schedulingPolicy}");
	/* inside a List too */
	e = dec_fail("apiVersion: v1\nkind: List\nitems:\n"
		     "- apiVersion: scheduling.k8s.io/v1alpha2\n"
		     "  kind: PodGroup\n  metadata: {name: g}\n");
	ERR_AT(e, WASP_EINPUT, 4, 15, "v1alpha2 PodGroup is no longer");
	/* the stale v1beta1 field */
	e = dec_fail("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
		     "metadata: {name: g}\nspec:\n"
		     "  podGroupTemplateRef: {workload: {workloadName: w}}\n"
		     "  schedulingPolicy: {basic: {}}\n");
	ERR_AT(e, WASP_EINPUT, 5, 3, "write spec.workloadRef: {workloadName: "
	       "W, templateName: T}");
	/* the v1alpha2 string disruptionMode in a v1beta1 object */
	e = dec_fail("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
		     "metadata: {name: g}\nspec:\n"
		     "  schedulingPolicy: {gang: {minCount: 2}}\n"
		     "  disruptionMode: PodGroup\n");
	ERR_AT(e, WASP_EINPUT, 6, 19, "spec.disruptionMode: expected {single: "
	       "{}} or {all: {}}; the v1alpha2 string \"PodGroup\" is now "
	       "{all: {}}");
}
END_TEST

/* ------------------------------------------------------------ groups */

static const char *pg_head =
    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
    "metadata: {name: g}\nspec:\n";

START_TEST(podgroup_bad_values)
{
	static const struct bad_case cases[] = {
	    {"  schedulingPolicy: {gang: {minCount: 0}}\n", 5, 39,
	     "spec.schedulingPolicy.gang.minCount: must be at least 1, got 0"},
	    {"  schedulingPolicy: {gang: {minCount: \"4\"}}\n", 5, 39,
	     "minCount: expected an integer, got the string \"4\""},
	    {"  schedulingPolicy: {gang: {minCount: 2.5}}\n", 5, 39,
	     "expected an integer, got \"2.5\""},
	    {"  schedulingPolicy: {gang: {}}\n", 5, 28, "gang needs minCount"},
	    {"  schedulingPolicy: {basic: {}, gang: {minCount: 1}}\n", 5, 21,
	     "exactly one of basic and gang"},
	    {"  schedulingPolicy: {}\n", 5, 21, "exactly one of basic and gang"},
	    {"  schedulingPolicy: basic\n", 5, 21,
	     "spec.schedulingPolicy: expected a map, got a string"},
	    {"  disruptionMode: {all: {}}\n  schedulingPolicy: {basic: {}}\n",
	     5, 19, "disruptionMode all needs a gang schedulingPolicy"},
	    {"  disruptionMode: {all: {}, single: {}}\n", 5, 19,
	     "exactly one of single and all"},
	    {"  schedulingPolicy: {basic: {}}\n"
	     "  schedulingConstraints: {topology: [{key: a}, {key: b}]}\n", 6,
	     48, "at most one topology constraint"},
	    {"  schedulingPolicy: {basic: {}}\n"
	     "  schedulingConstraints: {topology: [{}]}\n", 6, 38,
	     "topology constraint has no key"},
	    {"  schedulingPolicy: {basic: {}}\n  preemptionPolicy: Always\n",
	     6, 21, "unknown preemptionPolicy \"Always\""},
	    {"  schedulingPolicy: {basic: {}}\n  priorityClassName: gold\n", 6,
	     22, "PriorityClass \"gold\" does not exist"},
	    {"  workloadRef: {workloadName: w, templateName: t}\n", 5, 31,
	     "spec.workloadRef.workloadName: Workload default/w does not "
	     "exist"},
	    {"  workloadRef: {workloadName: w}\n", 5, 16,
	     "templateName is required"},
	    {"  priority: 5\n", 5, 3, "PodGroup default/g has no "
	     "schedulingPolicy"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[2048];
		snprintf(text, sizeof text, "%s%s", pg_head, cases[i].spec);
		wasp_error e = dec_fail(text);
		ck_assert_msg(e.line == cases[i].line &&
				  e.col == cases[i].col &&
				  strstr(e.msg, cases[i].msg),
			      "case %zu: %d:%d %s", i, e.line, e.col, e.msg);
	}
	wasp_error e = dec_fail("apiVersion: scheduling.k8s.io/v1beta1\n"
				"kind: PodGroup\nmetadata: {name: g}\n");
	ERR_AT(e, WASP_EINPUT, 1, 1, "PodGroup default/g has no spec");
}
END_TEST

START_TEST(workload_templates)
{
	ws_snapshot *s = dec(
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
	    "metadata: {name: w}\nspec:\n"
	    "  podGroupTemplates:\n"
	    "  - name: t\n"
	    "    schedulingPolicy: {gang: {minCount: 4}}\n"
	    "    priority: 7\n"
	    "    preemptionPolicy: Never\n"
	    "---\n"
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: a}\nspec:\n"
	    "  workloadRef: {workloadName: w, templateName: t}\n"
	    "  schedulingPolicy: {gang: {minCount: 2}}\n"
	    "  schedulingConstraints: {topology: [{key: rack}]}\n"
	    "---\n"
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: b}\nspec:\n"
	    "  workloadRef: {workloadName: w, templateName: t}\n"
	    "  priority: 9\n");
	const ws_group *a = group(s, "default", "a"),
		       *b = group(s, "default", "b");
	ck_assert_int_eq(a->min_count, 2); /* own field wins */
	ck_assert_str_eq(a->topo_key, "rack");
	ck_assert_int_eq(a->priority, 7);  /* from the template */
	ck_assert_int_eq(a->preempt, WS_PREEMPT_NEVER);
	ck_assert_int_eq(a->disruption, WS_DISRUPT_SINGLE);
	ck_assert_int_eq(b->min_count, 4);
	ck_assert_ptr_null(b->topo_key);
	ck_assert_int_eq(b->priority, 9);
	ck_assert_int_eq(s->ngroups, 2);
	ck_assert_int_eq(s->nwarnings, 0);
	ws_snapshot_free(s);

	wasp_error e = dec_fail(
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
	    "metadata: {name: w}\nspec:\n"
	    "  podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]\n"
	    "---\n"
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: a}\nspec:\n"
	    "  workloadRef: {workloadName: w, templateName: u}\n");
	ERR_AT(e, WASP_EINPUT, 11, 48, "spec.workloadRef.templateName: "
	       "Workload default/w has no template \"u\"");
	e = dec_fail("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
		     "metadata: {name: w}\nspec:\n"
		     "  podGroupTemplates:\n"
		     "  - {name: t, schedulingPolicy: {basic: {}}}\n"
		     "  - {name: t, schedulingPolicy: {basic: {}}}\n");
	ERR_AT(e, WASP_EINPUT, 7, 12, "duplicate template name \"t\"");
	e = dec_fail("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
		     "metadata: {name: w}\nspec: {}\n");
	ERR_AT(e, WASP_EINPUT, 4, 7, "one of podGroupTemplates and "
	       "compositePodGroupTemplates must be set");
}
END_TEST

START_TEST(composite_warnings)
{
	ws_snapshot *s = dec(
	    "apiVersion: scheduling.k8s.io/v1alpha3\nkind: Workload\n"
	    "metadata: {name: w}\nspec:\n"
	    "  compositePodGroupTemplates:\n"
	    "  - name: root\n"
	    "    schedulingPolicy: {gang: {minGroupCount: 2}}\n"
	    "    podGroupTemplates:\n"
	    "    - {name: leaf, schedulingPolicy: {gang: {minCount: 3}}}\n"
	    "---\n"
	    "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
	    "metadata: {name: root-0}\n"
	    "spec: {workloadRef: {workloadName: w, templateName: root}}\n"
	    "---\n"
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: leaf-0}\nspec:\n"
	    "  parentCompositePodGroupName: root-0\n"
	    "  workloadRef: {workloadName: w, templateName: leaf}\n");
	ck_assert_int_eq(s->ngroups, 1);
	ck_assert_int_eq(s->groups[0].min_count, 3);
	ck_assert_str_eq(s->groups[0].parent, "root-0");
	/* the tree is decoded: no warnings */
	ck_assert_int_eq(s->nwarnings, 0);
	ck_assert_int_eq(s->ncomps, 1);
	ck_assert_str_eq(s->comps[0].name, "root-0");
	ck_assert_int_eq(s->comps[0].policy, WS_POLICY_GANG);
	ck_assert_int_eq(s->comps[0].min_groups, 2);
	ck_assert_int_eq(s->comps[0].depth, 1);
	ck_assert_int_eq(s->comps[0].nkids, 1);
	ck_assert_int_eq(s->comps[0].kids[0], 0);
	ck_assert_int_eq(s->groups[0].pcomp, 1);
	ws_snapshot_free(s);
}
END_TEST

START_TEST(missing_podgroup)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: n}\n"
	    "spec: {priority: 5, schedulingGroup: {podGroupName: ghost}}\n"
	    "---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: n}\n"
	    "spec: {schedulingGroup: {podGroupName: ghost}}\n"
	    "---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: c}\n"
	    "spec: {schedulingGroup: {podGroupName: ghost}}\n");
	ck_assert_int_eq(s->ngroups, 2);
	const ws_group *g = group(s, "n", "ghost");
	ck_assert_str_eq(g->invalid, "PodGroup n/ghost does not exist");
	ck_assert_int_eq(g->npods, 2);
	ck_assert_int_eq(g->priority, 5); /* its first pod's */
	ck_assert_int_eq(g->src.line, 4);
	ck_assert_int_eq(s->pods[0].group, ws_group_index(s, "n", "ghost"));
	ck_assert_int_eq(s->pods[1].priority, 0);
	ck_assert_str_eq(group(s, "default", "ghost")->invalid,
			 "PodGroup default/ghost does not exist");
	ck_assert_int_eq(s->nwarnings, 2);
	ck_assert_str_eq(s->warnings[0], "PodGroup n/ghost does not exist; "
			 "its 2 pods wait");
	ck_assert_str_eq(s->warnings[1], "PodGroup default/ghost does not "
			 "exist; its 1 pod waits");
	ws_snapshot_free(s);
}
END_TEST

/* ---------------------------------------------------------- priority */

static const char *prio_classes =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
    "metadata: {name: low}\nvalue: 100\n---\n"
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
    "metadata: {name: base}\nvalue: 50\nglobalDefault: true\n"
    "preemptionPolicy: Never\n---\n";

START_TEST(priority_resolution)
{
	char text[4096];
	snprintf(text, sizeof text, "%s%s", prio_classes,
		 "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
		 "metadata: {name: g1}\n"
		 "spec: {schedulingPolicy: {basic: {}}, priorityClassName: low}\n"
		 "---\n"
		 "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
		 "metadata: {name: g2}\n"
		 "spec: {schedulingPolicy: {basic: {}}}\n"
		 "---\n"
		 "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
		 "metadata: {name: g3}\n"
		 "spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 7,"
		 " priorityClassName: low}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: explicit}\n"
		 "spec: {priority: 3, priorityClassName: gone}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: byclass}\n"
		 "spec: {priorityClassName: low}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: default}\n"
		 "spec: {}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: system}\n"
		 "spec: {priorityClassName: system-node-critical}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: in1}\n"
		 "spec: {schedulingGroup: {podGroupName: g1}}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: in1b}\n"
		 "spec: {priority: 100, schedulingGroup: {podGroupName: g1}}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: in3}\n"
		 "spec: {priority: 0, schedulingGroup: {podGroupName: g3}}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: in3b}\n"
		 "spec: {schedulingGroup: {podGroupName: g3}}\n"
		 "---\n"
		 "apiVersion: v1\nkind: Pod\nmetadata: {name: in2}\n"
		 "spec: {priorityClassName: base, preemptionPolicy: "
		 "PreemptLowerPriority, schedulingGroup: {podGroupName: g2}}\n");
	ws_snapshot *s = dec(text);
	const ws_group *g1 = group(s, "default", "g1"),
		       *g2 = group(s, "default", "g2"),
		       *g3 = group(s, "default", "g3");
	ck_assert_int_eq(g1->priority, 100);
	ck_assert_int_eq(g1->preempt, WS_PREEMPT_LOWER);
	ck_assert_int_eq(g2->priority, 50); /* global default */
	ck_assert_int_eq(g2->preempt, WS_PREEMPT_NEVER);
	ck_assert_int_eq(g3->priority, 7);  /* spec.priority first */
	ck_assert_int_eq(s->pods[pod(s, "default", "explicit")].priority, 3);
	ck_assert_int_eq(s->pods[pod(s, "default", "byclass")].priority, 100);
	ck_assert_int_eq(s->pods[pod(s, "default", "default")].priority, 50);
	ck_assert_int_eq(s->pods[pod(s, "default", "default")].preempt,
			 WS_PREEMPT_NEVER);
	ck_assert_int_eq(s->pods[pod(s, "default", "system")].priority,
			 2000001000);
	ck_assert_int_eq(s->pods[pod(s, "default", "in1")].priority, 100);
	ck_assert_int_eq(s->pods[pod(s, "default", "in1b")].priority, 100);
	ck_assert_ptr_null(g1->invalid);
	/* in3 says 0, the group 7: K8s beta fails the group */
	ck_assert_int_eq(s->pods[pod(s, "default", "in3b")].priority, 7);
	ck_assert_str_eq(g3->invalid, "pods disagree with the PodGroup on "
			 "priority (0 vs 7)");
	/* same priority, other preemptionPolicy */
	ck_assert_int_eq(s->pods[pod(s, "default", "in2")].priority, 50);
	ck_assert_str_eq(g2->invalid, "pods disagree with the PodGroup on "
			 "preemptionPolicy (PreemptLowerPriority vs Never)");
	ws_snapshot_free(s);
}
END_TEST

START_TEST(priority_errors)
{
	char text[4096];
	snprintf(text, sizeof text, "%s%s", prio_classes,
		 "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
		 "metadata: {name: other}\nvalue: 1\nglobalDefault: true\n");
	wasp_error e = dec_fail(text);
	ERR_AT(e, WASP_EINPUT, 17, 16, "globalDefault: PriorityClass other is "
	       "a second global default (the first is base at t.yaml:10:16)");
	e = dec_fail("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
		     "metadata: {name: p}\n");
	ERR_AT(e, WASP_EINPUT, 1, 1, "PriorityClass p has no value");
	e = dec_fail("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
		     "metadata: {name: p}\nvalue: 1\nglobalDefault: \"yes\"\n");
	ERR_AT(e, WASP_EINPUT, 5, 16, "globalDefault: expected true or false");
}
END_TEST

/* ------------------------------------------------------ lists, kinds */

START_TEST(list_unwrapping)
{
	ws_snapshot *s = dec(
	    "apiVersion: v1\nkind: List\nitems:\n"
	    "- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n"
	    "- apiVersion: v1\n  kind: NodeList\n  items:\n"
	    "  - {apiVersion: v1, kind: Node, metadata: {name: b}}\n"
	    "- apiVersion: v1\n  kind: List\n  items: []\n"
	    "---\n"
	    "apiVersion: v1\nkind: PodList\nitems: null\n"
	    "---\n"
	    "apiVersion: v1\nkind: List\n");
	ck_assert_int_eq(s->nnodes, 2);
	ck_assert_str_eq(s->nodes[1].name, "b");
	ws_snapshot_free(s);
	wasp_error e = dec_fail(
	    "apiVersion: v1\nkind: List\nitems:\n"
	    "- apiVersion: v1\n  kind: List\n  items:\n"
	    "  - {apiVersion: v1, kind: List, items: []}\n");
	ERR_AT(e, WASP_EINPUT, 7, 28, "a List nested in a List");
	e = dec_fail("apiVersion: v1\nkind: List\nitems: {a: 1}\n");
	ERR_AT(e, WASP_EINPUT, 3, 8, "items: expected a list, got a map");
	/* a kind ending in List without items is an ordinary kind */
	s = dec("apiVersion: example.com/v1\nkind: AllowList\n"
		"metadata: {name: x}\n");
	ck_assert_str_eq(s->warnings[0], "skipped 1 object of kind AllowList "
			 "(example.com/v1): not used by wasp");
	ws_snapshot_free(s);
}
END_TEST

START_TEST(skipped_kinds_and_dra)
{
	ws_snapshot *s = dec(
	    "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
	    "metadata: {name: a}\n---\n"
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	    "metadata: {name: s}\n"
	    "spec: {driver: d, pool: {name: p}, allNodes: true}\n---\n"
	    "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
	    "metadata: {name: b}\n---\n"
	    "apiVersion: apps/v1\nkind: Deployment\n"
	    "metadata: {generateName: web-}\n---\n"
	    "apiVersion: v2\nkind: Pod\nmetadata: {name: weird}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\n"
	    "spec: {resourceClaims: [{name: gpu, "
	    "resourceClaimTemplateName: t}]}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p2}\n"
	    "spec: {resourceClaims: [{name: gpu, "
	    "resourceClaimTemplateName: t}], nodeName: elsewhere}\n---\n"
	    "apiVersion: v1\nkind: Pod\nmetadata: {name: p3}\n"
	    "spec: {workloadRef: {name: w, podGroup: g}}\n");
	ck_assert_int_eq(s->npods, 3);
	ck_assert_int_eq(s->pods[1].node, -1);
	ck_assert_str_eq(s->pods[1].node_name, "elsewhere");
	ck_assert(!ws_pod_pending(&s->pods[1]));
	static const char *const want[] = {
	    "1 pod is bound to nodes missing from the snapshot (first: "
	    "default/p2 on elsewhere); their requests are not counted",
	    "1 pod uses spec.workloadRef (Kubernetes 1.35), which wasp "
	    "ignores; use spec.schedulingGroup.podGroupName",
	    "skipped 2 objects of kind JobSet (jobset.x-k8s.io/v1alpha2): not "
	    "used by wasp",
	    "skipped 1 object of kind Deployment (apps/v1): not used by wasp",
	    "skipped 1 object of kind Pod (v2): not used by wasp",
	};
	ck_assert_int_eq(s->nwarnings, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_str_eq(s->warnings[i], want[i]);
	/* DRA is decoded now: p1 names a template that does not exist. */
	ck_assert_ptr_nonnull(s->dra);
	ck_assert_int_eq(s->dra->ndevs, 0);
	ck_assert_str_eq(s->dra->pods[0].why,
			 "ResourceClaimTemplate default/t does not exist");
	ws_snapshot_free(s);
}
END_TEST

START_TEST(empty_and_null_documents)
{
	ws_snapshot *s = dec("---\n---\n# nothing\n");
	ck_assert_int_eq(s->nnodes + s->npods + s->ngroups, 0);
	ck_assert_int_eq(s->nres, 1);
	ck_assert_str_eq(s->res[0], "pods");
	ws_snapshot_free(s);
	/* nulls where kubectl prints them are absent values */
	s = dec("apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n"
		"  creationTimestamp: null\n  labels: null\n"
		"spec: {taints: null}\nstatus:\n  allocatable:\n    pods: 4\n"
		"  conditions: null\n");
	ck_assert_int_eq(s->nodes[0].nlabels, 0);
	ck_assert_int_eq(alloc(s, 0, "pods"), 4000);
	ws_snapshot_free(s);
}
END_TEST

START_TEST(topology_objects)
{
	ws_snapshot *s = dec(
	    "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Topology\n"
	    "metadata: {name: old}\nspec: {levels: [{nodeLabel: a}]}\n---\n"
	    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
	    "metadata: {name: new}\n"
	    "spec: {levels: [{nodeLabel: a}, {nodeLabel: b}]}\n");
	ck_assert_int_eq(s->ntopologies, 2);
	ck_assert_str_eq(s->topologies[1].name, "new");
	ck_assert_int_eq(s->topologies[1].nlabels, 2);
	ck_assert_str_eq(s->topologies[1].labels[1], "b");
	ws_snapshot_free(s);
	wasp_error e = dec_fail(
	    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
	    "metadata: {name: t}\n"
	    "spec: {levels: [{nodeLabel: a}, {nodeLabel: a}]}\n");
	ERR_AT(e, WASP_EINPUT, 4, 45, "nodeLabel \"a\" appears twice");
	e = dec_fail("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
		     "metadata: {name: t}\nspec: {levels: []}\n");
	ERR_AT(e, WASP_EINPUT, 4, 16, "needs at least one level");
}
END_TEST

/* WASP_MAX_OBJECTS, reached cheaply: aliases share one object 2049 * 2048
 * times (the loader's expanded-node budget allows it). */
/* The decoder keeps the load's deadline and cancel (wd_decode_lim): a
 * generated snapshot of many objects, decoded under an expired deadline,
 * a set cancel flag, a far deadline and none. */
START_TEST(decode_deadline)
{
	enum { N = 3000 };
	size_t cap = (size_t)N * 200, len = 0;
	char *text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(
		    text + len, cap - len,
		    "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: "
		    "n%d\nstatus:\n  allocatable: {cpu: \"8\", pods: "
		    "\"110\"}\n", i);
	wa_arena *a = wa_new();
	wt_doc d;
	wasp_error e;
	ck_assert_int_eq(wl_load_text(a, text, len, "big.yaml", &d, &e),
			 WASP_OK);
	ws_snapshot *s = NULL;
	ck_assert_int_eq(wd_decode_lim(&d, 1, NULL, &s, &e), WASP_OK);
	ck_assert_int_eq(s->nnodes, N);
	ws_snapshot_free(s);

	volatile int cancel = 0;
	wl_limits far = {wdl_at(wb_now() + 3600), &cancel, 0};
	ck_assert_int_eq(wd_decode_lim(&d, 1, &far, &s, &e), WASP_OK);
	ck_assert_int_eq(s->nnodes, N);
	ws_snapshot_free(s);

	wl_limits past = {wdl_at(wb_now() - 1), NULL, 0};
	s = (ws_snapshot *)1;
	ck_assert_int_eq(wd_decode_lim(&d, 1, &past, &s, &e), WASP_ELIMIT);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(e.code, WASP_ELIMIT);
	ck_assert_str_eq(e.file, "big.yaml");
	ck_assert_int_eq(e.line, 2); /* the first object */
	ck_assert_msg(strstr(e.msg, "time limit ran out"), "%s", e.msg);

	cancel = 1;
	s = (ws_snapshot *)1;
	ck_assert_int_eq(wd_decode_lim(&d, 1, &far, &s, &e), WASP_ECANCELED);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(e.msg, "cancelled"), "%s", e.msg);
	wa_destroy(a);
	free(text);
}
END_TEST

START_TEST(object_limit)
{
	size_t cap = 64 * 1024, n = 0;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	n += (size_t)snprintf(t + n, cap - n,
			      "apiVersion: v1\nkind: List\nitems:\n- &inner\n"
			      "  apiVersion: v1\n  kind: List\n  items:\n"
			      "  - &o {apiVersion: x/v1, kind: Foo, metadata: "
			      "{name: a}}\n");
	for (int i = 0; i < 2047; i++)
		n += (size_t)snprintf(t + n, cap - n, "  - *o\n");
	for (int i = 0; i < 2048; i++)
		n += (size_t)snprintf(t + n, cap - n, "- *inner\n");
	ck_assert_uint_lt(n, cap);
	ck_assert_int_gt(2049L * 2048, WASP_MAX_OBJECTS);
	wasp_error e = dec_fail(t);
	free(t);
	ck_assert_int_eq(e.code, WASP_ELIMIT);
	ck_assert_int_eq(e.line, 8);
	ck_assert_str_eq(e.msg, "more than 4194304 objects");
}
END_TEST

/* ------------------------------------------------------------- corpus */

static const char *corpus_dir(char *buf, size_t size)
{
	const char *env = getenv("WASP_CORPUS");
	if (env && *env)
		return env;
	const char *src = getenv("WASP_SRCDIR");
	if (src && *src) {
		snprintf(buf, size, "%s/../shared/corpus/real", src);
		DIR *d = opendir(buf);
		if (d) {
			closedir(d);
			return buf;
		}
	}
	return "/work/shared/corpus/real";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(real_corpus)
{
	char buf[4096];
	const char *dir = corpus_dir(buf, sizeof buf);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "check_decode: corpus %s absent, skipped\n",
			dir);
		return;
	}
	char *names[512];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 512) {
		size_t l = strlen(de->d_name);
		if ((l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) ||
		    (l > 4 && !strcmp(de->d_name + l - 4, ".yml")) ||
		    (l > 5 && !strcmp(de->d_name + l - 5, ".json")))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	bool verbose = getenv("WASP_CORPUS_REPORT") != NULL;
	size_t ok = 0;
	for (size_t i = 0; i < n; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		wa_arena *a = wa_new();
		wt_doc doc;
		wasp_error e;
		memset(&e, 0, sizeof e);
		ws_snapshot *s = NULL;
		int rc = wl_load_file(a, path, &doc, &e);
		if (!rc)
			rc = wd_decode(&doc, 1, &s, &e);
		wa_destroy(a);
		if (rc == WASP_OK) {
			ok++;
			if (verbose) {
				printf("| %s | decoded: %d nodes, %d pods, %d "
				       "groups, %d warnings |\n", names[i],
				       s->nnodes, s->npods, s->ngroups,
				       s->nwarnings);
				for (int w = 0; w < s->nwarnings; w++)
					printf("|   | %s |\n", s->warnings[w]);
			}
			/* facts these files are known for */
			if (!strcmp(names[i], "node-minikube-k9s.json")) {
				ck_assert_int_eq(alloc(s, 0, "memory"),
						 8063156LL * 1024 * 1000);
				ck_assert_int_eq(alloc(s, 0,
						       "ephemeral-storage"),
						 15625027559000LL);
			}
			if (!strcmp(names[i], "node-kwok-dra-gpu-1T.yaml")) {
				ck_assert_int_eq(alloc(s, 0, "memory"),
						 1000000000000000LL);
				ck_assert_int_eq(alloc(s, 0, "cpu"), 96000);
				ck_assert_int_eq(alloc(s, 0, "pods"), 110000);
			}
			if (!strcmp(names[i], "lws-vllm-gpu-limits-only.yaml"))
				ck_assert_int_eq(s->npods, 0);
			ws_snapshot_free(s);
		} else {
			if (verbose)
				printf("| %s | refused: %d:%d %s |\n",
				       names[i], e.line, e.col, e.msg);
			ck_assert_msg(e.code == WASP_EINPUT && e.line > 0 &&
					  e.msg[0],
				      "%s: code %d at line %d: \"%s\"",
				      names[i], e.code, e.line, e.msg);
			if (strstr(names[i], "v1alpha2") ||
			    strstr(names[i], "v1alpha1-workload"))
				ck_assert_msg(strstr(e.msg, "v1beta1"),
					      "%s: %s", names[i], e.msg);
		}
		free(names[i]);
	}
	ck_assert_msg(n == 0 || ok > 0, "no corpus file decodes");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("decode");
	tcase_add_test(tc, fixture_cluster);
	tcase_add_test(tc, fixture_list_json);
	tcase_add_test(tc, requests_limits_fallback);
	tcase_add_test(tc, requests_init_max_rule);
	tcase_add_test(tc, requests_sidecars);
	tcase_add_test(tc, requests_overhead_and_pod_level);
	tcase_add_test(tc, resource_order);
	tcase_add_test(tc, node_conditions);
	tcase_add_test(tc, pod_selectors_and_tolerations);
	tcase_add_loop_test(tc, pod_bad_values, 0,
			    (int)(sizeof bad_pods / sizeof bad_pods[0]));
	tcase_add_test(tc, error_positions_yaml_json);
	tcase_add_test(tc, duplicates);
	tcase_add_test(tc, several_files);
	tcase_add_test(tc, refuse_v1alpha2);
	tcase_add_test(tc, podgroup_bad_values);
	tcase_add_test(tc, workload_templates);
	tcase_add_test(tc, composite_warnings);
	tcase_add_test(tc, missing_podgroup);
	tcase_add_test(tc, priority_resolution);
	tcase_add_test(tc, priority_errors);
	tcase_add_test(tc, list_unwrapping);
	tcase_add_test(tc, skipped_kinds_and_dra);
	tcase_add_test(tc, empty_and_null_documents);
	tcase_add_test(tc, topology_objects);
	tcase_add_test(tc, object_limit);
	tcase_add_test(tc, decode_deadline);
	suite_add_tcase(s, tc);

	TCase *tcorp = tcase_create("corpus");
	tcase_set_timeout(tcorp, 120);
	tcase_add_test(tcorp, real_corpus);
	suite_add_tcase(s, tcorp);
	return tu_run(s);
}
