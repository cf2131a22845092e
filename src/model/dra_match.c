/*
 * dra_match.c -- matching devices to claims (doc/dra.md "Semantics in the
 * solver, plan and verifier"): device reach, class and request selectors,
 * attribute look-up and comparison, constraint scope, and the allocation
 * of one claim spec on one node.
 *
 * Allocation is a depth-first search like the scheduler's allocator:
 * requests in order, each request's alternatives in list order (so an
 * earlier firstAvailable alternative is always preferred), devices in
 * input order, with matchAttribute / distinctAttribute checked as devices
 * are picked.  The search is bounded (WDR_MAX_STEPS) so a pathological
 * claim fails instead of running away.  The common one-request shape is
 * allocated directly with the search's answer (alloc_direct).
 */

#include "model/dra_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- predicates */

bool wdr_reaches(const ws_snapshot *s, const wdr_device *d, int node)
{
	const wdr_reach *r = &d->reach;
	if (r->node >= 0)
		return r->node == node;
	if (r->node == -1)
		return true;
	if (r->node == -3)
		return false;
	return ws_terms_match(r->terms, r->nterms, &s->nodes[node]);
}

bool wdr_matches(const ws_dra *d, const wdr_sub *sub, int dev,
		 wasp_error *cel_err)
{
	/* taints after the selectors, as upstream (a CEL error on a
	 * tainted device still counts) */
	return wdr_matches_sel(d, sub, dev, cel_err) &&
	       (!d->devs[dev].ntaints || wdr_tolerates(sub, &d->devs[dev]));
}

bool wdr_matches_sel(const ws_dra *d, const wdr_sub *sub, int dev,
		     wasp_error *cel_err)
{
	if (sub->cls < 0)
		return false;
	const wdr_device *dv = &d->devs[dev];
	const wdr_class *cl = &d->classes[sub->cls];
	wasp_error e;
	for (int i = 0; i < cl->nsel + sub->nsel; i++) {
		const wcel_prog *p = i < cl->nsel ? cl->sel[i]
						  : sub->sel[i - cl->nsel];
		int r = wcel_eval(p, &dv->cel, &e);
		if (r < 0 && cel_err && !cel_err->code)
			*cel_err = e;
		if (r != 1)
			return false;
	}
	return true;
}

const wcel_attr *wdr_attr(const wdr_device *d, const char *domain,
			  const char *name)
{
	for (int i = 0; i < d->cel.nattrs; i++)
		if (!strcmp(d->cel.attrs[i].name, name) &&
		    !strcmp(d->cel.attrs[i].domain, domain))
			return &d->cel.attrs[i];
	return NULL;
}

bool wdr_attr_equal(const wcel_attr *a, const wcel_attr *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case WCEL_A_INT: return a->i == b->i;
	case WCEL_A_BOOL: return a->b == b->b;
	case WCEL_A_STRING: return !strcmp(a->s, b->s);
	case WCEL_A_VERSION: {
		int k;
		return !wcel_semver_cmp(a->s, b->s, &k) && k == 0;
	}
	default:
		if (a->n != b->n)
			return false;
		for (int i = 0; i < a->n; i++) {
			bool eq = a->type == WCEL_A_INTS ? a->li[i] == b->li[i]
				: a->type == WCEL_A_BOOLS ? a->lb[i] == b->lb[i]
				: !strcmp(a->ls[i], b->ls[i]);
			if (!eq)
				return false;
		}
		return true;
	}
}

bool wdr_cons_has(const wdr_cons *k, const char *name)
{
	if (k->nreqs == 0)
		return true;
	for (int i = 0; i < k->nreqs; i++) {
		size_t l = strlen(k->reqs[i]);
		if (!strncmp(name, k->reqs[i], l) &&
		    (name[l] == 0 || name[l] == '/'))
			return true;
	}
	return false;
}

/* ------------------------------------------------ one claim's search */

/* Search state of one claim allocation. */
typedef struct srch {
	const wdr_state *st;
	const wdr_spec *sp;
	int node;
	const uint16_t *taken;
	const int *extra;
	int nextra;
	const int *cand;   /* candidate devices (reachable)          */
	int ncand;
	wdr_result *out;
	int max, n;
	long steps;
	/* the claims searched jointly (a pod's own claims): sp is
	 * sps[ci], whose results start at out[cfirst[ci]] */
	const wdr_spec *const *sps;
	int nsp, ci;
	int cfirst[WDR_MAX_JOINT];
} srch;

/* Counters of dev with the devices in use: taken, extra, and this
 * claim's picks so far (admin-access picks consume nothing). */
static bool counters_ok(const srch *S, int dev)
{
	int own[WDR_MAX_RESULTS];
	int n = 0;
	for (int i = 0; i < S->n; i++)
		if (!S->st->d->subs[S->out[i].sub]->admin)
			own[n++] = S->out[i].dev;
	return wdr_counters_fit2(S->st->d, dev, S->taken, S->extra, S->nextra,
				 own, n);
}

static bool is_free(const srch *S, const wdr_sub *sb, int dev)
{
	const wdr_device *dv = &S->st->d->devs[dev];
	if (sb->admin)
		return true; /* admin access: in use or not, takes nothing */
	if (dv->nuses && !counters_ok(S, dev))
		return false;
	if (dv->multi)
		return true;
	if (S->taken[dev])
		return false;
	for (int i = 0; i < S->nextra; i++)
		if (S->extra[i] == dev)
			return false;
	return true;
}

/* Is dev among the picks?  A shareable device, or one taken for admin
 * access, may serve the pod's other claims: then only this claim's
 * picks count. */
static bool picked(const srch *S, const wdr_sub *sb, int dev)
{
	bool own = sb->admin || S->st->d->devs[dev].multi;
	for (int i = own ? S->cfirst[S->ci] : 0; i < S->n; i++)
		if (S->out[i].dev == dev)
			return true;
	return false;
}

/* Do the constraints binding sb still hold with dev added?  Values are
 * compared as their classes (ws_dra.aval). */
static bool cons_ok(const srch *S, const wdr_sub *sb, int dev)
{
	const ws_dra *d = S->st->d;
	for (int k = 0; k < S->sp->ncons; k++) {
		if (!sb->con[k])
			continue;
		const wdr_cons *c = &S->sp->cons[k];
		const int32_t *val = d->aval[c->key];
		int32_t a = val[dev];
		if (a < 0)
			return false;
		/* this claim's picks (all of this spec's subs) */
		for (int i = S->cfirst[S->ci]; i < S->n; i++) {
			if (!d->subs[S->out[i].sub]->con[k])
				continue;
			bool eq = val[S->out[i].dev] == a;
			if (c->distinct ? eq : !eq)
				return false;
		}
	}
	return true;
}

static bool search_req(srch *S, int r);

/* Pick `left` more devices for request r / alternative sb from position
 * `from` of the candidates. */
static bool pick(srch *S, int r, const wdr_sub *sb, int left, int from)
{
	if (left == 0)
		return search_req(S, r + 1);
	const signed char *m = S->st->match[sb->id];
	for (int i = from; i < S->ncand; i++) {
		if (++S->steps > WDR_MAX_STEPS)
			return false;
		int dev = S->cand[i];
		if (!m[dev] || !is_free(S, sb, dev) || picked(S, sb, dev) ||
		    !cons_ok(S, sb, dev))
			continue;
		if (S->n >= S->max)
			return false;
		S->out[S->n++] = (wdr_result){sb->id, dev};
		if (pick(S, r, sb, left - 1, i + 1))
			return true;
		S->n--;
	}
	return false;
}

static bool search_req(srch *S, int r)
{
	if (r == S->sp->nreqs) {
		/* this claim is met: on to the pod's next claim, coming
		 * back here to try this one's other allocations */
		if (S->ci + 1 >= S->nsp)
			return true;
		const wdr_spec *here = S->sp;
		S->ci++;
		S->cfirst[S->ci] = S->n;
		S->sp = S->sps[S->ci];
		if (search_req(S, 0))
			return true;
		S->ci--;
		S->sp = here;
		return false;
	}
	const wdr_req *rq = &S->sp->reqs[r];
	for (int k = 0; k < rq->nalts; k++) {
		const wdr_sub *sb = &rq->alts[k];
		if (sb->cls < 0)
			continue;
		int base = S->n;
		if (!sb->all) {
			if (pick(S, r, sb, sb->count, 0))
				return true;
			S->n = base;
			continue;
		}
		/* All: every matching reachable device, all free. */
		const signed char *m = S->st->match[sb->id];
		bool ok = true;
		int got = 0;
		for (int i = 0; i < S->ncand && ok; i++) {
			int dev = S->cand[i];
			if (!m[dev])
				continue;
			if (!is_free(S, sb, dev) || picked(S, sb, dev) ||
			    !cons_ok(S, sb, dev) || S->n >= S->max) {
				ok = false;
				break;
			}
			S->out[S->n++] = (wdr_result){sb->id, dev};
			got++;
		}
		if (ok && got > 0 && search_req(S, r + 1))
			return true;
		S->n = base;
	}
	return false;
}

/* Reachable devices of node n into buf (node-local, then shared). */
int wdr_node_cands(const wdr_state *st, int node, int *buf, int cap)
{
	const ws_dra *d = st->d;
	int n = 0;
	for (int i = d->node_first[node]; i < d->node_first[node + 1] &&
	     n < cap; i++)
		buf[n++] = d->node_devs[i];
	for (int i = 0; i < d->nglobal && n < cap; i++)
		if (wdr_reaches(st->s, &d->devs[d->global[i]], node))
			buf[n++] = d->global[i];
	return n;
}


int wdr_alloc_spec(const wdr_state *st, const wdr_spec *sp, int node,
		   const uint16_t *taken, const int *extra, int nextra,
		   wdr_result *out, int max)
{
	int cnt;
	return wdr_alloc_specs(st, &sp, 1, node, taken, extra, nextra, out,
			       max, &cnt);
}

const int *wdr_node_cands_p(const wdr_state *st, int node, int *buf,
			    int cap, int *n)
{
	const ws_dra *d = st->d;
	if (d->nglobal) {
		*n = wdr_node_cands(st, node, buf, cap);
		return buf;
	}
	int f = d->node_first[node], m = d->node_first[node + 1] - f;
	*n = m < cap ? m : cap;
	return d->node_devs + f;
}

/* alloc_direct on masks (the node's devices are its candidates). */
static int alloc_masks(const srch *S, const wdr_sub *sb, const wdr_cons *cn,
		       int need)
{
	const ws_dra *d = S->st->d;
	int node = S->node;
	uint64_t fr = wdr_node_free(d, node, S->st->match[sb->id],
				    S->taken);
	uint64_t pick = wdr_mask_pick(d, cn, node, fr, need);
	if (wdr_popcount(pick) < need || need > S->max)
		return -1;
	const int *dv = d->node_devs + d->node_first[node];
	for (int n = 0; n < need; n++) {
		S->out[n] = (wdr_result){sb->id, dv[__builtin_ctzll(pick)]};
		pick &= pick - 1;
	}
	return need;
}

/* The common shape -- one request, one way to meet it, ExactCount, at
 * most one constraint, a matchAttribute, on devices without counters,
 * sharing or admin access -- allocated directly: the first `count` free
 * matching devices in candidate order; with a matchAttribute, those of
 * the value whose first free device comes first among the values that
 * have `count` of them.  That is what the search picks: it tries values
 * in the order of their first free device and fails on a value only when
 * it has too few.  With at most WDR_DIRECT_CANDS candidates the search's
 * step bound cannot cut it short where this succeeds (the values it
 * fails on first cost it at most 2^7 * 16 steps).  -2 when the claim or
 * the devices have another shape. */
static int alloc_direct(const srch *S)
{
	const wdr_spec *sp = S->sp;
	if (sp->nreqs != 1 || sp->reqs[0].nalts != 1 || sp->ncons > 1 ||
	    S->ncand > WDR_DIRECT_CANDS)
		return -2;
	const wdr_sub *sb = &sp->reqs[0].alts[0];
	if (sb->all || sb->admin || sb->cls < 0)
		return -2;
	const wdr_cons *cn = sp->ncons && sb->con[0] ? &sp->cons[0] : NULL;
	if (cn && cn->distinct)
		return -2;
	const ws_dra *d = S->st->d;
	const signed char *m = S->st->match[sb->id];
	int need = sb->count;
	if (need <= 0)
		return 0;
	if ((d->nmask_ok[S->node] & WDR_NODE_MASK) && !S->nextra)
		return alloc_masks(S, sb, cn, need);
	const int32_t *val = cn ? d->aval[cn->key] : NULL;
	int fdev[WDR_DIRECT_CANDS], fval[WDR_DIRECT_CANDS];
	int32_t vals[WDR_DIRECT_CANDS];
	int cnt[WDR_DIRECT_CANDS], nf = 0, nv = 0;
	for (int i = 0; i < S->ncand; i++) {
		int dev = S->cand[i];
		if (!m[dev])
			continue;
		const wdr_device *dv = &d->devs[dev];
		if (dv->multi || dv->nuses)
			return -2;
		if (S->taken[dev])
			continue;
		bool x = false;
		for (int e = 0; e < S->nextra && !x; e++)
			x = S->extra[e] == dev;
		if (x)
			continue;
		int j = 0;
		if (val) {
			if (val[dev] < 0)
				continue;
			while (j < nv && vals[j] != val[dev])
				j++;
			if (j == nv) {
				vals[nv] = val[dev];
				cnt[nv++] = 0;
			}
			cnt[j]++;
		}
		fdev[nf] = dev;
		fval[nf++] = j;
	}
	int want = 0;
	if (val) {
		want = -1;
		for (int f = 0; f < nf && want < 0; f++)
			if (cnt[fval[f]] >= need)
				want = fval[f];
		if (want < 0)
			return -1;
	} else if (nf < need) {
		return -1;
	}
	if (need > S->max)
		return -1;
	int n = 0;
	for (int f = 0; f < nf && n < need; f++)
		if (fval[f] == want)
			S->out[n++] = (wdr_result){sb->id, fdev[f]};
	return n;
}

int wdr_alloc_specs(const wdr_state *st, const wdr_spec *const *sps,
		    int nsp, int node, const uint16_t *taken,
		    const int *extra, int nextra, wdr_result *out, int max,
		    int *counts)
{
	int cand[WDR_MAX_CANDS];
	srch S;
	if (nsp < 1 || nsp > WDR_MAX_JOINT)
		return -1;
	/* every field but cfirst[1..], which the search sets as it goes */
	S.steps = 0;
	S.n = 0;
	S.ci = 0;
	S.cfirst[0] = 0;
	S.st = st;
	S.sps = sps;
	S.nsp = nsp;
	S.sp = sps[0];
	S.node = node;
	S.taken = taken;
	S.extra = extra;
	S.nextra = nextra;
	S.cand = wdr_node_cands_p(st, node, cand, WDR_MAX_CANDS, &S.ncand);
	S.out = out;
	S.max = max;
	if (nsp == 1) {
		int n = alloc_direct(&S);
		if (n != -2) {
			counts[0] = n < 0 ? 0 : n;
			return n;
		}
	}
	if (!search_req(&S, 0))
		return -1;
	for (int k = 0; k < nsp; k++)
		counts[k] = (k + 1 < nsp ? S.cfirst[k + 1] : S.n) - S.cfirst[k];
	return S.n;
}
