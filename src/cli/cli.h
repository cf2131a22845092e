/*
 * cli.h -- shared declarations of the wasp command's subcommand files.
 */
#ifndef WASP_CLI_H
#define WASP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "wasp.h"

/* `wasp bench SUITE [options]` (bench.c); returns the exit status. */
int cmd_bench(int argc, char **argv);
/* Its --help text (for `wasp help bench`). */
extern const char bench_help[];

/* `wasp snapshot` (snapshot.c) and `wasp apply` (apply.c), as
 * cmd_bench. */
int cmd_snapshot(int argc, char **argv);
extern const char snapshot_help[];
int cmd_apply(int argc, char **argv);
extern const char apply_help[];

/* Exit statuses of the subcommands (as wasp.c's, doc/wasp.1). */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_INPUT = 2, CLI_INTERNAL = 3 };

/* Write data to path atomically (wasp.c: a temporary file, fsync,
 * rename); "-" or NULL is standard output.  0, or an exit status after a
 * message on stderr. */
int cli_write_file(const char *path, const char *data, size_t len);

/* Progress on standard error (progress.c): wanted on a terminal without
 * -q; cli_progress is a wasp_options.progress; done clears the line. */
bool cli_progress_wanted(int quiet);
void cli_progress(const wasp_progress *pr, void *ctx);
void cli_progress_done(void);

#endif
