/*
 * topup.c -- pods past a group's minimum, added to a finished plan
 * (topup.h; doc/formulation.md §12, "Topping up").
 *
 * The room a pod may take is that of the capacity-by-priority rows
 * (reduce/units.h): per node, resource and pending level L,
 *
 *   sum_{c: prio(c) <= L} req x + sum_{u: prio(u) >= L or kept} use <= cap
 *
 * with cap the node's allocatable less what pods outside every unit use.
 * A pod of priority P counts in the rows of every level at or above P, so
 * it fits where all of those have room.  The rows' left sides are kept per
 * node and level as pods are added and units evicted.
 */
#include "solve/topup_int.h"
#include "base/clock.h"
#include "base/sort.h"
#include "reduce/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A waiting gang joins a trade's fill only when its minimum, by size,
 * is at most this many times the room the gang making way leaves. */
#define WTU_JOIN_ROOM 2.0
/* Clearing nodes for larger pods runs at most this many rounds. */
#define WTU_CLEAR_ROUNDS 4
/* A trade's waiting gangs take the room no one uses on at most this
 * many nodes (the first with room for one of their pods). */
#define WTU_SPARE_NODES 256

bool wtu_applies(const wp_problem *p)
{
	return !p->snap->dra && p->nmcls == 0 && p->ncomps == 0;
}

static int level_of(const tstate *T, int32_t prio)
{
	for (int i = 0; i < T->nl; i++)
		if (T->lv[i] == prio)
			return i;
	return -1;
}

static int64_t *row(const tstate *T, int n, int L)
{
	return T->lhs + ((size_t)n * T->nl + L) * T->nres;
}

/* Add sign * k pods of request req to node n's rows at levels 0..li. */
static void add(tstate *T, int n, int li, const int64_t *req, int64_t k)
{
	for (int L = 0; L <= li; L++) {
		int64_t *h = row(T, n, L);
		for (int r = 0; r < T->nres; r++)
			h[r] += k * req[r];
	}
}

/* Unit u's pods in the rows of the levels above its priority: counted
 * (sign 1) while it runs, not (sign -1) once evicted. */
static void unit_rows(tstate *T, int u, int sign)
{
	const wp_unit *un = &T->p->units[u];
	for (int i = 0; i < un->npods; i++) {
		const ws_pod *pod = &T->p->snap->pods[un->pods[i]];
		if (pod->node < 0)
			continue;
		for (int L = 0; L < T->nl; L++) {
			if (T->lv[L] <= un->priority)
				continue;
			int64_t *h = row(T, pod->node, L);
			for (int r = 0; r < T->nres; r++)
				h[r] += sign * pod->req[r];
		}
	}
}

/* min(best, the pods of request req that room - used takes). */
int64_t wtu_fits_in(const int64_t *room, const int64_t *used,
		       const int64_t *req, int nres, int64_t best)
{
	for (int r = 0; r < nres; r++) {
		if (req[r] <= 0)
			continue;
		int64_t left = room[r] - used[r];
		if (left < req[r])
			return 0;
		/* a division only where it can lower best (it is slow) */
		if (best > 1 && left / req[r] < best)
			best = left / req[r];
	}
	return best;
}

/* Pods of class c (at level li) that fit on node n now. */
int64_t wtu_fit(const tstate *T, int c, int li, int n)
{
	const wp_problem *p = T->p;
	const int64_t *req = p->classes[c].req;
	size_t at = (size_t)n * T->nres;
	int64_t best = INT64_MAX;
	if (T->never[p->classes[c].group])
		best = wtu_fits_in(p->free + at, T->nv + at, req, T->nres, best);
	for (int L = 0; L <= li; L++)
		best = wtu_fits_in(T->cap + at, row(T, n, L), req, T->nres, best);
	return best == INT64_MAX ? 0 : best;
}

/* k pods of class cl on node n in the requests of the groups that may
 * not preempt (when its group is one). */
static void never_add(tstate *T, const wp_class *cl, int n, int k)
{
	if (!T->never[cl->group])
		return;
	for (int r = 0; r < T->nres; r++)
		T->nv[(size_t)n * T->nres + r] += (int64_t)k * cl->req[r];
}

/* k pods of class c (k < 0: taken off) in slot, in the counts, the
 * Never groups' requests and the rows. */
static void account(tstate *T, int c, int slot, int k)
{
	const wp_class *cl = &T->p->classes[c];
	int n = cl->elig[slot - cl->off];
	int li = level_of(T, T->p->groups[cl->group].priority);
	T->ch[c] += k;
	T->gh[cl->group] += k;
	never_add(T, cl, n, k);
	add(T, n, li, cl->req, k);
	if (T->lvuse && li == T->lvli)
		for (int r = 0; r < T->nres; r++)
			T->lvuse[(size_t)n * T->nres + r] += (int64_t)k * cl->req[r];
}

/* ... and in the plan. */
static void apply(tstate *T, int c, int slot, int k)
{
	if (wp_x_add(T->s, slot, k))
		T->nomem = true;
	account(T, c, slot, k);
}

static int setup(tstate *T)
{
	const wp_problem *p = T->p;
	const wp_sol *s = T->s;
	size_t nn = (size_t)p->nnodes;
	T->nres = p->nres;
	T->lv = wa_calloc(T->a, (size_t)p->ngroups + 1, sizeof *T->lv);
	if (!T->lv)
		return -1;
	for (int g = 0; g < p->ngroups; g++) {
		int32_t pr = p->groups[g].priority;
		if (p->groups[g].nclasses && level_of(T, pr) < 0)
			T->lv[T->nl++] = pr;
	}
	for (int i = 1; i < T->nl; i++) /* a few levels: insertion */
		for (int j = i; j > 0 && T->lv[j - 1] < T->lv[j]; j--) {
			int32_t t = T->lv[j];
			T->lv[j] = T->lv[j - 1];
			T->lv[j - 1] = t;
		}
	T->cap = wa_calloc(T->a, nn * T->nres + 1, sizeof *T->cap);
	T->lhs = wa_calloc(T->a, nn * T->nl * T->nres + 1, sizeof *T->lhs);
	T->ustart = wa_calloc(T->a, nn + 2, sizeof *T->ustart);
	T->ulog = wa_calloc(T->a, (size_t)p->nunits + 1, sizeof *T->ulog);
	if (!T->cap || !T->lhs || !T->ustart || !T->ulog)
		return -1;
	memcpy(T->cap, p->free, nn * T->nres * sizeof *T->cap);
	/* node -> units, each unit once per node (its pods are in input
	 * order; a unit's pods on one node need not be adjacent) */
	int *last = wa_calloc(T->a, nn + 1, sizeof *last);
	if (!last)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t n = 0; n < nn; n++)
			last[n] = -1;
		for (int u = 0; u < p->nunits; u++) {
			const wp_unit *un = &p->units[u];
			for (int i = 0; i < un->npods; i++) {
				int n = p->snap->pods[un->pods[i]].node;
				if (n < 0 || last[n] == u)
					continue;
				last[n] = u;
				if (pass == 0)
					T->ustart[n + 1]++;
				else
					T->ulist[T->ustart[n]++] = u;
			}
		}
		if (pass == 0) {
			for (size_t n = 0; n < nn; n++)
				T->ustart[n + 1] += T->ustart[n];
			T->ulist = wa_calloc(T->a, (size_t)T->ustart[nn] + 1,
					     sizeof *T->ulist);
			if (!T->ulist)
				return -1;
		}
	}
	for (size_t n = nn; n > 0; n--) /* undo the fill's shift */
		T->ustart[n] = T->ustart[n - 1];
	T->ustart[0] = 0;
	/* cap: allocatable less the pods outside units; every unit's pods
	 * in the rows of levels at or below its priority, and above it
	 * while they run */
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			if (pod->node < 0)
				continue;
			for (int r = 0; r < T->nres; r++)
				T->cap[(size_t)pod->node * T->nres + r] +=
				    pod->req[r];
			for (int L = 0; L < T->nl; L++) {
				if (T->lv[L] > un->priority &&
				    s->evict && s->evict[u])
					continue;
				int64_t *h = row(T, pod->node, L);
				for (int r = 0; r < T->nres; r++)
					h[r] += pod->req[r];
			}
		}
	}
	if (s->evict)
		T->evicted = wpe_evicted_pods(p, s);
	T->ch = wa_calloc(T->a, (size_t)p->nclasses + 1, sizeof *T->ch);
	T->gh = wa_calloc(T->a, (size_t)p->ngroups + 1, sizeof *T->gh);
	T->gdom = wa_calloc(T->a, (size_t)p->ngroups + 1, sizeof *T->gdom);
	T->never = wa_calloc(T->a, (size_t)p->ngroups + 1, 1);
	T->topped = wa_calloc(T->a, (size_t)p->ngroups + 1, 1);
	T->nv = wa_calloc(T->a, nn * T->nres + 1, sizeof *T->nv);
	if (!T->ch || !T->gh || !T->gdom || !T->never || !T->topped || !T->nv)
		return -1;
	for (int g = 0; g < p->ngroups; g++) {
		T->never[g] = p->nunits > 0 && !wpe_may_preempt(p, g);
		T->gdom[g] = -1;
	}
	/* the plan's pods: rows, counts, the Never groups' requests and
	 * the domain each group holds */
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		const wp_group *wg = &p->groups[cl->group];
		const wtp_key *k = wg->key >= 0 && p->topo
				       ? &p->topo->keys[wg->key]
				       : NULL;
		int li = level_of(T, wg->priority);
		if (li < 0)
			continue;
		WP_X_EACH(s, cl, sl) {
			if (k && T->gdom[cl->group] < 0)
				T->gdom[cl->group] =
				    k->node_dom[cl->elig[sl - cl->off]];
			account(T, c, sl, wp_x(s, sl));
		}
	}
	return 0;
}

/* May group g evict unit u for a pod of its own? */
static bool evictable(const tstate *T, int g, int u)
{
	const wp_problem *p = T->p;
	const wp_unit *un = &p->units[u];
	/* budgets and their violations are left to the solvers: a top-up
	 * never breaks one */
	return !T->s->evict[u] && !un->keep && un->npdb == 0 &&
	       un->priority < p->groups[g].priority &&
	       (p->max_evictions <= 0 ||
		T->evicted + un->npods <= p->max_evictions);
}

/* Unit u evicted (by group g) or, g < 0, running again. */
void wtu_set_evicted(tstate *T, int u, int g)
{
	T->s->evict[u] = g >= 0;
	T->s->evict_by[u] = g;
	T->evicted += (g >= 0 ? 1 : -1) * T->p->units[u].npods;
	unit_rows(T, u, g >= 0 ? -1 : 1);
}

/* Units on node n by eviction cost: lowest priority, fewest pods. */
static int cmp_cost(const void *ctx, int a, int b)
{
	const wp_unit *U = ctx;
	if (U[a].priority != U[b].priority)
		return U[a].priority < U[b].priority ? -1 : 1;
	if (U[a].npods != U[b].npods)
		return U[a].npods < U[b].npods ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Evict the cheapest units on node n that group g may evict until a pod
 * of class c fits (logged for wtu_take_back); all of them taken back
 * when none does.  Pods that fit after, 0 when nothing changed. */
int64_t wtu_make_room(tstate *T, int g, int c, int li, int n, int *tmp)
{
	const wp_problem *p = T->p;
	int m = 0;
	for (int e = T->ustart[n]; e < T->ustart[n + 1]; e++)
		if (evictable(T, g, T->ulist[e]))
			T->ulog[m++] = T->ulist[e];
	if (m == 0)
		return 0;
	wis_sort(T->ulog, tmp, m, cmp_cost, p->units);
	int64_t f = 0;
	int used = 0;
	for (; used < m && f == 0; used++) {
		int u = T->ulog[used];
		if (!evictable(T, g, u)) /* the budget moved */
			continue;
		wtu_set_evicted(T, u, g);
		f = wtu_fit(T, c, li, n);
	}
	if (f > 0) {
		for (int i = 0; i < used; i++) {
			struct rent e = {T->ulog[i], -1}; /* it ran before */
			if (T->s->evict_by[e.u] == g &&
			    WA_PUSH(T->a, T->rl, T->nrl, T->rcap, e))
				T->nomem = true;
		}
		return f;
	}
	for (int i = 0; i < used; i++) /* nothing gained: undo */
		if (T->s->evict[T->ulog[i]] && T->s->evict_by[T->ulog[i]] == g)
			wtu_set_evicted(T, T->ulog[i], -1);
	return 0;
}

/* Pods of class c that would fit on node n were every unit there that
 * group g may evict gone; nothing changes. */
int64_t wtu_fit_evicting(tstate *T, int g, int c, int li, int n)
{
	int m = 0;
	for (int e = T->ustart[n]; e < T->ustart[n + 1]; e++) {
		int u = T->ulist[e];
		if (evictable(T, g, u)) {
			T->ulog[m++] = u;
			wtu_set_evicted(T, u, g);
		}
	}
	int64_t f = wtu_fit(T, c, li, n);
	while (m > 0)
		wtu_set_evicted(T, T->ulog[--m], -1);
	return f;
}

/* Per class, its normalised size (requests over the largest allocatable
 * of each resource), to put small pods first. */
static double *class_sizes(const tstate *T)
{
	const wp_problem *p = T->p;
	int64_t *amax = wa_calloc(T->a, (size_t)T->nres + 1, sizeof *amax);
	double *sz = wa_calloc(T->a, (size_t)p->nclasses + 1, sizeof *sz);
	if (!amax || !sz)
		return NULL;
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < T->nres; r++)
			if (p->snap->nodes[n].alloc[r] > amax[r])
				amax[r] = p->snap->nodes[n].alloc[r];
	for (int c = 0; c < p->nclasses; c++)
		for (int r = 0; r < T->nres; r++)
			if (amax[r] > 0)
				sz[c] += (double)p->classes[c].req[r] / amax[r];
	return sz;
}

typedef struct gkey {
	int32_t prio;
	double size;
} gkey;

static int cmp_group(const void *ctx, int a, int b)
{
	const gkey *k = ctx;
	if (k[a].prio != k[b].prio)
		return k[a].prio > k[b].prio ? -1 : 1;
	if (k[a].size != k[b].size)
		return k[a].size < k[b].size ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* k pods (k < 0: taken off) of slot's class on its node: counts, rows
 * and the log. */
void wtu_put(tstate *T, int slot, int k)
{
	apply(T, wp_slot_class(T->p, slot), slot, k);
	struct xent e = {slot, k};
	if (WA_PUSH(T->a, T->xl, T->nxl, T->xcap, e))
		T->nomem = true;
}

/* Back to log mark m, rows included. */
void wtu_back_to(tstate *T, size_t m)
{
	while (T->nxl > m) {
		struct xent e = T->xl[--T->nxl];
		apply(T, wp_slot_class(T->p, e.slot), e.slot, -e.k);
	}
}

/* (topup_int.h) */
wtu_mark wtu_mark_now(const tstate *T)
{
	wtu_mark m = {T->nxl, T->nrl, T->ndrop};
	return m;
}

/* (topup_int.h) */
void wtu_undo_to(tstate *T, wtu_mark m)
{
	wtu_readmit_to(T, m.d);
	wtu_take_back(T, m.r);
	wtu_back_to(T, m.x);
}

/* Top up group g: per class, smallest first, free room then room made
 * by evictions, in the domain its pods hold. */
static int group(tstate *T, int g, const double *sz, int *tmp, int *ord,
		 wtu_stats *st)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	const wp_group *wg = &p->groups[g];
	const wtp_key *k = wg->key >= 0 && p->topo ? &p->topo->keys[wg->key]
						   : NULL;
	int dom = T->gdom[g];
	long have = T->gh[g];
	if (have == 0 || (k && dom < 0))
		return 0;
	long room = wg->size - have;
	int li = level_of(T, wg->priority);
	bool may = s->evict && wpe_may_preempt(p, g);
	for (int i = 0; i < wg->nclasses; i++)
		ord[i] = wg->classes[i];
	wis_sort(ord, tmp, wg->nclasses, wis_asc, (void *)sz);
	long added = 0;
	for (int i = 0; i < wg->nclasses && room > 0; i++) {
		int c = ord[i];
		const wp_class *cl = &p->classes[c];
		long want = cl->count - T->ch[c];
		if (want > room)
			want = room;
		for (int phase = 0; phase < 2 && want > 0; phase++) {
			if (phase == 1 && !may)
				break;
			for (int j = 0; j < cl->nelig && want > 0; j++) {
				int n = cl->elig[j];
				if (k && k->node_dom[n] != dom)
					continue;
				int64_t f = wtu_fit(T, c, li, n);
				if (f == 0 && phase == 1)
					f = wtu_make_room(T, g, c, li, n, tmp);
				if (f > want)
					f = want;
				if (f <= 0)
					continue;
				wtu_put(T, cl->off + j, (int)f);
				want -= f;
				room -= f;
				added += f;
			}
		}
	}
	st->pods += (int)added;
	if (added > 0 && !T->topped[g]) {
		T->topped[g] = 1;
		st->groups++;
	}
	return 0;
}

/* Is a row of node n over its capacity? */
bool wtu_node_over(const tstate *T, int n)
{
	const int64_t *cap = T->cap + (size_t)n * T->nres;
	for (int L = 0; L < T->nl; L++) {
		const int64_t *h = row(T, n, L);
		for (int r = 0; r < T->nres; r++)
			if (h[r] > cap[r])
				return true;
	}
	return false;
}

/* Is a row over its capacity on one of unit u's nodes? */
bool wtu_unit_over(const tstate *T, int u)
{
	const wp_unit *un = &T->p->units[u];
	for (int i = 0; i < un->npods; i++) {
		int n = T->p->snap->pods[un->pods[i]].node;
		if (n >= 0 && wtu_node_over(T, n))
			return true;
	}
	return false;
}

/* Unit u evicted by g (g < 0: running): rows only where that changes. */
static void set_by(tstate *T, int u, int g)
{
	if ((g >= 0) != (bool)T->s->evict[u])
		wtu_set_evicted(T, u, g);
	else
		T->s->evict_by[u] = g;
}

/* The same, logged for take_back. */
void wtu_relog(tstate *T, int u, int g)
{
	struct rent e = {u, T->s->evict[u] ? T->s->evict_by[u] : -1};
	if (WA_PUSH(T->a, T->rl, T->nrl, T->rcap, e))
		T->nomem = true;
	set_by(T, u, g);
}

/* Back to relog mark m. */
void wtu_take_back(tstate *T, size_t m)
{
	while (T->nrl > m) {
		struct rent e = T->rl[--T->nrl];
		set_by(T, e.u, e.by);
	}
}

/* A group whose pods the log since xmark put on one of unit u's nodes
 * and that may evict u; -1: none. */
static int taker(const tstate *T, int u, size_t xmark)
{
	const wp_problem *p = T->p;
	const wp_unit *un = &p->units[u];
	for (size_t e = xmark; e < T->nxl; e++) {
		if (T->xl[e].k <= 0 || wp_x(T->s, T->xl[e].slot) <= 0)
			continue;
		int c = wp_slot_class(p, T->xl[e].slot);
		const wp_class *cl = &p->classes[c];
		int n = cl->elig[T->xl[e].slot - cl->off];
		int g = cl->group;
		if (p->groups[g].priority <= un->priority ||
		    !wpe_may_preempt(p, g))
			continue;
		for (int i = 0; i < un->npods; i++)
			if (p->snap->pods[un->pods[i]].node == n)
				return g;
	}
	/* while clearing: any admitted group with pods on its nodes */
	for (int i = 0; T->occ && i < un->npods; i++) {
		int n = p->snap->pods[un->pods[i]].node;
		for (int e = n < 0 ? 0 : T->obeg[n];
		     n >= 0 && e < T->obeg[n + 1]; e++) {
			int sl = T->occ[e];
			int g = p->classes[T->occc[e]].group;
			if (wp_x(T->s, sl) > 0 && T->s->admit[g] &&
			    p->groups[g].priority > un->priority &&
			    wpe_may_preempt(p, g))
				return g;
		}
	}
	return -1;
}

/* Gang d waits: the units it evicted run again where their room is
 * still free, else are evicted by a group whose pods the log since
 * xmark put on their nodes.  False when one is neither (the caller
 * takes it all back). */
bool wtu_rehome(tstate *T, int d, size_t xmark)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	/* a lower group during trades into idle room: its units listed */
	bool listed = T->ebeg && p->groups[d].priority < T->elev;
	int i0 = listed ? T->ebeg[d] : 0,
	    i1 = listed ? T->ebeg[d + 1] : p->nunits;
	for (int i = i0; i < i1 && !T->nomem; i++) {
		int u = listed ? T->eu[i] : i;
		if (!s->evict[u] || s->evict_by[u] != d)
			continue;
		wtu_relog(T, u, -1);
		if (!wtu_unit_over(T, u))
			continue;
		int g = taker(T, u, xmark);
		if (g < 0)
			return false;
		set_by(T, u, g); /* the log has it as d's */
	}
	return !T->nomem;
}

static const char *const WAIT_TRADE =
    "its room went to more pods of groups of the same priority (pods past "
    "their minimum, in the top-up after the search)";

/* May group g's pods move within the domain they hold? */
bool wtu_movable(const tstate *T, int g)
{
	const wp_group *wg = &T->p->groups[g];
	return T->s->admit[g] && !wg->invalid && !wg->tas && !wg->pcomp &&
	       (wg->key < 0 || T->gdom[g] >= 0);
}

/* May waiting group g join a trade's fill: a gang of one class, no
 * running pods, no tree or annotations, not made to wait by a trade. */
bool wtu_joinable(const tstate *T, int g)
{
	const wp_group *wg = &T->p->groups[g];
	return !T->s->admit[g] && wg->gang && !wg->invalid &&
	       wg->nclasses == 1 && !wg->nbound && wg->fixed_dom == -1 &&
	       !wg->pcomp && !wg->tas && wg->min_need >= 1 &&
	       T->s->reason[g] != WAIT_TRADE;
}

/* On node n, the pods the groups in want[] (smallest pods first) still
 * have, of classes smaller than size: pods placed. */
static long fill_node(tstate *T, int n, const int *want, int nw,
		      const double *sz, double size)
{
	const wp_problem *p = T->p;
	long got = 0;
	for (int w = 0; w < nw && !T->nomem; w++) {
		int g = want[w];
		const wp_group *wg = &p->groups[g];
		const wtp_key *k = wg->key >= 0 && p->topo
				       ? &p->topo->keys[wg->key]
				       : NULL;
		bool waits = !T->s->admit[g];
		if (waits && !wtu_joinable(T, g))
			continue;
		/* a waiting gang's domain: that of its first pod */
		if (k && waits && T->gh[g] == 0)
			T->gdom[g] = k->node_dom[n];
		int dom = T->gdom[g];
		long room = wg->size - T->gh[g];
		if (room <= 0 || (k && k->node_dom[n] != dom))
			continue;
		int li = level_of(T, wg->priority);
		for (int i = 0; i < wg->nclasses && room > 0; i++) {
			int c = wg->classes[i];
			const wp_class *cl = &p->classes[c];
			int slot = wp_slot(p, c, n);
			if (sz[c] >= size || slot < 0)
				continue;
			long left = cl->count - T->ch[c];
			int64_t f = wtu_fit(T, c, li, n);
			if (f > left)
				f = left;
			if (f > room)
				f = room;
			if (f <= 0)
				continue;
			wtu_put(T, slot, (int)f);
			room -= f;
			got += f;
		}
	}
	return got;
}

/* The waiting gangs in want[] that now have pods are admitted (logged
 * for the undo).  False on NOMEM. */
static bool admit_joined(tstate *T, const int *want, int nw)
{
	wp_sol *s = T->s;
	for (int w = 0; w < nw; w++) {
		int g = want[w];
		if (s->admit[g] || T->gh[g] == 0)
			continue;
		struct aent e = {g, s->reason[g]};
		if (WA_PUSH(T->a, T->adm, T->nadm, T->acap, e))
			return !(T->nomem = true);
		s->admit[g] = 1;
		s->reason[g] = NULL;
	}
	return true;
}

/* The gangs admit_joined admitted since log mark m wait again. */
static void unadmit_to(tstate *T, size_t m)
{
	while (T->nadm > m) {
		struct aent e = T->adm[--T->nadm];
		T->s->admit[e.g] = 0;
		T->s->reason[e.g] = e.why;
	}
}

/* The node of pod log entry e. */
static int xl_node(const tstate *T, size_t e)
{
	const wp_problem *p = T->p;
	int c = wp_slot_class(p, T->xl[e].slot);
	return p->classes[c].elig[T->xl[e].slot - p->classes[c].off];
}

/* The planned pods on each node of the groups below level li that may
 * wait for a trade's waiting gang (wtu_may_wait): their requests
 * (T->yuse, nnodes * nres) and the groups, node by node (T->ybeg,
 * T->yg).  False on NOMEM. */
static bool yielding(tstate *T, int li)
{
	const wp_problem *p = T->p;
	wa_arena *a = T->a;
	size_t nn = (size_t)p->nnodes, nr = (size_t)T->nres, npairs = 0;
	T->yuse = wa_calloc(a, nn * nr + 1, sizeof *T->yuse);
	T->ybeg = wa_calloc(a, nn + 2, sizeof *T->ybeg);
	if (!T->yuse || !T->ybeg)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		for (int h = 0; h < p->ngroups; h++) {
			if (!wtu_may_wait(T, h, li))
				continue;
			const wp_group *wh = &p->groups[h];
			for (int i = 0; i < wh->nclasses; i++) {
				const wp_class *cl = &p->classes[wh->classes[i]];
				WP_X_EACH(T->s, cl, sl) {
					int n = cl->elig[sl - cl->off];
					if (pass == 1) {
						T->yg[T->ybeg[n + 1]++] = h;
						continue;
					}
					for (size_t r = 0; r < nr; r++)
						T->yuse[n * nr + r] +=
						    wp_x(T->s, sl) * cl->req[r];
					T->ybeg[n + 2]++;
					npairs++;
				}
			}
		}
		if (pass == 0) {
			T->yg = wa_calloc(a, npairs + 1, sizeof *T->yg);
			if (!T->yg)
				return false;
			for (size_t n = 0; n < nn; n++)
				T->ybeg[n + 2] += T->ybeg[n + 1];
		}
	}
	return true;
}

/* The units each group below level li evicted (T->ebeg, T->eu), for
 * the rehome of its wtu_drop: a list only shrinks while trades at this
 * level run (their takers are of this level), so it stays complete.
 * False on NOMEM. */
static bool listed_units(tstate *T, int li)
{
	const wp_problem *p = T->p;
	wa_arena *a = T->a;
	int ng = p->ngroups;
	T->ebeg = wa_calloc(a, (size_t)ng + 2, sizeof *T->ebeg);
	T->eu = wa_calloc(a, (size_t)p->nunits + 1, sizeof *T->eu);
	if (!T->ebeg || !T->eu)
		return false;
	T->elev = T->lv[li];
	for (int pass = 0; pass < 2; pass++) {
		for (int u = 0; u < p->nunits; u++) {
			int g = T->s->evict[u] ? T->s->evict_by[u] : -1;
			if (g < 0 || p->groups[g].priority >= T->elev)
				continue;
			if (pass == 1)
				T->eu[T->ebeg[g + 1]++] = u;
			else
				T->ebeg[g + 2]++;
		}
		for (int g = 0; pass == 0 && g < ng; g++)
			T->ebeg[g + 2] += T->ebeg[g + 1];
	}
	return true;
}

/* Pods of class c (level li) that would fit on node n were the pods
 * T->yuse counts there gone; nothing changes. */
static int64_t fit_yielding(const tstate *T, int c, int li, int n,
			    int64_t *used)
{
	const int64_t *req = T->p->classes[c].req;
	size_t at = (size_t)n * T->nres;
	int64_t best = INT64_MAX;
	for (int L = 0; L <= li; L++) {
		const int64_t *h = row(T, n, L);
		for (int r = 0; r < T->nres; r++)
			used[r] = h[r] - T->yuse[at + r];
		best = wtu_fits_in(T->cap + at, used, req, T->nres, best);
	}
	return best == INT64_MAX ? 0 : best;
}

/* The nodes where a pod of one of the waiting groups g[0..ng) fits now,
 * or would were lower groups' planned pods there gone (T->ysp) (T->spare,
 * the first WTU_SPARE_NODES of them): the room a plan leaves over; and
 * per group the pods of its class they hold (T->sroom, a filter: more
 * when a trade has taken some).  Classes are tried once per request,
 * eligibility and level (few at scale, where the groups are many); rep:
 * 3 ng scratch.  False on NOMEM. */
static bool spare_nodes(tstate *T, const int *g, int ng, int *rep)
{
	const wp_problem *p = T->p;
	int nr = 0, *rg = rep + 2 * ng;
	for (int w = 0; w < ng; w++) {
		const wp_class *cl = &p->classes[p->groups[g[w]].classes[0]];
		int li = level_of(T, p->groups[g[w]].priority), r = 0;
		for (; r < nr; r++) {
			const wp_class *o = &p->classes[rep[2 * r]];
			if (o->elig == cl->elig && o->nelig == cl->nelig &&
			    rep[2 * r + 1] == li &&
			    !memcmp(o->req, cl->req, sizeof *o->req * T->nres))
				break;
		}
		if (r == nr) {
			rep[2 * nr] = p->groups[g[w]].classes[0];
			rep[2 * nr++ + 1] = li;
		}
		rg[w] = r;
	}
	if (ng == 0)
		return true;
	int li0 = level_of(T, p->groups[g[0]].priority);
	if (!yielding(T, li0) || !listed_units(T, li0))
		return false;
	long *room = T->sroom + p->ngroups; /* per rep */
	memset(room, 0, sizeof *room * (size_t)nr);
	T->nspare = 0;
	for (int n = 0; n < p->nnodes && T->nspare < WTU_SPARE_NODES; n++) {
		bool any = false, by = false;
		for (int r = 0; r < nr; r++) {
			int c = rep[2 * r], li = rep[2 * r + 1];
			if (wp_slot(p, c, n) < 0)
				continue;
			int64_t f = wtu_fit(T, c, li, n);
			if (f == 0 && T->ybeg[n + 1] > T->ybeg[n]) {
				f = fit_yielding(T, c, li, n, T->yused);
				by = by || f > 0;
			}
			room[r] += (long)f;
			any = any || f > 0;
		}
		T->ysp[n] = by;
		if (any)
			T->spare[T->nspare++] = n;
	}
	for (int w = 0; w < ng; w++)
		T->sroom[g[w]] = room[rg[w]];
	return true;
}

/* Pods of waiting group g's class that the spare nodes where none fit
 * now would hold were lower groups' planned pods there gone. */
static long yield_room(const tstate *T, int g)
{
	const wp_problem *p = T->p;
	int c = p->groups[g].classes[0], li = level_of(T, p->groups[g].priority);
	long room = 0;
	if (T->never[g])
		return 0;
	for (int i = 0; i < T->nspare; i++) {
		int n = T->spare[i];
		if (T->ysp[n] && wp_slot(p, c, n) >= 0 && wtu_fit(T, c, li, n) == 0)
			room += (long)fit_yielding(T, c, li, n, T->yused);
	}
	return room;
}

/* Waiting group g's pods on spare node n; where none fit, the lower
 * groups with planned pods there wait for them (wtu_drop, rehoming with
 * the pod log since xmark), and wait again where none fit after all.
 * Pods placed; *gave: groups that waited. */
static long spare_fill(tstate *T, int n, int *g, const double *sz,
		       double upto, size_t xmark, int *gave)
{
	long got = fill_node(T, n, g, 1, sz, upto);
	if (got > 0 || !T->ysp[n] || T->never[*g] || T->nomem)
		return got;
	int li = level_of(T, T->p->groups[*g].priority);
	wtu_mark m0 = wtu_mark_now(T);
	for (int i = T->ybeg[n]; i < T->ybeg[n + 1] && got == 0; i++) {
		int h = T->yg[i];
		if (wtu_may_wait(T, h, li) && wtu_drop(T, h, xmark))
			got = fill_node(T, n, g, 1, sz, upto);
	}
	if (got == 0) {
		wtu_undo_to(T, m0);
		return 0;
	}
	*gave += (int)(T->ndrop - m0.d);
	return got;
}

/* Waiting gang *g joins a trade: its pods on the trade's nodes (the pod
 * log's entries mark..vend that took pods off), then on the spare nodes
 * (T->spare), lower groups there waiting for it where that gives it its
 * minimum and the trade a gain (more than short pods).  Pods placed, 0
 * when it falls short of its minimum (all taken back); *gave: plus the
 * lower groups that waited. */
static long join(tstate *T, int *g, size_t mark, size_t vend,
		 const double *sz, double upto, long short_by, int *gave)
{
	const wp_problem *p = T->p;
	const wp_group *wg = &p->groups[*g];
	wtu_mark m0 = wtu_mark_now(T);
	long g1 = 0;
	int gv = 0;
	for (size_t e = mark; e < vend && !T->nomem; e++)
		if (T->xl[e].k < 0)
			g1 += fill_node(T, xl_node(T, e), g, 1, sz, upto);
	bool may = T->gh[*g] > 0 && T->gh[*g] + T->sroom[*g] >= wg->min_need;
	for (int i = 0; may && T->gh[*g] < wg->size && i < T->nspare &&
			!T->nomem;
	     i++)
		g1 += fill_node(T, T->spare[i], g, 1, sz, upto);
	/* lower groups wait only where that gives g its minimum and the
	 * trade a gain (each wait rehomes units: seconds at 10,000 nodes
	 * were they made and taken back for nothing) */
	long need = wg->min_need; /* of g's pods (all g1) */
	if (need < short_by + 1)
		need = short_by + 1;
	if (may && T->gh[*g] < need && need <= wg->size &&
	    T->gh[*g] + yield_room(T, *g) >= need)
		for (int i = 0; T->gh[*g] < need && i < T->nspare &&
				!T->nomem;
		     i++)
			g1 += spare_fill(T, T->spare[i], g, sz, upto, mark,
					 &gv);
	if (T->gh[*g] >= wg->min_need) {
		*gave += gv;
		return g1;
	}
	wtu_undo_to(T, m0);
	return 0;
}

/* Exchanges for gang d (no running pods): node by node, its pods past
 * its minimum make room for more, smaller pods of the admitted groups
 * in want[0..nw0); then d waits altogether when the room of all its
 * pods gives more to all of want[] (the waiting gangs after nw0 each in
 * turn, kept where they get their minimum, also on the nodes T->spare
 * when there are: admit_joined), and the units d evicted are rehomed
 * (rehome).  Each kept only when it gains.  Pods gained net. */
static long trade(tstate *T, int d, const int *want, int nw0, int nw,
		  const double *sz, int *gave)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	const wp_group *wd = &p->groups[d];
	double size = sz[wd->classes[0]];
	long have = T->gh[d], net = 0;
	for (int i = 0; i < wd->nclasses; i++) {
		const wp_class *cl = &p->classes[wd->classes[i]];
		WP_X_EACH(s, cl, sl) {
			if (have <= wd->min_need)
				break;
			long k = wp_x(s, sl);
			if (k > have - wd->min_need)
				k = have - wd->min_need;
			if (k <= 0)
				continue;
			size_t mark = T->nxl;
			wtu_put(T, sl, (int)-k);
			long got = fill_node(T, cl->elig[sl - cl->off], want,
					     nw0, sz, size);
			if (got <= k || T->nomem) {
				wtu_back_to(T, mark);
				continue;
			}
			have -= k;
			net += got - k;
		}
	}
	wtu_mark m0 = wtu_mark_now(T);
	size_t mark = m0.x;
	long lost = 0, got = 0;
	for (int i = 0; i < wd->nclasses; i++) {
		const wp_class *cl = &p->classes[wd->classes[i]];
		WP_X_EACH(s, cl, sl) {
			lost += wp_x(s, sl);
			wtu_put(T, sl, -wp_x(s, sl));
		}
	}
	/* the waiting gangs whose minimum is not much more than the room
	 * d leaves (by size; a filter, so that a trade does not try every
	 * waiting gang on every node) */
	int *jw = T->jw, nj = nw0;
	memcpy(jw, want, sizeof *jw * (size_t)nw0);
	for (int w = nw0; w < nw; w++) {
		const wp_group *wg = &p->groups[want[w]];
		if (wg->min_need * sz[wg->classes[0]] <=
		    WTU_JOIN_ROOM * (double)lost * size)
			jw[nj++] = want[w];
	}
	/* first the admitted groups that want pods smaller than d's, on
	 * d's nodes */
	size_t vend = T->nxl;
	for (size_t e = mark; e < vend && !T->nomem; e++)
		if (T->xl[e].k < 0)
			got += fill_node(T, xl_node(T, e), jw, nw0, sz, size);
	/* then each waiting gang in turn, on d's nodes and then on the
	 * room no one uses (frag-2048 seed 1: a gang of 32 making way for
	 * one of 41 beside 10 whole nodes idle); kept where it gets its
	 * minimum.  Its pods may be as large as d's: with room elsewhere a
	 * larger gang of them gains. */
	double upto = T->nspare ? nextafter(size, INFINITY) : size;
	int gv = 0, first = -1;
	/* into idle room, the gang that gains most goes first (tried
	 * each alone): in order, a gang of 28 took the room of one of 32
	 * that a waiting one of 39 would have gained on (fragmented seed 3
	 * at 2,048 nodes) */
	if (T->nspare) {
		long best = 0;
		for (int w = nw0; w < nj && !T->nomem; w++) {
			int tried = 0;
			wtu_mark m1 = wtu_mark_now(T);
			long g1 = join(T, jw + w, mark, vend, sz, upto,
				       lost - got, &tried);
			if (g1 > best) {
				best = g1;
				first = w;
			}
			wtu_undo_to(T, m1);
		}
	}
	/* (none gains alone: none does after another either) */
	int k0 = !T->nspare ? nw0 : first < 0 ? nj : nw0 - 1;
	for (int k = k0; k < nj && !T->nomem; k++) {
		int w = k < nw0 ? first : k;
		if (k >= nw0 && w == first)
			continue;
		got += join(T, jw + w, mark, vend, sz, upto, lost - got, &gv);
	}
	want = jw;
	nw = nj;
	size_t amark = T->nadm;
	if (got <= lost || T->nomem || !wtu_rehome(T, d, mark) ||
	    !admit_joined(T, want, nw)) {
		wtu_undo_to(T, m0);
		unadmit_to(T, amark);
		return net;
	}
	*gave += gv;
	s->admit[d] = 0;
	s->reason[d] = WAIT_TRADE;
	if (WA_PUSH(T->a, T->drop, T->ndrop, T->dcap, d))
		T->nomem = true;
	return net + got - lost;
}

/* Trades at each priority: the gangs with the largest pods first, each
 * against the groups of its priority that still want pods, admitted or
 * waiting.  idle: the waiting gangs may also take the room no one uses
 * (T->spare). */
static void trades(tstate *T, const int *cand, int nc, const double *sz,
		   int *tmp, bool idle, wtu_stats *st)
{
	const wp_problem *p = T->p;
	int *want = wa_calloc(T->a, (size_t)p->ngroups + 1, sizeof *want);
	T->jw = wa_calloc(T->a, (size_t)p->ngroups + 1, sizeof *T->jw);
	T->spare = wa_calloc(T->a, WTU_SPARE_NODES, sizeof *T->spare);
	int *rep = wa_calloc(T->a, 3 * (size_t)p->ngroups + 1, sizeof *rep);
	T->sroom = wa_calloc(T->a, 2 * (size_t)p->ngroups + 1, sizeof *T->sroom);
	T->ysp = wa_calloc(T->a, (size_t)p->nnodes + 1, 1);
	T->yused = wa_calloc(T->a, (size_t)T->nres + 1, sizeof *T->yused);
	int *dl = wa_calloc(T->a, (size_t)nc + 1, sizeof *dl);
	double *dsz = wa_calloc(T->a, (size_t)p->ngroups + 1, sizeof *dsz);
	if (!want || !T->jw || !T->spare || !rep || !T->sroom || !T->ysp ||
	    !T->yused || !dl || !dsz) {
		T->nomem = true;
		return;
	}
	for (int a = 0; a < nc;) {
		int32_t pr = p->groups[cand[a]].priority;
		int b = a, nw = 0, nd = 0;
		for (; b < nc && p->groups[cand[b]].priority == pr; b++) {
			int g = cand[b];
			const wp_group *wg = &p->groups[g];
			long have = T->gh[g];
			if (have > 0 && have < wg->size)
				want[nw++] = g; /* cand: smallest pods first */
			if (wg->gang && wg->nbound == 0 && have > 0) {
				dsz[g] = sz[wg->classes[0]];
				dl[nd++] = g;
			}
		}
		/* then the waiting gangs of the priority, smallest pods
		 * first: they join where a trade gives them their minimum */
		int nw0 = nw;
		for (int g = 0; g < p->ngroups; g++)
			if (p->groups[g].priority == pr && wtu_joinable(T, g)) {
				dsz[g] = sz[p->groups[g].classes[0]];
				want[nw++] = g;
			}
		wis_sort(want + nw0, tmp, nw - nw0, wis_asc, dsz);
		wis_sort(dl, tmp, nd, wis_desc, dsz);
		T->nspare = 0;
		T->ebeg = NULL;
		if (idle && !spare_nodes(T, want + nw0, nw - nw0, rep)) {
			T->nomem = true;
			return;
		}
		for (int i = 0; nw > 0 && i < nd && !T->nomem; i++) {
			if (wdl_passed(T->dl, 0)) {
				T->late = true;
				return;
			}
			int before = (int)T->ndrop, jb = (int)T->nadm, gave = 0;
			long net = trade(T, dl[i], want, nw0, nw, sz, &gave);
			st->pods += (int)net;
			st->traded += (int)T->ndrop - before - gave;
			st->gave_way += gave;
			st->joined += (int)T->nadm - jb;
		}
		a = b;
	}
}

/* Top up the groups of cand[], in its order, until the deadline. */
static void groups(tstate *T, const int *cand, int nc, const double *sz,
		   int *tmp, int *ord, wtu_stats *st)
{
	for (int i = 0; i < nc && !T->nomem && !T->late; i++) {
		if (wdl_passed(T->dl, 0))
			T->late = true;
		else
			group(T, cand[i], sz, tmp, ord, st);
	}
}

/* Admissions before the top-up: a trade's log (adm) and the groups made
 * to wait (drop) interleave with clearing's, so they are restored whole. */
typedef struct tsaved {
	unsigned char *admit;
	const char **reason;
} tsaved;

static bool save(tstate *T, tsaved *v)
{
	size_t ng = (size_t)T->p->ngroups;
	v->admit = wa_calloc(T->a, ng + 1, 1);
	v->reason = wa_calloc(T->a, ng + 1, sizeof *v->reason);
	if (!v->admit || !v->reason)
		return false;
	memcpy(v->admit, T->s->admit, ng);
	memcpy(v->reason, T->s->reason, ng * sizeof *v->reason);
	return true;
}

/* Take back what the top-up did: pods and units by their logs, the
 * admissions whole. */
static void undo(tstate *T, const tsaved *v)
{
	size_t ng = (size_t)T->p->ngroups;
	wtu_take_back(T, 0);
	wtu_back_to(T, 0);
	memcpy(T->s->admit, v->admit, ng);
	memcpy(T->s->reason, v->reason, ng * sizeof *v->reason);
}

static int topup_once(const wp_problem *p, wp_sol *s, wb_deadline dl,
		      wtu_pack pack, wtu_stats *st)
{
	memset(st, 0, sizeof *st);
	if (!wtu_applies(p)) /* no moves: move_to is all -1 */
		return 0;
	wa_arena *a = wa_new();
	if (!a)
		return -1;
	tstate T0 = {.p = p, .s = s, .a = a, .dl = dl}, *T = &T0;
	int ng = p->ngroups;
	gkey *key = wa_calloc(a, (size_t)ng + 1, sizeof *key);
	int *cand = wa_calloc(a, (size_t)ng + 1, sizeof *cand);
	int big = p->nunits > ng ? p->nunits : ng;
	if (big < p->nclasses)
		big = p->nclasses;
	int *tmp = wa_calloc(a, (size_t)big + 1, sizeof *tmp);
	int *ord = wa_calloc(a, (size_t)p->nclasses + 1, sizeof *ord);
	tsaved saved;
	double *sz = key && cand && tmp && ord && !setup(T) && save(T, &saved)
			     ? class_sizes(T)
			     : NULL;
	if (!sz) {
		wa_destroy(a);
		return -1;
	}
	wp_value before, after;
	wp_evaluate(p, s, &before);
	int nc = 0;
	for (int g = 0; g < ng; g++) {
		const wp_group *wg = &p->groups[g];
		if (!s->admit[g] || wg->invalid || wg->pcomp || wg->tas ||
		    wg->nclasses == 0 || level_of(T, wg->priority) < 0)
			continue;
		double m = 0;
		for (int i = 0; i < wg->nclasses; i++)
			if (i == 0 || sz[wg->classes[i]] < m)
				m = sz[wg->classes[i]];
		key[g] = (gkey){wg->priority, m};
		cand[nc++] = g;
	}
	wis_sort(cand, tmp, nc, cmp_group, key);
	int ev0 = T->evicted;
	/* the levels' small pods packed tight first: whole nodes for the
	 * fill and the clearing (topup_repack.c) */
	if (pack != WTU_PACK_NONE)
		wtu_repack(T, sz, pack, st);
	groups(T, cand, nc, sz, tmp, ord, st);
	if (!T->nomem && !T->late && s->evict) {
		trades(T, cand, nc, sz, tmp, false, st);
		/* a gang that made way leaves room the fill did not take
		 * (its units run again there, and may go again) */
		if (st->traded)
			groups(T, cand, nc, sz, tmp, ord, st);
	}
	/* clearing again finds room that groups giving way left (a few
	 * pods a round on frag-2048) */
	for (int r = 0; r < WTU_CLEAR_ROUNDS && !T->nomem && !T->late; r++) {
		int p0 = st->pods;
		wtu_clears(T, cand, nc, sz, st);
		if (st->pods == p0)
			break;
	}
	/* last, trades into the room no one took, where a waiting gang's
	 * pods may be as large as those of the gang making way and lower
	 * groups' planned pods give way.  Not before the clearing: room it
	 * admits whole gangs into went to trades gaining a pod or two
	 * (greedy's plan of a generated 512-node gpu cluster: 14
	 * top-priority pods fewer).  Before the search too: fragmented
	 * seed 1 at 2,048 nodes 3,564 top-priority pods twice, 3,553 twice
	 * with it in the last top-up only */
	if (!T->nomem && !T->late && s->evict) {
		int p0 = st->pods;
		trades(T, cand, nc, sz, tmp, true, st);
		T->ebeg = NULL;
		if (st->pods > p0)
			groups(T, cand, nc, sz, tmp, ord, st);
	}
	st->late = T->late;
	/* evictions net: a gang that made way or gave way lets units run */
	st->evicted = T->evicted > ev0 ? T->evicted - ev0 : 0;
	/* the whole plan checked, and kept only when better */
	wp_evaluate(p, s, &after);
	const char *why;
	int rc = T->nomem ? -1 : 0;
	if (rc || st->pods == 0 || wp_sol_feasible(p, s, &why) ||
	    wpe_check_never(p, s, &why) ||
	    wp_value_cmp(&after, &before) <= 0) {
		undo(T, &saved);
		memset(st, 0, sizeof *st);
		st->late = T->late;
	}
	wa_destroy(a);
	return rc;
}

/* The top-up made once per way of packing up to pack, each from the
 * same plan, and the best kept.  Packing leaves whole nodes, but the
 * fill and the clearing after it may also find less (greedy's plans of
 * generated gpu clusters of 512-2,048 nodes: 1-10 top-priority pods
 * more or fewer either way; bench/README.md, "Packing tight").  The
 * ways that may take more room go first: they placed more on nearly
 * every instance measured, and at 10,000 nodes, where each way takes
 * seconds, the deadline leaves the last ones little time. */
int wtu_topup(const wp_problem *p, wp_sol *s, wb_deadline dl, wtu_pack pack,
	      wtu_stats *st)
{
	if (pack == WTU_PACK_NONE)
		return topup_once(p, s, dl, WTU_PACK_NONE, st);
	memset(st, 0, sizeof *st);
	if (!wtu_applies(p))
		return 0;
	wa_arena *a = wa_new();
	wp_sol *orig = a ? wp_sol_new(p, a) : NULL;
	wp_sol *alt = orig ? wp_sol_new(p, a) : NULL;
	if (!alt) {
		wa_destroy(a);
		return -1;
	}
	wp_sol_copy(p, orig, s);
	int rc = topup_once(p, s, dl, WTU_PACK_NONE, st);
	bool late = st->late;
	static const wtu_pack ways[] = {WTU_PACK_YIELD, WTU_PACK_EVICT,
					WTU_PACK_FREE};
	for (size_t i = 0; i < sizeof ways / sizeof *ways && !rc; i++) {
		wtu_pack m = ways[i];
		if (m > pack)
			continue;
		wtu_stats st2;
		wp_sol_copy(p, alt, orig);
		rc = topup_once(p, alt, dl, m, &st2);
		late = late || st2.late;
		if (rc || st2.pods == 0)
			continue;
		wp_value v1, v2;
		wp_evaluate(p, s, &v1);
		wp_evaluate(p, alt, &v2);
		if (st->pods == 0 || wp_value_cmp(&v2, &v1) > 0) {
			wp_sol_copy(p, s, alt);
			*st = st2;
			st->packed_by = m;
		}
	}
	st->late = late;
	wa_destroy(a);
	return rc;
}
