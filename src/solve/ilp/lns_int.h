/*
 * lns_int.h -- the neighbourhood search's internals (lns.c drives,
 * lns_sub.c makes a neighbourhood's sub-problem and merges its answer;
 * doc/formulation.md §12).
 */
#ifndef WASP_LNS_INT_H
#define WASP_LNS_INT_H

#include "solve/ilp/ilp.h"
#include "base/sort.h"
#include "reduce/units.h"

#include <stdlib.h>
#include <string.h>

/* A neighbourhood has at most this many nodes (the size of the
 * instances GLPK proves in a second or two, bench/README.md). */
#define WLNS_MAX_NODES 32
/* A part neighbourhood (lns.c): domains of the search's key within one
 * domain of its parent key, at most this many nodes, so that groups
 * keyed to the parent (a block's gangs, where the search's domains are
 * racks) are freed and offered too; twice WLNS_MAX_NODES keeps its
 * sub-ILP about the size GLPK solves in the time (whole blocks of 156
 * nodes were too big, doc/formulation.md §12). */
#define WLNS_PART_NODES 64
/* A top neighbourhood (lns.c): domains of the search's key, at most
 * this many nodes, where only the top priority's groups are free or
 * offered, so that a gang keyed to one domain may move to another
 * (a block-keyed gang of small pods to the block whose pieces fit it,
 * its own block's room to a larger gang) in a sub-ILP small enough for
 * its time: everything else there stays. */
#define WLNS_TOP_NODES 64
/* lns_hood.focus_key: the top priority's groups of any key */
#define WLNS_FOCUS_TOP (-2)
/* Seconds a block neighbourhood's sub-ILP may take (lns.c,
 * block_hoods): at 0.4 s 59 of frag-10000's 64 were cut and the sweep
 * added 453 top-priority pods, at 1 s 15 were cut and it added 702. */
#define WLNS_BLOCK_SUB_S 1.0
/* The smallest-pods-first start (lns.c, alt_start) is made only when
 * the search has at least this long: a pass at 10,000 nodes takes a few
 * seconds. */
#define WLNS_ALT_MIN_S 15.0
/* Waiting groups offered to one neighbourhood, highest priority first,
 * then the smallest pods, round robin over a batch (lns_sub.c). */
#define WLNS_MAX_WAIT 16
/* Neighbourhoods solved side by side from one plan: a constant, so that
 * the plan does not depend on the thread count. */
#define WLNS_BATCH 4
/* Seconds one sub-ILP may take: short, so that a sweep tries many
 * neighbourhoods (most prove in well under a second); a sweep that
 * improves nothing but had sub-ILPs cut is followed by one with twice
 * the time, up to WLNS_SUB_MAX_S (lns.c). */
#define WLNS_SUB_S 0.4
#define WLNS_SUB_MAX_S 6.0
/* Sweeps over the domains; a sweep that improves nothing ends the
 * search (unless sub-ILPs were cut: see WLNS_SUB_S). */
#define WLNS_MAX_ROUNDS 12

/* One neighbourhood: its nodes, its sub-problem and the maps back. */
typedef struct lns_hood {
	int *nodes;          /* ascending                                 */
	int nnodes;
	const long *gin;     /* per group: its pods placed here            */
	const long *gtot;    /* per group: its pods placed anywhere        */
	wa_arena *a;         /* everything below                          */
	wp_problem *sub;     /* NULL: nothing to re-plan here              */
	int *gmap;           /* sub group -> problem group                */
	int *cmap;           /* sub class -> problem class                */
	int *umap;           /* sub unit -> problem unit                  */
	wp_sol *warm;        /* the plan's part here                      */
	wp_sol *out;
	bool solved, improved, proven;
	int wait_skip;       /* its place in the batch: which waiting groups
				it is offered (lns_sub.c)                  */
	int focus_key;       /* >= 0: a whole domain of this key, where
				only the top priority's groups keyed to it
				are free or offered (lns.c, block_hoods);
				WLNS_FOCUS_TOP: the top priority's groups
				of any key (lns.c, top neighbourhoods);
				-1: every group                           */
} lns_hood;

/* lns_sub.c */
/* Build h->sub from plan s (h->sub stays NULL when the neighbourhood
 * has nothing to re-plan); -1 NOMEM. */
int wlns_sub_build(const wp_problem *p, const wp_sol *s, lns_hood *h);
void wlns_sub_free(lns_hood *h);
/* What the search keeps of its plan between merges, so that a merge
 * looks at the neighbourhood only: the plan's value and, per group,
 * its pods placed (wlns_track_init from the whole plan). */
typedef struct lns_track {
	wp_value v;
	long *gtot;
} lns_track;
void wlns_track_init(const wp_problem *p, const wp_sol *s, lns_track *t);
/* Put h's answer into s when the whole plan stays feasible (checked
 * where the answer changed it: wp_sol_feasible_near) and gets better
 * (t: s's value and pods per group, updated): 1 taken, 0 not (s
 * unchanged), -1 NOMEM (s unchanged). */
int wlns_merge(const wp_problem *p, const lns_hood *h, wp_sol *s,
	       lns_track *t);

#endif
