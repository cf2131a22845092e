/*
 * snapshot.c -- lookups over the snapshot and the static node-fit
 * predicates (taints/tolerations, nodeSelector, required node affinity,
 * unschedulable/NotReady), written to match kube-scheduler's filters.
 *
 * The snapshot is immutable and shared between threads, so the name indexes
 * are built once (ws_snapshot_index, called by wd_decode) and only read
 * afterwards; nothing here mutates on lookup.
 */
#include "model/snapshot.h"
#include "model/version.h"
#include "base/sort.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- hash */

struct ws_map {
	wa_arena *a;
	const char **keys;
	int *vals;
	size_t cap, n; /* cap: power of two (or 0) */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

ws_map *ws_map_new(wa_arena *a)
{
	ws_map *m = wa_alloc(a, sizeof *m);
	if (m)
		m->a = a;
	return m;
}

static size_t slot_of(const ws_map *m, const char *key)
{
	size_t mask = m->cap - 1, i = (size_t)hash_str(key) & mask;
	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

static int map_grow(ws_map *m)
{
	size_t nc = m->cap ? m->cap * 2 : 64;
	const char **ok = m->keys;
	int *ov = m->vals;
	size_t oc = m->cap;
	const char **nk = wa_calloc(m->a, nc, sizeof *nk);
	int *nv = wa_calloc(m->a, nc, sizeof *nv);
	if (!nk || !nv)
		return -1;
	m->keys = nk;
	m->vals = nv;
	m->cap = nc;
	for (size_t i = 0; i < oc; i++)
		if (ok[i]) {
			size_t j = slot_of(m, ok[i]);
			nk[j] = ok[i];
			nv[j] = ov[i];
		}
	return 0;
}

int ws_map_put(ws_map *m, const char *key, int val)
{
	if (m->cap) {
		size_t i = slot_of(m, key);
		if (m->keys[i])
			return m->vals[i];
	}
	/* keep the load factor under 1/2 */
	if ((m->n + 1) * 2 > m->cap && map_grow(m))
		return -2;
	size_t i = slot_of(m, key);
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return -1;
}

int ws_map_get(const ws_map *m, const char *key)
{
	if (!m || !m->cap)
		return -1;
	size_t i = slot_of(m, key);
	return m->keys[i] ? m->vals[i] : -1;
}

size_t ws_map_count(const ws_map *m)
{
	return m ? m->n : 0;
}

/* "ns/name" (neither may contain '/'); NULL when it does not fit. */
static const char *ns_key(char *buf, size_t size, const char *ns,
			  const char *name)
{
	int n = snprintf(buf, size, "%s/%s", ns ? ns : "", name ? name : "");
	return n >= 0 && (size_t)n < size ? buf : NULL;
}

static int name_order(const void *ctx, int a, int b)
{
	const ws_snapshot *s = ctx;
	int c = strcmp(s->nodes[a].name, s->nodes[b].name);
	return c ? c : (a > b) - (a < b);
}

/* s->node_rank: each node's position in name order. */
static int node_ranks(ws_snapshot *s)
{
	int n = s->nnodes;
	int *rank = wa_calloc(s->arena, (size_t)n + 1, sizeof *rank);
	int *v = wa_calloc(s->arena, (size_t)n + 1, sizeof *v);
	int *tmp = wa_calloc(s->arena, (size_t)n + 1, sizeof *tmp);
	if (!rank || !v || !tmp)
		return WASP_ENOMEM;
	for (int i = 0; i < n; i++)
		v[i] = i;
	wis_sort(v, tmp, n, name_order, s);
	for (int i = 0; i < n; i++)
		rank[v[i]] = i;
	s->node_rank = rank;
	return WASP_OK;
}

int ws_snapshot_index(ws_snapshot *s)
{
	wa_arena *a = s->arena;
	ws_map *nm = ws_map_new(a), *pm = ws_map_new(a), *gm = ws_map_new(a);
	if (!nm || !pm || !gm)
		return WASP_ENOMEM;
	for (int i = 0; i < s->nnodes; i++)
		if (ws_map_put(nm, s->nodes[i].name, i) == -2)
			return WASP_ENOMEM;
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *p = &s->pods[i];
		const char *k = wa_printf(a, "%s/%s", p->ns, p->name);
		if (!k || ws_map_put(pm, k, i) == -2)
			return WASP_ENOMEM;
	}
	for (int i = 0; i < s->ngroups; i++) {
		const ws_group *g = &s->groups[i];
		const char *k = wa_printf(a, "%s/%s", g->ns, g->name);
		if (!k || ws_map_put(gm, k, i) == -2)
			return WASP_ENOMEM;
	}
	s->node_idx = nm;
	s->pod_idx = pm;
	s->group_idx = gm;
	return node_ranks(s);
}

/* ------------------------------------------------------------- lookups */

int ws_res_index(const ws_snapshot *s, const char *name)
{
	/* A handful of resources: a scan beats hashing. */
	for (int i = 0; i < s->nres; i++)
		if (!strcmp(s->res[i], name))
			return i;
	return -1;
}

const char *ws_label(const ws_node *n, const char *key)
{
	int lo = 0, hi = n->nlabels - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(n->labels[mid].key, key);
		if (c == 0)
			return n->labels[mid].val;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

int ws_node_index(const ws_snapshot *s, const char *name)
{
	if (!name)
		return -1;
	if (s->node_idx)
		return ws_map_get(s->node_idx, name);
	for (int i = 0; i < s->nnodes; i++)
		if (!strcmp(s->nodes[i].name, name))
			return i;
	return -1;
}

int ws_group_index(const ws_snapshot *s, const char *ns, const char *name)
{
	if (!name)
		return -1;
	if (s->group_idx) {
		char buf[2 * WASP_MAX_NAME + 8];
		const char *k = ns_key(buf, sizeof buf, ns, name);
		int i = k ? ws_map_get(s->group_idx, k) : -1;
		return i < 0 && k && s->group_idx_more
			   ? ws_map_get(s->group_idx_more, k)
			   : i;
	}
	for (int i = 0; i < s->ngroups; i++)
		if (!strcmp(s->groups[i].name, name) &&
		    !strcmp(s->groups[i].ns ? s->groups[i].ns : "",
			    ns ? ns : ""))
			return i;
	return -1;
}

int ws_pod_index(const ws_snapshot *s, const char *ns, const char *name)
{
	if (!name)
		return -1;
	if (s->pod_idx) {
		char buf[2 * WASP_MAX_NAME + 8];
		const char *k = ns_key(buf, sizeof buf, ns, name);
		int i = k ? ws_map_get(s->pod_idx, k) : -1;
		return i < 0 && k && s->pod_idx_more
			   ? ws_map_get(s->pod_idx_more, k)
			   : i;
	}
	for (int i = 0; i < s->npods; i++)
		if (!strcmp(s->pods[i].name, name) &&
		    !strcmp(s->pods[i].ns ? s->pods[i].ns : "", ns ? ns : ""))
			return i;
	return -1;
}

/* ---------------------------------------------------------- predicates */

static bool why_set(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return false;
}

bool ws_node_schedulable(const ws_node *n, const char **why)
{
	if (n->unschedulable)
		return why_set(why, "node is unschedulable");
	if (!n->ready)
		return why_set(why, "node is not ready");
	return true;
}

/* v1.Toleration.ToleratesTaint. */
bool ws_toleration_tolerates(const ws_toleration *t, const ws_taint *taint)
{
	if (t->effect != WS_EFFECT_ALL && t->effect != taint->effect)
		return false;
	if (t->key && t->key[0] && strcmp(t->key, taint->key ? taint->key : ""))
		return false;
	if (t->exists)
		return true;
	return !strcmp(t->val ? t->val : "", taint->val ? taint->val : "");
}

bool ws_tolerates(const ws_pod *p, const ws_node *n, const char **why)
{
	for (int i = 0; i < n->ntaints; i++) {
		const ws_taint *t = &n->taints[i];
		/* The filter only looks at NoSchedule and NoExecute;
		 * PreferNoSchedule is a scoring matter. */
		if (t->effect != WS_EFFECT_NOSCHEDULE &&
		    t->effect != WS_EFFECT_NOEXECUTE)
			continue;
		bool ok = false;
		for (int j = 0; j < p->ntolerations && !ok; j++)
			ok = ws_toleration_tolerates(&p->tolerations[j], t);
		if (!ok)
			return why_set(why, "untolerated taint");
	}
	return true;
}

bool ws_selector_matches(const ws_pod *p, const ws_node *n, const char **why)
{
	for (int i = 0; i < p->nselector; i++) {
		const char *v = ws_label(n, p->selector[i].key);
		if (!v || strcmp(v, p->selector[i].val))
			return why_set(why, "node selector does not match");
	}
	return true;
}

/* strconv.ParseInt(s, 10, 64). */
static bool parse_i64(const char *s, int64_t *out)
{
	if (!s || !*s)
		return false;
	bool neg = false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return false;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool in_vals(const ws_expr *e, const char *v)
{
	for (int i = 0; i < e->nvals; i++)
		if (!strcmp(e->vals[i], v))
			return true;
	return false;
}

/* One NodeSelectorRequirement (labels.Requirement.Matches semantics). */
bool ws_expr_matches(const ws_expr *e, const ws_node *n)
{
	const char *v = e->field
	    ? (!strcmp(e->key, "metadata.name") ? n->name : NULL)
	    : ws_label(n, e->key);
	int64_t x;
	switch (e->op) {
	case WS_OP_IN:
		return v && in_vals(e, v);
	case WS_OP_NOTIN:
		return !v || !in_vals(e, v);
	case WS_OP_EXISTS:
		return v != NULL;
	case WS_OP_DOESNOTEXIST:
		return v == NULL;
	case WS_OP_GT:
		return v && parse_i64(v, &x) && x > e->num;
	case WS_OP_LT:
		return v && parse_i64(v, &x) && x < e->num;
	}
	return false;
}

bool ws_affinity_matches(const ws_pod *p, const ws_node *n, const char **why)
{
	if (p->naffinity == 0)
		return true;
	if (ws_terms_match(p->affinity, p->naffinity, n))
		return true;
	return why_set(why, "node affinity does not match");
}

bool ws_terms_match(const ws_term *terms, int nterms, const ws_node *n)
{
	for (int t = 0; t < nterms; t++) {
		const ws_term *term = &terms[t];
		/* An empty term matches nothing (nodeaffinity semantics). */
		if (term->nexprs == 0)
			continue;
		bool all = true;
		for (int i = 0; i < term->nexprs && all; i++)
			all = ws_expr_matches(&term->exprs[i], n);
		if (all)
			return true;
	}
	return false;
}

bool ws_pod_fits_node_static(const ws_pod *p, const ws_node *n,
			     const char **why)
{
	return ws_node_schedulable(n, why) && ws_tolerates(p, n, why) &&
	       ws_selector_matches(p, n, why) &&
	       ws_affinity_matches(p, n, why);
}

void ws_snapshot_free(ws_snapshot *s)
{
	if (s && s->ver)
		ws_version_free(s);
	else if (s)
		wa_destroy(s->arena);
}
