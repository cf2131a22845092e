/*
 * decode_resolve.c -- cross-object resolution, after every object is
 * collected.
 *
 * Priority admission (explicit priority, named class, built-in system
 * classes, global default; doc/input.md "PriorityClasses"), PodGroups
 * filled from their Workload template, and the CompositePodGroup trees
 * (parents, cycles, depth, one priority per tree, disruptionMode all;
 * doc/input.md "CompositePodGroups (trees of groups)").
 */

#include "model/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built-in classes the API server creates in every cluster; a snapshot may
 * name them without listing them. */
static const struct {
	const char *name;
	int32_t value;
} builtin_pcs[] = {
    {"system-cluster-critical", 2000000000},
    {"system-node-critical", 2000001000},
};

/* ------------------------------------------------------------- resolve */

static const ws_priority_class *find_pc(dctx *c, const char *name)
{
	for (size_t i = 0; i < c->npcs; i++)
		if (!strcmp(c->pcs[i].name, name))
			return &c->pcs[i];
	return NULL;
}

/* Priority from a class name: the snapshot's classes, then the built-in
 * system-* ones.  0 on success; -1 when unknown. */
static int class_value(dctx *c, const char *name, int32_t *prio,
		       int *preempt)
{
	const ws_priority_class *pc = find_pc(c, name);
	if (pc) {
		*prio = pc->value;
		*preempt = pc->preempt;
		return 0;
	}
	for (size_t i = 0; i < sizeof builtin_pcs / sizeof builtin_pcs[0];
	     i++)
		if (!strcmp(builtin_pcs[i].name, name)) {
			*prio = builtin_pcs[i].value;
			*preempt = WS_PREEMPT_LOWER;
			return 0;
		}
	return -1;
}

static const ws_priority_class *global_default(dctx *c)
{
	for (size_t i = 0; i < c->npcs; i++)
		if (c->pcs[i].global_default)
			return &c->pcs[i];
	return NULL;
}

/* Priority admission: explicit priority, else the named class, else the
 * global default, else 0; preemptionPolicy likewise from the class. */
int wd_resolve_prio(dctx *c, bool has_prio, int32_t prio,
		    const char *pcname, const wt_node *pcnode,
		    const char *path, bool has_preempt, int preempt,
		    int32_t *out_prio, int *out_preempt)
{
	int32_t cv = 0;
	int cp = WS_PREEMPT_LOWER;
	bool known = false;
	if (pcname) {
		known = class_value(c, pcname, &cv, &cp) == 0;
		if (!known && !has_prio)
			return wd_bad(c, pcnode, path, "PriorityClass \"%s\" "
				      "does not exist", pcname);
	} else if (!has_prio) {
		/* the global default only stands in for a missing priority */
		const ws_priority_class *d = global_default(c);
		if (d) {
			cv = d->value;
			cp = d->preempt;
			known = true;
		}
	}
	*out_prio = has_prio ? prio : cv;
	*out_preempt = has_preempt ? preempt : known ? cp : WS_PREEMPT_LOWER;
	return 0;
}

int wd_resolve_pcs(dctx *c)
{
	const wt_node *first = NULL;
	const char *fname = NULL;
	for (size_t i = 0; i < c->npcs; i++) {
		if (!c->pcs[i].global_default)
			continue;
		if (first)
			return wd_bad(c, c->pc_default_node[i], "globalDefault",
				      "PriorityClass %s is a second global "
				      "default (the first is %s at %s:%d:%d)",
				      c->pcs[i].name, fname,
				      first->src.file ? first->src.file : "",
				      first->src.line, first->src.col);
		first = c->pc_default_node[i];
		fname = c->pcs[i].name;
	}
	return 0;
}

/* Fill the fields a PodGroup omits from its Workload template. */
static void merge_spec(dspec *g, const dspec *t)
{
	if (!g->has_policy) {
		g->has_policy = t->has_policy;
		g->policy = t->policy;
		g->min_count = t->min_count;
	}
	if (!g->has_topo) {
		g->has_topo = t->has_topo;
		g->topo_key = t->topo_key;
	}
	if (!g->has_disrupt) {
		g->has_disrupt = t->has_disrupt;
		g->disruption = t->disruption;
		g->disrupt_node = t->disrupt_node;
	}
	if (!g->has_preempt) {
		g->has_preempt = t->has_preempt;
		g->preempt = t->preempt;
	}
	/* priority and its class travel together */
	if (!g->has_prio && !g->pcname) {
		g->has_prio = t->has_prio;
		g->prio = t->prio;
		g->pcname = t->pcname;
		g->pcname_node = t->pcname_node;
	}
	g->claims = g->claims || t->claims;
	if (!g->claims_node)
		g->claims_node = t->claims_node;
}

/* ------------------------------------------- CompositePodGroup trees */

/* Position for a tree error about object d: its priority fields, or the
 * spec. */
static const wt_node *prio_node(const dgroup *d)
{
	if (d->sp.pcname_node)
		return d->sp.pcname_node;
	const wt_node *v = wd_mget(d->spec, "priority");
	return v ? v : d->spec;
}

static bool explicit_prio(const dgroup *d)
{
	return d->sp.has_prio || d->sp.pcname;
}

/* The template d->tpl_name of d's Workload (spec.workloadRef) in *t, NULL
 * when the Workload has none of that name; an input error if the
 * Workload does not exist. */
static int find_template(dctx *c, const dgroup *d, const dtpl **t)
{
	char key[2 * WASP_MAX_NAME + 8];
	snprintf(key, sizeof key, "%s/%s", d->ns, d->wl_name);
	int w = ws_map_get(c->wl_idx, key);
	*t = NULL;
	if (w < 0)
		return wd_bad(c, d->wl_node, "spec.workloadRef.workloadName",
			      "Workload %s/%s does not exist", d->ns,
			      d->wl_name);
	const dwl *wl = &c->wls[w];
	for (size_t k = 0; k < wl->ntpls && !*t; k++)
		if (!strcmp(wl->tpls[k].name, d->tpl_name))
			*t = &wl->tpls[k];
	return 0;
}

/* Step 1 of resolve_trees: each CompositePodGroup filled from its Workload
 * template, checked and its priority resolved, in cs[i]; idx maps
 * "ns/name" to i. */
static int tree_composites(dctx *c, ws_composite *cs, ws_map *idx)
{
	size_t nc = c->ncgroups;
	for (size_t i = 0; i < nc; i++) {
		dgroup *d = &c->cgroups[i];
		ws_composite *h = &cs[i];
		if (d->wl_name) {
			const dtpl *t;
			if (find_template(c, d, &t))
				return c->rc;
			if (!t || !t->composite)
				return wd_bad(c, d->tpl_node,
					      "spec.workloadRef.templateName",
					      "Workload %s/%s has no "
					      "compositePodGroupTemplate "
					      "\"%s\"", d->ns, d->wl_name,
					      d->tpl_name);
			merge_spec(&d->sp, &t->sp);
		}
		const dspec *sp = &d->sp;
		if (!sp->has_policy)
			return wd_bad(c, d->spec, "spec", "CompositePodGroup "
				      "%s/%s has no schedulingPolicy%s", d->ns,
				      d->name, d->wl_name
				      ? " (nor has its template)" : "");
		h->ns = d->ns;
		h->name = d->name;
		h->src = d->src;
		h->policy = sp->policy;
		h->min_groups = sp->policy == WS_POLICY_GANG ? sp->min_count
							     : 1;
		h->topo_key = sp->topo_key;
		h->disruption = sp->has_disrupt ? sp->disruption
						: WS_DISRUPT_SINGLE;
		h->tas = d->tas;
		if (d->tas)
			return wd_bad(c, wd_mget(wd_mget(d->obj, "metadata"),
						 "annotations"),
				      "metadata.annotations", "preferred, "
				      "slice and exclusive topology "
				      "annotations are not supported on a "
				      "CompositePodGroup yet; put them on its "
				      "PodGroups");
		if (wd_resolve_prio(c, sp->has_prio, sp->prio, sp->pcname,
				    sp->pcname_node, "priorityClassName",
				    sp->has_preempt, sp->preempt, &h->priority,
				    &h->preempt))
			return c->rc;
		const char *k = wa_printf(c->t, "%s/%s", d->ns, d->name);
		if (!k || ws_map_put(idx, k, (int)i) == -2)
			return wd_nomem(c);
	}
	return 0;
}

/* The CompositePodGroup d names as its parent, as an index + 1 into the
 * composites in *pcomp; an input error when it does not exist in d's
 * namespace. */
static int find_parent(dctx *c, ws_map *idx, const dgroup *d, int *pcomp)
{
	char key[2 * WASP_MAX_NAME + 8];
	snprintf(key, sizeof key, "%s/%s", d->ns, d->parent);
	int pi = ws_map_get(idx, key);
	if (pi < 0)
		return wd_bad(c, d->parent_node,
			      "spec.parentCompositePodGroupName",
			      "CompositePodGroup %s/%s does not exist", d->ns,
			      d->parent);
	*pcomp = pi + 1;
	return 0;
}

/* Step 2: parents exist (same namespace); pcomp set on composites and on
 * PodGroups (out). */
static int tree_parents(dctx *c, ws_composite *cs, ws_map *idx,
			ws_group *out)
{
	for (size_t i = 0; i < c->ncgroups; i++)
		if (c->cgroups[i].parent &&
		    find_parent(c, idx, &c->cgroups[i], &cs[i].pcomp))
			return c->rc;
	for (size_t i = 0; i < c->ngroups; i++)
		if (c->groups[i].parent &&
		    find_parent(c, idx, &c->groups[i], &out[i].pcomp))
			return c->rc;
	return 0;
}

/* Step 3: no cycles (walking up from each composite), and each
 * composite's depth in levels within WS_MAX_TREE_DEPTH. */
static int tree_depths(dctx *c, ws_composite *cs)
{
	size_t nc = c->ncgroups;
	for (size_t i = 0; i < nc; i++) {
		int depth = 1, h = (int)i;
		while (cs[h].pcomp) {
			h = cs[h].pcomp - 1;
			if (++depth > (int)nc)
				return wd_bad(c, c->cgroups[i].parent_node,
					      "spec."
					      "parentCompositePodGroupName",
					      "CompositePodGroup %s/%s is its "
					      "own ancestor (a cycle through "
					      "%s)",
					      cs[i].ns, cs[i].name,
					      c->cgroups[i].parent);
		}
		cs[i].depth = depth;
	}
	for (size_t i = 0; i < nc; i++)
		if (cs[i].depth >= WS_MAX_TREE_DEPTH)
			return wd_bad(c, c->cgroups[i].parent_node,
				      "spec.parentCompositePodGroupName",
				      "CompositePodGroup %s/%s is at depth %d; "
				      "its PodGroups would be deeper than %d "
				      "levels", cs[i].ns, cs[i].name,
				      cs[i].depth, WS_MAX_TREE_DEPTH);
	return 0;
}

/* Step 4: one priority per tree; `all` parents have `all` children.
 * Composites first, parents before children (by depth), then the
 * PodGroups. */
static int tree_share(dctx *c, ws_composite *cs, ws_group *out)
{
	size_t nc = c->ncgroups;
	for (int dep = 2; dep < WS_MAX_TREE_DEPTH; dep++)
		for (size_t i = 0; i < nc; i++) {
			if (cs[i].depth != dep)
				continue;
			dgroup *d = &c->cgroups[i];
			ws_composite *pa = &cs[cs[i].pcomp - 1];
			if (!explicit_prio(d)) {
				cs[i].priority = pa->priority;
				if (!d->sp.has_preempt)
					cs[i].preempt = pa->preempt;
			} else if (cs[i].priority != pa->priority)
				return wd_bad(c, prio_node(d), "",
					      "CompositePodGroup %s/%s has "
					      "priority %d but its tree "
					      "(parent %s) has %d; a tree "
					      "shares one priority", cs[i].ns,
					      cs[i].name, (int)cs[i].priority,
					      pa->name, (int)pa->priority);
			if (pa->disruption == WS_DISRUPT_ALL) {
				if (d->sp.has_disrupt &&
				    cs[i].disruption != WS_DISRUPT_ALL)
					return wd_bad(c, d->sp.disrupt_node,
						      "disruptionMode",
						      "parent %s has "
						      "disruptionMode all, so "
						      "its children must too",
						      pa->name);
				cs[i].disruption = WS_DISRUPT_ALL;
			}
		}
	for (size_t i = 0; i < c->ngroups; i++) {
		if (!out[i].pcomp)
			continue;
		dgroup *d = &c->groups[i];
		ws_group *g = &out[i];
		ws_composite *pa = &cs[g->pcomp - 1];
		if (pa->depth + 1 > WS_MAX_TREE_DEPTH)
			return wd_bad(c, d->parent_node,
				      "spec.parentCompositePodGroupName",
				      "PodGroup %s/%s would be at depth %d, "
				      "deeper than %d", g->ns, g->name,
				      pa->depth + 1, WS_MAX_TREE_DEPTH);
		if (!explicit_prio(d)) {
			g->priority = pa->priority;
			if (!d->sp.has_preempt)
				g->preempt = pa->preempt;
		} else if (g->priority != pa->priority)
			return wd_bad(c, prio_node(d), "", "PodGroup %s/%s has "
				      "priority %d but its tree (parent %s) "
				      "has %d; a tree shares one priority",
				      g->ns, g->name, (int)g->priority,
				      pa->name, (int)pa->priority);
		if (pa->disruption == WS_DISRUPT_ALL) {
			if (d->sp.has_disrupt &&
			    g->disruption != WS_DISRUPT_ALL)
				return wd_bad(c, d->sp.disrupt_node,
					      "disruptionMode", "parent %s has "
					      "disruptionMode all, so its "
					      "children must too", pa->name);
			if (g->policy != WS_POLICY_GANG)
				return wd_bad(c, d->spec, "spec", "parent %s "
					      "has disruptionMode all, which "
					      "needs a gang child, but "
					      "PodGroup %s/%s is basic",
					      pa->name, g->ns, g->name);
			g->disruption = WS_DISRUPT_ALL;
		}
	}
	return 0;
}

/* Step 5: children lists: groups, then composites, each in input order. */
static int tree_kids(dctx *c, ws_composite *cs, ws_group *out)
{
	size_t nc = c->ncgroups;
	int *cnt = wa_calloc(c->t, nc + 1, sizeof *cnt);
	if (!cnt)
		return wd_nomem(c);
	for (size_t i = 0; i < c->ngroups; i++)
		if (out[i].pcomp)
			cnt[out[i].pcomp - 1]++;
	for (size_t i = 0; i < nc; i++)
		if (cs[i].pcomp)
			cnt[cs[i].pcomp - 1]++;
	for (size_t i = 0; i < nc; i++)
		if (!(cs[i].kids = wa_calloc(c->a, (size_t)cnt[i] + 1,
					     sizeof(int))))
			return wd_nomem(c);
	for (size_t i = 0; i < c->ngroups; i++)
		if (out[i].pcomp) {
			ws_composite *h = &cs[out[i].pcomp - 1];
			h->kids[h->nkids++] = (int)i;
		}
	for (size_t i = 0; i < nc; i++)
		if (cs[i].pcomp) {
			ws_composite *h = &cs[cs[i].pcomp - 1];
			h->kids[h->nkids++] = -1 - (int)i;
		}
	return 0;
}

/* The CompositePodGroups (templates merged, priorities resolved), then
 * the tree: parents exist (same namespace), no cycles, depth counted in
 * levels including the leaf PodGroups at most WS_MAX_TREE_DEPTH, one
 * priority and preemption policy per tree (a member that names none
 * inherits the root's), and a parent with disruptionMode all has only
 * `all` children.  Every violation is an input error at the offending
 * value (doc/input.md "CompositePodGroups (trees of groups)"). */
static int resolve_trees(dctx *c, ws_group *out)
{
	size_t nc = c->ncgroups;
	ws_composite *cs = wa_calloc(c->a, nc + 1, sizeof *cs);
	ws_map *idx = ws_map_new(c->t);
	if (!cs || !idx)
		return wd_nomem(c);
	if (tree_composites(c, cs, idx) || tree_parents(c, cs, idx, out) ||
	    tree_depths(c, cs) || tree_share(c, cs, out) ||
	    tree_kids(c, cs, out))
		return c->rc;
	c->s->comps = cs;
	c->s->ncomps = (int)nc;
	return 0;
}

int wd_resolve_groups(dctx *c, ws_group *out)
{
	size_t nclaims = 0;
	for (size_t i = 0; i < c->ngroups; i++) {
		dgroup *d = &c->groups[i];
		ws_group *g = &out[i];
		if (d->wl_name) {
			const dtpl *t;
			if (find_template(c, d, &t))
				return c->rc;
			if (!t)
				return wd_bad(c, d->tpl_node,
					      "spec.workloadRef.templateName",
					      "Workload %s/%s has no template "
					      "\"%s\"", d->ns, d->wl_name,
					      d->tpl_name);
			if (t->composite)
				return wd_bad(c, d->tpl_node,
					      "spec.workloadRef.templateName",
					      "template \"%s\" of Workload "
					      "%s/%s is a "
					      "compositePodGroupTemplate; a "
					      "PodGroup needs a "
					      "podGroupTemplate", d->tpl_name,
					      d->ns, d->wl_name);
			merge_spec(&d->sp, &t->sp);
		}
		const dspec *sp = &d->sp;
		if (!sp->has_policy)
			return wd_bad(c, d->spec, "spec", "PodGroup %s/%s has "
				      "no schedulingPolicy%s", d->ns, d->name,
				      d->wl_name ? " (nor has its template)"
						 : "");
		if (sp->has_disrupt && sp->disruption == WS_DISRUPT_ALL &&
		    sp->policy == WS_POLICY_BASIC)
			return wd_bad(c, sp->disrupt_node, "disruptionMode",
				      "disruptionMode all needs a gang "
				      "schedulingPolicy, not basic");
		g->ns = d->ns;
		g->name = d->name;
		g->src = d->src;
		g->workload = d->wl_name;
		g->policy = sp->policy;
		g->min_count = sp->policy == WS_POLICY_GANG ? sp->min_count
							    : 1;
		g->topo_key = sp->topo_key;
		g->disruption = sp->has_disrupt ? sp->disruption
						: WS_DISRUPT_SINGLE;
		g->parent = d->parent;
		g->tas = d->tas;
		if (wd_resolve_prio(c, sp->has_prio, sp->prio, sp->pcname,
				    sp->pcname_node, "priorityClassName",
				    sp->has_preempt, sp->preempt, &g->priority,
				    &g->preempt))
			return c->rc;
		nclaims += sp->claims;
	}
	if (resolve_trees(c, out))
		return c->rc;
	if (nclaims &&
	    wd_warn(c, "%zu %s DRA resourceClaims, which wasp does not model "
		    "yet; their device requests are ignored", nclaims,
		    wd_plural(nclaims, "PodGroup has", "PodGroups have")))
		return WASP_ENOMEM;
	return 0;
}
