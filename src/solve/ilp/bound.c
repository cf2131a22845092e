/*
 * bound.c -- an upper bound at every size: the LP over node classes
 * (doc/formulation.md §12), solved tier by tier with GLPK.
 *
 * Nodes eligible for the same classes form one node class, and their
 * free room and the room of the units pods may evict are summed: a bin
 * per node class, resource and priority level.  x[c,k] are pods of class
 * c in node class k, continuous in [0, count]; per (k, r, level l) the
 * capacity-by-priority row of doc/preemption.md with every evictable unit
 * below l evicted:
 *
 *   sum_{c: eff(c) <= l} req[c,r] x[c,k] <= sum_{n in k} (free[n,r]
 *                                   + sum_{u evictable, prio(u) < l} use)
 *
 * Gangs, topology, budgets, eviction costs and node boundaries are
 * dropped, so every plan's work fits it.  The work tiers are maximised in
 * sequence (a lexicographic LP): tier t's optimum, rounded down to whole
 * units, becomes a lower limit before tier t + 1 is solved, so the vector
 * of optima bounds every plan's work vector lexicographically.  The model
 * has (classes x node classes) columns and is estimated before it is
 * built (WILP_BOUND_MAX_COLS).
 */
#include "solve/ilp/ilp_int.h"

/* The bound LP is not built above this many columns or entries. */
#define WILP_BOUND_MAX_COLS 2000000L
#define WILP_BOUND_MAX_NZ 20000000L
/* LP optima within this of a whole unit are that unit. */
#define WILP_BOUND_TOL 1e-6

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
	double *cap;        /* nk * nres * nlev                           */
	int *col;           /* per class: first column, its columns follow
			       kbeg order                                 */
	int ncol;
} cb_state;

static int cmp_ptr(const void *ctx, int a, int b)
{
	const wp_problem *p = ctx;
	const int *x = p->classes[a].elig, *y = p->classes[b].elig;
	return x < y ? -1 : x > y;
}

static int cmp_nodes(const void *ctx, int a, int b)
{
	const cb_state *S = ctx;
	int la = S->nbeg[a + 1] - S->nbeg[a], lb = S->nbeg[b + 1] - S->nbeg[b];
	if (la != lb)
		return la < lb ? -1 : 1;
	for (int i = 0; i < la; i++) {
		int x = S->nlist[S->nbeg[a] + i], y = S->nlist[S->nbeg[b] + i];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Eligibility arrays, per node the arrays containing it, node classes and
 * per array the node classes it reaches.  -1 on NOMEM. */
static int node_classes(cb_state *S, wa_arena *a)
{
	const wp_problem *p = S->p;
	int nc = p->nclasses, nn = p->nnodes;
	int *ord = wa_calloc(a, nc + 1, sizeof *ord);
	int *tmp = wa_calloc(a, (nc > nn ? nc : nn) + 1, sizeof *tmp);
	S->cel = wa_calloc(a, nc + 1, sizeof *S->cel);
	S->elv = wa_calloc(a, nc + 1, sizeof *S->elv);
	S->eln = wa_calloc(a, nc + 1, sizeof *S->eln);
	S->nbeg = wa_calloc(a, nn + 2, sizeof *S->nbeg);
	S->ncls = wa_calloc(a, nn + 1, sizeof *S->ncls);
	if (!ord || !tmp || !S->cel || !S->elv || !S->eln || !S->nbeg ||
	    !S->ncls)
		return -1;
	for (int c = 0; c < nc; c++)
		ord[c] = c;
	wis_sort(ord, tmp, nc, cmp_ptr, p);
	S->nel = 0;
	long tot = 0;
	for (int i = 0; i < nc; i++) {
		const wp_class *cl = &p->classes[ord[i]];
		if (cl->nelig == 0 || p->groups[cl->group].invalid) {
			S->cel[ord[i]] = -1;
			continue;
		}
		if (S->nel == 0 || S->elv[S->nel - 1] != cl->elig) {
			S->elv[S->nel] = cl->elig;
			S->eln[S->nel] = cl->nelig;
			tot += cl->nelig;
			S->nel++;
		}
		S->cel[ord[i]] = S->nel - 1;
	}
	if (tot > WILP_BOUND_MAX_NZ)
		return 1;
	for (int e = 0; e < S->nel; e++)
		for (int i = 0; i < S->eln[e]; i++)
			S->nbeg[S->elv[e][i] + 1]++;
	for (int n = 0; n < nn; n++)
		S->nbeg[n + 1] += S->nbeg[n];
	S->nlist = wa_calloc(a, tot + 1, sizeof *S->nlist);
	int *fill = wa_calloc(a, nn + 1, sizeof *fill);
	int *nord = wa_calloc(a, nn + 1, sizeof *nord);
	if (!S->nlist || !fill || !nord)
		return -1;
	for (int e = 0; e < S->nel; e++)
		for (int i = 0; i < S->eln[e]; i++) {
			int n = S->elv[e][i];
			S->nlist[S->nbeg[n] + fill[n]++] = e;
		}
	for (int n = 0; n < nn; n++)
		nord[n] = n;
	wis_sort(nord, tmp, nn, cmp_nodes, S);
	S->nk = 0;
	for (int i = 0; i < nn; i++) {
		if (i == 0 || cmp_nodes(S, nord[i - 1], nord[i]))
			S->nk++;
		S->ncls[nord[i]] = S->nk - 1;
	}
	/* per array, the node classes it reaches (ascending) */
	S->kbeg = wa_calloc(a, S->nel + 1, sizeof *S->kbeg);
	int *seen = wa_calloc(a, S->nk + 1, sizeof *seen);
	if (!S->kbeg || !seen)
		return -1;
	long nkl = 0;
	for (int e = 0; e < S->nel; e++) {
		S->kbeg[e] = (int)nkl;
		for (int i = 0; i < S->eln[e]; i++) {
			int k = S->ncls[S->elv[e][i]];
			if (seen[k] != e + 1) {
				seen[k] = e + 1;
				nkl++;
			}
		}
	}
	S->kbeg[S->nel] = (int)nkl;
	S->klist = wa_calloc(a, nkl + 1, sizeof *S->klist);
	if (!S->klist)
		return -1;
	memset(seen, 0, sizeof *seen * (S->nk + 1));
	nkl = 0;
	for (int e = 0; e < S->nel; e++)
		for (int i = 0; i < S->eln[e]; i++) {
			int k = S->ncls[S->elv[e][i]];
			if (seen[k] != e + 1) {
				seen[k] = e + 1;
				S->klist[nkl++] = k;
			}
		}
	return 0;
}

static int lev_of(const cb_state *S, int32_t pr)
{
	int l = 0;
	while (l < S->nlev && S->lev[l] < pr)
		l++;
	return l;
}

/* Levels and the room per (node class, resource, level).  -1 NOMEM. */
static int room(cb_state *S, wa_arena *a)
{
	const wp_problem *p = S->p;
	int nr = p->nres;
	S->nlev = 0;
	for (int c = 0; c < p->nclasses; c++) {
		if (S->cel[c] < 0)
			continue;
		int32_t e = wilp_eff_prio(p, c);
		int l = lev_of(S, e);
		if (l < S->nlev && S->lev[l] == e)
			continue;
		if (S->nlev == WP_MAX_TIERS)
			return 1; /* too many levels: no bound */
		memmove(S->lev + l + 1, S->lev + l,
			sizeof *S->lev * (S->nlev - l));
		S->lev[l] = e;
		S->nlev++;
	}
	size_t nb = (size_t)S->nk * nr * (S->nlev ? S->nlev : 1);
	S->cap = wa_calloc(a, nb + 1, sizeof *S->cap);
	if (!S->cap)
		return -1;
#define CAP(k, r, l) S->cap[((size_t)(k) * nr + (r)) * S->nlev + (l)]
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < nr; r++) {
			double f = (double)p->free[(size_t)n * nr + r];
			for (int l = 0; l < S->nlev; l++)
				CAP(S->ncls[n], r, l) += f > 0 ? f : 0;
		}
	int32_t top;
	bool any = wpe_top_priority(p, &top);
	for (int u = 0; any && u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (un->priority >= top || un->keep)
			continue;
		/* its room serves levels above its priority */
		int l0 = 0;
		while (l0 < S->nlev && S->lev[l0] <= un->priority)
			l0++;
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			if (pod->node < 0 || pod->node >= p->nnodes)
				continue;
			for (int r = 0; r < nr; r++)
				for (int l = l0; l < S->nlev; l++)
					CAP(S->ncls[pod->node], r, l) +=
					    (double)pod->req[r];
		}
	}
	return 0;
}

/* The tier (index into v.prio of wp_evaluate) of each class. */
static void class_tiers(const wp_problem *p, const wp_value *v, int *ct)
{
	for (int c = 0; c < p->nclasses; c++) {
		int32_t pr = p->groups[p->classes[c].group].priority;
		int t = 0;
		while (t < v->nprio - 1 && v->prio[t] != pr)
			t++;
		ct[c] = t;
	}
}

/* A pod's work in wp_value units. */
static double pod_work(const wp_problem *p, int c)
{
	return p->value_res < 0
		   ? 1.0
		   : (double)p->classes[c].req[p->value_res] / 1000.0;
}

/* Each class's first column (its columns follow kbeg order); returns
 * the column count. */
static int assign_cols(cb_state *S)
{
	const wp_problem *p = S->p;
	int ncol = 0;
	for (int c = 0; c < p->nclasses; c++) {
		int e = S->cel[c];
		S->col[c] = ncol + 1;
		if (e >= 0)
			ncol += S->kbeg[e + 1] - S->kbeg[e];
	}
	return ncol;
}

/* Build and solve in the calling thread; GLPK faults come back as
 * WASP_ESOLVER. */
static int solve_lp(cb_state *S, const int *ct, wilp_cbound *b,
		    wb_deadline dl, wa_arena *a, wasp_error *err)
{
	const wp_problem *p = S->p;
	int nr = p->nres;
	S->ncol = assign_cols(S);
	/* everything allocated before GLPK runs: a fault loses nothing */
	int *ind = wa_calloc(a, S->ncol + 2, sizeof *ind);
	double *val = wa_calloc(a, S->ncol + 2, sizeof *val);
	int *kb = wa_calloc(a, S->nk + 2, sizeof *kb);
	int *kc = wa_calloc(a, S->ncol + 1, sizeof *kc);
	int *kj = wa_calloc(a, S->ncol + 1, sizeof *kj);
	int *kf = wa_calloc(a, S->nk + 1, sizeof *kf);
	if (!ind || !val || !kb || !kc || !kj || !kf)
		return werr(err, WASP_ENOMEM, "out of memory");
	wgl_env env;
	wgl_begin(&env, 0);
	if (setjmp(env.jb))
		return wgl_fault(&env, err);
	glp_prob *P = env.P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	if (S->ncol)
		glp_add_cols(P, S->ncol);
	for (int c = 0; c < p->nclasses; c++) {
		int e = S->cel[c];
		for (int i = 0; e >= 0 && i < S->kbeg[e + 1] - S->kbeg[e]; i++)
			glp_set_col_bnds(P, S->col[c] + i, GLP_DB, 0,
					 p->classes[c].count);
	}
	/* a class's total over node classes is at most its count */
	for (int c = 0; c < p->nclasses; c++) {
		int e = S->cel[c];
		int len = e >= 0 ? S->kbeg[e + 1] - S->kbeg[e] : 0;
		if (len < 2)
			continue;
		int row = glp_add_rows(P, 1);
		for (int i = 0; i < len; i++) {
			ind[i + 1] = S->col[c] + i;
			val[i + 1] = 1;
		}
		glp_set_mat_row(P, row, len, ind, val);
		glp_set_row_bnds(P, row, GLP_UP, 0, p->classes[c].count);
	}
	/* capacity rows per (node class, resource, level): per node class
	 * its (class, column) pairs */
	for (int c = 0; c < p->nclasses; c++) {
		int e = S->cel[c];
		for (int i = 0; e >= 0 && i < S->kbeg[e + 1] - S->kbeg[e]; i++)
			kb[S->klist[S->kbeg[e] + i] + 1]++;
	}
	for (int k = 0; k < S->nk; k++)
		kb[k + 1] += kb[k];
	for (int c = 0; c < p->nclasses; c++) {
		int e = S->cel[c];
		for (int i = 0; e >= 0 && i < S->kbeg[e + 1] - S->kbeg[e];
		     i++) {
			int k = S->klist[S->kbeg[e] + i];
			kc[kb[k] + kf[k]] = c;
			kj[kb[k] + kf[k]++] = S->col[c] + i;
		}
	}
	for (int k = 0; k < S->nk; k++)
		for (int r = 0; r < nr; r++)
			for (int l = 0; l < S->nlev; l++) {
				int len = 0;
				for (int i = kb[k]; i < kb[k + 1]; i++) {
					int c = kc[i];
					double q = (double)p->classes[c].req[r];
					if (q <= 0 ||
					    wilp_eff_prio(p, c) > S->lev[l])
						continue;
					ind[++len] = kj[i];
					val[len] = q;
				}
				if (!len)
					continue;
				int row = glp_add_rows(P, 1);
				glp_set_mat_row(P, row, len, ind, val);
				glp_set_row_bnds(P, row, GLP_UP, 0,
						 CAP(k, r, l));
			}
	b->rows = glp_get_num_rows(P);
	b->cols = S->ncol;
	/* the tiers in sequence */
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_OFF;
	int rc = WASP_OK;
	for (int t = 0; t < b->ntier; t++) {
		for (int c = 0; c < p->nclasses; c++) {
			int e = S->cel[c];
			for (int i = 0;
			     e >= 0 && i < S->kbeg[e + 1] - S->kbeg[e]; i++)
				glp_set_obj_coef(P, S->col[c] + i,
						 ct[c] == t ? pod_work(p, c)
							    : 0);
		}
		double left = wdl_left(dl, 0);
		if (!wdl_is_none(dl)) {
			if (left <= 0) {
				rc = WASP_ECANCELED;
				break;
			}
			sm.tm_lim = (int)(left * 1000) + 1;
		}
		int sr = S->ncol ? glp_simplex(P, &sm) : 0;
		if (S->ncol && (sr || glp_get_status(P) != GLP_OPT)) {
			rc = sr == GLP_ETMLIM ? WASP_ECANCELED : WASP_ESOLVER;
			break;
		}
		double z = S->ncol ? glp_get_obj_val(P) : 0;
		/* work is a sum of whole pods (or of requests in 1/1000
		 * units): round down to that grain */
		double grain = p->value_res < 0 ? 1 : 0.001;
		double u = floor(z / grain + WILP_BOUND_TOL) * grain;
		b->ub[t] = u < b->total[t] ? u : b->total[t];
		/* the next tiers only among plans reaching it */
		int len = 0;
		for (int c = 0; c < p->nclasses; c++) {
			int e = S->cel[c];
			for (int i = 0;
			     ct[c] == t && e >= 0 &&
			     i < S->kbeg[e + 1] - S->kbeg[e];
			     i++) {
				ind[++len] = S->col[c] + i;
				val[len] = pod_work(p, c);
			}
		}
		if (len && t + 1 < b->ntier) {
			int row = glp_add_rows(P, 1);
			glp_set_mat_row(P, row, len, ind, val);
			glp_set_row_bnds(P, row, GLP_LO,
					 b->ub[t] - WILP_BOUND_TOL * grain, 0);
		}
	}
	wgl_end(&env);
	if (rc == WASP_ESOLVER)
		return werr(err, rc, "the bound LP failed");
	if (rc == WASP_ECANCELED)
		return werr(err, rc, "no time left for the bound LP");
	return WASP_OK;
#undef CAP
}

int wilp_class_bound(const wp_problem *p, wb_deadline dl, wilp_cbound *b,
		     wasp_error *err)
{
	memset(b, 0, sizeof *b);
	wp_sol *zero = NULL;
	wa_arena *a = wa_new();
	cb_state *S = a ? wa_alloc(a, sizeof *S) : NULL;
	if (!S || !(zero = wp_sol_new(p, a))) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	memset(S, 0, sizeof *S);
	S->p = p;
	/* the tiers as wp_evaluate has them, and their totals */
	wp_value v;
	wp_evaluate(p, zero, &v);
	b->ntier = v.nprio;
	memcpy(b->prio, v.prio, sizeof *b->prio * v.nprio);
	int *ct = wa_calloc(a, p->nclasses + 1, sizeof *ct);
	S->col = wa_calloc(a, p->nclasses + 1, sizeof *S->col);
	if (!ct || !S->col) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	class_tiers(p, &v, ct);
	for (int c = 0; c < p->nclasses; c++)
		b->total[ct[c]] += pod_work(p, c) * p->classes[c].count;
	int rc = node_classes(S, a);
	if (rc == 0) {
		long ncol = 0;
		for (int c = 0; c < p->nclasses; c++)
			if (S->cel[c] >= 0)
				ncol += S->kbeg[S->cel[c] + 1] -
					S->kbeg[S->cel[c]];
		b->node_classes = S->nk;
		if (ncol > WILP_BOUND_MAX_COLS ||
		    ncol * (long)p->nres * 2 > WILP_BOUND_MAX_NZ)
			rc = 1;
	}
	if (rc == 0)
		rc = room(S, a);
	if (rc < 0) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	if (rc > 0) {
		wa_destroy(a);
		return werr(err, WASP_ESOLVER,
			    "the bound LP would be too large");
	}
	rc = solve_lp(S, ct, b, dl, a, err);
	wa_destroy(a);
	if (rc)
		return rc;
	b->ok = true;
	/* weights: the lowest tier 1, each above it 1 + the range below */
	b->w[b->ntier - 1] = 1;
	for (int t = b->ntier - 2; t >= 0; t--)
		b->w[t] = b->w[t + 1] * (1 + b->total[t + 1]);
	return WASP_OK;
}

double wilp_cbound_value(const wilp_cbound *b, const wp_value *v)
{
	long double z = 0;
	for (int t = 0; t < b->ntier && t < v->nprio; t++)
		z += (long double)b->w[t] * v->work[t];
	return (double)z;
}

double wilp_cbound_bound(const wilp_cbound *b)
{
	long double z = 0;
	for (int t = 0; t < b->ntier; t++)
		z += (long double)b->w[t] * b->ub[t];
	return (double)z;
}
