/*
 * version_fast.c -- the incremental path of wasp_snapshot_apply
 * (version_int.h; doc/library.md, "Scheduler plugins").
 *
 * Deltas that add or replace Pods and add PodGroups, the everyday traffic
 * of a scheduler, cost what they change instead of a decode of the
 * cluster: the delta's objects are decoded alone, with the context they
 * resolve against (the PriorityClasses, the PodGroups their pods join,
 * the Nodes they are bound to), and merged into copies of the base's pod
 * and group arrays; node usage is copied for the nodes it changes only.
 * Anything else (Nodes, deletes, DRA, Workloads, trees, placeholders,
 * a warning from the small decode, a pod changing group, priority or
 * phase) returns 1 and the full path decodes everything, so both paths
 * give the snapshot the equivalent files give (tests/check_plugin.c).
 */
#include "model/version_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "model/decode.h"
#include "model/topology.h"

/* Larger deltas take the full path (the duplicate check is quadratic). */
#define VF_MAX_OPS 64
#define VF_FULL 1

/* "Kind/ns/name": ns and name into buffers. */
static void split_key(const char *key, char *ns, char *name)
{
	const char *a = strchr(key, '/'), *b = a ? strchr(a + 1, '/') : NULL;
	snprintf(ns, VS_KEY_MAX, "%.*s", b ? (int)(b - a - 1) : 0,
		 a ? a + 1 : "");
	snprintf(name, VS_KEY_MAX, "%s", b ? b + 1 : "");
}

static const char *scalar(const wt_node *n)
{
	return n && (n->type == WT_STR || n->type == WT_NUM) ? n->str : NULL;
}

/* The small decode's input: PriorityClasses, context, delta objects. */
typedef struct mini_in {
	const wt_node **roots;
	size_t n;
	const char **ctx; /* keys of the context objects added */
	size_t nctx;
} mini_in;

static bool in_delta(const wasp_delta *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->ops[i].key, key))
			return true;
	return false;
}

/* Add the object of `key` as context once; false when it is missing. */
static bool add_ctx(mini_in *m, const struct ws_version *bv,
		    const char *key, wa_arena *t)
{
	for (size_t i = 0; i < m->nctx; i++)
		if (!strcmp(m->ctx[i], key))
			return true;
	const wt_node *o = vs_lookup(bv, key);
	if (!o || !(m->ctx[m->nctx] = wa_strdup(t, key)))
		return false;
	m->nctx++;
	m->roots[m->n++] = o;
	return true;
}

static bool has_placeholder(const ws_snapshot *s)
{
	for (int g = 0; g < s->ngroups; g++)
		if (s->groups[g].invalid &&
		    !strncmp(s->groups[g].invalid, "PodGroup ", 9) &&
		    strstr(s->groups[g].invalid, " does not exist"))
			return true;
	return false;
}

/* Whether the delta is one this path takes, and its small decode's
 * input. */
static bool eligible(const struct ws_version *bv, const wasp_delta *d,
		     mini_in *m, wa_arena *t)
{
	const ws_snapshot *P = bv->plain;
	char ns[VS_KEY_MAX], name[VS_KEY_MAX], key[3 * VS_KEY_MAX];
	if (P->dra || !d->n || d->n > VF_MAX_OPS ||
	    bv->nstores + 2 > VS_MAX_FAST ||
	    bv->npend + d->n > VS_MAX_PENDING || has_placeholder(P))
		return false;
	for (size_t i = 0; i < d->n; i++) {
		const vs_obj *op = &d->ops[i];
		bool pod = !strncmp(op->key, "Pod/", 4);
		if (!op->obj || (!pod && strncmp(op->key, "PodGroup/", 9)))
			return false;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->ops[j].key, op->key))
				return false;
		split_key(op->key, ns, name);
		if (!pod) {
			if (ws_group_index(P, ns, name) >= 0)
				return false; /* a replaced PodGroup */
			continue;
		}
		const char *g = scalar(wt_path(op->obj,
					       "spec.schedulingGroup."
					       "podGroupName"));
		if (g) {
			snprintf(key, sizeof key, "PodGroup/%s/%s", ns, g);
			int gi = ws_group_index(P, ns, g);
			if (gi >= 0 && (P->groups[gi].workload ||
					P->groups[gi].pcomp))
				return false;
			if (!in_delta(d, key) && !add_ctx(m, bv, key, t))
				return false;
		}
		const char *node = scalar(wt_path(op->obj, "spec.nodeName"));
		if (node) {
			snprintf(key, sizeof key, "Node//%s", node);
			if (!add_ctx(m, bv, key, t))
				return false;
		}
	}
	for (size_t i = 0; i < d->n; i++)
		m->roots[m->n++] = d->ops[i].obj;
	return true;
}

/* The merge's state. */
typedef struct merge {
	const ws_snapshot *P;
	const ws_snapshot *m;  /* the small decode */
	ws_snapshot *s;        /* the new plain state, in arena o */
	wa_arena *o, *r;       /* arrays; records (the small decode's) */
	int *rmap;             /* m's resources -> P's */
	int *gmap;             /* m's groups -> s's */
	bool *ucopied;         /* P's nodes whose usage s owns */
	bool nodes_copied;
	const ws_node *root_nodes; /* the decoded root's node array */
	int *added;            /* per s group: pods appended */
	int **addl;
	int nnew_g;
} merge;

/* s's own copy of the node array; false on NOMEM. */
static bool usage_nodes(merge *g)
{
	ws_snapshot *s = g->s;
	if (g->nodes_copied)
		return true;
	ws_node *n = wa_calloc(g->o, (size_t)s->nnodes + 1, sizeof *n);
	if (!n)
		return false;
	memcpy(n, s->nodes, (size_t)s->nnodes * sizeof *n);
	s->nodes = n;
	g->nodes_copied = true;
	return true;
}

/* Node ni's usage, owned by s (copied on first change). */
static int64_t *usage(merge *g, int ni)
{
	ws_snapshot *s = g->s;
	if (!usage_nodes(g))
		return NULL;
	if (!g->ucopied[ni]) {
		int64_t *u = wa_calloc(g->r, (size_t)s->nres, sizeof *u);
		if (!u)
			return NULL;
		memcpy(u, s->nodes[ni].used, (size_t)s->nres * sizeof *u);
		s->nodes[ni].used = u;
		g->ucopied[ni] = true;
	}
	return s->nodes[ni].used;
}

/* used[node] += sign * req; false on overflow or NOMEM. */
static bool charge(merge *g, int ni, const int64_t *req, int sign)
{
	int64_t *u = usage(g, ni);
	if (!u)
		return false;
	for (int r = 0; r < g->s->nres; r++)
		if (__builtin_add_overflow(u[r], sign * req[r], &u[r]))
			return false;
	return true;
}

static bool merge_groups(merge *g)
{
	const ws_snapshot *m = g->m;
	ws_snapshot *s = g->s;
	for (int k = 0; k < m->ngroups; k++) {
		const ws_group *x = &m->groups[k];
		int gi = ws_group_index(g->P, x->ns, x->name);
		if (gi >= 0) { /* context: its pods' checks count */
			ws_group *y = &s->groups[gi];
			if (y->priority != x->priority ||
			    y->preempt != x->preempt)
				return false;
			if (!y->invalid && x->invalid)
				y->invalid = x->invalid;
			g->gmap[k] = gi;
			continue;
		}
		if (x->workload || x->pcomp || x->parent)
			return false;
		gi = s->ngroups++;
		s->groups[gi] = *x;
		s->groups[gi].pods = NULL;
		s->groups[gi].npods = 0;
		g->gmap[k] = gi;
	}
	return true;
}

static bool merge_pods(merge *g)
{
	const ws_snapshot *m = g->m;
	ws_snapshot *s = g->s;
	for (int j = 0; j < m->npods; j++) {
		ws_pod q = m->pods[j];
		q.req = wa_calloc(g->r, (size_t)s->nres, sizeof *q.req);
		if (!q.req)
			return false;
		for (int r = 0; r < m->nres; r++) {
			if (m->pods[j].req[r] && g->rmap[r] < 0)
				return false; /* a new resource */
			if (g->rmap[r] >= 0)
				q.req[g->rmap[r]] = m->pods[j].req[r];
		}
		q.group = q.group >= 0 ? g->gmap[q.group] : -1;
		q.node = q.node_name ? ws_node_index(g->P, q.node_name) : -1;
		if (q.node_name && q.node < 0)
			return false;
		int i = ws_pod_index(g->P, q.ns, q.name);
		if (i >= 0) {
			const ws_pod *old = &s->pods[i];
			if (old->terminal || q.terminal ||
			    old->group != q.group ||
			    old->priority != q.priority ||
			    old->preempt != q.preempt)
				return false;
			if (old->node >= 0 && !charge(g, old->node, old->req, -1))
				return false;
		} else {
			i = s->npods++;
			if (q.group >= 0)
				g->addl[q.group][g->added[q.group]++] = i;
		}
		if (q.node >= 0 && !q.terminal && !charge(g, q.node, q.req, 1))
			return false;
		s->pods[i] = q;
	}
	return true;
}

/* Groups with appended pods get new lists; the side indexes list what
 * was added since the root. */
static bool finish(merge *g, const struct ws_version *bv)
{
	ws_snapshot *s = g->s;
	for (int k = 0; k < s->ngroups; k++) {
		if (!g->added[k])
			continue;
		ws_group *x = &s->groups[k];
		int *l = wa_calloc(g->r, (size_t)(x->npods + g->added[k]),
				   sizeof *l);
		if (!l)
			return false;
		if (x->npods)
			memcpy(l, x->pods, (size_t)x->npods * sizeof *l);
		memcpy(l + x->npods, g->addl[k],
		       (size_t)g->added[k] * sizeof *l);
		x->pods = l;
		x->npods += g->added[k];
	}
	s->pod_idx_more = ws_map_new(g->o);
	s->group_idx_more = ws_map_new(g->o);
	if (!s->pod_idx_more || !s->group_idx_more)
		return false;
	for (int i = bv->root_npods; i < s->npods; i++) {
		char *k = wa_printf(g->o, "%s/%s", s->pods[i].ns,
				    s->pods[i].name);
		if (!k || ws_map_put(s->pod_idx_more, k, i) == -2)
			return false;
	}
	for (int i = bv->root_ngroups; i < s->ngroups; i++) {
		char *k = wa_printf(g->o, "%s/%s", s->groups[i].ns,
				    s->groups[i].name);
		if (!k || ws_map_put(s->group_idx_more, k, i) == -2)
			return false;
	}
	return true;
}

/* The merge's arrays; false on NOMEM. */
static bool merge_alloc(merge *g, wa_arena *t)
{
	const ws_snapshot *P = g->P, *m = g->m;
	ws_snapshot *s = g->s;
	*s = *P;
	s->ver = NULL;
	s->arena = g->o;
	s->pods = wa_calloc(g->o, (size_t)(P->npods + m->npods) + 1,
			    sizeof *s->pods);
	s->groups = wa_calloc(g->o, (size_t)(P->ngroups + m->ngroups) + 1,
			      sizeof *s->groups);
	g->rmap = wa_calloc(t, (size_t)m->nres + 1, sizeof *g->rmap);
	g->gmap = wa_calloc(t, (size_t)m->ngroups + 1, sizeof *g->gmap);
	g->ucopied = wa_calloc(t, (size_t)P->nnodes + 1, sizeof *g->ucopied);
	size_t ng = (size_t)(P->ngroups + m->ngroups) + 1;
	g->added = wa_calloc(t, ng, sizeof *g->added);
	g->addl = wa_calloc(t, ng, sizeof *g->addl);
	if (!s->pods || !s->groups || !g->rmap || !g->gmap || !g->ucopied ||
	    !g->added || !g->addl)
		return false;
	for (size_t k = 0; k < ng; k++)
		if (!(g->addl[k] = wa_calloc(t, (size_t)m->npods + 1,
					     sizeof(int))))
			return false;
	memcpy(s->pods, P->pods, (size_t)P->npods * sizeof *s->pods);
	memcpy(s->groups, P->groups, (size_t)P->ngroups * sizeof *s->groups);
	/* the base's own node array lives in its arrays' store, which the
	 * new version does not keep: copy it (the root's is kept) */
	if (P->nodes != g->root_nodes && !usage_nodes(g))
		return false;
	for (int r = 0; r < m->nres; r++)
		g->rmap[r] = ws_res_index(P, m->res[r]);
	return true;
}

int vs_apply_fast(const ws_snapshot *base, const wasp_delta *d,
		  ws_snapshot **out, wasp_error *err)
{
	double t0 = wb_now();
	const struct ws_version *bv = base->ver;
	wa_arena *t = wa_new();
	if (!t)
		return vs_nomem(err);
	size_t cap = bv->objs->npcs + 3 * d->n + 1;
	mini_in mi = {wa_calloc(t, cap, sizeof *mi.roots), 0,
		      wa_calloc(t, cap, sizeof *mi.ctx), 0};
	if (!mi.roots || !mi.ctx) {
		wa_destroy(t);
		return vs_nomem(err);
	}
	for (size_t i = 0; i < bv->objs->npcs; i++)
		mi.roots[mi.n++] = bv->objs->pcs[i];
	ws_snapshot *m = NULL;
	wasp_error quiet;
	if (!eligible(bv, d, &mi, t) ||
	    wd_decode(&(wt_doc){"<delta>", (wt_node **)mi.roots, mi.n}, 1, &m,
		      &quiet) ||
	    m->nwarnings || m->dra) {
		ws_snapshot_free(m);
		wa_destroy(t);
		return VF_FULL;
	}
	merge g = {.P = bv->plain, .m = m, .r = m->arena, .o = wa_new(),
		   .root_nodes = bv->root->nodes};
	g.s = g.o ? wa_alloc(g.o, sizeof *g.s) : NULL;
	vs_store *st[2] = {NULL, NULL};
	struct ws_version *v = NULL;
	int rc = VF_FULL;
	if (g.s && merge_alloc(&g, t) && merge_groups(&g) && merge_pods(&g) &&
	    finish(&g, bv) &&
	    (g.s->cache = wa_alloc(g.o, sizeof *g.s->cache))) {
		st[0] = vs_store_new(m->arena);
		st[1] = st[0] ? vs_store_new(g.o) : NULL;
		if (st[1]) {
			/* nodes and keys unchanged: the base's topology */
			st[1]->cache = g.s->cache;
			wtp_cache_inherit(g.s->cache, g.P->cache, g.s,
					  g.P->ngroups);
		}
		if (st[1])
			v = vs_version_derive(bv, d->ops, d->n, st, 2,
					      true);
		rc = v ? WASP_OK : vs_nomem(err);
	}
	wa_destroy(t);
	if (rc) {
		/* nothing was shared: the arenas are still ours alone */
		if (!st[1]) {
			free(st[0]);
			ws_snapshot_free(m);
			wa_destroy(g.o);
		}
		return rc;
	}
	v->plain = g.s;
	v->plain_store = st[1];
	g.s->ver = v;
	g.s->t_load = wb_now() - t0;
	*out = g.s;
	return WASP_OK;
}
