/*
 * decode_fields.c -- the decoder's field readers.
 *
 * Typed getters over the document tree (string, integer, boolean, map,
 * list) that report a wrong value at its position with the field's path
 * (doc/input.md "Errors"); quantities and resource lists (doc/input.md
 * "Quantities"); labels, taint effects, preemption policies; node selector
 * requirements (matchExpressions / matchFields, shared by pods and
 * PodDisruptionBudgets); and the duplicate-object check (doc/input.md
 * "Names and namespaces").
 */

#include "model/decode_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quantity.h"

/* ------------------------------------------------------------ helpers */

int wd_nomem(dctx *c)
{
	return c->rc = werr(c->err, WASP_ENOMEM,
			    "out of memory while decoding");
}

/* "path: message" at n's position. */
__attribute__((format(printf, 4, 5)))
int wd_bad(dctx *c, const wt_node *n, const char *path, const char *fmt,
	   ...)
{
	char msg[480];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	wsrc at = n ? n->src : (wsrc){0};
	c->rc = WASP_EINPUT;
	if (path && *path)
		return werr_at(c->err, WASP_EINPUT, at, "%s: %s", path, msg);
	return werr_at(c->err, WASP_EINPUT, at, "%s", msg);
}

/* Path building; overlong paths are cut (they only label messages). */
static const char *pcat(char *buf, const char *a, const char *sep,
			const char *b)
{
	const char *parts[3] = {a, sep, b};
	size_t n = 0;
	for (int k = 0; k < 3; k++)
		for (const char *x = parts[k]; x && *x && n < PATHMAX - 1; x++)
			buf[n++] = *x;
	buf[n] = 0;
	return buf;
}

const char *wd_pk(char *buf, const char *base, const char *key)
{
	return pcat(buf, base, base && *base ? "." : "", key);
}

const char *wd_pi(char *buf, const char *base, size_t i)
{
	char idx[32];
	snprintf(idx, sizeof idx, "[%zu]", i);
	return pcat(buf, base, "", idx);
}

/* Map lookup; a null value counts as absent (kubectl prints many). */
const wt_node *wd_mget(const wt_node *m, const char *key)
{
	if (!m || m->type != WT_MAP)
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const wt_node *k = wt_key(m, i);
		if (k->str && !strcmp(k->str, key)) {
			const wt_node *v = wt_val(m, i);
			return v->type == WT_NULL ? NULL : v;
		}
	}
	return NULL;
}

/* The key node itself (for errors about a field's name). */
const wt_node *wd_mkey(const wt_node *m, const char *key)
{
	if (!m || m->type != WT_MAP)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (wt_key(m, i)->str && !strcmp(wt_key(m, i)->str, key))
			return wt_key(m, i);
	return NULL;
}

int wd_want(dctx *c, const wt_node *n, wt_type t, const char *path)
{
	if (n->type == t)
		return 0;
	const char *w = t == WT_MAP ? "a map" : t == WT_SEQ ? "a list"
		      : t == WT_BOOL ? "a boolean" : "a scalar";
	return wd_bad(c, n, path, "expected %s, got %s", w,
		      wt_type_phrase(n->type));
}

bool wd_is_scalar(const wt_node *n)
{
	return n->type == WT_STR || n->type == WT_NUM || n->type == WT_BOOL;
}

/* A string field: any scalar's text (unquoted `version: 1` reads as "1").
 * Returns the tree's text (not copied). */
int wd_sval(dctx *c, const wt_node *n, const char *path, const char **out)
{
	*out = "";
	if (!wd_is_scalar(n))
		return wd_bad(c, n, path, "expected a string, got %s",
			      wt_type_phrase(n->type));
	*out = n->str ? n->str : "";
	/* "\u0000" in JSON, "\0" in YAML: C strings would end there */
	if (n->str && strlen(n->str) != n->len)
		return wd_bad(c, n, path, "contains a NUL character");
	return 0;
}

/* Names, labels and selectors hold no control characters (as the API
 * server's validation says: DNS names, label syntax); refusing them
 * here also keeps every message that quotes them on one line. */
int wd_no_ctl(dctx *c, const wt_node *n, const char *path, const char *s)
{
	for (const unsigned char *q = (const unsigned char *)s; *q; q++)
		if (*q < 0x20 || *q == 0x7F)
			return wd_bad(c, n, path, "contains a control "
				      "character (byte 0x%02X at offset %zu)",
				      *q, (size_t)(q - (const unsigned char *)s));
	return 0;
}

/* Optional string field of map m, copied into the snapshot arena. */
int wd_sfield(dctx *c, const wt_node *m, const char *key,
	      const char *base, const char **out, const wt_node **node)
{
	char p[PATHMAX];
	const wt_node *v = wd_mget(m, key);
	*out = NULL;
	if (node)
		*node = v;
	if (!v)
		return 0;
	const char *s = "";
	if (wd_sval(c, v, wd_pk(p, base, key), &s))
		return c->rc;
	if (!(*out = wa_strdup(c->a, s)))
		return wd_nomem(c);
	return 0;
}

int wd_ival(dctx *c, const wt_node *n, const char *path, int64_t lo,
	    int64_t hi, int64_t *out)
{
	if (n->type != WT_NUM && n->type != WT_STR)
		return wd_bad(c, n, path, "expected an integer, got %s",
			      wt_type_phrase(n->type));
	const char *s = n->str ? n->str : "";
	const char *p = s;
	bool neg = false;
	if (n->type == WT_STR)
		return wd_bad(c, n, path, "expected an integer, got the string "
			      "\"%s\"", s);
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p)
		return wd_bad(c, n, path, "expected an integer, got \"%s\"", s);
	uint64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return wd_bad(c, n, path,
				      "expected an integer, got \"%s\"", s);
		if (v > (UINT64_MAX - 9) / 10) {
			v = UINT64_MAX;
			break;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if ((!neg && v > (uint64_t)hi) ||
	    (neg && (lo >= 0 ? v > 0 : v > (uint64_t)0 - (uint64_t)lo)))
		return wd_bad(c, n, path, "%s is out of range [%lld, %lld]", s,
			      (long long)lo, (long long)hi);
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int wd_bval(dctx *c, const wt_node *n, const char *path, bool *out)
{
	if (n->type != WT_BOOL)
		return wd_bad(c, n, path, "expected true or false, got %s",
			      wt_type_phrase(n->type));
	*out = n->boolean;
	return 0;
}

static const char *file_of(dctx *c, const char *f)
{
	if (!f)
		return NULL;
	if (f == c->file_in)
		return c->file_out;
	const char *d = wa_strdup(c->a, f);
	if (d) {
		c->file_in = f;
		c->file_out = d;
	}
	return d;
}

wsrc wd_src_of(dctx *c, const wt_node *n)
{
	wsrc s = n->src;
	s.file = file_of(c, s.file);
	return s;
}

__attribute__((format(printf, 2, 3)))
int wd_warn(dctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	const char *w = wa_strdup(c->a, buf);
	if (!w || WA_PUSH(c->t, c->warns, c->nwarns, c->capwarns, w))
		return wd_nomem(c);
	return 0;
}

const char *wd_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A name usable in "ns/name" keys. */
int wd_check_name(dctx *c, const wt_node *n, const char *path,
		  const char *s)
{
	if (!*s)
		return wd_bad(c, n, path, "must not be empty");
	if (wd_no_ctl(c, n, path, s))
		return c->rc;
	if (strlen(s) > WASP_MAX_NAME)
		return wd_bad(c, n, path, "longer than %d characters",
			      WASP_MAX_NAME);
	if (strchr(s, '/'))
		return wd_bad(c, n, path, "\"%s\" must not contain '/'", s);
	return 0;
}

/* ---------------------------------------------------------- resources */

int wd_intern_res(dctx *c, const char *name, int *out)
{
	int r = ws_map_get(c->res, name);
	if (r >= 0) {
		*out = r;
		return 0;
	}
	const char *k = wa_strdup(c->a, name);
	if (!k || WA_PUSH(c->t, c->rnames, c->nres, c->caprn, k))
		return wd_nomem(c);
	if (ws_map_put(c->res, k, (int)c->nres - 1) == -2)
		return wd_nomem(c);
	*out = (int)c->nres - 1;
	return 0;
}

static int qval(dctx *c, const wt_node *n, const char *path, int64_t *out)
{
	if (n->type != WT_STR && n->type != WT_NUM)
		return wd_bad(c, n, path, "expected a quantity, got %s",
			      wt_type_phrase(n->type));
	const char *why = "";
	int st = wq_parse(n->str, n->len, out, &why);
	if (st != WQ_OK)
		return wd_bad(c, n, path, "bad quantity \"%s\": %s", n->str,
			      why);
	if (*out < 0)
		return wd_bad(c, n, path, "negative quantity \"%s\"", n->str);
	return 0;
}

/* A map resource-name -> quantity, appended to l (skipping "pods" when
 * skip_pods: a pod's own count is fixed at one). */
int wd_dec_reslist(dctx *c, const wt_node *m, const char *path,
		   qlist *l, bool skip_pods)
{
	char p[PATHMAX];
	if (wd_want(c, m, WT_MAP, path))
		return c->rc;
	for (size_t i = 0; i < m->n; i++) {
		const char *name = wt_key(m, i)->str;
		const wt_node *v = wt_val(m, i);
		int64_t q;
		int r;
		if (qval(c, v, wd_pk(p, path, name), &q))
			return c->rc;
		if (!*name)
			return wd_bad(c, wt_key(m, i), path,
				      "empty resource name");
		if (skip_pods && !strcmp(name, "pods"))
			continue;
		if (wd_intern_res(c, name, &r))
			return WASP_ENOMEM;
		if (WA_PUSH(c->t, l->q, l->n, l->cap, ((qv){r, q})))
			return wd_nomem(c);
	}
	return 0;
}

static bool ql_has(const qlist *l, int r)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->q[i].r == r)
			return true;
	return false;
}

/* requests, and limits for resources without a request (the API server
 * defaults a missing request to the limit). */
int wd_dec_resources(dctx *c, const wt_node *res, const char *path,
		     qlist *out)
{
	char p[PATHMAX];
	if (wd_want(c, res, WT_MAP, path))
		return c->rc;
	const wt_node *rq = wd_mget(res, "requests"),
		      *lim = wd_mget(res, "limits");
	if (rq && wd_dec_reslist(c, rq, wd_pk(p, path, "requests"), out, true))
		return c->rc;
	if (lim) {
		qlist l = {0};
		if (wd_dec_reslist(c, lim, wd_pk(p, path, "limits"), &l, true))
			return c->rc;
		size_t nreq = out->n;
		for (size_t i = 0; i < l.n; i++) {
			qlist head = {out->q, nreq, nreq};
			if (!ql_has(&head, l.q[i].r) &&
			    WA_PUSH(c->t, out->q, out->n, out->cap, l.q[i]))
				return wd_nomem(c);
		}
	}
	return 0;
}

/* ------------------------------------------------------ common pieces */

int wd_dec_labels(dctx *c, const wt_node *m, const char *path,
		  ws_kv **out, int *nout)
{
	char p[PATHMAX];
	*out = NULL;
	*nout = 0;
	if (wd_want(c, m, WT_MAP, path))
		return c->rc;
	if (m->n == 0)
		return 0;
	ws_kv *kv = wa_calloc(c->a, m->n, sizeof *kv);
	if (!kv)
		return wd_nomem(c);
	for (size_t i = 0; i < m->n; i++) {
		const wt_node *v = wt_val(m, i);
		const wt_node *kn = wt_key(m, i);
		const char *key = kn->str, *s = "";
		if (wd_sval(c, kn, path, &key) || wd_no_ctl(c, kn, path, key))
			return c->rc;
		if (v->type != WT_NULL &&
		    (wd_sval(c, v, wd_pk(p, path, key), &s) ||
		     wd_no_ctl(c, v, wd_pk(p, path, key), s)))
			return c->rc;
		kv[i].key = wa_strdup(c->a, key);
		kv[i].val = wa_strdup(c->a, s);
		if (!kv[i].key || !kv[i].val)
			return wd_nomem(c);
	}
	*out = kv;
	*nout = (int)m->n;
	return 0;
}

int wd_kv_cmp(const void *a, const void *b)
{
	return strcmp(((const ws_kv *)a)->key, ((const ws_kv *)b)->key);
}

int wd_dec_effect(dctx *c, const wt_node *n, const char *path,
		  bool allow_empty, ws_effect *out)
{
	const char *s = "";
	if (wd_sval(c, n, path, &s))
		return c->rc;
	if (!strcmp(s, "NoSchedule"))
		*out = WS_EFFECT_NOSCHEDULE;
	else if (!strcmp(s, "PreferNoSchedule"))
		*out = WS_EFFECT_PREFERNOSCHEDULE;
	else if (!strcmp(s, "NoExecute"))
		*out = WS_EFFECT_NOEXECUTE;
	else if (allow_empty && !*s)
		*out = WS_EFFECT_ALL;
	else
		return wd_bad(c, n, path, "unknown effect \"%s\" (want "
			      "NoSchedule, PreferNoSchedule or NoExecute)", s);
	return 0;
}

int wd_dec_preempt(dctx *c, const wt_node *n, const char *path,
		   int *out)
{
	const char *s = "";
	if (wd_sval(c, n, path, &s))
		return c->rc;
	if (!strcmp(s, "PreemptLowerPriority"))
		*out = WS_PREEMPT_LOWER;
	else if (!strcmp(s, "Never"))
		*out = WS_PREEMPT_NEVER;
	else
		return wd_bad(c, n, path, "unknown preemptionPolicy \"%s\" "
			      "(want PreemptLowerPriority or Never)", s);
	return 0;
}

const char *wd_preempt_name(int p)
{
	return p == WS_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority";
}

/* ------------------------------------------------------------- object */

int wd_dup_check(dctx *c, const char *kind, const char *ns,
		 const char *name, const wt_node *name_node)
{
	const char *key = ns ? wa_printf(c->t, "%s/%s/%s", kind, ns, name)
			     : wa_printf(c->t, "%s//%s", kind, name);
	if (!key)
		return wd_nomem(c);
	int prev = ws_map_put(c->objs, key, (int)c->nfirst);
	if (prev == -2)
		return wd_nomem(c);
	if (prev >= 0) {
		const wt_node *f = c->first_at[prev];
		return wd_bad(c, name_node, "", "duplicate %s %s%s%s (first at "
			      "%s:%d:%d)", kind, ns ? ns : "", ns ? "/" : "",
			      name, f->src.file ? f->src.file : "",
			      f->src.line, f->src.col);
	}
	if (WA_PUSH(c->t, c->first_at, c->nfirst, c->capfirst, name_node))
		return wd_nomem(c);
	return 0;
}

int wd_dec_expr(dctx *c, const wt_node *x, const char *path, bool field,
		ws_expr *e)
{
	char p[PATHMAX];
	const wt_node *opn, *vals;
	const char *op;
	if (wd_want(c, x, WT_MAP, path))
		return c->rc;
	if (wd_sfield(c, x, "key", path, &e->key, NULL))
		return c->rc;
	if (!e->key || !*e->key)
		return wd_bad(c, x, path, "requirement has no key");
	if (wd_no_ctl(c, wd_mget(x, "key"), wd_pk(p, path, "key"), e->key))
		return c->rc;
	e->field = field;
	if (field && strcmp(e->key, "metadata.name"))
		return wd_bad(c, wd_mget(x, "key"), wd_pk(p, path, "key"),
			      "matchFields supports only metadata.name, not "
			      "\"%s\"", e->key);
	if (!(opn = wd_mget(x, "operator")))
		return wd_bad(c, x, path, "requirement has no operator");
	if (wd_sval(c, opn, wd_pk(p, path, "operator"), &op))
		return c->rc;
	static const struct {
		const char *name;
		ws_op op;
	} ops[] = {{"In", WS_OP_IN}, {"NotIn", WS_OP_NOTIN},
		   {"Exists", WS_OP_EXISTS},
		   {"DoesNotExist", WS_OP_DOESNOTEXIST}, {"Gt", WS_OP_GT},
		   {"Lt", WS_OP_LT}};
	size_t k;
	for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (!strcmp(op, ops[k].name))
			break;
	if (k == sizeof ops / sizeof ops[0] ||
	    (field && ops[k].op != WS_OP_IN && ops[k].op != WS_OP_NOTIN))
		return wd_bad(c, opn, wd_pk(p, path, "operator"),
			      "unknown operator \"%s\" (want %s)", op,
			      field ? "In or NotIn"
				 : "In, NotIn, Exists, DoesNotExist, Gt or "
				   "Lt");
	e->op = ops[k].op;

	vals = wd_mget(x, "values");
	if (vals && wd_want(c, vals, WT_SEQ, wd_pk(p, path, "values")))
		return c->rc;
	size_t nv = vals ? vals->n : 0;
	const wt_node *where = vals ? vals : opn;
	switch (e->op) {
	case WS_OP_IN:
	case WS_OP_NOTIN:
		if (nv == 0)
			return wd_bad(c, where, wd_pk(p, path, "values"),
				      "%s needs at least one value", op);
		break;
	case WS_OP_EXISTS:
	case WS_OP_DOESNOTEXIST:
		if (nv)
			return wd_bad(c, where, wd_pk(p, path, "values"),
				      "%s takes no values", op);
		break;
	case WS_OP_GT:
	case WS_OP_LT:
		if (nv != 1)
			return wd_bad(c, where, wd_pk(p, path, "values"),
				      "%s needs exactly one value", op);
		break;
	}
	if (nv) {
		e->vals = wa_calloc(c->a, nv, sizeof *e->vals);
		if (!e->vals)
			return wd_nomem(c);
		for (size_t i = 0; i < nv; i++) {
			char vp[PATHMAX];
			const char *s = "";
			wd_pi(vp, wd_pk(p, path, "values"), i);
			if (wd_sval(c, vals->items[i], vp, &s) ||
			    wd_no_ctl(c, vals->items[i], vp, s))
				return c->rc;
			if (!(e->vals[i] = wa_strdup(c->a, s)))
				return wd_nomem(c);
		}
		e->nvals = (int)nv;
	}
	if (e->op == WS_OP_GT || e->op == WS_OP_LT) {
		/* strconv.ParseInt: digits with an optional sign */
		const char *s = e->vals[0], *d = s;
		bool neg = false;
		uint64_t v = 0;
		bool ok = true;
		if (*d == '+' || *d == '-')
			neg = *d++ == '-';
		if (!*d)
			ok = false;
		for (; *d && ok; d++) {
			if (*d < '0' || *d > '9' ||
			    v > ((uint64_t)INT64_MAX + (neg ? 1 : 0) -
				 (uint64_t)(*d - '0')) / 10)
				ok = false;
			else
				v = v * 10 + (uint64_t)(*d - '0');
		}
		if (!ok) {
			char vp[PATHMAX];
			return wd_bad(c, vals->items[0],
				      wd_pi(vp, wd_pk(p, path, "values"), 0),
				      "%s needs an integer, got \"%s\"", op, s);
		}
		e->num = neg ? (int64_t)(0 - v) : (int64_t)v;
	}
	return 0;
}
