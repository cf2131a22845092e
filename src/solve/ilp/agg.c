/*
 * agg.c -- the ILP over parts, its entry points (agg.h): wag_estimate and
 * wag_solve, which runs the part model, brings its answer back to nodes
 * and, with the time left, solves the confined node model.
 */
#include "solve/ilp/agg_int.h"

int wag_estimate(const wp_problem *p)
{
	wa_arena *ar = wa_new();
	ag *m = ar ? wa_alloc(ar, sizeof *m) : NULL;
	if (!m) {
		wa_destroy(ar);
		return -1;
	}
	m->p = p;
	m->ar = ar;
	m->keep_empty = true;
	wag_make_parts(m);
	if (!m->nomem)
		wag_make_qclasses(m);
	if (!m->nomem)
		wag_cols_x(m);
	long n = m->ncols + p->ngroups + p->ncomps + m->nqc;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].key >= 0)
			n += p->topo->keys[p->groups[g].key].ndom;
	for (int h = 0; h < p->ncomps; h++)
		if (p->comps[h].key >= 0)
			n += p->topo->keys[p->comps[h].key].ndom;
	if (m->nomem)
		n = -1;
	wa_destroy(ar);
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* The node model confined to the parts where the part answer (best),
 * cur, the part LP or the warm start (wv, NULL: none) put pods, with what
 * is left of the time, warm-started with cur; cur takes its answer when
 * better.  keep: ncols + 1 bytes of scratch. */
static int confined_solve(const ag *m, const wag_run *r,
			  const wasp_options *o, wb_deadline dl,
			  const double *best, const double *cv,
			  const double *wv, unsigned char *keep, wp_sol *cur,
			  wag_info *info, wasp_error *err)
{
	const wp_problem *p = m->p;
	for (int j = 1; j <= m->ncols; j++)
		keep[j] = m->ckind[j] == AG_X &&
			  (best[j] > 0.5 || cv[j] > 0.5 ||
			   (r->lp_done && r->lp[j] > 1e-6) ||
			   (wv && wv[j] > 0.5));
	wp_problem *q = wag_confine(m, keep, m->ar);
	wp_sol *qs = q ? wp_sol_new(q, m->ar) : NULL;
	wp_sol *qw = q ? wp_sol_new(q, m->ar) : NULL;
	if (!qs || !qw)
		return werr(err, WASP_ENOMEM, "out of memory");
	wag_map_sol(p, q, cur, qw, true);
	wilp_stats qst;
	wilp_tune tu;
	wilp_tune_init(&tu);
	/* a cut round or a Driebeek-Tomlin branching step cannot be
	 * interrupted, and this solve gets what is left of the time */
	tu.cuts = 0;
	tu.no_dth = true;
	tu.root_cuts = 0;
	int rc = wilp_solve_tuned(q, o, wdl_sooner(dl, WDL_MARGIN_ILP_S), qw,
				  qs, &qst, &tu, err);
	if (rc)
		return rc;
	info->confined_cols = qst.cols;
	if (qst.improved)
		wag_map_sol(p, q, qs, cur, false);
	return WASP_OK;
}

/* out: the node answer (got, of objective zq) when it beats the warm
 * start, else the warm start, else nothing placed; st: the answer's
 * objective in node-model units and its status against the part bound.
 * v: ncols + 1 doubles of scratch. */
static void settle(const ag *m, const wp_sol *warm, bool got, double zq,
		   double bound, double *v, wp_sol *out, wilp_stats *st)
{
	const wp_problem *p = m->p;
	if (warm) {
		wp_value vq, vw;
		wp_evaluate(p, warm, &vw);
		if (got)
			wp_evaluate(p, out, &vq);
		if (got && wp_value_cmp(&vq, &vw) > 0) {
			st->improved = true;
		} else {
			wp_sol_copy(p, out, warm);
			got = false;
		}
	}
	if (!warm && !got) {
		wp_x_clear(out);
		memset(out->admit, 0, (size_t)p->ngroups);
		for (int g = 0; g < p->ngroups; g++)
			out->reason[g] = p->groups[g].invalid
					     ? p->groups[g].invalid
					     : "the ILP found no placement";
		wp_sol_no_disruption(p, out);
	}
	/* the objective of the answer in node-model units */
	st->objective = got ? zq
			: warm && wag_vec_of_sol(m, warm, v) ? wag_obj_at(m, v)
							   : NAN;
	double zb = isnan(bound) ? NAN : floor(bound + 1e-6);
	if (!isnan(zb) && !isnan(st->objective) && st->objective >= zb - 0.5) {
		/* the part optimum bounds the node optimum: reached */
		st->status = got ? "optimal" : "greedy";
		st->bound = st->objective;
		st->gap = 0;
	} else {
		st->status = got ? "feasible" : warm ? "greedy" : "none";
		if (!isnan(zb) && !isnan(st->objective)) {
			st->bound = zb;
			st->gap = (zb - st->objective) /
				  (fabs(st->objective) > 1e-9
				       ? fabs(st->objective)
				       : 1e-9);
		}
	}
}

int wag_solve(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	      const wp_sol *warm, wp_sol *out, wilp_stats *st,
	      wag_info *info, wasp_error *err)
{
	double t0 = wb_now();
	wilp_stats dummy;
	wag_info idummy;
	if (!st)
		st = &dummy;
	if (!info)
		info = &idummy;
	wilp_stats_reset(st);
	memset(info, 0, sizeof *info);
	st->status = "none";
	info->part_obj = info->part_bound = NAN;
	wa_arena *ar = wa_new();
	if (ar)
		wilp_mem_cap(o, ar);
	ag *m = ar ? wa_alloc(ar, sizeof *m) : NULL;
	if (!m) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	m->p = p;
	m->ar = ar;
	m->keep_empty = true;
	int rc = wag_build(m);
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the part model");
	}
	info->parts = m->npart;
	info->rows = st->rows = m->nrows;
	info->cols = st->cols = st->ints = m->ncols;
	st->nonzeros = m->nnz;
	if (m->npart > WAG_MAX_PART_SHARE * p->nnodes ||
	    m->maxcoef > WILP_MAX_COEF) {
		/* no gain, or tiers too wide for one weighted solve */
		wa_destroy(ar);
		if (info == &idummy)
			return wilp_solve(p, o, dl, warm, out, st, err);
		info->declined = true;
		if (warm) {
			wp_sol_copy(p, out, warm);
			st->status = "greedy";
		} else {
			wp_x_clear(out);
			wp_fill_admission(p, NULL, NULL, out);
			wp_sol_no_disruption(p, out);
		}
		st->seconds = wb_now() - t0;
		return WASP_OK;
	}
	double *best = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *best);
	if (!best) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	bool have = warm && wag_vec_of_sol(m, warm, best) &&
		    wm_check(&m->b, best, 1e-9) == 0;
	info->warm_ok = have;
	if (have && wp_packing_proven(p, warm)) {
		/* every pod placed, no eviction, packing at its bound:
		 * nothing beats the warm start (doc/formulation.md §11) */
		wp_sol_copy(p, out, warm);
		st->status = "greedy";
		st->objective = st->bound = wag_obj_at(m, best);
		st->gap = 0;
		info->part_opt = true;
		info->part_obj = info->part_bound = st->objective;
		st->seconds = wb_now() - t0;
		wa_destroy(ar);
		return WASP_OK;
	}
	/* the part model gets all but a share of the time */
	wag_run *r = wa_alloc(ar, sizeof *r);
	if (!r) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	r->m = m;
	r->o = o;
	r->w.cancel = o ? o->cancel : NULL;
	r->split_by = wdl_none();
	r->hsol = wp_sol_new(p, ar);
	if (!r->hsol) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	r->lp = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *r->lp);
	if (!r->lp) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	double left = wdl_left(dl, 0);
	r->w.deadline = wdl_is_none(dl)
			    ? wdl_none()
			    : wdl_at(dl.at - WDL_MARGIN_ILP_S -
				     WAG_CONFINE_SHARE * left);
	bool opt = false;
	double bound = NAN;
	rc = wag_guarded_part_solve(r, best, &have, &opt, &bound, err);
	if (rc) {
		wa_destroy(ar);
		return rc;
	}
	info->part_opt = opt;
	info->part_obj = have ? wag_obj_at(m, best) : NAN;
	info->part_bound = bound;
	info->part_s = wb_now() - t0;

	/* the best node solution so far (cur): the part answer split onto
	 * nodes part by part, the rounding of the part LP, or the warm
	 * start; then, with the time left, the node model confined to the
	 * parts where any of them or the part LP puts pods, warm-started
	 * with cur */
	double t1 = wb_now();
	double *wv = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *wv);
	double *cv = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *cv);
	unsigned char *keep = wa_calloc(ar, (size_t)m->ncols + 1, 1);
	wp_sol *cur = wp_sol_new(p, ar);
	if (!keep || !wv || !cv || !cur) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	bool wok = warm && wag_vec_of_sol(m, warm, wv);
	bool better = have &&
		      (!wok || wag_obj_at(m, best) > wag_obj_at(m, wv) + 0.5);
	bool got = false; /* cur holds a node solution */
	if (better) {
		r->split_by = wdl_sooner(dl, WDL_MARGIN_ILP_S);
		rc = wag_guarded_split(m, r, best, warm, cur, err);
		if (rc < 0) {
			wa_destroy(ar);
			return rc;
		}
		got = rc == 0;
	}
	if (r->hfound)
		wag_keep_better(p, cur, &got, r->hsol);
	if (warm)
		wag_keep_better(p, cur, &got, warm);
	bool cok = got && wag_vec_of_sol(m, cur, cv);
	/* only under a deadline: without one the part answer stands */
	if (cok && have && !wdl_is_none(dl) &&
	    wdl_left(dl, 0) > WAG_CONFINE_MIN_S) {
		rc = confined_solve(m, r, o, dl, best, cv, wok ? wv : NULL,
				    keep, cur, info, err);
		if (rc) {
			wa_destroy(ar);
			return rc;
		}
	}
	if (got)
		wp_sol_copy(p, out, cur);
	info->confined_s = wb_now() - t1;
	const char *why = NULL;
	if (got && wp_sol_feasible(p, out, &why) != 0)
		got = false; /* cannot happen; stay safe */
	double zq = NAN;
	double *v = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *v);
	if (!v) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	if (got && wag_vec_of_sol(m, out, v))
		zq = wag_obj_at(m, v);
	else
		got = false;
	settle(m, warm, got, zq, bound, v, out, st);
	st->seconds = wb_now() - t0;
	wa_destroy(ar);
	return WASP_OK;
}
