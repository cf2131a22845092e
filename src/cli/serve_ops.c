/*
 * serve_ops.c -- `wasp serve`: one request line answered against the held
 * snapshot (the operations and their JSON, doc/serve.md).
 *
 * Requests are read with the project's own JSON loader (io/load.h), so a
 * malformed request or a field of the wrong type is answered with the
 * line and column it points at; responses are built with cJSON.  Nothing
 * here touches the held snapshot until a new version is complete: a
 * failed write leaves the current version as it was.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/arena.h"
#include "base/error.h"
#include "cli/serve_int.h"
#include "io/load.h"

/* The protocol's names of the wasp_code values (doc/serve.md, "Errors"). */
static const char *const code_names[] = {
    "OK",       "EINPUT",     "ENOMEM", "EIO",      "EINVAL",
    "ESOLVER",  "ECANCELED",  "ELIMIT", "ENOTFOUND"};

static const char *code_name(int code)
{
	if (code < 0 || code >= (int)(sizeof code_names / sizeof *code_names))
		return "EINVAL";
	return code_names[code];
}

/* ------------------------------------------------------------ versions */

int wsv_state_init(wsv_state *st, wasp_snapshot *s)
{
	memset(st, 0, sizeof *st);
	st->cur = calloc(1, sizeof *st->cur);
	if (!st->cur)
		return WASP_ENOMEM;
	st->cur->s = s;
	st->cur->version = 1;
	st->cur->refs = 1;
	pthread_mutex_init(&st->lock, NULL);
	pthread_mutex_init(&st->write_lock, NULL);
	wasp_options_init(&st->defaults);
	st->journal = -1;
	st->started = wasp_now();
	return WASP_OK;
}

void wsv_state_fini(wsv_state *st)
{
	if (st->cur)
		wsv_release(st, st->cur);
	st->cur = NULL;
	pthread_mutex_destroy(&st->lock);
	pthread_mutex_destroy(&st->write_lock);
}

wsv_version *wsv_acquire(wsv_state *st)
{
	pthread_mutex_lock(&st->lock);
	wsv_version *v = st->cur;
	v->refs++;
	pthread_mutex_unlock(&st->lock);
	return v;
}

void wsv_release(wsv_state *st, wsv_version *v)
{
	pthread_mutex_lock(&st->lock);
	int last = --v->refs == 0;
	pthread_mutex_unlock(&st->lock);
	if (last) {
		wasp_snapshot_free(v->s);
		free(v);
	}
}

/* Make s the current version (the caller holds write_lock); returns its
 * number, or 0 when memory runs out (s is then freed). */
static long swap_in(wsv_state *st, wasp_snapshot *s)
{
	wsv_version *nv = calloc(1, sizeof *nv);
	if (!nv) {
		wasp_snapshot_free(s);
		return 0;
	}
	nv->s = s;
	nv->refs = 1;
	pthread_mutex_lock(&st->lock);
	wsv_version *old = st->cur;
	nv->version = old->version + 1;
	st->cur = nv;
	pthread_mutex_unlock(&st->lock);
	wsv_release(st, old);
	return nv->version;
}

/* ------------------------------------------------------------ reading */

static wsrc at(const wt_node *n, const char *file)
{
	return (wsrc){file, n->src.line, n->src.col};
}

/* A string field; NULL and no error when absent and optional. */
static int get_str(const wt_node *map, const char *key, int required,
		   const char **out, wasp_error *err)
{
	const wt_node *n = wt_get(map, key);
	*out = NULL;
	if (!n || n->type == WT_NULL) {
		if (required)
			return werr_at(err, WASP_EINPUT, at(map, "request"),
				       "missing field \"%s\"", key);
		return WASP_OK;
	}
	if (n->type != WT_STR)
		return werr_at(err, WASP_EINPUT, at(n, "request"),
			       "\"%s\" must be a string, not %s", key,
			       wt_type_phrase(n->type));
	*out = n->str;
	return WASP_OK;
}

static int get_num(const wt_node *map, const char *key, double lo, double hi,
		   double *out, wasp_error *err)
{
	const wt_node *n = wt_get(map, key);
	if (!n || n->type == WT_NULL)
		return WASP_OK;
	char *end = NULL;
	errno = 0;
	double v = n->type == WT_NUM ? strtod(n->str, &end) : NAN;
	if (n->type != WT_NUM || *end || errno || !isfinite(v) || v < lo ||
	    v > hi)
		return werr_at(err, WASP_EINPUT, at(n, "request"),
			       "\"%s\" must be a number from %g to %g", key,
			       lo, hi);
	*out = v;
	return WASP_OK;
}

static int get_bool(const wt_node *map, const char *key, int *out,
		    wasp_error *err)
{
	const wt_node *n = wt_get(map, key);
	if (!n || n->type == WT_NULL)
		return WASP_OK;
	if (n->type != WT_BOOL)
		return werr_at(err, WASP_EINPUT, at(n, "request"),
			       "\"%s\" must be true or false", key);
	*out = n->boolean;
	return WASP_OK;
}

/* One of `names` (NULL-terminated); *out is its index. */
static int get_enum(const wt_node *map, const char *key,
		    const char *const *names, int *out, wasp_error *err)
{
	const char *s;
	int rc = get_str(map, key, 0, &s, err);
	if (rc || !s)
		return rc;
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return WASP_OK;
		}
	return werr_at(err, WASP_EINPUT, at(wt_get(map, key), "request"),
		       "unknown %s \"%s\"", key, s);
}

/* "options": the request's overrides of the server's defaults. */
static int get_options(const wsv_state *st, const wt_node *req,
		       wasp_options *o, wasp_error *err)
{
	static const char *const modes[] = {"auto", "greedy", "ilp", NULL};
	static const char *const domains[] = {"value", "path", NULL};
	*o = st->defaults;
	o->cancel = &st->cancel;
	const wt_node *m = wt_get(req, "options");
	if (!m || m->type == WT_NULL)
		return WASP_OK;
	if (m->type != WT_MAP)
		return werr_at(err, WASP_EINPUT, at(m, "request"),
			       "\"options\" must be a map");
	double threads = o->threads, moves = o->max_moves,
	       work = (double)o->work_limit;
	int rc;
	if ((rc = get_enum(m, "mode", modes, &o->mode, err)) ||
	    (rc = get_num(m, "timeLimit", 0, 1e9, &o->time_limit_s, err)) ||
	    (rc = get_num(m, "gap", 0, 1, &o->gap, err)) ||
	    (rc = get_num(m, "threads", 0, WASP_MAX_THREADS, &threads, err)) ||
	    (rc = get_enum(m, "domain", domains, &o->domain_mode, err)) ||
	    (rc = get_str(m, "value", 0, &o->value_resource, err)) ||
	    (rc = get_bool(m, "rebalance", &o->rebalance, err)) ||
	    (rc = get_num(m, "maxMoves", 0, 1e8, &moves, err)) ||
	    (rc = get_str(m, "protect", 0, &o->protect, err)) ||
	    (rc = get_bool(m, "nodeModel", &o->node_model, err)) ||
	    (rc = get_num(m, "workLimit", 0, 1e15, &work, err)))
		return rc;
	o->threads = (int)threads;
	o->max_moves = (int)moves;
	o->work_limit = (long)work;
	return wasp_options_check(o, err);
}

/* "kind", "namespace", "name" of a group. */
static int get_group(const wt_node *req, int *kind, const char **ns,
		     const char **name, wasp_error *err)
{
	static const char *const kinds[] = {"PodGroup", "Workload",
					    "CompositePodGroup", NULL};
	int rc;
	*kind = WASP_GROUP_PODGROUP;
	if ((rc = get_enum(req, "kind", kinds, kind, err)) ||
	    (rc = get_str(req, "namespace", 0, ns, err)) ||
	    (rc = get_str(req, "name", 1, name, err)))
		return rc;
	return WASP_OK;
}

/* A document tree back to JSON (numbers keep their exact text). */
static cJSON *to_json(const wt_node *n)
{
	cJSON *j = NULL;
	switch (n->type) {
	case WT_NULL:
		return cJSON_CreateNull();
	case WT_BOOL:
		return cJSON_CreateBool(n->boolean);
	case WT_NUM:
		return cJSON_CreateRaw(n->str);
	case WT_STR:
		return cJSON_CreateString(n->str);
	case WT_SEQ:
		if (!(j = cJSON_CreateArray()))
			return NULL;
		for (size_t i = 0; i < n->n; i++) {
			cJSON *c = to_json(n->items[i]);
			if (!c || !cJSON_AddItemToArray(j, c)) {
				cJSON_Delete(c);
				cJSON_Delete(j);
				return NULL;
			}
		}
		return j;
	case WT_MAP:
		if (!(j = cJSON_CreateObject()))
			return NULL;
		for (size_t i = 0; i < n->n; i++) {
			cJSON *c = to_json(wt_val(n, i));
			if (!c || !cJSON_AddItemToObject(j, wt_key(n, i)->str,
							 c)) {
				cJSON_Delete(c);
				cJSON_Delete(j);
				return NULL;
			}
		}
		return j;
	}
	return NULL;
}

/* A value of the request as JSON text (malloc'd), for the library. */
static char *to_text(const wt_node *n)
{
	cJSON *j = to_json(n);
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;
	cJSON_Delete(j);
	return s;
}

/* "plan": a plan document as `place` and `solve` return it. */
static int get_plan(const wt_node *req, wasp_plan **out, wasp_error *err)
{
	const wt_node *n = wt_get(req, "plan");
	*out = NULL;
	if (!n || n->type != WT_MAP)
		return werr_at(err, WASP_EINPUT, at(n ? n : req, "request"),
			       "\"plan\" must be a plan document (a map)");
	char *text = to_text(n);
	if (!text)
		return werr(err, WASP_ENOMEM, "out of memory");
	int rc = wasp_plan_from_text(out, text, strlen(text), "plan", err);
	free(text);
	return rc;
}

/* ------------------------------------------------------------ writing */

/* The rendered plan as one line of raw JSON: the renderer escapes
 * newlines inside strings, so every newline it writes is layout. */
static cJSON *plan_json(const wasp_plan *p, wasp_error *err)
{
	char *text = wasp_plan_render(p, WASP_FORMAT_JSON, err);
	if (!text)
		return NULL;
	for (char *c = text; *c; c++)
		if (*c == '\n')
			*c = ' ';
	cJSON *j = cJSON_CreateRaw(text);
	wasp_free(text);
	if (!j)
		werr(err, WASP_ENOMEM, "out of memory");
	return j;
}

static char *finish(cJSON *root)
{
	char *s = root ? cJSON_PrintUnformatted(root) : NULL;
	cJSON_Delete(root);
	return s;
}

static cJSON *envelope(const wt_node *id, int ok)
{
	cJSON *r = cJSON_CreateObject();
	if (!r)
		return NULL;
	cJSON_AddNumberToObject(r, "v", WSV_PROTOCOL);
	if (id)
		cJSON_AddItemToObject(r, "id", to_json(id));
	cJSON_AddBoolToObject(r, "ok", ok);
	return r;
}

static char *error_response(const wt_node *id, const wasp_error *e)
{
	cJSON *r = envelope(id, 0), *x = cJSON_CreateObject();
	if (!r || !x) {
		cJSON_Delete(x);
		return finish(r);
	}
	cJSON_AddStringToObject(x, "code", code_name(e->code));
	if (e->file[0]) {
		cJSON_AddStringToObject(x, "file", e->file);
		cJSON_AddNumberToObject(x, "line", e->line);
		cJSON_AddNumberToObject(x, "col", e->col);
	}
	cJSON_AddStringToObject(x, "message",
				e->msg[0] ? e->msg : wasp_code_name(e->code));
	cJSON_AddItemToObject(r, "error", x);
	return finish(r);
}

char *wsv_error_line(int code, const char *msg)
{
	wasp_error e;
	werr(&e, code, "%s", msg);
	return error_response(NULL, &e);
}

/* ------------------------------------------------------------ deltas */

/* Apply "put" (manifest texts, or objects) and "delete" ({kind,
 * namespace, name}) of `req` to base.  *journal (may be NULL) receives
 * the delta as one line of JSON with every put as text, for replay. */
static int apply_delta(const wasp_snapshot *base, const wt_node *req,
		       wasp_snapshot **out, char **journal, wasp_error *err)
{
	const wt_node *puts = wt_get(req, "put"), *dels = wt_get(req, "delete");
	wasp_delta *d = NULL;
	cJSON *jl = NULL, *jp = NULL, *jd = NULL;
	int rc;

	*out = NULL;
	if (journal)
		*journal = NULL;
	if (puts && puts->type != WT_SEQ && puts->type != WT_NULL)
		return werr_at(err, WASP_EINPUT, at(puts, "request"),
			       "\"put\" must be a list");
	if (dels && dels->type != WT_SEQ && dels->type != WT_NULL)
		return werr_at(err, WASP_EINPUT, at(dels, "request"),
			       "\"delete\" must be a list");
	if ((rc = wasp_delta_new(&d, err)))
		return rc;
	jl = cJSON_CreateObject();
	jp = cJSON_AddArrayToObject(jl, "put");
	jd = cJSON_AddArrayToObject(jl, "delete");
	if (!jl || !jp || !jd) {
		rc = werr(err, WASP_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; puts && puts->type == WT_SEQ && i < puts->n; i++) {
		const wt_node *it = puts->items[i];
		char name[32], *text = NULL;
		snprintf(name, sizeof name, "put[%zu]", i);
		if (it->type == WT_STR)
			text = strdup(it->str);
		else if (it->type == WT_MAP)
			text = to_text(it);
		else {
			rc = werr_at(err, WASP_EINPUT, at(it, "request"),
				     "%s must be manifest text or an object",
				     name);
			goto out;
		}
		if (!text) {
			rc = werr(err, WASP_ENOMEM, "out of memory");
			goto out;
		}
		rc = wasp_delta_put(d, text, strlen(text), name, err);
		cJSON_AddItemToArray(jp, cJSON_CreateString(text));
		free(text);
		if (rc)
			goto out;
	}
	for (size_t i = 0; dels && dels->type == WT_SEQ && i < dels->n; i++) {
		const wt_node *it = dels->items[i];
		const char *kind, *ns, *name;
		if (it->type != WT_MAP) {
			rc = werr_at(err, WASP_EINPUT, at(it, "request"),
				     "delete[%zu] must be {kind, namespace, "
				     "name}", i);
			goto out;
		}
		if ((rc = get_str(it, "kind", 1, &kind, err)) ||
		    (rc = get_str(it, "namespace", 0, &ns, err)) ||
		    (rc = get_str(it, "name", 1, &name, err)) ||
		    (rc = wasp_delta_delete(d, kind, ns, name, err)))
			goto out;
		cJSON_AddItemToArray(jd, to_json(it));
	}
	if ((rc = wasp_snapshot_apply(base, d, out, err)))
		goto out;
	if (journal && !(*journal = cJSON_PrintUnformatted(jl))) {
		wasp_snapshot_free(*out);
		*out = NULL;
		rc = werr(err, WASP_ENOMEM, "out of memory");
	}
out:
	cJSON_Delete(jl);
	wasp_delta_free(d);
	return rc;
}

int wsv_apply_text(const wasp_snapshot *base, const char *text, size_t len,
		   const char *name, wasp_snapshot **out, char **journal_line,
		   wasp_error *err)
{
	wa_arena *a = wa_new();
	wt_doc doc;
	int rc;

	*out = NULL;
	if (!a)
		return werr(err, WASP_ENOMEM, "out of memory");
	rc = wl_load_json(a, text, len, name, &doc, err);
	if (!rc && (doc.nroots != 1 || doc.roots[0]->type != WT_MAP))
		rc = werr(err, WASP_EINPUT, "%s: not a delta object", name);
	if (!rc)
		rc = apply_delta(base, doc.roots[0], out, journal_line, err);
	wa_destroy(a);
	return rc;
}

/* ------------------------------------------------------------ operations */

typedef struct req {
	wsv_state *st;
	const wt_node *root;
	cJSON *result; /* the op fills it */
	wasp_error *err;
} req;

/* A write: build the next version from the current one with `make`, then
 * swap it in; "snapshotVersion" in the result. */
static int write_op(req *r, int (*make)(req *, const wasp_snapshot *,
					 wasp_snapshot **, char **))
{
	wsv_state *st = r->st;
	wasp_snapshot *next = NULL;
	char *jline = NULL;

	pthread_mutex_lock(&st->write_lock);
	wsv_version *v = wsv_acquire(st);
	int rc = make(r, v->s, &next, st->journal >= 0 ? &jline : NULL);
	wsv_release(st, v);
	if (!rc && jline)
		rc = wsv_journal_append(st, jline, r->err);
	free(jline);
	long ver = 0;
	if (rc)
		wasp_snapshot_free(next);
	else if (!(ver = swap_in(st, next)))
		rc = werr(r->err, WASP_ENOMEM, "out of memory");
	pthread_mutex_unlock(&st->write_lock);
	if (!rc)
		cJSON_AddNumberToObject(r->result, "snapshotVersion",
					(double)ver);
	return rc;
}

static int make_delta(req *r, const wasp_snapshot *base, wasp_snapshot **out,
		      char **jline)
{
	return apply_delta(base, r->root, out, jline, r->err);
}

static int make_assume(req *r, const wasp_snapshot *base, wasp_snapshot **out,
		       char **jline)
{
	wasp_plan *p;
	int rc = get_plan(r->root, &p, r->err);
	if (!rc)
		rc = wasp_snapshot_assume(base, p, out, r->err);
	wasp_plan_free(p);
	return rc;
}

static int make_forget(req *r, const wasp_snapshot *base, wasp_snapshot **out,
		       char **jline)
{
	int kind;
	const char *ns, *name;
	int rc = get_group(r->root, &kind, &ns, &name, r->err);
	if (!rc)
		rc = wasp_snapshot_forget(base, kind, ns, name, out, r->err);
	return rc;
}

static int op_delta(req *r) { return write_op(r, make_delta); }
static int op_assume(req *r) { return write_op(r, make_assume); }
static int op_forget(req *r) { return write_op(r, make_forget); }

/* Attach a plan and the version it was made on. */
static int put_plan(req *r, const wsv_version *v, wasp_plan *p)
{
	cJSON *j = plan_json(p, r->err);
	wasp_plan_free(p);
	if (!j)
		return r->err->code;
	cJSON_AddNumberToObject(r->result, "snapshotVersion",
				(double)v->version);
	cJSON_AddItemToObject(r->result, "plan", j);
	return WASP_OK;
}

static int op_place(req *r)
{
	int kind, rc;
	const char *ns, *name;
	double ms = 0;
	wasp_options o;
	wasp_plan *p = NULL;

	if ((rc = get_group(r->root, &kind, &ns, &name, r->err)) ||
	    (rc = get_num(r->root, "deadlineMs", 0, 86400e3, &ms, r->err)) ||
	    (rc = get_options(r->st, r->root, &o, r->err)))
		return rc;
	wsv_version *v = wsv_acquire(r->st);
	rc = wasp_place(v->s, kind, ns, name, &o,
			ms > 0 ? (unsigned)ms : WSV_PLACE_DEADLINE_MS, &p,
			r->err);
	if (!rc)
		rc = put_plan(r, v, p);
	wsv_release(r->st, v);
	return rc;
}

static int op_solve(req *r)
{
	wasp_options o;
	wasp_plan *p = NULL;
	int rc = get_options(r->st, r->root, &o, r->err);
	if (rc)
		return rc;
	wsv_version *v = wsv_acquire(r->st);
	rc = wasp_solve(v->s, &o, &p, r->err);
	if (!rc)
		rc = put_plan(r, v, p);
	wsv_release(r->st, v);
	return rc;
}

static int op_check(req *r)
{
	wasp_plan *p;
	size_t nviol = 0;
	char *report = NULL;
	int rc = get_plan(r->root, &p, r->err);
	if (rc)
		return rc;
	wsv_version *v = wsv_acquire(r->st);
	rc = wasp_check(v->s, p, &nviol, &report, r->err);
	if (!rc) {
		cJSON_AddNumberToObject(r->result, "snapshotVersion",
					(double)v->version);
		cJSON_AddNumberToObject(r->result, "violations",
					(double)nviol);
		cJSON_AddStringToObject(r->result, "report",
					report ? report : "");
	}
	wasp_free(report);
	wasp_plan_free(p);
	wsv_release(r->st, v);
	return rc;
}

static int op_health(req *r)
{
	wsv_state *st = r->st;
	pthread_mutex_lock(&st->lock);
	long ver = st->cur->version;
	int draining = st->draining;
	pthread_mutex_unlock(&st->lock);
	cJSON_AddStringToObject(r->result, "status",
				draining ? "draining" : "serving");
	cJSON_AddNumberToObject(r->result, "protocol", WSV_PROTOCOL);
	cJSON_AddStringToObject(r->result, "version", wasp_version());
	cJSON_AddNumberToObject(r->result, "snapshotVersion", (double)ver);
	return WASP_OK;
}

static int op_stats(req *r)
{
	wsv_state *st = r->st;
	wasp_snapshot_stats ss;
	cJSON *x = r->result;

	wsv_version *v = wsv_acquire(st);
	wasp_snapshot_stats_get(v->s, &ss);
	size_t nwarn = 0;
	while (wasp_snapshot_warning(v->s, nwarn))
		nwarn++;
	cJSON_AddNumberToObject(x, "snapshotVersion", (double)v->version);
	wsv_release(st, v);
	cJSON_AddNumberToObject(x, "nodes", (double)ss.nodes);
	cJSON_AddNumberToObject(x, "pods", (double)ss.pods);
	cJSON_AddNumberToObject(x, "podsPending", (double)ss.pods_pending);
	cJSON_AddNumberToObject(x, "podsBound", (double)ss.pods_bound);
	cJSON_AddNumberToObject(x, "groups", (double)ss.groups);
	cJSON_AddNumberToObject(x, "resources", (double)ss.resources);
	cJSON_AddNumberToObject(x, "warnings", (double)nwarn);
	pthread_mutex_lock(&st->lock);
	cJSON_AddNumberToObject(x, "requests", (double)st->requests);
	cJSON_AddNumberToObject(x, "errors", (double)st->errors);
	cJSON_AddNumberToObject(x, "clients", (double)st->clients);
	cJSON_AddNumberToObject(x, "clientsTotal", (double)st->clients_total);
	pthread_mutex_unlock(&st->lock);
	cJSON_AddNumberToObject(x, "uptime", wasp_now() - st->started);
	if (st->journal_path)
		cJSON_AddStringToObject(x, "journal", st->journal_path);
	return WASP_OK;
}

static const struct {
	const char *name;
	int (*run)(req *);
} ops[] = {
    {"health", op_health}, {"stats", op_stats},   {"delta", op_delta},
    {"place", op_place},   {"assume", op_assume}, {"forget", op_forget},
    {"solve", op_solve},   {"check", op_check},
};

char *wsv_handle(wsv_state *st, const char *line, size_t len)
{
	wa_arena *a = wa_new();
	wasp_error err;
	wt_doc doc;
	const wt_node *id = NULL;
	const char *op = NULL;
	double v = 0;
	int rc;
	req r = {st, NULL, NULL, &err};

	memset(&err, 0, sizeof err);
	if (!a)
		return wsv_error_line(WASP_ENOMEM, "out of memory");
	rc = wl_load_json(a, line, len, "request", &doc, &err);
	if (!rc && (doc.nroots != 1 || doc.roots[0]->type != WT_MAP))
		rc = werr_at(&err, WASP_EINPUT,
			     doc.nroots ? at(doc.roots[0], "request")
					: (wsrc){"request", 1, 1},
			     "a request is one JSON object");
	if (!rc) {
		r.root = doc.roots[0];
		id = wt_get(r.root, "id");
		rc = get_num(r.root, "v", 0, 1e9, &v, &err);
	}
	if (!rc && v != WSV_PROTOCOL)
		rc = werr_at(&err, WASP_EINVAL,
			     at(wt_get(r.root, "v") ? wt_get(r.root, "v")
						     : r.root, "request"),
			     "protocol version \"v\" must be %d",
			     WSV_PROTOCOL);
	if (!rc)
		rc = get_str(r.root, "op", 1, &op, &err);
	if (!rc) {
		size_t k = 0;
		while (k < sizeof ops / sizeof *ops && strcmp(ops[k].name, op))
			k++;
		if (k == sizeof ops / sizeof *ops)
			rc = werr_at(&err, WASP_EINVAL,
				     at(wt_get(r.root, "op"), "request"),
				     "unknown op \"%s\"", op);
		else if (!(r.result = cJSON_CreateObject()))
			rc = werr(&err, WASP_ENOMEM, "out of memory");
		else
			rc = ops[k].run(&r);
	}
	char *out;
	if (rc) {
		cJSON_Delete(r.result);
		out = error_response(id, &err);
	} else {
		cJSON *e = envelope(id, 1);
		if (e)
			cJSON_AddItemToObject(e, "result", r.result);
		else
			cJSON_Delete(r.result);
		out = finish(e);
	}
	pthread_mutex_lock(&st->lock);
	st->requests++;
	st->errors += rc != 0;
	pthread_mutex_unlock(&st->lock);
	wa_destroy(a);
	return out;
}
