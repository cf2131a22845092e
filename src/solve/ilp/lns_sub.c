/*
 * lns_sub.c -- one neighbourhood of the search (doc/formulation.md §12):
 * its sub-problem, built from the plan, and its answer merged back.
 *
 * Groups: a group with every placed pod on the neighbourhood's nodes is
 * free (its classes keep their counts, their nodes cut to the
 * neighbourhood's); up to WLNS_MAX_WAIT waiting groups whose smallest
 * demand fits the neighbourhood's room node by node join, highest
 * priority first, then those whose pods take the least of the room
 * (more pods admitted per room), each neighbourhood of a batch its own;
 * every other group is fixed: its pods there stay, and their requests
 * come off the nodes' free room.  A group that evicted a unit reaching
 * outside the neighbourhood is fixed too.  A block neighbourhood
 * (lns_hood.focus_key) frees and offers only the top priority's groups
 * keyed to its key, a top one those of any key; every other group
 * there is fixed.
 *
 * Units: those wholly on the neighbourhood's nodes that no fixed group
 * evicted are the sub-problem's, evicted or not as in the plan.  A unit
 * that stays evicted (a fixed group's victim, or one reaching outside)
 * gives its room back on these nodes, and the budgets it draws on are
 * lowered by its pods.  The sub-problem is a relaxation in nothing: its
 * answers are checked on the whole problem before they are taken.
 */
#include "solve/ilp/lns_int.h"

static const char *const WAIT_LNS =
    "the neighbourhood search gave its room to higher-priority work";

enum { G_FIXED = 0, G_FREE = 1, G_WAIT = 2 };

/* Is node n in the ascending array v[0..len)? */
static bool in_list(const int *v, int len, int n)
{
	int lo = 0, hi = len - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (v[mid] == n)
			return true;
		if (v[mid] < n)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

static bool in_hood(const lns_hood *h, int n)
{
	return in_list(h->nodes, h->nnodes, n);
}

/* Is group wg outside the neighbourhood's focus (fixed there)?  ftop:
 * the top priority (groups are in priority order). */
static bool out_of_focus(const lns_hood *h, const wp_group *wg,
			 int32_t ftop)
{
	if (h->focus_key == WLNS_FOCUS_TOP)
		return wg->priority != ftop;
	return h->focus_key >= 0 &&
	       (wg->key != h->focus_key || wg->priority != ftop);
}

/* Position of node n in the neighbourhood, -1: not in it. */
static int hood_pos(const lns_hood *h, int n)
{
	int lo = 0, hi = h->nnodes - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (h->nodes[mid] == n)
			return mid;
		if (h->nodes[mid] < n)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Does a waiting group's smallest demand fit the room: in all, and node
 * by node (nroom: per neighbourhood node its room)? */
static bool may_fit(const wp_problem *p, int g, const int64_t *room,
		    const int64_t *nroom, const lns_hood *h)
{
	const wp_group *wg = &p->groups[g];
	if (wg->invalid || !wg->nclasses)
		return false;
	int need = wp_group_need(wg);
	long fit = 0;
	for (int i = 0; i < wg->nclasses && fit < need; i++) {
		const wp_class *c = &p->classes[wg->classes[i]];
		for (int k = 0; k < h->nnodes && fit < need; k++) {
			if (!in_list(c->elig, c->nelig, h->nodes[k]) ||
			    !wp_allowed(p, wg, h->nodes[k]))
				continue;
			int64_t m = need;
			for (int r = 0; r < p->nres; r++)
				if (c->req[r] > 0 &&
				    nroom[(size_t)k * p->nres + r] / c->req[r] <
					m)
					m = nroom[(size_t)k * p->nres + r] /
					    c->req[r];
			fit += m > 0 ? m : 0;
		}
	}
	if (fit < (need > 0 ? need : 1))
		return false;
	for (int r = 0; r < p->nres; r++) {
		int64_t least = INT64_MAX;
		for (int i = 0; i < wg->nclasses; i++) {
			int64_t q = p->classes[wg->classes[i]].req[r];
			if (q < least)
				least = q;
		}
		if (least != INT64_MAX && (int64_t)need * least > room[r])
			return false;
	}
	return true;
}

static bool unit_inside(const wp_problem *p, const lns_hood *h, int u)
{
	const wp_unit *un = &p->units[u];
	for (int i = 0; i < un->npods; i++)
		if (!in_hood(h, p->snap->pods[un->pods[i]].node))
			return false;
	return true;
}

/* Use of unit u on the neighbourhood's nodes, added (sign 1) to free. */
static void unit_back(const wp_problem *p, const lns_hood *h, int u,
		      int64_t *free)
{
	const wp_unit *un = &p->units[u];
	for (int i = 0; i < un->npods; i++) {
		const ws_pod *pod = &p->snap->pods[un->pods[i]];
		if (!in_hood(h, pod->node))
			continue;
		for (int r = 0; r < p->nres; r++)
			free[(size_t)pod->node * p->nres + r] += pod->req[r];
	}
}

/* The share of the neighbourhood's room one pod of group g takes
 * (its smallest class, summed over resources): the fewer, the more pods
 * the room holds. */
static double pod_share(const wp_problem *p, int g, const int64_t *room)
{
	const wp_group *wg = &p->groups[g];
	double best = INFINITY;
	for (int i = 0; i < wg->nclasses; i++) {
		const int64_t *q = p->classes[wg->classes[i]].req;
		double s = 0;
		for (int r = 0; r < p->nres; r++)
			if (room[r] > 0)
				s += (double)q[r] / (double)room[r];
		best = s < best ? s : best;
	}
	return best;
}

typedef struct wait_ord {
	const wp_problem *p;
	const double *share;
} wait_ord;

/* Waiting groups: priority, then the most pods per room, then the
 * smallest need (a stable sort keeps group order after that). */
static int cmp_wait(const void *ctx, int a, int b)
{
	const wait_ord *w = ctx;
	const wp_group *x = &w->p->groups[a], *y = &w->p->groups[b];
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (w->share[a] != w->share[b])
		return w->share[a] < w->share[b] ? -1 : 1;
	int nx = wp_group_need(x), ny = wp_group_need(y);
	return nx < ny ? -1 : nx > ny;
}

/* The groups' states; units that pin their evictor make it fixed.
 * Waiting groups that may fit are offered WLNS_MAX_WAIT at a time in
 * cmp_wait order, round robin over the batch (h->wait_skip is the
 * neighbourhood's place in it), so that the neighbourhoods of one batch
 * get different ones of about the same rank. */
static int group_states(const wp_problem *p, const wp_sol *s,
			const lns_hood *h, unsigned char *gs)
{
	int nr = p->nres, ng = p->ngroups;
	int64_t *room = calloc((size_t)nr + 1, sizeof *room);
	int64_t *nroom = calloc((size_t)h->nnodes * nr + 1, sizeof *nroom);
	int *cand = malloc(sizeof *cand * ((size_t)ng + 1));
	int *tmp = malloc(sizeof *tmp * ((size_t)ng + 1));
	double *share = malloc(sizeof *share * ((size_t)ng + 1));
	if (!room || !nroom || !cand || !tmp || !share) {
		free(room);
		free(nroom);
		free(cand);
		free(tmp);
		free(share);
		return -1;
	}
	int32_t top;
	bool pre = wpe_top_priority(p, &top);
	for (int k = 0; k < h->nnodes; k++) {
		int n = h->nodes[k];
		for (int r = 0; r < nr; r++)
			nroom[(size_t)k * nr + r] = p->free[(size_t)n * nr + r];
	}
	for (int u = 0; pre && u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (un->priority >= top || un->keep)
			continue;
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			int k = hood_pos(h, pod->node);
			if (k >= 0)
				for (int r = 0; r < nr; r++)
					nroom[(size_t)k * nr + r] +=
					    pod->req[r];
		}
	}
	/* less what groups reaching outside keep here: they stay; in a
	 * block neighbourhood so do those outside its focus */
	int32_t ftop = ng ? p->groups[0].priority : 0;
	for (int g = 0; g < ng; g++) {
		const wp_group *wg = &p->groups[g];
		bool stays = h->gin[g] != h->gtot[g] ||
			     out_of_focus(h, wg, ftop);
		if (h->gin[g] == 0 || !stays)
			continue;
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *c = &p->classes[wg->classes[i]];
			for (int k = 0; k < h->nnodes; k++) {
				int sl = wp_slot(p, wg->classes[i], h->nodes[k]);
				int x = sl >= 0 ? wp_x(s, sl) : 0;
				for (int r = 0; x && r < nr; r++)
					nroom[(size_t)k * nr + r] -=
					    (int64_t)x * c->req[r];
			}
		}
	}
	for (int k = 0; k < h->nnodes; k++)
		for (int r = 0; r < nr; r++)
			room[r] += nroom[(size_t)k * nr + r];
	int ncand = 0;
	for (int g = 0; g < ng; g++) {
		long in = h->gin[g], out = h->gtot[g] - in;
		gs[g] = G_FIXED;
		if (out_of_focus(h, &p->groups[g], ftop))
			continue;
		if (in > 0 && out == 0)
			gs[g] = G_FREE;
		else if (in == 0 && out == 0 && !s->admit[g] &&
			 may_fit(p, g, room, nroom, h)) {
			share[g] = pod_share(p, g, room);
			cand[ncand++] = g;
		}
	}
	wait_ord wo = {p, share};
	wis_sort(cand, tmp, ncand, cmp_wait, &wo);
	/* round robin: the i-th of a batch takes candidates i, i + B,
	 * i + 2B, ...; too few that way, the first of the rest */
	int nw = 0;
	for (int i = h->wait_skip % WLNS_BATCH;
	     ncand > WLNS_MAX_WAIT && i < ncand && nw < WLNS_MAX_WAIT;
	     i += WLNS_BATCH, nw++)
		gs[cand[i]] = G_WAIT;
	for (int i = 0; i < ncand && nw < WLNS_MAX_WAIT; i++)
		if (gs[cand[i]] != G_WAIT) {
			gs[cand[i]] = G_WAIT;
			nw++;
		}
	free(nroom);
	free(cand);
	free(tmp);
	free(share);
	for (int u = 0; s->evict && u < p->nunits; u++) {
		int g = s->evict_by[u];
		if (s->evict[u] && g >= 0 && gs[g] == G_FREE &&
		    !unit_inside(p, h, u))
			gs[g] = G_FIXED;
	}
	free(room);
	return 0;
}

/* The sub-problem's classes and groups (states gs); -1 NOMEM. */
static int sub_groups(const wp_problem *p, const lns_hood *h,
		      const unsigned char *gs, wp_problem *q, int *gsub,
		      lns_hood *ho)
{
	wa_arena *a = h->a;
	int ng = 0, nc = 0;
	for (int g = 0; g < p->ngroups; g++)
		if (gs[g] != G_FIXED) {
			ng++;
			nc += p->groups[g].nclasses;
		}
	q->groups = wa_calloc(a, ng + 1, sizeof *q->groups);
	q->classes = wa_calloc(a, nc + 1, sizeof *q->classes);
	ho->gmap = wa_calloc(a, ng + 1, sizeof *ho->gmap);
	ho->cmap = wa_calloc(a, nc + 1, sizeof *ho->cmap);
	int *buf = wa_calloc(a, h->nnodes + 1, sizeof *buf);
	if (!q->groups || !q->classes || !ho->gmap || !ho->cmap || !buf)
		return -1;
	q->ngroups = q->nclasses = q->nx = 0;
	for (int g = 0; g < p->ngroups; g++) {
		gsub[g] = -1;
		if (gs[g] == G_FIXED)
			continue;
		const wp_group *wg = &p->groups[g];
		int sg = q->ngroups++;
		gsub[g] = sg;
		ho->gmap[sg] = g;
		wp_group *qg = &q->groups[sg];
		*qg = *wg;
		qg->pcomp = 0;
		qg->classes = wa_calloc(a, wg->nclasses + 1,
					sizeof *qg->classes);
		if (!qg->classes)
			return -1;
		qg->nclasses = 0;
		for (int i = 0; i < wg->nclasses; i++) {
			int c = wg->classes[i];
			const wp_class *pc = &p->classes[c];
			int ne = 0;
			for (int k = 0; k < h->nnodes; k++)
				if (in_list(pc->elig, pc->nelig, h->nodes[k]))
					buf[ne++] = h->nodes[k];
			int sc = q->nclasses++;
			ho->cmap[sc] = c;
			qg->classes[qg->nclasses++] = sc;
			wp_class *qc = &q->classes[sc];
			*qc = *pc;
			qc->group = sg;
			qc->elig = wa_calloc(a, ne + 1, sizeof *qc->elig);
			if (!qc->elig)
				return -1;
			memcpy(qc->elig, buf, sizeof *buf * ne);
			qc->nelig = ne;
			qc->off = q->nx;
			q->nx += ne;
		}
	}
	return 0;
}

/* Free room after the fixed groups, the units, the budgets; -1 NOMEM. */
static int sub_units(const wp_problem *p, const wp_sol *s, lns_hood *h,
		     const unsigned char *gs, wp_problem *q)
{
	wa_arena *a = h->a;
	int nr = p->nres;
	size_t nf = (size_t)p->nnodes * nr;
	int64_t *free = wa_calloc(a, nf + 1, sizeof *free);
	q->units = wa_calloc(a, p->nunits + 1, sizeof *q->units);
	h->umap = wa_calloc(a, p->nunits + 1, sizeof *h->umap);
	int npdb = p->snap->npdbs;
	q->pdb_allowed = wa_calloc(a, npdb + 1, sizeof *q->pdb_allowed);
	if (!free || !q->units || !h->umap || !q->pdb_allowed)
		return -1;
	memcpy(free, p->free, sizeof *free * nf);
	if (npdb)
		memcpy(q->pdb_allowed, p->pdb_allowed,
		       sizeof *q->pdb_allowed * npdb);
	/* fixed groups' pods here */
	for (int g = 0; g < p->ngroups; g++) {
		if (gs[g] != G_FIXED)
			continue;
		if (!h->gin[g])
			continue; /* nothing of it here */
		const wp_group *wg = &p->groups[g];
		for (int i = 0; i < wg->nclasses; i++) {
			int c = wg->classes[i];
			const wp_class *cl = &p->classes[c];
			for (int k = 0; k < h->nnodes; k++) {
				int n = h->nodes[k];
				int slot = wp_slot(p, c, n);
				int x = slot >= 0 ? wp_x(s, slot) : 0;
				for (int r = 0; x && r < nr; r++)
					free[(size_t)n * nr + r] -=
					    (int64_t)x * cl->req[r];
			}
		}
	}
	q->nunits = 0;
	for (int u = 0; u < p->nunits; u++) {
		bool ev = s->evict && s->evict[u];
		int by = ev ? s->evict_by[u] : -1;
		bool inside = unit_inside(p, h, u);
		if (inside && !(ev && (by < 0 || gs[by] == G_FIXED))) {
			h->umap[q->nunits] = u;
			q->units[q->nunits++] = p->units[u];
			continue;
		}
		if (!ev)
			continue;
		/* stays evicted: its room here is free, its pods count
		 * against its budgets */
		unit_back(p, h, u, free);
		const wp_unit *un = &p->units[u];
		for (int i = 0; i < un->npdb; i++)
			q->pdb_allowed[un->pdb[i]] -= un->pdbn[i];
	}
	q->free = free;
	return 0;
}

static void sub_warm(const wp_problem *p, const wp_sol *s, lns_hood *h)
{
	const wp_problem *q = h->sub;
	wp_sol *w = h->warm;
	wp_sol_no_disruption(q, w);
	for (int sc = 0; sc < q->nclasses; sc++) {
		const wp_class *qc = &q->classes[sc];
		int c = h->cmap[sc];
		for (int k = 0; k < qc->nelig; k++) {
			int slot = wp_slot(p, c, qc->elig[k]);
			wp_x_set(w, qc->off + k, slot >= 0 ? wp_x(s, slot) : 0);
		}
	}
	for (int sg = 0; sg < q->ngroups; sg++) {
		int g = h->gmap[sg];
		w->admit[sg] = s->admit[g];
		w->reason[sg] = s->reason[g];
	}
	for (int su = 0; su < q->nunits; su++) {
		int u = h->umap[su];
		w->evict[su] = s->evict ? s->evict[u] : 0;
		w->evict_by[su] = -1;
		for (int sg = 0; w->evict[su] && sg < q->ngroups; sg++)
			if (h->gmap[sg] == s->evict_by[u]) {
				w->evict_by[su] = sg;
				break;
			}
	}
}

int wlns_sub_build(const wp_problem *p, const wp_sol *s, lns_hood *h)
{
	h->sub = NULL;
	if (!(h->a = wa_new()))
		return -1;
	unsigned char *gs = wa_calloc(h->a, p->ngroups + 1, 1);
	int *gsub = wa_calloc(h->a, p->ngroups + 1, sizeof *gsub);
	wp_problem *q = wa_alloc(h->a, sizeof *q);
	if (!gs || !gsub || !q || group_states(p, s, h, gs))
		return -1;
	int nfree = 0;
	for (int g = 0; g < p->ngroups; g++)
		nfree += gs[g] != G_FIXED;
	if (!nfree)
		return 0; /* nothing to re-plan */
	*q = *p;
	q->arena = h->a;
	q->comps = NULL;
	q->ncomps = 0;
	q->mcls = NULL;
	q->nmcls = 0;
	q->unit_mc = NULL;
	if (sub_groups(p, h, gs, q, gsub, h) || sub_units(p, s, h, gs, q))
		return -1;
	h->sub = q;
	if (!(h->warm = wp_sol_new(q, h->a)))
		return -1;
	sub_warm(p, s, h);
	return 0;
}

void wlns_sub_free(lns_hood *h)
{
	wa_destroy(h->a);
	h->a = NULL;
	h->sub = NULL;
}

/* The undo log of a merge. */
typedef struct undo {
	int *slot, *x;
	int n;
	int *g;
	unsigned char *adm;
	const char **why;
	int ng;
	int *u, *uby;
	unsigned char *uev;
	int nu;
} undo;

void wlns_track_init(const wp_problem *p, const wp_sol *s, lns_track *t)
{
	wp_evaluate(p, s, &t->v);
	for (int g = 0; g < p->ngroups; g++)
		t->gtot[g] = 0;
	for (int c = 0; c < p->nclasses; c++)
		t->gtot[p->classes[c].group] += wp_x_placed(s, &p->classes[c]);
}

/* The nodes where merging h changed s: h's own, and those of units
 * whose eviction changed (U's first nu).  Distinct, into *out. */
static int merged_nodes(const wp_problem *p, const lns_hood *h,
			const wp_sol *s, const int *u, const unsigned char *uev,
			int nu, int *out, unsigned char *in)
{
	int n = 0;
	for (int k = 0; k < h->nnodes; k++) {
		in[h->nodes[k]] = 1;
		out[n++] = h->nodes[k];
	}
	for (int i = 0; i < nu; i++) {
		const wp_unit *un = &p->units[u[i]];
		if (s->evict[u[i]] == uev[i])
			continue;
		for (int j = 0; j < un->npods; j++) {
			int m = p->snap->pods[un->pods[j]].node;
			if (m >= 0 && !in[m]) {
				in[m] = 1;
				out[n++] = m;
			}
		}
	}
	for (int k = 0; k < n; k++)
		in[out[k]] = 0;
	return n;
}

int wlns_merge(const wp_problem *p, const lns_hood *h, wp_sol *s,
	       lns_track *t)
{
	const wp_problem *q = h->sub;
	const wp_sol *o = h->out;
	wp_value v1;
	undo U;
	memset(&U, 0, sizeof U);
	U.slot = malloc(sizeof *U.slot * ((size_t)q->nx + 1));
	U.x = malloc(sizeof *U.x * ((size_t)q->nx + 1));
	U.g = malloc(sizeof *U.g * ((size_t)q->ngroups + 1));
	U.adm = malloc((size_t)q->ngroups + 1);
	U.why = malloc(sizeof *U.why * ((size_t)q->ngroups + 1));
	U.u = malloc(sizeof *U.u * ((size_t)q->nunits + 1));
	U.uby = malloc(sizeof *U.uby * ((size_t)q->nunits + 1));
	U.uev = malloc((size_t)q->nunits + 1);
	int *nodes = malloc(sizeof *nodes * ((size_t)p->nnodes + 1));
	unsigned char *in = calloc((size_t)p->nnodes + 1, 1);
	int rc = -1;
	if (!U.slot || !U.x || !U.g || !U.adm || !U.why || !U.u || !U.uby ||
	    !U.uev || !nodes || !in)
		goto out;
	for (int sc = 0; sc < q->nclasses; sc++) {
		const wp_class *qc = &q->classes[sc];
		int c = h->cmap[sc];
		for (int k = 0; k < qc->nelig; k++) {
			int slot = wp_slot(p, c, qc->elig[k]);
			if (slot < 0)
				continue;
			U.slot[U.n] = slot;
			U.x[U.n++] = wp_x(s, slot);
			wp_x_set(s, slot, wp_x(o, qc->off + k));
		}
	}
	for (int sg = 0; sg < q->ngroups; sg++) {
		int g = h->gmap[sg];
		U.g[U.ng] = g;
		U.adm[U.ng] = s->admit[g];
		U.why[U.ng++] = s->reason[g];
		bool was = s->admit[g];
		s->admit[g] = o->admit[sg];
		s->reason[g] = o->admit[sg] ? NULL
			       : was	     ? WAIT_LNS
					     : s->reason[g];
	}
	for (int su = 0; s->evict && su < q->nunits; su++) {
		int u = h->umap[su];
		U.u[U.nu] = u;
		U.uev[U.nu] = s->evict[u];
		U.uby[U.nu++] = s->evict_by[u];
		s->evict[u] = o->evict ? o->evict[su] : 0;
		s->evict_by[u] = s->evict[u] && o->evict_by[su] >= 0
				     ? h->gmap[o->evict_by[su]]
				     : -1;
	}
	const char *why = NULL;
	wp_evaluate(p, s, &v1);
	int nn = merged_nodes(p, h, s, U.u, U.uev, U.nu, nodes, in);
	if (wp_value_cmp(&v1, &t->v) > 0 &&
	    wp_sol_feasible_near(p, s, U.g, U.ng, nodes, nn, &why) == 0) {
		t->v = v1;
		for (int i = 0; i < U.n; i++)
			t->gtot[p->classes[wp_slot_class(p, U.slot[i])].group] +=
			    wp_x(s, U.slot[i]) - U.x[i];
		rc = 1;
		goto out;
	}
	/* not better, or not feasible on the whole problem: undo */
	for (int i = 0; i < U.n; i++)
		wp_x_set(s, U.slot[i], U.x[i]);
	for (int i = 0; i < U.ng; i++) {
		s->admit[U.g[i]] = U.adm[i];
		s->reason[U.g[i]] = U.why[i];
	}
	for (int i = 0; i < U.nu; i++) {
		s->evict[U.u[i]] = U.uev[i];
		s->evict_by[U.u[i]] = U.uby[i];
	}
	rc = 0;
out:
	free(U.slot), free(U.x), free(U.g), free(U.adm), free(U.why);
	free(U.u), free(U.uby), free(U.uev);
	free(nodes), free(in);
	return rc;
}
