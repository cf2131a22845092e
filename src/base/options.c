/*
 * options.c -- the defaults of wasp_options and their range check
 * (options.h).
 */
#include "base/options.h"

#include <string.h>

#include "base/error.h"

void wopt_init(wasp_options *o)
{
	memset(o, 0, sizeof *o);
	o->time_limit_s = WASP_DEFAULT_TIME_LIMIT_S;
	o->gap = 0;
	o->threads = 0;
	o->mode = WASP_MODE_AUTO;
	o->domain_mode = WASP_DOMAIN_VALUE;
	o->value_resource = NULL;
	o->cancel = NULL;
	o->start_time = 0;
}

/* Upper bounds of the checked ranges (doc/library.md, "Options"). */
#define WOPT_MAX_TIME_S (365.0 * 24 * 3600)
#define WOPT_MAX_GAP 1.0

int wopt_check(const wasp_options *o, wasp_error *err)
{
	if (!o)
		return werr(err, WASP_EINVAL, "options: NULL");
	/* !(x >= lo) also catches NaN */
	if (!(o->time_limit_s <= WOPT_MAX_TIME_S) &&
	    !(o->time_limit_s <= 0))
		return werr(err, WASP_EINVAL, "options: time_limit_s %g: "
			    "expected a number of seconds up to %.0f (<= 0: "
			    "no limit)", o->time_limit_s, WOPT_MAX_TIME_S);
	if (!(o->gap >= 0 && o->gap <= WOPT_MAX_GAP))
		return werr(err, WASP_EINVAL, "options: gap %g: expected "
			    "0 to %g", o->gap, WOPT_MAX_GAP);
	if (o->threads < 0 || o->threads > WASP_MAX_THREADS)
		return werr(err, WASP_EINVAL, "options: threads %d: expected "
			    "0 (the runtime default) to %d", o->threads,
			    WASP_MAX_THREADS);
	if (o->mode < WASP_MODE_AUTO || o->mode > WASP_MODE_BESTFIT)
		return werr(err, WASP_EINVAL, "options: mode %d: expected "
			    "%d (auto) to %d (bestfit)", o->mode,
			    WASP_MODE_AUTO, WASP_MODE_BESTFIT);
	if (o->domain_mode != WASP_DOMAIN_VALUE &&
	    o->domain_mode != WASP_DOMAIN_PATH)
		return werr(err, WASP_EINVAL, "options: domain_mode %d: "
			    "expected %d (value) or %d (path)", o->domain_mode,
			    WASP_DOMAIN_VALUE, WASP_DOMAIN_PATH);
	if (!(o->start_time >= 0))
		return werr(err, WASP_EINVAL, "options: start_time %g: "
			    "expected wasp_now() or 0", o->start_time);
	if (o->rebalance != 0 && o->rebalance != 1)
		return werr(err, WASP_EINVAL, "options: rebalance %d: "
			    "expected 0 or 1", o->rebalance);
	if (o->max_moves < 0)
		return werr(err, WASP_EINVAL, "options: max_moves %d: "
			    "expected 0 (no limit) or more", o->max_moves);
	if (o->node_model != 0 && o->node_model != 1)
		return werr(err, WASP_EINVAL, "options: node_model %d: "
			    "expected 0 or 1", o->node_model);
	if (o->export_top_tier != 0 && o->export_top_tier != 1)
		return werr(err, WASP_EINVAL, "options: export_top_tier %d: "
			    "expected 0 or 1", o->export_top_tier);
	if (o->work_limit < 0)
		return werr(err, WASP_EINVAL, "options: work_limit %ld: "
			    "expected 0 (the clock) or more", o->work_limit);
	if (o->preempt != WASP_PREEMPT_LOWER && o->preempt != WASP_PREEMPT_NEVER)
		return werr(err, WASP_EINVAL, "options: preempt %d: expected "
			    "WASP_PREEMPT_LOWER or WASP_PREEMPT_NEVER",
			    o->preempt);
	if (o->max_evictions < 0)
		return werr(err, WASP_EINVAL, "options: max_evictions %d: "
			    "expected 0 (no limit) or more", o->max_evictions);
	if (o->max_memory != 0 && o->max_memory < WASP_MIN_MEMORY)
		return werr(err, WASP_EINVAL, "options: max_memory %zu: "
			    "expected 0 (no limit) or at least %d bytes",
			    o->max_memory, WASP_MIN_MEMORY);
	if (o->solver != WASP_SOLVER_GLPK && o->solver != WASP_SOLVER_CBC)
		return werr(err, WASP_EINVAL, "options: solver %d: expected "
			    "WASP_SOLVER_GLPK or WASP_SOLVER_CBC", o->solver);
	return WASP_OK;
}
