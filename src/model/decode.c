/*
 * decode.c -- Kubernetes objects (document trees) -> ws_snapshot: the
 * driver.
 *
 * Two phases.  collect() walks the documents in input order, unwraps
 * Lists, refuses retired API versions (doc/input.md "Retired API versions
 * are refused"), skips unknown kinds with one warning per kind, detects
 * duplicates and dispatches each object to its decoder (decode_core.c,
 * decode_sched.c, decode_misc.c; DRA objects are kept for wdr_decode), so
 * structural errors are reported in input order.  Then decode_resolve.c
 * links what refers to what (PodGroup -> Workload template, priority
 * classes, trees), and the assembly here links pods to groups and nodes,
 * fixes the resource order (res[0] = "pods", then first use across nodes,
 * then pods) and builds the snapshot's arrays and indexes.
 *
 * Resources are interned with provisional indices while collecting (they
 * appear in input order, nodes and pods mixed) and renumbered at the end.
 * Intermediate records live in a temporary arena; everything the snapshot
 * keeps is copied into its own arena, so the trees may be freed afterwards.
 */

#include "model/decode_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dra.h"

/* ------------------------------------------------------------- collect */

enum kind {
	K_NODE, K_POD, K_PC, K_PG, K_WL, K_TOPO, K_CPG, K_DRA, K_PDB,
	K_FOREIGN, K_SKIP
};

static int skip_kind(dctx *c, const char *kind, const char *api,
		     const char *why)
{
	for (size_t i = 0; i < c->nskips; i++)
		if (!strcmp(c->skips[i].kind, kind) &&
		    !strcmp(c->skips[i].api, api)) {
			c->skips[i].count++;
			return 0;
		}
	dskip s = {wa_strdup(c->t, kind), wa_strdup(c->t, api), why, 1};
	if (!s.kind || !s.api ||
	    WA_PUSH(c->t, c->skips, c->nskips, c->capskips, s))
		return wd_nomem(c);
	return 0;
}

/* Retired scheduling.k8s.io versions: the message says what to write. */
static const char *refusal(const char *group, const char *ver,
			   const char *kind)
{
	if (strcmp(group, "scheduling.k8s.io"))
		return NULL;
	bool pg = !strcmp(kind, "PodGroup"), wl = !strcmp(kind, "Workload");
	if (!pg && !wl)
		return NULL;
	if (!strcmp(ver, "v1alpha2"))
		return pg ? "scheduling.k8s.io/v1alpha2 PodGroup is no longer "
			    "served; rewrite it as scheduling.k8s.io/v1beta1: "
			    "podGroupTemplateRef.workload{workloadName,"
			    "podGroupTemplateName} -> workloadRef{"
			    "workloadName,templateName}, disruptionMode: "
			    "Pod|PodGroup -> {single: {}}|{all: {}}"
			  : "scheduling.k8s.io/v1alpha2 Workload is no longer "
			    "served; rewrite it as scheduling.k8s.io/v1beta1: "
			    "podGroupTemplates[].disruptionMode: Pod|PodGroup "
			    "-> {single: {}}|{all: {}}";
	if (!strcmp(ver, "v1alpha1"))
		return wl ? "scheduling.k8s.io/v1alpha1 Workload is no longer "
			    "served; rewrite it as scheduling.k8s.io/v1beta1: "
			    "spec.podGroups[]{name, policy} -> "
			    "spec.podGroupTemplates[]{name, schedulingPolicy}"
			    ", plus one PodGroup per group (workloadRef{"
			    "workloadName,templateName}); pods name it in "
			    "spec.schedulingGroup.podGroupName instead of "
			    "spec.workloadRef"
			  : "scheduling.k8s.io/v1alpha1 has no PodGroup; write "
			    "it as scheduling.k8s.io/v1beta1 PodGroup";
	return NULL;
}

static bool is_dra_kind(const char *group, const char *kind)
{
	return !strcmp(group, "resource.k8s.io") &&
	       (!strcmp(kind, "ResourceSlice") ||
		!strcmp(kind, "DeviceClass") ||
		!strcmp(kind, "ResourceClaim") ||
		!strcmp(kind, "ResourceClaimTemplate") ||
		!strcmp(kind, "DeviceTaintRule"));
}

static bool ends_with(const char *s, const char *t)
{
	size_t n = strlen(s), m = strlen(t);
	return n >= m && !strcmp(s + n - m, t);
}

static int collect(dctx *c, const wt_node *o, int depth)
{
	if (o->type == WT_NULL)
		return 0; /* an empty document */
	if (o->type != WT_MAP)
		return wd_bad(c, o, "", "expected a Kubernetes object (a map "
			      "with apiVersion and kind), got %s",
			      wt_type_phrase(o->type));
	const wt_node *kn = wd_mget(o, "kind"), *an = wd_mget(o, "apiVersion");
	const char *kind, *api;
	if (!kn)
		return wd_bad(c, o, "", "object has no kind");
	if (wd_sval(c, kn, "kind", &kind))
		return c->rc;
	const wt_node *items = wd_mget(o, "items");
	if (!strcmp(kind, "List") || (ends_with(kind, "List") &&
				      wd_mkey(o, "items"))) {
		if (depth >= LIST_DEPTH)
			return wd_bad(c, kn, "kind", "a %s nested in a List is "
				      "not supported", kind);
		if (!items)
			return 0;
		if (wd_want(c, items, WT_SEQ, "items"))
			return c->rc;
		for (size_t i = 0; i < items->n; i++) {
			int rc = collect(c, items->items[i], depth + 1);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (!*kind)
		return wd_bad(c, kn, "kind", "must not be empty");
	if (!an)
		return wd_bad(c, o, "", "%s object has no apiVersion", kind);
	if (wd_sval(c, an, "apiVersion", &api))
		return c->rc;
	if ((c->npolled++ & WD_POLL_EVERY) == 0 && c->lim &&
	    (c->rc = wl_stop(c->lim, c->err, o->src)))
		return c->rc;
	if (++c->nobjects > WASP_MAX_OBJECTS)
		return c->rc = werr_at(c->err, WASP_ELIMIT, o->src,
				       "more than %ld objects",
				       (long)WASP_MAX_OBJECTS);

	char group[PATHMAX];
	const char *slash = strchr(api, '/'), *ver = slash ? slash + 1 : api;
	snprintf(group, sizeof group, "%.*s",
		 slash ? (int)(slash - api) : 0, api);
	const char *ref = refusal(group, ver, kind);
	if (ref)
		return wd_bad(c, an, "", "%s", ref);

	enum kind k = K_SKIP;
	const char *why = "not used by wasp";
	if (!*group && !strcmp(ver, "v1") && !strcmp(kind, "Node"))
		k = K_NODE;
	else if (!*group && !strcmp(ver, "v1") && !strcmp(kind, "Pod"))
		k = K_POD;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "PriorityClass"))
		k = K_PC;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "PodGroup"))
		k = K_PG;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "Workload"))
		k = K_WL;
	else if (!strcmp(group, "kueue.x-k8s.io") &&
		 !strcmp(kind, "Topology"))
		k = K_TOPO;
	else if (!strcmp(group, "policy") && !strcmp(ver, "v1") &&
		 !strcmp(kind, "PodDisruptionBudget"))
		k = K_PDB;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "CompositePodGroup"))
		k = K_CPG;
	else if (!strcmp(kind, "PodGroup") &&
		 ((!strcmp(group, WD_API_COSCHED) && !strcmp(ver, "v1alpha1")) ||
		  (!strcmp(group, WD_API_VOLCANO) && !strcmp(ver, "v1beta1"))))
		k = K_FOREIGN;
	else if (is_dra_kind(group, kind) &&
		 (!strcmp(ver, "v1") || !strcmp(ver, "v1beta2") ||
		  !strcmp(ver, "v1beta1") || !strcmp(ver, "v1alpha3")))
		k = K_DRA;
	else if (is_dra_kind(group, kind))
		why = "not yet supported";
	else if (!*group && !strcmp(ver, "v1") && !strcmp(kind, "Namespace"))
		k = K_DRA; /* labels for DRA adminAccess (doc/dra.md) */

	const wt_node *meta = wd_mget(o, "metadata"), *nn = NULL, *nsn = NULL;
	if (meta && wd_want(c, meta, WT_MAP, "metadata"))
		return c->rc;
	const char *name = NULL, *ns = NULL;
	if ((nn = wd_mget(meta, "name")) &&
	    wd_sval(c, nn, "metadata.name", &name))
		return c->rc;
	if (k == K_SKIP && !name && wd_mget(meta, "generateName"))
		name = "";
	if (!name)
		return wd_bad(c, o, "", "%s object has no metadata.name", kind);
	if (k == K_SKIP)
		return skip_kind(c, kind, api, why);
	if (wd_check_name(c, nn, "metadata.name", name))
		return c->rc;

	bool namespaced = k == K_POD || k == K_PG || k == K_WL || k == K_CPG ||
			  k == K_PDB || k == K_FOREIGN ||
			  (k == K_DRA && !strncmp(kind, "ResourceClaim", 13));
	if (namespaced) {
		ns = "default";
		if ((nsn = wd_mget(meta, "namespace"))) {
			if (wd_sval(c, nsn, "metadata.namespace", &ns))
				return c->rc;
			if (!*ns)
				ns = "default";
			else if (wd_check_name(c, nsn, "metadata.namespace",
					       ns))
				return c->rc;
		}
	}
	/* PodGroups of other API groups are other kinds */
	const char *dkind = k == K_FOREIGN ? wa_printf(c->t, "%s.%s", kind,
						       group)
					   : kind;
	if (!dkind)
		return wd_nomem(c);
	if (wd_dup_check(c, dkind, ns, name, nn))
		return c->rc;

	switch (k) {
	case K_NODE: return wd_dec_node(c, o, name, meta);
	case K_POD: return wd_dec_pod(c, o, ns, name);
	case K_PC: return wd_dec_pc(c, o, name);
	case K_PG: return wd_dec_podgroup(c, o, ns, name, false);
	case K_CPG: return wd_dec_podgroup(c, o, ns, name, true);
	case K_WL: return wd_dec_workload(c, o, ns, name);
	case K_TOPO: return wd_dec_topology(c, o, name);
	case K_PDB: return wd_dec_pdb(c, o, ns, name);
	case K_FOREIGN:
		return wd_dec_foreign_pg(c, o, ns, name,
					 !strcmp(group, WD_API_COSCHED)
					     ? WD_API_COSCHED
					     : WD_API_VOLCANO);
	case K_DRA:
		if (WA_PUSH(c->t, c->draobjs, c->ndraobjs, c->capdraobjs, o))
			return wd_nomem(c);
		return 0;
	case K_SKIP: break;
	}
	return 0;
}

/* ------------------------------------------------------------ assemble */

/* Pods -> groups (placeholders for missing ones), priorities, nodes. */
static int link_pods(dctx *c)
{
	ws_group *groups = c->out_groups;
	for (size_t i = 0; i < c->npods; i++) {
		dpod *d = &c->pods[i];
		ws_pod *p = &d->p;
		c->ndra += d->dra;
		c->nwref += d->workload_ref;
		if (p->terminal)
			continue;
		int gi = -1;
		if (d->gname) {
			const char *key = wd_group_key(c, p->ns, d->gname,
						       d->gapi);
			if (!key)
				return wd_nomem(c);
			gi = ws_map_get(c->gidx, key);
			if (gi < 0) {
				/* A placeholder: its pods wait. */
				ws_group *g = &groups[c->nout_groups];
				g->ns = p->ns;
				g->name = wa_strdup(c->a, d->gname);
				g->src = wd_src_of(c, d->gname_node);
				g->policy = WS_POLICY_BASIC;
				g->min_count = 1;
				g->invalid = wa_printf(c->a, "PodGroup %s/%s "
						       "does not exist",
						       p->ns, d->gname);
				const char *k = wa_strdup(c->t, key);
				if (!g->name || !g->invalid || !k ||
				    ws_map_put(c->gidx, k,
					       (int)c->nout_groups) == -2)
					return wd_nomem(c);
				gi = (int)c->nout_groups++;
			}
			p->group = gi;
		}
		bool own = d->has_prio || d->pcname;
		bool placeholder = gi >= (int)c->ngroups;
		/* coscheduling and Volcano groups without a class take
		 * their pods' priority (decode_foreign.c) */
		bool inherit = placeholder ||
			       (gi >= 0 && c->groups[gi].prio_from_pods);
		if (gi >= 0 && !own && !inherit) {
			p->priority = groups[gi].priority;
			p->preempt = d->has_preempt ? d->preempt
						    : groups[gi].preempt;
		} else if (wd_resolve_prio(c, d->has_prio, d->prio, d->pcname,
					   d->pcname_node,
					   "spec.priorityClassName",
					   d->has_preempt, d->preempt,
					   &p->priority, &p->preempt)) {
			return c->rc;
		}
		if (gi >= 0) {
			ws_group *g = &groups[gi];
			gacc *ga = &c->acc[gi];
			if (inherit && ga->n == 0) {
				/* it takes its first pod's priority */
				g->priority = p->priority;
				g->preempt = p->preempt;
			} else if (placeholder) {
				/* its pods wait anyway */
			} else if (!g->invalid && p->priority != g->priority) {
				g->invalid = wa_printf(
				    c->a, "pods disagree with the PodGroup on "
				    "priority (%d vs %d)", (int)p->priority,
				    (int)g->priority);
			} else if (!g->invalid && p->preempt != g->preempt) {
				g->invalid = wa_printf(
				    c->a, "pods disagree with the PodGroup on "
				    "preemptionPolicy (%s vs %s)",
				    wd_preempt_name(p->preempt),
				    wd_preempt_name(g->preempt));
			}
			if (WA_PUSH(c->t, ga->pods, ga->n, ga->cap, (int)i))
				return wd_nomem(c);
		}
		if (p->node_name) {
			p->node = ws_map_get(c->nidx, p->node_name);
			if (p->node < 0 && !c->nlost++)
				c->first_lost = d;
		}
	}
	return 0;
}

/* Final resource numbers: "pods", then first use over nodes, then pods. */
static int number_resources(dctx *c)
{
	ws_snapshot *s = c->s;
	int *final = wa_calloc(c->t, c->nres, sizeof *final);
	if (!final)
		return wd_nomem(c);
	for (size_t r = 1; r < c->nres; r++)
		final[r] = -1;
	int nres = 1;
	for (size_t i = 0; i < c->nnodes; i++)
		for (size_t k = 0; k < c->nodes[i].alloc.n; k++)
			if (final[c->nodes[i].alloc.q[k].r] < 0)
				final[c->nodes[i].alloc.q[k].r] = nres++;
	for (size_t i = 0; i < c->npods; i++)
		for (size_t k = 0; k < c->pods[i].req.n; k++)
			if (final[c->pods[i].req.q[k].r] < 0)
				final[c->pods[i].req.q[k].r] = nres++;
	for (size_t r = 0; r < c->nres; r++)
		if (final[r] < 0)
			final[r] = nres++;
	s->nres = nres;
	s->res = wa_calloc(c->a, (size_t)nres, sizeof *s->res);
	if (!s->res)
		return wd_nomem(c);
	for (size_t r = 0; r < c->nres; r++)
		s->res[final[r]] = c->rnames[r];
	c->final = final;
	return 0;
}

static int build_nodes(dctx *c)
{
	ws_snapshot *s = c->s;
	s->nodes = wa_calloc(c->a, c->nnodes + 1, sizeof *s->nodes);
	if (!s->nodes)
		return wd_nomem(c);
	for (size_t i = 0; i < c->nnodes; i++) {
		ws_node *n = &s->nodes[i];
		*n = c->nodes[i].n;
		n->alloc = wa_calloc(c->a, (size_t)s->nres, sizeof *n->alloc);
		n->used = wa_calloc(c->a, (size_t)s->nres, sizeof *n->used);
		if (!n->alloc || !n->used)
			return wd_nomem(c);
		bool haspods = false;
		for (size_t k = 0; k < c->nodes[i].alloc.n; k++) {
			int r = c->final[c->nodes[i].alloc.q[k].r];
			n->alloc[r] = c->nodes[i].alloc.q[k].v;
			haspods |= r == WS_RES_PODS;
		}
		if (!haspods && !c->nopods++)
			c->first_nopods = n->name;
	}
	s->nnodes = (int)c->nnodes;
	return 0;
}

/* Pods, and what the bound ones use on their nodes. */
static int build_pods(dctx *c)
{
	ws_snapshot *s = c->s;
	int nres = s->nres;
	s->pods = wa_calloc(c->a, c->npods + 1, sizeof *s->pods);
	if (!s->pods)
		return wd_nomem(c);
	for (size_t i = 0; i < c->npods; i++) {
		ws_pod *p = &s->pods[i];
		*p = c->pods[i].p;
		p->req = wa_calloc(c->a, (size_t)nres, sizeof *p->req);
		if (!p->req)
			return wd_nomem(c);
		for (size_t k = 0; k < c->pods[i].req.n; k++)
			p->req[c->final[c->pods[i].req.q[k].r]] =
			    c->pods[i].req.q[k].v;
		p->req[WS_RES_PODS] = 1000;
		if (p->node < 0 || p->terminal)
			continue;
		ws_node *n = &s->nodes[p->node];
		for (int r = 0; r < nres; r++)
			if (__builtin_add_overflow(n->used[r], p->req[r],
						   &n->used[r]))
				return c->rc = werr_at(
					   c->err, WASP_EINPUT, p->src,
					   "requests of the pods bound to "
					   "node %s overflow", n->name);
	}
	s->npods = (int)c->npods;
	return 0;
}

static int build_rest(dctx *c)
{
	ws_snapshot *s = c->s;
	ws_group *groups = c->out_groups;
	for (size_t i = 0; i < c->nout_groups; i++) {
		groups[i].npods = (int)c->acc[i].n;
		if (!c->acc[i].n)
			continue;
		groups[i].pods = wa_calloc(c->a, c->acc[i].n, sizeof(int));
		if (!groups[i].pods)
			return wd_nomem(c);
		memcpy(groups[i].pods, c->acc[i].pods,
		       c->acc[i].n * sizeof(int));
	}
	s->groups = groups;
	s->ngroups = (int)c->nout_groups;

	s->pcs = wa_calloc(c->a, c->npcs + 1, sizeof *s->pcs);
	s->topologies = wa_calloc(c->a, c->ntopos + 1, sizeof *s->topologies);
	if (!s->pcs || !s->topologies)
		return wd_nomem(c);
	if (c->npcs)
		memcpy(s->pcs, c->pcs, c->npcs * sizeof *s->pcs);
	s->npcs = (int)c->npcs;
	if (c->ntopos)
		memcpy(s->topologies, c->topos,
		       c->ntopos * sizeof *s->topologies);
	s->ntopologies = (int)c->ntopos;
	return 0;
}

/* The warnings gathered while assembling, in a fixed order, then the
 * skipped kinds; all copied into the snapshot. */
static int final_warnings(dctx *c)
{
	ws_snapshot *s = c->s;
	size_t nmissing = c->nout_groups - c->ngroups;
	for (size_t i = c->ngroups, shown = 0; i < c->nout_groups; i++) {
		const ws_group *g = &c->out_groups[i];
		if (shown++ == MAX_WARN_ITEMS) {
			if (wd_warn(c, "... and %zu more missing PodGroups",
				    nmissing - MAX_WARN_ITEMS))
				return c->rc;
			break;
		}
		if (wd_warn(c, "PodGroup %s/%s does not exist; its %zu %s",
			    g->ns, g->name, c->acc[i].n,
			    wd_plural(c->acc[i].n, "pod waits", "pods wait")))
			return c->rc;
	}
	if (c->nlost &&
	    wd_warn(c, "%zu %s bound to nodes missing from the snapshot "
		    "(first: %s/%s on %s); their requests are not counted",
		    c->nlost, wd_plural(c->nlost, "pod is", "pods are"),
		    c->first_lost->p.ns, c->first_lost->p.name,
		    c->first_lost->p.node_name))
		return c->rc;
	if (c->nopods &&
	    wd_warn(c, "%zu %s no allocatable pods (first: %s), so %s no pods",
		    c->nopods, wd_plural(c->nopods, "node lists", "nodes list"),
		    c->first_nopods,
		    wd_plural(c->nopods, "it takes", "they take")))
		return c->rc;
	if (c->nwref &&
	    wd_warn(c, "%zu %s spec.workloadRef (Kubernetes 1.35), which wasp "
		    "ignores; use spec.schedulingGroup.podGroupName", c->nwref,
		    wd_plural(c->nwref, "pod uses", "pods use")))
		return c->rc;
	for (size_t i = 0; i < c->nskips; i++)
		if (wd_warn(c, "skipped %d %s of kind %s (%s): %s",
			    c->skips[i].count,
			    wd_plural((size_t)c->skips[i].count, "object",
				      "objects"),
			    c->skips[i].kind, c->skips[i].api, c->skips[i].why))
			return c->rc;
	if (c->nwarns) {
		s->warnings = wa_calloc(c->a, c->nwarns, sizeof *s->warnings);
		if (!s->warnings)
			return wd_nomem(c);
		memcpy(s->warnings, c->warns, c->nwarns * sizeof(char *));
	}
	s->nwarnings = (int)c->nwarns;
	return 0;
}

static int name_maps(dctx *c)
{
	c->gidx = ws_map_new(c->t);
	c->nidx = ws_map_new(c->t);
	if (!c->gidx || !c->nidx)
		return wd_nomem(c);
	for (size_t i = 0; i < c->ngroups; i++) {
		const ws_group *g = &c->out_groups[i];
		const char *k = wd_group_key(c, g->ns, g->name,
					     c->groups[i].api);
		if (!k || ws_map_put(c->gidx, k, (int)i) == -2)
			return wd_nomem(c);
	}
	for (size_t i = 0; i < c->nnodes; i++)
		if (ws_map_put(c->nidx, c->nodes[i].n.name, (int)i) == -2)
			return wd_nomem(c);
	return 0;
}

/* Hand the DRA objects and claim lists to dra.c (the trees are still
 * alive here). */
static int decode_dra(dctx *c)
{
	wdr_input in = {0};
	in.objs = c->draobjs;
	in.nobjs = c->ndraobjs;
	in.pod_claims = wa_calloc(c->t, c->npods + 1, sizeof(wt_node *));
	in.group_claims = wa_calloc(c->t, c->nout_groups + 1,
				    sizeof(wt_node *));
	if (!in.pod_claims || !in.group_claims)
		return wd_nomem(c);
	in.pod_claim_status = wa_calloc(c->t, c->npods + 1,
					sizeof(wt_node *));
	if (!in.pod_claim_status)
		return wd_nomem(c);
	for (size_t i = 0; i < c->npods; i++) {
		in.pod_claims[i] = c->pods[i].claims_node;
		in.pod_claim_status[i] = c->pods[i].claim_status;
	}
	for (size_t i = 0; i < c->ngroups; i++)
		in.group_claims[i] = c->groups[i].sp.claims_node;
	return c->rc = wdr_decode(c->s, &in, c->err);
}

/* Between the assembly steps: the load's deadline or cancel (no
 * position: every object was read). */
static int stopped(dctx *c)
{
	return c->lim ? c->rc = wl_stop(c->lim, c->err, (wsrc){NULL, 0, 0})
		      : 0;
}

static int decode_all(dctx *c, const wt_doc *docs, size_t ndocs)
{
	int r0;
	c->s = wa_alloc(c->a, sizeof *c->s);
	c->objs = ws_map_new(c->t);
	c->res = ws_map_new(c->t);
	c->wl_idx = ws_map_new(c->t);
	if (!c->s || !c->objs || !c->res || !c->wl_idx)
		return wd_nomem(c);
	c->s->arena = c->a;
	if (wd_intern_res(c, "pods", &r0))
		return c->rc;

	for (size_t d = 0; d < ndocs; d++)
		for (size_t i = 0; i < docs[d].nroots; i++)
			if (collect(c, docs[d].roots[i], 0))
				return c->rc;

	if (stopped(c) || wd_resolve_pcs(c))
		return c->rc;
	/* room for one placeholder group per pod at most */
	size_t cap = c->ngroups + c->npods + 1;
	c->out_groups = wa_calloc(c->a, cap, sizeof *c->out_groups);
	c->acc = wa_calloc(c->t, cap, sizeof *c->acc);
	if (!c->out_groups || !c->acc)
		return wd_nomem(c);
	c->nout_groups = c->ngroups;
	if (wd_resolve_groups(c, c->out_groups) || name_maps(c) ||
	    link_pods(c) || number_resources(c) || stopped(c) ||
	    build_nodes(c) || build_pods(c) || build_rest(c) ||
	    final_warnings(c) || stopped(c))
		return c->rc;
	c->s->pdbs = c->pdbs;
	c->s->npdbs = (int)c->npdbs;
	if (ws_snapshot_index(c->s))
		return wd_nomem(c);
	return stopped(c) || decode_dra(c) || stopped(c) ? c->rc : 0;
}

int wd_decode(const wt_doc *docs, size_t ndocs, ws_snapshot **out,
	      wasp_error *err)
{
	return wd_decode_lim(docs, ndocs, NULL, out, err);
}

int wd_decode_lim(const wt_doc *docs, size_t ndocs, const wl_limits *lim,
		  ws_snapshot **out, wasp_error *err)
{
	if (!out)
		return werr(err, WASP_EINVAL, "wd_decode: no output");
	*out = NULL;
	if (!docs && ndocs)
		return werr(err, WASP_EINVAL, "wd_decode: no documents");
	dctx c0 = {0}, *c = &c0;
	c->err = err;
	c->lim = lim;
	c->a = wa_new();
	c->t = wa_new();
	int rc = c->a && c->t ? decode_all(c, docs, ndocs) : wd_nomem(c);
	wa_destroy(c->t);
	if (rc) {
		wa_destroy(c->a);
		return rc;
	}
	*out = c->s;
	return WASP_OK;
}
