/*
 * render.c -- plans to JSON, YAML and a text report; plans back from a
 * document tree.  The format is documented in doc/output.md.
 *
 * The document is built once as a cJSON tree and then written by our own
 * emitters, one for JSON and one for YAML, so that both show the same
 * document with the same number formatting: integers exactly, other
 * numbers in the shortest form that reads back to the same double, NaN as
 * null.  (cJSON's printer uses tabs and 15 significant digits.)  JSON
 * arrays of flat objects are written one object per line, which keeps
 * large plans readable and diffable.
 *
 * Reading back is strict about types (a string where a number belongs is
 * WASP_EINPUT with the value's position) and lenient about presence:
 * unknown fields are ignored and most known ones are optional, so a plan
 * written by hand for `wasp check` needs only apiVersion, kind and its
 * placements.
 */
#include "plan/render.h"

#include <cJSON.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quantity.h"
#include "plan/sbuf.h"

/* ------------------------------------------------------- document tree */

typedef struct jb {
	bool ok;
} jb;

static void jadd(jb *j, cJSON *obj, const char *key, cJSON *v)
{
	if (!v || !obj || !cJSON_AddItemToObjectCS(obj, key, v)) {
		cJSON_Delete(v);
		j->ok = false;
	}
}

static void jpush(jb *j, cJSON *arr, cJSON *v)
{
	if (!v || !arr || !cJSON_AddItemToArray(arr, v)) {
		cJSON_Delete(v);
		j->ok = false;
	}
}

/* The plan's strings outlive the document built from them: referenced,
 * not copied (a copy and a free per string was a third of the time of
 * rendering a large plan).  jcopy for text that does not. */
static cJSON *jstr(const char *s)
{
	return s ? cJSON_CreateStringReference(s) : cJSON_CreateNull();
}

static cJSON *jcopy(const char *s)
{
	return cJSON_CreateString(s);
}

static cJSON *jnum(double v)
{
	return cJSON_CreateNumber(v);
}

/* summary: mode, status, tiers, times, model, counts, capacity. */
static void json_summary(jb *j, cJSON *doc, const wasp_plan *p)
{
	const wpl_summary *s = &p->sum;
	cJSON *sum = cJSON_CreateObject();
	jadd(j, doc, "summary", sum);
	jadd(j, sum, "mode", jstr(s->mode));
	jadd(j, sum, "modeReason", jstr(s->mode_reason));
	jadd(j, sum, "status", jstr(s->status));
	jadd(j, sum, "domainMode", jstr(s->domain_mode));
	jadd(j, sum, "value", jstr(s->value));
	jadd(j, sum, "objective", jnum(s->objective));
	jadd(j, sum, "bound", jnum(s->bound));
	jadd(j, sum, "gap", jnum(s->gap));

	cJSON *tiers = cJSON_CreateObject();
	jadd(j, sum, "tiers", tiers);
	cJSON *work = cJSON_CreateArray();
	jadd(j, tiers, "work", work);
	for (int i = 0; i < s->tiers.nprio && i < WP_MAX_TIERS; i++) {
		cJSON *w = cJSON_CreateObject();
		jadd(j, w, "priority", jnum(s->tiers.prio[i]));
		jadd(j, w, "admitted", jnum(s->tiers.work[i]));
		jpush(j, work, w);
	}
	jadd(j, tiers, "evictions", jnum(s->tiers.evictions));
	jadd(j, tiers, "moves", jnum(s->tiers.moves));
	jadd(j, tiers, "packing", jnum(s->tiers.packing));

	cJSON *t = cJSON_CreateObject();
	jadd(j, sum, "times", t);
	jadd(j, t, "load", jnum(s->t_load));
	jadd(j, t, "reduce", jnum(s->t_reduce));
	jadd(j, t, "greedy", jnum(s->t_greedy));
	jadd(j, t, "ilp", jnum(s->t_ilp));
	jadd(j, t, "total", jnum(s->t_total));

	cJSON *m = cJSON_CreateObject();
	jadd(j, sum, "model", m);
	jadd(j, m, "rows", jnum(s->rows));
	jadd(j, m, "cols", jnum(s->cols));
	jadd(j, m, "integers", jnum(s->ints));
	jadd(j, m, "nonzeros", jnum(s->nonzeros));

	cJSON *c = cJSON_CreateObject();
	jadd(j, sum, "counts", c);
	jadd(j, c, "admittedGroups", jnum(s->admitted_groups));
	jadd(j, c, "waitingGroups", jnum(s->waiting_groups));
	jadd(j, c, "placedPods", jnum(s->placed_pods));
	jadd(j, c, "evictedPods", jnum(s->evicted_pods));
	jadd(j, c, "movedPods", jnum(s->moved_pods));
	jadd(j, c, "pdbViolations", jnum(p->pdb_violations));

	cJSON *f = cJSON_CreateObject();
	jadd(j, sum, "freeNodes", f);
	jadd(j, f, "before", jnum(s->free_nodes_before));
	jadd(j, f, "after", jnum(s->free_nodes_after));
	if (p->gang_shape) {
		cJSON *lg = cJSON_CreateObject();
		jadd(j, sum, "largestGang", lg);
		jadd(j, lg, "shape", jstr(p->gang_shape));
		jadd(j, lg, "key", jstr(p->gang_key));
		jadd(j, lg, "before", jnum(p->gang_before));
		jadd(j, lg, "after", jnum(p->gang_after));
	}
	if (p->nfrag) {
		cJSON *fd = cJSON_CreateArray();
		jadd(j, sum, "freeDomains", fd);
		for (int i = 0; i < p->nfrag; i++) {
			cJSON *e = cJSON_CreateObject();
			jadd(j, e, "key", jstr(p->frag[i].key));
			jadd(j, e, "before", jnum(p->frag[i].before));
			jadd(j, e, "after", jnum(p->frag[i].after));
			jpush(j, fd, e);
		}
	}

	cJSON *u = cJSON_CreateArray();
	jadd(j, sum, "utilisation", u);
	for (int i = 0; i < s->nutil; i++) {
		cJSON *e = cJSON_CreateObject();
		jadd(j, e, "resource", jstr(s->util[i].resource));
		jadd(j, e, "allocatable", jnum(s->util[i].alloc));
		jadd(j, e, "before", jnum(s->util[i].before));
		jadd(j, e, "after", jnum(s->util[i].after));
		jpush(j, u, e);
	}
	jadd(j, sum, "stranded", jnum(s->stranded));
}

/* What the plan does: placements, evictions, moves. */
static void json_changes(jb *j, cJSON *doc, const wasp_plan *p)
{
	cJSON *pl = cJSON_CreateArray();
	jadd(j, doc, "placements", pl);
	for (int i = 0; i < p->nplace && j->ok; i++) {
		const wpl_place *x = &p->place[i];
		cJSON *e = cJSON_CreateObject();
		jadd(j, e, "namespace", jstr(x->ns));
		jadd(j, e, "pod", jstr(x->pod));
		jadd(j, e, "node", jstr(x->node));
		jadd(j, e, "group", jstr(x->group));
		jpush(j, pl, e);
	}
	cJSON *ev = cJSON_CreateArray();
	jadd(j, doc, "evictions", ev);
	for (int i = 0; i < p->nevict && j->ok; i++) {
		const wpl_evict *x = &p->evict[i];
		cJSON *e = cJSON_CreateObject();
		jadd(j, e, "namespace", jstr(x->ns));
		jadd(j, e, "pod", jstr(x->pod));
		jadd(j, e, "node", jstr(x->node));
		jadd(j, e, "unit", jstr(x->unit));
		jadd(j, e, "priority", jnum(x->priority));
		cJSON *by = cJSON_CreateObject();
		jadd(j, e, "preemptedBy", by);
		jadd(j, by, "kind", jstr(x->by_kind));
		jadd(j, by, "namespace", jstr(x->by_ns));
		jadd(j, by, "name", jstr(x->by));
		jadd(j, by, "priority", jnum(x->by_priority));
		char why[2 * WASP_MAX_NAME + 64];
		snprintf(why, sizeof why, "preempted by %s/%s (priority %d)",
			 x->by_ns ? x->by_ns : "", x->by ? x->by : "",
			 (int)x->by_priority);
		jadd(j, e, "reason", jcopy(why));
		if (x->pdb_violation)
			jadd(j, e, "pdbViolation", cJSON_CreateTrue());
		jpush(j, ev, e);
	}
	cJSON *mv = cJSON_CreateArray();
	jadd(j, doc, "moves", mv);
	for (int i = 0; i < p->nmove && j->ok; i++) {
		const wpl_move *x = &p->move[i];
		cJSON *e = cJSON_CreateObject();
		jadd(j, e, "namespace", jstr(x->ns));
		jadd(j, e, "pod", jstr(x->pod));
		jadd(j, e, "from", jstr(x->from));
		jadd(j, e, "to", jstr(x->to));
		jadd(j, e, "group", jstr(x->group));
		jpush(j, mv, e);
	}
}

/* Per group and claim: admitted, claims, waiting, and the warnings. */
static void json_groups(jb *j, cJSON *doc, const wasp_plan *p)
{
	cJSON *ad = cJSON_CreateArray();
	jadd(j, doc, "admitted", ad);
	for (int i = 0; i < p->nadmit && j->ok; i++) {
		const wpl_admit *x = &p->admit[i];
		cJSON *e = cJSON_CreateObject();
		jadd(j, e, "namespace", jstr(x->ns));
		jadd(j, e, "name", jstr(x->group));
		jadd(j, e, "pods", jnum(x->pods));
		jadd(j, e, "pending", jnum(x->pending));
		jadd(j, e, "running", jnum(x->running));
		jadd(j, e, "priority", jnum(x->priority));
		jadd(j, e, "topologyKey", jstr(x->key));
		jadd(j, e, "domain", jstr(x->domain));
		jpush(j, ad, e);
	}

	/* DRA claims, in the shape of status.allocation.devices.results;
	 * only when there are any, so plans without DRA look as before. */
	if (p->nclaims) {
		cJSON *cl = cJSON_CreateArray();
		jadd(j, doc, "claims", cl);
		for (int i = 0; i < p->nclaims && j->ok; i++) {
			const wpl_claim *x = &p->claims[i];
			cJSON *e = cJSON_CreateObject();
			jadd(j, e, "namespace", jstr(x->ns));
			jadd(j, e, "name", jstr(x->name));
			if (x->pod)
				jadd(j, e, "pod", jstr(x->pod));
			if (x->entry)
				jadd(j, e, "podClaimName", jstr(x->entry));
			if (x->group)
				jadd(j, e, "podGroup", jstr(x->group));
			jadd(j, e, "node", jstr(x->node));
			cJSON *rs = cJSON_CreateArray();
			jadd(j, e, "results", rs);
			for (int k = 0; k < x->nresults && j->ok; k++) {
				const wpl_result *r = &x->results[k];
				cJSON *o = cJSON_CreateObject();
				jadd(j, o, "request", jstr(r->request));
				jadd(j, o, "driver", jstr(r->driver));
				jadd(j, o, "pool", jstr(r->pool));
				jadd(j, o, "device", jstr(r->device));
				if (r->admin)
					jadd(j, o, "adminAccess",
					     cJSON_CreateTrue());
				jpush(j, rs, o);
			}
			jpush(j, cl, e);
		}
	}

	cJSON *wt = cJSON_CreateArray();
	jadd(j, doc, "waiting", wt);
	for (int i = 0; i < p->nwait && j->ok; i++) {
		const wpl_wait *x = &p->wait[i];
		cJSON *e = cJSON_CreateObject();
		jadd(j, e, "namespace", jstr(x->ns));
		jadd(j, e, "name", jstr(x->group));
		jadd(j, e, "kind", jstr(x->kind));
		jadd(j, e, "pods", jnum(x->pods));
		jadd(j, e, "priority", jnum(x->priority));
		jadd(j, e, "reason", jstr(x->reason));
		jpush(j, wt, e);
	}

	cJSON *wn = cJSON_CreateArray();
	jadd(j, doc, "warnings", wn);
	for (int i = 0; i < p->nwarnings && j->ok; i++)
		jpush(j, wn, jstr(p->warnings[i]));
}

static cJSON *build_doc(const wasp_plan *p)
{
	jb j = {true};
	cJSON *doc = cJSON_CreateObject();
	jadd(&j, doc, "apiVersion", jstr(WASP_PLAN_API_VERSION));
	jadd(&j, doc, "kind", jstr("Plan"));
	json_summary(&j, doc, p);
	json_changes(&j, doc, p);
	json_groups(&j, doc, p);
	if (j.ok && wr_json_more(p, doc)) /* render_more.c */
		j.ok = false;
	if (!j.ok) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* ---------------------------------------------------------------- JSON */

/* A double-quoted string.  JSON and YAML share the escapes of quote,
 * backslash, newline, return and tab; JSON also names \b and \f, and the
 * other control characters are \u00XX in JSON, \xXX in YAML. */
static void quoted_string(sbuf *b, const char *s, bool json)
{
	sb_put(b, "\"", 1);
	const char *run = s;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch >= 0x20 && ch != '"' && ch != '\\' && ch != 0x7f)
			continue; /* the common case: as it is */
		const char *esc = NULL;
		char tmp[8];
		switch (ch) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = json ? "\\b" : NULL; break;
		case '\f': esc = json ? "\\f" : NULL; break;
		}
		if (!esc && (ch < 0x20 || ch == 0x7f)) {
			if (json)
				snprintf(tmp, sizeof tmp, "\\u%04x", ch);
			else
				snprintf(tmp, sizeof tmp, "\\x%02x", ch);
			esc = tmp;
		}
		if (esc) {
			sb_put(b, run, s - run);
			sb_puts(b, esc);
			run = s + 1;
		}
	}
	sb_put(b, run, s - run);
	sb_put(b, "\"", 1);
}

static void json_string(sbuf *b, const char *s)
{
	quoted_string(b, s, true);
}

static void json_scalar(sbuf *b, const cJSON *v)
{
	char num[40];
	if (cJSON_IsString(v)) {
		json_string(b, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsNumber(v)) {
		fmt_num(v->valuedouble, num, sizeof num);
		sb_puts(b, num);
	} else if (cJSON_IsTrue(v)) {
		sb_puts(b, "true");
	} else if (cJSON_IsFalse(v)) {
		sb_puts(b, "false");
	} else {
		sb_puts(b, "null");
	}
}

static bool is_container(const cJSON *v)
{
	return cJSON_IsArray(v) || cJSON_IsObject(v);
}

/* An object whose members are all scalars. */
static bool is_flat(const cJSON *v)
{
	if (!cJSON_IsObject(v))
		return false;
	for (const cJSON *c = v->child; c; c = c->next)
		if (is_container(c))
			return false;
	return true;
}

static void json_value(sbuf *b, const cJSON *v, int ind, bool oneline)
{
	if (!is_container(v)) {
		json_scalar(b, v);
		return;
	}
	bool obj = cJSON_IsObject(v);
	if (!v->child) {
		sb_puts(b, obj ? "{}" : "[]");
		return;
	}
	sb_puts(b, obj ? "{" : "[");
	for (const cJSON *c = v->child; c; c = c->next) {
		if (c != v->child)
			sb_puts(b, oneline ? ", " : ",");
		if (!oneline) {
			sb_puts(b, "\n");
			sb_pad(b, ind + 2);
		}
		if (obj) {
			json_string(b, c->string ? c->string : "");
			sb_puts(b, ": ");
		}
		/* Rows of an array (placements, waiting, ...) on one line. */
		json_value(b, c, ind + 2, oneline || (!obj && is_flat(c)));
	}
	if (!oneline) {
		sb_puts(b, "\n");
		sb_pad(b, ind);
	}
	sb_puts(b, obj ? "}" : "]");
}

/* ---------------------------------------------------------------- YAML */

static void yaml_string(sbuf *b, const char *s)
{
	quoted_string(b, s, false);
}

static void yaml_key(sbuf *b, const char *k)
{
	bool plain = isalpha((unsigned char)k[0]);
	for (const char *c = k; *c && plain; c++)
		plain = isalnum((unsigned char)*c) || *c == '_';
	if (plain)
		sb_puts(b, k);
	else
		yaml_string(b, k);
	sb_puts(b, ":");
}

static void yaml_scalar(sbuf *b, const cJSON *v)
{
	if (cJSON_IsString(v))
		yaml_string(b, v->valuestring ? v->valuestring : "");
	else
		json_scalar(b, v); /* numbers, true, false, null: same text */
}

static void yaml_node(sbuf *b, const cJSON *v, int ind, bool inl);

/* A mapping's pairs at column `ind`; the first pair starts on the current
 * line when `inl` (after "- "). */
static void yaml_map(sbuf *b, const cJSON *v, int ind, bool inl)
{
	for (const cJSON *c = v->child; c; c = c->next) {
		if (!(inl && c == v->child))
			sb_pad(b, ind);
		yaml_key(b, c->string ? c->string : "");
		if (is_container(c) && c->child) {
			sb_puts(b, "\n");
			/* Sequences at the key's column, kubectl style. */
			yaml_node(b, c, cJSON_IsArray(c) ? ind : ind + 2,
				  false);
		} else {
			sb_puts(b, " ");
			yaml_node(b, c, ind + 2, true);
		}
	}
}

static void yaml_seq(sbuf *b, const cJSON *v, int ind, bool inl)
{
	for (const cJSON *c = v->child; c; c = c->next) {
		if (!(inl && c == v->child))
			sb_pad(b, ind);
		sb_puts(b, "- ");
		yaml_node(b, c, ind + 2, true);
	}
}

static void yaml_node(sbuf *b, const cJSON *v, int ind, bool inl)
{
	if (cJSON_IsObject(v) && v->child) {
		yaml_map(b, v, ind, inl);
	} else if (cJSON_IsArray(v) && v->child) {
		yaml_seq(b, v, ind, inl);
	} else {
		if (cJSON_IsObject(v))
			sb_puts(b, "{}");
		else if (cJSON_IsArray(v))
			sb_puts(b, "[]");
		else
			yaml_scalar(b, v);
		sb_puts(b, "\n");
	}
}

/* ---------------------------------------------------------------- text */

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void text_qty(sbuf *b, const char *res, double units, int width)
{
	char buf[64];
	fmt_units(res, units, buf, sizeof buf);
	sb_printf(b, "%*s", width, buf);
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Placements sorted by namespace, group, node (pointers, so the
 * comparator needs no context). */
static int cmp_place_group(const void *va, const void *vb)
{
	const wpl_place *a = *(const wpl_place *const *)va;
	const wpl_place *b = *(const wpl_place *const *)vb;
	int c = cmp_str(a->ns, b->ns);
	if (!c)
		c = cmp_str(a->group, b->group);
	if (!c)
		c = cmp_str(a->node, b->node);
	return c;
}

static void text_nodes(sbuf *b, const wpl_place *const *idx, int n,
		       const wpl_admit *ad)
{
	/* lower bound of (ns, group) */
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const wpl_place *x = idx[mid];
		int c = cmp_str(x->ns, ad->ns);
		if (!c)
			c = cmp_str(x->group, ad->group);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	int shown = 0, distinct = 0;
	for (int i = lo; i < n;) {
		const wpl_place *x = idx[i];
		if (cmp_str(x->ns, ad->ns) || cmp_str(x->group, ad->group))
			break;
		int j = i;
		while (j < n && !cmp_str(idx[j]->node, x->node) &&
		       !cmp_str(idx[j]->group, x->group) &&
		       !cmp_str(idx[j]->ns, x->ns))
			j++;
		distinct++;
		if (shown < 6) {
			sb_printf(b, "%s%s x%d", shown ? ", " : "", x->node,
				  j - i);
			shown++;
		}
		i = j;
	}
	if (distinct > shown)
		sb_printf(b, ", ... (%d nodes)", distinct);
	if (!distinct)
		sb_puts(b, "-");
}

/* The header: mode, status, objective, counts, times, model. */
static void text_head(sbuf *b, const wasp_plan *p)
{
	const wpl_summary *s = &p->sum;
	char n1[40], n2[40];

	sb_printf(b, "wasp plan (%s): %d pods placed; %d groups admitted, "
		      "%d waiting\n",
		  WASP_PLAN_API_VERSION, s->placed_pods, s->admitted_groups,
		  s->waiting_groups);
	/* the ILP ran but kept greedy's plan: the plan is greedy's */
	bool kept = s->mode && s->status && !strcmp(s->mode, "ilp") &&
		    !strcmp(s->status, "greedy");
	sb_printf(b, "  mode        %s", kept ? "greedy (the ILP ran and "
					      "kept greedy's plan)"
					    : or_dash(s->mode));
	if (s->mode_reason)
		sb_printf(b, " (%s)", s->mode_reason);
	sb_puts(b, "\n");
	sb_printf(b, "  status      %s", or_dash(s->status));
	if (isfinite(s->objective) || isfinite(s->bound)) {
		wr_text_num(s->objective, n1, sizeof n1);
		wr_text_num(s->bound, n2, sizeof n2);
		sb_printf(b, "; objective %s, bound %s", n1, n2);
		if (isfinite(s->gap))
			sb_printf(b, ", gap %.3g%%", 100 * s->gap);
	}
	sb_puts(b, "\n");
	sb_printf(b, "  domains     %s; work counted in %s\n",
		  or_dash(s->domain_mode), or_dash(s->value));
	sb_puts(b, "  work       ");
	if (!s->tiers.nprio)
		sb_puts(b, " nothing pending");
	for (int i = 0; i < s->tiers.nprio && i < WP_MAX_TIERS; i++) {
		wr_text_num(s->tiers.work[i], n1, sizeof n1);
		sb_printf(b, "%s priority %d: %s", i ? "," : "",
			  (int)s->tiers.prio[i], n1);
	}
	sb_puts(b, "\n");
	sb_printf(b, "  pods        %d placed, %d evicted, %d moved\n",
		  s->placed_pods, s->evicted_pods, s->moved_pods);
	sb_printf(b, "  free nodes  %d before the plan, %d after\n",
		  s->free_nodes_before, s->free_nodes_after);
	/* free domains compare the placed plan with and without its moves,
	 * the largest gang the snapshot with the whole plan: say which */
	for (int i = 0; i < p->nfrag; i++)
		sb_printf(b, "  free %s domains  %d before the moves, %d "
			      "after\n",
			  or_dash(p->frag[i].key), p->frag[i].before,
			  p->frag[i].after);
	if (p->gang_shape)
		sb_printf(b, "  largest gang of %s in one %s  %d before the "
			      "plan, %d after\n", p->gang_shape,
			  p->gang_key ? p->gang_key : "cluster",
			  p->gang_before, p->gang_after);
	sb_printf(b, "  times       load %.3f s, reduce %.3f s, greedy %.3f "
		      "s, ilp %.3f s, total %.3f s\n",
		  s->t_load, s->t_reduce, s->t_greedy, s->t_ilp, s->t_total);
	if (s->cols)
		sb_printf(b, "  model       %d rows, %d columns (%d integer), "
			      "%d nonzeros\n",
			  s->rows, s->cols, s->ints, s->nonzeros);
}

/* Utilisation per resource, before and after. */
static void text_util(sbuf *b, const wasp_plan *p)
{
	const wpl_summary *s = &p->sum;
	if (s->nutil) {
		int w = 8;
		for (int i = 0; i < s->nutil; i++) {
			int l = (int)strlen(or_dash(s->util[i].resource));
			if (l > w)
				w = l;
		}
		sb_puts(b, "\nUtilisation (schedulable nodes)\n");
		sb_printf(b, "  %-*s  %12s  %20s  %20s\n", w, "RESOURCE",
			  "ALLOCATABLE", "BEFORE", "AFTER");
		for (int i = 0; i < s->nutil; i++) {
			const wpl_util *u = &s->util[i];
			sb_printf(b, "  %-*s  ", w, or_dash(u->resource));
			text_qty(b, u->resource, u->alloc, 12);
			double v[2] = {u->before, u->after};
			for (int k = 0; k < 2; k++) {
				sb_puts(b, "  ");
				text_qty(b, u->resource, v[k], 12);
				if (u->alloc > 0)
					sb_printf(b, " (%5.1f%%)",
						  100 * v[k] / u->alloc);
				else
					sb_puts(b, "         ");
			}
			sb_puts(b, "\n");
		}
	}
}

/* Admitted groups, with their domains and nodes. */
static int text_admitted(sbuf *b, const wasp_plan *p, wasp_error *err)
{
	if (p->nadmit) {
		const wpl_place **idx =
		    malloc(sizeof *idx * (p->nplace ? p->nplace : 1));
		if (!idx) {
			werr(err, WASP_ENOMEM, "out of memory");
			return -1;
		}
		int n = 0;
		for (int i = 0; i < p->nplace; i++)
			if (p->place[i].group)
				idx[n++] = &p->place[i];
		qsort(idx, n, sizeof *idx, cmp_place_group);

		int w = 5, wd = 6;
		for (int i = 0; i < p->nadmit; i++) {
			const wpl_admit *a = &p->admit[i];
			int l = (int)(strlen(or_dash(a->ns)) +
				      strlen(or_dash(a->group)) + 1);
			if (l > w)
				w = l;
			l = a->key ? (int)(strlen(a->key) +
					   strlen(or_dash(a->domain)) + 1)
				   : 1;
			if (l > wd)
				wd = l;
		}
		sb_puts(b, "\nAdmitted groups\n");
		sb_printf(b, "  %-*s  %12s  %7s  %8s  %-*s  %s\n", w, "GROUP",
			  "PODS/PENDING", "RUNNING", "PRIORITY", wd, "DOMAIN",
			  "NODES (pods)");
		for (int i = 0; i < p->nadmit; i++) {
			const wpl_admit *a = &p->admit[i];
			sb_printf(b, "  %s/%s", or_dash(a->ns),
				  or_dash(a->group));
			sb_pad(b, w - (int)(strlen(or_dash(a->ns)) +
					     strlen(or_dash(a->group)) + 1));
			char pp[32];
			snprintf(pp, sizeof pp, "%d/%d", a->pods, a->pending);
			sb_printf(b, "  %12s  %7d  %8d  ", pp, a->running,
				  (int)a->priority);
			int l = 1;
			if (a->key) {
				sb_printf(b, "%s=%s", a->key,
					  or_dash(a->domain));
				l = (int)(strlen(a->key) +
					  strlen(or_dash(a->domain)) + 1);
			} else {
				sb_puts(b, "-");
			}
			sb_pad(b, wd - l);
			sb_puts(b, "  ");
			text_nodes(b, idx, n, a);
			sb_puts(b, "\n");
		}
		free(idx);
	}
	return 0;
}

/* Device claims and the devices they got. */
static void text_claims(sbuf *b, const wasp_plan *p)
{
	if (p->nclaims) {
		sb_puts(b, "\nDevice claims\n");
		sb_puts(b, "  CLAIM  NODE  RESULTS (request: driver/pool/device)\n");
		for (int i = 0; i < p->nclaims; i++) {
			const wpl_claim *x = &p->claims[i];
			sb_printf(b, "  %s/%s  %s ", or_dash(x->ns),
				  or_dash(x->name), or_dash(x->node));
			for (int k = 0; k < x->nresults; k++)
				sb_printf(b, " %s: %s/%s/%s",
					  or_dash(x->results[k].request),
					  or_dash(x->results[k].driver),
					  or_dash(x->results[k].pool),
					  or_dash(x->results[k].device));
			for (int k = 0; k < x->nresults; k++)
				if (x->results[k].admin) {
					sb_puts(b, "  (adminAccess)");
					break;
				}
			sb_puts(b, "\n");
		}
	}
}

/* Waiting groups and why. */
static void text_waiting(sbuf *b, const wasp_plan *p)
{
	if (p->nwait) {
		int w = 5;
		for (int i = 0; i < p->nwait; i++) {
			int l = (int)(strlen(or_dash(p->wait[i].ns)) +
				      strlen(or_dash(p->wait[i].group)) + 1);
			if (l > w)
				w = l;
		}
		sb_puts(b, "\nWaiting\n");
		sb_printf(b, "  %-*s  %-8s  %5s  %8s  %s\n", w, "GROUP",
			  "KIND", "PODS", "PRIORITY", "REASON");
		for (int i = 0; i < p->nwait; i++) {
			const wpl_wait *x = &p->wait[i];
			sb_printf(b, "  %s/%s", or_dash(x->ns),
				  or_dash(x->group));
			sb_pad(b, w - (int)(strlen(or_dash(x->ns)) +
					     strlen(or_dash(x->group)) + 1));
			sb_printf(b, "  %-8s  %5d  %8d  %s\n",
				  or_dash(x->kind), x->pods, (int)x->priority,
				  or_dash(x->reason));
		}
	}
}

/* Evictions and what they were for. */
static void text_evictions(sbuf *b, const wasp_plan *p)
{
	if (p->nevict) {
		sb_printf(b, "\nEvictions (%d pod%s", p->nevict,
			  p->nevict == 1 ? "" : "s");
		if (p->pdb_violations)
			sb_printf(b, "; %d PodDisruptionBudget violation%s",
				  p->pdb_violations,
				  p->pdb_violations == 1 ? "" : "s");
		sb_puts(b, ")\n");
		for (int i = 0; i < p->nevict; i++) {
			const wpl_evict *x = &p->evict[i];
			sb_printf(b, "  %s/%s on %s (priority %d%s%s): "
				      "preempted by %s/%s (priority %d)%s\n",
				  or_dash(x->ns), or_dash(x->pod),
				  or_dash(x->node), (int)x->priority,
				  x->unit ? ", whole group " : "",
				  x->unit ? x->unit : "", or_dash(x->by_ns),
				  or_dash(x->by), (int)x->by_priority,
				  x->pdb_violation ? "; violates a "
						     "PodDisruptionBudget"
						   : "");
		}
	}
}

/* Moves. */
static void text_moves(sbuf *b, const wasp_plan *p)
{
	if (p->nmove) {
		sb_printf(b, "\nMoves (%d pod%s)\n", p->nmove,
			  p->nmove == 1 ? "" : "s");
		for (int i = 0; i < p->nmove; i++) {
			const wpl_move *x = &p->move[i];
			sb_printf(b, "  %s/%s: %s -> %s\n", or_dash(x->ns),
				  or_dash(x->pod), or_dash(x->from),
				  or_dash(x->to));
		}
	}
}

/* Warnings. */
static void text_warnings(sbuf *b, const wasp_plan *p)
{
	if (p->nwarnings) {
		sb_puts(b, "\nWarnings\n");
		for (int i = 0; i < p->nwarnings; i++)
			sb_printf(b, "  - %s\n", p->warnings[i]);
	}
}

static char *render_text(const wasp_plan *p, wasp_error *err)
{
	sbuf b = {0};
	text_head(&b, p);
	text_util(&b, p);
	wr_text_section(&b, p, WR_TEXT_DOMAINS);
	if (text_admitted(&b, p, err)) {
		free(b.p);
		return NULL;
	}
	text_claims(&b, p);
	text_waiting(&b, p);
	text_evictions(&b, p);
	wr_text_section(&b, p, WR_TEXT_BUY);
	wr_text_section(&b, p, WR_TEXT_LONE);
	text_moves(&b, p);
	text_warnings(&b, p);
	return sb_finish(&b, err);
}

char *wr_render(const wasp_plan *p, int format, wasp_error *err)
{
	if (format == WASP_FORMAT_TEXT)
		return render_text(p, err);
	if (format != WASP_FORMAT_JSON && format != WASP_FORMAT_YAML) {
		werr(err, WASP_EINVAL, "unknown plan format %d", format);
		return NULL;
	}
	cJSON *doc = build_doc(p);
	if (!doc) {
		werr(err, WASP_ENOMEM, "out of memory rendering the plan");
		return NULL;
	}
	sbuf b = {0};
	if (format == WASP_FORMAT_JSON) {
		json_value(&b, doc, 0, false);
		sb_puts(&b, "\n");
	} else {
		yaml_node(&b, doc, 0, false);
	}
	cJSON_Delete(doc);
	return sb_finish(&b, err);
}

/* ------------------------------------------------------- reading back */

typedef struct rd {
	wasp_plan *pl;
	wasp_error *err;
	int rc;
} rd;

static bool bad(rd *r, const wt_node *v, const char *what, const char *want)
{
	if (!r->rc)
		r->rc = werr_at(r->err, WASP_EINPUT, v->src,
				"%s: expected %s, found %s", what, want,
				wt_type_phrase(v->type));
	return false;
}

static bool nomem(rd *r)
{
	if (!r->rc)
		r->rc = werr(r->err, WASP_ENOMEM,
			     "out of memory reading a plan");
	return false;
}

/* A string field: strings, and numbers by their text (a YAML pod named
 * 2024 is still a name); null allowed when `nullable`. */
static bool get_str(rd *r, const wt_node *map, const char *key,
		    const char *what, const char **out, bool nullable,
		    bool required)
{
	const wt_node *v = wt_get(map, key);
	if (!v) {
		if (required && !r->rc)
			r->rc = werr_at(r->err, WASP_EINPUT, map->src,
					"%s: missing \"%s\"", what, key);
		return !required;
	}
	if (v->type == WT_NULL && nullable) {
		*out = NULL;
		return true;
	}
	if (v->type != WT_STR && v->type != WT_NUM) {
		char w[160];
		snprintf(w, sizeof w, "%s.%s", what, key);
		return bad(r, v, w, nullable ? "a string or null" : "a string");
	}
	*out = wa_strndup(r->pl->arena, v->str, v->len);
	return *out ? true : nomem(r);
}

static bool get_num(rd *r, const wt_node *map, const char *key,
		    const char *what, double *out, bool nullable)
{
	const wt_node *v = wt_get(map, key);
	if (!v)
		return true;
	if (v->type == WT_NULL && nullable) {
		*out = NAN;
		return true;
	}
	char w[160];
	snprintf(w, sizeof w, "%s.%s", what, key);
	if (v->type != WT_NUM)
		return bad(r, v, w, nullable ? "a number or null" : "a number");
	char *end;
	double d = strtod(v->str, &end);
	if (end == v->str || *end) {
		if (!r->rc)
			r->rc = werr_at(r->err, WASP_EINPUT, v->src,
					"%s: \"%s\" is not a number", w,
					v->str);
		return false;
	}
	*out = d;
	return true;
}

static bool get_int(rd *r, const wt_node *map, const char *key,
		    const char *what, int *out)
{
	double d = 0;
	bool had = wt_get(map, key) != NULL;
	if (!get_num(r, map, key, what, &d, false))
		return false;
	if (!had)
		return true;
	if (d != floor(d) || d < INT_MIN || d > INT_MAX) {
		if (!r->rc)
			r->rc = werr_at(r->err, WASP_EINPUT,
					wt_get(map, key)->src,
					"%s.%s: expected an integer", what,
					key);
		return false;
	}
	*out = (int)d;
	return true;
}

static const wt_node *get_kind(rd *r, const wt_node *map, const char *key,
			       const char *what, wt_type t)
{
	const wt_node *v = wt_get(map, key);
	if (!v || (v->type == WT_NULL))
		return NULL;
	if (v->type != t) {
		char w[160];
		snprintf(w, sizeof w, "%s%s%s", what, *what ? "." : "", key);
		bad(r, v, w, t == WT_MAP ? "a map" : "a list");
		return NULL;
	}
	return v;
}

static void read_summary(rd *r, const wt_node *m)
{
	wpl_summary *s = &r->pl->sum;
	const char *w = "summary";
	get_str(r, m, "mode", w, &s->mode, false, false);
	get_str(r, m, "modeReason", w, &s->mode_reason, true, false);
	get_str(r, m, "status", w, &s->status, false, false);
	get_str(r, m, "domainMode", w, &s->domain_mode, false, false);
	get_str(r, m, "value", w, &s->value, false, false);
	get_num(r, m, "objective", w, &s->objective, true);
	get_num(r, m, "bound", w, &s->bound, true);
	get_num(r, m, "gap", w, &s->gap, true);
	if (r->rc)
		return;
	if (s->domain_mode && strcmp(s->domain_mode, "value") &&
	    strcmp(s->domain_mode, "path")) {
		r->rc = werr_at(r->err, WASP_EINPUT,
				wt_get(m, "domainMode")->src,
				"summary.domainMode: \"%s\" is neither "
				"\"value\" nor \"path\"",
				s->domain_mode);
		return;
	}

	const wt_node *t = get_kind(r, m, "tiers", w, WT_MAP);
	if (t) {
		const wt_node *wk = get_kind(r, t, "work", "summary.tiers",
					     WT_SEQ);
		if (wk && wk->n > WP_MAX_TIERS) {
			r->rc = werr_at(r->err, WASP_EINPUT, wk->src,
					"summary.tiers.work: more than %d "
					"priority levels",
					WP_MAX_TIERS);
			return;
		}
		for (size_t i = 0; wk && i < wk->n && !r->rc; i++) {
			const wt_node *e = wk->items[i];
			if (e->type != WT_MAP) {
				bad(r, e, "summary.tiers.work[]", "a map");
				return;
			}
			int prio = 0;
			get_int(r, e, "priority", "summary.tiers.work[]",
				&prio);
			s->tiers.prio[i] = prio;
			get_num(r, e, "admitted", "summary.tiers.work[]",
				&s->tiers.work[i], false);
			s->tiers.nprio = (int)i + 1;
		}
		get_num(r, t, "evictions", "summary.tiers",
			&s->tiers.evictions, false);
		get_num(r, t, "moves", "summary.tiers", &s->tiers.moves, false);
		get_num(r, t, "packing", "summary.tiers", &s->tiers.packing,
			false);
	}
	const wt_node *tm = get_kind(r, m, "times", w, WT_MAP);
	if (tm) {
		get_num(r, tm, "load", "summary.times", &s->t_load, false);
		get_num(r, tm, "reduce", "summary.times", &s->t_reduce, false);
		get_num(r, tm, "greedy", "summary.times", &s->t_greedy, false);
		get_num(r, tm, "ilp", "summary.times", &s->t_ilp, false);
		get_num(r, tm, "total", "summary.times", &s->t_total, false);
	}
	const wt_node *md = get_kind(r, m, "model", w, WT_MAP);
	if (md) {
		get_int(r, md, "rows", "summary.model", &s->rows);
		get_int(r, md, "cols", "summary.model", &s->cols);
		get_int(r, md, "integers", "summary.model", &s->ints);
		get_int(r, md, "nonzeros", "summary.model", &s->nonzeros);
	}
	const wt_node *c = get_kind(r, m, "counts", w, WT_MAP);
	if (c) {
		const char *cw = "summary.counts";
		get_int(r, c, "admittedGroups", cw, &s->admitted_groups);
		get_int(r, c, "waitingGroups", cw, &s->waiting_groups);
		get_int(r, c, "placedPods", cw, &s->placed_pods);
		get_int(r, c, "evictedPods", cw, &s->evicted_pods);
		get_int(r, c, "movedPods", cw, &s->moved_pods);
		get_int(r, c, "pdbViolations", cw, &r->pl->pdb_violations);
	}
	const wt_node *f = get_kind(r, m, "freeNodes", w, WT_MAP);
	if (f) {
		get_int(r, f, "before", "summary.freeNodes",
			&s->free_nodes_before);
		get_int(r, f, "after", "summary.freeNodes",
			&s->free_nodes_after);
	}
	const wt_node *u = get_kind(r, m, "utilisation", w, WT_SEQ);
	if (u && u->n) {
		s->util = wa_calloc(r->pl->arena, u->n, sizeof *s->util);
		if (!s->util) {
			nomem(r);
			return;
		}
		for (size_t i = 0; i < u->n && !r->rc; i++) {
			const wt_node *e = u->items[i];
			const char *uw = "summary.utilisation[]";
			if (e->type != WT_MAP) {
				bad(r, e, uw, "a map");
				return;
			}
			wpl_util *x = &s->util[i];
			get_str(r, e, "resource", uw, &x->resource, false,
				true);
			get_num(r, e, "allocatable", uw, &x->alloc, false);
			get_num(r, e, "before", uw, &x->before, false);
			get_num(r, e, "after", uw, &x->after, false);
			s->nutil = (int)i + 1;
		}
	}
	get_num(r, m, "stranded", w, &s->stranded, false);
}

/* The rows of a plan list: seq->n zeroed entries of `size` bytes from the
 * plan's arena; NULL when seq is empty or memory runs out (r->rc set). */
static void *new_rows(rd *r, const wt_node *seq, size_t size)
{
	if (!seq->n)
		return NULL;
	void *a = wa_calloc(r->pl->arena, seq->n, size);
	if (!a)
		nomem(r);
	return a;
}

/* Item i of seq, which must be a map (`w` names it in the error); NULL
 * with r->rc set when it is not. */
static const wt_node *row_map(rd *r, const wt_node *seq, size_t i,
			      const char *w)
{
	const wt_node *e = seq->items[i];
	if (e->type == WT_MAP)
		return e;
	bad(r, e, w, "a map");
	return NULL;
}

static void read_place(rd *r, const wt_node *seq)
{
	wasp_plan *pl = r->pl;
	const char *w = "placements[]";
	pl->place = new_rows(r, seq, sizeof *pl->place);
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = row_map(r, seq, i, w);
		if (!e)
			return;
		wpl_place *x = &pl->place[i];
		get_str(r, e, "namespace", w, &x->ns, false, true);
		get_str(r, e, "pod", w, &x->pod, false, true);
		get_str(r, e, "node", w, &x->node, false, true);
		get_str(r, e, "group", w, &x->group, true, false);
		pl->nplace = (int)i + 1;
	}
}

static void read_admit(rd *r, const wt_node *seq)
{
	wasp_plan *pl = r->pl;
	const char *w = "admitted[]";
	pl->admit = new_rows(r, seq, sizeof *pl->admit);
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = row_map(r, seq, i, w);
		if (!e)
			return;
		wpl_admit *x = &pl->admit[i];
		int prio = 0;
		get_str(r, e, "namespace", w, &x->ns, false, true);
		get_str(r, e, "name", w, &x->group, false, true);
		get_int(r, e, "pods", w, &x->pods);
		get_int(r, e, "pending", w, &x->pending);
		get_int(r, e, "running", w, &x->running);
		get_int(r, e, "priority", w, &prio);
		x->priority = prio;
		get_str(r, e, "topologyKey", w, &x->key, true, false);
		get_str(r, e, "domain", w, &x->domain, true, false);
		pl->nadmit = (int)i + 1;
	}
}

static void read_claims(rd *r, const wt_node *seq)
{
	wasp_plan *pl = r->pl;
	const char *w = "claims[]";
	pl->claims = new_rows(r, seq, sizeof *pl->claims);
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = row_map(r, seq, i, w);
		if (!e)
			return;
		wpl_claim *x = &pl->claims[i];
		get_str(r, e, "namespace", w, &x->ns, false, true);
		get_str(r, e, "name", w, &x->name, false, true);
		get_str(r, e, "pod", w, &x->pod, true, false);
		get_str(r, e, "podClaimName", w, &x->entry, true, false);
		get_str(r, e, "podGroup", w, &x->group, true, false);
		get_str(r, e, "node", w, &x->node, false, true);
		const wt_node *rs = get_kind(r, e, "results", w, WT_SEQ);
		if (r->rc)
			return;
		size_t n = rs ? rs->n : 0;
		x->results = wa_calloc(pl->arena, n + 1, sizeof *x->results);
		if (!x->results) {
			nomem(r);
			return;
		}
		for (size_t k = 0; k < n && !r->rc; k++) {
			const char *wr = "claims[].results[]";
			const wt_node *o = row_map(r, rs, k, wr);
			if (!o)
				return;
			wpl_result *y = &x->results[k];
			get_str(r, o, "request", wr, &y->request, false, true);
			get_str(r, o, "driver", wr, &y->driver, false, true);
			get_str(r, o, "pool", wr, &y->pool, false, true);
			get_str(r, o, "device", wr, &y->device, false, true);
			const wt_node *ad = wt_get(o, "adminAccess");
			if (ad && ad->type != WT_BOOL && !r->rc)
				r->rc = werr_at(r->err, WASP_EINPUT, ad->src,
						"%s: \"adminAccess\" must be "
						"true or false", wr);
			y->admin = ad && ad->type == WT_BOOL && ad->boolean;
			x->nresults = (int)k + 1;
		}
		pl->nclaims = (int)i + 1;
	}
}

static void read_wait(rd *r, const wt_node *seq)
{
	wasp_plan *pl = r->pl;
	const char *w = "waiting[]";
	pl->wait = new_rows(r, seq, sizeof *pl->wait);
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = row_map(r, seq, i, w);
		if (!e)
			return;
		wpl_wait *x = &pl->wait[i];
		int prio = 0;
		x->kind = "PodGroup";
		x->reason = "";
		get_str(r, e, "namespace", w, &x->ns, false, true);
		get_str(r, e, "name", w, &x->group, false, true);
		get_str(r, e, "kind", w, &x->kind, false, false);
		get_int(r, e, "pods", w, &x->pods);
		get_int(r, e, "priority", w, &prio);
		x->priority = prio;
		get_str(r, e, "reason", w, &x->reason, false, false);
		if (!r->rc && strcmp(x->kind, "PodGroup") &&
		    strcmp(x->kind, "Pod"))
			r->rc = werr_at(r->err, WASP_EINPUT,
					wt_get(e, "kind")->src,
					"waiting[].kind: \"%s\" is neither "
					"\"PodGroup\" nor \"Pod\"",
					x->kind);
		pl->nwait = (int)i + 1;
	}
}

static void read_evict(rd *r, const wt_node *seq)
{
	wasp_plan *pl = r->pl;
	const char *w = "evictions[]";
	pl->evict = new_rows(r, seq, sizeof *pl->evict);
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = row_map(r, seq, i, w);
		if (!e)
			return;
		wpl_evict *x = &pl->evict[i];
		int prio = 0, bprio = 0;
		get_str(r, e, "namespace", w, &x->ns, false, true);
		get_str(r, e, "pod", w, &x->pod, false, true);
		get_str(r, e, "node", w, &x->node, false, false);
		get_str(r, e, "unit", w, &x->unit, true, false);
		get_int(r, e, "priority", w, &prio);
		x->priority = prio;
		const wt_node *pdb = wt_get(e, "pdbViolation");
		if (pdb && pdb->type == WT_BOOL)
			x->pdb_violation = pdb->boolean;
		const wt_node *by = r->rc ? NULL
				   : get_kind(r, e, "preemptedBy", w, WT_MAP);
		if (!by) {
			if (!r->rc)
				r->rc = werr_at(r->err, WASP_EINPUT, e->src,
						"%s: missing \"preemptedBy\"",
						w);
			return;
		}
		const char *bw = "evictions[].preemptedBy";
		x->by_kind = "PodGroup";
		get_str(r, by, "kind", bw, &x->by_kind, false, false);
		get_str(r, by, "namespace", bw, &x->by_ns, false, true);
		get_str(r, by, "name", bw, &x->by, false, true);
		get_int(r, by, "priority", bw, &bprio);
		x->by_priority = bprio;
		pl->nevict = (int)i + 1;
	}
}

static void read_move(rd *r, const wt_node *seq)
{
	wasp_plan *pl = r->pl;
	const char *w = "moves[]";
	pl->move = new_rows(r, seq, sizeof *pl->move);
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = row_map(r, seq, i, w);
		if (!e)
			return;
		wpl_move *x = &pl->move[i];
		get_str(r, e, "namespace", w, &x->ns, false, true);
		get_str(r, e, "pod", w, &x->pod, false, true);
		get_str(r, e, "from", w, &x->from, false, false);
		get_str(r, e, "to", w, &x->to, false, true);
		get_str(r, e, "group", w, &x->group, true, false);
		pl->nmove = (int)i + 1;
	}
}

static void read_warnings(rd *r, const wt_node *seq)
{
	for (size_t i = 0; i < seq->n && !r->rc; i++) {
		const wt_node *e = seq->items[i];
		if (e->type != WT_STR && e->type != WT_NUM) {
			bad(r, e, "warnings[]", "a string");
			return;
		}
		if (wpl_add_warning(r->pl, e->str))
			nomem(r);
	}
}

int wr_plan_from_tree(const wt_node *root, wasp_plan **out, wasp_error *err)
{
	if (!root || root->type != WT_MAP) {
		if (!root)
			return werr(err, WASP_EINPUT, "empty plan document");
		return werr_at(err, WASP_EINPUT, root->src,
			       "a plan is a map, found %s", wt_type_phrase(root->type));
	}
	wasp_plan *pl = wpl_new();
	if (!pl)
		return werr(err, WASP_ENOMEM, "out of memory reading a plan");
	rd r = {pl, err, WASP_OK};
	const char *api = NULL, *kind = NULL;
	/* a misspelt list would otherwise read as an empty one */
	static const char *const known[] = {
	    "apiVersion", "kind",    "summary",  "placements", "evictions",
	    "moves",      "admitted", "claims",  "waiting",    "warnings",
	    "evictionsBuy", "snapshot"};
	for (size_t i = 0; i < root->n && !r.rc; i++) {
		const wt_node *k = wt_key(root, i);
		size_t j = 0;
		while (j < sizeof known / sizeof known[0] &&
		       strcmp(k->str, known[j]))
			j++;
		if (j == sizeof known / sizeof known[0])
			r.rc = werr_at(err, WASP_EINPUT, k->src,
				       "unknown field \"%.64s\" in a plan "
				       "(expected one of apiVersion, kind, "
				       "summary, placements, evictions, moves, "
				       "admitted, claims, waiting, warnings, "
				       "evictionsBuy, snapshot)",
				       k->str);
	}
	get_str(&r, root, "apiVersion", "plan", &api, false, true);
	get_str(&r, root, "kind", "plan", &kind, false, true);
	if (!r.rc && api && strcmp(api, WASP_PLAN_API_VERSION))
		r.rc = werr_at(err, WASP_EINPUT,
			       wt_get(root, "apiVersion")->src,
			       "apiVersion \"%s\" is not supported (this "
			       "version reads %s)",
			       api, WASP_PLAN_API_VERSION);
	if (!r.rc && kind && strcmp(kind, "Plan"))
		r.rc = werr_at(err, WASP_EINPUT, wt_get(root, "kind")->src,
			       "kind \"%s\": expected Plan", kind);

	const wt_node *v;
	pl->pdb_violations = -1; /* unless the summary gives it */
	if (!r.rc && (v = get_kind(&r, root, "summary", "", WT_MAP)))
		read_summary(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "placements", "", WT_SEQ)))
		read_place(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "admitted", "", WT_SEQ)))
		read_admit(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "claims", "", WT_SEQ)))
		read_claims(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "waiting", "", WT_SEQ)))
		read_wait(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "warnings", "", WT_SEQ)))
		read_warnings(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "evictions", "", WT_SEQ)))
		read_evict(&r, v);
	if (!r.rc && (v = get_kind(&r, root, "moves", "", WT_SEQ)))
		read_move(&r, v);
	if (!r.rc)
		r.rc = wr_read_more(root, pl, err); /* render_more.c */
	if (r.rc) {
		wpl_free(pl);
		return r.rc;
	}
	if (pl->pdb_violations < 0) {
		pl->pdb_violations = 0;
		for (int i = 0; i < pl->nevict; i++)
			pl->pdb_violations += pl->evict[i].pdb_violation;
	}
	/* Counts a hand-written plan left out follow from its lists. */
	const wt_node *sum = wt_get(root, "summary");
	const wt_node *cnt = sum && sum->type == WT_MAP ? wt_get(sum, "counts")
							 : NULL;
	if (!cnt) {
		pl->sum.placed_pods = pl->nplace;
		pl->sum.admitted_groups = pl->nadmit;
		pl->sum.waiting_groups = pl->nwait;
		pl->sum.evicted_pods = pl->nevict;
		pl->sum.moved_pods = pl->nmove;
	}
	*out = pl;
	return WASP_OK;
}
