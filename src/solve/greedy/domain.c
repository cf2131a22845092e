/*
 * domain.c -- domain search: roll-ups of pod slots per candidate domain,
 * and the descent of one plain group through its domains.
 *
 * For each group the pods that fit per candidate domain are rolled up
 * from the nodes; domains that hold the whole group are tried tightest
 * first (fewest pod slots, then name), then those that hold at least the
 * minimum, most pods first.  A gang that cannot reach its minimum in a
 * domain is rolled back and the next domain is tried; when none works it
 * may move pods (moves.c) or evict (preempt.c), else it waits with a
 * reason that has the numbers in it (reasons.c).
 *
 * Speed (10,000 nodes, 5,000 groups): roll-ups are cached per (pod
 * profile, key) and per domain, and per-node fits per profile, each
 * invalidated by version counters that a placement bumps on its node and
 * the node's domains (wgr_touch); only what a placement touched is
 * recomputed.  A roll-up large enough to pay for a parallel region runs
 * on OpenMP; every parallel result is an integer written to its own
 * slot, so any thread count gives the same plan.
 */
#include "solve/greedy/greedy_int.h"
#include "reduce/units.h"

#include <stdint.h>
#include <stdlib.h>

/* ----------------------------------------------------------- roll-ups */

/* Raw pod slots of class c in domain d of k (k NULL: the cluster); `wr`
 * (serial callers) lets it use and fill the fit cache. */
static int64_t class_slots(const gs *G, int c, const wtp_key *k, int d,
			   gs *wr)
{
	const wp_class *cl = &G->p->classes[c];
	int64_t raw = 0;
	/* the nodes with room from the room tree (room.c) where it serves
	 * the domain; NOMEM there: the scan below */
	int nc = wr ? wgr_room_find(wr, c, k, d, wr->nc) : -1;
	for (int i = 0; i < nc; i++)
		raw += wr->nc[i].fit;
	if (nc >= 0)
		return raw;
	if (!k) {
		for (int j = 0; j < cl->nelig; j++)
			raw += wr ? wgr_node_fit_c(wr, c, cl->elig[j])
				  : wgr_node_fit(G, c, cl->elig[j]);
		return raw;
	}
	const cinfo *ci = &G->ci[c];
	const int *nodes = k->dom_nodes[d];
	for (int j = 0; j < k->dom_nnodes[d]; j++)
		if (wgr_elig_bit(ci, nodes[j]))
			raw += wr ? wgr_node_fit_c(wr, c, nodes[j])
				  : wgr_node_fit(G, c, nodes[j]);
	return raw;
}

/* Roll-up computed from the nodes: for each candidate, slots = pod slots
 * summed over the group's classes, bound = pods of the group that could
 * fit (an upper bound when classes compete).  Each candidate writes its
 * own slot and sums are integers, so the thread count does not matter;
 * small roll-ups stay serial (a parallel region costs more than it saves
 * below WGR_PAR_MIN node visits). */
void wgr_rollup_direct(const gs *G, gs *wr, const wp_group *wg,
		       const wtp_key *k, dcand *cd, int ncd)
{
	long work = 0;
	if (!k)
		for (int ci = 0; ci < wg->nclasses; ci++)
			work += G->p->classes[wg->classes[ci]].nelig;
	else
		for (int i = 0; i < ncd; i++)
			work += (long)k->dom_nnodes[cd[i].d] * wg->nclasses;
	/* wr: a serial caller that may use the fit caches */
	bool par = wr && work >= WGR_PAR_MIN && G->threads > 1;
	if (par)
		wr = NULL;

	if (!k) {
		/* one candidate: parallel over nodes, an integer sum */
		int64_t bound = 0, slots = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			const wp_class *cl = &G->p->classes[c];
			int64_t raw = 0;
			if (par) {
#pragma omp parallel for reduction(+ : raw) num_threads(G->threads)
				for (int j = 0; j < cl->nelig; j++)
					raw += wgr_node_fit(G, c, cl->elig[j]);
			} else {
				raw = class_slots(G, c, NULL, -1, wr);
			}
			slots += raw;
			bound += raw < cl->count ? raw : cl->count;
		}
		cd[0].bound = bound;
		cd[0].slots = slots;
		return;
	}
#pragma omp parallel for schedule(dynamic, 16) num_threads(G->threads) \
	if (par)
	for (int i = 0; i < ncd; i++) {
		int64_t bound = 0, slots = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			int64_t raw = class_slots(G, c, k, cd[i].d, wr);
			int64_t cnt = G->p->classes[c].count;
			slots += raw;
			bound += raw < cnt ? raw : cnt;
		}
		cd[i].bound = bound;
		cd[i].slots = slots;
	}
}

/* The roll-up of group g, from its pair's cache when it has one
 * (refreshing the domains placements have touched since). */
static void rollup(gs *G, int g, const wtp_key *k, dcand *cd, int ncd)
{
	const wp_group *wg = &G->p->groups[g];
	if (G->gpair[g] < 0) {
		wgr_rollup_direct(G, G, wg, k, cd, ncd);
		return;
	}
	rcache *rc = &G->rc[G->gpair[g]];
	int64_t cnt = G->p->classes[wg->classes[0]].count;
	for (int i = 0; i < ncd; i++) {
		int d = k ? cd[i].d : 0;
		uint32_t v = k ? G->dver[rc->key][d] : G->gver;
		if (rc->ver[d] != v) {
			rc->raw[d] = class_slots(G, rc->c, k, k ? d : -1, G);
			rc->ver[d] = v;
		}
		cd[i].slots = rc->raw[d];
		cd[i].bound = rc->raw[d] < cnt ? rc->raw[d] : cnt;
	}
}

/* Pairs (profile, key) shared by two or more single-class groups get a
 * roll-up cache, filled here for every domain (in parallel: each pair
 * writes its own arrays). */
int wgr_setup_pairs(gs *G)
{
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	int nk = t ? t->nkeys : 0;
	G->dver = wa_calloc(G->tmp, (size_t)nk + 1, sizeof *G->dver);
	G->gpair = wa_calloc(G->tmp, (size_t)p->ngroups + 1, sizeof(int));
	G->rc = wa_calloc(G->tmp, (size_t)p->ngroups + 1, sizeof *G->rc);
	size_t cap = 16;
	while (cap < 2 * (size_t)p->ngroups + 16)
		cap *= 2;
	int *tab = wa_calloc(G->tmp, cap, sizeof *tab);
	if (!G->dver || !G->gpair || !G->rc || !tab)
		return -1;
	for (int k = 0; k < nk; k++) {
		G->dver[k] = wa_calloc(G->tmp, (size_t)t->keys[k].ndom + 1,
				       sizeof(uint32_t));
		if (!G->dver[k])
			return -1;
		for (int d = 0; d < t->keys[k].ndom; d++)
			G->dver[k][d] = 1;
	}
	G->gver = 1;

	/* node versions, the frac cache, and fit caches for profiles that
	 * several classes share (within a memory budget) */
	G->nver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->nver);
	G->fver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->fver);
	G->frac = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->frac);
	G->pfit = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof *G->pfit);
	G->pver = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof *G->pver);
	int *uses = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof(int));
	if (!G->nver || !G->fver || !G->frac || !G->pfit || !G->pver || !uses)
		return -1;
	for (int n = 0; n < G->nn; n++)
		G->nver[n] = 1;
	for (int c = 0; c < p->nclasses; c++)
		uses[G->ci[c].prof]++;
	size_t budget = WGR_FIT_CACHE;
	for (int c = 0; c < p->nclasses; c++) {
		if (uses[c] < 2 || (size_t)G->nn > budget)
			continue;
		budget -= (size_t)G->nn;
		G->pfit[c] = wa_calloc(G->tmp, (size_t)G->nn + 1,
				       sizeof(int32_t));
		G->pver[c] = wa_calloc(G->tmp, (size_t)G->nn + 1,
				       sizeof(uint32_t));
		if (!G->pfit[c] || !G->pver[c])
			return -1;
	}

	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		G->gpair[g] = -1;
		if (wg->invalid || wg->fixed_dom == -2 || wg->nclasses != 1)
			continue;
		int prof = G->ci[wg->classes[0]].prof;
		size_t j = wgr_mix((uint64_t)prof, (uint64_t)(wg->key + 1)) &
			   (cap - 1);
		while (tab[j] && !(G->rc[tab[j] - 1].c == prof &&
				   G->rc[tab[j] - 1].key == wg->key))
			j = (j + 1) & (cap - 1);
		if (!tab[j]) {
			G->rc[G->nrc] = (rcache){prof, wg->key, 0, NULL, NULL};
			tab[j] = ++G->nrc;
		}
		G->rc[tab[j] - 1].ngroups++;
		G->gpair[g] = tab[j] - 1;
	}
	for (int i = 0; i < G->nrc; i++) {
		rcache *rc = &G->rc[i];
		if (rc->ngroups < 2)
			continue;
		int nd = rc->key >= 0 ? t->keys[rc->key].ndom : 1;
		rc->raw = wa_calloc(G->tmp, (size_t)nd + 1, sizeof *rc->raw);
		rc->ver = wa_calloc(G->tmp, (size_t)nd + 1, sizeof *rc->ver);
		if (!rc->raw || !rc->ver)
			return -1;
	}
	for (int g = 0; g < p->ngroups; g++)
		if (G->gpair[g] >= 0 && !G->rc[G->gpair[g]].raw)
			G->gpair[g] = -1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(G->threads)
	for (int i = 0; i < G->nrc; i++) {
		rcache *rc = &G->rc[i];
		if (!rc->raw)
			continue;
		const wtp_key *k = rc->key >= 0 ? &t->keys[rc->key] : NULL;
		int nd = k ? k->ndom : 1;
		for (int d = 0; d < nd; d++) {
			rc->raw[d] = class_slots(G, rc->c, k, k ? d : -1, NULL);
			rc->ver[d] = 1;
		}
	}
	return 0;
}

/* ------------------------------------------------- candidate domains */

/* Candidate domains of a group: those of its key, only its fixed domain,
 * or the whole cluster (d = -1). */
int wgr_candidates(const wp_group *wg, const wtp_key *k, dcand *cd)
{
	if (!k) {
		cd[0] = (dcand){-1, 0, 0};
		return 1;
	}
	if (wg->fixed_dom >= 0) {
		cd[0] = (dcand){wg->fixed_dom, 0, 0};
		return 1;
	}
	for (int d = 0; d < k->ndom; d++)
		cd[d] = (dcand){d, 0, 0};
	return k->ndom;
}

/* Domains that hold the whole group first, tightest (fewest slots)
 * first; then the rest by most pods; ties by domain (name) order. */
int wgr_cmp_dsort(const void *va, const void *vb)
{
	const dsort *a = va, *b = vb;
	if (a->full != b->full)
		return a->full ? -1 : 1;
	if (a->full) {
		if (a->c.slots != b->c.slots)
			return a->c.slots < b->c.slots ? -1 : 1;
	} else {
		if (a->c.bound != b->c.bound)
			return a->c.bound > b->c.bound ? -1 : 1;
		if (a->c.slots != b->c.slots)
			return a->c.slots < b->c.slots ? -1 : 1;
	}
	return (a->c.d > b->c.d) - (a->c.d < b->c.d);
}

/* Place plain group g (no tree, no annotations): in the candidate
 * domains by roll-up, tightest that holds it first; failing that by
 * moves, then by preemption; a basic group that placed some pods may
 * evict for the rest.  A group that waits gets its reason.  corder, cd,
 * ds: scratch (classes, maxd + 1 domains).  -1 on NOMEM. */
int wgr_place_group(gs *G, int g, int *corder, dcand *cd, dsort *ds)
{
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	wa_arena *a = G->ra;
	wp_sol *sol = G->sol;
	const wp_group *wg = &p->groups[g];
	const wtp_key *k = wg->key >= 0 && t ? &t->keys[wg->key] : NULL;
	int need = wgr_group_need(wg);
	if (wg->invalid) {
		sol->reason[g] = wg->invalid;
		return 0;
	}
	if (wg->nclasses == 0)
		return 0;
	if (k && wg->fixed_dom == -2) {
		sol->reason[g] = wa_printf(
		    a, "its %d running pod%s already span several %s "
		       "domains (or nodes without %s); it cannot "
		       "grow", wg->nbound, wgr_plural(wg->nbound, "", "s"),
		    k->label, k->label);
		if (!sol->reason[g])
			return -1;
		return 0;
	}
	wgr_class_order(G->ci, wg->classes, wg->nclasses, corder);
	int ncd = wgr_candidates(wg, k, cd);
	int nds = 0;
	if (!k) {
		/* one candidate: placing is the test (the roll-up is
		 * only needed to explain a failure) */
		ds[nds++] = (dsort){cd[0], 1};
	} else {
		rollup(G, g, k, cd, ncd);
		for (int i = 0; i < ncd; i++)
			if (cd[i].bound >= need &&
			    (cd[i].bound > 0 || need == 0))
				ds[nds++] = (dsort){
				    cd[i], cd[i].bound >= wg->size};
		qsort(ds, (size_t)nds, sizeof *ds, wgr_cmp_dsort);
	}
	int placed = -1, tried = 0;
	for (int i = 0; i < nds && tried < WGR_MAX_TRIES; i++) {
		tried++;
		placed = wgr_try_group(G, wg, corder, k, ds[i].c.d, need);
		if (placed == -2)
			return -1;
		if (placed >= 0)
			break;
	}
	if (placed < 0 && need > 0 && p->nmcls > 0 && G->preempt) {
		/* moves before evictions (doc/formulation.md §4c) */
		placed = wgr_move_group(G, g, corder, k, need);
		if (placed == -2)
			return -1;
	}
	if (placed < 0 && need > 0 && p->nunits > 0 && G->preempt &&
	    wpe_may_preempt(p, g)) {
		placed = wgr_preempt_group(G, g, corder, k, need,
					   k ? cd : NULL);
		if (placed == -2)
			return -1;
	}
	if (placed < 0 && need == 0 && ncd > 0)
		placed = 0; /* a gang already at its minimum */
	if (placed > 0 && !wg->gang && placed < wg->size &&
	    p->nunits > 0 && G->preempt && wpe_may_preempt(p, g)) {
		/* per pod: the rest of a basic group or lone pods */
		int more = wgr_preempt_rest(G, g, corder, k, placed);
		if (more == -2)
			return -1;
		placed += more;
	}
	if (placed >= 0 && (placed > 0 || need == 0)) {
		sol->admit[g] = 1;
		G->dra_commit++;
		/* lone pods that did not fit wait one by one: say why */
		if (wg->sg < 0 && placed < wg->size) {
			if (!k)
				rollup(G, g, k, cd, ncd);
			sol->reason[g] = wgr_explain(G, wg, corder, k, cd,
						     ncd, 1, 0);
			if (!sol->reason[g])
				return -1;
			const char *dr = G->cpc
			    ? wgr_device_reason(G, wg, k, 1) : NULL;
			if (dr)
				sol->reason[g] = dr;
		}
		return 0;
	}
	if (!k)
		rollup(G, g, k, cd, ncd);
	sol->reason[g] = wgr_explain(G, wg, corder, k, cd, ncd, need,
				     tried);
	if (!sol->reason[g])
		return -1;
	if (G->cpc) {
		const char *dr = wgr_device_reason(G, wg, k, need);
		if (dr)
			sol->reason[g] = dr;
	}
	return 0;
}
