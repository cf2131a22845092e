/* ilp.c -- stub until the ILP translator lands: reports "not built". */
#include "ilp.h"

void wilp_estimate(const wp_problem *p, int *rows, int *cols, long *nonzeros)
{
	*rows = *cols = 0;
	*nonzeros = 0;
}

int wilp_solve(const wp_problem *p, const wasp_options *o, double deadline,
	       const wp_sol *warm, wp_sol *out, wilp_stats *st,
	       wasp_error *err)
{
	return werr(err, WASP_ESOLVER, "the ILP solver is not built yet");
}

int wilp_export(const wp_problem *p, const wasp_options *o, int format,
		const char *path, wasp_error *err)
{
	return werr(err, WASP_ESOLVER, "the ILP export is not built yet");
}
