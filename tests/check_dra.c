/*
 * check_dra.c -- DRA: decoding the resource.k8s.io objects, device
 * matching, claim allocation on a node, and plans with device claims
 * (every plan goes through the verifier via tu_solve).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "model/decode.h"
#include "model/dra.h"
#include "io/load.h"
#include "plan/verify.h"

static const char *corpus(char *buf, size_t n, const char *file)
{
	const char *env = getenv("WASP_CORPUS");
	snprintf(buf, n, "%s/%s", env && *env ? env
		 : "/work/shared/corpus/real", file);
	return buf;
}

static int load_path(const char *path, ws_snapshot **s, wasp_error *e)
{
	wa_arena *a = wa_new();
	wt_doc doc;
	memset(e, 0, sizeof *e);
	*s = NULL;
	int rc = wl_load_file(a, path, &doc, e);
	if (!rc)
		rc = wd_decode(&doc, 1, s, e);
	wa_destroy(a);
	return rc;
}

/* Every DRA file of the corpus loads (the one v1alpha2 PodGroup file is
 * refused for its PodGroup, with the v1beta1 rewrite in the message). */
START_TEST(corpus_files)
{
	static const struct {
		const char *file;
		int ok;
	} files[] = {
		{"dra-deviceclass-website.yaml", 1},
		{"dra-example-resourceslice-list.yaml", 1},
		{"dra-rct-firstavailable.yaml", 1},
		{"dra-rct-website-cel-quantity.yaml", 1},
		{"dra-resourceslice-v1beta1-basic-kwok.yaml", 1},
		{"kep5729-workload-podgroups-resourceclaims-v1beta1.yaml", 1},
		{"node-kwok-dra-gpu-1T.yaml", 1},
		{"nvidia-gpu-test4-mig-matchattribute-v1.yaml", 1},
		{"nvidia-gpu-test4-mig-matchattribute-v1beta1.yaml", 1},
		{"nvidia-imex-resourceslice-v1alpha3.yaml", 1},
		{"nvidia-mig-extended-resource-deviceclass.yaml", 1},
		{"podgroup-v1alpha2-resourceclaimtemplate.yaml", 0},
	};
	char buf[4096];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *f = fopen(corpus(buf, sizeof buf, files[i].file), "r");
		if (!f) {
			fprintf(stderr, "check_dra: %s absent, skipped\n", buf);
			continue;
		}
		fclose(f);
		ws_snapshot *s;
		wasp_error e;
		int rc = load_path(buf, &s, &e);
		if (files[i].ok)
			ck_assert_msg(rc == WASP_OK, "%s: %s", files[i].file,
				      e.msg);
		else
			ck_assert_msg(rc == WASP_EINPUT &&
				      strstr(e.msg, "v1beta1"), "%s: %s",
				      files[i].file, e.msg);
		ws_snapshot_free(s);
	}
}
END_TEST


/* ------------------------------------------------------------ builders */

/* Short names: the builders below call these on every line. */
typedef tu_buf tb;
#define add tu_printf

static void node(tb *b, const char *name, int cpu, const char *rack)
{
	add(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n"
	    "  labels: {rack: %s}\nstatus:\n  allocatable: {cpu: %d, "
	    "pods: 110}\n", name, rack, cpu);
}

/* A node-local slice with n GPUs; attrs: per device "model,root,mem". */
static void slice(tb *b, const char *nodename, int n, const char *const *attrs)
{
	add(b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	    "metadata: {name: %s-gpus}\nspec:\n  driver: gpu.example.com\n"
	    "  nodeName: %s\n  pool: {name: %s, generation: 1, "
	    "resourceSliceCount: 1}\n  devices:\n", nodename, nodename,
	    nodename);
	for (int i = 0; i < n; i++) {
		char model[32] = "H100", root[32] = "r0", mem[32] = "80Gi";
		if (attrs && attrs[i])
			sscanf(attrs[i], "%31[^,],%31[^,],%31s", model, root,
			       mem);
		add(b, "  - name: gpu-%d\n    attributes:\n      model: "
		    "{string: %s}\n      index: {int: %d}\n"
		    "      resource.kubernetes.io/pcieRoot: {string: %s}\n"
		    "    capacity:\n      memory: {value: %s}\n", i, model, i,
		    root, mem);
	}
}

static const char *const gpu_class =
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
    "metadata: {name: gpu}\nspec:\n  selectors:\n"
    "  - cel: {expression: \"device.driver == 'gpu.example.com'\"}\n";

static void pod(tb *b, const char *name, const char *group, int cpu,
		const char *claims)
{
	add(b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\n"
	    "spec:\n", name);
	if (group)
		add(b, "  schedulingGroup: {podGroupName: %s}\n", group);
	add(b, "  containers:\n  - name: c\n    resources: {requests: "
	    "{cpu: %d}}\n", cpu);
	if (claims)
		add(b, "  resourceClaims:\n%s", claims);
}

static const wpl_claim *claim_of(const wasp_plan *p, const char *name)
{
	for (int i = 0; i < p->nclaims; i++)
		if (!strcmp(p->claims[i].name, name))
			return &p->claims[i];
	return NULL;
}

/* Pods each take 2 of 4 GPUs per node: exact device fit, not cpu. */
START_TEST(exact_count_per_node)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 64, "r1");
	slice(&b, "n1", 4, NULL);
	slice(&b, "n2", 4, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: two}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: gpus\n        exactly: {deviceClassName: gpu, "
	    "count: 2}\n");
	for (int i = 0; i < 5; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "p%d", i);
		pod(&b, nm, NULL, 1,
		    "  - {name: g, resourceClaimTemplateName: two}\n");
	}
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 4);
	ck_assert_int_eq(p->nclaims, 4);
	ck_assert_int_eq(p->nwait, 1);
	ck_assert_str_eq(p->wait[0].reason,
			 "no node in the cluster has 2 free devices of class "
			 "gpu; best has 0");
	const wpl_claim *c = claim_of(p, "p0-g");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->nresults, 2);
	ck_assert_str_eq(c->results[0].request, "gpus");
	ck_assert_str_eq(c->results[0].driver, "gpu.example.com");
	ck_assert_str_eq(c->results[0].pool, c->node);
	/* the text and JSON renderers show the results */
	char *txt = wasp_plan_render(p, WASP_FORMAT_JSON, NULL);
	ck_assert_ptr_nonnull(txt);
	ck_assert_ptr_nonnull(strstr(txt, "\"podClaimName\": \"g\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"device\": \"gpu-1\""));
	free(txt);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* matchAttribute: root r0 has one free GPU (the other is allocated to an
 * existing claim), r1 has two: only r1 fits a pair. */
START_TEST(match_attribute_partition)
{
	static const char *const at[] = {"H100,r0,80Gi", "H100,r0,80Gi",
					 "H100,r1,80Gi", "H100,r1,80Gi"};
	tb b = {0};
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 4, at);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	    "metadata: {name: old}\nspec:\n  devices:\n    requests:\n"
	    "    - name: g\n      exactly: {deviceClassName: gpu}\n"
	    "status:\n  allocation:\n    devices:\n      results:\n"
	    "      - {request: g, driver: gpu.example.com, pool: n1, "
	    "device: gpu-1}\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pair}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: a\n        exactly: {deviceClassName: gpu}\n"
	    "      - name: b\n        exactly: {deviceClassName: gpu}\n"
	    "      constraints:\n      - requests: [a, b]\n"
	    "        matchAttribute: resource.kubernetes.io/pcieRoot\n");
	pod(&b, "p", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: pair}\n");
	pod(&b, "q", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: pair}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 1);
	const wpl_claim *c = claim_of(p, "p-x");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->nresults, 2);
	ck_assert_str_eq(c->results[0].device, "gpu-2");
	ck_assert_str_eq(c->results[1].device, "gpu-3");
	ck_assert_str_eq(tu_wait_reason(p, "default", "q"),
			 "no node in the cluster has 2 free devices of class "
			 "gpu sharing one pcieRoot; best has 1");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* firstAvailable: no 1Ti GPU anywhere, so the second alternative. */
START_TEST(first_available_fallback)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 2, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pref}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: gpu\n        firstAvailable:\n"
	    "        - name: huge\n          deviceClassName: gpu\n"
	    "          selectors:\n          - cel: {expression: \"device."
	    "capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) "
	    ">= 0\"}\n"
	    "        - name: any\n          deviceClassName: gpu\n");
	pod(&b, "p", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: pref}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 1);
	const wpl_claim *c = claim_of(p, "p-x");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->nresults, 1);
	ck_assert_str_eq(c->results[0].request, "gpu/any");
	ck_assert_str_eq(c->results[0].device, "gpu-0");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* A PodGroup claim on a node-local device pins the gang to that node;
 * a pod whose entry differs from the group's gets its own claim. */
START_TEST(group_claim_colocates)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 64, "r1");
	node(&b, "n3", 64, "r1");
	slice(&b, "n2", 1, NULL);
	slice(&b, "n3", 1, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: one}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu}\n");
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: team}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 3}\n  resourceClaims:\n"
	    "  - {name: shared, resourceClaimTemplateName: one}\n");
	for (int i = 0; i < 3; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "w%d", i);
		pod(&b, nm, "team", 20,
		    "  - {name: shared, resourceClaimTemplateName: one}\n");
	}
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 3);
	const char *n0 = tu_node_of(p, "default", "w0");
	ck_assert_ptr_nonnull(n0);
	ck_assert_str_eq(tu_node_of(p, "default", "w1"), n0);
	ck_assert_str_eq(tu_node_of(p, "default", "w2"), n0);
	ck_assert_int_eq(p->nclaims, 1);
	const wpl_claim *c = claim_of(p, "team-shared");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->group, "team");
	ck_assert_str_eq(c->node, n0);
	ck_assert_str_eq(c->results[0].pool, n0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* The gang needs 3 x 20 cpu on the one node its claim reaches; that
 * node has 50: it waits, and the reason speaks of the shared claim. */
START_TEST(group_claim_too_big_waits)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 50, "r1");
	slice(&b, "n2", 1, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: one}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu}\n");
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: team}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 3}\n  resourceClaims:\n"
	    "  - {name: shared, resourceClaimTemplateName: one}\n");
	for (int i = 0; i < 3; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "w%d", i);
		pod(&b, nm, "team", 20,
		    "  - {name: shared, resourceClaimTemplateName: one}\n");
	}
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 0);
	ck_assert_int_eq(p->nclaims, 0);
	ck_assert_ptr_nonnull(tu_wait_reason(p, "default", "team"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* An existing allocation takes its device: the pod goes elsewhere. */
START_TEST(existing_allocation_blocks)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 8, "r1");
	slice(&b, "n1", 1, NULL);
	slice(&b, "n2", 1, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	    "metadata: {name: old}\nspec:\n  devices:\n    requests:\n"
	    "    - name: g\n      exactly: {deviceClassName: gpu}\n"
	    "status:\n  allocation:\n    devices:\n      results:\n"
	    "      - {request: g, driver: gpu.example.com, pool: n1, "
	    "device: gpu-0}\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: one}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu}\n");
	pod(&b, "p", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: one}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_str_eq(tu_node_of(p, "default", "p"), "n2");
	ck_assert_str_eq(claim_of(p, "p-x")->results[0].pool, "n2");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* The verifier catches a device given twice and a wrong count. */
START_TEST(verifier_catches_device_errors)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 4, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: one}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu}\n");
	pod(&b, "p", NULL, 1, "  - {name: x, resourceClaimTemplateName: one}\n");
	pod(&b, "q", NULL, 1, "  - {name: x, resourceClaimTemplateName: one}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nclaims, 2);
	/* tamper: q's claim gets p's device */
	wpl_claim *cq = (wpl_claim *)claim_of(p, "q-x");
	const wpl_claim *cp = claim_of(p, "p-x");
	cq->results[0].device = cp->results[0].device;
	size_t nv = 0;
	char *rep = NULL;
	wa_arena *a = wa_new();
	ck_assert_int_eq(wv_check(s, p, a, &nv, &rep, NULL), WASP_OK);
	ck_assert_int_eq(nv, 1);
	ck_assert_ptr_nonnull(strstr(rep, "is already allocated"));
	/* and a claim with no result for its request */
	cq->nresults = 0;
	ck_assert_int_eq(wv_check(s, p, a, &nv, &rep, NULL), WASP_OK);
	ck_assert_int_eq(nv, 1);
	ck_assert_ptr_nonnull(strstr(rep, "request g has no device"));
	wa_destroy(a);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Decoding errors point at the value; v1beta1 shapes read; a missing
 * DeviceClass is a waiting reason. */
START_TEST(decode_errors_and_v1beta1)
{
	wasp_error e = tu_load_fail(
	    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
	    "metadata: {name: c}\nspec:\n  selectors:\n"
	    "  - cel: {expression: \"device.driver = 'x'\"}\n");
	ck_assert_str_eq(e.msg, "CEL: unexpected '=' (use '==') at offset 14");
	ck_assert_int_eq(e.line, 6);
	e = tu_load_fail(
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
	    "metadata: {name: t}\nspec:\n  spec:\n    devices:\n"
	    "      requests:\n      - name: g\n        deviceClassName: c\n");
	ck_assert_ptr_nonnull(strstr(e.msg, "under exactly:"));
	ck_assert_int_eq(e.line, 8);
	/* v1beta1: devices under basic:, request fields inline */
	tb b = {0};
	node(&b, "n1", 64, "r1");
	add(&b, "---\napiVersion: resource.k8s.io/v1beta1\n"
	    "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
	    "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: n1}\n"
	    "  devices:\n  - name: d0\n    basic:\n      attributes:\n"
	    "        model: {string: L4}\n      capacity:\n"
	    "        memory: {value: 24Gi}\n");
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1beta1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: t}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        deviceClassName: gpu\n"
	    "        selectors:\n        - cel: {expression: \"device."
	    "attributes['gpu.example.com'].model == 'L4'\"}\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: nocls}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: nope}\n");
	pod(&b, "p", NULL, 1, "  - {name: x, resourceClaimTemplateName: t}\n");
	pod(&b, "q", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: nocls}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_str_eq(tu_node_of(p, "default", "p"), "n1");
	ck_assert_str_eq(claim_of(p, "p-x")->results[0].device, "d0");
	ck_assert_str_eq(tu_wait_reason(p, "default", "q"),
			 "DeviceClass nope does not exist (claim default/nocls)");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Pool generations: only the newest counts; node selectors reach. */
START_TEST(pools_and_reach)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 64, "r2");
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	    "metadata: {name: old}\nspec:\n  driver: net.example.com\n"
	    "  allNodes: true\n  pool: {name: fabric, generation: 1}\n"
	    "  devices:\n  - name: ch0\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	    "metadata: {name: new}\nspec:\n  driver: net.example.com\n"
	    "  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:"
	    "\n      - {key: rack, operator: In, values: [r2]}\n"
	    "  pool: {name: fabric, generation: 2, resourceSliceCount: 2}\n"
	    "  devices:\n  - name: ch1\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
	    "metadata: {name: net}\nspec: {}\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: ch}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: c\n        exactly: {deviceClassName: net}\n");
	pod(&b, "p", NULL, 1, "  - {name: x, resourceClaimTemplateName: ch}\n");
	wasp_snapshot *s = tu_load(b.buf);
	const ws_dra *d = s->dra;
	ck_assert_int_eq(d->ndevs, 1);
	ck_assert_str_eq(d->devs[0].name, "ch1");
	ck_assert_str_eq(wasp_snapshot_warning(s, 0),
			 "1 DRA pool is incomplete (first: net.example.com/"
			 "fabric has 1 of 2 slices); their devices are used "
			 "as listed");
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_str_eq(tu_node_of(p, "default", "p"), "n2");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

static const char *const one_tpl =
    "---\napiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaimTemplate\nmetadata: {name: one}\n"
    "spec:\n  spec:\n    devices:\n      requests:\n"
    "      - name: g\n        exactly: {deviceClassName: gpu}\n";

/* distinctAttribute: two GPUs on different roots; All takes every
 * matching device; firstAvailable prefers its first way when it fits. */
START_TEST(distinct_all_and_preference)
{
	static const char *const at[] = {"H100,r0,80Gi", "H100,r0,80Gi",
					 "A100,r1,40Gi", "A100,r1,40Gi"};
	tb b = {0};
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 4, at);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: spread}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu, "
	    "count: 2}\n      constraints:\n"
	    "      - distinctAttribute: resource.kubernetes.io/pcieRoot\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pref}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: gpu\n        firstAvailable:\n"
	    "        - name: a100\n          deviceClassName: gpu\n"
	    "          selectors:\n          - cel: {expression: \"device."
	    "attributes['gpu.example.com'].model == 'A100'\"}\n"
	    "        - name: any\n          deviceClassName: gpu\n");
	pod(&b, "s", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: spread}\n");
	pod(&b, "t", NULL, 1,
	    "  - {name: x, resourceClaimTemplateName: pref}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 2);
	const wpl_claim *c = claim_of(p, "s-x");
	ck_assert_int_eq(c->nresults, 2);
	ck_assert_str_eq(c->results[0].device, "gpu-0");
	ck_assert_str_eq(c->results[1].device, "gpu-2");
	c = claim_of(p, "t-x");
	ck_assert_str_eq(c->results[0].request, "gpu/a100");
	ck_assert_str_eq(c->results[0].device, "gpu-3");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);

	/* All: every H100 of the node; a second such claim waits */
	memset(&b, 0, sizeof b);
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 4, at);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: all}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly:\n          deviceClassName: gpu\n"
	    "          allocationMode: All\n          selectors:\n"
	    "          - cel: {expression: \"device.attributes["
	    "'gpu.example.com'].model.startsWith('H1')\"}\n");
	pod(&b, "u", NULL, 1, "  - {name: x, resourceClaimTemplateName: all}\n");
	pod(&b, "v", NULL, 1, "  - {name: x, resourceClaimTemplateName: all}\n");
	s = tu_load(b.buf);
	p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 1);
	c = claim_of(p, "u-x");
	ck_assert_int_eq(c->nresults, 2);
	ck_assert_str_eq(c->results[1].device, "gpu-1");
	ck_assert_str_eq(tu_wait_reason(p, "default", "v"),
			 "no node in the cluster has all devices of class "
			 "gpu free");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* A ResourceClaim named by two pods is allocated once and both pods run
 * where its device is; a selector that errors is a reason, not a crash. */
START_TEST(shared_resourceclaim_and_cel_error)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 64, "r1");
	slice(&b, "n2", 1, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
	    "metadata: {name: shared}\nspec:\n  devices:\n    requests:\n"
	    "    - name: g\n      exactly: {deviceClassName: gpu}\n");
	pod(&b, "a", NULL, 1, "  - {name: x, resourceClaimName: shared}\n");
	pod(&b, "b", NULL, 2, "  - {name: x, resourceClaimName: shared}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 2);
	ck_assert_str_eq(tu_node_of(p, "default", "a"), "n2");
	ck_assert_str_eq(tu_node_of(p, "default", "b"), "n2");
	ck_assert_int_eq(p->nclaims, 1);
	ck_assert_ptr_null(claim_of(p, "shared")->pod);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);

	memset(&b, 0, sizeof b);
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 1, NULL);
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
	    "metadata: {name: gpu}\nspec:\n  selectors:\n"
	    "  - cel: {expression: \"device.attributes['gpu.example.com']"
	    ".nope == 1\"}\n");
	add(&b, "%s", one_tpl);
	pod(&b, "p", NULL, 1, "  - {name: x, resourceClaimTemplateName: one}\n");
	s = tu_load(b.buf);
	p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 0);
	const char *why = tu_wait_reason(p, "default", "p");
	ck_assert_ptr_nonnull(strstr(why, "a CEL selector of request g of "
				     "claim default/one failed on device "
				     "gpu.example.com/n1/gpu-0: test.yaml:"));
	ck_assert_ptr_nonnull(strstr(why, "CEL: no such key: 'nope' at "
				     "offset 37"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* The generator's --dra instance loads, solves and verifies. */
START_TEST(generated_instance)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.nodes = 32;
	g.gangs = 24;
	g.dra = 1;
	char *text = wasp_gen(&g, NULL);
	ck_assert_ptr_nonnull(text);
	wasp_snapshot *s = tu_load(text);
	ck_assert_ptr_nonnull(s->dra);
	ck_assert_int_eq(s->dra->ndevs, 32 * 8);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_gt(p->nplace, 0);
	ck_assert_int_gt(p->nclaims, 0);
	/* the ILP answer, with its devices, is verified too */
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.time_limit_s = 3;
	wasp_plan *q = tu_solve(s, &o);
	ck_assert_str_eq(q->sum.mode, "ilp");
	ck_assert_int_eq(q->nclaims, q->nplace);
	wasp_plan_free(q);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	wasp_free(text);
}
END_TEST

/* Plans round-trip through YAML with their claims, and `wasp check`
 * accepts the read-back plan; perDeviceNodeSelection reaches per device. */
START_TEST(roundtrip_and_per_device)
{
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 64, "r2");
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
	    "metadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
	    "  perDeviceNodeSelection: true\n  pool: {name: p}\n"
	    "  devices:\n  - name: d1\n    nodeName: n1\n"
	    "  - name: d2\n    nodeSelector:\n      nodeSelectorTerms:\n"
	    "      - matchExpressions:\n"
	    "        - {key: rack, operator: In, values: [r2]}\n");
	add(&b, "%s", gpu_class);
	add(&b, "%s", one_tpl);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: two}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu, "
	    "count: 2}\n");
	pod(&b, "p", NULL, 40, "  - {name: x, resourceClaimTemplateName: one}\n");
	pod(&b, "q", NULL, 40, "  - {name: x, resourceClaimTemplateName: one}\n");
	pod(&b, "r", NULL, 1, "  - {name: x, resourceClaimTemplateName: two}\n");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	ck_assert_int_eq(p->nplace, 2);
	ck_assert_str_ne(tu_node_of(p, "default", "p"),
			 tu_node_of(p, "default", "q"));
	/* r is tried first (most constrained): one free device per node */
	ck_assert_str_eq(tu_wait_reason(p, "default", "r"),
			 "no node in the cluster has 2 free devices of class "
			 "gpu; best has 1");
	char *y = wasp_plan_render(p, WASP_FORMAT_YAML, NULL);
	ck_assert_ptr_nonnull(y);
	wasp_plan *back = NULL;
	wasp_error e = {0};
	ck_assert_int_eq(wasp_plan_from_text(&back, y, strlen(y), "plan.yaml",
					     &e), WASP_OK);
	ck_assert_int_eq(back->nclaims, 2);
	size_t nv = 9;
	ck_assert_int_eq(wasp_check(s, back, &nv, NULL, NULL), WASP_OK);
	ck_assert_int_eq(nv, 0);
	/* a claim moved to the other pod's device is caught */
	wpl_claim *c = &back->claims[0];
	c->results[0].device = back->claims[1].results[0].device;
	char *rep = NULL;
	ck_assert_int_eq(wasp_check(s, back, &nv, &rep, NULL), WASP_OK);
	ck_assert_int_ge(nv, 2);
	ck_assert_ptr_nonnull(strstr(rep, "is not available on node"));
	wasp_free(rep);
	wasp_free(y);
	wasp_plan_free(back);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Bad DRA input: each error names the value and the v1 form. */
START_TEST(decode_refusals)
{
	static const struct {
		const char *text, *msg;
		int line;
	} cases[] = {
		{"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
		 "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n\n"
		 "  pool: {name: p}\n  devices:\n  - name: a\n    basic: {}\n",
		 "spec.devices[0]: devices[].basic is the v1beta1 form; in "
		 "resource.k8s.io/v1 the attributes and capacity sit directly "
		 "in the device", 10},
		{"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
		 "metadata: {name: s}\nspec:\n  driver: d\n  nodeName: n\n"
		 "  pool: {name: p}\n  devices:\n  - name: a\n"
		 "    attributes:\n      x: {float: 1}\n",
		 "spec.devices[0].attributes.x: unknown attribute type "
		 "\"float\" (want int, bool, string, version, ints, bools, "
		 "strings or versions)", 11},
		{"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
		 "metadata: {name: s}\nspec:\n  driver: d\n  allNodes: true\n"
		 "  nodeName: n\n  pool: {name: p}\n",
		 "spec: exactly one of nodeName, nodeSelector, allNodes, "
		 "perDeviceNodeSelection may be set", 5},
		{"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
		 "metadata: {name: c}\nspec:\n  devices:\n    requests:\n"
		 "    - name: g\n      exactly: {deviceClassName: x}\n"
		 "    constraints:\n    - matchAttribute: pcieRoot\n",
		 "spec.devices.constraints[0]: attribute \"pcieRoot\" must be "
		 "fully qualified (domain/name)", 10},
		{"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
		 "metadata: {name: c}\nspec:\n  devices:\n    requests:\n"
		 "    - name: g\n      exactly: {deviceClassName: x, "
		 "allocationMode: Some}\n",
		 "spec.devices.requests[0].exactly: allocationMode must be "
		 "ExactCount or All, not \"Some\"", 8},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		wasp_error e = tu_load_fail(cases[i].text);
		ck_assert_int_eq(e.code, WASP_EINPUT);
		ck_assert_str_eq(e.msg, cases[i].msg);
		ck_assert_int_eq(e.line, cases[i].line);
	}
}
END_TEST

/* The ILP's device rows: greedy puts the high-priority pod on an H100 and
 * the H100 pair for the gang is gone; the ILP puts it on the A100 node,
 * and its answer gets devices claim by claim (then verified). */
START_TEST(ilp_beats_greedy_with_devices)
{
	static const char *const h[] = {"H100,r0,80Gi", "H100,r0,80Gi"};
	static const char *const a[] = {"A100,r0,40Gi", "A100,r0,40Gi"};
	tb b = {0};
	node(&b, "n1", 64, "r1");
	node(&b, "n2", 64, "r1");
	slice(&b, "n1", 2, h);
	slice(&b, "n2", 2, a);
	add(&b, "%s", gpu_class);
	add(&b, "%s", one_tpl);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: h100}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly:\n          deviceClassName: gpu\n"
	    "          selectors:\n          - cel: {expression: \"device."
	    "attributes['gpu.example.com'].model == 'H100'\"}\n");
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: pair}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 2}\n  priority: 100\n");
	add(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: any}\n"
	    "spec:\n  priority: 200\n  containers:\n  - name: c\n"
	    "    resources: {requests: {cpu: 1}}\n  resourceClaims:\n"
	    "  - {name: x, resourceClaimTemplateName: one}\n");
	for (int i = 0; i < 2; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "h%d", i);
		add(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\n"
		    "spec:\n  priority: 100\n  schedulingGroup: {podGroupName: "
		    "pair}\n  containers:\n  - name: c\n    resources: "
		    "{requests: {cpu: 1}}\n  resourceClaims:\n"
		    "  - {name: x, resourceClaimTemplateName: h100}\n", nm);
	}
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *g = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_int_eq(g->nplace, 1);
	ck_assert_str_eq(tu_node_of(g, "default", "any"), "n1");
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_ILP);
	ck_assert_str_eq(p->sum.mode, "ilp");
	ck_assert_int_eq(p->nplace, 3);
	ck_assert_str_eq(tu_node_of(p, "default", "any"), "n2");
	ck_assert_str_eq(claim_of(p, "any-x")->results[0].device, "gpu-0");
	ck_assert_str_eq(claim_of(p, "any-x")->results[0].pool, "n2");
	ck_assert_str_eq(claim_of(p, "h1-x")->node, "n1");
	/* cbc on the exported LP (device rows included) finds the same
	 * optimum as GLPK */
	if (system("cbc -quit >/dev/null 2>&1") == 0) {
		char dir[] = "/tmp/wasp-dra-XXXXXX", lp[64];
		ck_assert_ptr_nonnull(mkdtemp(dir));
		snprintf(lp, sizeof lp, "%s/m.lp", dir); /* cbc wants .lp */
		wasp_options o;
		wasp_options_init(&o);
		o.mode = WASP_MODE_ILP;
		ck_assert_int_eq(wasp_export(s, &o, WASP_EXPORT_LP, lp, NULL),
				 WASP_OK);
		char *txt = tu_slurp(lp);
		ck_assert_ptr_nonnull(strstr(txt, "devs(n1,"));
		free(txt);
		char cmd[256];
		snprintf(cmd, sizeof cmd, "cbc %s -solve 2>&1", lp);
		FILE *f = popen(cmd, "r");
		ck_assert_ptr_nonnull(f);
		char line[512];
		double got = NAN;
		while (fgets(line, sizeof line, f)) {
			const char *q = strstr(line, "Objective value:");
			if (q)
				got = strtod(q + 16, NULL);
		}
		pclose(f);
		unlink(lp);
		ck_assert_msg(fabs(got - p->sum.objective) < 0.5,
			      "cbc %.1f, wasp %.1f", got, p->sum.objective);
		/* glpsol on models/wasp.mod with the exported data */
		char dat[64];
		snprintf(dat, sizeof dat, "%s/m.dat", dir);
		ck_assert_int_eq(wasp_export(s, &o, WASP_EXPORT_DAT, dat, NULL),
				 WASP_OK);
		snprintf(cmd, sizeof cmd, "glpsol -m %s -d %s 2>&1",
			 tu_src_path("models/wasp.mod"), dat);
		f = popen(cmd, "r");
		ck_assert_ptr_nonnull(f);
		got = NAN;
		while (fgets(line, sizeof line, f)) {
			const char *q = strstr(line, "wasp.mod: value = ");
			if (q)
				got = strtod(q + 18, NULL);
		}
		pclose(f);
		unlink(dat);
		rmdir(dir);
		ck_assert_msg(fabs(got - p->sum.objective) < 0.5,
			      "glpsol on wasp.mod %.1f, wasp %.1f", got,
			      p->sum.objective);
	} else {
		fprintf(stderr, "check_dra: cbc absent, cross-check skipped\n");
	}
	wasp_plan_free(g);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Random small instances with every request feature; greedy and ILP
 * plans must pass the verifier (tu_solve), and the ILP is never worse. */
static uint64_t rs_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 2-4 nodes, two per rack, each with 1-4 GPUs (H100 or A100, on one of
 * two PCIe roots), and the gpu DeviceClass. */
static void random_nodes(tb *b, uint64_t *rs)
{
	int nn = 2 + (int)(rs_next(rs) % 3);
	for (int n = 0; n < nn; n++) {
		char nm[8], rk[8];
		snprintf(nm, sizeof nm, "n%d", n);
		snprintf(rk, sizeof rk, "r%d", n / 2);
		node(b, nm, 8 + (int)(rs_next(rs) % 8), rk);
		int nd = 1 + (int)(rs_next(rs) % 4);
		const char *at[4];
		char buf[4][32];
		for (int d = 0; d < nd; d++) {
			snprintf(buf[d], sizeof buf[d], "%s,r%d,40Gi",
				 rs_next(rs) % 2 ? "H100" : "A100",
				 (int)(rs_next(rs) % 2));
			at[d] = buf[d];
		}
		slice(b, nm, nd, at);
	}
	add(b, "%s", gpu_class);
}

START_TEST(random_instances)
{
	uint64_t rs = 1000 + (uint64_t)_i;
	tb b = {0};
	random_nodes(&b, &rs);
	add(&b, "%s", one_tpl);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pair}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu, "
	    "count: 2}\n      constraints:\n      - matchAttribute: "
	    "resource.kubernetes.io/pcieRoot\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: spread}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: a\n        exactly: {deviceClassName: gpu}\n"
	    "      - name: b\n        exactly: {deviceClassName: gpu}\n"
	    "      constraints:\n      - distinctAttribute: "
	    "gpu.example.com/model\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pref}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: gpu\n        firstAvailable:\n"
	    "        - name: h\n          deviceClassName: gpu\n"
	    "          count: 2\n          selectors:\n"
	    "          - cel: {expression: \"device.attributes["
	    "'gpu.example.com'].model == 'H100'\"}\n"
	    "        - name: any\n          deviceClassName: gpu\n");
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: team}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 2}\n  resourceClaims:\n"
	    "  - {name: s, resourceClaimTemplateName: one}\n");
	static const char *const tpls[] = {"one", "pair", "spread", "pref"};
	int np = 2 + (int)(rs_next(&rs) % 5);
	for (int i = 0; i < np; i++) {
		char nm[8], cl[128];
		snprintf(nm, sizeof nm, "p%d", i);
		snprintf(cl, sizeof cl, "  - {name: x, "
			 "resourceClaimTemplateName: %s}\n",
			 tpls[rs_next(&rs) % 4]);
		pod(&b, nm, NULL, 1 + (int)(rs_next(&rs) % 4), cl);
	}
	for (int i = 0; i < 2; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "t%d", i);
		pod(&b, nm, "team", 2,
		    "  - {name: s, resourceClaimTemplateName: one}\n"
		    "  - {name: own, resourceClaimTemplateName: one}\n");
	}
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *g = tu_solve_mode(s, WASP_MODE_GREEDY);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.time_limit_s = 5;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_msg(wp_value_cmp(&p->sum.tiers, &g->sum.tiers) >= 0,
		      "seed %d: ILP worse than greedy", _i);
	/* team: both pods with the group's device reachable */
	if (tu_placed_in_group(p, "default", "team") == 2)
		ck_assert_str_eq(tu_node_of(p, "default", "t0"),
				 tu_node_of(p, "default", "t1"));
	wasp_plan_free(g);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* cbc on the exported LP and glpsol on models/wasp.mod reach wasp's
 * optimum (testutil.c). */
#define cross_check tu_ilp_cross_check

static const char *const pref_h100_tpl =
    "---\napiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaimTemplate\nmetadata: {name: pref}\n"
    "spec:\n  spec:\n    devices:\n      requests:\n"
    "      - name: gpu\n        firstAvailable:\n"
    "        - name: h\n          deviceClassName: gpu\n"
    "          selectors:\n          - cel: {expression: \"device."
    "attributes['gpu.example.com'].model == 'H100'\"}\n"
    "        - name: any\n          deviceClassName: gpu\n";
static const char *const two_h100_tpl =
    "---\napiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaimTemplate\nmetadata: {name: h2}\n"
    "spec:\n  spec:\n    devices:\n      requests:\n"
    "      - name: g\n        exactly:\n          deviceClassName: gpu\n"
    "          count: 2\n          selectors:\n          - cel: "
    "{expression: \"device.attributes['gpu.example.com'].model == "
    "'H100'\"}\n";

static void prio_pod(tb *b, const char *name, int prio, const char *tpl)
{
	add(b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\n"
	    "spec:\n  priority: %d\n  containers:\n  - name: c\n"
	    "    resources: {requests: {cpu: 1}}\n  resourceClaims:\n"
	    "  - {name: x, resourceClaimTemplateName: %s}\n", name, prio,
	    tpl);
}

/* firstAvailable in the ILP: a later alternative only for strictly more
 * higher-tier work.  n1 has two H100s and an A100.  Low-priority pod a
 * prefers an H100 but takes any GPU; high-priority pod b needs both
 * H100s.  The ILP places both, a on the A100 (its later alternative).
 * With a third H100 the same ILP keeps a on its first alternative: the
 * alternative tier outranks nothing above it but is not free. */
START_TEST(first_available_ilp)
{
	for (int extra = 0; extra < 2; extra++) {
		static const char *const at[] = {"H100,r0,80Gi",
			"H100,r0,80Gi", "A100,r0,40Gi", "H100,r0,80Gi"};
		tb b = {0};
		node(&b, "n1", 64, "r1");
		slice(&b, "n1", 3 + extra, at);
		add(&b, "%s", gpu_class);
		add(&b, "%s", pref_h100_tpl);
		add(&b, "%s", two_h100_tpl);
		prio_pod(&b, "a", 10, "pref");
		prio_pod(&b, "b", 100, "h2");
		wasp_snapshot *s = tu_load(b.buf);
		wasp_plan *p = tu_solve_mode(s, WASP_MODE_ILP);
		ck_assert_int_eq(p->nplace, 2);
		ck_assert_str_eq(claim_of(p, "a-x")->results[0].request,
				 extra ? "gpu/h" : "gpu/any");
		ck_assert_double_eq(p->sum.tiers.alt_rank, extra ? 0 : 1);
		for (int i = 0; i < p->nwarnings; i++)
			ck_assert_msg(!strstr(p->warnings[i], "claim by claim"),
				      "%s", p->warnings[i]);
		cross_check(s, p->sum.objective, extra);
		wasp_plan_free(p);
		wasp_snapshot_free(s);
		free(b.buf);
	}
}
END_TEST

/* The verifier: a later alternative chosen while the earlier one fits
 * the final plan is a violation; taking the only free H100 away from the
 * claim (another pod holds it) makes the same plan legal. */
START_TEST(verifier_flags_needless_alternative)
{
	static const char *const at[] = {"H100,r0,80Gi", "A100,r0,40Gi"};
	tb b = {0};
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 2, at);
	add(&b, "%s", gpu_class);
	add(&b, "%s", pref_h100_tpl);
	prio_pod(&b, "a", 10, "pref");
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve(s, NULL);
	wpl_claim *c = (wpl_claim *)claim_of(p, "a-x");
	ck_assert_str_eq(c->results[0].request, "gpu/h");
	ck_assert_str_eq(c->results[0].device, "gpu-0");
	/* hand-written: a on the A100 by its second alternative */
	c->results[0].request = "gpu/any";
	c->results[0].device = "gpu-1";
	size_t nv = 0;
	char *rep = NULL;
	wa_arena *a = wa_new();
	ck_assert_int_eq(wv_check(s, p, a, &nv, &rep, NULL), WASP_OK);
	ck_assert_int_eq(nv, 1);
	ck_assert_ptr_nonnull(strstr(rep, "claim default/a-x: request gpu "
				     "uses alternative gpu/any, but the earlier "
				     "gpu/h could be met on node n1"));
	wa_destroy(a);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* The local pass greedy runs after placement (wdr_prefer_earlier): pod
 * b holds both H100s when pod a is placed, so a takes the A100 by its
 * second alternative; once b's devices are given back (as when its gang
 * fails or it is evicted), the pass moves a to an H100 on the same node,
 * and the plan-level rank drops from 1 to 0. */
START_TEST(prefer_earlier_pass)
{
	static const char *const at[] = {"H100,r0,80Gi", "H100,r0,80Gi",
					 "A100,r0,40Gi"};
	tb b = {0};
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", 3, at);
	add(&b, "%s", gpu_class);
	add(&b, "%s", pref_h100_tpl);
	add(&b, "%s", two_h100_tpl);
	prio_pod(&b, "b", 100, "h2");
	prio_pod(&b, "a", 10, "pref");
	wasp_snapshot *s = tu_load(b.buf);
	wa_arena *ar = wa_new();
	wdr_state st;
	ck_assert_int_eq(wdr_state_init(&st, s, ar), 0);
	ck_assert(wdr_place(&st, 0, 0, 0));  /* b: both H100s */
	ck_assert(wdr_place(&st, 1, 1, 0));  /* a: the A100 */
	ck_assert_int_eq(wdr_alt_rank(&st), 1);
	ck_assert_int_eq(wdr_prefer_earlier(&st), 0); /* nothing free */
	/* b's devices come back */
	wdr_alloc *ab = &st.allocs[0];
	for (int i = 0; i < ab->n; i++)
		st.taken[st.res[ab->first + i].dev]--;
	ab->n = 0;
	ck_assert_int_eq(wdr_prefer_earlier(&st), 1);
	ck_assert_int_eq(wdr_alt_rank(&st), 0);
	const wdr_alloc *aa = &st.allocs[1];
	ck_assert_int_eq(aa->n, 1);
	ck_assert_str_eq(s->dra->devs[st.res[aa->first].dev].name, "gpu-0");
	ck_assert_int_eq(st.taken[st.res[aa->first].dev], 1);
	wa_destroy(ar);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* The common claim shape is allocated and counted directly on device
 * masks (doc/dra.md "Performance"); it must give what the search gives.
 * Template "a" has that shape (count c, maybe a matchAttribute on the
 * PCIe root, a class that may exclude devices); template "b" is the same
 * claim plus a distinctAttribute on the device index, which every device
 * has distinct, so it changes nothing but sends "b" through the search.
 * On random nodes (up to 20 devices: past 16 both search) with random
 * devices taken, both must pick the same devices in the same order, or
 * both fail, and count the same fit.  Placed several at once
 * (wdr_place_n), "a" must take what it takes pod after pod. */
START_TEST(direct_equals_search)
{
	unsigned seed = 7919u * (unsigned)_i + 17u;
	tb b = {0};
	int ndev = 1 + (int)(rand_r(&seed) % 20);
	int count = 1 + (int)(rand_r(&seed) % 4);
	bool match = rand_r(&seed) % 3 != 0;
	const char *cls = rand_r(&seed) % 2 ? "h100" : "gpu";
	char at[20][40];
	const char *atp[20];
	for (int i = 0; i < ndev; i++) {
		snprintf(at[i], sizeof at[i], "%s,r%d,80Gi",
			 rand_r(&seed) % 4 ? "H100" : "A100",
			 (int)(rand_r(&seed) % 3));
		atp[i] = at[i];
	}
	node(&b, "n1", 64, "r1");
	slice(&b, "n1", ndev, atp);
	add(&b, "%s", gpu_class);
	add(&b, "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
	    "metadata: {name: h100}\nspec:\n  selectors:\n  - cel: "
	    "{expression: \"device.attributes['gpu.example.com'].model == "
	    "'H100'\"}\n");
	for (int t = 0; t < 2; t++) {
		add(&b, "---\napiVersion: resource.k8s.io/v1\n"
		    "kind: ResourceClaimTemplate\nmetadata: {name: %s}\n"
		    "spec:\n  spec:\n    devices:\n      requests:\n"
		    "      - name: gpus\n        exactly: {deviceClassName: %s, "
		    "count: %d}\n", t ? "b" : "a", cls, count);
		if (match || t)
			add(&b, "      constraints:\n");
		if (match)
			add(&b, "      - matchAttribute: "
			    "resource.kubernetes.io/pcieRoot\n");
		if (t)
			add(&b, "      - distinctAttribute: "
			    "gpu.example.com/index\n");
	}
	pod(&b, "pa", NULL, 1, "  - {name: g, resourceClaimTemplateName: a}\n");
	pod(&b, "pb", NULL, 1, "  - {name: g, resourceClaimTemplateName: b}\n");
	wasp_snapshot *s = tu_load(b.buf);
	ck_assert_ptr_nonnull(s->dra);
	wa_arena *ar = wa_new();
	wdr_state st;
	ck_assert_int_eq(wdr_state_init(&st, s, ar), 0);
	for (int i = 0; i < ndev; i++)
		st.taken[s->dra->node_devs[i]] = rand_r(&seed) % 3 == 0;
	const ws_dra *d = s->dra;
	const wdr_spec *sa = &d->specs[d->pods[0].c[0].spec];
	const wdr_spec *sb = &d->specs[d->pods[1].c[0].spec];
	ck_assert_int_eq(sb->ncons, sa->ncons + 1);
	wdr_result ra[WDR_MAX_RESULTS], rb[WDR_MAX_RESULTS];
	int na = wdr_alloc_spec(&st, sa, 0, st.taken, NULL, 0, ra,
				WDR_MAX_RESULTS);
	int nb = wdr_alloc_spec(&st, sb, 0, st.taken, NULL, 0, rb,
				WDR_MAX_RESULTS);
	ck_assert_int_eq(na, nb);
	for (int i = 0; i < na; i++)
		ck_assert_int_eq(ra[i].dev, rb[i].dev);
	ck_assert_int_eq(wdr_fit(&st, &d->pods[0], 0, 4096),
			 wdr_fit(&st, &d->pods[1], 0, 4096));
	/* and placed one after another, the two pods' claims stay the
	 * same as long as devices last */
	for (int k = 0; k < 3; k++) {
		int mark = st.nallocs;
		bool pa = wdr_place(&st, 0, 0, 0);
		int ia = st.nallocs - 1;
		int got_a = pa ? st.allocs[ia].n : -1;
		wdr_result keep[WDR_MAX_RESULTS];
		for (int i = 0; i < got_a; i++)
			keep[i] = st.res[st.allocs[ia].first + i];
		wdr_undo(&st, mark);
		bool pb = wdr_place(&st, 1, 1, 0);
		ck_assert_int_eq(pa, pb);
		if (!pb)
			break;
		const wdr_alloc *al = &st.allocs[st.nallocs - 1];
		ck_assert_int_eq(al->n, got_a);
		for (int i = 0; i < got_a; i++)
			ck_assert_int_eq(st.res[al->first + i].dev, keep[i].dev);
	}
	/* wdr_place_n takes the devices wdr_place takes pod after pod;
	 * where wdr_fit_exact holds, wdr_fit counted them */
	wdr_undo(&st, 0);
	int fit = wdr_fit(&st, &d->pods[0], 0, 4096), one = 0;
	while (one < 8 && wdr_place(&st, 0, 0, 0))
		one++;
	int nres = st.nres;
	wdr_result seq[8 * 4];
	ck_assert_int_le(nres, 8 * 4);
	if (nres) /* st.res may be NULL while nothing was placed */
		memcpy(seq, st.res, (size_t)nres * sizeof *seq);
	wdr_undo(&st, 0);
	ck_assert_int_eq(wdr_place_n(&st, 0, 0, 0, 8), one);
	ck_assert_int_eq(st.nres, nres);
	for (int i = 0; i < nres; i++)
		ck_assert_int_eq(st.res[i].dev, seq[i].dev);
	if (wdr_fit_exact(d, &d->pods[0], 0))
		ck_assert_int_eq(fit < 8 ? fit : 8, one);
	wa_destroy(ar);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Greedy preemption with devices: the running pods hold no claim, so
 * evictions free cpu but no device, and the victim search skips a rack
 * whose devices alone hold too few pods (r2: one GPU) and evicts on the
 * rack whose devices suffice (r1). */
START_TEST(preemption_skips_device_short_domains)
{
	tb b = {0};
	node(&b, "n1", 2, "r1");
	node(&b, "n2", 2, "r2");
	slice(&b, "n1", 2, NULL);
	slice(&b, "n2", 1, NULL);
	add(&b, "%s", gpu_class);
	add(&b, "%s", one_tpl);
	for (int i = 1; i <= 2; i++)
		add(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
		    "run%d}\nspec:\n  nodeName: n%d\n  priority: 1\n"
		    "  containers:\n  - name: c\n    resources: {requests: "
		    "{cpu: 2}}\n", i, i);
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: g}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 2}\n  priority: 100\n"
	    "  schedulingConstraints:\n    topology:\n    - key: rack\n");
	for (int i = 0; i < 2; i++)
		add(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: g%d}\n"
		    "spec:\n  priority: 100\n  schedulingGroup: {podGroupName: "
		    "g}\n  containers:\n  - name: c\n    resources: "
		    "{requests: {cpu: 1}}\n  resourceClaims:\n"
		    "  - {name: x, resourceClaimTemplateName: one}\n", i);
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_int_eq(p->nplace, 2);
	ck_assert_str_eq(tu_node_of(p, "default", "g0"), "n1");
	ck_assert_int_eq(p->nevict, 1);
	ck_assert_str_eq(p->evict[0].pod, "run1");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

/* Random small instances whose claims the ILP models exactly: per-pod
 * claims with firstAvailable alternatives, matchAttribute partitions
 * (also inside alternatives), two requests per claim, and PodGroup
 * claims (one device, or two sharing a root).  The ILP allocates its own
 * answer (no "claim by claim" warning: the fallback is unused), is
 * optimal, never worse than greedy, passes the verifier (tu_solve), and
 * cbc on the exported LP and glpsol on models/wasp.mod agree with it. */
START_TEST(exact_random)
{
	uint64_t rs = 5000 + (uint64_t)_i;
	tb b = {0};
	random_nodes(&b, &rs);
	add(&b, "%s", one_tpl);
	static const char *const h100 =
	    "          selectors:\n          - cel: {expression: \"device."
	    "attributes['gpu.example.com'].model == 'H100'\"}\n";
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pair}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: g\n        exactly: {deviceClassName: gpu, "
	    "count: 2}\n      constraints:\n      - matchAttribute: "
	    "resource.kubernetes.io/pcieRoot\n");
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: pref}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: gpu\n        firstAvailable:\n"
	    "        - name: h\n          deviceClassName: gpu\n"
	    "          count: 2\n%s"
	    "        - name: any\n          deviceClassName: gpu\n", h100);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: mix}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: a\n        exactly:\n          deviceClassName: gpu\n"
	    "%s"
	    "      - name: b\n        exactly: {deviceClassName: gpu}\n",
	    h100);
	add(&b, "---\napiVersion: resource.k8s.io/v1\n"
	    "kind: ResourceClaimTemplate\nmetadata: {name: prefpair}\n"
	    "spec:\n  spec:\n    devices:\n      requests:\n"
	    "      - name: gpu\n        firstAvailable:\n"
	    "        - name: h\n          deviceClassName: gpu\n"
	    "          count: 2\n%s"
	    "        - name: any\n          deviceClassName: gpu\n"
	    "          count: 2\n"
	    "      constraints:\n      - matchAttribute: "
	    "resource.kubernetes.io/pcieRoot\n", h100);
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: team}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 2}\n  priority: 50\n  resourceClaims:\n"
	    "  - {name: s, resourceClaimTemplateName: one}\n");
	add(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: crew}\nspec:\n  schedulingPolicy:\n"
	    "    gang: {minCount: 2}\n  priority: 20\n  resourceClaims:\n"
	    "  - {name: s, resourceClaimTemplateName: pair}\n");
	static const char *const tpls[] = {"one", "pair", "pref", "mix",
					   "prefpair"};
	int np = 2 + (int)(rs_next(&rs) % 5);
	for (int i = 0; i < np; i++)
		add(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\n"
		    "spec:\n  priority: %d\n  containers:\n  - name: c\n"
		    "    resources: {requests: {cpu: %d}}\n"
		    "  resourceClaims:\n  - {name: x, "
		    "resourceClaimTemplateName: %s}\n", i,
		    (int)(rs_next(&rs) % 3) * 10,
		    1 + (int)(rs_next(&rs) % 4), tpls[rs_next(&rs) % 5]);
	for (int i = 0; i < 2; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "t%d", i);
		pod(&b, nm, "team", 2,
		    "  - {name: s, resourceClaimTemplateName: one}\n"
		    "  - {name: own, resourceClaimTemplateName: pref}\n");
		snprintf(nm, sizeof nm, "c%d", i);
		pod(&b, nm, "crew", 1,
		    "  - {name: s, resourceClaimTemplateName: pair}\n");
	}
	wasp_snapshot *s = tu_load(b.buf);
	wasp_plan *g = tu_solve_mode(s, WASP_MODE_GREEDY);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.time_limit_s = 20;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_msg(wp_value_cmp(&p->sum.tiers, &g->sum.tiers) >= 0,
		      "seed %d: ILP worse than greedy", _i);
	ck_assert_str_eq(p->sum.status, "optimal");
	if (getenv("WASP_KEEP"))
		fprintf(stderr, "seed %d: ilp %s greedy\n", _i,
			wp_value_cmp(&p->sum.tiers, &g->sum.tiers) > 0
			    ? "beats" : "equals");
	for (int i = 0; i < p->nwarnings; i++)
		ck_assert_msg(!strstr(p->warnings[i], "claim by claim"),
			      "seed %d: %s", _i, p->warnings[i]);
	if (tu_placed_in_group(p, "default", "team") == 2)
		ck_assert_str_eq(tu_node_of(p, "default", "t0"),
				 tu_node_of(p, "default", "t1"));
	cross_check(s, p->sum.objective, _i);
	wasp_plan_free(g);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	free(b.buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dra");
	TCase *t = tcase_create("decode");
	tcase_add_test(t, corpus_files);
	tcase_add_test(t, decode_errors_and_v1beta1);
	tcase_add_test(t, pools_and_reach);
	tcase_add_test(t, exact_count_per_node);
	tcase_add_test(t, match_attribute_partition);
	tcase_add_test(t, first_available_fallback);
	tcase_add_test(t, group_claim_colocates);
	tcase_add_test(t, group_claim_too_big_waits);
	tcase_add_test(t, existing_allocation_blocks);
	tcase_add_test(t, verifier_catches_device_errors);
	tcase_add_test(t, distinct_all_and_preference);
	tcase_add_test(t, shared_resourceclaim_and_cel_error);
	tcase_add_test(t, generated_instance);
	tcase_add_test(t, roundtrip_and_per_device);
	tcase_add_test(t, decode_refusals);
	tcase_add_test(t, ilp_beats_greedy_with_devices);
	tcase_add_loop_test(t, random_instances, 0, 40);
	tcase_add_loop_test(t, exact_random, 0, 40);
	tcase_add_test(t, first_available_ilp);
	tcase_add_test(t, verifier_flags_needless_alternative);
	tcase_add_test(t, prefer_earlier_pass);
	tcase_add_test(t, preemption_skips_device_short_domains);
	tcase_add_loop_test(t, direct_equals_search, 0, 60);
	suite_add_tcase(s, t);
	return tu_run(s);
}
