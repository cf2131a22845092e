/*
 * dra.h -- Dynamic Resource Allocation: the device model, matching and
 * allocation helpers.  Implemented in dra_decode.c (the objects),
 * dra_build.c (the model), dra_match.c (predicates, one claim's search)
 * and dra_alloc.c (allocation state); dra_int.h is their private header.
 *
 * decode.c hands the resource.k8s.io objects and the pods' and groups'
 * spec.resourceClaims to wdr_decode, which builds a ws_dra attached to the
 * snapshot (s->dra, NULL when the input has no DRA claims).  The model is
 * read-only afterwards; the greedy core, the plan and the verifier share
 * its predicates (device reach, device matching, claim allocation on a
 * node) the way they share snapshot.c's node predicates.
 *
 * Claims: a pod entry naming a ResourceClaimTemplate gets its own claim
 * (one per pod); an entry naming a ResourceClaim, or matching its
 * PodGroup's entry exactly (same name and same source, KEP-5729), uses a
 * shared claim instance allocated once.  Devices named in any
 * ResourceClaim's status.allocation are taken.
 */
#ifndef WASP_DRA_H
#define WASP_DRA_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cel.h"
#include "model/snapshot.h"
#include "io/tree.h"

#define WDR_MAX_STEPS   20000 /* search steps of one claim allocation   */
#define WDR_MAX_RESULTS 1024  /* devices of one claim                   */
#define WDR_MAX_JOINT   128   /* claims of one pod searched jointly     */

/* ws_dra.nmask_ok flags */
#define WDR_NODE_MASK   1
#define WDR_NODE_TAINTS 2

/* Where a slice or device is available. */
typedef struct wdr_reach {
	int node;          /* >= 0: this node only; -1: all nodes;
			      -2: nodes matching terms; -3: no node     */
	ws_term *terms;
	int nterms;
} wdr_reach;

/* A device taint (KEP-5055); effect NoSchedule or NoExecute keeps the
 * device from requests that do not tolerate it. */
typedef struct wdr_taint {
	const char *key, *value; /* value "" when absent                */
	const char *effect;
} wdr_taint;

/* A toleration of a request or subrequest (same rules as pod
 * tolerations: operator Exists or Equal, empty key with Exists tolerates
 * everything, empty effect tolerates every effect). */
typedef struct wdr_tol {
	const char *key, *value, *effect;
	bool exists;       /* operator Exists (else Equal)              */
} wdr_tol;

/* What a device consumes from one counter (KEP-4815): index into
 * ws_dra.ctrs and the amount (milli-units). */
typedef struct wdr_use {
	int ctr;
	int64_t milli;
	const char *set, *name; /* as written (counterSet, counter)      */
} wdr_use;

/* One counter of a shared counter set of a pool. */
typedef struct wdr_ctr {
	const char *set, *name; /* counter set and counter names          */
	int64_t milli;          /* what the set offers                    */
	int first, n;           /* consumers: ctr_dev/ctr_amt[first..+n)  */
} wdr_ctr;

typedef struct wdr_device {
	const char *name;
	int slice;
	wcel_device cel;   /* driver, attributes, capacity              */
	bool multi;        /* allowMultipleAllocations                   */
	wdr_reach reach;
	wdr_taint *taints;
	int ntaints;
	wdr_use *uses;     /* consumesCounters, resolved                 */
	int nuses;
} wdr_device;

typedef struct wdr_slice {
	const char *name, *driver, *pool;
	int64_t generation;
	int count;         /* pool.resourceSliceCount                    */
	wsrc src;
	/* sharedCounters as decoded: ctr_set/ctr_name/ctr_milli[0..nctr) */
	const char **ctr_set, **ctr_name;
	int64_t *ctr_milli;
	int nctr;
} wdr_slice;

typedef struct wdr_class {
	const char *name;
	wcel_prog **sel;
	int nsel;
	const char *ext_res; /* extendedResourceName (KEP-5004), or NULL  */
} wdr_class;

/* One way to meet a request: the request itself (exactly) or one
 * firstAvailable alternative. */
typedef struct wdr_sub {
	const char *name;  /* "gpu" or "gpu/older" (result request name)  */
	const char *class_name;
	int cls;           /* -1: the DeviceClass does not exist          */
	wcel_prog **sel;
	int nsel;
	bool all;          /* allocationMode All                          */
	int count;         /* ExactCount                                  */
	int id;            /* global index of this sub (match cache)      */
	bool admin;        /* adminAccess: may use allocated devices and
			      does not consume them                       */
	wdr_tol *tols;     /* tolerations                                 */
	int ntols;
	/* per constraint of its claim spec: does it bind this sub's
	 * devices (wdr_cons_has on name)?  Set at load */
	const unsigned char *con;
} wdr_sub;

typedef struct wdr_req {
	const char *name;
	wdr_sub *alts;
	int nalts;
} wdr_req;

typedef struct wdr_cons {
	const char **reqs; /* names; nreqs 0: every request              */
	int nreqs;
	const char *domain, *attr;
	bool distinct;     /* distinctAttribute (else matchAttribute)     */
	int key;           /* its (domain, attr) in ws_dra.aval           */
} wdr_cons;

/* A ResourceClaim or a ResourceClaimTemplate's claim spec. */
typedef struct wdr_spec {
	const char *ns, *name;
	bool template_;
	wsrc src;
	wdr_req *reqs;
	int nreqs;
	wdr_cons *cons;
	int ncons;
	/* ResourceClaim status.allocation (devices taken) */
	bool allocated;
	int *alloc_dev;
	const char **alloc_req;
	int nalloc;
	/* running pods holding this allocated claim (their
	 * spec.resourceClaims name it, or its status.reservedFor does);
	 * evicting all of them frees its devices (doc/preemption.md) */
	int *holders;
	int nholders;
} wdr_spec;

/* A claim allocated once and shared: an existing ResourceClaim, or the
 * claim a PodGroup's template makes for the whole group. */
typedef struct wdr_inst {
	int spec;
	const char *ns, *name; /* claim name in the plan                    */
	int group;             /* snapshot group, -1 for a ResourceClaim     */
} wdr_inst;

/* One entry of a pod's spec.resourceClaims. */
typedef struct wdr_pclaim {
	const char *name;  /* entry name                                  */
	int spec;          /* -1: missing object (why says which)         */
	int inst;          /* >= 0: shared instance; -1: the pod's own claim */
} wdr_pclaim;

typedef struct wdr_podc {
	wdr_pclaim *c;
	int n;
	int sig;           /* equal sig <=> identical claim lists (0: none) */
	const char *why;   /* non-NULL: a claim cannot be resolved         */
} wdr_podc;

typedef struct ws_dra {
	wdr_slice *slices;
	int nslices;
	wdr_device *devs;
	int ndevs;
	wdr_class *classes;
	int nclasses;
	wdr_spec *specs;
	int nspecs;
	wdr_inst *insts;
	int ninsts;
	wdr_podc *pods;    /* per snapshot pod                             */
	int nsubs;         /* wdr_sub ids 0..nsubs-1                       */
	wdr_sub **subs;    /* by id                                        */
	int *node_first;   /* CSR over nodes: node-local devices            */
	int *node_devs;
	int *global;       /* devices reachable by more than one node       */
	int nglobal;
	uint16_t *taken0;  /* per device: uses by existing allocations      */
	/* per snapshot pod, the allocated claims (spec indices) it holds:
	 * held[held_beg[pi] .. held_beg[pi+1]) (doc/preemption.md) */
	int *held_beg, *held;
	/* shared counters (KEP-4815): a device in use (taken > 0) consumes
	 * its uses; ctr_dev/ctr_amt list each counter's consumers */
	wdr_ctr *ctrs;
	int nctrs;
	int *ctr_dev;
	int64_t *ctr_amt;
	/* the selector table of the subs pending pods need, computed once
	 * at load (NULL rows: not needed); a CEL runtime error on a device
	 * a node reaches makes the pods of that claim wait (pc->why) */
	signed char **match;
	/* the attributes constraints compare, as small ints: per distinct
	 * (domain, attr) a constraint names (wdr_cons.key), per device the
	 * class of its value under wdr_attr_equal, -1 when it has none */
	int32_t **aval;
	int nakeys;
	/* per node: WDR_NODE_MASK when its devices fit one 64-bit mask (no
	 * device reaches several nodes; at most 64 node-local ones, none
	 * shareable or consuming counters): the common claim shape then
	 * works on masks (bit i: the node's i-th device); WDR_NODE_TAINTS
	 * when a device it reaches has taints.  Per constraint key and such
	 * node, one mask per value class: pmask[k][pm_beg[k][n] ..
	 * pm_beg[k][n + 1]) */
	unsigned char *nmask_ok;
	int **pm_beg;
	uint64_t **pmask;
} ws_dra;

/* Input gathered by decode.c. */
typedef struct wdr_input {
	const wt_node **objs;       /* resource.k8s.io objects, input order */
	size_t nobjs;
	const wt_node **pod_claims; /* per snapshot pod: spec.resourceClaims */
	const wt_node **group_claims; /* per snapshot group                  */
	/* per snapshot pod, status.resourceClaimStatuses
	 * (NULL: none): the ResourceClaim made for each template entry */
	const wt_node **pod_claim_status;
} wdr_input;

/* Build s->dra (NULL when nothing uses DRA) and append warnings to the
 * snapshot.  WASP_EINPUT with the offending position on bad input. */
int wdr_decode(ws_snapshot *s, const wdr_input *in, wasp_error *err);

/* ---- predicates shared by the solvers and the verifier ---- */

bool wdr_reaches(const ws_snapshot *s, const wdr_device *d, int node);
/* Device matches the sub's class and its selectors (a CEL error is no
 * match; *cel_err, if given, gets the first message) and the sub
 * tolerates its NoSchedule/NoExecute taints. */
bool wdr_matches(const ws_dra *d, const wdr_sub *sub, int dev,
		 wasp_error *cel_err);
/* Value of the qualified attribute on a device, or NULL. */
const wcel_attr *wdr_attr(const wdr_device *d, const char *domain,
			  const char *name);
bool wdr_attr_equal(const wcel_attr *a, const wcel_attr *b);
/* Does constraint k apply to the request `name` ("gpu", or a result's
 * "gpu/alternative")?  A constraint naming no request applies to all. */
bool wdr_cons_has(const wdr_cons *k, const char *name);
/* Does sub sb tolerate every NoSchedule/NoExecute taint of device dv? */
bool wdr_tolerates(const wdr_sub *sb, const wdr_device *dv);
/* Would a device in use beyond `taken` (plus the devices of extra, each
 * once) leave every counter it consumes within its set?  `taken` counts
 * uses per device; a device already in use consumes nothing more. */
bool wdr_counters_fit(const ws_dra *d, int dev, const uint16_t *taken,
		      const int *extra, int nextra);
/* The same with a second list of devices in use. */
bool wdr_counters_fit2(const ws_dra *d, int dev, const uint16_t *taken,
		       const int *extra, int nextra, const int *extra2,
		       int nextra2);
/* The first counter that the devices with used[dev] > 0 over-consume,
 * as text in a; NULL when every counter holds. */
const char *wdr_counter_excess(const ws_dra *d, const uint16_t *used,
			       wa_arena *a);
/* Does the claim list of pod pi use DRA at all? */
static inline bool wdr_pod_has(const ws_dra *d, int pi)
{
	return d && d->pods[pi].n > 0;
}

/* ---- allocation state of one solve ---- */

typedef struct wdr_result {
	int sub;   /* wdr_sub id                                         */
	int dev;
} wdr_result;

/* One allocated claim: a pod's own claim (pod >= 0, entry index) or a
 * shared instance (inst >= 0). */
typedef struct wdr_alloc {
	int pod, entry, inst;
	int cls;   /* problem class of the pod (pod claims), -1 for shared */
	int node;  /* node it was allocated for                          */
	int first, n; /* into results                                    */
} wdr_alloc;

typedef struct wdr_state {
	const ws_snapshot *s;
	const ws_dra *d;
	uint16_t *taken;         /* per device                            */
	signed char **match;     /* per sub: per device 1 match, 0 not; a
				    shared zero row for subs no pending
				    claim needs                           */
	int *inst_alloc;         /* per instance: alloc index, -1          */
	wdr_alloc *allocs;
	int nallocs;
	size_t capallocs;
	wdr_result *res;
	int nres;
	size_t capres;
	wa_arena *a;
	const char *cel_error;   /* first CEL runtime error, or NULL       */
} wdr_state;

int wdr_state_init(wdr_state *st, const ws_snapshot *s, wa_arena *a);
/* Pods of claim list pc that could still get their own claims on node n
 * (ignores shared claims), capped at cap.  Read-only, thread-safe. */
int wdr_fit(const wdr_state *st, const wdr_podc *pc, int node, int cap);
/* Is wdr_fit on node n exactly how many pods of claim list pc
 * wdr_place would then put there one after another (not only a bound)?
 * True for the common claim shape on a node whose devices fit a mask
 * (ws_dra.nmask_ok): both count and allocate on the same masks. */
bool wdr_fit_exact(const ws_dra *d, const wdr_podc *pc, int node);
/* wdr_fit_exact's condition on the node alone (node -1 above: on the
 * claim list alone, for a caller that checked every node). */
bool wdr_node_exact(const ws_dra *d, int node);
/* Allocate everything pod pi needs on node n (shared instances once,
 * checking reach for those already allocated), recording allocations
 * with class `cls`.  true on success; on failure nothing changes. */
bool wdr_place(wdr_state *st, int pi, int cls, int node);
/* wdr_place for up to `count` pods with pod pi's claim list on node
 * n, one after another, stopping at the first that does not fit: how
 * many did.  The same allocations; the common shape on masks
 * (wdr_fit_exact) computes the node's free devices once. */
int wdr_place_n(wdr_state *st, int pi, int cls, int node, int count);
/* Record an allocation made elsewhere (the ILP's answer): results r of
 * pod pi's entry (or of instance inst), taking the devices.  0 or -1
 * (out of memory). */
int wdr_push(wdr_state *st, int pi, int entry, int inst, int cls, int node,
	     const wdr_result *r, int n);
/* A fresh allocation state sharing base's match table and starting from
 * its taken devices (no allocations), in arena a.  0 or -1. */
int wdr_state_clone(wdr_state *st, const wdr_state *base, wa_arena *a);
/* firstAvailable preference (objective tier 1b, doc/formulation.md): the
 * sum over the allocated claims' requests of the index of the
 * alternative used (0: the first, or a request without alternatives). */
long wdr_alt_rank(const wdr_state *st);
/* After placement (greedy): move each claim to an earlier firstAvailable
 * alternative on the same node when the devices allow it (a shared claim
 * only when its devices are local to that node).  Results are re-appended,
 * so wdr_undo must not be used afterwards.  Returns the claims moved, or
 * -1 (out of memory). */
int wdr_prefer_earlier(wdr_state *st);
/* Undo back to a mark (nallocs at the time). */
void wdr_undo(wdr_state *st, int mark);
/* Reason text for a group whose pods could not get devices (arena). */
const char *wdr_explain(const wdr_state *st, const int *pods, int npods,
			const int *nodes, int nnodes, const char *where,
			long long fit, int need, wa_arena *a);
/* What wdr_explain counts on one node for the request it speaks of:
 * the most free devices one node gives it (in one matchAttribute
 * partition), and matching devices taints or counters hold back. */
typedef struct wdr_xnode {
	int best;
	long tainted, ctr;
} wdr_xnode;
/* Node n's counts for claim list pc (a caller keeping them per node);
 * false on NOMEM. */
bool wdr_explain_node(const wdr_state *st, const wdr_podc *pc, int node,
		      wdr_xnode *x);
/* wdr_explain from counts the caller summed over the nodes (best: the
 * largest, tainted and ctr: the sums), pc being the first of pods[]
 * with claims. */
const char *wdr_explain_sum(const wdr_state *st, const int *pods,
			    int npods, const wdr_xnode *sum,
			    const char *where, long long fit, int need,
			    wa_arena *a);

/* Allocate one claim spec on node n against `taken`; picks go to out
 * (sub id, device).  Returns the number of results, or -1 when it does
 * not fit.  Exposed for the verifier's tests and the fit estimate. */
int wdr_alloc_spec(const wdr_state *st, const wdr_spec *sp, int node,
		   const uint16_t *taken, const int *extra, int nextra,
		   wdr_result *out, int max);

/* The same for several claim specs searched jointly (a pod's own
 * claims: a later claim that cannot be met sends the search back into
 * the earlier ones, as upstream's allocator does); devices are distinct
 * across them.  counts[k] gets the results of sps[k], which come in
 * order.  Returns the total, or -1. */
int wdr_alloc_specs(const wdr_state *st, const wdr_spec *const *sps,
		    int nsp, int node, const uint16_t *taken,
		    const int *extra, int nextra, wdr_result *out, int max,
		    int *counts);

#endif
