/*
 * bound_cg.c -- the top tier's bound by column generation over whole-gang
 * patterns per domain (doc/formulation.md §12, "Whole gangs per domain").
 *
 * The LP of bound.c gives a gang with a required key pods per domain
 * (z[t,D,k]) that may be any fraction of a gang.  Here, for the top work
 * tier, those columns are replaced by patterns: a pattern of domain D is
 * a whole number of gangs g_t of each type and their pods y[t,k] per node
 * class, need_t g_t <= sum_k y[t,k] <= cmax_t g_t, that fits D's room per
 * node class, level, resource and pod shape (rounded node by node).  A
 * domain takes at most one pattern (sum_P lambda[D,P] <= 1); the rest of
 * the LP (node-class rows, coarser domains, the other columns) is kept.
 * Patterns are priced by a small MIP per domain (GLPK) from the master's
 * duals.
 *
 * The bound is Lagrangian, so it holds at every round, converged or not:
 * for any duals pi >= 0 of the master's rows (all "<="),
 *
 *   work <= sum_i pi_i b_i + sum_j max(0, d_j) u_j
 *                          + sum_D max(0, v_D - sigma_D)
 *
 * where d_j is column j's reduced cost, u_j its upper bound, sigma_D the
 * dual of D's pattern row and v_D an upper bound on the best pattern's
 * value under pi (the pricing MIP's optimum, or its LP relaxation when
 * the MIP was not proven).  Any plan's top-tier gangs of those types form
 * one pattern per domain, so the sum bounds its work.
 */
#include "solve/ilp/bound_int.h"

#include <float.h>

/* Rounds of pricing, at most (the deadline usually ends them first). */
#define WCB_CG_MAX_ROUNDS 60
/* One pricing MIP, at most this long. */
#define WCB_PRICE_MS 100
/* A pattern enters when its reduced cost is above this. */
#define WCB_RC_EPS 1e-6
/* Relative gap at which a pricing MIP stops (its bound is then the
 * found value plus this much). */
#define WCB_MIP_GAP 1e-3

/* One place: a domain of a key with top-tier gang columns, or the whole
 * cluster for the top tier's gangs without domain columns (key -1).
 * Its master columns cols[0..m) (per column the slot of its gang type
 * and the pods it may take), its slots (a gang type, or one gang):
 * need, largest size, pods, gangs at most and the master's gang row (0:
 * none), the pricing MIP Q and its pattern row. */
typedef struct cg_place {
	int key, d;
	int m, nt;
	int *cols, *tpos;
	double *cub;
	int *sneed, *scmax, *srow;
	double *stot, *sgmax, *sfit;
	glp_prob *Q;
	int row;            /* the master's pattern row                   */
	double v;           /* bound on the best pattern this round       */
} cg_place;

typedef struct cg_state {
	cb_state *S;
	glp_prob *P;
	int nrow0, ncol0;   /* the master's rows and columns before       */
	int nplace;
	cg_place *pl;
	int *cbeg;          /* per column j: its kept coefficients        */
	int *crow;
	double *cval;
	bool *dw;           /* per column: replaced by patterns           */
	double *pi;         /* duals, per master row                      */
	double *acc;        /* scratch per master row                     */
	int *ind;
	double *val;
} cg_state;

static int place_key(const cb_state *S, int j)
{
	return S->p->groups[S->ty[S->jt[j]].g].key;
}

static int cmp_place(const void *ctx, int a, int b)
{
	const cb_state *S = ctx;
	int ka = place_key(S, a), kb = place_key(S, b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (S->jd[a] != S->jd[b])
		return S->jd[a] < S->jd[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The kept coefficients of a pattern's pods: column j's, less a type's
 * gang row (a pattern counts whole gangs there) and the "at most k" rows
 * (a pattern is whole gangs already). */
static int kept_coefs(const cb_state *S, int j, int *row, double *val,
		      long *vo, double *co)
{
	int n = wcb_col_coefs(S, j, vo, co), m = 0;
	long grow = S->jt[j] >= 0 ? S->p->nclasses + S->jt[j] : -1;
	for (int i = 0; i < n; i++)
		if (vo[i] != grow && vo[i] < S->run0) {
			row[m] = S->rowid[vo[i]];
			val[m++] = co[i];
		}
	return m;
}

/* The room of place q per (node class, level, resource or shape) into
 * cap (by the order kseen gives the node classes); its nodes are the
 * domain's or, key -1, all. */
static int place_node(const cb_state *S, const cg_place *q, int i)
{
	return q->key < 0 ? i : S->p->topo->keys[q->key].dom_nodes[q->d][i];
}

static int place_nnodes(const cb_state *S, const cg_place *q)
{
	return q->key < 0 ? S->p->nnodes
			  : S->p->topo->keys[q->key].dom_nnodes[q->d];
}

/* The pricing MIP of place q: columns y (one per master column) then g
 * (one per slot); rows: room per (node class, level, resource or shape)
 * within the place, and per slot need g <= sum y <= cmax g and sum y <=
 * its pods and its fit in the place. */
static void price_build(cg_state *C, cg_place *q, double *cap, int *kseen,
			int *rind, double *rval)
{
	cb_state *S = C->S;
	const wp_problem *p = S->p;
	int nw = S->nw, m = q->m, nn = place_nnodes(S, q);
	glp_prob *Q = q->Q = glp_create_prob();
	glp_set_obj_dir(Q, GLP_MAX);
	glp_add_cols(Q, m + q->nt);
	for (int i = 0; i < m; i++) {
		glp_set_col_kind(Q, i + 1, GLP_IV);
		glp_set_col_bnds(Q, i + 1, q->cub[i] > 0 ? GLP_DB : GLP_FX, 0,
				 q->cub[i]);
	}
	for (int s = 0; s < q->nt; s++) {
		glp_set_col_kind(Q, m + s + 1, GLP_IV);
		glp_set_col_bnds(Q, m + s + 1, q->sgmax[s] > 0 ? GLP_DB : GLP_FX,
				 0, q->sgmax[s]);
	}
	int nk = 0;
	for (int i = 0; i < nn; i++) {
		int n = place_node(S, q, i), k = S->ncls[n];
		if (kseen[k] < 0)
			kseen[k] = nk++;
		double *cp = cap + (size_t)kseen[k] * S->nlev * nw;
		for (int l = 0; l < S->nlev; l++) {
			for (int r = 0; r < p->nres; r++)
				cp[l * nw + r] +=
				    WCB_ROOM(S, n, r, l) / S->rscale[r];
			for (int h = 0; h < S->nsh; h++)
				cp[l * nw + p->nres + h] +=
				    wcb_shape_fit(S, S->shape[h], n, l);
		}
	}
	for (int i = 0; i < nn; i++) {
		int k = S->ncls[place_node(S, q, i)];
		if (kseen[k] < 0)
			continue;
		double *cp = cap + (size_t)kseen[k] * S->nlev * nw;
		for (int l = 0; l < S->nlev; l++)
			for (int w = 0; w < p->nres + S->nsh; w++) {
				int len = 0;
				for (int x = 0; x < m; x++) {
					int j = q->cols[x], c = S->jc[j];
					if (S->jk[j] != k || S->clev[c] > l)
						continue;
					const int64_t *req = p->classes[c].req;
					double f =
					    w < p->nres
						? (double)req[w] / S->rscale[w]
						: wcb_shape_coef(
						      S, req,
						      S->shape[w - p->nres]);
					if (f > 0) {
						rind[++len] = x + 1;
						rval[len] = f;
					}
				}
				if (!len)
					continue;
				int row = glp_add_rows(Q, 1);
				glp_set_mat_row(Q, row, len, rind, rval);
				glp_set_row_bnds(Q, row, GLP_UP, 0,
						 cp[l * nw + w] + WILP_BOUND_TOL);
			}
		kseen[k] = -1; /* its rows are in */
	}
	for (int s = 0; s < q->nt; s++) {
		int len = 0;
		for (int x = 0; x < m; x++)
			if (q->tpos[x] == s) {
				rind[++len] = x + 1;
				rval[len] = 1;
			}
		int row = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, row, len, rind, rval);
		glp_set_row_bnds(Q, row, GLP_UP, 0,
				 q->stot[s] < q->sfit[s] ? q->stot[s]
							 : q->sfit[s]);
		rind[len + 1] = m + s + 1;
		rval[len + 1] = -(double)q->sneed[s];
		row = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, row, len + 1, rind, rval);
		glp_set_row_bnds(Q, row, GLP_LO, 0, 0);
		rval[len + 1] = -(double)q->scmax[s];
		row = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, row, len + 1, rind, rval);
		glp_set_row_bnds(Q, row, GLP_UP, 0, 0);
	}
}

/* Price place q under the duals C->pi: q->v bounds the best pattern's
 * value (less nothing: sigma is the caller's); a pattern whose value
 * exceeds sigma + WCB_RC_EPS is added to the master.  -1: out of time. */
static int price(cg_state *C, cg_place *q, wb_deadline dl)
{
	cb_state *S = C->S;
	glp_prob *Q = q->Q;
	int m = q->m;
	bool any = false;
	for (int x = 0; x < m; x++) {
		int j = q->cols[x];
		double r = wcb_pod_work(S->p, S->jc[j]);
		for (int i = C->cbeg[j]; i < C->cbeg[j + 1]; i++)
			r -= C->pi[C->crow[i]] * C->cval[i];
		glp_set_obj_coef(Q, x + 1, r);
		any |= r > 0;
	}
	for (int s = 0; s < q->nt; s++)
		glp_set_obj_coef(Q, m + s + 1,
				 q->srow[s] ? -C->pi[q->srow[s]] : 0);
	q->v = 0;
	if (!any)
		return 0; /* the empty pattern is best */
	double sigma = C->pi[q->row];
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	if (glp_simplex(Q, &sm) || glp_get_status(Q) != GLP_OPT) {
		q->v = INFINITY; /* no bound from this place this round */
		return 0;
	}
	double lp = glp_get_obj_val(Q);
	q->v = lp > 0 ? lp : 0;
	if (lp <= sigma + WCB_RC_EPS)
		return 0;
	double left = wdl_left(dl, 0);
	if (!wdl_is_none(dl) && left <= 0)
		return -1;
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.mip_gap = WCB_MIP_GAP;
	io.tm_lim = WCB_PRICE_MS;
	if (!wdl_is_none(dl) && left * 1000 < io.tm_lim)
		io.tm_lim = (int)(left * 1000) + 1;
	int rc = glp_intopt(Q, &io);
	int st = glp_mip_status(Q);
	if (st != GLP_OPT && st != GLP_FEAS)
		return 0;
	double z = glp_mip_obj_val(Q);
	if (rc == 0 && st == GLP_OPT)
		q->v = z;
	else if (rc == GLP_EMIPGAP) {
		double u = z + WCB_MIP_GAP * (fabs(z) + DBL_EPSILON) + 1e-9;
		q->v = u < q->v ? u : q->v;
	}
	if (z <= sigma + WCB_RC_EPS)
		return 0;
	/* the pattern as a master column */
	int len = 0;
	double obj = 0;
	for (int x = 0; x < m; x++) {
		double y = floor(glp_mip_col_val(Q, x + 1) + 0.5);
		int j = q->cols[x];
		if (y <= 0)
			continue;
		obj += y * wcb_pod_work(S->p, S->jc[j]);
		for (int i = C->cbeg[j]; i < C->cbeg[j + 1]; i++) {
			if (C->acc[C->crow[i]] == 0)
				C->ind[++len] = C->crow[i];
			C->acc[C->crow[i]] += y * C->cval[i];
		}
	}
	for (int s = 0; s < q->nt; s++) {
		double g = floor(glp_mip_col_val(Q, m + s + 1) + 0.5);
		int row = q->srow[s];
		if (g <= 0 || !row)
			continue;
		if (C->acc[row] == 0)
			C->ind[++len] = row;
		C->acc[row] += g;
	}
	C->ind[++len] = q->row;
	C->acc[q->row] = 1;
	for (int i = 1; i <= len; i++) {
		C->val[i] = C->acc[C->ind[i]];
		C->acc[C->ind[i]] = 0;
	}
	int col = glp_add_cols(C->P, 1);
	glp_set_col_bnds(C->P, col, GLP_LO, 0, 0);
	glp_set_obj_coef(C->P, col, obj);
	glp_set_mat_col(C->P, col, len, C->ind, C->val);
	return 1;
}

/* The Lagrangian bound under the duals in C->pi (places priced). */
static double lagrange(cg_state *C)
{
	cb_state *S = C->S;
	glp_prob *P = C->P;
	double z = 0;
	int nrow = glp_get_num_rows(P);
	for (int i = 1; i <= nrow; i++)
		z += C->pi[i] * glp_get_row_ub(P, i);
	for (int j = 0; j < S->ncol; j++) {
		if (C->dw[j])
			continue;
		int n = glp_get_mat_col(P, j + 1, C->ind, C->val);
		double d = glp_get_obj_coef(P, j + 1);
		for (int i = 1; i <= n; i++)
			d -= C->pi[C->ind[i]] * C->val[i];
		if (d > 0)
			z += d * S->jub[j];
	}
	for (int q = 0; q < C->nplace; q++) {
		double r = C->pl[q].v - C->pi[C->pl[q].row];
		if (r > 0)
			z += r;
	}
	return z;
}

/* Per column of place q the slot of its type (typed columns) or its
 * class (key -1), and the slots' figures. */
static int slots(cg_state *C, cg_place *q, int *tseen, int mark,
		 wa_arena *a)
{
	cb_state *S = C->S;
	const wp_problem *p = S->p;
	int m = q->m;
	q->tpos = wa_calloc(a, (size_t)m + 1, sizeof *q->tpos);
	q->cub = wa_calloc(a, (size_t)m + 1, sizeof *q->cub);
	q->sneed = wa_calloc(a, (size_t)m + 1, sizeof *q->sneed);
	q->scmax = wa_calloc(a, (size_t)m + 1, sizeof *q->scmax);
	q->srow = wa_calloc(a, (size_t)m + 1, sizeof *q->srow);
	q->stot = wa_calloc(a, (size_t)m + 1, sizeof *q->stot);
	q->sgmax = wa_calloc(a, (size_t)m + 1, sizeof *q->sgmax);
	q->sfit = wa_calloc(a, (size_t)m + 1, sizeof *q->sfit);
	int *sid = wa_calloc(a, (size_t)m + 1, sizeof *sid);
	if (!q->tpos || !q->cub || !q->sneed || !q->scmax || !q->srow ||
	    !q->stot || !q->sgmax || !q->sfit || !sid)
		return -1;
	q->nt = 0;
	for (int x = 0; x < m; x++) {
		int j = q->cols[x];
		/* a slot per type, or per class for the cluster */
		int id = q->key < 0 ? S->jc[j] : S->jt[j];
		C->dw[j] = true;
		if (tseen[id] != mark) {
			tseen[id] = mark;
			int s = q->nt++;
			sid[s] = id;
			if (q->key < 0) {
				const wp_class *cl = &p->classes[id];
				q->sneed[s] = p->groups[cl->group].min_need;
				q->scmax[s] = cl->count;
				q->stot[s] = q->sfit[s] = cl->count;
				q->sgmax[s] = 1;
			} else {
				const cb_type *t = &S->ty[id];
				double fd = S->jf[j];
				double g = floor(fd / (t->need > 0 ? t->need : 1));
				q->sneed[s] = t->need;
				q->scmax[s] = t->cmax;
				q->stot[s] = t->tot;
				q->sfit[s] = fd;
				q->sgmax[s] = g < t->n ? g : t->n;
				q->srow[s] = S->rowid[p->nclasses + id];
			}
		}
		int s = 0;
		while (sid[s] != id)
			s++;
		q->tpos[x] = s;
		q->cub[x] = S->jub[j] < q->stot[s] ? S->jub[j] : q->stot[s];
	}
	return 0;
}

/* A top-tier gang of one class without domain columns: its pods are
 * none or at least its need, anywhere (the cluster's place). */
static bool cluster_gang(const cb_state *S, const int *ct, int j)
{
	const wp_problem *p = S->p;
	int c = S->jc[j];
	const wp_group *wg = &p->groups[p->classes[c].group];
	return S->jt[j] < 0 && ct[c] == 0 && !S->dom[c] && wg->gang &&
	       !wg->invalid && wg->nclasses == 1 && wg->min_need > 1;
}

/* The places: top-tier typed columns grouped by (key, domain), then the
 * cluster's for the top tier's other gangs. */
static int places(cg_state *C, const int *ct, wa_arena *a)
{
	cb_state *S = C->S;
	int *js = wa_calloc(a, (size_t)S->ncol + 1, sizeof *js);
	int *tmp = wa_calloc(a, (size_t)S->ncol + 1, sizeof *tmp);
	C->dw = wa_calloc(a, (size_t)S->ncol + 1, sizeof *C->dw);
	int nid = S->nty > S->p->nclasses ? S->nty : S->p->nclasses;
	int *tseen = wa_calloc(a, (size_t)nid + 1, sizeof *tseen);
	if (!js || !tmp || !C->dw || !tseen)
		return -1;
	int n = 0;
	for (int j = 0; j < S->ncol; j++)
		if (S->jt[j] >= 0 && ct[S->jc[j]] == 0)
			js[n++] = j;
	wis_sort(js, tmp, n, cmp_place, S);
	int nu = 0;
	for (int j = 0; j < S->ncol; j++)
		if (cluster_gang(S, ct, j))
			js[n + nu++] = j;
	C->pl = wa_calloc(a, (size_t)n + 2, sizeof *C->pl);
	if (!C->pl)
		return -1;
	C->nplace = 0;
	for (int i = 0; i < n;) {
		int e = i;
		while (e < n && place_key(S, js[e]) == place_key(S, js[i]) &&
		       S->jd[js[e]] == S->jd[js[i]])
			e++;
		cg_place *q = &C->pl[C->nplace++];
		q->key = place_key(S, js[i]);
		q->d = S->jd[js[i]];
		q->m = e - i;
		q->cols = js + i;
		if (slots(C, q, tseen, C->nplace, a))
			return -1;
		i = e;
	}
	if (nu) {
		cg_place *q = &C->pl[C->nplace++];
		q->key = -1;
		q->m = nu;
		q->cols = js + n;
		memset(tseen, 0, sizeof *tseen * ((size_t)nid + 1));
		if (slots(C, q, tseen, 1, a))
			return -1;
	}
	return 0;
}

int wcb_cg_tier0(cb_state *S, glp_prob *P, const int *ct, wb_deadline dl,
		 wa_arena *a, double *ub, wilp_cbound *b)
{
	double t0 = wb_now();
	*ub = INFINITY;
	if (S->plain)
		return WASP_OK;
	cg_state C;
	memset(&C, 0, sizeof C);
	C.S = S;
	C.P = P;
	C.nrow0 = glp_get_num_rows(P);
	C.ncol0 = glp_get_num_cols(P);
	if (places(&C, ct, a))
		return WASP_ENOMEM;
	if (!C.nplace)
		return WASP_OK;
	/* kept coefficients per column */
	const wp_problem *p = S->p;
	int nkeys = p->topo ? p->topo->nkeys : 0;
	size_t maxc = 2 + WILP_BOUND_MAX_PER_DOM +
		      (size_t)(1 + nkeys) * S->nlev * S->nw;
	long *vo = wa_calloc(a, maxc + 1, sizeof *vo);
	double *co = wa_calloc(a, maxc + 1, sizeof *co);
	C.cbeg = wa_calloc(a, (size_t)S->ncol + 2, sizeof *C.cbeg);
	if (!vo || !co || !C.cbeg)
		return WASP_ENOMEM;
	long tot = 0;
	for (int j = 0; j < S->ncol; j++)
		if (C.dw[j])
			tot += (long)maxc;
	C.crow = wa_calloc(a, (size_t)tot + 1, sizeof *C.crow);
	C.cval = wa_calloc(a, (size_t)tot + 1, sizeof *C.cval);
	if (!C.crow || !C.cval)
		return WASP_ENOMEM;
	int *row = wa_calloc(a, maxc + 1, sizeof *row);
	double *val = wa_calloc(a, maxc + 1, sizeof *val);
	if (!row || !val)
		return WASP_ENOMEM;
	long z = 0;
	for (int j = 0; j < S->ncol; j++) {
		C.cbeg[j] = (int)z;
		if (!C.dw[j])
			continue;
		int n = kept_coefs(S, j, row, val, vo, co);
		for (int i = 0; i < n; i++, z++) {
			C.crow[z] = row[i];
			C.cval[z] = val[i];
		}
	}
	C.cbeg[S->ncol] = (int)z;
	/* scratch: the master grows by one row per place and a column per
	 * pattern; rows bounded, columns as many as the rounds allow */
	int nrowmax = C.nrow0 + C.nplace;
	long ncolmax = (long)C.ncol0 + (long)C.nplace * WCB_CG_MAX_ROUNDS;
	long big = nrowmax > ncolmax ? nrowmax : ncolmax;
	C.pi = wa_calloc(a, (size_t)nrowmax + 1, sizeof *C.pi);
	C.acc = wa_calloc(a, (size_t)nrowmax + 1, sizeof *C.acc);
	C.ind = wa_calloc(a, (size_t)big + 2, sizeof *C.ind);
	C.val = wa_calloc(a, (size_t)big + 2, sizeof *C.val);
	int kmax = 0;
	for (int q = 0; q < C.nplace; q++)
		kmax = C.pl[q].m + C.pl[q].nt > kmax ? C.pl[q].m + C.pl[q].nt
						      : kmax;
	double *cap =
	    wa_calloc(a, (size_t)S->nk * S->nlev * S->nw + 1, sizeof *cap);
	int *kseen = wa_calloc(a, (size_t)S->nk + 1, sizeof *kseen);
	int *rind = wa_calloc(a, (size_t)kmax + 2, sizeof *rind);
	double *rval = wa_calloc(a, (size_t)kmax + 2, sizeof *rval);
	int *rst = wa_calloc(a, (size_t)C.nrow0 + 1, sizeof *rst);
	int *cst = wa_calloc(a, (size_t)C.ncol0 + 1, sizeof *cst);
	if (!C.pi || !C.acc || !C.ind || !C.val || !cap || !kseen || !rind ||
	    !rval || !rst || !cst)
		return WASP_ENOMEM;
	for (int k = 0; k < S->nk; k++)
		kseen[k] = -1;
	for (int i = 1; i <= C.nrow0; i++)
		rst[i] = glp_get_row_stat(P, i);
	for (int j = 1; j <= C.ncol0; j++)
		cst[j] = glp_get_col_stat(P, j);
	/* the master: typed top-tier columns out, one pattern row per
	 * place */
	for (int j = 0; j < S->ncol; j++)
		if (C.dw[j])
			glp_set_col_bnds(P, j + 1, GLP_FX, 0, 0);
	int r0 = glp_add_rows(P, C.nplace);
	for (int q = 0; q < C.nplace; q++) {
		C.pl[q].row = r0 + q;
		glp_set_row_bnds(P, r0 + q, GLP_UP, 0, 1);
		memset(cap, 0, sizeof *cap * ((size_t)S->nk * S->nlev * S->nw));
		price_build(&C, &C.pl[q], cap, kseen, rind, rval);
	}
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	double grain = p->value_res < 0 ? 1 : 0.001;
	double best = INFINITY;
	int round = 0, priced = 0;
	for (; round < WCB_CG_MAX_ROUNDS; round++) {
		double left = wdl_left(dl, 0);
		if (!wdl_is_none(dl)) {
			if (left <= 0)
				break;
			sm.tm_lim = (int)(left * 1000) + 1;
		}
		if (glp_simplex(P, &sm) || glp_get_status(P) != GLP_OPT)
			break;
		/* the patterns' optimum is at least the restricted one's:
		 * once that rounds to the LP's bound, nothing is gained */
		if (floor(glp_get_obj_val(P) / grain + WILP_BOUND_TOL) * grain >=
		    b->ub[0])
			break;
		int nrow = glp_get_num_rows(P);
		for (int i = 1; i <= nrow; i++) {
			double d = glp_get_row_dual(P, i);
			C.pi[i] = glp_get_row_type(P, i) == GLP_UP && d > 0 ? d
									   : 0;
		}
		int added = 0, cut = 0;
		for (int q = 0; q < C.nplace && !cut; q++) {
			int r = price(&C, &C.pl[q], dl);
			if (r < 0)
				cut = 1;
			else
				added += r;
		}
		if (cut)
			break;
		double L = lagrange(&C);
		best = L < best ? L : best;
		priced++;
		if (!added)
			break;
	}
	/* the master as it was: patterns and their rows out, the typed
	 * columns and the basis back */
	int nc = glp_get_num_cols(P);
	for (int j = C.ncol0 + 1, n = 0; j <= nc; j++)
		C.ind[++n] = j;
	if (nc > C.ncol0)
		glp_del_cols(P, nc - C.ncol0, C.ind);
	for (int q = 0; q < C.nplace; q++)
		C.ind[q + 1] = C.pl[q].row;
	glp_del_rows(P, C.nplace, C.ind);
	for (int j = 0; j < S->ncol; j++)
		if (C.dw[j])
			glp_set_col_bnds(P, j + 1, GLP_DB, 0, S->jub[j]);
	for (int i = 1; i <= C.nrow0; i++)
		glp_set_row_stat(P, i, rst[i]);
	for (int j = 1; j <= C.ncol0; j++)
		glp_set_col_stat(P, j, cst[j]);
	for (int q = 0; q < C.nplace; q++)
		glp_delete_prob(C.pl[q].Q);
	b->cg_rounds = priced;
	b->cg_cols = nc - C.ncol0;
	b->cg_s = wb_now() - t0;
	*ub = best;
	return WASP_OK;
}
