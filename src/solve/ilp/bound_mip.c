/*
 * bound_mip.c -- the top tier's bound from a MIP over whole gangs
 * (doc/formulation.md §12, "Whole gangs, integer").
 *
 * The LP of bound.c and the patterns of bound_cg.c let a gang be split
 * over domains (as a convex combination).  Here the top tier's
 * single-class gangs are grouped into exact types (the same requests,
 * eligibility, level, key, size C, need N and fixed domain:
 * interchangeable, so one integer column per type and domain is the
 * same MIP as one binary per gang), with
 *
 *   y[t,D] in 0..min(n_t, F_D / N_t)   gangs of type t in domain D
 *                                      (each with its need's pods)
 *   w[t,D] <= (min(C_t, F_D) - N_t) y  their pods past the need
 *   sum_D y[t,D] <= n_t
 *
 * (F_D: the type's pods that fit in D node by node; gangs without a
 * required key have the whole cluster as their one domain), and per
 * domain of every key at or above a typed one and for the whole
 * cluster, per level and shape q of the scarce resource, the rounded
 * capacity rows of bound.c,
 *
 *   sum a[c,q] pods <= sum_{n in D} fit[n,q,l]
 *
 * The top tier's other classes (lone pods, several classes) get a
 * continuous column in the cluster's rows.  Budgets, evictions' costs,
 * the rest of the topology and the resources outside the shapes are
 * dropped, so every plan's top tier is a solution: the LP's optimum,
 * and the best node bound of a few branch-and-bound nodes after it
 * (read in the callback), bound the top tier.  The LP's answer rounded
 * (or branch and bound's) names a domain per gang for run.c's pass.
 */
#include "solve/ilp/bound_int.h"

#include <float.h>

/* The MIP is not built above this many columns or entries. */
#define WCB_MIP_MAX_COLS 400000L
#define WCB_MIP_MAX_NZ 6000000L
/* Where the MIP would not be solved in time, its LP over about this
 * many domains per type still gives the greedy pass an answer. */
#define WCB_MIP_HINT_DOMS 16
/* Rounded rows per place and level, at most: the top tier's largest
 * requests of the scarce resource, and always its smallest. */
#define WCB_MIP_MAX_SHAPES 4

/* An exact gang type: n gangs of group g's class c, size cnt, need. */
typedef struct mb_type {
	int g, c, n, cnt, need, key, fixed;
	int beg;            /* its gangs: cand[beg .. beg + n)            */
	int id, stride;     /* its index; columns in domains d with
			       (d + id) % stride == 0 (hints only: 1 in
			       a bound)                                   */
	int fitid;          /* its fit per domain: F + fitbeg[fitid]      */
} mb_type;

typedef struct mb_state {
	cb_state *S;
	const int *ct;
	int nty;
	mb_type *ty;
	double *F;          /* per fit id and domain: pods that fit       */
	long *fitbeg;
	int nfit;
	unsigned char *typed; /* per class: its gang is in a type         */
	int *cand;          /* the typed gangs, type by type              */
	int nl;             /* the levels of rows: the top tier's, top    */
	int lev[2];
	int nsh;            /* shapes: scarce-resource requests only       */
	int nw;             /* rows per place and level                   */
	int64_t *shape[WCB_MIP_MAX_SHAPES];
	long *kbase;        /* per key: first row of its domains, -1 none */
	long cbase;         /* the cluster's rows                         */
	long nrow;
} mb_state;

static int dom_of(const wtp_topo *T, int key, int n)
{
	return key < 0 ? 0 : T->keys[key].node_dom[n];
}

static int ndom_of(const wtp_topo *T, int key)
{
	return key < 0 ? 1 : T->keys[key].ndom;
}

/* Is group g a tier-0 gang this MIP types?  Its class, else -1. */
static int typed_class(const mb_state *M, int g)
{
	const cb_state *S = M->S;
	const wp_problem *p = S->p;
	const wp_group *wg = &p->groups[g];
	if (!wg->gang || wg->invalid || wg->nclasses != 1 ||
	    wg->fixed_dom < -1)
		return -1;
	int c = wg->classes[0];
	if (S->cel[c] < 0 || p->classes[c].count <= 0 || M->ct[c] != 0)
		return -1;
	if (wg->key >= 0 && (!p->topo || wg->key >= p->topo->nkeys))
		return -1;
	return c;
}

/* Gangs sharing a fit per domain (wcb_cmp_fit). */
static int cmp_fit(const void *ctx, int a, int b)
{
	const mb_state *M = ctx;
	return wcb_cmp_fit(M->S, a, b);
}

/* ... and exact types: also size, need and fixed domain. */
static int cmp_exact(const void *ctx, int a, int b)
{
	int d = cmp_fit(ctx, a, b);
	if (d)
		return d;
	const mb_state *M = ctx;
	const wp_group *x = &M->S->p->groups[a], *y = &M->S->p->groups[b];
	int cx = M->S->p->classes[x->classes[0]].count,
	    cy = M->S->p->classes[y->classes[0]].count;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (x->min_need != y->min_need)
		return x->min_need < y->min_need ? -1 : 1;
	return x->fixed_dom < y->fixed_dom ? -1 : x->fixed_dom > y->fixed_dom;
}

/* The exact types and their fits per domain.  -1 NOMEM. */
static int types(mb_state *M, wa_arena *a)
{
	const cb_state *S = M->S;
	const wp_problem *p = S->p;
	int ng = p->ngroups;
	int *cand = M->cand = wa_calloc(a, (size_t)ng + 1, sizeof *cand);
	int *tmp = wa_calloc(a, (size_t)ng + 1, sizeof *tmp);
	M->ty = wa_calloc(a, (size_t)ng + 1, sizeof *M->ty);
	M->fitbeg = wa_calloc(a, (size_t)ng + 2, sizeof *M->fitbeg);
	M->typed = wa_calloc(a, (size_t)p->nclasses + 1, 1);
	if (!cand || !tmp || !M->ty || !M->fitbeg || !M->typed)
		return -1;
	int nc = 0;
	for (int g = 0; g < ng; g++) {
		int c = typed_class(M, g);
		if (c >= 0) {
			cand[nc++] = g;
			M->typed[c] = 1;
		}
	}
	wis_sort(cand, tmp, nc, cmp_exact, M);
	long nF = 0;
	for (int i = 0; i < nc; i++)
		if (i == 0 || cmp_fit(M, cand[i - 1], cand[i]))
			nF += ndom_of(p->topo, p->groups[cand[i]].key);
	M->F = wa_calloc(a, (size_t)nF + 1, sizeof *M->F);
	if (!M->F)
		return -1;
	nF = 0;
	for (int i = 0; i < nc; i++) {
		int g = cand[i];
		const wp_group *wg = &p->groups[g];
		int c = wg->classes[0], key = wg->key;
		if (i == 0 || cmp_fit(M, cand[i - 1], g)) {
			const wp_class *cl = &p->classes[c];
			double *F = M->F + nF;
			for (int e = 0; e < cl->nelig; e++) {
				int n = cl->elig[e], d = dom_of(p->topo, key, n);
				if (d >= 0)
					F[d] += wcb_shape_fit(S, cl->req, n,
							      S->clev[c]);
			}
			M->fitbeg[M->nfit++] = nF;
			nF += ndom_of(p->topo, key);
		}
		if (i > 0 && !cmp_exact(M, cand[i - 1], g)) {
			M->ty[M->nty - 1].n++;
			continue;
		}
		mb_type *t = &M->ty[M->nty++];
		t->g = g;
		t->c = c;
		t->n = 1;
		t->cnt = p->classes[c].count;
		t->need = wg->min_need;
		t->key = key;
		t->fixed = key >= 0 ? wg->fixed_dom : -1;
		t->fitid = M->nfit - 1;
		t->beg = i;
		t->id = M->nty - 1;
		t->stride = 1;
	}
	return 0;
}

/* F_D of type t in domain d, 0 when its need does not fit there. */
static double type_fit(const mb_state *M, const mb_type *t, int d)
{
	if ((t->fixed >= 0 && d != t->fixed) ||
	    (t->stride > 1 && (d + t->id) % t->stride))
		return 0;
	double f = M->F[M->fitbeg[t->fitid] + d];
	return f >= t->need && f >= 1 ? f : 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? 1 : a > b ? -1 : 0; /* descending */
}

/* The shapes: the top tier's distinct requests of the scarce resource,
 * the largest WCB_MIP_MAX_SHAPES - 1 and the smallest (so that every
 * pod counts in some row).  -1 NOMEM. */
static int shapes(mb_state *M, wa_arena *a)
{
	const cb_state *S = M->S;
	const wp_problem *p = S->p;
	int64_t *v = wa_calloc(a, (size_t)p->nclasses + 1, sizeof *v);
	if (!v)
		return -1;
	int nv = 0;
	for (int c = 0; c < p->nclasses; c++)
		if (S->cel[c] >= 0 && M->ct[c] == 0 &&
		    p->classes[c].req[S->scarce] > 0)
			v[nv++] = p->classes[c].req[S->scarce];
	qsort(v, (size_t)nv, sizeof *v, cmp_i64);
	int nd = 0;
	for (int i = 0; i < nv; i++)
		if (nd == 0 || v[nd - 1] != v[i])
			v[nd++] = v[i];
	for (int i = 0; i < nd && M->nsh < WCB_MIP_MAX_SHAPES; i++) {
		if (M->nsh == WCB_MIP_MAX_SHAPES - 1 && i != nd - 1)
			i = nd - 1; /* the last one: the smallest */
		int64_t *q = wa_calloc(a, (size_t)p->nres, sizeof *q);
		if (!q)
			return -1;
		q[S->scarce] = v[i];
		M->shape[M->nsh++] = q;
	}
	return 0;
}

/* Rows: per key that holds or contains a typed key, per domain, level
 * and shape; then the cluster's.  The row of (key, d, level i, shape h)
 * (key -1: the cluster). */
static long row_of(const mb_state *M, int key, int d, int i, int h)
{
	long base = key < 0 ? M->cbase : M->kbase[key];
	return base + ((long)d * M->nl + i) * M->nw + h;
}

static int rows(mb_state *M, wa_arena *a)
{
	const cb_state *S = M->S;
	const wtp_topo *T = S->p->topo;
	int nkeys = T ? T->nkeys : 0;
	M->kbase = wa_calloc(a, (size_t)nkeys + 1, sizeof *M->kbase);
	if (!M->kbase)
		return -1;
	for (int k = 0; k < nkeys; k++)
		M->kbase[k] = -1;
	for (int t = 0; t < M->nty; t++)
		for (int k = M->ty[t].key; k >= 0; k = T->keys[k].parent)
			M->kbase[k] = 0;
	/* the type rows first, then capacity */
	M->nrow = M->nty;
	for (int k = 0; k < nkeys; k++)
		if (M->kbase[k] == 0) {
			M->kbase[k] = M->nrow;
			M->nrow += (long)T->keys[k].ndom * M->nl * M->nw;
		}
	M->cbase = M->nrow;
	M->nrow += (long)M->nl * M->nw;
	return 0;
}

/* Pod coefficients of class c in the rows of (key, d) and the domains
 * above it and the cluster's, times m; appended to (ind, val). */
static int coefs(const mb_state *M, int c, int key, int d, double m,
		 int *ind, double *val, int len)
{
	const cb_state *S = M->S;
	const wtp_topo *T = S->p->topo;
	const int64_t *req = S->p->classes[c].req;
	for (;;) {
		for (int i = 0; i < M->nl; i++) {
			if (M->lev[i] < S->clev[c])
				continue;
			for (int h = 0; h < M->nsh; h++) {
				double f = wcb_shape_coef(S, req, M->shape[h]);
				if (f > 0) {
					ind[++len] =
					    (int)row_of(M, key, d, i, h) + 1;
					val[len] = f * m;
				}
			}
		}
		if (key < 0)
			return len;
		int pk = T->keys[key].parent;
		d = pk >= 0 && T->keys[key].dom_parent
			? T->keys[key].dom_parent[d]
			: -1;
		key = d >= 0 ? pk : -1;
		if (key < 0)
			d = 0;
	}
}

/* What the callback keeps: the best bound seen. */
typedef struct mb_cb {
	double ub;
	int nodes, max_nodes;
} mb_cb;

static void callback(glp_tree *T, void *info)
{
	mb_cb *cb = info;
	int reason = glp_ios_reason(T);
	glp_prob *P = glp_ios_get_prob(T);
	double inc = glp_mip_status(P) == GLP_FEAS || glp_mip_status(P) == GLP_OPT
			 ? glp_mip_obj_val(P)
			 : -DBL_MAX;
	double v = DBL_MAX;
	int cur = glp_ios_curr_node(T);
	if ((reason == GLP_IROWGEN || reason == GLP_ICUTGEN) && cur &&
	    glp_ios_node_level(T, cur) == 0 && glp_get_status(P) == GLP_OPT)
		v = glp_get_obj_val(P); /* the root LP with its cuts */
	else if (reason == GLP_ISELECT || reason == GLP_IBRANCH) {
		int best = glp_ios_best_node(T);
		if (best)
			v = glp_ios_node_bound(T, best);
	}
	if (v < DBL_MAX) {
		v = v > inc ? v : inc;
		if (v < cb->ub)
			cb->ub = v;
	}
	if (reason == GLP_ISELECT && ++cb->nodes >= cb->max_nodes)
		glp_ios_terminate(T); /* a count, not the clock: the same
					 answer on every machine */
}

/* Does type t in a domain where its gangs hold at most cap pods each
 * get a column for the pods past its need? */
static bool has_extra(const mb_type *t, double cap)
{
	return t->need < t->cnt && cap > t->need;
}

/* An answer (yv: per column, whole numbers of gangs) as a domain per
 * gang: y[t,D] of type t's gangs, in their order, get domain D (a gang
 * without a key gets 0).  Returns the gangs given one. */
static int hints(const mb_state *M, const double *yv, int ny, int *hint)
{
	const wp_problem *p = M->S->p;
	int j = 0, n = 0;
	for (int g = 0; g < p->ngroups; g++)
		hint[g] = -1;
	for (int t = 0; t < M->nty; t++) {
		const mb_type *ty = &M->ty[t];
		int next = 0;
		for (int d = 0; d < ndom_of(p->topo, ty->key); d++) {
			double f = type_fit(M, ty, d);
			if (f <= 0)
				continue;
			if (++j > ny)
				return n;
			int y = (int)floor(yv[j] + 0.5);
			for (; y > 0 && next < ty->n; y--, next++, n++)
				hint[M->cand[ty->beg + next]] = d;
			if (has_extra(ty, f < ty->cnt ? f : ty->cnt))
				j++; /* its pods' column */
		}
	}
	return n;
}

/* Up to k more gangs in column j while every row holds (act: the rows'
 * activities, kept). */
static void add_gangs(glp_prob *P, int j, int k, double *act, int *ind,
		      double *val, double *yv)
{
	int len = glp_get_mat_col(P, j, ind, val);
	double ub = glp_get_col_ub(P, j);
	for (; k > 0 && yv[j] + 1 <= ub + 1e-9; k--) {
		int i = 1;
		while (i <= len && act[ind[i]] + val[i] <=
				       glp_get_row_ub(P, ind[i]) + 1e-9)
			i++;
		if (i <= len)
			return;
		yv[j] += 1;
		for (i = 1; i <= len; i++)
			act[ind[i]] += val[i];
	}
}

/* A whole-gang answer from the LP's (its gangs' columns, isy): each
 * rounded down, then one more gang where the fraction was largest
 * while every row holds (the pods past the needs left at 0, for the
 * greedy pass to add), then with fill more gangs wherever they still
 * fit, those with the most work first.  yv[j]: column j's value.  -1
 * NOMEM. */
static int round_lp(glp_prob *P, const unsigned char *isy, bool fill,
		    wa_arena *a, double *yv)
{
	int nc = glp_get_num_cols(P), nr = glp_get_num_rows(P);
	double *act = wa_calloc(a, (size_t)nr + 1, sizeof *act);
	double *fr = wa_calloc(a, (size_t)nc + 1, sizeof *fr);
	int *ord = wa_calloc(a, (size_t)nc + 1, sizeof *ord);
	int *tmp = wa_calloc(a, (size_t)nc + 1, sizeof *tmp);
	int *ind = wa_calloc(a, (size_t)nr + 1, sizeof *ind);
	double *val = wa_calloc(a, (size_t)nr + 1, sizeof *val);
	if (!act || !fr || !ord || !tmp || !ind || !val)
		return -1;
	int no = 0;
	for (int j = 1; j <= nc; j++) {
		yv[j] = 0;
		if (!isy[j])
			continue;
		double v = glp_get_col_prim(P, j);
		yv[j] = floor(v + 1e-6);
		fr[j] = v - yv[j];
		if (fr[j] > 1e-6)
			ord[no++] = j;
		int len = glp_get_mat_col(P, j, ind, val);
		for (int i = 1; i <= len; i++)
			act[ind[i]] += yv[j] * val[i];
	}
	wis_sort(ord, tmp, no, wis_desc, fr);
	for (int o = 0; o < no; o++)
		add_gangs(P, ord[o], 1, act, ind, val, yv);
	if (!fill)
		return 0;
	/* then whatever else still fits, the most work per gang first */
	no = 0;
	for (int j = 1; j <= nc; j++)
		if (isy[j]) {
			ord[no++] = j;
			fr[j] = glp_get_obj_coef(P, j);
		}
	wis_sort(ord, tmp, no, wis_desc, fr);
	for (int o = 0; o < no; o++)
		add_gangs(P, ord[o], INT32_MAX, act, ind, val, yv);
	return 0;
}

/* The columns the model will have: per type its domains (y, and w
 * when need < size, at most), then the other top-tier classes. */
static long count_cols(const mb_state *M)
{
	const wp_problem *p = M->S->p;
	long ncol = 0;
	for (int t = 0; t < M->nty; t++) {
		const mb_type *ty = &M->ty[t];
		for (int d = 0; d < ndom_of(p->topo, ty->key); d++)
			if (type_fit(M, ty, d) > 0)
				ncol += ty->need < ty->cnt ? 2 : 1;
	}
	for (int c = 0; c < p->nclasses; c++)
		ncol += M->S->cel[c] >= 0 && M->ct[c] == 0 && !M->typed[c];
	return ncol;
}

/* Columns of every type in about WCB_MIP_HINT_DOMS of its domains (a
 * slice that differs from type to type, so that together they cover
 * the cluster); returns the columns. */
static long hint_slices(mb_state *M)
{
	const wp_problem *p = M->S->p;
	for (int t = 0; t < M->nty; t++) {
		mb_type *ty = &M->ty[t];
		int nf = 0;
		for (int d = 0; d < ndom_of(p->topo, ty->key); d++)
			nf += type_fit(M, ty, d) > 0;
		ty->stride = (nf + WCB_MIP_HINT_DOMS - 1) / WCB_MIP_HINT_DOMS;
		if (ty->stride < 1)
			ty->stride = 1;
	}
	return count_cols(M);
}

int wcb_mip_tier0(cb_state *S, const int *ct, wa_arena *a, int *hint,
		  double *ub, wilp_cbound *b)
{
	*ub = INFINITY;
	const wp_problem *p = S->p;
	if (S->scarce < 0)
		return 0;
	double t0 = wb_now();
	/* where nothing may be evicted the search after it ends early: more
	 * of the time is the MIP's; with evictions the room is most of the
	 * cluster and branching did not lower the LP's bound at 2,048
	 * nodes: its seconds go to the search instead */
	double range, most;
	bool ev = wpe_evict_range(p, &range, &most);
	int max_nodes = ev ? 0 : WILP_BOUND_MIP_NODES;
	wb_deadline dl = S->run_dl;
	if (!wdl_is_none(dl))
		dl = wdl_at(t0 + wdl_left(dl, 0) *
				     (ev ? WILP_BOUND_MIP_SHARE
					 : WILP_BOUND_MIP_SHARE_NO_EVICT));
	bool hint_only = false;
	mb_state M0, *M = &M0;
	memset(M, 0, sizeof *M);
	M->S = S;
	M->ct = ct;
	/* the levels of rows: the top tier's lowest, and the top one */
	int lo = S->nlev;
	for (int c = 0; c < p->nclasses; c++)
		if (S->cel[c] >= 0 && ct[c] == 0 && S->clev[c] < lo)
			lo = S->clev[c];
	if (lo >= S->nlev)
		return 0;
	M->lev[M->nl++] = lo;
	if (lo != S->nlev - 1)
		M->lev[M->nl++] = S->nlev - 1;
	if (shapes(M, a) || types(M, a))
		return -1;
	M->nw = M->nsh;
	if (rows(M, a))
		return -1;
	if (M->nsh == 0)
		return 0;
	long ncol = count_cols(M);
	/* entries per column, at most: its type row and its domain's
	 * chain of keys up to the cluster */
	int per = 3 + (1 + (p->topo ? p->topo->nkeys : 0)) * M->nl * M->nw;
	long nnz = ncol * per;
	bool too = ncol > WCB_MIP_MAX_COLS || nnz > WCB_MIP_MAX_NZ ||
		   (!wdl_is_none(dl) &&
		    wdl_left(dl, 0) < (double)ncol * WILP_BOUND_MIP_S_PER_COL);
	if (too && hint) {
		/* no bound in time, but an answer to lead the greedy pass:
		 * each type in a slice of its domains (a restriction: its
		 * LP bounds nothing) */
		ncol = hint_slices(M);
		nnz = ncol * per;
		too = ncol > WCB_MIP_MAX_COLS || nnz > WCB_MIP_MAX_NZ ||
		      (!wdl_is_none(dl) &&
		       wdl_left(dl, 0) < (double)ncol * WILP_BOUND_MIP_S_PER_COL);
		hint_only = true;
	}
	b->mip_cols = (int)(ncol < INT32_MAX ? ncol : INT32_MAX);
	if (too) {
		b->mip_status = "too large for its time";
		return 0;
	}
	int *ind = wa_calloc(a, (size_t)per + 2, sizeof *ind);
	double *val = wa_calloc(a, (size_t)per + 2, sizeof *val);
	double *rhs = wa_calloc(a, (size_t)M->nrow + 1, sizeof *rhs);
	unsigned char *isy = wa_calloc(a, (size_t)ncol + 2, 1);
	double *yv = wa_calloc(a, (size_t)ncol + 2, sizeof *yv);
	if (!ind || !val || !rhs || !isy || !yv)
		return -1;
	for (int t = 0; t < M->nty; t++)
		rhs[t] = M->ty[t].n;
	for (int n = 0; n < p->nnodes; n++)
		for (int i = 0; i < M->nl; i++)
			for (int h = 0; h < M->nw; h++) {
				double f = wcb_shape_fit(S, M->shape[h], n,
							 M->lev[i]);
				rhs[row_of(M, -1, 0, i, h)] += f;
				for (int k = 0; p->topo && k < p->topo->nkeys;
				     k++) {
					int d = p->topo->keys[k].node_dom[n];
					if (M->kbase[k] >= 0 && d >= 0)
						rhs[row_of(M, k, d, i, h)] += f;
				}
			}
	/* GLPK from here: the caller's environment catches its faults */
	glp_prob *P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	glp_add_rows(P, (int)M->nrow);
	for (long r = 0; r < M->nrow; r++)
		glp_set_row_bnds(P, (int)r + 1, GLP_UP, 0, rhs[r]);
	for (int t = 0; t < M->nty; t++) {
		const mb_type *ty = &M->ty[t];
		double work = wcb_pod_work(p, ty->c);
		for (int d = 0; d < ndom_of(p->topo, ty->key); d++) {
			double f = type_fit(M, ty, d);
			if (f <= 0)
				continue;
			double cap = f < ty->cnt ? f : ty->cnt;
			double gmax = ty->need > 0
					  ? floor(f / ty->need + WILP_BOUND_TOL)
					  : ty->n;
			gmax = gmax < ty->n ? gmax : ty->n;
			int j = glp_add_cols(P, 1);
			glp_set_col_kind(P, j, GLP_IV);
			isy[j] = 1;
			glp_set_col_bnds(P, j, GLP_DB, 0, gmax);
			/* y carries the gangs' needs, w their pods past it:
			 * w <= (cap - need) y, one row */
			ind[1] = t + 1;
			val[1] = 1;
			glp_set_obj_coef(P, j, work * ty->need);
			int len = coefs(M, ty->c, ty->key, d, ty->need, ind,
					val, 1);
			glp_set_mat_col(P, j, len, ind, val);
			if (!has_extra(ty, cap))
				continue;
			int w = glp_add_cols(P, 1);
			glp_set_col_bnds(P, w, GLP_DB, 0,
					 (cap - ty->need) * gmax);
			glp_set_obj_coef(P, w, work);
			len = coefs(M, ty->c, ty->key, d, 1, ind, val, 0);
			glp_set_mat_col(P, w, len, ind, val);
			int r = glp_add_rows(P, 1);
			int li[3] = {0, j, w};
			double lv[3] = {0, -(cap - ty->need), 1};
			glp_set_mat_row(P, r, 2, li, lv);
			glp_set_row_bnds(P, r, GLP_UP, 0, 0);
		}
	}
	for (int c = 0; c < p->nclasses; c++) {
		if (S->cel[c] < 0 || ct[c] != 0 || M->typed[c])
			continue;
		int j = glp_add_cols(P, 1);
		glp_set_col_bnds(P, j, GLP_DB, 0, p->classes[c].count);
		glp_set_obj_coef(P, j, wcb_pod_work(p, c));
		int len = coefs(M, c, -1, 0, 1, ind, val, 0);
		if (len)
			glp_set_mat_col(P, j, len, ind, val);
	}
	b->mip_rows = glp_get_num_rows(P);
	int ny = glp_get_num_cols(P);
	b->mip_types = M->nty;
	/* the LP first: its optimum is already a bound (and, with the
	 * types' fits, close to the MIP's on the generated families), and
	 * its rounding the hint when the search finds no answer in time */
	mb_cb cb = {.ub = INFINITY, .max_nodes = max_nodes};
	double left = wdl_left(dl, 0);
	if (!wdl_is_none(dl) && left <= 0) {
		glp_delete_prob(P);
		b->mip_status = "no time";
		return 0;
	}
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	if (!wdl_is_none(dl))
		sm.tm_lim = (int)(left * 1000) + 1;
	glp_scale_prob(P, GLP_SF_AUTO);
	glp_adv_basis(P, 0);
	int sr = glp_simplex(P, &sm);
	if (sr || glp_get_status(P) != GLP_OPT) {
		glp_delete_prob(P);
		b->mip_status = sr == GLP_ETMLIM ? "no time" : "LP failed";
		b->mip_s = wb_now() - t0;
		return 0;
	}
	cb.ub = hint_only ? INFINITY : glp_get_obj_val(P);
	b->mip_status = hint_only ? "LP over slices, for the pass only" : "LP";
	/* two answers for the pass: rounded and filled, and rounded only
	 * (the first is usually better; not always: bench/README.md) */
	for (int k = 0; hint && k < 2; k++) {
		if (round_lp(P, isy, k == 0, a, yv)) {
			glp_delete_prob(P);
			return -1;
		}
		int n = hints(M, yv, ny, hint + (size_t)k * p->ngroups);
		if (k == 0)
			b->mip_hinted = n;
	}
	/* then branch and bound from its basis, for what time is left */
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.cb_func = callback;
	io.cb_info = &cb;
	left = wdl_left(dl, 0);
	int rc = -1;
	if (max_nodes > 0 && !hint_only &&
	    ny <= WILP_BOUND_MIP_BB_MAX_COLS &&
	    (wdl_is_none(dl) || left > 0)) {
		if (!wdl_is_none(dl))
			io.tm_lim = (int)(left * 1000) + 1;
		rc = glp_intopt(P, &io);
	}
	int st = glp_mip_status(P);
	if (rc == 0 && st == GLP_OPT) {
		double z = glp_mip_obj_val(P);
		cb.ub = z < cb.ub ? z : cb.ub;
		b->mip_status = "proven";
	} else if (rc >= 0)
		b->mip_status = "stopped";
	b->mip_nodes = cb.nodes;
	b->mip_s = wb_now() - t0;
	if (hint && (st == GLP_OPT || st == GLP_FEAS)) {
		for (int j = 1; j <= ny; j++)
			yv[j] = glp_mip_col_val(P, j);
		b->mip_hinted = hints(M, yv, ny, hint);
	}
	glp_delete_prob(P);
	*ub = cb.ub < INFINITY ? cb.ub + 1e-6 * (fabs(cb.ub) + 1) : INFINITY;
	return 0;
}
