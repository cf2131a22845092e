/*
 * dra_alloc.c -- the allocation state of one solve (wdr_state, dra.h):
 * the selector match table computed once, the fit estimate, placing a
 * pod's claims on a node (shared instances once), recording the ILP's
 * allocations, cloning and undoing, the firstAvailable preference
 * (doc/dra.md "Semantics in the solver, plan and verifier") and the
 * reason text for a group that could not get devices.
 */

#include "model/dra_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- allocation */

int wdr_state_init(wdr_state *st, const ws_snapshot *s, wa_arena *a)
{
	const ws_dra *d = s->dra;
	memset(st, 0, sizeof *st);
	st->s = s;
	st->d = d;
	st->a = a;
	if (!d)
		return 0;
	st->taken = wa_calloc(a, (size_t)d->ndevs + 1, sizeof *st->taken);
	st->inst_alloc = wa_calloc(a, (size_t)d->ninsts + 1, sizeof(int));
	st->match = wa_calloc(a, (size_t)d->nsubs + 1, sizeof *st->match);
	signed char *zero = wa_calloc(a, (size_t)d->ndevs + 1, 1);
	bool *need = wa_calloc(a, (size_t)d->nspecs + 1, sizeof *need);
	if (!st->taken || !st->inst_alloc || !st->match || !zero || !need)
		return -1;
	wdr_need_specs(s, d, need);
	for (int sb = 0; sb < d->nsubs; sb++)
		st->match[sb] = zero;
	memcpy(st->taken, d->taken0, (size_t)d->ndevs * sizeof *st->taken);
	for (int i = 0; i < d->ninsts; i++)
		st->inst_alloc[i] = -1;
	/* Every selector once per device, up front: evaluation is then a
	 * table look-up, and the table is read-only while solving. */
	wasp_error ce = {0};
	for (int i = 0; i < d->nspecs; i++) {
		if (!need[i])
			continue;
		const wdr_spec *sp = &d->specs[i];
		for (int r = 0; r < sp->nreqs; r++)
			for (int k = 0; k < sp->reqs[r].nalts; k++) {
				const wdr_sub *sb = &sp->reqs[r].alts[k];
				if (d->match && d->match[sb->id]) {
					/* computed at load (dra_rules.c) */
					st->match[sb->id] = d->match[sb->id];
					continue;
				}
				signed char *row =
				    wa_alloc(a, (size_t)d->ndevs + 1);
				if (!row)
					return -1;
				for (int dv = 0; dv < d->ndevs; dv++)
					row[dv] = wdr_matches(d, sb, dv, &ce);
				st->match[sb->id] = row;
			}
	}
	if (ce.code) {
		char buf[800];
		st->cel_error = wa_strdup(a, wasp_error_format(&ce, buf,
							       sizeof buf));
	}
	return 0;
}

void wdr_need_specs(const ws_snapshot *s, const ws_dra *d, bool *need)
{
	/* the claims of running pods are many and already allocated */
	for (int pi = 0; pi < s->npods; pi++) {
		const wdr_podc *pc = &d->pods[pi];
		if (!ws_pod_pending(&s->pods[pi]))
			continue;
		for (int k = 0; k < pc->n; k++)
			if (pc->c[k].spec >= 0 &&
			    !d->specs[pc->c[k].spec].allocated)
				need[pc->c[k].spec] = true;
	}
}

/* The common shape -- one own claim, one request, one way to meet it,
 * ExactCount, at most matchAttribute constraints -- is counted directly:
 * per attribute value (partition), free matching devices / count.
 * Returns -2 when the claim list has another shape. */
static bool simple_shape(const ws_dra *d, const wdr_podc *pc)
{
	if (pc->n != 1 || pc->c[0].inst >= 0)
		return false;
	const wdr_spec *sp = &d->specs[pc->c[0].spec];
	return sp->nreqs == 1 && sp->reqs[0].nalts == 1 &&
	       !sp->reqs[0].alts[0].all && sp->ncons <= 1 &&
	       !(sp->ncons == 1 && sp->cons[0].distinct);
}

static int fit_simple(const wdr_state *st, const wdr_podc *pc, int node,
		      int cap)
{
	const ws_dra *d = st->d;
	if (!simple_shape(d, pc))
		return -2;
	const wdr_spec *sp = &d->specs[pc->c[0].spec];
	const wdr_sub *sb = &sp->reqs[0].alts[0];
	if (sb->cls < 0)
		return 0;
	if (sb->admin)
		return -2;
	const wdr_cons *cn = sp->ncons && sb->con[0] ? &sp->cons[0] : NULL;
	const int32_t *val = cn ? d->aval[cn->key] : NULL;
	const signed char *m = st->match[sb->id];
	int fit = 0;
	if (d->nmask_ok[node] & WDR_NODE_MASK) {
		/* on masks: free matching devices per value class */
		uint64_t fr = wdr_node_free(d, node, m, st->taken);
		if (!cn) {
			fit = wdr_popcount(fr) / sb->count;
		} else {
			const int *beg = d->pm_beg[cn->key];
			const uint64_t *pm = d->pmask[cn->key];
			for (int j = beg[node]; j < beg[node + 1]; j++)
				fit += wdr_popcount(fr & pm[j]) /
				       sb->count;
		}
		return fit < cap ? fit : cap;
	}
	int buf[WDR_MAX_CANDS], nc;
	const int *cand = wdr_node_cands_p(st, node, buf, WDR_MAX_CANDS, &nc);
	int32_t pv[64];
	int pn[64], np = 0, free_n = 0;
	for (int i = 0; i < nc; i++) {
		int dev = cand[i];
		if (!m[dev])
			continue;
		if (d->devs[dev].multi || d->devs[dev].nuses)
			return -2; /* shareable devices, counters: search */
		if (st->taken[dev])
			continue;
		if (!val) {
			free_n++;
			continue;
		}
		int32_t v = val[dev];
		if (v < 0)
			continue;
		int j;
		for (j = 0; j < np && pv[j] != v; j++)
			;
		if (j == np) {
			if (np == 64)
				return -2;
			pv[np] = v;
			pn[np++] = 0;
		}
		pn[j]++;
	}
	if (!val)
		fit = free_n / sb->count;
	for (int j = 0; j < np; j++)
		fit += pn[j] / sb->count;
	return fit < cap ? fit : cap;
}

bool wdr_fit_exact(const ws_dra *d, const wdr_podc *pc, int node)
{
	if (pc->why)
		return true; /* 0, and no pod is placed */
	if (!simple_shape(d, pc) || (node >= 0 && !wdr_node_exact(d, node)))
		return false;
	const wdr_sub *sb = &d->specs[pc->c[0].spec].reqs[0].alts[0];
	return sb->cls >= 0 && !sb->admin && sb->count > 0 &&
	       sb->count <= WDR_MAX_RESULTS;
}

bool wdr_node_exact(const ws_dra *d, int node)
{
	/* a mask node's devices are its candidates: at most
	 * WDR_DIRECT_CANDS of them, and wdr_place allocates on the masks */
	return (d->nmask_ok[node] & WDR_NODE_MASK) &&
	       d->node_first[node + 1] - d->node_first[node] <=
		   WDR_DIRECT_CANDS;
}

int wdr_fit(const wdr_state *st, const wdr_podc *pc, int node, int cap)
{
	if (pc->why)
		return 0;
	int quick = fit_simple(st, pc, node, cap);
	if (quick != -2)
		return quick;
	int extra[WDR_MAX_RESULTS];
	wdr_result out[WDR_MAX_RESULTS];
	const wdr_spec *sps[WDR_MAX_JOINT];
	int cnt[WDR_MAX_JOINT];
	int nextra = 0, fit = 0, nsp = 0;
	for (int k = 0; k < pc->n; k++)
		if (pc->c[k].inst < 0) {
			if (nsp == WDR_MAX_JOINT)
				return 0;
			sps[nsp++] = &st->d->specs[pc->c[k].spec];
		}
	if (!nsp)
		return cap;
	while (fit < cap) {
		/* the pod's own claims jointly, after the pods counted */
		int room = WDR_MAX_RESULTS - nextra;
		int n = wdr_alloc_specs(st, sps, nsp, node, st->taken, extra,
					nextra, out, room, cnt);
		if (n < 0)
			return fit;
		for (int i = 0; i < n; i++)
			if (!st->d->devs[out[i].dev].multi &&
			    !st->d->subs[out[i].sub]->admin)
				extra[nextra++] = out[i].dev;
		fit++;
		if (nextra == 0)
			return cap; /* needs no exclusive device */
	}
	return fit;
}

/* Take (+1) or give back (-1) the device of result r; admin-access
 * results take nothing. */
static void take(wdr_state *st, const wdr_result *r, int sign)
{
	if (st->d->subs[r->sub]->admin)
		return;
	uint16_t *t = &st->taken[r->dev];
	if (sign > 0 && *t < UINT16_MAX)
		(*t)++;
	else if (sign < 0 && *t > 0)
		(*t)--;
}

static int push_alloc(wdr_state *st, int pod, int entry, int inst, int cls,
		      int node, const wdr_result *r, int n)
{
	wdr_alloc a = {pod, entry, inst, cls, node, st->nres, n};
	if (wa_grow(st->a, (void **)&st->res, sizeof *st->res, &st->capres,
		    (size_t)st->nres + (size_t)n))
		return -1;
	for (int i = 0; i < n; i++) {
		st->res[st->nres++] = r[i];
		take(st, &r[i], 1);
	}
	if (WA_PUSH(st->a, st->allocs, st->nallocs, st->capallocs, a))
		return -1;
	if (inst >= 0)
		st->inst_alloc[inst] = st->nallocs - 1;
	return 0;
}

/* The spec of allocation a. */
static const wdr_spec *alloc_spec(const wdr_state *st, const wdr_alloc *a)
{
	const ws_dra *d = st->d;
	int sp = a->inst >= 0 ? d->insts[a->inst].spec
			      : d->pods[a->pod].c[a->entry].spec;
	return sp >= 0 ? &d->specs[sp] : NULL;
}

/* Sum of the alternative indexes of results r[0..n) of spec sp. */
static long rank_of(const wdr_spec *sp, const wdr_result *r, int n)
{
	long sum = 0;
	for (int q = 0; sp && q < sp->nreqs; q++) {
		const wdr_req *rq = &sp->reqs[q];
		bool got = false;
		for (int k = 1; k < rq->nalts && !got; k++)
			for (int j = 0; j < n && !got; j++)
				if (r[j].sub == rq->alts[k].id) {
					sum += k;
					got = true;
				}
	}
	return sum;
}

long wdr_alt_rank(const wdr_state *st)
{
	long sum = 0;
	for (int i = 0; st && i < st->nallocs; i++) {
		const wdr_alloc *a = &st->allocs[i];
		sum += rank_of(alloc_spec(st, a), st->res + a->first, a->n);
	}
	return sum;
}

/* Are all devices of results r[0..n) local to node? */
static bool all_local(const wdr_state *st, const wdr_result *r, int n,
		      int node)
{
	for (int i = 0; i < n; i++)
		if (st->d->devs[r[i].dev].reach.node != node)
			return false;
	return true;
}

int wdr_prefer_earlier(wdr_state *st)
{
	wdr_result out[WDR_MAX_RESULTS];
	int moved = 0;
	for (int i = 0; st->d && i < st->nallocs; i++) {
		wdr_alloc *a = &st->allocs[i];
		if (a->n == 0) /* no devices (a template without spec) */
			continue;
		const wdr_spec *sp = alloc_spec(st, a);
		long old = rank_of(sp, st->res + a->first, a->n);
		if (!old)
			continue;
		/* a shared claim only when every user must be on its node
		 * (node-local devices before and after) */
		if (a->inst >= 0 &&
		    !all_local(st, st->res + a->first, a->n, a->node))
			continue;
		for (int k = 0; k < a->n; k++)
			take(st, &st->res[a->first + k], -1);
		int n = wdr_alloc_spec(st, sp, a->node, st->taken, NULL, 0, out,
				       WDR_MAX_RESULTS);
		bool better = n >= 0 && rank_of(sp, out, n) < old &&
			      (a->inst < 0 || all_local(st, out, n, a->node));
		if (!better) {
			for (int k = 0; k < a->n; k++)
				take(st, &st->res[a->first + k], 1);
			continue;
		}
		int first = st->nres;
		for (int k = 0; k < n; k++) {
			if (WA_PUSH(st->a, st->res, st->nres, st->capres,
				    out[k]))
				return -1;
			take(st, &out[k], 1);
		}
		a = &st->allocs[i];
		a->first = first;
		a->n = n;
		moved++;
	}
	return moved;
}

int wdr_push(wdr_state *st, int pi, int entry, int inst, int cls, int node,
	     const wdr_result *r, int n)
{
	return push_alloc(st, pi, entry, inst, cls, node, r, n);
}

int wdr_state_clone(wdr_state *st, const wdr_state *base, wa_arena *a)
{
	const ws_dra *d = base->d;
	memset(st, 0, sizeof *st);
	st->s = base->s;
	st->d = d;
	st->a = a;
	st->match = base->match;
	st->cel_error = base->cel_error;
	if (!d)
		return 0;
	st->taken = wa_calloc(a, (size_t)d->ndevs + 1, sizeof *st->taken);
	st->inst_alloc = wa_calloc(a, (size_t)d->ninsts + 1, sizeof(int));
	if (!st->taken || !st->inst_alloc)
		return -1;
	memcpy(st->taken, base->taken, (size_t)d->ndevs * sizeof *st->taken);
	for (int i = 0; i < d->ninsts; i++)
		st->inst_alloc[i] = -1;
	return 0;
}

void wdr_undo(wdr_state *st, int mark)
{
	while (st->nallocs > mark) {
		wdr_alloc *a = &st->allocs[--st->nallocs];
		for (int i = 0; i < a->n; i++)
			take(st, &st->res[a->first + i], -1);
		st->nres = a->first;
		if (a->inst >= 0)
			st->inst_alloc[a->inst] = -1;
	}
}

static bool inst_reaches(const wdr_state *st, int inst, int node)
{
	const ws_dra *d = st->d;
	const wdr_spec *sp = &d->specs[d->insts[inst].spec];
	if (sp->allocated) {
		for (int i = 0; i < sp->nalloc; i++)
			if (!wdr_reaches(st->s, &d->devs[sp->alloc_dev[i]],
					 node))
				return false;
		return true;
	}
	int ai = st->inst_alloc[inst];
	if (ai < 0)
		return false;
	const wdr_alloc *a = &st->allocs[ai];
	for (int i = 0; i < a->n; i++)
		if (!wdr_reaches(st->s, &d->devs[st->res[a->first + i].dev],
				 node))
			return false;
	return true;
}

bool wdr_place(wdr_state *st, int pi, int cls, int node)
{
	const ws_dra *d = st->d;
	const wdr_podc *pc = &d->pods[pi];
	if (pc->why)
		return false;
	int mark = st->nallocs;
	wdr_result out[WDR_MAX_RESULTS];
	const wdr_spec *sps[WDR_MAX_JOINT];
	int ent[WDR_MAX_JOINT], cnt[WDR_MAX_JOINT], nsp = 0;
	/* shared claims already allocated must reach the node; the rest
	 * (own claims, shared ones this pod allocates first) are searched
	 * jointly */
	for (int k = 0; k < pc->n; k++) {
		const wdr_pclaim *e = &pc->c[k];
		const wdr_spec *sp = &d->specs[e->spec];
		if (e->inst >= 0 && (sp->allocated ||
				     st->inst_alloc[e->inst] >= 0)) {
			if (!inst_reaches(st, e->inst, node))
				return false;
			continue;
		}
		if (nsp == WDR_MAX_JOINT)
			return false;
		ent[nsp] = k;
		sps[nsp++] = sp;
	}
	if (!nsp)
		return true;
	int n = wdr_alloc_specs(st, sps, nsp, node, st->taken, NULL, 0, out,
				WDR_MAX_RESULTS, cnt);
	if (n < 0)
		return false;
	for (int j = 0, at = 0; j < nsp; at += cnt[j++]) {
		const wdr_pclaim *e = &pc->c[ent[j]];
		if (push_alloc(st, e->inst >= 0 ? -1 : pi, ent[j], e->inst,
			       e->inst >= 0 ? -1 : cls, node, out + at,
			       cnt[j])) {
			wdr_undo(st, mark);
			return false;
		}
	}
	return true;
}

int wdr_place_n(wdr_state *st, int pi, int cls, int node, int count)
{
	const ws_dra *d = st->d;
	const wdr_podc *pc = &d->pods[pi];
	int ok = 0;
	if (count < 2 || pc->why || !wdr_fit_exact(d, pc, node)) {
		while (ok < count && wdr_place(st, pi, cls, node))
			ok++;
		return ok;
	}
	/* the common shape on masks: what alloc_masks picks for each pod
	 * in turn, the node's free mask computed once and each pod's
	 * devices taken out of it */
	const wdr_spec *sp = &d->specs[pc->c[0].spec];
	const wdr_sub *sb = &sp->reqs[0].alts[0];
	const wdr_cons *cn = sp->ncons && sb->con[0] ? &sp->cons[0] : NULL;
	int need = sb->count;
	uint64_t fr = wdr_node_free(d, node, st->match[sb->id], st->taken);
	const int *dv = d->node_devs + d->node_first[node];
	wdr_result out[WDR_DIRECT_CANDS];
	for (; ok < count; ok++) {
		uint64_t pick = wdr_mask_pick(d, cn, node, fr, need);
		if (wdr_popcount(pick) < need)
			break;
		for (int i = 0; i < need; i++) {
			int b = __builtin_ctzll(pick);
			out[i] = (wdr_result){sb->id, dv[b]};
			pick &= pick - 1;
			fr &= ~((uint64_t)1 << b);
		}
		if (push_alloc(st, pi, 0, -1, cls, node, out, need))
			break;
	}
	return ok;
}

/* Scratch of wdr_explain: the value classes of one node's devices. */
typedef struct xparts {
	int32_t pv[WDR_MAX_CANDS];
	int pn[WDR_MAX_CANDS];
	bool pok[WDR_MAX_CANDS];
} xparts;

/* The request a reason speaks of: the first request of the first own
 * claim, its first way, and the matchAttribute that ties it.  false:
 * no such claim. */
static bool x_request(const ws_dra *d, const wdr_podc *pc,
		      const wdr_spec **spp, const wdr_sub **sbp,
		      const wdr_cons **cnp)
{
	for (int k = 0; k < pc->n; k++) {
		const wdr_spec *sp = &d->specs[pc->c[k].spec];
		if (!sp->nreqs || sp->allocated)
			continue;
		const wdr_cons *cn = NULL;
		for (int j = 0; j < sp->ncons && !cn; j++)
			if (!sp->cons[j].distinct &&
			    wdr_cons_has(&sp->cons[j], sp->reqs[0].name))
				cn = &sp->cons[j];
		*spp = sp;
		*sbp = &sp->reqs[0].alts[0];
		*cnp = cn;
		return true;
	}
	return false;
}

/* Node n's counts for request sb (x_request) into *x. */
static void x_node(const wdr_state *st, const wdr_sub *sb,
		   const wdr_cons *cn, int node, xparts *xp, wdr_xnode *x)
{
	const ws_dra *d = st->d;
	const signed char *m = st->match[sb->id];
	const int32_t *val = cn ? d->aval[cn->key] : NULL;
	int buf[WDR_MAX_CANDS];
	int32_t *pv = xp ? xp->pv : NULL;
	int *pn = xp ? xp->pn : NULL;
	bool *pok = xp ? xp->pok : NULL;
	*x = (wdr_xnode){0, 0, 0};
	int nc;
	const int *cand = wdr_node_cands_p(st, node, buf, WDR_MAX_CANDS, &nc);
	unsigned char nf = d->nmask_ok[node];
	if (nf & WDR_NODE_MASK) {
		/* on masks: no shared devices, no counters */
		uint64_t fr = wdr_node_free(d, node, m, st->taken);
		int b = wdr_popcount(fr);
		if (val) {
			const int *beg = d->pm_beg[cn->key];
			const uint64_t *pm = d->pmask[cn->key];
			b = 0;
			for (int j = beg[node]; j < beg[node + 1]; j++) {
				int q = wdr_popcount(fr & pm[j]);
				b = q > b ? q : b;
			}
		}
		x->best = b;
	}
	/* taints anywhere; counters only off masks */
	bool held = (nf & WDR_NODE_TAINTS) || !(nf & WDR_NODE_MASK);
	for (int i = 0; i < nc && held; i++) {
		int dev = cand[i];
		const wdr_device *dv = &d->devs[dev];
		if (!m[dev] && dv->ntaints && !wdr_tolerates(sb, dv) &&
		    wdr_matches_sel(d, sb, dev, NULL))
			x->tainted++;
		else if (m[dev] && dv->nuses && !st->taken[dev] &&
			 !wdr_counters_fit(d, dev, st->taken, NULL, 0))
			x->ctr++;
	}
	/* free devices per partition value when a matchAttribute applies
	 * (one partition otherwise), counting partitions with a device the
	 * counters let in */
	int np = 0;
	for (int i = 0; i < nc && !(nf & WDR_NODE_MASK); i++) {
		int dev = cand[i];
		if (!m[dev] || (st->taken[dev] && !d->devs[dev].multi))
			continue;
		int32_t v = val ? val[dev] : 0;
		if (v < 0)
			continue;
		int j = 0;
		while (j < np && pv[j] != v)
			j++;
		if (j == np) {
			pv[np] = v;
			pn[np] = 0;
			pok[np++] = false;
		}
		pn[j]++;
		pok[j] |= !d->devs[dev].nuses ||
			  wdr_counters_fit(d, dev, st->taken, NULL, 0);
	}
	for (int j = 0; j < np; j++)
		if (pok[j] && pn[j] > x->best)
			x->best = pn[j];
}

bool wdr_explain_node(const wdr_state *st, const wdr_podc *pc, int node,
		      wdr_xnode *x)
{
	const wdr_spec *sp;
	const wdr_sub *sb;
	const wdr_cons *cn;
	*x = (wdr_xnode){0, 0, 0};
	if (!x_request(st->d, pc, &sp, &sb, &cn))
		return true;
	xparts *xp = NULL;
	if (!(st->d->nmask_ok[node] & WDR_NODE_MASK) &&
	    !(xp = malloc(sizeof *xp)))
		return false;
	x_node(st, sb, cn, node, xp, x);
	free(xp);
	return true;
}

static const char *explain(const wdr_state *st, const int *pods, int npods,
			   const int *nodes, int nnodes,
			   const wdr_xnode *sum, const char *where,
			   long long fit, int need, wa_arena *a);

/* Most devices one node could give the first unmet request.  The scratch
 * is on the heap, not in `a`: the greedy restarts count what a pass adds
 * to the problem's arena. */
const char *wdr_explain(const wdr_state *st, const int *pods, int npods,
			const int *nodes, int nnodes, const char *where,
			long long fit, int need, wa_arena *a)
{
	return explain(st, pods, npods, nodes, nnodes, NULL, where, fit,
		       need, a);
}

const char *wdr_explain_sum(const wdr_state *st, const int *pods,
			    int npods, const wdr_xnode *sum,
			    const char *where, long long fit, int need,
			    wa_arena *a)
{
	return explain(st, pods, npods, NULL, 0, sum, where, fit, need, a);
}

/* The reason, its node counts summed from nodes[] or given (sum). */
static const char *explain(const wdr_state *st, const int *pods, int npods,
			   const int *nodes, int nnodes,
			   const wdr_xnode *sum, const char *where,
			   long long fit, int need, wa_arena *a)
{
	const ws_dra *d = st->d;
	const wdr_podc *pc = NULL;
	for (int i = 0; i < npods && !pc; i++)
		if (d->pods[pods[i]].n)
			pc = &d->pods[pods[i]];
	if (!pc)
		return NULL;
	if (pc->why)
		return wa_printf(a, "%s", pc->why);
	for (int k = 0; k < pc->n; k++) {
		const wdr_spec *sp = &d->specs[pc->c[k].spec];
		for (int r = 0; r < sp->nreqs; r++) {
			const wdr_sub *sb = &sp->reqs[r].alts[0];
			if (sb->cls < 0)
				return wa_printf(a, "DeviceClass %s does not "
						 "exist (claim %s/%s)",
						 sb->class_name, sp->ns,
						 sp->name);
		}
	}
	const wdr_spec *sp;
	const wdr_sub *sb;
	const wdr_cons *cn;
	if (!x_request(d, pc, &sp, &sb, &cn))
		return wa_printf(a, "a shared device claim cannot be reached "
				 "from one node %s", where);
	int best = 0;
	/* devices the rules hold back (doc/dra.md): taints not tolerated,
	 * shared counters used up */
	long tainted = 0, ctr = 0;
	if (sum) {
		best = sum->best;
		tainted = sum->tainted;
		ctr = sum->ctr;
	} else {
		xparts *xp = malloc(sizeof *xp);
		if (!xp)
			return NULL;
		for (int i = 0; i < nnodes; i++) {
			wdr_xnode x;
			x_node(st, sb, cn, nodes[i], xp, &x);
			best = x.best > best ? x.best : best;
			tainted += x.tainted;
			ctr += x.ctr;
		}
		free(xp);
	}
	char share[160] = "";
	if (cn)
		snprintf(share, sizeof share, " sharing one %s", cn->attr);
	/* devices one pod needs together: the requests the constraint ties
	 * (same class assumed, as in the message) */
	int per = sb->count;
	if (cn) {
		per = 0;
		for (int r = 0; r < sp->nreqs; r++)
			if (wdr_cons_has(cn, sp->reqs[r].name) &&
			    !sp->reqs[r].alts[0].all)
				per += sp->reqs[r].alts[0].count;
	}
	char held[200] = "";
	size_t hl = 0;
	if (tainted)
		hl += (size_t)snprintf(held + hl, sizeof held - hl,
				       "; %ld matching device%s %s tainted "
				       "(not tolerated)", tainted,
				       tainted == 1 ? "" : "s",
				       tainted == 1 ? "is" : "are");
	if (ctr && hl < sizeof held)
		snprintf(held + hl, sizeof held - hl, "; %ld free matching "
			 "device%s held back by shared counters", ctr,
			 ctr == 1 ? " is" : "s are");
	const char *cel = st->cel_error ? "; a selector failed: " : "";
	if (!sb->all && best >= per && fit < need)
		return wa_printf(a, "free devices of class %s%s admit %lld of "
				 "the %d pods needed (%d device%s per pod%s)"
				 "%s%s%s", sb->class_name,
				 sb->nsel ? " matching the selectors" : "",
				 fit, need, per, per == 1 ? "" : "s", share,
				 held, cel,
				 st->cel_error ? st->cel_error : "");
	if (sb->all)
		return wa_printf(a, "no node %s has all devices of class %s "
				 "free%s%s%s%s", where, sb->class_name, share,
				 held, cel,
				 st->cel_error ? st->cel_error : "");
	return wa_printf(a, "no node %s has %d free device%s of class %s%s%s; "
			 "best has %d%s%s%s", where, per, per == 1 ? "" : "s",
			 sb->class_name,
			 sb->nsel ? " matching the selectors" : "", share,
			 best, held, cel, st->cel_error ? st->cel_error : "");
}
