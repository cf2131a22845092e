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
 * the sizes divide one another).  Only room free at the level is used:
 * nothing is evicted and no lower pod gives way.  When a class finds no
 * room for all its pods, the level is put back as it was.  The fill and
 * the clearing that follow take the whole nodes this leaves.
 */
#include "solve/topup_int.h"
#include "base/clock.h"
#include "base/sort.h"

#include <string.h>

typedef struct rpack {
	const double *sz;
	const long *dn;     /* per class: nodes in its group's domain     */
	const int64_t *fit; /* per node: pods of the class being put back */
} rpack;

/* Classes: narrowest domain first, then larger pods, then index. */
static int cmp_class(const void *ctx, int a, int b)
{
	const rpack *r = ctx;
	if (r->dn[a] != r->dn[b])
		return r->dn[a] < r->dn[b] ? -1 : 1;
	if (r->sz[a] != r->sz[b])
		return r->sz[a] > r->sz[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Nodes: fewest pods of the class first, then index. */
static int cmp_node(const void *ctx, int a, int b)
{
	const rpack *r = ctx;
	if (r->fit[a] != r->fit[b])
		return r->fit[a] < r->fit[b] ? -1 : 1;
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

/* Class c's `left` pods back on the nodes of its group's domain that
 * hold the fewest of them first.  Pods that found no room. */
static long put_back(tstate *T, int c, int li, long left, int *nodes,
		     int64_t *fit, int *tmp)
{
	const wp_problem *p = T->p;
	const wp_class *cl = &p->classes[c];
	const wp_group *wg = &p->groups[cl->group];
	const wtp_key *k = wg->key >= 0 && p->topo ? &p->topo->keys[wg->key]
						   : NULL;
	int m = 0;
	for (int j = 0; j < cl->nelig; j++) {
		int n = cl->elig[j];
		if (k && k->node_dom[n] != T->gdom[cl->group])
			continue;
		int64_t f = wtu_fit(T, c, li, n);
		if (f <= 0)
			continue;
		fit[n] = f;
		nodes[m++] = n;
	}
	rpack r = {NULL, NULL, fit};
	wis_sort(nodes, tmp, m, cmp_node, &r);
	for (int i = 0; i < m && left > 0 && !T->nomem; i++) {
		int slot = wp_slot(p, c, nodes[i]);
		int64_t f = fit[nodes[i]];
		if (f > left)
			f = left;
		wtu_put(T, slot, (int)f);
		left -= f;
	}
	return left;
}

/* Level li packed tight, or put back as it was. */
static void repack_level(tstate *T, int li, const double *sz, long *rm,
			 long *dn, int *cls, int *nodes, int64_t *fit, int *tmp,
			 wtu_stats *st)
{
	const wp_problem *p = T->p;
	wp_sol *s = T->s;
	int32_t pr = T->lv[li];
	double most = wanted(T, pr, sz);
	if (most <= 0)
		return;
	int nc = 0;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		const wp_group *wg = &p->groups[cl->group];
		if (wg->priority != pr || sz[c] >= most || T->ch[c] <= 0 ||
		    !wtu_movable(T, cl->group))
			continue;
		dn[c] = wg->key >= 0 && p->topo
				? p->topo->keys[wg->key]
				      .dom_nnodes[T->gdom[cl->group]]
				: p->nnodes;
		cls[nc++] = c;
	}
	if (nc == 0)
		return;
	rpack r = {sz, dn, NULL};
	wis_sort(cls, tmp, nc, cmp_class, &r);
	size_t m0 = T->nxl;
	long moved = 0;
	for (int i = 0; i < nc; i++) {
		const wp_class *cl = &p->classes[cls[i]];
		rm[cls[i]] = 0;
		WP_X_EACH(s, cl, sl) {
			int x = wp_x(s, sl);
			if (x > 0) {
				rm[cls[i]] += x;
				wtu_put(T, sl, -x);
			}
		}
		moved += rm[cls[i]];
	}
	int i = 0;
	for (; i < nc && !T->nomem; i++) {
		if (wdl_passed(T->dl, 0)) {
			T->late = true;
			break;
		}
		if (put_back(T, cls[i], li, rm[cls[i]], nodes, fit, tmp) > 0)
			break;
	}
	if (i == nc && !T->nomem) {
		st->packed += (int)moved;
		return;
	}
	wtu_back_to(T, m0);
}

void wtu_repack(tstate *T, const double *sz, wtu_stats *st)
{
	const wp_problem *p = T->p;
	size_t nn = (size_t)p->nnodes, ncl = (size_t)p->nclasses;
	long *rm = wa_calloc(T->a, ncl + 1, sizeof *rm);
	long *dn = wa_calloc(T->a, ncl + 1, sizeof *dn);
	int *cls = wa_calloc(T->a, ncl + 1, sizeof *cls);
	int *nodes = wa_calloc(T->a, nn + 1, sizeof *nodes);
	int64_t *fit = wa_calloc(T->a, nn + 1, sizeof *fit);
	int *tmp = wa_calloc(T->a, (nn > ncl ? nn : ncl) + 1, sizeof *tmp);
	if (!rm || !dn || !cls || !nodes || !fit || !tmp) {
		T->nomem = true;
		return;
	}
	for (int li = 0; li < T->nl && !T->late && !T->nomem; li++)
		repack_level(T, li, sz, rm, dn, cls, nodes, fit, tmp, st);
}
