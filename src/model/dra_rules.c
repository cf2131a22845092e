/*
 * dra_rules.c -- the allocator's rules beyond class and selectors (doc/dra.md
 * "Taints, counters, admin access, CEL errors"): device taints and request
 * tolerations (KEP-5055), shared counters of partitionable devices
 * (KEP-4815), adminAccess with its namespace condition, CEL runtime errors
 * that keep a pod pending, and warnings for fields wasp does not model.
 *
 * Decoding hooks are called from dra_decode.c (one object at a time), the
 * build steps from dra_build.c (wdr_rules_build, after the claim lists).
 */

#include "model/dra_int.h"

#include <stdio.h>
#include <string.h>

#include "model/quantity.h"

/* The label a namespace needs for adminAccess claims (upstream's
 * admission rule, KEP-5018). */
#define ADMIN_NS_LABEL "resource.kubernetes.io/admin-access"

/* ------------------------------------------------------------ decoding */

/* A field wasp reads but does not model: one warning per field name at
 * the end, naming the first object and the path. */
int wdr_unsupported(dx *c, const char *field, const char *obj,
		    const char *path, const char *what)
{
	for (size_t i = 0; i < c->nunsup; i++)
		if (!strcmp(c->unsup[i].field, field)) {
			c->unsup[i].n++;
			return 0;
		}
	dunsup u = {field, wa_strdup(c->t, obj), wa_strdup(c->t, path), what,
		    1};
	if (!u.obj || !u.path ||
	    WA_PUSH(c->t, c->unsup, c->nunsup, c->capunsup, u))
		return wdr_nomem(c);
	return 0;
}

int wdr_dec_taints(dx *c, const wt_node *l, const char *path,
		   wdr_device *d)
{
	char p[PATHMAX];
	if (!l)
		return 0;
	snprintf(p, sizeof p, "%s.taints", path);
	if (wdr_want(c, l, WT_SEQ, p))
		return c->rc;
	d->taints = wa_calloc(c->a, l->n + 1, sizeof *d->taints);
	if (!d->taints)
		return wdr_nomem(c);
	for (size_t i = 0; i < l->n; i++) {
		wdr_taint *t = &d->taints[i];
		snprintf(p, sizeof p, "%s.taints[%zu]", path, i);
		if (wdr_want(c, l->items[i], WT_MAP, p) ||
		    wdr_sfield(c, l->items[i], "key", p, &t->key) ||
		    wdr_sfield(c, l->items[i], "value", p, &t->value) ||
		    wdr_sfield(c, l->items[i], "effect", p, &t->effect))
			return c->rc;
		if (!t->key || !t->effect)
			return wdr_bad(c, l->items[i], p, "a device taint "
				       "needs key and effect");
		if (!t->value)
			t->value = "";
	}
	d->ntaints = (int)l->n;
	return 0;
}

int wdr_dec_tols(dx *c, const wt_node *l, const char *path, wdr_sub *sb)
{
	char p[PATHMAX];
	if (!l)
		return 0;
	snprintf(p, sizeof p, "%s.tolerations", path);
	if (wdr_want(c, l, WT_SEQ, p))
		return c->rc;
	sb->tols = wa_calloc(c->a, l->n + 1, sizeof *sb->tols);
	if (!sb->tols)
		return wdr_nomem(c);
	for (size_t i = 0; i < l->n; i++) {
		wdr_tol *t = &sb->tols[i];
		const char *op = NULL;
		snprintf(p, sizeof p, "%s.tolerations[%zu]", path, i);
		if (wdr_want(c, l->items[i], WT_MAP, p) ||
		    wdr_sfield(c, l->items[i], "key", p, &t->key) ||
		    wdr_sfield(c, l->items[i], "value", p, &t->value) ||
		    wdr_sfield(c, l->items[i], "effect", p, &t->effect) ||
		    wdr_sfield(c, l->items[i], "operator", p, &op))
			return c->rc;
		if (op && strcmp(op, "Exists") && strcmp(op, "Equal"))
			return wdr_bad(c, l->items[i], p, "operator must be "
				       "Exists or Equal, not \"%s\"", op);
		t->exists = op && !strcmp(op, "Exists");
		if (!t->key)
			t->key = "";
		if (!t->value)
			t->value = "";
		if (!t->effect)
			t->effect = "";
		if (!*t->key && !t->exists)
			return wdr_bad(c, l->items[i], p, "a toleration "
				       "without key needs operator Exists");
	}
	sb->ntols = (int)l->n;
	return 0;
}

/* counters: map name -> {value: quantity}; into names/amounts. */
static int dec_cmap(dx *c, const wt_node *m, const char *path,
		    const char ***names, int64_t **milli, size_t *n)
{
	char p[PATHMAX];
	if (wdr_want(c, m, WT_MAP, path))
		return c->rc;
	*names = wa_calloc(c->a, m->n + 1, sizeof **names);
	*milli = wa_calloc(c->a, m->n + 1, sizeof **milli);
	if (!*names || !*milli)
		return wdr_nomem(c);
	for (size_t i = 0; i < m->n; i++) {
		const wt_node *v = wt_val(m, i);
		snprintf(p, sizeof p, "%s.%s", path, wt_key(m, i)->str);
		if (v->type == WT_MAP)
			v = wdr_mget(v, "value");
		if (!v || v->type == WT_MAP || v->type == WT_SEQ)
			return wdr_bad(c, wt_val(m, i), p, "a counter needs "
				       "a value quantity");
		const char *why = NULL;
		if (wq_parse(v->str, v->len, &(*milli)[i], &why) ||
		    (*milli)[i] < 0)
			return wdr_bad(c, v, p, "invalid quantity \"%s\"%s%s",
				       v->str, why ? ": " : "",
				       why ? why : "");
		(*names)[i] = wa_strdup(c->a, wt_key(m, i)->str);
		if (!(*names)[i])
			return wdr_nomem(c);
	}
	*n = m->n;
	return 0;
}

/* A list of counter sets (field: sharedCounters, set named by `key`
 * "name"; or consumesCounters, by "counterSet"): every (set, counter,
 * amount) into the parallel arrays, *n of them. */
static int dec_sets(dx *c, const wt_node *l, const char *path,
		    const char *field, const char *key, const char ***set,
		    const char ***name, int64_t **milli, int *n)
{
	char p[PATHMAX];
	snprintf(p, sizeof p, "%s.%s", path, field);
	if (wdr_want(c, l, WT_SEQ, p))
		return c->rc;
	size_t tot = 0;
	for (size_t i = 0; i < l->n; i++) {
		const wt_node *cm = wdr_mget(l->items[i], "counters");
		tot += cm && cm->type == WT_MAP ? cm->n : 0;
	}
	*set = wa_calloc(c->a, tot + 1, sizeof **set);
	*name = wa_calloc(c->a, tot + 1, sizeof **name);
	*milli = wa_calloc(c->a, tot + 1, sizeof **milli);
	if (!*set || !*name || !*milli)
		return wdr_nomem(c);
	*n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const char *sn = NULL, **names = NULL;
		int64_t *ml = NULL;
		size_t k = 0;
		snprintf(p, sizeof p, "%s.%s[%zu]", path, field, i);
		if (wdr_want(c, l->items[i], WT_MAP, p) ||
		    wdr_sfield(c, l->items[i], key, p, &sn))
			return c->rc;
		const wt_node *cm = wdr_mget(l->items[i], "counters");
		if (!sn || !cm)
			return wdr_bad(c, l->items[i], p, "needs %s and "
				       "counters", key);
		snprintf(p, sizeof p, "%s.%s[%zu].counters", path, field, i);
		if (dec_cmap(c, cm, p, &names, &ml, &k))
			return c->rc;
		for (size_t j = 0; j < k; j++) {
			(*set)[*n] = sn;
			(*name)[*n] = names[j];
			(*milli)[(*n)++] = ml[j];
		}
	}
	return 0;
}

int wdr_dec_shared(dx *c, const wt_node *l, const char *path,
		   wdr_slice *sl)
{
	return l ? dec_sets(c, l, path, "sharedCounters", "name",
			    &sl->ctr_set, &sl->ctr_name, &sl->ctr_milli,
			    &sl->nctr) : 0;
}

int wdr_dec_consumes(dx *c, const wt_node *l, const char *path,
		     wdr_device *d)
{
	const char **set, **name;
	int64_t *milli;
	int n;
	if (!l)
		return 0;
	if (dec_sets(c, l, path, "consumesCounters", "counterSet", &set,
		     &name, &milli, &n))
		return c->rc;
	d->uses = wa_calloc(c->a, (size_t)n + 1, sizeof *d->uses);
	if (!d->uses)
		return wdr_nomem(c);
	for (int i = 0; i < n; i++)
		d->uses[i] = (wdr_use){-1, milli[i], set[i], name[i]};
	d->nuses = n;
	return 0;
}

/* ------------------------------------------------------ predicates */

static bool tol_ok(const wdr_tol *t, const wdr_taint *x)
{
	if (*t->effect && strcmp(t->effect, x->effect))
		return false;
	if (!*t->key)
		return t->exists;
	if (strcmp(t->key, x->key))
		return false;
	return t->exists || !strcmp(t->value, x->value);
}

bool wdr_tolerates(const wdr_sub *sb, const wdr_device *dv)
{
	for (int i = 0; i < dv->ntaints; i++) {
		const wdr_taint *x = &dv->taints[i];
		if (strcmp(x->effect, "NoSchedule") &&
		    strcmp(x->effect, "NoExecute"))
			continue; /* None and unknown effects do not repel */
		bool ok = false;
		for (int k = 0; k < sb->ntols && !ok; k++)
			ok = tol_ok(&sb->tols[k], x);
		if (!ok)
			return false;
	}
	return true;
}

static bool in_list(const int *l, int n, int dev)
{
	for (int i = 0; i < n; i++)
		if (l[i] == dev)
			return true;
	return false;
}

bool wdr_counters_fit2(const ws_dra *d, int dev, const uint16_t *taken,
		       const int *extra, int nextra, const int *extra2,
		       int nextra2)
{
	const wdr_device *dv = &d->devs[dev];
	if (!dv->nuses || taken[dev] || in_list(extra, nextra, dev) ||
	    in_list(extra2, nextra2, dev))
		return true;
	for (int u = 0; u < dv->nuses; u++) {
		const wdr_ctr *k = &d->ctrs[dv->uses[u].ctr];
		int64_t sum = dv->uses[u].milli;
		for (int j = k->first; j < k->first + k->n; j++) {
			int x = d->ctr_dev[j];
			if (x != dev && (taken[x] || in_list(extra, nextra, x) ||
					 in_list(extra2, nextra2, x)))
				sum += d->ctr_amt[j];
		}
		if (sum > k->milli)
			return false;
	}
	return true;
}

bool wdr_counters_fit(const ws_dra *d, int dev, const uint16_t *taken,
		      const int *extra, int nextra)
{
	return wdr_counters_fit2(d, dev, taken, extra, nextra, NULL, 0);
}

const char *wdr_counter_excess(const ws_dra *d, const uint16_t *used,
			       wa_arena *a)
{
	for (int k = 0; d && k < d->nctrs; k++) {
		const wdr_ctr *ct = &d->ctrs[k];
		int64_t sum = 0;
		for (int j = ct->first; j < ct->first + ct->n; j++)
			if (used[d->ctr_dev[j]])
				sum += d->ctr_amt[j];
		if (sum > ct->milli) {
			char q1[40], q2[40];
			bool by = ct->milli >= 1024000 &&
				  ct->milli % 1024000 == 0;
			wq_format(sum, by, q1, sizeof q1);
			wq_format(ct->milli, by, q2, sizeof q2);
			return wa_printf(a, "counter %s of counter set %s is "
					 "over-consumed: %s allocated of %s",
					 ct->name, ct->set, q1, q2);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ build */

/* Counter sets of the kept slices, per pool; devices' uses resolved. */
static int build_counters(dx *c)
{
	ws_dra *d = c->d;
	ws_map *idx = ws_map_new(c->t);
	if (!idx)
		return wdr_nomem(c);
	int tot = 0;
	for (int i = 0; i < d->nslices; i++)
		tot += d->slices[i].nctr;
	d->ctrs = wa_calloc(c->a, (size_t)tot + 1, sizeof *d->ctrs);
	if (!d->ctrs)
		return wdr_nomem(c);
	for (int i = 0; i < d->nslices; i++) {
		const wdr_slice *sl = &d->slices[i];
		for (int k = 0; k < sl->nctr; k++) {
			const char *key = wa_printf(c->t, "%s/%s/%s/%s",
						    sl->driver, sl->pool,
						    sl->ctr_set[k],
						    sl->ctr_name[k]);
			int r = key ? ws_map_put(idx, key, d->nctrs) : -2;
			if (r == -2)
				return wdr_nomem(c);
			if (r >= 0)
				return c->rc = werr_at(
					   c->err, WASP_EINPUT, sl->src,
					   "counter %s of counter set %s "
					   "appears twice in pool %s/%s",
					   sl->ctr_name[k], sl->ctr_set[k],
					   sl->driver, sl->pool);
			d->ctrs[d->nctrs++] = (wdr_ctr){sl->ctr_set[k],
							sl->ctr_name[k],
							sl->ctr_milli[k], 0,
							0};
		}
	}
	int nuse = 0;
	for (int i = 0; i < d->ndevs; i++) {
		wdr_device *dv = &d->devs[i];
		const wdr_slice *sl = &d->slices[dv->slice];
		for (int u = 0; u < dv->nuses; u++) {
			const char *key = wa_printf(c->t, "%s/%s/%s/%s",
						    sl->driver, sl->pool,
						    dv->uses[u].set,
						    dv->uses[u].name);
			int k = key ? ws_map_get(idx, key) : -1;
			if (!key)
				return wdr_nomem(c);
			if (k < 0)
				return c->rc = werr_at(
					   c->err, WASP_EINPUT, sl->src,
					   "device %s consumes counter %s of "
					   "counter set %s, which pool %s/%s "
					   "does not define", dv->name,
					   dv->uses[u].name, dv->uses[u].set,
					   sl->driver, sl->pool);
			dv->uses[u].ctr = k;
			d->ctrs[k].n++;
			nuse++;
		}
	}
	d->ctr_dev = wa_calloc(c->a, (size_t)nuse + 1, sizeof(int));
	d->ctr_amt = wa_calloc(c->a, (size_t)nuse + 1, sizeof(int64_t));
	int *fill = wa_calloc(c->t, (size_t)d->nctrs + 1, sizeof(int));
	if (!d->ctr_dev || !d->ctr_amt || !fill)
		return wdr_nomem(c);
	for (int k = 0, f = 0; k < d->nctrs; k++) {
		d->ctrs[k].first = f;
		f += d->ctrs[k].n;
	}
	for (int i = 0; i < d->ndevs; i++)
		for (int u = 0; u < d->devs[i].nuses; u++) {
			int k = d->devs[i].uses[u].ctr;
			int j = d->ctrs[k].first + fill[k]++;
			d->ctr_dev[j] = i;
			d->ctr_amt[j] = d->devs[i].uses[u].milli;
		}
	/* Existing allocations over a counter: warn (the cluster allows
	 * it only through a race; the plan adds nothing there). */
	const char *ex = wdr_counter_excess(d, d->taken0, c->t);
	if (ex && wdr_warn(c, "existing allocations: %s", ex))
		return c->rc;
	return 0;
}

/* Does device dv reach some node of the snapshot? */
static bool reaches_any(const ws_snapshot *s, const wdr_device *dv)
{
	if (dv->reach.node >= 0 || dv->reach.node == -1)
		return true;
	if (dv->reach.node == -3)
		return false;
	for (int n = 0; n < s->nnodes; n++)
		if (wdr_reaches(s, dv, n))
			return true;
	return false;
}

/* The match table of the subs pending pods need, and the first CEL
 * runtime error of each spec (on a device some node reaches): upstream's
 * allocator aborts the pod's scheduling attempt on such an error, so the
 * pods of that claim wait with it as the reason. */
static int build_match(dx *c, const char **spec_err)
{
	ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	bool *need = wa_calloc(c->t, (size_t)d->nspecs + 1, sizeof *need);
	/* per device: 0 not known yet, 1 some node reaches it, 2 none */
	signed char *reach = wa_calloc(c->t, (size_t)d->ndevs + 1, 1);
	d->match = wa_calloc(c->a, (size_t)d->nsubs + 1, sizeof *d->match);
	if (!need || !reach || !d->match)
		return wdr_nomem(c);
	wdr_need_specs(s, d, need);
	for (int i = 0; i < d->nspecs; i++) {
		if (!need[i])
			continue;
		const wdr_spec *sp = &d->specs[i];
		for (int r = 0; r < sp->nreqs; r++)
			for (int k = 0; k < sp->reqs[r].nalts; k++) {
				const wdr_sub *sb = &sp->reqs[r].alts[k];
				signed char *row =
				    wa_alloc(c->a, (size_t)d->ndevs + 1);
				if (!row)
					return wdr_nomem(c);
				for (int dv = 0; dv < d->ndevs; dv++) {
					wasp_error e = {0};
					row[dv] = wdr_matches(d, sb, dv, &e);
					if (!e.code || spec_err[i])
						continue;
					if (!reach[dv])
						reach[dv] = reaches_any(
						    s, &d->devs[dv]) ? 1 : 2;
					if (reach[dv] != 1)
						continue;
					char buf[600];
					const wdr_slice *sl =
					    &d->slices[d->devs[dv].slice];
					spec_err[i] = wa_printf(
					    c->a, "a CEL selector of request "
					    "%s of claim %s/%s failed on device "
					    "%s/%s/%s: %s", sb->name, sp->ns,
					    sp->name, sl->driver, sl->pool,
					    d->devs[dv].name,
					    wasp_error_format(&e, buf,
							      sizeof buf));
					if (!spec_err[i])
						return wdr_nomem(c);
				}
				d->match[sb->id] = row;
			}
	}
	return 0;
}

/* adminAccess: upstream admits such a claim only in a namespace labelled
 * resource.kubernetes.io/admin-access=true.  Checked when the input has
 * Namespace objects; otherwise a warning says it was not. */
static const char *admin_why(dx *c, const wdr_spec *sp, bool *unchecked)
{
	bool admin = false;
	for (int r = 0; r < sp->nreqs; r++)
		for (int k = 0; k < sp->reqs[r].nalts; k++)
			admin |= sp->reqs[r].alts[k].admin;
	if (!admin)
		return NULL;
	if (!c->nns) {
		*unchecked = true;
		return NULL;
	}
	for (size_t i = 0; i < c->nns; i++)
		if (!strcmp(c->ns[i].name, sp->ns)) {
			if (c->ns[i].admin)
				return NULL;
			break;
		}
	return wa_printf(c->a, "claim %s/%s requests adminAccess, but "
			 "namespace %s is not labelled %s=true", sp->ns,
			 sp->name, sp->ns, ADMIN_NS_LABEL);
}

int wdr_rules_build(dx *c)
{
	ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	const char **spec_err = wa_calloc(c->t, (size_t)d->nspecs + 1,
					  sizeof *spec_err);
	if (!spec_err)
		return wdr_nomem(c);
	if (build_counters(c) || build_match(c, spec_err))
		return c->rc;
	bool unchecked = false;
	const char *first_unchecked = NULL;
	for (int i = 0; i < d->nspecs; i++) {
		const char *w = admin_why(c, &d->specs[i], &unchecked);
		if (unchecked && !first_unchecked)
			first_unchecked = wa_printf(c->t, "%s/%s",
						    d->specs[i].ns,
						    d->specs[i].name);
		if (w)
			spec_err[i] = w;
	}
	if (first_unchecked &&
	    wdr_warn(c, "claim %s requests adminAccess; the input has no "
		     "Namespace objects, so the namespace label %s=true was "
		     "not checked", first_unchecked, ADMIN_NS_LABEL))
		return c->rc;
	for (int pi = 0; pi < s->npods; pi++) {
		wdr_podc *pc = &d->pods[pi];
		for (int k = 0; k < pc->n && !pc->why; k++)
			if (pc->c[k].spec >= 0 && spec_err[pc->c[k].spec])
				pc->why = spec_err[pc->c[k].spec];
	}
	for (size_t i = 0; i < c->nunsup; i++) {
		const dunsup *u = &c->unsup[i];
		if (wdr_warn(c, "%d object%s set %s, which wasp does not "
			     "model (%s; first: %s, %s)", u->n,
			     u->n == 1 ? "" : "s", u->field, u->what, u->obj,
			     u->path))
			return c->rc;
	}
	return 0;
}

int wdr_dec_namespace(dx *c, const wt_node *o, const char *name)
{
	const wt_node *l = wdr_mget(wdr_mget(o, "metadata"), "labels");
	const wt_node *v = wdr_mget(l, ADMIN_NS_LABEL);
	dns x = {wa_strdup(c->t, name),
		 v && (v->type == WT_STR || v->type == WT_BOOL) &&
		     !strcmp(v->str, "true")};
	if (!x.name || WA_PUSH(c->t, c->ns, c->nns, c->capns, x))
		return wdr_nomem(c);
	return 0;
}

/* ------------------------------------------- extended resources */

/* The entry name of the claim an extended resource makes. */
#define EXT_ENTRY "extended-resources"

/* A spec of one request: count devices of class k (a template, so each
 * pod gets its own claim), appended to d->specs; its index or -1. */
static int ext_spec(dx *c, const char *ns, int k, int64_t count)
{
	ws_dra *d = c->d;
	wdr_spec *specs = wa_calloc(c->a, (size_t)d->nspecs + 2,
				    sizeof *specs);
	wdr_sub **subs = wa_calloc(c->a, (size_t)d->nsubs + 2, sizeof *subs);
	wdr_req *rq = wa_calloc(c->a, 1, sizeof *rq);
	wdr_sub *sb = wa_calloc(c->a, 1, sizeof *sb);
	if (!specs || !subs || !rq || !sb)
		return wdr_nomem(c), -1;
	if (d->nspecs)
		memcpy(specs, d->specs, (size_t)d->nspecs * sizeof *specs);
	if (d->nsubs)
		memcpy(subs, d->subs, (size_t)d->nsubs * sizeof *subs);
	const wdr_class *cl = &d->classes[k];
	sb->name = cl->name;
	sb->class_name = cl->name;
	sb->cls = k;
	sb->count = (int)count;
	sb->id = d->nsubs;
	rq->name = cl->name;
	rq->alts = sb;
	rq->nalts = 1;
	wdr_spec *sp = &specs[d->nspecs];
	sp->ns = ns;
	sp->name = wa_printf(c->a, "%s:%s", EXT_ENTRY, cl->ext_res);
	sp->template_ = true;
	sp->reqs = rq;
	sp->nreqs = 1;
	sp->holders = wa_calloc(c->a, 1, sizeof(int));
	if (!sp->name || !sp->holders)
		return wdr_nomem(c), -1;
	subs[d->nsubs++] = sb;
	d->specs = specs;
	d->subs = subs;
	return d->nspecs++;
}

int wdr_ext_resources(dx *c)
{
	ws_snapshot *s = c->s;
	ws_dra *d = c->d;
	ws_map *specs = ws_map_new(c->t), *sigs = ws_map_new(c->t);
	if (!specs || !sigs)
		return wdr_nomem(c);
	int nsig = 0;
	for (int pi = 0; pi < s->npods; pi++)
		if (d->pods[pi].sig > nsig)
			nsig = d->pods[pi].sig;
	for (int k = 0; k < d->nclasses; k++) {
		const wdr_class *cl = &d->classes[k];
		int r = cl->ext_res ? ws_res_index(s, cl->ext_res) : -1;
		if (r < 0)
			continue;
		int adv = 0;
		for (int n = 0; n < s->nnodes; n++)
			adv += s->nodes[n].alloc[r] > 0;
		if (adv) {
			/* device plugin and DRA side by side: not modelled */
			if (wdr_warn(c, "DeviceClass %s backs extended resource "
				     "%s, which %d node%s also advertise%s; "
				     "wasp uses only the nodes' allocatable "
				     "for it", cl->name, cl->ext_res, adv,
				     adv == 1 ? "" : "s", adv == 1 ? "s" : ""))
				return c->rc;
			continue;
		}
		for (int pi = 0; pi < s->npods; pi++) {
			ws_pod *pod = &s->pods[pi];
			int64_t q = pod->req[r];
			if (q <= 0)
				continue;
			wdr_podc *pc = &d->pods[pi];
			int64_t count = (q + 999) / 1000;
			if (count > WDR_MAX_RESULTS)
				return c->rc = werr_at(
					   c->err, WASP_EINPUT, pod->src,
					   "pod %s/%s requests %lld %s, more "
					   "than the %d devices a claim may "
					   "have", pod->ns, pod->name,
					   (long long)count, cl->ext_res,
					   WDR_MAX_RESULTS);
			const char *key = wa_printf(c->t, "%s/%d/%lld", pod->ns,
						    k, (long long)count);
			int sp = key ? ws_map_get(specs, key) : -1;
			if (!key)
				return wdr_nomem(c);
			if (sp < 0) {
				sp = ext_spec(c, pod->ns, k, count);
				if (sp < 0 || ws_map_put(specs, key, sp) == -2)
					return c->rc ? c->rc : wdr_nomem(c);
			}
			wdr_pclaim *l = wa_calloc(c->a, (size_t)pc->n + 1,
						  sizeof *l);
			if (!l)
				return wdr_nomem(c);
			if (pc->n)
				memcpy(l, pc->c, (size_t)pc->n * sizeof *l);
			const char *en = EXT_ENTRY;
			for (int e = 0; e < pc->n; e++)
				if (!strcmp(pc->c[e].name, EXT_ENTRY))
					en = wa_printf(c->a, "%s-%s", EXT_ENTRY,
						       cl->name);
			if (!en)
				return wdr_nomem(c);
			l[pc->n] = (wdr_pclaim){en, sp, -1};
			pc->c = l;
			pc->n++;
			const char *sk = wa_printf(c->t, "%d|%d", pc->sig, sp);
			int g = sk ? ws_map_put(sigs, sk, nsig + 1) : -2;
			if (g == -2)
				return wdr_nomem(c);
			pc->sig = g == -1 ? ++nsig : g;
			/* the devices serve it, not the node */
			if (pod->node >= 0 && !pod->terminal)
				s->nodes[pod->node].used[r] -= q;
			pod->req[r] = 0;
			c->ext_any = true;
		}
	}
	return 0;
}
