/*
 * index.c -- per-domain totals that let the victim search reject a
 * domain without visiting its nodes (doc/preemption.md, "Greedy victim
 * search": the domain index).
 *
 * For every domain of every key, and for the cluster as one domain:
 *   free   the free capacity per resource, each node's clamped at 0;
 *   ev     per priority band (the distinct priorities of the running
 *          units), the requests and the number of the pods the victim
 *          search could evict there: pods of units not evicted, not
 *          protected and not moved, on nodes that are not over-committed.
 * Both are kept up to date as the pass goes, never recounted: wgr_touch
 * (every change of a node's room goes through it) notes the node, and
 * wgr_ix_sync, before the totals are read, adds the change of each noted
 * node's clamped room to its domains (the victim search's trials touch
 * the same nodes many times and put them back as they were); an
 * eviction or a move takes a unit's pods out of `ev` (wgr_ix_unit).
 *
 * What they give, per domain and in O(bands * resources):
 *   wgr_ix_dmin   the lowest priority that may still be evicted there
 *                 (exactly what a scan of the nodes would find);
 *   wgr_ix_bound  an upper bound on the pods of a group that fit there
 *                 with every unit below its priority gone: per resource,
 *                 a sum of floors is at most the floor of the sum, and
 *                 max(0, a + b) <= max(0, a) + b for b >= 0, so the
 *                 bound is never below what the node-by-node bound of the
 *                 victim search finds; a domain it rejects, that search
 *                 would reject too, and the plan does not change;
 *   wgr_ix_cost_lb a lower bound on what the victim search's answer in
 *                 the domain costs (evicted pods by weight, then pods):
 *                 the room the group needs beyond the free room must be
 *                 freed by units of the bands below it; a unit costs all
 *                 its pods, wherever they run, and frees per pod at most
 *                 the most any unit of its band frees there per pod
 *                 (kept from the start: it only over-states as units
 *                 leave), so the fractional knapsack over the bands
 *                 bounds the cost.
 *                 The search visits domains cheapest bound first and
 *                 stops when no bound can beat the best answer.
 * The index is built when the pass first preempts (wgr_pe_setup).
 */
#include "solve/greedy/greedy_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Key slot of key index ki (-1: the cluster). */
static int ix_slot(const gs *G, int ki)
{
	return ki < 0 ? G->ix->nk - 1 : ki;
}

/* Domain of node n in key slot s, -1: none. */
static int ix_dom(const gs *G, int s, int n)
{
	const wtp_topo *t = G->p->topo;
	return s == G->ix->nk - 1 ? 0 : t->keys[s].node_dom[n];
}

/* Is unit u in the evictable set now? */
static bool ix_live(const gs *G, int u)
{
	return !G->sol->evict[u] && !G->p->units[u].keep &&
	       !wgr_unit_moved(G, u);
}

static void ix_free(gs *G, int n);

/* Add sign * pod pi's request to the evictable totals of its domains. */
static void ix_pod(gs *G, int pi, int band, int sign)
{
	gix *X = G->ix;
	int n = G->s->pods[pi].node, nres = G->nres;
	if (n < 0 || X->over[n])
		return;
	const int64_t *rq = G->s->pods[pi].req;
	for (int s = 0; s < X->nk; s++) {
		int d = ix_dom(G, s, n);
		if (d < 0)
			continue;
		size_t o = (size_t)d * X->nb + band;
		if (X->dt && X->dt[s])
			wgr_dt_mark(G, s, d);
		X->ecnt[s][o] += sign;
		int64_t *e = X->esum[s] + o * nres;
		for (int r = 0; r < nres; r++)
			e[r] += sign * rq[r];
	}
}

/* Per key slot, domain and band: the most room one live unit's pods in
 * the domain free per pod of the unit (never lowered as units leave: it
 * stays an upper bound).  Evicting a unit costs all its pods, wherever
 * they run, so a unit spread over many domains frees little per pod
 * evicted in any one of them. */
static int ix_eff(gs *G)
{
	const wp_problem *p = G->p;
	gix *X = G->ix;
	int nres = G->nres, nb = X->nb;
	int maxd = 1;
	for (int s = 0; s < X->nk - 1; s++)
		if (p->topo->keys[s].ndom > maxd)
			maxd = p->topo->keys[s].ndom;
	int64_t *acc = wa_calloc(G->tmp, (size_t)maxd * nres + 1,
				 sizeof *acc);
	int *list = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *list);
	unsigned char *on = wa_calloc(G->tmp, (size_t)maxd + 1, 1);
	if (!acc || !list || !on)
		return -1;
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (!ix_live(G, u) || un->npods <= 0)
			continue;
		for (int s = 0; s < X->nk; s++) {
			int nl = 0;
			for (int i = 0; i < un->npods; i++) {
				const ws_pod *pod = &G->s->pods[un->pods[i]];
				int n = pod->node;
				int d = n >= 0 && !X->over[n] ? ix_dom(G, s, n)
							       : -1;
				if (d < 0)
					continue;
				if (!on[d]) {
					on[d] = 1;
					list[nl++] = d;
				}
				for (int r = 0; r < nres; r++)
					acc[(size_t)d * nres + r] += pod->req[r];
			}
			for (int j = 0; j < nl; j++) {
				int d = list[j];
				double *ef = X->eeff[s] +
					     ((size_t)d * nb + X->uband[u]) * nres;
				for (int r = 0; r < nres; r++) {
					double v = (double)acc[(size_t)d * nres + r] /
						   un->npods;
					if (v > ef[r])
						ef[r] = v;
					acc[(size_t)d * nres + r] = 0;
				}
				on[d] = 0;
			}
		}
	}
	return 0;
}

int wgr_ix_setup(gs *G)
{
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	int nres = G->nres, nn = G->nn, nkeys = t ? t->nkeys : 0;
	gix *X = wa_calloc(G->tmp, 1, sizeof *X);
	if (!X)
		return -1;
	/* bands: the distinct priorities of the units, ascending */
	X->bprio = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int32_t));
	X->uband = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	X->over = wa_calloc(G->tmp, (size_t)nn + 1, 1);
	X->seen = wa_calloc(G->tmp, (size_t)nn * nres + 1, sizeof(int64_t));
	X->dirty = wa_calloc(G->tmp, (size_t)nn + 1, 1);
	X->dlist = wa_calloc(G->tmp, (size_t)nn + 1, sizeof(int));
	X->nk = nkeys + 1;
	X->fsum = wa_calloc(G->tmp, (size_t)X->nk, sizeof *X->fsum);
	X->esum = wa_calloc(G->tmp, (size_t)X->nk, sizeof *X->esum);
	X->ecnt = wa_calloc(G->tmp, (size_t)X->nk, sizeof *X->ecnt);
	X->eeff = wa_calloc(G->tmp, (size_t)X->nk, sizeof *X->eeff);
	if (!X->eeff ||
	    !X->bprio || !X->uband || !X->over || !X->seen || !X->dirty ||
	    !X->dlist || !X->fsum ||
	    !X->esum || !X->ecnt)
		return -1;
	for (int u = 0; u < p->nunits; u++) {
		int32_t q = p->units[u].priority;
		int i = X->nb;
		while (i > 0 && X->bprio[i - 1] > q)
			i--;
		if (i > 0 && X->bprio[i - 1] == q)
			continue;
		memmove(X->bprio + i + 1, X->bprio + i,
			(size_t)(X->nb - i) * sizeof *X->bprio);
		X->bprio[i] = q;
		X->nb++;
	}
	for (int u = 0; u < p->nunits; u++) {
		int lo = 0, hi = X->nb - 1;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (X->bprio[mid] < p->units[u].priority)
				lo = mid + 1;
			else
				hi = mid;
		}
		X->uband[u] = lo;
	}
	int nb = X->nb > 0 ? X->nb : 1;
	for (int s = 0; s < X->nk; s++) {
		int nd = s < nkeys ? t->keys[s].ndom : 1;
		X->fsum[s] = wa_calloc(G->tmp, (size_t)nd * nres + 1,
				       sizeof(int64_t));
		X->esum[s] = wa_calloc(G->tmp, (size_t)nd * nb * nres + 1,
				       sizeof(int64_t));
		X->ecnt[s] = wa_calloc(G->tmp, (size_t)nd * nb + 1,
				       sizeof(int32_t));
		X->eeff[s] = wa_calloc(G->tmp, (size_t)nd * nb * nres + 1,
				       sizeof(double));
		if (!X->fsum[s] || !X->esum[s] || !X->ecnt[s] || !X->eeff[s])
			return -1;
	}
	G->ix = X;
	/* over-committed nodes give no victims (pe_node_min) */
	for (int n = 0; n < nn; n++)
		for (int r = 0; r < nres; r++)
			if (p->free[(size_t)n * nres + r] < 0)
				X->over[n] = X->any_over = 1;
	/* the free totals: every node's clamped room added once */
	for (int n = 0; n < nn; n++)
		ix_free(G, n);
	/* the evictable totals */
	for (int u = 0; u < p->nunits; u++)
		if (ix_live(G, u))
			for (int i = 0; i < p->units[u].npods; i++)
				ix_pod(G, p->units[u].pods[i], X->uband[u], 1);
	if (ix_eff(G) || wgr_dt_setup(G))
		return -1;
	/* moves need the unit of a pod (single-pod units) */
	if (p->unit_mc) {
		X->pod_unit = wa_calloc(G->tmp, (size_t)p->snap->npods + 1,
					sizeof(int));
		if (!X->pod_unit)
			return -1;
		for (int i = 0; i < p->snap->npods; i++)
			X->pod_unit[i] = -1;
		for (int u = 0; u < p->nunits; u++)
			for (int i = 0; i < p->units[u].npods; i++)
				X->pod_unit[p->units[u].pods[i]] = u;
	}
	return 0;
}

void wgr_ix_touch(gs *G, int n)
{
	gix *X = G->ix;
	if (!X->dirty[n]) {
		X->dirty[n] = 1;
		X->dlist[X->ndirty++] = n;
	}
}

void wgr_ix_sync(gs *G)
{
	gix *X = G->ix;
	if (!X)
		return;
	for (int i = 0; i < X->ndirty; i++) {
		ix_free(G, X->dlist[i]);
		X->dirty[X->dlist[i]] = 0;
	}
	X->ndirty = 0;
}

/* Node n's room as the totals hold it becomes its room now. */
static void ix_free(gs *G, int n)
{
	gix *X = G->ix;
	int nres = G->nres;
	const int64_t *f = G->fr + (size_t)n * nres;
	int64_t *seen = X->seen + (size_t)n * nres;
	for (int r = 0; r < nres; r++) {
		int64_t v = f[r] > 0 ? f[r] : 0, dv = v - seen[r];
		if (!dv)
			continue;
		seen[r] = v;
		for (int s = 0; s < X->nk; s++) {
			int d = ix_dom(G, s, n);
			if (d < 0)
				continue;
			X->fsum[s][(size_t)d * nres + r] += dv;
			if (X->dt && X->dt[s])
				wgr_dt_mark(G, s, d);
		}
	}
}

void wgr_ix_unit(gs *G, int u, int sign)
{
	const wp_unit *un = &G->p->units[u];
	if (!G->ix || un->keep)
		return;
	for (int i = 0; i < un->npods; i++)
		ix_pod(G, un->pods[i], G->ix->uband[u], sign);
}

void wgr_ix_moved(gs *G, int pi, int sign)
{
	if (!G->ix || !G->ix->pod_unit)
		return;
	int u = G->ix->pod_unit[pi];
	/* a move takes its pod out of the victims, the way back returns
	 * it (a moved unit was live before: moves skip evicted units) */
	if (u >= 0 && !G->sol->evict[u] && !G->p->units[u].keep)
		ix_pod(G, pi, G->ix->uband[u], -sign);
}

int32_t wgr_ix_dmin(const gs *G, int ki, int d)
{
	const gix *X = G->ix;
	const int32_t *c = X->ecnt[ix_slot(G, ki)] + (size_t)d * X->nb;
	for (int b = 0; b < X->nb; b++)
		if (c[b] > 0)
			return X->bprio[b];
	return INT32_MAX;
}

int64_t wgr_ix_room_bound(const gs *G, const wp_group *wg,
			  const int64_t *room)
{
	int64_t ub = 0;
	for (int i = 0; i < wg->nclasses; i++) {
		int c = wg->classes[i];
		const cinfo *ci = &G->ci[c];
		const int64_t *req = G->p->classes[c].req;
		int64_t fit = WGR_FIT_CAP;
		for (int j = 0; j < ci->nr && fit > 0; j++) {
			int r = ci->rl[j];
			int64_t q = room[r] / req[r];
			if (q < fit)
				fit = q;
		}
		if (fit < 0)
			fit = 0;
		int64_t cnt = G->p->classes[c].count;
		ub += fit < cnt ? fit : cnt;
	}
	return ub;
}

int64_t wgr_ix_bound(const gs *G, const wp_group *wg, int ki, int d,
		     int32_t below)
{
	const gix *X = G->ix;
	int s = ix_slot(G, ki), nres = G->nres;
	/* room per resource: free, plus what every unit below goes with */
	int64_t room[WGR_IX_MAX_RES];
	if (nres > WGR_IX_MAX_RES)
		return INT64_MAX; /* no bound */
	memcpy(room, X->fsum[s] + (size_t)d * nres, (size_t)nres * sizeof *room);
	const int64_t *e = X->esum[s] + (size_t)d * X->nb * nres;
	for (int b = 0; b < X->nb && X->bprio[b] < below; b++)
		for (int r = 0; r < nres; r++)
			room[r] += e[(size_t)b * nres + r];
	return wgr_ix_room_bound(G, wg, room);
}

/* The least cost, in one resource, of freeing `deficit` from the bands
 * below `below` of one domain, by the fractional knapsack: a unit of band
 * b frees at most eeff of the resource per pod it has, so freeing x of
 * it takes at least x / eeff pods, each costing per[b].  Bands in order
 * of cost per unit freed.  < 0: the bands cannot free that much. */
static double ix_frac(const gix *X, const int64_t *e, const double *mx,
		      int nres, int r, int64_t deficit, int32_t below,
		      const double *per)
{
	int ord[WGR_IX_MAX_BANDS], no = 0;
	for (int b = 0; b < X->nb && X->bprio[b] < below; b++) {
		double q = mx[(size_t)b * nres + r];
		if (q <= 0 || e[(size_t)b * nres + r] <= 0)
			continue;
		int i = no++;
		while (i > 0) {
			int o = ord[i - 1];
			double ro = per[o] / mx[(size_t)o * nres + r];
			if (ro <= per[b] / q)
				break;
			ord[i] = o;
			i--;
		}
		ord[i] = b;
	}
	double cost = 0;
	int64_t left = deficit;
	for (int i = 0; i < no && left > 0; i++) {
		int b = ord[i];
		int64_t take = e[(size_t)b * nres + r];
		if (take > left)
			take = left;
		cost += per[b] * (double)take / mx[(size_t)b * nres + r];
		left -= take;
	}
	return left > 0 ? -1 : cost;
}

bool wgr_ix_cost_lb(const gs *G, const wp_group *wg, int ki, int d,
		    int32_t below, int need, double *w, long *pods)
{
	const gix *X = G->ix;
	int s = ix_slot(G, ki), nres = G->nres;
	*w = 0;
	*pods = 0;
	if (X->any_over || X->nb > WGR_IX_MAX_BANDS || need <= 0 ||
	    wg->nclasses == 0)
		return true; /* no bound: 0 */
	const int64_t *f = X->fsum[s] + (size_t)d * nres;
	const int64_t *e = X->esum[s] + (size_t)d * X->nb * nres;
	const double *mx = X->eeff[s] + (size_t)d * X->nb * nres;
	double wper[WGR_IX_MAX_BANDS], pper[WGR_IX_MAX_BANDS];
	for (int b = 0; b < X->nb; b++) {
		wper[b] = b + 1; /* a unit's weight per pod (wp_unit) */
		pper[b] = 1;
	}
	for (int r = 0; r < nres; r++) {
		/* the group's pods need at least need x the least request */
		int64_t q = INT64_MAX;
		for (int i = 0; i < wg->nclasses; i++) {
			int64_t rq = G->p->classes[wg->classes[i]].req[r];
			if (rq < q)
				q = rq;
		}
		if (q <= 0 || q > INT64_MAX / need || (int64_t)need * q <= f[r])
			continue;
		int64_t deficit = (int64_t)need * q - f[r];
		double cw = ix_frac(X, e, mx, nres, r, deficit, below, wper);
		double cp = ix_frac(X, e, mx, nres, r, deficit, below, pper);
		if (cw < 0 || cp < 0)
			return false; /* the victims cannot free enough */
		/* costs are integers: round up what rounding error allows */
		double wr = ceil(cw * (1 - 1e-9) - 1e-6);
		double pr = ceil(cp * (1 - 1e-9) - 1e-6);
		if (wr > *w)
			*w = wr;
		if (pr > *pods)
			*pods = (long)pr;
	}
	return true;
}

bool wgr_ix_verify(gs *G)
{
	const gix *X = G->ix;
	const wp_problem *p = G->p;
	int nres = G->nres;
	if (!X)
		return true;
	wgr_ix_sync(G);
	wa_arena *a = wa_new();
	bool ok = a != NULL;
	for (int s = 0; ok && s < X->nk; s++) {
		int nd = s < X->nk - 1 ? p->topo->keys[s].ndom : 1;
		int64_t *f = wa_calloc(a, (size_t)nd * nres + 1, sizeof *f);
		int64_t *e = wa_calloc(a, (size_t)nd * X->nb * nres + 1,
				       sizeof *e);
		int32_t *c = wa_calloc(a, (size_t)nd * X->nb + 1, sizeof *c);
		if (!f || !e || !c) {
			ok = false;
			break;
		}
		for (int n = 0; n < G->nn; n++) {
			int d = ix_dom(G, s, n);
			for (int r = 0; d >= 0 && r < nres; r++) {
				int64_t v = G->fr[(size_t)n * nres + r];
				f[(size_t)d * nres + r] += v > 0 ? v : 0;
			}
		}
		for (int u = 0; u < p->nunits; u++) {
			if (!ix_live(G, u))
				continue;
			for (int i = 0; i < p->units[u].npods; i++) {
				const ws_pod *pod = &G->s->pods[p->units[u].pods[i]];
				int d = pod->node >= 0 && !X->over[pod->node]
					    ? ix_dom(G, s, pod->node) : -1;
				if (d < 0)
					continue;
				size_t o = (size_t)d * X->nb + X->uband[u];
				c[o]++;
				for (int r = 0; r < nres; r++)
					e[o * nres + r] += pod->req[r];
			}
		}
		ok = !memcmp(f, X->fsum[s], (size_t)nd * nres * sizeof *f) &&
		     !memcmp(e, X->esum[s],
			     (size_t)nd * X->nb * nres * sizeof *e) &&
		     !memcmp(c, X->ecnt[s], (size_t)nd * X->nb * sizeof *c);
	}
	wa_destroy(a);
	return ok;
}
