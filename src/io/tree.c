/*
 * tree.c -- lookups on the document tree (see tree.h).
 *
 * Maps are searched linearly: Kubernetes objects have few keys per map, and
 * the big collections (items of a List) are sequences, not maps.
 */
#include "io/tree.h"

#include <string.h>

/* Key node equal to the n bytes at s?  Keys may hold NUL bytes, so compare
 * lengths, not C strings. */
static const wt_node *get_n(const wt_node *map, const char *s, size_t n)
{
	if (!map || map->type != WT_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++) {
		const wt_node *k = map->items[2 * i];
		if (k->len == n && memcmp(k->str, s, n) == 0)
			return map->items[2 * i + 1];
	}
	return NULL;
}

const wt_node *wt_get(const wt_node *map, const char *key)
{
	if (!key)
		return NULL;
	return get_n(map, key, strlen(key));
}

const wt_node *wt_path(const wt_node *map, const char *dotted)
{
	if (!dotted)
		return NULL;
	const wt_node *cur = map;
	const char *s = dotted;
	for (;;) {
		const char *dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);
		cur = get_n(cur, s, n);
		if (!cur || !dot)
			return cur;
		s = dot + 1;
	}
}

const char *wt_type_name(wt_type t)
{
	switch (t) {
	case WT_NULL:
		return "null";
	case WT_BOOL:
		return "boolean";
	case WT_NUM:
		return "number";
	case WT_STR:
		return "string";
	case WT_SEQ:
		return "list";
	case WT_MAP:
		return "map";
	}
	return "unknown";
}

/* The same with an article, for messages ("expected a map, got a list"). */
const char *wt_type_phrase(wt_type t)
{
	switch (t) {
	case WT_NULL: return "null";
	case WT_BOOL: return "a boolean";
	case WT_NUM: return "a number";
	case WT_STR: return "a string";
	case WT_SEQ: return "a list";
	case WT_MAP: return "a map";
	}
	return "a value";
}
