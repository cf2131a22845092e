/*
 * dive.c -- a plan from the root's cut LP: dive, then complete (dive.h;
 * doc/formulation.md §6b).
 *
 * Each step moves one bound and re-solves by the dual simplex from the
 * last basis, so it costs a few iterations.  Everything is counted in
 * steps, iterations and nodes, never in time: the deadline only cuts the
 * work short, so the plan found does not depend on the load.
 */
#include "solve/ilp/dive.h"
#include "solve/ilp/dth.h"

#include <math.h>

/* A column is integral within this. */
#define WDI_INT_TOL 1e-6

/* z beats cutoff (NAN: anything does); by a whole unit when int_obj. */
static bool beats(double z, double cutoff, bool int_obj)
{
	return isnan(cutoff) ||
	       (int_obj ? z >= cutoff + 1 - 1e-6 : z > cutoff);
}

/* Q's LP is solved and can still beat cutoff. */
static bool lp_ok(glp_prob *Q, double cutoff, bool int_obj)
{
	return glp_get_status(Q) == GLP_OPT &&
	       beats(glp_get_obj_val(Q), cutoff, int_obj);
}

static int resolve(glp_prob *Q, wgl_env *e, wb_deadline dl)
{
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.meth = GLP_DUALP;
	sp.it_lim = WDI_STEP_ITERS;
	return wgl_simplex(e, Q, &sp, dl);
}

/* Column j (bounds lb, ub) to the side of v: up (>= ceil v) or down
 * (<= floor v). */
static void bound_to(glp_prob *Q, int j, double v, bool up, double lb,
		     double ub)
{
	double nl = up ? ceil(v) : lb, nu = up ? ub : floor(v);
	glp_set_col_bnds(Q, j, nl == nu ? GLP_FX : GLP_DB, nl, nu);
}

bool wdi_dive(glp_prob *Q, const unsigned char *pick, double cutoff,
	      bool int_obj, wgl_env *e, wb_deadline dl)
{
	int n = glp_get_num_cols(Q);
	for (int step = 0; step < WDI_MAX_STEPS; step++) {
		if (!lp_ok(Q, cutoff, int_obj) || wdl_left(dl, 0) <= 0)
			return false;
		/* the picked column nearest to its ceiling (ties: the
		 * first) */
		int best = 0;
		double bf = -1;
		for (int j = 1; j <= n; j++) {
			if (!pick[j])
				continue;
			double v = glp_get_col_prim(Q, j), f = v - floor(v);
			if (f > WDI_INT_TOL && f < 1 - WDI_INT_TOL && f > bf) {
				bf = f;
				best = j;
			}
		}
		if (!best)
			return true;
		double v = glp_get_col_prim(Q, best);
		double lb = glp_get_col_lb(Q, best);
		double ub = glp_get_col_ub(Q, best);
		bound_to(Q, best, v, true, lb, ub);
		int rc = resolve(Q, e, dl);
		if (rc == 0 && !lp_ok(Q, cutoff, int_obj)) {
			bound_to(Q, best, v, false, lb, ub);
			rc = resolve(Q, e, dl);
		}
		if (rc != 0)
			return false;
	}
	return false;
}

typedef struct complete_cb {
	wb_deadline dl;
	volatile const int *cancel;
	wdth *dth;      /* NULL: GLPK's own Driebeek-Tomlin rule */
} complete_cb;

static void complete_callback(glp_tree *T, void *info)
{
	const complete_cb *c = info;
	int nodes = 0;
	glp_ios_tree_size(T, NULL, NULL, &nodes);
	if (nodes > WDI_COMPLETE_NODES || wdl_left(c->dl, 0) <= 0 ||
	    (c->cancel && *c->cancel)) {
		glp_ios_terminate(T);
		return;
	}
	if (c->dth && glp_ios_reason(T) == GLP_IBRANCH)
		wdth_branch(T, c->dth);
}

bool wdi_complete(glp_prob *Q, const unsigned char *pick, double cutoff,
		  bool int_obj, wa_arena *ar, wgl_env *e, wb_deadline dl,
		  double *x)
{
	int n = glp_get_num_cols(Q);
	for (int j = 1; j <= n; j++)
		if (pick[j]) {
			double v = floor(glp_get_col_prim(Q, j) + 0.5);
			glp_set_col_bnds(Q, j, GLP_FX, v, v);
		}
	if (resolve(Q, e, dl) != 0 || !lp_ok(Q, cutoff, int_obj))
		return false;
	wdth d;
	complete_cb c = {dl, e->cancel,
			 ar && wdth_init(&d, ar, Q) ? &d : NULL};
	glp_iocp ip;
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	ip.presolve = GLP_OFF;
	/* depth first: a plan soon, not a proof */
	ip.br_tech = GLP_BR_DTH;
	ip.bt_tech = GLP_BT_DFS;
	ip.cb_func = complete_callback;
	ip.cb_info = &c;
	wgl_intopt(e, Q, &ip);
	int st = glp_mip_status(Q);
	if (st != GLP_OPT && st != GLP_FEAS)
		return false;
	if (!beats(glp_mip_obj_val(Q), cutoff, int_obj))
		return false;
	for (int j = 1; j <= n; j++)
		x[j] = floor(glp_mip_col_val(Q, j) + 0.5);
	return true;
}
