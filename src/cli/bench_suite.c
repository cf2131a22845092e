/*
 * bench_suite.c -- reading a benchmark suite (bench/README.md, "Suites").
 *
 * The file is loaded by the project's loader (io/load.h), so a suite may
 * use any YAML form -- block or flow maps and lists, flow collections over
 * several lines, anchors, quoted or plain scalars -- or be JSON, and every
 * node keeps its file:line:col.  Syntax errors, duplicate keys and the like
 * come back with the loader's message; this file checks the schema of a
 * suite over the tree (keys, types, ranges, the solvers, the `gen` options)
 * and reports mistakes as "suite.yaml:line:col: message" at the value (or
 * key) concerned.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "cli/bench_int.h"
#include "io/load.h"

/* The reader's state: the file name for messages and the first error. */
typedef struct sread {
	const char *file;
	char err[512];
} sread;

static int serr(sread *y, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int serr(sread *y, int line, int col, const char *fmt, ...)
{
	if (y->err[0])
		return -1;
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(y->err, sizeof y->err, "%s:%d:%d: %s", y->file, line, col,
		 msg);
	return -1;
}

/* A scalar's text (strings, numbers and booleans alike, as written), or
 * NULL for null, a map or a list. */
static const char *text_of(const wt_node *v)
{
	if (!v || (v->type != WT_STR && v->type != WT_NUM &&
		   v->type != WT_BOOL))
		return NULL;
	return v->str;
}

#define LINE(v) ((v) ? (v)->src.line : 0)
#define COL(v) ((v) ? (v)->src.col : 0)

/* A number from a suite value, with bounds; -1 on error. */
static int s_num(sread *y, const wt_node *v, const char *what, double lo,
		 double hi, int integer, double *out)
{
	char *e;
	const char *s = text_of(v);
	if (!s || !s[0])
		return serr(y, LINE(v), COL(v), "%s: expected a number", what);
	errno = 0;
	double d = strtod(s, &e);
	if (*e || errno || !(d >= lo && d <= hi) ||
	    (integer && d != floor(d)))
		return serr(y, LINE(v), COL(v), "%s: expected %s in "
			    "%.15g..%.15g, got '%s'", what, integer ?
			    "an integer" : "a number", lo, hi, s);
	*out = d;
	return 0;
}

static int s_bool(sread *y, const wt_node *v, const char *what, int *out)
{
	const char *s = text_of(v);
	if (v && v->type == WT_BOOL) {
		*out = v->boolean;
		return 0;
	}
	if (s && (!strcmp(s, "true") || !strcmp(s, "yes"))) {
		*out = 1;
		return 0;
	}
	if (s && (!strcmp(s, "false") || !strcmp(s, "no"))) {
		*out = 0;
		return 0;
	}
	return serr(y, LINE(v), COL(v), "%s: expected true or false", what);
}

static int s_solvers(sread *y, const wt_node *v, int *out, int *n)
{
	if (!v || v->type != WT_SEQ || v->n == 0)
		return serr(y, LINE(v), COL(v), "solvers: expected a non-empty "
			    "list such as [greedy, ilp, podwise, bestfit]");
	if (v->n > MAX_SOLVERS)
		return serr(y, LINE(v), COL(v), "solvers: at most %d",
			    MAX_SOLVERS);
	*n = 0;
	for (size_t i = 0; i < v->n; i++) {
		const wt_node *e = v->items[i];
		const char *s = text_of(e);
		int k = -1;
		for (int j = 0; s && j < S_NSOLVERS; j++)
			if (!strcmp(s, bench_solver_name[j]))
				k = j;
		if (k < 0)
			return serr(y, LINE(e), COL(e), "unknown solver '%s' "
				    "(greedy, ilp, auto, podwise, bestfit, "
				    "cbc, ilp-node)", s ? s : "?");
		for (int j = 0; j < *n; j++)
			if (out[j] == k)
				return serr(y, LINE(e), COL(e), "solver '%s' "
					    "listed twice", s);
		out[(*n)++] = k;
	}
	return 0;
}

/* `gen:` takes exactly the options of `wasp gen`, by the same names and
 * with the same range checks (wasp_gen_option_set). */
static int s_gen(sread *y, const wt_node *g, wasp_gen_options *o)
{
	if (g->type != WT_MAP)
		return serr(y, LINE(g), COL(g), "gen: expected a map of "
			    "`wasp gen` options (seed, levels, nodes, ...)");
	wasp_gen_options_init(o);
	for (size_t i = 0; i < g->n; i++) {
		const wt_node *k = wt_key(g, i), *v = wt_val(g, i);
		const char *s = text_of(v);
		wasp_error e;
		if (!s)
			return serr(y, LINE(k), COL(k), "gen option '%s': "
				    "expected a scalar value", k->str);
		if (!strcmp(k->str, "json"))
			return serr(y, LINE(k), COL(k), "gen option 'json' is "
				    "fixed by the harness");
		if (wasp_gen_option_set(o, k->str, s, &e)) {
			/* an unknown name points at the key, a bad value at
			 * the value */
			const wt_node *at = strstr(e.msg, "unknown") ? k : v;
			return serr(y, LINE(at), COL(at), "gen: %s", e.msg);
		}
	}
	o->json = 1; /* the harness reads the manifests back as JSON */
	return 0;
}

/* A file named by the suite is relative to the suite's directory. */
static char *suite_relative(const char *suite_path, const char *file)
{
	if (file[0] == '/')
		return xstrdup(file);
	const char *slash = strrchr(suite_path, '/');
	size_t dn = slash ? (size_t)(slash - suite_path) + 1 : 0;
	char *p = xmalloc(dn + strlen(file) + 1);
	memcpy(p, suite_path, dn);
	strcpy(p + dn, file);
	return p;
}

void bench_free_suite(suite *su)
{
	for (int i = 0; i < su->nin; i++) {
		free(su->in[i].name);
		free(su->in[i].file);
	}
	free(su->in);
	free(su->name);
}

/* The suite's name: its `suite:` key, else the file name up to a dot. */
static char *default_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t bn = strcspn(base, ".");
	char *name = xmalloc(bn + 1);
	memcpy(name, base, bn);
	name[bn] = 0;
	return name;
}

/* One entry of `instances:`, with the suite's defaults; -1 on error. */
static int read_instance(sread *y, const char *path, const suite *su,
			 const wt_node *m, instance *in, const int *defsolv,
			 int ndef, double deftime)
{
	const wt_node *gen = NULL, *file = NULL;
	in->time = deftime;
	in->timeout = -1;
	in->quick = 1;
	memcpy(in->solvers, defsolv, sizeof in->solvers);
	in->nsolvers = ndef;
	in->line = m->src.line;
	if (m->type != WT_MAP)
		return serr(y, LINE(m), COL(m), "an instance is a map with "
			    "name and gen (or file)");
	for (size_t j = 0; j < m->n; j++) {
		const wt_node *key = wt_key(m, j), *v = wt_val(m, j);
		const char *k = key->str, *s = text_of(v);
		if (!strcmp(k, "name")) {
			if (!s || !s[0] ||
			    strcspn(s, "/ \t,\"") != strlen(s))
				return serr(y, LINE(v), COL(v), "name: "
					    "expected a word (no '/', spaces, "
					    "commas or quotes)");
			in->name = xstrdup(s);
		} else if (!strcmp(k, "gen")) {
			gen = v;
		} else if (!strcmp(k, "file")) {
			if (!s || !s[0])
				return serr(y, LINE(v), COL(v), "file: "
					    "expected a path");
			file = v;
		} else if (!strcmp(k, "solvers")) {
			if (s_solvers(y, v, in->solvers, &in->nsolvers))
				return -1;
		} else if (!strcmp(k, "time")) {
			if (s_num(y, v, "time", 0.001, 86400, 0, &in->time))
				return -1;
		} else if (!strcmp(k, "timeout")) {
			if (s_num(y, v, "timeout", 1, 864000, 0,
				  &in->timeout))
				return -1;
		} else if (!strcmp(k, "quick")) {
			if (s_bool(y, v, "quick", &in->quick))
				return -1;
		} else {
			return serr(y, LINE(key), COL(key), "unknown instance "
				    "key '%s' (name, gen, file, solvers, time, "
				    "timeout, quick)", k);
		}
	}
	if (!in->name)
		return serr(y, LINE(m), COL(m), "instance without a name");
	for (int j = 0; j < su->nin - 1; j++)
		if (!strcmp(su->in[j].name, in->name))
			return serr(y, LINE(m), COL(m), "instance name '%s' "
				    "used twice", in->name);
	if (!!gen == !!file)
		return serr(y, LINE(m), COL(m), "instance '%s' needs exactly "
			    "one of gen and file", in->name);
	if (gen) {
		if (s_gen(y, gen, &in->gen))
			return -1;
		in->has_gen = 1;
	} else {
		in->file = suite_relative(path, file->str);
	}
	if (in->nsolvers == 0)
		return serr(y, LINE(m), COL(m), "instance '%s' lists no "
			    "solvers (and the suite has no default)", in->name);
	if (in->timeout < 0)
		in->timeout = 4 * in->time + WATCHDOG_MIN_S;
	return 0;
}

/* The schema of a suite over its loaded tree; -1 on error. */
static int read_root(sread *y, const char *path, const wt_node *root,
		     suite *su)
{
	int defsolv[MAX_SOLVERS] = {0}, ndef = 0;
	double deftime = 5;
	const wt_node *insts = NULL;

	if (root->type != WT_MAP)
		return serr(y, LINE(root), COL(root), "a suite is a map with "
			    "'instances:' (and optional suite, time, solvers)");
	su->name = default_name(path);
	for (size_t i = 0; i < root->n; i++) {
		const wt_node *key = wt_key(root, i), *v = wt_val(root, i);
		const char *k = key->str;
		if (!strcmp(k, "suite") || !strcmp(k, "name")) {
			/* it names the result files in the current
			 * directory: a word, never a path */
			const char *s = text_of(v);
			if (!s || !s[0] || !strcmp(s, ".") ||
			    !strcmp(s, "..") ||
			    strcspn(s, "/ \t,\"") != strlen(s))
				return serr(y, LINE(v), COL(v), "suite: "
					    "expected a name (a word: no '/', "
					    "spaces, commas or quotes)");
			free(su->name);
			su->name = xstrdup(v->str);
		} else if (!strcmp(k, "description")) {
			/* for people */
		} else if (!strcmp(k, "time")) {
			if (s_num(y, v, "time", 0.001, 86400, 0, &deftime))
				return -1;
		} else if (!strcmp(k, "solvers")) {
			if (s_solvers(y, v, defsolv, &ndef))
				return -1;
		} else if (!strcmp(k, "instances")) {
			insts = v;
		} else {
			return serr(y, LINE(key), COL(key), "unknown key '%s' "
				    "(suite, description, time, solvers, "
				    "instances)", k);
		}
	}
	if (!insts || insts->type != WT_SEQ || insts->n == 0)
		return serr(y, insts ? LINE(insts) : 1, insts ? COL(insts) : 1,
			    "instances: expected a non-empty list");
	if (insts->n > MAX_INSTANCES)
		return serr(y, LINE(insts), COL(insts), "at most %d instances",
			    MAX_INSTANCES);
	su->in = xcalloc(insts->n, sizeof *su->in);
	for (size_t i = 0; i < insts->n; i++) {
		const wt_node *m = insts->items[i];
		instance *in = &su->in[su->nin++];
		if (read_instance(y, path, su, m, in, defsolv, ndef, deftime))
			return -1;
	}
	return 0;
}

int bench_read_suite(const char *path, suite *su, char *err, size_t errsz)
{
	struct stat st;
	wasp_error e;
	char *text = NULL;
	size_t len = 0;
	sread y = {path, {0}};
	wt_doc doc;
	int rc = EX_OK;

	memset(su, 0, sizeof *su);
	memset(&e, 0, sizeof e);
	if ((!stat(path, &st) && S_ISREG(st.st_mode) &&
	     st.st_size > SUITE_MAX_BYTES)) {
		snprintf(err, errsz, "%s: %s", path, strerror(EFBIG));
		return EX_INPUT;
	}
	if (wl_read_file(path, &text, &len, &e)) {
		snprintf(err, errsz, "%s", e.msg);
		return e.code == WASP_ENOMEM ? EX_INTERNAL : EX_INPUT;
	}
	if (len > SUITE_MAX_BYTES) {
		free(text);
		snprintf(err, errsz, "%s: %s", path, strerror(EFBIG));
		return EX_INPUT;
	}
	wa_arena *a = wa_new();
	if (!a) {
		free(text);
		snprintf(err, errsz, "wasp bench: out of memory");
		return EX_INTERNAL;
	}
	if (wl_load_text(a, text, len, path, &doc, &e)) {
		wasp_error_format(&e, err, errsz);
		rc = e.code == WASP_ENOMEM ? EX_INTERNAL : EX_INPUT;
	} else if (doc.nroots == 0) {
		serr(&y, 1, 1, "the suite is empty");
	} else if (doc.nroots > 1) {
		serr(&y, LINE(doc.roots[1]), COL(doc.roots[1]), "a suite is "
		     "one document (a second one starts here)");
	} else {
		read_root(&y, path, doc.roots[0], su);
	}
	wa_destroy(a);
	free(text);
	if (y.err[0]) {
		snprintf(err, errsz, "%s", y.err);
		rc = EX_INPUT;
	}
	if (rc)
		bench_free_suite(su);
	return rc;
}
