/*
 * greedy_int.h -- what the files of the greedy core share (greedy.h is
 * the public side).
 *
 * Contract: one greedy pass is one `gs` (the working state: free capacity
 * per node, the placement log, the roll-up and fit caches, the device
 * allocation state, the preemption and move bookkeeping), built by
 * solve.c and handed to every phase; nothing here is global.  A phase
 * writes only through G; every placement goes through the log (fit.c),
 * so a failed try is undone exactly (wgr_rollback, wgr_rollback_to), and
 * every placement or eviction that changes a node's room calls
 * wgr_touch so the cached roll-ups and fits see it.  Functions return
 * -1 (or -2 where -1 means "does not fit") on NOMEM.
 *
 * The files, by phase:
 *   solve.c     entry points (wgr_solve...), one pass: setup, then each
 *               group in order
 *   order.c     the group order: priority, most constrained, largest;
 *               the perturbed orders of seeded passes
 *   domain.c    roll-ups (pod slots per domain), candidate domains and
 *               the descent of one plain group through them
 *   fit.c       classes' fit data, best-fit placement onto nodes with
 *               exact device fit, the placement log
 *   tree.c      CompositePodGroup trees and topology annotations
 *               (doc/formulation.md §9)
 *   moves.c     moves that admit work (--rebalance, doc/formulation.md §4c)
 *   preempt.c   all greedy preemption: victim search, reprieve, capacity
 *               by priority level (doc/preemption.md, "Greedy victim
 *               search"; doc/formulation.md §4b)
 *   room.c      free room per node as a max-tree: a class's candidate
 *               nodes without a scan of the cluster
 *   index.c     per-domain totals of free and evictable capacity, kept
 *               up to date as pods are placed and units evicted
 *   dtree.c     a key's domains in a tree over those totals: the ones
 *               worth a victim search's score, without a loop over all
 *   pcache.c    the victim search's answers per domain, kept while the
 *               domain does not change
 *   reasons.c   why a group waits
 *   restarts.c  seeded passes in perturbed orders (doc/formulation.md §11)
 */
#ifndef WASP_GREEDY_INT_H
#define WASP_GREEDY_INT_H

#include "solve/greedy/greedy.h"
#include "base/arena.h"
#include "base/options.h"
#include "model/dra.h"

#include <stdbool.h>
#include <stdint.h>

/* Domains actually placed into per group, after the roll-up prefilter. */
#define WGR_MAX_TRIES 64
/* Candidate domains from which the victim search scores them by the
 * domain index on OpenMP threads (about 0.1 us each: fewer do not pay
 * for a parallel region, least of all on a loaded machine). */
#define WGR_PAR_DOMS 2048
/* Node visits below which a roll-up is not worth a parallel region. */
#define WGR_PAR_MIN (1 << 17)
/* Bytes the per-node load by pending band (gs.pl) may take. */
#define WGR_LOAD_MAX ((size_t)256 << 20)
/* Resources the domain index bounds with (more: no bound, no skip). */
#define WGR_IX_MAX_RES 64
/* Priority bands the cost bound handles (more: no bound). */
#define WGR_IX_MAX_BANDS 64
/* Cached per-node fits (profiles x nodes) the greedy may hold: 128 MB
 * (at 64 MB, 20,000 nodes with device claims ran out of it and took 2-3x
 * longer; bench/README.md, "Quiet figures at the wave-4 merge"). */
#define WGR_FIT_CACHE ((size_t)1 << 24)
/* Nodes from which a search finds a class's nodes in the room tree
 * (room.c) rather than by a scan, and the nodes of one leaf of it. */
#define WGR_ROOM_MIN 64
#define WGR_ROOM_RUN 16
/* Domains of a key from which the victim search finds those worth
 * scoring in a tree (dtree.c) rather than by a loop over all of them,
 * and the most priority bands the tree keeps room for. */
#define WGR_DT_MIN 256
#define WGR_DT_MAX_BANDS 16
/* Per-node fit cap: keeps sums far from overflow when requests are 0. */
#define WGR_FIT_CAP (1 << 30)

/* What the greedy keeps per class (wgr_setup_classes). */
typedef struct cinfo {
	int *rl;              /* resources the class requests, scarcest first */
	int nr;
	unsigned char *bits;  /* eligibility bitmap over nodes (shared)  */
	double weight;        /* normalised size: larger classes go first */
	int prof;             /* first class with the same elig and req   */
} cinfo;

/* The placement log: cnt pods of class c on its k-th eligible node. */
typedef struct logent {
	int c, k, cnt;
	int dmark; /* device allocations before this entry's (DRA) */
} logent;

/* A node candidate of one placement (best-fit order). */
typedef struct ncand {
	int64_t fit;
	double frac;
	int n;
} ncand;

/* A candidate domain d: pods of the group that could fit there (bound)
 * and raw pod slots. */
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

/* The domain index (index.c): per key slot (the keys, then the cluster
 * as one domain) and domain, totals kept up to date incrementally. */
typedef struct gix {
	int nb;            /* priority bands: distinct unit priorities  */
	int32_t *bprio;    /* nb, ascending                             */
	int *uband;        /* per unit: its band                        */
	int nk;            /* key slots: nkeys + 1                      */
	int64_t **fsum;    /* per slot: ndom * nres, free room (>= 0)   */
	int64_t **esum;    /* per slot: ndom * nb * nres, evictable pods'
			      requests                                 */
	int32_t **ecnt;    /* per slot: ndom * nb, evictable pods        */
	double **eeff;     /* per slot: ndom * nb * nres, the most one
			      such unit frees in the domain per pod it
			      has (its pods anywhere count: each is
			      evicted), from the start                  */
	bool any_over;     /* some node is over-committed: no cost bound */
	int64_t *seen;     /* nn * nres: each node's room as added       */
	unsigned char *dirty; /* per node: touched since the last sync   */
	int *dlist, ndirty;
	unsigned char *over; /* per node: over-committed (no victims)    */
	int *pod_unit;     /* per snapshot pod: its unit (moves), or -1  */
	struct gdtree **dt; /* per slot: its domains in a tree (dtree.c),
			       NULL where there is none                 */
} gix;

/* The cost of a victim search's answer (preempt.c). */
typedef struct wgr_pecost {
	long viol;  /* PodDisruptionBudget violations: fewest first */
	double w;   /* evicted pods by weight                       */
	long pods;
} wgr_pecost;

/* A question to the victim search's memo (pcache.c). */
typedef struct wgr_pcq {
	int prof;      /* the one class's profile (cinfo.prof) */
	int32_t prio;
	int mpods;     /* pods it may place                    */
	int need;
} wgr_pcq;

/* The state of one greedy pass (the contract above). */
typedef struct gs {
	const wp_problem *p;
	const ws_snapshot *s;
	wp_sol *sol;
	int64_t *fr; /* working free capacity, nnodes * nres */
	int nres, nn, threads;
	uint64_t seed;   /* 0: the standard order; else a perturbed one
			    (wgr_solve_seeded, order.c)             */
	const int *hint; /* per group: the domain it is held to and
			    first in its level when >= 0
			    (wgr_solve_led), or NULL               */
	bool led_clear;  /* wgr_solve_led's clear: the top level's
			    lower units evicted first (preempt.c)   */
	unsigned char *led_ev; /* per unit: evicted so; NULL when none
			    are (before the top level, after it)    */
	int32_t led_top; /* the level they were evicted for        */
	wa_arena *ra;    /* where the plan's texts go: the problem's
			    arena, or a restart's own (wgr_restarts) */
	cinfo *ci;
	wa_arena *tmp;
	ncand *nc;   /* nnodes: node candidates of one placement, and
			scratch for the room tree's answers elsewhere */
	logent *log;
	int nlog;
	size_t logcap;
	uint32_t **dver; /* per key, per domain: placement version */
	uint32_t gver;   /* the cluster's version                  */
	rcache *rc;
	int nrc;
	int *gpair;      /* per group: its rcache, or -1           */
	uint32_t *nver;  /* per node: placement version            */
	double *frac;    /* per node: cached wgr_node_frac, at fver */
	uint32_t *fver;
	int32_t **pfit;  /* per profile (class index): cached fit
			    per node, at pver; NULL: not cached    */
	uint32_t **pver;
	struct gtree *tr; /* CompositePodGroup trees (tree.c)        */
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
	/* preemption (preempt.c) */
	int32_t level;         /* priority level being placed             */
	bool have_level;
	unsigned char *dirty;  /* nnodes: something was evicted there     */
	int *dlist;            /* the dirty nodes                          */
	int ndirty;
	int *pe_start, *pe_list; /* node -> units with a pod there (CSR),
				    one entry per running pod            */
	unsigned char *pe_mark, *pe_rep;
	int *pe_v, *pe_tmp;
	unsigned char *pe_pdbv;  /* per unit: evicting it breaks a budget */
	int *pdb_left, *pdb_use; /* per PDB: disruptions left, scratch    */
	bool preempt;          /* preemption allowed at all              */
	int64_t *nv_save, *nv_capd, *nv_used; /* never_cap (preempt.c)   */
	bool nv_pending;
	int32_t *pe_pkey;  /* per pe_list entry: its unit's priority, or
			      INT32_MAX when protected                 */
	int64_t *pe_preq;  /* per pe_list entry: its pod's requests (nres),
			      kept beside the list: the scan reads no pod */
	int *pe_uoff;      /* per unit: its first entry in pe_unode     */
	int *pe_unode;     /* per unit's pod: its node; pe_ureq: its
			      requests (nres)                          */
	int64_t *pe_ureq;
	int64_t *pe_maxreq; /* per resource: the most a running pod asks */
	int64_t *pe_cap, *pe_acc; /* scratch: nres, nclasses             */
	/* per node, the lowest priority of a unit that may still be
	 * evicted there (per domain: the domain index, wgr_ix_dmin) */
	int32_t *pe_nmin;
	int64_t *pe_nfit;      /* per node: a class's fit (pe_shortest)   */
	uint32_t *pe_fep, pe_epoch; /* per node: the count pe_nfit is of */
	struct pebound *pe_lb; /* per candidate domain: its cost bound  */
	int *pe_dom;       /* per domain: those the tree (dtree.c) keeps */
	int pe_evicted;        /* pods evicted so far (--max-evictions)  */
	int *pe_rank, *pe_order; /* units by cost with no budget broken  */
	int *pe_chkv;          /* nunits: the checked pass's sorted copy  */
	/* moves (--rebalance; moves.c) */
	int64_t *mv_adj;   /* nnodes * nres: room moves freed (out - in)   */
	int *mv_v, *mv_to; /* candidate pods of one domain, their moves    */
	int nmoves;        /* moves so far                                 */
	int *mv_nbeg, *mv_nlist; /* per node: move classes at home there  */
	/* per-pod preemption of a basic group's rest (wgr_preempt_rest) */
	int pe_only_dom;   /* >= 0: the one candidate domain               */
	int pe_rest;       /* > 0: pods still to place (the limit)         */
	/* devices held by evicted pods (preempt.c, dv_*): per allocated
	 * claim spec, holders evicted so far and whether its freed devices
	 * were taken back for a level at or below its victims' priority */
	int *dv_gone;
	unsigned char *dv_back;
	bool dv_clash;     /* a restore found a device in use twice        */
	/* DRA and preemption: when evictions free no device (no running
	 * pod holds a claim), a domain whose devices alone hold fewer than
	 * `need` pods of a group is not searched for victims.  Per (claim
	 * list, key): the device fit per domain and per node (at the node's
	 * version), for one eligibility, refreshed from the changed nodes
	 * once a group was admitted (preempt.c, pd_domains). */
	struct pdfit *pd;
	/* every device keeps to one node (wgr_dev_local): a device changes
	 * hands only with its node's room, so node versions follow it */
	bool dev_local;
	bool dev_nodes;    /* and wdr_node_exact holds on every node      */
	struct rsfit *rsf; /* per claim list: device fit (reasons.c)   */
	gix *ix;           /* the domain index, NULL until preemption    */
	struct groom *room; /* free room as a max-tree (room.c), NULL
			       until a placement first asks it          */
	struct wgr_pcache *pc; /* the victim search's memo (pcache.c)   */
	unsigned char *neg; /* per node: some room below zero (NULL until
			       preemption)                              */
	int nneg;          /* such nodes                                 */
	/* what is placed per node and pending band (wgr_setup_load): band
	 * 0 holds groups that may not preempt, band b > 0 the may-preempt
	 * groups of priority pl_prio[b]; NULL: over WGR_LOAD_MAX bytes,
	 * the levels then scan the solution */
	int64_t *pl;       /* nn * npl * nres                            */
	int npl;
	int32_t *pl_prio;  /* npl, ascending from 1                       */
	int *pl_band;      /* per class                                   */
	bool ix_check;     /* wgr_solve_checked: recount after each group */
	int par_doms;      /* WGR_PAR_DOMS; 1 in wgr_solve_checked       */
	int ix_checks, ix_bad; /* recounts made, and those that differed */
	int pc_hits;       /* answers the memo gave (pcache.c)          */
	bool pe_noflat;    /* the checked pass: scan nodes for victims  */
	bool pe_inchk;     /* the checked pass is comparing the two     */
	int pe_flats;      /* cluster searches without the scan         */
	int room_checks;   /* room tree answers compared with a scan    */
	int dt_checks;     /* domain tree answers compared with a loop  */
} gs;

/* A candidate domain in the order it is tried (wgr_cmp_dsort). */
typedef struct dsort {
	dcand c;
	int full; /* holds the whole group */
} dsort;

/* A group in the placement order (order.c).  ncand: the domains that
 * could hold its minimum (WGR_NCAND_ANY: placed after those that have
 * a key, in the WGR_SEED_KEYED pass). */
#define WGR_NCAND_ANY (1 << 29)
typedef struct gord {
	int g;
	int32_t prio;
	int ncand;
	int size;
} gord;

/* ------------------------------------------------------------ fitting */

static inline bool wgr_elig_bit(const cinfo *ci, int n)
{
	return ci->bits[n >> 3] & (1u << (n & 7));
}

/* Pods of class c that fit in the room `f` (nres), resources only. */
static inline int64_t wgr_cap_fit(const gs *G, int c, const int64_t *f)
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

/* Pods of class c that fit on node n now. */
static inline int64_t wgr_node_fit(const gs *G, int c, int n)
{
	int64_t best = wgr_cap_fit(G, c, G->fr + (size_t)n * G->nres);
	if (!best)
		return 0;
	/* Exact device fit: claims allocated one pod after another. */
	if (G->cpc && G->cpc[c])
		best = wdr_fit(G->dra, G->cpc[c], n, (int)(best < 4096 ? best
							    : 4096));
	return best;
}

/* wgr_node_fit through the profile's cache (serial code only: it writes). */
static inline int64_t wgr_node_fit_c(gs *G, int c, int n)
{
	int pr = G->ci[c].prof;
	int32_t *fit = G->pfit ? G->pfit[pr] : NULL;
	if (!fit)
		return wgr_node_fit(G, c, n);
	uint32_t *ver = G->pver[pr];
	if (ver[n] != G->nver[n]) {
		fit[n] = (int32_t)wgr_node_fit(G, c, n);
		ver[n] = G->nver[n];
	}
	return fit[n];
}

/* Best fit: fewer pod slots first, then less free room, then index. */
static inline bool wgr_nc_less(const ncand *a, const ncand *b)
{
	if (a->fit != b->fit)
		return a->fit < b->fit;
	if (a->frac != b->frac)
		return a->frac < b->frac;
	return a->n < b->n;
}

/* Node n as a candidate of class c: appended to out[nc..] when the
 * class may use it and a pod fits; the new count. */
static inline int wgr_cand(gs *G, int c, int n, ncand *out, int nc)
{
	if (!wgr_elig_bit(&G->ci[c], n))
		return nc;
	int64_t f = wgr_node_fit_c(G, c, n);
	if (f > 0)
		out[nc++] = (ncand){f, 0, n};
	return nc;
}

/* A hash step (wgr_setup_classes, wgr_setup_pairs). */
static inline uint64_t wgr_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* Pods a group must place to be admitted. */
static inline int wgr_group_need(const wp_group *wg)
{
	return wg->gang ? wg->min_need : 1;
}

/* ------------------------------------------------- cross-file functions */

/* fit.c: class data, best-fit placement, the placement log */
int wgr_setup_classes(gs *G);
int wgr_setup_load(gs *G);
int64_t wgr_acc_bound(const wp_problem *p, const wp_group *wg,
		      const int64_t *acc);
double wgr_node_frac(gs *G, int n);
void wgr_touch(gs *G, int n);
int wgr_place_cands(gs *G, int c, int nc, int m);
void wgr_rollback(gs *G);
void wgr_rollback_to(gs *G, int mark);
void wgr_nc_sift(ncand *h, int n, int i);
int wgr_place_upto(gs *G, const wp_group *wg, const int *corder,
		   const wtp_key *k, int d, int need, int limit);
int wgr_try_group(gs *G, const wp_group *wg, const int *corder,
		  const wtp_key *k, int d, int need);

/* room.c: the nodes that could take a pod of a class, from a max-tree
 * of free room.  wgr_room_find: the eligible nodes of domain d of k (k
 * NULL: the cluster) where a pod of class c fits, in node order, into
 * out (nnodes); their count, or -1 when the tree does not serve that
 * domain (too small, not a range of indices, a class eligible on few
 * nodes: scan it), -2 on NOMEM.  wgr_room_select: their fits summed
 * into *sum and, when at least `need` of m pods of class c fit, those m
 * pods' nodes in the order wgr_place_cands would take them from the full
 * list, each node's count in .fit, into out; their number (0 when short;
 * -1, -2 the same), from sums and best nodes per run of nodes kept per
 * profile while the run's room is the same.  The checked pass compares
 * each answer with a scan (room_checks). */
typedef struct groom groom;
void wgr_room_touch(gs *G, int n);
int wgr_room_find(gs *G, int c, const wtp_key *k, int d, ncand *out);
int wgr_room_select(gs *G, int c, const wtp_key *k, int d, int64_t m,
		    int need, ncand *out, int64_t *sum);

/* order.c: the group order */
bool wgr_seed_flat(uint64_t seed);
/* No running unit may be evicted (none below a group that may preempt,
 * or all protected): where the smallest-pods-first passes run. */
bool wgr_no_evictions(const wp_problem *p);
void wgr_class_order(const cinfo *ci, const int *classes, int n,
		     int *corder);
int wgr_order_groups(gs *G, gord *ord, int maxd);

/* domain.c: roll-ups and the descent of a plain group */
int wgr_setup_pairs(gs *G);
void wgr_rollup_direct(const gs *G, gs *wr, const wp_group *wg,
		       const wtp_key *k, dcand *cd, int ncd);
int wgr_candidates(const wp_group *wg, const wtp_key *k, dcand *cd);
int wgr_cmp_dsort(const void *va, const void *vb);
int wgr_place_group(gs *G, int g, int *corder, dcand *cd, dsort *ds);

/* tree.c: CompositePodGroup trees and topology annotations */
int wgr_tree_setup(gs *G);
int wgr_tree_solve(gs *G, int h);
int wgr_annotated_solve(gs *G, int g);

/* moves.c */
bool wgr_unit_moved(const gs *G, int u);
int wgr_move_group(gs *G, int g, const int *corder, const wtp_key *k,
		   int need);

/* preempt.c */
int wgr_pe_setup(gs *G);
int wgr_level_capacity(gs *G, int g);
void wgr_pe_evict(gs *G, int u, int g);
/* Unit u evicted (sign +1) or back (-1) in the working capacity; do its
 * nodes still have room; node n's lowest evictable priority anew. */
void wgr_pe_unit(gs *G, int u, int sign);
bool wgr_pe_unit_fits(gs *G, int u);
void wgr_pe_node(gs *G, int n);

/* led.c: the led pass's clearing of the top level (wgr_solve_led) */
int wgr_led_level(gs *G, int g);
int wgr_led_back(gs *G);
int wgr_preempt_group(gs *G, int g, const int *corder, const wtp_key *k,
		      int need, const dcand *cd);
int wgr_preempt_rest(gs *G, int g, const int *corder, const wtp_key *k,
		     int placed);

/* index.c: the domain index (a key index ki, -1: the cluster) */
int wgr_ix_setup(gs *G);
void wgr_ix_touch(gs *G, int n);         /* node n's room changed       */
void wgr_ix_sync(gs *G);                 /* the totals brought up to date */
void wgr_ix_unit(gs *G, int u, int sign); /* unit u leaves (-1) the
					     victims, or returns (+1)  */
void wgr_ix_moved(gs *G, int pi, int sign); /* pod pi moved (+1) or back */
int32_t wgr_ix_dmin(const gs *G, int ki, int d);
/* the bound's sum for room (per resource): pods of wg that fit there */
int64_t wgr_ix_room_bound(const gs *G, const wp_group *wg,
			  const int64_t *room);
int64_t wgr_ix_bound(const gs *G, const wp_group *wg, int ki, int d,
		     int32_t below);
/* false: the victims there cannot free the room the group needs; else
 * *w, *pods: a lower bound on the victim search's cost there (0, 0:
 * none known) */
bool wgr_ix_cost_lb(const gs *G, const wp_group *wg, int ki, int d,
		    int32_t below, int need, double *w, long *pods);
bool wgr_ix_verify(gs *G);         /* totals equal a recount      */

/* dtree.c: the domains of key ki whose index totals pass wgr_ix_dmin and
 * wgr_ix_bound for a group (priority `below`, `need` pods), from a tree
 * over the totals: into out in index order, their number; -1 where the
 * key has no tree.  wgr_dt_mark: the totals of domain d of slot s
 * changed.  The checked pass compares with a loop over the domains. */
typedef struct gdtree gdtree;
int wgr_dt_setup(gs *G);
void wgr_dt_mark(gs *G, int s, int d);
int wgr_dt_doms(gs *G, const wp_group *wg, int ki, int32_t below, int need,
		int *out);

/* pcache.c: the victim search's memo per domain */
int wgr_pc_setup(gs *G);
void wgr_pc_neg(gs *G, int n);           /* node n's room changed      */
void wgr_pc_forget(gs *G);               /* every fingerprint is stale */
bool wgr_dev_local(const gs *G);
bool wgr_pc_question(const gs *G, const wp_group *wg, const wtp_key *k,
		     int need, int limit, wgr_pcq *q);
uint64_t wgr_pc_print(gs *G, const wtp_key *k, int d);
bool wgr_pc_get(gs *G, int ki, int d, const wgr_pcq *q, uint64_t fp,
		int *r, wgr_pecost *cost);
void wgr_pc_put(gs *G, int ki, int d, const wgr_pcq *q, uint64_t fp, int r,
		const wgr_pecost *cost);

/* reasons.c */
const char *wgr_short_name(const char *label);
const char *wgr_plural(int64_t n, const char *one, const char *many);
const char *wgr_explain(gs *G, const wp_group *wg, const int *corder,
			const wtp_key *k, const dcand *cd, int ncd,
			int need, int tried);
const char *wgr_device_reason(gs *G, const wp_group *wg,
			      const wtp_key *k, int need);

/* solve.c: one pass (restarts.c runs many) */
int wgr_solve_in(const wp_problem *p, const wasp_options *o, wp_sol *sol,
		 bool preempt, uint64_t seed, wa_arena *ra, wasp_error *err);

#endif
