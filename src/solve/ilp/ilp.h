/*
 * ilp.h -- the integer program (doc/formulation.md) and its GLPK solve.
 *
 * Built from a wp_problem, one function per constraint family, with readable
 * row/column names (x[class,node], cap[node,resource], ...).  Solved under a
 * deadline with the greedy solution as the first incumbent.  GLPK objects
 * never leave the calling thread; a GLPK fault becomes WASP_ESOLVER.
 */
#ifndef WASP_ILP_H
#define WASP_ILP_H

#include <math.h>

#include "base/clock.h"
#include "reduce/problem.h"

typedef struct wilp_stats {
	int rows, cols, ints, nonzeros;
	const char *status;   /* "optimal", "feasible", "greedy" (nothing
				 better than the warm start), "none"    */
	double objective;     /* model objective at the returned solution */
	double bound;         /* best bound (model objective units)       */
	double gap;           /* relative gap, 0 when optimal; with tier
				 blocks, the gap of the first (highest)
				 block, also in top_gap                  */
	double seconds;
	bool improved;        /* better than the warm start               */
	double top_gap;       /* tier blocks only: relative gap of the
				 first block (NAN otherwise)              */
} wilp_stats;

/* No figures yet: zero counts, NAN objective, bound and gaps. */
static inline void wilp_stats_reset(wilp_stats *st)
{
	*st = (wilp_stats){0};
	st->objective = st->bound = st->gap = st->top_gap = NAN;
}

/* Estimated model size, for --mode auto (cheap: no GLPK call). */
void wilp_estimate(const wp_problem *p, int *rows, int *cols, long *nonzeros);

/* Solve by the deadline; `warm` (may be NULL) must be feasible.  On
 * success `out` holds the best solution found (at worst a copy of
 * warm). */
int wilp_solve(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	       const wp_sol *warm, wp_sol *out, wilp_stats *st,
	       wasp_error *err);

/* Tuning and test knobs (tests/check_ilp.c, measurements); the plain
 * wilp_solve uses the defaults.  Fields named out_* are filled in. */
enum {
	WILP_CUT_GMI = 1,
	WILP_CUT_MIR = 2,
	WILP_CUT_COV = 4,
	WILP_CUT_CLQ = 8
};
#define WILP_CUTS_DEFAULT (WILP_CUT_GMI | WILP_CUT_MIR | WILP_CUT_COV | \
			   WILP_CUT_CLQ)

typedef struct wilp_tune {
	int cuts;           /* WILP_CUT_* mask; -1: WILP_CUTS_DEFAULT        */
	double max_coef;    /* largest objective coefficient of one weighted
			       solve; 0: the default (2^30).  1 forces one
			       solve per tier                               */
	int symmetry;       /* 0: no symmetry-breaking rows; -1: default on  */
	int mem_limit_mb;   /* > 0: glp_mem_limit (to provoke a GLPK fault)  */
	int fault;          /* 1: make a GLPK call fail (test of the hook)   */
	bool names;         /* name rows and columns while solving too       */
	int heuristic;      /* 0: no LP rounding heuristic; -1: default on   */
	bool no_dth;        /* never Driebeek-Tomlin branching: its steps
			       cannot be interrupted (a solve with little
			       time left, agg.c)                           */
	bool glpk_branching; /* GLPK's branching rule on small models too,
				instead of wasp's (doc/formulation.md §6b) */
	bool glpk_dth;      /* GLPK's own Driebeek-Tomlin rule where it
			       applies, not dth.h's (the same rule)        */
	int root_cuts;      /* 0: no Gomory rounds and no dive at the root
			       (gomory.h, dive.h); -1: the default, on
			       models of at most WILP_RB_MAX_COLS columns  */
	int out_blocks;     /* solves in sequence (1: one weighted solve)    */
	double out_maxcoef; /* largest coefficient of the single objective   */
	int out_symrows;    /* symmetry-breaking rows                        */
	bool out_warm_ok;   /* the warm start passed every row               */
	bool out_warm_injected; /* GLPK took it as an incumbent             */
	int out_heur;       /* incumbents found by the LP rounding heuristic */
	long out_strong;    /* strong branches (branch.h)                    */
	long out_dth;       /* branchings chosen by dth.h                    */
	int out_root_rounds; /* Gomory rounds at the root (gomory.h)         */
	int out_root_kept;  /* cut rows they left in the model               */
	double out_root_bound; /* the root LP's objective after the rounds   */
	bool out_root_dive; /* the dive's plan (dive.h) became the incumbent */
} wilp_tune;

void wilp_tune_init(wilp_tune *t);
int wilp_solve_tuned(const wp_problem *p, const wasp_options *o,
		     wb_deadline dl, const wp_sol *warm, wp_sol *out,
		     wilp_stats *st, wilp_tune *tune, wasp_error *err);

/* The objective's unit for one pod of class c: 1, or with --value RES
 * its request of RES over vgcd = wilp_value_gcd(p), the gcd of every
 * class's request of RES (shared with the part model, agg_build.c). */
int64_t wilp_value_gcd(const wp_problem *p);
int64_t wilp_class_value(const wp_problem *p, int c, int64_t vgcd);

/* LP values for the node model's rounding heuristic, by column kind,
 * from another model (agg_glpk.c: the model over parts). */
typedef struct wilp_guide {
	void *ctx;
	double (*x)(void *ctx, int slot);        /* pods of a slot        */
	double (*adm)(void *ctx, int g);         /* a[g], group admitted  */
	double (*gdom)(void *ctx, int g, int d); /* t[g,d]                */
	double (*comp)(void *ctx, int h);        /* a[h], composite       */
	double (*cdom)(void *ctx, int h, int d); /* t[h,d]                */
} wilp_guide;

/* The node model's LP rounding (groups by priority and admission, trees
 * whole, pods where the LP puts them; `passes` passes, perturbed after
 * the first) from guide values instead of its own LP.  1: out holds the
 * best pass that met every row (nothing evicted); 0: none did or the
 * deadline came first; -1: NOMEM. */
int wilp_round(const wp_problem *p, const wilp_guide *g, int passes,
	       wb_deadline dl, wp_sol *out);

/* The objective's work tiers, shared with the part model so that both
 * weigh a solution alike: distinct pending priorities, highest first, in
 * tprio; per tier its range tM and largest unit tmax (added to, so zero
 * them first); per class its tier in ctier.  Arrays of nclasses + 1
 * entries at least.  Returns the number of tiers. */
int wilp_work_tiers(const wp_problem *p, int32_t *tprio, double *tM,
		    double *tmax, int *ctier);
/* Weights of tiers s..e weighed as one objective (w[e] = 1, w[t] =
 * w[t+1] (1 + tM[t+1])) into w (may be NULL); returns the largest
 * coefficient, w[t] tmax[t]. */
double wilp_tier_weights(const double *tM, const double *tmax, int s,
			 int e, double *w);

/* The node model solved by the external program CBC (doc/formulation.md
 * §7b): written as CPLEX LP with the warm start as its MIP start into a
 * private temporary folder, `cbc` from PATH run on it under the deadline
 * (killed at the deadline or on a cancel), its solution read back by
 * column name and checked row by row.  Same contract as wilp_solve;
 * WASP_ESOLVER when cbc is not found or fails. */
int wilp_solve_cbc(const wp_problem *p, const wasp_options *o,
		   wb_deadline dl, const wp_sol *warm, wp_sol *out,
		   wilp_stats *st, wasp_error *err);

/* An upper bound at every size (doc/formulation.md §12): the LP over
 * node classes and the domains of gangs with a required key, with rows
 * rounded per pod shape, its work tiers maximised in sequence (within
 * 15% of the time left; past that the plain LP over node classes, see
 * wilp_class_bound_plain, is solved instead).  Per tier of
 * wp_evaluate (prio, highest first): ub, the most work any plan admits
 * there given at least ub in every tier above (so ub bounds every plan's
 * work vector lexicographically), and total, the pending work.  w are
 * weights that make the tiers one number (w[last] = 1, w[t] = w[t+1]
 * (1 + total[t+1])).  WASP_ESOLVER when the LP fails or would be too
 * large (estimated before it is built), WASP_ECANCELED at the
 * deadline. */
typedef struct wilp_cbound {
	bool ok;
	int ntier;
	int32_t prio[WP_MAX_TIERS];
	double ub[WP_MAX_TIERS], total[WP_MAX_TIERS], w[WP_MAX_TIERS];
	int rows, cols, node_classes;
	int dom_gangs;      /* gangs with columns per domain of their key  */
	/* tier 0 by column generation over whole-gang patterns: the LP's
	 * bound before it, rounds, patterns, seconds (lp_ub0 NAN: none) */
	double lp_ub0, cg_s;
	int cg_rounds, cg_cols;
	/* tier 0 by the MIP over whole gangs (bound_mip.c): its bound
	 * (NAN: none), size, branch-and-bound nodes, seconds, and how it
	 * ended ("proven", "stopped", ...; NULL: not run) */
	double mip_ub0, mip_s;
	int mip_rows, mip_cols, mip_types, mip_nodes;
	int mip_split;      /* the pieces rows added (split_rows)         */
	int mip_spread;     /* columns spreading coarser gangs' pods over
			       the finest key's domains (spread_cols)     */
	double mip_unspread; /* the bound before them (NAN: none)         */
	int mip_hinted;     /* gangs given a domain in hint (below)       */
	const char *mip_status;
} wilp_cbound;
int wilp_class_bound(const wp_problem *p, wb_deadline dl, wilp_cbound *b,
		     wasp_error *err);
/* The same, and hint (3 * p->ngroups, caller-owned, or NULL) gets the
 * top tier's gangs' domains in three answers of the whole-gang MIP: per
 * group a domain of its key (0 for a gang without a key), -1 for a
 * group the answer does not admit or that is not in it.  The first
 * answer is branch and bound's, else its LP's rounded and filled; the
 * second the LP's rounded only; the third the LP's with the pieces rows
 * (bound_mip.c) rounded and filled (all -1 where that LP did not run);
 * WILP_HINTS answers in all. */
#define WILP_HINTS 3
int wilp_class_bound_hint(const wp_problem *p, wb_deadline dl, int *hint,
			  wilp_cbound *b, wasp_error *err);
/* The same LP without the rounded rows and the gangs' domain columns
 * (only node classes): tests show what those add. */
int wilp_class_bound_plain(const wp_problem *p, wb_deadline dl,
			   wilp_cbound *b, wasp_error *err);
/* A plan's work tiers in the bound's weights, and the bound itself. */
double wilp_cbound_value(const wilp_cbound *b, const wp_value *v);
double wilp_cbound_bound(const wilp_cbound *b);

/* Large neighbourhood search (doc/formulation.md §12, lns.c): sub-ILPs
 * over a few topology domains with the rest of the plan fixed, from
 * `sol` (feasible), which ends as the best plan found (never worse).
 * It applies without device claims, moves, trees and annotations, and
 * needs a topology key with small domains. */
typedef struct wilp_lns_stats {
	const char *key;    /* the key of the neighbourhoods' domains      */
	int rounds;         /* sweeps over the domains                     */
	int tried;          /* neighbourhoods with something to re-plan    */
	int improved;       /* answers taken                               */
	int cut;            /* sub-solves stopped by their time limit      */
	/* of tried and improved: the part neighbourhoods (domains of key
	 * within one domain of part_key, lns.c), and the block ones (whole
	 * domains of part_key, only its top-priority groups free); 0 where
	 * none were made */
	const char *part_key;
	int part_tried, part_improved;
	int block_tried, block_improved;
	/* the top ones (up to WLNS_TOP_NODES nodes of key's domains, only
	 * the top priority's groups free) */
	int top_tried, top_improved;
	/* the search went on from the smallest-pods-first plan, better
	 * than its own after the first sweep (counted in improved) */
	bool alt;
	bool deadline;      /* the run's deadline ended the search         */
	double seconds;
} wilp_lns_stats;
bool wilp_lns_applies(const wp_problem *p, const char **why);
int wilp_lns(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	     wp_sol *sol, wilp_lns_stats *st, wasp_error *err);
/* The same with at most `rounds` sweeps of each kind (wilp_lns: 12) and sub-ILPs of
 * at most sub_s seconds (<= 0: wilp_lns's 0.4 s), doubled after a sweep
 * that improved nothing but had some cut; tests take fewer sweeps and
 * no cap worth the name, so that no sub-solve is cut. */
int wilp_lns_rounds(const wp_problem *p, const wasp_options *o,
		    wb_deadline dl, int rounds, double sub_s, wp_sol *sol,
		    wilp_lns_stats *st, wasp_error *err);

/* Is there a `cbc` on PATH? */
bool wilp_cbc_available(void);

/* Write the model (LP, MPS) or GMPL data for models/wasp.mod (DAT). */
int wilp_export(const wp_problem *p, const wasp_options *o, int format,
		const char *path, wasp_error *err);

#endif
