/*
 * dra_decode.c -- reading the resource.k8s.io objects (doc/dra.md "What is
 * read"): v1 / v1beta2 / v1beta1 / v1alpha3 ResourceSlice (devices, their
 * attributes and capacity, node selectors), DeviceClass (CEL selectors)
 * and the claim spec of a ResourceClaim or ResourceClaimTemplate
 * (requests, firstAvailable alternatives, constraints).  Each object on
 * its own; dra_build.c links them into the model.
 */

#include "model/dra_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quantity.h"

/* ------------------------------------------------------------ helpers */

int wdr_nomem(dx *c)
{
	return c->rc = werr(c->err, WASP_ENOMEM, "out of memory decoding DRA "
			    "objects");
}

__attribute__((format(printf, 4, 5)))
int wdr_bad(dx *c, const wt_node *n, const char *path, const char *fmt,
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

__attribute__((format(printf, 2, 3)))
int wdr_warn(dx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *w = wa_strdup(c->a, msg);
	if (!w || WA_PUSH(c->t, c->warns, c->nwarns, c->capwarns, w))
		return wdr_nomem(c);
	return 0;
}

wsrc wdr_src_of(dx *c, const wt_node *n)
{
	wsrc s = n->src;
	if (s.file != c->file_in) {
		c->file_in = s.file;
		c->file_out = s.file ? wa_strdup(c->a, s.file) : NULL;
	}
	s.file = c->file_out;
	return s;
}

const wt_node *wdr_mget(const wt_node *m, const char *k)
{
	if (!m || m->type != WT_MAP)
		return NULL;
	const wt_node *v = wt_get(m, k);
	return v && v->type != WT_NULL ? v : NULL;
}

int wdr_want(dx *c, const wt_node *n, wt_type t, const char *path)
{
	if (n->type != t)
		return wdr_bad(c, n, path, "expected %s, got %s",
			       wt_type_name(t), wt_type_name(n->type));
	return 0;
}

/* ------------------------------------------------ string building */

void wdr_path(char *p, size_t cap, const char *a, const char *b,
	      const char *c)
{
	const char *part[3] = {a, b, c};
	size_t n = 0;
	if (!cap)
		return;
	for (int k = 0; k < 3 && part[k]; k++) {
		size_t l = strlen(part[k]);
		if (l > cap - 1 - n)
			l = cap - 1 - n;
		memcpy(p + n, part[k], l);
		n += l;
	}
	p[n] = 0;
}

void wdr_pathi(char *p, size_t cap, const char *a, size_t i, const char *b)
{
	char num[32];
	int k = (int)sizeof num - 1;
	num[k] = 0;
	do {
		num[--k] = (char)('0' + i % 10);
		i /= 10;
	} while (i && k > 1);
	num[--k] = '[';
	wdr_path(p, cap, a, num + k, "]");
	size_t n = strlen(p);
	wdr_path(p + n, cap - n, b, NULL, NULL);
}

char *wdr_cat(wa_arena *a, ...)
{
	va_list ap;
	size_t len = 0;
	va_start(ap, a);
	for (const char *q; (q = va_arg(ap, const char *));)
		len += strlen(q);
	va_end(ap);
	char *out = wa_alloc(a, len + 1), *w = out;
	if (!out)
		return NULL;
	va_start(ap, a);
	for (const char *q; (q = va_arg(ap, const char *));) {
		size_t l = strlen(q);
		memcpy(w, q, l);
		w += l;
	}
	va_end(ap);
	*w = 0;
	return out;
}

static int sdup(dx *c, const wt_node *n, const char *path, const char **out)
{
	if (n->type != WT_STR && n->type != WT_NUM && n->type != WT_BOOL)
		return wdr_bad(c, n, path, "expected a string, got %s",
			       wt_type_name(n->type));
	if (!(*out = wa_strdup(c->a, n->str)))
		return wdr_nomem(c);
	return 0;
}

int wdr_sfield(dx *c, const wt_node *m, const char *key,
	       const char *path, const char **out)
{
	const wt_node *v = wdr_mget(m, key);
	*out = NULL;
	if (!v)
		return 0;
	char p[PATHMAX];
	if (v->type == WT_STR)
		return sdup(c, v, NULL, out); /* cannot fail on the path */
	wdr_path(p, sizeof p, path, ".", key);
	return sdup(c, v, p, out);
}

static int ival(dx *c, const wt_node *n, const char *path, int64_t *out)
{
	char *end;
	if (n->type != WT_NUM && n->type != WT_STR)
		return wdr_bad(c, n, path, "expected an integer, got %s",
			       wt_type_name(n->type));
	errno = 0;
	long long v = strtoll(n->str, &end, 10);
	if (errno || *end || end == n->str)
		return wdr_bad(c, n, path, "expected an integer, got \"%s\"",
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
		return *name ? 0 : wdr_nomem(c);
	}
	*dom = wa_strndup(c->a, q, (size_t)(sl - q));
	*name = wa_strdup(c->a, sl + 1);
	return *dom && *name ? 0 : wdr_nomem(c);
}

/* ------------------------------------------------------- node selector */

static int dec_nodesel(dx *c, const wt_node *ns, const char *path,
		       wdr_reach *r)
{
	char p[PATHMAX];
	if (wdr_want(c, ns, WT_MAP, path))
		return c->rc;
	const wt_node *terms = wdr_mget(ns, "nodeSelectorTerms");
	snprintf(p, sizeof p, "%s.nodeSelectorTerms", path);
	if (!terms)
		return wdr_bad(c, ns, path, "nodeSelector has no "
			       "nodeSelectorTerms");
	if (wdr_want(c, terms, WT_SEQ, p))
		return c->rc;
	r->node = -2;
	r->nterms = (int)terms->n;
	r->terms = wa_calloc(c->a, terms->n + 1, sizeof *r->terms);
	if (!r->terms)
		return wdr_nomem(c);
	for (size_t i = 0; i < terms->n; i++) {
		const wt_node *t = terms->items[i];
		const wt_node *me = wdr_mget(t, "matchExpressions"),
			      *mf = wdr_mget(t, "matchFields");
		size_t n = (me && me->type == WT_SEQ ? me->n : 0) +
			   (mf && mf->type == WT_SEQ ? mf->n : 0);
		ws_term *term = &r->terms[i];
		term->exprs = wa_calloc(c->a, n + 1, sizeof *term->exprs);
		if (!term->exprs)
			return wdr_nomem(c);
		for (int f = 0; f < 2; f++) {
			const wt_node *l = f ? mf : me;
			if (!l)
				continue;
			snprintf(p, sizeof p, "%s.nodeSelectorTerms[%zu].%s",
				 path, i,
				 f ? "matchFields" : "matchExpressions");
			if (wdr_want(c, l, WT_SEQ, p))
				return c->rc;
			for (size_t j = 0; j < l->n; j++) {
				const wt_node *x = l->items[j];
				ws_expr *e = &term->exprs[term->nexprs++];
				const char *op = NULL;
				if (wdr_sfield(c, x, "key", p, &e->key) ||
				    wdr_sfield(c, x, "operator", p, &op))
					return c->rc;
				if (!e->key || !op)
					return wdr_bad(c, x, p, "requirement "
						       "needs key and "
						       "operator");
				e->field = f;
				static const char *const ops[] = {
					"In", "NotIn", "Exists",
					"DoesNotExist", "Gt", "Lt"};
				int k;
				for (k = 0; k < 6 && strcmp(op, ops[k]); k++)
					;
				if (k == 6)
					return wdr_bad(c,
						       wdr_mget(x, "operator"),
						       p, "unknown operator "
						       "\"%s\"", op);
				e->op = (ws_op)k;
				const wt_node *v = wdr_mget(x, "values");
				if (v && wdr_want(c, v, WT_SEQ, p))
					return c->rc;
				e->nvals = v ? (int)v->n : 0;
				e->vals = wa_calloc(c->a, e->nvals + 1,
						    sizeof *e->vals);
				if (!e->vals)
					return wdr_nomem(c);
				for (int m = 0; m < e->nvals; m++)
					if (sdup(c, v->items[m], p,
						 &e->vals[m]))
						return c->rc;
				if ((e->op == WS_OP_GT || e->op == WS_OP_LT) &&
				    (e->nvals != 1 ||
				     ival(c, v->items[0], p, &e->num)))
					return c->rc ? c->rc
						     : wdr_bad(c, x, p, "%s "
							       "needs one "
							       "integer", op);
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
	if ((v = wdr_mget(m, "nodeName"))) {
		const char *nn;
		snprintf(p, sizeof p, "%s.nodeName", path);
		if (sdup(c, v, p, &nn))
			return c->rc;
		r->node = ws_node_index(c->s, nn);
		if (r->node < 0)
			r->node = -3; /* a node not in the snapshot */
		forms++;
	}
	if ((v = wdr_mget(m, "nodeSelector"))) {
		snprintf(p, sizeof p, "%s.nodeSelector", path);
		if (dec_nodesel(c, v, p, r))
			return c->rc;
		forms++;
	}
	if ((v = wdr_mget(m, "allNodes")) && v->type == WT_BOOL && v->boolean) {
		r->node = -1;
		forms++;
	}
	if (per_device && (v = wdr_mget(m, "perDeviceNodeSelection")) &&
	    v->type == WT_BOOL && v->boolean) {
		*per_device = true;
		forms++;
	}
	if (forms > 1)
		return wdr_bad(c, m, path, "exactly one of nodeName, "
			       "nodeSelector, allNodes%s may be set",
			       per_device ? ", perDeviceNodeSelection" : "");
	return 0;
}

/* ------------------------------------------------------- ResourceSlice */

static int dec_attr(dx *c, const wt_node *v, const char *path, wcel_attr *a)
{
	if (wdr_want(c, v, WT_MAP, path))
		return c->rc;
	if (v->n != 1)
		return wdr_bad(c, v, path, "an attribute has exactly one of "
			       "int, bool, string, version (or a list form)");
	const char *k = wt_key(v, 0)->str;
	const wt_node *x = wt_val(v, 0);
	char p[PATHMAX];
	wdr_path(p, sizeof p, path, ".", k);
	static const char *const kinds[] = {
		"int", "bool", "string", "version",
		"ints", "bools", "strings", "versions"};
	int t;
	for (t = 0; t < 8 && strcmp(k, kinds[t]); t++)
		;
	if (t == 8)
		return wdr_bad(c, v, path, "unknown attribute type \"%s\" "
			       "(want int, bool, string, version, ints, bools, "
			       "strings or versions)", k);
	a->type = t;
	switch (t) {
	case WCEL_A_INT:
		return ival(c, x, p, &a->i);
	case WCEL_A_BOOL:
		if (x->type != WT_BOOL)
			return wdr_bad(c, x, p, "expected true or false");
		a->b = x->boolean;
		return 0;
	case WCEL_A_STRING:
	case WCEL_A_VERSION:
		if (sdup(c, x, p, &a->s))
			return c->rc;
		if (t == WCEL_A_VERSION) {
			int k2;
			if (wcel_semver_cmp(a->s, a->s, &k2))
				return wdr_bad(c, x, p, "\"%s\" is not a "
					       "semantic version", a->s);
		}
		return 0;
	default:
		if (wdr_want(c, x, WT_SEQ, p))
			return c->rc;
		a->n = (int)x->n;
		if (t == WCEL_A_INTS) {
			int64_t *l = wa_calloc(c->a, x->n + 1, sizeof *l);
			if (!l)
				return wdr_nomem(c);
			for (size_t i = 0; i < x->n; i++)
				if (ival(c, x->items[i], p, &l[i]))
					return c->rc;
			a->li = l;
		} else if (t == WCEL_A_BOOLS) {
			bool *l = wa_calloc(c->a, x->n + 1, sizeof *l);
			if (!l)
				return wdr_nomem(c);
			for (size_t i = 0; i < x->n; i++) {
				if (x->items[i]->type != WT_BOOL)
					return wdr_bad(c, x->items[i], p,
						       "expected true or "
						       "false");
				l[i] = x->items[i]->boolean;
			}
			a->lb = l;
		} else {
			const char **l = wa_calloc(c->a, x->n + 1, sizeof *l);
			if (!l)
				return wdr_nomem(c);
			for (size_t i = 0; i < x->n; i++)
				if (sdup(c, x->items[i], p, &l[i]))
					return c->rc;
			a->ls = l;
		}
		return 0;
	}
}

static int dec_device(dx *c, const wt_node *dv, const char *path,
		      const char *driver, bool per_device, bool old,
		      wdr_device *d)
{
	char p[PATHMAX];
	if (wdr_want(c, dv, WT_MAP, path))
		return c->rc;
	if (wdr_sfield(c, dv, "name", path, &d->name))
		return c->rc;
	if (!d->name)
		return wdr_bad(c, dv, path, "device has no name");
	const wt_node *body = dv, *b = wdr_mget(dv, "basic");
	if (b) {
		if (!old)
			return wdr_bad(c, b, path, "devices[].basic is the "
				       "v1beta1 form; in resource.k8s.io/v1 "
				       "the attributes and capacity sit "
				       "directly in the device");
		body = b;
	} else if (wdr_mget(dv, "composite")) {
		return wdr_bad(c, wdr_mget(dv, "composite"), path, "composite "
			       "devices (v1alpha3) are not supported");
	}
	d->cel.driver = driver;
	const wt_node *at = wdr_mget(body, "attributes"),
		      *cp = wdr_mget(body, "capacity");
	if (at) {
		wdr_path(p, sizeof p, path, ".attributes", NULL);
		if (wdr_want(c, at, WT_MAP, p))
			return c->rc;
		wcel_attr *l = wa_calloc(c->a, at->n + 1, sizeof *l);
		if (!l)
			return wdr_nomem(c);
		for (size_t i = 0; i < at->n; i++) {
			wdr_path(p, sizeof p, path, ".attributes.",
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
		wdr_path(p, sizeof p, path, ".capacity", NULL);
		if (wdr_want(c, cp, WT_MAP, p))
			return c->rc;
		wcel_cap *l = wa_calloc(c->a, cp->n + 1, sizeof *l);
		if (!l)
			return wdr_nomem(c);
		for (size_t i = 0; i < cp->n; i++) {
			const wt_node *v = wt_val(cp, i);
			wdr_path(p, sizeof p, path, ".capacity.",
				 wt_key(cp, i)->str);
			if (v->type == WT_MAP)
				v = wdr_mget(v, "value");
			if (!v || v->type == WT_MAP || v->type == WT_SEQ)
				return wdr_bad(c, wt_val(cp, i), p, "capacity "
					       "needs a value quantity");
			const char *why = NULL;
			if (wq_parse(v->str, v->len, &l[i].milli, &why))
				return wdr_bad(c, v, p, "invalid quantity "
					       "\"%s\": %s", v->str,
					       why ? why : "");
			if (qualify(c, wt_key(cp, i)->str, driver,
				    &l[i].domain, &l[i].name))
				return c->rc;
		}
		d->cel.caps = l;
		d->cel.ncaps = (int)cp->n;
	}
	const wt_node *m = wdr_mget(body, "allowMultipleAllocations");
	d->multi = m && m->type == WT_BOOL && m->boolean;
	if (wdr_dec_taints(c, wdr_mget(body, "taints"), path, d) ||
	    wdr_dec_consumes(c, wdr_mget(body, "consumesCounters"), path, d))
		return c->rc;
	if (wdr_mget(body, "bindingConditions")) {
		snprintf(p, sizeof p, "%s.bindingConditions", path);
		if (wdr_unsupported(c, "devices[].bindingConditions", c->cur,
				    p, "the device is used as if bound at "
				    "once"))
			return c->rc;
	}
	if (wdr_mget(body, "bindsToNode")) {
		snprintf(p, sizeof p, "%s.bindsToNode", path);
		if (wdr_unsupported(c, "devices[].bindsToNode", c->cur, p,
				    "the device keeps its slice's reach"))
			return c->rc;
	}
	if (per_device) {
		if (dec_reach(c, body, path, &d->reach, NULL))
			return c->rc;
		if (d->reach.node == -3 && !wdr_mget(body, "nodeName"))
			return wdr_bad(c, dv, path, "with "
				       "perDeviceNodeSelection each device "
				       "sets nodeName, nodeSelector or "
				       "allNodes");
	}
	return 0;
}

int wdr_dec_slice(dx *c, const wt_node *o, const char *name, bool old,
		  dslice *out)
{
	const wt_node *spec = wdr_mget(o, "spec");
	if (!spec)
		return wdr_bad(c, o, "", "ResourceSlice %s has no spec", name);
	if (wdr_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	wdr_slice *sl = &out->sl;
	sl->name = wa_strdup(c->a, name);
	sl->src = wdr_src_of(c, o);
	if (wdr_sfield(c, spec, "driver", "spec", &sl->driver))
		return c->rc;
	if (!sl->driver)
		return wdr_bad(c, spec, "spec", "ResourceSlice has no driver");
	const wt_node *pool = wdr_mget(spec, "pool");
	if (!pool)
		return wdr_bad(c, spec, "spec", "ResourceSlice has no pool");
	if (wdr_sfield(c, pool, "name", "spec.pool", &sl->pool))
		return c->rc;
	if (!sl->pool)
		return wdr_bad(c, pool, "spec.pool", "pool has no name");
	const wt_node *v;
	if ((v = wdr_mget(pool, "generation")) &&
	    ival(c, v, "spec.pool.generation", &sl->generation))
		return c->rc;
	int64_t cnt = 1;
	if ((v = wdr_mget(pool, "resourceSliceCount")) &&
	    ival(c, v, "spec.pool.resourceSliceCount", &cnt))
		return c->rc;
	sl->count = cnt < 1 ? 1 : (int)cnt;
	wdr_reach r;
	bool per = false;
	if (dec_reach(c, spec, "spec", &r, &per))
		return c->rc;
	if (r.node == -3 && !per && !wdr_mget(spec, "nodeName"))
		return wdr_bad(c, spec, "spec", "ResourceSlice needs nodeName, "
			       "nodeSelector, allNodes or "
			       "perDeviceNodeSelection");
	if (wdr_dec_shared(c, wdr_mget(spec, "sharedCounters"), "spec", sl))
		return c->rc;
	const wt_node *devs = wdr_mget(spec, "devices");
	if (devs && wdr_want(c, devs, WT_SEQ, "spec.devices"))
		return c->rc;
	size_t n = devs ? devs->n : 0;
	out->devs = wa_calloc(c->t, n + 1, sizeof *out->devs);
	if (!out->devs)
		return wdr_nomem(c);
	for (size_t i = 0; i < n; i++) {
		char p[PATHMAX];
		wdr_pathi(p, sizeof p, "spec.devices", i, "");
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
	if (wdr_want(c, l, WT_SEQ, path))
		return c->rc;
	*out = wa_calloc(c->a, l->n + 1, sizeof **out);
	if (!*out)
		return wdr_nomem(c);
	for (size_t i = 0; i < l->n; i++) {
		snprintf(p, sizeof p, "%s[%zu].cel.expression", path, i);
		const wt_node *cel = wdr_mget(l->items[i], "cel");
		const wt_node *e = wdr_mget(cel, "expression");
		if (!e)
			return wdr_bad(c, l->items[i], p, "selector has no "
				       "cel.expression");
		if (e->type != WT_STR && e->type != WT_NUM &&
		    e->type != WT_BOOL)
			return wdr_bad(c, e, p, "expected a string");
		int rc = wcel_compile(c->a, e->str, wdr_src_of(c, e),
				      &(*out)[i], c->err);
		if (rc)
			return c->rc = rc;
	}
	*nout = (int)l->n;
	return 0;
}

int wdr_dec_class(dx *c, const wt_node *o, const char *name,
		  wdr_class *cl)
{
	cl->name = wa_strdup(c->a, name);
	if (!cl->name)
		return wdr_nomem(c);
	const wt_node *spec = wdr_mget(o, "spec");
	if (wdr_sfield(c, spec, "extendedResourceName", "spec", &cl->ext_res))
		return c->rc;
	return dec_selectors(c, wdr_mget(spec, "selectors"), "spec.selectors",
			     &cl->sel, &cl->nsel);
}

/* ------------------------------------------------------- claims */

static int dec_sub(dx *c, const wt_node *m, const char *path, bool first,
		   wdr_sub *sb)
{
	const char *mode = NULL;
	if (wdr_want(c, m, WT_MAP, path))
		return c->rc;
	if (wdr_sfield(c, m, "deviceClassName", path, &sb->class_name) ||
	    wdr_sfield(c, m, "allocationMode", path, &mode))
		return c->rc;
	if (!sb->class_name)
		return wdr_bad(c, m, path, "request has no deviceClassName");
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s.selectors", path);
	if (dec_selectors(c, wdr_mget(m, "selectors"), p, &sb->sel, &sb->nsel))
		return c->rc;
	sb->count = 1;
	if (mode && !strcmp(mode, "All")) {
		sb->all = true;
	} else if (mode && strcmp(mode, "ExactCount")) {
		return wdr_bad(c, wdr_mget(m, "allocationMode"), path,
			       "allocationMode must be ExactCount or All, not "
			       "\"%s\"", mode);
	}
	const wt_node *v = wdr_mget(m, "count");
	if (v) {
		int64_t n;
		snprintf(p, sizeof p, "%s.count", path);
		if (ival(c, v, p, &n))
			return c->rc;
		if (n < 1 || n > WDR_MAX_RESULTS)
			return wdr_bad(c, v, p, "count must be 1..%d",
				       WDR_MAX_RESULTS);
		sb->count = (int)n;
	}
	(void)first;
	const wt_node *ad = wdr_mget(m, "adminAccess");
	sb->admin = ad && ad->type == WT_BOOL && ad->boolean;
	if (wdr_dec_tols(c, wdr_mget(m, "tolerations"), path, sb))
		return c->rc;
	snprintf(p, sizeof p, "%s.capacity", path);
	if (wdr_mget(m, "capacity") &&
	    wdr_unsupported(c, "requests[].capacity", c->cur, p,
			    "consumable capacity: the device is taken whole"))
		return c->rc;
	return 0;
}

int wdr_dec_claimspec(dx *c, const wt_node *spec, const char *path,
		      bool old, wdr_spec *sp)
{
	char p[PATHMAX];
	const wt_node *dv = wdr_mget(spec, "devices");
	if (!dv)
		return 0; /* a claim for nothing */
	snprintf(p, sizeof p, "%s.devices", path);
	if (wdr_want(c, dv, WT_MAP, p))
		return c->rc;
	const wt_node *rq = wdr_mget(dv, "requests"),
		      *cs = wdr_mget(dv, "constraints");
	if (rq) {
		snprintf(p, sizeof p, "%s.devices.requests", path);
		if (wdr_want(c, rq, WT_SEQ, p))
			return c->rc;
		sp->reqs = wa_calloc(c->a, rq->n + 1, sizeof *sp->reqs);
		if (!sp->reqs)
			return wdr_nomem(c);
		for (size_t i = 0; i < rq->n; i++) {
			const wt_node *r = rq->items[i];
			wdr_req *q = &sp->reqs[sp->nreqs++];
			snprintf(p, sizeof p, "%s.devices.requests[%zu]", path,
				 i);
			if (wdr_want(c, r, WT_MAP, p) ||
			    wdr_sfield(c, r, "name", p, &q->name))
				return c->rc;
			if (!q->name)
				return wdr_bad(c, r, p, "request has no name");
			const wt_node *ex = wdr_mget(r, "exactly"),
				      *fa = wdr_mget(r, "firstAvailable");
			if (!ex && !fa && wdr_mget(r, "deviceClassName")) {
				if (!old)
					return wdr_bad(c, r, p, "in "
						       "resource.k8s.io/v1 a "
						       "request puts "
						       "deviceClassName, "
						       "selectors, "
						       "allocationMode and "
						       "count under exactly:");
				ex = r; /* v1beta1: fields in the request */
			}
			if (!ex == !fa)
				return wdr_bad(c, r, p, "request needs exactly "
					       "one of exactly or "
					       "firstAvailable");
			if (ex) {
				q->alts = wa_calloc(c->a, 1, sizeof *q->alts);
				if (!q->alts)
					return wdr_nomem(c);
				q->nalts = 1;
				q->alts[0].name = q->name;
				char pp[PATHMAX];
				snprintf(pp, sizeof pp, "%s%s", p,
					 ex == r ? "" : ".exactly");
				if (dec_sub(c, ex, pp, false, &q->alts[0]))
					return c->rc;
				continue;
			}
			if (wdr_want(c, fa, WT_SEQ, p))
				return c->rc;
			if (fa->n == 0)
				return wdr_bad(c, fa, p,
					       "firstAvailable is empty");
			q->alts = wa_calloc(c->a, fa->n, sizeof *q->alts);
			if (!q->alts)
				return wdr_nomem(c);
			q->nalts = (int)fa->n;
			for (size_t k = 0; k < fa->n; k++) {
				char pp[PATHMAX];
				const char *sn = NULL;
				snprintf(pp, sizeof pp,
					 "%s.firstAvailable[%zu]", p, k);
				if (wdr_sfield(c, fa->items[k], "name", pp,
					       &sn))
					return c->rc;
				if (!sn)
					return wdr_bad(c, fa->items[k], pp,
						       "subrequest has no "
						       "name");
				q->alts[k].name = wa_printf(c->a, "%s/%s",
							    q->name, sn);
				if (!q->alts[k].name)
					return wdr_nomem(c);
				if (dec_sub(c, fa->items[k], pp, true,
					    &q->alts[k]))
					return c->rc;
			}
		}
	}
	if (cs) {
		snprintf(p, sizeof p, "%s.devices.constraints", path);
		if (wdr_want(c, cs, WT_SEQ, p))
			return c->rc;
		sp->cons = wa_calloc(c->a, cs->n + 1, sizeof *sp->cons);
		if (!sp->cons)
			return wdr_nomem(c);
		for (size_t i = 0; i < cs->n; i++) {
			const wt_node *x = cs->items[i];
			wdr_cons *k = &sp->cons[sp->ncons++];
			char pp[PATHMAX];
			snprintf(pp, sizeof pp, "%s[%zu]", p, i);
			const char *ma = NULL, *da = NULL;
			if (wdr_sfield(c, x, "matchAttribute", pp, &ma) ||
			    wdr_sfield(c, x, "distinctAttribute", pp, &da))
				return c->rc;
			if (!ma == !da)
				return wdr_bad(c, x, pp, "constraint needs "
					       "exactly one of matchAttribute "
					       "or distinctAttribute");
			k->distinct = da != NULL;
			const char *q = ma ? ma : da;
			if (!strchr(q, '/'))
				return wdr_bad(c, x, pp, "attribute \"%s\" "
					       "must be fully qualified "
					       "(domain/name)", q);
			if (qualify(c, q, NULL, &k->domain, &k->attr))
				return c->rc;
			const wt_node *rl = wdr_mget(x, "requests");
			if (rl) {
				if (wdr_want(c, rl, WT_SEQ, pp))
					return c->rc;
				k->reqs = wa_calloc(c->a, rl->n + 1,
						    sizeof *k->reqs);
				if (!k->reqs)
					return wdr_nomem(c);
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
