/*
 * run.h -- orchestration of one run under one deadline:
 * topology -> reduce -> construct (greedy) -> decide -> improve (ILP) ->
 * finish (plan).
 *
 * --mode auto chooses the ILP when the estimated model fits the remaining
 * budget, greedy otherwise, and records why in the plan summary.  The greedy
 * answer always exists; the ILP only replaces it when it is better.
 */
#ifndef WASP_SOLVE_H
#define WASP_SOLVE_H

#include "plan/plan.h"

int wsv_solve(const ws_snapshot *s, const wasp_options *o, wasp_plan **out,
	      wasp_error *err);
/* Loading a snapshot for a run (wasp_snapshot_load_limited) may take
 * this share of its time limit: the run after it needs about a quarter
 * of the load's time to make, render and write the plan of what was
 * read (bench/README.md, "Keeping the time limit"). */
#define WSV_LOAD_SHARE 0.8
/* Auto mode: above this many node-model columns (wilp_estimate; up to
 * auto's size limits) the neighbourhood search runs where it applies,
 * not an ILP.  On the 256-node bench instances (6,600-17,800 columns)
 * it beat the ILP's plans in 10 s where neither model improved on
 * greedy's in 60 s; at 128 nodes (about 4,600) the model over parts did
 * better (bench/README.md, "The neighbourhood search from 256 nodes"). */
#define WSV_AUTO_LNS_COLS 6000
/* Build topology + problem as wsv_solve would (for export). */
int wsv_problem(const ws_snapshot *s, const wasp_options *o, wa_arena *a,
		wp_problem **out, wasp_error *err);

#endif
