/*
 * solve.c -- the ILP's public entry points (ilp.h; doc/formulation.md
 * §6): estimate, solve (warm start, answer, statistics) and the
 * rounding of a part model's LP.
 */
#include "solve/ilp/ilp_int.h"

void wilp_estimate(const wp_problem *p, int *rows, int *cols, long *nonzeros)
{
	long r = 0, c = p->nx, nz = 0;
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (g->gang)
			c++, r++;
		if (g->key >= 0 && p->topo) {
			int nd = p->topo->keys[g->key].ndom;
			c += nd;
			r += 1 + nd;
			nz += 2L * nd;
		}
	}
	/* trees (§9): a[h], t[h,d] and a tdom row per group and domain */
	for (int h = 0; h < p->ncomps; h++) {
		const wp_comp *hc = &p->comps[h];
		c++, r += 2;
		if (hc->key >= 0 && p->topo) {
			int nd = p->topo->keys[hc->key].ndom;
			c += nd;
			r += 1 + (long)nd * hc->nkids;
			nz += 2L * nd * hc->nkids;
		}
	}
	r += p->nclasses;
	c += p->nnodes;
	r += (long)p->nnodes * (p->nres > 3 ? 3 : p->nres);
	nz += (long)p->nx * (3 + (p->nres > 3 ? 3 : p->nres)) + p->nnodes;
	/* preemption: at most one keep column per running unit some
	 * pending group outranks, in a few capacity rows each */
	int32_t top = p->ngroups ? p->groups[0].priority : INT32_MIN;
	for (int u = 0; u < p->nunits; u++)
		if (p->units[u].priority < top) {
			c++;
			nz += 3;
		}
	/* moves (§4c): a y column per move class and node, in a move
	 * row and a few capacity rows */
	for (int i = 0; i < p->nmcls; i++) {
		c += p->mcls[i].nelig;
		r++;
		nz += 4L * p->mcls[i].nelig;
	}
	wilp_dv_estimate(p, &r, &c, &nz);
	*rows = r > INT_MAX ? INT_MAX : (int)r;
	*cols = c > INT_MAX ? INT_MAX : (int)c;
	*nonzeros = nz;
}

static const char *const WAIT_ILP =
    "the ILP found no placement that admits this gang together with "
    "higher-priority work";

/* Admission and reasons from the x counts in out. */
static void fill_admission(const wm *m, const wp_sol *warm, wp_sol *out)
{
	const wp_problem *p = m->p;
	unsigned char *at0 = calloc((size_t)p->ngroups + 1, 1);
	for (int g = 0; at0 && g < p->ngroups; g++)
		at0[g] = m->acol[g] != 0;
	wp_fill_admission(p, at0, warm, out); /* NULL: none at minCount */
	free(at0);
}

static void stats_model(const wm *m, wilp_stats *st)
{
	st->rows = m->nrows;
	st->cols = m->ncols;
	st->ints = m->ncols;
	st->nonzeros = m->nnz;
}

void wilp_tune_init(wilp_tune *t)
{
	memset(t, 0, sizeof *t);
	t->cuts = -1;
	t->max_coef = 0;
	t->symmetry = -1;
	t->heuristic = -1;
	t->root_cuts = -1;
	t->no_dth = false;
}

int wilp_solve(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	       const wp_sol *warm, wp_sol *out, wilp_stats *st,
	       wasp_error *err)
{
	return wilp_solve_tuned(p, o, dl, warm, out, st, NULL, err);
}

/* The single objective at x counts per slot, computed from the problem
 * (so it also works for a warm start that the model cannot express). */
static double obj_of_x(const wm *m, const int *x,
		       const unsigned char *evict)
{
	const wp_problem *p = m->p;
	int64_t vg = wilp_value_gcd(p);
	long double z = 0;
	int nt = m->ntier - 1;
	unsigned char *busy = calloc((size_t)p->nnodes + 1, 1);
	if (!busy)
		return NAN;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		int t = 0;
		while (t < m->nprio_t &&
		       m->tprio[t] != p->groups[cl->group].priority)
			t++;
		for (int k = 0; k < cl->nelig; k++) {
			if (!x[cl->off + k])
				continue;
			busy[cl->elig[k]] = 1;
			z += (long double)m->wfull[t] *
			     wilp_class_value(p, c, vg) * x[cl->off + k];
		}
	}
	for (int n = 0; n < p->nnodes; n++)
		if (m->ucol[n] && !busy[n])
			z += m->wfull[nt];
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_P && wilp_pk_free(m, j, busy))
			z += m->wfull[nt];
	for (int j = 0; m->btier >= 0 && j < p->snap->npdbs; j++) {
		if (!m->wcol[j])
			continue;
		long ev = 0;
		for (int u = 0; evict && u < p->nunits; u++) {
			const wp_unit *un = &p->units[u];
			for (int i = 0; evict[u] && i < un->npdb; i++)
				if (un->pdb[i] == j)
					ev += un->pdbn[i];
		}
		long viol = ev - p->pdb_allowed[j];
		z += (long double)m->wfull[m->btier] *
		     (m->wV[j] - (viol > 0 ? viol : 0));
	}
	for (int qc = 0; m->qtier >= 0 && qc < m->nqc; qc++) {
		int kept = 0;
		for (int i = m->qc_beg[qc]; i < m->qc_beg[qc + 1]; i++)
			kept += !(evict && evict[m->qc_units[i]]);
		z += (long double)m->wfull[m->qtier] * wilp_q_cost(m, qc) * kept;
	}
	/* compactness tiers: preferred-level domains left unused */
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_W && wilp_w_unused(m, x, j))
			z += m->wfull[m->ctier[j]];
	free(busy);
	return (double)z;
}

/* The first incumbent in best: warm when it is feasible for the problem
 * and, after the symmetry permutation, for every row; else all zero
 * (always feasible: u = 1 where it exists).  1: warm, 0: all zero,
 * -1: NOMEM.  xw: nx + 1 ints of scratch. */
int wilp_warm_vec(wm *m, const wp_sol *warm, int *xw, double *best)
{
	const wp_problem *p = m->p;
	const char *why = NULL;
	bool warm_ok = warm && wp_sol_feasible(p, warm, &why) == 0;
	if (warm_ok)
		wp_x_to_dense(p, warm, xw);
	for (int s = 0; warm_ok && s < p->nx; s++)
		if (xw[s] && !m->xcol[s])
			warm_ok = false; /* outside the model: a bug */
	if (warm_ok && wilp_sym_permute(m, xw))
		return -1;
	if (warm_ok) {
		m->dv_vdra = warm->dra; /* its devices give y (DRA) */
		wilp_vec_from_x(m, xw, best);
		m->dv_vdra = NULL;
		/* its evictions, when every one is in an eviction class */
		for (int u = 0; warm_ok && warm->evict && u < p->nunits; u++) {
			if (!warm->evict[u])
				continue;
			if (m->unit_qc[u] < 0)
				warm_ok = false;
			else
				best[m->qcol[m->unit_qc[u]]] -= 1;
		}
		wilp_w_from_q(m, best);
		wilp_f_from_q(m, best);
		warm_ok = warm_ok && wilp_y_from_sol(m, warm, best);
		warm_ok = warm_ok && wm_check(&m->b, best, 0) == 0;
	}
	if (!warm_ok) {
		memset(xw, 0, sizeof *xw * (p->nx + 1));
		wilp_vec_from_x(m, xw, best);
	}
	return warm_ok;
}

/* The answer's objective, bound and gap in units of the single objective
 * (done: every block proven). */
static void answer_stats(const wm *m, const solve_state *S, bool done,
			 const wp_sol *out, wilp_stats *st)
{
	st->objective = wilp_answer_obj(m, out);
	/* bound and gap in units of the single objective */
	if (done) {
		st->bound = st->objective;
		st->gap = 0;
	} else if (m->nblock == 1 && S->blocks_done == 1) {
		st->bound = S->bound0 > st->objective ? S->bound0
						      : st->objective;
		st->gap = (st->bound - st->objective) /
			  (fabs(st->objective) > 1e-9 ? fabs(st->objective)
						      : 1e-9);
	} else if (m->nblock > 1 && S->blocks_done >= 1 && S->have_best &&
		   !isnan(S->bound0)) {
		/* Tier blocks: no bound exists in the units of the single
		 * objective, but the first block holds the highest tiers, and
		 * its relative gap is what a person wants to know.  The bound
		 * stays unknown (NAN); doc/formulation.md says so. */
		double z0 = (double)wilp_obj_at(m, 0, S->best);
		st->top_gap = S->bound0 > z0 ? (S->bound0 - z0) /
				  (fabs(z0) > 1e-9 ? fabs(z0) : 1e-9)
					     : 0;
		st->gap = st->top_gap;
	}
}

/* The answer in out from the column vector v (have: v met every row):
 * x, admission, evictions, moves and, DRA, its devices.  Returns whether
 * it is feasible for the problem; when not, out is the empty plan. */
bool wilp_read_answer(const wm *m, const double *v, bool have,
		      const wp_sol *warm, wp_sol *out)
{
	const wp_problem *p = m->p;
	wp_x_clear(out);
	for (int s = 0; s < p->nx; s++)
		if (m->xcol[s] && (int)v[m->xcol[s]])
			wp_x_set(out, s, (int)v[m->xcol[s]]);
	fill_admission(m, warm, out);
	wilp_fill_evictions(m, v, out);
	wilp_fill_moves(m, v, out);
	const char *why = NULL;
	bool ok = have && wp_sol_feasible(p, out, &why) == 0;
	if (!ok) {
		/* cannot happen with every row checked; stay safe */
		wp_x_clear(out);
		fill_admission(m, warm, out);
		wp_sol_no_disruption(p, out);
	}
	/* DRA: the devices of the answer, exact when the model is (NULL:
	 * run.c allocates); they count in the firstAvailable tier */
	out->dra = ok ? wilp_dev_answer(m, v) : NULL;
	return ok;
}

/* The single objective of a plan read back from the model. */
double wilp_answer_obj(const wm *m, const wp_sol *out)
{
	const wp_problem *p = m->p;
	int *x = malloc(((size_t)p->nx + 1) * sizeof *x);
	if (!x)
		return NAN;
	wp_x_to_dense(p, out, x);
	double z = obj_of_x(m, x, out->evict) + wilp_mv_obj(m, out);
	free(x);
	if (m->atier1 && out->dra) /* firstAvailable tier (DRA) */
		z -= m->wfull[m->atier1 - 1] * (double)wdr_alt_rank(out->dra);
	return z;
}

int wilp_solve_tuned(const wp_problem *p, const wasp_options *o,
		     wb_deadline dl, const wp_sol *warm, wp_sol *out,
		     wilp_stats *st, wilp_tune *tune, wasp_error *err)
{
	double t0 = wb_now();
	wilp_stats dummy;
	if (!st)
		st = &dummy;
	wilp_stats_reset(st);
	st->status = "none";
	wa_arena *ar = wa_new();
	if (ar)
		wilp_mem_cap(o, ar);
	solve_state *S = ar ? wa_alloc(ar, sizeof *S) : NULL;
	if (!S) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	double mc = tune && tune->max_coef > 0 ? tune->max_coef
					       : WILP_MAX_COEF;
	bool sym = !tune || tune->symmetry != 0;
	int rc = wm_build(&S->m, p, ar, mc, sym, tune && tune->names,
			  wdl_sooner(dl, WDL_MARGIN_PHASE_S),
			  o ? o->cancel : NULL);
	wm *m = &S->m;
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the ILP");
	}
	if (m->late) {
		/* no time left even to build the model: the warm start */
		if (warm)
			wp_sol_copy(p, out, warm);
		else
			wp_x_clear(out);
		if (!warm) {
			memset(out->admit, 0, p->ngroups);
			for (int g = 0; g < p->ngroups; g++)
				out->reason[g] = WAIT_ILP;
		}
		st->status = warm ? "greedy" : "none";
		st->seconds = wb_now() - t0;
		wa_destroy(ar);
		return WASP_OK;
	}
	stats_model(m, st);
	if (tune) {
		tune->out_blocks = m->nblock;
		tune->out_maxcoef = m->maxcoef;
		tune->out_symrows = m->nsym;
		tune->out_warm_injected = false;
	}
	S->best = wa_calloc(ar, m->ncols + 1, sizeof *S->best);
	int *xw = wa_calloc(ar, p->nx + 1, sizeof *xw);
	if (!S->best || !xw) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	int wr = wilp_warm_vec(m, warm, xw, S->best);
	if (wr < 0) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	bool warm_ok = wr == 1;
	S->have_best = wm_check(&m->b, S->best, 0) == 0;
	if (tune)
		tune->out_warm_ok = warm_ok;

	wilp_run *r = &S->run;
	r->o = o;
	r->w.cancel = o ? o->cancel : NULL;
	r->tune = tune;
	/* freeing the model and GLPK's copy of it comes after the search:
	 * about WILP_FREE_PER_BUILD of the build's time */
	r->w.deadline = wdl_sooner(dl, WILP_FREE_PER_BUILD * (wb_now() - t0));
	rc = wilp_guarded_run(S, err);
	if (rc) {
		wa_destroy(ar);
		return rc;
	}
	if (tune) {
		tune->out_warm_injected = S->injected_any;
		tune->out_heur = S->run.heur_found;
	}

	/* The answer: the MIP's best unless it is no better than warm (no
	 * block solved: warm itself, not read back from the model, which
	 * costs a feasibility check of the whole plan) */
	bool mip_ok = !(warm && !S->blocks_done) &&
		      wilp_read_answer(m, S->best, S->have_best, warm, out);
	bool done = S->blocks_done == m->nblock && S->all_opt;
	const char *mst = S->blocks_done == 0 ? "none"
			  : done		 ? "optimal"
						 : "feasible";
	/* DRA: the devices of the answer, exact when the model is (NULL:
	 * run.c allocates); they count in the firstAvailable tier */
	if (!S->blocks_done)
		out->dra = NULL;
	if (warm) {
		wp_value vm, vw;
		wp_evaluate(p, out, &vm);
		wp_evaluate(p, warm, &vw);
		if (mip_ok && S->blocks_done && wp_value_cmp(&vm, &vw) > 0) {
			st->improved = true;
			st->status = mst;
		} else {
			wp_sol_copy(p, out, warm);
			st->status = "greedy";
		}
	} else {
		st->status = mip_ok ? mst : "none";
	}
	answer_stats(m, S, done, out, st);
	st->seconds = wb_now() - t0;
	wa_destroy(ar);
	return WASP_OK;
}

int wilp_round(const wp_problem *p, const wilp_guide *g, int passes,
	       wb_deadline dl, wp_sol *out)
{
	wa_arena *ar = wa_new();
	solve_state *S = ar ? wa_alloc(ar, sizeof *S) : NULL;
	if (!S) {
		wa_destroy(ar);
		return -1;
	}
	wm *m = &S->m;
	wilp_run *r = &S->run;
	if (wm_build(m, p, ar, WILP_MAX_COEF, false, false,
		     wdl_sooner(dl, WDL_MARGIN_PHASE_S), NULL) ||
	    wilp_heur_alloc(r, m)) {
		wa_destroy(ar);
		return -1;
	}
	if (m->late) {
		wa_destroy(ar);
		return 0;
	}
	r->w.deadline = dl; /* the passes below stop at it */
	for (int j = 1; j <= m->ncols; j++) {
		int k = m->ckind[j], ref = m->cref[j];
		r->lp[j] = k == WM_X   ? g->x(g->ctx, ref)
			   : k == WM_A ? g->adm(g->ctx, ref)
			   : k == WM_T ? g->gdom(g->ctx, ref, m->cdom[j])
			   : k == WM_H ? g->comp(g->ctx, ref)
			   : k == WM_S ? g->cdom(g->ctx, ref, m->cdom[j])
				       : 0;
	}
	uint64_t rs = 0x5eed;
	double bestz = -INFINITY;
	int *bx = wa_calloc(ar, p->nx + 1, sizeof *bx);
	if (!bx) {
		wa_destroy(ar);
		return -1;
	}
	for (int k = 0; k < passes; k++) {
		if (wdl_passed(dl, 0))
			break;
		wilp_heur_pass(r, k ? 0.5 : 0, &rs);
		wilp_vec_from_x(m, r->hx, r->hv);
		if (wm_check(&m->b, r->hv, 0) != 0)
			continue;
		double z = (double)wilp_obj_at(m, -1, r->hv);
		if (z > bestz) {
			bestz = z;
			memcpy(bx, r->hx, sizeof *bx * p->nx);
		}
	}
	int found = bestz > -INFINITY;
	if (found) {
		if (wp_x_from_dense(p, out, bx)) {
			wa_destroy(ar);
			return -1;
		}
		fill_admission(m, NULL, out);
		wp_sol_no_disruption(p, out);
		out->dra = NULL;
	}
	wa_destroy(ar);
	return found;
}
