/*
 * serve_int.h -- what the files of `wasp serve` share (doc/serve.md).
 *
 * serve.c is the transport: the Unix-domain socket, one thread per
 * client, signals and the drain.  serve_ops.c answers one request line
 * against the held snapshot.  serve_journal.c keeps the delta journal.
 *
 * The held snapshot is a chain of versions.  A version is immutable (a
 * wasp_snapshot never changes); a reader takes a reference to the current
 * version under `lock` (a few instructions) and works on it unlocked.  A
 * writer (delta, assume, forget) holds `write_lock` while it builds the
 * next version from the current one, then swaps it in under `lock`.  A
 * version is freed when its last reader lets go of it.
 */
#ifndef WASP_CLI_SERVE_INT_H
#define WASP_CLI_SERVE_INT_H

#include <pthread.h>

#include "wasp.h"

/* The protocol version every request and response carries ("v"). */
#define WSV_PROTOCOL 1
/* The longest request line accepted, newline excluded (doc/serve.md,
 * "Limits"); a longer one is answered with ELIMIT and the connection
 * closed. */
#define WSV_MAX_REQUEST_BYTES (64L * 1024 * 1024)
/* Clients served at once; one more is answered ELIMIT and closed. */
#define WSV_MAX_CLIENTS 64
/* Seconds a response may wait for a client that does not read before
 * the connection is dropped (so one stuck client cannot hold the drain). */
#define WSV_SEND_TIMEOUT_S 30
/* Seconds the drain waits for in-flight requests before it cancels the
 * solves still running (they then answer with their best plan so far). */
#define WSV_DRAIN_GRACE_S 10
/* Per-request deadline of `place` when the request names none. */
#define WSV_PLACE_DEADLINE_MS WASP_DEFAULT_PLACE_DEADLINE_MS

typedef struct wsv_version {
	wasp_snapshot *s;
	long version; /* 1 at start, +1 per write */
	int refs;     /* readers, plus one while current */
} wsv_version;

typedef struct wsv_state {
	pthread_mutex_t lock;       /* cur, refs, the counters */
	pthread_mutex_t write_lock; /* one writer at a time */
	wsv_version *cur;
	wasp_options defaults;      /* from the command line */
	volatile int cancel;        /* set when the drain grace runs out */
	double started;             /* wasp_now() at start */
	/* counters (under lock) */
	long requests, errors, clients, clients_total;
	int draining;
	/* the delta journal (serve_journal.c); -1: none */
	int journal;
	const char *journal_path;
} wsv_state;

/* serve_ops.c */
int wsv_state_init(wsv_state *st, wasp_snapshot *s);
void wsv_state_fini(wsv_state *st);
wsv_version *wsv_acquire(wsv_state *st);
void wsv_release(wsv_state *st, wsv_version *v);
/* Answer one request line (no newline); returns a malloc'd response line
 * without its newline, or NULL when memory runs out. */
char *wsv_handle(wsv_state *st, const char *line, size_t len);
/* A response carrying only an error (for the transport's own errors). */
char *wsv_error_line(int code, const char *msg);
/* Apply one delta object ({"put": [...], "delete": [...]}) held as text:
 * used for requests and for journal replay.  On success *out is the new
 * snapshot (the caller swaps it in). */
int wsv_apply_text(const wasp_snapshot *base, const char *text, size_t len,
		   const char *name, wasp_snapshot **out, char **journal_line,
		   wasp_error *err);

/* serve_journal.c */
/* Open (creating) the journal and replay its lines onto *s, replacing *s
 * with the result.  A torn last line (a crash mid-write) is dropped and
 * the file truncated before it; *nreplayed counts the deltas applied. */
int wsv_journal_open(wsv_state *st, const char *path, wasp_snapshot **s,
		     long *nreplayed, wasp_error *err);
/* Append one line and fsync it; WASP_EIO on failure (the caller then
 * refuses the delta: the snapshot and the file stay as they were). */
int wsv_journal_append(wsv_state *st, const char *line, wasp_error *err);
void wsv_journal_close(wsv_state *st);

#endif
