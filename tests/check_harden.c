/*
 * check_harden.c -- how wasp treats what is not a snapshot: its output
 * files, write errors, signals and the cancel flag, time and memory
 * limits, control characters, and plans that only look valid.
 *
 * Command tests run $WASP_BIN with a fresh temporary directory as the
 * working directory; every plan a test gets is checked with `wasp check`.
 * Write failures are provoked without touching system paths: a symbolic
 * link in the temporary directory to /dev/full (a device is written, never
 * replaced), and RLIMIT_FSIZE for a regular file that cannot grow.
 */
#define _GNU_SOURCE /* pthread, mkfifo, memfd-free helpers */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "wasp.h"
#include "reduce/problem.h"
#include "run/run.h"
#include "run/watch.h"
#include "solve/greedy/greedy.h"
#include "solve/ilp/ilp.h"

static char wasp_bin[4096], srcdir[4096], tmpdir[256];

/* ------------------------------------------------------------ helpers */

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/wasp-harden-XXXXXX");
	ck_assert(mkdtemp(tmpdir) != NULL);
}

static void teardown(void)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "check_harden: cannot remove %s\n", tmpdir);
}

static const char *tpath(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n + 1 == cap)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	if (b)
		b[n] = 0;
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	ck_assert(f != NULL);
	fputs(text, f);
	ck_assert(fclose(f) == 0);
}

typedef struct res {
	int status; /* exit status, or 128 + signal */
	char *out, *err;
} res;

static void res_free(res *r)
{
	free(r->out);
	free(r->err);
}

/* Run wasp with argv (NULL-terminated, argv[0] ignored) in tmpdir;
 * fsize > 0: RLIMIT_FSIZE for it (SIGXFSZ ignored: writes fail EFBIG). */
static res run_v(long fsize, char **argv)
{
	char o[512], e[512];
	snprintf(o, sizeof o, "%s/.out", tmpdir);
	snprintf(e, sizeof e, "%s/.err", tmpdir);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		if (chdir(tmpdir))
			_exit(126);
		int fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		dup2(open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
		dup2(open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
		if (fsize > 0) {
			struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &rl);
		}
		execv(wasp_bin, argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		ck_assert(errno == EINTR);
	res r;
	r.status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	r.out = slurp(o);
	r.err = slurp(e);
	ck_assert(r.out && r.err);
	return r;
}

static res run_l(long fsize, ...)
{
	char *argv[32];
	int n = 0;
	va_list ap;
	argv[n++] = "wasp";
	va_start(ap, fsize);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_v(fsize, argv);
}
#define run(...) run_l(0, __VA_ARGS__, (char *)NULL)
#define run_fsize(sz, ...) run_l(sz, __VA_ARGS__, (char *)NULL)

/* Start wasp with the given arguments (NULL-terminated) in tmpdir, its
 * output discarded, without waiting: for the tests that signal it. */
static pid_t spawn(const char *arg, ...)
{
	char *argv[32];
	int n = 0;
	argv[n++] = "wasp";
	va_list ap;
	va_start(ap, arg);
	for (const char *a = arg; a && n < 31; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		if (chdir(tmpdir))
			_exit(126);
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(wasp_bin, argv);
		_exit(127);
	}
	return pid;
}

static void expect(const res *r, int want, const char *what)
{
	ck_assert_msg(r->status == want, "%s: exit %d, expected %d\n%s",
		      what, r->status, want, r->err);
}

/* tmpdir holds exactly these entries (besides .out and .err): no
 * temporary file was left behind. */
static int entries(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -cv '^\\.out$\\|^\\.err$'",
		 tmpdir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	ck_assert(p && fscanf(p, "%d", &n) == 1);
	pclose(p);
	return n;
}

/* A small snapshot in tmpdir/snap.yaml (wasp gen, 16 nodes). */
static const char *small_snapshot(void)
{
	static char s[512]; /* not one of tpath's rotating buffers */
	snprintf(s, sizeof s, "%s", tpath("snap.yaml"));
	res r = run("gen", "--nodes", "16", "--gangs", "4", "-o", s);
	expect(&r, 0, "gen");
	res_free(&r);
	return s;
}

static void expect_valid(const char *snap, const char *plan)
{
	res r = run("check", "-q", "--plan", (char *)plan, (char *)snap);
	expect(&r, 0, "wasp check");
	ck_assert_msg(strstr(r.out, "plan is valid") != NULL, "%s", r.out);
	res_free(&r);
}

/* ------------------------------------------------------------ outputs */

/* An old file keeps its mode; a symbolic link stays a link and its
 * target gets the plan. */
START_TEST(output_mode_and_symlink)
{
	const char *snap = small_snapshot();
	const char *f = tpath("plan.json"), *l = tpath("link.json");
	put(f, "old\n");
	ck_assert(chmod(f, 0600) == 0);
	ck_assert(symlink("plan.json", l) == 0);
	res r = run("plan", "-q", "-o", (char *)l, (char *)snap);
	expect(&r, 0, "plan -o link");
	res_free(&r);
	struct stat st;
	ck_assert(lstat(l, &st) == 0 && S_ISLNK(st.st_mode));
	ck_assert(stat(f, &st) == 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	expect_valid(snap, f);
	ck_assert_int_eq(entries(), 3);
}
END_TEST

/* Kinds that are not replaced: a directory, a socket, a dangling
 * link: exit 2, nothing touched. */
START_TEST(output_refused_kinds)
{
	const char *snap = small_snapshot();
	const char *sock = tpath("sock");
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	ck_assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	ck_assert(symlink("nowhere", tpath("dangling")) == 0);
	ck_assert(mkdir(tpath("dir"), 0755) == 0);
	const char *targets[] = {"sock", "dangling", "dir", "dir/"};
	const char *says[] = {"not a regular file", "dangling", "directory",
			      "directory"};
	for (int i = 0; i < 4; i++) {
		res r = run("plan", "-q", "-o", (char *)targets[i],
			    (char *)snap);
		expect(&r, 2, targets[i]);
		ck_assert_msg(strstr(r.err, says[i]) != NULL, "%s", r.err);
		res_free(&r);
	}
	struct stat st;
	ck_assert(lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode));
	ck_assert(lstat(tpath("dangling"), &st) == 0 && S_ISLNK(st.st_mode));
	ck_assert_int_eq(entries(), 4);
	close(fd);
}
END_TEST

/* A FIFO is written directly: the reader gets the whole plan. */
START_TEST(output_fifo)
{
	const char *snap = small_snapshot();
	const char *fifo = tpath("fifo"), *got = tpath("got.json");
	ck_assert(mkfifo(fifo, 0600) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		char cmd[1200];
		snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", fifo, got);
		_exit(system(cmd) == 0 ? 0 : 1);
	}
	res r = run("plan", "-q", "-o", "fifo", (char *)snap);
	expect(&r, 0, "plan -o fifo");
	res_free(&r);
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		  WEXITSTATUS(st) == 0);
	struct stat s;
	ck_assert(lstat(fifo, &s) == 0 && S_ISFIFO(s.st_mode));
	expect_valid(snap, got);
}
END_TEST

/* Full disk: a device that fails every write, through a link in the
 * temporary directory; and a regular file that cannot grow.  Exit 3,
 * the error's text, the old file intact, no temporary left. */
START_TEST(output_write_errors)
{
	const char *snap = small_snapshot();
	ck_assert(symlink("/dev/full", tpath("full")) == 0);
	res r = run("plan", "-q", "-o", "full", (char *)snap);
	expect(&r, 3, "plan -o full");
	ck_assert_msg(strstr(r.err, "No space left on device"), "%s", r.err);
	res_free(&r);
	const char *formats[] = {"--lp", "--mps", "--dat"};
	for (int i = 0; i < 3; i++) {
		r = run("export", "-q", (char *)formats[i], "full",
			(char *)snap);
		expect(&r, 3, formats[i]);
		ck_assert_msg(strstr(r.err, "No space left on device"), "%s",
			      r.err);
		res_free(&r);
	}
	const char *old = tpath("old.json");
	put(old, "old\n");
	r = run_fsize(4096, "plan", "-q", "-o", "old.json", (char *)snap);
	expect(&r, 3, "plan -o over RLIMIT_FSIZE");
	ck_assert_msg(strstr(r.err, "File too large"), "%s", r.err);
	res_free(&r);
	for (int i = 0; i < 3; i++) {
		r = run_fsize(4096, "export", "-q", (char *)formats[i],
			      "old.json", (char *)snap);
		expect(&r, 3, formats[i]);
		/* GLPK's writers fail on their in-memory file: GLPK says
		 * why */
		ck_assert_msg(strstr(r.err, "File too large") ||
				  strstr(r.err, "GLPK could not write"),
			      "%s", r.err);
		res_free(&r);
	}
	char *t = slurp(old);
	ck_assert_str_eq(t, "old\n");
	free(t);
	ck_assert_int_eq(entries(), 3);
	/* and with room, each export is complete */
	for (int i = 0; i < 3; i++) {
		r = run("export", "-q", (char *)formats[i], "m.out",
			(char *)snap);
		expect(&r, 0, formats[i]);
		res_free(&r);
		t = slurp(tpath("m.out"));
		const char *last = i == 0 ? "End\n" : i == 1 ? "ENDATA\n"
							 : "end;\n";
		size_t n = strlen(t);
		ck_assert_msg(n > strlen(last) &&
				  !strcmp(t + n - strlen(last), last),
			      "%s does not end in %s", formats[i], last);
		free(t);
	}
}
END_TEST

/* ------------------------------------------------------------ input */

/* NUL and control characters in names, labels and selectors are refused
 * with a position; what is printed never holds a raw control byte. */
START_TEST(control_characters)
{
	const char *node = "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
			   "\"metadata\":{\"name\":\"%s\",\"labels\":"
			   "{\"gpu\":\"yes\"}},\"status\":{\"allocatable\":"
			   "{\"cpu\":\"4\",\"pods\":\"10\"}}}\n";
	const char *pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
			  "\"metadata\":{\"name\":\"p\",\"namespace\":\"d\"},"
			  "\"spec\":{\"nodeSelector\":{\"%s\":\"yes\"},"
			  "\"containers\":[{\"name\":\"c\"}]},"
			  "\"status\":{\"phase\":\"Pending\"}}\n";
	struct {
		const char *name, *key, *says;
	} cases[] = {
	    {"n\\u001b[31m", "gpu", "control character"},
	    {"n\\nwasp: forged", "gpu", "control character"},
	    {"n1", "gpu\\u0000junk", "NUL"},
	    {"n1", "gpu\\u0007", "control character"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[2048];
		int k = snprintf(text, sizeof text, node, cases[i].name);
		snprintf(text + k, sizeof text - (size_t)k, pod, cases[i].key);
		put(tpath("in.json"), text);
		res r = run("plan", "in.json");
		expect(&r, 2, cases[i].name);
		ck_assert_msg(!strncmp(r.err, "in.json:", 8) &&
				  strstr(r.err, cases[i].says),
			      "%s", r.err);
		/* one line, no raw control byte */
		for (const char *q = r.err; *q; q++)
			ck_assert(*q == '\n' ? q[1] == 0
					     : (unsigned char)*q >= 0x20);
		res_free(&r);
	}
	/* the same selector without the NUL is accepted and placed */
	char text[2048];
	int k = snprintf(text, sizeof text, node, "n1");
	snprintf(text + k, sizeof text - (size_t)k, pod, "gpu");
	put(tpath("in.json"), text);
	res r = run("plan", "-q", "-o", "p.json", "in.json");
	expect(&r, 0, "clean input");
	res_free(&r);
	expect_valid(tpath("in.json"), tpath("p.json"));
	/* a file name is printed escaped */
	r = run("plan", "no\x1b[31mfile\nwasp: forged");
	expect(&r, 3, "missing file");
	ck_assert_msg(strstr(r.err, "no\\x1B[31mfile\\x0Awasp: forged"),
		      "%s", r.err);
	res_free(&r);
}
END_TEST

/* A pipe (a FIFO here) beyond the memory limit's input share is refused
 * after that many bytes, not read to its end. */
START_TEST(input_cap_on_a_pipe)
{
	if (TU_ASAN) {
		/* --max-memory sets RLIMIT_DATA, under which ASan's shadow
		 * memory cannot be mapped */
		fprintf(stderr, "input_cap_on_a_pipe skipped under "
				"AddressSanitizer\n");
		return;
	}
	const char *fifo = tpath("in");
	ck_assert(mkfifo(fifo, 0600) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		/* an endless writer: only the reader's close ends it */
		signal(SIGPIPE, SIG_DFL);
		int fd = open(fifo, O_WRONLY);
		static char zero[65536];
		memset(zero, ' ', sizeof zero);
		while (write(fd, zero, sizeof zero) > 0)
			;
		_exit(0);
	}
	res r = run("plan", "--max-memory", "64M", "in");
	expect(&r, 2, "endless pipe");
	ck_assert_msg(strstr(r.err, "larger than"), "%s", r.err);
	res_free(&r);
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
}
END_TEST

/* A small --max-memory with several threads: the OpenMP runtime's
 * thread stacks are not counted in SIZE, so the run ends with a plan or
 * a clean out-of-memory error (exit 3), never the runtime's own exit. */
START_TEST(max_memory_with_threads)
{
	if (TU_ASAN) {
		fprintf(stderr, "max_memory_with_threads skipped under "
				"AddressSanitizer\n");
		return;
	}
	const char *snap = small_snapshot();
	const char *sizes[] = {"2M", "8M", "16M", "64M"};
	int plans = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		unlink(tpath("mm.json"));
		res r = run("plan", "-q", "--threads", "4", "--mode", "ilp",
			    "--max-memory", sizes[i], "-o", "mm.json", snap);
		ck_assert_msg(r.status == 0 || r.status == 3,
			      "--max-memory %s: exit %d\n%s", sizes[i],
			      r.status, r.err);
		if (r.status == 0) {
			expect_valid(snap, tpath("mm.json"));
			plans++;
		} else {
			ck_assert_msg(strstr(r.err, "out of memory"), "%s",
				      r.err);
		}
		res_free(&r);
	}
	ck_assert_int_ge(plans, 1); /* 64M holds this snapshot */
}
END_TEST

/* The library: "-" once only; the byte cap; a deadline already passed
 * and a cancel stop the load with their codes. */
START_TEST(library_load_limits)
{
	wasp_snapshot *s = NULL;
	wasp_error e;
	const char *two[] = {"-", "-"};
	ck_assert_int_eq(wasp_snapshot_load(&s, two, 2, &e), WASP_EINVAL);
	ck_assert(strstr(e.msg, "only once"));
	const char *ex[] = {tu_src_path("models/examples/gpu16.yaml")};
	ck_assert_int_eq(wasp_snapshot_load_limited(&s, ex, 1, NULL, 1000,
						    &e),
			 WASP_ELIMIT);
	ck_assert_ptr_null(s);
	wasp_options o;
	wasp_options_init(&o);
	o.start_time = wasp_now() - 10;
	o.time_limit_s = 1;
	ck_assert_int_eq(wasp_snapshot_load_limited(&s, ex, 1, &o, 0, &e),
			 WASP_ELIMIT);
	ck_assert(strstr(e.msg, "time limit"));
	volatile int stop = 1;
	wasp_options_init(&o);
	o.cancel = &stop;
	ck_assert_int_eq(wasp_snapshot_load_limited(&s, ex, 1, &o, 0, &e),
			 WASP_ECANCELED);
	stop = 0;
	ck_assert_int_eq(wasp_snapshot_load_limited(&s, ex, 1, &o, 0, &e),
			 WASP_OK);
	wasp_snapshot_free(s);
}
END_TEST

/* wasp_options.max_memory: the ILP works within what the snapshot and
 * greedy leave of it; running out (before it starts, building the
 * model, or inside GLPK) keeps greedy's plan and says why.  A sweep of
 * limits on a 256-node ILP: every plan verified, each one greedy's with
 * the reason or the ILP's, and the ILP's from some limit on. */
START_TEST(ilp_within_max_memory)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.nodes = 256;
	g.gangs = 50;
	g.max_gang = 16;
	wasp_error e;
	wasp_snapshot *s = tu_gen_load(&g);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.threads = 1;
	o.work_limit = 1; /* the same search on any machine */
	o.time_limit_s = 60;
	o.max_memory = 1000; /* below WASP_MIN_MEMORY */
	wasp_plan *p = NULL;
	ck_assert_int_eq(wasp_solve(s, &o, &p, &e), WASP_EINVAL);
	ck_assert_msg(strstr(e.msg, "max_memory"), "%s", e.msg);
	ck_assert_ptr_null(p);
	int before = 0, after = 0, ilp_at = 0;
	for (int mb = 1; mb <= 256 && !ilp_at; mb *= 2) {
		o.max_memory = (size_t)mb << 20;
		p = tu_solve(s, &o); /* verified */
		const char *why = p->sum.mode_reason;
		ck_assert_ptr_nonnull(why);
		if (!strcmp(p->sum.mode, "ilp")) {
			ilp_at = mb;
		} else {
			ck_assert_str_eq(p->sum.mode, "greedy");
			bool pre = strstr(why, "before it started") != NULL;
			ck_assert_msg(pre || strstr(why, "ILP out of memory") ||
					  strstr(why, "GLPK failed"),
				      "%d MiB: %s", mb, why);
			before += pre;
			after += !pre;
		}
		wasp_plan_free(p);
	}
	ck_assert_msg(ilp_at > 0, "the ILP never ran within 256 MiB");
	ck_assert_msg(before > 0 && after > 0, "before %d, after %d (the "
		      "ILP from %d MiB)", before, after, ilp_at);
	wasp_snapshot_free(s);
}
END_TEST

/* ------------------------------------------------------------ check */

/* Plans that only look valid: a misspelt list, an admitted group
 * without its pods, a wrong count. */
START_TEST(check_is_strict)
{
	const char *snap = small_snapshot();
	const char *plan = tpath("plan.json");
	res r = run("plan", "-q", "--mode", "greedy", "-o", "plan.json",
		    (char *)snap);
	expect(&r, 0, "plan");
	res_free(&r);
	expect_valid(snap, plan);
	char *good = slurp(plan);
	ck_assert(strstr(good, "\"placements\"") && strstr(good, "\"pods\": "));

	/* placements misspelt */
	char *bad = strdup(good);
	memcpy(strstr(bad, "\"placements\""), "\"placementz\"", 12);
	put(tpath("bad.json"), bad);
	r = run("check", "-q", "--plan", "bad.json", (char *)snap);
	expect(&r, 2, "misspelt placements");
	ck_assert_msg(strstr(r.err, "unknown field \"placementz\""), "%s",
		      r.err);
	res_free(&r);
	free(bad);

	/* the first admitted group claims one pod more than it gets */
	bad = malloc(strlen(good) + 16);
	char *at = strstr(strstr(good, "\"admitted\""), "\"pods\": ");
	ck_assert_ptr_nonnull(at);
	int pods = atoi(at + 8);
	const char *rest = at + 8;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	sprintf(bad, "%.*s\"pods\": %d%s", (int)(at - good), good, pods + 1,
		rest);
	put(tpath("bad.json"), bad);
	r = run("check", "-q", "--plan", "bad.json", (char *)snap);
	expect(&r, 1, "admitted pods off by one");
	ck_assert_msg(strstr(r.out, "admitted with"), "%s", r.out);
	res_free(&r);

	/* placedPods off by one */
	at = strstr(good, "\"placedPods\": ");
	ck_assert_ptr_nonnull(at);
	pods = atoi(at + 14);
	rest = at + 14;
	while (*rest >= '0' && *rest <= '9')
		rest++;
	sprintf(bad, "%.*s\"placedPods\": %d%s", (int)(at - good), good,
		pods + 1, rest);
	put(tpath("bad.json"), bad);
	r = run("check", "-q", "--plan", "bad.json", (char *)snap);
	expect(&r, 1, "placedPods off by one");
	ck_assert_msg(strstr(r.out, "summary.counts.placedPods"), "%s", r.out);
	res_free(&r);
	free(bad);
	free(good);
}
END_TEST

/* ------------------------------------------------------------ findings */

START_TEST(fixed_findings)
{
	/* gen: more running pods than room is an error, not fewer pods */
	res r = run("gen", "--running-pods", "100000000");
	expect(&r, 2, "gen --running-pods huge");
	ck_assert_msg(strstr(r.err, "room for"), "%s", r.err);
	res_free(&r);
	/* bench: a suite name is a word, never a path */
	put(tpath("s.yaml"), "suite: ../escape\ninstances:\n"
			     "- {name: a, gen: {nodes: 16}, solvers: [greedy]}\n");
	r = run("bench", "--quick", "s.yaml");
	expect(&r, 2, "bench suite ../");
	ck_assert_msg(strstr(r.err, "expected a name"), "%s", r.err);
	res_free(&r);
	struct stat st;
	char up[600];
	snprintf(up, sizeof up, "%s/../escape.csv", tmpdir);
	ck_assert(stat(up, &st) != 0);
	/* a ResourceClaimTemplate without spec: planned, no device */
	wasp_snapshot *s = tu_load(
	    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	    "status: {allocatable: {cpu: '8', pods: '10'}}\n---\n"
	    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
	    "metadata: {name: empty, namespace: default}\n---\n"
	    "apiVersion: v1\nkind: Pod\n"
	    "metadata: {name: p, namespace: default}\n"
	    "spec:\n  containers: [{name: c, resources: {requests: "
	    "{cpu: '1'}}}]\n  resourceClaims:\n"
	    "  - {name: x, resourceClaimTemplateName: empty}\n"
	    "status: {phase: Pending}\n");
	for (int mode = WASP_MODE_GREEDY; mode <= WASP_MODE_ILP; mode++) {
		wasp_plan *p = tu_solve_mode(s, mode);
		ck_assert_int_eq(p->nplace, 1);
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
}
END_TEST

/* ------------------------------------------------------------ cancel */

typedef struct later {
	volatile int *flag;
	double after;
} later;

static void *set_later(void *arg)
{
	later *l = arg;
	struct timespec ts = {(time_t)l->after,
			      (long)((l->after - (time_t)l->after) * 1e9)};
	nanosleep(&ts, NULL);
	*l->flag = 1;
	return NULL;
}

/* wasp_options.cancel set from another thread while the ILP's LP runs
 * (no deadline): the solve returns, with the warm start at least, a
 * feasible answer; the tcase's timeout is far below the LP's own time,
 * so a cancel not seen inside the simplex fails the test. */
START_TEST(cancel_inside_the_lp)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	wasp_error e;
	ck_assert_int_eq(wasp_gen_option_set(&g, "nodes", "1024", &e), 0);
	ck_assert_int_eq(wasp_gen_option_set(&g, "gangs", "200", &e), 0);
	ck_assert_int_eq(wasp_gen_option_set(&g, "max-gang", "32", &e), 0);
	wasp_snapshot *s = tu_gen_load(&g);
	wasp_options o;
	wasp_options_init(&o);
	o.node_model = 1;
	volatile int stop = 0;
	o.cancel = &stop;
	wa_arena *a = wa_new();
	wp_problem *p = NULL;
	ck_assert_int_eq(wsv_problem(s, &o, a, &p, &e), 0);
	wp_sol *warm = wp_sol_new(p, a), *out = wp_sol_new(p, a);
	ck_assert_int_eq(wgr_solve(p, &o, warm, &e), 0);
	later l = {&stop, 1.0};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, set_later, &l), 0);
	wilp_stats st;
	int rc = wilp_solve(p, &o, wdl_none(), warm, out, &st, &e);
	pthread_join(th, NULL);
	ck_assert_msg(rc == WASP_OK, "%s", e.msg);
	const char *why = NULL;
	ck_assert_msg(wp_sol_feasible(p, out, &why) == 0, "%s", why);
	tu_sol_verified(s, p, out, warm, "cancelled ILP");
	wa_destroy(a);
	wasp_snapshot_free(s);
}
END_TEST

/* SIGINT then SIGTERM: the second signal, of the other kind, ends the
 * command by that signal, and no output file is left behind. */
START_TEST(second_signal_kills)
{
	const char *snap = tpath("big.yaml");
	res r = run("gen", "--nodes", "1024", "--gangs", "200", "--max-gang",
		    "32", "-o", (char *)snap);
	expect(&r, 0, "gen");
	res_free(&r);
	/* a handler stays installed until the first signal: wait until the
	 * command is past its start, then block it in a second handler.
	 * A first signal that still meets the load ends the command by
	 * SIGINT (nothing to write): then again, later (a slow machine). */
	int st = 0;
	for (long ms = 500; ms <= 8000; ms *= 2) {
		pid_t pid = spawn("plan", "-q", "--mode", "ilp",
				  "--time-limit", "0", "-o", "p.json", snap,
				  (char *)NULL);
		struct timespec wait = {ms / 1000, (ms % 1000) * 1000000};
		nanosleep(&wait, NULL);
		kill(pid, SIGINT);
		kill(pid, SIGTERM);
		ck_assert(waitpid(pid, &st, 0) == pid);
		ck_assert_int_eq(entries(), 1); /* big.yaml only */
		if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT))
			break;
	}
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
		      "status 0x%x", st);
}
END_TEST

/* A cancel met in a phase of wasp_solve: set by the progress callback
 * when the phase starts, at once or from another thread `after` seconds
 * later.  Each time the solve returns WASP_OK with a plan the verifier
 * passes (tu_solve), whose modeReason names the cancel; plan_ready saw
 * that same plan, once; and every progress call came from the calling
 * thread, though the ILP runs on a helper thread when cancel is set. */
typedef struct cancel_probe {
	volatile int flag;
	const char *at;       /* the phase that starts the cancel       */
	later l;              /* after > 0: set by a thread             */
	pthread_t self, th;
	bool started, other_thread;
	int ready;
	const wasp_plan *ready_plan;
} cancel_probe;

static void probe_progress(const wasp_progress *pr, void *ctx)
{
	cancel_probe *c = ctx;
	if (!pthread_equal(pthread_self(), c->self))
		c->other_thread = true;
	if (strcmp(pr->phase, c->at) || c->started)
		return;
	c->started = true;
	if (c->l.after <= 0)
		c->flag = 1;
	else
		ck_assert_int_eq(pthread_create(&c->th, NULL, set_later,
						&c->l), 0);
}

static void probe_ready(const wasp_plan *p, void *ctx)
{
	cancel_probe *c = ctx;
	c->ready++;
	c->ready_plan = p;
}

static wasp_plan *cancel_at(const wasp_snapshot *s, const char *phase,
			    double after, const char *want)
{
	cancel_probe c;
	memset(&c, 0, sizeof c);
	c.at = phase;
	c.l = (later){&c.flag, after};
	c.self = pthread_self();
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	o.node_model = 1;
	o.time_limit_s = 0;
	o.work_limit = 2; /* two restart passes, not hundreds */
	o.cancel = &c.flag;
	o.progress = probe_progress;
	o.progress_ctx = &c;
	o.plan_ready = probe_ready;
	o.plan_ready_ctx = &c;
	wasp_plan *p = tu_solve(s, &o);
	if (c.started && after > 0)
		pthread_join(c.th, NULL);
	ck_assert_msg(c.started && c.flag, "phase %s not met", phase);
	ck_assert_int_eq(c.ready, 1);
	ck_assert_ptr_eq(c.ready_plan, p);
	ck_assert_msg(!c.other_thread, "progress from another thread");
	ck_assert_msg(p->sum.mode_reason &&
		      strstr(p->sum.mode_reason, want),
		      "cancel in %s: modeReason \"%s\"", phase,
		      p->sum.mode_reason ? p->sum.mode_reason : "(none)");
	return p;
}

START_TEST(cancel_in_each_phase)
{
	/* as greedy starts: every group waits, cancelled */
	wasp_snapshot *s = tu_load_file("models/examples/gpu16.yaml");
	wasp_plan *p = cancel_at(s, "greedy", 0, "cancelled after greedy");
	char *text = wasp_plan_render(p, WASP_FORMAT_JSON, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "cancelled before this group was "
				   "considered"), "%s", text);
	wasp_free(text);
	wasp_plan_free(p);
	wasp_snapshot_free(s);

	/* 0.3 s into the ILP (its model build or its LP, both longer than
	 * that): the greedy plan, the ILP left behind or stopped */
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	wasp_error e;
	ck_assert_int_eq(wasp_gen_option_set(&g, "nodes", "1024", &e), 0);
	ck_assert_int_eq(wasp_gen_option_set(&g, "gangs", "200", &e), 0);
	ck_assert_int_eq(wasp_gen_option_set(&g, "max-gang", "32", &e), 0);
	text = wasp_gen(&g, &e);
	ck_assert_ptr_nonnull(text);
	s = tu_load(text);
	wasp_free(text);
	p = cancel_at(s, "ilp", 0.3, "cancelled during the ILP");
	ck_assert_int_gt(wasp_plan_placement_count(p), 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* The helper thread of run/watch.c on its own: a step that reports
 * progress and returns is waited for, its reports reach the callback on
 * the calling thread; a step that does not return is left behind once
 * the cancel has waited WSV_WATCH_GRACE_S, and wsv_watch_join then
 * waits for its end. */
typedef struct watch_probe {
	pthread_t self;
	int reports, elsewhere;
	volatile int release, ended;
} watch_probe;

static void watch_progress(const wasp_progress *pr, void *ctx)
{
	watch_probe *w = ctx;
	(void)pr;
	w->reports++;
	if (!pthread_equal(pthread_self(), w->self))
		w->elsewhere++;
}

static int reporting_step(void *arg, const wasp_options *o)
{
	(void)arg;
	wasp_progress pr = {"ilp", 0, NAN, NAN, NAN};
	struct timespec ms5 = {0, 5000000};
	for (int i = 0; i < 3; i++) {
		o->progress(&pr, o->progress_ctx);
		nanosleep(&ms5, NULL);
	}
	return 7;
}

static int stuck_step(void *arg, const wasp_options *o)
{
	watch_probe *w = arg;
	(void)o;
	struct timespec ms1 = {0, 1000000};
	while (!w->release)
		nanosleep(&ms1, NULL);
	w->ended = 1;
	return 0;
}

START_TEST(watch_relays_and_leaves_behind)
{
	watch_probe w;
	memset(&w, 0, sizeof w);
	w.self = pthread_self();
	volatile int stop = 0;
	wasp_options o;
	wasp_options_init(&o);
	o.cancel = &stop;
	o.progress = watch_progress;
	o.progress_ctx = &w;
	wsv_watch wt;
	ck_assert_int_eq(wsv_watch_run(&wt, reporting_step, NULL, &o), 7);
	ck_assert(!wt.abandoned);
	ck_assert_int_ge(w.reports, 1);
	ck_assert_int_eq(w.elsewhere, 0);
	wsv_watch_join(&wt);

	stop = 1;
	ck_assert_int_eq(wsv_watch_run(&wt, stuck_step, &w, &o),
			 WASP_ECANCELED);
	ck_assert(wt.abandoned);
	ck_assert(!w.ended);
	w.release = 1;
	wsv_watch_join(&wt);
	ck_assert(w.ended);
	wsv_watch_join(&wt); /* twice: a no-op */
}
END_TEST

/* SIGINT while the snapshot is still being read (a FIFO the test
 * writes): nothing was planned, so nothing is written, and wasp ends by
 * that signal as an interrupted command does. */
START_TEST(signal_while_reading)
{
	ck_assert_int_eq(mkfifo(tpath("in.yaml"), 0600), 0);
	pid_t pid = spawn("plan", "-q", "-o", "p.json", "in.yaml",
			  (char *)NULL);
	/* opens once wasp reads, which is after its handler is set */
	int fd = open(tpath("in.yaml"), O_WRONLY);
	ck_assert_int_ge(fd, 0);
	const char *node = "apiVersion: v1\nkind: Node\nmetadata: {name: "
			   "n1}\nstatus: {allocatable: {cpu: '8'}}\n";
	ck_assert(write(fd, node, strlen(node)) == (ssize_t)strlen(node));
	struct timespec pause = {0, 200000000};
	nanosleep(&pause, NULL);
	kill(pid, SIGINT);
	close(fd); /* the end of the input: the load sees the cancel */
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT,
		      "status 0x%x", st);
	ck_assert_int_eq(entries(), 1); /* in.yaml only */
}
END_TEST

/* An arena grown past 64 MB takes 4 MiB chunks advised as huge pages
 * (arena.c): each allocation there is zeroed, 16-byte aligned and its
 * own, as before that size; a large one still gets a chunk of its own. */
START_TEST(arena_big_chunks)
{
	enum { N = 80000, SZ = 1000 }; /* 80 MB */
	static const unsigned char zero[SZ];
	wa_arena *a = wa_new();
	unsigned char **p = malloc(N * sizeof *p);
	ck_assert(a && p);
	for (int i = 0; i < N; i++) {
		p[i] = wa_alloc(a, SZ);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % 16, 0);
		ck_assert(!memcmp(p[i], zero, SZ));
		memset(p[i], i & 0xff, SZ);
	}
	for (int i = 0; i < N; i++)
		ck_assert(p[i][0] == (i & 0xff) && p[i][SZ - 1] == (i & 0xff));
	ck_assert_uint_ge(wa_used(a), (size_t)N * SZ);
	unsigned char *big = wa_alloc(a, (size_t)3 << 20);
	ck_assert_ptr_nonnull(big);
	for (size_t k = 0; k < (size_t)3 << 20; k += SZ)
		ck_assert(!memcmp(big + k, zero,
				  ((size_t)3 << 20) - k < SZ ? ((size_t)3 << 20) - k
							      : SZ));
	unsigned char *after = wa_alloc(a, SZ);
	ck_assert(after && after[0] == 0 && after[SZ - 1] == 0);
	free(p);
	wa_destroy(a);
}
END_TEST

int main(void)
{
	const char *bin = getenv("WASP_BIN"), *src = getenv("WASP_SRCDIR");
	if (!realpath(src ? src : ".", srcdir) ||
	    !realpath(bin ? bin : "src/cli/wasp", wasp_bin)) {
		fprintf(stderr, "check_harden: set WASP_BIN and WASP_SRCDIR\n");
		return 99;
	}
	Suite *s = suite_create("harden");
	TCase *tc = tcase_create("outputs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, output_mode_and_symlink);
	tcase_add_test(tc, arena_big_chunks);
	tcase_add_test(tc, output_refused_kinds);
	tcase_add_test(tc, output_fifo);
	tcase_add_test(tc, output_write_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("input");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, control_characters);
	tcase_add_test(tc, input_cap_on_a_pipe);
	tcase_add_test(tc, max_memory_with_threads);
	tcase_add_test(tc, library_load_limits);
	tcase_add_test(tc, ilp_within_max_memory);
	tcase_add_test(tc, check_is_strict);
	tcase_add_test(tc, fixed_findings);
	suite_add_tcase(s, tc);
	tc = tcase_create("cancel");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, cancel_inside_the_lp);
	tcase_add_test(tc, second_signal_kills);
	tcase_add_test(tc, cancel_in_each_phase);
	tcase_add_test(tc, signal_while_reading);
	tcase_add_test(tc, watch_relays_and_leaves_behind);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
