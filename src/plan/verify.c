/*
 * verify.c -- the independent checker: a plan against the snapshot.
 *
 * Deliberately shares nothing with the reduction or the solvers: pods,
 * nodes and groups are looked up by name in hash tables built here; node
 * fit uses the snapshot's static predicates plus capacity summed here;
 * topology domains are read from node labels here (in path mode the level
 * order comes from the kueue Topology object or, for keys it does not
 * list, from a small nesting test of our own), never from topology.c.
 * A bug in the reduction, the greedy core or the ILP thus shows up as a
 * violation.
 *
 * Violations are lines of text, in a fixed order: placements (in plan
 * order), capacity (by node), groups (by snapshot order), waiting entries.
 */
#include "plan/verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dra.h"
#include "model/quantity.h"

/* --------------------------------------------------------- name tables */

typedef struct hent {
	const char *a, *b; /* namespace (or ""), name */
	int v;
} hent;

typedef struct htab {
	hent *e;
	size_t mask;
} htab;

static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static int ht_init(htab *t, wa_arena *a, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 1)
		cap *= 2;
	t->e = wa_calloc(a, cap, sizeof *t->e);
	t->mask = cap - 1;
	return t->e ? 0 : -1;
}

/* Keeps the first entry of a duplicated key. */
static void ht_put(htab *t, const char *a, const char *b, int v)
{
	a = a ? a : "";
	b = b ? b : "";
	for (size_t i = hash2(a, b) & t->mask;; i = (i + 1) & t->mask) {
		hent *e = &t->e[i];
		if (!e->b) {
			*e = (hent){a, b, v};
			return;
		}
		if (!strcmp(e->a, a) && !strcmp(e->b, b))
			return;
	}
}

static int ht_get(const htab *t, const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	for (size_t i = hash2(a, b) & t->mask;; i = (i + 1) & t->mask) {
		const hent *e = &t->e[i];
		if (!e->b)
			return -1;
		if (!strcmp(e->a, a) && !strcmp(e->b, b))
			return e->v;
	}
}

/* ------------------------------------------------------------- report */

typedef struct vctx {
	const ws_snapshot *s;
	const wasp_plan *p;
	wa_arena *a;
	char *buf;
	size_t len, cap;
	size_t nviol;
	bool nomem;
	bool path;         /* domain mode of the plan */
	htab pods, nodes, groups;
	int *pod_node;     /* npods: node the plan puts the pod on, -1     */
	int *pod_place;    /* npods: placement index, -1                   */
	int64_t *placed;   /* nnodes * nres: placed requests                */
	int *g_placed;     /* ngroups: valid placements per group          */
	int *pod_evict;    /* npods: eviction index, -1                    */
	int64_t *evicted;  /* nnodes * nres: requests the plan evicts       */
	bool any_evict;
	int *pod_moved;    /* npods: node a move takes the pod to, -1      */
	int32_t *dv_prio;  /* per device: freed by evicting pods of this
			      priority at most (INT32_MIN: not freed)    */
	/* path mode: level lists already worked out, per key */
	const char **lv_key;
	const char ***lv_list;
	int *lv_n;
	int nlv;
} vctx;

__attribute__((format(printf, 2, 3)))
static void viol(vctx *v, const char *fmt, ...)
{
	v->nviol++;
	if (v->nomem)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t need = v->len + (size_t)n + 2;
	if (need > v->cap) {
		size_t nc = v->cap ? v->cap : 1024;
		while (nc < need)
			nc *= 2;
		char *nb = wa_alloc(v->a, nc);
		if (!nb) {
			v->nomem = true;
			return;
		}
		if (v->len)
			memcpy(nb, v->buf, v->len);
		v->buf = nb;
		v->cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(v->buf + v->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	v->len += n;
	v->buf[v->len++] = '\n';
	v->buf[v->len] = 0;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

static char *qty(const vctx *v, int r, int64_t milli, char *buf, size_t n)
{
	return wq_format(milli, wq_is_bytes_resource(v->s->res[r]), buf, n);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t c;
	if (__builtin_add_overflow(a, b, &c))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return c;
}

/* ---------------------------------------------------------- placements */

static void check_placements(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	for (int i = 0; i < p->nplace; i++) {
		const wpl_place *x = &p->place[i];
		int pi = ht_get(&v->pods, x->ns, x->pod);
		int ni = ht_get(&v->nodes, "", x->node);
		if (pi < 0) {
			viol(v, "pod %s/%s: no such pod in the snapshot",
			     nz(x->ns), nz(x->pod));
			continue;
		}
		const ws_pod *pod = &s->pods[pi];
		if (ni < 0) {
			viol(v, "pod %s/%s: placed on node %s, which is not in "
				"the snapshot",
			     pod->ns, pod->name, nz(x->node));
			continue;
		}
		const ws_node *node = &s->nodes[ni];
		if (v->pod_place[pi] >= 0) {
			viol(v, "pod %s/%s: placed twice (on %s and on %s)",
			     pod->ns, pod->name,
			     nz(p->place[v->pod_place[pi]].node), node->name);
			continue;
		}
		if (pod->terminal) {
			viol(v, "pod %s/%s: placed but it has terminated",
			     pod->ns, pod->name);
			continue;
		}
		if (!ws_pod_pending(pod)) {
			viol(v, "pod %s/%s: placed on %s but already bound to "
				"%s",
			     pod->ns, pod->name, node->name,
			     nz(pod->node_name));
			continue;
		}
		if (x->group) {
			const char *real = pod->group >= 0
					       ? s->groups[pod->group].name
					       : NULL;
			if (!real || strcmp(real, x->group))
				viol(v, "pod %s/%s: the plan says group %s, "
					"the snapshot says %s",
				     pod->ns, pod->name, x->group,
				     real ? real : "none");
		}
		const char *why = NULL;
		if (!ws_pod_fits_node_static(pod, node, &why))
			viol(v, "pod %s/%s on node %s: %s", pod->ns, pod->name,
			     node->name, why ? why : "does not fit");
		/* Count it for capacity, gang and topology whatever the
		 * static verdict, so every problem is reported once. */
		v->pod_place[pi] = i;
		v->pod_node[pi] = ni;
		for (int r = 0; r < s->nres; r++) {
			int64_t *c = &v->placed[(size_t)ni * s->nres + r];
			*c = sat_add(*c, pod->req[r]);
		}
		if (pod->group >= 0)
			v->g_placed[pod->group]++;
	}
}

static void check_capacity(vctx *v)
{
	const ws_snapshot *s = v->s;
	char b1[48], b2[48], b3[48], b4[48];
	for (int n = 0; n < s->nnodes; n++) {
		const ws_node *node = &s->nodes[n];
		for (int r = 0; r < s->nres; r++) {
			int64_t pl = v->placed[(size_t)n * s->nres + r];
			if (!pl)
				continue; /* over-commit before the plan is
					     not the plan's doing */
			int64_t ev = v->evicted[(size_t)n * s->nres + r];
			int64_t tot = sat_add(node->used[r] - ev, pl);
			if (tot <= node->alloc[r])
				continue;
			if (ev) {
				char b5[48];
				viol(v, "node %s: %s over allocatable: %s > %s "
					"(bound %s - evicted %s + placed %s)",
				     node->name, s->res[r],
				     qty(v, r, tot, b1, sizeof b1),
				     qty(v, r, node->alloc[r], b2, sizeof b2),
				     qty(v, r, node->used[r], b3, sizeof b3),
				     qty(v, r, ev, b5, sizeof b5),
				     qty(v, r, pl, b4, sizeof b4));
				continue;
			}
			viol(v, "node %s: %s over allocatable: %s > %s (bound "
				"%s + placed %s)",
			     node->name, s->res[r],
			     qty(v, r, tot, b1, sizeof b1),
			     qty(v, r, node->alloc[r], b2, sizeof b2),
			     qty(v, r, node->used[r], b3, sizeof b3),
			     qty(v, r, pl, b4, sizeof b4));
		}
	}
}

/* ----------------------------------------------------------- evictions */

static int32_t pod_prio(const ws_snapshot *s, const ws_pod *pod)
{
	return pod->group >= 0 ? s->groups[pod->group].priority
			       : pod->priority;
}

/* Each eviction: a running pod, evicted once, by a group (or lone pod)
 * that the plan places, of strictly higher priority, whose policy lets it
 * preempt.  Fills pod_evict and evicted (run after check_placements). */
static void check_evictions(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	for (int i = 0; i < p->nevict; i++) {
		const wpl_evict *x = &p->evict[i];
		int pi = ht_get(&v->pods, x->ns, x->pod);
		if (pi < 0) {
			viol(v, "eviction of %s/%s: no such pod in the "
				"snapshot", nz(x->ns), nz(x->pod));
			continue;
		}
		const ws_pod *pod = &s->pods[pi];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0) {
			viol(v, "eviction of %s/%s: the pod is not running on "
				"a node of the snapshot", pod->ns, pod->name);
			continue;
		}
		if (v->pod_evict[pi] >= 0) {
			viol(v, "eviction of %s/%s: evicted twice", pod->ns,
			     pod->name);
			continue;
		}
		if (x->node && strcmp(x->node, s->nodes[pod->node].name))
			viol(v, "eviction of %s/%s: the plan says node %s, "
				"the pod runs on %s", pod->ns, pod->name,
			     x->node, s->nodes[pod->node].name);
		v->pod_evict[pi] = i;
		v->any_evict = true;
		for (int r = 0; r < s->nres; r++) {
			int64_t *c = &v->evicted[(size_t)pod->node * s->nres +
						 r];
			*c = sat_add(*c, pod->req[r]);
		}
		int32_t vp = pod_prio(s, pod), bp;
		int pol;
		bool places;
		bool lone = x->by_kind && !strcmp(x->by_kind, "Pod");
		if (lone) {
			int bi = ht_get(&v->pods, x->by_ns, x->by);
			if (bi < 0) {
				viol(v, "eviction of %s/%s: preempted by pod "
					"%s/%s, which is not in the snapshot",
				     pod->ns, pod->name, nz(x->by_ns),
				     nz(x->by));
				continue;
			}
			bp = s->pods[bi].priority;
			pol = s->pods[bi].preempt;
			places = v->pod_node[bi] >= 0;
		} else {
			int g = ht_get(&v->groups, x->by_ns, x->by);
			if (g < 0) {
				viol(v, "eviction of %s/%s: preempted by "
					"PodGroup %s/%s, which is not in the "
					"snapshot", pod->ns, pod->name,
				     nz(x->by_ns), nz(x->by));
				continue;
			}
			bp = s->groups[g].priority;
			pol = s->groups[g].preempt;
			places = v->g_placed[g] > 0;
		}
		if (!places)
			viol(v, "eviction of %s/%s: %s/%s, which evicts it, "
				"places no pod in this plan", pod->ns,
			     pod->name, nz(x->by_ns), nz(x->by));
		if (bp <= vp)
			viol(v, "eviction of %s/%s: its priority %d is not "
				"below the priority %d of %s/%s", pod->ns,
			     pod->name, (int)vp, (int)bp, nz(x->by_ns),
			     nz(x->by));
		if (pol == WS_PREEMPT_NEVER)
			viol(v, "eviction of %s/%s: %s/%s has "
				"preemptionPolicy Never", pod->ns, pod->name,
			     nz(x->by_ns), nz(x->by));
	}
	/* disruptionMode all: the running group goes whole or not at all */
	for (int g = 0; v->any_evict && g < s->ngroups; g++) {
		const ws_group *grp = &s->groups[g];
		if (grp->disruption != WS_DISRUPT_ALL)
			continue;
		int run = 0, ev = 0;
		for (int k = 0; k < grp->npods; k++) {
			const ws_pod *pod = &s->pods[grp->pods[k]];
			if (pod->terminal || ws_pod_pending(pod) ||
			    pod->node < 0)
				continue;
			run++;
			ev += v->pod_evict[grp->pods[k]] >= 0;
		}
		if (ev && ev < run)
			viol(v, "group %s/%s: disruptionMode all, but only %d "
				"of its %d running pods are evicted", grp->ns,
			     grp->name, ev, run);
	}
}

/* Moves: a running pod, not evicted, from its node to another existing
 * node that it tolerates and selects; capacity counts it at the
 * destination and no longer at the source (check_capacity). */
static void check_moves(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	for (int i = 0; i < p->nmove; i++) {
		const wpl_move *x = &p->move[i];
		int pi = ht_get(&v->pods, x->ns, x->pod);
		if (pi < 0) {
			viol(v, "move of %s/%s: no such pod in the snapshot",
			     nz(x->ns), nz(x->pod));
			continue;
		}
		const ws_pod *pod = &s->pods[pi];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0) {
			viol(v, "move of %s/%s: the pod is not running on a "
				"node of the snapshot", pod->ns, pod->name);
			continue;
		}
		if (v->pod_evict[pi] >= 0 || v->pod_moved[pi] >= 0) {
			viol(v, "move of %s/%s: the pod is %s", pod->ns,
			     pod->name, v->pod_evict[pi] >= 0
				 ? "also evicted" : "moved twice");
			continue;
		}
		if (x->from && strcmp(x->from, s->nodes[pod->node].name))
			viol(v, "move of %s/%s: from %s, but it runs on %s",
			     pod->ns, pod->name, x->from,
			     s->nodes[pod->node].name);
		int ni = ht_get(&v->nodes, "", x->to);
		if (ni < 0) {
			viol(v, "move of %s/%s: to node %s, which is not in "
				"the snapshot", pod->ns, pod->name, nz(x->to));
			continue;
		}
		if (ni == pod->node) {
			viol(v, "move of %s/%s: to the node it runs on",
			     pod->ns, pod->name);
			continue;
		}
		const char *why = NULL;
		if (!ws_pod_fits_node_static(pod, &s->nodes[ni], &why))
			viol(v, "move of %s/%s to %s: %s", pod->ns, pod->name,
			     s->nodes[ni].name, why ? why : "does not fit");
		if (pod->group >= 0 &&
		    s->groups[pod->group].disruption == WS_DISRUPT_ALL)
			viol(v, "move of %s/%s: its group %s is disrupted "
				"only whole (disruptionMode all)", pod->ns,
			     pod->name, s->groups[pod->group].name);
		v->pod_moved[pi] = ni;
		for (int r = 0; r < s->nres; r++) {
			int64_t *c = &v->placed[(size_t)ni * s->nres + r];
			*c = sat_add(*c, pod->req[r]);
			c = &v->evicted[(size_t)pod->node * s->nres + r];
			*c = sat_add(*c, pod->req[r]);
		}
	}
	/* moves counted (issue 6) */
	if (p->sum.moved_pods != p->nmove)
		viol(v, "the plan says %d moved pods but lists %d moves",
		     p->sum.moved_pods, p->nmove);
}

/* PodDisruptionBudgets, recomputed here: the evicted pods each budget
 * selects beyond the disruptions it allows are violations of the budget
 * (allowed when nothing better exists); the plan must count them right. */
static bool lbl_match(const ws_expr *e, const ws_pod *pod)
{
	const char *val = NULL;
	for (int i = 0; i < pod->nlabels && !val; i++)
		if (!strcmp(pod->labels[i].key, e->key))
			val = pod->labels[i].val;
	bool in = false;
	for (int i = 0; val && i < e->nvals; i++)
		in = in || !strcmp(val, e->vals[i]);
	return e->op == WS_OP_IN ? in
	       : e->op == WS_OP_NOTIN ? !in
	       : e->op == WS_OP_EXISTS ? val != NULL
	       : e->op == WS_OP_DOESNOTEXIST ? val == NULL : false;
}

static bool pdb_sel(const ws_pdb *b, const ws_pod *pod)
{
	if (!b->has_selector || strcmp(b->ns, pod->ns))
		return false;
	for (int i = 0; i < b->nsel; i++)
		if (!lbl_match(&b->sel[i], pod))
			return false;
	return true;
}

static void check_pdbs(vctx *v)
{
	const ws_snapshot *s = v->s;
	long total = 0;
	for (int j = 0; v->any_evict && j < s->npdbs; j++) {
		const ws_pdb *b = &s->pdbs[j];
		int healthy = 0, ev = 0;
		for (int i = 0; i < s->npods; i++) {
			const ws_pod *pod = &s->pods[i];
			if (pod->terminal || ws_pod_pending(pod) ||
			    !pdb_sel(b, pod))
				continue;
			healthy++;
			ev += v->pod_evict[i] >= 0;
		}
		int allowed = healthy;
		if (b->has_allowed)
			allowed = b->allowed;
		else if (b->has_healthy)
			allowed = b->current_healthy - b->desired_healthy;
		else if (b->min_kind == 1)
			allowed = healthy - b->min_val;
		else if (b->min_kind == 2)
			allowed = healthy - (int)(((long)b->min_val * healthy +
						   99) / 100);
		else if (b->max_kind == 1)
			allowed = b->max_val;
		else if (b->max_kind == 2)
			allowed = (int)(((long)b->max_val * healthy + 99) /
					100);
		if (allowed < 0)
			allowed = 0;
		if (ev > allowed)
			total += ev - allowed;
	}
	if (total != v->p->pdb_violations)
		viol(v, "PodDisruptionBudgets: the evictions break budgets %ld "
			"time%s, the plan says %d", total,
		     total == 1 ? "" : "s", v->p->pdb_violations);
}

/* Capacity by priority (DESIGN.md §5): on a node with evictions, for
 * every priority L of a pod placed there, bound pods minus the evicted
 * ones of priority below L plus the placed ones of priority at most L fit
 * the allocatable; capacity freed by a victim thus serves only pods of
 * strictly higher priority. */
static void check_priority_rows(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	if (!v->any_evict)
		return;
	int nn = s->nnodes, nres = s->nres;
	int *ps = wa_calloc(v->a, (size_t)nn + 2, sizeof(int));
	int *es = wa_calloc(v->a, (size_t)nn + 2, sizeof(int));
	int *pl = wa_calloc(v->a, (size_t)p->nplace + 1, sizeof(int));
	int *el = wa_calloc(v->a, (size_t)p->nevict + 1, sizeof(int));
	int *pf = wa_calloc(v->a, (size_t)nn + 1, sizeof(int));
	int *ef = wa_calloc(v->a, (size_t)nn + 1, sizeof(int));
	if (!ps || !es || !pl || !el || !pf || !ef) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < s->npods; i++) {
		if (v->pod_place[i] >= 0 && v->pod_node[i] >= 0)
			ps[v->pod_node[i] + 1]++;
		if (v->pod_evict[i] >= 0)
			es[s->pods[i].node + 1]++;
	}
	for (int n = 0; n < nn; n++) {
		ps[n + 1] += ps[n];
		es[n + 1] += es[n];
	}
	for (int i = 0; i < s->npods; i++) {
		if (v->pod_place[i] >= 0 && v->pod_node[i] >= 0) {
			int n = v->pod_node[i];
			pl[ps[n] + pf[n]++] = i;
		}
		if (v->pod_evict[i] >= 0) {
			int n = s->pods[i].node;
			el[es[n] + ef[n]++] = i;
		}
	}
	/* moves (issue 6): a pod moved out frees its room for every level,
	 * one moved in counts at every level (it uses no freed room) */
	int64_t *mvd = wa_calloc(v->a, (size_t)nn * nres + 1, sizeof *mvd);
	if (!mvd) {
		v->nomem = true;
		return;
	}
	for (int i = 0; v->pod_moved && i < s->npods; i++) {
		int to = v->pod_moved[i];
		if (to < 0 || s->pods[i].node < 0)
			continue;
		for (int r = 0; r < nres; r++) {
			mvd[(size_t)s->pods[i].node * nres + r] -=
			    s->pods[i].req[r];
			mvd[(size_t)to * nres + r] += s->pods[i].req[r];
		}
	}
	char b1[48], b2[48];
	for (int n = 0; n < nn; n++) {
		if (es[n] == es[n + 1] || ps[n] == ps[n + 1])
			continue;
		const ws_node *node = &s->nodes[n];
		bool bad = false;
		for (int a = ps[n]; a < ps[n + 1] && !bad; a++) {
			int32_t L = pod_prio(s, &s->pods[pl[a]]);
			for (int r = 0; r < nres && !bad; r++) {
				int64_t tot = node->used[r] +
					      mvd[(size_t)n * nres + r];
				int32_t vmax = INT32_MIN;
				for (int e = es[n]; e < es[n + 1]; e++) {
					const ws_pod *q = &s->pods[el[e]];
					if (pod_prio(s, q) < L)
						tot -= q->req[r];
					else if (pod_prio(s, q) > vmax)
						vmax = pod_prio(s, q);
				}
				for (int b = ps[n]; b < ps[n + 1]; b++) {
					const ws_pod *q = &s->pods[pl[b]];
					if (pod_prio(s, q) <= L)
						tot = sat_add(tot, q->req[r]);
				}
				if (tot <= node->alloc[r])
					continue;
				viol(v, "node %s: %s freed by evicting pods of "
					"priority >= %d is used by pods of "
					"priority %d or lower: %s > %s at "
					"level %d", node->name, s->res[r],
				     (int)vmax, (int)L,
				     qty(v, r, tot, b1, sizeof b1),
				     qty(v, r, node->alloc[r], b2, sizeof b2),
				     (int)L);
				bad = true;
			}
		}
	}
}

/* ------------------------------------------------------------ topology */

/* True when the nodes of each value of `fine` all share one value of
 * `coarse` (a missing coarse label counts as a value of its own). */
static bool nests_in(const vctx *v, const char *fine, const char *coarse)
{
	const ws_snapshot *s = v->s;
	htab t;
	if (ht_init(&t, v->a, s->nnodes))
		return false;
	/* value of fine -> first node seen with it */
	for (int n = 0; n < s->nnodes; n++) {
		const char *f = ws_label(&s->nodes[n], fine);
		if (!f)
			continue;
		const char *c = ws_label(&s->nodes[n], coarse);
		int first = ht_get(&t, "", f);
		if (first < 0) {
			ht_put(&t, "", f, n);
			continue;
		}
		const char *c0 = ws_label(&s->nodes[first], coarse);
		if ((c == NULL) != (c0 == NULL) || (c && strcmp(c, c0)))
			return false;
	}
	return true;
}

static int count_values(const vctx *v, const char *key)
{
	const ws_snapshot *s = v->s;
	htab t;
	if (ht_init(&t, v->a, s->nnodes))
		return 0;
	int k = 0;
	for (int n = 0; n < s->nnodes; n++) {
		const char *val = ws_label(&s->nodes[n], key);
		if (val && ht_get(&t, "", val) < 0)
			ht_put(&t, "", val, k++);
	}
	return k;
}

/* The labels whose values make up a domain of `key` in path mode, coarse
 * to fine, ending with `key` itself: the levels above it in the (first)
 * kueue Topology object; for a key that object does not list, the other
 * keys (its levels and every constraint key) that `key` nests in and that
 * have fewer values (equal partitions: the smaller name is the coarser),
 * coarsest first. */
static int path_levels(vctx *v, const char *key, const char ***out)
{
	const ws_snapshot *s = v->s;
	const ws_levels *lv = s->ntopologies ? &s->topologies[0] : NULL;
	for (int i = 0; lv && i < lv->nlabels; i++)
		if (!strcmp(lv->labels[i], key)) {
			*out = lv->labels;
			return i + 1;
		}
	int maxc = s->ngroups + s->ncomps + (lv ? lv->nlabels : 0) + 1;
	const char **all = wa_calloc(v->a, maxc, sizeof *all);
	const char **cand = wa_calloc(v->a, maxc, sizeof *cand);
	int *nval = wa_calloc(v->a, maxc, sizeof *nval);
	if (!all || !cand || !nval) {
		v->nomem = true;
		return 0;
	}
	int nall = 0, ncand = 0;
	for (int i = 0; lv && i < lv->nlabels; i++)
		all[nall++] = lv->labels[i];
	for (int g = 0; g < s->ngroups; g++)
		if (s->groups[g].topo_key && s->groups[g].topo_key[0])
			all[nall++] = s->groups[g].topo_key;
	for (int h = 0; h < s->ncomps; h++)
		if (s->comps[h].topo_key)
			all[nall++] = s->comps[h].topo_key;
	int kv = count_values(v, key);
	for (int i = 0; i < nall; i++) {
		const char *k = all[i];
		bool dup = !strcmp(k, key);
		for (int j = 0; j < ncand && !dup; j++)
			dup = !strcmp(cand[j], k);
		if (dup || !nests_in(v, key, k))
			continue;
		int kc = count_values(v, k);
		if (kc > kv || (kc == kv && strcmp(key, k) < 0))
			continue;
		nval[ncand] = kc;
		cand[ncand++] = k;
	}
	/* coarsest (fewest values) first; insertion sort, few keys */
	for (int i = 1; i < ncand; i++)
		for (int j = i; j > 0 && (nval[j] < nval[j - 1] ||
					  (nval[j] == nval[j - 1] &&
					   strcmp(cand[j], cand[j - 1]) < 0));
		     j--) {
			const char *tk = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = tk;
			int tn = nval[j];
			nval[j] = nval[j - 1];
			nval[j - 1] = tn;
		}
	cand[ncand++] = key;
	*out = cand;
	return ncand;
}

/* The domain of node n for the levels: "v0/v1/.../vk" (a missing coarser
 * label reads ""), or NULL when the node lacks the key's own label. */
static const char *domain_of(vctx *v, int n, const char *const *lv, int nl)
{
	const ws_node *node = &v->s->nodes[n];
	const char *own = ws_label(node, lv[nl - 1]);
	if (!own || nl == 1)
		return own;
	size_t len = 0;
	for (int i = 0; i < nl; i++) {
		const char *val = ws_label(node, lv[i]);
		len += (val ? strlen(val) : 0) + 1;
	}
	char *d = wa_alloc(v->a, len);
	if (!d) {
		v->nomem = true;
		return own;
	}
	char *w = d;
	for (int i = 0; i < nl; i++) {
		const char *val = ws_label(node, lv[i]);
		size_t l = val ? strlen(val) : 0;
		memcpy(w, val ? val : "", l);
		w += l;
		*w++ = i + 1 < nl ? '/' : 0;
	}
	return d;
}

static void check_topology(vctx *v, int g)
{
	const ws_snapshot *s = v->s;
	const ws_group *grp = &s->groups[g];
	const char *key = grp->topo_key;
	const char *one = key;
	const char *const *lv = &one;
	int nl = 1;
	if (v->path) {
		int c = 0;
		while (c < v->nlv && strcmp(v->lv_key[c], key))
			c++;
		if (c == v->nlv) {
			const char **l = NULL;
			v->lv_n[c] = path_levels(v, key, &l);
			v->lv_list[c] = l;
			v->lv_key[c] = key;
			v->nlv++;
		}
		nl = v->lv_n[c];
		if (nl <= 0)
			return;
		lv = v->lv_list[c];
	}
	const char *dom0 = NULL;
	int node0 = -1;
	for (int k = 0; k < grp->npods; k++) {
		int pi = grp->pods[k];
		const ws_pod *pod = &s->pods[pi];
		int n = v->pod_node[pi];
		if (n < 0 && v->pod_moved && v->pod_moved[pi] >= 0)
			n = v->pod_moved[pi];
		if (n < 0 && !pod->terminal && !ws_pod_pending(pod))
			n = pod->node; /* running; -1 if its node is unknown */
		if (n < 0)
			continue;
		const char *d = domain_of(v, n, lv, nl);
		if (!d) {
			viol(v, "group %s/%s: pod %s on node %s, which lacks "
				"topology label %s",
			     grp->ns, grp->name, pod->name, s->nodes[n].name,
			     key);
			return;
		}
		if (!dom0) {
			dom0 = d;
			node0 = n;
		} else if (strcmp(d, dom0)) {
			viol(v, "group %s/%s: pods span more than one %s "
				"domain: %s (node %s) and %s (node %s, pod "
				"%s)",
			     grp->ns, grp->name, key, dom0,
			     s->nodes[node0].name, d, s->nodes[n].name,
			     pod->name);
			return;
		}
	}
}

/* -------------------------------------------------------------- groups */

static void check_groups(vctx *v)
{
	const ws_snapshot *s = v->s;
	for (int g = 0; g < s->ngroups; g++) {
		const ws_group *grp = &s->groups[g];
		int placed = v->g_placed[g];
		if (!placed) {
			/* a moved pod must keep its group in one domain */
			bool moved = false;
			for (int k = 0; k < grp->npods && !moved; k++)
				moved = v->pod_moved[grp->pods[k]] >= 0;
			if (moved && grp->topo_key)
				check_topology(v, g);
			continue;
		}
		if (grp->invalid)
			viol(v, "group %s/%s: cannot be scheduled (%s) but %d "
				"pods are placed",
			     grp->ns, grp->name, grp->invalid, placed);
		if (grp->policy == WS_POLICY_GANG) {
			int running = 0, pending = 0;
			for (int k = 0; k < grp->npods; k++) {
				const ws_pod *pod = &s->pods[grp->pods[k]];
				if (pod->terminal)
					continue;
				if (ws_pod_pending(pod))
					pending++;
				else
					running++;
			}
			if (placed + running < grp->min_count)
				viol(v, "gang %s/%s: %d pods placed + %d "
					"running < minCount %d",
				     grp->ns, grp->name, placed, running,
				     grp->min_count);
			if (placed > pending)
				viol(v, "gang %s/%s: %d pods placed but only "
					"%d pending",
				     grp->ns, grp->name, placed, pending);
		}
		if (grp->topo_key)
			check_topology(v, g);
	}
}

/* ------------------------------------------- CompositePodGroup trees */

/* The level list for key (path mode) or the key alone; 0 on NOMEM. */
static int levels_for(vctx *v, const char *key, const char *const **lv,
		      const char **one)
{
	*one = key;
	*lv = one;
	if (!v->path)
		return 1;
	int c = 0;
	while (c < v->nlv && strcmp(v->lv_key[c], key))
		c++;
	if (c == v->nlv) {
		const char **l = NULL;
		v->lv_n[c] = path_levels(v, key, &l);
		v->lv_list[c] = l;
		v->lv_key[c] = key;
		v->nlv++;
	}
	*lv = v->lv_list[c];
	return v->lv_n[c];
}

/* After the plan: is group g admitted (pods placed or running, gangs at
 * minCount)? */
static bool group_on(const vctx *v, int g)
{
	const ws_snapshot *s = v->s;
	const ws_group *grp = &s->groups[g];
	int n = v->g_placed[g];
	for (int k = 0; k < grp->npods; k++) {
		const ws_pod *pod = &s->pods[grp->pods[k]];
		n += !pod->terminal && !ws_pod_pending(pod);
	}
	return n > 0 && (grp->policy != WS_POLICY_GANG || n >= grp->min_count);
}

static int comp_kids_on(const vctx *v, int h)
{
	const ws_composite *c = &v->s->comps[h];
	int n = 0;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k >= 0)
			n += group_on(v, k);
		else
			n += comp_kids_on(v, -1 - k) >=
			     v->s->comps[-1 - k].min_groups &&
			     comp_kids_on(v, -1 - k) > 0;
	}
	return n;
}

static int comp_placed(const vctx *v, int h)
{
	const ws_composite *c = &v->s->comps[h];
	int n = 0;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		n += k >= 0 ? v->g_placed[k] : comp_placed(v, -1 - k);
	}
	return n;
}

typedef struct tdom {
	const char *dom, *pod;
	int node;
	bool bad;
} tdom;

/* Every pod (placed or running) below comp h in one domain of lv. */
static void comp_dom(vctx *v, int h, const char *const *lv, int nl,
		     tdom *t)
{
	const ws_snapshot *s = v->s;
	const ws_composite *c = &s->comps[h];
	for (int i = 0; i < c->nkids && !t->bad; i++) {
		int k = c->kids[i];
		if (k < 0) {
			comp_dom(v, -1 - k, lv, nl, t);
			continue;
		}
		const ws_group *grp = &s->groups[k];
		for (int j = 0; j < grp->npods && !t->bad; j++) {
			int pi = grp->pods[j];
			const ws_pod *pod = &s->pods[pi];
			int n = v->pod_node[pi];
			if (n < 0 && !pod->terminal && !ws_pod_pending(pod))
				n = pod->node;
			if (n < 0)
				continue;
			const char *d = domain_of(v, n, lv, nl);
			if (!d) {
				viol(v, "CompositePodGroup %s/%s: pod %s/%s on "
					"node %s, which lacks topology label "
					"%s", c->ns, c->name, pod->ns,
				     pod->name, s->nodes[n].name, lv[nl - 1]);
				t->bad = true;
			} else if (!t->dom) {
				*t = (tdom){d, pod->name, n, false};
			} else if (strcmp(d, t->dom)) {
				viol(v, "CompositePodGroup %s/%s: pods span "
					"more than one %s domain: %s (pod %s "
					"on %s) and %s (pod %s on %s)",
				     c->ns, c->name, lv[nl - 1], t->dom,
				     t->pod, s->nodes[t->node].name, d,
				     pod->name, s->nodes[n].name);
				t->bad = true;
			}
		}
	}
}

static void check_trees(vctx *v)
{
	const ws_snapshot *s = v->s;
	for (int h = 0; h < s->ncomps; h++) {
		const ws_composite *c = &s->comps[h];
		int placed = comp_placed(v, h);
		if (!placed)
			continue;
		int on = comp_kids_on(v, h);
		if (on < c->min_groups)
			viol(v, "CompositePodGroup %s/%s: %d pods placed below "
				"it but only %d of minGroupCount %d child "
				"groups admitted",
			     c->ns, c->name, placed, on, c->min_groups);
		if (c->topo_key) {
			const char *one;
			const char *const *lv;
			int nl = levels_for(v, c->topo_key, &lv, &one);
			tdom t = {0};
			if (nl > 0)
				comp_dom(v, h, lv, nl, &t);
		}
	}
}

/* Annotations (issue 5): an exclusive group sits in one domain of its
 * exclusive key that no other group with that key uses; a sliced group
 * has a multiple of the slice size in every domain of each slice key. */
typedef struct xdom {
	const char *dom;
	int g;
} xdom;

static void check_annotations(vctx *v)
{
	const ws_snapshot *s = v->s;
	htab held; /* (key, domain) -> group */
	if (ht_init(&held, v->a, (size_t)s->npods + 1)) {
		v->nomem = true;
		return;
	}
	for (int g = 0; g < s->ngroups; g++) {
		const ws_group *grp = &s->groups[g];
		const ws_tas *ta = grp->tas;
		if (!ta)
			continue;
		for (int l = -1; l < ta->nslices; l++) {
			const char *key = l < 0 ? ta->exclusive
						: ta->slice_key[l];
			if (!key)
				continue;
			const char *one;
			const char *const *lv;
			int nl = levels_for(v, key, &lv, &one);
			if (nl <= 0)
				continue;
			/* pods per domain, in first-seen order */
			const char **dn = wa_calloc(v->a, grp->npods + 1,
						    sizeof *dn);
			int *cnt = wa_calloc(v->a, grp->npods + 1, sizeof *cnt);
			if (!dn || !cnt) {
				v->nomem = true;
				return;
			}
			int nd = 0;
			for (int k = 0; k < grp->npods; k++) {
				int pi = grp->pods[k];
				const ws_pod *pod = &s->pods[pi];
				int n = v->pod_node[pi];
				if (n < 0 && !pod->terminal &&
				    !ws_pod_pending(pod))
					n = pod->node;
				if (n < 0)
					continue;
				const char *d = domain_of(v, n, lv, nl);
				if (!d) {
					viol(v, "group %s/%s: pod %s on node %s, "
						"which lacks topology label %s",
					     grp->ns, grp->name, pod->name,
					     s->nodes[n].name, key);
					continue;
				}
				int i = 0;
				while (i < nd && strcmp(dn[i], d))
					i++;
				if (i == nd)
					dn[nd++] = d;
				cnt[i]++;
			}
			if (l >= 0) {
				for (int i = 0; i < nd; i++)
					if (cnt[i] % ta->slice_size[l])
						viol(v, "group %s/%s: %d pods in %s "
							"%s, not a multiple of the "
							"slice size %d",
						     grp->ns, grp->name, cnt[i],
						     key, dn[i],
						     ta->slice_size[l]);
				continue;
			}
			if (nd > 1)
				viol(v, "group %s/%s: exclusive topology %s but "
					"its pods span %s and %s",
				     grp->ns, grp->name, key, dn[0], dn[1]);
			for (int i = 0; i < nd; i++) {
				int other = ht_get(&held, key, dn[i]);
				if (other >= 0 && other != g)
					viol(v, "exclusive topology %s: domain %s "
						"holds both %s/%s and %s/%s",
					     key, dn[i], s->groups[other].ns,
					     s->groups[other].name, grp->ns,
					     grp->name);
				else
					ht_put(&held, key, dn[i], g);
			}
		}
	}
}

static void check_waiting(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	htab seen;
	if (ht_init(&seen, v->a, p->nwait)) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < p->nwait; i++) {
		const wpl_wait *w = &p->wait[i];
		bool pod = w->kind && !strcmp(w->kind, "Pod");
		/* the kind goes into the key: a Pod and a PodGroup may share
		 * a name */
		const char *k = wa_printf(v->a, "%s\x1f%s", nz(w->kind),
					  nz(w->group));
		if (!k) {
			v->nomem = true;
			return;
		}
		if (ht_get(&seen, w->ns, k) >= 0) {
			viol(v, "%s %s/%s: listed as waiting twice",
			     pod ? "pod" : "group", nz(w->ns), nz(w->group));
			continue;
		}
		ht_put(&seen, w->ns, k, i);
		if (pod) {
			int pi = ht_get(&v->pods, w->ns, w->group);
			if (pi < 0)
				viol(v, "waiting pod %s/%s: no such pod in the "
					"snapshot",
				     nz(w->ns), nz(w->group));
			else if (!ws_pod_pending(&s->pods[pi]))
				viol(v, "waiting pod %s/%s: is not pending",
				     nz(w->ns), nz(w->group));
			else if (v->pod_node[pi] >= 0)
				viol(v, "pod %s/%s: listed as waiting but "
					"placed on %s",
				     nz(w->ns), nz(w->group),
				     s->nodes[v->pod_node[pi]].name);
			continue;
		}
		int g = ht_get(&v->groups, w->ns, w->group);
		if (g < 0)
			viol(v, "waiting group %s/%s: no such PodGroup in the "
				"snapshot",
			     nz(w->ns), nz(w->group));
		else if (v->g_placed[g])
			viol(v, "group %s/%s: listed as waiting but %d of its "
				"pods are placed",
			     nz(w->ns), nz(w->group), v->g_placed[g]);
	}
}

/* --------------------------------------------------------------- DRA */

/* Results of one claim against its spec: every device exists, reaches
 * `node`, matches its request's class and selectors; counts per request;
 * constraints; the uses of each device are counted in `uses`. */
static void check_claim(vctx *v, const wpl_claim *c, const wdr_spec *sp,
			int node, ws_map *devs, uint16_t *uses)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	int *dev = wa_calloc(v->a, (size_t)c->nresults + 1, sizeof(int));
	const wdr_sub **sub = wa_calloc(v->a, (size_t)c->nresults + 1,
					sizeof *sub);
	if (!dev || !sub) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < c->nresults; i++) {
		const wpl_result *r = &c->results[i];
		char key[3 * WASP_MAX_NAME + 8];
		snprintf(key, sizeof key, "%s/%s/%s", nz(r->driver),
			 nz(r->pool), nz(r->device));
		dev[i] = ws_map_get(devs, key);
		sub[i] = NULL;
		for (int q = 0; q < sp->nreqs && !sub[i]; q++)
			for (int k = 0; k < sp->reqs[q].nalts; k++)
				if (!strcmp(sp->reqs[q].alts[k].name,
					    nz(r->request)))
					sub[i] = &sp->reqs[q].alts[k];
		if (dev[i] < 0) {
			viol(v, "claim %s/%s: device %s does not exist",
			     c->ns, c->name, key);
			continue;
		}
		if (!sub[i]) {
			viol(v, "claim %s/%s: no request %s in the claim",
			     c->ns, c->name, nz(r->request));
			continue;
		}
		const wdr_device *dv = &d->devs[dev[i]];
		if (!wdr_reaches(s, dv, node))
			viol(v, "claim %s/%s: device %s is not available on "
				"node %s", c->ns, c->name, key,
			     s->nodes[node].name);
		if (!wdr_matches(d, sub[i], dev[i], NULL))
			viol(v, "claim %s/%s: device %s does not match request "
				"%s", c->ns, c->name, key, sub[i]->name);
		if (uses[dev[i]]++ && !dv->multi)
			viol(v, "claim %s/%s: device %s is already allocated",
			     c->ns, c->name, key);
	}
	/* Counts: one alternative per request, count or All. */
	for (int q = 0; q < sp->nreqs; q++) {
		const wdr_req *rq = &sp->reqs[q];
		const wdr_sub *used = NULL;
		int n = 0;
		for (int i = 0; i < c->nresults; i++) {
			bool mine = false;
			for (int k = 0; k < rq->nalts; k++)
				mine |= sub[i] == &rq->alts[k];
			if (!mine)
				continue;
			if (used && used != sub[i])
				viol(v, "claim %s/%s: request %s mixes "
					"alternatives %s and %s", c->ns,
				     c->name, rq->name, used->name,
				     sub[i]->name);
			used = sub[i];
			n++;
		}
		if (!used) {
			viol(v, "claim %s/%s: request %s has no device",
			     c->ns, c->name, rq->name);
			continue;
		}
		int want = used->count;
		if (used->all) {
			want = 0;
			for (int x = 0; x < d->ndevs; x++)
				want += wdr_reaches(s, &d->devs[x], node) &&
					wdr_matches(d, used, x, NULL);
		}
		if (n != want)
			viol(v, "claim %s/%s: request %s has %d device%s, "
				"wants %d", c->ns, c->name, used->name, n,
			     n == 1 ? "" : "s", want);
	}
	/* Constraints over the named requests. */
	for (int k = 0; k < sp->ncons; k++) {
		const wdr_cons *cn = &sp->cons[k];
		for (int i = 0; i < c->nresults; i++) {
			if (dev[i] < 0 || !sub[i])
				continue;
			if (!wdr_cons_has(cn, sub[i]->name))
				continue;
			const wcel_attr *a = wdr_attr(&d->devs[dev[i]],
						      cn->domain, cn->attr);
			if (!a) {
				viol(v, "claim %s/%s: device %s lacks %s/%s",
				     c->ns, c->name, c->results[i].device,
				     cn->domain, cn->attr);
				continue;
			}
			for (int j = i + 1; j < c->nresults; j++) {
				if (dev[j] < 0 || !sub[j])
					continue;
				const wcel_attr *b = wdr_attr(
				    &d->devs[dev[j]], cn->domain, cn->attr);
				if (!b)
					continue;
				bool eq = wdr_attr_equal(a, b);
				if (cn->distinct && eq)
					viol(v, "claim %s/%s: devices %s and "
						"%s share %s/%s (distinct"
						"Attribute)", c->ns, c->name,
					     c->results[i].device,
					     c->results[j].device, cn->domain,
					     cn->attr);
				else if (!cn->distinct && !eq)
					viol(v, "claim %s/%s: devices %s and "
						"%s differ in %s/%s (match"
						"Attribute)", c->ns, c->name,
					     c->results[i].device,
					     c->results[j].device, cn->domain,
					     cn->attr);
			}
		}
	}
}

static const wpl_claim *find_claim(const wasp_plan *p, const htab *t,
				   const char *ns, const char *name)
{
	int i = ht_get(t, ns, name);
	return i >= 0 ? &p->claims[i] : NULL;
}

/* A claim of a pod of priority prio may use a device freed by evicting
 * its holders only when prio is strictly higher than theirs. */
static void freed_devs(vctx *v, const wpl_claim *c, int32_t prio,
		       ws_map *devs)
{
	for (int i = 0; v->dv_prio && i < c->nresults; i++) {
		char key[3 * WASP_MAX_NAME + 8];
		snprintf(key, sizeof key, "%s/%s/%s", nz(c->results[i].driver),
			 nz(c->results[i].pool), nz(c->results[i].device));
		int dv = ws_map_get(devs, key);
		if (dv >= 0 && v->dv_prio[dv] != INT32_MIN &&
		    prio <= v->dv_prio[dv])
			viol(v, "claim %s/%s: device %s, freed by evicting "
				"pods of priority %d, is used at priority %d",
			     c->ns, c->name, key, (int)v->dv_prio[dv],
			     (int)prio);
	}
}

/* firstAvailable preference (DESIGN.md §4): a request of claim c that
 * used alternative k > 0 is a violation when an earlier alternative could
 * be met on the claim's node (and every user's node, users: nodes) with
 * the devices free in the final plan plus the claim's own, the claim's
 * other requests keeping their devices.  Counted per request: a device
 * that matches, reaches, is free, and respects the claim's constraints
 * against the other requests' devices; matchAttribute among the picks by
 * the best value, distinctAttribute by distinct values. */
static void check_preference(vctx *v, const wpl_claim *c,
			     const wdr_spec *sp, const int *nodes, int nn,
			     ws_map *devs, const uint16_t *uses)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	int nr = c->nresults;
	int *dev = wa_calloc(v->a, (size_t)nr + 1, sizeof(int));
	int *req = wa_calloc(v->a, (size_t)nr + 1, sizeof(int));
	int *alt = wa_calloc(v->a, (size_t)sp->nreqs + 1, sizeof(int));
	int *cand = wa_calloc(v->a, (size_t)d->ndevs + 1, sizeof(int));
	if (!dev || !req || !alt || !cand) {
		v->nomem = true;
		return;
	}
	for (int q = 0; q < sp->nreqs; q++)
		alt[q] = -1;
	for (int i = 0; i < nr; i++) {
		const wpl_result *r = &c->results[i];
		char key[3 * WASP_MAX_NAME + 8];
		snprintf(key, sizeof key, "%s/%s/%s", nz(r->driver),
			 nz(r->pool), nz(r->device));
		dev[i] = ws_map_get(devs, key);
		req[i] = -1;
		for (int q = 0; q < sp->nreqs && req[i] < 0; q++)
			for (int k = 0; k < sp->reqs[q].nalts; k++)
				if (!strcmp(sp->reqs[q].alts[k].name,
					    nz(r->request))) {
					req[i] = q;
					alt[q] = k;
				}
		if (dev[i] < 0 || req[i] < 0)
			return; /* reported by check_claim */
	}
	for (int q = 0; q < sp->nreqs; q++) {
		const wdr_req *rq = &sp->reqs[q];
		for (int j = 0; j < alt[q]; j++) {
			const wdr_sub *sb = &rq->alts[j];
			int nc = 0, all = 0;
			bool all_free = true;
			for (int x = 0; x < d->ndevs; x++) {
				bool ok = wdr_matches(d, sb, x, NULL);
				for (int u = 0; u < nn && ok; u++)
					ok = wdr_reaches(s, &d->devs[x],
							 nodes[u]);
				if (!ok)
					continue;
				all++;
				bool own = false, other = false;
				for (int i = 0; i < nr; i++)
					if (dev[i] == x) {
						own = true;
						other |= req[i] != q;
					}
				if (other || (uses[x] && !own &&
					      !d->devs[x].multi)) {
					all_free = false;
					continue;
				}
				/* constraints against the other requests */
				for (int k = 0; k < sp->ncons && ok; k++) {
					const wdr_cons *cn = &sp->cons[k];
					if (!wdr_cons_has(cn, rq->name) &&
					    !wdr_cons_has(cn, sb->name))
						continue;
					const wcel_attr *a = wdr_attr(
					    &d->devs[x], cn->domain, cn->attr);
					if (!a) {
						ok = false;
						break;
					}
					for (int i = 0; i < nr && ok; i++) {
						if (req[i] == q)
							continue;
						const wdr_sub *os =
						    &sp->reqs[req[i]]
							 .alts[alt[req[i]]];
						if (!wdr_cons_has(
							cn, sp->reqs[req[i]].name) &&
						    !wdr_cons_has(cn, os->name))
							continue;
						const wcel_attr *b = wdr_attr(
						    &d->devs[dev[i]],
						    cn->domain, cn->attr);
						bool eq = b && wdr_attr_equal(a, b);
						ok = cn->distinct ? !eq : eq;
					}
				}
				if (ok)
					cand[nc++] = x;
				else
					all_free = false;
			}
			bool met;
			if (sb->all) {
				met = all > 0 && all_free && nc == all;
			} else {
				/* picks among themselves: a matchAttribute
				 * groups them by value, a distinctAttribute
				 * takes one per value */
				int best = nc;
				for (int k = 0; k < sp->ncons; k++) {
					const wdr_cons *cn = &sp->cons[k];
					if (!wdr_cons_has(cn, rq->name) &&
					    !wdr_cons_has(cn, sb->name))
						continue;
					int most = 0, ndist = 0;
					for (int a = 0; a < nc; a++) {
						const wcel_attr *va = wdr_attr(
						    &d->devs[cand[a]],
						    cn->domain, cn->attr);
						int same = 0;
						bool first = true;
						for (int b = 0; b < nc; b++) {
							const wcel_attr *vb =
							    wdr_attr(&d->devs[
							    cand[b]], cn->domain,
							    cn->attr);
							if (!wdr_attr_equal(va,
									    vb))
								continue;
							same++;
							first &= b >= a;
						}
						if (same > most)
							most = same;
						ndist += first;
					}
					int lim = cn->distinct ? ndist : most;
					if (lim < best)
						best = lim;
				}
				met = best >= sb->count;
			}
			if (met) {
				viol(v, "claim %s/%s: request %s uses "
					"alternative %s, but the earlier %s "
					"could be met on node %s with the "
					"devices the plan leaves free",
				     c->ns, c->name, rq->name,
				     rq->alts[alt[q]].name, sb->name,
				     s->nodes[nodes[0]].name);
				break;
			}
		}
	}
}

static void check_devices(vctx *v)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	const wasp_plan *p = v->p;
	if (!d) {
		if (p->nclaims)
			viol(v, "the plan allocates %d device claim%s but the "
				"snapshot has none", p->nclaims,
			     p->nclaims == 1 ? "" : "s");
		return;
	}
	ws_map *devs = ws_map_new(v->a);
	uint16_t *uses = wa_calloc(v->a, (size_t)d->ndevs + 1, sizeof *uses);
	int *inst_node = wa_calloc(v->a, (size_t)d->ninsts + 1, sizeof(int));
	htab ct;
	if (!devs || !uses || !inst_node || ht_init(&ct, v->a, p->nclaims)) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < p->nclaims; i++)
		ht_put(&ct, p->claims[i].ns, p->claims[i].name, i);
	for (int i = 0; i < d->ndevs; i++) {
		const wdr_device *dv = &d->devs[i];
		const char *k = wa_printf(v->a, "%s/%s/%s", dv->cel.driver,
					  d->slices[dv->slice].pool, dv->name);
		if (!k || ws_map_put(devs, k, i) == -2) {
			v->nomem = true;
			return;
		}
	}
	/* Devices of existing allocations are in use, unless every pod
	 * holding the claim is evicted (issue 6); freed ones serve only
	 * pods of strictly higher priority than the victims (v->dv_prio) */
	v->dv_prio = wa_calloc(v->a, (size_t)d->ndevs + 1, sizeof(int32_t));
	if (!v->dv_prio) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < d->ndevs; i++)
		v->dv_prio[i] = INT32_MIN;
	for (int i = 0; i < d->nspecs; i++) {
		const wdr_spec *sp = &d->specs[i];
		int gone = 0;
		int32_t top = INT32_MIN;
		for (int h = 0; h < sp->nholders; h++) {
			const ws_pod *hp = &s->pods[sp->holders[h]];
			gone += v->pod_evict[sp->holders[h]] >= 0;
			if (pod_prio(s, hp) > top)
				top = pod_prio(s, hp);
		}
		if (sp->nholders && gone == sp->nholders) {
			for (int k = 0; k < sp->nalloc; k++)
				if (top > v->dv_prio[sp->alloc_dev[k]])
					v->dv_prio[sp->alloc_dev[k]] = top;
			continue;
		}
		for (int k = 0; k < sp->nalloc; k++)
			uses[sp->alloc_dev[k]]++;
	}
	/* Shared claims first: each allocated once, for its node. */
	for (int i = 0; i < d->ninsts; i++) {
		const wdr_inst *in = &d->insts[i];
		const wpl_claim *c = find_claim(p, &ct, in->ns, in->name);
		inst_node[i] = -1;
		if (!c)
			continue;
		if (d->specs[in->spec].allocated) {
			viol(v, "claim %s/%s: already allocated, but the plan "
				"allocates it again", in->ns, in->name);
			continue;
		}
		int n = ht_get(&v->nodes, "", nz(c->node));
		if (n < 0) {
			viol(v, "claim %s/%s: node %s is not in the snapshot",
			     in->ns, in->name, nz(c->node));
			continue;
		}
		inst_node[i] = n;
		check_claim(v, c, &d->specs[in->spec], n, devs, uses);
	}
	for (int pi = 0; pi < s->npods; pi++) {
		const wdr_podc *pc = &d->pods[pi];
		int n = v->pod_node[pi];
		if (!pc->n || n < 0)
			continue;
		const ws_pod *pod = &s->pods[pi];
		if (pc->why) {
			viol(v, "pod %s/%s: placed, but %s", pod->ns,
			     pod->name, pc->why);
			continue;
		}
		for (int k = 0; k < pc->n; k++) {
			const wdr_pclaim *e = &pc->c[k];
			const wdr_spec *sp = &d->specs[e->spec];
			if (e->inst < 0) {
				char name[2 * WASP_MAX_NAME + 2];
				snprintf(name, sizeof name, "%s-%s", pod->name,
					 e->name);
				const wpl_claim *c = find_claim(p, &ct, pod->ns,
								name);
				if (!c) {
					viol(v, "pod %s/%s: claim %s has no "
						"allocation in the plan",
					     pod->ns, pod->name, e->name);
					continue;
				}
				if (strcmp(nz(c->node), s->nodes[n].name))
					viol(v, "claim %s/%s: allocated for "
						"node %s, pod runs on %s",
					     c->ns, c->name, nz(c->node),
					     s->nodes[n].name);
				check_claim(v, c, sp, n, devs, uses);
				freed_devs(v, c, pod_prio(s, pod), devs);
				continue;
			}
			/* Shared: every user must reach every device. */
			const wdr_inst *in = &d->insts[e->inst];
			const int *ad = sp->alloc_dev;
			int na = sp->nalloc;
			const wpl_claim *c = NULL;
			if (!sp->allocated) {
				c = find_claim(p, &ct, in->ns, in->name);
				if (!c) {
					viol(v, "pod %s/%s: shared claim %s has "
						"no allocation", pod->ns,
					     pod->name, in->name);
					continue;
				}
			}
			for (int i = 0; i < (c ? c->nresults : na); i++) {
				int dv = ad ? ad[i] : -1;
				if (c) {
					char key[3 * WASP_MAX_NAME + 8];
					snprintf(key, sizeof key, "%s/%s/%s",
						 nz(c->results[i].driver),
						 nz(c->results[i].pool),
						 nz(c->results[i].device));
					dv = ws_map_get(devs, key);
				}
				if (dv >= 0 &&
				    !wdr_reaches(s, &d->devs[dv], n))
					viol(v, "pod %s/%s on node %s: cannot "
						"reach device %s of shared "
						"claim %s", pod->ns, pod->name,
					     s->nodes[n].name,
					     d->devs[dv].name, in->name);
			}
		}
	}
	/* firstAvailable: no later alternative when an earlier one fits,
	 * with the final plan's free devices (uses is final now) */
	int *un = wa_calloc(v->a, (size_t)s->npods + 1, sizeof(int));
	if (!un) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < d->ninsts; i++) {
		const wdr_inst *in = &d->insts[i];
		const wpl_claim *c = find_claim(p, &ct, in->ns, in->name);
		if (!c || inst_node[i] < 0 || d->specs[in->spec].allocated)
			continue;
		int nn = 0;
		un[nn++] = inst_node[i];
		for (int pi = 0; pi < s->npods; pi++) {
			const wdr_podc *pc = &d->pods[pi];
			for (int k = 0; k < pc->n && v->pod_node[pi] >= 0; k++)
				if (pc->c[k].inst == i) {
					un[nn++] = v->pod_node[pi];
					break;
				}
		}
		check_preference(v, c, &d->specs[in->spec], un, nn, devs,
				 uses);
	}
	for (int pi = 0; pi < s->npods; pi++) {
		const wdr_podc *pc = &d->pods[pi];
		int n = v->pod_node[pi];
		if (!pc->n || n < 0 || pc->why)
			continue;
		for (int k = 0; k < pc->n; k++) {
			const wdr_pclaim *e = &pc->c[k];
			if (e->inst >= 0)
				continue;
			char name[2 * WASP_MAX_NAME + 2];
			snprintf(name, sizeof name, "%s-%s", s->pods[pi].name,
				 e->name);
			const wpl_claim *c = find_claim(p, &ct,
							s->pods[pi].ns, name);
			if (c)
				check_preference(v, c, &d->specs[e->spec], &n,
						 1, devs, uses);
		}
	}
	/* Per-pod claims of pods the plan does not place. */
	for (int i = 0; i < p->nclaims; i++) {
		const wpl_claim *c = &p->claims[i];
		if (!c->pod)
			continue;
		int pi = ht_get(&v->pods, c->ns, c->pod);
		if (pi < 0 || v->pod_node[pi] < 0)
			viol(v, "claim %s/%s: its pod %s is not placed",
			     c->ns, c->name, c->pod);
	}
}

int wv_check(const ws_snapshot *s, const wasp_plan *p, wa_arena *a,
	     size_t *nviol, char **report, wasp_error *err)
{
	vctx v;
	memset(&v, 0, sizeof v);
	v.s = s;
	v.p = p;
	v.a = a;
	v.path = p->sum.domain_mode && !strcmp(p->sum.domain_mode, "path");
	size_t nres = s->nres ? s->nres : 1;
	if (ht_init(&v.pods, a, s->npods) || ht_init(&v.nodes, a, s->nnodes) ||
	    ht_init(&v.groups, a, s->ngroups) ||
	    !(v.pod_node = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.pod_place = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.placed = wa_calloc(a, (size_t)(s->nnodes + 1) * nres,
				   sizeof(int64_t))) ||
	    !(v.g_placed = wa_calloc(a, s->ngroups + 1, sizeof(int))) ||
	    !(v.pod_evict = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.pod_moved = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.evicted = wa_calloc(a, (size_t)(s->nnodes + 1) * nres,
				    sizeof(int64_t))) ||
	    !(v.lv_key = wa_calloc(a, s->ngroups + s->ncomps + 1,
				   sizeof(char *))) ||
	    !(v.lv_list = wa_calloc(a, s->ngroups + s->ncomps + 1,
				    sizeof(char **))) ||
	    !(v.lv_n = wa_calloc(a, s->ngroups + s->ncomps + 1,
				 sizeof(int))))
		return werr(err, WASP_ENOMEM, "out of memory verifying a plan");
	for (int i = 0; i < s->npods; i++) {
		ht_put(&v.pods, s->pods[i].ns, s->pods[i].name, i);
		v.pod_node[i] = v.pod_place[i] = v.pod_evict[i] = -1;
		v.pod_moved[i] = -1;
	}
	for (int i = 0; i < s->nnodes; i++)
		ht_put(&v.nodes, "", s->nodes[i].name, i);
	for (int i = 0; i < s->ngroups; i++)
		ht_put(&v.groups, s->groups[i].ns, s->groups[i].name, i);

	check_placements(&v);
	check_evictions(&v);
	check_moves(&v);
	check_capacity(&v);
	check_priority_rows(&v);
	check_pdbs(&v);
	check_groups(&v);
	check_trees(&v);
	check_annotations(&v);
	check_waiting(&v);
	check_devices(&v);
	if (v.nomem)
		return werr(err, WASP_ENOMEM, "out of memory verifying a plan");
	*nviol = v.nviol;
	if (report)
		*report = v.buf ? v.buf : wa_strdup(a, "");
	if (report && !*report)
		return werr(err, WASP_ENOMEM, "out of memory verifying a plan");
	return WASP_OK;
}
