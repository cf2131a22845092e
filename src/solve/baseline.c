/*
 * baseline.c -- the two reference schedulers that `wasp bench` compares
 * wasp against (see baseline.h and bench/README.md).  Not for production:
 * they exist so the benchmark tables have an honest "before" column.
 *
 * podwise: the pending pods in priority order (the problem's group order),
 * each on its own to the eligible node with the most free resources (the sum
 * over resources of free/allocatable, kube-scheduler's LeastAllocated), no
 * gangs and no topology.  A gang may end up partly placed; such a group is
 * marked admitted so the plan shows the partial gang (and the GPUs it
 * strands).
 *
 * bestfit: Kueue's Topology Aware Scheduling with the BestFit profile
 * (kueue pkg/cache/scheduler/tas_flavor_snapshot.go), gang semantics on top:
 *   phase 1  per node, how many of the class's pods fit its free capacity;
 *            sums rolled up the domain tree (chain of nested keys from the
 *            group's required key down to the nodes);
 *   phase 2a at the required level, the tightest single domain that fits
 *            every pod (Kueue's findBestFitDomain);
 *   phase 2b level by level below it, the children of the chosen domains
 *            sorted most-free first (name breaking ties) and taken in turn
 *            until the count is covered, the last one replaced by the
 *            tightest that fits the remainder; the node level likewise gives
 *            the per-node counts.
 * A group without a key treats the cluster as one domain (BestFit over the
 * nodes).  A gang is placed with all its pending pods if some domain fits
 * them, else with as many as the roomiest domain fits if that reaches
 * min_need (Kueue's partial admission), else not at all.  Groups with
 * several pod classes (rare: Kueue gives each PodSet its own assignment)
 * take their classes one after the other inside one candidate domain,
 * trying the next candidate when a later class no longer fits.
 * Nodes lacking one of the chain's labels are not used by keyed groups,
 * as Kueue requires every level's label on a TAS node.
 */
#include "solve/baseline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Per-node fit counts are capped here so domain sums cannot overflow. */
#define WBL_MAX_FIT (1 << 20)
/* Candidate domains tried for a multi-class group before giving up. */
#define WBL_MAX_TRIES 64

/* One entry of a sort: key ascending, then the element's name rank. */
typedef struct bl_item {
	int64_t key;
	int rank;
	int elem;
} bl_item;

static int item_cmp(const void *a, const void *b)
{
	const bl_item *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->elem > y->elem) - (x->elem < y->elem);
}

typedef struct bl_name {
	const char *name;
	int idx;
} bl_name;

static int name_cmp(const void *a, const void *b)
{
	const bl_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* rank[i] = position of names[i] in name order (ties: index order). */
static int *name_ranks(wa_arena *a, bl_name *v, int n)
{
	int *rank = wa_calloc(a, n ? n : 1, sizeof *rank);
	if (!rank)
		return NULL;
	/* domains come in name order already (topology.c): no sort then */
	bool sorted = true;
	for (int i = 1; i < n && sorted; i++)
		sorted = name_cmp(&v[i - 1], &v[i]) < 0;
	if (!sorted)
		qsort(v, n, sizeof *v, name_cmp);
	for (int i = 0; i < n; i++)
		rank[v[i].idx] = i;
	return rank;
}

/* How many pods of class c fit on node n's free capacity. */
static int fit_count(const wp_problem *p, const int64_t *fr,
		     const wp_class *c, int n)
{
	const int64_t *f = fr + (size_t)n * p->nres;
	int64_t best = WBL_MAX_FIT;
	for (int r = 0; r < p->nres; r++) {
		if (c->req[r] <= 0)
			continue;
		if (f[r] < c->req[r])
			return 0;
		if (f[r] / c->req[r] < best)
			best = f[r] / c->req[r];
	}
	return (int)best;
}

static void take(const wp_problem *p, int64_t *fr, const wp_class *c, int n,
		 int k)
{
	int64_t *f = fr + (size_t)n * p->nres;
	for (int r = 0; r < p->nres; r++)
		f[r] -= (int64_t)k * c->req[r];
}

static const char *waits_why(const wp_problem *p, const wp_group *g)
{
	for (int i = 0; i < g->nclasses; i++) {
		const wp_class *c = &p->classes[g->classes[i]];
		if (c->count > 0 && c->nelig == 0)
			return c->why_none ? c->why_none
					   : "no node is eligible for its pods";
	}
	return NULL;
}

/* ------------------------------------------------------------ podwise */

typedef struct pw_heap {
	double *score;
	int *node, *k;
	int n;
} pw_heap;

/* Max-heap on score, lower node index first among equals. */
static int pw_above(const pw_heap *h, int i, int j)
{
	if (h->score[i] != h->score[j])
		return h->score[i] > h->score[j];
	return h->node[i] < h->node[j];
}

static void pw_swap(pw_heap *h, int i, int j)
{
	double s = h->score[i];
	int n = h->node[i], k = h->k[i];
	h->score[i] = h->score[j];
	h->node[i] = h->node[j];
	h->k[i] = h->k[j];
	h->score[j] = s;
	h->node[j] = n;
	h->k[j] = k;
}

static void pw_down(pw_heap *h, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && pw_above(h, l, m))
			m = l;
		if (r < h->n && pw_above(h, r, m))
			m = r;
		if (m == i)
			return;
		pw_swap(h, i, m);
		i = m;
	}
}

static double free_score(const wp_problem *p, const int64_t *fr, int n)
{
	const ws_node *nd = &p->snap->nodes[n];
	const int64_t *f = fr + (size_t)n * p->nres;
	double s = 0;
	for (int r = 0; r < p->nres; r++)
		if (nd->alloc[r] > 0)
			s += (double)f[r] / (double)nd->alloc[r];
	return s;
}

static int podwise(const wp_problem *p, const wasp_options *o, wa_arena *a,
		   int64_t *fr, wp_sol *sol, wasp_error *err)
{
	int maxel = 1;
	for (int i = 0; i < p->nclasses; i++)
		if (p->classes[i].nelig > maxel)
			maxel = p->classes[i].nelig;
	pw_heap h;
	h.score = wa_calloc(a, maxel, sizeof *h.score);
	h.node = wa_calloc(a, maxel, sizeof *h.node);
	h.k = wa_calloc(a, maxel, sizeof *h.k);
	if (!h.score || !h.node || !h.k)
		return werr(err, WASP_ENOMEM, "out of memory");

	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (o && o->cancel && *o->cancel) {
			sol->reason[gi] = "cancelled before it was tried";
			continue;
		}
		if (g->invalid) {
			sol->reason[gi] = g->invalid;
			continue;
		}
		int placed = 0;
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *c = &p->classes[g->classes[ci]];
			h.n = 0;
			for (int k = 0; k < c->nelig; k++) {
				int n = c->elig[k];
				if (fit_count(p, fr, c, n) < 1)
					continue;
				h.score[h.n] = free_score(p, fr, n);
				h.node[h.n] = n;
				h.k[h.n] = k;
				h.n++;
			}
			for (int i = h.n / 2 - 1; i >= 0; i--)
				pw_down(&h, i);
			for (int i = 0; i < c->count && h.n > 0; i++) {
				int n = h.node[0];
				wp_x_add(sol, c->off + h.k[0], 1);
				take(p, fr, c, n, 1);
				placed++;
				if (fit_count(p, fr, c, n) >= 1) {
					h.score[0] = free_score(p, fr, n);
				} else {
					h.n--;
					pw_swap(&h, 0, h.n);
				}
				pw_down(&h, 0);
			}
		}
		if (placed > 0) {
			sol->admit[gi] = 1;
		} else {
			const char *why = waits_why(p, g);
			sol->reason[gi] = why ? why
					      : "podwise: no eligible node has "
						"room for one of its pods";
		}
	}
	return WASP_OK;
}

/* ------------------------------------------------------------ bestfit */

typedef struct bf {
	const wp_problem *p;
	wa_arena *a;
	int64_t *fr;      /* nnodes * nres, working free capacity      */
	int *cnt;         /* nnodes: fit count of the current class    */
	int **state;      /* per key: ndom, rolled-up fit counts        */
	int **kid_off;    /* per key with a finer nested key: ndom + 1  */
	int **kids;       /* ... child domain indices (CSR)             */
	int *finer;       /* per key: the first key nesting in it, -1   */
	int **dom_rank;   /* per key: name rank of each domain          */
	int *node_rank;
	bl_item *pool;    /* scratch, max(nnodes, ndom) + 1             */
	int *cur, *next;  /* chosen elements of a level                 */
	bl_item *cand;    /* candidate domains of the required level, a
			     heap in item_cmp order                     */
	int chain[64];    /* keys from the required one down            */
	int nchain;
	/* placements of the group being tried, for rollback */
	int *log_slot, *log_node, *log_cls, *log_n;
	size_t nlog, caplog;
	/* phase 1 kept per profile (bf_cached): the nodes whose room
	 * changed, in order, and per class its profile (-1: none) */
	int *jr;
	size_t njr, capjr;
	struct bf_prof *prof;
	int nprof;
	int *cprof;
	int *cnt0;        /* the uncached counts (b->cnt between uses)   */
	int **state0;     /* the uncached states                         */
} bf;

/* Phase 1 of one profile (the classes with the same eligible nodes and
 * requests), kept up to date from the journal of changed nodes instead
 * of recounted per group: the counts per node and the states per key,
 * rolled up as bf_rollup does. */
typedef struct bf_prof {
	int c;            /* a class of the profile */
	int *cnt;         /* nnodes                 */
	int **st;         /* per key: ndom          */
	long total;
	size_t seen;      /* journal entries applied */
} bf_prof;
/* Memory the profiles may take. */
#define WBL_PROF_MEM ((size_t)64 << 20)

static int bf_log(bf *b, int slot, int node, int cls, int n)
{
	if (b->nlog == b->caplog) {
		size_t cap = b->caplog ? 2 * b->caplog : 256;
		int *s = wa_calloc(b->a, cap, sizeof *s);
		int *d = wa_calloc(b->a, cap, sizeof *d);
		int *c = wa_calloc(b->a, cap, sizeof *c);
		int *m = wa_calloc(b->a, cap, sizeof *m);
		if (!s || !d || !c || !m)
			return -1;
		if (b->nlog) {
			memcpy(s, b->log_slot, b->nlog * sizeof *s);
			memcpy(d, b->log_node, b->nlog * sizeof *d);
			memcpy(c, b->log_cls, b->nlog * sizeof *c);
			memcpy(m, b->log_n, b->nlog * sizeof *m);
		}
		b->log_slot = s;
		b->log_node = d;
		b->log_cls = c;
		b->log_n = m;
		b->caplog = cap;
	}
	b->log_slot[b->nlog] = slot;
	b->log_node[b->nlog] = node;
	b->log_cls[b->nlog] = cls;
	b->log_n[b->nlog] = n;
	b->nlog++;
	return 0;
}

static int bf_profiles(bf *b);

/* Node n's room changed: note it for the profiles.  -1 on NOMEM. */
static int bf_note(bf *b, int n)
{
	if (!b->prof || b->njr == (size_t)-1)
		return 0;
	return WA_PUSH(b->a, b->jr, b->njr, b->capjr, n);
}

static void bf_rollback(bf *b, wp_sol *sol, size_t to)
{
	while (b->nlog > to) {
		b->nlog--;
		const wp_class *c = &b->p->classes[b->log_cls[b->nlog]];
		int k = b->log_n[b->nlog];
		wp_x_add(sol, b->log_slot[b->nlog], -k);
		take(b->p, b->fr, c, b->log_node[b->nlog], -k);
		if (bf_note(b, b->log_node[b->nlog]))
			b->njr = (size_t)-1; /* NOMEM: caches off */
	}
}

static int bf_init(bf *b, const wp_problem *p, wa_arena *a, int64_t *fr)
{
	const wtp_topo *t = p->topo;
	int nk = t ? t->nkeys : 0;
	int maxdom = 0;

	memset(b, 0, sizeof *b);
	b->p = p;
	b->a = a;
	b->fr = fr;
	b->cnt = wa_calloc(a, p->nnodes ? p->nnodes : 1, sizeof *b->cnt);
	b->state = wa_calloc(a, nk ? nk : 1, sizeof *b->state);
	b->kid_off = wa_calloc(a, nk ? nk : 1, sizeof *b->kid_off);
	b->kids = wa_calloc(a, nk ? nk : 1, sizeof *b->kids);
	b->finer = wa_calloc(a, nk ? nk : 1, sizeof *b->finer);
	b->dom_rank = wa_calloc(a, nk ? nk : 1, sizeof *b->dom_rank);
	for (int j = 0; j < nk; j++)
		if (t->keys[j].ndom > maxdom)
			maxdom = t->keys[j].ndom;
	int maxpool = (p->nnodes > maxdom ? p->nnodes : maxdom) + 1;
	bl_name *names = wa_calloc(a, maxpool, sizeof *names);
	if (!names)
		return -1;
	for (int i = 0; i < p->nnodes; i++) {
		names[i].name = p->snap->nodes[i].name;
		names[i].idx = i;
	}
	/* the snapshot's own name order when it has one (ws_snapshot_index) */
	b->node_rank = p->snap->node_rank && p->nnodes == p->snap->nnodes
			   ? p->snap->node_rank
			   : name_ranks(a, names, p->nnodes);
	if (!b->cnt || !b->state || !b->kid_off || !b->kids || !b->finer ||
	    !b->dom_rank || !b->node_rank)
		return -1;
	for (int j = 0; j < nk; j++) {
		const wtp_key *k = &t->keys[j];
		b->finer[j] = -1;
		b->state[j] = wa_calloc(a, k->ndom ? k->ndom : 1, sizeof(int));
		for (int d = 0; d < k->ndom; d++) {
			names[d].name = k->dom_name[d] ? k->dom_name[d] : "";
			names[d].idx = d;
		}
		b->dom_rank[j] = name_ranks(a, names, k->ndom);
		if (!b->state[j] || !b->dom_rank[j])
			return -1;
	}
	/* The tree: for each key, the first finer key that nests in it. */
	for (int j = 0; j < nk; j++) {
		int par = t->keys[j].parent;
		if (par >= 0 && par < nk && b->finer[par] < 0)
			b->finer[par] = j;
	}
	for (int j = 0; j < nk; j++) {
		int f = b->finer[j];
		if (f < 0)
			continue;
		const wtp_key *k = &t->keys[j], *fk = &t->keys[f];
		int *off = wa_calloc(a, k->ndom + 1, sizeof *off);
		int *kid = wa_calloc(a, fk->ndom ? fk->ndom : 1, sizeof *kid);
		if (!off || !kid)
			return -1;
		for (int e = 0; e < fk->ndom; e++)
			if (fk->dom_parent[e] >= 0)
				off[fk->dom_parent[e] + 1]++;
		for (int d = 0; d < k->ndom; d++)
			off[d + 1] += off[d];
		int *fill = wa_calloc(a, k->ndom ? k->ndom : 1, sizeof *fill);
		if (!fill)
			return -1;
		for (int e = 0; e < fk->ndom; e++) {
			int d = fk->dom_parent[e];
			if (d >= 0)
				kid[off[d] + fill[d]++] = e;
		}
		b->kid_off[j] = off;
		b->kids[j] = kid;
	}
	b->cnt0 = b->cnt;
	b->state0 = wa_calloc(a, nk ? nk : 1, sizeof *b->state0);
	if (!b->state0)
		return -1;
	for (int j = 0; j < nk; j++)
		b->state0[j] = b->state[j];
	if (bf_profiles(b))
		return -1;
	b->pool = wa_calloc(a, maxpool, sizeof *b->pool);
	b->cur = wa_calloc(a, maxpool, sizeof *b->cur);
	b->next = wa_calloc(a, maxpool, sizeof *b->next);
	b->cand = wa_calloc(a, maxpool, sizeof *b->cand);
	if (!b->pool || !b->cur || !b->next || !b->cand)
		return -1;
	return 0;
}

/* The chain of keys from `key` down through keys that nest in it. */
static void bf_chain(bf *b, int key)
{
	b->nchain = 0;
	for (int j = key; j >= 0 && b->nchain < 64; j = b->finer[j])
		b->chain[b->nchain++] = j;
}

/* Phase 1 for class c: per-node counts, rolled up the chain.  Returns the
 * total over the eligible nodes (used when there is no key). */
static long bf_cached(bf *b, const wp_class *c);

static long bf_rollup(bf *b, const wp_class *c)
{
	const wp_problem *p = b->p;
	const wtp_topo *t = p->topo;
	long total = 0;
	if (b->prof && b->njr != (size_t)-1 && b->cprof[c - p->classes] >= 0)
		return bf_cached(b, c);
	b->cnt = b->cnt0;
	for (int i = 0; i < b->nchain; i++)
		b->state[b->chain[i]] = b->state0[b->chain[i]];

	for (int i = 0; i < b->nchain; i++)
		memset(b->state[b->chain[i]], 0,
		       t->keys[b->chain[i]].ndom * sizeof(int));
	for (int k = 0; k < c->nelig; k++) {
		int n = c->elig[k];
		b->cnt[n] = fit_count(p, b->fr, c, n);
		total += b->cnt[n];
	}
	if (b->nchain == 0)
		return total;
	const wtp_key *leaf = &t->keys[b->chain[b->nchain - 1]];
	int *ls = b->state[b->chain[b->nchain - 1]];
	for (int k = 0; k < c->nelig; k++) {
		int n = c->elig[k];
		if (leaf->node_dom[n] >= 0)
			ls[leaf->node_dom[n]] += b->cnt[n];
	}
	for (int i = b->nchain - 1; i > 0; i--) {
		const wtp_key *ck = &t->keys[b->chain[i]];
		int *cs = b->state[b->chain[i]];
		int *ps = b->state[b->chain[i - 1]];
		for (int e = 0; e < ck->ndom; e++)
			if (ck->dom_parent[e] >= 0)
				ps[ck->dom_parent[e]] += cs[e];
	}
	return total;
}

static void bf_clear_cnt(bf *b, const wp_class *c)
{
	if (b->cnt != b->cnt0)
		return; /* a profile's: kept */
	for (int k = 0; k < c->nelig; k++)
		b->cnt[c->elig[k]] = 0;
}

/* Add dv to the count of node n in profile P's states, up each path of
 * nested keys from its finest key (bf_rollup's sums, kept). */
static void prof_add(bf *b, bf_prof *P, int n, int dv)
{
	const wtp_topo *t = b->p->topo;
	for (int L = 0; t && L < t->nkeys; L++) {
		if (b->finer[L] >= 0)
			continue;
		int e = t->keys[L].node_dom[n], cur = L;
		if (e < 0)
			continue;
		P->st[L][e] += dv;
		for (;;) {
			int j = t->keys[cur].parent;
			if (j < 0 || b->finer[j] != cur)
				break;
			e = t->keys[cur].dom_parent[e];
			if (e < 0)
				break;
			P->st[j][e] += dv;
			cur = j;
		}
	}
}

/* bf_rollup through class c's profile: the nodes changed since the
 * profile last looked are recounted and their change rolled up; b->cnt
 * and the chain's states point into the profile. */
static long bf_cached(bf *b, const wp_class *c)
{
	const wp_problem *p = b->p;
	bf_prof *P = &b->prof[b->cprof[c - p->classes]];
	const wp_class *pc = &p->classes[P->c];
	if (!P->cnt) {
		/* first use: counted as bf_rollup does, for every key */
		const wtp_topo *t = p->topo;
		P->cnt = wa_calloc(b->a, (size_t)p->nnodes + 1, sizeof(int));
		P->st = wa_calloc(b->a, (size_t)(t ? t->nkeys : 0) + 1,
				  sizeof(int *));
		if (!P->cnt || !P->st) {
			b->njr = (size_t)-1;
			return bf_rollup(b, c);
		}
		for (int j = 0; t && j < t->nkeys; j++)
			if (!(P->st[j] = wa_calloc(b->a, (size_t)t->keys[j].ndom
						   + 1, sizeof(int)))) {
				b->njr = (size_t)-1;
				return bf_rollup(b, c);
			}
		for (int k = 0; k < pc->nelig; k++) {
			int n = pc->elig[k];
			P->cnt[n] = fit_count(p, b->fr, pc, n);
			P->total += P->cnt[n];
			if (P->cnt[n])
				prof_add(b, P, n, P->cnt[n]);
		}
		P->seen = b->njr;
	}
	for (; P->seen < b->njr; P->seen++) {
		int n = b->jr[P->seen];
		if (wp_slot(p, P->c, n) < 0)
			continue;
		int f = fit_count(p, b->fr, pc, n), dv = f - P->cnt[n];
		if (!dv)
			continue;
		P->cnt[n] = f;
		P->total += dv;
		prof_add(b, P, n, dv);
	}
	b->cnt = P->cnt;
	for (int i = 0; i < b->nchain; i++)
		b->state[b->chain[i]] = P->st[b->chain[i]];
	return P->total;
}

/* The profiles of the classes (bf_cached), within WBL_PROF_MEM.  -1 on
 * NOMEM. */
static int bf_profiles(bf *b)
{
	const wp_problem *p = b->p;
	const wtp_topo *t = p->topo;
	size_t per = (size_t)p->nnodes + 1;
	for (int j = 0; t && j < t->nkeys; j++)
		per += (size_t)t->keys[j].ndom + 1;
	per *= sizeof(int);
	b->cprof = wa_calloc(b->a, (size_t)p->nclasses + 1, sizeof(int));
	b->prof = wa_calloc(b->a, (size_t)p->nclasses + 1, sizeof *b->prof);
	if (!b->cprof || !b->prof)
		return -1;
	size_t cap = 16;
	while (cap < 2 * (size_t)p->nclasses + 16)
		cap *= 2;
	int *tab = wa_calloc(b->a, cap, sizeof *tab);
	if (!tab)
		return -1;
	size_t mem = 0;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		uint64_t h = (uint64_t)(uintptr_t)cl->elig * 0x9e3779b97f4a7c15ULL;
		for (int r = 0; r < p->nres; r++)
			h = (h ^ (uint64_t)cl->req[r]) * 0xff51afd7ed558ccdULL;
		size_t j = (size_t)(h >> 17) & (cap - 1);
		b->cprof[c] = -1;
		while (tab[j]) {
			const wp_class *o = &p->classes[b->prof[tab[j] - 1].c];
			if (o->elig == cl->elig &&
			    !memcmp(o->req, cl->req, (size_t)p->nres *
				    sizeof *cl->req)) {
				b->cprof[c] = tab[j] - 1;
				break;
			}
			j = (j + 1) & (cap - 1);
		}
		if (b->cprof[c] >= 0 || mem + per > WBL_PROF_MEM)
			continue;
		mem += per;
		b->prof[b->nprof] = (bf_prof){.c = c};
		tab[j] = ++b->nprof;
		b->cprof[c] = b->nprof - 1;
	}
	return 0;
}

/* pool[i] before pool[j] in item_cmp order, as a min-heap (bf_take). */
static void bl_sift(bl_item *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && item_cmp(&h[l], &h[m]) < 0)
			m = l;
		if (r < n && item_cmp(&h[r], &h[m]) < 0)
			m = r;
		if (m == i)
			return;
		bl_item t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Take the elements of pool[0..n) most free first, name rank breaking
 * ties, until `need` is covered, the last one replaced by the tightest
 * that fits the remainder (Kueue's updateCountsToMinimum).  Writes the
 * chosen elements to out (and their quotas to quota, may be NULL);
 * returns how many, or -1 if the pool cannot cover need.  A heap gives
 * the elements in the order a full sort would, taking only what is used
 * (the pool is left in heap order). */
static int bf_take(bl_item *pool, int n, int need, int *out, int *quota)
{
	int m = 0;
	int rem = need;

	for (int i = n / 2 - 1; i >= 0; i--)
		bl_sift(pool, n, i);
	while (n > 0 && rem > 0) {
		int st = (int)-pool[0].key;
		if (st <= 0)
			break;
		if (st >= rem) {
			/* the tightest of the rest that covers rem: the first
			 * in sorted order among the fewest slots */
			int best = 0;
			for (int j = 1; j < n; j++) {
				int sj = (int)-pool[j].key;
				int sb = (int)-pool[best].key;
				if (sj >= rem && (sj < sb || (sj == sb &&
				    item_cmp(&pool[j], &pool[best]) < 0)))
					best = j;
			}
			out[m] = pool[best].elem;
			if (quota)
				quota[m] = rem;
			return m + 1;
		}
		out[m] = pool[0].elem;
		if (quota)
			quota[m] = st;
		m++;
		rem -= st;
		pool[0] = pool[--n];
		bl_sift(pool, n, 0);
	}
	return rem > 0 ? -1 : m;
}

/* Phase 2b for class c (ci its problem index), `need` pods, below the
 * chosen domain `dom` of chain[0] (dom < 0: no key, the whole cluster).
 * Uses the counts of the last bf_rollup.  0 on success, 1 if the pods do
 * not fit, -1 on NOMEM. */
static int bf_descend(bf *b, wp_sol *sol, int ci, int dom, int need)
{
	const wp_problem *p = b->p;
	const wtp_topo *t = p->topo;
	const wp_class *c = &p->classes[ci];
	int ncur = 0, np;

	if (dom >= 0)
		b->cur[ncur++] = dom;
	for (int lv = 0; lv < b->nchain; lv++) {
		const wtp_key *k = &t->keys[b->chain[lv]];
		if (lv + 1 < b->nchain) {
			int f = b->chain[lv + 1];
			const int *st = b->state[f];
			np = 0;
			for (int i = 0; i < ncur; i++) {
				int d = b->cur[i];
				const int *off = b->kid_off[b->chain[lv]];
				for (int e = off[d]; e < off[d + 1]; e++) {
					int kd = b->kids[b->chain[lv]][e];
					if (st[kd] <= 0)
						continue;
					b->pool[np].key = -(int64_t)st[kd];
					b->pool[np].rank = b->dom_rank[f][kd];
					b->pool[np].elem = kd;
					np++;
				}
			}
			ncur = bf_take(b->pool, np, need, b->next, NULL);
			if (ncur < 0)
				return 1;
			memcpy(b->cur, b->next, ncur * sizeof *b->cur);
			continue;
		}
		/* The finest key: its nodes are the next level. */
		np = 0;
		for (int i = 0; i < ncur; i++) {
			int d = b->cur[i];
			for (int j = 0; j < k->dom_nnodes[d]; j++) {
				int n = k->dom_nodes[d][j];
				if (b->cnt[n] <= 0)
					continue;
				b->pool[np].key = -(int64_t)b->cnt[n];
				b->pool[np].rank = b->node_rank[n];
				b->pool[np].elem = n;
				np++;
			}
		}
		ncur = -2;
		break;
	}
	if (ncur != -2) {
		/* No key: every eligible node is a candidate. */
		np = 0;
		for (int j = 0; j < c->nelig; j++) {
			int n = c->elig[j];
			if (b->cnt[n] <= 0)
				continue;
			b->pool[np].key = -(int64_t)b->cnt[n];
			b->pool[np].rank = b->node_rank[n];
			b->pool[np].elem = n;
			np++;
		}
	}
	/* quotas go to `cur` reused as scratch after the node ids in next */
	int m = bf_take(b->pool, np, need, b->next, b->cur);
	if (m < 0)
		return 1;
	for (int i = 0; i < m; i++) {
		int n = b->next[i], q = b->cur[i];
		int k = wp_slot(p, ci, n);
		if (k < 0)
			return 1; /* cannot happen: pool holds eligible nodes */
		k -= c->off;
		wp_x_add(sol, c->off + k, q);
		take(p, b->fr, c, n, q);
		if (b->cnt == b->cnt0)
			b->cnt[n] -= q;
		else if (bf_note(b, n))
			b->njr = (size_t)-1;
		if (bf_log(b, c->off + k, n, ci, q))
			return -1;
	}
	return 0;
}

/* Counts per class for `total` pods of the group, classes in order. */
static void split_counts(const wp_problem *p, const wp_group *g, int total,
			 int *n)
{
	for (int i = 0; i < g->nclasses; i++) {
		int c = p->classes[g->classes[i]].count;
		n[i] = c < total ? c : total;
		total -= n[i];
	}
}

/* Try to place the counts n[] of group g in one domain of chain[0] (or
 * the cluster).  1 placed, 0 not, -1 NOMEM.  *room gets the most pods the
 * roomiest domain fits, for the reason. */
static int bf_try(bf *b, const wp_group *g, const int *n, wp_sol *sol,
		  int *kst, long *room)
{
	const wp_problem *p = b->p;
	const wtp_topo *t = p->topo;
	int ndom = b->nchain ? t->keys[b->chain[0]].ndom : 1;
	int nc = g->nclasses;

	/* Phase 1 for every class, kept at the required level. */
	for (int i = 0; i < nc; i++) {
		const wp_class *c = &p->classes[g->classes[i]];
		long tot = bf_rollup(b, c);
		bf_clear_cnt(b, c);
		for (int d = 0; d < ndom; d++)
			kst[i * ndom + d] = b->nchain ? b->state[b->chain[0]][d]
				: (int)(tot < WBL_MAX_FIT ? tot : WBL_MAX_FIT);
	}
	/* Candidates: domains where each class fits on its own, tightest
	 * first (Kueue's findBestFitDomain), name breaking ties. */
	int np = 0;
	*room = 0;
	for (int d = 0; d < ndom; d++) {
		if (b->nchain && g->fixed_dom >= 0 && d != g->fixed_dom)
			continue;
		long sum = 0;
		int ok = 1;
		for (int i = 0; i < nc; i++) {
			sum += kst[i * ndom + d];
			if (kst[i * ndom + d] < n[i])
				ok = 0;
		}
		if (sum > *room)
			*room = sum;
		if (!ok)
			continue;
		b->cand[np].key = sum;
		b->cand[np].rank = b->nchain ? b->dom_rank[b->chain[0]][d] : 0;
		b->cand[np].elem = d;
		np++;
	}
	/* Tightest first, lazily: a heap gives the order a sort would,
	 * and most groups place in (or fail before) their first domain.
	 * (bf_descend uses pool: the heap lives in cand.) */
	bl_item *cand = b->cand;
	for (int i = np / 2 - 1; i >= 0; i--)
		bl_sift(cand, np, i);
	for (int ti = 0; np > 0 && ti < WBL_MAX_TRIES; ti++) {
		int d = cand[0].elem, fits = 1;
		cand[0] = cand[--np];
		bl_sift(cand, np, 0);
		size_t mark = b->nlog;
		for (int i = 0; i < nc && fits; i++) {
			int ci = g->classes[i];
			const wp_class *c = &p->classes[ci];
			if (n[i] == 0)
				continue;
			long tot = bf_rollup(b, c);
			long have = b->nchain ? b->state[b->chain[0]][d] : tot;
			int r = have >= n[i] ? bf_descend(b, sol, ci,
				b->nchain ? d : -1, n[i]) : 1;
			bf_clear_cnt(b, c);
			if (r < 0)
				return -1;
			if (r > 0)
				fits = 0;
		}
		if (fits)
			return 1;
		bf_rollback(b, sol, mark);
	}
	return 0;
}

static int bestfit(const wp_problem *p, const wasp_options *o, wa_arena *a,
		   int64_t *fr, wp_sol *sol, wasp_error *err)
{
	const wtp_topo *t = p->topo;
	bf b;
	int maxnc = 1, maxdom = 1;

	if (bf_init(&b, p, a, fr))
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int gi = 0; gi < p->ngroups; gi++)
		if (p->groups[gi].nclasses > maxnc)
			maxnc = p->groups[gi].nclasses;
	for (int j = 0; t && j < t->nkeys; j++)
		if (t->keys[j].ndom > maxdom)
			maxdom = t->keys[j].ndom;
	int *n = wa_calloc(a, maxnc, sizeof *n);
	int *kst = wa_calloc(a, (size_t)maxnc * maxdom, sizeof *kst);
	if (!n || !kst)
		return werr(err, WASP_ENOMEM, "out of memory");

	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		const char *label = NULL;
		long room = 0;
		int r;

		if (o && o->cancel && *o->cancel) {
			sol->reason[gi] = "cancelled before it was tried";
			continue;
		}
		if (g->invalid) {
			sol->reason[gi] = g->invalid;
			continue;
		}
		if (g->size <= 0)
			continue;
		const char *why = waits_why(p, g);
		if (why && g->gang) {
			sol->reason[gi] = why;
			continue;
		}
		if (g->key >= 0 && t && g->key < t->nkeys) {
			label = t->keys[g->key].label;
			if (g->fixed_dom == -2) {
				sol->reason[gi] = wa_printf(p->arena,
				    "bestfit: its running pods span several "
				    "%s domains", label);
				continue;
			}
			bf_chain(&b, g->key);
		} else {
			b.nchain = 0;
		}
		/* All pending pods, else as many as fit (down to the gang's
		 * minimum, or one pod for a basic group). */
		int lo = g->gang ? g->min_need : 1;
		if (lo < 1)
			lo = 1;
		split_counts(p, g, g->size, n);
		r = bf_try(&b, g, n, sol, kst, &room);
		if (r == 0 && room >= lo && room < g->size) {
			split_counts(p, g, (int)room, n);
			r = bf_try(&b, g, n, sol, kst, &room);
		}
		if (r == 0 && g->nclasses > 1 && lo < g->size) {
			split_counts(p, g, lo, n);
			r = bf_try(&b, g, n, sol, kst, &room);
		}
		if (r < 0)
			return werr(err, WASP_ENOMEM, "out of memory");
		b.nlog = 0;
		if (r > 0) {
			sol->admit[gi] = 1;
			continue;
		}
		if (why)
			sol->reason[gi] = why;
		else if (label)
			sol->reason[gi] = wa_printf(p->arena,
			    "bestfit: no %s domain has room for %d pods "
			    "(the roomiest fits %ld)", label, lo, room);
		else
			sol->reason[gi] = wa_printf(p->arena,
			    "bestfit: the cluster has room for %ld of the "
			    "%d pods it needs", room, lo);
		if (!sol->reason[gi])
			return werr(err, WASP_ENOMEM, "out of memory");
	}
	return WASP_OK;
}

/* ------------------------------------------------------------ entry */

int wbl_solve(const wp_problem *p, int mode, const wasp_options *o,
	      wp_sol *sol, wasp_error *err)
{
	if (!p || !sol)
		return werr(err, WASP_EINVAL, "wbl_solve: no problem or solution");
	if (mode != WASP_MODE_PODWISE && mode != WASP_MODE_BESTFIT)
		return werr(err, WASP_EINVAL, "wbl_solve: mode %d is not a "
			    "baseline", mode);
	wa_arena *a = wa_new();
	size_t nf = (size_t)p->nnodes * p->nres;
	int64_t *fr = a ? wa_calloc(a, nf ? nf : 1, sizeof *fr) : NULL;
	if (!fr) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	if (nf)
		memcpy(fr, p->free, nf * sizeof *fr);
	int rc = mode == WASP_MODE_PODWISE ? podwise(p, o, a, fr, sol, err)
					   : bestfit(p, o, a, fr, sol, err);
	wa_destroy(a);
	return rc;
}

bool wbl_models(const wp_problem *p)
{
	if (p->ncomps > 0 || p->snap->dra)
		return false;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].tas || p->groups[g].pcomp)
			return false;
	return true;
}
