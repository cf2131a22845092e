/*
 * bound.c -- an upper bound at every size: the LP over node classes and
 * topology domains (doc/formulation.md §12), solved tier by tier with
 * GLPK.
 *
 * Nodes eligible for the same classes form one node class.  Per node and
 * priority level l the room is free[n] plus the room of the units pods
 * may evict below l (the capacity-by-priority row of doc/preemption.md);
 * x[c,k] are pods of class c in node class k, continuous in [0, count],
 * and per (k, resource r, level l):
 *
 *   sum_{c: eff(c) <= l} req[c,r] x[c,k] <= sum_{n in k} room[n,r,l]
 *
 * with, for a few of the largest requests q of r, the same row divided by
 * q and rounded down node by node (a Chvatal-Gomory cut: a node with room
 * 7 holds no pod of 8):
 *
 *   sum floor(req[c,r] / q) x[c,k] <= sum_{n in k} floor(room[n,r,l] / q)
 *
 * Gangs that must lie in one domain of a key (single-class gangs with a
 * required key) get columns per domain instead: z[t,D,k], pods of gang
 * type t (identical gangs, n_t of them) in domain D and node class k,
 * only in domains where the gang's minimum fits node by node (F_D >=
 * need), with per-domain capacity rows of the same two shapes (D and the
 * domains of coarser keys containing it), and
 *
 *   sum_{D,k} z[t,D,k] / min(count, F_D) <= n_t
 *
 * since each gang lies in one domain and puts at most min(count, F_D)
 * pods there.  Budgets, eviction costs and the rest of the topology are
 * dropped, so every plan's work fits.  The work tiers are maximised in
 * sequence (a lexicographic LP): tier t's optimum, rounded down to whole
 * units, becomes a lower limit before tier t + 1 is solved, so the vector
 * of optima bounds every plan's work vector lexicographically.  Tier 0
 * is then tightened by whole-gang patterns per domain (bound_cg.c).  The
 * model is estimated before it is built (WILP_BOUND_MAX_COLS); gangs past
 * the domain budget (WILP_BOUND_MAX_DCOLS) keep node-class columns.
 */
#include "solve/ilp/bound_int.h"

static int cmp_ptr(const void *ctx, int a, int b)
{
	const wp_problem *p = ctx;
	const int *x = p->classes[a].elig, *y = p->classes[b].elig;
	return x < y ? -1 : x > y;
}

static int cmp_nodes(const void *ctx, int a, int b)
{
	const cb_state *S = ctx;
	int la = S->nbeg[a + 1] - S->nbeg[a], lb = S->nbeg[b + 1] - S->nbeg[b];
	if (la != lb)
		return la < lb ? -1 : 1;
	for (int i = 0; i < la; i++) {
		int x = S->nlist[S->nbeg[a] + i], y = S->nlist[S->nbeg[b] + i];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Eligibility arrays, per node the arrays containing it, node classes and
 * per array the node classes it reaches.  -1 on NOMEM. */
static int node_classes(cb_state *S, wa_arena *a)
{
	const wp_problem *p = S->p;
	int nc = p->nclasses, nn = p->nnodes;
	int *ord = wa_calloc(a, nc + 1, sizeof *ord);
	int *tmp = wa_calloc(a, (nc > nn ? nc : nn) + 1, sizeof *tmp);
	S->cel = wa_calloc(a, nc + 1, sizeof *S->cel);
	S->elv = wa_calloc(a, nc + 1, sizeof *S->elv);
	S->eln = wa_calloc(a, nc + 1, sizeof *S->eln);
	S->nbeg = wa_calloc(a, nn + 2, sizeof *S->nbeg);
	S->ncls = wa_calloc(a, nn + 1, sizeof *S->ncls);
	if (!ord || !tmp || !S->cel || !S->elv || !S->eln || !S->nbeg ||
	    !S->ncls)
		return -1;
	for (int c = 0; c < nc; c++)
		ord[c] = c;
	wis_sort(ord, tmp, nc, cmp_ptr, p);
	S->nel = 0;
	long tot = 0;
	for (int i = 0; i < nc; i++) {
		const wp_class *cl = &p->classes[ord[i]];
		if (cl->nelig == 0 || p->groups[cl->group].invalid) {
			S->cel[ord[i]] = -1;
			continue;
		}
		if (S->nel == 0 || S->elv[S->nel - 1] != cl->elig) {
			S->elv[S->nel] = cl->elig;
			S->eln[S->nel] = cl->nelig;
			tot += cl->nelig;
			S->nel++;
		}
		S->cel[ord[i]] = S->nel - 1;
	}
	if (tot > WILP_BOUND_MAX_NZ)
		return 1;
	for (int e = 0; e < S->nel; e++)
		for (int i = 0; i < S->eln[e]; i++)
			S->nbeg[S->elv[e][i] + 1]++;
	for (int n = 0; n < nn; n++)
		S->nbeg[n + 1] += S->nbeg[n];
	S->nlist = wa_calloc(a, tot + 1, sizeof *S->nlist);
	int *fill = wa_calloc(a, nn + 1, sizeof *fill);
	int *nord = wa_calloc(a, nn + 1, sizeof *nord);
	if (!S->nlist || !fill || !nord)
		return -1;
	for (int e = 0; e < S->nel; e++)
		for (int i = 0; i < S->eln[e]; i++) {
			int n = S->elv[e][i];
			S->nlist[S->nbeg[n] + fill[n]++] = e;
		}
	for (int n = 0; n < nn; n++)
		nord[n] = n;
	wis_sort(nord, tmp, nn, cmp_nodes, S);
	S->nk = 0;
	for (int i = 0; i < nn; i++) {
		if (i == 0 || cmp_nodes(S, nord[i - 1], nord[i]))
			S->nk++;
		S->ncls[nord[i]] = S->nk - 1;
	}
	/* per array, the node classes it reaches (ascending) */
	S->kbeg = wa_calloc(a, S->nel + 1, sizeof *S->kbeg);
	int *seen = wa_calloc(a, S->nk + 1, sizeof *seen);
	if (!S->kbeg || !seen)
		return -1;
	long nkl = 0;
	for (int e = 0; e < S->nel; e++) {
		S->kbeg[e] = (int)nkl;
		for (int i = 0; i < S->eln[e]; i++) {
			int k = S->ncls[S->elv[e][i]];
			if (seen[k] != e + 1) {
				seen[k] = e + 1;
				nkl++;
			}
		}
	}
	S->kbeg[S->nel] = (int)nkl;
	S->klist = wa_calloc(a, nkl + 1, sizeof *S->klist);
	if (!S->klist)
		return -1;
	memset(seen, 0, sizeof *seen * (S->nk + 1));
	nkl = 0;
	for (int e = 0; e < S->nel; e++)
		for (int i = 0; i < S->eln[e]; i++) {
			int k = S->ncls[S->elv[e][i]];
			if (seen[k] != e + 1) {
				seen[k] = e + 1;
				S->klist[nkl++] = k;
			}
		}
	return 0;
}

static int lev_of(const cb_state *S, int32_t pr)
{
	int l = 0;
	while (l < S->nlev && S->lev[l] < pr)
		l++;
	return l;
}

#define ROOM(n, r, l) WCB_ROOM(S, n, r, l)

/* Levels and the room per (node, resource, level).  -1 NOMEM, 1 too
 * many levels. */
static int room(cb_state *S, wa_arena *a)
{
	const wp_problem *p = S->p;
	int nr = p->nres;
	S->nlev = 0;
	for (int c = 0; c < p->nclasses; c++) {
		if (S->cel[c] < 0)
			continue;
		int32_t e = wilp_eff_prio(p, c);
		int l = lev_of(S, e);
		if (l < S->nlev && S->lev[l] == e)
			continue;
		if (S->nlev == WP_MAX_TIERS)
			return 1; /* too many levels: no bound */
		memmove(S->lev + l + 1, S->lev + l,
			sizeof *S->lev * (S->nlev - l));
		S->lev[l] = e;
		S->nlev++;
	}
	size_t nb = (size_t)p->nnodes * nr * (S->nlev ? S->nlev : 1);
	S->capn = wa_calloc(a, nb + 1, sizeof *S->capn);
	if (!S->capn)
		return -1;
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < nr; r++) {
			double f = (double)p->free[(size_t)n * nr + r];
			for (int l = 0; l < S->nlev; l++)
				ROOM(n, r, l) = f > 0 ? f : 0;
		}
	int32_t top;
	bool any = wpe_top_priority(p, &top);
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		/* a unit that may move (--rebalance) may leave its node:
		 * its room counts at every level (moves can merge room that
		 * the rounded rows would otherwise not see) */
		bool moves = p->nmcls > 0 && p->unit_mc && p->unit_mc[u] >= 0;
		if (!moves && (!any || un->priority >= top || un->keep))
			continue;
		/* its room serves levels above its priority */
		int l0 = 0;
		while (!moves && l0 < S->nlev && S->lev[l0] <= un->priority)
			l0++;
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			if (pod->node < 0 || pod->node >= p->nnodes)
				continue;
			for (int r = 0; r < nr; r++)
				for (int l = l0; l < S->nlev; l++)
					ROOM(pod->node, r, l) +=
					    (double)pod->req[r];
		}
	}
	return 0;
}

/* Pods of shape q a node with room f holds (f at level l of node n). */
double wcb_shape_fit(const cb_state *S, const int64_t *q, int n, int l)
{
	double m = WILP_BOUND_NO_FIT_LIMIT;
	for (int r = 0; r < S->p->nres; r++)
		if (q[r] > 0) {
			double f = floor(ROOM(n, r, l) / (double)q[r] +
					 WILP_BOUND_TOL);
			if (f < m)
				m = f;
		}
	return m > 0 ? m : 0;
}

void wcb_up(const wtp_topo *T, int *key, int *d)
{
	const wtp_key *K = &T->keys[*key];
	*d = K->parent >= 0 && K->dom_parent ? K->dom_parent[*d] : -1;
	*key = *d >= 0 ? K->parent : -1;
}

/* A pod of request req counts as this many pods of shape q in the
 * rounded rows: min over q's resources of floor(req / q), so that the
 * pods on a node count at most shape_fit. */
double wcb_shape_coef(const cb_state *S, const int64_t *req,
		      const int64_t *q)
{
	double m = WILP_BOUND_NO_FIT_LIMIT;
	for (int r = 0; r < S->p->nres; r++)
		if (q[r] > 0) {
			double f = floor((double)req[r] / (double)q[r]);
			if (f < m)
				m = f;
		}
	return m < WILP_BOUND_NO_FIT_LIMIT ? m : 0;
}

/* Shape order: the scarce resource's request, largest first, then the
 * other resources'. */
static int cmp_shape(const void *ctx, int a, int b)
{
	const cb_state *S = ctx;
	const int64_t *x = S->p->classes[a].req, *y = S->p->classes[b].req;
	if (x[S->scarce] != y[S->scarce])
		return x[S->scarce] > y[S->scarce] ? -1 : 1;
	for (int r = 0; r < S->p->nres; r++)
		if (x[r] != y[r])
			return x[r] > y[r] ? -1 : 1;
	return 0;
}

/* The shapes of the rounded rows (doc/formulation.md §12): the pods'
 * request vectors that are largest in the scarcest resource (pending
 * demand over room at the top level), at most WILP_BOUND_MAX_SHAPES.
 * -1 NOMEM. */
static int shapes(cb_state *S, wa_arena *a)
{
	const wp_problem *p = S->p;
	int nr = p->nres, nc = p->nclasses;
	S->nw = nr + WILP_BOUND_MAX_SHAPES;
	int *ord = wa_calloc(a, (size_t)nc + 1, sizeof *ord);
	int *tmp = wa_calloc(a, (size_t)nc + 1, sizeof *tmp);
	S->rscale = wa_calloc(a, (size_t)nr + 1, sizeof *S->rscale);
	if (!ord || !tmp || !S->rscale)
		return -1;
	for (int r = 0; r < nr; r++) {
		S->rscale[r] = 1;
		for (int c = 0; c < nc; c++)
			if (S->cel[c] >= 0 &&
			    (double)p->classes[c].req[r] > S->rscale[r])
				S->rscale[r] = (double)p->classes[c].req[r];
	}
	S->scarce = -1;
	if (S->plain)
		return 0;
	double best = 0;
	for (int r = 0; r < nr && S->nlev; r++) {
		double dem = 0, sup = 0;
		for (int c = 0; c < nc; c++)
			if (S->cel[c] >= 0)
				dem += (double)p->classes[c].count *
				       (double)p->classes[c].req[r];
		for (int n = 0; n < p->nnodes; n++)
			sup += ROOM(n, r, S->nlev - 1);
		double ratio = dem / (sup > 1 ? sup : 1);
		if (dem > 0 && (S->scarce < 0 || ratio > best)) {
			S->scarce = r;
			best = ratio;
		}
	}
	if (S->scarce < 0)
		return 0;
	int no = 0;
	for (int c = 0; c < nc; c++)
		if (S->cel[c] >= 0 && p->classes[c].req[S->scarce] > 0)
			ord[no++] = c;
	wis_sort(ord, tmp, no, cmp_shape, S);
	for (int i = 0; i < no && S->nsh < WILP_BOUND_MAX_SHAPES; i++)
		if (i == 0 || cmp_shape(S, ord[i - 1], ord[i]))
			S->shape[S->nsh++] = p->classes[ord[i]].req;
	return 0;
}

/* The tier (index into v.prio of wp_evaluate) of each class. */
static void class_tiers(const wp_problem *p, const wp_value *v, int *ct)
{
	for (int c = 0; c < p->nclasses; c++) {
		int32_t pr = p->groups[p->classes[c].group].priority;
		int t = 0;
		while (t < v->nprio - 1 && v->prio[t] != pr)
			t++;
		ct[c] = t;
	}
}

/* A pod's work in wp_value units. */
double wcb_pod_work(const wp_problem *p, int c)
{
	return p->value_res < 0
		   ? 1.0
		   : (double)p->classes[c].req[p->value_res] / 1000.0;
}

/* ------------------------------------------------ gangs in one domain */

/* Is group g a gang confined to one domain of its key that the domain
 * columns can carry: one class, with pods, a usable fixed domain? */
static int dom_class(const cb_state *S, int g)
{
	const wp_problem *p = S->p;
	const wp_group *wg = &p->groups[g];
	if (!wg->gang || wg->invalid || wg->key < 0 || !p->topo ||
	    wg->key >= p->topo->nkeys || wg->nclasses != 1 ||
	    wg->fixed_dom < -1)
		return -1;
	int c = wg->classes[0];
	if (S->cel[c] < 0 || p->classes[c].count <= 0)
		return -1;
	return c;
}

/* Candidate order (ctx: the cb_state): same eligibility, level, key and
 * requests together, since they share the fit per domain (cmp_type then
 * orders by priority, size and need). */
int wcb_cmp_fit(const void *ctx, int a, int b)
{
	const cb_state *S = ctx;
	const wp_problem *p = S->p;
	const wp_group *x = &p->groups[a], *y = &p->groups[b];
	const wp_class *cx = &p->classes[x->classes[0]],
		       *cy = &p->classes[y->classes[0]];
	if (cx->elig != cy->elig)
		return cx->elig < cy->elig ? -1 : 1;
	int lx = S->clev[x->classes[0]], ly = S->clev[y->classes[0]];
	if (lx != ly)
		return lx < ly ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	for (int r = 0; r < p->nres; r++)
		if (cx->req[r] != cy->req[r])
			return cx->req[r] < cy->req[r] ? -1 : 1;
	return 0;
}

/* Gangs of nearby sizes share a type: sizes in buckets growing by a
 * quarter (1, 2, 3, 4, 5, 6-7, 8-9, 10-11, 12-14, ...). */
static int size_bucket(int n)
{
	int b = 0;
	for (double top = 1; n > (int)top; b++)
		top = top * 1.25 > top + 1 ? top * 1.25 : top + 1;
	return b;
}

static int cmp_type(const void *ctx, int a, int b)
{
	int d = wcb_cmp_fit(ctx, a, b);
	if (d)
		return d;
	const cb_state *S = ctx;
	const wp_group *x = &S->p->groups[a], *y = &S->p->groups[b];
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	int bx = size_bucket(S->p->classes[x->classes[0]].count),
	    by = size_bucket(S->p->classes[y->classes[0]].count);
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->fixed_dom < y->fixed_dom ? -1 : x->fixed_dom > y->fixed_dom;
}

/* Per domain of the key and node class (position in the class's klist
 * run) the pods of class c that fit: F[D * nke + i]. */
static double *fit_per_domain(const cb_state *S, int c, int key, int *kpos,
			      wa_arena *a)
{
	const wp_problem *p = S->p;
	const wtp_key *K = &p->topo->keys[key];
	int e = S->cel[c], nke = S->kbeg[e + 1] - S->kbeg[e];
	for (int i = 0; i < nke; i++)
		kpos[S->klist[S->kbeg[e] + i]] = i;
	double *F = wa_calloc(a, (size_t)K->ndom * nke + 1, sizeof *F);
	if (!F)
		return NULL;
	const wp_class *cl = &p->classes[c];
	for (int i = 0; i < cl->nelig; i++) {
		int n = cl->elig[i], d = K->node_dom[n];
		if (d >= 0)
			F[(size_t)d * nke + kpos[S->ncls[n]]] +=
			    wcb_shape_fit(S, cl->req, n, S->clev[c]);
	}
	return F;
}

/* F_D of type t in domain d (nke node classes), 0 when its minimum does
 * not fit there or d is not its fixed domain. */
static double type_fit(const cb_state *S, const cb_type *t, int d, int nke)
{
	int fixed = S->p->groups[t->g].fixed_dom;
	if (fixed >= 0 && d != fixed)
		return 0;
	double fd = 0;
	for (int i = 0; i < nke; i++)
		fd += t->F[(size_t)d * nke + i];
	return fd >= t->need ? fd : 0;
}

/* Types get domain columns tier by tier, the largest needs first. */
static int cmp_type_order(const void *ctx, int a, int b)
{
	const cb_state *S = ctx;
	const cb_type *x = &S->ty[a], *y = &S->ty[b];
	if (S->ct[x->c] != S->ct[y->c])
		return S->ct[x->c] < S->ct[y->c] ? -1 : 1;
	int nx = x->need, ny = y->need;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Gang types and their domain columns, tiers first and the largest needs
 * first within a tier, up to WILP_BOUND_MAX_DCOLS columns; the classes of
 * gangs typed here get no node-class columns (S->dom[c]).  -1 NOMEM. */
static int gang_types(cb_state *S, const int *ct, wa_arena *a)
{
	const wp_problem *p = S->p;
	int ng = p->ngroups;
	int *cand = wa_calloc(a, (size_t)ng + 1, sizeof *cand);
	int *tmp = wa_calloc(a, (size_t)ng + 1, sizeof *tmp);
	int *kpos = wa_calloc(a, (size_t)S->nk + 1, sizeof *kpos);
	S->ty = wa_calloc(a, (size_t)ng + 1, sizeof *S->ty);
	S->dom = wa_calloc(a, (size_t)p->nclasses + 1, sizeof *S->dom);
	if (!cand || !tmp || !kpos || !S->ty || !S->dom)
		return -1;
	int nc = 0;
	for (int g = 0; g < ng && !S->plain; g++)
		if (dom_class(S, g) >= 0)
			cand[nc++] = g;
	wis_sort(cand, tmp, nc, cmp_type, S);
	/* types: runs of equal candidates; fits shared by equal cands */
	double *F = NULL;
	S->nty = 0;
	S->nrun = 0;
	S->runkey = wa_calloc(a, (size_t)nc + 1, sizeof *S->runkey);
	if (!S->runkey)
		return -1;
	for (int i = 0; i < nc; i++) {
		int g = cand[i];
		if (i == 0 || wcb_cmp_fit(S, cand[i - 1], g)) {
			F = fit_per_domain(S, p->groups[g].classes[0],
					   p->groups[g].key, kpos, a);
			if (!F)
				return -1;
			S->runkey[S->nrun++] = p->groups[g].key;
		}
		int cnt = p->classes[p->groups[g].classes[0]].count;
		int need = p->groups[g].min_need;
		if (i > 0 && !cmp_type(S, cand[i - 1], g)) {
			cb_type *t = &S->ty[S->nty - 1];
			t->n++;
			t->tot += cnt;
			t->cmax = cnt > t->cmax ? cnt : t->cmax;
			t->need = need < t->need ? need : t->need;
			continue;
		}
		cb_type *t = &S->ty[S->nty++];
		t->g = g;
		t->c = p->groups[g].classes[0];
		t->n = 1;
		t->tot = t->cmax = cnt;
		t->need = need;
		t->F = F;
		t->run = S->nrun - 1;
	}
	/* the order types get columns in: tier, then need, largest first */
	int *ord = wa_calloc(a, (size_t)S->nty + 1, sizeof *ord);
	if (!ord)
		return -1;
	for (int t = 0; t < S->nty; t++)
		ord[t] = t;
	S->ct = ct;
	wis_sort(ord, tmp, S->nty, cmp_type_order, S);
	long left = WILP_BOUND_MAX_DCOLS;
	for (int i = 0; i < S->nty; i++) {
		cb_type *t = &S->ty[ord[i]];
		const wp_group *wg = &p->groups[t->g];
		const wtp_key *K = &p->topo->keys[wg->key];
		int e = S->cel[t->c], nke = S->kbeg[e + 1] - S->kbeg[e];
		long nz = 0;
		for (int d = 0; d < K->ndom; d++) {
			if (type_fit(S, t, d, nke) <= 0)
				continue;
			for (int j = 0; j < nke; j++)
				nz += t->F[(size_t)d * nke + j] > 0;
		}
		if (nz > left)
			continue; /* keeps node-class columns */
		left -= nz;
		t->on = true;
		t->ncol = (int)nz;
	}
	/* mark the typed classes */
	for (int i = 0, t = -1; i < nc; i++) {
		if (i == 0 || cmp_type(S, cand[i - 1], cand[i]))
			t++;
		if (S->ty[t].on)
			S->dom[p->groups[cand[i]].classes[0]] = 1;
	}
	return 0;
}

/* ------------------------------------------------ the LP */

/* The columns: node-class columns of the classes not typed, then the
 * domain columns of the types.  -1 NOMEM. */
static int columns(cb_state *S, wa_arena *a)
{
	const wp_problem *p = S->p;
	long n = 0;
	for (int c = 0; c < p->nclasses; c++)
		if (S->cel[c] >= 0 && !S->dom[c])
			n += S->kbeg[S->cel[c] + 1] - S->kbeg[S->cel[c]];
	for (int t = 0; t < S->nty; t++)
		n += S->ty[t].on ? S->ty[t].ncol : 0;
	S->jc = wa_calloc(a, (size_t)n + 1, sizeof *S->jc);
	S->jk = wa_calloc(a, (size_t)n + 1, sizeof *S->jk);
	S->jt = wa_calloc(a, (size_t)n + 1, sizeof *S->jt);
	S->jd = wa_calloc(a, (size_t)n + 1, sizeof *S->jd);
	S->jub = wa_calloc(a, (size_t)n + 1, sizeof *S->jub);
	S->jm = wa_calloc(a, (size_t)n + 1, sizeof *S->jm);
	S->jf = wa_calloc(a, (size_t)n + 1, sizeof *S->jf);
	if (!S->jc || !S->jk || !S->jt || !S->jd || !S->jub || !S->jm ||
	    !S->jf)
		return -1;
	int j = 0;
	for (int c = 0; c < p->nclasses; c++) {
		int e = S->cel[c];
		for (int i = 0; e >= 0 && !S->dom[c] &&
				i < S->kbeg[e + 1] - S->kbeg[e];
		     i++, j++) {
			S->jc[j] = c;
			S->jk[j] = S->klist[S->kbeg[e] + i];
			S->jt[j] = -1;
			S->jd[j] = -1;
			S->jub[j] = p->classes[c].count;
		}
	}
	for (int t = 0; t < S->nty; t++) {
		const cb_type *ty = &S->ty[t];
		if (!ty->on)
			continue;
		const wp_group *wg = &p->groups[ty->g];
		const wtp_key *K = &p->topo->keys[wg->key];
		int e = S->cel[ty->c], nke = S->kbeg[e + 1] - S->kbeg[e];
		double cnt = ty->cmax;
		for (int d = 0; d < K->ndom; d++) {
			double fd = type_fit(S, ty, d, nke);
			if (fd <= 0)
				continue;
			for (int i = 0; i < nke; i++) {
				double f = ty->F[(size_t)d * nke + i];
				if (f <= 0)
					continue;
				S->jc[j] = ty->c;
				S->jk[j] = S->klist[S->kbeg[e] + i];
				S->jt[j] = t;
				S->jd[j] = d;
				S->jub[j] = ty->n * (f < cnt ? f : cnt);
				S->jm[j] = fd < cnt ? fd : cnt;
				S->jf[j] = fd;
				j++;
			}
		}
	}
	S->ncol = j;
	return 0;
}

/* Virtual row ids: class rows, type rows, the node-class capacity rows,
 * then per key with typed gangs its domains' capacity rows. */
static long vr_glob(const cb_state *S, int k, int unused, int l, int w)
{
	(void)unused;
	return S->g0 + ((long)k * S->nlev + l) * S->nw + w;
}

static long vr_dom(const cb_state *S, int key, int d, int l, int w)
{
	return S->kbase[key] + ((long)d * S->nlev + l) * S->nw + w;
}

typedef long (*cb_vr)(const cb_state *, int, int, int, int);

/* The capacity coefficients of a pod of class c in the rows of one
 * place (node class or domain): per level from its own (all: only its
 * own and the top one), per resource its request, per shape its count
 * in that shape.  Leaving rows out only loosens the bound. */
static int cap_coefs(const cb_state *S, int c, cb_vr vr, int a1, int a2,
		     bool all, long *vo, double *co)
{
	const wp_problem *p = S->p;
	const int64_t *req = p->classes[c].req;
	int n = 0;
	for (int l = S->clev[c]; l < S->nlev; l++) {
		if (!all && l != S->clev[c] && l != S->nlev - 1)
			continue;
		for (int r = 0; r < p->nres; r++)
			if (req[r] > 0) {
				vo[n] = vr(S, a1, a2, l, r);
				co[n++] = (double)req[r] / S->rscale[r];
			}
		for (int h = 0; h < S->nsh; h++) {
			double f = wcb_shape_coef(S, req, S->shape[h]);
			if (f > 0) {
				vo[n] = vr(S, a1, a2, l, p->nres + h);
				co[n++] = f;
			}
		}
	}
	return n;
}

/* Column j's coefficients as (virtual row, value); returns the count. */
int wcb_col_coefs(const cb_state *S, int j, long *vo, double *co)
{
	int c = S->jc[j], n = 0;
	if (S->jt[j] < 0) {
		vo[n] = c;
		co[n++] = 1;
	} else {
		vo[n] = S->p->nclasses + S->jt[j];
		co[n++] = 1.0 / S->jm[j];
		vo[n] = S->p->nclasses + S->nty + S->jt[j];
		co[n++] = 1;
		/* at most k gangs needing more than F_D / (k + 1) */
		const cb_type *ty = &S->ty[S->jt[j]];
		for (int k = 1; k <= WILP_BOUND_MAX_PER_DOM; k++)
			if ((double)ty->need * (k + 1) > S->jf[j]) {
				vo[n] = S->runbase[ty->run] +
					(long)S->jd[j] * WILP_BOUND_MAX_PER_DOM +
					k - 1;
				co[n++] = 1.0 / S->jm[j];
			}
	}
	n += cap_coefs(S, c, vr_glob, S->jk[j], 0, true, vo + n, co + n);
	if (S->jt[j] < 0)
		return n;
	const wtp_topo *T = S->p->topo;
	int key = S->p->groups[S->ty[S->jt[j]].g].key, d = S->jd[j];
	while (key >= 0 && d >= 0) {
		if (S->kbase[key] >= 0)
			n += cap_coefs(S, c, vr_dom, key, d, false, vo + n,
				       co + n);
		wcb_up(T, &key, &d);
	}
	return n;
}

/* The right-hand sides of the capacity rows of one place: the nodes'
 * room, and per shape the pods of that shape they hold, node by node. */
static void cap_rhs(const cb_state *S, int n, double *rhs, cb_vr vr, int a1,
		    int a2)
{
	for (int l = 0; l < S->nlev; l++) {
		for (int r = 0; r < S->p->nres; r++)
			rhs[vr(S, a1, a2, l, r)] += ROOM(n, r, l) / S->rscale[r];
		for (int h = 0; h < S->nsh; h++)
			rhs[vr(S, a1, a2, l, S->p->nres + h)] +=
			    wcb_shape_fit(S, S->shape[h], n, l);
	}
}

/* Build and solve in the calling thread; GLPK faults come back as
 * WASP_ESOLVER.  1 when the model would be too large. */
static int solve_lp(cb_state *S, const int *ct, int *hint, wilp_cbound *b,
		    wb_deadline dl, wa_arena *a, wasp_error *err)
{
	const wp_problem *p = S->p;
	int nc = p->nclasses;
	int nkeys = p->topo ? p->topo->nkeys : 0;
	S->g0 = nc + 2L * S->nty;
	long nv = S->g0 + (long)S->nk * S->nlev * S->nw;
	S->kbase = wa_calloc(a, (size_t)nkeys + 1, sizeof *S->kbase);
	if (!S->kbase)
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int k = 0; k < nkeys; k++)
		S->kbase[k] = -1;
	for (int t = 0; t < S->nty; t++)
		if (S->ty[t].on)
			S->kbase[p->groups[S->ty[t].g].key] = 0;
	for (int k = 0; k < nkeys; k++)
		if (S->kbase[k] == 0) {
			S->kbase[k] = nv;
			nv += (long)p->topo->keys[k].ndom * S->nlev * S->nw;
		}
	S->runbase = wa_calloc(a, (size_t)S->nrun + 1, sizeof *S->runbase);
	if (!S->runbase)
		return werr(err, WASP_ENOMEM, "out of memory");
	S->run0 = nv;
	for (int r = 0; r < S->nrun; r++) {
		S->runbase[r] = nv;
		nv += (long)p->topo->keys[S->runkey[r]].ndom *
		      WILP_BOUND_MAX_PER_DOM;
	}
	double *rhs = wa_calloc(a, (size_t)nv + 1, sizeof *rhs);
	int *rowid = wa_calloc(a, (size_t)nv + 1, sizeof *rowid);
	size_t maxc = 2 + WILP_BOUND_MAX_PER_DOM + (size_t)(1 + nkeys) * S->nlev * S->nw;
	long *vo = wa_calloc(a, maxc + 1, sizeof *vo);
	double *co = wa_calloc(a, maxc + 1, sizeof *co);
	if (!rhs || !rowid || !vo || !co)
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int c = 0; c < nc; c++)
		rhs[c] = p->classes[c].count;
	for (int t = 0; t < S->nty; t++)
		rhs[nc + t] = S->ty[t].n;
	for (int t = 0; t < S->nty; t++)
		rhs[nc + S->nty + t] = S->ty[t].tot;
	for (int r = 0; r < S->nrun; r++)
		for (long i = 0; i < (long)p->topo->keys[S->runkey[r]].ndom *
					 WILP_BOUND_MAX_PER_DOM;
		     i++)
			rhs[S->runbase[r] + i] =
			    (double)(i % WILP_BOUND_MAX_PER_DOM + 1);
	for (int n = 0; n < p->nnodes; n++)
		cap_rhs(S, n, rhs, vr_glob, S->ncls[n], 0);
	for (int k = 0; k < nkeys; k++) {
		const wtp_key *K = &p->topo->keys[k];
		for (int d = 0; S->kbase[k] >= 0 && d < K->ndom; d++)
			for (int i = 0; i < K->dom_nnodes[d]; i++)
				cap_rhs(S, K->dom_nodes[d][i], rhs, vr_dom, k,
					d);
	}
	/* rows that hold a coefficient, numbered in virtual order */
	long nnz = 0;
	for (int j = 0; j < S->ncol; j++) {
		int n = wcb_col_coefs(S, j, vo, co);
		nnz += n;
		for (int i = 0; i < n; i++)
			rowid[vo[i]] = 1;
	}
	if (nnz > WILP_BOUND_MAX_NZ)
		return werr(err, WASP_ESOLVER,
			    "the bound LP would be too large");
	int nrow = 0;
	for (long v = 0; v < nv; v++)
		if (rowid[v])
			rowid[v] = ++nrow;
	S->rowid = rowid;
	int *ia = wa_calloc(a, (size_t)nnz + 1, sizeof *ia);
	int *ja = wa_calloc(a, (size_t)nnz + 1, sizeof *ja);
	double *ar = wa_calloc(a, (size_t)nnz + 1, sizeof *ar);
	int *ind = wa_calloc(a, (size_t)S->ncol + 2, sizeof *ind);
	double *val = wa_calloc(a, (size_t)S->ncol + 2, sizeof *val);
	if (!ia || !ja || !ar || !ind || !val)
		return werr(err, WASP_ENOMEM, "out of memory");
	long z = 0;
	for (int j = 0; j < S->ncol; j++) {
		int n = wcb_col_coefs(S, j, vo, co);
		for (int i = 0; i < n; i++, z++) {
			ia[z + 1] = rowid[vo[i]];
			ja[z + 1] = j + 1;
			ar[z + 1] = co[i];
		}
	}
	/* rows in the order of their virtual ids */
	double *vrhs = wa_calloc(a, (size_t)nrow + 1, sizeof *vrhs);
	if (!vrhs)
		return werr(err, WASP_ENOMEM, "out of memory");
	for (long v = 0; v < nv; v++)
		if (rowid[v])
			vrhs[rowid[v]] = rhs[v];
	/* everything allocated before GLPK runs: a fault loses nothing */
	wgl_env env;
	wgl_begin(&env, 0);
	if (setjmp(env.jb))
		return wgl_fault(&env, err);
	glp_prob *P = env.P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	if (S->ncol)
		glp_add_cols(P, S->ncol);
	for (int j = 0; j < S->ncol; j++)
		glp_set_col_bnds(P, j + 1, GLP_DB, 0, S->jub[j]);
	if (nrow)
		glp_add_rows(P, nrow);
	for (int i = 1; i <= nrow; i++)
		glp_set_row_bnds(P, i, GLP_UP, 0, vrhs[i]);
	if (nnz)
		glp_load_matrix(P, (int)nnz, ia, ja, ar);
	b->rows = nrow;
	b->cols = S->ncol;
	/* the tiers in sequence */
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_OFF;
	int rc = WASP_OK;
	/* a tier not reached in time keeps its total (a bound all the
	 * same) */
	for (int t = 0; t < b->ntier; t++)
		b->ub[t] = b->total[t];
	for (int t = 0; t < b->ntier; t++) {
		for (int j = 0; j < S->ncol; j++)
			glp_set_obj_coef(P, j + 1,
					 ct[S->jc[j]] == t ? wcb_pod_work(p, S->jc[j])
							   : 0);
		double left = wdl_left(dl, 0);
		if (!wdl_is_none(dl)) {
			if (left <= 0 && t > 0)
				break; /* the tiers below keep their totals */
			if (left <= 0) {
				rc = WASP_ECANCELED;
				break;
			}
			sm.tm_lim = (int)(left * 1000) + 1;
		}
		int sr = S->ncol ? glp_simplex(P, &sm) : 0;
		if (sr == GLP_EFAIL || sr == GLP_ESING || sr == GLP_ECOND) {
			/* once more, scaled, from a fresh basis, dual */
			glp_scale_prob(P, GLP_SF_AUTO);
			glp_adv_basis(P, 0);
			sm.meth = GLP_DUALP;
			sr = glp_simplex(P, &sm);
		}
		if (S->ncol && (sr || glp_get_status(P) != GLP_OPT)) {
			if (t > 0 && sr == GLP_ETMLIM)
				break; /* the tiers below keep their totals */
			rc = sr == GLP_ETMLIM ? WASP_ECANCELED : WASP_ESOLVER;
			break;
		}
		double zt = S->ncol ? glp_get_obj_val(P) : 0;
		/* work is a sum of whole pods (or of requests in 1/1000
		 * units): round down to that grain */
		double grain = p->value_res < 0 ? 1 : 0.001;
		double u = floor(zt / grain + WILP_BOUND_TOL) * grain;
		b->ub[t] = u < b->total[t] ? u : b->total[t];
		if (t == 0 && !S->plain) {
			/* whole gangs per domain: a share of the time left */
			wb_deadline dc = dl;
			if (!wdl_is_none(dl))
				dc = wdl_at(wb_now() +
					    wdl_left(dl, 0) * WILP_BOUND_CG_SHARE);
			double cu;
			if (wcb_cg_tier0(S, P, ct, dc, a, &cu, b)) {
				rc = WASP_ENOMEM;
				break;
			}
			b->lp_ub0 = b->ub[0];
			cu = floor(cu / grain + WILP_BOUND_TOL) * grain;
			b->ub[0] = cu < b->ub[0] ? cu : b->ub[0];
			/* whole gangs, integer: bound_mip.c takes its own
			 * share of the run's time */
			double m0 = wb_now();
			if (wcb_mip_tier0(S, ct, a, hint, &cu, b)) {
				rc = WASP_ENOMEM;
				break;
			}
			/* the tiers below keep the time they had */
			if (!wdl_is_none(dl)) {
				dl = wdl_at(dl.at + (wb_now() - m0));
				if (!wdl_is_none(S->run_dl) && dl.at > S->run_dl.at)
					dl = S->run_dl;
			}
			cu = floor(cu / grain + WILP_BOUND_TOL) * grain;
			b->mip_ub0 = cu;
			b->mip_unspread = floor(b->mip_unspread / grain +
						WILP_BOUND_TOL) * grain;
			b->ub[0] = cu < b->ub[0] ? cu : b->ub[0];
		}
		/* the next tiers only among plans reaching it */
		int len = 0;
		for (int j = 0; j < S->ncol; j++)
			if (ct[S->jc[j]] == t) {
				ind[++len] = j + 1;
				val[len] = wcb_pod_work(p, S->jc[j]);
			}
		if (len && t + 1 < b->ntier) {
			int row = glp_add_rows(P, 1);
			glp_set_mat_row(P, row, len, ind, val);
			glp_set_row_bnds(P, row, GLP_LO,
					 b->ub[t] - WILP_BOUND_TOL * grain, 0);
		}
	}
	wgl_end(&env);
	if (rc == WASP_ENOMEM)
		return werr(err, rc, "out of memory");
	if (rc == WASP_ESOLVER)
		return werr(err, rc, "the bound LP failed");
	if (rc == WASP_ECANCELED)
		return werr(err, rc, "no time left for the bound LP");
	return WASP_OK;
}
#undef ROOM

/* plain: without the rounded rows and the domain columns. */
static int class_bound(const wp_problem *p, wb_deadline dl,
		       wb_deadline run_dl, bool plain, int *hint,
		       wilp_cbound *b, wasp_error *err)
{
	for (int g = 0; hint && g < WILP_HINTS * p->ngroups; g++)
		hint[g] = -1;
	memset(b, 0, sizeof *b);
	b->lp_ub0 = NAN;
	b->mip_ub0 = NAN;
	b->mip_unspread = NAN;
	wp_sol *zero = NULL;
	wa_arena *a = wa_new();
	cb_state *S = a ? wa_alloc(a, sizeof *S) : NULL;
	if (!S || !(zero = wp_sol_new(p, a))) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	memset(S, 0, sizeof *S);
	S->p = p;
	S->plain = plain;
	S->run_dl = run_dl;
	/* the tiers as wp_evaluate has them, and their totals */
	wp_value v;
	wp_evaluate(p, zero, &v);
	b->ntier = v.nprio;
	memcpy(b->prio, v.prio, sizeof *b->prio * v.nprio);
	int *ct = wa_calloc(a, p->nclasses + 1, sizeof *ct);
	S->clev = wa_calloc(a, p->nclasses + 1, sizeof *S->clev);
	if (!ct || !S->clev) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	class_tiers(p, &v, ct);
	for (int c = 0; c < p->nclasses; c++)
		b->total[ct[c]] += wcb_pod_work(p, c) * p->classes[c].count;
	int rc = node_classes(S, a);
	if (rc == 0) {
		long ncol = 0;
		for (int c = 0; c < p->nclasses; c++)
			if (S->cel[c] >= 0)
				ncol += S->kbeg[S->cel[c] + 1] -
					S->kbeg[S->cel[c]];
		b->node_classes = S->nk;
		if (ncol > WILP_BOUND_MAX_COLS ||
		    ncol * (long)p->nres * 2 > WILP_BOUND_MAX_NZ)
			rc = 1;
	}
	if (rc == 0)
		rc = room(S, a);
	for (int c = 0; rc == 0 && c < p->nclasses; c++)
		S->clev[c] = lev_of(S, wilp_eff_prio(p, c));
	if (rc == 0)
		rc = shapes(S, a);
	if (rc == 0)
		rc = gang_types(S, ct, a);
	if (rc == 0)
		rc = columns(S, a);
	if (rc < 0) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	if (rc > 0) {
		wa_destroy(a);
		return werr(err, WASP_ESOLVER,
			    "the bound LP would be too large");
	}
	rc = solve_lp(S, ct, hint, b, dl, a, err);
	for (int t = 0; t < S->nty; t++)
		b->dom_gangs += S->ty[t].on ? S->ty[t].n : 0;
	wa_destroy(a);
	if (rc)
		return rc;
	b->ok = true;
	/* weights: the lowest tier 1, each above it 1 + the range below */
	b->w[b->ntier - 1] = 1;
	for (int t = b->ntier - 2; t >= 0; t--)
		b->w[t] = b->w[t + 1] * (1 + b->total[t + 1]);
	return WASP_OK;
}

int wilp_class_bound(const wp_problem *p, wb_deadline dl, wilp_cbound *b,
		     wasp_error *err)
{
	return wilp_class_bound_hint(p, dl, NULL, b, err);
}

int wilp_class_bound_hint(const wp_problem *p, wb_deadline dl, int *hint,
			  wilp_cbound *b, wasp_error *err)
{
	/* the full LP within a share of the time left; past it, or when
	 * it would be too large, the plain one (a bound all the same) */
	double left = wdl_left(dl, 0);
	double give = left * WILP_BOUND_SHARE;
	wb_deadline d1 = dl;
	if (!wdl_is_none(dl))
		d1 = wdl_at(wb_now() + (give > WILP_BOUND_MIN_S
						? give
						: WILP_BOUND_MIN_S));
	if (d1.at > dl.at)
		d1 = dl;
	int rc = class_bound(p, d1, dl, false, hint, b, err);
	if ((rc == WASP_ECANCELED || rc == WASP_ESOLVER) &&
	    !wdl_passed(dl, 0)) {
		werr_clear(err);
		rc = class_bound(p, dl, dl, true, hint, b, err);
	}
	return rc;
}

int wilp_class_bound_plain(const wp_problem *p, wb_deadline dl,
			   wilp_cbound *b, wasp_error *err)
{
	return class_bound(p, dl, dl, true, NULL, b, err);
}

double wilp_cbound_value(const wilp_cbound *b, const wp_value *v)
{
	long double z = 0;
	for (int t = 0; t < b->ntier && t < v->nprio; t++)
		z += (long double)b->w[t] * v->work[t];
	return (double)z;
}

double wilp_cbound_bound(const wilp_cbound *b)
{
	long double z = 0;
	for (int t = 0; t < b->ntier; t++)
		z += (long double)b->w[t] * b->ub[t];
	return (double)z;
}
