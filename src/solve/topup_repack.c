/*
 * topup_repack.c -- each level's small pods packed tight before the
 * top-up fills (topup_int.h; doc/formulation.md §12, "Packing tight").
 *
 * The search moves a group's pods only inside a neighbourhood that holds
 * the whole group, so the pods of a group without a key (or with a key
 * wider than a neighbourhood) never move there, and no sub-ILP has a
 * reason to leave a node whole.  On the gpu and fragmented families at
 * 2,048 nodes the top priority's idle room ends up in pieces of one to
 * three GPUs on hundreds of nodes while gangs of 8-GPU pods wait for
 * whole ones.  Here, per level, the pods of the movable groups that are
 * smaller than the largest pod some group of the level still wants are
 * taken off and put back class by class -- the narrowest domain first
 * (a rack's before a block's before the cluster's), larger pods first
 * -- each class filling first the nodes of its domain that hold the
 * fewest of its pods (best fit decreasing, which packs optimally where
 * the sizes divide one another).  Packing in free room, nothing is
 * evicted and no lower pod gives way; when a class finds no room for all
 * its pods, the level is put back as it was.  Packing evicting, a class
 * may also take the room of lower pods its group may evict (a running
 * top-priority pod pins its node, and the room beside it is mostly held
 * by lower pods in the fragmented family); when all the classes at once
 * strand one, they are packed one domain at a time instead.  With lower
 * pending pods giving way, every level's small pods come off at once and
 * go back highest level first, and a lower group that then finds no
 * room waits (the top level's row counts the lower pending pods, which
 * no eviction moves).  The fill and the clearing that follow take the
 * whole nodes this leaves.
 */
#include "solve/topup_int.h"
#include "base/clock.h"
#include "base/sort.h"

#include <string.h>

/* Passes over a level's domains when they are packed one at a time. */
#define WTU_PACK_PASSES 2

typedef struct rpack {
	const double *sz;
	const long *dn;     /* per class: nodes in its group's domain     */
	const long *dk;     /* ... and that domain (key and domain index) */
	const int64_t *fit; /* per node: pods of the class being put back */
	const int64_t *now; /* ... that fit without evicting              */
} rpack;

/* Classes: narrowest domain first, a domain's classes together, then
 * larger pods, then index. */
static int cmp_class(const void *ctx, int a, int b)
{
	const rpack *r = ctx;
	if (r->dn[a] != r->dn[b])
		return r->dn[a] < r->dn[b] ? -1 : 1;
	if (r->dk[a] != r->dk[b])
		return r->dk[a] < r->dk[b] ? -1 : 1;
	if (r->sz[a] != r->sz[b])
		return r->sz[a] > r->sz[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Nodes: fewest pods of the class first, then the fewest evictions
 * (most that fit now), then index. */
static int cmp_node(const void *ctx, int a, int b)
{
	const rpack *r = ctx;
	if (r->fit[a] != r->fit[b])
		return r->fit[a] < r->fit[b] ? -1 : 1;
	if (r->now[a] != r->now[b])
		return r->now[a] > r->now[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The largest pod (by size) that a group of level pr still wants: an
 * admitted movable group short of its size, or a waiting gang that may
 * be admitted; 0 when none. */
static double wanted(const tstate *T, int32_t pr, const double *sz)
{
	const wp_problem *p = T->p;
	double most = 0;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (wg->priority != pr)
			continue;
		bool wants = wtu_joinable(T, g) ||
			     (wtu_movable(T, g) && T->gh[g] < wg->size);
		for (int i = 0; wants && i < wg->nclasses; i++) {
			int c = wg->classes[i];
			if (T->ch[c] < p->classes[c].count && sz[c] > most)
				most = sz[c];
		}
	}
	return most;
}

/* The scratch a level's packing works in. */
typedef struct rscratch {
	long *rm, *dn, *dk, *off;
	int *lb; /* per level: where its classes start in cls */
	int *cls, *nodes, *tmp;
	int64_t *fit, *now;
} rscratch;

/* Up to `left` pods of class c on node n, with evict evicting what its
 * group may there until they fit; pods placed. */
static long put_on(tstate *T, int c, int li, int n, long left, bool evict,
		   int *tmp)
{
	const wp_class *cl = &T->p->classes[c];
	int slot = wp_slot(T->p, c, n);
	long got = 0;
	while (got < left && !T->nomem) {
		int64_t f = wtu_fit(T, c, li, n);
		if (f <= 0 && evict)
			f = wtu_make_room(T, cl->group, c, li, n, tmp);
		if (f <= 0)
			break;
		if (f > left - got)
			f = left - got;
		wtu_put(T, slot, (int)f);
		got += f;
	}
	return got;
}

/* Class c's `left` pods back on the nodes of its group's domain that
 * take the fewest of them first (with evict, counting the room of the
 * lower pods it may evict).  Pods that found no room. */
static long put_back(tstate *T, int c, int li, long left, bool evict,
		     rscratch *x)
{
	const wp_problem *p = T->p;
	const wp_class *cl = &p->classes[c];
	const wp_group *wg = &p->groups[cl->group];
	const wtp_key *k = wg->key >= 0 && p->topo ? &p->topo->keys[wg->key]
						   : NULL;
	evict = evict && T->s->evict && wpe_may_preempt(p, cl->group);
	int m = 0;
	for (int j = 0; j < cl->nelig; j++) {
		int n = cl->elig[j];
		if (k && k->node_dom[n] != T->gdom[cl->group])
			continue;
		int64_t f = wtu_fit(T, c, li, n);
		int64_t e = evict ? wtu_fit_evicting(T, cl->group, c, li, n)
				  : f;
		if (e <= 0)
			continue;
		x->fit[n] = e;
		x->now[n] = f;
		x->nodes[m++] = n;
	}
	rpack r = {.fit = x->fit, .now = x->now};
	wis_sort(x->nodes, x->tmp, m, cmp_node, &r);
	for (int i = 0; i < m && left > 0 && !T->nomem; i++)
		left -= put_on(T, c, li, x->nodes[i], left, evict, x->tmp);
	return left;
}

/* Class c's pods taken off; how many. */
static long take_off(tstate *T, int c)
{
	const wp_class *cl = &T->p->classes[c];
	long off = 0;
	WP_X_EACH(T->s, cl, sl) {
		int x = wp_x(T->s, sl);
		if (x > 0) {
			off += x;
			wtu_put(T, sl, -x);
		}
	}
	return off;
}

/* All the classes' pods off, then back in order; when one class finds no
 * room for all its pods, the level as it was.  Pods moved. */
static long pack_all(tstate *T, int li, int nc, rscratch *x, bool evict)
{
	size_t m0 = T->nxl, r0 = T->nrl;
	long moved = 0;
	for (int i = 0; i < nc; i++)
		moved += x->rm[x->cls[i]] = take_off(T, x->cls[i]);
	int i = 0;
	for (; i < nc && !T->nomem; i++) {
		if (wdl_passed(T->dl, 0)) {
			T->late = true;
			break;
		}
		if (put_back(T, x->cls[i], li, x->rm[x->cls[i]], evict, x) > 0)
			break;
	}
	if (i == nc && !T->nomem)
		return moved;
	wtu_back_to(T, m0);
	wtu_take_back(T, r0);
	return 0;
}

/* Evicting lower pods, one domain at a time (its classes taken off and
 * put back together), in passes: a domain's pods always fit back (in
 * the room they left, if nowhere tighter), so none is stranded, though
 * the domains pack less tightly than all at once.  All at once stranded
 * a class of the top priority on the fragmented family's seed 1 at
 * 2,048 nodes and on each of seeds 1-6 at 1,024.  Pods moved. */
static long pack_domains(tstate *T, int li, int nc, rscratch *x)
{
	for (int i = 0; i < nc; i++)
		x->rm[x->cls[i]] = 0;
	for (int pass = 0; pass < WTU_PACK_PASSES && !T->late; pass++)
		for (int i = 0, j; i < nc && !T->nomem; i = j) {
			if (wdl_passed(T->dl, 0)) {
				T->late = true;
				break;
			}
			int c0 = x->cls[i];
			for (j = i + 1; j < nc && x->dk[x->cls[j]] == x->dk[c0];
			     j++)
				;
			size_t m0 = T->nxl, r0 = T->nrl;
			for (int k = i; k < j; k++)
				x->off[k] = take_off(T, x->cls[k]);
			int k = i;
			while (k < j && !T->nomem &&
			       !put_back(T, x->cls[k], li, x->off[k], true, x))
				k++;
			if (k < j) {
				wtu_back_to(T, m0);
				wtu_take_back(T, r0);
				continue;
			}
			for (k = i; k < j; k++)
				x->rm[x->cls[k]] = x->off[k];
		}
	long moved = 0;
	for (int i = 0; i < nc; i++)
		moved += x->rm[x->cls[i]];
	return moved;
}

/* Level li's classes to pack, in order, into cls; how many. */
static int level_classes(tstate *T, int li, const double *sz, rscratch *x,
			 int *cls)
{
	const wp_problem *p = T->p;
	int32_t pr = T->lv[li];
	double most = wanted(T, pr, sz);
	if (most <= 0)
		return 0;
	int nc = 0;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		const wp_group *wg = &p->groups[cl->group];
		if (wg->priority != pr || sz[c] >= most || T->ch[c] <= 0 ||
		    !wtu_movable(T, cl->group))
			continue;
		bool keyed = wg->key >= 0 && p->topo;
		x->dn[c] = keyed ? p->topo->keys[wg->key]
				       .dom_nnodes[T->gdom[cl->group]]
				 : p->nnodes;
		x->dk[c] = keyed ? (long)wg->key * (p->nnodes + 1) +
					   T->gdom[cl->group] + 1
				 : -1;
		cls[nc++] = c;
	}
	rpack r = {.sz = sz, .dn = x->dn, .dk = x->dk};
	wis_sort(cls, x->tmp, nc, cmp_class, &r);
	return nc;
}

/* Level li packed tight. */
static void repack_level(tstate *T, int li, const double *sz, bool evict,
			 rscratch *x, wtu_stats *st)
{
	int nc = level_classes(T, li, sz, x, x->cls);
	if (nc == 0)
		return;
	long moved = pack_all(T, li, nc, x, evict);
	if (moved == 0 && evict)
		moved = pack_domains(T, li, nc, x);
	st->packed += (int)moved;
}

/* Evicting, lower pods giving way: every level's small pods off at once,
 * then back level by level, highest first, so that a higher level's pods
 * take the room lower pending pods held; a lower group whose pods then
 * find no room waits, its evictions rehomed.  False, with nothing
 * changed, when a top-level class finds no room or a group cannot
 * wait. */
static bool pack_yield(tstate *T, const double *sz, rscratch *x,
		       wtu_stats *st)
{
	const wp_problem *p = T->p;
	int nc = 0;
	for (int li = 0; li < T->nl; li++) {
		x->lb[li] = nc;
		nc += level_classes(T, li, sz, x, x->cls + nc);
	}
	x->lb[T->nl] = nc;
	size_t m0 = T->nxl, r0 = T->nrl, d0 = T->ndrop;
	long moved = 0;
	for (int i = 0; i < nc; i++)
		moved += x->rm[x->cls[i]] = take_off(T, x->cls[i]);
	bool ok = true;
	for (int li = 0; li < T->nl && ok && !T->nomem; li++)
		for (int i = x->lb[li]; i < x->lb[li + 1] && ok; i++) {
			int c = x->cls[i], g = p->classes[c].group;
			if (!T->s->admit[g]) /* it waits already */
				continue;
			if (wdl_passed(T->dl, 0)) {
				T->late = true;
				ok = false;
			} else if (put_back(T, c, li, x->rm[c], true, x) > 0) {
				ok = li > 0 && wtu_may_wait(T, g, 0) &&
				     wtu_drop(T, g, m0);
			}
		}
	if (!ok || T->nomem) {
		wtu_back_to(T, m0);
		wtu_take_back(T, r0);
		wtu_readmit_to(T, d0);
		return false;
	}
	st->packed += (int)moved;
	st->yielded += (int)(T->ndrop - d0);
	return true;
}

void wtu_repack(tstate *T, const double *sz, wtu_pack pack, wtu_stats *st)
{
	bool evict = pack >= WTU_PACK_EVICT;
	const wp_problem *p = T->p;
	size_t nn = (size_t)p->nnodes, ncl = (size_t)p->nclasses;
	rscratch x = {
	    .rm = wa_calloc(T->a, ncl + 1, sizeof *x.rm),
	    .dn = wa_calloc(T->a, ncl + 1, sizeof *x.dn),
	    .dk = wa_calloc(T->a, ncl + 1, sizeof *x.dk),
	    .off = wa_calloc(T->a, ncl + 1, sizeof *x.off),
	    .cls = wa_calloc(T->a, ncl + 1, sizeof *x.cls),
	    .nodes = wa_calloc(T->a, nn + 1, sizeof *x.nodes),
	    .tmp = wa_calloc(T->a, (nn > ncl ? nn : ncl) + 1, sizeof *x.tmp),
	    .fit = wa_calloc(T->a, nn + 1, sizeof *x.fit),
	    .now = wa_calloc(T->a, nn + 1, sizeof *x.now),
	    .lb = wa_calloc(T->a, (size_t)T->nl + 2, sizeof *x.lb),
	};
	if (!x.rm || !x.dn || !x.dk || !x.off || !x.cls || !x.nodes ||
	    !x.tmp || !x.fit || !x.now || !x.lb) {
		T->nomem = true;
		return;
	}
	if (pack == WTU_PACK_YIELD && pack_yield(T, sz, &x, st))
		return;
	for (int li = 0; li < T->nl && !T->late && !T->nomem; li++)
		repack_level(T, li, sz, evict, &x, st);
}
