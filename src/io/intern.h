/*
 * intern.h -- short scalars shared within one load (intern.c).
 *
 * A snapshot repeats the same short texts millions of times: map keys
 * ("metadata", "name", "nvidia.com/gpu"), and values ("True", "64",
 * label values).  The loaders keep one copy of each in the load's
 * arena; tree nodes point at it (scalars are never written after the
 * load, so sharing is safe).
 */
#ifndef WASP_INTERN_H
#define WASP_INTERN_H

#include <stddef.h>

#include "base/arena.h"

/* Longer texts are copied as they are: names and long values rarely
 * repeat, and looking them up would only cost. */
#define WL_INTERN_MAX 24

typedef struct wl_itab wl_itab;

/* An empty table (NULL on NOMEM); wl_intern_free(NULL) is fine. */
wl_itab *wl_intern_new(void);
void wl_intern_free(wl_itab *t);
/* A NUL-terminated copy of s[0..n) in arena a: for n <= WL_INTERN_MAX
 * the one copy every equal text of this table shares (t NULL: always a
 * new copy); NULL on NOMEM. */
const char *wl_intern(wl_itab *t, wa_arena *a, const char *s, size_t n);

#endif
