/*
 * snapshot.h -- the cluster as given: nodes, pods, groups, priorities,
 * topology levels.  Built by decode.c, immutable afterwards, shared by the
 * reduction, the solvers' plan conversion and the verifier.
 *
 * Indices, not pointers, link objects (node index, pod index, group index)
 * so arrays can be walked in parallel and copied cheaply.  All strings and
 * arrays live in the snapshot's arena.  Quantities are int64 milli-units.
 *
 * Resources: res[0] is always "pods" (each pod requests 1000 milli-pods);
 * the rest appear in order of first use.  Node allocatable / pod requests
 * are arrays of nres entries (a resource a node does not list is 0).
 */
#ifndef WASP_SNAPSHOT_H
#define WASP_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "wasp.h"

#define WS_RES_PODS 0

typedef struct ws_kv {
	const char *key, *val;
} ws_kv;

typedef enum ws_effect {
	WS_EFFECT_ALL = 0, /* toleration with empty effect: matches all */
	WS_EFFECT_NOSCHEDULE,
	WS_EFFECT_PREFERNOSCHEDULE,
	WS_EFFECT_NOEXECUTE
} ws_effect;

typedef struct ws_taint {
	const char *key, *val; /* val may be "" */
	ws_effect effect;
} ws_taint;

typedef struct ws_toleration {
	const char *key; /* NULL or "": with Exists, matches every key */
	bool exists;     /* operator Exists (else Equal)               */
	const char *val;
	ws_effect effect;
} ws_toleration;

typedef enum ws_op {
	WS_OP_IN,
	WS_OP_NOTIN,
	WS_OP_EXISTS,
	WS_OP_DOESNOTEXIST,
	WS_OP_GT,
	WS_OP_LT
} ws_op;

typedef struct ws_expr {
	const char *key;
	ws_op op;
	const char **vals;
	int nvals;
	int64_t num;     /* Gt / Lt operand */
	bool field;      /* matchFields (key is metadata.name) */
} ws_expr;

/* One nodeSelectorTerm: all expressions must hold.  A pod's required node
 * affinity holds when any of its terms holds (zero terms: always). */
typedef struct ws_term {
	ws_expr *exprs;
	int nexprs;
} ws_term;

typedef struct ws_node {
	const char *name;
	wsrc src;
	ws_kv *labels; /* sorted by key */
	int nlabels;
	int64_t *alloc;  /* nres; status.allocatable                 */
	int64_t *used;   /* nres; summed requests of pods bound here */
	ws_taint *taints;
	int ntaints;
	bool unschedulable;
	bool ready;      /* Ready condition True (absent: true)       */
} ws_node;

enum ws_policy { WS_POLICY_BASIC = 0, WS_POLICY_GANG = 1 };
enum ws_disruption { WS_DISRUPT_SINGLE = 0, WS_DISRUPT_ALL = 1 };
enum ws_preempt { WS_PREEMPT_LOWER = 0, WS_PREEMPT_NEVER = 1 };

typedef struct ws_pod {
	const char *ns, *name;
	wsrc src;
	int64_t *req;        /* nres; containers summed, init max, overhead,
				pods = 1000                             */
	ws_kv *selector;     /* nodeSelector, sorted by key               */
	int nselector;
	ws_term *affinity;   /* required node affinity terms (OR)        */
	int naffinity;
	ws_toleration *tolerations;
	int ntolerations;
	int32_t priority;    /* resolved                                 */
	int preempt;         /* enum ws_preempt                          */
	int group;           /* snapshot group index, -1: none           */
	int node;            /* bound node index, -1 otherwise            */
	const char *node_name; /* spec.nodeName as written, NULL if unset.
				  A pod is PENDING iff node_name == NULL and
				  !terminal.  A pod bound to a node missing
				  from the snapshot has node == -1, is not
				  pending, and gets a warning. */
	bool terminal;       /* phase Succeeded/Failed: ignored entirely  */
	/* addition (PodDisruptionBudgets): metadata.labels, sorted by key */
	ws_kv *labels;
	int nlabels;
} ws_pod;

/* A policy/v1 PodDisruptionBudget (addition, preemption).  The selector
 * is matchLabels (as In with one value) plus matchExpressions over pod
 * labels in the PDB's namespace; no selector selects nothing, an empty
 * one every pod.  Budget kinds: 0 unset, 1 an integer, 2 a percentage. */
typedef struct ws_pdb {
	const char *ns, *name;
	wsrc src;
	bool has_selector;
	ws_expr *sel;
	int nsel;
	int min_kind, min_val;     /* spec.minAvailable      */
	int max_kind, max_val;     /* spec.maxUnavailable    */
	bool has_allowed;          /* status.disruptionsAllowed */
	int allowed;
	bool has_healthy;          /* status.currentHealthy and desiredHealthy */
	int current_healthy, desired_healthy;
} ws_pdb;

typedef struct ws_group {
	const char *ns, *name;
	wsrc src;
	int policy;          /* enum ws_policy                            */
	int min_count;       /* gang minCount (basic: 1)                  */
	const char *topo_key; /* schedulingConstraints.topology[0].key or NULL */
	int32_t priority;
	int disruption;      /* enum ws_disruption                        */
	int preempt;         /* enum ws_preempt                           */
	int *pods;           /* snapshot pod indices, in input order      */
	int npods;
	const char *invalid; /* non-NULL: the group cannot be scheduled,
				and this says why (e.g. pods disagree on
				priority); it waits with this reason     */
	/* addition: spec.parentCompositePodGroupName, NULL for a root group.
	 * CompositePodGroup trees are not modelled yet: such a group is
	 * decoded as a flat group (with a warning). */
	const char *parent;
	/* CompositePodGroup trees (doc/input.md): the parent CompositePodGroup as an index
	 * into ws_snapshot.comps PLUS ONE (0: a root group, so a zeroed
	 * group is a root), and the Kueue/JobSet annotations. */
	int pcomp;
	struct ws_tas *tas; /* NULL: no annotations */
	/* spec.workloadRef.workloadName, NULL without one (the scheduler
	 * plugin API places a Workload's groups together) */
	const char *workload;
} ws_group;

/* Topology annotations (Kueue / JobSet names) on a PodGroup or a
 * CompositePodGroup.  Slices: layer 0 is the outermost; each layer's
 * pods are cut into slices of `size` pods, each inside one domain of
 * `key`; an inner size divides the outer one. */
#define WS_MAX_SLICE_LAYERS 3
typedef struct ws_tas {
	const char *preferred; /* kueue.x-k8s.io/podset-preferred-topology */
	const char *exclusive; /* alpha.jobset.sigs.k8s.io/exclusive-topology */
	int nslices;
	const char *slice_key[WS_MAX_SLICE_LAYERS];
	int slice_size[WS_MAX_SLICE_LAYERS];
	wsrc src;              /* metadata.annotations                  */
} ws_tas;

/* A CompositePodGroup (scheduling.k8s.io/v1alpha3): an inner node of a
 * tree whose leaves are PodGroups.  Priority, preemption policy and (for
 * `all`) disruption mode are the tree's, checked when decoding. */
#define WS_MAX_TREE_DEPTH 4
typedef struct ws_composite {
	const char *ns, *name;
	wsrc src;
	int policy;          /* enum ws_policy                            */
	int min_groups;      /* gang minGroupCount (basic: 1)             */
	const char *topo_key;
	int32_t priority;
	int disruption;
	int preempt;
	int pcomp;           /* parent: index + 1 into comps, 0: root     */
	int depth;           /* 1 for a root                              */
	int *kids;           /* child groups (>= 0) and composites
				(-1 - composite index), input order       */
	int nkids;
	ws_tas *tas;         /* NULL: no annotations                      */
} ws_composite;

typedef struct ws_priority_class {
	const char *name;
	int32_t value;
	bool global_default;
	int preempt;
} ws_priority_class;

/* Topology levels from a kueue Topology object (coarse to fine), if any. */
typedef struct ws_levels {
	const char *name;
	const char **labels;
	int nlabels;
} ws_levels;

/* The public wasp_snapshot handle is this struct. */
typedef struct wasp_snapshot ws_snapshot;
struct wasp_snapshot {
	wa_arena *arena;
	const char **res;  /* resource names */
	int nres;
	ws_node *nodes;
	int nnodes;
	ws_pod *pods;
	int npods;
	ws_group *groups;
	int ngroups;
	ws_priority_class *pcs;
	int npcs;
	ws_levels *topologies; /* kueue Topology objects, input order */
	int ntopologies;
	const char **warnings;
	int nwarnings;
	double t_load;       /* seconds spent loading + decoding (api.c) */
	/* additions: name indexes, built at the end of wd_decode (or by
	 * ws_snapshot_index for snapshots built by hand) and never changed
	 * afterwards, so lookups stay thread-safe.  NULL: the ws_*_index
	 * lookups scan the arrays. */
	struct ws_map *node_idx, *pod_idx, *group_idx;
	/* addition (preemption): PodDisruptionBudgets, input order */
	ws_pdb *pdbs;
	int npdbs;
	/* CompositePodGroups, input order */
	ws_composite *comps;
	int ncomps;
	/* addition (DRA, dra.h): devices, classes and claims; NULL when no
	 * pod or group has resourceClaims. */
	struct ws_dra *dra;
	/* Versions (model/version.h): the source objects, the assumed
	 * placements and the shared storage of a snapshot made by
	 * wasp_snapshot_load, _apply, _assume or _forget; NULL for one
	 * built otherwise (ws_snapshot_free then frees the arena only). */
	struct ws_version *ver;
	/* Objects added by incremental deltas since the last full decode
	 * (model/version.h), keyed as pod_idx / group_idx; the lookups try
	 * them when the main index misses.  NULL: none. */
	struct ws_map *pod_idx_more, *group_idx_more;
	/* Each node's position in name order (ws_snapshot_index), so that
	 * the runs on one snapshot do not sort the names again. */
	int *node_rank;
	/* What runs on this version compute once (model/topology.h); NULL
	 * for a snapshot built otherwise than through wasp.h. */
	struct ws_cache *cache;
};

/* Pending: to be placed by the solvers. */
static inline bool ws_pod_pending(const ws_pod *p)
{
	return p->node_name == NULL && !p->terminal;
}

/* Build helpers for decode.c and for tests that build snapshots by hand. */
int ws_res_index(const ws_snapshot *s, const char *name); /* -1: unknown */
const char *ws_label(const ws_node *n, const char *key); /* NULL: absent */
int ws_node_index(const ws_snapshot *s, const char *name); /* -1 */
int ws_group_index(const ws_snapshot *s, const char *ns, const char *name);
int ws_pod_index(const ws_snapshot *s, const char *ns, const char *name);

/* The static node-fit predicates (everything but capacity), shared by the
 * reduction and the verifier.  Each returns true when the pod may run on the
 * node; on false, *why (may be NULL) gets a static phrase such as
 * "untolerated taint" for reasons and violation reports. */
bool ws_node_schedulable(const ws_node *n, const char **why);
bool ws_tolerates(const ws_pod *p, const ws_node *n, const char **why);
bool ws_selector_matches(const ws_pod *p, const ws_node *n, const char **why);
bool ws_affinity_matches(const ws_pod *p, const ws_node *n, const char **why);
/* All four above. */
bool ws_pod_fits_node_static(const ws_pod *p, const ws_node *n,
			     const char **why);

/* Frees the arena, and with it everything, including the struct itself
 * when it was allocated there (wd_decode does so).  NULL is fine. */
void ws_snapshot_free(ws_snapshot *s);

/* ---- additions ---- */

/* A string-keyed hash table living in an arena (open addressing, grows by
 * rehashing).  Keys are not copied: they must outlive the table (keep them
 * in the same arena).  Used for the snapshot's indexes and by decode.c. */
typedef struct ws_map ws_map;
ws_map *ws_map_new(wa_arena *a);
/* Insert key -> val (val >= 0).  Returns -1 when inserted, the existing
 * value when the key was already there (nothing changes), -2 on NOMEM. */
int ws_map_put(ws_map *m, const char *key, int val);
int ws_map_get(const ws_map *m, const char *key); /* -1: absent */
size_t ws_map_count(const ws_map *m);

/* Build node_idx / pod_idx / group_idx (keys "name" and "ns/name") for a
 * snapshot built by hand; wd_decode calls it.  WASP_OK or WASP_ENOMEM. */
int ws_snapshot_index(ws_snapshot *s);

/* The single-expression and single-toleration rules, for tests and the
 * reduction's explanations. */
bool ws_expr_matches(const ws_expr *e, const ws_node *n);
/* Node selector terms (ORed; an empty term matches nothing): does some
 * term select n? */
bool ws_terms_match(const ws_term *terms, int nterms, const ws_node *n);
bool ws_toleration_tolerates(const ws_toleration *t, const ws_taint *taint);

#endif
