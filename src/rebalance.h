/*
 * rebalance.h -- nightly rebalancing (wasp plan --rebalance): move running
 * pods so that whole domains of the finest topology key (whose domains
 * hold more than one node) become free.
 *
 * Works on a finished plan (placements and evictions stand): a domain is
 * emptied when all its running pods can move, within --max-moves, to
 * busy nodes outside it that fit them (static predicates and capacity) and
 * have no evictions.  Only pods whose disruption touches nobody else move:
 * lone pods and pods of `single` groups without a topology constraint,
 * and never those --protect selects.  The plan gets the moves and the
 * wholly free domains per key before and after.
 */
#ifndef WASP_REBALANCE_H
#define WASP_REBALANCE_H

#include "plan.h"
#include "problem.h"

/* Issue 6: may this running pod move?  Lone pods and pods of `single`
 * groups without topology constraints, annotations or a parent
 * composite, without device claims; never those sel selects. */
bool wrb_movable(const ws_snapshot *s, int pi, const ws_expr *sel,
		 int nsel);
/* Issue 6 (wp_reduce with --rebalance): p->mcls, p->unit_mc and
 * p->max_moves from the units (--protect already applied).  -1: NOMEM. */
int wrb_classes(wp_problem *p, const wasp_options *o, wa_arena *a);

int wrb_rebalance(const ws_snapshot *s, const wtp_topo *t,
		  const wasp_options *o, wasp_plan *pl, wasp_error *err);

/* Parse a label selector "k=v,k!=v,k,!k" (also "==").  Returns the count
 * of requirements or -1 on a syntax error; *out in the arena. */
int wrb_selector(wa_arena *a, const char *text, ws_expr **out);
/* Does every requirement hold on the pod's labels? */
bool wrb_selects(const ws_expr *sel, int n, const ws_pod *pod);

#endif
