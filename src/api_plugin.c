/*
 * api_plugin.c -- the scheduler-plugin part of the public API (wasp.h,
 * "incremental snapshots", "one group at a time"): argument checks in
 * front of the snapshot versions (model/version.h) and wasp_place
 * (run/place.h).  Nothing here prints or exits.
 */
#include "wasp.h"

#include <stdlib.h>

#include "base/error.h"
#include "base/options.h"
#include "model/version.h"
#include "plan/plan.h"
#include "run/place.h"

int wasp_delta_new(wasp_delta **out, wasp_error *err)
{
	if (!out)
		return werr(err, WASP_EINVAL, "wasp_delta_new: out is NULL");
	return ws_delta_new(out, err);
}

int wasp_delta_put(wasp_delta *d, const char *text, size_t len,
		   const char *name, wasp_error *err)
{
	if (!d || (!text && len))
		return werr(err, WASP_EINVAL, "wasp_delta_put: %s is NULL",
			    !d ? "delta" : "text");
	return ws_delta_put(d, text, len, name ? name : "<delta>", err);
}

int wasp_delta_delete(wasp_delta *d, const char *kind, const char *ns,
		      const char *name, wasp_error *err)
{
	if (!d || !kind || !name)
		return werr(err, WASP_EINVAL, "wasp_delta_delete: %s is NULL",
			    !d ? "delta" : !kind ? "kind" : "name");
	return ws_delta_delete(d, kind, ns, name, err);
}

void wasp_delta_free(wasp_delta *d)
{
	ws_delta_free(d);
}

int wasp_snapshot_apply(const wasp_snapshot *base, const wasp_delta *d,
			wasp_snapshot **out, wasp_error *err)
{
	if (out)
		*out = NULL;
	if (!base || !d || !out)
		return werr(err, WASP_EINVAL, "wasp_snapshot_apply: %s is NULL",
			    !base ? "base" : !d ? "delta" : "out");
	return ws_version_apply(base, d, out, err);
}

int wasp_place(const wasp_snapshot *s, int kind, const char *ns,
	       const char *name, const wasp_options *o,
	       unsigned deadline_ms, wasp_plan **out, wasp_error *err)
{
	if (out)
		*out = NULL;
	if (!s || !name || !out)
		return werr(err, WASP_EINVAL, "wasp_place: %s is NULL",
			    !s ? "snapshot" : !name ? "name" : "out");
	wasp_options def;
	if (!o) {
		wopt_init(&def);
		o = &def;
	}
	int rc = wopt_check(o, err);
	return rc ? rc : wsv_place(s, kind, ns, name, o, deadline_ms, out, err);
}

int wasp_snapshot_assume(const wasp_snapshot *base, const wasp_plan *p,
			 wasp_snapshot **out, wasp_error *err)
{
	if (out)
		*out = NULL;
	if (!base || !p || !out)
		return werr(err, WASP_EINVAL, "wasp_snapshot_assume: %s is "
			    "NULL", !base ? "base" : !p ? "plan" : "out");
	size_t n = wasp_plan_placement_count(p);
	ws_assumed *as = calloc(n + 1, sizeof *as);
	if (!as)
		return werr(err, WASP_ENOMEM, "out of memory");
	const char *target = wpl_target(p);
	for (size_t i = 0; i < n; i++) {
		wasp_placement x;
		wasp_plan_placement_get(p, i, &x);
		as[i] = (ws_assumed){x.ns, x.pod, x.node, x.group, target};
	}
	int rc = ws_version_assume(base, as, n, out, err);
	free(as);
	return rc;
}

int wasp_snapshot_forget(const wasp_snapshot *base, int kind,
			 const char *ns, const char *name,
			 wasp_snapshot **out, wasp_error *err)
{
	static const char *const kinds[] = {"PodGroup", "Workload",
					    "CompositePodGroup"};
	if (out)
		*out = NULL;
	if (!base || !name || !out)
		return werr(err, WASP_EINVAL, "wasp_snapshot_forget: %s is "
			    "NULL", !base ? "base" : !name ? "name" : "out");
	if (kind < WASP_GROUP_PODGROUP || kind > WASP_GROUP_COMPOSITE)
		return werr(err, WASP_EINVAL, "wasp_snapshot_forget: unknown "
			    "group kind %d", kind);
	return ws_version_forget(base, kinds[kind], ns, name, out, err);
}
