/*
 * units.c -- disruption units and the capacity-by-priority rows
 * (units.h).  The greedy search for victims lives in greedy.c, next to
 * the placement machinery it reuses.
 */
#include "reduce/units.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i32(const void *va, const void *vb)
{
	int32_t a = *(const int32_t *)va, b = *(const int32_t *)vb;
	return (a > b) - (a < b);
}

static int unit_pdbs(wp_problem *p, wa_arena *a);

/* Units of a cluster have few priority levels: collected in a small
 * sorted table, found by bisection; more than this and they are sorted
 * whole. */
#define WPE_FEW_LEVELS 64

/* The distinct values of v[0..n), ascending, into v; their count. */
static int distinct_sorted(int32_t *v, int n)
{
	int32_t few[WPE_FEW_LEVELS];
	int nd = 0;
	for (int i = 0; i < n; i++) {
		int lo = 0, hi = nd;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (few[mid] < v[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nd && few[lo] == v[i])
			continue;
		if (nd == WPE_FEW_LEVELS)
			goto many;
		memmove(few + lo + 1, few + lo, (size_t)(nd - lo) * sizeof *few);
		few[lo] = v[i];
		nd++;
	}
	if (nd)
		memcpy(v, few, (size_t)nd * sizeof *v);
	return nd;
many:
	qsort(v, (size_t)n, sizeof *v, cmp_i32);
	nd = 0;
	for (int i = 0; i < n; i++)
		if (nd == 0 || v[nd - 1] != v[i])
			v[nd++] = v[i];
	return nd;
}

int wpe_units(wp_problem *p, wa_arena *a)
{
	const ws_snapshot *s = p->snap;
	int *gunit = calloc((size_t)s->ngroups + 1, sizeof *gunit);
	int *cnt = calloc((size_t)s->npods + 1, sizeof *cnt);
	int32_t *prios = calloc((size_t)s->npods + 1, sizeof *prios);
	int rc = -1;
	if (!gunit || !cnt || !prios)
		goto out;
	for (int g = 0; g < s->ngroups; g++)
		gunit[g] = -1;
	/* first pass: unit of each running pod, and unit sizes */
	int nu = 0;
	int *unit_of = cnt; /* reuse: unit of pod i, or -1 */
	int *sizes = calloc((size_t)s->npods + 1, sizeof *sizes);
	if (!sizes)
		goto out;
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *pod = &s->pods[i];
		unit_of[i] = -1;
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0)
			continue;
		int g = pod->group;
		if (g >= 0 && s->groups[g].disruption == WS_DISRUPT_ALL) {
			if (gunit[g] < 0)
				gunit[g] = nu++;
			unit_of[i] = gunit[g];
		} else {
			unit_of[i] = nu++;
		}
		sizes[unit_of[i]]++;
	}
	p->nunits = nu;
	p->units = wa_calloc(a, (size_t)nu + 1, sizeof *p->units);
	if (!p->units) {
		free(sizes);
		goto out;
	}
	/* the units' pod lists, one after the other in one block */
	size_t total = 0;
	for (int u = 0; u < nu; u++)
		total += (size_t)sizes[u];
	int *block = wa_calloc(a, total + 1, sizeof(int));
	if (!block) {
		free(sizes);
		goto out;
	}
	for (int u = 0; u < nu; u++) {
		p->units[u].pods = block;
		block += sizes[u];
	}
	free(sizes);
	for (int i = 0; i < s->npods; i++) {
		int u = unit_of[i];
		if (u < 0)
			continue;
		wp_unit *un = &p->units[u];
		const ws_pod *pod = &s->pods[i];
		if (un->npods == 0) {
			un->sg = pod->group;
			un->all = pod->group >= 0 &&
				  s->groups[pod->group].disruption ==
				      WS_DISRUPT_ALL;
			/* the group's priority for a group, else the pod's */
			un->priority = pod->group >= 0
					   ? s->groups[pod->group].priority
					   : pod->priority;
		}
		un->pods[un->npods++] = i;
	}
	/* weights: 1 + rank of the priority among distinct unit levels */
	for (int u = 0; u < nu; u++)
		prios[u] = p->units[u].priority;
	int nd = distinct_sorted(prios, nu);
	for (int u = 0; u < nu; u++) {
		int lo = 0, hi = nd - 1;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (prios[mid] < p->units[u].priority)
				lo = mid + 1;
			else
				hi = mid;
		}
		p->units[u].weight = 1 + lo;
	}
	rc = unit_pdbs(p, a);
out:
	free(gunit);
	free(cnt);
	free(prios);
	return rc;
}

static bool label_expr(const ws_expr *e, const ws_pod *pod)
{
	const char *v = NULL;
	for (int i = 0; i < pod->nlabels; i++)
		if (!strcmp(pod->labels[i].key, e->key)) {
			v = pod->labels[i].val;
			break;
		}
	bool in = false;
	for (int i = 0; v && i < e->nvals; i++)
		in = in || !strcmp(v, e->vals[i]);
	switch (e->op) {
	case WS_OP_IN: return in;
	case WS_OP_NOTIN: return !in;
	case WS_OP_EXISTS: return v != NULL;
	case WS_OP_DOESNOTEXIST: return v == NULL;
	default: return false;
	}
}

bool wpe_pdb_selects(const ws_pdb *b, const ws_pod *pod)
{
	if (!b->has_selector || strcmp(b->ns, pod->ns))
		return false;
	for (int i = 0; i < b->nsel; i++)
		if (!label_expr(&b->sel[i], pod))
			return false;
	return true;
}

static int pct_up(int pct, int n)
{
	return (int)(((long)pct * n + 99) / 100);
}

int wpe_pdb_allowed(const ws_snapshot *s, const ws_pdb *b)
{
	if (b->has_allowed)
		return b->allowed;
	if (b->has_healthy) {
		int a = b->current_healthy - b->desired_healthy;
		return a > 0 ? a : 0;
	}
	int healthy = 0;
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *pod = &s->pods[i];
		if (!pod->terminal && !ws_pod_pending(pod) &&
		    wpe_pdb_selects(b, pod))
			healthy++;
	}
	/* no controller in a snapshot: the expected count is what runs */
	int a = healthy;
	if (b->min_kind)
		a = healthy - (b->min_kind == 2 ? pct_up(b->min_val, healthy)
						: b->min_val);
	else if (b->max_kind)
		a = b->max_kind == 2 ? pct_up(b->max_val, healthy)
				     : b->max_val;
	return a > 0 ? a : 0;
}

int wpe_pdb_violations(const wp_problem *p, const wp_sol *s)
{
	int nb = p->snap->npdbs, v = 0;
	if (!nb || !s->evict)
		return 0;
	int *used = calloc((size_t)nb, sizeof *used);
	if (!used)
		return 0;
	for (int u = 0; u < p->nunits; u++)
		for (int j = 0; s->evict[u] && j < p->units[u].npdb; j++)
			used[p->units[u].pdb[j]] += p->units[u].pdbn[j];
	for (int j = 0; j < nb; j++)
		if (used[j] > p->pdb_allowed[j])
			v += used[j] - p->pdb_allowed[j];
	free(used);
	return v;
}

/* Budgets and, per unit, the budgets selecting its pods. */
static int unit_pdbs(wp_problem *p, wa_arena *a)
{
	const ws_snapshot *s = p->snap;
	int nb = s->npdbs;
	p->pdb_allowed = wa_calloc(a, (size_t)nb + 1, sizeof(int));
	if (!p->pdb_allowed)
		return -1;
	if (!nb)
		return 0;
	for (int j = 0; j < nb; j++)
		p->pdb_allowed[j] = wpe_pdb_allowed(s, &s->pdbs[j]);
	int *cnt = calloc((size_t)nb, sizeof *cnt);
	if (!cnt)
		return -1;
	for (int u = 0; u < p->nunits; u++) {
		wp_unit *un = &p->units[u];
		int k = 0;
		for (int j = 0; j < nb; j++) {
			cnt[j] = 0;
			for (int i = 0; i < un->npods; i++)
				cnt[j] += wpe_pdb_selects(
				    &s->pdbs[j], &s->pods[un->pods[i]]);
			k += cnt[j] > 0;
		}
		if (!k)
			continue;
		un->pdb = wa_calloc(a, (size_t)k, sizeof(int));
		un->pdbn = wa_calloc(a, (size_t)k, sizeof(int));
		if (!un->pdb || !un->pdbn) {
			free(cnt);
			return -1;
		}
		for (int j = 0; j < nb; j++)
			if (cnt[j]) {
				un->pdb[un->npdb] = j;
				un->pdbn[un->npdb++] = cnt[j];
			}
	}
	free(cnt);
	return 0;
}

bool wpe_never(const wp_problem *p, int g)
{
	const wp_group *wg = &p->groups[g];
	const ws_snapshot *s = p->snap;
	if (wg->sg >= 0)
		return s->groups[wg->sg].preempt == WS_PREEMPT_NEVER;
	/* lone pods: every pod of the pseudo group must allow preempting */
	for (int ci = 0; ci < wg->nclasses; ci++) {
		const wp_class *c = &p->classes[wg->classes[ci]];
		for (int i = 0; i < c->count; i++)
			if (s->pods[c->pods[i]].preempt == WS_PREEMPT_NEVER)
				return true;
	}
	return false;
}

bool wpe_may_preempt(const wp_problem *p, int g)
{
	const wp_group *wg = &p->groups[g];
	if (wg->invalid || wg->nclasses == 0 || p->no_preempt)
		return false;
	return !wpe_never(p, g);
}

int wpe_check_never(const wp_problem *p, const wp_sol *s, const char **why)
{
	int nres = p->nres, rc = 0;
	*why = NULL;
	if (!s->evict || p->nunits == 0)
		return 0;
	unsigned char *dirty = calloc((size_t)p->nnodes + 1, 1);
	int64_t *use = calloc((size_t)p->nnodes * nres + 1, sizeof *use);
	unsigned char *nv = calloc((size_t)p->ngroups + 1, 1);
	if (!dirty || !use || !nv) {
		*why = "out of memory checking the solution";
		rc = -1;
		goto out;
	}
	for (int u = 0; u < p->nunits; u++)
		for (int i = 0; s->evict[u] && i < p->units[u].npods; i++)
			dirty[p->snap->pods[p->units[u].pods[i]].node] = 1;
	for (int g = 0; g < p->ngroups; g++)
		nv[g] = wpe_never(p, g);
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *k = &p->classes[c];
		if (!nv[k->group])
			continue;
		WP_X_EACH(s, k, sl)
			for (int r = 0; r < nres; r++)
				use[(size_t)k->elig[sl - k->off] * nres + r] +=
				    (int64_t)wp_x(s, sl) * k->req[r];
	}
	/* moves free their room for every level and take it at every one */
	for (int i = 0; s->move_to && i < p->snap->npods; i++) {
		const ws_pod *pod = &p->snap->pods[i];
		int to = s->move_to[i];
		for (int r = 0; to >= 0 && pod->node >= 0 && r < nres; r++) {
			use[(size_t)pod->node * nres + r] -= pod->req[r];
			use[(size_t)to * nres + r] += pod->req[r];
		}
	}
	for (int n = 0; n < p->nnodes && !rc; n++)
		for (int r = 0; dirty[n] && r < nres && !rc; r++) {
			int64_t u = use[(size_t)n * nres + r];
			if (u > 0 && u > p->free[(size_t)n * nres + r]) {
				*why = "a group under preemptionPolicy Never uses "
				       "room that evictions freed";
				rc = -1;
			}
		}
out:
	free(dirty);
	free(use);
	free(nv);
	return rc;
}

int wpe_evicted_pods(const wp_problem *p, const wp_sol *s)
{
	int n = 0;
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u])
			n += p->units[u].npods;
	return n;
}

/* One contribution to a node's rows: placed pods (sign +1) of priority
 * prio, or an evicted pod (sign -1) of a unit of priority prio. */
typedef struct rent {
	int node;
	int sign;
	int32_t prio;
	const int64_t *req;
	int64_t cnt;
} rent;

static int cmp_rent(const void *va, const void *vb)
{
	const rent *a = va, *b = vb;
	return (a->node > b->node) - (a->node < b->node);
}

static int rent_push(rent **e, size_t *ne, size_t *cap, rent r)
{
	if (*ne == *cap) {
		rent *e2 = realloc(*e, 2 * *cap * sizeof **e);
		if (!e2)
			return -1;
		*e = e2;
		*cap *= 2;
	}
	(*e)[(*ne)++] = r;
	return 0;
}

/* The rows of the nodes in e[0..ne) (sorted here): 0 when they hold,
 * else -1 and *why. */
static int rows_hold(const wp_problem *p, rent *e, size_t ne,
		     const char **why)
{
	int nres = p->nres;
	qsort(e, ne, sizeof *e, cmp_rent);
	for (size_t i = 0; i < ne;) {
		size_t j = i;
		while (j < ne && e[j].node == e[i].node)
			j++;
		const int64_t *fr = p->free + (size_t)e[i].node * nres;
		/* rows at the level of every placed entry */
		for (size_t l = i; l < j; l++) {
			if (e[l].sign < 0)
				continue;
			int32_t lv = e[l].prio;
			for (int r = 0; r < nres; r++) {
				int64_t slack = fr[r];
				for (size_t m = i; m < j; m++) {
					if (e[m].sign > 0 && e[m].prio <= lv)
						slack -= e[m].cnt * e[m].req[r];
					else if (e[m].sign == -2 ||
						 (e[m].sign < 0 &&
						  e[m].prio < lv))
						slack += e[m].req[r];
				}
				if (slack < 0) {
					*why = "capacity freed by an eviction "
					       "is used by a pod of no higher "
					       "priority than the victim";
					return -1;
				}
			}
		}
		i = j;
	}
	return 0;
}

/* The rows on the nodes with an eviction, all of them (nodes NULL) or
 * those of nodes[0..nn). */
static int check_rows(const wp_problem *p, const wp_sol *s,
		      const int *nodes, int nn, const char **why)
{
	const ws_snapshot *snap = p->snap;
	*why = NULL;
	if (!s->evict || p->nunits == 0)
		return 0;
	unsigned char *dirty = calloc((size_t)p->nnodes + 1, 1);
	unsigned char *in = nodes ? calloc((size_t)p->nnodes + 1, 1) : NULL;
	size_t ne = 0, cap = 64;
	rent *e = malloc(cap * sizeof *e);
	int rc = 0;
	if (!dirty || !e || (nodes && !in))
		goto nomem;
	for (int i = 0; nodes && i < nn; i++)
		in[nodes[i]] = 1;
	for (int u = 0; u < p->nunits; u++) {
		if (!s->evict[u])
			continue;
		const wp_unit *un = &p->units[u];
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &snap->pods[un->pods[i]];
			if (in && !in[pod->node])
				continue;
			dirty[pod->node] = 1;
			if (rent_push(&e, &ne, &cap, (rent){pod->node, -1,
					un->priority, pod->req, 1}))
				goto nomem;
		}
	}
	/* placed pods on the dirty nodes: over the placed slots, or per
	 * node and class (a few nodes of many) */
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *k = &p->classes[c];
		int32_t prio = p->groups[k->group].priority;
		int end = k->off + k->nelig;
		for (int j = nodes ? 0 : wp_x_next(s, k->off, end);
		     nodes ? j < nn : j >= 0;
		     j = nodes ? j + 1 : wp_x_next(s, j + 1, end)) {
			int sl = nodes ? wp_slot(p, c, nodes[j]) : j;
			int n = nodes ? nodes[j] : k->elig[sl - k->off];
			int x = sl >= 0 ? wp_x(s, sl) : 0;
			if (x <= 0 || !dirty[n])
				continue;
			if (rent_push(&e, &ne, &cap,
				      (rent){n, 1, prio, k->req, x}))
				goto nomem;
		}
	}
	/* moves (--rebalance): a moved-in pod uses no freed room (it counts
	 * at every level: prio INT32_MIN); a moved-out pod frees its room
	 * for every level (sign -2) */
	for (int i = 0; s->move_to && i < snap->npods; i++) {
		int to = s->move_to[i];
		const ws_pod *pod = &snap->pods[i];
		for (int k = 0; to >= 0 && k < 2; k++) {
			int n = k ? to : pod->node;
			if (!dirty[n])
				continue;
			if (rent_push(&e, &ne, &cap, (rent){n, k ? 1 : -2,
					INT32_MIN, pod->req, 1}))
				goto nomem;
		}
	}
	rc = rows_hold(p, e, ne, why);
	goto out;
nomem:
	*why = "out of memory checking the solution";
	rc = -1;
out:
	free(dirty);
	free(in);
	free(e);
	return rc;
}

int wpe_check_rows(const wp_problem *p, const wp_sol *s, const char **why)
{
	return check_rows(p, s, NULL, 0, why);
}

int wpe_check_rows_on(const wp_problem *p, const wp_sol *s,
		      const int *nodes, int nn, const char **why)
{
	return check_rows(p, s, nodes, nn, why);
}

bool wpe_same_budgets(const wp_unit *x, const wp_unit *y)
{
	if (x->npdb != y->npdb)
		return false;
	for (int j = 0; j < x->npdb; j++)
		if (x->pdb[j] != y->pdb[j] || x->pdbn[j] != y->pdbn[j])
			return false;
	return true;
}

int wpe_credit(const wp_problem *p, wp_sol *s)
{
	unsigned char *on = calloc((size_t)p->nnodes + 1, 1);
	if (!on)
		return -1;
	for (int u = 0; u < p->nunits; u++) {
		s->evict_by[u] = -1;
		if (!s->evict[u])
			continue;
		const wp_unit *un = &p->units[u];
		for (int i = 0; i < un->npods; i++)
			on[p->snap->pods[un->pods[i]].node] = 1;
		for (int g = 0; g < p->ngroups && s->evict_by[u] < 0; g++) {
			const wp_group *wg = &p->groups[g];
			if (wg->priority <= un->priority)
				break; /* sorted by priority, descending */
			if (!s->admit[g] || !wpe_may_preempt(p, g))
				continue;
			for (int ci = 0; ci < wg->nclasses; ci++) {
				const wp_class *cl = &p->classes[wg->classes[ci]];
				WP_X_EACH(s, cl, sl)
					if (wp_x(s, sl) > 0 &&
					    on[cl->elig[sl - cl->off]])
						s->evict_by[u] = g;
			}
		}
		for (int i = 0; i < un->npods; i++)
			on[p->snap->pods[un->pods[i]].node] = 0;
		if (s->evict_by[u] < 0)
			s->evict[u] = 0;
	}
	free(on);
	return 0;
}

bool wpe_top_priority(const wp_problem *p, int32_t *maxp)
{
	bool any = false;
	*maxp = INT32_MIN;
	for (int g = 0; g < p->ngroups; g++)
		if (wpe_may_preempt(p, g)) {
			if (!any || p->groups[g].priority > *maxp)
				*maxp = p->groups[g].priority;
			any = true;
		}
	return any;
}

bool wpe_evict_range(const wp_problem *p, double *range, double *maxcost)
{
	int32_t top;
	bool any = wpe_top_priority(p, &top), some = false;
	*range = *maxcost = 0;
	for (int u = 0; any && u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (un->priority >= top || un->keep)
			continue;
		double c = (double)un->npods * un->weight;
		*range += c;
		if (c > *maxcost)
			*maxcost = c;
		some = true;
	}
	return some;
}
