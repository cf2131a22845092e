/*
 * decode_sched.c -- scheduling.k8s.io objects (doc/input.md
 * "PriorityClasses", "PodGroups and Workloads", "CompositePodGroups").
 *
 * PriorityClass; v1beta1 PodGroup and Workload (podGroupTemplates and
 * compositePodGroupTemplates); v1alpha3 CompositePodGroup; and the Kueue /
 * JobSet topology annotations a PodGroup may carry (doc/input.md
 * "Topology annotations").  Each object's own fields only: templates,
 * priorities and trees are resolved in decode_resolve.c.  The retired
 * v1alpha1/v1alpha2 versions are refused in decode.c.
 */

#include "model/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------- PriorityClass */

int wd_dec_pc(dctx *c, const wt_node *o, const char *name)
{
	ws_priority_class pc = {0};
	const wt_node *v, *gd;
	if (!(pc.name = wa_strdup(c->a, name)))
		return wd_nomem(c);
	if (!(v = wd_mget(o, "value")))
		return wd_bad(c, o, "", "PriorityClass %s has no value", name);
	int64_t x;
	if (wd_ival(c, v, "value", INT32_MIN, INT32_MAX, &x))
		return c->rc;
	pc.value = (int32_t)x;
	if ((gd = wd_mget(o, "globalDefault")) &&
	    wd_bval(c, gd, "globalDefault", &pc.global_default))
		return c->rc;
	if ((v = wd_mget(o, "preemptionPolicy")) &&
	    wd_dec_preempt(c, v, "preemptionPolicy", &pc.preempt))
		return c->rc;
	size_t n = c->npcs;
	if (WA_PUSH(c->t, c->pcs, c->npcs, c->cappcs, pc) ||
	    WA_PUSH(c->t, c->pc_default_node, n, c->capdef, gd))
		return wd_nomem(c);
	return 0;
}

/* ------------------------------------------------ PodGroup and Workload */

static int dec_policy(dctx *c, const wt_node *pol, const char *path,
		      dspec *sp)
{
	char p[PATHMAX], q[PATHMAX];
	if (wd_want(c, pol, WT_MAP, path))
		return c->rc;
	const wt_node *basic = wd_mkey(pol, "basic"),
		      *gang = wd_mget(pol, "gang");
	if (!gang && wd_mkey(pol, "gang"))
		gang = wd_mkey(pol, "gang"); /* `gang:` with a null value */
	if (!!basic + !!gang != 1)
		return wd_bad(c, pol, path, "exactly one of basic and gang "
			      "must be set");
	sp->has_policy = true;
	if (basic) {
		sp->policy = WS_POLICY_BASIC;
		sp->min_count = 1;
		return 0;
	}
	wd_pk(p, path, "gang");
	const char *mcn = sp->composite ? "minGroupCount" : "minCount";
	if (gang->type == WT_STR && gang == wd_mkey(pol, "gang"))
		return wd_bad(c, gang, p, "gang needs %s", mcn);
	if (gang->type != WT_MAP)
		return wd_bad(c, gang, p, "expected a map with %s, got %s", mcn,
			      wt_type_phrase(gang->type));
	const wt_node *mc = wd_mget(gang, mcn);
	if (!mc)
		return wd_bad(c, gang, p, "gang needs %s", mcn);
	int64_t x;
	if (wd_ival(c, mc, wd_pk(q, p, mcn), INT32_MIN, INT32_MAX, &x))
		return c->rc;
	if (x < 1)
		return wd_bad(c, mc, q, "must be at least 1, got %lld",
			      (long long)x);
	sp->policy = WS_POLICY_GANG;
	sp->min_count = (int)x;
	return 0;
}

static int dec_disruption(dctx *c, const wt_node *dm, const char *path,
			  dspec *sp)
{
	if (wd_is_scalar(dm)) {
		const char *s = dm->str ? dm->str : "";
		const char *to = !strcmp(s, "PodGroup") ? "{all: {}}"
			       : !strcmp(s, "Pod") ? "{single: {}}" : NULL;
		if (to)
			return wd_bad(c, dm, path, "expected {single: {}} or "
				      "{all: {}}; the v1alpha2 string \"%s\" "
				      "is now %s", s, to);
	}
	if (dm->type != WT_MAP)
		return wd_bad(c, dm, path, "expected {single: {}} or {all: "
			      "{}}, got %s", wt_type_phrase(dm->type));
	bool single = wd_mkey(dm, "single"), all = wd_mkey(dm, "all");
	if (single + all != 1)
		return wd_bad(c, dm, path, "exactly one of single and all must "
			      "be set");
	sp->has_disrupt = true;
	sp->disruption = all ? WS_DISRUPT_ALL : WS_DISRUPT_SINGLE;
	sp->disrupt_node = dm;
	return 0;
}

/* The fields a PodGroup spec and a PodGroupTemplate share. */
static int dec_gspec(dctx *c, const wt_node *m, const char *base, dspec *sp)
{
	char p[PATHMAX], q[PATHMAX], r[PATHMAX];
	const wt_node *v;
	if ((v = wd_mget(m, "schedulingPolicy")) &&
	    dec_policy(c, v, wd_pk(p, base, "schedulingPolicy"), sp))
		return c->rc;
	if ((v = wd_mget(m, "schedulingConstraints"))) {
		wd_pk(p, base, "schedulingConstraints");
		if (wd_want(c, v, WT_MAP, p))
			return c->rc;
		const wt_node *tl = wd_mget(v, "topology");
		wd_pk(q, p, "topology");
		if (tl && wd_want(c, tl, WT_SEQ, q))
			return c->rc;
		if (tl && tl->n > 1)
			return wd_bad(c, tl->items[1], wd_pi(r, q, 1),
				      "at most one topology constraint is "
				      "supported");
		sp->has_topo = true;
		if (tl && tl->n == 1) {
			const wt_node *t = tl->items[0];
			wd_pi(r, q, 0);
			if (wd_want(c, t, WT_MAP, r))
				return c->rc;
			if (wd_sfield(c, t, "key", r, &sp->topo_key,
				      &sp->topo_node))
				return c->rc;
			if (!sp->topo_key || !*sp->topo_key)
				return wd_bad(c, t, r, "topology constraint "
					      "has no key");
		}
	}
	if ((v = wd_mget(m, "disruptionMode")) &&
	    dec_disruption(c, v, wd_pk(p, base, "disruptionMode"), sp))
		return c->rc;
	if ((v = wd_mget(m, "preemptionPolicy"))) {
		if (wd_dec_preempt(c, v, wd_pk(p, base, "preemptionPolicy"),
				   &sp->preempt))
			return c->rc;
		sp->has_preempt = true;
	}
	if ((v = wd_mget(m, "priority"))) {
		int64_t x;
		if (wd_ival(c, v, wd_pk(p, base, "priority"), INT32_MIN,
			    INT32_MAX, &x))
			return c->rc;
		sp->has_prio = true;
		sp->prio = (int32_t)x;
	}
	if (wd_sfield(c, m, "priorityClassName", base, &sp->pcname,
		      &sp->pcname_node))
		return c->rc;
	if (sp->pcname && !*sp->pcname)
		sp->pcname = NULL;
	if ((v = wd_mget(m, "resourceClaims"))) {
		if (wd_want(c, v, WT_SEQ, wd_pk(p, base, "resourceClaims")))
			return c->rc;
		sp->claims = v->n > 0;
		sp->claims_node = v;
	}
	return 0;
}

/* Topology annotations (Kueue and JobSet names) of a PodGroup or a
 * CompositePodGroup; see doc/input.md.  The required-topology spelling
 * fills the group's key when schedulingConstraints has none. */
#define ANN_REQ "kueue.x-k8s.io/podset-required-topology"
#define ANN_PREF "kueue.x-k8s.io/podset-preferred-topology"
#define ANN_SLICE "kueue.x-k8s.io/podset-slice-required-topology"
#define ANN_SSIZE "kueue.x-k8s.io/podset-slice-size"
#define ANN_SLAYERS "kueue.x-k8s.io/podset-slice-required-topology-constraints"
#define ANN_EXCL "alpha.jobset.sigs.k8s.io/exclusive-topology"

static int ann_str(dctx *c, const wt_node *ann, const char *key,
		   const char **out, const wt_node **node)
{
	char p[PATHMAX];
	const wt_node *v = wd_mget(ann, key);
	*out = NULL;
	*node = v;
	if (!v)
		return 0;
	const char *x = "";
	if (wd_sval(c, v, wd_pk(p, "metadata.annotations", key), &x))
		return c->rc;
	if (!*x)
		return wd_bad(c, v, p, "must not be empty");
	if (!(*out = wa_strdup(c->a, x)))
		return wd_nomem(c);
	return 0;
}

/* A positive decimal in a string (annotation values are strings). */
static int ann_int(dctx *c, const wt_node *v, const char *path,
		   const char *x, int *out)
{
	long long n = 0;
	const char *q = x;
	if (!*q)
		return wd_bad(c, v, path, "expected a positive integer, got "
			      "\"\"");
	for (; *q; q++) {
		if (*q < '0' || *q > '9' || n > 100000000)
			return wd_bad(c, v, path, "expected a positive "
				      "integer, got \"%s\"", x);
		n = n * 10 + (*q - '0');
	}
	if (n < 1 || n > INT32_MAX)
		return wd_bad(c, v, path, "expected a positive integer, got "
			      "\"%s\"", x);
	*out = (int)n;
	return 0;
}

/* The JSON value of the multi-layer annotation, parsed by hand (a short
 * list of {"topology": "...", "size": N} objects). */
static int ann_layers(dctx *c, const wt_node *v, const char *x, ws_tas *t)
{
	char p[PATHMAX];
	wd_pk(p, "metadata.annotations", ANN_SLAYERS);
	const char *q = x;
#define SKIPWS() while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++
	SKIPWS();
	if (*q++ != '[')
		return wd_bad(c, v, p, "expected a JSON list of {\"topology\": "
			      "LEVEL, \"size\": N}");
	SKIPWS();
	while (*q != ']') {
		if (t->nslices == WS_MAX_SLICE_LAYERS)
			return wd_bad(c, v, p, "at most %d layers",
				      WS_MAX_SLICE_LAYERS);
		if (*q++ != '{')
			return wd_bad(c, v, p, "expected '{' in the JSON list");
		const char *key = NULL;
		int size = 0;
		for (;;) {
			SKIPWS();
			if (*q == '}') {
				q++;
				break;
			}
			if (*q++ != '"')
				return wd_bad(c, v, p, "expected a field name");
			const char *f = q;
			while (*q && *q != '"')
				q++;
			if (!*q)
				return wd_bad(c, v, p, "unterminated string");
			size_t fl = (size_t)(q++ - f);
			SKIPWS();
			if (*q++ != ':')
				return wd_bad(c, v, p, "expected ':'");
			SKIPWS();
			if (fl == 8 && !strncmp(f, "topology", 8)) {
				if (*q++ != '"')
					return wd_bad(c, v, p, "topology must "
						      "be a string");
				const char *b = q;
				while (*q && *q != '"')
					q++;
				if (!*q || q == b)
					return wd_bad(c, v, p, "bad topology "
						      "string");
				key = wa_strndup(c->a, b, (size_t)(q - b));
				if (!key)
					return wd_nomem(c);
				q++;
			} else if (fl == 4 && !strncmp(f, "size", 4)) {
				long long n = 0;
				if (*q < '0' || *q > '9')
					return wd_bad(c, v, p, "size must be a "
						      "positive integer");
				while (*q >= '0' && *q <= '9' && n < 1000000000)
					n = n * 10 + (*q++ - '0');
				if (n < 1 || n > INT32_MAX)
					return wd_bad(c, v, p, "size must be a "
						      "positive integer");
				size = (int)n;
			} else {
				return wd_bad(c, v, p, "unknown field \"%.*s\"",
					      (int)fl, f);
			}
			SKIPWS();
			if (*q == ',')
				q++;
		}
		if (!key || !size)
			return wd_bad(c, v, p, "layer %d needs topology and "
				      "size", t->nslices + 1);
		if (t->nslices &&
		    t->slice_size[t->nslices - 1] % size)
			return wd_bad(c, v, p, "size %d of layer %d does not "
				      "divide the outer size %d", size,
				      t->nslices + 1,
				      t->slice_size[t->nslices - 1]);
		t->slice_key[t->nslices] = key;
		t->slice_size[t->nslices++] = size;
		SKIPWS();
		if (*q == ',')
			q++;
		SKIPWS();
	}
	q++;
	SKIPWS();
	if (*q)
		return wd_bad(c, v, p, "trailing text after the JSON list");
	if (!t->nslices)
		return wd_bad(c, v, p, "the list is empty");
#undef SKIPWS
	return 0;
}

static int dec_tas(dctx *c, const wt_node *o, dgroup *g)
{
	const wt_node *meta = wd_mget(o, "metadata");
	const wt_node *ann = wd_mget(meta, "annotations"), *v, *sv;
	if (!ann)
		return 0;
	if (wd_want(c, ann, WT_MAP, "metadata.annotations"))
		return c->rc;
	ws_tas t = {0};
	const char *req, *slice, *ssize, *layers;
	char p[PATHMAX];
	t.src = wd_src_of(c, ann);
	if (ann_str(c, ann, ANN_REQ, &req, &v))
		return c->rc;
	if (req) {
		if (g->sp.topo_key && strcmp(g->sp.topo_key, req))
			return wd_bad(c, v,
				      wd_pk(p, "metadata.annotations", ANN_REQ),
				      "names %s but schedulingConstraints "
				      "names %s", req, g->sp.topo_key);
		g->sp.topo_key = req;
		g->sp.topo_node = v;
		g->sp.has_topo = true;
	}
	if (ann_str(c, ann, ANN_PREF, &t.preferred, &v) ||
	    ann_str(c, ann, ANN_EXCL, &t.exclusive, &v) ||
	    ann_str(c, ann, ANN_SLICE, &slice, &v) ||
	    ann_str(c, ann, ANN_SSIZE, &ssize, &sv) ||
	    ann_str(c, ann, ANN_SLAYERS, &layers, &v))
		return c->rc;
	if (layers && (slice || ssize))
		return wd_bad(c, v,
			      wd_pk(p, "metadata.annotations", ANN_SLAYERS),
			      "cannot be combined with %s / %s", ANN_SLICE,
			      ANN_SSIZE);
	if (layers && ann_layers(c, v, layers, &t))
		return c->rc;
	if (slice || ssize) {
		const wt_node *at = slice ? wd_mget(ann, ANN_SLICE) : sv;
		if (!slice || !ssize)
			return wd_bad(c, at, "metadata.annotations", "%s and "
				      "%s go together", ANN_SLICE, ANN_SSIZE);
		if (ann_int(c, sv, wd_pk(p, "metadata.annotations", ANN_SSIZE),
			    ssize, &t.slice_size[0]))
			return c->rc;
		t.slice_key[0] = slice;
		t.nslices = 1;
	}
	if (!t.preferred && !t.exclusive && !t.nslices)
		return 0;
	if (!(g->tas = wa_alloc(c->a, sizeof *g->tas)))
		return wd_nomem(c);
	*g->tas = t;
	return 0;
}

/* A PodGroup, or (composite) a v1alpha3 CompositePodGroup. */
int wd_group_begin(dctx *c, const wt_node *o, const char *ns,
		   const char *name, const char *kind, dgroup *g)
{
	g->obj = o;
	g->ns = wa_strdup(c->a, ns);
	g->name = wa_strdup(c->a, name);
	if (!g->ns || !g->name)
		return wd_nomem(c);
	g->src = wd_src_of(c, o);
	const wt_node *spec = wd_mget(o, "spec");
	if (!spec)
		return wd_bad(c, o, "", "%s %s/%s has no spec", kind, ns, name);
	if (wd_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	g->spec = spec;
	return 0;
}

int wd_dec_podgroup(dctx *c, const wt_node *o, const char *ns,
		    const char *name, bool composite)
{
	const char *kind = composite ? "CompositePodGroup" : "PodGroup";
	dgroup g = {0};
	g.composite = composite;
	g.sp.composite = composite;
	if (wd_group_begin(c, o, ns, name, kind, &g))
		return c->rc;
	const wt_node *spec = g.spec, *v;
	if ((v = wd_mkey(spec, "podGroupTemplateRef")))
		return wd_bad(c, v, "spec.podGroupTemplateRef",
			      "not a v1beta1 field: write spec.workloadRef: "
			      "{workloadName: W, templateName: T} instead of "
			      "podGroupTemplateRef.workload{workloadName, "
			      "podGroupTemplateName}");
	if (dec_gspec(c, spec, "spec", &g.sp))
		return c->rc;
	if ((v = wd_mget(spec, "workloadRef"))) {
		if (wd_want(c, v, WT_MAP, "spec.workloadRef"))
			return c->rc;
		if (wd_sfield(c, v, "workloadName", "spec.workloadRef",
			      &g.wl_name, &g.wl_node) ||
		    wd_sfield(c, v, "templateName", "spec.workloadRef",
			      &g.tpl_name, &g.tpl_node))
			return c->rc;
		if (!g.wl_name || !*g.wl_name)
			return wd_bad(c, v, "spec.workloadRef",
				      "workloadName is required");
		if (!g.tpl_name || !*g.tpl_name)
			return wd_bad(c, v, "spec.workloadRef",
				      "templateName is required");
	}
	if (wd_sfield(c, spec, "parentCompositePodGroupName", "spec", &g.parent,
		      &g.parent_node))
		return c->rc;
	if (g.parent && !*g.parent)
		g.parent = NULL;
	if (dec_tas(c, o, &g))
		return c->rc;
	if (composite) {
		if (WA_PUSH(c->t, c->cgroups, c->ncgroups, c->capcgroups, g))
			return wd_nomem(c);
		return 0;
	}
	if (WA_PUSH(c->t, c->groups, c->ngroups, c->capgroups, g))
		return wd_nomem(c);
	return 0;
}

/* The part both template lists share: item i of list l is a map with a
 * name unique among the Workload's templates.  Sets *p to the item's path. */
static int dec_tpl_item(dctx *c, const dwl *w, const wt_node *l, size_t i,
			const char *path, char *p, dtpl *tp)
{
	char q[PATHMAX];
	const wt_node *t = l->items[i], *nn;
	wd_pi(p, path, i);
	if (wd_want(c, t, WT_MAP, p))
		return c->rc;
	if (wd_sfield(c, t, "name", p, &tp->name, &nn))
		return c->rc;
	if (!tp->name || !*tp->name)
		return wd_bad(c, t, p, "template has no name");
	for (size_t k = 0; k < w->ntpls; k++)
		if (!strcmp(w->tpls[k].name, tp->name))
			return wd_bad(c, nn, wd_pk(q, p, "name"), "duplicate "
				      "template name \"%s\"", tp->name);
	return 0;
}

static int dec_templates(dctx *c, dwl *w, const wt_node *l, const char *path)
{
	char p[PATHMAX];
	if (wd_want(c, l, WT_SEQ, path))
		return c->rc;
	for (size_t i = 0; i < l->n; i++) {
		const wt_node *t = l->items[i];
		dtpl tp = {0};
		if (dec_tpl_item(c, w, l, i, path, p, &tp))
			return c->rc;
		if (dec_gspec(c, t, p, &tp.sp))
			return c->rc;
		if (WA_PUSH(c->t, w->tpls, w->ntpls, w->cap, tp))
			return wd_nomem(c);
	}
	return 0;
}

/* compositePodGroupTemplates: their leaf podGroupTemplates are collected
 * so that PodGroups referring to them resolve. */
static int dec_composite(dctx *c, dwl *w, const wt_node *l, const char *path,
			 int depth)
{
	char p[PATHMAX], q[PATHMAX];
	if (wd_want(c, l, WT_SEQ, path))
		return c->rc;
	if (depth > MAX_TPL_DEPTH)
		return wd_bad(c, l, path, "templates nested deeper than %d",
			      MAX_TPL_DEPTH);
	for (size_t i = 0; i < l->n; i++) {
		const wt_node *t = l->items[i], *v;
		dtpl tp = {0};
		if (dec_tpl_item(c, w, l, i, path, p, &tp))
			return c->rc;
		tp.composite = tp.sp.composite = true;
		if (dec_gspec(c, t, p, &tp.sp))
			return c->rc;
		if (WA_PUSH(c->t, w->tpls, w->ntpls, w->cap, tp))
			return wd_nomem(c);
		if ((v = wd_mget(t, "podGroupTemplates")) &&
		    dec_templates(c, w, v, wd_pk(q, p, "podGroupTemplates")))
			return c->rc;
		if ((v = wd_mget(t, "compositePodGroupTemplates")) &&
		    dec_composite(c, w, v,
				  wd_pk(q, p, "compositePodGroupTemplates"),
				  depth + 1))
			return c->rc;
	}
	return 0;
}

int wd_dec_workload(dctx *c, const wt_node *o, const char *ns,
		    const char *name)
{
	dwl w = {0};
	w.ns = wa_strdup(c->a, ns);
	w.name = wa_strdup(c->a, name);
	if (!w.ns || !w.name)
		return wd_nomem(c);
	const wt_node *spec = wd_mget(o, "spec"), *pg, *cp;
	if (!spec)
		return wd_bad(c, o, "", "Workload %s/%s has no spec", ns, name);
	if (wd_want(c, spec, WT_MAP, "spec"))
		return c->rc;
	pg = wd_mget(spec, "podGroupTemplates");
	cp = wd_mget(spec, "compositePodGroupTemplates");
	if (!pg && !cp)
		return wd_bad(c, spec, "spec", "one of podGroupTemplates and "
			      "compositePodGroupTemplates must be set");
	if (pg && dec_templates(c, &w, pg, "spec.podGroupTemplates"))
		return c->rc;
	if (cp) {
		w.composite = true;
		if (dec_composite(c, &w, cp, "spec.compositePodGroupTemplates",
				  1))
			return c->rc;
	}
	if (WA_PUSH(c->t, c->wls, c->nwls, c->capwls, w))
		return wd_nomem(c);
	const char *key = wa_printf(c->t, "%s/%s", ns, name);
	if (!key || ws_map_put(c->wl_idx, key, (int)c->nwls - 1) == -2)
		return wd_nomem(c);
	return 0;
}
