/*
 * arena.h -- region allocator: many allocations, one free.
 *
 * Every per-load and per-solve structure lives in an arena, so an error path
 * (including a longjmp out of GLPK) frees everything in one place.  An arena
 * is owned by one thread at a time.  Allocation failure returns NULL; callers
 * turn that into WASP_ENOMEM.
 */
#ifndef WASP_ARENA_H
#define WASP_ARENA_H

#include <stddef.h>

typedef struct wa_arena wa_arena;

wa_arena *wa_new(void);
void wa_destroy(wa_arena *a);                 /* NULL is fine */
void *wa_alloc(wa_arena *a, size_t size);     /* 16-byte aligned, zeroed */
void *wa_calloc(wa_arena *a, size_t n, size_t size); /* overflow-checked */
/* A copy of n elements of size bytes and one zeroed element after them,
 * without zeroing what the copy fills. */
void *wa_memdup(wa_arena *a, const void *src, size_t n, size_t size);
char *wa_strndup(wa_arena *a, const char *s, size_t n);
char *wa_strdup(wa_arena *a, const char *s);
char *wa_printf(wa_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
size_t wa_used(const wa_arena *a);           /* bytes handed out */
/* At most cap bytes of chunks from now on (0: none): an allocation
 * beyond it returns NULL, as a failed malloc does, so that a solve
 * within wasp_options.max_memory degrades like one out of memory. */
void wa_set_cap(wa_arena *a, size_t cap);

/* A growable array kept in the arena: `WA_PUSH(a, arr, n, cap, value)`
 * appends, doubling the capacity; yields 0 on success, -1 on NOMEM. */
int wa_grow(wa_arena *a, void **arr, size_t elsize, size_t *cap, size_t need);
#define WA_PUSH(a, arr, n, cap, value)                                       \
	(wa_grow((a), (void **)&(arr), sizeof *(arr), &(cap), (n) + 1) ? -1  \
	 : ((arr)[(n)++] = (value), 0))

#endif
