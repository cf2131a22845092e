/*
 * moves.c -- moves that admit work (--rebalance): movable running pods
 * leave a domain so that a group that does not fit there does; tried
 * before any eviction (doc/formulation.md §4c, doc/preemption.md).
 */
#include "solve/greedy/greedy_int.h"
#include "base/sort.h"

#include <stdint.h>
#include <string.h>

/* Moves that admit work (--rebalance, doc/formulation.md §4c).  When a
 * group does not fit, per candidate domain the movable running pods there
 * (p->mcls: lone pods and pods of `single` groups without constraints, not
 * --protect'ed) are moved best-fit (the fullest node that fits) to a node
 * of their class's destinations outside the domain that has no evictions;
 * the shortest prefix of them (largest first) that lets the group fit is
 * found by bisection, then every moved pod whose return home still fits
 * goes back.  The domain with the fewest moves wins and is redone for real,
 * within --max-moves.  Moves come before evictions (tier 3 is below tier
 * 2).  The rebalancing post-pass (run/rebalance.c) later frees whole
 * domains for future gangs (tier 4). */

bool wgr_unit_moved(const gs *G, int u)
{
	const wp_problem *p = G->p;
	return p->unit_mc && p->unit_mc[u] >= 0 &&
	       G->sol->move_to[p->units[u].pods[0]] >= 0;
}

/* Move pod pi (of class mc) to node `to` (sign +1) or back (-1). */
static void mv_apply(gs *G, int pi, int to, int sign)
{
	const ws_pod *pod = &G->s->pods[pi];
	int from = pod->node;
	for (int r = 0; r < G->nres; r++) {
		int64_t q = sign * pod->req[r];
		G->fr[(size_t)from * G->nres + r] += q;
		G->fr[(size_t)to * G->nres + r] -= q;
		G->mv_adj[(size_t)from * G->nres + r] += q;
		G->mv_adj[(size_t)to * G->nres + r] -= q;
	}
	G->sol->move_to[pi] = sign > 0 ? to : -1;
	wgr_ix_moved(G, pi, sign);
	wgr_touch(G, from);
	wgr_touch(G, to);
}

/* Best-fit destination of pod pi of move class c outside domain d of k
 * (k NULL: any node but home), or -1. */
static int mv_dest(gs *G, int c, int pi, const wtp_key *k, int d)
{
	const wp_mclass *mc = &G->p->mcls[c];
	const int64_t *req = G->s->pods[pi].req;
	int best = -1;
	double bf = 0;
	for (int i = 0; i < mc->nelig; i++) {
		int n = mc->elig[i];
		if (n == mc->home || (k && k->node_dom[n] == d) ||
		    (G->dirty && G->dirty[n]))
			continue;
		const int64_t *f = G->fr + (size_t)n * G->nres;
		int r = 0;
		while (r < G->nres && f[r] >= req[r])
			r++;
		if (r < G->nres)
			continue;
		double fr = wgr_node_frac(G, n);
		if (best < 0 || fr < bf) {
			best = n;
			bf = fr;
		}
	}
	return best;
}

/* Make the first m candidates moved (those that find a destination). */
static void mv_prefix(gs *G, const wtp_key *k, int d, int *cur, int m)
{
	const wp_problem *p = G->p;
	for (; *cur < m; (*cur)++) {
		int u = G->mv_v[*cur], pi = p->units[u].pods[0];
		int to = mv_dest(G, p->unit_mc[u], pi, k, d);
		G->mv_to[*cur] = to;
		if (to >= 0)
			mv_apply(G, pi, to, 1);
	}
	for (; *cur > m; (*cur)--) {
		int u = G->mv_v[*cur - 1];
		if (G->mv_to[*cur - 1] >= 0)
			mv_apply(G, p->units[u].pods[0], G->mv_to[*cur - 1],
				 -1);
	}
}

/* Larger requests first (scarcest resource last in the index order). */
static int mv_cmp(const void *ctx, int a, int b)
{
	const gs *G = ctx;
	const int64_t *x = G->s->pods[G->p->units[a].pods[0]].req;
	const int64_t *y = G->s->pods[G->p->units[b].pods[0]].req;
	for (int r = G->nres - 1; r >= 0; r--)
		if (x[r] != y[r])
			return x[r] > y[r] ? -1 : 1;
	return (a > b) - (a < b);
}

/* The move search in one domain (k NULL: the cluster).  Pods placed,
 * -1: no way, -2: NOMEM; *cost: moves kept.  With commit the moves and
 * the placement stay. */
static int mv_domain(gs *G, int g, const int *corder, const wtp_key *k,
		     int d, int need, int limit, bool commit, int *cost)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	int nv = 0, n1 = k ? k->dom_nnodes[d] : G->nn;
	/* candidates on the domain's nodes some class of the group may use,
	 * and (as pe_victims, preempt.c) an upper bound on the pods placeable
	 * with all of them gone: below `need`, skip the domain */
	int64_t *acc = G->pe_acc, *cap = G->pe_cap;
	for (int ci = 0; ci < wg->nclasses; ci++)
		acc[ci] = 0;
	for (int j = 0; j < n1; j++) {
		int n = k ? k->dom_nodes[d][j] : j;
		bool ok = false;
		for (int ci = 0; ci < wg->nclasses && !ok; ci++)
			ok = wgr_elig_bit(&G->ci[wg->classes[ci]], n);
		if (!ok || (G->dirty && G->dirty[n]))
			continue;
		memcpy(cap, G->fr + (size_t)n * G->nres,
		       (size_t)G->nres * sizeof *cap);
		for (int e = G->mv_nbeg[n]; e < G->mv_nbeg[n + 1]; e++) {
			const wp_mclass *mc = &p->mcls[G->mv_nlist[e]];
			for (int i = 0; i < mc->count; i++) {
				int u = mc->units[i];
				if (G->sol->evict[u] || wgr_unit_moved(G, u))
					continue;
				G->mv_v[nv++] = u;
				for (int r = 0; r < G->nres; r++)
					cap[r] += mc->req[r];
			}
		}
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			const cinfo *inf = &G->ci[c];
			if (!wgr_elig_bit(inf, n))
				continue;
			acc[ci] += wgr_cap_fit(G, c, cap);
		}
	}
	if (nv == 0)
		return -1;
	if (wgr_acc_bound(p, wg, acc) < need)
		return -1;
	wis_sort(G->mv_v, G->pe_tmp, nv, mv_cmp, G);
	int cur = 0;
	mv_prefix(G, k, d, &cur, nv);
	int t = wgr_place_upto(G, wg, corder, k, d, need, limit);
	if (t < 0) {
		mv_prefix(G, k, d, &cur, 0);
		return t;
	}
	int lo = 1, hi = nv, live = t;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (live >= 0)
			wgr_rollback(G);
		mv_prefix(G, k, d, &cur, mid);
		t = live = wgr_place_upto(G, wg, corder, k, d, need, limit);
		if (t == -2) {
			mv_prefix(G, k, d, &cur, 0);
			return -2;
		}
		if (t >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	int placed = live;
	if (live < 0) {
		mv_prefix(G, k, d, &cur, hi);
		placed = wgr_place_upto(G, wg, corder, k, d, need, limit);
	}
	if (placed < 0) { /* not monotone: all of them */
		if (placed == -1) {
			mv_prefix(G, k, d, &cur, nv);
			placed = wgr_place_upto(G, wg, corder, k, d, need,
						limit);
		}
		if (placed < 0) {
			mv_prefix(G, k, d, &cur, 0);
			return placed;
		}
	}
	/* reprieve: back home when it still fits, last moved first */
	int m = cur;
	*cost = 0;
	for (int i = m - 1; i >= 0; i--) {
		int u = G->mv_v[i], pi = p->units[u].pods[0];
		if (G->mv_to[i] < 0)
			continue;
		mv_apply(G, pi, G->mv_to[i], -1);
		const int64_t *f = G->fr + (size_t)G->s->pods[pi].node * G->nres;
		int r = 0;
		while (r < G->nres && f[r] >= 0)
			r++;
		if (r < G->nres) {
			mv_apply(G, pi, G->mv_to[i], 1);
			(*cost)++;
		} else {
			G->mv_to[i] = -1;
		}
	}
	if (commit) {
		G->nlog = 0;
		G->nmoves += *cost;
		return placed;
	}
	wgr_rollback(G);
	for (int i = m - 1; i >= 0; i--)
		if (G->mv_to[i] >= 0)
			mv_apply(G, p->units[G->mv_v[i]].pods[0], G->mv_to[i],
				 -1);
	return placed;
}

/* Try to admit group g by moving pods.  Pods placed, -1, -2 NOMEM. */
int wgr_move_group(gs *G, int g, const int *corder, const wtp_key *k,
		   int need)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	if (!G->mv_adj) {
		G->mv_adj = wa_calloc(G->tmp, (size_t)G->nn * G->nres + 1,
				      sizeof *G->mv_adj);
		G->mv_v = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
		G->mv_to = wa_calloc(G->tmp, (size_t)p->nunits + 1,
				     sizeof(int));
		G->mv_nbeg = wa_calloc(G->tmp, (size_t)G->nn + 2, sizeof(int));
		G->mv_nlist = wa_calloc(G->tmp, (size_t)p->nmcls + 1,
					sizeof(int));
		if (!G->mv_adj || !G->mv_v || !G->mv_to || !G->mv_nbeg ||
		    !G->mv_nlist || wgr_pe_setup(G))
			return -2;
		for (int c = 0; c < p->nmcls; c++)
			G->mv_nbeg[p->mcls[c].home + 1]++;
		for (int n = 0; n < G->nn; n++)
			G->mv_nbeg[n + 1] += G->mv_nbeg[n];
		for (int c = 0; c < p->nmcls; c++) {
			int n = p->mcls[c].home;
			G->mv_nlist[G->mv_nbeg[n] + G->mv_v[n]++] = c;
		}
		memset(G->mv_v, 0, ((size_t)p->nunits + 1) * sizeof(int));
	}
	int left = p->max_moves > 0 ? p->max_moves - G->nmoves : INT32_MAX;
	if (left <= 0)
		return -1;
	int ncd = !k ? 1 : wg->fixed_dom >= 0 ? 1 : k->ndom;
	int limit = wg->gang ? need : wg->size;
	int best = -1, bd = -1, bc = 0;
	for (int i = 0; i < ncd; i++) {
		int d = !k ? -1 : wg->fixed_dom >= 0 ? wg->fixed_dom : i, c;
		int r = mv_domain(G, g, corder, k, d, need, limit, false, &c);
		if (r == -2)
			return -2;
		if (r >= 0 && c <= left && (best < 0 || c < bc)) {
			best = i;
			bd = d;
			bc = c;
		}
	}
	if (best < 0)
		return -1;
	int c;
	return mv_domain(G, g, corder, k, bd, need, limit, true, &c);
}
