/*
 * agg.h -- the ILP over parts: nodes that no topology key and no class
 * tells apart, merged (doc/formulation.md §10).
 *
 * The part model is a relaxation of the node model's (ilp.h) with the same
 * objective weights, so its optimum bounds the node model's.  Its answer
 * confines the node model (each class to the parts where the part model
 * places it); when the confined solve reaches the part optimum the plan
 * is proven optimal.  Used by run.c in place of wilp_solve whenever
 * wag_applies says so.
 */
#ifndef WASP_AGG_H
#define WASP_AGG_H

#include "solve/ilp/ilp.h"

/* Parts must be at most this share of the nodes to be worth it. */
#define WAG_MAX_PART_SHARE 0.5

/* Does the part model cover this problem?  When not, *why says what it
 * leaves out (static text). */
bool wag_applies(const wp_problem *p, const char **why);

/* Seconds per nonzero of the node model's root LP (GLPK primal simplex,
 * the 256-node tree instances: 6.3 s at 394k nonzeros). */
#define WAG_NODE_LP_S_PER_NZ 1.6e-5
/* The part model runs when the node model's root LP alone would take
 * more than this share of the time left. */
#define WAG_NODE_LP_SHARE 0.3

/* Above this many node-model columns (wilp_estimate) the part model
 * runs whenever there is a time limit.  GLPK's search on the node model
 * of the 128-node bench instances (about 4,600 columns) left greedy's
 * plan standing after 60 s, where the part model's confined solve
 * admits 2-4 more top-priority pods in 10 s; at 64 nodes (1,200-1,500
 * columns) the node model proves the optimum in seconds and the part
 * model does not (bench/README.md, "The model over parts from 128
 * nodes"). */
#define WAG_NODE_MAX_COLS 3000

/* Should the ILP work over parts, with `left` seconds (<= 0: no limit)?
 * wag_applies, and the node model too large for the time: its root LP
 * alone would take WAG_NODE_LP_SHARE of it, or it has more than
 * WAG_NODE_MAX_COLS columns. */
bool wag_prefer(const wp_problem *p, double left, const char **why);

/* Columns of the part model (its x columns and a few more), cheaply:
 * parts and bounds only.  -1 on NOMEM. */
int wag_estimate(const wp_problem *p);

/* Counters of one part solve, for tests and measurements. */
typedef struct wag_info {
	bool declined;      /* parts barely merge nodes, or the tiers are
			       too wide for one weighted solve: nothing
			       was solved, out is warm (run.c then runs
			       the node model when that fits)           */
	int parts;          /* nodes merged into this many parts         */
	int rows, cols;     /* the part model                            */
	bool warm_ok;       /* the warm start passed every part row      */
	bool part_opt;      /* the part model was solved to optimality   */
	double part_obj;    /* its optimum (or best found), node-model units */
	double part_bound;  /* its bound                                 */
	int confined_cols;  /* columns of the confined node model        */
	double part_s, confined_s; /* seconds in each                    */
} wag_info;

/* As wilp_solve.  info may be NULL (then a declined problem goes to the
 * node model here). */
int wag_solve(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	      const wp_sol *warm, wp_sol *out, wilp_stats *st,
	      wag_info *info, wasp_error *err);

#endif
