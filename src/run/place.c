/*
 * place.c -- wasp_place: one PodGroup, a Workload's PodGroups or a
 * CompositePodGroup tree on the snapshot as it is (place.h).
 *
 * The view: the snapshot's struct, pod and group arrays copied into the
 * call's arena, the pending pods of every other group (and lone pending
 * pods) marked terminal and taken out of their groups, everything else
 * shared.  An ordinary run on the view places the selection; the plan
 * keeps the selection's entries only.
 */
#include "run/place.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "run/run.h"

#define PL_KEY_MAX (2 * WASP_MAX_NAME + 64)

static const char *const kind_names[] = {"PodGroup", "Workload",
					 "CompositePodGroup"};

static int root_of(const ws_snapshot *s, int pcomp)
{
	while (s->comps[pcomp - 1].pcomp)
		pcomp = s->comps[pcomp - 1].pcomp;
	return pcomp;
}

/* Every group of the tree whose root composite is `root` (index + 1). */
static int select_tree(const ws_snapshot *s, int root, bool *sel)
{
	int n = 0;
	for (int g = 0; g < s->ngroups; g++)
		if (s->groups[g].pcomp && root_of(s, s->groups[g].pcomp) == root)
			n += sel[g] = true;
	return n;
}

/* Mark the groups to place; their count (0: none of that name). */
static int select_groups(const ws_snapshot *s, int kind, const char *ns,
			 const char *name, bool *sel)
{
	int n = 0;
	if (kind == WASP_GROUP_PODGROUP) {
		int g = ws_group_index(s, ns, name);
		if (g < 0)
			return 0;
		if (s->groups[g].pcomp)
			return select_tree(s, root_of(s, s->groups[g].pcomp),
					   sel);
		return sel[g] = true;
	}
	if (kind == WASP_GROUP_COMPOSITE) {
		for (int c = 0; c < s->ncomps; c++)
			if (!strcmp(s->comps[c].ns, ns) &&
			    !strcmp(s->comps[c].name, name))
				return select_tree(s, root_of(s, c + 1), sel);
		return 0;
	}
	for (int g = 0; g < s->ngroups; g++) {
		const ws_group *x = &s->groups[g];
		if (sel[g] || !x->workload || strcmp(x->ns, ns) ||
		    strcmp(x->workload, name))
			continue;
		n += x->pcomp ? select_tree(s, root_of(s, x->pcomp), sel)
			      : (sel[g] = true);
	}
	return n;
}

/* The snapshot with only the selected groups' pods pending.  A group
 * that keeps all its pods shares the snapshot's list; one that keeps
 * none keeps it with a count of 0. */
static ws_snapshot *make_view(const ws_snapshot *s, const bool *sel,
			      wa_arena *a)
{
	ws_snapshot *v = wa_alloc(a, sizeof *v);
	ws_pod *pods = wa_memdup(a, s->pods, (size_t)s->npods, sizeof *pods);
	ws_group *groups = wa_memdup(a, s->groups, (size_t)s->ngroups,
				     sizeof *groups);
	if (!v || !pods || !groups)
		return NULL;
	*v = *s;
	v->ver = NULL;
	for (int i = 0; i < s->npods; i++) {
		ws_pod *p = &pods[i];
		if (ws_pod_pending(p) && (p->group < 0 || !sel[p->group])) {
			p->terminal = true; /* out of the view */
			p->group = -1;
		}
	}
	for (int g = 0; g < s->ngroups; g++) {
		ws_group *x = &groups[g];
		if (sel[g] || !x->npods)
			continue;
		int k = 0;
		for (int j = 0; j < x->npods; j++)
			k += pods[x->pods[j]].group == g;
		if (k == x->npods)
			continue;
		if (!k) {
			x->npods = 0; /* the list stays, unread */
			continue;
		}
		int *kept = wa_alloc(a, (size_t)k * sizeof *kept);
		if (!kept)
			return NULL;
		k = 0;
		for (int j = 0; j < x->npods; j++)
			if (pods[x->pods[j]].group == g)
				kept[k++] = x->pods[j];
		x->pods = kept;
		x->npods = k;
	}
	v->pods = pods;
	v->groups = groups;
	return v;
}

/* Keep the entries of the selected groups. */
static void keep_selected(const ws_snapshot *s, const bool *sel,
			  wasp_plan *pl)
{
	int k = 0;
	for (int i = 0; i < pl->nwait; i++) {
		int g = strcmp(pl->wait[i].kind, "PodGroup")
			    ? -1
			    : ws_group_index(s, pl->wait[i].ns,
					     pl->wait[i].group);
		if (g >= 0 && sel[g])
			pl->wait[k++] = pl->wait[i];
	}
	pl->nwait = k;
	k = 0;
	for (int i = 0; i < pl->nadmit; i++) {
		int g = ws_group_index(s, pl->admit[i].ns, pl->admit[i].group);
		if (g >= 0 && sel[g])
			pl->admit[k++] = pl->admit[i];
	}
	pl->nadmit = k;
	pl->sum.admitted_groups = pl->nadmit;
	pl->sum.waiting_groups = pl->nwait;
}

int wsv_place(const ws_snapshot *s, int kind, const char *ns,
	      const char *name, const wasp_options *o, unsigned deadline_ms,
	      wasp_plan **out, wasp_error *err)
{
	double t0 = wb_now();
	*out = NULL;
	if (kind < WASP_GROUP_PODGROUP || kind > WASP_GROUP_COMPOSITE)
		return werr(err, WASP_EINVAL, "wasp_place: unknown group "
			    "kind %d", kind);
	if (!ns || !*ns)
		ns = "default";
	wa_arena *a = wa_new();
	bool *sel = a ? wa_calloc(a, (size_t)s->ngroups + 1, sizeof *sel)
		      : NULL;
	if (!sel) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	int rc = WASP_OK;
	ws_snapshot *v = NULL;
	if (!select_groups(s, kind, ns, name, sel))
		rc = werr(err, WASP_ENOTFOUND, "wasp_place: no %s %s/%s",
			  kind_names[kind], ns, name);
	else if (!(v = make_view(s, sel, a)))
		rc = werr(err, WASP_ENOMEM, "out of memory");
	wasp_options po = *o;
	po.time_limit_s = (deadline_ms ? deadline_ms
				       : WASP_DEFAULT_PLACE_DEADLINE_MS) /
			  1000.0;
	po.start_time = t0;
	po.plan_ready = NULL; /* wasp_solve's only: this plan is cut below */
	wasp_plan *pl = NULL;
	if (!rc)
		rc = wsv_solve(v, &po, &pl, err);
	if (!rc) {
		keep_selected(s, sel, pl);
		char key[PL_KEY_MAX];
		snprintf(key, sizeof key, "%s/%s/%s", kind_names[kind], ns,
			 name);
		if (!(pl->target = wa_strdup(pl->arena, key)))
			rc = werr(err, WASP_ENOMEM, "out of memory");
	}
	wa_destroy(a);
	if (rc) {
		wpl_free(pl);
		return rc;
	}
	*out = pl;
	return WASP_OK;
}
