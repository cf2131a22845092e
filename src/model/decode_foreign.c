/*
 * decode_foreign.c -- PodGroups of the two gang schedulers clusters run
 * today, read as gangs (doc/input.md, "PodGroups of other schedulers"):
 *
 *   scheduling.x-k8s.io/v1alpha1 PodGroup (scheduler-plugins
 *   coscheduling): spec.minMember is the gang's minCount; pods join
 *   with the label scheduling.x-k8s.io/pod-group; the priority is the
 *   pods'.  minResources and scheduleTimeoutSeconds are ignored.
 *
 *   scheduling.volcano.sh/v1beta1 PodGroup: spec.minMember,
 *   spec.priorityClassName, spec.networkTopology {mode hard|soft,
 *   highestTierAllowed}; pods join with the annotation
 *   scheduling.k8s.io/group-name.  minTaskMember (per-task minimums)
 *   and queue are not modelled.
 *
 * A group is keyed "ns/name@api" so that it never clashes with a
 * scheduling.k8s.io PodGroup of the same name.
 */
#include "model/decode_int.h"

#include <stdio.h>
#include <string.h>

#define COSCHED_LABEL "scheduling.x-k8s.io/pod-group"
#define VOLCANO_ANNOTATION "scheduling.k8s.io/group-name"
/* minMember is an int32 in both APIs. */
#define FOREIGN_MAX_MEMBERS 2147483647L

const char *wd_group_key(dctx *c, const char *ns, const char *name,
			 const char *api)
{
	return api ? wa_printf(c->t, "%s/%s@%s", ns, name, api)
		   : wa_printf(c->t, "%s/%s", ns, name);
}

/* Volcano spec.networkTopology: {mode: hard|soft, highestTierAllowed}. */
static int dec_network(dctx *c, const wt_node *v, dgroup *g)
{
	const char *mode = "hard";
	const wt_node *mn, *t;
	if (wd_want(c, v, WT_MAP, "spec.networkTopology") ||
	    wd_sfield(c, v, "mode", "spec.networkTopology", &mode, &mn))
		return c->rc;
	if (!mode || !*mode)
		mode = "hard";
	if (strcmp(mode, "hard") && strcmp(mode, "soft"))
		return wd_bad(c, mn, "spec.networkTopology.mode",
			      "\"%s\": expected hard or soft", mode);
	g->vc_hard = !strcmp(mode, "hard");
	g->vc_tier = 1; /* Volcano's default: the lowest tier */
	if ((t = wd_mget(v, "highestTierAllowed"))) {
		int64_t x;
		if (wd_ival(c, t, "spec.networkTopology.highestTierAllowed",
			    1, 64, &x))
			return c->rc;
		g->vc_tier = (int)x;
	}
	g->vc_node = v;
	return 0;
}

int wd_dec_foreign_pg(dctx *c, const wt_node *o, const char *ns,
		      const char *name, const char *api)
{
	bool volcano = !strcmp(api, WD_API_VOLCANO);
	dgroup g = {0};
	g.api = api;
	if (wd_group_begin(c, o, ns, name, volcano ? "Volcano PodGroup"
						    : "coscheduling PodGroup",
			   &g))
		return c->rc;
	const wt_node *spec = g.spec, *v;
	g.sp.has_policy = true;
	g.sp.policy = WS_POLICY_GANG;
	g.sp.min_count = 1;
	if ((v = wd_mget(spec, "minMember"))) {
		int64_t x;
		if (wd_ival(c, v, "spec.minMember", 0, FOREIGN_MAX_MEMBERS, &x))
			return c->rc;
		g.sp.min_count = x > 1 ? (int)x : 1;
	}
	if (volcano) {
		if (wd_sfield(c, spec, "priorityClassName", "spec",
			      &g.sp.pcname, &g.sp.pcname_node))
			return c->rc;
		if (g.sp.pcname && !*g.sp.pcname)
			g.sp.pcname = NULL;
		if ((v = wd_mget(spec, "networkTopology")) &&
		    dec_network(c, v, &g))
			return c->rc;
		if ((v = wd_mget(spec, "minTaskMember")) && v->type == WT_MAP &&
		    v->n > 0 &&
		    wd_warn(c, "Volcano PodGroup %s/%s: minTaskMember "
			       "(per-task minimums) is not modelled; the "
			       "gang needs minMember %d pods of any task",
			    ns, name, g.sp.min_count))
			return c->rc;
	}
	g.prio_from_pods = !g.sp.pcname;
	if (WA_PUSH(c->t, c->groups, c->ngroups, c->capgroups, g))
		return wd_nomem(c);
	return 0;
}

/* The value of key in a string map (labels, annotations), or NULL. */
static int map_str(dctx *c, const wt_node *m, const char *key,
		   const char *path, const char **out, const wt_node **node)
{
	*out = NULL;
	if (!m)
		return 0;
	if (wd_want(c, m, WT_MAP, path))
		return c->rc;
	return wd_sfield(c, m, key, path, out, node);
}

int wd_foreign_member(dctx *c, const wt_node *meta, dpod *d)
{
	const char *name;
	const wt_node *n;
	if (d->gname || !meta)
		return 0; /* spec.schedulingGroup wins */
	if (map_str(c, wd_mget(meta, "labels"), COSCHED_LABEL,
		    "metadata.labels", &name, &n))
		return c->rc;
	if (name && *name) {
		d->gname = name;
		d->gname_node = n;
		d->gapi = WD_API_COSCHED;
		return wd_check_name(c, n, "metadata.labels." COSCHED_LABEL,
				     name);
	}
	if (map_str(c, wd_mget(meta, "annotations"), VOLCANO_ANNOTATION,
		    "metadata.annotations", &name, &n))
		return c->rc;
	if (name && *name) {
		d->gname = name;
		d->gname_node = n;
		d->gapi = WD_API_VOLCANO;
		return wd_check_name(c, n, "metadata.annotations."
				     VOLCANO_ANNOTATION, name);
	}
	return 0;
}

/* Volcano tiers count HyperNodes from the lowest (tier 1: nodes under
 * one leaf switch).  Without HyperNodes, wasp reads them as the levels
 * of the (first) Kueue Topology counted from the finest level above the
 * host: tier 1 the finest, tier 2 the next coarser, and so on; a tier
 * above the coarsest level constrains nothing. */
int wd_foreign_topology(dctx *c, dgroup *d)
{
	if (!d->vc_tier)
		return 0;
	if (!c->ntopos)
		return wd_warn(c, "Volcano PodGroup %s/%s: networkTopology "
				  "needs a Kueue Topology to map tiers to node "
				  "labels (doc/input.md); ignored",
			       d->ns, d->name);
	const ws_levels *lv = &c->topos[0];
	int top = lv->nlabels; /* levels above the host */
	if (top && !strcmp(lv->labels[top - 1], "kubernetes.io/hostname"))
		top--;
	if (d->vc_tier > top)
		return 0;
	const char *key = lv->labels[top - d->vc_tier];
	if (d->vc_hard) {
		d->sp.topo_key = key;
		d->sp.has_topo = true;
		d->sp.topo_node = d->vc_node;
		return 0;
	}
	if (!d->tas && !(d->tas = wa_calloc(c->a, 1, sizeof *d->tas)))
		return wd_nomem(c);
	d->tas->preferred = key;
	d->tas->src = wd_src_of(c, d->vc_node);
	return 0;
}
