/*
 * syntax.c -- the pieces both syntax loaders (load_yaml.c, load_json.c)
 * share: the key set that finds duplicate keys (and applies YAML merge
 * keys), key quoting for messages, the node stack and the common start of
 * a load (syntax.h).
 */
#include "io/syntax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Maps up to this many pairs are checked pairwise; bigger ones hash. */
#define DUP_LINEAR_MAX 16

/* ------------------------------------------------------------ key sets */

static size_t key_hash(const wt_node *k)
{
	/* FNV-1a: cheap, and keys are short. */
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < k->len; i++) {
		h ^= (unsigned char)k->str[i];
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

int wl_keyset_init(wl_keyset *s, size_t expect)
{
	size_t cap = 16;
	while (cap < expect * 2) {
		if (cap > SIZE_MAX / 4 / sizeof *s->slot)
			return -1;
		cap *= 2;
	}
	s->slot = calloc(cap, sizeof *s->slot);
	s->mask = cap - 1;
	return s->slot ? 0 : -1;
}

const wt_node *wl_keyset_add(wl_keyset *s, const wt_node *k)
{
	size_t i = key_hash(k) & s->mask;
	while (s->slot[i]) {
		if (wl_key_eq(s->slot[i], k))
			return s->slot[i];
		i = (i + 1) & s->mask;
	}
	s->slot[i] = k;
	return NULL;
}

void wl_keyset_free(wl_keyset *s)
{
	free(s->slot);
	s->slot = NULL;
}

int wl_find_dup(wt_node *const *items, size_t npairs, size_t *first,
		size_t *second)
{
	if (npairs <= DUP_LINEAR_MAX) {
		for (size_t j = 1; j < npairs; j++)
			for (size_t i = 0; i < j; i++)
				if (wl_key_eq(items[2 * i], items[2 * j])) {
					*first = i;
					*second = j;
					return 1;
				}
		return 0;
	}
	wl_keyset ks;
	if (wl_keyset_init(&ks, npairs))
		return -1;
	int found = 0;
	for (size_t j = 0; j < npairs && !found; j++) {
		const wt_node *prev = wl_keyset_add(&ks, items[2 * j]);
		if (prev) {
			/* find the pair index of the first occurrence */
			for (size_t i = 0; i < j; i++)
				if (items[2 * i] == prev) {
					*first = i;
					break;
				}
			*second = j;
			found = 1;
		}
	}
	wl_keyset_free(&ks);
	return found;
}

const char *wl_quote(char *buf, size_t size, const char *s, size_t n)
{
	size_t o = 0;
	if (!size)
		return buf;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		/* stop at ~60 bytes, on a UTF-8 character boundary */
		if (o >= 60 && (c & 0xC0) != 0x80) {
			if (o + 4 < size)
				o += (size_t)snprintf(buf + o, size - o, "...");
			break;
		}
		if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') {
			if (o + 5 >= size)
				break;
			if (c == '"' || c == '\\')
				o += (size_t)snprintf(buf + o, size - o, "\\%c",
						      c);
			else
				o += (size_t)snprintf(buf + o, size - o,
						      "\\x%02X", c);
		} else {
			if (o + 1 >= size)
				break;
			buf[o++] = (char)c;
		}
	}
	buf[o < size ? o : size - 1] = 0;
	return buf;
}


int wl_push(wt_node ***stk, size_t *n, size_t *cap, wt_node *v)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		wt_node **ns = realloc(*stk, nc * sizeof *ns);
		if (!ns)
			return -1;
		*stk = ns;
		*cap = nc;
	}
	(*stk)[(*n)++] = v;
	return 0;
}

int wl_begin(wa_arena *a, size_t len, const char **name, wt_doc *out,
	     wasp_error *err)
{
	memset(out, 0, sizeof *out);
	if (!*name)
		*name = "<input>";
	out->file = wa_strdup(a, *name);
	if (!out->file)
		return werr(err, WASP_ENOMEM, "out of memory loading %s",
			    *name);
	if (len > (size_t)WASP_MAX_INPUT_BYTES)
		return wl_too_big(err, *name);
	return 0;
}

int wl_stop(const wl_limits *lim, wasp_error *err, wsrc at)
{
	if (!lim)
		return 0;
	int code = lim->cancel && *lim->cancel	? WASP_ECANCELED
		   : wdl_passed(lim->deadline, 0) ? WASP_ELIMIT
						  : 0;
	const char *msg = code == WASP_ECANCELED
			      ? "cancelled while reading"
			      : "the time limit ran out while reading; no "
				"plan (raise the time limit)";
	if (!code)
		return 0;
	return at.file ? werr_at(err, code, at, "%s", msg)
		       : werr(err, code, "%s", msg);
}

int wl_too_big_n(wasp_error *err, const char *path, size_t max)
{
	if (max >= (size_t)WASP_MAX_INPUT_BYTES)
		return wl_too_big(err, path);
	return werr(err, WASP_ELIMIT, "%s is larger than %zu bytes (the "
		    "memory limit allows that much input)", path, max);
}

int wl_too_big(wasp_error *err, const char *path)
{
	return werr(err, WASP_ELIMIT,
		    "%s is larger than %ld bytes (WASP_MAX_INPUT_BYTES)", path,
		    (long)WASP_MAX_INPUT_BYTES);
}

