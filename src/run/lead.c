/*
 * lead.c -- the greedy passes the bound's whole-gang MIP leads, and the
 * plan led again (doc/formulation.md §12: "The MIP's answer, cleared
 * first", "The plan led again").
 *
 * Before the search, greedy passes follow the MIP's answers (each gang
 * of the top tier held to the MIP's domain), and one more is led with
 * the top level's lower pods cleared first and topped up, kept beside
 * the search (R->cleared).  After the last top-up, the plan's own
 * top-level gangs lead cleared passes in the domains they hold.
 */
#include "run/run_int.h"

#include <string.h>

#include "solve/topup.h"
#include "solve/greedy/greedy.h"

/* The cleared pass's top-up (cleared_pass) gets at most this share of
 * what is left when it starts: 2-4 s of 60 at 2,048 nodes; at 10,000
 * this cuts it. */
#define WSV_CLEARED_SHARE 0.1
/* The search's plan led again, cleared (wrn_relead): at most this many
 * times, each from the last where it gained (fragmented-2048 seed 7:
 * 3,287 -> 3,290 -> 3,293 top-priority pods; a third time there ended
 * at 3,081, and is not kept). */
#define WSV_RELEAD_ROUNDS 3
/* ... and the search and the last top-up keep back this many times the
 * seconds the cleared pass took for it (its two leads; fewer where
 * that is more than this share of the time left as the search starts,
 * none at 10,000 nodes).  Fragmented-2048 seed 7: 2.9 s were left, the
 * first lead took 1.5, and the second, which gained there, did not
 * start. */
#define WSV_RELEAD_KEEP 2
#define WSV_RELEAD_SHARE 0.1

/* The last top-up's rounds on plan c, without its record (the cleared
 * pass and wrn_relead): until one adds nothing or dl.  -1 NOMEM. */
static int topup_rounds(const wp_problem *p, wp_sol *c, wb_deadline dl)
{
	for (int r = 0; r < WSV_TOPUP_ROUNDS && !wdl_passed(dl, 0); r++) {
		wtu_stats st;
		if (wtu_topup(p, c, dl, WTU_PACK_YIELD, &st))
			return -1;
		if (st.pods == 0)
			break;
	}
	return 0;
}

/* The MIP's answer the cleared pass follows: its third (the LP's with
 * the pieces rows, rounded and filled) where it gave one, else its
 * first; NULL without the MIP. */
static const int *cleared_hint(const run *R)
{
	const wp_problem *p = R->p;
	if (!R->hint)
		return NULL;
	const int *hint = R->hint + 2 * (size_t)p->ngroups;
	for (int g = 0; g < p->ngroups; g++)
		if (hint[g] >= 0)
			return hint;
	return R->hint;
}

/* The cleared pass (doc/formulation.md §12, "The MIP's answer, cleared
 * first"): the MIP's third answer (its LP with the pieces rows; else the
 * first) leads a pass that evicts the top level's lower units before
 * placing it (wgr_solve_led, clear), and the last top-up's rounds then
 * pack and fill it, within WSV_CLEARED_SHARE of the time left.  Kept in
 * R->cleared when feasible; the end of the search takes it where it is
 * better.  Not the search's start: from it the search ended lower
 * (fragmented-2048 seeds 1 and 7: 3,526 and 3,255 top-priority pods
 * against 3,562 and 3,290). */
static int cleared_pass(run *R, wasp_error *err)
{
	const wp_problem *p = R->p;
	const int *hint = cleared_hint(R);
	double t0 = wb_now();
	wp_sol *c = wp_sol_new(p, R->a);
	if (!c)
		return wrn_nomem(err);
	wasp_error e;
	const char *why;
	int rc = wgr_solve_led(p, R->o, c, 0, hint, true, &e);
	if (rc == WASP_ENOMEM)
		return wrn_nomem(err);
	if (rc || wp_sol_feasible(p, c, &why))
		return WASP_OK;
	wb_deadline dl = wrn_share_deadline(R, wrn_fin_s(R),
					    WSV_CLEARED_SHARE,
					    wdl_left(R->deadline, 0));
	if (topup_rounds(p, c, dl))
		return wrn_nomem(err);
	if (!wp_sol_feasible(p, c, &why))
		R->cleared = c;
	R->cleared_s = wb_now() - t0;
	return WASP_OK;
}

/* Greedy passes with the top tier's gangs in the domains of the bound's
 * whole-gang MIP (doc/formulation.md §12): those gangs get the MIP's
 * domain and lead their level, the rest follow as greedy finds room;
 * for each of its two answers, in wgr_solve's order and smallest pods
 * first.  The best is kept when feasible and better than the plan; the
 * search then starts from it. */
int wrn_mip_pass(run *R, wasp_error *err)
{
	static const uint64_t seeds[] = {0, WGR_SEED_SMALL};
	const wp_problem *p = R->p;
	if (!R->hint || wrn_cancelled(R->o) || wdl_passed(R->deadline, 0))
		return WASP_OK;
	bool beat = false;
	size_t ns = sizeof seeds / sizeof *seeds;
	for (size_t i = 0; i < 2 * ns; i++) {
		const int *hint = R->hint + (i / ns) * (size_t)p->ngroups;
		if (i == ns && !memcmp(hint, R->hint,
				       sizeof *hint * (size_t)p->ngroups))
			break; /* the second answer is the first */
		wasp_error e;
		const char *why;
		if (wdl_passed(R->deadline, 0))
			break;
		wa_arena *ta; /* a pass fills a new one */
		wp_sol *s = wrn_pass_sol(p, &ta);
		if (!s)
			return wrn_nomem(err);
		wp_value vg, vs;
		if (!wgr_solve_led(p, R->o, s, seeds[i % ns], hint, false,
				   &e) &&
		    !wp_sol_feasible(p, s, &why)) {
			wp_evaluate(p, R->gsol, &vg);
			wp_evaluate(p, s, &vs);
			if (wp_value_cmp(&vs, &vg) > 0) {
				wp_sol_copy(p, R->gsol, s);
				beat = true;
			}
		}
		wa_destroy(ta);
	}
	if (beat)
		R->pass = wrn_also(R->a, R->pass,
				   wa_printf(R->a, "the pass with %d gangs in "
						   "the domains of the bound's "
						   "whole-gang MIP beat it",
					     R->cb.mip_hinted));
	if (R->try_lns && wtu_applies(p) && !wrn_cancelled(R->o) &&
	    !wdl_passed(R->deadline, 0))
		return cleared_pass(R, err);
	return WASP_OK;
}

/* One cleared pass led by hint, the top-up's rounds after it (until
 * dl); it replaces the plan (into t) where better.  -1 NOMEM, else
 * whether it did. */
static int lead_again(run *R, wp_sol *t, const int *hint, wb_deadline dl)
{
	const wp_problem *p = R->p;
	wa_arena *ta;
	wp_sol *c = wrn_pass_sol(p, &ta);
	if (!c)
		return -1;
	wasp_error e;
	const char *why;
	int rc = wgr_solve_led(p, R->o, c, 0, hint, true, &e), won = 0;
	if (rc == WASP_ENOMEM || (!rc && !wp_sol_feasible(p, c, &why) &&
				  topup_rounds(p, c, dl))) {
		wa_destroy(ta);
		return -1;
	}
	if (!rc && !wp_sol_feasible(p, c, &why) && wrn_beats(R, c)) {
		wp_sol_copy(p, t, c);
		R->best = t;
		won = 1;
	}
	wa_destroy(ta);
	return won;
}

/* (run_int.h) Two leads' time, else one's, else none, within
 * WSV_RELEAD_SHARE of left. */
double wrn_relead_keep(const run *R, double left)
{
	for (int k = WSV_RELEAD_KEEP; k > 0; k--)
		if (k * R->cleared_s <= WSV_RELEAD_SHARE * left)
			return k * R->cleared_s;
	return 0;
}

/* The plan led again, cleared (doc/formulation.md §12, "The plan led
 * again"): two cleared passes led by the plan's own top-level gangs'
 * domains, the second with the MIP's domains for the gangs the plan
 * leaves waiting too, each with the top-up's rounds after it; the best
 * replaces the plan (into t) where better, and the round runs again from
 * it while it gains, at most WSV_RELEAD_ROUNDS times.  The search and the
 * top-ups move gangs one domain at a time; led again, the level is
 * re-packed whole in the domains they chose.  A pass starts only while
 * the time the cleared pass took is still left before the plan must be
 * made. */
int wrn_relead(run *R, wp_sol *t, wasp_error *err)
{
	const wp_problem *p = R->p;
	if (R->cleared_s <= 0)
		return WASP_OK;
	size_t ng = (size_t)p->ngroups + 1;
	int *hint = wa_calloc(R->a, ng, sizeof *hint);
	int *more = wa_calloc(R->a, ng, sizeof *more);
	if (!hint || !more)
		return wrn_nomem(err);
	const int *mip = cleared_hint(R);
	wb_deadline dl = wdl_sooner(R->deadline, wrn_fin_s(R));
	int won = 0;
	for (int r = 0; r < WSV_RELEAD_ROUNDS && !wrn_cancelled(R->o); r++) {
		/* both leads from the round's plan */
		int n = wgr_led_hint(p, R->best, NULL, hint);
		int m = mip ? wgr_led_hint(p, R->best, mip, more) : 0;
		int gained = 0;
		if (n && wdl_left(dl, 0) >= R->cleared_s)
			gained = lead_again(R, t, hint, dl);
		if (gained >= 0 && m > n && wdl_left(dl, 0) >= R->cleared_s) {
			int g2 = lead_again(R, t, more, dl);
			gained = g2 < 0 ? -1 : gained || g2;
		}
		if (gained < 0)
			return wrn_nomem(err);
		if (!gained)
			break;
		won++;
	}
	if (!won)
		return WASP_OK;
	return wrn_took(R,
			wa_printf(R->a, "then the plan led again by its own "
					"top-level gangs' domains (and the "
					"MIP's for those it left waiting), "
					"with the lower pods cleared first "
					"and topped up, beat it (%d round%s)",
				  won, won == 1 ? "" : "s"),
			err);
}

