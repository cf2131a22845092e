/*
 * topup.h -- pods past a group's minimum, added to a finished plan
 * (doc/formulation.md §12, "Topping up").
 *
 * A gang evicts for its minimum only while greedy builds a plan, and the
 * neighbourhood search re-solves groups only inside its domains: a gang
 * without a key, or a domain the search never frees, keeps pods it could
 * run where the room is there or could be made by evicting lower
 * priorities.  wtu_topup walks the admitted groups (highest priority
 * first, smallest pods first within a priority) and places what they
 * still have in the domain their pods hold: on free room first, then on
 * room that evicting running units of strictly lower priority makes (the
 * cheapest units of a node first, kept only when a pod then fits).  Then
 * exchanges at each priority: a gang's pods past its minimum, node by
 * node, and then the whole gang, make way for more, smaller pods of its
 * priority, each kept only when it gains pods.  Last, nodes are cleared
 * for larger pods: smaller pods of the priority move to fragments, where
 * lower priorities give way, so that a larger pod gets a node whole.
 * Then exchanges run once more, into room no one took: a waiting gang
 * of pods as large as those of the gang making way may join with that
 * room too, lower groups' planned pods there giving way.  Every pod
 * added is work at its tier, above every lower tier's, so the plan only
 * gets better by the lexicographic objective; it is checked whole
 * (wp_sol_feasible) and kept only then.
 */
#ifndef WASP_TOPUP_H
#define WASP_TOPUP_H

#include "base/clock.h"
#include "reduce/problem.h"

/* How a top-up may pack each level's small pods tight in their domains
 * first (topup_repack.c); each way up to the one named is tried from
 * the same plan and the best result kept. */
typedef enum wtu_pack {
	WTU_PACK_NONE,  /* no packing                                  */
	WTU_PACK_FREE,  /* ... and packed in room free at their level  */
	WTU_PACK_EVICT, /* ... and packed evicting lower pods          */
	WTU_PACK_YIELD  /* ... and packed evicting, lower pending pods
			   giving way                                 */
} wtu_pack;

typedef struct wtu_stats {
	int pods;    /* pods added                           */
	int groups;  /* groups that got some                 */
	int evicted; /* running pods evicted for them         */
	int traded;  /* gangs that made way for more pods      */
	int joined;  /* waiting gangs admitted in their room   */
	int cleared; /* nodes cleared for larger pods          */
	int cleared_pods;  /* pods placed on them           */
	int cleared_gangs; /* waiting gangs admitted there   */
	int gave_way;      /* lower groups that waited for them
			      (or for an exchange into idle room) */
	int packed;        /* pods taken off and put back to pack
			      their level tight                   */
	wtu_pack packed_by; /* ... how (WTU_PACK_NONE: not)       */
	int yielded;       /* lower groups that waited for it      */
	int shifted;       /* gangs moved whole to another domain
			      to clear them                       */
	bool late;   /* the deadline stopped it (what it added
			by then is kept)                      */
} wtu_stats;

/* Whether the top-up handles p: no device claims (their devices are
 * allocated pod by pod), no moves, no CompositePodGroup trees. */
bool wtu_applies(const wp_problem *p);

/* Top s up in place (s feasible on entry), adding nothing more once dl
 * has passed, packing as pack says.  When the result is not feasible or
 * not better, s is left as it was and st->pods is 0.  -1 on NOMEM (s
 * unchanged). */
int wtu_topup(const wp_problem *p, wp_sol *s, wb_deadline dl, wtu_pack pack,
	      wtu_stats *st);

#endif
