/*
 * serve.c -- `wasp serve`: a long-running planner on a Unix-domain socket
 * (doc/serve.md).
 *
 * The transport: newline-delimited JSON, one request per line and one
 * response line per request, in order, on each connection; one thread
 * per connection (at most WSV_MAX_CLIENTS).  serve_ops.c answers the
 * requests.
 *
 * Signals: SIGTERM and SIGINT are blocked in every thread and read from a
 * signalfd by the main thread, so no work happens in a signal handler.
 * On the first one the server drains: it stops accepting, removes the
 * socket, and every connection answers the requests it has already
 * received, then closes.  After WSV_DRAIN_GRACE_S the solves still
 * running are cancelled (they answer with their best plan so far).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/serve_int.h"

/* First read size of a connection's buffer; it doubles up to the limit. */
#define WSV_BUF_START 65536
/* Pending connections the kernel queues for accept(). */
#define WSV_BACKLOG 64
/* Pause after accept() fails for want of descriptors or memory. */
#define WSV_ACCEPT_BACKOFF_US 10000

const char serve_help[] =
"Usage: wasp serve --socket PATH [OPTIONS] [FILE...]\n"
"\n"
"Hold the snapshot FILE... (none: an empty cluster) and answer requests\n"
"on the Unix-domain socket PATH: newline-delimited JSON, one request per\n"
"line (doc/serve.md): delta, place, assume, forget, solve, check, health\n"
"and stats.  Clients are served concurrently.\n"
"\n"
"Options:\n"
"  -s, --socket PATH       the socket to create (mode 0600); a stale\n"
"                          socket left by a crash is replaced\n"
"      --journal FILE      append every applied delta to FILE (fsync'd)\n"
"                          and replay FILE at start, so a restart after\n"
"                          a crash holds the same snapshot\n"
"  -t, --time-limit SECS   default budget of a solve (default 60)\n"
"  -j, --threads N         OpenMP threads per request (default 1: the\n"
"                          clients give the concurrency)\n"
"  -q, --quiet             no warnings or progress on standard error\n"
"  -h, --help              show this help\n"
"\n"
"SIGTERM or SIGINT drains: no new connections, every request already\n"
"received is answered, then the server exits with status 0.\n"
"\n"
"Exit status: 0 drained after a signal, 2 bad input or usage, 3 internal\n"
"or I/O error (the socket cannot be made, the journal cannot be read).\n";

typedef struct server {
	wsv_state st;
	int drain_rd, drain_wr; /* readable once the drain starts */
	pthread_cond_t done;    /* signalled when a client leaves */
} server;

typedef struct conn {
	server *sv;
	int fd;
} conn;

/* ------------------------------------------------------------ I/O */

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Send one response line (freeing it); -1 when the client is gone. */
static int respond(int fd, char *line)
{
	if (!line)
		line = wsv_error_line(WASP_ENOMEM, "out of memory");
	if (!line)
		return -1;
	size_t n = strlen(line);
	int rc = send_all(fd, line, n) || send_all(fd, "\n", 1) ? -1 : 0;
	free(line);
	return rc;
}

static int too_long(int fd)
{
	char msg[128];
	snprintf(msg, sizeof msg, "request longer than %ld bytes "
		 "(WSV_MAX_REQUEST_BYTES); connection closed",
		 (long)WSV_MAX_REQUEST_BYTES);
	respond(fd, wsv_error_line(WASP_ELIMIT, msg));
	return -1;
}

/* Answer every whole line in buf[0..*len); keep the partial tail.
 * Returns -1 when the connection must close. */
static int answer_lines(server *sv, int fd, char *buf, size_t *len)
{
	size_t pos = 0;
	char *nl;

	while ((nl = memchr(buf + pos, '\n', *len - pos))) {
		size_t l = (size_t)(nl - (buf + pos));
		size_t t = l;
		if (l > WSV_MAX_REQUEST_BYTES)
			return too_long(fd);
		while (t && (buf[pos + t - 1] == '\r' || buf[pos + t - 1] == ' '
			     || buf[pos + t - 1] == '\t'))
			t--;
		if (t && respond(fd, wsv_handle(&sv->st, buf + pos, t)))
			return -1;
		pos += l + 1;
	}
	memmove(buf, buf + pos, *len - pos);
	*len -= pos;
	return *len > WSV_MAX_REQUEST_BYTES ? too_long(fd) : 0;
}

/* Read what is there into the buffer (growing it); 0 on data, 1 at end
 * of input or nothing more to read without blocking, -1 on error. */
static int fill(int fd, char **buf, size_t *len, size_t *cap, int nowait)
{
	if (*cap - *len < 4096) {
		size_t ncap = *cap * 2;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	ssize_t k;
	do
		k = recv(fd, *buf + *len, *cap - *len, nowait ? MSG_DONTWAIT : 0);
	while (k < 0 && errno == EINTR);
	if (k > 0) {
		*len += (size_t)k;
		return 0;
	}
	if (k == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
		return 1;
	return -1;
}

static void *serve_conn(void *arg)
{
	conn *c = arg;
	server *sv = c->sv;
	size_t len = 0, cap = WSV_BUF_START;
	char *buf = malloc(cap);
	int draining = 0;

	while (buf) {
		if (answer_lines(sv, c->fd, buf, &len))
			break;
		if (!draining) {
			struct pollfd p[2] = {{c->fd, POLLIN, 0},
					      {sv->drain_rd, POLLIN, 0}};
			if (poll(p, 2, -1) < 0 && errno != EINTR)
				break;
			/* a request already sent is answered before the
			   drain closes the connection */
			if (p[1].revents && !(p[0].revents & POLLIN))
				draining = 1;
			if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
		}
		if (fill(c->fd, &buf, &len, &cap, draining))
			break;
	}
	free(buf);
	close(c->fd);
	pthread_mutex_lock(&sv->st.lock);
	sv->st.clients--;
	pthread_cond_signal(&sv->done);
	pthread_mutex_unlock(&sv->st.lock);
	free(c);
	return NULL;
}

/* ------------------------------------------------------------ socket */

/* Bind PATH; a socket file nobody listens on (left by a crash) is
 * replaced, anything else is refused. */
static int make_socket(const char *path, int quiet)
{
	struct sockaddr_un sa;
	struct stat sb;

	if (strlen(path) >= sizeof sa.sun_path) {
		fprintf(stderr, "wasp serve: socket path too long (at most "
			"%zu bytes): %s\n", sizeof sa.sun_path - 1, path);
		return -2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode)) {
			fprintf(stderr, "wasp serve: %s exists and is not a "
				"socket\n", path);
			close(fd);
			return -2;
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
			fprintf(stderr, "wasp serve: %s is being served by "
				"another process\n", path);
			close(fd);
			return -2;
		}
		if (!quiet)
			fprintf(stderr, "wasp serve: replacing the stale "
				"socket %s\n", path);
		unlink(path);
		close(fd);
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return -1;
	}
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (rc || listen(fd, WSV_BACKLOG)) {
		fprintf(stderr, "wasp serve: cannot listen on %s: %s\n", path,
			strerror(errno));
		close(fd);
		return -2;
	}
	return fd;
}

/* ------------------------------------------------------------ main loop */

static void accept_one(server *sv, int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		/* out of descriptors: the listening socket stays readable, so
		   wait a little rather than spin */
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
		    errno == ENOBUFS)
			usleep(WSV_ACCEPT_BACKOFF_US);
		return;
	}
	struct timeval tv = {WSV_SEND_TIMEOUT_S, 0};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	pthread_mutex_lock(&sv->st.lock);
	int full = sv->st.clients >= WSV_MAX_CLIENTS;
	if (!full) {
		sv->st.clients++;
		sv->st.clients_total++;
	}
	pthread_mutex_unlock(&sv->st.lock);
	if (full) {
		respond(fd, wsv_error_line(WASP_ELIMIT,
					   "too many clients "
					   "(WSV_MAX_CLIENTS); try again"));
		close(fd);
		return;
	}
	conn *c = malloc(sizeof *c);
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (!c || (c->sv = sv, c->fd = fd,
		   pthread_create(&t, &attr, serve_conn, c))) {
		free(c);
		close(fd);
		pthread_mutex_lock(&sv->st.lock);
		sv->st.clients--;
		pthread_mutex_unlock(&sv->st.lock);
	}
	pthread_attr_destroy(&attr);
}

/* Wait for the clients to leave; after the grace, cancel running solves
 * and wait again. */
static void drain(server *sv)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WSV_DRAIN_GRACE_S;
	pthread_mutex_lock(&sv->st.lock);
	sv->st.draining = 1;
	pthread_mutex_unlock(&sv->st.lock);
	if (write(sv->drain_wr, "x", 1) != 1)
		return;
	pthread_mutex_lock(&sv->st.lock);
	while (sv->st.clients > 0)
		if (pthread_cond_timedwait(&sv->done, &sv->st.lock, &until) ==
		    ETIMEDOUT) {
			sv->st.cancel = 1;
			until.tv_sec += WSV_DRAIN_GRACE_S;
		}
	pthread_mutex_unlock(&sv->st.lock);
}

static int serve_loop(server *sv, int lfd, int sfd)
{
	for (;;) {
		struct pollfd p[2] = {{lfd, POLLIN, 0}, {sfd, POLLIN, 0}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) == sizeof si)
				return (int)si.ssi_signo;
		}
		if (p[0].revents & POLLIN)
			accept_one(sv, lfd);
	}
}

int cmd_serve(int argc, char **argv)
{
	enum { OPT_JOURNAL = 256 };
	static const struct option longs[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"time-limit", required_argument, NULL, 't'},
	    {"threads", required_argument, NULL, 'j'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	const char *path = NULL, *journal = NULL;
	double tl = WASP_DEFAULT_TIME_LIMIT_S;
	long threads = 1;
	int quiet = 0, c;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:t:j:qh", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			path = optarg;
			break;
		case OPT_JOURNAL:
			journal = optarg;
			break;
		case 't':
			tl = strtod(optarg, &end);
			if (end == optarg || *end || !(tl >= 0 && tl <= 1e9)) {
				fprintf(stderr, "wasp serve: invalid "
					"--time-limit value '%s' (expected a "
					"number from 0 to 1e+09)\n", optarg);
				return 2;
			}
			break;
		case 'j':
			threads = strtol(optarg, &end, 10);
			if (end == optarg || *end || threads < 0 ||
			    threads > WASP_MAX_THREADS) {
				fprintf(stderr, "wasp serve: invalid --threads "
					"value '%s' (expected an integer from "
					"0 to %d)\n", optarg, WASP_MAX_THREADS);
				return 2;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(serve_help, stdout);
			return 0;
		default:
			fputs("Try 'wasp serve --help' for more information.\n",
			      stderr);
			return 2;
		}
	}
	if (!path) {
		fputs("wasp serve: give the socket: --socket PATH\n"
		      "Try 'wasp serve --help' for more information.\n",
		      stderr);
		return 2;
	}

	/* signals first: every thread made later inherits the mask */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &sigs, SFD_CLOEXEC);

	wasp_snapshot *s = NULL;
	wasp_error err;
	char msg[1024];
	int rc;
	memset(&err, 0, sizeof err);
	if (optind < argc)
		rc = wasp_snapshot_load(&s, (const char *const *)argv + optind,
					(size_t)(argc - optind), &err);
	else
		rc = wasp_snapshot_from_text(&s, "", 0, "empty", &err);
	if (rc) {
		fprintf(stderr, "%s%s\n", err.file[0] ? "" : "wasp serve: ",
			wasp_error_format(&err, msg, sizeof msg));
		return rc == WASP_EIO || rc == WASP_ENOMEM ? 3 : 2;
	}
	for (size_t i = 0; !quiet && wasp_snapshot_warning(s, i); i++)
		fprintf(stderr, "wasp: warning: %s\n",
			wasp_snapshot_warning(s, i));

	server sv;
	int pfd[2] = {-1, -1};
	if (sfd < 0 || pipe2(pfd, O_CLOEXEC) || wsv_state_init(&sv.st, s)) {
		fprintf(stderr, "wasp serve: %s\n", strerror(errno));
		wasp_snapshot_free(s);
		return 3;
	}
	sv.drain_rd = pfd[0];
	sv.drain_wr = pfd[1];
	pthread_cond_init(&sv.done, NULL);
	sv.st.defaults.time_limit_s = tl;
	sv.st.defaults.threads = (int)threads;

	int status = 0;
	if (journal) {
		long n = 0;
		wasp_snapshot *js = sv.st.cur->s;
		rc = wsv_journal_open(&sv.st, journal, &js, &n, &err);
		sv.st.cur->s = js;
		if (rc) {
			fprintf(stderr, "%s%s\n",
				err.file[0] ? "" : "wasp serve: ",
				wasp_error_format(&err, msg, sizeof msg));
			status = rc == WASP_EIO || rc == WASP_ENOMEM ? 3 : 2;
			goto out;
		}
		if (!quiet && n)
			fprintf(stderr, "wasp serve: replayed %ld deltas "
				"from %s\n", n, journal);
	}
	int lfd = make_socket(path, quiet);
	if (lfd < 0) {
		if (lfd == -1)
			fprintf(stderr, "wasp serve: %s\n", strerror(errno));
		status = lfd == -2 ? 2 : 3;
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "wasp serve: serving %s\n", path);
	int sig = serve_loop(&sv, lfd, sfd);
	close(lfd);
	unlink(path);
	if (!quiet && sig > 0)
		fprintf(stderr, "wasp serve: %s: draining\n", strsignal(sig));
	drain(&sv);
	status = sig > 0 ? 0 : 3;
out:
	wsv_journal_close(&sv.st);
	wsv_state_fini(&sv.st);
	pthread_cond_destroy(&sv.done);
	close(pfd[0]);
	close(pfd[1]);
	close(sfd);
	return status;
}
