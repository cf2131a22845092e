/*
 * check_bench.c -- the benchmark baselines (baseline.c) and `wasp bench`.
 *
 * The baselines are tested on problems built through the real pipeline
 * (snapshot -> topology -> reduction) with exact placements: podwise's
 * most-free node and its partial gangs, Kueue BestFit's tightest domain,
 * its level-by-level descent and its "optimise the last domain" rule.
 * Every plan goes through the verifier: bestfit plans must be clean,
 * podwise plans must fail exactly where gang semantics were ignored.
 * The command is run on bench/suites/smoke.yaml when the `bench`
 * subcommand is wired in (skipped with a message until then).
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE

#include "testutil.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "solve/baseline.h"
#include "plan/plan.h"
#include "run/run.h"

#define RACK "example.com/rack"
#define BLOCK "example.com/block"

/* ------------------------------------------------------------ fixtures */

typedef struct fx {
	char *p;
	size_t n, cap;
} fx;

static void fx_add(fx *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fx_add(fx *f, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(f->p ? f->p + f->n : NULL,
				  f->p ? f->cap - f->n : 0, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(k, 0);
		if (f->p && f->n + (size_t)k < f->cap) {
			f->n += (size_t)k;
			return;
		}
		f->cap = (f->cap + (size_t)k + 1) * 2;
		f->p = realloc(f->p, f->cap);
		ck_assert_ptr_nonnull(f->p);
		if (f->n == 0)
			f->p[0] = 0;
	}
}

/* A node with `gpus` GPUs, in block/rack (NULL: no such label). */
static void fx_node(fx *f, const char *name, const char *block,
		    const char *rack, int gpus)
{
	fx_add(f, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n"
		  "  labels:\n    kubernetes.io/hostname: %s\n", name, name);
	if (block)
		fx_add(f, "    " BLOCK ": %s\n", block);
	if (rack)
		fx_add(f, "    " RACK ": %s\n", rack);
	fx_add(f, "status:\n  allocatable: {cpu: \"64\", memory: 512Gi, "
		  "pods: \"110\", nvidia.com/gpu: \"%d\"}\n", gpus);
}

static void fx_pod(fx *f, const char *name, const char *group, int prio,
		   int gpus, const char *node)
{
	fx_add(f, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, "
		  "namespace: t}\nspec:\n", name);
	if (node)
		fx_add(f, "  nodeName: %s\n", node);
	if (group)
		fx_add(f, "  schedulingGroup: {podGroupName: %s}\n", group);
	fx_add(f, "  priority: %d\n  containers:\n  - name: w\n    image: x\n"
		  "    resources:\n      requests: {cpu: \"1\", "
		  "nvidia.com/gpu: \"%d\"}\n      limits: {nvidia.com/gpu: "
		  "\"%d\"}\n", prio, gpus, gpus);
}

/* A gang of n pending pods of `gpus` GPUs each. */
static void fx_gang(fx *f, const char *name, int n, int min, int gpus,
		    const char *key, int prio)
{
	fx_add(f, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
		  "metadata: {name: %s, namespace: t}\nspec:\n"
		  "  schedulingPolicy: {gang: {minCount: %d}}\n"
		  "  priority: %d\n", name, min, prio);
	if (key)
		fx_add(f, "  schedulingConstraints: {topology: [{key: %s}]}\n",
		       key);
	for (int i = 0; i < n; i++) {
		char pod[96];
		snprintf(pod, sizeof pod, "%s-%d", name, i);
		fx_pod(f, pod, name, prio, gpus, NULL);
	}
}

/* ------------------------------------------------------------ runs */

typedef struct bl {
	wasp_snapshot *s;
	wa_arena *a;
	wp_problem *p;
	wp_sol *sol;
	size_t nviol;
	char *report;
} bl;

/* Reduce the snapshot, run the baseline, build the plan and verify it. */
static void bl_run(bl *b, fx *f, int mode)
{
	wasp_options o;
	wasp_error e;
	char buf[1024];

	memset(b, 0, sizeof *b);
	memset(&e, 0, sizeof e);
	b->s = tu_load(f->p);
	free(f->p);
	memset(f, 0, sizeof *f);
	b->a = wa_new();
	wasp_options_init(&o);
	int rc = wsv_problem(b->s, &o, b->a, &b->p, &e);
	ck_assert_msg(rc == WASP_OK, "reduce: %s",
		      wasp_error_format(&e, buf, sizeof buf));
	b->sol = wp_sol_new(b->p, b->a);
	ck_assert_ptr_nonnull(b->sol);
	rc = wbl_solve(b->p, mode, &o, b->sol, &e);
	ck_assert_msg(rc == WASP_OK, "wbl_solve: %s", e.msg);
	if (mode == WASP_MODE_BESTFIT) {
		const char *why = NULL;
		ck_assert_msg(wp_sol_feasible(b->p, b->sol, &why) == 0,
			      "bestfit solution infeasible: %s", why);
	}
	wasp_plan *pl = NULL;
	rc = wpl_from_sol(b->p, b->sol, &pl, &e);
	ck_assert_msg(rc == WASP_OK, "plan: %s", e.msg);
	rc = wasp_check(b->s, pl, &b->nviol, &b->report, &e);
	ck_assert_int_eq(rc, WASP_OK);
	wasp_plan_free(pl);
	if (mode == WASP_MODE_BESTFIT)
		ck_assert_msg(b->nviol == 0, "bestfit plan violates:\n%s",
			      b->report);
}

static void bl_free(bl *b)
{
	wasp_free(b->report);
	wa_destroy(b->a);
	wasp_snapshot_free(b->s);
}

static int bl_group(const bl *b, const char *name)
{
	for (int g = 0; g < b->p->ngroups; g++) {
		int sg = b->p->groups[g].sg;
		if (sg >= 0 && !strcmp(b->s->groups[sg].name, name))
			return g;
	}
	ck_abort_msg("no problem group %s", name);
	return -1;
}

/* Pods of group `name` placed on node `node` (NULL: anywhere). */
static int bl_on(const bl *b, const char *name, const char *node)
{
	int g = bl_group(b, name), n = node ? ws_node_index(b->s, node) : -1;
	const wp_group *gr = &b->p->groups[g];
	int sum = 0;
	if (node)
		ck_assert_int_ge(n, 0);
	for (int i = 0; i < gr->nclasses; i++) {
		const wp_class *c = &b->p->classes[gr->classes[i]];
		for (int k = 0; k < c->nelig; k++)
			if (!node || c->elig[k] == n)
				sum += wp_x(b->sol, c->off + k);
	}
	return sum;
}

static int bl_admitted(const bl *b, const char *name)
{
	return b->sol->admit[bl_group(b, name)];
}

static const char *bl_reason(const bl *b, const char *name)
{
	const char *r = b->sol->reason[bl_group(b, name)];
	return r ? r : "";
}

/* ------------------------------------------------------------ podwise */

/* Two free 4-GPU nodes; a high-priority gang of three 4-GPU pods cannot
 * fit, a low one of two could.  Pod by pod, the big gang takes both nodes
 * and strands 8 GPUs; BestFit leaves it waiting and admits the small one. */
static void two_nodes_two_gangs(fx *f)
{
	fx_node(f, "n1", NULL, "r1", 4);
	fx_node(f, "n2", NULL, "r1", 4);
	fx_gang(f, "big", 3, 3, 4, NULL, 100);
	fx_gang(f, "small", 2, 2, 4, NULL, 10);
}

START_TEST(podwise_strands_partial_gang)
{
	fx f = {0};
	bl b;
	two_nodes_two_gangs(&f);
	bl_run(&b, &f, WASP_MODE_PODWISE);
	ck_assert_int_eq(bl_on(&b, "big", "n1"), 1);
	ck_assert_int_eq(bl_on(&b, "big", "n2"), 1);
	ck_assert_int_eq(bl_admitted(&b, "big"), 1); /* partial, shown */
	ck_assert_int_eq(bl_on(&b, "small", NULL), 0);
	ck_assert_int_eq(bl_admitted(&b, "small"), 0);
	ck_assert_str_eq(bl_reason(&b, "small"), "podwise: no eligible node "
			 "has room for one of its pods");
	/* the verifier catches exactly the partial gang */
	ck_assert_int_eq(b.nviol, 1);
	ck_assert_ptr_nonnull(strstr(b.report, "gang t/big"));
	bl_free(&b);
}
END_TEST

START_TEST(bestfit_keeps_gangs_whole)
{
	fx f = {0};
	bl b;
	two_nodes_two_gangs(&f);
	bl_run(&b, &f, WASP_MODE_BESTFIT);
	ck_assert_int_eq(bl_on(&b, "big", NULL), 0);
	ck_assert_int_eq(bl_admitted(&b, "big"), 0);
	ck_assert_str_eq(bl_reason(&b, "big"), "bestfit: the cluster has room "
			 "for 2 of the 3 pods it needs");
	ck_assert_int_eq(bl_on(&b, "small", "n1"), 1);
	ck_assert_int_eq(bl_on(&b, "small", "n2"), 1);
	ck_assert_int_eq(bl_admitted(&b, "small"), 1);
	bl_free(&b);
}
END_TEST

/* Each pod to the node with the most free resources (LeastAllocated):
 * n1 has 2 of 8 GPUs free, n2 all 8, so the first pod goes to n2; pods
 * then alternate as the fractions even out. */
START_TEST(podwise_most_free_node)
{
	fx f = {0};
	bl b;
	fx_node(&f, "n1", NULL, NULL, 8);
	fx_node(&f, "n2", NULL, NULL, 8);
	fx_pod(&f, "running", NULL, 0, 6, "n1");
	fx_gang(&f, "g", 1, 1, 1, NULL, 5);
	bl_run(&b, &f, WASP_MODE_PODWISE);
	ck_assert_int_eq(bl_on(&b, "g", "n2"), 1);
	ck_assert_int_eq(b.nviol, 0);
	bl_free(&b);

	fx_node(&f, "n1", NULL, NULL, 8);
	fx_node(&f, "n2", NULL, NULL, 8);
	fx_pod(&f, "running", NULL, 0, 6, "n1");
	fx_gang(&f, "g", 8, 8, 1, NULL, 5);
	bl_run(&b, &f, WASP_MODE_PODWISE);
	/* n2 goes down to 2 free GPUs before n1 (2 free, fewer cpu used)
	 * draws level; 8 pods fit (2 + 8 = 10 free GPUs) */
	ck_assert_int_eq(bl_on(&b, "g", NULL), 8);
	ck_assert_int_ge(bl_on(&b, "g", "n2"), 6);
	ck_assert_int_eq(b.nviol, 0);
	bl_free(&b);
}
END_TEST

/* ------------------------------------------------------------ bestfit */

/* Kueue's own example (anchors.md §4): 7 pods on free capacities
 * 3, 3, 2, 1; BestFit takes 3 + 3 and then the tightest node that fits
 * the last pod, the 1, not the 2. */
START_TEST(bestfit_kueue_example)
{
	fx f = {0};
	bl b;
	fx_node(&f, "a", NULL, NULL, 3);
	fx_node(&f, "b", NULL, NULL, 3);
	fx_node(&f, "c", NULL, NULL, 2);
	fx_node(&f, "d", NULL, NULL, 1);
	fx_gang(&f, "g", 7, 7, 1, NULL, 1);
	bl_run(&b, &f, WASP_MODE_BESTFIT);
	ck_assert_int_eq(bl_on(&b, "g", "a"), 3);
	ck_assert_int_eq(bl_on(&b, "g", "b"), 3);
	ck_assert_int_eq(bl_on(&b, "g", "c"), 0);
	ck_assert_int_eq(bl_on(&b, "g", "d"), 1);
	bl_free(&b);
}
END_TEST

/* Required rack: the tightest rack that fits, in priority order.  Racks
 * hold 8 (r1: 4 + 4), 4 (r2) and 6 (r3) GPUs. */
START_TEST(bestfit_tightest_domain)
{
	fx f = {0};
	bl b;
	fx_node(&f, "n1", NULL, "r1", 4);
	fx_node(&f, "n2", NULL, "r1", 4);
	fx_node(&f, "n3", NULL, "r2", 4);
	fx_node(&f, "n4", NULL, "r3", 6);
	fx_gang(&f, "g4", 4, 4, 1, RACK, 1);
	fx_gang(&f, "g7", 7, 7, 1, RACK, 3);
	fx_gang(&f, "g5", 5, 5, 1, RACK, 2);
	bl_run(&b, &f, WASP_MODE_BESTFIT);
	/* g7 first (priority 3): only r1 fits; 4 + 3 by BestFit */
	ck_assert_int_eq(bl_on(&b, "g7", "n1") + bl_on(&b, "g7", "n2"), 7);
	/* g5: r3 (6) is tighter than r2 cannot (4), r1 has 1 left */
	ck_assert_int_eq(bl_on(&b, "g5", "n4"), 5);
	/* g4: r2, exactly full */
	ck_assert_int_eq(bl_on(&b, "g4", "n3"), 4);
	bl_free(&b);
}
END_TEST

/* Required block, then racks and nodes level by level: block b1 (racks of
 * 4, 2 and 3 free) is tighter than b2 (12).  Racks sorted 4, 3, 2: take
 * r1 (4), then the tightest rack that fits the last pod, r2 (2) rather
 * than r3 (3).  At the node level the pool is every node of r1 and r2,
 * sorted 3, 2, 1: take 3, then the tightest node for the remaining 2. */
START_TEST(bestfit_descends_levels)
{
	fx f = {0};
	bl b;
	fx_node(&f, "n1a", "b1", "r1", 3);
	fx_node(&f, "n1b", "b1", "r1", 1);
	fx_node(&f, "n2", "b1", "r2", 2);
	fx_node(&f, "n3", "b1", "r3", 3);
	fx_node(&f, "n4", "b2", "r4", 12);
	fx_gang(&f, "g", 5, 5, 1, BLOCK, 1);
	bl_run(&b, &f, WASP_MODE_BESTFIT);
	ck_assert_int_eq(bl_on(&b, "g", "n1a"), 3);
	ck_assert_int_eq(bl_on(&b, "g", "n1b"), 0);
	ck_assert_int_eq(bl_on(&b, "g", "n2"), 2);
	ck_assert_int_eq(bl_on(&b, "g", "n3"), 0);
	ck_assert_int_eq(bl_on(&b, "g", "n4"), 0);
	bl_free(&b);
}
END_TEST

/* minCount below the size: as many as the roomiest rack fits (Kueue's
 * partial admission), at least minCount; below that, wait with a reason
 * that names the key and the best rack. */
START_TEST(bestfit_partial_and_reason)
{
	fx f = {0};
	bl b;
	fx_node(&f, "n1", NULL, "r1", 5);
	fx_node(&f, "n2", NULL, "r2", 3);
	fx_gang(&f, "g", 6, 4, 1, RACK, 2);
	fx_gang(&f, "h", 4, 4, 1, RACK, 1);
	bl_run(&b, &f, WASP_MODE_BESTFIT);
	ck_assert_int_eq(bl_on(&b, "g", "n1"), 5);
	ck_assert_int_eq(bl_admitted(&b, "g"), 1);
	ck_assert_int_eq(bl_on(&b, "h", NULL), 0);
	ck_assert_int_eq(bl_admitted(&b, "h"), 0);
	ck_assert_str_eq(bl_reason(&b, "h"), "bestfit: no " RACK " domain "
			 "has room for 4 pods (the roomiest fits 3)");
	bl_free(&b);
}
END_TEST

/* Generated fragmented clusters: bestfit plans verify clean; podwise
 * plans break only gang or topology rules, never capacity. */
START_TEST(baselines_on_generated)
{
	for (int seed = 1; seed <= 3; seed++) {
		wasp_gen_options g;
		wasp_error e;
		wasp_gen_options_init(&g);
		g.seed = (uint64_t)seed;
		g.nodes = 64;
		g.gangs = 20;
		g.busy = 0.5;
		memset(&e, 0, sizeof e);
		for (int m = WASP_MODE_PODWISE; m <= WASP_MODE_BESTFIT; m++) {
			fx f = {0};
			bl b;
			char *text = wasp_gen(&g, &e);
			ck_assert_ptr_nonnull(text);
			fx_add(&f, "%s", text);
			wasp_free(text);
			bl_run(&b, &f, m);
			int placed = 0;
			for (int i = 0; i < b.p->nx; i++)
				placed += wp_x(b.sol, i);
			ck_assert_int_gt(placed, 0);
			if (m == WASP_MODE_PODWISE && b.report) {
				ck_assert_ptr_null(strstr(b.report,
							  "over allocatable"));
				ck_assert_ptr_null(strstr(b.report, "no such"));
			}
			bl_free(&b);
		}
	}
}
END_TEST

/* ------------------------------------------------------------ command */

/* Run `$WASP_BIN args...` with stdout to out_path; the exit status, or
 * -1 if the command is not there. */
static int run_wasp(const char *const *args, const char *out_path,
		    const char *err_path)
{
	const char *bin = getenv("WASP_BIN");
	if (!bin || access(bin, X_OK))
		return -1;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *argv[16];
		int n = 0;
		argv[n++] = bin;
		for (int i = 0; args[i] && n < 15; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		if (!freopen(out_path, "w", stdout) ||
		    !freopen(err_path, "w", stderr))
			_exit(127);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	int st = 0;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

/* Remove a test's temporary directory and everything in it. */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* Whether this wasp has the bench subcommand yet. */
static int have_bench(const char *dir)
{
	char out[600], err[600];
	const char *args[] = {"bench", "--help", NULL};
	snprintf(out, sizeof out, "%s/help.out", dir);
	snprintf(err, sizeof err, "%s/help.err", dir);
	int rc = run_wasp(args, out, err);
	if (rc != 0)
		return 0;
	char *s = tu_slurp(out);
	int ok = strstr(s, "Usage: wasp bench") != NULL;
	free(s);
	return ok;
}

/* CSV row fields (no quoted commas in the columns read here). */
#define MAXF 64
/* Split one CSV record in place (RFC 4180: a quoted field may hold
 * commas, "" is a quote); returns the field count. */
static int split_csv(char *line, char **f)
{
	int n = 0;
	char *p = line;
	while (n < MAXF) {
		char *w = p;
		f[n++] = w;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p)
					break;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
		}
		while (*p && *p != ',')
			*w++ = *p++;
		if (!*p) {
			*w = 0;
			break;
		}
		*w = 0;
		p++;
	}
	return n;
}

static int col_of(char **hdr, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return i;
	ck_abort_msg("no CSV column %s", name);
	return -1;
}

static long num(const char *s)
{
	char *e;
	ck_assert_msg(*s, "empty number");
	double d = strtod(s, &e);
	ck_assert_msg(*e == 0, "not a number: '%s'", s);
	return (long)d;
}

START_TEST(bench_smoke_suite)
{
	char dir[] = "/tmp/check_bench-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (!have_bench(dir)) {
		fprintf(stderr, "check_bench: `wasp bench` is not wired into "
			"the command yet; skipping the suite run\n");
		rm_tree(dir);
		return;
	}
	char prefix[600], out[600], err[600], csvp[700], suite[4096];
	snprintf(prefix, sizeof prefix, "%s/smoke", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(err, sizeof err, "%s/err", dir);
	snprintf(csvp, sizeof csvp, "%s.csv", prefix);
	snprintf(suite, sizeof suite, "%s", tu_src_path(
		 "bench/suites/smoke.yaml"));
	const char *args[] = {"bench", suite, "-o", prefix, NULL};
	int rc = run_wasp(args, out, err);
	char *errs = tu_slurp(err), *outs = tu_slurp(out);
	ck_assert_msg(rc == 0, "wasp bench exited %d: %s\n%s", rc, errs, outs);
	free(errs);
	free(outs);

	char *csv = tu_slurp(csvp), *save = NULL, *hdr[MAXF], *f[MAXF];
	char *line = strtok_r(csv, "\n", &save);
	int nh = split_csv(line, hdr);
	int c_inst = col_of(hdr, nh, "instance");
	int c_solv = col_of(hdr, nh, "solver");
	int c_state = col_of(hdr, nh, "state");
	int c_status = col_of(hdr, nh, "status");
	int c_adm = col_of(hdr, nh, "admitted_pods");
	int c_str = col_of(hdr, nh, "stranded_gpus");
	int c_sp = col_of(hdr, nh, "spread_gpus");
	int c_viol = col_of(hdr, nh, "violations");
	int c_time = col_of(hdr, nh, "time_s");
	int c_mem = col_of(hdr, nh, "peak_mb");
	/* every instance x solver of the suite, in order */
	static const char *const want[][2] = {
	    {"frag-64", "greedy"},  {"frag-64", "ilp"},
	    {"frag-64", "auto"},    {"frag-64", "podwise"},
	    {"frag-64", "bestfit"}, {"frag-64", "cbc"},
	    {"tight-32", "greedy"}, {"tight-32", "ilp"},
	    {"tight-32", "auto"},   {"tight-32", "podwise"},
	    {"tight-32", "bestfit"}};
	size_t nwant = sizeof want / sizeof want[0], got = 0;
	long podwise_adm[2] = {-1, -1}, wasp_adm[2][3];
	long podwise_str[2] = {0, 0};
	long cbc_adm = -1;
	bool cbc_opt = false, ilp_opt = false;
	while ((line = strtok_r(NULL, "\n", &save))) {
		int n = split_csv(line, f);
		ck_assert_int_eq(n, nh);
		ck_assert_uint_lt(got, nwant);
		ck_assert_str_eq(f[c_inst], want[got][0]);
		ck_assert_str_eq(f[c_solv], want[got][1]);
		int inst = got >= 6;
		got++;
		if (!strcmp(f[c_solv], "cbc") &&
		    !strcmp(f[c_state], "skipped"))
			continue; /* cbc is not installed */
		if (!strcmp(f[c_solv], "cbc")) {
			/* its plan is measured like any other: verified,
			 * gangs whole, at least the ILP's work when both
			 * prove the optimum (the same model) */
			ck_assert_str_eq(f[c_state], "ok");
			ck_assert_int_eq(num(f[c_viol]), 0);
			ck_assert_int_eq(num(f[c_str]), 0);
			cbc_adm = num(f[c_adm]);
			ck_assert_int_ge(cbc_adm, 0);
			cbc_opt = !strcmp(f[c_status], "optimal");
			continue;
		}
		ck_assert_str_eq(f[c_state], "ok");
		ck_assert_int_ge(num(f[c_time]), 0);
		ck_assert_int_gt(num(f[c_mem]), 0);
		long adm = num(f[c_adm]), str = num(f[c_str]);
		long sp = num(f[c_sp]), viol = num(f[c_viol]);
		if (!strcmp(f[c_solv], "podwise")) {
			podwise_adm[inst] = adm;
			podwise_str[inst] = str;
			continue;
		}
		/* wasp and bestfit: gangs whole, in their domains, verified */
		ck_assert_int_eq(str, 0);
		ck_assert_int_eq(sp, 0);
		ck_assert_int_eq(viol, 0);
		if (!strcmp(f[c_solv], "greedy"))
			wasp_adm[inst][0] = adm;
		else if (!strcmp(f[c_solv], "ilp")) {
			wasp_adm[inst][1] = adm;
			ilp_opt |= inst == 0 &&
				   !strcmp(f[c_status], "optimal");
		}
		else if (!strcmp(f[c_solv], "auto"))
			wasp_adm[inst][2] = adm;
	}
	ck_assert_uint_eq(got, nwant);
	if (cbc_opt && ilp_opt)
		ck_assert_int_eq(cbc_adm, wasp_adm[0][1]);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++)
			ck_assert_int_ge(wasp_adm[i][k], podwise_adm[i]);
	/* the fragmented instance: pod by pod strands GPUs */
	ck_assert_int_gt(podwise_str[0], 0);
	free(csv);

	char *table = tu_slurp(out);
	ck_assert_ptr_nonnull(strstr(table, "INSTANCE"));
	ck_assert_ptr_nonnull(strstr(table, "frag-64      podwise"));
	free(table);
	snprintf(csvp, sizeof csvp, "%s.json", prefix);
	char *js = tu_slurp(csvp);
	ck_assert_ptr_nonnull(strstr(js, "\"suite\": \"smoke\""));
	free(js);
	rm_tree(dir);
}
END_TEST

/* Suite mistakes come back as file:line:col and exit status 2. */
START_TEST(bench_suite_errors)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"instances:\n  - name: a\n    gen: {nodez: 4}\n"
	     "    solvers: [greedy]\n",
	     ":3:11: gen: unknown generator option 'nodez'"},
	    {"solvers: [greedy, simplex]\ninstances:\n  - name: a\n"
	     "    gen: {nodes: 4}\n",
	     ":1:19: unknown solver 'simplex'"},
	    {"instances:\n  - name: a\n    gen:\n      nodes: -4\n"
	     "    solvers: [greedy]\n",
	     ":4:14: gen: invalid nodes value '-4' (expected an integer from 1 "
	     "to 1000000)"},
	    {"instances:\n  - name: a\n    solvers: [greedy]\n",
	     ":2:5: instance 'a' needs exactly one of gen and file"},
	    /* the loader's own errors, at its positions */
	    {"time: 2\ntime: 3\n", ":2:1: duplicate key \"time\""},
	    {"time: [2\ninstances: x\n", ":2:10: did not find expected ','"},
	    /* the suite's schema: unknown keys, wrong types */
	    {"bogus: 1\n", ":1:1: unknown key 'bogus'"},
	    {"instances:\n  - name: a\n    gen: {nodes: 4}\n    colour: red\n",
	     ":4:5: unknown instance key 'colour'"},
	    {"time: {a: 1}\n", ":1:7: time: expected a number"},
	    {"instances: 3\n", ":1:12: instances: expected a non-empty list"},
	    {"instances:\n  - {name: a, gen: {nodes: 4}, solvers: [greedy],"
	     " quick: maybe}\n", ":2:58: quick: expected true or false"},
	    {"instances:\n  - name: a\n    gen: {nodes: 4}\n"
	     "    solvers: greedy\n",
	     ":4:14: solvers: expected a non-empty list"},
	};
	char dir[] = "/tmp/check_bench-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (!have_bench(dir)) {
		fprintf(stderr, "check_bench: `wasp bench` is not wired into "
			"the command yet; skipping the suite errors\n");
		rm_tree(dir);
		return;
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[600], out[600], err[600], want[600];
		snprintf(path, sizeof path, "%s/bad%zu.yaml", dir, i);
		snprintf(out, sizeof out, "%s/out", dir);
		snprintf(err, sizeof err, "%s/err", dir);
		FILE *fp = fopen(path, "w");
		ck_assert_ptr_nonnull(fp);
		fputs(cases[i].text, fp);
		fclose(fp);
		const char *args[] = {"bench", path, "-o", out, NULL};
		ck_assert_int_eq(run_wasp(args, out, err), 2);
		char *e = tu_slurp(err);
		snprintf(want, sizeof want, "%s%s", path, cases[i].msg);
		ck_assert_msg(!strncmp(e, want, strlen(want)),
			      "case %zu: got '%s', want '%s'", i, e, want);
		free(e);
	}
	rm_tree(dir);
}
END_TEST

/* Any YAML form reads: a flow map over two lines (as in the example of
 * bench/README.md), block lists, a flow list of maps, quoted scalars. */
START_TEST(bench_suite_forms)
{
	static const char text[] =
	    "suite: forms\n"
	    "solvers:\n  - greedy\n"
	    "instances:\n"
	    "  - name: a\n"
	    "    gen: {seed: 3, levels: 1, fanout: 2, nodes: 4,\n"
	    "          gangs: 2, max-gang: 2}\n"
	    "    time: \"1\"\n"
	    "    quick: yes\n"
	    "  - {name: b, gen: {nodes: 4, gangs: 1}, solvers: [bestfit]}\n";
	char dir[] = "/tmp/check_bench-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (!have_bench(dir)) {
		rm_tree(dir);
		return;
	}
	char path[600], out[600], err[600], prefix[600], csvp[700];
	snprintf(path, sizeof path, "%s/forms.yaml", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(err, sizeof err, "%s/err", dir);
	snprintf(prefix, sizeof prefix, "%s/res", dir);
	snprintf(csvp, sizeof csvp, "%s.csv", prefix);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	const char *args[] = {"bench", path, "-o", prefix, NULL};
	int rc = run_wasp(args, out, err);
	char *e = tu_slurp(err);
	ck_assert_msg(rc == 0, "wasp bench exited %d: %s", rc, e);
	free(e);
	char *csv = tu_slurp(csvp);
	ck_assert_ptr_nonnull(strstr(csv, "\nforms,a,greedy,ok,"));
	ck_assert_ptr_nonnull(strstr(csv, "\nforms,b,bestfit,ok,"));
	free(csv);
	rm_tree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("baselines");
	tcase_add_test(tc, podwise_strands_partial_gang);
	tcase_add_test(tc, bestfit_keeps_gangs_whole);
	tcase_add_test(tc, podwise_most_free_node);
	tcase_add_test(tc, bestfit_kueue_example);
	tcase_add_test(tc, bestfit_tightest_domain);
	tcase_add_test(tc, bestfit_descends_levels);
	tcase_add_test(tc, bestfit_partial_and_reason);
	tcase_add_test(tc, baselines_on_generated);
	suite_add_tcase(s, tc);
	TCase *tcmd = tcase_create("command");
	tcase_set_timeout(tcmd, 120);
	tcase_add_test(tcmd, bench_smoke_suite);
	tcase_add_test(tcmd, bench_suite_errors);
	tcase_add_test(tcmd, bench_suite_forms);
	suite_add_tcase(s, tcmd);
	return tu_run(s);
}
