/*
 * tree.c -- CompositePodGroup trees (doc/formulation.md §9): the a and
 * t columns of composites and the rows that tie them to their members.
 */
#include "solve/ilp/ilp_int.h"

const char *wilp_comp_name(const wp_problem *p, int h, char *buf,
			   size_t n)
{
	const ws_composite *c = &p->snap->comps[h];
	snprintf(buf, n, "%s/%s", c->ns, c->name);
	return buf;
}

/* Calls f on every x column (slot) of the groups below comp h. */
static void subtree_slots(const wm *m, int h, void (*f)(void *, int),
			  void *arg)
{
	const wp_problem *p = m->p;
	const wp_comp *c = &p->comps[h];
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k < 0) {
			subtree_slots(m, -1 - k, f, arg);
			continue;
		}
		const wp_group *g = &p->groups[k];
		for (int ci = 0; ci < g->nclasses; ci++) {
			const wp_class *cl = &p->classes[g->classes[ci]];
			for (int q = 0; q < cl->nelig; q++)
				if (m->xcol[cl->off + q])
					f(arg, cl->off + q);
		}
	}
}

typedef struct hacc {
	const wm *m;
	const wtp_key *key;
	unsigned char *has;  /* per domain: a slot there */
	int dom;             /* tdom rows: the domain collected */
	long room;
	int size;
	const int *x;        /* wilp_vec_tree: the counts */
} hacc;

static void mark_dom(void *arg, int s)
{
	hacc *a = arg;
	const wp_problem *p = a->m->p;
	const wp_class *cl = &p->classes[wp_slot_class(p, s)];
	int n = cl->elig[s - cl->off];
	int d = a->key->node_dom[n];
	if (d >= 0)
		a->has[d] = 1;
}

/* a[h] per composite (fixed at 0 when it cannot be admitted) and t[h,d]
 * per domain of its key where some descendant has a column. */
void wilp_cols_h(wm *m)
{
	const wp_problem *p = m->p;
	char hb[600];
	for (int h = 0; h < p->ncomps && !m->nomem; h++) {
		const wp_comp *c = &p->comps[h];
		wilp_comp_name(p, h, hb, sizeof hb);
		bool dead = c->invalid || c->fixed_dom == -2;
		m->hcol[h] = wm_col(&m->b, WM_H, h, -1, 0, dead ? 0 : 1,
				    wm_name(&m->b, "a[%s]", hb));
		if (c->key < 0)
			continue;
		const wtp_key *key = &p->topo->keys[c->key];
		hacc a = {m, key, wa_calloc(m->ar, key->ndom + 1, 1), -1, 0,
			  0, NULL};
		if (!a.has) {
			m->nomem = true;
			return;
		}
		subtree_slots(m, h, mark_dom, &a);
		m->hbeg[h] = m->ncols + 1;
		for (int d = 0; d < key->ndom; d++) {
			if (!a.has[d])
				continue;
			wm_col(&m->b, WM_S, h, d, 0, 1,
			       wm_name(&m->b, "t[%s,%s]", hb, key->dom_name[d]));
			m->hn[h]++;
		}
	}
}

/* The x columns of group g in domain d of key, node by node (the node
 * model's side of wilp_rows_tree_over). */
static long x_terms(void *ctx, const wp_group *g, int key, int d)
{
	wm *m = ctx;
	const wp_problem *p = m->p;
	const wtp_key *k = &p->topo->keys[key];
	long room = 0;
	for (int ci = 0; ci < g->nclasses; ci++) {
		const wp_class *cl = &p->classes[g->classes[ci]];
		long rc = 0;
		for (int q = 0; q < cl->nelig; q++) {
			int sl = cl->off + q;
			if (!m->xcol[sl] || k->node_dom[cl->elig[q]] != d)
				continue;
			wm_coef(&m->b, m->xcol[sl], 1);
			rc += m->xub[sl];
		}
		room += rc < cl->count ? rc : cl->count;
	}
	if (room > g->size)
		room = g->size;
	return room;
}

/* tup, tmin, tsel and tdom (doc/formulation.md §9) over the builder b:
 * the node model's and the part model's, which differ only in the x
 * columns of a group in a domain (t->terms). */
void wilp_rows_tree_over(wmb *b, const wp_problem *p,
			 const wilp_tree_cols *t)
{
	char hb[600], gb[600];
	for (int gi = 0; gi < p->ngroups && !b->nomem; gi++) {
		const wp_group *g = &p->groups[gi];
		if (!g->pcomp || !t->acol[gi])
			continue;
		wm_row_begin(b);
		wm_coef(b, t->acol[gi], 1);
		wm_coef(b, t->hcol[g->pcomp - 1], -1);
		wm_row_end(b, GLP_UP, 0, 0, wm_name(b, "tup[%s]",
			   wilp_group_name(p, gi, gb, sizeof gb)));
	}
	for (int h = 0; h < p->ncomps && !b->nomem; h++) {
		const wp_comp *c = &p->comps[h];
		wilp_comp_name(p, h, hb, sizeof hb);
		if (c->parent >= 0) {
			wm_row_begin(b);
			wm_coef(b, t->hcol[h], 1);
			wm_coef(b, t->hcol[c->parent], -1);
			wm_row_end(b, GLP_UP, 0, 0,
				   wm_name(b, "tup[%s]", hb));
		}
		wm_row_begin(b);
		for (int i = 0; i < c->nkids; i++) {
			int k = c->kids[i];
			wm_coef(b, k >= 0 ? t->acol[k] : t->hcol[-1 - k], 1);
		}
		int need = c->min_groups > 0 ? c->min_groups : 1;
		wm_coef(b, t->hcol[h], -need);
		wm_row_end(b, GLP_LO, -c->nrunning, 0,
			   wm_name(b, "tmin[%s]", hb));
		if (c->key < 0 || !t->hn[h])
			continue;
		const wtp_key *key = &p->topo->keys[c->key];
		wm_row_begin(b);
		for (int i = 0; i < t->hn[h]; i++)
			wm_coef(b, t->hbeg[h] + i, 1);
		wm_coef(b, t->hcol[h], -1);
		wm_row_end(b, GLP_FX, 0, 0, wm_name(b, "tsel[%s]", hb));
		/* one row per descendant group and domain: tighter LP than
		 * one row per subtree (the big-M is the group's own room) */
		for (int gi = 0; gi < p->ngroups && !b->nomem; gi++) {
			if (!wp_group_below(p, gi, h))
				continue;
			const wp_group *g = &p->groups[gi];
			wilp_group_name(p, gi, gb, sizeof gb);
			for (int i = 0; i < t->hn[h] && !b->nomem; i++) {
				int j = t->hbeg[h] + i, d = b->cdom[j];
				wm_row_begin(b);
				long room = t->terms(t->ctx, g, c->key, d);
				wm_coef(b, j, -(double)room);
				wm_row_end(b, GLP_UP, 0, 0,
				    wm_name(b, "tdom[%s,%s,%s]", hb, gb,
					    key->dom_name[d]));
			}
		}
	}
}

void wilp_rows_tree(wm *m)
{
	wilp_tree_cols t = {m->acol, m->hcol, m->hbeg, m->hn, x_terms, m};
	wilp_rows_tree_over(&m->b, m->p, &t);
}

/* Tree columns from the group admissions in v (wilp_vec_from_x). */
static bool h_adm(const wm *m, const double *v, int h)
{
	const wp_comp *c = &m->p->comps[h];
	int n = c->nrunning;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k >= 0)
			n += m->acol[k] && v[m->acol[k]] > 0.5;
		else
			n += h_adm(m, v, -1 - k);
	}
	return n > 0 && n >= c->min_groups;
}

static void dom_of_slot(void *arg, int s)
{
	hacc *a = arg;
	const wp_problem *p = a->m->p;
	const wp_class *cl = &p->classes[wp_slot_class(p, s)];
	if (a->room == 0 && a->x[s] > 0) {
		a->dom = a->key->node_dom[cl->elig[s - cl->off]];
		a->room = 1;
	}
}

void wilp_vec_tree(const wm *m, const int *x, double *v)
{
	const wp_problem *p = m->p;
	for (int h = 0; h < p->ncomps; h++) {
		bool on = h_adm(m, v, h);
		v[m->hcol[h]] = on;
		if (!on || !m->hn[h])
			continue;
		hacc a = {m, &p->topo->keys[p->comps[h].key], NULL, -1, 0, 0,
			  x};
		subtree_slots(m, h, dom_of_slot, &a);
		for (int i = 0; i < m->hn[h]; i++)
			if (m->cdom[m->hbeg[h] + i] == a.dom)
				v[m->hbeg[h] + i] = 1;
	}
}
