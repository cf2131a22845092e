/*
 * tree.c -- CompositePodGroup trees and topology annotations
 * (doc/formulation.md §9): placement inside nested constraints (a
 * domain per key), with backtracking over candidate domains and
 * children.
 *
 * Trees: the parent's candidate domains, tightest first; in each, the
 * children most constrained first, each in its own domains or left out,
 * until minGroupCount children are admitted.  Annotations (exclusive
 * topology, preferred level, slices) give a group its options in order;
 * a group outside any tree with annotations is placed by them too.
 */
#include "solve/greedy/greedy_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A tree is placed whole when its first group comes up: the parent's
 * candidate domains (tightest first, at most WGR_TREE_DOMS), and in each
 * the children, most constrained first, with backtracking over sibling
 * choices (each child's own domains, then leaving it out) until at least
 * minGroupCount children are admitted.  A failed attempt is rolled back
 * through the placement log, so a tree is never left partial.  The search
 * is bounded by WGR_TREE_STEPS placement attempts per tree. */
#define WGR_TREE_DOMS 16
#define WGR_TREE_KID_DOMS 8
#define WGR_TREE_STEPS 4096
/* Score candidate domains in parallel from this many (node, class)
 * fits.  Below it a parallel region costs more than it saves: on the
 * 2,048-node / 200-tree instance (roots up to 30,720) a limit of 16,384
 * made the greedy 0.28-1.09 s with 2 threads against 0.04 s with one
 * (busy 2-core machine; bench/README.md). */
#define WGR_TREE_PAR_WORK 65536
#define WGR_MAX_CONS (WS_MAX_TREE_DEPTH + 2)

typedef struct tcons {
	int key, dom;
} tcons;

typedef struct gtree {
	unsigned char *done;   /* per comp root: tree handled */
	unsigned char *tadm;   /* per problem group: admitted in the tree */
	int *stamp;            /* per domain of a key: last visit */
	int stampv;
	long steps;
	int **xtaken;          /* per exclusive key, per domain: problem
				  group + 1 placed there by this run */
	int best;              /* most children admitted at the root */
	const char *best_dom;
	int tried;
	bool full;             /* first pass: every child of every comp */
} gtree;

/* ------------------------------------------------ constrained placement */

static bool cons_ok(const gs *G, const tcons *cs, int ncs, int n)
{
	const wtp_topo *t = G->p->topo;
	for (int i = 0; i < ncs; i++)
		if (t->keys[cs[i].key].node_dom[n] != cs[i].dom)
			return false;
	return true;
}

/* The nodes to scan for constraints cs: the smallest constrained domain,
 * or NULL (all nodes, *nn = G->nn). */
static const int *cons_nodes(const gs *G, const tcons *cs, int ncs, int *nn)
{
	const int *best = NULL;
	*nn = G->nn;
	for (int i = 0; i < ncs; i++) {
		const wtp_key *k = &G->p->topo->keys[cs[i].key];
		if (k->dom_nnodes[cs[i].dom] < *nn || !best) {
			*nn = k->dom_nnodes[cs[i].dom];
			best = k->dom_nodes[cs[i].dom];
		}
	}
	return best;
}

/* Pod slots of class c inside cs; `ro`: read-only (no fit cache), for
 * OpenMP threads. */
static int64_t cons_slots_x(gs *G, int c, const tcons *cs, int ncs, bool ro)
{
	int nn;
	const int *nodes = cons_nodes(G, cs, ncs, &nn);
	const cinfo *ci = &G->ci[c];
	int64_t raw = 0;
	if (!nodes) {
		const wp_class *cl = &G->p->classes[c];
		for (int j = 0; j < cl->nelig; j++)
			raw += ro ? wgr_node_fit(G, c, cl->elig[j])
				  : wgr_node_fit_c(G, c, cl->elig[j]);
		return raw;
	}
	for (int j = 0; j < nn; j++)
		if (wgr_elig_bit(ci, nodes[j]) && cons_ok(G, cs, ncs, nodes[j]))
			raw += ro ? wgr_node_fit(G, c, nodes[j])
				  : wgr_node_fit_c(G, c, nodes[j]);
	return raw;
}

static int64_t cons_slots(gs *G, int c, const tcons *cs, int ncs)
{
	return cons_slots_x(G, c, cs, ncs, false);
}

/* Place up to m pods of class c inside cs, best-fit (as place_class,
 * fit.c).  The number placed, or -1 on NOMEM. */
static int place_cons(gs *G, int c, const tcons *cs, int ncs, int m)
{
	const wp_class *cl = &G->p->classes[c];
	const cinfo *ci = &G->ci[c];
	int nn, nc = 0;
	if (m <= 0)
		return 0;
	const int *nodes = cons_nodes(G, cs, ncs, &nn);
	if (!nodes) {
		nodes = cl->elig;
		nn = cl->nelig;
	}
	for (int j = 0; j < nn; j++) {
		int n = nodes[j];
		if (!wgr_elig_bit(ci, n) || !cons_ok(G, cs, ncs, n))
			continue;
		int64_t f = wgr_node_fit_c(G, c, n);
		if (f > 0)
			G->nc[nc++] = (ncand){f, 0, n};
	}
	return wgr_place_cands(G, c, nc, m);
}

/* Upper bound on the pods of group g that fit inside cs, and raw slots
 * (`ro` as cons_slots_x). */
static void group_bound_x(gs *G, const wp_group *wg, const tcons *cs,
			  int ncs, int64_t *bound, int64_t *slots, bool ro)
{
	*bound = *slots = 0;
	for (int i = 0; i < wg->nclasses; i++) {
		int c = wg->classes[i];
		int64_t raw = cons_slots_x(G, c, cs, ncs, ro);
		int64_t cnt = G->p->classes[c].count;
		*slots += raw;
		*bound += raw < cnt ? raw : cnt;
	}
}

static void group_bound(gs *G, const wp_group *wg, const tcons *cs, int ncs,
			int64_t *bound, int64_t *slots)
{
	group_bound_x(G, wg, cs, ncs, bound, slots, false);
}

static void subtree_bound_x(gs *G, int h, const tcons *cs, int ncs,
			    int64_t *bound, int64_t *slots, bool ro)
{
	const wp_comp *hc = &G->p->comps[h];
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		int64_t b = 0, s = 0;
		if (k >= 0)
			group_bound_x(G, &G->p->groups[k], cs, ncs, &b, &s,
				      ro);
		else
			subtree_bound_x(G, -1 - k, cs, ncs, &b, &s, ro);
		*bound += b;
		*slots += s;
	}
}

static void subtree_bound(gs *G, int h, const tcons *cs, int ncs,
			  int64_t *bound, int64_t *slots)
{
	subtree_bound_x(G, h, cs, ncs, bound, slots, false);
}

static int subtree_classes(const wp_problem *p, int h)
{
	const wp_comp *hc = &p->comps[h];
	int n = 0;
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		n += k >= 0 ? p->groups[k].nclasses
			    : subtree_classes(p, -1 - k);
	}
	return n;
}

static int subtree_size(const wp_problem *p, int h)
{
	const wp_comp *hc = &p->comps[h];
	int n = 0;
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		n += k >= 0 ? p->groups[k].size : subtree_size(p, -1 - k);
	}
	return n;
}

/* Domains of key `key` that meet cs (all of them when cs is empty), in
 * domain order; `fixed` >= 0 keeps only that one.  Arena array. */
static int cons_domains(gs *G, int key, int fixed, const tcons *cs, int ncs,
			int **out)
{
	gtree *T = G->tr;
	const wtp_key *k = &G->p->topo->keys[key];
	int *d = wa_calloc(G->tmp, (size_t)k->ndom + 1, sizeof *d);
	if (!d)
		return -1;
	*out = d;
	if (fixed >= 0) {
		/* still must meet cs */
		for (int j = 0; j < k->dom_nnodes[fixed]; j++)
			if (cons_ok(G, cs, ncs, k->dom_nodes[fixed][j])) {
				d[0] = fixed;
				return 1;
			}
		return 0;
	}
	if (!ncs) {
		for (int i = 0; i < k->ndom; i++)
			d[i] = i;
		return k->ndom;
	}
	int nn, nd = 0;
	const int *nodes = cons_nodes(G, cs, ncs, &nn);
	T->stampv++;
	for (int j = 0; j < nn; j++) {
		int n = nodes[j], x = k->node_dom[n];
		if (x < 0 || T->stamp[x] == T->stampv ||
		    !cons_ok(G, cs, ncs, n))
			continue;
		T->stamp[x] = T->stampv;
		d[nd++] = x;
	}
	/* domain order, for determinism */
	for (int i = 1; i < nd; i++)
		for (int j = i; j > 0 && d[j] < d[j - 1]; j--) {
			int t = d[j];
			d[j] = d[j - 1];
			d[j - 1] = t;
		}
	return nd;
}

/* Candidate domains for a group (g >= 0) or a comp (h): cs plus a domain
 * of the key, tightest-first, filtered to those whose bound reaches
 * `need`.  Returns the count (at most lim), or -1 on NOMEM. */
static int tree_cands(gs *G, int g, int h, int key, int fixed, int need,
		      int size, const tcons *cs, int ncs, int lim, dsort **out)
{
	int *doms;
	int nd = cons_domains(G, key, fixed, cs, ncs, &doms);
	if (nd < 0)
		return -1;
	dsort *ds = wa_calloc(G->tmp, (size_t)nd + 1, sizeof *ds);
	int64_t *bs = wa_calloc(G->tmp, 2 * (size_t)nd + 1, sizeof *bs);
	if (!ds || !bs)
		return -1;
	/* each candidate domain scored on its own (OpenMP across them,
	 * read-only), then kept in domain order: the same list for any
	 * thread count */
	int nn;
	cons_nodes(G, cs, ncs, &nn);
	long work = (long)nn * (g >= 0 ? G->p->groups[g].nclasses
				       : subtree_classes(G->p, h));
#pragma omp parallel for schedule(dynamic, 1) num_threads(G->threads) \
	if (nd >= 2 && work >= WGR_TREE_PAR_WORK && G->threads > 1)
	for (int i = 0; i < nd; i++) {
		tcons c2[WGR_MAX_CONS];
		if (ncs)
			memcpy(c2, cs, (size_t)ncs * sizeof *cs);
		c2[ncs] = (tcons){key, doms[i]};
		int64_t b = 0, s = 0;
		if (g >= 0)
			group_bound_x(G, &G->p->groups[g], c2, ncs + 1, &b,
				      &s, true);
		else
			subtree_bound_x(G, h, c2, ncs + 1, &b, &s, true);
		bs[2 * i] = b;
		bs[2 * i + 1] = s;
	}
	int n = 0;
	for (int i = 0; i < nd; i++) {
		int64_t b = bs[2 * i], s = bs[2 * i + 1];
		if (b < need || b <= 0)
			continue;
		ds[n++] = (dsort){{doms[i], b, s}, b >= size};
	}
	qsort(ds, (size_t)n, sizeof *ds, wgr_cmp_dsort);
	*out = ds;
	return n < lim ? n : lim;
}

static int tree_comp(gs *G, int h, const tcons *cs, int ncs, bool root,
		     int *opt);
static void untake(gs *G, int g);

static void clear_tadm(gs *G, int h)
{
	const wp_comp *hc = &G->p->comps[h];
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		if (k >= 0) {
			G->tr->tadm[k] = 0;
			untake(G, k);
		} else {
			clear_tadm(G, -1 - k);
		}
	}
}

/* ------------------------------------------------ topology annotations */

/* Slices: place up to `want` pods of the group's classes (the
 * counts left in rem[], in corder) as whole slices of layer `layer`, each
 * inside one domain of its key (tightest first), inner layers inside.
 * Returns the pods placed (a multiple of the slice size), -1 on NOMEM. */
#define WGR_SLICE_TRIES 8

static int place_rem(gs *G, const int *corder, int nco, int *rem,
		     const tcons *cs, int ncs, int want)
{
	int placed = 0;
	for (int i = 0; i < nco && placed < want; i++) {
		int m = rem[i] < want - placed ? rem[i] : want - placed;
		int got = place_cons(G, corder[i], cs, ncs, m);
		if (got < 0)
			return -1;
		rem[i] -= got;
		placed += got;
	}
	return placed;
}

static int place_slices(gs *G, const wp_tas *ta, const int *corder, int nco,
			int *rem, const tcons *cs, int ncs, int layer, int want)
{
	int sz = ta->slice_size[layer], key = ta->slice_key[layer];
	int *doms, saved[64];
	int nd = cons_domains(G, key, -1, cs, ncs, &doms);
	if (nd < 0)
		return -1;
	int64_t *slots = wa_calloc(G->tmp, (size_t)nd + 1, sizeof *slots);
	if (!slots)
		return -1;
	tcons c2[WGR_MAX_CONS + WS_MAX_SLICE_LAYERS];
	if (ncs)
		memcpy(c2, cs, (size_t)ncs * sizeof *cs);
	int placed = 0;
	while (placed + sz <= want) {
		/* slots per domain for what is left */
		for (int i = 0; i < nd; i++) {
			c2[ncs] = (tcons){key, doms[i]};
			slots[i] = 0;
			for (int q = 0; q < nco; q++) {
				int64_t x = cons_slots(G, corder[q], c2,
						       ncs + 1);
				slots[i] += x < rem[q] ? x : rem[q];
			}
		}
		bool ok = false;
		for (int t = 0; t < WGR_SLICE_TRIES && !ok; t++) {
			int bi = -1; /* tightest untried domain that holds a
					slice */
			for (int i = 0; i < nd; i++)
				if (slots[i] >= sz &&
				    (bi < 0 || slots[i] < slots[bi]))
					bi = i;
			if (bi < 0)
				break;
			slots[bi] = -1;
			c2[ncs] = (tcons){key, doms[bi]};
			int mark = G->nlog;
			memcpy(saved, rem, (size_t)nco * sizeof *rem);
			int got = layer + 1 < ta->nslices
				      ? place_slices(G, ta, corder, nco, rem,
						     c2, ncs + 1, layer + 1, sz)
				      : place_rem(G, corder, nco, rem, c2,
						  ncs + 1, sz);
			if (got < 0)
				return -1;
			if (got == sz) {
				ok = true;
				placed += sz;
			} else {
				wgr_rollback_to(G, mark);
				memcpy(rem, saved, (size_t)nco * sizeof *rem);
			}
		}
		if (!ok)
			break;
	}
	return placed;
}

/* Place group wg inside cs: as slices when it has them, else every class
 * up to its count.  Pods placed, or -1 on NOMEM. */
static int place_in(gs *G, const wp_group *wg, const int *corder, int nco,
		    const tcons *cs, int ncs)
{
	int rem[64];
	for (int i = 0; i < nco; i++)
		rem[i] = G->p->classes[corder[i]].count;
	if (wg->tas && wg->tas->nslices)
		return place_slices(G, wg->tas, corder, nco, rem, cs, ncs, 0,
				    wg->size);
	return place_rem(G, corder, nco, rem, cs, ncs, wg->size);
}

/* An option of a group: up to three more constraints (own key,
 * exclusive key, preferred level). */
typedef struct gopt {
	int n;
	tcons c[3];
} gopt;

#define WGR_MAX_OPTS 64

/* Is domain d of exclusive key k free for problem group g? */
static bool excl_free(const gs *G, int g, int k, int d)
{
	const wp_group *wg = &G->p->groups[g];
	int own = G->p->excl_owner[k][d];
	if (own != -1 && own != wg->sg)
		return false;
	int t = G->tr->xtaken[k] ? G->tr->xtaken[k][d] : 0;
	return t == 0 || t == g + 1;
}

/* Domains of key `key` meeting cs that hold the whole group, tightest
 * first (at most lim).  -1 on NOMEM. */
static int full_doms(gs *G, const wp_group *wg, int key, const tcons *cs,
		     int ncs, int lim, int *out)
{
	int *doms;
	int nd = cons_domains(G, key, -1, cs, ncs, &doms);
	if (nd < 0)
		return -1;
	tcons c2[WGR_MAX_CONS + 3];
	if (ncs)
		memcpy(c2, cs, (size_t)ncs * sizeof *cs);
	int n = 0;
	int64_t sl[WGR_MAX_OPTS];
	for (int i = 0; i < nd; i++) {
		int64_t b, s;
		c2[ncs] = (tcons){key, doms[i]};
		group_bound(G, wg, c2, ncs + 1, &b, &s);
		if (b < wg->size)
			continue;
		/* insertion by slots, keep the lim tightest */
		int j = n < lim ? n++ : lim;
		if (j == lim && (lim == 0 || s >= sl[lim - 1]))
			continue;
		if (j == lim)
			j = lim - 1;
		while (j > 0 && sl[j - 1] > s) {
			sl[j] = sl[j - 1];
			out[j] = out[j - 1];
			j--;
		}
		sl[j] = s;
		out[j] = doms[i];
	}
	return n;
}

/* The options of group g inside cs, most wanted first: its own key's
 * domains (tightest first), each with a free domain of its exclusive key,
 * each first inside one domain of the preferred level, then of each
 * coarser level, then spread.  Returns the count, -1 on NOMEM. */
static int group_opts(gs *G, int g, const tcons *cs, int ncs, gopt *op)
{
	const wp_group *wg = &G->p->groups[g];
	const wp_tas *ta = wg->tas;
	const wtp_topo *t = G->p->topo;
	int need = wgr_group_need(wg), nb = 1, n = 0;
	gopt base[WGR_MAX_OPTS];
	base[0].n = 0;
	if (wg->key >= 0) {
		dsort *ds;
		nb = tree_cands(G, g, -1, wg->key, wg->fixed_dom, need,
				wg->size, cs, ncs, WGR_TREE_KID_DOMS, &ds);
		if (nb < 0)
			return -1;
		for (int i = 0; i < nb; i++)
			base[i] = (gopt){1, {{wg->key, ds[i].c.d}}};
	}
	gopt mid[WGR_MAX_OPTS];
	int nm = 0;
	tcons c2[WGR_MAX_CONS + 3];
	if (ncs)
		memcpy(c2, cs, (size_t)ncs * sizeof *cs);
	for (int b = 0; b < nb && nm < WGR_MAX_OPTS; b++) {
		if (!ta || ta->excl < 0) {
			mid[nm++] = base[b];
			continue;
		}
		int k = ta->excl, *doms;
		memcpy(c2 + ncs, base[b].c, (size_t)base[b].n * sizeof(tcons));
		int nd = cons_domains(G, k, ta->excl_fixed, c2,
				      ncs + base[b].n, &doms);
		if (nd < 0)
			return -1;
		for (int i = 0; i < nd && nm < WGR_MAX_OPTS; i++) {
			if (!excl_free(G, g, k, doms[i]))
				continue;
			mid[nm] = base[b];
			mid[nm].c[mid[nm].n++] = (tcons){k, doms[i]};
			nm++;
		}
	}
	for (int b = 0; b < nm && n < WGR_MAX_OPTS; b++) {
		if (ta && ta->pref >= 0) {
			memcpy(c2 + ncs, mid[b].c,
			       (size_t)mid[b].n * sizeof(tcons));
			for (int k = ta->pref; k >= 0 && n < WGR_MAX_OPTS;
			     k = t->keys[k].parent) {
				int doms[4];
				int nd = full_doms(G, wg, k, c2,
						   ncs + mid[b].n, 4, doms);
				if (nd < 0)
					return -1;
				for (int i = 0; i < nd && n < WGR_MAX_OPTS;
				     i++) {
					op[n] = mid[b];
					op[n].c[op[n].n++] = (tcons){k, doms[i]};
					n++;
				}
			}
		}
		if (n < WGR_MAX_OPTS)
			op[n++] = mid[b];
	}
	return n;
}

static void untake(gs *G, int g)
{
	const wp_tas *ta = G->p->groups[g].tas;
	if (!ta || ta->excl < 0 || !G->tr->xtaken[ta->excl])
		return;
	const wtp_key *k = &G->p->topo->keys[ta->excl];
	for (int d = 0; d < k->ndom; d++)
		if (G->tr->xtaken[ta->excl][d] == g + 1)
			G->tr->xtaken[ta->excl][d] = 0;
}

/* Place group g inside cs (and its options: own key, exclusive domain,
 * preferred level), trying its options from *opt on (the option used is
 * left in *opt): 1 placed, 0 not (nothing left behind), -1 NOMEM. */
static int tree_group(gs *G, int g, const tcons *cs, int ncs, int *opt)
{
	const wp_group *wg = &G->p->groups[g];
	int need = wgr_group_need(wg);
	if (wg->invalid || wg->nclasses == 0 || wg->fixed_dom == -2)
		return 0;
	/* classes: larger first */
	int corder[64], nco = wg->nclasses < 64 ? wg->nclasses : 64;
	wgr_class_order(G->ci, wg->classes, nco, corder);
	tcons c2[WGR_MAX_CONS + 3];
	if (ncs)
		memcpy(c2, cs, (size_t)ncs * sizeof *cs);
	gopt *op = wa_calloc(G->tmp, WGR_MAX_OPTS, sizeof *op);
	if (!op)
		return -1;
	int nopt = group_opts(G, g, cs, ncs, op);
	if (nopt < 0)
		return -1;
	for (int o = *opt; o < nopt; o++) {
		if (G->tr->steps++ >= WGR_TREE_STEPS)
			return 0;
		memcpy(c2 + ncs, op[o].c, (size_t)op[o].n * sizeof(tcons));
		int nc2 = ncs + op[o].n;
		int mark = G->nlog;
		int placed = place_in(G, wg, corder, nco, c2, nc2);
		if (placed < 0)
			return -1;
		if (placed >= need && (placed > 0 || need == 0)) {
			G->tr->tadm[g] = 1;
			const wp_tas *ta = wg->tas;
			if (ta && ta->excl >= 0) {
				/* the exclusive domain is the option's last
				 * exclusive constraint */
				for (int i = 0; i < op[o].n; i++)
					if (op[o].c[i].key == ta->excl)
						G->tr->xtaken[ta->excl]
							     [op[o].c[i].dom] =
						    g + 1;
			}
			*opt = o;
			return 1;
		}
		wgr_rollback_to(G, mark);
	}
	return 0;
}

/* A group outside any tree with annotations: its options in order. */
int wgr_annotated_solve(gs *G, int g)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	const wp_tas *ta = wg->tas;
	G->tr->steps = 0;
	G->nlog = 0;
	int opt = 0;
	int r = wg->invalid ? 0 : tree_group(G, g, NULL, 0, &opt);
	G->nlog = 0;
	if (r < 0)
		return -1;
	if (r > 0) {
		G->sol->admit[g] = 1;
		return 0;
	}
	const char *why = NULL;
	if (wg->invalid) {
		why = wg->invalid;
	} else if (ta->excl >= 0) {
		const wtp_key *k = &p->topo->keys[ta->excl];
		int nfree = 0;
		for (int d = 0; d < k->ndom; d++)
			nfree += excl_free(G, g, ta->excl, d);
		if (!nfree)
			why = wa_printf(G->ra, "every %s domain is held by "
					"another group with that exclusive "
					"topology", k->label);
	}
	if (!why && ta->nslices)
		why = wa_printf(G->ra, "its %d pods do not fit as slices "
				"of %d, each inside one %s domain", wg->size,
				ta->slice_size[ta->nslices - 1],
				p->topo->keys[ta->slice_key[ta->nslices - 1]]
				    .label);
	if (!why)
		why = wa_printf(G->ra, "no room for %d pod%s within the "
				"domains its topology annotations allow",
				wgr_group_need(wg),
				wgr_plural(wgr_group_need(wg), "", "s"));
	if (!why)
		return -1;
	G->sol->reason[g] = why;
	return 0;
}

/* ------------------------------------------------------------- trees */

typedef struct tkid {
	int kid;
	int ncand;
	int need;
	int idx;
} tkid;

static int cmp_tkid(const void *va, const void *vb)
{
	const tkid *a = va, *b = vb;
	if (a->ncand != b->ncand)
		return a->ncand < b->ncand ? -1 : 1;
	if (a->need != b->need)
		return a->need > b->need ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Children i.. of the ordered list: place or skip each, backtracking,
 * until `got` reaches `need` with nothing left to try.  1 / 0 / -1. */
static int tree_kids(gs *G, const tkid *ks, int nk, int i, int got,
		     int need, const tcons *cs, int ncs, int *best)
{
	if (got > *best)
		*best = got;
	if (i == nk)
		return got >= need;
	if (got + (nk - i) < need)
		return 0;
	int k = ks[i].kid, mark = G->nlog;
	/* each option of kid i (its domains, in order), then leaving it
	 * out; a choice that strands later siblings is undone */
	for (int opt = 0; ks[i].ncand > 0; opt++) {
		int r = k >= 0 ? tree_group(G, k, cs, ncs, &opt)
			       : tree_comp(G, -1 - k, cs, ncs, false, &opt);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		int rr = tree_kids(G, ks, nk, i + 1, got + 1, need, cs, ncs,
				   best);
		if (rr != 0)
			return rr;
		wgr_rollback_to(G, mark);
		if (k >= 0) {
			G->tr->tadm[k] = 0;
			untake(G, k);
		} else {
			clear_tadm(G, -1 - k);
		}
	}
	return tree_kids(G, ks, nk, i + 1, got, need, cs, ncs, best);
}

/* Admit comp h inside cs, trying its domains from *opt on (the one used
 * is left in *opt): 1 admitted (its children placed), 0 not (nothing left
 * behind), -1 NOMEM. */
static int tree_comp(gs *G, int h, const tcons *cs, int ncs, bool root,
		     int *opt)
{
	const wp_problem *p = G->p;
	const wp_comp *hc = &p->comps[h];
	gtree *T = G->tr;
	if (hc->invalid || hc->fixed_dom == -2)
		return 0;
	int need = hc->min_groups - hc->nrunning;
	if (T->full && hc->nkids - hc->nrunning > need)
		need = hc->nkids - hc->nrunning;
	int size = subtree_size(p, h);
	tcons c2[WGR_MAX_CONS];
	if (ncs)
		memcpy(c2, cs, (size_t)ncs * sizeof *cs);
	int nopt = 1;
	dsort *ds = NULL;
	if (hc->key >= 0) {
		nopt = tree_cands(G, -1, h, hc->key, hc->fixed_dom, 1, size,
				  cs, ncs, WGR_TREE_DOMS, &ds);
		if (nopt < 0)
			return -1;
	}
	tkid *ks = wa_calloc(G->tmp, (size_t)hc->nkids + 1, sizeof *ks);
	if (!ks)
		return -1;
	for (int o = *opt; o < nopt; o++) {
		int nc2 = ncs;
		if (hc->key >= 0)
			c2[nc2++] = (tcons){hc->key, ds[o].c.d};
		if (root)
			T->tried++;
		else if (T->steps++ >= WGR_TREE_STEPS)
			return 0;
		/* most constrained child first: fewest domains that could
		 * hold it here, then the largest */
		for (int i = 0; i < hc->nkids; i++) {
			int k = hc->kids[i];
			tkid *t = &ks[i];
			*t = (tkid){k, 1, 0, i};
			if (k >= 0) {
				const wp_group *wg = &p->groups[k];
				t->need = wgr_group_need(wg);
				if (wg->key >= 0) {
					dsort *kd;
					t->ncand = tree_cands(
					    G, k, -1, wg->key, wg->fixed_dom,
					    t->need, wg->size, c2, nc2, 1 << 30,
					    &kd);
				} else {
					int64_t b, s;
					group_bound(G, wg, c2, nc2, &b, &s);
					t->ncand = b >= t->need && b > 0;
				}
			} else {
				int64_t b = 0, s = 0;
				subtree_bound(G, -1 - k, c2, nc2, &b, &s);
				t->need = subtree_size(p, -1 - k);
				t->ncand = b > 0;
			}
			if (t->ncand < 0)
				return -1;
		}
		qsort(ks, (size_t)hc->nkids, sizeof *ks, cmp_tkid);
		/* children that cannot fit go last (ncand 0 sorts first) */
		int nz = 0;
		while (nz < hc->nkids && ks[nz].ncand == 0)
			nz++;
		tkid *ord = wa_calloc(G->tmp, (size_t)hc->nkids + 1,
				      sizeof *ord);
		if (!ord)
			return -1;
		memcpy(ord, ks + nz, (size_t)(hc->nkids - nz) * sizeof *ks);
		memcpy(ord + hc->nkids - nz, ks, (size_t)nz * sizeof *ks);
		int best = 0;
		int r = tree_kids(G, ord, hc->nkids, 0, 0, need > 0 ? need : 1,
				  c2, nc2, &best);
		if (r < 0)
			return -1;
		if (root && best > T->best) {
			T->best = best;
			T->best_dom = hc->key >= 0 ? p->topo->keys[hc->key]
							 .dom_name[ds[o].c.d]
						   : NULL;
		}
		if (r > 0) {
			*opt = o;
			return 1;
		}
		clear_tadm(G, h);
	}
	return 0;
}

static void tree_reasons(gs *G, int h, const char *why)
{
	const wp_comp *hc = &G->p->comps[h];
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		if (k >= 0)
			G->sol->reason[k] = why;
		else
			tree_reasons(G, -1 - k, why);
	}
}

/* After an admitted tree: groups left out, and why. */
static int tree_leftout(gs *G, int h)
{
	const wp_problem *p = G->p;
	const wp_comp *hc = &p->comps[h];
	const ws_composite *sh = &p->snap->comps[h];
	bool adm = wp_comp_admitted(p, G->sol, h);
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		if (k < 0) {
			if (tree_leftout(G, -1 - k))
				return -1;
			continue;
		}
		if (G->sol->admit[k])
			continue;
		const wp_group *wg = &p->groups[k];
		const char *why =
		    wg->invalid ? wg->invalid
		    : adm ? wa_printf(G->ra, "its CompositePodGroup %s/%s "
				      "was admitted without it: no room left "
				      "for it inside the parent's domain",
				      sh->ns, sh->name)
			  : wa_printf(G->ra, "its CompositePodGroup %s/%s "
				      "was not admitted", sh->ns, sh->name);
		if (!why)
			return -1;
		G->sol->reason[k] = why;
	}
	return 0;
}

static void tree_admit(gs *G, int h)
{
	const wp_comp *hc = &G->p->comps[h];
	for (int i = 0; i < hc->nkids; i++) {
		int k = hc->kids[i];
		if (k >= 0)
			G->sol->admit[k] = G->tr->tadm[k];
		else
			tree_admit(G, -1 - k);
	}
}

/* Place the tree that comp h belongs to, once. */
int wgr_tree_solve(gs *G, int h)
{
	const wp_problem *p = G->p;
	gtree *T = G->tr;
	int root = p->comps[h].root;
	if (T->done[root])
		return 0;
	T->done[root] = 1;
	const wp_comp *rc = &p->comps[root];
	const ws_composite *sr = &p->snap->comps[root];
	/* every child of every comp first, in any candidate domain: a
	 * domain where only the minimum fits is taken only when no domain
	 * holds the whole tree (the tightest domain that holds the minimum
	 * would otherwise win and strand the rest) */
	int r = 0;
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		T->full = pass == 0;
		T->steps = 0;
		T->best = 0;
		T->best_dom = NULL;
		T->tried = 0;
		G->nlog = 0;
		int opt = 0;
		r = tree_comp(G, root, NULL, 0, true, &opt);
	}
	T->full = false;
	if (r < 0)
		return -1;
	G->nlog = 0; /* committed, or everything rolled back */
	if (r > 0) {
		tree_admit(G, root);
		return tree_leftout(G, root);
	}
	const char *why;
	int need = rc->min_groups - rc->nrunning;
	const char *key = rc->key >= 0 ? p->topo->keys[rc->key].label : NULL;
	if (rc->invalid)
		why = rc->invalid;
	else if (rc->fixed_dom == -2)
		why = wa_printf(G->ra, "CompositePodGroup %s/%s: its "
				"running pods already span several %s "
				"domains", sr->ns, sr->name, key);
	else if (key && T->tried == 0)
		why = wa_printf(G->ra, "CompositePodGroup %s/%s: no %s "
				"domain has room for any of its pods",
				sr->ns, sr->name, key);
	else if (key)
		why = wa_printf(G->ra, "CompositePodGroup %s/%s needs %d "
				"child group%s admitted in one %s domain; at "
				"most %d fit together (%s %s, %d domain%s "
				"tried)", sr->ns, sr->name, need,
				wgr_plural(need, "", "s"), key, T->best,
				wgr_short_name(key),
				T->best_dom ? T->best_dom : "-", T->tried,
				wgr_plural(T->tried, "", "s"));
	else
		why = wa_printf(G->ra, "CompositePodGroup %s/%s needs %d "
				"child group%s admitted; at most %d fit "
				"together", sr->ns, sr->name, need,
				wgr_plural(need, "", "s"), T->best);
	if (!why)
		return -1;
	tree_reasons(G, root, why);
	/* a group's own invalidity says more */
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].pcomp && p->comps[p->groups[g].pcomp - 1]
						  .root == root &&
		    p->groups[g].invalid)
			G->sol->reason[g] = p->groups[g].invalid;
	return 0;
}

int wgr_tree_setup(gs *G)
{
	const wp_problem *p = G->p;
	bool any = p->ncomps > 0;
	for (int g = 0; g < p->ngroups && !any; g++)
		any = p->groups[g].tas != NULL;
	if (!any)
		return 0;
	G->tr = wa_calloc(G->tmp, 1, sizeof *G->tr);
	if (!G->tr)
		return -1;
	int maxd = 1;
	for (int i = 0; p->topo && i < p->topo->nkeys; i++)
		if (p->topo->keys[i].ndom > maxd)
			maxd = p->topo->keys[i].ndom;
	G->tr->done = wa_calloc(G->tmp, (size_t)p->ncomps + 1, 1);
	G->tr->tadm = wa_calloc(G->tmp, (size_t)p->ngroups + 1, 1);
	G->tr->stamp = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof(int));
	int nk = p->topo ? p->topo->nkeys : 0;
	G->tr->xtaken = wa_calloc(G->tmp, (size_t)nk + 1, sizeof(int *));
	if (!G->tr->done || !G->tr->tadm || !G->tr->stamp || !G->tr->xtaken)
		return -1;
	for (int k = 0; k < nk; k++)
		if (p->excl_owner && p->excl_owner[k] &&
		    !(G->tr->xtaken[k] = wa_calloc(G->tmp,
						   (size_t)p->topo->keys[k]
							   .ndom + 1,
						   sizeof(int))))
			return -1;
	return 0;
}
