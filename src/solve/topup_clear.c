/*
 * topup_clear.c -- clearing nodes for larger pods, the top-up's last
 * exchange (topup_int.h; doc/formulation.md §12, "Clearing nodes").
 *
 * Where small pods of a priority sit on a node that a larger pod of that
 * priority could have whole, while fragments elsewhere (nodes kept
 * below the larger pod by what their level may neither evict nor move)
 * have room for them, the small pods move to the fragments and the
 * larger pod takes the node.  A fragment's room may be held by pods of
 * lower priorities: running units are evicted, pending pods past their
 * group's minimum give way one by one, and a lower group gives way
 * whole (it waits, and the units it evicted are rehomed).  No pod of
 * the level is lost, so each larger pod placed is a gain; a waiting
 * gang is admitted only once it has its minimum in one domain.
 */
#include "solve/topup_int.h"
#include "base/clock.h"
#include "base/sort.h"

#include <string.h>

/* Clearing tries at most this many nodes per group and domain. */
#define WTU_CLEAR_TRIES 4096
/* A class whose pods found no other node this many times at a level is
 * not moved again there (bounds the attempts that fail). */
#define WTU_CLEAR_STUCK 64

typedef struct cstate {
	int li;
	int64_t *hard;   /* nnodes * nres: room no move nor eviction at li
			    frees (cap less the units li may not evict
			    and the pending pods of other levels)       */
	double *hsz;     /* per node: hard room, normalised               */
	double *amax;    /* per resource: the largest allocatable          */
	int *obeg, *occ; /* node -> slots with pods at the start (CSR)     */
	int *occc;       /* ... and their classes                          */
	int **kord;      /* per key: nodes by (domain, hsz, index)        */
	int **kbeg;      /* per key: domain -> start in kord[k]           */
	int *gord;       /* all nodes by (hsz, index)                     */
	int *cand;       /* scratch: candidate nodes                      */
	double *cost;    /* per node: what clearing it moves              */
	unsigned char *held; /* nodes cleared at this level               */
	int *hl;         /* ... in the order they were                     */
	size_t nhl;
	int *mv;         /* scratch: (slot, pods) taken off a node         */
	unsigned char *stuck; /* per class: a pod found no other node      */
	int64_t *fixed;  /* scratch: nres                                   */
	int64_t *zero;   /* nres zeros                                     */
	unsigned char *tried; /* per group: shifted, or tried to, at li   */
	struct gent {    /* groups shifted to another domain, and their
			    domain before (to go back)                    */
		int g, d;
	} *gl;
	size_t ngl, gcap;
} cstate;

/* Where every log clearing writes stands, to go back to. */
typedef struct cmark {
	wtu_mark t; /* the top-up's logs */
	size_t h, g;
} cmark;

static cmark mark(const tstate *T, const cstate *C)
{
	cmark m = {wtu_mark_now(T), C->nhl, C->ngl};
	return m;
}

typedef struct nkey {
	const int *dom; /* NULL: one domain */
	const double *h;
} nkey;

static int cmp_nkey(const void *ctx, int a, int b)
{
	const nkey *k = ctx;
	if (k->dom && k->dom[a] != k->dom[b])
		return k->dom[a] < k->dom[b] ? -1 : 1;
	if (k->h[a] != k->h[b])
		return k->h[a] < k->h[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* C's tables for level li (T->lvuse too). */
static void clear_setup(tstate *T, cstate *C, int li, int *tmp)
{
	const wp_problem *p = T->p;
	const wp_sol *s = T->s;
	int nn = p->nnodes, nr = T->nres;
	int32_t pr = T->lv[li];
	C->li = li;
	/* whether any group of the level may evict at all */
	bool may = false;
	for (int g = 0; g < p->ngroups && !may && s->evict; g++)
		may = p->groups[g].priority == pr && wpe_may_preempt(p, g);
	memcpy(C->hard, T->cap, sizeof *C->hard * (size_t)nn * nr);
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if ((s->evict && s->evict[u]) ||
		    (may && un->priority < pr && !un->keep && un->npdb == 0))
			continue;
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			for (int r = 0; pod->node >= 0 && r < nr; r++)
				C->hard[(size_t)pod->node * nr + r] -= pod->req[r];
		}
	}
	memset(C->obeg, 0, sizeof *C->obeg * ((size_t)nn + 2));
	memset(T->lvuse, 0, sizeof *T->lvuse * (size_t)nn * nr);
	T->lvli = li;
	T->obeg = C->obeg;
	T->occ = C->occ;
	T->occc = C->occc;
	memset(C->stuck, 0, (size_t)p->nclasses + 1);
	memset(C->tried, 0, (size_t)p->ngroups + 1);
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < p->nclasses; c++) {
			const wp_class *cl = &p->classes[c];
			WP_X_EACH(s, cl, sl) {
				int x = wp_x(s, sl), n = cl->elig[sl - cl->off];
				if (pass == 1) {
					C->occc[C->obeg[n]] = c;
					C->occ[C->obeg[n]++] = sl;
					continue;
				}
				C->obeg[n + 1]++;
				if (p->groups[cl->group].priority == pr)
					for (int r = 0; r < nr; r++)
						T->lvuse[(size_t)n * nr + r] +=
						    (int64_t)x * cl->req[r];
				/* pods of higher levels stay; lower ones may
				 * give way (bump) */
				if (p->groups[cl->group].priority > pr)
					for (int r = 0; r < nr; r++)
						C->hard[(size_t)n * nr + r] -=
						    (int64_t)x * cl->req[r];
			}
		}
		if (pass == 0)
			for (int n = 0; n < nn; n++)
				C->obeg[n + 1] += C->obeg[n];
	}
	for (int n = nn; n > 0; n--)
		C->obeg[n] = C->obeg[n - 1];
	C->obeg[0] = 0;
	for (int n = 0; n < nn; n++) {
		C->hsz[n] = 0;
		for (int r = 0; r < nr; r++)
			if (C->amax[r] > 0)
				C->hsz[n] += (double)C->hard[(size_t)n * nr + r] /
					     C->amax[r];
		C->gord[n] = n;
		C->held[n] = 0;
	}
	nkey k = {NULL, C->hsz};
	wis_sort(C->gord, tmp, nn, cmp_nkey, &k);
	for (int ki = 0; p->topo && ki < p->topo->nkeys; ki++) {
		const wtp_key *key = &p->topo->keys[ki];
		int m = 0;
		for (int n = 0; n < nn; n++)
			if (key->node_dom[n] >= 0)
				C->kord[ki][m++] = n;
		k.dom = key->node_dom;
		wis_sort(C->kord[ki], tmp, m, cmp_nkey, &k);
		for (int d = 0; d <= key->ndom; d++)
			C->kbeg[ki][d] = 0;
		for (int i = 0; i < m; i++)
			C->kbeg[ki][key->node_dom[C->kord[ki][i]] + 1]++;
		for (int d = 0; d < key->ndom; d++)
			C->kbeg[ki][d + 1] += C->kbeg[ki][d];
	}
}

/* The nodes of group g's domain dom (all nodes: key -1), by hard room,
 * least first: *out and their number. */
static int dom_nodes(const tstate *T, const cstate *C, int key, int dom,
		     const int **out)
{
	if (key < 0) {
		*out = C->gord;
		return T->p->nnodes;
	}
	*out = C->kord[key] + C->kbeg[key][dom];
	return C->kbeg[key][dom + 1] - C->kbeg[key][dom];
}

/* May a pod of group h give way to pods of level li: h is below it and
 * keeps its minimum (and one pod) without it. */
static bool bumpable(const tstate *T, const cstate *C, int h)
{
	const wp_group *wh = &T->p->groups[h];
	long keep = wh->min_need > 1 ? wh->min_need : 1;
	return wh->priority < T->lv[C->li] && T->s->admit[h] && !wh->tas &&
	       !wh->pcomp && T->gh[h] > keep;
}

/* The groups dropped since log mark m are admitted again. */
void wtu_readmit_to(tstate *T, size_t m)
{
	while (T->ndrop > m) {
		int g = T->drop[--T->ndrop];
		T->s->admit[g] = 1;
		T->s->reason[g] = NULL;
	}
}

static const char *const WAIT_CLEAR =
    "its room went to pods of a higher priority (in the top-up after the "
    "search)";

/* (topup_int.h) */
bool wtu_may_wait(const tstate *T, int h, int li)
{
	const wp_group *wh = &T->p->groups[h];
	return wh->priority < T->lv[li] && T->s->admit[h] && !wh->invalid &&
	       !wh->tas && !wh->pcomp && wh->nbound == 0;
}

/* (topup_int.h) */
bool wtu_drop(tstate *T, int h, size_t xmark)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	const wp_group *wh = &p->groups[h];
	size_t xm = T->nxl, rm = T->nrl;
	for (int i = 0; i < wh->nclasses; i++) {
		const wp_class *cl = &p->classes[wh->classes[i]];
		WP_X_EACH(s, cl, sl) {
			if (T->ch[wh->classes[i]] <= 0)
				break;
			wtu_put(T, sl, -wp_x(s, sl));
		}
	}
	s->admit[h] = 0;
	if (!wtu_rehome(T, h, xmark) ||
	    WA_PUSH(T->a, T->drop, T->ndrop, T->dcap, h)) {
		wtu_take_back(T, rm);
		wtu_back_to(T, xm);
		s->admit[h] = 1;
		return false;
	}
	s->reason[h] = WAIT_CLEAR;
	return true;
}

/* Room on node n for a pod of class c of group g (level li): free, else
 * made by evicting units of lower priority, else (bump) by lower
 * priorities' pending pods that may give way, one at a time.  Pods of c
 * that fit; 0: nothing changed. */
static int64_t room_for(tstate *T, cstate *C, int c, int n, bool bump,
			int *tmp)
{
	const wp_problem *p = T->p;
	int g = p->classes[c].group;
	bool may = T->s->evict && wpe_may_preempt(p, g);
	size_t rm = T->nrl, dm = T->ndrop;
	int64_t f = wtu_fit(T, c, C->li, n);
	if (f == 0 && may)
		f = wtu_make_room(T, g, c, C->li, n, tmp);
	if (f > 0 || !bump)
		return f;
	size_t xm = T->nxl;
	for (int e = C->obeg[n]; f == 0 && e < C->obeg[n + 1]; e++) {
		int sl = C->occ[e];
		int h = p->classes[C->occc[e]].group;
		while (f == 0 && wp_x(T->s, sl) > 0 && bumpable(T, C, h)) {
			wtu_put(T, sl, -1);
			f = wtu_fit(T, c, C->li, n);
			if (f == 0 && may)
				f = wtu_make_room(T, g, c, C->li, n, tmp);
		}
	}
	/* then lower groups wait altogether, pods and evictions */
	for (int e = C->obeg[n]; f == 0 && e < C->obeg[n + 1]; e++) {
		int sl = C->occ[e];
		int h = p->classes[C->occc[e]].group;
		if (wp_x(T->s, sl) == 0 || !wtu_may_wait(T, h, C->li) ||
		    !wtu_drop(T, h, xm))
			continue;
		f = wtu_fit(T, c, C->li, n);
		if (f == 0 && may)
			f = wtu_make_room(T, g, c, C->li, n, tmp);
	}
	if (f == 0) {
		wtu_take_back(T, rm);
		wtu_back_to(T, xm);
		wtu_readmit_to(T, dm);
	}
	return f;
}

/* Units on node n evicted by a group none of whose pods is on their
 * nodes any more run again where their room is free, else go to g (when
 * it may evict them).  Logged (relog). */
static void rerun(tstate *T, int n, int g)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	for (int e = T->ustart[n]; e < T->ustart[n + 1]; e++) {
		int u = T->ulist[e], h = s->evict[u] ? s->evict_by[u] : -1;
		if (h < 0 || h == g)
			continue;
		const wp_unit *un = &p->units[u];
		bool held = false;
		for (int i = 0; i < un->npods && !held; i++) {
			int m = p->snap->pods[un->pods[i]].node;
			const wp_group *wh = &p->groups[h];
			for (int ci = 0; m >= 0 && ci < wh->nclasses && !held;
			     ci++) {
				int slot = wp_slot(p, wh->classes[ci], m);
				held = slot >= 0 && wp_x(s, slot) > 0;
			}
		}
		if (held)
			continue;
		wtu_relog(T, u, -1);
		if (wtu_unit_over(T, u))
			wtu_relog(T, u, p->groups[g].priority > un->priority &&
					    wpe_may_preempt(p, g)
					? g
					: h);
	}
}

/* Back to mark m: groups made to wait, units, pods, the nodes held and
 * the groups shifted. */
static void clear_back(tstate *T, cstate *C, const cmark *m)
{
	wtu_undo_to(T, m->t);
	while (C->nhl > m->h)
		C->held[C->hl[--C->nhl]] = 0;
	while (C->ngl > m->g) {
		C->ngl--;
		T->gdom[C->gl[C->ngl].g] = C->gl[C->ngl].d;
	}
}

/* May node m take a shifted pod when clearing for class c: its hard
 * room holds no pod of c (a fragment), or (loose) its hard room less
 * the level's pods there does not (its level's smaller pods already
 * keep it from c): the shift takes no node a pod of c could have now.
 * From frag-10000's MIP-led plan: fragments alone 16,790 top-priority
 * pods, loose alone 16,811, fragments first in every domain and then
 * loose 16,826 (frag-2048: 3,231, 3,222, 3,231). */
static bool fragment(const tstate *T, const cstate *C, int c, int m,
		     bool loose)
{
	size_t at = (size_t)m * T->nres;
	return wtu_fits_in(C->hard + at, loose ? T->lvuse + at : C->zero,
			   T->p->classes[c].req, T->nres, 1) == 0;
}

/* Up to `want` pods of class c2 on nodes of domain dom (key), node
 * `from` and the nodes held left out, the least hard room first: free
 * room before room that evictions and lower priorities make.  With
 * c >= 0, only on the fragments for c (loose: as in fragment).  Pods
 * placed. */
static long place_in(tstate *T, cstate *C, int c2, int key, int dom,
		     int from, long want, int c, bool loose, int *tmp)
{
	const wp_problem *p = T->p;
	const int64_t *req = p->classes[c2].req;
	const int *nodes;
	int nn = dom_nodes(T, C, key, dom, &nodes);
	long left = want;
	for (int phase = 0; phase < 2 && left > 0; phase++)
		for (int i = 0; i < nn && left > 0 && !T->nomem; i++) {
			int m = nodes[i];
			size_t at = (size_t)m * T->nres;
			/* no pod of c2 fits what its level leaves there */
			if (m == from || C->held[m] ||
			    wtu_fits_in(C->hard + at, T->lvuse + at, req,
					T->nres, 1) == 0 ||
			    (c >= 0 && !fragment(T, C, c, m, loose)))
				continue;
			int slot = wp_slot(p, c2, m);
			if (slot < 0)
				continue;
			for (;;) {
				int64_t f = phase == 0
						? wtu_fit(T, c2, C->li, m)
						: room_for(T, C, c2, m, true, tmp);
				if (f <= 0)
					break;
				if (f > left)
					f = left;
				wtu_put(T, slot, (int)f);
				left -= f;
				if (left == 0 || phase == 0)
					break;
			}
		}
	return want - left;
}

/* One pod of class c off node `from` to another node of its group's
 * domain.  False when none takes it. */
static bool relocate(tstate *T, cstate *C, int c, int from, int *tmp)
{
	int g = T->p->classes[c].group;
	return place_in(T, C, c, T->p->groups[g].key, T->gdom[g], from, 1, -1,
			false, tmp) == 1;
}

/* Gang g2 (one class, a required key, no running pods) shifted whole to
 * another domain of its key, when relocate finds its pods no room in
 * their own: its pods, and `more` of them taken off node n, go to the
 * fragments for class c of the first other domain whose fragments take
 * them all (else, as loosely, to the first whose nodes do); the units
 * it evicted are rehomed (the pod log since xmark).
 * Tried once per group and level.  False, with nothing changed, when no
 * domain takes them. */
static bool shift(tstate *T, cstate *C, int g2, int c, int n, long more,
		  size_t xmark, int *tmp)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	const wp_group *wg = &p->groups[g2];
	if (C->tried[g2] || !p->topo || wg->key < 0 || wg->nclasses != 1 ||
	    wg->nbound || wg->fixed_dom != -1 || T->gdom[g2] < 0)
		return false;
	C->tried[g2] = 1;
	int c2 = wg->classes[0], from = T->gdom[g2], nr = T->nres;
	const wp_class *cl = &p->classes[c2];
	const wtp_key *k = &p->topo->keys[wg->key];
	cmark m0 = mark(T, C);
	long total = T->gh[g2] + more;
	WP_X_EACH(s, cl, sl) {
		if (T->gh[g2] <= 0)
			break;
		wtu_put(T, sl, -wp_x(s, sl));
	}
	struct gent e = {g2, from};
	if (!wtu_rehome(T, g2, xmark) ||
	    WA_PUSH(T->a, C->gl, C->ngl, C->gcap, e))
		goto undo;
	/* fragments first, in every domain; then the nodes the level's
	 * smaller pods keep from c too */
	for (int dd = 0; dd < 2 * k->ndom && !T->late && !T->nomem; dd++) {
		int d = dd % k->ndom;
		bool loose = dd >= k->ndom;
		if (d == from)
			continue;
		/* the fragments' room for c2 less the level's pods there */
		const int *nodes;
		int nn = dom_nodes(T, C, wg->key, d, &nodes);
		long most = 0;
		for (int i = 0; i < nn && most < total; i++) {
			int m = nodes[i];
			if (m != n && !C->held[m] && wp_slot(p, c2, m) >= 0 &&
			    fragment(T, C, c, m, loose))
				most += wtu_fits_in(C->hard + (size_t)m * nr,
						    T->lvuse + (size_t)m * nr,
						    cl->req, nr, total);
		}
		if (most < total)
			continue;
		cmark m1 = mark(T, C);
		if (place_in(T, C, c2, wg->key, d, n, total, c, loose,
			     tmp) == total) {
			T->gdom[g2] = d;
			return true;
		}
		clear_back(T, C, &m1);
	}
undo:
	clear_back(T, C, &m0);
	return false;
}

/* Does occupied entry e (a slot with pods at the start) hold pods that
 * clearing a node for class c moves: of a smaller class of c's level,
 * whose group may move them and which has not failed to find nodes too
 * often? */
static bool moves_for(const tstate *T, const cstate *C, int e, int c,
		      const double *sz)
{
	const wp_problem *p = T->p;
	int sl = C->occ[e], c2 = C->occc[e], g2 = p->classes[c2].group;
	return wp_x(T->s, sl) > 0 && sz[c2] < sz[c] &&
	       C->stuck[c2] < WTU_CLEAR_STUCK &&
	       p->groups[g2].priority == T->lv[C->li] && wtu_movable(T, g2);
}

/* Node n cleared for up to `want` pods of class c: the smaller pods of
 * its level there move elsewhere (relocate), units g may evict go, and
 * c's pods take the room.  Pods of c placed; 0: nothing changed. */
static long clear_node(tstate *T, cstate *C, int c, int n, long want,
		       const double *sz, int *tmp)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	const wp_class *cl = &p->classes[c];
	int g = cl->group, slot = wp_slot(p, c, n);
	if (slot < 0) /* clear_for tested the rest */
		return 0;
	cmark m0 = mark(T, C);
	int nmv = 0;
	int64_t f = wtu_fit(T, c, C->li, n);
	/* the smaller pods of the level, one by one, until c fits */
	for (int e = C->obeg[n]; f == 0 && e < C->obeg[n + 1]; e++) {
		int sl = C->occ[e];
		if (!moves_for(T, C, e, c, sz))
			continue;
		C->mv[2 * nmv] = sl;
		C->mv[2 * nmv + 1] = 0;
		while (f == 0 && wp_x(s, sl) > 0) {
			wtu_put(T, sl, -1);
			C->mv[2 * nmv + 1]++;
			f = wtu_fit(T, c, C->li, n);
		}
		nmv++;
	}
	if (f == 0)
		f = room_for(T, C, c, n, true, tmp);
	if (f <= 0)
		goto undo;
	if (f > want)
		f = want;
	wtu_put(T, slot, (int)f);
	C->held[n] = 1;
	C->hl[C->nhl++] = n;
	for (int i = 0; i < nmv; i++) {
		int c2 = wp_slot_class(p, C->mv[2 * i]);
		for (int k = 0; k < C->mv[2 * i + 1]; k++) {
			if (relocate(T, C, c2, n, tmp))
				continue;
			/* no room in its domain: the whole gang to another */
			if (shift(T, C, p->classes[c2].group, c, n,
				  C->mv[2 * i + 1] - k, m0.t.x, tmp))
				break;
			if (++C->stuck[c2] >= WTU_CLEAR_STUCK)
				C->stuck[c2] = WTU_CLEAR_STUCK;
			goto undo;
		}
	}
	rerun(T, n, g);
	if (T->nomem)
		goto undo;
	return f;
undo:
	clear_back(T, C, &m0);
	return 0;
}

/* Nodes of domain dom cleared for class c, those that move least first,
 * until c's group has `want` more pods; none tried when the candidates
 * could not hold `need` pods of c even cleared whole.  Pods placed. */
static long clear_for(tstate *T, cstate *C, int c, int dom, long need,
		      long want, const double *sz, int *tmp)
{
	const wp_problem *p = T->p;
	const wp_sol *s = T->s;
	const wp_class *cl = &p->classes[c];
	const int *nodes;
	int nn = dom_nodes(T, C, p->groups[cl->group].key, dom, &nodes);
	int m = 0, nr = T->nres;
	int64_t *fixed = C->fixed;
	long most = 0;
	for (int i = 0; i < nn; i++) {
		int n = nodes[i];
		if (C->held[n])
			continue;
		/* what stays: the pods of the level that do not move */
		double v = 0;
		memcpy(fixed, T->lvuse + (size_t)n * nr, sizeof *fixed * nr);
		for (int e = C->obeg[n]; e < C->obeg[n + 1]; e++) {
			int sl = C->occ[e], c2 = C->occc[e];
			if (!moves_for(T, C, e, c, sz))
				continue;
			v += wp_x(s, sl) * sz[c2];
			for (int r = 0; r < nr; r++)
				fixed[r] -= (int64_t)wp_x(s, sl) *
					    p->classes[c2].req[r];
		}
		int64_t k = wtu_fits_in(C->hard + (size_t)n * nr, fixed,
					cl->req, nr, want);
		if (k == 0 || wp_slot(p, c, n) < 0)
			continue;
		most += k;
		C->cost[n] = v;
		C->cand[m++] = n;
	}
	if (most < need)
		return 0;
	wis_sort(C->cand, tmp, m, wis_asc, C->cost);
	long got = 0;
	for (int i = 0; i < m && i < WTU_CLEAR_TRIES && got < want &&
			!T->nomem;
	     i++) {
		if (wdl_passed(T->dl, 0)) {
			T->late = true;
			break;
		}
		got += clear_node(T, C, c, C->cand[i], want - got, sz, tmp);
	}
	return got;
}

/* Waiting gang g (one class) admitted where clearing gives it its
 * minimum: the first domain of its key that does.  Pods placed. */
static long clear_waiting(tstate *T, cstate *C, int g, const double *sz,
			  int *tmp)
{
	const wp_problem *p = T->p;
	const wp_group *wg = &p->groups[g];
	const wp_class *cl = &p->classes[wg->classes[0]];
	const wtp_key *k = wg->key >= 0 && p->topo ? &p->topo->keys[wg->key]
						   : NULL;
	int nd = k ? k->ndom : 1;
	for (int d = 0; d < nd && !T->late && !T->nomem; d++) {
		/* pods of c the domain holds were it all cleared */
		const int *nodes;
		int nn = dom_nodes(T, C, wg->key, k ? d : -1, &nodes);
		long most = 0;
		for (int i = 0; i < nn && most < wg->min_need; i++) {
			int64_t f = wtu_fits_in(C->hard + (size_t)nodes[i] * T->nres,
					    C->zero, cl->req, T->nres,
					    wg->min_need);
			if (f > 0 && wp_slot(p, wg->classes[0], nodes[i]) >= 0)
				most += f;
		}
		if (most < wg->min_need)
			continue;
		cmark m0 = mark(T, C);
		if (k)
			T->gdom[g] = d;
		long got = clear_for(T, C, wg->classes[0], k ? d : -1,
				     wg->min_need, wg->size, sz, tmp);
		if (got >= wg->min_need && !T->nomem) {
			struct aent e = {g, T->s->reason[g]};
			if (WA_PUSH(T->a, T->adm, T->nadm, T->acap, e)) {
				T->nomem = true;
			} else {
				T->s->admit[g] = 1;
				T->s->reason[g] = NULL;
				return got;
			}
		}
		clear_back(T, C, &m0);
		T->gdom[g] = -1;
	}
	return 0;
}

/* Clearing at each priority, highest first: the admitted groups that
 * want pods, then the waiting gangs (smallest minimum first). */
/* C's arrays, and the scratch *tmp, *wait and *wsz.  False on NOMEM. */
static bool clear_alloc(tstate *T, cstate *C, int **tmp, int **wait,
			double **wsz)
{
	const wp_problem *p = T->p;
	wa_arena *a = T->a;
	size_t nn = (size_t)p->nnodes, nr = (size_t)T->nres;
	int nk = p->topo ? p->topo->nkeys : 0;
	size_t npods = 0; /* bounds the occupied slots */
	for (int c = 0; c < p->nclasses; c++)
		npods += (size_t)p->classes[c].count;
	C->hard = wa_calloc(a, nn * nr + 1, sizeof *C->hard);
	C->hsz = wa_calloc(a, nn + 1, sizeof *C->hsz);
	C->amax = wa_calloc(a, nr + 1, sizeof *C->amax);
	C->obeg = wa_calloc(a, nn + 2, sizeof *C->obeg);
	C->occ = wa_calloc(a, npods + 1, sizeof *C->occ);
	C->occc = wa_calloc(a, npods + 1, sizeof *C->occc);
	C->kord = wa_calloc(a, (size_t)nk + 1, sizeof *C->kord);
	C->kbeg = wa_calloc(a, (size_t)nk + 1, sizeof *C->kbeg);
	C->gord = wa_calloc(a, nn + 1, sizeof *C->gord);
	C->cand = wa_calloc(a, nn + 1, sizeof *C->cand);
	C->cost = wa_calloc(a, nn + 1, sizeof *C->cost);
	C->held = wa_calloc(a, nn + 1, 1);
	C->hl = wa_calloc(a, nn + 1, sizeof *C->hl);
	C->mv = wa_calloc(a, 2 * (size_t)p->nclasses + 2, sizeof *C->mv);
	C->stuck = wa_calloc(a, (size_t)p->nclasses + 1, 1);
	C->fixed = wa_calloc(a, nr + 1, sizeof *C->fixed);
	C->zero = wa_calloc(a, nr + 1, sizeof *C->zero);
	C->tried = wa_calloc(a, (size_t)p->ngroups + 1, 1);
	T->lvuse = wa_calloc(a, nn * nr + 1, sizeof *T->lvuse);
	/* sorts nodes, units (make_room) or groups */
	*tmp = wa_calloc(a, nn + (size_t)p->nunits + (size_t)p->ngroups + 1,
			 sizeof **tmp);
	*wait = wa_calloc(a, (size_t)p->ngroups + 1, sizeof **wait);
	*wsz = wa_calloc(a, (size_t)p->ngroups + 1, sizeof **wsz);
	if (!C->hard || !C->hsz || !C->amax || !C->obeg || !C->occ ||
	    !C->occc || !C->kord || !C->kbeg || !C->gord || !C->cand ||
	    !C->cost || !C->held || !C->hl || !C->mv || !C->stuck ||
	    !C->fixed || !C->zero || !C->tried || !T->lvuse || !*tmp ||
	    !*wait || !*wsz)
		return false;
	for (int k = 0; k < nk; k++) {
		C->kord[k] = wa_calloc(a, nn + 1, sizeof **C->kord);
		C->kbeg[k] = wa_calloc(a, (size_t)p->topo->keys[k].ndom + 2,
				       sizeof **C->kbeg);
		if (!C->kord[k] || !C->kbeg[k])
			return false;
	}
	for (size_t n = 0; n < nn; n++)
		for (size_t r = 0; r < nr; r++)
			if ((double)p->snap->nodes[n].alloc[r] > C->amax[r])
				C->amax[r] = (double)p->snap->nodes[n].alloc[r];
	return true;
}

void wtu_clears(tstate *T, const int *cand, int nc, const double *sz,
		wtu_stats *st)
{
	const wp_problem *p = T->p;
	cstate C0 = {0}, *C = &C0;
	int *tmp, *wait;
	double *wsz;
	if (!clear_alloc(T, C, &tmp, &wait, &wsz)) {
		T->nomem = true;
		return;
	}
	size_t d0 = T->ndrop;
	for (int li = 0; li < T->nl && !T->late && !T->nomem; li++) {
		int32_t pr = T->lv[li];
		clear_setup(T, C, li, tmp);
		st->cleared += (int)C->nhl;
		st->shifted += (int)C->ngl;
		C->nhl = 0;
		C->ngl = 0;
		for (int i = 0; i < nc && !T->late && !T->nomem; i++) {
			int g = cand[i];
			const wp_group *wg = &p->groups[g];
			if (wg->priority != pr || T->gh[g] == 0 ||
			    T->gh[g] >= wg->size || !wtu_movable(T, g))
				continue;
			for (int ci = 0; ci < wg->nclasses; ci++) {
				int c = wg->classes[ci];
				long want = p->classes[c].count - T->ch[c];
				if (want > wg->size - T->gh[g])
					want = wg->size - T->gh[g];
				if (want <= 0)
					continue;
				long got = clear_for(T, C, c, T->gdom[g], 1,
						     want, sz, tmp);
				st->pods += (int)got;
				st->cleared_pods += (int)got;
				if (got && !T->topped[g]) {
					T->topped[g] = 1;
					st->groups++;
				}
			}
		}
		int nw = 0;
		for (int g = 0; g < p->ngroups; g++)
			if (p->groups[g].priority == pr && wtu_joinable(T, g)) {
				wsz[g] = p->groups[g].min_need *
					 sz[p->groups[g].classes[0]];
				wait[nw++] = g;
			}
		wis_sort(wait, tmp, nw, wis_asc, wsz);
		for (int i = 0; i < nw && !T->late && !T->nomem; i++) {
			long got = clear_waiting(T, C, wait[i], sz, tmp);
			if (got) {
				st->pods += (int)got;
				st->cleared_pods += (int)got;
				st->cleared_gangs++;
			}
		}
	}
	st->cleared += (int)C->nhl;
	st->shifted += (int)C->ngl;
	st->gave_way += (int)(T->ndrop - d0);
}

