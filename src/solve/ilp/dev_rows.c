/*
 * dev_rows.c -- DRA device rows (doc/formulation.md §3b): shared-claim
 * instances (z, s, l columns), the Hall rows per node and the rows
 * over shared counters.
 */
#include "solve/ilp/ilp_int.h"

static int dv_popc(uint64_t x)
{
	return __builtin_popcountll(x);
}

/* Is the set of kinds `mask` (indices into kset) connected by overlap? */
static bool dv_connected(const uint64_t *kset, const int *ids, int nk,
			 unsigned mask)
{
	unsigned seen = mask & (~mask + 1), grew = 1;
	uint64_t u = 0;
	for (int i = 0; i < nk; i++)
		if (seen >> i & 1)
			u = kset[ids[i]];
	while (grew) {
		grew = 0;
		for (int i = 0; i < nk; i++)
			if ((mask >> i & 1) && !(seen >> i & 1) &&
			    (kset[ids[i]] & u)) {
				seen |= 1u << i;
				u |= kset[ids[i]];
				grew = 1;
			}
	}
	return seen == mask;
}

/* One Hall row on node n: the demands on kinds inside union u (of
 * free devices) fit in |u|. */
/* Devices way w demands that only the device set u can meet. */
static int dv_need_in(const wm *m, int w, uint64_t u)
{
	int q = 0;
	for (int k = m->dv_dbeg[w]; k < m->dv_dbeg[w + 1]; k++)
		if (!(m->dv_dset[k] & ~u))
			q += m->dv_dcnt[k];
	return q;
}

static void dv_row(wm *m, int n, uint64_t u, const int *cand, int tag)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	for (int b = 0; b < WDV_MAXC; b++)
		if ((u >> b & 1) && d->devs[cand[b]].multi)
			return; /* unlimited: relaxed (dv_inexact) */
	/* devices evictions free count through their claim's f column */
	int f = dv_popc(u), hfr[WDV_MAXC], hn[WDV_MAXC], nh = 0;
	for (int b = 0; m->nfr && b < WDV_MAXC; b++) {
		int i = (u >> b & 1) && m->dra->taken[cand[b]]
			    ? m->dev_fr[cand[b]] : -1;
		if (i < 0)
			continue;
		int k;
		for (k = 0; k < nh && hfr[k] != i; k++)
			;
		if (k == nh) {
			hfr[nh] = i;
			hn[nh++] = 0;
		}
		hn[k]++;
		f--;
	}
	double most = 0;
	for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
		int sl = m->nxslot[i];
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++)
			most += (double)dv_need_in(m, w, u) * m->xub[sl];
	}
	for (int b = 0; b < WDV_MAXC; b++)
		for (int k = (u >> b & 1) ? m->dv_shead[cand[b]] : -1; k >= 0;
		     k = m->dv_s[k].next)
			most += 1;
	if (most <= f)
		return; /* cannot bind */
	wilp_dr_note(m, n, f);
	wm_row_begin(&m->b);
	/* devices shared claims take */
	for (int b = 0; b < WDV_MAXC; b++) {
		int h = (u >> b & 1) ? m->dv_shead[cand[b]] : -1;
		for (int k = h; k >= 0; k = m->dv_s[k].next)
			wm_coef(&m->b, m->dv_s[k].col, 1);
		if (h >= 0 && m->names)
			wilp_dterm_add(m, &m->ds, cand[b], 0);
	}
	for (int k = 0; k < nh; k++) {
		wm_coef(&m->b, m->fr_col[hfr[k]], -hn[k]);
		wilp_dterm_add(m, &m->dh, hfr[k], hn[k]);
	}
	for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
		int sl = m->nxslot[i];
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++) {
			int q = dv_need_in(m, w, u);
			if (!q)
				continue;
			if (m->dv_ycol[w]) {
				wm_coef(&m->b, m->dv_ycol[w], q);
				wilp_dy_note(m, w, q);
			} else {
				wm_coef(&m->b, m->xcol[sl], q);
				wilp_dt_note(m, wp_slot_class(p, sl), q);
			}
		}
	}
	wm_row_end(&m->b, GLP_UP, 0, f,
	    wm_name(&m->b, "devs[%s,%d]", p->snap->nodes[n].name, tag));
}

/* Shared claims (a PodGroup's claim, a ResourceClaim named by pods) not
 * allocated yet (doc/formulation.md §3b): per way (an alternative per request,
 * a value per matchAttribute constraint) z[i,w] binary, at most one; per
 * request r and candidate device d s[i,r,d] binary, sum_d s[i,r,d] = sum_w
 * count(r,w) z[i,w], s[i,r,d] <= sum of z over the ways whose kind holds d;
 * per node n where a user class has a slot, l[i,n] binary: the users' pods on
 * n need l[i,n] = 1, which needs a chosen way and forbids every chosen device
 * that does not reach n.  A device serves one claim: sum over instances and
 * requests of s[.,.,d] <= 1, and the Hall rows of the node subtract the
 * devices instances take. */
/* Does way w of instance I let request r take device dev? */
bool wilp_dvi_in(const wm *m, const dvinst *I, int w, int r, int dev)
{
	const ws_dra *d = m->p->snap->dra;
	const wdr_spec *sp = &d->specs[I->spec];
	const wdr_req *rq = &sp->reqs[r];
	const wdr_sub *sb = &rq->alts[I->alt[w * sp->nreqs + r]];
	if (!m->dra->match[sb->id][dev])
		return false;
	for (int j = 0; j < sp->ncons; j++) {
		const wdr_cons *cn = &sp->cons[j];
		const wcel_attr *v = I->val[w * (sp->ncons ? sp->ncons : 1) + j];
		if (!v || (!wdr_cons_has(cn, rq->name) &&
			   !wdr_cons_has(cn, sb->name)))
			continue;
		const wcel_attr *a = wdr_attr(&d->devs[dev], cn->domain,
					      cn->attr);
		if (!a || !wdr_attr_equal(a, v))
			return false;
	}
	return true;
}

/* Candidate devices of instance i: free, matching some alternative of
 * a request, reaching some node of a user slot. */
static int dvi_cands(wm *m, int i, const unsigned char *unode, int *out)
{
	const ws_dra *d = m->p->snap->dra;
	const wdr_spec *sp = &d->specs[d->insts[i].spec];
	int k = 0;
	for (int dev = 0; dev < d->ndevs; dev++) {
		if (m->dra->taken[dev] || d->devs[dev].multi)
			continue;
		bool mt = false;
		for (int r = 0; r < sp->nreqs && !mt; r++)
			for (int a = 0; a < sp->reqs[r].nalts && !mt; a++)
				mt = m->dra->match[sp->reqs[r].alts[a].id][dev];
		if (!mt)
			continue;
		const wdr_reach *rc = &d->devs[dev].reach;
		bool reach = false;
		if (rc->node >= 0)
			reach = unode[rc->node];
		else
			for (int n = 0; n < m->p->nnodes && !reach; n++)
				reach = unode[n] &&
					wdr_reaches(m->p->snap, &d->devs[dev], n);
		if (reach)
			out[k++] = dev;
	}
	return k;
}

/* Marks in unode the nodes where the users of instance i (spec sp) have
 * an x column.  An allocated claim has its devices fixed: its users'
 * slots on nodes the devices do not reach get bound 0 instead.  Has some
 * user a column? */
static bool inst_users(wm *m, int i, const wdr_spec *sp,
		       unsigned char *unode)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	const ws_dra *d = s->dra;
	memset(unode, 0, (size_t)p->nnodes);
	bool used = false;
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++) {
			if (m->cpc[c]->c[k].inst != i)
				continue;
			const wp_class *cl = &p->classes[c];
			for (int e = 0; e < cl->nelig; e++) {
				int sl = cl->off + e;
				if (!m->xcol[sl])
					continue;
				if (sp->allocated) {
					/* its devices are fixed: the
					 * pods go where they reach */
					bool ok = true;
					for (int a = 0; a < sp->nalloc && ok;
					     a++)
						ok = wdr_reaches(s,
						    &d->devs[sp->alloc_dev[a]],
						    cl->elig[e]);
					if (!ok)
						m->cub[m->xcol[sl]] =
						    m->xub[sl] = 0;
					continue;
				}
				unode[cl->elig[e]] = 1;
				used = true;
			}
		}
	return used;
}

/* Whether the shape of spec sp is modelled (no All, no
 * distinctAttribute). */
static bool inst_shape(const wdr_spec *sp)
{
	bool shape = true;
	for (int r = 0; r < sp->nreqs; r++)
		for (int a = 0; a < sp->reqs[r].nalts; a++)
			shape &= !sp->reqs[r].alts[a].all;
	for (int j = 0; j < sp->ncons; j++)
		shape &= !sp->cons[j].distinct;
	return shape;
}

/* The choice points of spec sp over the candidate devices cand[0..nc):
 * its requests' alternatives, then per matchAttribute constraint j the
 * values vals[j][0..nval[j]) the candidates carry.  The number of
 * combinations, or -1 when they are not modelled (shape false, or too
 * many points, values or combinations). */
static long inst_values(const wm *m, const wdr_spec *sp, bool shape,
			const int *cand, int nc,
			const wcel_attr *vals[][WDV_MAX_VALS], int *nval)
{
	const ws_dra *d = m->p->snap->dra;
	long comb = 1;
	if (sp->nreqs + sp->ncons > WDV_MAX_PTS)
		shape = false;
	for (int r = 0; shape && r < sp->nreqs; r++)
		comb *= sp->reqs[r].nalts;
	for (int j = 0; shape && j < sp->ncons; j++) {
		const wdr_cons *cn = &sp->cons[j];
		nval[j] = 0;
		for (int x = 0; x < nc && shape; x++) {
			const wcel_attr *at = wdr_attr(&d->devs[cand[x]],
						       cn->domain,
						       cn->attr);
			if (!at)
				continue;
			int v;
			for (v = 0; v < nval[j] &&
			     !wdr_attr_equal(vals[j][v], at); v++)
				;
			if (v == nval[j]) {
				if (v == WDV_MAX_VALS)
					shape = false;
				else
					vals[j][nval[j]++] = at;
			}
		}
		/* a constraint without values leaves every way
		 * impossible; one value slot of NULL keeps the loop
		 * simple and the way is dropped below */
		comb *= nval[j] ? nval[j] : 1;
	}
	if (!shape || comb > WDV_MAX_COMB)
		return -1;
	return comb;
}

/* The ways of instance I among the comb combinations: those where every
 * request finds enough candidate devices, their alternatives and values
 * in I->alt and I->val, I->q the most devices one way takes.  Returns
 * the ways' counts per request (NULL on NOMEM). */
static int *inst_ways(wm *m, dvinst *I, const wdr_spec *sp, long comb,
		      const int *cand, int nc,
		      const wcel_attr *vals[][WDV_MAX_VALS], const int *nval)
{
	int nr = sp->nreqs, ncs = sp->ncons ? sp->ncons : 1;
	I->alt = wa_calloc(m->ar, (size_t)comb * nr + 1, sizeof(int));
	I->val = wa_calloc(m->ar, (size_t)comb * ncs + 1,
			   sizeof *I->val);
	int *cnt = wa_calloc(m->ar, (size_t)comb * nr + 1, sizeof(int));
	if (!I->alt || !I->val || !cnt) {
		m->nomem = true;
		return NULL;
	}
	for (long t = 0; t < comb; t++) {
		int w = I->nw;
		long rr = t;
		bool ok = true;
		for (int j = sp->ncons - 1; j >= 0; j--) {
			int nv = nval[j] ? nval[j] : 1;
			I->val[w * ncs + j] = nval[j]
			    ? vals[j][rr % nv] : NULL;
			ok &= nval[j] > 0;
			rr /= nv;
		}
		for (int r = nr - 1; r >= 0; r--) {
			I->alt[w * nr + r] = (int)(rr % sp->reqs[r].nalts);
			rr /= sp->reqs[r].nalts;
		}
		int tot = 0;
		for (int r = 0; r < nr && ok; r++) {
			const wdr_sub *sb =
			    &sp->reqs[r].alts[I->alt[w * nr + r]];
			int got = 0;
			for (int x = 0; x < nc; x++)
				got += wilp_dvi_in(m, I, w, r, cand[x]);
			ok = sb->cls >= 0 && got >= sb->count;
			cnt[w * nr + r] = sb->count;
			tot += sb->count;
		}
		if (!ok)
			continue;
		if (tot > I->q)
			I->q = tot;
		I->nw++;
	}
	return cnt;
}

/* No way can allocate instance i: its users' slots get bound 0. */
static void inst_unusable(wm *m, int i)
{
	const wp_problem *p = m->p;
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++)
			if (m->cpc[c]->c[k].inst == i)
				for (int e = 0; e < p->classes[c].nelig; e++) {
					int sl = p->classes[c].off + e;
					if (m->xcol[sl])
						m->cub[m->xcol[sl]] =
						    m->xub[sl] = 0;
				}
}

/* The z columns of instance I (one per way), its s columns (per request
 * and candidate device some way may take) with their rows, and the row
 * that allows one way (name: the claim, for row and column names). */
static void inst_cols(wm *m, int i, dvinst *I, const wdr_spec *sp,
		      const char *buf, const int *cand, int nc, const int *cnt)
{
	const ws_dra *d = m->p->snap->dra;
	int nr = sp->nreqs;
	for (int w = 0; w < I->nw; w++) {
		int j = wm_col(&m->b, WM_Z, i, w, 0, 1,
			       wm_name(&m->b, "z[%s,%d]", buf, w));
		if (w == 0)
			I->zfirst = j;
	}
	/* s columns and their rows */
	for (int r = 0; r < nr && !m->nomem; r++) {
		int r0 = m->dv_ns;
		for (int x = 0; x < nc; x++) {
			bool any = false, every = true;
			for (int w = 0; w < I->nw; w++) {
				bool in_ = wilp_dvi_in(m, I, w, r, cand[x]);
				any |= in_;
				every &= in_;
			}
			if (!any)
				continue;
			const wdr_device *dv = &d->devs[cand[x]];
			int col = wm_col(&m->b, WM_SD, i, cand[x], 0, 1,
			    wm_name(&m->b, "s[%s,%s,%s/%s]", buf,
				    sp->reqs[r].name,
				    d->slices[dv->slice].pool,
				    dv->name));
			dvs e = {i, r, cand[x], col,
				 m->dv_shead[cand[x]]};
			if (WA_PUSH(m->ar, m->dv_s, m->dv_ns,
				    m->dv_caps, e)) {
				m->nomem = true;
				return;
			}
			m->dv_shead[cand[x]] = m->dv_ns - 1;
			if (every)
				continue;
			wm_row_begin(&m->b);
			wm_coef(&m->b, col, 1);
			for (int w = 0; w < I->nw; w++)
				if (wilp_dvi_in(m, I, w, r, cand[x]))
					wm_coef(&m->b, I->zfirst + w, -1);
			wm_row_end(&m->b, GLP_UP, 0, 0,
			    wm_name(&m->b, "sway[%s,%s,%s/%s]", buf,
				    sp->reqs[r].name,
				    d->slices[dv->slice].pool,
				    dv->name));
		}
		wm_row_begin(&m->b);
		for (int k = r0; k < m->dv_ns; k++)
			wm_coef(&m->b, m->dv_s[k].col, 1);
		for (int w = 0; w < I->nw; w++)
			wm_coef(&m->b, I->zfirst + w, -cnt[w * nr + r]);
		wm_row_end(&m->b, GLP_FX, 0, 0,
		    wm_name(&m->b, "scount[%s,%s]", buf,
			    sp->reqs[r].name));
	}
	wm_row_begin(&m->b);
	for (int w = 0; w < I->nw; w++)
		wm_coef(&m->b, I->zfirst + w, 1);
	wm_row_end(&m->b, GLP_UP, 0, 1, wm_name(&m->b, "zone[%s]", buf));
}

/* l[i,n] per user node n of instance I (its s columns from s0 on): the
 * users' pods on n need l = 1, which needs a chosen way and forbids
 * chosen devices that do not reach n. */
static void inst_nodes(wm *m, int i, dvinst *I, const char *buf,
		       const unsigned char *unode, int s0)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	const ws_dra *d = s->dra;
	for (int n = 0; n < p->nnodes && !m->nomem; n++) {
		if (!unode[n])
			continue;
		double U = 0;
		int l = wm_col(&m->b, WM_L, i, n, 0, 1,
		    wm_name(&m->b, "l[%s,%s]", buf, s->nodes[n].name));
		wm_row_begin(&m->b);
		for (int c = 0; c < p->nclasses; c++) {
			bool uses = false;
			for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++)
				uses |= m->cpc[c]->c[k].inst == i;
			int sl = uses ? wp_slot(p, c, n) : -1;
			if (sl >= 0 && m->xcol[sl] && m->xub[sl]) {
				wm_coef(&m->b, m->xcol[sl], 1);
				U += m->xub[sl];
			}
		}
		wm_coef(&m->b, l, -U);
		wm_row_end(&m->b, GLP_UP, 0, 0,
		    wm_name(&m->b, "lpods[%s,%s]", buf, s->nodes[n].name));
		wm_row_begin(&m->b);
		bool far = false;
		for (int k = s0; k < m->dv_ns; k++)
			if (!wdr_reaches(s, &d->devs[m->dv_s[k].dev], n)) {
				wm_coef(&m->b, m->dv_s[k].col, 1);
				far = true;
			}
		wm_coef(&m->b, l, I->q);
		if (far)
			wm_row_end(&m->b, GLP_UP, 0, I->q,
			    wm_name(&m->b, "lreach[%s,%s]", buf,
				    s->nodes[n].name));
		else
			wm_row_drop(&m->b);
		wm_row_begin(&m->b);
		wm_coef(&m->b, l, 1);
		for (int w = 0; w < I->nw; w++)
			wm_coef(&m->b, I->zfirst + w, -1);
		wm_row_end(&m->b, GLP_UP, 0, 0,
		    wm_name(&m->b, "lway[%s,%s]", buf, s->nodes[n].name));
	}
}

static void dv_insts(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	const ws_dra *d = s->dra;
	m->dv_irec = wa_calloc(m->ar, (size_t)d->ninsts + 1,
			       sizeof *m->dv_irec);
	m->dv_shead = wa_calloc(m->ar, (size_t)d->ndevs + 1, sizeof(int));
	unsigned char *unode = wa_calloc(m->ar, (size_t)p->nnodes + 1, 1);
	int *cand = wa_calloc(m->ar, (size_t)d->ndevs + 1, sizeof *cand);
	if (!m->dv_irec || !m->dv_shead || !unode || !cand) {
		m->nomem = true;
		return;
	}
	for (int dev = 0; dev < d->ndevs; dev++)
		m->dv_shead[dev] = -1;
	char buf[512];
	for (int i = 0; i < d->ninsts && !m->nomem; i++) {
		const wdr_inst *in = &d->insts[i];
		const wdr_spec *sp = &d->specs[in->spec];
		bool used = inst_users(m, i, sp, unode);
		if (!used)
			continue;
		bool shape = inst_shape(sp);
		int nc = dvi_cands(m, i, unode, cand);
		const wcel_attr *vals[WDV_MAX_PTS][WDV_MAX_VALS];
		int nval[WDV_MAX_PTS];
		long comb = inst_values(m, sp, shape, cand, nc, vals, nval);
		if (comb < 0) {
			m->dv_inexact = true;
			continue;
		}
		dvinst *I = &m->dv_irec[i];
		I->inst = i;
		I->spec = in->spec;
		int *cnt = inst_ways(m, I, sp, comb, cand, nc, vals, nval);
		if (!cnt)
			return;
		if (!I->nw) {
			inst_unusable(m, i);
			continue;
		}
		const char *nm = in->name;
		snprintf(buf, sizeof buf, "%s/%s", in->ns, nm);
		int s0 = m->dv_ns;
		inst_cols(m, i, I, sp, buf, cand, nc, cnt);
		if (m->nomem)
			return;
		inst_nodes(m, i, I, buf, unode, s0);
	}
	/* a device serves one claim */
	for (int dev = 0; dev < d->ndevs && !m->nomem; dev++) {
		int h = m->dv_shead[dev];
		if (h < 0 || m->dv_s[h].next < 0)
			continue;
		wm_row_begin(&m->b);
		for (int k = h; k >= 0; k = m->dv_s[k].next)
			wm_coef(&m->b, m->dv_s[k].col, 1);
		wm_row_end(&m->b, GLP_UP, 0, 1,
		    wm_name(&m->b, "sdev[%s/%s]",
			    d->slices[d->devs[dev].slice].pool,
			    d->devs[dev].name));
	}
}

static int64_t dv_gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Forget device row `row`, the last noted, and its terms. */
static void dv_unnote(wm *m, int row)
{
	wdterms *l[] = {&m->dt, &m->dy, &m->ds, &m->dh};
	for (size_t i = 0; i < sizeof l / sizeof *l; i++)
		while (l[i]->n && l[i]->t[l[i]->n - 1].row == row)
			l[i]->n--;
	m->dr.n = row;
}

/* What device dev takes of counter c (0: none). */
static int64_t dv_amt(const ws_dra *d, int c, int dev)
{
	const wdr_ctr *k = &d->ctrs[c];
	for (int i = k->first; i < k->first + k->n; i++)
		if (d->ctr_dev[i] == dev)
			return d->ctr_amt[i];
	return 0;
}

/* The node all consumers of counter c are local to; -1 when they are
 * not all on one node (the counter is then only relaxed). */
static int dv_ctr_node(const ws_dra *d, int c)
{
	const wdr_ctr *k = &d->ctrs[c];
	int n = -1;
	for (int i = k->first; i < k->first + k->n; i++) {
		int at = d->devs[d->ctr_dev[i]].reach.node;
		if (at < 0 || (n >= 0 && at != n))
			return -1;
		n = at;
	}
	return n;
}

/* One row per shared counter (KEP-4815, doc/formulation.md §3b): on the
 * node its consumers are local to, the amounts the ways' demands take
 * (a demand's kind consumes one amount per device, else the smallest is
 * used and the model is relaxed), plus what shared claims' s columns
 * take, stay within the set's capacity minus what devices in use hold;
 * a claim that evictions free gives its devices' amounts back through
 * its f column.  Coefficients are divided by their common divisor. */
static void dv_ctr_row(wm *m, int c)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	const wdr_ctr *k = &d->ctrs[c];
	int n = dv_ctr_node(d, c), cand[WDV_MAXC];
	bool global;
	int nc = n < 0 ? -1 : wilp_dv_cands(m, n, cand, &global);
	if (nc < 0 || k->milli <= 0) {
		m->dv_inexact = true;
		return;
	}
	int64_t amt[WDV_MAXC], g = k->milli, rhs = k->milli;
	for (int b = 0; b < nc; b++) {
		amt[b] = dv_amt(d, c, cand[b]);
		if (amt[b] > 0)
			g = dv_gcd(amt[b], g);
		if (amt[b] && m->dra->taken[cand[b]])
			rhs -= amt[b];
	}
	if (rhs < 0) { /* over-consumed already (warned at load) */
		m->dv_inexact = true;
		return;
	}
	/* the way's coefficient, per way of the node's slots */
	wilp_dr_note(m, n, 0);
	int row = m->dr.n - 1;
	wm_row_begin(&m->b);
	bool any = false, ok = true;
	for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1] && ok; i++) {
		int sl = m->nxslot[i];
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl] && ok; w++) {
			int64_t q = 0;
			for (int e = m->dv_dbeg[w]; e < m->dv_dbeg[w + 1]; e++) {
				int64_t lo = -1, hi = 0;
				for (int b = 0; b < nc; b++) {
					if (!(m->dv_dset[e] >> b & 1))
						continue;
					int64_t a = d->devs[cand[b]].multi
						    ? 0 : amt[b];
					lo = lo < 0 || a < lo ? a : lo;
					hi = a > hi ? a : hi;
				}
				if (lo != hi)
					m->dv_inexact = true;
				q += lo > 0 ? lo / g * m->dv_dcnt[e] : 0;
			}
			if (!q)
				continue;
			ok = q <= INT32_MAX;
			any = true;
			if (m->dv_ycol[w]) {
				wm_coef(&m->b, m->dv_ycol[w], (double)q);
				wilp_dy_note(m, w, (int)q);
			} else {
				wm_coef(&m->b, m->xcol[sl], (double)q);
				wilp_dt_note(m, wp_slot_class(p, sl), (int)q);
			}
		}
	}
	for (int b = 0; b < nc && ok; b++) {
		if (!amt[b])
			continue;
		int64_t a = amt[b] / g;
		for (int h = m->dv_shead[cand[b]]; h >= 0; h = m->dv_s[h].next)
			wm_coef(&m->b, m->dv_s[h].col, (double)a);
		if (m->dv_shead[cand[b]] >= 0) {
			any = true;
			wilp_dterm_add(m, &m->ds, cand[b], (int)a);
		}
		int f = m->nfr && m->dra->taken[cand[b]]
			    ? m->dev_fr[cand[b]] : -1;
		bool seen = false;
		for (int b2 = 0; b2 < b && f >= 0 && !seen; b2++)
			seen = amt[b2] && m->dra->taken[cand[b2]] &&
			       m->dev_fr[cand[b2]] == f;
		if (f < 0 || seen)
			continue;
		/* one coefficient per claim: its devices' amounts */
		int64_t sum = 0;
		for (int b2 = b; b2 < nc; b2++)
			if (amt[b2] && m->dra->taken[cand[b2]] &&
			    m->dev_fr[cand[b2]] == f)
				sum += amt[b2] / g;
		ok = sum <= INT32_MAX;
		wm_coef(&m->b, m->fr_col[f], -(double)sum);
		wilp_dterm_add(m, &m->dh, f, (int)sum);
	}
	if (!any || !ok || rhs / g > INT32_MAX) {
		if (any)
			m->dv_inexact = true;
		wm_row_drop(&m->b);
		dv_unnote(m, row);
		return;
	}
	m->dr.t[row].coef = (int)(rhs / g);
	wm_row_end(&m->b, GLP_UP, 0, (double)(rhs / g),
	    wm_name(&m->b, "ctr[%s,%s,%s]", p->snap->nodes[n].name, k->set,
		    k->name));
}

/* DRA rows (see the section comment): ways per slot, y columns and
 * ways[c,n] rows where a slot has several, Hall rows per node. */
void wilp_rows_dev(wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	if (!m->cpc)
		return;
	m->dv_wbeg = wa_calloc(m->ar, (size_t)p->nx + 2, sizeof(int));
	m->dv_wend = wa_calloc(m->ar, (size_t)p->nx + 2, sizeof(int));
	int *kid = wa_calloc(m->ar, 4096, sizeof *kid);
	uint64_t *kset = wa_calloc(m->ar, 4096, sizeof *kset);
	int *comp = wa_calloc(m->ar, 4096, sizeof *comp);
	if (!m->dv_wbeg || !m->dv_wend || !kid || !kset || !comp ||
	    !wm_grow(&m->b, (void **)&m->dv_dbeg, sizeof(int), &m->dv_capw1, 2)) {
		m->nomem = true;
		return;
	}
	m->dv_dbeg[0] = 0;
	dv_insts(m);
	int cand[WDV_MAXC];
	for (int n = 0; n < p->nnodes && !m->nomem; n++) {
		bool global = false;
		int nc = -2;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
			int sl = m->nxslot[i], c = wp_slot_class(p, sl);
			m->dv_wend[sl] = m->dv_wbeg[sl] = m->dv_nway;
			if (!m->cpc[c])
				continue;
			if (nc == -2)
				nc = wilp_dv_cands(m, n, cand, &global);
			if (nc < 0) {
				m->dv_inexact = true;
				continue;
			}
			m->dv_prio = wilp_eff_prio(p, c);
			wilp_dv_slot(m, sl, m->cpc[c], n, cand, nc, global);
			m->dv_prio = INT32_MIN;
			int nw = m->dv_wend[sl] - m->dv_wbeg[sl];
			/* one way: y only to carry its alternatives' rank */
			if (nw == 0 ||
			    (nw == 1 && !m->dv_wpen[m->dv_wbeg[sl]]))
				continue;
			/* y[c,n,w] and sum_w y = x */
			for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl];
			     w++)
				m->dv_ycol[w] = wm_col(&m->b, WM_V, w, sl, 0,
				    m->xub[sl],
				    wm_name(&m->b, "y[c%d,%s,%d]", c,
					    s->nodes[n].name,
					    w - m->dv_wbeg[sl]));
			wm_row_begin(&m->b);
			for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl];
			     w++)
				wm_coef(&m->b, m->dv_ycol[w], 1);
			wm_coef(&m->b, m->xcol[sl], -1);
			wm_row_end(&m->b, GLP_FX, 0, 0,
			    wm_name(&m->b, "ways[c%d,%s]", c, s->nodes[n].name));
		}
		if (nc < 0)
			continue;
		/* the node's kinds, without repeats */
		int nk = 0;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++) {
			int sl = m->nxslot[i];
			for (int k = m->dv_dbeg[m->dv_wbeg[sl]];
			     k < m->dv_dbeg[m->dv_wend[sl]]; k++) {
				int j;
				for (j = 0; j < nk && kset[j] != m->dv_dset[k];
				     j++)
					;
				if (j == nk && nk < 4096)
					kset[nk++] = m->dv_dset[k];
			}
		}
		/* overlap components (union-find by relabelling) */
		for (int i = 0; i < nk; i++)
			comp[i] = i;
		for (bool ch = true; ch;) {
			ch = false;
			for (int i = 0; i < nk; i++)
				for (int j = i + 1; j < nk; j++)
					if ((kset[i] & kset[j]) &&
					    comp[i] != comp[j]) {
						int lo = comp[i] < comp[j]
							     ? comp[i] : comp[j];
						comp[i] = comp[j] = lo;
						ch = true;
					}
		}
		int tag = 0;
		for (int r = 0; r < nk && !m->nomem; r++) {
			int ni = 0;
			for (int i = 0; i < nk; i++)
				if (comp[i] == r)
					kid[ni++] = i;
			if (!ni)
				continue;
			if (ni > WDV_HALL) {
				/* too many subsets: each kind and the whole
				 * component (a relaxation) */
				m->dv_inexact = true;
				uint64_t u = 0;
				for (int i = 0; i < ni; i++) {
					dv_row(m, n, kset[kid[i]], cand, tag++);
					u |= kset[kid[i]];
				}
				dv_row(m, n, u, cand, tag++);
				continue;
			}
			for (unsigned mask = 1; mask < 1u << ni; mask++) {
				uint64_t u = 0;
				for (int i = 0; i < ni; i++)
					if (mask >> i & 1)
						u |= kset[kid[i]];
				bool closed = true;
				for (int i = 0; i < ni && closed; i++)
					if (!(mask >> i & 1) &&
					    !(kset[kid[i]] & ~u))
						closed = false;
				if (!closed ||
				    !dv_connected(kset, kid, ni, mask))
					continue;
				dv_row(m, n, u, cand, tag++);
			}
		}
	}
	/* shared counters (KEP-4815) */
	for (int c = 0; c < s->dra->nctrs && !m->nomem; c++)
		dv_ctr_row(m, c);
}
