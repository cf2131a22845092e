/*
 * decode.c -- Kubernetes objects (document trees) -> ws_snapshot.
 *
 * Two phases.  collect() walks the documents in input order, unwraps
 * Lists, refuses retired API versions, detects duplicates and decodes each
 * object's own fields into intermediate records, so structural errors are
 * reported in input order.  resolve() then links what refers to what
 * (PodGroup -> Workload template, priority classes, pod -> group and node),
 * fixes the resource order (res[0] = "pods", then first use across nodes,
 * then pods) and builds the snapshot's arrays and indexes.
 *
 * Resources are interned with provisional indices while collecting (they
 * appear in input order, nodes and pods mixed) and renumbered at the end.
 * Intermediate records live in a temporary arena; everything the snapshot
 * keeps is copied into its own arena, so the trees may be freed afterwards.
 */
#include "model/decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dra.h"
#include "model/quantity.h"

#define PATHMAX 256
#define LIST_DEPTH 2       /* a List inside a List, no deeper        */
#define MAX_TPL_DEPTH 4    /* WorkloadMaxTreeDepth                  */
#define MAX_WARN_ITEMS 10  /* per-item warnings before a summary line */

/* Built-in classes the API server creates in every cluster; a snapshot may
 * name them without listing them. */
static const struct {
	const char *name;
	int32_t value;
} builtin_pcs[] = {
    {"system-cluster-critical", 2000000000},
    {"system-node-critical", 2000001000},
};

/* ------------------------------------------------------------ records */

typedef struct qv {
	int r;     /* provisional resource index */
	int64_t v; /* milli-units                */
} qv;

typedef struct qlist {
	qv *q;
	size_t n, cap;
} qlist;

/* Fields shared by PodGroup specs and PodGroupTemplates. */
typedef struct dspec {
	bool has_policy;
	int policy, min_count;
	bool has_topo;
	const char *topo_key;
	bool has_disrupt;
	int disruption;
	const wt_node *disrupt_node;
	bool has_preempt;
	int preempt;
	bool has_prio;
	int32_t prio;
	const char *pcname;
	const wt_node *pcname_node;
	bool claims;
	bool composite;   /* a CompositePodGroup: gang.minGroupCount */
	const wt_node *topo_node; /* the key's value, for messages */
	const wt_node *claims_node; /* spec.resourceClaims (DRA) */
} dspec;

typedef struct dtpl {
	const char *name;
	dspec sp;
	bool composite;   /* a compositePodGroupTemplate */
} dtpl;

typedef struct dwl {
	const char *ns, *name;
	dtpl *tpls;
	size_t ntpls, cap;
	bool composite;
} dwl;

typedef struct dgroup {
	const wt_node *obj, *spec;
	const char *ns, *name;
	wsrc src;
	dspec sp;
	const char *wl_name, *tpl_name;
	const wt_node *wl_node, *tpl_node;
	const char *parent;
	/* issue 5 */
	const wt_node *parent_node;
	bool composite;
	ws_tas *tas;
} dgroup;

typedef struct dpod {
	ws_pod p;
	qlist req;
	bool has_prio;
	int32_t prio;
	const char *pcname;
	const wt_node *pcname_node;
	bool has_preempt;
	int preempt;
	const char *gname;
	const wt_node *gname_node;
	bool dra, workload_ref;
	const wt_node *claims_node; /* spec.resourceClaims (DRA) */
	/* addition (issue 6): status.resourceClaimStatuses (DRA) */
	const wt_node *claim_status;
} dpod;

typedef struct dnode {
	ws_node n;
	qlist alloc;
} dnode;

typedef struct gacc {
	int *pods;
	size_t n, cap;
} gacc;

typedef struct dskip {
	const char *kind, *api, *why;
	int count;
} dskip;

typedef struct dctx {
	ws_snapshot *s;
	wa_arena *a;   /* snapshot arena   */
	wa_arena *t;   /* temporary arena  */
	wasp_error *err;
	int rc;        /* code of the error last reported */
	long nobjects;

	/* interned file names (tree src.file -> snapshot copy) */
	const char *file_in, *file_out;

	ws_map *objs;             /* "Kind/ns/name" -> index in first_at */
	const wt_node **first_at; /* metadata.name node of each object   */
	size_t nfirst, capfirst;

	ws_map *res;              /* resource name -> provisional index   */
	const char **rnames;
	size_t nres, caprn;

	dnode *nodes;
	size_t nnodes, capnodes;
	dpod *pods;
	size_t npods, cappods;
	dgroup *groups;
	size_t ngroups, capgroups;
	dgroup *cgroups;          /* CompositePodGroups */
	size_t ncgroups, capcgroups;
	dwl *wls;
	size_t nwls, capwls;
	ws_map *wl_idx;
	ws_priority_class *pcs;
	size_t npcs, cappcs;
	const wt_node **pc_default_node; /* parallel to pcs */
	size_t capdef;
	ws_levels *topos;
	size_t ntopos, captopos;
	dskip *skips;
	size_t nskips, capskips;
	const char **warns;
	size_t nwarns, capwarns;
	ws_pdb *pdbs;             /* policy/v1 PodDisruptionBudgets (arena a) */
	size_t npdbs, cappdbs;

	/* assembly */
	ws_group *out_groups; /* real groups, then placeholders        */
	size_t nout_groups;
	struct gacc *acc;     /* pods per output group                 */
	ws_map *gidx, *nidx;
	int *final;           /* provisional -> final resource index   */
	size_t nlost, nopods, ndra, nwref;
	const struct dpod *first_lost;
	const char *first_nopods;

	/* pod request scratch, sized to nres */
	int64_t *sum, *side, *imax, *cand, *podl;
	bool *mark, *podl_set;
	int *touched;
	size_t scap;

	/* DRA objects, handed to dra.c after assembly */
	const wt_node **draobjs;
	size_t ndraobjs, capdraobjs;
} dctx;

/* ------------------------------------------------------------ helpers */

static int nomem(dctx *c)
{
	return c->rc = werr(c->err, WASP_ENOMEM,
			    "out of memory while decoding");
}

/* "path: message" at n's position. */
__attribute__((format(printf, 4, 5)))
static int bad(dctx *c, const wt_node *n, const char *path, const char *fmt,
	       ...)
{
	char msg[480];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	wsrc at = n ? n->src : (wsrc){0};
	c->rc = WASP_EINPUT;
	if (path && *path)
		return werr_at(c->err, WASP_EINPUT, at, "%s: %s", path, msg);
	return werr_at(c->err, WASP_EINPUT, at, "%s", msg);
}

/* Path building; overlong paths are cut (they only label messages). */
static const char *pcat(char *buf, const char *a, const char *sep,
			const char *b)
{
	const char *parts[3] = {a, sep, b};
	size_t n = 0;
	for (int k = 0; k < 3; k++)
		for (const char *x = parts[k]; x && *x && n < PATHMAX - 1; x++)
			buf[n++] = *x;
	buf[n] = 0;
	return buf;
}

static const char *pk(char *buf, const char *base, const char *key)
{
	return pcat(buf, base, base && *base ? "." : "", key);
}

static const char *pi(char *buf, const char *base, size_t i)
{
	char idx[32];
	snprintf(idx, sizeof idx, "[%zu]", i);
	return pcat(buf, base, "", idx);
}

/* Map lookup; a null value counts as absent (kubectl prints many). */
static const wt_node *mget(const wt_node *m, const char *key)
{
	if (!m || m->type != WT_MAP)
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		const wt_node *k = wt_key(m, i);
		if (k->str && !strcmp(k->str, key)) {
			const wt_node *v = wt_val(m, i);
			return v->type == WT_NULL ? NULL : v;
		}
	}
	return NULL;
}

/* The key node itself (for errors about a field's name). */
static const wt_node *mkey(const wt_node *m, const char *key)
{
	if (!m || m->type != WT_MAP)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (wt_key(m, i)->str && !strcmp(wt_key(m, i)->str, key))
			return wt_key(m, i);
	return NULL;
}

static int want(dctx *c, const wt_node *n, wt_type t, const char *path)
{
	if (n->type == t)
		return 0;
	const char *w = t == WT_MAP ? "a map" : t == WT_SEQ ? "a list"
		      : t == WT_BOOL ? "a boolean" : "a scalar";
	return bad(c, n, path, "expected %s, got %s", w,
		   wt_type_phrase(n->type));
}

static bool is_scalar(const wt_node *n)
{
	return n->type == WT_STR || n->type == WT_NUM || n->type == WT_BOOL;
}

/* A string field: any scalar's text (unquoted `version: 1` reads as "1").
 * Returns the tree's text (not copied). */
static int sval(dctx *c, const wt_node *n, const char *path, const char **out)
{
	*out = "";
	if (!is_scalar(n))
		return bad(c, n, path, "expected a string, got %s",
			   wt_type_phrase(n->type));
	*out = n->str ? n->str : "";
	return 0;
}

/* Optional string field of map m, copied into the snapshot arena. */
static int sfield(dctx *c, const wt_node *m, const char *key,
		  const char *base, const char **out, const wt_node **node)
{
	char p[PATHMAX];
	const wt_node *v = mget(m, key);
	*out = NULL;
	if (node)
		*node = v;
	if (!v)
		return 0;
	const char *s = "";
	if (sval(c, v, pk(p, base, key), &s))
		return c->rc;
	if (!(*out = wa_strdup(c->a, s)))
		return nomem(c);
	return 0;
}

static int ival(dctx *c, const wt_node *n, const char *path, int64_t lo,
		int64_t hi, int64_t *out)
{
	if (n->type != WT_NUM && n->type != WT_STR)
		return bad(c, n, path, "expected an integer, got %s",
			   wt_type_phrase(n->type));
	const char *s = n->str ? n->str : "";
	const char *p = s;
	bool neg = false;
	if (n->type == WT_STR)
		return bad(c, n, path, "expected an integer, got the string "
			   "\"%s\"", s);
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p)
		return bad(c, n, path, "expected an integer, got \"%s\"", s);
	uint64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return bad(c, n, path,
				   "expected an integer, got \"%s\"", s);
		if (v > (UINT64_MAX - 9) / 10) {
			v = UINT64_MAX;
			break;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if ((!neg && v > (uint64_t)hi) ||
	    (neg && (lo >= 0 ? v > 0 : v > (uint64_t)0 - (uint64_t)lo)))
		return bad(c, n, path, "%s is out of range [%lld, %lld]", s,
			   (long long)lo, (long long)hi);
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int bval(dctx *c, const wt_node *n, const char *path, bool *out)
{
	if (n->type != WT_BOOL)
		return bad(c, n, path, "expected true or false, got %s",
			   wt_type_phrase(n->type));
	*out = n->boolean;
	return 0;
}

static const char *file_of(dctx *c, const char *f)
{
	if (!f)
		return NULL;
	if (f == c->file_in)
		return c->file_out;
	const char *d = wa_strdup(c->a, f);
	if (d) {
		c->file_in = f;
		c->file_out = d;
	}
	return d;
}

static wsrc src_of(dctx *c, const wt_node *n)
{
	wsrc s = n->src;
	s.file = file_of(c, s.file);
	return s;
}

__attribute__((format(printf, 2, 3)))
static int warn(dctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	const char *w = wa_strdup(c->a, buf);
	if (!w || WA_PUSH(c->t, c->warns, c->nwarns, c->capwarns, w))
		return nomem(c);
	return 0;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A name usable in "ns/name" keys. */
static int check_name(dctx *c, const wt_node *n, const char *path,
		      const char *s)
{
	if (!*s)
		return bad(c, n, path, "must not be empty");
	if (strlen(s) > WASP_MAX_NAME)
		return bad(c, n, path, "longer than %d characters",
			   WASP_MAX_NAME);
	if (strchr(s, '/'))
		return bad(c, n, path, "\"%s\" must not contain '/'", s);
	return 0;
}

/* ---------------------------------------------------------- resources */

static int intern_res(dctx *c, const char *name, int *out)
{
	int r = ws_map_get(c->res, name);
	if (r >= 0) {
		*out = r;
		return 0;
	}
	const char *k = wa_strdup(c->a, name);
	if (!k || WA_PUSH(c->t, c->rnames, c->nres, c->caprn, k))
		return nomem(c);
	if (ws_map_put(c->res, k, (int)c->nres - 1) == -2)
		return nomem(c);
	*out = (int)c->nres - 1;
	return 0;
}

static int qval(dctx *c, const wt_node *n, const char *path, int64_t *out)
{
	if (n->type != WT_STR && n->type != WT_NUM)
		return bad(c, n, path, "expected a quantity, got %s",
			   wt_type_phrase(n->type));
	const char *why = "";
	int st = wq_parse(n->str, n->len, out, &why);
	if (st != WQ_OK)
		return bad(c, n, path, "bad quantity \"%s\": %s", n->str, why);
	if (*out < 0)
		return bad(c, n, path, "negative quantity \"%s\"", n->str);
	return 0;
}

/* A map resource-name -> quantity, appended to l (skipping "pods" when
 * skip_pods: a pod's own count is fixed at one). */
static int dec_reslist(dctx *c, const wt_node *m, const char *path,
		       qlist *l, bool skip_pods)
{
	char p[PATHMAX];
	if (want(c, m, WT_MAP, path))
		return c->rc;
	for (size_t i = 0; i < m->n; i++) {
		const char *name = wt_key(m, i)->str;
		const wt_node *v = wt_val(m, i);
		int64_t q;
		int r;
		if (qval(c, v, pk(p, path, name), &q))
			return c->rc;
		if (!*name)
			return bad(c, wt_key(m, i), path,
				   "empty resource name");
		if (skip_pods && !strcmp(name, "pods"))
			continue;
		if (intern_res(c, name, &r))
			return WASP_ENOMEM;
		if (WA_PUSH(c->t, l->q, l->n, l->cap, ((qv){r, q})))
			return nomem(c);
	}
	return 0;
}

static bool ql_has(const qlist *l, int r)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->q[i].r == r)
			return true;
	return false;
}

/* requests, and limits for resources without a request (the API server
 * defaults a missing request to the limit). */
static int dec_resources(dctx *c, const wt_node *res, const char *path,
			 qlist *out)
{
	char p[PATHMAX];
	if (want(c, res, WT_MAP, path))
		return c->rc;
	const wt_node *rq = mget(res, "requests"), *lim = mget(res, "limits");
	if (rq && dec_reslist(c, rq, pk(p, path, "requests"), out, true))
		return c->rc;
	if (lim) {
		qlist l = {0};
		if (dec_reslist(c, lim, pk(p, path, "limits"), &l, true))
			return c->rc;
		size_t nreq = out->n;
		for (size_t i = 0; i < l.n; i++) {
			qlist head = {out->q, nreq, nreq};
			if (!ql_has(&head, l.q[i].r) &&
			    WA_PUSH(c->t, out->q, out->n, out->cap, l.q[i]))
				return nomem(c);
		}
	}
	return 0;
}

static int scratch_fit(dctx *c)
{
	if (c->scap >= c->nres)
		return 0;
	size_t n = c->nres * 2 + 8;
	int64_t **v[] = {&c->sum, &c->side, &c->imax, &c->cand, &c->podl};
	for (size_t i = 0; i < 5; i++) {
		int64_t *x = wa_calloc(c->t, n, sizeof *x);
		if (!x)
			return nomem(c);
		*v[i] = x;
	}
	c->mark = wa_calloc(c->t, n, sizeof *c->mark);
	c->podl_set = wa_calloc(c->t, n, sizeof *c->podl_set);
	c->touched = wa_calloc(c->t, n, sizeof *c->touched);
	if (!c->mark || !c->podl_set || !c->touched)
		return nomem(c);
	c->scap = n;
	return 0;
}

/* ------------------------------------------------------ common pieces */

static int dec_labels(dctx *c, const wt_node *m, const char *path,
		      ws_kv **out, int *nout)
{
	char p[PATHMAX];
	*out = NULL;
	*nout = 0;
	if (want(c, m, WT_MAP, path))
		return c->rc;
	if (m->n == 0)
		return 0;
	ws_kv *kv = wa_calloc(c->a, m->n, sizeof *kv);
	if (!kv)
		return nomem(c);
	for (size_t i = 0; i < m->n; i++) {
		const wt_node *v = wt_val(m, i);
		const char *key = wt_key(m, i)->str, *s = "";
		if (v->type != WT_NULL &&
		    sval(c, v, pk(p, path, key), &s))
			return c->rc;
		kv[i].key = wa_strdup(c->a, key);
		kv[i].val = wa_strdup(c->a, s);
		if (!kv[i].key || !kv[i].val)
			return nomem(c);
	}
	*out = kv;
	*nout = (int)m->n;
	return 0;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const ws_kv *)a)->key, ((const ws_kv *)b)->key);
}

static int dec_effect(dctx *c, const wt_node *n, const char *path,
		      bool allow_empty, ws_effect *out)
{
	const char *s = "";
	if (sval(c, n, path, &s))
		return c->rc;
	if (!strcmp(s, "NoSchedule"))
		*out = WS_EFFECT_NOSCHEDULE;
	else if (!strcmp(s, "PreferNoSchedule"))
		*out = WS_EFFECT_PREFERNOSCHEDULE;
	else if (!strcmp(s, "NoExecute"))
		*out = WS_EFFECT_NOEXECUTE;
	else if (allow_empty && !*s)
		*out = WS_EFFECT_ALL;
	else
		return bad(c, n, path, "unknown effect \"%s\" (want NoSchedule"
			   ", PreferNoSchedule or NoExecute)", s);
	return 0;
}

static int dec_preempt(dctx *c, const wt_node *n, const char *path,
		       int *out)
{
	const char *s = "";
	if (sval(c, n, path, &s))
		return c->rc;
	if (!strcmp(s, "PreemptLowerPriority"))
		*out = WS_PREEMPT_LOWER;
	else if (!strcmp(s, "Never"))
		*out = WS_PREEMPT_NEVER;
	else
		return bad(c, n, path, "unknown preemptionPolicy \"%s\" (want "
			   "PreemptLowerPriority or Never)", s);
	return 0;
}

static const char *preempt_name(int p)
{
	return p == WS_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority";
}

/* ------------------------------------------------------------- object */

static int dup_check(dctx *c, const char *kind, const char *ns,
		     const char *name, const wt_node *name_node)
{
	const char *key = ns ? wa_printf(c->t, "%s/%s/%s", kind, ns, name)
			     : wa_printf(c->t, "%s//%s", kind, name);
	if (!key)
		return nomem(c);
	int prev = ws_map_put(c->objs, key, (int)c->nfirst);
	if (prev == -2)
		return nomem(c);
	if (prev >= 0) {
		const wt_node *f = c->first_at[prev];
		return bad(c, name_node, "", "duplicate %s %s%s%s (first at "
			   "%s:%d:%d)", kind, ns ? ns : "", ns ? "/" : "",
			   name, f->src.file ? f->src.file : "",
			   f->src.line, f->src.col);
	}
	if (WA_PUSH(c->t, c->first_at, c->nfirst, c->capfirst, name_node))
		return nomem(c);
	return 0;
}

/* ---------------------------------------------------------------- Node */

static int dec_node(dctx *c, const wt_node *o, const char *name,
		    const wt_node *meta)
{
	char p[PATHMAX], q[PATHMAX];
	dnode d = {0};
	ws_node *n = &d.n;
	n->name = wa_strdup(c->a, name);
	if (!n->name)
		return nomem(c);
	n->src = src_of(c, o);
	n->ready = true;

	const wt_node *lab = mget(meta, "labels");
	if (lab) {
		if (dec_labels(c, lab, "metadata.labels", &n->labels,
			       &n->nlabels))
			return c->rc;
		if (n->nlabels > 1) /* qsort(NULL, 0) is undefined */
			qsort(n->labels, (size_t)n->nlabels,
			      sizeof *n->labels, kv_cmp);
	}

	const wt_node *spec = mget(o, "spec"), *st = mget(o, "status");
	if (spec && want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (st && want(c, st, WT_MAP, "status"))
		return c->rc;

	const wt_node *v;
	if ((v = mget(spec, "unschedulable")) &&
	    bval(c, v, "spec.unschedulable", &n->unschedulable))
		return c->rc;

	const wt_node *taints = mget(spec, "taints");
	if (taints) {
		if (want(c, taints, WT_SEQ, "spec.taints"))
			return c->rc;
		n->taints = wa_calloc(c->a, taints->n + 1, sizeof *n->taints);
		if (!n->taints)
			return nomem(c);
		for (size_t i = 0; i < taints->n; i++) {
			const wt_node *t = taints->items[i];
			ws_taint *tt = &n->taints[i];
			pi(p, "spec.taints", i);
			if (want(c, t, WT_MAP, p))
				return c->rc;
			if (sfield(c, t, "key", p, &tt->key, NULL) ||
			    sfield(c, t, "value", p, &tt->val, NULL))
				return c->rc;
			if (!tt->key || !*tt->key)
				return bad(c, t, p, "taint has no key");
			if (!tt->val)
				tt->val = "";
			const wt_node *e = mget(t, "effect");
			if (!e)
				return bad(c, t, p, "taint has no effect");
			if (dec_effect(c, e, pk(q, p, "effect"), false,
				       &tt->effect))
				return c->rc;
		}
		n->ntaints = (int)taints->n;
	}

	const wt_node *conds = mget(st, "conditions");
	if (conds) {
		if (want(c, conds, WT_SEQ, "status.conditions"))
			return c->rc;
		for (size_t i = 0; i < conds->n; i++) {
			const wt_node *cd = conds->items[i];
			const char *type = NULL, *status = NULL;
			const wt_node *tn, *sn;
			pi(p, "status.conditions", i);
			if (want(c, cd, WT_MAP, p))
				return c->rc;
			if ((tn = mget(cd, "type")) &&
			    sval(c, tn, pk(q, p, "type"), &type))
				return c->rc;
			if ((sn = mget(cd, "status")) &&
			    sval(c, sn, pk(q, p, "status"), &status))
				return c->rc;
			if (type && !strcmp(type, "Ready"))
				n->ready = status && !strcmp(status, "True");
		}
	}

	/* allocatable, or capacity when a node reports no allocatable */
	const wt_node *al = mget(st, "allocatable");
	const char *alp = "status.allocatable";
	if (!al) {
		al = mget(st, "capacity");
		alp = "status.capacity";
	}
	if (al && dec_reslist(c, al, alp, &d.alloc, false))
		return c->rc;

	if (WA_PUSH(c->t, c->nodes, c->nnodes, c->capnodes, d))
		return nomem(c);
	return 0;
}

/* ----------------------------------------------------------------- Pod */

static int dec_expr(dctx *c, const wt_node *x, const char *path, bool field,
		    ws_expr *e)
{
	char p[PATHMAX];
	const wt_node *opn, *vals;
	const char *op;
	if (want(c, x, WT_MAP, path))
		return c->rc;
	if (sfield(c, x, "key", path, &e->key, NULL))
		return c->rc;
	if (!e->key || !*e->key)
		return bad(c, x, path, "requirement has no key");
	e->field = field;
	if (field && strcmp(e->key, "metadata.name"))
		return bad(c, mget(x, "key"), pk(p, path, "key"),
			   "matchFields supports only metadata.name, not "
			   "\"%s\"", e->key);
	if (!(opn = mget(x, "operator")))
		return bad(c, x, path, "requirement has no operator");
	if (sval(c, opn, pk(p, path, "operator"), &op))
		return c->rc;
	static const struct {
		const char *name;
		ws_op op;
	} ops[] = {{"In", WS_OP_IN}, {"NotIn", WS_OP_NOTIN},
		   {"Exists", WS_OP_EXISTS},
		   {"DoesNotExist", WS_OP_DOESNOTEXIST}, {"Gt", WS_OP_GT},
		   {"Lt", WS_OP_LT}};
	size_t k;
	for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (!strcmp(op, ops[k].name))
			break;
	if (k == sizeof ops / sizeof ops[0] ||
	    (field && ops[k].op != WS_OP_IN && ops[k].op != WS_OP_NOTIN))
		return bad(c, opn, pk(p, path, "operator"),
			   "unknown operator \"%s\" (want %s)", op,
			   field ? "In or NotIn"
				 : "In, NotIn, Exists, DoesNotExist, Gt or "
				   "Lt");
	e->op = ops[k].op;

	vals = mget(x, "values");
	if (vals && want(c, vals, WT_SEQ, pk(p, path, "values")))
		return c->rc;
	size_t nv = vals ? vals->n : 0;
	const wt_node *where = vals ? vals : opn;
	switch (e->op) {
	case WS_OP_IN:
	case WS_OP_NOTIN:
		if (nv == 0)
			return bad(c, where, pk(p, path, "values"),
				   "%s needs at least one value", op);
		break;
	case WS_OP_EXISTS:
	case WS_OP_DOESNOTEXIST:
		if (nv)
			return bad(c, where, pk(p, path, "values"),
				   "%s takes no values", op);
		break;
	case WS_OP_GT:
	case WS_OP_LT:
		if (nv != 1)
			return bad(c, where, pk(p, path, "values"),
				   "%s needs exactly one value", op);
		break;
	}
	if (nv) {
		e->vals = wa_calloc(c->a, nv, sizeof *e->vals);
		if (!e->vals)
			return nomem(c);
		for (size_t i = 0; i < nv; i++) {
			char vp[PATHMAX];
			const char *s = "";
			pi(vp, pk(p, path, "values"), i);
			if (sval(c, vals->items[i], vp, &s))
				return c->rc;
			if (!(e->vals[i] = wa_strdup(c->a, s)))
				return nomem(c);
		}
		e->nvals = (int)nv;
	}
	if (e->op == WS_OP_GT || e->op == WS_OP_LT) {
		/* strconv.ParseInt: digits with an optional sign */
		const char *s = e->vals[0], *d = s;
		bool neg = false;
		uint64_t v = 0;
		bool ok = true;
		if (*d == '+' || *d == '-')
			neg = *d++ == '-';
		if (!*d)
			ok = false;
		for (; *d && ok; d++) {
			if (*d < '0' || *d > '9' ||
			    v > ((uint64_t)INT64_MAX + (neg ? 1 : 0) -
				 (uint64_t)(*d - '0')) / 10)
				ok = false;
			else
				v = v * 10 + (uint64_t)(*d - '0');
		}
		if (!ok) {
			char vp[PATHMAX];
			return bad(c, vals->items[0],
				   pi(vp, pk(p, path, "values"), 0),
				   "%s needs an integer, got \"%s\"", op, s);
		}
		e->num = neg ? (int64_t)(0 - v) : (int64_t)v;
	}
	return 0;
}

static int dec_affinity(dctx *c, const wt_node *aff, ws_pod *pod)
{
	char p[PATHMAX], q[PATHMAX], r[PATHMAX];
	const char *base = "spec.affinity";
	if (want(c, aff, WT_MAP, base))
		return c->rc;
	const wt_node *na = mget(aff, "nodeAffinity");
	if (!na)
		return 0;
	if (want(c, na, WT_MAP, "spec.affinity.nodeAffinity"))
		return c->rc;
	const char *rp = "spec.affinity.nodeAffinity."
			 "requiredDuringSchedulingIgnoredDuringExecution";
	const wt_node *req = mget(na, "requiredDuringSchedulingIgnoredDuring"
				      "Execution");
	if (!req)
		return 0;
	if (want(c, req, WT_MAP, rp))
		return c->rc;
	const wt_node *terms = mget(req, "nodeSelectorTerms");
	pk(p, rp, "nodeSelectorTerms");
	if (!terms || terms->n == 0)
		return bad(c, terms ? terms : req, p,
			   "a required node selector needs at least one "
			   "term");
	if (want(c, terms, WT_SEQ, p))
		return c->rc;
	pod->affinity = wa_calloc(c->a, terms->n, sizeof *pod->affinity);
	if (!pod->affinity)
		return nomem(c);
	for (size_t t = 0; t < terms->n; t++) {
		const wt_node *term = terms->items[t];
		ws_term *wt = &pod->affinity[t];
		pi(q, p, t);
		if (want(c, term, WT_MAP, q))
			return c->rc;
		const wt_node *me = mget(term, "matchExpressions"),
			      *mf = mget(term, "matchFields");
		if (me && want(c, me, WT_SEQ, pk(r, q, "matchExpressions")))
			return c->rc;
		if (mf && want(c, mf, WT_SEQ, pk(r, q, "matchFields")))
			return c->rc;
		size_t ne = (me ? me->n : 0) + (mf ? mf->n : 0);
		wt->exprs = wa_calloc(c->a, ne + 1, sizeof *wt->exprs);
		if (!wt->exprs)
			return nomem(c);
		for (int f = 0; f < 2; f++) {
			const wt_node *l = f ? mf : me;
			for (size_t i = 0; l && i < l->n; i++) {
				char xp[PATHMAX];
				pi(xp, pk(r, q, f ? "matchFields"
						  : "matchExpressions"), i);
				if (dec_expr(c, l->items[i], xp, f,
					     &wt->exprs[wt->nexprs]))
					return c->rc;
				wt->nexprs++;
			}
		}
	}
	pod->naffinity = (int)terms->n;
	return 0;
}

static int dec_tolerations(dctx *c, const wt_node *tl, ws_pod *pod)
{
	char p[PATHMAX], q[PATHMAX];
	const char *base = "spec.tolerations";
	if (want(c, tl, WT_SEQ, base))
		return c->rc;
	pod->tolerations = wa_calloc(c->a, tl->n + 1,
				     sizeof *pod->tolerations);
	if (!pod->tolerations)
		return nomem(c);
	for (size_t i = 0; i < tl->n; i++) {
		const wt_node *t = tl->items[i], *opn, *e;
		ws_toleration *to = &pod->tolerations[i];
		pi(p, base, i);
		if (want(c, t, WT_MAP, p))
			return c->rc;
		if (sfield(c, t, "key", p, &to->key, NULL) ||
		    sfield(c, t, "value", p, &to->val, NULL))
			return c->rc;
		if (!to->key)
			to->key = "";
		if (!to->val)
			to->val = "";
		const char *op = "";
		if ((opn = mget(t, "operator")) &&
		    sval(c, opn, pk(q, p, "operator"), &op))
			return c->rc;
		if (!strcmp(op, "Exists"))
			to->exists = true;
		else if (*op && strcmp(op, "Equal"))
			return bad(c, opn, q, "unknown operator \"%s\" (want "
				   "Exists or Equal)", op);
		if (!to->exists && !*to->key)
			return bad(c, t, p, "operator must be Exists when the "
				   "key is empty");
		if (to->exists && *to->val)
			return bad(c, mget(t, "value"), pk(q, p, "value"),
				   "must be empty when operator is Exists");
		to->effect = WS_EFFECT_ALL;
		if ((e = mget(t, "effect")) &&
		    dec_effect(c, e, pk(q, p, "effect"), true, &to->effect))
			return c->rc;
	}
	pod->ntolerations = (int)tl->n;
	return 0;
}

static bool pod_level_resource(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "memory") ||
	       !strncmp(name, "hugepages-", 10);
}

static int add_ck(dctx *c, const wt_node *at, int64_t *x, int64_t y)
{
	if (__builtin_add_overflow(*x, y, x))
		return bad(c, at, "", "summed resource requests overflow");
	return 0;
}

static void touch(dctx *c, int r, int *nt)
{
	if (!c->mark[r]) {
		c->mark[r] = true;
		c->touched[(*nt)++] = r;
	}
}

/* Effective pod requests (component-helpers' PodRequests): regular
 * containers summed; init containers by the max rule, with restartable
 * (sidecar) init containers running alongside everything after them
 * (KEP-753); pod-level requests for cpu/memory/hugepages; overhead. */
static int dec_requests(dctx *c, const wt_node *o, const wt_node *spec,
			dpod *d)
{
	char p[PATHMAX], q[PATHMAX];
	qlist *ctr = NULL;
	bool *sidecar = NULL;
	size_t nc = 0, ni = 0;
	const wt_node *cs = mget(spec, "containers"),
		      *ics = mget(spec, "initContainers");
	if (cs && want(c, cs, WT_SEQ, "spec.containers"))
		return c->rc;
	if (ics && want(c, ics, WT_SEQ, "spec.initContainers"))
		return c->rc;
	nc = cs ? cs->n : 0;
	ni = ics ? ics->n : 0;
	ctr = wa_calloc(c->t, nc + ni + 1, sizeof *ctr);
	sidecar = wa_calloc(c->t, nc + ni + 1, sizeof *sidecar);
	if (!ctr || !sidecar)
		return nomem(c);
	for (size_t i = 0; i < nc + ni; i++) {
		bool init = i >= nc;
		const wt_node *ct = init ? ics->items[i - nc] : cs->items[i];
		pi(p, init ? "spec.initContainers" : "spec.containers",
		   init ? i - nc : i);
		if (want(c, ct, WT_MAP, p))
			return c->rc;
		const wt_node *res = mget(ct, "resources"), *rp;
		if (res && dec_resources(c, res, pk(q, p, "resources"),
					 &ctr[i]))
			return c->rc;
		if (init && (rp = mget(ct, "restartPolicy"))) {
			const char *s = "";
			if (sval(c, rp, pk(q, p, "restartPolicy"), &s))
				return c->rc;
			sidecar[i] = !strcmp(s, "Always");
		}
	}
	qlist over = {0}, podl = {0};
	const wt_node *ov = mget(spec, "overhead"), *pr = mget(spec,
							       "resources");
	if (ov && dec_reslist(c, ov, "spec.overhead", &over, true))
		return c->rc;
	if (pr && dec_resources(c, pr, "spec.resources", &podl))
		return c->rc;

	if (scratch_fit(c))
		return WASP_ENOMEM;
	int nt = 0;
	for (size_t i = 0; i < nc + ni; i++)
		for (size_t k = 0; k < ctr[i].n; k++)
			touch(c, ctr[i].q[k].r, &nt);
	for (size_t k = 0; k < over.n; k++)
		touch(c, over.q[k].r, &nt);
	for (size_t k = 0; k < podl.n; k++)
		if (pod_level_resource(c->rnames[podl.q[k].r]))
			touch(c, podl.q[k].r, &nt);

	for (size_t i = 0; i < nc; i++)
		for (size_t k = 0; k < ctr[i].n; k++)
			if (add_ck(c, o, &c->sum[ctr[i].q[k].r],
				   ctr[i].q[k].v))
				return c->rc;
	for (size_t i = nc; i < nc + ni; i++) {
		for (int k = 0; k < nt; k++)
			c->cand[c->touched[k]] = 0;
		for (size_t k = 0; k < ctr[i].n; k++) {
			int r = ctr[i].q[k].r;
			if (sidecar[i]) {
				if (add_ck(c, o, &c->sum[r], ctr[i].q[k].v) ||
				    add_ck(c, o, &c->side[r], ctr[i].q[k].v))
					return c->rc;
			} else {
				c->cand[r] = ctr[i].q[k].v;
			}
		}
		for (int k = 0; k < nt; k++) {
			int r = c->touched[k];
			int64_t v = sidecar[i] ? c->side[r] : c->cand[r];
			if (!sidecar[i] && add_ck(c, o, &v, c->side[r]))
				return c->rc;
			if (v > c->imax[r])
				c->imax[r] = v;
		}
	}
	for (size_t k = 0; k < podl.n; k++) {
		int r = podl.q[k].r;
		if (pod_level_resource(c->rnames[r])) {
			c->podl[r] = podl.q[k].v;
			c->podl_set[r] = true;
		}
	}
	d->req.q = wa_calloc(c->t, (size_t)nt + 1, sizeof *d->req.q);
	if (!d->req.q)
		return nomem(c);
	int err = 0;
	for (int k = 0; k < nt; k++) {
		int r = c->touched[k];
		int64_t v = c->sum[r] > c->imax[r] ? c->sum[r] : c->imax[r];
		if (c->podl_set[r])
			v = c->podl[r];
		d->req.q[d->req.n++] = (qv){r, v};
	}
	for (size_t k = 0; k < over.n && !err; k++)
		for (size_t j = 0; j < d->req.n; j++)
			if (d->req.q[j].r == over.q[k].r &&
			    add_ck(c, o, &d->req.q[j].v, over.q[k].v))
				err = WASP_EINPUT;
	for (int k = 0; k < nt; k++) {
		int r = c->touched[k];
		c->sum[r] = c->side[r] = c->imax[r] = c->cand[r] = 0;
		c->podl[r] = 0;
		c->podl_set[r] = c->mark[r] = false;
	}
	return err;
}

static int dec_pod(dctx *c, const wt_node *o, const char *ns,
		   const char *name)
{
	dpod d = {0};
	ws_pod *pod = &d.p;
	pod->ns = wa_strdup(c->a, ns);
	pod->name = wa_strdup(c->a, name);
	if (!pod->ns || !pod->name)
		return nomem(c);
	pod->src = src_of(c, o);
	pod->group = -1;
	pod->node = -1;
	{
		const wt_node *pm = mget(o, "metadata"), *pl;
		if (pm && (pl = mget(pm, "labels"))) {
			if (dec_labels(c, pl, "metadata.labels", &pod->labels,
				       &pod->nlabels))
				return c->rc;
			if (pod->nlabels > 1)
				qsort(pod->labels, (size_t)pod->nlabels,
				      sizeof *pod->labels, kv_cmp);
		}
	}

	const wt_node *spec = mget(o, "spec"), *st = mget(o, "status"), *v;
	if (spec && want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (st && want(c, st, WT_MAP, "status"))
		return c->rc;

	if (dec_requests(c, o, spec, &d))
		return c->err ? c->err->code : WASP_EINPUT;

	if ((v = mget(spec, "nodeSelector"))) {
		if (dec_labels(c, v, "spec.nodeSelector", &pod->selector,
			       &pod->nselector))
			return c->rc;
		if (pod->nselector > 1)
			qsort(pod->selector, (size_t)pod->nselector,
			      sizeof *pod->selector, kv_cmp);
	}
	if ((v = mget(spec, "affinity")) && dec_affinity(c, v, pod))
		return c->rc;
	if ((v = mget(spec, "tolerations")) && dec_tolerations(c, v, pod))
		return c->rc;

	if ((v = mget(spec, "priority"))) {
		int64_t x;
		if (ival(c, v, "spec.priority", INT32_MIN, INT32_MAX, &x))
			return c->rc;
		d.has_prio = true;
		d.prio = (int32_t)x;
	}
	if (sfield(c, spec, "priorityClassName", "spec", &d.pcname,
		   &d.pcname_node))
		return c->rc;
	if (d.pcname && !*d.pcname)
		d.pcname = NULL;
	if ((v = mget(spec, "preemptionPolicy"))) {
		if (dec_preempt(c, v, "spec.preemptionPolicy", &d.preempt))
			return c->rc;
		d.has_preempt = true;
	}
	if ((v = mget(spec, "schedulingGroup"))) {
		if (want(c, v, WT_MAP, "spec.schedulingGroup"))
			return c->rc;
		if (sfield(c, v, "podGroupName", "spec.schedulingGroup",
			   &d.gname, &d.gname_node))
			return c->rc;
		if (d.gname && check_name(c, d.gname_node,
					  "spec.schedulingGroup.podGroupName",
					  d.gname))
			return c->rc;
	}
	if ((v = mget(spec, "nodeName"))) {
		const char *s = "";
		if (sval(c, v, "spec.nodeName", &s))
			return c->rc;
		if (*s && !(pod->node_name = wa_strdup(c->a, s)))
			return nomem(c);
	}
	if ((v = mget(spec, "resourceClaims"))) {
		if (want(c, v, WT_SEQ, "spec.resourceClaims"))
			return c->rc;
		d.dra = v->n > 0;
		d.claims_node = v;
	}
	d.claim_status = mget(st, "resourceClaimStatuses");
	d.workload_ref = mget(spec, "workloadRef") != NULL;
	if ((v = mget(st, "phase"))) {
		const char *s = "";
		if (sval(c, v, "status.phase", &s))
			return c->rc;
		pod->terminal = !strcmp(s, "Succeeded") ||
				!strcmp(s, "Failed");
	}
	if (WA_PUSH(c->t, c->pods, c->npods, c->cappods, d))
		return nomem(c);
	return 0;
}

/* -------------------------------------------------------- PriorityClass */

static int dec_pc(dctx *c, const wt_node *o, const char *name)
{
	ws_priority_class pc = {0};
	const wt_node *v, *gd;
	if (!(pc.name = wa_strdup(c->a, name)))
		return nomem(c);
	if (!(v = mget(o, "value")))
		return bad(c, o, "", "PriorityClass %s has no value", name);
	int64_t x;
	if (ival(c, v, "value", INT32_MIN, INT32_MAX, &x))
		return c->rc;
	pc.value = (int32_t)x;
	if ((gd = mget(o, "globalDefault")) &&
	    bval(c, gd, "globalDefault", &pc.global_default))
		return c->rc;
	if ((v = mget(o, "preemptionPolicy")) &&
	    dec_preempt(c, v, "preemptionPolicy", &pc.preempt))
		return c->rc;
	size_t n = c->npcs;
	if (WA_PUSH(c->t, c->pcs, c->npcs, c->cappcs, pc) ||
	    WA_PUSH(c->t, c->pc_default_node, n, c->capdef, gd))
		return nomem(c);
	return 0;
}

/* ------------------------------------------------ PodGroup and Workload */

static int dec_policy(dctx *c, const wt_node *pol, const char *path,
		      dspec *sp)
{
	char p[PATHMAX], q[PATHMAX];
	if (want(c, pol, WT_MAP, path))
		return c->rc;
	const wt_node *basic = mkey(pol, "basic"), *gang = mget(pol, "gang");
	if (!gang && mkey(pol, "gang"))
		gang = mkey(pol, "gang"); /* `gang:` with a null value */
	if (!!basic + !!gang != 1)
		return bad(c, pol, path, "exactly one of basic and gang must "
			   "be set");
	sp->has_policy = true;
	if (basic) {
		sp->policy = WS_POLICY_BASIC;
		sp->min_count = 1;
		return 0;
	}
	pk(p, path, "gang");
	const char *mcn = sp->composite ? "minGroupCount" : "minCount";
	if (gang->type == WT_STR && gang == mkey(pol, "gang"))
		return bad(c, gang, p, "gang needs %s", mcn);
	if (gang->type != WT_MAP)
		return bad(c, gang, p, "expected a map with %s, got %s", mcn,
			   wt_type_phrase(gang->type));
	const wt_node *mc = mget(gang, mcn);
	if (!mc)
		return bad(c, gang, p, "gang needs %s", mcn);
	int64_t x;
	if (ival(c, mc, pk(q, p, mcn), INT32_MIN, INT32_MAX, &x))
		return c->rc;
	if (x < 1)
		return bad(c, mc, q, "must be at least 1, got %lld",
			   (long long)x);
	sp->policy = WS_POLICY_GANG;
	sp->min_count = (int)x;
	return 0;
}

static int dec_disruption(dctx *c, const wt_node *dm, const char *path,
			  dspec *sp)
{
	if (is_scalar(dm)) {
		const char *s = dm->str ? dm->str : "";
		const char *to = !strcmp(s, "PodGroup") ? "{all: {}}"
			       : !strcmp(s, "Pod") ? "{single: {}}" : NULL;
		if (to)
			return bad(c, dm, path, "expected {single: {}} or "
				   "{all: {}}; the v1alpha2 string \"%s\" is "
				   "now %s", s, to);
	}
	if (dm->type != WT_MAP)
		return bad(c, dm, path, "expected {single: {}} or {all: {}}, "
			   "got %s", wt_type_phrase(dm->type));
	bool single = mkey(dm, "single"), all = mkey(dm, "all");
	if (single + all != 1)
		return bad(c, dm, path, "exactly one of single and all must "
			   "be set");
	sp->has_disrupt = true;
	sp->disruption = all ? WS_DISRUPT_ALL : WS_DISRUPT_SINGLE;
	sp->disrupt_node = dm;
	return 0;
}

/* The fields a PodGroup spec and a PodGroupTemplate share. */
static int dec_gspec(dctx *c, const wt_node *m, const char *base, dspec *sp)
{
	char p[PATHMAX], q[PATHMAX], r[PATHMAX];
	const wt_node *v;
	if ((v = mget(m, "schedulingPolicy")) &&
	    dec_policy(c, v, pk(p, base, "schedulingPolicy"), sp))
		return c->rc;
	if ((v = mget(m, "schedulingConstraints"))) {
		pk(p, base, "schedulingConstraints");
		if (want(c, v, WT_MAP, p))
			return c->rc;
		const wt_node *tl = mget(v, "topology");
		pk(q, p, "topology");
		if (tl && want(c, tl, WT_SEQ, q))
			return c->rc;
		if (tl && tl->n > 1)
			return bad(c, tl->items[1], pi(r, q, 1),
				   "at most one topology constraint is "
				   "supported");
		sp->has_topo = true;
		if (tl && tl->n == 1) {
			const wt_node *t = tl->items[0];
			pi(r, q, 0);
			if (want(c, t, WT_MAP, r))
				return c->rc;
			if (sfield(c, t, "key", r, &sp->topo_key,
				   &sp->topo_node))
				return c->rc;
			if (!sp->topo_key || !*sp->topo_key)
				return bad(c, t, r, "topology constraint has "
					   "no key");
		}
	}
	if ((v = mget(m, "disruptionMode")) &&
	    dec_disruption(c, v, pk(p, base, "disruptionMode"), sp))
		return c->rc;
	if ((v = mget(m, "preemptionPolicy"))) {
		if (dec_preempt(c, v, pk(p, base, "preemptionPolicy"),
				&sp->preempt))
			return c->rc;
		sp->has_preempt = true;
	}
	if ((v = mget(m, "priority"))) {
		int64_t x;
		if (ival(c, v, pk(p, base, "priority"), INT32_MIN, INT32_MAX,
			 &x))
			return c->rc;
		sp->has_prio = true;
		sp->prio = (int32_t)x;
	}
	if (sfield(c, m, "priorityClassName", base, &sp->pcname,
		   &sp->pcname_node))
		return c->rc;
	if (sp->pcname && !*sp->pcname)
		sp->pcname = NULL;
	if ((v = mget(m, "resourceClaims"))) {
		if (want(c, v, WT_SEQ, pk(p, base, "resourceClaims")))
			return c->rc;
		sp->claims = v->n > 0;
		sp->claims_node = v;
	}
	return 0;
}

/* Topology annotations (Kueue and JobSet names) of a PodGroup or a
 * CompositePodGroup; see doc/input.md.  The required-topology spelling
 * fills the group's key when schedulingConstraints has none. */
#define ANN_REQ "kueue.x-k8s.io/podset-required-topology"
#define ANN_PREF "kueue.x-k8s.io/podset-preferred-topology"
#define ANN_SLICE "kueue.x-k8s.io/podset-slice-required-topology"
#define ANN_SSIZE "kueue.x-k8s.io/podset-slice-size"
#define ANN_SLAYERS "kueue.x-k8s.io/podset-slice-required-topology-constraints"
#define ANN_EXCL "alpha.jobset.sigs.k8s.io/exclusive-topology"

static int ann_str(dctx *c, const wt_node *ann, const char *key,
		   const char **out, const wt_node **node)
{
	char p[PATHMAX];
	const wt_node *v = mget(ann, key);
	*out = NULL;
	*node = v;
	if (!v)
		return 0;
	const char *x = "";
	if (sval(c, v, pk(p, "metadata.annotations", key), &x))
		return c->rc;
	if (!*x)
		return bad(c, v, p, "must not be empty");
	if (!(*out = wa_strdup(c->a, x)))
		return nomem(c);
	return 0;
}

/* A positive decimal in a string (annotation values are strings). */
static int ann_int(dctx *c, const wt_node *v, const char *path,
		   const char *x, int *out)
{
	long long n = 0;
	const char *q = x;
	if (!*q)
		return bad(c, v, path, "expected a positive integer, got "
			   "\"\"");
	for (; *q; q++) {
		if (*q < '0' || *q > '9' || n > 100000000)
			return bad(c, v, path, "expected a positive integer, "
				   "got \"%s\"", x);
		n = n * 10 + (*q - '0');
	}
	if (n < 1 || n > INT32_MAX)
		return bad(c, v, path, "expected a positive integer, got "
			   "\"%s\"", x);
	*out = (int)n;
	return 0;
}

/* The JSON value of the multi-layer annotation, parsed by hand (a short
 * list of {"topology": "...", "size": N} objects). */
static int ann_layers(dctx *c, const wt_node *v, const char *x, ws_tas *t)
{
	char p[PATHMAX];
	pk(p, "metadata.annotations", ANN_SLAYERS);
	const char *q = x;
#define SKIPWS() while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++
	SKIPWS();
	if (*q++ != '[')
		return bad(c, v, p, "expected a JSON list of {\"topology\": "
			   "LEVEL, \"size\": N}");
	SKIPWS();
	while (*q != ']') {
		if (t->nslices == WS_MAX_SLICE_LAYERS)
			return bad(c, v, p, "at most %d layers",
				   WS_MAX_SLICE_LAYERS);
		if (*q++ != '{')
			return bad(c, v, p, "expected '{' in the JSON list");
		const char *key = NULL;
		int size = 0;
		for (;;) {
			SKIPWS();
			if (*q == '}') {
				q++;
				break;
			}
			if (*q++ != '"')
				return bad(c, v, p, "expected a field name");
			const char *f = q;
			while (*q && *q != '"')
				q++;
			if (!*q)
				return bad(c, v, p, "unterminated string");
			size_t fl = (size_t)(q++ - f);
			SKIPWS();
			if (*q++ != ':')
				return bad(c, v, p, "expected ':'");
			SKIPWS();
			if (fl == 8 && !strncmp(f, "topology", 8)) {
				if (*q++ != '"')
					return bad(c, v, p, "topology must be "
						   "a string");
				const char *b = q;
				while (*q && *q != '"')
					q++;
				if (!*q || q == b)
					return bad(c, v, p, "bad topology "
						   "string");
				key = wa_strndup(c->a, b, (size_t)(q - b));
				if (!key)
					return nomem(c);
				q++;
			} else if (fl == 4 && !strncmp(f, "size", 4)) {
				long long n = 0;
				if (*q < '0' || *q > '9')
					return bad(c, v, p, "size must be a "
						   "positive integer");
				while (*q >= '0' && *q <= '9' && n < 1000000000)
					n = n * 10 + (*q++ - '0');
				if (n < 1 || n > INT32_MAX)
					return bad(c, v, p, "size must be a "
						   "positive integer");
				size = (int)n;
			} else {
				return bad(c, v, p, "unknown field \"%.*s\"",
					   (int)fl, f);
			}
			SKIPWS();
			if (*q == ',')
				q++;
		}
		if (!key || !size)
			return bad(c, v, p, "layer %d needs topology and size",
				   t->nslices + 1);
		if (t->nslices &&
		    t->slice_size[t->nslices - 1] % size)
			return bad(c, v, p, "size %d of layer %d does not "
				   "divide the outer size %d", size,
				   t->nslices + 1,
				   t->slice_size[t->nslices - 1]);
		t->slice_key[t->nslices] = key;
		t->slice_size[t->nslices++] = size;
		SKIPWS();
		if (*q == ',')
			q++;
		SKIPWS();
	}
	q++;
	SKIPWS();
	if (*q)
		return bad(c, v, p, "trailing text after the JSON list");
	if (!t->nslices)
		return bad(c, v, p, "the list is empty");
#undef SKIPWS
	return 0;
}

static int dec_tas(dctx *c, const wt_node *o, dgroup *g)
{
	const wt_node *meta = mget(o, "metadata");
	const wt_node *ann = mget(meta, "annotations"), *v, *sv;
	if (!ann)
		return 0;
	if (want(c, ann, WT_MAP, "metadata.annotations"))
		return c->rc;
	ws_tas t = {0};
	const char *req, *slice, *ssize, *layers;
	char p[PATHMAX];
	t.src = src_of(c, ann);
	if (ann_str(c, ann, ANN_REQ, &req, &v))
		return c->rc;
	if (req) {
		if (g->sp.topo_key && strcmp(g->sp.topo_key, req))
			return bad(c, v, pk(p, "metadata.annotations", ANN_REQ),
				   "names %s but schedulingConstraints names "
				   "%s", req, g->sp.topo_key);
		g->sp.topo_key = req;
		g->sp.topo_node = v;
		g->sp.has_topo = true;
	}
	if (ann_str(c, ann, ANN_PREF, &t.preferred, &v) ||
	    ann_str(c, ann, ANN_EXCL, &t.exclusive, &v) ||
	    ann_str(c, ann, ANN_SLICE, &slice, &v) ||
	    ann_str(c, ann, ANN_SSIZE, &ssize, &sv) ||
	    ann_str(c, ann, ANN_SLAYERS, &layers, &v))
		return c->rc;
	if (layers && (slice || ssize))
		return bad(c, v, pk(p, "metadata.annotations", ANN_SLAYERS),
			   "cannot be combined with %s / %s", ANN_SLICE,
			   ANN_SSIZE);
	if (layers && ann_layers(c, v, layers, &t))
		return c->rc;
	if (slice || ssize) {
		const wt_node *at = slice ? mget(ann, ANN_SLICE) : sv;
		if (!slice || !ssize)
			return bad(c, at, "metadata.annotations", "%s and %s "
				   "go together", ANN_SLICE, ANN_SSIZE);
		if (ann_int(c, sv, pk(p, "metadata.annotations", ANN_SSIZE),
			    ssize, &t.slice_size[0]))
			return c->rc;
		t.slice_key[0] = slice;
		t.nslices = 1;
	}
	if (!t.preferred && !t.exclusive && !t.nslices)
		return 0;
	if (!(g->tas = wa_alloc(c->a, sizeof *g->tas)))
		return nomem(c);
	*g->tas = t;
	return 0;
}

/* A PodGroup, or (composite) a v1alpha3 CompositePodGroup. */
static int dec_podgroup(dctx *c, const wt_node *o, const char *ns,
			const char *name, bool composite)
{
	const char *kind = composite ? "CompositePodGroup" : "PodGroup";
	dgroup g = {0};
	g.composite = composite;
	g.sp.composite = composite;
	g.obj = o;
	g.ns = wa_strdup(c->a, ns);
	g.name = wa_strdup(c->a, name);
	if (!g.ns || !g.name)
		return nomem(c);
	g.src = src_of(c, o);
	const wt_node *spec = mget(o, "spec"), *v;
	if (!spec)
		return bad(c, o, "", "%s %s/%s has no spec", kind, ns, name);
	if (want(c, spec, WT_MAP, "spec"))
		return c->rc;
	g.spec = spec;
	if ((v = mkey(spec, "podGroupTemplateRef")))
		return bad(c, v, "spec.podGroupTemplateRef",
			   "not a v1beta1 field: write spec.workloadRef: "
			   "{workloadName: W, templateName: T} instead of "
			   "podGroupTemplateRef.workload{workloadName, "
			   "podGroupTemplateName}");
	if (dec_gspec(c, spec, "spec", &g.sp))
		return c->rc;
	if ((v = mget(spec, "workloadRef"))) {
		if (want(c, v, WT_MAP, "spec.workloadRef"))
			return c->rc;
		if (sfield(c, v, "workloadName", "spec.workloadRef",
			   &g.wl_name, &g.wl_node) ||
		    sfield(c, v, "templateName", "spec.workloadRef",
			   &g.tpl_name, &g.tpl_node))
			return c->rc;
		if (!g.wl_name || !*g.wl_name)
			return bad(c, v, "spec.workloadRef",
				   "workloadName is required");
		if (!g.tpl_name || !*g.tpl_name)
			return bad(c, v, "spec.workloadRef",
				   "templateName is required");
	}
	if (sfield(c, spec, "parentCompositePodGroupName", "spec", &g.parent,
		   &g.parent_node))
		return c->rc;
	if (g.parent && !*g.parent)
		g.parent = NULL;
	if (dec_tas(c, o, &g))
		return c->rc;
	if (composite) {
		if (WA_PUSH(c->t, c->cgroups, c->ncgroups, c->capcgroups, g))
			return nomem(c);
		return 0;
	}
	if (WA_PUSH(c->t, c->groups, c->ngroups, c->capgroups, g))
		return nomem(c);
	return 0;
}

/* The part both template lists share: item i of list l is a map with a
 * name unique among the Workload's templates.  Sets *p to the item's path. */
static int dec_tpl_item(dctx *c, const dwl *w, const wt_node *l, size_t i,
			const char *path, char *p, dtpl *tp)
{
	char q[PATHMAX];
	const wt_node *t = l->items[i], *nn;
	pi(p, path, i);
	if (want(c, t, WT_MAP, p))
		return c->rc;
	if (sfield(c, t, "name", p, &tp->name, &nn))
		return c->rc;
	if (!tp->name || !*tp->name)
		return bad(c, t, p, "template has no name");
	for (size_t k = 0; k < w->ntpls; k++)
		if (!strcmp(w->tpls[k].name, tp->name))
			return bad(c, nn, pk(q, p, "name"),
				   "duplicate template name \"%s\"", tp->name);
	return 0;
}

static int dec_templates(dctx *c, dwl *w, const wt_node *l, const char *path)
{
	char p[PATHMAX];
	if (want(c, l, WT_SEQ, path))
		return c->rc;
	for (size_t i = 0; i < l->n; i++) {
		const wt_node *t = l->items[i];
		dtpl tp = {0};
		if (dec_tpl_item(c, w, l, i, path, p, &tp))
			return c->rc;
		if (dec_gspec(c, t, p, &tp.sp))
			return c->rc;
		if (WA_PUSH(c->t, w->tpls, w->ntpls, w->cap, tp))
			return nomem(c);
	}
	return 0;
}

/* compositePodGroupTemplates: their leaf podGroupTemplates are collected
 * so that PodGroups referring to them resolve. */
static int dec_composite(dctx *c, dwl *w, const wt_node *l, const char *path,
			 int depth)
{
	char p[PATHMAX], q[PATHMAX];
	if (want(c, l, WT_SEQ, path))
		return c->rc;
	if (depth > MAX_TPL_DEPTH)
		return bad(c, l, path, "templates nested deeper than %d",
			   MAX_TPL_DEPTH);
	for (size_t i = 0; i < l->n; i++) {
		const wt_node *t = l->items[i], *v;
		dtpl tp = {0};
		if (dec_tpl_item(c, w, l, i, path, p, &tp))
			return c->rc;
		tp.composite = tp.sp.composite = true;
		if (dec_gspec(c, t, p, &tp.sp))
			return c->rc;
		if (WA_PUSH(c->t, w->tpls, w->ntpls, w->cap, tp))
			return nomem(c);
		if ((v = mget(t, "podGroupTemplates")) &&
		    dec_templates(c, w, v, pk(q, p, "podGroupTemplates")))
			return c->rc;
		if ((v = mget(t, "compositePodGroupTemplates")) &&
		    dec_composite(c, w, v,
				  pk(q, p, "compositePodGroupTemplates"),
				  depth + 1))
			return c->rc;
	}
	return 0;
}

static int dec_workload(dctx *c, const wt_node *o, const char *ns,
			const char *name)
{
	dwl w = {0};
	w.ns = wa_strdup(c->a, ns);
	w.name = wa_strdup(c->a, name);
	if (!w.ns || !w.name)
		return nomem(c);
	const wt_node *spec = mget(o, "spec"), *pg, *cp;
	if (!spec)
		return bad(c, o, "", "Workload %s/%s has no spec", ns, name);
	if (want(c, spec, WT_MAP, "spec"))
		return c->rc;
	pg = mget(spec, "podGroupTemplates");
	cp = mget(spec, "compositePodGroupTemplates");
	if (!pg && !cp)
		return bad(c, spec, "spec", "one of podGroupTemplates and "
			   "compositePodGroupTemplates must be set");
	if (pg && dec_templates(c, &w, pg, "spec.podGroupTemplates"))
		return c->rc;
	if (cp) {
		w.composite = true;
		if (dec_composite(c, &w, cp, "spec.compositePodGroupTemplates",
				  1))
			return c->rc;
	}
	if (WA_PUSH(c->t, c->wls, c->nwls, c->capwls, w))
		return nomem(c);
	const char *key = wa_printf(c->t, "%s/%s", ns, name);
	if (!key || ws_map_put(c->wl_idx, key, (int)c->nwls - 1) == -2)
		return nomem(c);
	return 0;
}

/* ------------------------------------------------------------ Topology */

static int dec_topology(dctx *c, const wt_node *o, const char *name)
{
	char p[PATHMAX];
	ws_levels lv = {0};
	if (!(lv.name = wa_strdup(c->a, name)))
		return nomem(c);
	const wt_node *spec = mget(o, "spec"), *levels;
	if (spec && want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (!(levels = mget(spec, "levels")))
		return bad(c, spec ? spec : o, "spec", "Topology %s has no "
			   "spec.levels", name);
	if (want(c, levels, WT_SEQ, "spec.levels"))
		return c->rc;
	if (levels->n == 0)
		return bad(c, levels, "spec.levels", "needs at least one "
			   "level");
	lv.labels = wa_calloc(c->a, levels->n, sizeof *lv.labels);
	if (!lv.labels)
		return nomem(c);
	for (size_t i = 0; i < levels->n; i++) {
		const wt_node *l = levels->items[i], *ln;
		const char *s = "";
		pi(p, "spec.levels", i);
		if (want(c, l, WT_MAP, p))
			return c->rc;
		if (sfield(c, l, "nodeLabel", p, &s, &ln))
			return c->rc;
		if (!s || !*s)
			return bad(c, l, p, "level has no nodeLabel");
		for (int k = 0; k < lv.nlabels; k++)
			if (!strcmp(lv.labels[k], s))
				return bad(c, ln, p, "nodeLabel \"%s\" "
					   "appears twice", s);
		lv.labels[lv.nlabels++] = s;
	}
	if (WA_PUSH(c->t, c->topos, c->ntopos, c->captopos, lv))
		return nomem(c);
	return 0;
}

/* ------------------------------------------------------------- collect */

/* ------------------------------------------------ PodDisruptionBudget */

/* minAvailable / maxUnavailable: an integer or "N%". */
static int dec_intpct(dctx *c, const wt_node *v, const char *path, int *kind,
		      int *val)
{
	if (v->type == WT_NUM) {
		int64_t x;
		if (ival(c, v, path, 0, INT32_MAX, &x))
			return c->rc;
		*kind = 1;
		*val = (int)x;
		return 0;
	}
	const char *s = "";
	if (sval(c, v, path, &s))
		return c->rc;
	size_t n = strlen(s);
	char *end = NULL;
	long x = n > 1 && s[n - 1] == '%' ? strtol(s, &end, 10) : -1;
	if (x < 0 || x > 100 || end != s + n - 1)
		return bad(c, v, path, "expected an integer or a percentage "
			   "such as \"50%%\", got \"%s\"", s);
	*kind = 2;
	*val = (int)x;
	return 0;
}

static int dec_pdb(dctx *c, const wt_node *o, const char *ns,
		   const char *name)
{
	ws_pdb d;
	memset(&d, 0, sizeof d);
	d.ns = wa_strdup(c->a, ns);
	d.name = wa_strdup(c->a, name);
	if (!d.ns || !d.name)
		return nomem(c);
	d.src = src_of(c, o);
	const wt_node *spec = mget(o, "spec"), *st = mget(o, "status"), *v;
	if (spec && want(c, spec, WT_MAP, "spec"))
		return c->rc;
	if (st && want(c, st, WT_MAP, "status"))
		return c->rc;
	const wt_node *sel = spec ? mget(spec, "selector") : NULL;
	if (sel && sel->type != WT_NULL) {
		char p[PATHMAX];
		if (want(c, sel, WT_MAP, "spec.selector"))
			return c->rc;
		d.has_selector = true;
		const wt_node *ml = mget(sel, "matchLabels");
		const wt_node *me = mget(sel, "matchExpressions");
		if (ml && want(c, ml, WT_MAP, "spec.selector.matchLabels"))
			return c->rc;
		if (me && want(c, me, WT_SEQ,
			       "spec.selector.matchExpressions"))
			return c->rc;
		size_t n = (ml ? ml->n : 0) + (me ? me->n : 0);
		d.sel = wa_calloc(c->a, n + 1, sizeof *d.sel);
		if (!d.sel)
			return nomem(c);
		for (size_t i = 0; ml && i < ml->n; i++) {
			ws_expr *e = &d.sel[d.nsel++];
			const char *val = "";
			if (sval(c, wt_val(ml, i),
				 pk(p, "spec.selector.matchLabels",
				    wt_key(ml, i)->str), &val))
				return c->rc;
			e->key = wa_strdup(c->a, wt_key(ml, i)->str);
			e->op = WS_OP_IN;
			e->vals = wa_calloc(c->a, 1, sizeof *e->vals);
			if (!e->key || !e->vals ||
			    !(e->vals[0] = wa_strdup(c->a, val)))
				return nomem(c);
			e->nvals = 1;
		}
		for (size_t i = 0; me && i < me->n; i++) {
			ws_expr *e = &d.sel[d.nsel++];
			if (dec_expr(c, me->items[i],
				     pi(p, "spec.selector.matchExpressions",
					i), false, e))
				return c->rc;
			if (e->op == WS_OP_GT || e->op == WS_OP_LT)
				return bad(c, me->items[i], p, "a label "
					   "selector has no Gt or Lt");
		}
	}
	if (spec && (v = mget(spec, "minAvailable")) &&
	    dec_intpct(c, v, "spec.minAvailable", &d.min_kind, &d.min_val))
		return c->rc;
	if (spec && (v = mget(spec, "maxUnavailable")) &&
	    dec_intpct(c, v, "spec.maxUnavailable", &d.max_kind,
		       &d.max_val))
		return c->rc;
	if (d.min_kind && d.max_kind)
		return bad(c, spec, "spec", "minAvailable and maxUnavailable "
			   "are mutually exclusive");
	int64_t x;
	if (st && (v = mget(st, "disruptionsAllowed"))) {
		if (ival(c, v, "status.disruptionsAllowed", 0, INT32_MAX, &x))
			return c->rc;
		d.has_allowed = true;
		d.allowed = (int)x;
	}
	const wt_node *ch = st ? mget(st, "currentHealthy") : NULL;
	const wt_node *dh = st ? mget(st, "desiredHealthy") : NULL;
	if (ch && dh) {
		if (ival(c, ch, "status.currentHealthy", 0, INT32_MAX, &x))
			return c->rc;
		d.current_healthy = (int)x;
		if (ival(c, dh, "status.desiredHealthy", 0, INT32_MAX, &x))
			return c->rc;
		d.desired_healthy = (int)x;
		d.has_healthy = true;
	}
	if (WA_PUSH(c->a, c->pdbs, c->npdbs, c->cappdbs, d))
		return nomem(c);
	return 0;
}

enum kind {
	K_NODE, K_POD, K_PC, K_PG, K_WL, K_TOPO, K_CPG, K_DRA, K_PDB, K_SKIP
};

static int skip_kind(dctx *c, const char *kind, const char *api,
		     const char *why)
{
	for (size_t i = 0; i < c->nskips; i++)
		if (!strcmp(c->skips[i].kind, kind) &&
		    !strcmp(c->skips[i].api, api)) {
			c->skips[i].count++;
			return 0;
		}
	dskip s = {wa_strdup(c->t, kind), wa_strdup(c->t, api), why, 1};
	if (!s.kind || !s.api ||
	    WA_PUSH(c->t, c->skips, c->nskips, c->capskips, s))
		return nomem(c);
	return 0;
}

/* Retired scheduling.k8s.io versions: the message says what to write. */
static const char *refusal(const char *group, const char *ver,
			   const char *kind)
{
	if (strcmp(group, "scheduling.k8s.io"))
		return NULL;
	bool pg = !strcmp(kind, "PodGroup"), wl = !strcmp(kind, "Workload");
	if (!pg && !wl)
		return NULL;
	if (!strcmp(ver, "v1alpha2"))
		return pg ? "scheduling.k8s.io/v1alpha2 PodGroup is no longer "
			    "served; rewrite it as scheduling.k8s.io/v1beta1: "
			    "podGroupTemplateRef.workload{workloadName,"
			    "podGroupTemplateName} -> workloadRef{"
			    "workloadName,templateName}, disruptionMode: "
			    "Pod|PodGroup -> {single: {}}|{all: {}}"
			  : "scheduling.k8s.io/v1alpha2 Workload is no longer "
			    "served; rewrite it as scheduling.k8s.io/v1beta1: "
			    "podGroupTemplates[].disruptionMode: Pod|PodGroup "
			    "-> {single: {}}|{all: {}}";
	if (!strcmp(ver, "v1alpha1"))
		return wl ? "scheduling.k8s.io/v1alpha1 Workload is no longer "
			    "served; rewrite it as scheduling.k8s.io/v1beta1: "
			    "spec.podGroups[]{name, policy} -> "
			    "spec.podGroupTemplates[]{name, schedulingPolicy}"
			    ", plus one PodGroup per group (workloadRef{"
			    "workloadName,templateName}); pods name it in "
			    "spec.schedulingGroup.podGroupName instead of "
			    "spec.workloadRef"
			  : "scheduling.k8s.io/v1alpha1 has no PodGroup; write "
			    "it as scheduling.k8s.io/v1beta1 PodGroup";
	return NULL;
}

static bool is_dra_kind(const char *group, const char *kind)
{
	return !strcmp(group, "resource.k8s.io") &&
	       (!strcmp(kind, "ResourceSlice") ||
		!strcmp(kind, "DeviceClass") ||
		!strcmp(kind, "ResourceClaim") ||
		!strcmp(kind, "ResourceClaimTemplate"));
}

static bool ends_with(const char *s, const char *t)
{
	size_t n = strlen(s), m = strlen(t);
	return n >= m && !strcmp(s + n - m, t);
}

static int collect(dctx *c, const wt_node *o, int depth)
{
	if (o->type == WT_NULL)
		return 0; /* an empty document */
	if (o->type != WT_MAP)
		return bad(c, o, "", "expected a Kubernetes object (a map "
			   "with apiVersion and kind), got %s",
			   wt_type_phrase(o->type));
	const wt_node *kn = mget(o, "kind"), *an = mget(o, "apiVersion");
	const char *kind, *api;
	if (!kn)
		return bad(c, o, "", "object has no kind");
	if (sval(c, kn, "kind", &kind))
		return c->rc;
	const wt_node *items = mget(o, "items");
	if (!strcmp(kind, "List") || (ends_with(kind, "List") &&
				      mkey(o, "items"))) {
		if (depth >= LIST_DEPTH)
			return bad(c, kn, "kind", "a %s nested in a List is "
				   "not supported", kind);
		if (!items)
			return 0;
		if (want(c, items, WT_SEQ, "items"))
			return c->rc;
		for (size_t i = 0; i < items->n; i++) {
			int rc = collect(c, items->items[i], depth + 1);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (!*kind)
		return bad(c, kn, "kind", "must not be empty");
	if (!an)
		return bad(c, o, "", "%s object has no apiVersion", kind);
	if (sval(c, an, "apiVersion", &api))
		return c->rc;
	if (++c->nobjects > WASP_MAX_OBJECTS)
		return c->rc = werr_at(c->err, WASP_ELIMIT, o->src,
				       "more than %ld objects",
				       (long)WASP_MAX_OBJECTS);

	char group[PATHMAX];
	const char *slash = strchr(api, '/'), *ver = slash ? slash + 1 : api;
	snprintf(group, sizeof group, "%.*s",
		 slash ? (int)(slash - api) : 0, api);
	const char *ref = refusal(group, ver, kind);
	if (ref)
		return bad(c, an, "", "%s", ref);

	enum kind k = K_SKIP;
	const char *why = "not used by wasp";
	if (!*group && !strcmp(ver, "v1") && !strcmp(kind, "Node"))
		k = K_NODE;
	else if (!*group && !strcmp(ver, "v1") && !strcmp(kind, "Pod"))
		k = K_POD;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "PriorityClass"))
		k = K_PC;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "PodGroup"))
		k = K_PG;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "Workload"))
		k = K_WL;
	else if (!strcmp(group, "kueue.x-k8s.io") &&
		 !strcmp(kind, "Topology"))
		k = K_TOPO;
	else if (!strcmp(group, "policy") && !strcmp(ver, "v1") &&
		 !strcmp(kind, "PodDisruptionBudget"))
		k = K_PDB;
	else if (!strcmp(group, "scheduling.k8s.io") &&
		 !strcmp(kind, "CompositePodGroup"))
		k = K_CPG;
	else if (is_dra_kind(group, kind) &&
		 (!strcmp(ver, "v1") || !strcmp(ver, "v1beta2") ||
		  !strcmp(ver, "v1beta1") || !strcmp(ver, "v1alpha3")))
		k = K_DRA;
	else if (is_dra_kind(group, kind))
		why = "not yet supported";

	const wt_node *meta = mget(o, "metadata"), *nn = NULL, *nsn = NULL;
	if (meta && want(c, meta, WT_MAP, "metadata"))
		return c->rc;
	const char *name = NULL, *ns = NULL;
	if ((nn = mget(meta, "name")) && sval(c, nn, "metadata.name", &name))
		return c->rc;
	if (k == K_SKIP && !name && mget(meta, "generateName"))
		name = "";
	if (!name)
		return bad(c, o, "", "%s object has no metadata.name", kind);
	if (k == K_SKIP)
		return skip_kind(c, kind, api, why);
	if (check_name(c, nn, "metadata.name", name))
		return c->rc;

	bool namespaced = k == K_POD || k == K_PG || k == K_WL || k == K_CPG ||
			  k == K_PDB ||
			  (k == K_DRA && !strncmp(kind, "ResourceClaim", 13));
	if (namespaced) {
		ns = "default";
		if ((nsn = mget(meta, "namespace"))) {
			if (sval(c, nsn, "metadata.namespace", &ns))
				return c->rc;
			if (!*ns)
				ns = "default";
			else if (check_name(c, nsn, "metadata.namespace", ns))
				return c->rc;
		}
	}
	if (dup_check(c, kind, ns, name, nn))
		return c->rc;

	switch (k) {
	case K_NODE: return dec_node(c, o, name, meta);
	case K_POD: return dec_pod(c, o, ns, name);
	case K_PC: return dec_pc(c, o, name);
	case K_PG: return dec_podgroup(c, o, ns, name, false);
	case K_CPG: return dec_podgroup(c, o, ns, name, true);
	case K_WL: return dec_workload(c, o, ns, name);
	case K_TOPO: return dec_topology(c, o, name);
	case K_PDB: return dec_pdb(c, o, ns, name);
	case K_DRA:
		if (WA_PUSH(c->t, c->draobjs, c->ndraobjs, c->capdraobjs, o))
			return nomem(c);
		return 0;
	case K_SKIP: break;
	}
	return 0;
}

/* ------------------------------------------------------------- resolve */

static const ws_priority_class *find_pc(dctx *c, const char *name)
{
	for (size_t i = 0; i < c->npcs; i++)
		if (!strcmp(c->pcs[i].name, name))
			return &c->pcs[i];
	return NULL;
}

/* Priority from a class name: the snapshot's classes, then the built-in
 * system-* ones.  0 on success; -1 when unknown. */
static int class_value(dctx *c, const char *name, int32_t *prio,
		       int *preempt)
{
	const ws_priority_class *pc = find_pc(c, name);
	if (pc) {
		*prio = pc->value;
		*preempt = pc->preempt;
		return 0;
	}
	for (size_t i = 0; i < sizeof builtin_pcs / sizeof builtin_pcs[0];
	     i++)
		if (!strcmp(builtin_pcs[i].name, name)) {
			*prio = builtin_pcs[i].value;
			*preempt = WS_PREEMPT_LOWER;
			return 0;
		}
	return -1;
}

static const ws_priority_class *global_default(dctx *c)
{
	for (size_t i = 0; i < c->npcs; i++)
		if (c->pcs[i].global_default)
			return &c->pcs[i];
	return NULL;
}

/* Priority admission: explicit priority, else the named class, else the
 * global default, else 0; preemptionPolicy likewise from the class. */
static int resolve_prio(dctx *c, bool has_prio, int32_t prio,
			const char *pcname, const wt_node *pcnode,
			const char *path, bool has_preempt, int preempt,
			int32_t *out_prio, int *out_preempt)
{
	int32_t cv = 0;
	int cp = WS_PREEMPT_LOWER;
	bool known = false;
	if (pcname) {
		known = class_value(c, pcname, &cv, &cp) == 0;
		if (!known && !has_prio)
			return bad(c, pcnode, path, "PriorityClass \"%s\" does "
				   "not exist", pcname);
	} else if (!has_prio) {
		/* the global default only stands in for a missing priority */
		const ws_priority_class *d = global_default(c);
		if (d) {
			cv = d->value;
			cp = d->preempt;
			known = true;
		}
	}
	*out_prio = has_prio ? prio : cv;
	*out_preempt = has_preempt ? preempt : known ? cp : WS_PREEMPT_LOWER;
	return 0;
}

static int resolve_pcs(dctx *c)
{
	const wt_node *first = NULL;
	const char *fname = NULL;
	for (size_t i = 0; i < c->npcs; i++) {
		if (!c->pcs[i].global_default)
			continue;
		if (first)
			return bad(c, c->pc_default_node[i], "globalDefault",
				   "PriorityClass %s is a second global "
				   "default (the first is %s at %s:%d:%d)",
				   c->pcs[i].name, fname,
				   first->src.file ? first->src.file : "",
				   first->src.line, first->src.col);
		first = c->pc_default_node[i];
		fname = c->pcs[i].name;
	}
	return 0;
}

/* Fill the fields a PodGroup omits from its Workload template. */
static void merge_spec(dspec *g, const dspec *t)
{
	if (!g->has_policy) {
		g->has_policy = t->has_policy;
		g->policy = t->policy;
		g->min_count = t->min_count;
	}
	if (!g->has_topo) {
		g->has_topo = t->has_topo;
		g->topo_key = t->topo_key;
	}
	if (!g->has_disrupt) {
		g->has_disrupt = t->has_disrupt;
		g->disruption = t->disruption;
		g->disrupt_node = t->disrupt_node;
	}
	if (!g->has_preempt) {
		g->has_preempt = t->has_preempt;
		g->preempt = t->preempt;
	}
	/* priority and its class travel together */
	if (!g->has_prio && !g->pcname) {
		g->has_prio = t->has_prio;
		g->prio = t->prio;
		g->pcname = t->pcname;
		g->pcname_node = t->pcname_node;
	}
	g->claims = g->claims || t->claims;
	if (!g->claims_node)
		g->claims_node = t->claims_node;
}

/* ------------------------------------------- CompositePodGroup trees */

/* Position for a tree error about object d: its priority fields, or the
 * spec. */
static const wt_node *prio_node(const dgroup *d)
{
	if (d->sp.pcname_node)
		return d->sp.pcname_node;
	const wt_node *v = mget(d->spec, "priority");
	return v ? v : d->spec;
}

static bool explicit_prio(const dgroup *d)
{
	return d->sp.has_prio || d->sp.pcname;
}

/* The template d->tpl_name of d's Workload (spec.workloadRef) in *t, NULL
 * when the Workload has none of that name; an input error if the
 * Workload does not exist. */
static int find_template(dctx *c, const dgroup *d, const dtpl **t)
{
	char key[2 * WASP_MAX_NAME + 8];
	snprintf(key, sizeof key, "%s/%s", d->ns, d->wl_name);
	int w = ws_map_get(c->wl_idx, key);
	*t = NULL;
	if (w < 0)
		return bad(c, d->wl_node, "spec.workloadRef.workloadName",
			   "Workload %s/%s does not exist", d->ns, d->wl_name);
	const dwl *wl = &c->wls[w];
	for (size_t k = 0; k < wl->ntpls && !*t; k++)
		if (!strcmp(wl->tpls[k].name, d->tpl_name))
			*t = &wl->tpls[k];
	return 0;
}

/* The CompositePodGroups (templates merged, priorities resolved), then
 * the tree: parents exist (same namespace), no cycles, depth counted in
 * levels including the leaf PodGroups at most WS_MAX_TREE_DEPTH, one
 * priority and preemption policy per tree (a member that names none
 * inherits the root's), and a parent with disruptionMode all has only
 * `all` children.  Every violation is an input error at the offending
 * value. */
static int resolve_trees(dctx *c, ws_group *out)
{
	size_t nc = c->ncgroups;
	ws_composite *cs = wa_calloc(c->a, nc + 1, sizeof *cs);
	ws_map *idx = ws_map_new(c->t);
	if (!cs || !idx)
		return nomem(c);
	for (size_t i = 0; i < nc; i++) {
		dgroup *d = &c->cgroups[i];
		ws_composite *h = &cs[i];
		if (d->wl_name) {
			const dtpl *t;
			if (find_template(c, d, &t))
				return c->rc;
			if (!t || !t->composite)
				return bad(c, d->tpl_node,
					   "spec.workloadRef.templateName",
					   "Workload %s/%s has no "
					   "compositePodGroupTemplate \"%s\"",
					   d->ns, d->wl_name, d->tpl_name);
			merge_spec(&d->sp, &t->sp);
		}
		const dspec *sp = &d->sp;
		if (!sp->has_policy)
			return bad(c, d->spec, "spec", "CompositePodGroup %s/%s "
				   "has no schedulingPolicy%s", d->ns, d->name,
				   d->wl_name ? " (nor has its template)" : "");
		h->ns = d->ns;
		h->name = d->name;
		h->src = d->src;
		h->policy = sp->policy;
		h->min_groups = sp->policy == WS_POLICY_GANG ? sp->min_count
							     : 1;
		h->topo_key = sp->topo_key;
		h->disruption = sp->has_disrupt ? sp->disruption
						: WS_DISRUPT_SINGLE;
		h->tas = d->tas;
		if (d->tas)
			return bad(c, mget(mget(d->obj, "metadata"),
					   "annotations"),
				   "metadata.annotations", "preferred, slice "
				   "and exclusive topology annotations are "
				   "not supported on a CompositePodGroup yet; "
				   "put them on its PodGroups");
		if (resolve_prio(c, sp->has_prio, sp->prio, sp->pcname,
				 sp->pcname_node, "priorityClassName",
				 sp->has_preempt, sp->preempt, &h->priority,
				 &h->preempt))
			return c->rc;
		const char *k = wa_printf(c->t, "%s/%s", d->ns, d->name);
		if (!k || ws_map_put(idx, k, (int)i) == -2)
			return nomem(c);
	}
	/* parents */
	char key[2 * WASP_MAX_NAME + 8];
	for (size_t i = 0; i < nc; i++) {
		dgroup *d = &c->cgroups[i];
		if (!d->parent)
			continue;
		snprintf(key, sizeof key, "%s/%s", d->ns, d->parent);
		int pi = ws_map_get(idx, key);
		if (pi < 0)
			return bad(c, d->parent_node,
				   "spec.parentCompositePodGroupName",
				   "CompositePodGroup %s/%s does not exist",
				   d->ns, d->parent);
		cs[i].pcomp = pi + 1;
	}
	for (size_t i = 0; i < c->ngroups; i++) {
		dgroup *d = &c->groups[i];
		if (!d->parent)
			continue;
		snprintf(key, sizeof key, "%s/%s", d->ns, d->parent);
		int pi = ws_map_get(idx, key);
		if (pi < 0)
			return bad(c, d->parent_node,
				   "spec.parentCompositePodGroupName",
				   "CompositePodGroup %s/%s does not exist",
				   d->ns, d->parent);
		out[i].pcomp = pi + 1;
	}
	/* cycles and depth: walk up from each composite */
	for (size_t i = 0; i < nc; i++) {
		int depth = 1, h = (int)i;
		while (cs[h].pcomp) {
			h = cs[h].pcomp - 1;
			if (++depth > (int)nc)
				return bad(c, c->cgroups[i].parent_node,
					   "spec.parentCompositePodGroupName",
					   "CompositePodGroup %s/%s is its own "
					   "ancestor (a cycle through %s)",
					   cs[i].ns, cs[i].name,
					   c->cgroups[i].parent);
		}
		cs[i].depth = depth;
	}
	for (size_t i = 0; i < nc; i++)
		if (cs[i].depth >= WS_MAX_TREE_DEPTH)
			return bad(c, c->cgroups[i].parent_node,
				   "spec.parentCompositePodGroupName",
				   "CompositePodGroup %s/%s is at depth %d; "
				   "its PodGroups would be deeper than %d "
				   "levels", cs[i].ns, cs[i].name,
				   cs[i].depth, WS_MAX_TREE_DEPTH);
	/* one priority per tree; `all` parents have `all` children.
	 * Composites first, parents before children (by depth). */
	for (int dep = 2; dep < WS_MAX_TREE_DEPTH; dep++)
		for (size_t i = 0; i < nc; i++) {
			if (cs[i].depth != dep)
				continue;
			dgroup *d = &c->cgroups[i];
			ws_composite *pa = &cs[cs[i].pcomp - 1];
			if (!explicit_prio(d)) {
				cs[i].priority = pa->priority;
				if (!d->sp.has_preempt)
					cs[i].preempt = pa->preempt;
			} else if (cs[i].priority != pa->priority)
				return bad(c, prio_node(d), "", "Composite"
					   "PodGroup %s/%s has priority %d but "
					   "its tree (parent %s) has %d; a tree "
					   "shares one priority", cs[i].ns,
					   cs[i].name, (int)cs[i].priority,
					   pa->name, (int)pa->priority);
			if (pa->disruption == WS_DISRUPT_ALL) {
				if (d->sp.has_disrupt &&
				    cs[i].disruption != WS_DISRUPT_ALL)
					return bad(c, d->sp.disrupt_node,
						   "disruptionMode", "parent "
						   "%s has disruptionMode all, "
						   "so its children must too",
						   pa->name);
				cs[i].disruption = WS_DISRUPT_ALL;
			}
		}
	for (size_t i = 0; i < c->ngroups; i++) {
		if (!out[i].pcomp)
			continue;
		dgroup *d = &c->groups[i];
		ws_group *g = &out[i];
		ws_composite *pa = &cs[g->pcomp - 1];
		if (pa->depth + 1 > WS_MAX_TREE_DEPTH)
			return bad(c, d->parent_node,
				   "spec.parentCompositePodGroupName",
				   "PodGroup %s/%s would be at depth %d, "
				   "deeper than %d", g->ns, g->name,
				   pa->depth + 1, WS_MAX_TREE_DEPTH);
		if (!explicit_prio(d)) {
			g->priority = pa->priority;
			if (!d->sp.has_preempt)
				g->preempt = pa->preempt;
		} else if (g->priority != pa->priority)
			return bad(c, prio_node(d), "", "PodGroup %s/%s has "
				   "priority %d but its tree (parent %s) has "
				   "%d; a tree shares one priority", g->ns,
				   g->name, (int)g->priority, pa->name,
				   (int)pa->priority);
		if (pa->disruption == WS_DISRUPT_ALL) {
			if (d->sp.has_disrupt &&
			    g->disruption != WS_DISRUPT_ALL)
				return bad(c, d->sp.disrupt_node,
					   "disruptionMode", "parent %s has "
					   "disruptionMode all, so its "
					   "children must too", pa->name);
			if (g->policy != WS_POLICY_GANG)
				return bad(c, d->spec, "spec", "parent %s has "
					   "disruptionMode all, which needs "
					   "a gang child, but PodGroup %s/%s "
					   "is basic", pa->name, g->ns,
					   g->name);
			g->disruption = WS_DISRUPT_ALL;
		}
	}
	/* children lists: groups, then composites, each in input order */
	int *cnt = wa_calloc(c->t, nc + 1, sizeof *cnt);
	if (!cnt)
		return nomem(c);
	for (size_t i = 0; i < c->ngroups; i++)
		if (out[i].pcomp)
			cnt[out[i].pcomp - 1]++;
	for (size_t i = 0; i < nc; i++)
		if (cs[i].pcomp)
			cnt[cs[i].pcomp - 1]++;
	for (size_t i = 0; i < nc; i++)
		if (!(cs[i].kids = wa_calloc(c->a, (size_t)cnt[i] + 1,
					     sizeof(int))))
			return nomem(c);
	for (size_t i = 0; i < c->ngroups; i++)
		if (out[i].pcomp) {
			ws_composite *h = &cs[out[i].pcomp - 1];
			h->kids[h->nkids++] = (int)i;
		}
	for (size_t i = 0; i < nc; i++)
		if (cs[i].pcomp) {
			ws_composite *h = &cs[cs[i].pcomp - 1];
			h->kids[h->nkids++] = -1 - (int)i;
		}
	c->s->comps = cs;
	c->s->ncomps = (int)nc;
	return 0;
}

static int resolve_groups(dctx *c, ws_group *out)
{
	size_t nclaims = 0;
	for (size_t i = 0; i < c->ngroups; i++) {
		dgroup *d = &c->groups[i];
		ws_group *g = &out[i];
		if (d->wl_name) {
			const dtpl *t;
			if (find_template(c, d, &t))
				return c->rc;
			if (!t)
				return bad(c, d->tpl_node,
					   "spec.workloadRef.templateName",
					   "Workload %s/%s has no template "
					   "\"%s\"", d->ns, d->wl_name,
					   d->tpl_name);
			if (t->composite)
				return bad(c, d->tpl_node,
					   "spec.workloadRef.templateName",
					   "template \"%s\" of Workload %s/%s "
					   "is a compositePodGroupTemplate; a "
					   "PodGroup needs a podGroupTemplate",
					   d->tpl_name, d->ns, d->wl_name);
			merge_spec(&d->sp, &t->sp);
		}
		const dspec *sp = &d->sp;
		if (!sp->has_policy)
			return bad(c, d->spec, "spec", "PodGroup %s/%s has no "
				   "schedulingPolicy%s", d->ns, d->name,
				   d->wl_name ? " (nor has its template)" : "");
		if (sp->has_disrupt && sp->disruption == WS_DISRUPT_ALL &&
		    sp->policy == WS_POLICY_BASIC)
			return bad(c, sp->disrupt_node, "disruptionMode",
				   "disruptionMode all needs a gang "
				   "schedulingPolicy, not basic");
		g->ns = d->ns;
		g->name = d->name;
		g->src = d->src;
		g->policy = sp->policy;
		g->min_count = sp->policy == WS_POLICY_GANG ? sp->min_count
							    : 1;
		g->topo_key = sp->topo_key;
		g->disruption = sp->has_disrupt ? sp->disruption
						: WS_DISRUPT_SINGLE;
		g->parent = d->parent;
		g->tas = d->tas;
		if (resolve_prio(c, sp->has_prio, sp->prio, sp->pcname,
				 sp->pcname_node, "priorityClassName",
				 sp->has_preempt, sp->preempt, &g->priority,
				 &g->preempt))
			return c->rc;
		nclaims += sp->claims;
	}
	if (resolve_trees(c, out))
		return c->rc;
	if (nclaims &&
	    warn(c, "%zu %s DRA resourceClaims, which wasp does not model "
		 "yet; their device requests are ignored", nclaims,
		 plural(nclaims, "PodGroup has", "PodGroups have")))
		return WASP_ENOMEM;
	return 0;
}

/* ------------------------------------------------------------ assemble */

/* Pods -> groups (placeholders for missing ones), priorities, nodes. */
static int link_pods(dctx *c)
{
	ws_group *groups = c->out_groups;
	for (size_t i = 0; i < c->npods; i++) {
		dpod *d = &c->pods[i];
		ws_pod *p = &d->p;
		c->ndra += d->dra;
		c->nwref += d->workload_ref;
		if (p->terminal)
			continue;
		int gi = -1;
		if (d->gname) {
			char key[2 * WASP_MAX_NAME + 8];
			snprintf(key, sizeof key, "%s/%s", p->ns, d->gname);
			gi = ws_map_get(c->gidx, key);
			if (gi < 0) {
				/* A placeholder: its pods wait. */
				ws_group *g = &groups[c->nout_groups];
				g->ns = p->ns;
				g->name = wa_strdup(c->a, d->gname);
				g->src = src_of(c, d->gname_node);
				g->policy = WS_POLICY_BASIC;
				g->min_count = 1;
				g->invalid = wa_printf(c->a, "PodGroup %s/%s "
						       "does not exist",
						       p->ns, d->gname);
				const char *k = wa_strdup(c->t, key);
				if (!g->name || !g->invalid || !k ||
				    ws_map_put(c->gidx, k,
					       (int)c->nout_groups) == -2)
					return nomem(c);
				gi = (int)c->nout_groups++;
			}
			p->group = gi;
		}
		bool own = d->has_prio || d->pcname;
		bool placeholder = gi >= (int)c->ngroups;
		if (gi >= 0 && !own && !placeholder) {
			p->priority = groups[gi].priority;
			p->preempt = d->has_preempt ? d->preempt
						    : groups[gi].preempt;
		} else if (resolve_prio(c, d->has_prio, d->prio, d->pcname,
					d->pcname_node,
					"spec.priorityClassName",
					d->has_preempt, d->preempt,
					&p->priority, &p->preempt)) {
			return c->rc;
		}
		if (gi >= 0) {
			ws_group *g = &groups[gi];
			gacc *ga = &c->acc[gi];
			if (placeholder) {
				/* it takes its first pod's priority */
				if (ga->n == 0) {
					g->priority = p->priority;
					g->preempt = p->preempt;
				}
			} else if (!g->invalid && p->priority != g->priority) {
				g->invalid = wa_printf(
				    c->a, "pods disagree with the PodGroup on "
				    "priority (%d vs %d)", (int)p->priority,
				    (int)g->priority);
			} else if (!g->invalid && p->preempt != g->preempt) {
				g->invalid = wa_printf(
				    c->a, "pods disagree with the PodGroup on "
				    "preemptionPolicy (%s vs %s)",
				    preempt_name(p->preempt),
				    preempt_name(g->preempt));
			}
			if (WA_PUSH(c->t, ga->pods, ga->n, ga->cap, (int)i))
				return nomem(c);
		}
		if (p->node_name) {
			p->node = ws_map_get(c->nidx, p->node_name);
			if (p->node < 0 && !c->nlost++)
				c->first_lost = d;
		}
	}
	return 0;
}

/* Final resource numbers: "pods", then first use over nodes, then pods. */
static int number_resources(dctx *c)
{
	ws_snapshot *s = c->s;
	int *final = wa_calloc(c->t, c->nres, sizeof *final);
	if (!final)
		return nomem(c);
	for (size_t r = 1; r < c->nres; r++)
		final[r] = -1;
	int nres = 1;
	for (size_t i = 0; i < c->nnodes; i++)
		for (size_t k = 0; k < c->nodes[i].alloc.n; k++)
			if (final[c->nodes[i].alloc.q[k].r] < 0)
				final[c->nodes[i].alloc.q[k].r] = nres++;
	for (size_t i = 0; i < c->npods; i++)
		for (size_t k = 0; k < c->pods[i].req.n; k++)
			if (final[c->pods[i].req.q[k].r] < 0)
				final[c->pods[i].req.q[k].r] = nres++;
	for (size_t r = 0; r < c->nres; r++)
		if (final[r] < 0)
			final[r] = nres++;
	s->nres = nres;
	s->res = wa_calloc(c->a, (size_t)nres, sizeof *s->res);
	if (!s->res)
		return nomem(c);
	for (size_t r = 0; r < c->nres; r++)
		s->res[final[r]] = c->rnames[r];
	c->final = final;
	return 0;
}

static int build_nodes(dctx *c)
{
	ws_snapshot *s = c->s;
	s->nodes = wa_calloc(c->a, c->nnodes + 1, sizeof *s->nodes);
	if (!s->nodes)
		return nomem(c);
	for (size_t i = 0; i < c->nnodes; i++) {
		ws_node *n = &s->nodes[i];
		*n = c->nodes[i].n;
		n->alloc = wa_calloc(c->a, (size_t)s->nres, sizeof *n->alloc);
		n->used = wa_calloc(c->a, (size_t)s->nres, sizeof *n->used);
		if (!n->alloc || !n->used)
			return nomem(c);
		bool haspods = false;
		for (size_t k = 0; k < c->nodes[i].alloc.n; k++) {
			int r = c->final[c->nodes[i].alloc.q[k].r];
			n->alloc[r] = c->nodes[i].alloc.q[k].v;
			haspods |= r == WS_RES_PODS;
		}
		if (!haspods && !c->nopods++)
			c->first_nopods = n->name;
	}
	s->nnodes = (int)c->nnodes;
	return 0;
}

/* Pods, and what the bound ones use on their nodes. */
static int build_pods(dctx *c)
{
	ws_snapshot *s = c->s;
	int nres = s->nres;
	s->pods = wa_calloc(c->a, c->npods + 1, sizeof *s->pods);
	if (!s->pods)
		return nomem(c);
	for (size_t i = 0; i < c->npods; i++) {
		ws_pod *p = &s->pods[i];
		*p = c->pods[i].p;
		p->req = wa_calloc(c->a, (size_t)nres, sizeof *p->req);
		if (!p->req)
			return nomem(c);
		for (size_t k = 0; k < c->pods[i].req.n; k++)
			p->req[c->final[c->pods[i].req.q[k].r]] =
			    c->pods[i].req.q[k].v;
		p->req[WS_RES_PODS] = 1000;
		if (p->node < 0 || p->terminal)
			continue;
		ws_node *n = &s->nodes[p->node];
		for (int r = 0; r < nres; r++)
			if (__builtin_add_overflow(n->used[r], p->req[r],
						   &n->used[r]))
				return c->rc = werr_at(
					   c->err, WASP_EINPUT, p->src,
					   "requests of the pods bound to "
					   "node %s overflow", n->name);
	}
	s->npods = (int)c->npods;
	return 0;
}

static int build_rest(dctx *c)
{
	ws_snapshot *s = c->s;
	ws_group *groups = c->out_groups;
	for (size_t i = 0; i < c->nout_groups; i++) {
		groups[i].npods = (int)c->acc[i].n;
		if (!c->acc[i].n)
			continue;
		groups[i].pods = wa_calloc(c->a, c->acc[i].n, sizeof(int));
		if (!groups[i].pods)
			return nomem(c);
		memcpy(groups[i].pods, c->acc[i].pods,
		       c->acc[i].n * sizeof(int));
	}
	s->groups = groups;
	s->ngroups = (int)c->nout_groups;

	s->pcs = wa_calloc(c->a, c->npcs + 1, sizeof *s->pcs);
	s->topologies = wa_calloc(c->a, c->ntopos + 1, sizeof *s->topologies);
	if (!s->pcs || !s->topologies)
		return nomem(c);
	if (c->npcs)
		memcpy(s->pcs, c->pcs, c->npcs * sizeof *s->pcs);
	s->npcs = (int)c->npcs;
	if (c->ntopos)
		memcpy(s->topologies, c->topos,
		       c->ntopos * sizeof *s->topologies);
	s->ntopologies = (int)c->ntopos;
	return 0;
}

/* The warnings gathered while assembling, in a fixed order, then the
 * skipped kinds; all copied into the snapshot. */
static int final_warnings(dctx *c)
{
	ws_snapshot *s = c->s;
	size_t nmissing = c->nout_groups - c->ngroups;
	for (size_t i = c->ngroups, shown = 0; i < c->nout_groups; i++) {
		const ws_group *g = &c->out_groups[i];
		if (shown++ == MAX_WARN_ITEMS) {
			if (warn(c, "... and %zu more missing PodGroups",
				 nmissing - MAX_WARN_ITEMS))
				return c->rc;
			break;
		}
		if (warn(c, "PodGroup %s/%s does not exist; its %zu %s",
			 g->ns, g->name, c->acc[i].n,
			 plural(c->acc[i].n, "pod waits", "pods wait")))
			return c->rc;
	}
	if (c->nlost &&
	    warn(c, "%zu %s bound to nodes missing from the snapshot "
		 "(first: %s/%s on %s); their requests are not counted",
		 c->nlost, plural(c->nlost, "pod is", "pods are"),
		 c->first_lost->p.ns, c->first_lost->p.name,
		 c->first_lost->p.node_name))
		return c->rc;
	if (c->nopods &&
	    warn(c, "%zu %s no allocatable pods (first: %s), so %s no pods",
		 c->nopods, plural(c->nopods, "node lists", "nodes list"),
		 c->first_nopods, plural(c->nopods, "it takes", "they take")))
		return c->rc;
	if (c->nwref &&
	    warn(c, "%zu %s spec.workloadRef (Kubernetes 1.35), which wasp "
		 "ignores; use spec.schedulingGroup.podGroupName", c->nwref,
		 plural(c->nwref, "pod uses", "pods use")))
		return c->rc;
	for (size_t i = 0; i < c->nskips; i++)
		if (warn(c, "skipped %d %s of kind %s (%s): %s",
			 c->skips[i].count,
			 plural((size_t)c->skips[i].count, "object",
				"objects"),
			 c->skips[i].kind, c->skips[i].api, c->skips[i].why))
			return c->rc;
	if (c->nwarns) {
		s->warnings = wa_calloc(c->a, c->nwarns, sizeof *s->warnings);
		if (!s->warnings)
			return nomem(c);
		memcpy(s->warnings, c->warns, c->nwarns * sizeof(char *));
	}
	s->nwarnings = (int)c->nwarns;
	return 0;
}

static int name_maps(dctx *c)
{
	c->gidx = ws_map_new(c->t);
	c->nidx = ws_map_new(c->t);
	if (!c->gidx || !c->nidx)
		return nomem(c);
	for (size_t i = 0; i < c->ngroups; i++) {
		const ws_group *g = &c->out_groups[i];
		const char *k = wa_printf(c->t, "%s/%s", g->ns, g->name);
		if (!k || ws_map_put(c->gidx, k, (int)i) == -2)
			return nomem(c);
	}
	for (size_t i = 0; i < c->nnodes; i++)
		if (ws_map_put(c->nidx, c->nodes[i].n.name, (int)i) == -2)
			return nomem(c);
	return 0;
}

/* Hand the DRA objects and claim lists to dra.c (the trees are still
 * alive here). */
static int decode_dra(dctx *c)
{
	wdr_input in = {0};
	in.objs = c->draobjs;
	in.nobjs = c->ndraobjs;
	in.pod_claims = wa_calloc(c->t, c->npods + 1, sizeof(wt_node *));
	in.group_claims = wa_calloc(c->t, c->nout_groups + 1,
				    sizeof(wt_node *));
	if (!in.pod_claims || !in.group_claims)
		return nomem(c);
	in.pod_claim_status = wa_calloc(c->t, c->npods + 1,
					sizeof(wt_node *));
	if (!in.pod_claim_status)
		return nomem(c);
	for (size_t i = 0; i < c->npods; i++) {
		in.pod_claims[i] = c->pods[i].claims_node;
		in.pod_claim_status[i] = c->pods[i].claim_status;
	}
	for (size_t i = 0; i < c->ngroups; i++)
		in.group_claims[i] = c->groups[i].sp.claims_node;
	return c->rc = wdr_decode(c->s, &in, c->err);
}

static int decode_all(dctx *c, const wt_doc *docs, size_t ndocs)
{
	int r0;
	c->s = wa_alloc(c->a, sizeof *c->s);
	c->objs = ws_map_new(c->t);
	c->res = ws_map_new(c->t);
	c->wl_idx = ws_map_new(c->t);
	if (!c->s || !c->objs || !c->res || !c->wl_idx)
		return nomem(c);
	c->s->arena = c->a;
	if (intern_res(c, "pods", &r0))
		return c->rc;

	for (size_t d = 0; d < ndocs; d++)
		for (size_t i = 0; i < docs[d].nroots; i++)
			if (collect(c, docs[d].roots[i], 0))
				return c->rc;

	if (resolve_pcs(c))
		return c->rc;
	/* room for one placeholder group per pod at most */
	size_t cap = c->ngroups + c->npods + 1;
	c->out_groups = wa_calloc(c->a, cap, sizeof *c->out_groups);
	c->acc = wa_calloc(c->t, cap, sizeof *c->acc);
	if (!c->out_groups || !c->acc)
		return nomem(c);
	c->nout_groups = c->ngroups;
	if (resolve_groups(c, c->out_groups) || name_maps(c) ||
	    link_pods(c) || number_resources(c) || build_nodes(c) ||
	    build_pods(c) || build_rest(c) || final_warnings(c))
		return c->rc;
	c->s->pdbs = c->pdbs;
	c->s->npdbs = (int)c->npdbs;
	if (ws_snapshot_index(c->s))
		return nomem(c);
	return decode_dra(c);
}

int wd_decode(const wt_doc *docs, size_t ndocs, ws_snapshot **out,
	      wasp_error *err)
{
	if (!out)
		return werr(err, WASP_EINVAL, "wd_decode: no output");
	*out = NULL;
	if (!docs && ndocs)
		return werr(err, WASP_EINVAL, "wd_decode: no documents");
	dctx c0 = {0}, *c = &c0;
	c->err = err;
	c->a = wa_new();
	c->t = wa_new();
	int rc = c->a && c->t ? decode_all(c, docs, ndocs) : nomem(c);
	wa_destroy(c->t);
	if (rc) {
		wa_destroy(c->a);
		return rc;
	}
	*out = c->s;
	return WASP_OK;
}
