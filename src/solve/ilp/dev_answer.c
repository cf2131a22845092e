/*
 * dev_answer.c -- DRA device vectors (doc/formulation.md §3b): the device
 * columns of a warm start, the allocation read from an answer, and the
 * device part of wilp_estimate.
 */
#include "solve/ilp/ilp_int.h"

/* Which way of slot sl pod allocation `res` (per entry: results) takes,
 * -1: none. */
static int dv_match_way(const wm *m, int sl, const wdr_state *st,
			const int *afirst, const int *an, const int *cand,
			int nc)
{
	for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++) {
		bool ok = true;
		for (int k = m->dv_dbeg[w]; k < m->dv_dbeg[w + 1] && ok; k++) {
			int e = m->dv_dent[k], got = 0;
			for (int i = 0; i < an[e] && ok; i++) {
				const wdr_result *r = &st->res[afirst[e] + i];
				if (r->sub != m->dv_dsub[k])
					continue;
				int b;
				for (b = 0; b < nc && cand[b] != r->dev; b++)
					;
				ok = b < nc && (m->dv_dset[k] >> b & 1);
				got++;
			}
			ok = ok && got == m->dv_dcnt[k];
		}
		if (ok)
			return w;
	}
	return -1;
}

/* Request index of sub id `sub` in spec sp, -1: not of it. */
static int dv_req_of(const wdr_spec *sp, int sub, int *alt)
{
	for (int r = 0; r < sp->nreqs; r++)
		for (int a = 0; a < sp->reqs[r].nalts; a++)
			if (sp->reqs[r].alts[a].id == sub) {
				*alt = a;
				return r;
			}
	return -1;
}

/* z, s and l columns from the shared claims allocated in st. */
static void dev_vec_inst(const wm *m, const wdr_state *st, const int *x,
			 double *v)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	for (int i = 0; m->dv_irec && i < d->ninsts; i++) {
		const dvinst *I = &m->dv_irec[i];
		if (!I->nw || st->inst_alloc[i] < 0)
			continue;
		const wdr_alloc *al = &st->allocs[st->inst_alloc[i]];
		const wdr_spec *sp = &d->specs[I->spec];
		int alt[WDV_MAX_PTS];
		for (int r = 0; r < sp->nreqs; r++)
			alt[r] = -1;
		for (int k = 0; k < al->n; k++) {
			const wdr_result *rs = &st->res[al->first + k];
			int a, r = dv_req_of(sp, rs->sub, &a);
			if (r < 0)
				continue;
			alt[r] = a;
			for (int e = m->dv_shead[rs->dev]; e >= 0;
			     e = m->dv_s[e].next)
				if (m->dv_s[e].inst == i && m->dv_s[e].req == r)
					v[m->dv_s[e].col] = 1;
		}
		for (int w = 0; w < I->nw; w++) {
			bool ok = true;
			for (int r = 0; r < sp->nreqs && ok; r++)
				ok = I->alt[w * sp->nreqs + r] == alt[r];
			for (int k = 0; k < al->n && ok; k++) {
				const wdr_result *rs = &st->res[al->first + k];
				int a, r = dv_req_of(sp, rs->sub, &a);
				ok = r >= 0 && wilp_dvi_in(m, I, w, r, rs->dev);
			}
			if (ok) {
				v[I->zfirst + w] = 1;
				break;
			}
		}
	}
	/* l[i,n]: a user pod on n */
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_L)
			continue;
		int i = m->cref[j], n = m->cdom[j];
		for (int c = 0; c < p->nclasses && !v[j]; c++) {
			bool uses = false;
			for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++)
				uses |= m->cpc[c]->c[k].inst == i;
			int sl = uses ? wp_slot(p, c, n) : -1;
			if (sl >= 0 && x[sl] > 0)
				v[j] = 1;
		}
	}
}

/* y columns from an allocation of the pods of x: m->dv_vdra when set
 * (the warm start's), else one made here pod by pod.  A pod whose
 * allocation fits no way leaves sum y < x, which wm_check rejects. */
void wilp_dev_vec(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	if (!m->dv_wbeg)
		return;
	bool any = m->dv_ns > 0;
	for (int w = 0; w < m->dv_nway && !any; w++)
		any = m->dv_ycol[w] != 0;
	if (!any)
		return;
	wa_arena *tmp = NULL;
	wdr_state own;
	const wdr_state *st = m->dv_vdra;
	if (!st) {
		tmp = wa_new();
		if (!tmp || wdr_state_clone(&own, m->dra, tmp)) {
			wa_destroy(tmp);
			return;
		}
		for (int c = 0; c < p->nclasses; c++) {
			const wp_class *cl = &p->classes[c];
			for (int k = 0; k < cl->nelig; k++)
				for (int j = 0; j < x[cl->off + k]; j++)
					if (!wdr_place(&own, cl->pods[0], c,
						       cl->elig[k]))
						goto read;
		}
read:
		st = &own;
	}
	const ws_dra *d = p->snap->dra;
	int afirst[WDR_MAX_RESULTS], an[WDR_MAX_RESULTS], cand[WDV_MAXC];
	/* a slot met one way: y = x */
	for (int sl = 0; sl < p->nx; sl++)
		if (m->xcol[sl] && m->dv_wend[sl] - m->dv_wbeg[sl] == 1 &&
		    m->dv_ycol[m->dv_wbeg[sl]])
			v[m->dv_ycol[m->dv_wbeg[sl]]] = x[sl];
	for (int i = 0; i < st->nallocs;) {
		const wdr_alloc *al = &st->allocs[i];
		if (al->pod < 0 || al->cls < 0) {
			i++;
			continue;
		}
		/* one pod: its own entries, consecutive and ascending */
		const wdr_podc *pc = &d->pods[al->pod];
		int j = i, last = -1;
		memset(an, 0, sizeof(int) * (pc->n < WDR_MAX_RESULTS ? pc->n
								     : 0));
		while (j < st->nallocs && st->allocs[j].pod == al->pod &&
		       st->allocs[j].cls == al->cls &&
		       st->allocs[j].node == al->node &&
		       st->allocs[j].entry > last &&
		       st->allocs[j].entry < pc->n) {
			afirst[st->allocs[j].entry] = st->allocs[j].first;
			an[st->allocs[j].entry] = st->allocs[j].n;
			last = st->allocs[j].entry;
			j++;
		}
		i = j > i ? j : i + 1;
		int sl = wp_slot(p, al->cls, al->node);
		if (sl < 0 || m->dv_wend[sl] - m->dv_wbeg[sl] <= 1)
			continue;
		bool g;
		int nc = wilp_dv_cands(m, al->node, cand, &g);
		int w = nc < 0 ? -1
			       : dv_match_way(m, sl, st, afirst, an, cand, nc);
		if (w >= 0 && m->dv_ycol[w])
			v[m->dv_ycol[w]] += 1;
	}
	dev_vec_inst(m, st, x, v);
	wa_destroy(tmp);
}

/* The ILP answer's device allocation, exact when the model is: per node,
 * each pod's way from y, then a bipartite matching of the units of
 * demand to the node's free devices (augmenting paths), which Hall's rows
 * guarantee.  NULL when the model is relaxed or (a bug) the matching
 * fails; run.c then allocates claim by claim. */
typedef struct dvu {
	int sl, w, pod, k; /* slot, way, pod number on the node, demand */
} dvu;

static bool dv_aug(const wm *m, const dvu *u, int i, const int *cand,
		   int *owner, unsigned char *seen)
{
	uint64_t set = m->dv_dset[u[i].k];
	for (int b = 0; b < WDV_MAXC; b++) {
		if (!(set >> b & 1) || seen[b])
			continue;
		seen[b] = 1;
		if (owner[b] < 0 || dv_aug(m, u, owner[b], cand, owner, seen)) {
			owner[b] = i;
			return true;
		}
	}
	(void)cand;
	return false;
}

const wdr_state *wilp_dev_answer(const wm *m, const double *v)
{
	const wp_problem *p = m->p;
	if (!m->cpc || m->dv_inexact)
		return NULL;
	wdr_state *st = wa_alloc(p->arena, sizeof *st);
	if (!st || wdr_state_clone(st, m->dra, p->arena))
		return NULL;
	const ws_dra *d = p->snap->dra;
	/* devices of claims whose holders are all evicted are free (by q:
	 * f may stay 0 where the devices are not needed) */
	for (int i = 0; i < m->nfr; i++) {
		bool gone = true;
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++)
			gone &= v[m->qcol[m->fr_q[k]]] < 0.5;
		for (int dev = 0; gone && dev < d->ndevs; dev++)
			if (m->dev_fr[dev] == i && st->taken[dev] > 0)
				st->taken[dev]--;
	}
	wa_arena *tmp = wa_new();
	if (!tmp)
		return NULL;
	int cand[WDV_MAXC], owner[WDV_MAXC];
	unsigned char seen[WDV_MAXC], busy[WDV_MAXC];
	/* shared claims first: the way and devices of z and s */
	for (int i = 0; m->dv_irec && i < d->ninsts; i++) {
		const dvinst *I = &m->dv_irec[i];
		int w = -1;
		for (int k = 0; k < I->nw; k++)
			if (v[I->zfirst + k] > 0.5)
				w = k;
		if (w < 0)
			continue;
		const wdr_spec *sp = &d->specs[I->spec];
		wdr_result r[WDR_MAX_RESULTS];
		int nr = 0, node = -1, entry = -1;
		for (int q = 0; q < sp->nreqs; q++) {
			int sub = sp->reqs[q].alts[I->alt[w * sp->nreqs + q]].id;
			for (int k = 0; k < m->dv_ns && nr < WDR_MAX_RESULTS;
			     k++)
				if (m->dv_s[k].inst == i && m->dv_s[k].req == q &&
				    v[m->dv_s[k].col] > 0.5)
					r[nr++] = (wdr_result){sub,
							       m->dv_s[k].dev};
		}
		for (int j = 1; j <= m->ncols && node < 0; j++)
			if (m->ckind[j] == WM_L && m->cref[j] == i &&
			    v[j] > 0.5)
				node = m->cdom[j];
		for (int c = 0; c < p->nclasses && entry < 0; c++)
			for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++)
				if (m->cpc[c]->c[k].inst == i) {
					entry = k;
					break;
				}
		if (node < 0)
			continue; /* chosen but unused: allocate nothing */
		if (wdr_push(st, -1, entry, i, -1, node, r, nr))
			goto fail;
	}
	for (int n = 0; n < p->nnodes; n++) {
		bool g;
		dvu *u = NULL;
		size_t capu = 0;
		int nu = 0, npod = 0;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
			int sl = m->nxslot[i], c = wp_slot_class(p, sl);
			if (!m->cpc[c])
				continue;
			for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl];
			     w++) {
				int cnt = (int)llround(v[m->dv_ycol[w]
							     ? m->dv_ycol[w]
							     : m->xcol[sl]]);
				for (int j = 0; j < cnt; j++, npod++)
					for (int k = m->dv_dbeg[w];
					     k < m->dv_dbeg[w + 1]; k++)
						for (int t = 0;
						     t < m->dv_dcnt[k]; t++)
							if (WA_PUSH(tmp, u, nu,
							    capu, ((dvu){sl, w,
							    npod, k})))
								goto fail;
			}
		}
		if (!nu)
			continue;
		int nc = wilp_dv_cands(m, n, cand, &g);
		if (nc < 0)
			goto fail;
		for (int b = 0; b < WDV_MAXC; b++) {
			owner[b] = -1;
			/* free when the model was built: taken since by a
			 * shared claim */
			busy[b] = b < nc && st->taken[cand[b]] &&
				  !d->devs[cand[b]].multi;
		}
		for (int i = 0; i < nu; i++) {
			memcpy(seen, busy, sizeof seen);
			if (!dv_aug(m, u, i, cand, owner, seen))
				goto fail;
		}
		/* results per pod and entry, pushed in entry order */
		for (int i = 0; i < nu;) {
			int j = i;
			while (j < nu && u[j].pod == u[i].pod)
				j++;
			int sl = u[i].sl, c = wp_slot_class(p, sl);
			const wdr_podc *pc = m->cpc[c];
			for (int e = 0; e < pc->n; e++) {
				if (pc->c[e].inst >= 0)
					continue;
				wdr_result r[WDR_MAX_RESULTS];
				int nr = 0;
				for (int b = 0; b < nc; b++) {
					int o = owner[b];
					if (o < i || o >= j ||
					    m->dv_dent[u[o].k] != e ||
					    nr == WDR_MAX_RESULTS)
						continue;
					r[nr++] = (wdr_result){
					    m->dv_dsub[u[o].k], cand[b]};
				}
				/* results in request order, as the search */
				for (int a = 1; a < nr; a++)
					for (int z = a; z > 0 &&
					     r[z - 1].sub > r[z].sub; z--) {
						wdr_result t = r[z];
						r[z] = r[z - 1];
						r[z - 1] = t;
					}
				if (wdr_push(st, p->classes[c].pods[0], e, -1,
					     c, n, r, nr))
					goto fail;
			}
			i = j;
		}
	}
	wa_destroy(tmp);
	return st;
fail:
	wa_destroy(tmp);
	return NULL;
}

/* DRA columns for wilp_estimate (doc/formulation.md §3b), from the
 * claim lists without building the kinds: per slot of a class whose own
 * claims have firstAvailable alternatives, a y column per combination
 * of alternatives (matchAttribute values, unknown before the devices are
 * matched, are left out: an estimate, low for partitioned claims) and a
 * ways row; a Hall row per node and class; per shared claim not yet
 * allocated, a z column per combination, an s column per request and
 * device of its users' nodes (node-local and global; the match with its
 * classes is left out: high) and an l column with three rows per user
 * node; per allocated claim with holders an f column and a row. */
void wilp_dv_estimate(const wp_problem *p, long *r, long *c, long *nz)
{
	const ws_dra *d = p->snap->dra;
	if (!d)
		return;
	unsigned char *seen = calloc((size_t)p->nnodes + 1, 1);
	if (!seen)
		return; /* an estimate: without the DRA part */
	for (int ci = 0; ci < p->nclasses; ci++) {
		const wp_class *cl = &p->classes[ci];
		const wdr_podc *pc = &d->pods[cl->pods[0]];
		long ways = 1;
		for (int k = 0; k < pc->n && ways <= WDV_MAX_WAYS; k++) {
			if (pc->c[k].inst >= 0 || pc->c[k].spec < 0)
				continue;
			const wdr_spec *sp = &d->specs[pc->c[k].spec];
			for (int q = 0; q < sp->nreqs; q++)
				ways *= sp->reqs[q].nalts;
		}
		if (!pc->n)
			continue;
		if (ways > WDV_MAX_WAYS)
			ways = WDV_MAX_WAYS;
		*r += cl->nelig; /* Hall rows, at least one per node */
		*nz += (long)cl->nelig * ways;
		if (ways > 1) {
			*c += (long)cl->nelig * ways;
			*r += cl->nelig;
			*nz += (long)cl->nelig * (ways + 1);
		}
	}
	for (int i = 0; i < d->ninsts; i++) {
		const wdr_spec *sp = &d->specs[d->insts[i].spec];
		if (sp->allocated)
			continue;
		long ways = 1, devs = d->nglobal, un = 0;
		for (int q = 0; q < sp->nreqs && ways <= WDV_MAX_COMB; q++)
			ways *= sp->reqs[q].nalts;
		memset(seen, 0, (size_t)p->nnodes);
		for (int ci = 0; ci < p->nclasses; ci++) {
			const wp_class *cl = &p->classes[ci];
			const wdr_podc *pc = &d->pods[cl->pods[0]];
			bool uses = false;
			for (int k = 0; k < pc->n; k++)
				uses |= pc->c[k].inst == i;
			for (int e = 0; uses && e < cl->nelig; e++) {
				int n = cl->elig[e];
				if (seen[n])
					continue;
				seen[n] = 1;
				un++;
				devs += d->node_first[n + 1] - d->node_first[n];
			}
		}
		if (!un)
			continue;
		*c += ways + (long)sp->nreqs * devs + un;
		*r += 1 + sp->nreqs + (long)sp->nreqs * devs + 3 * un;
		*nz += ways * (2 + sp->nreqs) + 3L * sp->nreqs * devs +
		       un * (4 + ways + devs);
	}
	for (int sp = 0; d->held_beg && sp < d->nspecs; sp++)
		if (d->specs[sp].allocated && d->specs[sp].nholders) {
			*c += 1;
			*r += d->specs[sp].nholders;
			*nz += 2L * d->specs[sp].nholders + d->specs[sp].nalloc;
		}
	free(seen);
}
