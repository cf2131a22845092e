/*
 * cel.c -- compile and evaluate DRA device selector expressions (cel.h).
 *
 * A recursive-descent parser builds a small tree in the caller's arena;
 * the evaluator walks it with values held on the C stack (lists are views
 * of literal nodes or of a device's list attribute), so evaluation never
 * allocates.  Literal arguments of quantity(), semver() and .matches() are
 * checked at compile time so a typo fails the load, not every device.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cel.h"
#include "model/quantity.h"

#define CEL_MAX_DEPTH 64     /* nesting of the expression tree          */
#define CEL_MAX_NODES 512    /* nodes of one expression: evaluation
				recurses as deep as the tree, and a chain
				like a-b-c-... is built by a loop         */
#define CEL_MAX_ARGS  8      /* arguments of one call                    */
#define CEL_MAX_REGEX 1024   /* translated .matches() pattern, bytes     */
#define CEL_MAX_REPEAT 1000  /* {n,m} counts in a pattern, as RE2         */

/* ------------------------------------------------------------ tree */

enum nkind {
	N_LIT, N_DEVICE, N_SELECT, N_INDEX, N_CALL, N_METHOD, N_UNARY,
	N_BINARY, N_AND, N_OR, N_COND, N_LIST, N_HAS
};

enum vtype {
	V_NULL, V_BOOL, V_INT, V_UINT, V_DBL, V_STR, V_LIST, V_QTY, V_VER,
	V_DEVICE, V_ATTRS, V_CAPS, V_DATTRS, V_DCAPS, V_ERR
};

typedef struct cnode cnode;

typedef struct cval {
	int t;
	bool b;
	int64_t i;       /* INT, UINT, QTY (milli)                    */
	double d;
	const char *s;   /* STR, VER; DATTRS/DCAPS: the domain        */
	const cnode *ln; /* LIST literal                              */
	const wcel_attr *la; /* LIST attribute                        */
} cval;

struct cnode {
	int kind;
	int op;          /* operator token / function id               */
	int off;         /* offset in the expression                   */
	const char *name; /* SELECT field, CALL/METHOD name            */
	cval lit;
	cnode *a, *b, *c;
	cnode **args;
	int nargs;
};

struct wcel_prog {
	const char *text;
	wsrc at;
	cnode *root;
};

/* ------------------------------------------------------------ lexer */

enum tok {
	T_EOF, T_IDENT, T_INT, T_UINT, T_DBL, T_STR,
	T_LP, T_RP, T_LB, T_RB, T_LC, T_RC, T_DOT, T_COMMA, T_COLON, T_QUEST,
	T_NOT, T_MINUS, T_PLUS, T_STAR, T_SLASH, T_PCT,
	T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_AND, T_OR, T_IN
};

typedef struct parser {
	wa_arena *a;
	const char *src;
	size_t pos;
	wsrc at;
	wasp_error *err;
	int failed;
	int depth;
	int nodes;
	/* current token */
	int t;
	int toff;
	const char *tstr; /* IDENT/STR text (arena)  */
	int64_t ti;
	double td;
} parser;

static int perr(parser *p, int off, const char *fmt, const char *arg)
{
	if (!p->failed) {
		char buf[256];
		snprintf(buf, sizeof buf, fmt, arg);
		werr_at(p->err, WASP_EINPUT, p->at, "CEL: %s at offset %d", buf,
			off);
	}
	p->failed = 1;
	return -1;
}

static int lex_string(parser *p, size_t start)
{
	const char *s = p->src;
	size_t i = start;
	bool raw = false;
	if (s[i] == 'r' || s[i] == 'R') {
		raw = true;
		i++;
	}
	char q = s[i];
	bool triple = s[i + 1] == q && s[i + 2] == q;
	i += triple ? 3 : 1;
	size_t cap = strlen(s + i) + 1, n = 0;
	char *out = wa_alloc(p->a, cap);
	if (!out)
		return perr(p, (int)start, "%s", "out of memory");
	for (;;) {
		char c = s[i];
		if (!c)
			return perr(p, (int)start, "%s",
				    "unterminated string literal");
		if (c == q && (!triple || (s[i + 1] == q && s[i + 2] == q))) {
			i += triple ? 3 : 1;
			break;
		}
		if (c == '\n' && !triple)
			return perr(p, (int)start, "%s",
				    "newline in string literal");
		if (c == '\\' && !raw) {
			char e = s[i + 1];
			const char *m = strchr("abfnrtv\\'\"`?", e);
			if (e && m) {
				static const char rep[] = "\a\b\f\n\r\t\v\\'\"`?";
				out[n++] = rep[m - "abfnrtv\\'\"`?"];
				i += 2;
				continue;
			}
			return perr(p, (int)i, "%s",
				    "unsupported escape sequence in string");
		}
		out[n++] = c;
		i++;
	}
	out[n] = 0;
	p->t = T_STR;
	p->tstr = out;
	p->pos = i;
	return 0;
}

static int lex(parser *p)
{
	const char *s = p->src;
	size_t i = p->pos;
	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
		i++;
	p->toff = (int)i;
	char c = s[i];
	if (!c) {
		p->t = T_EOF;
		p->pos = i;
		return 0;
	}
	if ((c == 'r' || c == 'R') && (s[i + 1] == '\'' || s[i + 1] == '"'))
		return lex_string(p, i);
	if (c == '\'' || c == '"')
		return lex_string(p, i);
	if (isalpha((unsigned char)c) || c == '_') {
		size_t j = i;
		while (isalnum((unsigned char)s[j]) || s[j] == '_')
			j++;
		p->tstr = wa_strndup(p->a, s + i, j - i);
		if (!p->tstr)
			return perr(p, (int)i, "%s", "out of memory");
		p->t = strcmp(p->tstr, "in") ? T_IDENT : T_IN;
		p->pos = j;
		return 0;
	}
	if (isdigit((unsigned char)c) ||
	    (c == '.' && isdigit((unsigned char)s[i + 1]))) {
		size_t j = i;
		bool dbl = false;
		if (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
			j += 2;
			while (isxdigit((unsigned char)s[j]))
				j++;
		} else {
			while (isdigit((unsigned char)s[j]))
				j++;
			if (s[j] == '.' && isdigit((unsigned char)s[j + 1])) {
				dbl = true;
				j++;
				while (isdigit((unsigned char)s[j]))
					j++;
			}
			if (s[j] == 'e' || s[j] == 'E') {
				size_t k = j + 1;
				if (s[k] == '+' || s[k] == '-')
					k++;
				if (isdigit((unsigned char)s[k])) {
					dbl = true;
					j = k;
					while (isdigit((unsigned char)s[j]))
						j++;
				}
			}
		}
		char buf[64];
		if (j - i >= sizeof buf)
			return perr(p, (int)i, "%s", "numeric literal too long");
		memcpy(buf, s + i, j - i);
		buf[j - i] = 0;
		errno = 0;
		if (dbl) {
			p->td = strtod(buf, NULL);
			p->t = T_DBL;
		} else if (s[j] == 'u' || s[j] == 'U') {
			unsigned long long u = strtoull(buf, NULL, 0);
			if (errno || u > INT64_MAX)
				return perr(p, (int)i, "%s",
					    "integer literal out of range");
			p->ti = (int64_t)u;
			p->t = T_UINT;
			j++;
		} else {
			long long v = strtoll(buf, NULL, 0);
			if (errno)
				return perr(p, (int)i, "%s",
					    "integer literal out of range");
			p->ti = v;
			p->t = T_INT;
		}
		p->pos = j;
		return 0;
	}
	static const struct {
		const char *s;
		int t;
	} ops[] = {
		{"&&", T_AND}, {"||", T_OR}, {"==", T_EQ}, {"!=", T_NE},
		{"<=", T_LE}, {">=", T_GE}, {"<", T_LT}, {">", T_GT},
		{"(", T_LP}, {")", T_RP}, {"[", T_LB}, {"]", T_RB},
		{"{", T_LC}, {"}", T_RC}, {".", T_DOT}, {",", T_COMMA},
		{":", T_COLON}, {"?", T_QUEST}, {"!", T_NOT}, {"-", T_MINUS},
		{"+", T_PLUS}, {"*", T_STAR}, {"/", T_SLASH}, {"%", T_PCT},
	};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		size_t l = strlen(ops[k].s);
		if (!strncmp(s + i, ops[k].s, l)) {
			p->t = ops[k].t;
			p->pos = i + l;
			return 0;
		}
	}
	char ch[2] = {c, 0};
	if (c == '=' )
		return perr(p, (int)i, "%s", "unexpected '=' (use '==')");
	if (c == '&' || c == '|')
		return perr(p, (int)i, "unexpected '%s' (use '&&' or '||')",
			    ch);
	return perr(p, (int)i, "unexpected character '%s'", ch);
}

/* ------------------------------------------------------------ parser */

static cnode *mk(parser *p, int kind, int off)
{
	if (++p->nodes > CEL_MAX_NODES) {
		perr(p, off, "%s", "expression too large (more than 512 "
				   "operands and operators)");
		return NULL;
	}
	cnode *n = wa_alloc(p->a, sizeof *n);
	if (!n) {
		perr(p, off, "%s", "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->off = off;
	return n;
}

static cnode *p_expr(parser *p);

static int expect(parser *p, int t, const char *what)
{
	if (p->failed)
		return -1;
	if (p->t != t)
		return perr(p, p->toff, "expected %s", what);
	return lex(p);
}

/* Arguments after '(' up to ')'. */
static int p_args(parser *p, cnode *n)
{
	cnode *tmp[CEL_MAX_ARGS];
	int k = 0;
	if (lex(p))
		return -1;
	if (p->t != T_RP) {
		for (;;) {
			if (k == CEL_MAX_ARGS)
				return perr(p, p->toff, "%s",
					    "too many arguments");
			tmp[k] = p_expr(p);
			if (!tmp[k++])
				return -1;
			if (p->t != T_COMMA)
				break;
			if (lex(p))
				return -1;
		}
	}
	if (expect(p, T_RP, "')'"))
		return -1;
	n->nargs = k;
	n->args = wa_calloc(p->a, k ? k : 1, sizeof *n->args);
	if (!n->args)
		return perr(p, n->off, "%s", "out of memory");
	memcpy(n->args, tmp, k * sizeof *tmp);
	return 0;
}

static const char *const methods[] = {
	"startsWith", "endsWith", "contains", "matches", "compareTo",
	"isGreaterThan", "isLessThan", "isInteger", "asInteger", "major",
	"minor", "patch", "includes", "size", NULL
};
static const char *const funcs[] = { "quantity", "semver", "size", NULL };

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

static int check_regex(parser *p, const char *pat, int off);
static bool semver_ok(const char *s);

static cnode *p_primary(parser *p)
{
	int off = p->toff;
	cnode *n;
	switch (p->t) {
	case T_INT:
	case T_UINT:
		if (!(n = mk(p, N_LIT, off)))
			return NULL;
		n->lit.t = p->t == T_INT ? V_INT : V_UINT;
		n->lit.i = p->ti;
		return lex(p) ? NULL : n;
	case T_DBL:
		if (!(n = mk(p, N_LIT, off)))
			return NULL;
		n->lit.t = V_DBL;
		n->lit.d = p->td;
		return lex(p) ? NULL : n;
	case T_STR:
		if (!(n = mk(p, N_LIT, off)))
			return NULL;
		n->lit.t = V_STR;
		n->lit.s = p->tstr;
		return lex(p) ? NULL : n;
	case T_LP:
		if (lex(p))
			return NULL;
		n = p_expr(p);
		if (!n || expect(p, T_RP, "')'"))
			return NULL;
		return n;
	case T_LB: {
		if (!(n = mk(p, N_LIST, off)))
			return NULL;
		cnode *tmp[256];
		int k = 0;
		if (lex(p))
			return NULL;
		while (p->t != T_RB) {
			if (k == 256) {
				perr(p, p->toff, "%s", "list literal too long");
				return NULL;
			}
			if (!(tmp[k++] = p_expr(p)))
				return NULL;
			if (p->t != T_COMMA)
				break;
			if (lex(p))
				return NULL;
		}
		if (expect(p, T_RB, "']'"))
			return NULL;
		n->nargs = k;
		n->args = wa_calloc(p->a, k ? k : 1, sizeof *n->args);
		if (!n->args) {
			perr(p, off, "%s", "out of memory");
			return NULL;
		}
		memcpy(n->args, tmp, k * sizeof *tmp);
		return n;
	}
	case T_LC:
		perr(p, off, "%s", "unsupported construct 'map literal'");
		return NULL;
	case T_IDENT:
		break;
	case T_EOF:
		perr(p, off, "%s", "unexpected end of expression");
		return NULL;
	default:
		perr(p, off, "%s", "unexpected token");
		return NULL;
	}
	const char *id = p->tstr;
	if (lex(p))
		return NULL;
	if (!strcmp(id, "true") || !strcmp(id, "false") ||
	    !strcmp(id, "null")) {
		if (!(n = mk(p, N_LIT, off)))
			return NULL;
		n->lit.t = id[0] == 'n' ? V_NULL : V_BOOL;
		n->lit.b = id[0] == 't';
		return n;
	}
	if (p->t != T_LP) {
		if (strcmp(id, "device")) {
			perr(p, off, "undeclared reference to '%s'", id);
			return NULL;
		}
		return mk(p, N_DEVICE, off);
	}
	if (!strcmp(id, "has")) {
		if (!(n = mk(p, N_HAS, off)) || p_args(p, n))
			return NULL;
		if (n->nargs != 1 || n->args[0]->kind != N_SELECT) {
			perr(p, off, "%s",
			     "has() needs one field selection argument");
			return NULL;
		}
		return n;
	}
	if (!in_list(funcs, id)) {
		perr(p, off, "unsupported function '%s'", id);
		return NULL;
	}
	if (!(n = mk(p, N_CALL, off)))
		return NULL;
	n->name = id;
	if (p_args(p, n))
		return NULL;
	if (n->nargs != 1) {
		perr(p, off, "%s() takes one argument", id);
		return NULL;
	}
	cnode *a0 = n->args[0];
	if (a0->kind == N_LIT && a0->lit.t == V_STR) {
		/* Check and fold literal arguments now. */
		if (!strcmp(id, "quantity")) {
			int64_t m;
			const char *why = NULL;
			if (wq_parse(a0->lit.s, strlen(a0->lit.s), &m, &why)) {
				perr(p, a0->off, "invalid quantity '%s'",
				     a0->lit.s);
				return NULL;
			}
			n->kind = N_LIT;
			n->lit.t = V_QTY;
			n->lit.i = m;
		} else if (!strcmp(id, "semver")) {
			if (!semver_ok(a0->lit.s)) {
				perr(p, a0->off, "invalid semver '%s'",
				     a0->lit.s);
				return NULL;
			}
			n->kind = N_LIT;
			n->lit.t = V_VER;
			n->lit.s = a0->lit.s;
		}
	}
	return n;
}

static cnode *p_member(parser *p)
{
	cnode *n = p_primary(p);
	while (n && !p->failed) {
		int off = p->toff;
		if (p->t == T_DOT) {
			if (lex(p))
				return NULL;
			if (p->t != T_IDENT) {
				perr(p, p->toff, "%s",
				     "expected a field name after '.'");
				return NULL;
			}
			const char *id = p->tstr;
			int idoff = p->toff;
			if (lex(p))
				return NULL;
			if (p->t == T_LP) {
				if (!in_list(methods, id)) {
					perr(p, idoff,
					     "unsupported construct '.%s()'",
					     id);
					return NULL;
				}
				cnode *m = mk(p, N_METHOD, idoff);
				if (!m)
					return NULL;
				m->name = id;
				m->a = n;
				if (p_args(p, m))
					return NULL;
				if (!strcmp(id, "matches") && m->nargs == 1 &&
				    m->args[0]->kind == N_LIT &&
				    m->args[0]->lit.t == V_STR &&
				    check_regex(p, m->args[0]->lit.s,
						m->args[0]->off))
					return NULL;
				n = m;
			} else {
				if (n->kind == N_DEVICE &&
				    strcmp(id, "driver") &&
				    strcmp(id, "attributes") &&
				    strcmp(id, "capacity")) {
					perr(p, idoff,
					     "unsupported field 'device.%s'",
					     id);
					return NULL;
				}
				cnode *s = mk(p, N_SELECT, idoff);
				if (!s)
					return NULL;
				s->name = id;
				s->a = n;
				n = s;
			}
		} else if (p->t == T_LB) {
			if (lex(p))
				return NULL;
			cnode *x = mk(p, N_INDEX, off);
			if (!x)
				return NULL;
			x->a = n;
			if (!(x->b = p_expr(p)) || expect(p, T_RB, "']'"))
				return NULL;
			n = x;
		} else {
			break;
		}
	}
	return p->failed ? NULL : n;
}

static cnode *p_unary(parser *p)
{
	if (p->t == T_NOT || p->t == T_MINUS) {
		int op = p->t, off = p->toff;
		if (++p->depth > CEL_MAX_DEPTH) {
			perr(p, off, "%s", "expression nested too deeply");
			return NULL;
		}
		if (lex(p))
			return NULL;
		cnode *n = mk(p, N_UNARY, off);
		if (!n || !(n->a = p_unary(p)))
			return NULL;
		p->depth--;
		n->op = op;
		/* Fold -literal so INT64_MIN and negative numbers are exact. */
		if (op == T_MINUS && n->a->kind == N_LIT &&
		    (n->a->lit.t == V_INT || n->a->lit.t == V_DBL)) {
			n->a->lit.i = -n->a->lit.i;
			n->a->lit.d = -n->a->lit.d;
			n->a->off = off;
			return n->a;
		}
		return n;
	}
	return p_member(p);
}

static int prec(int t)
{
	switch (t) {
	case T_STAR: case T_SLASH: case T_PCT: return 5;
	case T_PLUS: case T_MINUS: return 4;
	case T_LT: case T_LE: case T_GT: case T_GE: case T_EQ: case T_NE:
	case T_IN: return 3;
	case T_AND: return 2;
	case T_OR: return 1;
	default: return 0;
	}
}

static cnode *p_binary(parser *p, int minp)
{
	cnode *l = p_unary(p);
	while (l && !p->failed) {
		int t = p->t, pr = prec(t);
		if (!pr || pr < minp)
			break;
		int off = p->toff;
		if (++p->depth > CEL_MAX_DEPTH) {
			perr(p, off, "%s", "expression nested too deeply");
			return NULL;
		}
		if (lex(p))
			return NULL;
		cnode *r = p_binary(p, pr + 1);
		p->depth--;
		if (!r)
			return NULL;
		cnode *n = mk(p, t == T_AND ? N_AND : t == T_OR ? N_OR
				 : N_BINARY, off);
		if (!n)
			return NULL;
		n->op = t;
		n->a = l;
		n->b = r;
		l = n;
	}
	return p->failed ? NULL : l;
}

static cnode *p_expr(parser *p)
{
	if (++p->depth > CEL_MAX_DEPTH) {
		perr(p, p->toff, "%s", "expression nested too deeply");
		return NULL;
	}
	cnode *c = p_binary(p, 1);
	if (c && p->t == T_QUEST) {
		cnode *n = mk(p, N_COND, p->toff);
		if (!n || lex(p))
			return NULL;
		n->a = c;
		if (!(n->b = p_binary(p, 1)) || expect(p, T_COLON, "':'") ||
		    !(n->c = p_expr(p)))
			return NULL;
		c = n;
	}
	p->depth--;
	return p->failed ? NULL : c;
}

int wcel_compile(wa_arena *a, const char *expr, wsrc at, wcel_prog **out,
		 wasp_error *err)
{
	parser p = {0};
	p.a = a;
	p.src = wa_strdup(a, expr ? expr : "");
	p.at = at;
	p.err = err;
	*out = NULL;
	if (!p.src)
		return werr(err, WASP_ENOMEM, "out of memory");
	if (lex(&p))
		return WASP_EINPUT;
	if (p.t == T_EOF) {
		perr(&p, 0, "%s", "empty expression");
		return WASP_EINPUT;
	}
	cnode *root = p_expr(&p);
	if (!root)
		return err && err->code ? err->code : WASP_EINPUT;
	if (p.t != T_EOF) {
		perr(&p, p.toff, "%s", "unexpected text after the expression");
		return WASP_EINPUT;
	}
	wcel_prog *pr = wa_alloc(a, sizeof *pr);
	if (!pr)
		return werr(err, WASP_ENOMEM, "out of memory");
	pr->text = p.src;
	pr->at = at;
	pr->root = root;
	*out = pr;
	return WASP_OK;
}

const char *wcel_text(const wcel_prog *p)
{
	return p ? p->text : NULL;
}

/* ------------------------------------------------------------ semver */

typedef struct semver {
	int64_t v[3];
	const char *pre;  /* prerelease text, NULL if none */
	size_t prelen;
} semver;

static int semver_parse(const char *s, semver *o)
{
	memset(o, 0, sizeof *o);
	if (*s == 'v')
		s++;
	for (int k = 0; k < 3; k++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		if (*s == '0' && isdigit((unsigned char)s[1]))
			return -1; /* no leading zeros */
		int64_t v = 0;
		while (isdigit((unsigned char)*s)) {
			if (v > (INT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (*s++ - '0');
		}
		o->v[k] = v;
		if (k < 2 && *s++ != '.')
			return -1;
	}
	if (*s == '-') {
		o->pre = ++s;
		while (isalnum((unsigned char)*s) || *s == '.' || *s == '-')
			s++;
		o->prelen = (size_t)(s - o->pre);
		if (!o->prelen)
			return -1;
	}
	if (*s == '+') {
		s++;
		while (isalnum((unsigned char)*s) || *s == '.' || *s == '-')
			s++;
	}
	return *s ? -1 : 0;
}

static bool semver_ok(const char *s)
{
	semver v;
	return semver_parse(s, &v) == 0;
}

/* Prerelease precedence, identifier by identifier. */
static int pre_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	size_t i = 0, j = 0;
	while (i < al && j < bl) {
		size_t ie = i, je = j;
		bool an = true, bn = true;
		while (ie < al && a[ie] != '.')
			an &= isdigit((unsigned char)a[ie++]) != 0;
		while (je < bl && b[je] != '.')
			bn &= isdigit((unsigned char)b[je++]) != 0;
		int c;
		if (an && bn) {
			size_t la = ie - i, lb = je - j;
			c = la != lb ? (la < lb ? -1 : 1)
				     : memcmp(a + i, b + j, la);
		} else if (an != bn) {
			c = an ? -1 : 1;
		} else {
			size_t la = ie - i, lb = je - j;
			c = memcmp(a + i, b + j, la < lb ? la : lb);
			if (!c && la != lb)
				c = la < lb ? -1 : 1;
		}
		if (c)
			return c < 0 ? -1 : 1;
		i = ie + 1;
		j = je + 1;
	}
	bool ad = i >= al, bd = j >= bl;
	return ad && bd ? 0 : ad ? -1 : 1;
}

int wcel_semver_cmp(const char *a, const char *b, int *cmp)
{
	semver x, y;
	if (semver_parse(a, &x) || semver_parse(b, &y))
		return -1;
	for (int k = 0; k < 3; k++)
		if (x.v[k] != y.v[k]) {
			*cmp = x.v[k] < y.v[k] ? -1 : 1;
			return 0;
		}
	if (!x.pre || !y.pre)
		*cmp = x.pre == y.pre ? 0 : x.pre ? -1 : 1;
	else
		*cmp = pre_cmp(x.pre, x.prelen, y.pre, y.prelen);
	return 0;
}

/* ------------------------------------------------------------ regex */

/* RE2 -> POSIX ERE.  Returns 0, or -1 with *why. */
static int re_translate(const char *in, char *out, size_t size,
			const char **why)
{
	size_t n = 0;
	bool bracket = false, quant = false;
	long reps = 0; /* sum of the {n,m} counts: nested ones multiply */
#define PUT(str) do {                                                      \
		size_t l_ = strlen(str);                                   \
		if (n + l_ + 1 > size) { *why = "pattern too long"; return -1; } \
		memcpy(out + n, str, l_);                                  \
		n += l_;                                                   \
	} while (0)
	for (const char *s = in; *s; s++) {
		char c = *s;
		if (c == '\\') {
			quant = false;
			char e = *++s;
			const char *rep = NULL;
			switch (e) {
			case 'd': rep = bracket ? "0-9" : "[0-9]"; break;
			case 'w': rep = bracket ? "A-Za-z0-9_"
					       : "[A-Za-z0-9_]"; break;
			case 's': rep = bracket ? "[:space:]"
					       : "[[:space:]]"; break;
			case 'D': rep = bracket ? NULL : "[^0-9]"; break;
			case 'W': rep = bracket ? NULL : "[^A-Za-z0-9_]"; break;
			case 'S': rep = bracket ? NULL : "[^[:space:]]"; break;
			case 0:
				*why = "trailing backslash";
				return -1;
			default:
				if (isalnum((unsigned char)e)) {
					*why = "RE2 escape not available in "
					       "POSIX regular expressions";
					return -1;
				}
				break;
			}
			if (rep) {
				PUT(rep);
			} else if (e == 'D' || e == 'W' || e == 'S') {
				*why = "negated class escape inside brackets";
				return -1;
			} else if (bracket) {
				/* POSIX brackets take metacharacters
				 * literally. */
				char t[2] = {e, 0};
				PUT(t);
			} else {
				char t[3] = {'\\', e, 0};
				PUT(t);
			}
			continue;
		}
		if (!bracket && c == '(' && s[1] == '?') {
			*why = "RE2 group flags (?...) are not supported";
			return -1;
		}
		if (!bracket && (c == '*' || c == '+' || c == '?' || c == '}') &&
		    s[1] == '?') {
			*why = "non-greedy quantifiers are not supported";
			return -1;
		}
		/* A quantifier on a quantifier: RE2 refuses it ("bad
		 * repetition operator"), and glibc's regcomp can take
		 * gigabytes on a run of them. */
		bool q = !bracket && (c == '*' || c == '+' || c == '?' ||
				      (c == '{' && isdigit((unsigned char)s[1])));
		if (q && quant) {
			*why = "bad repetition operator (a quantifier "
			       "after a quantifier)";
			return -1;
		}
		quant = q;
		if (q && c == '{') {
			/* {n}, {n,} or {n,m}: RE2 allows counts up to
			 * CEL_MAX_REPEAT */
			char *e;
			long lo = strtol(s + 1, &e, 10), hi = lo;
			if (*e == ',')
				hi = isdigit((unsigned char)e[1])
					 ? strtol(e + 1, &e, 10) : (e++, lo);
			reps += hi > lo ? hi : lo;
			if (*e != '}' || lo > CEL_MAX_REPEAT ||
			    hi > CEL_MAX_REPEAT || hi < lo ||
			    reps > CEL_MAX_REPEAT) {
				*why = "bad repetition count (the counts of "
				       "a pattern add up to at most 1000)";
				return -1;
			}
			size_t l = (size_t)(e + 1 - s);
			if (n + l + 1 > size) {
				*why = "pattern too long";
				return -1;
			}
			memcpy(out + n, s, l);
			n += l;
			s = e;
			continue;
		}
		if (!bracket && c == '[') {
			bracket = true;
			PUT("[");
			if (s[1] == '^') {
				PUT("^");
				s++;
			}
			if (s[1] == ']') {
				PUT("]");
				s++;
			}
			continue;
		}
		if (bracket && c == '[' && s[1] == ':') {
			const char *e = strstr(s, ":]");
			if (!e) {
				*why = "unterminated character class";
				return -1;
			}
			size_t l = (size_t)(e + 2 - s);
			if (n + l + 1 > size) {
				*why = "pattern too long";
				return -1;
			}
			memcpy(out + n, s, l);
			n += l;
			s = e + 1;
			continue;
		}
		if (bracket && c == ']')
			bracket = false;
		char t[2] = {c, 0};
		PUT(t);
	}
#undef PUT
	out[n] = 0;
	return 0;
}

static int re_compile(const char *pat, regex_t *re, const char **why)
{
	char buf[CEL_MAX_REGEX];
	if (re_translate(pat, buf, sizeof buf, why))
		return -1;
	if (regcomp(re, buf, REG_EXTENDED | REG_NOSUB)) {
		*why = "invalid regular expression";
		return -1;
	}
	return 0;
}

static int check_regex(parser *p, const char *pat, int off)
{
	regex_t re;
	const char *why = NULL;
	if (re_compile(pat, &re, &why))
		return perr(p, off, "%s", why);
	regfree(&re);
	return 0;
}

/* ------------------------------------------------------------ eval */

typedef struct ectx {
	const wcel_prog *p;
	const wcel_device *d;
	wasp_error e;   /* first error of the current subtree */
	int depth;
} ectx;

static cval verr(ectx *c, const cnode *n, const char *fmt, const char *arg)
{
	char buf[256];
	snprintf(buf, sizeof buf, fmt, arg);
	werr_at(&c->e, WASP_EINPUT, c->p->at, "CEL: %s at offset %d", buf,
		n->off);
	cval v = {0};
	v.t = V_ERR;
	return v;
}

static const char *tname(int t)
{
	static const char *const names[] = {
		"null", "bool", "int", "uint", "double", "string", "list",
		"quantity", "semver", "device", "map", "map", "map", "map",
		"error"
	};
	return names[t];
}

static cval ev(ectx *c, const cnode *n);

static cval mkbool(bool b)
{
	cval v = {0};
	v.t = V_BOOL;
	v.b = b;
	return v;
}

static cval mkint(int64_t i)
{
	cval v = {0};
	v.t = V_INT;
	v.i = i;
	return v;
}

static cval attr_val(const wcel_attr *a)
{
	cval v = {0};
	switch (a->type) {
	case WCEL_A_INT: v.t = V_INT; v.i = a->i; break;
	case WCEL_A_BOOL: v.t = V_BOOL; v.b = a->b; break;
	case WCEL_A_STRING: v.t = V_STR; v.s = a->s ? a->s : ""; break;
	case WCEL_A_VERSION: v.t = V_VER; v.s = a->s ? a->s : ""; break;
	default: v.t = V_LIST; v.la = a; break;
	}
	return v;
}

static int list_len(const cval *l)
{
	return l->ln ? l->ln->nargs : l->la->n;
}

static cval list_get(ectx *c, const cval *l, int i)
{
	if (l->ln)
		return ev(c, l->ln->args[i]);
	const wcel_attr *a = l->la;
	cval v = {0};
	switch (a->type) {
	case WCEL_A_INTS: v.t = V_INT; v.i = a->li[i]; break;
	case WCEL_A_BOOLS: v.t = V_BOOL; v.b = a->lb[i]; break;
	case WCEL_A_STRINGS: v.t = V_STR; v.s = a->ls[i]; break;
	default: v.t = V_VER; v.s = a->ls[i]; break;
	}
	return v;
}

static const wcel_attr *find_attr(const wcel_device *d, const char *dom,
				  const char *name)
{
	for (int i = 0; i < d->nattrs; i++)
		if (!strcmp(d->attrs[i].name, name) &&
		    !strcmp(d->attrs[i].domain, dom))
			return &d->attrs[i];
	return NULL;
}

static const wcel_cap *find_cap(const wcel_device *d, const char *dom,
				const char *name)
{
	for (int i = 0; i < d->ncaps; i++)
		if (!strcmp(d->caps[i].name, name) &&
		    !strcmp(d->caps[i].domain, dom))
			return &d->caps[i];
	return NULL;
}

static bool has_domain(const wcel_device *d, const char *dom, bool caps)
{
	if (caps) {
		for (int i = 0; i < d->ncaps; i++)
			if (!strcmp(d->caps[i].domain, dom))
				return true;
	} else {
		for (int i = 0; i < d->nattrs; i++)
			if (!strcmp(d->attrs[i].domain, dom))
				return true;
	}
	return false;
}

/* Field or key `key` of v; `has` only tests presence (returns bool). */
static cval lookup(ectx *c, const cnode *n, cval v, const char *key, bool has)
{
	cval r = {0};
	switch (v.t) {
	case V_DEVICE:
		if (!strcmp(key, "driver")) {
			r.t = V_STR;
			r.s = c->d->driver ? c->d->driver : "";
		} else if (!strcmp(key, "attributes")) {
			r.t = V_ATTRS;
		} else if (!strcmp(key, "capacity")) {
			r.t = V_CAPS;
		} else {
			return has ? mkbool(false)
				   : verr(c, n, "no such key: '%s'", key);
		}
		return has ? mkbool(true) : r;
	case V_ATTRS:
	case V_CAPS:
		if (has)
			return mkbool(has_domain(c->d, key, v.t == V_CAPS));
		/* An unknown domain is an empty map. */
		r.t = v.t == V_ATTRS ? V_DATTRS : V_DCAPS;
		r.s = key;
		return r;
	case V_DATTRS: {
		const wcel_attr *a = find_attr(c->d, v.s, key);
		if (has)
			return mkbool(a != NULL);
		if (!a)
			return verr(c, n, "no such key: '%s'", key);
		return attr_val(a);
	}
	case V_DCAPS: {
		const wcel_cap *k = find_cap(c->d, v.s, key);
		if (has)
			return mkbool(k != NULL);
		if (!k)
			return verr(c, n, "no such key: '%s'", key);
		r.t = V_QTY;
		r.i = k->milli;
		return r;
	}
	default:
		return verr(c, n, "cannot select a field of a %s value",
			    tname(v.t));
	}
}

static bool is_num(int t)
{
	return t == V_INT || t == V_UINT || t == V_DBL;
}

/* Equality; -1 for an error (only for unparsable versions). */
static int equal(ectx *c, const cval *a, const cval *b)
{
	if (is_num(a->t) && is_num(b->t)) {
		if (a->t != V_DBL && b->t != V_DBL)
			return a->i == b->i;
		double x = a->t == V_DBL ? a->d : (double)a->i;
		double y = b->t == V_DBL ? b->d : (double)b->i;
		return x == y;
	}
	if (a->t != b->t)
		return 0;
	switch (a->t) {
	case V_NULL: return 1;
	case V_BOOL: return a->b == b->b;
	case V_STR: return !strcmp(a->s, b->s);
	case V_QTY: return a->i == b->i;
	case V_VER: {
		int k;
		if (wcel_semver_cmp(a->s, b->s, &k))
			return -1;
		return k == 0;
	}
	case V_LIST: {
		int na = list_len(a), nb = list_len(b);
		if (na != nb)
			return 0;
		for (int i = 0; i < na; i++) {
			cval x = list_get(c, a, i), y = list_get(c, b, i);
			if (x.t == V_ERR || y.t == V_ERR)
				return -1;
			int e = equal(c, &x, &y);
			if (e != 1)
				return e;
		}
		return 1;
	}
	default:
		return 0;
	}
}

static cval in_list_v(ectx *c, const cnode *n, const cval *x, const cval *l)
{
	int len = list_len(l);
	for (int i = 0; i < len; i++) {
		cval y = list_get(c, l, i);
		if (y.t == V_ERR)
			return y;
		int e = equal(c, x, &y);
		if (e < 0)
			return verr(c, n, "%s", "invalid semver value");
		if (e)
			return mkbool(true);
	}
	return mkbool(false);
}

static cval compare(ectx *c, const cnode *n, int op, const cval *a,
		    const cval *b)
{
	int k;
	if (is_num(a->t) && is_num(b->t)) {
		if (a->t != V_DBL && b->t != V_DBL) {
			k = a->i < b->i ? -1 : a->i > b->i;
		} else {
			double x = a->t == V_DBL ? a->d : (double)a->i;
			double y = b->t == V_DBL ? b->d : (double)b->i;
			k = x < y ? -1 : x > y;
		}
	} else if (a->t == V_STR && b->t == V_STR) {
		k = strcmp(a->s, b->s);
		k = k < 0 ? -1 : k > 0;
	} else if (a->t == V_BOOL && b->t == V_BOOL) {
		k = (int)a->b - (int)b->b;
	} else if ((a->t == V_QTY || a->t == V_VER) && a->t == b->t) {
		return verr(c, n, "no matching overload for relational "
			    "operator on %s values (use compareTo, "
			    "isGreaterThan or isLessThan)", tname(a->t));
	} else {
		char buf[64];
		snprintf(buf, sizeof buf, "%s and %s", tname(a->t),
			 tname(b->t));
		return verr(c, n, "no matching overload for comparing %s", buf);
	}
	switch (op) {
	case T_LT: return mkbool(k < 0);
	case T_LE: return mkbool(k <= 0);
	case T_GT: return mkbool(k > 0);
	default: return mkbool(k >= 0);
	}
}

static cval arith(ectx *c, const cnode *n, int op, const cval *a,
		  const cval *b)
{
	if ((a->t == V_INT || a->t == V_UINT) && a->t == b->t) {
		int64_t r;
		bool ovf = false;
		switch (op) {
		case T_PLUS: ovf = __builtin_add_overflow(a->i, b->i, &r); break;
		case T_MINUS: ovf = __builtin_sub_overflow(a->i, b->i, &r); break;
		case T_STAR: ovf = __builtin_mul_overflow(a->i, b->i, &r); break;
		default:
			if (!b->i)
				return verr(c, n, "%s", op == T_SLASH ?
					    "division by zero" : "modulus by zero");
			if (a->i == INT64_MIN && b->i == -1)
				return verr(c, n, "%s", "integer overflow");
			r = op == T_SLASH ? a->i / b->i : a->i % b->i;
		}
		if (ovf)
			return verr(c, n, "%s", "integer overflow");
		cval v = mkint(r);
		v.t = a->t;
		return v;
	}
	if (a->t == V_DBL && b->t == V_DBL && op != T_PCT) {
		cval v = {0};
		v.t = V_DBL;
		v.d = op == T_PLUS ? a->d + b->d : op == T_MINUS ? a->d - b->d
		    : op == T_STAR ? a->d * b->d : a->d / b->d;
		return v;
	}
	if (a->t == V_STR && b->t == V_STR && op == T_PLUS)
		return verr(c, n, "%s",
			    "unsupported construct 'string concatenation'");
	char buf[64];
	snprintf(buf, sizeof buf, "%s and %s", tname(a->t), tname(b->t));
	return verr(c, n, "no matching overload for arithmetic on %s", buf);
}

static cval ev_method(ectx *c, const cnode *n)
{
	cval t = ev(c, n->a);
	if (t.t == V_ERR)
		return t;
	cval args[CEL_MAX_ARGS];
	for (int i = 0; i < n->nargs; i++) {
		args[i] = ev(c, n->args[i]);
		if (args[i].t == V_ERR)
			return args[i];
	}
	const char *m = n->name;
	int na = n->nargs;
	if (t.t == V_STR) {
		if (!strcmp(m, "size") && na == 0)
			return mkint((int64_t)strlen(t.s));
		if (na == 1 && args[0].t == V_STR) {
			const char *s = t.s, *x = args[0].s;
			size_t ls = strlen(s), lx = strlen(x);
			if (!strcmp(m, "startsWith"))
				return mkbool(!strncmp(s, x, lx));
			if (!strcmp(m, "endsWith"))
				return mkbool(ls >= lx &&
					      !strcmp(s + ls - lx, x));
			if (!strcmp(m, "contains"))
				return mkbool(strstr(s, x) != NULL);
			if (!strcmp(m, "matches")) {
				regex_t re;
				const char *why = NULL;
				if (re_compile(x, &re, &why))
					return verr(c, n->args[0], "%s", why);
				int r = regexec(&re, s, 0, NULL, 0);
				regfree(&re);
				return mkbool(r == 0);
			}
		}
	} else if (t.t == V_QTY) {
		if (na == 0 && !strcmp(m, "isInteger"))
			return mkbool(t.i % 1000 == 0);
		if (na == 0 && !strcmp(m, "asInteger")) {
			if (t.i % 1000)
				return verr(c, n, "%s",
					    "quantity is not an integer");
			return mkint(t.i / 1000);
		}
		if (na == 1 && args[0].t == V_QTY) {
			int k = t.i < args[0].i ? -1 : t.i > args[0].i;
			if (!strcmp(m, "compareTo"))
				return mkint(k);
			if (!strcmp(m, "isGreaterThan"))
				return mkbool(k > 0);
			if (!strcmp(m, "isLessThan"))
				return mkbool(k < 0);
		}
	} else if (t.t == V_VER) {
		semver v;
		if (semver_parse(t.s, &v))
			return verr(c, n->a, "invalid semver '%s'", t.s);
		if (na == 0 && !strcmp(m, "major"))
			return mkint(v.v[0]);
		if (na == 0 && !strcmp(m, "minor"))
			return mkint(v.v[1]);
		if (na == 0 && !strcmp(m, "patch"))
			return mkint(v.v[2]);
		if (na == 1 && args[0].t == V_VER) {
			int k;
			if (wcel_semver_cmp(t.s, args[0].s, &k))
				return verr(c, n->args[0], "invalid semver '%s'",
					    args[0].s);
			if (!strcmp(m, "compareTo"))
				return mkint(k);
			if (!strcmp(m, "isGreaterThan"))
				return mkbool(k > 0);
			if (!strcmp(m, "isLessThan"))
				return mkbool(k < 0);
		}
	} else if (t.t == V_LIST) {
		if (na == 0 && !strcmp(m, "size"))
			return mkint(list_len(&t));
		if (na == 1 && !strcmp(m, "includes"))
			return in_list_v(c, n, &args[0], &t);
	}
	char buf[96];
	snprintf(buf, sizeof buf, "%s.%s() with %d argument%s", tname(t.t), m,
		 na, na == 1 ? "" : "s");
	return verr(c, n, "no matching overload for %s", buf);
}

static cval ev_call(ectx *c, const cnode *n)
{
	cval a = ev(c, n->args[0]);
	if (a.t == V_ERR)
		return a;
	cval r = {0};
	if (!strcmp(n->name, "size")) {
		if (a.t == V_STR)
			return mkint((int64_t)strlen(a.s));
		if (a.t == V_LIST)
			return mkint(list_len(&a));
		return verr(c, n, "no matching overload for size(%s)",
			    tname(a.t));
	}
	if (a.t != V_STR)
		return verr(c, n, "%s() needs a string argument", n->name);
	if (!strcmp(n->name, "quantity")) {
		if (wq_parse(a.s, strlen(a.s), &r.i, NULL))
			return verr(c, n, "invalid quantity '%s'", a.s);
		r.t = V_QTY;
		return r;
	}
	if (!semver_ok(a.s))
		return verr(c, n, "invalid semver '%s'", a.s);
	r.t = V_VER;
	r.s = a.s;
	return r;
}

static cval ev(ectx *c, const cnode *n)
{
	cval a, b;
	switch (n->kind) {
	case N_LIT:
		return n->lit;
	case N_DEVICE: {
		cval v = {0};
		v.t = V_DEVICE;
		return v;
	}
	case N_LIST: {
		cval v = {0};
		v.t = V_LIST;
		v.ln = n;
		return v;
	}
	case N_SELECT:
		a = ev(c, n->a);
		return a.t == V_ERR ? a : lookup(c, n, a, n->name, false);
	case N_HAS:
		a = ev(c, n->args[0]->a);
		return a.t == V_ERR ? a
				    : lookup(c, n, a, n->args[0]->name, true);
	case N_INDEX:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		b = ev(c, n->b);
		if (b.t == V_ERR)
			return b;
		if (a.t == V_LIST) {
			if (b.t != V_INT && b.t != V_UINT)
				return verr(c, n, "list index must be an int%s",
					    "");
			if (b.i < 0 || b.i >= list_len(&a))
				return verr(c, n, "list index out of range%s",
					    "");
			return list_get(c, &a, (int)b.i);
		}
		if (b.t != V_STR)
			return verr(c, n, "map key must be a string%s", "");
		return lookup(c, n, a, b.s, false);
	case N_CALL:
		return ev_call(c, n);
	case N_METHOD:
		return ev_method(c, n);
	case N_UNARY:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		if (n->op == T_NOT) {
			if (a.t != V_BOOL)
				return verr(c, n, "'!' needs a bool, not %s",
					    tname(a.t));
			return mkbool(!a.b);
		}
		if (a.t == V_INT) {
			if (a.i == INT64_MIN)
				return verr(c, n, "%s", "integer overflow");
			return mkint(-a.i);
		}
		if (a.t == V_DBL) {
			a.d = -a.d;
			return a;
		}
		return verr(c, n, "unary '-' needs a number, not %s",
			    tname(a.t));
	case N_AND:
	case N_OR: {
		/* CEL's commutative logic: a decisive side wins over an
		 * error on the other. */
		bool decisive = n->kind == N_OR;
		a = ev(c, n->a);
		if (a.t == V_BOOL && a.b == decisive)
			return a;
		if (a.t != V_BOOL && a.t != V_ERR)
			a = verr(c, n->a, "logical operator needs bool, not %s",
				 tname(a.t));
		wasp_error saved = c->e;
		b = ev(c, n->b);
		if (b.t != V_BOOL && b.t != V_ERR)
			b = verr(c, n->b, "logical operator needs bool, not %s",
				 tname(b.t));
		if (b.t == V_BOOL && b.b == decisive)
			return b;
		if (a.t == V_ERR) {
			c->e = saved;
			return a;
		}
		return b;
	}
	case N_COND:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		if (a.t != V_BOOL)
			return verr(c, n, "condition needs bool, not %s",
				    tname(a.t));
		return ev(c, a.b ? n->b : n->c);
	case N_BINARY:
		a = ev(c, n->a);
		if (a.t == V_ERR)
			return a;
		b = ev(c, n->b);
		if (b.t == V_ERR)
			return b;
		switch (n->op) {
		case T_EQ:
		case T_NE: {
			int e = equal(c, &a, &b);
			if (e < 0)
				return verr(c, n, "%s", "invalid semver value");
			return mkbool(n->op == T_EQ ? e == 1 : e == 0);
		}
		case T_LT: case T_LE: case T_GT: case T_GE:
			return compare(c, n, n->op, &a, &b);
		case T_IN:
			if (b.t == V_LIST)
				return in_list_v(c, n, &a, &b);
			if (b.t == V_ATTRS || b.t == V_CAPS ||
			    b.t == V_DATTRS || b.t == V_DCAPS) {
				if (a.t != V_STR)
					return verr(c, n, "map key must be a "
						    "string%s", "");
				return lookup(c, n, b, a.s, true);
			}
			return verr(c, n, "'in' needs a list or map, not %s",
				    tname(b.t));
		default:
			return arith(c, n, n->op, &a, &b);
		}
	}
	return verr(c, n, "%s", "internal: unknown node");
}

int wcel_eval(const wcel_prog *p, const wcel_device *d, wasp_error *err)
{
	ectx c;
	c.p = p;
	c.d = d;
	c.depth = 0;
	c.e.code = 0;
	cval v = ev(&c, p->root);
	if (v.t == V_ERR) {
		if (err)
			*err = c.e;
		return -1;
	}
	if (v.t != V_BOOL) {
		werr_at(err, WASP_EINPUT, p->at,
			"CEL: expression yields %s, not bool at offset 0",
			tname(v.t));
		return -1;
	}
	return v.b ? 1 : 0;
}
