/*
 * render_more.c -- sections of the text report that render.c does not
 * hold (it is near the size limit): what the evictions buy.  Each
 * section is written on its own memory stream and appended by
 * render.c's render_text.  doc/output.md, "Text report".
 */
#include "plan/render.h"
#include "plan/sbuf.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"

/* ------------------------------------------------------------ JSON */

static int add(cJSON *obj, const char *key, cJSON *v)
{
	if (!v)
		return -1;
	cJSON_AddItemToObject(obj, key, v);
	return 0;
}

/* {"namespace": ns, key: name}, with more fields added by the caller. */
static cJSON *row(cJSON *arr)
{
	cJSON *e = cJSON_CreateObject();
	if (e)
		cJSON_AddItemToArray(arr, e);
	return e;
}

int wr_json_more(const wasp_plan *p, cJSON *doc)
{
	int bad = 0;
	if (p->buy) {
		cJSON *bu = cJSON_CreateArray();
		bad |= add(doc, "evictionsBuy", bu);
		for (int i = 0; !bad && i < p->nbuy; i++) {
			cJSON *e = row(bu);
			bad |= !e ||
			       add(e, "priority",
				   cJSON_CreateNumber(p->buy[i].priority)) ||
			       add(e, "admittedPods",
				   cJSON_CreateNumber(p->buy[i].with)) ||
			       add(e, "admittedPodsWithoutEvictions",
				   cJSON_CreateNumber(p->buy[i].without));
		}
	}
	if (p->versions && !bad) {
		cJSON *sn = cJSON_CreateObject(), *rv = cJSON_CreateArray();
		bad |= add(doc, "snapshot", sn);
		bad |= bad || add(sn, "resourceVersions", rv);
		for (int i = 0; !bad && i < p->nversions; i++) {
			const wpl_version *v = &p->versions[i];
			cJSON *e = row(rv);
			bad |= !e ||
			       add(e, "namespace", cJSON_CreateString(v->ns)) ||
			       add(e, "pod", cJSON_CreateString(v->pod)) ||
			       add(e, "resourceVersion",
				   v->rv ? cJSON_CreateString(v->rv)
					 : cJSON_CreateNull());
		}
	}
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------ reading */

static int bad_field(wasp_error *err, const wt_node *at, const char *what,
		     const char *want)
{
	return werr_at(err, WASP_EINPUT, at->src, "%s: expected %s", what,
		       want);
}

/* A required integer field of map m. */
static int int_field(const wt_node *m, const char *key, const char *what,
		     int *out, wasp_error *err)
{
	const wt_node *v = wt_get(m, key);
	char *end = NULL;
	if (!v)
		return werr_at(err, WASP_EINPUT, m->src, "%s: missing \"%s\"",
			       what, key);
	double d = v->type == WT_NUM ? strtod(v->str, &end) : NAN;
	if (!end || *end || d != floor(d) || d < -2147483648.0 ||
	    d > 2147483647.0)
		return bad_field(err, v, what, "an integer");
	*out = (int)d;
	return WASP_OK;
}

/* A string field (null allowed when !need). */
static int str_field(wasp_plan *pl, const wt_node *m, const char *key,
		     const char *what, bool need, const char **out,
		     wasp_error *err)
{
	const wt_node *v = wt_get(m, key);
	*out = NULL;
	if (!v || v->type == WT_NULL) {
		if (need)
			return werr_at(err, WASP_EINPUT, m->src,
				       "%s: missing \"%s\"", what, key);
		return WASP_OK;
	}
	if (v->type != WT_STR && v->type != WT_NUM)
		return bad_field(err, v, what, "a string");
	if (!(*out = wa_strdup(pl->arena, v->str)))
		return werr(err, WASP_ENOMEM, "out of memory reading a plan");
	return WASP_OK;
}

static const wt_node *seq_of(const wt_node *m, const char *key,
			     const char *what, int *rc, wasp_error *err)
{
	const wt_node *v = m && m->type == WT_MAP ? wt_get(m, key) : NULL;
	if (!v || v->type == WT_NULL)
		return NULL;
	if (v->type != WT_SEQ) {
		*rc = bad_field(err, v, what, "a list");
		return NULL;
	}
	return v;
}

int wr_read_more(const wt_node *root, wasp_plan *pl, wasp_error *err)
{
	int rc = WASP_OK;
	const wt_node *seq = seq_of(root, "evictionsBuy", "evictionsBuy", &rc,
				    err);
	const char *w = "evictionsBuy[]";
	if (seq && !(pl->buy = wa_calloc(pl->arena, seq->n + 1,
					 sizeof *pl->buy)))
		return werr(err, WASP_ENOMEM, "out of memory reading a plan");
	for (size_t i = 0; !rc && seq && i < seq->n; i++) {
		const wt_node *e = seq->items[i];
		wpl_buy *x = &pl->buy[i];
		int prio = 0;
		if (e->type != WT_MAP)
			return bad_field(err, e, w, "a map");
		if ((rc = int_field(e, "priority", w, &prio, err)) ||
		    (rc = int_field(e, "admittedPods", w, &x->with, err)) ||
		    (rc = int_field(e, "admittedPodsWithoutEvictions", w,
				    &x->without, err)))
			return rc;
		x->priority = prio;
		pl->nbuy = (int)i + 1;
	}
	const wt_node *sn = rc ? NULL : wt_get(root, "snapshot");
	if (sn && sn->type != WT_MAP && sn->type != WT_NULL)
		return bad_field(err, sn, "snapshot", "a map");
	w = "snapshot.resourceVersions[]";
	seq = rc || !sn ? NULL
			: seq_of(sn, "resourceVersions", w, &rc, err);
	if (seq && !(pl->versions = wa_calloc(pl->arena, seq->n + 1,
					      sizeof *pl->versions)))
		return werr(err, WASP_ENOMEM, "out of memory reading a plan");
	for (size_t i = 0; !rc && seq && i < seq->n; i++) {
		const wt_node *e = seq->items[i];
		wpl_version *x = &pl->versions[i];
		if (e->type != WT_MAP)
			return bad_field(err, e, w, "a map");
		if ((rc = str_field(pl, e, "namespace", w, true, &x->ns, err)) ||
		    (rc = str_field(pl, e, "pod", w, true, &x->pod, err)) ||
		    (rc = str_field(pl, e, "resourceVersion", w, false,
				    &x->rv, err)))
			return rc;
		pl->nversions = (int)i + 1;
	}
	return rc;
}

/* ------------------------------------------------------------ text */

/* "Evictions buy": pods admitted per priority with the evictions and in
 * the same run's greedy solve with preemption off (doc/preemption.md,
 * "What the evictions buy"). */
static void text_buy(sbuf *f, const wasp_plan *p)
{
	if (p->buy && p->nbuy) {
		sb_printf(f, "\nWhat the evictions buy (pending pods admitted; "
			   "without: greedy, preemption off)\n");
		sb_printf(f, "  %10s %8s %8s %8s\n", "priority", "with",
			"without", "gained");
		int tw = 0, to = 0;
		for (int i = 0; i < p->nbuy; i++) {
			const wpl_buy *x = &p->buy[i];
			sb_printf(f, "  %10d %8d %8d %+8d\n", (int)x->priority,
				x->with, x->without, x->with - x->without);
			tw += x->with;
			to += x->without;
		}
		sb_printf(f, "  %10s %8d %8d %+8d   for %d evicted pod%s\n",
			"total", tw, to, tw - to, p->nevict,
			p->nevict == 1 ? "" : "s");
	}
}

void wr_text_num(double v, char *buf, size_t size)
{
	double r = nearbyint(v);
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (fabs(v - r) <= 1e-9 * fmax(1.0, fabs(v)) && fabs(r) < 1e15)
		snprintf(buf, size, "%.0f", r == 0 ? 0.0 : r);
	else
		snprintf(buf, size, "%.6g", v);
}

/* "Lone pods": placed pods without a group, which the admitted-groups
 * table does not show (doc/output.md, "The text report"). */
static void text_lone(sbuf *f, const wasp_plan *p)
{
	int n = 0;
	for (int i = 0; i < p->nplace; i++)
		n += !p->place[i].group;
	if (n) {
		sb_printf(f, "\nLone pods placed (%d)\n", n);
		for (int i = 0; i < p->nplace; i++)
			if (!p->place[i].group)
				sb_printf(f, "  %s/%s -> %s\n",
					p->place[i].ns ? p->place[i].ns : "-",
					p->place[i].pod ? p->place[i].pod : "-",
					p->place[i].node ? p->place[i].node
							 : "-");
	}
}

/* "Free RES per domain": each topology key with several nodes per
 * domain, its domains with nodes, allocatable and free before and after
 * the plan (domains.c). */
static void text_domains(sbuf *f, const wasp_plan *p)
{
	if (p->ndomfree) {
		int w = 6;
		for (int i = 0; i < p->ndomfree; i++) {
			const wpl_domfree *x = &p->domfree[i];
			int l = (int)(strlen(x->key) +
				      (x->domain ? strlen(x->domain) : 9) + 1);
			if (l > w)
				w = l;
		}
		sb_printf(f, "\nFree %s per domain (before -> after the plan)\n",
			p->domfree_res);
		sb_printf(f, "  %-*s  %5s  %11s  %11s  %11s\n", w, "DOMAIN",
			"NODES", "ALLOCATABLE", "FREE BEFORE", "FREE AFTER");
		for (int i = 0; i < p->ndomfree; i++) {
			const wpl_domfree *x = &p->domfree[i];
			char dom[512], a[40], b[40], c[40];
			snprintf(dom, sizeof dom, "%s=%s", x->key,
				 x->domain ? x->domain : "(the rest)");
			wr_text_num(x->alloc, a, sizeof a);
			wr_text_num(x->before, b, sizeof b);
			wr_text_num(x->after, c, sizeof c);
			sb_printf(f, "  %-*s  %5d  %11s  %11s  %11s\n", w, dom,
				x->nodes, a, b, c);
		}
	}
}

void wr_text_section(sbuf *b, const wasp_plan *p, int which)
{
	static void (*const write[])(sbuf *, const wasp_plan *) = {
	    [WR_TEXT_DOMAINS] = text_domains,
	    [WR_TEXT_BUY] = text_buy,
	    [WR_TEXT_LONE] = text_lone};
	write[which](b, p);
}
