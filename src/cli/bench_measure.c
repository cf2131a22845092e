/*
 * bench_measure.c -- the quality figures of `wasp bench` (bench/README.md,
 * "How a row is measured" and the column list).
 *
 * The figures are not taken from the solvers' word: a child reads the
 * instance manifests (JSON) into a small world of nodes, pods and groups,
 * then reads each rendered plan and counts admitted pods and GPUs per
 * priority, GPUs stranded in gangs below minCount, GPUs of groups spread
 * over several domains of their required topology, whole free nodes and
 * racks, and runs the independent checker (wasp_check) on every plan.
 * Its results go to the parent raw through a pipe (the same program image).
 *
 * Plans and generated manifests are read with cJSON.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cJSON.h>

#include "base/arena.h"
#include "cli/bench_int.h"

#define GPU_RES "nvidia.com/gpu"
#define HOST_LABEL "kubernetes.io/hostname"

/* ------------------------------------------------------------ memory */

static wa_arena *arena_new(void)
{
	wa_arena *a = wa_new();
	if (!a) {
		fprintf(stderr, "wasp bench: out of memory\n");
		exit(EX_INTERNAL);
	}
	return a;
}

/* Zeroed memory from the arena, or exit. */
static void *arena_alloc(wa_arena *a, size_t n)
{
	void *p = wa_alloc(a, n ? n : 1);
	if (!p) {
		fprintf(stderr, "wasp bench: out of memory\n");
		exit(EX_INTERNAL);
	}
	return p;
}

/* ------------------------------------------------------------ JSON */

static const cJSON *jget(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key)
				 : NULL;
}

static const cJSON *jpath(const cJSON *o, const char *dotted)
{
	char part[64];
	while (o && *dotted) {
		const char *dot = strchr(dotted, '.');
		size_t n = dot ? (size_t)(dot - dotted) : strlen(dotted);
		if (n >= sizeof part)
			return NULL;
		memcpy(part, dotted, n);
		part[n] = 0;
		o = jget(o, part);
		dotted += n + (dot != NULL);
	}
	return o;
}

static const char *jstr(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* v if it is an array, else NULL (for cJSON_ArrayForEach). */
static const cJSON *jarr(const cJSON *v)
{
	return cJSON_IsArray(v) ? v : NULL;
}

static double jnum(const cJSON *v, double dflt)
{
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* A NUL-terminated JSON text (as read_all returns it); NULL with the byte
 * offset of the error in *at on failure. */
static cJSON *json_parse(const char *text, size_t len, size_t *at)
{
	const char *end = text;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	if (!root)
		*at = end ? (size_t)(end - text) : 0;
	return root;
}

static char *read_all(const char *path, size_t *len, size_t max)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= max) {
				free(buf);
				fclose(f);
				errno = EFBIG;
				return NULL;
			}
			cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}


/* ------------------------------------------------------------ metrics */

/* Open-addressing string map: name -> index. */
typedef struct smap {
	const char **key;
	int *val;
	size_t cap;
} smap;

static uint64_t fnv(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ '/') * 1099511628211ULL;
	for (; b && *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

static void sm_init(wa_arena *a, smap *m, size_t n)
{
	m->cap = 16;
	while (m->cap < 2 * n + 16)
		m->cap *= 2;
	m->key = arena_alloc(a, m->cap * sizeof *m->key);
	m->val = arena_alloc(a, m->cap * sizeof *m->val);
	memset(m->key, 0, m->cap * sizeof *m->key);
}

/* Keys are "ns/name" (ns may be empty) built in the arena. */
static const char *nskey(wa_arena *ar, const char *ns, const char *name)
{
	size_t a = strlen(ns), b = strlen(name);
	char *k = arena_alloc(ar, a + b + 2);
	memcpy(k, ns, a);
	k[a] = '/';
	memcpy(k + a + 1, name, b + 1);
	return k;
}

static int sm_find(const smap *m, const char *key)
{
	size_t i = fnv(key, NULL) & (m->cap - 1);
	while (m->key[i]) {
		if (!strcmp(m->key[i], key))
			return m->val[i];
		i = (i + 1) & (m->cap - 1);
	}
	return -1;
}

static void sm_put(smap *m, const char *key, int val)
{
	size_t i = fnv(key, NULL) & (m->cap - 1);
	while (m->key[i]) {
		if (!strcmp(m->key[i], key)) {
			m->val[i] = val;
			return;
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->key[i] = key;
	m->val[i] = val;
}

static int sm_find2(wa_arena *scratch, const smap *m, const char *ns,
		    const char *name)
{
	char buf[600];
	size_t a = strlen(ns), b = strlen(name);
	if (a + b + 2 <= sizeof buf) {
		memcpy(buf, ns, a);
		buf[a] = '/';
		memcpy(buf + a + 1, name, b + 1);
		return sm_find(m, buf);
	}
	return sm_find(m, nskey(scratch, ns, name));
}

/* An integer quantity of whole units ("8", "8000m"); GPUs are whole. */
static long qty_units(const cJSON *v)
{
	if (cJSON_IsNumber(v))
		return (long)v->valuedouble;
	if (!cJSON_IsString(v))
		return 0;
	char *e;
	double d = strtod(v->valuestring, &e);
	if (*e == 'm')
		d /= 1000;
	else if (*e == 'k')
		d *= 1000;
	return (long)ceil(d - 1e-9);
}

typedef struct snode {
	const char *name;
	const cJSON *labels;
	long gpus;
	int rack;   /* -1: no rack label */
	int busy;   /* a bound pod holds something here */
} snode;

typedef struct spod {
	int32_t prio;
	long gpus;
	int group;  /* -1 none */
	int node;   /* bound node, -1 pending */
	int pending;
} spod;

typedef struct sgroup {
	int min;    /* gang minCount; 0: not a gang */
	int bound;  /* pods already running */
	const char *key;   /* required topology key, NULL: none       */
	const char *dom;   /* its value where the running pods are     */
	int spread;        /* running pods already span several domains */
} sgroup;

typedef struct world {
	cJSON *root;       /* the manifests; names below point into it */
	wa_arena *a;       /* everything below */
	snode *nodes;
	int nnodes;
	spod *pods;
	int npods;
	sgroup *groups;
	int ngroups;
	int nracks;
	smap node_by, pod_by, group_by;
	ifacts f;
} world;

/* Track the domain of group g's pods: the first node's value of the key,
 * and whether a later node (or one without the label) differs. */
static void note_domain(const world *w, const sgroup *g, int node,
			const char **dom, int *spread)
{
	const char *v = node >= 0 ? jstr(jget(w->nodes[node].labels, g->key))
				  : NULL;
	if (!v)
		*spread = 1;
	else if (!*dom)
		*dom = v;
	else if (strcmp(*dom, v))
		*spread = 1;
}

static const cJSON *items_of(const cJSON *root)
{
	if (cJSON_IsArray(root))
		return root;
	const char *kind = jstr(jget(root, "kind"));
	if (kind && !strcmp(kind, "List"))
		return jget(root, "items");
	return NULL;
}

static long pod_gpus(const cJSON *pod)
{
	const cJSON *c;
	long g = 0;
	cJSON_ArrayForEach(c, jarr(jpath(pod, "spec.containers"))) {
		const cJSON *req = jpath(c, "resources.requests");
		const cJSON *lim = jpath(c, "resources.limits");
		const cJSON *q = jget(req, GPU_RES);
		if (!q)
			q = jget(lim, GPU_RES);
		g += qty_units(q);
	}
	return g;
}

static int cmp_prio_desc(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x < y) - (x > y);
}

/* First pass over the objects: how many nodes, pods and groups, the
 * PriorityClasses' values (into pcs) and the rack label of the Topology
 * (its finest level above the host; NULL: none). */
static const char *world_count(world *w, const cJSON *items, smap *pcs,
			       size_t *nn, size_t *np, size_t *ng)
{
	const char *rack_label = NULL;
	const cJSON *o;
	sm_init(w->a, pcs, (size_t)cJSON_GetArraySize(items));
	cJSON_ArrayForEach(o, items) {
		const char *kind = jstr(jget(o, "kind"));
		if (!kind)
			continue;
		if (!strcmp(kind, "Node"))
			(*nn)++;
		else if (!strcmp(kind, "Pod"))
			(*np)++;
		else if (!strcmp(kind, "PodGroup"))
			(*ng)++;
		else if (!strcmp(kind, "PriorityClass")) {
			const char *n = jstr(jpath(o, "metadata.name"));
			if (n)
				sm_put(pcs, n, (int)jnum(jget(o, "value"), 0));
		} else if (!strcmp(kind, "Topology")) {
			const cJSON *lv = jpath(o, "spec.levels"), *e;
			cJSON_ArrayForEach(e, jarr(lv)) {
				const char *l = jstr(jget(e, "nodeLabel"));
				if (l && strcmp(l, HOST_LABEL))
					rack_label = l;
			}
		}
	}
	return rack_label;
}

/* Second pass: the Nodes (GPUs, rack) and the PodGroups (gang minCount,
 * required topology key). */
static void world_nodes_groups(world *w, const cJSON *items,
			       const char *rack_label, size_t nn)
{
	const cJSON *o;
	smap racks;
	sm_init(w->a, &racks, nn);
	cJSON_ArrayForEach(o, items) {
		const char *kind = jstr(jget(o, "kind"));
		const char *name = jstr(jpath(o, "metadata.name"));
		const char *ns = jstr(jpath(o, "metadata.namespace"));
		if (!kind || !name)
			continue;
		if (!ns)
			ns = "default";
		if (!strcmp(kind, "Node")) {
			snode *n = &w->nodes[w->nnodes];
			n->name = name;
			n->labels = jpath(o, "metadata.labels");
			n->gpus = qty_units(jget(jpath(o, "status.allocatable"),
						 GPU_RES));
			n->rack = -1;
			const char *rv = rack_label ? jstr(jget(jpath(o,
				"metadata.labels"), rack_label)) : NULL;
			if (rv) {
				int r = sm_find(&racks, rv);
				if (r < 0)
					sm_put(&racks, rv, r = w->nracks++);
				n->rack = r;
			}
			sm_put(&w->node_by, name, w->nnodes++);
		} else if (!strcmp(kind, "PodGroup")) {
			sgroup *g = &w->groups[w->ngroups];
			const cJSON *gang = jpath(o,
						  "spec.schedulingPolicy.gang");
			g->min = gang ? (int)jnum(jget(gang, "minCount"), 1)
				      : 0;
			const cJSON *tk = jpath(o, "spec.schedulingConstraints."
						"topology");
			if (cJSON_IsArray(tk) && tk->child)
				g->key = jstr(jget(tk->child, "key"));
			sm_put(&w->group_by, nskey(w->a, ns, name),
			       w->ngroups++);
		}
	}
}

/* Third pass: the Pods that are not finished (priority, GPUs, group,
 * node); running pods mark their node busy and their group's domain. */
static void world_pods(world *w, const cJSON *items, const smap *pcs)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, items) {
		const char *kind = jstr(jget(o, "kind"));
		const char *name = jstr(jpath(o, "metadata.name"));
		const char *ns = jstr(jpath(o, "metadata.namespace"));
		if (!kind || !name || strcmp(kind, "Pod"))
			continue;
		if (!ns)
			ns = "default";
		const char *phase = jstr(jpath(o, "status.phase"));
		if (phase && (!strcmp(phase, "Succeeded") ||
			      !strcmp(phase, "Failed")))
			continue;
		spod *p = &w->pods[w->npods];
		const cJSON *pr = jpath(o, "spec.priority");
		const char *pc = jstr(jpath(o, "spec.priorityClassName"));
		int pci = pc ? sm_find(pcs, pc) : -1;
		p->prio = pr ? (int32_t)jnum(pr, 0) : pci != -1 ? pci : 0;
		p->gpus = pod_gpus(o);
		const char *gn = jstr(jpath(o,
			"spec.schedulingGroup.podGroupName"));
		p->group = gn ? sm_find2(w->a, &w->group_by, ns, gn) : -1;
		const char *nn2 = jstr(jpath(o, "spec.nodeName"));
		p->node = nn2 ? sm_find(&w->node_by, nn2) : -1;
		p->pending = nn2 == NULL;
		if (p->node >= 0)
			w->nodes[p->node].busy = 1;
		if (!p->pending && p->group >= 0) {
			sgroup *g = &w->groups[p->group];
			g->bound++;
			if (g->key)
				note_domain(w, g, p->node, &g->dom, &g->spread);
		}
		sm_put(&w->pod_by, nskey(w->a, ns, name), w->npods++);
	}
}

/* The instance's facts from the world (ifacts). */
static void world_facts(world *w)
{
	ifacts *f = &w->f;
	f->manifests = 1;
	f->nodes = w->nnodes;
	f->racks = w->nracks;
	int32_t prios[MAX_PRIO * 4];
	int nprios = 0;
	long used = 0;
	for (int i = 0; i < w->nnodes; i++) {
		f->gpus += w->nodes[i].gpus;
		f->free_nodes += !w->nodes[i].busy;
	}
	for (int i = 0; i < w->npods; i++) {
		const spod *p = &w->pods[i];
		if (!p->pending) {
			used += p->node >= 0 ? p->gpus : 0;
			continue;
		}
		f->pending_pods++;
		f->pending_gpus += p->gpus;
		int seen = 0;
		for (int j = 0; j < nprios; j++)
			seen |= prios[j] == p->prio;
		if (!seen && nprios < (int)(sizeof prios / sizeof prios[0]))
			prios[nprios++] = p->prio;
	}
	f->free_gpus = f->gpus - used;
	qsort(prios, nprios, sizeof prios[0], cmp_prio_desc);
	f->nprio = nprios < MAX_PRIO ? nprios : MAX_PRIO;
	memcpy(f->prio, prios, f->nprio * sizeof prios[0]);
	char *gp = xcalloc(w->ngroups, 1);
	for (int i = 0; i < w->npods; i++)
		if (w->pods[i].pending && w->pods[i].group >= 0)
			gp[w->pods[i].group] = 1;
	for (int i = 0; i < w->ngroups; i++)
		f->pending_groups += gp[i];
	free(gp);
	char *rb = xcalloc(w->nracks, 1);
	for (int i = 0; i < w->nnodes; i++)
		if (w->nodes[i].rack >= 0 && w->nodes[i].busy)
			rb[w->nodes[i].rack] = 1;
	for (int i = 0; i < w->nracks; i++)
		f->free_racks += !rb[i];
	free(rb);
}

/* Read the instance manifests (JSON) into the world.  0 ok, -1 not JSON
 * or not understood (the quality columns then stay empty). */
static int world_load(world *w, const char *path, char *note, size_t nsz)
{
	size_t len;
	char *text = read_all(path, &len, (size_t)WASP_MAX_INPUT_BYTES);
	size_t at = 0;

	memset(w, 0, sizeof *w);
	w->a = arena_new();
	if (!text) {
		snprintf(note, nsz, "cannot read %s", path);
		return -1;
	}
	size_t k = strspn(text, " \t\r\n");
	if (text[k] != '{' && text[k] != '[') {
		snprintf(note, nsz, "manifests are YAML: quality columns "
			 "need JSON");
		free(text);
		return -1;
	}
	w->root = json_parse(text, len, &at);
	free(text);
	const cJSON *items = w->root ? items_of(w->root) : NULL;
	if (!items) {
		if (w->root)
			snprintf(note, nsz, "manifests not read (not a List)");
		else
			snprintf(note, nsz, "manifests not read (bad JSON at "
				 "byte %zu)", at);
		return -1;
	}
	size_t nn = 0, np = 0, ng = 0;
	smap pcs;
	const char *rack_label = world_count(w, items, &pcs, &nn, &np, &ng);
	w->nodes = arena_alloc(w->a, (nn + 1) * sizeof *w->nodes);
	w->pods = arena_alloc(w->a, (np + 1) * sizeof *w->pods);
	w->groups = arena_alloc(w->a, (ng + 1) * sizeof *w->groups);
	sm_init(w->a, &w->node_by, nn);
	sm_init(w->a, &w->pod_by, np);
	sm_init(w->a, &w->group_by, ng);
	world_nodes_groups(w, items, rack_label, nn);
	world_pods(w, items, &pcs);
	world_facts(w);
	return 0;
}

static int prio_slot(const ifacts *f, int32_t prio)
{
	for (int i = 0; i < f->nprio; i++)
		if (f->prio[i] == prio)
			return i;
	return f->nprio - 1; /* beyond MAX_PRIO: lumped with the lowest */
}

/* The numbers of one plan against the world. */
static void plan_metrics(world *w, const char *path, pmetrics *m)
{
	size_t len, at = 0;
	wa_arena *scratch = NULL;
	char *text = read_all(path, &len, (size_t)WASP_MAX_INPUT_BYTES);

	memset(m, 0, sizeof *m);
	m->objective = m->bound = m->gap = NAN;
	if (!text) {
		snprintf(m->note, sizeof m->note, "cannot read the plan");
		return;
	}
	cJSON *root = json_parse(text, len, &at);
	free(text);
	if (!root) {
		snprintf(m->note, sizeof m->note, "plan is not JSON: bad JSON "
			 "at byte %zu", at);
		return;
	}
	const cJSON *sum = jget(root, "summary");
	snprintf(m->status, sizeof m->status, "%s",
		 jstr(jget(sum, "status")) ? jstr(jget(sum, "status")) : "?");
	snprintf(m->mode, sizeof m->mode, "%s",
		 jstr(jget(sum, "mode")) ? jstr(jget(sum, "mode")) : "?");
	snprintf(m->mode_reason, sizeof m->mode_reason, "%s",
		 jstr(jget(sum, "modeReason")) ? jstr(jget(sum, "modeReason"))
					       : "");
	m->objective = jnum(jget(sum, "objective"), NAN);
	m->bound = jnum(jget(sum, "bound"), NAN);
	m->gap = jnum(jget(sum, "gap"), NAN);
	const cJSON *c = jget(sum, "counts"), *e;
	m->admitted_groups = (long)jnum(jget(c, "admittedGroups"), -1);
	m->waiting_groups = (long)jnum(jget(c, "waitingGroups"), -1);
	m->placed_pods = (long)jnum(jget(c, "placedPods"), -1);
	m->evicted = (long)jnum(jget(c, "evictedPods"), 0);
	const cJSON *pls = jget(root, "placements");
	if (!w->f.manifests) {
		m->ok = 1;
		m->adm_pods = m->adm_gpus = m->stranded_gpus = -1;
		m->partial_gangs = m->free_nodes = m->free_racks = -1;
		m->spread_gpus = m->spread_groups = -1;
		cJSON_Delete(root);
		return;
	}
	scratch = arena_new();
	long *gplaced = xcalloc(w->ngroups, sizeof *gplaced);
	long *ggpus = xcalloc(w->ngroups, sizeof *ggpus);
	const char **gdom = xcalloc(w->ngroups, sizeof *gdom);
	int *gspread = xcalloc(w->ngroups, sizeof *gspread);
	for (int g = 0; g < w->ngroups; g++) {
		gdom[g] = w->groups[g].dom;
		gspread[g] = w->groups[g].spread;
	}
	char *used = xcalloc(w->nnodes, 1);
	int *placed = xcalloc(w->npods, sizeof *placed);
	long unknown = 0;
	for (int i = 0; i < w->nnodes; i++)
		used[i] = (char)w->nodes[i].busy;
	cJSON_ArrayForEach(e, jarr(pls)) {
		const char *ns = jstr(jget(e, "namespace"));
		const char *pod = jstr(jget(e, "pod"));
		const char *node = jstr(jget(e, "node"));
		int pi = ns && pod ? sm_find2(scratch, &w->pod_by, ns, pod) : -1;
		int ni = node ? sm_find(&w->node_by, node) : -1;
		if (pi < 0 || ni < 0 || placed[pi] || !w->pods[pi].pending) {
			unknown++;
			continue;
		}
		placed[pi] = 1;
		used[ni] = 1;
		const spod *p = &w->pods[pi];
		if (p->group >= 0) {
			gplaced[p->group]++;
			ggpus[p->group] += p->gpus;
			if (w->groups[p->group].key)
				note_domain(w, &w->groups[p->group], ni,
					    &gdom[p->group], &gspread[p->group]);
		}
	}
	for (int i = 0; i < w->npods; i++) {
		if (!placed[i])
			continue;
		const spod *p = &w->pods[i];
		if (p->group >= 0) {
			const sgroup *g = &w->groups[p->group];
			if (g->min > 0 && g->bound + gplaced[p->group] < g->min)
				continue; /* stranded, counted below */
			if (gspread[p->group])
				continue; /* breaks its topology, below */
		}
		m->adm_pods++;
		m->adm_gpus += p->gpus;
		if (w->f.nprio > 0) {
			m->gpus_prio[prio_slot(&w->f, p->prio)] += p->gpus;
			m->pods_prio[prio_slot(&w->f, p->prio)]++;
		}
	}
	for (int g = 0; g < w->ngroups; g++) {
		const sgroup *gr = &w->groups[g];
		if (gplaced[g] > 0 && gr->min > 0 &&
		    gr->bound + gplaced[g] < gr->min) {
			m->partial_gangs++;
			m->stranded_gpus += ggpus[g];
		} else if (gplaced[g] > 0 && gspread[g]) {
			m->spread_groups++;
			m->spread_gpus += ggpus[g];
		}
	}
	char *rb = xcalloc(w->nracks, 1);
	for (int i = 0; i < w->nnodes; i++) {
		m->free_nodes += !used[i];
		if (w->nodes[i].rack >= 0 && used[i])
			rb[w->nodes[i].rack] = 1;
	}
	for (int i = 0; i < w->nracks; i++)
		m->free_racks += !rb[i];
	if (unknown)
		snprintf(m->note, sizeof m->note, "%ld placements name no "
			 "pending pod or node", unknown);
	m->ok = 1;
	free(rb);
	free(gplaced);
	free(ggpus);
	free(gdom);
	free(gspread);
	free(used);
	free(placed);
	wa_destroy(scratch);
	cJSON_Delete(root);
}

/* The metrics child: facts of the instance, then per plan its numbers
 * and wasp_check's violation count; written raw to the pipe (the parent
 * is the same program image). */
typedef struct metrics_arg {
	const char *snap;
	row *rows;
	int nrows;
} metrics_arg;

static int metrics_child(void *arg, int fd)
{
	metrics_arg *a = arg;
	world w;
	char note[160] = "";
	const char *paths[1] = {a->snap};
	wasp_snapshot *s = NULL;
	wasp_error err;

	memset(&err, 0, sizeof err);
	if (world_load(&w, a->snap, note, sizeof note))
		w.f.manifests = 0;
	int rc = bench_write_raw(fd, &w.f, sizeof w.f) ? 3 : 0;
	int loaded = !rc && wasp_snapshot_load(&s, paths, 1, &err) == WASP_OK;
	for (int i = 0; !rc && i < a->nrows; i++) {
		pmetrics m;
		memset(&m, 0, sizeof m);
		if (a->rows[i].plan[0]) {
			plan_metrics(&w, a->rows[i].plan, &m);
			m.violations = -1;
			wasp_plan *p = NULL;
			size_t nv = 0;
			if (loaded && wasp_plan_load(&p, a->rows[i].plan,
						     &err) == WASP_OK &&
			    wasp_check(s, p, &nv, NULL, &err) == WASP_OK)
				m.violations = (long)nv;
			wasp_plan_free(p);
			if (!m.note[0] && note[0])
				snprintf(m.note, sizeof m.note, "%s", note);
		}
		if (bench_write_raw(fd, &m, sizeof m))
			rc = 3;
	}
	wasp_snapshot_free(s);
	wa_destroy(w.a);
	cJSON_Delete(w.root);
	return rc;
}

/* Facts and per-plan metrics for one instance's rows. */
void bench_run_metrics(const char *snap, row *rows, int n, ifacts *f,
		       double timeout)
{
	size_t need = sizeof *f + (size_t)n * sizeof(pmetrics) + 1;
	char *buf = xmalloc(need + 1);
	long rss;
	int status = 0, timed_out = 0;
	metrics_arg a = {snap, rows, n};

	memset(f, 0, sizeof *f);
	if (bench_run_child(metrics_child, &a, timeout, buf, need + 1, &rss,
			    &status, &timed_out) == 0 && !timed_out &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		memcpy(f, buf, sizeof *f);
		for (int i = 0; i < n; i++)
			memcpy(&rows[i].m, buf + sizeof *f +
			       (size_t)i * sizeof(pmetrics), sizeof(pmetrics));
	} else {
		for (int i = 0; i < n; i++)
			snprintf(rows[i].m.note, sizeof rows[i].m.note,
				 "the metrics pass failed");
	}
	free(buf);
}
