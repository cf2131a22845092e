/*
 * verify.c -- the independent checker: a plan against the snapshot (the
 * driver: name tables, the report, waiting entries, wv_check).
 *
 * Deliberately shares nothing with the reduction or the solvers: pods,
 * nodes and groups are looked up by name in hash tables built here; node
 * fit uses the snapshot's static predicates plus capacity summed here
 * (verify_fit.c); topology domains are read from node labels
 * (verify_gang.c), never from topology.c; devices are checked with the
 * DRA evaluator of src/model (verify_dra.c); evictions, moves and
 * budgets are recounted in verify_preempt.c.  A bug in the reduction, the
 * greedy core or the ILP thus shows up as a violation.
 *
 * Violations are lines of text, in a fixed order: placements (in plan
 * order), evictions, moves, capacity (by node), capacity by priority,
 * budgets, groups (by snapshot order), trees, annotations, waiting
 * entries, device claims.
 */
#include "plan/verify_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------- name tables */

static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h ^ (h >> 29);
}

int wv_ht_init(htab *t, wa_arena *a, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 1)
		cap *= 2;
	t->e = wa_calloc(a, cap, sizeof *t->e);
	t->mask = cap - 1;
	return t->e ? 0 : -1;
}

/* Keeps the first entry of a duplicated key. */
void wv_ht_put(htab *t, const char *a, const char *b, int v)
{
	a = a ? a : "";
	b = b ? b : "";
	for (size_t i = hash2(a, b) & t->mask;; i = (i + 1) & t->mask) {
		hent *e = &t->e[i];
		if (!e->b) {
			*e = (hent){a, b, v};
			return;
		}
		if (!strcmp(e->a, a) && !strcmp(e->b, b))
			return;
	}
}

int wv_ht_get(const htab *t, const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	for (size_t i = hash2(a, b) & t->mask;; i = (i + 1) & t->mask) {
		const hent *e = &t->e[i];
		if (!e->b)
			return -1;
		if (!strcmp(e->a, a) && !strcmp(e->b, b))
			return e->v;
	}
}

/* ------------------------------------------------------------- report */

void wv_viol(vctx *v, const char *fmt, ...)
{
	v->nviol++;
	if (v->nomem)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t need = v->len + (size_t)n + 2;
	if (need > v->cap) {
		size_t nc = v->cap ? v->cap : 1024;
		while (nc < need)
			nc *= 2;
		char *nb = wa_alloc(v->a, nc);
		if (!nb) {
			v->nomem = true;
			return;
		}
		if (v->len)
			memcpy(nb, v->buf, v->len);
		v->buf = nb;
		v->cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(v->buf + v->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	v->len += n;
	v->buf[v->len++] = '\n';
	v->buf[v->len] = 0;
}

/* ------------------------------------------------------------ waiting */

static void check_waiting(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	htab seen;
	if (wv_ht_init(&seen, v->a, p->nwait)) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < p->nwait; i++) {
		const wpl_wait *w = &p->wait[i];
		bool pod = w->kind && !strcmp(w->kind, "Pod");
		/* the kind goes into the key: a Pod and a PodGroup may share
		 * a name */
		const char *k = wa_printf(v->a, "%s\x1f%s", nz(w->kind),
					  nz(w->group));
		if (!k) {
			v->nomem = true;
			return;
		}
		if (wv_ht_get(&seen, w->ns, k) >= 0) {
			wv_viol(v, "%s %s/%s: listed as waiting twice",
				pod ? "pod" : "group", nz(w->ns), nz(w->group));
			continue;
		}
		wv_ht_put(&seen, w->ns, k, i);
		if (pod) {
			int pi = wv_ht_get(&v->pods, w->ns, w->group);
			if (pi < 0)
				wv_viol(v, "waiting pod %s/%s: no such pod in "
					"the snapshot", nz(w->ns),
					nz(w->group));
			else if (!ws_pod_pending(&s->pods[pi]))
				wv_viol(v, "waiting pod %s/%s: is not pending",
					nz(w->ns), nz(w->group));
			else if (v->pod_node[pi] >= 0)
				wv_viol(v, "pod %s/%s: listed as waiting but "
					"placed on %s",
					nz(w->ns), nz(w->group),
					s->nodes[v->pod_node[pi]].name);
			continue;
		}
		int g = wv_ht_get(&v->groups, w->ns, w->group);
		if (g < 0)
			wv_viol(v, "waiting group %s/%s: no such PodGroup in "
				"the snapshot", nz(w->ns), nz(w->group));
		else if (v->g_placed[g])
			wv_viol(v, "group %s/%s: listed as waiting but %d of "
				"its pods are placed", nz(w->ns), nz(w->group),
				v->g_placed[g]);
	}
}

/* ----------------------------------------------------------- admitted */

/* Every admitted group exists, is listed once, and the plan places as
 * many of its pods as the entry says (a tree's member may be admitted
 * with none placed now: its running pods count).  (A hand-written
 * plan may leave the admitted list out; its gangs are checked from the
 * placements, verify_gang.c.) */
static void check_admitted(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	int *listed = wa_calloc(v->a, s->ngroups + 1, sizeof *listed);
	int *named = wa_calloc(v->a, s->ngroups + 1, sizeof *named);
	if (!listed || !named) {
		v->nomem = true;
		return;
	}
	/* PodGroups of different APIs (doc/input.md, "PodGroups of other
	 * schedulers") may share a namespace and name: the plan names them
	 * alike, so such a name may be admitted once per group, and its pod
	 * counts are checked from the placements (verify_gang.c) */
	for (int i = 0; i < s->ngroups; i++) {
		int g = wv_ht_get(&v->groups, s->groups[i].ns,
				  s->groups[i].name);
		if (g >= 0)
			named[g]++;
	}
	for (int i = 0; i < p->nadmit; i++) {
		const wpl_admit *x = &p->admit[i];
		int g = wv_ht_get(&v->groups, x->ns, x->group);
		if (g < 0) {
			wv_viol(v, "admitted group %s/%s: no such PodGroup in "
				"the snapshot", nz(x->ns), nz(x->group));
			continue;
		}
		if (listed[g]++ >= (named[g] ? named[g] : 1)) {
			wv_viol(v, "group %s/%s: admitted twice", nz(x->ns),
				nz(x->group));
			continue;
		}
		if (named[g] <= 1 && v->g_placed[g] != x->pods)
			wv_viol(v, "group %s/%s: admitted with %d pods but "
				"the plan places %d of its pods",
				nz(x->ns), nz(x->group), x->pods,
				v->g_placed[g]);
	}
}

/* The summary's counts against the lists (summary.counts). */
static void check_counts(vctx *v)
{
	const wasp_plan *p = v->p;
	const wpl_summary *m = &p->sum;
	static const char *const name[] = {"admittedGroups", "waitingGroups",
					   "placedPods", "evictedPods"};
	const int said[] = {m->admitted_groups, m->waiting_groups,
			    m->placed_pods, m->evicted_pods};
	const int has[] = {p->nadmit, p->nwait, p->nplace, p->nevict};
	for (size_t k = 0; k < sizeof said / sizeof said[0]; k++)
		if (said[k] != has[k])
			wv_viol(v, "summary.counts.%s is %d but the plan lists "
				"%d", name[k], said[k], has[k]);
}

/* -------------------------------------------------------------- driver */

int wv_check(const ws_snapshot *s, const wasp_plan *p, wa_arena *a,
	     size_t *nviol, char **report, wasp_error *err)
{
	vctx v;
	memset(&v, 0, sizeof v);
	v.s = s;
	v.p = p;
	v.a = a;
	v.path = p->sum.domain_mode && !strcmp(p->sum.domain_mode, "path");
	size_t nres = s->nres ? s->nres : 1;
	if (wv_ht_init(&v.pods, a, s->npods) ||
	    wv_ht_init(&v.nodes, a, s->nnodes) ||
	    wv_ht_init(&v.groups, a, s->ngroups) ||
	    !(v.pod_node = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.pod_place = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.placed = wa_calloc(a, (size_t)(s->nnodes + 1) * nres,
				   sizeof(int64_t))) ||
	    !(v.g_placed = wa_calloc(a, s->ngroups + 1, sizeof(int))) ||
	    !(v.pod_evict = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.pod_moved = wa_calloc(a, s->npods + 1, sizeof(int))) ||
	    !(v.evicted = wa_calloc(a, (size_t)(s->nnodes + 1) * nres,
				    sizeof(int64_t))) ||
	    !(v.lv_key = wa_calloc(a, s->ngroups + s->ncomps + 1,
				   sizeof(char *))) ||
	    !(v.lv_list = wa_calloc(a, s->ngroups + s->ncomps + 1,
				    sizeof(char **))) ||
	    !(v.lv_n = wa_calloc(a, s->ngroups + s->ncomps + 1,
				 sizeof(int))))
		return werr(err, WASP_ENOMEM, "out of memory verifying a plan");
	for (int i = 0; i < s->npods; i++) {
		wv_ht_put(&v.pods, s->pods[i].ns, s->pods[i].name, i);
		v.pod_node[i] = v.pod_place[i] = v.pod_evict[i] = -1;
		v.pod_moved[i] = -1;
	}
	for (int i = 0; i < s->nnodes; i++)
		wv_ht_put(&v.nodes, "", s->nodes[i].name, i);
	for (int i = 0; i < s->ngroups; i++)
		wv_ht_put(&v.groups, s->groups[i].ns, s->groups[i].name, i);

	wv_check_placements(&v);
	wv_check_evictions(&v);
	wv_check_moves(&v);
	wv_check_capacity(&v);
	wv_check_priority_rows(&v);
	wv_check_pdbs(&v);
	wv_check_groups(&v);
	wv_check_trees(&v);
	wv_check_annotations(&v);
	check_waiting(&v);
	check_admitted(&v);
	check_counts(&v);
	wv_check_devices(&v);
	if (v.nomem)
		return werr(err, WASP_ENOMEM, "out of memory verifying a plan");
	*nviol = v.nviol;
	if (report)
		*report = v.buf ? v.buf : wa_strdup(a, "");
	if (report && !*report)
		return werr(err, WASP_ENOMEM, "out of memory verifying a plan");
	return WASP_OK;
}
