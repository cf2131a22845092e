/*
 * error.h -- filling wasp_error objects (internal).
 *
 * Every module reports through these: werr_at() for bad input with a source
 * position, werr() for everything else.  A NULL wasp_error is allowed
 * everywhere.  Both return the code, so `return werr(e, WASP_ENOMEM, "...")`
 * reads naturally.
 */
#ifndef WASP_ERROR_H
#define WASP_ERROR_H

#include "wasp.h"

/* Where a value came from: file name (owned by the snapshot or tree arena),
 * 1-based line and column; line 0 = unknown. */
typedef struct wsrc {
	const char *file;
	int line, col;
} wsrc;

int werr(wasp_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int werr_at(wasp_error *e, int code, wsrc at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void werr_clear(wasp_error *e);

#endif
