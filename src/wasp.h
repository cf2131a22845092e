/*
 * wasp.h -- public API of libwasp, the Workload-Aware Scheduling Planner.
 *
 * libwasp reads a cluster snapshot written as ordinary Kubernetes objects
 * (YAML or JSON, as `kubectl get -o yaml|json` prints them), places the
 * pending PodGroups as gangs with their topology constraints, and returns a
 * plan: which pod goes to which node, and why each waiting group waits.
 *
 * Conventions (after SQLite and libuv):
 *   - opaque handles, names wasp_<noun>_<verb>;
 *   - every fallible call returns WASP_OK (0) or a WASP_E* code and, when the
 *     caller passes a wasp_error, fills it with a message (and, for bad
 *     input, the file, line and column it points at);
 *   - results are owned by the caller and released with the matching _free;
 *   - the library holds no global state, never prints, never exits; one
 *     snapshot may be queried from several threads at once.
 */
#ifndef WASP_H
#define WASP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WASP_VERSION "0.1.0"
#define WASP_PLAN_API_VERSION "wasp.dev/v1alpha1"

/* ---------------------------------------------------------------- errors */

enum wasp_code {
	WASP_OK = 0,
	WASP_EINPUT = 1,    /* bad input: syntax, type, value, reference   */
	WASP_ENOMEM = 2,    /* out of memory                               */
	WASP_EIO = 3,       /* cannot read or write a file                 */
	WASP_EINVAL = 4,    /* bad argument to an API call                 */
	WASP_ESOLVER = 5,   /* the solver failed (a GLPK fault)            */
	WASP_ECANCELED = 6, /* cancelled through wasp_options.cancel       */
	WASP_ELIMIT = 7,    /* input over a size limit (see WASP_MAX_*)    */
	WASP_ENOTFOUND = 8  /* a named object does not exist               */
};

/* An error: `code` is a wasp_code; `file`, `line`, `col` (1-based) locate
 * bad input and are empty/0 otherwise.  `msg` never ends in a newline. */
typedef struct wasp_error {
	int code;
	int line, col;
	char file[256];
	char msg[512];
} wasp_error;

/* "file:line:col: msg", or just "msg" when there is no position.  Writes at
 * most `size` bytes including the NUL; returns buf. */
char *wasp_error_format(const wasp_error *err, char *buf, size_t size);
const char *wasp_code_name(int code);

/* ---------------------------------------------------------------- limits */

#define WASP_MAX_INPUT_BYTES  (1024L * 1024 * 1024) /* one file              */
#define WASP_MAX_DEPTH        64                    /* nesting of a document */
#define WASP_MAX_TREE_NODES   (64L * 1024 * 1024)   /* values per file, aliases expanded */
#define WASP_MAX_OBJECTS      (4L * 1024 * 1024)    /* objects per snapshot  */
#define WASP_MAX_NAME         253                   /* a Kubernetes name     */

/* Default whole-run budget (wasp_options.time_limit_s): the ILP stops at
 * this point with its best plan and an honest gap. */
#define WASP_DEFAULT_TIME_LIMIT_S 60.0

/* -------------------------------------------------------------- snapshot */

typedef struct wasp_snapshot wasp_snapshot; /* immutable once built */

/* How a topology key's domains are read (doc/input.md, "Topology and domains"). */
enum wasp_domain_mode {
	WASP_DOMAIN_VALUE = 0, /* upstream: nodes sharing one value of the key  */
	WASP_DOMAIN_PATH = 1   /* Kueue: values of all coarser levels + this one */
};

/* Load one or more files ("-" is standard input).  YAML (multi-document)
 * or JSON, objects or `kind: List`. */
int wasp_snapshot_load(wasp_snapshot **out, const char *const *paths,
		       size_t npaths, wasp_error *err);
/* The same within a run's budget (doc/library.md, "Time and memory"):
 * o's time limit (from o->start_time) and o->cancel are checked while
 * reading, parsing and decoding (WASP_ELIMIT or WASP_ECANCELED when they
 * stop it; o may be NULL), and a file larger than max_bytes (0: only
 * WASP_MAX_INPUT_BYTES; o->max_memory / WASP_MEMORY_PER_INPUT_BYTE
 * when that is less) is refused with WASP_ELIMIT: a regular file
 * before it is read, a pipe or device after max_bytes + 1 bytes. */
typedef struct wasp_options wasp_options; /* below */
int wasp_snapshot_load_limited(wasp_snapshot **out,
			       const char *const *paths, size_t npaths,
			       const wasp_options *o, size_t max_bytes,
			       wasp_error *err);
/* Memory a run takes per byte of input, about (doc/library.md, "Time
 * and memory"): loading and greedy; the ILP takes more. */
#define WASP_MEMORY_PER_INPUT_BYTE 14
/* The same from memory; `name` is used in error positions. */
int wasp_snapshot_from_text(wasp_snapshot **out, const char *text,
			    size_t len, const char *name, wasp_error *err);
void wasp_snapshot_free(wasp_snapshot *s);

/* Warnings collected while decoding (unknown kinds, unnesting labels, ...);
 * index from 0; NULL past the end.  Owned by the snapshot. */
const char *wasp_snapshot_warning(const wasp_snapshot *s, size_t i);

/* Counts, for summaries. */
typedef struct wasp_snapshot_stats {
	size_t nodes, pods, pods_pending, pods_bound, groups, resources;
} wasp_snapshot_stats;
void wasp_snapshot_stats_get(const wasp_snapshot *s, wasp_snapshot_stats *st);

/* --------------------------------------------------------------- options */

enum wasp_mode {
	WASP_MODE_AUTO = 0,
	WASP_MODE_GREEDY = 1,
	WASP_MODE_ILP = 2,
	/* Baselines, for benchmarks only (bench/README.md): */
	WASP_MODE_PODWISE = 3, /* pod by pod, no gang semantics            */
	WASP_MODE_BESTFIT = 4  /* Kueue-style topology-aware BestFit, gangs */
};

struct wasp_progress; /* below */
struct wasp_plan;     /* below */
/* Who solves the ILP: GLPK in process, or the cbc program on PATH as a
 * child process on the exported node model (doc/formulation.md §7b). */
enum wasp_solver {
	WASP_SOLVER_GLPK = 0,
	WASP_SOLVER_CBC = 1
};

typedef struct wasp_options {
	double time_limit_s;     /* whole run budget, seconds; default
				    WASP_DEFAULT_TIME_LIMIT_S; <= 0: none  */
	double gap;              /* relative MIP gap to stop at (0: prove)   */
	int threads;             /* OpenMP threads; 0: the runtime default   */
	int mode;                /* enum wasp_mode                           */
	int domain_mode;         /* enum wasp_domain_mode                    */
	const char *value_resource; /* objective tier 1 unit; NULL: pods      */
	volatile const int *cancel; /* when *cancel != 0 the solve stops early
				       and returns its best plan so far      */
	double start_time;       /* wasp_now() when the run began (the budget
				    counts from there); 0: at the call       */
	/* additions (rebalancing, doc/preemption.md): */
	int rebalance;           /* 1: running pods may move: where that
				    admits work or saves evictions (both
				    solvers), then to free whole domains of
				    the finest topology key                  */
	int max_moves;           /* at most this many moves; 0: no limit    */
	const char *protect;     /* label selector ("k=v,k!=v,k"): pods it
				    selects never move nor get evicted      */
	/* the model over parts (doc/formulation.md §10): */
	int node_model;          /* 1: the ILP always works node by node;
				    0 (default): over parts of nodes that
				    nothing tells apart when it can
				    (doc/formulation.md §10)                 */
	/* the ILP's solver (doc/formulation.md §7b): */
	int solver;              /* enum wasp_solver                         */
	/* wasp_export only: */
	int export_top_tier;     /* 1: the objective is the top tier's work
				    alone (the highest pending priority's
				    pods or --value), so that another
				    solver's optimum is the true best top
				    tier, to hold a plan's bound against     */
	/* determinism (doc/library.md, "Determinism"): */
	long work_limit;         /* > 0: a work budget instead of the clock:
				    greedy restart passes and branch-and-
				    bound nodes are counted, not timed, so
				    the plan is the same on any machine;
				    time_limit_s still caps the run and a
				    plan it cut says so                     */
	/* safety switches for unattended runs (doc/preemption.md): */
	int preempt;             /* enum wasp_preempt                       */
	int max_evictions;       /* > 0: at most this many pods evicted;
				    0: no limit (WASP_PREEMPT_NEVER for none) */
	/* progress of a long run (doc/library.md, "Progress"): called from
	 * the calling thread between phases and from the ILP's search, at
	 * most every WASP_PROGRESS_INTERVAL_S; NULL: none */
	void (*progress)(const struct wasp_progress *pr, void *ctx);
	void *progress_ctx;
	/* the finished plan, once, from the calling thread, before the
	 * run's clean-up (doc/library.md, "Time limits and cancelling"):
	 * after a cancel that clean-up can take a second, so write the
	 * plan here to have it out at once.  It is the plan wasp_solve
	 * then returns: read it, do not free it.  NULL: none */
	void (*plan_ready)(const struct wasp_plan *pl, void *ctx);
	void *plan_ready_ctx;
	/* memory (doc/library.md, "Memory"): */
	size_t max_memory;       /* bytes a run may take, 0: no limit (else
				    at least WASP_MIN_MEMORY): input over
				    max_memory / WASP_MEMORY_PER_INPUT_BYTE
				    is refused unread, and the ILP works
				    within what the snapshot and greedy
				    leave; running out there keeps
				    greedy's plan and says why             */
} wasp_options;
#define WASP_MIN_MEMORY (1024 * 1024)

/* What a run may evict (wasp_options.preempt). */
enum wasp_preempt {
	WASP_PREEMPT_LOWER = 0, /* strictly lower priorities (KEP-5710;
				   the default)                              */
	WASP_PREEMPT_NEVER = 1  /* nothing: no plan evicts                   */
};

/* One progress report: the phase ("reduce", "greedy", "ilp",
 * "plan"), the best objective found and the bound
 * (NAN when unknown; the ILP's), and the seconds left (NAN: no limit). */
#define WASP_PROGRESS_INTERVAL_S 1.0
typedef struct wasp_progress {
	const char *phase;
	double elapsed_s, left_s;
	double incumbent, bound;
} wasp_progress;

void wasp_options_init(wasp_options *o);
/* Monotonic seconds, for start_time. */
double wasp_now(void);

/* ------------------------------------------------------------------ plan */

typedef struct wasp_plan wasp_plan;

/* Place every pending group of the snapshot. */
int wasp_solve(const wasp_snapshot *s, const wasp_options *o,
	       wasp_plan **out, wasp_error *err);

enum wasp_format {
	WASP_FORMAT_JSON = 0,
	WASP_FORMAT_YAML = 1,
	WASP_FORMAT_TEXT = 2,
	WASP_FORMAT_HTML = 3  /* needs the snapshot: wasp_report_html   */
};
/* Render a plan; the caller frees the string with wasp_free. */
char *wasp_plan_render(const wasp_plan *p, int format, wasp_error *err);
/* Read a plan back (JSON or YAML, as rendered). */
int wasp_plan_from_text(wasp_plan **out, const char *text, size_t len,
			const char *name, wasp_error *err);
int wasp_plan_load(wasp_plan **out, const char *path, wasp_error *err);
void wasp_plan_free(wasp_plan *p);

/* Plan counts, for callers that do not want to parse the JSON. */
typedef struct wasp_plan_stats {
	size_t placed_pods, admitted_groups, waiting_groups, evicted_pods,
	    moved_pods;
	const char *status; /* "optimal", "feasible", "greedy", "baseline",
			       "empty" */
} wasp_plan_stats;
void wasp_plan_stats_get(const wasp_plan *p, wasp_plan_stats *st);

/* The plan as one self-contained HTML page over the snapshot it was made
 * for (doc/output.md, "The HTML report"): the topology before and after,
 * the check, the summary and the tables.  Clusters of more than
 * detail_nodes nodes (<= 0: 512) are drawn one cell per finest domain,
 * with a drill-down section per domain one level up.  Free with
 * wasp_free. */
char *wasp_report_html(const wasp_snapshot *s, const wasp_plan *p,
		       int detail_nodes, wasp_error *err);

/* --------------------------------------------------------------- verify */

/* Check a plan against a snapshot, independently of the solvers.
 * Returns WASP_OK and sets *nviolations (0: valid); *report (may be NULL)
 * receives one line per violation, to free with wasp_free. */
int wasp_check(const wasp_snapshot *s, const wasp_plan *p,
	       size_t *nviolations, char **report, wasp_error *err);

/* -------------------------------------------------------------- export */

enum wasp_export_format {
	WASP_EXPORT_LP = 0,   /* CPLEX LP, as glp_write_lp          */
	WASP_EXPORT_MPS = 1,  /* free MPS, as glp_write_mps         */
	WASP_EXPORT_DAT = 2   /* GMPL data for models/wasp.mod      */
};
/* Write the integer program that wasp_solve would solve to `path`. */
int wasp_export(const wasp_snapshot *s, const wasp_options *o, int format,
		const char *path, wasp_error *err);

/* ------------------------------------------------------------ generator */

typedef struct wasp_gen_options {
	uint64_t seed;
	int levels;        /* topology levels above the host: 1..3        */
	int fanout;        /* children per domain at each level           */
	int nodes;         /* total nodes (rounded to fill the tree)      */
	int gpus_per_node; /* extended resource nvidia.com/gpu per node   */
	double busy;       /* fraction of capacity held by running pods   */
	int gangs;         /* pending gangs                               */
	int max_gang;      /* largest gang, in pods                       */
	int priorities;    /* distinct priority classes                   */
	int json;          /* 1: kubectl JSON List; 0: YAML documents      */
	/* Added for instance families (fields above keep their meaning; the
	 * defaults give the same bytes as before): */
	int family;        /* 0 gpu (default), 1 nvlink, 2 fragmented,
			      3 mixed; see wasp_gen_option_set "family"  */
	int rack_nodes;    /* nvlink: nodes per rack (NVLink domain); 0: 18 */
	double cpu_nodes;  /* mixed: fraction of CPU-only nodes (0.25)    */
	int services;      /* mixed: basic-policy PodGroups (default 4)   */
	int lone_pods;     /* mixed: pending pods without a group (8)     */
	unsigned given;    /* options set through wasp_gen_option_set, one
			      bit each; a family's own defaults (nvlink: 4
			      GPUs per node) apply only to options not given */
	int trees;         /* pending CompositePodGroup trees, depth 2-3,
			      2-8 children each                           */
	/* 1: GPUs are DRA devices (a ResourceSlice per node, a
	 * DeviceClass, claim templates per pod shape, allocated claims for
	 * the running pods) instead of the nvidia.com/gpu resource */
	int dra;
	/* additions (preemption benchmarks): */
	int running_pods;  /* > 0: exactly this many 1-GPU running pods
			      instead of `busy`                          */
	int running_groups; /* > 0: running pods go round-robin into this
			       many PodGroups (gang, minCount 1)          */
	int preemptible;   /* 1: running groups are disruptionMode all at
			      the lowest priority, pending gangs at the
			      highest                                    */
} wasp_gen_options;
void wasp_gen_options_init(wasp_gen_options *g);
/* A deterministic snapshot as Kubernetes manifests; free with wasp_free. */
char *wasp_gen(const wasp_gen_options *g, wasp_error *err);
/* Set one option by its `wasp gen` name without the dashes ("seed",
 * "levels", "fanout", "nodes", "gpus", "busy", "gangs", "max-gang",
 * "priorities", "json", "family", "rack-nodes", "cpu-nodes", "services",
 * "lone-pods") from its text.  WASP_EINVAL, with a message naming the
 * option and its accepted values, for an unknown name or a bad value. */
int wasp_gen_option_set(wasp_gen_options *g, const char *name,
			const char *value, wasp_error *err);

/* ---------------------------------------------- incremental snapshots */
/*
 * For a scheduler plugin (doc/library.md, "Scheduler plugins"): snapshots
 * are versions.  Applying a delta to a snapshot gives a NEW handle that
 * shares unchanged data with its base; the base stays valid and unchanged
 * for readers on other threads.  Every handle is freed on its own with
 * wasp_snapshot_free, in any order.  Cost grows with what changed.
 */
typedef struct wasp_delta wasp_delta;

int wasp_delta_new(wasp_delta **out, wasp_error *err);
/* Add or replace (by kind/namespace/name) the objects in `text`: YAML or
 * JSON, one or many, `kind: List` too.  Parsed now: text that does not
 * parse, or an object without a kind or a name, is reported here with
 * its position.  Decoding waits for wasp_snapshot_apply (an object is
 * read against the base's Nodes, PodGroups and PriorityClasses), which
 * reports a bad object with its position in this text; `name` names the
 * text in positions.  On error the delta is unchanged. */
int wasp_delta_put(wasp_delta *d, const char *text, size_t len,
		   const char *name, wasp_error *err);
/* Delete an object by `kind` as written in manifests ("Pod", "Node",
 * "PodGroup", "ResourceSlice", ...), namespace (NULL or "" for
 * cluster-scoped kinds) and name. */
int wasp_delta_delete(wasp_delta *d, const char *kind, const char *ns,
		      const char *name, wasp_error *err);
void wasp_delta_free(wasp_delta *d);

/* `base` with the delta's changes applied in order.  On error *out is
 * NULL, `base` is untouched, and the error points at the bad object (or
 * names the missing one for a delete: WASP_ENOTFOUND). */
int wasp_snapshot_apply(const wasp_snapshot *base, const wasp_delta *d,
			wasp_snapshot **out, wasp_error *err);

/* ------------------------------------------------------ one group at a time */

/* What to place: a PodGroup, all PodGroups of a Workload, or a
 * CompositePodGroup tree. */
enum wasp_group_kind {
	WASP_GROUP_PODGROUP = 0,
	WASP_GROUP_WORKLOAD = 1,
	WASP_GROUP_COMPOSITE = 2
};

/* Place one group on the snapshot as it is: running (and assumed) pods
 * stay, other pending groups are not placed.  The result is an ordinary
 * plan (use the accessors below): the group's placements and device
 * allocations, the evictions it needs when the options allow preemption,
 * or one waiting entry whose reason uses the same words as wasp_solve's.
 * `deadline_ms` bounds the call (0: WASP_DEFAULT_PLACE_DEADLINE_MS);
 * `o` may be NULL for the defaults.  WASP_ENOTFOUND if no such group. */
#define WASP_DEFAULT_PLACE_DEADLINE_MS 100
int wasp_place(const wasp_snapshot *s, int kind, const char *ns,
	       const char *name, const wasp_options *o,
	       unsigned deadline_ms, wasp_plan **out, wasp_error *err);

/* Assume a placement, as the scheduler cache does: a new snapshot in which
 * the plan's placements (and device allocations) count as bound for every
 * later call, until forgotten, or confirmed by a delta that binds the pod,
 * or dropped with the pod by a delta that deletes it. */
int wasp_snapshot_assume(const wasp_snapshot *base, const wasp_plan *p,
			 wasp_snapshot **out, wasp_error *err);
/* A new snapshot without the assumptions made for this group
 * (WASP_ENOTFOUND if it has none). */
int wasp_snapshot_forget(const wasp_snapshot *base, int kind,
			 const char *ns, const char *name,
			 wasp_snapshot **out, wasp_error *err);

/* ----------------------------------------------------------- accessors */
/*
 * Read a plan without rendering it: for each kind of entry a count and a
 * getter that fills a struct of strings owned by the plan (valid until
 * wasp_plan_free).  Getters return WASP_EINVAL past the end.
 */
typedef struct wasp_placement {
	const char *ns, *pod, *node;
	const char *group; /* PodGroup, NULL for a lone pod */
} wasp_placement;
size_t wasp_plan_placement_count(const wasp_plan *p);
int wasp_plan_placement_get(const wasp_plan *p, size_t i, wasp_placement *out);

/* One allocated device: a claim's result (a claim with n results gives n
 * entries, in order). */
typedef struct wasp_device_alloc {
	const char *ns, *claim;
	const char *pod;    /* the pod whose own claim this is, or NULL    */
	const char *group;  /* the PodGroup whose claim this is, or NULL   */
	const char *node;
	const char *request, *driver, *pool, *device;
} wasp_device_alloc;
size_t wasp_plan_device_count(const wasp_plan *p);
int wasp_plan_device_get(const wasp_plan *p, size_t i, wasp_device_alloc *out);

typedef struct wasp_eviction {
	const char *ns, *pod, *node;
	const char *unit;    /* PodGroup evicted whole (disruptionMode all)  */
	int32_t priority;
	const char *by_kind, *by_ns, *by; /* what the eviction makes room for */
	int pdb_violation;
} wasp_eviction;
size_t wasp_plan_eviction_count(const wasp_plan *p);
int wasp_plan_eviction_get(const wasp_plan *p, size_t i, wasp_eviction *out);

typedef struct wasp_move {
	const char *ns, *pod, *from, *to;
	const char *group;
} wasp_move;
size_t wasp_plan_move_count(const wasp_plan *p);
int wasp_plan_move_get(const wasp_plan *p, size_t i, wasp_move *out);

typedef struct wasp_group_result {
	const char *ns, *name;
	const char *kind;    /* "PodGroup", or "Pod" for a waiting lone pod  */
	int admitted;        /* 1: placed (pods placed); 0: waits (reason)   */
	int pods;
	int32_t priority;
	const char *key, *domain; /* admitted with a topology key: its domain */
	const char *reason;  /* waiting: why, as in the rendered plan        */
} wasp_group_result;
size_t wasp_plan_group_count(const wasp_plan *p); /* admitted, then waiting */
int wasp_plan_group_get(const wasp_plan *p, size_t i, wasp_group_result *out);

/* The plan's warnings; NULL past the end. */
const char *wasp_plan_warning(const wasp_plan *p, size_t i);

/* ------------------------------------------------------------ options */

/* Upper bound on wasp_options.threads. */
#define WASP_MAX_THREADS 256
/* Check options before a run: WASP_EINVAL with a message naming the
 * field and its accepted range (wasp_solve, wasp_place and wasp_export
 * call it too). */
int wasp_options_check(const wasp_options *o, wasp_error *err);

/* ---------------------------------------------------------------- misc */

void wasp_free(void *p);
const char *wasp_version(void);

#ifdef __cplusplus
}
#endif
#endif /* WASP_H */
