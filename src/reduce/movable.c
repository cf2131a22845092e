/*
 * movable.c -- which running pods may move (--rebalance, --protect) and
 * the move classes the ILP offers them (movable.h).
 */
#include "reduce/movable.h"

#include <stdlib.h>
#include <string.h>

#include "model/dra.h"
#include "model/quantity.h"
#include "reduce/units.h"

int wrb_selector(wa_arena *a, const char *text, ws_expr **out)
{
	*out = NULL;
	if (!text || !*text)
		return 0;
	int n = 1;
	for (const char *c = text; *c; c++)
		n += *c == ',';
	ws_expr *e = wa_calloc(a, (size_t)n, sizeof *e);
	if (!e)
		return -1;
	int k = 0;
	const char *p = text;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *item = wa_strndup(a, p, len);
		if (!item || !len)
			return -1;
		ws_expr *x = &e[k++];
		char *op = strstr(item, "!=");
		char *eq = strchr(item, '=');
		if (op) {
			*op = 0;
			x->op = WS_OP_NOTIN;
			eq = op + 2;
		} else if (eq) {
			*eq++ = 0;
			if (*eq == '=')
				eq++;
			x->op = WS_OP_IN;
		} else if (item[0] == '!') {
			x->op = WS_OP_DOESNOTEXIST;
			item++;
		} else {
			x->op = WS_OP_EXISTS;
		}
		if (!*item || (eq && strpbrk(eq, "=!")))
			return -1;
		x->key = item;
		if (eq) {
			x->vals = wa_calloc(a, 1, sizeof *x->vals);
			if (!x->vals)
				return -1;
			x->vals[0] = eq;
			x->nvals = 1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*out = e;
	return k;
}

bool wrb_selects(const ws_expr *sel, int n, const ws_pod *pod)
{
	for (int i = 0; i < n; i++) {
		const ws_expr *e = &sel[i];
		const char *v = NULL;
		for (int j = 0; j < pod->nlabels && !v; j++)
			if (!strcmp(pod->labels[j].key, e->key))
				v = pod->labels[j].val;
		bool in = v && e->nvals && !strcmp(v, e->vals[0]);
		bool ok = e->op == WS_OP_IN ? in
			  : e->op == WS_OP_NOTIN ? !in
			  : e->op == WS_OP_EXISTS ? v != NULL
						  : v == NULL;
		if (!ok)
			return false;
	}
	return n > 0;
}

bool wrb_movable(const ws_snapshot *s, int pi, const ws_expr *sel,
		 int nsel)
{
	const ws_pod *pod = &s->pods[pi];
	const ws_group *g = pod->group >= 0 ? &s->groups[pod->group] : NULL;
	if (pod->terminal || pod->node < 0)
		return false;
	if (g && (g->disruption == WS_DISRUPT_ALL ||
		  (g->topo_key && *g->topo_key) || g->pcomp || g->tas))
		return false;
	if (s->dra && s->dra->pods && s->dra->pods[pi].n > 0)
		return false;
	return !(nsel && wrb_selects(sel, nsel, pod));
}

/* ------------------------------------------------ move classes (ILP) */

/* A shape: requests and node predicates of a representative pod, with
 * its destination candidates (roomiest first, one spare for home). */
typedef struct mshape {
	int pod;
	int *dest;
	int ndest;
} mshape;

static int64_t shape_fit(const wp_problem *p, const int64_t *req, int n)
{
	int64_t best = INT32_MAX;
	for (int r = 0; r < p->nres; r++) {
		int64_t f = p->free[(size_t)n * p->nres + r];
		if (req[r] <= 0)
			continue;
		if (f < req[r])
			return 0;
		if (f / req[r] < best)
			best = f / req[r];
	}
	return best;
}

static int shape_dests(const wp_problem *p, mshape *sh, wa_arena *a)
{
	const ws_snapshot *s = p->snap;
	const ws_pod *pod = &s->pods[sh->pod];
	int cap = WP_MAX_MOVE_DESTS + 1;
	int64_t *fit = wa_calloc(a, (size_t)cap, sizeof *fit);
	sh->dest = wa_calloc(a, (size_t)cap, sizeof *sh->dest);
	if (!fit || !sh->dest)
		return -1;
	sh->ndest = 0;
	for (int n = 0; n < s->nnodes; n++) {
		const ws_node *nd = &s->nodes[n];
		if (nd->used[WS_RES_PODS] <= 0 ||
		    !ws_node_schedulable(nd, NULL) ||
		    !ws_pod_fits_node_static(pod, nd, NULL))
			continue;
		int64_t f = shape_fit(p, pod->req, n);
		if (f <= 0)
			continue;
		/* keep the cap roomiest, ties to the lower index */
		int k = sh->ndest < cap ? sh->ndest++ : cap;
		if (k == cap) {
			if (f <= fit[cap - 1])
				continue;
			k = cap - 1;
		}
		while (k > 0 && fit[k - 1] < f) {
			fit[k] = fit[k - 1];
			sh->dest[k] = sh->dest[k - 1];
			k--;
		}
		fit[k] = f;
		sh->dest[k] = n;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int wrb_classes(wp_problem *p, const wasp_options *o, wa_arena *a)
{
	const ws_snapshot *s = p->snap;
	int nn = p->nnodes, nres = p->nres;
	p->max_moves = o && o->max_moves > 0 ? o->max_moves : 0;
	p->unit_mc = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	int *first = wa_calloc(a, (size_t)nn + 1, sizeof(int));
	int *next = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	int *rep = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	int *cnt = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	int *shp = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	unsigned char *useful = wa_calloc(a, (size_t)nn + 1, 1);
	mshape *sh = wa_calloc(a, (size_t)p->nunits + 1, sizeof *sh);
	if (!p->unit_mc || !first || !next || !rep || !cnt || !shp ||
	    !useful || !sh)
		return -1;
	/* a move helps only where some pending pod could go */
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++)
			useful[p->classes[c].elig[k]] = 1;
	for (int n = 0; n < nn; n++)
		first[n] = -1;
	int nc = 0, nsh = 0;
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		p->unit_mc[u] = -1;
		if (un->all || un->npods != 1 || un->keep ||
		    !wrb_movable(s, un->pods[0], NULL, 0))
			continue;
		const ws_pod *pod = &s->pods[un->pods[0]];
		if (!useful[pod->node])
			continue;
		int c = first[pod->node];
		for (; c >= 0; c = next[c]) {
			const wp_unit *x = &p->units[rep[c]];
			const ws_pod *q = &s->pods[x->pods[0]];
			if (x->priority == un->priority &&
			    !memcmp(q->req, pod->req, sizeof *q->req * nres) &&
			    wp_same_static(q, pod) && wpe_same_budgets(x, un))
				break;
		}
		if (c < 0) {
			c = nc++;
			rep[c] = u;
			next[c] = first[pod->node];
			first[pod->node] = c;
			int k = 0;
			while (k < nsh &&
			       !(!memcmp(s->pods[sh[k].pod].req, pod->req,
					 sizeof *pod->req * nres) &&
				 wp_same_static(&s->pods[sh[k].pod], pod)))
				k++;
			if (k == nsh) {
				sh[nsh].pod = un->pods[0];
				if (shape_dests(p, &sh[nsh], a))
					return -1;
				nsh++;
			}
			shp[c] = k;
		}
		p->unit_mc[u] = c;
		cnt[c]++;
	}
	p->mcls = wa_calloc(a, (size_t)nc + 1, sizeof *p->mcls);
	if (!p->mcls)
		return -1;
	int nkept = 0;
	int *newid = wa_calloc(a, (size_t)nc + 1, sizeof(int));
	if (!newid)
		return -1;
	for (int c = 0; c < nc; c++) {
		const wp_unit *un = &p->units[rep[c]];
		const ws_pod *pod = &s->pods[un->pods[0]];
		const mshape *m = &sh[shp[c]];
		wp_mclass *mc = &p->mcls[nkept];
		memset(mc, 0, sizeof *mc); /* a skipped class may have left
					      its fields here */
		newid[c] = -1;
		mc->elig = wa_calloc(a, (size_t)m->ndest + 1, sizeof(int));
		mc->units = wa_calloc(a, (size_t)cnt[c] + 1, sizeof(int));
		if (!mc->elig || !mc->units)
			return -1;
		mc->home = pod->node;
		mc->req = pod->req;
		mc->priority = un->priority;
		mc->elig[mc->nelig++] = pod->node;
		for (int i = 0; i < m->ndest &&
				mc->nelig <= WP_MAX_MOVE_DESTS; i++)
			if (m->dest[i] != pod->node)
				mc->elig[mc->nelig++] = m->dest[i];
		if (mc->nelig < 2)
			continue; /* nowhere to go */
		qsort(mc->elig, (size_t)mc->nelig, sizeof(int), cmp_int);
		for (int i = 0; i < mc->nelig; i++)
			if (mc->elig[i] == mc->home)
				mc->homek = i;
		newid[c] = nkept++;
	}
	for (int u = 0; u < p->nunits; u++) {
		int c = p->unit_mc[u];
		if (c < 0)
			continue;
		c = p->unit_mc[u] = newid[c];
		if (c >= 0)
			p->mcls[c].units[p->mcls[c].count++] = u;
	}
	p->nmcls = nkept;
	return 0;
}
