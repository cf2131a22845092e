/*
 * version.h -- snapshot versions for the scheduler-plugin API
 * (doc/library.md, "Scheduler plugins").
 *
 * A versioned snapshot remembers the Kubernetes objects it was decoded
 * from (the document trees, kept alive by reference counts) in an ordered
 * object set keyed "Kind/namespace/name".  A delta makes a new object set
 * (unchanged objects shared, not copied) and decodes it into a new root
 * snapshot, so a derived snapshot equals the one loaded from the
 * equivalent files by construction.  Assumed placements (the scheduler
 * cache's assume/forget) are an overlay on a root: copies of the pod and
 * node arrays with the assumed pods bound, everything else shared with
 * the root.  Handles are freed in any order; the shared parts are
 * reference-counted with atomics and never written after they are built,
 * so readers on other threads never see a change.
 */
#ifndef WASP_VERSION_H
#define WASP_VERSION_H

#include "io/tree.h"
#include "model/snapshot.h"

/* An arena of document trees, shared by every object set that uses one
 * of its objects. */
typedef struct ws_trees ws_trees;
/* Wrap `a` (ownership passes; on failure it is destroyed). */
ws_trees *ws_trees_new(wa_arena *a);
void ws_trees_release(ws_trees *t);

/* About what the snapshot holds in memory, in bytes: its arena and the
 * document trees and objects its version keeps (shared ones counted in
 * full); for the budget of wasp_options.max_memory. */
size_t ws_snapshot_bytes(const ws_snapshot *s);

/* Give a freshly decoded snapshot its version: the objects of `docs`
 * (which live in `t`; the caller's reference passes to s). */
int ws_version_attach(ws_snapshot *s, ws_trees *t, const wt_doc *docs,
		      size_t ndocs, wasp_error *err);

/* Deltas (struct wasp_delta). */
int ws_delta_new(wasp_delta **out, wasp_error *err);
int ws_delta_put(wasp_delta *d, const char *text, size_t len,
		 const char *name, wasp_error *err);
int ws_delta_delete(wasp_delta *d, const char *kind, const char *ns,
		    const char *name, wasp_error *err);
void ws_delta_free(wasp_delta *d);
int ws_version_apply(const ws_snapshot *base, const wasp_delta *d,
		     ws_snapshot **out, wasp_error *err);

/* One assumed placement: pod ns/pod on node, made for `target` (the
 * "Kind/ns/name" of what wasp_place placed, NULL when unknown) and
 * belonging to PodGroup ns/group (NULL: a lone pod). */
typedef struct ws_assumed {
	const char *ns, *pod, *node, *group, *target;
} ws_assumed;
/* base plus these assumptions.  WASP_EINVAL when a pod is not pending in
 * base or a node does not exist; base is untouched. */
int ws_version_assume(const ws_snapshot *base, const ws_assumed *as,
		      size_t n, ws_snapshot **out, wasp_error *err);
/* base without the assumptions made for Kind/ns/name (the target, or
 * for kind PodGroup also the group of the pods); WASP_ENOTFOUND when it
 * has none. */
int ws_version_forget(const ws_snapshot *base, const char *kind,
		      const char *ns, const char *name, ws_snapshot **out,
		      wasp_error *err);
/* The assumptions in force (a pod confirmed or deleted by a delta is no
 * longer one). */
size_t ws_version_nassumed(const ws_snapshot *s);

/* Whether s was made by the incremental path (version_fast.c) from a
 * decoded root, for tests and benchmarks. */
bool ws_version_incremental(const ws_snapshot *s);

/* For ws_snapshot_free: release what the version holds, and the arena
 * of s when no other version shares it. */
void ws_version_free(ws_snapshot *s);

/* Kinds decoded as namespaced (a missing namespace is "default"). */
bool ws_kind_namespaced(const char *kind);

#endif
