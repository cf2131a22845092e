/*
 * load_yaml.c -- YAML streams into document trees, on libyaml's event API.
 *
 * The tree is built straight from events so every limit is enforced while
 * parsing, not after: nesting is checked at each collection start (which
 * also stops libyaml's quadratic deep-flow path early, c-stack.md §3), and
 * every value, with aliases counted at their full expanded size, is charged
 * to WASP_MAX_TREE_NODES, so a "billion laughs" fails after a few events.
 * An alias shares the anchored node; an alias to a collection that is still
 * open would make a cycle and is refused.  Duplicate keys (which libyaml
 * accepts) and non-scalar keys are errors.  Merge keys (<<) are applied.
 *
 * Plain scalars resolve as Kubernetes' YAML 1.2 decoding does: null, true
 * and false in their three spellings, decimal/0x/0o integers, floats, .inf
 * and .nan; yes/no/on/off stay strings.  Columns count bytes (libyaml
 * counts characters; we convert).
 */
#include "io/intern.h"
#include "io/load.h"
#include "io/syntax.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define TAG_STR "tag:yaml.org,2002:str"
#define TAG_INT "tag:yaml.org,2002:int"
#define TAG_FLOAT "tag:yaml.org,2002:float"
#define TAG_BOOL "tag:yaml.org,2002:bool"
#define TAG_NULL "tag:yaml.org,2002:null"
#define TAG_MERGE "tag:yaml.org,2002:merge"

/* An anchor; records never move, the hash table points at them.  A record
 * belongs to the document whose generation it carries. */
struct anchor {
	const char *name;
	wt_node *node;
	size_t size;   /* expanded values, valid once done */
	int height;    /* collection levels in it (scalar: 0) */
	unsigned gen;
	bool done;     /* false while the anchored collection is open */
};

struct frame {
	wt_node *node;
	size_t base;   /* its first child in kids[] */
	size_t mbase;  /* its first merge key in merges[] */
	size_t size;   /* expanded values so far, itself included */
	int height;    /* deepest child's height */
	struct anchor *anc;
};

/* Character index -> byte offset, walked incrementally. */
struct cursor {
	size_t ci, bi;
};

struct yl {
	wa_arena *a;
	wa_arena *scratch; /* anchor names and records */
	const char *file;
	wasp_error *err;
	const unsigned char *text;
	size_t len;
	struct cursor pc, lc; /* position and line-start cursors */

	wt_node **kids; /* children of open collections */
	size_t nkids, capkids;
	size_t *merges; /* kids[] index of each pending merge key */
	size_t nmerges, capmerges;
	struct frame frames[WASP_MAX_DEPTH];
	int depth;

	struct anchor **slot; /* open addressing by name */
	size_t nslot, nanch;
	unsigned gen;

	size_t total; /* values so far, aliases expanded */
	wl_itab *in; /* short scalars shared (NULL: none, on NOMEM) */
	wt_node *root;
	wt_node **roots;
	size_t nroots, caproots;
};

/* ------------------------------------------------------------ positions */

static size_t u8len(unsigned char c)
{
	return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

static size_t to_byte(const struct yl *y, struct cursor *c, size_t ci)
{
	while (c->ci < ci && c->bi < y->len) {
		c->bi += u8len(y->text[c->bi]);
		if (c->bi > y->len)
			c->bi = y->len;
		c->ci++;
	}
	while (c->ci > ci && c->bi > 0) {
		c->bi--;
		while (c->bi > 0 && (y->text[c->bi] & 0xC0) == 0x80)
			c->bi--;
		c->ci--;
	}
	return c->bi;
}

static int clamp_int(size_t v)
{
	return v > INT_MAX ? INT_MAX : (int)v;
}

static wsrc at(struct yl *y, yaml_mark_t m)
{
	size_t ls = m.index >= m.column ? m.index - m.column : 0;
	size_t lb = to_byte(y, &y->lc, ls);
	size_t pb = to_byte(y, &y->pc, m.index);
	return (wsrc){y->file, clamp_int(m.line + 1),
		      clamp_int(pb >= lb ? pb - lb + 1 : 1)};
}

/* Line and column of a byte offset (reader errors give only that), with
 * libyaml's line breaks: LF, CRLF, CR, NEL, LS, PS. */
static wsrc at_offset(struct yl *y, size_t off)
{
	const unsigned char *t = y->text;
	size_t line = 1, ls = 0;
	if (off > y->len)
		off = y->len;
	for (size_t i = 0; i < off; i++) {
		size_t brk = 0;
		if (t[i] == '\n')
			brk = 1;
		else if (t[i] == '\r')
			brk = i + 1 < y->len && t[i + 1] == '\n' ? 2 : 1;
		else if (t[i] == 0xC2 && i + 1 < y->len && t[i + 1] == 0x85)
			brk = 2;
		else if (t[i] == 0xE2 && i + 2 < y->len && t[i + 1] == 0x80 &&
			 (t[i + 2] == 0xA8 || t[i + 2] == 0xA9))
			brk = 3;
		if (brk && i + brk <= off) {
			line++;
			i += brk - 1;
			ls = i + 1;
		}
	}
	return (wsrc){y->file, clamp_int(line), clamp_int(off - ls + 1)};
}

/* --------------------------------------------------------------- errors */

static int nomem(struct yl *y)
{
	return werr(y->err, WASP_ENOMEM, "out of memory loading %s", y->file);
}

static int parser_error(struct yl *y, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return nomem(y);
	case YAML_READER_ERROR: {
		/* A bad trailing octet is reported at itself; point at the
		 * character it breaks, as the JSON loader does. */
		size_t off = p->problem_offset, o = off;
		if (strstr(problem, "trailing") && off <= y->len) {
			while (o > 0 && off - o < 3 &&
			       (y->text[o - 1] & 0xC0) == 0x80)
				o--;
			if (o > 0 && y->text[o - 1] >= 0xC0)
				off = o - 1;
		}
		wsrc w = at_offset(y, off);
		if (p->problem_value < 0)
			return werr_at(y->err, WASP_EINPUT, w, "%s", problem);
		if (strstr(problem, "UTF-8") || p->problem_value > 0x10FFFF)
			return werr_at(y->err, WASP_EINPUT, w,
				       "%s (byte 0x%02X)", problem,
				       (unsigned)p->problem_value & 0xFF);
		return werr_at(y->err, WASP_EINPUT, w, "%s (U+%04X)", problem,
			       (unsigned)p->problem_value);
	}
	default: {
		/* Take the context position first: the cursors walk
		 * backwards as well, but forwards is the cheap way. */
		wsrc cw = {0};
		if (p->context)
			cw = at(y, p->context_mark);
		wsrc w = at(y, p->problem_mark);
		if (p->context)
			return werr_at(y->err, WASP_EINPUT, w,
				       "%s (%s at line %d col %d)", problem,
				       p->context, cw.line, cw.col);
		return werr_at(y->err, WASP_EINPUT, w, "%s", problem);
	}
	}
}

static int over_budget(struct yl *y, wsrc w)
{
	return werr_at(y->err, WASP_ELIMIT, w,
		       "more than %ld values in one file, aliases expanded "
		       "(WASP_MAX_TREE_NODES)",
		       (long)WASP_MAX_TREE_NODES);
}

/* `b` is the byte offset of the key (the position cursor after at()). */
static int complex_key(struct yl *y, wsrc w, size_t b)
{
	/* "{{ .Values.x }}" parses as a map used as a key: say so. */
	bool tmpl = b > 0 && b < y->len && y->text[b - 1] == '{' &&
		    y->text[b] == '{';
	return werr_at(y->err, WASP_EINPUT, w,
		       "map keys must be scalars (complex keys are not "
		       "supported)%s",
		       tmpl ? "; \"{{\" looks like a template placeholder, "
			      "which is not YAML: render the template first"
			    : "");
}

/* -------------------------------------------------------------- anchors */

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

/* A slot is free when empty or left by an earlier document. */
static bool slot_live(const struct yl *y, size_t i)
{
	return y->slot[i] && y->slot[i]->gen == y->gen;
}

static struct anchor *anchor_find(struct yl *y, const char *name)
{
	if (!y->nslot)
		return NULL;
	size_t m = y->nslot - 1;
	for (size_t i = name_hash(name) & m; slot_live(y, i); i = (i + 1) & m)
		if (strcmp(y->slot[i]->name, name) == 0)
			return y->slot[i];
	return NULL;
}

static void anchor_put(struct yl *y, struct anchor *r)
{
	size_t m = y->nslot - 1, i = name_hash(r->name) & m;
	while (slot_live(y, i)) {
		if (strcmp(y->slot[i]->name, r->name) == 0)
			break; /* redefinition: the later one wins */
		i = (i + 1) & m;
	}
	if (!slot_live(y, i))
		y->nanch++;
	y->slot[i] = r;
}

static int anchor_add(struct yl *y, const char *name, wt_node *n, bool done,
		      struct anchor **out)
{
	if ((y->nanch + 1) * 2 > y->nslot) {
		size_t ns = y->nslot ? y->nslot * 2 : 64;
		struct anchor **old = y->slot;
		size_t on = y->nslot;
		y->slot = calloc(ns, sizeof *y->slot);
		if (!y->slot) {
			y->slot = old;
			return nomem(y);
		}
		y->nslot = ns;
		y->nanch = 0;
		for (size_t i = 0; i < on; i++)
			if (old[i] && old[i]->gen == y->gen)
				anchor_put(y, old[i]);
		free(old);
	}
	struct anchor *r = wa_alloc(y->scratch, sizeof *r);
	if (!r || !(r->name = wa_strdup(y->scratch, name)))
		return nomem(y);
	r->node = n;
	r->size = 1;
	r->height = 0;
	r->gen = y->gen;
	r->done = done;
	anchor_put(y, r);
	if (out)
		*out = r;
	return 0;
}

/* ------------------------------------------------------------- scalars */

static bool eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static bool is_null(const char *s, size_t n)
{
	return n == 0 || eq(s, n, "~") || eq(s, n, "null") ||
	       eq(s, n, "Null") || eq(s, n, "NULL");
}

/* 1 true, 0 false, -1 not a boolean. */
static int as_bool(const char *s, size_t n)
{
	if (eq(s, n, "true") || eq(s, n, "True") || eq(s, n, "TRUE"))
		return 1;
	if (eq(s, n, "false") || eq(s, n, "False") || eq(s, n, "FALSE"))
		return 0;
	return -1;
}

static size_t digits(const char *s, size_t n, size_t i, int base)
{
	size_t j = i;
	for (; j < n; j++) {
		char c = s[j];
		bool ok = base == 16 ? ((c >= '0' && c <= '9') ||
					(c >= 'a' && c <= 'f') ||
					(c >= 'A' && c <= 'F'))
			  : base == 8 ? (c >= '0' && c <= '7')
				      : (c >= '0' && c <= '9');
		if (!ok)
			break;
	}
	return j - i;
}

/* YAML 1.2 core schema int or float. */
static bool is_number(const char *s, size_t n)
{
	size_t i = 0;
	if (n >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o'))
		return digits(s, n, 2, s[1] == 'x' ? 16 : 8) == n - 2;
	if (eq(s, n, ".nan") || eq(s, n, ".NaN") || eq(s, n, ".NAN"))
		return true;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (eq(s + i, n - i, ".inf") || eq(s + i, n - i, ".Inf") ||
	    eq(s + i, n - i, ".INF"))
		return true;
	size_t d = digits(s, n, i, 10);
	i += d;
	if (i < n && s[i] == '.') {
		size_t f = digits(s, n, i + 1, 10);
		if (!d && !f)
			return false;
		i += 1 + f;
	} else if (!d) {
		return false;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t e = digits(s, n, i, 10);
		if (!e)
			return false;
		i += e;
	}
	return i == n;
}

/* Type a scalar value from its style and tag. */
static int resolve(struct yl *y, wt_node *n, const yaml_event_t *ev)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	const char *s = n->str;
	size_t len = n->len;
	const char *want = NULL;

	n->type = WT_STR;
	if (tag && strcmp(tag, "!") != 0) {
		if (strcmp(tag, TAG_STR) == 0)
			return 0;
		if (strcmp(tag, TAG_NULL) == 0) {
			n->type = WT_NULL;
			return 0;
		}
		if (strcmp(tag, TAG_BOOL) == 0) {
			int b = as_bool(s, len);
			if (b < 0) {
				want = "!!bool";
				goto bad;
			}
			n->type = WT_BOOL;
			n->boolean = b;
			return 0;
		}
		if (strcmp(tag, TAG_INT) == 0 || strcmp(tag, TAG_FLOAT) == 0) {
			if (!is_number(s, len)) {
				want = strcmp(tag, TAG_INT) == 0 ? "!!int"
								 : "!!float";
				goto bad;
			}
			n->type = WT_NUM;
			return 0;
		}
		/* other tags: resolve as if untagged */
	} else if (tag) {
		return 0; /* "!" forces a string */
	}
	if (!plain)
		return 0;
	if (is_null(s, len)) {
		n->type = WT_NULL;
	} else if (as_bool(s, len) >= 0) {
		n->type = WT_BOOL;
		n->boolean = as_bool(s, len);
	} else if (is_number(s, len)) {
		n->type = WT_NUM;
	}
	return 0;
bad: {
	char q[128];
	return werr_at(y->err, WASP_EINPUT, n->src, "\"%s\" is not a valid %s",
		       wl_quote(q, sizeof q, s, len), want);
}
}

/* ------------------------------------------------------------- building */

static int count(struct yl *y, size_t k, wsrc w)
{
	if (k > (size_t)WASP_MAX_TREE_NODES ||
	    y->total + k > (size_t)WASP_MAX_TREE_NODES)
		return over_budget(y, w);
	y->total += k;
	return 0;
}

static bool at_key(const struct yl *y)
{
	if (!y->depth)
		return false;
	const struct frame *f = &y->frames[y->depth - 1];
	return f->node->type == WT_MAP && (y->nkids - f->base) % 2 == 0;
}

/* A finished value of `size` expanded values and `height` collection
 * levels goes to its parent. */
static int add(struct yl *y, wt_node *n, size_t size, int height)
{
	if (!y->depth) {
		y->root = n;
		return 0;
	}
	struct frame *f = &y->frames[y->depth - 1];
	f->size += size;
	if (height > f->height)
		f->height = height;
	return wl_push(&y->kids, &y->nkids, &y->capkids, n) ? nomem(y) : 0;
}

static wt_node *new_node(struct yl *y, wt_type t, wsrc w)
{
	wt_node *n = wa_alloc(y->a, sizeof *n);
	if (n) {
		n->type = t;
		n->src = w;
	}
	return n;
}

static int on_scalar(struct yl *y, const yaml_event_t *ev)
{
	wsrc w = at(y, ev->start_mark);
	int rc;
	if ((rc = count(y, 1, w)))
		return rc;
	wt_node *n = new_node(y, WT_STR, w);
	if (!n)
		return nomem(y);
	n->len = ev->data.scalar.length;
	n->str = wl_intern(y->in, y->a, (const char *)ev->data.scalar.value,
			   n->len);
	if (!n->str)
		return nomem(y);
	if (at_key(y)) {
		const char *tag = (const char *)ev->data.scalar.tag;
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    eq(n->str, n->len, "<<") &&
		    (!tag || strcmp(tag, TAG_MERGE) == 0)) {
			if (y->nmerges == y->capmerges) {
				size_t nc = y->capmerges ? y->capmerges * 2
							 : 16;
				size_t *nm =
				    realloc(y->merges, nc * sizeof *nm);
				if (!nm)
					return nomem(y);
				y->merges = nm;
				y->capmerges = nc;
			}
			y->merges[y->nmerges++] = y->nkids;
		}
	} else if ((rc = resolve(y, n, ev))) {
		return rc;
	}
	if (ev->data.scalar.anchor &&
	    (rc = anchor_add(y, (const char *)ev->data.scalar.anchor, n, true,
			     NULL)))
		return rc;
	return add(y, n, 1, 0);
}

static int on_alias(struct yl *y, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	wsrc w = at(y, ev->start_mark);
	char q[128];
	wl_quote(q, sizeof q, name, strlen(name));
	struct anchor *r = anchor_find(y, name);
	if (!r)
		return werr_at(y->err, WASP_EINPUT, w,
			       "undefined alias *%s (no anchor &%s before it "
			       "in this document)", q, q);
	if (!r->done)
		return werr_at(y->err, WASP_EINPUT, w,
			       "alias *%s refers to its own enclosing node "
			       "(cycle)", q);
	/* Shared subtrees must not nest deeper, once expanded, than the
	 * text could: consumers may walk the tree recursively. */
	if (y->depth + r->height > WASP_MAX_DEPTH)
		return werr_at(y->err, WASP_ELIMIT, w,
			       "alias *%s nests deeper than %d levels once "
			       "expanded (WASP_MAX_DEPTH)", q, WASP_MAX_DEPTH);
	int rc;
	if ((rc = count(y, r->size, w)))
		return rc;
	wt_node *n = r->node;
	if (at_key(y)) {
		if (n->type == WT_SEQ || n->type == WT_MAP)
			return complex_key(y, w, y->pc.bi);
		if (n->type != WT_STR) {
			/* keys are strings: retype a copy */
			wt_node *k = new_node(y, WT_STR, n->src);
			if (!k)
				return nomem(y);
			k->str = n->str ? n->str : "";
			k->len = n->str ? n->len : 0;
			n = k;
		}
	}
	return add(y, n, r->size, r->height);
}

static int on_start(struct yl *y, const yaml_event_t *ev, wt_type t)
{
	wsrc w = at(y, ev->start_mark);
	int rc;
	if (at_key(y))
		return complex_key(y, w, y->pc.bi);
	if (y->depth >= WASP_MAX_DEPTH)
		return werr_at(y->err, WASP_ELIMIT, w,
			       "nesting deeper than %d levels (WASP_MAX_DEPTH)",
			       WASP_MAX_DEPTH);
	if ((rc = count(y, 1, w)))
		return rc;
	wt_node *n = new_node(y, t, w);
	if (!n)
		return nomem(y);
	struct frame *f = &y->frames[y->depth];
	*f = (struct frame){n, y->nkids, y->nmerges, 1, 0, NULL};
	const yaml_char_t *anchor = t == WT_MAP
					? ev->data.mapping_start.anchor
					: ev->data.sequence_start.anchor;
	if (anchor &&
	    (rc = anchor_add(y, (const char *)anchor, n, false, &f->anc)))
		return rc;
	y->depth++;
	return 0;
}

static int dup_error(struct yl *y, const wt_node *k1, const wt_node *k2)
{
	char q[128];
	return werr_at(y->err, WASP_EINPUT, k2->src,
		       "duplicate key \"%s\" (first at line %d col %d)",
		       wl_quote(q, sizeof q, k2->str, k2->len), k1->src.line,
		       k1->src.col);
}

/* Items of a map with merge keys: its own pairs, then those of the merged
 * maps that it does not already have (earlier sources win). */
static int apply_merges(struct yl *y, struct frame *f)
{
	wt_node **kids = y->kids + f->base;
	size_t k = y->nkids - f->base, nm = y->nmerges - f->mbase;
	size_t *mk = y->merges + f->mbase;
	int rc = 0;

	/* own pairs first, merge pairs dropped */
	wt_node **own = malloc((k ? k : 1) * sizeof *own);
	if (!own)
		return nomem(y);
	size_t nown = 0, extra = 0, m = 0;
	for (size_t i = 0; i < k; i += 2) {
		if (m < nm && mk[m] == f->base + i) {
			wt_node *v = kids[i + 1];
			m++;
			if (v->type == WT_MAP) {
				extra += v->n;
				continue;
			}
			if (v->type == WT_SEQ) {
				bool ok = true;
				for (size_t s = 0; s < v->n; s++) {
					if (v->items[s]->type != WT_MAP)
						ok = false;
					else
						extra += v->items[s]->n;
				}
				if (ok)
					continue;
			}
			rc = werr_at(y->err, WASP_EINPUT, v->src,
				     "the merge key << needs a map or a list "
				     "of maps, not a %s",
				     wt_type_name(v->type));
			goto out;
		}
		own[nown++] = kids[i];
		own[nown++] = kids[i + 1];
	}
	size_t first, second;
	int d = wl_find_dup(own, nown / 2, &first, &second);
	if (d < 0) {
		rc = nomem(y);
		goto out;
	}
	if (d) {
		rc = dup_error(y, own[2 * first], own[2 * second]);
		goto out;
	}

	wl_keyset ks;
	wt_node **items = wa_calloc(y->a, nown + 2 * extra, sizeof *items);
	if (!items || wl_keyset_init(&ks, nown / 2 + extra)) {
		rc = nomem(y);
		goto out;
	}
	size_t n = 0;
	for (size_t i = 0; i < nown; i += 2) {
		wl_keyset_add(&ks, own[i]);
		items[n++] = own[i];
		items[n++] = own[i + 1];
	}
	for (m = 0; m < nm; m++) {
		const wt_node *v = kids[mk[m] - f->base + 1];
		size_t nsrc = v->type == WT_MAP ? 1 : v->n;
		for (size_t s = 0; s < nsrc; s++) {
			const wt_node *src = v->type == WT_MAP ? v : v->items[s];
			for (size_t p = 0; p < src->n; p++) {
				if (wl_keyset_add(&ks, src->items[2 * p]))
					continue;
				items[n++] = src->items[2 * p];
				items[n++] = src->items[2 * p + 1];
			}
		}
	}
	wl_keyset_free(&ks);
	f->node->items = items;
	f->node->n = n / 2;
out:
	free(own);
	return rc;
}

static int on_end(struct yl *y)
{
	struct frame *f = &y->frames[--y->depth];
	wt_node *n = f->node;
	size_t k = y->nkids - f->base;
	int rc;

	if (n->type == WT_MAP && y->nmerges > f->mbase) {
		if ((rc = apply_merges(y, f)))
			return rc;
	} else {
		if (n->type == WT_MAP && k >= 4) {
			size_t first, second;
			int d = wl_find_dup(y->kids + f->base, k / 2, &first,
					    &second);
			if (d < 0)
				return nomem(y);
			if (d)
				return dup_error(y,
						 y->kids[f->base + 2 * first],
						 y->kids[f->base + 2 * second]);
		}
		if (k) {
			n->items = wa_alloc(y->a, k * sizeof *n->items);
			if (!n->items)
				return nomem(y);
			memcpy(n->items, y->kids + f->base,
			       k * sizeof *n->items);
		}
		n->n = n->type == WT_MAP ? k / 2 : k;
	}
	y->nkids = f->base;
	y->nmerges = f->mbase;
	if (f->anc) {
		f->anc->size = f->size;
		f->anc->height = f->height + 1;
		f->anc->done = true;
	}
	return add(y, n, f->size, f->height + 1);
}

static int on_event(struct yl *y, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		y->gen++; /* anchors are per document */
		y->nanch = 0;
		y->root = NULL;
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		if (y->root && y->root->type != WT_NULL &&
		    WA_PUSH(y->a, y->roots, y->nroots, y->caproots, y->root))
			return nomem(y);
		y->root = NULL;
		return 0;
	case YAML_SCALAR_EVENT:
		return on_scalar(y, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(y, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(y, ev, WT_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_start(y, ev, WT_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(y);
	default:
		return 0;
	}
}

int wl_load_yaml(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err)
{
	return wl_load_yaml_lim(a, text, len, name, NULL, out, err);
}

int wl_load_yaml_lim(wa_arena *a, const char *text, size_t len,
		     const char *name, const wl_limits *lim, wt_doc *out,
		     wasp_error *err)
{
	int rc = wl_begin(a, len, &name, out, err);
	if (rc)
		return rc;
	/* A BOM is not part of column 1: drop it here rather than let the
	 * scanner count it. */
	size_t bom = wl_bom(text, len);
	text += bom;
	len -= bom;
	struct yl *y = calloc(1, sizeof *y);
	if (!y)
		return werr(err, WASP_ENOMEM, "out of memory loading %s", name);
	y->a = a;
	y->file = out->file;
	y->err = err;
	y->text = (const unsigned char *)text;
	y->len = len;
	y->scratch = wa_new();
	y->in = wl_intern_new();

	yaml_parser_t p;
	if (!y->scratch || !yaml_parser_initialize(&p)) {
		wa_destroy(y->scratch);
		wl_intern_free(y->in);
		free(y);
		return werr(err, WASP_ENOMEM, "out of memory loading %s",
			    name);
	}
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (size_t nev = 1;; nev++) {
		yaml_event_t ev;
		if ((nev & WL_POLL_EVERY) == 0 &&
		    (rc = wl_stop(lim, err,
				  (wsrc){out->file,
					 (int)p.mark.line + 1,
					 (int)p.mark.column + 1})))
			break;
		if (!yaml_parser_parse(&p, &ev)) {
			rc = parser_error(y, &p);
			break;
		}
		rc = on_event(y, &ev);
		bool end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (rc || end)
			break;
	}
	yaml_parser_delete(&p);
	if (!rc) {
		out->roots = y->roots;
		out->nroots = y->nroots;
	}
	free(y->kids);
	free(y->merges);
	free(y->slot);
	wa_destroy(y->scratch);
	wl_intern_free(y->in);
	free(y);
	return rc;
}
