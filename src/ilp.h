/*
 * ilp.h -- the integer program (DESIGN.md §5) and its GLPK solve.
 *
 * Built from a wp_problem, one function per constraint family, with readable
 * row/column names (x[class,node], cap[node,resource], ...).  Solved under a
 * deadline with the greedy solution as the first incumbent.  GLPK objects
 * never leave the calling thread; a GLPK fault becomes WASP_ESOLVER.
 */
#ifndef WASP_ILP_H
#define WASP_ILP_H

#include "problem.h"

typedef struct wilp_stats {
	int rows, cols, ints, nonzeros;
	const char *status;   /* "optimal", "feasible", "greedy" (nothing
				 better than the warm start), "none"    */
	double objective;     /* model objective at the returned solution */
	double bound;         /* best bound (model objective units)       */
	double gap;           /* relative gap, 0 when optimal             */
	double seconds;
	bool improved;        /* better than the warm start               */
} wilp_stats;

/* Estimated model size, for --mode auto (cheap: no GLPK call). */
void wilp_estimate(const wp_problem *p, int *rows, int *cols, long *nonzeros);

/* Solve; `warm` (may be NULL) must be feasible.  deadline is wasp_now()
 * seconds.  On success `out` holds the best solution found (at worst a copy
 * of warm). */
int wilp_solve(const wp_problem *p, const wasp_options *o, double deadline,
	       const wp_sol *warm, wp_sol *out, wilp_stats *st,
	       wasp_error *err);

/* Write the model (LP, MPS) or GMPL data for models/wasp.mod (DAT). */
int wilp_export(const wp_problem *p, const wasp_options *o, int format,
		const char *path, wasp_error *err);

#endif
