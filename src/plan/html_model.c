/*
 * html_model.c -- the picture behind the HTML report (html_int.h): the
 * topology as a tree of boxes and, per node, its main resource before
 * and after the plan, split by who uses it.
 *
 * Plan rows are matched to the snapshot by name; a row naming no pod or
 * node of the snapshot is counted (wh_pic.unmatched) and left out of the
 * picture, so a report of a plan for another snapshot still renders and
 * says so.
 */
#include "plan/html_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/dra.h"

/* Resources that are not accelerators. */
static bool standard_resource(const char *r)
{
	static const char *const std[] = {"pods", "cpu", "memory",
					  "ephemeral-storage", "storage"};
	for (size_t i = 0; i < sizeof std / sizeof std[0]; i++)
		if (!strcmp(r, std[i]))
			return true;
	return !strncmp(r, "hugepages-", 10);
}

/* The accelerator: the non-standard resource most nodes offer (ties by
 * name), or -1. */
static int pick_accel(const ws_snapshot *s)
{
	int best = -1, bestn = 0;
	for (int r = 0; r < s->nres; r++) {
		if (standard_resource(s->res[r]))
			continue;
		int n = 0;
		for (int i = 0; i < s->nnodes; i++)
			n += s->nodes[i].alloc[r] > 0;
		if (n > bestn ||
		    (n == bestn && n > 0 && strcmp(s->res[r], s->res[best]) < 0)) {
			best = r;
			bestn = n;
		}
	}
	return best;
}

/* ------------------------------------------------------------ usage */

typedef struct newrow {
	int node, kind, pods;
	int64_t amt;
} newrow;

static int cmp_newrow(const void *va, const void *vb)
{
	const newrow *a = va, *b = vb;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

static int64_t req_on(const wh_pic *pc, int pod, int node)
{
	int r = pc->nodes[node].res;
	return r == pc->s->nres ? 0 : pc->s->pods[pod].req[r];
}

/* Devices of node n (DRA): how many, and how many existing allocations
 * hold. */
static int node_devices(const ws_dra *d, int n, int *taken)
{
	int k = 0;
	*taken = 0;
	if (!d)
		return 0;
	for (int i = d->node_first[n]; i < d->node_first[n + 1]; i++) {
		k++;
		*taken += d->taken0[d->node_devs[i]] > 0;
	}
	return k;
}

/* Devices an eviction frees on device nodes: those of the allocated
 * claims every holder of which the plan evicts. */
static void evicted_devices(wh_pic *pc, const unsigned char *gone)
{
	const ws_dra *d = pc->s->dra;
	if (!d)
		return;
	for (int c = 0; c < d->nspecs; c++) {
		const wdr_spec *sp = &d->specs[c];
		bool all = sp->allocated && sp->nholders > 0;
		for (int h = 0; h < sp->nholders && all; h++)
			all = gone[sp->holders[h]];
		for (int k = 0; all && k < sp->nalloc; k++) {
			int n = d->devs[sp->alloc_dev[k]].reach.node;
			if (n < 0 || pc->nodes[n].res != pc->s->nres)
				continue;
			pc->nodes[n].evict += 1000;
			pc->nodes[n].run -= 1000;
		}
	}
}

static int count_changes(wh_pic *pc)
{
	const ws_snapshot *s = pc->s;
	const wasp_plan *p = pc->p;
	unsigned char *gone = wa_calloc(pc->a, (size_t)s->npods + 1, 1);
	if (!gone)
		return -1;
	for (int i = 0; i < p->nevict; i++) {
		int pi = ws_pod_index(s, p->evict[i].ns, p->evict[i].pod);
		int n = pi < 0 ? -1 : s->pods[pi].node;
		if (n < 0) {
			pc->unmatched++;
			continue;
		}
		gone[pi] = 1;
		pc->nodes[n].evicted++;
		int64_t q = req_on(pc, pi, n);
		pc->nodes[n].evict += q;
		pc->nodes[n].run -= q;
		pc->nodes[n].pods_after--;
	}
	for (int i = 0; i < p->nmove; i++) {
		const wpl_move *m = &p->move[i];
		int pi = ws_pod_index(s, m->ns, m->pod);
		int from = pi < 0 ? -1 : s->pods[pi].node;
		int to = m->to ? ws_node_index(s, m->to) : -1;
		if (from < 0 || to < 0) {
			pc->unmatched++;
			continue;
		}
		int64_t q = req_on(pc, pi, from);
		pc->nodes[from].move_out += q;
		pc->nodes[from].run -= q;
		pc->nodes[from].pods_after--;
		pc->nodes[to].move_in += req_on(pc, pi, to);
		pc->nodes[to].pods_after++;
	}
	evicted_devices(pc, gone);
	return 0;
}

/* The plan's placements, per node and group. */
static int count_placements(wh_pic *pc)
{
	const ws_snapshot *s = pc->s;
	const wasp_plan *p = pc->p;
	ws_map *gi = ws_map_new(pc->a);
	newrow *rows = wa_calloc(pc->a, (size_t)(p->nplace + p->nclaims) + 1,
				 sizeof *rows);
	if (!gi || !rows)
		return -1;
	for (int i = 0; i < p->nadmit; i++) {
		const char *k = wa_printf(pc->a, "%s/%s",
					  p->admit[i].ns ? p->admit[i].ns : "",
					  p->admit[i].group ? p->admit[i].group
							    : "");
		if (!k || ws_map_put(gi, k, i) == -2)
			return -1;
	}
	int nr = 0;
	for (int i = 0; i < p->nplace; i++) {
		const wpl_place *x = &p->place[i];
		int pi = ws_pod_index(s, x->ns, x->pod);
		int n = x->node ? ws_node_index(s, x->node) : -1;
		if (pi < 0 || n < 0) {
			pc->unmatched++;
			continue;
		}
		int kind = WH_LONE;
		if (x->group) {
			const char *k = wa_printf(pc->a, "%s/%s",
						  x->ns ? x->ns : "", x->group);
			if (!k)
				return -1;
			int g = ws_map_get(gi, k);
			if (g >= 0)
				kind = WH_GROUP + g;
		}
		rows[nr++] = (newrow){n, kind, 1, req_on(pc, pi, n)};
		pc->nodes[n].pods_after++;
	}
	/* devices the plan's claims take, on device nodes */
	for (int i = 0; i < p->nclaims; i++) {
		const wpl_claim *x = &p->claims[i];
		int n = x->node ? ws_node_index(s, x->node) : -1;
		if (n < 0 || pc->nodes[n].res != s->nres || !x->nresults)
			continue;
		const char *g = x->group;
		if (!g && x->pod) {
			int pi = ws_pod_index(s, x->ns, x->pod);
			if (pi >= 0 && s->pods[pi].group >= 0)
				g = s->groups[s->pods[pi].group].name;
		}
		int kind = WH_LONE;
		if (g) {
			const char *k = wa_printf(pc->a, "%s/%s",
						  x->ns ? x->ns : "", g);
			if (!k)
				return -1;
			int gi2 = ws_map_get(gi, k);
			if (gi2 >= 0)
				kind = WH_GROUP + gi2;
		}
		rows[nr++] = (newrow){n, kind, 0, 1000 * (int64_t)x->nresults};
	}
	qsort(rows, (size_t)nr, sizeof *rows, cmp_newrow);
	for (int i = 0; i < nr;) {
		int j = i, n = rows[i].node, k = 0;
		while (j < nr && rows[j].node == n)
			j++;
		wh_new *nw = wa_calloc(pc->a, (size_t)(j - i), sizeof *nw);
		if (!nw)
			return -1;
		for (int r = i; r < j; r++) {
			if (k && nw[k - 1].kind == rows[r].kind) {
				nw[k - 1].pods += rows[r].pods;
				nw[k - 1].amt += rows[r].amt;
			} else {
				nw[k++] = (wh_new){rows[r].kind, rows[r].pods,
						   rows[r].amt};
			}
		}
		pc->nodes[n].news = nw;
		pc->nodes[n].nnew = k;
		i = j;
	}
	return 0;
}

static int build_nodes(wh_pic *pc)
{
	const ws_snapshot *s = pc->s;
	pc->accel = pick_accel(s);
	pc->cpu = ws_res_index(s, "cpu");
	pc->nodes = wa_calloc(pc->a, (size_t)s->nnodes + 1, sizeof *pc->nodes);
	if (!pc->nodes)
		return -1;
	for (int i = 0; i < s->nnodes; i++) {
		const ws_node *nd = &s->nodes[i];
		wh_node *w = &pc->nodes[i];
		int taken, ndev = node_devices(s->dra, i, &taken);
		w->res = pc->accel >= 0 && nd->alloc[pc->accel] > 0 ? pc->accel
			 : ndev > 0 ? s->nres
			 : pc->cpu >= 0 ? pc->cpu : WS_RES_PODS;
		if (w->res == s->nres) {
			w->alloc = 1000 * (int64_t)ndev;
			w->run = 1000 * (int64_t)taken;
			pc->devices = true;
		} else {
			w->alloc = nd->alloc[w->res];
			w->run = nd->used[w->res];
		}
		w->unsched = !ws_node_schedulable(nd, NULL);
	}
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *q = &s->pods[i];
		if (!q->terminal && q->node >= 0) {
			pc->nodes[q->node].pods_before++;
			pc->nodes[q->node].pods_after++;
		}
	}
	pc->main = pc->accel >= 0 ? pc->accel
		   : pc->devices  ? s->nres
		   : pc->cpu >= 0 ? pc->cpu : WS_RES_PODS;
	if (count_changes(pc))
		return -1;
	return count_placements(pc);
}

/* ------------------------------------------------------------ the tree */

/* The domain of each kept key's value: ids[l][d] for key kept[l]. */
static int build_doms(wh_pic *pc, const wtp_topo *t)
{
	const ws_snapshot *s = pc->s;
	int *kept = wa_calloc(pc->a, (size_t)t->nkeys + 1, sizeof *kept);
	if (!kept)
		return -1;
	int nk = 0, nd = 1;
	for (int k = 0; k < t->nkeys; k++) {
		const wtp_key *key = &t->keys[k];
		bool multi = false;
		for (int d = 0; d < key->ndom && !multi; d++)
			multi = key->dom_nnodes[d] > 1;
		if (multi) {
			kept[nk++] = k;
			nd += key->ndom;
		}
	}
	pc->nlev = nk;
	pc->lev_key = wa_calloc(pc->a, (size_t)nk + 1, sizeof *pc->lev_key);
	pc->doms = wa_calloc(pc->a, (size_t)nd, sizeof *pc->doms);
	int **ids = wa_calloc(pc->a, (size_t)nk + 1, sizeof *ids);
	if (!pc->lev_key || !pc->doms || !ids)
		return -1;
	pc->doms[0] = (wh_dom){.parent = -1, .name = "cluster"};
	pc->ndoms = 1;
	for (int l = 0; l < nk; l++) {
		const wtp_key *key = &t->keys[kept[l]];
		pc->lev_key[l] = key->label;
		if (!(ids[l] = wa_calloc(pc->a, (size_t)key->ndom + 1,
					 sizeof(int))))
			return -1;
		for (int d = 0; d < key->ndom; d++) {
			const char *nm = strrchr(key->dom_name[d], '/');
			int parent = 0, first = key->dom_nodes[d][0];
			for (int u = l - 1; u >= 0 && !parent; u--) {
				int pd = t->keys[kept[u]].node_dom[first];
				if (pd >= 0)
					parent = ids[u][pd];
			}
			ids[l][d] = pc->ndoms;
			pc->doms[pc->ndoms++] = (wh_dom){
			    .key = key->label,
			    .name = nm ? nm + 1 : key->dom_name[d],
			    .level = l + 1,
			    .parent = parent};
		}
	}
	for (int n = 0; n < s->nnodes; n++) {
		pc->nodes[n].dom = 0;
		for (int l = nk - 1; l >= 0; l--) {
			int d = t->keys[kept[l]].node_dom[n];
			if (d >= 0) {
				pc->nodes[n].dom = ids[l][d];
				break;
			}
		}
	}
	return 0;
}

/* Names in natural order ("r9" before "r10"); ties by bytes. */
static int natcmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (a[0] == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (b[0] == '0' && isdigit((unsigned char)b[1]))
				b++;
			size_t la = strspn(a, "0123456789");
			size_t lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			break;
		a++;
		b++;
	}
	int c = (unsigned char)*a - (unsigned char)*b;
	return c ? c : strcmp(a0, b0);
}

typedef struct named {
	const char *name;
	int id;
} named;

static int cmp_named(const void *va, const void *vb)
{
	const named *a = va, *b = vb;
	int c = natcmp(a->name, b->name);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* Sort ids[0..n) by their names in natural order. */
static int sort_ids(wa_arena *a, int *ids, int n, const wh_pic *pc,
		    bool nodes)
{
	named *t = wa_calloc(a, (size_t)n + 1, sizeof *t);
	if (!t)
		return -1;
	for (int i = 0; i < n; i++)
		t[i] = (named){nodes ? pc->s->nodes[ids[i]].name
				     : pc->doms[ids[i]].name, ids[i]};
	qsort(t, (size_t)n, sizeof *t, cmp_named);
	for (int i = 0; i < n; i++)
		ids[i] = t[i].id;
	return 0;
}

/* Children lists, node counts and the free marks. */
static int link_doms(wh_pic *pc)
{
	const ws_snapshot *s = pc->s;
	for (int d = 0; d < pc->ndoms; d++) {
		pc->doms[d].free_before = pc->doms[d].free_after = true;
		if (pc->doms[d].parent >= 0)
			pc->doms[pc->doms[d].parent].nkids++;
	}
	for (int n = 0; n < s->nnodes; n++)
		pc->doms[pc->nodes[n].dom].nnodes++;
	for (int d = 0; d < pc->ndoms; d++) {
		wh_dom *x = &pc->doms[d];
		x->kids = wa_calloc(pc->a, (size_t)x->nkids + 1, sizeof(int));
		x->nodes = wa_calloc(pc->a, (size_t)x->nnodes + 1, sizeof(int));
		if (!x->kids || !x->nodes)
			return -1;
		x->nkids = x->nnodes = 0;
	}
	for (int d = 1; d < pc->ndoms; d++) {
		wh_dom *up = &pc->doms[pc->doms[d].parent];
		up->kids[up->nkids++] = d;
	}
	for (int n = 0; n < s->nnodes; n++) {
		const wh_node *w = &pc->nodes[n];
		wh_dom *x = &pc->doms[w->dom];
		x->nodes[x->nnodes++] = n;
		int64_t after = w->run + w->move_in;
		for (int i = 0; i < w->nnew; i++)
			after += w->news[i].amt;
		bool sum = w->res == pc->main;
		for (int d = w->dom; d >= 0; d = pc->doms[d].parent) {
			wh_dom *up = &pc->doms[d];
			up->total++;
			up->free_before &= w->pods_before == 0;
			up->free_after &= w->pods_after == 0;
			up->evicted += w->evicted;
			if (!sum)
				continue;
			up->alloc += w->alloc;
			up->before += w->run + w->evict + w->move_out;
			up->after += after;
		}
	}
	for (int d = 0; d < pc->ndoms; d++) {
		wh_dom *x = &pc->doms[d];
		if (sort_ids(pc->a, x->kids, x->nkids, pc, false) ||
		    sort_ids(pc->a, x->nodes, x->nnodes, pc, true))
			return -1;
	}
	return 0;
}

int wh_build(const ws_snapshot *s, const wasp_plan *p, wa_arena *a,
	     wh_pic *out, wasp_error *err)
{
	memset(out, 0, sizeof *out);
	out->a = a;
	out->s = s;
	out->p = p;
	wtp_topo *t = NULL;
	int rc = wtp_build(s, WASP_DOMAIN_PATH, a, &t, err);
	if (rc)
		return rc;
	if (build_nodes(out) || build_doms(out, t) || link_doms(out))
		return werr(err, WASP_ENOMEM,
			    "out of memory drawing the plan");
	return WASP_OK;
}
