/*
 * problem_int.h -- the reduction's private state, shared by its files.
 *
 * Contract: wp_reduce (problem.c) makes one wp_red per snapshot and runs
 * the phases in order (doc/formulation.md §1 "Data"): wp_make_protos
 * (problem groups, sorted), wp_make_classes (pod equivalence classes),
 * wp_fill_group per snapshot group (gang minimum, key, pinned domain),
 * wp_eligibility (eligible nodes per class), wp_build_excl (annotations
 * and exclusively held domains), wp_build_comps (CompositePodGroups).
 * Scratch goes into r->tmp, the problem into r->a; the steps return -1 on
 * NOMEM.  classes.c holds the class phases, domains.c the topology ones.
 */
#ifndef WASP_PROBLEM_INT_H
#define WASP_PROBLEM_INT_H

#include "reduce/problem.h"

/* A problem group under construction: a snapshot group with pending
 * pods, or one distinct class of lone pods. */
typedef struct wp_proto {
	int sg;       /* snapshot group, -1: lone pods */
	int order;    /* input order                  */
	int32_t prio;
	int *pods;    /* pending pods, input order    */
	int npods;
	size_t cap;
} wp_proto;

typedef struct wp_red {
	const ws_snapshot *s;
	const wtp_topo *t;
	wa_arena *a, *tmp;
	wp_problem *p;
	int nres;
} wp_red;

/* A class under construction: its problem group and pending pods. */
typedef struct wp_cbuild {
	int group;
	int *pods;
	int n;
	size_t cap;
} wp_cbuild;

/* classes.c */
int wp_make_protos(wp_red *r, wp_proto **out, int *nout);
int wp_make_classes(wp_red *r, const wp_proto *pr, int np,
		    wp_cbuild **out, int *nout);
int wp_eligibility(wp_red *r, const wp_cbuild *cb, int nc, int threads);

/* domains.c */
int wp_fill_group(wp_red *r, wp_group *wg);
int wp_build_excl(wp_red *r);
int wp_build_comps(wp_red *r);

#endif
