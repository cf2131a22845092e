/*
 * gen_emit.c -- the generator's output: a growable buffer and one small
 * emitter that writes the same objects as YAML documents (kubectl's block
 * style) or as a kubectl-style JSON List (see gen_int.h).
 *
 * Output goes into one growable buffer (doubling), so 100,000 pods cost
 * linear time.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/gen_int.h"

/* ------------------------------------------------------------ buffer */

static int wgb_reserve(gbuf *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->n + more + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->n + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void wgb_put(gbuf *b, const char *s, size_t n)
{
	if (wgb_reserve(b, n))
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void wgb_puts(gbuf *b, const char *s)
{
	wgb_put(b, s, strlen(s));
}

static void wgb_spaces(gbuf *b, int n)
{
	static const char sp[] = "                                        ";
	while (n > 0) {
		int k = n < 40 ? n : 40;
		wgb_put(b, sp, (size_t)k);
		n -= k;
	}
}

/* ------------------------------------------------------------ emitter */

/*
 * One writer for both syntaxes.  YAML comes out in kubectl's block style
 * (sequence items at their key's indentation); JSON is indented by two.
 * Containers must not be empty (the generator never asks for one).
 */
enum { EM_MAP, EM_SEQ };

static int yaml_needs_quotes(const char *s)
{
	static const char *const words[] = {
	    "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"};
	if (!*s || strchr("!&*#?|>@`'\"%{}[], ", *s))
		return 1;
	/* digits, signs, dots, exponents, colons: YAML may read a number
	 * (8, 1.5, 2e3, 1_000, 12:30); "512Gi" stays a plain string */
	if (strchr("0123456789-+.", *s) &&
	    strspn(s, "0123456789-+._:eExXoOabcdefABCDEF") == strlen(s))
		return 1;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	if (strstr(s, ": ") || strstr(s, " #") || strchr(s, '"') ||
	    strchr(s, '\\'))
		return 1;
	size_t n = strlen(s);
	return s[n - 1] == ':' || s[n - 1] == ' ';
}

static void put_quoted(gbuf *b, const char *s)
{
	wgb_put(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			wgb_put(b, "\\", 1);
		wgb_put(b, s, 1);
	}
	wgb_put(b, "\"", 1);
}

/* Start an entry of the current container: key (NULL for a sequence
 * item).  YAML leaves the cursor after "key:" or "- "; JSON after
 * `"key": `. */
void wem_entry(emitter *e, const char *key)
{
	gbuf *b = &e->b;
	if (e->top < 0)
		return;
	struct em_level *c = &e->st[e->top];
	if (e->json) {
		wgb_puts(b, c->count ? ",\n" : "\n");
		wgb_spaces(b, c->indent);
		if (key) {
			put_quoted(b, key);
			wgb_puts(b, ": ");
		}
	} else if (c->type == EM_SEQ) {
		wgb_spaces(b, c->indent);
		wgb_puts(b, "- ");
	} else {
		if (c->dash) {
			/* the "- " was written when the item opened */
			c->dash = 0;
		} else {
			wgb_spaces(b, c->indent);
		}
		wgb_puts(b, key);
		wgb_puts(b, ":");
	}
	c->count++;
}

static void wem_push(emitter *e, int type, int indent, int dash)
{
	if (e->top + 1 >= EM_DEPTH) {
		e->b.oom = 1; /* a bug, not an input: make it fail loudly */
		return;
	}
	e->top++;
	e->st[e->top].type = type;
	e->st[e->top].indent = indent;
	e->st[e->top].count = 0;
	e->st[e->top].dash = dash;
}

static void wem_open(emitter *e, int type, const char *key)
{
	gbuf *b = &e->b;
	int parent_indent = e->top >= 0 ? e->st[e->top].indent : 0;
	int parent_seq = e->top >= 0 && e->st[e->top].type == EM_SEQ;
	wem_entry(e, key);
	if (e->json) {
		wgb_puts(b, type == EM_MAP ? "{" : "[");
		wem_push(e, type, parent_indent + 2, 0);
	} else if (parent_seq) {
		/* "- " is out; a map's first key follows on this line */
		if (type == EM_MAP) {
			wem_push(e, EM_MAP, parent_indent + 2, 1);
		} else {
			wgb_puts(b, "\n");
			wem_push(e, EM_SEQ, parent_indent + 2, 0);
		}
	} else {
		wgb_puts(b, "\n");
		wem_push(e, type,
			 type == EM_MAP ? parent_indent + 2 : parent_indent, 0);
	}
}

void wem_map(emitter *e, const char *key)
{
	wem_open(e, EM_MAP, key);
}

void wem_seq(emitter *e, const char *key)
{
	wem_open(e, EM_SEQ, key);
}

void wem_end(emitter *e)
{
	if (e->top < 0)
		return;
	if (e->json) {
		int type = e->st[e->top].type;
		int indent = e->st[e->top].indent;
		if (e->st[e->top].count) {
			wgb_puts(&e->b, "\n");
			wgb_spaces(&e->b, indent - 2);
		}
		wgb_puts(&e->b, type == EM_MAP ? "}" : "]");
	}
	e->top--;
}

void wem_str(emitter *e, const char *key, const char *val)
{
	wem_entry(e, key);
	if (e->json) {
		put_quoted(&e->b, val);
		return;
	}
	if (key)
		wgb_puts(&e->b, " ");
	if (yaml_needs_quotes(val))
		put_quoted(&e->b, val);
	else
		wgb_puts(&e->b, val);
	wgb_puts(&e->b, "\n");
}

void wem_bool(emitter *e, const char *key, int v)
{
	wem_entry(e, key);
	if (!e->json && key)
		wgb_puts(&e->b, " ");
	wgb_puts(&e->b, v ? "true" : "false");
	if (!e->json)
		wgb_puts(&e->b, "\n");
}

void wem_int(emitter *e, const char *key, long long v)
{
	char num[32];
	snprintf(num, sizeof num, "%lld", v);
	wem_entry(e, key);
	if (!e->json && key)
		wgb_puts(&e->b, " ");
	wgb_puts(&e->b, num);
	if (!e->json)
		wgb_puts(&e->b, "\n");
}

/* A top-level object: a YAML document, or an item of the JSON List. */
void wem_doc(emitter *e)
{
	if (e->json) {
		wem_map(e, NULL);
	} else {
		if (e->ndocs)
			wgb_puts(&e->b, "---\n");
		wem_push(e, EM_MAP, 0, 0);
	}
	e->ndocs++;
}

/* A top-level object's head: apiVersion, kind and metadata (name, and
 * namespace unless ns is NULL). */
void wem_head(emitter *e, const char *api, const char *kind,
	      const char *name, const char *ns)
{
	wem_doc(e);
	wem_str(e, "apiVersion", api);
	wem_str(e, "kind", kind);
	wem_map(e, "metadata");
	wem_str(e, "name", name);
	if (ns)
		wem_str(e, "namespace", ns);
	wem_end(e);
}

void wem_begin(emitter *e, int json)
{
	memset(e, 0, sizeof *e);
	e->json = json;
	e->top = -1;
	if (json) {
		wem_push(e, EM_MAP, 0, 0);
		wgb_puts(&e->b, "{");
		e->st[0].indent = 2;
		wem_str(e, "apiVersion", "v1");
		wem_str(e, "kind", "List");
		wem_seq(e, "items");
	}
}

void wem_finish(emitter *e)
{
	if (e->json) {
		wem_end(e); /* items */
		wem_end(e); /* the List */
		wgb_puts(&e->b, "\n");
	}
}

/* resources.limits: k nvidia.com/gpu. */
void wem_gpu_limit(emitter *e, int k)
{
	char q[16];
	snprintf(q, sizeof q, "%d", k);
	wem_map(e, "limits");
	wem_str(e, "nvidia.com/gpu", q);
	wem_end(e);
}

/* Close a pod's resources, container, containers and spec; its phase. */
void wem_pod_end(emitter *e, int running)
{
	wem_end(e);
	wem_end(e);
	wem_end(e);
	wem_end(e);
	wem_map(e, "status");
	wem_str(e, "phase", running ? "Running" : "Pending");
	wem_end(e);
	wem_end(e);
}
