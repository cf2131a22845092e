/*
 * load.h -- reading files into document trees (load.c, load_yaml.c,
 * load_json.c).
 *
 * wl_load_text() sniffs the syntax (first non-space byte '{' or '[' means
 * JSON, else YAML), enforces the WASP_MAX_* limits of wasp.h, and returns
 * the documents.  Errors are WASP_EINPUT/WASP_ELIMIT with file:line:col
 * (1-based), WASP_EIO for unreadable files, WASP_ENOMEM.
 *
 * Guarantees (c-stack.md §3): duplicate map keys are an error; YAML alias
 * expansion is budgeted (WASP_MAX_TREE_NODES counts expanded nodes), alias
 * cycles and unknown anchors are errors; nesting over WASP_MAX_DEPTH is
 * rejected before libyaml's quadratic deep-flow path can run; invalid UTF-8
 * is an error with a position.
 */
#ifndef WASP_LOAD_H
#define WASP_LOAD_H

#include <string.h>

#include "io/tree.h"

int wl_load_text(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err);
/* Reads `path` ("-" = stdin) fully, then wl_load_text. */
int wl_load_file(wa_arena *a, const char *path, wt_doc *out, wasp_error *err);
/* The same within lim (NULL: none; tree.h): reading and parsing stop at
 * its deadline or cancel, and its byte cap holds. */
int wl_load_file_lim(wa_arena *a, const char *path, const wl_limits *lim,
		     wt_doc *out, wasp_error *err);
int wl_load_text_lim(wa_arena *a, const char *text, size_t len,
		     const char *name, const wl_limits *lim, wt_doc *out,
		     wasp_error *err);
/* Reads a whole file into malloc'd memory (NUL-terminated); "-" = stdin. */
int wl_read_file(const char *path, char **text, size_t *len, wasp_error *err);
/* The same within lim (NULL: none): its byte cap refuses a larger file
 * before reading it, and a pipe or device after at most cap + 1 bytes;
 * its deadline and cancel are looked at between reads. */
int wl_read_file_lim(const char *path, const wl_limits *lim, char **text,
		     size_t *len, wasp_error *err);

/* The two syntaxes, for tests and fuzzing. */
int wl_load_yaml(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err);
int wl_load_json(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err);
int wl_load_yaml_lim(wa_arena *a, const char *text, size_t len,
		     const char *name, const wl_limits *lim, wt_doc *out,
		     wasp_error *err);
int wl_load_json_lim(wa_arena *a, const char *text, size_t len,
		     const char *name, const wl_limits *lim, wt_doc *out,
		     wasp_error *err);

#endif
