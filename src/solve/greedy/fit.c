/*
 * fit.c -- node and device fit: what each class requests and may use,
 * best-fit placement onto nodes, and the placement log that undoes a
 * failed try.
 *
 * Pods go best-fit onto nodes: the node that fits the fewest more pods
 * of the class, then the least free capacity (normalised over its
 * resources), then the lowest index.  With device claims the fit per
 * node is exact (doc/dra.md): claims are allocated pod after pod, and a
 * failed try gives its devices back with the rest of the log.
 */
#include "solve/greedy/greedy_int.h"
#include "reduce/units.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- class data */

/* Per class (G->ci): the resources it requests, scarcest first, and its
 * normalised size (the class order, order.c); its profile (the first
 * class with the same eligible nodes, requests and claim list, which
 * shares its fit cache); its eligibility bitmap, shared by classes with
 * the same eligible nodes.  -1 on NOMEM. */
int wgr_setup_classes(gs *G)
{
	const wp_problem *p = G->p;
	int nres = G->nres, nn = G->nn;
	size_t nb = ((size_t)nn + 7) / 8 + 1;
	/* largest allocatable per resource, to normalise requests */
	int64_t *amax = wa_calloc(G->tmp, (size_t)nres + 1, sizeof *amax);
	G->ci = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof *G->ci);
	size_t cap = 16;
	while (cap < 2 * (size_t)p->nclasses + 16)
		cap *= 2;
	int *tab = wa_calloc(G->tmp, cap, sizeof *tab);
	int *btab = wa_calloc(G->tmp, cap, sizeof *btab);
	if (!amax || !G->ci || !tab || !btab)
		return -1;
	for (int n = 0; n < nn; n++)
		for (int r = 0; r < nres; r++)
			if (G->s->nodes[n].alloc[r] > amax[r])
				amax[r] = G->s->nodes[n].alloc[r];
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		cinfo *ci = &G->ci[c];
		ci->rl = wa_calloc(G->tmp, (size_t)nres + 1, sizeof(int));
		double *sc = wa_calloc(G->tmp, (size_t)nres + 1, sizeof(double));
		if (!ci->rl || !sc)
			return -1;
		for (int r = 0; r < nres; r++) {
			if (cl->req[r] <= 0)
				continue;
			double s = amax[r] > 0 ? (double)cl->req[r] / amax[r]
					       : 1e9;
			int i = ci->nr++;
			while (i > 0 && sc[i - 1] < s) {
				ci->rl[i] = ci->rl[i - 1];
				sc[i] = sc[i - 1];
				i--;
			}
			ci->rl[i] = r;
			sc[i] = s;
			ci->weight += s;
		}
		/* profile: same eligible array and same requests */
		uint64_t h = wgr_mix((uint64_t)(uintptr_t)cl->elig, 0);
		for (int r = 0; r < nres; r++)
			h = wgr_mix(h, (uint64_t)cl->req[r]);
		size_t j = h & (cap - 1);
		ci->prof = -1;
		while (tab[j]) {
			int o = tab[j] - 1;
			const wp_class *oc = &p->classes[o];
			if (oc->elig == cl->elig &&
			    !memcmp(oc->req, cl->req, (size_t)nres * sizeof *cl->req) &&
			    (!G->cpc || (G->cpc[o] ? G->cpc[o]->sig : 0) ==
					(G->cpc[c] ? G->cpc[c]->sig : 0))) {
				ci->prof = o;
				break;
			}
			j = (j + 1) & (cap - 1);
		}
		if (ci->prof < 0) {
			tab[j] = c + 1;
			ci->prof = c;
		}
		/* bitmap, shared by classes with the same eligible array */
		h = wgr_mix((uint64_t)(uintptr_t)cl->elig, 1) & (cap - 1);
		j = (size_t)h;
		while (btab[j] && p->classes[btab[j] - 1].elig != cl->elig)
			j = (j + 1) & (cap - 1);
		if (btab[j]) {
			ci->bits = G->ci[btab[j] - 1].bits;
			continue;
		}
		btab[j] = c + 1;
		ci->bits = wa_calloc(G->tmp, nb, 1);
		if (!ci->bits)
			return -1;
		for (int k = 0; k < cl->nelig; k++)
			ci->bits[cl->elig[k] >> 3] |=
			    (unsigned char)(1u << (cl->elig[k] & 7));
	}
	return 0;
}

/* The load per node and pending band (gs.pl), so that the capacity of
 * a priority level (preempt.c, level_enter, never_cap) reads the dirty
 * nodes instead of every class's slots.  -1 on NOMEM. */
int wgr_setup_load(gs *G)
{
	const wp_problem *p = G->p;
	G->pl_band = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof(int));
	G->pl_prio = wa_calloc(G->tmp, (size_t)p->ngroups + 2,
			       sizeof(int32_t));
	if (!G->pl_band || !G->pl_prio)
		return -1;
	G->npl = 1;
	G->pl_prio[0] = INT32_MIN;
	/* groups are sorted by priority, descending */
	for (int g = p->ngroups - 1; g >= 0; g--) {
		const wp_group *wg = &p->groups[g];
		if (wg->nclasses == 0)
			continue;
		int b = 0;
		if (wpe_may_preempt(p, g)) {
			if (G->npl == 1 ||
			    G->pl_prio[G->npl - 1] != wg->priority)
				G->pl_prio[G->npl++] = wg->priority;
			b = G->npl - 1;
		}
		for (int i = 0; i < wg->nclasses; i++)
			G->pl_band[wg->classes[i]] = b;
	}
	size_t n = (size_t)G->nn * G->npl * G->nres;
	if (n * sizeof(int64_t) > WGR_LOAD_MAX)
		return 0;
	G->pl = wa_calloc(G->tmp, n + 1, sizeof(int64_t));
	return G->pl ? 0 : -1;
}

/* cnt pods of class c put on (taken off) node n: the load follows. */
static void load_add(gs *G, int c, int n, int cnt)
{
	if (!G->pl)
		return;
	const int64_t *req = G->p->classes[c].req;
	int64_t *l = G->pl + ((size_t)n * G->npl + G->pl_band[c]) * G->nres;
	for (int r = 0; r < G->nres; r++)
		l[r] += (int64_t)cnt * req[r];
}

/* Pods of group wg that could be placed when class ci fits acc[ci] of
 * its pods (capped at the class's count): a bound for a search. */
int64_t wgr_acc_bound(const wp_problem *p, const wp_group *wg,
		      const int64_t *acc)
{
	int64_t ub = 0;
	for (int ci = 0; ci < wg->nclasses; ci++) {
		int64_t cnt = p->classes[wg->classes[ci]].count;
		ub += acc[ci] < cnt ? acc[ci] : cnt;
	}
	return ub;
}

/* --------------------------------------------------------- placement */

/* Restore the best-fit min-heap h[0..n) below i. */
void wgr_nc_sift(ncand *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && wgr_nc_less(&h[l], &h[m]))
			m = l;
		if (r < n && wgr_nc_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		ncand t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Free capacity of node n, normalised over the resources it has (cached
 * until the node changes). */
double wgr_node_frac(gs *G, int n)
{
	if (G->fver[n] == G->nver[n])
		return G->frac[n];
	const int64_t *al = G->s->nodes[n].alloc;
	const int64_t *f = G->fr + (size_t)n * G->nres;
	double s = 0;
	for (int r = 0; r < G->nres; r++)
		if (al[r] > 0)
			s += (double)f[r] / (double)al[r];
	G->frac[n] = s;
	G->fver[n] = G->nver[n];
	return s;
}

static int elig_pos(const wp_class *c, int n)
{
	int lo = 0, hi = c->nelig - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (c->elig[mid] == n)
			return mid;
		if (c->elig[mid] < n)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Node n changed: its domains' cached roll-ups are stale, and the
 * domain index (index.c) takes the change of its room. */
void wgr_touch(gs *G, int n)
{
	const wtp_topo *t = G->p->topo;
	for (int k = 0; t && k < t->nkeys; k++) {
		int d = t->keys[k].node_dom[n];
		if (d >= 0)
			G->dver[k][d]++;
	}
	G->gver++;
	G->nver[n]++;
	if (G->room)
		wgr_room_touch(G, n);
	if (G->ix)
		wgr_ix_touch(G, n);
	if (G->neg)
		wgr_pc_neg(G, n);
}

/* Place cnt pods of class c on node n (fewer when its devices are
 * short).  Returns the number placed, or -1 on NOMEM. */
static int place_node(gs *G, int c, int n, int cnt)
{
	const wp_class *cl = &G->p->classes[c];
	int pos = elig_pos(cl, n);
	if (pos < 0)
		return 0; /* cannot happen: candidates are eligible */
	int dmark = G->dra ? G->dra->nallocs : 0;
	if (G->cpc && G->cpc[c]) {
		/* Devices, pod by pod: the fit is an estimate for shared
		 * claims, this is exact. */
		cnt = wdr_place_n(G->dra, cl->pods[0], c, n, cnt);
		if (cnt == 0)
			return 0;
	}
	logent e = {c, pos, cnt, dmark};
	if (WA_PUSH(G->tmp, G->log, G->nlog, G->logcap, e))
		return -1;
	if (wp_x_add(G->sol, cl->off + pos, cnt))
		return -1;
	load_add(G, c, n, cnt);
	int64_t *f = G->fr + (size_t)n * G->nres;
	for (int r = 0; r < G->nres; r++)
		f[r] -= (int64_t)cnt * cl->req[r];
	wgr_touch(G, n);
	return cnt;
}

/* Place up to m pods of class c on the candidates G->nc[0..nc), best-fit
 * first.  Returns the number placed, or -1 on NOMEM. */
int wgr_place_cands(gs *G, int c, int nc, int m)
{
	for (int i = 0; i < nc; i++)
		G->nc[i].frac = wgr_node_frac(G, G->nc[i].n);
	for (int i = nc / 2 - 1; i >= 0; i--)
		wgr_nc_sift(G->nc, nc, i);
	int placed = 0;
	while (placed < m && nc > 0) {
		ncand top = G->nc[0];
		G->nc[0] = G->nc[--nc];
		wgr_nc_sift(G->nc, nc, 0);
		int cnt = top.fit < m - placed ? (int)top.fit : m - placed;
		int got = place_node(G, c, top.n, cnt);
		if (got < 0)
			return -1;
		placed += got;
	}
	return placed;
}

/* The candidates of class c in domain d of k (k NULL: the cluster) into
 * G->nc: from the room tree (room.c) where it serves the domain, else by
 * a scan of every eligible node; the same set either way.  Their count,
 * -1 on NOMEM. */
static int class_cands(gs *G, int c, const wtp_key *k, int d)
{
	int nc = wgr_room_find(G, c, k, d, G->nc);
	if (nc != -1)
		return nc < 0 ? -1 : nc;
	const wp_class *cl = &G->p->classes[c];
	const int *nodes = k ? k->dom_nodes[d] : cl->elig;
	int nn = k ? k->dom_nnodes[d] : cl->nelig;
	nc = 0;
	for (int j = 0; j < nn; j++)
		nc = wgr_cand(G, c, nodes[j], G->nc, nc);
	return nc;
}

/* Place up to m pods of class c in domain d of k (k NULL: anywhere),
 * best-fit.  Returns the number placed, or -1 on NOMEM. */
static int place_class(gs *G, int c, const wtp_key *k, int d, int m)
{
	if (m <= 0)
		return 0;
	int nc = class_cands(G, c, k, d);
	return nc < 0 ? -1 : wgr_place_cands(G, c, nc, m);
}

/* Undo the log's entries from `mark` on: counts and capacity (the
 * callers undo the device allocations). */
static void undo_log(gs *G, int mark)
{
	while (G->nlog > mark) {
		logent e = G->log[--G->nlog];
		const wp_class *cl = &G->p->classes[e.c];
		wp_x_add(G->sol, cl->off + e.k, -e.cnt);
		load_add(G, e.c, cl->elig[e.k], -e.cnt);
		int64_t *f = G->fr + (size_t)cl->elig[e.k] * G->nres;
		for (int r = 0; r < G->nres; r++)
			f[r] += (int64_t)e.cnt * cl->req[r];
		wgr_touch(G, cl->elig[e.k]);
	}
}

/* Undo the current try: everything logged since it began (try_group,
 * place_upto), with its device allocations. */
void wgr_rollback(gs *G)
{
	if (G->dra)
		wdr_undo(G->dra, G->dra_mark);
	undo_log(G, 0);
}

/* Undo the log back to `mark` (an earlier G->nlog), devices included. */
void wgr_rollback_to(gs *G, int mark)
{
	if (G->dra && G->nlog > mark)
		wdr_undo(G->dra, G->log[mark].dmark);
	undo_log(G, mark);
}

/* wgr_place_upto for a group of one class c without claims.  Its pods
 * place on the candidates one node after another, each taking as many as
 * fit, so they place min(their fits summed, m): a try that falls short
 * of `need` is known before anything is placed.  That is most tries of a
 * group without a key once the cluster is full, and each would place
 * and roll back over every node with room. */
static int place_one(gs *G, int c, const wtp_key *k, int d, int need,
		     int limit)
{
	const wp_class *cl = &G->p->classes[c];
	int m = cl->count;
	if (G->pe_rest > 0)
		m -= wp_x_placed(G->sol, cl);
	if (m > limit)
		m = limit;
	if (m <= 0)
		return need > 0 ? -1 : 0;
	/* whether it fits, and the best-fit order, from the room tree's
	 * runs where it serves the domain: no list of the nodes */
	int64_t sum;
	int ns = wgr_room_select(G, c, k, d, m, need, G->nc, &sum);
	if (ns == -2)
		return -2;
	if (ns >= 0) {
		if ((sum < m ? sum : m) < need)
			return -1;
		int placed = 0;
		for (int i = 0; i < ns; i++) {
			int got = place_node(G, c, G->nc[i].n,
					     (int)G->nc[i].fit);
			if (got < 0)
				return -2;
			placed += got;
		}
		if (placed >= need)
			return placed;
		wgr_rollback(G);
		return -1;
	}
	int nc = class_cands(G, c, k, d);
	if (nc < 0)
		return -2;
	sum = 0;
	for (int i = 0; i < nc && sum < m; i++)
		sum += G->nc[i].fit;
	if ((sum < m ? sum : m) < need)
		return -1;
	int placed = wgr_place_cands(G, c, nc, m);
	return placed < 0 ? -2 : placed;
}

/* Place group wg in domain d (k NULL: anywhere): each class up to its
 * count (during per-pod preemption, what the class has left), larger
 * classes first, at most `limit` pods in all, keeping the log (so the
 * caller can roll back).  Pods placed, or -1 (rolled back) when fewer
 * than need fit, -2 on NOMEM.  The victim and move searches call it
 * directly; try_group for a plain placement. */
int wgr_place_upto(gs *G, const wp_group *wg, const int *corder,
		      const wtp_key *k, int d, int need, int limit)
{
	G->nlog = 0;
	if (G->dra)
		G->dra_mark = G->dra->nallocs;
	int placed = 0;
	if (wg->nclasses == 1 && !(G->cpc && G->cpc[corder[0]]))
		return place_one(G, corder[0], k, d, need, limit);
	for (int i = 0; i < wg->nclasses && placed < limit; i++) {
		int c = corder[i], m = G->p->classes[c].count;
		if (G->pe_rest > 0) {
			/* a basic group's rest: what the class has left */
			m -= wp_x_placed(G->sol, &G->p->classes[c]);
		}
		if (m > limit - placed)
			m = limit - placed;
		int got = place_class(G, c, k, d, m);
		if (got < 0)
			return -2;
		placed += got;
	}
	if (placed < need) {
		wgr_rollback(G);
		return -1;
	}
	return placed;
}


/* Place group wg in domain d (k NULL: anywhere): each class up to its
 * count, larger classes first.  Returns pods placed, or -1 when fewer
 * than `need` fit (everything rolled back), -2 on NOMEM. */
int wgr_try_group(gs *G, const wp_group *wg, const int *corder,
		  const wtp_key *k, int d, int need)
{
	int placed = wgr_place_upto(G, wg, corder, k, d, need, INT_MAX);
	if (placed >= 0)
		G->nlog = 0;
	return placed;
}
