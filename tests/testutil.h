/*
 * testutil.h -- helpers shared by the Check suites.
 *
 * The rule these enforce: every plan a test produces goes through the
 * verifier (tu_solve fails the test if wasp_check finds a violation).
 */
#ifndef WASP_TESTUTIL_H
#define WASP_TESTUTIL_H

#include <check.h>

#include "wasp.h"
#include "model/snapshot.h"
#include "plan/plan.h"
#include "reduce/problem.h"

/* 1 in an AddressSanitizer build (configure --enable-sanitizers): its
 * allocator cannot be interposed and its shadow memory does not live
 * under an RLIMIT_DATA, so the few tests that need either skip there. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#else
#define TU_ASAN 0
#endif

/* A solver's wp_sol: feasible for its problem (wp_sol_feasible), never
 * worse than `floor` (may be NULL) in the lexicographic objective, and
 * clean in the verifier (as a plan).  label prefixes the failures. */
void tu_sol_verified(const wasp_snapshot *s, const wp_problem *p,
		     const wp_sol *x, const wp_sol *floor,
		     const char *label);
/* The independent verifier's report on x as a plan (wasp_free it; NULL
 * when it has nothing to say), and its violations in *nv. */
char *tu_sol_report(const wasp_snapshot *s, const wp_problem *p,
		    const wp_sol *x, size_t *nv);

/* Two solutions of p place the same pods on the same nodes, admit the
 * same groups and evict the same units (the thread-independence checks); label prefixes the
 * failures. */
void tu_sol_same(const wp_problem *p, const wp_sol *a, const wp_sol *b,
		 const char *label);

/* A whole file, malloc'd and NUL-terminated (wl_read_file); fails the
 * test when it cannot be read. */
char *tu_slurp(const char *path);

/* Load YAML/JSON text; fails the test (with the error) if it does not load. */
wasp_snapshot *tu_load(const char *text);
/* Load text that must be refused; returns the error for assertions. */
wasp_error tu_load_fail(const char *text);
/* Load a file under $WASP_SRCDIR (e.g. "models/examples/gpu16.yaml"). */
wasp_snapshot *tu_load_file(const char *relpath);
/* $WASP_SRCDIR/relpath in a static buffer (falls back to "." + relpath). */
const char *tu_src_path(const char *relpath);

/* Default options for tests: mode greedy unless o is given; solve, then
 * verify with wasp_check and fail the test on any violation. */
wasp_plan *tu_solve(const wasp_snapshot *s, const wasp_options *o);
wasp_plan *tu_solve_mode(const wasp_snapshot *s, int mode);
/* tu_solve_mode on one thread (the preemption suites' plans). */
wasp_plan *tu_solve_serial(const wasp_snapshot *s, int mode);

/* Generate g's instance, plan it greedily with 1 and with 2 threads (both
 * plans verified) and fail unless the placements and waiting reasons are
 * the same; returns the first plan (the caller frees it). */
wasp_plan *tu_greedy_threads_same(const wasp_gen_options *g);

/* The node a pod was placed on by the plan, or NULL. */
const char *tu_node_of(const wasp_plan *p, const char *ns, const char *pod);
/* Pods of group ns/group placed by the plan. */
int tu_placed_in_group(const wasp_plan *p, const char *ns, const char *group);
/* The waiting entry's reason for ns/group, or NULL if it does not wait. */
const char *tu_wait_reason(const wasp_plan *p, const char *ns,
			   const char *group);

/* A growing text buffer: suites write their clusters as YAML into one. */
typedef struct tu_buf {
	char *buf;
	size_t len, cap;
} tu_buf;

/* Append printf-style output to b (fails the test if memory runs out). */
void tu_printf(tu_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* tu_load the text of b, then free it and reset b for the next cluster. */
wasp_snapshot *tu_load_buf(tu_buf *b);
/* A Pod in namespace ml at priority prio asking for 1 cpu and `gpus`
 * nvidia.com/gpu; group and node may be NULL (lone / pending). */
void tu_pod_yaml(tu_buf *b, const char *name, const char *group,
		 const char *node, int gpus, int prio);
/* Such a Pod up to its containers (name, priority, group, node). */
void tu_pod_head_yaml(tu_buf *b, const char *name, const char *group,
		      const char *node, int prio);
/* A Node "name" with 64 cpu, 512Gi, 110 pods and 8 GPUs, and labels
 * (the inside of the map, e.g. "example.com/rack: r1") unless NULL. */
void tu_node_yaml(tu_buf *b, const char *name, const char *labels);
/* Nodes n0 .. n(count - 1), unlabelled. */
void tu_nodes_yaml(tu_buf *b, int count);
/* A PodGroup "name" in namespace ml (minCount: min, at priority prio
 * when it is not 0, confined to one domain of key when key is not
 * NULL) and its `size` pending pods of `gpus` GPUs each. */
void tu_gang_min_yaml(tu_buf *b, const char *name, int size, int min,
		      int gpus, int prio, const char *key);
/* A PodGroup header "name" in namespace ml at priority prio: a gang of
 * minCount min when min > 0, else basic; confined to one domain of key
 * unless key is NULL; extra: more spec lines, or "". */
void tu_group_yaml(tu_buf *b, const char *name, int min, const char *key,
		   int prio, const char *extra);

/* A small deterministic generator (an LCG) for the suites' random
 * clusters. */
typedef struct tu_rng {
	uint64_t s;
} tu_rng;
/* The next number in lo .. hi (inclusive); inline, so the compiler sees
 * the range where the number is printed. */
static inline int tu_rnd(tu_rng *r, int lo, int hi)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (int)((r->s >> 33) % (uint64_t)(hi - lo + 1));
}

/* The value after `key` in the last line of cmd's output holding it;
 * NAN when none does. */
double tu_tool_value(const char *cmd, const char *key);
/* cbc, glpsol installed (in /usr/bin or /usr/local/bin). */
bool tu_have_cbc(void);
bool tu_have_glpsol(void);
/* The optimum an external solver finds on the model wasp exports for s
 * under o: cbc on the MPS file (fmt WASP_EXPORT_MPS; NAN unless cbc
 * says it is optimal), or glpsol on models/wasp.mod with the GMPL data
 * (fmt WASP_EXPORT_DAT); NAN when the tool finds none.  WASP_KEEP set:
 * the file stays in /tmp. */
double tu_ext_obj(const wasp_snapshot *s, const wasp_options *o, int fmt);
/* Fail unless the external solvers find obj on the model wasp exports
 * for s under o (tu_ext_obj): cbc when `cbc` is set and it is installed,
 * glpsol when it is installed; seed labels the failures. */
void tu_ext_agree(const wasp_snapshot *s, const wasp_options *o, double obj,
		  bool cbc, int seed);
/* WASP_PE_DUMP=<seed>: the cluster generated for that seed (its text,
 * yaml) is written to /tmp/wasp-pe-dump.yaml, to replay it by hand. */
void tu_dump_seed(int seed, const char *yaml);
/* Export s for the ILP (LP and GMPL data) and fail unless cbc on the LP
 * and glpsol on models/wasp.mod with the data both reach obj (skipped
 * with a note when either tool is missing; WASP_KEEP=1 keeps the files,
 * seed labels the failures). */
void tu_ilp_cross_check(const wasp_snapshot *s, double obj, int seed);

/* A generated instance and the pieces the solver tests start from: the
 * snapshot, its problem (default options) and greedy's solution, all in
 * one arena. */
typedef struct tu_inst {
	wasp_snapshot *snap;
	wa_arena *a;
	wp_problem *p;
	wp_sol *greedy;
	wasp_options o;
} tu_inst;
/* The snapshot wasp_gen writes for g, loaded. */
wasp_snapshot *tu_gen_load(const wasp_gen_options *g);
/* An instance of snap (taken over: tu_inst_free frees it): its problem
 * under default options and greedy's plan. */
void tu_inst_load(tu_inst *in, wasp_snapshot *snap);
void tu_inst_gen(tu_inst *in, const wasp_gen_options *g);
/* Generator options from `wasp gen`'s words, "seed 22 nodes 256 ...",
 * on top of the defaults (a bench suite's gen: line); fails the test on
 * a bad option. */
void tu_gen_args(wasp_gen_options *g, const char *args);
void tu_inst_free(tu_inst *in);

/* Run a Check suite with CK_ENV verbosity; returns process exit code. */
int tu_run(Suite *s);

#endif
