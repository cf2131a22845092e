/*
 * problem.h -- what the solvers see: the reduction (problem.c, with its
 * phases in classes.c and domains.c), solutions (solution.c) and their
 * value (objective.c); doc/formulation.md §1 "Data".
 *
 * Pending pods are grouped into classes: pods of one group (or, for pods
 * without a group, lone pods) with identical requests, selectors, affinity,
 * tolerations and priority.  A class carries its count and the nodes it may
 * use (static fit and allocatable >= request).  Solvers assign integer
 * counts per (class, eligible node) pair, never one variable per pod.
 *
 * The problem is solver-neutral: the greedy core and the ILP both read it
 * and both write a wp_sol; plan.c turns a wp_sol back into pods and nodes.
 */
#ifndef WASP_PROBLEM_H
#define WASP_PROBLEM_H

#include "model/snapshot.h"
#include "model/topology.h"

typedef struct wp_class {
	int group;          /* problem group index                      */
	int count;          /* pending pods in the class                */
	int *pods;          /* count snapshot pod indices, input order  */
	const int64_t *req; /* nres requests (of the first pod)          */
	int *elig;          /* eligible node indices, ascending; classes
			       with the same eligibility share one array
			       (read-only)                               */
	int nelig;
	int off;            /* this class's first slot (wp_sol, wp_x)    */
	const char *why_none; /* nelig == 0: the commonest rejection, in
				 words ("untolerated taint on 12 nodes") */
} wp_class;

typedef struct wp_group {
	int sg;           /* snapshot group index; -1: lone pods          */
	bool gang;
	int min_need;     /* gang: pending pods that must be placed to admit
			     (minCount minus pods already bound, >= 0);
			     basic: 0                                    */
	int size;         /* pending pods                               */
	int nbound;       /* pods already running                       */
	int key;          /* topology key index (problem->topo), -1: none */
	int fixed_dom;    /* domain the bound pods already occupy: -1 none,
			     -2 they span several (group cannot grow)    */
	int32_t priority;
	int *classes;
	int nclasses;
	const char *invalid; /* non-NULL: cannot be placed, and why      */
	/* parent CompositePodGroup (doc/formulation.md §9), index + 1
	 * into wp_problem.comps (0: not in a tree) */
	int pcomp;
	const struct wp_tas *tas; /* annotations, NULL: none (§9) */
} wp_group;

/* A PodGroup's topology annotations as key indices (§9):
 * exclusive: the group sits in one domain of `excl` that no other group
 * with the same exclusive key uses (running ones included); preferred:
 * fewest domains of `pref`, then of each coarser key; slices: the pods
 * in each domain of slice_key[l] are a multiple of slice_size[l]. */
typedef struct wp_tas {
	int excl;           /* key index, -1: none                        */
	int excl_fixed;     /* domain its own running pods hold, -1       */
	int pref;           /* key index, -1: none                        */
	int nslices;
	int slice_key[WS_MAX_SLICE_LAYERS];
	int slice_size[WS_MAX_SLICE_LAYERS];
} wp_tas;

/* A CompositePodGroup (§9): comps[i] is snapshot composite i.  It is
 * admitted when at least min_groups children are (running children count
 * as admitted); no child is admitted unless it is; a key confines every
 * descendant to one domain of it. */
typedef struct wp_comp {
	int parent;        /* problem comp index, -1: a root             */
	int root;          /* comp index of the tree's root              */
	int min_groups;
	int key;           /* topology key index, -1: none               */
	int fixed_dom;     /* as wp_group: -1, a domain, -2 spans several */
	int *kids;         /* >= 0: problem group; < 0: -1 - comp index;
			      children with no pending pods are left out */
	int nkids;
	int nrunning;      /* children admitted already (no pending pods) */
	int32_t priority;
	const char *invalid; /* cannot be admitted, and why              */
} wp_comp;

typedef struct wp_problem {
	const ws_snapshot *snap;
	const wtp_topo *topo;
	int nres, nnodes;
	int64_t *free;     /* nnodes * nres: allocatable minus bound use  */
	wp_class *classes;
	int nclasses;
	wp_group *groups;  /* sorted: priority desc, then input order     */
	int ngroups;
	int nx;            /* sum of nelig over classes                   */
	int value_res;     /* tier-1 unit: resource index, -1 = pods       */
	wa_arena *arena;
	/* preemption (units.c, doc/preemption.md): running disruption
	 * units, in snapshot order of their first pod */
	struct wp_unit *units;
	int nunits;
	int *pdb_allowed;  /* per snapshot PDB: disruptions it allows     */
	/* CompositePodGroups (§9), as in the snapshot */
	wp_comp *comps;
	int ncomps;
	/* per key (NULL when no group is exclusive on it), per domain: the
	 * snapshot group whose running pods hold it exclusively, -1 none,
	 * -2 several */
	int **excl_owner;
	/* --rebalance (doc/preemption.md): running pods that may move, in
	 * classes of interchangeable pods on one home node (movable.c,
	 * wrb_classes); none without --rebalance */
	struct wp_mclass *mcls;
	int nmcls;
	int *unit_mc;      /* per unit: its move class, -1: does not move  */
	int max_moves;     /* --max-moves, 0: no limit                     */
	/* safety switches (doc/preemption.md, "Safety switches"): no group
	 * may evict (wpe_may_preempt false for all), and at most this many
	 * pods evicted, 0: no limit */
	bool no_preempt;
	int max_evictions;
} wp_problem;

/* A move class (--rebalance, doc/formulation.md §4c): `count` running
 * single-pod units on node `home` with the same priority, requests, node
 * predicates and budgets.
 * Their pods may stay, move to another of `elig` (nodes that already run
 * pods, fit them statically and by allocatable; at most
 * WP_MAX_MOVE_DESTS besides home, roomiest first) or, when the units are
 * evictable, be evicted.  elig[homek] == home. */
#define WP_MAX_MOVE_DESTS 16
typedef struct wp_mclass {
	int home;
	int count;
	int *units;        /* unit indices, ascending                      */
	const int64_t *req;
	int32_t priority;
	int *elig;         /* ascending, home included                     */
	int nelig;
	int homek;
} wp_mclass;

/* A disruption unit of running pods (doc/preemption.md): one pod of a
 * `single` group or without a group, or all running pods of an `all`
 * group.  Only pods bound to a known node are in units. */
typedef struct wp_unit {
	int sg;           /* snapshot group, -1: a lone pod                 */
	int32_t priority;
	bool all;         /* disruptionMode all: evicted whole             */
	int *pods;        /* snapshot pod indices, input order             */
	int npods;
	int weight;       /* eviction cost per pod: 1 + rank of its priority
			     among the units' distinct priorities (lowest 0) */
	int *pdb;         /* PodDisruptionBudgets selecting its pods       */
	int *pdbn;        /* and how many of its pods each selects         */
	int npdb;
	bool keep;        /* --protect selects one of its pods: never evicted */
} wp_unit;

/* A solution's pod counts are per slot: slot c.off + k holds the pods of
 * class c on node c.elig[k].  They live in pages of WP_XPAGE counts, each
 * allocated where a count first becomes non-zero, so a solution costs
 * memory where pods are placed, not per (class, eligible node) pair: the
 * dense array was 4.8 GB per solution at 50,000 nodes, and some kernels
 * back every page that is merely read.  Read with wp_x, write with
 * wp_x_set / wp_x_add, walk the non-zero counts with wp_x_next. */
#define WP_XPAGE 256

/* A solution: counts per (class, eligible node) and admission per group. */
typedef struct wp_sol {
	int **xpg;            /* nx / WP_XPAGE + 1 pages, NULL: all zero     */
	int nxpg;
	wa_arena *xa;         /* where pages come from (the solution's arena) */
	bool nomem;           /* a page could not be allocated: the counts
				 are incomplete and the solution unusable */
	unsigned char *admit; /* ngroups */
	const char **reason;  /* ngroups: why a group waits; NULL if admitted */
	/* preemption: per unit, evicted or not, and the problem
	 * group whose placement evicted it (-1: none) */
	unsigned char *evict;
	int *evict_by;
	/* DRA: the greedy's device allocations (struct
	 * wdr_state, dra.h) for plan.c; NULL without device claims. */
	const struct wdr_state *dra;
	/* --rebalance: per snapshot pod, the node a move takes it to,
	 * -1: none (only pods of move classes move) */
	int *move_to;
} wp_sol;

/* Objective tiers, largest first (doc/formulation.md §4).
 * Tier 1 is a vector over priority levels: admitted work at each distinct
 * pending priority, highest first. */
#define WP_MAX_TIERS 64
typedef struct wp_value {
	int nprio;                 /* distinct pending priorities           */
	int32_t prio[WP_MAX_TIERS]; /* descending                            */
	double work[WP_MAX_TIERS]; /* admitted work at prio[i]              */
	double evictions;          /* tier 2: evicted pods, each weighted by
				      its unit's weight (wp_unit)          */
	double moves;              /* tier 3: pods moved (--rebalance)      */
	double packing;            /* tier 4: higher is better (whole free
				      nodes, then domains)                */
	/* PodDisruptionBudget violations (§4b), compared right after
	 * tier 1 and before evictions (fewer is better) */
	double pdb_violations;
	/* preferred-topology compactness (§9), compared
	 * before packing: per level, coarsest first, the domains that groups
	 * with a preferred level leave unused (higher is better) */
	int ncompact;
	double compact[8];
	/* DRA (doc/dra.md): firstAvailable preference, compared
	 * right after tier 1 and before PDB violations: the sum over
	 * allocated claim requests of the index of the alternative used
	 * (wdr_alt_rank; lower is better) */
	double alt_rank;
} wp_value;
/* ------------------------------------------------ problem.c: reduction */

/* Snapshot + topology -> problem (doc/formulation.md §1 "Data"):
 * WASP_EINVAL for an unknown --value resource or a bad --protect
 * selector, WASP_ENOMEM. */
int wp_reduce(const ws_snapshot *s, const wtp_topo *t, const wasp_options *o,
	      wa_arena *a, wp_problem **out, wasp_error *err);

/* ------------------------------------------------ classes.c */

/* Do two pods have the same node predicates (selectors, affinity,
 * tolerations)?  Move classes (movable.c) ask it. */
bool wp_same_static(const ws_pod *a, const ws_pod *b);

/* ------------------------------------------------ domains.c */

/* Pods group g needs placed to count as admitted (gang min_need, else 1
 * when it has pending pods). */
int wp_group_need(const wp_group *wg);
/* Is problem comp h admitted in s (enough children admitted)? */
bool wp_comp_admitted(const wp_problem *p, const wp_sol *s, int h);
/* May group g place pods on node n at all: placeable, n inside the
 * domains its key, its ancestors' keys and its annotations allow (and
 * those its running pods pin)? */
bool wp_allowed(const wp_problem *p, const wp_group *g, int n);
/* Does group g lie in the tree below composite h? */
bool wp_group_below(const wp_problem *p, int g, int h);

/* ------------------------------------------------ solution.c */

wp_sol *wp_sol_new(const wp_problem *p, wa_arena *a); /* all zero */
/* The count at slot sl. */
static inline int wp_x(const wp_sol *s, int sl)
{
	const int *pg = s->xpg[sl / WP_XPAGE];
	return pg ? pg[sl % WP_XPAGE] : 0;
}
/* Set / add to the count at slot sl: 0, or -1 when its page cannot be
 * allocated (s->nomem is set then; wpl_from_sol and wp_sol_feasible
 * refuse such a solution, so a caller may check there instead). */
int wp_x_set(wp_sol *s, int sl, int v);
int wp_x_add(wp_sol *s, int sl, int d);
/* The first slot in [from, end) with a non-zero count, else -1: skips
 * unallocated pages, so a walk costs the pages in use. */
int wp_x_next(const wp_sol *s, int from, int end);
/* Every count zero (pages kept for reuse). */
void wp_x_clear(wp_sol *s);
/* The counts from / into a dense array of p->nx ints, for the node
 * model, whose columns are per slot anyway (from: 0 or -1 NOMEM). */
int wp_x_from_dense(const wp_problem *p, wp_sol *s, const int *x);
void wp_x_to_dense(const wp_problem *p, const wp_sol *s, int *x);
/* Pods of class *cl placed in s (the sum of its counts). */
long wp_x_placed(const wp_sol *s, const wp_class *cl);
/* Walk the slots of class *cl with a non-zero count in s. */
#define WP_X_EACH(s, cl, sl)                                               \
	for (int sl = wp_x_next((s), (cl)->off, (cl)->off + (cl)->nelig);  \
	     sl >= 0;                                                      \
	     sl = wp_x_next((s), sl + 1, (cl)->off + (cl)->nelig))
void wp_sol_copy(const wp_problem *p, wp_sol *dst, const wp_sol *src);
/* Nothing evicted, nothing moved: evict 0, evict_by and move_to -1. */
void wp_sol_no_disruption(const wp_problem *p, wp_sol *s);
/* Check a solution against the problem (capacity, gang, topology): returns
 * 0 when feasible, else fills `why` (static or arena text).  Used before a
 * warm start and in tests; the independent check is verify.c. */
int wp_sol_feasible(const wp_problem *p, const wp_sol *s, const char **why);
/* The same where s was feasible and then changed only in the groups
 * groups[0..ng) (their pods and admission), the nodes nodes[0..nn)
 * (distinct: every node where a pod was placed or taken off, or a pod
 * evicted or not) and the evictions of units on those nodes: the
 * checks look at those alone, plus the cheap global ones.  With trees
 * or moves, the whole check. */
int wp_sol_feasible_near(const wp_problem *p, const wp_sol *s,
			 const int *groups, int ng, const int *nodes, int nn,
			 const char **why);
/* Moved pods of s. */
int wp_moves(const wp_problem *p, const wp_sol *s);
/* Shared by the solvers (src/solve/ilp: the node model and the one over
 * parts). */
/* Slot of (class c, node n), -1 when n is not eligible for c. */
int wp_slot(const wp_problem *p, int c, int n);
/* The class a slot belongs to. */
int wp_slot_class(const wp_problem *p, int s);
/* No pod is bound to node n. */
bool wp_node_empty(const wp_problem *p, int n);
int64_t wp_gcd(int64_t a, int64_t b);
/* out->admit and out->reason from out's counts: a gang is admitted with
 * min_need pods placed, or with none when it is already at minCount and
 * at0[g] (the solver kept it admitted; at0 may be NULL); a basic group
 * with one pod.  A waiting group keeps warm's reason (warm may be NULL),
 * else gets the ILP's. */
void wp_fill_admission(const wp_problem *p, const unsigned char *at0,
		       const wp_sol *warm, wp_sol *out);

/* ------------------------------------------------ objective.c */

void wp_evaluate(const wp_problem *p, const wp_sol *s, wp_value *v);
/* <0: a worse than b, 0 equal, >0 better (lexicographic). */
int wp_value_cmp(const wp_value *a, const wp_value *b);
/* Fill v->compact (wp_evaluate does). */
void wp_compactness(const wp_problem *p, const wp_sol *s, wp_value *v);
/* The most packing any plan can have that, like s, places every pending
 * pod and evicts and moves nothing (doc/formulation.md §11): per node and
 * per topology level, the free-able nodes or domains less the fewest of
 * them, largest first, whose room the pending demand needs beyond the
 * room of everything that stays busy anyway.  When s is such a plan (and
 * no group has a preferred level, no claim has alternatives), every
 * optimal plan is too, so this bounds the optimum's packing; otherwise,
 * or on NOMEM, NAN. */
double wp_packing_bound(const wp_problem *p, const wp_sol *s);
/* s meets that bound: nothing beats it (false on NOMEM). */
bool wp_packing_proven(const wp_problem *p, const wp_sol *s);

#endif
