/*
 * check_load.c -- the loaders: YAML/JSON text to document trees.
 *
 * Exact positions of values and errors, exact scalar text and types, the
 * limits (depth, alias expansion, deep flow nesting), and every file of the
 * real-manifest corpus.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, mkstemp, clock_gettime */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/intern.h"
#include "io/load.h"
#include "testutil.h"

static wa_arena *A;
static wt_doc D;
static wasp_error E;

static void setup(void)
{
	A = wa_new();
	memset(&D, 0, sizeof D);
	memset(&E, 0, sizeof E);
}

static void teardown(void)
{
	wa_destroy(A);
	A = NULL;
}

static int load_n(const char *text, size_t len)
{
	wa_destroy(A);
	A = wa_new();
	memset(&E, 0, sizeof E);
	return wl_load_text(A, text, len, "t.in", &D, &E);
}

static int load(const char *text)
{
	return load_n(text, strlen(text));
}

/* Load text that must load; returns the only root, or the first. */
static const wt_node *ok1(const char *text)
{
	int rc = load(text);
	ck_assert_msg(rc == WASP_OK, "load failed: %d:%d: %s", E.line, E.col,
		      E.msg);
	ck_assert_uint_ge(D.nroots, 1);
	return D.roots[0];
}

#define ck_err(text, code_, line_, col_, sub)                                \
	do {                                                                 \
		int rc_ = load(text);                                        \
		ck_assert_msg(rc_ == (code_), "rc %d, want %d (%s)", rc_,    \
			      (code_), E.msg);                               \
		ck_assert_int_eq(E.code, (code_));                           \
		ck_assert_msg(E.line == (line_) && E.col == (col_),          \
			      "at %d:%d, want %d:%d (%s)", E.line, E.col,    \
			      (line_), (col_), E.msg);                       \
		ck_assert_msg(strstr(E.msg, (sub)) != NULL,                  \
			      "message \"%s\" lacks \"%s\"", E.msg, (sub));  \
		ck_assert_str_eq(E.file, "t.in");                            \
	} while (0)

#define ck_at(node, line_, col_)                                             \
	do {                                                                 \
		const wt_node *n_ = (node);                                  \
		ck_assert_ptr_nonnull(n_);                                   \
		ck_assert_msg(n_->src.line == (line_) &&                     \
				  n_->src.col == (col_),                     \
			      "at %d:%d, want %d:%d", n_->src.line,          \
			      n_->src.col, (line_), (col_));                 \
	} while (0)

#define ck_scalar(node, type_, text_)                                        \
	do {                                                                 \
		const wt_node *s_ = (node);                                  \
		ck_assert_ptr_nonnull(s_);                                   \
		ck_assert_msg(s_->type == (type_), "%s is a %s, want %s",    \
			      s_->str, wt_type_name(s_->type),               \
			      wt_type_name(type_));                          \
		ck_assert_str_eq(s_->str, (text_));                          \
		ck_assert_uint_eq(s_->len, strlen(text_));                   \
	} while (0)

static const wt_node *item(const wt_node *seq, size_t i)
{
	ck_assert_ptr_nonnull(seq);
	ck_assert_int_eq(seq->type, WT_SEQ);
	ck_assert_uint_gt(seq->n, i);
	return seq->items[i];
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* $WASP_SRCDIR/rel (WASP_SRCDIR defaults to "."). */
static const char *src_path(const char *rel)
{
	static char buf[4096];
	const char *dir = getenv("WASP_SRCDIR");
	snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : ".", rel);
	return buf;
}

/* --------------------------------------------------------------- tree */

START_TEST(tree_lookups)
{
	const wt_node *r = ok1("{\"spec\": {\"schedulingPolicy\": {\"gang\": "
			       "{\"minCount\": 4}}, \"Spec\": 1}, \"a.b\": 2}");
	ck_assert_int_eq(r->type, WT_MAP);
	ck_scalar(wt_path(r, "spec.schedulingPolicy.gang.minCount"), WT_NUM,
		  "4");
	ck_assert_ptr_null(wt_path(r, "spec.schedulingPolicy.gang.x"));
	ck_assert_ptr_null(wt_path(r, "spec.schedulingPolicy.gang.minCount.y"));
	ck_assert_ptr_null(wt_get(r, "SPEC")); /* case-sensitive */
	ck_assert_ptr_nonnull(wt_get(r, "spec"));
	ck_scalar(wt_get(wt_get(r, "spec"), "Spec"), WT_NUM, "1");
	ck_scalar(wt_get(r, "a.b"), WT_NUM, "2");
	ck_assert_ptr_null(wt_path(r, "a.b")); /* dots split the path */
	ck_assert_ptr_null(wt_get(NULL, "x"));
	ck_assert_ptr_null(wt_get(wt_get(r, "a.b"), "x")); /* not a map */
	ck_assert_str_eq(wt_key(r, 1)->str, "a.b");
	ck_scalar(wt_val(r, 1), WT_NUM, "2");
	ck_assert_str_eq(wt_type_name(WT_MAP), "map");
	ck_assert_str_eq(wt_type_name(WT_SEQ), "list");
	ck_assert_str_eq(wt_type_name(WT_STR), "string");
	ck_assert_str_eq(wt_type_name(WT_NUM), "number");
	ck_assert_str_eq(wt_type_name(WT_BOOL), "boolean");
	ck_assert_str_eq(wt_type_name(WT_NULL), "null");
}
END_TEST

/* ---------------------------------------------------------- positions */

START_TEST(json_positions)
{
	const wt_node *r = ok1("{\n"
			       "  \"a\": [1, {\"b\": \"x\"},\n"
			       "        [true, null]],\n"
			       "\t\"c\": -0.5\n"
			       "}\n");
	ck_assert_uint_eq(D.nroots, 1);
	ck_assert_str_eq(D.file, "t.in");
	ck_at(r, 1, 1);
	ck_at(wt_key(r, 0), 2, 3);
	const wt_node *a = wt_get(r, "a");
	ck_at(a, 2, 8);
	ck_at(item(a, 0), 2, 9);
	ck_at(item(a, 1), 2, 12);
	ck_at(wt_key(item(a, 1), 0), 2, 13);
	ck_at(wt_get(item(a, 1), "b"), 2, 18);
	ck_at(item(a, 2), 3, 9);
	ck_at(item(item(a, 2), 1), 3, 16);
	ck_at(wt_key(r, 1), 4, 2); /* a tab is one byte */
	ck_at(wt_get(r, "c"), 4, 7);
	/* columns count bytes, not characters */
	r = ok1("[\"\xc3\xa9\xc3\xa9\", 7]");
	ck_at(item(r, 1), 1, 10);
}
END_TEST

START_TEST(yaml_positions)
{
	const wt_node *r = ok1("# comment\n"
			       "a:\n"
			       "  b: [1, {c: x}]\n"
			       "  d:\n"
			       "  - e: 'q'\n"
			       "    f: |\n"
			       "      text\n"
			       "g: &k v\n"
			       "h: *k\n");
	ck_at(r, 2, 1);
	ck_at(wt_key(r, 0), 2, 1);
	const wt_node *a = wt_get(r, "a");
	ck_at(a, 3, 3);
	ck_at(wt_get(a, "b"), 3, 6);
	ck_at(item(wt_get(a, "b"), 1), 3, 10);
	ck_at(wt_path(r, "a.b"), 3, 6);
	const wt_node *d = wt_get(a, "d");
	ck_at(d, 5, 3);
	ck_at(item(d, 0), 5, 5);
	ck_at(wt_get(item(d, 0), "e"), 5, 8);
	ck_at(wt_get(item(d, 0), "f"), 6, 8);
	ck_scalar(wt_get(item(d, 0), "f"), WT_STR, "text\n");
	ck_at(wt_get(r, "g"), 8, 4);
	/* an alias is the anchored node itself */
	ck_assert_ptr_eq(wt_get(r, "g"), wt_get(r, "h"));
	/* columns count bytes after multi-byte characters, as in JSON */
	r = ok1("- \xc3\xa9: [1, \xc3\xa9]\n"
		"  x: 2\n");
	const wt_node *m = item(r, 0);
	ck_at(wt_get(m, "\xc3\xa9"), 1, 7);
	ck_at(item(wt_get(m, "\xc3\xa9"), 1), 1, 11);
	ck_at(wt_get(m, "x"), 2, 6);
}
END_TEST

START_TEST(fixture_files)
{
	int rc = wl_load_file(A, src_path("tests/fixtures/load/pods.json"),
			      &D, &E);
	ck_assert_msg(rc == 0, "%s", E.msg);
	ck_assert_uint_eq(D.nroots, 1);
	const wt_node *p0 = item(wt_get(D.roots[0], "items"), 0);
	const wt_node *req = wt_path(
	    item(wt_path(p0, "spec.containers"), 0), "resources.requests");
	ck_scalar(wt_get(req, "memory"), WT_STR, "8063156Ki");
	ck_at(wt_get(req, "memory"), 22, 43);
	ck_scalar(wt_get(req, "nvidia.com/gpu"), WT_NUM, "8");
	ck_at(wt_get(req, "nvidia.com/gpu"), 23, 51);
	const wt_node *p1 = item(wt_get(D.roots[0], "items"), 1);
	ck_scalar(wt_path(p1, "metadata.annotations.note"), WT_STR,
		  "caf\xc3\xa9 \xf0\x9f\x9a\x80 \"quoted\"\n");
	ck_assert_int_eq(wt_path(p1, "spec.nodeName")->type, WT_NULL);
	ck_assert_uint_eq(wt_path(p1, "spec.containers")->n, 0);
	ck_assert_ptr_nonnull(strstr(D.file, "pods.json"));

	rc = wl_load_file(A, src_path("tests/fixtures/load/multi.yaml"), &D,
			  &E);
	ck_assert_msg(rc == 0, "%s", E.msg);
	ck_assert_uint_eq(D.nroots, 2); /* the empty document is skipped */
	const wt_node *items = wt_get(D.roots[0], "items");
	const wt_node *b = item(items, 1);
	/* merge key: own r2 wins, b1 comes from the anchor */
	const wt_node *lab = wt_path(b, "metadata.labels");
	ck_assert_uint_eq(lab->n, 2);
	ck_scalar(wt_get(lab, "example.com/rack"), WT_STR, "r2");
	ck_scalar(wt_get(lab, "example.com/block"), WT_STR, "b1");
	ck_at(wt_get(lab, "example.com/block"), 11, 26);
	ck_assert_ptr_eq(wt_path(b, "status.allocatable"),
			 wt_path(item(items, 0), "status.allocatable"));
	const wt_node *pod = D.roots[1];
	ck_at(pod, 30, 1);
	ck_scalar(wt_path(pod, "metadata.annotations.folded"), WT_STR,
		  "one two\n");
	ck_scalar(wt_path(pod, "spec.priority"), WT_NUM, "100");
	ck_scalar(wt_path(pod, "spec.nodeSelector.enabled"), WT_STR, "yes");
	ck_scalar(wt_path(pod, "spec.nodeSelector.flag"), WT_STR, "on");
}
END_TEST

/* ------------------------------------------------------------ scalars */

START_TEST(numbers_keep_text)
{
	const wt_node *r = ok1("[9007199254740993, 1e3, -0.5E+10, 0, "
			       "1234567890123456789012, \"8063156Ki\"]");
	ck_scalar(item(r, 0), WT_NUM, "9007199254740993");
	ck_scalar(item(r, 1), WT_NUM, "1e3");
	ck_scalar(item(r, 2), WT_NUM, "-0.5E+10");
	ck_scalar(item(r, 3), WT_NUM, "0");
	ck_scalar(item(r, 4), WT_NUM, "1234567890123456789012");
	ck_scalar(item(r, 5), WT_STR, "8063156Ki");

	r = ok1("memory: 8063156Ki\nbig: 9007199254740993\nk: 1e3\n"
		"cpu: 500m\nq: \"12\"\n");
	ck_scalar(wt_get(r, "memory"), WT_STR, "8063156Ki");
	ck_scalar(wt_get(r, "big"), WT_NUM, "9007199254740993");
	ck_scalar(wt_get(r, "k"), WT_NUM, "1e3");
	ck_scalar(wt_get(r, "cpu"), WT_STR, "500m");
	ck_scalar(wt_get(r, "q"), WT_STR, "12");
}
END_TEST

START_TEST(yaml_scalar_types)
{
	static const struct {
		const char *text;
		wt_type type;
	} cases[] = {
	    {"~", WT_NULL},      {"null", WT_NULL},    {"Null", WT_NULL},
	    {"NULL", WT_NULL},   {"nUll", WT_STR},     {"true", WT_BOOL},
	    {"True", WT_BOOL},   {"TRUE", WT_BOOL},    {"false", WT_BOOL},
	    {"False", WT_BOOL},  {"FALSE", WT_BOOL},   {"tRUE", WT_STR},
	    {"yes", WT_STR},     {"no", WT_STR},       {"on", WT_STR},
	    {"off", WT_STR},     {"y", WT_STR},        {"0", WT_NUM},
	    {"-12", WT_NUM},     {"+7", WT_NUM},       {"0x1F", WT_NUM},
	    {"0o17", WT_NUM},    {"0x", WT_STR},       {"0o8", WT_STR},
	    {"1.5", WT_NUM},     {".5", WT_NUM},       {"1.", WT_NUM},
	    {"-2.5e-3", WT_NUM}, {"1e3", WT_NUM},      {"1e", WT_STR},
	    {".", WT_STR},       {".inf", WT_NUM},     {"-.Inf", WT_NUM},
	    {"+.INF", WT_NUM},   {".nan", WT_NUM},     {".NaN", WT_NUM},
	    {"-.nan", WT_STR},   {"1_000", WT_STR},    {"8Gi", WT_STR},
	    {"100m", WT_STR},    {"1.2.3", WT_STR},    {"--1", WT_STR},
	    {"'1'", WT_STR},     {"\"true\"", WT_STR}, {"!!str 12", WT_STR},
	    {"! 13", WT_STR},    {"!!int \"12\"", WT_NUM},
	    {"!!bool \"true\"", WT_BOOL}, {"!!null x", WT_NULL},
	    {"!local 5", WT_NUM}, {"'~'", WT_STR},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "v: %s\n", cases[i].text);
		const wt_node *v = wt_get(ok1(buf), "v");
		ck_assert_msg(v && v->type == cases[i].type,
			      "%s: got %s, want %s", cases[i].text,
			      v ? wt_type_name(v->type) : "nothing",
			      wt_type_name(cases[i].type));
	}
	const wt_node *r = ok1("t: True\nf: false\ne:\nk: \n");
	ck_assert(wt_get(r, "t")->boolean);
	ck_assert(!wt_get(r, "f")->boolean);
	ck_assert_int_eq(wt_get(r, "e")->type, WT_NULL);
	ck_assert_int_eq(wt_get(r, "k")->type, WT_NULL);
	/* keys are always strings */
	r = ok1("1: a\ntrue: b\n~: c\n");
	ck_scalar(wt_key(r, 0), WT_STR, "1");
	ck_scalar(wt_key(r, 1), WT_STR, "true");
	ck_scalar(wt_key(r, 2), WT_STR, "~");
	r = ok1("a: &n 5\n*n : x\n");
	ck_scalar(wt_key(r, 1), WT_STR, "5");
	ck_scalar(wt_get(r, "a"), WT_NUM, "5");
	ck_err("v: !!int abc\n", WASP_EINPUT, 1, 4, "\"abc\" is not a valid !!int");
	ck_err("v: !!bool yes\n", WASP_EINPUT, 1, 4, "not a valid !!bool");
}
END_TEST

START_TEST(strings_and_escapes)
{
	const wt_node *r = ok1("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", "
			       "\"\\u00e9\\u20AC\\ud83d\\ude00\", \"\xc3\xa9\", "
			       "\"x\\u0000y\", \"\"]");
	ck_scalar(item(r, 0), WT_STR, "a\"b\\c/d\b\f\n\r\t");
	ck_scalar(item(r, 1), WT_STR,
		  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	ck_scalar(item(r, 2), WT_STR, "\xc3\xa9");
	ck_assert_uint_eq(item(r, 3)->len, 3); /* NUL kept, length exact */
	ck_assert_int_eq(memcmp(item(r, 3)->str, "x\0y", 4), 0);
	ck_scalar(item(r, 4), WT_STR, "");

	r = ok1("a: \"\\u00e9\\x41\\t\\\"\"\n"
		"b: 'it''s'\n"
		"c: >-\n  one\n  two\n"
		"d: \xe2\x82\xac\n");
	ck_scalar(wt_get(r, "a"), WT_STR, "\xc3\xa9" "A\t\"");
	ck_scalar(wt_get(r, "b"), WT_STR, "it's");
	ck_scalar(wt_get(r, "c"), WT_STR, "one two");
	ck_scalar(wt_get(r, "d"), WT_STR, "\xe2\x82\xac");
}
END_TEST

/* ----------------------------------------------------------- streams */

START_TEST(yaml_multi_document)
{
	const char *text = "# leading comment\n"
			   "---\n"
			   "kind: A\n"
			   "--- # comment\n"
			   "kind: B\n"
			   "...\n"
			   "---\n"
			   "--- null\n"
			   "--- ~\n"
			   "---\n"
			   "# only a comment\n"
			   "---\n"
			   "kind: C\n";
	ck_assert_int_eq(load(text), 0);
	ck_assert_uint_eq(D.nroots, 3);
	ck_scalar(wt_get(D.roots[0], "kind"), WT_STR, "A");
	ck_scalar(wt_get(D.roots[1], "kind"), WT_STR, "B");
	ck_scalar(wt_get(D.roots[2], "kind"), WT_STR, "C");
	ck_at(D.roots[2], 13, 1);
	/* a scalar document is a root too */
	ck_assert_int_eq(load("--- 5\n--- [1]\n"), 0);
	ck_assert_uint_eq(D.nroots, 2);
	ck_scalar(D.roots[0], WT_NUM, "5");
}
END_TEST

START_TEST(empty_inputs)
{
	static const char *const empty[] = {"", "\n\n", "   ", "# c\n# d\n",
					    "---\n", "---\n...\n",
					    "\xef\xbb\xbf", "null\n"};
	for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
		int rc = load(empty[i]);
		ck_assert_msg(rc == 0, "input %zu: %s", i, E.msg);
		ck_assert_uint_eq(D.nroots, 0);
	}
	/* empty collections (fuzz: an empty first map once hit UB) */
	ck_assert_int_eq(wl_load_yaml(A, "{}\n", 3, "t", &D, &E), 0);
	ck_assert_uint_eq(D.nroots, 1);
	ck_assert_int_eq(D.roots[0]->type, WT_MAP);
	ck_assert_uint_eq(D.roots[0]->n, 0);
	ck_assert_ptr_null(wt_get(D.roots[0], "a"));
	ck_assert_int_eq(load("[]"), 0);
	ck_assert_uint_eq(D.nroots, 1);
	ck_assert_uint_eq(D.roots[0]->n, 0);
	/* JSON: only null values */
	ck_assert_int_eq(wl_load_json(A, " null ", 6, "t", &D, &E), 0);
	ck_assert_uint_eq(D.nroots, 0);
	ck_assert_int_eq(wl_load_json(A, "", 0, "t", &D, &E), 0);
	ck_assert_uint_eq(D.nroots, 0);
}
END_TEST

START_TEST(bom)
{
	const wt_node *r = ok1("\xef\xbb\xbf{\"a\": 1}");
	ck_at(wt_get(r, "a"), 1, 7);
	r = ok1("\xef\xbb\xbf" "a: 1\n");
	ck_at(wt_get(r, "a"), 1, 4);
	ck_err("\xef\xbb\xbf{\"a\": x}", WASP_EINPUT, 1, 7, "expected a value");
	ck_err("\xef\xbb\xbf" "a: b: c\n", WASP_EINPUT, 1, 5,
	       "mapping values are not allowed");
	ck_err("\xef\xbb\xbf" "a: \xff\n", WASP_EINPUT, 1, 4, "UTF-8");
	/* UTF-16 is refused, not misread */
	ck_err("\xff\xfe" "a\0:\0", WASP_EINPUT, 1, 1, "UTF-8");
}
END_TEST

START_TEST(json_concatenated)
{
	ck_assert_int_eq(load("{\"kind\":\"A\"}\n{\"kind\":\"B\"} [1]\nnull{}"),
			 0);
	ck_assert_uint_eq(D.nroots, 4); /* null dropped */
	ck_scalar(wt_get(D.roots[1], "kind"), WT_STR, "B");
	ck_at(D.roots[1], 2, 1);
	ck_at(D.roots[2], 2, 14);
	ck_at(D.roots[3], 3, 5);
	ck_err("{\"a\": 1} x", WASP_EINPUT, 1, 10, "after the end of the JSON");
	ck_err("[1]\n]", WASP_EINPUT, 2, 1, "after the end of the JSON");
	ck_err("[1] tru", WASP_EINPUT, 1, 5, "invalid literal");
}
END_TEST

START_TEST(sniffing)
{
	/* leading white space and a BOM do not hide JSON */
	ck_assert_int_eq(load(" \n\t[1, 2]"), 0);
	ck_scalar(item(D.roots[0], 1), WT_NUM, "2");
	/* JSON is strict even where YAML would accept the text */
	ck_err("{a: 1}", WASP_EINPUT, 1, 2, "expected a string key");
	ck_err("[1, 2] # c", WASP_EINPUT, 1, 8, "after the end of the JSON");
	/* anything else is YAML (JSON-looking values inside are fine) */
	const wt_node *r = ok1("a: {\"b\": [1, 2]}\n");
	ck_scalar(item(wt_path(r, "a.b"), 0), WT_NUM, "1");
}
END_TEST

/* ------------------------------------------------------------- errors */

START_TEST(json_errors)
{
	ck_err("[1, 2,, 3]", WASP_EINPUT, 1, 7, "expected a value, found ','");
	ck_err("{\"a\": 1,\n \"b\": 2,\n}", WASP_EINPUT, 2, 8,
	       "trailing comma before '}'");
	ck_err("[1,\n 2, ]", WASP_EINPUT, 2, 3, "trailing comma before ']'");
	ck_err("{\"a\": \"abc", WASP_EINPUT, 1, 7, "unterminated string");
	ck_err("{\"a\": \"abc\n\"}", WASP_EINPUT, 1, 7, "unterminated string");
	ck_err("[\"ab\\qc\"]", WASP_EINPUT, 1, 5,
	       "invalid escape in string: backslash before 'q'");
	ck_err("[\"\\u12G4\"]", WASP_EINPUT, 1, 3, "four hex digits");
	ck_err("[1,\n 01]", WASP_EINPUT, 2, 2, "leading zeros");
	ck_err("[-01]", WASP_EINPUT, 1, 2, "leading zeros");
	ck_err("[\"x\\ud800\"]", WASP_EINPUT, 1, 4,
	       "high surrogate not followed by a low surrogate");
	ck_err("[\"\\ud800\\u0041\"]", WASP_EINPUT, 1, 3, "high surrogate");
	ck_err("[\"\\udc00\"]", WASP_EINPUT, 1, 3, "lone low surrogate");
	ck_err("[\"a\tb\"]", WASP_EINPUT, 1, 4, "control character");
	ck_err("[1.]", WASP_EINPUT, 1, 2, "after the decimal point");
	ck_err("[1e+]", WASP_EINPUT, 1, 2, "exponent");
	ck_err("[-]", WASP_EINPUT, 1, 2, "expected a digit");
	ck_err("[+1]", WASP_EINPUT, 1, 2, "expected a value, found '+'");
	ck_err("[.5]", WASP_EINPUT, 1, 2, "expected a value");
	ck_err("[NaN]", WASP_EINPUT, 1, 2, "expected a value");
	ck_err("[nul]", WASP_EINPUT, 1, 2, "invalid literal (expected null)");
	ck_err("[1 2]", WASP_EINPUT, 1, 4, "expected ',' or ']'");
	ck_err("{\"a\" 1}", WASP_EINPUT, 1, 6, "expected ':'");
	ck_err("{\"a\": 1 \"b\": 2}", WASP_EINPUT, 1, 9, "expected ',' or '}'");
	ck_err("{\"a\": 1,\n  }", WASP_EINPUT, 1, 8, "trailing comma");
	ck_err("\n  [1, [2,\n 3]", WASP_EINPUT, 2, 3, "unterminated list");
	ck_err("{\"a\": {\"b\": 1}", WASP_EINPUT, 1, 1, "unterminated object");
	ck_err("{\"a\":", WASP_EINPUT, 1, 6, "found end of input");
	ck_err("[/* c */ 1]", WASP_EINPUT, 1, 2, "expected a value, found '/'");
	ck_err("[1]\x01", WASP_EINPUT, 1, 4, "byte 0x01");
}
END_TEST

START_TEST(yaml_errors)
{
	/* unclosed flow sequence: found at the next key */
	ck_err("a: [1, 2\nb: 3\n", WASP_EINPUT, 2, 2,
	       "did not find expected ',' or ']' (while parsing a flow "
	       "sequence at line 1 col 4)");
	/* bad indentation */
	ck_err("a:\n  b: 1\n c: 2\n", WASP_EINPUT, 3, 2,
	       "did not find expected key (while parsing a block mapping at "
	       "line 1 col 1)");
	ck_err("a: 1\n  b: 2\n", WASP_EINPUT, 2, 4,
	       "mapping values are not allowed in this context");
	ck_err("a:\n  - b\n  c: d\n", WASP_EINPUT, 3, 3,
	       "did not find expected '-' indicator");
	ck_err("a: 'x\n", WASP_EINPUT, 2, 1, "found unexpected end of stream");
	ck_err("\t- a\n", WASP_EINPUT, 1, 1,
	       "found character that cannot start any token");
	ck_err("a: @b\n", WASP_EINPUT, 1, 4,
	       "found character that cannot start any token");
	/* columns of libyaml errors count bytes as well */
	ck_err("\xc3\xa9\xc3\xa9: x: y\n", WASP_EINPUT, 1, 8,
	       "mapping values are not allowed");
}
END_TEST

START_TEST(duplicate_keys)
{
	ck_err("a: 1\nb: 2\na: 3\n", WASP_EINPUT, 3, 1,
	       "duplicate key \"a\" (first at line 1 col 1)");
	ck_err("x:\n  - {k: 1, 'k': 2}\n", WASP_EINPUT, 2, 12,
	       "duplicate key \"k\" (first at line 2 col 6)");
	ck_err("{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2}}", WASP_EINPUT, 2, 16,
	       "duplicate key \"c\" (first at line 2 col 8)");
	/* keys compare by exact bytes */
	ck_assert_int_eq(load("{\"a\": 1, \"A\": 2, \"a \": 3}"), 0);
	ck_assert_int_eq(load("a: 1\nA: 2\n"), 0);
	/* escapes are decoded before comparing */
	ck_err("{\"\\u0061\": 1, \"a\": 2}", WASP_EINPUT, 1, 15,
	       "duplicate key \"a\" (first at line 1 col 2)");
	/* a big map takes the hashed path: same answer */
	char buf[4096];
	size_t o = (size_t)snprintf(buf, sizeof buf, "{");
	for (int i = 0; i < 40; i++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "\"k%d\": %d,\n",
				      i, i);
	snprintf(buf + o, sizeof buf - o, "\"k17\": 0}");
	ck_err(buf, WASP_EINPUT, 41, 1,
	       "duplicate key \"k17\" (first at line 18 col 1)");
	ck_assert_int_eq(load("a: 1\nb: 2\n---\na: 3\n"), 0); /* per map */
	/* merged keys never clash with the map's own */
	ck_assert_int_eq(load("b: &b {x: 1, y: 2}\nc: {<<: *b, x: 3}\n"), 0);
	ck_scalar(wt_path(D.roots[0], "c.x"), WT_NUM, "3");
	ck_scalar(wt_path(D.roots[0], "c.y"), WT_NUM, "2");
}
END_TEST

START_TEST(merge_keys)
{
	const wt_node *r = ok1("a: &a {x: 1, y: 1}\n"
			       "b: &b {y: 2, z: 2}\n"
			       "c:\n  <<: [*a, *b]\n  w: 0\n"
			       "d: {\"<<\": *a}\n");
	const wt_node *c = wt_get(r, "c");
	ck_assert_uint_eq(c->n, 4);
	ck_scalar(wt_get(c, "w"), WT_NUM, "0");
	ck_scalar(wt_get(c, "x"), WT_NUM, "1");
	ck_scalar(wt_get(c, "y"), WT_NUM, "1"); /* earlier source wins */
	ck_scalar(wt_get(c, "z"), WT_NUM, "2");
	ck_assert_ptr_null(wt_get(c, "<<"));
	/* a quoted "<<" is an ordinary key */
	ck_assert_ptr_eq(wt_get(wt_get(r, "d"), "<<"), wt_get(r, "a"));
	ck_err("a: 1\nb:\n  <<: 5\n", WASP_EINPUT, 3, 7,
	       "the merge key << needs a map or a list of maps, not a number");
	ck_err("a: 1\nb:\n  <<: [{x: 1}, 2]\n", WASP_EINPUT, 3, 7,
	       "needs a map or a list of maps, not a list");
	ck_err("b: {<<: {x: 1}, y: 1, y: 2}\n", WASP_EINPUT, 1, 23,
	       "duplicate key \"y\"");
}
END_TEST

/* Short scalars are shared within a load (intern.c), in YAML and JSON
 * alike: equal short keys and values point at one copy, with the right
 * text and length; long ones and different ones get their own. */
START_TEST(short_scalars_shared)
{
	static const char *const texts[] = {
	    "a: {name: x, kind: Pod, long: "
	    "\"a value longer than the limit on sharing\"}\n"
	    "b: {name: x, kind: Node, long: "
	    "\"a value longer than the limit on sharing\"}\n",
	    "{\"a\": {\"name\": \"x\", \"kind\": \"Pod\", \"long\": "
	    "\"a value longer than the limit on sharing\"},\n"
	    " \"b\": {\"name\": \"x\", \"kind\": \"Node\", \"long\": "
	    "\"a value longer than the limit on sharing\"}}\n"};
	for (size_t t = 0; t < 2; t++) {
		const wt_node *r = ok1(texts[t]);
		const wt_node *a = wt_get(r, "a"), *b = wt_get(r, "b");
		ck_assert(a && b && a->n == 3 && b->n == 3);
		for (size_t i = 0; i < 3; i++)
			ck_assert_ptr_eq(wt_key(a, i)->str, wt_key(b, i)->str);
		const wt_node *na = wt_get(a, "name"), *nb = wt_get(b, "name");
		ck_assert_ptr_eq(na->str, nb->str);
		ck_assert_str_eq(na->str, "x");
		ck_assert_uint_eq(na->len, 1);
		const wt_node *ka = wt_get(a, "kind"), *kb = wt_get(b, "kind");
		ck_assert_str_eq(ka->str, "Pod");
		ck_assert_str_eq(kb->str, "Node");
		const wt_node *la = wt_get(a, "long"), *lb = wt_get(b, "long");
		ck_assert_uint_gt(la->len, WL_INTERN_MAX);
		ck_assert_ptr_ne(la->str, lb->str);
		ck_assert_str_eq(la->str, lb->str);
	}
}
END_TEST

START_TEST(complex_keys)
{
	ck_err("? [a]\n: 1\n", WASP_EINPUT, 1, 3, "map keys must be scalars");
	ck_err("x: {[1]: 2}\n", WASP_EINPUT, 1, 5, "map keys must be scalars");
	ck_err("a: &m {x: 1}\n*m : 2\n", WASP_EINPUT, 2, 1,
	       "map keys must be scalars");
	ck_err("n: {{.Index}}\n", WASP_EINPUT, 1, 5,
	       "template placeholder");
}
END_TEST

/* ------------------------------------------------------------- limits */

/* n nested '[' then n ']' with a prefix. */
static char *nest(const char *prefix, int n)
{
	size_t pl = strlen(prefix);
	char *s = malloc(pl + 2 * (size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	memcpy(s, prefix, pl);
	memset(s + pl, '[', (size_t)n);
	memset(s + pl + n, ']', (size_t)n);
	s[pl + 2 * (size_t)n] = 0;
	return s;
}

START_TEST(depth_limit)
{
	char *s = nest("", 64); /* JSON: 64 levels load */
	ck_assert_int_eq(load(s), 0);
	free(s);
	s = nest("", 65);
	ck_err(s, WASP_ELIMIT, 1, 65, "nesting deeper than 64 levels");
	free(s);
	s = nest("a: ", 63); /* YAML: the map is level 1 */
	ck_assert_int_eq(load(s), 0);
	free(s);
	s = nest("a: ", 64);
	ck_err(s, WASP_ELIMIT, 1, 67, "nesting deeper than 64 levels");
	free(s);
	/* block nesting counts the same */
	char buf[8192];
	size_t o = 0;
	for (int i = 0; i < 65; i++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%*sk:\n", i,
				      "");
	ck_err(buf, WASP_ELIMIT, 65, 65, "nesting deeper than 64");
	/* aliases may not nest deeper than the text could */
	s = nest("a: &a ", 10);
	char *t = malloc(strlen(s) + 200);
	sprintf(t, "%s\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		   "[[[[[*a]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
		   "]]]]]\n",
		s);
	ck_err(t, WASP_ELIMIT, 2, 58, "alias *a nests deeper than 64 levels");
	free(s);
	free(t);
}
END_TEST

START_TEST(billion_laughs)
{
	char buf[1024];
	size_t o = (size_t)snprintf(buf, sizeof buf,
				    "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,"
				    "lol]\n");
	for (int i = 1; i < 9; i++) {
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%c: &%c [",
				      'a' + i, 'a' + i);
		for (int k = 0; k < 9; k++)
			o += (size_t)snprintf(buf + o, sizeof buf - o, "%s*%c",
					      k ? "," : "", 'a' + i - 1);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "]\n");
	}
	double t0 = now();
	ck_err(buf, WASP_ELIMIT, 9, 8, "aliases expanded (WASP_MAX_TREE_NODES)");
	ck_assert_msg(now() - t0 < 1.0, "took %.2f s", now() - t0);
	/* a few levels are fine, and share nodes */
	const wt_node *r = ok1("a: &a [x, y]\nb: &b [*a, *a]\nc: [*b, *b]\n");
	ck_assert_ptr_eq(item(wt_get(r, "b"), 0), wt_get(r, "a"));
	ck_assert_ptr_eq(item(wt_get(r, "c"), 1), wt_get(r, "b"));
}
END_TEST

START_TEST(alias_errors)
{
	ck_err("a: &x [1, *x]\n", WASP_EINPUT, 1, 11,
	       "alias *x refers to its own enclosing node (cycle)");
	ck_err("a: &x {b: {c: *x}}\n", WASP_EINPUT, 1, 15,
	       "alias *x refers to its own enclosing node (cycle)");
	ck_err("a: 1\nb: *nope\n", WASP_EINPUT, 2, 4, "undefined alias *nope");
	/* anchors do not cross documents */
	ck_err("a: &x 1\n---\nb: *x\n", WASP_EINPUT, 3, 4,
	       "undefined alias *x");
	/* an alias used before its anchor is undefined */
	ck_err("b: *x\na: &x 1\n", WASP_EINPUT, 1, 4, "undefined alias *x");
	/* a later anchor of the same name wins */
	const wt_node *r = ok1("a: &x 1\nb: &x 2\nc: *x\n");
	ck_scalar(wt_get(r, "c"), WT_NUM, "2");
	/* re-anchoring inside the open collection is not a cycle */
	r = ok1("a: &x [&x 1, *x]\n");
	ck_scalar(item(wt_get(r, "a"), 1), WT_NUM, "1");
}
END_TEST

START_TEST(many_anchors)
{
	/* enough anchors to grow the table twice, then a second document
	 * that reuses the names for other values */
	size_t cap = 64 * 1024, o = 0;
	char *s = malloc(cap);
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 300; i++)
		o += (size_t)snprintf(s + o, cap - o, "k%d: &a%d {v: %d}\n", i,
				      i, i);
	for (int i = 0; i < 300; i++)
		o += (size_t)snprintf(s + o, cap - o, "r%d: *a%d\n", i,
				      299 - i);
	o += (size_t)snprintf(s + o, cap - o, "---\n");
	for (int i = 0; i < 300; i += 7)
		o += (size_t)snprintf(s + o, cap - o, "n%d: &a%d x%d\nm%d: *a%d\n",
				      i, i, i, i, i);
	ck_assert_int_eq(load(s), 0);
	free(s);
	ck_assert_uint_eq(D.nroots, 2);
	for (int i = 0; i < 300; i++) {
		char k[16], r[16];
		snprintf(k, sizeof k, "k%d", 299 - i);
		snprintf(r, sizeof r, "r%d", i);
		ck_assert_ptr_eq(wt_get(D.roots[0], r),
				 wt_get(D.roots[0], k));
	}
	ck_scalar(wt_get(D.roots[1], "m14"), WT_STR, "x14");
}
END_TEST

START_TEST(deep_flow_fast)
{
	const int n = 100000;
	char *s = nest("", n);
	/* YAML: libyaml alone takes ~40 s here (quadratic) */
	int rc = wl_load_yaml(A, s, strlen(s), "deep", &D, &E);
	ck_assert_int_eq(rc, WASP_ELIMIT);
	ck_assert_int_eq(E.line, 1);
	ck_assert_int_eq(E.col, 65);
	rc = wl_load_json(A, s, strlen(s), "deep", &D, &E);
	ck_assert_int_eq(rc, WASP_ELIMIT);
	free(s);
	/* block map holding deep flow maps */
	s = malloc((size_t)n * 4 + 10);
	char *p = s;
	p += sprintf(p, "x: ");
	for (int i = 0; i < n; i++)
		p += sprintf(p, "{a: ");
	*p = 0;
	ck_assert_int_eq(load(s), WASP_ELIMIT);
	free(s);
}
END_TEST

START_TEST(invalid_utf8)
{
	/* JSON: in a string, at the bad byte */
	ck_err("{\"a\":\n  \"b\xff\"}", WASP_EINPUT, 2, 5, "invalid UTF-8");
	/* overlong, surrogate, above U+10FFFF, cut short */
	ck_err("[\"\xc0\xaf\"]", WASP_EINPUT, 1, 3, "invalid UTF-8");
	ck_err("[\"\xed\xa0\x80\"]", WASP_EINPUT, 1, 3, "invalid UTF-8");
	ck_err("[\"\xf4\x90\x80\x80\"]", WASP_EINPUT, 1, 3, "invalid UTF-8");
	ck_err("[\"\xe2\x82\"]", WASP_EINPUT, 1, 3, "invalid UTF-8");
	/* outside strings, any non-ASCII byte is a syntax error */
	ck_err("[1, \xc3\xa9]", WASP_EINPUT, 1, 5, "byte 0xC3");
	/* YAML: the reader reports a byte offset; we turn it into line:col */
	ck_err("a: 1\nb: x\xff\n", WASP_EINPUT, 2, 5,
	       "invalid leading UTF-8 octet (byte 0xFF)");
	ck_err("a: 1\r\nb: \xc3\x28\n", WASP_EINPUT, 2, 4,
	       "invalid trailing UTF-8 octet");
	ck_err("# \xc3\xa9\n\n'x\xe2\x82'\n", WASP_EINPUT, 3, 3, "UTF-8");
	ck_err("a: \x01\n", WASP_EINPUT, 1, 4,
	       "control characters are not allowed (U+0001)");
	/* a NUL byte in the middle is an error, not an end of input */
	ck_assert_int_eq(load_n("a: 1\0b: 2\n", 10), WASP_EINPUT);
	ck_assert_int_eq(E.line, 1);
	ck_assert_int_eq(E.col, 5);
	ck_assert_int_eq(load_n("[1]\0", 4), WASP_EINPUT);
}
END_TEST

START_TEST(input_limit)
{
	/* the size check comes before the text is read */
	static const char small[] = "[1]";
	int rc = wl_load_text(A, small, (size_t)WASP_MAX_INPUT_BYTES + 1, "big",
			      &D, &E);
	ck_assert_int_eq(rc, WASP_ELIMIT);
	ck_assert_ptr_nonnull(strstr(E.msg, "WASP_MAX_INPUT_BYTES"));
}
END_TEST

START_TEST(read_errors)
{
	char *text = NULL;
	size_t len = 7;
	int rc = wl_read_file("/nonexistent/dir/x.yaml", &text, &len, &E);
	ck_assert_int_eq(rc, WASP_EIO);
	ck_assert_ptr_null(text);
	ck_assert_str_eq(E.msg, "cannot open /nonexistent/dir/x.yaml: No "
				"such file or directory");
	ck_assert_int_eq(E.line, 0);
	rc = wl_read_file("/", &text, &len, &E);
	ck_assert_int_eq(rc, WASP_EIO);
	ck_assert_ptr_nonnull(strstr(E.msg, "Is a directory"));
	rc = wl_load_file(A, "/nonexistent.json", &D, &E);
	ck_assert_int_eq(rc, WASP_EIO);

	/* a round trip through a file, with no trailing newline */
	char path[] = "/tmp/check_load_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs("{\"a\": [1, 2]}", f);
	fclose(f);
	rc = wl_read_file(path, &text, &len, &E);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(len, 13);
	ck_assert_int_eq(text[13], 0);
	free(text);
	rc = wl_load_file(A, path, &D, &E);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(D.file, path);
	ck_assert_uint_eq(wt_get(D.roots[0], "a")->n, 2);
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------ corpus */

static int corpus_dir(char *buf, size_t size)
{
	const char *env = getenv("WASP_CORPUS");
	const char *src = getenv("WASP_SRCDIR");
	struct stat st;
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
	}
	snprintf(buf, size, "/work/shared/corpus/real");
	if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		return 1;
	snprintf(buf, size, "%s/../shared/corpus/real",
		 src && *src ? src : ".");
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
}

START_TEST(real_corpus)
{
	char dir[2048];
	if (!corpus_dir(dir, sizeof dir)) {
		fprintf(stderr, "check_load: no corpus directory (set "
				"WASP_CORPUS); real_corpus skipped\n");
		return;
	}
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		files++;
		wa_arena *a = wa_new();
		wt_doc doc;
		wasp_error e;
		memset(&e, 0, sizeof e);
		int rc = wl_load_file(a, path, &doc, &e);
		if (rc) {
			ck_assert_msg(rc == WASP_EINPUT && e.line > 0 &&
					  e.col > 0 && e.msg[0],
				      "%s: rc %d at %d:%d: %s", de->d_name, rc,
				      e.line, e.col, e.msg);
		} else {
			for (size_t i = 0; i < doc.nroots; i++)
				ck_assert_int_ne(doc.roots[i]->type, WT_NULL);
		}
		wa_destroy(a);
	}
	closedir(d);
	ck_assert_int_gt(files, 0);
}
END_TEST

/* -------------------------------------------------------------- main */

int main(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, tree_lookups);
	tcase_add_test(tc, json_positions);
	tcase_add_test(tc, yaml_positions);
	tcase_add_test(tc, fixture_files);
	tcase_add_test(tc, numbers_keep_text);
	tcase_add_test(tc, yaml_scalar_types);
	tcase_add_test(tc, strings_and_escapes);
	tcase_add_test(tc, yaml_multi_document);
	tcase_add_test(tc, empty_inputs);
	tcase_add_test(tc, bom);
	tcase_add_test(tc, json_concatenated);
	tcase_add_test(tc, sniffing);
	tcase_add_test(tc, json_errors);
	tcase_add_test(tc, yaml_errors);
	tcase_add_test(tc, duplicate_keys);
	tcase_add_test(tc, merge_keys);
	tcase_add_test(tc, complex_keys);
	tcase_add_test(tc, short_scalars_shared);
	tcase_add_test(tc, depth_limit);
	tcase_add_test(tc, billion_laughs);
	tcase_add_test(tc, alias_errors);
	tcase_add_test(tc, many_anchors);
	tcase_add_test(tc, deep_flow_fast);
	tcase_add_test(tc, invalid_utf8);
	tcase_add_test(tc, input_limit);
	tcase_add_test(tc, read_errors);
	tcase_add_test(tc, real_corpus);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
