/*
 * sigwatch.c -- how fast does a command answer a signal?  The helper of
 * bench/signal-latency.sh (bench/README.md, "Signal latency").
 *
 *     sigwatch DELAY SIGNAL OUTFILE CMD [ARG...]
 *
 * Removes OUTFILE, starts CMD (its standard error goes to OUTFILE.err),
 * sends SIGNAL (INT or TERM) DELAY seconds after the start, then polls
 * every 100 microseconds for OUTFILE to appear (a command that writes
 * atomically renames it into place) and for CMD to end.  Prints one
 * line:
 *
 *     file_ms exit_ms status
 *
 * the milliseconds from the signal to OUTFILE in place and to the exit
 * ("-" when the file never came), and the exit status (or "sigN").
 * When CMD ends before DELAY no signal is sent and the line reads
 * "early - status".  Built by signal-latency.sh with cc; no wasp code.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_NS 100000L /* 0.1 ms between looks */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

static void status_text(int st, char *buf, size_t size)
{
	if (WIFEXITED(st))
		snprintf(buf, size, "%d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, size, "sig%d", WTERMSIG(st));
	else
		snprintf(buf, size, "?");
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: sigwatch DELAY INT|TERM OUTFILE CMD "
				"[ARG...]\n");
		return 2;
	}
	double delay = atof(argv[1]);
	int sig = !strcmp(argv[2], "TERM") ? SIGTERM : SIGINT;
	const char *out = argv[3];
	char errpath[4096];
	snprintf(errpath, sizeof errpath, "%s.err", out);
	unlink(out);
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("sigwatch: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	int st = 0;
	char stx[32];
	while (now() - t0 < delay) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			status_text(st, stx, sizeof stx);
			printf("early - %s\n", stx);
			return 0;
		}
		nap(POLL_NS);
	}
	kill(pid, sig);
	double ts = now(), tf = -1, te = -1;
	struct stat sb;
	while (te < 0) {
		if (tf < 0 && stat(out, &sb) == 0)
			tf = now();
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			te = now();
		else if (w < 0 && errno != EINTR)
			break;
		else
			nap(POLL_NS);
	}
	if (tf < 0 && stat(out, &sb) == 0)
		tf = te;
	status_text(st, stx, sizeof stx);
	if (tf >= 0)
		printf("%.1f %.1f %s\n", (tf - ts) * 1e3, (te - ts) * 1e3,
		       stx);
	else
		printf("- %.1f %s\n", (te - ts) * 1e3, stx);
	return 0;
}
