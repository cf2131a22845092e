/*
 * error.c -- wasp_error helpers and the public error formatting.
 */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vset(wasp_error *e, int code, wsrc at, const char *fmt,
		 va_list ap)
{
	if (!e)
		return;
	memset(e, 0, sizeof *e);
	e->code = code;
	if (at.file)
		snprintf(e->file, sizeof e->file, "%s", at.file);
	e->line = at.line;
	e->col = at.col;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	size_t n = strlen(e->msg);
	while (n && e->msg[n - 1] == '\n')
		e->msg[--n] = 0;
}

int werr(wasp_error *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, code, (wsrc){0}, fmt, ap);
	va_end(ap);
	return code;
}

int werr_at(wasp_error *e, int code, wsrc at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, code, at, fmt, ap);
	va_end(ap);
	return code;
}

void werr_clear(wasp_error *e)
{
	if (e)
		memset(e, 0, sizeof *e);
}

char *wasp_error_format(const wasp_error *err, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	if (!err) {
		snprintf(buf, size, "unknown error");
	} else if (err->file[0] && err->line > 0) {
		snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line,
			 err->col, err->msg);
	} else if (err->file[0]) {
		snprintf(buf, size, "%s: %s", err->file, err->msg);
	} else {
		snprintf(buf, size, "%s", err->msg);
	}
	return buf;
}

const char *wasp_code_name(int code)
{
	static const char *const names[] = {
	    "ok", "bad input", "out of memory", "I/O error", "invalid argument",
	    "solver failure", "cancelled", "over a size limit", "not found"};
	if (code < 0 || code >= (int)(sizeof names / sizeof names[0]))
		return "unknown error";
	return names[code];
}
