/*
 * ilp_int.h -- the node model's internals, shared by the files of
 * src/solve/ilp/ that build, solve and export it (ilp.h is the public
 * side; doc/formulation.md states the model).
 *
 * Contract:
 *   - The model is built in plain arrays (struct wm), one function per
 *     variable or constraint family, before GLPK sees it, so that its size
 *     is known, a warm start and the MIP answer can be checked row by row
 *     without GLPK, and a GLPK fault (a longjmp out of the error hook)
 *     loses nothing but GLPK's memory, which glp_free_env() releases.  All
 *     other memory lives in one arena (m->ar).
 *   - Columns and rows are 1-based as in GLPK; the entries of row i are
 *     ja/av[rbeg[i] .. rbeg[i+1]-1].  Only build.c's wm_col, wm_row_begin,
 *     wm_coef, wm_row_end and wm_row_drop add to them; they work on the
 *     arrays alone (struct wmb), so the model over parts (agg_int.h) is
 *     built with them too, and a family written over a wmb serves both
 *     models (tree.c's wilp_rows_tree_over).
 *   - wm_build calls the families in a fixed order; the order of the
 *     columns and rows is part of the exported models (LP, MPS, GMPL
 *     data) and of every plan, so a family function never reorders what
 *     it emits.
 *   - A family function checks m->nomem (set by the builder on an
 *     allocation failure) and stops; wm_build stops between families once
 *     the deadline has passed (m->late).
 *   - Nothing here is called from outside src/solve/ilp/; the agg*.c
 *     files (the model over parts, agg_int.h) use the builder, the tree
 *     rows, the objective weights and wilp_eff_prio.
 *
 * Files, by family (sections of doc/formulation.md):
 *   build.c      the builder, the order of the families, point checks
 *   core.c       x, a, t, u columns; class, gang, capacity rows (§2, §3)
 *   topo.c       topology rows, annotations, packing columns (§3, §9)
 *   tree.c       CompositePodGroup trees (§9)
 *   preempt.c    eviction classes, budgets, freed claims (§4b)
 *   moves.c      move classes (§4c)
 *   dev_ways.c   DRA: ways of a slot's claims, the y columns (§3b)
 *   dev_rows.c   DRA: shared claims and the Hall rows (§3b)
 *   dev_answer.c DRA: device vectors and the answer's allocation (§3b)
 *   sym.c        symmetry rows (§5)
 *   objective.c  tiers and weights (§4)
 *   heur.c       the LP rounding heuristic (§6)
 *   branch.c     reliability branching in GLPK's callback (§6b; branch.h)
 *   driver.c     the GLPK run of one model (§6)
 *   solve.c      ilp.h's entry points (§6)
 *   export.c     LP, MPS and GMPL data (§7)
 *   cbc.c        the model solved by CBC as a child process (§7b)
 */
#ifndef WASP_ILP_INT_H
#define WASP_ILP_INT_H

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/ilp/ilp.h"
#include "base/clock.h"
#include "base/sort.h"
#include "base/rng.h"
#include "model/dra.h"
#include "solve/glpkenv.h"
#include "reduce/units.h"

/* Largest objective coefficient of one weighted solve.  GLPK's simplex
 * accepts a reduced cost d as optimal when |d| <= 1e-7 + 1e-10 |c|; below
 * 2^30 that slack stays under 0.11 of one unit of the lowest tier, so the
 * LP bounds used for pruning are exact to the unit (doc/formulation.md). */
#define WILP_MAX_COEF ((double)(1L << 30))
#define WILP_NAME_MAX 255   /* GLPK row/column name limit                 */
#define WILP_SYM_MAX 100    /* GMPL symbol length limit                   */
#define WILP_CUTS_MAX_COLS 5000 /* cut generation on up to this many cols */
/* GLPK's simplex set-up and tear-down (outside its tm_lim) per second
 * of loading the model into GLPK: 1.6-2.7 measured at 2,048 nodes (5.4 *
 * 10^6 nonzeros, 1.0-1.65 s of set-up under load); driver.c keeps that
 * much back from every LP and from intopt's root re-solve. */
#define WILP_LP_FIXED_PER_LOAD 2.5
/* Freeing the model's arena and GLPK's problem after the search, per
 * second of building the model: 0.1-0.5 s after 1.1-1.3 s of building
 * at 2,048 nodes under load (solve.c keeps it back from the search). */
#define WILP_FREE_PER_BUILD 0.5
#define WILP_HEUR_PASSES 32 /* LP rounding passes at a block's first node */
#define WILP_DTH_MAX_COLS 20000 /* DTH branching up to this many columns */
/* wasp's reliability branching (branch.c; doc/formulation.md §6b) on
 * models of at most this many columns (the 64-node instances have
 * 540-920); above, strong branching's LP copies grow with the model and
 * GLPK's Driebeek-Tomlin rule is kept. */
#define WILP_RB_MAX_COLS 2000

/* Column kinds (m->ckind; doc/formulation.md §2).  X: pods of a class
 * on a node; A: a group admitted; T: a group in a domain; U: a node left
 * empty. */
enum { WM_X, WM_A, WM_T, WM_U, WM_H, WM_S, WM_E, WM_K, WM_W, WM_Q, WM_B,
       WM_Y, WM_V, WM_Z, WM_SD, WM_L, WM_F, WM_P };
/* H, S: composites; E: exclusive domain; K: slice count; W: preferred
 * level domain left unused (§9); Q: units of an eviction class kept
 * running; B: a PodDisruptionBudget's allowance minus its violations
 * (preemption); Y: pods of a move class on one of its nodes (§4c);
 * V: pods of a slot met one way; Z: a shared claim's way; SD: a device
 * of a shared claim's request; L: a node a shared claim's devices all
 * reach (DRA); F: an allocated claim whose holders are all evicted
 * (its devices are free, DRA and preemption) P: a topology domain of
 * two or more nodes stays wholly free (packing tier, wilp_pk_cols) */

/* A term of an emitted device row kept for the GMPL data export
 * (write_dat): row, what it refers to (class, way, device, freed claim;
 * or, for the rows themselves, the node), coefficient (or free devices). */
typedef struct wdterm {
	int row, ref, coef;
} wdterm;

typedef struct wdterms {
	wdterm *t;
	int n;
	size_t cap;
} wdterms;

/* The model arrays and the builder's state (wm_col, wm_row_begin,
 * wm_coef, wm_row_end, wm_row_drop), shared by the node model (struct wm)
 * and the model over parts (agg_int.h).  Columns and rows are 1-based as
 * in GLPK, and the entries of row i are ja/av[rbeg[i] .. rbeg[i+1]-1].
 * The fields are listed once here and appear twice in each model, as
 * `b` (to hand to the builder) and as plain members (m->ncols) through
 * an anonymous union: WMB_MEMBERS. */
#define WMB_FIELDS                                                          \
	wa_arena *ar;                                                       \
	bool nomem;                                                         \
	bool names;         /* give rows and columns names (export)     */ \
	bool keep_empty;    /* keep rows without entries (the part model) */ \
	/* columns */                                                       \
	int ncols;                                                          \
	size_t capc;                                                        \
	double *clb, *cub;                                                  \
	unsigned char *ckind;                                               \
	int *cref;          /* X: slot; A, T: group; U: node */             \
	int *cdom;          /* T: domain                      */            \
	const char **cname;                                                 \
	/* rows */                                                          \
	int nrows;                                                          \
	size_t capr, caprb;                                                 \
	int *rbeg;                                                          \
	int *rtype;                                                         \
	double *rlo, *rhi;                                                  \
	const char **rname;                                                 \
	int nnz;                                                            \
	size_t cape;                                                        \
	int *ja;                                                            \
	double *av;

typedef struct wmb {
	WMB_FIELDS
} wmb;

#define WMB_MEMBERS                                                         \
	union {                                                             \
		wmb b;                                                      \
		struct {                                                    \
			WMB_FIELDS                                          \
		};                                                          \
	}

/* The node model: the builder's arrays (WMB_MEMBERS) and, per family,
 * where its columns are. */
typedef struct wm {
	WMB_MEMBERS;
	const wp_problem *p;
	wb_deadline deadline; /* stop building after it (m->late)         */
	volatile const int *cancel; /* wasp_options.cancel: late too      */
	bool late;
	/* maps from the problem */
	int *xcol, *xub;    /* nx: column of a slot (0: fixed at 0), its bound */
	int *acol;          /* ngroups */
	int *tbeg, *tn;     /* ngroups: t columns are contiguous              */
	int *ucol;          /* nnodes */
	int *nxbeg, *nxslot; /* per node: slots with a column                 */
	/* objective tiers: pending priority levels, highest first, then
	 * packing (the last tier) */
	int ntier;
	int32_t *tprio;
	double *tM;         /* largest value of the tier                     */
	double *tmaxval;    /* largest coefficient of one column             */
	int *ctier;         /* per column, -1: none                         */
	double *cval;       /* per column: value of one unit in its tier     */
	double *wfull;      /* per tier: weight of the single objective      */
	double maxcoef;     /* of the single objective                        */
	int nblock;
	int *bfirst;        /* nblock + 1: tiers [bfirst[b], bfirst[b+1])     */
	double *wblock;     /* per tier: weight inside its block             */
	int nsym;           /* symmetry rows                                 */
	int *symnode;       /* nodes sorted by signature                     */
	int *symrun, *symend; /* runs of interchangeable nodes (>= 2)        */
	int nsymrun;
	/* preemption (doc/formulation.md §4b): eviction classes of
	 * running units, each with a "keep" column q = units not evicted */
	int nqc;
	int *qc_beg, *qc_units; /* units of class i: [qc_beg[i], qc_beg[i+1]) */
	int *qcol;          /* per class: its q column                     */
	int *unit_qc;       /* per unit: its class, -1: never evicted       */
	unsigned char *hasq; /* per node: some class has a pod there       */
	int *nq_beg, *nq_list; /* per node: the classes with a pod there   */
	int nprio_t;        /* priority tiers of the objective            */
	int qtier;          /* the eviction tier, -1: none                */
	/* PodDisruptionBudgets over eviction classes: w[j] = V[j] minus
	 * the budget's violations */
	int *wcol;          /* per snapshot PDB: column, 0: none           */
	int *wV;            /* per snapshot PDB: pods the classes may take */
	int btier;          /* the budget tier, -1: none                  */
	/* CompositePodGroups (§9): a[h] and t[h,d] columns */
	int *hcol;          /* ncomps */
	int *hbeg, *hn;     /* ncomps: t[h,d] columns are contiguous         */
	/* annotations (§9): e[g,d] and k[g,l,d] columns */
	int *ebeg, *en;     /* ngroups                                       */
	int *kbeg, *kn;     /* ngroups * WS_MAX_SLICE_LAYERS                 */
	int nwcol;          /* w[g,k,d] columns (compactness tiers)          */
	/* DRA: device state before the solve, claim lists per class */
	wdr_state *dra;
	const wdr_podc **cpc;
	/* device rows as emitted, for the GMPL data export: per row its
	 * node (ref) and free devices (coef); then (row, class, coefficient)
	 * terms */
	wdterms dr, dt;
	/* moves (§4c): y columns per move class */
	int *ybeg;          /* per move class: y column of elig[0]; the
			       class's columns are contiguous            */
	int *mc_qc;         /* per move class: its eviction class, -1     */
	int *qc_mc;         /* per eviction class: its move class, -1      */
	int *ny_beg, *ny_list; /* per node: y columns there (home or in)   */
	unsigned char *mvin; /* per node: some pod may move in            */
	int64_t *mvfree;    /* nnodes * nres: room of pods that may leave  */
	int mtier;          /* the moves tier, -1: none                   */
	/* DRA, exact device model (wilp_rows_dev, doc/formulation.md §3b): the
	 * ways a slot's own claims can be met, each a list of demands
	 * (claim entry, alternative, count, devices of the node it may take
	 * as a bitmask over wilp_dv_cands) */
	bool dv_inexact;    /* some claim shape is only relaxed            */
	int *dv_wbeg, *dv_wend; /* per slot: its ways [wbeg, wend)          */
	int *dv_ycol;       /* per way: y column, 0: the slot's x          */
	int *dv_dbeg;       /* per way + 1: demands [dbeg[w], dbeg[w+1])   */
	int dv_nway;
	size_t dv_capw1, dv_capw2;
	int *dv_dent, *dv_dsub, *dv_dcnt;
	uint64_t *dv_dset;
	int dv_ndem;
	size_t dv_capd1, dv_capd2, dv_capd3, dv_capd4;
	const struct wdr_state *dv_vdra; /* allocation wilp_vec_from_x reads   */
	struct dvinst *dv_irec; /* per instance (shared claim); nw 0: none */
	struct dvs *dv_s;   /* s columns                                   */
	int dv_ns;
	size_t dv_caps;
	int *dv_shead;      /* per device: first s column entry, -1 none    */
	int *dv_wpen;       /* per way: sum of its alternatives' indexes  */
	size_t dv_capw3;
	int atier1;         /* firstAvailable tier + 1, 0: none            */
	wdterms ds;         /* (row, device) s terms, for write_dat        */
	wdterms dy;         /* device rows' y terms: (row, way, coefficient) */
	/* DRA and preemption (§3b, wilp_dv_held): allocated claims whose
	 * holders are all in eviction classes of their own; f[i] = 1 when
	 * all are evicted, and its devices then serve classes of strictly
	 * higher priority than every holder */
	int nfr;
	int *fr_spec;       /* per freeable claim: its spec                */
	int *fr_col;        /* its f column                                */
	int32_t *fr_prio;   /* highest priority of its holders             */
	int32_t fr_min;     /* lowest fr_prio                              */
	int *fr_qbeg, *fr_q; /* holder classes [fr_qbeg[i], fr_qbeg[i+1])  */
	int *dev_fr;        /* per device: the claim that frees it, -1     */
	wdr_state *dra_fr;  /* m->dra with the devices freeable for one
			       priority free (wilp_dv_fit_state)               */
	int32_t *fr_cur;    /* that priority                               */
	int32_t dv_prio;    /* priority of the slot wilp_dv_slot works on       */
	wdterms dh;         /* device rows' f terms: (row, claim, coefficient) */
	/* packing (§4): v[k,d] columns, one per domain of two or more
	 * nodes, all empty now, some in NU; cref = key, cdom = domain */
	int npk;
	unsigned char *pkkey; /* per key: it has v columns (symmetry)      */
} wm;

/* DRA, the exact device model (doc/formulation.md §3b; dev_ways.c,
 * dev_rows.c, dev_answer.c).
 *
 * A class's own claims on a node can be met in one or more *ways*: a
 * firstAvailable alternative per request and an attribute value per
 * matchAttribute constraint.  A way asks, per request, `count` devices
 * out of a *kind*: the node's free devices that match the alternative and
 * carry the chosen values.  Once every pod's way is fixed, the pods'
 * demands fit the node's devices iff Hall's condition holds for every set
 * S of kinds: the demands on kinds of S are at most |union of S| (a
 * bipartite b-matching, one device per unit of demand).  Only sets that
 * are connected by overlap and closed (no other kind lies inside their
 * union) can be tight, so one row per such set.  x[c,n] is split into
 * y[c,n,w] only where the slot has more than one way.  doc/formulation.md
 * §3b says what stays a relaxation (dv_inexact). */

#define WDV_MAXC 64      /* devices one node reaches (a 64-bit mask)   */
#define WDV_MAX_WAYS 64  /* ways of one slot                          */
#define WDV_MAX_COMB 4096 /* choice combinations tried per slot       */
#define WDV_MAX_VALS 16  /* attribute values of one constraint         */
#define WDV_MAX_PTS 16   /* choice points of one claim list           */
#define WDV_HALL 12      /* kinds of one component, all subsets       */

/* A shared claim not yet allocated: its ways (z columns). */
typedef struct dvinst {
	int inst, spec;
	int nw, zfirst;      /* z columns zfirst .. zfirst + nw - 1         */
	int *alt;            /* nw * nreqs: the way's alternative           */
	const wcel_attr **val; /* nw * ncons: the way's value (NULL: none)   */
	int q;               /* most devices of one way                     */
} dvinst;

typedef struct dvs {
	int inst, req, dev, col, next; /* next: same device, -1 end       */
} dvs;

/* One GLPK run (driver.c) and its LP rounding heuristic (heur.c). */
typedef struct wilp_run {
	wgl_env env;        /* GLPK hooks; env.P the problem (glpkenv.h) */
	const wasp_options *o;
	wilp_tune *tune;
	wgl_watch w;        /* deadline, bound, warm injection (glpkenv.h) */
	/* LP rounding heuristic (wilp_heur_round) */
	const wm *m;
	int nheur;          /* GLP_IHEUR calls in this block               */
	int heur_found;     /* solutions it gave GLPK                     */
	double *lp, *hv;    /* ncols + 1                                   */
	int *hx, *hlog;     /* nx + 1, placements to undo                  */
	int64_t *rem;       /* nnodes * nres                                */
	int *gord;          /* ngroups                                      */
	double *gkey;       /* ngroups: sort key                            */
	int *dord;          /* candidate t columns                          */
	double *dval;       /* their sort keys                              */
	double *hbest;      /* best heuristic vector of a call              */
	int block;          /* block being solved                           */
	/* trees in the rounding (§9): (key, domain) pairs every
	 * placement must meet, and the roots already placed this pass */
	int hck[WS_MAX_TREE_DEPTH + 2], hcd[WS_MAX_TREE_DEPTH + 2], nhc;
	unsigned char *hroot; /* ncomps */
	double prog_t;      /* last progress report (wasp_options.progress) */
	struct wbr *br;     /* wasp's branching (branch.h); NULL: GLPK's   */
	struct wdth *dth;   /* Driebeek-Tomlin on wasp's tableau rows
			       (dth.h), where GLPK's DTH would run          */
} wilp_run;

/* A solve of all blocks, kept across the longjmp of a GLPK fault. */
typedef struct solve_state {
	wm m;
	wilp_run run;
	double *best;     /* best column vector so far (rows checked) */
	bool have_best;
	bool all_opt;
	bool injected_any;
	double bound0;    /* bound of block 0 (the single objective if one) */
	int blocks_done;
} solve_state;

/* build.c */
bool wm_grow(wmb *b, void **arr, size_t el, size_t *cap, size_t need);
const char *wm_name(wmb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int wm_col(wmb *b, int kind, int ref, int dom, double lb, double ub,
	   const char *name);
void wm_row_begin(wmb *b);
void wm_coef(wmb *b, int j, double v);
void wm_row_end(wmb *b, int type, double lo, double hi,
		const char *name);
void wm_row_drop(wmb *b);
const char *wilp_group_name(const wp_problem *p, int g, char *buf,
			    size_t size);
int wilp_x_bound(const wp_problem *p, int c, int n);
int wm_build(wm *m, const wp_problem *p, wa_arena *ar,
	     double max_coef, bool sym, bool names, wb_deadline deadline,
	     volatile const int *cancel);
int wm_check(const wmb *m, const double *v, double tol);
void wilp_vec_from_x(const wm *m, const int *x, double *v);

/* core.c */
void wilp_cols_x(wm *m);
void wilp_cols_a(wm *m);
void wilp_cols_t(wm *m);
void wilp_cols_u(wm *m);
void wilp_rows_class(wm *m);
void wilp_rows_gang(wm *m);
void wilp_rows_cap(wm *m);

/* topo.c */
void wilp_pk_cols(wm *m);
bool wilp_pk_free(const wm *m, int j, const unsigned char *busy);
void wilp_rows_topo(wm *m);
void wilp_cols_tas(wm *m);
void wilp_rows_tas(wm *m);
void wilp_cols_rows_pref(wm *m);
bool wilp_w_unused(const wm *m, const int *x, int j);
void wilp_vec_pref(const wm *m, const int *x, double *v);
void wilp_vec_tas(const wm *m, const int *x, double *v);

/* tree.c */
const char *wilp_comp_name(const wp_problem *p, int h, char *buf,
			   size_t n);
void wilp_cols_h(wm *m);
void wilp_rows_tree(wm *m);
/* The columns the tree rows refer to, in either model: per group its a
 * column, per composite its a column and t columns [hbeg, hbeg + hn);
 * terms adds the x columns of group g in domain d of key and returns
 * their room, min(size, sum of min(count, bounds)). */
typedef struct wilp_tree_cols {
	const int *acol;
	const int *hcol, *hbeg, *hn;
	long (*terms)(void *ctx, const wp_group *g, int key, int d);
	void *ctx;
} wilp_tree_cols;
void wilp_rows_tree_over(wmb *b, const wp_problem *p,
			 const wilp_tree_cols *t);
void wilp_vec_tree(const wm *m, const int *x, double *v);

/* preempt.c */
int32_t wilp_q_prio(const wm *m, int qc);
int wilp_q_ub(const wm *m, int qc);
int64_t wilp_q_use(const wm *m, int qc, int n, int r);
double wilp_q_cost(const wm *m, int qc);
void wilp_q_classes(wm *m);
void wilp_cols_q(wm *m);
void wilp_cols_w(wm *m);
void wilp_rows_budget(wm *m);
void wilp_rows_max_evict(wm *m);
int wilp_q_pods(const wm *m, int qc);
int wilp_x_bound_q(const wm *m, int c, int n);
int32_t wilp_eff_prio(const wp_problem *p, int c);
void wilp_rows_cap_q(wm *m, int n);
void wilp_dv_held(wm *m);
void wilp_cols_rows_fr(wm *m);
void wilp_f_from_q(const wm *m, double *v);
void wilp_w_from_q(const wm *m, double *v);
void wilp_fill_evictions(const wm *m, const double *v, wp_sol *out);

/* moves.c */
const wp_mclass *wilp_y_class(const wm *m, int j);
void wilp_mv_setup(wm *m);
void wilp_cols_y(wm *m);
void wilp_rows_move(wm *m);
void wilp_mv_room(const wm *m, int n, int r, int64_t *g, double *room);
int64_t wilp_mv_rhs(const wm *m, int n, int r, int32_t L);
void wilp_mv_coefs(wm *m, int n, int r, int32_t L, int64_t g);
bool wilp_y_from_sol(const wm *m, const wp_sol *s, double *v);
void wilp_fill_moves(const wm *m, const double *v, wp_sol *out);
double wilp_mv_obj(const wm *m, const wp_sol *out);

/* dev_ways.c */
void wilp_dterm_add(wm *m, wdterms *l, int ref, int coef);
void wilp_dr_note(wm *m, int n, int f);
void wilp_dt_note(wm *m, int c, int q);
int wilp_dv_cands(const wm *m, int n, int *cand, bool *global);
const wdr_state *wilp_dv_fit_state(const wm *m, int c);
void wilp_dv_slot(wm *m, int sl, const wdr_podc *pc, int n,
		  const int *cand, int nc, bool global);
void wilp_dy_note(wm *m, int w, int q);

/* dev_rows.c */
bool wilp_dvi_in(const wm *m, const dvinst *I, int w, int r, int dev);
void wilp_rows_dev(wm *m);

/* dev_answer.c */
void wilp_dev_vec(const wm *m, const int *x, double *v);
const wdr_state *wilp_dev_answer(const wm *m, const double *v);
void wilp_dv_estimate(const wp_problem *p, long *r, long *c, long *nz);

/* sym.c */
void wilp_sym_runs(wm *m);
void wilp_rows_sym(wm *m);
int wilp_sym_permute(const wm *m, int *x);

/* objective.c */
double wilp_dv_col_pen(const wm *m, int j);
void wilp_objective(wm *m, double max_coef);
long double wilp_obj_at(const wm *m, int b, const double *v);
double wilp_coef_of(const wm *m, int b, int j);
bool wilp_int_objective(const wm *m, int b);

/* heur.c */
bool wilp_cancelled(const wilp_run *r);
void wilp_heur_pass(wilp_run *r, double noise, uint64_t *rs);
void wilp_heur_round(glp_tree *T, wilp_run *r, int passes);
int wilp_heur_alloc(wilp_run *r, const wm *m);

/* driver.c */
int wilp_glpk_begin(wilp_run *r, wasp_error *err);
/* GLPK's memory limit in MB (glp_mem_limit; 0: none) for a solve within
 * o->max_memory bytes (the ILP's share, run/run.c) of which `used` are
 * taken by the model's arena (capped by wilp_mem_cap). */
int wilp_mem_mb(const wasp_options *o, size_t used);
void wilp_mem_cap(const wasp_options *o, wa_arena *a);
/* e (NULL: none) is polled for a cancel while loading (wgl_poll). */
void wilp_load_prob(const wm *m, glp_prob *P, int block, wgl_env *e);
int wilp_guarded_run(solve_state *S, wasp_error *err);

/* solve.c: shared with cbc.c */
int wilp_warm_vec(wm *m, const wp_sol *warm, int *xw, double *best);
bool wilp_read_answer(const wm *m, const double *v, bool have,
		      const wp_sol *warm, wp_sol *out);
double wilp_answer_obj(const wm *m, const wp_sol *out);

#endif
