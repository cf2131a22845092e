/*
 * plugin.c -- the `plugin` benchmark (bench/README.md, "plugin"): what a
 * scheduler plugin pays per call on generated clusters of 1k, 5k and 10k
 * nodes in 50 racks with 200 pending gangs: applying a delta of one
 * arriving 8-pod gang, placing it with wasp_place (median and p99), and
 * the throughput of a stream of arriving gangs (apply, place, assume).
 * Last, how long a cancel takes to return: wasp_solve (auto) and
 * wasp_place on the largest cluster, the flag set from another thread
 * after CANCEL_AFTER_MS.
 * Built on request: `make bench/plugin && bench/plugin [reps [sizes
 * [first]]]`; CANCEL=1 in the environment adds the cancel figures.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "wasp.h"

#define GANG_PODS 8
#define RACKS 50
#define CANCEL_AFTER_MS 200

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

typedef struct canceller {
	volatile int flag;
	double set_at;
} canceller;

static void *cancel_later(void *arg)
{
	canceller *c = arg;
	struct timespec ts = {0, CANCEL_AFTER_MS * 1000000L};
	nanosleep(&ts, NULL);
	c->set_at = wasp_now();
	c->flag = 1;
	return NULL;
}

/* Milliseconds from the cancel to the return of a solve (place: 0) or
 * a place of gang `gang`; -1 when it returned before the cancel. */
static double cancel_ms(const wasp_snapshot *s, const char *gang)
{
	canceller c = {0, 0};
	wasp_options o;
	wasp_options_init(&o);
	o.cancel = &c.flag;
	o.time_limit_s = 120;
	pthread_t th;
	pthread_create(&th, NULL, cancel_later, &c);
	wasp_plan *p = NULL;
	wasp_error e;
	int rc = gang ? wasp_place(s, WASP_GROUP_PODGROUP, "train", gang, &o,
				   60000, &p, &e)
		      : wasp_solve(s, &o, &p, &e);
	double done = wasp_now();
	pthread_join(th, NULL);
	if (rc)
		die("cancel run", &e);
	wasp_plan_free(p);
	return c.flag && done >= c.set_at ? (done - c.set_at) * 1e3 : -1;
}

static void one_size(int nodes, int reps, int cancel)
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
	if (cancel)
		printf("cancel after %d ms at %d nodes: solve returned %.1f ms "
		       "later, place %.1f ms later (-1: done before)\n",
		       CANCEL_AFTER_MS, nodes, cancel_ms(s, NULL),
		       cancel_ms(s, "gang-00000"));
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
	int first = argc > 3 ? atoi(argv[3]) : 0;
	if (reps < 1 || nsizes < 1 || first < 0 || first + nsizes > 3) {
		fprintf(stderr, "usage: bench/plugin [reps [sizes [first]]]: "
			"sizes of 1k, 5k, 10k nodes from the first-th\n");
		return 2;
	}
	printf("| nodes | pods | load ms | apply p50 ms | apply p99 ms | "
	       "place p50 ms | place p99 ms | placed | stream pods/s |\n"
	       "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = first; i < first + nsizes; i++)
		one_size(sizes[i], reps,
			 i == first + nsizes - 1 && getenv("CANCEL"));
	return 0;
}
