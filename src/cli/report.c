/*
 * report.c -- `wasp report PLAN SNAPSHOT...`: an existing plan drawn over
 * its snapshot as one self-contained HTML page (wasp_report_html;
 * doc/output.md, "The HTML report").  `wasp plan --format html` writes
 * the same page for the plan it makes.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define REPORT_MAX_DETAIL 100000000 /* --detail-nodes */

const char report_help[] =
"Usage: wasp report [OPTIONS] PLAN FILE...\n"
"\n"
"Draw the plan PLAN (JSON or YAML, as 'wasp plan' writes it) over the\n"
"snapshot FILE... it was made for, as one self-contained HTML page:\n"
"inline SVG and CSS, no scripts, nothing fetched, readable offline.\n"
"The page checks the plan against the snapshot first (as 'wasp check'),\n"
"then shows the summary, what the evictions buy, the topology as nested\n"
"boxes with every node's GPUs (or CPU) before and after, coloured by\n"
"running, evicted, moved and newly placed work (one colour per admitted\n"
"group), wholly free domains marked, and the admitted, waiting,\n"
"eviction and move tables.\n"
"\n"
"Options:\n"
"  -o, --output FILE       write the page to FILE atomically (default:\n"
"                          standard output)\n"
"      --detail-nodes N    above N nodes (default 512) draw one cell per\n"
"                          finest domain, with a section per domain one\n"
"                          level up that shows its nodes\n"
"  -q, --quiet             no warnings on standard error\n"
"  -h, --help              show this help\n"
"\n"
"Exit status: 0 page written (an invalid plan is drawn too, and the page\n"
"says why it is invalid), 2 bad input or usage, 3 internal or I/O error.\n";

enum { OPT_DETAIL = 256 };

int cmd_report(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"detail-nodes", required_argument, NULL, OPT_DETAIL},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	const char *cmd = "report", *out = NULL;
	int quiet = 0, detail = 0, c, rc;

	getopt_reset();
	while ((c = getopt_long(argc, argv, "o:qh", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_DETAIL: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 ||
			    v > REPORT_MAX_DETAIL)
				return usage_error(cmd, "invalid --detail-nodes "
						   "value '%s' (expected an "
						   "integer from 1 to %d)",
						   optarg, REPORT_MAX_DETAIL);
			detail = (int)v;
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(report_help, stdout);
			return 0;
		default:
			return try_help(cmd);
		}
	}
	if (optind >= argc)
		return usage_error(cmd, "no PLAN given");
	if (optind + 1 >= argc)
		return usage_error(cmd, "no snapshot FILE given");
	const char *plan_path = argv[optind];
	char **files = argv + optind + 1;
	int nfiles = argc - optind - 1;
	if ((rc = check_stdin_once(cmd, files, nfiles, plan_path)) ||
	    (rc = check_output_path(out)))
		return rc;

	wasp_snapshot *s;
	wasp_plan *p;
	if ((rc = load_plan_snapshot(plan_path, files, nfiles, quiet, &p, &s)))
		return rc;
	wasp_error err;
	memset(&err, 0, sizeof err);
	char *page = wasp_report_html(s, p, detail, &err);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	if (!page)
		return report(&err);
	rc = write_output(out, page, strlen(page));
	wasp_free(page);
	return rc;
}
