/*
 * solution.c -- solver-neutral solution storage and checks: wp_sol
 * allocation and copies, wp_sol_feasible (a solution against the
 * problem: capacity, gangs, domains, evictions, moves, trees; the
 * independent check is verify.c), the slot arithmetic the solvers share,
 * and wp_fill_admission.
 */
#include "reduce/problem.h"
#include "reduce/units.h"

#include <stdlib.h>
#include <string.h>

int wp_moves(const wp_problem *p, const wp_sol *s)
{
	int n = 0;
	for (int i = 0; s->move_to && i < p->snap->npods; i++)
		n += s->move_to[i] >= 0;
	return n;
}

/* --------------------------------------------------------- solutions */

wp_sol *wp_sol_new(const wp_problem *p, wa_arena *a)
{
	wp_sol *s = wa_alloc(a, sizeof *s);
	if (!s)
		return NULL;
	s->nxpg = p->nx / WP_XPAGE + 1;
	s->xpg = wa_calloc(a, (size_t)s->nxpg, sizeof *s->xpg);
	s->xa = a;
	s->admit = wa_calloc(a, (size_t)p->ngroups + 1, 1);
	s->reason = wa_calloc(a, (size_t)p->ngroups + 1, sizeof *s->reason);
	s->evict = wa_calloc(a, (size_t)p->nunits + 1, 1);
	s->evict_by = wa_calloc(a, (size_t)p->nunits + 1, sizeof(int));
	s->move_to = wa_calloc(a, (size_t)p->snap->npods + 1, sizeof(int));
	if (!s->xpg || !s->admit || !s->reason || !s->evict || !s->evict_by ||
	    !s->move_to)
		return NULL;
	wp_sol_no_disruption(p, s);
	return s;
}

static int *x_page(wp_sol *s, int pg)
{
	if (!s->xpg[pg]) {
		s->xpg[pg] = wa_calloc(s->xa, WP_XPAGE, sizeof(int));
		if (!s->xpg[pg]) {
			s->nomem = true;
			return NULL;
		}
	}
	return s->xpg[pg];
}

int wp_x_set(wp_sol *s, int sl, int v)
{
	int *pg = s->xpg[sl / WP_XPAGE];
	if (!pg) {
		if (v == 0)
			return 0;
		if (!(pg = x_page(s, sl / WP_XPAGE)))
			return -1;
	}
	pg[sl % WP_XPAGE] = v;
	return 0;
}

int wp_x_add(wp_sol *s, int sl, int d)
{
	return wp_x_set(s, sl, wp_x(s, sl) + d);
}

int wp_x_next(const wp_sol *s, int from, int end)
{
	while (from < end) {
		const int *pg = s->xpg[from / WP_XPAGE];
		int stop = (from / WP_XPAGE + 1) * WP_XPAGE;
		if (stop > end)
			stop = end;
		if (pg)
			for (; from < stop; from++)
				if (pg[from % WP_XPAGE])
					return from;
		from = stop;
	}
	return -1;
}

void wp_x_clear(wp_sol *s)
{
	for (int i = 0; i < s->nxpg; i++)
		if (s->xpg[i])
			memset(s->xpg[i], 0, WP_XPAGE * sizeof(int));
}

long wp_x_placed(const wp_sol *s, const wp_class *cl)
{
	long n = 0;
	WP_X_EACH(s, cl, sl)
		n += wp_x(s, sl);
	return n;
}

int wp_x_from_dense(const wp_problem *p, wp_sol *s, const int *x)
{
	wp_x_clear(s);
	for (int sl = 0; sl < p->nx; sl++)
		if (x[sl] && wp_x_set(s, sl, x[sl]))
			return -1;
	return 0;
}

void wp_x_to_dense(const wp_problem *p, const wp_sol *s, int *x)
{
	memset(x, 0, (size_t)p->nx * sizeof *x);
	for (int sl = wp_x_next(s, 0, p->nx); sl >= 0;
	     sl = wp_x_next(s, sl + 1, p->nx))
		x[sl] = wp_x(s, sl);
}

void wp_sol_no_disruption(const wp_problem *p, wp_sol *s)
{
	for (int u = 0; u < p->nunits; u++) {
		s->evict[u] = 0;
		s->evict_by[u] = -1;
	}
	for (int i = 0; i < p->snap->npods; i++)
		s->move_to[i] = -1;
}

void wp_sol_copy(const wp_problem *p, wp_sol *dst, const wp_sol *src)
{
	for (int i = 0; i < dst->nxpg; i++) {
		if (!src->xpg[i]) {
			if (dst->xpg[i])
				memset(dst->xpg[i], 0, WP_XPAGE * sizeof(int));
		} else if (x_page(dst, i))
			memcpy(dst->xpg[i], src->xpg[i],
			       WP_XPAGE * sizeof(int));
	}
	dst->nomem |= src->nomem;
	memcpy(dst->admit, src->admit, (size_t)p->ngroups);
	memcpy(dst->reason, src->reason,
	       (size_t)p->ngroups * sizeof *dst->reason);
	if (dst->evict && src->evict) {
		memcpy(dst->evict, src->evict, (size_t)p->nunits);
		memcpy(dst->evict_by, src->evict_by,
		       (size_t)p->nunits * sizeof *dst->evict_by);
	}
	dst->dra = src->dra;
	if (dst->move_to && src->move_to)
		memcpy(dst->move_to, src->move_to,
		       (size_t)p->snap->npods * sizeof *dst->move_to);
}

/* The domain of comp h's key that the placed pods of its descendants use
 * (merged into *dom as in pin_dom). */
static void sol_dom(const wp_problem *p, const wp_sol *s, const wtp_key *k,
		    int h, int *dom)
{
	const wp_comp *c = &p->comps[h];
	for (int i = 0; i < c->nkids; i++) {
		int kid = c->kids[i];
		if (kid < 0) {
			sol_dom(p, s, k, -1 - kid, dom);
			continue;
		}
		const wp_group *wg = &p->groups[kid];
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *cl = &p->classes[wg->classes[ci]];
			WP_X_EACH(s, cl, sl) {
				int d = k->node_dom[cl->elig[sl - cl->off]];
				if (d < 0 || (*dom >= 0 && *dom != d))
					*dom = -2;
				else if (*dom == -1)
					*dom = d;
			}
		}
	}
}

static const char *tree_infeasible(const wp_problem *p, const wp_sol *s)
{
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (s->admit[g] && wg->pcomp &&
		    !wp_comp_admitted(p, s, wg->pcomp - 1))
			return "a group is admitted but its CompositePodGroup "
			       "is not";
	}
	for (int h = 0; h < p->ncomps; h++) {
		const wp_comp *c = &p->comps[h];
		if (!wp_comp_admitted(p, s, h))
			continue;
		if (c->invalid)
			return "an invalid CompositePodGroup is admitted";
		if (c->parent >= 0 && !wp_comp_admitted(p, s, c->parent))
			return "a CompositePodGroup is admitted but its "
			       "parent is not";
		if (c->key < 0 || !p->topo)
			continue;
		int dom = -1;
		sol_dom(p, s, &p->topo->keys[c->key], h, &dom);
		if (dom == -2 || (dom >= 0 && c->fixed_dom != -1 &&
				  c->fixed_dom != dom))
			return "a CompositePodGroup spans several domains of "
			       "its topology key";
	}
	return NULL;
}

/* Group g against its rules: counts, its key's one domain, admission;
 * its pods' requests added to use (per node and resource) unless NULL.
 * NULL when it holds, else why not. */
static const char *group_bad(const wp_problem *p, const wp_sol *s, int g,
			     int64_t *use)
{
	const wp_group *wg = &p->groups[g];
	const wtp_key *k = wg->key >= 0 && p->topo ? &p->topo->keys[wg->key]
						   : NULL;
	int nres = p->nres;
	long placed = 0;
	int dom = wg->fixed_dom;
	for (int ci = 0; ci < wg->nclasses; ci++) {
		const wp_class *c = &p->classes[wg->classes[ci]];
		long n = 0;
		WP_X_EACH(s, c, sl) {
			int x = wp_x(s, sl), node = c->elig[sl - c->off];
			if (x < 0)
				return "negative pod count";
			n += x;
			for (int r = 0; use && r < nres; r++)
				use[(size_t)node * nres + r] +=
				    (int64_t)x * c->req[r];
			if (!k)
				continue;
			int d = k->node_dom[node];
			if (d < 0 || dom == -2 || (dom >= 0 && d != dom))
				return "a group spans several domains of its "
				       "topology key";
			dom = d;
		}
		if (n > c->count)
			return "more pods placed than the class has";
		placed += n;
	}
	if (!s->admit[g] && placed > 0)
		return "a group that is not admitted has placed pods";
	if (s->admit[g] && wg->invalid)
		return "an invalid group is admitted";
	if (s->admit[g] && placed < wg->min_need)
		return "an admitted gang is placed below its minimum";
	if (placed > wg->size)
		return "a group places more pods than it has";
	return NULL;
}

/* Every evicted unit names an admitted group of higher priority; NULL
 * when so.  Their pods' requests leave use (per node) unless NULL. */
static const char *evictions_bad(const wp_problem *p, const wp_sol *s,
				 int64_t *use)
{
	int nres = p->nres;
	for (int u = 0; s->evict && u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (!s->evict[u])
			continue;
		if (s->evict_by[u] < 0 || s->evict_by[u] >= p->ngroups ||
		    !s->admit[s->evict_by[u]] ||
		    p->groups[s->evict_by[u]].priority <= un->priority)
			return "a unit is evicted by no admitted group of "
			       "higher priority";
		for (int i = 0; use && i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			for (int r = 0; r < nres; r++)
				use[(size_t)pod->node * nres + r] -=
				    pod->req[r];
		}
	}
	return NULL;
}

/* The limits on evictions as a whole. */
static const char *evict_limits_bad(const wp_problem *p, const wp_sol *s)
{
	if (s->evict && p->max_evictions > 0 &&
	    wpe_evicted_pods(p, s) > p->max_evictions)
		return "more evictions than --max-evictions allows";
	if (s->evict && p->no_preempt && wpe_evicted_pods(p, s) > 0)
		return "an eviction with preemption off";
	return NULL;
}

int wp_sol_feasible(const wp_problem *p, const wp_sol *s, const char **why)
{
	const char *w = NULL;
	int nres = p->nres;
	if (s->nomem) {
		if (why)
			*why = "out of memory storing the solution";
		return -1;
	}
	int64_t *use = calloc((size_t)p->nnodes * nres + 1, sizeof *use);
	if (!use) {
		if (why)
			*why = "out of memory checking the solution";
		return -1;
	}
	for (int g = 0; g < p->ngroups && !w; g++)
		w = group_bad(p, s, g, use);
	/* evictions free their pods' requests (for higher priorities only:
	 * wpe_check_rows) */
	if (!w)
		w = evictions_bad(p, s, use);
	/* moves (--rebalance): a moved pod leaves its node for its
	 * destination; it may not be evicted too */
	for (int i = 0; !w && s->move_to && i < p->snap->npods; i++) {
		int to = s->move_to[i];
		const ws_pod *pod = &p->snap->pods[i];
		if (to < 0)
			continue;
		if (to >= p->nnodes || pod->node < 0 || to == pod->node) {
			w = "a move has no valid destination";
			break;
		}
		for (int r = 0; r < nres; r++) {
			use[(size_t)pod->node * nres + r] -= pod->req[r];
			use[(size_t)to * nres + r] += pod->req[r];
		}
	}
	if (!w && s->move_to) {
		int inmc = 0, all = wp_moves(p, s);
		for (int c = 0; c < p->nmcls && !w; c++)
			for (int i = 0; i < p->mcls[c].count; i++) {
				int u = p->mcls[c].units[i];
				if (s->move_to[p->units[u].pods[0]] < 0)
					continue;
				inmc++;
				if (s->evict && s->evict[u])
					w = "a pod is moved and evicted";
			}
		if (!w && inmc != all)
			w = "a pod that may not move is moved";
		if (!w && p->max_moves > 0 && all > p->max_moves)
			w = "more moves than --max-moves allows";
	}
	/* a node over-committed before the plan (free < 0) is fine as long
	 * as the plan adds nothing there */
	for (size_t i = 0; !w && i < (size_t)p->nnodes * nres; i++)
		if (use[i] > p->free[i] && use[i] > 0)
			w = "a node is over capacity";
	free(use);
	if (!w && s->evict)
		wpe_check_rows(p, s, &w);
	if (!w)
		w = evict_limits_bad(p, s);
	if (!w)
		w = tree_infeasible(p, s);
	if (why)
		*why = w;
	return w ? -1 : 0;
}

int wp_sol_feasible_near(const wp_problem *p, const wp_sol *s,
			 const int *groups, int ng, const int *nodes, int nn,
			 const char **why)
{
	if (p->ncomps > 0 || wp_moves(p, s) > 0 || s->nomem)
		return wp_sol_feasible(p, s, why);
	const char *w = NULL;
	int nres = p->nres;
	int64_t *use = calloc((size_t)p->nnodes * nres + 1, sizeof *use);
	if (!use) {
		if (why)
			*why = "out of memory checking the solution";
		return -1;
	}
	for (int i = 0; i < ng && !w; i++)
		w = group_bad(p, s, groups[i], NULL);
	/* the nodes' use: per class its slot there (a few nodes of many),
	 * less evicted pods */
	for (int c = 0; !w && c < p->nclasses; c++) {
		const wp_class *cl = &p->classes[c];
		for (int i = 0; i < nn; i++) {
			int sl = wp_slot(p, c, nodes[i]);
			int x = sl >= 0 ? wp_x(s, sl) : 0;
			for (int r = 0; x > 0 && r < nres; r++)
				use[(size_t)nodes[i] * nres + r] +=
				    (int64_t)x * cl->req[r];
		}
	}
	if (!w)
		w = evictions_bad(p, s, use);
	for (int i = 0; !w && i < nn; i++)
		for (int r = 0; r < nres; r++) {
			size_t at = (size_t)nodes[i] * nres + r;
			if (use[at] > p->free[at] && use[at] > 0)
				w = "a node is over capacity";
		}
	free(use);
	if (!w && s->evict)
		wpe_check_rows_on(p, s, nodes, nn, &w);
	if (!w)
		w = evict_limits_bad(p, s);
	if (why)
		*why = w;
	return w ? -1 : 0;
}

int wp_slot(const wp_problem *p, int c, int n)
{
	const wp_class *cl = &p->classes[c];
	/* eligible everywhere: elig is 0 .. nnodes - 1 */
	if (cl->nelig == p->nnodes)
		return n >= 0 && n < p->nnodes ? cl->off + n : -1;
	int lo = 0, hi = cl->nelig - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (cl->elig[mid] == n)
			return cl->off + mid;
		if (cl->elig[mid] < n)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int wp_slot_class(const wp_problem *p, int s)
{
	/* the last class starting at or before s (an empty class shares
	 * its offset with the next) */
	int lo = 0, hi = p->nclasses - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (p->classes[mid].off <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

bool wp_node_empty(const wp_problem *p, int n)
{
	return p->snap->nodes[n].used[WS_RES_PODS] == 0;
}

int64_t wp_gcd(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static const char *const WAIT_ILP =
    "the ILP found no placement that admits this gang together with "
    "higher-priority work";
static const char *const WAIT_ILP_PODS =
    "the ILP found no room for these pods next to higher-priority work";

void wp_fill_admission(const wp_problem *p, const unsigned char *at0,
		       const wp_sol *warm, wp_sol *out)
{
	for (int gi = 0; gi < p->ngroups; gi++) {
		const wp_group *g = &p->groups[gi];
		long placed = 0;
		for (int i = 0; i < g->nclasses; i++)
			placed += wp_x_placed(out, &p->classes[g->classes[i]]);
		bool adm;
		if (g->invalid)
			adm = false;
		else if (g->gang)
			/* already at minCount: admitted while it could grow,
			 * as greedy does */
			adm = placed > 0 ? placed >= g->min_need
					 : g->min_need == 0 && at0 && at0[gi];
		else
			adm = placed > 0 || g->size == 0;
		out->admit[gi] = adm;
		out->reason[gi] = NULL;
		if (adm)
			continue;
		if (warm && warm->reason && warm->reason[gi])
			out->reason[gi] = warm->reason[gi];
		else if (g->invalid)
			out->reason[gi] = g->invalid;
		else if (g->nclasses &&
			 p->classes[g->classes[0]].nelig == 0 &&
			 p->classes[g->classes[0]].why_none)
			out->reason[gi] = p->classes[g->classes[0]].why_none;
		else
			out->reason[gi] = g->gang ? WAIT_ILP : WAIT_ILP_PODS;
	}
}
