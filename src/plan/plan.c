/*
 * plan.c -- turning a solver's counts back into pods and nodes.
 *
 * Solvers speak in classes: x[c.off + k] pods of class c on node c.elig[k].
 * Pods of a class are interchangeable, so the class's pods are dealt out in
 * order: pods[0..] fill elig[0] first, then elig[1], and so on.  Every name
 * is copied into the plan's own arena so the plan outlives the snapshot.
 *
 * Waiting entries: one per group that is not admitted (kind PodGroup), and
 * one per unplaced lone pod (kind Pod).  An admitted gang whose extra pods
 * above minCount did not fit gets no waiting entry; its admitted entry
 * shows how many pods were placed.
 */
#include "plan/plan.h"
#include "reduce/units.h"
#include "model/dra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wasp_plan *wpl_new(void)
{
	wa_arena *a = wa_new();
	if (!a)
		return NULL;
	wasp_plan *p = wa_alloc(a, sizeof *p);
	if (!p) {
		wa_destroy(a);
		return NULL;
	}
	p->arena = a;
	p->sum.mode = "greedy";
	p->sum.status = "empty";
	p->sum.domain_mode = "value";
	p->sum.value = "pods";
	p->sum.objective = NAN;
	p->sum.bound = NAN;
	p->sum.gap = NAN;
	return p;
}

static int cmp_place(const void *va, const void *vb)
{
	const wpl_place *a = va, *b = vb;
	int c = strcmp(a->ns, b->ns);
	return c ? c : strcmp(a->pod, b->pod);
}

static int cmp_wait(const void *va, const void *vb)
{
	const wpl_wait *a = va, *b = vb;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	int c = strcmp(a->ns, b->ns);
	if (c)
		return c;
	c = strcmp(a->group, b->group);
	return c ? c : strcmp(a->kind, b->kind);
}

static int cmp_evict(const void *va, const void *vb)
{
	const wpl_evict *a = va, *b = vb;
	int c = strcmp(a->ns, b->ns);
	return c ? c : strcmp(a->pod, b->pod);
}

/* The evictions of the solution, each with the group that causes it. */
static int add_evictions(const wp_problem *p, const wp_sol *sol,
			 wasp_plan *pl, int64_t *placed)
{
	const ws_snapshot *s = p->snap;
	wa_arena *a = pl->arena;
	int n = 0;
	for (int u = 0; sol->evict && u < p->nunits; u++)
		if (sol->evict[u])
			n += p->units[u].npods;
	if (!n)
		return 0;
	pl->evict = wa_calloc(a, (size_t)n, sizeof *pl->evict);
	if (!pl->evict)
		return -1;
	for (int u = 0; u < p->nunits; u++) {
		if (!sol->evict[u])
			continue;
		const wp_unit *un = &p->units[u];
		const wp_group *by = &p->groups[sol->evict_by[u]];
		const char *bkind = "PodGroup", *bns, *bname;
		if (by->sg >= 0) {
			bns = s->groups[by->sg].ns;
			bname = s->groups[by->sg].name;
		} else {
			/* lone pods: name the first one placed */
			const ws_pod *first = NULL;
			for (int ci = 0; ci < by->nclasses && !first; ci++) {
				const wp_class *c = &p->classes[by->classes[ci]];
				WP_X_EACH(sol, c, sl)
					if (!first && wp_x(sol, sl) > 0)
						first = &s->pods[c->pods[0]];
			}
			if (!first)
				first = &s->pods[p->classes[by->classes[0]]
						     .pods[0]];
			bkind = "Pod";
			bns = first->ns;
			bname = first->name;
		}
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &s->pods[un->pods[i]];
			wpl_evict e = {
			    .ns = wa_strdup(a, pod->ns),
			    .pod = wa_strdup(a, pod->name),
			    .node = wa_strdup(a, s->nodes[pod->node].name),
			    .unit = un->all ? wa_strdup(a,
						s->groups[un->sg].name) : NULL,
			    .priority = un->priority,
			    .by_kind = bkind,
			    .by_ns = wa_strdup(a, bns),
			    .by = wa_strdup(a, bname),
			    .by_priority = by->priority};
			if (!e.ns || !e.pod || !e.node || !e.by_ns || !e.by ||
			    (un->all && !e.unit))
				return -1;
			pl->evict[pl->nevict++] = e;
			int64_t *row = &placed[(size_t)pod->node * s->nres];
			for (int r = 0; r < s->nres; r++)
				row[r] -= pod->req[r];
		}
	}
	pl->sum.evicted_pods = pl->nevict;
	if (pl->nevict > 1)
		qsort(pl->evict, pl->nevict, sizeof *pl->evict, cmp_evict);
	/* budgets: the evicted pods each selects beyond what it allows are
	 * flagged, in plan order */
	for (int j = 0; j < s->npdbs; j++) {
		const ws_pdb *bd = &s->pdbs[j];
		int left = p->pdb_allowed[j];
		for (int i = 0; i < pl->nevict; i++) {
			int pi = ws_pod_index(s, pl->evict[i].ns,
					      pl->evict[i].pod);
			if (pi < 0 || !wpe_pdb_selects(bd, &s->pods[pi]))
				continue;
			if (left-- > 0)
				continue;
			pl->evict[i].pdb_violation = true;
			pl->pdb_violations++;
		}
	}
	return 0;
}

/* The solution's moves (moves that admit work or avoid evictions;
 * doc/preemption.md "Rebalancing"), in snapshot pod order; the
 * rebalancing post-pass appends its own after them. */
static int add_moves(const wp_problem *p, const wp_sol *sol, wasp_plan *pl,
		     int64_t *placed)
{
	const ws_snapshot *s = p->snap;
	wa_arena *a = pl->arena;
	int n = wp_moves(p, sol);
	if (!n)
		return 0;
	pl->move = wa_calloc(a, (size_t)n, sizeof *pl->move);
	if (!pl->move)
		return -1;
	for (int i = 0; i < s->npods; i++) {
		int to = sol->move_to[i];
		if (to < 0)
			continue;
		const ws_pod *pod = &s->pods[i];
		const ws_group *g = pod->group >= 0 ? &s->groups[pod->group]
						    : NULL;
		wpl_move mv = {.ns = wa_strdup(a, pod->ns),
			       .pod = wa_strdup(a, pod->name),
			       .from = wa_strdup(a, s->nodes[pod->node].name),
			       .to = wa_strdup(a, s->nodes[to].name),
			       .group = g ? wa_strdup(a, g->name) : NULL};
		if (!mv.ns || !mv.pod || !mv.from || !mv.to || (g && !mv.group))
			return -1;
		pl->move[pl->nmove++] = mv;
		for (int r = 0; r < s->nres; r++) {
			placed[(size_t)pod->node * s->nres + r] -= pod->req[r];
			placed[(size_t)to * s->nres + r] += pod->req[r];
		}
	}
	pl->sum.moved_pods = pl->nmove;
	return 0;
}

static int cmp_admit(const void *va, const void *vb)
{
	const wpl_admit *a = va, *b = vb;
	int c = strcmp(a->ns, b->ns);
	return c ? c : strcmp(a->group, b->group);
}

/* Utilisation and whole free nodes, over schedulable nodes only (the rest
 * can take no pods, so their capacity would only dilute the figures). */
static int fill_usage(const wp_problem *p, wasp_plan *pl,
		      const int64_t *placed, const unsigned char *got)
{
	const ws_snapshot *s = p->snap;
	wpl_summary *sum = &pl->sum;
	sum->util = wa_calloc(pl->arena, s->nres ? s->nres : 1,
			      sizeof *sum->util);
	if (!sum->util)
		return -1;
	sum->nutil = s->nres;
	for (int r = 0; r < s->nres; r++) {
		wpl_util *u = &sum->util[r];
		u->resource = wa_strdup(pl->arena, s->res[r]);
		if (!u->resource)
			return -1;
		/* Sum in milli-units as integers, convert once. */
		long double al = 0, be = 0, af = 0;
		for (int n = 0; n < s->nnodes; n++) {
			const ws_node *nd = &s->nodes[n];
			if (!ws_node_schedulable(nd, NULL))
				continue;
			al += nd->alloc[r];
			be += nd->used[r];
			af += nd->used[r] + placed[(size_t)n * s->nres + r];
		}
		u->alloc = (double)(al / 1000);
		u->before = (double)(be / 1000);
		u->after = (double)(af / 1000);
	}
	for (int n = 0; n < s->nnodes; n++) {
		const ws_node *nd = &s->nodes[n];
		if (!ws_node_schedulable(nd, NULL))
			continue;
		bool empty = true, after = !got[n];
		for (int r = 0; r < s->nres; r++) {
			empty = empty && nd->used[r] == 0;
			/* evictions show as negative placed requests */
			after = after &&
				nd->used[r] + placed[(size_t)n * s->nres + r]
				    == 0;
		}
		sum->free_nodes_before += empty;
		sum->free_nodes_after += after;
	}
	return 0;
}

static const char *lone_reason(const wp_problem *p, const wp_sol *sol,
			       int g, const wp_class *c)
{
	if (sol->reason && sol->reason[g])
		return sol->reason[g];
	if (c->nelig == 0 && c->why_none)
		return c->why_none;
	if (p->groups[g].invalid)
		return p->groups[g].invalid;
	return "no eligible node has room for the pod";
}

/* Scratch shared by the helpers below. */
typedef struct build {
	const wp_problem *p;
	const wp_sol *sol;
	wasp_plan *pl;
	size_t cap_place, cap_wait;
	int64_t *placed;    /* nnodes * nres: requests the plan places */
	unsigned char *got; /* nnodes: the plan places something there */
	/* DRA: pod-claim allocations sorted by (class, node, order), and
	 * per class the next one to hand out */
	int *dord;
	int ndord;
	int *dcur;
	size_t cap_claims;
} build;

/* Claims of one allocation as a plan entry. */
static int add_claim(build *b, const wdr_alloc *al, const char *ns,
		     const char *name, const char *pod, const char *entry,
		     const char *group)
{
	const wdr_state *st = b->sol->dra;
	const ws_dra *d = st->d;
	wa_arena *a = b->pl->arena;
	wpl_claim c = {.ns = wa_strdup(a, ns), .name = wa_strdup(a, name),
		       .pod = pod ? wa_strdup(a, pod) : NULL,
		       .entry = entry ? wa_strdup(a, entry) : NULL,
		       .group = group ? wa_strdup(a, group) : NULL,
		       .node = wa_strdup(a, b->p->snap->nodes[al->node].name),
		       .nresults = al->n};
	c.results = wa_calloc(a, (size_t)al->n + 1, sizeof *c.results);
	if (!c.ns || !c.name || !c.node || !c.results)
		return -1;
	for (int i = 0; i < al->n; i++) {
		const wdr_result *r = &st->res[al->first + i];
		const wdr_device *dv = &d->devs[r->dev];
		wpl_result *x = &c.results[i];
		x->request = wa_strdup(a, d->subs[r->sub]->name);
		x->driver = wa_strdup(a, dv->cel.driver);
		x->pool = wa_strdup(a, d->slices[dv->slice].pool);
		x->device = wa_strdup(a, dv->name);
		x->admin = d->subs[r->sub]->admin;
		if (!x->request || !x->driver || !x->pool || !x->device)
			return -1;
	}
	return WA_PUSH(a, b->pl->claims, b->pl->nclaims, b->cap_claims, c);
}

/* The pod's own claims: the next allocations of its class on its node. */
static int pod_claims(build *b, const wp_class *c, int ci, int node,
		      const ws_pod *pod, int pi)
{
	const wdr_state *st = b->sol->dra;
	const wdr_podc *pc = &st->d->pods[pi];
	for (int k = 0; k < pc->n; k++) {
		if (pc->c[k].inst >= 0)
			continue;
		int j = b->dcur[ci];
		if (j >= b->ndord)
			return 0; /* the verifier reports the missing claim */
		const wdr_alloc *al = &st->allocs[b->dord[j]];
		if (al->cls != ci || al->node != node)
			return 0;
		b->dcur[ci]++;
		char name[2 * WASP_MAX_NAME + 2];
		snprintf(name, sizeof name, "%s-%s", pod->name, pc->c[k].name);
		if (add_claim(b, al, pod->ns, name, pod->name, pc->c[k].name,
			      NULL))
			return -1;
	}
	(void)c;
	return 0;
}

typedef struct dkey {
	int cls, node, i;
} dkey;

static int cmp_dord(const void *va, const void *vb)
{
	const dkey *a = va, *b = vb;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int cmp_claim(const void *va, const void *vb)
{
	const wpl_claim *a = va, *b = vb;
	int c = strcmp(a->ns, b->ns);
	return c ? c : strcmp(a->name, b->name);
}

/* Deal the pods of class c out over its nodes; returns the count placed
 * (the next pod of the class to deal) or -1 on NOMEM.  *first_node gets
 * the first node used, if it is still -1. */
static int deal_class(build *b, const wp_class *c, const ws_group *sg,
		      int *first_node)
{
	const ws_snapshot *s = b->p->snap;
	wa_arena *a = b->pl->arena;
	int next = 0;
	/* most slots are zero: walk the placed ones */
	WP_X_EACH(b->sol, c, sl) {
		if (next >= c->count)
			break;
		int node = c->elig[sl - c->off];
		int cnt = wp_x(b->sol, sl);
		for (int j = 0; j < cnt && next < c->count; j++) {
			const ws_pod *pod = &s->pods[c->pods[next++]];
			wpl_place pp = {
			    .ns = wa_strdup(a, pod->ns),
			    .pod = wa_strdup(a, pod->name),
			    .node = wa_strdup(a, s->nodes[node].name),
			    .group = sg ? wa_strdup(a, sg->name) : NULL};
			if (!pp.ns || !pp.pod || !pp.node || (sg && !pp.group) ||
			    WA_PUSH(a, b->pl->place, b->pl->nplace,
				    b->cap_place, pp))
				return -1;
			int64_t *row = &b->placed[(size_t)node * s->nres];
			for (int r = 0; r < s->nres; r++)
				row[r] += pod->req[r];
			if (b->dcur && pod_claims(b, c, (int)(c - b->p->classes),
						  node, pod, c->pods[next - 1]))
				return -1;
			b->got[node] = 1;
			if (*first_node < 0)
				*first_node = node;
		}
	}
	return next;
}

/* One waiting entry per lone pod of class c from pods[from] on. */
static int wait_lone(build *b, int g, const wp_class *c, int from)
{
	const ws_snapshot *s = b->p->snap;
	wa_arena *a = b->pl->arena;
	for (int i = from; i < c->count; i++) {
		const ws_pod *pod = &s->pods[c->pods[i]];
		wpl_wait w = {
		    .ns = wa_strdup(a, pod->ns),
		    .group = wa_strdup(a, pod->name),
		    .kind = "Pod",
		    .pods = 1,
		    .priority = pod->priority,
		    .reason = wa_strdup(a, lone_reason(b->p, b->sol, g, c))};
		if (!w.ns || !w.group || !w.reason ||
		    WA_PUSH(a, b->pl->wait, b->pl->nwait, b->cap_wait, w))
			return -1;
	}
	return 0;
}

/* The admitted entry of group g, or its waiting entry. */
static int group_entry(build *b, int g, int nplaced, int first_node)
{
	const wp_problem *p = b->p;
	const wp_group *wg = &p->groups[g];
	const ws_group *sg = &p->snap->groups[wg->sg];
	wasp_plan *pl = b->pl;
	wa_arena *a = pl->arena;
	if (b->sol->admit[g]) {
		wpl_admit ad = {.ns = wa_strdup(a, sg->ns),
				.group = wa_strdup(a, sg->name),
				.pods = nplaced,
				.pending = wg->size,
				.running = wg->nbound,
				.priority = wg->priority};
		if (!ad.ns || !ad.group)
			return -1;
		if (wg->key >= 0 && p->topo) {
			const wtp_key *tk = &p->topo->keys[wg->key];
			int d = first_node >= 0 ? tk->node_dom[first_node]
						: wg->fixed_dom;
			if (!(ad.key = wa_strdup(a, tk->label)))
				return -1;
			if (d >= 0 &&
			    !(ad.domain = wa_strdup(a, tk->dom_name[d])))
				return -1;
		}
		pl->admit[pl->nadmit++] = ad;
		return 0;
	}
	if (wg->size == 0)
		return 0;
	const char *why = b->sol->reason && b->sol->reason[g]
			      ? b->sol->reason[g]
			  : wg->invalid ? wg->invalid
					: "not placed";
	wpl_wait w = {.ns = wa_strdup(a, sg->ns),
		      .group = wa_strdup(a, sg->name),
		      .kind = "PodGroup",
		      .pods = wg->size,
		      .priority = wg->priority,
		      .reason = wa_strdup(a, why)};
	if (!w.ns || !w.group || !w.reason ||
	    WA_PUSH(a, pl->wait, pl->nwait, b->cap_wait, w))
		return -1;
	return 0;
}

int wpl_from_sol(const wp_problem *p, const wp_sol *sol, wasp_plan **out,
		 wasp_error *err)
{
	const ws_snapshot *s = p->snap;
	if (sol->nomem)
		return werr(err, WASP_ENOMEM,
			    "out of memory storing the solution");
	wasp_plan *pl = wpl_new();
	if (!pl)
		return werr(err, WASP_ENOMEM,
			    "out of memory building the plan");
	wa_arena *a = pl->arena;
	build b = {.p = p, .sol = sol, .pl = pl};

	/* Scratch in the plan arena too: one free for everything. */
	size_t nres = s->nres ? s->nres : 1;
	b.placed = wa_calloc(a, (size_t)s->nnodes * nres + 1,
			     sizeof *b.placed);
	b.got = wa_calloc(a, (size_t)s->nnodes + 1, 1);
	pl->admit = wa_calloc(a, (size_t)p->ngroups + 1, sizeof *pl->admit);
	if (!b.placed || !b.got || !pl->admit)
		goto nomem;
	const wdr_state *dst = sol->dra;
	if (dst && dst->nallocs) {
		b.dord = wa_calloc(a, (size_t)dst->nallocs, sizeof(int));
		b.dcur = wa_calloc(a, (size_t)p->nclasses + 1, sizeof(int));
		dkey *ks = wa_calloc(a, (size_t)dst->nallocs, sizeof *ks);
		if (!b.dord || !b.dcur || !ks)
			goto nomem;
		int nk = 0;
		for (int i = 0; i < dst->nallocs; i++)
			if (dst->allocs[i].cls >= 0)
				ks[nk++] = (dkey){dst->allocs[i].cls,
						  dst->allocs[i].node, i};
		qsort(ks, (size_t)nk, sizeof *ks, cmp_dord);
		for (int i = 0; i < nk; i++)
			b.dord[b.ndord++] = ks[i].i;
		for (int c = p->nclasses - 1; c >= 0; c--)
			b.dcur[c] = b.ndord;
		for (int i = b.ndord - 1; i >= 0; i--)
			b.dcur[dst->allocs[b.dord[i]].cls] = i;
		/* Shared claims (a group's, or a ResourceClaim's). */
		for (int i = 0; i < dst->nallocs; i++) {
			const wdr_alloc *al = &dst->allocs[i];
			if (al->inst < 0)
				continue;
			const wdr_inst *in = &dst->d->insts[al->inst];
			if (add_claim(&b, al, in->ns, in->name, NULL, NULL,
				      in->group >= 0
				      ? s->groups[in->group].name : NULL))
				goto nomem;
		}
	}

	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		const ws_group *sg = wg->sg >= 0 ? &s->groups[wg->sg] : NULL;
		int nplaced = 0, first_node = -1;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *c = &p->classes[wg->classes[ci]];
			/* a group not admitted places nothing (wp_sol_feasible):
			 * its slots, most of them at scale, are not scanned */
			int next = sol->admit[g]
				       ? deal_class(&b, c, sg, &first_node)
				       : 0;
			if (next < 0)
				goto nomem;
			nplaced += next;
			/* lone pods wait one by one */
			if (!sg && wait_lone(&b, g, c, next))
				goto nomem;
		}
		pl->sum.placed_pods += nplaced;
		if (sg && group_entry(&b, g, nplaced, first_node))
			goto nomem;
	}
	pl->sum.admitted_groups = pl->nadmit;
	pl->sum.waiting_groups = pl->nwait;
	if (add_evictions(p, sol, pl, b.placed))
		goto nomem;
	if (sol->move_to && add_moves(p, sol, pl, b.placed))
		goto nomem;
	if (s->nnodes && fill_usage(p, pl, b.placed, b.got))
		goto nomem;

	if (pl->nplace > 1)
		qsort(pl->place, pl->nplace, sizeof *pl->place, cmp_place);
	if (pl->nwait > 1)
		qsort(pl->wait, pl->nwait, sizeof *pl->wait, cmp_wait);
	if (pl->nadmit > 1)
		qsort(pl->admit, pl->nadmit, sizeof *pl->admit, cmp_admit);
	if (pl->nclaims > 1)
		qsort(pl->claims, pl->nclaims, sizeof *pl->claims, cmp_claim);
	*out = pl;
	return WASP_OK;
nomem:
	wa_destroy(pl->arena);
	return werr(err, WASP_ENOMEM, "out of memory building the plan");
}

static int cmp_version(const void *va, const void *vb)
{
	const wpl_version *a = va, *b = vb;
	int c = strcmp(a->ns, b->ns);
	return c ? c : strcmp(a->pod, b->pod);
}

int wpl_record_versions(const ws_snapshot *s, wasp_plan *pl)
{
	int n = pl->nplace + pl->nevict + pl->nmove;
	wpl_version *v = wa_calloc(pl->arena, (size_t)n + 1, sizeof *v);
	if (!v)
		return -1;
	int k = 0;
	for (int i = 0; i < pl->nplace; i++)
		v[k++] = (wpl_version){pl->place[i].ns, pl->place[i].pod, NULL};
	for (int i = 0; i < pl->nevict; i++)
		v[k++] = (wpl_version){pl->evict[i].ns, pl->evict[i].pod, NULL};
	for (int i = 0; i < pl->nmove; i++)
		v[k++] = (wpl_version){pl->move[i].ns, pl->move[i].pod, NULL};
	if (k > 1)
		qsort(v, (size_t)k, sizeof *v, cmp_version);
	int m = 0;
	for (int i = 0; i < k; i++) {
		if (m && !cmp_version(&v[m - 1], &v[i]))
			continue;
		int pi = ws_pod_index(s, v[i].ns, v[i].pod);
		const char *rv = pi >= 0 ? s->pods[pi].rv : NULL;
		v[m] = v[i];
		if (rv && !(v[m].rv = wa_strdup(pl->arena, rv)))
			return -1;
		m++;
	}
	pl->versions = v;
	pl->nversions = m;
	return 0;
}

int wpl_add_warning(wasp_plan *pl, const char *text)
{
	/* each warning once (the snapshot's and the run's may repeat) */
	for (int i = 0; i < pl->nwarnings; i++)
		if (!strcmp(pl->warnings[i], text))
			return 0;
	const char *w = wa_strdup(pl->arena, text);
	if (!w || WA_PUSH(pl->arena, pl->warnings, pl->nwarnings,
			  pl->warnings_cap, w))
		return -1;
	return 0;
}

void wpl_free(wasp_plan *pl)
{
	if (pl)
		wa_destroy(pl->arena);
}
