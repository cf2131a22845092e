/*
 * verify_preempt.c -- the verifier's preemption checks
 * (doc/preemption.md "Verifier"): each eviction and move, disruptionMode
 * all, PodDisruptionBudgets recounted here, and capacity by priority on
 * nodes with evictions.
 */
#include "plan/verify_int.h"

#include <string.h>


/* Each eviction: a running pod, evicted once, by a group (or lone pod)
 * that the plan places, of strictly higher priority, whose policy lets it
 * preempt.  Fills pod_evict and evicted (run after check_placements). */
void wv_check_evictions(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	for (int i = 0; i < p->nevict; i++) {
		const wpl_evict *x = &p->evict[i];
		int pi = wv_ht_get(&v->pods, x->ns, x->pod);
		if (pi < 0) {
			wv_viol(v, "eviction of %s/%s: no such pod in the "
				"snapshot", nz(x->ns), nz(x->pod));
			continue;
		}
		const ws_pod *pod = &s->pods[pi];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0) {
			wv_viol(v, "eviction of %s/%s: the pod is not running "
				"on a node of the snapshot", pod->ns,
				pod->name);
			continue;
		}
		if (v->pod_evict[pi] >= 0) {
			wv_viol(v, "eviction of %s/%s: evicted twice", pod->ns,
				pod->name);
			continue;
		}
		if (x->node && strcmp(x->node, s->nodes[pod->node].name))
			wv_viol(v, "eviction of %s/%s: the plan says node %s, "
				"the pod runs on %s", pod->ns, pod->name,
				x->node, s->nodes[pod->node].name);
		v->pod_evict[pi] = i;
		v->any_evict = true;
		for (int r = 0; r < s->nres; r++) {
			int64_t *c = &v->evicted[(size_t)pod->node * s->nres +
						 r];
			*c = sat_add(*c, pod->req[r]);
		}
		int32_t vp = pod_prio(s, pod), bp;
		int pol;
		bool places;
		bool lone = x->by_kind && !strcmp(x->by_kind, "Pod");
		if (lone) {
			int bi = wv_ht_get(&v->pods, x->by_ns, x->by);
			if (bi < 0) {
				wv_viol(v, "eviction of %s/%s: preempted by "
					"pod %s/%s, which is not in the "
					"snapshot", pod->ns, pod->name,
					nz(x->by_ns), nz(x->by));
				continue;
			}
			bp = s->pods[bi].priority;
			pol = s->pods[bi].preempt;
			places = v->pod_node[bi] >= 0;
		} else {
			int g = wv_ht_get(&v->groups, x->by_ns, x->by);
			if (g < 0) {
				wv_viol(v, "eviction of %s/%s: preempted by "
					"PodGroup %s/%s, which is not in the "
					"snapshot", pod->ns, pod->name,
					nz(x->by_ns), nz(x->by));
				continue;
			}
			bp = s->groups[g].priority;
			pol = s->groups[g].preempt;
			places = v->g_placed[g] > 0;
		}
		if (!places)
			wv_viol(v, "eviction of %s/%s: %s/%s, which evicts it, "
				"places no pod in this plan", pod->ns,
				pod->name, nz(x->by_ns), nz(x->by));
		if (bp <= vp)
			wv_viol(v, "eviction of %s/%s: its priority %d is not "
				"below the priority %d of %s/%s", pod->ns,
				pod->name, (int)vp, (int)bp, nz(x->by_ns),
				nz(x->by));
		if (pol == WS_PREEMPT_NEVER)
			wv_viol(v, "eviction of %s/%s: %s/%s has "
				"preemptionPolicy Never", pod->ns, pod->name,
				nz(x->by_ns), nz(x->by));
	}
	/* disruptionMode all: the running group goes whole or not at all */
	for (int g = 0; v->any_evict && g < s->ngroups; g++) {
		const ws_group *grp = &s->groups[g];
		if (grp->disruption != WS_DISRUPT_ALL)
			continue;
		int run = 0, ev = 0;
		for (int k = 0; k < grp->npods; k++) {
			const ws_pod *pod = &s->pods[grp->pods[k]];
			if (pod->terminal || ws_pod_pending(pod) ||
			    pod->node < 0)
				continue;
			run++;
			ev += v->pod_evict[grp->pods[k]] >= 0;
		}
		if (ev && ev < run)
			wv_viol(v, "group %s/%s: disruptionMode all, but only "
				"%d of its %d running pods are evicted",
				grp->ns, grp->name, ev, run);
	}
}

/* Moves: a running pod, not evicted, from its node to another existing
 * node that it tolerates and selects; capacity counts it at the
 * destination and no longer at the source (check_capacity). */
void wv_check_moves(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	for (int i = 0; i < p->nmove; i++) {
		const wpl_move *x = &p->move[i];
		int pi = wv_ht_get(&v->pods, x->ns, x->pod);
		if (pi < 0) {
			wv_viol(v, "move of %s/%s: no such pod in the snapshot",
				nz(x->ns), nz(x->pod));
			continue;
		}
		const ws_pod *pod = &s->pods[pi];
		if (pod->terminal || ws_pod_pending(pod) || pod->node < 0) {
			wv_viol(v, "move of %s/%s: the pod is not running on a "
				"node of the snapshot", pod->ns, pod->name);
			continue;
		}
		if (v->pod_evict[pi] >= 0 || v->pod_moved[pi] >= 0) {
			wv_viol(v, "move of %s/%s: the pod is %s", pod->ns,
				pod->name, v->pod_evict[pi] >= 0
				 ? "also evicted" : "moved twice");
			continue;
		}
		if (x->from && strcmp(x->from, s->nodes[pod->node].name))
			wv_viol(v, "move of %s/%s: from %s, but it runs on %s",
				pod->ns, pod->name, x->from,
				s->nodes[pod->node].name);
		int ni = wv_ht_get(&v->nodes, "", x->to);
		if (ni < 0) {
			wv_viol(v, "move of %s/%s: to node %s, which is not in "
				"the snapshot", pod->ns, pod->name, nz(x->to));
			continue;
		}
		if (ni == pod->node) {
			wv_viol(v, "move of %s/%s: to the node it runs on",
				pod->ns, pod->name);
			continue;
		}
		const char *why = NULL;
		if (!ws_pod_fits_node_static(pod, &s->nodes[ni], &why))
			wv_viol(v, "move of %s/%s to %s: %s", pod->ns,
				pod->name, s->nodes[ni].name,
				why ? why : "does not fit");
		if (pod->group >= 0 &&
		    s->groups[pod->group].disruption == WS_DISRUPT_ALL)
			wv_viol(v, "move of %s/%s: its group %s is disrupted "
				"only whole (disruptionMode all)", pod->ns,
				pod->name, s->groups[pod->group].name);
		v->pod_moved[pi] = ni;
		for (int r = 0; r < s->nres; r++) {
			int64_t *c = &v->placed[(size_t)ni * s->nres + r];
			*c = sat_add(*c, pod->req[r]);
			c = &v->evicted[(size_t)pod->node * s->nres + r];
			*c = sat_add(*c, pod->req[r]);
		}
	}
	/* the summary counts the moves it lists */
	if (p->sum.moved_pods != p->nmove)
		wv_viol(v, "the plan says %d moved pods but lists %d moves",
			p->sum.moved_pods, p->nmove);
}

/* PodDisruptionBudgets, recomputed here: the evicted pods each budget
 * selects beyond the disruptions it allows are violations of the budget
 * (allowed when nothing better exists); the plan must count them right. */
static bool lbl_match(const ws_expr *e, const ws_pod *pod)
{
	const char *val = NULL;
	for (int i = 0; i < pod->nlabels && !val; i++)
		if (!strcmp(pod->labels[i].key, e->key))
			val = pod->labels[i].val;
	bool in = false;
	for (int i = 0; val && i < e->nvals; i++)
		in = in || !strcmp(val, e->vals[i]);
	return e->op == WS_OP_IN ? in
	       : e->op == WS_OP_NOTIN ? !in
	       : e->op == WS_OP_EXISTS ? val != NULL
	       : e->op == WS_OP_DOESNOTEXIST ? val == NULL : false;
}

static bool pdb_sel(const ws_pdb *b, const ws_pod *pod)
{
	if (!b->has_selector || strcmp(b->ns, pod->ns))
		return false;
	for (int i = 0; i < b->nsel; i++)
		if (!lbl_match(&b->sel[i], pod))
			return false;
	return true;
}

void wv_check_pdbs(vctx *v)
{
	const ws_snapshot *s = v->s;
	long total = 0;
	for (int j = 0; v->any_evict && j < s->npdbs; j++) {
		const ws_pdb *b = &s->pdbs[j];
		int healthy = 0, ev = 0;
		for (int i = 0; i < s->npods; i++) {
			const ws_pod *pod = &s->pods[i];
			if (pod->terminal || ws_pod_pending(pod) ||
			    !pdb_sel(b, pod))
				continue;
			healthy++;
			ev += v->pod_evict[i] >= 0;
		}
		int allowed = healthy;
		if (b->has_allowed)
			allowed = b->allowed;
		else if (b->has_healthy)
			allowed = b->current_healthy - b->desired_healthy;
		else if (b->min_kind == 1)
			allowed = healthy - b->min_val;
		else if (b->min_kind == 2)
			allowed = healthy - (int)(((long)b->min_val * healthy +
						   99) / 100);
		else if (b->max_kind == 1)
			allowed = b->max_val;
		else if (b->max_kind == 2)
			allowed = (int)(((long)b->max_val * healthy + 99) /
					100);
		if (allowed < 0)
			allowed = 0;
		if (ev > allowed)
			total += ev - allowed;
	}
	if (total != v->p->pdb_violations)
		wv_viol(v, "PodDisruptionBudgets: the evictions break budgets "
			"%ld time%s, the plan says %d", total,
			total == 1 ? "" : "s", v->p->pdb_violations);
}

/* Capacity by priority (doc/preemption.md "Semantics"): on a node with
 * evictions, for every priority L of a pod placed there, bound pods minus
 * the evicted ones of priority below L plus the placed ones of priority
 * at most L fit the allocatable; capacity freed by a victim thus serves
 * only pods of strictly higher priority. */
void wv_check_priority_rows(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	if (!v->any_evict)
		return;
	int nn = s->nnodes, nres = s->nres;
	int *ps = wa_calloc(v->a, (size_t)nn + 2, sizeof(int));
	int *es = wa_calloc(v->a, (size_t)nn + 2, sizeof(int));
	int *pl = wa_calloc(v->a, (size_t)p->nplace + 1, sizeof(int));
	int *el = wa_calloc(v->a, (size_t)p->nevict + 1, sizeof(int));
	int *pf = wa_calloc(v->a, (size_t)nn + 1, sizeof(int));
	int *ef = wa_calloc(v->a, (size_t)nn + 1, sizeof(int));
	if (!ps || !es || !pl || !el || !pf || !ef) {
		v->nomem = true;
		return;
	}
	for (int i = 0; i < s->npods; i++) {
		if (v->pod_place[i] >= 0 && v->pod_node[i] >= 0)
			ps[v->pod_node[i] + 1]++;
		if (v->pod_evict[i] >= 0)
			es[s->pods[i].node + 1]++;
	}
	for (int n = 0; n < nn; n++) {
		ps[n + 1] += ps[n];
		es[n + 1] += es[n];
	}
	for (int i = 0; i < s->npods; i++) {
		if (v->pod_place[i] >= 0 && v->pod_node[i] >= 0) {
			int n = v->pod_node[i];
			pl[ps[n] + pf[n]++] = i;
		}
		if (v->pod_evict[i] >= 0) {
			int n = s->pods[i].node;
			el[es[n] + ef[n]++] = i;
		}
	}
	/* moves (doc/preemption.md "Verifier"): a pod moved out frees its
	 * room for every level, one moved in counts at every level (it uses
	 * no freed room) */
	int64_t *mvd = wa_calloc(v->a, (size_t)nn * nres + 1, sizeof *mvd);
	if (!mvd) {
		v->nomem = true;
		return;
	}
	for (int i = 0; v->pod_moved && i < s->npods; i++) {
		int to = v->pod_moved[i];
		if (to < 0 || s->pods[i].node < 0)
			continue;
		for (int r = 0; r < nres; r++) {
			mvd[(size_t)s->pods[i].node * nres + r] -=
			    s->pods[i].req[r];
			mvd[(size_t)to * nres + r] += s->pods[i].req[r];
		}
	}
	char b1[48], b2[48];
	for (int n = 0; n < nn; n++) {
		if (es[n] == es[n + 1] || ps[n] == ps[n + 1])
			continue;
		const ws_node *node = &s->nodes[n];
		/* pods under preemptionPolicy Never use no room that
		 * evictions freed: they fit beside every bound pod */
		for (int r = 0; r < nres; r++) {
			int64_t tot = node->used[r] + mvd[(size_t)n * nres + r];
			bool any = false;
			for (int b = ps[n]; b < ps[n + 1]; b++) {
				const ws_pod *q = &s->pods[pl[b]];
				if (q->preempt != WS_PREEMPT_NEVER)
					continue;
				any = true;
				tot = sat_add(tot, q->req[r]);
			}
			if (any && tot > node->alloc[r]) {
				wv_viol(v, "node %s: pods under preemptionPolicy "
					"Never use %s that evictions freed: %s "
					"> %s", node->name, s->res[r],
					qty(v, r, tot, b1, sizeof b1),
					qty(v, r, node->alloc[r], b2,
					    sizeof b2));
				break;
			}
		}
		bool bad = false;
		for (int a = ps[n]; a < ps[n + 1] && !bad; a++) {
			int32_t L = pod_prio(s, &s->pods[pl[a]]);
			for (int r = 0; r < nres && !bad; r++) {
				int64_t tot = node->used[r] +
					      mvd[(size_t)n * nres + r];
				int32_t vmax = INT32_MIN;
				for (int e = es[n]; e < es[n + 1]; e++) {
					const ws_pod *q = &s->pods[el[e]];
					if (pod_prio(s, q) < L)
						tot -= q->req[r];
					else if (pod_prio(s, q) > vmax)
						vmax = pod_prio(s, q);
				}
				for (int b = ps[n]; b < ps[n + 1]; b++) {
					const ws_pod *q = &s->pods[pl[b]];
					if (pod_prio(s, q) <= L)
						tot = sat_add(tot, q->req[r]);
				}
				if (tot <= node->alloc[r])
					continue;
				wv_viol(v, "node %s: %s freed by evicting pods "
					"of priority >= %d is used by pods of "
					"priority %d or lower: %s > %s at "
					"level %d", node->name, s->res[r],
					(int)vmax, (int)L,
					qty(v, r, tot, b1, sizeof b1),
					qty(v, r, node->alloc[r], b2,
					    sizeof b2),
					(int)L);
				bad = true;
			}
		}
	}
}
