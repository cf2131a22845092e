/*
 * decode_core.c -- v1 Node and v1 Pod (doc/input.md "Nodes", "Pods").
 *
 * Nodes: labels, allocatable (capacity when absent), taints,
 * unschedulable, the Ready condition.  Pods: node selector, required node
 * affinity, tolerations, priority fields, group name, binding and phase,
 * and the effective requests (PodRequests(): limits for missing requests,
 * init containers by the max rule with sidecars, pod-level resources,
 * overhead).
 */

#include "model/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pod request scratch arrays (sum, side, imax, cand, podl, mark,
 * touched), grown to cover every resource interned so far. */
static int scratch_fit(dctx *c)
{
	if (c->scap >= c->nres)
		return 0;
	size_t n = c->nres * 2 + 8;
	int64_t **v[] = {&c->sum, &c->side, &c->imax, &c->cand, &c->podl};
	for (size_t i = 0; i < 5; i++) {
		int64_t *x = wa_calloc(c->t, n, sizeof *x);
		if (!x)
			return wd_nomem(c);
		*v[i] = x;
	}
	c->mark = wa_calloc(c->t, n, sizeof *c->mark);
	c->podl_set = wa_calloc(c->t, n, sizeof *c->podl_set);
	c->touched = wa_calloc(c->t, n, sizeof *c->touched);
	if (!c->mark || !c->podl_set || !c->touched)
		return wd_nomem(c);
	c->scap = n;
	return 0;
}

/* ---------------------------------------------------------------- Node */

int wd_dec_node(dctx *c, const wt_node *o, const char *name,
		const wt_node *meta)
{
	char p[PATHMAX], q[PATHMAX];
	dnode d = {0};
	ws_node *n = &d.n;
	n->name = wa_strdup(c->a, name);
	if (!n->name)
		return wd_nomem(c);
	n->src = wd_src_of(c, o);
	n->ready = true;

	const wt_node *lab = wd_mget(meta, "labels");
	if (lab) {
		if (wd_dec_labels(c, lab, "metadata.labels", &n->labels,
				  &n->nlabels))
			return c->rc;
		if (n->nlabels > 1) /* qsort(NULL, 0) is undefined */
			qsort(n->labels, (size_t)n->nlabels,
			      sizeof *n->labels, wd_kv_cmp);
	}

	const wt_node *spec = wd_mget(o, "spec"), *st = wd_mget(o, "status");
	if (spec && wd_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (st && wd_want(c, st, WT_MAP, "status"))
		return c->rc;

	const wt_node *v;
	if ((v = wd_mget(spec, "unschedulable")) &&
	    wd_bval(c, v, "spec.unschedulable", &n->unschedulable))
		return c->rc;

	const wt_node *taints = wd_mget(spec, "taints");
	if (taints) {
		if (wd_want(c, taints, WT_SEQ, "spec.taints"))
			return c->rc;
		n->taints = wa_calloc(c->a, taints->n + 1, sizeof *n->taints);
		if (!n->taints)
			return wd_nomem(c);
		for (size_t i = 0; i < taints->n; i++) {
			const wt_node *t = taints->items[i];
			ws_taint *tt = &n->taints[i];
			wd_pi(p, "spec.taints", i);
			if (wd_want(c, t, WT_MAP, p))
				return c->rc;
			if (wd_sfield(c, t, "key", p, &tt->key, NULL) ||
			    wd_sfield(c, t, "value", p, &tt->val, NULL))
				return c->rc;
			if (!tt->key || !*tt->key)
				return wd_bad(c, t, p, "taint has no key");
			if (!tt->val)
				tt->val = "";
			const wt_node *e = wd_mget(t, "effect");
			if (!e)
				return wd_bad(c, t, p, "taint has no effect");
			if (wd_dec_effect(c, e, wd_pk(q, p, "effect"), false,
					  &tt->effect))
				return c->rc;
		}
		n->ntaints = (int)taints->n;
	}

	const wt_node *conds = wd_mget(st, "conditions");
	if (conds) {
		if (wd_want(c, conds, WT_SEQ, "status.conditions"))
			return c->rc;
		for (size_t i = 0; i < conds->n; i++) {
			const wt_node *cd = conds->items[i];
			const char *type = NULL, *status = NULL;
			const wt_node *tn, *sn;
			wd_pi(p, "status.conditions", i);
			if (wd_want(c, cd, WT_MAP, p))
				return c->rc;
			if ((tn = wd_mget(cd, "type")) &&
			    wd_sval(c, tn, wd_pk(q, p, "type"), &type))
				return c->rc;
			if ((sn = wd_mget(cd, "status")) &&
			    wd_sval(c, sn, wd_pk(q, p, "status"), &status))
				return c->rc;
			if (type && !strcmp(type, "Ready"))
				n->ready = status && !strcmp(status, "True");
		}
	}

	/* allocatable, or capacity when a node reports no allocatable */
	const wt_node *al = wd_mget(st, "allocatable");
	const char *alp = "status.allocatable";
	if (!al) {
		al = wd_mget(st, "capacity");
		alp = "status.capacity";
	}
	if (al && wd_dec_reslist(c, al, alp, &d.alloc, false))
		return c->rc;

	if (WA_PUSH(c->t, c->nodes, c->nnodes, c->capnodes, d))
		return wd_nomem(c);
	return 0;
}

/* ----------------------------------------------------------------- Pod */

static int dec_affinity(dctx *c, const wt_node *aff, ws_pod *pod)
{
	char p[PATHMAX], q[PATHMAX], r[PATHMAX];
	const char *base = "spec.affinity";
	if (wd_want(c, aff, WT_MAP, base))
		return c->rc;
	const wt_node *na = wd_mget(aff, "nodeAffinity");
	if (!na)
		return 0;
	if (wd_want(c, na, WT_MAP, "spec.affinity.nodeAffinity"))
		return c->rc;
	const char *rp = "spec.affinity.nodeAffinity."
			 "requiredDuringSchedulingIgnoredDuringExecution";
	const wt_node *req = wd_mget(na, "requiredDuringSchedulingIgnoredDuring"
				      "Execution");
	if (!req)
		return 0;
	if (wd_want(c, req, WT_MAP, rp))
		return c->rc;
	const wt_node *terms = wd_mget(req, "nodeSelectorTerms");
	wd_pk(p, rp, "nodeSelectorTerms");
	if (!terms || terms->n == 0)
		return wd_bad(c, terms ? terms : req, p,
			      "a required node selector needs at least one "
			      "term");
	if (wd_want(c, terms, WT_SEQ, p))
		return c->rc;
	pod->affinity = wa_calloc(c->a, terms->n, sizeof *pod->affinity);
	if (!pod->affinity)
		return wd_nomem(c);
	for (size_t t = 0; t < terms->n; t++) {
		const wt_node *term = terms->items[t];
		ws_term *wt = &pod->affinity[t];
		wd_pi(q, p, t);
		if (wd_want(c, term, WT_MAP, q))
			return c->rc;
		const wt_node *me = wd_mget(term, "matchExpressions"),
			      *mf = wd_mget(term, "matchFields");
		if (me &&
		    wd_want(c, me, WT_SEQ, wd_pk(r, q, "matchExpressions")))
			return c->rc;
		if (mf && wd_want(c, mf, WT_SEQ, wd_pk(r, q, "matchFields")))
			return c->rc;
		size_t ne = (me ? me->n : 0) + (mf ? mf->n : 0);
		wt->exprs = wa_calloc(c->a, ne + 1, sizeof *wt->exprs);
		if (!wt->exprs)
			return wd_nomem(c);
		for (int f = 0; f < 2; f++) {
			const wt_node *l = f ? mf : me;
			for (size_t i = 0; l && i < l->n; i++) {
				char xp[PATHMAX];
				wd_pi(xp, wd_pk(r, q, f ? "matchFields"
						  : "matchExpressions"), i);
				if (wd_dec_expr(c, l->items[i], xp, f,
						&wt->exprs[wt->nexprs]))
					return c->rc;
				wt->nexprs++;
			}
		}
	}
	pod->naffinity = (int)terms->n;
	return 0;
}

static int dec_tolerations(dctx *c, const wt_node *tl, ws_pod *pod)
{
	char p[PATHMAX], q[PATHMAX];
	const char *base = "spec.tolerations";
	if (wd_want(c, tl, WT_SEQ, base))
		return c->rc;
	pod->tolerations = wa_calloc(c->a, tl->n + 1,
				     sizeof *pod->tolerations);
	if (!pod->tolerations)
		return wd_nomem(c);
	for (size_t i = 0; i < tl->n; i++) {
		const wt_node *t = tl->items[i], *opn, *e;
		ws_toleration *to = &pod->tolerations[i];
		wd_pi(p, base, i);
		if (wd_want(c, t, WT_MAP, p))
			return c->rc;
		if (wd_sfield(c, t, "key", p, &to->key, NULL) ||
		    wd_sfield(c, t, "value", p, &to->val, NULL))
			return c->rc;
		if (!to->key)
			to->key = "";
		if (!to->val)
			to->val = "";
		const char *op = "";
		if ((opn = wd_mget(t, "operator")) &&
		    wd_sval(c, opn, wd_pk(q, p, "operator"), &op))
			return c->rc;
		if (!strcmp(op, "Exists"))
			to->exists = true;
		else if (*op && strcmp(op, "Equal"))
			return wd_bad(c, opn, q, "unknown operator \"%s\" "
				      "(want Exists or Equal)", op);
		if (!to->exists && !*to->key)
			return wd_bad(c, t, p, "operator must be Exists when "
				      "the key is empty");
		if (to->exists && *to->val)
			return wd_bad(c, wd_mget(t, "value"),
				      wd_pk(q, p, "value"), "must be empty "
				      "when operator is Exists");
		to->effect = WS_EFFECT_ALL;
		if ((e = wd_mget(t, "effect")) &&
		    wd_dec_effect(c, e, wd_pk(q, p, "effect"), true,
				  &to->effect))
			return c->rc;
	}
	pod->ntolerations = (int)tl->n;
	return 0;
}

static bool pod_level_resource(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "memory") ||
	       !strncmp(name, "hugepages-", 10);
}

static int add_ck(dctx *c, const wt_node *at, int64_t *x, int64_t y)
{
	if (__builtin_add_overflow(*x, y, x))
		return wd_bad(c, at, "", "summed resource requests overflow");
	return 0;
}

static void touch(dctx *c, int r, int *nt)
{
	if (!c->mark[r]) {
		c->mark[r] = true;
		c->touched[(*nt)++] = r;
	}
}

/* Effective pod requests (component-helpers' PodRequests): regular
 * containers summed; init containers by the max rule, with restartable
 * (sidecar) init containers running alongside everything after them
 * (KEP-753); pod-level requests for cpu/memory/hugepages; overhead. */
static int dec_requests(dctx *c, const wt_node *o, const wt_node *spec,
			dpod *d)
{
	char p[PATHMAX], q[PATHMAX];
	qlist *ctr = NULL;
	bool *sidecar = NULL;
	size_t nc = 0, ni = 0;
	const wt_node *cs = wd_mget(spec, "containers"),
		      *ics = wd_mget(spec, "initContainers");
	if (cs && wd_want(c, cs, WT_SEQ, "spec.containers"))
		return c->rc;
	if (ics && wd_want(c, ics, WT_SEQ, "spec.initContainers"))
		return c->rc;
	nc = cs ? cs->n : 0;
	ni = ics ? ics->n : 0;
	ctr = wa_calloc(c->t, nc + ni + 1, sizeof *ctr);
	sidecar = wa_calloc(c->t, nc + ni + 1, sizeof *sidecar);
	if (!ctr || !sidecar)
		return wd_nomem(c);
	for (size_t i = 0; i < nc + ni; i++) {
		bool init = i >= nc;
		const wt_node *ct = init ? ics->items[i - nc] : cs->items[i];
		wd_pi(p, init ? "spec.initContainers" : "spec.containers",
		      init ? i - nc : i);
		if (wd_want(c, ct, WT_MAP, p))
			return c->rc;
		const wt_node *res = wd_mget(ct, "resources"), *rp;
		if (res && wd_dec_resources(c, res, wd_pk(q, p, "resources"),
					    &ctr[i]))
			return c->rc;
		if (init && (rp = wd_mget(ct, "restartPolicy"))) {
			const char *s = "";
			if (wd_sval(c, rp, wd_pk(q, p, "restartPolicy"), &s))
				return c->rc;
			sidecar[i] = !strcmp(s, "Always");
		}
	}
	qlist over = {0}, podl = {0};
	const wt_node *ov = wd_mget(spec, "overhead"),
		      *pr = wd_mget(spec, "resources");
	if (ov && wd_dec_reslist(c, ov, "spec.overhead", &over, true))
		return c->rc;
	if (pr && wd_dec_resources(c, pr, "spec.resources", &podl))
		return c->rc;

	if (scratch_fit(c))
		return WASP_ENOMEM;
	int nt = 0;
	for (size_t i = 0; i < nc + ni; i++)
		for (size_t k = 0; k < ctr[i].n; k++)
			touch(c, ctr[i].q[k].r, &nt);
	for (size_t k = 0; k < over.n; k++)
		touch(c, over.q[k].r, &nt);
	for (size_t k = 0; k < podl.n; k++)
		if (pod_level_resource(c->rnames[podl.q[k].r]))
			touch(c, podl.q[k].r, &nt);

	for (size_t i = 0; i < nc; i++)
		for (size_t k = 0; k < ctr[i].n; k++)
			if (add_ck(c, o, &c->sum[ctr[i].q[k].r],
				   ctr[i].q[k].v))
				return c->rc;
	for (size_t i = nc; i < nc + ni; i++) {
		for (int k = 0; k < nt; k++)
			c->cand[c->touched[k]] = 0;
		for (size_t k = 0; k < ctr[i].n; k++) {
			int r = ctr[i].q[k].r;
			if (sidecar[i]) {
				if (add_ck(c, o, &c->sum[r], ctr[i].q[k].v) ||
				    add_ck(c, o, &c->side[r], ctr[i].q[k].v))
					return c->rc;
			} else {
				c->cand[r] = ctr[i].q[k].v;
			}
		}
		for (int k = 0; k < nt; k++) {
			int r = c->touched[k];
			int64_t v = sidecar[i] ? c->side[r] : c->cand[r];
			if (!sidecar[i] && add_ck(c, o, &v, c->side[r]))
				return c->rc;
			if (v > c->imax[r])
				c->imax[r] = v;
		}
	}
	for (size_t k = 0; k < podl.n; k++) {
		int r = podl.q[k].r;
		if (pod_level_resource(c->rnames[r])) {
			c->podl[r] = podl.q[k].v;
			c->podl_set[r] = true;
		}
	}
	d->req.q = wa_calloc(c->t, (size_t)nt + 1, sizeof *d->req.q);
	if (!d->req.q)
		return wd_nomem(c);
	int err = 0;
	for (int k = 0; k < nt; k++) {
		int r = c->touched[k];
		int64_t v = c->sum[r] > c->imax[r] ? c->sum[r] : c->imax[r];
		if (c->podl_set[r])
			v = c->podl[r];
		d->req.q[d->req.n++] = (qv){r, v};
	}
	for (size_t k = 0; k < over.n && !err; k++)
		for (size_t j = 0; j < d->req.n; j++)
			if (d->req.q[j].r == over.q[k].r &&
			    add_ck(c, o, &d->req.q[j].v, over.q[k].v))
				err = WASP_EINPUT;
	for (int k = 0; k < nt; k++) {
		int r = c->touched[k];
		c->sum[r] = c->side[r] = c->imax[r] = c->cand[r] = 0;
		c->podl[r] = 0;
		c->podl_set[r] = c->mark[r] = false;
	}
	return err;
}

int wd_dec_pod(dctx *c, const wt_node *o, const char *ns,
	       const char *name)
{
	dpod d = {0};
	ws_pod *pod = &d.p;
	pod->ns = wa_strdup(c->a, ns);
	pod->name = wa_strdup(c->a, name);
	if (!pod->ns || !pod->name)
		return wd_nomem(c);
	pod->src = wd_src_of(c, o);
	pod->group = -1;
	pod->node = -1;
	{
		const wt_node *pm = wd_mget(o, "metadata"), *pl;
		if (pm && (pl = wd_mget(pm, "resourceVersion"))) {
			const char *rv = "";
			if (wd_sval(c, pl, "metadata.resourceVersion", &rv))
				return c->rc;
			if (*rv && !(pod->rv = wa_strdup(c->a, rv)))
				return wd_nomem(c);
		}
		if (pm && (pl = wd_mget(pm, "labels"))) {
			if (wd_dec_labels(c, pl, "metadata.labels",
					  &pod->labels, &pod->nlabels))
				return c->rc;
			if (pod->nlabels > 1)
				qsort(pod->labels, (size_t)pod->nlabels,
				      sizeof *pod->labels, wd_kv_cmp);
		}
	}

	const wt_node *spec = wd_mget(o, "spec"), *st = wd_mget(o, "status"),
		      *v;
	if (spec && wd_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (st && wd_want(c, st, WT_MAP, "status"))
		return c->rc;

	if (dec_requests(c, o, spec, &d))
		return c->err ? c->err->code : WASP_EINPUT;

	if ((v = wd_mget(spec, "nodeSelector"))) {
		if (wd_dec_labels(c, v, "spec.nodeSelector", &pod->selector,
				  &pod->nselector))
			return c->rc;
		if (pod->nselector > 1)
			qsort(pod->selector, (size_t)pod->nselector,
			      sizeof *pod->selector, wd_kv_cmp);
	}
	if ((v = wd_mget(spec, "affinity")) && dec_affinity(c, v, pod))
		return c->rc;
	if ((v = wd_mget(spec, "tolerations")) && dec_tolerations(c, v, pod))
		return c->rc;

	if ((v = wd_mget(spec, "priority"))) {
		int64_t x;
		if (wd_ival(c, v, "spec.priority", INT32_MIN, INT32_MAX, &x))
			return c->rc;
		d.has_prio = true;
		d.prio = (int32_t)x;
	}
	if (wd_sfield(c, spec, "priorityClassName", "spec", &d.pcname,
		      &d.pcname_node))
		return c->rc;
	if (d.pcname && !*d.pcname)
		d.pcname = NULL;
	if ((v = wd_mget(spec, "preemptionPolicy"))) {
		if (wd_dec_preempt(c, v, "spec.preemptionPolicy", &d.preempt))
			return c->rc;
		d.has_preempt = true;
	}
	if ((v = wd_mget(spec, "schedulingGroup"))) {
		if (wd_want(c, v, WT_MAP, "spec.schedulingGroup"))
			return c->rc;
		if (wd_sfield(c, v, "podGroupName", "spec.schedulingGroup",
			      &d.gname, &d.gname_node))
			return c->rc;
		if (d.gname &&
		    wd_check_name(c, d.gname_node,
				  "spec.schedulingGroup.podGroupName",
				  d.gname))
			return c->rc;
	}
	/* a coscheduling or Volcano PodGroup by label or annotation */
	if (wd_foreign_member(c, wd_mget(o, "metadata"), &d))
		return c->rc;
	if ((v = wd_mget(spec, "nodeName"))) {
		const char *s = "";
		if (wd_sval(c, v, "spec.nodeName", &s))
			return c->rc;
		if (*s && !(pod->node_name = wa_strdup(c->a, s)))
			return wd_nomem(c);
	}
	if ((v = wd_mget(spec, "resourceClaims"))) {
		if (wd_want(c, v, WT_SEQ, "spec.resourceClaims"))
			return c->rc;
		d.dra = v->n > 0;
		d.claims_node = v;
	}
	d.claim_status = wd_mget(st, "resourceClaimStatuses");
	d.workload_ref = wd_mget(spec, "workloadRef") != NULL;
	if ((v = wd_mget(st, "phase"))) {
		const char *s = "";
		if (wd_sval(c, v, "status.phase", &s))
			return c->rc;
		pod->terminal = !strcmp(s, "Succeeded") ||
				!strcmp(s, "Failed");
	}
	if (WA_PUSH(c->t, c->pods, c->npods, c->cappods, d))
		return wd_nomem(c);
	return 0;
}
