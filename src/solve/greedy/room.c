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
 *
 * Per run and class profile, the fits summed and the best node (best-fit
 * order) are kept for the room they were computed on, known by a hash of
 * the run's room that each touch updates: a trial that evicts and puts
 * back leaves them.  wgr_room_select adds up the runs' sums and, where
 * the group fits, takes a placement's nodes from a heap of the runs' best
 * nodes, in the order a heap of every candidate gives (fit.c,
 * place_one), without listing the nodes of a domain that is mostly
 * full.
 */
#include "solve/greedy/greedy_int.h"

#include <stdint.h>
#include <string.h>

/* What a run's nodes offer a profile, for the room whose hash is h. */
typedef struct rrun {
	uint64_t h;
	int64_t sum;  /* fits summed; -1: not known           */
	ncand best;   /* the best fit of the run; fit 0: none */
} rrun;

struct groom {
	int P;                /* leaves (runs): a power of two         */
	int64_t *mx;          /* 2P * nres: per tree slot, resource    */
	unsigned char *stale; /* per run: a node changed since refresh */
	int *sl, nsl;         /* the stale runs                        */
	uint64_t *nh;         /* per node: a hash of its room          */
	uint64_t *rh;         /* per run: its nodes' nh xor-ed         */
	rrun **pr;            /* per profile (lazily), per run         */
	uint32_t *taken;      /* per node: taken in selection `epoch`  */
	uint32_t epoch;
	int *runs;            /* scratch: the runs a descent finds     */
	ncand *heap;          /* scratch: a best node per run          */
	ncand *chk;           /* the checked pass: a full list         */
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

/* A hash of node n's free room (and of n, so that two nodes trading
 * their room change their run's rh). */
static uint64_t room_hash(const gs *G, int n)
{
	const int64_t *f = G->fr + (size_t)n * G->nres;
	uint64_t h = wgr_mix(0x9e3779b97f4a7c15ULL, (uint64_t)n);
	for (int r = 0; r < G->nres; r++)
		h = wgr_mix(h, (uint64_t)f[r]);
	return h;
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
	R->nh = wa_alloc(G->tmp, ((size_t)G->nn + 1) * sizeof *R->nh);
	R->rh = wa_calloc(G->tmp, (size_t)R->P, sizeof *R->rh);
	R->runs = wa_alloc(G->tmp, (size_t)R->P * sizeof *R->runs);
	R->heap = wa_alloc(G->tmp, (size_t)R->P * sizeof *R->heap);
	R->pr = wa_calloc(G->tmp, (size_t)G->p->nclasses + 1, sizeof *R->pr);
	R->taken = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *R->taken);
	if (!R->mx || !R->stale || !R->sl || !R->nh || !R->rh || !R->runs ||
	    !R->heap || !R->pr || !R->taken)
		return -1;
	R->epoch = 1; /* taken[] is 0: no node taken */
	for (int n = 0; n < G->nn; n++) {
		R->nh[n] = room_hash(G, n);
		R->rh[n / WGR_ROOM_RUN] ^= R->nh[n];
	}
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
	uint64_t h = room_hash(G, n);
	R->rh[run] ^= R->nh[n] ^ h;
	R->nh[n] = h;
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

/* The runs that meet [lo, hi] and hold a node with room for a pod of
 * class c, in index order, into R->runs; their count. */
static int room_runs(gs *G, int c, int lo, int hi)
{
	groom *R = G->room;
	const cinfo *ci = &G->ci[c];
	const int64_t *req = G->p->classes[c].req;
	refresh(G);
	/* depth-first, left to right, so runs come out in index order;
	 * an entry is a tree slot and the runs [a, b] below it */
	struct span {
		int i, a, b;
	} st[2 * 32];
	int top = 0, nr = 0;
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
		R->runs[nr++] = s.a;
	}
	return nr;
}

/* The eligible nodes of [lo, hi] where a pod of class c fits, in node
 * order, into out; their count. */
static int cands(gs *G, int c, int lo, int hi, ncand *out)
{
	int nr = room_runs(G, c, lo, hi), nc = 0;
	for (int i = 0; i < nr; i++) {
		int a = G->room->runs[i] * WGR_ROOM_RUN;
		int b = a + WGR_ROOM_RUN - 1;
		if (a < lo)
			a = lo;
		if (b > hi)
			b = hi;
		for (int n = a; n <= b; n++)
			nc = wgr_cand(G, c, n, out, nc);
	}
	return nc;
}

/* Nodes a..b of one run for class c: their fits summed into *sum and
 * the best of them (fewest slots, least room, lowest index; fit 0:
 * none) into *best, passing over nodes taken in this selection. */
static void run_scan(gs *G, int c, int a, int b, int64_t *sum, ncand *best)
{
	groom *R = G->room;
	*sum = 0;
	*best = (ncand){0, 0, -1};
	for (int n = a; n <= b; n++) {
		if (!wgr_elig_bit(&G->ci[c], n) || R->taken[n] == R->epoch)
			continue;
		int64_t f = wgr_node_fit_c(G, c, n);
		if (f <= 0)
			continue;
		*sum += f;
		ncand x = {f, wgr_node_frac(G, n), n};
		if (!best->fit || wgr_nc_less(&x, best))
			*best = x;
	}
}

/* What run `run`, cut to [lo, hi], offers class c: kept per profile
 * while the run's room is the same (by its hash: trials that evict and
 * restore leave it), unless the selection has taken one of its nodes.
 * NULL on NOMEM. */
static const rrun *run_get(gs *G, int c, int run, int lo, int hi,
			   bool fresh, rrun *tmp)
{
	groom *R = G->room;
	int pr = G->ci[c].prof;
	int a = run * WGR_ROOM_RUN, b = a + WGR_ROOM_RUN - 1;
	if (b > G->nn - 1)
		b = G->nn - 1;
	bool whole = a >= lo && b <= hi && !fresh;
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	if (!whole) {
		run_scan(G, c, a, b, &tmp->sum, &tmp->best);
		return tmp;
	}
	if (!R->pr[pr]) {
		R->pr[pr] = wa_alloc(G->tmp, (size_t)R->P * sizeof **R->pr);
		if (!R->pr[pr])
			return NULL;
		for (int i = 0; i < R->P; i++)
			R->pr[pr][i].sum = -1;
	}
	rrun *e = &R->pr[pr][run];
	if (e->sum < 0 || e->h != R->rh[run]) {
		run_scan(G, c, a, b, &e->sum, &e->best);
		e->h = R->rh[run];
	}
	return e;
}

static void next_epoch(gs *G)
{
	groom *R = G->room;
	if (++R->epoch == 0) {
		memset(R->taken, 0, (size_t)G->nn * sizeof *R->taken);
		R->epoch = 1;
	}
}

/* Best-fit selection of m pods over [lo, hi]: the order in which
 * wgr_place_cands takes a full candidate list, from a heap of each run's
 * best node (a node taken, its run offers its next best).  *sum gets the
 * fits summed; when fewer than `need` pods fit, nothing is selected.
 * Writes the nodes and their counts to out (fit: the count); their
 * number, -1 on NOMEM. */
static int select_runs(gs *G, int c, int lo, int hi, int64_t m, int need,
		       ncand *out, int64_t *sum)
{
	groom *R = G->room;
	int nr = room_runs(G, c, lo, hi), nh = 0, no = 0;
	ncand *h = R->heap;
	rrun tmp;
	*sum = 0;
	for (int i = 0; i < nr; i++) {
		const rrun *e = run_get(G, c, R->runs[i], lo, hi, false, &tmp);
		if (!e)
			return -1;
		*sum += e->sum;
		if (e->best.fit > 0)
			h[nh++] = e->best;
	}
	if ((*sum < m ? *sum : m) < need)
		return 0;
	next_epoch(G);
	for (int i = nh / 2 - 1; i >= 0; i--)
		wgr_nc_sift(h, nh, i);
	while (m > 0 && nh > 0) {
		ncand top = h[0];
		int64_t cnt = top.fit < m ? top.fit : m;
		out[no++] = (ncand){cnt, top.frac, top.n};
		m -= cnt;
		R->taken[top.n] = R->epoch;
		const rrun *e = run_get(G, c, top.n / WGR_ROOM_RUN, lo, hi,
					true, &tmp);
		if (e->best.fit > 0) /* a fresh scan: never NULL */
			h[0] = e->best;
		else
			h[0] = h[--nh];
		wgr_nc_sift(h, nh, 0);
	}
	next_epoch(G); /* outside a selection no node reads as taken */
	return no;
}

/* The checked pass: class c's candidates in domain d of k by a scan of
 * the domain's own node list, fits computed afresh (not from the fit
 * cache), into R->chk; their count, -1 on NOMEM. */
static int scan_fresh(gs *G, int c, const wtp_key *k, int d)
{
	groom *R = G->room;
	if (!R->chk && !(R->chk = wa_alloc(G->tmp, ((size_t)G->nn + 1) *
						   sizeof *R->chk)))
		return -1;
	const wp_class *cl = &G->p->classes[c];
	const int *nodes = k ? k->dom_nodes[d] : cl->elig;
	int nn = k ? k->dom_nnodes[d] : cl->nelig, nc = 0;
	for (int i = 0; i < nn; i++) {
		int n = nodes[i];
		int64_t f = wgr_elig_bit(&G->ci[c], n) ? wgr_node_fit(G, c, n)
						       : 0;
		if (f > 0)
			R->chk[nc++] = (ncand){f, wgr_node_frac(G, n), n};
	}
	return nc;
}

/* The checked pass: out[0..nc) must be what a scan finds.  -1 on
 * NOMEM. */
static int check(gs *G, int c, const wtp_key *k, int d, const ncand *out,
		 int nc)
{
	int n2 = scan_fresh(G, c, k, d);
	if (n2 < 0)
		return -1;
	bool same = n2 == nc;
	for (int i = 0; same && i < nc; i++)
		same = out[i].n == G->room->chk[i].n &&
		       out[i].fit == G->room->chk[i].fit;
	G->ix_checks++;
	G->room_checks++;
	G->ix_bad += !same;
	return 0;
}

/* Does the tree serve domain d of k (k NULL: the cluster) for class c?
 * 1 with its index range in *lo, *hi (set up on first use); -1: scan
 * it (too small, not a range of indices, a class eligible on few
 * nodes); -2 NOMEM. */
static int serves(gs *G, int c, const wtp_key *k, int d, int *lo, int *hi)
{
	const wp_class *cl = &G->p->classes[c];
	int nn = k ? k->dom_nnodes[d] : cl->nelig;
	*lo = 0;
	*hi = G->nn - 1;
	if (nn < WGR_ROOM_MIN)
		return -1;
	if (k) {
		/* a domain whose nodes are a range of indices (they are in
		 * index order) */
		*lo = k->dom_nodes[d][0];
		*hi = k->dom_nodes[d][nn - 1];
		if (*hi - *lo + 1 != nn)
			return -1;
	} else if ((int64_t)cl->nelig * 4 < G->nn) {
		/* few eligible nodes: the room of the others would lead the
		 * descent to nodes the class may not use */
		return -1;
	}
	if (!G->room && room_setup(G))
		return -2;
	return 1;
}

int wgr_room_find(gs *G, int c, const wtp_key *k, int d, ncand *out)
{
	int lo, hi, r = serves(G, c, k, d, &lo, &hi);
	if (r < 0)
		return r;
	int nc = cands(G, c, lo, hi, out);
	if (G->ix_check && check(G, c, k, d, out, nc))
		return -2;
	return nc;
}

int wgr_room_select(gs *G, int c, const wtp_key *k, int d, int64_t m,
		    int need, ncand *out, int64_t *sum)
{
	int lo, hi, r = serves(G, c, k, d, &lo, &hi);
	if (r < 0)
		return r;
	int no = select_runs(G, c, lo, hi, m, need, out, sum);
	if (no < 0)
		return -2;
	if (G->ix_check) {
		/* the checked pass: the sum, and the order a heap of every
		 * candidate (wgr_place_cands) takes them in */
		int nc = scan_fresh(G, c, k, d);
		if (nc < 0)
			return -2;
		ncand *h = G->room->chk;
		int64_t s = 0;
		for (int i = 0; i < nc; i++)
			s += h[i].fit;
		bool same = s == *sum;
		int j = 0;
		if ((s < m ? s : m) >= need) {
			for (int i = nc / 2 - 1; i >= 0; i--)
				wgr_nc_sift(h, nc, i);
			for (int64_t left = m; left > 0 && nc > 0 && same;
			     j++) {
				ncand top = h[0];
				int64_t cnt = top.fit < left ? top.fit : left;
				same = j < no && out[j].n == top.n &&
				       out[j].fit == cnt;
				left -= cnt;
				h[0] = h[--nc];
				wgr_nc_sift(h, nc, 0);
			}
		}
		G->ix_checks++;
		G->room_checks++;
		G->ix_bad += !same || j != no;
	}
	return no;
}
