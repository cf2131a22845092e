/*
 * preempt.c -- all of the greedy's preemption: the victim search per
 * domain (cheapest victim set, bisection, reprieve), per-pod preemption
 * of a basic group's rest, devices freed by evicted holders, and the
 * capacity each priority level may use once something was evicted.
 * doc/preemption.md ("Greedy victim search"); doc/formulation.md §4b
 * for capacity by priority level; doc/dra.md for freed devices.
 */
#include "solve/greedy/greedy_int.h"
#include "base/sort.h"
#include "reduce/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Workload-aware preemption (doc/preemption.md, KEP-5710).  A group
 * that does not fit may evict running units of strictly lower priority.
 * Per candidate domain: the group must fit with every such unit there
 * gone (else the domain is out); the shortest prefix of the units sorted
 * cheapest first (lowest priority, then fewest pods) that lets it fit is
 * found by bisection; the group is placed; then every victim whose return still
 * fits beside the placement is reprieved, highest priority first (as
 * upstream's reprieve step).  The cheapest domain wins and is redone for
 * real, so the result is deterministic.
 *
 * Freed capacity serves only strictly higher priorities: G->fr holds, on
 * nodes with evictions, the capacity usable at the level being placed
 * (the minimum slack of the capacity-by-priority rows at and above it),
 * recomputed whenever the priority level changes. */

/* A candidate domain of the victim search and the lower bound on its
 * cost (wgr_ix_cost_lb; no budget violations assumed). */
typedef struct pebound {
	int i;      /* candidate index */
	double w;
	long pods;
	bool live;  /* worth a search */
	long spods; /* the part of the bound the slots give (slot_gain) */
} pebound;

static int cmp_pebound(const void *va, const void *vb)
{
	const pebound *a = va, *b = vb;
	if (a->w != b->w)
		return a->w < b->w ? -1 : 1;
	if (a->pods != b->pods)
		return a->pods < b->pods ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Units cheapest first: those whose eviction breaks no budget, then
 * lowest priority, then fewest pods, then index. */
typedef struct unitctx {
	const wp_problem *p;
	const unsigned char *pdbv;
} unitctx;

static int cmp_unit_cost(const void *ctx, int a, int b)
{
	const wp_problem *p = ((const unitctx *)ctx)->p;
	const unsigned char *pdbv = ((const unitctx *)ctx)->pdbv;
	const wp_unit *x = &p->units[a], *y = &p->units[b];
	if (pdbv[a] != pdbv[b])
		return pdbv[a] < pdbv[b] ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	if (x->npods != y->npods)
		return x->npods < y->npods ? -1 : 1;
	return (a > b) - (a < b);
}

/* The lowest priority of a unit the victim search may evict on node n
 * (none on an over-committed node), into G->pe_nmin[n]. */
static void pe_node_min(gs *G, int n)
{
	const wp_problem *p = G->p;
	int32_t m = INT32_MAX;
	for (int r = 0; r < G->nres; r++)
		if (p->free[(size_t)n * G->nres + r] < 0) {
			G->pe_nmin[n] = m;
			return;
		}
	for (int e = G->pe_start[n]; e < G->pe_start[n + 1]; e++) {
		int u = G->pe_list[e];
		if (!G->sol->evict[u] && !p->units[u].keep &&
		    !wgr_unit_moved(G, u) && p->units[u].priority < m)
			m = p->units[u].priority;
	}
	G->pe_nmin[n] = m;
}

/* Node -> units with a pod there (CSR), built on first use. */
/* A unit's key in the per-node lists: its priority, or above every
 * priority when it is protected (no group may evict it). */
static int32_t pe_key(const wp_problem *p, int u)
{
	return p->units[u].keep ? INT32_MAX : p->units[u].priority;
}

int wgr_pe_setup(gs *G)
{
	const wp_problem *p = G->p;
	if (G->pe_start)
		return 0;
	G->pe_start = wa_calloc(G->tmp, (size_t)G->nn + 2, sizeof(int));
	G->pe_mark = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	G->pe_v = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_rep = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	G->pe_tmp = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_pdbv = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	G->pdb_left = wa_calloc(G->tmp, (size_t)p->snap->npdbs + 1,
				sizeof(int));
	G->pdb_use = wa_calloc(G->tmp, (size_t)p->snap->npdbs + 1,
			       sizeof(int));
	if (!G->pe_pdbv || !G->pdb_left || !G->pdb_use)
		return -1;
	for (int j = 0; j < p->snap->npdbs; j++)
		G->pdb_left[j] = p->pdb_allowed[j];
	G->dirty = wa_calloc(G->tmp, (size_t)G->nn + 1, 1);
	G->dlist = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int));
	if (!G->pe_start || !G->pe_mark || !G->pe_v || !G->pe_rep || !G->pe_tmp ||
	    !G->dirty || !G->dlist)
		return -1;
	long tot = 0;
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; i < p->units[u].npods; i++)
			G->pe_start[p->snap->pods[p->units[u].pods[i]].node + 1]++;
	for (int n = 0; n < G->nn; n++)
		G->pe_start[n + 1] += G->pe_start[n];
	tot = G->pe_start[G->nn];
	G->pe_list = wa_calloc(G->tmp, (size_t)tot + 1, sizeof(int));
	int *fill = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int));
	if (!G->pe_list || !fill)
		return -1;
	/* an entry per running pod of a unit: its unit, the unit's key and
	 * the pod's requests, kept beside the list (the scan reads no pod) */
	G->pe_pkey = wa_calloc(G->tmp, (size_t)tot + 1, sizeof(int32_t));
	G->pe_preq = wa_calloc(G->tmp, (size_t)tot * G->nres + 1,
			       sizeof(int64_t));
	G->pe_cap = wa_calloc(G->tmp, (size_t)G->nres + 1, sizeof(int64_t));
	G->pe_acc = wa_calloc(G->tmp, (size_t)p->nclasses + 1,
			      sizeof(int64_t));
	if (!G->pe_pkey || !G->pe_preq || !G->pe_cap || !G->pe_acc)
		return -1;
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; i < p->units[u].npods; i++) {
			const ws_pod *pod = &p->snap->pods[p->units[u].pods[i]];
			int e = G->pe_start[pod->node] + fill[pod->node]++;
			G->pe_list[e] = u;
			G->pe_pkey[e] = pe_key(p, u);
			memcpy(G->pe_preq + (size_t)e * G->nres, pod->req,
			       (size_t)G->nres * sizeof(int64_t));
		}
	G->pe_nmin = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int32_t));
	G->pe_nfit = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int64_t));
	G->pe_fep = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(uint32_t));
	int maxd = 1;
	for (int k = 0; p->topo && k < p->topo->nkeys; k++)
		if (p->topo->keys[k].ndom > maxd)
			maxd = p->topo->keys[k].ndom;
	G->pe_lb = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *G->pe_lb);
	G->pe_dom = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *G->pe_dom);
	if (!G->pe_nmin || !G->pe_nfit || !G->pe_fep || !G->pe_lb ||
	    !G->pe_dom)
		return -1;
	if (G->dra && p->snap->dra) {
		G->dv_gone = wa_calloc(G->tmp, (size_t)p->snap->dra->nspecs + 1,
				       sizeof(int));
		G->dv_back = wa_calloc(G->tmp,
				       (size_t)p->snap->dra->nspecs + 1, 1);
		if (!G->dv_gone || !G->dv_back)
			return -1;
	}
	/* per unit, its pods' nodes and requests side by side (pe_apply) */
	G->pe_uoff = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_unode = wa_calloc(G->tmp, (size_t)tot + 1, sizeof(int));
	G->pe_ureq = wa_calloc(G->tmp, (size_t)tot * G->nres + 1,
			       sizeof(int64_t));
	if (!G->pe_uoff || !G->pe_unode || !G->pe_ureq)
		return -1;
	G->pe_maxreq = wa_calloc(G->tmp, (size_t)G->nres + 1, sizeof(int64_t));
	if (!G->pe_maxreq)
		return -1;
	for (int u = 0, e = 0; u < p->nunits; u++) {
		G->pe_uoff[u] = e;
		for (int i = 0; i < p->units[u].npods; i++, e++) {
			const ws_pod *pod = &p->snap->pods[p->units[u].pods[i]];
			G->pe_unode[e] = pod->node;
			memcpy(G->pe_ureq + (size_t)e * G->nres, pod->req,
			       (size_t)G->nres * sizeof(int64_t));
			for (int r = 0; r < G->nres; r++)
				if (pod->req[r] > G->pe_maxreq[r])
					G->pe_maxreq[r] = pod->req[r];
		}
		G->pe_uoff[u + 1] = e;
	}
	for (int n = 0; n < G->nn; n++)
		pe_node_min(G, n);
	/* the static part of the cost order, sorted once */
	G->pe_rank = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_order = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	if (!G->pe_rank || !G->pe_order)
		return -1;
	for (int u = 0; u < p->nunits; u++)
		G->pe_order[u] = u;
	wis_sort(G->pe_order, G->pe_tmp, p->nunits, cmp_unit_cost,
		 &(unitctx){p, G->pe_pdbv});
	for (int i = 0; i < p->nunits; i++)
		G->pe_rank[G->pe_order[i]] = i;
	if (wgr_pc_setup(G))
		return -1;
	return wgr_ix_setup(G);
}

/* v[0..n) in cmp_unit_cost order by sorting: a bottom-up merge sort of
 * the distinct integer keys (the rank, past every rank when budget-
 * breaking). */
static void sort_ranks(const gs *G, int *v, int n)
{
	int nu = G->p->nunits;
	for (int i = 0; i < n; i++)
		v[i] = G->pe_rank[v[i]] + (G->pe_pdbv[v[i]] ? nu : 0);
	int *a = v, *b = G->pe_tmp;
	for (int w = 1; w < n; w *= 2) {
		for (int lo = 0; lo < n; lo += 2 * w) {
			int mid = lo + w < n ? lo + w : n;
			int hi = lo + 2 * w < n ? lo + 2 * w : n;
			int i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				b[o++] = a[i] < a[j] ? a[i++] : a[j++];
			while (i < mid)
				b[o++] = a[i++];
			while (j < hi)
				b[o++] = a[j++];
		}
		int *t = a;
		a = b;
		b = t;
	}
	if (a != v)
		memcpy(v, a, (size_t)n * sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = G->pe_order[v[i] >= nu ? v[i] - nu : v[i]];
}

/* The same by sweeping the static order (G->pe_order) twice and taking
 * the units of v: O(units), less than sorting when v holds many of them
 * (a search over the cluster). */
static void sweep_ranks(const gs *G, int *v, int n)
{
	int nu = G->p->nunits, nb = 0; /* budget-breaking: second sweep */
	for (int i = 0; i < n; i++) {
		G->pe_mark[v[i]] = 1;
		nb += G->pe_pdbv[v[i]];
	}
	int o = 0;
	for (int pass = 0; pass < 2; pass++) {
		int end = pass ? n : n - nb;
		for (int i = 0; o < end && i < nu; i++) {
			int u = G->pe_order[i];
			if (G->pe_mark[u] && G->pe_pdbv[u] == pass)
				v[o++] = u;
		}
	}
	for (int i = 0; i < n; i++)
		G->pe_mark[v[i]] = 0;
}

/* v[0..n) in cmp_unit_cost order: budget-breaking last, else the rank.
 * -1 on NOMEM (the checked pass only). */
static int pe_sort(gs *G, int *v, int n)
{
	if ((int64_t)n * 8 < G->p->nunits) {
		sort_ranks(G, v, n);
		return 0;
	}
	if (G->ix_check) {
		/* the checked pass: sorting must give the same order */
		if (!G->pe_chkv &&
		    !(G->pe_chkv = wa_alloc(G->tmp, ((size_t)G->p->nunits + 1) *
							sizeof(int))))
			return -1;
		memcpy(G->pe_chkv, v, (size_t)n * sizeof *v);
		sort_ranks(G, G->pe_chkv, n);
		sweep_ranks(G, v, n);
		G->ix_checks++;
		G->ix_bad += memcmp(G->pe_chkv, v, (size_t)n * sizeof *v) != 0;
		return 0;
	}
	sweep_ranks(G, v, n);
	return 0;
}

/* Devices of allocated claim sp: give back (sign -1: free) or take again
 * (+1); taking again notes a device in use twice (dv_clash). */
static void dv_take(gs *G, int sp, int sign)
{
	const ws_dra *d = G->s->dra;
	const wdr_spec *spec = &d->specs[sp];
	for (int k = 0; k < spec->nalloc; k++) {
		int dv = spec->alloc_dev[k];
		if (sign < 0 && G->dra->taken[dv] > 0)
			G->dra->taken[dv]--;
		else if (sign > 0) {
			if (G->dra->taken[dv] > 0 && !d->devs[dv].multi)
				G->dv_clash = true;
			if (G->dra->taken[dv] < UINT16_MAX)
				G->dra->taken[dv]++;
		}
	}
}

/* Pod pi evicted (sign +1) or restored (-1): the claims it holds lose
 * (regain) a holder; devices are freed when the last one goes. */
static void dv_apply(gs *G, int pi, int sign)
{
	const ws_dra *d = G->s->dra;
	if (!G->dra || !d || !d->held_beg || !G->dv_gone)
		return;
	for (int h = d->held_beg[pi]; h < d->held_beg[pi + 1]; h++) {
		int sp = d->held[h];
		if (G->dv_back[sp])
			continue; /* freed and taken back: stays as it is */
		if (sign > 0 && ++G->dv_gone[sp] == d->specs[sp].nholders)
			dv_take(G, sp, -1);
		else if (sign < 0 &&
			 G->dv_gone[sp]-- == d->specs[sp].nholders)
			dv_take(G, sp, 1);
	}
}

/* Entering level q: devices freed by victims of priority >= q are not
 * for this level and below (they serve strictly higher priorities). */
static void dv_level(gs *G, int32_t q)
{
	const ws_snapshot *s = G->s;
	const ws_dra *d = s->dra;
	if (!G->dv_gone || !d)
		return;
	for (int sp = 0; sp < d->nspecs; sp++) {
		const wdr_spec *spec = &d->specs[sp];
		if (G->dv_back[sp] || !spec->nholders ||
		    G->dv_gone[sp] < spec->nholders)
			continue;
		int32_t top = INT32_MIN;
		for (int i = 0; i < spec->nholders; i++) {
			const ws_pod *pod = &s->pods[spec->holders[i]];
			int32_t pr = pod->group >= 0
					 ? s->groups[pod->group].priority
					 : pod->priority;
			if (pr > top)
				top = pr;
		}
		if (top >= q) {
			dv_take(G, sp, 1);
			G->dv_back[sp] = 1;
			wgr_pc_forget(G); /* no room changed: say so */
		}
	}
	G->dv_clash = false;
}

/* Evict (sign +1) or restore (-1) unit u in the working capacity. */
static void pe_apply(gs *G, int u, int sign)
{
	int e0 = G->pe_uoff[u], e1 = G->pe_uoff[u + 1];
	for (int e = e0; e < e1; e++) {
		int n = G->pe_unode[e];
		const int64_t *rq = G->pe_ureq + (size_t)e * G->nres;
		int64_t *f = G->fr + (size_t)n * G->nres;
		for (int r = 0; r < G->nres; r++)
			f[r] += sign * rq[r];
		if (G->dv_gone)
			dv_apply(G, G->p->units[u].pods[e - e0], sign);
		wgr_touch(G, n);
	}
}

/* After restoring u: does every node of u still have room? */
static bool pe_fits(gs *G, int u)
{
	if (G->dv_clash) { /* its devices are in use again */
		G->dv_clash = false;
		return false;
	}
	for (int e = G->pe_uoff[u]; e < G->pe_uoff[u + 1]; e++) {
		const int64_t *f = G->fr + (size_t)G->pe_unode[e] * G->nres;
		for (int r = 0; r < G->nres; r++)
			if (f[r] < 0)
				return false;
	}
	return true;
}

/* Unit u evicted for good by group g (its room is already in G->fr):
 * the solution, the domain index, its nodes dirty for the next level's
 * capacity and their lowest evictable priority anew. */
void wgr_pe_evict(gs *G, int u, int g)
{
	G->sol->evict[u] = 1;
	G->sol->evict_by[u] = g;
	wgr_ix_unit(G, u, -1);
	const wp_unit *un = &G->p->units[u];
	for (int j = 0; j < un->npods; j++) {
		int n = G->s->pods[un->pods[j]].node;
		if (!G->dirty[n]) {
			G->dirty[n] = 1;
			G->dlist[G->ndirty++] = n;
		}
		pe_node_min(G, n);
	}
}

/* The same three for the led pass's clearing (led.c). */
void wgr_pe_unit(gs *G, int u, int sign)
{
	pe_apply(G, u, sign);
}

bool wgr_pe_unit_fits(gs *G, int u)
{
	return pe_fits(G, u);
}

void wgr_pe_node(gs *G, int n)
{
	pe_node_min(G, n);
}

/* The pod slots of a one-class group in one domain, kept while the
 * victim prefix moves (pe_shortest): per node of the domain its fit as
 * placing sees it (wgr_node_fit_c), and their sum.  Placing puts at most
 * a node's fit on it, so min(pods, sum) bounds the pods a probe places;
 * without device claims it is exactly what it places (wgr_place_cands
 * takes min(fit, pods left) node after node). */
typedef struct peslots {
	int c;
	const wtp_key *k; /* NULL: the cluster */
	int d;
	int64_t m;        /* pods the class may place (as wgr_place_upto) */
	int64_t sum;
	int64_t *fit;     /* per node (G->pe_nfit): valid where the node's
			     G->pe_fep is this count's G->pe_epoch, else 0 */
	bool exact;       /* the sum decides a probe: no claims          */
	bool ok;          /* the sum is known: no eviction freed a device
			     reachable from several nodes                */
} peslots;

/* Node n changed: its fit in the sum. */
static void ps_node(gs *G, peslots *ps, int n)
{
	if (n < 0 || (ps->k && ps->k->node_dom[n] != ps->d) ||
	    !wgr_elig_bit(&G->ci[ps->c], n))
		return;
	int64_t f = wgr_node_fit_c(G, ps->c, n);
	ps->sum += f - (G->pe_fep[n] == G->pe_epoch ? ps->fit[n] : 0);
	ps->fit[n] = f;
	G->pe_fep[n] = G->pe_epoch;
}

/* Unit u was evicted or restored: the nodes whose fit that changes --
 * its pods' and, with claims, those of the devices its claims hold. */
static void ps_unit(gs *G, peslots *ps, int u)
{
	const ws_dra *d = G->s->dra;
	bool held = d && d->held_beg;
	int e0 = G->pe_uoff[u];
	for (int e = e0; e < G->pe_uoff[u + 1]; e++) {
		ps_node(G, ps, G->pe_unode[e]);
		int pi = held ? G->p->units[u].pods[e - e0] : 0;
		for (int h = held ? d->held_beg[pi] : 0;
		     held && h < d->held_beg[pi + 1]; h++) {
			const wdr_spec *sp = &d->specs[d->held[h]];
			for (int j = 0; j < sp->nalloc; j++) {
				int n = d->devs[sp->alloc_dev[j]].reach.node;
				if (n < 0)
					ps->ok = false;
				else
					ps_node(G, ps, n);
			}
		}
	}
}

/* Make exactly the first m of v[] evicted, *cur being evicted now (the
 * bisection moves the prefix instead of redoing it from scratch); ps
 * (may be NULL) follows the nodes the evictions change. */
static void pe_prefix_ps(gs *G, const int *v, int *cur, int m, peslots *ps)
{
	for (; *cur != m; *cur < m ? (*cur)++ : (*cur)--) {
		int u = *cur < m ? v[*cur] : v[*cur - 1];
		pe_apply(G, u, *cur < m ? 1 : -1);
		if (ps)
			ps_unit(G, ps, u);
	}
}

static void pe_prefix(gs *G, const int *v, int *cur, int m)
{
	pe_prefix_ps(G, v, cur, m, NULL);
}

/* The slots of group wg in domain d of k, for pe_shortest: false when
 * the group has several classes (no count). */
static bool ps_init(gs *G, peslots *ps, const wp_group *wg,
		    const wtp_key *k, int d, int limit)
{
	if (wg->nclasses != 1 || !G->pe_nfit)
		return false;
	int c = wg->classes[0];
	const wp_class *cl = &G->p->classes[c];
	/* with claims the count is exact where the devices keep to their
	 * nodes and each node's device fit is exact (wdr_fit_exact) */
	const wdr_podc *pc = G->cpc ? G->cpc[c] : NULL;
	*ps = (peslots){c, k, d, cl->count, 0, G->pe_nfit,
			!pc || (G->dev_local &&
				wdr_fit_exact(G->s->dra, pc, -1)), true};
	if (pc && G->dev_nodes)
		pc = NULL; /* every node passes: no check per node */
	if (G->pe_rest > 0)
		ps->m -= wp_x_placed(G->sol, cl);
	if (ps->m > limit)
		ps->m = limit;
	/* a new count: every node's fit is 0 until set */
	if (++G->pe_epoch == 0) {
		memset(G->pe_fep, 0, (size_t)G->nn * sizeof *G->pe_fep);
		G->pe_epoch = 1;
	}
	int n1 = k ? k->dom_nnodes[d] : cl->nelig;
	int nc = wgr_room_find(G, c, k, d, G->nc);
	if (nc == -2)
		return false; /* NOMEM: no count, the probes place */
	/* from the room tree only the nodes with room, which have a fit to
	 * count; else every node of the domain */
	for (int i = 0; i < nc; i++) {
		ps->fit[G->nc[i].n] = G->nc[i].fit;
		G->pe_fep[G->nc[i].n] = G->pe_epoch;
		ps->sum += G->nc[i].fit;
	}
	for (int j = 0; nc == -1 && j < n1; j++)
		ps_node(G, ps, k ? k->dom_nodes[d][j] : cl->elig[j]);
	for (int j = 0; pc && ps->exact && j < n1; j++)
		ps->exact = wdr_node_exact(G->s->dra,
					   k ? k->dom_nodes[d][j] : cl->elig[j]);
	return true;
}

/* The checked pass (wgr_solve_checked): with claims, an exact count
 * must be what placing gives; the placement is undone. */
static int ps_check(gs *G, const wp_group *wg, const int *corder,
		    const wtp_key *k, int d, int need, int limit,
		    const peslots *ps)
{
	if (!G->ix_check || !ps || !ps->exact || !ps->ok || !G->cpc ||
	    !G->cpc[ps->c])
		return 0;
	int64_t want = ps->sum < ps->m ? ps->sum : ps->m;
	int r = wgr_place_upto(G, wg, corder, k, d, need, limit);
	if (r == -2)
		return -2;
	if (r >= 0)
		wgr_rollback(G);
	G->ix_checks++;
	G->ix_bad += r != (want < need ? -1 : want);
	return 0;
}

/* The count says the probe fails (only when the count is known). */
static bool ps_short(const peslots *ps, int need)
{
	return ps && ps->ok && (ps->sum < ps->m ? ps->sum : ps->m) < need;
}

/* Does the group fit in d with the first m of v[] evicted?  Leaves the
 * prefix evicted (*cur = m) and, when it fits, the placement (logged, for
 * rollback).  Pods placed, -1 no, -2 NOMEM.  With slots ps (may be
 * NULL), a probe they show short is answered without placing; with
 * exact slots, a probe they show fitting is answered 0 (it fits; nothing
 * placed). */
static int pe_test(gs *G, const wp_group *wg, const int *corder,
		   const wtp_key *k, int d, int need, int limit,
		   const int *v, int *cur, int m, peslots *ps)
{
	pe_prefix_ps(G, v, cur, m, ps);
	if (ps_check(G, wg, corder, k, d, need, limit, ps))
		return -2;
	if (ps_short(ps, need))
		return -1;
	if (ps && ps->exact)
		return 0;
	return wgr_place_upto(G, wg, corder, k, d, need, limit);
}

typedef wgr_pecost pecost;

/* pe_victims over the whole cluster for a one-class group without
 * claims, when no budget and no over-committed node can change the
 * order or the answer: the units below the group's priority are a
 * prefix of the static cost order (G->pe_order, ranked with no budget
 * broken), so the candidates come out sorted with no node scanned and no
 * sort.  The bound on all of them gone is left to the search, whose
 * last probe (everything evicted) decides the same question exactly
 * here.  Their count, or -1 when none. */
static int pe_victims_flat(gs *G, const wp_group *wg)
{
	const wp_problem *p = G->p;
	const cinfo *ci = &G->ci[wg->classes[0]];
	int *v = G->pe_v, nv = 0;
	for (int i = 0; i < p->nunits; i++) {
		int u = G->pe_order[i];
		const wp_unit *un = &p->units[u];
		if (un->priority >= wg->priority)
			break;
		if (G->sol->evict[u] || un->keep)
			continue;
		for (int j = 0; j < un->npods; j++) {
			int n = G->s->pods[un->pods[j]].node;
			if (wgr_elig_bit(ci, n) && G->pe_nmin[n] < wg->priority) {
				v[nv++] = u;
				break;
			}
		}
	}
	return nv > 0 ? nv : -1;
}

/* Does pe_victims_flat give group wg's candidates (in the cluster)? */
static bool pe_flat(const gs *G, const wp_group *wg, const wtp_key *k)
{
	const wp_problem *p = G->p;
	return !k && !G->pe_noflat && wg->nclasses == 1 &&
	       !(G->cpc && G->cpc[wg->classes[0]]) &&
	       !G->dra && p->snap->npdbs == 0 && p->nmcls == 0 &&
	       G->pe_rest <= 0 && G->ix && !G->ix->any_over;
}

/* The candidate victims of group wg in domain d of k (k NULL: the
 * cluster), into G->pe_v cheapest first: units of lower priority, not
 * yet evicted, with a pod on a node of d that some class of the group
 * may use.  Their count, or -1 when there are none or when the group
 * could not reach `need` even with all of them gone, -2 on NOMEM. */
static int pe_victims(gs *G, const wp_group *wg, const wtp_key *k, int d,
		      int need)
{
	const wp_problem *p = G->p;
	int *v = G->pe_v, nv = 0;
	/* candidate victims: lower priority, not yet evicted, on a node of
	 * d that some class of the group may use */
	int n0 = 0, n1 = k ? k->dom_nnodes[d] : G->nn;
	/* Upper bound on the pods placeable with every candidate evicted:
	 * per class, the sum over its nodes of its fit in that capacity
	 * (the classes share nodes, so this only over-counts).  Below
	 * `need`, the test with all victims gone would fail: skip it. */
	int64_t *acc = G->pe_acc, *cap = G->pe_cap;
	bool moves = p->unit_mc != NULL; /* else no unit has moved */
	for (int ci = 0; ci < wg->nclasses; ci++)
		acc[ci] = 0;
	for (int j = n0; j < n1; j++) {
		int n = k ? k->dom_nodes[d][j] : j;
		bool ok = false;
		for (int ci = 0; ci < wg->nclasses && !ok; ci++)
			ok = wgr_elig_bit(&G->ci[wg->classes[ci]], n);
		if (!ok)
			continue;
		/* a node already over-committed is left alone (the ILP too),
		 * and one with nothing of lower priority has no victims */
		ok = G->pe_nmin[n] < wg->priority;
		const int64_t *capn = ok ? cap : G->fr + (size_t)n * G->nres;
		if (ok)
			memcpy(cap, G->fr + (size_t)n * G->nres,
			       (size_t)G->nres * sizeof *cap);
		for (int e = G->pe_start[n]; ok && e < G->pe_start[n + 1];
		     e++) {
			int u = G->pe_list[e];
			if (G->pe_pkey[e] >= wg->priority || G->sol->evict[u] ||
			    (moves && wgr_unit_moved(G, u)))
				continue;
			const int64_t *rq = G->pe_preq + (size_t)e * G->nres;
			for (int r = 0; r < G->nres; r++)
				cap[r] += rq[r];
		}
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			const cinfo *inf = &G->ci[c];
			if (!wgr_elig_bit(inf, n))
				continue;
			acc[ci] += wgr_cap_fit(G, c, capn);
		}
		if (!ok)
			continue;
		for (int e = G->pe_start[n]; e < G->pe_start[n + 1]; e++) {
			int u = G->pe_list[e];
			if (G->pe_pkey[e] >= wg->priority || G->pe_mark[u] ||
			    G->sol->evict[u] || (moves && wgr_unit_moved(G, u)))
				continue;
			G->pe_mark[u] = 1;
			v[nv++] = u;
		}
	}
	for (int i = 0; i < nv; i++)
		G->pe_mark[v[i]] = 0;
	if (nv == 0)
		return -1;
	if (wgr_acc_bound(p, wg, acc) < need)
		return -1;
	/* a unit breaks a budget when its pods alone exceed what is left */
	for (int i = 0; i < nv; i++) {
		const wp_unit *un = &p->units[v[i]];
		G->pe_pdbv[v[i]] = 0;
		for (int j = 0; j < un->npdb; j++)
			if (un->pdbn[j] > G->pdb_left[un->pdb[j]])
				G->pe_pdbv[v[i]] = 1;
	}
	if (pe_sort(G, v, nv))
		return -2;
	return nv;
}

/* The shortest prefix of v[0..nv) whose eviction lets the group fit in
 * d, found victim by victim where a count decides each probe exactly,
 * else by bisection; with it evicted, the group is placed (logged).
 * *mout: the prefix.  Pods placed; -1 (nothing evicted) when the group
 * does not fit even with all of them gone, -2 on NOMEM.  A one-class
 * group's probes count slots first (peslots): the same answers, so the
 * same prefix and placement, with fewer placements. */
static int pe_shortest(gs *G, const wp_group *wg, const int *corder,
		       const wtp_key *k, int d, int need, int limit, int nv,
		       int *mout)
{
	int *v = G->pe_v;
	int cur = 0;
	peslots slots, *ps = ps_init(G, &slots, wg, k, d, limit) ? &slots
								  : NULL;
	bool exact = ps && ps->exact;
	int lo = 1, hi = nv, t;
	if (exact && (!G->dra || G->dev_local)) {
		/* the count only grows with the prefix, and each probe
		 * costs one eviction: the first prefix that fits, victim by
		 * victim, is the bisection's answer for a third of the
		 * evictions and restores (a count stays exact here: every
		 * device keeps to its node, so ps->ok holds) */
		for (t = -1, hi = 1; hi <= nv; hi++) {
			t = pe_test(G, wg, corder, k, d, need, limit, v, &cur,
				    hi, ps);
			if (t != -1)
				break;
		}
		lo = hi = hi > nv ? nv : hi;
	} else if (exact) {
		/* the count only grows with the prefix: gallop up from the
		 * cheapest victim, so the work follows the answer, not nv */
		for (hi = 1; hi < nv; lo = hi + 1, hi *= 2)
			if (pe_test(G, wg, corder, k, d, need, limit, v, &cur,
				    hi, ps) >= 0)
				break;
		if (hi >= nv)
			hi = nv;
		t = hi < nv ? 0 : pe_test(G, wg, corder, k, d, need, limit,
					  v, &cur, nv, ps);
	} else {
		t = pe_test(G, wg, corder, k, d, need, limit, v, &cur, nv, ps);
	}
	if (t < 0) {
		pe_prefix(G, v, &cur, 0);
		return t;
	}
	/* a fitting probe's placement stays while it may be the last (an
	 * exact count places nothing: live stays -1) */
	int live = exact ? -1 : t;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (live >= 0)
			wgr_rollback(G);
		t = pe_test(G, wg, corder, k, d, need, limit, v, &cur, mid, ps);
		live = exact ? -1 : t;
		if (t == -2) {
			pe_prefix(G, v, &cur, 0);
			return -2;
		}
		if (t >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	int m = hi, placed = live;
	if (live < 0) {
		pe_prefix(G, v, &cur, m);
		placed = wgr_place_upto(G, wg, corder, k, d, need, limit);
	}
	if (placed == -2) {
		pe_prefix(G, v, &cur, 0);
		return -2;
	}
	if (placed < 0) { /* not monotone after all: take them all */
		pe_prefix(G, v, &cur, nv);
		m = nv;
		placed = wgr_place_upto(G, wg, corder, k, d, need, limit);
		if (placed < 0) {
			pe_prefix(G, v, &cur, 0);
			return placed == -2 ? -2 : -1;
		}
	}
	*mout = m;
	return placed;
}

/* Reprieve, highest priority first, the victims v[0..m) whose return
 * still fits beside the placement (G->pe_rep[i]); *cost: what stays
 * evicted, budget violations first.  With commit the budgets are
 * charged. */
static bool pe_over_cap(const gs *G, int pods)
{
	return G->p->max_evictions > 0 &&
	       G->pe_evicted + pods > G->p->max_evictions;
}

static void pe_reprieve(gs *G, int m, bool commit, pecost *cost)
{
	const wp_problem *p = G->p;
	int *v = G->pe_v;
	/* reprieve, highest priority first; budget-breaking victims in a
	 * first pass, as upstream does */
	cost->w = 0;
	cost->pods = 0;
	cost->viol = 0;
	for (int pass = 1; pass >= 0; pass--)
		for (int i = m - 1; i >= 0; i--) {
			if (G->pe_pdbv[v[i]] != pass)
				continue;
			G->dv_clash = false;
			pe_apply(G, v[i], -1);
			G->pe_rep[i] = pe_fits(G, v[i]);
			if (!G->pe_rep[i]) {
				pe_apply(G, v[i], 1);
				cost->w += (double)p->units[v[i]].npods *
					   p->units[v[i]].weight;
				cost->pods += p->units[v[i]].npods;
			}
		}
	/* over --max-evictions: the caller undoes it all, budgets too */
	if (pe_over_cap(G, cost->pods))
		commit = false;
	/* budgets broken by what stays evicted */
	for (int i = 0; i < m; i++) {
		const wp_unit *un = &p->units[v[i]];
		for (int j = 0; !G->pe_rep[i] && j < un->npdb; j++)
			G->pdb_use[un->pdb[j]] += un->pdbn[j];
	}
	for (int i = 0; i < m; i++) {
		const wp_unit *un = &p->units[v[i]];
		for (int j = 0; !G->pe_rep[i] && j < un->npdb; j++) {
			int b = un->pdb[j];
			if (G->pdb_use[b] > G->pdb_left[b] && G->pdb_use[b] > 0)
				cost->viol += G->pdb_use[b] -
					      (G->pdb_left[b] > 0
						   ? G->pdb_left[b] : 0);
			if (commit)
				G->pdb_left[b] -= G->pdb_use[b];
			G->pdb_use[b] = 0; /* count each budget once */
		}
	}
}

/* The victim search in one domain (doc/preemption.md, "Greedy victim
 * search", steps 1-5).  With commit, the placement and the evictions
 * stay; otherwise everything is undone.  Returns pods placed, -1 when
 * the group cannot fit here, -2 on NOMEM; *cost gets the cost. */
static int pe_domain(gs *G, int g, const int *corder, const wtp_key *k,
		     int d, int need, int limit, bool commit, pecost *cost)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	int *v = G->pe_v;
	if (pe_over_cap(G, 1))
		return -1; /* --max-evictions used up */
	bool flat = pe_flat(G, wg, k);
	if (flat && G->ix_check && !G->pe_inchk) {
		/* the checked pass: the scan of the nodes must agree */
		pecost c1, c2;
		G->pe_inchk = true;
		G->pe_noflat = true;
		int r1 = pe_domain(G, g, corder, k, d, need, limit, false, &c1);
		G->pe_noflat = false;
		int r2 = pe_domain(G, g, corder, k, d, need, limit, false, &c2);
		G->pe_inchk = false;
		if (r1 == -2 || r2 == -2)
			return -2;
		G->ix_checks++;
		G->ix_bad += r1 != r2 || (r1 >= 0 && (c1.viol != c2.viol ||
				c1.w != c2.w || c1.pods != c2.pods));
		G->pe_flats++;
	}
	int nv = flat ? pe_victims_flat(G, wg) : pe_victims(G, wg, k, d, need);
	if (nv < 0)
		return nv == -2 ? -2 : -1;
	int m;
	int placed = pe_shortest(G, wg, corder, k, d, need, limit, nv, &m);
	if (placed < 0)
		return placed;
	pe_reprieve(G, m, commit, cost);
	/* more evictions than --max-evictions leaves: not here */
	bool over = pe_over_cap(G, cost->pods);
	if (over)
		placed = -1;
	if (commit && !over) {
		G->pe_evicted += cost->pods;
		G->nlog = 0;
		for (int i = 0; i < m; i++) {
			if (G->pe_rep[i])
				continue;
			wgr_pe_evict(G, v[i], g);
		}
		return placed;
	}
	wgr_rollback(G);
	for (int i = m - 1; i >= 0; i--)
		if (!G->pe_rep[i])
			pe_apply(G, v[i], -1);
	return placed;
}

typedef struct pdfit {
	int32_t *dom;      /* per domain (one for no key)               */
	int32_t *node;     /* per node                                  */
	uint32_t *ver;     /* per node: nver at node[]                  */
	const unsigned char *bits; /* eligibility it was built for       */
	uint32_t commit;   /* dra_commit + 1 when refreshed             */
} pdfit;

/* The device-only fit per domain of key k (NULL: no key) for the pods
 * of class c, or NULL (no cache: no skipping). */
static const int32_t *pd_domains(gs *G, int c, const wtp_key *k)
{
	const wdr_podc *pc = G->cpc ? G->cpc[c] : NULL;
	if (!pc || pc->sig >= G->dr_nsig)
		return NULL;
	int ki = k ? (int)(k - G->p->topo->keys) + 1 : 0;
	if (!G->pd && !(G->pd = wa_calloc(G->tmp, (size_t)G->dr_nsig *
					  G->dr_nk + 1, sizeof *G->pd)))
		return NULL;
	pdfit *f = &G->pd[(size_t)pc->sig * G->dr_nk + ki];
	const cinfo *ci = &G->ci[c];
	int nd = k ? k->ndom : 1;
	if (f->commit == G->dra_commit + 1 && f->bits == ci->bits)
		return f->dom;
	bool fresh = f->bits != ci->bits || !f->dom;
	if (!f->dom) {
		f->dom = wa_calloc(G->tmp, (size_t)nd + 1, sizeof(int32_t));
		f->node = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int32_t));
		f->ver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(uint32_t));
		if (!f->dom || !f->node || !f->ver) {
			f->dom = NULL;
			return NULL;
		}
	}
	if (fresh)
		memset(f->dom, 0, (size_t)nd * sizeof(int32_t));
	for (int n = 0; n < G->nn; n++) {
		if (!wgr_elig_bit(ci, n))
			continue;
		if (!fresh && f->ver[n] == G->nver[n])
			continue;
		int32_t nf = (int32_t)wdr_fit(G->dra, pc, n, 4096);
		int d = k ? k->node_dom[n] : 0;
		if (d >= 0)
			f->dom[d] += nf - (fresh ? 0 : f->node[n]);
		f->node[n] = nf;
		f->ver[n] = G->nver[n];
	}
	f->bits = ci->bits;
	f->commit = G->dra_commit + 1;
	return f->dom;
}

/* The most pod slots of class c one evicted pod can add in a domain,
 * or 0 (no bound from slots).  A node's slots are min over the class's
 * resources of max(0, floor(free / request)); a pod freeing e adds at
 * most ceil(e / request) to each, so at most the largest of these, and
 * no running pod requests more than G->pe_maxreq.  Only for a class
 * without claims (a freed device could add more) and with no moves. */
static int64_t slot_gain(const gs *G, int c)
{
	if ((G->cpc && G->cpc[c]) || G->p->nmcls > 0)
		return 0;
	const cinfo *ci = &G->ci[c];
	const int64_t *req = G->p->classes[c].req;
	int64_t g = 0;
	for (int j = 0; j < ci->nr; j++) {
		int r = ci->rl[j];
		int64_t q = (G->pe_maxreq[r] + req[r] - 1) / req[r];
		if (q > g)
			g = q;
	}
	return g;
}

/* Try to admit group g by preemption.  cd: the roll-up of its candidate
 * domains (domain.c), which bounds the cost further; NULL where there is
 * none (no key: the placement is the test; a basic group's rest).
 * Pods placed, -1: no way, -2: NOMEM. */
int wgr_preempt_group(gs *G, int g, const int *corder, const wtp_key *k,
		      int need, const dcand *cd)
{
	const wp_group *wg = &G->p->groups[g];
	if (wgr_pe_setup(G))
		return -2;
	/* candidate domains: as wgr_candidates(), or the one a basic group's
	 * placed pods hold (preempt_rest) */
	int ncd = !k ? 1 : wg->fixed_dom >= 0 || G->pe_only_dom >= 0 ? 1
								  : k->ndom;
	/* a gang evicts for its minimum only; other groups for all pods */
	int limit = wg->gang ? need : G->pe_rest > 0 ? G->pe_rest : wg->size;
	int best = -1;
	pecost bc = {0, 0, 0};
	int ki = k ? (int)(k - G->p->topo->keys) : -1;
	wgr_ix_sync(G);
	/* DRA: when no running pod holds an allocated claim, evictions
	 * free cpu and memory but no device, so the device-only fit of a
	 * domain bounds what they can give (every class of the group with
	 * the same claim list) */
	const int32_t *dfit = NULL;
	const ws_dra *dd = G->p->snap->dra;
	bool one_sig = G->dra && dd && !dd->held_beg[G->p->snap->npods] &&
		       wg->nclasses > 0 && G->cpc[wg->classes[0]];
	for (int i = 1; one_sig && i < wg->nclasses; i++)
		one_sig = G->cpc[wg->classes[i]] &&
			  G->cpc[wg->classes[i]]->sig ==
			      G->cpc[wg->classes[0]]->sig &&
			  G->ci[wg->classes[i]].bits ==
			      G->ci[wg->classes[0]].bits;
	if (one_sig)
		dfit = pd_domains(G, wg->classes[0], k);
	/* Score the domains by the domain index (index.c): a domain with
	 * nothing of lower priority, or too little room even with all of
	 * it gone, is what pe_victims would reject, without visiting its
	 * nodes; the others get a lower bound on their cost.  Many
	 * domains: on OpenMP threads, each domain writing its own slot, so
	 * the thread count does not matter. */
	pebound *lb = G->pe_lb;
	bool par = ncd >= G->par_doms && G->threads > 1;
	/* A one-class group whose roll-up says how many of its pods fit
	 * with nothing evicted (bound: min(slots, count)) needs the
	 * missing ones from evictions, each evicted pod adding at most
	 * `gain` slots and costing at least 1 (wp_unit's weight): a bound
	 * the index's, from room summed over the domain, cannot see when
	 * that room is in pieces. */
	int64_t gain = cd && wg->nclasses == 1 && G->pe_only_dom < 0 &&
			       G->pe_rest <= 0
			   ? slot_gain(G, wg->classes[0]) : 0;
	/* every domain of the key: those that pass the index's first two
	 * tests from its tree (dtree.c), in order, where it has one */
	int nsc = ncd > 1 ? wgr_dt_doms(G, wg, ki, wg->priority, need,
					G->pe_dom)
			  : -1;
	const int *dom = nsc >= 0 ? G->pe_dom : NULL;
	if (dom)
		par = false;
	else
		nsc = ncd;
#pragma omp parallel for schedule(static) num_threads(G->threads) if (par)
	for (int j = 0; j < nsc; j++) {
		int i = dom ? dom[j] : j;
		int d = !k ? 0 : wg->fixed_dom >= 0 ? wg->fixed_dom
				 : G->pe_only_dom >= 0 ? G->pe_only_dom : i;
		lb[j] = (pebound){i, 0, 0, false, 0};
		if ((!dom && (wgr_ix_dmin(G, ki, d) >= wg->priority ||
			      wgr_ix_bound(G, wg, ki, d, wg->priority) <
				  need)) ||
		    (dfit && dfit[d] < need) ||
		    !wgr_ix_cost_lb(G, wg, ki, d, wg->priority, need,
				    &lb[j].w, &lb[j].pods))
			continue;
		lb[j].live = true;
		int64_t miss = gain > 0 ? need - cd[i].bound : 0;
		if (miss > 0) {
			lb[j].spods = (long)((miss + gain - 1) / gain);
			if (lb[j].spods > lb[j].pods)
				lb[j].pods = lb[j].spods;
			if ((double)lb[j].spods > lb[j].w)
				lb[j].w = (double)lb[j].spods;
		}
	}
	int nl = 0;
	for (int j = 0; j < nsc; j++)
		if (lb[j].live)
			lb[nl++] = lb[j];
	/* Cheapest bound first; the answer is the domain of least cost,
	 * the first in domain order among equals, as a search in domain
	 * order finds it: a domain whose bound exceeds the best cost, or
	 * equals it behind the best domain, cannot win. */
	qsort(lb, (size_t)nl, sizeof *lb, cmp_pebound);
	/* identical questions on unchanged domains: the memo (pcache.c) */
	wgr_pcq q;
	bool memo = wgr_pc_question(G, wg, k, need, limit, &q);
	for (int j = 0; j < nl; j++) {
		int i = lb[j].i;
		if (best >= 0 && bc.viol == 0 &&
		    (lb[j].w > bc.w ||
		     (lb[j].w == bc.w && (lb[j].pods > bc.pods ||
					  (lb[j].pods == bc.pods && i > best)))))
			continue;
		pecost c;
		int d = !k ? -1 : wg->fixed_dom >= 0 ? wg->fixed_dom
				  : G->pe_only_dom >= 0 ? G->pe_only_dom : i;
		int r;
		uint64_t fp = memo ? wgr_pc_print(G, k, d) : 0;
		if (!memo || !wgr_pc_get(G, ki, d, &q, fp, &r, &c)) {
			r = pe_domain(G, g, corder, k, d, need, limit, false,
				      &c);
			if (r == -2)
				return -2;
			if (memo)
				wgr_pc_put(G, ki, d, &q, fp, r, &c);
		} else if (G->pc_hits++, G->ix_check) {
			/* the checked pass searches anyway and compares */
			pecost c2;
			int r2 = pe_domain(G, g, corder, k, d, need, limit,
					   false, &c2);
			if (r2 == -2)
				return -2;
			G->ix_checks++;
			G->ix_bad += r2 != r || (r >= 0 && (c2.viol != c.viol ||
					   c2.w != c.w || c2.pods != c.pods));
		}
		if (r < 0)
			continue;
		if (G->ix_check && lb[j].spods > 0) {
			/* the checked pass: the slots' bound holds */
			G->ix_checks++;
			G->ix_bad += c.pods < lb[j].spods ||
				     c.w < (double)lb[j].spods;
		}
		int cmp = c.viol != bc.viol ? (c.viol < bc.viol ? -1 : 1)
			: c.w != bc.w ? (c.w < bc.w ? -1 : 1)
			: c.pods != bc.pods ? (c.pods < bc.pods ? -1 : 1) : 0;
		if (best < 0 || cmp < 0 || (cmp == 0 && i < best)) {
			best = i;
			bc = c;
		}
	}
	if (best < 0)
		return -1;
	pecost c;
	int d = !k ? -1 : wg->fixed_dom >= 0 ? wg->fixed_dom
			  : G->pe_only_dom >= 0 ? G->pe_only_dom : best;
	return pe_domain(G, g, corder, k, d, need, limit, true, &c);
}

/* A basic group (or lone pods) placed `placed` of its pods: each of the
 * others may evict too (per pod: the fewest victims that place one more,
 * repeated), in the domain its placed pods hold.  Pods placed, -2 NOMEM. */
int wgr_preempt_rest(gs *G, int g, const int *corder, const wtp_key *k,
		     int placed)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	int more = 0;
	G->pe_only_dom = -1;
	if (k) {
		for (int ci = 0; ci < wg->nclasses && G->pe_only_dom < 0; ci++) {
			const wp_class *cl = &p->classes[wg->classes[ci]];
			WP_X_EACH(G->sol, cl, sl)
				if (wp_x(G->sol, sl) > 0) {
					G->pe_only_dom =
					    k->node_dom[cl->elig[sl - cl->off]];
					break;
				}
		}
	}
	while (placed + more < wg->size) {
		G->pe_rest = wg->size - placed - more;
		int r = wgr_preempt_group(G, g, corder, k, 1, NULL);
		if (r == -2) {
			more = -2;
			break;
		}
		if (r <= 0)
			break;
		more += r;
	}
	G->pe_rest = 0;
	G->pe_only_dom = -1;
	return more;
}

/* A group that may not preempt may not use freed room either: on nodes
 * with evictions its capacity is at most the free capacity before any
 * eviction minus what such groups already took there.  never_cap applies
 * that before the group is placed, never_restore undoes it after (keeping
 * what the group placed). */
static int never_cap(gs *G)
{
	int nres = G->nres;
	if (!G->ndirty)
		return 0;
	if (!G->nv_save) {
		G->nv_save = wa_calloc(G->tmp, (size_t)G->nn * nres + 1,
				       sizeof *G->nv_save);
		G->nv_capd = wa_calloc(G->tmp, (size_t)G->nn * nres + 1,
				       sizeof *G->nv_capd);
		G->nv_used = wa_calloc(G->tmp, (size_t)G->nn * nres + 1,
				       sizeof *G->nv_used);
		if (!G->nv_save || !G->nv_capd || !G->nv_used)
			return -1;
	}
	/* what groups that may not preempt hold on the dirty nodes */
	for (int i = 0; i < G->ndirty; i++)
		memset(G->nv_used + (size_t)G->dlist[i] * nres, 0,
		       sizeof *G->nv_used * nres);
	const wp_problem *p = G->p;
	for (int i = 0; G->pl && i < G->ndirty; i++) {
		/* band 0 of the load: groups that may not preempt (only
		 * admitted ones hold pods between groups) */
		size_t n = (size_t)G->dlist[i];
		memcpy(G->nv_used + n * nres, G->pl + n * G->npl * nres,
		       sizeof *G->nv_used * nres);
	}
	for (int c = 0; !G->pl && c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		if (!G->sol->admit[cl->group] || wpe_may_preempt(p, cl->group))
			continue;
		WP_X_EACH(G->sol, cl, sl) {
			int x = wp_x(G->sol, sl), n = cl->elig[sl - cl->off];
			if (x <= 0 || !G->dirty[n])
				continue;
			for (int r = 0; r < nres; r++)
				G->nv_used[(size_t)n * nres + r] +=
				    (int64_t)x * cl->req[r];
		}
	}
	for (int i = 0; i < G->ndirty; i++) {
		int n = G->dlist[i];
		size_t o = (size_t)n * nres;
		for (int r = 0; r < nres; r++) {
			int64_t cap = G->p->free[o + r] - G->nv_used[o + r] +
				      (G->mv_adj ? G->mv_adj[o + r] : 0);
			G->nv_save[o + r] = G->fr[o + r];
			if (cap < G->fr[o + r])
				G->fr[o + r] = cap;
			G->nv_capd[o + r] = G->fr[o + r];
		}
		wgr_touch(G, n);
	}
	G->nv_pending = true;
	return 0;
}

static void never_restore(gs *G)
{
	int nres = G->nres;
	if (!G->nv_pending)
		return;
	G->nv_pending = false;
	for (int i = 0; i < G->ndirty; i++) {
		int n = G->dlist[i];
		size_t o = (size_t)n * nres;
		for (int r = 0; r < nres; r++) {
			int64_t used = G->nv_capd[o + r] - G->fr[o + r];
			G->fr[o + r] = G->nv_save[o + r] - used;
		}
		wgr_touch(G, n);
	}
}

/* Entering priority level q: on nodes with evictions, the capacity the
 * level may use is the least slack of the rows at q and at every higher
 * level placed there (doc/formulation.md §4b). */
static int level_enter(gs *G, int32_t q)
{
	const wp_problem *p = G->p;
	int nres = G->nres;
	G->level = q;
	G->have_level = true;
	dv_level(G, q);
	if (G->ndirty == 0)
		return 0;
	int *slot = calloc((size_t)G->nn + 1, sizeof *slot);
	int32_t *lv = calloc((size_t)p->ngroups + 2, sizeof *lv);
	if (!slot || !lv) {
		free(slot);
		free(lv);
		return -1;
	}
	for (int i = 0; i < G->ndirty; i++)
		slot[G->dlist[i]] = i + 1;
	/* q and the distinct levels above it placed so far */
	int nl = 0;
	lv[nl++] = q;
	for (int g = 0; g < p->ngroups; g++) {
		int32_t pr = p->groups[g].priority;
		if (!G->sol->admit[g] || pr <= q)
			continue;
		int j = 0;
		while (j < nl && lv[j] != pr)
			j++;
		if (j == nl)
			lv[nl++] = pr;
	}
	/* slack[node, level, r] = free + evicted below the level - placed
	 * at or below it */
	int64_t *sl = calloc((size_t)G->ndirty * nl * nres + 1, sizeof *sl);
	if (!sl) {
		free(slot);
		free(lv);
		return -1;
	}
#define SL(i, l, r) sl[((size_t)(i) * nl + (l)) * nres + (r)]
	for (int i = 0; i < G->ndirty; i++)
		for (int l = 0; l < nl; l++)
			for (int r = 0; r < nres; r++)
				SL(i, l, r) = p->free[(size_t)G->dlist[i] *
						      nres + r] +
					      (G->mv_adj
					       ? G->mv_adj[(size_t)G->dlist[i] *
							   nres + r]
					       : 0);
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (!G->sol->evict[u])
			continue;
		for (int j = 0; j < un->npods; j++) {
			const ws_pod *pod = &G->s->pods[un->pods[j]];
			int i = slot[pod->node] - 1;
			for (int l = 0; i >= 0 && l < nl; l++)
				if (un->priority < lv[l])
					for (int r = 0; r < nres; r++)
						SL(i, l, r) += pod->req[r];
		}
	}
	for (int i = 0; G->pl && i < G->ndirty; i++) {
		/* the load by band (fit.c, wgr_setup_load): band 0 counts
		 * at every level */
		const int64_t *ld = G->pl + (size_t)G->dlist[i] * G->npl * nres;
		for (int b = 0; b < G->npl; b++, ld += nres)
			for (int l = 0; l < nl; l++)
				if (b == 0 || G->pl_prio[b] <= lv[l])
					for (int r = 0; r < nres; r++)
						SL(i, l, r) -= ld[r];
	}
	for (int c = 0; !G->pl && c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		int32_t pr = p->groups[cl->group].priority;
		/* pods of groups that may not preempt never use freed room:
		 * they count at every level (as in the ILP) */
		if (!wpe_may_preempt(p, cl->group))
			pr = INT32_MIN;
		WP_X_EACH(G->sol, cl, xs) {
			int x = wp_x(G->sol, xs);
			int i = slot[cl->elig[xs - cl->off]] - 1;
			if (x <= 0 || i < 0)
				continue;
			for (int l = 0; l < nl; l++)
				if (pr <= lv[l])
					for (int r = 0; r < nres; r++)
						SL(i, l, r) -=
						    (int64_t)x * cl->req[r];
		}
	}
	for (int i = 0; i < G->ndirty; i++) {
		int n = G->dlist[i];
		int64_t *f = G->fr + (size_t)n * nres;
		for (int r = 0; r < nres; r++) {
			int64_t m = INT64_MAX;
			for (int l = 0; l < nl; l++)
				if (SL(i, l, r) < m)
					m = SL(i, l, r);
			f[r] = m;
		}
		wgr_touch(G, n);
	}
#undef SL
	free(sl);
	free(slot);
	free(lv);
	return 0;
}

/* Before a group is placed: the capacity at its priority level
 * (level_enter when the level changes), capped by never_cap for a group
 * that may not preempt (undone before the next group).  -1 on NOMEM. */
int wgr_level_capacity(gs *G, int g)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	if (wgr_led_level(G, g))
		return -1;
	never_restore(G);
	if ((!G->have_level || wg->priority != G->level) &&
	    level_enter(G, wg->priority))
		return -1;
	if (!wpe_may_preempt(p, g) && never_cap(G))
		return -1;
	return 0;
}
