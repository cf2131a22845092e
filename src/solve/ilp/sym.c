/*
 * sym.c -- symmetry breaking between interchangeable nodes
 * (doc/formulation.md §5): nodes sorted by signature, rows that order
 * the runs, and the permutation that puts a warm start in that order.
 */
#include "solve/ilp/ilp_int.h"

/* Interchangeable nodes: same free vector, same emptiness, same columns
 * (class and bound, in class order), same domain at every key a group
 * uses unless the domain is the node alone.  Any solution can be permuted
 * among such nodes without changing feasibility or objective, so sorting
 * them by the load f(n) = sum_i (i + 1) x[c_i,n] (c_i: the node's i-th
 * class) is valid: sym[n1,n2]: f(n1) - f(n2) >= 0 for consecutive nodes of
 * a run, n1 < n2. */
static int sym_cmp(const wm *m, const int *keys, int nkeys, int a, int b)
{
	const wp_problem *p = m->p;
	/* nodes with eviction classes are each unlike any other */
	if (m->hasq && (m->hasq[a] || m->hasq[b]))
		return (a > b) - (a < b);
	for (int r = 0; r < p->nres; r++) {
		int64_t fa = p->free[(size_t)a * p->nres + r];
		int64_t fb = p->free[(size_t)b * p->nres + r];
		if (fa != fb)
			return fa < fb ? -1 : 1;
	}
	int ea = m->ucol[a] != 0, eb = m->ucol[b] != 0;
	if (ea != eb)
		return ea - eb;
	for (int i = 0; i < nkeys; i++) {
		const wtp_key *k = &p->topo->keys[keys[i]];
		int da = k->node_dom[a], db = k->node_dom[b];
		if (da >= 0 && k->dom_nnodes[da] == 1)
			da = -3;
		if (db >= 0 && k->dom_nnodes[db] == 1)
			db = -3;
		if (da != db)
			return da < db ? -1 : 1;
	}
	int la = m->nxbeg[a + 1] - m->nxbeg[a];
	int lb = m->nxbeg[b + 1] - m->nxbeg[b];
	if (la != lb)
		return la < lb ? -1 : 1;
	for (int i = 0; i < la; i++) {
		int sa = m->nxslot[m->nxbeg[a] + i];
		int sb = m->nxslot[m->nxbeg[b] + i];
		int ca = wp_slot_class(p, sa), cb = wp_slot_class(p, sb);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (m->xub[sa] != m->xub[sb])
			return m->xub[sa] < m->xub[sb] ? -1 : 1;
	}
	return 0;
}

/* Merge sort by signature, then node index (qsort has no context). */
/* sym_cmp, then node index: a total order for wis_sort */
typedef struct symctx {
	const wm *m;
	const int *keys;
	int nkeys;
} symctx;

static int sym_order(const void *ctx, int a, int b)
{
	const symctx *c = ctx;
	int r = sym_cmp(c->m, c->keys, c->nkeys, a, b);
	return r ? r : (a > b) - (a < b);
}

/* Runs of interchangeable nodes: symnode[symrun[r] .. symrun[r+1]). */
void wilp_sym_runs(wm *m)
{
	const wp_problem *p = m->p;
	int nk = p->topo ? p->topo->nkeys : 0;
	int *keys = wa_calloc(m->ar, nk + 1, sizeof *keys);
	int *order = wa_calloc(m->ar, p->nnodes + 1, sizeof *order);
	int *tmp = wa_calloc(m->ar, p->nnodes + 1, sizeof *tmp);
	m->symrun = wa_calloc(m->ar, p->nnodes + 2, sizeof *m->symrun);
	if (!keys || !order || !tmp || !m->symrun) {
		m->nomem = true;
		return;
	}
	int nkeys = 0;
	for (int k = 0; k < nk; k++) {
		bool used = false;
		for (int g = 0; g < p->ngroups && !used; g++)
			used = p->groups[g].key == k && m->tn[g];
		for (int h = 0; h < p->ncomps && !used; h++)
			used = p->comps[h].key == k && m->hn[h];
		for (int g = 0; g < p->ngroups && !used; g++) {
			const wp_tas *ta = p->groups[g].tas;
			for (int l = 0; ta && l < ta->nslices; l++)
				used |= ta->slice_key[l] == k;
			used |= ta && ta->excl == k;
			/* the compactness tiers tell apart the domains of a
			 * preferred level and of every coarser one */
			for (int q = ta ? ta->pref : -1; q >= 0 && q < 64;
			     q = p->topo->keys[q].parent)
				used |= q == k;
		}
		/* the packing tier tells apart domains too */
		used |= m->pkkey && m->pkkey[k];
		if (used)
			keys[nkeys++] = k;
	}
	int nn = 0;
	for (int n = 0; n < p->nnodes; n++)
		if (m->nxbeg[n + 1] > m->nxbeg[n])
			order[nn++] = n;
	wis_sort(order, tmp, nn, sym_order, &(symctx){m, keys, nkeys});
	m->symnode = order;
	m->symend = tmp; /* reused: the sort is done */
	m->nsymrun = 0;
	for (int i = 0; i < nn;) {
		int j = i + 1;
		while (j < nn &&
		       sym_cmp(m, keys, nkeys, order[i], order[j]) == 0)
			j++;
		if (j - i > 1) {
			m->symrun[m->nsymrun] = i;
			m->symend[m->nsymrun++] = j;
		}
		i = j;
	}
}

void wilp_rows_sym(wm *m)
{
	const wp_problem *p = m->p;
	m->nsym = 0;
	for (int r = 0; r < m->nsymrun; r++) {
		for (int k = m->symrun[r]; k + 1 < m->symend[r]; k++) {
			int a = m->symnode[k], b = m->symnode[k + 1];
			int la = m->nxbeg[a + 1] - m->nxbeg[a];
			wm_row_begin(&m->b);
			for (int t = 0; t < la; t++) {
				wm_coef(&m->b, m->xcol[m->nxslot[m->nxbeg[a] + t]],
					t + 1);
				wm_coef(&m->b, m->xcol[m->nxslot[m->nxbeg[b] + t]],
					-(t + 1));
			}
			wm_row_end(&m->b, GLP_LO, 0, 0,
			    wm_name(&m->b, "sym[%s,%s]", p->snap->nodes[a].name,
				    p->snap->nodes[b].name));
			m->nsym++;
		}
	}
}

/* Permute the loads of interchangeable nodes so that the sym rows hold:
 * within each run, loads sorted by f descending (stable). */
int wilp_sym_permute(const wm *m, int *x)
{
	for (int r = 0; r < m->nsymrun; r++) {
		int s0 = m->symrun[r], len = m->symend[r] - s0;
		int a0 = m->symnode[s0];
		int la = m->nxbeg[a0 + 1] - m->nxbeg[a0];
		int *ld = malloc(sizeof *ld * ((size_t)len * la + 1));
		long *f = malloc(sizeof *f * len);
		int *perm = malloc(sizeof *perm * len);
		if (!ld || !f || !perm) {
			free(ld), free(f), free(perm);
			return -1;
		}
		for (int q = 0; q < len; q++) {
			int n = m->symnode[s0 + q];
			f[q] = 0;
			for (int t = 0; t < la; t++) {
				int v = x[m->nxslot[m->nxbeg[n] + t]];
				ld[(size_t)q * la + t] = v;
				f[q] += (long)(t + 1) * v;
			}
			perm[q] = q;
		}
		for (int i = 1; i < len; i++) {
			int v = perm[i], j = i;
			while (j > 0 && f[perm[j - 1]] < f[v]) {
				perm[j] = perm[j - 1];
				j--;
			}
			perm[j] = v;
		}
		for (int q = 0; q < len; q++) {
			int n = m->symnode[s0 + q];
			for (int t = 0; t < la; t++)
				x[m->nxslot[m->nxbeg[n] + t]] =
				    ld[(size_t)perm[q] * la + t];
		}
		free(ld), free(f), free(perm);
	}
	return 0;
}
