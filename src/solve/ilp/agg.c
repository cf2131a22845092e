/*
 * agg.c -- the ILP over parts (agg.h; doc/formulation.md §10).
 *
 * A part is a set of nodes that lie in the same domain of every topology
 * key that matters and are eligible for the same classes.  The part model
 * has one integer column per (class, part), the node model's group, tree
 * and packing columns, and per part:
 *   - the node model's capacity rows (per resource and priority level)
 *     summed over the part's nodes;
 *   - floor rows: for each request size s of a resource, a pod takes
 *     floor(req / s) slots and a node has floor(free / s), summed per
 *     node and so valid for any packing; for sizes that divide one another
 *     (1, 2, 4, 8 GPUs) and no eviction they are exact: largest-first
 *     packing then fits whatever they admit;
 *   - u[P], the part's nodes that stay wholly free, taking the room of
 *     the smallest such node out of every row.
 * Every node solution maps to a part solution of equal objective (the
 * weights are the node model's), so the part optimum bounds the node
 * optimum.  Plans come back to nodes three ways, the best kept: the node
 * model's LP rounding run on the part LP (ilp.c, wilp_round); the part
 * answer split part by part by a small GLPK model (split); and, with the
 * time left, the node model confined to the parts those use (confine).
 * When the plan reaches the part bound it is optimal.
 *
 * Not covered (wag_applies says which): device claims, moves, topology
 * annotations, PodDisruptionBudgets, over-committed nodes.  wag_solve
 * hands the problem to the node model when parts barely merge nodes or
 * the objective is too wide for one weighted solve.
 */
#include "solve/ilp/agg.h"
#include "base/clock.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/glpkenv.h"
#include "base/sort.h"
#include "reduce/units.h"

#define WAG_MAX_COEF ((double)(1L << 30)) /* as WILP_MAX_COEF (ilp.c) */
#define WAG_MARGIN_S 0.2        /* left of the deadline for GLPK       */
#define WAG_CONFINE_SHARE 0.4   /* of the time, kept for the confined
				   node solve                          */
#define WAG_CONFINE_MIN_S 0.5   /* ... when at least this much is left */
#define WAG_CUTS_MAX_COLS 5000  /* cuts on up to this many columns     */
#define WAG_ROUND_PASSES 32     /* node-level roundings of the part LP  */

enum { AG_X, AG_A, AG_T, AG_H, AG_S, AG_U, AG_V, AG_Q };

typedef struct ag {
	const wp_problem *p;
	wa_arena *ar;
	bool nomem;
	/* parts: nodes of part i are pnode[pbeg[i] .. pbeg[i+1]) */
	int npart;
	int *part;          /* per node */
	int *pbeg, *pnode;
	/* running units that some pending group could evict (ilp.c's
	 * eviction classes), and their classes over parts */
	unsigned char *evu; /* per unit */
	int *nub, *nup, *nuu; /* per node: pods of evictable units there,
				 and their units                       */
	int nqc;
	int *qc_beg, *qc_units, *unit_qc;
	/* columns (1-based) */
	int ncols;
	size_t capc;
	double *clb, *cub, *cobj;
	unsigned char *ckind;
	int *cref, *cdom;
	/* rows (1-based), entries of row i: ja/av[rbeg[i] .. rbeg[i+1]) */
	int nrows;
	size_t capr, cape;
	int *rbeg, *rtype;
	double *rlo, *rhi;
	int nnz;
	int *ja;
	double *av;
	/* maps */
	int *nub_x;         /* per node * class: x bound on that node     */
	int *xcol, *xub;    /* nclasses * npart                          */
	int *xfit;          /* nclasses * npart: nodes with room for one  */
	int *sub;           /* per slot: pods of the class its node holds
			       alone (node_bound), 0 outside the part's
			       allowed domains                           */
	unsigned char *hascol; /* per node: some class may use it        */
	int *acol, *tbeg, *tn; /* per group                              */
	int *hcol, *hbeg, *hn; /* per composite                          */
	int *ucol;          /* per part                                   */
	int *nnu;           /* per part: its NU nodes                     */
	unsigned char *nu;  /* per node: empty and eligible for a class   */
	int *qcol;          /* per eviction class                         */
	/* objective tiers: work per priority, evictions, packing */
	int ntier, qtier;
	int32_t *tprio;
	double *tM, *tmax, *W;
	int *ctier;         /* per class */
	double maxcoef;
} ag;

/* ---------------------------------------------------------- building */

/* Copies n elements of *arr into a new array of cap elements. */
static bool regrow(ag *m, void **arr, size_t el, size_t n, size_t cap)
{
	void *q = wa_calloc(m->ar, cap, el);
	if (!q) {
		m->nomem = true;
		return false;
	}
	if (*arr)
		memcpy(q, *arr, el * n);
	*arr = q;
	return true;
}

static int ag_col(ag *m, int kind, int ref, int dom, double lb, double ub)
{
	if (m->nomem)
		return 0;
	if ((size_t)m->ncols + 2 > m->capc) {
		size_t c = m->capc ? 2 * m->capc : 1024, n = m->ncols + 1;
		if (!regrow(m, (void **)&m->clb, sizeof *m->clb, n, c) ||
		    !regrow(m, (void **)&m->cub, sizeof *m->cub, n, c) ||
		    !regrow(m, (void **)&m->cobj, sizeof *m->cobj, n, c) ||
		    !regrow(m, (void **)&m->ckind, sizeof *m->ckind, n, c) ||
		    !regrow(m, (void **)&m->cref, sizeof *m->cref, n, c) ||
		    !regrow(m, (void **)&m->cdom, sizeof *m->cdom, n, c))
			return 0;
		m->capc = c;
	}
	int j = ++m->ncols;
	m->clb[j] = lb;
	m->cub[j] = ub;
	m->cobj[j] = 0;
	m->ckind[j] = (unsigned char)kind;
	m->cref[j] = ref;
	m->cdom[j] = dom;
	return j;
}

/* A row is built as begin, coef..., end (or drop). */
static void ag_row_begin(ag *m)
{
	if (m->nomem)
		return;
	if ((size_t)m->nrows + 3 > m->capr) {
		size_t c = m->capr ? 2 * m->capr : 1024, n = m->nrows + 2;
		if (!regrow(m, (void **)&m->rbeg, sizeof *m->rbeg, n, c) ||
		    !regrow(m, (void **)&m->rtype, sizeof *m->rtype, n, c) ||
		    !regrow(m, (void **)&m->rlo, sizeof *m->rlo, n, c) ||
		    !regrow(m, (void **)&m->rhi, sizeof *m->rhi, n, c))
			return;
		m->capr = c;
	}
	if (m->nrows == 0)
		m->rbeg[1] = 1;
	m->rbeg[m->nrows + 2] = m->rbeg[m->nrows + 1];
}

static void ag_coef(ag *m, int j, double v)
{
	if (m->nomem || !j || v == 0)
		return;
	size_t k = (size_t)m->rbeg[m->nrows + 2];
	if (k + 1 > m->cape) {
		size_t c = m->cape ? 2 * m->cape : 8192;
		if (!regrow(m, (void **)&m->ja, sizeof *m->ja, k, c) ||
		    !regrow(m, (void **)&m->av, sizeof *m->av, k, c))
			return;
		m->cape = c;
	}
	m->ja[k] = j;
	m->av[k] = v;
	m->rbeg[m->nrows + 2]++;
}

static void ag_row_end(ag *m, int type, double lo, double hi)
{
	if (m->nomem)
		return;
	int i = ++m->nrows;
	m->rtype[i] = type;
	m->rlo[i] = lo;
	m->rhi[i] = hi;
	m->nnz = m->rbeg[i + 1] - 1;
}

static void ag_row_drop(ag *m)
{
	if (!m->nomem)
		m->rbeg[m->nrows + 2] = m->rbeg[m->nrows + 1];
}

static int dom_of(const ag *m, int key, int part)
{
	return m->p->topo->keys[key].node_dom[m->pnode[m->pbeg[part]]];
}

/* ------------------------------------------------------ applicability */

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
	if (left <= 0 || WAG_NODE_LP_S_PER_NZ * (double)nz <=
			     WAG_NODE_LP_SHARE * left) {
		if (why)
			*why = "the node model fits the time";
		return false;
	}
	return true;
}

/* -------------------------------------------------------------- parts */

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

static void make_parts(ag *m)
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

/* --------------------------------------------------- eviction classes */

static int unit_node(const wp_problem *p, int u)
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
		int pa = m->part[unit_node(p, a)], pb = m->part[unit_node(p, b)];
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

static void make_qclasses(ag *m)
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
			    m->part[unit_node(p, v[i])] ==
				m->part[unit_node(p, v[i - 1])] &&
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

static int32_t q_prio(const ag *m, int qc)
{
	return m->p->units[m->qc_units[m->qc_beg[qc]]].priority;
}

static int q_k(const ag *m, int qc)
{
	return m->qc_beg[qc + 1] - m->qc_beg[qc];
}

/* What one unit of class qc holds of resource r in part P; with s > 0
 * the slots of size s its eviction frees there at most: per node,
 * ceil(use / s). */
static int64_t q_use(const ag *m, int qc, int P, int r, int64_t s)
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

static double q_cost(const ag *m, int qc)
{
	const wp_unit *un = &m->p->units[m->qc_units[m->qc_beg[qc]]];
	return (double)un->npods * un->weight;
}

/* ------------------------------------------------------------ columns */

/* ilp.c's eff_prio: a group that may not preempt uses no freed room. */
static int32_t eff_prio(const wp_problem *p, int c)
{
	int g = p->classes[c].group;
	return wpe_may_preempt(p, g) ? p->groups[g].priority : INT32_MIN;
}

/* ilp.c's x_bound_q without moves: pods of class c that fit on node n
 * alone, counting what evicting lower units there would free. */
static int node_bound(const ag *m, int c, int n)
{
	const wp_problem *p = m->p;
	const wp_class *cl = &p->classes[c];
	bool q_ok = m->nub[n + 1] > m->nub[n] && wpe_may_preempt(p, cl->group);
	int32_t pr = p->groups[cl->group].priority;
	int64_t ub = cl->count;
	for (int r = 0; r < p->nres; r++) {
		int64_t q = cl->req[r];
		if (q <= 0)
			continue;
		int64_t f = p->free[(size_t)n * p->nres + r];
		for (int i = m->nub[n]; q_ok && i < m->nub[n + 1]; i++) {
			if (p->units[m->nuu[i]].priority < pr)
				f += p->snap->pods[m->nup[i]].req[r];
		}
		if (f < q)
			return 0;
		if (f / q < ub)
			ub = f / q;
	}
	return (int)ub;
}

/* Topology and tree domains are the same on every node of a part. */
static bool part_allowed(const ag *m, const wp_group *g, int P)
{
	return wp_allowed(m->p, g, m->pnode[m->pbeg[P]]);
}

static void cols_x(ag *m)
{
	const wp_problem *p = m->p;
	int NP = m->npart;
	size_t nxp = (size_t)p->nclasses * NP;
	m->xcol = wa_calloc(m->ar, nxp + 1, sizeof *m->xcol);
	m->xub = wa_calloc(m->ar, nxp + 1, sizeof *m->xub);
	m->xfit = wa_calloc(m->ar, nxp + 1, sizeof *m->xfit);
	m->sub = wa_calloc(m->ar, (size_t)p->nx + 1, sizeof *m->sub);
	m->hascol = wa_calloc(m->ar, (size_t)p->nnodes + 1, 1);
	if (!m->xcol || !m->xub || !m->xfit || !m->sub || !m->hascol) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		const wp_group *g = &p->groups[cl->group];
		for (int k = 0; k < cl->nelig; k++) {
			int n = cl->elig[k], P = m->part[n];
			if (!part_allowed(m, g, P))
				continue;
			int ub = m->sub[cl->off + k] = node_bound(m, c, n);
			m->xub[(size_t)c * NP + P] += ub;
			m->xfit[(size_t)c * NP + P] += ub > 0;
		}
	}
	/* a gang's domains that cannot hold min_need pods (ilp.c cols_x) */
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->gang || g->key < 0 || g->min_need <= 0)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		long *dcap = wa_calloc(m->ar, (size_t)key->ndom + 1,
				       sizeof *dcap);
		long *per = wa_calloc(m->ar, (size_t)key->ndom + 1,
				      sizeof *per);
		if (!dcap || !per) {
			m->nomem = true;
			return;
		}
		for (int i = 0; i < g->nclasses; i++) {
			int c = g->classes[i];
			memset(per, 0, sizeof *per * (key->ndom + 1));
			for (int P = 0; P < NP; P++) {
				int d = dom_of(m, g->key, P);
				if (d >= 0)
					per[d] += m->xub[(size_t)c * NP + P];
			}
			for (int d = 0; d < key->ndom; d++)
				dcap[d] += per[d] < p->classes[c].count
					       ? per[d]
					       : p->classes[c].count;
		}
		for (int i = 0; i < g->nclasses; i++)
			for (int P = 0; P < NP; P++) {
				int d = dom_of(m, g->key, P);
				if (d >= 0 && dcap[d] < g->min_need)
					m->xub[(size_t)g->classes[i] * NP + P] =
					    0;
			}
	}
	for (int c = 0; c < p->nclasses; c++)
		for (int P = 0; P < NP; P++) {
			size_t s = (size_t)c * NP + P;
			if (m->xub[s] <= 0)
				continue;
			int ub = m->xub[s] < p->classes[c].count
				     ? m->xub[s]
				     : p->classes[c].count;
			m->xcol[s] = ag_col(m, AG_X, c, P, 0, ub);
		}
	/* nodes some column may put pods on (ilp.c: x column there) */
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		for (int k = 0; k < cl->nelig; k++) {
			int n = cl->elig[k];
			if (m->xcol[(size_t)c * NP + m->part[n]] &&
			    m->sub[cl->off + k] > 0)
				m->hascol[n] = 1;
		}
	}
}

static int group_room(const ag *m, const wp_group *g, int key, int d)
{
	const wp_problem *p = m->p;
	long room = 0;
	for (int i = 0; i < g->nclasses; i++) {
		int c = g->classes[i];
		long s = 0;
		for (int P = 0; P < m->npart; P++) {
			size_t j = (size_t)c * m->npart + P;
			if (m->xcol[j] && (key < 0 || dom_of(m, key, P) == d))
				s += m->xub[j];
		}
		room += s < p->classes[c].count ? s : p->classes[c].count;
	}
	if (d >= 0 && room > g->size)
		room = g->size;
	return room > INT_MAX ? INT_MAX : (int)room;
}

/* has[d] = 1 for each domain d of key where group g has a column. */
static void mark_doms(const ag *m, const wp_group *g, int key,
		      unsigned char *has)
{
	for (int i = 0; i < g->nclasses; i++)
		for (int P = 0; P < m->npart; P++) {
			int d = dom_of(m, key, P);
			if (d >= 0 &&
			    m->xcol[(size_t)g->classes[i] * m->npart + P])
				has[d] = 1;
		}
}

/* The domains of key marked by mark_doms (caller fills it), zeroed;
 * NULL (and m->nomem) when memory runs out. */
static unsigned char *dom_marks(ag *m, int key)
{
	unsigned char *has =
	    wa_calloc(m->ar, (size_t)m->p->topo->keys[key].ndom + 1, 1);
	if (!has)
		m->nomem = true;
	return has;
}

/* One binary column of kind for (ref, d) per marked domain d of key:
 * the first's index in *beg, their count in *n. */
static void dom_cols(ag *m, int kind, int ref, int key,
		     const unsigned char *has, int *beg, int *n)
{
	*beg = m->ncols + 1;
	for (int d = 0; d < m->p->topo->keys[key].ndom; d++)
		if (has[d]) {
			ag_col(m, kind, ref, d, 0, 1);
			++*n;
		}
}

static void cols_groups(ag *m)
{
	const wp_problem *p = m->p;
	m->acol = wa_calloc(m->ar, (size_t)p->ngroups + 1, sizeof *m->acol);
	m->tbeg = wa_calloc(m->ar, (size_t)p->ngroups + 1, sizeof *m->tbeg);
	m->tn = wa_calloc(m->ar, (size_t)p->ngroups + 1, sizeof *m->tn);
	if (!m->acol || !m->tbeg || !m->tn) {
		m->nomem = true;
		return;
	}
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		if (g->gang || g->pcomp) {
			int room = group_room(m, g, -1, -1);
			if (room > 0 || (g->pcomp && g->gang && g->min_need == 0))
				m->acol[gi] = ag_col(m, AG_A, gi, -1, 0,
						     room >= g->min_need);
		}
		if (g->key < 0)
			continue;
		unsigned char *has = dom_marks(m, g->key);
		if (!has)
			return;
		mark_doms(m, g, g->key, has);
		dom_cols(m, AG_T, gi, g->key, has, &m->tbeg[gi], &m->tn[gi]);
	}
}

static void cols_comps(ag *m)
{
	const wp_problem *p = m->p;
	m->hcol = wa_calloc(m->ar, (size_t)p->ncomps + 1, sizeof *m->hcol);
	m->hbeg = wa_calloc(m->ar, (size_t)p->ncomps + 1, sizeof *m->hbeg);
	m->hn = wa_calloc(m->ar, (size_t)p->ncomps + 1, sizeof *m->hn);
	if (!m->hcol || !m->hbeg || !m->hn) {
		m->nomem = true;
		return;
	}
	for (int h = 0; h < p->ncomps && !m->nomem; h++) {
		const wp_comp *c = &p->comps[h];
		bool dead = c->invalid || c->fixed_dom == -2;
		m->hcol[h] = ag_col(m, AG_H, h, -1, 0, dead ? 0 : 1);
		if (c->key < 0)
			continue;
		unsigned char *has = dom_marks(m, c->key);
		if (!has)
			return;
		for (int g = 0; g < p->ngroups; g++)
			if (wp_group_below(p, g, h))
				mark_doms(m, &p->groups[g], c->key, has);
		dom_cols(m, AG_S, h, c->key, has, &m->hbeg[h], &m->hn[h]);
	}
}

/* u[P]: nodes of part P that stay wholly free, NU nodes only (empty and
 * eligible for some class, as ilp.c's u columns); at least those no
 * column can reach.  v[k,d]: a domain of two or more nodes, all empty,
 * some in NU, stays wholly free. */
static void cols_packing(ag *m)
{
	const wp_problem *p = m->p;
	m->nu = wa_calloc(m->ar, (size_t)p->nnodes + 1, 1);
	m->nnu = wa_calloc(m->ar, (size_t)m->npart + 1, sizeof *m->nnu);
	m->ucol = wa_calloc(m->ar, (size_t)m->npart + 1, sizeof *m->ucol);
	if (!m->nu || !m->nnu || !m->ucol) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++) {
			int n = p->classes[c].elig[k];
			m->nu[n] = wp_node_empty(p, n);
		}
	for (int P = 0; P < m->npart; P++) {
		int lb = 0;
		for (int i = m->pbeg[P]; i < m->pbeg[P + 1]; i++) {
			int n = m->pnode[i];
			if (!m->nu[n])
				continue;
			m->nnu[P]++;
			lb += !m->hascol[n];
		}
		if (m->nnu[P])
			m->ucol[P] = ag_col(m, AG_U, P, -1, lb, m->nnu[P]);
	}
	const wtp_topo *t = p->topo;
	int *seen = wa_calloc(m->ar, (size_t)m->npart + 1, sizeof *seen);
	if (!seen) {
		m->nomem = true;
		return;
	}
	int stamp = 0;
	for (int k = 0; t && k < t->nkeys && !m->nomem; k++) {
		const wtp_key *key = &t->keys[k];
		for (int d = 0; d < key->ndom && !m->nomem; d++) {
			int nn = key->dom_nnodes[d], nu = 0;
			bool ok = nn >= 2;
			for (int i = 0; i < nn && ok; i++) {
				int n = key->dom_nodes[d][i];
				ok = wp_node_empty(p, n);
				nu += m->nu[n];
			}
			if (!ok || !nu)
				continue;
			int j = ag_col(m, AG_V, k, d, 0, 1);
			stamp++;
			for (int i = 0; i < nn; i++) {
				int P = m->part[key->dom_nodes[d][i]];
				if (seen[P] == stamp || !m->nnu[P])
					continue;
				seen[P] = stamp;
				/* nnu[P] v <= u[P] */
				ag_row_begin(m);
				ag_coef(m, j, m->nnu[P]);
				ag_coef(m, m->ucol[P], -1);
				ag_row_end(m, GLP_UP, 0, 0);
			}
		}
	}
}

static void cols_q(ag *m)
{
	m->qcol = wa_calloc(m->ar, (size_t)m->nqc + 1, sizeof *m->qcol);
	if (!m->qcol) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++)
		m->qcol[qc] = ag_col(m, AG_Q, qc, -1, 0, q_k(m, qc));
}

/* --------------------------------------------------------------- rows */

/* Calls ag_coef(col, 1) on every x column of group g in domain d of key
 * (any domain: key < 0); returns the room min(size, sum of bounds). */
static long group_terms(ag *m, const wp_group *g, int key, int d)
{
	long room = 0;
	for (int i = 0; i < g->nclasses; i++) {
		int c = g->classes[i];
		long rc = 0;
		for (int P = 0; P < m->npart; P++) {
			size_t j = (size_t)c * m->npart + P;
			if (!m->xcol[j] || (key >= 0 && dom_of(m, key, P) != d))
				continue;
			ag_coef(m, m->xcol[j], 1);
			rc += (long)m->cub[m->xcol[j]];
		}
		room += rc < m->p->classes[c].count ? rc
						    : m->p->classes[c].count;
	}
	return room < g->size ? room : g->size;
}

/* cls, gmin, dsel and dom of ilp.c, over parts. */
static void rows_groups(ag *m)
{
	const wp_problem *p = m->p;
	for (int c = 0; c < p->nclasses && !m->nomem; c++) {
		const wp_class *cl = &p->classes[c];
		int a = m->acol[cl->group];
		long room = 0;
		ag_row_begin(m);
		for (int P = 0; P < m->npart; P++) {
			int j = m->xcol[(size_t)c * m->npart + P];
			if (j) {
				ag_coef(m, j, 1);
				room += (long)m->cub[j];
			}
		}
		if (a) {
			ag_coef(m, a, -cl->count);
			ag_row_end(m, GLP_UP, 0, 0);
		} else if (room > cl->count) {
			ag_row_end(m, GLP_UP, 0, cl->count);
		} else {
			ag_row_drop(m); /* cannot bind */
		}
	}
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		int need = g->gang ? g->min_need : 1;
		if (m->acol[gi] && need > 0) {
			ag_row_begin(m);
			group_terms(m, g, -1, -1);
			ag_coef(m, m->acol[gi], -need);
			ag_row_end(m, GLP_LO, 0, 0);
		}
		if (!m->tn[gi])
			continue;
		ag_row_begin(m);
		for (int i = 0; i < m->tn[gi]; i++)
			ag_coef(m, m->tbeg[gi] + i, 1);
		if (m->acol[gi]) {
			ag_coef(m, m->acol[gi], -1);
			ag_row_end(m, GLP_FX, 0, 0);
		} else {
			ag_row_end(m, GLP_UP, 0, 1);
		}
		for (int i = 0; i < m->tn[gi]; i++) {
			int j = m->tbeg[gi] + i;
			ag_row_begin(m);
			long room = group_terms(m, g, g->key, m->cdom[j]);
			ag_coef(m, j, -(double)room);
			ag_row_end(m, GLP_UP, 0, 0);
		}
	}
}

/* tup, tmin, tsel, tdom of ilp.c, over parts. */
static void rows_tree(ag *m)
{
	const wp_problem *p = m->p;
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->pcomp || !m->acol[gi])
			continue;
		ag_row_begin(m);
		ag_coef(m, m->acol[gi], 1);
		ag_coef(m, m->hcol[g->pcomp - 1], -1);
		ag_row_end(m, GLP_UP, 0, 0);
	}
	for (int h = 0; h < p->ncomps && !m->nomem; h++) {
		const wp_comp *c = &p->comps[h];
		if (c->parent >= 0) {
			ag_row_begin(m);
			ag_coef(m, m->hcol[h], 1);
			ag_coef(m, m->hcol[c->parent], -1);
			ag_row_end(m, GLP_UP, 0, 0);
		}
		ag_row_begin(m);
		for (int i = 0; i < c->nkids; i++) {
			int k = c->kids[i];
			ag_coef(m, k >= 0 ? m->acol[k] : m->hcol[-1 - k], 1);
		}
		int need = c->min_groups > 0 ? c->min_groups : 1;
		ag_coef(m, m->hcol[h], -need);
		ag_row_end(m, GLP_LO, -c->nrunning, 0);
		if (c->key < 0 || !m->hn[h])
			continue;
		ag_row_begin(m);
		for (int i = 0; i < m->hn[h]; i++)
			ag_coef(m, m->hbeg[h] + i, 1);
		ag_coef(m, m->hcol[h], -1);
		ag_row_end(m, GLP_FX, 0, 0);
		for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
			if (!wp_group_below(p, gi, h))
				continue;
			for (int i = 0; i < m->hn[h]; i++) {
				int j = m->hbeg[h] + i;
				ag_row_begin(m);
				long room = group_terms(m, &p->groups[gi],
							c->key, m->cdom[j]);
				ag_coef(m, j, -(double)room);
				ag_row_end(m, GLP_UP, 0, 0);
			}
		}

	}
}

/* One capacity row of part P, resource r, priority level L: ilp.c's
 * cap/capq rows of its nodes summed, minus the room of u[P] free nodes
 * (the smallest NU node's each).  With s > 0 the floor row for request
 * size s instead: a pod takes floor(request / s) slots, a node has
 * floor(free / s), and evicting a unit adds at most ceil(use / s) per
 * node, so in keep form
 *   sum floor(req/s) x + sum cuse q <= sum_n floor(free_n/s) + sum cuse k.
 * Valid for any sizes; with sizes that divide one another and no
 * evictions it is exact (largest first then packs what it admits). */
static void cap_row(ag *m, int P, int r, int32_t L, int64_t s)
{
	const wp_problem *p = m->p;
	int NP = m->npart;
	int64_t g = 0, rhs = 0, umin = -1;
	bool any = false;
	for (int c = 0; c < p->nclasses; c++) {
		int64_t q = p->classes[c].req[r];
		if (!m->xcol[(size_t)c * NP + P] || q <= 0 ||
		    eff_prio(p, c) > L)
			continue;
		g = wp_gcd(g, s ? q / s : q);
		any = g > 0;
	}
	if (!any)
		return; /* no pod of this level takes a slot of size s */
	for (int i = m->pbeg[P]; i < m->pbeg[P + 1]; i++) {
		int n = m->pnode[i];
		int64_t f = p->free[(size_t)n * p->nres + r];
		rhs += s ? f / s : f;
		if (m->nu[n] && (umin < 0 || f < umin))
			umin = f; /* an NU node is empty: f is its room */
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		if (q_prio(m, qc) >= L)
			continue;
		int64_t u = q_use(m, qc, P, r, s);
		if (u <= 0)
			continue;
		g = wp_gcd(g, u);
		rhs += u * q_k(m, qc);
	}
	if (s)
		umin = umin >= 0 ? umin / s : -1;
	ag_row_begin(m);
	for (int c = 0; c < p->nclasses; c++) {
		int64_t q = p->classes[c].req[r];
		int j = m->xcol[(size_t)c * NP + P];
		if (j && q > 0 && eff_prio(p, c) <= L)
			ag_coef(m, j, (double)((s ? q / s : q) / g));
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		if (q_prio(m, qc) >= L)
			continue;
		int64_t u = q_use(m, qc, P, r, s);
		if (u > 0)
			ag_coef(m, m->qcol[qc], (double)(u / g));
	}
	if (m->ucol[P] && umin > 0)
		ag_coef(m, m->ucol[P], (double)(umin / g));
	ag_row_end(m, GLP_UP, 0, (double)(rhs / g));
}

/* Does resource g dominate r in part P: every pod of the part requests
 * g, and on every node what fits by g fits by r (for every class c and
 * node n, req_r(c) free_g(n) <= req_g(c) free_r(n), and the same with
 * what an eviction frees there in place of free)?  Then r's rows, node
 * by node and so summed, are implied: only g's are written (on GPU
 * clusters cpu, memory and pods follow the GPUs). */
static bool dominates(const ag *m, int P, int g, int r)
{
	const wp_problem *p = m->p;
	for (int c = 0; c < p->nclasses; c++) {
		if (!m->xcol[(size_t)c * m->npart + P])
			continue;
		__int128 qg = p->classes[c].req[g], qr = p->classes[c].req[r];
		if (qg <= 0)
			return false;
		for (int i = m->pbeg[P]; i < m->pbeg[P + 1]; i++) {
			int n = m->pnode[i];
			__int128 fg = p->free[(size_t)n * p->nres + g];
			__int128 fr = p->free[(size_t)n * p->nres + r];
			if (qr * fg > qg * fr)
				return false;
			for (int k = m->nub[n]; k < m->nub[n + 1]; k++) {
				const int64_t *u = p->snap->pods[m->nup[k]].req;
				if (qr * u[g] > qg * (__int128)u[r])
					return false;
			}
		}
	}
	return true;
}

static void rows_cap(ag *m)
{
	const wp_problem *p = m->p;
	int NP = m->npart;
	int32_t *lv = wa_calloc(m->ar, (size_t)p->nclasses + 1, sizeof *lv);
	int64_t *sz = wa_calloc(m->ar, (size_t)p->nclasses + 1, sizeof *sz);
	unsigned char *drop = wa_calloc(m->ar, (size_t)p->nres + 1, 1);
	if (!lv || !sz || !drop) {
		m->nomem = true;
		return;
	}
	for (int P = 0; P < NP && !m->nomem; P++) {
		bool hasq = false;
		for (int i = m->pbeg[P]; i < m->pbeg[P + 1] && !hasq; i++)
			hasq = m->nub[m->pnode[i] + 1] > m->nub[m->pnode[i]];
		int nl = 0;
		for (int c = 0; c < p->nclasses; c++) {
			if (!m->xcol[(size_t)c * NP + P])
				continue;
			int32_t pr = eff_prio(p, c);
			int k = 0;
			while (k < nl && lv[k] != pr)
				k++;
			if (k == nl)
				lv[nl++] = pr;
		}
		if (!hasq && nl > 1) {
			/* no eviction credit: the top level implies the rest */
			for (int l = 1; l < nl; l++)
				if (lv[l] > lv[0])
					lv[0] = lv[l];
			nl = 1;
		}
		memset(drop, 0, (size_t)p->nres);
		for (int r = 0; r < p->nres; r++)
			for (int g = 0; g < p->nres && !drop[r]; g++)
				drop[r] = g != r && !drop[g] &&
					  dominates(m, P, g, r);
		for (int r = 0; r < p->nres; r++) {
			if (drop[r])
				continue;
			for (int l = 0; l < nl; l++)
				cap_row(m, P, r, lv[l], 0);
			/* floor rows, one per request size */
			int ns = 0;
			for (int c = 0; c < p->nclasses; c++) {
				int64_t q = p->classes[c].req[r];
				if (!m->xcol[(size_t)c * NP + P] || q <= 0)
					continue;
				int k = 0;
				while (k < ns && sz[k] != q)
					k++;
				if (k == ns)
					sz[ns++] = q;
			}
			for (int l = 0; l < nl; l++)
				for (int k = 0; k < ns; k++)
					cap_row(m, P, r, lv[l], sz[k]);
		}
	}
}

/* ---------------------------------------------------------- objective */

/* The node model's tiers and weights (ilp.c objective()): work per
 * pending priority, evictions in keep form, packing. */
static void objective(ag *m)
{
	const wp_problem *p = m->p;
	int nt = 0;
	size_t ntmax = (size_t)p->nclasses + 3;
	m->tprio = wa_calloc(m->ar, ntmax, sizeof *m->tprio);
	m->tM = wa_calloc(m->ar, ntmax, sizeof *m->tM);
	m->tmax = wa_calloc(m->ar, ntmax, sizeof *m->tmax);
	m->W = wa_calloc(m->ar, ntmax, sizeof *m->W);
	m->ctier = wa_calloc(m->ar, (size_t)p->nclasses + 1,
			     sizeof *m->ctier);
	if (!m->tprio || !m->tM || !m->tmax || !m->W || !m->ctier) {
		m->nomem = true;
		return;
	}
	nt = wilp_work_tiers(p, m->tprio, m->tM, m->tmax, m->ctier);
	int64_t vg = wilp_value_gcd(p);
	m->qtier = -1;
	if (m->nqc > 0) {
		m->qtier = nt++;
		wpe_evict_range(p, &m->tM[m->qtier], &m->tmax[m->qtier]);
	}
	double np = 0;
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == AG_V)
			np += 1;
	for (int P = 0; P < m->npart; P++)
		np += m->nnu[P];
	m->tM[nt] = np;
	m->tmax[nt] = 1;
	m->ntier = nt + 1;
	m->maxcoef = wilp_tier_weights(m->tM, m->tmax, 0, m->ntier - 1, m->W);
	for (int j = 1; j <= m->ncols; j++) {
		switch (m->ckind[j]) {
		case AG_X:
			m->cobj[j] = m->W[m->ctier[m->cref[j]]] *
				     (double)wilp_class_value(p, m->cref[j], vg);
			break;
		case AG_Q:
			m->cobj[j] = m->W[m->qtier] * q_cost(m, m->cref[j]);
			break;
		case AG_U:
		case AG_V:
			m->cobj[j] = 1;
			break;
		default:
			break;
		}
	}
}

/* The steps in order; each returns early on m->nomem. */
static void (*const build_steps[])(ag *) = {
    make_parts, make_qclasses, cols_x,   cols_groups, cols_comps,
    cols_q,     cols_packing,  rows_groups, rows_tree, rows_cap,
    objective};

static int build(ag *m)
{
	for (size_t i = 0;
	     i < sizeof build_steps / sizeof *build_steps && !m->nomem; i++)
		build_steps[i](m);
	return m->nomem ? WASP_ENOMEM : WASP_OK;
}

/* ------------------------------------------ node solutions as vectors */

/* The part image of a node solution (its objective is the node model's
 * at s).  Returns false when s uses something the model has no column
 * for. */
static bool vec_of_sol(const ag *m, const wp_sol *s, double *v)
{
	const wp_problem *p = m->p;
	int NP = m->npart;
	memset(v, 0, sizeof *v * (m->ncols + 1));
	unsigned char *busy = calloc((size_t)p->nnodes + 1, 1);
	int *hdom = calloc((size_t)p->ncomps + 1, sizeof *hdom);
	if (!busy || !hdom) {
		free(busy);
		free(hdom);
		return false;
	}
	bool ok = true;
	for (int h = 0; h < p->ncomps; h++)
		hdom[h] = -1;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		const wp_group *g = &p->groups[cl->group];
		for (int k = 0; k < cl->nelig; k++) {
			int x = s->x[cl->off + k], n = cl->elig[k];
			if (!x)
				continue;
			int j = m->xcol[(size_t)c * NP + m->part[n]];
			if (!j) {
				ok = false;
				continue;
			}
			v[j] += x;
			busy[n] = 1;
			for (int h = g->pcomp - 1; h >= 0;
			     h = p->comps[h].parent)
				if (p->comps[h].key >= 0)
					hdom[h] = p->topo->keys[p->comps[h].key]
						      .node_dom[n];
			if (g->key < 0)
				continue;
			int d = p->topo->keys[g->key].node_dom[n];
			for (int i = 0; i < m->tn[cl->group]; i++)
				if (m->cdom[m->tbeg[cl->group] + i] == d)
					v[m->tbeg[cl->group] + i] = 1;
		}
	}
	for (int gi = 0; gi < p->ngroups; gi++) {
		if (!m->acol[gi])
			continue;
		long placed = 0;
		const wp_group *g = &p->groups[gi];
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++)
				placed += s->x[cl->off + k];
		}
		v[m->acol[gi]] = placed > 0;
	}
	for (int h = 0; h < p->ncomps; h++) {
		bool on = wp_comp_admitted(p, s, h);
		v[m->hcol[h]] = on;
		for (int i = 0; on && i < m->hn[h]; i++)
			if (m->cdom[m->hbeg[h] + i] == hdom[h])
				v[m->hbeg[h] + i] = 1;
	}
	for (int n = 0; n < p->nnodes; n++)
		if (m->nu[n] && !busy[n])
			v[m->ucol[m->part[n]]] += 1;
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != AG_V)
			continue;
		const wtp_key *key = &p->topo->keys[m->cref[j]];
		int d = m->cdom[j];
		v[j] = 1;
		for (int i = 0; i < key->dom_nnodes[d]; i++)
			if (busy[key->dom_nodes[d][i]])
				v[j] = 0;
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		int kept = 0;
		for (int i = m->qc_beg[qc]; i < m->qc_beg[qc + 1]; i++)
			kept += !(s->evict && s->evict[m->qc_units[i]]);
		v[m->qcol[qc]] = kept;
	}
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u] && m->unit_qc[u] < 0)
			ok = false;
	free(busy);
	free(hdom);
	return ok;
}

static double obj_at(const ag *m, const double *v)
{
	long double z = 0;
	for (int j = 1; j <= m->ncols; j++)
		z += (long double)m->cobj[j] * v[j];
	return (double)z;
}

/* 0 when v meets every bound and row, else the first failing one. */
static int check(const ag *m, const double *v)
{
	for (int j = 1; j <= m->ncols; j++)
		if (v[j] < m->clb[j] - 1e-9 || v[j] > m->cub[j] + 1e-9)
			return -j;
	for (int i = 1; i <= m->nrows; i++) {
		long double s = 0;
		for (int k = m->rbeg[i]; k < m->rbeg[i + 1]; k++)
			s += (long double)m->av[k] * v[m->ja[k]];
		if ((m->rtype[i] == GLP_UP || m->rtype[i] == GLP_FX) &&
		    s > m->rhi[i] + 1e-9)
			return i;
		if ((m->rtype[i] == GLP_LO || m->rtype[i] == GLP_FX) &&
		    s < m->rlo[i] - 1e-9)
			return i;
	}
	return 0;
}

/* -------------------------------------------------------------- GLPK */

typedef struct run {
	wgl_env env;
	wgl_watch w;
	const ag *m;
	const wasp_options *o;
	double *lp;         /* the root LP's column values              */
	bool lp_done;
	wp_sol *hsol;       /* the node model's rounding of that LP      */
	bool hfound;
	double split_by;    /* splitting stops here (the run's deadline) */
} run;

static void callback(glp_tree *T, void *info)
{
	run *r = info;
	wgl_watch_step(T, &r->w);
}

/* The part LP as a guide for the node model's rounding: a part's pods
 * spread evenly over the nodes that fit them. */
static double gx(void *ctx, int s)
{
	const run *r = ctx;
	const ag *m = r->m;
	const wp_problem *p = m->p;
	int c = wp_slot_class(p, s), n = p->classes[c].elig[s -
							    p->classes[c].off];
	size_t cp = (size_t)c * m->npart + m->part[n];
	int j = m->xcol[cp], k = m->xfit[cp];
	return j && k ? r->lp[j] / k : 0;
}

static double gadm(void *ctx, int g)
{
	const run *r = ctx;
	return r->m->acol[g] ? r->lp[r->m->acol[g]] : 1;
}

/* The LP value of domain d's column among the n from beg (0: none). */
static double dom_lp(const run *r, int beg, int n, int d)
{
	for (int i = 0; i < n; i++)
		if (r->m->cdom[beg + i] == d)
			return r->lp[beg + i];
	return 0;
}

static double gdom(void *ctx, int g, int d)
{
	const run *r = ctx;
	return dom_lp(r, r->m->tbeg[g], r->m->tn[g], d);
}

static double gcomp(void *ctx, int h)
{
	const run *r = ctx;
	return r->lp[r->m->hcol[h]];
}

static double gcdom(void *ctx, int h, int d)
{
	const run *r = ctx;
	return dom_lp(r, r->m->hbeg[h], r->m->hn[h], d);
}

/* cur = cand when cur holds nothing yet (*got false) or cand is better. */
static void keep_better(const wp_problem *p, wp_sol *cur, bool *got,
			const wp_sol *cand)
{
	wp_value vx, vc;
	wp_evaluate(p, cand, &vx);
	if (*got)
		wp_evaluate(p, cur, &vc);
	if (!*got || wp_value_cmp(&vx, &vc) > 0) {
		wp_sol_copy(p, cur, cand);
		*got = true;
	}
}

/* Solve the part model; best (ncols + 1) holds the warm vector when
 * have_best, and the best found on return. */
static int part_solve(run *r, double *best, bool *have_best, bool *opt,
		      double *bound, wasp_error *err)
{
	const ag *m = r->m;
	glp_prob *P = r->env.P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	if (m->nrows)
		glp_add_rows(P, m->nrows);
	glp_add_cols(P, m->ncols);
	for (int i = 1; i <= m->nrows; i++) {
		glp_set_row_bnds(P, i, m->rtype[i], m->rlo[i], m->rhi[i]);
		glp_set_mat_row(P, i, m->rbeg[i + 1] - m->rbeg[i],
				m->ja + m->rbeg[i] - 1, m->av + m->rbeg[i] - 1);
	}
	for (int j = 1; j <= m->ncols; j++) {
		glp_set_col_kind(P, j, GLP_IV);
		glp_set_col_bnds(P, j, m->clb[j] == m->cub[j] ? GLP_FX : GLP_DB,
				 m->clb[j], m->cub[j]);
		glp_set_obj_coef(P, j, m->cobj[j]);
	}
	*opt = false;
	*bound = NAN;
	double left = r->w.deadline > 0 ? r->w.deadline - wb_now() : 1e9;
	if (left <= 0.01)
		return WASP_OK;
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.tm_lim = left * 1000 > INT_MAX / 2 ? INT_MAX / 2 : (int)(left * 1000);
	double tlp = wb_now();
	int rc = glp_simplex(P, &sp);
	tlp = wb_now() - tlp;
	if (rc == GLP_ETMLIM)
		return WASP_OK;
	if (rc != 0 || glp_get_status(P) != GLP_OPT)
		return werr(err, WASP_ESOLVER,
			    "GLPK: part LP relaxation failed (simplex rc %d, "
			    "status %d)", rc, glp_get_status(P));
	for (int j = 1; j <= m->ncols; j++)
		r->lp[j] = glp_get_col_prim(P, j);
	r->lp_done = true;
	*bound = floor(glp_get_obj_val(P) + 1e-6);
	/* round the LP at node level (ilp.c's heuristic): node solutions
	 * that need no splitting; the best also starts the search */
	wilp_guide g = {r, gx, gadm, gdom, gcomp, gcdom};
	int hr = wilp_round(m->p, &g, WAG_ROUND_PASSES, r->w.deadline, r->hsol);
	if (hr < 0)
		return werr(err, WASP_ENOMEM, "out of memory");
	const char *why = NULL;
	r->hfound = hr == 1 && wp_sol_feasible(m->p, r->hsol, &why) == 0;
	if (r->hfound) {
		double *hv = malloc(sizeof *hv * (m->ncols + 1));
		if (!hv)
			return werr(err, WASP_ENOMEM, "out of memory");
		if (vec_of_sol(m, r->hsol, hv) && check(m, hv) == 0 &&
		    (!*have_best || obj_at(m, hv) > obj_at(m, best))) {
			memcpy(best, hv, sizeof *hv * (m->ncols + 1));
			*have_best = true;
		}
		free(hv);
	}
	glp_iocp ip;
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	/* depth first, most fractional: its dives reach whole-tree
	 * placements far sooner than best-bound search (measured on the
	 * 256-node tree instances; the bound stays the root LP's either way
	 * within seconds) */
	ip.br_tech = GLP_BR_MFV;
	ip.bt_tech = GLP_BT_DFS;
	bool cuts = m->ncols <= WAG_CUTS_MAX_COLS;
	ip.gmi_cuts = ip.mir_cuts = ip.cov_cuts = ip.clq_cuts =
	    cuts ? GLP_ON : GLP_OFF;
	ip.mip_gap = r->o && r->o->gap > 0 ? r->o->gap : 0;
	double om = 0;
	for (int t = 0; t < m->ntier; t++)
		om += m->W[t] * m->tM[t];
	ip.tol_obj = 0.5 / (1 + om);
	if (ip.tol_obj > 1e-7)
		ip.tol_obj = 1e-7;
	left = r->w.deadline > 0 ? r->w.deadline - wb_now() : 1e9;
	ip.tm_lim = left * 1000 > INT_MAX / 2 ? INT_MAX / 2
		    : left < 0.001	      ? 1
					      : (int)(left * 1000);
	ip.cb_func = callback;
	ip.cb_info = r;
	r->w.maxstep = tlp;
	r->w.last = wb_now();
	r->w.inject = *have_best ? best : NULL;
	r->w.int_obj = true; /* X, U, V, Q weights are integers */
	rc = glp_intopt(P, &ip);
	int st = glp_mip_status(P);
	if (rc != 0 && rc != GLP_ETMLIM && rc != GLP_EMIPGAP && rc != GLP_ESTOP)
		return werr(err, WASP_ESOLVER,
			    "GLPK: part branch-and-cut failed (rc %d)", rc);
	if (st != GLP_OPT && st != GLP_FEAS)
		return WASP_OK;
	double *v = malloc(sizeof *v * (m->ncols + 1));
	if (!v)
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int j = 1; j <= m->ncols; j++)
		v[j] = floor(glp_mip_col_val(P, j) + 0.5);
	v[0] = 0;
	if (check(m, v) == 0 &&
	    (!*have_best || obj_at(m, v) >= obj_at(m, best))) {
		memcpy(best, v, sizeof *v * (m->ncols + 1));
		*have_best = true;
	}
	free(v);
	*opt = (rc == 0 && st == GLP_OPT) || (rc == GLP_ESTOP && r->w.int_opt);
	if (*opt)
		*bound = obj_at(m, best);
	else if (r->w.have_bound && r->w.bound < *bound)
		*bound = floor(r->w.bound + 1e-6);
	return WASP_OK;
}

static int guarded_part_solve(run *r, double *best, bool *have_best,
			      bool *opt, double *bound, wasp_error *err)
{
	wgl_begin(&r->env, 0);
	if (setjmp(r->env.jb))
		return wgl_fault(&r->env, err);
	int rc = part_solve(r, best, have_best, opt, bound, err);
	wgl_end(&r->env);
	return rc;
}

/* ---------------------------------------------- splitting into nodes */


/* Slot of (class c, node n) in p, -1: not eligible. */
/* Part P of answer v onto its nodes: a small ILP with the node model's
 * rows for the part's nodes alone (x per class and node, the evictions
 * v allows per eviction class, u[P] nodes left free).  Writes x and the
 * part's single-unit evictions into out; false when it finds no split. */
static bool split_part(const ag *m, run *r, const double *v, int P,
		       wp_sol *out)
{
	const wp_problem *p = m->p;
	int b = m->pbeg[P], e = m->pbeg[P + 1], nn = e - b;
	int NC = p->nclasses;
	glp_prob *Q = r->env.P = glp_create_prob();
	glp_set_obj_dir(Q, GLP_MAX);
	/* columns: x[c,n] (slot + 1 in xs), e[u], u[n] */
	int nc = 0;
	int *cs = malloc(sizeof *cs * ((size_t)NC * nn + p->nunits + nn + 1));
	int *ckind = malloc(sizeof *ckind * ((size_t)NC * nn + p->nunits +
					     nn + 1));
	int *ind = malloc(sizeof *ind * ((size_t)NC * nn + p->nunits + nn + 2));
	double *val = malloc(sizeof *val * ((size_t)NC * nn + p->nunits + nn +
					    2));
	int32_t *lv = malloc(sizeof *lv * ((size_t)NC + 1));
	bool ok = cs && ckind && ind && val && lv;
	long total = 0;
	for (int c = 0; ok && c < NC; c++) {
		int j = m->xcol[(size_t)c * m->npart + P];
		if (!j || v[j] < 0.5)
			continue;
		total += (long)v[j];
		for (int i = b; i < e; i++) {
			int n = m->pnode[i], s = wp_slot(p, c, n);
			int ub = s >= 0 ? m->sub[s] : 0;
			if (ub <= 0)
				continue;
			nc = glp_add_cols(Q, 1);
			glp_set_col_kind(Q, nc, GLP_IV);
			glp_set_col_bnds(Q, nc, GLP_DB, 0, ub);
			cs[nc - 1] = s;
			ckind[nc - 1] = 0;
		}
	}
	int nx = nc;
	for (int u = 0; ok && u < p->nunits; u++) {
		int qc = m->unit_qc[u];
		if (qc < 0 || p->units[u].all ||
		    m->part[unit_node(p, u)] != P ||
		    q_k(m, qc) - v[m->qcol[qc]] < 0.5)
			continue;
		nc = glp_add_cols(Q, 1);
		glp_set_col_kind(Q, nc, GLP_BV);
		glp_set_obj_coef(Q, nc, -1);
		cs[nc - 1] = u;
		ckind[nc - 1] = 1;
	}
	int ne = nc;
	int want = m->ucol[P] ? (int)(v[m->ucol[P]] + 0.5) : 0;
	for (int i = b; ok && i < e && want > 0; i++) {
		if (!m->nu[m->pnode[i]])
			continue;
		nc = glp_add_cols(Q, 1);
		glp_set_col_kind(Q, nc, GLP_BV);
		cs[nc - 1] = m->pnode[i];
		ckind[nc - 1] = 2;
	}
	/* rows: pods per class; evictions per class; capacity per node,
	 * resource and level; free nodes */
	for (int c = 0; ok && c < NC; c++) {
		int j = m->xcol[(size_t)c * m->npart + P];
		if (!j || v[j] < 0.5)
			continue;
		int len = 0;
		for (int k = 0; k < nx; k++)
			if (wp_slot_class(p, cs[k]) == c) {
				ind[++len] = k + 1;
				val[len] = 1;
			}
		int i = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, i, len, ind, val);
		glp_set_row_bnds(Q, i, GLP_FX, v[j], v[j]);
	}
	for (int qc = 0; ok && qc < m->nqc; qc++) {
		int len = 0;
		for (int k = nx; k < ne; k++)
			if (m->unit_qc[cs[k]] == qc) {
				ind[++len] = k + 1;
				val[len] = 1;
			}
		if (!len)
			continue;
		int i = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, i, len, ind, val);
		glp_set_row_bnds(Q, i, GLP_UP, 0,
				 q_k(m, qc) - v[m->qcol[qc]]);
	}
	for (int t = b; ok && t < e; t++) {
		int n = m->pnode[t], nl = 0;
		bool hasq = m->nub[n + 1] > m->nub[n];
		for (int k = 0; k < nx; k++) {
			int32_t pr = eff_prio(p, wp_slot_class(p, cs[k]));
			int l = 0;
			while (l < nl && lv[l] != pr)
				l++;
			if (l == nl)
				lv[nl++] = pr;
		}
		if (!hasq && nl > 1) {
			for (int l = 1; l < nl; l++)
				if (lv[l] > lv[0])
					lv[0] = lv[l];
			nl = 1;
		}
		for (int l = 0; l < nl; l++)
			for (int res = 0; res < p->nres; res++) {
				int len = 0;
				double rhs = (double)p->free[(size_t)n * p->nres +
							     res];
				for (int k = 0; k < nx; k++) {
					int c = wp_slot_class(p, cs[k]);
					int64_t q = p->classes[c].req[res];
					if (p->classes[c].elig[cs[k] -
							       p->classes[c].off] !=
						n ||
					    q <= 0 || eff_prio(p, c) > lv[l])
						continue;
					ind[++len] = k + 1;
					val[len] = (double)q;
				}
				for (int k = nx; k < ne; k++) {
					const wp_unit *un = &p->units[cs[k]];
					if (unit_node(p, cs[k]) != n ||
					    un->priority >= lv[l])
						continue;
					ind[++len] = k + 1;
					val[len] = -(double)p->snap
						       ->pods[un->pods[0]]
						       .req[res];
				}
				/* `all` units evicted by the part answer */
				for (int u = 0; u < p->nunits; u++) {
					int qc = m->unit_qc[u];
					const wp_unit *un = &p->units[u];
					if (qc < 0 || !un->all ||
					    v[m->qcol[qc]] > 0.5 ||
					    un->priority >= lv[l])
						continue;
					for (int i = 0; i < un->npods; i++) {
						const ws_pod *po =
						    &p->snap->pods[un->pods[i]];
						if (po->node == n)
							rhs += (double)po->req[res];
					}
				}
				if (!len)
					continue;
				int i = glp_add_rows(Q, 1);
				glp_set_mat_row(Q, i, len, ind, val);
				glp_set_row_bnds(Q, i, GLP_UP, 0, rhs);
			}
	}
	if (ok && want > 0) {
		int lenw = 0;
		for (int k = ne; k < nc; k++) {
			int n = cs[k], len = 0;
			for (int q = 0; q < nx; q++)
				if (p->classes[wp_slot_class(p, cs[q])]
					.elig[cs[q] -
					      p->classes[wp_slot_class(p, cs[q])]
						  .off] == n) {
					ind[++len] = q + 1;
					val[len] = 1;
				}
			ind[++len] = k + 1;
			val[len] = (double)total;
			int i = glp_add_rows(Q, 1);
			glp_set_mat_row(Q, i, len, ind, val);
			glp_set_row_bnds(Q, i, GLP_UP, 0, (double)total);
		}
		for (int k = ne; k < nc; k++) {
			ind[++lenw] = k + 1;
			val[lenw] = 1;
		}
		int i = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, i, lenw, ind, val);
		glp_set_row_bnds(Q, i, GLP_LO, want, 0);
	}
	if (ok && nc > 0) {
		glp_iocp ip;
		glp_init_iocp(&ip);
		ip.msg_lev = GLP_MSG_OFF;
		ip.presolve = GLP_ON;
		/* a part is small: this is a safety net, within the run's
		 * deadline (r->split_by) */
		double left = r->split_by > 0 ? r->split_by - wb_now() : 1;
		ip.tm_lim = left >= 0.5 ? 500 : left > 0.002 ? (int)(left * 1000)
							     : 1;
		int rc = glp_intopt(Q, &ip);
		int st = glp_mip_status(Q);
		ok = (rc == 0 || rc == GLP_ETMLIM) &&
		     (st == GLP_OPT || st == GLP_FEAS);
	}
	for (int k = 0; ok && k < nc; k++) {
		int xv = (int)floor(glp_mip_col_val(Q, k + 1) + 0.5);
		if (ckind[k] == 0)
			out->x[cs[k]] = xv;
		else if (ckind[k] == 1)
			out->evict[cs[k]] = (unsigned char)xv;
	}
	glp_delete_prob(Q);
	r->env.P = NULL;
	free(cs);
	free(ckind);
	free(ind);
	free(val);
	free(lv);
	return ok;
}

/* Every part of answer v onto nodes (split_part), then admission and
 * eviction credits as ilp.c sets them.  0: out holds a solution that
 * passes wp_sol_feasible; 1: some part did not split; <0: NOMEM. */
static int split(const ag *m, run *r, const double *v, const wp_sol *warm,
		 wp_sol *out)
{
	const wp_problem *p = m->p;
	memset(out->x, 0, sizeof *out->x * (size_t)p->nx);
	for (int u = 0; u < p->nunits; u++) {
		int qc = m->unit_qc[u];
		out->evict[u] = qc >= 0 && p->units[u].all &&
				v[m->qcol[qc]] < 0.5;
		out->evict_by[u] = -1;
	}
	for (int i = 0; i < p->snap->npods; i++)
		out->move_to[i] = -1;
	out->dra = NULL;
	for (int P = 0; P < m->npart; P++)
		if ((r->split_by > 0 && wb_now() >= r->split_by) ||
		    !split_part(m, r, v, P, out))
			return 1;
	unsigned char *at0 = calloc((size_t)p->ngroups + 1, 1);
	if (!at0)
		return -1;
	for (int g = 0; g < p->ngroups; g++)
		at0[g] = m->acol[g] && v[m->acol[g]] > 0.5;
	wp_fill_admission(p, at0, warm, out);
	free(at0);
	if (wpe_credit(p, out))
		return -1;
	const char *why = NULL;
	return wp_sol_feasible(p, out, &why) ? 1 : 0;
}

static int guarded_split(const ag *m, run *r, const double *v,
			 const wp_sol *warm, wp_sol *out, wasp_error *err)
{
	wgl_begin(&r->env, 0);
	if (setjmp(r->env.jb))
		return wgl_fault(&r->env, err);
	int rc = split(m, r, v, warm, out);
	wgl_end(&r->env);
	if (rc < 0)
		return werr(err, WASP_ENOMEM, "out of memory");
	return rc;
}

/* ------------------------------------------------- the confined solve */

/* p with each class confined to the nodes of the parts in keep[] (per
 * part column; none for a class kept nowhere). */
static wp_problem *confine(const ag *m, const unsigned char *keep,
			   wa_arena *ar)
{
	const wp_problem *p = m->p;
	wp_problem *q = wa_alloc(ar, sizeof *q);
	wp_class *cls = wa_calloc(ar, (size_t)p->nclasses + 1, sizeof *cls);
	if (!q || !cls)
		return NULL;
	*q = *p;
	q->classes = cls;
	int off = 0;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		cls[c] = *cl;
		int *el = wa_calloc(ar, (size_t)cl->nelig + 1, sizeof *el);
		if (!el)
			return NULL;
		int ne = 0;
		for (int k = 0; k < cl->nelig; k++) {
			int j = m->xcol[(size_t)c * m->npart +
					m->part[cl->elig[k]]];
			if (j && keep[j])
				el[ne++] = cl->elig[k];
		}
		cls[c].elig = el;
		cls[c].nelig = ne;
		cls[c].off = off;
		off += ne;
	}
	q->nx = off;
	return q;
}

/* Copies a solution between p's slots and those of its confinement q:
 * to_q, from p into q (every pod of src lies inside q), else back. */
static void map_sol(const wp_problem *p, const wp_problem *q,
		    const wp_sol *src, wp_sol *dst, bool to_q)
{
	const wp_problem *pd = to_q ? q : p;
	memset(dst->x, 0, sizeof *dst->x * (size_t)pd->nx);
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *a = &p->classes[c], *b = &q->classes[c];
		for (int i = 0, k = 0; i < b->nelig; i++) {
			while (a->elig[k] != b->elig[i])
				k++;
			if (to_q)
				dst->x[b->off + i] = src->x[a->off + k];
			else
				dst->x[a->off + k] = src->x[b->off + i];
		}
	}
	memcpy(dst->admit, src->admit, (size_t)p->ngroups);
	memcpy(dst->reason, src->reason, sizeof *dst->reason * p->ngroups);
	for (int u = 0; u < p->nunits; u++) {
		dst->evict[u] = src->evict[u];
		dst->evict_by[u] = src->evict_by[u];
	}
	for (int i = 0; i < p->snap->npods; i++)
		dst->move_to[i] = src->move_to[i];
	dst->dra = NULL;
}

/* ---------------------------------------------------------- interface */

int wag_estimate(const wp_problem *p)
{
	wa_arena *ar = wa_new();
	ag *m = ar ? wa_alloc(ar, sizeof *m) : NULL;
	if (!m) {
		wa_destroy(ar);
		return -1;
	}
	m->p = p;
	m->ar = ar;
	make_parts(m);
	if (!m->nomem)
		make_qclasses(m);
	if (!m->nomem)
		cols_x(m);
	long n = m->ncols + p->ngroups + p->ncomps + m->nqc;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].key >= 0)
			n += p->topo->keys[p->groups[g].key].ndom;
	for (int h = 0; h < p->ncomps; h++)
		if (p->comps[h].key >= 0)
			n += p->topo->keys[p->comps[h].key].ndom;
	if (m->nomem)
		n = -1;
	wa_destroy(ar);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int wag_solve(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	      const wp_sol *warm, wp_sol *out, wilp_stats *st,
	      wag_info *info, wasp_error *err)
{
	double t0 = wb_now();
	double deadline = wdl_is_none(dl) ? 0 : dl.at;
	wilp_stats dummy;
	wag_info idummy;
	if (!st)
		st = &dummy;
	if (!info)
		info = &idummy;
	memset(st, 0, sizeof *st);
	memset(info, 0, sizeof *info);
	st->status = "none";
	st->objective = st->bound = st->gap = st->top_gap = NAN;
	info->part_obj = info->part_bound = NAN;
	wa_arena *ar = wa_new();
	ag *m = ar ? wa_alloc(ar, sizeof *m) : NULL;
	if (!m) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	m->p = p;
	m->ar = ar;
	int rc = build(m);
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the part model");
	}
	info->parts = m->npart;
	info->rows = st->rows = m->nrows;
	info->cols = st->cols = st->ints = m->ncols;
	st->nonzeros = m->nnz;
	if (m->npart > WAG_MAX_PART_SHARE * p->nnodes ||
	    m->maxcoef > WAG_MAX_COEF) {
		/* no gain, or tiers too wide for one weighted solve */
		wa_destroy(ar);
		if (info == &idummy)
			return wilp_solve(p, o, dl, warm, out, st, err);
		info->declined = true;
		if (warm) {
			wp_sol_copy(p, out, warm);
			st->status = "greedy";
		} else {
			memset(out->x, 0, sizeof *out->x * (size_t)p->nx);
			wp_fill_admission(p, NULL, NULL, out);
			wp_sol_no_disruption(p, out);
		}
		st->seconds = wb_now() - t0;
		return WASP_OK;
	}
	double *best = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *best);
	if (!best) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	bool have = warm && vec_of_sol(m, warm, best) && check(m, best) == 0;
	info->warm_ok = have;
	if (have && wp_packing_proven(p, warm)) {
		/* every pod placed, no eviction, packing at its bound:
		 * nothing beats the warm start (doc/formulation.md §11) */
		wp_sol_copy(p, out, warm);
		st->status = "greedy";
		st->objective = st->bound = obj_at(m, best);
		st->gap = 0;
		info->part_opt = true;
		info->part_obj = info->part_bound = st->objective;
		st->seconds = wb_now() - t0;
		wa_destroy(ar);
		return WASP_OK;
	}
	/* the part model gets all but a share of the time */
	run *r = wa_alloc(ar, sizeof *r);
	if (!r) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	r->m = m;
	r->o = o;
	r->w.cancel = o ? o->cancel : NULL;
	r->hsol = wp_sol_new(p, ar);
	if (!r->hsol) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	r->lp = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *r->lp);
	if (!r->lp) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	double left = deadline > 0 ? deadline - wb_now() : 0;
	r->w.deadline = deadline > 0 ? deadline - WAG_MARGIN_S -
					 WAG_CONFINE_SHARE * left
				   : 0;
	bool opt = false;
	double bound = NAN;
	rc = guarded_part_solve(r, best, &have, &opt, &bound, err);
	if (rc) {
		wa_destroy(ar);
		return rc;
	}
	info->part_opt = opt;
	info->part_obj = have ? obj_at(m, best) : NAN;
	info->part_bound = bound;
	info->part_s = wb_now() - t0;

	/* the best node solution so far (cur): the part answer split onto
	 * nodes part by part, the rounding of the part LP, or the warm
	 * start; then, with the time left, the node model confined to the
	 * parts where any of them or the part LP puts pods, warm-started
	 * with cur */
	double t1 = wb_now();
	double *wv = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *wv);
	double *cv = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *cv);
	unsigned char *keep = wa_calloc(ar, (size_t)m->ncols + 1, 1);
	wp_sol *cur = wp_sol_new(p, ar);
	if (!keep || !wv || !cv || !cur) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	bool wok = warm && vec_of_sol(m, warm, wv);
	bool better = have && (!wok || obj_at(m, best) > obj_at(m, wv) + 0.5);
	bool got = false; /* cur holds a node solution */
	if (better) {
		r->split_by = deadline > 0 ? deadline - WAG_MARGIN_S : 0;
		rc = guarded_split(m, r, best, warm, cur, err);
		if (rc < 0) {
			wa_destroy(ar);
			return rc;
		}
		got = rc == 0;
	}
	if (r->hfound)
		keep_better(p, cur, &got, r->hsol);
	if (warm)
		keep_better(p, cur, &got, warm);
	bool cok = got && vec_of_sol(m, cur, cv);
	if (cok && have && deadline - wb_now() > WAG_CONFINE_MIN_S) {
		for (int j = 1; j <= m->ncols; j++)
			keep[j] = m->ckind[j] == AG_X &&
				  (best[j] > 0.5 || cv[j] > 0.5 ||
				   (r->lp_done && r->lp[j] > 1e-6) ||
				   (wok && wv[j] > 0.5));
		wp_problem *q = confine(m, keep, ar);
		wp_sol *qs = q ? wp_sol_new(q, ar) : NULL;
		wp_sol *qw = q ? wp_sol_new(q, ar) : NULL;
		if (!qs || !qw) {
			wa_destroy(ar);
			return werr(err, WASP_ENOMEM, "out of memory");
		}
		map_sol(p, q, cur, qw, true);
		wilp_stats qst;
		wilp_tune tu;
		wilp_tune_init(&tu);
		/* a cut round or a Driebeek-Tomlin branching step cannot be
		 * interrupted, and this solve gets what is left of the time */
		tu.cuts = 0;
		tu.no_dth = true;
		rc = wilp_solve_tuned(q, o, wdl_at(deadline - WAG_MARGIN_S), qw, qs,
				      &qst, &tu, err);
		if (rc) {
			wa_destroy(ar);
			return rc;
		}
		info->confined_cols = qst.cols;
		if (qst.improved)
			map_sol(p, q, qs, cur, false);
	}
	if (got)
		wp_sol_copy(p, out, cur);
	info->confined_s = wb_now() - t1;
	const char *why = NULL;
	if (got && wp_sol_feasible(p, out, &why) != 0)
		got = false; /* cannot happen; stay safe */
	double zq = NAN;
	double *v = wa_calloc(ar, (size_t)m->ncols + 1, sizeof *v);
	if (!v) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	if (got && vec_of_sol(m, out, v))
		zq = obj_at(m, v);
	else
		got = false;
	if (warm) {
		wp_value vq, vw;
		wp_evaluate(p, warm, &vw);
		if (got)
			wp_evaluate(p, out, &vq);
		if (got && wp_value_cmp(&vq, &vw) > 0) {
			st->improved = true;
		} else {
			wp_sol_copy(p, out, warm);
			got = false;
		}
	}
	if (!warm && !got) {
		memset(out->x, 0, sizeof *out->x * (size_t)p->nx);
		memset(out->admit, 0, (size_t)p->ngroups);
		for (int g = 0; g < p->ngroups; g++)
			out->reason[g] = p->groups[g].invalid
					     ? p->groups[g].invalid
					     : "the ILP found no placement";
		wp_sol_no_disruption(p, out);
	}
	/* the objective of the answer in node-model units */
	st->objective = got ? zq
			: warm && vec_of_sol(m, warm, v) ? obj_at(m, v)
							   : NAN;
	double zb = isnan(bound) ? NAN : floor(bound + 1e-6);
	if (!isnan(zb) && !isnan(st->objective) && st->objective >= zb - 0.5) {
		/* the part optimum bounds the node optimum: reached */
		st->status = got ? "optimal" : "greedy";
		st->bound = st->objective;
		st->gap = 0;
	} else {
		st->status = got ? "feasible" : warm ? "greedy" : "none";
		if (!isnan(zb) && !isnan(st->objective)) {
			st->bound = zb;
			st->gap = (zb - st->objective) /
				  (fabs(st->objective) > 1e-9
				       ? fabs(st->objective)
				       : 1e-9);
		}
	}
	st->seconds = wb_now() - t0;
	wa_destroy(ar);
	return WASP_OK;
}
