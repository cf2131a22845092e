/*
 * topology.c -- topology keys, their domains and their coarse-to-fine order
 * (see topology.h).
 *
 * Keys come from the first kueue Topology object (its order is trusted)
 * plus every key a group names.  Keys the Topology object does not order
 * are slotted in by nesting: A is finer than B when the nodes of each
 * A-value all share one B-value (a missing label counts as a value of its
 * own) and A has more domains.  Domains are numbered in name order, so
 * "ties by name" elsewhere is "ties by domain index".
 *
 * Everything temporary lives in a scratch arena freed on every path.
 */
#include "model/topology.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- string -> id map */

typedef struct strmap {
	const char **keys;
	int *ids;
	size_t mask;
} strmap;

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int strmap_init(strmap *m, wa_arena *a, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n + 16)
		cap *= 2;
	m->keys = wa_calloc(a, cap, sizeof *m->keys);
	m->ids = wa_calloc(a, cap, sizeof *m->ids);
	m->mask = cap - 1;
	return m->keys && m->ids ? 0 : -1;
}

/* The id of `s`, inserting it as `next` when new (*added set to 1). */
static int strmap_get(strmap *m, const char *s, int next, int *added)
{
	size_t i = str_hash(s) & m->mask;
	while (m->keys[i]) {
		if (!strcmp(m->keys[i], s)) {
			*added = 0;
			return m->ids[i];
		}
		i = (i + 1) & m->mask;
	}
	m->keys[i] = s;
	m->ids[i] = next;
	*added = 1;
	return next;
}

/* ------------------------------------------------------------- helpers */

/* "example.com/rack" -> "rack", for messages. */
static const char *short_name(const char *label)
{
	const char *s = strrchr(label, '/');
	return s ? s + 1 : label;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Value-mode reading of one label: dom[n] = value id (-1 absent), ids in
 * name order. */
typedef struct vkey {
	const char *label;
	int ndom;
	const char **names;
	int *dom;
	bool from_topology;
} vkey;

static int read_values(const ws_snapshot *s, wa_arena *tmp, vkey *k)
{
	int nn = s->nnodes;
	strmap m;
	const char **vals = wa_calloc(tmp, (size_t)nn + 1, sizeof *vals);
	int *raw = wa_calloc(tmp, (size_t)nn + 1, sizeof *raw);
	k->dom = wa_calloc(tmp, (size_t)nn + 1, sizeof *k->dom);
	if (!vals || !raw || !k->dom || strmap_init(&m, tmp, (size_t)nn))
		return -1;
	int nv = 0;
	for (int n = 0; n < nn; n++) {
		const char *v = ws_label(&s->nodes[n], k->label);
		if (!v) {
			raw[n] = -1;
			continue;
		}
		int added;
		raw[n] = strmap_get(&m, v, nv, &added);
		if (added)
			vals[nv++] = v;
	}
	/* renumber in name order */
	const char **sorted = wa_calloc(tmp, (size_t)nv + 1, sizeof *sorted);
	int *rank = wa_calloc(tmp, (size_t)nv + 1, sizeof *rank);
	if (!sorted || !rank)
		return -1;
	memcpy(sorted, vals, (size_t)nv * sizeof *vals);
	qsort(sorted, (size_t)nv, sizeof *sorted, cmp_str_ptr);
	for (int i = 0; i < nv; i++) {
		int added;
		rank[strmap_get(&m, sorted[i], -1, &added)] = i;
	}
	for (int n = 0; n < nn; n++)
		k->dom[n] = raw[n] < 0 ? -1 : rank[raw[n]];
	k->ndom = nv;
	k->names = sorted;
	return 0;
}

/* Does `a` nest in `b`: the nodes of each a-value share one b-value (a
 * missing b label counts as a value)?  On false, *wd is an a-domain that
 * spans two b-values *wb1 != *wb2 (-1 = label absent). */
static bool nests(const ws_snapshot *s, const vkey *a, const vkey *b,
		  int *seen, int *wd, int *wb1, int *wb2)
{
	for (int d = 0; d < a->ndom; d++)
		seen[d] = -2;
	bool ok = true;
	int best = a->ndom;
	for (int n = 0; n < s->nnodes; n++) {
		int d = a->dom[n];
		if (d < 0)
			continue;
		if (seen[d] == -2) {
			seen[d] = b->dom[n];
		} else if (seen[d] != b->dom[n]) {
			ok = false;
			/* witness: the first a-domain by name */
			if (d < best && wd) {
				best = d;
				*wd = d;
				*wb1 = seen[d] < b->dom[n] ? seen[d] : b->dom[n];
				*wb2 = seen[d] < b->dom[n] ? b->dom[n] : seen[d];
			}
		}
	}
	return ok;
}

/* ---------------------------------------------------------- the build */

static int add_label(vkey *keys, int *nk, const char *label, bool topo)
{
	for (int i = 0; i < *nk; i++)
		if (!strcmp(keys[i].label, label))
			return 0;
	keys[*nk].label = label;
	keys[*nk].from_topology = topo;
	(*nk)++;
	return 1;
}

static int push_warning(wtp_topo *t, wa_arena *a, size_t *cap, char *w)
{
	if (!w)
		return -1;
	return WA_PUSH(a, t->warnings, t->nwarnings, *cap, (const char *)w);
}

/* Build the final key k from its value reading (value mode) or from the
 * tuple of its value and those of the keys before it (path mode). */
static int build_key(const ws_snapshot *s, int mode, wa_arena *a,
		     wa_arena *tmp, vkey *order, int idx, wtp_key *k)
{
	int nn = s->nnodes;
	const vkey *v = &order[idx];
	k->label = v->label;
	k->parent = -1;
	k->node_dom = wa_calloc(a, (size_t)nn + 1, sizeof *k->node_dom);
	if (!k->node_dom)
		return -1;
	if (mode != WASP_DOMAIN_PATH || idx == 0) {
		memcpy(k->node_dom, v->dom, (size_t)nn * sizeof *k->node_dom);
		k->ndom = v->ndom;
		k->dom_name = wa_calloc(a, (size_t)v->ndom + 1,
					sizeof *k->dom_name);
		if (!k->dom_name)
			return -1;
		for (int d = 0; d < v->ndom; d++)
			if (!(k->dom_name[d] = wa_strdup(a, v->names[d])))
				return -1;
	} else {
		/* path: "v0/v1/.../vk", a missing coarser label reads "" */
		const char **path = wa_calloc(tmp, (size_t)nn + 1,
					      sizeof *path);
		int *raw = wa_calloc(tmp, (size_t)nn + 1, sizeof *raw);
		const char **names = wa_calloc(tmp, (size_t)nn + 1,
					       sizeof *names);
		strmap m;
		if (!path || !raw || !names || strmap_init(&m, tmp, (size_t)nn))
			return -1;
		int nd = 0;
		for (int n = 0; n < nn; n++) {
			raw[n] = -1;
			if (v->dom[n] < 0)
				continue;
			size_t len = 0;
			for (int j = 0; j <= idx; j++) {
				int d = order[j].dom[n];
				len += 1 + (d < 0 ? 0
						  : strlen(order[j].names[d]));
			}
			char *p = wa_alloc(tmp, len), *q = p;
			if (!p)
				return -1;
			for (int j = 0; j <= idx; j++) {
				int d = order[j].dom[n];
				const char *val = d < 0 ? "" : order[j].names[d];
				size_t l = strlen(val);
				memcpy(q, val, l);
				q += l;
				*q++ = j == idx ? 0 : '/';
			}
			int added;
			raw[n] = strmap_get(&m, p, nd, &added);
			if (added)
				names[nd++] = p;
		}
		const char **sorted = wa_calloc(tmp, (size_t)nd + 1,
						sizeof *sorted);
		int *rank = wa_calloc(tmp, (size_t)nd + 1, sizeof *rank);
		k->dom_name = wa_calloc(a, (size_t)nd + 1, sizeof *k->dom_name);
		if (!sorted || !rank || !k->dom_name)
			return -1;
		memcpy(sorted, names, (size_t)nd * sizeof *names);
		qsort(sorted, (size_t)nd, sizeof *sorted, cmp_str_ptr);
		for (int i = 0; i < nd; i++) {
			int added;
			rank[strmap_get(&m, sorted[i], -1, &added)] = i;
			if (!(k->dom_name[i] = wa_strdup(a, sorted[i])))
				return -1;
		}
		for (int n = 0; n < nn; n++)
			k->node_dom[n] = raw[n] < 0 ? -1 : rank[raw[n]];
		k->ndom = nd;
	}
	k->dom_nnodes = wa_calloc(a, (size_t)k->ndom + 1, sizeof(int));
	k->dom_nodes = wa_calloc(a, (size_t)k->ndom + 1, sizeof(int *));
	k->dom_parent = wa_calloc(a, (size_t)k->ndom + 1, sizeof(int));
	if (!k->dom_nnodes || !k->dom_nodes || !k->dom_parent)
		return -1;
	for (int n = 0; n < nn; n++)
		if (k->node_dom[n] >= 0)
			k->dom_nnodes[k->node_dom[n]]++;
	for (int d = 0; d < k->ndom; d++) {
		k->dom_nodes[d] = wa_calloc(a, (size_t)k->dom_nnodes[d] + 1,
					    sizeof(int));
		if (!k->dom_nodes[d])
			return -1;
		k->dom_nnodes[d] = 0;
		k->dom_parent[d] = -1;
	}
	for (int n = 0; n < nn; n++) {
		int d = k->node_dom[n];
		if (d >= 0)
			k->dom_nodes[d][k->dom_nnodes[d]++] = n;
	}
	return 0;
}

/* finer[i*nk+j]: key i is finer than key j. */
static bool is_finer(const bool *nest, const vkey *keys, int nk, int i, int j)
{
	if (i == j || !nest[i * nk + j])
		return false;
	if (keys[i].ndom != keys[j].ndom)
		return keys[i].ndom > keys[j].ndom;
	/* the same partition twice: order by name */
	return nest[j * nk + i] && strcmp(keys[i].label, keys[j].label) > 0;
}

/* Insertion order of the keys a Topology object does not list: fewest
 * domains first, then name; labels no node carries last. */
static bool insert_before(const vkey *q, const vkey *p)
{
	if ((p->ndom > 0) != (q->ndom > 0))
		return q->ndom > 0;
	if (p->ndom != q->ndom)
		return q->ndom < p->ndom;
	return strcmp(q->label, p->label) < 0;
}

/* The keys in play: the Topology's levels (in its order), then the keys
 * groups, composites and annotations name; one warning per key no node
 * carries.  *ntopo: how many came from the Topology. */
static int collect_keys(const ws_snapshot *s, wa_arena *a, wa_arena *tmp,
			wtp_topo *t, size_t *wcapp, vkey **keysp, int *nkp,
			int *ntopop)
{
	size_t wcap = *wcapp;
	/* composite keys and annotation keys (up to 5 per object) */
	int maxk = s->ngroups + 1 + 6 * (s->ngroups + s->ncomps);
	if (s->ntopologies > 0)
		maxk += s->topologies[0].nlabels;
	vkey *keys = wa_calloc(tmp, (size_t)maxk, sizeof *keys);
	if (!keys)
		return -1;
	int nk = 0, ntopo = 0;
	if (s->ntopologies > 0) {
		const ws_levels *lv = &s->topologies[0];
		for (int i = 0; i < lv->nlabels; i++)
			add_label(keys, &nk, lv->labels[i], true);
		ntopo = nk;
		if (s->ntopologies > 1 &&
		    push_warning(t, a, &wcap,
				 wa_printf(a, "%d kueue Topology objects; "
					   "using the first (%s) for the "
					   "level order",
					   s->ntopologies, lv->name)))
			return -1;
	}
	for (int g = 0; g < s->ngroups; g++)
		if (s->groups[g].topo_key && s->groups[g].topo_key[0])
			add_label(keys, &nk, s->groups[g].topo_key, false);
	for (int h = 0; h < s->ncomps; h++)
		if (s->comps[h].topo_key && s->comps[h].topo_key[0])
			add_label(keys, &nk, s->comps[h].topo_key, false);
	/* annotation keys: preferred, exclusive, slice layers */
	for (int i = 0; i < s->ngroups + s->ncomps; i++) {
		const ws_tas *ta = i < s->ngroups ? s->groups[i].tas
						  : s->comps[i - s->ngroups].tas;
		if (!ta)
			continue;
		if (ta->preferred)
			add_label(keys, &nk, ta->preferred, false);
		if (ta->exclusive)
			add_label(keys, &nk, ta->exclusive, false);
		for (int l = 0; l < ta->nslices; l++)
			add_label(keys, &nk, ta->slice_key[l], false);
	}

	for (int i = 0; i < nk; i++) {
		if (read_values(s, tmp, &keys[i]))
			return -1;
		if (keys[i].ndom == 0 &&
		    push_warning(t, a, &wcap,
				 wa_printf(a, "topology key %s: no node "
					   "carries this label",
					   keys[i].label)))
			return -1;
	}
	*wcapp = wcap;
	*keysp = keys;
	*nkp = nk;
	*ntopop = ntopo;
	return 0;
}

/* The level order of the keys (ord) and, in *seenp, scratch for nests()
 * sized for the key with the most domains. */
static int order_keys(const ws_snapshot *s, wa_arena *tmp, const vkey *keys,
		      int nk, int ntopo, int **ordp, int **seenp)
{
	/* nest[i*nk+j]: key i nests in key j */
	bool *nest = wa_calloc(tmp, (size_t)nk * nk + 1, sizeof *nest);
	int maxd = 1;
	for (int i = 0; i < nk; i++)
		if (keys[i].ndom > maxd)
			maxd = keys[i].ndom;
	int *seen = wa_calloc(tmp, (size_t)maxd, sizeof *seen);
	if (!nest || !seen)
		return -1;
	for (int i = 0; i < nk; i++)
		for (int j = 0; j < nk; j++)
			nest[i * nk + j] = i == j ||
			    (keys[i].ndom > 0 && keys[j].ndom > 0 &&
			     nests(s, &keys[i], &keys[j], seen, NULL, NULL,
				   NULL));

	/* Order: the Topology keys as given, then the others, coarsest
	 * first (fewest domains, then name), each slotted in after the
	 * last key it is finer than, or before the first key finer than
	 * it, or at the end when it nests with nothing.  Labels no node
	 * carries come last. */
	int *rest = wa_calloc(tmp, (size_t)nk + 1, sizeof *rest);
	int *ord = wa_calloc(tmp, (size_t)nk + 1, sizeof *ord);
	if (!rest || !ord)
		return -1;
	int nrest = 0, nord = 0;
	for (int i = 0; i < ntopo; i++)
		ord[nord++] = i;
	for (int i = ntopo; i < nk; i++) {
		int at = nrest++;
		while (at > 0 && insert_before(&keys[i], &keys[rest[at - 1]])) {
			rest[at] = rest[at - 1];
			at--;
		}
		rest[at] = i;
	}
	for (int r = 0; r < nrest; r++) {
		int x = rest[r], lo = -1, hi = -1;
		for (int i = 0; i < nord; i++) {
			if (is_finer(nest, keys, nk, x, ord[i]))
				lo = i;
			if (hi < 0 && is_finer(nest, keys, nk, ord[i], x))
				hi = i;
		}
		int pos = lo >= 0 ? lo + 1 : hi >= 0 ? hi : nord;
		memmove(ord + pos + 1, ord + pos,
			(size_t)(nord - pos) * sizeof *ord);
		ord[pos] = x;
		nord++;
	}
	*ordp = ord;
	*seenp = seen;
	return 0;
}

/* Parents, and one warning per key that does not nest in the key before
 * it. */
static int link_parents(const ws_snapshot *s, int mode, wa_arena *a,
			wtp_topo *t, size_t *wcapp, const vkey *sorted,
			int nk, int *seen)
{
	size_t wcap = *wcapp;
	for (int i = 1; i < nk; i++) {
		wtp_key *k = &t->keys[i];
		const vkey *f = &sorted[i], *c = &sorted[i - 1];
		int wd = -1, w1 = -1, w2 = -1;
		bool ok = nests(s, f, c, seen, &wd, &w1, &w2);
		if (!ok && f->ndom > 0 && c->ndom > 0) {
			const char *fs = short_name(f->label);
			const char *cs = short_name(c->label);
			const char *tail = mode == WASP_DOMAIN_PATH
			    ? "reading each domain within its coarser path"
			    : "reading each key on its own";
			char *w;
			if (w1 < 0)
				w = wa_printf(a, "labels %s and %s do not "
					      "nest: %s %s spans %s %s and "
					      "nodes without %s; %s",
					      f->label, c->label, fs,
					      f->names[wd], cs, c->names[w2],
					      c->label, tail);
			else
				w = wa_printf(a, "labels %s and %s do not "
					      "nest: %s %s spans %ss %s and "
					      "%s; %s",
					      f->label, c->label, fs,
					      f->names[wd], cs, c->names[w1],
					      c->names[w2], tail);
			if (push_warning(t, a, &wcap, w))
				return -1;
		}
		if (mode == WASP_DOMAIN_PATH) {
			/* a path domain lies in its prefix by construction */
			k->parent = i - 1;
		} else {
			for (int j = i - 1; j >= 0; j--)
				if (nests(s, f, &sorted[j], seen, NULL, NULL,
					  NULL)) {
					k->parent = j;
					break;
				}
		}
		if (k->parent < 0)
			continue;
		const wtp_key *pk = &t->keys[k->parent];
		for (int d = 0; d < k->ndom; d++)
			k->dom_parent[d] = pk->node_dom[k->dom_nodes[d][0]];
	}
	*wcapp = wcap;
	return 0;
}

static int topo_build(const ws_snapshot *s, int mode, wa_arena *a,
		      wa_arena *tmp, wtp_topo *t)
{
	size_t wcap = 0;
	vkey *keys = NULL;
	int nk = 0, ntopo = 0, *ord = NULL, *seen = NULL;
	if (collect_keys(s, a, tmp, t, &wcap, &keys, &nk, &ntopo) ||
	    order_keys(s, tmp, keys, nk, ntopo, &ord, &seen))
		return -1;
	vkey *sorted = wa_calloc(tmp, (size_t)nk + 1, sizeof *sorted);
	t->keys = wa_calloc(a, (size_t)nk + 1, sizeof *t->keys);
	if (!sorted || !t->keys)
		return -1;
	for (int i = 0; i < nk; i++)
		sorted[i] = keys[ord[i]];
	t->nkeys = nk;
	for (int i = 0; i < nk; i++)
		if (build_key(s, mode, a, tmp, sorted, i, &t->keys[i]))
			return -1;
	return link_parents(s, mode, a, t, &wcap, sorted, nk, seen);
}

int wtp_build(const ws_snapshot *s, int mode, wa_arena *a, wtp_topo **out,
	      wasp_error *err)
{
	*out = NULL;
	if (mode != WASP_DOMAIN_VALUE && mode != WASP_DOMAIN_PATH)
		return werr(err, WASP_EINVAL, "unknown domain mode %d", mode);
	wtp_topo *t = wa_alloc(a, sizeof *t);
	wa_arena *tmp = wa_new();
	if (!t || !tmp) {
		wa_destroy(tmp);
		return werr(err, WASP_ENOMEM, "out of memory reading topology");
	}
	t->mode = mode;
	int rc = topo_build(s, mode, a, tmp, t);
	wa_destroy(tmp);
	if (rc)
		return werr(err, WASP_ENOMEM, "out of memory reading topology");
	*out = t;
	return WASP_OK;
}

int wtp_key_index(const wtp_topo *t, const char *label)
{
	if (!t || !label)
		return -1;
	for (int i = 0; i < t->nkeys; i++)
		if (!strcmp(t->keys[i].label, label))
			return i;
	return -1;
}

/* ------------------------------------------------------------- cache */

static void built_release(wtp_built *b)
{
	if (b && atomic_fetch_sub_explicit(&b->refs, 1,
					   memory_order_acq_rel) == 1) {
		wa_destroy(b->a);
		free(b);
	}
}

int wtp_get(const ws_snapshot *s, int mode, wa_arena *a, wtp_topo **out,
	    wasp_error *err)
{
	struct ws_cache *c = s->cache;
	if (!c || (mode != WASP_DOMAIN_VALUE && mode != WASP_DOMAIN_PATH))
		return wtp_build(s, mode, a, out, err);
	wtp_built *b = atomic_load_explicit(&c->topo[mode],
					    memory_order_acquire);
	if (!b) {
		wtp_built *mine = calloc(1, sizeof *mine);
		wa_arena *ta = mine ? wa_new() : NULL;
		int rc = ta ? wtp_build(s, mode, ta, &mine->t, err)
			    : werr(err, WASP_ENOMEM, "out of memory");
		if (rc) {
			wa_destroy(ta);
			free(mine);
			return rc;
		}
		atomic_init(&mine->refs, 1);
		mine->a = ta;
		/* another thread may have built it meanwhile: keep one */
		if (atomic_compare_exchange_strong_explicit(
			&c->topo[mode], &b, mine, memory_order_acq_rel,
			memory_order_acquire))
			b = mine;
		else
			built_release(mine);
	}
	*out = b->t;
	return WASP_OK;
}

void wtp_cache_release(struct ws_cache *c)
{
	for (int m = 0; c && m < 2; m++)
		built_release(atomic_load(&c->topo[m]));
}

void wtp_cache_inherit(struct ws_cache *dst, struct ws_cache *src,
		       const ws_snapshot *s, int first_new)
{
	for (int m = 0; src && m < 2; m++) {
		wtp_built *b = atomic_load(&src->topo[m]);
		bool same = b != NULL;
		for (int g = first_new; same && g < s->ngroups; g++)
			same = !s->groups[g].tas &&
			       (!s->groups[g].topo_key ||
				!s->groups[g].topo_key[0] ||
				wtp_key_index(b->t, s->groups[g].topo_key) >= 0);
		if (same) {
			atomic_fetch_add_explicit(&b->refs, 1,
						  memory_order_relaxed);
			atomic_store(&dst->topo[m], b);
		}
	}
}
