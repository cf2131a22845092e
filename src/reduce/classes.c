/*
 * classes.c -- the reduction's class phases (doc/formulation.md §1
 * "Data"): problem groups, pod equivalence classes and eligibility.
 *
 * Pending pods collapse into classes (same group, requests, selector,
 * affinity, tolerations, priority, claim list).  Eligibility is computed
 * once per distinct (selector, affinity, tolerations) and then filtered
 * per distinct request vector, so thousands of gangs built from one pod
 * template share one eligible-node array (classes may point at the same
 * `elig`; it is read-only).  The parallel loops write only their own
 * slots; arena allocation happens serially, so the result does not
 * depend on the thread count.
 */
#include "reduce/problem_int.h"
#include "model/dra.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	const wp_proto *a = va, *b = vb;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* Groups: one per snapshot group with pending pods, one per distinct lone
 * class; sorted by priority (desc) then input order. */
int wp_make_protos(wp_red *r, wp_proto **out, int *nout)
{
	const ws_snapshot *s = r->s;
	int np = 0;
	wp_proto *pr = wa_calloc(r->tmp, (size_t)s->ngroups + s->npods + 1,
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
		wp_proto *q = &pr[np++];
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
		wp_proto *q = NULL;
		while (tab.idx[j]) {
			wp_proto *c = &pr[tab.idx[j] - 1];
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
	qsort(pr, (size_t)np, sizeof *pr, cmp_proto);
	*out = pr;
	*nout = np;
	return 0;
}

/* Classes of every group, in group order, then first appearance. */

int wp_make_classes(wp_red *r, const wp_proto *pr, int np, wp_cbuild **out,
			int *nout)
{
	const ws_snapshot *s = r->s;
	int total = 0;
	for (int g = 0; g < np; g++)
		total += pr[g].npods;
	wp_cbuild *cb = wa_calloc(r->tmp, (size_t)total + 1, sizeof *cb);
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
			wp_cbuild *c = NULL;
			while (tab.idx[j]) {
				wp_cbuild *x = &cb[tab.idx[j] - 1];
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
static const char *why_none(wp_red *r, const ws_pod *pod)
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
int wp_eligibility(wp_red *r, const wp_cbuild *cb, int nc, int threads)
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

bool wp_same_static(const ws_pod *a, const ws_pod *b)
{
	return eq_static(a, b);
}
