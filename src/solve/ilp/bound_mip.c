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
 * (or branch and bound's) names a domain per gang for run/lead.c's pass.
 *
 * Pieces (split_rows): where a shape q' is r times the next shape q, a
 * domain's rounded rows leave E = fit_q - r fit_q' units of q that no
 * pod of q' or larger can use (the 1-GPU room of a node with 7 free,
 * say).  Only the small pods of gangs in that domain can fill them, so
 * a gang's share e of them is at most E y: the LP can no longer spread
 * a gang thinly over every domain's pieces.
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
/* The coarser gangs' pods are spread over the finest key's domains in
 * at most this many columns (spread_cols). */
#define WCB_MIP_MAX_SPREAD 50000L

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
	/* the pieces (split_rows): per shape the ratio to the one before
	 * (0: no pieces rows), per capacity row its pieces row (sp, 0:
	 * none) */
	int ratio[WCB_MIP_MAX_SHAPES];
	int *sp;
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
		wcb_up(T, &key, &d);
		if (key < 0)
			d = 0;
	}
}

/* A type's column: y's index, its type and domain, w's index (0: none). */
typedef struct mb_col {
	int j, t, d, w;
	int c;              /* its class (a class without a type: t -1) */
	double cap;         /* pods per gang at most (C in split_rows)    */
} mb_col;

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

/* Up to k more gangs in column j while every row up to nrl holds (act:
 * the rows' activities, kept). */
static void add_gangs(glp_prob *P, int j, int k, int nrl, double *act,
		      int *ind, double *val, double *yv)
{
	int len = glp_get_mat_col(P, j, ind, val);
	double ub = glp_get_col_ub(P, j);
	for (; k > 0 && yv[j] + 1 <= ub + 1e-9; k--) {
		int i = 1;
		while (i <= len && (ind[i] > nrl ||
				    act[ind[i]] + val[i] <=
					glp_get_row_ub(P, ind[i]) + 1e-9))
			i++;
		if (i <= len)
			return;
		yv[j] += 1;
		for (i = 1; i <= len; i++)
			act[ind[i]] += val[i];
	}
}

/* A whole-gang answer from the LP's (its gangs' columns, isy, among
 * the first ny: those isy and yv hold; the pieces' shares come after):
 * each rounded down, then one more gang where the fraction was largest
 * while every row up to nrl holds (the spread's rows come after: they
 * hold pods the answer does not place, the greedy pass does; the pods
 * past the needs are left at 0, for the greedy pass to add), then with
 * fill more gangs wherever they still fit, those with the most work
 * first.  yv[j]: column j's value.  -1 NOMEM. */
static int round_lp(glp_prob *P, const unsigned char *isy, int ny,
		    int nrl, bool fill, wa_arena *a, double *yv)
{
	int nc = ny, nr = glp_get_num_rows(P);
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
		add_gangs(P, ord[o], 1, nrl, act, ind, val, yv);
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
		add_gangs(P, ord[o], INT32_MAX, nrl, act, ind, val, yv);
	return 0;
}

/* How many units of shape h make one of shape h - 1: r when that one
 * is r times this one (r >= 2), else 0 (no pieces rows for h). */
static int piece_ratio(const mb_state *M, int h)
{
	int sc = M->S->scarce;
	int64_t big = M->shape[h - 1][sc], small = M->shape[h][sc];
	if (small <= 0 || big % small || big / small < 2)
		return 0;
	return (int)(big / small);
}

/* A column's share of the pieces at one level and shape (split_rows):
 * as coefficients on its y and w, or (var) a column of its own. */
typedef struct mb_sh {
	double y, w;
	bool var;
} mb_sh;

/* The share of type column k's pods in the pieces E of its own domain,
 * c units a pod: its largest, min(c pods, E), wherever a gang is there
 * (y >= 1), written as m y + b w where that line lies on or above it
 * for every w <= (C - need) y: with no pods past the need, m = min(c
 * need, E); where c need >= E, m = E; where c C <= E, c need and c.
 * Otherwise no line does and the share gets a column (var). */
static mb_sh share_of(const mb_type *ty, const mb_col *k, double c, double E)
{
	mb_sh z = {0, 0, false};
	if (!ty) /* a class without a type: no gang, no cap */
		return (mb_sh){c, 0, false};
	if (!k->w || c * ty->need >= E)
		z.y = c * ty->need < E ? c * ty->need : E;
	else if (c * k->cap <= E)
		z.y = c * ty->need, z.w = c;
	else
		z.var = true;
	return z;
}

/* Per shape with pieces rows, a pod of request req's units that the
 * larger shape cannot hold (c of split_rows); 0 elsewhere. */
static void piece_units(const mb_state *M, const int64_t *req, double *cs)
{
	for (int h = 0; h < WCB_MIP_MAX_SHAPES; h++)
		cs[h] = 0;
	for (int h = 1; h < M->nsh; h++)
		if (M->ratio[h])
			cs[h] = wcb_shape_coef(M->S, req, M->shape[h]) -
				M->ratio[h] * wcb_shape_coef(M->S, req,
							     M->shape[h - 1]);
}

/* The pieces E of place (key, d) at level i and shape h: its rows'
 * room for shape h past ratio times that for shape h - 1. */
static double pieces_of(const mb_state *M, const double *rhs, int key,
			int d, int i, int h)
{
	long o = row_of(M, key, d, i, h);
	return rhs[o] - M->ratio[h] * rhs[o - 1];
}

/*
 * The pieces rows.  For a shape h whose predecessor is r times it
 * (piece_ratio), a place's rows at level i hold, with a = the pods'
 * coefficients,
 *
 *   sum a_h x <= fit_h(D) = r fit_{h-1}(D) + E(D),   E >= 0
 *
 * and E(D) is room only pods smaller than shape h-1 can use.  A gang
 * column (t, D) whose pods have c = a_h - r a_{h-1} > 0 takes a share
 * e <= min(c pods, E(D)) of it, and none without a gang in D; then
 *
 *   sum a_h x - sum e <= r fit_{h-1}(D')    for D' = D and every place
 *                                           above it, the cluster too
 *
 * Valid node by node: a node's units past r fit_{h-1} (at most its E)
 * go to the small pods on it, so a gang's share counts its own nodes
 * only, all inside D: the same share in every row of D's chain.  The
 * LP takes the largest share, so where a line gives it (share_of) it
 * goes into the coefficients; else e is a column with e <= c (need y +
 * w) and e <= E y.  The original rows stay (they keep the shares within
 * E).  Added after the LP without them has led the pass (wcb_mip_tier0).
 * nsplit: the rows for the pieces.  -1 NOMEM.
 */
static int split_rows(mb_state *M, glp_prob *P, const double *rhs,
		      const mb_col *col, int ncol, wa_arena *a, int *nsplit)
{
	const cb_state *S = M->S;
	const wtp_topo *T = S->p->topo;
	*nsplit = 0;
	int *ratio = M->ratio;
	bool any = false;
	for (int h = 1; h < M->nsh; h++)
		any |= (ratio[h] = piece_ratio(M, h)) > 0;
	if (!any)
		return 0;
	/* a split row per capacity row of such a shape: sp[r] its index */
	int *sp = M->sp = wa_calloc(a, (size_t)M->nrow + 1, sizeof *sp);
	unsigned char *rh = wa_calloc(a, (size_t)M->nrow + 1, 1);
	unsigned char *ri = wa_calloc(a, (size_t)M->nrow + 1, 1);
	if (!sp || !rh || !ri)
		return -1;
	int nkeys = T ? T->nkeys : 0;
	for (int k = -1; k < nkeys; k++) {
		if (k >= 0 && M->kbase[k] < 0)
			continue;
		for (int d = 0; d < ndom_of(T, k); d++)
			for (int i = 0; i < M->nl; i++)
				for (int h = 1; h < M->nsh; h++) {
					if (!ratio[h])
						continue;
					long r = row_of(M, k, d, i, h);
					int n = glp_add_rows(P, 1);
					glp_set_row_bnds(P, n, GLP_UP, 0,
							 ratio[h] * rhs[r - 1]);
					sp[r] = n;
					rh[r] = (unsigned char)h;
					ri[r] = (unsigned char)i;
					++*nsplit;
				}
	}
	int nr = glp_get_num_rows(P);
	int *ind = wa_calloc(a, (size_t)nr + 1, sizeof *ind);
	double *val = wa_calloc(a, (size_t)nr + 1, sizeof *val);
	/* a share column's split rows, per level and shape: at most one
	 * per place of the chain */
	int per = nkeys + 2, nih = M->nl * WCB_MIP_MAX_SHAPES;
	int *er = wa_calloc(a, (size_t)nih * per + 1, sizeof *er);
	int *ne = wa_calloc(a, (size_t)nih + 1, sizeof *ne);
	double *eE = wa_calloc(a, (size_t)nih + 1, sizeof *eE);
	double *ec = wa_calloc(a, (size_t)nih + 1, sizeof *ec);
	if (!ind || !val || !er || !ne || !eE || !ec)
		return -1;
	for (int x = 0; x < ncol; x++) {
		const mb_col *k = &col[x];
		const mb_type *ty = k->t >= 0 ? &M->ty[k->t] : NULL;
		const int64_t *req = S->p->classes[k->c].req;
		int key = ty ? ty->key : -1;
		/* per shape, a pod's units the larger shape cannot hold */
		double cs[WCB_MIP_MAX_SHAPES];
		piece_units(M, req, cs);
		memset(ne, 0, sizeof *ne * (size_t)nih);
		/* the y column, then the w column with it */
		for (int pass = 0; pass < 1 + (k->w > 0); pass++) {
			int j = pass ? k->w : k->j;
			int len = glp_get_mat_col(P, j, ind, val), len0 = len;
			for (int q = 1; q <= len0; q++) {
				long r = ind[q] - 1;
				if (r >= M->nrow || !sp[r])
					continue;
				int h = rh[r], i = ri[r];
				double c = cs[h];
				mb_sh z = {0, 0, false};
				if (c > 0.5) {
					double E = pieces_of(M, rhs, key, k->d,
							     i, h);
					z = share_of(ty, k, c, E);
					int ih = i * WCB_MIP_MAX_SHAPES + h;
					if (z.var && !pass && ne[ih] < per) {
						er[ih * per + ne[ih]++] = sp[r];
						eE[ih] = E;
						ec[ih] = c;
					}
				}
				double v = val[q] - (pass ? z.w : z.y);
				if (fabs(v) > 1e-9) {
					ind[++len] = sp[r];
					val[len] = v;
				}
			}
			if (len > len0)
				glp_set_mat_col(P, j, len, ind, val);
		}
		/* the shares that need a column: e <= c (need y + w),
		 * e <= E y, and -e in their split rows */
		for (int ih = 0; ih < nih; ih++) {
			if (!ne[ih])
				continue;
			double gmax = glp_get_col_ub(P, k->j);
			int e = glp_add_cols(P, 1);
			glp_set_col_bnds(P, e, GLP_DB, 0, eE[ih] * gmax);
			for (int q = 0; q < ne[ih]; q++)
				ind[q + 1] = er[ih * per + q], val[q + 1] = -1;
			glp_set_mat_col(P, e, ne[ih], ind, val);
			int rr = glp_add_rows(P, 2);
			int li[4] = {0, e, k->j, k->w};
			double lv[4] = {0, 1, -ec[ih] * ty->need, -ec[ih]};
			glp_set_mat_row(P, rr, 3, li, lv);
			glp_set_row_bnds(P, rr, GLP_UP, 0, 0);
			lv[2] = -eE[ih];
			glp_set_mat_row(P, rr + 1, 2, li, lv);
			glp_set_row_bnds(P, rr + 1, GLP_UP, 0, 0);
		}
	}
	return 0;
}

/* The spread (spread_cols) goes over the finest key with rows: -1 none. */
static int finest_row_key(const mb_state *M)
{
	const wtp_topo *T = M->S->p->topo;
	int best = -1, bd = 0;
	for (int k = 0; T && k < T->nkeys; k++) {
		if (M->kbase[k] < 0)
			continue;
		int depth = 0;
		for (int q = k; q >= 0; q = T->keys[q].parent)
			depth++;
		if (depth > bd)
			bd = depth, best = k;
	}
	return best;
}

/* Is key an ancestor of kf (or -1, the cluster)? */
static bool coarser_key(const wtp_topo *T, int key, int kf)
{
	if (key < 0)
		return true;
	for (int q = T->keys[kf].parent; q >= 0; q = T->keys[q].parent)
		if (q == key)
			return true;
	return false;
}

/* Does domain R of key kf lie in domain d of key (the cluster: -1)? */
static bool within(const wtp_topo *T, int kf, int R, int key, int d)
{
	int k = kf;
	while (k >= 0 && k != key)
		wcb_up(T, &k, &R);
	return k == key && (key < 0 || R == d);
}

/* The coefficients of a pod of class c in the rows of R's chain of
 * places strictly below key: capacity rows and, with them, their pieces
 * rows.  With ih >= 0 (i * WCB_MIP_MAX_SHAPES + h), a share's instead:
 * -1 in the pieces rows of level i and shape h only. */
static int chain_coefs(const mb_state *M, int c, int kf, int R, int key,
		       int ih, int *ind, double *val)
{
	const cb_state *S = M->S;
	const wtp_topo *T = S->p->topo;
	const int64_t *req = S->p->classes[c].req;
	int len = 0;
	for (int k = kf, d = R; k >= 0 && k != key;) {
		for (int i = 0; i < M->nl; i++) {
			if (M->lev[i] < S->clev[c])
				continue;
			for (int h = 0; h < M->nsh; h++) {
				long r = row_of(M, k, d, i, h);
				if (ih >= 0) {
					if (ih == i * WCB_MIP_MAX_SHAPES + h &&
					    M->sp && M->sp[r])
						ind[++len] = M->sp[r],
						val[len] = -1;
					continue;
				}
				double f = wcb_shape_coef(S, req, M->shape[h]);
				if (f <= 0)
					continue;
				ind[++len] = (int)r + 1;
				val[len] = f;
				if (M->sp && M->sp[r])
					ind[++len] = M->sp[r], val[len] = f;
			}
		}
		wcb_up(T, &k, &d);
	}
	return len;
}

static int col_key(const mb_state *M, const mb_col *k)
{
	return k->t >= 0 ? M->ty[k->t].key : -1;
}

/* A column's pool: gangs sharing a fit per domain (the same requests,
 * eligibility, level and key: a type's fit id) in one domain; a class
 * without a type on its own. */
static long pool_of(const mb_state *M, const mb_col *k)
{
	return k->t >= 0 ? M->ty[k->t].fitid : (long)M->nfit + k->c;
}

/* Columns in the order of their pools, then of their domains. */
typedef struct mb_pctx {
	const mb_state *M;
	const mb_col *col;
} mb_pctx;

static int cmp_pool(const void *ctx, int a, int b)
{
	const mb_pctx *X = ctx;
	const mb_col *x = &X->col[a], *y = &X->col[b];
	long px = pool_of(X->M, x), py = pool_of(X->M, y);
	if (px != py)
		return px < py ? -1 : 1;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return (a > b) - (a < b);
}

static bool same_pool(const mb_pctx *X, int a, int b)
{
	const mb_col *x = &X->col[a], *y = &X->col[b];
	return x->d == y->d && pool_of(X->M, x) == pool_of(X->M, y);
}

/* Pods of class c that fit in each domain of kf node by node (fr);
 * false where a node of domain d of key with room for one is in no
 * domain of kf inside d. */
static bool class_fits(const mb_state *M, int c, int kf, int key, int d,
		       double *fr)
{
	const cb_state *S = M->S;
	const wp_class *cl = &S->p->classes[c];
	const wtp_topo *T = S->p->topo;
	memset(fr, 0, sizeof *fr * (size_t)T->keys[kf].ndom);
	for (int e = 0; e < cl->nelig; e++) {
		int n = cl->elig[e];
		if (key >= 0 && T->keys[key].node_dom[n] != d)
			continue;
		double f = wcb_shape_fit(S, cl->req, n, S->clev[c]);
		if (f < 1)
			continue;
		int R = T->keys[kf].node_dom[n];
		if (R < 0 || !within(T, kf, R, key, d))
			return false;
		fr[R] += f;
	}
	return true;
}

/* A row's entries, gathered before glp_set_mat_row. */
typedef struct mb_list {
	int row, n;
	int *ind;
	double *val;
} mb_list;

static void list_add(mb_list *l, int j, double v)
{
	if (l->row && v != 0)
		l->ind[++l->n] = j, l->val[l->n] = v;
}

/*
 * The spread.  A column whose key is coarser than kf, the finest key
 * with rows (a gang without a key, or keyed to a block where racks have
 * rows), counts only in its own domain's rows and above: the rows of
 * the racks inside never see its pods, and its share of the pieces is
 * its domain's.  Per pool of such columns (one class, key and domain
 * D) its pods are spread over the domains R of kf in D:
 *
 *   sum_pool pods - sum_R u[R] <= 0,        u[R] <= the class's fit in R
 *
 * with u[R] in the capacity and pieces rows of R and of the places
 * between R and D; and per level and shape with pieces, e[R] <= c u[R]
 * (c: a pod's units the larger shape cannot hold) with -1 in those
 * pieces rows, and sum_R e[R] <= the pool's shares in D (share_of; E y
 * where no line gives it).  Valid node by node as the pieces are: the
 * pool's pods are in D's racks, on a rack's pieces at most c units
 * each, and a gang's pods in D fill at most its share.  A class with
 * room on a node outside every domain of kf is not spread; nothing is
 * added past WCB_MIP_MAX_SPREAD columns u.  nspread: the columns u.
 * -1 NOMEM.
 */
static int spread_cols(mb_state *M, glp_prob *P, const double *rhs,
		       const mb_col *col, int ncol, wa_arena *a, int *nspread)
{
	const cb_state *S = M->S;
	const wp_problem *p = S->p;
	const wtp_topo *T = p->topo;
	*nspread = 0;
	int kf = finest_row_key(M);
	if (kf < 0)
		return 0;
	int nR = T->keys[kf].ndom;
	int *ord = wa_calloc(a, (size_t)ncol + 1, sizeof *ord);
	int *tmp = wa_calloc(a, (size_t)ncol + 1, sizeof *tmp);
	double *fr = wa_calloc(a, (size_t)nR + 1, sizeof *fr);
	if (!ord || !tmp || !fr)
		return -1;
	int no = 0;
	for (int x = 0; x < ncol; x++) {
		int key = col_key(M, &col[x]);
		if (key != kf && coarser_key(T, key, kf))
			ord[no++] = x;
	}
	mb_pctx X = {M, col};
	wis_sort(ord, tmp, no, cmp_pool, &X);
	long nu = 0;
	for (int s = 0; s < no; s++)
		if (s == 0 || !same_pool(&X, ord[s - 1], ord[s]))
			for (int R = 0; R < nR; R++)
				nu += within(T, kf, R, col_key(M, &col[ord[s]]),
					     col[ord[s]].d);
	if (nu == 0 || nu > WCB_MIP_MAX_SPREAD)
		return 0;
	/* the lists: the link row, then a share row per level and shape */
	enum { NL = 1 + 2 * WCB_MIP_MAX_SHAPES };
	mb_list L[NL];
	size_t lcap = 2 * (size_t)no + (size_t)nR + 2;
	for (int q = 0; q < NL; q++) {
		L[q].ind = wa_calloc(a, lcap, sizeof *L[q].ind);
		L[q].val = wa_calloc(a, lcap, sizeof *L[q].val);
		if (!L[q].ind || !L[q].val)
			return -1;
	}
	size_t ccap = (size_t)(T->nkeys + 1) * 2 * WCB_MIP_MAX_SHAPES * 2 + 2;
	int *ind = wa_calloc(a, ccap, sizeof *ind);
	double *val = wa_calloc(a, ccap, sizeof *val);
	if (!ind || !val)
		return -1;
	for (int s = 0, e; s < no; s = e) {
		for (e = s + 1; e < no && same_pool(&X, ord[s], ord[e]); e++)
			;
		const mb_col *k0 = &col[ord[s]];
		int c = k0->c, key = col_key(M, k0), d = k0->d;
		if (!class_fits(M, c, kf, key, d, fr))
			continue;
		/* (ratio is set only where split_rows made pieces rows) */
		double cs[WCB_MIP_MAX_SHAPES];
		piece_units(M, p->classes[c].req, cs);
		for (int q = 0; q < NL; q++)
			L[q].row = L[q].n = 0;
		L[0].row = glp_add_rows(P, 1);
		for (int i = 0; i < M->nl; i++)
			for (int h = 1; h < M->nsh; h++)
				if (cs[h] > 0.5 && M->lev[i] >= S->clev[c])
					L[1 + i * WCB_MIP_MAX_SHAPES + h].row =
					    glp_add_rows(P, 1);
		/* the pool's pods, and their shares in D */
		for (int x = s; x < e; x++) {
			const mb_col *k = &col[ord[x]];
			const mb_type *ty = k->t >= 0 ? &M->ty[k->t] : NULL;
			list_add(&L[0], k->j, ty ? ty->need : 1);
			if (k->w)
				list_add(&L[0], k->w, 1);
			for (int q = 1; q < NL; q++) {
				if (!L[q].row)
					continue;
				int i = (q - 1) / WCB_MIP_MAX_SHAPES,
				    h = (q - 1) % WCB_MIP_MAX_SHAPES;
				double E = pieces_of(M, rhs, key, d, i, h);
				mb_sh z = share_of(ty, k, cs[h], E);
				list_add(&L[q], k->j, z.var ? -E : -z.y);
				if (k->w && !z.var)
					list_add(&L[q], k->w, -z.w);
			}
		}
		for (int R = 0; R < nR; R++) {
			if (fr[R] < 1)
				continue;
			int u = glp_add_cols(P, 1);
			glp_set_col_bnds(P, u, GLP_DB, 0, fr[R]);
			int len = chain_coefs(M, c, kf, R, key, -1, ind, val);
			if (len)
				glp_set_mat_col(P, u, len, ind, val);
			list_add(&L[0], u, -1);
			++*nspread;
			for (int q = 1; q < NL; q++) {
				if (!L[q].row)
					continue;
				int ih = q - 1, h = ih % WCB_MIP_MAX_SHAPES;
				int sh = glp_add_cols(P, 1);
				glp_set_col_bnds(P, sh, GLP_LO, 0, 0);
				len = chain_coefs(M, c, kf, R, key, ih, ind,
						  val);
				if (len)
					glp_set_mat_col(P, sh, len, ind, val);
				int rr = glp_add_rows(P, 1);
				int li[3] = {0, sh, u};
				double lv[3] = {0, 1, -cs[h]};
				glp_set_mat_row(P, rr, 2, li, lv);
				glp_set_row_bnds(P, rr, GLP_UP, 0, 0);
				list_add(&L[q], sh, 1);
			}
		}
		for (int q = 0; q < NL; q++)
			if (L[q].row) {
				glp_set_mat_row(P, L[q].row, L[q].n, L[q].ind,
						L[q].val);
				glp_set_row_bnds(P, L[q].row, GLP_UP, 0, 0);
			}
	}
	return 0;
}

/* The LP again after rows or columns were added, by GLPK's method
 * meth within dl: true where optimal, and then *ub lowered to its
 * value. */
static bool lp_again(glp_prob *P, glp_smcp *sm, int meth, wb_deadline dl,
		     double *ub)
{
	double left = wdl_left(dl, 0);
	if (!wdl_is_none(dl) && left <= 0)
		return false;
	sm->meth = meth;
	if (!wdl_is_none(dl))
		sm->tm_lim = (int)(left * 1000) + 1;
	if (glp_simplex(P, sm) || glp_get_status(P) != GLP_OPT)
		return false;
	if (glp_get_obj_val(P) < *ub)
		*ub = glp_get_obj_val(P);
	return true;
}

/* The third answer (the cleared pass's lead): the LP's, rounded and
 * filled in the rows up to nrl.  -1 NOMEM. */
static int third_answer(const mb_state *M, glp_prob *P,
			const unsigned char *isy, int ny, int nrl,
			wa_arena *a, double *yv, int *hint)
{
	if (round_lp(P, isy, ny, nrl, true, a, yv))
		return -1;
	hints(M, yv, ny, hint + 2 * (size_t)M->S->p->ngroups);
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
	mb_col *col = wa_calloc(a, (size_t)ncol + 1, sizeof *col);
	if (!ind || !val || !rhs || !isy || !yv || !col)
		return -1;
	int ncy = 0;
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
			col[ncy++] = (mb_col){j, t, d, 0, ty->c, cap};
			if (!has_extra(ty, cap))
				continue;
			int w = glp_add_cols(P, 1);
			col[ncy - 1].w = w;
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
		col[ncy++] = (mb_col){j, -1, 0, 0, c, 0};
	}
	int ny = glp_get_num_cols(P);
	b->mip_rows = glp_get_num_rows(P);
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
	 * (the first is usually better; not always: bench/README.md).
	 * From the LP without the pieces: with them its optimum is another
	 * vertex, no better a lead (gpu-2048: 3,964 top-priority pods
	 * against 3,985) */
	for (int k = 0; hint && k < 2; k++) {
		if (round_lp(P, isy, ny, INT32_MAX, k == 0, a, yv)) {
			glp_delete_prob(P);
			return -1;
		}
		int n = hints(M, yv, ny, hint + (size_t)k * p->ngroups);
		if (k == 0)
			b->mip_hinted = n;
	}
	/* then the pieces rows and the LP again, by the dual simplex from
	 * its basis (the new rows are basic, the new columns at 0 with no
	 * reduced cost: still dual feasible); a pass-only LP bounds
	 * nothing, so it has none */
	bool lp_ok = true;
	if (!hint_only) {
		if (split_rows(M, P, rhs, col, ncy, a, &b->mip_split)) {
			glp_delete_prob(P);
			return -1;
		}
		b->mip_rows = glp_get_num_rows(P);
		if (b->mip_split > 0) {
			lp_ok = lp_again(P, &sm, GLP_DUALP, dl, &cb.ub);
			/* the third answer: this LP's, rounded and filled
			 * (its gangs leave the pieces to the small pods: the
			 * lead of the cleared pass, run/lead.c) */
			if (lp_ok && hint &&
			    third_answer(M, P, isy, ny, INT32_MAX, a, yv, hint)) {
				glp_delete_prob(P);
				return -1;
			}
		}
	}
	/* then the coarser gangs' pods spread over the finest key's
	 * domains, and the LP again: for the bound, branch and bound, and
	 * the third answer */
	b->mip_unspread = NAN;
	left = wdl_left(dl, 0);
	/* skipped where it would likely not be solved in time, at the
	 * MIP's own rate per column (fragmented-5000's LP ran out of the 3
	 * s its 58,000 columns had left) */
	if (!hint_only && lp_ok &&
	    (wdl_is_none(dl) ||
	     left >= glp_get_num_cols(P) * WILP_BOUND_MIP_S_PER_COL)) {
		b->mip_unspread = cb.ub;
		int nrl = glp_get_num_rows(P);
		if (spread_cols(M, P, rhs, col, ncy, a, &b->mip_spread)) {
			glp_delete_prob(P);
			return -1;
		}
		if (b->mip_spread > 0) {
			/* the basis is neither primal (the pods are in no
			 * rack yet) nor dual feasible (the shares); the
			 * primal simplex on the model scaled again took 1.3
			 * s on fragmented-2048, the dual 6-7 s */
			glp_scale_prob(P, GLP_SF_AUTO);
			lp_ok = lp_again(P, &sm, GLP_PRIMAL, dl, &cb.ub);
			/* the third answer again, from this LP (rounded
			 * and filled in the rows before the spread): it
			 * knows which racks the coarser gangs' pods can
			 * have, and led the cleared pass to 3,717
			 * top-priority pods on fragmented-2048 seed 2
			 * (3,697 from the pieces' LP) */
			if (lp_ok && hint &&
			    third_answer(M, P, isy, ny, nrl, a, yv, hint)) {
				glp_delete_prob(P);
				return -1;
			}
		}
		b->mip_rows = glp_get_num_rows(P);
	}
	/* then branch and bound from its basis, for what time is left */
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.cb_func = callback;
	io.cb_info = &cb;
	left = wdl_left(dl, 0);
	int rc = -1;
	if (max_nodes > 0 && !hint_only && lp_ok &&
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
