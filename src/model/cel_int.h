/*
 * cel_int.h -- what the CEL compiler (cel.c), the evaluator (cel_eval.c)
 * and the semver and regex helpers (cel_text.c) share; not for other
 * modules.  The public contract is cel.h.
 */
#ifndef WASP_CEL_INT_H
#define WASP_CEL_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cel.h"

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

/* Tokens; a node's op is one of them. */
enum tok {
	T_EOF, T_IDENT, T_INT, T_UINT, T_DBL, T_STR,
	T_LP, T_RP, T_LB, T_RB, T_LC, T_RC, T_DOT, T_COMMA, T_COLON, T_QUEST,
	T_NOT, T_MINUS, T_PLUS, T_STAR, T_SLASH, T_PCT,
	T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_AND, T_OR, T_IN
};

/* ------------------------------------------------------------ text */

typedef struct semver {
	int64_t v[3];
	const char *pre;  /* prerelease text, NULL if none */
	size_t prelen;
} semver;

/* Parse a semantic version (a leading "v" allowed); -1: not one. */
int wcel_semver_parse(const char *s, semver *o);
bool wcel_semver_ok(const char *s);
/* Compile a CEL (RE2) .matches() pattern as a POSIX extended regex;
 * -1 with *why on a pattern outside the supported subset. */
int wcel_re_compile(const char *pat, regex_t *re, const char **why);

#endif
