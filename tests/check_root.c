/*
 * check_root.c -- the root's own work and wasp's tableau rows
 * (src/solve/ilp/gomory.c, dive.c, tabrow.c, dth.c).
 *
 * Proof obligations: a tableau row from wasp's compressed rows equals
 * GLPK's glp_eval_tab_row, rows the search adds included; the root's
 * Gomory cuts never cut off the optimum, and on the bench's nvlink-72
 * they close the root to it and the dive finds the plan.  Every plan
 * passes the verifier.  (That wasp's Driebeek-Tomlin rule proves the
 * same optima as GLPK's is in check_ilp.c, reliability_same_optimum.)
 */
#define _POSIX_C_SOURCE 200809L

#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "solve/ilp/ilp.h"
#include "solve/ilp/tabrow.h"

/* A random LP: m rows of small integer coefficients over n columns in
 * [0, 3], "<=" rows, a maximisation. */
static glp_prob *random_lp(unsigned seed, int m, int n)
{
	glp_prob *P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	glp_add_rows(P, m);
	glp_add_cols(P, n);
	srand(seed);
	for (int j = 1; j <= n; j++) {
		glp_set_col_bnds(P, j, GLP_DB, 0, 3);
		glp_set_obj_coef(P, j, 1 + rand() % 9);
	}
	int *ind = calloc((size_t)n + 1, sizeof *ind);
	double *val = calloc((size_t)n + 1, sizeof *val);
	for (int i = 1; i <= m; i++) {
		int len = 0;
		for (int j = 1; j <= n; j++)
			if (rand() % 3 == 0) {
				ind[++len] = j;
				val[len] = 1 + rand() % 5;
			}
		glp_set_mat_row(P, i, len, ind, val);
		glp_set_row_bnds(P, i, GLP_UP, 0, 4 + rand() % 7);
	}
	free(ind);
	free(val);
	return P;
}

static void solve_lp(glp_prob *P)
{
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	ck_assert_int_eq(glp_simplex(P, &sp), 0);
	ck_assert_int_eq(glp_get_status(P), GLP_OPT);
}

/* Every basic column's tableau row: wtr_tab's and GLPK's, the same
 * entries to 1e-9.  Returns the rows compared. */
static int compare_rows(wtr *t, glp_prob *P)
{
	int m = glp_get_num_rows(P), n = glp_get_num_cols(P), rows = 0;
	int *ind = calloc((size_t)m + n + 1, sizeof *ind);
	double *val = calloc((size_t)m + n + 1, sizeof *val);
	double *dense = calloc((size_t)m + n + 1, sizeof *dense);
	for (int j = 1; j <= n; j++) {
		if (glp_get_col_stat(P, j) != GLP_BS)
			continue;
		int len = wtr_tab(t, j);
		ck_assert_int_ge(len, 0);
		int glen = glp_eval_tab_row(P, m + j, ind, val);
		for (int q = 1; q <= glen; q++)
			dense[ind[q]] = val[q];
		for (int q = 1; q <= len; q++) {
			int k = t->tind[q];
			ck_assert_int_ge(k, 1);
			ck_assert_int_le(k, m + n);
			ck_assert_msg(fabs(dense[k] - t->tval[q]) <= 1e-9,
				      "column %d, entry %d: %g against "
				      "GLPK's %g", j, k, t->tval[q], dense[k]);
			dense[k] = 0;
		}
		/* nothing GLPK has that wasp's row lacks */
		for (int k = 1; k <= m + n; k++) {
			ck_assert_msg(fabs(dense[k]) <= 1e-9,
				      "column %d: entry %d missing", j, k);
			dense[k] = 0;
		}
		rows++;
	}
	free(ind);
	free(val);
	free(dense);
	return rows;
}

/* The tableau rows from the compressed copy equal glp_eval_tab_row's,
 * on the rows copied and on rows added to P after (as a search adds
 * cuts); with more rows than the arrays hold, wtr_tab declines. */
START_TEST(tab_rows_match)
{
	int compared = 0;
	for (unsigned seed = 1; seed <= 6; seed++) {
		glp_prob *P = random_lp(seed, 12, 20);
		solve_lp(P);
		wa_arena *ar = wa_new();
		wtr t;
		int m0 = glp_get_num_rows(P);
		ck_assert(wtr_init(&t, ar, P, m0 + 3));
		ck_assert(wtr_push_to(&t, m0));
		ck_assert_int_eq(t.nrows, m0);
		compared += compare_rows(&t, P);
		/* three rows more, read from P, not copied */
		double val[4] = {0, 1, 1, 1};
		int i0 = glp_add_rows(P, 3);
		for (int k = 0; k < 3; k++) {
			int ind[4] = {0, 1 + k, 4 + k, 7 + k};
			glp_set_mat_row(P, i0 + k, 3, ind, val);
			glp_set_row_bnds(P, i0 + k, GLP_UP, 0, 2 + k);
		}
		solve_lp(P);
		compared += compare_rows(&t, P);
		/* forgetting copied rows and copying them again is the
		 * same */
		wtr_keep(&t, m0 - 2);
		ck_assert(wtr_push_to(&t, m0 + 3));
		compared += compare_rows(&t, P);
		/* one row past what the arrays hold */
		glp_add_rows(P, 1);
		glp_set_row_bnds(P, m0 + 4, GLP_FR, 0, 0);
		solve_lp(P);
		for (int j = 1; j <= glp_get_num_cols(P); j++)
			if (glp_get_col_stat(P, j) == GLP_BS) {
				ck_assert_int_eq(wtr_tab(&t, j), -1);
				break;
			}
		glp_delete_prob(P);
		wa_destroy(ar);
	}
	ck_assert_int_gt(compared, 30);
}
END_TEST

/* One tuned solve of a generated instance, no deadline: proven, and
 * its plan passes the verifier. */
static void root_solve(tu_inst *in, wp_sol *out, wilp_tune *t,
		       wilp_stats *st, const char *label)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wilp_solve_tuned(in->p, &in->o, wdl_none(), in->greedy, out,
				  st, t, &e);
	ck_assert_msg(rc == WASP_OK, "%s: %s", label, e.msg);
	ck_assert_msg(st->gap == 0, "%s: not proven", label);
	tu_sol_verified(in->snap, in->p, out, in->greedy, label);
}

/* `wasp gen` words args, solved without the root's cuts and dive (s0)
 * and with them (t1, s1): both proven, the same tiers. */
static void root_pair(tu_inst *in, const char *args, const char *label,
		      wilp_tune *t1, wilp_stats *s0, wilp_stats *s1)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	tu_gen_args(&g, args);
	tu_inst_gen(in, &g);
	wp_sol *off = wp_sol_new(in->p, in->a), *on = wp_sol_new(in->p, in->a);
	wilp_tune t0;
	wilp_tune_init(&t0);
	wilp_tune_init(t1);
	t0.root_cuts = 0;
	root_solve(in, off, &t0, s0, label);
	ck_assert_int_eq(t0.out_root_rounds, 0);
	root_solve(in, on, t1, s1, label);
	ck_assert_double_eq_tol(s1->objective, s0->objective, 0.5);
	wp_value v0, v1;
	wp_evaluate(in->p, off, &v0);
	wp_evaluate(in->p, on, &v1);
	ck_assert_msg(wp_value_cmp(&v0, &v1) == 0, "%s: tiers differ", label);
}

/* The root's Gomory cuts never cut off the optimum: over small
 * instances of the four bench families, the root bound after the
 * rounds is at least the optimum that the solve without them proves
 * (and mostly equal to it), the two solves prove the same tiers, and
 * every plan passes the verifier.  (A cut made one unit too strong
 * fails this: the rounds then end on an infeasible LP, and nothing is
 * kept or found.) */
START_TEST(root_cuts_valid)
{
	static const char *const fam[] = {"gpu", "nvlink", "fragmented",
					  "mixed"};
	int ran = 0, closed = 0, kept = 0, dived = 0;
	for (int k = 0; k < 16; k++) {
		char args[160], label[64];
		snprintf(args, sizeof args,
			 "seed %d family %s levels 2 fanout 2 nodes %d "
			 "gangs 6 max-gang 8 priorities 3",
			 100 + k, fam[k % 4], k % 4 == 1 ? 18 : 16);
		snprintf(label, sizeof label, "%s seed %d", fam[k % 4],
			 100 + k);
		tu_inst in;
		wilp_tune t1;
		wilp_stats s0, s1;
		root_pair(&in, args, label, &t1, &s0, &s1);
		if (t1.out_root_rounds > 0) {
			ran++;
			ck_assert_msg(t1.out_root_bound >= s0.objective - 0.5,
				      "%s: the cuts' bound %.1f is below the "
				      "optimum %.1f", label,
				      t1.out_root_bound, s0.objective);
			closed += t1.out_root_bound < s0.objective + 0.5;
		}
		kept += t1.out_root_kept > 0;
		dived += t1.out_root_dive;
		tu_inst_free(&in);
	}
	/* the rounds ran, mostly closing the root to the optimum (12 of
	 * 16 when written), the cuts stayed in the model somewhere and the
	 * dive found the incumbent somewhere else */
	ck_assert_int_gt(ran, 8);
	ck_assert_int_ge(closed, 8);
	ck_assert_int_gt(kept, 0);
	ck_assert_int_gt(dived, 0);
}
END_TEST

/* On the bench's nvlink-72 the rounds take the root bound to the
 * optimum (as cbc's Gomory cuts do; the LP alone is 1,321 units above
 * it), the dive finds the optimal plan at the root, and the search has
 * nothing left to do: the optimum is the one the solve without them
 * proves. */
START_TEST(root_cuts_nvlink72)
{
	tu_inst in;
	wilp_tune t1;
	wilp_stats s0, s1;
	root_pair(&in,
		  "seed 11 family nvlink levels 2 fanout 4 nodes 72 gangs 18 "
		  "max-gang 16 priorities 3",
		  "nvlink-72", &t1, &s0, &s1);
	ck_assert_int_gt(t1.out_root_rounds, 0);
	ck_assert_double_eq_tol(t1.out_root_bound, s0.objective, 0.5);
	ck_assert(t1.out_root_dive);
	ck_assert_str_eq(s1.status, "optimal");
	tu_inst_free(&in);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("root");
	TCase *tc = tcase_create("root");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tab_rows_match);
	tcase_add_test(tc, root_cuts_valid);
	tcase_add_test(tc, root_cuts_nvlink72);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
