/*
 * domains.c -- the reduction's topology phases and the placement
 * predicates built on them (doc/formulation.md §1 "Data" and §9): a
 * group's gang minimum, key and the domain its running pods pin; the
 * topology annotations (exclusive, preferred, slices) and the domains
 * held exclusively; CompositePodGroup trees; and wp_allowed, which the
 * solvers ask before they put pods of a group on a node.
 */
#include "reduce/problem_int.h"

#include <stdlib.h>

/* ----------------------------------------------------- pinned domains */

/* Domain of key k holding every bound pod of snapshot group sg, merged
 * into *dom (-1 none yet, -2 several). */
static void pin_dom(const ws_snapshot *s, const wtp_key *k, int sg, int *dom)
{
	const ws_group *g = &s->groups[sg];
	for (int i = 0; i < g->npods; i++) {
		const ws_pod *pod = &s->pods[g->pods[i]];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0)
			continue;
		int d = k->node_dom[pod->node];
		if (d < 0 || (*dom >= 0 && *dom != d))
			*dom = -2;
		else if (*dom == -1)
			*dom = d;
	}
}

static void pin_tree(const ws_snapshot *s, const wtp_key *k, int sc,
		     int *dom)
{
	const ws_composite *h = &s->comps[sc];
	for (int i = 0; i < h->nkids; i++) {
		int kid = h->kids[i];
		if (kid >= 0)
			pin_dom(s, k, kid, dom);
		else
			pin_tree(s, k, -1 - kid, dom);
	}
}

/* Fill group g from snapshot group sg: bound pods, minimum, key, domain. */
int wp_fill_group(wp_red *r, wp_group *wg)
{
	const ws_snapshot *s = r->s;
	const ws_group *sg = &s->groups[wg->sg];
	int ntotal = 0;
	wg->gang = sg->policy == WS_POLICY_GANG;
	wg->fixed_dom = -1;
	wg->key = -1;
	for (int i = 0; i < sg->npods; i++) {
		const ws_pod *pod = &s->pods[sg->pods[i]];
		if (pod->terminal)
			continue;
		ntotal++;
		if (!ws_pod_pending(pod))
			wg->nbound++;
	}
	if (sg->invalid)
		wg->invalid = sg->invalid;
	else if (wg->gang && sg->min_count > ntotal &&
		 !(wg->invalid = wa_printf(r->a, "gang needs minCount %d but "
					   "has only %d pod%s", sg->min_count,
					   ntotal, ntotal == 1 ? "" : "s")))
		return -1;
	if (wg->gang) {
		int need = sg->min_count - wg->nbound;
		wg->min_need = need > 0 ? need : 0;
		if (wg->min_need > wg->size)
			wg->min_need = wg->size;
	}
	if (!sg->topo_key || !sg->topo_key[0])
		return 0;
	wg->key = wtp_key_index(r->t, sg->topo_key);
	if (wg->key < 0) {
		if (!wg->invalid &&
		    !(wg->invalid = wa_printf(r->a, "topology key %s is not "
					      "known to the topology",
					      sg->topo_key)))
			return -1;
		return 0;
	}
	/* Bound pods pin the domain (pods on a node missing from the
	 * snapshot say nothing about it). */
	pin_dom(s, &r->t->keys[wg->key], wg->sg, &wg->fixed_dom);
	return 0;
}

/* ------------------------------------------- CompositePodGroups */

int wp_build_comps(wp_red *r)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	p->ncomps = s->ncomps;
	if (!s->ncomps)
		return 0;
	p->comps = wa_calloc(r->a, (size_t)s->ncomps + 1, sizeof *p->comps);
	int *pg = wa_calloc(r->tmp, (size_t)s->ngroups + 1, sizeof *pg);
	if (!p->comps || !pg)
		return -1;
	for (int g = 0; g < s->ngroups; g++)
		pg[g] = -1;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].sg >= 0) {
			pg[p->groups[g].sg] = g;
			p->groups[g].pcomp = s->groups[p->groups[g].sg].pcomp;
		}
	for (int i = 0; i < s->ncomps; i++) {
		const ws_composite *sh = &s->comps[i];
		wp_comp *h = &p->comps[i];
		h->parent = sh->pcomp - 1;
		h->root = i;
		while (s->comps[h->root].pcomp)
			h->root = s->comps[h->root].pcomp - 1;
		h->min_groups = sh->min_groups;
		h->priority = sh->priority;
		h->key = -1;
		h->fixed_dom = -1;
		h->kids = wa_calloc(r->a, (size_t)sh->nkids + 1, sizeof(int));
		if (!h->kids)
			return -1;
		for (int j = 0; j < sh->nkids; j++) {
			int kid = sh->kids[j];
			if (kid < 0) {
				h->kids[h->nkids++] = kid;
				continue;
			}
			if (pg[kid] >= 0) {
				h->kids[h->nkids++] = pg[kid];
				continue;
			}
			/* no pending pods: admitted if running enough */
			const ws_group *g = &s->groups[kid];
			int run = 0;
			for (int q = 0; q < g->npods; q++) {
				const ws_pod *pod = &s->pods[g->pods[q]];
				run += !pod->terminal && !ws_pod_pending(pod);
			}
			if (run > 0 && run >= g->min_count)
				h->nrunning++;
		}
		if (sh->nkids < sh->min_groups &&
		    !(h->invalid = wa_printf(r->a, "CompositePodGroup %s/%s "
					     "needs minGroupCount %d but has "
					     "only %d child group%s", sh->ns,
					     sh->name, sh->min_groups,
					     sh->nkids,
					     sh->nkids == 1 ? "" : "s")))
			return -1;
		if (!sh->topo_key)
			continue;
		h->key = wtp_key_index(r->t, sh->topo_key);
		if (h->key < 0) {
			if (!h->invalid &&
			    !(h->invalid = wa_printf(r->a, "topology key %s "
						     "is not known to the "
						     "topology",
						     sh->topo_key)))
				return -1;
			continue;
		}
		pin_tree(s, &r->t->keys[h->key], i, &h->fixed_dom);
	}
	return 0;
}

/* ------------------------------------------- topology annotations */

/* p->excl_owner[key], made on first use with every domain free (-1). */
static int owner_row(wp_red *r, int key)
{
	wp_problem *p = r->p;
	const wtp_key *k = &r->t->keys[key];
	if (!p->excl_owner[key]) {
		int *o = wa_calloc(r->a, (size_t)k->ndom + 1, sizeof *o);
		if (!o)
			return -1;
		for (int d = 0; d < k->ndom; d++)
			o[d] = -1;
		p->excl_owner[key] = o;
	}
	return 0;
}

/* Annotations of group wg (snapshot sg) as key indices; a key the
 * topology does not know, or slices the group cannot be cut into, make
 * the group invalid. */
static int build_tas(wp_red *r, wp_group *wg)
{
	const ws_snapshot *s = r->s;
	const ws_group *sg = &s->groups[wg->sg];
	const ws_tas *ta = sg->tas;
	if (!ta)
		return 0;
	wp_tas *t = wa_calloc(r->a, 1, sizeof *t);
	if (!t)
		return -1;
	wg->tas = t;
	t->excl = t->pref = t->excl_fixed = -1;
	const char *bad = NULL;
	if (ta->exclusive && (t->excl = wtp_key_index(r->t, ta->exclusive)) < 0)
		bad = ta->exclusive;
	if (ta->preferred && (t->pref = wtp_key_index(r->t, ta->preferred)) < 0)
		bad = ta->preferred;
	t->nslices = ta->nslices;
	for (int l = 0; l < ta->nslices; l++) {
		t->slice_size[l] = ta->slice_size[l];
		if ((t->slice_key[l] = wtp_key_index(r->t, ta->slice_key[l])) < 0)
			bad = ta->slice_key[l];
	}
	if (bad && !wg->invalid &&
	    !(wg->invalid = wa_printf(r->a, "topology key %s is not known "
				      "to the topology", bad)))
		return -1;
	if (ta->nslices && !wg->invalid) {
		int s0 = ta->slice_size[0];
		if (wg->nbound)
			wg->invalid = wa_printf(r->a, "a sliced group cannot "
						"grow: %d of its pods already "
						"run", wg->nbound);
		else if (wg->size % s0)
			wg->invalid = wa_printf(r->a, "%d pods cannot be cut "
						"into slices of %d", wg->size,
						s0);
		else if (wg->gang && wg->min_need % s0)
			/* a gang admits whole slices: round its minimum up */
			wg->min_need += s0 - wg->min_need % s0;
		if (!wg->invalid && !wg->gang)
			wg->min_need = 0;
		if (wg->nbound || wg->size % s0) {
			if (!wg->invalid)
				return -1; /* wa_printf failed */
		}
	}
	if (t->excl < 0)
		return 0;
	/* running pods of the group pin its exclusive domain */
	const wtp_key *k = &r->t->keys[t->excl];
	pin_dom(s, k, wg->sg, &t->excl_fixed);
	if (t->excl_fixed == -2 && !wg->invalid &&
	    !(wg->invalid = wa_printf(r->a, "its running pods already span "
				      "several %s domains", k->label)))
		return -1;
	return owner_row(r, t->excl);
}

/* Domains held by running pods of groups with an exclusive key (pending
 * or not). */
int wp_build_excl(wp_red *r)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	int nk = r->t ? r->t->nkeys : 0;
	p->excl_owner = wa_calloc(r->a, (size_t)nk + 1, sizeof *p->excl_owner);
	if (!p->excl_owner)
		return -1;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].sg >= 0 && build_tas(r, &p->groups[g]))
			return -1;
	for (int g = 0; g < s->ngroups; g++) {
		const ws_tas *ta = s->groups[g].tas;
		if (!ta || !ta->exclusive)
			continue;
		int key = wtp_key_index(r->t, ta->exclusive);
		if (key < 0)
			continue;
		const wtp_key *k = &r->t->keys[key];
		if (owner_row(r, key))
			return -1;
		int *o = p->excl_owner[key];
		const ws_group *sg = &s->groups[g];
		for (int i = 0; i < sg->npods; i++) {
			const ws_pod *pod = &s->pods[sg->pods[i]];
			if (pod->terminal || ws_pod_pending(pod) ||
			    pod->node < 0)
				continue;
			int d = k->node_dom[pod->node];
			if (d < 0)
				continue;
			o[d] = o[d] == -1 || o[d] == g ? g : -2;
		}
	}
	return 0;
}

/* ------------------------------------------------ placement predicates */

int wp_group_need(const wp_group *wg)
{
	return wg->gang ? wg->min_need : 1;
}

bool wp_comp_admitted(const wp_problem *p, const wp_sol *s, int h)
{
	const wp_comp *c = &p->comps[h];
	int n = c->nrunning;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		n += k >= 0 ? s->admit[k] != 0 : wp_comp_admitted(p, s, -1 - k);
	}
	return n >= c->min_groups && n > 0;
}

/* Inside a tree, node n must lie in a domain of every ancestor's key
 * (the one its running pods pin, if any), and no ancestor may be
 * invalid. */
static bool tree_node_ok(const wp_problem *p, const wp_group *g, int n)
{
	for (int h = g->pcomp - 1; h >= 0; h = p->comps[h].parent) {
		const wp_comp *c = &p->comps[h];
		if (c->invalid || c->fixed_dom == -2)
			return false;
		if (c->key < 0)
			continue;
		int d = p->topo->keys[c->key].node_dom[n];
		if (d < 0 || (c->fixed_dom >= 0 && d != c->fixed_dom))
			return false;
	}
	return true;
}

/* Whether slot (c, k) may hold pods at all: the group is placeable, the
 * node lies in an allowed domain of the group's key. */
bool wp_allowed(const wp_problem *p, const wp_group *g, int n)
{
	if (g->invalid || g->fixed_dom == -2)
		return false;
	if (g->pcomp && !tree_node_ok(p, g, n))
		return false;
	if (g->tas) {
		const wp_tas *ta = g->tas;
		for (int l = 0; l < ta->nslices; l++)
			if (p->topo->keys[ta->slice_key[l]].node_dom[n] < 0)
				return false;
		if (ta->excl >= 0) {
			int d = p->topo->keys[ta->excl].node_dom[n];
			if (d < 0 || (ta->excl_fixed >= 0 &&
				      d != ta->excl_fixed))
				return false;
			int own = p->excl_owner[ta->excl][d];
			if (own != -1 && own != g->sg)
				return false;
		}
	}
	if (g->key < 0)
		return true;
	int d = p->topo->keys[g->key].node_dom[n];
	if (d < 0)
		return false;
	return g->fixed_dom < 0 || d == g->fixed_dom;
}

bool wp_group_below(const wp_problem *p, int g, int h)
{
	for (int c = p->groups[g].pcomp - 1; c >= 0; c = p->comps[c].parent)
		if (c == h)
			return true;
	return false;
}
