/*
 * same-parts.c -- what the model over parts (wag_solve, doc/formulation.md
 * §10) answers on generated 64-node instances, one line each, for
 * comparing two builds byte for byte where bench/same-plans.sh cannot:
 * its small inputs take the node model, so the parts model is not run.
 *
 *   make bench/same-parts && bench/same-parts [SEEDS [FAMILY]]
 *
 * Families: 0 trees (half of the seeds half busy), 1 gangs over three
 * priorities, 2 gangs with DRA claims; SEEDS per family (default 4);
 * with FAMILY, only seed SEEDS of it.  Each solve is given 120 s and
 * may use it all (about two minutes a line); a line whose status is not
 * "optimal" was cut by that deadline and compares only between runs on
 * an unloaded machine.  Built on request only (EXTRA_PROGRAMS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "model/snapshot.h"
#include "run/run.h"
#include "solve/greedy/greedy.h"
#include "solve/ilp/agg.h"
#include "wasp.h"

static void gen_options(wasp_gen_options *g, int fam, int seed)
{
	wasp_gen_options_init(g);
	g->seed = (uint64_t)seed;
	g->levels = 2;
	g->fanout = 4;
	g->nodes = 64;
	if (fam == 0) {
		g->trees = 6;
		g->gangs = 0;
		g->busy = seed % 2 ? 0.5 : 0.0;
	} else if (fam == 1) {
		g->gangs = 12;
		g->max_gang = 8;
		g->busy = 0.5;
		g->priorities = 3;
	} else {
		g->gangs = 10;
		g->max_gang = 8;
		g->busy = 0.4;
		g->dra = 1;
	}
}

static int one(int fam, int seed)
{
	wasp_gen_options g;
	gen_options(&g, fam, seed);
	wasp_error e;
	memset(&e, 0, sizeof e);
	char *text = wasp_gen(&g, &e);
	wasp_snapshot *s = NULL;
	if (!text ||
	    wasp_snapshot_from_text(&s, text, strlen(text), "gen", &e)) {
		fprintf(stderr, "same-parts: %s\n", e.msg);
		free(text);
		return 1;
	}
	wasp_options o;
	wasp_options_init(&o);
	o.threads = 1;
	wa_arena *a = wa_new();
	wp_problem *p = NULL;
	int rc = a ? wsv_problem((const ws_snapshot *)s, &o, a, &p, &e)
		   : WASP_ENOMEM;
	wp_sol *gs = rc ? NULL : wp_sol_new(p, a);
	wp_sol *xs = rc ? NULL : wp_sol_new(p, a);
	if (!rc && (!gs || !xs))
		rc = WASP_ENOMEM;
	if (!rc)
		rc = wgr_solve(p, &o, gs, &e);
	wilp_stats st;
	wag_info wi;
	memset(&st, 0, sizeof st);
	memset(&wi, 0, sizeof wi);
	if (!rc)
		rc = wag_solve(p, &o, wdl_after(wasp_now(), 120), gs, xs, &st,
			       &wi, &e);
	if (rc) {
		fprintf(stderr, "same-parts: family %d seed %d: %s\n", fam,
			seed, e.msg);
	} else {
		unsigned long h = 5381;
		for (int i = 0; i < p->nx; i++)
			h = h * 33 + (unsigned)wp_x(xs, i);
		for (int i = 0; i < p->ngroups; i++)
			h = h * 33 + xs->admit[i];
		printf("family %d seed %d status %s objective %.9g bound %.9g "
		       "rows %d cols %d parts %d declined %d hash %lu\n",
		       fam, seed, st.status, st.objective, st.bound, st.rows,
		       st.cols, wi.parts, wi.declined, h);
		fflush(stdout);
	}
	wa_destroy(a);
	wasp_snapshot_free(s);
	free(text);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	int seeds = argc > 1 ? atoi(argv[1]) : 4;
	int only = argc > 2 ? atoi(argv[2]) : -1;
	int bad = 0;
	if (seeds < 1 || only > 2) {
		fprintf(stderr, "usage: same-parts [SEEDS [FAMILY]]\n");
		return 2;
	}
	for (int fam = 0; fam < 3; fam++)
		for (int seed = 1; seed <= seeds; seed++)
			if (only < 0 || (fam == only && seed == seeds))
				bad |= one(fam, seed);
	return bad;
}
