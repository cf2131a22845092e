/*
 * verify_dra.c -- the verifier's device claims (doc/dra.md "Semantics in
 * the solver, plan and verifier"): each allocated device exists, reaches
 * the claim's node, matches its request and is not taken twice; counts
 * per request, matchAttribute and distinctAttribute constraints; shared
 * claims reach every user; devices freed by evictions serve only higher
 * priorities; and no later firstAvailable alternative where an earlier
 * one could be met.  Uses the CEL/DRA evaluator of src/model (dra.h).
 */
#include "plan/verify_int.h"

#include <stdio.h>
#include <string.h>

#include "model/dra.h"

/* "driver/pool/device" of a result of the plan, into key (DEV_KEY
 * bytes), and its device index (-1: no such device). */
#define DEV_KEY (3 * WASP_MAX_NAME + 8)
static int result_dev(ws_map *devs, const wpl_result *r, char *key)
{
	snprintf(key, DEV_KEY, "%s/%s/%s", nz(r->driver), nz(r->pool),
		 nz(r->device));
	return ws_map_get(devs, key);
}

/* Results of one claim against its spec: every device exists, reaches
 * `node`, matches its request's class and selectors; counts per request;
 * constraints; the uses of each device are counted in `uses`. */
static void check_claim(vctx *v, const wpl_claim *c, const wdr_spec *sp,
			int node, ws_map *devs, uint16_t *uses)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	int *dev = wa_calloc(v->a, (size_t)c->nresults + 1, sizeof(int));
	const wdr_sub **sub = wa_calloc(v->a, (size_t)c->nresults + 1,
					sizeof *sub);
	if (!dev || !sub) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < c->nresults; i++) {
		const wpl_result *r = &c->results[i];
		char key[DEV_KEY];
		dev[i] = result_dev(devs, r, key);
		sub[i] = NULL;
		for (int q = 0; q < sp->nreqs && !sub[i]; q++)
			for (int k = 0; k < sp->reqs[q].nalts; k++)
				if (!strcmp(sp->reqs[q].alts[k].name,
					    nz(r->request)))
					sub[i] = &sp->reqs[q].alts[k];
		if (dev[i] < 0) {
			wv_viol(v, "claim %s/%s: device %s does not exist",
				c->ns, c->name, key);
			continue;
		}
		if (!sub[i]) {
			wv_viol(v, "claim %s/%s: no request %s in the claim",
				c->ns, c->name, nz(r->request));
			continue;
		}
		const wdr_device *dv = &d->devs[dev[i]];
		if (!wdr_reaches(s, dv, node))
			wv_viol(v, "claim %s/%s: device %s is not available on "
				"node %s", c->ns, c->name, key,
				s->nodes[node].name);
		if (!wdr_matches(d, sub[i], dev[i], NULL))
			wv_viol(v, "claim %s/%s: device %s does not match "
				"request %s", c->ns, c->name, key,
				sub[i]->name);
		if (sub[i]->admin)
			continue; /* admin access: shares, takes nothing */
		if (uses[dev[i]]++ && !dv->multi)
			wv_viol(v, "claim %s/%s: device %s is already "
				"allocated", c->ns, c->name, key);
	}
	/* Counts: one alternative per request, count or All. */
	for (int q = 0; q < sp->nreqs; q++) {
		const wdr_req *rq = &sp->reqs[q];
		const wdr_sub *used = NULL;
		int n = 0;
		for (int i = 0; i < c->nresults; i++) {
			bool mine = false;
			for (int k = 0; k < rq->nalts; k++)
				mine |= sub[i] == &rq->alts[k];
			if (!mine)
				continue;
			if (used && used != sub[i])
				wv_viol(v, "claim %s/%s: request %s mixes "
					"alternatives %s and %s", c->ns,
					c->name, rq->name, used->name,
					sub[i]->name);
			used = sub[i];
			n++;
		}
		if (!used) {
			wv_viol(v, "claim %s/%s: request %s has no device",
				c->ns, c->name, rq->name);
			continue;
		}
		int want = used->count;
		if (used->all) {
			want = 0;
			for (int x = 0; x < d->ndevs; x++)
				want += wdr_reaches(s, &d->devs[x], node) &&
					wdr_matches(d, used, x, NULL);
		}
		if (n != want)
			wv_viol(v, "claim %s/%s: request %s has %d device%s, "
				"wants %d", c->ns, c->name, used->name, n,
				n == 1 ? "" : "s", want);
	}
	/* Constraints over the named requests. */
	for (int k = 0; k < sp->ncons; k++) {
		const wdr_cons *cn = &sp->cons[k];
		for (int i = 0; i < c->nresults; i++) {
			if (dev[i] < 0 || !sub[i])
				continue;
			if (!wdr_cons_has(cn, sub[i]->name))
				continue;
			const wcel_attr *a = wdr_attr(&d->devs[dev[i]],
						      cn->domain, cn->attr);
			if (!a) {
				wv_viol(v, "claim %s/%s: device %s lacks %s/%s",
					c->ns, c->name, c->results[i].device,
					cn->domain, cn->attr);
				continue;
			}
			for (int j = i + 1; j < c->nresults; j++) {
				if (dev[j] < 0 || !sub[j] ||
				    !wdr_cons_has(cn, sub[j]->name))
					continue; /* outside the scope */
				const wcel_attr *b = wdr_attr(
				    &d->devs[dev[j]], cn->domain, cn->attr);
				if (!b)
					continue;
				bool eq = wdr_attr_equal(a, b);
				if (cn->distinct && eq)
					wv_viol(v, "claim %s/%s: devices %s "
						"and %s share %s/%s "
						"(distinctAttribute)", c->ns,
						c->name, c->results[i].device,
						c->results[j].device,
						cn->domain, cn->attr);
				else if (!cn->distinct && !eq)
					wv_viol(v, "claim %s/%s: devices %s "
						"and %s differ in %s/%s "
						"(matchAttribute)", c->ns,
						c->name, c->results[i].device,
						c->results[j].device,
						cn->domain, cn->attr);
			}
		}
	}
}

static const wpl_claim *find_claim(const wasp_plan *p, const htab *t,
				   const char *ns, const char *name)
{
	int i = wv_ht_get(t, ns, name);
	return i >= 0 ? &p->claims[i] : NULL;
}

/* A claim of a pod of priority prio may use a device freed by evicting
 * its holders only when prio is strictly higher than theirs. */
static void freed_devs(vctx *v, const wpl_claim *c, int32_t prio,
		       ws_map *devs)
{
	for (int i = 0; v->dv_prio && i < c->nresults; i++) {
		char key[DEV_KEY];
		int dv = result_dev(devs, &c->results[i], key);
		if (dv >= 0 && v->dv_prio[dv] != INT32_MIN &&
		    prio <= v->dv_prio[dv])
			wv_viol(v, "claim %s/%s: device %s, freed by evicting "
				"pods of priority %d, is used at priority %d",
				c->ns, c->name, key, (int)v->dv_prio[dv],
				(int)prio);
	}
}

/* Does device x, for alternative sb of request q, respect the claim's
 * constraints against the devices (dev) of its other requests (req[i],
 * alternative alt[req[i]])? */
static bool fits_others(const ws_dra *d, const wdr_spec *sp, int q,
			const wdr_sub *sb, int x, const int *dev,
			const int *req, const int *alt, int nr)
{
	const wdr_req *rq = &sp->reqs[q];
	bool ok = true;
	for (int k = 0; k < sp->ncons && ok; k++) {
		const wdr_cons *cn = &sp->cons[k];
		if (!wdr_cons_has(cn, rq->name) &&
		    !wdr_cons_has(cn, sb->name))
			continue;
		const wcel_attr *a = wdr_attr(&d->devs[x], cn->domain,
					      cn->attr);
		if (!a) {
			ok = false;
			break;
		}
		for (int i = 0; i < nr && ok; i++) {
			if (req[i] == q)
				continue;
			const wdr_sub *os = &sp->reqs[req[i]].alts[alt[req[i]]];
			if (!wdr_cons_has(cn, sp->reqs[req[i]].name) &&
			    !wdr_cons_has(cn, os->name))
				continue;
			const wcel_attr *b = wdr_attr(&d->devs[dev[i]],
						      cn->domain, cn->attr);
			bool eq = b && wdr_attr_equal(a, b);
			ok = cn->distinct ? !eq : eq;
		}
	}
	return ok;
}

/* How many of the candidates cand[0..nc) alternative sb of request q can
 * pick among themselves: a matchAttribute groups them by value, a
 * distinctAttribute takes one per value. */
static int most_picks(const ws_dra *d, const wdr_spec *sp, int q,
		      const wdr_sub *sb, const int *cand, int nc)
{
	const wdr_req *rq = &sp->reqs[q];
	int best = nc;
	for (int k = 0; k < sp->ncons; k++) {
		const wdr_cons *cn = &sp->cons[k];
		if (!wdr_cons_has(cn, rq->name) &&
		    !wdr_cons_has(cn, sb->name))
			continue;
		int most = 0, ndist = 0;
		for (int a = 0; a < nc; a++) {
			const wcel_attr *va = wdr_attr(&d->devs[cand[a]],
						       cn->domain, cn->attr);
			int same = 0;
			bool first = true;
			for (int b = 0; b < nc; b++) {
				const wcel_attr *vb = wdr_attr(
				    &d->devs[cand[b]], cn->domain, cn->attr);
				if (!wdr_attr_equal(va, vb))
					continue;
				same++;
				first &= b >= a;
			}
			if (same > most)
				most = same;
			ndist += first;
		}
		int lim = cn->distinct ? ndist : most;
		if (lim < best)
			best = lim;
	}
	return best;
}

/* firstAvailable preference (doc/dra.md): a request of claim c that
 * used alternative k > 0 is a violation when an earlier alternative could
 * be met on the claim's node (and every user's node, users: nodes) with
 * the devices free in the final plan plus the claim's own, the claim's
 * other requests keeping their devices.  Counted per request: a device
 * that matches, reaches, is free, and respects the claim's constraints
 * against the other requests' devices; matchAttribute among the picks by
 * the best value, distinctAttribute by distinct values. */
static void check_preference(vctx *v, const wpl_claim *c,
			     const wdr_spec *sp, const int *nodes, int nn,
			     ws_map *devs, const uint16_t *uses)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	int nr = c->nresults;
	int *dev = wa_calloc(v->a, (size_t)nr + 1, sizeof(int));
	int *req = wa_calloc(v->a, (size_t)nr + 1, sizeof(int));
	int *alt = wa_calloc(v->a, (size_t)sp->nreqs + 1, sizeof(int));
	int *cand = wa_calloc(v->a, (size_t)d->ndevs + 1, sizeof(int));
	if (!dev || !req || !alt || !cand) {
		v->nomem = true;
		return;
	}
	for (int q = 0; q < sp->nreqs; q++)
		alt[q] = -1;
	for (int i = 0; i < nr; i++) {
		const wpl_result *r = &c->results[i];
		char key[DEV_KEY];
		dev[i] = result_dev(devs, r, key);
		req[i] = -1;
		for (int q = 0; q < sp->nreqs && req[i] < 0; q++)
			for (int k = 0; k < sp->reqs[q].nalts; k++)
				if (!strcmp(sp->reqs[q].alts[k].name,
					    nz(r->request))) {
					req[i] = q;
					alt[q] = k;
				}
		if (dev[i] < 0 || req[i] < 0)
			return; /* reported by check_claim */
	}
	for (int q = 0; q < sp->nreqs; q++) {
		const wdr_req *rq = &sp->reqs[q];
		for (int j = 0; j < alt[q]; j++) {
			const wdr_sub *sb = &rq->alts[j];
			int nc = 0, all = 0;
			bool all_free = true;
			for (int x = 0; x < d->ndevs; x++) {
				bool ok = wdr_matches(d, sb, x, NULL);
				for (int u = 0; u < nn && ok; u++)
					ok = wdr_reaches(s, &d->devs[x],
							 nodes[u]);
				if (!ok)
					continue;
				all++;
				bool own = false, other = false;
				for (int i = 0; i < nr; i++)
					if (dev[i] == x) {
						own = true;
						other |= req[i] != q;
					}
				if (other || (uses[x] && !own &&
					      !d->devs[x].multi)) {
					all_free = false;
					continue;
				}
				/* constraints against the other requests */
				ok = fits_others(d, sp, q, sb, x, dev, req, alt,
						 nr);
				if (ok)
					cand[nc++] = x;
				else
					all_free = false;
			}
			bool met;
			if (sb->all) {
				met = all > 0 && all_free && nc == all;
			} else {
				met = most_picks(d, sp, q, sb, cand, nc) >=
				      sb->count;
			}
			if (met) {
				wv_viol(v, "claim %s/%s: request %s uses "
					"alternative %s, but the earlier %s "
					"could be met on node %s with the "
					"devices the plan leaves free",
					c->ns, c->name, rq->name,
					rq->alts[alt[q]].name, sb->name,
					s->nodes[nodes[0]].name);
				break;
			}
		}
	}
}

/* The state the device steps share: devices by "driver/pool/name", the
 * uses of each device, each shared claim's node (-1: none), the plan's
 * claims by name. */
typedef struct dctx {
	ws_map *devs;
	uint16_t *uses;
	int *inst_node;
	htab ct;
} dctx;

/* Name tables of devices and of the plan's claims.  -1 on NOMEM. */
static int dev_tables(vctx *v, dctx *x)
{
	const ws_dra *d = v->s->dra;
	const wasp_plan *p = v->p;
	ws_map *devs = x->devs = ws_map_new(v->a);
	uint16_t *uses = x->uses = wa_calloc(v->a, (size_t)d->ndevs + 1,
					      sizeof *uses);
	int *inst_node = x->inst_node = wa_calloc(v->a, (size_t)d->ninsts + 1,
						  sizeof(int));
	htab *ct = &x->ct;
	if (!devs || !uses || !inst_node || wv_ht_init(ct, v->a, p->nclaims)) {
		v->nomem = true;
		return -1;
	}
	for (int i = 0; i < p->nclaims; i++)
		wv_ht_put(ct, p->claims[i].ns, p->claims[i].name, i);
	for (int i = 0; i < d->ndevs; i++) {
		const wdr_device *dv = &d->devs[i];
		const char *k = wa_printf(v->a, "%s/%s/%s", dv->cel.driver,
					  d->slices[dv->slice].pool, dv->name);
		if (!k || ws_map_put(devs, k, i) == -2) {
			v->nomem = true;
			return -1;
		}
	}
	return 0;
}

/* Devices of existing allocations are in use, unless every pod holding
 * the claim is evicted (doc/preemption.md); freed ones serve only pods of
 * strictly higher priority than the victims (v->dv_prio).  -1 on NOMEM. */
static int held_devs(vctx *v, dctx *x)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	uint16_t *uses = x->uses;
	v->dv_prio = wa_calloc(v->a, (size_t)d->ndevs + 1, sizeof(int32_t));
	if (!v->dv_prio) {
		v->nomem = true;
		return -1;
	}
	for (int i = 0; i < d->ndevs; i++)
		v->dv_prio[i] = INT32_MIN;
	for (int i = 0; i < d->nspecs; i++) {
		const wdr_spec *sp = &d->specs[i];
		int gone = 0;
		int32_t top = INT32_MIN;
		for (int h = 0; h < sp->nholders; h++) {
			const ws_pod *hp = &s->pods[sp->holders[h]];
			gone += v->pod_evict[sp->holders[h]] >= 0;
			if (pod_prio(s, hp) > top)
				top = pod_prio(s, hp);
		}
		if (sp->nholders && gone == sp->nholders) {
			for (int k = 0; k < sp->nalloc; k++)
				if (top > v->dv_prio[sp->alloc_dev[k]])
					v->dv_prio[sp->alloc_dev[k]] = top;
			continue;
		}
		for (int k = 0; k < sp->nalloc; k++)
			uses[sp->alloc_dev[k]]++;
	}
	return 0;
}

/* Shared claims, each allocated once for its node (x->inst_node). */
static void shared_claims(vctx *v, dctx *x)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	const wasp_plan *p = v->p;
	ws_map *devs = x->devs;
	uint16_t *uses = x->uses;
	int *inst_node = x->inst_node;
	htab ct = x->ct;
	/* Shared claims first: each allocated once, for its node. */
	for (int i = 0; i < d->ninsts; i++) {
		const wdr_inst *in = &d->insts[i];
		const wpl_claim *c = find_claim(p, &ct, in->ns, in->name);
		inst_node[i] = -1;
		if (!c)
			continue;
		if (d->specs[in->spec].allocated) {
			wv_viol(v, "claim %s/%s: already allocated, but the "
				"plan allocates it again", in->ns, in->name);
			continue;
		}
		int n = wv_ht_get(&v->nodes, "", nz(c->node));
		if (n < 0) {
			wv_viol(v, "claim %s/%s: node %s is not in the "
				"snapshot", in->ns, in->name, nz(c->node));
			continue;
		}
		inst_node[i] = n;
		check_claim(v, c, &d->specs[in->spec], n, devs, uses);
	}
}

/* Per-pod claims of the placed pods: allocated for the pod's node, freed
 * devices used only at higher priorities; shared claims reach the pod. */
static void pod_claims(vctx *v, dctx *x)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	const wasp_plan *p = v->p;
	ws_map *devs = x->devs;
	uint16_t *uses = x->uses;
	htab ct = x->ct;
	for (int pi = 0; pi < s->npods; pi++) {
		const wdr_podc *pc = &d->pods[pi];
		int n = v->pod_node[pi];
		if (!pc->n || n < 0)
			continue;
		const ws_pod *pod = &s->pods[pi];
		if (pc->why) {
			wv_viol(v, "pod %s/%s: placed, but %s", pod->ns,
				pod->name, pc->why);
			continue;
		}
		for (int k = 0; k < pc->n; k++) {
			const wdr_pclaim *e = &pc->c[k];
			const wdr_spec *sp = &d->specs[e->spec];
			if (e->inst < 0) {
				char name[2 * WASP_MAX_NAME + 2];
				snprintf(name, sizeof name, "%s-%s", pod->name,
					 e->name);
				const wpl_claim *c = find_claim(p, &ct, pod->ns,
								name);
				if (!c) {
					wv_viol(v, "pod %s/%s: claim %s has no "
						"allocation in the plan",
						pod->ns, pod->name, e->name);
					continue;
				}
				if (strcmp(nz(c->node), s->nodes[n].name))
					wv_viol(v, "claim %s/%s: allocated for "
						"node %s, pod runs on %s",
						c->ns, c->name, nz(c->node),
						s->nodes[n].name);
				check_claim(v, c, sp, n, devs, uses);
				freed_devs(v, c, pod_prio(s, pod), devs);
				continue;
			}
			/* Shared: every user must reach every device. */
			const wdr_inst *in = &d->insts[e->inst];
			const int *ad = sp->alloc_dev;
			int na = sp->nalloc;
			const wpl_claim *c = NULL;
			if (!sp->allocated) {
				c = find_claim(p, &ct, in->ns, in->name);
				if (!c) {
					wv_viol(v, "pod %s/%s: shared claim %s "
						"has no allocation", pod->ns,
						pod->name, in->name);
					continue;
				}
			}
			for (int i = 0; i < (c ? c->nresults : na); i++) {
				int dv = ad ? ad[i] : -1;
				if (c) {
					char key[DEV_KEY];
					dv = result_dev(devs, &c->results[i],
							key);
				}
				if (dv >= 0 &&
				    !wdr_reaches(s, &d->devs[dv], n))
					wv_viol(v, "pod %s/%s on node %s: "
						"cannot reach device %s of "
						"shared claim %s", pod->ns,
						pod->name, s->nodes[n].name,
						d->devs[dv].name, in->name);
			}
		}
	}
}

/* firstAvailable for every claim the plan allocates.  -1 on NOMEM. */
static int preferences(vctx *v, dctx *x)
{
	const ws_snapshot *s = v->s;
	const ws_dra *d = s->dra;
	const wasp_plan *p = v->p;
	ws_map *devs = x->devs;
	uint16_t *uses = x->uses;
	int *inst_node = x->inst_node;
	htab ct = x->ct;
	/* firstAvailable: no later alternative when an earlier one fits,
	 * with the final plan's free devices (uses is final now) */
	int *un = wa_calloc(v->a, (size_t)s->npods + 1, sizeof(int));
	if (!un) {
		v->nomem = true;
		return -1;
	}
	for (int i = 0; i < d->ninsts; i++) {
		const wdr_inst *in = &d->insts[i];
		const wpl_claim *c = find_claim(p, &ct, in->ns, in->name);
		if (!c || inst_node[i] < 0 || d->specs[in->spec].allocated)
			continue;
		int nn = 0;
		un[nn++] = inst_node[i];
		for (int pi = 0; pi < s->npods; pi++) {
			const wdr_podc *pc = &d->pods[pi];
			for (int k = 0; k < pc->n && v->pod_node[pi] >= 0; k++)
				if (pc->c[k].inst == i) {
					un[nn++] = v->pod_node[pi];
					break;
				}
		}
		check_preference(v, c, &d->specs[in->spec], un, nn, devs,
				 uses);
	}
	for (int pi = 0; pi < s->npods; pi++) {
		const wdr_podc *pc = &d->pods[pi];
		int n = v->pod_node[pi];
		if (!pc->n || n < 0 || pc->why)
			continue;
		for (int k = 0; k < pc->n; k++) {
			const wdr_pclaim *e = &pc->c[k];
			if (e->inst >= 0)
				continue;
			char name[2 * WASP_MAX_NAME + 2];
			snprintf(name, sizeof name, "%s-%s", s->pods[pi].name,
				 e->name);
			const wpl_claim *c = find_claim(p, &ct,
							s->pods[pi].ns, name);
			if (c)
				check_preference(v, c, &d->specs[e->spec], &n,
						 1, devs, uses);
		}
	}
	return 0;
}

/* Claims of pods the plan does not place. */
static void orphan_claims(vctx *v)
{
	const wasp_plan *p = v->p;
	/* Per-pod claims of pods the plan does not place. */
	for (int i = 0; i < p->nclaims; i++) {
		const wpl_claim *c = &p->claims[i];
		if (!c->pod)
			continue;
		int pi = wv_ht_get(&v->pods, c->ns, c->pod);
		if (pi < 0 || v->pod_node[pi] < 0)
			wv_viol(v, "claim %s/%s: its pod %s is not placed",
				c->ns, c->name, c->pod);
	}
}

void wv_check_devices(vctx *v)
{
	const ws_dra *d = v->s->dra;
	const wasp_plan *p = v->p;
	if (!d) {
		if (p->nclaims)
			wv_viol(v, "the plan allocates %d device claim%s but "
				"the snapshot has none", p->nclaims,
				p->nclaims == 1 ? "" : "s");
		return;
	}
	dctx x;
	if (dev_tables(v, &x) || held_devs(v, &x))
		return;
	shared_claims(v, &x);
	pod_claims(v, &x);
	/* shared counters over every device in use at the end */
	const char *ex = wdr_counter_excess(d, x.uses, v->a);
	if (ex)
		wv_viol(v, "%s", ex);
	if (preferences(v, &x))
		return;
	orphan_claims(v);
}
