/*
 * driver.c -- the GLPK driver (doc/formulation.md §6): the model loaded
 * into GLPK, the search callback, and one guarded solve of all blocks
 * under the deadline.
 */
#include "solve/ilp/ilp_int.h"
#include "solve/ilp/branch.h"
#include "solve/ilp/gomory.h"
#include "solve/ilp/dive.h"
#include "solve/ilp/dth.h"

/* wasp_options.progress during the search: the incumbent and the best
 * bound of the open nodes (the weighted objective, doc/formulation.md
 * §4), at most every WASP_PROGRESS_INTERVAL_S. */
static void report_progress(glp_tree *T, wilp_run *r)
{
	double now = wb_now();
	if (!r->o || !r->o->progress ||
	    now - r->prog_t < WASP_PROGRESS_INTERVAL_S)
		return;
	r->prog_t = now;
	glp_prob *P = glp_ios_get_prob(T);
	int best = glp_ios_best_node(T);
	wasp_progress pr = {
	    .phase = "ilp",
	    .elapsed_s = r->o->start_time > 0 ? now - r->o->start_time : NAN,
	    .left_s = wdl_is_none(r->w.deadline) ? NAN
						  : wdl_left(r->w.deadline, 0),
	    .incumbent = glp_mip_status(P) == GLP_FEAS ||
				 glp_mip_status(P) == GLP_OPT
			     ? glp_mip_obj_val(P)
			     : NAN,
	    .bound = best ? glp_ios_node_bound(T, best) : NAN};
	r->o->progress(&pr, r->o->progress_ctx);
}

/* Strong branching stops early when the deadline is near or the caller
 * cancels (only then does the choice depend on time). */
static bool near_end(void *info)
{
	const wilp_run *r = info;
	return wgl_watch_late(&r->w, wb_now(), 2);
}

static void callback(glp_tree *T, void *info)
{
	wilp_run *r = info;
	if (wgl_watch_step(T, &r->w))
		return;
	/* a work budget counts branch-and-bound nodes, not seconds
	 * (doc/library.md, "Determinism") */
	if (r->o && r->o->work_limit > 0) {
		int nodes = 0;
		glp_ios_tree_size(T, NULL, NULL, &nodes);
		if (nodes > r->o->work_limit) {
			glp_ios_terminate(T);
			return;
		}
	}
	report_progress(T, r);
	if (r->br && glp_ios_reason(T) == GLP_IROWGEN)
		wbr_solved(T, r->br);
	if (r->br && glp_ios_reason(T) == GLP_IBRANCH)
		wbr_branch(T, r->br, near_end, r);
	else if (r->dth && glp_ios_reason(T) == GLP_IBRANCH)
		wdth_branch(T, r->dth);
	/* with wasp's branching, at the root only: strong branching finds
	 * the incumbents, and rounding at every node cost more than it
	 * found (doc/formulation.md §6b) */
	if (glp_ios_reason(T) == GLP_IHEUR && r->m && r->lp &&
	    !(r->br && r->nheur > 0)) {
		wilp_heur_round(T, r, r->nheur ? WILP_HEUR_PASSES / 4
					  : WILP_HEUR_PASSES);
		r->nheur++;
	}
}

int wilp_mem_mb(const wasp_options *o, size_t used)
{
	if (!o || !o->max_memory)
		return 0;
	size_t mb = used < o->max_memory ? (o->max_memory - used) >> 20 : 0;
	/* at least 1: 0 would mean no limit */
	return mb < 1 ? 1 : mb > INT_MAX ? INT_MAX : (int)mb;
}

void wilp_mem_cap(const wasp_options *o, wa_arena *a)
{
	if (o && o->max_memory)
		wa_set_cap(a, o->max_memory);
}

int wilp_glpk_begin(wilp_run *r, wasp_error *err)
{
	int mb = r->tune && r->tune->mem_limit_mb
		     ? r->tune->mem_limit_mb
		     : wilp_mem_mb(r->o, r->m ? wa_used(r->m->ar) : 0);
	if (wgl_begin(&r->env, mb))
		return werr(err, WASP_ENOMEM, "out of memory starting GLPK");
	return WASP_OK;
}

void wilp_load_prob(const wm *m, glp_prob *P, int block, wgl_env *e)
{
	glp_set_prob_name(P, "wasp");
	glp_set_obj_name(P, "value");
	glp_set_obj_dir(P, GLP_MAX);
	if (m->nrows)
		glp_add_rows(P, m->nrows);
	if (m->ncols)
		glp_add_cols(P, m->ncols);
	for (int i = 1; i <= m->nrows; i++) {
		if ((i & WGL_POLL_EVERY) == 0)
			wgl_poll(e);
		if (m->rname[i])
			glp_set_row_name(P, i, m->rname[i]);
		glp_set_row_bnds(P, i, m->rtype[i], m->rlo[i], m->rhi[i]);
		glp_set_mat_row(P, i, m->rbeg[i + 1] - m->rbeg[i],
				m->ja + m->rbeg[i] - 1,
				m->av + m->rbeg[i] - 1);
	}
	for (int j = 1; j <= m->ncols; j++) {
		if ((j & WGL_POLL_EVERY) == 0)
			wgl_poll(e);
		if (m->cname[j])
			glp_set_col_name(P, j, m->cname[j]);
		glp_set_col_kind(P, j, GLP_IV);
		glp_set_col_bnds(P, j,
				 m->clb[j] == m->cub[j] ? GLP_FX : GLP_DB,
				 m->clb[j], m->cub[j]);
		glp_set_obj_coef(P, j, wilp_coef_of(m, block, j));
	}
}

/* glp_set_mat_row reads ind[1..len] and val[1..len]: the pointers passed
 * above are shifted by one so that element 1 is the row's first entry. */

static double obj_max(const wm *m, int b)
{
	long double z = 0;
	int s = b < 0 ? 0 : m->bfirst[b];
	int e = b < 0 ? m->ntier : m->bfirst[b + 1];
	for (int t = s; t < e; t++)
		z += (long double)(b < 0 ? m->wfull[t] : m->wblock[t]) *
		     m->tM[t];
	return (double)z;
}

/* The branch-and-cut parameters of block b (nb blocks left): branching
 * and cuts by model size, the objective tolerance, and a share of the
 * time left (doc/formulation.md §6). */
static void intopt_params(const wm *m, wilp_run *r, int b, int nb,
			  double fixed, glp_iocp *ip)
{
	const wilp_tune *tu = r->tune;
	glp_init_iocp(ip);
	ip->msg_lev = GLP_MSG_OFF;
	ip->presolve = GLP_OFF;
	/* Driebeek-Tomlin evaluates a tableau row per fractional column,
	 * uninterruptibly: tens of seconds at 10^5 columns */
	ip->br_tech = m->ncols <= WILP_DTH_MAX_COLS && !(tu && tu->no_dth)
			  ? GLP_BR_DTH
			  : GLP_BR_MFV;
	ip->bt_tech = GLP_BT_BLB;
	/* Cuts pay on small models; on large ones each cut round re-solves
	 * a slow LP and the rounding heuristic does better with the time
	 * (doc/formulation.md §6, §8). */
	int cuts = tu && tu->cuts >= 0 ? tu->cuts
		   : m->ncols <= WILP_CUTS_MAX_COLS ? WILP_CUTS_DEFAULT
						    : 0;
	ip->gmi_cuts = cuts & WILP_CUT_GMI ? GLP_ON : GLP_OFF;
	ip->mir_cuts = cuts & WILP_CUT_MIR ? GLP_ON : GLP_OFF;
	ip->cov_cuts = cuts & WILP_CUT_COV ? GLP_ON : GLP_OFF;
	ip->clq_cuts = cuts & WILP_CUT_CLQ ? GLP_ON : GLP_OFF;
	ip->mip_gap = r->o && r->o->gap > 0 ? r->o->gap : 0;
	double om = obj_max(m, b);
	ip->tol_obj = 0.5 / (1 + om);
	if (ip->tol_obj > 1e-7)
		ip->tol_obj = 1e-7;
	double left2 = wdl_left(r->w.deadline, WDL_MARGIN_PHASE_S) - fixed;
	double share = nb == 1 ? left2 : left2 * 2 / (nb + 1);
	int tm = share * 1000 > INT_MAX / 2 ? INT_MAX / 2
					    : (int)(share * 1000);
	ip->tm_lim = tm < 1 ? 1 : tm;
	ip->cb_func = callback;
	ip->cb_info = r;
}

/* Fixes block b's optimum (or best found) zb for the blocks after it:
 * a lex row, in GLPK and in the model (so that wm_check sees it). */
static int fix_block(wm *m, glp_prob *P, int b, double zb, wasp_error *err)
{
	int i = glp_add_rows(P, 1);
	int *ind = wa_calloc(m->ar, m->ncols + 1, sizeof *ind);
	double *val = wa_calloc(m->ar, m->ncols + 1, sizeof *val);
	if (!ind || !val)
		return werr(err, WASP_ENOMEM, "out of memory");
	int len = 0;
	wm_row_begin(&m->b);
	for (int j = 1; j <= m->ncols; j++) {
		double c = wilp_coef_of(m, b, j);
		if (c == 0)
			continue;
		ind[++len] = j;
		val[len] = c;
		wm_coef(&m->b, j, c);
	}
	const char *nm = wm_name(&m->b, "lex[%d]", b);
	wm_row_end(&m->b, GLP_LO, zb, 0, nm);
	if (nm)
		glp_set_row_name(P, i, nm);
	glp_set_mat_row(P, i, len, ind, val);
	glp_set_row_bnds(P, i, GLP_LO, zb, 0);
	if (m->nomem)
		return werr(err, WASP_ENOMEM, "out of memory");
	return WASP_OK;
}

/* The watch and heuristic state for a search of block b from S->best. */
static void search_begin(solve_state *S, int b, double maxstep)
{
	wilp_run *r = &S->run;
	r->w.maxstep = maxstep;
	r->w.last = wb_now();
	r->w.inject = S->have_best ? S->best : NULL;
	r->nheur = 0;
	r->block = b;
	r->w.injected = r->w.inject_ok = false;
	r->w.have_bound = false;
	r->w.have_cap = false;
	r->w.int_opt = false;
}

/* GLPK's incumbent rounded into vbuf and checked against every row (a
 * numerically off one is refused); it replaces S->best when at least as
 * good in block b.  Whether there was one that passed. */
static bool take_incumbent(solve_state *S, glp_prob *P, int b, double *vbuf)
{
	wm *m = &S->m;
	int st = glp_mip_status(P);
	if (st != GLP_OPT && st != GLP_FEAS)
		return false;
	for (int j = 1; j <= m->ncols; j++)
		vbuf[j] = floor(glp_mip_col_val(P, j) + 0.5);
	if (wm_check(&m->b, vbuf, 0) != 0)
		return false;
	if (!S->have_best ||
	    wilp_obj_at(m, b, vbuf) >= wilp_obj_at(m, b, S->best))
		memcpy(S->best, vbuf, sizeof *vbuf * (m->ncols + 1));
	S->have_best = true;
	return true;
}

/* glp_intopt on block b (its LP solved, ip set).  On a model of at
 * most WILP_RB_MAX_COLS columns wasp chooses the branching column itself
 * (branch.c, reliability branching; doc/formulation.md §6b); above that
 * the rule from intopt_params, Driebeek-Tomlin on wasp's tableau rows
 * (dth.h) where that is GLPK's, or GLPK's rule out of memory for either.
 * Returns intopt's code. */
static int branch_and_cut(solve_state *S, glp_prob *P, glp_iocp *ip)
{
	wm *m = &S->m;
	wilp_run *r = &S->run;
	wilp_tune *tu = r->tune;
	r->br = NULL;
	if (m->ncols <= WILP_RB_MAX_COLS && !(tu && tu->glpk_branching))
		r->br = wbr_new(m->ar, m->ncols, r->w.int_obj);
	if (r->br)
		ip->cb_size = sizeof(wbr_node);
	r->dth = NULL;
	wdth *d = NULL;
	if (!r->br && ip->br_tech == GLP_BR_DTH && !(tu && tu->glpk_dth) &&
	    (d = wa_alloc(m->ar, sizeof *d)) && wdth_init(d, m->ar, P))
		r->dth = d;
	int rc = wgl_intopt(&r->env, P, ip);
	if (r->br && tu)
		tu->out_strong += wbr_strong_count(r->br);
	if (r->dth && tu)
		tu->out_dth += r->dth->chosen;
	r->br = NULL;
	r->dth = NULL;
	return rc;
}

/* The root's own work before GLPK's search, on models of at most
 * WILP_RB_MAX_COLS columns (doc/formulation.md §6b, "Root cuts with
 * integer slacks, and a dive"): Gomory rounds on a copy of the root LP
 * (their cuts stay in P where they closed nearly all the gap, and GLPK's
 * own Gomory cuts are then left out), and a dive on the cut LP whose
 * plan, when better, becomes the incumbent GLPK starts from.
 * int_obj: block b's objective is integral at every plan.  *cut_bound:
 * the rounds' bound on every plan (NAN: none). */
static int root_work(solve_state *S, glp_prob *P, int b, bool int_obj,
		     double share, double *vbuf, glp_iocp *ip,
		     double *cut_bound, wasp_error *err)
{
	wm *m = &S->m;
	wilp_run *r = &S->run;
	wilp_tune *tu = r->tune;
	*cut_bound = NAN;
	if (m->ncols > WILP_RB_MAX_COLS || (tu && tu->root_cuts == 0))
		return WASP_OK;
	double inc = S->have_best ? (double)wilp_obj_at(m, b, S->best) : NAN;
	/* a quarter of the block's time at most, for each part; with a
	 * work budget only the run's deadline, so that the load does not
	 * change the plan (doc/library.md, "Determinism") */
	bool work = r->o && r->o->work_limit > 0;
	wb_deadline dl = work ? r->w.deadline : wdl_at(wb_now() + share / 4);
	wgm_result gr;
	glp_prob *Q = NULL;
	int rc = wgm_root(P, m->ar, inc, int_obj, WGM_KEEP_SHARE, &r->env, dl,
			  &Q, &gr);
	if (rc == WASP_ENOMEM)
		return WASP_OK; /* no memory for cuts: GLPK alone */
	if (tu) {
		tu->out_root_rounds = gr.rounds;
		tu->out_root_kept = gr.kept;
		tu->out_root_bound = gr.z1;
	}
	if (rc == WASP_OK && gr.rounds > 0)
		*cut_bound = gr.z1;
	if (rc == WASP_OK && gr.kept > 0)
		ip->gmi_cuts = GLP_OFF;
	unsigned char *pick = Q ? wa_calloc(m->ar, m->ncols + 1, 1) : NULL;
	if (pick) {
		for (int j = 1; j <= m->ncols; j++)
			pick[j] = m->ckind[j] == WM_A || m->ckind[j] == WM_T;
		if (!work)
			dl = wdl_at(wb_now() + share / 4);
		if (wdi_dive(Q, pick, inc, int_obj, &r->env, dl) &&
		    wdi_complete(Q, pick, inc, int_obj,
				 tu && tu->glpk_dth ? NULL : m->ar, &r->env,
				 dl, vbuf) &&
		    wm_check(&m->b, vbuf, 0) == 0 &&
		    (!S->have_best ||
		     wilp_obj_at(m, b, vbuf) > wilp_obj_at(m, b, S->best))) {
			memcpy(S->best, vbuf, sizeof *vbuf * (m->ncols + 1));
			S->have_best = true;
			if (tu)
				tu->out_root_dive = true;
		}
	}
	if (Q)
		glp_delete_prob(Q);
	if (rc == WASP_ESOLVER)
		return werr(err, WASP_ESOLVER,
			    "GLPK: LP relaxation failed after the root's"
			    " cuts");
	return WASP_OK;
}

/* Everything that calls GLPK; a fault longjmps back to wilp_solve. */
static int run_glpk(solve_state *S, wasp_error *err)
{
	wm *m = &S->m;
	wilp_run *r = &S->run;
	const wilp_tune *tu = r->tune;
	glp_prob *P;
	if (m->ncols == 0 && !(tu && tu->fault)) {
		/* nothing can be placed: the empty solution is optimal */
		S->all_opt = true;
		S->blocks_done = m->nblock;
		return WASP_OK;
	}
	/* Loading costs about 0.25 us per nonzero here; when that and one
	 * LP solve cannot fit, keep the warm start.  (No glp_scale_prob: it
	 * costs seconds on large models; the capacity rows are already
	 * divided by their gcd.) */
	if (wdl_left(r->w.deadline, WDL_MARGIN_PHASE_S) < 5e-7 * m->nnz) {
		S->all_opt = false;
		r->w.stopped = true;
		return WASP_OK;
	}
	r->env.P = P = glp_create_prob();
	if (tu && tu->fault)
		glp_set_col_bnds(P, m->ncols + 7, GLP_FX, 0, 0);
	double tload = wb_now();
	wilp_load_prob(m, P, 0, &r->env);
	/* GLPK's simplex builds its own copy of the model before its first
	 * iteration and frees it after the last, outside its tm_lim: about
	 * WILP_LP_FIXED_PER_LOAD times what loading took (the same kind of
	 * work, so the figure follows the machine's load) */
	double fixed = WILP_LP_FIXED_PER_LOAD * (wb_now() - tload);
	S->all_opt = true;
	double *vbuf = wa_calloc(m->ar, m->ncols + 1, sizeof *vbuf);
	if (!vbuf)
		return werr(err, WASP_ENOMEM, "out of memory");
	r->m = m;
	if ((!tu || tu->heuristic != 0) && wilp_heur_alloc(r, m))
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int b = 0; b < m->nblock; b++) {
		if (b > 0)
			for (int j = 1; j <= m->ncols; j++)
				glp_set_obj_coef(P, j, wilp_coef_of(m, b, j));
		double left = wdl_left(r->w.deadline, WDL_MARGIN_PHASE_S) -
			      fixed;
		if (left <= 0.001 || wilp_cancelled(r)) {
			S->all_opt = false;
			r->w.stopped = true;
			break;
		}
		int nb = m->nblock - b;
		double share = nb == 1 ? left : left * 2 / (nb + 1);
		glp_smcp sp;
		glp_init_smcp(&sp);
		sp.msg_lev = GLP_MSG_OFF;
		sp.presolve = GLP_OFF;
		/* the deadline (this block's share) and a cancel are seen
		 * within WGL_POLL_MS even in a long LP */
		double tlp = wb_now();
		/* this block's share first; a numerical failure is tried
		 * once more, to the deadline */
		int rc = wgl_simplex_retry(&r->env, P, &sp,
					   wdl_at(tlp + share),
					   wdl_sooner(r->w.deadline, fixed));
		tlp = wb_now() - tlp;
		if (rc == GLP_ETMLIM) {
			S->all_opt = false;
			r->w.stopped = true;
			break;
		}
		if (rc != 0 || glp_get_status(P) != GLP_OPT)
			return werr(err, WASP_ESOLVER,
				    "GLPK: LP relaxation failed (simplex rc %d,"
				    " status %d)", rc, glp_get_status(P));
		/* intopt's first step re-solves the root LP, set-up
		 * included, before any callback can stop it */
		if (wdl_left(r->w.deadline, WDL_MARGIN_PHASE_S) < fixed) {
			S->all_opt = false;
			r->w.stopped = true;
			break;
		}
		glp_iocp ip;
		intopt_params(m, r, b, nb, fixed, &ip);
		bool int_obj = wilp_int_objective(m, b);
		double cut_bound = NAN;
		rc = root_work(S, P, b, int_obj, share, vbuf, &ip, &cut_bound,
			       err);
		if (rc)
			return rc;
		/* a step of intopt costs about one LP solve, or more */
		search_begin(S, b, tlp);
		/* the cuts' bound holds whether they stayed or not (half a
		 * unit over it: the LP's objective is exact to 0.11 of one,
		 * see WILP_MAX_COEF) */
		if (isfinite(cut_bound)) {
			r->w.have_cap = true;
			r->w.cap = cut_bound + (int_obj ? 0.5 : 0);
		}
		r->w.int_obj = int_obj;
		rc = branch_and_cut(S, P, &ip);
		int st = glp_mip_status(P);
		if (rc != 0 && rc != GLP_ETMLIM && rc != GLP_EMIPGAP &&
		    rc != GLP_ESTOP)
			return werr(err, WASP_ESOLVER,
				    "GLPK: branch-and-cut failed (rc %d)", rc);
		bool got = take_incumbent(S, P, b, vbuf);
		if (!got) {
			/* no incumbent (or numerically off): keep the
			 * previous best */
			S->all_opt = false;
			break;
		}
		bool opt = got && ((rc == 0 && st == GLP_OPT) ||
				   (rc == GLP_ESTOP && r->w.int_opt));
		double zb = (double)wilp_obj_at(m, b, S->best);
		wgl_watch_cap(&r->w);
		if (b == 0)
			S->bound0 = opt ? zb : r->w.have_bound ? r->w.bound : NAN;
		S->injected_any |= r->w.inject_ok;
		if (!opt)
			S->all_opt = false;
		S->blocks_done = b + 1;
		if (b + 1 < m->nblock) {
			rc = fix_block(m, P, b, zb, err);
			if (rc)
				return rc;
		}
		if (r->w.stopped)
			break;
	}
	return WASP_OK;
}

/* run_glpk between the hooks; setjmp lives here, with no local state
 * to lose, and a fault or a cancel inside an LP frees GLPK's
 * environment. */
int wilp_guarded_run(solve_state *S, wasp_error *err)
{
	wilp_run *r = &S->run;
	r->m = &S->m; /* its arena counts against o->max_memory */
	if (wilp_glpk_begin(r, err))
		return WASP_ENOMEM;
	r->env.cancel = r->w.cancel;
	if (setjmp(r->env.jb)) {
		if (!r->env.cancelled)
			return wgl_fault(&r->env, err);
		/* a cancel inside an LP: the best so far stands */
		wgl_cancelled(&r->env);
		S->all_opt = false;
		r->w.stopped = true;
		return WASP_OK;
	}
	int rc = run_glpk(S, err);
	wgl_end(&r->env);
	return rc;
}
