/*
 * topology.h -- topology keys, their domains and their coarse-to-fine order.
 *
 * A key is a node label (e.g. example.com/rack).  Its domains are, by
 * default, the sets of nodes sharing one value of the label (upstream
 * semantics: rack "r1" under two blocks is one domain); in path mode
 * (WASP_DOMAIN_PATH, Kueue's reading) a domain is the tuple of values of all
 * coarser levels plus this one.
 *
 * The keys considered are those named by a kueue Topology object (in its
 * order) plus every key a group's constraint names.  Keys not ordered by a
 * Topology object are ordered by nesting: key A is finer than B when every
 * value of A lies within one value of B.  Labels that do not nest produce
 * one warning each.
 */
#ifndef WASP_TOPOLOGY_H
#define WASP_TOPOLOGY_H

#include <stdatomic.h>

#include "model/snapshot.h"

typedef struct wtp_key {
	const char *label;
	int ndom;
	const char **dom_name; /* ndom: the value, or "v0/v1/.../vk" in path mode */
	int *node_dom;         /* nnodes: domain of each node, -1: label absent */
	int *dom_nnodes;       /* ndom: nodes per domain                  */
	int **dom_nodes;       /* ndom: node indices per domain, ascending */
	int parent;            /* next coarser key that this one nests in,
				  -1: none (coarsest, or does not nest)   */
	int *dom_parent;       /* ndom: parent domain in `parent`, or -1  */
} wtp_key;

typedef struct wtp_topo {
	int mode;      /* enum wasp_domain_mode */
	int nkeys;
	wtp_key *keys; /* sorted coarse -> fine */
	const char **warnings;
	int nwarnings;
} wtp_topo;

int wtp_build(const ws_snapshot *s, int mode, wa_arena *a, wtp_topo **out,
	      wasp_error *err);

/* A topology built once for a snapshot version and shared by the runs on
 * it (doc/library.md, "Scheduler plugins"): in its own arena, counted. */
typedef struct wtp_built {
	atomic_int refs;
	wa_arena *a;
	wtp_topo *t;
} wtp_built;
/* The cache of a versioned snapshot (ws_snapshot.cache), one slot per
 * domain mode, filled on first use by compare-and-swap. */
struct ws_cache {
	_Atomic(wtp_built *) topo[2];
};
/* s's topology: the cached one when s has a cache (built into it on
 * first use), else built into a.  Never to be changed by the caller. */
int wtp_get(const ws_snapshot *s, int mode, wa_arena *a, wtp_topo **out,
	    wasp_error *err);
/* Drop the cache's references (the cache itself lives in an arena). */
void wtp_cache_release(struct ws_cache *c);
/* dst (the cache of s) shares src's topologies where the groups of s
 * from first_new on add no topology key nor annotation: for a version
 * whose nodes, Topology objects, composites and older groups are those
 * src was built from. */
void wtp_cache_inherit(struct ws_cache *dst, struct ws_cache *src,
		       const ws_snapshot *s, int first_new);
int wtp_key_index(const wtp_topo *t, const char *label); /* -1: not a key */

#endif
