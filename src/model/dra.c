/*
 * dra.c -- Dynamic Resource Allocation (dra.h): decoding the
 * resource.k8s.io objects into a device model, the matching predicates,
 * and claim allocation on one node.
 *
 * Allocation is a depth-first search like the scheduler's allocator:
 * requests in order, each request's alternatives in list order (so an
 * earlier firstAvailable alternative is always preferred), devices in
 * input order, with matchAttribute / distinctAttribute checked as devices
 * are picked.  The search is bounded (WDR_MAX_STEPS) so a pathological
 * claim fails instead of running away.
 */
#include "model/dra.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quantity.h"

#define PATHMAX 256

/* Error paths are cut at PATHMAX on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

typedef struct dx {
	ws_snapshot *s;
	ws_dra *d;
	wa_arena *a;   /* snapshot arena */
	wa_arena *t;   /* scratch        */
	wasp_error *err;
	int rc;
	const char *file_in, *file_out;
	ws_map *cls_idx, *spec_idx, *pool_idx, *dev_idx;
	const char **warns;
	size_t nwarns, capwarns;
} dx;

/* ------------------------------------------------------------ helpers */

static int nomem(dx *c)
{
	return c->rc = werr(c->err, WASP_ENOMEM, "out of memory decoding DRA "
			    "objects");
}

static int bad(dx *c, const wt_node *n, const char *path, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
static int bad(dx *c, const wt_node *n, const char *path, const char *fmt,
	       ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (path && *path)
		return c->rc = werr_at(c->err, WASP_EINPUT, n->src, "%s: %s",
				       path, msg);
	return c->rc = werr_at(c->err, WASP_EINPUT, n->src, "%s", msg);
}

static int warn(dx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int warn(dx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *w = wa_strdup(c->a, msg);
	if (!w || WA_PUSH(c->t, c->warns, c->nwarns, c->capwarns, w))
		return nomem(c);
	return 0;
}

static wsrc src_of(dx *c, const wt_node *n)
{
	wsrc s = n->src;
	if (s.file != c->file_in) {
		c->file_in = s.file;
		c->file_out = s.file ? wa_strdup(c->a, s.file) : NULL;
	}
	s.file = c->file_out;
	return s;
}

static const wt_node *mget(const wt_node *m, const char *k)
{
	if (!m || m->type != WT_MAP)
		return NULL;
	const wt_node *v = wt_get(m, k);
	return v && v->type != WT_NULL ? v : NULL;
}

static int want(dx *c, const wt_node *n, wt_type t, const char *path)
{
	if (n->type != t)
		return bad(c, n, path, "expected %s, got %s", wt_type_name(t),
			   wt_type_name(n->type));
	return 0;
}

static int sdup(dx *c, const wt_node *n, const char *path, const char **out)
{
	if (n->type != WT_STR && n->type != WT_NUM && n->type != WT_BOOL)
		return bad(c, n, path, "expected a string, got %s",
			   wt_type_name(n->type));
	if (!(*out = wa_strdup(c->a, n->str)))
		return nomem(c);
	return 0;
}

static int sfield(dx *c, const wt_node *m, const char *key,
		  const char *path, const char **out)
{
	const wt_node *v = mget(m, key);
	*out = NULL;
	if (!v)
		return 0;
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s.%s", path, key);
	return sdup(c, v, p, out);
}

static int ival(dx *c, const wt_node *n, const char *path, int64_t *out)
{
	char *end;
	if (n->type != WT_NUM && n->type != WT_STR)
		return bad(c, n, path, "expected an integer, got %s",
			   wt_type_name(n->type));
	errno = 0;
	long long v = strtoll(n->str, &end, 10);
	if (errno || *end || end == n->str)
		return bad(c, n, path, "expected an integer, got \"%s\"",
			   n->str);
	*out = v;
	return 0;
}

/* "domain/name" or "name" (domain: the driver). */
static int qualify(dx *c, const char *q, const char *driver,
		   const char **dom, const char **name)
{
	const char *sl = strchr(q, '/');
	if (!sl) {
		*dom = driver;
		*name = wa_strdup(c->a, q);
		return *name ? 0 : nomem(c);
	}
	*dom = wa_strndup(c->a, q, (size_t)(sl - q));
	*name = wa_strdup(c->a, sl + 1);
	return *dom && *name ? 0 : nomem(c);
}

/* ------------------------------------------------------- node selector */

static int dec_nodesel(dx *c, const wt_node *ns, const char *path,
		       wdr_reach *r)
{
	char p[PATHMAX];
	if (want(c, ns, WT_MAP, path))
		return c->rc;
	const wt_node *terms = mget(ns, "nodeSelectorTerms");
	snprintf(p, sizeof p, "%s.nodeSelectorTerms", path);
	if (!terms)
		return bad(c, ns, path, "nodeSelector has no nodeSelectorTerms");
	if (want(c, terms, WT_SEQ, p))
		return c->rc;
	r->node = -2;
	r->nterms = (int)terms->n;
	r->terms = wa_calloc(c->a, terms->n + 1, sizeof *r->terms);
	if (!r->terms)
		return nomem(c);
	for (size_t i = 0; i < terms->n; i++) {
		const wt_node *t = terms->items[i];
		const wt_node *me = mget(t, "matchExpressions"),
			      *mf = mget(t, "matchFields");
		size_t n = (me && me->type == WT_SEQ ? me->n : 0) +
			   (mf && mf->type == WT_SEQ ? mf->n : 0);
		ws_term *term = &r->terms[i];
		term->exprs = wa_calloc(c->a, n + 1, sizeof *term->exprs);
		if (!term->exprs)
			return nomem(c);
		for (int f = 0; f < 2; f++) {
			const wt_node *l = f ? mf : me;
			if (!l)
				continue;
			snprintf(p, sizeof p, "%s.nodeSelectorTerms[%zu].%s",
				 path, i, f ? "matchFields" : "matchExpressions");
			if (want(c, l, WT_SEQ, p))
				return c->rc;
			for (size_t j = 0; j < l->n; j++) {
				const wt_node *x = l->items[j];
				ws_expr *e = &term->exprs[term->nexprs++];
				const char *op = NULL;
				if (sfield(c, x, "key", p, &e->key) ||
				    sfield(c, x, "operator", p, &op))
					return c->rc;
				if (!e->key || !op)
					return bad(c, x, p, "requirement needs "
						   "key and operator");
				e->field = f;
				static const char *const ops[] = {
					"In", "NotIn", "Exists",
					"DoesNotExist", "Gt", "Lt"};
				int k;
				for (k = 0; k < 6 && strcmp(op, ops[k]); k++)
					;
				if (k == 6)
					return bad(c, mget(x, "operator"), p,
						   "unknown operator \"%s\"",
						   op);
				e->op = (ws_op)k;
				const wt_node *v = mget(x, "values");
				if (v && want(c, v, WT_SEQ, p))
					return c->rc;
				e->nvals = v ? (int)v->n : 0;
				e->vals = wa_calloc(c->a, e->nvals + 1,
						    sizeof *e->vals);
				if (!e->vals)
					return nomem(c);
				for (int m = 0; m < e->nvals; m++)
					if (sdup(c, v->items[m], p,
						 &e->vals[m]))
						return c->rc;
				if ((e->op == WS_OP_GT || e->op == WS_OP_LT) &&
				    (e->nvals != 1 ||
				     ival(c, v->items[0], p, &e->num)))
					return c->rc ? c->rc
						     : bad(c, x, p, "%s needs "
							   "one integer", op);
			}
		}
	}
	return 0;
}

/* nodeName / nodeSelector / allNodes of a slice or (per device) device. */
static int dec_reach(dx *c, const wt_node *m, const char *path, wdr_reach *r,
		     bool *per_device)
{
	const wt_node *v;
	char p[PATHMAX];
	int forms = 0;
	r->node = -3;
	if ((v = mget(m, "nodeName"))) {
		const char *nn;
		snprintf(p, sizeof p, "%s.nodeName", path);
		if (sdup(c, v, p, &nn))
			return c->rc;
		r->node = ws_node_index(c->s, nn);
		if (r->node < 0)
			r->node = -3; /* a node not in the snapshot */
		forms++;
	}
	if ((v = mget(m, "nodeSelector"))) {
		snprintf(p, sizeof p, "%s.nodeSelector", path);
		if (dec_nodesel(c, v, p, r))
			return c->rc;
		forms++;
	}
	if ((v = mget(m, "allNodes")) && v->type == WT_BOOL && v->boolean) {
		r->node = -1;
		forms++;
	}
	if (per_device && (v = mget(m, "perDeviceNodeSelection")) &&
	    v->type == WT_BOOL && v->boolean) {
		*per_device = true;
		forms++;
	}
	if (forms > 1)
		return bad(c, m, path, "exactly one of nodeName, nodeSelector, "
			   "allNodes%s may be set",
			   per_device ? ", perDeviceNodeSelection" : "");
	return 0;
}

/* ------------------------------------------------------- ResourceSlice */

static int dec_attr(dx *c, const wt_node *v, const char *path, wcel_attr *a)
{
	if (want(c, v, WT_MAP, path))
		return c->rc;
	if (v->n != 1)
		return bad(c, v, path, "an attribute has exactly one of int, "
			   "bool, string, version (or a list form)");
	const char *k = wt_key(v, 0)->str;
	const wt_node *x = wt_val(v, 0);
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s.%s", path, k);
	static const char *const kinds[] = {
		"int", "bool", "string", "version",
		"ints", "bools", "strings", "versions"};
	int t;
	for (t = 0; t < 8 && strcmp(k, kinds[t]); t++)
		;
	if (t == 8)
		return bad(c, v, path, "unknown attribute type \"%s\" (want "
			   "int, bool, string, version, ints, bools, strings "
			   "or versions)", k);
	a->type = t;
	switch (t) {
	case WCEL_A_INT:
		return ival(c, x, p, &a->i);
	case WCEL_A_BOOL:
		if (x->type != WT_BOOL)
			return bad(c, x, p, "expected true or false");
		a->b = x->boolean;
		return 0;
	case WCEL_A_STRING:
	case WCEL_A_VERSION:
		if (sdup(c, x, p, &a->s))
			return c->rc;
		if (t == WCEL_A_VERSION) {
			int k2;
			if (wcel_semver_cmp(a->s, a->s, &k2))
				return bad(c, x, p, "\"%s\" is not a semantic "
					   "version", a->s);
		}
		return 0;
	default:
		if (want(c, x, WT_SEQ, p))
			return c->rc;
		a->n = (int)x->n;
		if (t == WCEL_A_INTS) {
			int64_t *l = wa_calloc(c->a, x->n + 1, sizeof *l);
			if (!l)
				return nomem(c);
			for (size_t i = 0; i < x->n; i++)
				if (ival(c, x->items[i], p, &l[i]))
					return c->rc;
			a->li = l;
		} else if (t == WCEL_A_BOOLS) {
			bool *l = wa_calloc(c->a, x->n + 1, sizeof *l);
			if (!l)
				return nomem(c);
			for (size_t i = 0; i < x->n; i++) {
				if (x->items[i]->type != WT_BOOL)
					return bad(c, x->items[i], p,
						   "expected true or false");
				l[i] = x->items[i]->boolean;
			}
			a->lb = l;
		} else {
			const char **l = wa_calloc(c->a, x->n + 1, sizeof *l);
			if (!l)
				return nomem(c);
			for (size_t i = 0; i < x->n; i++)
				if (sdup(c, x->items[i], p, &l[i]))
					return c->rc;
			a->ls = l;
		}
		return 0;
	}
}

typedef struct dslice {
	wdr_slice sl;
	wdr_device *devs;
	size_t ndevs, cap;
} dslice;

static int dec_device(dx *c, const wt_node *dv, const char *path,
		      const char *driver, bool per_device, bool old,
		      wdr_device *d)
{
	char p[PATHMAX];
	if (want(c, dv, WT_MAP, path))
		return c->rc;
	if (sfield(c, dv, "name", path, &d->name))
		return c->rc;
	if (!d->name)
		return bad(c, dv, path, "device has no name");
	const wt_node *body = dv, *b = mget(dv, "basic");
	if (b) {
		if (!old)
			return bad(c, b, path, "devices[].basic is the "
				   "v1beta1 form; in resource.k8s.io/v1 the "
				   "attributes and capacity sit directly in "
				   "the device");
		body = b;
	} else if (mget(dv, "composite")) {
		return bad(c, mget(dv, "composite"), path, "composite devices "
			   "(v1alpha3) are not supported");
	}
	d->cel.driver = driver;
	const wt_node *at = mget(body, "attributes"),
		      *cp = mget(body, "capacity");
	if (at) {
		snprintf(p, sizeof p, "%s.attributes", path);
		if (want(c, at, WT_MAP, p))
			return c->rc;
		wcel_attr *l = wa_calloc(c->a, at->n + 1, sizeof *l);
		if (!l)
			return nomem(c);
		for (size_t i = 0; i < at->n; i++) {
			snprintf(p, sizeof p, "%s.attributes.%s", path,
				 wt_key(at, i)->str);
			if (qualify(c, wt_key(at, i)->str, driver,
				    &l[i].domain, &l[i].name) ||
			    dec_attr(c, wt_val(at, i), p, &l[i]))
				return c->rc;
		}
		d->cel.attrs = l;
		d->cel.nattrs = (int)at->n;
	}
	if (cp) {
		snprintf(p, sizeof p, "%s.capacity", path);
		if (want(c, cp, WT_MAP, p))
			return c->rc;
		wcel_cap *l = wa_calloc(c->a, cp->n + 1, sizeof *l);
		if (!l)
			return nomem(c);
		for (size_t i = 0; i < cp->n; i++) {
			const wt_node *v = wt_val(cp, i);
			snprintf(p, sizeof p, "%s.capacity.%s", path,
				 wt_key(cp, i)->str);
			if (v->type == WT_MAP)
				v = mget(v, "value");
			if (!v || v->type == WT_MAP || v->type == WT_SEQ)
				return bad(c, wt_val(cp, i), p, "capacity "
					   "needs a value quantity");
			const char *why = NULL;
			if (wq_parse(v->str, v->len, &l[i].milli, &why))
				return bad(c, v, p, "invalid quantity \"%s\": "
					   "%s", v->str, why ? why : "");
			if (qualify(c, wt_key(cp, i)->str, driver,
				    &l[i].domain, &l[i].name))
				return c->rc;
		}
		d->cel.caps = l;
		d->cel.ncaps = (int)cp->n;
	}
	const wt_node *m = mget(body, "allowMultipleAllocations");
	d->multi = m && m->type == WT_BOOL && m->boolean;
	if (per_device) {
		if (dec_reach(c, body, path, &d->reach, NULL))
			return c->rc;
		if (d->reach.node == -3 && !mget(body, "nodeName"))
			return bad(c, dv, path, "with perDeviceNodeSelection "
				   "each device sets nodeName, nodeSelector "
				   "or allNodes");
	}
	return 0;
}

static int dec_slice(dx *c, const wt_node *o, const char *name, bool old,
		     dslice *out)
{
	const wt_node *spec = mget(o, "spec");
	if (!spec)
		return bad(c, o, "", "ResourceSlice %s has no spec", name);
	if (want(c, spec, WT_MAP, "spec"))
		return c->rc;
	wdr_slice *sl = &out->sl;
	sl->name = wa_strdup(c->a, name);
	sl->src = src_of(c, o);
	if (sfield(c, spec, "driver", "spec", &sl->driver))
		return c->rc;
	if (!sl->driver)
		return bad(c, spec, "spec", "ResourceSlice has no driver");
	const wt_node *pool = mget(spec, "pool");
	if (!pool)
		return bad(c, spec, "spec", "ResourceSlice has no pool");
	if (sfield(c, pool, "name", "spec.pool", &sl->pool))
		return c->rc;
	if (!sl->pool)
		return bad(c, pool, "spec.pool", "pool has no name");
	const wt_node *v;
	if ((v = mget(pool, "generation")) &&
	    ival(c, v, "spec.pool.generation", &sl->generation))
		return c->rc;
	int64_t cnt = 1;
	if ((v = mget(pool, "resourceSliceCount")) &&
	    ival(c, v, "spec.pool.resourceSliceCount", &cnt))
		return c->rc;
	sl->count = cnt < 1 ? 1 : (int)cnt;
	wdr_reach r;
	bool per = false;
	if (dec_reach(c, spec, "spec", &r, &per))
		return c->rc;
	if (r.node == -3 && !per && !mget(spec, "nodeName"))
		return bad(c, spec, "spec", "ResourceSlice needs nodeName, "
			   "nodeSelector, allNodes or perDeviceNodeSelection");
	const wt_node *devs = mget(spec, "devices");
	if (devs && want(c, devs, WT_SEQ, "spec.devices"))
		return c->rc;
	size_t n = devs ? devs->n : 0;
	out->devs = wa_calloc(c->t, n + 1, sizeof *out->devs);
	if (!out->devs)
		return nomem(c);
	for (size_t i = 0; i < n; i++) {
		char p[PATHMAX];
		snprintf(p, sizeof p, "spec.devices[%zu]", i);
		wdr_device *d = &out->devs[out->ndevs++];
		d->reach = r;
		if (dec_device(c, devs->items[i], p, sl->driver, per, old, d))
			return c->rc;
	}
	return 0;
}

/* --------------------------------------------------------- DeviceClass */

static int dec_selectors(dx *c, const wt_node *l, const char *path,
			 wcel_prog ***out, int *nout)
{
	char p[PATHMAX];
	*nout = 0;
	if (!l)
		return 0;
	if (want(c, l, WT_SEQ, path))
		return c->rc;
	*out = wa_calloc(c->a, l->n + 1, sizeof **out);
	if (!*out)
		return nomem(c);
	for (size_t i = 0; i < l->n; i++) {
		snprintf(p, sizeof p, "%s[%zu].cel.expression", path, i);
		const wt_node *cel = mget(l->items[i], "cel");
		const wt_node *e = mget(cel, "expression");
		if (!e)
			return bad(c, l->items[i], p, "selector has no "
				   "cel.expression");
		if (e->type != WT_STR && e->type != WT_NUM &&
		    e->type != WT_BOOL)
			return bad(c, e, p, "expected a string");
		int rc = wcel_compile(c->a, e->str, src_of(c, e),
				      &(*out)[i], c->err);
		if (rc)
			return c->rc = rc;
	}
	*nout = (int)l->n;
	return 0;
}

static int dec_class(dx *c, const wt_node *o, const char *name,
		     wdr_class *cl)
{
	cl->name = wa_strdup(c->a, name);
	if (!cl->name)
		return nomem(c);
	const wt_node *spec = mget(o, "spec");
	return dec_selectors(c, mget(spec, "selectors"), "spec.selectors",
			     &cl->sel, &cl->nsel);
}

/* ------------------------------------------------------- claims */

static int dec_sub(dx *c, const wt_node *m, const char *path, bool first,
		   wdr_sub *sb)
{
	const char *mode = NULL;
	if (want(c, m, WT_MAP, path))
		return c->rc;
	if (sfield(c, m, "deviceClassName", path, &sb->class_name) ||
	    sfield(c, m, "allocationMode", path, &mode))
		return c->rc;
	if (!sb->class_name)
		return bad(c, m, path, "request has no deviceClassName");
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s.selectors", path);
	if (dec_selectors(c, mget(m, "selectors"), p, &sb->sel, &sb->nsel))
		return c->rc;
	sb->count = 1;
	if (mode && !strcmp(mode, "All")) {
		sb->all = true;
	} else if (mode && strcmp(mode, "ExactCount")) {
		return bad(c, mget(m, "allocationMode"), path,
			   "allocationMode must be ExactCount or All, not "
			   "\"%s\"", mode);
	}
	const wt_node *v = mget(m, "count");
	if (v) {
		int64_t n;
		snprintf(p, sizeof p, "%s.count", path);
		if (ival(c, v, p, &n))
			return c->rc;
		if (n < 1 || n > WDR_MAX_RESULTS)
			return bad(c, v, p, "count must be 1..%d",
				   WDR_MAX_RESULTS);
		sb->count = (int)n;
	}
	(void)first;
	return 0;
}

static int dec_claimspec(dx *c, const wt_node *spec, const char *path,
			 bool old, wdr_spec *sp)
{
	char p[PATHMAX];
	const wt_node *dv = mget(spec, "devices");
	if (!dv)
		return 0; /* a claim for nothing */
	snprintf(p, sizeof p, "%s.devices", path);
	if (want(c, dv, WT_MAP, p))
		return c->rc;
	const wt_node *rq = mget(dv, "requests"), *cs = mget(dv, "constraints");
	if (rq) {
		snprintf(p, sizeof p, "%s.devices.requests", path);
		if (want(c, rq, WT_SEQ, p))
			return c->rc;
		sp->reqs = wa_calloc(c->a, rq->n + 1, sizeof *sp->reqs);
		if (!sp->reqs)
			return nomem(c);
		for (size_t i = 0; i < rq->n; i++) {
			const wt_node *r = rq->items[i];
			wdr_req *q = &sp->reqs[sp->nreqs++];
			snprintf(p, sizeof p, "%s.devices.requests[%zu]", path,
				 i);
			if (want(c, r, WT_MAP, p) ||
			    sfield(c, r, "name", p, &q->name))
				return c->rc;
			if (!q->name)
				return bad(c, r, p, "request has no name");
			const wt_node *ex = mget(r, "exactly"),
				      *fa = mget(r, "firstAvailable");
			if (!ex && !fa && mget(r, "deviceClassName")) {
				if (!old)
					return bad(c, r, p, "in resource.k8s.io"
						   "/v1 a request puts "
						   "deviceClassName, selectors"
						   ", allocationMode and count "
						   "under exactly:");
				ex = r; /* v1beta1: fields in the request */
			}
			if (!ex == !fa)
				return bad(c, r, p, "request needs exactly one "
					   "of exactly or firstAvailable");
			if (ex) {
				q->alts = wa_calloc(c->a, 1, sizeof *q->alts);
				if (!q->alts)
					return nomem(c);
				q->nalts = 1;
				q->alts[0].name = q->name;
				char pp[PATHMAX];
				snprintf(pp, sizeof pp, "%s%s", p,
					 ex == r ? "" : ".exactly");
				if (dec_sub(c, ex, pp, false, &q->alts[0]))
					return c->rc;
				continue;
			}
			if (want(c, fa, WT_SEQ, p))
				return c->rc;
			if (fa->n == 0)
				return bad(c, fa, p, "firstAvailable is empty");
			q->alts = wa_calloc(c->a, fa->n, sizeof *q->alts);
			if (!q->alts)
				return nomem(c);
			q->nalts = (int)fa->n;
			for (size_t k = 0; k < fa->n; k++) {
				char pp[PATHMAX];
				const char *sn = NULL;
				snprintf(pp, sizeof pp, "%s.firstAvailable[%zu]",
					 p, k);
				if (sfield(c, fa->items[k], "name", pp, &sn))
					return c->rc;
				if (!sn)
					return bad(c, fa->items[k], pp,
						   "subrequest has no name");
				q->alts[k].name = wa_printf(c->a, "%s/%s",
							    q->name, sn);
				if (!q->alts[k].name)
					return nomem(c);
				if (dec_sub(c, fa->items[k], pp, true,
					    &q->alts[k]))
					return c->rc;
			}
		}
	}
	if (cs) {
		snprintf(p, sizeof p, "%s.devices.constraints", path);
		if (want(c, cs, WT_SEQ, p))
			return c->rc;
		sp->cons = wa_calloc(c->a, cs->n + 1, sizeof *sp->cons);
		if (!sp->cons)
			return nomem(c);
		for (size_t i = 0; i < cs->n; i++) {
			const wt_node *x = cs->items[i];
			wdr_cons *k = &sp->cons[sp->ncons++];
			char pp[PATHMAX];
			snprintf(pp, sizeof pp, "%s[%zu]", p, i);
			const char *ma = NULL, *da = NULL;
			if (sfield(c, x, "matchAttribute", pp, &ma) ||
			    sfield(c, x, "distinctAttribute", pp, &da))
				return c->rc;
			if (!ma == !da)
				return bad(c, x, pp, "constraint needs exactly "
					   "one of matchAttribute or "
					   "distinctAttribute");
			k->distinct = da != NULL;
			const char *q = ma ? ma : da;
			if (!strchr(q, '/'))
				return bad(c, x, pp, "attribute \"%s\" must be "
					   "fully qualified (domain/name)", q);
			if (qualify(c, q, NULL, &k->domain, &k->attr))
				return c->rc;
			const wt_node *rl = mget(x, "requests");
			if (rl) {
				if (want(c, rl, WT_SEQ, pp))
					return c->rc;
				k->reqs = wa_calloc(c->a, rl->n + 1,
						    sizeof *k->reqs);
				if (!k->reqs)
					return nomem(c);
				for (size_t j = 0; j < rl->n; j++)
					if (sdup(c, rl->items[j], pp,
						 &k->reqs[j]))
						return c->rc;
				k->nreqs = (int)rl->n;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------- assembly */

typedef struct dclaim dclaim;
static int claim_holders(dx *c, const dclaim *cl, size_t ncl,
			 const wdr_input *in);

struct dclaim {
	const wt_node *o;
	wdr_spec sp;
	const wt_node *results; /* status.allocation.devices.results */
	const wt_node *reserved; /* status.reservedFor (issue 6)        */
};

static const char *meta_str(const wt_node *o, const char *k)
{
	const wt_node *v = mget(mget(o, "metadata"), k);
	return v && v->type != WT_MAP && v->type != WT_SEQ ? v->str : NULL;
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

static int add_warnings(dx *c)
{
	if (!c->nwarns)
		return 0;
	ws_snapshot *s = c->s;
	const char **w = wa_calloc(c->a, (size_t)s->nwarnings + c->nwarns,
				   sizeof *w);
	if (!w)
		return nomem(c);
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
	if (want(c, e, WT_MAP, path) || sfield(c, e, "name", path, name) ||
	    sfield(c, e, "resourceClaimName", path, claim) ||
	    sfield(c, e, "resourceClaimTemplateName", path, tpl))
		return c->rc;
	if (!*name)
		return bad(c, e, path, "resourceClaims entry has no name");
	if (!*claim == !*tpl)
		return bad(c, e, path, "resourceClaims entry needs exactly one "
			   "of resourceClaimName or resourceClaimTemplateName");
	return 0;
}

static int spec_of(dx *c, const char *ns, const char *name, bool tpl)
{
	char key[2 * WASP_MAX_NAME + 8];
	snprintf(key, sizeof key, "%c/%s/%s", tpl ? 'T' : 'C', ns, name);
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
		return nomem(c), -1;
	return (int)(*ninst - 1);
}

static int build(dx *c, const wdr_input *in)
{
	ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	dslice *sl = NULL;
	size_t nsl = 0, capsl = 0;
	wdr_class *cls = NULL;
	size_t ncls = 0, capcls = 0;
	dclaim *cl = NULL;
	size_t ncl = 0, capcl = 0;

	for (size_t i = 0; i < in->nobjs; i++) {
		const wt_node *o = in->objs[i];
		const char *kind = mget(o, "kind")->str;
		const char *api = mget(o, "apiVersion")->str;
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
		if (!strcmp(kind, "ResourceSlice")) {
			dslice x = {0};
			if (dec_slice(c, o, name, old, &x) ||
			    WA_PUSH(c->t, sl, nsl, capsl, x))
				return c->rc ? c->rc : nomem(c);
		} else if (!strcmp(kind, "DeviceClass")) {
			wdr_class x = {0};
			if (dec_class(c, o, name, &x))
				return c->rc;
			if (ws_map_put(c->cls_idx, x.name, (int)ncls) == -2 ||
			    WA_PUSH(c->t, cls, ncls, capcls, x))
				return nomem(c);
		} else {
			bool tpl = !strcmp(kind, "ResourceClaimTemplate");
			dclaim x = {0};
			x.o = o;
			x.sp.ns = wa_strdup(c->a, ns);
			x.sp.name = wa_strdup(c->a, name);
			x.sp.template_ = tpl;
			x.sp.src = src_of(c, o);
			const wt_node *spec = mget(o, "spec");
			const char *path = "spec";
			if (tpl) {
				spec = mget(spec, "spec");
				path = "spec.spec";
			}
			if (spec && dec_claimspec(c, spec, path, old, &x.sp))
				return c->rc;
			x.results = mget(mget(mget(mget(o, "status"),
						   "allocation"), "devices"),
					 "results");
			x.reserved = mget(mget(o, "status"), "reservedFor");
			char key[2 * WASP_MAX_NAME + 8];
			snprintf(key, sizeof key, "%c/%s/%s", tpl ? 'T' : 'C',
				 ns, name);
			const char *k = wa_strdup(c->t, key);
			if (!k || ws_map_put(c->spec_idx, k, (int)ncl) == -2 ||
			    WA_PUSH(c->t, cl, ncl, capcl, x))
				return nomem(c);
		}
		if (c->rc)
			return c->rc;
	}

	/* Pools: only the newest generation counts. */
	ws_map *gen = ws_map_new(c->t);
	if (!gen)
		return nomem(c);
	int64_t *maxgen = wa_calloc(c->t, nsl + 1, sizeof *maxgen);
	int *pcount = wa_calloc(c->t, nsl + 1, sizeof *pcount);
	int *pof = wa_calloc(c->t, nsl + 1, sizeof *pof);
	if (!maxgen || !pcount || !pof)
		return nomem(c);
	int npools = 0;
	for (size_t i = 0; i < nsl; i++) {
		const char *key = wa_printf(c->t, "%s/%s", sl[i].sl.driver,
					    sl[i].sl.pool);
		if (!key)
			return nomem(c);
		int p = ws_map_put(gen, key, npools);
		if (p == -2)
			return nomem(c);
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
				first_inc = wa_printf(c->t, "%s/%s has %d of %d",
						      sl[i].sl.driver,
						      sl[i].sl.pool, pcount[p],
						      sl[i].sl.count);
			pcount[p] = sl[i].sl.count; /* report once */
		}
	}
	if (nincomplete && warn(c, "%d DRA pool%s incomplete (first: %s "
				"slices); their devices are used as listed",
				nincomplete, nincomplete == 1 ? " is" : "s are",
				first_inc))
		return c->rc;

	d->slices = wa_calloc(c->a, nsl + 1, sizeof *d->slices);
	d->devs = wa_calloc(c->a, ndev + 1, sizeof *d->devs);
	if (!d->slices || !d->devs)
		return nomem(c);
	ws_map *dupdev = ws_map_new(c->t);
	if (!dupdev)
		return nomem(c);
	for (size_t i = 0; i < nsl; i++) {
		if (sl[i].sl.generation != maxgen[pof[i]])
			continue;
		int si = d->nslices++;
		d->slices[si] = sl[i].sl;
		for (size_t k = 0; k < sl[i].ndevs; k++) {
			wdr_device *dv = &d->devs[d->ndevs];
			*dv = sl[i].devs[k];
			dv->slice = si;
			const char *key = wa_printf(c->t, "%s/%s/%s",
						    sl[i].sl.driver,
						    sl[i].sl.pool, dv->name);
			if (!key)
				return nomem(c);
			int r = ws_map_put(dupdev, key, d->ndevs);
			if (r == -2)
				return nomem(c);
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

	d->classes = cls;
	d->nclasses = (int)ncls;
	if (ncls) {
		d->classes = wa_calloc(c->a, ncls, sizeof *cls);
		if (!d->classes)
			return nomem(c);
		memcpy(d->classes, cls, ncls * sizeof *cls);
	}

	/* Claim specs: resolve classes, number subs, read allocations. */
	d->specs = wa_calloc(c->a, ncl + 1, sizeof *d->specs);
	d->taken0 = wa_calloc(c->a, (size_t)d->ndevs + 1, sizeof *d->taken0);
	if (!d->specs || !d->taken0)
		return nomem(c);
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
			return nomem(c);
		for (size_t k = 0; k < res->n; k++) {
			const wt_node *r = res->items[k];
			const char *drv = NULL, *pool = NULL, *dev = NULL,
				   *rq = NULL;
			const char *p = "status.allocation.devices.results";
			if (sfield(c, r, "driver", p, &drv) ||
			    sfield(c, r, "pool", p, &pool) ||
			    sfield(c, r, "device", p, &dev) ||
			    sfield(c, r, "request", p, &rq))
				return c->rc;
			if (!drv || !pool || !dev)
				return bad(c, r, p, "result needs driver, pool "
					   "and device");
			const char *key = wa_printf(c->t, "%s/%s/%s", drv,
						    pool, dev);
			int di = key ? ws_map_get(dupdev, key) : -1;
			if (!key)
				return nomem(c);
			if (di < 0) {
				if (warn(c, "ResourceClaim %s/%s is allocated "
					 "device %s/%s/%s, which no "
					 "ResourceSlice lists", sp->ns,
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
		return nomem(c);
	for (int i = 0; i < d->nspecs; i++)
		for (int r = 0; r < d->specs[i].nreqs; r++)
			for (int k = 0; k < d->specs[i].reqs[r].nalts; k++)
				d->subs[d->specs[i].reqs[r].alts[k].id] =
				    &d->specs[i].reqs[r].alts[k];

	/* Pods' claim lists and the instances they share. */
	wdr_inst *insts = NULL;
	size_t ninst = 0, capinst = 0;
	d->pods = wa_calloc(c->a, (size_t)s->npods + 1, sizeof *d->pods);
	if (!d->pods)
		return nomem(c);
	ws_map *sigs = ws_map_new(c->t);
	if (!sigs)
		return nomem(c);
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
			return nomem(c);
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
					return nomem(c);
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
					return nomem(c);
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
			return nomem(c);
		int r = ws_map_put(sigs, ks, nsig + 1);
		if (r == -2)
			return nomem(c);
		pc->sig = r == -1 ? ++nsig : r;
	}
	d->insts = wa_calloc(c->a, ninst + 1, sizeof *d->insts);
	if (!d->insts)
		return nomem(c);
	if (ninst)
		memcpy(d->insts, insts, ninst * sizeof *insts);
	d->ninsts = (int)ninst;
	/* A pending pod sharing an allocated ResourceClaim does not take
	 * its devices from itself: those stay counted in taken0, and
	 * wdr_place only checks their reach. */
	if (claim_holders(c, cl, ncl, in))
		return c->rc ? c->rc : nomem(c);

	/* Device reach index: node-local CSR plus the shared list. */
	d->node_first = wa_calloc(c->a, (size_t)s->nnodes + 2, sizeof(int));
	if (!d->node_first)
		return nomem(c);
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
		return nomem(c);
	for (int i = 0; i < d->ndevs; i++) {
		int n = d->devs[i].reach.node;
		if (n >= 0)
			d->node_devs[d->node_first[n] + fill[n]++] = i;
		else if (n != -3)
			d->global[d->nglobal++] = i;
	}
	(void)nused;
	return 0;
}

/* Issue 6: who holds each allocated claim (running pods whose claim
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
				const wt_node *nm = mget(cs->items[j], "name");
				const wt_node *rc = mget(cs->items[j],
							 "resourceClaimName");
				if (nm && nm->type == WT_STR && rc &&
				    rc->type == WT_STR &&
				    !strcmp(nm->str, pc->c[k].name)) {
					sp = spec_of(c, pod->ns, rc->str, false);
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
			const wt_node *res = mget(rf->items[j], "resource");
			const wt_node *nm = mget(rf->items[j], "name");
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
		rc = nomem(c);
	else
		rc = build(c, in);
	if (!rc && (c->nwarns && add_warnings(c)))
		rc = c->rc;
	if (!rc)
		s->dra = any ? c->d : NULL;
	wa_destroy(c->t);
	return rc;
}

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
	/* Only the specs pending pods still need allocated (the claims of
	 * running pods are many and already allocated). */
	for (int pi = 0; pi < s->npods; pi++) {
		const wdr_podc *pc = &d->pods[pi];
		if (!ws_pod_pending(&s->pods[pi]))
			continue;
		for (int k = 0; k < pc->n; k++)
			if (pc->c[k].spec >= 0 &&
			    !d->specs[pc->c[k].spec].allocated)
				need[pc->c[k].spec] = true;
	}
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
				signed char *row = wa_alloc(a,
							    (size_t)d->ndevs + 1);
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
	int *alt;          /* chosen alternative per request         */
} srch;

static bool is_free(const srch *S, int dev)
{
	const wdr_device *dv = &S->st->d->devs[dev];
	if (dv->multi)
		return true;
	if (S->taken[dev])
		return false;
	for (int i = 0; i < S->nextra; i++)
		if (S->extra[i] == dev)
			return false;
	return true;
}

static bool picked(const srch *S, int dev)
{
	for (int i = 0; i < S->n; i++)
		if (S->out[i].dev == dev)
			return true;
	return false;
}

/* Do the constraints still hold with dev added for request `rq`? */
static bool cons_ok(const srch *S, const wdr_req *rq, const wdr_sub *sb,
		    int dev)
{
	const ws_dra *d = S->st->d;
	for (int k = 0; k < S->sp->ncons; k++) {
		const wdr_cons *c = &S->sp->cons[k];
		if (!wdr_cons_has(c, rq->name) && !wdr_cons_has(c, sb->name))
			continue;
		const wcel_attr *a = wdr_attr(&d->devs[dev], c->domain,
					      c->attr);
		if (!a)
			return false;
		for (int i = 0; i < S->n; i++) {
			const wdr_sub *os = d->subs[S->out[i].sub];
			/* the request of a result: its name up to '/' */
			if (!wdr_cons_has(c, os->name))
				continue;
			const wcel_attr *b = wdr_attr(&d->devs[S->out[i].dev],
						      c->domain, c->attr);
			bool eq = b && wdr_attr_equal(a, b);
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
	const ws_dra *d = S->st->d;
	const signed char *m = S->st->match[sb->id];
	(void)d;
	for (int i = from; i < S->ncand; i++) {
		if (++S->steps > WDR_MAX_STEPS)
			return false;
		int dev = S->cand[i];
		if (!m[dev] || !is_free(S, dev) || picked(S, dev) ||
		    !cons_ok(S, &S->sp->reqs[r], sb, dev))
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
	if (r == S->sp->nreqs)
		return true;
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
			if (!is_free(S, dev) || picked(S, dev) ||
			    !cons_ok(S, rq, sb, dev) || S->n >= S->max) {
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
static int node_cands(const wdr_state *st, int node, int *buf, int cap)
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

#define WDR_MAX_CANDS 4096

int wdr_alloc_spec(const wdr_state *st, const wdr_spec *sp, int node,
		   const uint16_t *taken, const int *extra, int nextra,
		   wdr_result *out, int max)
{
	int cand[WDR_MAX_CANDS];
	srch S = {0};
	S.st = st;
	S.sp = sp;
	S.node = node;
	S.taken = taken;
	S.extra = extra;
	S.nextra = nextra;
	S.cand = cand;
	S.ncand = node_cands(st, node, cand, WDR_MAX_CANDS);
	S.out = out;
	S.max = max;
	return search_req(&S, 0) ? S.n : -1;
}

/* The common shape -- one own claim, one request, one way to meet it,
 * ExactCount, at most matchAttribute constraints -- is counted directly:
 * per attribute value (partition), free matching devices / count.
 * Returns -2 when the claim list has another shape. */
static int fit_simple(const wdr_state *st, const wdr_podc *pc, int node,
		      int cap)
{
	const ws_dra *d = st->d;
	if (pc->n != 1 || pc->c[0].inst >= 0)
		return -2;
	const wdr_spec *sp = &d->specs[pc->c[0].spec];
	if (sp->nreqs != 1 || sp->reqs[0].nalts != 1 ||
	    sp->reqs[0].alts[0].all || sp->ncons > 1 ||
	    (sp->ncons == 1 && sp->cons[0].distinct))
		return -2;
	const wdr_sub *sb = &sp->reqs[0].alts[0];
	if (sb->cls < 0)
		return 0;
	const wdr_cons *cn = sp->ncons ? &sp->cons[0] : NULL;
	const signed char *m = st->match[sb->id];
	int cand[WDR_MAX_CANDS];
	int nc = node_cands(st, node, cand, WDR_MAX_CANDS);
	const wcel_attr *pv[64];
	int pn[64], np = 0, free_n = 0;
	for (int i = 0; i < nc; i++) {
		int dev = cand[i];
		if (!m[dev])
			continue;
		if (d->devs[dev].multi)
			return -2; /* shareable devices: use the search */
		if (st->taken[dev])
			continue;
		if (!cn) {
			free_n++;
			continue;
		}
		const wcel_attr *a = wdr_attr(&d->devs[dev], cn->domain,
					      cn->attr);
		if (!a)
			continue;
		int j;
		for (j = 0; j < np && !wdr_attr_equal(pv[j], a); j++)
			;
		if (j == np) {
			if (np == 64)
				return -2;
			pv[np] = a;
			pn[np++] = 0;
		}
		pn[j]++;
	}
	int fit = 0;
	if (!cn)
		fit = free_n / sb->count;
	for (int j = 0; j < np; j++)
		fit += pn[j] / sb->count;
	return fit < cap ? fit : cap;
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
	int nextra = 0, fit = 0;
	while (fit < cap) {
		for (int k = 0; k < pc->n; k++) {
			const wdr_pclaim *e = &pc->c[k];
			if (e->inst >= 0)
				continue;
			int room = WDR_MAX_RESULTS - nextra;
			int n = wdr_alloc_spec(st, &st->d->specs[e->spec], node,
					       st->taken, extra, nextra, out,
					       room);
			if (n < 0)
				return fit;
			for (int i = 0; i < n; i++)
				if (!st->d->devs[out[i].dev].multi)
					extra[nextra++] = out[i].dev;
		}
		fit++;
		if (nextra == 0)
			return cap; /* needs no exclusive device */
	}
	return fit;
}

static int push_alloc(wdr_state *st, int pod, int entry, int inst, int cls,
		      int node, const wdr_result *r, int n)
{
	wdr_alloc a = {pod, entry, inst, cls, node, st->nres, n};
	for (int i = 0; i < n; i++) {
		if (WA_PUSH(st->a, st->res, st->nres, st->capres, r[i]))
			return -1;
		if (st->taken[r[i].dev] < UINT16_MAX)
			st->taken[r[i].dev]++;
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
			st->taken[st->res[a->first + k].dev]--;
		int n = wdr_alloc_spec(st, sp, a->node, st->taken, NULL, 0, out,
				       WDR_MAX_RESULTS);
		bool better = n >= 0 && rank_of(sp, out, n) < old &&
			      (a->inst < 0 || all_local(st, out, n, a->node));
		if (!better) {
			for (int k = 0; k < a->n; k++)
				st->taken[st->res[a->first + k].dev]++;
			continue;
		}
		int first = st->nres;
		for (int k = 0; k < n; k++) {
			if (WA_PUSH(st->a, st->res, st->nres, st->capres,
				    out[k]))
				return -1;
			st->taken[out[k].dev]++;
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
			st->taken[st->res[a->first + i].dev]--;
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
	for (int k = 0; k < pc->n; k++) {
		const wdr_pclaim *e = &pc->c[k];
		const wdr_spec *sp = &d->specs[e->spec];
		if (e->inst >= 0 && (sp->allocated ||
				     st->inst_alloc[e->inst] >= 0)) {
			if (!inst_reaches(st, e->inst, node))
				goto fail;
			continue;
		}
		int n = wdr_alloc_spec(st, sp, node, st->taken, NULL, 0, out,
				       WDR_MAX_RESULTS);
		if (n < 0)
			goto fail;
		if (push_alloc(st, e->inst >= 0 ? -1 : pi, k, e->inst,
			       e->inst >= 0 ? -1 : cls, node, out, n))
			goto fail;
	}
	return true;
fail:
	wdr_undo(st, mark);
	return false;
}

/* Most devices one node could give the first unmet request. */
const char *wdr_explain(const wdr_state *st, const int *pods, int npods,
			const int *nodes, int nnodes, const char *where,
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
	/* The first request of the first own claim, its first way. */
	for (int k = 0; k < pc->n; k++) {
		const wdr_spec *sp = &d->specs[pc->c[k].spec];
		if (!sp->nreqs || sp->allocated)
			continue;
		const wdr_sub *sb = &sp->reqs[0].alts[0];
		const wdr_cons *cn = NULL;
		for (int j = 0; j < sp->ncons && !cn; j++)
			if (!sp->cons[j].distinct &&
			    wdr_cons_has(&sp->cons[j], sp->reqs[0].name))
				cn = &sp->cons[j];
		const signed char *m = st->match[sb->id];
		int best = 0;
		int cand[WDR_MAX_CANDS];
		for (int i = 0; i < nnodes; i++) {
			int nc = node_cands(st, nodes[i], cand, WDR_MAX_CANDS);
			/* per partition value when a matchAttribute applies */
			for (int x = 0; x < nc; x++) {
				int dev = cand[x];
				if (!m[dev] ||
				    (st->taken[dev] && !d->devs[dev].multi))
					continue;
				const wcel_attr *av = cn ? wdr_attr(
				    &d->devs[dev], cn->domain, cn->attr) : NULL;
				if (cn && !av)
					continue;
				int cnt = 0;
				for (int y = 0; y < nc; y++) {
					int e2 = cand[y];
					if (!m[e2] || (st->taken[e2] &&
						       !d->devs[e2].multi))
						continue;
					if (cn) {
						const wcel_attr *bv = wdr_attr(
						    &d->devs[e2], cn->domain,
						    cn->attr);
						if (!bv || !wdr_attr_equal(av,
									   bv))
							continue;
					}
					cnt++;
				}
				if (cnt > best)
					best = cnt;
				if (!cn)
					break;
			}
		}
		char share[160] = "";
		if (cn)
			snprintf(share, sizeof share, " sharing one %s",
				 cn->attr);
		/* devices one pod needs together: the requests the
		 * constraint ties (same class assumed, as in the message) */
		int per = sb->count;
		if (cn) {
			per = 0;
			for (int r = 0; r < sp->nreqs; r++)
				if (wdr_cons_has(cn, sp->reqs[r].name) &&
				    !sp->reqs[r].alts[0].all)
					per += sp->reqs[r].alts[0].count;
		}
		const char *cel = st->cel_error ? "; a selector failed: " : "";
		if (!sb->all && best >= per && fit < need)
			return wa_printf(a, "free devices of class %s%s admit "
					 "%lld of the %d pods needed (%d "
					 "device%s per pod%s)%s%s", sb->class_name,
					 sb->nsel ? " matching the selectors"
						  : "", fit, need, per,
					 per == 1 ? "" : "s", share, cel,
					 st->cel_error ? st->cel_error : "");
		if (sb->all)
			return wa_printf(a, "no node %s has all devices of "
					 "class %s free%s%s%s", where,
					 sb->class_name, share, cel,
					 st->cel_error ? st->cel_error : "");
		return wa_printf(a, "no node %s has %d free device%s of class "
				 "%s%s%s; best has %d%s%s", where, per,
				 per == 1 ? "" : "s", sb->class_name,
				 sb->nsel ? " matching the selectors" : "",
				 share, best, cel,
				 st->cel_error ? st->cel_error : "");
	}
	return wa_printf(a, "a shared device claim cannot be reached from "
			 "one node %s", where);
}
