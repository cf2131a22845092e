/*
 * branch.h -- reliability branching for GLPK's search (branch.c;
 * doc/formulation.md §6b): wasp's own pseudo-costs, scored by the
 * product rule and started by strong branching, chosen in the search
 * callback at GLP_IBRANCH.
 */
#ifndef WASP_ILP_BRANCH_H
#define WASP_ILP_BRANCH_H

#include <glpk.h>
#include <stdbool.h>

#include "base/arena.h"

/* A direction's pseudo-cost is trusted after this many observations
 * (children solved, or strong branches); before, the candidate is
 * strong-branched. */
#define WBR_RELIABLE 1
/* Strong branching at one node: at most this many candidates, ending
 * early after WBR_LOOKAHEAD of them in a row did not beat the best. */
#define WBR_MAX_STRONG 10
#define WBR_LOOKAHEAD 4
/* Dual simplex iterations per strong branch (its bound holds at the
 * limit: the dual simplex keeps the basis dual feasible). */
#define WBR_STRONG_ITERS 100

typedef struct wbr wbr;

/* What each node of GLPK's tree keeps for its children (glp_iocp's
 * cb_size): the column branched on, its LP value and the node's LP
 * objective; `seen` marks a node whose own solve was counted. */
typedef struct wbr_node {
	int j;
	int seen;
	double x, z;
} wbr_node;

/* The state for one intopt over ncols columns, in arena ar (NULL: out
 * of memory).  int_obj: the objective is integral at every solution, so
 * a child whose bound is below the incumbent plus one is cut off. */
wbr *wbr_new(wa_arena *ar, int ncols, bool int_obj);

/* At GLP_IROWGEN: the node's LP is solved; its change from the
 * parent's objective updates the branched column's pseudo-cost. */
void wbr_solved(glp_tree *T, wbr *b);

/* At GLP_IBRANCH: choose a column and branch on it (nothing: GLPK's
 * own rule).  stop() is polled between strong branches. */
void wbr_branch(glp_tree *T, wbr *b, bool (*stop)(void *), void *ctx);

/* Strong branches done (for tests and the bench). */
long wbr_strong_count(const wbr *b);

#endif
