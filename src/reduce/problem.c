/*
 * problem.c -- the reduction's driver: snapshot + topology -> wp_problem
 * (problem.h; doc/formulation.md §1 "Data").
 *
 * reduce() runs the phases in order: problem groups and pod classes
 * (classes.c), each group's gang minimum, key and pinned domain
 * (domains.c), eligible nodes per class (classes.c), slot offsets, the
 * topology annotations and exclusively held domains, CompositePodGroups
 * (domains.c).  wp_reduce then adds the disruption units (units.c), the
 * --protect marks and the move classes (movable.c).  Solutions and their
 * value live in solution.c and objective.c.
 */
#include "reduce/problem_int.h"
#include "reduce/units.h"
#include "reduce/movable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int reduce(wp_red *r, const wasp_options *o)
{
	const ws_snapshot *s = r->s;
	wp_problem *p = r->p;
	wp_proto *pr;
	int np, nc;
	wp_cbuild *cb;
	if (wp_make_protos(r, &pr, &np))
		return -1;
	if (wp_make_classes(r, pr, np, &cb, &nc))
		return -1;

	p->ngroups = np;
	p->nclasses = nc;
	p->groups = wa_calloc(r->a, (size_t)np + 1, sizeof *p->groups);
	p->classes = wa_calloc(r->a, (size_t)nc + 1, sizeof *p->classes);
	if (!p->groups || !p->classes)
		return -1;
	for (int g = 0; g < np; g++) {
		wp_group *wg = &p->groups[g];
		wg->sg = pr[g].sg;
		wg->size = pr[g].npods;
		wg->priority = pr[g].prio;
		wg->key = -1;
		wg->fixed_dom = -1;
		if (wg->sg >= 0 && wp_fill_group(r, wg))
			return -1;
	}
	for (int c = 0; c < nc; c++) {
		wp_class *k = &p->classes[c];
		k->group = cb[c].group;
		k->count = cb[c].n;
		k->pods = wa_calloc(r->a, (size_t)cb[c].n, sizeof(int));
		if (!k->pods)
			return -1;
		memcpy(k->pods, cb[c].pods, (size_t)cb[c].n * sizeof(int));
		k->req = s->pods[cb[c].pods[0]].req;
		p->groups[k->group].nclasses++;
	}
	for (int g = 0; g < np; g++) {
		wp_group *wg = &p->groups[g];
		wg->classes = wa_calloc(r->a, (size_t)wg->nclasses + 1,
					sizeof(int));
		if (!wg->classes)
			return -1;
		wg->nclasses = 0;
	}
	for (int c = 0; c < nc; c++) {
		wp_group *wg = &p->groups[p->classes[c].group];
		wg->classes[wg->nclasses++] = c;
	}
	int threads = 1;
#ifdef _OPENMP
	threads = o->threads > 0 ? o->threads : omp_get_max_threads();
#endif
	if (wp_eligibility(r, cb, nc, threads))
		return -1;
	int off = 0;
	for (int c = 0; c < nc; c++) {
		p->classes[c].off = off;
		off += p->classes[c].nelig;
	}
	p->nx = off;
	if (wp_build_excl(r))
		return -1;
	return wp_build_comps(r);
}

int wp_reduce(const ws_snapshot *s, const wtp_topo *t, const wasp_options *o,
	      wa_arena *a, wp_problem **out, wasp_error *err)
{
	*out = NULL;
	int value_res = -1;
	if (o && o->value_resource && strcmp(o->value_resource, "pods")) {
		value_res = ws_res_index(s, o->value_resource);
		if (value_res < 0) {
			char list[256] = "";
			size_t len = 0;
			for (int k = 0; k < s->nres && len < sizeof list - 1;
			     k++) {
				int w = snprintf(list + len, sizeof list - len,
						 "%s%s", k ? ", " : "",
						 s->res[k]);
				if (w < 0)
					break;
				len += (size_t)w;
			}
			return werr(err, WASP_EINVAL,
				    "unknown value resource '%s': no pod "
				    "requests it (resources: %s)",
				    o->value_resource, list);
		}
	}
	wp_problem *p = wa_alloc(a, sizeof *p);
	wa_arena *tmp = wa_new();
	if (!p || !tmp) {
		wa_destroy(tmp);
		return werr(err, WASP_ENOMEM, "out of memory in the reduction");
	}
	p->snap = s;
	p->topo = t;
	p->nres = s->nres;
	p->nnodes = s->nnodes;
	p->value_res = value_res;
	p->arena = a;
	p->free = wa_calloc(a, (size_t)s->nnodes * s->nres + 1,
			    sizeof *p->free);
	int rc = p->free ? 0 : -1;
	for (int n = 0; !rc && n < s->nnodes; n++)
		for (int k = 0; k < s->nres; k++)
			p->free[(size_t)n * s->nres + k] =
			    s->nodes[n].alloc[k] - s->nodes[n].used[k];
	wp_red r = {.s = s, .t = t, .a = a, .tmp = tmp, .p = p,
		    .nres = s->nres};
	wasp_options def;
	if (!o) {
		memset(&def, 0, sizeof def); /* threads 0: runtime default */
		o = &def;
	}
	if (!rc)
		rc = reduce(&r, o);
	p->no_preempt = o->preempt == WASP_PREEMPT_NEVER;
	p->max_evictions = o->max_evictions;
	if (!rc)
		rc = wpe_units(p, a);
	if (!rc && o->protect && *o->protect) {
		ws_expr *sel;
		int nsel = wrb_selector(a, o->protect, &sel);
		if (nsel < 0) {
			wa_destroy(tmp);
			return werr(err, WASP_EINVAL, "bad --protect selector "
				    "'%s' (want key=value, key!=value, key or "
				    "!key, comma-separated)", o->protect);
		}
		for (int u = 0; u < p->nunits; u++)
			for (int i = 0; i < p->units[u].npods; i++)
				if (wrb_selects(sel, nsel,
						&s->pods[p->units[u].pods[i]]))
					p->units[u].keep = true;
	}
	wa_destroy(tmp);
	/* --rebalance: move classes, after --protect marked its units */
	if (!rc && o->rebalance)
		rc = wrb_classes(p, o, a);
	if (rc)
		return werr(err, WASP_ENOMEM, "out of memory in the reduction");
	*out = p;
	return WASP_OK;
}
