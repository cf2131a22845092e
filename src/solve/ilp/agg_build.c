/*
 * agg_build.c -- the model over parts built with the node model's builder
 * (ilp_int.h): x columns per (class, part), the group, tree, packing and
 * eviction columns, the group, tree and capacity rows summed over a part's
 * nodes, and the node model's objective weights (doc/formulation.md §10).
 */
#include "solve/ilp/agg_int.h"

/* A column of the shared builder (wm_col), with its objective
 * coefficient (set by objective()). */
static int ag_col(ag *m, int kind, int ref, int dom, double lb, double ub)
{
	int j = wm_col(&m->b, kind, ref, dom, lb, ub, NULL);
	if (!j || !wm_grow(&m->b, (void **)&m->cobj, sizeof *m->cobj,
			   &m->capo, (size_t)j + 1))
		return 0;
	m->cobj[j] = 0;
	return j;
}

/* preempt.c's wilp_x_bound_q without moves: pods of class c that fit on node n
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

void wag_cols_x(ag *m)
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
	/* a gang's domains that cannot hold min_need pods (core.c, wilp_cols_x) */
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
				int d = wag_dom_of(m, g->key, P);
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
				int d = wag_dom_of(m, g->key, P);
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
	/* nodes some column may put pods on (the node model: an x column there) */
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
			if (m->xcol[j] && (key < 0 || wag_dom_of(m, key, P) == d))
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
			int d = wag_dom_of(m, key, P);
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
 * eligible for some class, as core.c's u columns); at least those no
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
				wm_row_begin(&m->b);
				wm_coef(&m->b, j, m->nnu[P]);
				wm_coef(&m->b, m->ucol[P], -1);
				wm_row_end(&m->b, GLP_UP, 0, 0, NULL);
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
		m->qcol[qc] = ag_col(m, AG_Q, qc, -1, 0, wag_q_k(m, qc));
}

/* Calls wm_coef(col, 1) on every x column of group g in domain d of key
 * (any domain: key < 0); returns the room min(size, sum of bounds). */
static long group_terms(ag *m, const wp_group *g, int key, int d)
{
	long room = 0;
	for (int i = 0; i < g->nclasses; i++) {
		int c = g->classes[i];
		long rc = 0;
		for (int P = 0; P < m->npart; P++) {
			size_t j = (size_t)c * m->npart + P;
			if (!m->xcol[j] ||
			    (key >= 0 && wag_dom_of(m, key, P) != d))
				continue;
			wm_coef(&m->b, m->xcol[j], 1);
			rc += (long)m->cub[m->xcol[j]];
		}
		room += rc < m->p->classes[c].count ? rc
						    : m->p->classes[c].count;
	}
	return room < g->size ? room : g->size;
}

/* cls, gmin, dsel and dom of the node model (core.c, topo.c), over parts,
 * per group in turn (the node model writes each family whole). */
static void rows_groups(ag *m)
{
	const wp_problem *p = m->p;
	for (int c = 0; c < p->nclasses && !m->nomem; c++) {
		const wp_class *cl = &p->classes[c];
		int a = m->acol[cl->group];
		long room = 0;
		wm_row_begin(&m->b);
		for (int P = 0; P < m->npart; P++) {
			int j = m->xcol[(size_t)c * m->npart + P];
			if (j) {
				wm_coef(&m->b, j, 1);
				room += (long)m->cub[j];
			}
		}
		if (a) {
			wm_coef(&m->b, a, -cl->count);
			wm_row_end(&m->b, GLP_UP, 0, 0, NULL);
		} else if (room > cl->count) {
			wm_row_end(&m->b, GLP_UP, 0, cl->count, NULL);
		} else {
			wm_row_drop(&m->b); /* cannot bind */
		}
	}
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		int need = g->gang ? g->min_need : 1;
		if (m->acol[gi] && need > 0) {
			wm_row_begin(&m->b);
			group_terms(m, g, -1, -1);
			wm_coef(&m->b, m->acol[gi], -need);
			wm_row_end(&m->b, GLP_LO, 0, 0, NULL);
		}
		if (!m->tn[gi])
			continue;
		wm_row_begin(&m->b);
		for (int i = 0; i < m->tn[gi]; i++)
			wm_coef(&m->b, m->tbeg[gi] + i, 1);
		if (m->acol[gi]) {
			wm_coef(&m->b, m->acol[gi], -1);
			wm_row_end(&m->b, GLP_FX, 0, 0, NULL);
		} else {
			wm_row_end(&m->b, GLP_UP, 0, 1, NULL);
		}
		for (int i = 0; i < m->tn[gi]; i++) {
			int j = m->tbeg[gi] + i;
			wm_row_begin(&m->b);
			long room = group_terms(m, g, g->key, m->cdom[j]);
			wm_coef(&m->b, j, -(double)room);
			wm_row_end(&m->b, GLP_UP, 0, 0, NULL);
		}
	}
}

/* The x columns of group g in domain d of key, part by part (the part
 * model's side of wilp_rows_tree_over). */
static long part_terms(void *ctx, const wp_group *g, int key, int d)
{
	return group_terms(ctx, g, key, d);
}

/* The node model's tree rows (tree.c), over parts. */
static void rows_tree(ag *m)
{
	wilp_tree_cols t = {m->acol, m->hcol, m->hbeg, m->hn, part_terms, m};
	wilp_rows_tree_over(&m->b, m->p, &t);
}

/* One capacity row of part P, resource r, priority level L: the node
 * model's cap/capq rows (core.c, preempt.c) of its nodes summed, minus
 * the room of u[P] free nodes (the smallest NU node's each).  With s > 0
 * the floor row for request size s instead: a pod takes
 * floor(request / s) slots, a node has floor(free / s), and evicting a
 * unit adds at most ceil(use / s) per node, so in keep form
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
		    wilp_eff_prio(p, c) > L)
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
		if (wag_q_prio(m, qc) >= L)
			continue;
		int64_t u = wag_q_use(m, qc, P, r, s);
		if (u <= 0)
			continue;
		g = wp_gcd(g, u);
		rhs += u * wag_q_k(m, qc);
	}
	if (s)
		umin = umin >= 0 ? umin / s : -1;
	wm_row_begin(&m->b);
	for (int c = 0; c < p->nclasses; c++) {
		int64_t q = p->classes[c].req[r];
		int j = m->xcol[(size_t)c * NP + P];
		if (j && q > 0 && wilp_eff_prio(p, c) <= L)
			wm_coef(&m->b, j, (double)((s ? q / s : q) / g));
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		if (wag_q_prio(m, qc) >= L)
			continue;
		int64_t u = wag_q_use(m, qc, P, r, s);
		if (u > 0)
			wm_coef(&m->b, m->qcol[qc], (double)(u / g));
	}
	if (m->ucol[P] && umin > 0)
		wm_coef(&m->b, m->ucol[P], (double)(umin / g));
	wm_row_end(&m->b, GLP_UP, 0, (double)(rhs / g), NULL);
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
			int32_t pr = wilp_eff_prio(p, c);
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

/* The node model's tiers and weights (objective.c): work per
 * pending priority, evictions in keep form, packing. */
void wag_objective(ag *m)
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
			m->cobj[j] = m->W[m->qtier] * wag_q_cost(m, m->cref[j]);
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

/* --max-evictions (doc/preemption.md, "Safety switches"), as the node
 * model's wilp_rows_max_evict: evicted pods in keep form. */
static void rows_max_evict(ag *m)
{
	const wp_problem *p = m->p;
	if (p->max_evictions <= 0 || m->nqc == 0)
		return;
	long all = 0;
	wm_row_begin(&m->b);
	for (int qc = 0; qc < m->nqc; qc++) {
		int pods = p->units[m->qc_units[m->qc_beg[qc]]].npods;
		wm_coef(&m->b, m->qcol[qc], pods);
		all += (long)pods * wag_q_k(m, qc);
	}
	if (all > p->max_evictions)
		wm_row_end(&m->b, GLP_LO, (double)(all - p->max_evictions), 0,
			   NULL);
	else
		wm_row_drop(&m->b);
}

/* The steps in order; each returns early on m->nomem. */
static void (*const build_steps[])(ag *) = {
    wag_make_parts, wag_make_qclasses, wag_cols_x,   cols_groups, cols_comps,
    cols_q,     cols_packing,  rows_groups, rows_tree, rows_cap,
    rows_max_evict, wag_objective};

int wag_build(ag *m)
{
	for (size_t i = 0;
	     i < sizeof build_steps / sizeof *build_steps && !m->nomem; i++)
		build_steps[i](m);
	return m->nomem ? WASP_ENOMEM : WASP_OK;
}
