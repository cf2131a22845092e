/*
 * verify_int.h -- the verifier's private state, shared by its files.
 *
 * Contract: wv_check (verify.c) builds one vctx per plan and runs the
 * families in a fixed order: placements (verify_fit.c), evictions and
 * moves (verify_preempt.c), capacity (verify_fit.c), capacity by
 * priority and PodDisruptionBudgets (verify_preempt.c), groups,
 * CompositePodGroup trees and topology annotations (verify_gang.c),
 * waiting entries (verify.c), device claims (verify_dra.c).  Each family
 * reads the snapshot and the plan, and the per-pod and per-node tables the
 * earlier ones filled; it reports through wv_viol.  Nothing here may come
 * from src/reduce or src/solve (doc/preemption.md "Verifier").
 */
#ifndef WASP_VERIFY_INT_H
#define WASP_VERIFY_INT_H

#include "plan/verify.h"

#include <stdint.h>

#include "model/quantity.h"

/* --------------------------------------------------------- name tables */

/* Open addressing over (namespace, name) keys, built by the verifier
 * itself (verify.c). */
typedef struct hent {
	const char *a, *b; /* namespace (or ""), name */
	int v;
} hent;

typedef struct htab {
	hent *e;
	size_t mask;
} htab;

int wv_ht_init(htab *t, wa_arena *a, size_t n);
/* Keeps the first entry of a duplicated key. */
void wv_ht_put(htab *t, const char *a, const char *b, int v);
/* The value of (a, b), -1 when absent. */
int wv_ht_get(const htab *t, const char *a, const char *b);

/* ------------------------------------------------------------- report */

/* The verifier's state for one plan (wv_check builds it). */
typedef struct vctx {
	const ws_snapshot *s;
	const wasp_plan *p;
	wa_arena *a;
	char *buf;
	size_t len, cap;
	size_t nviol;
	bool nomem;
	bool path;         /* domain mode of the plan */
	htab pods, nodes, groups;
	int *pod_node;     /* npods: node the plan puts the pod on, -1     */
	int *pod_place;    /* npods: placement index, -1                   */
	int64_t *placed;   /* nnodes * nres: placed requests                */
	int *g_placed;     /* ngroups: valid placements per group          */
	int *pod_evict;    /* npods: eviction index, -1                    */
	int64_t *evicted;  /* nnodes * nres: requests the plan evicts       */
	bool any_evict;
	int *pod_moved;    /* npods: node a move takes the pod to, -1      */
	int32_t *dv_prio;  /* per device: freed by evicting pods of this
			      priority at most (INT32_MIN: not freed)    */
	/* path mode: level lists already worked out, per key */
	const char **lv_key;
	const char ***lv_list;
	int *lv_n;
	int nlv;
} vctx;

/* One violation: a line of text appended to the report (verify.c). */
__attribute__((format(printf, 2, 3)))
void wv_viol(vctx *v, const char *fmt, ...);

/* Small helpers of every family. */
static inline const char *nz(const char *s)
{
	return s ? s : "";
}

static inline char *qty(const vctx *v, int r, int64_t milli, char *buf,
			size_t n)
{
	return wq_format(milli, wq_is_bytes_resource(v->s->res[r]), buf, n);
}

static inline int64_t sat_add(int64_t a, int64_t b)
{
	int64_t c;
	if (__builtin_add_overflow(a, b, &c))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return c;
}

/* A pod's priority: its group's when it has one. */
static inline int32_t pod_prio(const ws_snapshot *s, const ws_pod *pod)
{
	return pod->group >= 0 ? s->groups[pod->group].priority
			       : pod->priority;
}

/* ------------------------------------------------------------ families */

/* verify_fit.c: node fit and capacity. */
void wv_check_placements(vctx *v);
void wv_check_capacity(vctx *v);

/* verify_preempt.c: evictions, moves, budgets, capacity by priority. */
void wv_check_evictions(vctx *v);
void wv_check_moves(vctx *v);
void wv_check_pdbs(vctx *v);
void wv_check_priority_rows(vctx *v);

/* verify_gang.c: gangs, trees, topology domains and annotations. */
void wv_check_groups(vctx *v);
void wv_check_trees(vctx *v);
void wv_check_annotations(vctx *v);

/* verify_dra.c: device claims. */
void wv_check_devices(vctx *v);

#endif
