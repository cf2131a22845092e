/*
 * cli.h -- shared declarations of the wasp command's subcommand files.
 */
#ifndef WASP_CLI_H
#define WASP_CLI_H

/* `wasp bench SUITE [options]` (bench.c); returns the exit status. */
int cmd_bench(int argc, char **argv);
/* Its --help text (for `wasp help bench`). */
extern const char bench_help[];

/* `wasp serve --socket PATH [FILE...]` (serve.c); returns the exit
 * status. */
int cmd_serve(int argc, char **argv);
extern const char serve_help[];

#endif
