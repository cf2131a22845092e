/*
 * dra_int.h -- private to the DRA module (dra.h), shared by its files.
 *
 * Contract.  A dx lives for one wdr_decode call.  The decoding functions
 * take it first and return 0, or the error code they reported (c->rc,
 * also left in c->err): WASP_EINPUT with the offending value's position
 * (wdr_bad: "path: message"), or WASP_ENOMEM (wdr_nomem).  What the model
 * keeps is allocated in c->a (the snapshot arena), scratch in c->t.
 * Warnings gather in c->warns and are appended to the snapshot's at the
 * end.
 *
 * Files of the module:
 *   dra_decode.c  the resource.k8s.io objects: ResourceSlice (devices,
 *                 attributes, capacity, node selectors), DeviceClass,
 *                 ResourceClaim / ResourceClaimTemplate specs;
 *   dra_build.c   the device model (ws_dra): pools, classes, claim specs
 *                 and their allocations, the pods' claim lists and shared
 *                 instances, holders, the reach index, attribute value
 *                 classes and per-node device masks; wdr_decode;
 *   dra_match.c   predicates over devices (reach, selectors, attributes,
 *                 constraints) and the search allocating one claim;
 *   dra_alloc.c   the allocation state of one solve (wdr_state): fit,
 *                 place, push, clone, undo, firstAvailable preference,
 *                 explanations.
 * doc/dra.md describes what is read and the semantics.
 */
#ifndef WASP_DRA_INT_H
#define WASP_DRA_INT_H

#include "model/dra.h"

#define PATHMAX 256

/* Error paths are cut at PATHMAX on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* The decoder's state (one wdr_decode call). */
typedef struct dx {
	ws_snapshot *s;
	ws_dra *d;
	wa_arena *a;   /* snapshot arena */
	wa_arena *t;   /* scratch        */
	wasp_error *err;
	int rc;
	const char *file_in, *file_out;
	ws_map *cls_idx, *spec_idx, *pool_idx, *dev_idx;
	const char **warns;
	size_t nwarns, capwarns;
	struct dunsup *unsup;   /* fields read but not modelled          */
	size_t nunsup, capunsup;
	struct dns *ns;         /* Namespace objects                     */
	const char *cur;        /* "Kind ns/name" of the object decoded  */
	bool ext_any;           /* a pod got an extended-resource claim  */
	size_t nns, capns;
} dx;

/* A field wasp does not model, for one warning (dra_rules.c). */
typedef struct dunsup {
	const char *field, *obj, *path, *what;
	int n;
} dunsup;

/* A Namespace of the input: name, labelled for adminAccess. */
typedef struct dns {
	const char *name;
	bool admin;
} dns;

/* A decoded ResourceSlice: the slice and its devices. */
typedef struct dslice {
	wdr_slice sl;
	wdr_device *devs;
	size_t ndevs, cap;
} dslice;

/* Devices reachable from one node that one allocation looks at. */
#define WDR_MAX_CANDS 4096

/* ---- dra_decode.c: errors, field readers ---- */
int wdr_nomem(dx *c);
__attribute__((format(printf, 4, 5)))
int wdr_bad(dx *c, const wt_node *n, const char *path, const char *fmt,
	    ...);
__attribute__((format(printf, 2, 3)))
int wdr_warn(dx *c, const char *fmt, ...);
wsrc wdr_src_of(dx *c, const wt_node *n);
const wt_node *wdr_mget(const wt_node *m, const char *k);
int wdr_want(dx *c, const wt_node *n, wt_type t, const char *path);
int wdr_sfield(dx *c, const wt_node *m, const char *key,
	       const char *path, const char **out);

/* Decoding's string building, cheaper than printf on its hot paths:
 * a b c (c may be NULL) into p[cap], cut at cap - 1 as snprintf cuts;
 * a "[" i "]" b likewise; and the NULL-terminated strings after `a`
 * joined in arena a (NULL on NOMEM). */
void wdr_path(char *p, size_t cap, const char *a, const char *b,
	      const char *c);
void wdr_pathi(char *p, size_t cap, const char *a, size_t i,
	       const char *b);
__attribute__((sentinel))
char *wdr_cat(wa_arena *a, ...);

/* ---- dra_decode.c: one object each (old: the v1beta1 / v1alpha3 shape,
 * devices under basic:, no exactly:) ---- */
int wdr_dec_slice(dx *c, const wt_node *o, const char *name, bool old,
		  dslice *out);
int wdr_dec_class(dx *c, const wt_node *o, const char *name,
		  wdr_class *cl);
int wdr_dec_claimspec(dx *c, const wt_node *spec, const char *path,
		      bool old, wdr_spec *sp);

/* ---- dra_rules.c: taints, tolerations, counters, adminAccess, CEL
 * runtime errors, fields not modelled ---- */
int wdr_unsupported(dx *c, const char *field, const char *obj,
		    const char *path, const char *what);
int wdr_dec_taints(dx *c, const wt_node *l, const char *path,
		   wdr_device *d);
int wdr_dec_tols(dx *c, const wt_node *l, const char *path, wdr_sub *sb);
int wdr_dec_shared(dx *c, const wt_node *l, const char *path,
		   wdr_slice *sl);
int wdr_dec_consumes(dx *c, const wt_node *l, const char *path,
		     wdr_device *d);
int wdr_dec_namespace(dx *c, const wt_node *o, const char *name);
/* Extended resources backed by DRA (KEP-5004): a pod's request of a
 * DeviceClass's extendedResourceName that no node advertises becomes a
 * claim of the pod ("<pod>-extended-resources"); sets c->ext_any. */
int wdr_ext_resources(dx *c);
/* After the claim lists: counters resolved, the match table, pods whose
 * claims cannot be allocated (CEL errors, adminAccess namespace), the
 * warnings for fields not modelled. */
int wdr_rules_build(dx *c);

/* dra_alloc.c: need[spec] for the unallocated specs pending pods use. */
void wdr_need_specs(const ws_snapshot *s, const ws_dra *d, bool *need);

/* dra_match.c: class and selectors only (wdr_matches without taints). */
bool wdr_matches_sel(const ws_dra *d, const wdr_sub *sub, int dev,
		     wasp_error *cel_err);

/* dra_match.c: the devices node `node` can reach (node-local ones,
 * then those of several nodes), at most cap, into buf; their number. */
int wdr_node_cands(const wdr_state *st, int node, int *buf, int cap);
/* The same without copying when no device reaches several nodes: a
 * pointer into the node's devices (else buf); their number in *n. */
const int *wdr_node_cands_p(const wdr_state *st, int node, int *buf,
			    int cap, int *n);

/* Bits set in x (inline: without -mpopcnt gcc calls a library
 * function). */
static inline int wdr_popcount(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* The devices of node n (nmask_ok) that match row m and are free in
 * `taken`, as a mask over the node's devices. */
static inline uint64_t wdr_node_free(const ws_dra *d, int n,
				     const signed char *m,
				     const uint16_t *taken)
{
	const int *dv = d->node_devs + d->node_first[n];
	int k = d->node_first[n + 1] - d->node_first[n];
	uint64_t f = 0;
	for (int i = 0; i < k; i++)
		f |= (uint64_t)(m[dv[i]] && !taken[dv[i]]) << i;
	return f;
}

/* Of the free devices fr of mask node n, those the common claim shape
 * takes `need` from: all of them, or with a matchAttribute cn the value
 * class whose first free device comes first among those with `need`
 * free devices (0: none has). */
static inline uint64_t wdr_mask_pick(const ws_dra *d, const wdr_cons *cn,
				     int n, uint64_t fr, int need)
{
	if (!cn)
		return fr;
	const int *beg = d->pm_beg[cn->key];
	const uint64_t *pm = d->pmask[cn->key];
	uint64_t pick = 0;
	int first = 64;
	for (int j = beg[n]; j < beg[n + 1]; j++) {
		uint64_t x = fr & pm[j];
		if (x && wdr_popcount(x) >= need &&
		    __builtin_ctzll(x) < first) {
			first = __builtin_ctzll(x);
			pick = x;
		}
	}
	return pick;
}

/* Candidates up to which dra_match.c allocates the common claim shape
 * directly instead of searching. */
#define WDR_DIRECT_CANDS 16

#endif
