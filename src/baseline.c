/* baseline.c -- stub: being written. */
#include "baseline.h"

int wbl_solve(const wp_problem *p, int mode, const wasp_options *o,
	      wp_sol *sol, wasp_error *err)
{
	return werr(err, WASP_EINVAL, "baselines are not built yet");
}
