/*
 * render.h -- plans to JSON (the contract, apiVersion wasp.dev/v1alpha1),
 * YAML (the same document) and a text report for people; and plans back
 * from a document tree.  Documented in doc/output.md.
 */
#ifndef WASP_RENDER_H
#define WASP_RENDER_H

#include "plan/plan.h"
#include "io/tree.h"

/* malloc'd NUL-terminated text, or NULL with err set. */
char *wr_render(const wasp_plan *p, int format, wasp_error *err);
/* Parse a plan document (as rendered) into a new plan. */
int wr_plan_from_tree(const wt_node *root, wasp_plan **out, wasp_error *err);

/* Text-report sections kept out of render.c (render_more.c), appended
 * to its buffer (nothing when a section has nothing to say). */
enum { WR_TEXT_DOMAINS, WR_TEXT_BUY, WR_TEXT_LONE };
struct sbuf;
void wr_text_section(struct sbuf *b, const wasp_plan *p, int which);
/* A number for people (render_more.c): integers and values within 1e-9
 * relative of one as integers, else 6 significant digits; "-" for NaN.
 * The JSON keeps every digit (fmt_num in render.c). */
void wr_text_num(double v, char *buf, size_t size);
/* The plan's optional top-level parts kept out of render.c
 * (render_more.c): evictionsBuy and snapshot.resourceVersions added to a
 * JSON document (-1 on NOMEM), and read back from a plan tree
 * (WASP_OK or an error with a position). */
struct cJSON;
int wr_json_more(const wasp_plan *p, struct cJSON *doc);
int wr_read_more(const wt_node *root, wasp_plan *pl, wasp_error *err);

#endif
