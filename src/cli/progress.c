/*
 * progress.c -- one status line on standard error for a long `wasp plan`
 * (doc/wasp.1, "Progress"): phase, incumbent, bound and time left,
 * redrawn in place.  Shown only on a terminal, without -q, and only once
 * the run is older than CLI_PROGRESS_AFTER_S, so short runs and logs stay
 * clean.  The library calls cli_progress through wasp_options.progress.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"

/* Runs shorter than this print nothing. */
#define CLI_PROGRESS_AFTER_S 2.0

typedef struct progress_state {
	int shown; /* a line is on the terminal */
} progress_state;

static progress_state state;

/* A number without float noise: integers as integers, else 6 digits. */
static void num(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else if (fabs(v) < 1e15 && fabs(v - nearbyint(v)) < 1e-6)
		snprintf(buf, size, "%.0f", nearbyint(v));
	else
		snprintf(buf, size, "%.6g", v);
}

void cli_progress(const wasp_progress *pr, void *ctx)
{
	(void)ctx;
	if (!(pr->elapsed_s >= CLI_PROGRESS_AFTER_S))
		return;
	char inc[32], bnd[32], left[32];
	num(inc, sizeof inc, pr->incumbent);
	num(bnd, sizeof bnd, pr->bound);
	if (isnan(pr->left_s))
		snprintf(left, sizeof left, "no limit");
	else
		snprintf(left, sizeof left, "%.0f s left",
			 pr->left_s > 0 ? pr->left_s : 0.0);
	fprintf(stderr, "\r\033[Kwasp: %.0f s  %-6s incumbent %s  bound %s  "
			"%s", pr->elapsed_s, pr->phase, inc, bnd, left);
	fflush(stderr);
	state.shown = 1;
}

bool cli_progress_wanted(int quiet)
{
	return !quiet && isatty(STDERR_FILENO);
}

void cli_progress_done(void)
{
	if (state.shown)
		fputs("\r\033[K", stderr);
	state.shown = 0;
}
