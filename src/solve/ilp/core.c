/*
 * core.c -- core assignment and capacity (doc/formulation.md §2, §3):
 * x columns per (class, node), a per group, t per (group, domain), u per
 * node left empty; the class, gang and capacity rows.
 */
#include "solve/ilp/ilp_int.h"

void wilp_cols_x(wm *m)
{
	const wp_problem *p = m->p;
	int *dcap = NULL;
	int maxdom = 0;
	for (int k = 0; p->topo && k < p->topo->nkeys; k++)
		if (p->topo->keys[k].ndom > maxdom)
			maxdom = p->topo->keys[k].ndom;
	dcap = wa_calloc(m->ar, maxdom + 1, sizeof *dcap);
	if (!dcap) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		for (int k = 0; k < cl->nelig; k++) {
			const wp_group *g = &p->groups[cl->group];
			int n = cl->elig[k];
			m->xub[cl->off + k] =
			    wp_allowed(p, g, n) ? wilp_x_bound_q(m, c, n) : 0;
			/* DRA: what the node's devices hold of this class
			 * alone (exact for its own claims) */
			if (m->cpc && m->cpc[c] && m->xub[cl->off + k] > 0)
				m->xub[cl->off + k] = wdr_fit(
				    wilp_dv_fit_state(m, c), m->cpc[c], n,
				    m->xub[cl->off + k]);
		}
	}
	/* per gang with a key: pods that fit in each domain */
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->gang || g->key < 0 || g->min_need <= 0)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		memset(dcap, 0, sizeof *dcap * (maxdom + 1));
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			int *per = wa_calloc(m->ar, key->ndom + 1,
					     sizeof *per);
			if (!per) {
				m->nomem = true;
				return;
			}
			for (int k = 0; k < cl->nelig; k++) {
				int d = key->node_dom[cl->elig[k]];
				if (d >= 0)
					per[d] += m->xub[cl->off + k];
			}
			for (int d = 0; d < key->ndom; d++)
				dcap[d] += per[d] < cl->count ? per[d]
							      : cl->count;
		}
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++) {
				int d = key->node_dom[cl->elig[k]];
				if (d >= 0 && dcap[d] < g->min_need)
					m->xub[cl->off + k] = 0;
			}
		}
	}
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		for (int k = 0; k < cl->nelig; k++) {
			int s = cl->off + k, n = cl->elig[k];
			if (m->xub[s] <= 0)
				continue;
			m->xcol[s] = wm_col(&m->b, WM_X, s, -1, 0, m->xub[s],
			    wm_name(&m->b, "x[c%d,%s]", c,
				    p->snap->nodes[n].name));
		}
	}
}

/* Pods of group g that its columns can hold at most. */
static int group_room(const wm *m, const wp_group *g)
{
	const wp_problem *p = m->p;
	long room = 0;
	for (int i = 0; i < g->nclasses; i++) {
		const wp_class *cl = &p->classes[g->classes[i]];
		long s = 0;
		for (int k = 0; k < cl->nelig; k++)
			if (m->xcol[cl->off + k])
				s += m->xub[cl->off + k];
		room += s < cl->count ? s : cl->count;
	}
	return room > INT_MAX ? INT_MAX : (int)room;
}

/* a[g]: admission of a gang that has columns (fixed at 0 when min_need
 * cannot be reached).  Basic groups need none. */
void wilp_cols_a(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		/* basic groups in a tree or with annotations need one too
		 * (doc/formulation.md §9) */
		if (!g->gang && !g->pcomp && !g->tas)
			continue;
		int room = group_room(m, g);
		/* a tree gang already at minCount counts as admitted even
		 * when it cannot grow */
		if (room == 0 && !(g->pcomp && g->gang && g->min_need == 0))
			continue;
		m->acol[gi] = wm_col(&m->b, WM_A, gi, -1, 0,
		    room >= g->min_need ? 1 : 0,
		    wm_name(&m->b, "a[%s]",
			    wilp_group_name(p, gi, gb, sizeof gb)));
	}
}

/* t[g,d]: the domain of the group's key that holds its pods; one column
 * per domain where the group has columns. */
void wilp_cols_t(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (g->key < 0)
			continue;
		const wtp_key *key = &p->topo->keys[g->key];
		unsigned char *has = wa_calloc(m->ar, key->ndom + 1, 1);
		if (!has) {
			m->nomem = true;
			return;
		}
		int any = 0;
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++)
				if (m->xcol[cl->off + k]) {
					has[key->node_dom[cl->elig[k]]] = 1;
					any = 1;
				}
		}
		if (!any)
			continue;
		wilp_group_name(p, gi, gb, sizeof gb);
		m->tbeg[gi] = m->ncols + 1;
		for (int d = 0; d < key->ndom; d++) {
			if (!has[d])
				continue;
			wm_col(&m->b, WM_T, gi, d, 0, 1,
			       wm_name(&m->b, "t[%s,%s]", gb, key->dom_name[d]));
			m->tn[gi]++;
		}
	}
}

/* u[n]: node n stays wholly free (packing tier).  One per node that has
 * no bound pods and is eligible for some class; fixed at 1 when no column
 * can put pods there. */
void wilp_cols_u(wm *m)
{
	const wp_problem *p = m->p;
	unsigned char *elig = wa_calloc(m->ar, p->nnodes + 1, 1);
	if (!elig) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++)
			elig[p->classes[c].elig[k]] = 1;
	for (int n = 0; n < p->nnodes; n++) {
		if (!elig[n] || !wp_node_empty(p, n))
			continue;
		bool any = m->nxbeg[n + 1] > m->nxbeg[n];
		m->ucol[n] = wm_col(&m->b, WM_U, n, -1, any ? 0 : 1, 1,
		    wm_name(&m->b, "u[%s]", p->snap->nodes[n].name));
	}
}

/* cls[c]: at most count pods of class c; for a gang, none unless admitted
 * (sum_n x[c,n] <= count * a[g]). */
void wilp_rows_class(wm *m)
{
	const wp_problem *p = m->p;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		long room = 0;
		wm_row_begin(&m->b);
		for (int k = 0; k < cl->nelig; k++) {
			int j = m->xcol[cl->off + k];
			if (!j)
				continue;
			wm_coef(&m->b, j, 1);
			room += m->xub[cl->off + k];
		}
		const char *nm = wm_name(&m->b, "cls[c%d]", c);
		if (m->acol[cl->group]) {
			wm_coef(&m->b, m->acol[cl->group], -cl->count);
			wm_row_end(&m->b, GLP_UP, 0, 0, nm);
		} else if (room > cl->count) {
			wm_row_end(&m->b, GLP_UP, 0, cl->count, nm);
		} else {
			wm_row_drop(&m->b); /* cannot bind */
		}
	}
}

/* gmin[g]: an admitted gang places at least min_need pods
 * (sum x >= min_need * a[g]). */
void wilp_rows_gang(wm *m)
{
	const wp_problem *p = m->p;
	char gb[600];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		int need = g->gang ? g->min_need : 1; /* basic: tree groups */
		if (!m->acol[gi] || need <= 0)
			continue;
		wm_row_begin(&m->b);
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++)
				wm_coef(&m->b, m->xcol[cl->off + k], 1);
		}
		wm_coef(&m->b, m->acol[gi], -need);
		wm_row_end(&m->b, GLP_LO, 0, 0,
		    wm_name(&m->b, "gmin[%s]",
			    wilp_group_name(p, gi, gb, sizeof gb)));
	}
}

/* cap[n,r]: sum_c req[c,r] x[c,n] <= free[n,r], divided by the gcd of the
 * coefficients (exact for integer x), only where the row can bind.  The
 * pods row also carries u[n]: sum x + M u[n] <= M, M = min(free, room),
 * so a node counted as free holds nothing. */
void wilp_rows_cap(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	for (int n = 0; n < p->nnodes && !m->nomem; n++) {
		int b = m->nxbeg[n], e = m->nxbeg[n + 1];
		bool linked = false;
		bool mv = m->ny_beg && m->ny_beg[n + 1] > m->ny_beg[n];
		if (b == e && !(m->mvin && m->mvin[n]))
			continue;
		if ((m->hasq && m->hasq[n]) || mv) {
			/* bound pods there: no u[n] to link */
			wilp_rows_cap_q(m, n);
			continue;
		}
		for (int r = 0; r < p->nres; r++) {
			int64_t f = p->free[(size_t)n * p->nres + r], g = 0;
			double room = 0;
			bool allpos = true;
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int64_t q = p->classes[wp_slot_class(p, sl)].req[r];
				if (q <= 0) {
					allpos = false;
					continue;
				}
				g = wp_gcd(g, q);
				room += (double)q * m->xub[sl];
			}
			bool link = r == WS_RES_PODS && m->ucol[n] && allpos;
			if (g == 0 || (room <= (double)f && !link))
				continue;
			double rhs = (double)(f / g);
			if (link && room / (double)g < rhs)
				rhs = room / (double)g;
			wm_row_begin(&m->b);
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int64_t q = p->classes[wp_slot_class(p, sl)].req[r];
				if (q > 0)
					wm_coef(&m->b, m->xcol[sl],
						(double)(q / g));
			}
			if (link)
				wm_coef(&m->b, m->ucol[n], rhs);
			linked |= link;
			wm_row_end(&m->b, GLP_UP, 0, rhs,
			    wm_name(&m->b, "cap[%s,%s]", s->nodes[n].name,
				    s->res[r]));
		}
		if (m->ucol[n] && !linked) {
			/* a class requests no pods resource: link u[n] by
			 * use[n]: sum x + room u <= room */
			double room = 0;
			wm_row_begin(&m->b);
			for (int i = b; i < e; i++) {
				wm_coef(&m->b, m->xcol[m->nxslot[i]], 1);
				room += m->xub[m->nxslot[i]];
			}
			wm_coef(&m->b, m->ucol[n], room);
			wm_row_end(&m->b, GLP_UP, 0, room,
			    wm_name(&m->b, "use[%s]", s->nodes[n].name));
		}
	}
}
