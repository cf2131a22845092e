/*
 * intern.c -- short scalars shared within one load (intern.h): an open
 * addressing table of the copies made so far, growing at half full.
 */
#include "io/intern.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	const char *s; /* NULL: empty */
	uint32_t hash;
	uint32_t len;
};

struct wl_itab {
	struct slot *slot;
	size_t cap, n; /* cap a power of two */
};

#define INTERN_CAP0 4096

wl_itab *wl_intern_new(void)
{
	wl_itab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	if (!(t->slot = calloc(INTERN_CAP0, sizeof *t->slot))) {
		free(t);
		return NULL;
	}
	t->cap = INTERN_CAP0;
	return t;
}

void wl_intern_free(wl_itab *t)
{
	if (t) {
		free(t->slot);
		free(t);
	}
}

static uint32_t fnv1a(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int grow(wl_itab *t)
{
	size_t cap = t->cap * 2;
	struct slot *ns = calloc(cap, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i].s)
			continue;
		size_t j = t->slot[i].hash & (cap - 1);
		while (ns[j].s)
			j = (j + 1) & (cap - 1);
		ns[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = ns;
	t->cap = cap;
	return 0;
}

const char *wl_intern(wl_itab *t, wa_arena *a, const char *s, size_t n)
{
	if (!t || n > WL_INTERN_MAX)
		return wa_strndup(a, s, n);
	uint32_t h = fnv1a(s, n);
	size_t j = h & (t->cap - 1);
	for (; t->slot[j].s; j = (j + 1) & (t->cap - 1))
		if (t->slot[j].hash == h && t->slot[j].len == n &&
		    memcmp(t->slot[j].s, s, n) == 0)
			return t->slot[j].s;
	char *c = wa_strndup(a, s, n);
	if (!c)
		return NULL;
	t->slot[j] = (struct slot){c, h, (uint32_t)n};
	/* at half full the table doubles; when it cannot, texts are
	 * still copied, only no longer shared */
	if (++t->n * 2 > t->cap && grow(t)) {
		t->slot[j].s = NULL;
		t->n--;
	}
	return c;
}
