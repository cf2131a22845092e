/*
 * sbuf.c -- the renderers' growable text buffer, HTML escaping and number
 * format (sbuf.h).
 */
#include "plan/sbuf.h"

#include "model/quantity.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_put(sbuf *b, const char *s, size_t n)
{
	if (b->fail)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		while (nc < b->n + n + 1) {
			if (nc > SIZE_MAX / 2) {
				b->fail = true;
				return;
			}
			nc *= 2;
		}
		char *np = realloc(b->p, nc);
		if (!np) {
			b->fail = true;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void sb_puts(sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

void sb_pad(sbuf *b, int n)
{
	static const char sp[] = "                                ";
	while (n > 0) {
		int k = n < 32 ? n : 32;
		sb_put(b, sp, k);
		n -= k;
	}
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->fail = true;
		return;
	}
	if ((size_t)n < sizeof small) {
		sb_put(b, small, n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->fail = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_put(b, big, n);
	free(big);
}

void sb_html(sbuf *b, const char *s)
{
	if (!s)
		return;
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *rep = NULL;
		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				rep = "&#xFFFD;";
		}
		if (!rep)
			continue;
		sb_put(b, run, (size_t)(s - run));
		sb_puts(b, rep);
		run = s + 1;
	}
	sb_put(b, run, (size_t)(s - run));
}

/* Take the text out of the buffer (or NULL with err set). */
char *sb_finish(sbuf *b, wasp_error *err)
{
	if (!b->fail && !b->p)
		sb_put(b, "", 0);
	if (b->fail) {
		free(b->p);
		werr(err, WASP_ENOMEM, "out of memory rendering the plan");
		return NULL;
	}
	return b->p;
}

/* ------------------------------------------------------------ numbers */

/* Integers exactly; otherwise the shortest of %.15g/%.16g/%.17g that
 * reads back to the same double; NaN and infinities as null.  The decimal
 * point is forced to '.' whatever the locale. */
void fmt_num(double v, char *buf, size_t size)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "null");
		return;
	}
	if (v == 0) {
		snprintf(buf, size, "0");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, size, "%.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		for (char *c = buf; *c; c++)
			if (*c == ',')
				*c = '.';
		if (strtod(buf, NULL) == v || prec == 17)
			break;
	}
}

void fmt_units(const char *res, double units, char *buf, size_t size)
{
	double milli = units * 1000;
	if (isfinite(milli) && fabs(milli) < 9e18 && milli == floor(milli))
		wq_format((int64_t)milli, wq_is_bytes_resource(res), buf, size);
	else
		fmt_num(units, buf, size);
}
