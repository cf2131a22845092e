/*
 * agg_int.h -- the model over parts' internals, shared by the agg*.c files
 * (agg.h is the public side; doc/formulation.md §10).
 *
 * A part is a set of nodes that lie in the same domain of every topology
 * key that matters and are eligible for the same classes.  The part model
 * has one integer column per (class, part), the node model's group, tree
 * and packing columns, and per part:
 *   - the node model's capacity rows (per resource and priority level)
 *     summed over the part's nodes;
 *   - floor rows: for each request size s of a resource, a pod takes
 *     floor(req / s) slots and a node has floor(free / s), summed per
 *     node and so valid for any packing; for sizes that divide one another
 *     (1, 2, 4, 8 GPUs) and no eviction they are exact: largest-first
 *     packing then fits whatever they admit;
 *   - u[P], the part's nodes that stay wholly free, taking the room of
 *     the smallest such node out of every row.
 * Every node solution maps to a part solution of equal objective (the
 * weights are the node model's), so the part optimum bounds the node
 * optimum.  Plans come back to nodes three ways, the best kept: the node
 * model's LP rounding run on the part LP (wilp_round); the part answer
 * split part by part by a small GLPK model (agg_split.c); and, with the
 * time left, the node model confined to the parts those use (confine).
 * When the plan reaches the part bound it is optimal.
 *
 * Not covered (wag_applies says which): device claims, moves, topology
 * annotations, PodDisruptionBudgets, over-committed nodes.  wag_solve
 * hands the problem to the node model when parts barely merge nodes or
 * the objective is too wide for one weighted solve.
 *
 * Contract:
 *   - The part model's columns and rows live in the node model's builder
 *     arrays (struct wmb, ilp_int.h) and are added with its functions
 *     (wm_col through ag_col, wm_row_begin, wm_coef, wm_row_end with
 *     keep_empty set, wm_row_drop); wm_check checks a point.  The weights
 *     and tier values are the node model's (objective.c).
 *   - wag_build runs the steps in a fixed order; the order of columns and
 *     rows decides GLPK's path, so a step never reorders what it emits.
 *   - Every step stops on m->nomem; all memory lives in the run's arena.
 *   - Files: agg_parts.c (applicability, parts, eviction classes),
 *     agg_build.c (columns, rows, objective), agg_glpk.c (the part solve),
 *     agg_split.c (back to nodes), agg.c (entry points).
 */
#ifndef WASP_AGG_INT_H
#define WASP_AGG_INT_H

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/ilp/agg.h"
#include "solve/ilp/ilp_int.h"
#include "base/clock.h"
#include "solve/glpkenv.h"
#include "base/sort.h"
#include "reduce/units.h"

#define WAG_CONFINE_SHARE 0.4   /* of the time, kept for the confined
				   node solve                          */
#define WAG_CONFINE_MIN_S 0.5   /* ... when at least this much is left */
#define WAG_CUTS_MAX_COLS 5000  /* cuts on up to this many columns     */
#define WAG_ROUND_PASSES 32     /* node-level roundings of the part LP  */

/* Column kinds of the part model (m->ckind), as the node model's WM_*:
 * X per (class, part), A per group, T per (group, domain), H and S per
 * composite, U per part, V a packing domain, Q an eviction class. */
enum { AG_X, AG_A, AG_T, AG_H, AG_S, AG_U, AG_V, AG_Q };

/* The part model. */
typedef struct ag {
	WMB_MEMBERS;        /* columns and rows (ilp_int.h), rows kept
			       even when empty (keep_empty)           */
	double *cobj;       /* per column: its objective coefficient   */
	size_t capo;
	const wp_problem *p;
	/* parts: nodes of part i are pnode[pbeg[i] .. pbeg[i+1]) */
	int npart;
	int *part;          /* per node */
	int *pbeg, *pnode;
	/* running units that some pending group could evict (the node
	 * model's eviction classes, preempt.c), and their classes over parts */
	unsigned char *evu; /* per unit */
	int *nub, *nup, *nuu; /* per node: pods of evictable units there,
				 and their units                       */
	int nqc;
	int *qc_beg, *qc_units, *unit_qc;
	/* maps */
	int *nub_x;         /* per node * class: x bound on that node     */
	int *xcol, *xub;    /* nclasses * npart                          */
	int *xfit;          /* nclasses * npart: nodes with room for one  */
	int *sub;           /* per slot: pods of the class its node holds
			       alone (node_bound), 0 outside the part's
			       allowed domains                           */
	unsigned char *hascol; /* per node: some class may use it        */
	int *acol, *tbeg, *tn; /* per group                              */
	int *hcol, *hbeg, *hn; /* per composite                          */
	int *ucol;          /* per part                                   */
	int *nnu;           /* per part: its NU nodes                     */
	unsigned char *nu;  /* per node: empty and eligible for a class   */
	int *qcol;          /* per eviction class                         */
	/* objective tiers: work per priority, evictions, packing */
	int ntier, qtier;
	int32_t *tprio;
	double *tM, *tmax, *W;
	int *ctier;         /* per class */
	double maxcoef;
} ag;

/* One run of the part model: its GLPK environment and watch, the root
 * LP, the rounding of it, and the splitting deadline. */
typedef struct wag_run {
	wgl_env env;
	wgl_watch w;
	const ag *m;
	const wasp_options *o;
	double *lp;         /* the root LP's column values              */
	bool lp_done;
	wp_sol *hsol;       /* the node model's rounding of that LP      */
	bool hfound;
	wb_deadline split_by; /* splitting stops here (the run's deadline) */
	struct wdth *dth;   /* Driebeek-Tomlin (dth.h); NULL: GLPK's MFV   */
} wag_run;

/* agg_parts.c */
int wag_dom_of(const ag *m, int key, int part);
void wag_make_parts(ag *m);
int wag_unit_node(const wp_problem *p, int u);
void wag_make_qclasses(ag *m);
int32_t wag_q_prio(const ag *m, int qc);
int wag_q_k(const ag *m, int qc);
int64_t wag_q_use(const ag *m, int qc, int P, int r, int64_t s);
double wag_q_cost(const ag *m, int qc);

/* agg_build.c */
void wag_cols_x(ag *m);
void wag_objective(ag *m);
int wag_build(ag *m);

/* agg_glpk.c */
bool wag_vec_of_sol(const ag *m, const wp_sol *s, double *v);
double wag_obj_at(const ag *m, const double *v);
void wag_keep_better(const wp_problem *p, wp_sol *cur, bool *got,
		     const wp_sol *cand);
int wag_guarded_part_solve(wag_run *r, double *best, bool *have_best,
			   bool *opt, double *bound, wasp_error *err);

/* agg_split.c */
int wag_guarded_split(const ag *m, wag_run *r, const double *v,
		      const wp_sol *warm, wp_sol *out, wasp_error *err);
wp_problem *wag_confine(const ag *m, const unsigned char *keep,
			wa_arena *ar);
void wag_map_sol(const wp_problem *p, const wp_problem *q,
		 const wp_sol *src, wp_sol *dst, bool to_q);

#endif
