/*
 * solve.c -- one run under one deadline: topology -> reduce -> greedy ->
 * (ILP) -> plan.
 *
 * Greedy always runs first, so an answer exists however the rest goes.  The
 * ILP runs when asked for, or in auto mode when its estimated size fits the
 * remaining budget; its answer replaces greedy's only when it is better in
 * the lexicographic objective.  Every decision is recorded in the summary
 * (mode_reason) so a person can see why the plan looks as it does.
 */
#include "run/run.h"
#include "base/clock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solve/baseline.h"
#include "solve/ilp/agg.h"
#include "solve/greedy/greedy.h"
#include "solve/ilp/ilp.h"
#include "reduce/units.h"
#include "run/rebalance.h"

/* Auto mode: the ILP is tried up to this size and with this much time
 * left; larger models go greedy-only (GLPK's branch and bound would not
 * finish, and building the model alone costs time). */
#define WSV_AUTO_MAX_COLS 20000
#define WSV_AUTO_MAX_NONZEROS 400000L
#define WSV_AUTO_MIN_SECONDS 0.5
/* Seeded greedy restarts (wgr_restarts) before the ILP get at most this
 * share of the time left. */
#define WSV_RESTART_SHARE 0.4

int wsv_problem(const ws_snapshot *s, const wasp_options *o, wa_arena *a,
		wp_problem **out, wasp_error *err)
{
	wtp_topo *t = NULL;
	int rc = wtp_build(s, o->domain_mode, a, &t, err);
	if (rc)
		return rc;
	return wp_reduce(s, t, o, a, out, err);
}

static bool cancelled(const wasp_options *o)
{
	return o->cancel && *o->cancel;
}

static int check_options(const wasp_options *o, wasp_error *err)
{
	if (o->mode < WASP_MODE_AUTO || o->mode > WASP_MODE_BESTFIT)
		return werr(err, WASP_EINVAL, "unknown mode %d", o->mode);
	if (o->domain_mode != WASP_DOMAIN_VALUE &&
	    o->domain_mode != WASP_DOMAIN_PATH)
		return werr(err, WASP_EINVAL, "unknown domain mode %d",
			    o->domain_mode);
	if (!(o->gap >= 0) || o->gap > 1)
		return werr(err, WASP_EINVAL, "gap must be within 0..1");
	if (isnan(o->time_limit_s))
		return werr(err, WASP_EINVAL, "time limit is not a number");
	return WASP_OK;
}

/* Snapshot warnings, then topology warnings, then the solve's own. */
static int merge_warnings(wasp_plan *pl, const ws_snapshot *s,
			  const wtp_topo *t, const char **mine, int nmine)
{
	for (int i = 0; i < s->nwarnings; i++)
		if (wpl_add_warning(pl, s->warnings[i]))
			return -1;
	for (int i = 0; t && i < t->nwarnings; i++)
		if (wpl_add_warning(pl, t->warnings[i]))
			return -1;
	for (int i = 0; i < nmine; i++)
		if (mine[i] && wpl_add_warning(pl, mine[i]))
			return -1;
	return 0;
}

/* A plan that places every pending pod and evicts and moves nothing
 * leaves only packing to improve; wp_packing_bound bounds that tier
 * where the LP cannot (it spreads pods fractionally so that every node
 * looks partly free).  Packing weighs one unit in the objective. */
static void packing_bound(const wp_problem *p, const wp_sol *sol,
			  wilp_stats *st, const char **status)
{
	double b = wp_packing_bound(p, sol);
	if (isnan(b) || isnan(st->objective))
		return;
	wp_value v;
	wp_evaluate(p, sol, &v);
	if (v.packing < 0)
		return;
	double z = st->objective - v.packing + b;
	if (!isnan(st->bound) && st->bound <= z)
		return;
	st->bound = z;
	if (v.packing >= b) {
		st->bound = st->objective;
		st->gap = 0;
		*status = "optimal";
	} else {
		st->gap = (z - st->objective) /
			  (fabs(st->objective) > 1e-9 ? fabs(st->objective)
						      : 1e-9);
	}
}

int wsv_solve(const ws_snapshot *s, const wasp_options *o, wasp_plan **out,
	      wasp_error *err)
{
	double t0 = wb_now();
	double start = o->start_time > 0 ? o->start_time : t0;
	wb_deadline deadline = wdl_after(start, o->time_limit_s);
	int rc = check_options(o, err);
	if (rc)
		return rc;

	wa_arena *a = wa_new();
	if (!a)
		return werr(err, WASP_ENOMEM, "out of memory");
	const char *mine[6] = {0};
	int nmine = 0;
	wasp_plan *pl = NULL;
	wp_problem *p = NULL;

	rc = wsv_problem(s, o, a, &p, err);
	if (rc)
		goto out;
	/* A cancel is honoured after greedy, never before: greedy is fast
	 * and the promise is that an interrupted run still has a plan. */
	double t1 = wb_now();

	wp_sol *gsol = wp_sol_new(p, a);
	if (!gsol) {
		rc = werr(err, WASP_ENOMEM, "out of memory");
		goto out;
	}
	/* The benchmark baselines stand in for greedy and end there. */
	bool baseline = o->mode == WASP_MODE_PODWISE ||
			o->mode == WASP_MODE_BESTFIT;
	rc = baseline ? wbl_solve(p, o->mode, o, gsol, err)
		      : wgr_solve(p, o, gsol, err);
	if (rc)
		goto out;
	/* A second constructive pass in Kueue's BestFit order: neither
	 * order dominates the other (bench/README.md), both take
	 * milliseconds, and the better feasible one becomes the answer and
	 * the ILP's warm start. */
	const char *pass = NULL;
	if (!baseline && !cancelled(o) && p->ngroups && wbl_models(p)) {
		wp_sol *bsol = wp_sol_new(p, a);
		wasp_error be;
		const char *why;
		wp_value vg, vb;
		if (!bsol) {
			rc = werr(err, WASP_ENOMEM, "out of memory");
			goto out;
		}
		if (wbl_solve(p, WASP_MODE_BESTFIT, o, bsol, &be) == 0 &&
		    wp_sol_feasible(p, bsol, &why) == 0) {
			wp_evaluate(p, gsol, &vg);
			wp_evaluate(p, bsol, &vb);
			if (wp_value_cmp(&vb, &vg) > 0) {
				wp_sol_copy(p, gsol, bsol);
				pass = "the BestFit-order pass beat the "
				       "tightest-domain pass";
			}
		}
	}
	/* Then, unless only greedy was asked for, restarts in perturbed
	 * largest-first orders: tighter packings, and a better first
	 * incumbent for the ILP (doc/formulation.md §11). */
	if (!baseline && !cancelled(o) && p->ngroups &&
	    o->mode != WASP_MODE_GREEDY) {
		double now = wb_now();
		wb_deadline until =
		    wdl_is_none(deadline)
			? deadline
			: wdl_at(now + WSV_RESTART_SHARE * (deadline.at - now));
		int ran, better;
		rc = wgr_restarts(p, o, WGR_RESTARTS, until, gsol, &ran,
				  &better, err);
		if (rc)
			goto out;
		if (better) {
			const char *r = wa_printf(
			    a, "%d of %d seeded greedy passes improved the "
			       "plan", better, ran);
			pass = pass && r ? wa_printf(a, "%s; %s", pass, r) : r;
		}
	}
	/* Every pod placed, nothing evicted, packing at its bound: the
	 * plan is optimal with no model (doc/formulation.md §11). */
	bool gproven = !baseline && p->ngroups &&
		       o->mode != WASP_MODE_GREEDY &&
		       wp_packing_proven(p, gsol);
	double t2 = wb_now();

	/* Decide on the ILP. */
	const wp_sol *best = gsol;
	const char *mode = "greedy", *status = "greedy", *reason = NULL;
	bool try_ilp = false, force_parts = false;
	int rows = 0, cols = 0;
	long nz = 0;
	if (baseline) {
		mode = o->mode == WASP_MODE_PODWISE ? "podwise" : "bestfit";
		status = p->ngroups ? "baseline" : "empty";
		reason = o->mode == WASP_MODE_PODWISE
			     ? "baseline: podwise requested (no gangs or "
			       "topology; for benchmarks)"
			     : "baseline: bestfit requested (Kueue TAS "
			       "BestFit; for benchmarks)";
	} else if (p->ngroups == 0) {
		status = "empty";
		reason = o->mode == WASP_MODE_GREEDY
			     ? "greedy: requested"
			     : "nothing pending; greedy only";
	} else if (cancelled(o)) {
		reason = "cancelled after greedy; greedy only";
	} else if (o->mode == WASP_MODE_GREEDY) {
		reason = "greedy: requested";
	} else if (o->mode == WASP_MODE_ILP) {
		try_ilp = true;
		reason = "ilp: requested";
		/* a proven plan needs no large model built */
		if (gproven)
			wilp_estimate(p, &rows, &cols, &nz);
		if (gproven &&
		    (cols > WSV_AUTO_MAX_COLS || nz > WSV_AUTO_MAX_NONZEROS)) {
			try_ilp = false;
			reason = wa_printf(a, "ilp: requested; the model is "
					      "large (%d columns) and not "
					      "needed",
					   cols);
		}
	} else {
		wilp_estimate(p, &rows, &cols, &nz);
		double left = wdl_left(deadline, 0);
		bool big = cols > WSV_AUTO_MAX_COLS ||
			   nz > WSV_AUTO_MAX_NONZEROS;
		bool proven = big && gproven;
		int pcols = big && !proven && !o->node_model &&
				    wag_applies(p, NULL)
				? wag_estimate(p)
				: -1;
		if (proven)
			reason = wa_printf(a, "auto: the model is large (%d "
					      "columns) and not needed",
					   cols);
		else if (big && pcols >= 0 && pcols <= WSV_AUTO_MAX_COLS &&
		    left >= WSV_AUTO_MIN_SECONDS) {
			/* the model over parts fits (solved below) */
			try_ilp = force_parts = true;
			reason = wa_printf(a, "auto: node model too large (%d "
					      "columns), the one over parts "
					      "has about %d",
					   cols, pcols);
		} else if (big)
			reason = wa_printf(a, "auto: model too large for the "
					      "budget (%d columns and %ld "
					      "nonzeros); greedy only",
					   cols, nz);
		else if (left < WSV_AUTO_MIN_SECONDS)
			reason = wa_printf(a, "auto: %.2f s left after "
					      "greedy; greedy only",
					   left > 0 ? left : 0.0);
		else {
			try_ilp = true;
			reason = wa_printf(a, "auto: model has %d columns; ILP "
					      "within budget",
					   cols);
		}
	}

	wilp_stats st;
	memset(&st, 0, sizeof st);
	st.objective = st.bound = st.gap = st.top_gap = NAN;
	bool ilp_ran = false;
	if (try_ilp) {
		wp_sol *isol = wp_sol_new(p, a);
		if (!isol) {
			rc = werr(err, WASP_ENOMEM, "out of memory");
			goto out;
		}
		wasp_error ie;
		werr_clear(&ie);
		/* over parts when the node model's LP alone would take
		 * most of the time (agg.h) */
		bool parts = force_parts ||
			     (!o->node_model &&
			      wag_prefer(p, wdl_left(deadline, 0), NULL));
		wag_info wi;
		memset(&wi, 0, sizeof wi);
		if (parts) {
			rc = wag_solve(p, o, deadline, gsol, isol, &st, &wi,
				       &ie);
			if (rc == WASP_OK && wi.declined && !force_parts) {
				/* ilp mode: the node model after all */
				parts = false;
				rc = wilp_solve(p, o, deadline, gsol, isol, &st,
						&ie);
			} else if (rc == WASP_OK && wi.declined) {
				reason = wa_printf(a, "%s; the model over parts "
						      "was declined (%d parts for "
						      "%d nodes, or tiers too wide "
						      "for one solve); greedy only",
						   reason, wi.parts, p->nnodes);
			}
		}
		if (parts) {
			if (!force_parts)
				reason = wa_printf(a, "%s; over parts of "
						      "interchangeable nodes (the "
						      "node model is too large "
						      "for the time)",
						   reason ? reason : "ilp");
		} else if (!wi.declined) {
			rc = wilp_solve(p, o, deadline, gsol, isol, &st, &ie);
		}
		if (rc == WASP_ESOLVER || rc == WASP_ECANCELED) {
			/* The greedy answer stands. */
			const char *what = rc == WASP_ESOLVER
					       ? "ILP unavailable"
					       : "ILP cancelled";
			reason = wa_printf(a, "%s; %s (%s); greedy only",
					   reason ? reason : "ilp", what,
					   ie.msg);
			if (o->mode == WASP_MODE_ILP)
				mine[nmine++] = wa_printf(
				    a, "ILP mode requested but the ILP did not "
				       "run: %s; the plan is greedy's", ie.msg);
			rc = WASP_OK;
		} else if (rc) {
			if (err)
				*err = ie;
			goto out;
		} else {
			ilp_ran = true;
			mode = "ilp";
			status = st.status ? st.status : "feasible";
			/* The ILP keeps the warm start when it finds nothing
			 * better; a zero gap then proves greedy optimal. */
			if (!strcmp(status, "greedy") && st.gap == 0 &&
			    isnan(st.top_gap))
				status = "optimal";
			if (!isnan(st.top_gap))
				reason = wa_printf(a, "%s; tiers solved in "
						      "blocks: the gap is the "
						      "highest block's",
						   reason ? reason : "ilp");
			if (!strcmp(status, "none"))
				status = "greedy";
			wp_value gv, iv;
			wp_evaluate(p, gsol, &gv);
			wp_evaluate(p, isol, &iv);
			int c = wp_value_cmp(&iv, &gv);
			/* DRA: when the ILP modelled every claim exactly it
			 * allocated its answer itself (isol->dra); else the
			 * allocation is made here, pod by pod, and an answer
			 * it cannot complete is not used (a safety net that
			 * tests/check_dra.c shows unused on exact models). */
			bool relaxed = c > 0 && p->snap->dra && !isol->dra;
			int dv = relaxed ? wgr_assign_devices(p, isol) : 0;
			if (dv < 0) {
				rc = werr(err, WASP_ENOMEM, "out of memory");
				goto out;
			}
			if (dv > 0) {
				c = 0;
				status = "greedy";
				mine[nmine++] = "the ILP answer could not be given "
						"devices claim by claim; kept "
						"greedy's";
			}
			if (relaxed && dv == 0) {
				mine[nmine++] = "some device claims are relaxed "
						"in the ILP (doc/dra.md); its "
						"answer got devices claim by "
						"claim";
				/* the alternatives used count now */
				wp_evaluate(p, isol, &iv);
				c = wp_value_cmp(&iv, &gv);
			}
			if (c >= 0 && isnan(st.top_gap))
				packing_bound(p, c > 0 ? isol : gsol, &st,
					      &status);
			if (c > 0)
				best = isol;
			else if (c < 0) {
				status = "greedy";
				mine[nmine++] = "the ILP answer was worse than "
						"greedy's; kept greedy's";
			}
		}
	}
	/* greedy-only in auto mode (the model too large), or the ILP kept
	 * the restarts' plan without proving it: the packing bound may */
	if (!baseline && o->mode != WASP_MODE_GREEDY &&
	    !strcmp(status, "greedy") &&
	    (best == gsol ? gproven : wp_packing_proven(p, best))) {
		status = "optimal";
		reason = wa_printf(a, "%s; every pending pod is placed, nothing "
				      "evicted, and the packing meets its "
				      "bound: optimal",
				   reason ? reason : mode);
		if (ilp_ran && !isnan(st.objective)) {
			st.bound = st.objective;
			st.gap = 0;
		}
	}
	double t3 = wb_now();

	rc = wpl_from_sol(p, best, &pl, err);
	if (rc)
		goto out;
	if (o->rebalance) {
		rc = wrb_rebalance(s, p->topo, o, pl, err);
		if (rc)
			goto out;
	}
	wa_arena *pa = pl->arena;
	wpl_summary *sum = &pl->sum;
	sum->mode = mode;
	sum->status = status;
	if (reason && pass)
		reason = wa_printf(a, "%s; %s", reason, pass);
	if (reason && !(sum->mode_reason = wa_strdup(pa, reason)))
		goto nomem;
	sum->domain_mode = o->domain_mode == WASP_DOMAIN_PATH ? "path"
							       : "value";
	if (o->value_resource &&
	    !(sum->value = wa_strdup(pa, o->value_resource)))
		goto nomem;
	if (ilp_ran) {
		sum->objective = st.objective;
		sum->bound = st.bound;
		sum->gap = st.gap;
		sum->rows = st.rows;
		sum->cols = st.cols;
		sum->ints = st.ints;
		sum->nonzeros = st.nonzeros;
		/* Strings from the ILP module may live in its arena. */
		if (!(sum->status = wa_strdup(pa, status)))
			goto nomem;
	} else if (!strcmp(status, "optimal")) {
		sum->gap = 0; /* proven by the packing bound, no model built */
	}
	wp_evaluate(p, best, &sum->tiers);
	sum->tiers.moves = pl->nmove; /* the post-pass's too */
	if (merge_warnings(pl, s, p->topo, mine, nmine))
		goto nomem;

	double t4 = wb_now();
	sum->t_load = s->t_load;
	sum->t_reduce = t1 - t0;
	sum->t_greedy = t2 - t1;
	sum->t_ilp = try_ilp ? t3 - t2 : 0;
	sum->t_total = o->start_time > 0 ? t4 - o->start_time
					 : s->t_load + (t4 - t0);
	*out = pl;
	pl = NULL;
	rc = WASP_OK;
	goto out;
nomem:
	rc = werr(err, WASP_ENOMEM, "out of memory");
out:
	if (pl)
		wpl_free(pl);
	wa_destroy(a);
	return rc;
}
