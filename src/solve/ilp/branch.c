/*
 * branch.c -- reliability branching for GLPK's search (doc/formulation.md
 * §6b).
 *
 * GLPK's own pseudo-cost rule (GLP_BR_PCH) scores a column by the larger
 * of its two estimated degradations and starts each pseudo-cost once,
 * with 30 dual simplex iterations.  A column whose up branch is costly
 * and whose down branch is free then wins, and the down child keeps the
 * parent's bound: on mixed-64 GLPK's bound never leaves the root.  cbc
 * proves the same models by strong branching until the pseudo-costs are
 * reliable (without it, it does not prove them either).  This module does
 * that from the callback: the product of the two degradations as the
 * score, pseudo-costs from every child solved, and strong branching on a
 * copy of the node's LP for the columns whose pseudo-costs have fewer
 * than WBR_RELIABLE observations.  A strong branch that finds a child
 * infeasible, or unable to beat the incumbent, branches on that column at
 * once, so that GLPK discards the child at its first solve.
 *
 * Everything is counted in nodes and iterations, never in time, so the
 * choice does not depend on the load.  stop() only cuts strong branching
 * short when the deadline is near.
 */
#include "solve/ilp/branch.h"

#include <float.h>
#include <math.h>

#include "base/sort.h"

struct wbr {
	int n;
	bool int_obj;
	double *sum[2]; /* per column, per direction: psi summed */
	int *cnt[2];    /* ... and observations                  */
	double all_sum[2];
	long all_cnt[2];
	long nstrong;
	/* per call */
	int *cand;  /* unreliable candidates, best estimate first */
	double *key; /* their estimates, by column                  */
	int *ord;   /* sort scratch                                 */
	int *rstat, *cstat; /* the node's basis, restored after each */
	int rcap;           /* rows rstat holds (cuts add rows)        */
	wa_arena *ar;
};

enum { DN = 0, UP = 1 };
#define SCORE_EPS 1e-6

wbr *wbr_new(wa_arena *ar, int ncols, bool int_obj)
{
	wbr *b = wa_alloc(ar, sizeof *b);
	if (!b)
		return NULL;
	b->n = ncols;
	b->ar = ar;
	b->int_obj = int_obj;
	for (int d = 0; d < 2; d++) {
		b->sum[d] = wa_calloc(ar, ncols + 1, sizeof *b->sum[d]);
		b->cnt[d] = wa_calloc(ar, ncols + 1, sizeof *b->cnt[d]);
		if (!b->sum[d] || !b->cnt[d])
			return NULL;
	}
	b->cand = wa_calloc(ar, ncols + 1, sizeof *b->cand);
	b->key = wa_calloc(ar, ncols + 1, sizeof *b->key);
	b->ord = wa_calloc(ar, ncols + 1, sizeof *b->ord);
	b->cstat = wa_calloc(ar, ncols + 1, sizeof *b->cstat);
	if (!b->cand || !b->key || !b->ord || !b->cstat)
		return NULL;
	return b;
}

long wbr_strong_count(const wbr *b)
{
	return b ? b->nstrong : 0;
}

static void observe(wbr *b, int j, int d, double frac, double degrad)
{
	if (frac <= 1e-9)
		return;
	double psi = (degrad > 0 ? degrad : 0) / frac;
	b->sum[d][j] += psi;
	b->cnt[d][j]++;
	b->all_sum[d] += psi;
	b->all_cnt[d]++;
}

static double psi_of(const wbr *b, int j, int d)
{
	if (b->cnt[d][j])
		return b->sum[d][j] / b->cnt[d][j];
	return b->all_cnt[d] ? b->all_sum[d] / b->all_cnt[d] : 1.0;
}

static double score(double dn, double up)
{
	return (dn > SCORE_EPS ? dn : SCORE_EPS) *
	       (up > SCORE_EPS ? up : SCORE_EPS);
}

static wbr_node *node_of(glp_tree *T, int p)
{
	return p ? glp_ios_node_data(T, p) : NULL;
}

void wbr_solved(glp_tree *T, wbr *b)
{
	int p = glp_ios_curr_node(T);
	wbr_node *me = node_of(T, p);
	if (!me || me->seen)
		return;
	me->seen = 1;
	wbr_node *up = node_of(T, glp_ios_up_node(T, p));
	if (!up || up->j < 1 || up->j > b->n)
		return;
	glp_prob *P = glp_ios_get_prob(T);
	if (glp_get_status(P) != GLP_OPT)
		return;
	int j = up->j;
	double fl = floor(up->x);
	/* the child's bound on j says which side it is */
	bool down = glp_get_col_ub(P, j) <= fl + 0.5;
	observe(b, j, down ? DN : UP, down ? up->x - fl : fl + 1 - up->x,
		up->z - glp_get_obj_val(P));
}

/* The LP of Q with column j's bound moved to side d of x: 1 and its
 * objective in *z, 0 infeasible, -1 not known. */
static int strong(glp_prob *Q, int j, int d, double x, double *z)
{
	double lb = glp_get_col_lb(Q, j), ub = glp_get_col_ub(Q, j);
	double nlb = d == UP ? ceil(x) : lb, nub = d == DN ? floor(x) : ub;
	glp_set_col_bnds(Q, j, nlb == nub ? GLP_FX : GLP_DB, nlb, nub);
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.meth = GLP_DUAL;
	sp.it_lim = WBR_STRONG_ITERS;
	int rc = glp_simplex(Q, &sp), res = -1;
	if (rc == 0 || rc == GLP_EITLIM) {
		if (glp_get_prim_stat(Q) == GLP_NOFEAS)
			res = 0;
		else if (glp_get_dual_stat(Q) == GLP_FEAS) {
			*z = glp_get_obj_val(Q);
			res = 1;
		}
	}
	glp_set_col_bnds(Q, j, lb == ub ? GLP_FX : GLP_DB, lb, ub);
	return res;
}

/* Room for m rows' statuses (the arena's, grown by doubling). */
static bool ensure_rows(wbr *b, int m)
{
	if (m <= b->rcap)
		return true;
	int cap = b->rcap ? b->rcap : 64;
	while (cap < m)
		cap *= 2;
	int *r = wa_calloc(b->ar, cap + 1, sizeof *r);
	if (!r)
		return false;
	b->rstat = r;
	b->rcap = cap;
	return true;
}

static void restore_basis(glp_prob *Q, const wbr *b, int m)
{
	for (int i = 1; i <= m; i++)
		glp_set_row_stat(Q, i, b->rstat[i]);
	for (int j = 1; j <= b->n; j++)
		glp_set_col_stat(Q, j, b->cstat[j]);
}

static void branch_on(glp_tree *T, int j, int sel, double x, double z)
{
	wbr_node *me = node_of(T, glp_ios_curr_node(T));
	if (me) {
		me->j = j;
		me->x = x;
		me->z = z;
	}
	glp_ios_branch_upon(T, j, sel);
}

void wbr_branch(glp_tree *T, wbr *b, bool (*stop)(void *), void *ctx)
{
	glp_prob *P = glp_ios_get_prob(T);
	if (glp_get_status(P) != GLP_OPT || glp_get_num_cols(P) != b->n)
		return;
	double z0 = glp_get_obj_val(P);
	double cut = -DBL_MAX;
	if (glp_mip_status(P) == GLP_FEAS) {
		double inc = glp_mip_obj_val(P);
		cut = inc + (b->int_obj ? 1 - 1e-6 : 1e-9 * (1 + fabs(inc)));
	}
	/* the reliable candidates by their pseudo-costs; the others, by
	 * their estimates, are strong-branched below */
	int nu = 0, best = 0, sel = GLP_NO_BRNCH, any = 0, any_sel = 0;
	double best_s = -1, any_s = -1;
	for (int j = 1; j <= b->n; j++) {
		if (!glp_ios_can_branch(T, j))
			continue;
		double x = glp_get_col_prim(P, j), f = x - floor(x);
		double dd = f * psi_of(b, j, DN);
		double du = (1 - f) * psi_of(b, j, UP);
		double s = score(dd, du);
		int dir = dd <= du ? GLP_DN_BRNCH : GLP_UP_BRNCH;
		if (s > any_s) {
			any_s = s;
			any = j;
			any_sel = dir;
		}
		if (b->cnt[DN][j] >= WBR_RELIABLE &&
		    b->cnt[UP][j] >= WBR_RELIABLE) {
			if (s > best_s) {
				best_s = s;
				best = j;
				sel = dir;
			}
			continue;
		}
		/* estimate, then the more fractional first */
		b->key[j] = s + 1e-12 * (0.5 - fabs(f - 0.5));
		b->cand[nu++] = j;
	}
	if (!any)
		return;
	if (nu && ensure_rows(b, glp_get_num_rows(P))) {
		wis_sort(b->cand, b->ord, nu, wis_desc, b->key);
		int m = glp_get_num_rows(P);
		glp_prob *Q = glp_create_prob();
		glp_copy_prob(Q, P, GLP_OFF);
		for (int i = 1; i <= m; i++)
			b->rstat[i] = glp_get_row_stat(Q, i);
		for (int j = 1; j <= b->n; j++)
			b->cstat[j] = glp_get_col_stat(Q, j);
		int look = 0;
		for (int k = 0; k < nu && k < WBR_MAX_STRONG; k++) {
			if (stop && stop(ctx))
				break;
			int j = b->cand[k];
			double x = glp_get_col_prim(P, j), f = x - floor(x);
			double zd = 0, zu = 0;
			int rd = strong(Q, j, DN, x, &zd);
			restore_basis(Q, b, m);
			int ru = strong(Q, j, UP, x, &zu);
			restore_basis(Q, b, m);
			b->nstrong++;
			bool dead_d = rd == 0 || (rd == 1 && zd < cut);
			bool dead_u = ru == 0 || (ru == 1 && zu < cut);
			if (dead_d || dead_u) {
				glp_delete_prob(Q);
				branch_on(T, j,
					  dead_d ? GLP_UP_BRNCH : GLP_DN_BRNCH,
					  x, z0);
				return;
			}
			if (rd == 1)
				observe(b, j, DN, f, z0 - zd);
			if (ru == 1)
				observe(b, j, UP, 1 - f, z0 - zu);
			double dd = rd == 1 ? z0 - zd : f * psi_of(b, j, DN);
			double du = ru == 1 ? z0 - zu
					    : (1 - f) * psi_of(b, j, UP);
			double s = score(dd, du);
			if (s > best_s * (1 + 1e-9)) {
				best_s = s;
				best = j;
				sel = dd <= du ? GLP_DN_BRNCH : GLP_UP_BRNCH;
				look = 0;
			} else if (++look >= WBR_LOOKAHEAD)
				break;
		}
		glp_delete_prob(Q);
	}
	if (!best) {
		best = any;
		sel = any_sel;
	}
	branch_on(T, best, sel, glp_get_col_prim(P, best), z0);
}
