/*
 * sbuf.h -- a growable text buffer for the plan's renderers (render.c,
 * render_html.c), and the number format they share.
 *
 * Appending never fails loudly: a failed allocation sets `fail`, later
 * appends do nothing, and sb_finish turns it into WASP_ENOMEM, so a
 * renderer checks once at the end.
 */
#ifndef WASP_SBUF_H
#define WASP_SBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

typedef struct sbuf {
	char *p;
	size_t n, cap;
	bool fail;
} sbuf;

void sb_put(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
/* n spaces */
void sb_pad(sbuf *b, int n);
__attribute__((format(printf, 2, 3)))
void sb_printf(sbuf *b, const char *fmt, ...);
/* `s` (NULL: nothing) escaped for HTML text and quoted attribute values:
 * & < > " ' as character references, other ASCII control characters
 * except tab and newline as U+FFFD.  No name reaches a page unescaped. */
void sb_html(sbuf *b, const char *s);
/* Take the text out of the buffer (or NULL with err set). */
char *sb_finish(sbuf *b, wasp_error *err);

/* Integers exactly; otherwise the shortest of %.15g/%.16g/%.17g that
 * reads back to the same double; NaN and infinities as null.  The decimal
 * point is forced to '.' whatever the locale. */
void fmt_num(double v, char *buf, size_t size);
/* `units` of resource res as Kubernetes writes the quantity when it is a
 * whole number of milli-units (bytes in binary suffixes), else fmt_num. */
void fmt_units(const char *res, double units, char *buf, size_t size);

#endif
