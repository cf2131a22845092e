/*
 * domains.c -- free capacity per topology domain, before and after the
 * plan, for the text report (like Slurm's `scontrol show topology`;
 * doc/output.md, "The text report").
 *
 * One resource: the plan's value resource (--value), else the first
 * extended resource nodes offer (nvidia.com/gpu, ...), else cpu.  Every
 * topology key with more than one node in some domain gets its domains,
 * coarse keys first, at most WPL_DOMFREE_MAX rows per key.  "After"
 * takes the placements off and gives back what evictions free and what
 * moves carry away, node by node from the snapshot.
 */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

#include "model/topology.h"

/* Rows per key in the report; the rest are summed into one row. */
#define WPL_DOMFREE_MAX 32

static bool core_res(const char *r)
{
	return !strcmp(r, "cpu") || !strcmp(r, "memory") ||
	       !strcmp(r, "pods") || !strcmp(r, "ephemeral-storage") ||
	       !strncmp(r, "hugepages-", 10);
}

/* The resource of the table: index into s->res, -1 none. */
static int table_res(const ws_snapshot *s, const char *value_res)
{
	if (value_res && strcmp(value_res, "pods"))
		return ws_res_index(s, value_res);
	for (int r = 0; r < s->nres; r++)
		if (!core_res(s->res[r]))
			for (int n = 0; n < s->nnodes; n++)
				if (s->nodes[n].alloc[r] > 0)
					return r;
	return ws_res_index(s, "cpu");
}

/* Add sign * the request in resource r of pod (ns, name) to node. */
static void shift(const ws_snapshot *s, int r, int64_t *delta,
		  const char *ns, const char *pod, const char *node, int sign)
{
	int pi = ws_pod_index(s, ns, pod);
	int n = node ? ws_node_index(s, node) : -1;
	if (pi >= 0 && n >= 0)
		delta[n] += sign * s->pods[pi].req[r];
}

int wpl_domain_free(const ws_snapshot *s, const wtp_topo *t,
		    const char *value_res, wasp_plan *pl)
{
	int r = t ? table_res(s, value_res) : -1;
	if (r < 0)
		return 0;
	int rows = 0;
	for (int k = 0; k < t->nkeys; k++) {
		const wtp_key *key = &t->keys[k];
		bool wide = false;
		for (int d = 0; d < key->ndom && !wide; d++)
			wide = key->dom_nnodes[d] > 1;
		if (wide)
			rows += key->ndom < WPL_DOMFREE_MAX ? key->ndom
							    : WPL_DOMFREE_MAX + 1;
	}
	if (!rows)
		return 0;
	/* free after, per node, in milli-units: the plan's changes */
	int64_t *delta = calloc((size_t)s->nnodes + 1, sizeof *delta);
	pl->domfree = wa_calloc(pl->arena, (size_t)rows, sizeof *pl->domfree);
	pl->domfree_res = wa_strdup(pl->arena, s->res[r]);
	if (!delta || !pl->domfree || !pl->domfree_res) {
		free(delta);
		return -1;
	}
	for (int i = 0; i < pl->nplace; i++)
		shift(s, r, delta, pl->place[i].ns, pl->place[i].pod,
		      pl->place[i].node, -1);
	for (int i = 0; i < pl->nevict; i++)
		shift(s, r, delta, pl->evict[i].ns, pl->evict[i].pod,
		      pl->evict[i].node, 1);
	for (int i = 0; i < pl->nmove; i++) {
		shift(s, r, delta, pl->move[i].ns, pl->move[i].pod,
		      pl->move[i].from, 1);
		shift(s, r, delta, pl->move[i].ns, pl->move[i].pod,
		      pl->move[i].to, -1);
	}
	int m = 0;
	for (int k = 0; k < t->nkeys; k++) {
		const wtp_key *key = &t->keys[k];
		bool wide = false;
		for (int d = 0; d < key->ndom && !wide; d++)
			wide = key->dom_nnodes[d] > 1;
		if (!wide)
			continue;
		for (int d = 0; d < key->ndom; d++) {
			bool rest = d >= WPL_DOMFREE_MAX;
			wpl_domfree *x = &pl->domfree[m];
			if (!rest || d == WPL_DOMFREE_MAX) {
				x->key = key->label;
				x->domain = rest ? NULL : key->dom_name[d];
				m++;
			}
			x = &pl->domfree[m - 1];
			for (int i = 0; i < key->dom_nnodes[d]; i++) {
				const ws_node *nd = &s->nodes[key->dom_nodes[d][i]];
				int64_t fb = nd->alloc[r] - nd->used[r];
				x->nodes++;
				x->alloc += nd->alloc[r] / 1000.0;
				x->before += fb / 1000.0;
				x->after += (fb + delta[key->dom_nodes[d][i]]) /
					    1000.0;
			}
		}
	}
	free(delta);
	/* names live in the snapshot: copy them into the plan */
	for (int i = 0; i < m; i++) {
		wpl_domfree *x = &pl->domfree[i];
		if (!(x->key = wa_strdup(pl->arena, x->key)) ||
		    (x->domain && !(x->domain = wa_strdup(pl->arena, x->domain))))
			return -1;
	}
	pl->ndomfree = m;
	return 0;
}
