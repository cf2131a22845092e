/*
 * moves.c -- moves (doc/formulation.md §4c): y columns of move classes,
 * their rows and capacity terms, and the moves read back.
 */
#include "solve/ilp/ilp_int.h"

/* Moves (--rebalance; doc/formulation.md §4c).  Move class i
 * (p->mcls[i]: K pods on home node h) has y[i,n] pods on each node n of
 * its elig list; sum_n y = K, or = q[e] (pods kept) when its units are
 * the eviction class e.  Its home capacity is freed in the rows, so per
 * node, resource and level L the class adds use*y[i,n] (a pod moved in
 * counts at every level, a rows level INT32_MIN is added for it: it uses
 * no room an eviction freed); at home the right-hand side gains use*K
 * (the pods' room is freed), except at levels L <= prio(i) of an
 * evictable class, where the evicted pods still count: use*(y + K - q)
 * <= free + use*K, i.e. the row gets -use*q[e] and no rhs term.
 * Moves (sum of y off home) are tier 3, entered as minus the moves. */

const wp_mclass *wilp_y_class(const wm *m, int j)
{
	return &m->p->mcls[m->cref[j]];
}

/* Before the x columns: the per-node move lists' sizes and the room that
 * pods that may leave hold (x bounds count it). */
void wilp_mv_setup(wm *m)
{
	const wp_problem *p = m->p;
	if (!p->nmcls)
		return;
	m->mc_qc = wa_calloc(m->ar, p->nmcls + 1, sizeof *m->mc_qc);
	m->qc_mc = wa_calloc(m->ar, m->nqc + 1, sizeof *m->qc_mc);
	m->ybeg = wa_calloc(m->ar, p->nmcls + 1, sizeof *m->ybeg);
	m->ny_beg = wa_calloc(m->ar, p->nnodes + 2, sizeof *m->ny_beg);
	m->mvin = wa_calloc(m->ar, p->nnodes + 1, 1);
	m->mvfree = wa_calloc(m->ar, (size_t)p->nnodes * p->nres + 1,
			      sizeof *m->mvfree);
	if (!m->mc_qc || !m->qc_mc || !m->ybeg || !m->ny_beg || !m->mvin ||
	    !m->mvfree) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++)
		m->qc_mc[qc] = p->unit_mc[m->qc_units[m->qc_beg[qc]]];
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		m->mc_qc[i] = m->unit_qc[mc->units[0]];
		for (int k = 0; k < mc->nelig; k++) {
			m->ny_beg[mc->elig[k] + 1]++;
			if (k != mc->homek)
				m->mvin[mc->elig[k]] = 1;
		}
		for (int r = 0; r < p->nres; r++)
			m->mvfree[(size_t)mc->home * p->nres + r] +=
			    mc->req[r] * mc->count;
	}
	for (int n = 0; n < p->nnodes; n++)
		m->ny_beg[n + 1] += m->ny_beg[n];
}

/* y[i,n]: pods of move class i on node n (home included). */
void wilp_cols_y(wm *m)
{
	const wp_problem *p = m->p;
	if (!p->nmcls)
		return;
	m->ny_list = wa_calloc(m->ar, m->ny_beg[p->nnodes] + 1,
			       sizeof *m->ny_list);
	int *fill = wa_calloc(m->ar, p->nnodes + 1, sizeof *fill);
	if (!m->ny_list || !fill) {
		m->nomem = true;
		return;
	}
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		const ws_pod *pod = &p->snap->pods[p->units[mc->units[0]].pods[0]];
		for (int k = 0; k < mc->nelig; k++) {
			int n = mc->elig[k];
			int j = wm_col(&m->b, WM_Y, i, k, 0, mc->count,
			    wm_name(&m->b, "y[m%d,%s/%s,%s]", i, pod->ns,
				    pod->name, p->snap->nodes[n].name));
			if (k == 0)
				m->ybeg[i] = j;
			m->ny_list[m->ny_beg[n] + fill[n]++] = j;
		}
	}
}

/* mvsum[i]: sum_n y[i,n] = K, or = q[e]; maxmoves: sum of y off home
 * <= --max-moves. */
void wilp_rows_move(wm *m)
{
	const wp_problem *p = m->p;
	for (int i = 0; i < p->nmcls && !m->nomem; i++) {
		const wp_mclass *mc = &p->mcls[i];
		wm_row_begin(&m->b);
		for (int k = 0; k < mc->nelig; k++)
			wm_coef(&m->b, m->ybeg[i] + k, 1);
		int qc = m->mc_qc[i];
		if (qc >= 0) {
			wm_coef(&m->b, m->qcol[qc], -1);
			wm_row_end(&m->b, GLP_FX, 0, 0,
				   wm_name(&m->b, "mvsum[m%d]", i));
		} else {
			wm_row_end(&m->b, GLP_FX, mc->count, mc->count,
				   wm_name(&m->b, "mvsum[m%d]", i));
		}
	}
	if (p->nmcls && p->max_moves > 0 && !m->nomem) {
		long off = 0;
		wm_row_begin(&m->b);
		for (int i = 0; i < p->nmcls; i++)
			for (int k = 0; k < p->mcls[i].nelig; k++)
				if (k != p->mcls[i].homek) {
					wm_coef(&m->b, m->ybeg[i] + k, 1);
					off += p->mcls[i].count;
				}
		if (off > p->max_moves)
			wm_row_end(&m->b, GLP_UP, 0, p->max_moves,
				   wm_name(&m->b, "maxmoves"));
		else
			wm_row_drop(&m->b);
	}
}

/* Capacity rows at node n, resource r: the gcd and the room of pods
 * that may move in (the home terms are balanced by wilp_mv_rhs). */
void wilp_mv_room(const wm *m, int n, int r, int64_t *g, double *room)
{
	for (int i = m->ny_beg ? m->ny_beg[n] : 0;
	     m->ny_beg && i < m->ny_beg[n + 1]; i++) {
		int j = m->ny_list[i];
		const wp_mclass *mc = wilp_y_class(m, j);
		int64_t u = mc->req[r];
		if (u <= 0)
			continue;
		*g = wp_gcd(*g, u);
		if (mc->home != n)
			*room += (double)u * m->cub[j];
	}
}

/* The home terms' right-hand side at level L: use*K, except where the
 * row has -use*q (its evicted pods count: use*(y - q) <= 0 + ...). */
int64_t wilp_mv_rhs(const wm *m, int n, int r, int32_t L)
{
	int64_t v = 0;
	for (int i = m->ny_beg ? m->ny_beg[n] : 0;
	     m->ny_beg && i < m->ny_beg[n + 1]; i++) {
		int j = m->ny_list[i];
		const wp_mclass *mc = wilp_y_class(m, j);
		if (mc->home == n && !(m->mc_qc[m->cref[j]] >= 0 &&
				       mc->priority >= L))
			v += mc->req[r] * mc->count;
	}
	return v;
}

void wilp_mv_coefs(wm *m, int n, int r, int32_t L, int64_t g)
{
	for (int i = m->ny_beg ? m->ny_beg[n] : 0;
	     m->ny_beg && i < m->ny_beg[n + 1]; i++) {
		int j = m->ny_list[i];
		const wp_mclass *mc = wilp_y_class(m, j);
		int64_t u = mc->req[r];
		if (u <= 0)
			continue;
		wm_coef(&m->b, j, (double)(u / g));
		int qc = m->mc_qc[m->cref[j]];
		if (mc->home == n && qc >= 0 && mc->priority >= L)
			wm_coef(&m->b, m->qcol[qc], -(double)(u / g));
	}
}

/* Warm start (doc/formulation.md §6): the y columns of s's moves and evictions
 * in v (v holds every pod at home).  false: a move the model lacks. */
bool wilp_y_from_sol(const wm *m, const wp_sol *s, double *v)
{
	const wp_problem *p = m->p;
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		for (int t = 0; t < mc->count; t++) {
			int u = mc->units[t];
			int to = s->move_to ? s->move_to[p->units[u].pods[0]]
					    : -1;
			if (s->evict && s->evict[u]) {
				v[m->ybeg[i] + mc->homek] -= 1;
				continue;
			}
			if (to < 0)
				continue;
			int k = 0;
			while (k < mc->nelig && mc->elig[k] != to)
				k++;
			if (k == mc->nelig)
				return false;
			v[m->ybeg[i] + mc->homek] -= 1;
			v[m->ybeg[i] + k] += 1;
		}
	}
	for (int pi = 0; s->move_to && pi < p->snap->npods; pi++)
		if (s->move_to[pi] >= 0 && !p->nmcls)
			return false;
	return true;
}

/* The moves of v into out (after its evictions): per class, of the pods
 * not evicted the first y[home] stay, the next go to the other y nodes
 * in order; any left over (an eviction wilp_fill_evictions dropped) stay. */
void wilp_fill_moves(const wm *m, const double *v, wp_sol *out)
{
	const wp_problem *p = m->p;
	for (int pi = 0; pi < p->snap->npods; pi++)
		out->move_to[pi] = -1;
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		int stay = (int)lround(v[m->ybeg[i] + mc->homek]);
		int k = -1, left = 0;
		for (int t = 0; t < mc->count; t++) {
			int u = mc->units[t];
			if (out->evict[u])
				continue;
			if (stay > 0) {
				stay--;
				continue;
			}
			while (left <= 0 && ++k < mc->nelig)
				left = k == mc->homek
					   ? 0
					   : (int)lround(v[m->ybeg[i] + k]);
			if (k >= mc->nelig)
				break;
			left--;
			out->move_to[p->units[u].pods[0]] = mc->elig[k];
		}
	}
}

/* Tier-3 part of the single objective at out: minus the moves. */
double wilp_mv_obj(const wm *m, const wp_sol *out)
{
	if (m->mtier < 0)
		return 0;
	return -m->wfull[m->mtier] * (double)wp_moves(m->p, out);
}
