/*
 * build.c -- the model builder: columns, rows and names in plain arrays
 * (struct wm, ilp_int.h), the order the families are built in (wm_build),
 * the row-by-row check of a point and the full vector of a warm start.
 */
#include "solve/ilp/ilp_int.h"

bool wm_grow(wmb *b, void **arr, size_t el, size_t *cap, size_t need)
{
	if (b->nomem)
		return false;
	if (need <= *cap)
		return true;
	if (wa_grow(b->ar, arr, el, cap, need)) {
		b->nomem = true;
		return false;
	}
	return true;
}

/* A name GLPK's LP and MPS writers accept: no spaces or control
 * characters, at most 255 bytes. */
const char *wm_name(wmb *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (!b->names)
		return NULL; /* solving only: names cost time and memory */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	buf[WILP_NAME_MAX] = '\0';
	for (char *s = buf; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 127 ||
		    *s == ':' || *s == '+' || *s == '*' || *s == '^' ||
		    *s == '<' || *s == '>' || *s == '=')
			*s = '_';
	char *r = wa_strdup(b->ar, buf);
	if (!r)
		b->nomem = true;
	return r ? r : "";
}

int wm_col(wmb *b, int kind, int ref, int dom, double lb, double ub,
	   const char *name)
{
	size_t c0 = b->capc, c;
	int j = b->ncols + 1;
	c = c0;
	if (!wm_grow(b, (void **)&b->clb, sizeof *b->clb, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(b, (void **)&b->cub, sizeof *b->cub, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(b, (void **)&b->ckind, 1, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(b, (void **)&b->cref, sizeof *b->cref, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(b, (void **)&b->cdom, sizeof *b->cdom, &c, j + 1))
		return 0;
	c = c0;
	if (!wm_grow(b, (void **)&b->cname, sizeof *b->cname, &c, j + 1))
		return 0;
	b->capc = c;
	b->ncols = j;
	b->clb[j] = lb;
	b->cub[j] = ub;
	b->ckind[j] = (unsigned char)kind;
	b->cref[j] = ref;
	b->cdom[j] = dom;
	b->cname[j] = name;
	return j;
}

void wm_row_begin(wmb *b)
{
	if (!wm_grow(b, (void **)&b->rbeg, sizeof *b->rbeg, &b->caprb,
		     b->nrows + 3))
		return;
	b->rbeg[b->nrows + 1] = b->nnz + 1;
}

void wm_coef(wmb *b, int j, double v)
{
	size_t c0 = b->cape, c = c0;
	if (b->nomem || j <= 0 || v == 0)
		return;
	if (!wm_grow(b, (void **)&b->ja, sizeof *b->ja, &c, b->nnz + 2))
		return;
	c = c0;
	if (!wm_grow(b, (void **)&b->av, sizeof *b->av, &c, b->nnz + 2))
		return;
	b->cape = c;
	b->nnz++;
	b->ja[b->nnz] = j;
	b->av[b->nnz] = v;
}

/* Ends the row begun last; a row without entries is dropped unless
 * b->keep_empty. */
void wm_row_end(wmb *b, int type, double lo, double hi,
		const char *name)
{
	if (b->nomem)
		return;
	int i = b->nrows + 1;
	if (b->nnz + 1 == b->rbeg[i] && !b->keep_empty)
		return;
	size_t c0 = b->capr, c;
	c = c0;
	if (!wm_grow(b, (void **)&b->rtype, sizeof *b->rtype, &c, i + 2))
		return;
	c = c0;
	if (!wm_grow(b, (void **)&b->rlo, sizeof *b->rlo, &c, i + 2))
		return;
	c = c0;
	if (!wm_grow(b, (void **)&b->rhi, sizeof *b->rhi, &c, i + 2))
		return;
	c = c0;
	if (!wm_grow(b, (void **)&b->rname, sizeof *b->rname, &c, i + 2))
		return;
	b->capr = c;
	b->nrows = i;
	b->rtype[i] = type;
	b->rlo[i] = lo;
	b->rhi[i] = hi;
	b->rname[i] = name;
	b->rbeg[i + 1] = b->nnz + 1;
}

/* Drops the row begun last (it cannot bind). */
void wm_row_drop(wmb *b)
{
	if (!b->nomem)
		b->nnz = b->rbeg[b->nrows + 1] - 1;
}

const char *wilp_group_name(const wp_problem *p, int g, char *buf,
			    size_t size)
{
	const wp_group *gr = &p->groups[g];
	const ws_snapshot *s = p->snap;
	if (gr->sg >= 0) {
		snprintf(buf, size, "%s/%s", s->groups[gr->sg].ns,
			 s->groups[gr->sg].name);
	} else if (gr->nclasses > 0 && p->classes[gr->classes[0]].count > 0) {
		const ws_pod *pod =
		    &s->pods[p->classes[gr->classes[0]].pods[0]];
		snprintf(buf, size, "pod/%s/%s", pod->ns, pod->name);
	} else {
		snprintf(buf, size, "group%d", g);
	}
	return buf;
}

/* Pods of class c that fit on node n alone (0: none). */
int wilp_x_bound(const wp_problem *p, int c, int n)
{
	const wp_class *cl = &p->classes[c];
	int64_t ub = cl->count;
	for (int r = 0; r < p->nres; r++) {
		int64_t q = cl->req[r];
		if (q <= 0)
			continue;
		int64_t f = p->free[(size_t)n * p->nres + r];
		if (f < q)
			return 0;
		if (f / q < ub)
			ub = f / q;
	}
	return (int)ub;
}

/* Per node, the slots that have a column (for capacity rows). */
static void index_nodes(wm *m)
{
	const wp_problem *p = m->p;
	int *cnt = m->nxbeg;
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++)
			if (m->xcol[p->classes[c].off + k])
				cnt[p->classes[c].elig[k] + 1]++;
	for (int n = 0; n < p->nnodes; n++)
		cnt[n + 1] += cnt[n];
	int *fill = wa_calloc(m->ar, p->nnodes + 1, sizeof *fill);
	m->nxslot = wa_calloc(m->ar, cnt[p->nnodes] + 1, sizeof *m->nxslot);
	if (!fill || !m->nxslot) {
		m->nomem = true;
		return;
	}
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++) {
			int s = p->classes[c].off + k;
			int n = p->classes[c].elig[k];
			if (m->xcol[s])
				m->nxslot[cnt[n] + fill[n]++] = s;
		}
}

static bool wm_late(wm *m)
{
	if (wdl_passed(m->deadline, 0) || (m->cancel && *m->cancel))
		m->late = true;
	return m->late || m->nomem;
}

int wm_build(wm *m, const wp_problem *p, wa_arena *ar,
	     double max_coef, bool sym, bool names, wb_deadline deadline,
	     volatile const int *cancel)
{
	memset(m, 0, sizeof *m);
	m->cancel = cancel;
	m->dv_prio = INT32_MIN;
	m->p = p;
	m->ar = ar;
	m->names = names;
	m->deadline = deadline;
	m->xcol = wa_calloc(ar, p->nx + 1, sizeof *m->xcol);
	m->xub = wa_calloc(ar, p->nx + 1, sizeof *m->xub);
	m->acol = wa_calloc(ar, p->ngroups + 1, sizeof *m->acol);
	m->tbeg = wa_calloc(ar, p->ngroups + 1, sizeof *m->tbeg);
	m->tn = wa_calloc(ar, p->ngroups + 1, sizeof *m->tn);
	m->ucol = wa_calloc(ar, p->nnodes + 1, sizeof *m->ucol);
	m->nxbeg = wa_calloc(ar, p->nnodes + 2, sizeof *m->nxbeg);
	m->hcol = wa_calloc(ar, p->ncomps + 1, sizeof *m->hcol);
	m->hbeg = wa_calloc(ar, p->ncomps + 1, sizeof *m->hbeg);
	m->hn = wa_calloc(ar, p->ncomps + 1, sizeof *m->hn);
	m->ebeg = wa_calloc(ar, p->ngroups + 1, sizeof *m->ebeg);
	m->en = wa_calloc(ar, p->ngroups + 1, sizeof *m->en);
	m->kbeg = wa_calloc(ar, (size_t)(p->ngroups + 1) * WS_MAX_SLICE_LAYERS,
			    sizeof *m->kbeg);
	m->kn = wa_calloc(ar, (size_t)(p->ngroups + 1) * WS_MAX_SLICE_LAYERS,
			  sizeof *m->kn);
	if (!m->hcol || !m->hbeg || !m->hn || !m->ebeg || !m->en ||
	    !m->kbeg || !m->kn)
		return WASP_ENOMEM;
	if (!m->xcol || !m->xub || !m->acol || !m->tbeg || !m->tn ||
	    !m->ucol || !m->nxbeg)
		return WASP_ENOMEM;
	if (p->nmcls)
		sym = false; /* home nodes differ (moves) */
	if (p->snap->dra) {
		/* Devices make nodes differ beyond what the symmetry rows
		 * compare: no symmetry breaking with DRA. */
		sym = false;
		/* in the problem's arena: the answer's allocation
		 * (wilp_dev_answer) shares its match table */
		m->dra = wa_alloc(p->arena, sizeof *m->dra);
		m->cpc = wa_calloc(ar, (size_t)p->nclasses + 1,
				   sizeof *m->cpc);
		if (!m->dra || !m->cpc ||
		    wdr_state_init(m->dra, p->snap, p->arena))
			return WASP_ENOMEM;
		for (int c = 0; c < p->nclasses; c++) {
			const wdr_podc *pc =
			    &p->snap->dra->pods[p->classes[c].pods[0]];
			m->cpc[c] = pc->n ? pc : NULL;
		}
	}
	/* the steps run in order; a late build is abandoned (m->late) */
	wilp_q_classes(m);
	if (!wm_late(m) && m->cpc)
		wilp_dv_held(m);
	if (!wm_late(m))
		wilp_mv_setup(m);
	if (!wm_late(m))
		wilp_cols_x(m);
	if (!wm_late(m))
		index_nodes(m);
	if (!wm_late(m))
		wilp_cols_a(m);
	if (!wm_late(m))
		wilp_cols_t(m);
	if (!wm_late(m))
		wilp_cols_h(m);
	if (!wm_late(m))
		wilp_cols_tas(m);
	if (!wm_late(m))
		wilp_cols_u(m);
	if (!wm_late(m))
		wilp_cols_q(m);
	if (!wm_late(m))
		wilp_cols_w(m);
	if (!wm_late(m))
		wilp_cols_y(m);
	if (!wm_late(m)) {
		wilp_rows_class(m);
		wilp_rows_gang(m);
	}
	if (!wm_late(m))
		wilp_rows_topo(m);
	if (!wm_late(m))
		wilp_rows_tree(m);
	if (!wm_late(m))
		wilp_rows_tas(m);
	if (!wm_late(m))
		wilp_cols_rows_pref(m);
	if (!wm_late(m))
		wilp_rows_cap(m);
	if (!wm_late(m))
		wilp_pk_cols(m);
	if (!wm_late(m))
		wilp_rows_budget(m);
	if (!wm_late(m))
		wilp_rows_max_evict(m);
	if (!wm_late(m))
		wilp_rows_move(m);
	if (!wm_late(m))
		wilp_cols_rows_fr(m);
	if (!wm_late(m))
		wilp_rows_dev(m);
	if (sym && !wm_late(m))
		wilp_sym_runs(m);
	if (sym && !wm_late(m))
		wilp_rows_sym(m);
	if (!wm_late(m))
		wilp_objective(m, max_coef);
	return m->nomem ? WASP_ENOMEM : WASP_OK;
}

/* Row activity check at integer point v: 0 if every row holds, else the
 * first violated row; -j if column j is out of its bounds by more than
 * tol (the node model: 0; the part model: 1e-9). */
int wm_check(const wmb *m, const double *v, double tol)
{
	for (int j = 1; j <= m->ncols; j++)
		if (v[j] < m->clb[j] - tol || v[j] > m->cub[j] + tol)
			return -j;
	for (int i = 1; i <= m->nrows; i++) {
		long double s = 0;
		for (int k = m->rbeg[i]; k < m->rbeg[i + 1]; k++)
			s += (long double)m->av[k] * v[m->ja[k]];
		double lo = m->rlo[i], hi = m->rhi[i];
		switch (m->rtype[i]) {
		case GLP_UP:
			if (s > hi + 1e-9)
				return i;
			break;
		case GLP_LO:
			if (s < lo - 1e-9)
				return i;
			break;
		case GLP_FX:
			if (s < lo - 1e-9 || s > hi + 1e-9)
				return i;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Full column vector from x counts per slot: a, t and u follow from x. */
void wilp_vec_from_x(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	memset(v, 0, sizeof *v * (m->ncols + 1));
	for (int s = 0; s < p->nx; s++)
		if (m->xcol[s])
			v[m->xcol[s]] = x[s];
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		long placed = 0;
		int dom = -1;
		for (int i = 0; i < g->nclasses; i++) {
			const wp_class *cl = &p->classes[g->classes[i]];
			for (int k = 0; k < cl->nelig; k++) {
				int s = cl->off + k;
				if (!x[s])
					continue;
				placed += x[s];
				if (g->key >= 0)
					dom = p->topo->keys[g->key]
						  .node_dom[cl->elig[k]];
			}
		}
		if (m->acol[gi])
			v[m->acol[gi]] = placed > 0;
		if (dom >= 0)
			for (int i = 0; i < m->tn[gi]; i++)
				if (m->cdom[m->tbeg[gi] + i] == dom)
					v[m->tbeg[gi] + i] = 1;
	}
	wilp_vec_tree(m, x, v);
	wilp_vec_tas(m, x, v);
	wilp_vec_pref(m, x, v);
	for (int n = 0; n < p->nnodes; n++) {
		if (!m->ucol[n])
			continue;
		long on = 0;
		for (int i = m->nxbeg[n]; i < m->nxbeg[n + 1]; i++)
			on += x[m->nxslot[i]];
		v[m->ucol[n]] = on == 0;
	}
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_P)
			continue;
		const wtp_key *key = &p->topo->keys[m->cref[j]];
		int d = m->cdom[j];
		v[j] = 1;
		for (int i = 0; i < key->dom_nnodes[d]; i++) {
			int n = key->dom_nodes[d][i];
			if (m->ucol[n] && v[m->ucol[n]] == 0)
				v[j] = 0;
		}
	}
	/* from x alone: nothing evicted, no budget broken, nothing moved */
	for (int qc = 0; qc < m->nqc; qc++)
		v[m->qcol[qc]] = wilp_q_ub(m, qc);
	for (int i = 0; i < p->nmcls; i++)
		v[m->ybeg[i] + p->mcls[i].homek] = p->mcls[i].count;
	for (int j = 0; m->wcol && j < p->snap->npdbs; j++)
		if (m->wcol[j])
			v[m->wcol[j]] = m->wV[j];
	wilp_f_from_q(m, v);
	wilp_dev_vec(m, x, v);
}
