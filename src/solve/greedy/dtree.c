/*
 * dtree.c -- the domains of a key in a tree over the domain index's
 * totals, so that a victim search finds the domains worth scoring without
 * visiting every domain of the key.
 *
 * Why: every group that fails to place asks, for each domain of its key,
 * whether anything of lower priority runs there (wgr_ix_dmin) and whether
 * the group could fit with all of it gone (wgr_ix_bound).  With racks of
 * a fixed size the domains grow with the cluster, and so does that loop,
 * once per waiting group: a quadratic term, though few domains pass.
 *
 * The tree: leaves are the domains of one key in index order (a power of
 * two of them), and for each number t of priority bands (the bands below
 * a group's priority are the first t) every slot holds, per resource, the
 * most room of a domain below it with the first t bands evicted (free
 * room plus their requests), and the lowest band with a live pod.  A
 * subtree where no domain has a pod below the group's bands, or where even
 * that most room is short of the group's minimum, is skipped; a leaf that
 * is reached passes both tests exactly (the same sums as wgr_ix_dmin and
 * wgr_ix_bound).  What comes out is the domains a loop over all of them
 * would keep, in index order, so the plan does not change; the checked
 * pass compares.
 *
 * Kept up to date lazily: a change of a domain's totals (index.c) marks
 * it stale; a query first recomputes the stale domains and their paths.
 */
#include "solve/greedy/greedy_int.h"

#include <stdint.h>
#include <string.h>

struct gdtree {
	int P;               /* leaves: a power of two >= ndom         */
	int nt;              /* band counts: nb + 1                    */
	int64_t *mx;         /* nt * 2P * nres: per t, slot, resource  */
	int *fb;             /* 2P: the lowest band with a live pod    */
	unsigned char *stale;/* per domain                             */
	int *sl, nsl;        /* the stale domains                      */
};

int wgr_dt_setup(gs *G)
{
	gix *X = G->ix;
	const wtp_topo *t = G->p->topo;
	int nres = G->nres;
	X->dt = wa_calloc(G->tmp, (size_t)X->nk + 1, sizeof *X->dt);
	if (!X->dt)
		return -1;
	if (nres > WGR_IX_MAX_RES || X->nb > WGR_DT_MAX_BANDS)
		return 0; /* no bound to prune with: no trees */
	for (int s = 0; s + 1 < X->nk; s++) {
		int nd = t->keys[s].ndom;
		if (nd < WGR_DT_MIN)
			continue;
		gdtree *T = wa_calloc(G->tmp, 1, sizeof *T);
		if (!T)
			return -1;
		T->P = 1;
		while (T->P < nd)
			T->P *= 2;
		T->nt = X->nb + 1;
		T->mx = wa_alloc(G->tmp, (size_t)T->nt * 2 * T->P * nres *
						 sizeof *T->mx + 1);
		T->fb = wa_alloc(G->tmp, (size_t)2 * T->P * sizeof *T->fb);
		T->stale = wa_calloc(G->tmp, (size_t)nd, 1);
		T->sl = wa_alloc(G->tmp, (size_t)nd * sizeof *T->sl);
		if (!T->mx || !T->fb || !T->stale || !T->sl)
			return -1;
		X->dt[s] = T;
		/* empty leaves: no room, no live pod */
		for (int tt = 0; tt < T->nt; tt++)
			for (size_t i = 0; i < (size_t)2 * T->P * nres; i++)
				T->mx[(size_t)tt * 2 * T->P * nres + i] =
				    INT64_MIN;
		for (int i = 0; i < 2 * T->P; i++)
			T->fb[i] = X->nb;
		for (int d = 0; d < nd; d++)
			wgr_dt_mark(G, s, d);
	}
	return 0;
}

void wgr_dt_mark(gs *G, int s, int d)
{
	gdtree *T = G->ix->dt[s];
	if (!T->stale[d]) {
		T->stale[d] = 1;
		T->sl[T->nsl++] = d;
	}
}

/* Slot i of t's tree, resource r. */
static int64_t *mx_at(const gdtree *T, int nres, int t, int i)
{
	return T->mx + ((size_t)t * 2 * T->P + i) * nres;
}

/* Leaf of domain d from the totals. */
static void leaf(gs *G, int s, gdtree *T, int d)
{
	const gix *X = G->ix;
	int nres = G->nres, i = T->P + d;
	const int64_t *f = X->fsum[s] + (size_t)d * nres;
	const int64_t *e = X->esum[s] + (size_t)d * X->nb * nres;
	const int32_t *c = X->ecnt[s] + (size_t)d * X->nb;
	int64_t *m = mx_at(T, nres, 0, i);
	memcpy(m, f, (size_t)nres * sizeof *m);
	for (int t = 1; t < T->nt; t++) {
		int64_t *prev = m;
		m = mx_at(T, nres, t, i);
		for (int r = 0; r < nres; r++)
			m[r] = prev[r] + e[(size_t)(t - 1) * nres + r];
	}
	T->fb[i] = X->nb;
	for (int b = 0; b < X->nb; b++)
		if (c[b] > 0) {
			T->fb[i] = b;
			break;
		}
}

/* Inner slot i from its children. */
static void inner(gdtree *T, int nres, int i)
{
	for (int t = 0; t < T->nt; t++) {
		int64_t *m = mx_at(T, nres, t, i);
		const int64_t *a = mx_at(T, nres, t, 2 * i);
		const int64_t *b = mx_at(T, nres, t, 2 * i + 1);
		for (int r = 0; r < nres; r++)
			m[r] = a[r] > b[r] ? a[r] : b[r];
	}
	T->fb[i] = T->fb[2 * i] < T->fb[2 * i + 1] ? T->fb[2 * i]
						     : T->fb[2 * i + 1];
}

static void refresh(gs *G, int s, gdtree *T)
{
	int nres = G->nres;
	for (int j = 0; j < T->nsl; j++) {
		int d = T->sl[j];
		T->stale[d] = 0;
		leaf(G, s, T, d);
		for (int i = (T->P + d) / 2; i >= 1; i /= 2)
			inner(T, nres, i);
	}
	T->nsl = 0;
}

int wgr_dt_doms(gs *G, const wp_group *wg, int ki, int32_t below, int need,
		int *out)
{
	gix *X = G->ix;
	gdtree *T = ki >= 0 && X->dt ? X->dt[ki] : NULL;
	if (!T)
		return -1;
	refresh(G, ki, T);
	int t = 0;
	while (t < X->nb && X->bprio[t] < below)
		t++;
	int nd = G->p->topo->keys[ki].ndom, no = 0, nres = G->nres;
	/* depth-first, left to right: domains come out in index order */
	struct span {
		int i, a, b;
	} st[2 * 32];
	int top = 0;
	st[top++] = (struct span){1, 0, T->P - 1};
	while (top > 0) {
		struct span sp = st[--top];
		if (sp.a >= nd || T->fb[sp.i] >= t ||
		    wgr_ix_room_bound(G, wg, mx_at(T, nres, t, sp.i)) < need)
			continue;
		if (sp.a == sp.b) {
			out[no++] = sp.a;
			continue;
		}
		int mid = sp.a + (sp.b - sp.a) / 2;
		st[top++] = (struct span){2 * sp.i + 1, mid + 1, sp.b};
		st[top++] = (struct span){2 * sp.i, sp.a, mid};
	}
	if (G->ix_check) {
		/* the checked pass: the domains the two tests keep */
		int j = 0;
		bool same = true;
		for (int d = 0; d < nd && same; d++)
			if (wgr_ix_dmin(G, ki, d) < below &&
			    wgr_ix_bound(G, wg, ki, d, below) >= need)
				same = j < no && out[j++] == d;
		G->ix_checks++;
		G->dt_checks++;
		G->ix_bad += !same || j != no;
	}
	return no;
}
