/*
 * bound_int.h -- what the bound's two files share (doc/formulation.md
 * §12): bound.c builds the LP over node classes and domains and solves
 * its tiers; bound_cg.c tightens the top tier by column generation over
 * whole-gang patterns per domain.
 */
#ifndef WASP_SOLVE_ILP_BOUND_INT_H
#define WASP_SOLVE_ILP_BOUND_INT_H

#include "solve/ilp/ilp_int.h"

/* The bound LP is not built above this many columns or entries. */
#define WILP_BOUND_MAX_COLS 2000000L
#define WILP_BOUND_MAX_NZ 20000000L
/* LP optima within this of a whole unit are that unit. */
#define WILP_BOUND_TOL 1e-6
/* Pod shapes of the rounded capacity rows, at most. */
#define WILP_BOUND_MAX_SHAPES 4
/* The full LP gets this share of the time left (at least MIN_S); past
 * it the plain LP over node classes is solved instead, and the pass
 * that the whole-gang MIP leads is lost with it (gpu-10000 with a
 * `make check` beside it: 19,678 top-priority pods instead of 20,104).
 * Quiet, gpu-10000's full LP takes 5.5 s of the 7.5 s that 15% gave. */
#define WILP_BOUND_SHARE 0.3
#define WILP_BOUND_MIN_S 1.0
/* The top tier's patterns per domain (bound_cg.c) get this share of
 * the full LP's time left after its first tier. */
#define WILP_BOUND_CG_SHARE 0.25
/* The top tier's MIP over whole gangs (bound_mip.c) gets this share of
 * the run's time left after the patterns (not of the LP's share: at
 * 10,000 nodes its LP alone takes seconds). */
#define WILP_BOUND_MIP_SHARE 0.25
#define WILP_BOUND_MIP_SHARE_NO_EVICT 0.5
/* ... and is not started when its LP would likely take longer than the
 * share: about this many seconds per column (measured: 1.2 s for 9,760
 * columns at 2,048 nodes, 14 s for 67,000 at 10,000, quiet). */
#define WILP_BOUND_MIP_S_PER_COL 2e-4
/* Branch-and-bound nodes after its LP, at most (where nothing may be
 * evicted; none where something may): a count, not the clock, so that
 * its answer is the same on every machine.  The LP's bound is usually
 * within a pod of the MIP's (bench/README.md); the nodes are for a
 * whole-gang answer to lead a greedy pass (run.c). */
#define WILP_BOUND_MIP_NODES 50
/* ... and none above this many columns (a node there costs seconds:
 * 5 nodes in 10 s on frag-10000, and none found an answer). */
#define WILP_BOUND_MIP_BB_MAX_COLS 30000
/* "At most k gangs per domain" rows, k = 1..this. */
#define WILP_BOUND_MAX_PER_DOM 3
/* Pods per node when a class requests nothing (not limited). */
#define WILP_BOUND_NO_FIT_LIMIT 1e9
/* Domain columns of the gangs, at most. */
#define WILP_BOUND_MAX_DCOLS 300000L

/* A gang type: n gangs alike (group g is the first; the same class
 * shape, key, priority and fixed domain, sizes in one bucket), class c,
 * F the pods of c that fit per (domain of the key, node class of c's
 * eligibility), on: it has domain columns (ncol of them). */
typedef struct cb_type {
	int g, c, n;
	int run;            /* gangs of one shape and key share a run     */
	int cmax, need;     /* the largest count, the smallest need       */
	double tot;         /* pods of all n                              */
	const double *F;
	bool on;
	int ncol;
} cb_type;

typedef struct cb_state {
	const wp_problem *p;
	int nel;            /* distinct eligibility arrays                */
	int *cel;           /* per class: its array id, -1: no pods       */
	const int **elv;    /* per id: the array and its length           */
	int *eln;
	int *nbeg, *nlist;  /* per node: the ids containing it            */
	int *ncls;          /* per node: its node class                   */
	int nk;
	int *kbeg, *klist;  /* per id: the node classes it reaches        */
	int nlev;
	int32_t lev[WP_MAX_TIERS + 1]; /* eff priority levels, ascending */
	int *clev;          /* per class: the level of its eff priority   */
	double *capn;       /* nnodes * nres * nlev: room per node (ROOM) */
	const int64_t *shape[WILP_BOUND_MAX_SHAPES]; /* pod shapes (req) */
	int nsh;
	int scarce;         /* the resource the shapes are chosen by      */
	bool plain;         /* no shapes, no domain columns (tests)       */
	double *rscale;     /* per resource: its largest request (rows in
			       that unit, so that GLPK sees numbers near 1) */
	int nw;             /* capacity rows per place and level          */
	const int *ct;      /* per class: its tier                        */
	cb_type *ty;        /* gang types                                 */
	int nty;
	unsigned char *dom; /* per class: typed (domain columns)          */
	/* columns: class, node class, type (-1: node-class column),
	 * domain, upper bound, the type row's min(count, F_D) */
	int *jc, *jk, *jt, *jd;
	double *jub, *jm, *jf; /* ... and F_D */
	int nrun;
	int *runkey;        /* per run: its key                           */
	long *runbase;      /* per run: its first "at most k" row         */
	int ncol;
	long g0;            /* first node-class capacity row (virtual)    */
	long *kbase;        /* per key: first domain row, -1: none        */
	long run0;          /* the first "at most k" row                  */
	int *rowid;         /* per virtual row: its GLPK row, 0: none     */
	wb_deadline run_dl; /* the run's deadline (the MIP's share)       */
} cb_state;


#define WCB_ROOM(S, n, r, l)                                                   \
	(S)->capn[((size_t)(n) * (S)->p->nres + (r)) * (S)->nlev + (l)]

double wcb_shape_fit(const cb_state *S, const int64_t *q, int n, int l);
double wcb_shape_coef(const cb_state *S, const int64_t *req,
		      const int64_t *q);
double wcb_pod_work(const wp_problem *p, int c);
/* Gangs a and b (one class each) share a fit per domain: the same
 * eligibility, level, key and requests (0); else their order.  ctx is
 * the cb_state. */
int wcb_cmp_fit(const void *ctx, int a, int b);
/* One place up a chain of nested keys: (*key, *d) becomes the parent
 * key's domain holding d, or *key -1 (the cluster, *d -1) past the
 * coarsest or where d nests in none. */
void wcb_up(const wtp_topo *T, int *key, int *d);
int wcb_col_coefs(const cb_state *S, int j, long *vo, double *co);
/* Column generation over whole-gang patterns for tier 0 (bound_cg.c):
 * P is the bound LP just solved for tier 0; on return it is as before
 * (rows, columns, bounds and basis).  *ub: a bound on tier 0's work,
 * INFINITY when none was proven in time.  WASP_ENOMEM only. */
int wcb_cg_tier0(cb_state *S, glp_prob *P, const int *ct, wb_deadline dl,
		 wa_arena *a, double *ub, wilp_cbound *b);

/* The MIP over whole gangs for tier 0 (bound_mip.c), within its share
 * of S->run_dl, in the caller's GLPK environment: *ub its bound on tier
 * 0's work (INFINITY: none in time); b gets its figures; hint
 * (WILP_HINTS * ngroups, or NULL) the domain of each gang in its
 * answers, where it had one.  -1 NOMEM. */
int wcb_mip_tier0(cb_state *S, const int *ct, wa_arena *a, int *hint,
		  double *ub, wilp_cbound *b);

#endif
