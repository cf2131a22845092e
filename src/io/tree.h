/*
 * tree.h -- the document tree both loaders produce.
 *
 * YAML and JSON load into this one shape so a single decoder serves both
 * and every value keeps the file, line and column it came from.  Scalars
 * keep their raw text (numbers are never converted through double here:
 * Kubernetes quantities like 8063156Ki or 9007199254740993 stay exact).
 *
 * A tree lives in an arena and is read-only once built.  YAML aliases may
 * make two parents share a child; the loader has already bounded the total
 * expanded size, so walking is safe.
 */
#ifndef WASP_TREE_H
#define WASP_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/error.h"
#include "wasp.h"

typedef enum wt_type {
	WT_NULL = 0, /* null, ~, empty plain scalar            */
	WT_BOOL,     /* true / false                           */
	WT_NUM,      /* plain scalar or JSON number that looks numeric */
	WT_STR,      /* quoted scalar, or any other plain scalar */
	WT_SEQ,
	WT_MAP
} wt_type;

typedef struct wt_node wt_node;
/* 48 bytes: a 250 MB snapshot holds tens of millions of these, and
 * on a virtual machine touching their pages is most of the load. */
struct wt_node {
	wsrc src;          /* 1-based line and column of the value   */
	const char *str;   /* scalars: raw text, NUL-terminated       */
	size_t len;        /* scalars: text length                    */
	wt_node **items;   /* WT_SEQ: n items; WT_MAP: 2n, key,value,...
			      (keys are WT_STR nodes, unique per map)  */
	uint32_t n;        /* WT_SEQ: items; WT_MAP: pairs (at most
			      WASP_MAX_TREE_NODES)                     */
	unsigned char type; /* a wt_type                             */
	bool boolean;      /* WT_BOOL: the value                      */
};
_Static_assert(WASP_MAX_TREE_NODES <= UINT32_MAX, "wt_node.n is 32 bits");

/* Lookups (map keys compared case-sensitively, as Kubernetes does). */
const wt_node *wt_get(const wt_node *map, const char *key);
/* Follow a dotted path of map keys: wt_path(obj, "spec.schedulingPolicy"). */
const wt_node *wt_path(const wt_node *map, const char *dotted);
static inline const wt_node *wt_key(const wt_node *map, size_t i)
{
	return map->items[2 * i];
}
static inline const wt_node *wt_val(const wt_node *map, size_t i)
{
	return map->items[2 * i + 1];
}
const char *wt_type_name(wt_type t);
const char *wt_type_phrase(wt_type t); /* "a map", "a list", "null" ... */

/* A stream of documents: each top-level YAML document, or the one JSON
 * value, becomes one root. */
/* What a load may spend (doc/library.md, "Time and memory"): the run's
 * deadline and cancel flag, checked every WL_POLL_EVERY + 1 values and
 * between reads, and a byte cap below WASP_MAX_INPUT_BYTES. */
#define WL_POLL_EVERY 4095
typedef struct wl_limits {
	wb_deadline deadline;
	volatile const int *cancel;
	size_t max_bytes;           /* 0: WASP_MAX_INPUT_BYTES             */
} wl_limits;

/* 0, or the error of a load stopped by lim (NULL: never) at `at`. */
int wl_stop(const wl_limits *lim, wasp_error *err, wsrc at);

typedef struct wt_doc {
	const char *file; /* arena copy */
	wt_node **roots;
	size_t nroots;
} wt_doc;

#endif
