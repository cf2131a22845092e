/*
 * version.c -- snapshot versions: object sets, deltas, and the overlay of
 * assumed placements (version.h; doc/library.md, "Scheduler plugins").
 *
 * What is shared between versions, and how:
 *   - document trees (ws_trees): one arena per loaded text, freed when
 *     the last object set using one of its objects goes;
 *   - object sets (ws_objset): the ordered "Kind/ns/name" -> tree list a
 *     snapshot was decoded from; a delta copies the list of pointers (not
 *     the objects) and decodes the result, so a derived snapshot equals
 *     the one decoded from the equivalent files;
 *   - the decoded root (ws_store): the arena of a decoded snapshot, shared
 *     by the overlays of assumed placements made on it.
 * Reference counts are C11 atomics; nothing shared is written after it is
 * built.
 */
#include "model/version_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "io/load.h"
#include "model/decode.h"
#include "model/topology.h"

#define VS_LIST_DEPTH 2 /* a List inside a List, as the decoder */

int vs_nomem(wasp_error *err)
{
	return werr(err, WASP_ENOMEM, "out of memory");
}

/* ------------------------------------------------------------- counts */

ws_trees *ws_trees_new(wa_arena *a)
{
	ws_trees *t = malloc(sizeof *t);
	if (!t) {
		wa_destroy(a);
		return NULL;
	}
	atomic_init(&t->refs, 1);
	t->a = a;
	return t;
}

size_t ws_snapshot_bytes(const ws_snapshot *s)
{
	size_t n = s->arena ? wa_used(s->arena) : 0;
	const vs_objset *o = s->ver ? s->ver->objs : NULL;
	if (o) {
		n += wa_used(o->a);
		for (size_t i = 0; i < o->ntrees; i++)
			n += o->trees[i] ? wa_used(o->trees[i]->a) : 0;
	}
	return n;
}

static ws_trees *trees_ref(ws_trees *t)
{
	atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	return t;
}

void ws_trees_release(ws_trees *t)
{
	if (t && atomic_fetch_sub_explicit(&t->refs, 1,
					   memory_order_acq_rel) == 1) {
		wa_destroy(t->a);
		free(t);
	}
}

static void objset_release(vs_objset *o)
{
	if (!o || atomic_fetch_sub_explicit(&o->refs, 1,
					    memory_order_acq_rel) != 1)
		return;
	for (size_t i = 0; i < o->ntrees; i++)
		ws_trees_release(o->trees[i]);
	wa_destroy(o->a);
	free(o);
}

vs_store *vs_store_new(wa_arena *a)
{
	vs_store *st = malloc(sizeof *st);
	if (st) {
		atomic_init(&st->refs, 1);
		st->a = a;
		st->cache = NULL;
	}
	return st;
}

static void store_release(vs_store *st)
{
	if (st && atomic_fetch_sub_explicit(&st->refs, 1,
					    memory_order_acq_rel) == 1) {
		wtp_cache_release(st->cache);
		wa_destroy(st->a);
		free(st);
	}
}

void vs_version_release(struct ws_version *v)
{
	if (!v)
		return;
	wa_destroy(v->own); /* an overlay's struct lives here */
	for (size_t i = 0; i < v->npend; i++)
		ws_trees_release(v->pend[i].t);
	free(v->pend);
	for (size_t i = 0; i < v->nstores; i++)
		store_release(v->stores[i]); /* a plain struct lives here */
	free(v->stores);
	objset_release(v->objs);
	free(v);
}

void ws_version_free(ws_snapshot *s)
{
	vs_version_release(s->ver);
}

struct ws_version *vs_version_derive(const struct ws_version *base,
				     const vs_obj *more, size_t nmore,
				     vs_store *const *extra, size_t nextra,
				     bool drop_plain)
{
	struct ws_version *v = calloc(1, sizeof *v);
	size_t np = base->npend + nmore, ns = base->nstores + nextra;
	if (v) {
		v->pend = malloc((np + 1) * sizeof *v->pend);
		v->stores = malloc((ns + 1) * sizeof *v->stores);
	}
	if (!v || !v->pend || !v->stores) {
		for (size_t i = 0; i < nextra; i++)
			store_release(extra[i]);
		if (v) {
			free(v->pend);
			free(v->stores);
		}
		free(v);
		return NULL;
	}
	atomic_fetch_add_explicit(&base->objs->refs, 1, memory_order_relaxed);
	v->objs = base->objs;
	for (size_t i = 0; i < np; i++) {
		vs_obj o = i < base->npend ? base->pend[i]
					   : more[i - base->npend];
		if (o.t)
			trees_ref(o.t);
		v->pend[i] = o;
	}
	v->npend = np;
	size_t k = 0;
	for (size_t i = 0; i < base->nstores; i++) {
		if (drop_plain && base->stores[i] == base->plain_store)
			continue;
		atomic_fetch_add_explicit(&base->stores[i]->refs, 1,
					  memory_order_relaxed);
		v->stores[k++] = base->stores[i];
	}
	for (size_t i = 0; i < nextra; i++)
		v->stores[k++] = extra[i];
	v->nstores = k;
	(void)ns;
	v->plain = base->plain;
	v->root = base->root;
	v->plain_store = drop_plain ? NULL : base->plain_store;
	v->root_npods = base->root_npods;
	v->root_ngroups = base->root_ngroups;
	return v;
}

const wt_node *vs_lookup(const struct ws_version *v, const char *key)
{
	for (size_t i = v->npend; i-- > 0;)
		if (!strcmp(v->pend[i].key, key))
			return v->pend[i].obj;
	int i = ws_map_get(v->objs->idx, key);
	return i >= 0 ? v->objs->objs[i].obj : NULL;
}

bool ws_version_incremental(const ws_snapshot *s)
{
	return s && s->ver && s->ver->nstores > 1;
}

size_t ws_version_nassumed(const ws_snapshot *s)
{
	return s && s->ver ? s->ver->nas : 0;
}

/* --------------------------------------------------------------- keys */

bool ws_kind_namespaced(const char *kind)
{
	return !strcmp(kind, "Pod") || !strcmp(kind, "PodGroup") ||
	       !strcmp(kind, "Workload") ||
	       !strcmp(kind, "CompositePodGroup") ||
	       !strcmp(kind, "PodDisruptionBudget") ||
	       !strncmp(kind, "ResourceClaim", 13);
}

static const char *scalar(const wt_node *n)
{
	return n && (n->type == WT_STR || n->type == WT_NUM) ? n->str : NULL;
}

/* "Kind/ns/name" into buf. */
static void make_key(char *buf, const char *kind, const char *ns,
		     const char *name)
{
	if (ws_kind_namespaced(kind) && (!ns || !*ns))
		ns = "default";
	snprintf(buf, VS_KEY_MAX, "%s/%s/%s", kind, ns ? ns : "", name);
}

/* Collecting the objects of documents, Lists unwrapped.  Strict (a
 * delta): every object needs a kind and a name.  Lenient (a loaded
 * snapshot, already decoded): an object without them gets a key of its
 * own. */
typedef struct walker {
	ws_trees *t;
	vs_obj *out;
	size_t n, cap;
	bool strict;
	size_t anon;
	wasp_error *err;
} walker;

static int push_obj(walker *w, const char *key, const wt_node *o)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		vs_obj *x = realloc(w->out, cap * sizeof *x);
		if (!x)
			return vs_nomem(w->err);
		w->out = x;
		w->cap = cap;
	}
	const char *k = wa_strdup(w->t->a, key);
	if (!k)
		return vs_nomem(w->err);
	w->out[w->n++] = (vs_obj){k, o, w->t};
	return WASP_OK;
}

static int walk(walker *w, const wt_node *o, int depth)
{
	char key[VS_KEY_MAX];
	if (o->type == WT_NULL)
		return WASP_OK; /* an empty document */
	const char *kind = o->type == WT_MAP ? scalar(wt_get(o, "kind"))
					     : NULL;
	const wt_node *items = kind ? wt_get(o, "items") : NULL;
	size_t kl = kind ? strlen(kind) : 0;
	if (kind && depth < VS_LIST_DEPTH &&
	    (!strcmp(kind, "List") ||
	     (kl > 4 && !strcmp(kind + kl - 4, "List") && items))) {
		for (size_t i = 0; items && items->type == WT_SEQ &&
				   i < items->n; i++) {
			int rc = walk(w, items->items[i], depth + 1);
			if (rc)
				return rc;
		}
		return WASP_OK;
	}
	const wt_node *meta = o->type == WT_MAP ? wt_get(o, "metadata") : NULL;
	const char *name = meta && meta->type == WT_MAP
				   ? scalar(wt_get(meta, "name"))
				   : NULL;
	const char *ns = meta && meta->type == WT_MAP
				 ? scalar(wt_get(meta, "namespace"))
				 : NULL;
	if (!kind || !*kind || !name || !*name) {
		if (w->strict)
			return werr_at(w->err, WASP_EINPUT, o->src,
				       "expected a Kubernetes object with a "
				       "kind and a metadata.name");
		snprintf(key, sizeof key, "#%zu", w->anon++);
	} else
		make_key(key, kind, ns, name);
	return push_obj(w, key, o);
}

/* ------------------------------------------------------------ objsets */

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (ws_trees *const *)a,
		  y = (uintptr_t) * (ws_trees *const *)b;
	return x < y ? -1 : x > y;
}

/* A new object set of objs[0..n) (copied), holding a reference to each
 * trees arena they use. */
static vs_objset *objset_new(const vs_obj *objs, size_t n)
{
	vs_objset *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	atomic_init(&o->refs, 1);
	o->a = wa_new();
	o->objs = o->a ? wa_calloc(o->a, n + 1, sizeof *o->objs) : NULL;
	o->idx = o->a ? ws_map_new(o->a) : NULL;
	ws_trees **tl = o->a ? wa_calloc(o->a, n + 1, sizeof *tl) : NULL;
	if (!o->objs || !o->idx || !tl)
		goto fail;
	if (n)
		memcpy(o->objs, objs, n * sizeof *objs);
	o->n = n;
	o->pcs = wa_calloc(o->a, n + 1, sizeof *o->pcs);
	if (!o->pcs)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		if (ws_map_put(o->idx, objs[i].key, (int)i) == -2)
			goto fail;
		tl[i] = objs[i].t;
		if (!strncmp(objs[i].key, "PriorityClass/", 14))
			o->pcs[o->npcs++] = objs[i].obj;
	}
	qsort(tl, n, sizeof *tl, ptr_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || tl[k - 1] != tl[i])
			tl[k++] = trees_ref(tl[i]);
	o->trees = tl;
	o->ntrees = k;
	return o;
fail:
	wa_destroy(o->a);
	free(o);
	return NULL;
}

/* s, decoded from objs, becomes a root handle (the reference to objs
 * passes on success); -1 on NOMEM. */
static int root_version(ws_snapshot *s, vs_objset *objs)
{
	struct ws_version *v = calloc(1, sizeof *v);
	vs_store **st = malloc(sizeof *st);
	vs_store *root = v && st ? vs_store_new(s->arena) : NULL;
	if (!root) {
		free(v);
		free(st);
		return -1;
	}
	if (!(s->cache = wa_alloc(s->arena, sizeof *s->cache))) {
		store_release(root);
		free(v);
		free(st);
		return -1;
	}
	root->cache = s->cache;
	st[0] = root;
	v->objs = objs;
	v->stores = st;
	v->nstores = 1;
	v->plain = s;
	v->root = s;
	v->root_npods = s->npods;
	v->root_ngroups = s->ngroups;
	s->ver = v;
	return 0;
}

/* Decode an object set into a root snapshot with its version (the
 * caller's reference to objs passes to it, also on failure). */
static int decode_objset(vs_objset *objs, ws_snapshot **out, wasp_error *err)
{
	double t0 = wb_now();
	wt_node **roots = malloc((objs->n + 1) * sizeof *roots);
	if (!roots) {
		objset_release(objs);
		return vs_nomem(err);
	}
	for (size_t i = 0; i < objs->n; i++)
		roots[i] = (wt_node *)objs->objs[i].obj;
	wt_doc doc = {"<objects>", roots, objs->n};
	ws_snapshot *s = NULL;
	int rc = wd_decode(&doc, 1, &s, err);
	free(roots);
	if (!rc && root_version(s, objs))
		rc = vs_nomem(err);
	if (rc) {
		ws_snapshot_free(s);
		objset_release(objs);
		return rc;
	}
	s->t_load = wb_now() - t0;
	*out = s;
	return WASP_OK;
}

int ws_version_attach(ws_snapshot *s, ws_trees *t, const wt_doc *docs,
		      size_t ndocs, wasp_error *err)
{
	walker w = {.t = t, .strict = false, .err = err};
	int rc = WASP_OK;
	for (size_t d = 0; d < ndocs && !rc; d++)
		for (size_t i = 0; i < docs[d].nroots && !rc; i++)
			rc = walk(&w, docs[d].roots[i], 0);
	vs_objset *o = rc ? NULL : objset_new(w.out, w.n);
	free(w.out);
	ws_trees_release(t); /* the object set holds its own reference */
	if (!o || root_version(s, o)) {
		objset_release(o);
		return rc ? rc : vs_nomem(err);
	}
	return WASP_OK;
}

/* ------------------------------------------------------------- deltas */

int ws_delta_new(wasp_delta **out, wasp_error *err)
{
	wasp_delta *d = calloc(1, sizeof *d);
	if (d && !(d->a = wa_new())) {
		free(d);
		d = NULL;
	}
	*out = d;
	return d ? WASP_OK : vs_nomem(err);
}

void ws_delta_free(wasp_delta *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ntrees; i++)
		ws_trees_release(d->trees[i]);
	wa_destroy(d->a);
	free(d);
}

int ws_delta_put(wasp_delta *d, const char *text, size_t len,
		 const char *name, wasp_error *err)
{
	wa_arena *a = wa_new();
	ws_trees *t = a ? ws_trees_new(a) : NULL;
	if (!t)
		return vs_nomem(err);
	wt_doc doc;
	int rc = wl_load_text(a, text ? text : "", len, name, &doc, err);
	walker w = {.t = t, .strict = true, .err = err};
	for (size_t i = 0; i < doc.nroots && !rc; i++)
		rc = walk(&w, doc.roots[i], 0);
	size_t n0 = d->n;
	for (size_t i = 0; i < w.n && !rc; i++)
		if (WA_PUSH(d->a, d->ops, d->n, d->cap, w.out[i]))
			rc = vs_nomem(err);
	if (!rc && WA_PUSH(d->a, d->trees, d->ntrees, d->captrees, t))
		rc = vs_nomem(err);
	free(w.out);
	if (rc) {
		d->n = n0; /* the delta is unchanged */
		ws_trees_release(t);
	}
	return rc;
}

int ws_delta_delete(wasp_delta *d, const char *kind, const char *ns,
		    const char *name, wasp_error *err)
{
	char key[VS_KEY_MAX];
	if (!*kind || !*name || strlen(kind) > WASP_MAX_NAME ||
	    strlen(name) > WASP_MAX_NAME || (ns && strlen(ns) > WASP_MAX_NAME))
		return werr(err, WASP_EINVAL, "wasp_delta_delete: kind and "
			    "name must be 1 to %d characters", WASP_MAX_NAME);
	make_key(key, kind, ns, name);
	const char *k = wa_strdup(d->a, key);
	if (!k || WA_PUSH(d->a, d->ops, d->n, d->cap,
			  ((vs_obj){k, NULL, NULL})))
		return vs_nomem(err);
	return WASP_OK;
}

/* "Kind ns/name" of a key, for messages. */
static const char *key_words(char *buf, const char *key)
{
	const char *s1 = strchr(key, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : 0;
	if (!s2)
		snprintf(buf, VS_KEY_MAX, "%s", key);
	else if (s2 == s1 + 1)
		snprintf(buf, VS_KEY_MAX, "%.*s %s", (int)(s1 - key), key,
			 s2 + 1);
	else
		snprintf(buf, VS_KEY_MAX, "%.*s %.*s/%s", (int)(s1 - key), key,
			 (int)(s2 - s1 - 1), s1 + 1, s2 + 1);
	return buf;
}

/* The base's objects with the delta's operations, in order: a replaced
 * object keeps its place, a new one goes last (where it would be in the
 * equivalent files). */
static int apply_ops(const vs_objset *b, const vs_obj *pend, size_t npend,
		     const wasp_delta *d, vs_obj **out, size_t *nout,
		     wasp_error *err)
{
	size_t nops = npend + d->n, cap = b->n + nops + 1, n = b->n;
	vs_obj *objs = malloc(cap * sizeof *objs);
	bool *dead = calloc(cap, sizeof *dead);
	/* keys this delta touched -> slot; slot -> position (-1: none) */
	wa_arena *ta = wa_new();
	ws_map *touched = ta ? ws_map_new(ta) : NULL;
	long *slot = calloc(nops + 1, sizeof *slot);
	int rc = WASP_OK, nslots = 0;
	if (!objs || !dead || !touched || !slot) {
		rc = vs_nomem(err);
		goto done;
	}
	if (b->n)
		memcpy(objs, b->objs, b->n * sizeof *objs);
	for (size_t i = 0; i < nops && !rc; i++) {
		const vs_obj *op = i < npend ? &pend[i] : &d->ops[i - npend];
		int s = ws_map_get(touched, op->key);
		long pos;
		if (s >= 0)
			pos = slot[s];
		else {
			pos = ws_map_get(b->idx, op->key);
			s = nslots++;
			if (ws_map_put(touched, op->key, s) == -2) {
				rc = vs_nomem(err);
				break;
			}
		}
		if (!op->obj) { /* delete */
			char w[VS_KEY_MAX];
			if (pos < 0)
				rc = werr(err, WASP_ENOTFOUND, "cannot delete "
					  "%s: not in the snapshot",
					  key_words(w, op->key));
			else
				dead[pos] = true;
			slot[s] = -1;
			continue;
		}
		if (pos < 0)
			pos = (long)n++;
		objs[pos] = *op;
		dead[pos] = false;
		slot[s] = pos;
	}
	size_t k = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (!dead[i])
			objs[k++] = objs[i];
	*nout = k;
done:
	free(dead);
	free(slot);
	wa_destroy(ta);
	if (rc) {
		free(objs);
		objs = NULL;
	}
	*out = objs;
	return rc;
}

/* ------------------------------------------------------------ overlays */

static const char *dup_or_null(wa_arena *a, const char *s, bool *bad)
{
	char *c = s ? wa_strdup(a, s) : NULL;
	*bad |= s && !c;
	return c;
}

/* Bind pod i of s to node ni in the overlay, its node's usage copied
 * into the overlay's arena first (copied[] says which are). */
static int bind_pod(ws_snapshot *s, wa_arena *own, bool *copied, int i,
		    int ni, const char *node, wasp_error *err)
{
	ws_node *n = &s->nodes[ni];
	ws_pod *p = &s->pods[i];
	if (!copied[ni]) {
		int64_t *u = wa_calloc(own, (size_t)s->nres, sizeof *u);
		if (!u)
			return vs_nomem(err);
		memcpy(u, n->used, (size_t)s->nres * sizeof *u);
		n->used = u;
		copied[ni] = true;
	}
	for (int r = 0; r < s->nres; r++)
		if (__builtin_add_overflow(n->used[r], p->req[r], &n->used[r]))
			return werr(err, WASP_EINVAL, "assumed pods overflow "
				    "the requests on node %s", n->name);
	p->node_name = node;
	p->node = ni;
	return WASP_OK;
}

/* A new handle: the plain state of `pv` with the assumptions as[0..n)
 * bound.  Those before `strict_from` were valid once and are dropped
 * quietly when their pod is gone or no longer pending (a delta confirmed
 * or deleted it); from `strict_from` on, such a one is an error. */
static int overlay(const struct ws_version *pv, const ws_assumed *as,
		   size_t n, size_t strict_from, ws_snapshot **out,
		   wasp_error *err)
{
	const ws_snapshot *plain = pv->plain;
	wa_arena *own = wa_new();
	bool *copied = calloc((size_t)plain->nnodes + 1, sizeof *copied);
	ws_snapshot *s = own ? wa_alloc(own, sizeof *s) : NULL;
	ws_assumed *kept = own ? wa_calloc(own, n + 1, sizeof *kept) : NULL;
	size_t nkept = 0;
	int rc = WASP_OK;
	if (!s || !copied || !kept) {
		rc = vs_nomem(err);
		goto fail;
	}
	*s = *plain;
	s->arena = own;
	s->pods = wa_calloc(own, (size_t)plain->npods + 1, sizeof *s->pods);
	s->nodes = wa_calloc(own, (size_t)plain->nnodes + 1, sizeof *s->nodes);
	if (!s->pods || !s->nodes) {
		rc = vs_nomem(err);
		goto fail;
	}
	memcpy(s->pods, plain->pods, (size_t)plain->npods * sizeof *s->pods);
	memcpy(s->nodes, plain->nodes,
	       (size_t)plain->nnodes * sizeof *s->nodes);
	for (size_t k = 0; k < n && !rc; k++) {
		const ws_assumed *x = &as[k];
		int i = ws_pod_index(plain, x->ns, x->pod);
		int ni = ws_node_index(plain, x->node);
		if (i < 0 || ni < 0 || !ws_pod_pending(&s->pods[i])) {
			if (k >= strict_from)
				rc = werr(err, WASP_EINVAL, "cannot assume "
					  "%s/%s on %s: %s", x->ns, x->pod,
					  x->node,
					  i < 0	   ? "no such pod"
					  : ni < 0 ? "no such node"
						   : "the pod is not pending");
			continue;
		}
		ws_assumed *y = &kept[nkept];
		bool bad = false;
		y->ns = dup_or_null(own, x->ns, &bad);
		y->pod = dup_or_null(own, x->pod, &bad);
		y->node = dup_or_null(own, x->node, &bad);
		y->group = dup_or_null(own, x->group, &bad);
		y->target = dup_or_null(own, x->target, &bad);
		rc = bad ? vs_nomem(err)
			 : bind_pod(s, own, copied, i, ni, y->node, err);
		nkept += !rc;
	}
	struct ws_version *v = rc ? NULL : vs_version_derive(pv, NULL, 0,
							     NULL, 0, false);
	if (!rc && !v)
		rc = vs_nomem(err);
	if (rc)
		goto fail;
	free(copied);
	v->own = own;
	v->as = kept;
	v->nas = nkept;
	s->ver = v;
	*out = s;
	return WASP_OK;
fail:
	free(copied);
	wa_destroy(own);
	return rc;
}

static int no_version(wasp_error *err, const char *fn)
{
	return werr(err, WASP_EINVAL, "%s: the snapshot was not made by "
		    "wasp_snapshot_load, _from_text or _apply", fn);
}

/* The full path: the objects after the delta, decoded. */
static int apply_full(const struct ws_version *bv, const wasp_delta *d,
		      ws_snapshot **out, wasp_error *err)
{
	vs_obj *objs;
	size_t n;
	int rc = apply_ops(bv->objs, bv->pend, bv->npend, d, &objs, &n, err);
	if (rc)
		return rc;
	vs_objset *o = objset_new(objs, n);
	free(objs);
	if (!o)
		return vs_nomem(err);
	return decode_objset(o, out, err);
}

int ws_version_apply(const ws_snapshot *base, const wasp_delta *d,
		     ws_snapshot **out, wasp_error *err)
{
	*out = NULL;
	if (!base->ver)
		return no_version(err, "wasp_snapshot_apply");
	const struct ws_version *bv = base->ver;
	ws_snapshot *r = NULL;
	int rc = vs_apply_fast(base, d, &r, err);
	if (rc == 1)
		rc = apply_full(bv, d, &r, err);
	if (rc)
		return rc;
	if (!bv->nas) {
		*out = r;
		return WASP_OK;
	}
	/* the assumptions carry over, less those the delta settled */
	rc = overlay(r->ver, bv->as, bv->nas, bv->nas, out, err);
	ws_snapshot_free(r); /* the overlay holds what it needs */
	return rc;
}

int ws_version_assume(const ws_snapshot *base, const ws_assumed *as,
		      size_t n, ws_snapshot **out, wasp_error *err)
{
	*out = NULL;
	if (!base->ver)
		return no_version(err, "wasp_snapshot_assume");
	const struct ws_version *bv = base->ver;
	ws_assumed *all = malloc((bv->nas + n + 1) * sizeof *all);
	if (!all)
		return vs_nomem(err);
	if (bv->nas)
		memcpy(all, bv->as, bv->nas * sizeof *all);
	if (n)
		memcpy(all + bv->nas, as, n * sizeof *all);
	int rc = overlay(bv, all, bv->nas + n, bv->nas, out, err);
	free(all);
	return rc;
}

/* Whether assumption x was made for Kind/ns/name. */
static bool made_for(const ws_assumed *x, const char *key, const char *kind,
		     const char *ns, const char *name)
{
	if (x->target && !strcmp(x->target, key))
		return true;
	return !strcmp(kind, "PodGroup") && x->group && x->ns &&
	       !strcmp(x->ns, ns) && !strcmp(x->group, name);
}

int ws_version_forget(const ws_snapshot *base, const char *kind,
		      const char *ns, const char *name, ws_snapshot **out,
		      wasp_error *err)
{
	*out = NULL;
	if (!base->ver)
		return no_version(err, "wasp_snapshot_forget");
	const struct ws_version *bv = base->ver;
	char key[VS_KEY_MAX], w[VS_KEY_MAX];
	make_key(key, kind, ns, name);
	if (!ns || !*ns)
		ns = "default";
	ws_assumed *keep = malloc((bv->nas + 1) * sizeof *keep);
	if (!keep)
		return vs_nomem(err);
	size_t k = 0;
	for (size_t i = 0; i < bv->nas; i++)
		if (!made_for(&bv->as[i], key, kind, ns, name))
			keep[k++] = bv->as[i];
	int rc = k == bv->nas
		     ? werr(err, WASP_ENOTFOUND, "nothing assumed for %s",
			    key_words(w, key))
		     : overlay(bv, keep, k, k, out, err);
	free(keep);
	return rc;
}
