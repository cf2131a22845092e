/*
 * decode_misc.c -- kueue.x-k8s.io Topology (doc/input.md "Topology and
 * domains") and policy/v1 PodDisruptionBudget (doc/preemption.md
 * "Semantics"): selector, minAvailable / maxUnavailable and the status
 * counts.
 */

#include "model/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ Topology */

int wd_dec_topology(dctx *c, const wt_node *o, const char *name)
{
	char p[PATHMAX];
	ws_levels lv = {0};
	if (!(lv.name = wa_strdup(c->a, name)))
		return wd_nomem(c);
	const wt_node *spec = wd_mget(o, "spec"), *levels;
	if (spec && wd_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (!(levels = wd_mget(spec, "levels")))
		return wd_bad(c, spec ? spec : o, "spec", "Topology %s has no "
			      "spec.levels", name);
	if (wd_want(c, levels, WT_SEQ, "spec.levels"))
		return c->rc;
	if (levels->n == 0)
		return wd_bad(c, levels, "spec.levels", "needs at least one "
			      "level");
	lv.labels = wa_calloc(c->a, levels->n, sizeof *lv.labels);
	if (!lv.labels)
		return wd_nomem(c);
	for (size_t i = 0; i < levels->n; i++) {
		const wt_node *l = levels->items[i], *ln;
		const char *s = "";
		wd_pi(p, "spec.levels", i);
		if (wd_want(c, l, WT_MAP, p))
			return c->rc;
		if (wd_sfield(c, l, "nodeLabel", p, &s, &ln))
			return c->rc;
		if (!s || !*s)
			return wd_bad(c, l, p, "level has no nodeLabel");
		for (int k = 0; k < lv.nlabels; k++)
			if (!strcmp(lv.labels[k], s))
				return wd_bad(c, ln, p, "nodeLabel \"%s\" "
					      "appears twice", s);
		lv.labels[lv.nlabels++] = s;
	}
	if (WA_PUSH(c->t, c->topos, c->ntopos, c->captopos, lv))
		return wd_nomem(c);
	return 0;
}

/* ------------------------------------------------ PodDisruptionBudget */

/* minAvailable / maxUnavailable: an integer or "N%". */
static int dec_intpct(dctx *c, const wt_node *v, const char *path, int *kind,
		      int *val)
{
	if (v->type == WT_NUM) {
		int64_t x;
		if (wd_ival(c, v, path, 0, INT32_MAX, &x))
			return c->rc;
		*kind = 1;
		*val = (int)x;
		return 0;
	}
	const char *s = "";
	if (wd_sval(c, v, path, &s))
		return c->rc;
	size_t n = strlen(s);
	char *end = NULL;
	long x = n > 1 && s[n - 1] == '%' ? strtol(s, &end, 10) : -1;
	if (x < 0 || x > 100 || end != s + n - 1)
		return wd_bad(c, v, path, "expected an integer or a percentage "
			      "such as \"50%%\", got \"%s\"", s);
	*kind = 2;
	*val = (int)x;
	return 0;
}

int wd_dec_pdb(dctx *c, const wt_node *o, const char *ns,
	       const char *name)
{
	ws_pdb d;
	memset(&d, 0, sizeof d);
	d.ns = wa_strdup(c->a, ns);
	d.name = wa_strdup(c->a, name);
	if (!d.ns || !d.name)
		return wd_nomem(c);
	d.src = wd_src_of(c, o);
	const wt_node *spec = wd_mget(o, "spec"), *st = wd_mget(o, "status"),
		      *v;
	if (spec && wd_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (st && wd_want(c, st, WT_MAP, "status"))
		return c->rc;
	const wt_node *sel = spec ? wd_mget(spec, "selector") : NULL;
	if (sel && sel->type != WT_NULL) {
		char p[PATHMAX];
		if (wd_want(c, sel, WT_MAP, "spec.selector"))
			return c->rc;
		d.has_selector = true;
		const wt_node *ml = wd_mget(sel, "matchLabels");
		const wt_node *me = wd_mget(sel, "matchExpressions");
		if (ml && wd_want(c, ml, WT_MAP, "spec.selector.matchLabels"))
			return c->rc;
		if (me && wd_want(c, me, WT_SEQ,
				  "spec.selector.matchExpressions"))
			return c->rc;
		size_t n = (ml ? ml->n : 0) + (me ? me->n : 0);
		d.sel = wa_calloc(c->a, n + 1, sizeof *d.sel);
		if (!d.sel)
			return wd_nomem(c);
		for (size_t i = 0; ml && i < ml->n; i++) {
			ws_expr *e = &d.sel[d.nsel++];
			const char *val = "";
			if (wd_sval(c, wt_val(ml, i),
				    wd_pk(p, "spec.selector.matchLabels",
					  wt_key(ml, i)->str), &val))
				return c->rc;
			e->key = wa_strdup(c->a, wt_key(ml, i)->str);
			e->op = WS_OP_IN;
			e->vals = wa_calloc(c->a, 1, sizeof *e->vals);
			if (!e->key || !e->vals ||
			    !(e->vals[0] = wa_strdup(c->a, val)))
				return wd_nomem(c);
			e->nvals = 1;
		}
		for (size_t i = 0; me && i < me->n; i++) {
			ws_expr *e = &d.sel[d.nsel++];
			if (wd_dec_expr(c, me->items[i],
					wd_pi(p, "spec.selector."
						 "matchExpressions", i),
					false, e))
				return c->rc;
			if (e->op == WS_OP_GT || e->op == WS_OP_LT)
				return wd_bad(c, me->items[i], p, "a label "
					      "selector has no Gt or Lt");
		}
	}
	if (spec && (v = wd_mget(spec, "minAvailable")) &&
	    dec_intpct(c, v, "spec.minAvailable", &d.min_kind, &d.min_val))
		return c->rc;
	if (spec && (v = wd_mget(spec, "maxUnavailable")) &&
	    dec_intpct(c, v, "spec.maxUnavailable", &d.max_kind,
		       &d.max_val))
		return c->rc;
	if (d.min_kind && d.max_kind)
		return wd_bad(c, spec, "spec", "minAvailable and "
			      "maxUnavailable are mutually exclusive");
	int64_t x;
	if (st && (v = wd_mget(st, "disruptionsAllowed"))) {
		if (wd_ival(c, v, "status.disruptionsAllowed", 0, INT32_MAX,
			    &x))
			return c->rc;
		d.has_allowed = true;
		d.allowed = (int)x;
	}
	const wt_node *ch = st ? wd_mget(st, "currentHealthy") : NULL;
	const wt_node *dh = st ? wd_mget(st, "desiredHealthy") : NULL;
	if (ch && dh) {
		if (wd_ival(c, ch, "status.currentHealthy", 0, INT32_MAX, &x))
			return c->rc;
		d.current_healthy = (int)x;
		if (wd_ival(c, dh, "status.desiredHealthy", 0, INT32_MAX, &x))
			return c->rc;
		d.desired_healthy = (int)x;
		d.has_healthy = true;
	}
	if (WA_PUSH(c->a, c->pdbs, c->npdbs, c->cappdbs, d))
		return wd_nomem(c);
	return 0;
}
