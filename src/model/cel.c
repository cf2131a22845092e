/*
 * cel.c -- compile DRA device selector expressions (cel.h); cel_eval.c
 * evaluates them.
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

#include "model/cel_int.h"
#include "model/quantity.h"

/* ------------------------------------------------------------ lexer */


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
			if (!wcel_semver_ok(a0->lit.s)) {
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

static int check_regex(parser *p, const char *pat, int off)
{
	regex_t re;
	const char *why = NULL;
	if (wcel_re_compile(pat, &re, &why))
		return perr(p, off, "%s", why);
	regfree(&re);
	return 0;
}
