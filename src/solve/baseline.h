/*
 * baseline.h -- reference schedulers for benchmarks (not for production).
 *
 * podwise: pod by pod, no gang semantics, each pod to the feasible node with
 * the most free resources, as schedulers worked before workload-aware
 * scheduling (its plans may hold partial gangs: that is what it shows).
 * bestfit: Kueue TAS BestFit (two phases: capacity counts rolled up the
 * domain tree, then the tightest domain top-down), with gang semantics.
 */
#ifndef WASP_BASELINE_H
#define WASP_BASELINE_H

#include "reduce/problem.h"

/* mode is WASP_MODE_PODWISE or WASP_MODE_BESTFIT; sol from wp_sol_new. */
int wbl_solve(const wp_problem *p, int mode, const wasp_options *o,
	      wp_sol *sol, wasp_error *err);

/* True when the baselines model every constraint in p (no trees, no
 * topology annotations, no DRA claims).  solve.c uses BestFit as a second
 * constructive pass only then: a plan that ignores a constraint must never
 * win.  Running units, PodDisruptionBudgets and --protect do not matter:
 * the baselines never evict, and a plan without evictions meets every
 * preemption row; --rebalance works on the finished plan, whichever pass
 * made it. */
bool wbl_models(const wp_problem *p);

#endif
