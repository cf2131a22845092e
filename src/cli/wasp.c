/*
 * wasp.c -- the wasp command: plan, check, gen, export.
 *
 * A thin shell over the public API (wasp.h) and nothing else: argument
 * parsing, messages, exit statuses, atomic output files and SIGINT.
 * `wasp bench` lives in bench.c and bench_*.c (cli.h, bench_int.h).
 *
 * Exit statuses (also in doc/wasp.1):
 *   0  success (check: the plan is valid)
 *   1  check only: the plan violates the snapshot
 *   2  bad input or usage; the first line on stderr is then
 *      "file:line:col: message" when the input has a position
 *   3  internal, solver or I/O error
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "cli/cli.h"
#include "wasp.h"

enum {
	EXIT_VALID = 0,
	EXIT_VIOLATIONS = 1,
	EXIT_INPUT = 2,
	EXIT_INTERNAL = 3
};

/* Set by SIGINT/SIGTERM, read by the solver through wasp_options.cancel.
 * A plain volatile int (sig_atomic_t is int on every platform we build
 * on, and the options field is an int pointer). */
static volatile int cancel_flag;
static volatile int first_signal; /* the signal that set cancel_flag */

static double start_time; /* wasp_now() at program start */
static size_t max_memory; /* --max-memory in bytes; 0: none */

/* ------------------------------------------------------------ messages */

static int exit_for(int code)
{
	switch (code) {
	case WASP_OK:
		return EXIT_VALID;
	case WASP_EINPUT:
	case WASP_ELIMIT:
	case WASP_ENOTFOUND:
	case WASP_EINVAL:
		return EXIT_INPUT;
	default:
		return EXIT_INTERNAL;
	}
}

/* One line of text on f with every control byte as \xNN: a file name
 * or a value quoted in a message cannot forge a second line or drive
 * the terminal. */
static void put_line(FILE *f, const char *prefix, const char *s)
{
	fputs(prefix, f);
	for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
		if (*q < 0x20 || *q == 0x7F)
			fprintf(f, "\\x%02X", *q);
		else
			fputc(*q, f);
	}
	fputc('\n', f);
}

/* Print an error as "file:line:col: message" (positions from the
 * library), else "wasp: message"; return the exit status for it. */
int report(const wasp_error *e)
{
	char buf[1024];

	if (e->file[0])
		put_line(stderr, "", wasp_error_format(e, buf, sizeof buf));
	else
		put_line(stderr, "wasp: ",
			 e->msg[0] ? e->msg : wasp_code_name(e->code));
	return exit_for(e->code);
}

int try_help(const char *cmd)
{
	fprintf(stderr, "Try 'wasp %s%s--help' for more information.\n",
		cmd ? cmd : "", cmd ? " " : "");
	return EXIT_INPUT;
}

/* "wasp plan: message" and a hint; returns the usage exit status. */
int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	char msg[1024], prefix[64];
	snprintf(prefix, sizeof prefix, "wasp%s%s: ", cmd ? " " : "",
		 cmd ? cmd : "");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	put_line(stderr, prefix, msg);
	return try_help(cmd);
}

static void print_warnings(const wasp_snapshot *s, int quiet)
{
	const char *w;

	if (quiet)
		return;
	for (size_t i = 0; (w = wasp_snapshot_warning(s, i)); i++)
		put_line(stderr, "wasp: warning: ", w);
}

/* ------------------------------------------------------------ help */

static const char main_help[] =
"Usage: wasp COMMAND [OPTIONS] [FILE...]\n"
"\n"
"wasp, the Workload-Aware Scheduling Planner, reads a Kubernetes cluster\n"
"snapshot (Nodes, Pods, PodGroups, PriorityClasses, a Kueue Topology; YAML\n"
"or JSON as kubectl prints them), places the pending PodGroups as gangs\n"
"under their topology constraints, and writes a plan.\n"
"\n"
"Commands:\n"
"  plan     place the pending pods of a snapshot and print the plan\n"
"  check    verify a plan against a snapshot\n"
"  gen      generate a synthetic GPU cluster snapshot\n"
"  export   write the integer program as LP, MPS or GMPL data\n"
"  report   draw a plan over its snapshot as one HTML page\n"
"  bench    run a benchmark suite (bench/README.md)\n"
"  serve    hold a snapshot and answer requests on a socket (doc/serve.md)\n"
"  snapshot capture a snapshot from the cluster through kubectl\n"
"  apply    carry out a plan through kubectl (a dry run without --yes)\n"
"  help     show help for a command\n"
"\n"
"Options:\n"
"  -h, --help      show this help\n"
"      --version   show the version\n"
"\n"
"Run 'wasp COMMAND --help' for the options of a command.\n"
"Exit status: 0 success, 1 plan violations (check), 2 bad input or usage,\n"
"3 internal, solver or I/O error.\n";

#define PLAN_OPTIONS_HELP                                                    \
"  -m, --mode MODE         auto (default), greedy or ilp\n"                \
"  -t, --time-limit SECS   budget for the whole run, reading included\n"   \
"                          (default 60; 0: no limit)\n"                    \
"      --gap G             stop the ILP at relative gap G, e.g. 0.01\n"    \
"                          (default 0: prove optimality)\n"                \
"      --node-model        the ILP works node by node even where nodes\n"  \
"                          can be merged into parts (for comparisons)\n"   \
"      --solver NAME       glpk (default) or cbc: the node model solved\n" \
"                          by the cbc program on PATH (a child process)\n" \
"  -j, --threads N         worker threads (default 0: the OpenMP default)\n" \
"      --domain MODE       topology domains: value (default; nodes sharing\n" \
"                          one label value) or path (Kueue: the values of\n" \
"                          all coarser levels too)\n"                      \
"      --value RESOURCE    count admitted work in RESOURCE (for example\n" \
"                          nvidia.com/gpu) instead of pods\n"              \
"      --rebalance         also move running pods: where a move admits a\n" \
"                          waiting group or saves an eviction, then to\n" \
"                          free whole domains of the finest topology key\n" \
"                          (nightly rebalancing)\n"                        \
"      --max-moves N       at most N moves (default 0: no limit)\n"      \
"      --protect SELECTOR  pods with these labels (k=v,k!=v,k,!k) never\n" \
"                          move nor get evicted\n"                        \
"      --preempt WHAT      lower (default): a pending group may evict\n"  \
"                          running pods of strictly lower priority;\n"    \
"                          never: no plan evicts (a nightly job's safe\n" \
"                          choice, doc/preemption.md)\n"                 \
"      --no-preempt        the same as --preempt never\n"                \
"      --max-evictions N   at most N pods evicted (0: none)\n"           \
"      --max-memory SIZE   stay within SIZE bytes (suffix K, M or G):\n"   \
"                          input over SIZE/14 is refused unread; memory\n" \
"                          running out after greedy keeps its plan\n"     \
"  -q, --quiet             no warnings on standard error\n"                \
"  -h, --help              show this help\n"

static const char plan_help[] =
"Usage: wasp plan [OPTIONS] FILE...\n"
"\n"
"Place the pending pods and PodGroups of a cluster snapshot and print the\n"
"plan: which pod goes to which node, and why each waiting group waits.\n"
"FILE is YAML (one or more documents) or JSON, objects or a kind: List;\n"
"\"-\" reads standard input.  Several files form one snapshot.\n"
"\n"
"Options:\n"
"  -f, --format FORMAT     json (default), yaml, text (a report) or html\n"
"                          (one self-contained page; see 'wasp report')\n"
"  -o, --output FILE       write the plan to FILE atomically (default:\n"
"                          standard output); on error no file is written\n"
PLAN_OPTIONS_HELP
"\n"
"SIGINT (Ctrl-C) or SIGTERM stops the search early; the best plan found\n"
"so far is still written at once (while reading the input: nothing is\n"
"written).  A second SIGINT or SIGTERM kills the command.\n"
"\n"
"Exit status: 0 plan written, 2 bad input or usage, 3 internal, solver\n"
"or I/O error.\n";

static const char check_help[] =
"Usage: wasp check [OPTIONS] --plan PLAN FILE...\n"
"\n"
"Check a plan (JSON or YAML, as 'wasp plan' writes it) against the\n"
"snapshot FILE...: every placed pod is pending and lands on a schedulable\n"
"node it tolerates and selects, every node's resources suffice, every gang\n"
"gets at least minCount pods or none, and topology constraints hold.\n"
"The check is independent of the solvers.\n"
"\n"
"Options:\n"
"  -p, --plan PLAN   the plan to check (required; \"-\" for standard input)\n"
"  -q, --quiet       no warnings on standard error\n"
"  -h, --help        show this help\n"
"\n"
"Exit status: 0 the plan is valid, 1 violations (listed on standard\n"
"output), 2 bad input or usage, 3 internal or I/O error.\n";

static const char gen_help[] =
"Usage: wasp gen [OPTIONS]\n"
"\n"
"Print a synthetic cluster snapshot: a Kueue Topology, PriorityClasses,\n"
"Nodes labelled with up to three topology levels (example.com/superblock,\n"
"example.com/block, example.com/rack) and kubernetes.io/hostname, running\n"
"pods that hold about BUSY of the GPUs, and pending gangs\n"
"(scheduling.k8s.io/v1beta1 PodGroups and their pods).\n"
"The same options give the same bytes on every machine.\n"
"\n"
"Families (--family):\n"
"  gpu         a fat tree of GPU nodes; running pods scattered at random,\n"
"              so racks are fragmented (the default)\n"
"  nvlink      racks of RACK_NODES x 4-GPU nodes (NVLink domains; 18 x 4\n"
"              unless --rack-nodes/--gpus say otherwise), FANOUT racks per\n"
"              block; rigid gangs of whole nodes or of single GPUs in\n"
"              fours, most with a rack constraint\n"
"  fragmented  every rack holds a running pod, so no rack is free, yet the\n"
"              free GPUs exceed what the largest gang needs\n"
"  mixed       CPU_NODES of the nodes CPU-only; GPU nodes tainted\n"
"              nvidia.com/gpu=present:NoSchedule, GPU pods tolerate it;\n"
"              gangs plus SERVICES basic-policy PodGroups and LONE_PODS\n"
"              pods without a group\n"
"\n"
"Options:\n"
"  -s, --seed N          random seed (default 1)\n"
"      --family NAME     gpu, nvlink, fragmented or mixed (default gpu)\n"
"      --levels L        topology levels above the host, 1..3 (default 2)\n"
"      --fanout F        children per domain at each level (default 4)\n"
"      --nodes N         nodes, rounded up to fill the racks (default 64)\n"
"      --gpus G          nvidia.com/gpu per node (default 8; nvlink: 4)\n"
"      --busy F          fraction of GPUs held by running pods (default 0.5)\n"
"      --gangs N         pending gangs (default 8)\n"
"      --max-gang N      largest gang, in pods (default 16)\n"
"      --priorities N    priority classes, 1..16 (default 3)\n"
"      --rack-nodes N    nvlink: nodes per rack (default 18)\n"
"      --cpu-nodes F     mixed: fraction of CPU-only nodes, 0..0.95\n"
"                        (default 0.25)\n"
"      --services N      mixed: basic-policy services (default 4)\n"
"      --lone-pods N     mixed: pending pods without a group (default 8)\n"
"      --trees N         pending CompositePodGroup trees, depth 2-3 with\n"
"                        2-8 children each (default 0)\n"
"      --json            a kubectl-style JSON List instead of YAML\n"
"      --dra             GPUs as DRA devices: ResourceSlices, a DeviceClass,\n"
"                        claim templates, allocated claims for running pods\n"
"      --running-pods N  exactly N one-GPU running pods (lowest priority)\n"
"                        instead of --busy\n"
"      --running-groups G  put them round-robin into G PodGroups\n"
"      --preemptible     running groups are disruptionMode all and the\n"
"                        pending gangs take the highest priority class\n"
"  -o, --output FILE     write to FILE atomically (default: standard output)\n"
"  -h, --help            show this help\n"
"\n"
"Exit status: 0 success, 2 bad option, 3 internal or I/O error.\n";

static const char export_help[] =
"Usage: wasp export (--lp FILE | --mps FILE | --dat FILE) [OPTIONS] FILE...\n"
"\n"
"Write the integer program that 'wasp plan' would solve for the snapshot\n"
"FILE... instead of solving it: CPLEX LP or free MPS (for other solvers,\n"
"e.g. cbc), or GMPL data for models/wasp.mod (for glpsol).\n"
"\n"
"Options:\n"
"      --lp FILE           write CPLEX LP format\n"
"      --mps FILE          write free MPS format\n"
"      --dat FILE          write GMPL data for models/wasp.mod\n"
"      --top-tier          the objective is the top tier alone (the\n"
"                          highest pending priority's pods, or --value):\n"
"                          another solver's optimum is then the best top\n"
"                          tier any plan can reach (LP and MPS only)\n"
PLAN_OPTIONS_HELP
"\n"
"Exit status: 0 written, 2 bad input or usage, 3 internal or I/O error.\n";

static void print_version(void)
{
	printf("wasp %s\n"
	       "License GPL-3.0-or-later: GNU GPL version 3 or later "
	       "<https://gnu.org/licenses/gpl.html>.\n"
	       "This is free software: you are free to change and "
	       "redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       wasp_version());
}

/* ------------------------------------------------------------ parsing */

static int parse_double(const char *cmd, const char *opt, const char *s,
			double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		return usage_error(cmd, "invalid %s value '%s' (expected a "
				   "number from %g to %g)", opt, s, lo, hi);
	}
	*out = v;
	return 0;
}

static int parse_int(const char *cmd, const char *opt, const char *s,
		     long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi) {
		return usage_error(cmd, "invalid %s value '%s' (expected an "
				   "integer from %ld to %ld)", opt, s, lo, hi);
	}
	*out = (int)v;
	return 0;
}

/* Options shared by plan and export. */
enum {
	OPT_GAP = 256,
	OPT_DOMAIN,
	OPT_VALUE,
	OPT_REBALANCE,
	OPT_NODE_MODEL,
	OPT_MAX_MOVES,
	OPT_PROTECT,
	OPT_VERSION,
	OPT_LP,
	OPT_MPS,
	OPT_DAT,
	OPT_TOP_TIER,
	OPT_JSON,
	OPT_DRA,
	OPT_PREEMPTIBLE,
	OPT_PREEMPT,
	OPT_NO_PREEMPT,
	OPT_MAX_EVICTIONS,
	OPT_MAX_MEMORY,
	OPT_SOLVER
};

/* "512M", "2G", "1048576": bytes, binary suffixes; 0 on a bad value. */
static size_t parse_size(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	double k = !*end			   ? 1
		   : !strcmp(end, "K") || !strcmp(end, "k") ? 1024.0
		   : !strcmp(end, "M") || !strcmp(end, "m") ? 1048576.0
		   : !strcmp(end, "G") || !strcmp(end, "g") ? 1073741824.0
							    : 0;
	if (end == s || errno || !isfinite(v) || v <= 0 || k == 0 ||
	    v * k < 1048576.0 || v * k > 1e15)
		return 0;
	return (size_t)(v * k);
}

/* Returns 1 if handled, 0 if not a shared option, or -(exit status) on a
 * bad value. */
static int plan_option(const char *cmd, int c, const char *arg,
		       wasp_options *o, int *quiet)
{
	int rc = 0;

	switch (c) {
	case 'm':
		if (!strcmp(arg, "auto"))
			o->mode = WASP_MODE_AUTO;
		else if (!strcmp(arg, "greedy"))
			o->mode = WASP_MODE_GREEDY;
		else if (!strcmp(arg, "ilp"))
			o->mode = WASP_MODE_ILP;
		else
			rc = usage_error(cmd, "invalid --mode '%s' (expected "
					 "auto, greedy or ilp)", arg);
		break;
	case 't':
		rc = parse_double(cmd, "--time-limit", arg, 0, 1e9,
				  &o->time_limit_s);
		break;
	case OPT_GAP:
		rc = parse_double(cmd, "--gap", arg, 0, 1, &o->gap);
		break;
	case 'j':
		rc = parse_int(cmd, "--threads", arg, 0, WASP_MAX_THREADS,
			       &o->threads);
		break;
	case OPT_DOMAIN:
		if (!strcmp(arg, "value"))
			o->domain_mode = WASP_DOMAIN_VALUE;
		else if (!strcmp(arg, "path"))
			o->domain_mode = WASP_DOMAIN_PATH;
		else
			rc = usage_error(cmd, "invalid --domain '%s' (expected "
					 "value or path)", arg);
		break;
	case OPT_VALUE:
		if (!*arg)
			rc = usage_error(cmd, "empty --value");
		else
			o->value_resource = arg;
		break;
	case OPT_REBALANCE:
		o->rebalance = 1;
		break;
	case OPT_NODE_MODEL:
		o->node_model = 1;
		break;
	case OPT_SOLVER:
		if (!strcmp(arg, "glpk"))
			o->solver = WASP_SOLVER_GLPK;
		else if (!strcmp(arg, "cbc"))
			o->solver = WASP_SOLVER_CBC;
		else
			rc = usage_error(cmd, "invalid --solver '%s' (expected "
					 "glpk or cbc)", arg);
		break;
	case OPT_MAX_MOVES:
		rc = parse_int(cmd, "--max-moves", arg, 0, 100000000,
			       &o->max_moves);
		break;
	case OPT_PROTECT:
		o->protect = arg;
		break;
	case OPT_PREEMPT:
		if (!strcmp(arg, "lower"))
			o->preempt = WASP_PREEMPT_LOWER;
		else if (!strcmp(arg, "never"))
			o->preempt = WASP_PREEMPT_NEVER;
		else
			rc = usage_error(cmd, "invalid --preempt '%s' "
					 "(expected never or lower)", arg);
		break;
	case OPT_NO_PREEMPT:
		o->preempt = WASP_PREEMPT_NEVER;
		break;
	case OPT_MAX_EVICTIONS: {
		int n = 0;
		rc = parse_int(cmd, "--max-evictions", arg, 0, 100000000, &n);
		/* 0 evictions is preemption off; the library's 0 means no
		 * limit */
		if (!rc && n == 0)
			o->preempt = WASP_PREEMPT_NEVER;
		else if (!rc)
			o->max_evictions = n;
		break;
	}
	case OPT_MAX_MEMORY:
		if (!(max_memory = parse_size(arg)))
			rc = usage_error(cmd, "invalid --max-memory '%s' "
					 "(expected a size of at least 1M, "
					 "e.g. 512M or 2G)", arg);
		break;
	case 'q':
		*quiet = 1;
		break;
	default:
		return 0;
	}
	return rc ? -rc : 1;
}

#define PLAN_LONG_OPTIONS                                                    \
	{"mode", required_argument, NULL, 'm'},                              \
	{"time-limit", required_argument, NULL, 't'},                        \
	{"gap", required_argument, NULL, OPT_GAP},                           \
	{"threads", required_argument, NULL, 'j'},                           \
	{"domain", required_argument, NULL, OPT_DOMAIN},                     \
	{"value", required_argument, NULL, OPT_VALUE},                       \
	{"rebalance", no_argument, NULL, OPT_REBALANCE},                     \
	{"node-model", no_argument, NULL, OPT_NODE_MODEL},                   \
	{"solver", required_argument, NULL, OPT_SOLVER},                     \
	{"max-moves", required_argument, NULL, OPT_MAX_MOVES},               \
	{"protect", required_argument, NULL, OPT_PROTECT},                   \
	{"preempt", required_argument, NULL, OPT_PREEMPT},                   \
	{"no-preempt", no_argument, NULL, OPT_NO_PREEMPT},                   \
	{"max-evictions", required_argument, NULL, OPT_MAX_EVICTIONS},       \
	{"max-memory", required_argument, NULL, OPT_MAX_MEMORY},             \
	{"quiet", no_argument, NULL, 'q'},                                   \
	{"help", no_argument, NULL, 'h'}
#define PLAN_SHORT_OPTIONS "m:t:j:qh"

/* getopt_long over argv[0..argc) where argv[0] is the command name; the
 * messages getopt prints then read "wasp plan: unrecognized option". */
void getopt_reset(void)
{
	optind = 1;
	opterr = 1;
}

/* "-" may name standard input once. */
int check_stdin_once(const char *cmd, char **paths, int n,
			    const char *also)
{
	int k = also && !strcmp(also, "-");
	for (int i = 0; i < n; i++)
		k += !strcmp(paths[i], "-");
	if (k > 1)
		return usage_error(cmd, "standard input (\"-\") can be read "
				   "only once");
	return 0;
}

/* ------------------------------------------------------------ output */

/* Write data to path the careful way (base/outfile.h: atomic for
 * regular files, direct for devices and FIFOs, others refused); "-" is
 * standard output. */
int write_output(const char *path, const char *data, size_t len)
{
	if (!path || !strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
			fprintf(stderr, "wasp: cannot write standard output: "
				"%s\n", strerror(errno));
			return EXIT_INTERNAL;
		}
		return 0;
	}
	wasp_error err;
	memset(&err, 0, sizeof err);
	if (wo_write(path, data, len, &err))
		return report(&err);
	return 0;
}

/* Fail before a long solve, not after it, when -o cannot be written
 * (write_output still handles every error; this is only early). */
int check_output_path(const char *path)
{
	wasp_error err;
	if (!path || !strcmp(path, "-"))
		return 0;
	memset(&err, 0, sizeof err);
	return wo_check(path, &err) ? report(&err) : 0;
}

/* ------------------------------------------------------------ signals */

/* Signals seen by on_signal (a lock-free atomic: safe in a handler). */
static atomic_int signals_seen;

/* The first SIGINT or SIGTERM asks the solver to stop and keep its
 * best plan; the handler then restores the default action of both, so
 * that a second signal of either kind ends the command at once.  The
 * solver has threads: a second signal can reach another thread while
 * the first handler runs, before the default is back; that handler
 * ends the command itself (the signal, blocked in the handler, acts
 * with its default action as the handler returns). */
static void on_signal(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, NULL);  /* async-signal-safe */
	sigaction(SIGTERM, &dfl, NULL);
	if (atomic_fetch_add(&signals_seen, 1) > 0) {
		raise(sig);
		return;
	}
	first_signal = sig;
	cancel_flag = 1;
}

static void install_cancel_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* ------------------------------------------------------------ commands */

/* With --max-memory: input beyond its share is refused unread, and the
 * data segment is capped (RLIMIT_DATA), so that an allocation fails
 * cleanly rather than the kernel killing us; the library keeps greedy's
 * plan when that happens after greedy (doc/library.md). */
static void limit_memory(int threads)
{
	struct rlimit rl, st;
	if (!max_memory || getrlimit(RLIMIT_DATA, &rl))
		return;
	/* Linux counts thread stacks in RLIMIT_DATA: left out of SIZE, or
	 * the OpenMP runtime cannot start its threads and exits */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = threads > 0 ? (size_t)threads : ncpu > 0 ? (size_t)ncpu : 1;
	size_t stack = 8u << 20;
	if (!getrlimit(RLIMIT_STACK, &st) && st.rlim_cur != RLIM_INFINITY &&
	    st.rlim_cur > stack)
		stack = st.rlim_cur;
	size_t cap = max_memory;
	if (n <= (SIZE_MAX - cap) / stack)
		cap += n * stack;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > cap)
		rl.rlim_cur = cap;
	(void)setrlimit(RLIMIT_DATA, &rl);
}

/* o: the run's options (time limit, cancel) for the load, or NULL. */
static int load_snapshot_within(char **paths, int n, int quiet,
				const wasp_options *o, wasp_snapshot **s)
{
	wasp_error err;
	memset(&err, 0, sizeof err);
	if (wasp_snapshot_load_limited(s, (const char *const *)paths,
				       (size_t)n, o,
				       max_memory / WASP_MEMORY_PER_INPUT_BYTE,
				       &err) != WASP_OK) {
		*s = NULL;
		return report(&err);
	}
	print_warnings(*s, quiet);
	return 0;
}

int load_snapshot(char **paths, int n, int quiet, wasp_snapshot **s)
{
	return load_snapshot_within(paths, n, quiet, NULL, s);
}

int load_plan_snapshot(const char *plan_path, char **paths, int n,
		       int quiet, wasp_plan **p, wasp_snapshot **s)
{
	int rc = load_snapshot(paths, n, quiet, s);
	if (rc)
		return rc;
	wasp_error err;
	memset(&err, 0, sizeof err);
	if (wasp_plan_load(p, plan_path, &err) != WASP_OK) {
		wasp_snapshot_free(*s);
		*s = NULL;
		return report(&err);
	}
	return 0;
}

/* Where `wasp plan` puts its plan; filled by emit_plan. */
typedef struct plan_out {
	const wasp_snapshot *s; /* for the HTML report */
	int format;
	const char *out;
	bool done;              /* emit_plan ran          */
	int rc;                 /* its exit status        */
} plan_out;

/* Render the plan and write it out (atomically for a file). */
static void emit_plan(const wasp_plan *p, plan_out *po)
{
	wasp_error err;
	memset(&err, 0, sizeof err);
	po->done = true;
	char *text = po->format == WASP_FORMAT_HTML
			 ? wasp_report_html(po->s, p, 0, &err)
			 : wasp_plan_render(p, po->format, &err);
	if (!text) {
		po->rc = report(&err);
		return;
	}
	po->rc = write_output(po->out, text, strlen(text));
	wasp_free(text);
}

/* wasp_options.plan_ready: the plan is written as soon as it is made,
 * before the library frees what a cancelled ILP left (doc/library.md,
 * "Time limits and cancelling"). */
static void on_plan_ready(const wasp_plan *p, void *ctx)
{
	emit_plan(p, ctx);
}

static int cmd_plan(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    PLAN_LONG_OPTIONS,
	    {NULL, 0, NULL, 0}};
	const char *cmd = "plan";
	wasp_options o;
	int format = WASP_FORMAT_JSON, quiet = 0, c, rc;
	const char *out = NULL;

	wasp_options_init(&o);
	getopt_reset();
	while ((c = getopt_long(argc, argv, "f:o:" PLAN_SHORT_OPTIONS, longs,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				format = WASP_FORMAT_JSON;
			else if (!strcmp(optarg, "yaml"))
				format = WASP_FORMAT_YAML;
			else if (!strcmp(optarg, "text"))
				format = WASP_FORMAT_TEXT;
			else if (!strcmp(optarg, "html"))
				format = WASP_FORMAT_HTML;
			else
				return usage_error(cmd, "invalid --format '%s' "
						   "(expected json, yaml, text "
						   "or html)", optarg);
			continue;
		case 'o':
			out = optarg;
			continue;
		case 'h':
			fputs(plan_help, stdout);
			return 0;
		case '?':
			return try_help(cmd);
		}
		rc = plan_option(cmd, c, optarg, &o, &quiet);
		if (rc < 0)
			return -rc;
		if (rc == 0)
			return try_help(cmd);
	}
	if (optind >= argc)
		return usage_error(cmd, "no snapshot FILE given (use \"-\" "
				   "for standard input)");
	if ((rc = check_stdin_once(cmd, argv + optind, argc - optind, NULL)))
		return rc;

	if ((rc = check_output_path(out)))
		return rc;
	o.start_time = start_time;
	o.cancel = &cancel_flag;
	plan_out po = {NULL, format, out, false, 0};
	o.plan_ready = on_plan_ready; /* written before the clean-up */
	o.plan_ready_ctx = &po;
	o.max_memory = max_memory; /* the library's share of the ILP */
	if (cli_progress_wanted(quiet))
		o.progress = cli_progress;
	install_cancel_handler();

	/* a text report on standard output lists the warnings itself:
	 * each once */
	bool report_warns = format == WASP_FORMAT_TEXT &&
			    (!out || !strcmp(out, "-"));
	wasp_snapshot *s;
	limit_memory(o.threads);
	if ((rc = load_snapshot_within(argv + optind, argc - optind,
					  quiet || report_warns, &o, &s))) {
		/* a signal while reading: nothing was planned, nothing is
		 * written; end by that signal, as an interrupted command
		 * should (its handler is the default by now) */
		if (cancel_flag)
			raise(first_signal);
		return rc;
	}
	po.s = s;

	wasp_error err;
	wasp_plan *p = NULL;
	memset(&err, 0, sizeof err);
	rc = wasp_solve(s, &o, &p, &err);
	cli_progress_done();
	if (rc != WASP_OK && !(rc == WASP_ECANCELED && p)) {
		wasp_plan_free(p);
		wasp_snapshot_free(s);
		return report(&err);
	}
	if (!po.done)
		emit_plan(p, &po);
	rc = po.rc;
	if (!rc && !quiet && out && strcmp(out, "-")) {
		wasp_plan_stats st;
		wasp_plan_stats_get(p, &st);
		char line[PATH_MAX + 160];
		snprintf(line, sizeof line, "wrote %s: %zu pods placed, %zu "
			 "groups admitted, %zu waiting (%s)", out,
			 st.placed_pods, st.admitted_groups, st.waiting_groups,
			 st.status ? st.status : "?");
		put_line(stderr, "wasp: ", line);
	}
	if (!rc && cancel_flag && !quiet)
		fprintf(stderr, "wasp: interrupted: wrote the best plan found "
			"so far\n");
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"plan", required_argument, NULL, 'p'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	const char *cmd = "check", *plan_path = NULL;
	int quiet = 0, c, rc;

	getopt_reset();
	while ((c = getopt_long(argc, argv, "p:qh", longs, NULL)) != -1) {
		switch (c) {
		case 'p':
			plan_path = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(check_help, stdout);
			return 0;
		default:
			return try_help(cmd);
		}
	}
	if (!plan_path)
		return usage_error(cmd, "no --plan PLAN given");
	if (optind >= argc)
		return usage_error(cmd, "no snapshot FILE given");
	if ((rc = check_stdin_once(cmd, argv + optind, argc - optind,
				   plan_path)))
		return rc;

	wasp_snapshot *s;
	wasp_plan *p;
	if ((rc = load_plan_snapshot(plan_path, argv + optind, argc - optind,
				     quiet, &p, &s)))
		return rc;
	wasp_error err;
	memset(&err, 0, sizeof err);
	size_t nviol = 0;
	char *rep = NULL;
	if (wasp_check(s, p, &nviol, &rep, &err) != WASP_OK) {
		wasp_free(rep);
		wasp_plan_free(p);
		wasp_snapshot_free(s);
		return report(&err);
	}
	wasp_plan_stats st;
	wasp_plan_stats_get(p, &st);
	if (nviol == 0) {
		printf("plan is valid: %zu placements checked\n",
		       st.placed_pods);
		rc = EXIT_VALID;
	} else {
		if (rep && *rep) {
			fputs(rep, stdout);
			if (rep[strlen(rep) - 1] != '\n')
				putchar('\n');
		}
		printf("plan is invalid: %zu violation%s\n", nviol,
		       nviol == 1 ? "" : "s");
		rc = EXIT_VIOLATIONS;
	}
	if (fflush(stdout)) {
		fprintf(stderr, "wasp: cannot write standard output: %s\n",
			strerror(errno));
		rc = EXIT_INTERNAL;
	}
	wasp_free(rep);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	return rc;
}

static int cmd_gen(int argc, char **argv)
{
	/* Generator options by name: their ranges live in the library
	 * (wasp_gen_option_set), shared with the bench harness. */
	static const char *const names[] = {
	    "seed", "levels", "fanout", "nodes", "gpus", "busy", "gangs",
	    "max-gang", "priorities", "family", "rack-nodes", "cpu-nodes",
	    "services", "lone-pods", "trees", "running-pods",
	    "running-groups"};
	enum { NNAMES = sizeof names / sizeof names[0], OPT_GEN = 512 };
	struct option longs[NNAMES + 6];
	const char *cmd = "gen", *out = NULL;
	wasp_gen_options g;
	wasp_error err;
	int c, rc = 0;

	for (int i = 0; i < NNAMES; i++)
		longs[i] = (struct option){names[i], required_argument, NULL,
					   OPT_GEN + i};
	longs[NNAMES] = (struct option){"json", no_argument, NULL, OPT_JSON};
	longs[NNAMES + 1] = (struct option){"output", required_argument, NULL,
					    'o'};
	longs[NNAMES + 2] = (struct option){"help", no_argument, NULL, 'h'};
	longs[NNAMES + 3] = (struct option){"dra", no_argument, NULL, OPT_DRA};
	longs[NNAMES + 4] = (struct option){"preemptible", no_argument, NULL,
					    OPT_PREEMPTIBLE};
	longs[NNAMES + 5] = (struct option){NULL, 0, NULL, 0};
	wasp_gen_options_init(&g);
	memset(&err, 0, sizeof err);
	getopt_reset();
	while ((c = getopt_long(argc, argv, "s:o:h", longs, NULL)) != -1) {
		if (c == 's' || (c >= OPT_GEN && c < OPT_GEN + NNAMES)) {
			const char *name = c == 's' ? "seed" : names[c - OPT_GEN];
			if (wasp_gen_option_set(&g, name, optarg, &err))
				return usage_error(cmd, "%s", err.msg);
			continue;
		}
		switch (c) {
		case OPT_JSON:
			g.json = 1;
			break;
		case OPT_DRA:
			g.dra = 1;
			break;
		case OPT_PREEMPTIBLE:
			if (wasp_gen_option_set(&g, "preemptible", "1", &err))
				return usage_error(cmd, "%s", err.msg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(gen_help, stdout);
			return 0;
		default:
			return try_help(cmd);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	char *text = wasp_gen(&g, &err);
	if (!text)
		return report(&err);
	rc = write_output(out, text, strlen(text));
	wasp_free(text);
	return rc;
}

static int cmd_export(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"lp", required_argument, NULL, OPT_LP},
	    {"mps", required_argument, NULL, OPT_MPS},
	    {"dat", required_argument, NULL, OPT_DAT},
	    {"top-tier", no_argument, NULL, OPT_TOP_TIER},
	    PLAN_LONG_OPTIONS,
	    {NULL, 0, NULL, 0}};
	const char *cmd = "export", *path = NULL;
	wasp_options o;
	int quiet = 0, format = -1, c, rc;

	wasp_options_init(&o);
	getopt_reset();
	while ((c = getopt_long(argc, argv, PLAN_SHORT_OPTIONS, longs,
				NULL)) != -1) {
		switch (c) {
		case OPT_LP:
		case OPT_MPS:
		case OPT_DAT:
			if (path)
				return usage_error(cmd, "give only one of "
						   "--lp, --mps and --dat");
			path = optarg;
			format = c == OPT_LP    ? WASP_EXPORT_LP
				 : c == OPT_MPS ? WASP_EXPORT_MPS
						: WASP_EXPORT_DAT;
			continue;
		case OPT_TOP_TIER:
			o.export_top_tier = 1;
			continue;
		case 'h':
			fputs(export_help, stdout);
			return 0;
		case '?':
			return try_help(cmd);
		}
		rc = plan_option(cmd, c, optarg, &o, &quiet);
		if (rc < 0)
			return -rc;
		if (rc == 0)
			return try_help(cmd);
	}
	if (!path)
		return usage_error(cmd, "give one of --lp FILE, --mps FILE or "
				   "--dat FILE");
	if (optind >= argc)
		return usage_error(cmd, "no snapshot FILE given");
	if ((rc = check_stdin_once(cmd, argv + optind, argc - optind, NULL)))
		return rc;
	o.start_time = start_time;

	wasp_snapshot *s;
	limit_memory(o.threads);
	if ((rc = load_snapshot_within(argv + optind, argc - optind, quiet, &o,
					  &s)))
		return rc;
	wasp_error err;
	memset(&err, 0, sizeof err);
	rc = wasp_export(s, &o, format, path, &err);
	wasp_snapshot_free(s);
	return rc == WASP_OK ? 0 : report(&err);
}

/* ------------------------------------------------------------ main */

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *help;
} commands[] = {
    {"plan", cmd_plan, plan_help},
    {"check", cmd_check, check_help},
    {"gen", cmd_gen, gen_help},
    {"export", cmd_export, export_help},
    {"bench", cmd_bench, bench_help},
    {"report", cmd_report, report_help},
    {"serve", cmd_serve, serve_help},
    {"snapshot", cmd_snapshot, snapshot_help},
    {"apply", cmd_apply, apply_help},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	start_time = wasp_now();

	if (argc < 2) {
		fputs(main_help, stderr);
		return EXIT_INPUT;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		fputs(main_help, stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		print_version();
		return 0;
	}
	if (!strcmp(name, "help")) {
		if (argc < 3) {
			fputs(main_help, stdout);
			return 0;
		}
		int k = find_command(argv[2]);
		if (k < 0)
			return usage_error(NULL, "unknown command '%s'",
					   argv[2]);
		fputs(commands[k].help, stdout);
		return 0;
	}
	if (name[0] == '-')
		return usage_error(NULL, "unrecognized option '%s' (options "
				   "follow the command)", name);
	int k = find_command(name);
	if (k < 0)
		return usage_error(NULL, "unknown command '%s'", name);

	/* argv[0] of the sub-vector names the command in getopt's messages */
	char prog[32];
	snprintf(prog, sizeof prog, "wasp %s", name);
	argv[1] = prog;
	return commands[k].run(argc - 1, argv + 1);
}
