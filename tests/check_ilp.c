/*
 * check_ilp.c -- the ILP translator and its GLPK solve (src/solve/ilp/).
 *
 * Proof obligations: on seeded generated snapshots the C translator's
 * optimum equals glpsol on the independent MathProg model (models/wasp.mod
 * + the exported data), equals cbc on the exported MPS and LP files, and,
 * on tiny instances, equals an exhaustive enumeration written here; the
 * ILP answer is never worse than greedy's and every plan passes the
 * verifier.  Plus: tier weights never let low priority outvote high, the
 * tier-by-tier fallback agrees with the weighted solve, deadlines hold,
 * GLPK faults become WASP_ESOLVER, and threads give the serial answers.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "testutil.h"
#include "solve/greedy/greedy.h"
#include "solve/ilp/ilp.h"
#include "run/run.h"
#include "plan/verify.h"

#define NSEEDS 36      /* generated cross-check instances */
#define NTREES 24      /* generated instances with trees */
#define NTINY 40       /* generated enumeration instances */

/* ------------------------------------------------------- text builder */

typedef struct sb {
	char *s;
	size_t n, cap;
} sb;

static void sbf(sb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sbf(sb *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(b->s ? b->s + b->n : NULL,
				  b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(k, 0);
		if (b->s && b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return;
		}
		size_t nc = b->cap ? b->cap * 2 : 4096;
		while (nc < b->n + (size_t)k + 1)
			nc *= 2;
		b->s = realloc(b->s, nc);
		ck_assert_ptr_nonnull(b->s);
		b->cap = nc;
	}
}

/* ------------------------------------------------ instance generator */

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rint_(rng *r, int lo, int hi) /* inclusive */
{
	return lo + (int)(rnext(r) % (uint64_t)(hi - lo + 1));
}

static const int PRIOS[] = { 1, 10, 1000 };

static void y_pc(sb *b, int prio)
{
	sbf(b, "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
	       "metadata:\n  name: p%d\nvalue: %d\n", prio, prio);
}

static void y_node(sb *b, int i, int cpu, int memgi, int pods, int gpu,
		   bool cordon)
{
	int rack = i / 2, block = i / 4;
	sbf(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-%d\n"
	       "  labels:\n    example.com/block: b%d\n"
	       "    example.com/rack: r%d\n"
	       "    kubernetes.io/hostname: node-%d\n",
	    i, block, rack, i);
	if (cordon)
		sbf(b, "spec:\n  unschedulable: true\n");
	sbf(b, "status:\n  allocatable:\n    cpu: \"%d\"\n    memory: %dGi\n"
	       "    pods: \"%d\"\n",
	    cpu, memgi, pods);
	if (gpu)
		sbf(b, "    nvidia.com/gpu: \"%d\"\n", gpu);
}

static void y_pod(sb *b, const char *name, const char *group, int prio,
		  int cpu_m, int memgi, int gpu, int node)
{
	sbf(b, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n"
	       "  namespace: t\nspec:\n",
	    name);
	if (node >= 0)
		sbf(b, "  nodeName: node-%d\n", node);
	if (group)
		sbf(b, "  schedulingGroup:\n    podGroupName: %s\n", group);
	sbf(b, "  priorityClassName: p%d\n  priority: %d\n"
	       "  containers:\n  - name: c\n    resources:\n      requests:\n"
	       "        cpu: %dm\n        memory: %dGi\n",
	    prio, prio, cpu_m, memgi);
	if (gpu)
		sbf(b, "        nvidia.com/gpu: \"%d\"\n", gpu);
	sbf(b, "status:\n  phase: %s\n", node >= 0 ? "Running" : "Pending");
}

static void y_group(sb *b, const char *name, bool gang, int min, int key,
		    int prio)
{
	static const char *keys[] = { NULL, "example.com/rack",
				      "example.com/block" };
	sbf(b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	       "metadata:\n  name: %s\n  namespace: t\nspec:\n"
	       "  schedulingPolicy:\n",
	    name);
	if (gang)
		sbf(b, "    gang:\n      minCount: %d\n", min);
	else
		sbf(b, "    basic: {}\n");
	if (key)
		sbf(b, "  schedulingConstraints:\n    topology:\n"
		       "    - key: %s\n",
		    keys[key]);
	sbf(b, "  priorityClassName: p%d\n  priority: %d\n", prio, prio);
}

/* A small random snapshot: 2..4 nodes and at most 6 pending pods when
 * tiny (for enumeration), else 3..8 nodes and up to 14 pending pods.
 * Covers gangs with minCount below size, rack and block keys, basic
 * groups, lone pods, three priorities, infeasible groups, bound pods
 * (also of a pending gang), a cordoned node and GPUs. */
static char *gen_instance(uint64_t seed, bool tiny)
{
	rng r = { seed * 7919 + (tiny ? 17 : 3) };
	sb b = { 0 };
	int nn = tiny ? rint_(&r, 2, 4) : rint_(&r, 3, 8);
	int budget = tiny ? 6 : 14;
	for (int i = 0; i < 3; i++)
		y_pc(&b, PRIOS[i]);
	bool gpu_nodes = rint_(&r, 0, 1);
	for (int i = 0; i < nn; i++) {
		int gpu = gpu_nodes && rint_(&r, 0, 2) ? 4 : 0;
		y_node(&b, i, rint_(&r, 2, 6), 8 * rint_(&r, 1, 3),
		       rint_(&r, 2, 5), gpu, rint_(&r, 0, 12) == 0);
	}
	/* running lone pods */
	for (int i = 0; i < nn; i++)
		if (rint_(&r, 0, 2) == 0) {
			char nm[32];
			snprintf(nm, sizeof nm, "run-%d", i);
			y_pod(&b, nm, NULL, PRIOS[rint_(&r, 0, 2)],
			      500 * rint_(&r, 1, 3), 4, 0, i);
		}
	int ng = tiny ? rint_(&r, 1, 3) : rint_(&r, 2, 5);
	for (int g = 0; g < ng && budget > 0; g++) {
		char gname[32];
		snprintf(gname, sizeof gname, "g%d", g);
		int kind = rint_(&r, 0, 9); /* 0-5 gang, 6-7 basic, 8-9 lone */
		int prio = PRIOS[rint_(&r, 0, 2)];
		int size = rint_(&r, 1, tiny ? 3 : 4);
		if (size > budget)
			size = budget;
		budget -= size;
		int key = rint_(&r, 0, 2);
		int cpu = 500 * rint_(&r, 1, 5);
		int cpu2 = rint_(&r, 0, 2) == 0 ? 500 * rint_(&r, 1, 4) : cpu;
		int mem = rint_(&r, 1, 8);
		int gpu = gpu_nodes && rint_(&r, 0, 1) ? rint_(&r, 1, 2) : 0;
		if (rint_(&r, 0, 11) == 0)
			cpu = 64000; /* fits nowhere */
		int bound = kind <= 5 && rint_(&r, 0, 3) == 0 ? 1 : 0;
		if (kind >= 8) {
			for (int i = 0; i < size; i++) {
				char nm[32];
				snprintf(nm, sizeof nm, "lone%d-%d", g, i);
				y_pod(&b, nm, NULL, prio, i % 2 ? cpu2 : cpu,
				      mem, gpu, -1);
			}
			continue;
		}
		bool gang = kind <= 5;
		int min = gang ? rint_(&r, 1, size + bound) : 1;
		y_group(&b, gname, gang, min, key, prio);
		for (int i = 0; i < bound; i++) {
			char nm[40];
			snprintf(nm, sizeof nm, "%s-run%d", gname, i);
			y_pod(&b, nm, gname, prio, 500, 2, 0,
			      rint_(&r, 0, nn - 1));
		}
		for (int i = 0; i < size; i++) {
			char nm[48];
			snprintf(nm, sizeof nm, "%s-%d", gname, i);
			y_pod(&b, nm, gname, prio, i % 2 ? cpu2 : cpu, mem, gpu,
			      -1);
		}
	}
	return b.s;
}

/* CompositePodGroup trees (doc/formulation.md §9): one or two roots
 * (block key or none, minGroupCount 1..children) with two or three
 * PodGroup children (gang or basic, rack key or none), sometimes a
 * nested composite with a rack key; a tree shares one priority.  Up to
 * three gangs with an exclusive rack or slices of 2 per rack (an
 * exclusive one sometimes running already), and lone pods, compete for
 * room. */
static void y_cpg(sb *b, const char *name, const char *parent, int mgc,
		  int key, int prio)
{
	static const char *keys[] = { NULL, "example.com/rack",
				      "example.com/block" };
	sbf(b, "---\napiVersion: scheduling.k8s.io/v1alpha3\n"
	       "kind: CompositePodGroup\nmetadata:\n  name: %s\n"
	       "  namespace: t\nspec:\n  schedulingPolicy:\n", name);
	if (mgc)
		sbf(b, "    gang:\n      minGroupCount: %d\n", mgc);
	else
		sbf(b, "    basic: {}\n");
	if (key)
		sbf(b, "  schedulingConstraints:\n    topology:\n"
		       "    - key: %s\n", keys[key]);
	if (parent)
		sbf(b, "  parentCompositePodGroupName: %s\n", parent);
	sbf(b, "  priorityClassName: p%d\n  priority: %d\n", prio, prio);
}

static void tree_kids(sb *b, rng *r, const char *parent, int nkids,
		      int prio, int *budget, int nn, bool gpu_nodes)
{
	for (int k = 0; k < nkids && *budget > 0; k++) {
		char g[48];
		snprintf(g, sizeof g, "%s-k%d", parent, k);
		int size = rint_(r, 1, 3);
		if (size > *budget)
			size = *budget;
		*budget -= size;
		bool gang = rint_(r, 0, 3) != 0;
		int min = gang ? rint_(r, 1, size) : 1;
		y_group(b, g, gang, min, rint_(r, 0, 2) == 0 ? 1 : 0, prio);
		sbf(b, "  parentCompositePodGroupName: %s\n", parent);
		int cpu = 500 * rint_(r, 1, 5), mem = rint_(r, 1, 8);
		int gpu = gpu_nodes && rint_(r, 0, 1) ? rint_(r, 1, 2) : 0;
		if (rint_(r, 0, 9) == 0 && rint_(r, 0, 1) && nn > 0) {
			char nm[64];
			snprintf(nm, sizeof nm, "%s-run", g);
			y_pod(b, nm, g, prio, 500, 2, 0, rint_(r, 0, nn - 1));
		}
		for (int i = 0; i < size; i++) {
			char nm[64];
			snprintf(nm, sizeof nm, "%s-%d", g, i);
			y_pod(b, nm, g, prio, cpu, mem, gpu, -1);
		}
	}
}

static char *gen_tree_instance(uint64_t seed)
{
	rng r = { seed * 104729 + 11 };
	sb b = { 0 };
	int nn = rint_(&r, 4, 8);
	int budget = 14;
	for (int i = 0; i < 3; i++)
		y_pc(&b, PRIOS[i]);
	bool gpu_nodes = rint_(&r, 0, 1);
	for (int i = 0; i < nn; i++) {
		int gpu = gpu_nodes && rint_(&r, 0, 2) ? 4 : 0;
		y_node(&b, i, rint_(&r, 2, 6), 8 * rint_(&r, 1, 3),
		       rint_(&r, 2, 5), gpu, rint_(&r, 0, 12) == 0);
	}
	int nroots = rint_(&r, 1, 2);
	for (int t = 0; t < nroots; t++) {
		char root[16];
		snprintf(root, sizeof root, "h%d", t);
		int prio = PRIOS[rint_(&r, 0, 2)];
		int nk = rint_(&r, 2, 3);
		bool nested = rint_(&r, 0, 2) == 0;
		int kids = nk + nested;
		int mgc = rint_(&r, 0, 3) == 0 ? 0 : rint_(&r, 1, kids);
		y_cpg(&b, root, NULL, mgc, rint_(&r, 0, 2) ? 2 : 0, prio);
		tree_kids(&b, &r, root, nk, prio, &budget, nn, gpu_nodes);
		if (nested) {
			char mid[24];
			snprintf(mid, sizeof mid, "%s-m", root);
			y_cpg(&b, mid, root, rint_(&r, 1, 2), 1, prio);
			tree_kids(&b, &r, mid, 2, prio, &budget, nn,
				  gpu_nodes);
		}
	}
	/* annotated groups: exclusive per rack (one may already run),
	 * sliced per rack */
	int nx = rint_(&r, 0, 3);
	for (int i = 0; i < nx; i++) {
		int prio = PRIOS[rint_(&r, 0, 2)];
		bool slices = rint_(&r, 0, 2) == 0;
		int size = slices ? 2 * rint_(&r, 1, 2) : rint_(&r, 1, 2);
		bool running = !slices && rint_(&r, 0, 3) == 0;
		sbf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\n"
			"kind: PodGroup\nmetadata:\n  name: x%d\n"
			"  namespace: t\n  annotations:\n", i);
		if (slices)
			sbf(&b, "    kueue.x-k8s.io/podset-slice-required-"
				"topology: example.com/rack\n"
				"    kueue.x-k8s.io/podset-slice-size: \"2\"\n");
		else
			sbf(&b, "    alpha.jobset.sigs.k8s.io/exclusive-"
				"topology: example.com/rack\n");
		sbf(&b, "spec:\n  schedulingPolicy:\n    gang:\n"
			"      minCount: %d\n  priorityClassName: p%d\n"
			"  priority: %d\n", size, prio, prio);
		char g[16];
		snprintf(g, sizeof g, "x%d", i);
		if (running) {
			char nm[32];
			snprintf(nm, sizeof nm, "x%d-run", i);
			y_pod(&b, nm, g, prio, 500, 1, 0, rint_(&r, 0, nn - 1));
		}
		int cpu = 500 * rint_(&r, 1, 3);
		for (int j = 0; j < size; j++) {
			char nm[32];
			snprintf(nm, sizeof nm, "x%d-%d", i, j);
			y_pod(&b, nm, g, prio, cpu, rint_(&r, 1, 4), 0, -1);
		}
	}
	/* lone pods that compete for the room */
	for (int i = 0; i < 3 && budget > 0; i++, budget--) {
		char nm[32];
		snprintf(nm, sizeof nm, "lone-%d", i);
		y_pod(&b, nm, NULL, PRIOS[rint_(&r, 0, 2)],
		      500 * rint_(&r, 1, 4), rint_(&r, 1, 8), 0, -1);
	}
	/* gangs with a preferred rack (the compactness tiers), drawn last
	 * so that the instances above stay as they were */
	int np = rint_(&r, 0, 2);
	for (int i = 0; i < np; i++) {
		int prio = PRIOS[rint_(&r, 0, 2)];
		int size = rint_(&r, 2, 4);
		sbf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\n"
			"kind: PodGroup\nmetadata:\n  name: pf%d\n"
			"  namespace: t\n  annotations:\n"
			"    kueue.x-k8s.io/podset-preferred-topology: "
			"example.com/rack\n"
			"spec:\n  schedulingPolicy:\n    gang:\n"
			"      minCount: %d\n  priorityClassName: p%d\n"
			"  priority: %d\n", i, size, prio, prio);
		char g[16];
		snprintf(g, sizeof g, "pf%d", i);
		int cpu = 500 * rint_(&r, 1, 2);
		for (int j = 0; j < size; j++) {
			char nm[32];
			snprintf(nm, sizeof nm, "pf%d-%d", i, j);
			y_pod(&b, nm, g, prio, cpu, 1, 0, -1);
		}
	}
	return b.s;
}

/* ------------------------------------------------------ the pipeline */

typedef struct inst {
	wasp_snapshot *snap;
	wa_arena *a;
	wp_problem *p;
	wp_sol *greedy, *ilp;
	wilp_stats st;
	wilp_tune tune;
	wasp_options o;
} inst;

static void inst_load(inst *in, const char *yaml, const char *value)
{
	wasp_error e;
	memset(in, 0, sizeof *in);
	memset(&e, 0, sizeof e);
	in->snap = tu_load(yaml);
	wasp_options_init(&in->o);
	in->o.value_resource = value;
	in->a = wa_new();
	ck_assert_ptr_nonnull(in->a);
	ck_assert_int_eq(wsv_problem(in->snap, &in->o, in->a, &in->p, &e), 0);
	/* placement only: the enumeration below does not model preemption;
	 * check_preempt.c cross-checks it against glpsol and cbc */
	in->p->nunits = 0;
	in->greedy = wp_sol_new(in->p, in->a);
	in->ilp = wp_sol_new(in->p, in->a);
	ck_assert_int_eq(wgr_solve(in->p, &in->o, in->greedy, &e), 0);
	wilp_tune_init(&in->tune);
}

static int inst_solve(inst *in, double deadline)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wilp_solve_tuned(in->p, &in->o, wdl_at(deadline), in->greedy,
				  in->ilp, &in->st, &in->tune, &e);
	ck_assert_msg(rc == WASP_OK, "wilp_solve: %s", e.msg);
	return rc;
}

static void inst_free(inst *in)
{
	wa_destroy(in->a);
	wasp_snapshot_free(in->snap);
}

/* (d) never worse than greedy, (e) the plan passes the verifier. */
static void check_plan(inst *in, const char *label)
{
	tu_sol_verified(in->snap, in->p, in->ilp, in->greedy, label);
}

/* ------------------------------------------------- external solvers */

static bool have_tool(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char buf[4096];
	for (const char *p = path; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
		if (access(buf, X_OK) == 0)
			return true;
		p = e ? e + 1 : p + n;
	}
	return false;
}

/* Runs argv with stdout+stderr to `out`; returns the exit status. */
static int run_tool(char *const argv[], const char *out)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Objective from glpsol's -o report ("Objective:  value = 123 (MAXimum)")
 * or cbc's "Objective value: 123.000"; NAN if absent. */
static double parse_obj(const char *text, const char *tag)
{
	const char *p = strstr(text, tag);
	if (!p)
		return NAN;
	p += strlen(tag);
	while (*p == ' ' || *p == '=' || *p == ':')
		p++;
	return strtod(p, NULL);
}

typedef struct tmpdir {
	char dir[64];
} tmpdir;

static void tmp_make(tmpdir *t)
{
	snprintf(t->dir, sizeof t->dir, "/tmp/wasp-ilp-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t->dir));
}

static const char *tmp_file(const tmpdir *t, const char *name)
{
	static char buf[4][128];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", t->dir, name);
	return buf[k];
}

static void tmp_clean(const tmpdir *t)
{
	static const char *names[] = { "m.lp", "m.mps", "m.dat", "glpsol.out",
				       "glpsol.log", "cbc.log", "cbc2.log" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		unlink(tmp_file(t, names[i]));
	rmdir(t->dir);
}

static int nskip_glpsol, nskip_cbc;

/* (a) glpsol on models/wasp.mod + the data, (b) cbc on the MPS and LP. */
static void cross_check(inst *in, const char *label)
{
	tmpdir t;
	wasp_error e;
	memset(&e, 0, sizeof e);
	tmp_make(&t);
	char lp[128], mps[128], dat[128];
	snprintf(lp, sizeof lp, "%s", tmp_file(&t, "m.lp"));
	snprintf(mps, sizeof mps, "%s", tmp_file(&t, "m.mps"));
	snprintf(dat, sizeof dat, "%s", tmp_file(&t, "m.dat"));
	ck_assert_int_eq(wilp_export(in->p, &in->o, WASP_EXPORT_LP, lp, &e), 0);
	ck_assert_int_eq(wilp_export(in->p, &in->o, WASP_EXPORT_MPS, mps, &e),
			 0);
	ck_assert_int_eq(wilp_export(in->p, &in->o, WASP_EXPORT_DAT, dat, &e),
			 0);
	ck_assert_int_eq(in->tune.out_blocks, 1); /* weighted regime */
	double want = in->st.objective;
	if (have_tool("glpsol")) {
		char out[128], log[128];
		snprintf(out, sizeof out, "%s", tmp_file(&t, "glpsol.out"));
		snprintf(log, sizeof log, "%s", tmp_file(&t, "glpsol.log"));
		char *argv[] = { "glpsol", "-m",
				 (char *)tu_src_path("models/wasp.mod"), "-d",
				 dat, "-o", out, NULL };
		int rc = run_tool(argv, log);
		char *txt = tu_slurp(out);
		ck_assert_msg(rc == 0, "%s: glpsol failed", label);
		double got = parse_obj(txt, "Objective:  value");
		ck_assert_msg(fabs(got - want) < 0.5,
			      "%s: glpsol on wasp.mod %.1f, wasp %.1f", label,
			      got, want);
		free(txt);
	} else {
		nskip_glpsol++;
	}
	if (have_tool("cbc")) {
		char log[128];
		snprintf(log, sizeof log, "%s", tmp_file(&t, "cbc.log"));
		char *a1[] = { "cbc", mps, "-max", "-solve", NULL };
		ck_assert_int_eq(run_tool(a1, log), 0);
		char *txt = tu_slurp(log);
		ck_assert_msg(strstr(txt, "Optimal solution found"),
			      "%s: cbc: %s", label, txt);
		double got = parse_obj(txt, "Objective value");
		ck_assert_msg(fabs(got - want) < 0.5,
			      "%s: cbc on MPS %.1f, wasp %.1f", label, got,
			      want);
		free(txt);
		snprintf(log, sizeof log, "%s", tmp_file(&t, "cbc2.log"));
		char *a2[] = { "cbc", lp, "-solve", NULL };
		ck_assert_int_eq(run_tool(a2, log), 0);
		txt = tu_slurp(log);
		got = parse_obj(txt, "Objective value");
		ck_assert_msg(fabs(got - want) < 0.5,
			      "%s: cbc on LP %.1f, wasp %.1f", label, got,
			      want);
		free(txt);
	} else {
		nskip_cbc++;
	}
	tmp_clean(&t);
}

/* --------------------------------------------------------- enumeration */

/* Tier weights, written from doc/formulation.md independently of ilp.c:
 * W_p = (1 + |NU| + |FU|) prod_{q < p} (1 + M_q), M_q = sum val * count
 * over the classes of priority q, NU = empty nodes eligible for some class,
 * FU = the packing domains (enum_ndom). */
typedef struct eweights {
	int nlev;
	int32_t lev[16];
	double w[16];
	double val[256];  /* per class */
	bool nu[64];      /* per node  */
} eweights;

/* Packing domains (doc/formulation.md 4): at every key, the domains of
 * two or more nodes, all empty now, some in NU; with busy, those whose
 * NU nodes are all free, else all of them. */
static int enum_ndom(const wp_problem *p, const bool *nu, const bool *busy)
{
	int r = 0;
	for (int k = 0; p->topo && k < p->topo->nkeys; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++) {
			bool ok = key->dom_nnodes[d] >= 2, some = false;
			for (int i = 0; ok && i < key->dom_nnodes[d]; i++) {
				int n = key->dom_nodes[d][i];
				ok = p->snap->nodes[n].used[WS_RES_PODS] == 0;
				some |= nu[n];
				if (busy && nu[n] && busy[n])
					ok = false;
			}
			r += ok && some;
		}
	}
	return r;
}

static void enum_weights(const wp_problem *p, eweights *ew)
{
	memset(ew, 0, sizeof *ew);
	int64_t g = 0;
	/* gcd of the value requests */
	for (int c = 0; p->value_res >= 0 && c < p->nclasses; c++) {
		int64_t a = g, b = p->classes[c].req[p->value_res];
		while (b) {
			int64_t t = a % b;
			a = b;
			b = t;
		}
		g = a;
	}
	double M[16] = { 0 };
	for (int c = 0; c < p->nclasses; c++) {
		int32_t pr = p->groups[p->classes[c].group].priority;
		int l = 0;
		while (l < ew->nlev && ew->lev[l] != pr)
			l++;
		if (l == ew->nlev)
			ew->lev[ew->nlev++] = pr;
		ew->val[c] = p->value_res < 0 ? 1
			     : g ? (double)(p->classes[c].req[p->value_res] / g)
				 : 0;
		M[l] += ew->val[c] * p->classes[c].count;
		for (int k = 0; k < p->classes[c].nelig; k++) {
			int n = p->classes[c].elig[k];
			if (p->snap->nodes[n].used[WS_RES_PODS] == 0)
				ew->nu[n] = true;
		}
	}
	int nu = 0;
	for (int n = 0; n < p->nnodes; n++)
		nu += ew->nu[n];
	nu += enum_ndom(p, ew->nu, NULL); /* packing counts domains too */
	for (int l = 0; l < ew->nlev; l++) {
		double w = 1 + nu;
		for (int q = 0; q < ew->nlev; q++)
			if (ew->lev[q] < ew->lev[l])
				w *= 1 + M[q];
		ew->w[l] = w;
	}
}

typedef struct enumst {
	const wp_problem *p;
	int npods;
	int pclass[8];    /* class of each pending pod */
	int choice[8];    /* index into elig, or -1 */
	double best;
	int bestx[256];
	int64_t use[64 * 8];
	eweights ew;
	long feasible;
} enumst;

/* Objective of the current assignment if feasible, else -1. */
static double enum_eval(enumst *E, int *x)
{
	const wp_problem *p = E->p;
	memset(x, 0, sizeof *x * (p->nx + 1));
	memset(E->use, 0, sizeof E->use);
	for (int i = 0; i < E->npods; i++) {
		if (E->choice[i] < 0)
			continue;
		const wp_class *c = &p->classes[E->pclass[i]];
		int n = c->elig[E->choice[i]];
		x[c->off + E->choice[i]]++;
		for (int r = 0; r < p->nres; r++)
			E->use[n * p->nres + r] += c->req[r];
	}
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < p->nres; r++)
			if (E->use[n * p->nres + r] > 0 &&
			    E->use[n * p->nres + r] > p->free[n * p->nres + r])
				return -1;
	double z = 0;
	bool busy[64] = { 0 };
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		int placed = 0, dom = wg->fixed_dom;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *c = &p->classes[wg->classes[ci]];
			int l = 0;
			while (E->ew.lev[l] != wg->priority)
				l++;
			for (int k = 0; k < c->nelig; k++) {
				int v = x[c->off + k];
				if (!v)
					continue;
				placed += v;
				busy[c->elig[k]] = true;
				z += E->ew.w[l] * E->ew.val[wg->classes[ci]] * v;
				if (wg->key < 0)
					continue;
				int d = p->topo->keys[wg->key]
					    .node_dom[c->elig[k]];
				if (d < 0 || dom == -2 || (dom >= 0 && d != dom))
					return -1;
				dom = d;
			}
		}
		if (placed && wg->invalid)
			return -1;
		if (placed && wg->gang && placed < wg->min_need)
			return -1;
	}
	for (int n = 0; n < p->nnodes; n++)
		if (E->ew.nu[n] && !busy[n])
			z += 1;
	return z + enum_ndom(p, E->ew.nu, busy);
}

static void enum_rec(enumst *E, int i, int *x)
{
	if (i == E->npods) {
		double z = enum_eval(E, x);
		if (z < 0)
			return;
		E->feasible++;
		if (z > E->best) {
			E->best = z;
			memcpy(E->bestx, x, sizeof *x * E->p->nx);
		}
		return;
	}
	const wp_class *c = &E->p->classes[E->pclass[i]];
	/* identical pods of a class: non-decreasing choices (symmetry) */
	int lo = -1;
	if (i > 0 && E->pclass[i - 1] == E->pclass[i])
		lo = E->choice[i - 1];
	for (int k = lo; k < c->nelig; k++) {
		E->choice[i] = k;
		enum_rec(E, i + 1, x);
	}
}

static void enumerate(const wp_problem *p, enumst *E)
{
	memset(E, 0, sizeof *E);
	E->p = p;
	ck_assert_int_le(p->nnodes, 8);
	ck_assert_int_le(p->nx, 255);
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].count; k++) {
			ck_assert_int_lt(E->npods, 8);
			E->pclass[E->npods++] = c;
		}
	enum_weights(p, &E->ew);
	E->best = -1;
	int x[256];
	enum_rec(E, 0, x);
}

/* ------------------------------------------------------------- tests */

/* Trees: the ILP is optimal, never worse than greedy, verified, and
 * glpsol on wasp.mod and cbc agree with it. */
START_TEST(cross_check_trees)
{
	int seed0 = _i * 6, nadm = 0, nwait = 0, nann = 0, npref = 0;
	for (int seed = seed0; seed < seed0 + 6; seed++) {
		char *yaml = gen_tree_instance((uint64_t)seed);
		inst in;
		char label[64];
		snprintf(label, sizeof label, "tree seed %d", seed);
		inst_load(&in, yaml, NULL);
		ck_assert_int_gt(in.p->ncomps, 0);
		inst_solve(&in, 0);
		ck_assert_msg(in.st.gap == 0, "%s: not proven optimal", label);
		check_plan(&in, label);
		cross_check(&in, label);
		for (int g = 0; g < in.p->ngroups; g++) {
			if (in.p->groups[g].pcomp) {
				nadm += in.ilp->admit[g] != 0;
				nwait += !in.ilp->admit[g];
			}
			if (in.p->groups[g].tas)
				nann += in.ilp->admit[g] != 0;
			if (in.p->groups[g].tas && in.p->groups[g].tas->pref >= 0)
				npref += in.ilp->admit[g] != 0;
		}
		inst_free(&in);
		free(yaml);
	}
	/* the batch exercises both admitted and waiting tree groups */
	ck_assert_int_gt(nadm, 0);
	ck_assert_int_gt(nwait, 0);
	ck_assert_int_gt(nann, 0); /* exclusive or sliced gangs admitted */
	ck_assert_int_gt(npref, 0); /* and gangs with a preferred rack */
}
END_TEST

START_TEST(cross_check_generated)
{
	int seed0 = _i * 6;
	for (int seed = seed0; seed < seed0 + 6; seed++) {
		char *yaml = gen_instance((uint64_t)seed, false);
		inst in;
		char label[64];
		snprintf(label, sizeof label, "seed %d", seed);
		inst_load(&in, yaml, seed % 5 == 4 ? "cpu" : NULL);
		inst_solve(&in, 0);
		ck_assert_msg(in.st.gap == 0, "%s: not proven optimal", label);
		ck_assert(!strcmp(in.st.status, "optimal") ||
			  !strcmp(in.st.status, "greedy"));
		check_plan(&in, label);
		cross_check(&in, label);
		/* the tier-by-tier fallback reaches the same tiers */
		wp_sol *keep = wp_sol_new(in.p, in.a);
		wp_sol_copy(in.p, keep, in.ilp);
		double obj = in.st.objective;
		in.tune.max_coef = 1;
		inst_solve(&in, 0);
		ck_assert_int_ge(in.tune.out_blocks, 2);
		wp_value v1, v2;
		wp_evaluate(in.p, keep, &v1);
		wp_evaluate(in.p, in.ilp, &v2);
		ck_assert_msg(wp_value_cmp(&v1, &v2) == 0,
			      "%s: tier by tier differs", label);
		ck_assert_double_eq_tol(in.st.objective, obj, 0.5);
		check_plan(&in, label);
		inst_free(&in);
		free(yaml);
	}
	if (nskip_glpsol)
		fprintf(stderr, "check_ilp: glpsol absent, skipped %d checks\n",
			nskip_glpsol);
	if (nskip_cbc)
		fprintf(stderr, "check_ilp: cbc absent, skipped %d checks\n",
			nskip_cbc);
}
END_TEST

/* wasp's reliability branching (branch.c; doc/formulation.md §6b) and
 * its Driebeek-Tomlin rule on its own tableau rows (dth.c) prove the
 * same optimum as GLPK's Driebeek-Tomlin rule, tier for tier, and every
 * plan passes the verifier. */
START_TEST(reliability_same_optimum)
{
	long strong = 0, dth = 0;
	for (int seed = 0; seed < 36; seed++) {
		char *yaml = gen_instance((uint64_t)seed, false);
		inst in;
		char label[64];
		snprintf(label, sizeof label, "branching, seed %d", seed);
		inst_load(&in, yaml, seed % 5 == 4 ? "cpu" : NULL);
		in.tune.glpk_branching = true;
		in.tune.glpk_dth = true;
		inst_solve(&in, 0);
		ck_assert_int_eq(in.tune.out_strong, 0);
		ck_assert_int_eq(in.tune.out_dth, 0);
		ck_assert_msg(in.st.gap == 0, "%s: GLPK's not proven", label);
		check_plan(&in, label);
		wp_sol *ref = wp_sol_new(in.p, in.a);
		wp_sol_copy(in.p, ref, in.ilp);
		double obj = in.st.objective;
		wp_value v1, v2;
		wp_evaluate(in.p, ref, &v1);
		/* wasp's Driebeek-Tomlin, then reliability branching */
		for (int way = 0; way < 2; way++) {
			in.tune.glpk_dth = false;
			in.tune.glpk_branching = way == 0;
			in.tune.out_strong = in.tune.out_dth = 0;
			inst_solve(&in, 0);
			strong += in.tune.out_strong;
			dth += in.tune.out_dth;
			ck_assert_msg(in.st.gap == 0, "%s, way %d: not proven",
				      label, way);
			check_plan(&in, label);
			wp_evaluate(in.p, in.ilp, &v2);
			ck_assert_msg(wp_value_cmp(&v1, &v2) == 0,
				      "%s, way %d: tiers differ", label, way);
			ck_assert_double_eq_tol(in.st.objective, obj, 0.5);
		}
		inst_free(&in);
		free(yaml);
	}
	/* both rules branched, on some of them */
	ck_assert_int_gt(strong, 0);
	ck_assert_int_gt(dth, 0);
}
END_TEST

START_TEST(enumeration_tiny)
{
	int seed0 = _i * 8;
	for (int seed = seed0; seed < seed0 + 8; seed++) {
		char *yaml = gen_instance((uint64_t)seed, true);
		inst in;
		char label[64];
		snprintf(label, sizeof label, "tiny seed %d", seed);
		inst_load(&in, yaml, seed % 4 == 3 ? "cpu" : NULL);
		ck_assert_int_le(in.p->nnodes, 4);
		inst_solve(&in, 0);
		check_plan(&in, label);
		enumst E;
		enumerate(in.p, &E);
		ck_assert_int_gt(E.feasible, 0); /* nothing placed is feasible */
		ck_assert_msg(fabs(E.best - in.st.objective) < 0.5,
			      "%s: enumeration %.1f, ILP %.1f", label, E.best,
			      in.st.objective);
		/* the same tiers as the enumerated optimum */
		wp_sol *es = wp_sol_new(in.p, in.a);
		ck_assert_int_eq(wp_x_from_dense(in.p, es, E.bestx), 0);
		for (int g = 0; g < in.p->ngroups; g++) {
			const wp_group *wg = &in.p->groups[g];
			int placed = 0;
			for (int ci = 0; ci < wg->nclasses; ci++) {
				const wp_class *c = &in.p->classes[wg->classes[ci]];
				for (int k = 0; k < c->nelig; k++)
					placed += wp_x(es, c->off + k);
			}
			es->admit[g] = placed > 0;
		}
		wp_value ve, vi;
		wp_evaluate(in.p, es, &ve);
		wp_evaluate(in.p, in.ilp, &vi);
		ck_assert_msg(wp_value_cmp(&ve, &vi) == 0,
			      "%s: tiers differ from the enumeration", label);
		inst_free(&in);
		free(yaml);
	}
}
END_TEST

/* One high-priority pod against 1001 low ones that need the same CPU:
 * weights equal to the priorities (1000 vs 1001 x 1) would pick the low
 * pods; the tiers must pick the high one. */
static char *outvote_yaml(bool low_gang)
{
	sb b = { 0 };
	y_pc(&b, 1);
	y_pc(&b, 1000);
	sbf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n0\n"
		"status:\n  allocatable:\n    cpu: 1001m\n    memory: 64Gi\n"
		"    pods: \"2000\"\n");
	sbf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: high\n"
		"  namespace: t\nspec:\n  priorityClassName: p1000\n"
		"  priority: 1000\n  containers:\n  - name: c\n    resources:\n"
		"      requests:\n        cpu: 1001m\n");
	if (low_gang)
		y_group(&b, "low", true, 1001, 0, 1);
	else
		y_group(&b, "low", false, 1, 0, 1);
	for (int i = 0; i < 1001; i++)
		sbf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata:\n"
			"  name: low-%d\n  namespace: t\nspec:\n"
			"  schedulingGroup:\n    podGroupName: low\n"
			"  priorityClassName: p1\n  priority: 1\n"
			"  containers:\n  - name: c\n    resources:\n"
			"      requests:\n        cpu: 1m\n",
		    i);
	return b.s;
}

START_TEST(no_outvoting)
{
	for (int gang = 0; gang < 2; gang++) {
		char *yaml = outvote_yaml(gang);
		inst in;
		inst_load(&in, yaml, NULL);
		/* the instance is adversarial for priority weights */
		ck_assert_int_gt(1001 * 1, 1 * 1000);
		wgr_solve(in.p, &in.o, in.greedy, NULL);
		/* start from the wrong answer: all low pods placed */
		wp_x_clear(in.greedy);
		memset(in.greedy->admit, 0, in.p->ngroups);
		for (int g = 0; g < in.p->ngroups; g++) {
			const wp_group *wg = &in.p->groups[g];
			in.greedy->reason[g] = "test";
			if (wg->priority != 1)
				continue;
			const wp_class *c = &in.p->classes[wg->classes[0]];
			wp_x_set(in.greedy, c->off, c->count);
			in.greedy->admit[g] = 1;
			in.greedy->reason[g] = NULL;
		}
		const char *why = NULL;
		ck_assert_msg(wp_sol_feasible(in.p, in.greedy, &why) == 0, "%s",
			      why);
		inst_solve(&in, 0);
		ck_assert_str_eq(in.st.status, "optimal");
		ck_assert(in.st.improved);
		/* W_high = (1 + |NU|)(1 + M_low) = 2 * 1002 */
		ck_assert_double_eq(in.tune.out_maxcoef, 2004);
		ck_assert_double_eq(in.st.objective, 2004);
		wp_value v;
		wp_evaluate(in.p, in.ilp, &v);
		ck_assert_int_eq(v.nprio, 2);
		ck_assert_double_eq(v.work[0], 1);  /* the high pod */
		ck_assert_double_eq(v.work[1], 0);  /* no low pod */
		check_plan(&in, gang ? "outvote gang" : "outvote basic");
		/* and through the whole pipeline */
		wasp_options o;
		wasp_options_init(&o);
		o.mode = WASP_MODE_ILP;
		wasp_plan *pl = tu_solve(in.snap, &o);
		ck_assert_str_eq(tu_node_of(pl, "t", "high"), "n0");
		ck_assert_ptr_null(tu_node_of(pl, "t", "low-0"));
		wasp_plan_free(pl);
		inst_free(&in);
		free(yaml);
	}
}
END_TEST

/* Packing counts whole free domains (doc/formulation.md 4): six 4-CPU
 * nodes, racks r0..r2 of two, blocks b0 (r0, r1) and b1 (r2), node-5
 * busy; two pending pods of 4 CPUs each.  Every placement on two nodes
 * admits the same work and leaves three nodes free, but only the ones
 * that share a rack (or use node-4) leave a whole rack free.  From a
 * fragmented start (node-0, node-2) the ILP must free a rack. */
static char *pack_yaml(void)
{
	sb b = { 0 };
	y_pc(&b, 1);
	sbf(&b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\n"
		"metadata: {name: t}\nspec: {levels: ["
		"{nodeLabel: example.com/block}, {nodeLabel: example.com/rack}, "
		"{nodeLabel: kubernetes.io/hostname}]}\n");
	for (int i = 0; i < 6; i++)
		y_node(&b, i, 4, 16, 110, 0, false);
	y_pod(&b, "run", NULL, 1, 1000, 1, 0, 5);
	y_pod(&b, "p0", NULL, 1, 4000, 1, 0, -1);
	y_pod(&b, "p1", NULL, 1, 4000, 1, 0, -1);
	return b.s;
}

START_TEST(packing_free_rack)
{
	char *yaml = pack_yaml();
	inst in;
	inst_load(&in, yaml, NULL);
	/* keys: block, rack, hostname; candidates r0, r1, b0 (r2 and b1
	 * hold node-5) */
	ck_assert_int_eq(in.p->topo->nkeys, 3);
	/* the fragmented start: the pods on node-0 and node-2 */
	wp_x_clear(in.greedy);
	int placed = 0;
	for (int c = 0; c < in.p->nclasses; c++) {
		const wp_class *cl = &in.p->classes[c];
		for (int j = 0; j < cl->count && placed < 2; j++)
			for (int k = 0; k < cl->nelig; k++) {
				char want[16];
				snprintf(want, sizeof want, "node-%d",
					 placed ? 2 : 0);
				if (strcmp(in.p->snap->nodes[cl->elig[k]].name,
					   want))
					continue;
				wp_x_add(in.greedy, cl->off + k, 1);
				in.greedy->admit[cl->group] = 1;
				in.greedy->reason[cl->group] = NULL;
				placed++;
				break;
			}
	}
	ck_assert_int_eq(placed, 2);
	const char *why = NULL;
	ck_assert_msg(wp_sol_feasible(in.p, in.greedy, &why) == 0, "%s", why);
	wp_value vg, vi;
	wp_evaluate(in.p, in.greedy, &vg);
	ck_assert_double_eq(vg.work[0], 2);
	ck_assert_double_eq(vg.packing, 3); /* node-1, -3, -4; no domain */
	inst_solve(&in, 0);
	ck_assert_str_eq(in.st.status, "optimal");
	ck_assert(in.st.improved);
	wp_evaluate(in.p, in.ilp, &vi);
	ck_assert_double_eq(vi.work[0], 2);
	ck_assert_double_eq(vi.packing, 4); /* three nodes and a rack */
	ck_assert_int_gt(wp_value_cmp(&vi, &vg), 0);
	check_plan(&in, "packing");
	cross_check(&in, "packing");
	/* through the whole pipeline (verified): a rack of r0, r1 stays
	 * empty */
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	wasp_plan *pl = tu_solve(in.snap, &o);
	bool used[6] = { 0 };
	for (int i = 0; i < 2; i++) {
		const char *n = tu_node_of(pl, "t", i ? "p1" : "p0");
		ck_assert_ptr_nonnull(n);
		ck_assert(!strncmp(n, "node-", 5));
		used[atoi(n + 5)] = true;
	}
	ck_assert(!used[5]); /* no room left there */
	ck_assert((!used[0] && !used[1]) || (!used[2] && !used[3]));
	wasp_plan_free(pl);
	inst_free(&in);
	free(yaml);
}
END_TEST

/* The tier-by-tier fallback on the same instance: one solve per tier. */
START_TEST(tier_by_tier)
{
	char *yaml = outvote_yaml(false);
	inst in;
	inst_load(&in, yaml, NULL);
	in.tune.max_coef = 1;
	inst_solve(&in, 0);
	ck_assert_int_eq(in.tune.out_blocks, 3); /* two priorities, packing */
	wp_value v;
	wp_evaluate(in.p, in.ilp, &v);
	ck_assert_double_eq(v.work[0], 1);
	ck_assert_double_eq(v.work[1], 0);
	ck_assert_double_eq(in.st.objective, 2004);
	check_plan(&in, "tier by tier");
	inst_free(&in);
	free(yaml);
}
END_TEST

/* A big instance for deadline tests. */
static char *big_yaml(int nodes, int gangs)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.seed = 7;
	g.levels = 3;
	g.nodes = nodes;
	g.gangs = gangs;
	g.max_gang = 32;
	g.busy = 0.5;
	wasp_error e;
	memset(&e, 0, sizeof e);
	char *y = wasp_gen(&g, &e);
	ck_assert_msg(y != NULL, "wasp_gen: %s", e.msg);
	return y;
}

START_TEST(deadline_honoured)
{
	char *yaml = big_yaml(2048, 400);
	inst in;
	inst_load(&in, yaml, NULL);
	double t0 = wasp_now();
	inst_solve(&in, t0 + 1.0);
	double dt = wasp_now() - t0;
	/* catches a deadline not kept; how far a loaded machine overshoots
	 * is a bench figure, not a unit test's */
	ck_assert_msg(dt < 3.0, "took %.3f s for a 1 s deadline", dt);
	ck_assert_str_ne(in.st.status, "optimal");
	const char *why = NULL;
	ck_assert_msg(wp_sol_feasible(in.p, in.ilp, &why) == 0, "%s", why);
	check_plan(&in, "deadline");
	inst_free(&in);
	wasp_free(yaml);
}
END_TEST

static volatile int cancel_flag;

START_TEST(cancel_stops)
{
	char *yaml = big_yaml(512, 100);
	inst in;
	inst_load(&in, yaml, NULL);
	cancel_flag = 1;
	in.o.cancel = &cancel_flag;
	double t0 = wasp_now();
	inst_solve(&in, t0 + 30);
	/* well before the 30 s deadline, even on a loaded machine */
	ck_assert_double_lt(wasp_now() - t0, 5.0);
	ck_assert_str_eq(in.st.status, "greedy");
	check_plan(&in, "cancel");
	inst_free(&in);
	wasp_free(yaml);
}
END_TEST

START_TEST(glpk_fault)
{
	char *yaml = gen_instance(5, false);
	inst in;
	inst_load(&in, yaml, NULL);
	wasp_error e;
	memset(&e, 0, sizeof e);
	in.tune.fault = 1;
	int rc = wilp_solve_tuned(in.p, &in.o, wdl_none(), in.greedy, in.ilp, &in.st,
				  &in.tune, &e);
	ck_assert_int_eq(rc, WASP_ESOLVER);
	ck_assert_int_eq(e.code, WASP_ESOLVER);
	ck_assert_msg(strstr(e.msg, "column number out of range"), "%s",
		      e.msg);
	/* the thread's GLPK is usable again */
	in.tune.fault = 0;
	inst_solve(&in, 0);
	check_plan(&in, "after fault");
	/* out of GLPK memory */
	inst_free(&in);
	free(yaml);
	char *big = big_yaml(512, 100);
	inst_load(&in, big, NULL);
	in.tune.mem_limit_mb = 1;
	memset(&e, 0, sizeof e);
	rc = wilp_solve_tuned(in.p, &in.o, wdl_none(), in.greedy, in.ilp, &in.st,
			      &in.tune, &e);
	ck_assert_int_eq(rc, WASP_ESOLVER);
	ck_assert_msg(strstr(e.msg, "memory allocation limit exceeded"), "%s",
		      e.msg);
	inst_free(&in);
	wasp_free(big);
}
END_TEST

START_TEST(threads_match_serial)
{
	enum { K = 6 };
	char *yaml[K];
	inst in[K];
	double obj[K];
	int *xs[K];
	for (int k = 0; k < K; k++) {
		yaml[k] = gen_instance(100 + k, false);
		inst_load(&in[k], yaml[k], NULL);
		inst_solve(&in[k], 0);
		obj[k] = in[k].st.objective;
		xs[k] = malloc(sizeof(int) * (in[k].p->nx + 1));
		wp_x_to_dense(in[k].p, in[k].ilp, xs[k]);
		wp_x_clear(in[k].ilp);
	}
	int fails = 0;
	for (int round = 0; round < 3; round++) {
#pragma omp parallel for num_threads(2) schedule(dynamic) reduction(+:fails)
		for (int k = 0; k < K; k++) {
			wasp_error e;
			memset(&e, 0, sizeof e);
			wilp_stats st;
			wp_sol *s = in[k].ilp;
			if (wilp_solve(in[k].p, &in[k].o, wdl_none(), in[k].greedy, s,
				       &st, &e) != WASP_OK)
				fails++;
			else {
				int *x = malloc(sizeof(int) * (in[k].p->nx + 1));
				if (x)
					wp_x_to_dense(in[k].p, s, x);
				if (!x || st.objective != obj[k] ||
				    memcmp(x, xs[k], sizeof(int) * in[k].p->nx))
					fails++;
				free(x);
			}
		}
	}
	ck_assert_int_eq(fails, 0);
	for (int k = 0; k < K; k++) {
		check_plan(&in[k], "threads");
		inst_free(&in[k]);
		free(yaml[k]);
		free(xs[k]);
	}
}
END_TEST

START_TEST(export_names)
{
	char *yaml = gen_instance(3, false);
	inst in;
	inst_load(&in, yaml, NULL);
	tmpdir t;
	tmp_make(&t);
	char lp[128];
	snprintf(lp, sizeof lp, "%s", tmp_file(&t, "m.lp"));
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(wilp_export(in.p, &in.o, WASP_EXPORT_LP, lp, &e), 0);
	char *txt = tu_slurp(lp);
	ck_assert_ptr_nonnull(strstr(txt, "Maximize"));
	/* GLPK's writer turns [ ] into ( ) and - into ~ */
	ck_assert_ptr_nonnull(strstr(txt, "cap(node~"));
	ck_assert_ptr_nonnull(strstr(txt, "cls(c"));
	ck_assert_ptr_nonnull(strstr(txt, "x(c0,node~"));
	free(txt);
	ck_assert_int_eq(wilp_export(in.p, &in.o, 99, lp, &e), WASP_EINVAL);
	ck_assert_int_eq(wilp_export(in.p, &in.o, WASP_EXPORT_LP,
				     "/nonexistent/dir/m.lp", &e),
			 WASP_EIO);
	/* the model size estimate is of the right order */
	int rows, cols;
	long nz;
	wilp_estimate(in.p, &rows, &cols, &nz);
	inst_solve(&in, 0);
	ck_assert_int_ge(cols, in.st.cols / 2);
	ck_assert_int_gt(in.st.rows, 0);
	ck_assert_int_eq(in.st.ints, in.st.cols);
	unlink(lp);
	tmp_clean(&t);
	inst_free(&in);
	free(yaml);
}
END_TEST

/* Through the public pipeline: mode ILP plans pass the verifier. */
START_TEST(pipeline_ilp)
{
	for (int seed = 200; seed < 206; seed++) {
		char *yaml = gen_instance(seed, false);
		wasp_snapshot *s = tu_load(yaml);
		wasp_plan *pl = tu_solve_mode(s, WASP_MODE_ILP);
		wasp_plan_stats ps;
		wasp_plan_stats_get(pl, &ps);
		ck_assert(!strcmp(ps.status, "optimal") ||
			  !strcmp(ps.status, "greedy") ||
			  !strcmp(ps.status, "empty"));
		wasp_plan_free(pl);
		wasp_snapshot_free(s);
		free(yaml);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ilp");
	TCase *tc = tcase_create("cross-check");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, cross_check_generated, 0, NSEEDS / 6);
	tcase_add_loop_test(tc, cross_check_trees, 0, NTREES / 6);
	tcase_add_loop_test(tc, enumeration_tiny, 0, NTINY / 8);
	suite_add_tcase(s, tc);
	TCase *tt = tcase_create("tiers");
	tcase_set_timeout(tt, 120);
	tcase_add_test(tt, no_outvoting);
	tcase_add_test(tt, tier_by_tier);
	tcase_add_test(tt, packing_free_rack);
	tcase_add_test(tt, reliability_same_optimum);
	suite_add_tcase(s, tt);
	TCase *tr = tcase_create("runtime");
	tcase_set_timeout(tr, 120);
	tcase_add_test(tr, deadline_honoured);
	tcase_add_test(tr, cancel_stops);
	tcase_add_test(tr, glpk_fault);
	tcase_add_test(tr, threads_match_serial);
	tcase_add_test(tr, export_names);
	tcase_add_test(tr, pipeline_ilp);
	suite_add_tcase(s, tr);
	return tu_run(s);
}
