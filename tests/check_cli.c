/*
 * check_cli.c -- end-to-end tests of the wasp command.
 *
 * Runs $WASP_BIN (fork/exec, working directory $WASP_SRCDIR, so error
 * positions read "tests/fixtures/bad/x.yaml:3:7:") with its output in a
 * fresh temporary directory per test.  Every plan the command writes is
 * checked twice: by `wasp check` (exit 0) and, where a test looks inside
 * it, by loading it back with wasp_plan_load.
 *
 * Bad-input corpus: every file in tests/fixtures/bad/ must exit 2 (never
 * a signal) with stderr starting "tests/fixtures/bad/FILE:LINE:COL:" and
 * containing a substring; the expectation is the file's first line,
 * "# expect: LINE:COL substring", or for JSON a sidecar FILE.expect with
 * "LINE:COL substring".
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define MAX_ARGS 64
#define MAX_FILES 256

static char wasp_bin[4096];
static char srcdir[4096];
static char tmpdir[4096];

static char *bad_files[MAX_FILES];
static int nbad;
static char *examples[MAX_FILES];
static int nexamples;

/* ------------------------------------------------------------ helpers */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 4096 + 1 > cap)
			buf = realloc(buf, cap *= 2);
		size_t k = fread(buf + n, 1, 4096, f);
		n += k;
		if (k < 4096)
			break;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static void write_all(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static const char *tmp_path(const char *name)
{
	static char buf[8][8192];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

static const char *src_path(const char *rel)
{
	static char buf[8][8192];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", srcdir, rel);
	return buf[k];
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Entries of the temporary directory other than the ones we made for
 * the command's stdout/stderr. */
static int tmp_entries(char names[][256], int max)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;
	ck_assert(d != NULL);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strncmp(e->d_name, "run.", 4))
			continue;
		if (n < max)
			snprintf(names[n], 256, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/wasp-cli-XXXXXX");
	ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char p[8192];
			snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
	}
	closedir(d);
	rmdir(tmpdir);
}

typedef struct run_result {
	int status;   /* exit status; 128 + signal if killed */
	int signaled;
	char *out, *err;
	double secs;
} run_result;

static void rr_free(run_result *r)
{
	free(r->out);
	free(r->err);
}

static pid_t spawn(const char *in, char **argv)
{
	char out[8192], err[8192];
	snprintf(out, sizeof out, "%s/run.out", tmpdir);
	snprintf(err, sizeof err, "%s/run.err", tmpdir);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		int fd;
		if (chdir(srcdir))
			_exit(126);
		fd = open(in ? in : "/dev/null", O_RDONLY);
		if (fd < 0)
			_exit(126);
		dup2(fd, 0);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		execv(wasp_bin, argv);
		_exit(127);
	}
	return pid;
}

static run_result finish(pid_t pid, double t0)
{
	run_result r;
	int st;
	memset(&r, 0, sizeof r);
	while (waitpid(pid, &st, 0) < 0)
		ck_assert(errno == EINTR);
	r.secs = now() - t0;
	r.signaled = WIFSIGNALED(st);
	r.status = r.signaled ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	char path[8192];
	snprintf(path, sizeof path, "%s/run.out", tmpdir);
	r.out = read_all(path, NULL);
	snprintf(path, sizeof path, "%s/run.err", tmpdir);
	r.err = read_all(path, NULL);
	if (!r.out)
		r.out = strdup("");
	if (!r.err)
		r.err = strdup("");
	return r;
}

/* Run wasp with the arguments (NULL-terminated), stdin from `in` (NULL:
 * /dev/null), in $WASP_SRCDIR. */
static run_result run_in(const char *in, ...)
{
	char *argv[MAX_ARGS];
	int n = 0;
	va_list ap;
	argv[n++] = "wasp";
	va_start(ap, in);
	while (n < MAX_ARGS - 1 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	double t0 = now();
	pid_t pid = spawn(in, argv);
	return finish(pid, t0);
}
#define run(...) run_in(NULL, __VA_ARGS__, (char *)NULL)

static void expect_status(const run_result *r, int want, const char *what)
{
	ck_assert_msg(!r->signaled, "%s: killed by signal %d\nstderr: %s",
		      what, r->status - 128, r->err);
	ck_assert_msg(r->status == want,
		      "%s: exit %d, expected %d\nstderr: %s", what, r->status,
		      want, r->err);
}

/* `wasp check SNAPSHOT --plan PLAN` must say the plan is valid. */
static void expect_valid(const char *snapshot, const char *plan)
{
	run_result r = run("check", "-q", "--plan", (char *)plan,
			   (char *)snapshot);
	expect_status(&r, 0, "wasp check");
	ck_assert_msg(strstr(r.out, "plan is valid:") != NULL, "stdout: %s",
		      r.out);
	rr_free(&r);
}

static wasp_plan *load_plan(const char *path)
{
	wasp_plan *p = NULL;
	wasp_error err;
	int rc = wasp_plan_load(&p, path, &err);
	char buf[1024];
	ck_assert_msg(rc == WASP_OK, "plan %s does not load: %s", path,
		      wasp_error_format(&err, buf, sizeof buf));
	return p;
}

static int count_lines_with(const char *text, const char *prefix)
{
	int n = 0;
	for (const char *l = text; *l;) {
		if (!strncmp(l, prefix, strlen(prefix)))
			n++;
		const char *nl = strchr(l, '\n');
		if (!nl)
			break;
		l = nl + 1;
	}
	return n;
}

/* Is the ILP solver built?  (Before it lands, --mode ilp reports "not
 * built" with exit 3.) */
static int ilp_available(void)
{
	run_result r = run("plan", "-q", "--mode", "ilp", "--time-limit",
			   "5", "models/examples/gpu16.yaml");
	int ok = r.status == 0;
	rr_free(&r);
	return ok;
}

/* ------------------------------------------------------------ help */

START_TEST(test_help_and_version)
{
	static const char *const cmds[] = {"plan", "check", "gen", "export",
					   "bench"};
	run_result r = run("--help");
	expect_status(&r, 0, "wasp --help");
	ck_assert(strstr(r.out, "Usage: wasp COMMAND") != NULL);
	for (size_t i = 0; i < 5; i++)
		ck_assert(strstr(r.out, cmds[i]) != NULL);
	rr_free(&r);

	r = run("--version");
	expect_status(&r, 0, "wasp --version");
	ck_assert_msg(!strncmp(r.out, "wasp " WASP_VERSION "\n",
			       strlen("wasp " WASP_VERSION "\n")),
		      "version: %s", r.out);
	ck_assert(strstr(r.out, "GPL-3.0-or-later") != NULL);
	rr_free(&r);

	for (size_t i = 0; i < 5; i++) {
		char want[64];
		snprintf(want, sizeof want, "Usage: wasp %s", cmds[i]);
		r = run((char *)cmds[i], "--help");
		expect_status(&r, 0, cmds[i]);
		ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
		ck_assert_str_eq(r.err, "");
		rr_free(&r);
		r = run("help", (char *)cmds[i]);
		expect_status(&r, 0, cmds[i]);
		ck_assert_msg(strstr(r.out, want) != NULL, "%s", r.out);
		rr_free(&r);
	}
	/* every plan option is documented in plan --help */
	r = run("plan", "-h");
	static const char *const opts[] = {
	    "--format", "--output", "--mode", "--time-limit", "--gap",
	    "--threads", "--domain", "--value", "--quiet"};
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
		ck_assert_msg(strstr(r.out, opts[i]) != NULL, "%s", opts[i]);
	rr_free(&r);
}
END_TEST

START_TEST(test_usage_errors)
{
	static const char *const cases[][6] = {
	    {"plan", "--bogus", "models/examples/gpu16.yaml"},
	    {"frobnicate"},
	    {"--bogus"},
	    {"plan"},
	    {"plan", "--format", "xml", "models/examples/gpu16.yaml"},
	    {"plan", "--mode", "fast", "models/examples/gpu16.yaml"},
	    {"plan", "--time-limit", "soon", "models/examples/gpu16.yaml"},
	    {"plan", "--time-limit", "-1", "models/examples/gpu16.yaml"},
	    {"plan", "--gap", "x", "models/examples/gpu16.yaml"},
	    {"plan", "--gap", "2", "models/examples/gpu16.yaml"},
	    {"plan", "--threads", "-3", "models/examples/gpu16.yaml"},
	    {"plan", "--domain", "tree", "models/examples/gpu16.yaml"},
	    {"plan", "-", "-"},
	    {"check", "models/examples/gpu16.yaml"},
	    {"check", "--plan", "x.json"},
	    {"gen", "--levels", "4"},
	    {"gen", "--busy", "1.5"},
	    {"gen", "--nodes", "0"},
	    {"gen", "extra"},
	    {"export", "models/examples/gpu16.yaml"},
	    {"export", "--lp", "a", "--mps", "b",
	     "models/examples/gpu16.yaml"},
	    {"help", "nothing"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[8] = {"wasp"};
		int n = 1;
		for (int k = 0; k < 6 && cases[i][k]; k++)
			argv[n++] = (char *)cases[i][k];
		argv[n] = NULL;
		double t0 = now();
		run_result r = finish(spawn(NULL, argv), t0);
		expect_status(&r, 2, cases[i][0]);
		ck_assert_msg(strstr(r.err, "wasp") != NULL &&
				  strstr(r.err, "--help") != NULL,
			      "case %zu: stderr: %s", i, r.err);
		ck_assert_str_eq(r.out, "");
		rr_free(&r);
	}
	/* no arguments at all: the usage, on stderr */
	char *argv[] = {"wasp", NULL};
	run_result r = finish(spawn(NULL, argv), now());
	expect_status(&r, 2, "wasp");
	ck_assert(strstr(r.err, "Usage: wasp") != NULL);
	rr_free(&r);
}
END_TEST

/* ------------------------------------------------------------ examples */

START_TEST(test_example_plans_check)
{
	const char *ex = examples[_i];
	const char *json = tmp_path("plan.json");
	const char *yaml = tmp_path("plan.yaml");

	run_result r = run("plan", "-q", "--time-limit", "30", "-o",
			   (char *)json, (char *)ex);
	expect_status(&r, 0, ex);
	ck_assert_str_eq(r.err, "");
	rr_free(&r);
	expect_valid(ex, json);
	wasp_plan *p = load_plan(json);
	wasp_plan_stats st;
	wasp_plan_stats_get(p, &st);
	ck_assert_msg(st.placed_pods > 0, "%s: nothing placed", ex);
	wasp_plan_free(p);

	/* JSON on stdout */
	r = run("plan", "-q", "--time-limit", "30", (char *)ex);
	expect_status(&r, 0, ex);
	char *file = read_all(json, NULL);
	ck_assert(file != NULL);
	ck_assert_msg(r.out[0] == '{', "json starts with %.20s", r.out);
	free(file);
	rr_free(&r);

	r = run("plan", "-q", "--time-limit", "30", "--format", "yaml", "-o",
		(char *)yaml, (char *)ex);
	expect_status(&r, 0, ex);
	rr_free(&r);
	expect_valid(ex, yaml);

	r = run("plan", "-q", "--time-limit", "30", "--format", "text",
		(char *)ex);
	expect_status(&r, 0, ex);
	ck_assert_msg(strlen(r.out) > 40, "text report: %s", r.out);
	rr_free(&r);
}
END_TEST

/* The story models/examples/gpu16.yaml tells (see its header). */
START_TEST(test_gpu16_outcome)
{
	const char *ex = "models/examples/gpu16.yaml";
	const char *json = tmp_path("plan.json");
	const char *mode = _i == 0 ? "greedy" : "ilp";

	if (_i == 1 && !ilp_available()) {
		fprintf(stderr, "check_cli: ILP not built, skipping ilp "
			"outcome\n");
		return;
	}
	run_result r = run("plan", "-q", "--mode", (char *)mode,
			   "--time-limit", "20", "-o", (char *)json,
			   (char *)ex);
	expect_status(&r, 0, mode);
	rr_free(&r);
	expect_valid(ex, json);
	wasp_plan *p = load_plan(json);

	/* llm-pretrain: both pods in one tight rack, never r2 */
	const char *a = tu_node_of(p, "ml", "llm-pretrain-0");
	const char *b = tu_node_of(p, "ml", "llm-pretrain-1");
	ck_assert_msg(a && b, "llm-pretrain not placed");
	int ra = atoi(a + 4), rb = atoi(b + 4); /* gpu-NN */
	ck_assert_int_eq((ra - 1) / 4, (rb - 1) / 4);
	ck_assert_msg((ra - 1) / 4 != 1, "llm-pretrain took r2 (%s)", a);
	ck_assert_msg((ra - 1) / 4 != 2, "llm-pretrain in r3 (%s)", a);

	/* finetune: admitted, on r2's three whole free nodes */
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "finetune"), 3);
	for (int k = 0; k < 3; k++) {
		char pod[32];
		snprintf(pod, sizeof pod, "finetune-%d", k);
		const char *n = tu_node_of(p, "ml", pod);
		ck_assert_msg(n && (!strcmp(n, "gpu-05") ||
				    !strcmp(n, "gpu-06") ||
				    !strcmp(n, "gpu-07")),
			      "%s on %s", pod, n ? n : "(nothing)");
	}

	/* batch-eval: waits, with a reason */
	ck_assert_int_eq(tu_placed_in_group(p, "ml", "batch-eval"), 0);
	const char *why = tu_wait_reason(p, "ml", "batch-eval");
	ck_assert_msg(why && *why, "batch-eval waits without a reason");
	ck_assert(tu_wait_reason(p, "ml", "finetune") == NULL);
	wasp_plan_free(p);

	r = run("plan", "-q", "--mode", (char *)mode, "--format", "text",
		(char *)ex);
	expect_status(&r, 0, "text");
	ck_assert(strstr(r.out, "batch-eval") != NULL);
	rr_free(&r);
}
END_TEST

START_TEST(test_stdin_and_json_input)
{
	const char *json = tmp_path("plan.json");
	const char *snap = tmp_path("snap.json");

	run_result r = run_in(src_path("models/examples/gpu16.yaml"), "plan",
			      "-q", "-o", json, "-", (char *)NULL);
	expect_status(&r, 0, "plan -");
	rr_free(&r);
	expect_valid("models/examples/gpu16.yaml", json);

	/* the same cluster as a kubectl JSON List */
	r = run("gen", "--seed", "3", "--json", "-o", (char *)snap);
	expect_status(&r, 0, "gen --json");
	rr_free(&r);
	char *text = read_all(snap, NULL);
	ck_assert(text && !strncmp(text, "{\n  \"apiVersion\": \"v1\",\n  "
				   "\"kind\": \"List\"", 40));
	free(text);
	r = run("plan", "-q", "--mode", "greedy", "-o", (char *)json,
		(char *)snap);
	expect_status(&r, 0, "plan json");
	rr_free(&r);
	expect_valid(snap, json);
}
END_TEST

/* ------------------------------------------------------------ output */

START_TEST(test_output_atomic)
{
	const char *out = tmp_path("out.json");
	char names[16][256];

	run_result r = run("plan", "-q", "-o", (char *)out,
			   "models/examples/gpu16.yaml");
	expect_status(&r, 0, "plan -o");
	ck_assert_str_eq(r.out, "");
	rr_free(&r);
	ck_assert_int_eq(tmp_entries(names, 16), 1);
	ck_assert_str_eq(names[0], "out.json");
	wasp_plan_free(load_plan(out));
	struct stat st;
	ck_assert(stat(out, &st) == 0);
	mode_t mask = umask(0);
	umask(mask);
	ck_assert_msg((st.st_mode & 0777) == (0666 & ~mask), "mode %o",
		      st.st_mode & 0777);

	/* bad input: no file, no temporary file; an old file is kept */
	const char *fresh = tmp_path("fresh.json");
	r = run("plan", "-o", (char *)fresh,
		"tests/fixtures/bad/quantity-negative.yaml");
	expect_status(&r, 2, "bad input");
	rr_free(&r);
	ck_assert(!file_exists(fresh));
	write_all(out, "old\n");
	r = run("plan", "-o", (char *)out,
		"tests/fixtures/bad/yaml-unclosed-flow.yaml");
	expect_status(&r, 2, "bad input over an old file");
	rr_free(&r);
	char *old = read_all(out, NULL);
	ck_assert_str_eq(old, "old\n");
	free(old);
	ck_assert_int_eq(tmp_entries(names, 16), 1);

	/* unreadable input: exit 3, nothing written */
	r = run("plan", "-o", (char *)fresh, "no/such/file.yaml");
	expect_status(&r, 3, "missing input");
	ck_assert(strstr(r.err, "no/such/file.yaml") != NULL);
	rr_free(&r);
	ck_assert(!file_exists(fresh));

	/* unwritable target: exit 3, no stray file */
	r = run("plan", "-q", "-o", (char *)tmp_path("no-dir/x.json"),
		"models/examples/gpu16.yaml");
	expect_status(&r, 3, "bad directory");
	rr_free(&r);
	r = run("plan", "-q", "-o", (char *)tmpdir,
		"models/examples/gpu16.yaml");
	expect_status(&r, 2, "directory as target");
	rr_free(&r);
	ck_assert_int_eq(tmp_entries(names, 16), 1);

	/* gen -o too */
	const char *g = tmp_path("gen.yaml");
	r = run("gen", "--seed", "5", "-o", (char *)g);
	expect_status(&r, 0, "gen -o");
	rr_free(&r);
	ck_assert(file_exists(g));
	ck_assert_int_eq(tmp_entries(names, 16), 2);
}
END_TEST

/* ------------------------------------------------------------ check */

/* The plan options reach the library: the summary records them, and the
 * answer does not depend on the thread count. */
START_TEST(test_plan_options)
{
	const char *ex = "models/examples/gpu64-4level.yaml";
	const char *a = tmp_path("a.json"), *b = tmp_path("b.json");

	run_result r = run("plan", "-q", "--domain", "path", "--value",
			   "nvidia.com/gpu", "--gap", "0.05", "--threads", "2",
			   "--time-limit", "20", "-o", (char *)a, (char *)ex);
	expect_status(&r, 0, "plan with options");
	rr_free(&r);
	expect_valid(ex, a);
	wasp_plan *p = load_plan(a);
	ck_assert_str_eq(p->sum.domain_mode, "path");
	ck_assert_str_eq(p->sum.value, "nvidia.com/gpu");
	wasp_plan_free(p);

	r = run("plan", "-q", "--mode", "greedy", "-j", "1", "-o", (char *)a,
		(char *)ex);
	expect_status(&r, 0, "-j 1");
	rr_free(&r);
	r = run("plan", "-q", "--mode", "greedy", "-j", "2", "-o", (char *)b,
		(char *)ex);
	expect_status(&r, 0, "-j 2");
	rr_free(&r);
	wasp_plan *p1 = load_plan(a), *p2 = load_plan(b);
	ck_assert_int_eq(p1->nplace, p2->nplace);
	for (int i = 0; i < p1->nplace; i++) {
		ck_assert_str_eq(p1->place[i].pod, p2->place[i].pod);
		ck_assert_str_eq(p1->place[i].node, p2->place[i].node);
	}
	ck_assert_int_eq(p1->nwait, p2->nwait);
	wasp_plan_free(p1);
	wasp_plan_free(p2);

	/* an unknown --value resource is refused, not silently ignored */
	r = run("plan", "-q", "--value", "example.com/no-such-resource",
		(char *)ex);
	ck_assert(!r.signaled);
	ck_assert_msg(r.status == 2, "exit %d: %s", r.status, r.err);
	rr_free(&r);
}
END_TEST

START_TEST(test_check_corrupted_plan)
{
	const char *ex = "models/examples/gpu16.yaml";
	const char *json = tmp_path("plan.json");
	const char *bad = tmp_path("bad.json");
	run_result r = run("plan", "-q", "--mode", "greedy", "-o",
			   (char *)json, (char *)ex);
	expect_status(&r, 0, "plan");
	rr_free(&r);

	/* move a placed pod onto gpu-04, which is full */
	wasp_plan *p = load_plan(json);
	ck_assert(p->nplace > 0);
	p->place[0].node = "gpu-04";
	wasp_error err;
	char *text = wasp_plan_render(p, WASP_FORMAT_JSON, &err);
	ck_assert(text != NULL);
	write_all(bad, text);
	wasp_free(text);
	wasp_plan_free(p);

	r = run("check", "--plan", (char *)bad, (char *)ex);
	expect_status(&r, 1, "check corrupted");
	ck_assert_msg(strstr(r.out, "gpu-04") != NULL, "report: %s", r.out);
	ck_assert(strstr(r.out, "plan is invalid") != NULL);
	rr_free(&r);

	/* a plan that is not a plan: bad input */
	write_all(bad, "{\"apiVersion\": \"wasp.dev/v1alpha1\",,}\n");
	r = run("check", "--plan", (char *)bad, (char *)ex);
	expect_status(&r, 2, "check malformed plan");
	ck_assert_msg(!strncmp(r.err, bad, strlen(bad)), "stderr: %s", r.err);
	rr_free(&r);
}
END_TEST

/* ------------------------------------------------------------ bad input */

/* Read "LINE:COL substring" for a fixture. */
static void fixture_expect(const char *name, int *line, int *col,
			   char *sub, size_t subsize)
{
	char rel[512], path[4096];
	snprintf(rel, sizeof rel, "tests/fixtures/bad/%s", name);
	char *text = read_all(src_path(rel), NULL);
	const char *spec = NULL;
	char *side = NULL;
	ck_assert_msg(text != NULL, "cannot read %s", rel);
	if (!strncmp(text, "# expect: ", 10)) {
		spec = text + 10;
	} else {
		snprintf(path, sizeof path, "%s.expect", src_path(rel));
		side = read_all(path, NULL);
		ck_assert_msg(side != NULL, "%s: no '# expect:' line and no "
			      ".expect file", rel);
		spec = side;
	}
	int used = 0;
	ck_assert_msg(sscanf(spec, "%d:%d %n", line, col, &used) == 2,
		      "%s: bad expectation", rel);
	size_t n = strcspn(spec + used, "\r\n");
	snprintf(sub, subsize, "%.*s", (int)n, spec + used);
	free(text);
	free(side);
}

START_TEST(test_bad_input)
{
	const char *name = bad_files[_i];
	int line, col;
	char sub[256], rel[512], want[600];
	fixture_expect(name, &line, &col, sub, sizeof sub);
	snprintf(rel, sizeof rel, "tests/fixtures/bad/%s", name);
	const char *out = tmp_path("plan.json");

	run_result r = run("plan", "-o", (char *)out, rel);
	ck_assert_msg(!r.signaled, "%s: killed by signal %d", name,
		      r.status - 128);
	ck_assert_msg(r.status == 2, "%s: exit %d, expected 2\nstderr: %s",
		      name, r.status, r.err);
	snprintf(want, sizeof want, "%s:%d:%d: ", rel, line, col);
	ck_assert_msg(!strncmp(r.err, want, strlen(want)),
		      "%s: stderr should start with '%s'\nstderr: %s", name,
		      want, r.err);
	const char *nl = strchr(r.err, '\n');
	size_t first = nl ? (size_t)(nl - r.err) : strlen(r.err);
	int found = 0;
	for (size_t k = 0; k + strlen(sub) <= first && !found; k++)
		found = !strncasecmp(r.err + k, sub, strlen(sub));
	ck_assert_msg(found, "%s: message lacks '%s'\nstderr: %s", name, sub,
		      r.err);
	ck_assert_msg(r.secs < 10, "%s: took %.1f s", name, r.secs);
	ck_assert_str_eq(r.out, "");
	rr_free(&r);
	ck_assert(!file_exists(out));
	char names[4][256];
	ck_assert_int_eq(tmp_entries(names, 4), 0);

	/* wasp check refuses it the same way */
	r = run("check", "--plan", "models/examples/gpu16.yaml", rel);
	ck_assert(!r.signaled);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(!strncmp(r.err, want, strlen(want)), "check: %s",
		      r.err);
	rr_free(&r);
}
END_TEST

START_TEST(test_missing_group_waits)
{
	const char *snap = "tests/fixtures/cli/missing-group.yaml";
	const char *json = tmp_path("plan.json");
	run_result r = run("plan", "-q", "-o", (char *)json, (char *)snap);
	expect_status(&r, 0, "missing PodGroup");
	rr_free(&r);
	expect_valid(snap, json);
	wasp_plan *p = load_plan(json);
	ck_assert(tu_node_of(p, "ml", "orphan-0") == NULL);
	ck_assert_str_eq(tu_node_of(p, "ml", "lone-0"), "gpu-01");
	wasp_plan_free(p);
	char *text = read_all(json, NULL);
	ck_assert_msg(strstr(text, "no-such-group") != NULL,
		      "the plan does not say why orphan-0 waits");
	free(text);
}
END_TEST

START_TEST(test_unknown_kinds_warn_once)
{
	const char *snap = "tests/fixtures/cli/unknown-kinds.yaml";
	run_result r = run("plan", (char *)snap);
	expect_status(&r, 0, "unknown kinds");
	ck_assert_msg(count_lines_with(r.err, "wasp: warning: ") == 3,
		      "stderr: %s", r.err);
	static const char *const kinds[] = {"ConfigMap", "Service",
					    "Deployment"};
	for (int i = 0; i < 3; i++) {
		const char *at = strstr(r.err, kinds[i]);
		ck_assert_msg(at != NULL, "no warning for %s", kinds[i]);
		ck_assert_msg(strstr(at + 1, kinds[i]) == NULL,
			      "two warnings for %s", kinds[i]);
	}
	rr_free(&r);

	r = run("plan", "--quiet", (char *)snap);
	expect_status(&r, 0, "unknown kinds -q");
	ck_assert_str_eq(r.err, "");
	rr_free(&r);
}
END_TEST

/* ------------------------------------------------------------ gen */

START_TEST(test_gen_deterministic)
{
	run_result a = run("gen", "--seed", "1");
	run_result b = run("gen", "--seed", "1");
	run_result c = run("gen", "--seed", "2");
	expect_status(&a, 0, "gen");
	expect_status(&b, 0, "gen");
	expect_status(&c, 0, "gen");
	ck_assert(strlen(a.out) > 1000);
	ck_assert_str_eq(a.out, b.out);
	ck_assert(strcmp(a.out, c.out) != 0);
	ck_assert(strstr(a.out, "kind: Topology") != NULL);
	ck_assert(strstr(a.out, "scheduling.k8s.io/v1beta1") != NULL);
	rr_free(&b);
	rr_free(&c);

	/* -o writes the same bytes, and the result plans and checks */
	const char *snap = tmp_path("gen.yaml");
	const char *json = tmp_path("plan.json");
	run_result r = run("gen", "--seed", "1", "-o", (char *)snap);
	expect_status(&r, 0, "gen -o");
	rr_free(&r);
	char *file = read_all(snap, NULL);
	ck_assert_str_eq(file, a.out);
	free(file);
	rr_free(&a);
	r = run("plan", "-q", "--mode", "greedy", "-o", (char *)json,
		(char *)snap);
	expect_status(&r, 0, "plan gen");
	rr_free(&r);
	expect_valid(snap, json);

	/* one level, three levels, no GPUs: all load and check */
	static const char *const shapes[][4] = {
	    {"--levels", "1", "--gpus", "4"},
	    {"--levels", "3", "--fanout", "2"},
	    {"--gpus", "0", "--busy", "0.9"}};
	for (int i = 0; i < 3; i++) {
		r = run("gen", "--seed", "9", (char *)shapes[i][0],
			(char *)shapes[i][1], (char *)shapes[i][2],
			(char *)shapes[i][3], "-o", (char *)snap);
		expect_status(&r, 0, shapes[i][1]);
		rr_free(&r);
		r = run("plan", "-q", "--mode", "greedy", "-o", (char *)json,
			(char *)snap);
		expect_status(&r, 0, "plan gen shape");
		rr_free(&r);
		expect_valid(snap, json);
	}
}
END_TEST

/* models/examples/gpu64-4level.yaml is `wasp gen` output; its first line
 * records the command, and running it again gives the same bytes. */
START_TEST(test_gen_example_regenerates)
{
	char *text = read_all(src_path("models/examples/gpu64-4level.yaml"),
			      NULL);
	ck_assert(text != NULL);
	ck_assert_msg(!strncmp(text, "# wasp gen ", 11), "first line: %.60s",
		      text);
	char line[512], *argv[MAX_ARGS];
	size_t n = strcspn(text, "\n");
	ck_assert(n < sizeof line);
	snprintf(line, sizeof line, "%.*s", (int)n - 7, text + 7);
	int argc = 0;
	argv[argc++] = "wasp";
	for (char *tok = strtok(line, " "); tok && argc < MAX_ARGS - 1;
	     tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	run_result r = finish(spawn(NULL, argv), now());
	expect_status(&r, 0, "regenerate gpu64-4level");
	ck_assert_msg(!strcmp(r.out, text), "gpu64-4level.yaml differs from "
		      "the output of its recorded command");
	rr_free(&r);
	free(text);
}
END_TEST

START_TEST(test_gen_large_is_fast)
{
	const char *snap = tmp_path("big.yaml");
	run_result r = run("gen", "--seed", "4", "--levels", "3", "--fanout",
			   "8", "--nodes", "10000", "--gangs", "7000",
			   "--max-gang", "32", "-o", (char *)snap);
	expect_status(&r, 0, "gen big");
	ck_assert_msg(r.secs < 5, "gen of 10,000 nodes took %.2f s", r.secs);
	rr_free(&r);
	char *text = read_all(snap, NULL);
	int pods = count_lines_with(text, "kind: Pod\n");
	int nodes = count_lines_with(text, "kind: Node\n");
	free(text);
	ck_assert_int_ge(nodes, 10000);
	ck_assert_int_ge(pods, 100000);
}
END_TEST

/* ------------------------------------------------------------ budget */

static void gen_instance(const char *path, const char *nodes,
			 const char *gangs)
{
	run_result r = run("gen", "--seed", "11", "--levels", "3",
			   "--fanout", "4", "--nodes", (char *)nodes,
			   "--gangs", (char *)gangs, "--max-gang", "32",
			   "--busy", "0.4", "-o", (char *)path);
	expect_status(&r, 0, "gen");
	rr_free(&r);
}

START_TEST(test_time_limit)
{
	const char *snap = tmp_path("mid.yaml");
	const char *json = tmp_path("plan.json");
	gen_instance(snap, "512", "200");
	run_result r = run("plan", "-q", "--time-limit", "3", "-o",
			   (char *)json, (char *)snap);
	expect_status(&r, 0, "plan --time-limit 3");
	ck_assert_msg(r.secs < 3 + 5, "a 3 s budget took %.1f s", r.secs);
	rr_free(&r);
	expect_valid(snap, json);
}
END_TEST

START_TEST(test_sigint_writes_best_plan)
{
	if (!ilp_available()) {
		fprintf(stderr, "check_cli: ILP not built, skipping the "
			"SIGINT test\n");
		return;
	}
	const char *snap = tmp_path("big.yaml");
	const char *json = tmp_path("plan.json");
	gen_instance(snap, "512", "200");
	/* the signal must come after the load (a signal while reading
	 * stops the load, with no plan): greedy's run, load included,
	 * times it on this machine now */
	run_result g = run("plan", "-q", "--mode", "greedy", "-o",
			   (char *)json, (char *)snap);
	expect_status(&g, 0, "greedy plan");
	double wait = g.secs > 0.25 ? 2 * g.secs : 0.5;
	rr_free(&g);
	char *argv[] = {"wasp", "plan", "-q", "--mode", "ilp",
			"--time-limit", "120", "-o", (char *)json,
			(char *)snap, NULL};
	double t0 = now();
	pid_t pid = spawn(NULL, argv);
	struct timespec half = {(time_t)wait,
				(long)((wait - (time_t)wait) * 1e9)};
	nanosleep(&half, NULL);
	kill(pid, SIGINT);
	run_result r = finish(pid, t0);
	expect_status(&r, 0, "plan after SIGINT");
	ck_assert_msg(r.secs < 60, "SIGINT took %.1f s to act", r.secs);
	rr_free(&r);
	expect_valid(snap, json);
}
END_TEST

/* ------------------------------------------------------------ export */

START_TEST(test_export)
{
	const char *ex = "models/examples/gpu16.yaml";
	const char *lp = tmp_path("m.lp"), *mps = tmp_path("m.mps");
	run_result r = run("export", "-q", "--lp", (char *)lp, (char *)ex);
	ck_assert(!r.signaled);
	if (r.status == 3) {
		/* the ILP writer has not landed: a clear error, no file */
		ck_assert_msg(strstr(r.err, "wasp: ") == r.err, "%s", r.err);
		ck_assert(!file_exists(lp));
		rr_free(&r);
		return;
	}
	expect_status(&r, 0, "export --lp");
	rr_free(&r);
	char *text = read_all(lp, NULL);
	ck_assert(text && strstr(text, "Subject To") != NULL);
	free(text);
	r = run("export", "-q", "--mps", (char *)mps, (char *)ex);
	expect_status(&r, 0, "export --mps");
	rr_free(&r);
	text = read_all(mps, NULL);
	ck_assert(text && strstr(text, "ROWS") != NULL);
	free(text);
	/* the top tier alone: every objective term counts one pod */
	const char *top = tmp_path("top.lp"), *dat = tmp_path("top.dat");
	r = run("export", "-q", "--top-tier", "--lp", (char *)top, (char *)ex);
	expect_status(&r, 0, "export --top-tier --lp");
	rr_free(&r);
	text = read_all(top, NULL);
	ck_assert(text != NULL);
	char *obj = strstr(text, "Maximize"), *end = strstr(text, "Subject To");
	ck_assert(obj && end && obj < end);
	*end = 0;
	ck_assert_msg(strstr(obj, "+ x(") != NULL, "objective: %.300s", obj);
	for (const char *q = obj; (q = strpbrk(q, "+-")); q++)
		ck_assert_msg(q[1] == ' ' && q[2] != '-' &&
				  (q[2] < '0' || q[2] > '9') && q[0] == '+',
			      "a term with a coefficient: %.60s", q);
	free(text);
	/* GMPL data has no objective to replace: a clear error, no file */
	r = run("export", "-q", "--top-tier", "--dat", (char *)dat,
		(char *)ex);
	ck_assert(!r.signaled);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, "top tier") != NULL, "%s", r.err);
	ck_assert(!file_exists(dat));
	rr_free(&r);
}
END_TEST

/* ------------------------------------------------------------ gen families */

/* One small instance per family: 2 levels, fanout 2, 4 racks. */
static const char *const families[] = {"gpu", "nvlink", "fragmented",
				       "mixed"};

static run_result gen_family(int f, const char *seed, const char *out,
			     int json)
{
	return run("gen", "--family", (char *)families[f], "--seed",
		   (char *)seed, "--levels", "2", "--fanout", "2", "--nodes",
		   "32", "--gangs", "8", "--busy", "0.5", "-o", (char *)out,
		   json ? "--json" : NULL);
}

/* Same options, same bytes; another seed, other bytes; YAML and JSON both
 * plan (greedy and auto) and the plans pass `wasp check`. */
START_TEST(test_gen_family_plans_check)
{
	const char *a = tmp_path("a.yaml"), *b = tmp_path("b.yaml");
	const char *c = tmp_path("c.yaml"), *j = tmp_path("a.json");
	const char *plan = tmp_path("plan.json");
	const char *fam = families[_i];
	run_result r = gen_family(_i, "7", a, 0);
	expect_status(&r, 0, fam);
	rr_free(&r);
	r = gen_family(_i, "7", b, 0);
	expect_status(&r, 0, fam);
	rr_free(&r);
	r = gen_family(_i, "8", c, 0);
	expect_status(&r, 0, fam);
	rr_free(&r);
	char *ta = read_all(a, NULL), *tb = read_all(b, NULL);
	char *tc = read_all(c, NULL);
	ck_assert_msg(!strcmp(ta, tb), "%s: not deterministic", fam);
	ck_assert_msg(strcmp(ta, tc) != 0, "%s: seed ignored", fam);
	/* the header is the whole command */
	ck_assert_msg(_i == 0 ? !strstr(ta, "--family")
			      : strstr(ta, families[_i]) != NULL,
		      "%s header: %.200s", fam, ta);
	free(tb);
	free(tc);

	r = gen_family(_i, "7", j, 1);
	expect_status(&r, 0, fam);
	rr_free(&r);
	const char *snaps[2] = {a, j};
	for (int s = 0; s < 2; s++) {
		r = run("plan", "-q", "--mode", "greedy", "-o", (char *)plan,
			(char *)snaps[s]);
		expect_status(&r, 0, fam);
		rr_free(&r);
		expect_valid(snaps[s], plan);
		wasp_plan *p = load_plan(plan);
		wasp_plan_stats st;
		wasp_plan_stats_get(p, &st);
		ck_assert_msg(st.placed_pods > 0, "%s: nothing placed", fam);
		wasp_plan_free(p);
	}
	r = run("plan", "-q", "--time-limit", "10", "-o", (char *)plan,
		(char *)a);
	expect_status(&r, 0, fam);
	rr_free(&r);
	expect_valid(a, plan);
	free(ta);
}
END_TEST

/* nvlink: 18 x 4-GPU nodes per rack; 32 nodes round up to one block of 2
 * racks (36 nodes); every pending gang asks a multiple of 4 GPUs, and the
 * rack constraint dominates. */
START_TEST(test_gen_nvlink_shape)
{
	const char *a = tmp_path("n.yaml");
	run_result r = gen_family(1, "3", a, 0);
	expect_status(&r, 0, "nvlink");
	rr_free(&r);
	char *t = read_all(a, NULL);
	ck_assert_int_eq(count_lines_with(t, "kind: Node\n"), 36);
	ck_assert_int_eq(count_lines_with(t, "    nvidia.com/gpu: \"4\"\n"),
			 2 * 36);
	ck_assert_int_eq(count_lines_with(t, "    example.com/rack: r1\n"),
			 18);
	ck_assert(strstr(t, "    example.com/rack: r2\n") == NULL);
	ck_assert(strstr(t, "    example.com/block: b1\n") == NULL);
	/* gang GPUs: sum the pending pods' requests per group */
	int gpus[64] = {0}, rack_keys = 0;
	for (const char *d = strstr(t, "kind: Pod\n"); d;
	     d = strstr(d + 1, "kind: Pod\n")) {
		const char *end = strstr(d, "\n---\n");
		const char *q = strstr(d, "nvidia.com/gpu: \"");
		const char *pg = strstr(d, "podGroupName: gang-");
		int g, k;
		if (pg && (!end || pg < end) && q &&
		    sscanf(pg, "podGroupName: gang-%d", &g) == 1 && g < 64 &&
		    sscanf(q, "nvidia.com/gpu: \"%d", &k) == 1)
			gpus[g] += k;
	}
	for (const char *d = strstr(t, "- key: example.com/rack"); d;
	     d = strstr(d + 1, "- key: example.com/rack"))
		rack_keys++;
	int ngangs = 0;
	for (int g = 0; g < 64; g++) {
		if (!gpus[g])
			continue;
		ngangs++;
		ck_assert_msg(gpus[g] % 4 == 0, "gang %d asks %d GPUs", g,
			      gpus[g]);
	}
	ck_assert_int_eq(ngangs, 8);
	ck_assert_int_ge(rack_keys, 3);
	free(t);

	/* an explicit --gpus wins over the family default */
	r = run("gen", "--family", "nvlink", "--gpus", "8", "--nodes", "18",
		"--levels", "1", "--fanout", "1", "-o", (char *)a);
	expect_status(&r, 0, "nvlink --gpus 8");
	rr_free(&r);
	t = read_all(a, NULL);
	ck_assert_int_eq(count_lines_with(t, "kind: Node\n"), 18);
	ck_assert_int_eq(count_lines_with(t, "    nvidia.com/gpu: \"8\"\n"),
			 2 * 18);
	free(t);
}
END_TEST

/* fragmented: every rack holds a running pod, and the free GPUs exceed
 * the largest pending gang's; checked over a few seeds and loads. */
START_TEST(test_gen_fragmented_property)
{
	static const char *const cases[][4] = {
	    {"1", "0.5", "16", "2"}, {"2", "0.1", "64", "3"},
	    {"3", "0.95", "64", "2"}, {"4", "0.7", "32", "1"}};
	const char *a = tmp_path("f.yaml");
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		run_result r = run("gen", "--family", "fragmented", "--seed",
				   (char *)cases[c][0], "--busy",
				   (char *)cases[c][1], "--max-gang",
				   (char *)cases[c][2], "--levels",
				   (char *)cases[c][3], "--fanout", "4",
				   "--nodes", "64", "--gangs", "12", "-o",
				   (char *)a);
		expect_status(&r, 0, "fragmented");
		rr_free(&r);
		char *t = read_all(a, NULL);
		int nodes = count_lines_with(t, "kind: Node\n");
		int racks = atoi(cases[c][3]) == 1 ? 4
			    : atoi(cases[c][3]) == 2 ? 16 : 64;
		int per_rack = nodes / racks;
		int busy_rack[64] = {0}, gang[16] = {0}, used = 0;
		/* each pod document: nodeName (running) or podGroupName */
		for (const char *d = strstr(t, "kind: Pod\n"); d;
		     d = strstr(d + 1, "kind: Pod\n")) {
			const char *end = strstr(d, "\n---\n");
			const char *q = strstr(d, "nvidia.com/gpu: \"");
			const char *nn = strstr(d, "nodeName: node-");
			const char *pg = strstr(d, "podGroupName: gang-");
			int k = 0, idx;
			ck_assert(q && (!end || q < end));
			sscanf(q, "nvidia.com/gpu: \"%d", &k);
			if (nn && (!end || nn < end) &&
			    sscanf(nn, "nodeName: node-%d", &idx) == 1) {
				busy_rack[idx / per_rack] = 1;
				used += k;
			} else if (pg && (!end || pg < end) &&
				   sscanf(pg, "podGroupName: gang-%d",
					  &idx) == 1) {
				gang[idx] += k;
			}
		}
		for (int rk = 0; rk < racks; rk++)
			ck_assert_msg(busy_rack[rk], "case %zu: rack %d free",
				      c, rk);
		int largest = 0;
		for (int g = 0; g < 16; g++)
			if (gang[g] > largest)
				largest = gang[g];
		ck_assert_int_gt(largest, 0);
		ck_assert_msg(nodes * 8 - used > largest, "case %zu: %d free "
			      "GPUs, largest gang %d", c, nodes * 8 - used,
			      largest);
		free(t);
	}
}
END_TEST

/* mixed: CPU-only nodes without GPUs, tainted GPU nodes, tolerating GPU
 * pods, basic services and lone pods; CPU pods land on CPU nodes only. */
START_TEST(test_gen_mixed_shape)
{
	const char *a = tmp_path("m.yaml"), *plan = tmp_path("m.json");
	run_result r = run("gen", "--family", "mixed", "--cpu-nodes", "0.5",
			   "--services", "3", "--lone-pods", "5", "--nodes",
			   "16", "-o", (char *)a);
	expect_status(&r, 0, "mixed");
	rr_free(&r);
	char *t = read_all(a, NULL);
	ck_assert_int_eq(count_lines_with(t, "kind: Node\n"), 16);
	ck_assert_int_eq(count_lines_with(t, "    example.com/pool: cpu\n"),
			 8);
	ck_assert_int_eq(count_lines_with(t, "  taints:\n"), 8);
	ck_assert_int_eq(count_lines_with(t, "    value: present\n"), 8);
	ck_assert_int_eq(count_lines_with(t, "    nvidia.com/gpu: \"8\"\n"),
			 2 * 8);
	ck_assert_int_eq(count_lines_with(t, "    basic: {}\n"), 3);
	ck_assert_int_eq(count_lines_with(t, "  name: lone-"), 5);
	ck_assert(count_lines_with(t, "    operator: Exists\n") > 0);
	free(t);
	r = run("plan", "-q", "--mode", "greedy", "-o", (char *)plan,
		(char *)a);
	expect_status(&r, 0, "plan mixed");
	rr_free(&r);
	expect_valid(a, plan);
	/* every placed CPU pod (svc-, lone- without GPUs) is on a CPU node:
	 * the checker enforces the taint, so it is enough that some were
	 * placed at all */
	char *p = read_all(plan, NULL);
	ck_assert(strstr(p, "\"lone-") != NULL);
	ck_assert(strstr(p, "\"svc-") != NULL);
	free(p);
}
END_TEST

/* wasp_gen_option_set: every name, its range, a clear error. */
START_TEST(test_gen_option_set)
{
	static const struct {
		const char *name, *good, *bad, *range;
	} cases[] = {
	    {"seed", "0x10", "-1", "non-negative integer"},
	    {"levels", "3", "4", "from 1 to 3"},
	    {"fanout", "1024", "0", "from 1 to 1024"},
	    {"nodes", "1000000", "1000001", "from 1 to 1000000"},
	    {"gpus", "0", "1025", "from 0 to 1024"},
	    {"busy", "1", "1.5", "from 0 to 1"},
	    {"gangs", "0", "x", "from 0 to 1000000"},
	    {"max-gang", "1", "0", "from 1 to 100000"},
	    {"priorities", "16", "17", "from 1 to 16"},
	    {"json", "true", "yes", "true or false"},
	    {"family", "mixed", "trees", "gpu, nvlink, fragmented or mixed"},
	    {"rack-nodes", "18", "-2", "from 0 to 1024"},
	    {"cpu-nodes", "0.95", "1", "from 0 to 0.95"},
	    {"services", "5", "2.5", "from 0 to 1000000"},
	    {"lone-pods", "0", "", "from 0 to 1000000"},
	};
	wasp_gen_options g, d;
	wasp_error err;
	wasp_gen_options_init(&g);
	wasp_gen_options_init(&d);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_int_eq(wasp_gen_option_set(&g, cases[i].name,
						     cases[i].good, &err),
				 WASP_OK);
		ck_assert_int_eq(wasp_gen_option_set(&g, cases[i].name,
						     cases[i].bad, &err),
				 WASP_EINVAL);
		ck_assert_int_eq(err.code, WASP_EINVAL);
		ck_assert_msg(strstr(err.msg, cases[i].name) &&
				  strstr(err.msg, cases[i].range),
			      "%s: %s", cases[i].name, err.msg);
	}
	ck_assert(g.seed == 16 && g.levels == 3 && g.fanout == 1024 &&
		  g.nodes == 1000000 && g.gpus_per_node == 0 && g.busy == 1 &&
		  g.gangs == 0 && g.max_gang == 1 && g.priorities == 16 &&
		  g.json == 1 && g.family == 3 && g.rack_nodes == 18 &&
		  g.cpu_nodes == 0.95 && g.services == 5 && g.lone_pods == 0);
	ck_assert_int_eq(wasp_gen_option_set(&g, "colour", "1", &err),
			 WASP_EINVAL);
	ck_assert(strstr(err.msg, "colour") && strstr(err.msg, "lone-pods"));

	/* defaults through the API: the same bytes as `wasp gen` */
	char *text = wasp_gen(&d, &err);
	ck_assert(text != NULL);
	run_result r = run("gen");
	expect_status(&r, 0, "gen");
	ck_assert_str_eq(text, r.out);
	rr_free(&r);
	wasp_free(text);
	/* family needs GPUs; the error says so */
	ck_assert_int_eq(wasp_gen_option_set(&d, "family", "mixed", &err), 0);
	ck_assert_int_eq(wasp_gen_option_set(&d, "gpus", "0", &err), 0);
	ck_assert(wasp_gen(&d, &err) == NULL);
	ck_assert_int_eq(err.code, WASP_EINVAL);
	ck_assert(strstr(err.msg, "mixed") && strstr(err.msg, "gpus"));
}
END_TEST

START_TEST(test_gen_family_usage_errors)
{
	static const char *const cases[][3] = {
	    {"--family", "trees"}, {"--cpu-nodes", "2"},
	    {"--rack-nodes", "x"}, {"--lone-pods", "-1"},
	    {"--family", "mixed", "--gpus"}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run_result r = cases[i][2]
				   ? run("gen", (char *)cases[i][0],
					 (char *)cases[i][1],
					 (char *)cases[i][2], "0")
				   : run("gen", (char *)cases[i][0],
					 (char *)cases[i][1]);
		expect_status(&r, 2, cases[i][0]);
		ck_assert_msg(strstr(r.err, "wasp") != NULL, "%s", r.err);
		ck_assert_str_eq(r.out, "");
		rr_free(&r);
	}
}
END_TEST

/* Every generated example (first line "# wasp gen ...") regenerates from
 * its recorded command, byte for byte. */
START_TEST(test_gen_examples_regenerate)
{
	const char *ex = examples[_i];
	char *text = read_all(src_path(ex), NULL);
	ck_assert(text != NULL);
	if (strncmp(text, "# wasp gen ", 11)) {
		free(text);
		return;
	}
	char line[1024], *argv[MAX_ARGS];
	size_t n = strcspn(text, "\n");
	ck_assert(n < sizeof line);
	snprintf(line, sizeof line, "%.*s", (int)n - 7, text + 7);
	int argc = 0;
	argv[argc++] = "wasp";
	for (char *tok = strtok(line, " "); tok && argc < MAX_ARGS - 1;
	     tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	run_result r = finish(spawn(NULL, argv), now());
	expect_status(&r, 0, ex);
	ck_assert_msg(!strcmp(r.out, text), "%s differs from the output of "
		      "its recorded command", ex);
	rr_free(&r);
	free(text);
}
END_TEST

/* Each new family at 10,000 nodes / 100,000 pods in a few seconds. */
START_TEST(test_gen_family_large_is_fast)
{
	const char *snap = tmp_path("big.yaml");
	run_result r = run("gen", "--family", (char *)families[_i + 1],
			   "--seed", "4", "--levels", "3", "--fanout", "8",
			   "--nodes", "10000", "--gangs", "7000",
			   "--max-gang", "32", "-o", (char *)snap);
	expect_status(&r, 0, families[_i + 1]);
	ck_assert_msg(r.secs < 5, "%s: 10,000 nodes took %.2f s",
		      families[_i + 1], r.secs);
	rr_free(&r);
	char *text = read_all(snap, NULL);
	ck_assert_int_ge(count_lines_with(text, "kind: Node\n"), 10000);
	ck_assert_int_ge(count_lines_with(text, "kind: Pod\n"), 100000);
	free(text);
}
END_TEST

/* ------------------------------------------------------------ main */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(const char *rel, const char *suffix, const char *skip,
		    const char *prefix, char **out, int max)
{
	DIR *d = opendir(src_path(rel));
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		const char *s = e->d_name;
		size_t len = strlen(s);
		if (s[0] == '.')
			continue;
		if (suffix && (len < strlen(suffix) ||
			       strcmp(s + len - strlen(suffix), suffix)))
			continue;
		if (skip && len >= strlen(skip) &&
		    !strcmp(s + len - strlen(skip), skip))
			continue;
		char buf[1024];
		snprintf(buf, sizeof buf, "%s%s", prefix, s);
		out[n++] = strdup(buf);
	}
	closedir(d);
	qsort(out, (size_t)n, sizeof *out, cmp_str);
	return n;
}

int main(void)
{
	const char *bin = getenv("WASP_BIN");
	const char *src = getenv("WASP_SRCDIR");
	if (!realpath(src ? src : ".", srcdir)) {
		fprintf(stderr, "check_cli: bad WASP_SRCDIR\n");
		return 99;
	}
	if (!realpath(bin ? bin : "src/cli/wasp", wasp_bin)) {
		fprintf(stderr, "check_cli: no wasp command (set WASP_BIN)\n");
		return 99;
	}
	nbad = list_dir("tests/fixtures/bad", NULL, ".expect", "", bad_files,
			MAX_FILES);
	nexamples = list_dir("models/examples", ".yaml", NULL,
			     "models/examples/", examples, MAX_FILES);

	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("usage");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_help_and_version);
	tcase_add_test(tc, test_usage_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_example_plans_check, 0, nexamples);
	tcase_add_loop_test(tc, test_gpu16_outcome, 0, 2);
	tcase_add_test(tc, test_stdin_and_json_input);
	tcase_add_test(tc, test_output_atomic);
	tcase_add_test(tc, test_plan_options);
	tcase_add_test(tc, test_check_corrupted_plan);
	tcase_add_test(tc, test_missing_group_waits);
	tcase_add_test(tc, test_unknown_kinds_warn_once);
	tcase_add_test(tc, test_export);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_bad_input, 0, nbad);
	suite_add_tcase(s, tc);

	tc = tcase_create("gen");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_gen_deterministic);
	tcase_add_test(tc, test_gen_example_regenerates);
	tcase_add_test(tc, test_gen_large_is_fast);
	tcase_add_loop_test(tc, test_gen_family_plans_check, 0, 4);
	tcase_add_test(tc, test_gen_nvlink_shape);
	tcase_add_test(tc, test_gen_fragmented_property);
	tcase_add_test(tc, test_gen_mixed_shape);
	tcase_add_test(tc, test_gen_option_set);
	tcase_add_test(tc, test_gen_family_usage_errors);
	tcase_add_loop_test(tc, test_gen_examples_regenerate, 0, nexamples);
	tcase_add_loop_test(tc, test_gen_family_large_is_fast, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("budget");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_time_limit);
	tcase_add_test(tc, test_sigint_writes_best_plan);
	suite_add_tcase(s, tc);

	return tu_run(s);
}
