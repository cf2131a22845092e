/*
 * html-speed.c -- how long wasp_report_html takes and how big the page
 * is, for bench/README.md ("The HTML report").  Built on request:
 * `make bench/html-speed`, then `bench/html-speed PLAN SNAPSHOT...`.
 * Loads once, renders RUNS times, prints the fastest and the median
 * render (the load is not counted) and the page size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasp.h"

#define RUNS 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: html-speed PLAN SNAPSHOT...\n");
		return 2;
	}
	wasp_error e;
	char msg[1024];
	wasp_snapshot *s;
	wasp_plan *p;
	if (wasp_snapshot_load(&s, (const char *const *)argv + 2,
			       (size_t)argc - 2, &e) ||
	    wasp_plan_load(&p, argv[1], &e)) {
		fprintf(stderr, "%s\n", wasp_error_format(&e, msg, sizeof msg));
		return 2;
	}
	wasp_snapshot_stats st;
	wasp_snapshot_stats_get(s, &st);
	double t[RUNS];
	size_t bytes = 0;
	for (int i = 0; i < RUNS; i++) {
		double t0 = wasp_now();
		char *page = wasp_report_html(s, p, 0, &e);
		t[i] = wasp_now() - t0;
		if (!page) {
			fprintf(stderr, "%s\n",
				wasp_error_format(&e, msg, sizeof msg));
			return 3;
		}
		bytes = strlen(page);
		wasp_free(page);
	}
	qsort(t, RUNS, sizeof *t, cmp_double);
	printf("%zu nodes: render %.3f s fastest, %.3f s median of %d; "
	       "page %zu bytes\n", st.nodes, t[0], t[RUNS / 2], RUNS, bytes);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	return 0;
}
