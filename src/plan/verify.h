/*
 * verify.h -- the independent checker.
 *
 * Re-checks a plan against the snapshot, not against the reduced problem, so
 * that a bug in the reduction or a solver is caught: every placed pod exists,
 * is pending and lands on an existing schedulable node that it tolerates and
 * selects; per node and resource the bound pods plus the placed pods fit the
 * allocatable; each gang is placed with at least minCount pods (counting
 * those running) or not at all; a group with a topology key sits in one
 * domain of it (read in the plan's domain mode); evictions, moves,
 * budgets and device claims are recounted too.  It shares the snapshot
 * model, its static predicates and the DRA evaluator (src/model), never
 * the reduction or a solver.  verify.c is the driver; the families live in
 * verify_fit.c, verify_preempt.c, verify_gang.c and verify_dra.c
 * (verify_int.h).
 */
#ifndef WASP_VERIFY_H
#define WASP_VERIFY_H

#include "plan/plan.h"

/* Appends one line per violation to *report (arena of the caller's choice)
 * and returns the count in *nviol.  Errors (WASP_EINPUT for a plan that
 * names no such pod/node is a violation, not an error) only for NOMEM. */
int wv_check(const ws_snapshot *s, const wasp_plan *p, wa_arena *a,
	     size_t *nviol, char **report, wasp_error *err);

#endif
