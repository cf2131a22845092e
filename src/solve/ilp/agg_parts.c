/*
 * agg_parts.c -- the model over parts: when it applies, the parts (nodes
 * no topology key and no class tell apart) and the eviction classes over
 * parts (doc/formulation.md §10).
 */
#include "solve/ilp/agg_int.h"

int wag_dom_of(const ag *m, int key, int part)
{
	return m->p->topo->keys[key].node_dom[m->pnode[m->pbeg[part]]];
}

static bool key_used(const wp_problem *p, int k)
{
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].key == k)
			return true;
	for (int h = 0; h < p->ncomps; h++)
		if (p->comps[h].key == k)
			return true;
	return false;
}

/* Keys whose domains a part must not straddle: those groups use and
 * those with a domain of two or more nodes (packing counts those). */
static bool key_sig(const wp_problem *p, int k)
{
	const wtp_key *key = &p->topo->keys[k];
	for (int d = 0; d < key->ndom; d++)
		if (key->dom_nnodes[d] >= 2)
			return true;
	return key_used(p, k);
}

bool wag_applies(const wp_problem *p, const char **why)
{
	const char *w = NULL;
	if (p->snap->dra)
		w = "device claims";
	else if (p->nmcls)
		w = "moves (--rebalance)";
	for (int g = 0; !w && g < p->ngroups; g++)
		if (p->groups[g].tas)
			w = "topology annotations";
	for (int u = 0; !w && u < p->nunits; u++)
		if (p->units[u].npdb)
			w = "PodDisruptionBudgets";
	for (size_t i = 0; !w && i < (size_t)p->nnodes * p->nres; i++)
		if (p->free[i] < 0)
			w = "over-committed nodes";
	if (!w && p->nnodes < 2)
		w = "one node";
	if (why)
		*why = w;
	return w == NULL;
}

bool wag_prefer(const wp_problem *p, double left, const char **why)
{
	if (!wag_applies(p, why))
		return false;
	int rows, cols;
	long nz;
	wilp_estimate(p, &rows, &cols, &nz);
	if (left <= 0 || (cols <= WAG_NODE_MAX_COLS &&
			  WAG_NODE_LP_S_PER_NZ * (double)nz <=
			      WAG_NODE_LP_SHARE * left)) {
		if (why)
			*why = "the node model fits the time";
		return false;
	}
	return true;
}

typedef struct psort {
	const wp_problem *p;
	const unsigned char *sig;
	const int *cbeg, *clist; /* per node: eligible classes */
} psort;

static int part_cmp(const void *ctx, int a, int b)
{
	const psort *s = ctx;
	const wtp_topo *t = s->p->topo;
	for (int k = 0; t && k < t->nkeys; k++) {
		if (!s->sig[k])
			continue;
		int da = t->keys[k].node_dom[a], db = t->keys[k].node_dom[b];
		if (da != db)
			return da < db ? -1 : 1;
	}
	int na = s->cbeg[a + 1] - s->cbeg[a], nb = s->cbeg[b + 1] - s->cbeg[b];
	if (na != nb)
		return na < nb ? -1 : 1;
	for (int i = 0; i < na; i++) {
		int ca = s->clist[s->cbeg[a] + i], cb = s->clist[s->cbeg[b] + i];
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return 0;
}

void wag_make_parts(ag *m)
{
	const wp_problem *p = m->p;
	int N = p->nnodes, nk = p->topo ? p->topo->nkeys : 0;
	unsigned char *sig = wa_calloc(m->ar, (size_t)nk + 1, 1);
	int *cbeg = wa_calloc(m->ar, (size_t)N + 2, sizeof *cbeg);
	int *fill = wa_calloc(m->ar, (size_t)N + 1, sizeof *fill);
	int *clist = wa_calloc(m->ar, (size_t)p->nx + 1, sizeof *clist);
	int *ord = wa_calloc(m->ar, (size_t)N + 1, sizeof *ord);
	int *tmp = wa_calloc(m->ar, (size_t)N + 1, sizeof *tmp);
	m->part = wa_calloc(m->ar, (size_t)N + 1, sizeof *m->part);
	m->pbeg = wa_calloc(m->ar, (size_t)N + 2, sizeof *m->pbeg);
	m->pnode = wa_calloc(m->ar, (size_t)N + 1, sizeof *m->pnode);
	if (!sig || !cbeg || !fill || !clist || !ord || !tmp || !m->part ||
	    !m->pbeg || !m->pnode) {
		m->nomem = true;
		return;
	}
	for (int k = 0; k < nk; k++)
		sig[k] = key_sig(p, k);
	for (int c = 0; c < p->nclasses; c++)
		for (int i = 0; i < p->classes[c].nelig; i++)
			cbeg[p->classes[c].elig[i] + 1]++;
	for (int n = 0; n < N; n++)
		cbeg[n + 1] += cbeg[n];
	for (int c = 0; c < p->nclasses; c++)
		for (int i = 0; i < p->classes[c].nelig; i++) {
			int n = p->classes[c].elig[i];
			clist[cbeg[n] + fill[n]++] = c;
		}
	for (int n = 0; n < N; n++)
		ord[n] = n;
	psort ps = {p, sig, cbeg, clist};
	wis_sort(ord, tmp, N, part_cmp, &ps);
	m->npart = 0;
	for (int i = 0; i < N; i++) {
		if (i == 0 || part_cmp(&ps, ord[i - 1], ord[i]))
			m->pbeg[m->npart++] = i;
		m->pnode[i] = ord[i];
		m->part[ord[i]] = m->npart - 1;
	}
	m->pbeg[m->npart] = N;
}

int wag_unit_node(const wp_problem *p, int u)
{
	return p->snap->pods[p->units[u].pods[0]].node;
}

/* Single units of one part with the same priority and requests are
 * interchangeable here; an `all` unit is a class of its own. */
static int q_cmp(const void *ctx, int a, int b)
{
	const ag *m = ctx;
	const wp_problem *p = m->p;
	const wp_unit *x = &p->units[a], *y = &p->units[b];
	if (x->all != y->all)
		return x->all ? 1 : -1;
	if (!x->all) {
		int pa = m->part[wag_unit_node(p, a)];
		int pb = m->part[wag_unit_node(p, b)];
		if (pa != pb)
			return pa < pb ? -1 : 1;
		if (x->priority != y->priority)
			return x->priority < y->priority ? -1 : 1;
		int c = memcmp(p->snap->pods[x->pods[0]].req,
			       p->snap->pods[y->pods[0]].req,
			       (size_t)p->nres * sizeof(int64_t));
		if (c)
			return c;
	}
	return (a > b) - (a < b);
}

void wag_make_qclasses(ag *m)
{
	const wp_problem *p = m->p;
	int32_t maxp;
	bool any = wpe_top_priority(p, &maxp);
	int U = p->nunits, N = p->nnodes;
	m->evu = wa_calloc(m->ar, (size_t)U + 1, 1);
	m->unit_qc = wa_calloc(m->ar, (size_t)U + 1, sizeof *m->unit_qc);
	m->qc_beg = wa_calloc(m->ar, (size_t)U + 2, sizeof *m->qc_beg);
	m->qc_units = wa_calloc(m->ar, (size_t)U + 1, sizeof *m->qc_units);
	int *v = wa_calloc(m->ar, (size_t)U + 1, sizeof *v);
	int *tmp = wa_calloc(m->ar, (size_t)U + 1, sizeof *tmp);
	m->nub = wa_calloc(m->ar, (size_t)N + 2, sizeof *m->nub);
	if (!m->evu || !m->unit_qc || !m->qc_beg || !m->qc_units || !v ||
	    !tmp || !m->nub) {
		m->nomem = true;
		return;
	}
	int nv = 0, npods = 0;
	for (int u = 0; u < U; u++) {
		m->unit_qc[u] = -1;
		if (any && p->units[u].priority < maxp && !p->units[u].keep) {
			m->evu[u] = 1;
			v[nv++] = u;
			npods += p->units[u].npods;
		}
	}
	wis_sort(v, tmp, nv, q_cmp, m);
	m->nqc = 0;
	for (int i = 0; i < nv; i++) {
		bool same = i > 0 && !p->units[v[i]].all &&
			    !p->units[v[i - 1]].all &&
			    m->part[wag_unit_node(p, v[i])] ==
				m->part[wag_unit_node(p, v[i - 1])] &&
			    p->units[v[i]].priority ==
				p->units[v[i - 1]].priority &&
			    !memcmp(p->snap->pods[p->units[v[i]].pods[0]].req,
				    p->snap->pods[p->units[v[i - 1]].pods[0]]
					.req,
				    (size_t)p->nres * sizeof(int64_t));
		if (!same)
			m->qc_beg[m->nqc++] = i;
		m->qc_units[i] = v[i];
		m->unit_qc[v[i]] = m->nqc - 1;
	}
	m->qc_beg[m->nqc] = nv;
	/* per node, the pods of evictable units there */
	m->nup = wa_calloc(m->ar, (size_t)npods + 1, sizeof *m->nup);
	m->nuu = wa_calloc(m->ar, (size_t)npods + 1, sizeof *m->nuu);
	int *fill = wa_calloc(m->ar, (size_t)N + 1, sizeof *fill);
	if (!m->nup || !m->nuu || !fill) {
		m->nomem = true;
		return;
	}
	for (int u = 0; u < U; u++)
		for (int i = 0; m->evu[u] && i < p->units[u].npods; i++)
			m->nub[p->snap->pods[p->units[u].pods[i]].node + 1]++;
	for (int n = 0; n < N; n++)
		m->nub[n + 1] += m->nub[n];
	for (int u = 0; u < U; u++)
		for (int i = 0; m->evu[u] && i < p->units[u].npods; i++) {
			int pod = p->units[u].pods[i];
			int n = p->snap->pods[pod].node;
			m->nuu[m->nub[n] + fill[n]] = u;
			m->nup[m->nub[n] + fill[n]++] = pod;
		}
}

int32_t wag_q_prio(const ag *m, int qc)
{
	return m->p->units[m->qc_units[m->qc_beg[qc]]].priority;
}

int wag_q_k(const ag *m, int qc)
{
	return m->qc_beg[qc + 1] - m->qc_beg[qc];
}

/* What one unit of class qc holds of resource r in part P; with s > 0
 * the slots of size s its eviction frees there at most: per node,
 * ceil(use / s). */
int64_t wag_q_use(const ag *m, int qc, int P, int r, int64_t s)
{
	const wp_problem *p = m->p;
	const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
	int64_t u = 0;
	for (int i = 0; i < un->npods; i++) {
		const ws_pod *pod = &p->snap->pods[un->pods[i]];
		if (m->part[pod->node] != P || pod->req[r] <= 0)
			continue;
		if (!s) {
			u += pod->req[r];
			continue;
		}
		/* pods of the unit on one node free one block of room */
		bool first = true;
		for (int k = 0; k < i && first; k++)
			first = p->snap->pods[un->pods[k]].node != pod->node;
		if (!first)
			continue;
		int64_t on = 0;
		for (int k = i; k < un->npods; k++)
			if (p->snap->pods[un->pods[k]].node == pod->node)
				on += p->snap->pods[un->pods[k]].req[r];
		u += (on + s - 1) / s;
	}
	return u;
}

double wag_q_cost(const ag *m, int qc)
{
	const wp_unit *un = &m->p->units[m->qc_units[m->qc_beg[qc]]];
	return (double)un->npods * un->weight;
}
