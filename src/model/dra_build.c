/*
 * dra_build.c -- the device model (ws_dra) from the decoded objects
 * (doc/dra.md "What is read"): only the newest generation of each pool
 * counts, classes are resolved, claim specs get global request ids and
 * their status.allocation devices are taken; each pod's spec.resourceClaims
 * become its claim list, with shared instances for ResourceClaims and for
 * entries matching the PodGroup's; running pods holding allocated claims
 * are recorded; devices are indexed by the node that reaches them; the
 * attributes constraints compare become value classes and nodes get the
 * device masks of the common claim shape (doc/dra.md "Performance").
 */

#include "model/dra_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- assembly */

typedef struct dclaim dclaim;
static int claim_holders(dx *c, const dclaim *cl, size_t ncl,
			 const wdr_input *in);
static int build_attr_keys(dx *c);
static int build_masks(dx *c);

struct dclaim {
	const wt_node *o;
	wdr_spec sp;
	const wt_node *results; /* status.allocation.devices.results */
	const wt_node *reserved; /* status.reservedFor                  */
};

static const char *meta_str(const wt_node *o, const char *k)
{
	const wt_node *v = wdr_mget(wdr_mget(o, "metadata"), k);
	return v && v->type != WT_MAP && v->type != WT_SEQ ? v->str : NULL;
}

static int add_warnings(dx *c)
{
	if (!c->nwarns)
		return 0;
	ws_snapshot *s = c->s;
	const char **w = wa_calloc(c->a, (size_t)s->nwarnings + c->nwarns,
				   sizeof *w);
	if (!w)
		return wdr_nomem(c);
	if (s->nwarnings)
		memcpy(w, s->warnings, (size_t)s->nwarnings * sizeof *w);
	memcpy(w + s->nwarnings, c->warns, c->nwarns * sizeof *w);
	s->warnings = w;
	s->nwarnings += (int)c->nwarns;
	return 0;
}

/* Resolve one resourceClaims entry of a pod or group. */
static int entry_src(dx *c, const wt_node *e, const char *path,
		     const char **name, const char **claim, const char **tpl)
{
	if (wdr_want(c, e, WT_MAP, path) ||
	    wdr_sfield(c, e, "name", path, name) ||
	    wdr_sfield(c, e, "resourceClaimName", path, claim) ||
	    wdr_sfield(c, e, "resourceClaimTemplateName", path, tpl))
		return c->rc;
	if (!*name)
		return wdr_bad(c, e, path, "resourceClaims entry has no name");
	if (!*claim == !*tpl)
		return wdr_bad(c, e, path, "resourceClaims entry needs exactly "
			       "one of resourceClaimName or "
			       "resourceClaimTemplateName");
	return 0;
}

static int spec_of(dx *c, const char *ns, const char *name, bool tpl)
{
	char key[2 * WASP_MAX_NAME + 8];
	wdr_path(key, sizeof key, tpl ? "T/" : "C/", ns, "/");
	size_t n = strlen(key);
	wdr_path(key + n, sizeof key - n, name, NULL, NULL);
	return ws_map_get(c->spec_idx, key);
}

static int find_inst(dx *c, int spec, int group, const char *name,
		     const char *ns, wdr_inst **insts, size_t *ninst,
		     size_t *cap)
{
	for (size_t i = 0; i < *ninst; i++)
		if ((*insts)[i].spec == spec && (*insts)[i].group == group &&
		    !strcmp((*insts)[i].name, name))
			return (int)i;
	wdr_inst in = {spec, ns, name, group};
	if (WA_PUSH(c->t, *insts, *ninst, *cap, in))
		return wdr_nomem(c), -1;
	return (int)(*ninst - 1);
}

/* The decoded objects, in input order, as build's steps pass them on. */
typedef struct dobjs {
	dslice *sl;
	size_t nsl, capsl;
	wdr_class *cls;
	size_t ncls, capcls;
	dclaim *cl;
	size_t ncl, capcl;
	const wt_node **rules; /* DeviceTaintRule objects                 */
	size_t nrules, caprules;
} dobjs;

/* Step 1 of build: decode every object (dra_decode.c), indexing classes
 * by name and claim specs by "C|T/ns/name". */
static int read_objects(dx *c, const wdr_input *in, dobjs *ob)
{
	for (size_t i = 0; i < in->nobjs; i++) {
		const wt_node *o = in->objs[i];
		const char *kind = wdr_mget(o, "kind")->str;
		const char *api = wdr_mget(o, "apiVersion")->str;
		const char *name = meta_str(o, "name");
		const char *ns = meta_str(o, "namespace");
		/* v1beta1 and v1alpha3 shapes: no exactly:, devices under
		 * basic:; v1beta2 has the v1 shape. */
		bool old = !strcmp(api, "resource.k8s.io/v1beta1") ||
			   !strcmp(api, "resource.k8s.io/v1alpha3");
		if (!name)
			name = "";
		if (!ns || !*ns)
			ns = "default";
		bool nsd = strcmp(kind, "ResourceSlice") &&
			   strcmp(kind, "DeviceClass");
		c->cur = wdr_cat(c->t, kind, " ", nsd ? ns : "",
				 nsd ? "/" : "", name, NULL);
		if (!c->cur)
			return wdr_nomem(c);
		if (!strcmp(kind, "Namespace")) {
			if (wdr_dec_namespace(c, o, name))
				return c->rc;
			continue;
		}
		if (!strcmp(kind, "DeviceTaintRule")) {
			if (WA_PUSH(c->t, ob->rules, ob->nrules, ob->caprules,
				    o))
				return wdr_nomem(c);
			continue;
		}
		if (!strcmp(kind, "ResourceSlice")) {
			dslice x = {0};
			if (wdr_dec_slice(c, o, name, old, &x) ||
			    WA_PUSH(c->t, ob->sl, ob->nsl, ob->capsl, x))
				return c->rc ? c->rc : wdr_nomem(c);
		} else if (!strcmp(kind, "DeviceClass")) {
			wdr_class x = {0};
			if (wdr_dec_class(c, o, name, &x))
				return c->rc;
			if (ws_map_put(c->cls_idx, x.name, (int)ob->ncls) ==
				-2 ||
			    WA_PUSH(c->t, ob->cls, ob->ncls, ob->capcls, x))
				return wdr_nomem(c);
		} else {
			bool tpl = !strcmp(kind, "ResourceClaimTemplate");
			dclaim x = {0};
			x.o = o;
			x.sp.ns = wa_strdup(c->a, ns);
			x.sp.name = wa_strdup(c->a, name);
			x.sp.template_ = tpl;
			x.sp.src = wdr_src_of(c, o);
			const wt_node *spec = wdr_mget(o, "spec");
			const char *path = "spec";
			if (tpl) {
				spec = wdr_mget(spec, "spec");
				path = "spec.spec";
			}
			if (spec &&
			    wdr_dec_claimspec(c, spec, path, old, &x.sp))
				return c->rc;
			x.results = wdr_mget(
			    wdr_mget(wdr_mget(wdr_mget(o, "status"),
					      "allocation"), "devices"),
			    "results");
			x.reserved = wdr_mget(wdr_mget(o, "status"),
					      "reservedFor");
			char key[2 * WASP_MAX_NAME + 8];
			snprintf(key, sizeof key, "%c/%s/%s", tpl ? 'T' : 'C',
				 ns, name);
			const char *k = wa_strdup(c->t, key);
			if (!k ||
			    ws_map_put(c->spec_idx, k, (int)ob->ncl) == -2 ||
			    WA_PUSH(c->t, ob->cl, ob->ncl, ob->capcl, x))
				return wdr_nomem(c);
		}
		if (c->rc)
			return c->rc;
	}

	return 0;
}

/* Step 2: pools (only the newest generation counts; an incomplete pool
 * is warned about), then the slices and devices kept, a device listed
 * twice in a pool being an error; c->dev_idx maps "driver/pool/device". */
static int build_devices(dx *c, const dobjs *ob)
{
	ws_dra *d = c->d;
	const dslice *sl = ob->sl;
	size_t nsl = ob->nsl;
	ws_map *gen = ws_map_new(c->t);
	if (!gen)
		return wdr_nomem(c);
	int64_t *maxgen = wa_calloc(c->t, nsl + 1, sizeof *maxgen);
	int *pcount = wa_calloc(c->t, nsl + 1, sizeof *pcount);
	int *pof = wa_calloc(c->t, nsl + 1, sizeof *pof);
	if (!maxgen || !pcount || !pof)
		return wdr_nomem(c);
	int npools = 0;
	for (size_t i = 0; i < nsl; i++) {
		const char *key = wdr_cat(c->t, sl[i].sl.driver, "/",
					  sl[i].sl.pool, NULL);
		if (!key)
			return wdr_nomem(c);
		int p = ws_map_put(gen, key, npools);
		if (p == -2)
			return wdr_nomem(c);
		if (p == -1) {
			p = npools++;
			maxgen[p] = sl[i].sl.generation;
		} else if (sl[i].sl.generation > maxgen[p]) {
			maxgen[p] = sl[i].sl.generation;
		}
		pof[i] = p;
	}
	size_t ndev = 0;
	for (size_t i = 0; i < nsl; i++)
		if (sl[i].sl.generation == maxgen[pof[i]]) {
			pcount[pof[i]]++;
			ndev += sl[i].ndevs;
		}
	int nincomplete = 0;
	const char *first_inc = NULL;
	for (size_t i = 0; i < nsl; i++) {
		int p = pof[i];
		if (sl[i].sl.generation == maxgen[p] &&
		    pcount[p] < sl[i].sl.count) {
			if (!nincomplete++)
				first_inc = wa_printf(c->t, "%s/%s has %d of "
						      "%d", sl[i].sl.driver,
						      sl[i].sl.pool, pcount[p],
						      sl[i].sl.count);
			pcount[p] = sl[i].sl.count; /* report once */
		}
	}
	if (nincomplete && wdr_warn(c, "%d DRA pool%s incomplete (first: %s "
				    "slices); their devices are used as listed",
				    nincomplete,
				    nincomplete == 1 ? " is" : "s are",
				    first_inc))
		return c->rc;

	d->slices = wa_calloc(c->a, nsl + 1, sizeof *d->slices);
	d->devs = wa_calloc(c->a, ndev + 1, sizeof *d->devs);
	if (!d->slices || !d->devs)
		return wdr_nomem(c);
	ws_map *dupdev = ws_map_new(c->t);
	if (!dupdev)
		return wdr_nomem(c);
	for (size_t i = 0; i < nsl; i++) {
		if (sl[i].sl.generation != maxgen[pof[i]])
			continue;
		int si = d->nslices++;
		d->slices[si] = sl[i].sl;
		for (size_t k = 0; k < sl[i].ndevs; k++) {
			wdr_device *dv = &d->devs[d->ndevs];
			*dv = sl[i].devs[k];
			dv->slice = si;
			const char *key = wdr_cat(c->t, sl[i].sl.driver, "/",
						  sl[i].sl.pool, "/", dv->name,
						  NULL);
			if (!key)
				return wdr_nomem(c);
			int r = ws_map_put(dupdev, key, d->ndevs);
			if (r == -2)
				return wdr_nomem(c);
			if (r >= 0)
				return c->rc = werr_at(
					   c->err, WASP_EINPUT, sl[i].sl.src,
					   "device %s appears twice in pool "
					   "%s/%s", dv->name, sl[i].sl.driver,
					   sl[i].sl.pool);
			d->ndevs++;
		}
	}
	c->dev_idx = dupdev;

	return 0;
}

/* Step 3: the device classes, copied into the model. */
static int build_classes(dx *c, const dobjs *ob)
{
	ws_dra *d = c->d;
	wdr_class *cls = ob->cls;
	size_t ncls = ob->ncls;
	d->classes = cls;
	d->nclasses = (int)ncls;
	if (ncls) {
		d->classes = wa_calloc(c->a, ncls, sizeof *cls);
		if (!d->classes)
			return wdr_nomem(c);
		memcpy(d->classes, cls, ncls * sizeof *cls);
	}

	return 0;
}

/* Step 4: claim specs: resolve classes, number subs, read allocations. */
static int build_specs(dx *c, const dobjs *ob)
{
	ws_dra *d = c->d;
	const dclaim *cl = ob->cl;
	size_t ncl = ob->ncl;
	ws_map *dupdev = c->dev_idx;
	d->specs = wa_calloc(c->a, ncl + 1, sizeof *d->specs);
	d->taken0 = wa_calloc(c->a, (size_t)d->ndevs + 1, sizeof *d->taken0);
	if (!d->specs || !d->taken0)
		return wdr_nomem(c);
	d->nspecs = (int)ncl;
	int nsubs = 0;
	for (size_t i = 0; i < ncl; i++) {
		wdr_spec *sp = &d->specs[i];
		*sp = cl[i].sp;
		for (int r = 0; r < sp->nreqs; r++)
			for (int k = 0; k < sp->reqs[r].nalts; k++) {
				wdr_sub *sb = &sp->reqs[r].alts[k];
				sb->cls = ws_map_get(c->cls_idx,
						     sb->class_name);
				sb->id = nsubs++;
			}
		const wt_node *res = cl[i].results;
		if (!res || res->type != WT_SEQ)
			continue;
		sp->allocated = true;
		sp->alloc_dev = wa_calloc(c->a, res->n + 1, sizeof(int));
		sp->alloc_req = wa_calloc(c->a, res->n + 1, sizeof(char *));
		if (!sp->alloc_dev || !sp->alloc_req)
			return wdr_nomem(c);
		for (size_t k = 0; k < res->n; k++) {
			const wt_node *r = res->items[k];
			const char *drv = NULL, *pool = NULL, *dev = NULL,
				   *rq = NULL;
			const char *p = "status.allocation.devices.results";
			if (wdr_sfield(c, r, "driver", p, &drv) ||
			    wdr_sfield(c, r, "pool", p, &pool) ||
			    wdr_sfield(c, r, "device", p, &dev) ||
			    wdr_sfield(c, r, "request", p, &rq))
				return c->rc;
			if (!drv || !pool || !dev)
				return wdr_bad(c, r, p, "result needs driver, "
					       "pool and device");
			const wt_node *aa = wdr_mget(r, "adminAccess");
			if (aa && aa->type == WT_BOOL && aa->boolean)
				continue; /* admin access takes nothing */
			const char *key = wdr_cat(c->t, drv, "/", pool, "/",
						  dev, NULL);
			int di = key ? ws_map_get(dupdev, key) : -1;
			if (!key)
				return wdr_nomem(c);
			if (di < 0) {
				if (wdr_warn(c, "ResourceClaim %s/%s is "
					     "allocated device %s/%s/%s, which "
					     "no ResourceSlice lists", sp->ns,
					     sp->name, drv, pool, dev))
					return c->rc;
				continue;
			}
			sp->alloc_req[sp->nalloc] = rq ? rq : "";
			sp->alloc_dev[sp->nalloc++] = di;
			if (d->taken0[di] < UINT16_MAX)
				d->taken0[di]++;
		}
	}
	d->nsubs = nsubs;
	d->subs = wa_calloc(c->a, (size_t)nsubs + 1, sizeof *d->subs);
	if (!d->subs)
		return wdr_nomem(c);
	for (int i = 0; i < d->nspecs; i++)
		for (int r = 0; r < d->specs[i].nreqs; r++)
			for (int k = 0; k < d->specs[i].reqs[r].nalts; k++)
				d->subs[d->specs[i].reqs[r].alts[k].id] =
				    &d->specs[i].reqs[r].alts[k];

	return 0;
}

/* Step 5: pods' claim lists and the instances they share. */
static int build_pod_claims(dx *c, const wdr_input *in)
{
	ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	wdr_inst *insts = NULL;
	size_t ninst = 0, capinst = 0;
	d->pods = wa_calloc(c->a, (size_t)s->npods + 1, sizeof *d->pods);
	if (!d->pods)
		return wdr_nomem(c);
	ws_map *sigs = ws_map_new(c->t);
	if (!sigs)
		return wdr_nomem(c);
	int nsig = 0, nused = 0;
	for (int pi = 0; pi < s->npods; pi++) {
		const wt_node *l = in->pod_claims ? in->pod_claims[pi] : NULL;
		const ws_pod *pod = &s->pods[pi];
		if (!l || l->type != WT_SEQ || l->n == 0)
			continue;
		nused++;
		wdr_podc *pc = &d->pods[pi];
		pc->c = wa_calloc(c->a, l->n, sizeof *pc->c);
		if (!pc->c)
			return wdr_nomem(c);
		const wt_node *gl = pod->group >= 0 && in->group_claims
				    ? in->group_claims[pod->group] : NULL;
		char sig[1024];
		size_t sl2 = 0;
		sig[0] = 0;
		for (size_t k = 0; k < l->n; k++) {
			const char *name, *claim, *tpl;
			if (entry_src(c, l->items[k], "spec.resourceClaims",
				      &name, &claim, &tpl))
				return c->rc;
			wdr_pclaim *e = &pc->c[pc->n++];
			e->name = name;
			e->inst = -1;
			e->spec = spec_of(c, pod->ns, claim ? claim : tpl,
					  !claim);
			if (e->spec < 0 && !pc->why) {
				pc->why = wa_printf(c->a, "%s %s/%s does not "
						    "exist", claim
						    ? "ResourceClaim"
						    : "ResourceClaimTemplate",
						    pod->ns, claim ? claim
						    : tpl);
				if (!pc->why)
					return wdr_nomem(c);
			}
			/* The group's claim, when the entry matches it. */
			bool shared_g = false;
			for (size_t j = 0; gl && gl->type == WT_SEQ &&
			     j < gl->n; j++) {
				const char *gn, *gc, *gt;
				if (entry_src(c, gl->items[j],
					      "spec.resourceClaims", &gn, &gc,
					      &gt))
					return c->rc;
				if (!strcmp(gn, name) &&
				    (claim ? gc && !strcmp(gc, claim)
					   : gt && !strcmp(gt, tpl)))
					shared_g = true;
			}
			if (e->spec >= 0 && (claim || shared_g)) {
				const ws_group *g = shared_g
				    ? &s->groups[pod->group] : NULL;
				const char *iname = claim ? claim
				    : wa_printf(c->a, "%s-%s", g->name, name);
				if (!iname)
					return wdr_nomem(c);
				e->inst = find_inst(c, e->spec,
						    claim ? -1 : pod->group,
						    iname, pod->ns, &insts,
						    &ninst, &capinst);
				if (e->inst < 0)
					return c->rc;
			}
			int w = snprintf(sig + sl2, sizeof sig - sl2,
					 "%s:%d:%d;", name, e->spec, e->inst);
			if (w > 0 && (size_t)w < sizeof sig - sl2)
				sl2 += (size_t)w;
		}
		const char *ks = wa_strdup(c->t, sig);
		if (!ks)
			return wdr_nomem(c);
		int r = ws_map_put(sigs, ks, nsig + 1);
		if (r == -2)
			return wdr_nomem(c);
		pc->sig = r == -1 ? ++nsig : r;
	}
	d->insts = wa_calloc(c->a, ninst + 1, sizeof *d->insts);
	if (!d->insts)
		return wdr_nomem(c);
	if (ninst)
		memcpy(d->insts, insts, ninst * sizeof *insts);
	d->ninsts = (int)ninst;
	(void)nused;
	return 0;
}

/* Step 7: device reach index: node-local CSR plus the shared list. */
static int build_reach(dx *c)
{
	ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	d->node_first = wa_calloc(c->a, (size_t)s->nnodes + 2, sizeof(int));
	if (!d->node_first)
		return wdr_nomem(c);
	int nglob = 0, nloc = 0;
	for (int i = 0; i < d->ndevs; i++) {
		int n = d->devs[i].reach.node;
		if (n >= 0) {
			d->node_first[n + 1]++;
			nloc++;
		} else if (n != -3) {
			nglob++;
		}
	}
	for (int n = 0; n < s->nnodes; n++)
		d->node_first[n + 1] += d->node_first[n];
	d->node_devs = wa_calloc(c->a, (size_t)nloc + 1, sizeof(int));
	d->global = wa_calloc(c->a, (size_t)nglob + 1, sizeof(int));
	int *fill = wa_calloc(c->t, (size_t)s->nnodes + 1, sizeof(int));
	if (!d->node_devs || !d->global || !fill)
		return wdr_nomem(c);
	for (int i = 0; i < d->ndevs; i++) {
		int n = d->devs[i].reach.node;
		if (n >= 0)
			d->node_devs[d->node_first[n] + fill[n]++] = i;
		else if (n != -3)
			d->global[d->nglobal++] = i;
	}
	return 0;
}

/* Step 2b: DeviceTaintRule objects (KEP-5055, doc/dra.md) add their
 * taint to every device their deviceSelector picks by driver, pool and
 * device name (each optional).  A selector naming a deviceClassName or
 * CEL selectors is not applied (warned): picking by class is not
 * modelled. */
static int apply_taint_rules(dx *c, const dobjs *ob)
{
	ws_dra *d = c->d;
	for (size_t i = 0; i < ob->nrules; i++) {
		const wt_node *o = ob->rules[i];
		const char *name = meta_str(o, "name");
		c->cur = wa_printf(c->t, "DeviceTaintRule %s", name ? name : "");
		if (!c->cur)
			return wdr_nomem(c);
		const wt_node *spec = wdr_mget(o, "spec");
		const wt_node *sel = wdr_mget(spec, "deviceSelector");
		const char *drv = NULL, *pool = NULL, *dev = NULL,
			   *cls = NULL;
		wdr_device one = {0};
		const wt_node *tl = wdr_mget(spec, "taint");
		if (!tl)
			return wdr_bad(c, o, "spec", "a DeviceTaintRule needs "
				       "spec.taint");
		/* one taint, decoded as a list of one */
		wt_node *seq = wa_calloc(c->t, 1, sizeof *seq);
		const wt_node **it = wa_calloc(c->t, 1, sizeof *it);
		if (!seq || !it)
			return wdr_nomem(c);
		*it = tl;
		seq->type = WT_SEQ;
		seq->src = tl->src;
		seq->n = 1;
		seq->items = (wt_node **)it;
		if ((sel && (wdr_want(c, sel, WT_MAP, "spec.deviceSelector") ||
			     wdr_sfield(c, sel, "driver",
					"spec.deviceSelector", &drv) ||
			     wdr_sfield(c, sel, "pool", "spec.deviceSelector",
					&pool) ||
			     wdr_sfield(c, sel, "device",
					"spec.deviceSelector", &dev) ||
			     wdr_sfield(c, sel, "deviceClassName",
					"spec.deviceSelector", &cls))) ||
		    wdr_dec_taints(c, seq, "spec.taint", &one))
			return c->rc;
		if (cls || wdr_mget(sel, "selectors")) {
			if (wdr_warn(c, "DeviceTaintRule %s selects devices "
				     "by deviceClassName or selectors, which "
				     "wasp does not model: its taint is not "
				     "applied", name ? name : ""))
				return c->rc ? c->rc : wdr_nomem(c);
			continue;
		}
		for (int k = 0; k < d->ndevs; k++) {
			wdr_device *dv = &d->devs[k];
			if ((drv && strcmp(drv, dv->cel.driver)) ||
			    (pool && strcmp(pool, d->slices[dv->slice].pool)) ||
			    (dev && strcmp(dev, dv->name)))
				continue;
			wdr_taint *t = wa_calloc(c->a, (size_t)dv->ntaints + 2,
						 sizeof *t);
			if (!t)
				return wdr_nomem(c);
			if (dv->ntaints)
				memcpy(t, dv->taints,
				       (size_t)dv->ntaints * sizeof *t);
			t[dv->ntaints] = one.taints[0];
			dv->taints = t;
			dv->ntaints++;
		}
	}
	return 0;
}

static int build(dx *c, const wdr_input *in)
{
	dobjs ob = {0};
	int rc;
	if ((rc = read_objects(c, in, &ob)) || (rc = build_devices(c, &ob)) ||
	    (rc = apply_taint_rules(c, &ob)) || (rc = build_classes(c, &ob)) || (rc = build_specs(c, &ob)) ||
	    (rc = build_pod_claims(c, in)) || (rc = wdr_ext_resources(c)))
		return rc;
	/* Step 6.  A pending pod sharing an allocated ResourceClaim does not
	 * take its devices from itself: those stay counted in taken0, and
	 * wdr_place only checks their reach. */
	if (claim_holders(c, ob.cl, ob.ncl, in))
		return c->rc ? c->rc : wdr_nomem(c);
	if (build_reach(c) || build_attr_keys(c) || build_masks(c))
		return c->rc;
	return wdr_rules_build(c);
}

/* A hash of attribute value a consistent with wdr_attr_equal (equal
 * values hash alike; versions, equal by precedence, all hash alike). */
static uint64_t attr_hash(const wcel_attr *a)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)a->type;
	const uint64_t P = 1099511628211ULL;
	switch (a->type) {
	case WCEL_A_INT: return (h ^ (uint64_t)a->i) * P;
	case WCEL_A_BOOL: return (h ^ (uint64_t)a->b) * P;
	case WCEL_A_STRING:
		for (const char *p = a->s; *p; p++)
			h = (h ^ (unsigned char)*p) * P;
		return h;
	case WCEL_A_VERSION: return h;
	default:
		h = (h ^ (uint64_t)a->n) * P;
		for (int i = 0; i < a->n; i++)
			if (a->type == WCEL_A_INTS)
				h = (h ^ (uint64_t)a->li[i]) * P;
			else if (a->type == WCEL_A_BOOLS)
				h = (h ^ (uint64_t)a->lb[i]) * P;
			else
				for (const char *p = a->ls[i]; *p; p++)
					h = (h ^ (unsigned char)*p) * P;
		return h;
	}
}

/* Classes of the value of attribute (domain, name) over all devices into
 * val (-1: the device has none): equal classes <=> wdr_attr_equal.  An
 * open-addressed table of class representatives.  -1 on NOMEM. */
static int attr_classes(dx *c, const char *domain, const char *name,
			int32_t *val)
{
	const ws_dra *d = c->d;
	size_t cap = 64;
	while (cap < 2 * (size_t)d->ndevs + 2)
		cap *= 2;
	int32_t *slot = wa_alloc(c->t, cap * sizeof *slot);
	const wcel_attr **rep = wa_calloc(c->t, (size_t)d->ndevs + 1,
					  sizeof *rep);
	if (!slot || !rep)
		return -1;
	memset(slot, 0xff, cap * sizeof *slot);
	int nrep = 0;
	for (int dv = 0; dv < d->ndevs; dv++) {
		const wcel_attr *a = wdr_attr(&d->devs[dv], domain, name);
		if (!a) {
			val[dv] = -1;
			continue;
		}
		size_t i = (size_t)attr_hash(a) & (cap - 1);
		while (slot[i] >= 0 && !wdr_attr_equal(rep[slot[i]], a))
			i = (i + 1) & (cap - 1);
		if (slot[i] < 0) {
			rep[nrep] = a;
			slot[i] = nrep++;
		}
		val[dv] = slot[i];
	}
	return 0;
}

/* Step 8: the constraints' attributes as small ints (ws_dra.aval), so
 * that the claim search compares ints, and per sub the constraints that
 * bind it (wdr_sub.con). */
static int build_attr_keys(dx *c)
{
	ws_dra *d = c->d;
	ws_map *keys = ws_map_new(c->t);
	int32_t **aval = NULL;
	size_t cap = 0;
	int nk = 0;
	if (!keys)
		return wdr_nomem(c);
	for (int i = 0; i < d->nspecs; i++) {
		wdr_spec *sp = &d->specs[i];
		for (int k = 0; k < sp->ncons; k++) {
			wdr_cons *cn = &sp->cons[k];
			const char *key = wa_printf(c->t, "%s\x1f%s",
						    cn->domain, cn->attr);
			if (!key)
				return wdr_nomem(c);
			int ki = ws_map_get(keys, key);
			if (ki < 0) {
				int32_t *row = wa_alloc(
				    c->a, ((size_t)d->ndevs + 1) *
				    sizeof *row);
				size_t n = (size_t)nk;
				if (!row || ws_map_put(keys, key, nk) == -2 ||
				    WA_PUSH(c->a, aval, n, cap, row) ||
				    attr_classes(c, cn->domain, cn->attr, row))
					return wdr_nomem(c);
				ki = nk++;
			}
			cn->key = ki;
		}
		for (int r = 0; r < sp->nreqs && sp->ncons; r++)
			for (int a = 0; a < sp->reqs[r].nalts; a++) {
				wdr_sub *sb = &sp->reqs[r].alts[a];
				unsigned char *on = wa_calloc(
				    c->a, (size_t)sp->ncons, 1);
				if (!on)
					return wdr_nomem(c);
				for (int k = 0; k < sp->ncons; k++)
					on[k] = wdr_cons_has(&sp->cons[k],
							     sb->name);
				sb->con = on;
			}
	}
	d->aval = aval;
	d->nakeys = nk;
	return 0;
}

/* Step 9: the masks of the common claim shape (ws_dra.nmask_ok, pm_beg,
 * pmask). */
static int build_masks(dx *c)
{
	ws_dra *d = c->d;
	int nn = c->s->nnodes;
	d->nmask_ok = wa_calloc(c->a, (size_t)nn + 1, 1);
	d->pm_beg = wa_calloc(c->a, (size_t)d->nakeys + 1, sizeof *d->pm_beg);
	d->pmask = wa_calloc(c->a, (size_t)d->nakeys + 1, sizeof *d->pmask);
	if (!d->nmask_ok || !d->pm_beg || !d->pmask)
		return wdr_nomem(c);
	for (int n = 0; n < nn; n++) {
		int f = d->node_first[n], k = d->node_first[n + 1] - f;
		bool ok = !d->nglobal && k <= 64, taints = false;
		for (int i = 0; i < k; i++) {
			const wdr_device *dv = &d->devs[d->node_devs[f + i]];
			ok &= !dv->multi && !dv->nuses;
			taints |= dv->ntaints > 0;
		}
		d->nmask_ok[n] = (ok ? WDR_NODE_MASK : 0) |
				 (taints ? WDR_NODE_TAINTS : 0);
	}
	bool gtaints = false;
	for (int i = 0; i < d->nglobal && !gtaints; i++)
		gtaints = d->devs[d->global[i]].ntaints > 0;
	for (int n = 0; n < nn && gtaints; n++)
		d->nmask_ok[n] |= WDR_NODE_TAINTS;
	for (int key = 0; key < d->nakeys; key++) {
		const int32_t *val = d->aval[key];
		int *beg = wa_calloc(c->a, (size_t)nn + 2, sizeof *beg);
		uint64_t *pm = NULL;
		size_t npm = 0, cap = 0;
		if (!beg)
			return wdr_nomem(c);
		for (int n = 0; n < nn; n++) {
			beg[n] = (int)npm;
			int f = d->node_first[n], k = d->node_first[n + 1] - f;
			int32_t pv[64];
			for (int i = 0; (d->nmask_ok[n] & WDR_NODE_MASK) && i < k;
			     i++) {
				int32_t v = val[d->node_devs[f + i]];
				if (v < 0)
					continue;
				size_t j = beg[n];
				while (j < npm && pv[j - beg[n]] != v)
					j++;
				if (j == npm) {
					if (WA_PUSH(c->a, pm, npm, cap, 0))
						return wdr_nomem(c);
					pv[j - beg[n]] = v;
				}
				pm[j] |= (uint64_t)1 << i;
			}
		}
		beg[nn] = (int)npm;
		d->pm_beg[key] = beg;
		d->pmask[key] = pm;
	}
	return 0;
}

/* Step 6 of build: who holds each allocated claim (running pods whose claim
 * list names it, or that its status.reservedFor lists), and per pod the
 * claims it holds.  -1 on NOMEM. */
static int claim_holders(dx *c, const dclaim *cl, size_t ncl,
			 const wdr_input *in)
{
	const ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	int np = s->npods;
	int *cnt = wa_calloc(c->t, (size_t)ncl + 1, sizeof(int));
	int *pairs = NULL;
	size_t npairs = 0, cap = 0;
	d->held_beg = wa_calloc(c->a, (size_t)np + 2, sizeof(int));
	if (!cnt || !d->held_beg)
		return -1;
	for (int pi = 0; pi < np; pi++) {
		const ws_pod *pod = &s->pods[pi];
		if (pod->terminal || pod->node < 0 || ws_pod_pending(pod))
			continue;
		const wdr_podc *pc = &d->pods[pi];
		const wt_node *cs = in->pod_claim_status
				    ? in->pod_claim_status[pi] : NULL;
		for (int k = 0; k < pc->n; k++) {
			int sp = pc->c[k].spec;
			/* a template entry: the claim made for it, named in
			 * status.resourceClaimStatuses */
			for (size_t j = 0; sp >= 0 && d->specs[sp].template_ &&
			     cs && cs->type == WT_SEQ && j < cs->n; j++) {
				const wt_node *nm = wdr_mget(cs->items[j],
							     "name");
				const wt_node *rc =
				    wdr_mget(cs->items[j], "resourceClaimName");
				if (nm && nm->type == WT_STR && rc &&
				    rc->type == WT_STR &&
				    !strcmp(nm->str, pc->c[k].name)) {
					sp = spec_of(c, pod->ns, rc->str,
						     false);
					break;
				}
			}
			if (sp < 0 || !d->specs[sp].allocated ||
			    d->specs[sp].template_)
				continue;
			if (wa_grow(c->t, (void **)&pairs, sizeof *pairs, &cap,
				    npairs + 2))
				return -1;
			pairs[npairs++] = pi;
			pairs[npairs++] = sp;
		}
	}
	for (size_t i = 0; i < ncl; i++) {
		const wt_node *rf = cl[i].reserved;
		if (!d->specs[i].allocated || !rf || rf->type != WT_SEQ)
			continue;
		for (size_t j = 0; j < rf->n; j++) {
			const wt_node *res = wdr_mget(rf->items[j], "resource");
			const wt_node *nm = wdr_mget(rf->items[j], "name");
			if (!res || res->type != WT_STR || !nm ||
			    nm->type != WT_STR || strcmp(res->str, "pods"))
				continue;
			int pi = ws_pod_index(s, d->specs[i].ns, nm->str);
			if (pi < 0 || s->pods[pi].node < 0 ||
			    ws_pod_pending(&s->pods[pi]) ||
			    s->pods[pi].terminal)
				continue;
			bool dup = false;
			for (size_t q = 0; q < npairs && !dup; q += 2)
				dup = pairs[q] == pi && pairs[q + 1] == (int)i;
			if (dup)
				continue;
			if (wa_grow(c->t, (void **)&pairs, sizeof *pairs, &cap,
				    npairs + 2))
				return -1;
			pairs[npairs++] = pi;
			pairs[npairs++] = (int)i;
		}
	}
	for (size_t q = 0; q < npairs; q += 2) {
		d->held_beg[pairs[q] + 1]++;
		cnt[pairs[q + 1]]++;
	}
	for (int pi = 0; pi < np; pi++)
		d->held_beg[pi + 1] += d->held_beg[pi];
	d->held = wa_calloc(c->a, npairs / 2 + 1, sizeof(int));
	int *fill = wa_calloc(c->t, (size_t)np + 1, sizeof(int));
	if (!d->held || !fill)
		return -1;
	for (size_t i = 0; i < ncl; i++) {
		d->specs[i].holders = wa_calloc(c->a, (size_t)cnt[i] + 1,
						sizeof(int));
		if (!d->specs[i].holders)
			return -1;
	}
	for (size_t q = 0; q < npairs; q += 2) {
		int pi = pairs[q], sp = pairs[q + 1];
		d->held[d->held_beg[pi] + fill[pi]++] = sp;
		d->specs[sp].holders[d->specs[sp].nholders++] = pi;
	}
	return 0;
}

int wdr_decode(ws_snapshot *s, const wdr_input *in, wasp_error *err)
{
	dx c0 = {0}, *c = &c0;
	bool any = false;
	for (int i = 0; i < s->npods && in->pod_claims; i++)
		any |= in->pod_claims[i] && in->pod_claims[i]->type == WT_SEQ &&
		       in->pod_claims[i]->n > 0;
	c->s = s;
	c->a = s->arena;
	c->err = err;
	c->t = wa_new();
	if (!c->t)
		return werr(err, WASP_ENOMEM, "out of memory");
	c->d = wa_alloc(c->a, sizeof *c->d);
	c->cls_idx = ws_map_new(c->t);
	c->spec_idx = ws_map_new(c->t);
	int rc;
	if (!c->d || !c->cls_idx || !c->spec_idx)
		rc = wdr_nomem(c);
	else
		rc = build(c, in);
	if (!rc && (c->nwarns && add_warnings(c)))
		rc = c->rc;
	if (!rc)
		s->dra = any || c->ext_any ? c->d : NULL;
	wa_destroy(c->t);
	return rc;
}
