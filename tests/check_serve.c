/*
 * check_serve.c -- `wasp serve` end to end (doc/serve.md).
 *
 * Each test starts $WASP_BIN serve on a socket in a fresh temporary
 * directory, talks to it with the small client below, and stops it with
 * SIGTERM (checking the drain: requests already sent are answered, the
 * exit status is 0, the socket is gone).  Every plan the server returns
 * is checked twice: by the server's check op and, independently, by
 * wasp_check on a snapshot this process loads itself.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/serve_int.h"
#include "testutil.h"

#define GPU16 "models/examples/gpu16.yaml"
/* Connection attempts while the server starts, 10 ms apart. */
#define START_TRIES 3000

static char wasp_bin[4096];
static char tmpdir[4096];
static char sock[4200];

/* ------------------------------------------------------------ server */

static pid_t start_server(const char *journal)
{
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		const char *argv[10];
		int n = 0;
		argv[n++] = wasp_bin;
		argv[n++] = "serve";
		argv[n++] = "-q";
		argv[n++] = "--socket";
		argv[n++] = sock;
		if (journal) {
			argv[n++] = "--journal";
			argv[n++] = journal;
		}
		argv[n++] = tu_src_path(GPU16);
		argv[n] = NULL;
		execv(wasp_bin, (char **)argv);
		_exit(127);
	}
	return pid;
}

static int dial(void)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	ck_assert(strlen(sock) < sizeof sa.sun_path);
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(fd >= 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Connect, waiting for the server to come up. */
static int dial_wait(pid_t pid)
{
	for (int i = 0; i < START_TRIES; i++) {
		int fd = dial();
		if (fd >= 0)
			return fd;
		int st;
		ck_assert_msg(waitpid(pid, &st, WNOHANG) == 0,
			      "wasp serve exited before serving");
		usleep(10000);
	}
	ck_abort_msg("wasp serve did not start");
	return -1;
}

/* SIGTERM, then the exit status (which must be 0) and no socket left. */
static void stop_server(pid_t pid)
{
	int st;
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "wasp serve ended with status %d", st);
	ck_assert_msg(access(sock, F_OK) != 0, "socket left behind");
}

/* ------------------------------------------------------------ client */

static void send_line(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
		ck_assert_msg(k > 0, "send: %s", strerror(errno));
		s += k;
		n -= (size_t)k;
	}
	ck_assert_int_eq(send(fd, "\n", 1, MSG_NOSIGNAL), 1);
}

/* One response line (malloc'd), or NULL at end of input. */
static char *read_line(int fd)
{
	size_t n = 0, cap = 4096;
	char *b = malloc(cap), c;
	ssize_t k;
	while ((k = recv(fd, &c, 1, 0)) == 1 && c != '\n') {
		if (n + 2 > cap)
			b = realloc(b, cap *= 2);
		b[n++] = c;
	}
	if (k != 1 && n == 0) {
		free(b);
		return NULL;
	}
	b[n] = 0;
	return b;
}

static cJSON *read_response(int fd)
{
	char *line = read_line(fd);
	ck_assert_msg(line != NULL, "no response");
	cJSON *j = cJSON_Parse(line);
	ck_assert_msg(j != NULL, "response is not JSON: %.200s", line);
	ck_assert_int_eq(cJSON_GetObjectItem(j, "v")->valueint, WSV_PROTOCOL);
	free(line);
	return j;
}

static cJSON *rq(int fd, const char *line)
{
	send_line(fd, line);
	return read_response(fd);
}

static cJSON *result(cJSON *r)
{
	cJSON *ok = cJSON_GetObjectItem(r, "ok");
	if (!cJSON_IsTrue(ok)) {
		char *s = cJSON_PrintUnformatted(r);
		ck_abort_msg("request failed: %s", s);
	}
	return cJSON_GetObjectItem(r, "result");
}

static double num(cJSON *o, const char *k)
{
	cJSON *x = cJSON_GetObjectItem(o, k);
	ck_assert_msg(cJSON_IsNumber(x), "no number %s", k);
	return x->valuedouble;
}

/* The error of a failed response: its code is `code`. */
static cJSON *failed(cJSON *r, const char *code)
{
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r, "ok")));
	cJSON *e = cJSON_GetObjectItem(r, "error");
	ck_assert_msg(e != NULL, "no error object");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "code")->valuestring, code);
	ck_assert(cJSON_IsString(cJSON_GetObjectItem(e, "message")));
	return e;
}

/* The request {"v":1,"op":"check","plan":PLAN} for a result's plan. */
static char *check_request(cJSON *res)
{
	cJSON *req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "v", 1);
	cJSON_AddStringToObject(req, "op", "check");
	cJSON_AddItemReferenceToObject(req, "plan",
				       cJSON_GetObjectItem(res, "plan"));
	char *s = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	return s;
}

/* The plan of a place/solve result passes the server's check and
 * wasp_check on snapshot s; returns its placements count. */
static int plan_valid(int fd, cJSON *res, const wasp_snapshot *s)
{
	char *creq = check_request(res);
	cJSON *c = rq(fd, creq);
	free(creq);
	ck_assert_msg(num(result(c), "violations") == 0, "server check: %s",
		      cJSON_GetObjectItem(result(c), "report")->valuestring);
	cJSON_Delete(c);

	char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "plan"));
	wasp_plan *p = NULL;
	wasp_error e;
	size_t nv = 1;
	char *report = NULL;
	ck_assert_int_eq(wasp_plan_from_text(&p, text, strlen(text), "plan",
					     &e), 0);
	ck_assert_int_eq(wasp_check(s, p, &nv, &report, &e), 0);
	ck_assert_msg(nv == 0, "wasp_check: %s", report);
	int n = (int)wasp_plan_placement_count(p);
	wasp_free(report);
	wasp_plan_free(p);
	free(text);
	return n;
}

static long version_of(int fd)
{
	cJSON *r = rq(fd, "{\"v\":1,\"op\":\"health\"}");
	long v = (long)num(result(r), "snapshotVersion");
	cJSON_Delete(r);
	return v;
}

static double stat_of(int fd, const char *k)
{
	cJSON *r = rq(fd, "{\"v\":1,\"op\":\"stats\"}");
	double v = num(result(r), k);
	cJSON_Delete(r);
	return v;
}

/* ------------------------------------------------------------ fixtures */

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/wasp-serve-XXXXXX");
	ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(sock, sizeof sock, "%s/wasp.sock", tmpdir);
}

static void teardown(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[8192];
	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(tmpdir);
}

/* ------------------------------------------------------------ tests */

START_TEST(test_operations)
{
	wasp_snapshot *s = tu_load_file(GPU16);
	pid_t pid = start_server(NULL);
	int fd = dial_wait(pid);
	cJSON *r;

	r = rq(fd, "{\"v\":1,\"id\":\"a\",\"op\":\"health\"}");
	ck_assert_str_eq(cJSON_GetObjectItem(r, "id")->valuestring, "a");
	ck_assert_str_eq(cJSON_GetObjectItem(result(r), "status")->valuestring,
			 "serving");
	cJSON_Delete(r);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 16);

	/* solve: the whole snapshot */
	r = rq(fd, "{\"v\":1,\"op\":\"solve\",\"options\":{\"mode\":\"greedy\"}}");
	ck_assert_int_gt(plan_valid(fd, result(r), s), 0);
	cJSON_Delete(r);

	/* place one group: only its pods */
	r = rq(fd, "{\"v\":1,\"op\":\"place\",\"namespace\":\"ml\","
		   "\"name\":\"finetune\",\"deadlineMs\":5000,"
		   "\"options\":{\"mode\":\"greedy\"}}");
	cJSON *res = result(r);
	int placed = plan_valid(fd, res, s);
	ck_assert_int_gt(placed, 0);
	cJSON *pl;
	cJSON_ArrayForEach(pl, cJSON_GetObjectItem(cJSON_GetObjectItem(res,
			   "plan"), "placements"))
		ck_assert_str_eq(cJSON_GetObjectItem(pl, "group")->valuestring,
				 "finetune");

	/* assume it: a new version with its pods bound */
	long v0 = version_of(fd);
	double bound0 = stat_of(fd, "podsBound");
	cJSON *areq = cJSON_CreateObject();
	cJSON_AddNumberToObject(areq, "v", 1);
	cJSON_AddStringToObject(areq, "op", "assume");
	cJSON_AddItemReferenceToObject(areq, "plan",
				       cJSON_GetObjectItem(res, "plan"));
	char *atext = cJSON_PrintUnformatted(areq);
	cJSON_Delete(areq);
	cJSON *a = rq(fd, atext);
	free(atext);
	ck_assert_int_eq((long)num(result(a), "snapshotVersion"), v0 + 1);
	cJSON_Delete(a);
	cJSON_Delete(r);
	ck_assert_int_eq((int)stat_of(fd, "podsBound"), (int)bound0 + placed);

	/* forget it: back to the bound pods of before; twice: not found */
	r = rq(fd, "{\"v\":1,\"op\":\"forget\",\"kind\":\"PodGroup\","
		   "\"namespace\":\"ml\",\"name\":\"finetune\"}");
	ck_assert_int_eq((long)num(result(r), "snapshotVersion"), v0 + 2);
	cJSON_Delete(r);
	ck_assert_int_eq((int)stat_of(fd, "podsBound"), (int)bound0);
	r = rq(fd, "{\"v\":1,\"op\":\"forget\",\"namespace\":\"ml\","
		   "\"name\":\"finetune\"}");
	failed(r, "ENOTFOUND");
	cJSON_Delete(r);

	/* a delta: a node as text, then deleted by name */
	r = rq(fd, "{\"v\":1,\"op\":\"delta\",\"put\":[\"apiVersion: v1\\n"
		   "kind: Node\\nmetadata:\\n  name: extra\\n  labels:\\n"
		   "    kubernetes.io/hostname: extra\\nstatus:\\n"
		   "  allocatable: {cpu: '8', memory: 64Gi, pods: '110'}\\n\"]}");
	result(r);
	cJSON_Delete(r);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 17);
	r = rq(fd, "{\"v\":1,\"op\":\"delta\",\"delete\":[{\"kind\":\"Node\","
		   "\"name\":\"extra\"}]}");
	result(r);
	cJSON_Delete(r);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 16);

	/* a bad object: its position in its own text, nothing changed */
	long v1 = version_of(fd);
	r = rq(fd, "{\"v\":1,\"op\":\"delta\",\"put\":[\"apiVersion: v1\\n"
		   "kind: Node\\nmetadata:\\n  name: x\\nstatus:\\n"
		   "  allocatable:\\n    cpu: lots\\n\"]}");
	cJSON *e = failed(r, "EINPUT");
	ck_assert_str_eq(cJSON_GetObjectItem(e, "file")->valuestring, "put[0]");
	ck_assert_int_eq(cJSON_GetObjectItem(e, "line")->valueint, 7);
	cJSON_Delete(r);
	ck_assert_int_eq(version_of(fd), v1);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 16);

	/* a plan against a missing group */
	r = rq(fd, "{\"v\":1,\"op\":\"place\",\"namespace\":\"ml\","
		   "\"name\":\"nope\"}");
	failed(r, "ENOTFOUND");
	cJSON_Delete(r);
	close(fd);
	stop_server(pid);
	wasp_snapshot_free(s);
}
END_TEST

/* Malformed requests: a structured error with a position where there is
 * one; the held snapshot and the connection survive. */
START_TEST(test_malformed)
{
	static const struct {
		const char *req, *code;
		int col; /* 0: no position expected */
	} bad[] = {
	    {"{\"v\":1,\"op\":\"health\"", "EINPUT", 1},
	    {"[1,2]", "EINPUT", 1},
	    {"{\"v\":1}", "EINPUT", 1},
	    {"{\"v\":2,\"op\":\"health\"}", "EINVAL", 6},
	    {"{\"op\":\"health\"}", "EINVAL", 1},
	    {"{\"v\":1,\"op\":\"launch\"}", "EINVAL", 13},
	    {"{\"v\":1,\"op\":\"place\",\"name\":7}", "EINPUT", 28},
	    {"{\"v\":1,\"op\":\"place\",\"name\":\"x\",\"deadlineMs\":\"soon\"}",
	     "EINPUT", 45},
	    {"{\"v\":1,\"op\":\"solve\",\"options\":{\"mode\":\"fast\"}}",
	     "EINPUT", 39},
	    {"{\"v\":1,\"op\":\"solve\",\"options\":{\"threads\":100000}}",
	     "EINPUT", 42},
	    {"{\"v\":1,\"op\":\"check\",\"plan\":\"no\"}", "EINPUT", 28},
	    {"{\"v\":1,\"op\":\"assume\",\"plan\":{\"kind\":\"Plan\"}}",
	     "EINPUT", 0},
	    {"{\"v\":1,\"op\":\"delta\",\"put\":[1]}", "EINPUT", 28},
	    {"{\"v\":1,\"op\":\"delta\",\"delete\":[{\"kind\":\"Pod\"}]}",
	     "EINPUT", 31},
	    {"\xff\xfe{}", "EINPUT", 0},
	};
	pid_t pid = start_server(NULL);
	int fd = dial_wait(pid);
	long v = version_of(fd);

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cJSON *r = rq(fd, bad[i].req);
		cJSON *e = failed(r, bad[i].code);
		if (bad[i].col) {
			ck_assert_str_eq(cJSON_GetObjectItem(e, "file")
					     ->valuestring, "request");
			ck_assert_int_eq(cJSON_GetObjectItem(e, "line")
					     ->valueint, 1);
			ck_assert_msg(cJSON_GetObjectItem(e, "col")->valueint ==
				      bad[i].col, "%s: col %d, want %d",
				      bad[i].req,
				      cJSON_GetObjectItem(e, "col")->valueint,
				      bad[i].col);
		}
		cJSON_Delete(r);
	}
	ck_assert_int_eq(version_of(fd), v);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 16);
	ck_assert_int_eq((int)stat_of(fd, "errors"), (int)(sizeof bad /
							   sizeof *bad));

	/* oversized: ELIMIT, then the connection closes */
	int big = dial();
	ck_assert(big >= 0);
	size_t n = WSV_MAX_REQUEST_BYTES + 2;
	char *junk = malloc(n);
	memset(junk, ' ', n);
	junk[0] = '{';
	size_t sent = 0;
	while (sent < n) {
		ssize_t k = send(big, junk + sent, n - sent, MSG_NOSIGNAL);
		if (k <= 0)
			break; /* the server closed: the answer is queued */
		sent += (size_t)k;
	}
	free(junk);
	cJSON *r = read_response(big);
	failed(r, "ELIMIT");
	cJSON_Delete(r);
	ck_assert_ptr_null(read_line(big));
	close(big);
	ck_assert_int_eq(version_of(fd), v);
	close(fd);
	stop_server(pid);
}
END_TEST

/* Clients at once: each places groups and checks the plans. */
#define NCLIENTS 6
#define ROUNDS 5
static const wasp_snapshot *shared;

static void *client_thread(void *arg)
{
	static const char *const groups[] = {"finetune", "batch-eval",
					     "llm-pretrain"};
	int fd = dial();
	long k = (long)arg;
	ck_assert(fd >= 0);
	for (int i = 0; i < ROUNDS; i++) {
		char req[256];
		snprintf(req, sizeof req,
			 "{\"v\":1,\"id\":%d,\"op\":\"place\",\"namespace\":"
			 "\"ml\",\"name\":\"%s\",\"deadlineMs\":5000,"
			 "\"options\":{\"mode\":\"greedy\"}}", i,
			 groups[(k + i) % 3]);
		cJSON *r = rq(fd, req);
		ck_assert_int_eq(cJSON_GetObjectItem(r, "id")->valueint, i);
		plan_valid(fd, result(r), shared);
		cJSON_Delete(r);
	}
	close(fd);
	return NULL;
}

START_TEST(test_concurrent_clients)
{
	wasp_snapshot *s = tu_load_file(GPU16);
	pid_t pid = start_server(NULL);
	close(dial_wait(pid));
	shared = s;
	pthread_t t[NCLIENTS];
	for (long i = 0; i < NCLIENTS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, client_thread,
						(void *)i), 0);
	for (int i = 0; i < NCLIENTS; i++)
		pthread_join(t[i], NULL);
	int fd = dial();
	ck_assert_int_ge((int)stat_of(fd, "requests"),
			 NCLIENTS * ROUNDS * 2);
	ck_assert_int_eq((int)stat_of(fd, "errors"), 0);
	close(fd);
	stop_server(pid);
	wasp_snapshot_free(s);
}
END_TEST

/* SIGTERM with requests sent but not yet answered: all are answered,
 * then the connections close and the server exits 0. */
START_TEST(test_drain)
{
	wasp_snapshot *s = tu_load_file(GPU16);
	pid_t pid = start_server(NULL);
	int fd = dial_wait(pid), idle = dial();
	ck_assert(idle >= 0);
	cJSON *h = rq(idle, "{\"v\":1,\"op\":\"health\"}");
	cJSON_Delete(h);
	send_line(fd, "{\"v\":1,\"id\":1,\"op\":\"solve\",\"options\":"
		      "{\"mode\":\"greedy\"}}");
	send_line(fd, "{\"v\":1,\"id\":2,\"op\":\"stats\"}");
	send_line(fd, "{\"v\":1,\"id\":3,\"op\":\"health\"}");
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	for (int i = 1; i <= 3; i++) {
		cJSON *r = read_response(fd);
		ck_assert_int_eq(cJSON_GetObjectItem(r, "id")->valueint, i);
		cJSON *res = result(r);
		if (i == 1) {
			/* checked here: the server no longer takes requests */
			char *text = cJSON_PrintUnformatted(
			    cJSON_GetObjectItem(res, "plan"));
			wasp_plan *p;
			size_t nv = 1;
			wasp_error e;
			ck_assert_int_eq(wasp_plan_from_text(&p, text,
							     strlen(text),
							     "plan", &e), 0);
			ck_assert_int_eq(wasp_check(s, p, &nv, NULL, &e), 0);
			ck_assert_int_eq((int)nv, 0);
			wasp_plan_free(p);
			free(text);
		}
		cJSON_Delete(r);
	}
	ck_assert_ptr_null(read_line(fd));
	ck_assert_ptr_null(read_line(idle));
	close(fd);
	close(idle);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(access(sock, F_OK) != 0, "socket left behind");
	ck_assert_int_lt(dial(), 0);
	wasp_snapshot_free(s);
}
END_TEST

/* A crash (SIGKILL) leaves the socket and the journal; the restart
 * replaces the stale socket and replays the deltas, dropping a torn
 * last line. */
START_TEST(test_crash_restart)
{
	char journal[4300];
	snprintf(journal, sizeof journal, "%s/journal", tmpdir);
	pid_t pid = start_server(journal);
	int fd = dial_wait(pid);
	cJSON *r = rq(fd, "{\"v\":1,\"op\":\"delta\",\"put\":[{\"apiVersion\":"
			  "\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
			  "\"extra\"},\"status\":{\"allocatable\":{\"cpu\":"
			  "\"8\",\"pods\":\"110\"}}}]}");
	result(r);
	cJSON_Delete(r);
	r = rq(fd, "{\"v\":1,\"op\":\"delta\",\"delete\":[{\"kind\":\"Node\","
		   "\"name\":\"nope\"}]}");
	failed(r, "ENOTFOUND"); /* refused: not journaled */
	cJSON_Delete(r);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 17);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(access(sock, F_OK), 0);

	/* a torn write at the crash */
	FILE *f = fopen(journal, "a");
	fputs("{\"put\":[\"kind: No", f);
	fclose(f);

	pid = start_server(journal);
	fd = dial_wait(pid);
	ck_assert_int_eq((int)stat_of(fd, "nodes"), 17);
	close(fd);
	stop_server(pid);
	char *text = tu_slurp(journal);
	size_t lines = 0;
	for (char *c = text; *c; c++)
		lines += *c == '\n';
	ck_assert_int_eq((int)lines, 1);
	ck_assert(text[strlen(text) - 1] == '\n');
	free(text);
}
END_TEST

/* Exit status of `wasp serve ARGS...` run to its end (stderr dropped). */
static int serve_status(const char *a1, const char *a2, const char *a3)
{
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(wasp_bin, wasp_bin, "serve", a1, a2, a3, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Usage errors; a path that is not a socket is never replaced; one
 * client over WSV_MAX_CLIENTS is answered ELIMIT. */
START_TEST(test_usage_and_limits)
{
	ck_assert_int_eq(serve_status("--help", NULL, NULL), 0);
	ck_assert_int_eq(serve_status(NULL, NULL, NULL), 2);
	ck_assert_int_eq(serve_status("--threads", "-1", NULL), 2);
	FILE *f = fopen(sock, "w");
	fputs("precious", f);
	fclose(f);
	ck_assert_int_eq(serve_status("--socket", sock, NULL), 2);
	char *text = tu_slurp(sock);
	ck_assert_str_eq(text, "precious");
	free(text);
	unlink(sock);

	pid_t pid = start_server(NULL);
	int fds[WSV_MAX_CLIENTS];
	for (int i = 0; i < WSV_MAX_CLIENTS; i++) {
		fds[i] = i ? dial() : dial_wait(pid);
		ck_assert(fds[i] >= 0);
		/* answered: the connection has its thread */
		ck_assert_int_ge(version_of(fds[i]), 1);
	}
	int extra = dial();
	ck_assert(extra >= 0);
	cJSON *r = read_response(extra);
	failed(r, "ELIMIT");
	cJSON_Delete(r);
	close(extra);
	for (int i = 0; i < WSV_MAX_CLIENTS; i++)
		close(fds[i]);
	stop_server(pid);
}
END_TEST

int main(void)
{
	const char *b = getenv("WASP_BIN");
	snprintf(wasp_bin, sizeof wasp_bin, "%s", b ? b : "src/cli/wasp");
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("serve");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_operations);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_concurrent_clients);
	tcase_add_test(tc, test_drain);
	tcase_add_test(tc, test_crash_restart);
	tcase_add_test(tc, test_usage_and_limits);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
