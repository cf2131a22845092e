/*
 * render_html.h -- a plan as one self-contained HTML page, drawn over the
 * snapshot it was made for (doc/output.md, "The HTML report").
 *
 * The page has no scripts and fetches nothing (a Content-Security-Policy
 * says so to the browser); every name from the snapshot or the plan is
 * escaped.  The plan is checked against the snapshot by the verifier and
 * the page says the result first.
 */
#ifndef WASP_RENDER_HTML_H
#define WASP_RENDER_HTML_H

#include "plan/plan.h"

/* Clusters with more nodes than this are drawn one cell per finest
 * domain, with drill-down sections (when detail_nodes <= 0). */
#define WR_HTML_DETAIL_NODES 512

/* malloc'd NUL-terminated page, or NULL with err set. */
char *wr_html(const ws_snapshot *s, const wasp_plan *p, int detail_nodes,
	      wasp_error *err);

#endif
