/*
 * cel_text.c -- semantic versions and the .matches() pattern subset for
 * CEL (cel_int.h): semver 2.0 parsing and precedence, and the translation
 * of RE2 patterns into POSIX extended ones, refusing what POSIX would
 * read differently.
 */
#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cel_int.h"

/* ------------------------------------------------------------ semver */



int wcel_semver_parse(const char *s, semver *o)
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

bool wcel_semver_ok(const char *s)
{
	semver v;
	return wcel_semver_parse(s, &v) == 0;
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
	if (wcel_semver_parse(a, &x) || wcel_semver_parse(b, &y))
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

int wcel_re_compile(const char *pat, regex_t *re, const char **why)
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
