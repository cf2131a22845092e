/*
 * restarts.c -- seeded greedy passes in perturbed orders, several at once
 * on OpenMP threads, the best plan taken in seed order so that it does
 * not depend on the thread count; patience, the packing bound and the
 * deadline end them (doc/formulation.md §11).  Before them one pass
 * takes the groups with the smallest pods first (WGR_SEED_SMALL) where
 * nothing may be evicted, and one places the groups with a key before
 * those without (WGR_SEED_KEYED).
 */
#include "solve/greedy/greedy_int.h"
#include "base/clock.h"

#include <stdint.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* One restart: in its own arena (texts included) when `own`, else in
 * the problem's (device allocations must outlive the trial). */
typedef struct trial {
	wa_arena *a;   /* own arena, or NULL */
	wp_sol *sol;
	int rc;        /* WASP_OK, an error, or TRIAL_NOT_RUN */
	bool ok;       /* feasible */
	wp_value v;
	wasp_error err;
} trial;

/* rc of a trial that would have started past the deadline */
#define TRIAL_NOT_RUN (-1)

static void run_trial(const wp_problem *p, const wasp_options *o,
		      uint64_t seed, bool own, trial *t)
{
	t->a = own ? wa_new() : NULL;
	wa_arena *a = own ? t->a : p->arena;
	t->sol = a ? wp_sol_new(p, a) : NULL;
	t->ok = false;
	if (!t->sol) {
		t->rc = werr(&t->err, WASP_ENOMEM, "out of memory");
		return;
	}
	t->rc = wgr_solve_in(p, o, t->sol, true, seed, a, &t->err);
	const char *why;
	if (t->rc == WASP_OK && wp_sol_feasible(p, t->sol, &why) == 0) {
		t->ok = true;
		wp_evaluate(p, t->sol, &t->v);
	}
}

/* best = t's plan, its texts copied into the problem's arena when they
 * live in the trial's. */
static int adopt(const wp_problem *p, wp_sol *best, const trial *t)
{
	wp_sol_copy(p, best, t->sol);
	for (int g = 0; t->a && g < p->ngroups; g++)
		if (best->reason[g] &&
		    !(best->reason[g] = wa_strdup(p->arena, best->reason[g])))
			return -1;
	return 0;
}

/* Whether the restarts give up before seed s: the passes since the last
 * improvement (at seed last, 0 for none) outnumber WGR_RESTART_PATIENCE
 * times those before it, past a floor.  Checked per seed, so where they
 * stop does not depend on how the passes are batched. */
static bool patience_out(int s, int last)
{
	return s - 1 >= WGR_RESTART_MIN + WGR_RESTART_PATIENCE * last;
}

/* Trials a thread runs per parallel region: enough that a region lasts
 * about WGR_REGION_S (passes of a small problem take microseconds, and
 * with more threads than free cores every region's join costs a time
 * slice), one for passes that long already. */
static int trials_per_thread(double pass_s)
{
	if (!(pass_s > 0))
		return WGR_RESTART_CHUNK;
	double m = WGR_REGION_S / pass_s;
	return m < 1 ? 1 : m > WGR_RESTART_CHUNK ? WGR_RESTART_CHUNK : (int)m;
}

int wgr_restart_leads(const wp_problem *p,
		      uint64_t lead[WGR_RESTART_LEADS])
{
	int n = 0;
	if (wgr_no_evictions(p))
		lead[n++] = WGR_SEED_SMALL;
	lead[n++] = WGR_SEED_KEYED;
	return n;
}

int wgr_restarts(const wp_problem *p, const wasp_options *o, int n,
		 wb_deadline until, wp_sol *best, int *ran, int *better,
		 wasp_error *err)
{
	wp_value vb;
	wp_evaluate(p, best, &vb);
	*ran = *better = 0;
	/* every pod placed, packing at its bound: nothing beats best */
	if (wp_packing_proven(p, best))
		return WASP_OK;
	/* device allocations live in the arena of the run that made
	 * them and a winner's must outlive its trial: with claims the
	 * passes run one by one in the problem's arena, capped */
	bool dra = p->snap->dra != NULL;
	int nt = 1;
#ifdef _OPENMP
	if (!dra)
		nt = o && o->threads > 0 ? o->threads : omp_get_max_threads();
#endif
	if (nt > WGR_RESTART_THREADS)
		nt = WGR_RESTART_THREADS;
	/* each pass on one thread; passes in parallel */
	wasp_options one;
	if (o)
		one = *o;
	else
		wopt_init(&one);
	one.threads = 1;
	trial *tr = calloc((size_t)nt * WGR_RESTART_CHUNK, sizeof *tr);
	if (!tr)
		return werr(err, WASP_ENOMEM, "out of memory");
	size_t base = wa_used(p->arena);
	int last = 0, m = 1, rc = WASP_OK;
	bool stop = false;
	/* first two passes in fixed orders (order.c): the smallest pods
	 * first, where nothing may be evicted (with evictions its plan
	 * admits more of the lower levels, which then hold the room a
	 * search from it would give to the top one; bench/README.md, "At
	 * scale"); then greedy's order with the groups without a key last
	 * in their level ("Groups without a key last") */
	uint64_t lead[WGR_RESTART_LEADS];
	int nl = wgr_restart_leads(p, lead);
	for (int k = 0; k < nl && !stop; k++) {
		if (n <= 0 || wdl_passed(until, 0) ||
		    (o && o->cancel && *o->cancel))
			break;
		run_trial(p, o, lead[k], !dra, &tr[0]);
		++*ran;
		if (tr[0].rc) {
			rc = tr[0].rc;
			if (err)
				*err = tr[0].err;
		} else if (tr[0].ok && wp_value_cmp(&tr[0].v, &vb) > 0) {
			vb = tr[0].v;
			++*better;
			if (adopt(p, best, &tr[0]))
				rc = werr(err, WASP_ENOMEM, "out of memory");
		}
		wa_destroy(tr[0].a);
		tr[0].a = NULL;
		stop = rc || wp_packing_proven(p, best);
	}
	for (int seed = 1; seed <= n && !stop;) {
		if (wdl_passed(until, 0) || (o && o->cancel && *o->cancel) ||
		    wa_used(p->arena) - base > WGR_RESTART_MEM)
			break;
		int nb = nt * m;
		if (nb > n - seed + 1)
			nb = n - seed + 1;
		double t0 = wb_now();
		if (dra)
			run_trial(p, o, (uint64_t)seed, false, &tr[0]);
		else {
			/* a trial that would start past the deadline is not
			 * run; one no better than the incumbent drops its
			 * arena at once */
#pragma omp parallel for schedule(static, 1) num_threads(nt) if (nb > 1)
			for (int i = 0; i < nb; i++) {
				trial *t = &tr[i];
				if (i >= nt && wdl_passed(until, 0)) {
					t->rc = TRIAL_NOT_RUN;
					t->a = NULL;
					continue;
				}
				run_trial(p, &one, (uint64_t)(seed + i), true,
					  t);
				if (t->rc == WASP_OK &&
				    !(t->ok && wp_value_cmp(&t->v, &vb) > 0)) {
					wa_destroy(t->a);
					t->a = NULL;
					t->ok = false;
				}
			}
		}
		if (m == 1 && !dra)
			m = trials_per_thread(wb_now() - t0);
		/* in seed order, whatever the batching: the first winner
		 * of each new best value, up to the first pass not run */
		int win = -1, i;
		for (i = 0; i < nb; i++) {
			int s = seed + i;
			if (tr[i].rc == TRIAL_NOT_RUN ||
			    patience_out(s, last)) {
				stop = true;
				break;
			}
			if (tr[i].rc) {
				rc = tr[i].rc;
				if (err)
					*err = tr[i].err;
				stop = true;
				break;
			}
			if (tr[i].ok && wp_value_cmp(&tr[i].v, &vb) > 0) {
				vb = tr[i].v;
				win = i;
				last = s;
				++*better;
			}
		}
		if (win >= 0 && rc == WASP_OK && adopt(p, best, &tr[win]))
			rc = werr(err, WASP_ENOMEM, "out of memory");
		/* a plan at the bound ends the passes where it was found */
		bool proven = win >= 0 && !rc && wp_packing_proven(p, best);
		if (proven)
			i = win + 1;
		*ran += i;
		seed += i;
		for (int k = 0; k < nb; k++) {
			wa_destroy(tr[k].a); /* NULL when not run or dropped */
			tr[k].a = NULL;
		}
		if (rc || proven)
			break;
	}
	free(tr);
	return rc;
}
