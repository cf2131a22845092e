/*
 * units.h -- workload-aware preemption, the solver-neutral part
 * (KEP-5710; doc/preemption.md, doc/formulation.md §4b).
 *
 * Running pods are grouped into disruption units (wp_unit): a pod of a
 * `single` group or without a group is its own unit, an `all` group is one
 * unit across all its nodes.  A pending group may evict only units of
 * strictly lower priority, and not at all under preemptionPolicy Never.
 * Capacity freed by an eviction serves only pods of strictly higher
 * priority than the victim; per node n, resource r and pending level p:
 *
 *   sum_{c: prio(c) <= p} req*x + sum_{u: prio(u) >= p} use
 *       + sum_{u: prio(u) < p} use*(1 - e[u]) <= alloc
 *
 * wpe_check_rows checks exactly that (rows at every level a placed pod
 * has on the node; the others are implied), for the solvers' own checks.
 */
#ifndef WASP_UNITS_H
#define WASP_UNITS_H

#include "reduce/problem.h"

/* Build p->units from the snapshot (wp_reduce calls it).  -1 on NOMEM. */
int wpe_units(wp_problem *p, wa_arena *a);

/* May problem group g evict anything (valid, policy not Never)? */
bool wpe_may_preempt(const wp_problem *p, int g);
/* Is group g under preemptionPolicy Never (lone pods: any of them)? */
bool wpe_never(const wp_problem *p, int g);
/* Such groups use no room that evictions freed: on every node with an
 * eviction their pods fit the free room before any (moves counted as
 * in wpe_check_rows).  0 when they do, else -1 and *why (static). */
int wpe_check_never(const wp_problem *p, const wp_sol *s, const char **why);

/* Credit each evicted unit of s (s->evict set, s->x and s->admit final)
 * to the highest-priority admitted group that may preempt, outranks it
 * and places pods on one of its nodes (s->evict_by); an eviction no such
 * group needs is dropped.  -1 on NOMEM (nothing changed). */
int wpe_credit(const wp_problem *p, wp_sol *s);

/* The highest priority of the groups that may preempt (false: none
 * may); units below it, not protected, are the ones the solvers may
 * evict. */
bool wpe_top_priority(const wp_problem *p, int32_t *maxp);

/* The eviction tier's range (both ILP models weigh it alike): over the
 * evictable units (below wpe_top_priority, not protected) the sum of
 * pods times weight, and the largest such cost of one unit.  False when
 * no unit is evictable. */
bool wpe_evict_range(const wp_problem *p, double *range, double *maxcost);

/* The capacity-by-priority rows on every node with an eviction: 0 when
 * they hold, else -1 and *why (static text). */
int wpe_check_rows(const wp_problem *p, const wp_sol *s, const char **why);
/* The same on the nodes nodes[0..nn) only (distinct): where a solution
 * changed on those nodes alone. */
int wpe_check_rows_on(const wp_problem *p, const wp_sol *s,
		      const int *nodes, int nn, const char **why);

/* Does PodDisruptionBudget b select pod? */
bool wpe_pdb_selects(const ws_pdb *b, const ws_pod *pod);
/* Disruptions b allows now: status.disruptionsAllowed, else
 * currentHealthy - desiredHealthy, else computed from the running pods it
 * selects (minAvailable / maxUnavailable, percentages rounded up). */
int wpe_pdb_allowed(const ws_snapshot *s, const ws_pdb *b);
/* PDB violations of the solution's evictions: the sum over budgets of
 * the evicted pods they select beyond what they allow. */
int wpe_pdb_violations(const wp_problem *p, const wp_sol *s);

/* Pods evicted by the solution. */
int wpe_evicted_pods(const wp_problem *p, const wp_sol *s);

/* Do two units fall under the same PodDisruptionBudgets with the same
 * pod counts (so that evicting one or the other costs the same)? */
bool wpe_same_budgets(const wp_unit *x, const wp_unit *y);

#endif
