/*
 * topo.c -- topology (doc/formulation.md §3, §9): required domains,
 * topology annotations (exclusive domains, slices, preferred levels)
 * and the packing columns of domains that stay wholly free.
 */
#include "solve/ilp/ilp_int.h"

/* v[k,d]: every node of domain d of key k stays wholly free (packing
 * tier; doc/formulation.md section 4).  Every key of the topology, every
 * domain of two or more nodes (a one-node domain is its node's u) whose
 * nodes are all empty now and not all constantly free (some has a u
 * column); pk[k,d,n]: v[k,d] <= u[n] per node of d with a u column
 * (tighter than the aggregated row).  Nodes without a u column are
 * empty and take no pods: always free. */
void wilp_pk_cols(wm *m)
{
	const wp_problem *p = m->p;
	const wtp_topo *t = p->topo;
	if (!t || !t->nkeys)
		return;
	m->pkkey = wa_calloc(m->ar, (size_t)t->nkeys + 1, 1);
	if (!m->pkkey) {
		m->nomem = true;
		return;
	}
	for (int k = 0; k < t->nkeys && !m->nomem; k++) {
		const wtp_key *key = &t->keys[k];
		for (int d = 0; d < key->ndom && !m->nomem; d++) {
			int nn = key->dom_nnodes[d], nu = 0;
			bool ok = nn >= 2;
			for (int i = 0; i < nn && ok; i++) {
				int n = key->dom_nodes[d][i];
				ok = wp_node_empty(m->p, n);
				nu += m->ucol[n] != 0;
			}
			if (!ok || !nu)
				continue;
			int j = wm_col(&m->b, WM_P, k, d, 0, 1,
			    wm_name(&m->b, "v[%s,%s]", key->label,
				    key->dom_name[d]));
			m->npk++;
			m->pkkey[k] = 1;
			for (int i = 0; i < nn; i++) {
				int n = key->dom_nodes[d][i];
				if (!m->ucol[n])
					continue;
				wm_row_begin(&m->b);
				wm_coef(&m->b, j, 1);
				wm_coef(&m->b, m->ucol[n], -1);
				wm_row_end(&m->b, GLP_UP, 0, 0,
				    wm_name(&m->b, "pk[%s,%s,%s]", key->label,
					    key->dom_name[d],
					    p->snap->nodes[n].name));
			}
		}
	}
}

/* Is packing column j (v[k,d]) free, busy[n]: pods placed on n? */
bool wilp_pk_free(const wm *m, int j, const unsigned char *busy)
{
	const wtp_key *key = &m->p->topo->keys[m->cref[j]];
	int d = m->cdom[j];
	for (int i = 0; i < key->dom_nnodes[d]; i++) {
		int n = key->dom_nodes[d][i];
		if (m->ucol[n] && busy[n])
			return false;
	}
	return true;
}

/* dsel[g]: one domain per admitted gang (sum_d t = a[g]) or at most one
 * for a basic group; dom[g,d]: pods only in the chosen domain
 * (sum_{c in g, n in d} x <= min(size, room in d) * t[g,d]). */
void wilp_rows_topo(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	int maxdom = 0;
	for (int k = 0; p->topo && k < p->topo->nkeys; k++)
		if (p->topo->keys[k].ndom > maxdom)
			maxdom = p->topo->keys[k].ndom;
	int *tidx = wa_calloc(m->ar, maxdom + 1, sizeof *tidx);
	int *cnt = wa_calloc(m->ar, maxdom + 2, sizeof *cnt);
	int *bucket = wa_calloc(m->ar, m->ncols + 1, sizeof *bucket);
	if (!tidx || !cnt || !bucket) {
		m->nomem = true;
		return;
	}
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		int nt = m->tn[gi];
		if (!nt)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		wilp_group_name(p, gi, gb, sizeof gb);
		wm_row_begin(&m->b);
		for (int i = 0; i < nt; i++)
			wm_coef(&m->b, m->tbeg[gi] + i, 1);
		if (m->acol[gi]) {
			wm_coef(&m->b, m->acol[gi], -1);
			wm_row_end(&m->b, GLP_FX, 0, 0,
				   wm_name(&m->b, "dsel[%s]", gb));
		} else {
			wm_row_end(&m->b, GLP_UP, 0, 1,
				   wm_name(&m->b, "dsel[%s]", gb));
		}
		/* bucket the group's columns by domain, in class order */
		for (int i = 0; i < nt; i++)
			tidx[m->cdom[m->tbeg[gi] + i]] = i + 1;
		memset(cnt, 0, sizeof *cnt * (nt + 1));
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *cl = &p->classes[g->classes[ci]];
			for (int k = 0; k < cl->nelig; k++)
				if (m->xcol[cl->off + k])
					cnt[tidx[key->node_dom[cl->elig[k]]]]++;
		}
		for (int i = 1; i <= nt; i++)
			cnt[i] += cnt[i - 1];
		/* cnt[i-1] .. : start of bucket i (1-based t index) */
		for (int i = nt; i >= 1; i--)
			cnt[i] = cnt[i - 1];
		cnt[0] = 0;
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *cl = &p->classes[g->classes[ci]];
			for (int k = 0; k < cl->nelig; k++) {
				int s = cl->off + k;
				if (m->xcol[s])
					bucket[cnt[tidx[key->node_dom
							    [cl->elig[k]]]]++] =
					    s;
			}
		}
		/* now cnt[i] is the end of bucket i, cnt[i-1] its start */
		for (int i = 1; i <= nt; i++) {
			int j = m->tbeg[gi] + i - 1, d = m->cdom[j];
			long room = 0, rc = 0;
			int prev = -1;
			wm_row_begin(&m->b);
			for (int q = cnt[i - 1]; q < cnt[i]; q++) {
				int s = bucket[q];
				int c = wp_slot_class(p, s);
				if (c != prev) {
					if (prev >= 0)
						room += rc < p->classes[prev].count
							    ? rc
							    : p->classes[prev].count;
					rc = 0;
					prev = c;
				}
				wm_coef(&m->b, m->xcol[s], 1);
				rc += m->xub[s];
			}
			if (prev >= 0)
				room += rc < p->classes[prev].count
					    ? rc
					    : p->classes[prev].count;
			if (room > g->size)
				room = g->size;
			wm_coef(&m->b, j, -(double)room);
			wm_row_end(&m->b, GLP_UP, 0, 0,
			    wm_name(&m->b, "dom[%s,%s]", gb, key->dom_name[d]));
		}
		for (int i = 0; i < nt; i++)
			tidx[m->cdom[m->tbeg[gi] + i]] = 0;
	}
}

/* e[g,d]: the exclusive domain of group g; k[g,l,d]: slices of layer l
 * in domain d.  One column per domain where g has columns. */
void wilp_cols_tas(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		const wp_tas *ta = g->tas;
		if (!ta)
			continue;
		wilp_group_name(p, gi, gb, sizeof gb);
		for (int l = -1; l < ta->nslices; l++) {
			int key = l < 0 ? ta->excl : ta->slice_key[l];
			if (key < 0)
				continue;
			const wtp_key *k = &p->topo->keys[key];
			long *room = wa_calloc(m->ar, k->ndom + 1, sizeof *room);
			if (!room) {
				m->nomem = true;
				return;
			}
			for (int ci = 0; ci < g->nclasses; ci++) {
				const wp_class *cl = &p->classes[g->classes[ci]];
				for (int q = 0; q < cl->nelig; q++)
					if (m->xcol[cl->off + q])
						room[k->node_dom[cl->elig[q]]] +=
						    m->xub[cl->off + q];
			}
			int *beg = l < 0 ? &m->ebeg[gi]
					 : &m->kbeg[gi * WS_MAX_SLICE_LAYERS + l];
			int *cnt = l < 0 ? &m->en[gi]
					 : &m->kn[gi * WS_MAX_SLICE_LAYERS + l];
			*beg = m->ncols + 1;
			for (int d = 0; d < k->ndom; d++) {
				if (!room[d])
					continue;
				if (l < 0)
					wm_col(&m->b, WM_E, gi, d, 0, 1,
					    wm_name(&m->b, "e[%s,%s]", gb,
						    k->dom_name[d]));
				else
					wm_col(&m->b, WM_K, gi, d, 0,
					    (double)((room[d] < g->size
						      ? room[d] : g->size) /
						     ta->slice_size[l]),
					    wm_name(&m->b, "k%d[%s,%s]", l, gb,
						    k->dom_name[d]));
				(*cnt)++;
			}
		}
	}
}

/* The x columns of group g on nodes of domain d of key k, into the row
 * begun; returns their summed bounds. */
static long coef_group_dom(wm *m, const wp_group *g, const wtp_key *k, int d)
{
	const wp_problem *p = m->p;
	long room = 0;
	for (int ci = 0; ci < g->nclasses; ci++) {
		const wp_class *cl = &p->classes[g->classes[ci]];
		for (int q = 0; q < cl->nelig; q++) {
			int sl = cl->off + q;
			if (!m->xcol[sl] || k->node_dom[cl->elig[q]] != d)
				continue;
			wm_coef(&m->b, m->xcol[sl], 1);
			room += m->xub[sl];
		}
	}
	return room;
}

/* esel[g]: one exclusive domain per admitted group; edom[g,d]: pods only
 * there; excl[k,d]: at most one group per domain (domains held by running
 * groups have no columns for the others); slice[g,l,d]: the pods of g in
 * d are slice_size[l] * k[g,l,d]. */
void wilp_rows_tas(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	int nk = p->topo ? p->topo->nkeys : 0;
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		const wp_tas *ta = g->tas;
		if (!ta)
			continue;
		wilp_group_name(p, gi, gb, sizeof gb);
		if (ta->excl >= 0 && m->acol[gi]) {
			const wtp_key *k = &p->topo->keys[ta->excl];
			wm_row_begin(&m->b);
			for (int i = 0; i < m->en[gi]; i++)
				wm_coef(&m->b, m->ebeg[gi] + i, 1);
			wm_coef(&m->b, m->acol[gi], -1);
			wm_row_end(&m->b, GLP_FX, 0, 0,
				   wm_name(&m->b, "esel[%s]", gb));
			for (int i = 0; i < m->en[gi]; i++) {
				int j = m->ebeg[gi] + i, d = m->cdom[j];
				wm_row_begin(&m->b);
				long room = coef_group_dom(m, g, k, d);
				if (room > g->size)
					room = g->size;
				wm_coef(&m->b, j, -(double)room);
				wm_row_end(&m->b, GLP_UP, 0, 0,
				    wm_name(&m->b, "edom[%s,%s]", gb,
					    k->dom_name[d]));
			}
		}
		for (int l = 0; l < ta->nslices; l++) {
			const wtp_key *k = &p->topo->keys[ta->slice_key[l]];
			int b = m->kbeg[gi * WS_MAX_SLICE_LAYERS + l];
			int n = m->kn[gi * WS_MAX_SLICE_LAYERS + l];
			for (int i = 0; i < n; i++) {
				int j = b + i, d = m->cdom[j];
				wm_row_begin(&m->b);
				coef_group_dom(m, g, k, d);
				wm_coef(&m->b, j, -(double)ta->slice_size[l]);
				wm_row_end(&m->b, GLP_FX, 0, 0,
				    wm_name(&m->b, "slice%d[%s,%s]", l, gb,
					    k->dom_name[d]));
			}
		}
	}
	for (int key = 0; key < nk && !m->nomem; key++) {
		if (!p->excl_owner || !p->excl_owner[key])
			continue;
		const wtp_key *k = &p->topo->keys[key];
		for (int d = 0; d < k->ndom; d++) {
			int cnt = 0;
			wm_row_begin(&m->b);
			for (int gi = 0; gi < p->ngroups; gi++) {
				const wp_tas *ta = p->groups[gi].tas;
				if (!ta || ta->excl != key)
					continue;
				for (int i = 0; i < m->en[gi]; i++)
					if (m->cdom[m->ebeg[gi] + i] == d) {
						wm_coef(&m->b, m->ebeg[gi] + i, 1);
						cnt++;
					}
			}
			if (cnt < 2) {
				wm_row_drop(&m->b);
				continue;
			}
			wm_row_end(&m->b, GLP_UP, 0, 1,
			    wm_name(&m->b, "excl[%s,%s]", k->label,
				    k->dom_name[d]));
		}
	}
}

/* w[g,k,d] for a group with a preferred level: domain d of level k (the
 * preferred one and every coarser one) holds none of its pods; the
 * compactness tiers maximise them.  unused[g,k,d]: sum x + room w <=
 * room. */
void wilp_cols_rows_pref(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups && !m->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->tas || g->tas->pref < 0)
			continue;
		wilp_group_name(p, gi, gb, sizeof gb);
		for (int k = g->tas->pref; k >= 0 && k < 64;
		     k = p->topo->keys[k].parent) {
			const wtp_key *key = &p->topo->keys[k];
			for (int d = 0; d < key->ndom && !m->nomem; d++) {
				wm_row_begin(&m->b);
				long room = coef_group_dom(m, g, key, d);
				if (!room) {
					wm_row_drop(&m->b);
					continue;
				}
				if (room > g->size)
					room = g->size;
				int j = wm_col(&m->b, WM_W, gi, d, 0, 1,
				    wm_name(&m->b, "w[%s,%s,%s]", gb, key->label,
					    key->dom_name[d]));
				/* group and key (< 64) in one reference */
				m->cref[j] = gi * 64 + k;
				wm_coef(&m->b, j, (double)room);
				wm_row_end(&m->b, GLP_UP, 0, (double)room,
				    wm_name(&m->b, "unused[%s,%s,%s]", gb,
					    key->label, key->dom_name[d]));
				m->nwcol++;
			}
		}
	}
}

/* Is the domain of W column j left unused by its group in counts x? */
bool wilp_w_unused(const wm *m, const int *x, int j)
{
	const wp_problem *p = m->p;
	const wp_group *g = &p->groups[m->cref[j] / 64];
	const wtp_key *key = &p->topo->keys[m->cref[j] % 64];
	long cnt = 0;
	for (int ci = 0; ci < g->nclasses; ci++) {
		const wp_class *cl = &p->classes[g->classes[ci]];
		for (int q = 0; q < cl->nelig; q++)
			if (key->node_dom[cl->elig[q]] == m->cdom[j])
				cnt += x[cl->off + q];
	}
	return cnt == 0;
}

void wilp_vec_pref(const wm *m, const int *x, double *v)
{
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_W)
			v[j] = wilp_w_unused(m, x, j);
}

/* e and k columns from the x counts (wilp_vec_from_x). */
void wilp_vec_tas(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		const wp_tas *ta = g->tas;
		if (!ta)
			continue;
		for (int l = -1; l < ta->nslices; l++) {
			int key = l < 0 ? ta->excl : ta->slice_key[l];
			if (key < 0)
				continue;
			const wtp_key *k = &p->topo->keys[key];
			int b = l < 0 ? m->ebeg[gi]
				      : m->kbeg[gi * WS_MAX_SLICE_LAYERS + l];
			int n = l < 0 ? m->en[gi]
				      : m->kn[gi * WS_MAX_SLICE_LAYERS + l];
			for (int i = 0; i < n; i++) {
				int d = m->cdom[b + i];
				long cnt = 0;
				for (int ci = 0; ci < g->nclasses; ci++) {
					const wp_class *cl =
					    &p->classes[g->classes[ci]];
					for (int q = 0; q < cl->nelig; q++)
						if (k->node_dom[cl->elig[q]] ==
						    d)
							cnt += x[cl->off + q];
				}
				v[b + i] = l < 0 ? cnt > 0
						 : (double)(cnt /
							    ta->slice_size[l]);
			}
		}
	}
}
