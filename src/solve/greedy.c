/*
 * greedy.c -- the greedy core (greedy.h, DESIGN.md §6): always an answer,
 * fast, and the ILP's first incumbent.
 *
 * Groups go by priority, then most constrained (fewest domains that could
 * hold their minimum on the initial capacity), then largest, then input
 * order.  For each group the pods that fit per candidate domain are rolled
 * up from the nodes; domains that hold the whole group are tried
 * tightest first (fewest pod slots, then name), then those that hold at
 * least the minimum, most pods first.  Pods go best-fit onto nodes: the
 * node that fits the fewest more pods of the class, then the least free
 * capacity (normalised over its resources), then the lowest index.  A gang
 * that cannot reach its minimum in a domain is rolled back and the next
 * domain is tried; when none works it waits with a reason that has the
 * numbers in it.
 *
 * Speed (10,000 nodes, 5,000 groups): roll-ups are cached per (pod
 * profile, key) and per domain, and per-node fits per profile, each
 * invalidated by version counters that a placement bumps on its node and
 * the node's domains; only what a placement touched is recomputed.
 * OpenMP runs the initial roll-ups (one slot per group or profile) and any
 * roll-up large enough to pay for a parallel region; every parallel result
 * is an integer written to its own slot, so any thread count gives the
 * same plan.
 */
#include "solve/greedy.h"
#include "base/options.h"
#include "base/clock.h"
#include "base/sort.h"
#include "base/rng.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dra.h"
#include "reduce/units.h"
#include "model/quantity.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Domains actually placed into per group, after the roll-up prefilter. */
#define WGR_MAX_TRIES 64
/* Node visits below which a roll-up is not worth a parallel region. */
#define WGR_PAR_MIN (1 << 17)
/* Cached per-node fits (profiles x nodes) the greedy may hold: 64 MB. */
#define WGR_FIT_CACHE ((size_t)1 << 23)
/* Per-node fit cap: keeps sums far from overflow when requests are 0. */
#define WGR_FIT_CAP (1 << 30)

typedef struct cinfo {
	int *rl;              /* resources the class requests, scarcest first */
	int nr;
	unsigned char *bits;  /* eligibility bitmap over nodes (shared)  */
	double weight;        /* normalised size: larger classes go first */
	int prof;             /* first class with the same elig and req   */
} cinfo;

typedef struct logent {
	int c, k, cnt;
	int dmark; /* device allocations before this entry's (DRA) */
} logent;

typedef struct ncand {
	int64_t fit;
	double frac;
	int n;
} ncand;

typedef struct dcand {
	int d;
	int64_t bound, slots;
} dcand;

/* Roll-up cache of one (profile, key) pair shared by several single-class
 * groups: raw pod slots per domain, valid while the domain's version has
 * not moved (a placement bumps the versions of the domains of its node). */
typedef struct rcache {
	int c;         /* representative class */
	int key;       /* -1: the whole cluster (one domain) */
	int ngroups;
	int64_t *raw;
	uint32_t *ver;
} rcache;

typedef struct gs {
	const wp_problem *p;
	const ws_snapshot *s;
	wp_sol *sol;
	int64_t *fr; /* working free capacity, nnodes * nres */
	int nres, nn, threads;
	uint64_t seed;   /* 0: the standard order; else a perturbed one
			    (wgr_solve_seeded)                      */
	wa_arena *ra;    /* where the plan's texts go: the problem's
			    arena, or a restart's own (wgr_restarts) */
	cinfo *ci;
	wa_arena *tmp;
	ncand *nc;   /* nnodes: node candidates of one placement */
	logent *log;
	int nlog;
	size_t logcap;
	uint32_t **dver; /* per key, per domain: placement version */
	uint32_t gver;   /* the cluster's version                  */
	rcache *rc;
	int nrc;
	int *gpair;      /* per group: its rcache, or -1           */
	uint32_t *nver;  /* per node: placement version            */
	double *frac;    /* per node: cached node_frac, at fver    */
	uint32_t *fver;
	int32_t **pfit;  /* per profile (class index): cached fit
			    per node, at pver; NULL: not cached    */
	uint32_t **pver;
	struct gtree *tr; /* CompositePodGroup trees (issue 5)       */
	/* DRA: device allocation state (NULL without claims) and, per
	 * class, its pods' claim list (NULL: none) */
	wdr_state *dra;
	const wdr_podc **cpc;
	int dra_mark;    /* allocations before the current try       */
	/* device reasons per (claim list, key): valid while no group has
	 * been admitted since (failed tries leave the state as it was) */
	uint32_t dra_commit;
	const char **dr_text;
	uint32_t *dr_ver;
	int64_t *dr_fit;
	const int **dr_elig;
	int dr_nk, dr_nsig;
	/* preemption (the section before run()) */
	int32_t level;         /* priority level being placed             */
	bool have_level;
	unsigned char *dirty;  /* nnodes: something was evicted there     */
	int *dlist;            /* the dirty nodes                          */
	int ndirty;
	int *pe_start, *pe_list; /* node -> units with a pod there (CSR) */
	unsigned char *pe_mark, *pe_rep;
	int *pe_v, *pe_tmp;
	unsigned char *pe_pdbv;  /* per unit: evicting it breaks a budget */
	int *pdb_left, *pdb_use; /* per PDB: disruptions left, scratch    */
	bool preempt;          /* preemption allowed at all              */
	int64_t *nv_save, *nv_capd, *nv_used; /* never_cap               */
	bool nv_pending;
	/* preemption bound: node -> running pods of units there (CSR) */
	int *pe_pstart, *pe_pods, *pe_punit;
	int64_t *pe_cap, *pe_acc; /* scratch: nres, nclasses             */
	/* per node, and per domain of each key (computed when stale), the
	 * lowest priority of a unit that may still be evicted there */
	int32_t *pe_nmin, **pe_dmin;
	unsigned *pe_dver, pe_ever;
	int *pe_rank, *pe_order; /* units by cost with no budget broken  */
	/* moves (issue 6, --rebalance; the section "moves") */
	int64_t *mv_adj;   /* nnodes * nres: room moves freed (out - in)   */
	int *mv_v, *mv_to; /* candidate pods of one domain, their moves    */
	int nmoves;        /* moves so far                                 */
	int *mv_nbeg, *mv_nlist; /* per node: move classes at home there  */
	/* per-pod preemption of a basic group's rest (preempt_rest) */
	int pe_only_dom;   /* >= 0: the one candidate domain               */
	int pe_rest;       /* > 0: pods still to place (the limit)         */
	/* devices held by evicted pods (issue 6, dv_*): per allocated
	 * claim spec, holders evicted so far and whether its freed devices
	 * were taken back for a level at or below its victims' priority */
	int *dv_gone;
	unsigned char *dv_back;
	bool dv_clash;     /* a restore found a device in use twice        */
	/* DRA and preemption: when evictions free no device (no running
	 * pod holds a claim), a domain whose devices alone hold fewer than
	 * `need` pods of a group is not searched for victims.  Per (claim list, key): the device fit per
	 * domain and per node (at the node's version), for one eligibility,
	 * refreshed from the changed nodes once a group was admitted. */
	struct pdfit *pd;
} gs;

static bool unit_moved(const gs *G, int u);

/* ------------------------------------------------------------ fitting */

static inline bool elig_bit(const cinfo *ci, int n)
{
	return ci->bits[n >> 3] & (1u << (n & 7));
}

/* Pods of class c that fit in the room `f` (nres), resources only. */
static inline int64_t cap_fit(const gs *G, int c, const int64_t *f)
{
	const cinfo *ci = &G->ci[c];
	const int64_t *req = G->p->classes[c].req;
	int64_t best = WGR_FIT_CAP;
	for (int i = 0; i < ci->nr; i++) {
		int r = ci->rl[i];
		if (f[r] < req[r])
			return 0;
		int64_t q = f[r] - req[r] < req[r] ? 1 : f[r] / req[r];
		if (q < best)
			best = q;
	}
	return best;
}

/* Pods of group wg that could be placed when class ci fits acc[ci] of
 * its pods (capped at the class's count): a bound for a search. */
static int64_t acc_bound(const wp_problem *p, const wp_group *wg,
			 const int64_t *acc)
{
	int64_t ub = 0;
	for (int ci = 0; ci < wg->nclasses; ci++) {
		int64_t cnt = p->classes[wg->classes[ci]].count;
		ub += acc[ci] < cnt ? acc[ci] : cnt;
	}
	return ub;
}

/* Pods of class c that fit on node n now. */
static inline int64_t node_fit(const gs *G, int c, int n)
{
	int64_t best = cap_fit(G, c, G->fr + (size_t)n * G->nres);
	if (!best)
		return 0;
	/* Exact device fit: claims allocated one pod after another. */
	if (G->cpc && G->cpc[c])
		best = wdr_fit(G->dra, G->cpc[c], n, (int)(best < 4096 ? best
							    : 4096));
	return best;
}

/* node_fit through the profile's cache (serial code only: it writes). */
static inline int64_t node_fit_c(gs *G, int c, int n)
{
	int pr = G->ci[c].prof;
	int32_t *fit = G->pfit ? G->pfit[pr] : NULL;
	if (!fit)
		return node_fit(G, c, n);
	uint32_t *ver = G->pver[pr];
	if (ver[n] != G->nver[n]) {
		fit[n] = (int32_t)node_fit(G, c, n);
		ver[n] = G->nver[n];
	}
	return fit[n];
}

/* Raw pod slots of class c in domain d of k (k NULL: the cluster); `wr`
 * (serial callers) lets it use and fill the fit cache. */
static int64_t class_slots(const gs *G, int c, const wtp_key *k, int d,
			   gs *wr)
{
	const wp_class *cl = &G->p->classes[c];
	int64_t raw = 0;
	if (!k) {
		for (int j = 0; j < cl->nelig; j++)
			raw += wr ? node_fit_c(wr, c, cl->elig[j])
				  : node_fit(G, c, cl->elig[j]);
		return raw;
	}
	const cinfo *ci = &G->ci[c];
	const int *nodes = k->dom_nodes[d];
	for (int j = 0; j < k->dom_nnodes[d]; j++)
		if (elig_bit(ci, nodes[j]))
			raw += wr ? node_fit_c(wr, c, nodes[j])
				  : node_fit(G, c, nodes[j]);
	return raw;
}

/* Roll-up computed from the nodes: for each candidate, slots = pod slots
 * summed over the group's classes, bound = pods of the group that could
 * fit (an upper bound when classes compete).  Each candidate writes its
 * own slot and sums are integers, so the thread count does not matter;
 * small roll-ups stay serial (a parallel region costs more than it saves
 * below WGR_PAR_MIN node visits). */
static void rollup_direct(const gs *G, gs *wr, const wp_group *wg,
			  const wtp_key *k, dcand *cd, int ncd)
{
	long work = 0;
	if (!k)
		for (int ci = 0; ci < wg->nclasses; ci++)
			work += G->p->classes[wg->classes[ci]].nelig;
	else
		for (int i = 0; i < ncd; i++)
			work += (long)k->dom_nnodes[cd[i].d] * wg->nclasses;
	/* wr: a serial caller that may use the fit caches */
	bool par = wr && work >= WGR_PAR_MIN && G->threads > 1;
	if (par)
		wr = NULL;

	if (!k) {
		/* one candidate: parallel over nodes, an integer sum */
		int64_t bound = 0, slots = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			const wp_class *cl = &G->p->classes[c];
			int64_t raw = 0;
			if (par) {
#pragma omp parallel for reduction(+ : raw) num_threads(G->threads)
				for (int j = 0; j < cl->nelig; j++)
					raw += node_fit(G, c, cl->elig[j]);
			} else {
				raw = class_slots(G, c, NULL, -1, wr);
			}
			slots += raw;
			bound += raw < cl->count ? raw : cl->count;
		}
		cd[0].bound = bound;
		cd[0].slots = slots;
		return;
	}
#pragma omp parallel for schedule(dynamic, 16) num_threads(G->threads) \
	if (par)
	for (int i = 0; i < ncd; i++) {
		int64_t bound = 0, slots = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			int64_t raw = class_slots(G, c, k, cd[i].d, wr);
			int64_t cnt = G->p->classes[c].count;
			slots += raw;
			bound += raw < cnt ? raw : cnt;
		}
		cd[i].bound = bound;
		cd[i].slots = slots;
	}
}

/* The roll-up of group g, from its pair's cache when it has one
 * (refreshing the domains placements have touched since). */
static void rollup(gs *G, int g, const wtp_key *k, dcand *cd, int ncd)
{
	const wp_group *wg = &G->p->groups[g];
	if (G->gpair[g] < 0) {
		rollup_direct(G, G, wg, k, cd, ncd);
		return;
	}
	rcache *rc = &G->rc[G->gpair[g]];
	int64_t cnt = G->p->classes[wg->classes[0]].count;
	for (int i = 0; i < ncd; i++) {
		int d = k ? cd[i].d : 0;
		uint32_t v = k ? G->dver[rc->key][d] : G->gver;
		if (rc->ver[d] != v) {
			rc->raw[d] = class_slots(G, rc->c, k, k ? d : -1, G);
			rc->ver[d] = v;
		}
		cd[i].slots = rc->raw[d];
		cd[i].bound = rc->raw[d] < cnt ? rc->raw[d] : cnt;
	}
}

/* --------------------------------------------------------- placement */

static bool nc_less(const ncand *a, const ncand *b)
{
	if (a->fit != b->fit)
		return a->fit < b->fit;
	if (a->frac != b->frac)
		return a->frac < b->frac;
	return a->n < b->n;
}

static void sift_down(ncand *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && nc_less(&h[l], &h[m]))
			m = l;
		if (r < n && nc_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		ncand t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Free capacity of node n, normalised over the resources it has (cached
 * until the node changes). */
static double node_frac(gs *G, int n)
{
	if (G->fver[n] == G->nver[n])
		return G->frac[n];
	const int64_t *al = G->s->nodes[n].alloc;
	const int64_t *f = G->fr + (size_t)n * G->nres;
	double s = 0;
	for (int r = 0; r < G->nres; r++)
		if (al[r] > 0)
			s += (double)f[r] / (double)al[r];
	G->frac[n] = s;
	G->fver[n] = G->nver[n];
	return s;
}

static int elig_pos(const wp_class *c, int n)
{
	int lo = 0, hi = c->nelig - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (c->elig[mid] == n)
			return mid;
		if (c->elig[mid] < n)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Node n changed: its domains' cached roll-ups are stale. */
static void touch(gs *G, int n)
{
	const wtp_topo *t = G->p->topo;
	for (int k = 0; t && k < t->nkeys; k++) {
		int d = t->keys[k].node_dom[n];
		if (d >= 0)
			G->dver[k][d]++;
	}
	G->gver++;
	G->nver[n]++;
}

/* Place up to m pods of class c on the candidates G->nc[0..nc), best-fit
 * first.  Returns the number placed, or -1 on NOMEM. */
static int place_cands(gs *G, int c, int nc, int m)
{
	const wp_class *cl = &G->p->classes[c];
	for (int i = 0; i < nc; i++)
		G->nc[i].frac = node_frac(G, G->nc[i].n);
	for (int i = nc / 2 - 1; i >= 0; i--)
		sift_down(G->nc, nc, i);
	int placed = 0;
	while (placed < m && nc > 0) {
		ncand top = G->nc[0];
		G->nc[0] = G->nc[--nc];
		sift_down(G->nc, nc, 0);
		int cnt = top.fit < m - placed ? (int)top.fit : m - placed;
		int pos = elig_pos(cl, top.n);
		if (pos < 0)
			continue; /* cannot happen: candidates are eligible */
		int dmark = G->dra ? G->dra->nallocs : 0;
		if (G->cpc && G->cpc[c]) {
			/* Devices, pod by pod: the fit is an estimate for
			 * shared claims, this is exact. */
			int ok = 0;
			while (ok < cnt &&
			       wdr_place(G->dra, cl->pods[0], c, top.n))
				ok++;
			if (ok == 0)
				continue;
			cnt = ok;
		}
		logent e = {c, pos, cnt, dmark};
		if (WA_PUSH(G->tmp, G->log, G->nlog, G->logcap, e))
			return -1;
		G->sol->x[cl->off + pos] += cnt;
		int64_t *f = G->fr + (size_t)top.n * G->nres;
		for (int r = 0; r < G->nres; r++)
			f[r] -= (int64_t)cnt * cl->req[r];
		touch(G, top.n);
		placed += cnt;
	}
	return placed;
}

/* Place up to m pods of class c in domain d of k (k NULL: anywhere),
 * best-fit.  Returns the number placed, or -1 on NOMEM. */
static int place_class(gs *G, int c, const wtp_key *k, int d, int m)
{
	const wp_class *cl = &G->p->classes[c];
	const cinfo *ci = &G->ci[c];
	int nc = 0;
	if (m <= 0)
		return 0;
	if (!k) {
		for (int j = 0; j < cl->nelig; j++) {
			int64_t f = node_fit_c(G, c, cl->elig[j]);
			if (f > 0)
				G->nc[nc++] = (ncand){f, 0, cl->elig[j]};
		}
	} else {
		const int *nodes = k->dom_nodes[d];
		for (int j = 0; j < k->dom_nnodes[d]; j++) {
			int n = nodes[j];
			if (!elig_bit(ci, n))
				continue;
			int64_t f = node_fit_c(G, c, n);
			if (f > 0)
				G->nc[nc++] = (ncand){f, 0, n};
		}
	}
	return place_cands(G, c, nc, m);
}

static void rollback(gs *G)
{
	if (G->dra)
		wdr_undo(G->dra, G->dra_mark);
	while (G->nlog > 0) {
		logent e = G->log[--G->nlog];
		const wp_class *cl = &G->p->classes[e.c];
		G->sol->x[cl->off + e.k] -= e.cnt;
		int64_t *f = G->fr + (size_t)cl->elig[e.k] * G->nres;
		for (int r = 0; r < G->nres; r++)
			f[r] += (int64_t)e.cnt * cl->req[r];
		touch(G, cl->elig[e.k]);
	}
}

/* Place group wg in domain d (k NULL: anywhere): each class up to its
 * count, larger classes first.  Returns pods placed, or -1 when fewer
 * than `need` fit (everything rolled back), -2 on NOMEM. */
static int try_group(gs *G, const wp_group *wg, const int *corder,
		     const wtp_key *k, int d, int need)
{
	G->nlog = 0;
	if (G->dra)
		G->dra_mark = G->dra->nallocs;
	int placed = 0;
	for (int i = 0; i < wg->nclasses; i++) {
		int c = corder[i];
		int got = place_class(G, c, k, d, G->p->classes[c].count);
		if (got < 0)
			return -2;
		placed += got;
	}
	if (placed < need) {
		rollback(G);
		return -1;
	}
	G->nlog = 0;
	return placed;
}

/* ------------------------------------------------------------ reasons */

static const char *short_name(const char *label)
{
	const char *s = strrchr(label, '/');
	return s ? s + 1 : label;
}

static const char *plural(int64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The request of class c that matters, as "8 nvidia.com/gpu": in domain
 * d of k the resource that limits the class most there; otherwise (the
 * whole cluster: too many nodes to scan per waiting group) the scarcest
 * request relative to the largest node. */
static const char *describe_req(gs *G, int c, const wtp_key *k, int d)
{
	const wp_class *cl = &G->p->classes[c];
	const cinfo *ci = &G->ci[c];
	if (ci->nr == 0)
		return "nothing";
	int best_r = ci->rl[0];
	int64_t best = INT64_MAX;
	for (int i = 0; k && d >= 0 && i < ci->nr; i++) {
		int r = ci->rl[i];
		int64_t sum = 0;
		for (int j = 0; j < k->dom_nnodes[d]; j++) {
			int n = k->dom_nodes[d][j];
			if (!elig_bit(ci, n))
				continue;
			int64_t f = G->fr[(size_t)n * G->nres + r];
			if (f >= cl->req[r])
				sum += f / cl->req[r];
		}
		if (sum < best) {
			best = sum;
			best_r = r;
		}
	}
	/* the pod limit binds, yet something else is requested: name the
	 * largest other request so the reader knows the pod */
	if (best_r == WS_RES_PODS)
		for (int i = 0; i < ci->nr; i++)
			if (ci->rl[i] != WS_RES_PODS) {
				best_r = ci->rl[i];
				break;
			}
	if (best_r == WS_RES_PODS)
		return "1 pod slot";
	char q[64];
	const char *name = G->s->res[best_r];
	wq_format(cl->req[best_r], wq_is_bytes_resource(name), q, sizeof q);
	return wa_printf(G->ra, "%s %s", q, name);
}

/* The main class of a group for messages: the first in placement order. */
static const char *pods_of(gs *G, const wp_group *wg, int c, int npods,
			   const wtp_key *k, int d)
{
	if (npods == 1)
		return wg->nclasses == 1
			   ? wa_printf(G->ra, "a pod of %s",
				       describe_req(G, c, k, d))
			   : "1 pod";
	if (wg->nclasses > 1)
		return wa_printf(G->ra, "%d pods", npods);
	return wa_printf(G->ra, "%d pods of %s each", npods,
			 describe_req(G, c, k, d));
}

static const char *explain(gs *G, const wp_group *wg, const int *corder,
			   const wtp_key *k, const dcand *cd, int ncd,
			   int need, int tried)
{
	wa_arena *a = G->ra;
	const wp_problem *p = G->p;
	int c0 = corder[0];
	/* pods no node can ever take */
	int reach = 0;
	const char *none = NULL;
	for (int i = 0; i < wg->nclasses; i++) {
		const wp_class *cl = &p->classes[corder[i]];
		if (cl->nelig > 0)
			reach += cl->count;
		else if (!none)
			none = cl->why_none;
	}
	if (none && reach < (need > 0 ? need : 1))
		return wa_printf(a, "no node matches: %s", none);
	int best = -1;
	for (int i = 0; i < ncd; i++)
		if (best < 0 || cd[i].bound > cd[best].bound)
			best = i;
	int64_t bb = best >= 0 ? cd[best].bound : 0;
	if (bb >= need && tried > 0)
		return wa_printf(a, "the roll-up promised room for %d pod%s "
				 "but they did not fit together in any of "
				 "the %d %s tried", need, plural(need, "", "s"),
				 tried, k ? "domains" : "placements");
	if (!k) {
		if (wg->gang && wg->nclasses > 1)
			return wa_printf(a, "only %lld of %d required pods fit "
					 "anywhere in the cluster",
					 (long long)bb, need);
		if (wg->gang)
			return wa_printf(a, "only %lld of %d required pods fit "
					 "anywhere in the cluster (%s each)",
					 (long long)bb, need,
					 describe_req(G, c0, NULL, -1));
		return wa_printf(a, "no eligible node has room for %s "
				 "(%d eligible node%s)",
				 pods_of(G, wg, c0, 1, NULL, -1),
				 p->classes[c0].nelig,
				 plural(p->classes[c0].nelig, "", "s"));
	}
	const char *sn = short_name(k->label);
	if (wg->fixed_dom >= 0) {
		int d = wg->fixed_dom;
		if (wg->nclasses > 1)
			return wa_printf(a, "its running pods pin it to %s %s, "
					 "which has room for %lld of the %d "
					 "more pods it needs", sn,
					 k->dom_name[d], (long long)bb, need);
		return wa_printf(a, "its running pods pin it to %s %s, which "
				 "has room for %lld of the %d more pod%s it "
				 "needs (%s each)", sn, k->dom_name[d],
				 (long long)bb, need, plural(need, "", "s"),
				 describe_req(G, c0, k, d));
	}
	if (best < 0)
		return wa_printf(a, "no node has the label %s", k->label);
	const char *what = pods_of(G, wg, c0, need, k, cd[best].d);
	if (bb == 0)
		return wa_printf(a, "no %s domain has room for %s", k->label,
				 what);
	return wa_printf(a, "no %s domain has room for %s; the best %s (%s) "
			 "fits %lld", k->label, what, sn,
			 k->dom_name[cd[best].d], (long long)bb);
}

/* -------------------------------------------------------------- setup */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static int setup_classes(gs *G)
{
	const wp_problem *p = G->p;
	int nres = G->nres, nn = G->nn;
	size_t nb = ((size_t)nn + 7) / 8 + 1;
	/* largest allocatable per resource, to normalise requests */
	int64_t *amax = wa_calloc(G->tmp, (size_t)nres + 1, sizeof *amax);
	G->ci = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof *G->ci);
	size_t cap = 16;
	while (cap < 2 * (size_t)p->nclasses + 16)
		cap *= 2;
	int *tab = wa_calloc(G->tmp, cap, sizeof *tab);
	int *btab = wa_calloc(G->tmp, cap, sizeof *btab);
	if (!amax || !G->ci || !tab || !btab)
		return -1;
	for (int n = 0; n < nn; n++)
		for (int r = 0; r < nres; r++)
			if (G->s->nodes[n].alloc[r] > amax[r])
				amax[r] = G->s->nodes[n].alloc[r];
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		cinfo *ci = &G->ci[c];
		ci->rl = wa_calloc(G->tmp, (size_t)nres + 1, sizeof(int));
		double *sc = wa_calloc(G->tmp, (size_t)nres + 1, sizeof(double));
		if (!ci->rl || !sc)
			return -1;
		for (int r = 0; r < nres; r++) {
			if (cl->req[r] <= 0)
				continue;
			double s = amax[r] > 0 ? (double)cl->req[r] / amax[r]
					       : 1e9;
			int i = ci->nr++;
			while (i > 0 && sc[i - 1] < s) {
				ci->rl[i] = ci->rl[i - 1];
				sc[i] = sc[i - 1];
				i--;
			}
			ci->rl[i] = r;
			sc[i] = s;
			ci->weight += s;
		}
		/* profile: same eligible array and same requests */
		uint64_t h = mix((uint64_t)(uintptr_t)cl->elig, 0);
		for (int r = 0; r < nres; r++)
			h = mix(h, (uint64_t)cl->req[r]);
		size_t j = h & (cap - 1);
		ci->prof = -1;
		while (tab[j]) {
			int o = tab[j] - 1;
			const wp_class *oc = &p->classes[o];
			if (oc->elig == cl->elig &&
			    !memcmp(oc->req, cl->req, (size_t)nres * sizeof *cl->req) &&
			    (!G->cpc || (G->cpc[o] ? G->cpc[o]->sig : 0) ==
					(G->cpc[c] ? G->cpc[c]->sig : 0))) {
				ci->prof = o;
				break;
			}
			j = (j + 1) & (cap - 1);
		}
		if (ci->prof < 0) {
			tab[j] = c + 1;
			ci->prof = c;
		}
		/* bitmap, shared by classes with the same eligible array */
		h = mix((uint64_t)(uintptr_t)cl->elig, 1) & (cap - 1);
		j = (size_t)h;
		while (btab[j] && p->classes[btab[j] - 1].elig != cl->elig)
			j = (j + 1) & (cap - 1);
		if (btab[j]) {
			ci->bits = G->ci[btab[j] - 1].bits;
			continue;
		}
		btab[j] = c + 1;
		ci->bits = wa_calloc(G->tmp, nb, 1);
		if (!ci->bits)
			return -1;
		for (int k = 0; k < cl->nelig; k++)
			ci->bits[cl->elig[k] >> 3] |=
			    (unsigned char)(1u << (cl->elig[k] & 7));
	}
	return 0;
}

/* Candidate domains of a group: those of its key, only its fixed domain,
 * or the whole cluster (d = -1). */
static int candidates(const wp_group *wg, const wtp_key *k, dcand *cd)
{
	if (!k) {
		cd[0] = (dcand){-1, 0, 0};
		return 1;
	}
	if (wg->fixed_dom >= 0) {
		cd[0] = (dcand){wg->fixed_dom, 0, 0};
		return 1;
	}
	for (int d = 0; d < k->ndom; d++)
		cd[d] = (dcand){d, 0, 0};
	return k->ndom;
}

static int group_need(const wp_group *wg)
{
	return wg->gang ? wg->min_need : 1;
}

typedef struct gord {
	int g;
	int32_t prio;
	int ncand;
	int size;
} gord;

static int cmp_gord(const void *va, const void *vb)
{
	const gord *a = va, *b = vb;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->ncand != b->ncand)
		return a->ncand < b->ncand ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->g > b->g) - (a->g < b->g);
}

/* Domains that hold the whole group first, tightest (fewest slots)
 * first; then the rest by most pods; ties by domain (name) order. */
typedef struct dsort {
	dcand c;
	int full; /* holds the whole group */
} dsort;

static int cmp_dsort(const void *va, const void *vb)
{
	const dsort *a = va, *b = vb;
	if (a->full != b->full)
		return a->full ? -1 : 1;
	if (a->full) {
		if (a->c.slots != b->c.slots)
			return a->c.slots < b->c.slots ? -1 : 1;
	} else {
		if (a->c.bound != b->c.bound)
			return a->c.bound > b->c.bound ? -1 : 1;
		if (a->c.slots != b->c.slots)
			return a->c.slots < b->c.slots ? -1 : 1;
	}
	return (a->c.d > b->c.d) - (a->c.d < b->c.d);
}

static int cmp_corder_w(const cinfo *ci, int a, int b)
{
	if (ci[a].weight != ci[b].weight)
		return ci[a].weight > ci[b].weight ? -1 : 1;
	return (a > b) - (a < b);
}

/* Pairs (profile, key) shared by two or more single-class groups get a
 * roll-up cache, filled here for every domain (in parallel: each pair
 * writes its own arrays). */
static int setup_pairs(gs *G)
{
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	int nk = t ? t->nkeys : 0;
	G->dver = wa_calloc(G->tmp, (size_t)nk + 1, sizeof *G->dver);
	G->gpair = wa_calloc(G->tmp, (size_t)p->ngroups + 1, sizeof(int));
	G->rc = wa_calloc(G->tmp, (size_t)p->ngroups + 1, sizeof *G->rc);
	size_t cap = 16;
	while (cap < 2 * (size_t)p->ngroups + 16)
		cap *= 2;
	int *tab = wa_calloc(G->tmp, cap, sizeof *tab);
	if (!G->dver || !G->gpair || !G->rc || !tab)
		return -1;
	for (int k = 0; k < nk; k++) {
		G->dver[k] = wa_calloc(G->tmp, (size_t)t->keys[k].ndom + 1,
				       sizeof(uint32_t));
		if (!G->dver[k])
			return -1;
		for (int d = 0; d < t->keys[k].ndom; d++)
			G->dver[k][d] = 1;
	}
	G->gver = 1;

	/* node versions, the frac cache, and fit caches for profiles that
	 * several classes share (within a memory budget) */
	G->nver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->nver);
	G->fver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->fver);
	G->frac = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->frac);
	G->pfit = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof *G->pfit);
	G->pver = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof *G->pver);
	int *uses = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof(int));
	if (!G->nver || !G->fver || !G->frac || !G->pfit || !G->pver || !uses)
		return -1;
	for (int n = 0; n < G->nn; n++)
		G->nver[n] = 1;
	for (int c = 0; c < p->nclasses; c++)
		uses[G->ci[c].prof]++;
	size_t budget = WGR_FIT_CACHE;
	for (int c = 0; c < p->nclasses; c++) {
		if (uses[c] < 2 || (size_t)G->nn > budget)
			continue;
		budget -= (size_t)G->nn;
		G->pfit[c] = wa_calloc(G->tmp, (size_t)G->nn + 1,
				       sizeof(int32_t));
		G->pver[c] = wa_calloc(G->tmp, (size_t)G->nn + 1,
				       sizeof(uint32_t));
		if (!G->pfit[c] || !G->pver[c])
			return -1;
	}

	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		G->gpair[g] = -1;
		if (wg->invalid || wg->fixed_dom == -2 || wg->nclasses != 1)
			continue;
		int prof = G->ci[wg->classes[0]].prof;
		size_t j = mix((uint64_t)prof, (uint64_t)(wg->key + 1)) &
			   (cap - 1);
		while (tab[j] && !(G->rc[tab[j] - 1].c == prof &&
				   G->rc[tab[j] - 1].key == wg->key))
			j = (j + 1) & (cap - 1);
		if (!tab[j]) {
			G->rc[G->nrc] = (rcache){prof, wg->key, 0, NULL, NULL};
			tab[j] = ++G->nrc;
		}
		G->rc[tab[j] - 1].ngroups++;
		G->gpair[g] = tab[j] - 1;
	}
	for (int i = 0; i < G->nrc; i++) {
		rcache *rc = &G->rc[i];
		if (rc->ngroups < 2)
			continue;
		int nd = rc->key >= 0 ? t->keys[rc->key].ndom : 1;
		rc->raw = wa_calloc(G->tmp, (size_t)nd + 1, sizeof *rc->raw);
		rc->ver = wa_calloc(G->tmp, (size_t)nd + 1, sizeof *rc->ver);
		if (!rc->raw || !rc->ver)
			return -1;
	}
	for (int g = 0; g < p->ngroups; g++)
		if (G->gpair[g] >= 0 && !G->rc[G->gpair[g]].raw)
			G->gpair[g] = -1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(G->threads)
	for (int i = 0; i < G->nrc; i++) {
		rcache *rc = &G->rc[i];
		if (!rc->raw)
			continue;
		const wtp_key *k = rc->key >= 0 ? &t->keys[rc->key] : NULL;
		int nd = k ? k->ndom : 1;
		for (int d = 0; d < nd; d++) {
			rc->raw[d] = class_slots(G, rc->c, k, k ? d : -1, NULL);
			rc->ver[d] = 1;
		}
	}
	return 0;
}

/* ------------------------------------------- CompositePodGroup trees */

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
			raw += ro ? node_fit(G, c, cl->elig[j])
				  : node_fit_c(G, c, cl->elig[j]);
		return raw;
	}
	for (int j = 0; j < nn; j++)
		if (elig_bit(ci, nodes[j]) && cons_ok(G, cs, ncs, nodes[j]))
			raw += ro ? node_fit(G, c, nodes[j])
				  : node_fit_c(G, c, nodes[j]);
	return raw;
}

static int64_t cons_slots(gs *G, int c, const tcons *cs, int ncs)
{
	return cons_slots_x(G, c, cs, ncs, false);
}

/* place_class restricted to the nodes inside cs. */
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
		if (!elig_bit(ci, n) || !cons_ok(G, cs, ncs, n))
			continue;
		int64_t f = node_fit_c(G, c, n);
		if (f > 0)
			G->nc[nc++] = (ncand){f, 0, n};
	}
	return place_cands(G, c, nc, m);
}

static void rollback_to(gs *G, int mark)
{
	if (G->dra && G->nlog > mark)
		wdr_undo(G->dra, G->log[mark].dmark);
	while (G->nlog > mark) {
		logent e = G->log[--G->nlog];
		const wp_class *cl = &G->p->classes[e.c];
		G->sol->x[cl->off + e.k] -= e.cnt;
		int64_t *f = G->fr + (size_t)cl->elig[e.k] * G->nres;
		for (int r = 0; r < G->nres; r++)
			f[r] += (int64_t)e.cnt * cl->req[r];
		touch(G, cl->elig[e.k]);
	}
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
	qsort(ds, (size_t)n, sizeof *ds, cmp_dsort);
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

/* Slices (issue 5): place up to `want` pods of the group's classes (the
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
				rollback_to(G, mark);
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
	int need = group_need(wg), nb = 1, n = 0;
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
	int need = group_need(wg);
	if (wg->invalid || wg->nclasses == 0 || wg->fixed_dom == -2)
		return 0;
	/* classes: larger first */
	int corder[64], nco = wg->nclasses < 64 ? wg->nclasses : 64;
	for (int i = 0; i < nco; i++) {
		int c = wg->classes[i], j = i;
		while (j > 0 && cmp_corder_w(G->ci, corder[j - 1], c) > 0) {
			corder[j] = corder[j - 1];
			j--;
		}
		corder[j] = c;
	}
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
		rollback_to(G, mark);
	}
	return 0;
}

/* A group outside any tree with annotations: its options in order. */
static int annotated_solve(gs *G, int g)
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
				group_need(wg), plural(group_need(wg), "",
						       "s"));
	if (!why)
		return -1;
	G->sol->reason[g] = why;
	return 0;
}

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
		rollback_to(G, mark);
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
				t->need = group_need(wg);
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
static int tree_solve(gs *G, int h)
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
				plural(need, "", "s"), key, T->best,
				short_name(key),
				T->best_dom ? T->best_dom : "-", T->tried,
				plural(T->tried, "", "s"));
	else
		why = wa_printf(G->ra, "CompositePodGroup %s/%s needs %d "
				"child group%s admitted; at most %d fit "
				"together", sr->ns, sr->name, need,
				plural(need, "", "s"), T->best);
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

static int tree_setup(gs *G)
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

/* --------------------------------------------------------- preemption */

/* Workload-aware preemption (preempt.h, KEP-5710).  A group that does not
 * fit may evict running units of strictly lower priority.  Per candidate
 * domain: the group must fit with every such unit there gone (else the
 * domain is out); the shortest prefix of the units sorted cheapest first
 * (lowest priority, then fewest pods) that lets it fit is found by
 * bisection; the group is placed; then every victim whose return still
 * fits beside the placement is reprieved, highest priority first (as
 * upstream's reprieve step).  The cheapest domain wins and is redone for
 * real, so the result is deterministic.
 *
 * Freed capacity serves only strictly higher priorities: G->fr holds, on
 * nodes with evictions, the capacity usable at the level being placed
 * (the minimum slack of the capacity-by-priority rows at and above it),
 * recomputed whenever the priority level changes. */

/* Units cheapest first: those whose eviction breaks no budget, then
 * lowest priority, then fewest pods, then index. */
typedef struct unitctx {
	const wp_problem *p;
	const unsigned char *pdbv;
} unitctx;

static int cmp_unit_cost(const void *ctx, int a, int b)
{
	const wp_problem *p = ((const unitctx *)ctx)->p;
	const unsigned char *pdbv = ((const unitctx *)ctx)->pdbv;
	const wp_unit *x = &p->units[a], *y = &p->units[b];
	if (pdbv[a] != pdbv[b])
		return pdbv[a] < pdbv[b] ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	if (x->npods != y->npods)
		return x->npods < y->npods ? -1 : 1;
	return (a > b) - (a < b);
}

/* The lowest priority of a unit pe_domain may evict on node n (none on
 * an over-committed node), into G->pe_nmin[n]. */
static void pe_node_min(gs *G, int n)
{
	const wp_problem *p = G->p;
	int32_t m = INT32_MAX;
	for (int r = 0; r < G->nres; r++)
		if (p->free[(size_t)n * G->nres + r] < 0) {
			G->pe_nmin[n] = m;
			return;
		}
	for (int e = G->pe_start[n]; e < G->pe_start[n + 1]; e++) {
		int u = G->pe_list[e];
		if (!G->sol->evict[u] && !p->units[u].keep &&
		    !unit_moved(G, u) && p->units[u].priority < m)
			m = p->units[u].priority;
	}
	G->pe_nmin[n] = m;
}

/* Node -> units with a pod there (CSR), built on first use. */
static int pe_setup(gs *G)
{
	const wp_problem *p = G->p;
	if (G->pe_start)
		return 0;
	G->pe_start = wa_calloc(G->tmp, (size_t)G->nn + 2, sizeof(int));
	G->pe_mark = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	G->pe_v = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_rep = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	G->pe_tmp = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_pdbv = wa_calloc(G->tmp, (size_t)p->nunits + 1, 1);
	G->pdb_left = wa_calloc(G->tmp, (size_t)p->snap->npdbs + 1,
				sizeof(int));
	G->pdb_use = wa_calloc(G->tmp, (size_t)p->snap->npdbs + 1,
			       sizeof(int));
	if (!G->pe_pdbv || !G->pdb_left || !G->pdb_use)
		return -1;
	for (int j = 0; j < p->snap->npdbs; j++)
		G->pdb_left[j] = p->pdb_allowed[j];
	G->dirty = wa_calloc(G->tmp, (size_t)G->nn + 1, 1);
	G->dlist = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int));
	if (!G->pe_start || !G->pe_mark || !G->pe_v || !G->pe_rep || !G->pe_tmp ||
	    !G->dirty || !G->dlist)
		return -1;
	long tot = 0;
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; i < p->units[u].npods; i++)
			G->pe_start[p->snap->pods[p->units[u].pods[i]].node + 1]++;
	for (int n = 0; n < G->nn; n++)
		G->pe_start[n + 1] += G->pe_start[n];
	tot = G->pe_start[G->nn];
	G->pe_list = wa_calloc(G->tmp, (size_t)tot + 1, sizeof(int));
	int *fill = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int));
	if (!G->pe_list || !fill)
		return -1;
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; i < p->units[u].npods; i++) {
			int n = p->snap->pods[p->units[u].pods[i]].node;
			G->pe_list[G->pe_start[n] + fill[n]++] = u;
		}
	/* the same by pod, for the bound in pe_domain */
	G->pe_pstart = wa_calloc(G->tmp, (size_t)G->nn + 2, sizeof(int));
	G->pe_pods = wa_calloc(G->tmp, (size_t)tot + 1, sizeof(int));
	G->pe_punit = wa_calloc(G->tmp, (size_t)tot + 1, sizeof(int));
	G->pe_cap = wa_calloc(G->tmp, (size_t)G->nres + 1, sizeof(int64_t));
	G->pe_acc = wa_calloc(G->tmp, (size_t)p->nclasses + 1,
			      sizeof(int64_t));
	if (!G->pe_pstart || !G->pe_pods || !G->pe_punit || !G->pe_cap ||
	    !G->pe_acc)
		return -1;
	int nk = p->topo ? p->topo->nkeys : 0;
	G->pe_nmin = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int32_t));
	G->pe_dmin = wa_calloc(G->tmp, (size_t)nk + 1, sizeof(int32_t *));
	G->pe_dver = wa_calloc(G->tmp, (size_t)nk + 1, sizeof(unsigned));
	if (!G->pe_nmin || !G->pe_dmin || !G->pe_dver)
		return -1;
	G->pe_ever = 1;
	if (G->dra && p->snap->dra) {
		G->dv_gone = wa_calloc(G->tmp, (size_t)p->snap->dra->nspecs + 1,
				       sizeof(int));
		G->dv_back = wa_calloc(G->tmp,
				       (size_t)p->snap->dra->nspecs + 1, 1);
		if (!G->dv_gone || !G->dv_back)
			return -1;
	}
	memcpy(G->pe_pstart, G->pe_start, ((size_t)G->nn + 1) * sizeof(int));
	memset(fill, 0, ((size_t)G->nn + 1) * sizeof(int));
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; i < p->units[u].npods; i++) {
			int pod = p->units[u].pods[i];
			int n = p->snap->pods[pod].node;
			int e = G->pe_pstart[n] + fill[n]++;
			G->pe_pods[e] = pod;
			G->pe_punit[e] = u;
		}
	for (int n = 0; n < G->nn; n++)
		pe_node_min(G, n);
	/* the static part of the cost order, sorted once */
	G->pe_rank = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	G->pe_order = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
	if (!G->pe_rank || !G->pe_order)
		return -1;
	for (int u = 0; u < p->nunits; u++)
		G->pe_order[u] = u;
	wis_sort(G->pe_order, G->pe_tmp, p->nunits, cmp_unit_cost,
		 &(unitctx){p, G->pe_pdbv});
	for (int i = 0; i < p->nunits; i++)
		G->pe_rank[G->pe_order[i]] = i;
	return 0;
}

/* v[0..n) in cmp_unit_cost order: budget-breaking last, else the rank. */
static void pe_sort(const gs *G, int *v, int n)
{
	int nu = G->p->nunits;
	for (int i = 0; i < n; i++)
		v[i] = G->pe_rank[v[i]] + (G->pe_pdbv[v[i]] ? nu : 0);
	/* bottom-up merge sort of the distinct integer keys */
	int *a = v, *b = G->pe_tmp;
	for (int w = 1; w < n; w *= 2) {
		for (int lo = 0; lo < n; lo += 2 * w) {
			int mid = lo + w < n ? lo + w : n;
			int hi = lo + 2 * w < n ? lo + 2 * w : n;
			int i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				b[o++] = a[i] < a[j] ? a[i++] : a[j++];
			while (i < mid)
				b[o++] = a[i++];
			while (j < hi)
				b[o++] = a[j++];
		}
		int *t = a;
		a = b;
		b = t;
	}
	if (a != v)
		memcpy(v, a, (size_t)n * sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = G->pe_order[v[i] >= nu ? v[i] - nu : v[i]];
}

/* Domains of key k whose lowest evictable priority is known, refreshed
 * after evictions; NULL on NOMEM. */
static const int32_t *pe_dom_min(gs *G, const wtp_key *k)
{
	int ki = (int)(k - G->p->topo->keys);
	if (G->pe_dver[ki] == G->pe_ever)
		return G->pe_dmin[ki];
	if (!G->pe_dmin[ki] &&
	    !(G->pe_dmin[ki] = wa_calloc(G->tmp, (size_t)k->ndom + 1,
					 sizeof(int32_t))))
		return NULL;
	int32_t *dm = G->pe_dmin[ki];
	for (int d = 0; d < k->ndom; d++) {
		dm[d] = INT32_MAX;
		for (int j = 0; j < k->dom_nnodes[d]; j++)
			if (G->pe_nmin[k->dom_nodes[d][j]] < dm[d])
				dm[d] = G->pe_nmin[k->dom_nodes[d][j]];
	}
	G->pe_dver[ki] = G->pe_ever;
	return dm;
}

/* Devices of allocated claim sp: give back (sign -1: free) or take again
 * (+1); taking again notes a device in use twice (dv_clash). */
static void dv_take(gs *G, int sp, int sign)
{
	const ws_dra *d = G->s->dra;
	const wdr_spec *spec = &d->specs[sp];
	for (int k = 0; k < spec->nalloc; k++) {
		int dv = spec->alloc_dev[k];
		if (sign < 0 && G->dra->taken[dv] > 0)
			G->dra->taken[dv]--;
		else if (sign > 0) {
			if (G->dra->taken[dv] > 0 && !d->devs[dv].multi)
				G->dv_clash = true;
			if (G->dra->taken[dv] < UINT16_MAX)
				G->dra->taken[dv]++;
		}
	}
}

/* Pod pi evicted (sign +1) or restored (-1): the claims it holds lose
 * (regain) a holder; devices are freed when the last one goes. */
static void dv_apply(gs *G, int pi, int sign)
{
	const ws_dra *d = G->s->dra;
	if (!G->dra || !d || !d->held_beg || !G->dv_gone)
		return;
	for (int h = d->held_beg[pi]; h < d->held_beg[pi + 1]; h++) {
		int sp = d->held[h];
		if (G->dv_back[sp])
			continue; /* freed and taken back: stays as it is */
		if (sign > 0 && ++G->dv_gone[sp] == d->specs[sp].nholders)
			dv_take(G, sp, -1);
		else if (sign < 0 &&
			 G->dv_gone[sp]-- == d->specs[sp].nholders)
			dv_take(G, sp, 1);
	}
}

/* Entering level q: devices freed by victims of priority >= q are not
 * for this level and below (they serve strictly higher priorities). */
static void dv_level(gs *G, int32_t q)
{
	const ws_snapshot *s = G->s;
	const ws_dra *d = s->dra;
	if (!G->dv_gone || !d)
		return;
	for (int sp = 0; sp < d->nspecs; sp++) {
		const wdr_spec *spec = &d->specs[sp];
		if (G->dv_back[sp] || !spec->nholders ||
		    G->dv_gone[sp] < spec->nholders)
			continue;
		int32_t top = INT32_MIN;
		for (int i = 0; i < spec->nholders; i++) {
			const ws_pod *pod = &s->pods[spec->holders[i]];
			int32_t pr = pod->group >= 0
					 ? s->groups[pod->group].priority
					 : pod->priority;
			if (pr > top)
				top = pr;
		}
		if (top >= q) {
			dv_take(G, sp, 1);
			G->dv_back[sp] = 1;
		}
	}
	G->dv_clash = false;
}

/* Evict (sign +1) or restore (-1) unit u in the working capacity. */
static void pe_apply(gs *G, int u, int sign)
{
	const wp_unit *un = &G->p->units[u];
	for (int i = 0; i < un->npods; i++) {
		const ws_pod *pod = &G->s->pods[un->pods[i]];
		int64_t *f = G->fr + (size_t)pod->node * G->nres;
		for (int r = 0; r < G->nres; r++)
			f[r] += sign * pod->req[r];
		dv_apply(G, un->pods[i], sign);
		touch(G, pod->node);
	}
}

/* After restoring u: does every node of u still have room? */
static bool pe_fits(gs *G, int u)
{
	const wp_unit *un = &G->p->units[u];
	if (G->dv_clash) { /* its devices are in use again */
		G->dv_clash = false;
		return false;
	}
	for (int i = 0; i < un->npods; i++) {
		const int64_t *f = G->fr +
				   (size_t)G->s->pods[un->pods[i]].node * G->nres;
		for (int r = 0; r < G->nres; r++)
			if (f[r] < 0)
				return false;
	}
	return true;
}

/* Place the group in domain d with at most `limit` pods, keeping the log
 * (so the caller can roll back).  Pods placed, or -1 (rolled back) when
 * fewer than need fit, -2 on NOMEM. */
static int pe_place(gs *G, const wp_group *wg, const int *corder,
		    const wtp_key *k, int d, int need, int limit)
{
	G->nlog = 0;
	if (G->dra)
		G->dra_mark = G->dra->nallocs;
	int placed = 0;
	for (int i = 0; i < wg->nclasses && placed < limit; i++) {
		int c = corder[i], m = G->p->classes[c].count;
		if (G->pe_rest > 0) {
			/* a basic group's rest: what the class has left */
			const wp_class *cl = &G->p->classes[c];
			for (int j = 0; j < cl->nelig; j++)
				m -= G->sol->x[cl->off + j];
		}
		if (m > limit - placed)
			m = limit - placed;
		int got = place_class(G, c, k, d, m);
		if (got < 0)
			return -2;
		placed += got;
	}
	if (placed < need) {
		rollback(G);
		return -1;
	}
	return placed;
}

/* Make exactly the first m of v[] evicted, *cur being evicted now (the
 * bisection moves the prefix instead of redoing it from scratch). */
static void pe_prefix(gs *G, const int *v, int *cur, int m)
{
	for (; *cur < m; (*cur)++)
		pe_apply(G, v[*cur], 1);
	for (; *cur > m; (*cur)--)
		pe_apply(G, v[*cur - 1], -1);
}

/* Does the group fit in d with the first m of v[] evicted?  Leaves the
 * prefix evicted (*cur = m) and, when it fits, the placement (logged, for
 * rollback).  Pods placed, -1 no, -2 NOMEM. */
static int pe_test(gs *G, const wp_group *wg, const int *corder,
		   const wtp_key *k, int d, int need, int limit,
		   const int *v, int *cur, int m)
{
	pe_prefix(G, v, cur, m);
	return pe_place(G, wg, corder, k, d, need, limit);
}

typedef struct pecost {
	long viol;  /* PodDisruptionBudget violations: fewest first */
	double w;
	long pods;
} pecost;

/* The victim search in one domain.  With commit, the placement and the
 * evictions stay; otherwise everything is undone.  Returns pods placed,
 * -1 when the group cannot fit here, -2 on NOMEM; *cost gets the cost. */
static int pe_domain(gs *G, int g, const int *corder, const wtp_key *k,
		     int d, int need, int limit, bool commit, pecost *cost)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	int *v = G->pe_v, nv = 0;
	/* candidate victims: lower priority, not yet evicted, on a node of
	 * d that some class of the group may use */
	int n0 = 0, n1 = k ? k->dom_nnodes[d] : G->nn;
	/* Upper bound on the pods placeable with every candidate evicted:
	 * per class, the sum over its nodes of its fit in that capacity
	 * (the classes share nodes, so this only over-counts).  Below
	 * `need`, the test with all victims gone would fail: skip it. */
	int64_t *acc = G->pe_acc, *cap = G->pe_cap;
	for (int ci = 0; ci < wg->nclasses; ci++)
		acc[ci] = 0;
	for (int j = n0; j < n1; j++) {
		int n = k ? k->dom_nodes[d][j] : j;
		bool ok = false;
		for (int ci = 0; ci < wg->nclasses && !ok; ci++)
			ok = elig_bit(&G->ci[wg->classes[ci]], n);
		if (!ok)
			continue;
		/* a node already over-committed is left alone (the ILP too),
		 * and one with nothing of lower priority has no victims */
		ok = G->pe_nmin[n] < wg->priority;
		const int64_t *capn = ok ? cap : G->fr + (size_t)n * G->nres;
		if (ok)
			memcpy(cap, G->fr + (size_t)n * G->nres,
			       (size_t)G->nres * sizeof *cap);
		for (int e = G->pe_pstart[n]; ok && e < G->pe_pstart[n + 1];
		     e++) {
			int u = G->pe_punit[e];
			if (G->sol->evict[u] || p->units[u].keep ||
			    unit_moved(G, u) ||
			    p->units[u].priority >= wg->priority)
				continue;
			const int64_t *rq = G->s->pods[G->pe_pods[e]].req;
			for (int r = 0; r < G->nres; r++)
				cap[r] += rq[r];
		}
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			const cinfo *inf = &G->ci[c];
			if (!elig_bit(inf, n))
				continue;
			acc[ci] += cap_fit(G, c, capn);
		}
		if (!ok)
			continue;
		for (int e = G->pe_start[n]; e < G->pe_start[n + 1]; e++) {
			int u = G->pe_list[e];
			if (G->pe_mark[u] || G->sol->evict[u] ||
			    p->units[u].keep || unit_moved(G, u) ||
			    p->units[u].priority >= wg->priority)
				continue;
			G->pe_mark[u] = 1;
			v[nv++] = u;
		}
	}
	for (int i = 0; i < nv; i++)
		G->pe_mark[v[i]] = 0;
	if (nv == 0)
		return -1;
	if (acc_bound(p, wg, acc) < need)
		return -1;
	/* a unit breaks a budget when its pods alone exceed what is left */
	for (int i = 0; i < nv; i++) {
		const wp_unit *un = &p->units[v[i]];
		G->pe_pdbv[v[i]] = 0;
		for (int j = 0; j < un->npdb; j++)
			if (un->pdbn[j] > G->pdb_left[un->pdb[j]])
				G->pe_pdbv[v[i]] = 1;
	}
	pe_sort(G, v, nv);
	int cur = 0;
	int t = pe_test(G, wg, corder, k, d, need, limit, v, &cur, nv);
	if (t < 0) {
		pe_prefix(G, v, &cur, 0);
		return t;
	}
	/* a fitting probe's placement stays while it may be the last */
	int lo = 1, hi = nv, live = t;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (live >= 0)
			rollback(G);
		t = pe_test(G, wg, corder, k, d, need, limit, v, &cur, mid);
		live = t;
		if (t == -2) {
			pe_prefix(G, v, &cur, 0);
			return -2;
		}
		if (t >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	int m = hi, placed = live;
	if (live < 0) {
		pe_prefix(G, v, &cur, m);
		placed = pe_place(G, wg, corder, k, d, need, limit);
	}
	if (placed == -2) {
		pe_prefix(G, v, &cur, 0);
		return -2;
	}
	if (placed < 0) { /* not monotone after all: take them all */
		pe_prefix(G, v, &cur, nv);
		m = nv;
		placed = pe_place(G, wg, corder, k, d, need, limit);
		if (placed < 0) {
			pe_prefix(G, v, &cur, 0);
			return placed == -2 ? -2 : -1;
		}
	}
	/* reprieve, highest priority first; budget-breaking victims in a
	 * first pass, as upstream does */
	cost->w = 0;
	cost->pods = 0;
	cost->viol = 0;
	for (int pass = 1; pass >= 0; pass--)
		for (int i = m - 1; i >= 0; i--) {
			if (G->pe_pdbv[v[i]] != pass)
				continue;
			G->dv_clash = false;
			pe_apply(G, v[i], -1);
			G->pe_rep[i] = pe_fits(G, v[i]);
			if (!G->pe_rep[i]) {
				pe_apply(G, v[i], 1);
				cost->w += (double)p->units[v[i]].npods *
					   p->units[v[i]].weight;
				cost->pods += p->units[v[i]].npods;
			}
		}
	/* budgets broken by what stays evicted */
	for (int i = 0; i < m; i++) {
		const wp_unit *un = &p->units[v[i]];
		for (int j = 0; !G->pe_rep[i] && j < un->npdb; j++)
			G->pdb_use[un->pdb[j]] += un->pdbn[j];
	}
	for (int i = 0; i < m; i++) {
		const wp_unit *un = &p->units[v[i]];
		for (int j = 0; !G->pe_rep[i] && j < un->npdb; j++) {
			int b = un->pdb[j];
			if (G->pdb_use[b] > G->pdb_left[b] && G->pdb_use[b] > 0)
				cost->viol += G->pdb_use[b] -
					      (G->pdb_left[b] > 0
						   ? G->pdb_left[b] : 0);
			if (commit)
				G->pdb_left[b] -= G->pdb_use[b];
			G->pdb_use[b] = 0; /* count each budget once */
		}
	}
	if (commit) {
		G->nlog = 0;
		for (int i = 0; i < m; i++) {
			if (G->pe_rep[i])
				continue;
			int u = v[i];
			G->sol->evict[u] = 1;
			G->sol->evict_by[u] = g;
			const wp_unit *un = &p->units[u];
			for (int j = 0; j < un->npods; j++) {
				int n = G->s->pods[un->pods[j]].node;
				if (!G->dirty[n]) {
					G->dirty[n] = 1;
					G->dlist[G->ndirty++] = n;
				}
				pe_node_min(G, n);
			}
		}
		G->pe_ever++;
		return placed;
	}
	rollback(G);
	for (int i = m - 1; i >= 0; i--)
		if (!G->pe_rep[i])
			pe_apply(G, v[i], -1);
	return placed;
}

typedef struct pdfit {
	int32_t *dom;      /* per domain (one for no key)               */
	int32_t *node;     /* per node                                  */
	uint32_t *ver;     /* per node: nver at node[]                  */
	const unsigned char *bits; /* eligibility it was built for       */
	uint32_t commit;   /* dra_commit + 1 when refreshed             */
} pdfit;

/* The device-only fit per domain of key k (NULL: no key) for the pods
 * of class c, or NULL (no cache: no skipping). */
static const int32_t *pd_domains(gs *G, int c, const wtp_key *k)
{
	const wdr_podc *pc = G->cpc ? G->cpc[c] : NULL;
	if (!pc || pc->sig >= G->dr_nsig)
		return NULL;
	int ki = k ? (int)(k - G->p->topo->keys) + 1 : 0;
	if (!G->pd && !(G->pd = wa_calloc(G->tmp, (size_t)G->dr_nsig *
					  G->dr_nk + 1, sizeof *G->pd)))
		return NULL;
	pdfit *f = &G->pd[(size_t)pc->sig * G->dr_nk + ki];
	const cinfo *ci = &G->ci[c];
	int nd = k ? k->ndom : 1;
	if (f->commit == G->dra_commit + 1 && f->bits == ci->bits)
		return f->dom;
	bool fresh = f->bits != ci->bits || !f->dom;
	if (!f->dom) {
		f->dom = wa_calloc(G->tmp, (size_t)nd + 1, sizeof(int32_t));
		f->node = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int32_t));
		f->ver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(uint32_t));
		if (!f->dom || !f->node || !f->ver) {
			f->dom = NULL;
			return NULL;
		}
	}
	if (fresh)
		memset(f->dom, 0, (size_t)nd * sizeof(int32_t));
	for (int n = 0; n < G->nn; n++) {
		if (!elig_bit(ci, n))
			continue;
		if (!fresh && f->ver[n] == G->nver[n])
			continue;
		int32_t nf = (int32_t)wdr_fit(G->dra, pc, n, 4096);
		int d = k ? k->node_dom[n] : 0;
		if (d >= 0)
			f->dom[d] += nf - (fresh ? 0 : f->node[n]);
		f->node[n] = nf;
		f->ver[n] = G->nver[n];
	}
	f->bits = ci->bits;
	f->commit = G->dra_commit + 1;
	return f->dom;
}

/* Try to admit group g by preemption.  Pods placed, -1: no way, -2:
 * NOMEM. */
static int preempt_group(gs *G, int g, const int *corder, const wtp_key *k,
			 int need)
{
	const wp_group *wg = &G->p->groups[g];
	if (pe_setup(G))
		return -2;
	/* candidate domains: as candidates(), or the one a basic group's
	 * placed pods hold (preempt_rest) */
	int ncd = !k ? 1 : wg->fixed_dom >= 0 || G->pe_only_dom >= 0 ? 1
								  : k->ndom;
	/* a gang evicts for its minimum only; other groups for all pods */
	int limit = wg->gang ? need : G->pe_rest > 0 ? G->pe_rest : wg->size;
	int best = -1;
	pecost bc = {0, 0, 0};
	const int32_t *dmin = k ? pe_dom_min(G, k) : NULL;
	if (k && !dmin)
		return -2;
	/* DRA: when no running pod holds an allocated claim, evictions
	 * free cpu and memory but no device, so the device-only fit of a
	 * domain bounds what they can give (every class of the group with
	 * the same claim list) */
	const int32_t *dfit = NULL;
	const ws_dra *dd = G->p->snap->dra;
	bool one_sig = G->dra && dd && !dd->held_beg[G->p->snap->npods] &&
		       wg->nclasses > 0 && G->cpc[wg->classes[0]];
	for (int i = 1; one_sig && i < wg->nclasses; i++)
		one_sig = G->cpc[wg->classes[i]] &&
			  G->cpc[wg->classes[i]]->sig ==
			      G->cpc[wg->classes[0]]->sig &&
			  G->ci[wg->classes[i]].bits ==
			      G->ci[wg->classes[0]].bits;
	if (one_sig)
		dfit = pd_domains(G, wg->classes[0], k);
	for (int i = 0; i < ncd; i++) {
		pecost c;
		int d = !k ? -1 : wg->fixed_dom >= 0 ? wg->fixed_dom
				  : G->pe_only_dom >= 0 ? G->pe_only_dom : i;
		/* nothing of lower priority there: no victims (cheap skip) */
		if (k && dmin[d] >= wg->priority)
			continue;
		if (dfit && dfit[k ? d : 0] < need)
			continue; /* devices short, evictions cannot help */
		int r = pe_domain(G, g, corder, k, d, need, limit, false, &c);
		if (r == -2)
			return -2;
		if (r < 0)
			continue;
		if (best < 0 || c.viol < bc.viol ||
		    (c.viol == bc.viol &&
		     (c.w < bc.w || (c.w == bc.w && c.pods < bc.pods)))) {
			best = i;
			bc = c;
		}
	}
	if (best < 0)
		return -1;
	pecost c;
	int d = !k ? -1 : wg->fixed_dom >= 0 ? wg->fixed_dom
			  : G->pe_only_dom >= 0 ? G->pe_only_dom : best;
	return pe_domain(G, g, corder, k, d, need, limit, true, &c);
}

/* A basic group (or lone pods) placed `placed` of its pods: each of the
 * others may evict too (per pod: the fewest victims that place one more,
 * repeated), in the domain its placed pods hold.  Pods placed, -2 NOMEM. */
static int preempt_rest(gs *G, int g, const int *corder, const wtp_key *k,
			int placed)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	int more = 0;
	G->pe_only_dom = -1;
	if (k) {
		for (int ci = 0; ci < wg->nclasses && G->pe_only_dom < 0; ci++) {
			const wp_class *cl = &p->classes[wg->classes[ci]];
			for (int j = 0; j < cl->nelig; j++)
				if (G->sol->x[cl->off + j] > 0) {
					G->pe_only_dom = k->node_dom[cl->elig[j]];
					break;
				}
		}
	}
	while (placed + more < wg->size) {
		G->pe_rest = wg->size - placed - more;
		int r = preempt_group(G, g, corder, k, 1);
		if (r == -2) {
			more = -2;
			break;
		}
		if (r <= 0)
			break;
		more += r;
	}
	G->pe_rest = 0;
	G->pe_only_dom = -1;
	return more;
}

/* A group that may not preempt may not use freed room either: on nodes
 * with evictions its capacity is at most the free capacity before any
 * eviction minus what such groups already took there.  never_cap applies
 * that before the group is placed, never_restore undoes it after (keeping
 * what the group placed). */
static int never_cap(gs *G)
{
	int nres = G->nres;
	if (!G->ndirty)
		return 0;
	if (!G->nv_save) {
		G->nv_save = wa_calloc(G->tmp, (size_t)G->nn * nres + 1,
				       sizeof *G->nv_save);
		G->nv_capd = wa_calloc(G->tmp, (size_t)G->nn * nres + 1,
				       sizeof *G->nv_capd);
		G->nv_used = wa_calloc(G->tmp, (size_t)G->nn * nres + 1,
				       sizeof *G->nv_used);
		if (!G->nv_save || !G->nv_capd || !G->nv_used)
			return -1;
	}
	/* what groups that may not preempt hold on the dirty nodes */
	for (int i = 0; i < G->ndirty; i++)
		memset(G->nv_used + (size_t)G->dlist[i] * nres, 0,
		       sizeof *G->nv_used * nres);
	const wp_problem *p = G->p;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		if (!G->sol->admit[cl->group] || wpe_may_preempt(p, cl->group))
			continue;
		for (int j = 0; j < cl->nelig; j++) {
			int x = G->sol->x[cl->off + j], n = cl->elig[j];
			if (x <= 0 || !G->dirty[n])
				continue;
			for (int r = 0; r < nres; r++)
				G->nv_used[(size_t)n * nres + r] +=
				    (int64_t)x * cl->req[r];
		}
	}
	for (int i = 0; i < G->ndirty; i++) {
		int n = G->dlist[i];
		size_t o = (size_t)n * nres;
		for (int r = 0; r < nres; r++) {
			int64_t cap = G->p->free[o + r] - G->nv_used[o + r] +
				      (G->mv_adj ? G->mv_adj[o + r] : 0);
			G->nv_save[o + r] = G->fr[o + r];
			if (cap < G->fr[o + r])
				G->fr[o + r] = cap;
			G->nv_capd[o + r] = G->fr[o + r];
		}
		touch(G, n);
	}
	G->nv_pending = true;
	return 0;
}

static void never_restore(gs *G)
{
	int nres = G->nres;
	if (!G->nv_pending)
		return;
	G->nv_pending = false;
	for (int i = 0; i < G->ndirty; i++) {
		int n = G->dlist[i];
		size_t o = (size_t)n * nres;
		for (int r = 0; r < nres; r++) {
			int64_t used = G->nv_capd[o + r] - G->fr[o + r];
			G->fr[o + r] = G->nv_save[o + r] - used;
		}
		touch(G, n);
	}
}

/* Entering priority level q: on nodes with evictions, the capacity the
 * level may use is the least slack of the rows at q and at every higher
 * level placed there (preempt.h). */
static int level_enter(gs *G, int32_t q)
{
	const wp_problem *p = G->p;
	int nres = G->nres;
	G->level = q;
	G->have_level = true;
	dv_level(G, q);
	if (G->ndirty == 0)
		return 0;
	int *slot = calloc((size_t)G->nn + 1, sizeof *slot);
	int32_t *lv = calloc((size_t)p->ngroups + 2, sizeof *lv);
	if (!slot || !lv) {
		free(slot);
		free(lv);
		return -1;
	}
	for (int i = 0; i < G->ndirty; i++)
		slot[G->dlist[i]] = i + 1;
	/* q and the distinct levels above it placed so far */
	int nl = 0;
	lv[nl++] = q;
	for (int g = 0; g < p->ngroups; g++) {
		int32_t pr = p->groups[g].priority;
		if (!G->sol->admit[g] || pr <= q)
			continue;
		int j = 0;
		while (j < nl && lv[j] != pr)
			j++;
		if (j == nl)
			lv[nl++] = pr;
	}
	/* slack[node, level, r] = free + evicted below the level - placed
	 * at or below it */
	int64_t *sl = calloc((size_t)G->ndirty * nl * nres + 1, sizeof *sl);
	if (!sl) {
		free(slot);
		free(lv);
		return -1;
	}
#define SL(i, l, r) sl[((size_t)(i) * nl + (l)) * nres + (r)]
	for (int i = 0; i < G->ndirty; i++)
		for (int l = 0; l < nl; l++)
			for (int r = 0; r < nres; r++)
				SL(i, l, r) = p->free[(size_t)G->dlist[i] *
						      nres + r] +
					      (G->mv_adj
					       ? G->mv_adj[(size_t)G->dlist[i] *
							   nres + r]
					       : 0);
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (!G->sol->evict[u])
			continue;
		for (int j = 0; j < un->npods; j++) {
			const ws_pod *pod = &G->s->pods[un->pods[j]];
			int i = slot[pod->node] - 1;
			for (int l = 0; i >= 0 && l < nl; l++)
				if (un->priority < lv[l])
					for (int r = 0; r < nres; r++)
						SL(i, l, r) += pod->req[r];
		}
	}
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		int32_t pr = p->groups[cl->group].priority;
		/* pods of groups that may not preempt never use freed room:
		 * they count at every level (as in the ILP) */
		if (!wpe_may_preempt(p, cl->group))
			pr = INT32_MIN;
		for (int j = 0; j < cl->nelig; j++) {
			int x = G->sol->x[cl->off + j];
			int i = slot[cl->elig[j]] - 1;
			if (x <= 0 || i < 0)
				continue;
			for (int l = 0; l < nl; l++)
				if (pr <= lv[l])
					for (int r = 0; r < nres; r++)
						SL(i, l, r) -=
						    (int64_t)x * cl->req[r];
		}
	}
	for (int i = 0; i < G->ndirty; i++) {
		int n = G->dlist[i];
		int64_t *f = G->fr + (size_t)n * nres;
		for (int r = 0; r < nres; r++) {
			int64_t m = INT64_MAX;
			for (int l = 0; l < nl; l++)
				if (SL(i, l, r) < m)
					m = SL(i, l, r);
			f[r] = m;
		}
		touch(G, n);
	}
#undef SL
	free(sl);
	free(slot);
	free(lv);
	return 0;
}

/* -------------------------------------------------------------- moves */

/* Moves that admit work (issue 6, --rebalance).  When a group does not
 * fit, per candidate domain the movable running pods there (p->mcls:
 * lone pods and pods of `single` groups without constraints, not
 * --protect'ed) are moved best-fit (the fullest node that fits) to a
 * node of their class's destinations outside the domain that has no
 * evictions; the shortest prefix of them (largest first) that lets the
 * group fit is found by bisection, then every moved pod whose return
 * home still fits goes back.  The domain with the fewest moves wins and
 * is redone for real, within --max-moves.  Moves come before evictions
 * (tier 3 is below tier 2).  The rebalancing post-pass (rebalance.c)
 * later frees whole domains for future gangs (tier 4). */

static bool unit_moved(const gs *G, int u)
{
	const wp_problem *p = G->p;
	return p->unit_mc && p->unit_mc[u] >= 0 &&
	       G->sol->move_to[p->units[u].pods[0]] >= 0;
}

/* Move pod pi (of class mc) to node `to` (sign +1) or back (-1). */
static void mv_apply(gs *G, int pi, int to, int sign)
{
	const ws_pod *pod = &G->s->pods[pi];
	int from = pod->node;
	for (int r = 0; r < G->nres; r++) {
		int64_t q = sign * pod->req[r];
		G->fr[(size_t)from * G->nres + r] += q;
		G->fr[(size_t)to * G->nres + r] -= q;
		G->mv_adj[(size_t)from * G->nres + r] += q;
		G->mv_adj[(size_t)to * G->nres + r] -= q;
	}
	G->sol->move_to[pi] = sign > 0 ? to : -1;
	touch(G, from);
	touch(G, to);
}

/* Best-fit destination of pod pi of move class c outside domain d of k
 * (k NULL: any node but home), or -1. */
static int mv_dest(gs *G, int c, int pi, const wtp_key *k, int d)
{
	const wp_mclass *mc = &G->p->mcls[c];
	const int64_t *req = G->s->pods[pi].req;
	int best = -1;
	double bf = 0;
	for (int i = 0; i < mc->nelig; i++) {
		int n = mc->elig[i];
		if (n == mc->home || (k && k->node_dom[n] == d) ||
		    (G->dirty && G->dirty[n]))
			continue;
		const int64_t *f = G->fr + (size_t)n * G->nres;
		int r = 0;
		while (r < G->nres && f[r] >= req[r])
			r++;
		if (r < G->nres)
			continue;
		double fr = node_frac(G, n);
		if (best < 0 || fr < bf) {
			best = n;
			bf = fr;
		}
	}
	return best;
}

/* Make the first m candidates moved (those that find a destination). */
static void mv_prefix(gs *G, const wtp_key *k, int d, int *cur, int m)
{
	const wp_problem *p = G->p;
	for (; *cur < m; (*cur)++) {
		int u = G->mv_v[*cur], pi = p->units[u].pods[0];
		int to = mv_dest(G, p->unit_mc[u], pi, k, d);
		G->mv_to[*cur] = to;
		if (to >= 0)
			mv_apply(G, pi, to, 1);
	}
	for (; *cur > m; (*cur)--) {
		int u = G->mv_v[*cur - 1];
		if (G->mv_to[*cur - 1] >= 0)
			mv_apply(G, p->units[u].pods[0], G->mv_to[*cur - 1],
				 -1);
	}
}

/* Larger requests first (scarcest resource last in the index order). */
static int mv_cmp(const void *ctx, int a, int b)
{
	const gs *G = ctx;
	const int64_t *x = G->s->pods[G->p->units[a].pods[0]].req;
	const int64_t *y = G->s->pods[G->p->units[b].pods[0]].req;
	for (int r = G->nres - 1; r >= 0; r--)
		if (x[r] != y[r])
			return x[r] > y[r] ? -1 : 1;
	return (a > b) - (a < b);
}

/* The move search in one domain (k NULL: the cluster).  Pods placed,
 * -1: no way, -2: NOMEM; *cost: moves kept.  With commit the moves and
 * the placement stay. */
static int mv_domain(gs *G, int g, const int *corder, const wtp_key *k,
		     int d, int need, int limit, bool commit, int *cost)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	int nv = 0, n1 = k ? k->dom_nnodes[d] : G->nn;
	/* candidates on the domain's nodes some class of the group may use,
	 * and (as pe_domain) an upper bound on the pods placeable with all
	 * of them gone: below `need`, skip the domain */
	int64_t *acc = G->pe_acc, *cap = G->pe_cap;
	for (int ci = 0; ci < wg->nclasses; ci++)
		acc[ci] = 0;
	for (int j = 0; j < n1; j++) {
		int n = k ? k->dom_nodes[d][j] : j;
		bool ok = false;
		for (int ci = 0; ci < wg->nclasses && !ok; ci++)
			ok = elig_bit(&G->ci[wg->classes[ci]], n);
		if (!ok || (G->dirty && G->dirty[n]))
			continue;
		memcpy(cap, G->fr + (size_t)n * G->nres,
		       (size_t)G->nres * sizeof *cap);
		for (int e = G->mv_nbeg[n]; e < G->mv_nbeg[n + 1]; e++) {
			const wp_mclass *mc = &p->mcls[G->mv_nlist[e]];
			for (int i = 0; i < mc->count; i++) {
				int u = mc->units[i];
				if (G->sol->evict[u] || unit_moved(G, u))
					continue;
				G->mv_v[nv++] = u;
				for (int r = 0; r < G->nres; r++)
					cap[r] += mc->req[r];
			}
		}
		for (int ci = 0; ci < wg->nclasses; ci++) {
			int c = wg->classes[ci];
			const cinfo *inf = &G->ci[c];
			if (!elig_bit(inf, n))
				continue;
			acc[ci] += cap_fit(G, c, cap);
		}
	}
	if (nv == 0)
		return -1;
	if (acc_bound(p, wg, acc) < need)
		return -1;
	wis_sort(G->mv_v, G->pe_tmp, nv, mv_cmp, G);
	int cur = 0;
	mv_prefix(G, k, d, &cur, nv);
	int t = pe_place(G, wg, corder, k, d, need, limit);
	if (t < 0) {
		mv_prefix(G, k, d, &cur, 0);
		return t;
	}
	int lo = 1, hi = nv, live = t;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (live >= 0)
			rollback(G);
		mv_prefix(G, k, d, &cur, mid);
		t = live = pe_place(G, wg, corder, k, d, need, limit);
		if (t == -2) {
			mv_prefix(G, k, d, &cur, 0);
			return -2;
		}
		if (t >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	int placed = live;
	if (live < 0) {
		mv_prefix(G, k, d, &cur, hi);
		placed = pe_place(G, wg, corder, k, d, need, limit);
	}
	if (placed < 0) { /* not monotone: all of them */
		if (placed == -1) {
			mv_prefix(G, k, d, &cur, nv);
			placed = pe_place(G, wg, corder, k, d, need, limit);
		}
		if (placed < 0) {
			mv_prefix(G, k, d, &cur, 0);
			return placed;
		}
	}
	/* reprieve: back home when it still fits, last moved first */
	int m = cur;
	*cost = 0;
	for (int i = m - 1; i >= 0; i--) {
		int u = G->mv_v[i], pi = p->units[u].pods[0];
		if (G->mv_to[i] < 0)
			continue;
		mv_apply(G, pi, G->mv_to[i], -1);
		const int64_t *f = G->fr + (size_t)G->s->pods[pi].node * G->nres;
		int r = 0;
		while (r < G->nres && f[r] >= 0)
			r++;
		if (r < G->nres) {
			mv_apply(G, pi, G->mv_to[i], 1);
			(*cost)++;
		} else {
			G->mv_to[i] = -1;
		}
	}
	if (commit) {
		G->nlog = 0;
		G->nmoves += *cost;
		return placed;
	}
	rollback(G);
	for (int i = m - 1; i >= 0; i--)
		if (G->mv_to[i] >= 0)
			mv_apply(G, p->units[G->mv_v[i]].pods[0], G->mv_to[i],
				 -1);
	return placed;
}

/* Try to admit group g by moving pods.  Pods placed, -1, -2 NOMEM. */
static int move_group(gs *G, int g, const int *corder, const wtp_key *k,
		      int need)
{
	const wp_problem *p = G->p;
	const wp_group *wg = &p->groups[g];
	if (!G->mv_adj) {
		G->mv_adj = wa_calloc(G->tmp, (size_t)G->nn * G->nres + 1,
				      sizeof *G->mv_adj);
		G->mv_v = wa_calloc(G->tmp, (size_t)p->nunits + 1, sizeof(int));
		G->mv_to = wa_calloc(G->tmp, (size_t)p->nunits + 1,
				     sizeof(int));
		G->mv_nbeg = wa_calloc(G->tmp, (size_t)G->nn + 2, sizeof(int));
		G->mv_nlist = wa_calloc(G->tmp, (size_t)p->nmcls + 1,
					sizeof(int));
		if (!G->mv_adj || !G->mv_v || !G->mv_to || !G->mv_nbeg ||
		    !G->mv_nlist || pe_setup(G))
			return -2;
		for (int c = 0; c < p->nmcls; c++)
			G->mv_nbeg[p->mcls[c].home + 1]++;
		for (int n = 0; n < G->nn; n++)
			G->mv_nbeg[n + 1] += G->mv_nbeg[n];
		for (int c = 0; c < p->nmcls; c++) {
			int n = p->mcls[c].home;
			G->mv_nlist[G->mv_nbeg[n] + G->mv_v[n]++] = c;
		}
		memset(G->mv_v, 0, ((size_t)p->nunits + 1) * sizeof(int));
	}
	int left = p->max_moves > 0 ? p->max_moves - G->nmoves : INT32_MAX;
	if (left <= 0)
		return -1;
	int ncd = !k ? 1 : wg->fixed_dom >= 0 ? 1 : k->ndom;
	int limit = wg->gang ? need : wg->size;
	int best = -1, bd = -1, bc = 0;
	for (int i = 0; i < ncd; i++) {
		int d = !k ? -1 : wg->fixed_dom >= 0 ? wg->fixed_dom : i, c;
		int r = mv_domain(G, g, corder, k, d, need, limit, false, &c);
		if (r == -2)
			return -2;
		if (r >= 0 && c <= left && (best < 0 || c < bc)) {
			best = i;
			bd = d;
			bc = c;
		}
	}
	if (best < 0)
		return -1;
	int c;
	return mv_domain(G, g, corder, k, bd, need, limit, true, &c);
}

/* ------------------------------------------------------------- solve */

/* A group with device claims that could not be placed: when the devices
 * (not cpu or memory) are what is short, say so in device terms.  The
 * device fit over the nodes and the text are cached per (claim list, key,
 * eligible nodes) until a group is admitted: a failed try leaves the
 * allocation state as it was. */
static const char *device_reason(gs *G, const wp_group *wg,
				 const wtp_key *k, int need)
{
	const wp_problem *p = G->p;
	const wp_class *dc = NULL;
	int c0 = -1;
	for (int i = 0; i < wg->nclasses && !dc; i++)
		if (G->cpc[wg->classes[i]]) {
			c0 = wg->classes[i];
			dc = &p->classes[c0];
		}
	if (!dc)
		return NULL;
	const wdr_podc *pc = G->cpc[c0];
	size_t slot = (size_t)pc->sig * G->dr_nk + (size_t)(wg->key + 1);
	bool cache = G->dr_text && pc->sig < G->dr_nsig &&
		     wg->key + 1 < G->dr_nk;
	bool valid = cache && G->dr_ver[slot] == G->dra_commit + 1 &&
		     G->dr_elig[slot] == dc->elig;
	int64_t fit;
	if (valid) {
		fit = G->dr_fit[slot];
	} else {
		/* Pods the devices alone would admit, node by node. */
		fit = 0;
		for (int j = 0; j < dc->nelig; j++)
			fit += wdr_fit(G->dra, pc, dc->elig[j], 4096);
		if (cache) {
			G->dr_fit[slot] = fit;
			G->dr_elig[slot] = dc->elig;
			G->dr_text[slot] = NULL;
			G->dr_ver[slot] = G->dra_commit + 1;
		}
	}
	if (fit >= need && !pc->why && need > 0)
		return NULL;
	if (cache && G->dr_text[slot])
		return G->dr_text[slot];
	const char *where = k ? wa_printf(G->tmp, "in any %s domain",
					  k->label)
			      : "in the cluster";
	if (!where)
		return NULL;
	const char *text = wdr_explain(G->dra, dc->pods, dc->count, dc->elig,
				       dc->nelig, where, (long long)fit, need,
				       G->ra);
	if (cache)
		G->dr_text[slot] = text;
	return text;
}

/* Which seeded passes ignore priority, and so evict nothing (no
 * level's room may then depend on the levels placed before it). */
static bool seed_flat(uint64_t seed)
{
	return seed % 3 == 0;
}

/* The order of a seeded pass (wgr_solve_seeded).  Seeds cycle through
 * three kinds:
 *   1 mod 3: by priority, within a level by volume (a tree counts as one
 *            unit with its whole volume), largest first, each volume
 *            shaken by up to 2% (ties and near ties);
 *   2 mod 3: the same shaken by up to 40%;
 *   0 mod 3: any order (a plain shuffle), priority ignored, and no
 *            eviction (seed_flat): when all the work fits, the order of
 *            the levels only costs packing; when it does not, the pass
 *            loses and wgr_restarts keeps the better plan.
 * Largest first is what packs bins tightly; the noise lets restarts
 * find the packings one fixed order misses.  Every level's pass keeps
 * the levels in order, as the preemption bookkeeping needs. */
/* A seeded pass orders units: a plain group is its own, a tree member
 * belongs to its root composite's (after the groups). */
static int order_unit(const wp_problem *p, int g)
{
	const wp_group *wg = &p->groups[g];
	return wg->pcomp ? p->ngroups + p->comps[wg->pcomp - 1].root : g;
}

static int seeded_order(gs *G, gord *ord)
{
	const wp_problem *p = G->p;
	int nr = p->nres;
	double *top = wa_calloc(G->tmp, (size_t)nr + 1, sizeof *top);
	double *vol = wa_calloc(G->tmp, (size_t)p->ngroups + p->ncomps + 1,
				sizeof *vol);
	if (!top || !vol)
		return -1;
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < nr; r++)
			if (p->free[(size_t)n * nr + r] > top[r])
				top[r] = (double)p->free[(size_t)n * nr + r];
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		double v = 0;
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *c = &p->classes[wg->classes[i]];
			double share = 0;
			for (int r = 0; r < nr; r++)
				if (top[r] > 0 && c->req[r] / top[r] > share)
					share = c->req[r] / top[r];
			v += share * c->count;
		}
		vol[order_unit(p, g)] += v;
	}
	bool flat = seed_flat(G->seed);
	double amp = G->seed % 3 == 1 ? 0.02 : 0.4;
	for (int i = 0; i < p->ngroups; i++) {
		int u = order_unit(p, ord[i].g);
		/* a pure function of (seed, unit): the same order on any
		 * thread count */
		uint64_t st = G->seed * 0x100000001b3ULL ^ (uint64_t)u;
		double z = wrng_unit(&st);
		/* flat passes: any order (a plain shuffle) */
		double key = flat ? z : vol[u] * (1 + amp * (2 * z - 1));
		ord[i].ncand = 0;
		if (flat)
			ord[i].prio = 0;
		ord[i].size = key * 1e6 > INT_MAX ? INT_MAX : (int)(key * 1e6);
	}
	return 0;
}

static int run(gs *G, const wasp_options *o)
{
	const wp_problem *p = G->p;
	const wtp_topo *t = p->topo;
	wa_arena *a = G->ra;
	wp_sol *sol = G->sol;
	int maxd = 1;
	for (int i = 0; t && i < t->nkeys; i++)
		if (t->keys[i].ndom > maxd)
			maxd = t->keys[i].ndom;
	dcand *cd = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *cd);
	dsort *ds = wa_calloc(G->tmp, (size_t)maxd + 1, sizeof *ds);
	gord *ord = wa_calloc(G->tmp, (size_t)p->ngroups + 1, sizeof *ord);
	G->nc = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *G->nc);
	if (!cd || !ds || !ord || !G->nc || setup_classes(G))
		return -1;

	if (setup_pairs(G) || tree_setup(G))
		return -1;

	/* Order: most constrained on the initial capacity.  Every group's
	 * count is its own slot; cached pairs are already rolled up. */
	int nt = G->threads;
	dcand *scr = wa_calloc(G->tmp, (size_t)nt * (maxd + 1), sizeof *scr);
	if (!scr)
		return -1;
#pragma omp parallel for schedule(dynamic, 8) num_threads(nt)
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		const wtp_key *k = wg->key >= 0 && t ? &t->keys[wg->key] : NULL;
		int need = group_need(wg), n = 0;
		ord[g] = (gord){g, wg->priority, 0, wg->size};
		if (wg->invalid || wg->fixed_dom == -2 || wg->nclasses == 0)
			continue;
		int tid = 0;
#ifdef _OPENMP
		tid = omp_get_thread_num();
#endif
		dcand *c = scr + (size_t)tid * (maxd + 1);
		int ncd = candidates(wg, k, c);
		if (G->gpair[g] >= 0) {
			const rcache *rc = &G->rc[G->gpair[g]];
			int64_t cnt = p->classes[wg->classes[0]].count;
			for (int i = 0; i < ncd; i++) {
				int64_t raw = rc->raw[k ? c[i].d : 0];
				n += (raw < cnt ? raw : cnt) >= need;
			}
		} else {
			rollup_direct(G, NULL, wg, k, c, ncd);
			for (int i = 0; i < ncd; i++)
				n += c[i].bound >= need;
		}
		ord[g].ncand = n;
	}
	if (G->seed && seeded_order(G, ord))
		return -1;
	qsort(ord, (size_t)p->ngroups, sizeof *ord, cmp_gord);

	int *corder = wa_calloc(G->tmp, (size_t)p->nclasses + 1, sizeof(int));
	if (!corder)
		return -1;
	for (int oi = 0; oi < p->ngroups; oi++) {
		int g = ord[oi].g;
		const wp_group *wg = &p->groups[g];
		const wtp_key *k = wg->key >= 0 && t ? &t->keys[wg->key] : NULL;
		int need = group_need(wg);
		if (o && o->cancel && *o->cancel) {
			sol->reason[g] = "cancelled before this group was "
					 "considered";
			continue;
		}
		/* capacity at this priority level (preemption): trees and
		 * annotated groups use it too, they only never evict */
		never_restore(G);
		if ((!G->have_level || wg->priority != G->level) &&
		    level_enter(G, wg->priority))
			return -1;
		if (!wpe_may_preempt(p, g) && never_cap(G))
			return -1;
		if (wg->pcomp) {
			/* the whole tree, once (issue 5) */
			if (tree_solve(G, wg->pcomp - 1))
				return -1;
			continue;
		}
		if (wg->tas) {
			/* exclusive, preferred, slices (issue 5) */
			if (annotated_solve(G, g))
				return -1;
			continue;
		}
		if (wg->invalid) {
			sol->reason[g] = wg->invalid;
			continue;
		}
		if (wg->nclasses == 0)
			continue;
		if (k && wg->fixed_dom == -2) {
			sol->reason[g] = wa_printf(
			    a, "its %d running pod%s already span several %s "
			       "domains (or nodes without %s); it cannot "
			       "grow", wg->nbound, plural(wg->nbound, "", "s"),
			    k->label, k->label);
			if (!sol->reason[g])
				return -1;
			continue;
		}
		for (int i = 0; i < wg->nclasses; i++) {
			int c = wg->classes[i], j = i;
			while (j > 0 &&
			       cmp_corder_w(G->ci, corder[j - 1], c) > 0) {
				corder[j] = corder[j - 1];
				j--;
			}
			corder[j] = c;
		}
		int ncd = candidates(wg, k, cd);
		int nds = 0;
		if (!k) {
			/* one candidate: placing is the test (the roll-up is
			 * only needed to explain a failure) */
			ds[nds++] = (dsort){cd[0], 1};
		} else {
			rollup(G, g, k, cd, ncd);
			for (int i = 0; i < ncd; i++)
				if (cd[i].bound >= need &&
				    (cd[i].bound > 0 || need == 0))
					ds[nds++] = (dsort){
					    cd[i], cd[i].bound >= wg->size};
			qsort(ds, (size_t)nds, sizeof *ds, cmp_dsort);
		}
		int placed = -1, tried = 0;
		for (int i = 0; i < nds && tried < WGR_MAX_TRIES; i++) {
			tried++;
			placed = try_group(G, wg, corder, k, ds[i].c.d, need);
			if (placed == -2)
				return -1;
			if (placed >= 0)
				break;
		}
		if (placed < 0 && need > 0 && p->nmcls > 0 && G->preempt) {
			/* moves before evictions (issue 6) */
			placed = move_group(G, g, corder, k, need);
			if (placed == -2)
				return -1;
		}
		if (placed < 0 && need > 0 && p->nunits > 0 && G->preempt &&
		    wpe_may_preempt(p, g)) {
			placed = preempt_group(G, g, corder, k, need);
			if (placed == -2)
				return -1;
		}
		if (placed < 0 && need == 0 && ncd > 0)
			placed = 0; /* a gang already at its minimum */
		if (placed > 0 && !wg->gang && placed < wg->size &&
		    p->nunits > 0 && G->preempt && wpe_may_preempt(p, g)) {
			/* per pod: the rest of a basic group or lone pods */
			int more = preempt_rest(G, g, corder, k, placed);
			if (more == -2)
				return -1;
			placed += more;
		}
		if (placed >= 0 && (placed > 0 || need == 0)) {
			sol->admit[g] = 1;
			G->dra_commit++;
			/* lone pods that did not fit wait one by one: say why */
			if (wg->sg < 0 && placed < wg->size) {
				if (!k)
					rollup(G, g, k, cd, ncd);
				sol->reason[g] = explain(G, wg, corder, k, cd,
							 ncd, 1, 0);
				if (!sol->reason[g])
					return -1;
				const char *dr = G->cpc
				    ? device_reason(G, wg, k, 1) : NULL;
				if (dr)
					sol->reason[g] = dr;
			}
			continue;
		}
		if (!k)
			rollup(G, g, k, cd, ncd);
		sol->reason[g] = explain(G, wg, corder, k, cd, ncd, need,
					 tried);
		if (!sol->reason[g])
			return -1;
		if (G->cpc) {
			const char *dr = device_reason(G, wg, k, need);
			if (dr)
				sol->reason[g] = dr;
		}
	}
	return 0;
}

int wgr_assign_devices(const wp_problem *p, wp_sol *sol)
{
	if (!p->snap->dra)
		return 0;
	wdr_state *st = wa_alloc(p->arena, sizeof *st);
	if (!st || wdr_state_init(st, p->snap, p->arena))
		return -1;
	/* devices of claims whose holders are all evicted are free (issue
	 * 6; the ILP does not model that yet, greedy does) */
	const ws_dra *d = p->snap->dra;
	unsigned char *ev = wa_calloc(p->arena, (size_t)p->snap->npods + 1, 1);
	if (!ev)
		return -1;
	for (int u = 0; sol->evict && u < p->nunits; u++)
		for (int j = 0; sol->evict[u] && j < p->units[u].npods; j++)
			ev[p->units[u].pods[j]] = 1;
	for (int sp = 0; d->held_beg && sp < d->nspecs; sp++) {
		const wdr_spec *spec = &d->specs[sp];
		int gone = 0;
		for (int i = 0; i < spec->nholders; i++)
			gone += ev[spec->holders[i]];
		for (int k = 0; spec->nholders && gone == spec->nholders &&
				k < spec->nalloc; k++)
			if (st->taken[spec->alloc_dev[k]] > 0)
				st->taken[spec->alloc_dev[k]]--;
	}
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *cl = &p->classes[wg->classes[i]];
			if (!p->snap->dra->pods[cl->pods[0]].n)
				continue;
			for (int k = 0; k < cl->nelig; k++)
				for (int j = 0; j < sol->x[cl->off + k]; j++)
					if (!wdr_place(st, cl->pods[0],
						       wg->classes[i],
						       cl->elig[k]))
						return 1;
		}
	}
	sol->dra = st;
	return 0;
}

int wgr_solve(const wp_problem *p, const wasp_options *o, wp_sol *sol,
	      wasp_error *err)
{
	return wgr_solve_ex(p, o, sol, true, err);
}

static int solve_seeded(const wp_problem *p, const wasp_options *o,
			wp_sol *sol, bool preempt, uint64_t seed,
			wa_arena *ra, wasp_error *err)
{
	gs G = {.p = p, .s = p->snap, .sol = sol, .nres = p->nres,
		.nn = p->nnodes, .threads = 1, .preempt = preempt,
		.pe_only_dom = -1, .seed = seed, .ra = ra ? ra : p->arena};
	if (seed && seed_flat(seed))
		G.preempt = false;
#ifdef _OPENMP
	G.threads = o && o->threads > 0 ? o->threads : omp_get_max_threads();
#endif
	G.tmp = wa_new();
	G.fr = G.tmp ? wa_calloc(G.tmp, (size_t)p->nnodes * p->nres + 1,
				 sizeof *G.fr)
		     : NULL;
	if (!G.fr) {
		wa_destroy(G.tmp);
		return werr(err, WASP_ENOMEM, "out of memory in greedy");
	}
	memcpy(G.fr, p->free, (size_t)p->nnodes * p->nres * sizeof *G.fr);
	if (p->snap->dra) {
		/* In the problem's arena: the plan reads the allocations. */
		G.dra = wa_alloc(G.ra, sizeof *G.dra);
		G.cpc = wa_calloc(G.tmp, (size_t)p->nclasses + 1,
				  sizeof *G.cpc);
		if (!G.dra || !G.cpc ||
		    wdr_state_init(G.dra, p->snap, G.ra)) {
			wa_destroy(G.tmp);
			return werr(err, WASP_ENOMEM, "out of memory in greedy");
		}
		int maxsig = 0;
		for (int c = 0; c < p->nclasses; c++) {
			const wdr_podc *pc =
			    &p->snap->dra->pods[p->classes[c].pods[0]];
			G.cpc[c] = pc->n ? pc : NULL;
			if (pc->sig > maxsig)
				maxsig = pc->sig;
		}
		G.dr_nk = (p->topo ? p->topo->nkeys : 0) + 1;
		G.dr_nsig = maxsig + 1;
		G.dr_text = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				      sizeof *G.dr_text);
		G.dr_ver = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				     sizeof *G.dr_ver);
		G.dr_fit = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				     sizeof *G.dr_fit);
		G.dr_elig = wa_calloc(G.tmp, (size_t)G.dr_nsig * G.dr_nk,
				      sizeof *G.dr_elig);
		if (!G.dr_text || !G.dr_ver || !G.dr_fit || !G.dr_elig)
			G.dr_text = NULL; /* no cache: slower, same text */
		sol->dra = G.dra;
	}
	int rc = run(&G, o);
	wa_destroy(G.tmp);
	/* DRA: a claim placed while earlier alternatives were short may
	 * use one now that failed gangs gave their devices back */
	if (!rc && G.dra && wdr_prefer_earlier(G.dra) < 0)
		rc = -1;
	if (rc)
		return werr(err, WASP_ENOMEM, "out of memory in greedy");
	return WASP_OK;
}

int wgr_solve_ex(const wp_problem *p, const wasp_options *o, wp_sol *sol,
		 bool preempt, wasp_error *err)
{
	return solve_seeded(p, o, sol, preempt, 0, NULL, err);
}

int wgr_solve_seeded(const wp_problem *p, const wasp_options *o,
		     wp_sol *sol, uint64_t seed, wasp_error *err)
{
	return solve_seeded(p, o, sol, true, seed, NULL, err);
}

/* One restart: in its own arena (texts included) when `own`, else in
 * the problem's (device allocations must outlive the trial). */
typedef struct trial {
	wa_arena *a;   /* own arena, or NULL */
	wp_sol *sol;
	int rc;        /* WASP_OK, an error, or TRIAL_NOT_RUN */
	bool ok;       /* feasible */
	wp_value v;
	wasp_error err;
} trial;

/* rc of a trial that would have started past the deadline */
#define TRIAL_NOT_RUN (-1)

static void run_trial(const wp_problem *p, const wasp_options *o,
		      uint64_t seed, bool own, trial *t)
{
	t->a = own ? wa_new() : NULL;
	wa_arena *a = own ? t->a : p->arena;
	t->sol = a ? wp_sol_new(p, a) : NULL;
	t->ok = false;
	if (!t->sol) {
		t->rc = werr(&t->err, WASP_ENOMEM, "out of memory");
		return;
	}
	t->rc = solve_seeded(p, o, t->sol, true, seed, a, &t->err);
	const char *why;
	if (t->rc == WASP_OK && wp_sol_feasible(p, t->sol, &why) == 0) {
		t->ok = true;
		wp_evaluate(p, t->sol, &t->v);
	}
}

/* best = t's plan, its texts copied into the problem's arena when they
 * live in the trial's. */
static int adopt(const wp_problem *p, wp_sol *best, const trial *t)
{
	wp_sol_copy(p, best, t->sol);
	for (int g = 0; t->a && g < p->ngroups; g++)
		if (best->reason[g] &&
		    !(best->reason[g] = wa_strdup(p->arena, best->reason[g])))
			return -1;
	return 0;
}

/* Whether the restarts give up before seed s: the passes since the last
 * improvement (at seed last, 0 for none) outnumber WGR_RESTART_PATIENCE
 * times those before it, past a floor.  Checked per seed, so where they
 * stop does not depend on how the passes are batched. */
static bool patience_out(int s, int last)
{
	return s - 1 >= WGR_RESTART_MIN + WGR_RESTART_PATIENCE * last;
}

/* Trials a thread runs per parallel region: enough that a region lasts
 * about WGR_REGION_S (passes of a small problem take microseconds, and
 * with more threads than free cores every region's join costs a time
 * slice), one for passes that long already. */
static int trials_per_thread(double pass_s)
{
	if (!(pass_s > 0))
		return WGR_RESTART_CHUNK;
	double m = WGR_REGION_S / pass_s;
	return m < 1 ? 1 : m > WGR_RESTART_CHUNK ? WGR_RESTART_CHUNK : (int)m;
}

int wgr_restarts(const wp_problem *p, const wasp_options *o, int n,
		 wb_deadline until, wp_sol *best, int *ran, int *better,
		 wasp_error *err)
{
	wp_value vb;
	wp_evaluate(p, best, &vb);
	*ran = *better = 0;
	/* every pod placed, packing at its bound: nothing beats best */
	if (wp_packing_proven(p, best))
		return WASP_OK;
	/* device allocations live in the arena of the run that made
	 * them and a winner's must outlive its trial: with claims the
	 * passes run one by one in the problem's arena, capped */
	bool dra = p->snap->dra != NULL;
	int nt = 1;
#ifdef _OPENMP
	if (!dra)
		nt = o && o->threads > 0 ? o->threads : omp_get_max_threads();
#endif
	if (nt > WGR_RESTART_THREADS)
		nt = WGR_RESTART_THREADS;
	/* each pass on one thread; passes in parallel */
	wasp_options one;
	if (o)
		one = *o;
	else
		wopt_init(&one);
	one.threads = 1;
	trial *tr = calloc((size_t)nt * WGR_RESTART_CHUNK, sizeof *tr);
	if (!tr)
		return werr(err, WASP_ENOMEM, "out of memory");
	size_t base = wa_used(p->arena);
	int last = 0, m = 1, rc = WASP_OK;
	bool stop = false;
	for (int seed = 1; seed <= n && !stop;) {
		if (wdl_passed(until, 0) || (o && o->cancel && *o->cancel) ||
		    wa_used(p->arena) - base > WGR_RESTART_MEM)
			break;
		int nb = nt * m;
		if (nb > n - seed + 1)
			nb = n - seed + 1;
		double t0 = wb_now();
		if (dra)
			run_trial(p, o, (uint64_t)seed, false, &tr[0]);
		else {
			/* a trial that would start past the deadline is not
			 * run; one no better than the incumbent drops its
			 * arena at once */
#pragma omp parallel for schedule(static, 1) num_threads(nt) if (nb > 1)
			for (int i = 0; i < nb; i++) {
				trial *t = &tr[i];
				if (i >= nt && wdl_passed(until, 0)) {
					t->rc = TRIAL_NOT_RUN;
					t->a = NULL;
					continue;
				}
				run_trial(p, &one, (uint64_t)(seed + i), true,
					  t);
				if (t->rc == WASP_OK &&
				    !(t->ok && wp_value_cmp(&t->v, &vb) > 0)) {
					wa_destroy(t->a);
					t->a = NULL;
					t->ok = false;
				}
			}
		}
		if (m == 1 && !dra)
			m = trials_per_thread(wb_now() - t0);
		/* in seed order, whatever the batching: the first winner
		 * of each new best value, up to the first pass not run */
		int win = -1, i;
		for (i = 0; i < nb; i++) {
			int s = seed + i;
			if (tr[i].rc == TRIAL_NOT_RUN ||
			    patience_out(s, last)) {
				stop = true;
				break;
			}
			if (tr[i].rc) {
				rc = tr[i].rc;
				if (err)
					*err = tr[i].err;
				stop = true;
				break;
			}
			if (tr[i].ok && wp_value_cmp(&tr[i].v, &vb) > 0) {
				vb = tr[i].v;
				win = i;
				last = s;
				++*better;
			}
		}
		if (win >= 0 && rc == WASP_OK && adopt(p, best, &tr[win]))
			rc = werr(err, WASP_ENOMEM, "out of memory");
		/* a plan at the bound ends the passes where it was found */
		bool proven = win >= 0 && !rc && wp_packing_proven(p, best);
		if (proven)
			i = win + 1;
		*ran += i;
		seed += i;
		for (int k = 0; k < nb; k++) {
			wa_destroy(tr[k].a); /* NULL when not run or dropped */
			tr[k].a = NULL;
		}
		if (rc || proven)
			break;
	}
	free(tr);
	return rc;
}
