/*
 * problem.c -- the reduction: snapshot + topology -> wp_problem (see
 * problem.h), and the solver-neutral pieces every solver shares: solution
 * storage, the lexicographic objective and a feasibility check.
 *
 * Pending pods collapse into classes (same group, requests, selector,
 * affinity, tolerations, priority).  Eligibility is computed once per
 * distinct (selector, affinity, tolerations) and then filtered per distinct
 * request vector, so thousands of gangs built from one pod template share
 * one eligible-node array (classes may point at the same `elig`; it is
 * read-only).  The parallel loops write only their own slots; arena
 * allocation happens serially, so the result does not depend on the
 * thread count.
 */
#include "reduce/problem.h"
#include "reduce/units.h"
#include "reduce/movable.h"
#include "model/dra.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Reasons listed in why_none (the commonest first). */
#define WP_WHY_MAX 4

/* ------------------------------------------------------------ hashing */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hstr(uint64_t h, const char *s)
{
	uint64_t x = 1469598103934665603ULL;
	for (; s && *s; s++)
		x = (x ^ (unsigned char)*s) * 1099511628211ULL;
	return mix(h, x);
}

static bool streq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static uint64_t hash_static(const ws_pod *p)
{
	uint64_t h = mix(0, (uint64_t)p->nselector);
	for (int i = 0; i < p->nselector; i++)
		h = hstr(hstr(h, p->selector[i].key), p->selector[i].val);
	h = mix(h, (uint64_t)p->naffinity);
	for (int t = 0; t < p->naffinity; t++) {
		const ws_term *tm = &p->affinity[t];
		h = mix(h, (uint64_t)tm->nexprs);
		for (int e = 0; e < tm->nexprs; e++) {
			const ws_expr *x = &tm->exprs[e];
			h = mix(hstr(h, x->key), (uint64_t)x->op);
			h = mix(mix(h, (uint64_t)x->num), x->field);
			for (int v = 0; v < x->nvals; v++)
				h = hstr(h, x->vals[v]);
		}
	}
	h = mix(h, (uint64_t)p->ntolerations);
	for (int i = 0; i < p->ntolerations; i++) {
		const ws_toleration *t = &p->tolerations[i];
		h = hstr(hstr(h, t->key), t->val);
		h = mix(mix(h, t->exists), (uint64_t)t->effect);
	}
	return h;
}

static bool eq_static(const ws_pod *a, const ws_pod *b)
{
	if (a->nselector != b->nselector || a->naffinity != b->naffinity ||
	    a->ntolerations != b->ntolerations)
		return false;
	for (int i = 0; i < a->nselector; i++)
		if (!streq(a->selector[i].key, b->selector[i].key) ||
		    !streq(a->selector[i].val, b->selector[i].val))
			return false;
	for (int t = 0; t < a->naffinity; t++) {
		const ws_term *x = &a->affinity[t], *y = &b->affinity[t];
		if (x->nexprs != y->nexprs)
			return false;
		for (int e = 0; e < x->nexprs; e++) {
			const ws_expr *p = &x->exprs[e], *q = &y->exprs[e];
			if (!streq(p->key, q->key) || p->op != q->op ||
			    p->nvals != q->nvals || p->num != q->num ||
			    p->field != q->field)
				return false;
			for (int v = 0; v < p->nvals; v++)
				if (!streq(p->vals[v], q->vals[v]))
					return false;
		}
	}
	for (int i = 0; i < a->ntolerations; i++) {
		const ws_toleration *p = &a->tolerations[i],
				    *q = &b->tolerations[i];
		if (!streq(p->key, q->key) || p->exists != q->exists ||
		    !streq(p->val, q->val) || p->effect != q->effect)
			return false;
	}
	return true;
}

static uint64_t hash_req(uint64_t h, const int64_t *req, int nres)
{
	for (int r = 0; r < nres; r++)
		h = mix(h, (uint64_t)req[r]);
	return h;
}

static bool eq_req(const int64_t *a, const int64_t *b, int nres)
{
	return !memcmp(a, b, (size_t)nres * sizeof *a);
}

/* An open-addressing table of item indices; the caller compares. */
typedef struct itab {
	uint64_t *hash;
	int *idx; /* item + 1; 0 = empty */
	size_t mask;
} itab;

static int itab_init(itab *t, wa_arena *a, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 16)
		cap *= 2;
	t->hash = wa_calloc(a, cap, sizeof *t->hash);
	t->idx = wa_calloc(a, cap, sizeof *t->idx);
	t->mask = cap - 1;
	return t->hash && t->idx ? 0 : -1;
}

/* ------------------------------------------------------------ reduce */

typedef struct proto {
	int sg;       /* snapshot group, -1: lone pods */
	int order;    /* input order                  */
	int32_t prio;
	int *pods;    /* pending pods, input order    */
	int npods;
	size_t cap;
} proto;

typedef struct red {
	const ws_snapshot *s;
	const wtp_topo *t;
	wa_arena *a, *tmp;
	wp_problem *p;
	int nres;
} red;

/* DRA: pods with different claim lists never share a class. */
static int dra_sig(const ws_snapshot *s, const ws_pod *x)
{
	return s->dra ? s->dra->pods[x - s->pods].sig : 0;
}

static bool same_class(const ws_snapshot *s, const ws_pod *x,
		       const ws_pod *y, int nres)
{
	return x->priority == y->priority && eq_req(x->req, y->req, nres) &&
	       eq_static(x, y) && dra_sig(s, x) == dra_sig(s, y);
}

static uint64_t hash_class(const ws_snapshot *s, const ws_pod *x, int nres)
{
	return hash_req(mix(mix(hash_static(x),
				(uint64_t)(uint32_t)x->priority),
			    (uint64_t)dra_sig(s, x)),
			x->req, nres);
}

static int cmp_proto(const void *va, const void *vb)
{
	const proto *a = va, *b = vb;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* Groups: one per snapshot group with pending pods, one per distinct lone
 * class; sorted by priority (desc) then input order. */
static int make_protos(red *r, proto **out, int *nout)
{
	const ws_snapshot *s = r->s;
	int np = 0;
	proto *pr = wa_calloc(r->tmp, (size_t)s->ngroups + s->npods + 1,
			      sizeof *pr);
	if (!pr)
		return -1;
	for (int g = 0; g < s->ngroups; g++) {
		const ws_group *sg = &s->groups[g];
		int n = 0;
		for (int i = 0; i < sg->npods; i++)
			n += ws_pod_pending(&s->pods[sg->pods[i]]);
		if (n == 0)
			continue;
		proto *q = &pr[np++];
		q->sg = g;
		q->order = g;
		q->prio = sg->priority;
		q->pods = wa_calloc(r->tmp, (size_t)n, sizeof(int));
		if (!q->pods)
			return -1;
		for (int i = 0; i < sg->npods; i++)
			if (ws_pod_pending(&s->pods[sg->pods[i]]))
				q->pods[q->npods++] = sg->pods[i];
	}
	itab tab;
	if (itab_init(&tab, r->tmp, (size_t)s->npods))
		return -1;
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *pod = &s->pods[i];
		if (pod->group >= 0 || !ws_pod_pending(pod))
			continue;
		uint64_t h = hash_class(s, pod, r->nres);
		size_t j = h & tab.mask;
		proto *q = NULL;
		while (tab.idx[j]) {
			proto *c = &pr[tab.idx[j] - 1];
			if (tab.hash[j] == h &&
			    same_class(s, &s->pods[c->pods[0]], pod,
				       r->nres)) {
				q = c;
				break;
			}
			j = (j + 1) & tab.mask;
		}
		if (!q) {
			q = &pr[np];
			tab.hash[j] = h;
			tab.idx[j] = ++np;
			q->sg = -1;
			q->order = s->ngroups + i;
			q->prio = pod->priority;
		}
		if (WA_PUSH(r->tmp, q->pods, q->npods, q->cap, i))
			return -1;
	}
	*out = pr;
	*nout = np;
	return 0;
}

/* Classes of every group, in group order, then first appearance. */
typedef struct cbuild {
	int group;
	int *pods;
	int n;
	size_t cap;
} cbuild;

static int make_classes(red *r, const proto *pr, int np, cbuild **out,
			int *nout)
{
	const ws_snapshot *s = r->s;
	int total = 0;
	for (int g = 0; g < np; g++)
		total += pr[g].npods;
	cbuild *cb = wa_calloc(r->tmp, (size_t)total + 1, sizeof *cb);
	itab tab;
	if (!cb || itab_init(&tab, r->tmp, (size_t)total))
		return -1;
	int nc = 0;
	for (int g = 0; g < np; g++) {
		for (int i = 0; i < pr[g].npods; i++) {
			int pi = pr[g].pods[i];
			const ws_pod *pod = &s->pods[pi];
			uint64_t h = mix(hash_class(s, pod, r->nres),
					 (uint64_t)g);
			size_t j = h & tab.mask;
			cbuild *c = NULL;
			while (tab.idx[j]) {
				cbuild *x = &cb[tab.idx[j] - 1];
				if (tab.hash[j] == h && x->group == g &&
				    same_class(s, &s->pods[x->pods[0]], pod,
					       r->nres)) {
					c = x;
					break;
				}
				j = (j + 1) & tab.mask;
			}
			if (!c) {
				c = &cb[nc];
				tab.hash[j] = h;
				tab.idx[j] = ++nc;
				c->group = g;
			}
			if (WA_PUSH(r->tmp, c->pods, c->n, c->cap, pi))
				return -1;
		}
	}
	*out = cb;
	*nout = nc;
	return 0;
}

/* One reason a node rejects a pod, counted over the nodes. */
typedef struct whyc {
	const char *what;
	int n;
	int first;
} whyc;

static int cmp_why(const void *va, const void *vb)
{
	const whyc *a = va, *b = vb;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

/* Why no node is eligible for `pod`: the commonest rejections, in words
 * with counts ("untolerated taint on 12 nodes; insufficient
 * nvidia.com/gpu on 4 nodes"). */
static const char *why_none(red *r, const ws_pod *pod)
{
	const ws_snapshot *s = r->s;
	if (s->nnodes == 0)
		return "the snapshot has no nodes";
	whyc *w = wa_calloc(r->tmp, (size_t)s->nnodes + 1, sizeof *w);
	if (!w)
		return NULL;
	int nw = 0;
	for (int n = 0; n < s->nnodes; n++) {
		const ws_node *nd = &s->nodes[n];
		const char *why = NULL;
		if (!ws_pod_fits_node_static(pod, nd, &why)) {
			if (!why)
				why = "not eligible";
		} else {
			for (int k = 0; k < r->nres; k++)
				if (nd->alloc[k] < pod->req[k]) {
					why = wa_printf(r->tmp,
							"insufficient %s",
							s->res[k]);
					if (!why)
						return NULL;
					break;
				}
		}
		if (!why)
			continue; /* cannot happen: the node was rejected */
		int i = 0;
		while (i < nw && strcmp(w[i].what, why))
			i++;
		if (i == nw)
			w[nw++] = (whyc){why, 0, n};
		w[i].n++;
	}
	qsort(w, (size_t)nw, sizeof *w, cmp_why);
	char *txt = "";
	for (int i = 0; i < nw && i < WP_WHY_MAX; i++) {
		txt = wa_printf(r->a, "%s%s%s on %d node%s", txt,
				i ? "; " : "", w[i].what, w[i].n,
				w[i].n == 1 ? "" : "s");
		if (!txt)
			return NULL;
	}
	if (nw > WP_WHY_MAX) {
		int rest = 0;
		for (int i = WP_WHY_MAX; i < nw; i++)
			rest += w[i].n;
		txt = wa_printf(r->a, "%s; other reasons on %d node%s", txt,
				rest, rest == 1 ? "" : "s");
	}
	return txt;
}

/* Eligible nodes per class: static fit per distinct (selector, affinity,
 * tolerations), then allocatable >= request per distinct request. */
static int eligibility(red *r, const cbuild *cb, int nc, int threads)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	int nn = s->nnodes, nres = r->nres;
	int *sig_of = wa_calloc(r->tmp, (size_t)nc + 1, sizeof(int));
	int *prof_of = wa_calloc(r->tmp, (size_t)nc + 1, sizeof(int));
	int *sig_rep = wa_calloc(r->tmp, (size_t)nc + 1, sizeof(int));
	int *prof_rep = wa_calloc(r->tmp, (size_t)nc + 1, sizeof(int));
	itab st, pt;
	if (!sig_of || !prof_of || !sig_rep || !prof_rep ||
	    itab_init(&st, r->tmp, (size_t)nc) ||
	    itab_init(&pt, r->tmp, (size_t)nc))
		return -1;
	int nsig = 0, nprof = 0;
	for (int c = 0; c < nc; c++) {
		const ws_pod *pod = &s->pods[cb[c].pods[0]];
		uint64_t h = hash_static(pod);
		size_t j = h & st.mask;
		while (st.idx[j] &&
		       !(st.hash[j] == h &&
			 eq_static(&s->pods[sig_rep[st.idx[j] - 1]], pod)))
			j = (j + 1) & st.mask;
		if (!st.idx[j]) {
			st.hash[j] = h;
			sig_rep[nsig] = cb[c].pods[0];
			st.idx[j] = ++nsig;
		}
		sig_of[c] = st.idx[j] - 1;
		h = hash_req(mix(h, (uint64_t)sig_of[c]), pod->req, nres);
		j = h & pt.mask;
		while (pt.idx[j]) {
			int q = pt.idx[j] - 1;
			const ws_pod *rp = &s->pods[cb[prof_rep[q]].pods[0]];
			if (pt.hash[j] == h && sig_of[prof_rep[q]] == sig_of[c] &&
			    eq_req(rp->req, pod->req, nres))
				break;
			j = (j + 1) & pt.mask;
		}
		if (!pt.idx[j]) {
			pt.hash[j] = h;
			prof_rep[nprof] = c;
			pt.idx[j] = ++nprof;
		}
		prof_of[c] = pt.idx[j] - 1;
	}

	/* Scratch from malloc: the parallel loops may not touch the arena. */
	int **sig_nodes = calloc((size_t)nsig + 1, sizeof *sig_nodes);
	int *sig_n = calloc((size_t)nsig + 1, sizeof *sig_n);
	int **prof_nodes = calloc((size_t)nprof + 1, sizeof *prof_nodes);
	int *prof_n = calloc((size_t)nprof + 1, sizeof *prof_n);
	int fail = !sig_nodes || !sig_n || !prof_nodes || !prof_n;
	if (!fail) {
#pragma omp parallel for schedule(dynamic) num_threads(threads)
		for (int i = 0; i < nsig; i++) {
			int *buf = malloc(((size_t)nn + 1) * sizeof *buf);
			if (!buf) {
#pragma omp atomic write
				fail = 1;
				continue;
			}
			int k = 0;
			const ws_pod *pod = &s->pods[sig_rep[i]];
			for (int n = 0; n < nn; n++)
				if (ws_pod_fits_node_static(pod, &s->nodes[n],
							    NULL))
					buf[k++] = n;
			sig_nodes[i] = buf;
			sig_n[i] = k;
		}
	}
	if (!fail) {
#pragma omp parallel for schedule(dynamic) num_threads(threads)
		for (int i = 0; i < nprof; i++) {
			int c = prof_rep[i], sg = sig_of[c];
			int *buf = malloc(((size_t)sig_n[sg] + 1) * sizeof *buf);
			if (!buf) {
#pragma omp atomic write
				fail = 1;
				continue;
			}
			const int64_t *req = s->pods[cb[c].pods[0]].req;
			int k = 0;
			for (int j = 0; j < sig_n[sg]; j++) {
				const int64_t *al =
				    s->nodes[sig_nodes[sg][j]].alloc;
				int rr = 0;
				while (rr < nres && al[rr] >= req[rr])
					rr++;
				if (rr == nres)
					buf[k++] = sig_nodes[sg][j];
			}
			prof_nodes[i] = buf;
			prof_n[i] = k;
		}
	}

	/* Serially: copy into the arena, explain empty profiles. */
	int **elig = fail ? NULL : wa_calloc(r->tmp, (size_t)nprof + 1,
					     sizeof *elig);
	const char **why = fail ? NULL : wa_calloc(r->tmp, (size_t)nprof + 1,
						   sizeof *why);
	if (!elig || !why)
		fail = 1;
	for (int i = 0; !fail && i < nprof; i++) {
		elig[i] = wa_calloc(r->a, (size_t)prof_n[i] + 1, sizeof(int));
		if (!elig[i]) {
			fail = 1;
			break;
		}
		memcpy(elig[i], prof_nodes[i],
		       (size_t)prof_n[i] * sizeof(int));
		if (prof_n[i] == 0 &&
		    !(why[i] = why_none(r, &s->pods[cb[prof_rep[i]].pods[0]])))
			fail = 1;
	}
	for (int c = 0; !fail && c < nc; c++) {
		wp_class *k = &p->classes[c];
		int i = prof_of[c];
		k->elig = elig[i];
		k->nelig = prof_n[i];
		k->why_none = why[i];
	}
	for (int i = 0; sig_nodes && i < nsig; i++)
		free(sig_nodes[i]);
	for (int i = 0; prof_nodes && i < nprof; i++)
		free(prof_nodes[i]);
	free(sig_nodes);
	free(sig_n);
	free(prof_nodes);
	free(prof_n);
	return fail ? -1 : 0;
}

/* Fill group g from snapshot group sg: bound pods, minimum, key, domain. */
static int fill_group(red *r, wp_group *wg)
{
	const ws_snapshot *s = r->s;
	const ws_group *sg = &s->groups[wg->sg];
	int ntotal = 0;
	wg->gang = sg->policy == WS_POLICY_GANG;
	wg->fixed_dom = -1;
	wg->key = -1;
	for (int i = 0; i < sg->npods; i++) {
		const ws_pod *pod = &s->pods[sg->pods[i]];
		if (pod->terminal)
			continue;
		ntotal++;
		if (!ws_pod_pending(pod))
			wg->nbound++;
	}
	if (sg->invalid)
		wg->invalid = sg->invalid;
	else if (wg->gang && sg->min_count > ntotal &&
		 !(wg->invalid = wa_printf(r->a, "gang needs minCount %d but "
					   "has only %d pod%s", sg->min_count,
					   ntotal, ntotal == 1 ? "" : "s")))
		return -1;
	if (wg->gang) {
		int need = sg->min_count - wg->nbound;
		wg->min_need = need > 0 ? need : 0;
		if (wg->min_need > wg->size)
			wg->min_need = wg->size;
	}
	if (!sg->topo_key || !sg->topo_key[0])
		return 0;
	wg->key = wtp_key_index(r->t, sg->topo_key);
	if (wg->key < 0) {
		if (!wg->invalid &&
		    !(wg->invalid = wa_printf(r->a, "topology key %s is not "
					      "known to the topology",
					      sg->topo_key)))
			return -1;
		return 0;
	}
	/* Bound pods pin the domain (pods on a node missing from the
	 * snapshot say nothing about it). */
	const wtp_key *k = &r->t->keys[wg->key];
	for (int i = 0; i < sg->npods; i++) {
		const ws_pod *pod = &s->pods[sg->pods[i]];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0)
			continue;
		int d = k->node_dom[pod->node];
		if (d < 0 || (wg->fixed_dom >= 0 && wg->fixed_dom != d))
			wg->fixed_dom = -2;
		else if (wg->fixed_dom == -1)
			wg->fixed_dom = d;
	}
	return 0;
}

/* ------------------------------------------- CompositePodGroups */

/* Domain of key k holding every bound pod of snapshot group sg, merged
 * into *dom (-1 none yet, -2 several). */
static void pin_dom(const ws_snapshot *s, const wtp_key *k, int sg, int *dom)
{
	const ws_group *g = &s->groups[sg];
	for (int i = 0; i < g->npods; i++) {
		const ws_pod *pod = &s->pods[g->pods[i]];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0)
			continue;
		int d = k->node_dom[pod->node];
		if (d < 0 || (*dom >= 0 && *dom != d))
			*dom = -2;
		else if (*dom == -1)
			*dom = d;
	}
}

static void pin_tree(const ws_snapshot *s, const wtp_key *k, int sc,
		     int *dom)
{
	const ws_composite *h = &s->comps[sc];
	for (int i = 0; i < h->nkids; i++) {
		int kid = h->kids[i];
		if (kid >= 0)
			pin_dom(s, k, kid, dom);
		else
			pin_tree(s, k, -1 - kid, dom);
	}
}

static int build_comps(red *r)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	p->ncomps = s->ncomps;
	if (!s->ncomps)
		return 0;
	p->comps = wa_calloc(r->a, (size_t)s->ncomps + 1, sizeof *p->comps);
	int *pg = wa_calloc(r->tmp, (size_t)s->ngroups + 1, sizeof *pg);
	if (!p->comps || !pg)
		return -1;
	for (int g = 0; g < s->ngroups; g++)
		pg[g] = -1;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].sg >= 0) {
			pg[p->groups[g].sg] = g;
			p->groups[g].pcomp = s->groups[p->groups[g].sg].pcomp;
		}
	for (int i = 0; i < s->ncomps; i++) {
		const ws_composite *sh = &s->comps[i];
		wp_comp *h = &p->comps[i];
		h->parent = sh->pcomp - 1;
		h->root = i;
		while (s->comps[h->root].pcomp)
			h->root = s->comps[h->root].pcomp - 1;
		h->min_groups = sh->min_groups;
		h->priority = sh->priority;
		h->key = -1;
		h->fixed_dom = -1;
		h->kids = wa_calloc(r->a, (size_t)sh->nkids + 1, sizeof(int));
		if (!h->kids)
			return -1;
		for (int j = 0; j < sh->nkids; j++) {
			int kid = sh->kids[j];
			if (kid < 0) {
				h->kids[h->nkids++] = kid;
				continue;
			}
			if (pg[kid] >= 0) {
				h->kids[h->nkids++] = pg[kid];
				continue;
			}
			/* no pending pods: admitted if running enough */
			const ws_group *g = &s->groups[kid];
			int run = 0;
			for (int q = 0; q < g->npods; q++) {
				const ws_pod *pod = &s->pods[g->pods[q]];
				run += !pod->terminal && !ws_pod_pending(pod);
			}
			if (run > 0 && run >= g->min_count)
				h->nrunning++;
		}
		if (sh->nkids < sh->min_groups &&
		    !(h->invalid = wa_printf(r->a, "CompositePodGroup %s/%s "
					     "needs minGroupCount %d but has "
					     "only %d child group%s", sh->ns,
					     sh->name, sh->min_groups,
					     sh->nkids,
					     sh->nkids == 1 ? "" : "s")))
			return -1;
		if (!sh->topo_key)
			continue;
		h->key = wtp_key_index(r->t, sh->topo_key);
		if (h->key < 0) {
			if (!h->invalid &&
			    !(h->invalid = wa_printf(r->a, "topology key %s "
						     "is not known to the "
						     "topology",
						     sh->topo_key)))
				return -1;
			continue;
		}
		pin_tree(s, &r->t->keys[h->key], i, &h->fixed_dom);
	}
	return 0;
}

/* Annotations of group wg (snapshot sg) as key indices; a key the
 * topology does not know, or slices the group cannot be cut into, make
 * the group invalid. */
static int build_tas(red *r, wp_group *wg)
{
	const ws_snapshot *s = r->s;
	const ws_group *sg = &s->groups[wg->sg];
	const ws_tas *ta = sg->tas;
	wp_problem *p = r->p;
	if (!ta)
		return 0;
	wp_tas *t = wa_calloc(r->a, 1, sizeof *t);
	if (!t)
		return -1;
	wg->tas = t;
	t->excl = t->pref = t->excl_fixed = -1;
	const char *bad = NULL;
	if (ta->exclusive && (t->excl = wtp_key_index(r->t, ta->exclusive)) < 0)
		bad = ta->exclusive;
	if (ta->preferred && (t->pref = wtp_key_index(r->t, ta->preferred)) < 0)
		bad = ta->preferred;
	t->nslices = ta->nslices;
	for (int l = 0; l < ta->nslices; l++) {
		t->slice_size[l] = ta->slice_size[l];
		if ((t->slice_key[l] = wtp_key_index(r->t, ta->slice_key[l])) < 0)
			bad = ta->slice_key[l];
	}
	if (bad && !wg->invalid &&
	    !(wg->invalid = wa_printf(r->a, "topology key %s is not known "
				      "to the topology", bad)))
		return -1;
	if (ta->nslices && !wg->invalid) {
		int s0 = ta->slice_size[0];
		if (wg->nbound)
			wg->invalid = wa_printf(r->a, "a sliced group cannot "
						"grow: %d of its pods already "
						"run", wg->nbound);
		else if (wg->size % s0)
			wg->invalid = wa_printf(r->a, "%d pods cannot be cut "
						"into slices of %d", wg->size,
						s0);
		else if (wg->gang && wg->min_need % s0)
			/* a gang admits whole slices: round its minimum up */
			wg->min_need += s0 - wg->min_need % s0;
		if (!wg->invalid && !wg->gang)
			wg->min_need = 0;
		if (wg->nbound || wg->size % s0) {
			if (!wg->invalid)
				return -1; /* wa_printf failed */
		}
	}
	if (t->excl < 0)
		return 0;
	/* running pods of the group pin its exclusive domain */
	const wtp_key *k = &r->t->keys[t->excl];
	pin_dom(s, k, wg->sg, &t->excl_fixed);
	if (t->excl_fixed == -2 && !wg->invalid &&
	    !(wg->invalid = wa_printf(r->a, "its running pods already span "
				      "several %s domains", k->label)))
		return -1;
	if (!p->excl_owner[t->excl]) {
		int *o = wa_calloc(r->a, (size_t)k->ndom + 1, sizeof *o);
		if (!o)
			return -1;
		for (int d = 0; d < k->ndom; d++)
			o[d] = -1;
		p->excl_owner[t->excl] = o;
	}
	return 0;
}

/* Domains held by running pods of groups with an exclusive key (pending
 * or not). */
static int build_excl(red *r)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	int nk = r->t ? r->t->nkeys : 0;
	p->excl_owner = wa_calloc(r->a, (size_t)nk + 1, sizeof *p->excl_owner);
	if (!p->excl_owner)
		return -1;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].sg >= 0 && build_tas(r, &p->groups[g]))
			return -1;
	for (int g = 0; g < s->ngroups; g++) {
		const ws_tas *ta = s->groups[g].tas;
		if (!ta || !ta->exclusive)
			continue;
		int key = wtp_key_index(r->t, ta->exclusive);
		if (key < 0)
			continue;
		const wtp_key *k = &r->t->keys[key];
		if (!p->excl_owner[key]) {
			int *o = wa_calloc(r->a, (size_t)k->ndom + 1,
					   sizeof *o);
			if (!o)
				return -1;
			for (int d = 0; d < k->ndom; d++)
				o[d] = -1;
			p->excl_owner[key] = o;
		}
		int *o = p->excl_owner[key];
		const ws_group *sg = &s->groups[g];
		for (int i = 0; i < sg->npods; i++) {
			const ws_pod *pod = &s->pods[sg->pods[i]];
			if (pod->terminal || ws_pod_pending(pod) ||
			    pod->node < 0)
				continue;
			int d = k->node_dom[pod->node];
			if (d < 0)
				continue;
			o[d] = o[d] == -1 || o[d] == g ? g : -2;
		}
	}
	return 0;
}

int wp_group_need(const wp_group *wg)
{
	return wg->gang ? wg->min_need : 1;
}

bool wp_comp_admitted(const wp_problem *p, const wp_sol *s, int h)
{
	const wp_comp *c = &p->comps[h];
	int n = c->nrunning;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		n += k >= 0 ? s->admit[k] != 0 : wp_comp_admitted(p, s, -1 - k);
	}
	return n >= c->min_groups && n > 0;
}

static int reduce(red *r, const wasp_options *o)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	proto *pr;
	int np, nc;
	cbuild *cb;
	if (make_protos(r, &pr, &np))
		return -1;
	qsort(pr, (size_t)np, sizeof *pr, cmp_proto);
	if (make_classes(r, pr, np, &cb, &nc))
		return -1;

	p->ngroups = np;
	p->nclasses = nc;
	p->groups = wa_calloc(r->a, (size_t)np + 1, sizeof *p->groups);
	p->classes = wa_calloc(r->a, (size_t)nc + 1, sizeof *p->classes);
	if (!p->groups || !p->classes)
		return -1;
	for (int g = 0; g < np; g++) {
		wp_group *wg = &p->groups[g];
		wg->sg = pr[g].sg;
		wg->size = pr[g].npods;
		wg->priority = pr[g].prio;
		wg->key = -1;
		wg->fixed_dom = -1;
		if (wg->sg >= 0 && fill_group(r, wg))
			return -1;
	}
	for (int c = 0; c < nc; c++) {
		wp_class *k = &p->classes[c];
		k->group = cb[c].group;
		k->count = cb[c].n;
		k->pods = wa_calloc(r->a, (size_t)cb[c].n, sizeof(int));
		if (!k->pods)
			return -1;
		memcpy(k->pods, cb[c].pods, (size_t)cb[c].n * sizeof(int));
		k->req = s->pods[cb[c].pods[0]].req;
		p->groups[k->group].nclasses++;
	}
	for (int g = 0; g < np; g++) {
		wp_group *wg = &p->groups[g];
		wg->classes = wa_calloc(r->a, (size_t)wg->nclasses + 1,
					sizeof(int));
		if (!wg->classes)
			return -1;
		wg->nclasses = 0;
	}
	for (int c = 0; c < nc; c++) {
		wp_group *wg = &p->groups[p->classes[c].group];
		wg->classes[wg->nclasses++] = c;
	}
	int threads = 1;
#ifdef _OPENMP
	threads = o->threads > 0 ? o->threads : omp_get_max_threads();
#endif
	if (eligibility(r, cb, nc, threads))
		return -1;
	int off = 0;
	for (int c = 0; c < nc; c++) {
		p->classes[c].off = off;
		off += p->classes[c].nelig;
	}
	p->nx = off;
	if (build_excl(r))
		return -1;
	return build_comps(r);
}

int wp_reduce(const ws_snapshot *s, const wtp_topo *t, const wasp_options *o,
	      wa_arena *a, wp_problem **out, wasp_error *err)
{
	*out = NULL;
	int value_res = -1;
	if (o && o->value_resource && strcmp(o->value_resource, "pods")) {
		value_res = ws_res_index(s, o->value_resource);
		if (value_res < 0) {
			char list[256] = "";
			size_t len = 0;
			for (int k = 0; k < s->nres && len < sizeof list - 1;
			     k++) {
				int w = snprintf(list + len, sizeof list - len,
						 "%s%s", k ? ", " : "",
						 s->res[k]);
				if (w < 0)
					break;
				len += (size_t)w;
			}
			return werr(err, WASP_EINVAL,
				    "unknown value resource '%s': no pod "
				    "requests it (resources: %s)",
				    o->value_resource, list);
		}
	}
	wp_problem *p = wa_alloc(a, sizeof *p);
	wa_arena *tmp = wa_new();
	if (!p || !tmp) {
		wa_destroy(tmp);
		return werr(err, WASP_ENOMEM, "out of memory in the reduction");
	}
	p->snap = s;
	p->topo = t;
	p->nres = s->nres;
	p->nnodes = s->nnodes;
	p->value_res = value_res;
	p->arena = a;
	p->free = wa_calloc(a, (size_t)s->nnodes * s->nres + 1,
			    sizeof *p->free);
	int rc = p->free ? 0 : -1;
	for (int n = 0; !rc && n < s->nnodes; n++)
		for (int k = 0; k < s->nres; k++)
			p->free[(size_t)n * s->nres + k] =
			    s->nodes[n].alloc[k] - s->nodes[n].used[k];
	red r = {.s = s, .t = t, .a = a, .tmp = tmp, .p = p, .nres = s->nres};
	wasp_options def;
	if (!o) {
		memset(&def, 0, sizeof def); /* threads 0: runtime default */
		o = &def;
	}
	if (!rc)
		rc = reduce(&r, o);
	if (!rc)
		rc = wpe_units(p, a);
	if (!rc && o->protect && *o->protect) {
		ws_expr *sel;
		int nsel = wrb_selector(a, o->protect, &sel);
		if (nsel < 0) {
			wa_destroy(tmp);
			return werr(err, WASP_EINVAL, "bad --protect selector "
				    "'%s' (want key=value, key!=value, key or "
				    "!key, comma-separated)", o->protect);
		}
		for (int u = 0; u < p->nunits; u++)
			for (int i = 0; i < p->units[u].npods; i++)
				if (wrb_selects(sel, nsel,
						&s->pods[p->units[u].pods[i]]))
					p->units[u].keep = true;
	}
	wa_destroy(tmp);
	/* issue 6: move classes, after --protect marked its units */
	if (!rc && o->rebalance)
		rc = wrb_classes(p, o, a);
	if (rc)
		return werr(err, WASP_ENOMEM, "out of memory in the reduction");
	*out = p;
	return WASP_OK;
}

bool wp_same_static(const ws_pod *a, const ws_pod *b)
{
	return eq_static(a, b);
}

int wp_moves(const wp_problem *p, const wp_sol *s)
{
	int n = 0;
	for (int i = 0; s->move_to && i < p->snap->npods; i++)
		n += s->move_to[i] >= 0;
	return n;
}

/* --------------------------------------------------------- solutions */

wp_sol *wp_sol_new(const wp_problem *p, wa_arena *a)
{
	wp_sol *s = wa_alloc(a, sizeof *s);
	if (!s)
		return NULL;
	s->x = wa_calloc(a, (size_t)p->nx + 1, sizeof *s->x);
	s->admit = wa_calloc(a, (size_t)p->ngroups + 1, 1);
	s->reason = wa_calloc(a, (size_t)p->ngroups + 1, sizeof *s->reason);
	s->evict = wa_calloc(a, (size_t)p->nunits + 1, 1);
	s->evict_by = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	s->move_to = wa_calloc(a, (size_t)p->snap->npods + 1, sizeof(int));
	if (!s->x || !s->admit || !s->reason || !s->evict || !s->evict_by ||
	    !s->move_to)
		return NULL;
	wp_sol_no_disruption(p, s);
	return s;
}

void wp_sol_no_disruption(const wp_problem *p, wp_sol *s)
{
	for (int u = 0; u < p->nunits; u++) {
		s->evict[u] = 0;
		s->evict_by[u] = -1;
	}
	for (int i = 0; i < p->snap->npods; i++)
		s->move_to[i] = -1;
}

void wp_sol_copy(const wp_problem *p, wp_sol *dst, const wp_sol *src)
{
	memcpy(dst->x, src->x, (size_t)p->nx * sizeof *dst->x);
	memcpy(dst->admit, src->admit, (size_t)p->ngroups);
	memcpy(dst->reason, src->reason,
	       (size_t)p->ngroups * sizeof *dst->reason);
	if (dst->evict && src->evict) {
		memcpy(dst->evict, src->evict, (size_t)p->nunits);
		memcpy(dst->evict_by, src->evict_by,
		       (size_t)p->nunits * sizeof *dst->evict_by);
	}
	dst->dra = src->dra;
	if (dst->move_to && src->move_to)
		memcpy(dst->move_to, src->move_to,
		       (size_t)p->snap->npods * sizeof *dst->move_to);
}

void wp_evaluate(const wp_problem *p, const wp_sol *s, wp_value *v)
{
	memset(v, 0, sizeof *v);
	/* groups are sorted by priority, highest first */
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		int t = v->nprio - 1;
		if (t < 0 || (v->prio[t] != wg->priority &&
			      v->nprio < WP_MAX_TIERS)) {
			/* past WP_MAX_TIERS levels the lowest share a tier */
			t = v->nprio++;
			v->prio[t] = wg->priority;
		}
		if (!s->admit[g])
			continue;
		double w = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *c = &p->classes[wg->classes[ci]];
			long n = 0;
			for (int k = 0; k < c->nelig; k++)
				n += s->x[c->off + k];
			w += p->value_res < 0
				 ? (double)n
				 : (double)n * c->req[p->value_res] / 1000.0;
		}
		v->work[t] += w;
	}
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u])
			v->evictions += (double)p->units[u].npods *
					p->units[u].weight;
	v->pdb_violations = wpe_pdb_violations(p, s);
	v->moves = wp_moves(p, s);
	/* packing: nodes with neither bound nor placed pods, then domains */
	unsigned char *busy = calloc((size_t)p->nnodes + 1, 1);
	if (!busy) {
		v->packing = -1;
		return;
	}
	for (int n = 0; n < p->nnodes; n++)
		busy[n] = !wp_node_empty(p, n);
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *k = &p->classes[c];
		for (int j = 0; j < k->nelig; j++)
			if (s->x[k->off + j] > 0)
				busy[k->elig[j]] = 1;
	}
	int nfree = 0;
	for (int n = 0; n < p->nnodes; n++)
		nfree += !busy[n];
	/* and whole free domains of two or more nodes, at every key of the
	 * topology, each counting one like a node (doc/formulation.md 4) */
	for (int k = 0; p->topo && k < p->topo->nkeys; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++) {
			bool all = key->dom_nnodes[d] >= 2;
			for (int i = 0; all && i < key->dom_nnodes[d]; i++)
				all = !busy[key->dom_nodes[d][i]];
			nfree += all;
		}
	}
	free(busy);
	v->packing = nfree;
	wp_compactness(p, s, v);
	v->alt_rank = s->dra ? (double)wdr_alt_rank(s->dra) : 0;
}

static int cmp_room_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x < y) - (x > y);
}

/* Fewest of the n rooms cap[0..n) (sorted here, largest first) whose
 * sum reaches need; n + 1 when all of them do not.  The node level has
 * one room per node, so this sorts up to 10,000+ values per resource. */
static int fewest_rooms(int64_t *cap, int n, int64_t need)
{
	if (need <= 0)
		return 0;
	qsort(cap, (size_t)n, sizeof *cap, cmp_room_desc);
	int64_t sum = 0;
	for (int i = 0; i < n; i++) {
		sum += cap[i];
		if (sum >= need)
			return i + 1;
	}
	return n + 1;
}

/* The free-able units of one level (nodes, or the domains of one key):
 * unit[n] is the unit node n belongs to, -1 when its room is free of
 * cost (busy anyway, or not in a counted unit); how many units can stay
 * free, at most, with demand dem[] placed. */
static int level_free_max(const wp_problem *p, const int *unit, int nunit,
			  const int64_t *dem, int64_t *cap)
{
	int most = 0;
	for (int r = 0; r < p->nres; r++) {
		int64_t need = dem[r];
		memset(cap, 0, (size_t)nunit * sizeof *cap);
		for (int n = 0; n < p->nnodes; n++) {
			int64_t f = p->free[(size_t)n * p->nres + r];
			if (unit[n] < 0)
				need -= f;
			else
				cap[unit[n]] += f;
		}
		int k = fewest_rooms(cap, nunit, need);
		if (k > most)
			most = k;
	}
	return most > nunit ? -1 : nunit - most;
}

double wp_packing_bound(const wp_problem *p, const wp_sol *s)
{
	if (p->snap->dra || p->nmcls > 0)
		return NAN;
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u])
			return NAN;
	for (int i = 0; s->move_to && i < p->snap->npods; i++)
		if (s->move_to[i] >= 0)
			return NAN;
	int64_t *dem = calloc((size_t)p->nres + 1, sizeof *dem);
	if (!dem)
		return NAN;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (wg->tas && wg->tas->pref >= 0) {
			free(dem);
			return NAN;
		}
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *c = &p->classes[wg->classes[i]];
			int64_t placed = 0;
			for (int j = 0; j < c->nelig; j++)
				placed += s->x[c->off + j];
			if (placed < c->count) {
				free(dem);
				return NAN;
			}
			for (int r = 0; r < p->nres; r++)
				dem[r] += c->req[r] * c->count;
		}
	}
	int *unit = malloc(((size_t)p->nnodes + 1) * sizeof *unit);
	int64_t *cap = malloc(((size_t)p->nnodes + 1) * sizeof *cap);
	double total = NAN;
	if (!unit || !cap)
		goto out;
	/* nodes: those without bound pods can stay free */
	int nu = 0;
	for (int n = 0; n < p->nnodes; n++)
		unit[n] = wp_node_empty(p, n) ? nu++ : -1;
	int f = level_free_max(p, unit, nu, dem, cap);
	if (f < 0)
		goto out;
	total = f;
	/* domains of two or more nodes, none with bound pods, per key */
	for (int k = 0; p->topo && k < p->topo->nkeys; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int n = 0; n < p->nnodes; n++)
			unit[n] = -1;
		int nd = 0;
		for (int d = 0; d < key->ndom; d++) {
			bool all = key->dom_nnodes[d] >= 2;
			for (int i = 0; all && i < key->dom_nnodes[d]; i++)
				all = wp_node_empty(p, key->dom_nodes[d][i]);
			if (!all)
				continue;
			for (int i = 0; i < key->dom_nnodes[d]; i++)
				unit[key->dom_nodes[d][i]] = nd;
			nd++;
		}
		f = level_free_max(p, unit, nd, dem, cap);
		if (f < 0) {
			total = NAN;
			goto out;
		}
		total += f;
	}
out:
	free(unit);
	free(cap);
	free(dem);
	return total;
}

bool wp_packing_proven(const wp_problem *p, const wp_sol *s)
{
	double b = wp_packing_bound(p, s);
	if (isnan(b))
		return false;
	wp_value v;
	wp_evaluate(p, s, &v);
	return v.packing >= b;
}

/* Preferred levels (issue 5): the levels are the topology keys, coarse to
 * fine (at most 8 counted); per level, the domains where a group with a
 * preferred level at or below it has eligible nodes but no pod. */
void wp_compactness(const wp_problem *p, const wp_sol *s, wp_value *v)
{
	const wtp_topo *t = p->topo;
	int nk = t ? t->nkeys : 0;
	if (nk > 8)
		nk = 8;
	v->ncompact = nk;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (!wg->tas || wg->tas->pref < 0)
			continue;
		for (int k = wg->tas->pref; k >= 0; k = t->keys[k].parent) {
			if (k >= nk)
				continue;
			const wtp_key *key = &t->keys[k];
			unsigned char *st = calloc((size_t)key->ndom + 1, 1);
			if (!st)
				return;
			for (int ci = 0; ci < wg->nclasses; ci++) {
				const wp_class *cl = &p->classes[wg->classes[ci]];
				for (int j = 0; j < cl->nelig; j++) {
					int d = key->node_dom[cl->elig[j]];
					if (d < 0)
						continue;
					if (!st[d])
						st[d] = 1; /* eligible */
					if (s->x[cl->off + j])
						st[d] = 2; /* used */
				}
			}
			for (int d = 0; d < key->ndom; d++)
				v->compact[k] += st[d] == 1;
			free(st);
		}
	}
}

int wp_value_cmp(const wp_value *a, const wp_value *b)
{
	int n = a->nprio > b->nprio ? a->nprio : b->nprio;
	for (int i = 0; i < n; i++) {
		double x = i < a->nprio ? a->work[i] : 0;
		double y = i < b->nprio ? b->work[i] : 0;
		if (x != y)
			return x > y ? 1 : -1;
	}
	if (a->alt_rank != b->alt_rank)
		return a->alt_rank < b->alt_rank ? 1 : -1;
	if (a->pdb_violations != b->pdb_violations)
		return a->pdb_violations < b->pdb_violations ? 1 : -1;
	if (a->evictions != b->evictions)
		return a->evictions < b->evictions ? 1 : -1;
	if (a->moves != b->moves)
		return a->moves < b->moves ? 1 : -1;
	for (int i = 0; i < a->ncompact && i < b->ncompact; i++)
		if (a->compact[i] != b->compact[i])
			return a->compact[i] > b->compact[i] ? 1 : -1;
	if (a->packing != b->packing)
		return a->packing > b->packing ? 1 : -1;
	return 0;
}

/* The domain of comp h's key that the placed pods of its descendants use
 * (merged into *dom as in pin_dom). */
static void sol_dom(const wp_problem *p, const wp_sol *s, const wtp_key *k,
		    int h, int *dom)
{
	const wp_comp *c = &p->comps[h];
	for (int i = 0; i < c->nkids; i++) {
		int kid = c->kids[i];
		if (kid < 0) {
			sol_dom(p, s, k, -1 - kid, dom);
			continue;
		}
		const wp_group *wg = &p->groups[kid];
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *cl = &p->classes[wg->classes[ci]];
			for (int j = 0; j < cl->nelig; j++) {
				if (!s->x[cl->off + j])
					continue;
				int d = k->node_dom[cl->elig[j]];
				if (d < 0 || (*dom >= 0 && *dom != d))
					*dom = -2;
				else if (*dom == -1)
					*dom = d;
			}
		}
	}
}

static const char *tree_infeasible(const wp_problem *p, const wp_sol *s)
{
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (s->admit[g] && wg->pcomp &&
		    !wp_comp_admitted(p, s, wg->pcomp - 1))
			return "a group is admitted but its CompositePodGroup "
			       "is not";
	}
	for (int h = 0; h < p->ncomps; h++) {
		const wp_comp *c = &p->comps[h];
		if (!wp_comp_admitted(p, s, h))
			continue;
		if (c->invalid)
			return "an invalid CompositePodGroup is admitted";
		if (c->parent >= 0 && !wp_comp_admitted(p, s, c->parent))
			return "a CompositePodGroup is admitted but its "
			       "parent is not";
		if (c->key < 0 || !p->topo)
			continue;
		int dom = -1;
		sol_dom(p, s, &p->topo->keys[c->key], h, &dom);
		if (dom == -2 || (dom >= 0 && c->fixed_dom != -1 &&
				  c->fixed_dom != dom))
			return "a CompositePodGroup spans several domains of "
			       "its topology key";
	}
	return NULL;
}

int wp_sol_feasible(const wp_problem *p, const wp_sol *s, const char **why)
{
	const char *w = NULL;
	int nres = p->nres;
	int64_t *use = calloc((size_t)p->nnodes * nres + 1, sizeof *use);
	if (!use) {
		if (why)
			*why = "out of memory checking the solution";
		return -1;
	}
	for (int g = 0; g < p->ngroups && !w; g++) {
		const wp_group *wg = &p->groups[g];
		const wtp_key *k = wg->key >= 0 && p->topo
				       ? &p->topo->keys[wg->key] : NULL;
		long placed = 0;
		int dom = wg->fixed_dom;
		for (int ci = 0; ci < wg->nclasses && !w; ci++) {
			const wp_class *c = &p->classes[wg->classes[ci]];
			long n = 0;
			for (int j = 0; j < c->nelig && !w; j++) {
				int x = s->x[c->off + j], node = c->elig[j];
				if (x < 0) {
					w = "negative pod count";
					break;
				}
				if (x == 0)
					continue;
				n += x;
				for (int r = 0; r < nres; r++)
					use[(size_t)node * nres + r] +=
					    (int64_t)x * c->req[r];
				if (!k)
					continue;
				int d = k->node_dom[node];
				if (d < 0 || dom == -2 ||
				    (dom >= 0 && d != dom))
					w = "a group spans several domains of "
					    "its topology key";
				dom = d;
			}
			if (!w && n > c->count)
				w = "more pods placed than the class has";
			placed += n;
		}
		if (w)
			break;
		if (!s->admit[g] && placed > 0)
			w = "a group that is not admitted has placed pods";
		else if (s->admit[g] && wg->invalid)
			w = "an invalid group is admitted";
		else if (s->admit[g] && placed < wg->min_need)
			w = "an admitted gang is placed below its minimum";
		else if (placed > wg->size)
			w = "a group places more pods than it has";
	}
	/* evictions free their pods' requests (for higher priorities only:
	 * wpe_check_rows) */
	for (int u = 0; !w && s->evict && u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (!s->evict[u])
			continue;
		if (s->evict_by[u] < 0 || s->evict_by[u] >= p->ngroups ||
		    !s->admit[s->evict_by[u]] ||
		    p->groups[s->evict_by[u]].priority <= un->priority) {
			w = "a unit is evicted by no admitted group of higher "
			    "priority";
			break;
		}
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			for (int r = 0; r < nres; r++)
				use[(size_t)pod->node * nres + r] -=
				    pod->req[r];
		}
	}
	/* moves (issue 6): a moved pod leaves its node for its destination;
	 * it may not be evicted too */
	for (int i = 0; !w && s->move_to && i < p->snap->npods; i++) {
		int to = s->move_to[i];
		const ws_pod *pod = &p->snap->pods[i];
		if (to < 0)
			continue;
		if (to >= p->nnodes || pod->node < 0 || to == pod->node) {
			w = "a move has no valid destination";
			break;
		}
		for (int r = 0; r < nres; r++) {
			use[(size_t)pod->node * nres + r] -= pod->req[r];
			use[(size_t)to * nres + r] += pod->req[r];
		}
	}
	if (!w && s->move_to) {
		int inmc = 0, all = wp_moves(p, s);
		for (int c = 0; c < p->nmcls && !w; c++)
			for (int i = 0; i < p->mcls[c].count; i++) {
				int u = p->mcls[c].units[i];
				if (s->move_to[p->units[u].pods[0]] < 0)
					continue;
				inmc++;
				if (s->evict && s->evict[u])
					w = "a pod is moved and evicted";
			}
		if (!w && inmc != all)
			w = "a pod that may not move is moved";
		if (!w && p->max_moves > 0 && all > p->max_moves)
			w = "more moves than --max-moves allows";
	}
	/* a node over-committed before the plan (free < 0) is fine as long
	 * as the plan adds nothing there */
	for (size_t i = 0; !w && i < (size_t)p->nnodes * nres; i++)
		if (use[i] > p->free[i] && use[i] > 0)
			w = "a node is over capacity";
	free(use);
	if (!w && s->evict)
		wpe_check_rows(p, s, &w);
	if (!w)
		w = tree_infeasible(p, s);
	if (why)
		*why = w;
	return w ? -1 : 0;
}

int wp_slot(const wp_problem *p, int c, int n)
{
	const wp_class *cl = &p->classes[c];
	int lo = 0, hi = cl->nelig - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (cl->elig[mid] == n)
			return cl->off + mid;
		if (cl->elig[mid] < n)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int wp_slot_class(const wp_problem *p, int s)
{
	/* the last class starting at or before s (an empty class shares
	 * its offset with the next) */
	int lo = 0, hi = p->nclasses - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (p->classes[mid].off <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

bool wp_node_empty(const wp_problem *p, int n)
{
	return p->snap->nodes[n].used[WS_RES_PODS] == 0;
}

int64_t wp_gcd(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Inside a tree, node n must lie in a domain of every ancestor's key
 * (the one its running pods pin, if any), and no ancestor may be
 * invalid. */
static bool tree_node_ok(const wp_problem *p, const wp_group *g, int n)
{
	for (int h = g->pcomp - 1; h >= 0; h = p->comps[h].parent) {
		const wp_comp *c = &p->comps[h];
		if (c->invalid || c->fixed_dom == -2)
			return false;
		if (c->key < 0)
			continue;
		int d = p->topo->keys[c->key].node_dom[n];
		if (d < 0 || (c->fixed_dom >= 0 && d != c->fixed_dom))
			return false;
	}
	return true;
}

/* Whether slot (c, k) may hold pods at all: the group is placeable, the
 * node lies in an allowed domain of the group's key. */
bool wp_allowed(const wp_problem *p, const wp_group *g, int n)
{
	if (g->invalid || g->fixed_dom == -2)
		return false;
	if (g->pcomp && !tree_node_ok(p, g, n))
		return false;
	if (g->tas) {
		const wp_tas *ta = g->tas;
		for (int l = 0; l < ta->nslices; l++)
			if (p->topo->keys[ta->slice_key[l]].node_dom[n] < 0)
				return false;
		if (ta->excl >= 0) {
			int d = p->topo->keys[ta->excl].node_dom[n];
			if (d < 0 || (ta->excl_fixed >= 0 &&
				      d != ta->excl_fixed))
				return false;
			int own = p->excl_owner[ta->excl][d];
			if (own != -1 && own != g->sg)
				return false;
		}
	}
	if (g->key < 0)
		return true;
	int d = p->topo->keys[g->key].node_dom[n];
	if (d < 0)
		return false;
	return g->fixed_dom < 0 || d == g->fixed_dom;
}

bool wp_group_below(const wp_problem *p, int g, int h)
{
	for (int c = p->groups[g].pcomp - 1; c >= 0; c = p->comps[c].parent)
		if (c == h)
			return true;
	return false;
}

static const char *const WAIT_ILP =
    "the ILP found no placement that admits this gang together with "
    "higher-priority work";
static const char *const WAIT_ILP_PODS =
    "the ILP found no room for these pods next to higher-priority work";

void wp_fill_admission(const wp_problem *p, const unsigned char *at0,
		       const wp_sol *warm, wp_sol *out)
{
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		long placed = 0;
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++)
				placed += out->x[cl->off + k];
		}
		bool adm;
		if (g->invalid)
			adm = false;
		else if (g->gang)
			/* already at minCount: admitted while it could grow,
			 * as greedy does */
			adm = placed > 0 ? placed >= g->min_need
					 : g->min_need == 0 && at0 && at0[gi];
		else
			adm = placed > 0 || g->size == 0;
		out->admit[gi] = adm;
		out->reason[gi] = NULL;
		if (adm)
			continue;
		if (warm && warm->reason && warm->reason[gi])
			out->reason[gi] = warm->reason[gi];
		else if (g->invalid)
			out->reason[gi] = g->invalid;
		else if (g->nclasses &&
			 p->classes[g->classes[0]].nelig == 0 &&
			 p->classes[g->classes[0]].why_none)
			out->reason[gi] = p->classes[g->classes[0]].why_none;
		else
			out->reason[gi] = g->gang ? WAIT_ILP : WAIT_ILP_PODS;
	}
}
