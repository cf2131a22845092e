/*
 * api.c -- the public API (wasp.h) on top of the internal modules.
 *
 * Thin on purpose: argument checks, one temporary arena per call for the
 * document trees, timing of the load, and conversion of internal strings
 * into caller-owned malloc'd memory.  Nothing here prints or exits.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strdup */
#include "wasp.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/options.h"
#include "model/decode.h"
#include "model/version.h"
#include "gen/gen.h"
#include "solve/ilp/ilp.h"
#include "io/load.h"
#include "plan/render.h"
#include "plan/render_html.h"
#include "run/run.h"
#include "plan/verify.h"

const char *wasp_version(void)
{
	return WASP_VERSION;
}

void wasp_free(void *p)
{
	free(p);
}

double wasp_now(void)
{
	return wb_now();
}

void wasp_options_init(wasp_options *o)
{
	if (o)
		wopt_init(o);
}

int wasp_options_check(const wasp_options *o, wasp_error *err)
{
	return wopt_check(o, err);
}

/* ------------------------------------------------------------ snapshot */

/* Decode the documents of one temporary tree arena into a snapshot. */
/* One input, the file `path` or else `text`, loaded into a fresh arena *a
 * that the caller destroys (also on failure). */
static int load_one(wa_arena **a, wt_doc *doc, const char *path,
		    const char *text, size_t len, const char *name,
		    wasp_error *err)
{
	memset(doc, 0, sizeof *doc);
	*a = wa_new();
	if (!*a)
		return werr(err, WASP_ENOMEM, "out of memory");
	if (path)
		return wl_load_file(*a, path, doc, err);
	return wl_load_text(*a, text ? text : "", len, name, doc, err);
}

/* The snapshot keeps the trees (arena a, which it takes over, also on
 * failure) for the deltas of later versions (model/version.h). */
static int decode_docs(wasp_snapshot **out, wa_arena *a, const wt_doc *docs,
		       size_t n, const wl_limits *lim, double t0,
		       wasp_error *err)
{
	ws_snapshot *s = NULL;
	int rc = wd_decode_lim(docs, n, lim, &s, err);
	ws_trees *t = rc ? NULL : ws_trees_new(a);
	if (rc) {
		wa_destroy(a);
		return rc;
	}
	if (!t || (rc = ws_version_attach(s, t, docs, n, err))) {
		ws_snapshot_free(s);
		return t ? rc : werr(err, WASP_ENOMEM, "out of memory");
	}
	s->t_load = wasp_now() - t0;
	*out = s;
	return WASP_OK;
}

int wasp_snapshot_load(wasp_snapshot **out, const char *const *paths,
		       size_t npaths, wasp_error *err)
{
	return wasp_snapshot_load_limited(out, paths, npaths, NULL, 0, err);
}

int wasp_snapshot_load_limited(wasp_snapshot **out,
			       const char *const *paths, size_t npaths,
			       const wasp_options *o, size_t max_bytes,
			       wasp_error *err)
{
	if (!out || !paths || npaths == 0)
		return werr(err, WASP_EINVAL, "wasp_snapshot_load: %s",
			    !out ? "out is NULL" : "no input paths");
	*out = NULL;
	size_t nstdin = 0;
	for (size_t i = 0; i < npaths; i++) {
		if (!paths[i])
			return werr(err, WASP_EINVAL,
				    "wasp_snapshot_load: path %zu is NULL", i);
		nstdin += strcmp(paths[i], "-") == 0;
	}
	if (nstdin > 1)
		return werr(err, WASP_EINVAL, "wasp_snapshot_load: standard "
			    "input (\"-\") can be read only once");
	double t0 = wasp_now();
	wl_limits lim = {wdl_none(), NULL, max_bytes};
	if (o) {
		lim.deadline = wdl_after(o->start_time > 0 ? o->start_time : t0,
					 WSV_LOAD_SHARE * o->time_limit_s);
		lim.cancel = o->cancel;
		/* max_memory caps the input too (wasp.h) */
		size_t cap = o->max_memory / WASP_MEMORY_PER_INPUT_BYTE;
		if (cap && (!lim.max_bytes || cap < lim.max_bytes))
			lim.max_bytes = cap;
	}
	wa_arena *a = wa_new();
	wt_doc *docs = a ? wa_calloc(a, npaths, sizeof *docs) : NULL;
	if (!docs) {
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	int rc = WASP_OK;
	for (size_t i = 0; i < npaths && !rc; i++)
		rc = wl_load_file_lim(a, paths[i], &lim, &docs[i], err);
	if (!rc)
		rc = wl_stop(&lim, err, (wsrc){NULL, 0, 0});
	if (rc) {
		wa_destroy(a);
		return rc;
	}
	return decode_docs(out, a, docs, npaths, &lim, t0, err);
}

int wasp_snapshot_from_text(wasp_snapshot **out, const char *text,
			    size_t len, const char *name, wasp_error *err)
{
	if (!out || (!text && len))
		return werr(err, WASP_EINVAL, "wasp_snapshot_from_text: %s",
			    !out ? "out is NULL" : "text is NULL");
	*out = NULL;
	double t0 = wasp_now();
	wa_arena *a;
	wt_doc doc;
	int rc = load_one(&a, &doc, NULL, text, len, name ? name : "<text>",
			  err);
	if (rc) {
		wa_destroy(a);
		return rc;
	}
	return decode_docs(out, a, &doc, 1, NULL, t0, err);
}

void wasp_snapshot_free(wasp_snapshot *s)
{
	if (s)
		ws_snapshot_free(s);
}

const char *wasp_snapshot_warning(const wasp_snapshot *s, size_t i)
{
	if (!s || i >= (size_t)s->nwarnings)
		return NULL;
	return s->warnings[i];
}

void wasp_snapshot_stats_get(const wasp_snapshot *s, wasp_snapshot_stats *st)
{
	if (!st)
		return;
	memset(st, 0, sizeof *st);
	if (!s)
		return;
	st->nodes = s->nnodes;
	st->groups = s->ngroups;
	st->resources = s->nres;
	st->pods = s->npods;
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *p = &s->pods[i];
		if (p->terminal)
			continue;
		if (ws_pod_pending(p))
			st->pods_pending++;
		else
			st->pods_bound++;
	}
}

/* ---------------------------------------------------------------- plan */

int wasp_solve(const wasp_snapshot *s, const wasp_options *o,
	       wasp_plan **out, wasp_error *err)
{
	if (!s || !out)
		return werr(err, WASP_EINVAL, "wasp_solve: %s is NULL",
			    !s ? "snapshot" : "out");
	*out = NULL;
	wasp_options def;
	if (!o) {
		wasp_options_init(&def);
		o = &def;
	}
	int rc = wopt_check(o, err);
	return rc ? rc : wsv_solve(s, o, out, err);
}

char *wasp_plan_render(const wasp_plan *p, int format, wasp_error *err)
{
	if (!p) {
		werr(err, WASP_EINVAL, "wasp_plan_render: plan is NULL");
		return NULL;
	}
	if (format == WASP_FORMAT_HTML) {
		werr(err, WASP_EINVAL, "wasp_plan_render: the HTML report "
		     "needs the snapshot: use wasp_report_html");
		return NULL;
	}
	if (format < WASP_FORMAT_JSON || format > WASP_FORMAT_TEXT) {
		werr(err, WASP_EINVAL, "wasp_plan_render: unknown format %d",
		     format);
		return NULL;
	}
	return wr_render(p, format, err);
}

char *wasp_report_html(const wasp_snapshot *s, const wasp_plan *p,
		       int detail_nodes, wasp_error *err)
{
	if (!s || !p) {
		werr(err, WASP_EINVAL, "wasp_report_html: %s is NULL",
		     !s ? "snapshot" : "plan");
		return NULL;
	}
	return wr_html(s, p, detail_nodes, err);
}

/* One plan document from a loaded stream. */
static int plan_from_doc(const wt_doc *doc, wasp_plan **out, wasp_error *err)
{
	/* point at the second document, or at the start of an empty file */
	if (doc->nroots != 1)
		return werr_at(err, WASP_EINPUT,
			       doc->nroots ? doc->roots[1]->src
					   : (wsrc){doc->file, 1, 1},
			       "expected one plan document, found %zu",
			       doc->nroots);
	return wr_plan_from_tree(doc->roots[0], out, err);
}

int wasp_plan_from_text(wasp_plan **out, const char *text, size_t len,
			const char *name, wasp_error *err)
{
	if (!out || (!text && len))
		return werr(err, WASP_EINVAL, "wasp_plan_from_text: %s",
			    !out ? "out is NULL" : "text is NULL");
	*out = NULL;
	wa_arena *a;
	wt_doc doc;
	int rc = load_one(&a, &doc, NULL, text, len, name ? name : "<plan>",
			  err);
	if (!rc)
		rc = plan_from_doc(&doc, out, err);
	wa_destroy(a);
	return rc;
}

int wasp_plan_load(wasp_plan **out, const char *path, wasp_error *err)
{
	if (!out || !path)
		return werr(err, WASP_EINVAL, "wasp_plan_load: %s is NULL",
			    !out ? "out" : "path");
	*out = NULL;
	wa_arena *a;
	wt_doc doc;
	int rc = load_one(&a, &doc, path, NULL, 0, NULL, err);
	if (!rc)
		rc = plan_from_doc(&doc, out, err);
	wa_destroy(a);
	return rc;
}

void wasp_plan_free(wasp_plan *p)
{
	wpl_free(p);
}

void wasp_plan_stats_get(const wasp_plan *p, wasp_plan_stats *st)
{
	if (!st)
		return;
	memset(st, 0, sizeof *st);
	if (!p) {
		st->status = "empty";
		return;
	}
	st->placed_pods = p->nplace;
	st->admitted_groups = p->sum.admitted_groups;
	st->waiting_groups = p->nwait;
	st->evicted_pods = p->sum.evicted_pods;
	st->moved_pods = p->sum.moved_pods;
	st->status = p->sum.status ? p->sum.status : "empty";
}

/* -------------------------------------------------------------- verify */

int wasp_check(const wasp_snapshot *s, const wasp_plan *p,
	       size_t *nviolations, char **report, wasp_error *err)
{
	if (report)
		*report = NULL;
	if (!s || !p || !nviolations)
		return werr(err, WASP_EINVAL, "wasp_check: %s is NULL",
			    !s ? "snapshot" : !p ? "plan" : "nviolations");
	*nviolations = 0;
	wa_arena *a = wa_new();
	if (!a)
		return werr(err, WASP_ENOMEM, "out of memory");
	char *text = NULL;
	int rc = wv_check(s, p, a, nviolations, &text, err);
	if (!rc && report) {
		*report = strdup(text ? text : "");
		if (!*report)
			rc = werr(err, WASP_ENOMEM, "out of memory");
	}
	wa_destroy(a);
	return rc;
}

/* -------------------------------------------------------------- export */

int wasp_export(const wasp_snapshot *s, const wasp_options *o, int format,
		const char *path, wasp_error *err)
{
	if (!s || !path)
		return werr(err, WASP_EINVAL, "wasp_export: %s is NULL",
			    !s ? "snapshot" : "path");
	if (format < WASP_EXPORT_LP || format > WASP_EXPORT_DAT)
		return werr(err, WASP_EINVAL,
			    "wasp_export: unknown format %d", format);
	wasp_options def;
	if (!o) {
		wasp_options_init(&def);
		o = &def;
	}
	int rc = wopt_check(o, err);
	if (rc)
		return rc;
	wa_arena *a = wa_new();
	if (!a)
		return werr(err, WASP_ENOMEM, "out of memory");
	wp_problem *p = NULL;
	rc = wsv_problem(s, o, a, &p, err);
	if (!rc)
		rc = wilp_export(p, o, format, path, err);
	wa_destroy(a);
	return rc;
}

/* ----------------------------------------------------------- generator */

void wasp_gen_options_init(wasp_gen_options *g)
{
	if (g)
		wgen_options_default(g);
}

char *wasp_gen(const wasp_gen_options *g, wasp_error *err)
{
	if (!g) {
		werr(err, WASP_EINVAL, "wasp_gen: options are NULL");
		return NULL;
	}
	return wgen_generate(g, err);
}
