/*
 * kubectl.h -- running kubectl for `wasp snapshot` and `wasp apply`
 * (kubectl.c): the global flags every call carries, one call with its
 * standard input, output and error captured.
 */
#ifndef WASP_CLI_KUBECTL_H
#define WASP_CLI_KUBECTL_H

#include <stdbool.h>

/* The kubectl to run and its global flags (NULL: not given). */
typedef struct wkc {
	const char *bin;        /* "kubectl": found on PATH              */
	const char *kubeconfig; /* --kubeconfig                          */
	const char *context;    /* --context                             */
} wkc;

/* Longest single argument wasp builds (field selectors, patches). */
#define WKC_MAX_ARG 4096
/* Most arguments in one call, global flags included. */
#define WKC_MAX_ARGS 32

/* The long options every kubectl-running command takes, and their
 * handler: true when c was one of them (k updated). */
#define WKC_LONG_OPTIONS                                                     \
	{"kubeconfig", required_argument, NULL, 'k'},                        \
	{"context", required_argument, NULL, 'c'},                           \
	{"kubectl", required_argument, NULL, 'K'}
bool wkc_option(wkc *k, int c, const char *arg);

/* One finished call: kubectl's exit status (-1: it could not be run),
 * its standard output and error (malloc'd, NUL-terminated). */
typedef struct wkc_result {
	int status;
	char *out, *err;
} wkc_result;

/* Run kubectl with args (NULL-terminated, after the global flags),
 * `input` on its standard input (NULL: none).  0 when it ran (whatever
 * its status), -1 after a message when it could not. */
int wkc_call(const wkc *k, const char *const *args, const char *input,
	     wkc_result *r);
void wkc_result_free(wkc_result *r);

/* wkc_call that must succeed: *out gets standard output; on failure
 * kubectl's error text and the command line go to stderr and the exit
 * status for an internal error comes back. */
int wkc_run(const wkc *k, const char *const *args, const char *input,
	    char **out);

#endif
