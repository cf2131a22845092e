/*
 * dev_ways.c -- DRA device columns (doc/formulation.md §3b): the ways a
 * slot's own claims can be met (y columns per way), the state that
 * bounds x, and the device terms kept for the GMPL export.
 */
#include "solve/ilp/ilp_int.h"

/* Keep a term of the device row emitted last (wm_grow notes NOMEM). */
void wilp_dterm_add(wm *m, wdterms *l, int ref, int coef)
{
	if (wm_grow(&m->b, (void **)&l->t, sizeof *l->t, &l->cap,
		    (size_t)l->n + 1))
		l->t[l->n++] = (wdterm){m->dr.n - 1, ref, coef};
}

/* Note an emitted device row (node n, free devices f) for write_dat. */
void wilp_dr_note(wm *m, int n, int f)
{
	if (wm_grow(&m->b, (void **)&m->dr.t, sizeof *m->dr.t, &m->dr.cap,
		    (size_t)m->dr.n + 1)) {
		m->dr.t[m->dr.n] = (wdterm){m->dr.n, n, f};
		m->dr.n++;
	}
}

void wilp_dt_note(wm *m, int c, int q)
{
	for (int i = m->dt.n - 1;
	     i >= 0 && m->dt.t[i].row == m->dr.n - 1; i--)
		if (m->dt.t[i].ref == c)
			return; /* one coefficient per class and row */
	wilp_dterm_add(m, &m->dt, c, q);
}

/* The devices node n reaches, node-local first, as wdr_alloc_spec orders
 * them; -1 when more than WDV_MAXC. */
int wilp_dv_cands(const wm *m, int n, int *cand, bool *global)
{
	const ws_snapshot *s = m->p->snap;
	const ws_dra *d = s->dra;
	int k = 0;
	*global = false;
	for (int i = d->node_first[n]; i < d->node_first[n + 1]; i++) {
		if (k == WDV_MAXC)
			return -1;
		cand[k++] = d->node_devs[i];
	}
	for (int i = 0; i < d->nglobal; i++)
		if (wdr_reaches(s, &d->devs[d->global[i]], n)) {
			if (k == WDV_MAXC)
				return -1;
			cand[k++] = d->global[i];
			*global = true;
		}
	return k;
}

/* Free for the slot wilp_dv_slot works on: free before the plan, or held by
 * a claim that evictions free, for a class of strictly higher priority
 * than every holder (the f column of the claim then counts it). */
static bool dv_free(const wm *m, int dev)
{
	if (m->dra->d->devs[dev].multi || !m->dra->taken[dev])
		return true;
	int i = m->dev_fr ? m->dev_fr[dev] : -1;
	return i >= 0 && m->fr_prio[i] < m->dv_prio;
}

/* The state whose devices bound the pods of class c (wilp_cols_x, xdev):
 * the devices free before the plan and those that evictions free for
 * its priority, so that the bound is exact for its own claims (a slot
 * that no way can meet has no column, as wilp_dv_slot assumes).  Refilled
 * when the priority changes (classes come by group, highest first). */
const wdr_state *wilp_dv_fit_state(const wm *m, int c)
{
	int32_t pr = wilp_eff_prio(m->p, c);
	if (!m->dra_fr || pr <= m->fr_min)
		return m->dra;
	if (*m->fr_cur != pr) {
		const ws_dra *d = m->p->snap->dra;
		for (int dev = 0; dev < d->ndevs; dev++) {
			int i = m->dev_fr[dev];
			m->dra_fr->taken[dev] = m->dra->taken[dev];
			if (i >= 0 && m->fr_prio[i] < pr)
				m->dra_fr->taken[dev]--;
		}
		*m->fr_cur = pr;
	}
	return m->dra_fr;
}

/* One choice point of a claim list: an alternative of (entry, request),
 * or a value of (entry, matchAttribute constraint). */
typedef struct dvpt {
	int ent, req, cons; /* cons >= 0: a value point                 */
	int nopt;
	const wcel_attr *val[WDV_MAX_VALS];
} dvpt;

/* Demands of one combination of choices into the way arrays; false when
 * the way cannot be met on the node at all. */
static bool dv_way(wm *m, const wdr_podc *pc, const dvpt *pt, int npt,
		   const int *ch, const int *cand, int nc)
{
	const ws_dra *d = m->p->snap->dra;
	int first = m->dv_ndem;
	for (int q = 0; q < npt; q++) {
		if (pt[q].cons >= 0)
			continue;
		const wdr_pclaim *e = &pc->c[pt[q].ent];
		const wdr_spec *sp = &d->specs[e->spec];
		const wdr_req *rq = &sp->reqs[pt[q].req];
		const wdr_sub *sb = &rq->alts[ch[q]];
		if (sb->cls < 0)
			goto no;
		const signed char *mr = m->dra->match[sb->id];
		uint64_t set = 0;
		int all = 0, got = 0;
		for (int i = 0; i < nc; i++) {
			int dev = cand[i];
			if (!mr[dev])
				continue;
			all++;
			if (!dv_free(m, dev))
				continue;
			bool ok = true;
			for (int v = 0; v < npt && ok; v++) {
				if (pt[v].cons < 0 || pt[v].ent != pt[q].ent)
					continue;
				const wdr_cons *cn = &sp->cons[pt[v].cons];
				if (!wdr_cons_has(cn, rq->name) &&
				    !wdr_cons_has(cn, sb->name))
					continue;
				const wcel_attr *a = wdr_attr(&d->devs[dev],
							      cn->domain,
							      cn->attr);
				ok = a && wdr_attr_equal(a, pt[v].val[ch[v]]);
			}
			if (!ok)
				continue;
			set |= (uint64_t)1 << i;
			got++;
		}
		int cnt = sb->all ? all : sb->count;
		if (sb->admin) {
			/* admin access takes no device: no demand, only
			 * enough matching ones; the answer is then
			 * allocated claim by claim (dv_inexact) */
			if (cnt > all || cnt <= 0)
				goto no;
			m->dv_inexact = true;
			continue;
		}
		if (cnt > got || cnt <= 0)
			goto no;
		int k = m->dv_ndem;
		if (!wm_grow(&m->b, (void **)&m->dv_dent, sizeof(int), &m->dv_capd1,
			     k + 1) ||
		    !wm_grow(&m->b, (void **)&m->dv_dsub, sizeof(int), &m->dv_capd2,
			     k + 1) ||
		    !wm_grow(&m->b, (void **)&m->dv_dcnt, sizeof(int), &m->dv_capd3,
			     k + 1) ||
		    !wm_grow(&m->b, (void **)&m->dv_dset, sizeof(uint64_t),
			     &m->dv_capd4, k + 1))
			return false;
		m->dv_dent[k] = pt[q].ent;
		m->dv_dsub[k] = sb->id;
		m->dv_dcnt[k] = cnt;
		m->dv_dset[k] = set;
		m->dv_ndem++;
	}
	return true;
no:
	m->dv_ndem = first;
	return false;
}

/* Append a way (its demands are the last ones added from `first`). */
static void dv_way_end(wm *m, int pen)
{
	int w = m->dv_nway;
	if (!wm_grow(&m->b, (void **)&m->dv_wpen, sizeof(int), &m->dv_capw3,
		     w + 2) ||
	    !wm_grow(&m->b, (void **)&m->dv_dbeg, sizeof(int), &m->dv_capw1,
		     w + 2) ||
	    !wm_grow(&m->b, (void **)&m->dv_ycol, sizeof(int), &m->dv_capw2,
		     w + 2))
		return;
	m->dv_dbeg[w + 1] = m->dv_ndem;
	m->dv_ycol[w] = 0;
	m->dv_wpen[w] = pen;
	m->dv_nway++;
}

/* The ways of slot sl (class c on node n); none when its claims are
 * only relaxed there (x keeps wdr_fit's bound). */
void wilp_dv_slot(wm *m, int sl, const wdr_podc *pc, int n,
		  const int *cand, int nc, bool global)
{
	const ws_dra *d = m->p->snap->dra;
	dvpt pt[WDV_MAX_PTS];
	int npt = 0, w0 = m->dv_nway, d0 = m->dv_ndem;
	long comb = 1;
	bool relaxed = global;
	for (int k = 0; k < pc->n; k++) {
		const wdr_pclaim *e = &pc->c[k];
		if (e->inst >= 0)
			continue;
		if (e->spec < 0)
			return; /* x is 0 (wdr_fit) */
		const wdr_spec *sp = &d->specs[e->spec];
		for (int j = 0; j < sp->ncons; j++) {
			const wdr_cons *cn = &sp->cons[j];
			if (cn->distinct) {
				relaxed = true; /* not modelled */
				continue;
			}
			if (npt == WDV_MAX_PTS)
				goto relax;
			dvpt *q = &pt[npt];
			*q = (dvpt){.ent = k, .req = -1, .cons = j};
			/* values of the free devices that a covered
			 * request's alternatives match */
			for (int i = 0; i < nc; i++) {
				int dev = cand[i];
				if (!dv_free(m, dev))
					continue;
				bool want = false;
				for (int r = 0; r < sp->nreqs && !want; r++)
					for (int a = 0; a < sp->reqs[r].nalts &&
					     !want; a++) {
						const wdr_sub *sb =
						    &sp->reqs[r].alts[a];
						want = (wdr_cons_has(cn,
							sp->reqs[r].name) ||
							wdr_cons_has(cn,
							sb->name)) &&
						       m->dra->match[sb->id][dev];
					}
				const wcel_attr *at = want
				    ? wdr_attr(&d->devs[dev], cn->domain,
					       cn->attr) : NULL;
				if (!at)
					continue;
				int v;
				for (v = 0; v < q->nopt &&
				     !wdr_attr_equal(q->val[v], at); v++)
					;
				if (v == q->nopt) {
					if (v == WDV_MAX_VALS)
						goto relax;
					q->val[q->nopt++] = at;
				}
			}
			bool covers = false;
			for (int r = 0; r < sp->nreqs && !covers; r++) {
				covers = wdr_cons_has(cn, sp->reqs[r].name);
				for (int a = 0; a < sp->reqs[r].nalts; a++)
					covers |= wdr_cons_has(
					    cn, sp->reqs[r].alts[a].name);
			}
			if (!covers)
				continue; /* names no request: no effect */
			if (q->nopt == 0)
				return; /* no device has the attribute */
			comb *= q->nopt;
			npt++;
		}
		for (int r = 0; r < sp->nreqs; r++) {
			if (npt == WDV_MAX_PTS)
				goto relax;
			pt[npt] = (dvpt){.ent = k, .req = r, .cons = -1,
					 .nopt = sp->reqs[r].nalts};
			comb *= pt[npt].nopt;
			npt++;
		}
		if (comb > WDV_MAX_COMB)
			goto relax;
	}
	int ch[WDV_MAX_PTS] = {0};
	for (long t = 0; t < comb && !m->nomem; t++) {
		long r = t;
		for (int q = npt - 1; q >= 0; q--) {
			ch[q] = (int)(r % pt[q].nopt);
			r /= pt[q].nopt;
		}
		if (!dv_way(m, pc, pt, npt, ch, cand, nc))
			continue;
		if (m->dv_nway - w0 == WDV_MAX_WAYS)
			goto relax;
		int pen = 0;
		for (int q = 0; q < npt; q++)
			pen += pt[q].cons < 0 ? ch[q] : 0;
		dv_way_end(m, pen);
	}
	/* multi-allocatable devices are shared without limit */
	for (int i = d0; i < m->dv_ndem && !relaxed; i++)
		for (int b = 0; b < nc; b++)
			if ((m->dv_dset[i] >> b & 1) &&
			    d->devs[cand[b]].multi)
				relaxed = true;
	if (relaxed)
		m->dv_inexact = true;
	m->dv_wend[sl] = m->dv_nway;
	return;
relax:
	m->dv_inexact = true;
	m->dv_nway = w0;
	m->dv_ndem = d0;
	m->dv_wend[sl] = m->dv_nway;
}

void wilp_dy_note(wm *m, int w, int q)
{
	wilp_dterm_add(m, &m->dy, w, q);
}
