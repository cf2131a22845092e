/*
 * access.c -- the plan accessors of wasp.h ("accessors"): counts and
 * getters over a plan's placements, device allocations, evictions, moves,
 * groups and warnings, so a caller in C (or cgo) reads a plan without
 * rendering and parsing it.  Every string points into the plan's arena.
 */
#include "plan/plan.h"

#include <string.h>

#include "base/error.h"

/* WASP_EINVAL for a NULL plan or output, or an index past the end. */
static int bad_index(const wasp_plan *p, const void *out, size_t i,
		     size_t n, const char *what, wasp_error *err)
{
	if (!p || !out)
		return werr(err, WASP_EINVAL, "wasp_plan_%s_get: %s is NULL",
			    what, !p ? "plan" : "out");
	if (i >= n)
		return werr(err, WASP_EINVAL,
			    "wasp_plan_%s_get: index %zu past the end (%zu)",
			    what, i, n);
	return WASP_OK;
}

size_t wasp_plan_placement_count(const wasp_plan *p)
{
	return p ? (size_t)p->nplace : 0;
}

int wasp_plan_placement_get(const wasp_plan *p, size_t i, wasp_placement *out)
{
	int rc = bad_index(p, out, i, wasp_plan_placement_count(p),
			   "placement", NULL);
	if (rc)
		return rc;
	const wpl_place *x = &p->place[i];
	*out = (wasp_placement){x->ns, x->pod, x->node, x->group};
	return WASP_OK;
}

size_t wasp_plan_device_count(const wasp_plan *p)
{
	size_t n = 0;
	for (int c = 0; p && c < p->nclaims; c++)
		n += (size_t)p->claims[c].nresults;
	return n;
}

int wasp_plan_device_get(const wasp_plan *p, size_t i, wasp_device_alloc *out)
{
	int rc = bad_index(p, out, i, wasp_plan_device_count(p), "device",
			   NULL);
	if (rc)
		return rc;
	for (int c = 0; c < p->nclaims; c++) {
		const wpl_claim *k = &p->claims[c];
		if (i >= (size_t)k->nresults) {
			i -= (size_t)k->nresults;
			continue;
		}
		const wpl_result *r = &k->results[i];
		*out = (wasp_device_alloc){k->ns,	 k->name,   k->pod,
					   k->group,	 k->node,   r->request,
					   r->driver,	 r->pool,   r->device};
		return WASP_OK;
	}
	return WASP_EINVAL; /* not reached: the count covers every result */
}

size_t wasp_plan_eviction_count(const wasp_plan *p)
{
	return p ? (size_t)p->nevict : 0;
}

int wasp_plan_eviction_get(const wasp_plan *p, size_t i, wasp_eviction *out)
{
	int rc = bad_index(p, out, i, wasp_plan_eviction_count(p),
			   "eviction", NULL);
	if (rc)
		return rc;
	const wpl_evict *e = &p->evict[i];
	*out = (wasp_eviction){e->ns,	  e->pod,   e->node,
			       e->unit,	  e->priority, e->by_kind,
			       e->by_ns,  e->by,    e->pdb_violation};
	return WASP_OK;
}

size_t wasp_plan_move_count(const wasp_plan *p)
{
	return p ? (size_t)p->nmove : 0;
}

int wasp_plan_move_get(const wasp_plan *p, size_t i, wasp_move *out)
{
	int rc = bad_index(p, out, i, wasp_plan_move_count(p), "move", NULL);
	if (rc)
		return rc;
	const wpl_move *m = &p->move[i];
	*out = (wasp_move){m->ns, m->pod, m->from, m->to, m->group};
	return WASP_OK;
}

size_t wasp_plan_group_count(const wasp_plan *p)
{
	return p ? (size_t)p->nadmit + (size_t)p->nwait : 0;
}

int wasp_plan_group_get(const wasp_plan *p, size_t i, wasp_group_result *out)
{
	int rc = bad_index(p, out, i, wasp_plan_group_count(p), "group",
			   NULL);
	if (rc)
		return rc;
	memset(out, 0, sizeof *out);
	if (i < (size_t)p->nadmit) {
		const wpl_admit *a = &p->admit[i];
		out->ns = a->ns;
		out->name = a->group;
		out->kind = "PodGroup";
		out->admitted = 1;
		out->pods = a->pods;
		out->priority = a->priority;
		out->key = a->key;
		out->domain = a->domain;
		return WASP_OK;
	}
	const wpl_wait *w = &p->wait[i - (size_t)p->nadmit];
	out->ns = w->ns;
	out->name = w->group;
	out->kind = w->kind;
	out->pods = w->pods;
	out->priority = w->priority;
	out->reason = w->reason;
	return WASP_OK;
}

const char *wasp_plan_warning(const wasp_plan *p, size_t i)
{
	return p && i < (size_t)p->nwarnings ? p->warnings[i] : NULL;
}

const char *wpl_target(const wasp_plan *p)
{
	return p ? p->target : NULL;
}
