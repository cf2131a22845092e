/*
 * serve_journal.c -- `wasp serve --journal FILE`: the applied deltas, one
 * JSON line each, so that a restart after a crash rebuilds the same
 * snapshot (doc/serve.md, "Restarts").
 *
 * A delta is written and fsync'd before its version becomes current; when
 * the write fails the delta is refused, so the file never holds a delta
 * the server did not apply.  A crash mid-write leaves a torn last line
 * without its newline: replay drops it (that delta was never answered)
 * and cuts the file back to the last whole line.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/error.h"
#include "cli/serve_int.h"
#include "io/load.h"

/* Replay the whole lines of text onto *s; *keep is the length of the
 * whole lines (where a torn tail begins). */
static int replay(const char *path, const char *text, size_t len,
		  wasp_snapshot **s, long *n, size_t *keep, wasp_error *err)
{
	size_t pos = 0;
	long line = 0;

	*keep = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (!nl)
			break; /* torn */
		size_t l = (size_t)(nl - (text + pos));
		line++;
		if (l) {
			char name[300];
			wasp_snapshot *next;
			snprintf(name, sizeof name, "%s:%ld", path, line);
			int rc = wsv_apply_text(*s, text + pos, l, name, &next,
						NULL, err);
			if (rc)
				return rc;
			wasp_snapshot_free(*s);
			*s = next;
			(*n)++;
		}
		pos += l + 1;
		*keep = pos;
	}
	return WASP_OK;
}

int wsv_journal_open(wsv_state *st, const char *path, wasp_snapshot **s,
		     long *nreplayed, wasp_error *err)
{
	char *text = NULL;
	size_t len = 0, keep = 0;
	int rc;

	*nreplayed = 0;
	FILE *f = fopen(path, "a+");
	if (!f)
		return werr(err, WASP_EIO, "cannot open journal %s: %s", path,
			    strerror(errno));
	fclose(f);
	if ((rc = wl_read_file(path, &text, &len, err)))
		return rc;
	rc = replay(path, text, len, s, nreplayed, &keep, err);
	free(text);
	if (rc)
		return rc;
	if (keep < len && truncate(path, (off_t)keep))
		return werr(err, WASP_EIO, "cannot cut the torn end of %s: %s",
			    path, strerror(errno));
	if ((st->journal = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		return werr(err, WASP_EIO, "cannot open journal %s: %s", path,
			    strerror(errno));
	st->journal_path = path;
	return WASP_OK;
}

int wsv_journal_append(wsv_state *st, const char *line, wasp_error *err)
{
	off_t before = lseek(st->journal, 0, SEEK_END);
	size_t len = strlen(line);
	int rc = before < 0;

	for (size_t done = 0; !rc && done <= len;) {
		/* the line, then its newline (the text holds none) */
		const char *p = done < len ? line + done : "\n";
		size_t n = done < len ? len - done : 1;
		ssize_t k = write(st->journal, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = 1;
		else
			done += (size_t)k;
	}
	if (!rc && fsync(st->journal))
		rc = 1;
	if (rc) {
		int e = errno;
		if (before >= 0 && ftruncate(st->journal, before)) {
			/* the delta is refused either way; replay drops a
			   torn line, and a whole one was never answered */
		}
		return werr(err, WASP_EIO, "cannot write journal %s: %s",
			    st->journal_path, strerror(e));
	}
	return WASP_OK;
}

void wsv_journal_close(wsv_state *st)
{
	if (st->journal >= 0)
		close(st->journal);
	st->journal = -1;
}
