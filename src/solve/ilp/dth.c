/*
 * dth.c -- Driebeek-Tomlin branching on wasp's own tableau rows (dth.h).
 *
 * The rule is GLPK's (glpios09.c, branch_drtom): for each fractional
 * column, the dual ratio test on its tableau row finds the nonbasic
 * variable that would enter if the column left the basis at its floor
 * (or ceiling), and that variable's reduced cost times its step bounds
 * what the branch loses (Tomlin: an integer entering column steps by a
 * whole unit at least).  The column whose dearer branch loses most is
 * branched on, its cheaper branch first; where no branch loses
 * anything, the most fractional column.
 */
#include "solve/ilp/dth.h"

#include <float.h>
#include <math.h>

bool wdth_init(wdth *d, wa_arena *ar, glp_prob *P)
{
	int m = glp_get_num_rows(P);
	*d = (wdth){.chosen = 0};
	return wtr_init(&d->tr, ar, P, m + WDTH_EXTRA_ROWS) &&
	       wtr_push_to(&d->tr, m);
}

/* What moving basic column x_j (value x, its tableau row in t) to its
 * floor (kase -1) or ceiling (+1) costs the objective of a maximisation
 * in one dual simplex step: >= 0, DBL_MAX when that side has no
 * solution. */
static double loss(glp_prob *P, const wtr *t, int len, double x, int kase)
{
	int m = glp_get_num_rows(P);
	int piv = glp_dual_rtest(P, len, t->tind, t->tval, kase, 1e-9);
	if (piv == 0)
		return DBL_MAX;
	int k = t->tind[piv];
	double dxk = ((kase < 0 ? floor(x) : ceil(x)) - x) / t->tval[piv];
	if (k > m && glp_get_col_kind(P, k - m) != GLP_CV &&
	    fabs(dxk - floor(dxk + 0.5)) > 1e-3)
		dxk = dxk > 0 ? ceil(dxk) : floor(dxk);
	bool row = k <= m;
	int st = row ? glp_get_row_stat(P, k) : glp_get_col_stat(P, k - m);
	double rc = row ? glp_get_row_dual(P, k) : glp_get_col_dual(P, k - m);
	/* the basis is dual degenerate: a reduced cost near zero of the
	 * wrong sign is round-off */
	if ((st == GLP_NL && rc > 0) || (st == GLP_NU && rc < 0) ||
	    st == GLP_NF)
		rc = 0;
	double dz = rc * dxk;
	return dz < 0 ? -dz : 0;
}

static int most_fractional(glp_tree *T, glp_prob *P, int n, int *next)
{
	int jj = 0;
	double most = DBL_MAX;
	for (int j = 1; j <= n; j++) {
		if (!glp_ios_can_branch(T, j))
			continue;
		double x = glp_get_col_prim(P, j), d = x - floor(x) - 0.5;
		if (fabs(d) < most) {
			jj = j;
			most = fabs(d);
			*next = d < 0 ? GLP_DN_BRNCH : GLP_UP_BRNCH;
		}
	}
	return jj;
}

void wdth_branch(glp_tree *T, wdth *d)
{
	glp_prob *P = glp_ios_get_prob(T);
	wtr *t = &d->tr;
	if (P != t->P || glp_get_obj_dir(P) != GLP_MAX ||
	    glp_get_status(P) != GLP_OPT || glp_get_dual_stat(P) != GLP_FEAS ||
	    !glp_bf_exists(P) || glp_get_num_rows(P) > t->rcap)
		return;
	int n = t->n, jj = 0, next = GLP_NO_BRNCH;
	double worst = -1;
	for (int j = 1; j <= n; j++) {
		if (!glp_ios_can_branch(T, j) ||
		    glp_get_col_stat(P, j) != GLP_BS)
			continue;
		double x = glp_get_col_prim(P, j);
		int len = wtr_tab(t, j);
		if (len < 0)
			return;
		double dn = loss(P, t, len, x, -1), up = loss(P, t, len, x, +1);
		if (dn > worst || up > worst) {
			jj = j;
			next = dn < up ? GLP_DN_BRNCH : GLP_UP_BRNCH;
			worst = dn < up ? up : dn;
			if (worst == DBL_MAX)
				break; /* one side is empty: nothing beats it */
		}
	}
	if (jj == 0)
		return;
	if (worst < 1e-6 * (1 + 0.001 * fabs(glp_get_obj_val(P))))
		jj = most_fractional(T, P, n, &next);
	if (jj == 0)
		return;
	glp_ios_branch_upon(T, jj, next);
	d->chosen++;
}
