/*
 * cli.h -- shared declarations of the wasp command's subcommand files.
 */
#ifndef WASP_CLI_H
#define WASP_CLI_H

#include <stddef.h>

#include "wasp.h"

/* `wasp bench SUITE [options]` (bench.c); returns the exit status. */
int cmd_bench(int argc, char **argv);
/* Its --help text (for `wasp help bench`). */
extern const char bench_help[];

/* `wasp report PLAN SNAPSHOT...` (report.c) and its --help text. */
int cmd_report(int argc, char **argv);
extern const char report_help[];

/* Shared by the subcommand files (defined in wasp.c): an error as
 * "file:line:col: message" returning its exit status; usage messages;
 * getopt over a sub-vector; "-" read once; -o checked early and written
 * atomically; a snapshot (and a plan) loaded, warnings printed. */
int report(const wasp_error *e);
int try_help(const char *cmd);
int usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void getopt_reset(void);
int check_stdin_once(const char *cmd, char **paths, int n, const char *also);
int check_output_path(const char *path);
int write_output(const char *path, const char *data, size_t len);
int load_snapshot(char **paths, int n, int quiet, wasp_snapshot **s);
/* The snapshot, then the plan; on failure nothing is left to free. */
int load_plan_snapshot(const char *plan_path, char **paths, int n,
		       int quiet, wasp_plan **p, wasp_snapshot **s);
/* `wasp serve --socket PATH [FILE...]` (serve.c); returns the exit
 * status. */
int cmd_serve(int argc, char **argv);
extern const char serve_help[];

#endif
