/*
 * cel_eval.c -- evaluate a compiled device selector on one device
 * (cel.h).  Values are held on the C stack (lists are views of literal
 * nodes or of a device's list attribute), so evaluation never allocates.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cel_int.h"
#include "model/quantity.h"

/* ------------------------------------------------------------ eval */

typedef struct ectx {
	const wcel_prog *p;
	const wcel_device *d;
	wasp_error e;   /* first error of the current subtree */
	int depth;
} ectx;

static cval verr(ectx *c, const cnode *n, const char *fmt, const char *arg)
{
	char buf[256];
	snprintf(buf, sizeof buf, fmt, arg);
	werr_at(&c->e, WASP_EINPUT, c->p->at, "CEL: %s at offset %d", buf,
		n->off);
	cval v = {0};
	v.t = V_ERR;
	return v;
}

static const char *tname(int t)
{
	static const char *const names[] = {
		"null", "bool", "int", "uint", "double", "string", "list",
		"quantity", "semver", "device", "map", "map", "map", "map",
		"error"
	};
	return names[t];
}

static cval ev(ectx *c, const cnode *n);

static cval mkbool(bool b)
{
	cval v = {0};
	v.t = V_BOOL;
	v.b = b;
	return v;
}

static cval mkint(int64_t i)
{
	cval v = {0};
	v.t = V_INT;
	v.i = i;
	return v;
}

static cval attr_val(const wcel_attr *a)
{
	cval v = {0};
	switch (a->type) {
	case WCEL_A_INT: v.t = V_INT; v.i = a->i; break;
	case WCEL_A_BOOL: v.t = V_BOOL; v.b = a->b; break;
	case WCEL_A_STRING: v.t = V_STR; v.s = a->s ? a->s : ""; break;
	case WCEL_A_VERSION: v.t = V_VER; v.s = a->s ? a->s : ""; break;
	default: v.t = V_LIST; v.la = a; break;
	}
	return v;
}

static int list_len(const cval *l)
{
	return l->ln ? l->ln->nargs : l->la->n;
}

static cval list_get(ectx *c, const cval *l, int i)
{
	if (l->ln)
		return ev(c, l->ln->args[i]);
	const wcel_attr *a = l->la;
	cval v = {0};
	switch (a->type) {
	case WCEL_A_INTS: v.t = V_INT; v.i = a->li[i]; break;
	case WCEL_A_BOOLS: v.t = V_BOOL; v.b = a->lb[i]; break;
	case WCEL_A_STRINGS: v.t = V_STR; v.s = a->ls[i]; break;
	default: v.t = V_VER; v.s = a->ls[i]; break;
	}
	return v;
}

static const wcel_attr *find_attr(const wcel_device *d, const char *dom,
				  const char *name)
{
	for (int i = 0; i < d->nattrs; i++)
		if (!strcmp(d->attrs[i].name, name) &&
		    !strcmp(d->attrs[i].domain, dom))
			return &d->attrs[i];
	return NULL;
}

static const wcel_cap *find_cap(const wcel_device *d, const char *dom,
				const char *name)
{
	for (int i = 0; i < d->ncaps; i++)
		if (!strcmp(d->caps[i].name, name) &&
		    !strcmp(d->caps[i].domain, dom))
			return &d->caps[i];
	return NULL;
}

static bool has_domain(const wcel_device *d, const char *dom, bool caps)
{
	if (caps) {
		for (int i = 0; i < d->ncaps; i++)
			if (!strcmp(d->caps[i].domain, dom))
				return true;
	} else {
		for (int i = 0; i < d->nattrs; i++)
			if (!strcmp(d->attrs[i].domain, dom))
				return true;
	}
	return false;
}

/* Field or key `key` of v; `has` only tests presence (returns bool). */
static cval lookup(ectx *c, const cnode *n, cval v, const char *key, bool has)
{
	cval r = {0};
	switch (v.t) {
	case V_DEVICE:
		if (!strcmp(key, "driver")) {
			r.t = V_STR;
			r.s = c->d->driver ? c->d->driver : "";
		} else if (!strcmp(key, "attributes")) {
			r.t = V_ATTRS;
		} else if (!strcmp(key, "capacity")) {
			r.t = V_CAPS;
		} else {
			return has ? mkbool(false)
				   : verr(c, n, "no such key: '%s'", key);
		}
		return has ? mkbool(true) : r;
	case V_ATTRS:
	case V_CAPS:
		if (has)
			return mkbool(has_domain(c->d, key, v.t == V_CAPS));
		/* An unknown domain is an empty map. */
		r.t = v.t == V_ATTRS ? V_DATTRS : V_DCAPS;
		r.s = key;
		return r;
	case V_DATTRS: {
		const wcel_attr *a = find_attr(c->d, v.s, key);
		if (has)
			return mkbool(a != NULL);
		if (!a)
			return verr(c, n, "no such key: '%s'", key);
		return attr_val(a);
	}
	case V_DCAPS: {
		const wcel_cap *k = find_cap(c->d, v.s, key);
		if (has)
			return mkbool(k != NULL);
		if (!k)
			return verr(c, n, "no such key: '%s'", key);
		r.t = V_QTY;
		r.i = k->milli;
		return r;
	}
	default:
		return verr(c, n, "cannot select a field of a %s value",
			    tname(v.t));
	}
}

static bool is_num(int t)
{
	return t == V_INT || t == V_UINT || t == V_DBL;
}

/* Equality; -1 for an error (only for unparsable versions). */
static int equal(ectx *c, const cval *a, const cval *b)
{
	if (is_num(a->t) && is_num(b->t)) {
		if (a->t != V_DBL && b->t != V_DBL)
			return a->i == b->i;
		double x = a->t == V_DBL ? a->d : (double)a->i;
		double y = b->t == V_DBL ? b->d : (double)b->i;
		return x == y;
	}
	if (a->t != b->t)
		return 0;
	switch (a->t) {
	case V_NULL: return 1;
	case V_BOOL: return a->b == b->b;
	case V_STR: return !strcmp(a->s, b->s);
	case V_QTY: return a->i == b->i;
	case V_VER: {
		int k;
		if (wcel_semver_cmp(a->s, b->s, &k))
			return -1;
		return k == 0;
	}
	case V_LIST: {
		int na = list_len(a), nb = list_len(b);
		if (na != nb)
			return 0;
		for (int i = 0; i < na; i++) {
			cval x = list_get(c, a, i), y = list_get(c, b, i);
			if (x.t == V_ERR || y.t == V_ERR)
				return -1;
			int e = equal(c, &x, &y);
			if (e != 1)
				return e;
		}
		return 1;
	}
	default:
		return 0;
	}
}

static cval in_list_v(ectx *c, const cnode *n, const cval *x, const cval *l)
{
	int len = list_len(l);
	for (int i = 0; i < len; i++) {
		cval y = list_get(c, l, i);
		if (y.t == V_ERR)
			return y;
		int e = equal(c, x, &y);
		if (e < 0)
			return verr(c, n, "%s", "invalid semver value");
		if (e)
			return mkbool(true);
	}
	return mkbool(false);
}

static cval compare(ectx *c, const cnode *n, int op, const cval *a,
		    const cval *b)
{
	int k;
	if (is_num(a->t) && is_num(b->t)) {
		if (a->t != V_DBL && b->t != V_DBL) {
			k = a->i < b->i ? -1 : a->i > b->i;
		} else {
			double x = a->t == V_DBL ? a->d : (double)a->i;
			double y = b->t == V_DBL ? b->d : (double)b->i;
			k = x < y ? -1 : x > y;
		}
	} else if (a->t == V_STR && b->t == V_STR) {
		k = strcmp(a->s, b->s);
		k = k < 0 ? -1 : k > 0;
	} else if (a->t == V_BOOL && b->t == V_BOOL) {
		k = (int)a->b - (int)b->b;
	} else if ((a->t == V_QTY || a->t == V_VER) && a->t == b->t) {
		return verr(c, n, "no matching overload for relational "
			    "operator on %s values (use compareTo, "
			    "isGreaterThan or isLessThan)", tname(a->t));
	} else {
		char buf[64];
		snprintf(buf, sizeof buf, "%s and %s", tname(a->t),
			 tname(b->t));
		return verr(c, n, "no matching overload for comparing %s", buf);
	}
	switch (op) {
	case T_LT: return mkbool(k < 0);
	case T_LE: return mkbool(k <= 0);
	case T_GT: return mkbool(k > 0);
	default: return mkbool(k >= 0);
	}
}

static cval arith(ectx *c, const cnode *n, int op, const cval *a,
		  const cval *b)
{
	if ((a->t == V_INT || a->t == V_UINT) && a->t == b->t) {
		int64_t r;
		bool ovf = false;
		switch (op) {
		case T_PLUS: ovf = __builtin_add_overflow(a->i, b->i, &r); break;
		case T_MINUS: ovf = __builtin_sub_overflow(a->i, b->i, &r); break;
		case T_STAR: ovf = __builtin_mul_overflow(a->i, b->i, &r); break;
		default:
			if (!b->i)
				return verr(c, n, "%s", op == T_SLASH ?
					    "division by zero" : "modulus by zero");
			if (a->i == INT64_MIN && b->i == -1)
				return verr(c, n, "%s", "integer overflow");
			r = op == T_SLASH ? a->i / b->i : a->i % b->i;
		}
		if (ovf)
			return verr(c, n, "%s", "integer overflow");
		cval v = mkint(r);
		v.t = a->t;
		return v;
	}
	if (a->t == V_DBL && b->t == V_DBL && op != T_PCT) {
		cval v = {0};
		v.t = V_DBL;
		v.d = op == T_PLUS ? a->d + b->d : op == T_MINUS ? a->d - b->d
		    : op == T_STAR ? a->d * b->d : a->d / b->d;
		return v;
	}
	if (a->t == V_STR && b->t == V_STR && op == T_PLUS)
		return verr(c, n, "%s",
			    "unsupported construct 'string concatenation'");
	char buf[64];
	snprintf(buf, sizeof buf, "%s and %s", tname(a->t), tname(b->t));
	return verr(c, n, "no matching overload for arithmetic on %s", buf);
}

static cval ev_method(ectx *c, const cnode *n)
{
	cval t = ev(c, n->a);
	if (t.t == V_ERR)
		return t;
	cval args[CEL_MAX_ARGS];
	for (int i = 0; i < n->nargs; i++) {
		args[i] = ev(c, n->args[i]);
		if (args[i].t == V_ERR)
			return args[i];
	}
	const char *m = n->name;
	int na = n->nargs;
	if (t.t == V_STR) {
		if (!strcmp(m, "size") && na == 0)
			return mkint((int64_t)strlen(t.s));
		if (na == 1 && args[0].t == V_STR) {
			const char *s = t.s, *x = args[0].s;
			size_t ls = strlen(s), lx = strlen(x);
			if (!strcmp(m, "startsWith"))
				return mkbool(!strncmp(s, x, lx));
			if (!strcmp(m, "endsWith"))
				return mkbool(ls >= lx &&
					      !strcmp(s + ls - lx, x));
			if (!strcmp(m, "contains"))
				return mkbool(strstr(s, x) != NULL);
			if (!strcmp(m, "matches")) {
				regex_t re;
				const char *why = NULL;
				if (wcel_re_compile(x, &re, &why))
					return verr(c, n->args[0], "%s", why);
				int r = regexec(&re, s, 0, NULL, 0);
				regfree(&re);
				return mkbool(r == 0);
			}
		}
	} else if (t.t == V_QTY) {
		if (na == 0 && !strcmp(m, "isInteger"))
			return mkbool(t.i % 1000 == 0);
		if (na == 0 && !strcmp(m, "asInteger")) {
			if (t.i % 1000)
				return verr(c, n, "%s",
					    "quantity is not an integer");
			return mkint(t.i / 1000);
		}
		if (na == 1 && args[0].t == V_QTY) {
			int k = t.i < args[0].i ? -1 : t.i > args[0].i;
			if (!strcmp(m, "compareTo"))
				return mkint(k);
			if (!strcmp(m, "isGreaterThan"))
				return mkbool(k > 0);
			if (!strcmp(m, "isLessThan"))
				return mkbool(k < 0);
		}
	} else if (t.t == V_VER) {
		semver v;
		if (wcel_semver_parse(t.s, &v))
			return verr(c, n->a, "invalid semver '%s'", t.s);
		if (na == 0 && !strcmp(m, "major"))
			return mkint(v.v[0]);
		if (na == 0 && !strcmp(m, "minor"))
			return mkint(v.v[1]);
		if (na == 0 && !strcmp(m, "patch"))
			return mkint(v.v[2]);
		if (na == 1 && args[0].t == V_VER) {
			int k;
			if (wcel_semver_cmp(t.s, args[0].s, &k))
				return verr(c, n->args[0], "invalid semver '%s'",
					    args[0].s);
			if (!strcmp(m, "compareTo"))
				return mkint(k);
			if (!strcmp(m, "isGreaterThan"))
				return mkbool(k > 0);
			if (!strcmp(m, "isLessThan"))
				return mkbool(k < 0);
		}
	} else if (t.t == V_LIST) {
		if (na == 0 && !strcmp(m, "size"))
			return mkint(list_len(&t));
		if (na == 1 && !strcmp(m, "includes"))
			return in_list_v(c, n, &args[0], &t);
	}
	char buf[96];
	snprintf(buf, sizeof buf, "%s.%s() with %d argument%s", tname(t.t), m,
		 na, na == 1 ? "" : "s");
	return verr(c, n, "no matching overload for %s", buf);
}

static cval ev_call(ectx *c, const cnode *n)
{
	cval a = ev(c, n->args[0]);
	if (a.t == V_ERR)
		return a;
	cval r = {0};
	if (!strcmp(n->name, "size")) {
		if (a.t == V_STR)
			return mkint((int64_t)strlen(a.s));
		if (a.t == V_LIST)
			return mkint(list_len(&a));
		return verr(c, n, "no matching overload for size(%s)",
			    tname(a.t));
	}
	if (a.t != V_STR)
		return verr(c, n, "%s() needs a string argument", n->name);
	if (!strcmp(n->name, "quantity")) {
		if (wq_parse(a.s, strlen(a.s), &r.i, NULL))
			return verr(c, n, "invalid quantity '%s'", a.s);
		r.t = V_QTY;
		return r;
	}
	if (!wcel_semver_ok(a.s))
		return verr(c, n, "invalid semver '%s'", a.s);
	r.t = V_VER;
	r.s = a.s;
	return r;
}

static cval ev(ectx *c, const cnode *n)
{
	cval a, b;
	switch (n->kind) {
	case N_LIT:
		return n->lit;
	case N_DEVICE: {
		cval v = {0};
		v.t = V_DEVICE;
		return v;
	}
	case N_LIST: {
		cval v = {0};
		v.t = V_LIST;
		v.ln = n;
		return v;
	}
	case N_SELECT:
		a = ev(c, n->a);
		return a.t == V_ERR ? a : lookup(c, n, a, n->name, false);
	case N_HAS:
		a = ev(c, n->args[0]->a);
		return a.t == V_ERR ? a
				    : lookup(c, n, a, n->args[0]->name, true);
	case N_INDEX:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		b = ev(c, n->b);
		if (b.t == V_ERR)
			return b;
		if (a.t == V_LIST) {
			if (b.t != V_INT && b.t != V_UINT)
				return verr(c, n, "list index must be an int%s",
					    "");
			if (b.i < 0 || b.i >= list_len(&a))
				return verr(c, n, "list index out of range%s",
					    "");
			return list_get(c, &a, (int)b.i);
		}
		if (b.t != V_STR)
			return verr(c, n, "map key must be a string%s", "");
		return lookup(c, n, a, b.s, false);
	case N_CALL:
		return ev_call(c, n);
	case N_METHOD:
		return ev_method(c, n);
	case N_UNARY:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		if (n->op == T_NOT) {
			if (a.t != V_BOOL)
				return verr(c, n, "'!' needs a bool, not %s",
					    tname(a.t));
			return mkbool(!a.b);
		}
		if (a.t == V_INT) {
			if (a.i == INT64_MIN)
				return verr(c, n, "%s", "integer overflow");
			return mkint(-a.i);
		}
		if (a.t == V_DBL) {
			a.d = -a.d;
			return a;
		}
		return verr(c, n, "unary '-' needs a number, not %s",
			    tname(a.t));
	case N_AND:
	case N_OR: {
		/* CEL's commutative logic: a decisive side wins over an
		 * error on the other. */
		bool decisive = n->kind == N_OR;
		a = ev(c, n->a);
		if (a.t == V_BOOL && a.b == decisive)
			return a;
		if (a.t != V_BOOL && a.t != V_ERR)
			a = verr(c, n->a, "logical operator needs bool, not %s",
				 tname(a.t));
		wasp_error saved = c->e;
		b = ev(c, n->b);
		if (b.t != V_BOOL && b.t != V_ERR)
			b = verr(c, n->b, "logical operator needs bool, not %s",
				 tname(b.t));
		if (b.t == V_BOOL && b.b == decisive)
			return b;
		if (a.t == V_ERR) {
			c->e = saved;
			return a;
		}
		return b;
	}
	case N_COND:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		if (a.t != V_BOOL)
			return verr(c, n, "condition needs bool, not %s",
				    tname(a.t));
		return ev(c, a.b ? n->b : n->c);
	case N_BINARY:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		b = ev(c, n->b);
		if (b.t == V_ERR)
			return b;
		switch (n->op) {
		case T_EQ:
		case T_NE: {
			int e = equal(c, &a, &b);
			if (e < 0)
				return verr(c, n, "%s", "invalid semver value");
			return mkbool(n->op == T_EQ ? e == 1 : e == 0);
		}
		case T_LT: case T_LE: case T_GT: case T_GE:
			return compare(c, n, n->op, &a, &b);
		case T_IN:
			if (b.t == V_LIST)
				return in_list_v(c, n, &a, &b);
			if (b.t == V_ATTRS || b.t == V_CAPS ||
			    b.t == V_DATTRS || b.t == V_DCAPS) {
				if (a.t != V_STR)
					return verr(c, n, "map key must be a "
						    "string%s", "");
				return lookup(c, n, b, a.s, true);
			}
			return verr(c, n, "'in' needs a list or map, not %s",
				    tname(b.t));
		default:
			return arith(c, n, n->op, &a, &b);
		}
	}
	return verr(c, n, "%s", "internal: unknown node");
}

int wcel_eval(const wcel_prog *p, const wcel_device *d, wasp_error *err)
{
	ectx c;
	c.p = p;
	c.d = d;
	c.depth = 0;
	c.e.code = 0;
	cval v = ev(&c, p->root);
	if (v.t == V_ERR) {
		if (err)
			*err = c.e;
		return -1;
	}
	if (v.t != V_BOOL) {
		werr_at(err, WASP_EINPUT, p->at,
			"CEL: expression yields %s, not bool at offset 0",
			tname(v.t));
		return -1;
	}
	return v.b ? 1 : 0;
}
