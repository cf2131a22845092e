/*
 * check_lns.c -- the ILP at scale: the model solved by the cbc program
 * (doc/formulation.md §7b), the neighbourhood search and the bound over
 * node classes (§12).
 *
 * cbc: a plan made with --solver cbc passes the verifier and has the
 * optimum that cbc finds on the exported LP by itself and that GLPK
 * proves; a missing cbc is a clean error.  Every plan goes through the
 * verifier (tu_solve, tu_sol_verified).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "plan/plan.h"
#include "run/run.h"
#include "solve/baseline.h"
#include "solve/greedy/greedy.h"
#include "solve/ilp/ilp.h"
#include "reduce/units.h"

/* A small fragmented cluster: racks of 4 nodes, half the GPUs busy with
 * lower-priority pods, a few gangs. */
static void small_frag(wasp_gen_options *g, int seed, int nodes)
{
	wasp_gen_options_init(g);
	g->seed = seed;
	g->levels = 2;
	g->fanout = 4;
	g->nodes = nodes;
	g->gangs = nodes / 4;
	g->max_gang = 8;
	g->busy = 0.5;
}

/* The same with minCount: size. */
static void gang_yaml(tu_buf *b, const char *name, int size, int gpus,
		      int prio, const char *key)
{
	tu_gang_min_yaml(b, name, size, size, gpus, prio, key);
}

/* A Kueue Topology "t" with the given levels (YAML list items). */
static void topology_yaml(tu_buf *b, const char *levels)
{
	tu_printf(b, "---\napiVersion: kueue.x-k8s.io/v1beta2\n"
		     "kind: Topology\nmetadata: {name: t}\nspec:\n"
		     "  levels:\n%s", levels);
}

/* ------------------------------------------------------------- cbc */

static int run_tool(char *const argv[], const char *out)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* cbc's optimum on the exported LP (with top: the top tier's work
 * alone, wasp export --top-tier), run by hand; NAN when not proven. */
static double cbc_by_hand(tu_inst *in, bool top)
{
	char dir[64], lp[96], log[96];
	snprintf(dir, sizeof dir, "/tmp/wasp-lns-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(lp, sizeof lp, "%s/m.lp", dir);
	snprintf(log, sizeof log, "%s/cbc.log", dir);
	wasp_error e;
	memset(&e, 0, sizeof e);
	wasp_options o = in->o;
	o.export_top_tier = top;
	ck_assert_int_eq(wilp_export(in->p, &o, WASP_EXPORT_LP, lp, &e), 0);
	char *argv[] = {"cbc", lp, "-solve", NULL};
	ck_assert_int_eq(run_tool(argv, log), 0);
	char *txt = tu_slurp(log);
	double z = NAN;
	const char *s = strstr(txt, "Objective value:");
	if (strstr(txt, "Optimal solution found") && s)
		z = strtod(s + strlen("Objective value:"), NULL);
	free(txt);
	unlink(lp);
	unlink(log);
	rmdir(dir);
	return z;
}

/* --solver cbc: a verified plan with the optimum cbc finds on the
 * exported model by itself, and the one GLPK proves. */
START_TEST(cbc_plan_is_cbc_optimum)
{
	if (!wilp_cbc_available()) {
		fprintf(stderr, "check_lns: no cbc; skipping\n");
		return;
	}
	int nproved = 0;
	for (int seed = 1; seed <= 3; seed++) {
		wasp_gen_options g;
		small_frag(&g, seed, 16);
		tu_inst in;
		tu_inst_gen(&in, &g);
		wb_deadline dl = wdl_after(wb_now(), 30);
		wp_sol *c = wp_sol_new(in.p, in.a), *l = wp_sol_new(in.p, in.a);
		wilp_stats sc, sl;
		wasp_error e;
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(wilp_solve_cbc(in.p, &in.o, dl, in.greedy, c,
						&sc, &e),
				 0);
		tu_sol_verified(in.snap, in.p, c, in.greedy, "cbc");
		ck_assert_int_eq(wilp_solve(in.p, &in.o, dl, in.greedy, l, &sl,
					    &e),
				 0);
		double z = cbc_by_hand(&in, false);
		if (!strcmp(sc.status, "optimal") &&
		    !strcmp(sl.status, "optimal") && !isnan(z)) {
			nproved++;
			ck_assert_msg(fabs(sc.objective - z) < 0.5,
				      "seed %d: --solver cbc %.1f, cbc by hand "
				      "%.1f",
				      seed, sc.objective, z);
			ck_assert_msg(fabs(sl.objective - z) < 0.5,
				      "seed %d: GLPK %.1f, cbc %.1f", seed,
				      sl.objective, z);
			wp_value vc, vl;
			wp_evaluate(in.p, c, &vc);
			wp_evaluate(in.p, l, &vl);
			ck_assert_int_eq(wp_value_cmp(&vc, &vl), 0);
		}
		tu_inst_free(&in);
	}
	ck_assert_int_ge(nproved, 2);
}
END_TEST

/* The class bound of in (in b), checked against cbc's optimum of the
 * top tier alone (returned; NAN where cbc proved none): never below
 * it. */
static double bound_holds_top_tier(tu_inst *in, wilp_cbound *b, int i)
{
	double z = cbc_by_hand(in, true);
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(wilp_class_bound(in->p, wdl_none(), b, &e), 0);
	ck_assert(b->ok);
	ck_assert_msg(isnan(z) || b->ub[0] >= z - 1e-6,
		      "case %d: bound %.2f below the optimum %.1f", i,
		      b->ub[0], z);
	return z;
}

/* The top tier's true optimum, cbc's on the model written with
 * --top-tier: no plan's top tier beats it (greedy's, verified), the
 * bound of the plan's summary is not below it, and where GLPK proves
 * the lexicographic optimum its top tier is that optimum. */
START_TEST(top_tier_optimum_holds_bound)
{
	if (!wilp_cbc_available())
		return;
	int nproved = 0;
	for (int i = 0; i < 6; i++) {
		wasp_gen_options g;
		small_frag(&g, 40 + i, 16);
		g.family = i % 3 == 0 ? 0 : i % 3 == 1 ? 2 : 3;
		tu_inst in;
		tu_inst_gen(&in, &g);
		wilp_cbound b;
		double z = bound_holds_top_tier(&in, &b, i);
		ck_assert_msg(!isnan(z), "case %d: cbc proved no optimum", i);
		tu_sol_verified(in.snap, in.p, in.greedy, NULL, "greedy");
		wp_value vg;
		wp_evaluate(in.p, in.greedy, &vg);
		ck_assert_msg(vg.work[0] <= z + 1e-6,
			      "case %d: greedy %.1f above the optimum %.1f", i,
			      vg.work[0], z);
		ck_assert(b.prio[0] == vg.prio[0]);
		wasp_error e;
		memset(&e, 0, sizeof e);
		wp_sol *l = wp_sol_new(in.p, in.a);
		wilp_stats sl;
		ck_assert_int_eq(wilp_solve(in.p, &in.o, wdl_after(wb_now(), 20),
					    in.greedy, l, &sl, &e),
				 0);
		tu_sol_verified(in.snap, in.p, l, in.greedy, "top tier");
		/* proven: "optimal", or nothing better than greedy's plan
		 * with no gap left */
		if (sl.gap == 0 && (!strcmp(sl.status, "optimal") ||
				    !strcmp(sl.status, "greedy"))) {
			wp_value vl;
			wp_evaluate(in.p, l, &vl);
			ck_assert_msg(fabs(vl.work[0] - z) < 1e-6,
				      "case %d: GLPK's optimum has %.1f in "
				      "the top tier, cbc %.1f",
				      i, vl.work[0], z);
			nproved++;
		}
		tu_inst_free(&in);
	}
	ck_assert_int_ge(nproved, 3);
}
END_TEST

/* The whole run with --solver cbc: the plan says so and verifies. */
START_TEST(cbc_run_plan)
{
	if (!wilp_cbc_available())
		return;
	wasp_gen_options g;
	small_frag(&g, 4, 16);
	wasp_error e;
	memset(&e, 0, sizeof e);
	wasp_snapshot *s = tu_gen_load(&g);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.solver = WASP_SOLVER_CBC;
	o.time_limit_s = 30;
	wasp_plan *pl = tu_solve(s, &o);
	ck_assert_ptr_nonnull(strstr(pl->sum.mode_reason, "cbc"));
	ck_assert_str_eq(pl->sum.mode, "ilp");
	wpl_free(pl);
	wasp_snapshot_free(s);
}
END_TEST

/* A cancel before cbc starts: it is stopped at once, and the answer is
 * at least the warm start, verified. */
START_TEST(cbc_cancel_keeps_warm)
{
	if (!wilp_cbc_available())
		return;
	wasp_gen_options g;
	small_frag(&g, 5, 32);
	tu_inst in;
	tu_inst_gen(&in, &g);
	volatile int stop = 1;
	in.o.cancel = &stop;
	wp_sol *c = wp_sol_new(in.p, in.a);
	wilp_stats st;
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wilp_solve_cbc(in.p, &in.o, wdl_after(wb_now(), 30),
				in.greedy, c, &st, &e);
	ck_assert_int_eq(rc, 0);
	tu_sol_verified(in.snap, in.p, c, in.greedy, "cbc cancelled");
	tu_inst_free(&in);
}
END_TEST

/* A fragmented cluster (racks of 4, three priorities, running pods to
 * evict) solved by the whole run on the node model with solver. */
static wasp_plan *frag_run(int seed, int nodes, int solver)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.seed = seed;
	g.family = 2;
	g.levels = 2;
	g.fanout = 4;
	g.nodes = nodes;
	g.gangs = nodes / 4;
	g.max_gang = 8;
	g.priorities = 3;
	wasp_snapshot *s = tu_gen_load(&g);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.node_model = 1;
	o.solver = solver;
	o.time_limit_s = 30;
	wasp_plan *pl = tu_solve(s, &o); /* verified */
	wasp_snapshot_free(s);
	return pl;
}

/* The cbc path reports the GLPK path's objective and bound, in the
 * same units (the single weighted objective, doc/formulation.md §4):
 * equal where both prove the optimum; and where cbc stops early (a cbc
 * first on PATH that stops it at the root, -maxNodes 0) an objective at
 * most GLPK's proven optimum and a bound at least it.  (CBC prints its
 * gap as "-0.00" when maximising; read as a bound, that once left the
 * plan with the node-class bound's objective, another scale.) */
START_TEST(cbc_objective_is_glpk_objective)
{
	if (!wilp_cbc_available())
		return;
	const int seeds[][2] = {{1, 16}, {2, 16}, {1, 24}};
	const int n = (int)(sizeof seeds / sizeof seeds[0]);
	double z[3];
	int equal = 0;
	for (int i = 0; i < n; i++) {
		wasp_plan *l = frag_run(seeds[i][0], seeds[i][1],
					WASP_SOLVER_GLPK);
		wasp_plan *c = frag_run(seeds[i][0], seeds[i][1],
					WASP_SOLVER_CBC);
		ck_assert_str_eq(l->sum.status, "optimal");
		z[i] = l->sum.objective;
		if (!strcmp(c->sum.status, "optimal")) {
			equal++;
			ck_assert_msg(c->sum.objective == z[i] &&
					  c->sum.bound == z[i],
				      "seed %d/%d: cbc %.1f (bound %.1f), "
				      "GLPK %.1f",
				      seeds[i][0], seeds[i][1],
				      c->sum.objective, c->sum.bound, z[i]);
		}
		wpl_free(l);
		wpl_free(c);
	}
	ck_assert_int_ge(equal, 2);

	/* cbc stopped at the root */
	char dir[64], stub[96];
	snprintf(dir, sizeof dir, "/tmp/wasp-cbcstop-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(stub, sizeof stub, "%s/cbc", dir);
	const char *old = getenv("PATH");
	char *save = strdup(old ? old : "/usr/bin:/bin");
	FILE *f = fopen(stub, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\nf=$1; shift\nPATH='%s' exec cbc \"$f\" "
		   "-maxNodes 0 \"$@\"\n",
		save);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(stub, 0700), 0);
	char *path = malloc(strlen(dir) + strlen(save) + 2);
	sprintf(path, "%s:%s", dir, save);
	setenv("PATH", path, 1);
	int stopped = 0;
	for (int i = 0; i < n; i++) {
		wasp_plan *c = frag_run(seeds[i][0], seeds[i][1],
					WASP_SOLVER_CBC);
		stopped += strcmp(c->sum.status, "optimal") != 0;
		ck_assert_msg(c->sum.objective <= z[i] &&
				  c->sum.bound >= z[i] &&
				  c->sum.bound >= c->sum.objective,
			      "seed %d/%d stopped: cbc %.1f (bound %.1f), "
			      "GLPK's optimum %.1f",
			      seeds[i][0], seeds[i][1], c->sum.objective,
			      c->sum.bound, z[i]);
		wpl_free(c);
	}
	setenv("PATH", save, 1);
	free(save);
	free(path);
	unlink(stub);
	rmdir(dir);
	ck_assert_int_ge(stopped, 1);
}
END_TEST

/* No cbc on PATH: --solver cbc is refused with a message, not a quiet
 * greedy plan. */
START_TEST(cbc_missing_is_an_error)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/wasp-nocbc-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *old = getenv("PATH");
	char *save = old ? strdup(old) : NULL;
	setenv("PATH", dir, 1);
	ck_assert(!wilp_cbc_available());
	wasp_snapshot *s = tu_load_file("models/examples/gpu16.yaml");
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.solver = WASP_SOLVER_CBC;
	wasp_plan *pl = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wasp_solve(s, &o, &pl, &e);
	if (save) {
		setenv("PATH", save, 1);
		free(save);
	}
	rmdir(dir);
	ck_assert_int_eq(rc, WASP_ESOLVER);
	ck_assert_ptr_null(pl);
	ck_assert_ptr_nonnull(strstr(e.msg, "cbc is not installed"));
	wasp_snapshot_free(s);
}
END_TEST

/* ------------------------------------------------------------- bound */

/* a's work vector is lexicographically at most the bound's. */
static void within_bound(const wilp_cbound *b, const wp_value *v,
			 const char *label)
{
	ck_assert_int_eq(b->ntier, v->nprio);
	for (int t = 0; t < b->ntier; t++) {
		ck_assert_int_eq(b->prio[t], v->prio[t]);
		ck_assert_msg(v->work[t] <= b->total[t] + 1e-9, "%s: total",
			      label);
		if (v->work[t] < b->ub[t] - 1e-9)
			return; /* below in this tier: below overall */
		ck_assert_msg(v->work[t] <= b->ub[t] + 1e-9,
			      "%s: tier %d work %.3f above its bound %.3f",
			      label, t, v->work[t], b->ub[t]);
	}
	ck_assert_double_le(wilp_cbound_value(b, v), wilp_cbound_bound(b));
}

/* The problem and greedy's plan again, under in->o as changed. */
static void reduce_again(tu_inst *in)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	wa_destroy(in->a);
	in->a = wa_new();
	ck_assert_int_eq(wsv_problem(in->snap, &in->o, in->a, &in->p, &e), 0);
	in->greedy = wp_sol_new(in->p, in->a);
	ck_assert_int_eq(wgr_solve(in->p, &in->o, in->greedy, &e), 0);
}

/* Greedy's plan, BestFit's and the ILP's (20 s) are all within b; the
 * ILP's value in v; true when the ILP proved it optimal. */
static bool plans_within(tu_inst *in, const wilp_cbound *b, wp_value *v)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	wp_evaluate(in->p, in->greedy, v);
	within_bound(b, v, "greedy");
	wp_sol *bf = wp_sol_new(in->p, in->a);
	if (wbl_solve(in->p, WASP_MODE_BESTFIT, &in->o, bf, &e) == 0) {
		tu_sol_verified(in->snap, in->p, bf, NULL, "bestfit");
		wp_evaluate(in->p, bf, v);
		within_bound(b, v, "bestfit");
	}
	wp_sol *opt = wp_sol_new(in->p, in->a);
	wilp_stats st;
	ck_assert_int_eq(wilp_solve(in->p, &in->o, wdl_after(wb_now(), 20),
				    in->greedy, opt, &st, &e),
			 0);
	tu_sol_verified(in->snap, in->p, opt, in->greedy, "ilp");
	wp_evaluate(in->p, opt, v);
	within_bound(b, v, "ilp");
	return !strcmp(st.status, "optimal");
}

/* The bound over node classes is at least the proven optimum, greedy's
 * plan and BestFit's, on instances of every family, with and without
 * evictions and --value. */
START_TEST(bound_above_every_plan)
{
	static const int fam[] = {0, 1, 2, 3}; /* gpu, nvlink, fragmented, mixed */
	int nproved = 0, ntight = 0;
	for (int i = 0; i < 8; i++) {
		wasp_gen_options g;
		small_frag(&g, 10 + i, i % 4 == 1 ? 36 : 16);
		g.family = fam[i % 4];
		if (g.family == 1)
			g.rack_nodes = 9;
		tu_inst in;
		tu_inst_gen(&in, &g);
		if (i >= 4) {
			in.o.value_resource = "nvidia.com/gpu";
			reduce_again(&in);
		}
		wilp_cbound b;
		wasp_error e;
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(wilp_class_bound(in.p, wdl_none(), &b, &e), 0);
		ck_assert(b.ok);
		wp_value v;
		if (plans_within(&in, &b, &v)) {
			nproved++;
			ntight += v.work[0] == b.ub[0];
		}
		tu_inst_free(&in);
	}
	ck_assert_int_ge(nproved, 4);
	/* not vacuous: the top tier's bound is met on some instance */
	ck_assert_int_ge(ntight, 1);
}
END_TEST


/* A bound is never below the plain LP's in any tier order: the rounded
 * rows and the gangs' domain columns only remove room. */
static bool bound_le(const wilp_cbound *a, const wilp_cbound *b)
{
	for (int t = 0; t < a->ntier; t++) {
		if (a->ub[t] < b->ub[t] - 1e-9)
			return true;
		if (a->ub[t] > b->ub[t] + 1e-9)
			return false;
	}
	return true;
}

/* The bound with its rounded rows and per-domain gang columns (§12) is
 * still above every plan -- the proven optimum, greedy's and BestFit's --
 * with and without evictions, on instances whose gangs need one rack or
 * block; it is at most the plain LP over node classes everywhere, and
 * strictly below it on some (so the new rows are not vacuous). */
START_TEST(bound_sees_domains)
{
	static const int fam[] = {0, 2, 3}; /* gpu, fragmented, mixed */
	int tighter = 0, typed = 0, nproved = 0;
	for (int i = 0; i < 6; i++) {
		if (i == 2)
			continue; /* mixed with evictions: slow to prove */
		wasp_gen_options g;
		small_frag(&g, 50 + i, 24);
		g.family = fam[i % 3];
		g.max_gang = 8;
		g.gangs = 12;
		g.busy = 0.6;
		tu_inst in;
		tu_inst_gen(&in, &g);
		if (i >= 3) {
			/* preemption off: a problem and greedy without it */
			in.o.preempt = WASP_PREEMPT_NEVER;
			reduce_again(&in);
		}
		wilp_cbound b, bp;
		wasp_error e;
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(wilp_class_bound(in.p, wdl_none(), &b, &e), 0);
		ck_assert_int_eq(
		    wilp_class_bound_plain(in.p, wdl_none(), &bp, &e), 0);
		ck_assert(b.ok && bp.ok);
		ck_assert_msg(bound_le(&b, &bp), "instance %d: above plain", i);
		tighter += wilp_cbound_bound(&b) < wilp_cbound_bound(&bp);
		typed += b.dom_gangs > 0;
		wp_value v;
		nproved += plans_within(&in, &b, &v);
		tu_inst_free(&in);
	}
	ck_assert_int_ge(nproved, 3);
	ck_assert_int_ge(typed, 3);
	ck_assert_int_ge(tighter, 2);
}
END_TEST

/* The instance g generates; with never, every PriorityClass at
 * preemptionPolicy: Never (no plan may evict). */
static void inst_gen(tu_inst *in, const wasp_gen_options *g, bool never)
{
	if (!never) {
		tu_inst_gen(in, g);
		return;
	}
	wasp_error e;
	memset(&e, 0, sizeof e);
	char *text = wasp_gen(g, &e);
	ck_assert_ptr_nonnull(text);
	const char *key = "kind: PriorityClass\n";
	size_t n = 0, kl = strlen(key);
	for (const char *s = strstr(text, key); s; s = strstr(s + kl, key))
		n++;
	ck_assert_int_ge(n, 1);
	const char *add = "preemptionPolicy: Never\n";
	char *out = malloc(strlen(text) + n * strlen(add) + 1), *o = out;
	ck_assert_ptr_nonnull(out);
	const char *s = text;
	for (const char *k = strstr(s, key); k; k = strstr(s, key)) {
		memcpy(o, s, (size_t)(k - s) + kl);
		o += (k - s) + kl;
		strcpy(o, add);
		o += strlen(add);
		s = k + kl;
	}
	strcpy(o, s);
	wasp_free(text);
	tu_inst_load(in, tu_load(out));
	free(out);
}

/* Whole gangs per domain (§12, column generation): on generated
 * instances of all four families, with and without evictions (every
 * PriorityClass preemptionPolicy: Never), the bound is above the proven
 * optimum, greedy's and BestFit's plans and never above the LP's own top
 * tier; the patterns ran on the instances with top-tier gangs. */
START_TEST(bound_patterns_valid)
{
	int nproved = 0, ran = 0;
	for (int i = 0; i < 8; i++) {
		wasp_gen_options g;
		small_frag(&g, 70 + i, i % 4 == 1 ? 36 : 16);
		g.family = i % 4;
		if (g.family == 1)
			g.rack_nodes = 9;
		g.priorities = 2;
		tu_inst in;
		inst_gen(&in, &g, i >= 4);
		wilp_cbound b;
		wasp_error e;
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(wilp_class_bound(in.p, wdl_none(), &b, &e), 0);
		ck_assert(b.ok);
		ck_assert(isnan(b.lp_ub0) || b.ub[0] <= b.lp_ub0 + 1e-9);
		ran += b.cg_rounds > 0;
		wp_value v;
		nproved += plans_within(&in, &b, &v);
		tu_inst_free(&in);
	}
	ck_assert_int_ge(nproved, 4);
	ck_assert_int_ge(ran, 4);
}
END_TEST

/* One rack of two 8-GPU nodes with 5 GPUs free on each (10 in all) and
 * three gangs of 1-GPU pods at one priority: 7, 4 and 4 pods, minCount
 * their size, in one rack (keyed) or anywhere.  Whole gangs fit 8 pods
 * (4 + 4; 7 + 4 is 11); the LP over node classes and domains may take 2/3
 * of the 7 and 4/3 of the 4s: 10.  The patterns' bound is below the LP's,
 * and above every plan, the proven optimum included. */
static void whole_gang_case(bool keyed)
{
	tu_buf b = {0};
	for (int i = 0; i < 2; i++) {
		char pod[16], node[8];
		snprintf(pod, sizeof pod, "run%d", i);
		snprintf(node, sizeof node, "n%d", i);
		tu_node_yaml(&b, node, "example.com/rack: r1");
		tu_pod_yaml(&b, pod, NULL, node, 3, 0);
	}
	gang_yaml(&b, "g0", 7, 1, 0, keyed ? "example.com/rack" : NULL);
	gang_yaml(&b, "g1", 4, 1, 0, keyed ? "example.com/rack" : NULL);
	gang_yaml(&b, "g2", 4, 1, 0, keyed ? "example.com/rack" : NULL);
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	wasp_error e;
	memset(&e, 0, sizeof e);
	wilp_cbound bd, bp;
	ck_assert_int_eq(wilp_class_bound(in.p, wdl_none(), &bd, &e), 0);
	ck_assert_int_eq(wilp_class_bound_plain(in.p, wdl_none(), &bp, &e), 0);
	ck_assert(bd.cg_rounds > 0 && !isnan(bd.lp_ub0));
	ck_assert_msg(bd.ub[0] < bd.lp_ub0 - 0.5,
		      "%s: patterns %.0f, not below the LP's %.0f",
		      keyed ? "keyed" : "anywhere", bd.ub[0], bd.lp_ub0);
	ck_assert(bd.ub[0] < bp.ub[0] - 0.5);
	/* the MIP over whole gangs (bound_mip.c) proves 8 too: its LP
	 * alone says 10 (7 + 3/4 of a 4) */
	ck_assert_ptr_nonnull(bd.mip_status);
	ck_assert_str_eq(bd.mip_status, "proven");
	ck_assert_msg(bd.mip_ub0 < bd.lp_ub0 - 0.5, "%s: MIP %.0f, LP %.0f",
		      keyed ? "keyed" : "anywhere", bd.mip_ub0, bd.lp_ub0);
	wp_value v;
	ck_assert(plans_within(&in, &bd, &v)); /* proven optimal */
	ck_assert_double_eq_tol(bd.mip_ub0, v.work[0], 1e-9);
	tu_inst_free(&in);
}

/* The pieces rows (bound_mip.c, split_rows): two racks of one node
 * with 5 GPUs free each (room for one 4-GPU pod and a piece of 1), a
 * gang of two 1-GPU pods that must share a rack, and two lone 4-GPU
 * pods.  Every plan admits at most 3 pods: both 4-GPU pods leave one
 * GPU per rack, and the gang in a rack takes that rack's room for a
 * 4-GPU pod.  The LP puts half the gang in each rack's piece and says
 * 4; with the pieces rows a gang's share of a rack's pieces needs the
 * gang there, and the bound is 3. */
START_TEST(bound_pieces_tighter)
{
	tu_buf b = {0};
	for (int i = 0; i < 2; i++) {
		char pod[16], node[8], lab[40];
		snprintf(pod, sizeof pod, "run%d", i);
		snprintf(node, sizeof node, "n%d", i);
		snprintf(lab, sizeof lab, "example.com/rack: r%d", i);
		tu_node_yaml(&b, node, lab);
		tu_pod_yaml(&b, pod, NULL, node, 3, 0);
	}
	gang_yaml(&b, "g", 2, 1, 0, "example.com/rack");
	gang_yaml(&b, "a", 1, 4, 0, NULL);
	gang_yaml(&b, "b", 1, 4, 0, NULL);
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	wasp_error e;
	memset(&e, 0, sizeof e);
	wilp_cbound bd, bp;
	ck_assert_int_eq(wilp_class_bound(in.p, wdl_none(), &bd, &e), 0);
	ck_assert_int_eq(wilp_class_bound_plain(in.p, wdl_none(), &bp, &e), 0);
	ck_assert_int_gt(bd.mip_split, 0);
	ck_assert_msg(bp.ub[0] > 4 - 1e-6, "plain LP %.2f", bp.ub[0]);
	ck_assert_msg(fabs(bd.ub[0] - 3) < 1e-6, "bound %.2f, not 3",
		      bd.ub[0]);
	wp_value v;
	ck_assert(plans_within(&in, &bd, &v)); /* proven optimal */
	ck_assert_double_eq_tol(v.work[0], 3, 1e-9);
	tu_inst_free(&in);
}
END_TEST

/* A fragmented cluster in three levels of two (gangs keyed to racks,
 * blocks or nothing, up to 12 pods, two priorities; with never, no
 * evictions), and greedy's plan, verified. */
static void frag_blocks(tu_inst *in, int seed, int nodes, int gangs,
			bool never)
{
	wasp_gen_options g;
	small_frag(&g, seed, nodes);
	g.family = 2; /* fragmented */
	g.levels = 3;
	g.fanout = 2;
	g.gangs = gangs;
	g.max_gang = 12;
	g.priorities = 2;
	inst_gen(in, &g, never);
	tu_sol_verified(in->snap, in->p, in->greedy, NULL, "greedy");
}

/* The pieces rows on generated instances whose gangs need a rack or a
 * block, with and without evictions: the bound is never below the top
 * tier's true optimum (cbc's, on the model written with --top-tier),
 * and the rows were added on every one. */
START_TEST(bound_pieces_valid)
{
	if (!wilp_cbc_available())
		return;
	int checked = 0;
	for (int i = 0; i < 8; i++) {
		tu_inst in;
		frag_blocks(&in, 120 + i, 32, 12, i % 2);
		wilp_cbound b;
		checked += !isnan(bound_holds_top_tier(&in, &b, i));
		ck_assert_int_gt(b.mip_split, 0);
		tu_inst_free(&in);
	}
	ck_assert_int_ge(checked, 6);
}
END_TEST

/* The class bound of in (in b) and the whole-gang MIP's answers
 * (WILP_HINTS per group, in in's arena). */
static int *bound_hints(tu_inst *in, wilp_cbound *b)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	int *hint = wa_calloc(in->a, WILP_HINTS * (size_t)in->p->ngroups + 1,
			      sizeof *hint);
	ck_assert_ptr_nonnull(hint);
	ck_assert_int_eq(wilp_class_bound_hint(in->p, wdl_none(), hint, b, &e),
			 0);
	return hint;
}

/* The second and third answers of the whole-gang MIP name domains of
 * the gangs' keys, for top-tier gangs only. */
static void answers_valid(const tu_inst *in, const int *hint,
			  const wilp_cbound *b)
{
	for (int k = 1; k < WILP_HINTS; k++)
		for (int gi = 0; gi < in->p->ngroups; gi++) {
			int h = hint[(size_t)k * in->p->ngroups + gi];
			const wp_group *wg = &in->p->groups[gi];
			if (h < 0)
				continue;
			ck_assert_int_eq(wg->priority, b->prio[0]);
			ck_assert_int_lt(h, wg->key >= 0
						? in->p->topo->keys[wg->key].ndom
						: 1);
		}
}

/* The coarser gangs' pods spread over the racks (bound_mip.c,
 * spread_cols), on generated instances with gangs keyed to racks and
 * blocks and gangs without a key, with and without evictions: the bound
 * is never below the top tier's true optimum (cbc's, on the model
 * written with --top-tier), the columns were added on every one, and
 * the bound is lower for them on some (broken on purpose: the pods not
 * linked to their racks, the test fails at that count; each rack
 * holding half its fit, the bound falls below cbc's optimum); the
 * third answer, taken from that LP, leads the cleared pass to a plan
 * the verifier passes. */
START_TEST(bound_spread_valid)
{
	if (!wilp_cbc_available())
		return;
	int checked = 0, tighter = 0;
	for (int i = 0; i < 8; i++) {
		tu_inst in;
		frag_blocks(&in, 150 + i, 48, 16, i % 2);
		wilp_cbound b;
		double z = bound_holds_top_tier(&in, &b, i);
		checked += !isnan(z);
		ck_assert_int_gt(b.mip_spread, 0);
		/* the third answer, from the LP with the spread, leads the
		 * cleared pass to a plan the verifier passes, within it */
		wilp_cbound bh;
		wasp_error e;
		memset(&e, 0, sizeof e);
		int *hint = bound_hints(&in, &bh);
		ck_assert_double_eq_tol(bh.ub[0], b.ub[0], 1e-9);
		answers_valid(&in, hint, &bh);
		wp_sol *s = wp_sol_new(in.p, in.a);
		ck_assert_int_eq(wgr_solve_led(in.p, &in.o, s, 0,
					       hint + 2 * (size_t)in.p->ngroups,
					       true, &e),
				 0);
		tu_sol_verified(in.snap, in.p, s, NULL, "cleared pass");
		wp_value vs;
		wp_evaluate(in.p, s, &vs);
		ck_assert(vs.work[0] <= b.ub[0] + 1e-6);
		ck_assert(b.mip_ub0 <= b.mip_unspread + 1e-9);
		/* (where branch and bound ran, it may be what lowered it) */
		tighter += b.mip_nodes == 0 && b.mip_ub0 < b.mip_unspread - 0.5;
		tu_inst_free(&in);
	}
	ck_assert_int_ge(checked, 6);
	/* seed 152, with evictions: 50 -> 49 */
	ck_assert_int_ge(tighter, 1);
}
END_TEST

/* The MIP over whole gangs (doc/formulation.md §12): on generated
 * instances whose gangs need a rack or block, with and without
 * evictions, the bound stays above every plan (the proven optimum
 * included), is below the LP alone on some, and its answer's domains
 * are domains of the gangs' keys, of top-tier gangs only; the greedy
 * pass that follows them gives a plan the verifier passes. */
START_TEST(bound_mip_valid)
{
	int nproved = 0, tighter = 0, hinted_runs = 0;
	for (int i = 0; i < 6; i++) {
		wasp_gen_options g;
		small_frag(&g, 90 + i, 24);
		g.family = i % 2 ? 3 : 2;
		g.max_gang = 8;
		g.gangs = 12;
		g.busy = 0.6;
		g.priorities = 2;
		tu_inst in;
		inst_gen(&in, &g, i >= 3);
		wilp_cbound b;
		wasp_error e;
		memset(&e, 0, sizeof e);
		int *hint = bound_hints(&in, &b);
		ck_assert(b.ok);
		ck_assert_ptr_nonnull(b.mip_status);
		ck_assert(!isnan(b.mip_ub0) && b.ub[0] <= b.mip_ub0 + 1e-9);
		tighter += b.mip_ub0 < b.lp_ub0 - 0.5;
		int n = 0;
		for (int gi = 0; gi < in.p->ngroups; gi++) {
			const wp_group *wg = &in.p->groups[gi];
			if (hint[gi] < 0)
				continue;
			n++;
			ck_assert_int_eq(wg->priority, b.prio[0]);
			ck_assert(wg->gang);
			int nd = wg->key >= 0 ? in.p->topo->keys[wg->key].ndom
					      : 1;
			ck_assert_int_lt(hint[gi], nd);
		}
		ck_assert_int_eq(n, b.mip_hinted);
		answers_valid(&in, hint, &b);
		if (n) {
			wp_sol *s = wp_sol_new(in.p, in.a);
			ck_assert_int_eq(
			    wgr_solve_led(in.p, &in.o, s, 0, hint, false, &e), 0);
			tu_sol_verified(in.snap, in.p, s, NULL, "mip pass");
			wp_value vs;
			wp_evaluate(in.p, s, &vs);
			within_bound(&b, &vs, "mip pass");
			hinted_runs++;
		}
		wp_value v;
		nproved += plans_within(&in, &b, &v);
		tu_inst_free(&in);
	}
	ck_assert_int_ge(nproved, 3);
	ck_assert_int_ge(tighter, 1);
	ck_assert_int_ge(hinted_runs, 3);
}
END_TEST

/* wgr_solve_led with clear: one rack of 8-GPU nodes; n0 holds a running
 * top-priority pod of 4 GPUs, and every node a lower one of 4.  At the
 * top priority a rack-keyed gang of one 4-GPU pod (led first: the finer
 * key) and a gang of one 8-GPU pod.  Led without clearing, the 4 takes
 * n1's free half and the 8 finds no node; cleared, the 4 goes beside the
 * running one on n0, the 8 gets a whole node, and a lower pod that still
 * fits (on n2, with three nodes) runs again.  Every plan verified. */
static int unit_on(const wp_problem *p, const char *node)
{
	for (int u = 0; u < p->nunits; u++) {
		const ws_pod *pod = &p->snap->pods[p->units[u].pods[0]];
		if (pod->node >= 0 && !strcmp(p->snap->nodes[pod->node].name,
					      node) &&
		    pod->priority < 100)
			return u;
	}
	return -1;
}

START_TEST(led_pass_clears_top_level)
{
	for (int nodes = 2; nodes <= 3; nodes++) {
		tu_buf b = {0};
		for (int i = 0; i < nodes; i++) {
			char node[8], pod[16];
			snprintf(node, sizeof node, "n%d", i);
			tu_node_yaml(&b, node, "example.com/rack: r0");
			snprintf(pod, sizeof pod, "low%d", i);
			tu_pod_yaml(&b, pod, NULL, node, 4, 10);
		}
		tu_pod_yaml(&b, "top", NULL, "n0", 4, 100);
		gang_yaml(&b, "a", 1, 4, 100, "example.com/rack");
		gang_yaml(&b, "b", 1, 8, 100, NULL);
		tu_inst in;
		tu_inst_load(&in, tu_load_buf(&b));
		const wp_problem *p = in.p;
		wasp_error e;
		memset(&e, 0, sizeof e);
		int ga = p->groups[0].key >= 0 ? 0 : 1, gb = 1 - ga;
		int hint[2];
		hint[ga] = p->topo->keys[p->groups[ga].key].node_dom[0];
		hint[gb] = 0;
		if (nodes == 2) {
			wp_sol *s = wp_sol_new(p, in.a);
			ck_assert_int_eq(
			    wgr_solve_led(p, &in.o, s, 0, hint, false, &e), 0);
			tu_sol_verified(in.snap, p, s, NULL, "led");
			ck_assert(s->admit[ga] && !s->admit[gb]);
		}
		wp_sol *s = wp_sol_new(p, in.a);
		ck_assert_int_eq(wgr_solve_led(p, &in.o, s, 0, hint, true, &e),
				 0);
		tu_sol_verified(in.snap, p, s, NULL, "led, cleared");
		ck_assert(s->admit[ga] && s->admit[gb]);
		const wp_class *ca = &p->classes[p->groups[ga].classes[0]];
		for (int k = 0; k < ca->nelig; k++)
			if (wp_x(s, ca->off + k))
				ck_assert_str_eq(p->snap->nodes[ca->elig[k]].name,
						 "n0");
		ck_assert(s->evict[unit_on(p, "n0")]);
		ck_assert(s->evict[unit_on(p, "n1")]);
		if (nodes == 3)
			ck_assert(!s->evict[unit_on(p, "n2")]);
		tu_inst_free(&in);
	}
}
END_TEST

/* wgr_led_hint, and a pass led back by it (lead.c's wrn_relead): one rack of
 * two 8-GPU nodes; at the top priority rack-keyed gangs a and c of one
 * 4-GPU pod each and b of one 8-GPU pod, and at a lower one gang l of
 * one 4-GPU pod.  A plan with a on n0, c on n1 and l on neither leaves b
 * waiting.  Its hint gives a and c their rack, b (waiting) and l (lower)
 * none, or b a bound's domain for it; led back by it, a and c share a
 * node and b takes the other.
 * Every plan verified. */
static int group_named(const wp_problem *p, const char *name)
{
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].sg >= 0 &&
		    !strcmp(p->snap->groups[p->groups[g].sg].name, name))
			return g;
	ck_abort_msg("no group %s", name);
	return -1;
}

static void place_one(const wp_problem *p, wp_sol *s, int g, int node)
{
	int sl = wp_slot(p, p->groups[g].classes[0], node);
	ck_assert_int_ge(sl, 0);
	ck_assert_int_eq(wp_x_set(s, sl, 1), 0);
	s->admit[g] = 1;
}

START_TEST(led_back_repacks_plan)
{
	tu_buf b = {0};
	tu_node_yaml(&b, "n0", "example.com/rack: r0");
	tu_node_yaml(&b, "n1", "example.com/rack: r0");
	gang_yaml(&b, "a", 1, 4, 100, "example.com/rack");
	gang_yaml(&b, "c", 1, 4, 100, "example.com/rack");
	gang_yaml(&b, "b", 1, 8, 100, "example.com/rack");
	gang_yaml(&b, "l", 1, 4, 10, NULL);
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	const wp_problem *p = in.p;
	int ga = group_named(p, "a"), gc = group_named(p, "c"),
	    gb = group_named(p, "b"), gl = group_named(p, "l");
	wp_sol *s = wp_sol_new(p, in.a);
	wp_sol_no_disruption(p, s);
	place_one(p, s, ga, 0);
	place_one(p, s, gc, 1);
	tu_sol_verified(in.snap, p, s, NULL, "fragmented");
	int hint[4];
	ck_assert_int_eq(wgr_led_hint(p, s, NULL, hint), 2);
	int r0 = p->topo->keys[p->groups[ga].key].node_dom[0];
	ck_assert_int_ge(r0, 0);
	ck_assert_int_eq(hint[ga], r0);
	ck_assert_int_eq(hint[gc], r0);
	ck_assert_int_eq(hint[gb], -1);
	ck_assert_int_eq(hint[gl], -1);
	/* a bound's answer: b, waiting, gets its domain; l is lower */
	int also[4] = {-1, -1, -1, -1}, more[4];
	also[gb] = r0;
	also[gl] = 0;
	also[ga] = r0 + 1; /* a's own domain wins */
	ck_assert_int_eq(wgr_led_hint(p, s, also, more), 3);
	ck_assert_int_eq(more[ga], r0);
	ck_assert_int_eq(more[gb], r0);
	ck_assert_int_eq(more[gl], -1);
	wasp_error e;
	memset(&e, 0, sizeof e);
	wp_sol *t = wp_sol_new(p, in.a);
	ck_assert_int_eq(wgr_solve_led(p, &in.o, t, 0, hint, true, &e), 0);
	tu_sol_verified(in.snap, p, t, NULL, "led back");
	ck_assert(t->admit[ga] && t->admit[gc] && t->admit[gb]);
	ck_assert(!t->admit[gl]);
	const wp_class *ca = &p->classes[p->groups[ga].classes[0]];
	const wp_class *cc = &p->classes[p->groups[gc].classes[0]];
	int sa = wp_x_next(t, ca->off, ca->off + ca->nelig);
	int sc = wp_x_next(t, cc->off, cc->off + cc->nelig);
	ck_assert_int_eq(ca->elig[sa - ca->off], cc->elig[sc - cc->off]);
	tu_inst_free(&in);
}
END_TEST

/* wgr_solve_led: two racks of one 8-GPU node each and, at one priority,
 * gangs of 8 and of 6 one-GPU pods that each need a rack.  Greedy's own
 * order takes the 8 first, into the first rack; led with the 6 confined
 * to the first rack, the 6 goes first, there, and the 8 takes the other
 * rack: both admitted, the plan clean in the verifier. */
START_TEST(led_pass_follows_hints)
{
	tu_buf b = {0};
	for (int i = 0; i < 2; i++) {
		char node[8], labels[32];
		snprintf(node, sizeof node, "n%d", i);
		snprintf(labels, sizeof labels, "example.com/rack: r%d", i);
		tu_node_yaml(&b, node, labels);
	}
	gang_yaml(&b, "g0", 8, 1, 0, "example.com/rack");
	gang_yaml(&b, "g1", 6, 1, 0, "example.com/rack");
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	wasp_error e;
	memset(&e, 0, sizeof e);
	const wp_problem *p = in.p;
	int g8 = p->groups[0].size == 8 ? 0 : 1, g6 = 1 - g8;
	ck_assert_int_eq(p->groups[g6].size, 6);
	const wtp_key *K = &p->topo->keys[p->groups[g6].key];
	int first = K->node_dom[0];
	/* greedy's own order: the 8 in the first rack */
	wp_sol *s = in.greedy;
	const wp_class *c8 = &p->classes[p->groups[g8].classes[0]];
	int on0 = 0;
	for (int k = 0; k < c8->nelig; k++)
		if (c8->elig[k] == 0)
			on0 = wp_x(s, c8->off + k);
	ck_assert_int_eq(on0, 8);
	/* led: the 6 first, in the first rack */
	int hint[2] = {-1, -1};
	hint[g6] = first;
	s = wp_sol_new(p, in.a);
	ck_assert_int_eq(wgr_solve_led(p, &in.o, s, 0, hint, false, &e), 0);
	tu_sol_verified(in.snap, p, s, NULL, "led");
	ck_assert(s->admit[g6] && s->admit[g8]);
	const wp_class *c6 = &p->classes[p->groups[g6].classes[0]];
	for (int k = 0; k < c6->nelig; k++)
		if (wp_x(s, c6->off + k))
			ck_assert_int_eq(K->node_dom[c6->elig[k]], first);
	/* both held to the first rack: the 8 (larger) fills it, and the
	 * 6 waits with a reason that names the pass, not running pods */
	hint[g8] = first;
	s = wp_sol_new(p, in.a);
	ck_assert_int_eq(wgr_solve_led(p, &in.o, s, 0, hint, false, &e), 0);
	tu_sol_verified(in.snap, p, s, NULL, "led, one rack");
	ck_assert(s->admit[g8] && !s->admit[g6]);
	ck_assert_ptr_nonnull(s->reason[g6]);
	ck_assert_msg(strstr(s->reason[g6], "whole-gang answer") &&
			  !strstr(s->reason[g6], "running pods"),
		      "reason: %s", s->reason[g6]);
	tu_inst_free(&in);
}
END_TEST

START_TEST(bound_whole_gangs_tighter)
{
	whole_gang_case(true);
	whole_gang_case(false);
}
END_TEST

/* --------------------------------------------------------------- lns */

/* The neighbourhood search never ends worse than its start, its plan is
 * feasible and clean in the verifier, it stays within the bound, and it
 * improves some of these starts. */
START_TEST(lns_never_worse)
{
	int better = 0, ran = 0;
	for (int i = 0; i < 3; i++) {
		wasp_gen_options g;
		small_frag(&g, 30 + i, 48);
		g.family = i % 3 == 0 ? 0 : i % 3 == 1 ? 2 : 3;
		g.max_gang = 12;
		tu_inst in;
		tu_inst_gen(&in, &g);
		if (!wilp_lns_applies(in.p, NULL)) {
			tu_inst_free(&in);
			continue;
		}
		ran++;
		wp_sol *l = wp_sol_new(in.p, in.a);
		wp_sol_copy(in.p, l, in.greedy);
		wilp_lns_stats ls;
		wasp_error e;
		memset(&e, 0, sizeof e);
		in.o.threads = 2;
		ck_assert_int_eq(wilp_lns_rounds(in.p, &in.o, wdl_none(), 2, 60, l,
					 &ls, &e),
				 0);
		ck_assert_int_gt(ls.tried, 0);
		tu_sol_verified(in.snap, in.p, l, in.greedy, "lns");
		wp_value vg, vl;
		wp_evaluate(in.p, in.greedy, &vg);
		wp_evaluate(in.p, l, &vl);
		int c = wp_value_cmp(&vl, &vg);
		ck_assert_int_ge(c, 0);
		/* taken answers are strict improvements */
		ck_assert(ls.improved == 0 || c > 0);
		better += c > 0;
		wilp_cbound b;
		ck_assert_int_eq(wilp_class_bound(in.p, wdl_none(), &b, &e), 0);
		within_bound(&b, &vl, "lns");
		tu_inst_free(&in);
	}
	ck_assert_int_ge(ran, 2);
	ck_assert_int_ge(better, 1);
}
END_TEST

/* The same plan on 1 and on 2 threads when no sub-ILP was cut by its
 * time limit (doc/formulation.md §12). */
START_TEST(lns_threads_same)
{
	int compared = 0;
	for (int i = 0; i < 2; i++) {
		wasp_gen_options g;
		small_frag(&g, 40 + i, 48);
		g.family = i == 1 ? 2 : 0;
		g.max_gang = 12;
		tu_inst in;
		tu_inst_gen(&in, &g);
		wp_sol *l[2];
		wilp_lns_stats ls[2];
		for (int t = 0; t < 2; t++) {
			l[t] = wp_sol_new(in.p, in.a);
			wp_sol_copy(in.p, l[t], in.greedy);
			in.o.threads = t + 1;
			wasp_error e;
			memset(&e, 0, sizeof e);
			ck_assert_int_eq(wilp_lns_rounds(in.p, &in.o, wdl_none(),
							 2, 60, l[t], &ls[t],
							 &e),
					 0);
			tu_sol_verified(in.snap, in.p, l[t], in.greedy, "lns");
		}
		/* with 60 s per sub-ILP none is cut on these; a cut one
		 * would make the comparison meaningless */
		if (ls[0].cut || ls[1].cut) {
			tu_inst_free(&in);
			continue;
		}
		compared++;
		ck_assert_int_eq(ls[0].improved, ls[1].improved);
		ck_assert_int_eq(ls[0].rounds, ls[1].rounds);
		tu_sol_same(in.p, l[0], l[1], "search, 1 vs 2 threads");
		tu_inst_free(&in);
	}
	ck_assert_int_ge(compared, 1);
}
END_TEST

/* The search (two sweeps, 60 s sub-ILPs) from in's greedy plan on 1
 * and on 2 threads, where it applies: both plans clean in the verifier
 * and never worse than greedy's, and the same; ls and v per thread
 * count (index 0: 1 thread). */
static void lns_both_threads(tu_inst *in, const char *label,
			     wilp_lns_stats ls[2], wp_value v[2])
{
	const char *why = NULL;
	ck_assert_msg(wilp_lns_applies(in->p, &why), "%s", why);
	wasp_error e;
	memset(&e, 0, sizeof e);
	wp_sol *l[2];
	for (int t = 0; t < 2; t++) {
		l[t] = wp_sol_new(in->p, in->a);
		wp_sol_copy(in->p, l[t], in->greedy);
		in->o.threads = t + 1;
		ck_assert_int_eq(wilp_lns_rounds(in->p, &in->o, wdl_none(), 2,
						 60, l[t], &ls[t], &e),
				 0);
		tu_sol_verified(in->snap, in->p, l[t], in->greedy, label);
		wp_evaluate(in->p, l[t], &v[t]);
	}
	tu_sol_same(in->p, l[0], l[1], label);
}

/* One block of `racks` racks of 20 8-GPU nodes, all busy but `nfree`
 * nodes in each; three block-keyed gangs of one priority: "a" (`na`
 * pods of 6 GPUs), "b" and "c" (`nb` pods of 4 GPUs each), a first in
 * the input.  Greedy takes the most pods first: a, and neither b nor c
 * fits in what it leaves.  Returns the search's top-priority pods (the
 * same on 1 and 2 threads, every plan verified) and its stats from 2
 * threads. */
static double block_gangs_case(int racks, int nfree, int na, int nb,
			       wilp_lns_stats *out)
{
	tu_buf b = {0};
	topology_yaml(&b, "  - nodeLabel: example.com/block\n"
			  "  - nodeLabel: example.com/rack\n");
	for (int n = 0; n < 20 * racks; n++) {
		char pod[16], node[8], labels[64];
		snprintf(node, sizeof node, "n%02d", n);
		snprintf(labels, sizeof labels,
			 "example.com/block: b0, example.com/rack: r%d", n / 20);
		tu_node_yaml(&b, node, labels);
		if (n % 20 < 20 - nfree) {
			snprintf(pod, sizeof pod, "run%02d", n);
			tu_pod_yaml(&b, pod, NULL, node, 8, 100);
		}
	}
	gang_yaml(&b, "a", na, 6, 100, "example.com/block");
	gang_yaml(&b, "b", nb, 4, 100, "example.com/block");
	gang_yaml(&b, "c", nb, 4, 100, "example.com/block");
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	wp_value vg, vl[2];
	wp_evaluate(in.p, in.greedy, &vg);
	ck_assert_double_eq(vg.work[0], na);
	wilp_lns_stats ls[2];
	lns_both_threads(&in, "block gangs", ls, vl);
	for (int t = 0; t < 2; t++) {
		ck_assert_str_eq(ls[t].key, "example.com/rack");
		ck_assert_int_eq(ls[t].cut, 0);
	}
	ck_assert_double_eq(vl[0].work[0], vl[1].work[0]);
	*out = ls[1];
	tu_inst_free(&in);
	return vl[0].work[0];
}

/* Two racks, three free nodes in each; a has 5 pods, b and c 4: a takes
 * five of the six free nodes (5 pods).  No rack holds b or c beside a,
 * and a rack's neighbourhood cannot free a, which reaches into the
 * other rack; the part neighbourhood of both racks (WLNS_PART_NODES)
 * frees a and offers b and c: 8 pods. */
START_TEST(lns_part_admits_block_gang)
{
	wilp_lns_stats ls;
	ck_assert_double_eq(block_gangs_case(2, 3, 5, 4, &ls), 8);
	ck_assert_int_ge(ls.part_improved, 1);
	ck_assert_int_eq(ls.block_tried, 0); /* 40 nodes: parts hold it */
}
END_TEST

/* Four racks (80 nodes, more than WLNS_PART_NODES), two free nodes in
 * each; a has 7 pods, b and c 6: a takes seven of the eight free nodes,
 * so it reaches into all four racks, and no part neighbourhood (three
 * racks) frees it: 7 pods.  The block neighbourhood, where only the top
 * priority's block-keyed gangs are free, swaps it for b and c: 12. */
START_TEST(lns_block_admits_block_gangs)
{
	wilp_lns_stats ls;
	ck_assert_double_eq(block_gangs_case(4, 2, 7, 6, &ls), 12);
	ck_assert_int_ge(ls.block_improved, 1);
}
END_TEST

/* Two racks of 20 8-GPU nodes (one topology level), at one priority:
 * r0 has 4 free nodes and 2 with 4 GPUs free, r1 4 free nodes and 6
 * with 4 free; every other GPU is held by a pod of that priority.
 * Rack-keyed gangs: "s" of 6 pods of 4 GPUs, first in the input, "l1"
 * and "l2" of 4 pods of 8 GPUs.  Greedy takes s first (the most pods)
 * into r0, the rack with less room, where it spills onto two free
 * nodes; l1 takes r1's free nodes and l2 waits: 10 pods.  A rack's
 * plain neighbourhood (one rack: two exceed WLNS_MAX_NODES) can only
 * trade s for l2 there, 4 pods for 6; the top neighbourhood of both
 * racks moves s into r1's pieces and admits both large gangs: 14. */
START_TEST(lns_top_moves_gang_between_domains)
{
	tu_buf b = {0};
	topology_yaml(&b, "  - nodeLabel: example.com/rack\n");
	for (int n = 0; n < 40; n++) {
		int r = n / 20, i = n % 20, pieces = r ? 6 : 2;
		char pod[16], node[8], labels[40];
		snprintf(node, sizeof node, "n%02d", n);
		snprintf(labels, sizeof labels, "example.com/rack: r%d", r);
		tu_node_yaml(&b, node, labels);
		snprintf(pod, sizeof pod, "run%02d", n);
		if (i >= 4 && i < 4 + pieces)
			tu_pod_yaml(&b, pod, NULL, node, 4, 100);
		else if (i >= 4)
			tu_pod_yaml(&b, pod, NULL, node, 8, 100);
	}
	gang_yaml(&b, "s", 6, 4, 100, "example.com/rack");
	gang_yaml(&b, "l1", 4, 8, 100, "example.com/rack");
	gang_yaml(&b, "l2", 4, 8, 100, "example.com/rack");
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	wp_value vg, vl[2];
	wp_evaluate(in.p, in.greedy, &vg);
	ck_assert_double_eq(vg.work[0], 10);
	wilp_lns_stats ls[2];
	lns_both_threads(&in, "top neighbourhood", ls, vl);
	for (int t = 0; t < 2; t++) {
		ck_assert_str_eq(ls[t].key, "example.com/rack");
		ck_assert_int_eq(ls[t].cut, 0);
		ck_assert_double_eq(vl[t].work[0], 14);
		ck_assert_int_ge(ls[t].top_improved, 1);
		ck_assert_int_eq(ls[t].part_tried + ls[t].block_tried, 0);
	}
	tu_inst_free(&in);
}
END_TEST

/* Two racks of 20 8-GPU nodes, free but for one low-priority pod; at
 * one priority an unkeyed gang "big" of 40 8-GPU pods, first in the
 * input, and two unkeyed gangs of 30 4-GPU pods.  Greedy takes the most
 * pods first: big, over both racks, evicting the low pod: 40 pods.  No
 * rack's neighbourhood can free big; the smallest-pods-first start the
 * search makes where units may be evicted (lns.c, alt_start) admits
 * both small gangs: 60 pods, and the search goes on from it. */
START_TEST(lns_small_start_with_evictions)
{
	tu_buf b = {0};
	topology_yaml(&b, "  - nodeLabel: example.com/rack\n");
	for (int n = 0; n < 40; n++) {
		char node[8], labels[32];
		snprintf(node, sizeof node, "n%02d", n);
		snprintf(labels, sizeof labels, "example.com/rack: r%d", n / 20);
		tu_node_yaml(&b, node, labels);
	}
	tu_pod_yaml(&b, "low", NULL, "n00", 1, 10);
	gang_yaml(&b, "big", 40, 8, 100, NULL);
	gang_yaml(&b, "small1", 30, 4, 100, NULL);
	gang_yaml(&b, "small2", 30, 4, 100, NULL);
	tu_inst in;
	tu_inst_load(&in, tu_load_buf(&b));
	wp_value vg, vl[2];
	wp_evaluate(in.p, in.greedy, &vg);
	ck_assert_double_eq(vg.work[0], 40);
	ck_assert_double_eq(vg.evictions, 1);
	wilp_lns_stats ls[2];
	lns_both_threads(&in, "smallest-pods start", ls, vl);
	for (int t = 0; t < 2; t++) {
		ck_assert_double_eq(vl[t].work[0], 60);
		ck_assert(ls[t].alt);
	}
	tu_inst_free(&in);
}
END_TEST

/* -------------------------------------------- smallest pods first */

/* Where nothing may be evicted, the restarts start with a pass that
 * takes each level's groups with the smallest pods first (order.c):
 * its plan and theirs pass the verifier, the restarts are never worse
 * than greedy and give the same plan on 1 and 2 threads, and the pass
 * alone beats greedy's order on some generated instances (the work
 * tiers count pods). */
START_TEST(small_first_pass)
{
	int beats = 0;
	for (int i = 0; i < 4; i++) {
		wasp_gen_options g;
		small_frag(&g, 50 + i, 64);
		g.family = i % 2 ? 3 : 2;
		g.max_gang = 16;
		g.gangs = 40;
		g.priorities = 3;
		tu_inst in;
		tu_inst_gen(&in, &g);
		in.o.preempt = WASP_PREEMPT_NEVER;
		reduce_again(&in);
		int32_t top;
		ck_assert(!wpe_top_priority(in.p, &top));
		wasp_error e;
		memset(&e, 0, sizeof e);
		wp_value vg, vs, vr[2];
		wp_evaluate(in.p, in.greedy, &vg);
		wp_sol *sm = wp_sol_new(in.p, in.a);
		ck_assert_int_eq(wgr_solve_seeded(in.p, &in.o, sm,
						  WGR_SEED_SMALL, &e),
				 0);
		tu_sol_verified(in.snap, in.p, sm, NULL, "smallest first");
		wp_evaluate(in.p, sm, &vs);
		beats += wp_value_cmp(&vs, &vg) > 0;
		wp_sol *r[2];
		for (int t = 0; t < 2; t++) {
			r[t] = wp_sol_new(in.p, in.a);
			wp_sol_copy(in.p, r[t], in.greedy);
			in.o.threads = t + 1;
			int ran, better;
			ck_assert_int_eq(wgr_restarts(in.p, &in.o, 24,
						      wdl_none(), r[t], &ran,
						      &better, &e),
					 0);
			tu_sol_verified(in.snap, in.p, r[t], NULL, "restarts");
			wp_evaluate(in.p, r[t], &vr[t]);
			/* never worse than greedy, nor than the pass it
			 * starts with */
			ck_assert_int_ge(wp_value_cmp(&vr[t], &vg), 0);
			ck_assert_int_ge(wp_value_cmp(&vr[t], &vs), 0);
		}
		ck_assert_int_eq(wp_value_cmp(&vr[0], &vr[1]), 0);
		tu_sol_same(in.p, r[0], r[1], "restarts, 1 vs 2 threads");
		tu_inst_free(&in);
	}
	ck_assert_int_ge(beats, 1);
}
END_TEST

/* Three 8-GPU nodes; a gang of three 8-GPU pods first in the input,
 * then two groups of three 1-GPU pods, all of one priority and the same
 * size in pods: largest first admits the gang (3 pods), the smallest-
 * pods-first pass both small groups (6 pods), and the restarts, which
 * start with that pass where nothing may be evicted, keep it. */
START_TEST(small_first_packs_more)
{
	tu_buf b = {0};
	tu_nodes_yaml(&b, 3);
	const char *name[] = {"big", "small1", "small2"};
	for (int g = 0; g < 3; g++) {
		tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\n"
			      "kind: PodGroup\nmetadata: {name: %s, "
			      "namespace: ml}\nspec:\n  priority: 100\n"
			      "  schedulingPolicy: {gang: {minCount: %d}}\n",
			  name[g], g ? 1 : 3);
		for (int i = 0; i < 3; i++) {
			char pod[32];
			snprintf(pod, sizeof pod, "%s-%d", name[g], i);
			tu_pod_yaml(&b, pod, name[g], NULL, g ? 1 : 8, 100);
		}
	}
	wasp_snapshot *snap = tu_load_buf(&b);
	wasp_options o;
	wasp_options_init(&o);
	wa_arena *a = wa_new();
	wp_problem *p = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(wsv_problem(snap, &o, a, &p, &e), 0);
	wp_sol *gr = wp_sol_new(p, a), *sm = wp_sol_new(p, a);
	ck_assert_int_eq(wgr_solve(p, &o, gr, &e), 0);
	ck_assert_int_eq(wgr_solve_seeded(p, &o, sm, WGR_SEED_SMALL, &e), 0);
	tu_sol_verified(snap, p, gr, NULL, "greedy");
	tu_sol_verified(snap, p, sm, NULL, "smallest first");
	wp_value vg, vs, vr;
	wp_evaluate(p, gr, &vg);
	wp_evaluate(p, sm, &vs);
	ck_assert_double_eq(vg.work[0], 3);
	ck_assert_double_eq(vs.work[0], 6);
	int ran, better;
	ck_assert_int_eq(wgr_restarts(p, &o, 1, wdl_none(), gr, &ran, &better,
				      &e),
			 0);
	tu_sol_verified(snap, p, gr, NULL, "restarts");
	wp_evaluate(p, gr, &vr);
	ck_assert_double_eq(vr.work[0], 6);
	wa_destroy(a);
	wasp_snapshot_free(snap);
}
END_TEST

/* The instance of wasp gen's words args, which must have a node model
 * above WSV_AUTO_LNS_COLS columns where the search applies, planned by
 * auto in 10 s (verified, by tu_solve). */
static wasp_plan *auto_above_lns_cols(tu_inst *in, const char *args)
{
	wasp_gen_options g;
	tu_gen_args(&g, args);
	tu_inst_gen(in, &g);
	int rows, cols;
	long nz;
	wilp_estimate(in->p, &rows, &cols, &nz);
	ck_assert_int_gt(cols, WSV_AUTO_LNS_COLS);
	ck_assert(wilp_lns_applies(in->p, NULL));
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_AUTO;
	o.time_limit_s = 10;
	return tu_solve(in->snap, &o);
}

/* auto sends a node model above WSV_AUTO_LNS_COLS columns to the
 * neighbourhood search (bench/README.md, "The neighbourhood search from
 * 256 nodes"): the bench's big-256.  Its plan is verified and no worse
 * than greedy's. */
START_TEST(auto_search_above_lns_cols)
{
	tu_inst in;
	wasp_plan *pl = auto_above_lns_cols(
	    &in, "seed 22 levels 2 fanout 4 nodes 256 gpus 8 busy 0.2 "
		 "gangs 24 max-gang 64 priorities 2");
	ck_assert_ptr_nonnull(
	    strstr(pl->sum.mode_reason, "neighbourhood search"));
	ck_assert_ptr_null(strstr(pl->sum.mode_reason, "ILP within budget"));
	wasp_plan *gp = tu_solve_mode(in.snap, WASP_MODE_GREEDY);
	ck_assert(wp_value_cmp(&pl->sum.tiers, &gp->sum.tiers) >= 0);
	wasp_plan_free(gp);
	wasp_plan_free(pl);
	tu_inst_free(&in);
}
END_TEST

/* ... but a plan the packing bound proves (every pod placed, nothing
 * evicted, the packing at its bound) gets no search: auto says the
 * model is not needed, and the plan is optimal and verified. */
START_TEST(auto_proven_skips_search)
{
	tu_inst in;
	wasp_plan *pl = auto_above_lns_cols(
	    &in, "seed 2 levels 2 fanout 4 nodes 256 gpus 8 busy 0.05 "
		 "gangs 30 max-gang 4 priorities 1");
	ck_assert_str_eq(pl->sum.status, "optimal");
	ck_assert_ptr_nonnull(strstr(pl->sum.mode_reason, "not needed"));
	ck_assert_ptr_null(
	    strstr(pl->sum.mode_reason, "neighbourhood search"));
	wasp_plan_free(pl);
	tu_inst_free(&in);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lns");
	TCase *c = tcase_create("cbc");
	tcase_set_timeout(c, 60);
	tcase_add_test(c, cbc_plan_is_cbc_optimum);
	tcase_add_test(c, cbc_run_plan);
	tcase_add_test(c, cbc_cancel_keeps_warm);
	tcase_add_test(c, cbc_objective_is_glpk_objective);
	tcase_add_test(c, cbc_missing_is_an_error);
	suite_add_tcase(s, c);
	TCase *b = tcase_create("bound");
	tcase_set_timeout(b, 60);
	tcase_add_test(b, bound_above_every_plan);
	tcase_add_test(b, bound_sees_domains);
	tcase_add_test(b, bound_patterns_valid);
	tcase_add_test(b, bound_whole_gangs_tighter);
	tcase_add_test(b, bound_pieces_tighter);
	tcase_add_test(b, bound_pieces_valid);
	tcase_add_test(b, bound_spread_valid);
	tcase_add_test(b, bound_mip_valid);
	tcase_add_test(b, top_tier_optimum_holds_bound);
	suite_add_tcase(s, b);
	TCase *l = tcase_create("lns");
	tcase_set_timeout(l, 60);
	tcase_add_test(l, lns_never_worse);
	tcase_add_test(l, lns_threads_same);
	tcase_add_test(l, lns_part_admits_block_gang);
	tcase_add_test(l, lns_block_admits_block_gangs);
	tcase_add_test(l, lns_top_moves_gang_between_domains);
	tcase_add_test(l, lns_small_start_with_evictions);
	tcase_add_test(l, auto_search_above_lns_cols);
	tcase_add_test(l, auto_proven_skips_search);
	suite_add_tcase(s, l);
	TCase *f = tcase_create("order");
	tcase_set_timeout(f, 60);
	tcase_add_test(f, small_first_pass);
	tcase_add_test(f, small_first_packs_more);
	tcase_add_test(f, led_pass_follows_hints);
	tcase_add_test(f, led_pass_clears_top_level);
	tcase_add_test(f, led_back_repacks_plan);
	suite_add_tcase(s, f);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
