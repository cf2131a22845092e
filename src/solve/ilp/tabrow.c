/*
 * tabrow.c -- rows of the simplex tableau from a compressed copy of the
 * LP's rows (tabrow.h).
 */
#include "solve/ilp/tabrow.h"

#include <string.h>

bool wtr_init(wtr *t, wa_arena *ar, glp_prob *P, int rcap)
{
	int n = glp_get_num_cols(P);
	*t = (wtr){.ar = ar, .P = P, .n = n, .rcap = rcap, .rnz = 1};
	t->rbeg = wa_calloc(ar, (size_t)rcap + 2, sizeof *t->rbeg);
	t->rho = wa_calloc(ar, (size_t)rcap + 1, sizeof *t->rho);
	t->acc = wa_calloc(ar, (size_t)n + 1, sizeof *t->acc);
	t->tind = wa_calloc(ar, (size_t)n + 2, sizeof *t->tind);
	t->tval = wa_calloc(ar, (size_t)n + 2, sizeof *t->tval);
	t->xind = wa_calloc(ar, (size_t)n + 1, sizeof *t->xind);
	t->xval = wa_calloc(ar, (size_t)n + 1, sizeof *t->xval);
	if (!t->rbeg || !t->rho || !t->acc || !t->tind || !t->tval ||
	    !t->xind || !t->xval)
		return false;
	t->rbeg[1] = 1;
	return true;
}

bool wtr_push(wtr *t)
{
	int i = t->nrows + 1;
	if (i > t->rcap)
		return false;
	size_t need = t->rnz + (size_t)t->n + 1;
	if (need > t->rcapnz) {
		size_t cap = t->rcapnz ? t->rcapnz : 4096;
		while (cap < need)
			cap *= 2;
		int *ri = wa_calloc(t->ar, cap, sizeof *ri);
		double *rv = wa_calloc(t->ar, cap, sizeof *rv);
		if (!ri || !rv)
			return false;
		if (t->rind) {
			memcpy(ri, t->rind, t->rnz * sizeof *ri);
			memcpy(rv, t->rval, t->rnz * sizeof *rv);
		}
		t->rind = ri;
		t->rval = rv;
		t->rcapnz = cap;
	}
	/* glp_get_mat_row writes from index 1; rnz >= 1 always (slot 0 is
	 * never used) */
	t->rbeg[i] = (int)t->rnz;
	t->rnz += glp_get_mat_row(t->P, i, t->rind + t->rnz - 1,
				  t->rval + t->rnz - 1);
	t->rbeg[i + 1] = (int)t->rnz;
	t->nrows = i;
	return true;
}

bool wtr_push_to(wtr *t, int m)
{
	while (t->nrows < m)
		if (!wtr_push(t))
			return false;
	return true;
}

void wtr_keep(wtr *t, int m)
{
	if (m < t->nrows) {
		t->nrows = m < 0 ? 0 : m;
		t->rnz = (size_t)t->rbeg[t->nrows + 1];
	}
}

int wtr_get(const wtr *t, int i, const int **ind, const double **val)
{
	*ind = t->rind + t->rbeg[i];
	*val = t->rval + t->rbeg[i];
	return t->rbeg[i + 1] - t->rbeg[i];
}

/* rho = e_i B^-1 once, then rho times the rows it touches; the rows past
 * the copied ones (a search's cuts) are read from P. */
int wtr_tab(wtr *t, int j)
{
	glp_prob *P = t->P;
	int n = t->n, m = glp_get_num_rows(P), len = 0;
	if (m > t->rcap)
		return -1;
	for (int i = 1; i <= m; i++)
		t->rho[i] = 0;
	t->rho[glp_get_col_bind(P, j)] = 1;
	glp_btran(P, t->rho);
	memset(t->acc, 0, sizeof *t->acc * (n + 1));
	for (int i = 1; i <= m; i++) {
		double r = t->rho[i];
		if (r == 0)
			continue;
		const int *ind;
		const double *val;
		int l;
		if (i <= t->nrows) {
			l = wtr_get(t, i, &ind, &val);
		} else {
			l = glp_get_mat_row(P, i, t->xind, t->xval);
			ind = t->xind + 1;
			val = t->xval + 1;
		}
		for (int q = 0; q < l; q++)
			t->acc[ind[q]] += r * val[q];
		if (glp_get_row_stat(P, i) != GLP_BS) {
			t->tind[++len] = i;
			t->tval[len] = -r;
		}
	}
	for (int c = 1; c <= n; c++)
		if (t->acc[c] != 0 && glp_get_col_stat(P, c) != GLP_BS) {
			t->tind[++len] = m + c;
			t->tval[len] = t->acc[c];
		}
	return len;
}
