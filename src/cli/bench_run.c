/*
 * bench_run.c -- running one row of `wasp bench` (bench/README.md, "How a
 * row is measured").
 *
 * Each run happens in a forked child: its peak memory is the child's own
 * ru_maxrss, a watchdog kills it after the instance's timeout, and a crash
 * costs that one row.  The solve child loads the snapshot, solves and
 * renders the plan to a file, and reports its load and solve times on a
 * pipe; for cbc the same, with the ILP solved by the cbc program.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/bench_int.h"

/* ilp-node: the ILP with --node-model (no model over parts) */
static const int solver_mode[S_NSOLVERS] = {
    WASP_MODE_GREEDY, WASP_MODE_ILP, WASP_MODE_AUTO, WASP_MODE_PODWISE,
    WASP_MODE_BESTFIT, WASP_MODE_ILP, WASP_MODE_ILP};

/* ------------------------------------------------------------ children */

static double now_s(void)
{
	return wasp_now();
}

/* Read everything from fd until EOF or the deadline, keeping the last
 * cap - 1 bytes; returns the bytes kept, -1 on timeout. */
static long read_until(int fd, char *buf, size_t cap, double deadline)
{
	size_t n = 0;
	for (;;) {
		double left = deadline - now_s();
		if (left <= 0)
			return -1;
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue; /* loop re-checks the deadline */
		char tmp[4096];
		ssize_t got = read(fd, tmp, sizeof tmp);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		/* keep the last cap - 1 bytes (cbc's verdict comes last) */
		size_t take = (size_t)got;
		if (take > cap - 1) {
			memcpy(buf, tmp + (take - (cap - 1)), cap - 1);
			n = cap - 1;
			continue;
		}
		if (n + take > cap - 1) {
			size_t drop = n + take - (cap - 1);
			memmove(buf, buf + drop, n - drop);
			n -= drop;
		}
		memcpy(buf + n, tmp, take);
		n += take;
	}
	buf[n] = 0;
	return (long)n;
}

int bench_run_child(child_fn fn, void *arg, double timeout, char *out,
		    size_t outsz, long *maxrss_kb, int *status, int *timed_out)
{
	int fds[2];
	fflush(NULL);
	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0) {
			dup2(nul, 1);
			dup2(nul, 2);
			close(nul);
		}
		_exit(fn(arg, fds[1]));
	}
	close(fds[1]);
	*timed_out = 0;
	long n = read_until(fds[0], out, outsz, now_s() + timeout);
	if (n < 0) {
		*timed_out = 1;
		kill(pid, SIGKILL);
		out[0] = 0;
	}
	close(fds[0]);
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	while (wait4(pid, status, 0, &ru) < 0 && errno == EINTR)
		;
	*maxrss_kb = ru.ru_maxrss;
	return 0;
}

int bench_write_raw(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void fd_printf(int fd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fd_printf(int fd, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	(void)bench_write_raw(fd, buf, (size_t)n);
}

static void fd_error(int fd, const char *what, const wasp_error *e)
{
	char buf[1024];
	fd_printf(fd, "error %s: %s\n", what,
		  wasp_error_format(e, buf, sizeof buf));
}

/* Load a child's snapshot and set up its solver options; NULL (reported
 * on fd) on failure. */
static wasp_snapshot *child_load(int fd, const char *snap, int mode,
				 int node_model, double time, wasp_options *o)
{
	wasp_error err;
	wasp_snapshot *s = NULL;
	const char *paths[1] = {snap};

	memset(&err, 0, sizeof err);
	if (wasp_snapshot_load(&s, paths, 1, &err)) {
		fd_error(fd, "load", &err);
		return NULL;
	}
	wasp_options_init(o);
	o->mode = mode;
	o->node_model = node_model;
	o->time_limit_s = time;
	return s;
}

/* The solve child: load, solve, render to the plan file; report times. */
typedef struct solve_arg {
	const char *snap, *plan;
	int mode;
	double time;
	int node_model;
	int solver;
} solve_arg;

static int solve_child(void *arg, int fd)
{
	const solve_arg *a = arg;
	wasp_error err;
	wasp_plan *p = NULL;
	wasp_options o;

	memset(&err, 0, sizeof err);
	double t0 = wasp_now();
	wasp_snapshot *s = child_load(fd, a->snap, a->mode, a->node_model,
				      a->time, &o);
	if (!s)
		return 2;
	double t1 = wasp_now();
	o.start_time = t0;
	o.solver = a->solver;
	int rc = 3;
	if (wasp_solve(s, &o, &p, &err)) {
		fd_error(fd, "solve", &err);
		goto out;
	}
	double t2 = wasp_now();
	char *text = wasp_plan_render(p, WASP_FORMAT_JSON, &err);
	if (!text) {
		fd_error(fd, "render", &err);
		goto out;
	}
	if (bench_write_all(a->plan, text, strlen(text)))
		fd_printf(fd, "error write %s: %s\n", a->plan,
			  strerror(errno));
	else
		rc = 0;
	wasp_free(text);
	if (!rc)
		fd_printf(fd, "ok %.6f %.6f %.6f\n", t1 - t0, t2 - t1,
			  t2 - t0);
out:
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	return rc;
}

int bench_write_all(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(text, 1, len, f);
	int bad = ferror(f) | (w != len);
	if (fclose(f) || bad)
		return -1;
	return 0;
}


static const char *tmp_path(tmpfiles *t, const char *name, const char *ext)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->paths = realloc(t->paths, sizeof *t->paths * t->cap);
		if (!t->paths) {
			fprintf(stderr, "wasp bench: out of memory\n");
			exit(EX_INTERNAL);
		}
	}
	size_t n = strlen(t->dir) + strlen(name) + strlen(ext) + 3;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s%s", t->dir, name, ext);
	t->paths[t->n++] = p;
	return p;
}

void bench_tmp_cleanup(tmpfiles *t, int keep)
{
	for (int i = 0; i < t->n; i++) {
		if (!keep)
			unlink(t->paths[i]);
		free(t->paths[i]);
	}
	free(t->paths);
	if (!keep && t->dir[0])
		rmdir(t->dir);
}

/* Generate a gen instance into the temporary directory. */
int bench_materialize(const instance *in, tmpfiles *t, const char **path,
		      char *msg, size_t msz)
{
	if (!in->has_gen) {
		*path = in->file;
		if (access(in->file, R_OK)) {
			snprintf(msg, msz, "%s: %s", in->file, strerror(errno));
			return -1;
		}
		return 0;
	}
	wasp_error err;
	memset(&err, 0, sizeof err);
	char *text = wasp_gen(&in->gen, &err);
	if (!text) {
		char buf[700];
		snprintf(msg, msz, "gen: %s",
			 wasp_error_format(&err, buf, sizeof buf));
		return -1;
	}
	*path = tmp_path(t, in->name, ".json");
	int rc = bench_write_all(*path, text, strlen(text));
	wasp_free(text);
	if (rc) {
		snprintf(msg, msz, "cannot write %s: %s", *path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void child_failed(row *r, int timed_out, int status,
			 const char *report, double timeout)
{
	if (timed_out) {
		snprintf(r->state, sizeof r->state, "timeout");
		snprintf(r->msg, sizeof r->msg, "killed after %.0f s", timeout);
	} else if (WIFSIGNALED(status)) {
		snprintf(r->state, sizeof r->state, "crashed");
		snprintf(r->msg, sizeof r->msg, "killed by signal %d",
			 WTERMSIG(status));
	} else {
		snprintf(r->state, sizeof r->state, "error");
		const char *e = strncmp(report, "error ", 6) ? report
							     : report + 6;
		size_t n = strcspn(e, "\n");
		snprintf(r->msg, sizeof r->msg, "%.*s", (int)n,
			 n ? e : "the run failed without a message");
	}
}

void bench_run_solver(row *r, const instance *in, const char *snap,
		      tmpfiles *t)
{
	char out[65536], name[300];
	long rss = 0;
	int status = 0, timed_out = 0;

	snprintf(name, sizeof name, "%s.%s", in->name,
		 bench_solver_name[r->solver]);
	/* cbc: the node model solved by the cbc program (--solver cbc),
	 * its plan measured like any other; skipped without cbc */
	solve_arg a = {snap, tmp_path(t, name, ".plan.json"),
		       solver_mode[r->solver], in->time,
		       r->solver == S_ILPNODE || r->solver == S_CBC,
		       r->solver == S_CBC ? WASP_SOLVER_CBC
					  : WASP_SOLVER_GLPK};
	if (bench_run_child(solve_child, &a, in->timeout, out, sizeof out,
			    &rss, &status, &timed_out)) {
		snprintf(r->state, sizeof r->state, "error");
		snprintf(r->msg, sizeof r->msg, "fork: %s", strerror(errno));
		return;
	}
	r->peak_kb = rss;
	if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    sscanf(out, "ok %lf %lf %lf", &r->t_load, &r->t_solve,
		   &r->t_total) != 3) {
		child_failed(r, timed_out, status, out, in->timeout);
		if (r->solver == S_CBC && strstr(out, "cbc is not installed"))
			snprintf(r->state, sizeof r->state, "skipped");
		return;
	}
	snprintf(r->plan, sizeof r->plan, "%s", a.plan);
	snprintf(r->state, sizeof r->state, "ok");
}

