/*
 * objective.c -- the objective tiers and their weights (doc/formulation.md
 * §4): tier values, weights of the single objective and of the blocks of the
 * tier-by-tier fallback.
 */
#include "solve/ilp/ilp_int.h"

/* Value of one pod of class c in its tier: 1 (pods) or its request of
 * value_res divided by the gcd of all classes' requests of it. */
int64_t wilp_class_value(const wp_problem *p, int c, int64_t vgcd)
{
	if (p->value_res < 0)
		return 1;
	if (vgcd == 0)
		return 0;
	return p->classes[c].req[p->value_res] / vgcd;
}

int wilp_work_tiers(const wp_problem *p, int32_t *tprio, double *tM,
		    double *tmax, int *ctier)
{
	int nt = 0;
	/* groups are sorted by priority, descending */
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->nclasses)
			continue;
		if (nt == 0 || tprio[nt - 1] != g->priority)
			tprio[nt++] = g->priority;
	}
	/* not relying on the order: place each class by search */
	int64_t vg = wilp_value_gcd(p);
	for (int c = 0; c < p->nclasses; c++) {
		int32_t pr = p->groups[p->classes[c].group].priority;
		int t = 0;
		while (t < nt && tprio[t] != pr)
			t++;
		if (t == nt)
			tprio[nt++] = pr; /* unsorted input: kept apart */
		ctier[c] = t;
		double v = (double)wilp_class_value(p, c, vg);
		tM[t] += v * p->classes[c].count;
		if (v > tmax[t])
			tmax[t] = v;
	}
	return nt;
}

int64_t wilp_value_gcd(const wp_problem *p)
{
	int64_t g = 0;
	if (p->value_res < 0)
		return 1;
	for (int c = 0; c < p->nclasses; c++)
		if (p->classes[c].req[p->value_res] > 0)
			g = wp_gcd(g, p->classes[c].req[p->value_res]);
	return g;
}

/* Largest coefficient of tiers [s, e] weighted as one objective:
 * w_e = 1, w_t = w_{t+1} (1 + M_{t+1}). */
double wilp_tier_weights(const double *tM, const double *tmax, int s,
			 int e, double *w)
{
	double big = 0, wt = 1;
	for (int t = e; t >= s; t--) {
		if (t < e)
			wt *= 1 + tM[t + 1];
		if (w)
			w[t] = wt;
		if (wt * tmax[t] > big)
			big = wt * tmax[t];
	}
	return big;
}

static double block_coef(const wm *m, int s, int e, double *w)
{
	return wilp_tier_weights(m->tM, m->tmaxval, s, e, w);
}

/* Tiers: the pending priority levels (highest first) and packing.  The
 * single objective weighs tier t by W_t = prod_{t' below t} (1 + M_t'),
 * M = the tier's largest value; W_t > sum_{t' below t} W_t' M_t', so no
 * amount of lower tiers outvotes one unit of a higher one.  When its
 * largest coefficient would pass WILP_MAX_COEF the tiers are split into
 * blocks solved one after the other (lexicographically). */
/* The firstAvailable rank a y or z column stands for (0: none). */
double wilp_dv_col_pen(const wm *m, int j)
{
	if (m->ckind[j] == WM_V)
		return m->dv_wpen[m->cref[j]];
	if (m->ckind[j] == WM_Z) {
		const dvinst *I = &m->dv_irec[m->cref[j]];
		const wdr_spec *sp = &m->p->snap->dra->specs[I->spec];
		int pen = 0;
		for (int r = 0; r < sp->nreqs; r++)
			pen += I->alt[m->cdom[j] * sp->nreqs + r];
		return pen;
	}
	return 0;
}

void wilp_objective(wm *m, double max_coef)
{
	const wp_problem *p = m->p;
	int nt = 0;
	/* room for the budget and eviction tiers (preemption) and the
	 * compactness tiers (one per key, §9) */
	int nk = p->topo ? p->topo->nkeys : 0;
	size_t ntmax = (size_t)p->nclasses + 5 + nk;
	m->tprio = wa_calloc(m->ar, ntmax, sizeof *m->tprio);
	m->tM = wa_calloc(m->ar, ntmax, sizeof *m->tM);
	m->tmaxval = wa_calloc(m->ar, ntmax, sizeof *m->tmaxval);
	m->wfull = wa_calloc(m->ar, ntmax, sizeof *m->wfull);
	m->wblock = wa_calloc(m->ar, ntmax, sizeof *m->wblock);
	m->bfirst = wa_calloc(m->ar, ntmax + 1, sizeof *m->bfirst);
	m->ctier = wa_calloc(m->ar, m->ncols + 1, sizeof *m->ctier);
	m->cval = wa_calloc(m->ar, m->ncols + 1, sizeof *m->cval);
	int *ctier_c = wa_calloc(m->ar, p->nclasses + 1, sizeof *ctier_c);
	if (!m->tprio || !m->tM || !m->tmaxval || !m->wfull || !m->wblock ||
	    !m->bfirst || !m->ctier || !m->cval || !ctier_c) {
		m->nomem = true;
		return;
	}
	nt = wilp_work_tiers(p, m->tprio, m->tM, m->tmaxval, ctier_c);
	int64_t vg = wilp_value_gcd(p);
	m->nprio_t = nt;
	/* firstAvailable (doc/formulation.md §3b): minus the alternatives'
	 * indexes of the ways (y) and shared-claim ways (z) chosen, right
	 * below the work tiers; its range is 0 .. -M */
	double am = 0, amax = 0;
	for (int j = 1; j <= m->ncols; j++) {
		double pen = wilp_dv_col_pen(m, j);
		if (pen <= 0)
			continue;
		am += m->ckind[j] == WM_V
			  ? pen * p->classes[wp_slot_class(p, m->cdom[j])].count
			  : pen;
		if (pen > amax)
			amax = pen;
	}
	if (am > 0) {
		m->atier1 = nt + 1;
		m->tM[nt] = am;
		m->tmaxval[nt] = amax;
		nt++;
	}
	/* tier 2 in keep form: the cost of the units kept running, so that
	 * every tier is maximised and non-negative (doc/formulation.md §4) */
	m->btier = -1;
	long vsum = 0;
	for (int j = 0; j < p->snap->npdbs; j++)
		vsum += m->wcol[j] ? m->wV[j] : 0;
	if (vsum > 0) {
		m->btier = nt++;
		m->tM[m->btier] = (double)vsum;
		m->tmaxval[m->btier] = 1;
	}
	m->qtier = -1;
	if (m->nqc > 0) {
		m->qtier = nt++;
		wpe_evict_range(p, &m->tM[m->qtier], &m->tmaxval[m->qtier]);
	}
	/* moves (§4c): minus the pods moved, a range of M = the pods
	 * that may move */
	m->mtier = -1;
	if (p->nmcls > 0) {
		m->mtier = nt++;
		for (int i = 0; i < p->nmcls; i++)
			m->tM[m->mtier] += p->mcls[i].count;
		m->tmaxval[m->mtier] = 1;
	}
	/* compactness tiers (§9): one per key with w columns,
	 * coarse to fine, between the work tiers and packing */
	int *ktier = wa_calloc(m->ar, (size_t)nk + 1, sizeof *ktier);
	if (!ktier) {
		m->nomem = true;
		return;
	}
	for (int k = 0; k < nk; k++)
		ktier[k] = -1;
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_W)
			ktier[m->cref[j] % 64] = 0;
	for (int k = 0; k < nk; k++)
		if (ktier[k] == 0) {
			ktier[k] = nt;
			m->tmaxval[nt] = 1;
			nt++;
		}
	int np = m->npk; /* free domains count like free nodes */
	for (int n = 0; n < p->nnodes; n++)
		np += m->ucol[n] != 0;
	m->ntier = nt + 1;
	m->tM[nt] = np;
	m->tmaxval[nt] = 1;
	for (int j = 1; j <= m->ncols; j++) {
		m->ctier[j] = -1;
		if (m->ckind[j] == WM_X) {
			int c = wp_slot_class(p, m->cref[j]);
			m->ctier[j] = ctier_c[c];
			m->cval[j] = (double)wilp_class_value(p, c, vg);
		} else if (m->ckind[j] == WM_U || m->ckind[j] == WM_P) {
			m->ctier[j] = nt;
			m->cval[j] = 1;
		} else if (m->ckind[j] == WM_Q) {
			m->ctier[j] = m->qtier;
			m->cval[j] = wilp_q_cost(m, m->cref[j]);
		} else if (m->ckind[j] == WM_B) {
			m->ctier[j] = m->btier;
			m->cval[j] = 1;
		} else if (m->ckind[j] == WM_Y) {
			/* minus the moves: the pods kept home would also
			 * reward evicting other pods than movable ones */
			if (m->cdom[j] != wilp_y_class(m, j)->homek) {
				m->ctier[j] = m->mtier;
				m->cval[j] = -1;
			}
		} else if (m->atier1 && wilp_dv_col_pen(m, j) > 0) {
			m->ctier[j] = m->atier1 - 1;
			m->cval[j] = -wilp_dv_col_pen(m, j);
		} else if (m->ckind[j] == WM_W) {
			int t = ktier[m->cref[j] % 64];
			m->ctier[j] = t;
			m->cval[j] = 1;
			m->tM[t] += 1;
		}
	}
	m->maxcoef = block_coef(m, 0, m->ntier - 1, m->wfull);
	/* blocks, from the top, each as long as it stays exact */
	m->nblock = 0;
	for (int s = 0; s < m->ntier;) {
		int e = s;
		while (e + 1 < m->ntier &&
		       block_coef(m, s, e + 1, NULL) <= max_coef)
			e++;
		block_coef(m, s, e, m->wblock);
		m->bfirst[m->nblock++] = s;
		s = e + 1;
	}
	m->bfirst[m->nblock] = m->ntier;
}

/* Objective of block b (or the single objective, b < 0) at v. */
long double wilp_obj_at(const wm *m, int b, const double *v)
{
	long double z = 0;
	for (int j = 1; j <= m->ncols; j++) {
		int t = m->ctier[j];
		if (t < 0 || v[j] == 0)
			continue;
		if (b < 0)
			z += (long double)m->wfull[t] * m->cval[j] * v[j];
		else if (t >= m->bfirst[b] && t < m->bfirst[b + 1])
			z += (long double)m->wblock[t] * m->cval[j] * v[j];
	}
	return z;
}

double wilp_coef_of(const wm *m, int b, int j)
{
	int t = m->ctier[j];
	if (t < 0)
		return 0;
	if (b < 0)
		return m->wfull[t] * m->cval[j];
	if (t >= m->bfirst[b] && t < m->bfirst[b + 1])
		return m->wblock[t] * m->cval[j];
	return 0;
}

/* Whether every coefficient of block b's objective (b < 0: the whole
 * one) is an integer: its optimum is then an integer too, so a bound
 * may be rounded down. */
bool wilp_int_objective(const wm *m, int b)
{
	for (int j = 1; j <= m->ncols; j++) {
		double c = wilp_coef_of(m, b, j);
		if (c != floor(c))
			return false;
	}
	return true;
}
