/*
 * gen.c -- deterministic instance generator behind `wasp gen`.
 *
 * Builds a fat-tree GPU cluster (up to three labelled levels above the
 * host), fills about `busy` of its GPUs with running pods scattered at
 * random (so racks end up fragmented, as in real clusters), and adds pending
 * gangs of mixed sizes, priorities and topology constraints.  The result is
 * written as ordinary Kubernetes manifests, YAML documents or a kubectl-style
 * JSON List, through one small emitter so both syntaxes carry the same
 * objects.  All randomness comes from a local splitmix64 stream seeded by
 * the options: same options, same bytes, everywhere.
 *
 * Output goes into one growable buffer (doubling), so 100,000 pods cost
 * linear time.
 */
#include "gen/gen.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/rng.h"

/* ------------------------------------------------------------ PRNG */

/* Uniform in [0, n), n >= 1 (multiply-shift: no modulo bias to speak of,
 * and the same on every platform). */
static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)wrng_next(s) * n) >> 64);
}

/* Uniform in [0, 1). */
static double rnd_unit(uint64_t *s)
{
	return wrng_unit(s);
}

/* ------------------------------------------------------------ buffer */

typedef struct gbuf {
	char *p;
	size_t n, cap;
	int oom;
} gbuf;

static int gb_reserve(gbuf *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->n + more + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->n + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void gb_put(gbuf *b, const char *s, size_t n)
{
	if (gb_reserve(b, n))
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void gb_puts(gbuf *b, const char *s)
{
	gb_put(b, s, strlen(s));
}

static void gb_spaces(gbuf *b, int n)
{
	static const char sp[] = "                                        ";
	while (n > 0) {
		int k = n < 40 ? n : 40;
		gb_put(b, sp, (size_t)k);
		n -= k;
	}
}

/* ------------------------------------------------------------ emitter */

/*
 * One writer for both syntaxes.  YAML comes out in kubectl's block style
 * (sequence items at their key's indentation); JSON is indented by two.
 * Containers must not be empty (the generator never asks for one).
 */
enum { EM_MAP, EM_SEQ };

#define EM_DEPTH 16

typedef struct emitter {
	gbuf b;
	int json;
	int ndocs;
	int top; /* index of the innermost open container, -1: none */
	struct em_level {
		int type;
		int indent; /* YAML: column of entries; JSON: indentation */
		int count;
		int dash;   /* YAML map opened as a sequence item */
	} st[EM_DEPTH];
} emitter;

static int yaml_needs_quotes(const char *s)
{
	static const char *const words[] = {
	    "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"};
	if (!*s || strchr("!&*#?|>@`'\"%{}[], ", *s))
		return 1;
	/* digits, signs, dots, exponents, colons: YAML may read a number
	 * (8, 1.5, 2e3, 1_000, 12:30); "512Gi" stays a plain string */
	if (strchr("0123456789-+.", *s) &&
	    strspn(s, "0123456789-+._:eExXoOabcdefABCDEF") == strlen(s))
		return 1;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	if (strstr(s, ": ") || strstr(s, " #") || strchr(s, '"') ||
	    strchr(s, '\\'))
		return 1;
	size_t n = strlen(s);
	return s[n - 1] == ':' || s[n - 1] == ' ';
}

static void put_quoted(gbuf *b, const char *s)
{
	gb_put(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			gb_put(b, "\\", 1);
		gb_put(b, s, 1);
	}
	gb_put(b, "\"", 1);
}

/* Start an entry of the current container: key (NULL for a sequence
 * item).  YAML leaves the cursor after "key:" or "- "; JSON after
 * `"key": `. */
static void em_entry(emitter *e, const char *key)
{
	gbuf *b = &e->b;
	if (e->top < 0)
		return;
	struct em_level *c = &e->st[e->top];
	if (e->json) {
		gb_puts(b, c->count ? ",\n" : "\n");
		gb_spaces(b, c->indent);
		if (key) {
			put_quoted(b, key);
			gb_puts(b, ": ");
		}
	} else if (c->type == EM_SEQ) {
		gb_spaces(b, c->indent);
		gb_puts(b, "- ");
	} else {
		if (c->dash) {
			/* the "- " was written when the item opened */
			c->dash = 0;
		} else {
			gb_spaces(b, c->indent);
		}
		gb_puts(b, key);
		gb_puts(b, ":");
	}
	c->count++;
}

static void em_push(emitter *e, int type, int indent, int dash)
{
	if (e->top + 1 >= EM_DEPTH) {
		e->b.oom = 1; /* a bug, not an input: make it fail loudly */
		return;
	}
	e->top++;
	e->st[e->top].type = type;
	e->st[e->top].indent = indent;
	e->st[e->top].count = 0;
	e->st[e->top].dash = dash;
}

static void em_open(emitter *e, int type, const char *key)
{
	gbuf *b = &e->b;
	int parent_indent = e->top >= 0 ? e->st[e->top].indent : 0;
	int parent_seq = e->top >= 0 && e->st[e->top].type == EM_SEQ;
	em_entry(e, key);
	if (e->json) {
		gb_puts(b, type == EM_MAP ? "{" : "[");
		em_push(e, type, parent_indent + 2, 0);
	} else if (parent_seq) {
		/* "- " is out; a map's first key follows on this line */
		if (type == EM_MAP) {
			em_push(e, EM_MAP, parent_indent + 2, 1);
		} else {
			gb_puts(b, "\n");
			em_push(e, EM_SEQ, parent_indent + 2, 0);
		}
	} else {
		gb_puts(b, "\n");
		em_push(e, type,
			type == EM_MAP ? parent_indent + 2 : parent_indent, 0);
	}
}

static void em_map(emitter *e, const char *key)
{
	em_open(e, EM_MAP, key);
}

static void em_seq(emitter *e, const char *key)
{
	em_open(e, EM_SEQ, key);
}

static void em_end(emitter *e)
{
	if (e->top < 0)
		return;
	if (e->json) {
		int type = e->st[e->top].type;
		int indent = e->st[e->top].indent;
		if (e->st[e->top].count) {
			gb_puts(&e->b, "\n");
			gb_spaces(&e->b, indent - 2);
		}
		gb_puts(&e->b, type == EM_MAP ? "}" : "]");
	}
	e->top--;
}

static void em_str(emitter *e, const char *key, const char *val)
{
	em_entry(e, key);
	if (e->json) {
		put_quoted(&e->b, val);
		return;
	}
	if (key)
		gb_puts(&e->b, " ");
	if (yaml_needs_quotes(val))
		put_quoted(&e->b, val);
	else
		gb_puts(&e->b, val);
	gb_puts(&e->b, "\n");
}

static void em_bool(emitter *e, const char *key, int v)
{
	em_entry(e, key);
	if (!e->json && key)
		gb_puts(&e->b, " ");
	gb_puts(&e->b, v ? "true" : "false");
	if (!e->json)
		gb_puts(&e->b, "\n");
}

static void em_int(emitter *e, const char *key, long long v)
{
	char num[32];
	snprintf(num, sizeof num, "%lld", v);
	em_entry(e, key);
	if (!e->json && key)
		gb_puts(&e->b, " ");
	gb_puts(&e->b, num);
	if (!e->json)
		gb_puts(&e->b, "\n");
}

/* A top-level object: a YAML document, or an item of the JSON List. */
static void em_doc(emitter *e)
{
	if (e->json) {
		em_map(e, NULL);
	} else {
		if (e->ndocs)
			gb_puts(&e->b, "---\n");
		em_push(e, EM_MAP, 0, 0);
	}
	e->ndocs++;
}

/* A top-level object's head: apiVersion, kind and metadata (name, and
 * namespace unless ns is NULL). */
static void em_head(emitter *e, const char *api, const char *kind,
		    const char *name, const char *ns)
{
	em_doc(e);
	em_str(e, "apiVersion", api);
	em_str(e, "kind", kind);
	em_map(e, "metadata");
	em_str(e, "name", name);
	if (ns)
		em_str(e, "namespace", ns);
	em_end(e);
}

static void em_begin(emitter *e, int json)
{
	memset(e, 0, sizeof *e);
	e->json = json;
	e->top = -1;
	if (json) {
		em_push(e, EM_MAP, 0, 0);
		gb_puts(&e->b, "{");
		e->st[0].indent = 2;
		em_str(e, "apiVersion", "v1");
		em_str(e, "kind", "List");
		em_seq(e, "items");
	}
}

static void em_finish(emitter *e)
{
	if (e->json) {
		em_end(e); /* items */
		em_end(e); /* the List */
		gb_puts(&e->b, "\n");
	}
}

/* resources.limits: k nvidia.com/gpu. */
static void em_gpu_limit(emitter *e, int k)
{
	char q[16];
	snprintf(q, sizeof q, "%d", k);
	em_map(e, "limits");
	em_str(e, "nvidia.com/gpu", q);
	em_end(e);
}

/* Close a pod's resources, container, containers and spec; its phase. */
static void em_pod_end(emitter *e, int running)
{
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
	em_map(e, "status");
	em_str(e, "phase", running ? "Running" : "Pending");
	em_end(e);
	em_end(e);
}

/* ------------------------------------------------------------ cluster */

/* Label keys for the levels above the host, coarse to fine; --levels L
 * uses the last L. */
static const char *const level_key[3] = {
    "example.com/superblock", "example.com/block", "example.com/rack"};
static const char *const level_prefix[3] = {"sb", "b", "r"};

#define HOST_KEY "kubernetes.io/hostname"
#define NODE_CPU_M 64000LL
#define NODE_MEM_GI 512LL
#define NODE_PODS 110
#define RUN_PODS_PER_NODE 100 /* leave room under the pods limit */

typedef struct gen {
	const wasp_gen_options *o;
	uint64_t rng;
	emitter em;
	int levels, fanout;
	int nracks, per_rack, nnodes;
	int slots;      /* scheduling units per node: GPUs, or 8 CPU slots */
	int namew;      /* digits in node names                           */
	int npc;
	char pc_name[WGEN_MAX_PRIORITIES][16];
	int pc_value[WGEN_MAX_PRIORITIES];
	const char *parent; /* emit_podgroup: the parent composite, or NULL */
	int *dev_next;  /* --dra: next unallocated device per node       */
} gen;

static void node_name(const gen *g, int i, char *buf, size_t size)
{
	snprintf(buf, size, "node-%0*d", g->namew, i);
}

/* Domain value of node i at level j (0 = coarsest of the used levels):
 * global indices, so value and path domain modes read the same. */
static void dom_value(const gen *g, int i, int j, char *buf, size_t size)
{
	int rack = i / g->per_rack;
	int div = 1;
	for (int k = j + 1; k < g->levels; k++)
		div *= g->fanout;
	snprintf(buf, size, "%s%d", level_prefix[3 - g->levels + j],
		 rack / div);
}

/* Requests for `k` slots: GPUs plus CPU and memory in proportion, leaving
 * 8 CPUs and 64Gi of every node to the system so GPUs bind first. */
static void emit_requests(gen *g, const char *key, int k, int with_gpu)
{
	emitter *e = &g->em;
	char q[32];
	em_map(e, key);
	long long cpu_m = (NODE_CPU_M - 8000) * k / g->slots;
	if (cpu_m % 1000 == 0)
		snprintf(q, sizeof q, "%lld", cpu_m / 1000);
	else
		snprintf(q, sizeof q, "%lldm", cpu_m);
	em_str(e, "cpu", q);
	long long mem_mi = (NODE_MEM_GI - 64) * 1024 * k / g->slots;
	if (mem_mi % 1024 == 0)
		snprintf(q, sizeof q, "%lldGi", mem_mi / 1024);
	else
		snprintf(q, sizeof q, "%lldMi", mem_mi);
	em_str(e, "memory", q);
	if (with_gpu && g->o->gpus_per_node > 0 && !g->o->dra) {
		snprintf(q, sizeof q, "%d", k);
		em_str(e, "nvidia.com/gpu", q);
	}
	em_end(e);
}

static void emit_topology(gen *g)
{
	emitter *e = &g->em;
	em_head(e, "kueue.x-k8s.io/v1beta2", "Topology", "gpu-cluster", NULL);
	em_map(e, "spec");
	em_seq(e, "levels");
	for (int j = 0; j < g->levels; j++) {
		em_map(e, NULL);
		em_str(e, "nodeLabel", level_key[3 - g->levels + j]);
		em_end(e);
	}
	em_map(e, NULL);
	em_str(e, "nodeLabel", HOST_KEY);
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
}

static void emit_priority_classes(gen *g)
{
	static const char *const names[4][4] = {
	    {"normal"},
	    {"low", "high"},
	    {"low", "medium", "high"},
	    {"low", "medium", "high", "critical"}};
	emitter *e = &g->em;
	g->npc = g->o->priorities;
	for (int i = 0; i < g->npc; i++) {
		if (g->npc <= 4)
			snprintf(g->pc_name[i], sizeof g->pc_name[i], "%s",
				 names[g->npc - 1][i]);
		else
			snprintf(g->pc_name[i], sizeof g->pc_name[i],
				 "prio-%02d", i);
		g->pc_value[i] = 1000 * (i + 1);
		em_head(e, "scheduling.k8s.io/v1", "PriorityClass",
			g->pc_name[i], NULL);
		em_int(e, "value", g->pc_value[i]);
		em_bool(e, "globalDefault", 0);
		em_str(e, "description", "generated by wasp gen");
		em_end(e);
	}
}

static void emit_node_resources(gen *g, const char *key)
{
	emitter *e = &g->em;
	char q[32];
	em_map(e, key);
	snprintf(q, sizeof q, "%lld", NODE_CPU_M / 1000);
	em_str(e, "cpu", q);
	snprintf(q, sizeof q, "%lldGi", NODE_MEM_GI);
	em_str(e, "memory", q);
	snprintf(q, sizeof q, "%d", NODE_PODS);
	em_str(e, "pods", q);
	if (g->o->gpus_per_node > 0 && !g->o->dra) {
		snprintf(q, sizeof q, "%d", g->o->gpus_per_node);
		em_str(e, "nvidia.com/gpu", q);
	}
	em_end(e);
}

/* spec.devices, left open, and its one request: k GPUs of class gpu,
 * exactly. */
static void em_gpu_request(emitter *e, int k)
{
	em_map(e, "devices");
	em_seq(e, "requests");
	em_map(e, NULL);
	em_str(e, "name", "gpus");
	em_map(e, "exactly");
	em_str(e, "deviceClassName", "gpu");
	em_int(e, "count", k);
	em_end(e);
	em_end(e);
	em_end(e);
}

/* --dra: one DeviceClass, a claim template per pod shape k (a pair of
 * roots' worth or less shares one pcieRoot), a node-local slice per node
 * with two PCIe roots. */
#define DRA_DRIVER "gpu.example.com"

static void emit_dra_common(gen *g)
{
	emitter *e = &g->em;
	em_head(e, "resource.k8s.io/v1", "DeviceClass", "gpu", NULL);
	em_map(e, "spec");
	em_seq(e, "selectors");
	em_map(e, NULL);
	em_map(e, "cel");
	em_str(e, "expression", "device.driver == '" DRA_DRIVER "'");
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
	int S = g->slots;
	int shapes[4] = {S, S / 2, S / 4, 1};
	for (int i = 0; i < 4; i++) {
		int k = shapes[i];
		if (k < 1 || (i > 0 && k == shapes[i - 1]))
			continue;
		char name[32];
		snprintf(name, sizeof name, "gpu-%d", k);
		em_head(e, "resource.k8s.io/v1", "ResourceClaimTemplate", name,
			"train");
		em_map(e, "spec");
		em_map(e, "spec");
		em_gpu_request(e, k);
		if (k > 1 && k <= S / 2) {
			em_seq(e, "constraints");
			em_map(e, NULL);
			em_str(e, "matchAttribute",
			       "resource.kubernetes.io/pcieRoot");
			em_end(e);
			em_end(e);
		}
		em_end(e);
		em_end(e);
		em_end(e);
		em_end(e);
	}
}

static void emit_slice(gen *g, const char *node)
{
	emitter *e = &g->em;
	char name[64];
	snprintf(name, sizeof name, "%s-gpus", node);
	em_head(e, "resource.k8s.io/v1", "ResourceSlice", name, NULL);
	em_map(e, "spec");
	em_str(e, "driver", DRA_DRIVER);
	em_str(e, "nodeName", node);
	em_map(e, "pool");
	em_str(e, "name", node);
	em_int(e, "generation", 1);
	em_int(e, "resourceSliceCount", 1);
	em_end(e);
	em_seq(e, "devices");
	for (int d = 0; d < g->o->gpus_per_node; d++) {
		char dn[32], root[32];
		snprintf(dn, sizeof dn, "gpu-%d", d);
		snprintf(root, sizeof root, "pci-%d",
			 d < g->o->gpus_per_node / 2 ? 0 : 1);
		em_map(e, NULL);
		em_str(e, "name", dn);
		em_map(e, "attributes");
		em_map(e, "model");
		em_str(e, "string", "H100");
		em_end(e);
		em_map(e, "index");
		em_int(e, "int", d);
		em_end(e);
		em_map(e, "resource.kubernetes.io/pcieRoot");
		em_str(e, "string", root);
		em_end(e);
		em_end(e);
		em_map(e, "capacity");
		em_map(e, "memory");
		em_str(e, "value", "80Gi");
		em_end(e);
		em_end(e);
		em_end(e);
	}
	em_end(e);
	em_end(e);
	em_end(e);
}

/* The claim of a running pod: k devices of its node, allocated. */
static void emit_run_claim(gen *g, const char *pod, int node, int k)
{
	emitter *e = &g->em;
	char name[64], nn[32];
	snprintf(name, sizeof name, "%s-gpu", pod);
	node_name(g, node, nn, sizeof nn);
	em_head(e, "resource.k8s.io/v1", "ResourceClaim", name, "serve");
	em_map(e, "spec");
	em_gpu_request(e, k);
	em_end(e);
	em_end(e);
	em_map(e, "status");
	em_map(e, "allocation");
	em_map(e, "devices");
	em_seq(e, "results");
	for (int i = 0; i < k; i++) {
		char dn[32];
		snprintf(dn, sizeof dn, "gpu-%d", g->dev_next[node]++);
		em_map(e, NULL);
		em_str(e, "request", "gpus");
		em_str(e, "driver", DRA_DRIVER);
		em_str(e, "pool", nn);
		em_str(e, "device", dn);
		em_end(e);
	}
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
}

/* A Node's opening, shared by every family: the object up to its topology
 * and hostname labels, with the labels map left open for more. */
static void node_head(gen *g, int i, char *name, size_t size)
{
	emitter *e = &g->em;
	char val[32];
	node_name(g, i, name, size);
	em_doc(e);
	em_str(e, "apiVersion", "v1");
	em_str(e, "kind", "Node");
	em_map(e, "metadata");
	em_str(e, "name", name);
	em_map(e, "labels");
	for (int j = 0; j < g->levels; j++) {
		dom_value(g, i, j, val, sizeof val);
		em_str(e, level_key[3 - g->levels + j], val);
	}
	em_str(e, HOST_KEY, name);
}

static void emit_nodes(gen *g)
{
	emitter *e = &g->em;
	char name[32];
	for (int i = 0; i < g->nnodes; i++) {
		node_head(g, i, name, sizeof name);
		em_end(e);
		em_end(e);
		em_map(e, "status");
		emit_node_resources(g, "capacity");
		emit_node_resources(g, "allocatable");
		em_seq(e, "conditions");
		em_map(e, NULL);
		em_str(e, "type", "Ready");
		em_str(e, "status", "True");
		em_end(e);
		em_end(e);
		em_end(e);
		em_end(e);
		if (g->o->dra && g->o->gpus_per_node > 0)
			emit_slice(g, name);
	}
}

static void emit_podgroup_x(gen *g, const char *ns, const char *name,
			    int min_count, const char *topo_key, int pc,
			    int all);

static void emit_podgroup(gen *g, const char *ns, const char *name,
			  int min_count, const char *topo_key, int pc)
{
	emit_podgroup_x(g, ns, name, min_count, topo_key, pc, 0);
}

/* all: disruptionMode all (the group is preempted whole). */
static void emit_podgroup_x(gen *g, const char *ns, const char *name,
			    int min_count, const char *topo_key, int pc,
			    int all)
{
	emitter *e = &g->em;
	em_head(e, "scheduling.k8s.io/v1beta1", "PodGroup", name, ns);
	em_map(e, "spec");
	em_map(e, "schedulingPolicy");
	em_map(e, "gang");
	em_int(e, "minCount", min_count);
	em_end(e);
	em_end(e);
	if (g->parent)
		em_str(e, "parentCompositePodGroupName", g->parent);
	if (topo_key) {
		em_map(e, "schedulingConstraints");
		em_seq(e, "topology");
		em_map(e, NULL);
		em_str(e, "key", topo_key);
		em_end(e);
		em_end(e);
		em_end(e);
	}
	if (all) {
		em_map(e, "disruptionMode");
		em_map(e, "all");
		em_end(e);
		em_end(e);
	}
	em_str(e, "priorityClassName", g->pc_name[pc]);
	em_int(e, "priority", g->pc_value[pc]);
	em_end(e);
	em_end(e);
}

static void emit_pod(gen *g, const char *ns, const char *name,
		     const char *group, int pc, int k, const char *node)
{
	emitter *e = &g->em;
	em_head(e, "v1", "Pod", name, ns);
	em_map(e, "spec");
	if (node)
		em_str(e, "nodeName", node);
	if (group) {
		em_map(e, "schedulingGroup");
		em_str(e, "podGroupName", group);
		em_end(e);
	}
	em_str(e, "priorityClassName", g->pc_name[pc]);
	em_int(e, "priority", g->pc_value[pc]);
	if (g->o->dra && g->o->gpus_per_node > 0) {
		char cn[64];
		em_seq(e, "resourceClaims");
		em_map(e, NULL);
		em_str(e, "name", "gpu");
		if (node) {
			snprintf(cn, sizeof cn, "%s-gpu", name);
			em_str(e, "resourceClaimName", cn);
		} else {
			snprintf(cn, sizeof cn, "gpu-%d", k);
			em_str(e, "resourceClaimTemplateName", cn);
		}
		em_end(e);
		em_end(e);
	}
	em_seq(e, "containers");
	em_map(e, NULL);
	em_str(e, "name", node ? "server" : "worker");
	em_str(e, "image", "registry.example.com/ml/trainer:1.0");
	em_map(e, "resources");
	emit_requests(g, "requests", k, 1);
	if (g->o->gpus_per_node > 0 && !g->o->dra)
		em_gpu_limit(e, k);
	em_pod_end(e, node != NULL);
}

/*
 * The preemption benchmark's running pods: exactly running_pods pods of
 * one GPU on random nodes with room, at the lowest priority, round-robin
 * into running_groups gangs (minCount 1; disruptionMode all when
 * preemptible).
 */
static int emit_running_groups(gen *g)
{
	const wasp_gen_options *o = g->o;
	int n = g->nnodes, S = g->slots, G = o->running_groups;
	int N = o->running_pods;
	char name[48], node[32];
	if (G > 0) {
		for (int i = 0; i < G; i++) {
			snprintf(name, sizeof name, "job-%05d", i);
			emit_podgroup_x(g, "serve", name, 1, NULL, 0,
					o->preemptible);
		}
	}
	int *free_slots = malloc(sizeof *free_slots * (size_t)n);
	int *open = malloc(sizeof *open * (size_t)n);
	int *pos = malloc(sizeof *pos * (size_t)n);
	if (!free_slots || !open || !pos) {
		free(free_slots), free(open), free(pos);
		return -1;
	}
	int nopen = n;
	for (int i = 0; i < n; i++) {
		free_slots[i] = S < RUN_PODS_PER_NODE ? S : RUN_PODS_PER_NODE;
		open[i] = pos[i] = i;
	}
	for (int id = 0; id < N && nopen > 0; id++) {
		int pick = open[rnd_below(&g->rng, (uint64_t)nopen)];
		if (--free_slots[pick] == 0) {
			int p = pos[pick], last = open[--nopen];
			open[p] = last;
			pos[last] = p;
		}
		node_name(g, pick, node, sizeof node);
		char grp[48];
		if (G > 0)
			snprintf(grp, sizeof grp, "job-%05d", id % G);
		snprintf(name, sizeof name, "run-%06d", id);
		if (o->dra && o->gpus_per_node > 0)
			emit_run_claim(g, name, pick, 1);
		/* all running pods at the lowest class, as their groups */
		emit_pod(g, "serve", name, G > 0 ? grp : NULL, 0, 1, node);
	}
	free(free_slots), free(open), free(pos);
	return 0;
}

/*
 * Running pods: sizes 1, 2, 4 or a whole node's slots, each dropped on a
 * random node that still has room, until about `busy` of all slots are
 * taken.  Nodes with room sit in an open list (swap-remove), so every pick
 * is O(1) even at busy = 1.
 */
static int emit_running(gen *g)
{
	int n = g->nnodes, S = g->slots;
	long long total = (long long)n * S;
	long long target = (long long)(g->o->busy * (double)total + 0.5);
	int *free_slots = malloc(sizeof *free_slots * (size_t)n);
	int *npods = calloc((size_t)n, sizeof *npods);
	int *open = malloc(sizeof *open * (size_t)n);
	int *pos = malloc(sizeof *pos * (size_t)n);
	if (!free_slots || !npods || !open || !pos) {
		free(free_slots), free(npods), free(open), free(pos);
		return -1;
	}
	int nopen = n;
	for (int i = 0; i < n; i++) {
		free_slots[i] = S;
		open[i] = pos[i] = i;
	}
	long long used = 0;
	int id = 0;
	char name[48], node[32];
	while (used < target && nopen > 0) {
		int sizes[4] = {1, 2, 4, S};
		int k = sizes[rnd_below(&g->rng, 4)];
		if (k > S)
			k = S;
		if (k > target - used)
			k = (int)(target - used);
		int pick = -1;
		for (int t = 0; t < 8 && pick < 0; t++) {
			int i = open[rnd_below(&g->rng, (uint64_t)nopen)];
			if (free_slots[i] >= k)
				pick = i;
		}
		if (pick < 0) {
			pick = open[rnd_below(&g->rng, (uint64_t)nopen)];
			k = free_slots[pick];
		}
		free_slots[pick] -= k;
		npods[pick]++;
		used += k;
		if (free_slots[pick] == 0 || npods[pick] >= RUN_PODS_PER_NODE) {
			int p = pos[pick], last = open[--nopen];
			open[p] = last;
			pos[last] = p;
		}
		/* mostly low priorities hold the running capacity */
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		if (pc > 0 && rnd_unit(&g->rng) < 0.5)
			pc = 0;
		snprintf(name, sizeof name, "run-%06d", id);
		node_name(g, pick, node, sizeof node);
		int grouped = rnd_unit(&g->rng) < 0.4;
		if (grouped)
			emit_podgroup(g, "serve", name, 1, NULL, pc);
		if (g->o->dra && g->o->gpus_per_node > 0)
			emit_run_claim(g, name, pick, k);
		emit_pod(g, "serve", name, grouped ? name : NULL, pc, k, node);
		id++;
	}
	free(free_slots), free(npods), free(open), free(pos);
	return 0;
}

/*
 * Pending gangs: pods of one shape (a whole node's GPUs, half, a quarter,
 * or one), sizes favouring powers of two, minCount the size or a little
 * less, a rack or block constraint or none.  A constraint that no domain
 * could ever hold is widened, so most gangs are placeable in principle and
 * the interesting question is which ones fit together.
 */
static void emit_gangs(gen *g)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots;
	long long rack_cap = (long long)g->per_rack * S;
	long long block_cap = g->levels >= 2 ? rack_cap * g->fanout : 0;
	char name[48], pod[64];
	for (int i = 0; i < o->gangs; i++) {
		int shapes[4] = {S, S / 2, S / 4, 1};
		double u = rnd_unit(&g->rng);
		int k = shapes[u < 0.4 ? 0 : u < 0.65 ? 1 : u < 0.8 ? 2 : 3];
		if (k < 1)
			k = 1;
		int size;
		if (o->max_gang <= 2) {
			size = o->max_gang;
		} else if (rnd_unit(&g->rng) < 0.6) {
			int maxe = 1;
			while ((2 << maxe) <= o->max_gang)
				maxe++;
			size = 1 << (1 + rnd_below(&g->rng, (uint64_t)maxe));
		} else {
			size = 2 + (int)rnd_below(&g->rng,
						  (uint64_t)(o->max_gang - 1));
		}
		int min_count = size;
		if (rnd_unit(&g->rng) < 0.3)
			min_count -= (int)rnd_below(&g->rng,
						    (uint64_t)(size / 4 + 1));
		const char *key = NULL;
		u = rnd_unit(&g->rng);
		if (u < 0.45)
			key = level_key[2];
		else if (u < 0.7)
			key = g->levels >= 2 ? level_key[1] : level_key[2];
		long long need = (long long)min_count * k;
		if (key == level_key[2] && need > rack_cap)
			key = block_cap >= need ? level_key[1] : NULL;
		if (key == level_key[1] && need > block_cap)
			key = NULL;
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		if (o->preemptible)
			pc = g->npc - 1;
		snprintf(name, sizeof name, "gang-%05d", i);
		emit_podgroup(g, "train", name, min_count, key, pc);
		for (int j = 0; j < size; j++) {
			snprintf(pod, sizeof pod, "%s-%d", name, j);
			emit_pod(g, "train", pod, name, pc, k, NULL);
		}
	}
}

/* ------------------------------------------------------------ families */

/*
 * The families other than gpu share the emitter and the cluster tree above
 * but have their own node, running-pod and pending-pod writers, so that the
 * gpu family's bytes (and its PRNG stream) stay exactly as they were.
 */

#define CPU_SLOTS 8 /* a CPU-only node is cut into 8 slots of 7 CPUs */
#define POOL_KEY "example.com/pool"
#define GPU_TAINT "nvidia.com/gpu"

/* Is node i CPU-only (mixed family)?  Spread evenly, deterministically. */
static int is_cpu_node(const gen *g, int i)
{
	if (g->o->family != WGEN_FAMILY_MIXED)
		return 0;
	double f = g->o->cpu_nodes;
	return (long long)((i + 1) * f) > (long long)(i * f);
}

static int node_slots(const gen *g, int i)
{
	return is_cpu_node(g, i) ? CPU_SLOTS : g->slots;
}

static void emit_cpu_requests(gen *g, int k)
{
	emitter *e = &g->em;
	char q[32];
	em_map(e, "requests");
	snprintf(q, sizeof q, "%lld", (NODE_CPU_M - 8000) * k / CPU_SLOTS /
		 1000);
	em_str(e, "cpu", q);
	snprintf(q, sizeof q, "%lldGi", (NODE_MEM_GI - 64) * k / CPU_SLOTS);
	em_str(e, "memory", q);
	em_end(e);
}

static void emit_node_res_x(gen *g, const char *key, int gpu)
{
	emitter *e = &g->em;
	char q[32];
	em_map(e, key);
	snprintf(q, sizeof q, "%lld", NODE_CPU_M / 1000);
	em_str(e, "cpu", q);
	snprintf(q, sizeof q, "%lldGi", NODE_MEM_GI);
	em_str(e, "memory", q);
	snprintf(q, sizeof q, "%d", NODE_PODS);
	em_str(e, "pods", q);
	if (gpu && g->o->gpus_per_node > 0) {
		snprintf(q, sizeof q, "%d", g->o->gpus_per_node);
		em_str(e, "nvidia.com/gpu", q);
	}
	em_end(e);
}

static void emit_nodes_x(gen *g)
{
	emitter *e = &g->em;
	int mixed = g->o->family == WGEN_FAMILY_MIXED;
	char name[32];
	for (int i = 0; i < g->nnodes; i++) {
		int cpu = is_cpu_node(g, i);
		node_head(g, i, name, sizeof name);
		if (mixed)
			em_str(e, POOL_KEY, cpu ? "cpu" : "gpu");
		em_end(e);
		em_end(e);
		if (mixed && !cpu) {
			/* GPU nodes repel everything that does not ask */
			em_map(e, "spec");
			em_seq(e, "taints");
			em_map(e, NULL);
			em_str(e, "key", GPU_TAINT);
			em_str(e, "value", "present");
			em_str(e, "effect", "NoSchedule");
			em_end(e);
			em_end(e);
			em_end(e);
		}
		em_map(e, "status");
		emit_node_res_x(g, "capacity", !cpu);
		emit_node_res_x(g, "allocatable", !cpu);
		em_seq(e, "conditions");
		em_map(e, NULL);
		em_str(e, "type", "Ready");
		em_str(e, "status", "True");
		em_end(e);
		em_end(e);
		em_end(e);
		em_end(e);
	}
}

/* A basic-policy PodGroup: pods scheduled one by one, no gang. */
static void emit_basic_group(gen *g, const char *ns, const char *name, int pc)
{
	emitter *e = &g->em;
	em_head(e, "scheduling.k8s.io/v1beta1", "PodGroup", name, ns);
	em_map(e, "spec");
	em_map(e, "schedulingPolicy");
	em_entry(e, "basic");
	gb_puts(&e->b, e->json ? "{}" : " {}\n");
	em_end(e);
	em_str(e, "priorityClassName", g->pc_name[pc]);
	em_int(e, "priority", g->pc_value[pc]);
	em_end(e);
	em_end(e);
}

/* A pod of the new families: `k` GPUs (or, cpu_only, k CPU slots), on
 * `node` (running) or pending; GPU pods of the mixed family tolerate the
 * GPU nodes' taint. */
static void emit_pod_x(gen *g, const char *ns, const char *name,
		       const char *group, int pc, int k, int cpu_only,
		       const char *node)
{
	emitter *e = &g->em;
	int gpu = !cpu_only && g->o->gpus_per_node > 0;
	em_head(e, "v1", "Pod", name, ns);
	em_map(e, "spec");
	if (node)
		em_str(e, "nodeName", node);
	if (group) {
		em_map(e, "schedulingGroup");
		em_str(e, "podGroupName", group);
		em_end(e);
	}
	em_str(e, "priorityClassName", g->pc_name[pc]);
	em_int(e, "priority", g->pc_value[pc]);
	if (gpu && g->o->family == WGEN_FAMILY_MIXED) {
		em_seq(e, "tolerations");
		em_map(e, NULL);
		em_str(e, "key", GPU_TAINT);
		em_str(e, "operator", "Exists");
		em_str(e, "effect", "NoSchedule");
		em_end(e);
		em_end(e);
	}
	em_seq(e, "containers");
	em_map(e, NULL);
	em_str(e, "name", node ? "server" : cpu_only ? "app" : "worker");
	em_str(e, "image", cpu_only ? "registry.example.com/web/api:1.0"
				    : "registry.example.com/ml/trainer:1.0");
	em_map(e, "resources");
	if (cpu_only) {
		emit_cpu_requests(g, k);
	} else {
		emit_requests(g, "requests", k, 1);
		if (gpu)
			em_gpu_limit(e, k);
	}
	em_pod_end(e, node != NULL);
}

/* Per-node state of the running pods, shared by the placement phases. */
typedef struct runstate {
	int *free_slots, *npods, *open, *pos;
	int nopen;
	int id; /* next run-NNNNNN */
} runstate;

/* One running pod of k slots on node i (k <= its free slots). */
static void run_one(gen *g, runstate *r, int i, int k)
{
	char name[48], node[32];
	int cpu = is_cpu_node(g, i);
	r->free_slots[i] -= k;
	r->npods[i]++;
	/* mostly low priorities hold the running capacity */
	int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
	if (pc > 0 && rnd_unit(&g->rng) < 0.5)
		pc = 0;
	snprintf(name, sizeof name, "run-%06d", r->id++);
	node_name(g, i, node, sizeof node);
	int grouped = rnd_unit(&g->rng) < 0.4;
	if (grouped)
		emit_podgroup(g, "serve", name, 1, NULL, pc);
	emit_pod_x(g, "serve", name, grouped ? name : NULL, pc, k, cpu, node);
}

/*
 * Fill the candidate nodes `cand` (all of one slot size) with running pods
 * of the given sizes until `target` slots are taken, as emit_running does;
 * returns the slots used.
 */
static long long run_fill(gen *g, runstate *r, const int *cand, int ncand,
			  long long target, const int *sizes, int nsizes)
{
	long long used = 0;
	r->nopen = 0;
	for (int c = 0; c < ncand; c++) {
		int i = cand[c];
		if (r->free_slots[i] > 0 && r->npods[i] < RUN_PODS_PER_NODE) {
			r->pos[i] = r->nopen;
			r->open[r->nopen++] = i;
		}
	}
	while (used < target && r->nopen > 0) {
		int k = sizes[rnd_below(&g->rng, (uint64_t)nsizes)];
		if (k > target - used)
			k = (int)(target - used);
		int pick = -1;
		for (int t = 0; t < 8 && pick < 0; t++) {
			int i = r->open[rnd_below(&g->rng,
						  (uint64_t)r->nopen)];
			if (r->free_slots[i] >= k)
				pick = i;
		}
		if (pick < 0) {
			pick = r->open[rnd_below(&g->rng, (uint64_t)r->nopen)];
			k = r->free_slots[pick];
		}
		run_one(g, r, pick, k);
		used += k;
		if (r->free_slots[pick] == 0 ||
		    r->npods[pick] >= RUN_PODS_PER_NODE) {
			int p = r->pos[pick], last = r->open[--r->nopen];
			r->open[p] = last;
			r->pos[last] = p;
		}
	}
	return used;
}

/* Pod sizes for running pods: 1, 2, 4 and whole nodes, capped at `cap`;
 * returns how many. */
static int run_sizes(int slots, int cap, int *out)
{
	int cand[4] = {1, 2, 4, slots}, n = 0;
	for (int j = 0; j < 4; j++)
		if (cand[j] <= cap && cand[j] <= slots &&
		    (n == 0 || cand[j] > out[n - 1]))
			out[n++] = cand[j];
	return n;
}

/* Gang size in pods, up to `max`: powers of two favoured. */
static int gang_size(gen *g, int max)
{
	if (max <= 2)
		return max;
	if (rnd_unit(&g->rng) < 0.6) {
		int maxe = 1;
		while ((2 << maxe) <= max)
			maxe++;
		return 1 << (1 + rnd_below(&g->rng, (uint64_t)maxe));
	}
	return 2 + (int)rnd_below(&g->rng, (uint64_t)(max - 1));
}

/* Widen a constraint no domain could hold: rack -> block -> none. */
static const char *widen(const gen *g, const char *key, long long need,
			 long long rack_cap, long long block_cap)
{
	if (key == level_key[2] && need > rack_cap)
		key = g->levels >= 2 && block_cap >= need ? level_key[1] : NULL;
	if (key == level_key[1] && need > block_cap)
		key = NULL;
	return key;
}

static void emit_gang_x(gen *g, int i, int size, int min_count, int k,
			const char *key, int pc)
{
	char name[48], pod[64];
	snprintf(name, sizeof name, "gang-%05d", i);
	emit_podgroup(g, "train", name, min_count, key, pc);
	for (int j = 0; j < size; j++) {
		snprintf(pod, sizeof pod, "%s-%d", name, j);
		emit_pod_x(g, "train", pod, name, pc, k, 0, NULL);
	}
}

/*
 * nvlink: a rack is one NVLink domain of rack_nodes nodes.  Running pods of
 * 1, 2 or a whole node's GPUs scatter over the racks; gangs ask for whole
 * nodes (most) or single GPUs in fours, so a gang is a multiple of 4 GPUs
 * on 4-GPU nodes, and most must sit in one rack.
 */
/* The rest of a gang of `size` pods of k GPUs once its size is drawn:
 * minCount (size, or up to a quarter less), a rack constraint with
 * probability p_rack, else a block one up to p_block, widened when the
 * minimum does not fit; a priority class; then the objects. */
static void gang_rest(gen *g, int i, int size, int k, double p_rack,
		      double p_block, long long rack_cap, long long block_cap)
{
	int min_count = size;
	if (rnd_unit(&g->rng) < 0.3)
		min_count -= (int)rnd_below(&g->rng, (uint64_t)(size / 4 + 1));
	double u = rnd_unit(&g->rng);
	const char *key = u < p_rack ? level_key[2]
			: u < p_block && g->levels >= 2 ? level_key[1]
			: NULL;
	key = widen(g, key, (long long)min_count * k, rack_cap, block_cap);
	int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
	emit_gang_x(g, i, size, min_count, k, key, pc);
}

static int gen_nvlink(gen *g, runstate *r)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots, n = g->nnodes;
	int *cand = malloc(sizeof *cand * (size_t)n);
	if (!cand)
		return -1;
	for (int i = 0; i < n; i++)
		cand[i] = i;
	int sizes[4];
	int ns = run_sizes(S, S, sizes);
	long long target = (long long)(o->busy * (double)n * S + 0.5);
	run_fill(g, r, cand, n, target, sizes, ns);
	free(cand);

	long long rack_cap = (long long)g->per_rack * S;
	long long block_cap = g->levels >= 2 ? rack_cap * g->fanout : 0;
	for (int i = 0; i < o->gangs; i++) {
		int k, size;
		if (o->max_gang < 4 || rnd_unit(&g->rng) < 0.7) {
			k = S;
			size = gang_size(g, o->max_gang);
		} else {
			k = 1;
			size = 4 * (1 + (int)rnd_below(&g->rng,
						       (uint64_t)(o->max_gang /
								  4)));
		}
		double u = rnd_unit(&g->rng);
		const char *key = u < 0.75 ? level_key[2]
				: u < 0.9 && g->levels >= 2 ? level_key[1]
				: NULL;
		key = widen(g, key, (long long)size * k, rack_cap, block_cap);
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		/* rigid: a partial NVLink job is no job */
		emit_gang_x(g, i, size, size, k, key, pc);
	}
	return 0;
}

/*
 * fragmented: every rack gets a small running pod first, so no rack is
 * wholly free; then pods of 1 to 4 slots (never whole nodes) fill about
 * `busy` of the slots at random, leaving a node's worth free at least.
 * Gangs are capped below the free total: capacity exists, but a gang that
 * wants whole nodes in one rack may find none.
 */
static int gen_fragmented(gen *g, runstate *r)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots, n = g->nnodes;
	long long total = (long long)n * S;
	long long reserve = S > 2 ? S : 2;
	long long target = (long long)(o->busy * (double)total + 0.5);
	long long used = 0;
	int *cand = malloc(sizeof *cand * (size_t)n);
	if (!cand)
		return -1;
	for (int i = 0; i < n; i++)
		cand[i] = i;
	for (int rk = 0; rk < g->nracks; rk++) {
		int i = rk * g->per_rack +
			(int)rnd_below(&g->rng, (uint64_t)g->per_rack);
		int k = S >= 2 ? 1 + (int)rnd_below(&g->rng, 2) : 1;
		run_one(g, r, i, k);
		used += k;
	}
	if (target > total - reserve)
		target = total - reserve;
	int sizes[4];
	int ns = run_sizes(S, S > 1 ? S / 2 : 1, sizes);
	if (target > used)
		used += run_fill(g, r, cand, n, target - used, sizes, ns);
	free(cand);

	long long free_total = total - used;
	long long rack_cap = (long long)g->per_rack * S;
	long long block_cap = g->levels >= 2 ? rack_cap * g->fanout : 0;
	for (int i = 0; i < o->gangs; i++) {
		int shapes[3] = {S, S / 2, 1};
		double u = rnd_unit(&g->rng);
		int k = shapes[u < 0.5 ? 0 : u < 0.8 ? 1 : 2];
		if (k < 1)
			k = 1;
		int size = gang_size(g, o->max_gang);
		/* the largest gang still needs less than what is free */
		if ((long long)size * k >= free_total) {
			k = 1;
			if (size >= free_total)
				size = (int)(free_total - 1);
		}
		if (size < 1)
			size = 1;
		gang_rest(g, i, size, k, 0.6, 0.85, rack_cap, block_cap);
	}
	return 0;
}

/*
 * mixed: CPU-only nodes (untainted, no GPUs) among GPU nodes tainted
 * nvidia.com/gpu=present:NoSchedule.  Both pools are about `busy` full.
 * Pending: GPU gangs (tolerating the taint), basic-policy services of CPU
 * pods or single-GPU inference pods, and lone pods without a group.
 */
static int gen_mixed(gen *g, runstate *r)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots, n = g->nnodes, ncpu = 0, ngpu = 0;
	int *cand = malloc(sizeof *cand * (size_t)n);
	int *rack_gpu = calloc((size_t)g->nracks, sizeof *rack_gpu);
	if (!cand || !rack_gpu) {
		free(cand), free(rack_gpu);
		return -1;
	}
	/* GPU nodes first in cand, CPU nodes from the end */
	for (int i = 0; i < n; i++) {
		if (is_cpu_node(g, i)) {
			cand[n - 1 - ncpu++] = i;
		} else {
			cand[ngpu++] = i;
			rack_gpu[i / g->per_rack]++;
		}
	}
	int sizes[4], ns;
	ns = run_sizes(S, S, sizes);
	run_fill(g, r, cand, ngpu,
		 (long long)(o->busy * (double)ngpu * S + 0.5), sizes, ns);
	ns = run_sizes(CPU_SLOTS, CPU_SLOTS, sizes);
	run_fill(g, r, cand + ngpu, ncpu,
		 (long long)(o->busy * (double)ncpu * CPU_SLOTS + 0.5), sizes,
		 ns);
	free(cand);

	/* the roomiest rack and block, in GPUs, for widening */
	long long rack_cap = 0, block_cap = 0, cur = 0;
	int rpb = g->levels >= 2 ? g->fanout : g->nracks;
	for (int rk = 0; rk < g->nracks; rk++) {
		long long c = (long long)rack_gpu[rk] * S;
		if (c > rack_cap)
			rack_cap = c;
		cur += c;
		if ((rk + 1) % rpb == 0 || rk + 1 == g->nracks) {
			if (cur > block_cap)
				block_cap = cur;
			cur = 0;
		}
	}
	if (g->levels < 2)
		block_cap = 0;
	free(rack_gpu);

	char name[48], pod[64];
	for (int i = 0; i < o->gangs; i++) {
		int shapes[4] = {S, S / 2, S / 4, 1};
		double u = rnd_unit(&g->rng);
		int k = shapes[u < 0.4 ? 0 : u < 0.65 ? 1 : u < 0.8 ? 2 : 3];
		if (k < 1)
			k = 1;
		int size = gang_size(g, o->max_gang);
		gang_rest(g, i, size, k, 0.45, 0.7, rack_cap, block_cap);
	}
	int max_rep = o->max_gang / 4 > 1 ? o->max_gang / 4 : 1;
	for (int i = 0; i < o->services; i++) {
		int gpu = rnd_unit(&g->rng) < 0.3;
		int k = gpu ? 1 : 1 + (int)rnd_below(&g->rng, 2);
		int reps = 1 + (int)rnd_below(&g->rng, (uint64_t)max_rep);
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		snprintf(name, sizeof name, "svc-%05d", i);
		emit_basic_group(g, "web", name, pc);
		for (int j = 0; j < reps; j++) {
			snprintf(pod, sizeof pod, "%s-%d", name, j);
			emit_pod_x(g, "web", pod, name, pc, k, !gpu, NULL);
		}
	}
	for (int i = 0; i < o->lone_pods; i++) {
		int gpu = rnd_unit(&g->rng) < 0.3;
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		snprintf(pod, sizeof pod, "lone-%05d", i);
		emit_pod_x(g, "web", pod, NULL, pc, 1, !gpu, NULL);
	}
	return 0;
}

static int emit_family(gen *g)
{
	runstate r;
	int n = g->nnodes, rc = -1;
	memset(&r, 0, sizeof r);
	r.free_slots = malloc(sizeof *r.free_slots * (size_t)n);
	r.npods = calloc((size_t)n, sizeof *r.npods);
	r.open = malloc(sizeof *r.open * (size_t)n);
	r.pos = malloc(sizeof *r.pos * (size_t)n);
	if (r.free_slots && r.npods && r.open && r.pos) {
		for (int i = 0; i < n; i++)
			r.free_slots[i] = node_slots(g, i);
		emit_nodes_x(g);
		switch (g->o->family) {
		case WGEN_FAMILY_NVLINK:
			rc = gen_nvlink(g, &r);
			break;
		case WGEN_FAMILY_FRAGMENTED:
			rc = gen_fragmented(g, &r);
			break;
		case WGEN_FAMILY_MIXED:
			rc = gen_mixed(g, &r);
			break;
		/* TODO(trees): case WGEN_FAMILY_TREES: gen_trees() */
		}
	}
	free(r.free_slots), free(r.npods), free(r.open), free(r.pos);
	return rc;
}

/*
 * Pending CompositePodGroup trees (issue 5).  Depth 2: a root confined to
 * a block (or the coarsest level) with 2..8 PodGroup children, some
 * confined to a rack.  Depth 3 (when there are at least three levels):
 * a root confined to a superblock with 2..4 middle composites, each
 * confined to a block, with 2..4 leaves.  minGroupCount is the number of
 * children or a little less; each tree has one priority.
 */
static void emit_cpg(gen *g, const char *name, const char *parent, int mgc,
		     const char *key, int pc)
{
	emitter *e = &g->em;
	em_head(e, "scheduling.k8s.io/v1alpha3", "CompositePodGroup", name,
		"train");
	em_map(e, "spec");
	if (parent)
		em_str(e, "parentCompositePodGroupName", parent);
	em_map(e, "schedulingPolicy");
	em_map(e, "gang");
	em_int(e, "minGroupCount", mgc);
	em_end(e);
	em_end(e);
	if (key) {
		em_map(e, "schedulingConstraints");
		em_seq(e, "topology");
		em_map(e, NULL);
		em_str(e, "key", key);
		em_end(e);
		em_end(e);
		em_end(e);
	}
	em_str(e, "priorityClassName", g->pc_name[pc]);
	em_int(e, "priority", g->pc_value[pc]);
	em_end(e);
	em_end(e);
}

/* A leaf gang of 1..4 pods of k slots under g->parent. */
static void emit_leaf(gen *g, const char *name, const char *key, int pc)
{
	int S = g->slots;
	int shapes[3] = {S / 2, S / 4, 1};
	int k = shapes[rnd_below(&g->rng, 3)];
	if (k < 1)
		k = 1;
	int size = 1 + (int)rnd_below(&g->rng, 4);
	char pod[96];
	emit_podgroup(g, "train", name, size, key, pc);
	for (int j = 0; j < size; j++) {
		snprintf(pod, sizeof pod, "%s-%d", name, j);
		emit_pod(g, "train", pod, name, pc, k, NULL);
	}
}

static void emit_trees(gen *g)
{
	const wasp_gen_options *o = g->o;
	char name[64], mid[80], leaf[96];
	const char *rack = level_key[2];
	const char *block = g->levels >= 2 ? level_key[1] : level_key[2];
	for (int i = 0; i < o->trees; i++) {
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		snprintf(name, sizeof name, "tree-%05d", i);
		int deep = g->levels >= 3 && rnd_unit(&g->rng) < 0.4;
		if (!deep) {
			int nk = 2 + (int)rnd_below(&g->rng, 7);
			int mgc = nk - (int)rnd_below(&g->rng, 2);
			emit_cpg(g, name, NULL, mgc, block, pc);
			for (int j = 0; j < nk; j++) {
				snprintf(leaf, sizeof leaf, "%s-g%d", name, j);
				g->parent = name;
				emit_leaf(g, leaf,
					  rnd_unit(&g->rng) < 0.5 ? rack
								  : NULL, pc);
				g->parent = NULL;
			}
			continue;
		}
		int nm = 2 + (int)rnd_below(&g->rng, 3);
		emit_cpg(g, name, NULL, nm - (int)rnd_below(&g->rng, 2),
			 level_key[0], pc);
		for (int m = 0; m < nm; m++) {
			snprintf(mid, sizeof mid, "%s-m%d", name, m);
			int nk = 2 + (int)rnd_below(&g->rng, 3);
			emit_cpg(g, mid, name, nk - (int)rnd_below(&g->rng, 2),
				 block, pc);
			for (int j = 0; j < nk; j++) {
				snprintf(leaf, sizeof leaf, "%s-g%d", mid, j);
				g->parent = mid;
				emit_leaf(g, leaf,
					  rnd_unit(&g->rng) < 0.5 ? rack
								  : NULL, pc);
				g->parent = NULL;
			}
		}
	}
}

/* ------------------------------------------------------------ API */

void wgen_options_default(wasp_gen_options *g)
{
	memset(g, 0, sizeof *g);
	g->seed = 1;
	g->levels = 2;
	g->fanout = 4;
	g->nodes = 64;
	g->gpus_per_node = 8;
	g->busy = 0.5;
	g->gangs = 8;
	g->max_gang = 16;
	g->priorities = 3;
	g->json = 0;
	g->family = WGEN_FAMILY_GPU;
	g->rack_nodes = 0;
	g->cpu_nodes = 0.25;
	g->services = 4;
	g->lone_pods = 8;
	g->given = 0;
}

/* ------------------------------------------------------------ options */

static const char *const family_names[WGEN_NFAMILIES] = {
    "gpu", "nvlink", "fragmented", "mixed"};

enum opt_type { OT_U64, OT_INT, OT_DBL, OT_BOOL, OT_FAMILY };

/* The one table of option names, types and ranges: `wasp gen` and the
 * bench harness both go through wasp_gen_option_set. */
static const struct gen_opt {
	const char *name;
	int type;
	double lo, hi;
	size_t off;
} gen_opts[] = {
    {"seed", OT_U64, 0, 0, offsetof(wasp_gen_options, seed)},
    {"levels", OT_INT, 1, 3, offsetof(wasp_gen_options, levels)},
    {"fanout", OT_INT, 1, WGEN_MAX_FANOUT,
     offsetof(wasp_gen_options, fanout)},
    {"nodes", OT_INT, 1, WGEN_MAX_NODES, offsetof(wasp_gen_options, nodes)},
    {"gpus", OT_INT, 0, WGEN_MAX_GPUS,
     offsetof(wasp_gen_options, gpus_per_node)},
    {"busy", OT_DBL, 0, 1, offsetof(wasp_gen_options, busy)},
    {"gangs", OT_INT, 0, WGEN_MAX_GANGS, offsetof(wasp_gen_options, gangs)},
    {"max-gang", OT_INT, 1, WGEN_MAX_GANG,
     offsetof(wasp_gen_options, max_gang)},
    {"priorities", OT_INT, 1, WGEN_MAX_PRIORITIES,
     offsetof(wasp_gen_options, priorities)},
    {"json", OT_BOOL, 0, 1, offsetof(wasp_gen_options, json)},
    {"family", OT_FAMILY, 0, WGEN_NFAMILIES - 1,
     offsetof(wasp_gen_options, family)},
    {"rack-nodes", OT_INT, 0, WGEN_MAX_RACK_NODES,
     offsetof(wasp_gen_options, rack_nodes)},
    {"cpu-nodes", OT_DBL, 0, 0.95, offsetof(wasp_gen_options, cpu_nodes)},
    {"services", OT_INT, 0, WGEN_MAX_GANGS,
     offsetof(wasp_gen_options, services)},
    {"lone-pods", OT_INT, 0, WGEN_MAX_GANGS,
     offsetof(wasp_gen_options, lone_pods)},
    {"trees", OT_INT, 0, WGEN_MAX_GANGS, offsetof(wasp_gen_options, trees)},
    {"dra", OT_BOOL, 0, 1, offsetof(wasp_gen_options, dra)},
    {"running-pods", OT_INT, 0, WGEN_MAX_NODES * 100,
     offsetof(wasp_gen_options, running_pods)},
    {"running-groups", OT_INT, 0, WGEN_MAX_NODES * 100,
     offsetof(wasp_gen_options, running_groups)},
    {"preemptible", OT_BOOL, 0, 1, offsetof(wasp_gen_options, preemptible)},
};
#define NOPTS (sizeof gen_opts / sizeof gen_opts[0])
#define GIVEN_GPUS (1u << 4) /* bit of "gpus" in gen_opts */

int wasp_gen_option_set(wasp_gen_options *g, const char *name,
			const char *value, wasp_error *err)
{
	const struct gen_opt *o = NULL;
	size_t k;
	char *end;

	werr_clear(err);
	if (!g || !name || !value)
		return werr(err, WASP_EINVAL, "wasp_gen_option_set: NULL "
			    "argument");
	for (k = 0; k < NOPTS && !o; k++)
		if (!strcmp(gen_opts[k].name, name))
			o = &gen_opts[k];
	if (!o)
		return werr(err, WASP_EINVAL, "unknown generator option '%s' "
			    "(seed, levels, fanout, nodes, gpus, busy, gangs, "
			    "max-gang, priorities, json, family, rack-nodes, "
			    "cpu-nodes, services, lone-pods, trees, dra, "
			    "running-pods, running-groups, preemptible)", name);
	char *field = (char *)g + o->off;
	errno = 0;
	switch (o->type) {
	case OT_U64: {
		unsigned long long v = strtoull(value, &end, 0);
		if (end == value || *end || errno || value[0] == '-')
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected a non-negative integer)",
				    name, value);
		*(uint64_t *)(void *)field = v;
		break;
	}
	case OT_INT: {
		long v = strtol(value, &end, 10);
		if (end == value || *end || errno || v < o->lo || v > o->hi)
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected an integer from %.0f to %.0f)",
				    name, value, o->lo, o->hi);
		*(int *)(void *)field = (int)v;
		break;
	}
	case OT_DBL: {
		double v = strtod(value, &end);
		if (end == value || *end || errno || !(v >= o->lo) ||
		    !(v <= o->hi))
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected a number from %g to %g)", name,
				    value, o->lo, o->hi);
		*(double *)(void *)field = v;
		break;
	}
	case OT_BOOL: {
		int v;
		if (!strcmp(value, "1") || !strcmp(value, "true"))
			v = 1;
		else if (!strcmp(value, "0") || !strcmp(value, "false"))
			v = 0;
		else
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected true or false)", name, value);
		*(int *)(void *)field = v;
		break;
	}
	case OT_FAMILY: {
		int v = -1;
		for (int f = 0; f < WGEN_NFAMILIES; f++)
			if (!strcmp(value, family_names[f]))
				v = f;
		if (v < 0)
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected gpu, nvlink, fragmented or "
				    "mixed)", name, value);
		*(int *)(void *)field = v;
		break;
	}
	}
	g->given |= 1u << (o - gen_opts);
	return WASP_OK;
}

/* The options as the generator uses them: family defaults filled in. */
static void resolve_options(const wasp_gen_options *in, wasp_gen_options *o)
{
	*o = *in;
	if (o->family == WGEN_FAMILY_NVLINK) {
		if (!(o->given & GIVEN_GPUS))
			o->gpus_per_node = WGEN_NVLINK_GPUS;
		if (o->rack_nodes == 0)
			o->rack_nodes = WGEN_NVLINK_RACK_NODES;
	}
}

static int check_options(const wasp_gen_options *o, wasp_error *err)
{
	if (o->dra && o->family != WGEN_FAMILY_GPU)
		return werr(err, WASP_EINVAL, "--dra is supported with the gpu "
			    "family only");
	if (o->levels < 1 || o->levels > 3)
		return werr(err, WASP_EINVAL, "levels must be 1, 2 or 3 "
			    "(got %d)", o->levels);
	if (o->fanout < 1 || o->fanout > WGEN_MAX_FANOUT)
		return werr(err, WASP_EINVAL, "fanout must be 1..%d (got %d)",
			    WGEN_MAX_FANOUT, o->fanout);
	if (o->nodes < 1 || o->nodes > WGEN_MAX_NODES)
		return werr(err, WASP_EINVAL, "nodes must be 1..%d (got %d)",
			    WGEN_MAX_NODES, o->nodes);
	if (o->gpus_per_node < 0 || o->gpus_per_node > WGEN_MAX_GPUS)
		return werr(err, WASP_EINVAL, "gpus per node must be 0..%d "
			    "(got %d)", WGEN_MAX_GPUS, o->gpus_per_node);
	if (!(o->busy >= 0 && o->busy <= 1))
		return werr(err, WASP_EINVAL, "busy must be a fraction in "
			    "0..1 (got %g)", o->busy);
	if (o->trees < 0 || o->trees > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "trees must be 0..%d (got %d)",
			    WGEN_MAX_GANGS, o->trees);
	if (o->gangs < 0 || o->gangs > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "gangs must be 0..%d (got %d)",
			    WGEN_MAX_GANGS, o->gangs);
	if (o->max_gang < 1 || o->max_gang > WGEN_MAX_GANG)
		return werr(err, WASP_EINVAL, "max gang must be 1..%d (got %d)",
			    WGEN_MAX_GANG, o->max_gang);
	if (o->priorities < 1 || o->priorities > WGEN_MAX_PRIORITIES)
		return werr(err, WASP_EINVAL, "priorities must be 1..%d "
			    "(got %d)", WGEN_MAX_PRIORITIES, o->priorities);
	if (o->running_pods < 0 || o->running_pods > WGEN_MAX_NODES * 100)
		return werr(err, WASP_EINVAL, "running pods must be 0..%d "
			    "(got %d)", WGEN_MAX_NODES * 100, o->running_pods);
	if (o->running_groups < 0 ||
	    (o->running_groups > 0 && o->running_pods == 0) ||
	    o->running_groups > o->running_pods)
		return werr(err, WASP_EINVAL, "running groups need running "
			    "pods, at least one per group (got %d groups, "
			    "%d pods)", o->running_groups, o->running_pods);
	if ((o->running_pods > 0 || o->preemptible) &&
	    o->family != WGEN_FAMILY_GPU)
		return werr(err, WASP_EINVAL, "--running-pods and --preemptible "
			    "are supported with the gpu family only");
	if (o->family < 0 || o->family >= WGEN_NFAMILIES)
		return werr(err, WASP_EINVAL, "family must be 0..%d (got %d)",
			    WGEN_NFAMILIES - 1, o->family);
	if (o->family == WGEN_FAMILY_GPU)
		return WASP_OK; /* the knobs below are not read */
	if (o->rack_nodes < 0 || o->rack_nodes > WGEN_MAX_RACK_NODES)
		return werr(err, WASP_EINVAL, "rack nodes must be 0..%d "
			    "(got %d)", WGEN_MAX_RACK_NODES, o->rack_nodes);
	if (!(o->cpu_nodes >= 0 && o->cpu_nodes <= 0.95))
		return werr(err, WASP_EINVAL, "cpu nodes must be a fraction "
			    "in 0..0.95 (got %g)", o->cpu_nodes);
	if (o->services < 0 || o->services > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "services must be 0..%d (got "
			    "%d)", WGEN_MAX_GANGS, o->services);
	if (o->lone_pods < 0 || o->lone_pods > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "lone pods must be 0..%d (got "
			    "%d)", WGEN_MAX_GANGS, o->lone_pods);
	if ((o->family == WGEN_FAMILY_NVLINK ||
	     o->family == WGEN_FAMILY_MIXED) && o->gpus_per_node < 1)
		return werr(err, WASP_EINVAL, "family %s needs gpus >= 1",
			    family_names[o->family]);
	return WASP_OK;
}

char *wgen_generate(const wasp_gen_options *in, wasp_error *err)
{
	gen g;
	wasp_gen_options eff, *o = &eff;

	werr_clear(err);
	if (!in) {
		werr(err, WASP_EINVAL, "no generator options");
		return NULL;
	}
	resolve_options(in, &eff);
	if (check_options(o, err))
		return NULL;
	memset(&g, 0, sizeof g);
	g.o = o;
	g.rng = o->seed;
	g.levels = o->levels;
	g.fanout = o->fanout;
	long long racks = 1;
	for (int j = 0; j < g.levels; j++) {
		racks *= g.fanout;
		if (racks > WGEN_MAX_NODES) {
			werr(err, WASP_EINVAL, "fanout %d over %d levels "
			     "makes more than %d racks", g.fanout, g.levels,
			     WGEN_MAX_NODES);
			return NULL;
		}
	}
	if (o->family == WGEN_FAMILY_NVLINK) {
		/* fixed-size racks; enough whole blocks to hold the nodes */
		long long unit = racks / g.fanout;
		long long need = (o->nodes + o->rack_nodes - 1) / o->rack_nodes;
		racks = (need + unit - 1) / unit * unit;
		if (racks * o->rack_nodes > WGEN_MAX_NODES) {
			werr(err, WASP_EINVAL, "%lld nodes after filling the "
			     "blocks: more than %d", racks * o->rack_nodes,
			     WGEN_MAX_NODES);
			return NULL;
		}
	}
	g.nracks = (int)racks;
	g.per_rack = o->family == WGEN_FAMILY_NVLINK
			 ? o->rack_nodes
			 : (int)((o->nodes + racks - 1) / racks);
	if ((long long)g.per_rack * racks > WGEN_MAX_NODES) {
		werr(err, WASP_EINVAL, "%lld nodes after filling the tree: "
		     "more than %d", (long long)g.per_rack * racks,
		     WGEN_MAX_NODES);
		return NULL;
	}
	g.nnodes = g.per_rack * g.nracks;
	g.slots = o->gpus_per_node > 0 ? o->gpus_per_node : 8;
	g.namew = 3;
	for (int n = g.nnodes - 1; n >= 1000; n /= 10)
		g.namew++;

	em_begin(&g.em, o->json);
	if (!o->json) {
		char head[384];
		int n = snprintf(head, sizeof head,
			 "# wasp gen --seed %llu --levels %d --fanout %d "
			 "--nodes %d --gpus %d --busy %g --gangs %d "
			 "--max-gang %d --priorities %d",
			 (unsigned long long)o->seed, o->levels, o->fanout,
			 o->nodes, o->gpus_per_node, o->busy, o->gangs,
			 o->max_gang, o->priorities);
		/* the whole command, so the header regenerates the file */
		if (o->family == WGEN_FAMILY_NVLINK)
			snprintf(head + n, sizeof head - (size_t)n,
				 " --family nvlink --rack-nodes %d",
				 o->rack_nodes);
		else if (o->family == WGEN_FAMILY_FRAGMENTED)
			snprintf(head + n, sizeof head - (size_t)n,
				 " --family fragmented");
		else if (o->family == WGEN_FAMILY_MIXED)
			snprintf(head + n, sizeof head - (size_t)n,
				 " --family mixed --cpu-nodes %g --services %d"
				 " --lone-pods %d", o->cpu_nodes, o->services,
				 o->lone_pods);
		if (o->trees > 0) {
			size_t hn = strlen(head);
			snprintf(head + hn, sizeof head - hn, " --trees %d",
				 o->trees);
		}
		if (o->dra) {
			size_t hn = strlen(head);
			snprintf(head + hn, sizeof head - hn, " --dra");
		}
		if (o->running_pods > 0) {
			size_t hn = strlen(head);
			snprintf(head + hn, sizeof head - hn,
				 " --running-pods %d --running-groups %d%s",
				 o->running_pods, o->running_groups,
				 o->preemptible ? " --preemptible" : "");
		}
		gb_puts(&g.em.b, head);
		gb_puts(&g.em.b, "\n");
	}
	emit_topology(&g);
	emit_priority_classes(&g);
	if (o->dra && o->gpus_per_node > 0) {
		g.dev_next = calloc((size_t)g.nnodes + 1, sizeof(int));
		if (!g.dev_next)
			g.em.b.oom = 1;
		else
			emit_dra_common(&g);
	}
	if (o->family == WGEN_FAMILY_GPU) {
		emit_nodes(&g);
		if (!g.em.b.oom && (o->running_pods > 0
					    ? emit_running_groups(&g)
					    : emit_running(&g)))
			g.em.b.oom = 1;
		emit_gangs(&g);
	} else if (emit_family(&g)) {
		g.em.b.oom = 1;
	}
	free(g.dev_next);
	g.dev_next = NULL;
	emit_trees(&g);
	em_finish(&g.em);
	if (g.em.b.oom || !g.em.b.p) {
		free(g.em.b.p);
		werr(err, WASP_ENOMEM, "out of memory generating the instance");
		return NULL;
	}
	return g.em.b.p;
}
