/*
 * dive.h -- a plan from the root's cut LP: dive, then complete (dive.c;
 * doc/formulation.md §6b, "Root cuts with integer slacks, and a dive").
 *
 * With the root's Gomory cuts (gomory.h) the root bound often meets the
 * optimum, and then GLPK's search only has to find the plan: on
 * nvlink-72 that took it about 740 nodes.  cbc finds such plans at the
 * root by diving.  wasp dives on the decisions that shape a plan, the
 * columns that admit a group and put it in a domain: the one nearest to
 * 1 goes to 1 (or, when that cannot beat the incumbent, to 0), and the
 * LP is solved again.  With those integral, a small branch-and-bound
 * over the placements completes the plan.
 */
#ifndef WASP_ILP_DIVE_H
#define WASP_ILP_DIVE_H

#include <glpk.h>
#include <stdbool.h>

#include "base/arena.h"
#include "base/clock.h"
#include "solve/glpkenv.h"

#define WDI_MAX_STEPS 1000   /* roundings in one dive                   */
#define WDI_STEP_ITERS 2000  /* dual simplex iterations per re-solve    */
/* The completion's branch-and-bound nodes (it found nvlink-72's and
 * gpu-64/s14's optima at about 100). */
#define WDI_COMPLETE_NODES 200

/* Dives on Q (its LP solved to optimality; a maximisation, every column
 * integer; a scratch copy: its bounds change) over the columns j with
 * pick[j], until they are all integral.  False when the LP can no
 * longer beat cutoff (int_obj: by a whole unit; NAN: no cutoff), fails,
 * or dl passes. */
bool wdi_dive(glp_prob *Q, const unsigned char *pick, double cutoff,
	      bool int_obj, wgl_env *e, wb_deadline dl);

/* After wdi_dive: the picked columns fixed where they are, a depth-first
 * search of at most WDI_COMPLETE_NODES nodes for the rest, branching by
 * Driebeek-Tomlin on wasp's tableau rows (dth.h; state in arena ar, or
 * NULL for GLPK's own rule).  On success x[1..n] holds the best integer
 * solution it found (better than cutoff). */
bool wdi_complete(glp_prob *Q, const unsigned char *pick, double cutoff,
		  bool int_obj, wa_arena *ar, wgl_env *e, wb_deadline dl,
		  double *x);

#endif
