/*
 * pcache.c -- the victim search's memo per domain (doc/preemption.md,
 * "The domain index": the memo).
 *
 * The victim search in one domain (preempt.c, pe_domain) is a function of
 * the question -- the class profile of a one-class group, its priority,
 * the pods it needs and may place -- and of the domain's state: the room
 * of its nodes and which units with a pod there are still running.
 * Similar groups come one after the other (order.c sorts by priority,
 * then by shape), and each searches most domains of its key, of which
 * only the few the last admission changed have moved.  So the answer of a
 * trial search (pods placed or -1, and the cost) is kept per domain with
 * a fingerprint of the domain's state, and a later identical question on
 * a domain whose fingerprint is unchanged takes it instead of searching.
 *
 * The answer also depends on things outside the domain, which the memo
 * excludes instead of fingerprinting: PodDisruptionBudgets,
 * --max-evictions, moves, the per-pod rest of a basic group, and nodes
 * with negative room anywhere (the reprieve checks every node of a
 * victim, inside the domain or not; with no node below zero, those
 * outside always pass).  Device claims are served where the devices
 * keep to their nodes (wgr_dev_local): then the fingerprint also takes
 * the use count of every device of the domain's nodes, and a victim's
 * devices outside the domain come back as they were.
 * wgr_solve_checked searches on every hit anyway and counts the answers
 * that differ.
 */
#include "solve/greedy/greedy_int.h"

#include <string.h>

/* Answers kept per domain (the most recent questions). */
#define PC_WAYS 8

typedef struct pcent {
	uint64_t fp;        /* the domain's fingerprint                */
	int prof;           /* the question: class profile (cinfo.prof) */
	int32_t prio;
	int mpods, need;
	int r;              /* the answer: pods placed, -1 none        */
	wgr_pecost cost;
	bool used;
} pcent;

struct wgr_pcache {
	pcent **e;          /* per key: ndom * PC_WAYS                  */
	unsigned char **next; /* per key, per domain: the way replaced next */
	uint64_t **fp;      /* per key, per domain: the last fingerprint, */
	uint32_t **fpv;     /* taken at this placement version (dver)    */
	int nkeys;
};

/* Can group wg's search in a domain of k use the memo?  *q: the
 * question. */
bool wgr_pc_question(const gs *G, const wp_group *wg, const wtp_key *k,
		     int need, int limit, wgr_pcq *q)
{
	const wp_problem *p = G->p;
	if (!k || wg->nclasses != 1 || (G->dra && !G->dev_local) ||
	    p->nmcls > 0 || p->snap->npdbs > 0 || p->max_evictions > 0 ||
	    G->pe_rest > 0 || G->pe_only_dom >= 0 || G->nneg > 0)
		return false;
	int c = wg->classes[0];
	const wdr_podc *pc = G->cpc ? G->cpc[c] : NULL;
	for (int i = 0; pc && i < pc->n; i++)
		if (pc->c[i].inst >= 0)
			return false; /* a shared claim: state of its own */
	int64_t m = p->classes[c].count;
	if (m > limit)
		m = limit;
	*q = (wgr_pcq){G->ci[c].prof, wg->priority, (int)m, need};
	return true;
}

static uint64_t pc_print(const gs *G, const wtp_key *k, int d);
static struct wgr_pcache *pc_get(gs *G);

/* The fingerprint of domain d of k: every node's room, for every unit
 * with a pod there whether it still runs and, with device claims, the
 * use count of every device of its nodes.  Kept while the domain's
 * placement version (G->dver: every change of a node's room bumps it,
 * an eviction changes the room of its pods' nodes, and with local
 * devices a device changes hands only with its node's room) stays;
 * wgr_pc_forget drops them all. */
uint64_t wgr_pc_print(gs *G, const wtp_key *k, int d)
{
	int ki = (int)(k - G->p->topo->keys);
	struct wgr_pcache *C = pc_get(G);
	if (!C)
		return pc_print(G, k, d);
	if (!C->fp[ki]) {
		C->fp[ki] = wa_calloc(G->tmp, (size_t)k->ndom + 1,
				      sizeof **C->fp);
		C->fpv[ki] = wa_calloc(G->tmp, (size_t)k->ndom + 1,
				       sizeof **C->fpv);
		if (!C->fp[ki] || !C->fpv[ki]) {
			C->fp[ki] = NULL;
			return pc_print(G, k, d);
		}
	}
	/* versions start at 1: 0 is never current */
	if (C->fpv[ki][d] != G->dver[ki][d]) {
		C->fp[ki][d] = pc_print(G, k, d);
		C->fpv[ki][d] = G->dver[ki][d];
	}
	return C->fp[ki][d];
}

static uint64_t pc_print(const gs *G, const wtp_key *k, int d)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ (uint64_t)d;
	const int *nodes = k->dom_nodes[d];
	for (int j = 0; j < k->dom_nnodes[d]; j++) {
		int n = nodes[j];
		const int64_t *f = G->fr + (size_t)n * G->nres;
		h = wgr_mix(h, (uint64_t)n);
		for (int r = 0; r < G->nres; r++)
			h = wgr_mix(h, (uint64_t)f[r]);
		for (int e = G->pe_start[n]; e < G->pe_start[n + 1]; e++)
			h = wgr_mix(h, (uint64_t)G->pe_list[e] * 2 +
					   (G->sol->evict[G->pe_list[e]] ? 1 : 0));
	}
	const ws_dra *dd = G->dra ? G->dra->d : NULL;
	for (int j = 0; dd && j < k->dom_nnodes[d]; j++)
		for (int i = dd->node_first[nodes[j]];
		     i < dd->node_first[nodes[j] + 1]; i++)
			h = wgr_mix(h, G->dra->taken[dd->node_devs[i]]);
	return h;
}

void wgr_pc_forget(gs *G)
{
	struct wgr_pcache *C = G->pc;
	for (int ki = 0; C && ki < C->nkeys; ki++)
		if (C->fpv[ki])
			memset(C->fpv[ki], 0,
			       (size_t)G->p->topo->keys[ki].ndom *
				   sizeof **C->fpv);
}

static struct wgr_pcache *pc_get(gs *G)
{
	struct wgr_pcache *C = G->pc;
	if (!C) {
		const wtp_topo *t = G->p->topo;
		C = wa_calloc(G->tmp, 1, sizeof *C);
		if (!C)
			return NULL;
		C->nkeys = t->nkeys;
		C->e = wa_calloc(G->tmp, (size_t)t->nkeys + 1, sizeof *C->e);
		C->next = wa_calloc(G->tmp, (size_t)t->nkeys + 1,
				    sizeof *C->next);
		C->fp = wa_calloc(G->tmp, (size_t)t->nkeys + 1, sizeof *C->fp);
		C->fpv = wa_calloc(G->tmp, (size_t)t->nkeys + 1,
				   sizeof *C->fpv);
		if (!C->e || !C->next || !C->fp || !C->fpv)
			return NULL;
		G->pc = C;
	}
	return C;
}

static pcent *pc_ways(gs *G, int ki, int d)
{
	struct wgr_pcache *C = pc_get(G);
	if (!C)
		return NULL;
	if (!C->e[ki]) {
		int nd = G->p->topo->keys[ki].ndom;
		C->e[ki] = wa_calloc(G->tmp, (size_t)nd * PC_WAYS + 1,
				     sizeof **C->e);
		C->next[ki] = wa_calloc(G->tmp, (size_t)nd + 1, 1);
		if (!C->e[ki] || !C->next[ki]) {
			C->e[ki] = NULL;
			return NULL;
		}
	}
	return C->e[ki] + (size_t)d * PC_WAYS;
}

static bool pc_same(const pcent *e, const wgr_pcq *q)
{
	return e->used && e->prof == q->prof && e->prio == q->prio &&
	       e->mpods == q->mpods && e->need == q->need;
}

bool wgr_pc_get(gs *G, int ki, int d, const wgr_pcq *q, uint64_t fp,
		int *r, wgr_pecost *cost)
{
	pcent *w = pc_ways(G, ki, d);
	for (int i = 0; w && i < PC_WAYS; i++)
		if (pc_same(&w[i], q) && w[i].fp == fp) {
			*r = w[i].r;
			*cost = w[i].cost;
			return true;
		}
	return false;
}

void wgr_pc_put(gs *G, int ki, int d, const wgr_pcq *q, uint64_t fp, int r,
		const wgr_pecost *cost)
{
	pcent *w = pc_ways(G, ki, d);
	if (!w)
		return; /* no memory: no memo, the same answers */
	int i = 0;
	while (i < PC_WAYS && !pc_same(&w[i], q))
		i++;
	if (i == PC_WAYS) {
		unsigned char *nx = &G->pc->next[ki][d];
		i = *nx;
		*nx = (unsigned char)((*nx + 1) % PC_WAYS);
	}
	w[i] = (pcent){fp, q->prof, q->prio, q->mpods, q->need, r, *cost,
		       true};
}

/* Node n's room changed: keep the count of nodes below zero. */
void wgr_pc_neg(gs *G, int n)
{
	if (!G->neg)
		return;
	const int64_t *f = G->fr + (size_t)n * G->nres;
	unsigned char v = 0;
	for (int r = 0; r < G->nres && !v; r++)
		v = f[r] < 0;
	if (v != G->neg[n]) {
		G->nneg += v ? 1 : -1;
		G->neg[n] = v;
	}
}

/* Do the devices keep to their nodes?  When every device belongs to
 * one node (none shared by nodes, shareable or consuming counters), no
 * device is allocated twice, and every allocated claim a running pod
 * holds is that pod's alone with its devices on the pod's node: a
 * placement, an eviction or a take-back (dv_level, on the evicted pods'
 * nodes, which level_enter touches) changes devices only on nodes whose
 * version it bumps, and a victim search's victim restored outside the
 * domain takes back exactly the devices it freed there (the reprieve
 * sees no clash).  The memo may then serve device claims, and the
 * waiting reasons sum device fits by node version. */
bool wgr_dev_local(const gs *G)
{
	const ws_snapshot *s = G->s;
	const ws_dra *d = s->dra;
	if (!d || d->nglobal > 0 || d->nctrs > 0)
		return false;
	for (int v = 0; v < d->ndevs; v++)
		if (d->devs[v].multi || d->devs[v].nuses ||
		    (d->taken0 && d->taken0[v] > 1))
			return false;
	for (int pi = 0; d->held_beg && pi < s->npods; pi++)
		for (int h = d->held_beg[pi]; h < d->held_beg[pi + 1]; h++) {
			const wdr_spec *sp = &d->specs[d->held[h]];
			if (sp->nholders != 1 || sp->holders[0] != pi)
				return false;
			for (int j = 0; j < sp->nalloc; j++)
				if (d->devs[sp->alloc_dev[j]].reach.node !=
				    s->pods[pi].node)
					return false;
		}
	return true;
}

int wgr_pc_setup(gs *G)
{
	G->neg = wa_calloc(G->tmp, (size_t)G->nn + 1, 1);
	if (!G->neg)
		return -1;
	G->nneg = 0;
	for (int n = 0; n < G->nn; n++) {
		G->neg[n] = 0;
		wgr_pc_neg(G, n);
	}
	return 0;
}
