/*
 * objective.c -- the lexicographic value of a solution
 * (doc/formulation.md §4): wp_evaluate fills the tiers, wp_value_cmp
 * compares them; preferred-level compactness (§9); and the packing bound
 * the restarts stop at (§11).
 */
#include "reduce/problem.h"
#include "reduce/units.h"
#include "model/dra.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void wp_evaluate(const wp_problem *p, const wp_sol *s, wp_value *v)
{
	memset(v, 0, sizeof *v);
	/* groups are sorted by priority, highest first */
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		int t = v->nprio - 1;
		if (t < 0 || (v->prio[t] != wg->priority &&
			      v->nprio < WP_MAX_TIERS)) {
			/* past WP_MAX_TIERS levels the lowest share a tier */
			t = v->nprio++;
			v->prio[t] = wg->priority;
		}
		if (!s->admit[g])
			continue;
		double w = 0;
		for (int ci = 0; ci < wg->nclasses; ci++) {
			const wp_class *c = &p->classes[wg->classes[ci]];
			long n = wp_x_placed(s, c);
			w += p->value_res < 0
				 ? (double)n
				 : (double)n * c->req[p->value_res] / 1000.0;
		}
		v->work[t] += w;
	}
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u])
			v->evictions += (double)p->units[u].npods *
					p->units[u].weight;
	v->pdb_violations = wpe_pdb_violations(p, s);
	v->moves = wp_moves(p, s);
	/* packing: nodes with neither bound nor placed pods, then domains */
	unsigned char *busy = calloc((size_t)p->nnodes + 1, 1);
	if (!busy) {
		v->packing = -1;
		return;
	}
	for (int n = 0; n < p->nnodes; n++)
		busy[n] = !wp_node_empty(p, n);
	for (int c = 0; c < p->nclasses; c++) {
		const wp_class *k = &p->classes[c];
		/* a group not admitted places nothing (wp_sol_feasible):
		 * its slots, most of them at scale, are not scanned */
		if (!s->admit[k->group])
			continue;
		WP_X_EACH(s, k, sl)
			if (wp_x(s, sl) > 0)
				busy[k->elig[sl - k->off]] = 1;
	}
	int nfree = 0;
	for (int n = 0; n < p->nnodes; n++)
		nfree += !busy[n];
	/* and whole free domains of two or more nodes, at every key of the
	 * topology, each counting one like a node (doc/formulation.md 4) */
	for (int k = 0; p->topo && k < p->topo->nkeys; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++) {
			bool all = key->dom_nnodes[d] >= 2;
			for (int i = 0; all && i < key->dom_nnodes[d]; i++)
				all = !busy[key->dom_nodes[d][i]];
			nfree += all;
		}
	}
	free(busy);
	v->packing = nfree;
	wp_compactness(p, s, v);
	v->alt_rank = s->dra ? (double)wdr_alt_rank(s->dra) : 0;
}

static int cmp_room_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x < y) - (x > y);
}

/* Fewest of the n rooms cap[0..n) (sorted here, largest first) whose
 * sum reaches need; n + 1 when all of them do not.  The node level has
 * one room per node, so this sorts up to 10,000+ values per resource. */
static int fewest_rooms(int64_t *cap, int n, int64_t need)
{
	if (need <= 0)
		return 0;
	qsort(cap, (size_t)n, sizeof *cap, cmp_room_desc);
	int64_t sum = 0;
	for (int i = 0; i < n; i++) {
		sum += cap[i];
		if (sum >= need)
			return i + 1;
	}
	return n + 1;
}

/* The free-able units of one level (nodes, or the domains of one key):
 * unit[n] is the unit node n belongs to, -1 when its room is free of
 * cost (busy anyway, or not in a counted unit); how many units can stay
 * free, at most, with demand dem[] placed. */
static int level_free_max(const wp_problem *p, const int *unit, int nunit,
			  const int64_t *dem, int64_t *cap)
{
	int most = 0;
	for (int r = 0; r < p->nres; r++) {
		int64_t need = dem[r];
		memset(cap, 0, (size_t)nunit * sizeof *cap);
		for (int n = 0; n < p->nnodes; n++) {
			int64_t f = p->free[(size_t)n * p->nres + r];
			if (unit[n] < 0)
				need -= f;
			else
				cap[unit[n]] += f;
		}
		int k = fewest_rooms(cap, nunit, need);
		if (k > most)
			most = k;
	}
	return most > nunit ? -1 : nunit - most;
}

double wp_packing_bound(const wp_problem *p, const wp_sol *s)
{
	if (p->snap->dra || p->nmcls > 0)
		return NAN;
	for (int u = 0; s->evict && u < p->nunits; u++)
		if (s->evict[u])
			return NAN;
	for (int i = 0; s->move_to && i < p->snap->npods; i++)
		if (s->move_to[i] >= 0)
			return NAN;
	int64_t *dem = calloc((size_t)p->nres + 1, sizeof *dem);
	if (!dem)
		return NAN;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (wg->tas && wg->tas->pref >= 0) {
			free(dem);
			return NAN;
		}
		for (int i = 0; i < wg->nclasses; i++) {
			const wp_class *c = &p->classes[wg->classes[i]];
			if (wp_x_placed(s, c) < c->count) {
				free(dem);
				return NAN;
			}
			for (int r = 0; r < p->nres; r++)
				dem[r] += c->req[r] * c->count;
		}
	}
	int *unit = malloc(((size_t)p->nnodes + 1) * sizeof *unit);
	int64_t *cap = malloc(((size_t)p->nnodes + 1) * sizeof *cap);
	double total = NAN;
	if (!unit || !cap)
		goto out;
	/* nodes: those without bound pods can stay free */
	int nu = 0;
	for (int n = 0; n < p->nnodes; n++)
		unit[n] = wp_node_empty(p, n) ? nu++ : -1;
	int f = level_free_max(p, unit, nu, dem, cap);
	if (f < 0)
		goto out;
	total = f;
	/* domains of two or more nodes, none with bound pods, per key */
	for (int k = 0; p->topo && k < p->topo->nkeys; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int n = 0; n < p->nnodes; n++)
			unit[n] = -1;
		int nd = 0;
		for (int d = 0; d < key->ndom; d++) {
			bool all = key->dom_nnodes[d] >= 2;
			for (int i = 0; all && i < key->dom_nnodes[d]; i++)
				all = wp_node_empty(p, key->dom_nodes[d][i]);
			if (!all)
				continue;
			for (int i = 0; i < key->dom_nnodes[d]; i++)
				unit[key->dom_nodes[d][i]] = nd;
			nd++;
		}
		f = level_free_max(p, unit, nd, dem, cap);
		if (f < 0) {
			total = NAN;
			goto out;
		}
		total += f;
	}
out:
	free(unit);
	free(cap);
	free(dem);
	return total;
}

bool wp_packing_proven(const wp_problem *p, const wp_sol *s)
{
	double b = wp_packing_bound(p, s);
	if (isnan(b))
		return false;
	wp_value v;
	wp_evaluate(p, s, &v);
	return v.packing >= b;
}

/* Preferred levels (doc/formulation.md §9): the levels are the topology
 * keys, coarse to fine (at most 8 counted); per level, the domains where
 * a group with a preferred level at or below it has eligible nodes but no
 * pod. */
void wp_compactness(const wp_problem *p, const wp_sol *s, wp_value *v)
{
	const wtp_topo *t = p->topo;
	int nk = t ? t->nkeys : 0;
	if (nk > 8)
		nk = 8;
	v->ncompact = nk;
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *wg = &p->groups[g];
		if (!wg->tas || wg->tas->pref < 0)
			continue;
		for (int k = wg->tas->pref; k >= 0; k = t->keys[k].parent) {
			if (k >= nk)
				continue;
			const wtp_key *key = &t->keys[k];
			unsigned char *st = calloc((size_t)key->ndom + 1, 1);
			if (!st)
				return;
			for (int ci = 0; ci < wg->nclasses; ci++) {
				const wp_class *cl = &p->classes[wg->classes[ci]];
				for (int j = 0; j < cl->nelig; j++) {
					int d = key->node_dom[cl->elig[j]];
					if (d < 0)
						continue;
					if (!st[d])
						st[d] = 1; /* eligible */
					if (wp_x(s, cl->off + j))
						st[d] = 2; /* used */
				}
			}
			for (int d = 0; d < key->ndom; d++)
				v->compact[k] += st[d] == 1;
			free(st);
		}
	}
}

int wp_value_cmp(const wp_value *a, const wp_value *b)
{
	int n = a->nprio > b->nprio ? a->nprio : b->nprio;
	for (int i = 0; i < n; i++) {
		double x = i < a->nprio ? a->work[i] : 0;
		double y = i < b->nprio ? b->work[i] : 0;
		if (x != y)
			return x > y ? 1 : -1;
	}
	if (a->alt_rank != b->alt_rank)
		return a->alt_rank < b->alt_rank ? 1 : -1;
	if (a->pdb_violations != b->pdb_violations)
		return a->pdb_violations < b->pdb_violations ? 1 : -1;
	if (a->evictions != b->evictions)
		return a->evictions < b->evictions ? 1 : -1;
	if (a->moves != b->moves)
		return a->moves < b->moves ? 1 : -1;
	for (int i = 0; i < a->ncompact && i < b->ncompact; i++)
		if (a->compact[i] != b->compact[i])
			return a->compact[i] > b->compact[i] ? 1 : -1;
	if (a->packing != b->packing)
		return a->packing > b->packing ? 1 : -1;
	return 0;
}
