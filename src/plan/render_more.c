/*
 * render_more.c -- sections of the text report that render.c does not
 * hold (it is near the size limit): what the evictions buy.  Each
 * section is written on its own memory stream and appended by
 * render.c's render_text.  doc/output.md, "Text report".
 */
#define _POSIX_C_SOURCE 200809L

#include "plan/render.h"

#include <stdio.h>
#include <stdlib.h>

/* A memory stream for one section; NULL on NOMEM. */
static FILE *section_open(char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	return open_memstream(buf, len);
}

/* Close the stream and hand over its text (NULL on failure); *buf is
 * set by fclose, so it is read after. */
static char *section_close(FILE *f, char **buf)
{
	bool bad = ferror(f) != 0;
	if (fclose(f) || bad) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

/* "Evictions buy": pods admitted per priority with the evictions and in
 * the same run's greedy solve with preemption off (doc/preemption.md,
 * "What the evictions buy"). */
char *wr_text_buy(const wasp_plan *p)
{
	char *buf;
	size_t len;
	FILE *f = section_open(&buf, &len);
	if (!f)
		return NULL;
	if (p->buy && p->nbuy) {
		fprintf(f, "\nWhat the evictions buy (pending pods admitted; "
			   "without: greedy, preemption off)\n");
		fprintf(f, "  %10s %8s %8s %8s\n", "priority", "with",
			"without", "gained");
		int tw = 0, to = 0;
		for (int i = 0; i < p->nbuy; i++) {
			const wpl_buy *x = &p->buy[i];
			fprintf(f, "  %10d %8d %8d %+8d\n", (int)x->priority,
				x->with, x->without, x->with - x->without);
			tw += x->with;
			to += x->without;
		}
		fprintf(f, "  %10s %8d %8d %+8d   for %d evicted pod%s\n",
			"total", tw, to, tw - to, p->nevict,
			p->nevict == 1 ? "" : "s");
	}
	return section_close(f, &buf);
}
