/*
 * version_fast.c -- the incremental path of wasp_snapshot_apply
 * (version_int.h): deltas that add or replace Pods and add PodGroups.
 */
#include "model/version_int.h"

int vs_apply_fast(const ws_snapshot *base, const wasp_delta *d,
		  ws_snapshot **out, wasp_error *err)
{
	(void)base;
	(void)d;
	(void)out;
	(void)err;
	return 1;
}
