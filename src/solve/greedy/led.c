/*
 * led.c -- the led pass's clearing (wgr_solve_led with clear; lead.c,
 * doc/formulation.md §12, "The MIP's answer, cleared first").
 *
 * The bound's whole-gang MIP counts the top level's room with every
 * lower running pod gone.  A led pass that evicts only where a gang does
 * not fit in free room puts the first gangs' small pods in free room
 * beside lower pods, on nodes the MIP kept whole, and the gangs of
 * whole-node pods it counted there then find none (fragmented-2048 seed
 * 3: 3,191 top-priority pods of the MIP's 3,453).  Cleared, the level is
 * placed in the room the MIP counted, best fit; then the units whose
 * pods still fit run again, highest priority first (as the victim
 * search's reprieve), and the rest stay evicted for a group of the
 * level.  Not with device claims (their devices are freed per holder,
 * preempt.c) nor under --max-evictions.  wgr_led_hint leads such a pass
 * back to a plan's own domains (lead.c's wrn_relead).
 */
#include "solve/greedy/greedy_int.h"
#include "base/sort.h"
#include "reduce/units.h"

#include <stdint.h>

/* Units highest priority first, then index. */
static int cmp_back(const void *ctx, int a, int b)
{
	const wp_problem *p = ctx;
	int32_t x = p->units[a].priority, y = p->units[b].priority;
	if (x != y)
		return x > y ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Before the first group of the top level (g): every running unit of
 * lower priority that the level may evict, evicted.  -1 NOMEM. */
static int clear(gs *G, int g)
{
	const wp_problem *p = G->p;
	int32_t q = p->groups[g].priority;
	if (wgr_pe_setup(G))
		return -1;
	G->led_ev = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	if (!G->led_ev)
		return -1;
	G->led_top = q;
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (G->sol->evict[u] || un->keep || un->priority >= q ||
		    G->pe_pdbv[u] || wgr_unit_moved(G, u))
			continue;
		G->led_ev[u] = 1;
		wgr_pe_evict(G, u, g);
	}
	return 0;
}

/* After the top level: the cleared units whose pods fit run again; the
 * rest are the evictions of a group of the level that may evict (one
 * with a pod on their first node where there is).  -1 NOMEM. */
int wgr_led_back(gs *G)
{
	const wp_problem *p = G->p;
	if (!G->led_ev)
		return 0;
	int nu = p->nunits, n = 0, by = -1;
	int *v = wa_calloc(G->tmp, (size_t)nu + 1, sizeof *v);
	int *tmp = wa_calloc(G->tmp, (size_t)nu + 1, sizeof *tmp);
	int *onnode = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *onnode);
	if (!v || !tmp || !onnode)
		return -1;
	for (int u = 0; u < nu; u++)
		if (G->led_ev[u] && G->sol->evict[u])
			v[n++] = u;
	wis_sort(v, tmp, n, cmp_back, p);
	/* a group of the level with pods on each node, for the record */
	for (int i = 0; i < G->nn; i++)
		onnode[i] = -1;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (!G->sol->admit[g] || wg->priority != G->led_top ||
		    !wpe_may_preempt(p, g))
			continue;
		by = by < 0 ? g : by;
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *cl = &p->classes[wg->classes[i]];
			WP_X_EACH(G->sol, cl, sl) {
				int nd = cl->elig[sl - cl->off];
				if (wp_x(G->sol, sl) > 0 && onnode[nd] < 0)
					onnode[nd] = g;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		int u = v[i];
		const wp_unit *un = &p->units[u];
		wgr_pe_unit(G, u, -1);
		if (by < 0 || wgr_pe_unit_fits(G, u)) {
			G->sol->evict[u] = 0;
			G->sol->evict_by[u] = -1;
			wgr_ix_unit(G, u, +1);
		} else {
			wgr_pe_unit(G, u, +1);
			int g = onnode[G->s->pods[un->pods[0]].node];
			G->sol->evict_by[u] = g >= 0 ? g : by;
			G->pe_evicted += un->npods;
		}
		for (int j = 0; j < un->npods; j++)
			wgr_pe_node(G, G->s->pods[un->pods[j]].node);
	}
	G->led_ev = NULL;
	return 0;
}

/* Before group g is placed (wgr_level_capacity): the clearing as the
 * top level starts, the units back as it ends.  -1 NOMEM. */
int wgr_led_level(gs *G, int g)
{
	const wp_problem *p = G->p;
	if (!G->led_clear)
		return 0;
	if (G->led_ev)
		return p->groups[g].priority != G->led_top ? wgr_led_back(G)
							   : 0;
	if (G->have_level || !G->preempt || p->snap->dra ||
	    p->max_evictions > 0 || !wpe_may_preempt(p, g))
		return 0;
	return clear(G, g);
}

/* The top priority level's admitted groups of sol, each in the domain of
 * its first pod (0 without a key); with also, its waiting groups in
 * also's domain; every other group -1.  Returns how many were given
 * one. */
int wgr_led_hint(const wp_problem *p, const wp_sol *sol, const int *also,
		 int *hint)
{
	int32_t top = INT32_MIN;
	int n = 0;
	for (int g = 0; g < p->ngroups; g++) {
		hint[g] = -1;
		if (p->groups[g].nclasses > 0 && p->groups[g].priority > top)
			top = p->groups[g].priority;
	}
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (wg->priority != top)
			continue;
		if (!sol->admit[g]) {
			if (also && also[g] >= 0) {
				hint[g] = also[g];
				n++;
			}
			continue;
		}
		const wtp_key *k = wg->key >= 0 && p->topo
				       ? &p->topo->keys[wg->key]
				       : NULL;
		hint[g] = 0;
		n++;
		for (int i = 0; k && i < wg->nclasses; i++) {
			const wp_class *cl = &p->classes[wg->classes[i]];
			int sl = wp_x_next(sol, cl->off, cl->off + cl->nelig);
			if (sl >= 0) {
				hint[g] = k->node_dom[cl->elig[sl - cl->off]];
				break;
			}
		}
	}
	return n;
}
