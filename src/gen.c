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
#include "gen.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"

/* ------------------------------------------------------------ PRNG */

static uint64_t sm64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1 (multiply-shift: no modulo bias to speak of,
 * and the same on every platform). */
static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)sm64(s) * n) >> 64);
}

/* Uniform in [0, 1). */
static double rnd_unit(uint64_t *s)
{
	return (double)(sm64(s) >> 11) * 0x1.0p-53;
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
	if (with_gpu && g->o->gpus_per_node > 0) {
		snprintf(q, sizeof q, "%d", k);
		em_str(e, "nvidia.com/gpu", q);
	}
	em_end(e);
}

static void emit_topology(gen *g)
{
	emitter *e = &g->em;
	em_doc(e);
	em_str(e, "apiVersion", "kueue.x-k8s.io/v1beta2");
	em_str(e, "kind", "Topology");
	em_map(e, "metadata");
	em_str(e, "name", "gpu-cluster");
	em_end(e);
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
		em_doc(e);
		em_str(e, "apiVersion", "scheduling.k8s.io/v1");
		em_str(e, "kind", "PriorityClass");
		em_map(e, "metadata");
		em_str(e, "name", g->pc_name[i]);
		em_end(e);
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
	if (g->o->gpus_per_node > 0) {
		snprintf(q, sizeof q, "%d", g->o->gpus_per_node);
		em_str(e, "nvidia.com/gpu", q);
	}
	em_end(e);
}

static void emit_nodes(gen *g)
{
	emitter *e = &g->em;
	char name[32], val[32];
	for (int i = 0; i < g->nnodes; i++) {
		node_name(g, i, name, sizeof name);
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
	em_doc(e);
	em_str(e, "apiVersion", "scheduling.k8s.io/v1beta1");
	em_str(e, "kind", "PodGroup");
	em_map(e, "metadata");
	em_str(e, "name", name);
	em_str(e, "namespace", ns);
	em_end(e);
	em_map(e, "spec");
	em_map(e, "schedulingPolicy");
	em_map(e, "gang");
	em_int(e, "minCount", min_count);
	em_end(e);
	em_end(e);
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
	em_doc(e);
	em_str(e, "apiVersion", "v1");
	em_str(e, "kind", "Pod");
	em_map(e, "metadata");
	em_str(e, "name", name);
	em_str(e, "namespace", ns);
	em_end(e);
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
	em_seq(e, "containers");
	em_map(e, NULL);
	em_str(e, "name", node ? "server" : "worker");
	em_str(e, "image", "registry.example.com/ml/trainer:1.0");
	em_map(e, "resources");
	emit_requests(g, "requests", k, 1);
	if (g->o->gpus_per_node > 0) {
		char q[16];
		snprintf(q, sizeof q, "%d", k);
		em_map(e, "limits");
		em_str(e, "nvidia.com/gpu", q);
		em_end(e);
	}
	em_end(e);
	em_end(e);
	em_end(e);
	em_end(e);
	em_map(e, "status");
	em_str(e, "phase", node ? "Running" : "Pending");
	em_end(e);
	em_end(e);
}

/*
 * Running pods: sizes 1, 2, 4 or a whole node's slots, each dropped on a
 * random node that still has room, until about `busy` of all slots are
 * taken.  Nodes with room sit in an open list (swap-remove), so every pick
 * is O(1) even at busy = 1.
 */
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
		/* all running pods at the lowest class, as their groups */
		emit_pod(g, "serve", name, G > 0 ? grp : NULL, 0, 1, node);
	}
	free(free_slots), free(open), free(pos);
	return 0;
}

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
}

static int check_options(const wasp_gen_options *o, wasp_error *err)
{
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
	return WASP_OK;
}

char *wgen_generate(const wasp_gen_options *o, wasp_error *err)
{
	gen g;

	werr_clear(err);
	if (!o) {
		werr(err, WASP_EINVAL, "no generator options");
		return NULL;
	}
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
	g.nracks = (int)racks;
	g.per_rack = (int)((o->nodes + racks - 1) / racks);
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
		char head[256];
		snprintf(head, sizeof head,
			 "# wasp gen --seed %llu --levels %d --fanout %d "
			 "--nodes %d --gpus %d --busy %g --gangs %d "
			 "--max-gang %d --priorities %d%s\n",
			 (unsigned long long)o->seed, o->levels, o->fanout,
			 o->nodes, o->gpus_per_node, o->busy, o->gangs,
			 o->max_gang, o->priorities,
			 o->running_pods ? " (running pods in groups below)"
					 : "");
		gb_puts(&g.em.b, head);
		if (o->running_pods) {
			snprintf(head, sizeof head, "#   --running-pods %d "
				 "--running-groups %d%s\n", o->running_pods,
				 o->running_groups,
				 o->preemptible ? " --preemptible" : "");
			gb_puts(&g.em.b, head);
		}
	}
	emit_topology(&g);
	emit_priority_classes(&g);
	emit_nodes(&g);
	if ((o->running_pods > 0 ? emit_running_groups(&g)
				 : emit_running(&g)))
		g.em.b.oom = 1;
	emit_gangs(&g);
	em_finish(&g.em);
	if (g.em.b.oom || !g.em.b.p) {
		free(g.em.b.p);
		werr(err, WASP_ENOMEM, "out of memory generating the instance");
		return NULL;
	}
	return g.em.b.p;
}
