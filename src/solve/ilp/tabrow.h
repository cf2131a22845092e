/*
 * tabrow.h -- rows of the simplex tableau from wasp's own compressed
 * copy of an LP's rows (tabrow.c; doc/formulation.md §6b).
 *
 * glp_eval_tab_row computes a row of the tableau by walking GLPK's
 * column lists for every nonbasic column: on wasp's models that was most
 * of a Gomory round, and most of each node of GLPK's Driebeek-Tomlin
 * branching.  Here one BTRAN gives a row of the basis inverse, and its
 * product with the few rows it touches, read from a row-wise copy, gives
 * the tableau's row: the same numbers (to 1e-12), 10-50 times faster.
 * Used by the root's Gomory cuts (gomory.c) and by Driebeek-Tomlin
 * branching (dth.c).
 */
#ifndef WASP_ILP_TABROW_H
#define WASP_ILP_TABROW_H

#include <glpk.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

typedef struct wtr {
	wa_arena *ar;
	glp_prob *P;         /* the LP the rows are of                   */
	int n;               /* its columns                              */
	int rcap;            /* rows the arrays hold: 1..rcap            */
	int nrows;           /* rows copied: 1..nrows (P's later rows are
				read from P when a tableau row needs them) */
	int *rbeg;           /* rcap + 2: row i is rbeg[i]..rbeg[i+1]-1  */
	int *rind;           /* of rind/rval                              */
	double *rval;
	size_t rnz, rcapnz;
	double *rho;         /* rcap + 1: a row of the basis inverse     */
	double *acc;         /* n + 1: rho times the rows, by column     */
	int *tind;           /* n + 2: the tableau row, 1..len           */
	double *tval;
	int *xind;           /* n + 1: a row read from P                  */
	double *xval;
} wtr;

/* The arrays for P (n columns, at most rcap rows) in arena ar; no row
 * copied yet.  False: out of memory. */
bool wtr_init(wtr *t, wa_arena *ar, glp_prob *P, int rcap);

/* Copies P's row t->nrows + 1.  False: out of memory. */
bool wtr_push(wtr *t);

/* Copies P's rows up to m (m <= rcap), after any copied.  False: out of
 * memory. */
bool wtr_push_to(wtr *t, int m);

/* Forgets the copied rows past m (they were deleted or changed). */
void wtr_keep(wtr *t, int m);

/* Copied row i (1 <= i <= nrows): its length, columns and values. */
int wtr_get(const wtr *t, int i, const int **ind, const double **val);

/* The tableau's row of basic column j, as glp_eval_tab_row gives it
 * (x_j = sum alpha_k x_k over the nonbasic k: rows 1..m, then columns
 * m+1..m+n) into t->tind/t->tval[1..len]; P's basis factorization must
 * exist.  Returns len, or -1 when P has more rows than rcap. */
int wtr_tab(wtr *t, int j);

#endif
