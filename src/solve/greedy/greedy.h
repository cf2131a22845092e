/*
 * greedy.h -- the greedy core: always returns an answer, fast.
 *
 * Groups by priority, then most constrained (fewest candidate domains),
 * then largest; a gang is placed whole (at least min_need pods, then extra
 * pods while they fit) or not at all; a required topology key picks the
 * tightest domain that fits; pods go best-fit onto nodes.  Results do not
 * depend on the thread count.  The files of this folder, by phase, are
 * listed in greedy_int.h.
 */
#ifndef WASP_GREEDY_H
#define WASP_GREEDY_H

#include "base/clock.h"
#include "reduce/problem.h"

/* Fills sol (which must come from wp_sol_new), including a reason for every
 * waiting group.  Lone pods (a pseudo group, sg = -1) are admitted when any
 * of them is placed; if some did not fit, reason[g] says why those wait
 * (plan.c gives it to each unplaced lone pod). */
/* The run's time limit (o->time_limit_s from o->start_time, else from the
 * call) is checked before each group: a pass
 * cut short keeps the groups placed so far, and each group it did not
 * reach waits with reason wgr_reason_late (wgr_count_late counts them). */
extern const char wgr_reason_late[];
int wgr_count_late(const wp_problem *p, const wp_sol *sol);
int wgr_solve(const wp_problem *p, const wasp_options *o, wp_sol *sol,
	      wasp_error *err);
/* The same; with preempt false no running unit is evicted (the ILP's
 * cross-checks use it while the ILP does not model preemption). */
int wgr_solve_ex(const wp_problem *p, const wasp_options *o, wp_sol *sol,
		 bool preempt, wasp_error *err);

/* The same with the groups of each priority level in a perturbed
 * largest-first order drawn from seed (> 0): the restarts that look for
 * tighter packings (wgr_restarts). */
int wgr_solve_seeded(const wp_problem *p, const wasp_options *o,
		     wp_sol *sol, uint64_t seed, wasp_error *err);
/* The same (seed 0: wgr_solve's order) led by hint (ngroups): a group
 * with hint[g] >= 0 goes first within its priority level and, where it
 * has a key and no domain of its own, is held to domain hint[g] of it
 * (a gang that then waits says so, not that running pods pin it): the
 * pass that follows the bound's whole-gang MIP (run/lead.c).  clear: every
 * running unit the top level may evict is evicted before that level is
 * placed, and those whose pods still fit run again after it (the MIP
 * counts the top level's room with them gone; led.c). */
int wgr_solve_led(const wp_problem *p, const wasp_options *o, wp_sol *sol,
		  uint64_t seed, const int *hint, bool clear,
		  wasp_error *err);
/* A hint for wgr_solve_led that leads back to plan sol: the top
 * priority level's admitted groups, each in the domain of its first pod
 * (0 without a key); with also (ngroups, or NULL), the level's waiting
 * groups in also's domain (a bound's answer); every other group -1
 * (ngroups).  Returns how many were given one (led.c). */
int wgr_led_hint(const wp_problem *p, const wp_sol *sol, const int *also,
		 int *hint);
/* The seed of the pass that takes, within each priority level, the
 * groups with the smallest pods first (order.c); wgr_restarts runs it
 * before the others. */
#define WGR_SEED_SMALL ((uint64_t)1 << 63)
/* The seed of the pass that keeps greedy's order but places, within each
 * priority level, every group with a required key before the groups
 * without one (order.c); wgr_restarts runs it before the numbered seeds.
 * A group without a key may use any node, yet its one candidate domain,
 * the cluster, puts it first in greedy's most-constrained order. */
#define WGR_SEED_KEYED ((uint64_t)1 << 62)
/* The passes in fixed orders that wgr_restarts runs before its numbered
 * seeds, in order: WGR_SEED_SMALL where nothing may be evicted, then
 * WGR_SEED_KEYED.  Their seeds into lead[0..); returns how many. */
#define WGR_RESTART_LEADS 2
int wgr_restart_leads(const wp_problem *p,
		      uint64_t lead[WGR_RESTART_LEADS]);

/* wgr_solve (with preemption) that also recounts the domain index
 * (index.c) from scratch after every group: *checks recounts made, *bad
 * those that differed from the incrementally kept totals; and that
 * scores the victim search's domains on o->threads threads however few
 * there are; every answer the victim search's memo (pcache.c) gives is
 * searched anyway and compared, and so is every search over the cluster
 * that took its victims without scanning the nodes (counted in *checks
 * and *bad; hits, may be NULL: [0] the memo's answers, [1] the cluster
 * searches without the scan, [2] the node lists, fit sums and best-fit
 * orders the room tree (room.c) gave, each compared with a scan, [3] the
 * domains the domain tree (dtree.c) kept, each list compared with a loop
 * over the domains).  For tests. */
int wgr_solve_checked(const wp_problem *p, const wasp_options *o,
		      wp_sol *sol, int *checks, int *bad, int *hits,
		      wasp_error *err);

/* Seeded passes 1..n (stopping once `until` passes, or on cancel),
 * several at once on o->threads threads: each feasible plan better than
 * best in the lexicographic objective replaces it, taken in seed order
 * so the result does not depend on the thread count.  They also stop
 * at a plan that meets the packing bound, and once the passes since the
 * last improvement outnumber WGR_RESTART_PATIENCE times those before it
 * (and WGR_RESTART_MIN): a small problem's plans repeat long before
 * 8192 passes.  *ran: passes made; *better: improvements. */
#define WGR_RESTARTS 8192
#define WGR_RESTART_MIN 1024
#define WGR_RESTART_PATIENCE 64
/* ... and stop once they have added this much to the problem's arena
 * (with device claims, where each pass allocates there) */
#define WGR_RESTART_MEM ((size_t)64 << 20)
/* Threads the passes run on, at most. */
#define WGR_RESTART_THREADS 16
/* Cheap passes are run up to this many per thread in one parallel
 * region, so that a region lasts about WGR_REGION_S seconds. */
#define WGR_RESTART_CHUNK 64
#define WGR_REGION_S 0.02
int wgr_restarts(const wp_problem *p, const wasp_options *o, int n,
		 wb_deadline until, wp_sol *best, int *ran, int *better,
		 wasp_error *err);

/* DRA: allocate the devices of every pod another solver (the ILP) placed,
 * group by group in problem order, and attach the allocations to sol.
 * 0: done; 1: some pod could not get its devices (sol->dra untouched);
 * -1: NOMEM. */
int wgr_assign_devices(const wp_problem *p, wp_sol *sol);

#endif
