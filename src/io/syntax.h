/*
 * syntax.h -- shared by the two syntax loaders (load_yaml.c,
 * load_json.c); not for other modules.
 */
#ifndef WASP_SYNTAX_H
#define WASP_SYNTAX_H

#include <string.h>

#include "io/tree.h"
#include "wasp.h"


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
/* The error for an input over WASP_MAX_INPUT_BYTES. */
int wl_too_big(wasp_error *err, const char *path);
/* The same for a cap of max bytes (wl_limits.max_bytes). */
int wl_too_big_n(wasp_error *err, const char *path, size_t max);

#endif
