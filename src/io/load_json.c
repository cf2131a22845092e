/*
 * load_json.c -- JSON (RFC 8259) into a document tree.
 *
 * A recursive-descent parser of our own rather than cJSON: we need the
 * line and column of every value, the exact text of numbers, strict
 * validation (escapes, surrogates, UTF-8, duplicate keys) and speed on
 * 100 MB kubectl dumps.  Recursion is bounded by WASP_MAX_DEPTH.  Children
 * of open containers collect on one temporary stack and are copied into the
 * arena once, when their container closes.
 *
 * Several top-level values one after another (as kubectl may print) each
 * become a root; null roots are dropped.  Columns count bytes.
 */
#include "io/intern.h"
#include "io/load.h"
#include "io/syntax.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	wa_arena *a;
	const unsigned char *p, *end;
	const unsigned char *ls; /* first byte of the current line */
	int line;
	const char *file;
	wasp_error *err;
	wt_node **stk; /* children of the open containers */
	size_t nstk, capstk;
	size_t count;  /* values made so far */
	const wl_limits *lim;
	wl_itab *in; /* short strings shared (NULL: none, on NOMEM) */
};

/* Bytes a string scan must stop at: '"', '\\', controls, non-ASCII. */
static const unsigned char stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static wsrc pos(const struct jp *j, const unsigned char *at)
{
	return (wsrc){j->file, j->line, (int)(at - j->ls) + 1};
}

/* "'x'", "end of input" or "byte 0xNN", for messages. */
static const char *what(const struct jp *j, const unsigned char *at,
			char buf[16])
{
	if (at >= j->end)
		return "end of input";
	if (*at >= 0x21 && *at < 0x7F)
		snprintf(buf, 16, "'%c'", *at);
	else if (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')
		snprintf(buf, 16, "white space");
	else
		snprintf(buf, 16, "byte 0x%02X", *at);
	return buf;
}

static int syntax(struct jp *j, const unsigned char *at, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));
static int syntax(struct jp *j, const unsigned char *at, const char *fmt,
		  ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return werr_at(j->err, WASP_EINPUT, pos(j, at), "%s", msg);
}

static int nomem(struct jp *j)
{
	return werr(j->err, WASP_ENOMEM, "out of memory loading %s", j->file);
}

static void skip_ws(struct jp *j)
{
	const unsigned char *p = j->p, *e = j->end;
	while (p < e) {
		unsigned char c = *p;
		if (c == ' ' || c == '\t' || c == '\r') {
			p++;
		} else if (c == '\n') {
			p++;
			j->line++;
			j->ls = p;
		} else {
			break;
		}
	}
	j->p = p;
}

static int new_node(struct jp *j, wt_type t, const unsigned char *at,
		    wt_node **out)
{
	if (++j->count > (size_t)WASP_MAX_TREE_NODES)
		return werr_at(j->err, WASP_ELIMIT, pos(j, at),
			       "more than %ld values in one file "
			       "(WASP_MAX_TREE_NODES)",
			       (long)WASP_MAX_TREE_NODES);
	int rc;
	if ((j->count & WL_POLL_EVERY) == 0 &&
	    (rc = wl_stop(j->lim, j->err, pos(j, at))))
		return rc;
	wt_node *n = wa_alloc(j->a, sizeof *n);
	if (!n)
		return nomem(j);
	n->type = t;
	n->src = pos(j, at);
	*out = n;
	return 0;
}

static int push(struct jp *j, wt_node *n)
{
	return wl_push(&j->stk, &j->nstk, &j->capstk, n) ? nomem(j) : 0;
}

/* Move the children above `base` into the arena as n's items. */
static int close_container(struct jp *j, wt_node *n, size_t base)
{
	size_t k = j->nstk - base;
	if (k) {
		n->items = wa_alloc(j->a, k * sizeof *n->items);
		if (!n->items)
			return nomem(j);
		memcpy(n->items, j->stk + base, k * sizeof *n->items);
	}
	n->n = n->type == WT_MAP ? k / 2 : k;
	j->nstk = base;
	return 0;
}

/* Length of the valid UTF-8 sequence at p (non-ASCII lead), 0 if invalid:
 * no overlongs, no surrogates, nothing above U+10FFFF (RFC 3629). */
static int utf8_len(const unsigned char *p, const unsigned char *e)
{
	unsigned char c = p[0];
	int n;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (e - p < n)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The code unit of "\uXXXX" at p (p[0] == '\\'), or -1. */
static long hex4(const unsigned char *p, const unsigned char *e)
{
	if (e - p < 6 || p[1] != 'u')
		return -1;
	long v = 0;
	for (int i = 2; i < 6; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static size_t put_utf8(unsigned char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decode the validated body [s, e) with escapes into the arena. */
static char *unescape(struct jp *j, const unsigned char *s,
		      const unsigned char *e, size_t *len)
{
	/* Decoded text is never longer than the escaped text. */
	unsigned char *o = wa_alloc(j->a, (size_t)(e - s) + 1), *d = o;
	if (!o)
		return NULL;
	while (s < e) {
		if (*s != '\\') {
			*d++ = *s++;
			continue;
		}
		switch (s[1]) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '/': *d++ = '/'; break;
		case 'b': *d++ = '\b'; break;
		case 'f': *d++ = '\f'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		case 't': *d++ = '\t'; break;
		case 'u': {
			unsigned long cp = (unsigned long)hex4(s, e);
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned long lo =
				    (unsigned long)hex4(s + 6, e);
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
				s += 6;
			}
			d += put_utf8(d, cp);
			s += 6;
			continue;
		}
		}
		s += 2;
	}
	*d = 0;
	*len = (size_t)(d - o);
	return (char *)o;
}

/* A string at j->p (which is '"') into n->str / n->len. */
static int parse_string(struct jp *j, wt_node *n)
{
	const unsigned char *open = j->p, *q = j->p + 1, *e = j->end;
	int esc = 0;
	for (;;) {
		while (q < e && !stop[*q])
			q++;
		if (q >= e)
			return syntax(j, open, "unterminated string");
		unsigned char c = *q;
		if (c == '"')
			break;
		if (c == '\\') {
			esc = 1;
			if (q + 1 >= e)
				return syntax(j, open,
					      "unterminated string");
			switch (q[1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				q += 2;
				continue;
			case 'u':
				break;
			default: {
				char b[16];
				return syntax(j, q,
					      "invalid escape in string: "
					      "backslash before %s",
					      what(j, q + 1, b));
			}
			}
			long cp = hex4(q, e);
			if (cp < 0)
				return syntax(j, q,
					      "invalid escape in string: \\u "
					      "needs four hex digits");
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				return syntax(j, q,
					      "invalid escape in string: "
					      "lone low surrogate");
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				long lo = hex4(q + 6, e);
				if (q + 6 >= e || q[6] != '\\' || lo < 0xDC00 ||
				    lo > 0xDFFF)
					return syntax(j, q,
						      "invalid escape in string:"
						      " high surrogate not "
						      "followed by a low "
						      "surrogate");
				q += 6;
			}
			q += 6;
			continue;
		}
		if (c < 0x20) {
			if (c == '\n' || c == '\r')
				return syntax(j, open,
					      "unterminated string (a line "
					      "break in a string must be "
					      "written \\n)");
			char b[16];
			return syntax(j, q,
				      "control character in string (%s); "
				      "escape it", what(j, q, b));
		}
		int k = utf8_len(q, e);
		if (!k)
			return syntax(j, q, "invalid UTF-8 in string");
		q += k;
	}
	const unsigned char *s = open + 1;
	if (esc) {
		n->str = unescape(j, s, q, &n->len);
	} else {
		n->len = (size_t)(q - s);
		n->str = wl_intern(j->in, j->a, (const char *)s, n->len);
	}
	if (!n->str)
		return nomem(j);
	j->p = q + 1;
	return 0;
}

static int is_digit(const unsigned char *q, const unsigned char *e)
{
	return q < e && *q >= '0' && *q <= '9';
}

static int parse_number(struct jp *j, wt_node *n)
{
	const unsigned char *s = j->p, *q = s, *e = j->end;
	if (*q == '-')
		q++;
	if (!is_digit(q, e))
		return syntax(j, s, "invalid number: expected a digit");
	if (*q == '0') {
		q++;
		if (is_digit(q, e))
			return syntax(j, s,
				      "invalid number: leading zeros are not "
				      "allowed");
	} else {
		while (is_digit(q, e))
			q++;
	}
	if (q < e && *q == '.') {
		q++;
		if (!is_digit(q, e))
			return syntax(j, s,
				      "invalid number: expected a digit after "
				      "the decimal point");
		while (is_digit(q, e))
			q++;
	}
	if (q < e && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < e && (*q == '+' || *q == '-'))
			q++;
		if (!is_digit(q, e))
			return syntax(j, s,
				      "invalid number: expected a digit in the "
				      "exponent");
		while (is_digit(q, e))
			q++;
	}
	n->len = (size_t)(q - s);
	n->str = wl_intern(j->in, j->a, (const char *)s, n->len);
	if (!n->str)
		return nomem(j);
	j->p = q;
	return 0;
}

static int literal(struct jp *j, const char *word, size_t len)
{
	if ((size_t)(j->end - j->p) < len || memcmp(j->p, word, len) != 0)
		return syntax(j, j->p, "invalid literal (expected %s)", word);
	j->p += len;
	return 0;
}

static int parse_value(struct jp *j, int depth, wt_node **out);

/* After ',' in a container: a trailing comma gets its own message. */
static int check_trailing(struct jp *j, const unsigned char *comma,
			  int comma_line, const unsigned char *comma_ls,
			  unsigned char close)
{
	if (j->p < j->end && *j->p == close) {
		j->line = comma_line;
		j->ls = comma_ls;
		char b[2] = {(char)close, 0};
		return syntax(j, comma, "trailing comma before '%s'", b);
	}
	return 0;
}

static int too_deep(struct jp *j)
{
	return werr_at(j->err, WASP_ELIMIT, pos(j, j->p),
		       "nesting deeper than %d levels (WASP_MAX_DEPTH)",
		       WASP_MAX_DEPTH);
}

/* Where a container opened, for "unterminated" errors. */
struct opening {
	const unsigned char *at, *ls;
	int line;
};

/* Steps over the '[' or '{' at j->p; 1 when the container is empty (its
 * closer consumed too), else 0. */
static int open_container(struct jp *j, struct opening *o, unsigned char close)
{
	*o = (struct opening){j->p, j->ls, j->line};
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 1;
	}
	return 0;
}

static int unterminated(struct jp *j, const struct opening *o,
			const char *msg)
{
	j->line = o->line;
	j->ls = o->ls;
	return syntax(j, o->at, "%s", msg);
}

/* After an element: the closer (*done = 1), or a comma not followed by the
 * closer (*done = 0); anything else is an error.  `elem` names the element
 * and `unterm` the error at the end of the input. */
static int after_element(struct jp *j, const struct opening *o,
			 unsigned char close, const char *elem,
			 const char *unterm, int *done)
{
	char b[16];
	skip_ws(j);
	*done = 0;
	if (j->p >= j->end)
		return unterminated(j, o, unterm);
	if (*j->p == close) {
		j->p++;
		*done = 1;
		return 0;
	}
	if (*j->p != ',')
		return syntax(j, j->p, "expected ',' or '%c' after %s, found %s",
			      close, elem, what(j, j->p, b));
	const unsigned char *comma = j->p, *cls = j->ls;
	int cl = j->line;
	j->p++;
	skip_ws(j);
	return check_trailing(j, comma, cl, cls, close);
}

static int parse_array(struct jp *j, int depth, wt_node *n)
{
	struct opening o;
	size_t base = j->nstk;
	int rc, done = 0;
	if (open_container(j, &o, ']'))
		return 0;
	while (!done) {
		wt_node *v;
		if ((rc = parse_value(j, depth, &v)) || (rc = push(j, v)) ||
		    (rc = after_element(j, &o, ']', "a list element",
					"unterminated list", &done)))
			return rc;
	}
	return close_container(j, n, base);
}

static int parse_object(struct jp *j, int depth, wt_node *n)
{
	struct opening o;
	size_t base = j->nstk;
	int rc, done = 0;
	char b[16];
	if (open_container(j, &o, '}'))
		return 0;
	while (!done) {
		if (j->p >= j->end)
			return unterminated(j, &o, "unterminated object");
		if (*j->p != '"')
			return syntax(j, j->p,
				      "expected a string key, found %s",
				      what(j, j->p, b));
		wt_node *k, *v;
		if ((rc = new_node(j, WT_STR, j->p, &k)) ||
		    (rc = parse_string(j, k)))
			return rc;
		skip_ws(j);
		if (j->p >= j->end || *j->p != ':')
			return syntax(j, j->p,
				      "expected ':' after an object key, "
				      "found %s", what(j, j->p, b));
		j->p++;
		skip_ws(j);
		if ((rc = parse_value(j, depth, &v)) || (rc = push(j, k)) ||
		    (rc = push(j, v)) ||
		    (rc = after_element(j, &o, '}', "an object member",
					"unterminated object", &done)))
			return rc;
	}
	size_t first, second;
	int d = wl_find_dup(j->stk + base, (j->nstk - base) / 2, &first,
			    &second);
	if (d < 0)
		return nomem(j);
	if (d) {
		const wt_node *k1 = j->stk[base + 2 * first];
		const wt_node *k2 = j->stk[base + 2 * second];
		char q[128];
		return werr_at(j->err, WASP_EINPUT, k2->src,
			       "duplicate key \"%s\" (first at line %d col %d)",
			       wl_quote(q, sizeof q, k2->str, k2->len),
			       k1->src.line, k1->src.col);
	}
	return close_container(j, n, base);
}

static int parse_value(struct jp *j, int depth, wt_node **out)
{
	char b[16];
	int rc;
	if (j->p >= j->end)
		return syntax(j, j->p, "expected a value, found %s",
			      what(j, j->p, b));
	wt_node *n;
	switch (*j->p) {
	case '{':
	case '[':
		if (depth >= WASP_MAX_DEPTH)
			return too_deep(j);
		if ((rc = new_node(j, *j->p == '{' ? WT_MAP : WT_SEQ, j->p,
				   &n)))
			return rc;
		rc = n->type == WT_MAP ? parse_object(j, depth + 1, n)
				       : parse_array(j, depth + 1, n);
		break;
	case '"':
		if ((rc = new_node(j, WT_STR, j->p, &n)))
			return rc;
		rc = parse_string(j, n);
		break;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if ((rc = new_node(j, WT_NUM, j->p, &n)))
			return rc;
		rc = parse_number(j, n);
		break;
	case 't':
	case 'f':
		if ((rc = new_node(j, WT_BOOL, j->p, &n)))
			return rc;
		n->boolean = *j->p == 't';
		n->str = n->boolean ? "true" : "false";
		n->len = n->boolean ? 4 : 5;
		rc = literal(j, n->str, n->len);
		break;
	case 'n':
		if ((rc = new_node(j, WT_NULL, j->p, &n)))
			return rc;
		n->str = "null";
		n->len = 4;
		rc = literal(j, "null", 4);
		break;
	default:
		return syntax(j, j->p, "expected a value, found %s",
			      what(j, j->p, b));
	}
	if (rc)
		return rc;
	*out = n;
	return 0;
}

int wl_load_json(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err)
{
	return wl_load_json_lim(a, text, len, name, NULL, out, err);
}

int wl_load_json_lim(wa_arena *a, const char *text, size_t len,
		     const char *name, const wl_limits *lim, wt_doc *out,
		     wasp_error *err)
{
	int rc = wl_begin(a, len, &name, out, err);
	if (rc)
		return rc;
	struct jp j = {.a = a,
		       .p = (const unsigned char *)text,
		       .end = (const unsigned char *)text + len,
		       .line = 1,
		       .file = out->file,
		       .err = err,
		       .lim = lim,
		       .in = wl_intern_new()};
	j.p += wl_bom(text, len);
	j.ls = j.p;

	wt_node **roots = NULL;
	size_t nroots = 0, cap = 0;
	int seen = 0;
	for (;;) {
		skip_ws(&j);
		if (j.p >= j.end)
			break;
		if (seen++) {
			/* Only another value may follow a value. */
			unsigned char c = *j.p;
			if (!(c == '{' || c == '[' || c == '"' || c == '-' ||
			      (c >= '0' && c <= '9') || c == 't' || c == 'f' ||
			      c == 'n')) {
				char b[16];
				rc = syntax(&j, j.p,
					    "unexpected %s after the end of the "
					    "JSON value", what(&j, j.p, b));
				break;
			}
		}
		wt_node *v;
		if ((rc = parse_value(&j, 0, &v)))
			break;
		if (v->type != WT_NULL && WA_PUSH(a, roots, nroots, cap, v)) {
			rc = nomem(&j);
			break;
		}
	}
	free(j.stk);
	wl_intern_free(j.in);
	if (rc)
		return rc;
	out->roots = roots;
	out->nroots = nroots;
	return 0;
}
