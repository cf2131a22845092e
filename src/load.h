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

#include "tree.h"

int wl_load_text(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err);
/* Reads `path` ("-" = stdin) fully, then wl_load_text. */
int wl_load_file(wa_arena *a, const char *path, wt_doc *out, wasp_error *err);
/* Reads a whole file into malloc'd memory (NUL-terminated); "-" = stdin. */
int wl_read_file(const char *path, char **text, size_t *len, wasp_error *err);

/* The two syntaxes, for tests and fuzzing. */
int wl_load_yaml(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err);
int wl_load_json(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err);

/* ---- shared by the two loaders (load.c); not for other modules ---- */

/* A fixed-capacity set of key nodes (compared by bytes, NUL included),
 * sized for `expect` insertions. */
typedef struct wl_keyset {
	const wt_node **slot;
	size_t mask;
} wl_keyset;
int wl_keyset_init(wl_keyset *s, size_t expect); /* -1: no memory */
/* The key equal to k already in the set, or NULL after inserting k. */
const wt_node *wl_keyset_add(wl_keyset *s, const wt_node *k);
void wl_keyset_free(wl_keyset *s);

/* The first key of the map pairs items[0..2*npairs) (key, value, ...) that
 * repeats an earlier one: returns 1 and sets *first and *second (pair
 * indices), 0 when all keys differ, -1 when out of memory. */
int wl_find_dup(wt_node *const *items, size_t npairs, size_t *first,
		size_t *second);
/* Key text for messages: at most about 60 bytes, control bytes as \xNN.
 * Returns buf. */
const char *wl_quote(char *buf, size_t size, const char *s, size_t n);
/* The common start of wl_load_yaml and wl_load_json: clears *out, copies
 * *name (NULL: "<input>", and *name is set to it) into out->file, and
 * enforces WASP_MAX_INPUT_BYTES. */
int wl_begin(wa_arena *a, size_t len, const char **name, wt_doc *out,
	     wasp_error *err);
/* 3 when text starts with a UTF-8 byte-order mark (not part of column 1),
 * else 0. */
static inline size_t wl_bom(const char *text, size_t len)
{
	return len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}
/* Appends v to the malloc'd node stack (*stk, *n, *cap), growing it by
 * doubling from 1024; -1 when out of memory. */
int wl_push(wt_node ***stk, size_t *n, size_t *cap, wt_node *v);
/* Keys are WT_STR nodes; equal when their bytes are. */
static inline int wl_key_eq(const wt_node *a, const wt_node *b)
{
	return a->len == b->len &&
	       (a->len == 0 || memcmp(a->str, b->str, a->len) == 0);
}

#endif
