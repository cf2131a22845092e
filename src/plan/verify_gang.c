/*
 * verify_gang.c -- the verifier's group checks: each gang placed with at
 * least minCount pods (counting those running) or not at all, a group
 * with a topology key in one domain of it, CompositePodGroup trees
 * (minGroupCount, one domain of the tree's key) and the topology
 * annotations (exclusive domains, slices), doc/formulation.md §9.
 *
 * Domains are read from node labels here, never from topology.c: in path
 * mode the level order comes from the kueue Topology object or, for keys
 * it does not list, from a small nesting test of our own.
 */
#include "plan/verify_int.h"

#include <string.h>

/* ------------------------------------------------------------ topology */

/* True when the nodes of each value of `fine` all share one value of
 * `coarse` (a missing coarse label counts as a value of its own). */
static bool nests_in(const vctx *v, const char *fine, const char *coarse)
{
	const ws_snapshot *s = v->s;
	htab t;
	if (wv_ht_init(&t, v->a, s->nnodes))
		return false;
	/* value of fine -> first node seen with it */
	for (int n = 0; n < s->nnodes; n++) {
		const char *f = ws_label(&s->nodes[n], fine);
		if (!f)
			continue;
		const char *c = ws_label(&s->nodes[n], coarse);
		int first = wv_ht_get(&t, "", f);
		if (first < 0) {
			wv_ht_put(&t, "", f, n);
			continue;
		}
		const char *c0 = ws_label(&s->nodes[first], coarse);
		if ((c == NULL) != (c0 == NULL) || (c && strcmp(c, c0)))
			return false;
	}
	return true;
}

static int count_values(const vctx *v, const char *key)
{
	const ws_snapshot *s = v->s;
	htab t;
	if (wv_ht_init(&t, v->a, s->nnodes))
		return 0;
	int k = 0;
	for (int n = 0; n < s->nnodes; n++) {
		const char *val = ws_label(&s->nodes[n], key);
		if (val && wv_ht_get(&t, "", val) < 0)
			wv_ht_put(&t, "", val, k++);
	}
	return k;
}

/* The labels whose values make up a domain of `key` in path mode, coarse
 * to fine, ending with `key` itself: the levels above it in the (first)
 * kueue Topology object; for a key that object does not list, the other
 * keys (its levels and every constraint key) that `key` nests in and that
 * have fewer values (equal partitions: the smaller name is the coarser),
 * coarsest first. */
static int path_levels(vctx *v, const char *key, const char ***out)
{
	const ws_snapshot *s = v->s;
	const ws_levels *lv = s->ntopologies ? &s->topologies[0] : NULL;
	for (int i = 0; lv && i < lv->nlabels; i++)
		if (!strcmp(lv->labels[i], key)) {
			*out = lv->labels;
			return i + 1;
		}
	int maxc = s->ngroups + s->ncomps + (lv ? lv->nlabels : 0) + 1;
	const char **all = wa_calloc(v->a, maxc, sizeof *all);
	const char **cand = wa_calloc(v->a, maxc, sizeof *cand);
	int *nval = wa_calloc(v->a, maxc, sizeof *nval);
	if (!all || !cand || !nval) {
		v->nomem = true;
		return 0;
	}
	int nall = 0, ncand = 0;
	for (int i = 0; lv && i < lv->nlabels; i++)
		all[nall++] = lv->labels[i];
	for (int g = 0; g < s->ngroups; g++)
		if (s->groups[g].topo_key && s->groups[g].topo_key[0])
			all[nall++] = s->groups[g].topo_key;
	for (int h = 0; h < s->ncomps; h++)
		if (s->comps[h].topo_key)
			all[nall++] = s->comps[h].topo_key;
	int kv = count_values(v, key);
	for (int i = 0; i < nall; i++) {
		const char *k = all[i];
		bool dup = !strcmp(k, key);
		for (int j = 0; j < ncand && !dup; j++)
			dup = !strcmp(cand[j], k);
		if (dup || !nests_in(v, key, k))
			continue;
		int kc = count_values(v, k);
		if (kc > kv || (kc == kv && strcmp(key, k) < 0))
			continue;
		nval[ncand] = kc;
		cand[ncand++] = k;
	}
	/* coarsest (fewest values) first; insertion sort, few keys */
	for (int i = 1; i < ncand; i++)
		for (int j = i; j > 0 && (nval[j] < nval[j - 1] ||
					  (nval[j] == nval[j - 1] &&
					   strcmp(cand[j], cand[j - 1]) < 0));
		     j--) {
			const char *tk = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = tk;
			int tn = nval[j];
			nval[j] = nval[j - 1];
			nval[j - 1] = tn;
		}
	cand[ncand++] = key;
	*out = cand;
	return ncand;
}

/* The domain of node n for the levels: "v0/v1/.../vk" (a missing coarser
 * label reads ""), or NULL when the node lacks the key's own label. */
static const char *domain_of(vctx *v, int n, const char *const *lv, int nl)
{
	const ws_node *node = &v->s->nodes[n];
	const char *own = ws_label(node, lv[nl - 1]);
	if (!own || nl == 1)
		return own;
	size_t len = 0;
	for (int i = 0; i < nl; i++) {
		const char *val = ws_label(node, lv[i]);
		len += (val ? strlen(val) : 0) + 1;
	}
	char *d = wa_alloc(v->a, len);
	if (!d) {
		v->nomem = true;
		return own;
	}
	char *w = d;
	for (int i = 0; i < nl; i++) {
		const char *val = ws_label(node, lv[i]);
		size_t l = val ? strlen(val) : 0;
		memcpy(w, val ? val : "", l);
		w += l;
		*w++ = i + 1 < nl ? '/' : 0;
	}
	return d;
}

/* The level list for key (path mode) or the key alone; 0 on NOMEM. */
static int levels_for(vctx *v, const char *key, const char *const **lv,
		      const char **one)
{
	*one = key;
	*lv = one;
	if (!v->path)
		return 1;
	int c = 0;
	while (c < v->nlv && strcmp(v->lv_key[c], key))
		c++;
	if (c == v->nlv) {
		const char **l = NULL;
		v->lv_n[c] = path_levels(v, key, &l);
		v->lv_list[c] = l;
		v->lv_key[c] = key;
		v->nlv++;
	}
	*lv = v->lv_list[c];
	return v->lv_n[c];
}

/* Group g's pods (placed, moved or running) in one domain of its key. */
static void check_topology(vctx *v, int g)
{
	const ws_snapshot *s = v->s;
	const ws_group *grp = &s->groups[g];
	const char *key = grp->topo_key;
	const char *one;
	const char *const *lv;
	int nl = levels_for(v, key, &lv, &one);
	if (nl <= 0)
		return;
	const char *dom0 = NULL;
	int node0 = -1;
	for (int k = 0; k < grp->npods; k++) {
		int pi = grp->pods[k];
		const ws_pod *pod = &s->pods[pi];
		int n = v->pod_node[pi];
		if (n < 0 && v->pod_moved && v->pod_moved[pi] >= 0)
			n = v->pod_moved[pi];
		if (n < 0 && !pod->terminal && !ws_pod_pending(pod))
			n = pod->node; /* running; -1 if its node is unknown */
		if (n < 0)
			continue;
		const char *d = domain_of(v, n, lv, nl);
		if (!d) {
			wv_viol(v, "group %s/%s: pod %s on node %s, which "
				"lacks topology label %s", grp->ns, grp->name,
				pod->name, s->nodes[n].name, key);
			return;
		}
		if (!dom0) {
			dom0 = d;
			node0 = n;
		} else if (strcmp(d, dom0)) {
			wv_viol(v, "group %s/%s: pods span more than one %s "
				"domain: %s (node %s) and %s (node %s, pod "
				"%s)",
				grp->ns, grp->name, key, dom0,
				s->nodes[node0].name, d, s->nodes[n].name,
				pod->name);
			return;
		}
	}
}

/* -------------------------------------------------------------- groups */

void wv_check_groups(vctx *v)
{
	const ws_snapshot *s = v->s;
	for (int g = 0; g < s->ngroups; g++) {
		const ws_group *grp = &s->groups[g];
		int placed = v->g_placed[g];
		if (!placed) {
			/* a moved pod must keep its group in one domain */
			bool moved = false;
			for (int k = 0; k < grp->npods && !moved; k++)
				moved = v->pod_moved[grp->pods[k]] >= 0;
			if (moved && grp->topo_key)
				check_topology(v, g);
			continue;
		}
		if (grp->invalid)
			wv_viol(v, "group %s/%s: cannot be scheduled (%s) but "
				"%d pods are placed", grp->ns, grp->name,
				grp->invalid, placed);
		if (grp->policy == WS_POLICY_GANG) {
			int running = 0, pending = 0;
			for (int k = 0; k < grp->npods; k++) {
				const ws_pod *pod = &s->pods[grp->pods[k]];
				if (pod->terminal)
					continue;
				if (ws_pod_pending(pod))
					pending++;
				else
					running++;
			}
			if (placed + running < grp->min_count)
				wv_viol(v, "gang %s/%s: %d pods placed + %d "
					"running < minCount %d",
					grp->ns, grp->name, placed, running,
					grp->min_count);
			if (placed > pending)
				wv_viol(v, "gang %s/%s: %d pods placed but "
					"only %d pending", grp->ns, grp->name,
					placed, pending);
		}
		if (grp->topo_key)
			check_topology(v, g);
	}
}

/* ------------------------------------------- CompositePodGroup trees */

/* After the plan: is group g admitted (pods placed or running, gangs at
 * minCount)? */
static bool group_on(const vctx *v, int g)
{
	const ws_snapshot *s = v->s;
	const ws_group *grp = &s->groups[g];
	int n = v->g_placed[g];
	for (int k = 0; k < grp->npods; k++) {
		const ws_pod *pod = &s->pods[grp->pods[k]];
		n += !pod->terminal && !ws_pod_pending(pod);
	}
	return n > 0 && (grp->policy != WS_POLICY_GANG || n >= grp->min_count);
}

static int comp_kids_on(const vctx *v, int h)
{
	const ws_composite *c = &v->s->comps[h];
	int n = 0;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k >= 0)
			n += group_on(v, k);
		else
			n += comp_kids_on(v, -1 - k) >=
			     v->s->comps[-1 - k].min_groups &&
			     comp_kids_on(v, -1 - k) > 0;
	}
	return n;
}

static int comp_placed(const vctx *v, int h)
{
	const ws_composite *c = &v->s->comps[h];
	int n = 0;
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		n += k >= 0 ? v->g_placed[k] : comp_placed(v, -1 - k);
	}
	return n;
}

typedef struct tdom {
	const char *dom, *pod;
	int node;
	bool bad;
} tdom;

/* Every pod (placed or running) below comp h in one domain of lv. */
static void comp_dom(vctx *v, int h, const char *const *lv, int nl,
		     tdom *t)
{
	const ws_snapshot *s = v->s;
	const ws_composite *c = &s->comps[h];
	for (int i = 0; i < c->nkids && !t->bad; i++) {
		int k = c->kids[i];
		if (k < 0) {
			comp_dom(v, -1 - k, lv, nl, t);
			continue;
		}
		const ws_group *grp = &s->groups[k];
		for (int j = 0; j < grp->npods && !t->bad; j++) {
			int pi = grp->pods[j];
			const ws_pod *pod = &s->pods[pi];
			int n = v->pod_node[pi];
			if (n < 0 && !pod->terminal && !ws_pod_pending(pod))
				n = pod->node;
			if (n < 0)
				continue;
			const char *d = domain_of(v, n, lv, nl);
			if (!d) {
				wv_viol(v, "CompositePodGroup %s/%s: pod %s/%s "
					"on node %s, which lacks topology "
					"label %s", c->ns, c->name, pod->ns,
					pod->name, s->nodes[n].name,
					lv[nl - 1]);
				t->bad = true;
			} else if (!t->dom) {
				*t = (tdom){d, pod->name, n, false};
			} else if (strcmp(d, t->dom)) {
				wv_viol(v, "CompositePodGroup %s/%s: pods span "
					"more than one %s domain: %s (pod %s "
					"on %s) and %s (pod %s on %s)",
					c->ns, c->name, lv[nl - 1], t->dom,
					t->pod, s->nodes[t->node].name, d,
					pod->name, s->nodes[n].name);
				t->bad = true;
			}
		}
	}
}

void wv_check_trees(vctx *v)
{
	const ws_snapshot *s = v->s;
	for (int h = 0; h < s->ncomps; h++) {
		const ws_composite *c = &s->comps[h];
		int placed = comp_placed(v, h);
		if (!placed)
			continue;
		int on = comp_kids_on(v, h);
		if (on < c->min_groups)
			wv_viol(v, "CompositePodGroup %s/%s: %d pods placed "
				"below it but only %d of minGroupCount %d "
				"child groups admitted", c->ns, c->name, placed,
				on, c->min_groups);
		if (c->topo_key) {
			const char *one;
			const char *const *lv;
			int nl = levels_for(v, c->topo_key, &lv, &one);
			tdom t = {0};
			if (nl > 0)
				comp_dom(v, h, lv, nl, &t);
		}
	}
}

/* Annotations (doc/formulation.md §9): an exclusive group sits in one
 * domain of its exclusive key that no other group with that key uses; a
 * sliced group has a multiple of the slice size in every domain of each
 * slice key. */
void wv_check_annotations(vctx *v)
{
	const ws_snapshot *s = v->s;
	htab held; /* (key, domain) -> group */
	if (wv_ht_init(&held, v->a, (size_t)s->npods + 1)) {
		v->nomem = true;
		return;
	}
	for (int g = 0; g < s->ngroups; g++) {
		const ws_group *grp = &s->groups[g];
		const ws_tas *ta = grp->tas;
		if (!ta)
			continue;
		for (int l = -1; l < ta->nslices; l++) {
			const char *key = l < 0 ? ta->exclusive
						: ta->slice_key[l];
			if (!key)
				continue;
			const char *one;
			const char *const *lv;
			int nl = levels_for(v, key, &lv, &one);
			if (nl <= 0)
				continue;
			/* pods per domain, in first-seen order */
			const char **dn = wa_calloc(v->a, grp->npods + 1,
						    sizeof *dn);
			int *cnt = wa_calloc(v->a, grp->npods + 1, sizeof *cnt);
			if (!dn || !cnt) {
				v->nomem = true;
				return;
			}
			int nd = 0;
			for (int k = 0; k < grp->npods; k++) {
				int pi = grp->pods[k];
				const ws_pod *pod = &s->pods[pi];
				int n = v->pod_node[pi];
				if (n < 0 && !pod->terminal &&
				    !ws_pod_pending(pod))
					n = pod->node;
				if (n < 0)
					continue;
				const char *d = domain_of(v, n, lv, nl);
				if (!d) {
					wv_viol(v, "group %s/%s: pod %s on "
						"node %s, which lacks topology "
						"label %s", grp->ns, grp->name,
						pod->name, s->nodes[n].name,
						key);
					continue;
				}
				int i = 0;
				while (i < nd && strcmp(dn[i], d))
					i++;
				if (i == nd)
					dn[nd++] = d;
				cnt[i]++;
			}
			if (l >= 0) {
				for (int i = 0; i < nd; i++)
					if (cnt[i] % ta->slice_size[l])
						wv_viol(v, "group %s/%s: %d "
							"pods in %s %s, not a "
							"multiple of the slice "
							"size %d", grp->ns,
							grp->name, cnt[i], key,
							dn[i],
							ta->slice_size[l]);
				continue;
			}
			if (nd > 1)
				wv_viol(v, "group %s/%s: exclusive topology %s "
					"but its pods span %s and %s", grp->ns,
					grp->name, key, dn[0], dn[1]);
			for (int i = 0; i < nd; i++) {
				int other = wv_ht_get(&held, key, dn[i]);
				if (other >= 0 && other != g)
					wv_viol(v, "exclusive topology %s: "
						"domain %s holds both %s/%s "
						"and %s/%s", key, dn[i],
						s->groups[other].ns,
						s->groups[other].name, grp->ns,
						grp->name);
				else
					wv_ht_put(&held, key, dn[i], g);
			}
		}
	}
}
