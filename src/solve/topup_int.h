/*
 * topup_int.h -- the top-up's state, shared by its files: topup.c (the
 * fill and the trades), topup_repack.c (packing the small pods tight)
 * and topup_clear.c (clearing nodes for larger pods).  Internal to solve/.
 */
#ifndef WASP_TOPUP_INT_H
#define WASP_TOPUP_INT_H

#include "solve/topup.h"
#include "base/arena.h"
#include "reduce/units.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct tstate {
	const wp_problem *p;
	wp_sol *s;
	wa_arena *a;
	int nl, nres;
	int32_t *lv;        /* pending priorities, highest first           */
	int64_t *cap;       /* nnodes * nres                               */
	int64_t *lhs;       /* (nnodes * nl + L) * nres: the rows' sums     */
	int *ustart, *ulist; /* node -> units with a pod there (CSR)       */
	int *ulog;          /* the units make_room may evict on a node     */
	int evicted;        /* pods evicted so far (the plan's)            */
	/* what the top-up did, to take it back: pods added per slot (the
	 * units it evicted or let run again: rl) */
	struct xent {
		int slot, k;
	} *xl;
	size_t nxl, xcap;
	int *jw;            /* a trade's wanting groups (scratch)          */
	int *spare, nspare; /* trades into idle room: nodes where a waiting
			       gang's pod fits (none: no such trades)     */
	long *sroom;        /* per waiting group: its pods spare[] holds,
			       2 ng (the rest scratch)                    */
	unsigned char *ysp; /* per node: in spare[] only were lower groups'
			       planned pods there gone                    */
	int64_t *yuse;      /* nnodes * nres: those pods' requests        */
	int *ybeg, *yg;     /* node -> those groups (CSR)                 */
	int64_t *yused;     /* nres scratch                               */
	int *ebeg, *eu;     /* then: group -> the units it evicted (CSR),
			       for the groups below elev; NULL: none      */
	int32_t elev;
	unsigned char *topped; /* per group: group() added pods           */
	int *drop;          /* groups a trade made wait                   */
	size_t ndrop, dcap;
	struct aent {       /* waiting groups a trade admitted, and their
			       reasons                                    */
		int g;
		const char *why;
	} *adm;
	size_t nadm, acap;
	/* units the top-up evicted, whose evicting group it changed, or
	 * that it let run again: what they were before */
	struct rent {
		int u, by;
	} *rl;
	size_t nrl, rcap;
	long *ch, *gh;      /* pods placed per class and per group         */
	/* groups that may not preempt may not use room that evictions
	 * freed either (doc/preemption.md): their pods on a node stay
	 * within its free room before any eviction, less what such groups
	 * took there (greedy's never_cap) */
	unsigned char *never;  /* per group                              */
	int64_t *nv;           /* nnodes * nres: their pods' requests     */
	int *gdom;          /* per group: the domain its pods hold, -1     */
	const int *obeg, *occ; /* while clearing: node -> slots (cstate) */
	const int *occc;       /* ... and their classes                  */
	int64_t *lvuse;     /* while clearing: nnodes * nres, the requests
			       of the pending pods of level lvli          */
	int lvli;
	wb_deadline dl;
	bool late;          /* the deadline came: stop adding              */
	bool nomem;
} tstate;

/* min(best, the pods of request req that room - used takes). */
int64_t wtu_fits_in(const int64_t *room, const int64_t *used,
		       const int64_t *req, int nres, int64_t best);
/* Pods of class c (at level li) that fit on node n now. */
int64_t wtu_fit(const tstate *T, int c, int li, int n);
/* Unit u evicted (by group g) or, g < 0, running again. */
void wtu_set_evicted(tstate *T, int u, int g);
/* Evict the cheapest units on node n that group g may evict until a pod
 * of class c fits (logged for wtu_take_back); pods that fit after, 0
 * when nothing changed. */
int64_t wtu_make_room(tstate *T, int g, int c, int li, int n, int *tmp);
/* k pods (k < 0: taken off) of slot's class on its node, logged. */
void wtu_put(tstate *T, int slot, int k);
/* Back to pod log mark m, rows included. */
void wtu_back_to(tstate *T, size_t m);
/* Where the top-up's logs stand: pods (xl), units (rl) and groups made
 * to wait (drop). */
typedef struct wtu_mark {
	size_t x, r, d;
} wtu_mark;
wtu_mark wtu_mark_now(const tstate *T);
/* Back to mark m in all three: the groups made to wait since then
 * admitted again, the units, the pods. */
void wtu_undo_to(tstate *T, wtu_mark m);
/* Is a row of node n over its capacity? */
bool wtu_node_over(const tstate *T, int n);
/* ... on one of unit u's nodes? */
bool wtu_unit_over(const tstate *T, int u);
/* Unit u evicted by g (g < 0: running), logged for wtu_take_back. */
void wtu_relog(tstate *T, int u, int g);
/* Back to unit log mark m. */
void wtu_take_back(tstate *T, size_t m);
/* Gang d waits: the units it evicted run again where their room is
 * free, else go to a group that took their node (the pod log since
 * xmark, or any while clearing).  False when one can be neither. */
bool wtu_rehome(tstate *T, int d, size_t xmark);
/* May waiting group g be admitted by a trade or a clearing? */
bool wtu_joinable(const tstate *T, int g);

/* Pods of class c that would fit on node n were every unit there that
 * group g may evict gone; nothing changes. */
int64_t wtu_fit_evicting(tstate *T, int g, int c, int li, int n);

/* May group g's pods move within the domain they hold? */
bool wtu_movable(const tstate *T, int g);
/* The small pods of each level packed tight, best fit decreasing in
 * their domains, as pack says (topup.h; topup_repack.c). */
void wtu_repack(tstate *T, const double *sz, wtu_pack pack, wtu_stats *st);

/* May group h wait altogether so that pods of level li get its room: an
 * admitted group below li with no running pods, tree or annotations
 * (topup_clear.c). */
bool wtu_may_wait(const tstate *T, int h, int li);
/* Group h waits: its pods off, the units it evicted rehomed (rehome,
 * with the log since xmark).  False, with nothing changed, when one of
 * them can be neither (topup_clear.c). */
bool wtu_drop(tstate *T, int h, size_t xmark);
/* The groups dropped since log mark m are admitted again. */
void wtu_readmit_to(tstate *T, size_t m);

/* Clearing nodes for larger pods at each priority (topup_clear.c). */
void wtu_clears(tstate *T, const int *cand, int nc, const double *sz,
		wtu_stats *st);

#endif
