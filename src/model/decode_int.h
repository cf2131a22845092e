/*
 * decode_int.h -- the decoder's private state, shared by its files.
 *
 * Contract.  One dctx lives for one wd_decode call.  Every decoding
 * function takes it first and returns 0, or the error code it reported
 * (c->rc, also left in c->err): WASP_EINPUT with the position of the
 * offending value (wd_bad, the "file:line:col: path: message" form of
 * doc/input.md "Errors"), WASP_ENOMEM (wd_nomem) or WASP_ELIMIT.  Callers
 * return c->rc at once on a non-zero result.  Strings the snapshot keeps
 * are copied into c->a (the snapshot arena); intermediate records live in
 * c->t (freed when decoding ends); the trees are not kept.
 *
 * Files of the decoder:
 *   decode.c          the driver: kind dispatch (collect), unknown kinds,
 *                     assembly of the snapshot, wd_decode;
 *   decode_fields.c   typed field readers with positioned errors, paths,
 *                     resource lists, labels, effects, selector
 *                     requirements, duplicate detection;
 *   decode_core.c     v1 Node and Pod (requests, affinity, tolerations);
 *   decode_sched.c    scheduling.k8s.io PriorityClass, PodGroup, Workload,
 *                     CompositePodGroup and the Kueue/JobSet topology
 *                     annotations of groups;
 *   decode_misc.c     kueue.x-k8s.io Topology and policy/v1
 *                     PodDisruptionBudget;
 *   decode_resolve.c  cross-object resolution: priorities, Workload
 *                     templates, CompositePodGroup trees.
 * The resource.k8s.io (DRA) objects are only collected here and decoded by
 * wdr_decode (model/dra.h).
 */
#ifndef WASP_DECODE_INT_H
#define WASP_DECODE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/decode.h"

#define PATHMAX 256
#define LIST_DEPTH 2       /* a List inside a List, no deeper        */
#define MAX_TPL_DEPTH 4    /* WorkloadMaxTreeDepth                  */
#define MAX_WARN_ITEMS 10  /* per-item warnings before a summary line */

/* ------------------------------------------------------------ records */

typedef struct qv {
	int r;     /* provisional resource index */
	int64_t v; /* milli-units                */
} qv;

typedef struct qlist {
	qv *q;
	size_t n, cap;
} qlist;

/* Fields shared by PodGroup specs and PodGroupTemplates. */
typedef struct dspec {
	bool has_policy;
	int policy, min_count;
	bool has_topo;
	const char *topo_key;
	bool has_disrupt;
	int disruption;
	const wt_node *disrupt_node;
	bool has_preempt;
	int preempt;
	bool has_prio;
	int32_t prio;
	const char *pcname;
	const wt_node *pcname_node;
	bool claims;
	bool composite;   /* a CompositePodGroup: gang.minGroupCount */
	const wt_node *topo_node; /* the key's value, for messages */
	const wt_node *claims_node; /* spec.resourceClaims (DRA) */
} dspec;

typedef struct dtpl {
	const char *name;
	dspec sp;
	bool composite;   /* a compositePodGroupTemplate */
} dtpl;

typedef struct dwl {
	const char *ns, *name;
	dtpl *tpls;
	size_t ntpls, cap;
	bool composite;
} dwl;

typedef struct dgroup {
	const wt_node *obj, *spec;
	const char *ns, *name;
	wsrc src;
	dspec sp;
	const char *wl_name, *tpl_name;
	const wt_node *wl_node, *tpl_node;
	const char *parent;
	/* spec.parentCompositePodGroupName, for messages */
	const wt_node *parent_node;
	bool composite;
	ws_tas *tas;
	/* PodGroups of other schedulers (decode_foreign.c): their API group,
	 * NULL for scheduling.k8s.io; priority taken from the pods when the
	 * object names none; Volcano networkTopology (tier 0: none) */
	const char *api;
	bool prio_from_pods;
	int vc_tier;
	bool vc_hard;
	const wt_node *vc_node;
} dgroup;

typedef struct dpod {
	ws_pod p;
	qlist req;
	bool has_prio;
	int32_t prio;
	const char *pcname;
	const wt_node *pcname_node;
	bool has_preempt;
	int preempt;
	const char *gname;
	const wt_node *gname_node;
	const char *gapi;  /* API group of the PodGroup it joins by label or
			      annotation (decode_foreign.c); NULL: native */
	bool dra, workload_ref;
	const wt_node *claims_node; /* spec.resourceClaims (DRA) */
	/* status.resourceClaimStatuses (DRA, doc/dra.md) */
	const wt_node *claim_status;
} dpod;

typedef struct dnode {
	ws_node n;
	qlist alloc;
} dnode;

typedef struct gacc {
	int *pods;
	size_t n, cap;
} gacc;

typedef struct dskip {
	const char *kind, *api, *why;
	int count;
} dskip;

typedef struct dctx {
	ws_snapshot *s;
	wa_arena *a;   /* snapshot arena   */
	wa_arena *t;   /* temporary arena  */
	wasp_error *err;
	int rc;        /* code of the error last reported */
	long nobjects;

	/* interned file names (tree src.file -> snapshot copy) */
	const char *file_in, *file_out;

	ws_map *objs;             /* "Kind/ns/name" -> index in first_at */
	const wt_node **first_at; /* metadata.name node of each object   */
	size_t nfirst, capfirst;

	ws_map *res;              /* resource name -> provisional index   */
	const char **rnames;
	size_t nres, caprn;

	dnode *nodes;
	size_t nnodes, capnodes;
	dpod *pods;
	size_t npods, cappods;
	dgroup *groups;
	size_t ngroups, capgroups;
	dgroup *cgroups;          /* CompositePodGroups */
	size_t ncgroups, capcgroups;
	dwl *wls;
	size_t nwls, capwls;
	ws_map *wl_idx;
	ws_priority_class *pcs;
	size_t npcs, cappcs;
	const wt_node **pc_default_node; /* parallel to pcs */
	size_t capdef;
	ws_levels *topos;
	size_t ntopos, captopos;
	dskip *skips;
	size_t nskips, capskips;
	const char **warns;
	size_t nwarns, capwarns;
	ws_pdb *pdbs;             /* policy/v1 PodDisruptionBudgets (arena a) */
	size_t npdbs, cappdbs;

	/* assembly */
	ws_group *out_groups; /* real groups, then placeholders        */
	size_t nout_groups;
	struct gacc *acc;     /* pods per output group                 */
	ws_map *gidx, *nidx;
	int *final;           /* provisional -> final resource index   */
	size_t nlost, nopods, ndra, nwref;
	const struct dpod *first_lost;
	const char *first_nopods;

	/* pod request scratch, sized to nres */
	int64_t *sum, *side, *imax, *cand, *podl;
	bool *mark, *podl_set;
	int *touched;
	size_t scap;

	/* DRA objects, handed to wdr_decode after assembly */
	const wt_node **draobjs;
	size_t ndraobjs, capdraobjs;

	/* the load's deadline and cancel (NULL: none), polled every
	 * WD_POLL_EVERY + 1 objects and between the assembly steps */
	const wl_limits *lim;
	unsigned long npolled;
} dctx;

#define WD_POLL_EVERY 63

/* ---- decode_fields.c: errors, paths, typed field readers ---- */

/* WASP_ENOMEM; and WASP_EINPUT "path: message" at n's position. */
int wd_nomem(dctx *c);
__attribute__((format(printf, 4, 5)))
int wd_bad(dctx *c, const wt_node *n, const char *path, const char *fmt,
	   ...);
/* Message paths into buf (PATHMAX): base.key and base[i]. */
const char *wd_pk(char *buf, const char *base, const char *key);
const char *wd_pi(char *buf, const char *base, size_t i);
/* The value of key in map m (a null value counts as absent), or the key
 * node itself (for errors about a field's name). */
const wt_node *wd_mget(const wt_node *m, const char *key);
const wt_node *wd_mkey(const wt_node *m, const char *key);
/* Typed readers: an error at the value when it has another type. */
int wd_want(dctx *c, const wt_node *n, wt_type t, const char *path);
bool wd_is_scalar(const wt_node *n);
int wd_sval(dctx *c, const wt_node *n, const char *path, const char **out);
/* Refuses control characters (names, labels, selectors). */
int wd_no_ctl(dctx *c, const wt_node *n, const char *path, const char *s);
int wd_sfield(dctx *c, const wt_node *m, const char *key,
	      const char *base, const char **out, const wt_node **node);
int wd_ival(dctx *c, const wt_node *n, const char *path, int64_t lo,
	    int64_t hi, int64_t *out);
int wd_bval(dctx *c, const wt_node *n, const char *path, bool *out);
/* n's position, its file name copied into the snapshot arena once. */
wsrc wd_src_of(dctx *c, const wt_node *n);
/* A warning for the snapshot (copied). */
__attribute__((format(printf, 2, 3)))
int wd_warn(dctx *c, const char *fmt, ...);
const char *wd_plural(size_t n, const char *one, const char *many);
/* A name usable in "ns/name" keys. */
int wd_check_name(dctx *c, const wt_node *n, const char *path,
		  const char *s);

/* ---- decode_fields.c: resources, labels, enums, selectors ---- */

/* Provisional index of a resource name (interned on first use). */
int wd_intern_res(dctx *c, const char *name, int *out);
/* A map resource -> quantity appended to l; a container's requests with
 * limits standing in for missing requests. */
int wd_dec_reslist(dctx *c, const wt_node *m, const char *path,
		   qlist *l, bool skip_pods);
int wd_dec_resources(dctx *c, const wt_node *res, const char *path,
		     qlist *out);
/* A string map (labels, nodeSelector) in the snapshot arena; wd_kv_cmp
 * sorts it by key. */
int wd_dec_labels(dctx *c, const wt_node *m, const char *path,
		  ws_kv **out, int *nout);
int wd_kv_cmp(const void *a, const void *b);
/* Taint effect; preemptionPolicy and its name. */
int wd_dec_effect(dctx *c, const wt_node *n, const char *path,
		  bool allow_empty, ws_effect *out);
int wd_dec_preempt(dctx *c, const wt_node *n, const char *path,
		   int *out);
const char *wd_preempt_name(int p);
/* An error when Kind/ns/name was seen before (naming the first). */
int wd_dup_check(dctx *c, const char *kind, const char *ns,
		 const char *name, const wt_node *name_node);
/* One selector requirement (matchExpressions item; matchFields when
 * field). */
int wd_dec_expr(dctx *c, const wt_node *x, const char *path, bool field,
		ws_expr *e);

/* ---- the object decoders, called by collect() in decode.c: each
 * decodes one object's own fields into c's records ---- */

/* decode_core.c */
int wd_dec_node(dctx *c, const wt_node *o, const char *name,
		const wt_node *meta);
int wd_dec_pod(dctx *c, const wt_node *o, const char *ns,
	       const char *name);

/* decode_sched.c */
int wd_dec_pc(dctx *c, const wt_node *o, const char *name);
int wd_dec_podgroup(dctx *c, const wt_node *o, const char *ns,
		    const char *name, bool composite);
/* A group record's object, names, position and spec (a map). */
int wd_group_begin(dctx *c, const wt_node *o, const char *ns,
		   const char *name, const char *kind, dgroup *g);
int wd_dec_workload(dctx *c, const wt_node *o, const char *ns,
		    const char *name);

/* decode_foreign.c: coscheduling (scheduling.x-k8s.io) and Volcano
 * (scheduling.volcano.sh) PodGroups as gangs; a pod's membership in
 * one by label or annotation; the "ns/name[@api]" key of a group;
 * Volcano's networkTopology tiers mapped onto a Kueue Topology's
 * levels (doc/input.md, "PodGroups of other schedulers"). */
#define WD_API_COSCHED "scheduling.x-k8s.io"
#define WD_API_VOLCANO "scheduling.volcano.sh"
int wd_dec_foreign_pg(dctx *c, const wt_node *o, const char *ns,
		      const char *name, const char *api);
int wd_foreign_member(dctx *c, const wt_node *meta, dpod *d);
const char *wd_group_key(dctx *c, const char *ns, const char *name,
			 const char *api);
int wd_foreign_topology(dctx *c, dgroup *d);

/* decode_misc.c */
int wd_dec_topology(dctx *c, const wt_node *o, const char *name);
int wd_dec_pdb(dctx *c, const wt_node *o, const char *ns,
	       const char *name);

/* decode_resolve.c: priority admission for a pod or group (explicit
 * priority, named class, global default); the classes' global default
 * checked; PodGroups filled from their templates and the
 * CompositePodGroup trees resolved (out: the snapshot's groups). */
int wd_resolve_prio(dctx *c, bool has_prio, int32_t prio,
		    const char *pcname, const wt_node *pcnode,
		    const char *path, bool has_preempt, int preempt,
		    int32_t *out_prio, int *out_preempt);
int wd_resolve_pcs(dctx *c);
int wd_resolve_groups(dctx *c, ws_group *out);

#endif
