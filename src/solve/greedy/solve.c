/*
 * solve.c -- the greedy core's entry points (greedy.h): one pass sets up
 * its state (gs, greedy_int.h), orders the groups (order.c) and places
 * each in turn: trees and annotated groups (tree.c), plain groups
 * through their domains (domain.c), with moves and preemption when
 * nothing fits (moves.c, preempt.c).  Always an answer, fast, and the
 * ILP's first incumbent; the plan does not depend on the thread count.
 */
#include "solve/greedy/greedy_int.h"
#include "reduce/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* One pass: the classes' data, the roll-up caches and the trees set up,
 * the groups ordered, then each group placed in that order.  -1 on
 * NOMEM. */
const char wgr_reason_late[] = "the time limit ran out before this group "
				"was considered";

int wgr_count_late(const wp_problem *p, const wp_sol *sol)
{
	int n = 0;
	for (int g = 0; g < p->ngroups; g++)
		n += sol->reason[g] == wgr_reason_late;
	return n;
}

static int run(gs *G, const wasp_options *o)
{
	wb_deadline dl =
	    wdl_after(o && o->start_time > 0 ? o->start_time : wb_now(),
		      o ? o->time_limit_s : 0);
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	wp_sol *sol = G->sol;
	int maxd = 1;
	for (int i = 0; t && i < t->nkeys; i++)
		if (t->keys[i].ndom > maxd)
			maxd = t->keys[i].ndom;
	dcand *cd = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *cd);
	dsort *ds = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *ds);
	gord *ord = wa_calloc(G->tmp, (size_t)p->ngroups + 1, sizeof *ord);
	G->nc = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->nc);
	if (!cd || !ds || !ord || !G->nc || wgr_setup_classes(G) ||
	    wgr_setup_load(G))
		return -1;

	if (wgr_setup_pairs(G) || wgr_tree_setup(G))
		return -1;

	if (wgr_order_groups(G, ord, maxd))
		return -1;

	int *corder = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof(int));
	if (!corder)
		return -1;
	for (int oi = 0; oi < p->ngroups; oi++) {
		int g = ord[oi].g;
		const wp_group *wg = &p->groups[g];
		if (o && o->cancel && *o->cancel) {
			sol->reason[g] = "cancelled before this group was "
					 "considered";
			continue;
		}
		/* the first group is always tried: a run under a deadline,
		 * one wasp_place on a busy machine above all, makes
		 * progress instead of ending with nothing considered */
		if (oi > 0 && wdl_passed(dl, 0)) {
			sol->reason[g] = wgr_reason_late;
			continue;
		}
		/* capacity at this priority level (preemption): trees and
		 * annotated groups use it too, they only never evict */
		if (wgr_level_capacity(G, g))
			return -1;
		if (wg->pcomp) {
			/* the whole tree, once (doc/formulation.md §9) */
			if (wgr_tree_solve(G, wg->pcomp - 1))
				return -1;
			continue;
		}
		if (wg->tas) {
			/* exclusive, preferred, slices (doc/formulation.md
			 * §9) */
			if (wgr_annotated_solve(G, g))
				return -1;
			continue;
		}
		if (wgr_place_group(G, g, corder, cd, ds))
			return -1;
		if (G->ix_check && G->ix) {
			G->ix_checks++;
			G->ix_bad += !wgr_ix_verify(G);
		}
	}
	/* a clearing with no lower level after it */
	return wgr_led_back(G);
}

int wgr_assign_devices(const wp_problem *p, wp_sol *sol)
{
	if (!p->snap->dra)
		return 0;
	wdr_state *st = wa_alloc(p->arena, sizeof *st);
	if (!st || wdr_state_init(st, p->snap, p->arena))
		return -1;
	/* devices of claims whose holders are all evicted are free
	 * (doc/dra.md; the ILP does not model that yet, greedy does) */
	const ws_dra *d = p->snap->dra;
	unsigned char *ev = wa_calloc(p->arena, (size_t)p->snap->npods + 1, 1);
	if (!ev)
		return -1;
	for (int u = 0; sol->evict && u < p->nunits; u++)
		for (int j = 0; sol->evict[u] && j < p->units[u].npods; j++)
			ev[p->units[u].pods[j]] = 1;
	for (int sp = 0; d->held_beg && sp < d->nspecs; sp++) {
		const wdr_spec *spec = &d->specs[sp];
		int gone = 0;
		for (int i = 0; i < spec->nholders; i++)
			gone += ev[spec->holders[i]];
		for (int k = 0; spec->nholders && gone == spec->nholders &&
				k < spec->nalloc; k++)
			if (st->taken[spec->alloc_dev[k]] > 0)
				st->taken[spec->alloc_dev[k]]--;
	}
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *cl = &p->classes[wg->classes[i]];
			if (!p->snap->dra->pods[cl->pods[0]].n)
				continue;
			WP_X_EACH(sol, cl, sl)
				for (int j = 0; j < wp_x(sol, sl); j++)
					if (!wdr_place(st, cl->pods[0],
						       wg->classes[i],
						       cl->elig[sl - cl->off]))
						return 1;
		}
	}
	sol->dra = st;
	return 0;
}

int wgr_solve(const wp_problem *p, const wasp_options *o, wp_sol *sol,
	      wasp_error *err)
{
	return wgr_solve_ex(p, o, sol, true, err);
}

/* One pass (wgr_solve_ex, or seeded when seed > 0), the plan's texts
 * in ra (NULL: the problem's arena); chk (may be NULL): the domain
 * index recounted after every group (wgr_solve_checked). */
static int solve_pass(const wp_problem *p, const wasp_options *o,
		      wp_sol *sol, bool preempt, uint64_t seed,
		      const int *hint, bool clear, wa_arena *ra, int *chk,
		      wasp_error *err)
{
	gs G = {.p = p, .s = p->snap, .sol = sol, .nres = p->nres,
		.nn = p->nnodes, .threads = 1, .preempt = preempt,
		.pe_only_dom = -1, .seed = seed, .hint = hint,
		.led_clear = clear, .ra = ra ? ra : p->arena};
	if (seed && wgr_seed_flat(seed))
		G.preempt = false;
#ifdef _OPENMP
	G.threads = o && o->threads > 0 ? o->threads : omp_get_max_threads();
#endif
	G.tmp = wa_new();
	G.fr = G.tmp ? wa_calloc(G.tmp, (size_t)p->nnodes * p->nres + 1,
				 sizeof *G.fr)
		     : NULL;
	if (!G.fr) {
		wa_destroy(G.tmp);
		return werr(err, WASP_ENOMEM, "out of memory in greedy");
	}
	memcpy(G.fr, p->free, (size_t)p->nnodes * p->nres * sizeof *G.fr);
	if (p->snap->dra) {
		/* In the problem's arena: the plan reads the allocations. */
		G.dra = wa_alloc(G.ra, sizeof *G.dra);
		G.cpc = wa_calloc(G.tmp, (size_t)p->nclasses + 1,
				  sizeof *G.cpc);
		if (!G.dra || !G.cpc ||
		    wdr_state_init(G.dra, p->snap, G.ra)) {
			wa_destroy(G.tmp);
			return werr(err, WASP_ENOMEM, "out of memory in greedy");
		}
		int maxsig = 0;
		for (int c = 0; c < p->nclasses; c++) {
			const wdr_podc *pc =
			    &p->snap->dra->pods[p->classes[c].pods[0]];
			G.cpc[c] = pc->n ? pc : NULL;
			if (pc->sig > maxsig)
				maxsig = pc->sig;
		}
		G.dr_nk = (p->topo ? p->topo->nkeys : 0) + 1;
		G.dr_nsig = maxsig + 1;
		G.dr_text = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				      sizeof *G.dr_text);
		G.dr_ver = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				     sizeof *G.dr_ver);
		G.dr_fit = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				     sizeof *G.dr_fit);
		G.dr_elig = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				      sizeof *G.dr_elig);
		if (!G.dr_text || !G.dr_ver || !G.dr_fit || !G.dr_elig)
			G.dr_text = NULL; /* no cache: slower, same text */
		sol->dra = G.dra;
		G.dev_local = wgr_dev_local(&G);
		G.dev_nodes = true;
		for (int n = 0; n < p->nnodes && G.dev_nodes; n++)
			G.dev_nodes = wdr_node_exact(p->snap->dra, n);
	}
	G.ix_check = chk != NULL;
	G.par_doms = chk ? 1 : WGR_PAR_DOMS;
	int rc = run(&G, o);
	if (chk) {
		chk[0] = G.ix_checks;
		chk[1] = G.ix_bad;
		chk[2] = G.pc_hits;
		chk[3] = G.pe_flats;
		chk[4] = G.room_checks;
		chk[5] = G.dt_checks;
	}
	wa_destroy(G.tmp);
	/* DRA: a claim placed while earlier alternatives were short may
	 * use one now that failed gangs gave their devices back */
	if (!rc && G.dra && wdr_prefer_earlier(G.dra) < 0)
		rc = -1;
	if (rc)
		return werr(err, WASP_ENOMEM, "out of memory in greedy");
	return WASP_OK;
}

int wgr_solve_in(const wp_problem *p, const wasp_options *o,
		 wp_sol *sol, bool preempt, uint64_t seed,
		 wa_arena *ra, wasp_error *err)
{
	return solve_pass(p, o, sol, preempt, seed, NULL, false, ra, NULL, err);
}

int wgr_solve_checked(const wp_problem *p, const wasp_options *o,
		      wp_sol *sol, int *checks, int *bad, int *hits,
		      wasp_error *err)
{
	int chk[6] = {0, 0, 0, 0, 0, 0};
	int rc = solve_pass(p, o, sol, true, 0, NULL, false, NULL, chk, err);
	*checks = chk[0];
	*bad = chk[1];
	if (hits) {
		hits[0] = chk[2];
		hits[1] = chk[3];
		hits[2] = chk[4];
		hits[3] = chk[5];
	}
	return rc;
}

int wgr_solve_ex(const wp_problem *p, const wasp_options *o, wp_sol *sol,
		 bool preempt, wasp_error *err)
{
	return wgr_solve_in(p, o, sol, preempt, 0, NULL, err);
}

int wgr_solve_seeded(const wp_problem *p, const wasp_options *o,
		     wp_sol *sol, uint64_t seed, wasp_error *err)
{
	return wgr_solve_in(p, o, sol, true, seed, NULL, err);
}

int wgr_solve_led(const wp_problem *p, const wasp_options *o, wp_sol *sol,
		  uint64_t seed, const int *hint, bool clear,
		  wasp_error *err)
{
	/* the hinted domain rides on fixed_dom, on a copy of the groups:
	 * every path of the pass (domains, evictions, trees, reasons)
	 * already holds a group with one to it */
	wa_arena *t = wa_new();
	wp_problem q = *p;
	q.groups = t ? wa_alloc(t, sizeof *q.groups * ((size_t)p->ngroups + 1))
		     : NULL;
	if (!q.groups) {
		wa_destroy(t);
		return werr(err, WASP_ENOMEM, "out of memory in greedy");
	}
	memcpy(q.groups, p->groups, sizeof *q.groups * (size_t)p->ngroups);
	for (int g = 0; g < p->ngroups; g++)
		if (hint[g] >= 0 && q.groups[g].key >= 0 &&
		    q.groups[g].fixed_dom == -1)
			q.groups[g].fixed_dom = hint[g];
	int rc = solve_pass(&q, o, sol, true, seed, hint, clear, NULL, NULL,
			    err);
	wa_destroy(t);
	return rc;
}
