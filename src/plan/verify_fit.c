/*
 * verify_fit.c -- the verifier's node fit: each placement names a pending
 * pod of the snapshot and an existing node that the pod tolerates and
 * selects (taints, selectors, affinity, unschedulable: the snapshot's
 * static predicates), and per node and resource the bound pods, less the
 * evicted and moved-out ones, plus the placed and moved-in ones fit the
 * allocatable.  Capacity by priority is in verify_preempt.c.
 */
#include "plan/verify_int.h"

#include <string.h>

void wv_check_placements(vctx *v)
{
	const ws_snapshot *s = v->s;
	const wasp_plan *p = v->p;
	for (int i = 0; i < p->nplace; i++) {
		const wpl_place *x = &p->place[i];
		int pi = wv_ht_get(&v->pods, x->ns, x->pod);
		int ni = wv_ht_get(&v->nodes, "", x->node);
		if (pi < 0) {
			wv_viol(v, "pod %s/%s: no such pod in the snapshot",
				nz(x->ns), nz(x->pod));
			continue;
		}
		const ws_pod *pod = &s->pods[pi];
		if (ni < 0) {
			wv_viol(v, "pod %s/%s: placed on node %s, which is not "
				"in the snapshot", pod->ns, pod->name,
				nz(x->node));
			continue;
		}
		const ws_node *node = &s->nodes[ni];
		if (v->pod_place[pi] >= 0) {
			wv_viol(v, "pod %s/%s: placed twice (on %s and on %s)",
				pod->ns, pod->name,
				nz(p->place[v->pod_place[pi]].node),
				node->name);
			continue;
		}
		if (pod->terminal) {
			wv_viol(v, "pod %s/%s: placed but it has terminated",
				pod->ns, pod->name);
			continue;
		}
		if (!ws_pod_pending(pod)) {
			wv_viol(v, "pod %s/%s: placed on %s but already bound "
				"to %s", pod->ns, pod->name, node->name,
				nz(pod->node_name));
			continue;
		}
		if (x->group) {
			const char *real = pod->group >= 0
					       ? s->groups[pod->group].name
					       : NULL;
			if (!real || strcmp(real, x->group))
				wv_viol(v, "pod %s/%s: the plan says group %s, "
					"the snapshot says %s",
					pod->ns, pod->name, x->group,
					real ? real : "none");
		}
		const char *why = NULL;
		if (!ws_pod_fits_node_static(pod, node, &why))
			wv_viol(v, "pod %s/%s on node %s: %s", pod->ns,
				pod->name, node->name,
				why ? why : "does not fit");
		/* Count it for capacity, gang and topology whatever the
		 * static verdict, so every problem is reported once. */
		v->pod_place[pi] = i;
		v->pod_node[pi] = ni;
		for (int r = 0; r < s->nres; r++) {
			int64_t *c = &v->placed[(size_t)ni * s->nres + r];
			*c = sat_add(*c, pod->req[r]);
		}
		if (pod->group >= 0)
			v->g_placed[pod->group]++;
	}
}

void wv_check_capacity(vctx *v)
{
	const ws_snapshot *s = v->s;
	char b1[48], b2[48], b3[48], b4[48];
	for (int n = 0; n < s->nnodes; n++) {
		const ws_node *node = &s->nodes[n];
		for (int r = 0; r < s->nres; r++) {
			int64_t pl = v->placed[(size_t)n * s->nres + r];
			if (!pl)
				continue; /* over-commit before the plan is
					     not the plan's doing */
			int64_t ev = v->evicted[(size_t)n * s->nres + r];
			int64_t tot = sat_add(node->used[r] - ev, pl);
			if (tot <= node->alloc[r])
				continue;
			if (ev) {
				char b5[48];
				wv_viol(v, "node %s: %s over allocatable: %s > "
					"%s (bound %s - evicted %s + placed "
					"%s)", node->name, s->res[r],
					qty(v, r, tot, b1, sizeof b1),
					qty(v, r, node->alloc[r], b2,
					    sizeof b2),
					qty(v, r, node->used[r], b3, sizeof b3),
					qty(v, r, ev, b5, sizeof b5),
					qty(v, r, pl, b4, sizeof b4));
				continue;
			}
			wv_viol(v, "node %s: %s over allocatable: %s > %s "
				"(bound %s + placed %s)", node->name, s->res[r],
				qty(v, r, tot, b1, sizeof b1),
				qty(v, r, node->alloc[r], b2, sizeof b2),
				qty(v, r, node->used[r], b3, sizeof b3),
				qty(v, r, pl, b4, sizeof b4));
		}
	}
}
