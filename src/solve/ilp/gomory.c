/*
 * gomory.c -- Gomory mixed-integer cuts at the root with integer slacks
 * (gomory.h; doc/formulation.md §6b).
 *
 * A round: for the WGM_MAX_CUTS most fractional basic columns, the
 * simplex tableau's row gives x_k = beta + sum a_j y_j over the nonbasic
 * variables shifted to their active bound (y_j >= 0).  y_j is integer
 * when it is a column (all are) or a row with integer coefficients and
 * bounds over integer columns, and the mixed-integer rounding of the row
 * gives sum g_j y_j >= 1, written back in the columns.  A cut whose
 * coefficients are small rationals is scaled to integers and its
 * right-hand side rounded up, which makes its slack an integer for the
 * next round.  The dual simplex re-solves; cut rows gone slack are
 * deleted, as cbc does.  Everything is counted in rounds, never in time
 * (the deadline only cuts rounds short), so the cuts do not depend on
 * the load.
 */
#include "solve/ilp/gomory.h"
#include "solve/ilp/tabrow.h"

#include <math.h>
#include <string.h>

#include "base/error.h"
#include "base/sort.h"
#include "reduce/problem.h"

/* Columns tried: fractional part in [WGM_MIN_FRAC, 1 - WGM_MIN_FRAC]. */
#define WGM_MIN_FRAC 0.01
/* A cut coefficient below this (relative to the largest) is dropped,
 * the right-hand side relaxed by its largest contribution. */
#define WGM_TINY 1e-9

typedef struct wgm {
	wa_arena *ar;
	glp_prob *Q;        /* the copy the rounds run on                */
	int n, m0;          /* columns; the model's rows (cuts follow)   */
	int rcap;           /* rows the arrays hold                      */
	unsigned char *irow; /* rcap + 1: the row's slack is an integer  */
	wtr tr;             /* the rows, compressed (tabrow.h): the
			       model's once, the cuts' again each round  */
	double *d;          /* n + 1: the cut over the columns           */
	double *x;          /* n + 1: the LP point                       */
	int *cand, *tmp;    /* n + 1: candidate columns, sort space      */
	double *key;        /* n + 1: by column                          */
	int *cind;          /* WGM_MAX_CUTS * (n + 1): this round's cuts  */
	double *cval;
	int *clen;
	double *crhs;
	int ncut;
	int *buf;           /* rcap + 1: rows to delete                  */
} wgm;

static bool is_int(double v)
{
	return fabs(v - floor(v + 0.5)) <= 1e-9 * (1 + fabs(v));
}

static double frac(double v)
{
	return v - floor(v);
}

/* The least move of the bound that counts as a gain: half a unit when
 * the objective is integral at every plan, else 1e-6 relatively. */
static double gain_min(bool int_obj, double z)
{
	return int_obj ? 0.5 : 1e-6 * (1 + fabs(z));
}

/* Row i's slack is an integer: integer coefficients over integer
 * columns, and integer bounds. */
static bool row_int(const wgm *g, int i)
{
	glp_prob *Q = g->Q;
	int t = glp_get_row_type(Q, i);
	if ((t == GLP_LO || t == GLP_DB || t == GLP_FX) &&
	    !is_int(glp_get_row_lb(Q, i)))
		return false;
	if ((t == GLP_UP || t == GLP_DB) && !is_int(glp_get_row_ub(Q, i)))
		return false;
	const int *ind;
	const double *val;
	int len = wtr_get(&g->tr, i, &ind, &val);
	for (int k = 0; k < len; k++)
		if (!is_int(val[k]) || glp_get_col_kind(Q, ind[k]) == GLP_CV)
			return false;
	return true;
}

/* The denominator q <= WGM_MAX_DEN of v's continued-fraction
 * approximation within 1e-9 (0: none). */
static long denominator(double v)
{
	double x = fabs(v) - floor(fabs(v)), t = x;
	long p0 = 0, q0 = 1, p1 = 1, q1 = 0;
	for (int it = 0; it < 40; it++) {
		double a = floor(t);
		long p2 = (long)a * p1 + p0, q2 = (long)a * q1 + q0;
		if (q2 > WGM_MAX_DEN)
			return 0;
		p0 = p1, q0 = q1, p1 = p2, q1 = q2;
		if (fabs(x - (double)p1 / (double)q1) <= 1e-9)
			return q1;
		double f = t - a;
		if (f < 1e-12)
			return q1;
		t = 1 / f;
	}
	return 0;
}

/* The cut sum d x >= *r (every column integer) scaled to integers,
 * divided by their gcd, and *r rounded up: the left side is an integer
 * at every solution.  lhs: its value at the LP point, which must stay
 * violated.  False: not scaled. */
static bool to_integers(wgm *g, double *r, double lhs)
{
	int n = g->n;
	long mult = 1, gg = 0;
	for (int c = 1; c <= n; c++) {
		if (g->d[c] == 0)
			continue;
		long q = denominator(g->d[c]);
		if (q == 0)
			return false;
		mult = mult / (long)wp_gcd(mult, q) * q;
		if (mult > WGM_MAX_MULT)
			return false;
	}
	for (int c = 1; c <= n; c++) {
		if (g->d[c] == 0)
			continue;
		double v = g->d[c] * (double)mult, iv = floor(v + 0.5);
		if (fabs(v - iv) > 1e-7 || fabs(iv) > 1e9)
			return false;
		gg = (long)wp_gcd(gg, (long)iv);
	}
	if (gg <= 0)
		return false;
	double sc = (double)mult / (double)gg;
	double R = ceil(*r * sc - 1e-6);
	if (R - lhs * sc < 1e-6)
		return false;
	for (int c = 1; c <= n; c++)
		if (g->d[c] != 0)
			g->d[c] = floor(g->d[c] * sc + 0.5);
	*r = R;
	return true;
}

/* The cut from basic column j into g->d and *rhs, as sum d x >= rhs.
 * False when the row gives none that is safe and violated. */
static bool make_cut(wgm *g, int m, int j, double *rhs)
{
	glp_prob *Q = g->Q;
	int n = g->n;
	double f0 = frac(g->x[j]);
	int len = wtr_tab(&g->tr, j);
	if (len < 0)
		return false;
	memset(g->d, 0, sizeof *g->d * (n + 1));
	double r = 1;
	for (int t = 1; t <= len; t++) {
		int k = g->tr.tind[t];
		double alpha = g->tr.tval[t];
		bool row = k <= m;
		int st = row ? glp_get_row_stat(Q, k)
			     : glp_get_col_stat(Q, k - m);
		if (st == GLP_NS || fabs(alpha) < 1e-12)
			continue; /* fixed: y_j = 0 always */
		if (st != GLP_NL && st != GLP_NU)
			return false; /* free nonbasic: no bound to shift by */
		double bnd = st == GLP_NL
				 ? (row ? glp_get_row_lb(Q, k)
					: glp_get_col_lb(Q, k - m))
				 : (row ? glp_get_row_ub(Q, k)
					: glp_get_col_ub(Q, k - m));
		/* x_k = beta + sum a_j y_j with a_j = alpha (at the lower
		 * bound) or -alpha (upper); the textbook row is
		 * x_k - sum a_j y_j = beta */
		double abar = st == GLP_NL ? -alpha : alpha, gj;
		bool yint = (!row || g->irow[k]) && is_int(bnd);
		if (yint) {
			double fj = frac(abar);
			if (fj < 1e-12 || fj > 1 - 1e-12)
				continue;
			gj = fj <= f0 ? fj / f0 : (1 - fj) / (1 - f0);
		} else {
			gj = abar >= 0 ? abar / f0 : -abar / (1 - f0);
		}
		/* gj y_j with y_j = +-(v - bnd), v the row's or column's
		 * value */
		double s = st == GLP_NL ? gj : -gj;
		r += s * bnd;
		if (row) {
			const int *ri;
			const double *rv;
			int rl = wtr_get(&g->tr, k, &ri, &rv);
			for (int q = 0; q < rl; q++)
				g->d[ri[q]] += s * rv[q];
		} else {
			g->d[k - m] += s;
		}
	}
	double dmax = 0;
	for (int c = 1; c <= n; c++)
		dmax = fmax(dmax, fabs(g->d[c]));
	if (dmax == 0)
		return false;
	/* drop tiny coefficients, relaxing the right-hand side by the most
	 * they could add; then the range and the violation must be sane */
	double dmin = INFINITY, lhs = 0;
	for (int c = 1; c <= n; c++) {
		double v = g->d[c];
		if (v == 0)
			continue;
		if (fabs(v) < WGM_TINY * dmax) {
			r -= fmax(v * glp_get_col_lb(Q, c),
				  v * glp_get_col_ub(Q, c));
			g->d[c] = 0;
			continue;
		}
		dmin = fmin(dmin, fabs(v));
		lhs += v * g->x[c];
	}
	if (dmax > WGM_MAX_RANGE * dmin)
		return false;
	if (to_integers(g, &r, lhs)) {
		*rhs = r;
		return true;
	}
	/* otherwise scaled so that the largest coefficient is 1, with a
	 * hair of slack against rounding in the row's arithmetic */
	r /= dmax;
	lhs /= dmax;
	if (r - lhs < 1e-6 * (1 + fabs(r)))
		return false;
	for (int c = 1; c <= n; c++)
		g->d[c] /= dmax;
	*rhs = r - 1e-9 * (1 + fabs(r));
	return true;
}

/* This round's cuts into g->cind/cval (g->ncut of them); false when
 * out of memory. */
static bool gen_round(wgm *g)
{
	glp_prob *Q = g->Q;
	int n = g->n, nc = 0, m = glp_get_num_rows(Q);
	g->ncut = 0;
	/* the cut rows (their indices move as rows are deleted) */
	wtr_keep(&g->tr, g->m0);
	for (int i = g->m0 + 1; i <= m; i++) {
		if (!wtr_push(&g->tr))
			return false;
		g->irow[i] = row_int(g, i);
	}
	for (int j = 1; j <= n; j++) {
		g->x[j] = glp_get_col_prim(Q, j);
		double f = frac(g->x[j]);
		if (glp_get_col_stat(Q, j) != GLP_BS || f < WGM_MIN_FRAC ||
		    f > 1 - WGM_MIN_FRAC)
			continue;
		g->cand[nc++] = j;
		g->key[j] = fabs(f - 0.5); /* most fractional first */
	}
	wis_sort(g->cand, g->tmp, nc, wis_asc, g->key);
	for (int t = 0; t < nc && g->ncut < WGM_MAX_CUTS; t++) {
		double rhs;
		if (!make_cut(g, m, g->cand[t], &rhs))
			continue;
		int *ci = g->cind + (size_t)g->ncut * (n + 1);
		double *cv = g->cval + (size_t)g->ncut * (n + 1);
		int len = 0;
		for (int c = 1; c <= n; c++)
			if (g->d[c] != 0) {
				ci[++len] = c;
				cv[len] = g->d[c];
			}
		g->clen[g->ncut] = len;
		g->crhs[g->ncut] = rhs;
		g->ncut++;
	}
	return true;
}

/* Deletes Q's cut rows whose slack is basic: the basis stays valid. */
static void del_slack_cuts(wgm *g)
{
	glp_prob *Q = g->Q;
	int m = glp_get_num_rows(Q), nd = 0;
	for (int i = g->m0 + 1; i <= m; i++)
		if (glp_get_row_stat(Q, i) == GLP_BS)
			g->buf[++nd] = i;
	if (nd)
		glp_del_rows(Q, nd, g->buf);
}

static bool alloc(wgm *g, wa_arena *ar, glp_prob *Q, int n, int m0)
{
	*g = (wgm){.ar = ar, .Q = Q, .n = n, .m0 = m0};
	g->rcap = m0 + WGM_MAX_CUTS * 5 + 1;
	size_t cn = (size_t)WGM_MAX_CUTS * (n + 1);
	g->irow = wa_calloc(ar, g->rcap + 1, 1);
	g->buf = wa_calloc(ar, g->rcap + 1, sizeof *g->buf);
	g->d = wa_calloc(ar, n + 1, sizeof *g->d);
	g->x = wa_calloc(ar, n + 1, sizeof *g->x);
	g->cand = wa_calloc(ar, n + 1, sizeof *g->cand);
	g->tmp = wa_calloc(ar, n + 1, sizeof *g->tmp);
	g->key = wa_calloc(ar, n + 1, sizeof *g->key);
	g->cind = wa_calloc(ar, cn, sizeof *g->cind);
	g->cval = wa_calloc(ar, cn, sizeof *g->cval);
	g->clen = wa_calloc(ar, WGM_MAX_CUTS, sizeof *g->clen);
	g->crhs = wa_calloc(ar, WGM_MAX_CUTS, sizeof *g->crhs);
	return wtr_init(&g->tr, ar, Q, g->rcap) && g->irow && g->buf &&
	       g->d && g->x && g->cand && g->tmp && g->key &&
	       g->cind && g->cval && g->clen && g->crhs;
}

/* The rounds on g->Q; the objective they end at. */
static double rounds(wgm *g, bool int_obj, wgl_env *e, wb_deadline dl,
		     wgm_result *out)
{
	glp_prob *Q = g->Q;
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.meth = GLP_DUALP;
	double z = out->z0, least = gain_min(int_obj, z);
	int stall = 0;
	while (out->rounds < WGM_MAX_ROUNDS && stall < WGM_MAX_STALL &&
	       wdl_left(dl, 0) > 0) {
		if (!gen_round(g) || g->ncut == 0)
			break;
		/* rows in this round's tableau are gone from it now: delete
		 * the slack ones before adding (the arrays hold m0 plus five
		 * rounds' cuts) */
		del_slack_cuts(g);
		if (glp_get_num_rows(Q) + g->ncut > g->rcap)
			break;
		int i0 = glp_add_rows(Q, g->ncut);
		for (int c = 0; c < g->ncut; c++) {
			size_t o = (size_t)c * (g->n + 1);
			glp_set_mat_row(Q, i0 + c, g->clen[c], g->cind + o,
					g->cval + o);
			glp_set_row_bnds(Q, i0 + c, GLP_LO, g->crhs[c], 0);
		}
		out->added += g->ncut;
		out->rounds++;
		int rc = wgl_simplex(e, Q, &sp, dl);
		if (rc != 0 || glp_get_status(Q) != GLP_OPT)
			return out->z0; /* the last round is not a bound */
		double z1 = glp_get_obj_val(Q);
		stall = z - z1 < least ? stall + 1 : 0;
		z = z1 < z ? z1 : z;
	}
	return z;
}

int wgm_root(glp_prob *P, wa_arena *ar, double incumbent, bool int_obj,
	     double keep_share, wgl_env *e, wb_deadline dl, glp_prob **lp,
	     wgm_result *out)
{
	if (lp)
		*lp = NULL;
	int n = glp_get_num_cols(P), m0 = glp_get_num_rows(P);
	*out = (wgm_result){.z0 = glp_get_obj_val(P)};
	out->z1 = out->z0;
	wgm G;
	wgm *g = &G;
	glp_prob *C = glp_create_prob();
	glp_copy_prob(C, P, GLP_OFF);
	if (!alloc(g, ar, C, n, m0)) {
		glp_delete_prob(C);
		return WASP_ENOMEM;
	}
	for (int i = 1; i <= m0; i++) {
		if (!wtr_push(&g->tr)) {
			glp_delete_prob(g->Q);
			return WASP_ENOMEM;
		}
		g->irow[i] = row_int(g, i);
	}
	/* the copy has P's basis, not its factorization: one solve (no
	 * iteration) makes it */
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	double z = out->z0;
	if (wgl_simplex(e, g->Q, &sp, dl) == 0 &&
	    glp_get_status(g->Q) == GLP_OPT)
		z = rounds(g, int_obj, e, dl, out);
	out->z1 = z;
	double gain = out->z0 - z;
	double gap = isfinite(incumbent) ? out->z0 - incumbent : INFINITY;
	bool solved = glp_get_status(g->Q) == GLP_OPT;
	bool keep = solved && gain >= gain_min(int_obj, z) &&
		    (!isfinite(gap) || gain >= keep_share * gap);
	if (!keep) {
		if (lp && solved)
			*lp = g->Q;
		else
			glp_delete_prob(g->Q);
		return 0;
	}
	/* the cuts binding at the end go into P, which the dual simplex
	 * re-solves from its own optimal basis (the new rows basic) */
	glp_prob *Q = g->Q;
	int m = glp_get_num_rows(Q);
	for (int i = m0 + 1; i <= m; i++) {
		if (glp_get_row_stat(Q, i) == GLP_BS)
			continue;
		int len = glp_get_mat_row(Q, i, g->tr.xind, g->tr.xval);
		int k = glp_add_rows(P, 1);
		glp_set_mat_row(P, k, len, g->tr.xind, g->tr.xval);
		glp_set_row_bnds(P, k, GLP_LO, glp_get_row_lb(Q, i), 0);
		out->kept++;
	}
	if (lp)
		*lp = Q;
	else
		glp_delete_prob(Q);
	sp.meth = GLP_DUALP;
	int rc = wgl_simplex(e, P, &sp, wdl_none());
	if (rc == 0 && glp_get_status(P) == GLP_OPT)
		return 0;
	/* numerically lost: the model as it came, from a fresh basis */
	int nd = 0;
	for (int i = m0 + 1; i <= glp_get_num_rows(P); i++)
		g->buf[++nd] = i;
	if (nd)
		glp_del_rows(P, nd, g->buf);
	out->kept = 0;
	glp_adv_basis(P, 0);
	sp.meth = GLP_PRIMAL;
	rc = wgl_simplex(e, P, &sp, wdl_none());
	return rc == 0 && glp_get_status(P) == GLP_OPT ? 0 : WASP_ESOLVER;
}
