/*
 * room.c -- the free room of every node in a max-tree, so that a search
 * finds the nodes that could take a pod of a class without visiting the
 * nodes that could not.
 *
 * Why: a group without a topology key is placed, searched for victims
 * and explained over the whole cluster, and each of these summed or
 * listed its classes' fits by a scan of every eligible node.  With as
 * many pending groups as nodes that is quadratic, and once the cluster
 * is full a group that waits finds fewer nodes with room than it has
 * pods, out of tens of thousands scanned.
 *
 * The tree: leaves are runs of WGR_ROOM_RUN nodes in index order (a
 * power of two of them), each slot holds, per resource, the most free
 * room of any node below it.  A class can use a node only where every
 * resource it requests is free (wgr_cap_fit), so a subtree whose maximum
 * is short on one of them holds no candidate and is skipped; a run that
 * is not skipped is scanned as before.  What comes out is every
 * eligible node with a fit above zero, in node order: exactly the set a
 * scan gives (the checked pass compares), so sums and best-fit order,
 * a total order on (fit, room, node), do not change.
 *
 * Kept up to date lazily: wgr_touch (through which every change of a
 * node's room goes) marks the node stale; a query first refreshes the
 * stale runs and their paths to the root.  Trials that change a node
 * many times and put it back cost one refresh.
 */
#include "solve/greedy/greedy_int.h"

#include <stdint.h>

struct groom {
	int P;                /* leaves (runs): a power of two         */
	int64_t *mx;          /* 2P * nres: per tree slot, resource    */
	unsigned char *stale; /* per run: a node changed since refresh */
	int *sl, nsl;         /* the stale runs                        */
};

/* Slot i (a leaf) takes the most room of the nodes of its run. */
static bool leaf_max(gs *G, int i)
{
	groom *R = G->room;
	int nres = G->nres, a = (i - R->P) * WGR_ROOM_RUN;
	int b = a + WGR_ROOM_RUN < G->nn ? a + WGR_ROOM_RUN : G->nn;
	int64_t *m = R->mx + (size_t)i * nres;
	bool moved = false;
	for (int r = 0; r < nres; r++) {
		int64_t v = INT64_MIN;
		for (int n = a; n < b; n++)
			if (G->fr[(size_t)n * nres + r] > v)
				v = G->fr[(size_t)n * nres + r];
		moved |= m[r] != v;
		m[r] = v;
	}
	return moved;
}

/* Slot i (inner) takes the larger of its children's; moved or not. */
static bool inner_max(gs *G, int i)
{
	int nres = G->nres;
	int64_t *m = G->room->mx + (size_t)i * nres;
	const int64_t *a = G->room->mx + (size_t)2 * i * nres, *b = a + nres;
	bool moved = false;
	for (int r = 0; r < nres; r++) {
		int64_t v = a[r] > b[r] ? a[r] : b[r];
		moved |= m[r] != v;
		m[r] = v;
	}
	return moved;
}

static int room_setup(gs *G)
{
	groom *R = wa_calloc(G->tmp, 1, sizeof *R);
	if (!R)
		return -1;
	int runs = (G->nn + WGR_ROOM_RUN - 1) / WGR_ROOM_RUN;
	R->P = 1;
	while (R->P < runs)
		R->P *= 2;
	R->mx = wa_alloc(G->tmp,
			 (size_t)2 * R->P * G->nres * sizeof *R->mx + 1);
	R->stale = wa_calloc(G->tmp, (size_t)R->P, 1);
	R->sl = wa_alloc(G->tmp, (size_t)R->P * sizeof *R->sl);
	if (!R->mx || !R->stale || !R->sl)
		return -1;
	G->room = R;
	for (int i = R->P; i < 2 * R->P; i++)
		leaf_max(G, i);
	for (int i = R->P - 1; i >= 1; i--)
		inner_max(G, i);
	return 0;
}

void wgr_room_touch(gs *G, int n)
{
	groom *R = G->room;
	int run = n / WGR_ROOM_RUN;
	if (!R->stale[run]) {
		R->stale[run] = 1;
		R->sl[R->nsl++] = run;
	}
}

static void refresh(gs *G)
{
	groom *R = G->room;
	for (int s = 0; s < R->nsl; s++) {
		int run = R->sl[s];
		R->stale[run] = 0;
		int i = R->P + run;
		for (bool moved = leaf_max(G, i); moved && i > 1;)
			moved = inner_max(G, i /= 2);
	}
	R->nsl = 0;
}

/* Could a node below tree slot i take one pod of class c? */
static bool has_room(const gs *G, const cinfo *ci, const int64_t *req,
		     int i)
{
	const int64_t *m = G->room->mx + (size_t)i * G->nres;
	for (int j = 0; j < ci->nr; j++)
		if (m[ci->rl[j]] < req[ci->rl[j]])
			return false;
	return true;
}

/* The eligible nodes of [lo, hi] where a pod of class c fits, in node
 * order, into out; their count. */
static int cands(gs *G, int c, int lo, int hi, ncand *out)
{
	groom *R = G->room;
	const cinfo *ci = &G->ci[c];
	const int64_t *req = G->p->classes[c].req;
	refresh(G);
	/* depth-first, left to right, so nodes come out in index order;
	 * an entry is a tree slot and the runs [a, b] below it */
	struct span {
		int i, a, b;
	} st[2 * 32];
	int top = 0, nc = 0;
	int rlo = lo / WGR_ROOM_RUN, rhi = hi / WGR_ROOM_RUN;
	st[top++] = (struct span){1, 0, R->P - 1};
	while (top > 0) {
		struct span s = st[--top];
		if (s.b < rlo || s.a > rhi || !has_room(G, ci, req, s.i))
			continue;
		if (s.a < s.b) {
			int mid = s.a + (s.b - s.a) / 2;
			st[top++] = (struct span){2 * s.i + 1, mid + 1, s.b};
			st[top++] = (struct span){2 * s.i, s.a, mid};
			continue;
		}
		int a = s.a * WGR_ROOM_RUN, b = a + WGR_ROOM_RUN - 1;
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		for (int n = a; n <= b; n++)
			nc = wgr_cand(G, c, n, out, nc);
	}
	return nc;
}

/* The checked pass: out[0..nc) must be what a scan of the domain's own
 * node list finds, fits computed afresh (not from the fit cache). */
static void check(gs *G, int c, const wtp_key *k, int d,
		  const ncand *out, int nc)
{
	const wp_class *cl = &G->p->classes[c];
	const int *nodes = k ? k->dom_nodes[d] : cl->elig;
	int nn = k ? k->dom_nnodes[d] : cl->nelig, j = 0;
	bool same = true;
	for (int i = 0; same && i < nn; i++) {
		int n = nodes[i];
		int64_t f = wgr_elig_bit(&G->ci[c], n) ? wgr_node_fit(G, c, n)
						       : 0;
		if (f > 0) {
			same = j < nc && out[j].n == n && out[j].fit == f;
			j++;
		}
	}
	G->ix_checks++;
	G->room_checks++;
	G->ix_bad += !same || j != nc;
}

int wgr_room_find(gs *G, int c, const wtp_key *k, int d, ncand *out)
{
	const wp_class *cl = &G->p->classes[c];
	int nn = k ? k->dom_nnodes[d] : cl->nelig, lo = 0, hi = G->nn - 1;
	if (nn < WGR_ROOM_MIN)
		return -1;
	if (k) {
		/* a domain whose nodes are a range of indices (they are in
		 * index order) */
		lo = k->dom_nodes[d][0];
		hi = k->dom_nodes[d][nn - 1];
		if (hi - lo + 1 != nn)
			return -1;
	} else if ((int64_t)cl->nelig * 4 < G->nn) {
		/* few eligible nodes: the room of the others would lead the
		 * descent to nodes the class may not use */
		return -1;
	}
	if (!G->room && room_setup(G))
		return -2;
	int nc = cands(G, c, lo, hi, out);
	if (G->ix_check)
		check(G, c, k, d, out, nc);
	return nc;
}
