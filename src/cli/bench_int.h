/*
 * bench_int.h -- the internal contract between the files of `wasp bench`
 * (bench/README.md).
 *
 *   bench.c          the command: options, the loop over instances/solvers
 *   bench_suite.c    a suite file -> struct suite (the schema over the
 *                    tree of the project's loader, io/load.h)
 *   bench_run.c      child processes: solving, exporting for cbc, limits,
 *                    timing and peak memory; temporary files
 *   bench_measure.c  the quality figures: a child reads the instance
 *                    manifests and every plan, counts what was admitted,
 *                    and runs the independent checker
 *   bench_report.c   the text table, PREFIX.csv and PREFIX.json
 *
 * Every run happens in a forked child, so a crash or a hang costs one row.
 * Out of memory in the parent prints a message and exits with EX_INTERNAL
 * (the x* helpers below).  Everything here is private to the command.
 */
#ifndef WASP_CLI_BENCH_INT_H
#define WASP_CLI_BENCH_INT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasp.h"

#define MAX_SOLVERS 8
#define MAX_PRIO 16         /* per-priority columns kept              */
#define MAX_INSTANCES 1024
#define SUITE_MAX_BYTES (1 << 20)
#define WATCHDOG_MIN_S 120.0 /* a run is killed after 4 x budget + this */

enum { EX_OK = 0, EX_FAILED = 1, EX_INPUT = 2, EX_INTERNAL = 3 };

enum solver {
	S_GREEDY, S_ILP, S_AUTO, S_PODWISE, S_BESTFIT, S_CBC, S_ILPNODE,
	S_NSOLVERS
};
/* The solvers' names in suites and rows (bench.c). */
extern const char *const bench_solver_name[S_NSOLVERS];

/* ------------------------------------------------------------ memory */

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "wasp bench: out of memory\n");
		exit(EX_INTERNAL);
	}
	return p;
}

static inline void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "wasp bench: out of memory\n");
		exit(EX_INTERNAL);
	}
	return p;
}

static inline char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* ------------------------------------------------------------ suite */

typedef struct instance {
	char *name;
	int line;
	int has_gen;
	wasp_gen_options gen;
	char *file;                /* a snapshot file instead of gen     */
	int solvers[MAX_SOLVERS];
	int nsolvers;
	double time;               /* time limit per run, seconds        */
	double timeout;            /* watchdog, seconds                  */
	int quick;                 /* run under --quick                  */
} instance;

typedef struct suite {
	char *name;
	instance *in;
	int nin;
} suite;

/* Read and check a suite file (bench_suite.c): EX_OK, or EX_INPUT with
 * "file:line:col: message" in err. */
int bench_read_suite(const char *path, suite *su, char *err, size_t errsz);
void bench_free_suite(suite *su);

/* ------------------------------------------------------------ rows */

/* Facts about an instance, the same for all its rows. */
typedef struct ifacts {
	long nodes, racks, gpus, free_gpus, pending_pods, pending_gpus,
	    pending_groups, free_nodes, free_racks;
	int nprio;
	int32_t prio[MAX_PRIO]; /* distinct pending priorities, descending */
	int manifests;          /* 1: read (JSON); 0: not available        */
} ifacts;

/* What the metrics child computes for one plan. */
typedef struct pmetrics {
	int ok;
	char status[16], mode[16];
	char mode_reason[512]; /* the longest reason is about 260 chars */
	double objective, bound, gap;
	long admitted_groups, waiting_groups, placed_pods, evicted;
	long adm_pods, adm_gpus, stranded_gpus, partial_gangs;
	long spread_gpus, spread_groups;
	long free_nodes, free_racks;
	long gpus_prio[MAX_PRIO], pods_prio[MAX_PRIO];
	long violations;
	char note[160];
} pmetrics;

typedef struct row {
	int inst, solver;
	char state[16];          /* ok, error, timeout, crashed, skipped  */
	char msg[256];
	double t_load, t_solve, t_total; /* seconds (child's clock)        */
	long peak_kb;
	char plan[512];          /* plan file (empty: none)               */
	pmetrics m;
} row;

/* ------------------------------------------------------------ running */

/* The run's temporary directory and the files made in it. */
typedef struct tmpfiles {
	char dir[512];
	char **paths;
	int n, cap;
} tmpfiles;

void bench_tmp_cleanup(tmpfiles *t, int keep);

/* The instance's snapshot file: generated into t for a gen instance, the
 * suite's file otherwise; -1 with msg on failure. */
int bench_materialize(const instance *in, tmpfiles *t, const char **path,
		      char *msg, size_t msz);
/* One row: the solver in a child (or cbc on the exported model). */
void bench_run_solver(row *r, const instance *in, const char *snap,
		      tmpfiles *t);

/* Fork; the child runs fn(arg, fd) with its stdout and stderr on
 * /dev/null and writes its report to fd.  The parent collects the report
 * (until EOF or timeout) and the child's rusage. */
typedef int (*child_fn)(void *arg, int fd);
int bench_run_child(child_fn fn, void *arg, double timeout, char *out,
		    size_t outsz, long *maxrss_kb, int *status,
		    int *timed_out);
/* write(2) all of buf, retrying on EINTR; -1 on error. */
int bench_write_raw(int fd, const void *buf, size_t n);
/* Write a whole file; -1 with errno on error. */
int bench_write_all(const char *path, const char *text, size_t len);

/* ------------------------------------------------------------ measuring */

/* Facts and per-plan metrics for one instance's rows (in a child). */
void bench_run_metrics(const char *snap, row *rows, int n, ifacts *f,
		       double timeout);

/* ------------------------------------------------------------ report */

void bench_print_header(FILE *f);
void bench_print_instance(FILE *f, const instance *in, const ifacts *fa,
			  const char *note);
void bench_print_row(FILE *f, const suite *su, const row *r,
		     const ifacts *fa);
/* PREFIX.csv and PREFIX.json; -1 (after a message) on error. */
int bench_write_results(const char *prefix, const suite *su, row *rows,
			int nrows, ifacts *facts, const char *argv_line);

#endif
