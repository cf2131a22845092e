/*
 * agg_split.c -- the part answer brought back to nodes: split part by part
 * with a small GLPK model, or the node model confined to the parts the
 * answer uses (doc/formulation.md §10).
 */
#include "solve/ilp/agg_int.h"

/* Part P of answer v onto its nodes: a small ILP with the node model's
 * rows for the part's nodes alone (x per class and node, the evictions
 * v allows per eviction class, u[P] nodes left free).  Writes x and the
 * part's single-unit evictions into out; false when it finds no split. */
static bool split_part(const ag *m, wag_run *r, const double *v, int P,
		       wp_sol *out)
{
	const wp_problem *p = m->p;
	int b = m->pbeg[P], e = m->pbeg[P + 1], nn = e - b;
	int NC = p->nclasses;
	glp_prob *Q = r->env.P = glp_create_prob();
	glp_set_obj_dir(Q, GLP_MAX);
	/* columns: x[c,n] (slot + 1 in xs), e[u], u[n] */
	int nc = 0;
	int *cs = malloc(sizeof *cs * ((size_t)NC * nn + p->nunits + nn + 1));
	int *ckind = malloc(sizeof *ckind * ((size_t)NC * nn + p->nunits +
					     nn + 1));
	int *ind = malloc(sizeof *ind * ((size_t)NC * nn + p->nunits + nn + 2));
	double *val = malloc(sizeof *val * ((size_t)NC * nn + p->nunits + nn +
					    2));
	int32_t *lv = malloc(sizeof *lv * ((size_t)NC + 1));
	bool ok = cs && ckind && ind && val && lv;
	long total = 0;
	for (int c = 0; ok && c < NC; c++) {
		int j = m->xcol[(size_t)c * m->npart + P];
		if (!j || v[j] < 0.5)
			continue;
		total += (long)v[j];
		for (int i = b; i < e; i++) {
			int n = m->pnode[i], s = wp_slot(p, c, n);
			int ub = s >= 0 ? m->sub[s] : 0;
			if (ub <= 0)
				continue;
			nc = glp_add_cols(Q, 1);
			glp_set_col_kind(Q, nc, GLP_IV);
			glp_set_col_bnds(Q, nc, GLP_DB, 0, ub);
			cs[nc - 1] = s;
			ckind[nc - 1] = 0;
		}
	}
	int nx = nc;
	for (int u = 0; ok && u < p->nunits; u++) {
		int qc = m->unit_qc[u];
		if (qc < 0 || p->units[u].all ||
		    m->part[wag_unit_node(p, u)] != P ||
		    wag_q_k(m, qc) - v[m->qcol[qc]] < 0.5)
			continue;
		nc = glp_add_cols(Q, 1);
		glp_set_col_kind(Q, nc, GLP_BV);
		glp_set_obj_coef(Q, nc, -1);
		cs[nc - 1] = u;
		ckind[nc - 1] = 1;
	}
	int ne = nc;
	int want = m->ucol[P] ? (int)(v[m->ucol[P]] + 0.5) : 0;
	for (int i = b; ok && i < e && want > 0; i++) {
		if (!m->nu[m->pnode[i]])
			continue;
		nc = glp_add_cols(Q, 1);
		glp_set_col_kind(Q, nc, GLP_BV);
		cs[nc - 1] = m->pnode[i];
		ckind[nc - 1] = 2;
	}
	/* rows: pods per class; evictions per class; capacity per node,
	 * resource and level; free nodes */
	for (int c = 0; ok && c < NC; c++) {
		int j = m->xcol[(size_t)c * m->npart + P];
		if (!j || v[j] < 0.5)
			continue;
		int len = 0;
		for (int k = 0; k < nx; k++)
			if (wp_slot_class(p, cs[k]) == c) {
				ind[++len] = k + 1;
				val[len] = 1;
			}
		int i = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, i, len, ind, val);
		glp_set_row_bnds(Q, i, GLP_FX, v[j], v[j]);
	}
	for (int qc = 0; ok && qc < m->nqc; qc++) {
		int len = 0;
		for (int k = nx; k < ne; k++)
			if (m->unit_qc[cs[k]] == qc) {
				ind[++len] = k + 1;
				val[len] = 1;
			}
		if (!len)
			continue;
		int i = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, i, len, ind, val);
		glp_set_row_bnds(Q, i, GLP_UP, 0,
				 wag_q_k(m, qc) - v[m->qcol[qc]]);
	}
	for (int t = b; ok && t < e; t++) {
		int n = m->pnode[t], nl = 0;
		bool hasq = m->nub[n + 1] > m->nub[n];
		for (int k = 0; k < nx; k++) {
			int32_t pr = wilp_eff_prio(p, wp_slot_class(p, cs[k]));
			int l = 0;
			while (l < nl && lv[l] != pr)
				l++;
			if (l == nl)
				lv[nl++] = pr;
		}
		if (!hasq && nl > 1) {
			for (int l = 1; l < nl; l++)
				if (lv[l] > lv[0])
					lv[0] = lv[l];
			nl = 1;
		}
		for (int l = 0; l < nl; l++)
			for (int res = 0; res < p->nres; res++) {
				int len = 0;
				double rhs = (double)p->free[(size_t)n * p->nres +
							     res];
				for (int k = 0; k < nx; k++) {
					int c = wp_slot_class(p, cs[k]);
					int64_t q = p->classes[c].req[res];
					if (p->classes[c].elig[cs[k] -
							       p->classes[c].off] !=
						n ||
					    q <= 0 || wilp_eff_prio(p, c) > lv[l])
						continue;
					ind[++len] = k + 1;
					val[len] = (double)q;
				}
				for (int k = nx; k < ne; k++) {
					const wp_unit *un = &p->units[cs[k]];
					if (wag_unit_node(p, cs[k]) != n ||
					    un->priority >= lv[l])
						continue;
					ind[++len] = k + 1;
					val[len] = -(double)p->snap
						       ->pods[un->pods[0]]
						       .req[res];
				}
				/* `all` units evicted by the part answer */
				for (int u = 0; u < p->nunits; u++) {
					int qc = m->unit_qc[u];
					const wp_unit *un = &p->units[u];
					if (qc < 0 || !un->all ||
					    v[m->qcol[qc]] > 0.5 ||
					    un->priority >= lv[l])
						continue;
					for (int i = 0; i < un->npods; i++) {
						const ws_pod *po =
						    &p->snap->pods[un->pods[i]];
						if (po->node == n)
							rhs += (double)po->req[res];
					}
				}
				if (!len)
					continue;
				int i = glp_add_rows(Q, 1);
				glp_set_mat_row(Q, i, len, ind, val);
				glp_set_row_bnds(Q, i, GLP_UP, 0, rhs);
			}
	}
	if (ok && want > 0) {
		int lenw = 0;
		for (int k = ne; k < nc; k++) {
			int n = cs[k], len = 0;
			for (int q = 0; q < nx; q++)
				if (p->classes[wp_slot_class(p, cs[q])]
					.elig[cs[q] -
					      p->classes[wp_slot_class(p, cs[q])]
						  .off] == n) {
					ind[++len] = q + 1;
					val[len] = 1;
				}
			ind[++len] = k + 1;
			val[len] = (double)total;
			int i = glp_add_rows(Q, 1);
			glp_set_mat_row(Q, i, len, ind, val);
			glp_set_row_bnds(Q, i, GLP_UP, 0, (double)total);
		}
		for (int k = ne; k < nc; k++) {
			ind[++lenw] = k + 1;
			val[lenw] = 1;
		}
		int i = glp_add_rows(Q, 1);
		glp_set_mat_row(Q, i, lenw, ind, val);
		glp_set_row_bnds(Q, i, GLP_LO, want, 0);
	}
	if (ok && nc > 0) {
		glp_iocp ip;
		glp_init_iocp(&ip);
		ip.msg_lev = GLP_MSG_OFF;
		ip.presolve = GLP_ON;
		/* a part is small: this is a safety net, within the run's
		 * deadline (r->split_by) */
		double left = wdl_left(r->split_by, 0);
		ip.tm_lim = left >= 0.5 ? 500 : left > 0.002 ? (int)(left * 1000)
							     : 1;
		int rc = glp_intopt(Q, &ip);
		int st = glp_mip_status(Q);
		ok = (rc == 0 || rc == GLP_ETMLIM) &&
		     (st == GLP_OPT || st == GLP_FEAS);
	}
	for (int k = 0; ok && k < nc; k++) {
		int xv = (int)floor(glp_mip_col_val(Q, k + 1) + 0.5);
		if (ckind[k] == 0)
			ok = wp_x_set(out, cs[k], xv) == 0;
		else if (ckind[k] == 1)
			out->evict[cs[k]] = (unsigned char)xv;
	}
	glp_delete_prob(Q);
	r->env.P = NULL;
	free(cs);
	free(ckind);
	free(ind);
	free(val);
	free(lv);
	return ok;
}

/* Every part of answer v onto nodes (split_part), then admission and eviction
 * credits as the node model sets them (preempt.c).  0: out holds a solution
 * that passes wp_sol_feasible; 1: some part did not split; <0: NOMEM. */
static int split(const ag *m, wag_run *r, const double *v, const wp_sol *warm,
		 wp_sol *out)
{
	const wp_problem *p = m->p;
	wp_x_clear(out);
	for (int u = 0; u < p->nunits; u++) {
		int qc = m->unit_qc[u];
		out->evict[u] = qc >= 0 && p->units[u].all &&
				v[m->qcol[qc]] < 0.5;
		out->evict_by[u] = -1;
	}
	for (int i = 0; i < p->snap->npods; i++)
		out->move_to[i] = -1;
	out->dra = NULL;
	for (int P = 0; P < m->npart; P++)
		if (wdl_passed(r->split_by, 0) ||
		    !split_part(m, r, v, P, out))
			return 1;
	unsigned char *at0 = calloc((size_t)p->ngroups + 1, 1);
	if (!at0)
		return -1;
	for (int g = 0; g < p->ngroups; g++)
		at0[g] = m->acol[g] && v[m->acol[g]] > 0.5;
	wp_fill_admission(p, at0, warm, out);
	free(at0);
	if (wpe_credit(p, out))
		return -1;
	const char *why = NULL;
	return wp_sol_feasible(p, out, &why) ? 1 : 0;
}

int wag_guarded_split(const ag *m, wag_run *r, const double *v,
		      const wp_sol *warm, wp_sol *out, wasp_error *err)
{
	if (wgl_begin(&r->env, 0))
		return werr(err, WASP_ENOMEM, "out of memory starting GLPK");
	if (setjmp(r->env.jb))
		return wgl_fault(&r->env, err);
	int rc = split(m, r, v, warm, out);
	wgl_end(&r->env);
	if (rc < 0)
		return werr(err, WASP_ENOMEM, "out of memory");
	return rc;
}

/* p with each class confined to the nodes of the parts in keep[] (per
 * part column; none for a class kept nowhere). */
wp_problem *wag_confine(const ag *m, const unsigned char *keep,
			wa_arena *ar)
{
	const wp_problem *p = m->p;
	wp_problem *q = wa_alloc(ar, sizeof *q);
	wp_class *cls = wa_calloc(ar, (size_t)p->nclasses + 1, sizeof *cls);
	if (!q || !cls)
		return NULL;
	*q = *p;
	q->classes = cls;
	int off = 0;
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		cls[c] = *cl;
		int *el = wa_calloc(ar, (size_t)cl->nelig + 1, sizeof *el);
		if (!el)
			return NULL;
		int ne = 0;
		for (int k = 0; k < cl->nelig; k++) {
			int j = m->xcol[(size_t)c * m->npart +
					m->part[cl->elig[k]]];
			if (j && keep[j])
				el[ne++] = cl->elig[k];
		}
		cls[c].elig = el;
		cls[c].nelig = ne;
		cls[c].off = off;
		off += ne;
	}
	q->nx = off;
	return q;
}

/* Copies a solution between p's slots and those of its confinement q:
 * to_q, from p into q (every pod of src lies inside q), else back. */
void wag_map_sol(const wp_problem *p, const wp_problem *q,
		 const wp_sol *src, wp_sol *dst, bool to_q)
{
	wp_x_clear(dst);
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *a = &p->classes[c], *b = &q->classes[c];
		for (int i = 0, k = 0; i < b->nelig; i++) {
			while (a->elig[k] != b->elig[i])
				k++;
			if (to_q)
				wp_x_set(dst, b->off + i, wp_x(src, a->off + k));
			else
				wp_x_set(dst, a->off + k, wp_x(src, b->off + i));
		}
	}
	memcpy(dst->admit, src->admit, (size_t)p->ngroups);
	memcpy(dst->reason, src->reason, sizeof *dst->reason * p->ngroups);
	for (int u = 0; u < p->nunits; u++) {
		dst->evict[u] = src->evict[u];
		dst->evict_by[u] = src->evict_by[u];
	}
	for (int i = 0; i < p->snap->npods; i++)
		dst->move_to[i] = src->move_to[i];
	dst->dra = NULL;
}
