/*
 * apply.c -- `wasp apply PLAN`: turn a plan into actions on the cluster
 * through kubectl (doc/apply.md).  A dry run unless --yes.
 *
 * Order: the plan is refused when a pod it touches changed since the
 * capture (its resourceVersion, recorded in the plan, differs from the
 * live one); then evictions (policy/v1 Eviction requests) unit by unit,
 * the units of the highest-priority preemptor first, an `all` group's
 * pods together; then moves (an eviction; the replacement pod is its
 * controller's, see doc/apply.md); then placements of pending pods, as
 * hints the cluster honours: a pod held by the scheduling gate --gate
 * gets a required node affinity to its planned node (or domain) and
 * loses the gate in one JSON patch, as Kueue does for its gates.
 *
 * Every action first looks at the live pod, so a second run skips what
 * is done (evicted pods are gone, released pods carry no gate).  The
 * first failure stops the run, and what was done is reported.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "cli/cli.h"
#include "cli/kubectl.h"
#include "io/load.h"

/* The gate wasp removes when none is named (doc/apply.md). */
#define APPLY_DEFAULT_GATE "wasp.dev/planned"
/* Stale pods listed before "and N more". */
#define APPLY_MAX_STALE_SHOWN 10

const char apply_help[] =
"Usage: wasp apply [OPTIONS] PLAN\n"
"\n"
"Carry out a plan (JSON or YAML, as 'wasp plan' writes it) through\n"
"kubectl.  Without --yes, print the actions only (a dry run).\n"
"\n"
"First the plan is compared with the cluster: when a pod it places,\n"
"evicts or moves has another resourceVersion than in the capture, the\n"
"plan is stale and nothing is done.  Then, stopping at the first\n"
"failure: evictions (policy/v1 Eviction, respecting\n"
"PodDisruptionBudgets) unit by unit, a disruptionMode all group\n"
"together; moves (an eviction); and placements: a pending pod held by\n"
"the scheduling gate GATE gets a required node affinity to its planned\n"
"node (or domain) and the gate is removed.  Pods without the gate are\n"
"left to the scheduler.  Safe to run again: what is done is skipped.\n"
"\n"
"Options:\n"
"      --yes               carry the actions out (default: dry run)\n"
"      --gate GATE         the scheduling gate to release (default\n"
"                          " APPLY_DEFAULT_GATE ")\n"
"      --hint WHAT         node (default): affinity to the planned node;\n"
"                          domain: to the group's topology domain (value\n"
"                          domains only; else node)\n"
"      --kubeconfig FILE   kubectl's --kubeconfig\n"
"      --context NAME      kubectl's --context\n"
"      --kubectl PATH      the kubectl to run (default: kubectl on PATH)\n"
"  -q, --quiet             print only failures and the summary\n"
"  -h, --help              show this help\n"
"\n"
"Exit status: 0 done (or dry run), 1 stale plan (nothing done) or an\n"
"action failed (the report says what was done), 2 bad plan or usage,\n"
"3 kubectl or internal error.\n";

/* One pod as the cluster has it now. */
typedef struct live {
	const char *ns, *name, *rv, *node; /* node NULL: not bound      */
	int gate;        /* index of the gate in schedulingGates, -1    */
	bool affinity, node_affinity, required;
} live;

enum act_kind { ACT_EVICT, ACT_MOVE, ACT_PLACE };

typedef struct act {
	int kind;
	const char *ns, *pod, *node;  /* node: where it runs or goes   */
	const char *unit;             /* evictions: the `all` group    */
	const char *by_ns, *by;       /* evictions: the preemptor      */
	double by_prio;
	const char *group;            /* placements: its group         */
	const char *key, *domain;     /* its admitted domain, if any   */
} act;

typedef struct apply {
	wa_arena *a;
	wkc kc;
	const char *gate;
	bool yes, quiet, hint_domain, path_domains;
	live *pods;
	size_t npods;
	act *acts;
	size_t nacts;
	int done, skipped;
} apply;

static const char *str_of(const wt_node *m, const char *key)
{
	const wt_node *v = m && m->type == WT_MAP ? wt_get(m, key) : NULL;
	return v && (v->type == WT_STR || v->type == WT_NUM) ? v->str : NULL;
}

static double num_of(const wt_node *m, const char *key)
{
	const char *s = str_of(m, key);
	return s ? strtod(s, NULL) : 0;
}

static const wt_node *seq_of(const wt_node *m, const char *key)
{
	const wt_node *v = m && m->type == WT_MAP ? wt_get(m, key) : NULL;
	return v && v->type == WT_SEQ ? v : NULL;
}

static const live *find_live(const apply *A, const char *ns,
			     const char *name)
{
	for (size_t i = 0; i < A->npods; i++)
		if (!strcmp(A->pods[i].ns, ns) &&
		    !strcmp(A->pods[i].name, name))
			return &A->pods[i];
	return NULL;
}

/* ------------------------------------------------------------ reading */

/* The live pods of the namespaces the plan touches (one get -A). */
static int read_live(apply *A)
{
	char *text = NULL;
	const char *args[] = {"get", "pods", "-A", "-o", "json", NULL};
	int rc = wkc_run(&A->kc, args, NULL, &text);
	if (rc)
		return rc;
	wt_doc doc;
	wasp_error err;
	memset(&err, 0, sizeof err);
	rc = wl_load_text(A->a, text, strlen(text), "kubectl get pods", &doc,
			  &err);
	free(text);
	const wt_node *items = rc || doc.nroots != 1
				   ? NULL
				   : seq_of(doc.roots[0], "items");
	if (!items) {
		fprintf(stderr, "wasp apply: kubectl get pods: not a JSON "
				"List%s%s\n", rc ? ": " : "", rc ? err.msg : "");
		return CLI_INTERNAL;
	}
	A->pods = wa_calloc(A->a, items->n + 1, sizeof *A->pods);
	if (!A->pods)
		return CLI_INTERNAL;
	for (size_t i = 0; i < items->n; i++) {
		const wt_node *o = items->items[i];
		const wt_node *meta = wt_get(o, "metadata"),
			      *spec = wt_get(o, "spec");
		live *l = &A->pods[A->npods];
		l->ns = str_of(meta, "namespace");
		l->name = str_of(meta, "name");
		if (!l->ns || !l->name)
			continue;
		l->rv = str_of(meta, "resourceVersion");
		l->node = str_of(spec, "nodeName");
		if (l->node && !*l->node)
			l->node = NULL;
		l->gate = -1;
		const wt_node *gates = seq_of(spec, "schedulingGates");
		for (size_t g = 0; gates && g < gates->n; g++) {
			const char *gn = str_of(gates->items[g], "name");
			if (gn && !strcmp(gn, A->gate))
				l->gate = (int)g;
		}
		const wt_node *aff = spec ? wt_get(spec, "affinity") : NULL;
		const wt_node *na = aff ? wt_get(aff, "nodeAffinity") : NULL;
		l->affinity = aff && aff->type == WT_MAP;
		l->node_affinity = na && na->type == WT_MAP;
		l->required = l->node_affinity &&
			      wt_get(na, "requiredDuringSchedulingIgnored"
					 "DuringExecution");
		A->npods++;
	}
	return CLI_OK;
}

static int cmp_evict(const void *va, const void *vb)
{
	const act *a = va, *b = vb;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	if (a->kind != ACT_EVICT)
		return 0;
	if (a->by_prio != b->by_prio)
		return a->by_prio > b->by_prio ? -1 : 1;
	int c = strcmp(a->by_ns, b->by_ns);
	if (!c)
		c = strcmp(a->by, b->by);
	/* one unit together: an `all` group's pods, else the pod alone */
	if (!c)
		c = strcmp(a->ns, b->ns);
	if (!c)
		c = strcmp(a->unit ? a->unit : a->pod,
			   b->unit ? b->unit : b->pod);
	if (!c)
		c = strcmp(a->pod, b->pod);
	return c;
}

/* The actions of the plan, in the order they are carried out. */
static int read_plan(apply *A, const wt_node *root)
{
	const wt_node *ev = seq_of(root, "evictions"),
		      *mv = seq_of(root, "moves"),
		      *pl = seq_of(root, "placements"),
		      *ad = seq_of(root, "admitted");
	size_t n = (ev ? ev->n : 0) + (mv ? mv->n : 0) + (pl ? pl->n : 0);
	A->acts = wa_calloc(A->a, n + 1, sizeof *A->acts);
	if (!A->acts)
		return CLI_INTERNAL;
	for (size_t i = 0; ev && i < ev->n; i++) {
		const wt_node *e = ev->items[i], *by = wt_get(e, "preemptedBy");
		A->acts[A->nacts++] = (act){
		    .kind = ACT_EVICT, .ns = str_of(e, "namespace"),
		    .pod = str_of(e, "pod"), .node = str_of(e, "node"),
		    .unit = str_of(e, "unit"), .by_ns = str_of(by, "namespace"),
		    .by = str_of(by, "name"), .by_prio = num_of(by, "priority")};
	}
	for (size_t i = 0; mv && i < mv->n; i++) {
		const wt_node *e = mv->items[i];
		A->acts[A->nacts++] = (act){
		    .kind = ACT_MOVE, .ns = str_of(e, "namespace"),
		    .pod = str_of(e, "pod"), .node = str_of(e, "to")};
	}
	for (size_t i = 0; pl && i < pl->n; i++) {
		const wt_node *e = pl->items[i];
		act x = {.kind = ACT_PLACE, .ns = str_of(e, "namespace"),
			 .pod = str_of(e, "pod"), .node = str_of(e, "node"),
			 .group = str_of(e, "group")};
		for (size_t k = 0; x.group && ad && k < ad->n; k++) {
			const wt_node *g = ad->items[k];
			const char *gns = str_of(g, "namespace"),
				   *gn = str_of(g, "name");
			if (gns && gn && !strcmp(gns, x.ns) &&
			    !strcmp(gn, x.group)) {
				x.key = str_of(g, "topologyKey");
				x.domain = str_of(g, "domain");
			}
		}
		A->acts[A->nacts++] = x;
	}
	for (size_t i = 0; i < A->nacts; i++) {
		act *x = &A->acts[i];
		if (!x->ns || !x->pod || !x->node ||
		    (x->kind == ACT_EVICT && (!x->by_ns || !x->by))) {
			fprintf(stderr, "wasp apply: the plan has an entry "
					"without namespace, pod or node\n");
			return CLI_INPUT;
		}
	}
	/* evictions by preemptor, unit by unit; moves and placements keep
	 * the plan's order (qsort is not stable: the index decides ties) */
	size_t ne = 0;
	while (ne < A->nacts && A->acts[ne].kind == ACT_EVICT)
		ne++;
	if (ne > 1)
		qsort(A->acts, ne, sizeof *A->acts, cmp_evict);
	return CLI_OK;
}

/* ------------------------------------------------------------ staleness */

/* Is the action already done on the live cluster? */
static bool is_done(const act *x, const live *l)
{
	if (x->kind != ACT_PLACE)
		return !l; /* evicted: gone */
	return l && ((l->node && !strcmp(l->node, x->node)) ||
		     (!l->node && l->gate < 0 && l->required));
}

/* Refuse the plan when a pod it touches changed since the capture
 * (doc/apply.md, "Stale plans"); done actions are not stale. */
static int check_stale(apply *A, const wt_node *root)
{
	const wt_node *sn = wt_get(root, "snapshot");
	const wt_node *rvs = seq_of(sn, "resourceVersions");
	if (!rvs && A->nacts) {
		fprintf(stderr, "wasp apply: the plan records no "
				"resourceVersions (snapshot.resourceVersions), "
				"so it cannot be checked against the cluster; "
				"plan again from a fresh 'wasp snapshot'\n");
		return CLI_FAILED;
	}
	int stale = 0;
	for (size_t i = 0; rvs && i < rvs->n; i++) {
		const wt_node *e = rvs->items[i];
		const char *ns = str_of(e, "namespace"), *pod = str_of(e, "pod"),
			   *rv = str_of(e, "resourceVersion");
		if (!ns || !pod)
			continue;
		const live *l = find_live(A, ns, pod);
		const act *x = NULL;
		for (size_t k = 0; k < A->nacts && !x; k++)
			if (!strcmp(A->acts[k].ns, ns) &&
			    !strcmp(A->acts[k].pod, pod))
				x = &A->acts[k];
		if (x && is_done(x, l))
			continue;
		/* a pending pod without the gate is the scheduler's */
		if (x && x->kind == ACT_PLACE && (!l || l->gate < 0))
			continue;
		const char *why = !rv ? "no resourceVersion was captured"
				  : !l ? "it no longer exists"
				  : !l->rv || strcmp(l->rv, rv)
				      ? "its resourceVersion changed"
				      : NULL;
		if (!why)
			continue;
		if (stale++ < APPLY_MAX_STALE_SHOWN)
			fprintf(stderr, "wasp apply: stale: pod %s/%s: %s "
					"(captured %s, now %s)\n", ns, pod, why,
				rv ? rv : "-", l && l->rv ? l->rv : "-");
	}
	if (stale) {
		if (stale > APPLY_MAX_STALE_SHOWN)
			fprintf(stderr, "wasp apply: ... and %d more\n",
				stale - APPLY_MAX_STALE_SHOWN);
		fprintf(stderr, "wasp apply: the plan is stale (%d pod%s "
				"changed since the capture); nothing done. Take a "
				"new snapshot and plan again.\n", stale,
			stale == 1 ? "" : "s");
		return CLI_FAILED;
	}
	return CLI_OK;
}

/* ------------------------------------------------------------ acting */

static int run_step(apply *A, const act *x, const char *const *args,
		    const char *input, const char *what)
{
	if (!A->yes) {
		/* a line to paste into a shell (no argument holds a quote
		 * of its own: names are DNS labels, patches use ") */
		printf("would %s %s/%s: ", what, x->ns, x->pod);
		if (input)
			printf("echo '%s' | ", input);
		printf("kubectl");
		for (int i = 0; args[i]; i++)
			printf(strpbrk(args[i], "\"[]{} ") ? " '%s'" : " %s",
			       args[i]);
		putchar('\n');
		return CLI_OK;
	}
	wkc_result r;
	if (wkc_call(&A->kc, args, input, &r))
		return CLI_INTERNAL;
	/* an eviction of a pod that is gone already is done */
	bool gone = x->kind != ACT_PLACE && r.status != 0 &&
		    strstr(r.err, "NotFound");
	if (r.status != 0 && !gone) {
		fprintf(stderr, "wasp apply: failed to %s %s/%s (kubectl exit "
				"%d): %s", what, x->ns, x->pod, r.status, r.err);
		wkc_result_free(&r);
		return CLI_FAILED;
	}
	wkc_result_free(&r);
	if (!A->quiet)
		printf("%s %s/%s%s\n", what, x->ns, x->pod,
		       gone ? " (already gone)" : "");
	A->done++;
	return CLI_OK;
}

static int evict(apply *A, const act *x)
{
	char path[WKC_MAX_ARG], body[WKC_MAX_ARG];
	snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/eviction",
		 x->ns, x->pod);
	snprintf(body, sizeof body,
		 "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\","
		 "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"}}",
		 x->pod, x->ns);
	const char *args[] = {"create", "--raw", path, "-f", "-", NULL};
	return run_step(A, x, args, body, x->kind == ACT_MOVE ? "evict (move)"
							      : "evict");
}

/* The JSON patch that pins a gated pod and releases it: a required node
 * affinity added at the first level the pod lacks (or, when it has
 * required terms, one more expression in each: terms are ORed, so only
 * an added expression tightens, and only additions are allowed while
 * the pod is gated), then the gate removed, guarded by a test op. */
static void place_patch(const apply *A, const act *x, const live *l,
			char *buf, size_t size)
{
	bool dom = A->hint_domain && !A->path_domains && x->key && x->domain;
	const char *key = dom ? x->key : "kubernetes.io/hostname";
	const char *val = dom ? x->domain : x->node;
	char expr[1024], term[1400];
	snprintf(expr, sizeof expr,
		 "{\"key\":\"%s\",\"operator\":\"In\",\"values\":[\"%s\"]}",
		 key, val);
	/* matchFields on the node name is exact when the level is ours */
	if (dom)
		snprintf(term, sizeof term, "{\"matchExpressions\":[%s]}", expr);
	else
		snprintf(term, sizeof term,
			 "{\"matchFields\":[{\"key\":\"metadata.name\","
			 "\"operator\":\"In\",\"values\":[\"%s\"]}]}", x->node);
	char req[1600], na[1800];
	snprintf(req, sizeof req, "{\"nodeSelectorTerms\":[%s]}", term);
	snprintf(na, sizeof na,
		 "{\"requiredDuringSchedulingIgnoredDuringExecution\":%s}",
		 req);
	int n = snprintf(buf, size, "[");
	if (!l->affinity)
		n += snprintf(buf + n, size - (size_t)n,
			      "{\"op\":\"add\",\"path\":\"/spec/affinity\","
			      "\"value\":{\"nodeAffinity\":%s}},", na);
	else if (!l->node_affinity)
		n += snprintf(buf + n, size - (size_t)n,
			      "{\"op\":\"add\",\"path\":\"/spec/affinity/"
			      "nodeAffinity\",\"value\":%s},", na);
	else if (!l->required)
		n += snprintf(buf + n, size - (size_t)n,
			      "{\"op\":\"add\",\"path\":\"/spec/affinity/"
			      "nodeAffinity/requiredDuringScheduling"
			      "IgnoredDuringExecution\",\"value\":%s},", req);
	else
		/* the first term; more terms would each need the same */
		n += snprintf(buf + n, size - (size_t)n,
			      "{\"op\":\"add\",\"path\":\"/spec/affinity/"
			      "nodeAffinity/requiredDuringScheduling"
			      "IgnoredDuringExecution/nodeSelectorTerms/0/"
			      "matchExpressions/-\",\"value\":%s},", expr);
	snprintf(buf + n, size - (size_t)n,
		 "{\"op\":\"test\",\"path\":\"/spec/schedulingGates/%d/name\","
		 "\"value\":\"%s\"},{\"op\":\"remove\",\"path\":"
		 "\"/spec/schedulingGates/%d\"}]",
		 l->gate, A->gate, l->gate);
}

static int place(apply *A, const act *x, const live *l)
{
	if (!l || l->gate < 0) {
		/* not ours to pin: the scheduler decides */
		if (!A->quiet)
			printf("leave %s/%s to the scheduler: %s\n", x->ns,
			       x->pod, l ? "not held by the gate" : "not found");
		A->skipped++;
		return CLI_OK;
	}
	char patch[WKC_MAX_ARG];
	place_patch(A, x, l, patch, sizeof patch);
	const char *args[] = {"patch", "pod", x->pod, "-n", x->ns,
			      "--type=json", "-p", patch, NULL};
	return run_step(A, x, args, NULL, "place");
}

static int act_all(apply *A)
{
	for (size_t i = 0; i < A->nacts; i++) {
		const act *x = &A->acts[i];
		const live *l = find_live(A, x->ns, x->pod);
		if (is_done(x, l)) {
			if (!A->quiet)
				printf("done already: %s/%s\n", x->ns, x->pod);
			A->skipped++;
			continue;
		}
		int rc = x->kind == ACT_PLACE ? place(A, x, l) : evict(A, x);
		if (rc) {
			fprintf(stderr, "wasp apply: stopped after %d of %zu "
					"actions (%d skipped as done or not "
					"ours); run again to continue\n",
				A->done, A->nacts, A->skipped);
			return rc;
		}
	}
	return CLI_OK;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"yes", no_argument, NULL, 'y'},
	    {"gate", required_argument, NULL, 'g'},
	    {"hint", required_argument, NULL, 'H'},
	    WKC_LONG_OPTIONS,
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	apply A = {.kc = {"kubectl", NULL, NULL}, .gate = APPLY_DEFAULT_GATE};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longs, NULL)) != -1) {
		if (wkc_option(&A.kc, c, optarg))
			continue;
		switch (c) {
		case 'y': A.yes = true; break;
		case 'g': A.gate = optarg; break;
		case 'H':
			if (strcmp(optarg, "node") && strcmp(optarg, "domain")) {
				fprintf(stderr, "wasp apply: invalid --hint '%s' "
						"(expected node or domain)\n",
					optarg);
				return CLI_INPUT;
			}
			A.hint_domain = !strcmp(optarg, "domain");
			break;
		case 'q': A.quiet = true; break;
		case 'h': fputs(apply_help, stdout); return CLI_OK;
		default:
			fprintf(stderr, "Try 'wasp apply --help' for more "
					"information.\n");
			return CLI_INPUT;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "wasp apply: give one PLAN\nTry 'wasp apply "
				"--help' for more information.\n");
		return CLI_INPUT;
	}
	const char *path = argv[optind];
	wasp_error err;
	char buf[1024];
	memset(&err, 0, sizeof err);
	/* the library's reader first: a bad plan gets a position */
	wasp_plan *p = NULL;
	if (wasp_plan_load(&p, path, &err)) {
		fprintf(stderr, "%s\n", wasp_error_format(&err, buf, sizeof buf));
		return err.code == WASP_EIO ? CLI_INTERNAL : CLI_INPUT;
	}
	wasp_plan_free(p);
	if (!(A.a = wa_new()))
		return CLI_INTERNAL;
	wt_doc doc;
	int rc = wl_load_file(A.a, path, &doc, &err) ? CLI_INPUT : CLI_OK;
	if (!rc) {
		const wt_node *sum = wt_get(doc.roots[0], "summary");
		const char *dm = str_of(sum, "domainMode");
		A.path_domains = dm && !strcmp(dm, "path");
		rc = read_plan(&A, doc.roots[0]);
	}
	if (!rc)
		rc = read_live(&A);
	if (!rc)
		rc = check_stale(&A, doc.roots[0]);
	if (!rc)
		rc = act_all(&A);
	if (!rc)
		printf("%s: %d action%s%s, %d skipped (done already or left "
		       "to the scheduler)\n", A.yes ? "applied" : "dry run",
		       A.yes ? A.done : (int)A.nacts - A.skipped,
		       (A.yes ? A.done : (int)A.nacts - A.skipped) == 1 ? ""
									 : "s",
		       A.yes ? "" : " to do (run with --yes to carry them out)",
		       A.skipped);
	wa_destroy(A.a);
	return rc;
}
