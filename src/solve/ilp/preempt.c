/*
 * preempt.c -- preemption (doc/formulation.md §4b): eviction classes, their
 * keep columns q, PodDisruptionBudget columns w and rows, capacity rows
 * per priority level, claims that evictions free (f columns, with DRA),
 * and the evictions read back from an answer.
 */
#include "solve/ilp/ilp_int.h"

int32_t wilp_q_prio(const wm *m, int qc)
{
	return m->p->units[m->qc_units[m->qc_beg[qc]]].priority;
}

int wilp_q_ub(const wm *m, int qc)
{
	return m->qc_beg[qc + 1] - m->qc_beg[qc];
}

/* Requests of resource r that one unit of class qc holds on node n. */
int64_t wilp_q_use(const wm *m, int qc, int n, int r)
{
	const wp_problem *p = m->p;
	const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
	int64_t u = 0;
	for (int i = 0; i < un->npods; i++) {
		const ws_pod *pod = &p->snap->pods[un->pods[i]];
		if (pod->node == n)
			u += pod->req[r];
	}
	return u;
}

/* Pods of one unit of class qc (all units of a class have as many). */
int wilp_q_pods(const wm *m, int qc)
{
	return m->p->units[m->qc_units[m->qc_beg[qc]]].npods;
}

/* Tier-2 cost of evicting one unit of class qc. */
double wilp_q_cost(const wm *m, int qc)
{
	const wp_unit *un = &m->p->units[m->qc_units[m->qc_beg[qc]]];
	return (double)un->npods * un->weight;
}

/* Single units that differ in nothing but identity: same node, priority
 * and requests. */
static int q_cmp(const void *ctx, int a, int b)
{
	const wp_problem *p = ctx;
	const wp_unit *x = &p->units[a], *y = &p->units[b];
	if (x->all != y->all)
		return x->all ? 1 : -1;
	if (!x->all) {
		const ws_pod *pa = &p->snap->pods[x->pods[0]];
		const ws_pod *pb = &p->snap->pods[y->pods[0]];
		if (pa->node != pb->node)
			return pa->node < pb->node ? -1 : 1;
		if (x->priority != y->priority)
			return x->priority < y->priority ? -1 : 1;
		int c = memcmp(pa->req, pb->req,
			       (size_t)p->nres * sizeof *pa->req);
		if (c)
			return c;
		if (x->npdb != y->npdb)
			return x->npdb < y->npdb ? -1 : 1;
		for (int j = 0; j < x->npdb; j++)
			if (x->pdb[j] != y->pdb[j])
				return x->pdb[j] < y->pdb[j] ? -1 : 1;
		/* one eviction class per move class (§4c) */
		if (p->unit_mc && p->unit_mc[a] != p->unit_mc[b])
			return p->unit_mc[a] < p->unit_mc[b] ? -1 : 1;
	}
	return (a > b) - (a < b);
}

/* Does a pod of unit u hold an allocated claim (DRA and preemption,
 * doc/formulation.md §3b)? Such a unit is an eviction class of its own, so
 * that q says which claims lose their holders (wilp_dv_held). */
static bool unit_holds(const wp_problem *p, int u)
{
	const ws_dra *d = p->snap->dra;
	if (!d || !d->held_beg || !d->held_beg[p->snap->npods])
		return false;
	const wp_unit *un = &p->units[u];
	for (int i = 0; i < un->npods; i++)
		if (d->held_beg[un->pods[i] + 1] > d->held_beg[un->pods[i]])
			return true;
	return false;
}

/* Eviction classes: the running units some group could evict (priority
 * below the highest of the groups that may preempt), interchangeable
 * single pods merged.  Built before the x columns, whose bounds count
 * what evictions could free. */
void wilp_q_classes(wm *m)
{
	const wp_problem *p = m->p;
	int32_t maxp;
	bool any = wpe_top_priority(p, &maxp);
	m->unit_qc = wa_calloc(m->ar, p->nunits + 1, sizeof *m->unit_qc);
	m->hasq = wa_calloc(m->ar, p->nnodes + 1, 1);
	m->nq_beg = wa_calloc(m->ar, p->nnodes + 2, sizeof *m->nq_beg);
	int *v = wa_calloc(m->ar, p->nunits + 1, sizeof *v);
	int *tmp = wa_calloc(m->ar, p->nunits + 1, sizeof *tmp);
	m->qc_beg = wa_calloc(m->ar, p->nunits + 2, sizeof *m->qc_beg);
	m->qc_units = wa_calloc(m->ar, p->nunits + 1, sizeof *m->qc_units);
	if (!m->unit_qc || !m->hasq || !m->nq_beg || !v || !tmp ||
	    !m->qc_beg || !m->qc_units) {
		m->nomem = true;
		return;
	}
	int nv = 0;
	for (int u = 0; u < p->nunits; u++) {
		m->unit_qc[u] = -1;
		if (any && p->units[u].priority < maxp && !p->units[u].keep)
			v[nv++] = u;
	}
	wis_sort(v, tmp, nv, q_cmp, p);
	m->nqc = 0;
	for (int i = 0; i < nv; i++) {
		if (i == 0 || p->units[v[i]].all || p->units[v[i - 1]].all ||
		    unit_holds(p, v[i]) || unit_holds(p, v[i - 1]) ||
		    !wpe_same_budgets(&p->units[v[i - 1]], &p->units[v[i]]) ||
		    p->snap->pods[p->units[v[i - 1]].pods[0]].node !=
			p->snap->pods[p->units[v[i]].pods[0]].node ||
		    p->units[v[i - 1]].priority != p->units[v[i]].priority ||
		    (p->unit_mc &&
		     p->unit_mc[v[i - 1]] != p->unit_mc[v[i]]) ||
		    memcmp(p->snap->pods[p->units[v[i - 1]].pods[0]].req,
			   p->snap->pods[p->units[v[i]].pods[0]].req,
			   (size_t)p->nres * sizeof(int64_t)))
			m->qc_beg[m->nqc++] = i;
		m->qc_units[i] = v[i];
		m->unit_qc[v[i]] = m->nqc - 1;
	}
	m->qc_beg[m->nqc] = nv;
	/* per node, the classes with a pod there (each once) */
	int *last = wa_calloc(m->ar, p->nnodes + 1, sizeof *last);
	if (!last) {
		m->nomem = true;
		return;
	}
	for (int n = 0; n < p->nnodes; n++)
		last[n] = -1;
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npods; i++) {
			int n = p->snap->pods[un->pods[i]].node;
			if (last[n] != qc) {
				last[n] = qc;
				m->nq_beg[n + 1]++;
			}
		}
	}
	for (int n = 0; n < p->nnodes; n++)
		m->nq_beg[n + 1] += m->nq_beg[n];
	m->nq_list = wa_calloc(m->ar, m->nq_beg[p->nnodes] + 1,
			       sizeof *m->nq_list);
	int *fill = wa_calloc(m->ar, p->nnodes + 1, sizeof *fill);
	if (!m->nq_list || !fill) {
		m->nomem = true;
		return;
	}
	for (int n = 0; n < p->nnodes; n++)
		last[n] = -1;
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npods; i++) {
			int n = p->snap->pods[un->pods[i]].node;
			if (last[n] != qc) {
				last[n] = qc;
				m->nq_list[m->nq_beg[n] + fill[n]++] = qc;
				m->hasq[n] = 1;
			}
		}
	}
}

/* q[e]: units of eviction class e kept running (the rest are evicted). */
void wilp_cols_q(wm *m)
{
	m->qcol = wa_calloc(m->ar, m->nqc + 1, sizeof *m->qcol);
	if (!m->qcol) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &m->p->units[m->qc_units[m->qc_beg[qc]]];
		const ws_pod *pod = &m->p->snap->pods[un->pods[0]];
		m->qcol[qc] = wm_col(&m->b, WM_Q, qc, -1, 0, wilp_q_ub(m, qc),
		    wm_name(&m->b, "q[e%d,%s/%s]", qc, pod->ns,
			    un->all ? m->p->snap->groups[un->sg].name
				    : pod->name));
	}
}

/* w[j]: budget j's evictable pods minus its violations (the budget
 * tier); budget[j]: w[j] - sum_e sel[e,j] q[e] <= allowed[j], which with
 * q = k - evicted reads: violations >= evicted selected - allowed. */
void wilp_cols_w(wm *m)
{
	const wp_problem *p = m->p;
	int nb = p->snap->npdbs;
	m->wcol = wa_calloc(m->ar, nb + 1, sizeof *m->wcol);
	m->wV = wa_calloc(m->ar, nb + 1, sizeof *m->wV);
	if (!m->wcol || !m->wV) {
		m->nomem = true;
		return;
	}
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int j = 0; j < un->npdb; j++)
			m->wV[un->pdb[j]] += un->pdbn[j] * wilp_q_ub(m, qc);
	}
	for (int j = 0; j < nb; j++)
		if (m->wV[j] > 0)
			m->wcol[j] = wm_col(&m->b, WM_B, j, -1, 0, m->wV[j],
			    wm_name(&m->b, "w[%s/%s]", p->snap->pdbs[j].ns,
				    p->snap->pdbs[j].name));
}

void wilp_rows_budget(wm *m)
{
	const wp_problem *p = m->p;
	for (int j = 0; j < p->snap->npdbs && !m->nomem; j++) {
		if (!m->wcol[j])
			continue;
		wm_row_begin(&m->b);
		wm_coef(&m->b, m->wcol[j], 1);
		for (int qc = 0; qc < m->nqc; qc++) {
			const wp_unit *un =
			    &p->units[m->qc_units[m->qc_beg[qc]]];
			for (int i = 0; i < un->npdb; i++)
				if (un->pdb[i] == j)
					wm_coef(&m->b, m->qcol[qc], -un->pdbn[i]);
		}
		wm_row_end(&m->b, GLP_UP, 0, p->pdb_allowed[j],
		    wm_name(&m->b, "budget[%s/%s]", p->snap->pdbs[j].ns,
			    p->snap->pdbs[j].name));
	}
}

/* --max-evictions (doc/preemption.md, "Safety switches"): evicted pods
 * sum_e pods[e] (k[e] - q[e]) <= N, in keep form
 * sum_e pods[e] q[e] >= sum_e pods[e] k[e] - N; dropped when even
 * evicting every class stays within N. */
void wilp_rows_max_evict(wm *m)
{
	const wp_problem *p = m->p;
	if (p->max_evictions <= 0 || m->nqc == 0 || m->nomem)
		return;
	long all = 0;
	wm_row_begin(&m->b);
	for (int qc = 0; qc < m->nqc; qc++) {
		wm_coef(&m->b, m->qcol[qc], wilp_q_pods(m, qc));
		all += (long)wilp_q_pods(m, qc) * wilp_q_ub(m, qc);
	}
	if (all > p->max_evictions)
		wm_row_end(&m->b, GLP_LO, (double)(all - p->max_evictions), 0,
			   wm_name(&m->b, "maxevict"));
	else
		wm_row_drop(&m->b);
}

/* Pods of class c that fit on node n alone, counting what evicting the
 * lower units there would free when c's group may preempt. */
int wilp_x_bound_q(const wm *m, int c, int n)
{
	const wp_problem *p = m->p;
	const wp_class *cl = &p->classes[c];
	bool mv = m->mvfree && m->ny_beg[n + 1] > m->ny_beg[n];
	if (!mv && (!m->hasq || !m->hasq[n] || !wpe_may_preempt(p, cl->group)))
		return wilp_x_bound(p, c, n);
	bool q_ok = m->hasq && m->hasq[n] && wpe_may_preempt(p, cl->group);
	int32_t pr = p->groups[cl->group].priority;
	int64_t ub = cl->count;
	for (int r = 0; r < p->nres; r++) {
		int64_t f = p->free[(size_t)n * p->nres + r];
		int64_t q = cl->req[r];
		if (f < 0 && (q_ok || q > 0))
			return 0; /* over-committed already: leave it be */
		if (q <= 0)
			continue;
		if (mv)
			f += m->mvfree[(size_t)n * p->nres + r];
		for (int i = m->nq_beg[n]; q_ok && i < m->nq_beg[n + 1]; i++) {
			int qc = m->nq_list[i];
			if (wilp_q_prio(m, qc) < pr && !(m->qc_mc &&
						    m->qc_mc[qc] >= 0))
				f += wilp_q_use(m, qc, n, r) * wilp_q_ub(m, qc);
		}
		if (f < q)
			return 0;
		if (f / q < ub)
			ub = f / q;
	}
	return (int)ub;
}

/* Priority a class's pods count at in the capacity rows: its group's, or
 * the lowest of all for a group that may not preempt (its pods never use
 * freed room). */
int32_t wilp_eff_prio(const wp_problem *p, int c)
{
	int g = p->classes[c].group;
	return wpe_may_preempt(p, g) ? p->groups[g].priority : INT32_MIN;
}

/* capq[n,r,l]: the capacity rows of a node with eviction classes, one per
 * level l that a class with columns there has (doc/formulation.md
 * §4b, in keep form): sum_{c: prio(c) <= l} req x + sum_{e: prio(e) < l} use q
 * <= free + sum_{e: prio(e) < l} use ub. */
void wilp_rows_cap_q(wm *m, int n)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	int b = m->nxbeg[n], e = m->nxbeg[n + 1];
	int32_t *lv = malloc(sizeof *lv * (size_t)(e - b + 2));
	if (!lv) {
		m->nomem = true;
		return;
	}
	int nl = 0;
	/* pods moved in use no freed room: the lowest level (§4c) */
	if (m->mvin && m->mvin[n])
		lv[nl++] = INT32_MIN;
	for (int i = b; i < e; i++) {
		int32_t pr = wilp_eff_prio(p, wp_slot_class(p, m->nxslot[i]));
		int k = 0;
		while (k < nl && lv[k] != pr)
			k++;
		if (k == nl)
			lv[nl++] = pr;
	}
	if (!(m->hasq && m->hasq[n]) && nl > 1) {
		/* no eviction credit here: the top level's row implies the
		 * others (a node routed here for its moves, §4c) */
		for (int l = 1; l < nl; l++)
			if (lv[l] > lv[0])
				lv[0] = lv[l];
		nl = 1;
	}
	for (int l = 0; l < nl && !m->nomem; l++) {
		int32_t L = lv[l];
		for (int r = 0; r < p->nres; r++) {
			int64_t f = p->free[(size_t)n * p->nres + r], g = 0;
			double room = 0;
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int c = wp_slot_class(p, sl);
				int64_t q = p->classes[c].req[r];
				if (q <= 0 || wilp_eff_prio(p, c) > L)
					continue;
				g = wp_gcd(g, q);
				room += (double)q * m->xub[sl];
			}
			wilp_mv_room(m, n, r, &g, &room);
			if (g == 0 || room <= (double)f || room == 0)
				continue; /* cannot bind */
			int64_t credit = wilp_mv_rhs(m, n, r, L);
			for (int i = m->nq_beg[n]; i < m->nq_beg[n + 1]; i++) {
				int qc = m->nq_list[i];
				int64_t u = wilp_q_use(m, qc, n, r);
				if (wilp_q_prio(m, qc) >= L || u <= 0 ||
				    (m->qc_mc && m->qc_mc[qc] >= 0))
					continue;
				g = wp_gcd(g, u);
				credit += u * wilp_q_ub(m, qc);
			}
			wm_row_begin(&m->b);
			for (int i = b; i < e; i++) {
				int sl = m->nxslot[i];
				int c = wp_slot_class(p, sl);
				int64_t q = p->classes[c].req[r];
				if (q > 0 && wilp_eff_prio(p, c) <= L)
					wm_coef(&m->b, m->xcol[sl],
						(double)(q / g));
			}
			for (int i = m->nq_beg[n]; i < m->nq_beg[n + 1]; i++) {
				int qc = m->nq_list[i];
				int64_t u = wilp_q_use(m, qc, n, r);
				if (wilp_q_prio(m, qc) < L && u > 0 &&
				    !(m->qc_mc && m->qc_mc[qc] >= 0))
					wm_coef(&m->b, m->qcol[qc],
						(double)(u / g));
			}
			wilp_mv_coefs(m, n, r, L, g);
			wm_row_end(&m->b, GLP_UP, 0,
				   (double)((f + credit) / g),
			    wm_name(&m->b, "capq[%s,%s,%d]", s->nodes[n].name,
				    s->res[r], l));
		}
	}
	free(lv);
}

/* Claims whose devices evictions can free (DRA and preemption;
 * doc/formulation.md §3b): allocated, every holder pod in an eviction
 * class (a class of its own: unit_holds), and per device: not
 * multi-allocatable, in no other allocation, local to the node every
 * holder runs on (so each holder's eviction is credited to the group
 * that uses the device: wilp_fill_evictions).
 * Nothing when no running pod holds a claim: wilp_rows_dev is unchanged. */
void wilp_dv_held(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	const ws_dra *d = s->dra;
	m->dv_prio = INT32_MIN;
	if (!m->cpc || !d->held_beg || !d->held_beg[s->npods] || !m->nqc)
		return;
	int *pod_qc = wa_calloc(m->ar, (size_t)s->npods + 1, sizeof(int));
	m->dev_fr = wa_calloc(m->ar, (size_t)d->ndevs + 1, sizeof(int));
	m->fr_spec = wa_calloc(m->ar, (size_t)d->nspecs + 1, sizeof(int));
	m->fr_col = wa_calloc(m->ar, (size_t)d->nspecs + 1, sizeof(int));
	m->fr_prio = wa_calloc(m->ar, (size_t)d->nspecs + 1, sizeof(int32_t));
	m->fr_qbeg = wa_calloc(m->ar, (size_t)d->nspecs + 2, sizeof(int));
	int nh = 0;
	for (int sp = 0; sp < d->nspecs; sp++)
		nh += d->specs[sp].nholders;
	m->fr_q = wa_calloc(m->ar, (size_t)nh + 1, sizeof(int));
	if (!pod_qc || !m->dev_fr || !m->fr_spec || !m->fr_col ||
	    !m->fr_prio || !m->fr_qbeg || !m->fr_q) {
		m->nomem = true;
		return;
	}
	for (int pi = 0; pi < s->npods; pi++)
		pod_qc[pi] = -1;
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; m->unit_qc[u] >= 0 && i < p->units[u].npods; i++)
			pod_qc[p->units[u].pods[i]] = m->unit_qc[u];
	for (int dev = 0; dev < d->ndevs; dev++)
		m->dev_fr[dev] = -1;
	m->fr_min = INT32_MAX;
	for (int sp = 0; sp < d->nspecs; sp++) {
		const wdr_spec *spec = &d->specs[sp];
		if (!spec->allocated || !spec->nholders)
			continue;
		bool ok = true;
		int32_t top = INT32_MIN;
		for (int h = 0; h < spec->nholders && ok; h++) {
			int qc = pod_qc[spec->holders[h]];
			ok = qc >= 0;
			if (ok && wilp_q_prio(m, qc) > top)
				top = wilp_q_prio(m, qc);
		}
		if (!ok)
			continue;
		int i = m->nfr, k = m->fr_qbeg[i], ndev = 0;
		for (int a = 0; a < spec->nalloc; a++) {
			int dev = spec->alloc_dev[a];
			const wdr_device *dv = &d->devs[dev];
			bool near = dv->reach.node >= 0;
			for (int h = 0; h < spec->nholders && near; h++)
				near = s->pods[spec->holders[h]].node ==
				       dv->reach.node;
			if (dv->multi || m->dra->taken[dev] != 1 || !near ||
			    m->dev_fr[dev] >= 0)
				continue;
			m->dev_fr[dev] = i;
			ndev++;
		}
		if (!ndev)
			continue;
		for (int h = 0; h < spec->nholders; h++) {
			int qc = pod_qc[spec->holders[h]], j;
			for (j = m->fr_qbeg[i]; j < k && m->fr_q[j] != qc; j++)
				;
			if (j == k)
				m->fr_q[k++] = qc;
		}
		m->fr_spec[i] = sp;
		m->fr_prio[i] = top;
		if (top < m->fr_min)
			m->fr_min = top;
		m->fr_qbeg[i + 1] = k;
		m->nfr++;
	}
	if (!m->nfr)
		return;
	/* for the x bounds (wilp_dv_fit_state) */
	m->dra_fr = wa_alloc(m->ar, sizeof *m->dra_fr);
	m->fr_cur = wa_alloc(m->ar, sizeof *m->fr_cur);
	if (!m->dra_fr || !m->fr_cur ||
	    wdr_state_clone(m->dra_fr, m->dra, m->ar)) {
		m->nomem = true;
		return;
	}
	*m->fr_cur = INT32_MIN;
}

/* f[i] per freeable claim, and hfree[i,e]: f[i] + q[e] <= 1 for each
 * holder class e (q[e] is 0 or 1: the unit is a class of its own), so
 * f[i] = 1 only when every holder is evicted. */
void wilp_cols_rows_fr(wm *m)
{
	const ws_dra *d = m->p->snap->dra;
	for (int i = 0; i < m->nfr && !m->nomem; i++) {
		const wdr_spec *sp = &d->specs[m->fr_spec[i]];
		m->fr_col[i] = wm_col(&m->b, WM_F, i, -1, 0, 1,
		    wm_name(&m->b, "f[%s/%s]", sp->ns, sp->name));
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++) {
			wm_row_begin(&m->b);
			wm_coef(&m->b, m->fr_col[i], 1);
			wm_coef(&m->b, m->qcol[m->fr_q[k]], 1);
			wm_row_end(&m->b, GLP_UP, 0, 1,
			    wm_name(&m->b, "hfree[%s/%s,e%d]", sp->ns, sp->name,
				    m->fr_q[k]));
		}
	}
}

/* f from the q values in v. */
void wilp_f_from_q(const wm *m, double *v)
{
	for (int i = 0; i < m->nfr; i++) {
		bool gone = true;
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++)
			gone &= v[m->qcol[m->fr_q[k]]] < 0.5;
		v[m->fr_col[i]] = gone;
	}
}

/* w from the q values in v (after evictions were set there). */
void wilp_w_from_q(const wm *m, double *v)
{
	const wp_problem *p = m->p;
	for (int j = 0; m->wcol && j < p->snap->npdbs; j++) {
		if (!m->wcol[j])
			continue;
		double ev = 0;
		for (int qc = 0; qc < m->nqc; qc++) {
			const wp_unit *un =
			    &p->units[m->qc_units[m->qc_beg[qc]]];
			for (int i = 0; i < un->npdb; i++)
				if (un->pdb[i] == j)
					ev += un->pdbn[i] *
					      (wilp_q_ub(m, qc) - v[m->qcol[qc]]);
		}
		double viol = ev - p->pdb_allowed[j];
		v[m->wcol[j]] = m->wV[j] - (viol > 0 ? viol : 0);
	}
}

/* Evictions from the q columns of v (the first units of each class go),
 * each credited to the highest-priority admitted group that may preempt,
 * outranks it and places pods on one of its nodes; an eviction nobody
 * needs is dropped. */
void wilp_fill_evictions(const wm *m, const double *v, wp_sol *out)
{
	const wp_problem *p = m->p;
	for (int u = 0; u < p->nunits; u++) {
		out->evict[u] = 0;
		out->evict_by[u] = -1;
	}
	if (!m->nqc)
		return;
	for (int qc = 0; qc < m->nqc; qc++) {
		int ev = wilp_q_ub(m, qc) - (int)v[m->qcol[qc]];
		for (int i = 0; i < ev; i++)
			out->evict[m->qc_units[m->qc_beg[qc] + i]] = 1;
	}
	if (wpe_credit(p, out)) {
		/* nothing evicted: the caller's check decides */
		for (int u = 0; u < p->nunits; u++)
			out->evict[u] = 0;
	}
}
