/*
 * dth.h -- Driebeek-Tomlin branching on wasp's own tableau rows (dth.c;
 * doc/formulation.md §6b, "Driebeek-Tomlin on wasp's tableau rows").
 *
 * GLPK's GLP_BR_DTH rule prices each fractional column's two branches
 * with one implicit dual simplex step on its tableau row, and branches
 * on the column whose dearer branch costs most.  It evaluates each row
 * with glp_eval_tab_row, which walks the column lists of every nonbasic
 * column: up to 15 ms a node on the 64-node models.  This is the same
 * rule, with the rows from tabrow.h.  Where it cannot run (more rows
 * than it holds, no factorization), GLPK's own rule chooses.
 */
#ifndef WASP_ILP_DTH_H
#define WASP_ILP_DTH_H

#include <glpk.h>
#include <stdbool.h>

#include "base/arena.h"
#include "solve/ilp/tabrow.h"

/* Room for rows the search adds (GLPK's cuts) past the model's. */
#define WDTH_EXTRA_ROWS 2000

typedef struct wdth {
	wtr tr;
	long chosen;   /* branchings chosen here (for tests)            */
} wdth;

/* For a search on P (before glp_intopt: its rows now are the model's,
 * copied once).  False: out of memory (leave the choice to GLPK). */
bool wdth_init(wdth *d, wa_arena *ar, glp_prob *P);

/* At GLP_IBRANCH: choose the column and the branch to solve first, and
 * branch (nothing done: GLPK's own rule chooses). */
void wdth_branch(glp_tree *T, wdth *d);

#endif
