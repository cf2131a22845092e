/*
 * order.c -- the order groups are placed in.
 *
 * Groups go by priority, then most constrained (fewest domains that could
 * hold their minimum on the initial capacity), then largest, then input
 * order; a group's classes go larger first.  Seeded passes
 * (wgr_solve_seeded, restarts.c) keep the levels but perturb the order
 * within them (doc/formulation.md §11); WGR_SEED_KEYED keeps greedy's
 * order with the groups without a key last in their level.  The initial
 * roll-ups run on OpenMP, one slot per group, so any thread count gives
 * the same order.
 */
#include "solve/greedy/greedy_int.h"
#include "base/rng.h"
#include "reduce/units.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Priority first, then fewest candidate domains, then largest. */
static int cmp_gord(const void *va, const void *vb)
{
	const gord *a = va, *b = vb;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->ncand != b->ncand)
		return a->ncand < b->ncand ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->g > b->g) - (a->g < b->g);
}

static int cmp_corder_w(const cinfo *ci, int a, int b)
{
	if (ci[a].weight != ci[b].weight)
		return ci[a].weight > ci[b].weight ? -1 : 1;
	return (a > b) - (a < b);
}

/* classes[0..n) larger first (by normalised size, then index), into
 * corder. */
void wgr_class_order(const cinfo *ci, const int *classes, int n,
		     int *corder)
{
	for (int i = 0; i < n; i++) {
		int c = classes[i], j = i;
		while (j > 0 && cmp_corder_w(ci, corder[j - 1], c) > 0) {
			corder[j] = corder[j - 1];
			j--;
		}
		corder[j] = c;
	}
}

/* Which seeded passes ignore priority, and so evict nothing (no
 * level's room may then depend on the levels placed before it). */
bool wgr_seed_flat(uint64_t seed)
{
	return seed != WGR_SEED_SMALL && seed != WGR_SEED_KEYED &&
	       seed % 3 == 0;
}

/* Whether no running unit may be evicted by any pending group (every
 * PriorityClass Never, --preempt never, or nothing running below a
 * group that may preempt): where the smallest-pods-first passes run. */
bool wgr_no_evictions(const wp_problem *p)
{
	double range, most;
	return !wpe_evict_range(p, &range, &most);
}

/* Per resource, the most any node has free (in G->tmp); NULL NOMEM. */
static double *free_top(gs *G)
{
	const wp_problem *p = G->p;
	int nr = p->nres;
	double *top = wa_calloc(G->tmp, (size_t)nr + 1, sizeof *top);
	for (int n = 0; top && n < p->nnodes; n++)
		for (int r = 0; r < nr; r++)
			if (p->free[(size_t)n * nr + r] > top[r])
				top[r] = (double)p->free[(size_t)n * nr + r];
	return top;
}

/* A seeded pass orders units: a plain group is its own, a tree member
 * belongs to its root composite's (after the groups). */
static int order_unit(const wp_problem *p, int g)
{
	const wp_group *wg = &p->groups[g];
	return wg->pcomp ? p->ngroups + p->comps[wg->pcomp - 1].root : g;
}

/* The order of a seeded pass (wgr_solve_seeded).  Seeds cycle through
 * three kinds:
 *   1 mod 3: by priority, within a level by volume (a tree counts as one
 *            unit with its whole volume), largest first, each volume
 *            shaken by up to 2% (ties and near ties);
 *   2 mod 3: the same shaken by up to 40%;
 *   0 mod 3: any order (a plain shuffle), priority ignored, and no
 *            eviction (seed_flat): when all the work fits, the order of
 *            the levels only costs packing; when it does not, the pass
 *            loses and wgr_restarts keeps the better plan.
 * Largest first is what packs bins tightly; the noise lets restarts
 * find the packings one fixed order misses.  One more pass,
 * WGR_SEED_SMALL, keeps the levels but takes the groups whose pods take
 * the least of a node first (their mean share, no noise): the work
 * tiers count pods, and where not all of a level fits, many small pods
 * beat a few large ones.  Where nothing may be evicted, the 2 mod 3
 * passes alternate: seeds 5 mod 6 shake that order by up to 40%.  Every
 * level's pass keeps the levels in order, as the preemption bookkeeping
 * needs. */
static int seeded_order(gs *G, gord *ord)
{
	const wp_problem *p = G->p;
	int nr = p->nres;
	double *top = free_top(G);
	double *vol = wa_calloc(G->tmp, (size_t)p->ngroups + p->ncomps + 1,
				sizeof *vol);
	double *pods = wa_calloc(G->tmp, (size_t)p->ngroups + p->ncomps + 1,
				 sizeof *pods);
	if (!top || !vol || !pods)
		return -1;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		double v = 0;
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *c = &p->classes[wg->classes[i]];
			double share = 0;
			for (int r = 0; r < nr; r++)
				if (top[r] > 0 && c->req[r] / top[r] > share)
					share = c->req[r] / top[r];
			v += share * c->count;
			pods[order_unit(p, g)] += c->count;
		}
		vol[order_unit(p, g)] += v;
	}
	/* where nothing may be evicted, every other pass of the 2 mod 3
	 * kind shakes the smallest-pods-first order instead */
	bool small = G->seed == WGR_SEED_SMALL ||
		     (G->seed % 6 == 5 && wgr_no_evictions(p));
	bool flat = wgr_seed_flat(G->seed);
	double amp = G->seed % 3 == 1 ? 0.02 : 0.4;
	for (int i = 0; i < p->ngroups; i++) {
		int u = order_unit(p, ord[i].g);
		/* a pure function of (seed, unit): the same order on any
		 * thread count */
		uint64_t st = G->seed * 0x100000001b3ULL ^ (uint64_t)u;
		double z = wrng_unit(&st);
		/* flat passes: any order (a plain shuffle) */
		double key = flat ? z : vol[u] * (1 + amp * (2 * z - 1));
		if (small) { /* the smallest mean share first */
			double sh = pods[u] > 0 ? vol[u] / pods[u] : 1;
			if (G->seed != WGR_SEED_SMALL)
				sh *= 1 + amp * (2 * z - 1);
			key = sh < 1 ? 1 - sh : 0;
		}
		ord[i].ncand = 0;
		if (flat)
			ord[i].prio = 0;
		ord[i].size = key * 1e6 > INT_MAX ? INT_MAX : (int)(key * 1e6);
	}
	return 0;
}

/* wgr_solve_led: the groups it leads with go first in their level, the
 * finest key first, then the largest pods (their largest share of a
 * node's room): a whole-gang MIP's answer (bound_mip.c) fits its
 * domains in aggregate; with pod sizes that divide each other, largest
 * pods first is what packs an aggregate onto nodes, and a coarser gang
 * placed first would take the racks the finer ones were counted in.
 * -1 NOMEM. */
static int lead_order(gs *G, gord *ord)
{
	const wp_problem *p = G->p;
	int nr = p->nres;
	double *top = free_top(G);
	if (!top)
		return -1;
	for (int i = 0; i < p->ngroups; i++) {
		const wp_group *wg = &p->groups[ord[i].g];
		if (G->hint[ord[i].g] < 0 || wg->nclasses == 0)
			continue;
		const int64_t *req = p->classes[wg->classes[0]].req;
		double share = 0;
		for (int r = 0; r < nr; r++)
			if (top[r] > 0 && req[r] / top[r] > share)
				share = req[r] / top[r];
		int fine = wg->key + 1 < 7 ? wg->key + 1 : 7;
		ord[i].ncand = -1 - (fine * 200000 + (int)(share * 1e5));
	}
	return 0;
}

/* The order groups are placed in, into ord[0..ngroups): most constrained
 * on the initial capacity (fewest candidate domains that hold the
 * group's minimum), or a seeded pass's perturbed order.  maxd: the most
 * domains of any key.  -1 on NOMEM. */
int wgr_order_groups(gs *G, gord *ord, int maxd)
{
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	/* Most constrained on the initial capacity.  Every group's
	 * count is its own slot; cached pairs are already rolled up. */
	int nt = G->threads;
	dcand *scr = wa_calloc(G->tmp, (size_t)nt * (maxd + 1), sizeof *scr);
	if (!scr)
		return -1;
#pragma omp parallel for schedule(dynamic, 8) num_threads(nt)
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		const wtp_key *k = wg->key >= 0 && t ? &t->keys[wg->key] : NULL;
		int need = wgr_group_need(wg), n = 0;
		ord[g] = (gord){g, wg->priority, 0, wg->size};
		if (wg->invalid || wg->fixed_dom == -2 || wg->nclasses == 0)
			continue;
		int tid = 0;
#ifdef _OPENMP
		tid = omp_get_thread_num();
#endif
		dcand *c = scr + (size_t)tid * (maxd + 1);
		int ncd = wgr_candidates(wg, k, c);
		if (G->gpair[g] >= 0) {
			const rcache *rc = &G->rc[G->gpair[g]];
			int64_t cnt = p->classes[wg->classes[0]].count;
			for (int i = 0; i < ncd; i++) {
				int64_t raw = rc->raw[k ? c[i].d : 0];
				n += (raw < cnt ? raw : cnt) >= need;
			}
		} else {
			wgr_rollup_direct(G, NULL, wg, k, c, ncd);
			for (int i = 0; i < ncd; i++)
				n += c[i].bound >= need;
		}
		/* the keyed-first pass: a group without a key may use any
		 * node, the least constrained (bench/README.md, "Groups
		 * without a key last") */
		ord[g].ncand = G->seed == WGR_SEED_KEYED && !k && n > 0
				       ? WGR_NCAND_ANY
				       : n;
	}
	if (G->seed && G->seed != WGR_SEED_KEYED && seeded_order(G, ord))
		return -1;
	if (G->hint && lead_order(G, ord))
		return -1;
	qsort(ord, (size_t)p->ngroups, sizeof *ord, cmp_gord);
	return 0;
}
