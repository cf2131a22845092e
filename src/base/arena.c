/*
 * arena.c -- region allocator (see arena.h).
 *
 * Chunks are chained; large requests get a chunk of their own so small ones
 * keep filling the current chunk.  An arena that has grown past
 * BIG_HELD (a loaded snapshot's trees, a large problem) takes chunks of
 * BIG_CHUNK, aligned to and advised as transparent huge pages where the
 * system has them: first touching a page is most of what loading 250 MB
 * of YAML costs on a virtual machine (6.7 s for 2 GB in 4 KiB pages
 * against 4.0 s in 2 MiB ones, measured here), and huge pages take one
 * fault per 2 MiB.  A small arena never pays for one.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "base/arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_SIZE (256 * 1024)
#define ALIGN 16
#define BIG_HELD ((size_t)64 << 20)
#define BIG_CHUNK ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

struct chunk {
	struct chunk *next;
	size_t size, used;
	int fresh; /* a dedicated chunk from calloc: already zero */
	_Alignas(16) unsigned char data[];
};

struct wa_arena {
	struct chunk *head;
	size_t total;
	size_t held; /* bytes of its chunks */
	size_t cap;  /* 0: none (wa_set_cap) */
};

wa_arena *wa_new(void)
{
	return calloc(1, sizeof(wa_arena));
}

void wa_destroy(wa_arena *a)
{
	if (!a)
		return;
	struct chunk *c = a->head;
	while (c) {
		struct chunk *n = c->next;
		free(c);
		c = n;
	}
	free(a);
}

/* A chunk of BIG_CHUNK bytes in all, header included, on huge pages
 * where the system gives them (the advice is only advice); grab sets
 * its size. */
static struct chunk *big_chunk(void)
{
	void *p = NULL;
	if (posix_memalign(&p, HUGE_PAGE, BIG_CHUNK))
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, BIG_CHUNK, MADV_HUGEPAGE);
#endif
	return p;
}

/* size bytes, zeroed when zero is set (the copy functions fill them). */
static void *grab(wa_arena *a, size_t size, int zero)
{
	if (size == 0)
		size = 1;
	if (size > SIZE_MAX - ALIGN)
		return NULL;
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	struct chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		bool big = a->held >= BIG_HELD;
		size_t base = big ? BIG_CHUNK - sizeof *c : CHUNK_SIZE;
		size_t cs = size > base / 4 ? size : base;
		big = big && cs == base;
		if (a->cap && (cs > a->cap || a->held > a->cap - cs))
			return NULL; /* over its cap: as if malloc failed */
		/* Big blocks come from calloc: the kernel hands out zero
		 * pages lazily, so a large array costs only the pages
		 * written (or, on some kernels, read). */
		struct chunk *n = big ? big_chunk()
				  : cs == size && zero
				      ? calloc(1, sizeof *n + cs)
				      : malloc(sizeof *n + cs);
		if (!n)
			return NULL;
		n->size = cs;
		n->used = 0;
		a->held += cs;
		n->fresh = cs == size && zero;
		if (c && cs == size) {
			/* keep filling the current chunk: link the big one
			 * behind it */
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			a->head = n;
		}
		c = n;
	}
	void *p = c->data + c->used;
	c->used += size;
	a->total += size;
	if (c->fresh)
		c->fresh = 0; /* the whole chunk was this one request */
	else if (zero)
		memset(p, 0, size);
	return p;
}

void *wa_alloc(wa_arena *a, size_t size)
{
	return grab(a, size, 1);
}

void *wa_memdup(wa_arena *a, const void *src, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	/* one spare element, zeroed, as wa_calloc(n + 1) callers expect */
	size_t len = n * size;
	if (len > SIZE_MAX - size)
		return NULL;
	unsigned char *d = grab(a, len + size, 0);
	if (d) {
		if (len)
			memcpy(d, src, len);
		memset(d + len, 0, size);
	}
	return d;
}

void *wa_calloc(wa_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return wa_alloc(a, n * size);
}

char *wa_strndup(wa_arena *a, const char *s, size_t n)
{
	char *d = wa_alloc(a, n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

char *wa_strdup(wa_arena *a, const char *s)
{
	return wa_strndup(a, s, strlen(s));
}

char *wa_printf(wa_arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *d = n >= 0 ? wa_alloc(a, (size_t)n + 1) : NULL;
	if (d)
		vsnprintf(d, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return d;
}

size_t wa_used(const wa_arena *a)
{
	return a->total;
}

void wa_set_cap(wa_arena *a, size_t cap)
{
	a->cap = cap;
}

int wa_grow(wa_arena *a, void **arr, size_t elsize, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 8;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elsize)
			return -1;
		nc *= 2;
	}
	void *n = wa_calloc(a, nc, elsize);
	if (!n)
		return -1;
	if (*arr && *cap)
		memcpy(n, *arr, *cap * elsize);
	*arr = n;
	*cap = nc;
	return 0;
}
