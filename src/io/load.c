/*
 * load.c -- reading input files and choosing the syntax (see load.h).
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "io/load.h"
#include "io/syntax.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* --------------------------------------------------------------- files */

static int io_error(wasp_error *err, const char *what, const char *path,
		    int e)
{
	return werr(err, WASP_EIO, "cannot %s %s: %s", what, path,
		    strerror(e));
}


int wl_read_file(const char *path, char **text, size_t *len,
		 wasp_error *err)
{
	return wl_read_file_lim(path, NULL, text, len, err);
}

/* Reads are this large at most between two looks at the limits. */
#define WL_READ_CHUNK (4u << 20)

int wl_read_file_lim(const char *path, const wl_limits *lim, char **text,
		     size_t *len, wasp_error *err)
{
	size_t max = lim && lim->max_bytes && lim->max_bytes <
					       (size_t)WASP_MAX_INPUT_BYTES
			 ? lim->max_bytes
			 : (size_t)WASP_MAX_INPUT_BYTES;
	*text = NULL;
	*len = 0;
	if (!path)
		return werr(err, WASP_EINVAL, "no file name");
	int is_stdin = strcmp(path, "-") == 0;
	const char *shown = is_stdin ? "standard input" : path;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return io_error(err, "open", shown, errno);

	/* Size the buffer from fstat for regular files; pipes grow. */
	size_t cap = 64 * 1024;
	struct stat st;
	if (fstat(fileno(f), &st) == 0) {
		int bad = 0;
		if (S_ISDIR(st.st_mode))
			bad = io_error(err, "read", shown, EISDIR);
		else if (S_ISREG(st.st_mode) && (size_t)st.st_size > max)
			bad = wl_too_big_n(err, shown, max);
		if (bad) {
			if (!is_stdin)
				fclose(f);
			return bad;
		}
		/* +2: the read that sees end of file needs room too */
		if (S_ISREG(st.st_mode))
			cap = (size_t)st.st_size + 2;
	}
	char *buf = malloc(cap);
	size_t n = 0;
	int rc = WASP_OK;
	if (!buf) {
		rc = werr(err, WASP_ENOMEM, "out of memory reading %s", shown);
		goto out;
	}
	for (;;) {
		if ((rc = wl_stop(lim, err, (wsrc){NULL, 0, 0})))
			goto out;
		if (n + 1 >= cap) {
			/* a pipe or device: grow up to the cap and one byte
			 * past it, never further (/dev/zero ends there) */
			if (cap > max + 1) {
				rc = wl_too_big_n(err, shown, max);
				goto out;
			}
			size_t nc = cap * 2 > max + 2 ? max + 2 : cap * 2;
			char *nb = realloc(buf, nc);
			if (!nb) {
				rc = werr(err, WASP_ENOMEM,
					  "out of memory reading %s", shown);
				goto out;
			}
			buf = nb;
			cap = nc;
		}
		size_t want = cap - 1 - n;
		size_t got = fread(buf + n, 1,
				   want > WL_READ_CHUNK ? WL_READ_CHUNK : want, f);
		n += got;
		if (n > max) {
			rc = wl_too_big_n(err, shown, max);
			goto out;
		}
		if (got == 0) {
			if (ferror(f))
				rc = io_error(err, "read", shown, errno);
			break;
		}
	}
out:
	if (!is_stdin)
		fclose(f);
	else
		clearerr(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	return WASP_OK;
}

/* ------------------------------------------------------------- loading */

int wl_load_text(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err)
{
	return wl_load_text_lim(a, text, len, name, NULL, out, err);
}

int wl_load_text_lim(wa_arena *a, const char *text, size_t len,
		     const char *name, const wl_limits *lim, wt_doc *out,
		     wasp_error *err)
{
	if (!name)
		name = "<input>";
	if (len > (size_t)WASP_MAX_INPUT_BYTES)
		return wl_too_big(err, name);
	/* Sniff: the first byte after a BOM and white space. */
	size_t i = wl_bom(text, len);
	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			   text[i] == '\r' || text[i] == '\n'))
		i++;
	if (i < len && (text[i] == '{' || text[i] == '['))
		return wl_load_json_lim(a, text, len, name, lim, out, err);
	return wl_load_yaml_lim(a, text, len, name, lim, out, err);
}

int wl_load_file(wa_arena *a, const char *path, wt_doc *out, wasp_error *err)
{
	return wl_load_file_lim(a, path, NULL, out, err);
}

int wl_load_file_lim(wa_arena *a, const char *path, const wl_limits *lim,
		     wt_doc *out, wasp_error *err)
{
	char *text;
	size_t len;
	int rc = wl_read_file_lim(path, lim, &text, &len, err);
	if (rc)
		return rc;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	rc = wl_load_text_lim(a, text, len, name, lim, out, err);
	free(text);
	return rc;
}
