/*
 * heur.c -- the LP rounding heuristic run at GLPK's heuristic calls
 * (doc/formulation.md §6): groups placed by the LP values, trees
 * whole, undone on failure.
 */
#include "solve/ilp/ilp_int.h"

bool wilp_cancelled(const wilp_run *r)
{
	return r->o && r->o->cancel && *r->o->cancel;
}

static bool group_has_cols(const wm *m, int g)
{
	const wp_problem *p = m->p;
	const wp_group *wg = &p->groups[g];
	for (int ci = 0; ci < wg->nclasses; ci++) {
		const wp_class *cl = &p->classes[wg->classes[ci]];
		for (int k = 0; k < cl->nelig; k++)
			if (m->xcol[cl->off + k])
				return true;
	}
	return false;
}

/* Place pods of group g on the slots of domain d (-1: any) greedily,
 * preferring the slots the LP fills; returns the pods placed, which are
 * logged in r->hlog from *nlog on. */
static int heur_place(wilp_run *r, int g, int d, int *nlog)
{
	const wm *m = r->m;
	const wp_problem *p = m->p;
	const wp_group *wg = &p->groups[g];
	const wtp_key *key = wg->key >= 0 ? &p->topo->keys[wg->key] : NULL;
	int placed = 0;
	for (int ci = 0; ci < wg->nclasses; ci++) {
		const wp_class *cl = &p->classes[wg->classes[ci]];
		for (int pod = 0; pod < cl->count; pod++) {
			int bs = -1;
			double bscore = -1e300;
			for (int k = 0; k < cl->nelig; k++) {
				int s = cl->off + k, n = cl->elig[k];
				int j = m->xcol[s];
				if (!j || r->hx[s] >= m->xub[s])
					continue;
				if (d >= 0 && key->node_dom[n] != d)
					continue;
				bool out = false;
				for (int i = 0; i < r->nhc && !out; i++)
					out = p->topo->keys[r->hck[i]]
						  .node_dom[n] != r->hcd[i];
				if (out)
					continue;
				bool fits = true;
				for (int q = 0; q < p->nres && fits; q++)
					fits = cl->req[q] <= 0 ||
					       r->rem[(size_t)n * p->nres + q] >=
						   cl->req[q];
				if (!fits)
					continue;
				/* LP mass left here, then busy nodes first
				 * (packing), then the tighter node */
				double sc = r->lp[j] - r->hx[s];
				if (m->ucol[n] == 0 ||
				    r->rem[(size_t)n * p->nres] <
					p->free[(size_t)n * p->nres])
					sc += 0.01;
				sc -= 1e-9 * (double)r->rem[(size_t)n * p->nres];
				if (sc > bscore) {
					bscore = sc;
					bs = s;
				}
			}
			if (bs < 0)
				break;
			int n = cl->elig[bs - cl->off];
			r->hx[bs]++;
			for (int q = 0; q < p->nres; q++)
				r->rem[(size_t)n * p->nres + q] -= cl->req[q];
			r->hlog[(*nlog)++] = bs;
			placed++;
		}
	}
	return placed;
}

static void heur_undo(wilp_run *r, int from, int *nlog)
{
	const wp_problem *p = r->m->p;
	while (*nlog > from) {
		int s = r->hlog[--(*nlog)];
		int c = wp_slot_class(p, s);
		int n = p->classes[c].elig[s - p->classes[c].off];
		r->hx[s]--;
		for (int q = 0; q < p->nres; q++)
			r->rem[(size_t)n * p->nres + q] += p->classes[c].req[q];
	}
}

/* Placements one wilp_heur_round can make: every pending pod once. */
static size_t heur_log_size(const wp_problem *p)
{
	size_t n = 1;
	for (int c = 0; c < p->nclasses; c++)
		n += p->classes[c].count;
	return n;
}

/* One rounding pass: groups by priority, then by their LP admission
 * (perturbed by `noise` after the first pass), each put whole into the
 * first domain, in LP order, that takes it.  Leaves the counts in r->hx. */
/* Trees in the rounding: composite h inside the constraints in r->hc*:
 * its domains by their LP value (at most 3 tried), its children by their
 * LP admission, each placed in its own domains by LP value; kept when at
 * least minGroupCount children are in, else undone.  1: admitted. */
static int heur_tree(wilp_run *r, int h, int *nlog)
{
	const wm *m = r->m;
	const wp_problem *p = m->p;
	const wp_comp *c = &p->comps[h];
	if (c->invalid || c->fixed_dom == -2 || !m->hcol[h] ||
	    r->nhc >= WS_MAX_TREE_DEPTH + 2)
		return 0;
	int dom[3] = {-1, -1, -1}, nd = 1;
	if (c->key >= 0) {
		nd = 0;
		double dv[3] = {-1, -1, -1};
		for (int i = 0; i < m->hn[h]; i++) {
			int j = m->hbeg[h] + i, k = nd < 3 ? nd++ : 3;
			double v = r->lp[j];
			if (k == 3 && v <= dv[2])
				continue;
			if (k == 3)
				k = 2;
			while (k > 0 && dv[k - 1] < v) {
				dv[k] = dv[k - 1];
				dom[k] = dom[k - 1];
				k--;
			}
			dv[k] = v;
			dom[k] = m->cdom[j];
		}
	}
	int need = c->min_groups > 0 ? c->min_groups : 1;
	for (int o = 0; o < nd; o++) {
		int from = *nlog, got = c->nrunning, nhc = r->nhc;
		if (c->key >= 0) {
			r->hck[r->nhc] = c->key;
			r->hcd[r->nhc++] = dom[o];
		}
		/* children, largest LP admission first (insertion order) */
		int ord[64], no = 0;
		for (int i = 0; i < c->nkids && no < 64; i++) {
			int k = c->kids[i], col = k >= 0 ? m->acol[k]
							 : m->hcol[-1 - k];
			double v = col ? r->lp[col] : 0;
			int q = no++;
			while (q > 0) {
				int kk = ord[q - 1];
				int cc = kk >= 0 ? m->acol[kk] : m->hcol[-1 - kk];
				if ((cc ? r->lp[cc] : 0) >= v)
					break;
				ord[q] = ord[q - 1];
				q--;
			}
			ord[q] = k;
		}
		for (int i = 0; i < no; i++) {
			int k = ord[i];
			if (k < 0) {
				got += heur_tree(r, -1 - k, nlog);
				continue;
			}
			const wp_group *wg = &p->groups[k];
			if (wg->tas || !m->acol[k])
				continue;
			int gneed = wg->gang ? (wg->min_need > 0 ? wg->min_need
								 : 1)
					     : 1;
			int nt = m->tn[k];
			bool ok = false;
			for (int t = 0; t < (nt ? nt : 1) && !ok; t++) {
				int kf = *nlog;
				int d = nt ? m->cdom[m->tbeg[k] + t] : -1;
				if (heur_place(r, k, d, nlog) >= gneed)
					ok = true;
				else
					heur_undo(r, kf, nlog);
			}
			got += ok;
		}
		r->nhc = nhc;
		if (got >= need && got > 0)
			return 1;
		heur_undo(r, from, nlog);
	}
	return 0;
}

void wilp_heur_pass(wilp_run *r, double noise, uint64_t *rs)
{
	const wm *m = r->m;
	const wp_problem *p = m->p;
	memcpy(r->rem, p->free, sizeof *r->rem * (size_t)p->nnodes * p->nres);
	memset(r->hx, 0, sizeof *r->hx * (p->nx + 1));
	int ng = 0;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		/* annotated groups are left out (the rounding does not know
		 * them); trees are placed whole by heur_tree */
		if (!group_has_cols(m, g) || wg->tas)
			continue;
		double mass = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *cl = &p->classes[wg->classes[ci]];
			for (int k = 0; k < cl->nelig; k++)
				if (m->xcol[cl->off + k])
					mass += r->lp[m->xcol[cl->off + k]];
		}
		double adm = m->acol[g] ? r->lp[m->acol[g]] : 1;
		double key = adm + 1e-3 * mass / (1 + wg->size);
		if (noise > 0)
			key += noise * wrng_unit(rs);
		r->gkey[g] = key;
		int i = ng++;
		while (i > 0) {
			int h = r->gord[i - 1];
			if (p->groups[h].priority > wg->priority ||
			    (p->groups[h].priority == wg->priority &&
			     r->gkey[h] >= key))
				break;
			r->gord[i] = h;
			i--;
		}
		r->gord[i] = g;
	}
	int nlog = 0;
	if (r->hroot)
		memset(r->hroot, 0, (size_t)p->ncomps + 1);
	for (int oi = 0; oi < ng; oi++) {
		int g = r->gord[oi];
		const wp_group *wg = &p->groups[g];
		if (wg->pcomp) {
			int root = p->comps[wg->pcomp - 1].root;
			if (r->hroot && !r->hroot[root]) {
				r->hroot[root] = 1;
				r->nhc = 0;
				heur_tree(r, root, &nlog);
			}
			continue;
		}
		int need = wg->gang ? (wg->min_need > 0 ? wg->min_need : 1) : 1;
		int nd = m->tn[g];
		for (int i = 0; i < nd; i++) {
			int j = m->tbeg[g] + i, k = i;
			double v = r->lp[j];
			if (noise > 0)
				v += 0.25 * noise * wrng_unit(rs);
			while (k > 0 && r->dval[k - 1] < v) {
				r->dord[k] = r->dord[k - 1];
				r->dval[k] = r->dval[k - 1];
				k--;
			}
			r->dord[k] = j;
			r->dval[k] = v;
		}
		for (int i = 0; i < (nd ? nd : 1); i++) {
			int from = nlog;
			int d = nd ? m->cdom[r->dord[i]] : -1;
			if (heur_place(r, g, d, &nlog) >= need)
				break;
			heur_undo(r, from, &nlog);
		}
	}
}

/* LP rounding, several passes; the best by the current block's objective
 * is checked against every row and offered to GLPK. */
void wilp_heur_round(glp_tree *T, wilp_run *r, int passes)
{
	const wm *m = r->m;
	glp_prob *Q = glp_ios_get_prob(T);
	for (int j = 1; j <= m->ncols; j++)
		r->lp[j] = glp_get_col_prim(Q, j);
	uint64_t rs = 0x5eed + (uint64_t)r->nheur;
	double bestz = -INFINITY; /* the firstAvailable tier is negative */
	for (int k = 0; k < passes; k++) {
		/* a pass costs a walk over every slot: on a large model
		 * the passes alone can cross the deadline */
		if (k && (wdl_passed(r->w.deadline, WDL_MARGIN_PHASE_S) ||
			  wilp_cancelled(r)))
			break;
		wilp_heur_pass(r, k ? 0.5 : 0, &rs);
		if (wilp_sym_permute(m, r->hx))
			return;
		wilp_vec_from_x(m, r->hx, r->hv);
		if (wm_check(&m->b, r->hv, 0) != 0)
			continue;
		double z = (double)wilp_obj_at(m, r->block, r->hv);
		if (z > bestz) {
			bestz = z;
			memcpy(r->hbest, r->hv, sizeof *r->hv * (m->ncols + 1));
		}
	}
	if (bestz > -INFINITY && glp_ios_heur_sol(T, r->hbest) == 0)
		r->heur_found++;
}

/* The LP rounding heuristic's buffers; -1 on NOMEM. */
int wilp_heur_alloc(wilp_run *r, const wm *m)
{
	const wp_problem *p = m->p;
	r->m = m;
	r->lp = wa_calloc(m->ar, m->ncols + 1, sizeof *r->lp);
	r->hv = wa_calloc(m->ar, m->ncols + 1, sizeof *r->hv);
	r->hx = wa_calloc(m->ar, p->nx + 1, sizeof *r->hx);
	r->hlog = wa_calloc(m->ar, heur_log_size(p), sizeof(int));
	r->rem = wa_calloc(m->ar, (size_t)p->nnodes * p->nres + 1,
			   sizeof *r->rem);
	r->gord = wa_calloc(m->ar, p->ngroups + 1, sizeof *r->gord);
	r->gkey = wa_calloc(m->ar, p->ngroups + 1, sizeof *r->gkey);
	r->dord = wa_calloc(m->ar, m->ncols + 1, sizeof *r->dord);
	r->dval = wa_calloc(m->ar, m->ncols + 1, sizeof *r->dval);
	r->hbest = wa_calloc(m->ar, m->ncols + 1, sizeof *r->hbest);
	r->hroot = wa_calloc(m->ar, p->ncomps + 1, 1);
	return r->lp && r->hv && r->hx && r->hlog && r->rem && r->gord &&
		       r->gkey && r->dord && r->dval && r->hbest && r->hroot
		   ? 0
		   : -1;
}
