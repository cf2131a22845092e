/*
 * kubectl.c -- one kubectl call with captured output (kubectl.h).
 *
 * Standard output comes back through a pipe; standard error goes to an
 * unlinked temporary file, read after the child exits, so that neither
 * stream can block the other.  Inputs are small (an Eviction body, a
 * patch) and written before the output is read.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli/kubectl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

/* Read fd to its end into a malloc'd string; NULL on NOMEM. */
static char *slurp_fd(int fd)
{
	size_t n = 0, cap = 4096;
	char *b = malloc(cap);
	while (b) {
		if (n + 1 >= cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return NULL;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (b)
		b[n] = 0;
	return b;
}

static void print_cmd(const char *const *argv)
{
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
}

int wkc_call(const wkc *k, const char *const *args, const char *input,
	     wkc_result *r)
{
	const char *argv[WKC_MAX_ARGS + 1];
	int n = 0;
	memset(r, 0, sizeof *r);
	r->status = -1;
	argv[n++] = k->bin ? k->bin : "kubectl";
	if (k->kubeconfig) {
		argv[n++] = "--kubeconfig";
		argv[n++] = k->kubeconfig;
	}
	if (k->context) {
		argv[n++] = "--context";
		argv[n++] = k->context;
	}
	for (int i = 0; args[i] && n < WKC_MAX_ARGS; i++)
		argv[n++] = args[i];
	argv[n] = NULL;

	int out[2] = {-1, -1}, in[2] = {-1, -1};
	FILE *errf = tmpfile();
	if (!errf || pipe(out) || (input && pipe(in))) {
		fprintf(stderr, "wasp: cannot run %s: %s\n", argv[0],
			strerror(errno));
		if (errf)
			fclose(errf);
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "wasp: cannot run %s: %s\n", argv[0],
			strerror(errno));
		fclose(errf);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(input ? in[0] : devnull, 0);
		dup2(out[1], 1);
		dup2(fileno(errf), 2);
		close(out[0]);
		if (input)
			close(in[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(out[1]);
	if (input) {
		/* a child that exits early must not kill us with SIGPIPE */
		struct sigaction ign, old;
		memset(&ign, 0, sizeof ign);
		ign.sa_handler = SIG_IGN;
		sigaction(SIGPIPE, &ign, &old);
		close(in[0]);
		size_t len = strlen(input), off = 0;
		while (off < len) {
			ssize_t w = write(in[1], input + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(in[1]);
		sigaction(SIGPIPE, &old, NULL);
	}
	r->out = slurp_fd(out[0]);
	close(out[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	rewind(errf);
	r->err = slurp_fd(fileno(errf));
	fclose(errf);
	if (!r->out || !r->err) {
		wkc_result_free(r);
		fprintf(stderr, "wasp: out of memory reading %s\n", argv[0]);
		return -1;
	}
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (r->status == 127) {
		fprintf(stderr, "wasp: %s", r->err);
		wkc_result_free(r);
		return -1;
	}
	return 0;
}

bool wkc_option(wkc *k, int c, const char *arg)
{
	switch (c) {
	case 'k': k->kubeconfig = arg; return true;
	case 'c': k->context = arg; return true;
	case 'K': k->bin = arg; return true;
	default: return false;
	}
}

void wkc_result_free(wkc_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int wkc_run(const wkc *k, const char *const *args, const char *input,
	    char **out)
{
	wkc_result r;
	*out = NULL;
	if (wkc_call(k, args, input, &r))
		return CLI_INTERNAL;
	if (r.status != 0) {
		fputs(r.err, stderr);
		fprintf(stderr, "wasp: kubectl failed (exit %d): ", r.status);
		print_cmd(args);
		fputc('\n', stderr);
		wkc_result_free(&r);
		return CLI_INTERNAL;
	}
	free(r.err);
	*out = r.out;
	return CLI_OK;
}
