/*
 * clock.h -- the monotonic clock and the one deadline type every stage
 * uses.
 *
 * A deadline is an absolute time on wb_now()'s clock, or none (at =
 * INFINITY).  Options say "no limit" as a time limit <= 0; wdl_after turns
 * that into none, so no stage tests for both "<= 0" and "INFINITY".
 * Solvers stop a margin before the deadline so that what follows them
 * (building the plan, rendering) still fits; the margins are named here.
 */
#ifndef WASP_CLOCK_H
#define WASP_CLOCK_H

#include <math.h>
#include <stdbool.h>

/* Seconds on a monotonic clock (CLOCK_MONOTONIC). */
double wb_now(void);

typedef struct wb_deadline {
	double at; /* wb_now() seconds; INFINITY: none */
} wb_deadline;

/* What GLPK and the part solver keep back for reading the answer out and
 * building the plan. */
#define WDL_MARGIN_ILP_S 0.2
/* What the ILP keeps back inside its own phases (LP, then branching). */
#define WDL_MARGIN_PHASE_S 0.1

static inline wb_deadline wdl_none(void)
{
	return (wb_deadline){INFINITY};
}

/* `at` in wb_now() seconds; at <= 0 (the old convention) means none. */
static inline wb_deadline wdl_at(double at)
{
	return (wb_deadline){at > 0 ? at : INFINITY};
}

/* `seconds` after `start`; seconds <= 0 means none. */
static inline wb_deadline wdl_after(double start, double seconds)
{
	return (wb_deadline){seconds > 0 ? start + seconds : INFINITY};
}

static inline bool wdl_is_none(wb_deadline d)
{
	return isinf(d.at);
}

/* Seconds left before the deadline less `margin` (INFINITY for none; may
 * be negative). */
static inline double wdl_left(wb_deadline d, double margin)
{
	return isinf(d.at) ? INFINITY : d.at - margin - wb_now();
}

/* Has the deadline (less `margin`) passed? */
static inline bool wdl_passed(wb_deadline d, double margin)
{
	return !isinf(d.at) && wb_now() >= d.at - margin;
}

/* `seconds` before d (none stays none): the deadline of a step that must
 * leave that much for what follows it. */
static inline wb_deadline wdl_sooner(wb_deadline d, double seconds)
{
	return wdl_at(d.at - seconds);
}

#endif
