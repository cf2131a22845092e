/*
 * run.c -- one run under one deadline: topology -> reduce -> construct
 * (greedy) -> decide -> improve (ILP) -> finish (plan).
 *
 * Greedy always runs first, so an answer exists however the rest goes.  The
 * ILP runs when asked for, or in auto mode when its estimated size fits the
 * remaining budget; its answer replaces greedy's only when it is better in
 * the lexicographic objective.  Every decision is recorded in the summary
 * (mode_reason) so a person can see why the plan looks as it does; the mode
 * decision and its reason are made in one place, decide().
 */
#include "run/run_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solve/baseline.h"
#include "solve/topup.h"
#include "solve/ilp/agg.h"
#include "solve/greedy/greedy.h"
#include "solve/ilp/ilp.h"
#include "reduce/units.h"
#include "run/rebalance.h"
#include "run/watch.h"
#include "model/version.h"

/* Auto mode: the ILP is tried up to this size and with this much time
 * left; larger models go greedy-only (GLPK's branch and bound would not
 * finish, and building the model alone costs time). */
#define WSV_AUTO_MAX_COLS 20000
#define WSV_AUTO_MAX_NONZEROS 400000L
#define WSV_AUTO_MIN_SECONDS 0.5
/* Seeded greedy restarts (wgr_restarts) before the ILP get at most this
 * share of the time left. */
#define WSV_RESTART_SHARE 0.4
/* Time kept for what follows the run (wsv_solve): this much of the
 * load's time, at most this share of the limit. */
#define WSV_FINISH_PER_LOAD 0.25
#define WSV_FINISH_MAX_SHARE 0.3
#define WSV_RESTART_SHARE_LNS 0.1
/* ... and at most this many passes there: their one improvement comes in
 * the first few, and the search makes better use of the rest
 * (fragmented-2048 seed 1: 1,025 passes, 11 s, one improvement; with
 * 64 the search's time took the plan from 3,563 top-priority pods to
 * 3,564 in two runs of three; seeds 2 and 7, gpu seed 7, mixed seed 1,
 * nvlink seed 7: the same). */
#define WSV_RESTARTS_LNS 64
/* Auto mode: the model over parts is not even estimated above this many
 * (class, node) slots (its estimate builds the parts: seconds at 10^7
 * slots); the neighbourhood search takes over (doc/formulation.md
 * §12). */
#define WSV_AUTO_MAX_PART_SLOTS 4000000L
/* Building the node model, loading it into GLPK and setting up its
 * first LP cost about this much per nonzero on a loaded machine (2,048
 * nodes, 5.4 * 10^6 nonzeros: 2.5-4 s at a load of 5-8); none of it can
 * stop halfway, so the node model is not started with less time left. */
#define WSV_NODE_MODEL_S_PER_NZ 1.5e-6
/* The same for the model over parts, per (class, node) slot: 2.4-3 s at
 * 2 * 10^7 slots (10,000 nodes) under a load of 9-10. */
#define WSV_PARTS_S_PER_SLOT 2e-7
/* The neighbourhood search stops this long before the deadline: making
 * the plan from its answer takes time that grows with the slots (3 s at
 * 5 * 10^7 slots under load). */
#define WSV_LNS_FINISH_S 0.3
#define WSV_LNS_FINISH_S_PER_SLOT 5e-8
/* and the top-up after it (solve/topup.h): at least this long, or this
 * share of what is left when the search starts (clearing nodes took
 * 1 s at 2,048 nodes and 5 s at 10,000 on the fragmented family) */
#define WSV_TOPUP_S 0.1
#define WSV_TOPUP_S_PER_SLOT 1e-8
#define WSV_TOPUP_SHARE 0.12
/* The top-up before the search gets at most this share of what is left
 * (it clears from the constructive plan, the larger job: 7 s at 10,000
 * nodes on the fragmented family, the one after the search 3-4 s). */
#define WSV_PRE_TOPUP_SHARE 0.2
/* The search again after the plan led again (search_again): where at
 * least this many seconds are left, the top-up after it keeping this
 * share of them (fragmented-2048 seed 1: 2.0 s were left; one
 * neighbourhood improved the plan, 3,564 -> 3,565 top-priority pods;
 * seeds 2 and 7 had 5.1 and 2.7 s and gained nothing). */
#define WSV_AGAIN_MIN_S 1.5
#define WSV_AGAIN_TOPUP_SHARE 0.25
int wsv_problem(const ws_snapshot *s, const wasp_options *o, wa_arena *a,
		wp_problem **out, wasp_error *err)
{
	wtp_topo *t = NULL;
	int rc = wtp_get(s, o->domain_mode, a, &t, err);
	if (rc)
		return rc;
	return wp_reduce(s, t, o, a, out, err);
}

bool wrn_cancelled(const wasp_options *o)
{
	return o->cancel && *o->cancel;
}

/* Option ranges are checked once, at the public entry points
 * (wasp_options_check, base/options.c); what is left here depends on
 * the machine: --solver cbc asked for by name needs the program, and
 * missing it is an error, not a quiet greedy plan. */
static int check_solver(const wasp_options *o, wasp_error *err)
{
	if (o->solver == WASP_SOLVER_CBC && !wilp_cbc_available())
		return werr(err, WASP_ESOLVER, "cbc is not installed (no "
					       "'cbc' on PATH)");
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

/* wasp_options.progress at the start of a phase (doc/library.md,
 * "Progress"); the ILP reports its search itself (driver.c). */
static void phase(const run *R, const char *name)
{
	const wasp_options *o = R->o;
	if (!o->progress)
		return;
	double now = wb_now();
	wasp_progress pr = {
	    .phase = name,
	    .elapsed_s = now - (o->start_time > 0 ? o->start_time : R->t0),
	    .left_s = wdl_is_none(R->deadline) ? NAN
						: wdl_left(R->deadline, 0),
	    .incumbent = NAN,
	    .bound = NAN};
	o->progress(&pr, o->progress_ctx);
}

int wrn_nomem(wasp_error *err)
{
	return werr(err, WASP_ENOMEM, "out of memory");
}

/* (run_int.h) */
const char *wrn_also(wa_arena *a, const char *first, const char *then)
{
	return first && then ? wa_printf(a, "%s; %s", first, then) : then;
}

/* (run_int.h) */
bool wrn_beats(const run *R, const wp_sol *s)
{
	wp_value sv, bv;
	wp_evaluate(R->p, s, &sv);
	wp_evaluate(R->p, R->best, &bv);
	return wp_value_cmp(&sv, &bv) > 0;
}

/* (run_int.h) */
int wrn_took(run *R, const char *what, wasp_error *err)
{
	R->mode = "lns";
	R->status = "feasible";
	R->reason = wrn_also(R->a, R->reason, what);
	return R->reason ? WASP_OK : wrn_nomem(err);
}

/* A solution for a pass that may be thrown away, in an arena of its
 * own (*ta, destroyed after the pass): its page table alone is one
 * pointer per 256 slots (37 MB at 50,000 nodes), and the run's arena
 * would hold it and its pages to the end.  NULL (and *ta NULL): out
 * of memory. */
wp_sol *wrn_pass_sol(const wp_problem *p, wa_arena **ta)
{
	*ta = wa_new();
	wp_sol *s = *ta ? wp_sol_new(p, *ta) : NULL;
	if (!s) {
		wa_destroy(*ta);
		*ta = NULL;
	}
	return s;
}

/* A second constructive pass in Kueue's BestFit order: neither order
 * dominates the other (bench/README.md), both take milliseconds, and the
 * better feasible one becomes the answer and the ILP's warm start. */
static int bestfit_pass(run *R, wasp_error *err)
{
	const wp_problem *p = R->p;
	wa_arena *ta;
	wp_sol *bsol = wrn_pass_sol(p, &ta);
	wasp_error be;
	const char *why;
	wp_value vg, vb;
	if (!bsol)
		return wrn_nomem(err);
	if (wbl_solve(p, WASP_MODE_BESTFIT, R->o, bsol, &be) == 0 &&
	    wp_sol_feasible(p, bsol, &why) == 0) {
		wp_evaluate(p, R->gsol, &vg);
		wp_evaluate(p, bsol, &vb);
		if (wp_value_cmp(&vb, &vg) > 0) {
			wp_sol_copy(p, R->gsol, bsol);
			R->pass = wrn_also(R->a, R->pass,
					   "the BestFit-order pass beat the "
					   "tightest-domain pass");
		}
	}
	wa_destroy(ta);
	return WASP_OK;
}

/* Auto mode, the node model big: the columns of the model over parts
 * (wag_estimate), where decide_auto asks (no --node-model, the slots
 * within WSV_AUTO_MAX_PART_SLOTS), else -1.  Estimated once: the
 * restarts ask first. */
static int parts_cols(run *R)
{
	const wp_problem *p = R->p;
	if (!R->pcols_known) {
		R->pcols = !R->o->node_model &&
				   p->nx <= WSV_AUTO_MAX_PART_SLOTS &&
				   wag_applies(p, NULL)
			       ? wag_estimate(p)
			       : -1;
		R->pcols_known = true;
	}
	return R->pcols;
}

/* Will auto mode hand the run to the neighbourhood search as decide_auto
 * does for a large node model (the model over parts does not fit)? */
static bool search_next(run *R)
{
	int rows, cols;
	long nz;
	if (R->o->mode != WASP_MODE_AUTO)
		return false;
	wilp_estimate(R->p, &rows, &cols, &nz);
	if (cols <= WSV_AUTO_MAX_COLS && nz <= WSV_AUTO_MAX_NONZEROS)
		return false;
	int pcols = parts_cols(R);
	return pcols < 0 || pcols > WSV_AUTO_MAX_COLS;
}

/* Restarts in perturbed largest-first orders: tighter packings, and a
 * better first incumbent for the ILP (doc/formulation.md §11).  They get
 * WSV_RESTART_SHARE of the time left. */
static int restarts(run *R, wasp_error *err)
{
	double now = wb_now();
	/* where the neighbourhood search will have the rest (no model
	 * fits), it makes better use of the time */
	bool lns = R->o->mode != WASP_MODE_GREEDY &&
		   (R->p->nx > WSV_AUTO_MAX_PART_SLOTS || search_next(R)) &&
		   wilp_lns_applies(R->p, NULL);
	double share = lns ? WSV_RESTART_SHARE_LNS : WSV_RESTART_SHARE;
	/* a work budget counts passes; the clock only caps the whole run
	 * (doc/library.md, "Determinism") */
	long work = R->o->work_limit;
	int most = lns ? WSV_RESTARTS_LNS : WGR_RESTARTS;
	int npass = work > 0 && work < most ? (int)work : most;
	wb_deadline until =
	    wdl_is_none(R->deadline) || work > 0
		? R->deadline
		: wdl_at(now + share * (R->deadline.at - now));
	/* a pass costs about what the first greedy did and cannot be cut:
	 * none is started that would not end in time (a work budget
	 * counts passes instead: no clock there) */
	if (work <= 0 && !wdl_is_none(until) && until.at - now < R->tgreedy)
		return WASP_OK;
	int ran, better;
	int rc = wgr_restarts(R->p, R->o, npass, until, R->gsol, &ran,
			      &better, err);
	if (rc)
		return rc;
	if (work > 0 && wdl_passed(R->deadline, 0) &&
	    R->nmine < (int)(sizeof R->mine / sizeof *R->mine))
		R->mine[R->nmine++] = "the time limit cut the seeded greedy "
				      "passes before the work limit: the plan "
				      "may differ from run to run";
	if (better)
		R->pass = wrn_also(R->a, R->pass,
				   wa_printf(R->a, "%d of %d seeded greedy "
						   "passes improved the plan",
					     better, ran));
	return WASP_OK;
}

/* Step 1: an answer, whatever happens next.  A cancel is honoured after
 * greedy, never before: greedy is fast and the promise is that an
 * interrupted run still has a plan. */
static int construct(run *R, wasp_error *err)
{
	const wasp_options *o = R->o;
	const wp_problem *p = R->p;
	R->gsol = wp_sol_new(p, R->a);
	if (!R->gsol)
		return wrn_nomem(err);
	/* The benchmark baselines stand in for greedy and end there. */
	R->baseline = o->mode == WASP_MODE_PODWISE ||
		      o->mode == WASP_MODE_BESTFIT;
	double tg = wb_now();
	int rc = R->baseline ? wbl_solve(p, o->mode, o, R->gsol, err)
			     : wgr_solve(p, o, R->gsol, err);
	R->tgreedy = wb_now() - tg;
	if (rc)
		return rc;
	int late = R->baseline ? 0 : wgr_count_late(p, R->gsol);
	if (late)
		R->pass = wa_printf(R->a, "the time limit ran out in greedy: "
					  "%d of %d groups were not "
					  "considered and wait",
				    late, p->ngroups);
	bool some = !R->baseline && p->ngroups;
	bool more = some && !wdl_passed(R->deadline, 0);
	/* Every pod placed, nothing evicted, packing at its bound: the
	 * plan is optimal with no model (doc/formulation.md §11).  Nothing
	 * can beat it then, and the passes below replace it only with a
	 * strictly better one: they are skipped, the plan is the same. */
	bool proven = some && wp_packing_proven(p, R->gsol);
	if (more && !proven && !wrn_cancelled(o) && wbl_models(p) &&
	    (rc = bestfit_pass(R, err)))
		return rc;
	if (more && !proven && !wrn_cancelled(o) &&
	    o->mode != WASP_MODE_GREEDY && (rc = restarts(R, err)))
		return rc;
	R->gproven = some && o->mode != WASP_MODE_GREEDY &&
		     (proven || wp_packing_proven(p, R->gsol));
	R->best = R->gsol;
	return WASP_OK;
}

/* Auto mode: the ILP if its model fits the size limits and the time
 * left (the neighbourhood search instead above WSV_AUTO_LNS_COLS), the
 * model over parts if only that one fits, else the neighbourhood search
 * or greedy. */
static void decide_auto(run *R)
{
	const wp_problem *p = R->p;
	wa_arena *a = R->a;
	int cols = R->cols;
	long nz = R->nz;
	double left = wdl_left(R->deadline, 0);
	bool big = cols > WSV_AUTO_MAX_COLS || nz > WSV_AUTO_MAX_NONZEROS;
	/* a plan the packing bound proves needs no large model and no
	 * search */
	bool proven = (big || cols > WSV_AUTO_LNS_COLS) && R->gproven;
	int pcols = big && !proven ? parts_cols(R) : -1;
	if (proven)
		R->reason = wa_printf(a, "auto: the model is large (%d "
					 "columns) and not needed",
				      cols);
	else if (big && pcols >= 0 && pcols <= WSV_AUTO_MAX_COLS &&
		 left >= WSV_AUTO_MIN_SECONDS) {
		/* the model over parts fits (solved in improve) */
		R->try_ilp = R->force_parts = true;
		R->reason = wa_printf(a, "auto: node model too large (%d "
					 "columns), the one over parts "
					 "has about %d",
				      cols, pcols);
	} else if (big && left >= WSV_AUTO_MIN_SECONDS &&
		   wilp_lns_applies(p, NULL)) {
		R->try_lns = true;
		R->reason = wa_printf(a, "auto: model too large for the "
					 "budget (%d columns and %ld "
					 "nonzeros); neighbourhood search",
				      cols, nz);
	} else if (big)
		R->reason = wa_printf(a, "auto: model too large for the "
					 "budget (%d columns and %ld "
					 "nonzeros); greedy only",
				      cols, nz);
	else if (left < WSV_AUTO_MIN_SECONDS && R->o->work_limit <= 0)
		R->reason = wa_printf(a, "auto: %.2f s left after "
					 "greedy; greedy only",
				      left > 0 ? left : 0.0);
	else if (cols > WSV_AUTO_LNS_COLS && wilp_lns_applies(p, NULL)) {
		R->try_lns = true;
		R->reason = wa_printf(a, "auto: model has %d columns; "
					 "neighbourhood search (above %d "
					 "columns it does better than the "
					 "ILP in the time)",
				      cols, WSV_AUTO_LNS_COLS);
	} else {
		R->try_ilp = true;
		R->reason = wa_printf(a, "auto: model has %d columns; ILP "
					 "within budget",
				      cols);
	}
}

/* Step 2: the mode, and why, in one place. */
static void decide(run *R)
{
	const wasp_options *o = R->o;
	const wp_problem *p = R->p;
	R->mode = "greedy";
	R->status = "greedy";
	R->reason = NULL;
	if (R->baseline) {
		R->mode = o->mode == WASP_MODE_PODWISE ? "podwise" : "bestfit";
		R->status = p->ngroups ? "baseline" : "empty";
		R->reason = o->mode == WASP_MODE_PODWISE
				? "baseline: podwise requested (no gangs or "
				  "topology; for benchmarks)"
				: "baseline: bestfit requested (Kueue TAS "
				  "BestFit; for benchmarks)";
	} else if (p->ngroups == 0) {
		R->status = "empty";
		R->reason = o->mode == WASP_MODE_GREEDY
				? "greedy: requested"
				: "nothing pending; greedy only";
	} else if (wrn_cancelled(o)) {
		R->reason = "cancelled after greedy; greedy only";
	} else if (wdl_passed(R->deadline, 0)) {
		R->reason = "the time limit was reached in greedy; greedy only";
	} else if (o->mode == WASP_MODE_GREEDY) {
		R->reason = "greedy: requested";
	} else if (o->mode == WASP_MODE_ILP) {
		R->try_ilp = true;
		R->reason = "ilp: requested";
		/* a proven plan needs no large model built */
		if (R->gproven)
			wilp_estimate(p, &R->rows, &R->cols, &R->nz);
		if (R->gproven && (R->cols > WSV_AUTO_MAX_COLS ||
				   R->nz > WSV_AUTO_MAX_NONZEROS)) {
			R->try_ilp = false;
			R->reason = wa_printf(R->a, "ilp: requested; the model "
						    "is large (%d columns) and "
						    "not needed",
					      R->cols);
		}
	} else {
		wilp_estimate(p, &R->rows, &R->cols, &R->nz);
		decide_auto(R);
	}
}

/* Whether the node model can be built, loaded into GLPK and its LP set
 * up in the time left (doc/library.md, "Time limits and cancelling"):
 * none of those steps can stop halfway, and at 10^8 nonzeros they take
 * minutes and gigabytes.  When not, ilp mode goes on as auto does with a
 * model too large: the neighbourhood search where it applies, else
 * greedy's plan; the reason says so (a deadline cut). */
static bool node_model_fits(run *R)
{
	const wasp_options *o = R->o;
	if (wdl_is_none(R->deadline) || o->work_limit > 0)
		return true; /* no clock, or a work budget (Determinism) */
	int rows, cols;
	long nz;
	wilp_estimate(R->p, &rows, &cols, &nz);
	double left = wdl_left(R->deadline, 0);
	if (left >= WSV_NODE_MODEL_S_PER_NZ * (double)nz)
		return true;
	R->try_ilp = false;
	R->try_lns = wilp_lns_applies(R->p, NULL);
	R->reason = wa_printf(R->a, "%s; the node model (%d columns, %ld "
				    "nonzeros) cannot be built and solved in "
				    "the %.1f s left; %s",
			      R->reason ? R->reason : "ilp", cols, nz,
			      left > 0 ? left : 0.0,
			      R->try_lns ? "neighbourhood search"
					 : "greedy only");
	return false;
}

/* Run the model over parts or the node model into isol; *ie gets the
 * solver's own error.  R->try_ilp cleared: nothing was solved (the
 * node model did not fit; R->try_lns says what comes instead). */
static int solve_ilp(run *R, wp_sol *isol, wasp_error *ie)
{
	const wasp_options *o = R->o;
	const wp_problem *p = R->p;
	wa_arena *a = R->a;
	int rc = WASP_OK;
	/* over parts when the node model's LP alone would take most of
	 * the time (agg.h) */
	/* a work budget: judged on the whole budget, not on the time the
	 * earlier steps happened to leave (doc/library.md, "Determinism") */
	double left = o->work_limit > 0 && o->time_limit_s > 0
			  ? o->time_limit_s
			  : wdl_left(R->deadline, 0);
	bool parts = R->force_parts ||
		     (!o->node_model && wag_prefer(p, left, NULL));
	/* the model over parts is built from every (class, node) slot
	 * before it can decline or stop: not above the size auto allows
	 * (at 10,000 nodes it took 28 s and 2.7 GB, then declined), nor
	 * without the time */
	if (parts && !R->force_parts && p->nx > WSV_AUTO_MAX_PART_SLOTS) {
		parts = false;
		R->reason = wa_printf(a, "%s; the model over parts (%ld "
					 "slots) is above the size limit",
				      R->reason ? R->reason : "ilp",
				      (long)p->nx);
	} else if (parts && !R->force_parts && !wdl_is_none(R->deadline) &&
	    o->work_limit <= 0 &&
	    wdl_left(R->deadline, 0) < WSV_PARTS_S_PER_SLOT * (double)p->nx) {
		parts = false;
		R->reason = wa_printf(a, "%s; the model over parts (%ld "
					 "slots) cannot be built in the "
					 "%.1f s left",
				      R->reason ? R->reason : "ilp",
				      (long)p->nx, left > 0 ? left : 0.0);
	}
	wag_info wi;
	memset(&wi, 0, sizeof wi);
	if (o->solver == WASP_SOLVER_CBC && !R->force_parts) {
		/* the node model, by the external solver (§7b) */
		R->reason = wa_printf(a, "%s; solved by cbc",
				      R->reason ? R->reason : "ilp");
		return wilp_solve_cbc(p, o, R->deadline, R->gsol, isol,
				      &R->st, ie);
	}
	if (parts) {
		rc = wag_solve(p, o, R->deadline, R->gsol, isol, &R->st, &wi,
			       ie);
		if (rc == WASP_OK && wi.declined && !R->force_parts) {
			/* ilp mode: the node model after all */
			parts = false;
			if (!node_model_fits(R))
				return WASP_OK;
			rc = wilp_solve(p, o, R->deadline, R->gsol, isol,
					&R->st, ie);
		} else if (rc == WASP_OK && wi.declined) {
			bool lns = wilp_lns_applies(p, NULL);
			R->reason = wa_printf(a, "%s; the model over parts "
						 "was declined (%d parts for "
						 "%d nodes, or tiers too wide "
						 "for one solve); %s",
					      R->reason, wi.parts, p->nnodes,
					      lns ? "neighbourhood search"
						  : "greedy only");
			R->try_lns = lns;
			R->try_ilp = false; /* as when the node model did
					       not fit */
		}
	}
	if (parts) {
		if (!R->force_parts)
			R->reason = wa_printf(a, "%s; over parts of "
						 "interchangeable nodes (the "
						 "node model is too large "
						 "for the time or for "
						 "GLPK's search)",
					      R->reason ? R->reason : "ilp");
	} else if (!wi.declined) {
		if (!node_model_fits(R))
			return WASP_OK;
		rc = wilp_solve(p, o, R->deadline, R->gsol, isol, &R->st, ie);
	}
	return rc;
}

/* The ILP ran: take its answer where it beats the constructive one. */
static int adopt_ilp(run *R, wp_sol *isol, wasp_error *err)
{
	const wp_problem *p = R->p;
	wilp_stats *st = &R->st;
	R->ilp_ran = true;
	R->mode = "ilp";
	R->status = st->status ? st->status : "feasible";
	/* The ILP keeps the warm start when it finds nothing better; a
	 * zero gap then proves greedy optimal. */
	if (!strcmp(R->status, "greedy") && st->gap == 0 &&
	    isnan(st->top_gap))
		R->status = "optimal";
	if (!isnan(st->top_gap))
		R->reason = wa_printf(R->a, "%s; tiers solved in blocks: the "
					    "gap is the highest block's",
				      R->reason ? R->reason : "ilp");
	if (!strcmp(R->status, "none"))
		R->status = "greedy";
	wp_value gv, iv;
	wp_evaluate(p, R->gsol, &gv);
	wp_evaluate(p, isol, &iv);
	int c = wp_value_cmp(&iv, &gv);
	/* DRA: when the ILP modelled every claim exactly it allocated its
	 * answer itself (isol->dra); else the allocation is made here, pod
	 * by pod, and an answer it cannot complete is not used (a safety
	 * net that tests/check_dra.c shows unused on exact models). */
	bool relaxed = c > 0 && p->snap->dra && !isol->dra;
	int dv = relaxed ? wgr_assign_devices(p, isol) : 0;
	if (dv < 0)
		return wrn_nomem(err);
	if (dv > 0) {
		c = 0;
		R->status = "greedy";
		R->mine[R->nmine++] = "the ILP answer could not be given "
				      "devices claim by claim; kept greedy's";
	}
	if (relaxed && dv == 0) {
		R->mine[R->nmine++] = "some device claims are relaxed in the "
				      "ILP (doc/dra.md); its answer got "
				      "devices claim by claim";
		/* the alternatives used count now */
		wp_evaluate(p, isol, &iv);
		c = wp_value_cmp(&iv, &gv);
	}
	if (c >= 0 && isnan(st->top_gap))
		packing_bound(p, c > 0 ? isol : R->gsol, st, &R->status);
	if (c > 0)
		R->best = isol;
	else if (c < 0) {
		R->status = "greedy";
		R->mine[R->nmine++] = "the ILP answer was worse than greedy's; "
				      "kept greedy's";
	}
	return WASP_OK;
}

/* The seconds making the plan from an answer takes (the search and the
 * top-up leave them). */
double wrn_fin_s(const run *R)
{
	return WSV_LNS_FINISH_S + WSV_LNS_FINISH_S_PER_SLOT * R->p->nx;
}

/* The run's deadline fin seconds sooner, and no later than share of left
 * seconds from now (a step's own share of what is left). */
wb_deadline wrn_share_deadline(const run *R, double fin, double share,
			       double left)
{
	wb_deadline dl = wdl_sooner(R->deadline, fin);
	if (!wdl_is_none(R->deadline) && wb_now() + share * left < dl.at)
		dl = wdl_at(wb_now() + share * left);
	return dl;
}

/* The pods admitted groups still have, on room free or made by evicting
 * lower priorities (solve/topup.h): the search re-solves groups only
 * inside its domains, and greedy's gangs evict for their minimum only.
 * pack: how the levels' small pods may be packed tight first (the last
 * top-up only: before the search a repacked start led it to worse plans
 * as often as to better; bench/README.md, "Packing tight"). */
static int topup_by(run *R, wp_sol *t, wb_deadline dl, const char *what,
		    wtu_pack pack, bool *added, wasp_error *err)
{
	*added = false;
	if (!wtu_applies(R->p) || wrn_cancelled(R->o))
		return WASP_OK;
	/* t: the search's own copy, to hold the best plan so far */
	if (R->best != t)
		wp_sol_copy(R->p, t, R->best);
	wtu_stats st;
	double t0 = wb_now();
	if (wtu_topup(R->p, t, dl, pack, &st))
		return wrn_nomem(err);
	double secs = wb_now() - t0;
	if (st.pods == 0)
		return WASP_OK;
	if (R->best == R->gsol && R->try_lns) { /* the search's stage */
		R->mode = "lns";
		R->status = "feasible";
	}
	R->best = t;
	*added = true;
	const char *how =
	    st.packed_by == WTU_PACK_YIELD
		? wa_printf(R->a, ", evicting lower pods, %d lower group%s "
				  "waiting for them",
			    st.yielded, st.yielded == 1 ? "" : "s")
	    : st.packed_by == WTU_PACK_EVICT ? ", evicting lower pods"
					       : "";
	if (!how)
		return wrn_nomem(err);
	R->reason = wa_printf(R->a, "%s; %s, %d more pod%s (%d pod%s "
				    "packed tighter first%s; %d "
				    "group%s past their minimum, evicting "
				    "%d pod%s; %d gang%s made way for more "
				    "pods, %d waiting gang%s admitted in "
				    "their room; %d node%s cleared for "
				    "larger pods: %d pod%s placed there, "
				    "%d waiting gang%s admitted, %d lower "
				    "group%s gave way, %d gang%s shifted "
				    "to another domain; %.1f s%s)",
			      R->reason, what, st.pods,
			      st.pods == 1 ? "" : "s", st.packed,
			      st.packed == 1 ? "" : "s",
			      how,
			      st.groups, st.groups == 1 ? "" : "s",
			      st.evicted, st.evicted == 1 ? "" : "s",
			      st.traded, st.traded == 1 ? "" : "s",
			      st.joined, st.joined == 1 ? "" : "s",
			      st.cleared, st.cleared == 1 ? "" : "s",
			      st.cleared_pods, st.cleared_pods == 1 ? "" : "s",
			      st.cleared_gangs,
			      st.cleared_gangs == 1 ? "" : "s", st.gave_way,
			      st.gave_way == 1 ? "" : "s", st.shifted,
			      st.shifted == 1 ? "" : "s", secs,
			      st.late ? ", stopped by the deadline" : "");
	return R->reason ? WASP_OK : wrn_nomem(err);
}

/* The top-up of the best plan, last (into t), until the plan must be
 * made, less keep seconds (kept back for what follows it). */
static int topup(run *R, wp_sol *t, double keep, wasp_error *err)
{
	wb_deadline dl = wdl_sooner(R->deadline, wrn_fin_s(R) + keep);
	const char *what = "then a top-up";
	for (int r = 0; r < WSV_TOPUP_ROUNDS && !wdl_passed(dl, 0); r++) {
		bool added;
		int rc = topup_by(R, t, dl, what, WTU_PACK_YIELD, &added, err);
		if (rc || !added)
			return rc;
		what = "then a top-up again";
	}
	return WASP_OK;
}

/* The seconds the plan led again leaves (its leads stop when they gain
 * nothing): the search again from the plan, where at least
 * WSV_AGAIN_MIN_S is left before the plan must be made, within all but
 * WSV_AGAIN_TOPUP_SHARE of them, and where it improves the plan the
 * top-up after it.  The plan (into t) is never worse: the search keeps
 * its start, and its answer is taken only where better. */
static int search_again(run *R, wp_sol *t, wasp_error *err)
{
	const wp_problem *p = R->p;
	double left = wdl_left(R->deadline, wrn_fin_s(R));
	if (wrn_cancelled(R->o) || left < WSV_AGAIN_MIN_S)
		return WASP_OK;
	wa_arena *ta;
	wp_sol *u = wrn_pass_sol(p, &ta);
	if (!u)
		return wrn_nomem(err);
	wp_sol_copy(p, u, R->best);
	wilp_lns_stats ls;
	wasp_error le;
	werr_clear(&le);
	double keep = wrn_fin_s(R) + WSV_AGAIN_TOPUP_SHARE * left;
	int rc = wilp_lns(p, R->o, wdl_sooner(R->deadline, keep), u, &ls,
			  &le);
	bool better = !rc && wrn_beats(R, u);
	if (better) {
		wp_sol_copy(p, t, u);
		R->best = t;
	}
	wa_destroy(ta);
	if (rc == WASP_ENOMEM)
		return wrn_nomem(err);
	if (!better)
		return WASP_OK;
	rc = wrn_took(R,
		      wa_printf(R->a, "then the search again from it, %d of "
				      "%d neighbourhoods improved the plan, "
				      "%.1f s",
				ls.improved, ls.tried, ls.seconds),
		      err);
	return rc ? rc : topup(R, t, 0, err);
}

/* The neighbourhood search from the constructive plan (§12): sub-ILPs
 * over a few domains; never worse than its start.  Then the top-up. */
static int improve_lns(run *R, wasp_error *err)
{
	wilp_lns_stats ls;
	wasp_error le;
	werr_clear(&le);
	wp_sol *lsol = wp_sol_new(R->p, R->a);
	if (!lsol)
		return wrn_nomem(err);
	wp_sol_copy(R->p, lsol, R->gsol);
	/* room left for the plan to be made from the answer, and for the
	 * top-up */
	double tu = WSV_TOPUP_S + WSV_TOPUP_S_PER_SLOT * R->p->nx;
	double left = wdl_is_none(R->deadline) ? 0
					       : R->deadline.at - wb_now();
	double share = WSV_TOPUP_SHARE * left;
	double fin = wrn_fin_s(R) + (share > tu ? share : tu);
	/* and for relead (lead.c) */
	double keep = wrn_relead_keep(R, left);
	fin += keep;
	/* a top-up first, within its own share: the search then re-packs
	 * what its clearing moved, and the last top-up clears again
	 * (frag-2048: 3,230 top-priority pods after a top-up of greedy's
	 * plan, 3,251 after three rounds of search and top-up) */
	wb_deadline pre =
	    wrn_share_deadline(R, fin, WSV_PRE_TOPUP_SHARE, left);
	bool added;
	int rc = topup_by(R, lsol, pre, "a top-up before the search",
			  WTU_PACK_NONE, &added, err);
	if (rc)
		return rc;
	rc = wilp_lns(R->p, R->o, wdl_sooner(R->deadline, fin), lsol, &ls,
		      &le);
	if (rc == WASP_ENOMEM)
		return wrn_nomem(err);
	if (rc) /* the constructive plan stands */
		return WASP_OK;
	wp_value gv, lv;
	wp_evaluate(R->p, R->gsol, &gv);
	wp_evaluate(R->p, lsol, &lv);
	if (wp_value_cmp(&lv, &gv) > 0) {
		R->best = lsol;
		R->mode = "lns";
		R->status = "feasible";
	}
	/* the block and part neighbourhoods (of part_key), the top ones,
	 * and the other start, where the search made them */
	const char *kinds = "";
	if (ls.block_tried || ls.part_tried)
		kinds = wa_printf(R->a, "%d of %d whole %s domains and %d of "
					"%d runs of %s domains within one",
				  ls.block_improved, ls.block_tried,
				  ls.part_key, ls.part_improved,
				  ls.part_tried, ls.key);
	if (kinds && ls.top_tried)
		kinds = wa_printf(R->a, "%s%s%d of %d with only the top "
					"priority's groups free",
				  kinds, *kinds ? ", " : "", ls.top_improved,
				  ls.top_tried);
	if (kinds && *kinds)
		kinds = wa_printf(R->a, " (of them %s)", kinds);
	if (ls.alt)
		kinds = wa_printf(R->a, "%s, from the smallest-pods-first "
					"plan after the first sweep",
				  kinds ? kinds : "");
	if (!kinds)
		return wrn_nomem(err);
	R->reason = wa_printf(R->a, "%s; %d of %d neighbourhoods of %s "
				    "domains%s improved the plan in %d "
				    "sweep(s), %.1f s%s%s",
			      R->reason, ls.improved, ls.tried, ls.key, kinds,
			      ls.rounds, ls.seconds,
			      ls.cut ? wa_printf(R->a, ", %d sub-ILPs cut by "
						       "their time limit",
						 ls.cut)
				     : "",
			      ls.deadline ? ", stopped by the deadline" : "");
	if (wrn_cancelled(R->o))
		R->reason = wrn_also(R->a, R->reason, "cancelled during the "
				     "neighbourhood search: the best plan "
				     "found by then");
	int rc2 = topup(R, lsol, keep, err);
	if (rc2 || wrn_cancelled(R->o))
		return rc2;
	/* the cleared pass, where it is better (cleared_pass) */
	if (R->cleared && wrn_beats(R, R->cleared)) {
		R->best = R->cleared;
		rc = wrn_took(R, "then the pass led by the whole-gang MIP's "
				 "answer with the lower pods cleared first, "
				 "topped up, beat it",
			      err);
		if (rc)
			return rc;
	}
	int rc3 = wrn_relead(R, lsol, err);
	return rc3 ? rc3 : search_again(R, lsol, err);
}

/* max_memory (doc/library.md, "Memory"): the ILP and GLPK work within
 * what the snapshot and the run so far leave of it; their arenas and
 * GLPK's glp_mem_limit see that share as R->ro.max_memory.  None left:
 * R->mem_held, and improve() keeps greedy's plan. */
static void ilp_memory(run *R, const ws_snapshot *s)
{
	size_t max = R->ro.max_memory;
	if (!max || !(R->try_ilp || R->try_lns))
		return;
	size_t held = ws_snapshot_bytes(s) + wa_used(R->a);
	if (held + WASP_MIN_MEMORY > max)
		R->mem_held = held;
	else
		R->ro.max_memory = max - held;
}

/* Where auto runs neither the ILP nor the search (no key with small
 * domains, say), greedy's plan still gets the top-up; greedy mode keeps
 * greedy's plan as it is. */
static int greedy_topup(run *R, wasp_error *err)
{
	if (R->o->mode != WASP_MODE_AUTO)
		return WASP_OK;
	wp_sol *t = wp_sol_new(R->p, R->a);
	return t ? topup(R, t, 0, err) : wrn_nomem(err);
}

/* Step 3: the ILP, when decide() chose it.  A solver fault or a cancel
 * inside it leaves the constructive answer standing. */
static int improve(run *R, wasp_error *err)
{
	const wasp_options *o = R->o;
	wa_arena *a = R->a;
	wilp_stats_reset(&R->st);
	if (R->try_lns)
		return improve_lns(R, err);
	if (!R->try_ilp)
		return greedy_topup(R, err);
	if (R->mem_held) {
		R->reason = wa_printf(a, "%s; ILP out of memory before it "
					 "started (the snapshot and greedy "
					 "hold %zu of max_memory's %zu "
					 "bytes); greedy only",
				      R->reason ? R->reason : "ilp",
				      R->mem_held, R->o->max_memory);
		if (o->mode == WASP_MODE_ILP)
			R->mine[R->nmine++] =
			    "ILP mode requested but the ILP did not run: "
			    "max_memory left it nothing; the plan is greedy's";
		return WASP_OK;
	}
	wp_sol *isol = wp_sol_new(R->p, a);
	if (!isol) {
		R->reason = "ILP out of memory before it started; greedy only";
		return WASP_OK;
	}
	wasp_error ie;
	werr_clear(&ie);
	int rc = solve_ilp(R, isol, &ie);
	if (rc == WASP_OK && R->try_lns) {
		R->try_ilp = false; /* nothing was solved: no ILP answer */
		return improve_lns(R, err);
	}
	if (rc == WASP_OK && !R->try_ilp) /* the node model did not fit */
		return greedy_topup(R, err);
	if (rc == WASP_ESOLVER || rc == WASP_ECANCELED || rc == WASP_ENOMEM) {
		/* The greedy answer stands: nothing after it may lose it. */
		const char *what = rc == WASP_ESOLVER	 ? "ILP unavailable"
				   : rc == WASP_ENOMEM ? "ILP out of memory"
						       : "ILP cancelled";
		R->reason = wa_printf(a, "%s; %s (%s); greedy only",
				      R->reason ? R->reason : "ilp", what,
				      ie.msg);
		if (o->mode == WASP_MODE_ILP)
			R->mine[R->nmine++] = wa_printf(
			    a, "ILP mode requested but the ILP did not run: "
			       "%s; the plan is greedy's", ie.msg);
		return WASP_OK;
	}
	if (rc) {
		if (err)
			*err = ie;
		return rc;
	}
	if (wrn_cancelled(o))
		R->reason = wrn_also(a, R->reason, "cancelled during the ILP: "
				     "the best plan found by then");
	return adopt_ilp(R, isol, err);
}

/* improve() on a helper thread that a cancel can leave behind
 * (run/watch.h), on its own copy of the run, copied back when it ends
 * in time.  Left behind, the plan is made of the best answer found
 * before it (doc/library.md, "Time limits and cancelling"). */
typedef struct improve_job {
	run R;
	wasp_error err;
} improve_job;

static int improve_step(void *arg, const wasp_options *o)
{
	improve_job *j = arg;
	j->R.o = o;
	return improve(&j->R, &j->err);
}

static int improve_watched(run *R, wsv_watch *w, wasp_error *err)
{
	const wasp_options *o = R->o;
	if (!R->try_ilp && !R->try_lns)
		return improve(R, err);
	improve_job *j = wa_alloc(R->a, sizeof *j);
	if (!j)
		return wrn_nomem(err);
	j->R = *R;
	werr_clear(&j->err);
	int rc = wsv_watch_run(w, improve_step, j, o);
	if (!w->abandoned) {
		*R = j->R;
		R->o = o;
		if (rc && err)
			*err = j->err;
		return rc;
	}
	if (!(R->post = wa_new()))
		return wrn_nomem(err);
	R->a = R->post;
	wilp_stats_reset(&R->st);
	const char *step = R->try_lns ? "neighbourhood search"
			   : o->solver == WASP_SOLVER_CBC ? "ILP (cbc)"
							  : "ILP";
	R->reason = wrn_also(R->a, R->reason,
			     wa_printf(R->a, "cancelled during the %s, which "
					     "was left to stop on its own: "
					     "the best plan found before it",
				       step));
	return WASP_OK;
}

/* Greedy-only in auto mode (the model too large), or the ILP kept the
 * restarts' plan without proving it: the packing bound may prove it. */
static void prove_by_packing(run *R)
{
	const wp_problem *p = R->p;
	if (R->baseline || R->o->mode == WASP_MODE_GREEDY ||
	    strcmp(R->status, "greedy") != 0)
		return;
	if (!(R->best == R->gsol ? R->gproven
				 : wp_packing_proven(p, R->best)))
		return;
	R->status = "optimal";
	R->reason = wa_printf(R->a, "%s; every pending pod is placed, nothing "
				    "evicted, and the packing meets its "
				    "bound: optimal",
			      R->reason ? R->reason : R->mode);
	if (R->ilp_ran && !isnan(R->st.objective)) {
		R->st.bound = R->st.objective;
		R->st.gap = 0;
	}
}

/* No bound from the ILP (it did not run, or solved tiers in blocks): the
 * LP over node classes bounds the work tiers at every size
 * (doc/formulation.md §12).  Its failure costs only the bound. */
static void class_bound(run *R)
{
	if (R->cb.ok)
		return;
	/* past the deadline: the plan first (the bound's node classes
	 * cost 0.1-0.3 s at 10,000 nodes under load before its LP can
	 * look at the clock) */
	if (R->baseline || !R->p->ngroups || R->o->mode == WASP_MODE_GREEDY ||
	    wrn_cancelled(R->o) || wdl_passed(R->deadline, 0) || R->gproven ||
	    !strcmp(R->status, "optimal") ||
	    (R->ilp_ran && (!isnan(R->st.bound) || !isnan(R->st.top_gap))))
		return;
	wasp_error e;
	werr_clear(&e);
	/* the whole-gang MIP's answer, for mip_pass, before any search */
	int *hint = NULL;
	if (!R->ilp_ran && !R->gproven)
		hint = wa_calloc(R->a, WILP_HINTS * (size_t)R->p->ngroups + 1,
				 sizeof *hint);
	if (wilp_class_bound_hint(R->p, R->deadline, hint, &R->cb, &e))
		R->cb.ok = false;
	else if (hint && R->cb.mip_hinted > 0)
		R->hint = hint;
}

/* The summary of the plan: mode, status, reason, model and times. */
static int summarise(run *R, wasp_plan *pl)
{
	const wasp_options *o = R->o;
	const wp_problem *p = R->p;
	wa_arena *pa = pl->arena;
	wpl_summary *sum = &pl->sum;
	const char *reason = R->reason;
	sum->mode = R->mode;
	sum->status = R->status;
	if (reason && R->pass)
		reason = wa_printf(R->a, "%s; %s", reason, R->pass);
	if (reason && !(sum->mode_reason = wa_strdup(pa, reason)))
		return -1;
	sum->domain_mode = o->domain_mode == WASP_DOMAIN_PATH ? "path"
							       : "value";
	if (o->value_resource &&
	    !(sum->value = wa_strdup(pa, o->value_resource)))
		return -1;
	if (R->ilp_ran) {
		const wilp_stats *st = &R->st;
		sum->objective = st->objective;
		sum->bound = st->bound;
		sum->gap = st->gap;
		sum->rows = st->rows;
		sum->cols = st->cols;
		sum->ints = st->ints;
		sum->nonzeros = st->nonzeros;
		/* Strings from the ILP module may live in its arena. */
		if (!(sum->status = wa_strdup(pa, R->status)))
			return -1;
	} else if (!strcmp(R->status, "optimal")) {
		sum->gap = 0; /* proven by the packing bound, no model built */
	}
	wp_evaluate(p, R->best, &sum->tiers);
	if (R->cb.ok) {
		/* objective and bound over the work tiers (§12) */
		sum->objective = wilp_cbound_value(&R->cb, &sum->tiers);
		sum->bound = wilp_cbound_bound(&R->cb);
		if (sum->bound < sum->objective)
			sum->bound = sum->objective; /* cannot happen */
		sum->gap = (sum->bound - sum->objective) /
			   (sum->objective > 1e-9 ? sum->objective : 1e-9);
		char ub[256];
		size_t u = 0;
		ub[0] = 0;
		for (int t = 0; t < R->cb.ntier && u + 24 < sizeof ub; t++)
			u += (size_t)snprintf(ub + u, sizeof ub - u, "%s%.10g",
					      t ? "/" : "", R->cb.ub[t]);
		char cg[128] = "";
		if (R->cb.cg_rounds > 0)
			snprintf(cg, sizeof cg,
				 " (whole gangs per domain, %d rounds in %.1f s; "
				 "the LP alone: %.10g)",
				 R->cb.cg_rounds, R->cb.cg_s, R->cb.lp_ub0);
		char mip[288] = "", spread[96] = "";
		if (R->cb.mip_spread > 0)
			snprintf(spread, sizeof spread,
				 ", %d columns spreading coarser gangs' pods "
				 "(%.10g before)",
				 R->cb.mip_spread, R->cb.mip_unspread);
		if (R->cb.mip_status)
			snprintf(mip, sizeof mip,
				 " (whole gangs, integer: %s, %.10g, %d types, "
				 "%d columns, %d rows for the pieces%s, %d "
				 "nodes in %.1f s)",
				 R->cb.mip_status, R->cb.mip_ub0,
				 R->cb.mip_types, R->cb.mip_cols,
				 R->cb.mip_split, spread, R->cb.mip_nodes,
				 R->cb.mip_s);
		if (!(sum->mode_reason = wa_printf(
			  pa, "%s; bound: the LP over %d node classes%s, work "
			      "per priority at most %s%s%s",
			  sum->mode_reason ? sum->mode_reason : sum->mode,
			  R->cb.node_classes,
			  R->cb.dom_gangs ? " and the gangs' domains" : "",
			  ub, cg, mip)))
			return -1;
	}
	sum->tiers.moves = pl->nmove; /* the post-pass's too */
	if (merge_warnings(pl, R->s, p->topo, R->mine, R->nmine))
		return -1;
	double t4 = wb_now();
	sum->t_load = R->s->t_load;
	sum->t_reduce = R->t1 - R->t0;
	sum->t_greedy = R->t2 - R->t1;
	/* decide, improve and the bound: every second is in a phase */
	sum->t_ilp = R->t3 - R->t2;
	sum->t_total = o->start_time > 0 ? t4 - o->start_time
					 : R->s->t_load + (t4 - R->t0);
	return 0;
}

/* Pending pods each solution places, per priority level: with[i] and
 * without[i] for the distinct group priorities (groups are sorted
 * highest first); returns the number of levels. */
static int pods_by_level(const wp_problem *p, const wp_sol *a,
			 const wp_sol *b, int32_t *prio, int *with,
			 int *without)
{
	int nl = 0;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (nl == 0 || prio[nl - 1] != wg->priority) {
			prio[nl] = wg->priority;
			with[nl] = without[nl] = 0;
			nl++;
		}
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *cl = &p->classes[wg->classes[i]];
			with[nl - 1] += a->admit[g] ? wp_x_placed(a, cl) : 0;
			without[nl - 1] += b->admit[g] ? wp_x_placed(b, cl) : 0;
		}
	}
	return nl;
}

/* What the evictions buy (doc/preemption.md, "What the evictions buy"):
 * a second, greedy-only solve with preemption off, and the pending pods
 * both place per priority, highest first, into pl->buy.  Only when the
 * plan evicts. */
static int evictions_buy(run *R, wasp_plan *pl, wasp_error *err)
{
	wp_problem *p = R->p;
	if (R->baseline || pl->nevict == 0 || p->no_preempt || !p->ngroups)
		return WASP_OK;
	/* a second greedy pass: not after a cancel */
	if (wrn_cancelled(R->o)) {
		R->reason = wrn_also(R->a, R->reason, "what the evictions buy "
				     "was not worked out (cancelled)");
		return WASP_OK;
	}
	/* a greedy pass costs about what the first one did; one the
	 * deadline would cut would count the groups it never reached as
	 * waiting: no figures rather than wrong ones */
	const char *cut = "the time limit left no room for the plan without "
			  "evictions: what the evictions buy is not shown";
	bool room = R->nmine < (int)(sizeof R->mine / sizeof *R->mine);
	if (!wdl_is_none(R->deadline) &&
	    wdl_left(R->deadline, 0) < R->tgreedy) {
		if (room)
			R->mine[R->nmine++] = cut;
		return WASP_OK;
	}
	wa_arena *ta;
	wp_sol *off = wrn_pass_sol(p, &ta);
	int32_t *prio = wa_calloc(R->a, (size_t)p->ngroups, sizeof *prio);
	int *with = wa_calloc(R->a, (size_t)p->ngroups, sizeof *with);
	int *without = wa_calloc(R->a, (size_t)p->ngroups, sizeof *without);
	int rc = WASP_OK;
	if (!off || !prio || !with || !without) {
		rc = wrn_nomem(err);
		goto out;
	}
	p->no_preempt = true;
	rc = wgr_solve(p, R->o, off, err);
	p->no_preempt = false;
	if (rc)
		goto out;
	if (wgr_count_late(p, off)) {
		if (room)
			R->mine[R->nmine++] = cut;
		goto out;
	}
	int nl = pods_by_level(p, R->best, off, prio, with, without);
	pl->buy = wa_calloc(pl->arena, (size_t)nl, sizeof *pl->buy);
	if (!pl->buy) {
		rc = wrn_nomem(err);
		goto out;
	}
	for (int i = 0; i < nl; i++)
		pl->buy[i] = (wpl_buy){prio[i], with[i], without[i]};
	pl->nbuy = nl;
out:
	wa_destroy(ta);
	return rc;
}

/* Step 4: the plan in snapshot terms, the rebalancing post-pass, the
 * summary. */
static int finish(run *R, wasp_plan **out, wasp_error *err)
{
	wasp_plan *pl = NULL;
	int rc = wpl_from_sol(R->p, R->best, &pl, err);
	if (rc)
		return rc;
	bool rebalance = R->o->rebalance && !wrn_cancelled(R->o);
	if (R->o->rebalance && !rebalance)
		R->reason = wrn_also(R->a, R->reason, "the rebalancing "
				     "post-pass did not run (cancelled)");
	if (rebalance &&
	    (rc = wrb_rebalance(R->s, R->p->topo, R->o, pl, err))) {
		wpl_free(pl);
		return rc;
	}
	if ((rc = evictions_buy(R, pl, err))) {
		wpl_free(pl);
		return rc;
	}
	if (wpl_record_versions(R->s, pl) || /* for wasp apply */
	    wpl_domain_free(R->s, R->p->topo, R->o->value_resource, pl)) {
		wpl_free(pl);
		return wrn_nomem(err);
	}
	if (summarise(R, pl)) {
		wpl_free(pl);
		return wrn_nomem(err);
	}
	*out = pl;
	return WASP_OK;
}

int wsv_solve(const ws_snapshot *s, const wasp_options *o, wasp_plan **out,
	      wasp_error *err)
{
	run R;
	wsv_watch w;
	memset(&R, 0, sizeof R);
	memset(&w, 0, sizeof w);
	R.s = s;
	R.t0 = wb_now();
	/* The plan, its text and writing it come after the solve and cost
	 * about WSV_FINISH_PER_LOAD of reading the input (bench/README.md,
	 * "Keeping the time limit"): every step of the run stops that much
	 * before the limit, so that the whole command keeps it. */
	R.ro = *o;
	double reserve = WSV_FINISH_PER_LOAD * s->t_load;
	if (reserve > WSV_FINISH_MAX_SHARE * o->time_limit_s)
		reserve = WSV_FINISH_MAX_SHARE * o->time_limit_s;
	if (o->time_limit_s > 0 && reserve > 0)
		R.ro.time_limit_s = o->time_limit_s - reserve;
	R.o = o = &R.ro;
	R.deadline = wdl_after(o->start_time > 0 ? o->start_time : R.t0,
			       o->time_limit_s);
	int rc = check_solver(o, err);
	if (rc)
		return rc;
	if (!(R.a = wa_new()))
		return wrn_nomem(err);
	wa_arena *base = R.a;
	phase(&R, "reduce");
	if (!(rc = wsv_problem(s, o, R.a, &R.p, err))) {
		R.t1 = wb_now();
		phase(&R, "greedy");
		rc = construct(&R, err);
	}
	if (!rc) {
		R.t2 = wb_now();
		decide(&R);
		ilp_memory(&R, s);
		if (R.try_ilp)
			phase(&R, "ilp");
		/* no ILP bound will come: the bound first, so that the
		 * search's deadline cannot leave the plan without one */
		if (!R.try_ilp)
			class_bound(&R);
		rc = wrn_mip_pass(&R, err);
		if (!rc)
			rc = improve_watched(&R, &w, err);
	}
	if (!rc) {
		prove_by_packing(&R);
		class_bound(&R);
		R.t3 = wb_now();
		phase(&R, "plan");
		rc = finish(&R, out, err);
	}
	/* the plan is out before the clean-up of a step left behind */
	if (!rc && o->plan_ready)
		o->plan_ready(*out, o->plan_ready_ctx);
	wsv_watch_join(&w);
	if (R.post)
		wa_destroy(R.post);
	wa_destroy(base);
	return rc;
}
