/*
 * movable.h -- which running pods may move and how (part of the
 * reduction; doc/preemption.md "Rebalancing").
 *
 * A pod may move when its disruption touches nobody else: lone pods and
 * pods of `single` groups without a topology constraint, and never those
 * --protect selects.  wrb_classes gives the ILP its move classes.
 */
#ifndef WASP_MOVABLE_H
#define WASP_MOVABLE_H

#include "reduce/problem.h"

/* May this running pod move?  Lone pods and pods of `single`
 * groups without topology constraints, annotations or a parent
 * composite, without device claims; never those sel selects. */
bool wrb_movable(const ws_snapshot *s, int pi, const ws_expr *sel,
		 int nsel);
/* (wp_reduce with --rebalance) p->mcls, p->unit_mc and
 * p->max_moves from the units (--protect already applied).  -1: NOMEM. */
int wrb_classes(wp_problem *p, const wasp_options *o, wa_arena *a);

/* Parse a label selector "k=v,k!=v,k,!k" (also "==").  Returns the count
 * of requirements or -1 on a syntax error; *out in the arena. */
int wrb_selector(wa_arena *a, const char *text, ws_expr **out);
/* Does every requirement hold on the pod's labels? */
bool wrb_selects(const ws_expr *sel, int n, const ws_pod *pod);

#endif
