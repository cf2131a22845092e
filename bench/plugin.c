/*
 * plugin.c -- the `plugin` benchmark (bench/README.md, "plugin"): what a
 * scheduler plugin pays per call on generated clusters of 1k, 5k and 10k
 * nodes in 50 racks with 200 pending gangs: applying a delta of one
 * arriving 8-pod gang, placing it with wasp_place (median and p99), and
 * the throughput of a stream of arriving gangs (apply, place, assume).
 * Built on request: `make bench/plugin && bench/plugin [reps]`.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasp.h"

#define GANG_PODS 8
#define RACKS 50

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double q)
{
	qsort(v, (size_t)n, sizeof *v, dcmp);
	int i = (int)(q * (n - 1) + 0.5);
	return v[i];
}

/* An arriving gang "arrive-<k>" of GANG_PODS pods, 1 GPU each, in one
 * rack. */
static char *gang_text(int k)
{
	size_t cap = 4096 + GANG_PODS * 512, len = 0;
	char *t = malloc(cap);
	len += (size_t)snprintf(t + len, cap - len,
	    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
	    "metadata: {name: arrive-%d, namespace: bench}\nspec:\n"
	    "  schedulingPolicy: {gang: {minCount: %d}}\n"
	    "  schedulingConstraints: {topology: [{key: example.com/rack}]}\n",
	    k, GANG_PODS);
	for (int i = 0; i < GANG_PODS; i++)
		len += (size_t)snprintf(t + len, cap - len,
		    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
		    "arrive-%d-%d, namespace: bench}\nspec:\n  "
		    "schedulingGroup: {podGroupName: arrive-%d}\n  "
		    "containers:\n  - name: c\n    resources: {requests: "
		    "{cpu: \"4\", nvidia.com/gpu: \"1\"}}\n", k, i, k);
	return t;
}

static int die(const char *what, const wasp_error *e)
{
	char buf[1024];
	fprintf(stderr, "bench/plugin: %s: %s\n", what,
		wasp_error_format(e, buf, sizeof buf));
	exit(1);
}

static void one_size(int nodes, int reps)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.seed = 1;
	g.levels = 1;
	g.fanout = RACKS;
	g.nodes = nodes;
	g.gangs = 200;
	g.max_gang = 8;
	g.busy = 0.5;
	wasp_error e = {0};
	char *text = wasp_gen(&g, &e);
	if (!text)
		die("gen", &e);
	wasp_snapshot *s = NULL;
	double t0 = wasp_now();
	if (wasp_snapshot_from_text(&s, text, strlen(text), "gen", &e))
		die("load", &e);
	double tload = wasp_now() - t0;
	wasp_free(text);
	wasp_snapshot_stats st;
	wasp_snapshot_stats_get(s, &st);

	double *ta = calloc((size_t)reps, sizeof *ta);
	double *tp = calloc((size_t)reps, sizeof *tp);
	wasp_options o;
	wasp_options_init(&o);
	o.threads = 1;
	int placed = 0;
	double tstream = 0;
	wasp_snapshot *cur = s;
	for (int k = 0; k < reps; k++) {
		char *gt = gang_text(k);
		wasp_delta *d = NULL;
		wasp_delta_new(&d, &e);
		double a0 = wasp_now();
		if (wasp_delta_put(d, gt, strlen(gt), "arrive", &e))
			die("put", &e);
		wasp_snapshot *v = NULL;
		if (wasp_snapshot_apply(cur, d, &v, &e))
			die("apply", &e);
		double a1 = wasp_now();
		char name[64];
		snprintf(name, sizeof name, "arrive-%d", k);
		wasp_plan *p = NULL;
		if (wasp_place(v, WASP_GROUP_PODGROUP, "bench", name, &o, 0,
			       &p, &e))
			die("place", &e);
		double a2 = wasp_now();
		wasp_snapshot *next = NULL;
		if (wasp_snapshot_assume(v, p, &next, &e))
			die("assume", &e);
		double a3 = wasp_now();
		ta[k] = a1 - a0;
		tp[k] = a2 - a1;
		tstream += a3 - a0;
		placed += (int)wasp_plan_placement_count(p);
		wasp_plan_free(p);
		wasp_snapshot_free(v);
		if (cur != s)
			wasp_snapshot_free(cur);
		cur = next;
		wasp_delta_free(d);
		free(gt);
	}
	if (cur != s)
		wasp_snapshot_free(cur);
	printf("| %d | %zu | %.0f | %.1f | %.1f | %.1f | %.1f | %d/%d | %.0f |\n",
	       nodes, st.pods, tload * 1e3, pct(ta, reps, 0.5) * 1e3,
	       pct(ta, reps, 0.99) * 1e3, pct(tp, reps, 0.5) * 1e3,
	       pct(tp, reps, 0.99) * 1e3, placed, reps * GANG_PODS,
	       placed / tstream);
	fflush(stdout);
	free(ta);
	free(tp);
	wasp_snapshot_free(s);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20;
	int sizes[] = {1000, 5000, 10000};
	int nsizes = argc > 2 ? atoi(argv[2]) : 3;
	if (reps < 1 || nsizes < 1 || nsizes > 3) {
		fprintf(stderr, "usage: bench/plugin [reps [sizes 1-3]]\n");
		return 2;
	}
	printf("| nodes | pods | load ms | apply p50 ms | apply p99 ms | "
	       "place p50 ms | place p99 ms | placed | stream pods/s |\n"
	       "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nsizes; i++)
		one_size(sizes[i], reps);
	return 0;
}
