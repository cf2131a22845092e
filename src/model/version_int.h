/*
 * version_int.h -- the snapshot versions' private state, shared by
 * version.c (object sets, deltas, full decodes, overlays of assumed
 * placements) and version_fast.c (the incremental path for Pods and
 * PodGroups).  See version.h for the contract.
 *
 * A handle's snapshot is its "plain" state (no assumptions) or an
 * overlay of assumptions on a plain state.  A plain state is either a
 * full decode of an object set (a root) or a root plus incremental
 * deltas, each of which keeps its new records in an arena of its own
 * (a store) shared by later versions; the plain state's arrays live in
 * one more store.  The objects behind a plain state are the object set
 * of its root plus the operations applied incrementally since, in order.
 */
#ifndef WASP_VERSION_INT_H
#define WASP_VERSION_INT_H

#include <stdatomic.h>

#include "model/version.h"

#define VS_KEY_MAX (2 * WASP_MAX_NAME + 128)
/* Incremental deltas allowed before a full decode compacts them: each
 * keeps a store alive and the added names in the side indexes. */
#define VS_MAX_FAST 256
#define VS_MAX_PENDING 4096

struct ws_trees {
	atomic_int refs;
	wa_arena *a;
};

typedef struct vs_obj {
	const char *key;    /* "Kind/ns/name", in the trees' arena */
	const wt_node *obj; /* NULL: a delete */
	ws_trees *t;
} vs_obj;

typedef struct vs_objset {
	atomic_int refs;
	wa_arena *a;        /* objs, the index, the trees list */
	vs_obj *objs;
	size_t n;
	ws_map *idx;        /* key -> position in objs */
	ws_trees **trees;   /* one reference each */
	size_t ntrees;
	const wt_node **pcs; /* the PriorityClass objects */
	size_t npcs;
} vs_objset;

typedef struct vs_store {
	atomic_int refs;
	wa_arena *a;
	struct ws_cache *cache; /* in a: what it holds is released first */
} vs_store;

struct ws_version {
	vs_objset *objs;      /* the root's objects                      */
	vs_obj *pend;         /* applied incrementally since (malloc'd),
				 each holding a reference to its trees    */
	size_t npend;
	vs_store **stores;    /* malloc'd, one reference each: the root's
				 arena first, the plain state's last      */
	size_t nstores;
	const ws_snapshot *plain;
	const ws_snapshot *root;     /* the decoded root (in stores[0])  */
	vs_store *plain_store;       /* the incremental plain state's own
					arrays (one of stores), NULL for a
					root: a successor built from the
					plain state does not keep it        */
	int root_npods, root_ngroups; /* the root's counts               */
	wa_arena *own;        /* an overlay's arena, NULL for a plain one */
	ws_assumed *as;       /* in own */
	size_t nas;
};

struct wasp_delta {
	wa_arena *a;   /* ops, delete keys */
	vs_obj *ops;
	size_t n, cap;
	ws_trees **trees;
	size_t ntrees, captrees;
};

/* version.c */
int vs_nomem(wasp_error *err);
vs_store *vs_store_new(wa_arena *a);
/* A version that shares base's objects, pending operations and stores
 * (references taken; base's plain_store left out when drop_plain), plus
 * `more` pending operations and `extra` stores (references passed in). */
struct ws_version *vs_version_derive(const struct ws_version *base,
				     const vs_obj *more, size_t nmore,
				     vs_store *const *extra, size_t nextra,
				     bool drop_plain);
void vs_version_release(struct ws_version *v);
/* The object of `key` as the plain state of v sees it, NULL if none. */
const wt_node *vs_lookup(const struct ws_version *v, const char *key);

/* version_fast.c: base's plain state plus the delta, built without a
 * full decode.  1: not applicable (take the full path), 0: done (*out
 * a plain handle), else an error code. */
int vs_apply_fast(const ws_snapshot *base, const wasp_delta *d,
		  ws_snapshot **out, wasp_error *err);

#endif
