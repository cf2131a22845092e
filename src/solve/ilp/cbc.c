/*
 * cbc.c -- the node model solved by CBC, an external program
 * (doc/formulation.md §7b; `--solver cbc`).
 *
 * A process boundary, not a link: the model is written as CPLEX LP into
 * a private temporary folder (mkdtemp, mode 0700) with columns named
 * c<j> after their index, so that CBC keeps the names and its solution
 * maps back exactly; the warm start goes along as CBC's MIP start.  `cbc`
 * is found on PATH and started with posix_spawnp, its terminal output
 * going to a file in that folder (the library never prints).  It gets the
 * time left as its own limit; this side watches the wall clock and the
 * cancel flag, asks it to stop with SIGINT WILP_CBC_STOP_S before the
 * deadline (it then still writes its best solution) and kills it
 * WILP_CBC_GRACE_S later.  The solution is
 * read by column name, rounded, and checked row by row (wm_check) before
 * it becomes a plan; the folder is removed on every path.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "solve/ilp/ilp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* CBC is asked to stop (SIGINT) this long before the deadline, and
 * killed WILP_CBC_GRACE_S later if it has not written its solution and
 * ended: the run's budget holds. */
#define WILP_CBC_STOP_S 1.0
#define WILP_CBC_GRACE_S 0.8
/* CBC's own limit is the time left less this (it counts CPU time and
 * does not look at the clock while preprocessing). */
#define WILP_CBC_MARGIN_S 0.5
/* The wait loop's poll interval. */
#define WILP_CBC_POLL_NS 10000000L
/* Half a unit of the last digit of the bound CBC prints ("Upper bound:
 * 93897742.000"): the printed bound plus this is at least the real one. */
#define WILP_CBC_PRINT_ROUND (5e-4 + 1e-9)
/* Values within this of an integer are that integer. */
#define WILP_CBC_INT_TOL 1e-6

typedef struct cbc_files {
	char dir[256];
	char lp[300], start[300], sol[300], log[300];
} cbc_files;

bool wilp_cbc_available(void)
{
	const char *name = "cbc";
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char buf[4096];
		if (n && n + strlen(name) + 2 < sizeof buf) {
			memcpy(buf, path, n);
			buf[n] = '/';
			strcpy(buf + n + 1, name);
			if (access(buf, X_OK) == 0)
				return true;
		}
		path += n + (path[n] == ':');
	}
	return false;
}

static int make_dir(cbc_files *f, wasp_error *err)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 200)
		tmp = "/tmp";
	snprintf(f->dir, sizeof f->dir, "%s/wasp-cbc-XXXXXX", tmp);
	if (!mkdtemp(f->dir))
		return werr(err, WASP_EIO, "cannot make a temporary folder in "
					   "%s: %s",
			    tmp, strerror(errno));
	snprintf(f->lp, sizeof f->lp, "%s/model.lp", f->dir);
	snprintf(f->start, sizeof f->start, "%s/start.sol", f->dir);
	snprintf(f->sol, sizeof f->sol, "%s/answer.sol", f->dir);
	snprintf(f->log, sizeof f->log, "%s/cbc.log", f->dir);
	return WASP_OK;
}

static void remove_dir(const cbc_files *f)
{
	unlink(f->lp);
	unlink(f->start);
	unlink(f->sol);
	unlink(f->log);
	rmdir(f->dir);
}

/* The model as CPLEX LP (GLPK's writer) with columns named c<j>. */
static int write_lp(const wm *m, const char *path, wasp_error *err)
{
	wilp_run r;
	memset(&r, 0, sizeof r);
	if (wilp_glpk_begin(&r, err))
		return WASP_ENOMEM;
	if (setjmp(r.env.jb))
		return wgl_fault(&r.env, err);
	r.env.P = glp_create_prob();
	wilp_load_prob(m, r.env.P, -1, NULL);
	for (int j = 1; j <= m->ncols; j++) {
		char nm[24];
		snprintf(nm, sizeof nm, "c%d", j);
		glp_set_col_name(r.env.P, j, nm);
	}
	int rc = glp_write_lp(r.env.P, NULL, path);
	wgl_end(&r.env);
	return rc ? werr(err, WASP_EIO, "cannot write %s", path) : WASP_OK;
}

/* The MIP start in the format of CBC's own solution files. */
static int write_start(const wm *m, const double *v, const char *path,
		       wasp_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return werr(err, WASP_EIO, "cannot write %s", path);
	fprintf(f, "Stopped on iterations - objective value %.17g\n",
		(double)wilp_obj_at(m, -1, v));
	for (int j = 1; j <= m->ncols; j++)
		fprintf(f, "%d c%d %.17g 0\n", j - 1, j, v[j]);
	if (ferror(f) | fclose(f))
		return werr(err, WASP_EIO, "cannot write %s", path);
	return WASP_OK;
}

static double now_s(void)
{
	return wb_now();
}

static bool cancelled(const wasp_options *o)
{
	return o && o->cancel && *o->cancel;
}

/* Start cbc and wait for it: SIGINT at the deadline or a cancel, SIGKILL
 * WILP_CBC_GRACE_S later.  0: it ended by itself or after SIGINT. */
static int run_cbc(const cbc_files *f, const wasp_options *o, wb_deadline dl,
		   bool start, wasp_error *err)
{
	double left = wdl_left(dl, 0);
	char sec[32], gap[32];
	snprintf(sec, sizeof sec, "%.3f",
		 wdl_is_none(dl) ? 1e9
				 : (left - WILP_CBC_STOP_S - WILP_CBC_MARGIN_S > 0.05
					? left - WILP_CBC_STOP_S - WILP_CBC_MARGIN_S
					: 0.05));
	snprintf(gap, sizeof gap, "%.6g", o ? o->gap : 0.0);
	char *argv[16];
	int k = 0;
	argv[k++] = "cbc";
	argv[k++] = (char *)f->lp;
	if (start) {
		argv[k++] = "-mipstart";
		argv[k++] = (char *)f->start;
	}
	argv[k++] = "-sec";
	argv[k++] = sec;
	argv[k++] = "-ratioGap";
	argv[k++] = gap;
	argv[k++] = "-solve";
	argv[k++] = "-solution";
	argv[k++] = (char *)f->sol;
	argv[k++] = "-quit";
	argv[k] = NULL;

	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa))
		return werr(err, WASP_ENOMEM, "out of memory");
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, f->log,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	pid_t pid;
	int rc = posix_spawnp(&pid, "cbc", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return werr(err, WASP_ESOLVER, "cannot run cbc: %s",
			    strerror(rc));
	double killed_at = -1;
	bool stopped = false;
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		double t = now_s();
		if (!stopped &&
		    (cancelled(o) || wdl_passed(dl, WILP_CBC_STOP_S))) {
			kill(pid, SIGINT);
			stopped = true;
			killed_at = t;
		} else if (stopped && t - killed_at > WILP_CBC_GRACE_S) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return werr(err, WASP_ECANCELED,
				    "cbc did not stop at the deadline");
		}
		struct timespec ts = {0, WILP_CBC_POLL_NS};
		nanosleep(&ts, NULL);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return werr(err, WASP_ESOLVER, "cannot run cbc");
	if (WIFSIGNALED(status) && !stopped)
		return werr(err, WASP_ESOLVER, "cbc was killed by signal %d",
			    WTERMSIG(status));
	return WASP_OK;
}

/* A number after `label` in CBC's log, or NAN. */
static double log_number(const char *path, const char *label)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NAN;
	char line[512];
	double v = NAN;
	while (fgets(line, sizeof line, f)) {
		const char *s = strstr(line, label);
		if (s)
			v = strtod(s + strlen(label), NULL);
	}
	fclose(f);
	return v;
}

/* CBC's best bound from the summary it prints last, in the model's
 * own sense: "Upper bound:" for a maximisation (the LP says Maximize),
 * "Lower bound:" for a minimisation; NAN when it printed none.  (Its
 * "Gap:" has only two decimals and, maximising, a minus sign: 93,897,729
 * against a bound of 93,897,742 prints "Gap: -0.00".) */
static double log_bound(const char *path)
{
	double b = log_number(path, "Upper bound:");
	return isnan(b) ? log_number(path, "Lower bound:") : b;
}

/* CBC's solution file into v (columns c<j>; the rest keep their lower
 * bound).  1: a solution, *optimal set; 0: none; -1: unreadable. */
static int read_sol(const wm *m, const char *path, double *v, bool *optimal)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512];
	int found = 0;
	*optimal = false;
	if (fgets(line, sizeof line, f)) {
		/* "Optimal - objective value ...", "Stopped on time - ...",
		 * "Infeasible - ...", "Integer infeasible - ..." */
		found = strstr(line, "nfeasible") == NULL &&
			strstr(line, "objective value") != NULL;
		*optimal = !strncmp(line, "Optimal", 7);
	}
	for (int j = 1; j <= m->ncols; j++)
		v[j] = m->clb[j] > 0 ? m->clb[j] : 0 < m->cub[j] ? 0 : m->cub[j];
	while (found && fgets(line, sizeof line, f)) {
		char *s = line;
		while (*s == ' ' || *s == '*')
			s++;
		char *e;
		strtol(s, &e, 10); /* the index */
		if (e == s)
			continue;
		s = e;
		while (*s == ' ')
			s++;
		if (*s != 'c')
			continue;
		long j = strtol(s + 1, &e, 10);
		if (e == s + 1 || j < 1 || j > m->ncols || *e != ' ') {
			found = -1;
			break;
		}
		double x = strtod(e, NULL);
		double r = floor(x + 0.5);
		if (fabs(x - r) > WILP_CBC_INT_TOL) {
			found = -1;
			break;
		}
		v[j] = r;
	}
	fclose(f);
	return found;
}

typedef struct cbc_state {
	wm m;
	cbc_files f;
} cbc_state;

int wilp_solve_cbc(const wp_problem *p, const wasp_options *o,
		   wb_deadline dl, const wp_sol *warm, wp_sol *out,
		   wilp_stats *st, wasp_error *err)
{
	double t0 = wb_now();
	wilp_stats_reset(st);
	st->status = "none";
	if (!wilp_cbc_available())
		return werr(err, WASP_ESOLVER, "cbc is not installed (no "
					       "'cbc' on PATH)");
	wa_arena *ar = wa_new();
	cbc_state *C = ar ? wa_alloc(ar, sizeof *C) : NULL;
	if (!C) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	wm *m = &C->m;
	int rc = wm_build(m, p, ar, WILP_MAX_COEF, false, false,
			  wdl_sooner(dl, WDL_MARGIN_PHASE_S),
			  o ? o->cancel : NULL);
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the ILP");
	}
	double *v = wa_calloc(ar, m->ncols + 1, sizeof *v);
	int *xw = wa_calloc(ar, p->nx + 1, sizeof *xw);
	if (!v || !xw) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	st->rows = m->nrows;
	st->cols = st->ints = m->ncols;
	st->nonzeros = m->nnz;
	bool ok = false, optimal = false;
	if (!m->late) {
		int wr = wilp_warm_vec(m, warm, xw, v);
		if (wr < 0) {
			wa_destroy(ar);
			return werr(err, WASP_ENOMEM, "out of memory");
		}
		if ((rc = make_dir(&C->f, err))) {
			wa_destroy(ar);
			return rc;
		}
		rc = write_lp(m, C->f.lp, err);
		if (!rc && wr == 1)
			rc = write_start(m, v, C->f.start, err);
		if (!rc)
			rc = run_cbc(&C->f, o, dl, wr == 1, err);
		int got = rc ? 0 : read_sol(m, C->f.sol, v, &optimal);
		ok = got == 1 && wm_check(&m->b, v, 0) == 0;
		double ub = ok ? log_bound(C->f.log) : NAN;
		if (!isnan(ub) && wilp_int_objective(m, -1)) {
			/* integer objective: so is its best value; a bound
			 * it meets proves the answer optimal */
			ub = floor(ub + WILP_CBC_PRINT_ROUND);
			optimal |= (double)wilp_obj_at(m, -1, v) >= ub;
		}
		remove_dir(&C->f);
		if (rc && rc != WASP_ECANCELED) {
			wa_destroy(ar);
			return rc;
		}
		if (got < 0) {
			wa_destroy(ar);
			return werr(err, WASP_ESOLVER, "cbc's solution could "
						       "not be read");
		}
		st->bound = ub;
	}
	bool mip_ok = ok && wilp_read_answer(m, v, true, warm, out);
	const char *mst = optimal ? "optimal" : "feasible";
	wp_value vm, vw;
	if (mip_ok && warm) {
		wp_evaluate(p, out, &vm);
		wp_evaluate(p, warm, &vw);
	}
	if (mip_ok && (!warm || wp_value_cmp(&vm, &vw) > 0)) {
		st->improved = warm != NULL;
		st->status = mst;
	} else if (warm) {
		wp_sol_copy(p, out, warm);
		/* CBC proved the warm start optimal, or found nothing better */
		st->status = mip_ok && optimal ? "optimal" : "greedy";
	} else {
		wp_x_clear(out);
		wp_fill_admission(p, NULL, NULL, out);
		wp_sol_no_disruption(p, out);
		out->dra = NULL;
	}
	/* a build the deadline cut short has no objective to read */
	st->objective = m->late ? NAN : wilp_answer_obj(m, out);
	if (mip_ok && optimal) {
		st->bound = st->objective;
		st->gap = 0;
	} else if (!isnan(st->bound) && !isnan(st->objective)) {
		/* CBC's bound is on the exported model's objective, the
		 * units of st->objective (the answer is at most it) */
		if (st->bound < st->objective)
			st->bound = st->objective;
		st->gap = (st->bound - st->objective) /
			  (fabs(st->objective) > 1e-9 ? fabs(st->objective)
						      : 1e-9);
	} else {
		st->bound = st->gap = NAN;
	}
	st->seconds = wb_now() - t0;
	wa_destroy(ar);
	return WASP_OK;
}
