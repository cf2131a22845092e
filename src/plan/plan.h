/*
 * plan.h -- the answer in snapshot terms (struct wasp_plan).
 *
 * A plan names pods, nodes and groups by name (copied into the plan's own
 * arena), so it outlives the snapshot and the problem, renders to JSON,
 * YAML or text (render.c), and reads back from JSON/YAML for `wasp check`.
 */
#ifndef WASP_PLAN_H
#define WASP_PLAN_H

#include "reduce/problem.h"

typedef struct wpl_place {
	const char *ns, *pod, *node;
	const char *group; /* PodGroup name, NULL for a lone pod */
} wpl_place;

typedef struct wpl_wait {
	const char *ns;
	const char *group; /* PodGroup name; for lone pods the pod name */
	const char *kind;  /* "PodGroup" or "Pod" */
	int pods;          /* pending pods that wait */
	int32_t priority;
	const char *reason;
} wpl_wait;

/* An admitted PodGroup (added for the report: where each gang went). */
typedef struct wpl_admit {
	const char *ns, *group;
	int pods;          /* pods placed by this plan                     */
	int pending;       /* pods of the group pending before the plan    */
	int running;       /* pods already bound before the plan           */
	int32_t priority;
	const char *key;   /* topology key, NULL if the group has none     */
	const char *domain; /* its domain (value, or path in path mode), NULL */
} wpl_admit;

/* A running pod the plan evicts (added for preemption). */
typedef struct wpl_evict {
	const char *ns, *pod, *node;
	const char *unit;     /* its PodGroup when the group is evicted whole
				 (disruptionMode all), else NULL          */
	int32_t priority;     /* the victim's                              */
	const char *by_kind;  /* "PodGroup" or "Pod": what evicts it       */
	const char *by_ns, *by; /* its namespace and name                  */
	int32_t by_priority;
	bool pdb_violation;   /* evicting it breaks a PodDisruptionBudget  */
} wpl_evict;

/* A running pod the plan moves (rebalance mode). */
typedef struct wpl_move {
	const char *ns, *pod, *from, *to;
	const char *group;    /* PodGroup, NULL for a lone pod             */
} wpl_move;

typedef struct wpl_util {
	const char *resource;
	double alloc;        /* allocatable over schedulable nodes (units) */
	double before, after; /* in use, units                            */
} wpl_util;

typedef struct wpl_summary {
	const char *mode;        /* "greedy" | "ilp"                     */
	const char *mode_reason; /* why auto chose it, or NULL           */
	const char *status;      /* "optimal" | "feasible" | "greedy" | "empty" */
	const char *domain_mode; /* "value" | "path"                     */
	const char *value;       /* tier-1 unit: "pods" or a resource     */
	double objective;        /* model objective (ILP) or NAN          */
	double bound, gap;       /* NAN when unknown                      */
	wp_value tiers;
	double t_load, t_reduce, t_greedy, t_ilp, t_total;
	int rows, cols, ints, nonzeros; /* model size, 0 if not built     */
	int admitted_groups, waiting_groups, placed_pods, evicted_pods,
	    moved_pods;
	int free_nodes_before, free_nodes_after; /* wholly free nodes     */
	wpl_util *util;
	int nutil;
	double stranded;   /* resource units held by groups below minCount:
			      0 by construction, re-measured by verify   */
} wpl_summary;

/* A DRA claim the plan allocates (doc/dra.md): per-pod claims are
 * named "<pod>-<entry>", group claims "<group>-<entry>"; results in the
 * shape of status.allocation.devices.results. */
typedef struct wpl_result {
	const char *request, *driver, *pool, *device;
} wpl_result;

typedef struct wpl_claim {
	const char *ns, *name;
	const char *pod;    /* a pod's own claim: the pod; NULL: shared   */
	const char *entry;  /* the pod's resourceClaims entry, or NULL    */
	const char *group;  /* a PodGroup's claim: the group, or NULL     */
	const char *node;   /* node it was allocated for                  */
	wpl_result *results;
	int nresults;
} wpl_claim;

struct wasp_plan {
	wa_arena *arena;
	wpl_summary sum;
	wpl_place *place;
	int nplace;
	wpl_wait *wait;
	int nwait;
	const char **warnings;
	int nwarnings;
	/* Added (plan module): admitted PodGroups, sorted by ns/name, and
	 * the capacity of `warnings` for wpl_add_warning. */
	wpl_admit *admit;
	int nadmit;
	size_t warnings_cap;
	/* Added (preemption, rebalancing): evictions sorted by ns/pod,
	 * moves likewise, and the PDB violations among the evictions. */
	wpl_evict *evict;
	int nevict;
	wpl_move *move;
	int nmove;
	int pdb_violations;
	/* Rebalancing: wholly free domains per topology key (finest last),
	 * before and after the plan. */
	struct wpl_frag *frag;
	int nfrag;
	/* and the largest gang of the commonest pending pod shape that fits
	 * in one such domain (the whole cluster without keys) */
	const char *gang_shape; /* NULL: not computed */
	const char *gang_key;   /* the key of the domains, NULL: cluster */
	int gang_before, gang_after;
	/* Added (DRA): device claims allocated by the plan, by ns/name. */
	wpl_claim *claims;
	int nclaims;
	/* What the evictions buy, highest priority first; NULL when not
	 * computed (no evictions, or preemption off). */
	struct wpl_buy *buy;
	int nbuy;
	/* What wasp_place placed ("Kind/ns/name", as the snapshot versions
	 * key objects), NULL for a whole run: wasp_snapshot_assume records
	 * it so wasp_snapshot_forget can name it. */
	const char *target;
};

/* What the evictions buy (doc/preemption.md): pods admitted at one
 * priority by this plan, and by the same run with preemption off. */
typedef struct wpl_buy {
	int32_t priority;
	int with, without;
} wpl_buy;

typedef struct wpl_frag {
	const char *key;
	int before, after;
} wpl_frag;

/* Build the plan from a solution (placements in class/pod order). */
int wpl_from_sol(const wp_problem *p, const wp_sol *sol, wasp_plan **out,
		 wasp_error *err);
/* An empty plan with its own arena. */
wasp_plan *wpl_new(void);
/* Append a copy of `text` to the plan's warnings; -1 on NOMEM. */
int wpl_add_warning(wasp_plan *pl, const char *text);
/* What wasp_place placed, "Kind/ns/name"; NULL otherwise (access.c). */
const char *wpl_target(const wasp_plan *p);
/* Free a plan and everything in it (NULL is fine). */
void wpl_free(wasp_plan *pl);

#endif
