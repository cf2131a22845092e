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

#include "plan/plan.h"
#include "reduce/problem.h"

int wrb_rebalance(const ws_snapshot *s, const wtp_topo *t,
		  const wasp_options *o, wasp_plan *pl, wasp_error *err);

#endif
