/*
 * run_int.h -- the state of one run (run.c), shared with the passes the
 * bound's whole-gang MIP leads (lead.c).  Private to src/run.
 */
#ifndef WASP_RUN_INT_H
#define WASP_RUN_INT_H

#include "run/run.h"
#include "base/clock.h"
#include "solve/ilp/ilp.h"

/* The state of one run, passed from step to step. */
typedef struct run {
	const ws_snapshot *s;
	const wasp_options *o;
	wa_arena *a;          /* everything below lives here           */
	wp_problem *p;
	wb_deadline deadline;
	double t0, t1, t2, t3; /* start, reduced, constructed, improved */
	bool baseline;        /* a benchmark baseline stands in         */
	wp_sol *gsol;         /* the constructive answer                */
	const wp_sol *best;   /* the answer the plan is made of         */
	bool gproven;         /* gsol meets the packing bound           */
	const char *pass;     /* what the extra passes did, or NULL     */
	double tgreedy;       /* seconds of the first greedy pass        */
	/* decide() */
	const char *mode, *status, *reason;
	bool try_ilp, force_parts, try_lns;
	int rows, cols;
	long nz;
	/* improve() */
	wilp_stats st;
	bool ilp_ran;
	/* the bound over node classes (doc/formulation.md §12), when the
	 * ILP left none */
	wilp_cbound cb;
	int *hint;            /* per group: the MIP's domain, -1 (cb)      */
	wp_sol *cleared;      /* the cleared pass, topped up, or NULL      */
	double cleared_s;     /* the seconds it took, 0: not run         */
	const char *mine[6];  /* this run's own warnings                */
	int nmine;
	/* a cancel left the improvement step behind (run/watch.h): the
	 * run goes on in this arena, the step still uses the problem's */
	wa_arena *post;
	int pcols;            /* auto: the model over parts' columns, -1:
				 not asked (parts_cols)                  */
	bool pcols_known;
	wasp_options ro;      /* the options the steps see (R->o)       */
	size_t mem_held;      /* max_memory: bytes taken when the ILP
				 would start, when that is all of it    */
} run;

/* The last top-up runs again from its own plan while it adds pods, at
 * most this many times in all: a packed plan packs tighter again
 * (greedy's plans of six generated 512-node fragmented clusters: 0-7
 * more top-priority pods from a second round, 0-3 from a third;
 * fragmented seed 3 at 2,048 nodes added pods for six rounds, 3,394 ->
 * 3,410 top-priority pods, where three stopped it).  0.2 s a round at
 * 2,048 nodes; at 10,000 the deadline cuts the first. */
#define WSV_TOPUP_ROUNDS 12

/* Helpers of run.c that lead.c uses too. */
bool wrn_cancelled(const wasp_options *o);
int wrn_nomem(wasp_error *err);
/* Append ", then" text to a reason-like string (NULL stays the other). */
const char *wrn_also(wa_arena *a, const char *first, const char *then);
/* Is plan s better than R->best in the lexicographic objective? */
bool wrn_beats(const run *R, const wp_sol *s);
/* A better plan taken after the search (R->best already set): mode lns,
 * status feasible, what appended to the reason (NULL: out of memory). */
int wrn_took(run *R, const char *what, wasp_error *err);
/* A solution for a pass that may be thrown away, in an arena of its own
 * (*ta, destroyed after the pass).  NULL (and *ta NULL): out of memory. */
wp_sol *wrn_pass_sol(const wp_problem *p, wa_arena **ta);
/* The seconds making the plan from an answer takes. */
double wrn_fin_s(const run *R);
/* The run's deadline fin seconds sooner, and no later than share of left
 * seconds from now. */
wb_deadline wrn_share_deadline(const run *R, double fin, double share,
			       double left);

/* lead.c: greedy passes led by the bound's whole-gang MIP's answers, the
 * cleared one among them kept in R->cleared (doc/formulation.md §12),
 * before the search.  WASP_OK, or an error (NOMEM). */
int wrn_mip_pass(run *R, wasp_error *err);
/* The seconds the search and the last top-up keep back for
 * wrn_relead, of left seconds as the search starts. */
double wrn_relead_keep(const run *R, double left);
/* The plan (R->best) led again after the last top-up; a better plan is
 * copied into t and becomes R->best. */
int wrn_relead(run *R, wp_sol *t, wasp_error *err);

#endif
