/*
 * ilp.c -- the integer program of DESIGN.md §5 built from a wp_problem,
 * solved with GLPK under a deadline, and written out as LP, MPS or GMPL
 * data for models/wasp.mod.  doc/formulation.md states the model, the
 * objective weights with their proof, and the tier-by-tier fallback.
 *
 * The model is first built in plain arrays (struct wm), one function per
 * variable or constraint family, so that its size is known, the warm start
 * and the MIP answer can be checked row by row without GLPK, and a GLPK
 * fault (a longjmp out of the error hook) loses nothing but GLPK's memory,
 * which glp_free_env() releases.  All other memory lives in one arena.
 */
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
#define WILP_MARGIN_S 0.1   /* left of the deadline for GLPK's overshoot  */
#define WILP_NAME_MAX 255   /* GLPK row/column name limit                 */
#define WILP_SYM_MAX 100    /* GMPL symbol length limit                   */
#define WILP_CUTS_MAX_COLS 5000 /* cut generation on up to this many cols */
#define WILP_HEUR_PASSES 32 /* LP rounding passes at a block's first node */
#define WILP_DTH_MAX_COLS 20000 /* DTH branching up to this many columns */

enum { WM_X, WM_A, WM_T, WM_U, WM_H, WM_S, WM_E, WM_K, WM_W, WM_Q, WM_B,
       WM_Y, WM_V, WM_Z, WM_SD, WM_L, WM_F, WM_P };
/* H, S: composites; E: exclusive domain; K: slice count; W: preferred
 * level domain left unused (issue 5); Q: units of an eviction class kept
 * running; B: a PodDisruptionBudget's allowance minus its violations
 * (preemption); Y: pods of a move class on one of its nodes (issue 6);
 * V: pods of a slot met one way; Z: a shared claim's way; SD: a device
 * of a shared claim's request; L: a node a shared claim's devices all
 * reach (DRA); F: an allocated claim whose holders are all evicted
 * (its devices are free, DRA and preemption) P: a topology domain of
 * two or more nodes stays wholly free (packing tier, pk_cols) */

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

/* The model in plain arrays; columns and rows are 1-based as in GLPK, and
 * the entries of row i are ja/ar[rbeg[i] .. rbeg[i+1]-1]. */
typedef struct wm {
	const wp_problem *p;
	wa_arena *ar;
	bool nomem;
	bool names;         /* give rows and columns names (export)       */
	double deadline;    /* > 0: stop building after it (m->late)      */
	bool late;
	/* columns */
	int ncols;
	size_t capc;
	double *clb, *cub;
	unsigned char *ckind;
	int *cref;          /* X: slot; A, T: group; U: node */
	int *cdom;          /* T: domain                      */
	const char **cname;
	/* rows */
	int nrows;
	size_t capr, caprb;
	int *rbeg;
	int *rtype;
	double *rlo, *rhi;
	const char **rname;
	int nnz;
	size_t cape;
	int *ja;
	double *av;
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
	/* preemption (doc/formulation.md, Preemption): eviction classes of
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
	/* CompositePodGroups (issue 5): a[h] and t[h,d] columns */
	int *hcol;          /* ncomps */
	int *hbeg, *hn;     /* ncomps: t[h,d] columns are contiguous         */
	/* annotations (issue 5): e[g,d] and k[g,l,d] columns */
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
	/* moves (issue 6, section "moves"): y columns per move class */
	int *ybeg;          /* per move class: y column of elig[0]; the
			       class's columns are contiguous            */
	int *mc_qc;         /* per move class: its eviction class, -1     */
	int *qc_mc;         /* per eviction class: its move class, -1      */
	int *ny_beg, *ny_list; /* per node: y columns there (home or in)   */
	unsigned char *mvin; /* per node: some pod may move in            */
	int64_t *mvfree;    /* nnodes * nres: room of pods that may leave  */
	int mtier;          /* the moves tier, -1: none                   */
	/* DRA, exact device model (rows_dev, doc/formulation.md §3b): the
	 * ways a slot's own claims can be met, each a list of demands
	 * (claim entry, alternative, count, devices of the node it may take
	 * as a bitmask over dv_cands) */
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
	const struct wdr_state *dv_vdra; /* allocation vec_from_x reads   */
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
	/* DRA and preemption (issue 6, dv_held): allocated claims whose
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
			       priority free (dv_fit_state)               */
	int32_t *fr_cur;    /* that priority                               */
	int32_t dv_prio;    /* priority of the slot dv_slot works on       */
	wdterms dh;         /* device rows' f terms: (row, claim, coefficient) */
	/* packing (issue 6): v[k,d] columns, one per domain of two or more
	 * nodes, all empty now, some in NU; cref = key, cdom = domain */
	int npk;
	unsigned char *pkkey; /* per key: it has v columns (symmetry)      */
} wm;

/* ------------------------------------------------------------ building */

static bool wm_grow(wm *m, void **arr, size_t el, size_t *cap, size_t need)
{
	if (m->nomem)
		return false;
	if (need <= *cap)
		return true;
	if (wa_grow(m->ar, arr, el, cap, need)) {
		m->nomem = true;
		return false;
	}
	return true;
}

static const char *wm_name(wm *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A name GLPK's LP and MPS writers accept: no spaces or control
 * characters, at most 255 bytes. */
static const char *wm_name(wm *m, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (!m->names)
		return NULL; /* solving only: names cost time and memory */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	buf[WILP_NAME_MAX] = '\0';
	for (char *s = buf; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 127 ||
		    *s == ':' || *s == '+' || *s == '*' || *s == '^' ||
		    *s == '<' || *s == '>' || *s == '=')
			*s = '_';
	char *r = wa_strdup(m->ar, buf);
	if (!r)
		m->nomem = true;
	return r ? r : "";
}

static int wm_col(wm *m, int kind, int ref, int dom, double lb, double ub,
		  const char *name)
{
	size_t c0 = m->capc, c;
	int j = m->ncols + 1;
	c = c0;
	if (!wm_grow(m, (void **)&m->clb, sizeof *m->clb, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(m, (void **)&m->cub, sizeof *m->cub, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(m, (void **)&m->ckind, 1, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(m, (void **)&m->cref, sizeof *m->cref, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(m, (void **)&m->cdom, sizeof *m->cdom, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(m, (void **)&m->cname, sizeof *m->cname, &c, j + 1))
		return 0;
	m->capc = c;
	m->ncols = j;
	m->clb[j] = lb;
	m->cub[j] = ub;
	m->ckind[j] = (unsigned char)kind;
	m->cref[j] = ref;
	m->cdom[j] = dom;
	m->cname[j] = name;
	return j;
}

static void wm_row_begin(wm *m)
{
	if (!wm_grow(m, (void **)&m->rbeg, sizeof *m->rbeg, &m->caprb,
		     m->nrows + 3))
		return;
	m->rbeg[m->nrows + 1] = m->nnz + 1;
}

static void wm_coef(wm *m, int j, double v)
{
	size_t c0 = m->cape, c = c0;
	if (m->nomem || j <= 0 || v == 0)
		return;
	if (!wm_grow(m, (void **)&m->ja, sizeof *m->ja, &c, m->nnz + 2))
		return;
	c = c0;
	if (!wm_grow(m, (void **)&m->av, sizeof *m->av, &c, m->nnz + 2))
		return;
	m->cape = c;
	m->nnz++;
	m->ja[m->nnz] = j;
	m->av[m->nnz] = v;
}

/* Ends the row begun last; a row without entries is dropped. */
static void wm_row_end(wm *m, int type, double lo, double hi,
		       const char *name)
{
	if (m->nomem)
		return;
	int i = m->nrows + 1;
	if (m->nnz + 1 == m->rbeg[i])
		return;
	size_t c0 = m->capr, c;
	c = c0;
	if (!wm_grow(m, (void **)&m->rtype, sizeof *m->rtype, &c, i + 2))
		return;
	c = c0;
	if (!wm_grow(m, (void **)&m->rlo, sizeof *m->rlo, &c, i + 2))
		return;
	c = c0;
	if (!wm_grow(m, (void **)&m->rhi, sizeof *m->rhi, &c, i + 2))
		return;
	c = c0;
	if (!wm_grow(m, (void **)&m->rname, sizeof *m->rname, &c, i + 2))
		return;
	m->capr = c;
	m->nrows = i;
	m->rtype[i] = type;
	m->rlo[i] = lo;
	m->rhi[i] = hi;
	m->rname[i] = name;
	m->rbeg[i + 1] = m->nnz + 1;
}

/* Drops the row begun last (it cannot bind). */
static void wm_row_drop(wm *m)
{
	if (!m->nomem)
		m->nnz = m->rbeg[m->nrows + 1] - 1;
}

static const char *group_name(const wp_problem *p, int g, char *buf,
			      size_t size)
{
	const wp_group *gr = &p->groups[g];
	const ws_snapshot *s = p->snap;
	if (gr->sg >= 0) {
		snprintf(buf, size, "%s/%s", s->groups[gr->sg].ns,
			 s->groups[gr->sg].name);
	} else if (gr->nclasses > 0 && p->classes[gr->classes[0]].count > 0) {
		const ws_pod *pod =
		    &s->pods[p->classes[gr->classes[0]].pods[0]];
		snprintf(buf, size, "pod/%s/%s", pod->ns, pod->name);
	} else {
		snprintf(buf, size, "group%d", g);
	}
	return buf;
}

/* Pods of class c that fit on node n alone (0: none). */
static int x_bound(const wp_problem *p, int c, int n)
{
	const wp_class *cl = &p->classes[c];
	int64_t ub = cl->count;
	for (int r = 0; r < p->nres; r++) {
		int64_t q = cl->req[r];
		if (q <= 0)
			continue;
		int64_t f = p->free[(size_t)n * p->nres + r];
		if (f < q)
			return 0;
		if (f / q < ub)
			ub = f / q;
	}
	return (int)ub;
}

/* ---------------------------------------------------------- preemption */

static int32_t q_prio(const wm *m, int qc)
{
	return m->p->units[m->qc_units[m->qc_beg[qc]]].priority;
}

static int q_ub(const wm *m, int qc)
{
	return m->qc_beg[qc + 1] - m->qc_beg[qc];
}

/* Requests of resource r that one unit of class qc holds on node n. */
static int64_t q_use(const wm *m, int qc, int n, int r)
{
	const wp_problem *p = m->p;
	const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
	int64_t u = 0;
	for (int i = 0; i < un->npods; i++) {
		const ws_pod *pod = &p->snap->pods[un->pods[i]];
		if (pod->node == n)
			u += pod->req[r];
	}
	return u;
}

/* Tier-2 cost of evicting one unit of class qc. */
static double q_cost(const wm *m, int qc)
{
	const wp_unit *un = &m->p->units[m->qc_units[m->qc_beg[qc]]];
	return (double)un->npods * un->weight;
}

/* Single units that differ in nothing but identity: same node, priority
 * and requests. */
static int q_cmp(const void *ctx, int a, int b)
{
	const wp_problem *p = ctx;
	const wp_unit *x = &p->units[a], *y = &p->units[b];
	if (x->all != y->all)
		return x->all ? 1 : -1;
	if (!x->all) {
		const ws_pod *pa = &p->snap->pods[x->pods[0]];
		const ws_pod *pb = &p->snap->pods[y->pods[0]];
		if (pa->node != pb->node)
			return pa->node < pb->node ? -1 : 1;
		if (x->priority != y->priority)
			return x->priority < y->priority ? -1 : 1;
		int c = memcmp(pa->req, pb->req,
			       (size_t)p->nres * sizeof *pa->req);
		if (c)
			return c;
		if (x->npdb != y->npdb)
			return x->npdb < y->npdb ? -1 : 1;
		for (int j = 0; j < x->npdb; j++)
			if (x->pdb[j] != y->pdb[j])
				return x->pdb[j] < y->pdb[j] ? -1 : 1;
		/* issue 6: one eviction class per move class */
		if (p->unit_mc && p->unit_mc[a] != p->unit_mc[b])
			return p->unit_mc[a] < p->unit_mc[b] ? -1 : 1;
	}
	return (a > b) - (a < b);
}

/* Does a pod of unit u hold an allocated claim (DRA, issue 6)?  Such a
 * unit is an eviction class of its own, so that q says which claims lose
 * their holders (dv_held). */
static bool unit_holds(const wp_problem *p, int u)
{
	const ws_dra *d = p->snap->dra;
	if (!d || !d->held_beg || !d->held_beg[p->snap->npods])
		return false;
	const wp_unit *un = &p->units[u];
	for (int i = 0; i < un->npods; i++)
		if (d->held_beg[un->pods[i] + 1] > d->held_beg[un->pods[i]])
			return true;
	return false;
}

/* Eviction classes: the running units some group could evict (priority
 * below the highest of the groups that may preempt), interchangeable
 * single pods merged.  Built before the x columns, whose bounds count
 * what evictions could free. */
static void q_classes(wm *m)
{
	const wp_problem *p = m->p;
	int32_t maxp;
	bool any = wpe_top_priority(p, &maxp);
	m->unit_qc = wa_calloc(m->ar, p->nunits + 1, sizeof *m->unit_qc);
	m->hasq = wa_calloc(m->ar, p->nnodes + 1, 1);
	m->nq_beg = wa_calloc(m->ar, p->nnodes + 2, sizeof *m->nq_beg);
	int *v = wa_calloc(m->ar, p->nunits + 1, sizeof *v);
	int *tmp = wa_calloc(m->ar, p->nunits + 1, sizeof *tmp);
	m->qc_beg = wa_calloc(m->ar, p->nunits + 2, sizeof *m->qc_beg);
	m->qc_units = wa_calloc(m->ar, p->nunits + 1, sizeof *m->qc_units);
	if (!m->unit_qc || !m->hasq || !m->nq_beg || !v || !tmp ||
	    !m->qc_beg || !m->qc_units) {
		m->nomem = true;
		return;
	}
	int nv = 0;
	for (int u = 0; u < p->nunits; u++) {
		m->unit_qc[u] = -1;
		if (any && p->units[u].priority < maxp && !p->units[u].keep)
			v[nv++] = u;
	}
	wis_sort(v, tmp, nv, q_cmp, p);
	m->nqc = 0;
	for (int i = 0; i < nv; i++) {
		if (i == 0 || p->units[v[i]].all || p->units[v[i - 1]].all ||
		    unit_holds(p, v[i]) || unit_holds(p, v[i - 1]) ||
		    !wpe_same_budgets(&p->units[v[i - 1]], &p->units[v[i]]) ||
		    p->snap->pods[p->units[v[i - 1]].pods[0]].node !=
			p->snap->pods[p->units[v[i]].pods[0]].node ||
		    p->units[v[i - 1]].priority != p->units[v[i]].priority ||
		    (p->unit_mc &&
		     p->unit_mc[v[i - 1]] != p->unit_mc[v[i]]) ||
		    memcmp(p->snap->pods[p->units[v[i - 1]].pods[0]].req,
			   p->snap->pods[p->units[v[i]].pods[0]].req,
			   (size_t)p->nres * sizeof(int64_t)))
			m->qc_beg[m->nqc++] = i;
		m->qc_units[i] = v[i];
		m->unit_qc[v[i]] = m->nqc - 1;
	}
	m->qc_beg[m->nqc] = nv;
	/* per node, the classes with a pod there (each once) */
	int *last = wa_calloc(m->ar, p->nnodes + 1, sizeof *last);
	if (!last) {
		m->nomem = true;
		return;
	}
	for (int n = 0; n < p->nnodes; n++)
		last[n] = -1;
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npods; i++) {
			int n = p->snap->pods[un->pods[i]].node;
			if (last[n] != qc) {
				last[n] = qc;
				m->nq_beg[n + 1]++;
			}
		}
	}
	for (int n = 0; n < p->nnodes; n++)
		m->nq_beg[n + 1] += m->nq_beg[n];
	m->nq_list = wa_calloc(m->ar, m->nq_beg[p->nnodes] + 1,
			       sizeof *m->nq_list);
	int *fill = wa_calloc(m->ar, p->nnodes + 1, sizeof *fill);
	if (!m->nq_list || !fill) {
		m->nomem = true;
		return;
	}
	for (int n = 0; n < p->nnodes; n++)
		last[n] = -1;
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npods; i++) {
			int n = p->snap->pods[un->pods[i]].node;
			if (last[n] != qc) {
				last[n] = qc;
				m->nq_list[m->nq_beg[n] + fill[n]++] = qc;
				m->hasq[n] = 1;
			}
		}
	}
}

/* q[e]: units of eviction class e kept running (the rest are evicted). */
static void cols_q(wm *m)
{
	m->qcol = wa_calloc(m->ar, m->nqc + 1, sizeof *m->qcol);
	if (!m->qcol) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &m->p->units[m->qc_units[m->qc_beg[qc]]];
		const ws_pod *pod = &m->p->snap->pods[un->pods[0]];
		m->qcol[qc] = wm_col(m, WM_Q, qc, -1, 0, q_ub(m, qc),
		    wm_name(m, "q[e%d,%s/%s]", qc, pod->ns,
			    un->all ? m->p->snap->groups[un->sg].name
				    : pod->name));
	}
}

/* w[j]: budget j's evictable pods minus its violations (the budget
 * tier); budget[j]: w[j] - sum_e sel[e,j] q[e] <= allowed[j], which with
 * q = k - evicted reads: violations >= evicted selected - allowed. */
static void cols_w(wm *m)
{
	const wp_problem *p = m->p;
	int nb = p->snap->npdbs;
	m->wcol = wa_calloc(m->ar, nb + 1, sizeof *m->wcol);
	m->wV = wa_calloc(m->ar, nb + 1, sizeof *m->wV);
	if (!m->wcol || !m->wV) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int j = 0; j < un->npdb; j++)
			m->wV[un->pdb[j]] += un->pdbn[j] * q_ub(m, qc);
	}
	for (int j = 0; j < nb; j++)
		if (m->wV[j] > 0)
			m->wcol[j] = wm_col(m, WM_B, j, -1, 0, m->wV[j],
			    wm_name(m, "w[%s/%s]", p->snap->pdbs[j].ns,
				    p->snap->pdbs[j].name));
}

static void rows_budget(wm *m)
{
	const wp_problem *p = m->p;
	for (int j = 0; j < p->snap->npdbs && !m->nomem; j++) {
		if (!m->wcol[j])
			continue;
		wm_row_begin(m);
		wm_coef(m, m->wcol[j], 1);
		for (int qc = 0; qc < m->nqc; qc++) {
			const wp_unit *un =
			    &p->units[m->qc_units[m->qc_beg[qc]]];
			for (int i = 0; i < un->npdb; i++)
				if (un->pdb[i] == j)
					wm_coef(m, m->qcol[qc], -un->pdbn[i]);
		}
		wm_row_end(m, GLP_UP, 0, p->pdb_allowed[j],
		    wm_name(m, "budget[%s/%s]", p->snap->pdbs[j].ns,
			    p->snap->pdbs[j].name));
	}
}

/* Pods of class c that fit on node n alone, counting what evicting the
 * lower units there would free when c's group may preempt. */
static int x_bound_q(const wm *m, int c, int n)
{
	const wp_problem *p = m->p;
	const wp_class *cl = &p->classes[c];
	bool mv = m->mvfree && m->ny_beg[n + 1] > m->ny_beg[n];
	if (!mv && (!m->hasq || !m->hasq[n] || !wpe_may_preempt(p, cl->group)))
		return x_bound(p, c, n);
	bool q_ok = m->hasq && m->hasq[n] && wpe_may_preempt(p, cl->group);
	int32_t pr = p->groups[cl->group].priority;
	int64_t ub = cl->count;
	for (int r = 0; r < p->nres; r++) {
		int64_t f = p->free[(size_t)n * p->nres + r];
		int64_t q = cl->req[r];
		if (f < 0 && (q_ok || q > 0))
			return 0; /* over-committed already: leave it be */
		if (q <= 0)
			continue;
		if (mv)
			f += m->mvfree[(size_t)n * p->nres + r];
		for (int i = m->nq_beg[n]; q_ok && i < m->nq_beg[n + 1]; i++) {
			int qc = m->nq_list[i];
			if (q_prio(m, qc) < pr && !(m->qc_mc &&
						    m->qc_mc[qc] >= 0))
				f += q_use(m, qc, n, r) * q_ub(m, qc);
		}
		if (f < q)
			return 0;
		if (f / q < ub)
			ub = f / q;
	}
	return (int)ub;
}

/* Priority a class's pods count at in the capacity rows: its group's, or
 * the lowest of all for a group that may not preempt (its pods never use
 * freed room). */
static int32_t eff_prio(const wp_problem *p, int c)
{
	int g = p->classes[c].group;
	return wpe_may_preempt(p, g) ? p->groups[g].priority : INT32_MIN;
}

/* moves (issue 6), below */
static void mv_room(const wm *m, int n, int r, int64_t *g, double *room);
static int64_t mv_rhs(const wm *m, int n, int r, int32_t L);
static void mv_coefs(wm *m, int n, int r, int32_t L, int64_t g);

/* capq[n,r,l]: the capacity rows of a node with eviction classes, one per
 * level l that a class with columns there has (DESIGN.md §5, in keep
 * form): sum_{c: prio(c) <= l} req x + sum_{e: prio(e) < l} use q
 * <= free + sum_{e: prio(e) < l} use ub. */
static void rows_cap_q(wm *m, int n)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	int b = m->nxbeg[n], e = m->nxbeg[n + 1];
	int32_t *lv = malloc(sizeof *lv * (size_t)(e - b + 2));
	if (!lv) {
		m->nomem = true;
		return;
	}
	int nl = 0;
	/* pods moved in use no freed room: the lowest level (issue 6) */
	if (m->mvin && m->mvin[n])
		lv[nl++] = INT32_MIN;
	for (int i = b; i < e; i++) {
		int32_t pr = eff_prio(p, wp_slot_class(p, m->nxslot[i]));
		int k = 0;
		while (k < nl && lv[k] != pr)
			k++;
		if (k == nl)
			lv[nl++] = pr;
	}
	if (!(m->hasq && m->hasq[n]) && nl > 1) {
		/* no eviction credit here: the top level's row implies the
		 * others (a node routed here for its moves, issue 6) */
		for (int l = 1; l < nl; l++)
			if (lv[l] > lv[0])
				lv[0] = lv[l];
		nl = 1;
	}
	for (int l = 0; l < nl && !m->nomem; l++) {
		int32_t L = lv[l];
		for (int r = 0; r < p->nres; r++) {
			int64_t f = p->free[(size_t)n * p->nres + r], g = 0;
			double room = 0;
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int c = wp_slot_class(p, sl);
				int64_t q = p->classes[c].req[r];
				if (q <= 0 || eff_prio(p, c) > L)
					continue;
				g = wp_gcd(g, q);
				room += (double)q * m->xub[sl];
			}
			mv_room(m, n, r, &g, &room);
			if (g == 0 || room <= (double)f || room == 0)
				continue; /* cannot bind */
			int64_t credit = mv_rhs(m, n, r, L);
			for (int i = m->nq_beg[n]; i < m->nq_beg[n + 1]; i++) {
				int qc = m->nq_list[i];
				int64_t u = q_use(m, qc, n, r);
				if (q_prio(m, qc) >= L || u <= 0 ||
				    (m->qc_mc && m->qc_mc[qc] >= 0))
					continue;
				g = wp_gcd(g, u);
				credit += u * q_ub(m, qc);
			}
			wm_row_begin(m);
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int c = wp_slot_class(p, sl);
				int64_t q = p->classes[c].req[r];
				if (q > 0 && eff_prio(p, c) <= L)
					wm_coef(m, m->xcol[sl], (double)(q / g));
			}
			for (int i = m->nq_beg[n]; i < m->nq_beg[n + 1]; i++) {
				int qc = m->nq_list[i];
				int64_t u = q_use(m, qc, n, r);
				if (q_prio(m, qc) < L && u > 0 &&
				    !(m->qc_mc && m->qc_mc[qc] >= 0))
					wm_coef(m, m->qcol[qc], (double)(u / g));
			}
			mv_coefs(m, n, r, L, g);
			wm_row_end(m, GLP_UP, 0,
				   (double)((f + credit) / g),
			    wm_name(m, "capq[%s,%s,%d]", s->nodes[n].name,
				    s->res[r], l));
		}
	}
	free(lv);
}

/* --------------------------------------------------------------- moves */

/* Moves (issue 6, --rebalance; doc/formulation.md, 4c).  Move class i
 * (p->mcls[i]: K pods on home node h) has y[i,n] pods on each node n of
 * its elig list; sum_n y = K, or = q[e] (pods kept) when its units are
 * the eviction class e.  Its home capacity is freed in the rows, so per
 * node, resource and level L the class adds use*y[i,n] (a pod moved in
 * counts at every level, a rows level INT32_MIN is added for it: it uses
 * no room an eviction freed); at home the right-hand side gains use*K
 * (the pods' room is freed), except at levels L <= prio(i) of an
 * evictable class, where the evicted pods still count: use*(y + K - q)
 * <= free + use*K, i.e. the row gets -use*q[e] and no rhs term.
 * Moves (sum of y off home) are tier 3, entered as minus the moves. */

static const wp_mclass *y_class(const wm *m, int j)
{
	return &m->p->mcls[m->cref[j]];
}

/* Before the x columns: the per-node move lists' sizes and the room that
 * pods that may leave hold (x bounds count it). */
static void mv_setup(wm *m)
{
	const wp_problem *p = m->p;
	if (!p->nmcls)
		return;
	m->mc_qc = wa_calloc(m->ar, p->nmcls + 1, sizeof *m->mc_qc);
	m->qc_mc = wa_calloc(m->ar, m->nqc + 1, sizeof *m->qc_mc);
	m->ybeg = wa_calloc(m->ar, p->nmcls + 1, sizeof *m->ybeg);
	m->ny_beg = wa_calloc(m->ar, p->nnodes + 2, sizeof *m->ny_beg);
	m->mvin = wa_calloc(m->ar, p->nnodes + 1, 1);
	m->mvfree = wa_calloc(m->ar, (size_t)p->nnodes * p->nres + 1,
			      sizeof *m->mvfree);
	if (!m->mc_qc || !m->qc_mc || !m->ybeg || !m->ny_beg || !m->mvin ||
	    !m->mvfree) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++)
		m->qc_mc[qc] = p->unit_mc[m->qc_units[m->qc_beg[qc]]];
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		m->mc_qc[i] = m->unit_qc[mc->units[0]];
		for (int k = 0; k < mc->nelig; k++) {
			m->ny_beg[mc->elig[k] + 1]++;
			if (k != mc->homek)
				m->mvin[mc->elig[k]] = 1;
		}
		for (int r = 0; r < p->nres; r++)
			m->mvfree[(size_t)mc->home * p->nres + r] +=
			    mc->req[r] * mc->count;
	}
	for (int n = 0; n < p->nnodes; n++)
		m->ny_beg[n + 1] += m->ny_beg[n];
}

/* y[i,n]: pods of move class i on node n (home included). */
static void cols_y(wm *m)
{
	const wp_problem *p = m->p;
	if (!p->nmcls)
		return;
	m->ny_list = wa_calloc(m->ar, m->ny_beg[p->nnodes] + 1,
			       sizeof *m->ny_list);
	int *fill = wa_calloc(m->ar, p->nnodes + 1, sizeof *fill);
	if (!m->ny_list || !fill) {
		m->nomem = true;
		return;
	}
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		const ws_pod *pod = &p->snap->pods[p->units[mc->units[0]].pods[0]];
		for (int k = 0; k < mc->nelig; k++) {
			int n = mc->elig[k];
			int j = wm_col(m, WM_Y, i, k, 0, mc->count,
			    wm_name(m, "y[m%d,%s/%s,%s]", i, pod->ns,
				    pod->name, p->snap->nodes[n].name));
			if (k == 0)
				m->ybeg[i] = j;
			m->ny_list[m->ny_beg[n] + fill[n]++] = j;
		}
	}
}

/* mvsum[i]: sum_n y[i,n] = K, or = q[e]; maxmoves: sum of y off home
 * <= --max-moves. */
static void rows_move(wm *m)
{
	const wp_problem *p = m->p;
	for (int i = 0; i < p->nmcls && !m->nomem; i++) {
		const wp_mclass *mc = &p->mcls[i];
		wm_row_begin(m);
		for (int k = 0; k < mc->nelig; k++)
			wm_coef(m, m->ybeg[i] + k, 1);
		int qc = m->mc_qc[i];
		if (qc >= 0) {
			wm_coef(m, m->qcol[qc], -1);
			wm_row_end(m, GLP_FX, 0, 0,
				   wm_name(m, "mvsum[m%d]", i));
		} else {
			wm_row_end(m, GLP_FX, mc->count, mc->count,
				   wm_name(m, "mvsum[m%d]", i));
		}
	}
	if (p->nmcls && p->max_moves > 0 && !m->nomem) {
		long off = 0;
		wm_row_begin(m);
		for (int i = 0; i < p->nmcls; i++)
			for (int k = 0; k < p->mcls[i].nelig; k++)
				if (k != p->mcls[i].homek) {
					wm_coef(m, m->ybeg[i] + k, 1);
					off += p->mcls[i].count;
				}
		if (off > p->max_moves)
			wm_row_end(m, GLP_UP, 0, p->max_moves,
				   wm_name(m, "maxmoves"));
		else
			wm_row_drop(m);
	}
}

/* Capacity rows at node n, resource r: the gcd and the room of pods
 * that may move in (the home terms are balanced by mv_rhs). */
static void mv_room(const wm *m, int n, int r, int64_t *g, double *room)
{
	for (int i = m->ny_beg ? m->ny_beg[n] : 0;
	     m->ny_beg && i < m->ny_beg[n + 1]; i++) {
		int j = m->ny_list[i];
		const wp_mclass *mc = y_class(m, j);
		int64_t u = mc->req[r];
		if (u <= 0)
			continue;
		*g = wp_gcd(*g, u);
		if (mc->home != n)
			*room += (double)u * m->cub[j];
	}
}

/* The home terms' right-hand side at level L: use*K, except where the
 * row has -use*q (its evicted pods count: use*(y - q) <= 0 + ...). */
static int64_t mv_rhs(const wm *m, int n, int r, int32_t L)
{
	int64_t v = 0;
	for (int i = m->ny_beg ? m->ny_beg[n] : 0;
	     m->ny_beg && i < m->ny_beg[n + 1]; i++) {
		int j = m->ny_list[i];
		const wp_mclass *mc = y_class(m, j);
		if (mc->home == n && !(m->mc_qc[m->cref[j]] >= 0 &&
				       mc->priority >= L))
			v += mc->req[r] * mc->count;
	}
	return v;
}

static void mv_coefs(wm *m, int n, int r, int32_t L, int64_t g)
{
	for (int i = m->ny_beg ? m->ny_beg[n] : 0;
	     m->ny_beg && i < m->ny_beg[n + 1]; i++) {
		int j = m->ny_list[i];
		const wp_mclass *mc = y_class(m, j);
		int64_t u = mc->req[r];
		if (u <= 0)
			continue;
		wm_coef(m, j, (double)(u / g));
		int qc = m->mc_qc[m->cref[j]];
		if (mc->home == n && qc >= 0 && mc->priority >= L)
			wm_coef(m, m->qcol[qc], -(double)(u / g));
	}
}

/* Warm start (issue 6): the y columns of s's moves and evictions in v
 * (v holds every pod at home).  false: a move the model lacks. */
static bool y_from_sol(const wm *m, const wp_sol *s, double *v)
{
	const wp_problem *p = m->p;
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		for (int t = 0; t < mc->count; t++) {
			int u = mc->units[t];
			int to = s->move_to ? s->move_to[p->units[u].pods[0]]
					    : -1;
			if (s->evict && s->evict[u]) {
				v[m->ybeg[i] + mc->homek] -= 1;
				continue;
			}
			if (to < 0)
				continue;
			int k = 0;
			while (k < mc->nelig && mc->elig[k] != to)
				k++;
			if (k == mc->nelig)
				return false;
			v[m->ybeg[i] + mc->homek] -= 1;
			v[m->ybeg[i] + k] += 1;
		}
	}
	for (int pi = 0; s->move_to && pi < p->snap->npods; pi++)
		if (s->move_to[pi] >= 0 && !p->nmcls)
			return false;
	return true;
}

/* The moves of v into out (after its evictions): per class, of the pods
 * not evicted the first y[home] stay, the next go to the other y nodes
 * in order; any left over (an eviction fill_evictions dropped) stay. */
static void fill_moves(const wm *m, const double *v, wp_sol *out)
{
	const wp_problem *p = m->p;
	for (int pi = 0; pi < p->snap->npods; pi++)
		out->move_to[pi] = -1;
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		int stay = (int)lround(v[m->ybeg[i] + mc->homek]);
		int k = -1, left = 0;
		for (int t = 0; t < mc->count; t++) {
			int u = mc->units[t];
			if (out->evict[u])
				continue;
			if (stay > 0) {
				stay--;
				continue;
			}
			while (left <= 0 && ++k < mc->nelig)
				left = k == mc->homek
					   ? 0
					   : (int)lround(v[m->ybeg[i] + k]);
			if (k >= mc->nelig)
				break;
			left--;
			out->move_to[p->units[u].pods[0]] = mc->elig[k];
		}
	}
}

/* Tier-3 part of the single objective at out: minus the moves. */
static double mv_obj(const wm *m, const wp_sol *out)
{
	if (m->mtier < 0)
		return 0;
	return -m->wfull[m->mtier] * (double)wp_moves(m->p, out);
}

/* x[c,n]: integer pod counts, bounded by what fits on n alone.  A gang
 * whose min_need cannot fit in one domain of its key gets no columns there
 * (it could never be admitted in that domain). */
static const wdr_state *dv_fit_state(const wm *m, int c);

static void cols_x(wm *m)
{
	const wp_problem *p = m->p;
	int *dcap = NULL;
	int maxdom = 0;
	for (int k = 0; p->topo && k < p->topo->nkeys; k++)
		if (p->topo->keys[k].ndom > maxdom)
			maxdom = p->topo->keys[k].ndom;
	dcap = wa_calloc(m->ar, maxdom + 1, sizeof *dcap);
	if (!dcap) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		for (int k = 0; k < cl->nelig; k++) {
			const wp_group *g = &p->groups[cl->group];
			int n = cl->elig[k];
			m->xub[cl->off + k] =
			    wp_allowed(p, g, n) ? x_bound_q(m, c, n) : 0;
			/* DRA: what the node's devices hold of this class
			 * alone (exact for its own claims) */
			if (m->cpc && m->cpc[c] && m->xub[cl->off + k] > 0)
				m->xub[cl->off + k] = wdr_fit(
				    dv_fit_state(m, c), m->cpc[c], n,
				    m->xub[cl->off + k]);
		}
	}
	/* per gang with a key: pods that fit in each domain */
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->gang || g->key < 0 || g->min_need <= 0)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		memset(dcap, 0, sizeof *dcap * (maxdom + 1));
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			int *per = wa_calloc(m->ar, key->ndom + 1,
					     sizeof *per);
			if (!per) {
				m->nomem = true;
				return;
			}
			for (int k = 0; k < cl->nelig; k++) {
				int d = key->node_dom[cl->elig[k]];
				if (d >= 0)
					per[d] += m->xub[cl->off + k];
			}
			for (int d = 0; d < key->ndom; d++)
				dcap[d] += per[d] < cl->count ? per[d]
							      : cl->count;
		}
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++) {
				int d = key->node_dom[cl->elig[k]];
				if (d >= 0 && dcap[d] < g->min_need)
					m->xub[cl->off + k] = 0;
			}
		}
	}
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		for (int k = 0; k < cl->nelig; k++) {
			int s = cl->off + k, n = cl->elig[k];
			if (m->xub[s] <= 0)
				continue;
			m->xcol[s] = wm_col(m, WM_X, s, -1, 0, m->xub[s],
			    wm_name(m, "x[c%d,%s]", c,
				    p->snap->nodes[n].name));
		}
	}
}

/* Pods of group g that its columns can hold at most. */
static int group_room(const wm *m, const wp_group *g)
{
	const wp_problem *p = m->p;
	long room = 0;
	for (int i = 0; i < g->nclasses; i++) {
		const wp_class *cl = &p->classes[g->classes[i]];
		long s = 0;
		for (int k = 0; k < cl->nelig; k++)
			if (m->xcol[cl->off + k])
				s += m->xub[cl->off + k];
		room += s < cl->count ? s : cl->count;
	}
	return room > INT_MAX ? INT_MAX : (int)room;
}

/* a[g]: admission of a gang that has columns (fixed at 0 when min_need
 * cannot be reached).  Basic groups need none. */
static void cols_a(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		/* basic groups in a tree or with annotations need one too
		 * (issue 5) */
		if (!g->gang && !g->pcomp && !g->tas)
			continue;
		int room = group_room(m, g);
		/* a tree gang already at minCount counts as admitted even
		 * when it cannot grow */
		if (room == 0 && !(g->pcomp && g->gang && g->min_need == 0))
			continue;
		m->acol[gi] = wm_col(m, WM_A, gi, -1, 0,
		    room >= g->min_need ? 1 : 0,
		    wm_name(m, "a[%s]", group_name(p, gi, gb, sizeof gb)));
	}
}

/* t[g,d]: the domain of the group's key that holds its pods; one column
 * per domain where the group has columns. */
static void cols_t(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (g->key < 0)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		unsigned char *has = wa_calloc(m->ar, key->ndom + 1, 1);
		if (!has) {
			m->nomem = true;
			return;
		}
		int any = 0;
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++)
				if (m->xcol[cl->off + k]) {
					has[key->node_dom[cl->elig[k]]] = 1;
					any = 1;
				}
		}
		if (!any)
			continue;
		group_name(p, gi, gb, sizeof gb);
		m->tbeg[gi] = m->ncols + 1;
		for (int d = 0; d < key->ndom; d++) {
			if (!has[d])
				continue;
			wm_col(m, WM_T, gi, d, 0, 1,
			       wm_name(m, "t[%s,%s]", gb, key->dom_name[d]));
			m->tn[gi]++;
		}
	}
}

/* u[n]: node n stays wholly free (packing tier).  One per node that has
 * no bound pods and is eligible for some class; fixed at 1 when no column
 * can put pods there. */
static void cols_u(wm *m)
{
	const wp_problem *p = m->p;
	unsigned char *elig = wa_calloc(m->ar, p->nnodes + 1, 1);
	if (!elig) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++)
			elig[p->classes[c].elig[k]] = 1;
	for (int n = 0; n < p->nnodes; n++) {
		if (!elig[n] || !wp_node_empty(p, n))
			continue;
		bool any = m->nxbeg[n + 1] > m->nxbeg[n];
		m->ucol[n] = wm_col(m, WM_U, n, -1, any ? 0 : 1, 1,
		    wm_name(m, "u[%s]", p->snap->nodes[n].name));
	}
}

/* v[k,d]: every node of domain d of key k stays wholly free (packing
 * tier; doc/formulation.md section 4).  Every key of the topology, every
 * domain of two or more nodes (a one-node domain is its node's u) whose
 * nodes are all empty now and not all constantly free (some has a u
 * column); pk[k,d,n]: v[k,d] <= u[n] per node of d with a u column
 * (tighter than the aggregated row).  Nodes without a u column are
 * empty and take no pods: always free. */
static void pk_cols(wm *m)
{
	const wp_problem *p = m->p;
	const wtp_topo *t = p->topo;
	if (!t || !t->nkeys)
		return;
	m->pkkey = wa_calloc(m->ar, (size_t)t->nkeys + 1, 1);
	if (!m->pkkey) {
		m->nomem = true;
		return;
	}
	for (int k = 0; k < t->nkeys && !m->nomem; k++) {
		const wtp_key *key = &t->keys[k];
		for (int d = 0; d < key->ndom && !m->nomem; d++) {
			int nn = key->dom_nnodes[d], nu = 0;
			bool ok = nn >= 2;
			for (int i = 0; i < nn && ok; i++) {
				int n = key->dom_nodes[d][i];
				ok = wp_node_empty(m->p, n);
				nu += m->ucol[n] != 0;
			}
			if (!ok || !nu)
				continue;
			int j = wm_col(m, WM_P, k, d, 0, 1,
			    wm_name(m, "v[%s,%s]", key->label,
				    key->dom_name[d]));
			m->npk++;
			m->pkkey[k] = 1;
			for (int i = 0; i < nn; i++) {
				int n = key->dom_nodes[d][i];
				if (!m->ucol[n])
					continue;
				wm_row_begin(m);
				wm_coef(m, j, 1);
				wm_coef(m, m->ucol[n], -1);
				wm_row_end(m, GLP_UP, 0, 0,
				    wm_name(m, "pk[%s,%s,%s]", key->label,
					    key->dom_name[d],
					    p->snap->nodes[n].name));
			}
		}
	}
}

/* Is packing column j (v[k,d]) free, busy[n]: pods placed on n? */
static bool pk_free(const wm *m, int j, const unsigned char *busy)
{
	const wtp_key *key = &m->p->topo->keys[m->cref[j]];
	int d = m->cdom[j];
	for (int i = 0; i < key->dom_nnodes[d]; i++) {
		int n = key->dom_nodes[d][i];
		if (m->ucol[n] && busy[n])
			return false;
	}
	return true;
}

/* Per node, the slots that have a column (for capacity rows). */
static void index_nodes(wm *m)
{
	const wp_problem *p = m->p;
	int *cnt = m->nxbeg;
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++)
			if (m->xcol[p->classes[c].off + k])
				cnt[p->classes[c].elig[k] + 1]++;
	for (int n = 0; n < p->nnodes; n++)
		cnt[n + 1] += cnt[n];
	int *fill = wa_calloc(m->ar, p->nnodes + 1, sizeof *fill);
	m->nxslot = wa_calloc(m->ar, cnt[p->nnodes] + 1, sizeof *m->nxslot);
	if (!fill || !m->nxslot) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++) {
			int s = p->classes[c].off + k;
			int n = p->classes[c].elig[k];
			if (m->xcol[s])
				m->nxslot[cnt[n] + fill[n]++] = s;
		}
}

/* cls[c]: at most count pods of class c; for a gang, none unless admitted
 * (sum_n x[c,n] <= count * a[g]). */
static void rows_class(wm *m)
{
	const wp_problem *p = m->p;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		long room = 0;
		wm_row_begin(m);
		for (int k = 0; k < cl->nelig; k++) {
			int j = m->xcol[cl->off + k];
			if (!j)
				continue;
			wm_coef(m, j, 1);
			room += m->xub[cl->off + k];
		}
		const char *nm = wm_name(m, "cls[c%d]", c);
		if (m->acol[cl->group]) {
			wm_coef(m, m->acol[cl->group], -cl->count);
			wm_row_end(m, GLP_UP, 0, 0, nm);
		} else if (room > cl->count) {
			wm_row_end(m, GLP_UP, 0, cl->count, nm);
		} else {
			wm_row_drop(m); /* cannot bind */
		}
	}
}

/* gmin[g]: an admitted gang places at least min_need pods
 * (sum x >= min_need * a[g]). */
static void rows_gang(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		int need = g->gang ? g->min_need : 1; /* basic: tree groups */
		if (!m->acol[gi] || need <= 0)
			continue;
		wm_row_begin(m);
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++)
				wm_coef(m, m->xcol[cl->off + k], 1);
		}
		wm_coef(m, m->acol[gi], -need);
		wm_row_end(m, GLP_LO, 0, 0,
		    wm_name(m, "gmin[%s]", group_name(p, gi, gb, sizeof gb)));
	}
}

/* dsel[g]: one domain per admitted gang (sum_d t = a[g]) or at most one
 * for a basic group; dom[g,d]: pods only in the chosen domain
 * (sum_{c in g, n in d} x <= min(size, room in d) * t[g,d]). */
static void rows_topo(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	int maxdom = 0;
	for (int k = 0; p->topo && k < p->topo->nkeys; k++)
		if (p->topo->keys[k].ndom > maxdom)
			maxdom = p->topo->keys[k].ndom;
	int *tidx = wa_calloc(m->ar, maxdom + 1, sizeof *tidx);
	int *cnt = wa_calloc(m->ar, maxdom + 2, sizeof *cnt);
	int *bucket = wa_calloc(m->ar, m->ncols + 1, sizeof *bucket);
	if (!tidx || !cnt || !bucket) {
		m->nomem = true;
		return;
	}
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		int nt = m->tn[gi];
		if (!nt)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		group_name(p, gi, gb, sizeof gb);
		wm_row_begin(m);
		for (int i = 0; i < nt; i++)
			wm_coef(m, m->tbeg[gi] + i, 1);
		if (m->acol[gi]) {
			wm_coef(m, m->acol[gi], -1);
			wm_row_end(m, GLP_FX, 0, 0,
				   wm_name(m, "dsel[%s]", gb));
		} else {
			wm_row_end(m, GLP_UP, 0, 1,
				   wm_name(m, "dsel[%s]", gb));
		}
		/* bucket the group's columns by domain, in class order */
		for (int i = 0; i < nt; i++)
			tidx[m->cdom[m->tbeg[gi] + i]] = i + 1;
		memset(cnt, 0, sizeof *cnt * (nt + 1));
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *cl = &p->classes[g->classes[ci]];
			for (int k = 0; k < cl->nelig; k++)
				if (m->xcol[cl->off + k])
					cnt[tidx[key->node_dom[cl->elig[k]]]]++;
		}
		for (int i = 1; i <= nt; i++)
			cnt[i] += cnt[i - 1];
		/* cnt[i-1] .. : start of bucket i (1-based t index) */
		for (int i = nt; i >= 1; i--)
			cnt[i] = cnt[i - 1];
		cnt[0] = 0;
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *cl = &p->classes[g->classes[ci]];
			for (int k = 0; k < cl->nelig; k++) {
				int s = cl->off + k;
				if (m->xcol[s])
					bucket[cnt[tidx[key->node_dom
							    [cl->elig[k]]]]++] =
					    s;
			}
		}
		/* now cnt[i] is the end of bucket i, cnt[i-1] its start */
		for (int i = 1; i <= nt; i++) {
			int j = m->tbeg[gi] + i - 1, d = m->cdom[j];
			long room = 0, rc = 0;
			int prev = -1;
			wm_row_begin(m);
			for (int q = cnt[i - 1]; q < cnt[i]; q++) {
				int s = bucket[q];
				int c = wp_slot_class(p, s);
				if (c != prev) {
					if (prev >= 0)
						room += rc < p->classes[prev].count
							    ? rc
							    : p->classes[prev].count;
					rc = 0;
					prev = c;
				}
				wm_coef(m, m->xcol[s], 1);
				rc += m->xub[s];
			}
			if (prev >= 0)
				room += rc < p->classes[prev].count
					    ? rc
					    : p->classes[prev].count;
			if (room > g->size)
				room = g->size;
			wm_coef(m, j, -(double)room);
			wm_row_end(m, GLP_UP, 0, 0,
			    wm_name(m, "dom[%s,%s]", gb, key->dom_name[d]));
		}
		for (int i = 0; i < nt; i++)
			tidx[m->cdom[m->tbeg[gi] + i]] = 0;
	}
}

/* ------------------------------------------- CompositePodGroup trees */

static const char *comp_name(const wp_problem *p, int h, char *buf,
			     size_t n)
{
	const ws_composite *c = &p->snap->comps[h];
	snprintf(buf, n, "%s/%s", c->ns, c->name);
	return buf;
}

/* Calls f on every x column (slot) of the groups below comp h. */
static void subtree_slots(const wm *m, int h, void (*f)(void *, int),
			  void *arg)
{
	const wp_problem *p = m->p;
	const wp_comp *c = &p->comps[h];
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k < 0) {
			subtree_slots(m, -1 - k, f, arg);
			continue;
		}
		const wp_group *g = &p->groups[k];
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *cl = &p->classes[g->classes[ci]];
			for (int q = 0; q < cl->nelig; q++)
				if (m->xcol[cl->off + q])
					f(arg, cl->off + q);
		}
	}
}

typedef struct hacc {
	const wm *m;
	const wtp_key *key;
	unsigned char *has;  /* per domain: a slot there */
	int dom;             /* tdom rows: the domain collected */
	long room;
	int size;
	const int *x;        /* vec_tree: the counts */
} hacc;

static void mark_dom(void *arg, int s)
{
	hacc *a = arg;
	const wp_problem *p = a->m->p;
	const wp_class *cl = &p->classes[wp_slot_class(p, s)];
	int n = cl->elig[s - cl->off];
	int d = a->key->node_dom[n];
	if (d >= 0)
		a->has[d] = 1;
}

/* a[h] per composite (fixed at 0 when it cannot be admitted) and t[h,d]
 * per domain of its key where some descendant has a column. */
static void cols_h(wm *m)
{
	const wp_problem *p = m->p;
	char hb[600];
	for (int h = 0; h < p->ncomps && !m->nomem; h++) {
		const wp_comp *c = &p->comps[h];
		comp_name(p, h, hb, sizeof hb);
		bool dead = c->invalid || c->fixed_dom == -2;
		m->hcol[h] = wm_col(m, WM_H, h, -1, 0, dead ? 0 : 1,
				    wm_name(m, "a[%s]", hb));
		if (c->key < 0)
			continue;
		const wtp_key *key = &p->topo->keys[c->key];
		hacc a = {m, key, wa_calloc(m->ar, key->ndom + 1, 1), -1, 0,
			  0, NULL};
		if (!a.has) {
			m->nomem = true;
			return;
		}
		subtree_slots(m, h, mark_dom, &a);
		m->hbeg[h] = m->ncols + 1;
		for (int d = 0; d < key->ndom; d++) {
			if (!a.has[d])
				continue;
			wm_col(m, WM_S, h, d, 0, 1,
			       wm_name(m, "t[%s,%s]", hb, key->dom_name[d]));
			m->hn[h]++;
		}
	}
}

/* e[g,d]: the exclusive domain of group g; k[g,l,d]: slices of layer l
 * in domain d.  One column per domain where g has columns. */
static void cols_tas(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		const wp_tas *ta = g->tas;
		if (!ta)
			continue;
		group_name(p, gi, gb, sizeof gb);
		for (int l = -1; l < ta->nslices; l++) {
			int key = l < 0 ? ta->excl : ta->slice_key[l];
			if (key < 0)
				continue;
			const wtp_key *k = &p->topo->keys[key];
			long *room = wa_calloc(m->ar, k->ndom + 1, sizeof *room);
			if (!room) {
				m->nomem = true;
				return;
			}
			for (int ci = 0; ci < g->nclasses; ci++) {
				const wp_class *cl = &p->classes[g->classes[ci]];
				for (int q = 0; q < cl->nelig; q++)
					if (m->xcol[cl->off + q])
						room[k->node_dom[cl->elig[q]]] +=
						    m->xub[cl->off + q];
			}
			int *beg = l < 0 ? &m->ebeg[gi]
					 : &m->kbeg[gi * WS_MAX_SLICE_LAYERS + l];
			int *cnt = l < 0 ? &m->en[gi]
					 : &m->kn[gi * WS_MAX_SLICE_LAYERS + l];
			*beg = m->ncols + 1;
			for (int d = 0; d < k->ndom; d++) {
				if (!room[d])
					continue;
				if (l < 0)
					wm_col(m, WM_E, gi, d, 0, 1,
					    wm_name(m, "e[%s,%s]", gb,
						    k->dom_name[d]));
				else
					wm_col(m, WM_K, gi, d, 0,
					    (double)((room[d] < g->size
						      ? room[d] : g->size) /
						     ta->slice_size[l]),
					    wm_name(m, "k%d[%s,%s]", l, gb,
						    k->dom_name[d]));
				(*cnt)++;
			}
		}
	}
}

/* The x columns of group g on nodes of domain d of key k, into the row
 * begun; returns their summed bounds. */
static long coef_group_dom(wm *m, const wp_group *g, const wtp_key *k, int d)
{
	const wp_problem *p = m->p;
	long room = 0;
	for (int ci = 0; ci < g->nclasses; ci++) {
		const wp_class *cl = &p->classes[g->classes[ci]];
		for (int q = 0; q < cl->nelig; q++) {
			int sl = cl->off + q;
			if (!m->xcol[sl] || k->node_dom[cl->elig[q]] != d)
				continue;
			wm_coef(m, m->xcol[sl], 1);
			room += m->xub[sl];
		}
	}
	return room;
}

/* esel[g]: one exclusive domain per admitted group; edom[g,d]: pods only
 * there; excl[k,d]: at most one group per domain (domains held by running
 * groups have no columns for the others); slice[g,l,d]: the pods of g in
 * d are slice_size[l] * k[g,l,d]. */
static void rows_tas(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	int nk = p->topo ? p->topo->nkeys : 0;
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		const wp_tas *ta = g->tas;
		if (!ta)
			continue;
		group_name(p, gi, gb, sizeof gb);
		if (ta->excl >= 0 && m->acol[gi]) {
			const wtp_key *k = &p->topo->keys[ta->excl];
			wm_row_begin(m);
			for (int i = 0; i < m->en[gi]; i++)
				wm_coef(m, m->ebeg[gi] + i, 1);
			wm_coef(m, m->acol[gi], -1);
			wm_row_end(m, GLP_FX, 0, 0, wm_name(m, "esel[%s]", gb));
			for (int i = 0; i < m->en[gi]; i++) {
				int j = m->ebeg[gi] + i, d = m->cdom[j];
				wm_row_begin(m);
				long room = coef_group_dom(m, g, k, d);
				if (room > g->size)
					room = g->size;
				wm_coef(m, j, -(double)room);
				wm_row_end(m, GLP_UP, 0, 0,
				    wm_name(m, "edom[%s,%s]", gb,
					    k->dom_name[d]));
			}
		}
		for (int l = 0; l < ta->nslices; l++) {
			const wtp_key *k = &p->topo->keys[ta->slice_key[l]];
			int b = m->kbeg[gi * WS_MAX_SLICE_LAYERS + l];
			int n = m->kn[gi * WS_MAX_SLICE_LAYERS + l];
			for (int i = 0; i < n; i++) {
				int j = b + i, d = m->cdom[j];
				wm_row_begin(m);
				coef_group_dom(m, g, k, d);
				wm_coef(m, j, -(double)ta->slice_size[l]);
				wm_row_end(m, GLP_FX, 0, 0,
				    wm_name(m, "slice%d[%s,%s]", l, gb,
					    k->dom_name[d]));
			}
		}
	}
	for (int key = 0; key < nk && !m->nomem; key++) {
		if (!p->excl_owner || !p->excl_owner[key])
			continue;
		const wtp_key *k = &p->topo->keys[key];
		for (int d = 0; d < k->ndom; d++) {
			int cnt = 0;
			wm_row_begin(m);
			for (int gi = 0; gi < p->ngroups; gi++) {
				const wp_tas *ta = p->groups[gi].tas;
				if (!ta || ta->excl != key)
					continue;
				for (int i = 0; i < m->en[gi]; i++)
					if (m->cdom[m->ebeg[gi] + i] == d) {
						wm_coef(m, m->ebeg[gi] + i, 1);
						cnt++;
					}
			}
			if (cnt < 2) {
				wm_row_drop(m);
				continue;
			}
			wm_row_end(m, GLP_UP, 0, 1,
			    wm_name(m, "excl[%s,%s]", k->label,
				    k->dom_name[d]));
		}
	}
}

/* w[g,k,d] for a group with a preferred level: domain d of level k (the
 * preferred one and every coarser one) holds none of its pods; the
 * compactness tiers maximise them.  unused[g,k,d]: sum x + room w <=
 * room. */
static void cols_rows_pref(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->tas || g->tas->pref < 0)
			continue;
		group_name(p, gi, gb, sizeof gb);
		for (int k = g->tas->pref; k >= 0 && k < 64;
		     k = p->topo->keys[k].parent) {
			const wtp_key *key = &p->topo->keys[k];
			for (int d = 0; d < key->ndom && !m->nomem; d++) {
				wm_row_begin(m);
				long room = coef_group_dom(m, g, key, d);
				if (!room) {
					wm_row_drop(m);
					continue;
				}
				if (room > g->size)
					room = g->size;
				int j = wm_col(m, WM_W, gi, d, 0, 1,
				    wm_name(m, "w[%s,%s,%s]", gb, key->label,
					    key->dom_name[d]));
				/* group and key (< 64) in one reference */
				m->cref[j] = gi * 64 + k;
				wm_coef(m, j, (double)room);
				wm_row_end(m, GLP_UP, 0, (double)room,
				    wm_name(m, "unused[%s,%s,%s]", gb,
					    key->label, key->dom_name[d]));
				m->nwcol++;
			}
		}
	}
}

/* Is the domain of W column j left unused by its group in counts x? */
static bool w_unused(const wm *m, const int *x, int j)
{
	const wp_problem *p = m->p;
	const wp_group *g = &p->groups[m->cref[j] / 64];
	const wtp_key *key = &p->topo->keys[m->cref[j] % 64];
	long cnt = 0;
	for (int ci = 0; ci < g->nclasses; ci++) {
		const wp_class *cl = &p->classes[g->classes[ci]];
		for (int q = 0; q < cl->nelig; q++)
			if (key->node_dom[cl->elig[q]] == m->cdom[j])
				cnt += x[cl->off + q];
	}
	return cnt == 0;
}

static void vec_pref(const wm *m, const int *x, double *v)
{
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_W)
			v[j] = w_unused(m, x, j);
}

/* e and k columns from the x counts (vec_from_x). */
static void vec_tas(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		const wp_tas *ta = g->tas;
		if (!ta)
			continue;
		for (int l = -1; l < ta->nslices; l++) {
			int key = l < 0 ? ta->excl : ta->slice_key[l];
			if (key < 0)
				continue;
			const wtp_key *k = &p->topo->keys[key];
			int b = l < 0 ? m->ebeg[gi]
				      : m->kbeg[gi * WS_MAX_SLICE_LAYERS + l];
			int n = l < 0 ? m->en[gi]
				      : m->kn[gi * WS_MAX_SLICE_LAYERS + l];
			for (int i = 0; i < n; i++) {
				int d = m->cdom[b + i];
				long cnt = 0;
				for (int ci = 0; ci < g->nclasses; ci++) {
					const wp_class *cl =
					    &p->classes[g->classes[ci]];
					for (int q = 0; q < cl->nelig; q++)
						if (k->node_dom[cl->elig[q]] ==
						    d)
							cnt += x[cl->off + q];
				}
				v[b + i] = l < 0 ? cnt > 0
						 : (double)(cnt /
							    ta->slice_size[l]);
			}
		}
	}
}

/* tup: a child admitted only with its parent; tmin: an admitted
 * composite admits minGroupCount children (running ones count);
 * tsel / tdom: one domain of its key holds every descendant pod. */
static void rows_tree(wm *m)
{
	const wp_problem *p = m->p;
	char hb[600], gb[600];
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->pcomp || !m->acol[gi])
			continue;
		wm_row_begin(m);
		wm_coef(m, m->acol[gi], 1);
		wm_coef(m, m->hcol[g->pcomp - 1], -1);
		wm_row_end(m, GLP_UP, 0, 0, wm_name(m, "tup[%s]",
			   group_name(p, gi, gb, sizeof gb)));
	}
	for (int h = 0; h < p->ncomps && !m->nomem; h++) {
		const wp_comp *c = &p->comps[h];
		comp_name(p, h, hb, sizeof hb);
		if (c->parent >= 0) {
			wm_row_begin(m);
			wm_coef(m, m->hcol[h], 1);
			wm_coef(m, m->hcol[c->parent], -1);
			wm_row_end(m, GLP_UP, 0, 0,
				   wm_name(m, "tup[%s]", hb));
		}
		wm_row_begin(m);
		for (int i = 0; i < c->nkids; i++) {
			int k = c->kids[i];
			wm_coef(m, k >= 0 ? m->acol[k] : m->hcol[-1 - k], 1);
		}
		int need = c->min_groups > 0 ? c->min_groups : 1;
		wm_coef(m, m->hcol[h], -need);
		wm_row_end(m, GLP_LO, -c->nrunning, 0,
			   wm_name(m, "tmin[%s]", hb));
		if (c->key < 0 || !m->hn[h])
			continue;
		const wtp_key *key = &p->topo->keys[c->key];
		wm_row_begin(m);
		for (int i = 0; i < m->hn[h]; i++)
			wm_coef(m, m->hbeg[h] + i, 1);
		wm_coef(m, m->hcol[h], -1);
		wm_row_end(m, GLP_FX, 0, 0, wm_name(m, "tsel[%s]", hb));
		/* one row per descendant group and domain: tighter LP than
		 * one row per subtree (the big-M is the group's own room) */
		for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
			if (!wp_group_below(p, gi, h))
				continue;
			const wp_group *g = &p->groups[gi];
			group_name(p, gi, gb, sizeof gb);
			for (int i = 0; i < m->hn[h] && !m->nomem; i++) {
				int j = m->hbeg[h] + i, d = m->cdom[j];
				long room = 0;
				wm_row_begin(m);
				for (int ci = 0; ci < g->nclasses; ci++) {
					const wp_class *cl =
					    &p->classes[g->classes[ci]];
					long rc = 0;
					for (int q = 0; q < cl->nelig; q++) {
						int sl = cl->off + q;
						if (!m->xcol[sl] ||
						    key->node_dom[cl->elig[q]] !=
							d)
							continue;
						wm_coef(m, m->xcol[sl], 1);
						rc += m->xub[sl];
					}
					room += rc < cl->count ? rc : cl->count;
				}
				if (room > g->size)
					room = g->size;
				wm_coef(m, j, -(double)room);
				wm_row_end(m, GLP_UP, 0, 0,
				    wm_name(m, "tdom[%s,%s,%s]", hb, gb,
					    key->dom_name[d]));
			}
		}
	}
}

/* Tree columns from the group admissions in v (vec_from_x). */
static bool h_adm(const wm *m, const double *v, int h)
{
	const wp_comp *c = &m->p->comps[h];
	int n = c->nrunning;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k >= 0)
			n += m->acol[k] && v[m->acol[k]] > 0.5;
		else
			n += h_adm(m, v, -1 - k);
	}
	return n > 0 && n >= c->min_groups;
}

static void dom_of_slot(void *arg, int s)
{
	hacc *a = arg;
	const wp_problem *p = a->m->p;
	const wp_class *cl = &p->classes[wp_slot_class(p, s)];
	if (a->room == 0 && a->x[s] > 0) {
		a->dom = a->key->node_dom[cl->elig[s - cl->off]];
		a->room = 1;
	}
}

static void vec_tree(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	for (int h = 0; h < p->ncomps; h++) {
		bool on = h_adm(m, v, h);
		v[m->hcol[h]] = on;
		if (!on || !m->hn[h])
			continue;
		hacc a = {m, &p->topo->keys[p->comps[h].key], NULL, -1, 0, 0,
			  x};
		subtree_slots(m, h, dom_of_slot, &a);
		for (int i = 0; i < m->hn[h]; i++)
			if (m->cdom[m->hbeg[h] + i] == a.dom)
				v[m->hbeg[h] + i] = 1;
	}
}

/* cap[n,r]: sum_c req[c,r] x[c,n] <= free[n,r], divided by the gcd of the
 * coefficients (exact for integer x), only where the row can bind.  The
 * pods row also carries u[n]: sum x + M u[n] <= M, M = min(free, room),
 * so a node counted as free holds nothing. */
static void rows_cap(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	for (int n = 0; n < p->nnodes && !m->nomem; n++) {
		int b = m->nxbeg[n], e = m->nxbeg[n + 1];
		bool linked = false;
		bool mv = m->ny_beg && m->ny_beg[n + 1] > m->ny_beg[n];
		if (b == e && !(m->mvin && m->mvin[n]))
			continue;
		if ((m->hasq && m->hasq[n]) || mv) {
			/* bound pods there: no u[n] to link */
			rows_cap_q(m, n);
			continue;
		}
		for (int r = 0; r < p->nres; r++) {
			int64_t f = p->free[(size_t)n * p->nres + r], g = 0;
			double room = 0;
			bool allpos = true;
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int64_t q = p->classes[wp_slot_class(p, sl)].req[r];
				if (q <= 0) {
					allpos = false;
					continue;
				}
				g = wp_gcd(g, q);
				room += (double)q * m->xub[sl];
			}
			bool link = r == WS_RES_PODS && m->ucol[n] && allpos;
			if (g == 0 || (room <= (double)f && !link))
				continue;
			double rhs = (double)(f / g);
			if (link && room / (double)g < rhs)
				rhs = room / (double)g;
			wm_row_begin(m);
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int64_t q = p->classes[wp_slot_class(p, sl)].req[r];
				if (q > 0)
					wm_coef(m, m->xcol[sl], (double)(q / g));
			}
			if (link)
				wm_coef(m, m->ucol[n], rhs);
			linked |= link;
			wm_row_end(m, GLP_UP, 0, rhs,
			    wm_name(m, "cap[%s,%s]", s->nodes[n].name,
				    s->res[r]));
		}
		if (m->ucol[n] && !linked) {
			/* a class requests no pods resource: link u[n] by
			 * use[n]: sum x + room u <= room */
			double room = 0;
			wm_row_begin(m);
			for (int i = b; i < e; i++) {
				wm_coef(m, m->xcol[m->nxslot[i]], 1);
				room += m->xub[m->nxslot[i]];
			}
			wm_coef(m, m->ucol[n], room);
			wm_row_end(m, GLP_UP, 0, room,
			    wm_name(m, "use[%s]", s->nodes[n].name));
		}
	}
}

/* Keep a term of the device row emitted last (wm_grow notes NOMEM). */
static void dterm_add(wm *m, wdterms *l, int ref, int coef)
{
	if (wm_grow(m, (void **)&l->t, sizeof *l->t, &l->cap,
		    (size_t)l->n + 1))
		l->t[l->n++] = (wdterm){m->dr.n - 1, ref, coef};
}

/* Note an emitted device row (node n, free devices f) for write_dat. */
static void dr_note(wm *m, int n, int f)
{
	if (wm_grow(m, (void **)&m->dr.t, sizeof *m->dr.t, &m->dr.cap,
		    (size_t)m->dr.n + 1)) {
		m->dr.t[m->dr.n] = (wdterm){m->dr.n, n, f};
		m->dr.n++;
	}
}

static void dt_note(wm *m, int c, int q)
{
	for (int i = m->dt.n - 1;
	     i >= 0 && m->dt.t[i].row == m->dr.n - 1; i--)
		if (m->dt.t[i].ref == c)
			return; /* one coefficient per class and row */
	dterm_add(m, &m->dt, c, q);
}

/* ---------------------------------------------- DRA: exact device model
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

/* The devices node n reaches, node-local first, as wdr_alloc_spec orders
 * them; -1 when more than WDV_MAXC. */
static int dv_cands(const wm *m, int n, int *cand, bool *global)
{
	const ws_snapshot *s = m->p->snap;
	const ws_dra *d = s->dra;
	int k = 0;
	*global = false;
	for (int i = d->node_first[n]; i < d->node_first[n + 1]; i++) {
		if (k == WDV_MAXC)
			return -1;
		cand[k++] = d->node_devs[i];
	}
	for (int i = 0; i < d->nglobal; i++)
		if (wdr_reaches(s, &d->devs[d->global[i]], n)) {
			if (k == WDV_MAXC)
				return -1;
			cand[k++] = d->global[i];
			*global = true;
		}
	return k;
}

/* Free for the slot dv_slot works on: free before the plan, or held by
 * a claim that evictions free, for a class of strictly higher priority
 * than every holder (the f column of the claim then counts it). */
static bool dv_free(const wm *m, int dev)
{
	if (m->dra->d->devs[dev].multi || !m->dra->taken[dev])
		return true;
	int i = m->dev_fr ? m->dev_fr[dev] : -1;
	return i >= 0 && m->fr_prio[i] < m->dv_prio;
}

/* Claims whose devices evictions can free (DRA and preemption, issue 6;
 * doc/formulation.md §3b): allocated, every holder pod in an eviction
 * class (a class of its own: unit_holds), and per device: not
 * multi-allocatable, in no other allocation, local to the node every
 * holder runs on (so each holder's eviction is credited to the group
 * that uses the device: fill_evictions).
 * Nothing when no running pod holds a claim: rows_dev is unchanged. */
static void dv_held(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	const ws_dra *d = s->dra;
	m->dv_prio = INT32_MIN;
	if (!m->cpc || !d->held_beg || !d->held_beg[s->npods] || !m->nqc)
		return;
	int *pod_qc = wa_calloc(m->ar, (size_t)s->npods + 1, sizeof(int));
	m->dev_fr = wa_calloc(m->ar, (size_t)d->ndevs + 1, sizeof(int));
	m->fr_spec = wa_calloc(m->ar, (size_t)d->nspecs + 1, sizeof(int));
	m->fr_col = wa_calloc(m->ar, (size_t)d->nspecs + 1, sizeof(int));
	m->fr_prio = wa_calloc(m->ar, (size_t)d->nspecs + 1, sizeof(int32_t));
	m->fr_qbeg = wa_calloc(m->ar, (size_t)d->nspecs + 2, sizeof(int));
	int nh = 0;
	for (int sp = 0; sp < d->nspecs; sp++)
		nh += d->specs[sp].nholders;
	m->fr_q = wa_calloc(m->ar, (size_t)nh + 1, sizeof(int));
	if (!pod_qc || !m->dev_fr || !m->fr_spec || !m->fr_col ||
	    !m->fr_prio || !m->fr_qbeg || !m->fr_q) {
		m->nomem = true;
		return;
	}
	for (int pi = 0; pi < s->npods; pi++)
		pod_qc[pi] = -1;
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; m->unit_qc[u] >= 0 && i < p->units[u].npods; i++)
			pod_qc[p->units[u].pods[i]] = m->unit_qc[u];
	for (int dev = 0; dev < d->ndevs; dev++)
		m->dev_fr[dev] = -1;
	m->fr_min = INT32_MAX;
	for (int sp = 0; sp < d->nspecs; sp++) {
		const wdr_spec *spec = &d->specs[sp];
		if (!spec->allocated || !spec->nholders)
			continue;
		bool ok = true;
		int32_t top = INT32_MIN;
		for (int h = 0; h < spec->nholders && ok; h++) {
			int qc = pod_qc[spec->holders[h]];
			ok = qc >= 0;
			if (ok && q_prio(m, qc) > top)
				top = q_prio(m, qc);
		}
		if (!ok)
			continue;
		int i = m->nfr, k = m->fr_qbeg[i], ndev = 0;
		for (int a = 0; a < spec->nalloc; a++) {
			int dev = spec->alloc_dev[a];
			const wdr_device *dv = &d->devs[dev];
			bool near = dv->reach.node >= 0;
			for (int h = 0; h < spec->nholders && near; h++)
				near = s->pods[spec->holders[h]].node ==
				       dv->reach.node;
			if (dv->multi || m->dra->taken[dev] != 1 || !near ||
			    m->dev_fr[dev] >= 0)
				continue;
			m->dev_fr[dev] = i;
			ndev++;
		}
		if (!ndev)
			continue;
		for (int h = 0; h < spec->nholders; h++) {
			int qc = pod_qc[spec->holders[h]], j;
			for (j = m->fr_qbeg[i]; j < k && m->fr_q[j] != qc; j++)
				;
			if (j == k)
				m->fr_q[k++] = qc;
		}
		m->fr_spec[i] = sp;
		m->fr_prio[i] = top;
		if (top < m->fr_min)
			m->fr_min = top;
		m->fr_qbeg[i + 1] = k;
		m->nfr++;
	}
	if (!m->nfr)
		return;
	/* for the x bounds (dv_fit_state) */
	m->dra_fr = wa_alloc(m->ar, sizeof *m->dra_fr);
	m->fr_cur = wa_alloc(m->ar, sizeof *m->fr_cur);
	if (!m->dra_fr || !m->fr_cur ||
	    wdr_state_clone(m->dra_fr, m->dra, m->ar)) {
		m->nomem = true;
		return;
	}
	*m->fr_cur = INT32_MIN;
}

/* f[i] per freeable claim, and hfree[i,e]: f[i] + q[e] <= 1 for each
 * holder class e (q[e] is 0 or 1: the unit is a class of its own), so
 * f[i] = 1 only when every holder is evicted. */
static void cols_rows_fr(wm *m)
{
	const ws_dra *d = m->p->snap->dra;
	for (int i = 0; i < m->nfr && !m->nomem; i++) {
		const wdr_spec *sp = &d->specs[m->fr_spec[i]];
		m->fr_col[i] = wm_col(m, WM_F, i, -1, 0, 1,
		    wm_name(m, "f[%s/%s]", sp->ns, sp->name));
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++) {
			wm_row_begin(m);
			wm_coef(m, m->fr_col[i], 1);
			wm_coef(m, m->qcol[m->fr_q[k]], 1);
			wm_row_end(m, GLP_UP, 0, 1,
			    wm_name(m, "hfree[%s/%s,e%d]", sp->ns, sp->name,
				    m->fr_q[k]));
		}
	}
}

/* f from the q values in v. */
static void f_from_q(const wm *m, double *v)
{
	for (int i = 0; i < m->nfr; i++) {
		bool gone = true;
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++)
			gone &= v[m->qcol[m->fr_q[k]]] < 0.5;
		v[m->fr_col[i]] = gone;
	}
}

/* The state whose devices bound the pods of class c (cols_x, xdev):
 * the devices free before the plan and those that evictions free for
 * its priority, so that the bound is exact for its own claims (a slot
 * that no way can meet has no column, as dv_slot assumes).  Refilled
 * when the priority changes (classes come by group, highest first). */
static const wdr_state *dv_fit_state(const wm *m, int c)
{
	int32_t pr = eff_prio(m->p, c);
	if (!m->dra_fr || pr <= m->fr_min)
		return m->dra;
	if (*m->fr_cur != pr) {
		const ws_dra *d = m->p->snap->dra;
		for (int dev = 0; dev < d->ndevs; dev++) {
			int i = m->dev_fr[dev];
			m->dra_fr->taken[dev] = m->dra->taken[dev];
			if (i >= 0 && m->fr_prio[i] < pr)
				m->dra_fr->taken[dev]--;
		}
		*m->fr_cur = pr;
	}
	return m->dra_fr;
}

/* One choice point of a claim list: an alternative of (entry, request),
 * or a value of (entry, matchAttribute constraint). */
typedef struct dvpt {
	int ent, req, cons; /* cons >= 0: a value point                 */
	int nopt;
	const wcel_attr *val[WDV_MAX_VALS];
} dvpt;

/* Demands of one combination of choices into the way arrays; false when
 * the way cannot be met on the node at all. */
static bool dv_way(wm *m, const wdr_podc *pc, const dvpt *pt, int npt,
		   const int *ch, const int *cand, int nc)
{
	const ws_dra *d = m->p->snap->dra;
	int first = m->dv_ndem;
	for (int q = 0; q < npt; q++) {
		if (pt[q].cons >= 0)
			continue;
		const wdr_pclaim *e = &pc->c[pt[q].ent];
		const wdr_spec *sp = &d->specs[e->spec];
		const wdr_req *rq = &sp->reqs[pt[q].req];
		const wdr_sub *sb = &rq->alts[ch[q]];
		if (sb->cls < 0)
			goto no;
		const signed char *mr = m->dra->match[sb->id];
		uint64_t set = 0;
		int all = 0, got = 0;
		for (int i = 0; i < nc; i++) {
			int dev = cand[i];
			if (!mr[dev])
				continue;
			all++;
			if (!dv_free(m, dev))
				continue;
			bool ok = true;
			for (int v = 0; v < npt && ok; v++) {
				if (pt[v].cons < 0 || pt[v].ent != pt[q].ent)
					continue;
				const wdr_cons *cn = &sp->cons[pt[v].cons];
				if (!wdr_cons_has(cn, rq->name) &&
				    !wdr_cons_has(cn, sb->name))
					continue;
				const wcel_attr *a = wdr_attr(&d->devs[dev],
							      cn->domain,
							      cn->attr);
				ok = a && wdr_attr_equal(a, pt[v].val[ch[v]]);
			}
			if (!ok)
				continue;
			set |= (uint64_t)1 << i;
			got++;
		}
		int cnt = sb->all ? all : sb->count;
		if (cnt > got || cnt <= 0)
			goto no;
		int k = m->dv_ndem;
		if (!wm_grow(m, (void **)&m->dv_dent, sizeof(int), &m->dv_capd1,
			     k + 1) ||
		    !wm_grow(m, (void **)&m->dv_dsub, sizeof(int), &m->dv_capd2,
			     k + 1) ||
		    !wm_grow(m, (void **)&m->dv_dcnt, sizeof(int), &m->dv_capd3,
			     k + 1) ||
		    !wm_grow(m, (void **)&m->dv_dset, sizeof(uint64_t),
			     &m->dv_capd4, k + 1))
			return false;
		m->dv_dent[k] = pt[q].ent;
		m->dv_dsub[k] = sb->id;
		m->dv_dcnt[k] = cnt;
		m->dv_dset[k] = set;
		m->dv_ndem++;
	}
	return true;
no:
	m->dv_ndem = first;
	return false;
}

/* Append a way (its demands are the last ones added from `first`). */
static void dv_way_end(wm *m, int pen)
{
	int w = m->dv_nway;
	if (!wm_grow(m, (void **)&m->dv_wpen, sizeof(int), &m->dv_capw3,
		     w + 2) ||
	    !wm_grow(m, (void **)&m->dv_dbeg, sizeof(int), &m->dv_capw1,
		     w + 2) ||
	    !wm_grow(m, (void **)&m->dv_ycol, sizeof(int), &m->dv_capw2,
		     w + 2))
		return;
	m->dv_dbeg[w + 1] = m->dv_ndem;
	m->dv_ycol[w] = 0;
	m->dv_wpen[w] = pen;
	m->dv_nway++;
}

/* The ways of slot sl (class c on node n); none when its claims are
 * only relaxed there (x keeps wdr_fit's bound). */
static void dv_slot(wm *m, int sl, const wdr_podc *pc, int n,
		    const int *cand, int nc, bool global)
{
	const ws_dra *d = m->p->snap->dra;
	dvpt pt[WDV_MAX_PTS];
	int npt = 0, w0 = m->dv_nway, d0 = m->dv_ndem;
	long comb = 1;
	bool relaxed = global;
	for (int k = 0; k < pc->n; k++) {
		const wdr_pclaim *e = &pc->c[k];
		if (e->inst >= 0)
			continue;
		if (e->spec < 0)
			return; /* x is 0 (wdr_fit) */
		const wdr_spec *sp = &d->specs[e->spec];
		for (int j = 0; j < sp->ncons; j++) {
			const wdr_cons *cn = &sp->cons[j];
			if (cn->distinct) {
				relaxed = true; /* not modelled */
				continue;
			}
			if (npt == WDV_MAX_PTS)
				goto relax;
			dvpt *q = &pt[npt];
			*q = (dvpt){.ent = k, .req = -1, .cons = j};
			/* values of the free devices that a covered
			 * request's alternatives match */
			for (int i = 0; i < nc; i++) {
				int dev = cand[i];
				if (!dv_free(m, dev))
					continue;
				bool want = false;
				for (int r = 0; r < sp->nreqs && !want; r++)
					for (int a = 0; a < sp->reqs[r].nalts &&
					     !want; a++) {
						const wdr_sub *sb =
						    &sp->reqs[r].alts[a];
						want = (wdr_cons_has(cn,
							sp->reqs[r].name) ||
							wdr_cons_has(cn,
							sb->name)) &&
						       m->dra->match[sb->id][dev];
					}
				const wcel_attr *at = want
				    ? wdr_attr(&d->devs[dev], cn->domain,
					       cn->attr) : NULL;
				if (!at)
					continue;
				int v;
				for (v = 0; v < q->nopt &&
				     !wdr_attr_equal(q->val[v], at); v++)
					;
				if (v == q->nopt) {
					if (v == WDV_MAX_VALS)
						goto relax;
					q->val[q->nopt++] = at;
				}
			}
			bool covers = false;
			for (int r = 0; r < sp->nreqs && !covers; r++) {
				covers = wdr_cons_has(cn, sp->reqs[r].name);
				for (int a = 0; a < sp->reqs[r].nalts; a++)
					covers |= wdr_cons_has(
					    cn, sp->reqs[r].alts[a].name);
			}
			if (!covers)
				continue; /* names no request: no effect */
			if (q->nopt == 0)
				return; /* no device has the attribute */
			comb *= q->nopt;
			npt++;
		}
		for (int r = 0; r < sp->nreqs; r++) {
			if (npt == WDV_MAX_PTS)
				goto relax;
			pt[npt] = (dvpt){.ent = k, .req = r, .cons = -1,
					 .nopt = sp->reqs[r].nalts};
			comb *= pt[npt].nopt;
			npt++;
		}
		if (comb > WDV_MAX_COMB)
			goto relax;
	}
	int ch[WDV_MAX_PTS] = {0};
	for (long t = 0; t < comb && !m->nomem; t++) {
		long r = t;
		for (int q = npt - 1; q >= 0; q--) {
			ch[q] = (int)(r % pt[q].nopt);
			r /= pt[q].nopt;
		}
		if (!dv_way(m, pc, pt, npt, ch, cand, nc))
			continue;
		if (m->dv_nway - w0 == WDV_MAX_WAYS)
			goto relax;
		int pen = 0;
		for (int q = 0; q < npt; q++)
			pen += pt[q].cons < 0 ? ch[q] : 0;
		dv_way_end(m, pen);
	}
	/* multi-allocatable devices are shared without limit */
	for (int i = d0; i < m->dv_ndem && !relaxed; i++)
		for (int b = 0; b < nc; b++)
			if ((m->dv_dset[i] >> b & 1) &&
			    d->devs[cand[b]].multi)
				relaxed = true;
	if (relaxed)
		m->dv_inexact = true;
	m->dv_wend[sl] = m->dv_nway;
	return;
relax:
	m->dv_inexact = true;
	m->dv_nway = w0;
	m->dv_ndem = d0;
	m->dv_wend[sl] = m->dv_nway;
}

static void dy_note(wm *m, int w, int q)
{
	dterm_add(m, &m->dy, w, q);
}

static int dv_popc(uint64_t x)
{
	return __builtin_popcountll(x);
}

/* Is the set of kinds `mask` (indices into kset) connected by overlap? */
static bool dv_connected(const uint64_t *kset, const int *ids, int nk,
			 unsigned mask)
{
	unsigned seen = mask & (~mask + 1), grew = 1;
	uint64_t u = 0;
	for (int i = 0; i < nk; i++)
		if (seen >> i & 1)
			u = kset[ids[i]];
	while (grew) {
		grew = 0;
		for (int i = 0; i < nk; i++)
			if ((mask >> i & 1) && !(seen >> i & 1) &&
			    (kset[ids[i]] & u)) {
				seen |= 1u << i;
				u |= kset[ids[i]];
				grew = 1;
			}
	}
	return seen == mask;
}

/* One Hall row on node n: the demands on kinds inside union u (of
 * free devices) fit in |u|. */
/* Devices way w demands that only the device set u can meet. */
static int dv_need_in(const wm *m, int w, uint64_t u)
{
	int q = 0;
	for (int k = m->dv_dbeg[w]; k < m->dv_dbeg[w + 1]; k++)
		if (!(m->dv_dset[k] & ~u))
			q += m->dv_dcnt[k];
	return q;
}

static void dv_row(wm *m, int n, uint64_t u, const int *cand, int tag)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	for (int b = 0; b < WDV_MAXC; b++)
		if ((u >> b & 1) && d->devs[cand[b]].multi)
			return; /* unlimited: relaxed (dv_inexact) */
	/* devices evictions free count through their claim's f column */
	int f = dv_popc(u), hfr[WDV_MAXC], hn[WDV_MAXC], nh = 0;
	for (int b = 0; m->nfr && b < WDV_MAXC; b++) {
		int i = (u >> b & 1) && m->dra->taken[cand[b]]
			    ? m->dev_fr[cand[b]] : -1;
		if (i < 0)
			continue;
		int k;
		for (k = 0; k < nh && hfr[k] != i; k++)
			;
		if (k == nh) {
			hfr[nh] = i;
			hn[nh++] = 0;
		}
		hn[k]++;
		f--;
	}
	double most = 0;
	for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
		int sl = m->nxslot[i];
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++)
			most += (double)dv_need_in(m, w, u) * m->xub[sl];
	}
	for (int b = 0; b < WDV_MAXC; b++)
		for (int k = (u >> b & 1) ? m->dv_shead[cand[b]] : -1; k >= 0;
		     k = m->dv_s[k].next)
			most += 1;
	if (most <= f)
		return; /* cannot bind */
	dr_note(m, n, f);
	wm_row_begin(m);
	/* devices shared claims take */
	for (int b = 0; b < WDV_MAXC; b++) {
		int h = (u >> b & 1) ? m->dv_shead[cand[b]] : -1;
		for (int k = h; k >= 0; k = m->dv_s[k].next)
			wm_coef(m, m->dv_s[k].col, 1);
		if (h >= 0 && m->names)
			dterm_add(m, &m->ds, cand[b], 0);
	}
	for (int k = 0; k < nh; k++) {
		wm_coef(m, m->fr_col[hfr[k]], -hn[k]);
		dterm_add(m, &m->dh, hfr[k], hn[k]);
	}
	for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
		int sl = m->nxslot[i];
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++) {
			int q = dv_need_in(m, w, u);
			if (!q)
				continue;
			if (m->dv_ycol[w]) {
				wm_coef(m, m->dv_ycol[w], q);
				dy_note(m, w, q);
			} else {
				wm_coef(m, m->xcol[sl], q);
				dt_note(m, wp_slot_class(p, sl), q);
			}
		}
	}
	wm_row_end(m, GLP_UP, 0, f,
	    wm_name(m, "devs[%s,%d]", p->snap->nodes[n].name, tag));
}

/* Shared claims (a PodGroup's claim, a ResourceClaim named by pods) not
 * allocated yet, DESIGN.md §5: per way (an alternative per request, a
 * value per matchAttribute constraint) z[i,w] binary, at most one; per
 * request r and candidate device d s[i,r,d] binary, sum_d s[i,r,d] =
 * sum_w count(r,w) z[i,w], s[i,r,d] <= sum of z over the ways whose kind
 * holds d; per node n where a user class has a slot, l[i,n] binary: the
 * users' pods on n need l[i,n] = 1, which needs a chosen way and forbids
 * every chosen device that does not reach n.  A device serves one claim:
 * sum over instances and requests of s[.,.,d] <= 1, and the Hall rows of
 * the node subtract the devices instances take. */
/* Does way w of instance I let request r take device dev? */
static bool dvi_in(const wm *m, const dvinst *I, int w, int r, int dev)
{
	const ws_dra *d = m->p->snap->dra;
	const wdr_spec *sp = &d->specs[I->spec];
	const wdr_req *rq = &sp->reqs[r];
	const wdr_sub *sb = &rq->alts[I->alt[w * sp->nreqs + r]];
	if (!m->dra->match[sb->id][dev])
		return false;
	for (int j = 0; j < sp->ncons; j++) {
		const wdr_cons *cn = &sp->cons[j];
		const wcel_attr *v = I->val[w * (sp->ncons ? sp->ncons : 1) + j];
		if (!v || (!wdr_cons_has(cn, rq->name) &&
			   !wdr_cons_has(cn, sb->name)))
			continue;
		const wcel_attr *a = wdr_attr(&d->devs[dev], cn->domain,
					      cn->attr);
		if (!a || !wdr_attr_equal(a, v))
			return false;
	}
	return true;
}

/* Candidate devices of instance i: free, matching some alternative of
 * a request, reaching some node of a user slot. */
static int dvi_cands(wm *m, int i, const unsigned char *unode, int *out)
{
	const ws_dra *d = m->p->snap->dra;
	const wdr_spec *sp = &d->specs[d->insts[i].spec];
	int k = 0;
	for (int dev = 0; dev < d->ndevs; dev++) {
		if (m->dra->taken[dev] || d->devs[dev].multi)
			continue;
		bool mt = false;
		for (int r = 0; r < sp->nreqs && !mt; r++)
			for (int a = 0; a < sp->reqs[r].nalts && !mt; a++)
				mt = m->dra->match[sp->reqs[r].alts[a].id][dev];
		if (!mt)
			continue;
		const wdr_reach *rc = &d->devs[dev].reach;
		bool reach = false;
		if (rc->node >= 0)
			reach = unode[rc->node];
		else
			for (int n = 0; n < m->p->nnodes && !reach; n++)
				reach = unode[n] &&
					wdr_reaches(m->p->snap, &d->devs[dev], n);
		if (reach)
			out[k++] = dev;
	}
	return k;
}

static void dv_insts(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	const ws_dra *d = s->dra;
	m->dv_irec = wa_calloc(m->ar, (size_t)d->ninsts + 1,
			       sizeof *m->dv_irec);
	m->dv_shead = wa_calloc(m->ar, (size_t)d->ndevs + 1, sizeof(int));
	unsigned char *unode = wa_calloc(m->ar, (size_t)p->nnodes + 1, 1);
	int *cand = wa_calloc(m->ar, (size_t)d->ndevs + 1, sizeof *cand);
	if (!m->dv_irec || !m->dv_shead || !unode || !cand) {
		m->nomem = true;
		return;
	}
	for (int dev = 0; dev < d->ndevs; dev++)
		m->dv_shead[dev] = -1;
	char buf[512];
	for (int i = 0; i < d->ninsts && !m->nomem; i++) {
		const wdr_inst *in = &d->insts[i];
		const wdr_spec *sp = &d->specs[in->spec];
		memset(unode, 0, (size_t)p->nnodes);
		bool used = false;
		for (int c = 0; c < p->nclasses; c++)
			for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++) {
				if (m->cpc[c]->c[k].inst != i)
					continue;
				const wp_class *cl = &p->classes[c];
				for (int e = 0; e < cl->nelig; e++) {
					int sl = cl->off + e;
					if (!m->xcol[sl])
						continue;
					if (sp->allocated) {
						/* its devices are fixed: the
						 * pods go where they reach */
						bool ok = true;
						for (int a = 0; a < sp->nalloc &&
						     ok; a++)
							ok = wdr_reaches(s,
							    &d->devs[sp->alloc_dev[a]],
							    cl->elig[e]);
						if (!ok)
							m->cub[m->xcol[sl]] =
							    m->xub[sl] = 0;
						continue;
					}
					unode[cl->elig[e]] = 1;
					used = true;
				}
			}
		if (!used)
			continue;
		/* shapes not modelled: All, distinctAttribute */
		bool shape = true;
		for (int r = 0; r < sp->nreqs; r++)
			for (int a = 0; a < sp->reqs[r].nalts; a++)
				shape &= !sp->reqs[r].alts[a].all;
		for (int j = 0; j < sp->ncons; j++)
			shape &= !sp->cons[j].distinct;
		int nc = dvi_cands(m, i, unode, cand);
		/* choice points: alternatives, then values */
		long comb = 1;
		const wcel_attr *vals[WDV_MAX_PTS][WDV_MAX_VALS];
		int nval[WDV_MAX_PTS];
		if (sp->nreqs + sp->ncons > WDV_MAX_PTS)
			shape = false;
		for (int r = 0; shape && r < sp->nreqs; r++)
			comb *= sp->reqs[r].nalts;
		for (int j = 0; shape && j < sp->ncons; j++) {
			const wdr_cons *cn = &sp->cons[j];
			nval[j] = 0;
			for (int x = 0; x < nc && shape; x++) {
				const wcel_attr *at = wdr_attr(&d->devs[cand[x]],
							       cn->domain,
							       cn->attr);
				if (!at)
					continue;
				int v;
				for (v = 0; v < nval[j] &&
				     !wdr_attr_equal(vals[j][v], at); v++)
					;
				if (v == nval[j]) {
					if (v == WDV_MAX_VALS)
						shape = false;
					else
						vals[j][nval[j]++] = at;
				}
			}
			/* a constraint without values leaves every way
			 * impossible; one value slot of NULL keeps the loop
			 * simple and the way is dropped below */
			comb *= nval[j] ? nval[j] : 1;
		}
		if (!shape || comb > WDV_MAX_COMB) {
			m->dv_inexact = true;
			continue;
		}
		dvinst *I = &m->dv_irec[i];
		I->inst = i;
		I->spec = in->spec;
		int nr = sp->nreqs, ncs = sp->ncons ? sp->ncons : 1;
		I->alt = wa_calloc(m->ar, (size_t)comb * nr + 1, sizeof(int));
		I->val = wa_calloc(m->ar, (size_t)comb * ncs + 1,
				   sizeof *I->val);
		int *cnt = wa_calloc(m->ar, (size_t)comb * nr + 1, sizeof(int));
		if (!I->alt || !I->val || !cnt) {
			m->nomem = true;
			return;
		}
		for (long t = 0; t < comb; t++) {
			int w = I->nw;
			long rr = t;
			bool ok = true;
			for (int j = sp->ncons - 1; j >= 0; j--) {
				int nv = nval[j] ? nval[j] : 1;
				I->val[w * ncs + j] = nval[j]
				    ? vals[j][rr % nv] : NULL;
				ok &= nval[j] > 0;
				rr /= nv;
			}
			for (int r = nr - 1; r >= 0; r--) {
				I->alt[w * nr + r] = (int)(rr % sp->reqs[r].nalts);
				rr /= sp->reqs[r].nalts;
			}
			int tot = 0;
			for (int r = 0; r < nr && ok; r++) {
				const wdr_sub *sb =
				    &sp->reqs[r].alts[I->alt[w * nr + r]];
				int got = 0;
				for (int x = 0; x < nc; x++)
					got += dvi_in(m, I, w, r, cand[x]);
				ok = sb->cls >= 0 && got >= sb->count;
				cnt[w * nr + r] = sb->count;
				tot += sb->count;
			}
			if (!ok)
				continue;
			if (tot > I->q)
				I->q = tot;
			I->nw++;
		}
		if (!I->nw) {
			/* no way to allocate it: its users wait */
			for (int c = 0; c < p->nclasses; c++)
				for (int k = 0; m->cpc[c] && k < m->cpc[c]->n;
				     k++)
					if (m->cpc[c]->c[k].inst == i)
						for (int e = 0;
						     e < p->classes[c].nelig;
						     e++) {
							int sl = p->classes[c].off
								 + e;
							if (m->xcol[sl])
								m->cub[m->xcol[sl]] =
								    m->xub[sl] = 0;
						}
			continue;
		}
		const char *nm = in->name;
		snprintf(buf, sizeof buf, "%s/%s", in->ns, nm);
		for (int w = 0; w < I->nw; w++) {
			int j = wm_col(m, WM_Z, i, w, 0, 1,
				       wm_name(m, "z[%s,%d]", buf, w));
			if (w == 0)
				I->zfirst = j;
		}
		/* s columns and their rows */
		int s0 = m->dv_ns;
		for (int r = 0; r < nr && !m->nomem; r++) {
			int r0 = m->dv_ns;
			for (int x = 0; x < nc; x++) {
				bool any = false, every = true;
				for (int w = 0; w < I->nw; w++) {
					bool in_ = dvi_in(m, I, w, r, cand[x]);
					any |= in_;
					every &= in_;
				}
				if (!any)
					continue;
				const wdr_device *dv = &d->devs[cand[x]];
				int col = wm_col(m, WM_SD, i, cand[x], 0, 1,
				    wm_name(m, "s[%s,%s,%s/%s]", buf,
					    sp->reqs[r].name,
					    d->slices[dv->slice].pool,
					    dv->name));
				dvs e = {i, r, cand[x], col,
					 m->dv_shead[cand[x]]};
				if (WA_PUSH(m->ar, m->dv_s, m->dv_ns,
					    m->dv_caps, e)) {
					m->nomem = true;
					return;
				}
				m->dv_shead[cand[x]] = m->dv_ns - 1;
				if (every)
					continue;
				wm_row_begin(m);
				wm_coef(m, col, 1);
				for (int w = 0; w < I->nw; w++)
					if (dvi_in(m, I, w, r, cand[x]))
						wm_coef(m, I->zfirst + w, -1);
				wm_row_end(m, GLP_UP, 0, 0,
				    wm_name(m, "sway[%s,%s,%s/%s]", buf,
					    sp->reqs[r].name,
					    d->slices[dv->slice].pool,
					    dv->name));
			}
			wm_row_begin(m);
			for (int k = r0; k < m->dv_ns; k++)
				wm_coef(m, m->dv_s[k].col, 1);
			for (int w = 0; w < I->nw; w++)
				wm_coef(m, I->zfirst + w, -cnt[w * nr + r]);
			wm_row_end(m, GLP_FX, 0, 0,
			    wm_name(m, "scount[%s,%s]", buf,
				    sp->reqs[r].name));
		}
		wm_row_begin(m);
		for (int w = 0; w < I->nw; w++)
			wm_coef(m, I->zfirst + w, 1);
		wm_row_end(m, GLP_UP, 0, 1, wm_name(m, "zone[%s]", buf));
		/* l[i,n] per user node */
		for (int n = 0; n < p->nnodes && !m->nomem; n++) {
			if (!unode[n])
				continue;
			double U = 0;
			int l = wm_col(m, WM_L, i, n, 0, 1,
			    wm_name(m, "l[%s,%s]", buf, s->nodes[n].name));
			wm_row_begin(m);
			for (int c = 0; c < p->nclasses; c++) {
				bool uses = false;
				for (int k = 0; m->cpc[c] && k < m->cpc[c]->n;
				     k++)
					uses |= m->cpc[c]->c[k].inst == i;
				int sl = uses ? wp_slot(p, c, n) : -1;
				if (sl >= 0 && m->xcol[sl] && m->xub[sl]) {
					wm_coef(m, m->xcol[sl], 1);
					U += m->xub[sl];
				}
			}
			wm_coef(m, l, -U);
			wm_row_end(m, GLP_UP, 0, 0,
			    wm_name(m, "lpods[%s,%s]", buf, s->nodes[n].name));
			wm_row_begin(m);
			bool far = false;
			for (int k = s0; k < m->dv_ns; k++)
				if (!wdr_reaches(s, &d->devs[m->dv_s[k].dev],
						 n)) {
					wm_coef(m, m->dv_s[k].col, 1);
					far = true;
				}
			wm_coef(m, l, I->q);
			if (far)
				wm_row_end(m, GLP_UP, 0, I->q,
				    wm_name(m, "lreach[%s,%s]", buf,
					    s->nodes[n].name));
			else
				wm_row_drop(m);
			wm_row_begin(m);
			wm_coef(m, l, 1);
			for (int w = 0; w < I->nw; w++)
				wm_coef(m, I->zfirst + w, -1);
			wm_row_end(m, GLP_UP, 0, 0,
			    wm_name(m, "lway[%s,%s]", buf, s->nodes[n].name));
		}
	}
	/* a device serves one claim */
	for (int dev = 0; dev < d->ndevs && !m->nomem; dev++) {
		int h = m->dv_shead[dev];
		if (h < 0 || m->dv_s[h].next < 0)
			continue;
		wm_row_begin(m);
		for (int k = h; k >= 0; k = m->dv_s[k].next)
			wm_coef(m, m->dv_s[k].col, 1);
		wm_row_end(m, GLP_UP, 0, 1,
		    wm_name(m, "sdev[%s/%s]", d->slices[d->devs[dev].slice].pool,
			    d->devs[dev].name));
	}
}

/* DRA rows (see the section comment): ways per slot, y columns and
 * ways[c,n] rows where a slot has several, Hall rows per node. */
static void rows_dev(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	if (!m->cpc)
		return;
	m->dv_wbeg = wa_calloc(m->ar, (size_t)p->nx + 2, sizeof(int));
	m->dv_wend = wa_calloc(m->ar, (size_t)p->nx + 2, sizeof(int));
	int *kid = wa_calloc(m->ar, 4096, sizeof *kid);
	uint64_t *kset = wa_calloc(m->ar, 4096, sizeof *kset);
	int *comp = wa_calloc(m->ar, 4096, sizeof *comp);
	if (!m->dv_wbeg || !m->dv_wend || !kid || !kset || !comp ||
	    !wm_grow(m, (void **)&m->dv_dbeg, sizeof(int), &m->dv_capw1, 2)) {
		m->nomem = true;
		return;
	}
	m->dv_dbeg[0] = 0;
	dv_insts(m);
	int cand[WDV_MAXC];
	for (int n = 0; n < p->nnodes && !m->nomem; n++) {
		bool global = false;
		int nc = -2;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
			int sl = m->nxslot[i], c = wp_slot_class(p, sl);
			m->dv_wend[sl] = m->dv_wbeg[sl] = m->dv_nway;
			if (!m->cpc[c])
				continue;
			if (nc == -2)
				nc = dv_cands(m, n, cand, &global);
			if (nc < 0) {
				m->dv_inexact = true;
				continue;
			}
			m->dv_prio = eff_prio(p, c);
			dv_slot(m, sl, m->cpc[c], n, cand, nc, global);
			m->dv_prio = INT32_MIN;
			int nw = m->dv_wend[sl] - m->dv_wbeg[sl];
			/* one way: y only to carry its alternatives' rank */
			if (nw == 0 ||
			    (nw == 1 && !m->dv_wpen[m->dv_wbeg[sl]]))
				continue;
			/* y[c,n,w] and sum_w y = x */
			for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl];
			     w++)
				m->dv_ycol[w] = wm_col(m, WM_V, w, sl, 0,
				    m->xub[sl],
				    wm_name(m, "y[c%d,%s,%d]", c, s->nodes[n].name,
					    w - m->dv_wbeg[sl]));
			wm_row_begin(m);
			for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl];
			     w++)
				wm_coef(m, m->dv_ycol[w], 1);
			wm_coef(m, m->xcol[sl], -1);
			wm_row_end(m, GLP_FX, 0, 0,
			    wm_name(m, "ways[c%d,%s]", c, s->nodes[n].name));
		}
		if (nc < 0)
			continue;
		/* the node's kinds, without repeats */
		int nk = 0;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
			int sl = m->nxslot[i];
			for (int k = m->dv_dbeg[m->dv_wbeg[sl]];
			     k < m->dv_dbeg[m->dv_wend[sl]]; k++) {
				int j;
				for (j = 0; j < nk && kset[j] != m->dv_dset[k];
				     j++)
					;
				if (j == nk && nk < 4096)
					kset[nk++] = m->dv_dset[k];
			}
		}
		/* overlap components (union-find by relabelling) */
		for (int i = 0; i < nk; i++)
			comp[i] = i;
		for (bool ch = true; ch;) {
			ch = false;
			for (int i = 0; i < nk; i++)
				for (int j = i + 1; j < nk; j++)
					if ((kset[i] & kset[j]) &&
					    comp[i] != comp[j]) {
						int lo = comp[i] < comp[j]
							     ? comp[i] : comp[j];
						comp[i] = comp[j] = lo;
						ch = true;
					}
		}
		int tag = 0;
		for (int r = 0; r < nk && !m->nomem; r++) {
			int ni = 0;
			for (int i = 0; i < nk; i++)
				if (comp[i] == r)
					kid[ni++] = i;
			if (!ni)
				continue;
			if (ni > WDV_HALL) {
				/* too many subsets: each kind and the whole
				 * component (a relaxation) */
				m->dv_inexact = true;
				uint64_t u = 0;
				for (int i = 0; i < ni; i++) {
					dv_row(m, n, kset[kid[i]], cand, tag++);
					u |= kset[kid[i]];
				}
				dv_row(m, n, u, cand, tag++);
				continue;
			}
			for (unsigned mask = 1; mask < 1u << ni; mask++) {
				uint64_t u = 0;
				for (int i = 0; i < ni; i++)
					if (mask >> i & 1)
						u |= kset[kid[i]];
				bool closed = true;
				for (int i = 0; i < ni && closed; i++)
					if (!(mask >> i & 1) &&
					    !(kset[kid[i]] & ~u))
						closed = false;
				if (!closed ||
				    !dv_connected(kset, kid, ni, mask))
					continue;
				dv_row(m, n, u, cand, tag++);
			}
		}
	}
}

/* Which way of slot sl pod allocation `res` (per entry: results) takes,
 * -1: none. */
static int dv_match_way(const wm *m, int sl, const wdr_state *st,
			const int *afirst, const int *an, const int *cand,
			int nc)
{
	for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++) {
		bool ok = true;
		for (int k = m->dv_dbeg[w]; k < m->dv_dbeg[w + 1] && ok; k++) {
			int e = m->dv_dent[k], got = 0;
			for (int i = 0; i < an[e] && ok; i++) {
				const wdr_result *r = &st->res[afirst[e] + i];
				if (r->sub != m->dv_dsub[k])
					continue;
				int b;
				for (b = 0; b < nc && cand[b] != r->dev; b++)
					;
				ok = b < nc && (m->dv_dset[k] >> b & 1);
				got++;
			}
			ok = ok && got == m->dv_dcnt[k];
		}
		if (ok)
			return w;
	}
	return -1;
}

/* Request index of sub id `sub` in spec sp, -1: not of it. */
static int dv_req_of(const wdr_spec *sp, int sub, int *alt)
{
	for (int r = 0; r < sp->nreqs; r++)
		for (int a = 0; a < sp->reqs[r].nalts; a++)
			if (sp->reqs[r].alts[a].id == sub) {
				*alt = a;
				return r;
			}
	return -1;
}

/* z, s and l columns from the shared claims allocated in st. */
static void dev_vec_inst(const wm *m, const wdr_state *st, const int *x,
			 double *v)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	for (int i = 0; m->dv_irec && i < d->ninsts; i++) {
		const dvinst *I = &m->dv_irec[i];
		if (!I->nw || st->inst_alloc[i] < 0)
			continue;
		const wdr_alloc *al = &st->allocs[st->inst_alloc[i]];
		const wdr_spec *sp = &d->specs[I->spec];
		int alt[WDV_MAX_PTS];
		for (int r = 0; r < sp->nreqs; r++)
			alt[r] = -1;
		for (int k = 0; k < al->n; k++) {
			const wdr_result *rs = &st->res[al->first + k];
			int a, r = dv_req_of(sp, rs->sub, &a);
			if (r < 0)
				continue;
			alt[r] = a;
			for (int e = m->dv_shead[rs->dev]; e >= 0;
			     e = m->dv_s[e].next)
				if (m->dv_s[e].inst == i && m->dv_s[e].req == r)
					v[m->dv_s[e].col] = 1;
		}
		for (int w = 0; w < I->nw; w++) {
			bool ok = true;
			for (int r = 0; r < sp->nreqs && ok; r++)
				ok = I->alt[w * sp->nreqs + r] == alt[r];
			for (int k = 0; k < al->n && ok; k++) {
				const wdr_result *rs = &st->res[al->first + k];
				int a, r = dv_req_of(sp, rs->sub, &a);
				ok = r >= 0 && dvi_in(m, I, w, r, rs->dev);
			}
			if (ok) {
				v[I->zfirst + w] = 1;
				break;
			}
		}
	}
	/* l[i,n]: a user pod on n */
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_L)
			continue;
		int i = m->cref[j], n = m->cdom[j];
		for (int c = 0; c < p->nclasses && !v[j]; c++) {
			bool uses = false;
			for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++)
				uses |= m->cpc[c]->c[k].inst == i;
			int sl = uses ? wp_slot(p, c, n) : -1;
			if (sl >= 0 && x[sl] > 0)
				v[j] = 1;
		}
	}
}

/* y columns from an allocation of the pods of x: m->dv_vdra when set
 * (the warm start's), else one made here pod by pod.  A pod whose
 * allocation fits no way leaves sum y < x, which wm_check rejects. */
static void dev_vec(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	if (!m->dv_wbeg)
		return;
	bool any = m->dv_ns > 0;
	for (int w = 0; w < m->dv_nway && !any; w++)
		any = m->dv_ycol[w] != 0;
	if (!any)
		return;
	wa_arena *tmp = NULL;
	wdr_state own;
	const wdr_state *st = m->dv_vdra;
	if (!st) {
		tmp = wa_new();
		if (!tmp || wdr_state_clone(&own, m->dra, tmp)) {
			wa_destroy(tmp);
			return;
		}
		for (int c = 0; c < p->nclasses; c++) {
			const wp_class *cl = &p->classes[c];
			for (int k = 0; k < cl->nelig; k++)
				for (int j = 0; j < x[cl->off + k]; j++)
					if (!wdr_place(&own, cl->pods[0], c,
						       cl->elig[k]))
						goto read;
		}
read:
		st = &own;
	}
	const ws_dra *d = p->snap->dra;
	int afirst[WDR_MAX_RESULTS], an[WDR_MAX_RESULTS], cand[WDV_MAXC];
	/* a slot met one way: y = x */
	for (int sl = 0; sl < p->nx; sl++)
		if (m->xcol[sl] && m->dv_wend[sl] - m->dv_wbeg[sl] == 1 &&
		    m->dv_ycol[m->dv_wbeg[sl]])
			v[m->dv_ycol[m->dv_wbeg[sl]]] = x[sl];
	for (int i = 0; i < st->nallocs;) {
		const wdr_alloc *al = &st->allocs[i];
		if (al->pod < 0 || al->cls < 0) {
			i++;
			continue;
		}
		/* one pod: its own entries, consecutive and ascending */
		const wdr_podc *pc = &d->pods[al->pod];
		int j = i, last = -1;
		memset(an, 0, sizeof(int) * (pc->n < WDR_MAX_RESULTS ? pc->n
								     : 0));
		while (j < st->nallocs && st->allocs[j].pod == al->pod &&
		       st->allocs[j].cls == al->cls &&
		       st->allocs[j].node == al->node &&
		       st->allocs[j].entry > last &&
		       st->allocs[j].entry < pc->n) {
			afirst[st->allocs[j].entry] = st->allocs[j].first;
			an[st->allocs[j].entry] = st->allocs[j].n;
			last = st->allocs[j].entry;
			j++;
		}
		i = j > i ? j : i + 1;
		int sl = wp_slot(p, al->cls, al->node);
		if (sl < 0 || m->dv_wend[sl] - m->dv_wbeg[sl] <= 1)
			continue;
		bool g;
		int nc = dv_cands(m, al->node, cand, &g);
		int w = nc < 0 ? -1
			       : dv_match_way(m, sl, st, afirst, an, cand, nc);
		if (w >= 0 && m->dv_ycol[w])
			v[m->dv_ycol[w]] += 1;
	}
	dev_vec_inst(m, st, x, v);
	wa_destroy(tmp);
}

/* The ILP answer's device allocation, exact when the model is: per node,
 * each pod's way from y, then a bipartite matching of the units of
 * demand to the node's free devices (augmenting paths), which Hall's rows
 * guarantee.  NULL when the model is relaxed or (a bug) the matching
 * fails; solve.c then allocates claim by claim. */
typedef struct dvu {
	int sl, w, pod, k; /* slot, way, pod number on the node, demand */
} dvu;

static bool dv_aug(const wm *m, const dvu *u, int i, const int *cand,
		   int *owner, unsigned char *seen)
{
	uint64_t set = m->dv_dset[u[i].k];
	for (int b = 0; b < WDV_MAXC; b++) {
		if (!(set >> b & 1) || seen[b])
			continue;
		seen[b] = 1;
		if (owner[b] < 0 || dv_aug(m, u, owner[b], cand, owner, seen)) {
			owner[b] = i;
			return true;
		}
	}
	(void)cand;
	return false;
}

static const wdr_state *dev_answer(const wm *m, const double *v)
{
	const wp_problem *p = m->p;
	if (!m->cpc || m->dv_inexact)
		return NULL;
	wdr_state *st = wa_alloc(p->arena, sizeof *st);
	if (!st || wdr_state_clone(st, m->dra, p->arena))
		return NULL;
	const ws_dra *d = p->snap->dra;
	/* devices of claims whose holders are all evicted are free (by q:
	 * f may stay 0 where the devices are not needed) */
	for (int i = 0; i < m->nfr; i++) {
		bool gone = true;
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++)
			gone &= v[m->qcol[m->fr_q[k]]] < 0.5;
		for (int dev = 0; gone && dev < d->ndevs; dev++)
			if (m->dev_fr[dev] == i && st->taken[dev] > 0)
				st->taken[dev]--;
	}
	wa_arena *tmp = wa_new();
	if (!tmp)
		return NULL;
	int cand[WDV_MAXC], owner[WDV_MAXC];
	unsigned char seen[WDV_MAXC], busy[WDV_MAXC];
	/* shared claims first: the way and devices of z and s */
	for (int i = 0; m->dv_irec && i < d->ninsts; i++) {
		const dvinst *I = &m->dv_irec[i];
		int w = -1;
		for (int k = 0; k < I->nw; k++)
			if (v[I->zfirst + k] > 0.5)
				w = k;
		if (w < 0)
			continue;
		const wdr_spec *sp = &d->specs[I->spec];
		wdr_result r[WDR_MAX_RESULTS];
		int nr = 0, node = -1, entry = -1;
		for (int q = 0; q < sp->nreqs; q++) {
			int sub = sp->reqs[q].alts[I->alt[w * sp->nreqs + q]].id;
			for (int k = 0; k < m->dv_ns && nr < WDR_MAX_RESULTS;
			     k++)
				if (m->dv_s[k].inst == i && m->dv_s[k].req == q &&
				    v[m->dv_s[k].col] > 0.5)
					r[nr++] = (wdr_result){sub,
							       m->dv_s[k].dev};
		}
		for (int j = 1; j <= m->ncols && node < 0; j++)
			if (m->ckind[j] == WM_L && m->cref[j] == i &&
			    v[j] > 0.5)
				node = m->cdom[j];
		for (int c = 0; c < p->nclasses && entry < 0; c++)
			for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++)
				if (m->cpc[c]->c[k].inst == i) {
					entry = k;
					break;
				}
		if (node < 0)
			continue; /* chosen but unused: allocate nothing */
		if (wdr_push(st, -1, entry, i, -1, node, r, nr))
			goto fail;
	}
	for (int n = 0; n < p->nnodes; n++) {
		bool g;
		dvu *u = NULL;
		size_t capu = 0;
		int nu = 0, npod = 0;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
			int sl = m->nxslot[i], c = wp_slot_class(p, sl);
			if (!m->cpc[c])
				continue;
			for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl];
			     w++) {
				int cnt = (int)llround(v[m->dv_ycol[w]
							     ? m->dv_ycol[w]
							     : m->xcol[sl]]);
				for (int j = 0; j < cnt; j++, npod++)
					for (int k = m->dv_dbeg[w];
					     k < m->dv_dbeg[w + 1]; k++)
						for (int t = 0;
						     t < m->dv_dcnt[k]; t++)
							if (WA_PUSH(tmp, u, nu,
							    capu, ((dvu){sl, w,
							    npod, k})))
								goto fail;
			}
		}
		if (!nu)
			continue;
		int nc = dv_cands(m, n, cand, &g);
		if (nc < 0)
			goto fail;
		for (int b = 0; b < WDV_MAXC; b++) {
			owner[b] = -1;
			/* free when the model was built: taken since by a
			 * shared claim */
			busy[b] = b < nc && st->taken[cand[b]] &&
				  !d->devs[cand[b]].multi;
		}
		for (int i = 0; i < nu; i++) {
			memcpy(seen, busy, sizeof seen);
			if (!dv_aug(m, u, i, cand, owner, seen))
				goto fail;
		}
		/* results per pod and entry, pushed in entry order */
		for (int i = 0; i < nu;) {
			int j = i;
			while (j < nu && u[j].pod == u[i].pod)
				j++;
			int sl = u[i].sl, c = wp_slot_class(p, sl);
			const wdr_podc *pc = m->cpc[c];
			for (int e = 0; e < pc->n; e++) {
				if (pc->c[e].inst >= 0)
					continue;
				wdr_result r[WDR_MAX_RESULTS];
				int nr = 0;
				for (int b = 0; b < nc; b++) {
					int o = owner[b];
					if (o < i || o >= j ||
					    m->dv_dent[u[o].k] != e ||
					    nr == WDR_MAX_RESULTS)
						continue;
					r[nr++] = (wdr_result){
					    m->dv_dsub[u[o].k], cand[b]};
				}
				/* results in request order, as the search */
				for (int a = 1; a < nr; a++)
					for (int z = a; z > 0 &&
					     r[z - 1].sub > r[z].sub; z--) {
						wdr_result t = r[z];
						r[z] = r[z - 1];
						r[z - 1] = t;
					}
				if (wdr_push(st, p->classes[c].pods[0], e, -1,
					     c, n, r, nr))
					goto fail;
			}
			i = j;
		}
	}
	wa_destroy(tmp);
	return st;
fail:
	wa_destroy(tmp);
	return NULL;
}

/* Interchangeable nodes: same free vector, same emptiness, same columns
 * (class and bound, in class order), same domain at every key a group
 * uses unless the domain is the node alone.  Any solution can be permuted
 * among such nodes without changing feasibility or objective, so sorting
 * them by the load f(n) = sum_i (i + 1) x[c_i,n] (c_i: the node's i-th
 * class) is valid: sym[n1,n2]: f(n1) - f(n2) >= 0 for consecutive nodes of
 * a run, n1 < n2. */
static int sym_cmp(const wm *m, const int *keys, int nkeys, int a, int b)
{
	const wp_problem *p = m->p;
	/* nodes with eviction classes are each unlike any other */
	if (m->hasq && (m->hasq[a] || m->hasq[b]))
		return (a > b) - (a < b);
	for (int r = 0; r < p->nres; r++) {
		int64_t fa = p->free[(size_t)a * p->nres + r];
		int64_t fb = p->free[(size_t)b * p->nres + r];
		if (fa != fb)
			return fa < fb ? -1 : 1;
	}
	int ea = m->ucol[a] != 0, eb = m->ucol[b] != 0;
	if (ea != eb)
		return ea - eb;
	for (int i = 0; i < nkeys; i++) {
		const wtp_key *k = &p->topo->keys[keys[i]];
		int da = k->node_dom[a], db = k->node_dom[b];
		if (da >= 0 && k->dom_nnodes[da] == 1)
			da = -3;
		if (db >= 0 && k->dom_nnodes[db] == 1)
			db = -3;
		if (da != db)
			return da < db ? -1 : 1;
	}
	int la = m->nxbeg[a + 1] - m->nxbeg[a];
	int lb = m->nxbeg[b + 1] - m->nxbeg[b];
	if (la != lb)
		return la < lb ? -1 : 1;
	for (int i = 0; i < la; i++) {
		int sa = m->nxslot[m->nxbeg[a] + i];
		int sb = m->nxslot[m->nxbeg[b] + i];
		int ca = wp_slot_class(p, sa), cb = wp_slot_class(p, sb);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (m->xub[sa] != m->xub[sb])
			return m->xub[sa] < m->xub[sb] ? -1 : 1;
	}
	return 0;
}

/* Merge sort by signature, then node index (qsort has no context). */
/* sym_cmp, then node index: a total order for wis_sort */
typedef struct symctx {
	const wm *m;
	const int *keys;
	int nkeys;
} symctx;

static int sym_order(const void *ctx, int a, int b)
{
	const symctx *c = ctx;
	int r = sym_cmp(c->m, c->keys, c->nkeys, a, b);
	return r ? r : (a > b) - (a < b);
}

/* Runs of interchangeable nodes: symnode[symrun[r] .. symrun[r+1]). */
static void sym_runs(wm *m)
{
	const wp_problem *p = m->p;
	int nk = p->topo ? p->topo->nkeys : 0;
	int *keys = wa_calloc(m->ar, nk + 1, sizeof *keys);
	int *order = wa_calloc(m->ar, p->nnodes + 1, sizeof *order);
	int *tmp = wa_calloc(m->ar, p->nnodes + 1, sizeof *tmp);
	m->symrun = wa_calloc(m->ar, p->nnodes + 2, sizeof *m->symrun);
	if (!keys || !order || !tmp || !m->symrun) {
		m->nomem = true;
		return;
	}
	int nkeys = 0;
	for (int k = 0; k < nk; k++) {
		bool used = false;
		for (int g = 0; g < p->ngroups && !used; g++)
			used = p->groups[g].key == k && m->tn[g];
		for (int h = 0; h < p->ncomps && !used; h++)
			used = p->comps[h].key == k && m->hn[h];
		for (int g = 0; g < p->ngroups && !used; g++) {
			const wp_tas *ta = p->groups[g].tas;
			for (int l = 0; ta && l < ta->nslices; l++)
				used |= ta->slice_key[l] == k;
			used |= ta && ta->excl == k;
			/* the compactness tiers tell apart the domains of a
			 * preferred level and of every coarser one */
			for (int q = ta ? ta->pref : -1; q >= 0 && q < 64;
			     q = p->topo->keys[q].parent)
				used |= q == k;
		}
		/* the packing tier tells apart domains too */
		used |= m->pkkey && m->pkkey[k];
		if (used)
			keys[nkeys++] = k;
	}
	int nn = 0;
	for (int n = 0; n < p->nnodes; n++)
		if (m->nxbeg[n + 1] > m->nxbeg[n])
			order[nn++] = n;
	wis_sort(order, tmp, nn, sym_order, &(symctx){m, keys, nkeys});
	m->symnode = order;
	m->symend = tmp; /* reused: the sort is done */
	m->nsymrun = 0;
	for (int i = 0; i < nn;) {
		int j = i + 1;
		while (j < nn &&
		       sym_cmp(m, keys, nkeys, order[i], order[j]) == 0)
			j++;
		if (j - i > 1) {
			m->symrun[m->nsymrun] = i;
			m->symend[m->nsymrun++] = j;
		}
		i = j;
	}
}

static void rows_sym(wm *m)
{
	const wp_problem *p = m->p;
	m->nsym = 0;
	for (int r = 0; r < m->nsymrun; r++) {
		for (int k = m->symrun[r]; k + 1 < m->symend[r]; k++) {
			int a = m->symnode[k], b = m->symnode[k + 1];
			int la = m->nxbeg[a + 1] - m->nxbeg[a];
			wm_row_begin(m);
			for (int t = 0; t < la; t++) {
				wm_coef(m, m->xcol[m->nxslot[m->nxbeg[a] + t]],
					t + 1);
				wm_coef(m, m->xcol[m->nxslot[m->nxbeg[b] + t]],
					-(t + 1));
			}
			wm_row_end(m, GLP_LO, 0, 0,
			    wm_name(m, "sym[%s,%s]", p->snap->nodes[a].name,
				    p->snap->nodes[b].name));
			m->nsym++;
		}
	}
}

/* --------------------------------------------------------- objective */

/* Value of one pod of class c in its tier: 1 (pods) or its request of
 * value_res divided by the gcd of all classes' requests of it. */
int64_t wilp_class_value(const wp_problem *p, int c, int64_t vgcd)
{
	if (p->value_res < 0)
		return 1;
	if (vgcd == 0)
		return 0;
	return p->classes[c].req[p->value_res] / vgcd;
}

int wilp_work_tiers(const wp_problem *p, int32_t *tprio, double *tM,
		    double *tmax, int *ctier)
{
	int nt = 0;
	/* groups are sorted by priority, descending */
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->nclasses)
			continue;
		if (nt == 0 || tprio[nt - 1] != g->priority)
			tprio[nt++] = g->priority;
	}
	/* not relying on the order: place each class by search */
	int64_t vg = wilp_value_gcd(p);
	for (int c = 0; c < p->nclasses; c++) {
		int32_t pr = p->groups[p->classes[c].group].priority;
		int t = 0;
		while (t < nt && tprio[t] != pr)
			t++;
		if (t == nt)
			tprio[nt++] = pr; /* unsorted input: kept apart */
		ctier[c] = t;
		double v = (double)wilp_class_value(p, c, vg);
		tM[t] += v * p->classes[c].count;
		if (v > tmax[t])
			tmax[t] = v;
	}
	return nt;
}

int64_t wilp_value_gcd(const wp_problem *p)
{
	int64_t g = 0;
	if (p->value_res < 0)
		return 1;
	for (int c = 0; c < p->nclasses; c++)
		if (p->classes[c].req[p->value_res] > 0)
			g = wp_gcd(g, p->classes[c].req[p->value_res]);
	return g;
}

/* Largest coefficient of tiers [s, e] weighted as one objective:
 * w_e = 1, w_t = w_{t+1} (1 + M_{t+1}). */
double wilp_tier_weights(const double *tM, const double *tmax, int s,
			 int e, double *w)
{
	double big = 0, wt = 1;
	for (int t = e; t >= s; t--) {
		if (t < e)
			wt *= 1 + tM[t + 1];
		if (w)
			w[t] = wt;
		if (wt * tmax[t] > big)
			big = wt * tmax[t];
	}
	return big;
}

static double block_coef(const wm *m, int s, int e, double *w)
{
	return wilp_tier_weights(m->tM, m->tmaxval, s, e, w);
}

/* Tiers: the pending priority levels (highest first) and packing.  The
 * single objective weighs tier t by W_t = prod_{t' below t} (1 + M_t'),
 * M = the tier's largest value; W_t > sum_{t' below t} W_t' M_t', so no
 * amount of lower tiers outvotes one unit of a higher one.  When its
 * largest coefficient would pass WILP_MAX_COEF the tiers are split into
 * blocks solved one after the other (lexicographically). */
/* The firstAvailable rank a y or z column stands for (0: none). */
static double dv_col_pen(const wm *m, int j)
{
	if (m->ckind[j] == WM_V)
		return m->dv_wpen[m->cref[j]];
	if (m->ckind[j] == WM_Z) {
		const dvinst *I = &m->dv_irec[m->cref[j]];
		const wdr_spec *sp = &m->p->snap->dra->specs[I->spec];
		int pen = 0;
		for (int r = 0; r < sp->nreqs; r++)
			pen += I->alt[m->cdom[j] * sp->nreqs + r];
		return pen;
	}
	return 0;
}

static void objective(wm *m, double max_coef)
{
	const wp_problem *p = m->p;
	int nt = 0;
	/* room for the budget and eviction tiers (preemption) and the
	 * compactness tiers (one per key, issue 5) */
	int nk = p->topo ? p->topo->nkeys : 0;
	size_t ntmax = (size_t)p->nclasses + 5 + nk;
	m->tprio = wa_calloc(m->ar, ntmax, sizeof *m->tprio);
	m->tM = wa_calloc(m->ar, ntmax, sizeof *m->tM);
	m->tmaxval = wa_calloc(m->ar, ntmax, sizeof *m->tmaxval);
	m->wfull = wa_calloc(m->ar, ntmax, sizeof *m->wfull);
	m->wblock = wa_calloc(m->ar, ntmax, sizeof *m->wblock);
	m->bfirst = wa_calloc(m->ar, ntmax + 1, sizeof *m->bfirst);
	m->ctier = wa_calloc(m->ar, m->ncols + 1, sizeof *m->ctier);
	m->cval = wa_calloc(m->ar, m->ncols + 1, sizeof *m->cval);
	int *ctier_c = wa_calloc(m->ar, p->nclasses + 1, sizeof *ctier_c);
	if (!m->tprio || !m->tM || !m->tmaxval || !m->wfull || !m->wblock ||
	    !m->bfirst || !m->ctier || !m->cval || !ctier_c) {
		m->nomem = true;
		return;
	}
	nt = wilp_work_tiers(p, m->tprio, m->tM, m->tmaxval, ctier_c);
	int64_t vg = wilp_value_gcd(p);
	m->nprio_t = nt;
	/* firstAvailable (issue 4): minus the alternatives' indexes of the
	 * ways (y) and shared-claim ways (z) chosen, right below the work
	 * tiers; its range is 0 .. -M */
	double am = 0, amax = 0;
	for (int j = 1; j <= m->ncols; j++) {
		double pen = dv_col_pen(m, j);
		if (pen <= 0)
			continue;
		am += m->ckind[j] == WM_V
			  ? pen * p->classes[wp_slot_class(p, m->cdom[j])].count
			  : pen;
		if (pen > amax)
			amax = pen;
	}
	if (am > 0) {
		m->atier1 = nt + 1;
		m->tM[nt] = am;
		m->tmaxval[nt] = amax;
		nt++;
	}
	/* tier 2 in keep form: the cost of the units kept running, so that
	 * every tier is maximised and non-negative (formulation.md) */
	m->btier = -1;
	long vsum = 0;
	for (int j = 0; j < p->snap->npdbs; j++)
		vsum += m->wcol[j] ? m->wV[j] : 0;
	if (vsum > 0) {
		m->btier = nt++;
		m->tM[m->btier] = (double)vsum;
		m->tmaxval[m->btier] = 1;
	}
	m->qtier = -1;
	if (m->nqc > 0) {
		m->qtier = nt++;
		wpe_evict_range(p, &m->tM[m->qtier], &m->tmaxval[m->qtier]);
	}
	/* moves (issue 6): minus the pods moved, a range of M = the pods
	 * that may move */
	m->mtier = -1;
	if (p->nmcls > 0) {
		m->mtier = nt++;
		for (int i = 0; i < p->nmcls; i++)
			m->tM[m->mtier] += p->mcls[i].count;
		m->tmaxval[m->mtier] = 1;
	}
	/* compactness tiers (issue 5): one per key with w columns,
	 * coarse to fine, between the work tiers and packing */
	int *ktier = wa_calloc(m->ar, (size_t)nk + 1, sizeof *ktier);
	if (!ktier) {
		m->nomem = true;
		return;
	}
	for (int k = 0; k < nk; k++)
		ktier[k] = -1;
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_W)
			ktier[m->cref[j] % 64] = 0;
	for (int k = 0; k < nk; k++)
		if (ktier[k] == 0) {
			ktier[k] = nt;
			m->tmaxval[nt] = 1;
			nt++;
		}
	int np = m->npk; /* free domains count like free nodes */
	for (int n = 0; n < p->nnodes; n++)
		np += m->ucol[n] != 0;
	m->ntier = nt + 1;
	m->tM[nt] = np;
	m->tmaxval[nt] = 1;
	for (int j = 1; j <= m->ncols; j++) {
		m->ctier[j] = -1;
		if (m->ckind[j] == WM_X) {
			int c = wp_slot_class(p, m->cref[j]);
			m->ctier[j] = ctier_c[c];
			m->cval[j] = (double)wilp_class_value(p, c, vg);
		} else if (m->ckind[j] == WM_U || m->ckind[j] == WM_P) {
			m->ctier[j] = nt;
			m->cval[j] = 1;
		} else if (m->ckind[j] == WM_Q) {
			m->ctier[j] = m->qtier;
			m->cval[j] = q_cost(m, m->cref[j]);
		} else if (m->ckind[j] == WM_B) {
			m->ctier[j] = m->btier;
			m->cval[j] = 1;
		} else if (m->ckind[j] == WM_Y) {
			/* minus the moves: the pods kept home would also
			 * reward evicting other pods than movable ones */
			if (m->cdom[j] != y_class(m, j)->homek) {
				m->ctier[j] = m->mtier;
				m->cval[j] = -1;
			}
		} else if (m->atier1 && dv_col_pen(m, j) > 0) {
			m->ctier[j] = m->atier1 - 1;
			m->cval[j] = -dv_col_pen(m, j);
		} else if (m->ckind[j] == WM_W) {
			int t = ktier[m->cref[j] % 64];
			m->ctier[j] = t;
			m->cval[j] = 1;
			m->tM[t] += 1;
		}
	}
	m->maxcoef = block_coef(m, 0, m->ntier - 1, m->wfull);
	/* blocks, from the top, each as long as it stays exact */
	m->nblock = 0;
	for (int s = 0; s < m->ntier;) {
		int e = s;
		while (e + 1 < m->ntier &&
		       block_coef(m, s, e + 1, NULL) <= max_coef)
			e++;
		block_coef(m, s, e, m->wblock);
		m->bfirst[m->nblock++] = s;
		s = e + 1;
	}
	m->bfirst[m->nblock] = m->ntier;
}

/* Objective of block b (or the single objective, b < 0) at v. */
static long double obj_at(const wm *m, int b, const double *v)
{
	long double z = 0;
	for (int j = 1; j <= m->ncols; j++) {
		int t = m->ctier[j];
		if (t < 0 || v[j] == 0)
			continue;
		if (b < 0)
			z += (long double)m->wfull[t] * m->cval[j] * v[j];
		else if (t >= m->bfirst[b] && t < m->bfirst[b + 1])
			z += (long double)m->wblock[t] * m->cval[j] * v[j];
	}
	return z;
}

static double coef_of(const wm *m, int b, int j)
{
	int t = m->ctier[j];
	if (t < 0)
		return 0;
	if (b < 0)
		return m->wfull[t] * m->cval[j];
	if (t >= m->bfirst[b] && t < m->bfirst[b + 1])
		return m->wblock[t] * m->cval[j];
	return 0;
}

static bool wm_late(wm *m)
{
	if (m->deadline > 0 && wb_now() > m->deadline)
		m->late = true;
	return m->late || m->nomem;
}

static int wm_build(wm *m, const wp_problem *p, wa_arena *ar,
		    double max_coef, bool sym, bool names, double deadline)
{
	memset(m, 0, sizeof *m);
	m->dv_prio = INT32_MIN;
	m->p = p;
	m->ar = ar;
	m->names = names;
	m->deadline = deadline;
	m->xcol = wa_calloc(ar, p->nx + 1, sizeof *m->xcol);
	m->xub = wa_calloc(ar, p->nx + 1, sizeof *m->xub);
	m->acol = wa_calloc(ar, p->ngroups + 1, sizeof *m->acol);
	m->tbeg = wa_calloc(ar, p->ngroups + 1, sizeof *m->tbeg);
	m->tn = wa_calloc(ar, p->ngroups + 1, sizeof *m->tn);
	m->ucol = wa_calloc(ar, p->nnodes + 1, sizeof *m->ucol);
	m->nxbeg = wa_calloc(ar, p->nnodes + 2, sizeof *m->nxbeg);
	m->hcol = wa_calloc(ar, p->ncomps + 1, sizeof *m->hcol);
	m->hbeg = wa_calloc(ar, p->ncomps + 1, sizeof *m->hbeg);
	m->hn = wa_calloc(ar, p->ncomps + 1, sizeof *m->hn);
	m->ebeg = wa_calloc(ar, p->ngroups + 1, sizeof *m->ebeg);
	m->en = wa_calloc(ar, p->ngroups + 1, sizeof *m->en);
	m->kbeg = wa_calloc(ar, (size_t)(p->ngroups + 1) * WS_MAX_SLICE_LAYERS,
			    sizeof *m->kbeg);
	m->kn = wa_calloc(ar, (size_t)(p->ngroups + 1) * WS_MAX_SLICE_LAYERS,
			  sizeof *m->kn);
	if (!m->hcol || !m->hbeg || !m->hn || !m->ebeg || !m->en ||
	    !m->kbeg || !m->kn)
		return WASP_ENOMEM;
	if (!m->xcol || !m->xub || !m->acol || !m->tbeg || !m->tn ||
	    !m->ucol || !m->nxbeg)
		return WASP_ENOMEM;
	if (p->nmcls)
		sym = false; /* home nodes differ (issue 6) */
	if (p->snap->dra) {
		/* Devices make nodes differ beyond what the symmetry rows
		 * compare: no symmetry breaking with DRA. */
		sym = false;
		/* in the problem's arena: the answer's allocation
		 * (dev_answer) shares its match table */
		m->dra = wa_alloc(p->arena, sizeof *m->dra);
		m->cpc = wa_calloc(ar, (size_t)p->nclasses + 1,
				   sizeof *m->cpc);
		if (!m->dra || !m->cpc ||
		    wdr_state_init(m->dra, p->snap, p->arena))
			return WASP_ENOMEM;
		for (int c = 0; c < p->nclasses; c++) {
			const wdr_podc *pc =
			    &p->snap->dra->pods[p->classes[c].pods[0]];
			m->cpc[c] = pc->n ? pc : NULL;
		}
	}
	/* the steps run in order; a late build is abandoned (m->late) */
	q_classes(m);
	if (!wm_late(m) && m->cpc)
		dv_held(m);
	if (!wm_late(m))
		mv_setup(m);
	if (!wm_late(m))
		cols_x(m);
	if (!wm_late(m))
		index_nodes(m);
	if (!wm_late(m))
		cols_a(m);
	if (!wm_late(m))
		cols_t(m);
	if (!wm_late(m))
		cols_h(m);
	if (!wm_late(m))
		cols_tas(m);
	if (!wm_late(m))
		cols_u(m);
	if (!wm_late(m))
		cols_q(m);
	if (!wm_late(m))
		cols_w(m);
	if (!wm_late(m))
		cols_y(m);
	if (!wm_late(m)) {
		rows_class(m);
		rows_gang(m);
	}
	if (!wm_late(m))
		rows_topo(m);
	if (!wm_late(m))
		rows_tree(m);
	if (!wm_late(m))
		rows_tas(m);
	if (!wm_late(m))
		cols_rows_pref(m);
	if (!wm_late(m))
		rows_cap(m);
	if (!wm_late(m))
		pk_cols(m);
	if (!wm_late(m))
		rows_budget(m);
	if (!wm_late(m))
		rows_move(m);
	if (!wm_late(m))
		cols_rows_fr(m);
	if (!wm_late(m))
		rows_dev(m);
	if (sym && !wm_late(m))
		sym_runs(m);
	if (sym && !wm_late(m))
		rows_sym(m);
	if (!wm_late(m))
		objective(m, max_coef);
	return m->nomem ? WASP_ENOMEM : WASP_OK;
}

/* Row activity check at integer point v: 0 if every row holds, else the
 * first violated row. */
static int wm_check(const wm *m, const double *v)
{
	for (int j = 1; j <= m->ncols; j++)
		if (v[j] < m->clb[j] || v[j] > m->cub[j])
			return -j;
	for (int i = 1; i <= m->nrows; i++) {
		long double s = 0;
		for (int k = m->rbeg[i]; k < m->rbeg[i + 1]; k++)
			s += (long double)m->av[k] * v[m->ja[k]];
		double lo = m->rlo[i], hi = m->rhi[i];
		switch (m->rtype[i]) {
		case GLP_UP:
			if (s > hi + 1e-9)
				return i;
			break;
		case GLP_LO:
			if (s < lo - 1e-9)
				return i;
			break;
		case GLP_FX:
			if (s < lo - 1e-9 || s > hi + 1e-9)
				return i;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Full column vector from x counts per slot: a, t and u follow from x. */
static void vec_from_x(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	memset(v, 0, sizeof *v * (m->ncols + 1));
	for (int s = 0; s < p->nx; s++)
		if (m->xcol[s])
			v[m->xcol[s]] = x[s];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		long placed = 0;
		int dom = -1;
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++) {
				int s = cl->off + k;
				if (!x[s])
					continue;
				placed += x[s];
				if (g->key >= 0)
					dom = p->topo->keys[g->key]
						  .node_dom[cl->elig[k]];
			}
		}
		if (m->acol[gi])
			v[m->acol[gi]] = placed > 0;
		if (dom >= 0)
			for (int i = 0; i < m->tn[gi]; i++)
				if (m->cdom[m->tbeg[gi] + i] == dom)
					v[m->tbeg[gi] + i] = 1;
	}
	vec_tree(m, x, v);
	vec_tas(m, x, v);
	vec_pref(m, x, v);
	for (int n = 0; n < p->nnodes; n++) {
		if (!m->ucol[n])
			continue;
		long on = 0;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++)
			on += x[m->nxslot[i]];
		v[m->ucol[n]] = on == 0;
	}
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_P)
			continue;
		const wtp_key *key = &p->topo->keys[m->cref[j]];
		int d = m->cdom[j];
		v[j] = 1;
		for (int i = 0; i < key->dom_nnodes[d]; i++) {
			int n = key->dom_nodes[d][i];
			if (m->ucol[n] && v[m->ucol[n]] == 0)
				v[j] = 0;
		}
	}
	/* from x alone: nothing evicted, no budget broken, nothing moved */
	for (int qc = 0; qc < m->nqc; qc++)
		v[m->qcol[qc]] = q_ub(m, qc);
	for (int i = 0; i < p->nmcls; i++)
		v[m->ybeg[i] + p->mcls[i].homek] = p->mcls[i].count;
	for (int j = 0; m->wcol && j < p->snap->npdbs; j++)
		if (m->wcol[j])
			v[m->wcol[j]] = m->wV[j];
	f_from_q(m, v);
	dev_vec(m, x, v);
}

/* w from the q values in v (after evictions were set there). */
static void w_from_q(const wm *m, double *v)
{
	const wp_problem *p = m->p;
	for (int j = 0; m->wcol && j < p->snap->npdbs; j++) {
		if (!m->wcol[j])
			continue;
		double ev = 0;
		for (int qc = 0; qc < m->nqc; qc++) {
			const wp_unit *un =
			    &p->units[m->qc_units[m->qc_beg[qc]]];
			for (int i = 0; i < un->npdb; i++)
				if (un->pdb[i] == j)
					ev += un->pdbn[i] *
					      (q_ub(m, qc) - v[m->qcol[qc]]);
		}
		double viol = ev - p->pdb_allowed[j];
		v[m->wcol[j]] = m->wV[j] - (viol > 0 ? viol : 0);
	}
}

/* Permute the loads of interchangeable nodes so that the sym rows hold:
 * within each run, loads sorted by f descending (stable). */
static int sym_permute(const wm *m, int *x)
{
	for (int r = 0; r < m->nsymrun; r++) {
		int s0 = m->symrun[r], len = m->symend[r] - s0;
		int a0 = m->symnode[s0];
		int la = m->nxbeg[a0 + 1] - m->nxbeg[a0];
		int *ld = malloc(sizeof *ld * ((size_t)len * la + 1));
		long *f = malloc(sizeof *f * len);
		int *perm = malloc(sizeof *perm * len);
		if (!ld || !f || !perm) {
			free(ld), free(f), free(perm);
			return -1;
		}
		for (int q = 0; q < len; q++) {
			int n = m->symnode[s0 + q];
			f[q] = 0;
			for (int t = 0; t < la; t++) {
				int v = x[m->nxslot[m->nxbeg[n] + t]];
				ld[(size_t)q * la + t] = v;
				f[q] += (long)(t + 1) * v;
			}
			perm[q] = q;
		}
		for (int i = 1; i < len; i++) {
			int v = perm[i], j = i;
			while (j > 0 && f[perm[j - 1]] < f[v]) {
				perm[j] = perm[j - 1];
				j--;
			}
			perm[j] = v;
		}
		for (int q = 0; q < len; q++) {
			int n = m->symnode[s0 + q];
			for (int t = 0; t < la; t++)
				x[m->nxslot[m->nxbeg[n] + t]] =
				    ld[(size_t)perm[q] * la + t];
		}
		free(ld), free(f), free(perm);
	}
	return 0;
}

/* ------------------------------------------------------------ GLPK run */

typedef struct wilp_run {
	wgl_env env;        /* GLPK hooks; env.P the problem (glpkenv.h) */
	const wasp_options *o;
	wilp_tune *tune;
	wgl_watch w;        /* deadline, bound, warm injection (glpkenv.h) */
	/* LP rounding heuristic (heur_round) */
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
	/* trees in the rounding (issue 5): (key, domain) pairs every
	 * placement must meet, and the roots already placed this pass */
	int hck[WS_MAX_TREE_DEPTH + 2], hcd[WS_MAX_TREE_DEPTH + 2], nhc;
	unsigned char *hroot; /* ncomps */
} wilp_run;

static bool cancelled(const wilp_run *r)
{
	return r->o && r->o->cancel && *r->o->cancel;
}

static bool group_has_cols(const wm *m, int g)
{
	const wp_problem *p = m->p;
	const wp_group *wg = &p->groups[g];
	for (int ci = 0; ci < wg->nclasses; ci++) {
		const wp_class *cl = &p->classes[wg->classes[ci]];
		for (int k = 0; k < cl->nelig; k++)
			if (m->xcol[cl->off + k])
				return true;
	}
	return false;
}

/* Place pods of group g on the slots of domain d (-1: any) greedily,
 * preferring the slots the LP fills; returns the pods placed, which are
 * logged in r->hlog from *nlog on. */
static int heur_place(wilp_run *r, int g, int d, int *nlog)
{
	const wm *m = r->m;
	const wp_problem *p = m->p;
	const wp_group *wg = &p->groups[g];
	const wtp_key *key = wg->key >= 0 ? &p->topo->keys[wg->key] : NULL;
	int placed = 0;
	for (int ci = 0; ci < wg->nclasses; ci++) {
		const wp_class *cl = &p->classes[wg->classes[ci]];
		for (int pod = 0; pod < cl->count; pod++) {
			int bs = -1;
			double bscore = -1e300;
			for (int k = 0; k < cl->nelig; k++) {
				int s = cl->off + k, n = cl->elig[k];
				int j = m->xcol[s];
				if (!j || r->hx[s] >= m->xub[s])
					continue;
				if (d >= 0 && key->node_dom[n] != d)
					continue;
				bool out = false;
				for (int i = 0; i < r->nhc && !out; i++)
					out = p->topo->keys[r->hck[i]]
						  .node_dom[n] != r->hcd[i];
				if (out)
					continue;
				bool fits = true;
				for (int q = 0; q < p->nres && fits; q++)
					fits = cl->req[q] <= 0 ||
					       r->rem[(size_t)n * p->nres + q] >=
						   cl->req[q];
				if (!fits)
					continue;
				/* LP mass left here, then busy nodes first
				 * (packing), then the tighter node */
				double sc = r->lp[j] - r->hx[s];
				if (m->ucol[n] == 0 ||
				    r->rem[(size_t)n * p->nres] <
					p->free[(size_t)n * p->nres])
					sc += 0.01;
				sc -= 1e-9 * (double)r->rem[(size_t)n * p->nres];
				if (sc > bscore) {
					bscore = sc;
					bs = s;
				}
			}
			if (bs < 0)
				break;
			int n = cl->elig[bs - cl->off];
			r->hx[bs]++;
			for (int q = 0; q < p->nres; q++)
				r->rem[(size_t)n * p->nres + q] -= cl->req[q];
			r->hlog[(*nlog)++] = bs;
			placed++;
		}
	}
	return placed;
}

static void heur_undo(wilp_run *r, int from, int *nlog)
{
	const wp_problem *p = r->m->p;
	while (*nlog > from) {
		int s = r->hlog[--(*nlog)];
		int c = wp_slot_class(p, s);
		int n = p->classes[c].elig[s - p->classes[c].off];
		r->hx[s]--;
		for (int q = 0; q < p->nres; q++)
			r->rem[(size_t)n * p->nres + q] += p->classes[c].req[q];
	}
}

/* Placements one heur_round can make: every pending pod once. */
static size_t heur_log_size(const wp_problem *p)
{
	size_t n = 1;
	for (int c = 0; c < p->nclasses; c++)
		n += p->classes[c].count;
	return n;
}

/* One rounding pass: groups by priority, then by their LP admission
 * (perturbed by `noise` after the first pass), each put whole into the
 * first domain, in LP order, that takes it.  Leaves the counts in r->hx. */
/* Trees in the rounding: composite h inside the constraints in r->hc*:
 * its domains by their LP value (at most 3 tried), its children by their
 * LP admission, each placed in its own domains by LP value; kept when at
 * least minGroupCount children are in, else undone.  1: admitted. */
static int heur_tree(wilp_run *r, int h, int *nlog)
{
	const wm *m = r->m;
	const wp_problem *p = m->p;
	const wp_comp *c = &p->comps[h];
	if (c->invalid || c->fixed_dom == -2 || !m->hcol[h] ||
	    r->nhc >= WS_MAX_TREE_DEPTH + 2)
		return 0;
	int dom[3] = {-1, -1, -1}, nd = 1;
	if (c->key >= 0) {
		nd = 0;
		double dv[3] = {-1, -1, -1};
		for (int i = 0; i < m->hn[h]; i++) {
			int j = m->hbeg[h] + i, k = nd < 3 ? nd++ : 3;
			double v = r->lp[j];
			if (k == 3 && v <= dv[2])
				continue;
			if (k == 3)
				k = 2;
			while (k > 0 && dv[k - 1] < v) {
				dv[k] = dv[k - 1];
				dom[k] = dom[k - 1];
				k--;
			}
			dv[k] = v;
			dom[k] = m->cdom[j];
		}
	}
	int need = c->min_groups > 0 ? c->min_groups : 1;
	for (int o = 0; o < nd; o++) {
		int from = *nlog, got = c->nrunning, nhc = r->nhc;
		if (c->key >= 0) {
			r->hck[r->nhc] = c->key;
			r->hcd[r->nhc++] = dom[o];
		}
		/* children, largest LP admission first (insertion order) */
		int ord[64], no = 0;
		for (int i = 0; i < c->nkids && no < 64; i++) {
			int k = c->kids[i], col = k >= 0 ? m->acol[k]
							 : m->hcol[-1 - k];
			double v = col ? r->lp[col] : 0;
			int q = no++;
			while (q > 0) {
				int kk = ord[q - 1];
				int cc = kk >= 0 ? m->acol[kk] : m->hcol[-1 - kk];
				if ((cc ? r->lp[cc] : 0) >= v)
					break;
				ord[q] = ord[q - 1];
				q--;
			}
			ord[q] = k;
		}
		for (int i = 0; i < no; i++) {
			int k = ord[i];
			if (k < 0) {
				got += heur_tree(r, -1 - k, nlog);
				continue;
			}
			const wp_group *wg = &p->groups[k];
			if (wg->tas || !m->acol[k])
				continue;
			int gneed = wg->gang ? (wg->min_need > 0 ? wg->min_need
								 : 1)
					     : 1;
			int nt = m->tn[k];
			bool ok = false;
			for (int t = 0; t < (nt ? nt : 1) && !ok; t++) {
				int kf = *nlog;
				int d = nt ? m->cdom[m->tbeg[k] + t] : -1;
				if (heur_place(r, k, d, nlog) >= gneed)
					ok = true;
				else
					heur_undo(r, kf, nlog);
			}
			got += ok;
		}
		r->nhc = nhc;
		if (got >= need && got > 0)
			return 1;
		heur_undo(r, from, nlog);
	}
	return 0;
}

static void heur_pass(wilp_run *r, double noise, uint64_t *rs)
{
	const wm *m = r->m;
	const wp_problem *p = m->p;
	memcpy(r->rem, p->free, sizeof *r->rem * (size_t)p->nnodes * p->nres);
	memset(r->hx, 0, sizeof *r->hx * (p->nx + 1));
	int ng = 0;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		/* annotated groups are left out (the rounding does not know
		 * them); trees are placed whole by heur_tree */
		if (!group_has_cols(m, g) || wg->tas)
			continue;
		double mass = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *cl = &p->classes[wg->classes[ci]];
			for (int k = 0; k < cl->nelig; k++)
				if (m->xcol[cl->off + k])
					mass += r->lp[m->xcol[cl->off + k]];
		}
		double adm = m->acol[g] ? r->lp[m->acol[g]] : 1;
		double key = adm + 1e-3 * mass / (1 + wg->size);
		if (noise > 0)
			key += noise * wrng_unit(rs);
		r->gkey[g] = key;
		int i = ng++;
		while (i > 0) {
			int h = r->gord[i - 1];
			if (p->groups[h].priority > wg->priority ||
			    (p->groups[h].priority == wg->priority &&
			     r->gkey[h] >= key))
				break;
			r->gord[i] = h;
			i--;
		}
		r->gord[i] = g;
	}
	int nlog = 0;
	if (r->hroot)
		memset(r->hroot, 0, (size_t)p->ncomps + 1);
	for (int oi = 0; oi < ng; oi++) {
		int g = r->gord[oi];
		const wp_group *wg = &p->groups[g];
		if (wg->pcomp) {
			int root = p->comps[wg->pcomp - 1].root;
			if (r->hroot && !r->hroot[root]) {
				r->hroot[root] = 1;
				r->nhc = 0;
				heur_tree(r, root, &nlog);
			}
			continue;
		}
		int need = wg->gang ? (wg->min_need > 0 ? wg->min_need : 1) : 1;
		int nd = m->tn[g];
		for (int i = 0; i < nd; i++) {
			int j = m->tbeg[g] + i, k = i;
			double v = r->lp[j];
			if (noise > 0)
				v += 0.25 * noise * wrng_unit(rs);
			while (k > 0 && r->dval[k - 1] < v) {
				r->dord[k] = r->dord[k - 1];
				r->dval[k] = r->dval[k - 1];
				k--;
			}
			r->dord[k] = j;
			r->dval[k] = v;
		}
		for (int i = 0; i < (nd ? nd : 1); i++) {
			int from = nlog;
			int d = nd ? m->cdom[r->dord[i]] : -1;
			if (heur_place(r, g, d, &nlog) >= need)
				break;
			heur_undo(r, from, &nlog);
		}
	}
}

/* LP rounding, several passes; the best by the current block's objective
 * is checked against every row and offered to GLPK. */
static void heur_round(glp_tree *T, wilp_run *r, int passes)
{
	const wm *m = r->m;
	glp_prob *Q = glp_ios_get_prob(T);
	for (int j = 1; j <= m->ncols; j++)
		r->lp[j] = glp_get_col_prim(Q, j);
	uint64_t rs = 0x5eed + (uint64_t)r->nheur;
	double bestz = -INFINITY; /* the firstAvailable tier is negative */
	for (int k = 0; k < passes; k++) {
		/* a pass costs a walk over every slot: on a large model
		 * the passes alone can cross the deadline */
		if (k && r->w.deadline > 0 &&
		    wb_now() > r->w.deadline - WILP_MARGIN_S)
			break;
		heur_pass(r, k ? 0.5 : 0, &rs);
		if (sym_permute(m, r->hx))
			return;
		vec_from_x(m, r->hx, r->hv);
		if (wm_check(m, r->hv) != 0)
			continue;
		double z = (double)obj_at(m, r->block, r->hv);
		if (z > bestz) {
			bestz = z;
			memcpy(r->hbest, r->hv, sizeof *r->hv * (m->ncols + 1));
		}
	}
	if (bestz > -INFINITY && glp_ios_heur_sol(T, r->hbest) == 0)
		r->heur_found++;
}

static void callback(glp_tree *T, void *info)
{
	wilp_run *r = info;
	if (wgl_watch_step(T, &r->w))
		return;
	if (glp_ios_reason(T) == GLP_IHEUR && r->m && r->lp) {
		heur_round(T, r, r->nheur ? WILP_HEUR_PASSES / 4
					  : WILP_HEUR_PASSES);
		r->nheur++;
	}
}

/* The LP rounding heuristic's buffers; -1 on NOMEM. */
static int heur_alloc(wilp_run *r, const wm *m)
{
	const wp_problem *p = m->p;
	r->m = m;
	r->lp = wa_calloc(m->ar, m->ncols + 1, sizeof *r->lp);
	r->hv = wa_calloc(m->ar, m->ncols + 1, sizeof *r->hv);
	r->hx = wa_calloc(m->ar, p->nx + 1, sizeof *r->hx);
	r->hlog = wa_calloc(m->ar, heur_log_size(p), sizeof(int));
	r->rem = wa_calloc(m->ar, (size_t)p->nnodes * p->nres + 1,
			   sizeof *r->rem);
	r->gord = wa_calloc(m->ar, p->ngroups + 1, sizeof *r->gord);
	r->gkey = wa_calloc(m->ar, p->ngroups + 1, sizeof *r->gkey);
	r->dord = wa_calloc(m->ar, m->ncols + 1, sizeof *r->dord);
	r->dval = wa_calloc(m->ar, m->ncols + 1, sizeof *r->dval);
	r->hbest = wa_calloc(m->ar, m->ncols + 1, sizeof *r->hbest);
	r->hroot = wa_calloc(m->ar, p->ncomps + 1, 1);
	return r->lp && r->hv && r->hx && r->hlog && r->rem && r->gord &&
		       r->gkey && r->dord && r->dval && r->hbest && r->hroot
		   ? 0
		   : -1;
}

static void glpk_begin(wilp_run *r)
{
	wgl_begin(&r->env, r->tune ? r->tune->mem_limit_mb : 0);
}

static void load_prob(const wm *m, glp_prob *P, int block)
{
	glp_set_prob_name(P, "wasp");
	glp_set_obj_name(P, "value");
	glp_set_obj_dir(P, GLP_MAX);
	if (m->nrows)
		glp_add_rows(P, m->nrows);
	if (m->ncols)
		glp_add_cols(P, m->ncols);
	for (int i = 1; i <= m->nrows; i++) {
		if (m->rname[i])
			glp_set_row_name(P, i, m->rname[i]);
		glp_set_row_bnds(P, i, m->rtype[i], m->rlo[i], m->rhi[i]);
		glp_set_mat_row(P, i, m->rbeg[i + 1] - m->rbeg[i],
				m->ja + m->rbeg[i] - 1,
				m->av + m->rbeg[i] - 1);
	}
	for (int j = 1; j <= m->ncols; j++) {
		if (m->cname[j])
			glp_set_col_name(P, j, m->cname[j]);
		glp_set_col_kind(P, j, GLP_IV);
		glp_set_col_bnds(P, j,
				 m->clb[j] == m->cub[j] ? GLP_FX : GLP_DB,
				 m->clb[j], m->cub[j]);
		glp_set_obj_coef(P, j, coef_of(m, block, j));
	}
}

/* glp_set_mat_row reads ind[1..len] and val[1..len]: the pointers passed
 * above are shifted by one so that element 1 is the row's first entry. */

static double obj_max(const wm *m, int b)
{
	long double z = 0;
	int s = b < 0 ? 0 : m->bfirst[b];
	int e = b < 0 ? m->ntier : m->bfirst[b + 1];
	for (int t = s; t < e; t++)
		z += (long double)(b < 0 ? m->wfull[t] : m->wblock[t]) *
		     m->tM[t];
	return (double)z;
}

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

/* Everything that calls GLPK; a fault longjmps back to wilp_solve. */
static int run_glpk(solve_state *S, wasp_error *err)
{
	wm *m = &S->m;
	wilp_run *r = &S->run;
	const wilp_tune *tu = r->tune;
	glp_prob *P;
	if (m->ncols == 0 && !(tu && tu->fault)) {
		/* nothing can be placed: the empty solution is optimal */
		S->all_opt = true;
		S->blocks_done = m->nblock;
		return WASP_OK;
	}
	/* Loading costs about 0.25 us per nonzero here; when that and one
	 * LP solve cannot fit, keep the warm start.  (No glp_scale_prob: it
	 * costs seconds on large models; the capacity rows are already
	 * divided by their gcd.) */
	if (r->w.deadline > 0 &&
	    r->w.deadline - wb_now() - WILP_MARGIN_S < 5e-7 * m->nnz) {
		S->all_opt = false;
		r->w.stopped = true;
		return WASP_OK;
	}
	r->env.P = P = glp_create_prob();
	if (tu && tu->fault)
		glp_set_col_bnds(P, m->ncols + 7, GLP_FX, 0, 0);
	load_prob(m, P, 0);
	S->all_opt = true;
	double *vbuf = wa_calloc(m->ar, m->ncols + 1, sizeof *vbuf);
	if (!vbuf)
		return werr(err, WASP_ENOMEM, "out of memory");
	r->m = m;
	if ((!tu || tu->heuristic != 0) && heur_alloc(r, m))
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int b = 0; b < m->nblock; b++) {
		if (b > 0)
			for (int j = 1; j <= m->ncols; j++)
				glp_set_obj_coef(P, j, coef_of(m, b, j));
		double left = r->w.deadline > 0
				  ? r->w.deadline - wb_now() - WILP_MARGIN_S
				  : 1e9;
		if (left <= 0.001 || cancelled(r)) {
			S->all_opt = false;
			r->w.stopped = true;
			break;
		}
		int nb = m->nblock - b;
		double share = nb == 1 ? left : left * 2 / (nb + 1);
		int tm = share * 1000 > INT_MAX / 2 ? INT_MAX / 2
						    : (int)(share * 1000);
		if (tm < 1)
			tm = 1;
		glp_smcp sp;
		glp_init_smcp(&sp);
		sp.msg_lev = GLP_MSG_OFF;
		sp.presolve = GLP_OFF;
		sp.tm_lim = tm;
		double tlp = wb_now();
		int rc = glp_simplex(P, &sp);
		tlp = wb_now() - tlp;
		if (rc == GLP_ETMLIM) {
			S->all_opt = false;
			r->w.stopped = true;
			break;
		}
		if (rc != 0 || glp_get_status(P) != GLP_OPT)
			return werr(err, WASP_ESOLVER,
				    "GLPK: LP relaxation failed (simplex rc %d,"
				    " status %d)", rc, glp_get_status(P));
		glp_iocp ip;
		glp_init_iocp(&ip);
		ip.msg_lev = GLP_MSG_OFF;
		ip.presolve = GLP_OFF;
		/* Driebeek-Tomlin evaluates a tableau row per fractional
		 * column, uninterruptibly: tens of seconds at 10^5 columns */
		ip.br_tech = m->ncols <= WILP_DTH_MAX_COLS &&
				     !(tu && tu->no_dth)
				 ? GLP_BR_DTH
				 : GLP_BR_MFV;
		ip.bt_tech = GLP_BT_BLB;
		/* Cuts pay on small models; on large ones each cut round
		 * re-solves a slow LP and the rounding heuristic does better
		 * with the time (doc/formulation.md, Performance). */
		int cuts = tu && tu->cuts >= 0 ? tu->cuts
			   : m->ncols <= WILP_CUTS_MAX_COLS ? WILP_CUTS_DEFAULT
							    : 0;
		ip.gmi_cuts = cuts & WILP_CUT_GMI ? GLP_ON : GLP_OFF;
		ip.mir_cuts = cuts & WILP_CUT_MIR ? GLP_ON : GLP_OFF;
		ip.cov_cuts = cuts & WILP_CUT_COV ? GLP_ON : GLP_OFF;
		ip.clq_cuts = cuts & WILP_CUT_CLQ ? GLP_ON : GLP_OFF;
		ip.mip_gap = r->o && r->o->gap > 0 ? r->o->gap : 0;
		double om = obj_max(m, b);
		ip.tol_obj = 0.5 / (1 + om);
		if (ip.tol_obj > 1e-7)
			ip.tol_obj = 1e-7;
		double left2 = r->w.deadline > 0
				   ? r->w.deadline - wb_now() - WILP_MARGIN_S
				   : 1e9;
		share = nb == 1 ? left2 : left2 * 2 / (nb + 1);
		tm = share * 1000 > INT_MAX / 2 ? INT_MAX / 2
						: (int)(share * 1000);
		ip.tm_lim = tm < 1 ? 1 : tm;
		ip.cb_func = callback;
		ip.cb_info = r;
		/* a step of intopt costs about one LP solve, or more */
		r->w.maxstep = tlp;
		r->w.last = wb_now();
		r->w.inject = S->have_best ? S->best : NULL;
		r->nheur = 0;
		r->block = b;
		r->w.injected = r->w.inject_ok = false;
		r->w.have_bound = false;
		r->w.int_opt = false;
		r->w.int_obj = true;
		for (int j = 1; j <= m->ncols && r->w.int_obj; j++) {
			double c = coef_of(m, b, j);
			r->w.int_obj = c == floor(c);
		}
		rc = glp_intopt(P, &ip);
		int st = glp_mip_status(P);
		if (rc != 0 && rc != GLP_ETMLIM && rc != GLP_EMIPGAP &&
		    rc != GLP_ESTOP)
			return werr(err, WASP_ESOLVER,
				    "GLPK: branch-and-cut failed (rc %d)", rc);
		if (st != GLP_OPT && st != GLP_FEAS) {
			/* no incumbent: keep the previous best */
			S->all_opt = false;
			break;
		}
		for (int j = 1; j <= m->ncols; j++)
			vbuf[j] = floor(glp_mip_col_val(P, j) + 0.5);
		if (wm_check(m, vbuf) != 0) {
			/* numerically off: keep what we had */
			S->all_opt = false;
			break;
		}
		if (!S->have_best || obj_at(m, b, vbuf) >= obj_at(m, b, S->best))
			memcpy(S->best, vbuf, sizeof *vbuf * (m->ncols + 1));
		S->have_best = true;
		bool opt = (rc == 0 && st == GLP_OPT) ||
			   (rc == GLP_ESTOP && r->w.int_opt);
		double zb = (double)obj_at(m, b, S->best);
		if (b == 0)
			S->bound0 = opt ? zb : r->w.have_bound ? r->w.bound : NAN;
		S->injected_any |= r->w.inject_ok;
		if (!opt)
			S->all_opt = false;
		S->blocks_done = b + 1;
		if (b + 1 < m->nblock) {
			/* fix this block's optimum (or best found) */
			int i = glp_add_rows(P, 1);
			int *ind = wa_calloc(m->ar, m->ncols + 1, sizeof *ind);
			double *val = wa_calloc(m->ar, m->ncols + 1,
						sizeof *val);
			if (!ind || !val)
				return werr(err, WASP_ENOMEM, "out of memory");
			int len = 0;
			wm_row_begin(m);
			for (int j = 1; j <= m->ncols; j++) {
				double c = coef_of(m, b, j);
				if (c == 0)
					continue;
				ind[++len] = j;
				val[len] = c;
				wm_coef(m, j, c);
			}
			const char *nm = wm_name(m, "lex[%d]", b);
			wm_row_end(m, GLP_LO, zb, 0, nm);
			if (nm)
				glp_set_row_name(P, i, nm);
			glp_set_mat_row(P, i, len, ind, val);
			glp_set_row_bnds(P, i, GLP_LO, zb, 0);
			if (m->nomem)
				return werr(err, WASP_ENOMEM, "out of memory");
		}
		if (r->w.stopped)
			break;
	}
	return WASP_OK;
}

/* run_glpk between the hooks; setjmp lives here, with no local state
 * to lose, and a fault frees GLPK's environment. */
static int guarded_run(solve_state *S, wasp_error *err)
{
	wilp_run *r = &S->run;
	glpk_begin(r);
	if (setjmp(r->env.jb))
		return wgl_fault(&r->env, err);
	int rc = run_glpk(S, err);
	wgl_end(&r->env);
	return rc;
}

/* ----------------------------------------------------------- interface */

/* DRA columns for wilp_estimate (doc/formulation.md §3b), from the
 * claim lists without building the kinds: per slot of a class whose own
 * claims have firstAvailable alternatives, a y column per combination
 * of alternatives (matchAttribute values, unknown before the devices are
 * matched, are left out: an estimate, low for partitioned claims) and a
 * ways row; a Hall row per node and class; per shared claim not yet
 * allocated, a z column per combination, an s column per request and
 * device of its users' nodes (node-local and global; the match with its
 * classes is left out: high) and an l column with three rows per user
 * node; per allocated claim with holders an f column and a row. */
static void dv_estimate(const wp_problem *p, long *r, long *c, long *nz)
{
	const ws_dra *d = p->snap->dra;
	if (!d)
		return;
	unsigned char *seen = calloc((size_t)p->nnodes + 1, 1);
	if (!seen)
		return; /* an estimate: without the DRA part */
	for (int ci = 0; ci < p->nclasses; ci++) {
		const wp_class *cl = &p->classes[ci];
		const wdr_podc *pc = &d->pods[cl->pods[0]];
		long ways = 1;
		for (int k = 0; k < pc->n && ways <= WDV_MAX_WAYS; k++) {
			if (pc->c[k].inst >= 0 || pc->c[k].spec < 0)
				continue;
			const wdr_spec *sp = &d->specs[pc->c[k].spec];
			for (int q = 0; q < sp->nreqs; q++)
				ways *= sp->reqs[q].nalts;
		}
		if (!pc->n)
			continue;
		if (ways > WDV_MAX_WAYS)
			ways = WDV_MAX_WAYS;
		*r += cl->nelig; /* Hall rows, at least one per node */
		*nz += (long)cl->nelig * ways;
		if (ways > 1) {
			*c += (long)cl->nelig * ways;
			*r += cl->nelig;
			*nz += (long)cl->nelig * (ways + 1);
		}
	}
	for (int i = 0; i < d->ninsts; i++) {
		const wdr_spec *sp = &d->specs[d->insts[i].spec];
		if (sp->allocated)
			continue;
		long ways = 1, devs = d->nglobal, un = 0;
		for (int q = 0; q < sp->nreqs && ways <= WDV_MAX_COMB; q++)
			ways *= sp->reqs[q].nalts;
		memset(seen, 0, (size_t)p->nnodes);
		for (int ci = 0; ci < p->nclasses; ci++) {
			const wp_class *cl = &p->classes[ci];
			const wdr_podc *pc = &d->pods[cl->pods[0]];
			bool uses = false;
			for (int k = 0; k < pc->n; k++)
				uses |= pc->c[k].inst == i;
			for (int e = 0; uses && e < cl->nelig; e++) {
				int n = cl->elig[e];
				if (seen[n])
					continue;
				seen[n] = 1;
				un++;
				devs += d->node_first[n + 1] - d->node_first[n];
			}
		}
		if (!un)
			continue;
		*c += ways + (long)sp->nreqs * devs + un;
		*r += 1 + sp->nreqs + (long)sp->nreqs * devs + 3 * un;
		*nz += ways * (2 + sp->nreqs) + 3L * sp->nreqs * devs +
		       un * (4 + ways + devs);
	}
	for (int sp = 0; d->held_beg && sp < d->nspecs; sp++)
		if (d->specs[sp].allocated && d->specs[sp].nholders) {
			*c += 1;
			*r += d->specs[sp].nholders;
			*nz += 2L * d->specs[sp].nholders + d->specs[sp].nalloc;
		}
	free(seen);
}

void wilp_estimate(const wp_problem *p, int *rows, int *cols, long *nonzeros)
{
	long r = 0, c = p->nx, nz = 0;
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (g->gang)
			c++, r++;
		if (g->key >= 0 && p->topo) {
			int nd = p->topo->keys[g->key].ndom;
			c += nd;
			r += 1 + nd;
			nz += 2L * nd;
		}
	}
	/* trees (issue 5): a[h], t[h,d] and a tdom row per group and domain */
	for (int h = 0; h < p->ncomps; h++) {
		const wp_comp *hc = &p->comps[h];
		c++, r += 2;
		if (hc->key >= 0 && p->topo) {
			int nd = p->topo->keys[hc->key].ndom;
			c += nd;
			r += 1 + (long)nd * hc->nkids;
			nz += 2L * nd * hc->nkids;
		}
	}
	r += p->nclasses;
	c += p->nnodes;
	r += (long)p->nnodes * (p->nres > 3 ? 3 : p->nres);
	nz += (long)p->nx * (3 + (p->nres > 3 ? 3 : p->nres)) + p->nnodes;
	/* preemption: at most one keep column per running unit some
	 * pending group outranks, in a few capacity rows each */
	int32_t top = p->ngroups ? p->groups[0].priority : INT32_MIN;
	for (int u = 0; u < p->nunits; u++)
		if (p->units[u].priority < top) {
			c++;
			nz += 3;
		}
	/* moves (issue 6): a y column per move class and node, in a move
	 * row and a few capacity rows */
	for (int i = 0; i < p->nmcls; i++) {
		c += p->mcls[i].nelig;
		r++;
		nz += 4L * p->mcls[i].nelig;
	}
	dv_estimate(p, &r, &c, &nz);
	*rows = r > INT_MAX ? INT_MAX : (int)r;
	*cols = c > INT_MAX ? INT_MAX : (int)c;
	*nonzeros = nz;
}

static const char *const WAIT_ILP =
    "the ILP found no placement that admits this gang together with "
    "higher-priority work";

/* Admission and reasons from the x counts in out. */
static void fill_admission(const wm *m, const wp_sol *warm, wp_sol *out)
{
	const wp_problem *p = m->p;
	unsigned char *at0 = calloc((size_t)p->ngroups + 1, 1);
	for (int g = 0; at0 && g < p->ngroups; g++)
		at0[g] = m->acol[g] != 0;
	wp_fill_admission(p, at0, warm, out); /* NULL: none at minCount */
	free(at0);
}

static void stats_model(const wm *m, wilp_stats *st)
{
	st->rows = m->nrows;
	st->cols = m->ncols;
	st->ints = m->ncols;
	st->nonzeros = m->nnz;
}

void wilp_tune_init(wilp_tune *t)
{
	memset(t, 0, sizeof *t);
	t->cuts = -1;
	t->max_coef = 0;
	t->symmetry = -1;
	t->heuristic = -1;
	t->no_dth = false;
}

int wilp_solve(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	       const wp_sol *warm, wp_sol *out, wilp_stats *st,
	       wasp_error *err)
{
	return wilp_solve_tuned(p, o, dl, warm, out, st, NULL, err);
}

/* The single objective at x counts per slot, computed from the problem
 * (so it also works for a warm start that the model cannot express). */
static double obj_of_x(const wm *m, const int *x,
		       const unsigned char *evict)
{
	const wp_problem *p = m->p;
	int64_t vg = wilp_value_gcd(p);
	long double z = 0;
	int nt = m->ntier - 1;
	unsigned char *busy = calloc((size_t)p->nnodes + 1, 1);
	if (!busy)
		return NAN;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		int t = 0;
		while (t < m->nprio_t &&
		       m->tprio[t] != p->groups[cl->group].priority)
			t++;
		for (int k = 0; k < cl->nelig; k++) {
			if (!x[cl->off + k])
				continue;
			busy[cl->elig[k]] = 1;
			z += (long double)m->wfull[t] *
			     wilp_class_value(p, c, vg) * x[cl->off + k];
		}
	}
	for (int n = 0; n < p->nnodes; n++)
		if (m->ucol[n] && !busy[n])
			z += m->wfull[nt];
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_P && pk_free(m, j, busy))
			z += m->wfull[nt];
	for (int j = 0; m->btier >= 0 && j < p->snap->npdbs; j++) {
		if (!m->wcol[j])
			continue;
		long ev = 0;
		for (int u = 0; evict && u < p->nunits; u++) {
			const wp_unit *un = &p->units[u];
			for (int i = 0; evict[u] && i < un->npdb; i++)
				if (un->pdb[i] == j)
					ev += un->pdbn[i];
		}
		long viol = ev - p->pdb_allowed[j];
		z += (long double)m->wfull[m->btier] *
		     (m->wV[j] - (viol > 0 ? viol : 0));
	}
	for (int qc = 0; m->qtier >= 0 && qc < m->nqc; qc++) {
		int kept = 0;
		for (int i = m->qc_beg[qc]; i < m->qc_beg[qc + 1]; i++)
			kept += !(evict && evict[m->qc_units[i]]);
		z += (long double)m->wfull[m->qtier] * q_cost(m, qc) * kept;
	}
	/* compactness tiers: preferred-level domains left unused */
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_W && w_unused(m, x, j))
			z += m->wfull[m->ctier[j]];
	free(busy);
	return (double)z;
}

/* Evictions from the q columns of v (the first units of each class go),
 * each credited to the highest-priority admitted group that may preempt,
 * outranks it and places pods on one of its nodes; an eviction nobody
 * needs is dropped. */
static void fill_evictions(const wm *m, const double *v, wp_sol *out)
{
	const wp_problem *p = m->p;
	for (int u = 0; u < p->nunits; u++) {
		out->evict[u] = 0;
		out->evict_by[u] = -1;
	}
	if (!m->nqc)
		return;
	for (int qc = 0; qc < m->nqc; qc++) {
		int ev = q_ub(m, qc) - (int)v[m->qcol[qc]];
		for (int i = 0; i < ev; i++)
			out->evict[m->qc_units[m->qc_beg[qc] + i]] = 1;
	}
	if (wpe_credit(p, out)) {
		/* nothing evicted: the caller's check decides */
		for (int u = 0; u < p->nunits; u++)
			out->evict[u] = 0;
	}
}

int wilp_solve_tuned(const wp_problem *p, const wasp_options *o,
		     wb_deadline dl, const wp_sol *warm, wp_sol *out,
		     wilp_stats *st, wilp_tune *tune, wasp_error *err)
{
	double t0 = wb_now();
	double deadline = wdl_is_none(dl) ? 0 : dl.at;
	wilp_stats dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	st->status = "none";
	st->objective = st->bound = st->gap = st->top_gap = NAN;
	wa_arena *ar = wa_new();
	solve_state *S = ar ? wa_alloc(ar, sizeof *S) : NULL;
	if (!S) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	double mc = tune && tune->max_coef > 0 ? tune->max_coef
					       : WILP_MAX_COEF;
	bool sym = !tune || tune->symmetry != 0;
	int rc = wm_build(&S->m, p, ar, mc, sym, tune && tune->names,
			  deadline > 0 ? deadline - WILP_MARGIN_S : 0);
	wm *m = &S->m;
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the ILP");
	}
	if (m->late) {
		/* no time left even to build the model: the warm start */
		if (warm)
			wp_sol_copy(p, out, warm);
		else
			memset(out->x, 0, sizeof *out->x * p->nx);
		if (!warm) {
			memset(out->admit, 0, p->ngroups);
			for (int g = 0; g < p->ngroups; g++)
				out->reason[g] = WAIT_ILP;
		}
		st->status = warm ? "greedy" : "none";
		st->seconds = wb_now() - t0;
		wa_destroy(ar);
		return WASP_OK;
	}
	stats_model(m, st);
	if (tune) {
		tune->out_blocks = m->nblock;
		tune->out_maxcoef = m->maxcoef;
		tune->out_symrows = m->nsym;
		tune->out_warm_injected = false;
	}
	S->best = wa_calloc(ar, m->ncols + 1, sizeof *S->best);
	int *xw = wa_calloc(ar, p->nx + 1, sizeof *xw);
	if (!S->best || !xw) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	/* The first incumbent: warm when it is feasible for the problem and,
	 * after the symmetry permutation, for every row; else all zero
	 * (always feasible: u = 1 where it exists). */
	const char *why = NULL;
	bool warm_ok = warm && wp_sol_feasible(p, warm, &why) == 0;
	for (int s = 0; warm_ok && s < p->nx; s++) {
		xw[s] = warm->x[s];
		if (xw[s] && !m->xcol[s])
			warm_ok = false; /* outside the model: a bug */
	}
	if (warm_ok && sym_permute(m, xw)) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	if (warm_ok) {
		m->dv_vdra = warm->dra; /* its devices give y (DRA) */
		vec_from_x(m, xw, S->best);
		m->dv_vdra = NULL;
		/* its evictions, when every one is in an eviction class */
		for (int u = 0; warm_ok && warm->evict && u < p->nunits; u++) {
			if (!warm->evict[u])
				continue;
			if (m->unit_qc[u] < 0)
				warm_ok = false;
			else
				S->best[m->qcol[m->unit_qc[u]]] -= 1;
		}
		w_from_q(m, S->best);
		f_from_q(m, S->best);
		warm_ok = warm_ok && y_from_sol(m, warm, S->best);
		warm_ok = warm_ok && wm_check(m, S->best) == 0;
	}
	if (!warm_ok) {
		memset(xw, 0, sizeof *xw * (p->nx + 1));
		vec_from_x(m, xw, S->best);
	}
	S->have_best = wm_check(m, S->best) == 0;
	if (tune)
		tune->out_warm_ok = warm_ok;

	wilp_run *r = &S->run;
	r->o = o;
	r->w.cancel = o ? o->cancel : NULL;
	r->tune = tune;
	r->w.deadline = deadline;
	rc = guarded_run(S, err);
	if (rc) {
		wa_destroy(ar);
		return rc;
	}
	if (tune) {
		tune->out_warm_injected = S->injected_any;
		tune->out_heur = S->run.heur_found;
	}

	/* The answer: the MIP's best unless it is no better than warm. */
	for (int s = 0; s < p->nx; s++)
		out->x[s] = m->xcol[s] ? (int)S->best[m->xcol[s]] : 0;
	fill_admission(m, warm, out);
	fill_evictions(m, S->best, out);
	fill_moves(m, S->best, out);
	bool done = S->blocks_done == m->nblock && S->all_opt;
	bool mip_ok = S->have_best && wp_sol_feasible(p, out, &why) == 0;
	if (!mip_ok) {
		/* cannot happen with every row checked; stay safe */
		memset(out->x, 0, sizeof *out->x * p->nx);
		fill_admission(m, warm, out);
		wp_sol_no_disruption(p, out);
	}
	const char *mst = S->blocks_done == 0 ? "none"
			  : done		 ? "optimal"
						 : "feasible";
	/* DRA: the devices of the answer, exact when the model is (NULL:
	 * solve.c allocates); they count in the firstAvailable tier */
	out->dra = mip_ok && S->blocks_done ? dev_answer(m, S->best) : NULL;
	if (warm) {
		wp_value vm, vw;
		wp_evaluate(p, out, &vm);
		wp_evaluate(p, warm, &vw);
		if (mip_ok && S->blocks_done && wp_value_cmp(&vm, &vw) > 0) {
			st->improved = true;
			st->status = mst;
		} else {
			wp_sol_copy(p, out, warm);
			st->status = "greedy";
		}
	} else {
		st->status = mip_ok ? mst : "none";
	}
	st->objective = obj_of_x(m, out->x, out->evict) + mv_obj(m, out);
	if (m->atier1 && out->dra) /* firstAvailable tier (DRA) */
		st->objective -= m->wfull[m->atier1 - 1] *
				 (double)wdr_alt_rank(out->dra);
	/* bound and gap in units of the single objective */
	if (done) {
		st->bound = st->objective;
		st->gap = 0;
	} else if (m->nblock == 1 && S->blocks_done == 1) {
		st->bound = S->bound0 > st->objective ? S->bound0
						      : st->objective;
		st->gap = (st->bound - st->objective) /
			  (fabs(st->objective) > 1e-9 ? fabs(st->objective)
						      : 1e-9);
	} else if (m->nblock > 1 && S->blocks_done >= 1 && S->have_best &&
		   !isnan(S->bound0)) {
		/* Tier blocks: no bound exists in the units of the single
		 * objective, but the first block holds the highest tiers, and
		 * its relative gap is what a person wants to know.  The bound
		 * stays unknown (NAN); doc/formulation.md says so. */
		double z0 = (double)obj_at(m, 0, S->best);
		st->top_gap = S->bound0 > z0 ? (S->bound0 - z0) /
				  (fabs(z0) > 1e-9 ? fabs(z0) : 1e-9)
					     : 0;
		st->gap = st->top_gap;
	}
	st->seconds = wb_now() - t0;
	wa_destroy(ar);
	return WASP_OK;
}

int wilp_round(const wp_problem *p, const wilp_guide *g, int passes,
	       double deadline, wp_sol *out)
{
	wa_arena *ar = wa_new();
	solve_state *S = ar ? wa_alloc(ar, sizeof *S) : NULL;
	if (!S) {
		wa_destroy(ar);
		return -1;
	}
	wm *m = &S->m;
	wilp_run *r = &S->run;
	if (wm_build(m, p, ar, WILP_MAX_COEF, false, false,
		     deadline > 0 ? deadline - WILP_MARGIN_S : 0) ||
	    heur_alloc(r, m)) {
		wa_destroy(ar);
		return -1;
	}
	if (m->late) {
		wa_destroy(ar);
		return 0;
	}
	for (int j = 1; j <= m->ncols; j++) {
		int k = m->ckind[j], ref = m->cref[j];
		r->lp[j] = k == WM_X   ? g->x(g->ctx, ref)
			   : k == WM_A ? g->adm(g->ctx, ref)
			   : k == WM_T ? g->gdom(g->ctx, ref, m->cdom[j])
			   : k == WM_H ? g->comp(g->ctx, ref)
			   : k == WM_S ? g->cdom(g->ctx, ref, m->cdom[j])
				       : 0;
	}
	uint64_t rs = 0x5eed;
	double bestz = -INFINITY;
	int *bx = wa_calloc(ar, p->nx + 1, sizeof *bx);
	if (!bx) {
		wa_destroy(ar);
		return -1;
	}
	for (int k = 0; k < passes; k++) {
		if (deadline > 0 && wb_now() > deadline)
			break;
		heur_pass(r, k ? 0.5 : 0, &rs);
		vec_from_x(m, r->hx, r->hv);
		if (wm_check(m, r->hv) != 0)
			continue;
		double z = (double)obj_at(m, -1, r->hv);
		if (z > bestz) {
			bestz = z;
			memcpy(bx, r->hx, sizeof *bx * p->nx);
		}
	}
	int found = bestz > -INFINITY;
	if (found) {
		memcpy(out->x, bx, sizeof *bx * p->nx);
		fill_admission(m, NULL, out);
		wp_sol_no_disruption(p, out);
		out->dra = NULL;
	}
	wa_destroy(ar);
	return found;
}

/* -------------------------------------------------------------- export */

/* A GMPL symbol: the name in single quotes, or a stand-in when too long
 * for MathProg (100 characters). */
static void dat_sym(FILE *f, const char *s, char kind, int idx)
{
	if (strlen(s) > WILP_SYM_MAX - 2) {
		fprintf(f, "'~%c%d'", kind, idx);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void dat_group(FILE *f, const wp_problem *p, int g)
{
	char gb[600];
	dat_sym(f, group_name(p, g, gb, sizeof gb), 'g', g);
}

/* Does an exclusive, slice or preferred annotation name key k (the
 * preferred level's coarser keys count too)? */
static bool key_in_tas(const wp_problem *p, int k)
{
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta)
			continue;
		if (ta->excl == k)
			return true;
		for (int l = 0; l < ta->nslices; l++)
			if (ta->slice_key[l] == k)
				return true;
		for (int q = ta->pref; q >= 0 && q < 64;
		     q = p->topo->keys[q].parent)
			if (q == k)
				return true;
	}
	return false;
}

/* Preferred levels (issue 5): the (group, key, domain) triples with a w
 * column (the group has a column in the domain) and the keys' order,
 * which fixes the compactness tiers' order (coarse first). */
static void dat_pref(FILE *f, const wm *m)
{
	const wp_problem *p = m->p;
	fprintf(f, "\nset PW :=");
	unsigned char seen[64] = { 0 };
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_W)
			continue;
		int g = m->cref[j] / 64, k = m->cref[j] % 64;
		const wtp_key *key = &p->topo->keys[k];
		seen[k] = 1;
		fprintf(f, "\n (");
		dat_group(f, p, g);
		fputc(',', f);
		dat_sym(f, key->label, 'k', k);
		fputc(',', f);
		dat_sym(f, key->dom_name[m->cdom[j]], 'd', m->cdom[j]);
		fputc(')', f);
	}
	fprintf(f, ";\nparam kord :=");
	for (int k = 0; k < 64 && p->topo && k < p->topo->nkeys; k++)
		if (seen[k]) {
			fprintf(f, "\n ");
			dat_sym(f, p->topo->keys[k].label, 'k', k);
			fprintf(f, " %d", k);
		}
	fprintf(f, ";\n");
}

/* Exclusive and slice annotations (issue 5). */
static void dat_tas(FILE *f, const wp_problem *p)
{
	fprintf(f, "\nparam tas :=");
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].tas) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fprintf(f, " 1");
		}
	fprintf(f, ";\nset GX :=");
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].tas && p->groups[g].tas->excl >= 0) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
		}
	fprintf(f, ";\nparam xkey :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta || ta->excl < 0)
			continue;
		fprintf(f, "\n ");
		dat_group(f, p, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[ta->excl].label, 'k', ta->excl);
	}
	fprintf(f, ";\nparam xfixed :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta || ta->excl < 0 || ta->excl_fixed < 0)
			continue;
		fprintf(f, "\n ");
		dat_group(f, p, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[ta->excl].dom_name[ta->excl_fixed],
			'd', ta->excl_fixed);
	}
	fprintf(f, ";\nset XBAN :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta || ta->excl < 0)
			continue;
		const wtp_key *k = &p->topo->keys[ta->excl];
		for (int d = 0; d < k->ndom; d++) {
			int own = p->excl_owner[ta->excl][d];
			if (own == -1 || own == p->groups[g].sg)
				continue;
			fprintf(f, "\n (");
			dat_group(f, p, g);
			fputc(',', f);
			dat_sym(f, k->dom_name[d], 'd', d);
			fputc(')', f);
		}
	}
	fprintf(f, ";\nparam : GL : skey ssize :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		for (int l = 0; ta && l < ta->nslices; l++) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fprintf(f, " %d ", l + 1);
			dat_sym(f, p->topo->keys[ta->slice_key[l]].label, 'k',
				ta->slice_key[l]);
			fprintf(f, " %d", ta->slice_size[l]);
		}
	}
	fprintf(f, ";\n");
}

static void dat_comp(FILE *f, const wp_problem *p, int h)
{
	char hb[600];
	/* a prefix keeps composite names apart from group names */
	char nb[620];
	snprintf(nb, sizeof nb, "H:%s", comp_name(p, h, hb, sizeof hb));
	dat_sym(f, nb, 'h', h);
}

/* Group g, or component g when `comp`: its symbol, key and fixed domain. */
static void dat_ent(FILE *f, const wp_problem *p, bool comp, int g)
{
	if (comp)
		dat_comp(f, p, g);
	else
		dat_group(f, p, g);
}

static void dat_ent_key(const wp_problem *p, bool comp, int g, int *key,
			int *dom)
{
	*key = comp ? p->comps[g].key : p->groups[g].key;
	*dom = comp ? p->comps[g].fixed_dom : p->groups[g].fixed_dom;
}

/* The topology of the groups (or the components): the set of those with
 * a key, the param of their keys and the param of their fixed domains;
 * the last ";" is the caller's. */
static void dat_keyed(FILE *f, const wp_problem *p, bool comp,
		      const char *set, const char *kpar, const char *fpar)
{
	int n = comp ? p->ncomps : p->ngroups, key, dom;
	fprintf(f, "set %s :=", set);
	for (int g = 0; g < n; g++) {
		dat_ent_key(p, comp, g, &key, &dom);
		if (key < 0)
			continue;
		fprintf(f, "\n ");
		dat_ent(f, p, comp, g);
	}
	fprintf(f, ";\nparam %s :=", kpar);
	for (int g = 0; g < n; g++) {
		dat_ent_key(p, comp, g, &key, &dom);
		if (key < 0)
			continue;
		fprintf(f, "\n ");
		dat_ent(f, p, comp, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[key].label, 'k', key);
	}
	fprintf(f, ";\nparam %s :=", fpar);
	for (int g = 0; g < n; g++) {
		dat_ent_key(p, comp, g, &key, &dom);
		if (key < 0 || dom < 0)
			continue;
		fprintf(f, "\n ");
		dat_ent(f, p, comp, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[key].dom_name[dom], 'd', dom);
	}
}

static void dat_under(FILE *f, const wp_problem *p, int h, int top)
{
	const wp_comp *c = &p->comps[h];
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k < 0) {
			dat_under(f, p, -1 - k, top);
			continue;
		}
		fprintf(f, "\n (");
		dat_group(f, p, k);
		fputc(',', f);
		dat_comp(f, p, top);
		fputc(')', f);
	}
}

/* CompositePodGroups (issue 5): H, parents, minimum, running children,
 * keys and the group-below-composite relation. */
static void dat_trees(FILE *f, const wp_problem *p)
{
	fprintf(f, "\nset H :=");
	for (int h = 0; h < p->ncomps; h++) {
		fprintf(f, "\n ");
		dat_comp(f, p, h);
	}
	fprintf(f, ";\nparam : hmin hrun husable :=");
	for (int h = 0; h < p->ncomps; h++) {
		const wp_comp *c = &p->comps[h];
		fprintf(f, "\n ");
		dat_comp(f, p, h);
		fprintf(f, " %d %d %d", c->min_groups > 0 ? c->min_groups : 1,
			c->nrunning, !c->invalid && c->fixed_dom != -2);
	}
	fprintf(f, ";\nparam hpar :=");
	for (int h = 0; h < p->ncomps; h++)
		if (p->comps[h].parent >= 0) {
			fprintf(f, "\n ");
			dat_comp(f, p, h);
			fputc(' ', f);
			dat_comp(f, p, p->comps[h].parent);
		}
	fprintf(f, ";\nparam gpar :=");
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].pcomp) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fputc(' ', f);
			dat_comp(f, p, p->groups[g].pcomp - 1);
		}
	fprintf(f, ";\n");
	dat_keyed(f, p, true, "HK", "hkey", "hfixed");
	fprintf(f, ";\nset UNDER :=");
	for (int h = 0; h < p->ncomps; h++)
		dat_under(f, p, h, h);
	fprintf(f, ";\n");
}

/* Moves (issue 6): the move classes, their nodes, and --max-moves. */
static void dat_moves(const wm *m, FILE *f, const int64_t *unit)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	fprintf(f, "\nset MC :=");
	for (int i = 0; i < p->nmcls; i++)
		fprintf(f, "%s'm%d'", i % 10 ? " " : "\n ", i);
	fprintf(f, ";\nset MY :=");
	for (int i = 0; i < p->nmcls; i++)
		for (int k = 0; k < p->mcls[i].nelig; k++) {
			int n = p->mcls[i].elig[k];
			fprintf(f, "\n ('m%d',", i);
			dat_sym(f, s->nodes[n].name, 'n', n);
			fputc(')', f);
		}
	fprintf(f, ";\nparam : mhome mcnt mprio :=");
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		fprintf(f, "\n 'm%d' ", i);
		dat_sym(f, s->nodes[mc->home].name, 'n', mc->home);
		fprintf(f, " %d %ld", mc->count, (long)mc->priority);
	}
	fprintf(f, ";\nparam mq :=");
	for (int i = 0; i < p->nmcls; i++)
		if (m->mc_qc[i] >= 0)
			fprintf(f, "\n 'm%d' 'e%d'", i, m->mc_qc[i]);
	fprintf(f, ";\nparam muse :=");
	for (int i = 0; i < p->nmcls; i++)
		for (int r = 0; r < p->nres; r++) {
			if (p->mcls[i].req[r] <= 0)
				continue;
			fprintf(f, "\n 'm%d' ", i);
			dat_sym(f, s->res[r], 'r', r);
			fprintf(f, " %lld",
				(long long)(p->mcls[i].req[r] / unit[r]));
		}
	fprintf(f, ";\nparam maxmoves := %d;\n", p->nmcls ? p->max_moves
							 : 0);
}

/* Was (n, dev) written for an earlier L column (another claim)? */
static bool far_seen(const wm *m, int j, int n, int dev)
{
	for (int k = 1; k < j; k++) {
		if (m->ckind[k] != WM_L || m->cdom[k] != n)
			continue;
		for (int e = m->dv_shead[dev]; e >= 0; e = m->dv_s[e].next)
			if (m->dv_s[e].inst == m->cref[k])
				return true;
	}
	return false;
}

/* Shared claims' ways, devices and nodes (models/wasp.mod, "shared
 * claims"): instance 'iI', request 'rQ', device 'dD', way 'wK'. */
static void dat_insts(FILE *f, const wm *m)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	int ni = d && m->dv_irec ? d->ninsts : 0;
	fprintf(f, "set ZW :=");
	for (int i = 0; i < ni; i++)
		for (int w = 0; w < m->dv_irec[i].nw; w++)
			fprintf(f, " ('i%d', 'w%d')", i, w);
	fprintf(f, ";\nparam zpen :=");
	for (int i = 0; i < ni; i++)
		for (int w = 0; w < m->dv_irec[i].nw; w++) {
			int pen = (int)dv_col_pen(m, m->dv_irec[i].zfirst + w);
			if (pen)
				fprintf(f, " 'i%d' 'w%d' %d", i, w, pen);
		}
	fprintf(f, ";\nparam iq :=");
	for (int i = 0; i < ni; i++)
		if (m->dv_irec[i].nw)
			fprintf(f, " 'i%d' %d", i, m->dv_irec[i].q);
	fprintf(f, ";\nparam zc :=");
	for (int i = 0; i < ni; i++) {
		const dvinst *I = &m->dv_irec[i];
		const wdr_spec *sp = I->nw ? &d->specs[I->spec] : NULL;
		for (int w = 0; w < I->nw; w++)
			for (int r = 0; r < sp->nreqs; r++)
				fprintf(f, "\n 'i%d' 'w%d' 'r%d' %d", i, w, r,
					sp->reqs[r].alts[I->alt[w * sp->nreqs
								 + r]].count);
	}
	fprintf(f, ";\nset SW :=");
	for (int k = 0; k < m->dv_ns; k++)
		fprintf(f, "\n ('i%d', 'r%d', 'd%d')", m->dv_s[k].inst,
			m->dv_s[k].req, m->dv_s[k].dev);
	fprintf(f, ";\nset SZ :=");
	for (int k = 0; k < m->dv_ns; k++) {
		const dvinst *I = &m->dv_irec[m->dv_s[k].inst];
		for (int w = 0; w < I->nw; w++)
			if (dvi_in(m, I, w, m->dv_s[k].req, m->dv_s[k].dev))
				fprintf(f, "\n ('i%d', 'r%d', 'd%d', 'w%d')",
					m->dv_s[k].inst, m->dv_s[k].req,
					m->dv_s[k].dev, w);
	}
	fprintf(f, ";\nset LI :=");
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_L) {
			fprintf(f, "\n ('i%d', ", m->cref[j]);
			dat_sym(f, p->snap->nodes[m->cdom[j]].name, 'n',
				m->cdom[j]);
			fprintf(f, ")");
		}
	fprintf(f, ";\nset UC :=");
	for (int c = 0; ni && c < p->nclasses; c++)
		for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++) {
			int i = m->cpc[c]->c[k].inst;
			if (i >= 0 && m->dv_irec[i].nw)
				fprintf(f, " ('c%d', 'i%d')", c, i);
		}
	/* devices that do not reach a node of LI */
	fprintf(f, ";\nset FAR :=");
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_L)
			continue;
		int n = m->cdom[j];
		for (int dev = 0; dev < d->ndevs; dev++) {
			bool mine = false;
			for (int k = m->dv_shead[dev]; k >= 0 && !mine;
			     k = m->dv_s[k].next)
				mine = m->dv_s[k].inst == m->cref[j];
			if (!mine || far_seen(m, j, n, dev) ||
			    wdr_reaches(p->snap, &d->devs[dev], n))
				continue;
			fprintf(f, "\n (");
			dat_sym(f, p->snap->nodes[n].name, 'n', n);
			fprintf(f, ", 'd%d')", dev);
		}
	}
	fprintf(f, ";\n");
}

/* A way of slot sl as a YW member: 'cC' node 'wK'. */
static void dat_way(FILE *f, const wm *m, int sl, int w)
{
	const wp_problem *p = m->p;
	int c = wp_slot_class(p, sl);
	int n = p->classes[c].elig[sl - p->classes[c].off];
	fprintf(f, " 'c%d' ", c);
	dat_sym(f, p->snap->nodes[n].name, 'n', n);
	fprintf(f, " 'w%d'", w - m->dv_wbeg[sl]);
}

/* "set NAME[key, domain] := its nodes;" */
static void dat_dom_nodes(FILE *f, const ws_snapshot *s, const char *name,
			  const wtp_key *key, int k, int d)
{
	fprintf(f, "set %s[", name);
	dat_sym(f, key->label, 'k', k);
	fputc(',', f);
	dat_sym(f, key->dom_name[d], 'd', d);
	fprintf(f, "] :=");
	for (int i = 0; i < key->dom_nnodes[d]; i++) {
		int n = key->dom_nodes[d][i];
		fputc(' ', f);
		dat_sym(f, s->nodes[n].name, 'n', n);
	}
	fprintf(f, ";\n");
}

static int write_dat(const wm *m, const char *path, wasp_error *err)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	FILE *f = fopen(path, "w");
	if (!f)
		return werr(err, WASP_EIO, "cannot write %s", path);
	int64_t vg = wilp_value_gcd(p);
	fprintf(f, "# GMPL data for models/wasp.mod, written by wasp.\n");
	fprintf(f, "# %d classes, %d nodes, %d groups; tier-1 unit: %s",
		p->nclasses, p->nnodes, p->ngroups,
		p->value_res < 0 ? "pods" : s->res[p->value_res]);
	if (p->value_res >= 0)
		fprintf(f, " (one unit = %lld milli)", (long long)vg);
	fprintf(f, "\n");
	if (m->nblock == 1)
		fprintf(f, "# The single weighted objective is exact here "
			"(largest coefficient %.0f <= 2^30):\n# wasp solves "
			"this very objective.\n", m->maxcoef);
	else
		fprintf(f, "# The single weighted objective is NOT exact in "
			"floating point here (largest\n# coefficient %.4g > "
			"2^30): wasp solves %d blocks of tiers one after the "
			"other.\n", m->maxcoef, m->nblock);
	/* Requests and free capacity per resource in units of the gcd of
	 * the requests (free rounded down: exact for integer counts), so
	 * that no coefficient needs more digits than necessary; glpsol's
	 * tolerances misjudge raw milli-byte coefficients. */
	int64_t *unit = calloc((size_t)p->nres + 1, sizeof *unit);
	if (!unit) {
		fclose(f);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	for (int r = 0; r < p->nres; r++) {
		for (int c = 0; c < p->nclasses; c++)
			if (p->classes[c].req[r] > 0)
				unit[r] = wp_gcd(unit[r], p->classes[c].req[r]);
		/* and what running units hold (preemption) */
		for (int qc = 0; qc < m->nqc; qc++) {
			const wp_unit *un =
			    &p->units[m->qc_units[m->qc_beg[qc]]];
			for (int i = 0; i < un->npods; i++)
				if (s->pods[un->pods[i]].req[r] > 0)
					unit[r] = wp_gcd(unit[r],
					    s->pods[un->pods[i]].req[r]);
		}
		for (int i = 0; i < p->nmcls; i++) /* moves (issue 6) */
			if (p->mcls[i].req[r] > 0)
				unit[r] = wp_gcd(unit[r], p->mcls[i].req[r]);
		if (!unit[r])
			unit[r] = 1;
		fprintf(f, "# %s: one unit = %lld milli\n", s->res[r],
			(long long)unit[r]);
	}
	fprintf(f, "data;\n\nset R :=");
	for (int r = 0; r < p->nres; r++) {
		fputc(' ', f);
		dat_sym(f, s->res[r], 'r', r);
	}
	fprintf(f, ";\nset N :=");
	for (int n = 0; n < p->nnodes; n++) {
		fprintf(f, n % 8 ? " " : "\n ");
		dat_sym(f, s->nodes[n].name, 'n', n);
	}
	fprintf(f, ";\nset G :=");
	for (int g = 0; g < p->ngroups; g++) {
		fprintf(f, "\n ");
		dat_group(f, p, g);
	}
	fprintf(f, ";\nset C :=");
	for (int c = 0; c < p->nclasses; c++)
		fprintf(f, "%s'c%d'", c % 10 ? " " : "\n ", c);
	fprintf(f, ";\nset E :=");
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++) {
			fprintf(f, "\n ('c%d',", c);
			dat_sym(f, s->nodes[p->classes[c].elig[k]].name, 'n',
				p->classes[c].elig[k]);
			fputc(')', f);
		}
	fprintf(f, ";\n\nparam grp :=");
	for (int c = 0; c < p->nclasses; c++) {
		fprintf(f, "\n 'c%d' ", c);
		dat_group(f, p, p->classes[c].group);
	}
	fprintf(f, ";\nparam cnt :=");
	for (int c = 0; c < p->nclasses; c++)
		fprintf(f, "\n 'c%d' %d", c, p->classes[c].count);
	fprintf(f, ";\nparam val :=");
	for (int c = 0; c < p->nclasses; c++)
		fprintf(f, "\n 'c%d' %lld", c,
			(long long)wilp_class_value(p, c, vg));
	fprintf(f, ";\nparam req :=");
	for (int c = 0; c < p->nclasses; c++)
		for (int r = 0; r < p->nres; r++) {
			if (!p->classes[c].req[r])
				continue;
			fprintf(f, "\n 'c%d' ", c);
			dat_sym(f, s->res[r], 'r', r);
			fprintf(f, " %lld",
				(long long)(p->classes[c].req[r] / unit[r]));
		}
	fprintf(f, ";\nparam free :=");
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < p->nres; r++) {
			int64_t v = p->free[(size_t)n * p->nres + r];
			/* floor division, also for negative free */
			v = v >= 0 ? v / unit[r]
				   : -((-v + unit[r] - 1) / unit[r]);
			if (!v)
				continue;
			fprintf(f, "\n ");
			dat_sym(f, s->nodes[n].name, 'n', n);
			fputc(' ', f);
			dat_sym(f, s->res[r], 'r', r);
			fprintf(f, " %lld", (long long)v);
		}
	fprintf(f, ";\nparam empty :=");
	for (int n = 0; n < p->nnodes; n++) {
		fprintf(f, "\n ");
		dat_sym(f, s->nodes[n].name, 'n', n);
		fprintf(f, " %d", wp_node_empty(p, n));
	}
	fprintf(f, ";\nparam : gang min_need size prio usable :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *gr = &p->groups[g];
		fprintf(f, "\n ");
		dat_group(f, p, g);
		fprintf(f, " %d %d %d %ld %d", gr->gang, gr->min_need,
			gr->size, (long)gr->priority,
			!gr->invalid && gr->fixed_dom != -2);
	}
	fprintf(f, ";\n");
	/* topology: keys used by groups */
	int nk = p->topo ? p->topo->nkeys : 0;
	fprintf(f, "\nset K :=");
	for (int k = 0; k < nk; k++) {
		bool used = false;
		for (int g = 0; g < p->ngroups; g++)
			used |= p->groups[g].key == k;
		for (int h = 0; h < p->ncomps; h++)
			used |= p->comps[h].key == k;
		used |= key_in_tas(p, k);
		if (!used)
			continue;
		fputc(' ', f);
		dat_sym(f, p->topo->keys[k].label, 'k', k);
	}
	fprintf(f, ";\n");
	for (int k = 0; k < nk; k++) {
		const wtp_key *key = &p->topo->keys[k];
		bool used = false;
		for (int g = 0; g < p->ngroups; g++)
			used |= p->groups[g].key == k;
		for (int h = 0; h < p->ncomps; h++)
			used |= p->comps[h].key == k;
		used |= key_in_tas(p, k);
		if (!used)
			continue;
		fprintf(f, "set D[");
		dat_sym(f, key->label, 'k', k);
		fprintf(f, "] :=");
		for (int d = 0; d < key->ndom; d++) {
			fputc(' ', f);
			dat_sym(f, key->dom_name[d], 'd', d);
		}
		fprintf(f, ";\n");
		for (int d = 0; d < key->ndom; d++)
			dat_dom_nodes(f, s, "DN", key, k, d);
	}
	dat_keyed(f, p, false, "GK", "gkey", "fixed");
	fprintf(f, ";\n");
	/* packing: the domains of two or more nodes at every key */
	fprintf(f, "\nset FD :=");
	for (int k = 0; k < nk; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++) {
			if (key->dom_nnodes[d] < 2)
				continue;
			fprintf(f, "\n (");
			dat_sym(f, key->label, 'k', k);
			fputc(',', f);
			dat_sym(f, key->dom_name[d], 'd', d);
			fputc(')', f);
		}
	}
	fprintf(f, ";\n");
	for (int k = 0; k < nk; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++)
			if (key->dom_nnodes[d] >= 2)
				dat_dom_nodes(f, s, "FDN", key, k, d);
	}
	/* preemption: eviction classes and who may preempt */
	fprintf(f, "\nparam mayp :=");
	for (int g = 0; g < p->ngroups; g++)
		if (!wpe_may_preempt(p, g)) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fprintf(f, " 0");
		}
	fprintf(f, ";\nset Q :=");
	for (int qc = 0; qc < m->nqc; qc++)
		fprintf(f, "%s'e%d'", qc % 10 ? " " : "\n ", qc);
	fprintf(f, ";\nparam : qk qprio qcost :=");
	for (int qc = 0; qc < m->nqc; qc++)
		fprintf(f, "\n 'e%d' %d %ld %.0f", qc, q_ub(m, qc),
			(long)q_prio(m, qc), q_cost(m, qc));
	fprintf(f, ";\nparam quse :=");
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npods; i++) {
			int n = s->pods[un->pods[i]].node;
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				seen = s->pods[un->pods[j]].node == n;
			for (int r = 0; !seen && r < p->nres; r++) {
				int64_t u = q_use(m, qc, n, r);
				if (!u)
					continue;
				fprintf(f, "\n 'e%d' ", qc);
				dat_sym(f, s->nodes[n].name, 'n', n);
				fputc(' ', f);
				dat_sym(f, s->res[r], 'r', r);
				fprintf(f, " %lld", (long long)(u / unit[r]));
			}
		}
	}
	fprintf(f, ";\nset B :=");
	for (int j = 0; j < s->npdbs; j++)
		if (m->wcol && m->wcol[j])
			fprintf(f, " 'b%d'", j);
	fprintf(f, ";\nparam allowed :=");
	for (int j = 0; j < s->npdbs; j++)
		if (m->wcol && m->wcol[j])
			fprintf(f, "\n 'b%d' %d", j, p->pdb_allowed[j]);
	fprintf(f, ";\nparam bsel :=");
	for (int qc = 0; m->wcol && qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npdb; i++)
			if (m->wcol[un->pdb[i]])
				fprintf(f, "\n 'e%d' 'b%d' %d", qc, un->pdb[i],
					un->pdbn[i]);
	}
	fprintf(f, ";\n");
	dat_moves(m, f, unit);
	if (p->ncomps)
		dat_trees(f, p);
	/* DRA: per-class device fit and the device rows (empty without) */
	if (m->cpc) {
		fprintf(f, "\nparam xdev :=");
		for (int c = 0; c < p->nclasses; c++) {
			if (!m->cpc[c])
				continue;
			for (int k = 0; k < p->classes[c].nelig; k++) {
				int n = p->classes[c].elig[k];
				fprintf(f, "\n 'c%d' ", c);
				dat_sym(f, s->nodes[n].name, 'n', n);
				/* a slot that a shared claim rules out
				 * (its devices do not reach n) holds 0 */
				int sl = p->classes[c].off + k;
				int fit = wdr_fit(dv_fit_state(m, c),
						  m->cpc[c], n,
						  p->classes[c].count);
				if (m->xcol[sl] && m->cub[m->xcol[sl]] < fit)
					fit = (int)m->cub[m->xcol[sl]];
				fprintf(f, " %d", fit);
			}
		}
		fprintf(f, ";\n");
	}
	/* ways of slots met more than one way: 'c' node 'wK' */
	fprintf(f, "set YW :=");
	for (int sl = 0; m->dv_wbeg && sl < p->nx; sl++) {
		if (!m->xcol[sl])
			continue;
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++)
			if (m->dv_ycol[w])
				dat_way(f, m, sl, w);
	}
	fprintf(f, ";\nparam ypen :=");
	for (int sl = 0; m->dv_wbeg && sl < p->nx; sl++) {
		if (!m->xcol[sl])
			continue;
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++)
			if (m->dv_ycol[w] && m->dv_wpen[w]) {
				dat_way(f, m, sl, w);
				fprintf(f, " %d", m->dv_wpen[w]);
			}
	}
	fprintf(f, ";\nparam ycoef :=");
	for (int i = 0; i < m->dy.n; i++) {
		const wdterm *t = &m->dy.t[i];
		fprintf(f, "\n %d ", t->row + 1);
		dat_way(f, m, m->cdom[m->dv_ycol[t->ref]], t->ref);
		fprintf(f, " %d", t->coef);
	}
	fprintf(f, ";\n");
	dat_insts(f, m);
	fprintf(f, "set DR :=");
	for (int i = 0; i < m->dr.n; i++)
		fprintf(f, " %d", i + 1);
	fprintf(f, ";\nparam dnode :=");
	for (int i = 0; i < m->dr.n; i++) {
		fprintf(f, "\n %d ", i + 1);
		dat_sym(f, s->nodes[m->dr.t[i].ref].name, 'n', m->dr.t[i].ref);
	}
	fprintf(f, ";\nparam drhs :=");
	for (int i = 0; i < m->dr.n; i++)
		fprintf(f, "\n %d %d", i + 1, m->dr.t[i].coef);
	fprintf(f, ";\nparam dcoef :=");
	for (int i = 0; i < m->dt.n; i++)
		fprintf(f, "\n %d 'c%d' %d", m->dt.t[i].row + 1,
			m->dt.t[i].ref, m->dt.t[i].coef);
	/* devices of each row's union that shared claims may take */
	fprintf(f, ";\nset DS :=");
	for (int i = 0; i < m->ds.n; i++)
		fprintf(f, "\n (%d, 'd%d')", m->ds.t[i].row + 1, m->ds.t[i].ref);
	/* claims whose devices evictions free (issue 6): their holder
	 * classes and their devices in each row's union */
	fprintf(f, ";\nset HC :=");
	for (int i = 0; i < m->nfr; i++)
		fprintf(f, " 'h%d'", i);
	fprintf(f, ";\nset HQ :=");
	for (int i = 0; i < m->nfr; i++)
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++)
			fprintf(f, "\n ('h%d', 'e%d')", i, m->fr_q[k]);
	fprintf(f, ";\nparam hcoef :=");
	for (int i = 0; i < m->dh.n; i++)
		fprintf(f, "\n %d 'h%d' %d", m->dh.t[i].row + 1,
			m->dh.t[i].ref, m->dh.t[i].coef);
	fprintf(f, ";\n");
	dat_tas(f, p);
	dat_pref(f, m);
	fprintf(f, "\nend;\n");
	free(unit);
	if (ferror(f) | fclose(f))
		return werr(err, WASP_EIO, "cannot write %s", path);
	return WASP_OK;
}

typedef struct export_state {
	wm m;
	wilp_run run;
} export_state;

static int export_glpk(export_state *X, int format, const char *path,
		       wasp_error *err)
{
	wilp_run *r = &X->run;
	glpk_begin(r);
	if (setjmp(r->env.jb))
		return wgl_fault(&r->env, err);
	r->env.P = glp_create_prob();
	load_prob(&X->m, r->env.P, -1);
	int rc = format == WASP_EXPORT_LP
		     ? glp_write_lp(r->env.P, NULL, path)
		     : glp_write_mps(r->env.P, GLP_MPS_FILE, NULL, path);
	wgl_end(&r->env);
	if (rc)
		return werr(err, WASP_EIO, "cannot write %s", path);
	return WASP_OK;
}

int wilp_export(const wp_problem *p, const wasp_options *o, int format,
		const char *path, wasp_error *err)
{
	if (format != WASP_EXPORT_LP && format != WASP_EXPORT_MPS &&
	    format != WASP_EXPORT_DAT)
		return werr(err, WASP_EINVAL, "unknown export format %d",
			    format);
	wa_arena *ar = wa_new();
	export_state *X = ar ? wa_alloc(ar, sizeof *X) : NULL;
	if (!X) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	int rc = wm_build(&X->m, p, ar, WILP_MAX_COEF, false, true, 0);
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the ILP");
	}
	if (format == WASP_EXPORT_DAT) {
		rc = write_dat(&X->m, path, err);
		wa_destroy(ar);
		return rc;
	}
	X->run.o = o;
	rc = export_glpk(X, format, path, err);
	wa_destroy(ar);
	return rc;
}
