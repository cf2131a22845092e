/*
 * place.h -- one group at a time, for scheduler plugins (wasp_place;
 * doc/library.md, "Scheduler plugins").
 *
 * The group is placed by an ordinary run (run.h) on a view of the
 * snapshot in which the other pending pods are left out: running and
 * assumed pods stay where they are and count as they do for wasp_solve,
 * so the fit, the evictions and the waiting reasons come from the same
 * code, and wasp_check accepts the plan against the snapshot itself.
 */
#ifndef WASP_PLACE_H
#define WASP_PLACE_H

#include "plan/plan.h"

/* Place the PodGroup, the Workload's PodGroups or the CompositePodGroup
 * tree (enum wasp_group_kind) `ns`/`name` within deadline_ms (0: the
 * default).  A PodGroup or CompositePodGroup inside a tree places the
 * whole tree: a tree is admitted as one.  WASP_ENOTFOUND when nothing of
 * that name is pending or bound. */
int wsv_place(const ws_snapshot *s, int kind, const char *ns,
	      const char *name, const wasp_options *o, unsigned deadline_ms,
	      wasp_plan **out, wasp_error *err);

#endif
