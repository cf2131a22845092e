/*
 * agg_glpk.c -- the part model solved with GLPK: node solutions as part
 * vectors, the part LP as a guide for the node model's rounding
 * (wilp_round), and the guarded branch and bound (doc/formulation.md §10).
 */
#include "solve/ilp/agg_int.h"
#include "solve/ilp/dth.h"

/* The part image of a node solution (its objective is the node model's
 * at s).  Returns false when s uses something the model has no column
 * for. */
bool wag_vec_of_sol(const ag *m, const wp_sol *s, double *v)
{
	const wp_problem *p = m->p;
	int NP = m->npart;
	memset(v, 0, sizeof *v * (m->ncols + 1));
	unsigned char *busy = calloc((size_t)p->nnodes + 1, 1);
	int *hdom = calloc((size_t)p->ncomps + 1, sizeof *hdom);
	if (!busy || !hdom) {
		free(busy);
		free(hdom);
		return false;
	}
	bool ok = true;
	for (int h = 0; h < p->ncomps; h++)
		hdom[h] = -1;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		const wp_group *g = &p->groups[cl->group];
		WP_X_EACH(s, cl, sl) {
			int x = wp_x(s, sl), n = cl->elig[sl - cl->off];
			int j = m->xcol[(size_t)c * NP + m->part[n]];
			if (!j) {
				ok = false;
				continue;
			}
			v[j] += x;
			busy[n] = 1;
			for (int h = g->pcomp - 1; h >= 0;
			     h = p->comps[h].parent)
				if (p->comps[h].key >= 0)
					hdom[h] = p->topo->keys[p->comps[h].key]
						      .node_dom[n];
			if (g->key < 0)
				continue;
			int d = p->topo->keys[g->key].node_dom[n];
			for (int i = 0; i < m->tn[cl->group]; i++)
				if (m->cdom[m->tbeg[cl->group] + i] == d)
					v[m->tbeg[cl->group] + i] = 1;
		}
	}
	for (int gi = 0; gi < p->ngroups; gi++) {
		if (!m->acol[gi])
			continue;
		long placed = 0;
		const wp_group *g = &p->groups[gi];
		for (int i = 0; i < g->nclasses; i++)
			placed += wp_x_placed(s, &p->classes[g->classes[i]]);
		v[m->acol[gi]] = placed > 0;
	}
	for (int h = 0; h < p->ncomps; h++) {
		bool on = wp_comp_admitted(p, s, h);
		v[m->hcol[h]] = on;
		for (int i = 0; on && i < m->hn[h]; i++)
			if (m->cdom[m->hbeg[h] + i] == hdom[h])
				v[m->hbeg[h] + i] = 1;
	}
	for (int n = 0; n < p->nnodes; n++)
		if (m->nu[n] && !busy[n])
			v[m->ucol[m->part[n]]] += 1;
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != AG_V)
			continue;
		const wtp_key *key = &p->topo->keys[m->cref[j]];
		int d = m->cdom[j];
		v[j] = 1;
		for (int i = 0; i < key->dom_nnodes[d]; i++)
			if (busy[key->dom_nodes[d][i]])
				v[j] = 0;
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		int kept = 0;
		for (int i = m->qc_beg[qc]; i < m->qc_beg[qc + 1]; i++)
			kept += !(s->evict && s->evict[m->qc_units[i]]);
		v[m->qcol[qc]] = kept;
	}
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u] && m->unit_qc[u] < 0)
			ok = false;
	free(busy);
	free(hdom);
	return ok;
}

double wag_obj_at(const ag *m, const double *v)
{
	long double z = 0;
	for (int j = 1; j <= m->ncols; j++)
		z += (long double)m->cobj[j] * v[j];
	return (double)z;
}

static void callback(glp_tree *T, void *info)
{
	wag_run *r = info;
	if (wgl_watch_step(T, &r->w))
		return;
	if (r->dth && glp_ios_reason(T) == GLP_IBRANCH)
		wdth_branch(T, r->dth);
}

/* The part LP as a guide for the node model's rounding: a part's pods
 * spread evenly over the nodes that fit them. */
static double gx(void *ctx, int s)
{
	const wag_run *r = ctx;
	const ag *m = r->m;
	const wp_problem *p = m->p;
	int c = wp_slot_class(p, s), n = p->classes[c].elig[s -
							    p->classes[c].off];
	size_t cp = (size_t)c * m->npart + m->part[n];
	int j = m->xcol[cp], k = m->xfit[cp];
	return j && k ? r->lp[j] / k : 0;
}

static double gadm(void *ctx, int g)
{
	const wag_run *r = ctx;
	return r->m->acol[g] ? r->lp[r->m->acol[g]] : 1;
}

/* The LP value of domain d's column among the n from beg (0: none). */
static double dom_lp(const wag_run *r, int beg, int n, int d)
{
	for (int i = 0; i < n; i++)
		if (r->m->cdom[beg + i] == d)
			return r->lp[beg + i];
	return 0;
}

static double gdom(void *ctx, int g, int d)
{
	const wag_run *r = ctx;
	return dom_lp(r, r->m->tbeg[g], r->m->tn[g], d);
}

static double gcomp(void *ctx, int h)
{
	const wag_run *r = ctx;
	return r->lp[r->m->hcol[h]];
}

static double gcdom(void *ctx, int h, int d)
{
	const wag_run *r = ctx;
	return dom_lp(r, r->m->hbeg[h], r->m->hn[h], d);
}

/* cur = cand when cur holds nothing yet (*got false) or cand is better. */
void wag_keep_better(const wp_problem *p, wp_sol *cur, bool *got,
		     const wp_sol *cand)
{
	wp_value vx, vc;
	wp_evaluate(p, cand, &vx);
	if (*got)
		wp_evaluate(p, cur, &vc);
	if (!*got || wp_value_cmp(&vx, &vc) > 0) {
		wp_sol_copy(p, cur, cand);
		*got = true;
	}
}

/* Solve the part model; best (ncols + 1) holds the warm vector when
 * have_best, and the best found on return. */
static int part_solve(wag_run *r, double *best, bool *have_best, bool *opt,
		      double *bound, wasp_error *err)
{
	const ag *m = r->m;
	glp_prob *P = r->env.P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	if (m->nrows)
		glp_add_rows(P, m->nrows);
	glp_add_cols(P, m->ncols);
	for (int i = 1; i <= m->nrows; i++) {
		if ((i & WGL_POLL_EVERY) == 0)
			wgl_poll(&r->env);
		glp_set_row_bnds(P, i, m->rtype[i], m->rlo[i], m->rhi[i]);
		glp_set_mat_row(P, i, m->rbeg[i + 1] - m->rbeg[i],
				m->ja + m->rbeg[i] - 1, m->av + m->rbeg[i] - 1);
	}
	for (int j = 1; j <= m->ncols; j++) {
		glp_set_col_kind(P, j, GLP_IV);
		glp_set_col_bnds(P, j, m->clb[j] == m->cub[j] ? GLP_FX : GLP_DB,
				 m->clb[j], m->cub[j]);
		glp_set_obj_coef(P, j, m->cobj[j]);
	}
	*opt = false;
	*bound = NAN;
	double left = wdl_left(r->w.deadline, 0);
	if (left <= 0.01)
		return WASP_OK;
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	double tlp = wb_now();
	int rc = wgl_simplex_retry(&r->env, P, &sp, r->w.deadline,
				   r->w.deadline);
	tlp = wb_now() - tlp;
	if (rc == GLP_ETMLIM)
		return WASP_OK;
	if (rc != 0 || glp_get_status(P) != GLP_OPT)
		return werr(err, WASP_ESOLVER,
			    "GLPK: part LP relaxation failed (simplex rc %d, "
			    "status %d)", rc, glp_get_status(P));
	for (int j = 1; j <= m->ncols; j++)
		r->lp[j] = glp_get_col_prim(P, j);
	r->lp_done = true;
	*bound = floor(glp_get_obj_val(P) + 1e-6);
	/* round the LP at node level (heur.c, by wilp_round): node solutions
	 * that need no splitting; the best also starts the search */
	wilp_guide g = {r, gx, gadm, gdom, gcomp, gcdom};
	int hr = wilp_round(m->p, &g, WAG_ROUND_PASSES, r->w.deadline, r->hsol);
	if (hr < 0)
		return werr(err, WASP_ENOMEM, "out of memory");
	const char *why = NULL;
	r->hfound = hr == 1 && wp_sol_feasible(m->p, r->hsol, &why) == 0;
	if (r->hfound) {
		double *hv = malloc(sizeof *hv * (m->ncols + 1));
		if (!hv)
			return werr(err, WASP_ENOMEM, "out of memory");
		if (wag_vec_of_sol(m, r->hsol, hv) &&
		    wm_check(&m->b, hv, 1e-9) == 0 &&
		    (!*have_best || wag_obj_at(m, hv) > wag_obj_at(m, best))) {
			memcpy(best, hv, sizeof *hv * (m->ncols + 1));
			*have_best = true;
		}
		free(hv);
	}
	glp_iocp ip;
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	/* depth first: its dives reach whole-tree placements far sooner
	 * than best-bound search (measured on the 256-node tree instances;
	 * the bound stays the root LP's either way within seconds).  The
	 * column: Driebeek-Tomlin on wasp's tableau rows (dth.h, below;
	 * doc/formulation.md §10), else the most fractional */
	ip.br_tech = GLP_BR_MFV;
	ip.bt_tech = GLP_BT_DFS;
	bool cuts = m->ncols <= WAG_CUTS_MAX_COLS;
	ip.gmi_cuts = ip.mir_cuts = ip.cov_cuts = ip.clq_cuts =
	    cuts ? GLP_ON : GLP_OFF;
	ip.mip_gap = r->o && r->o->gap > 0 ? r->o->gap : 0;
	double om = 0;
	for (int t = 0; t < m->ntier; t++)
		om += m->W[t] * m->tM[t];
	ip.tol_obj = 0.5 / (1 + om);
	if (ip.tol_obj > 1e-7)
		ip.tol_obj = 1e-7;
	left = wdl_left(r->w.deadline, 0);
	ip.tm_lim = left * 1000 > INT_MAX / 2 ? INT_MAX / 2
		    : left < 0.001	      ? 1
					      : (int)(left * 1000);
	ip.cb_func = callback;
	ip.cb_info = r;
	r->w.maxstep = tlp;
	r->w.last = wb_now();
	r->w.inject = *have_best ? best : NULL;
	r->w.int_obj = true; /* X, U, V, Q weights are integers */
	wdth dth;
	r->dth = m->ncols <= WILP_DTH_MAX_COLS && wdth_init(&dth, m->ar, P)
		     ? &dth
		     : NULL;
	rc = wgl_intopt(&r->env, P, &ip);
	r->dth = NULL;
	int st = glp_mip_status(P);
	if (rc != 0 && rc != GLP_ETMLIM && rc != GLP_EMIPGAP && rc != GLP_ESTOP)
		return werr(err, WASP_ESOLVER,
			    "GLPK: part branch-and-cut failed (rc %d)", rc);
	if (st != GLP_OPT && st != GLP_FEAS)
		return WASP_OK;
	double *v = malloc(sizeof *v * (m->ncols + 1));
	if (!v)
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int j = 1; j <= m->ncols; j++)
		v[j] = floor(glp_mip_col_val(P, j) + 0.5);
	v[0] = 0;
	if (wm_check(&m->b, v, 1e-9) == 0 &&
	    (!*have_best || wag_obj_at(m, v) >= wag_obj_at(m, best))) {
		memcpy(best, v, sizeof *v * (m->ncols + 1));
		*have_best = true;
	}
	free(v);
	*opt = (rc == 0 && st == GLP_OPT) || (rc == GLP_ESTOP && r->w.int_opt);
	if (*opt)
		*bound = wag_obj_at(m, best);
	else if (r->w.have_bound && r->w.bound < *bound)
		*bound = floor(r->w.bound + 1e-6);
	return WASP_OK;
}

int wag_guarded_part_solve(wag_run *r, double *best, bool *have_best,
			   bool *opt, double *bound, wasp_error *err)
{
	if (wgl_begin(&r->env, wilp_mem_mb(r->o, wa_used(r->m->ar))))
		return werr(err, WASP_ENOMEM, "out of memory starting GLPK");
	r->env.cancel = r->w.cancel;
	if (setjmp(r->env.jb)) {
		if (!r->env.cancelled)
			return wgl_fault(&r->env, err);
		/* a cancel inside the LP: *best stands, nothing proven */
		wgl_cancelled(&r->env);
		*opt = false;
		return WASP_OK;
	}
	int rc = part_solve(r, best, have_best, opt, bound, err);
	wgl_end(&r->env);
	return rc;
}
