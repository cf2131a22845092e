/*
 * fuzz_load.c -- fuzz driver for the loaders (load.c, load_yaml.c,
 * load_json.c).
 *
 * Built by `make check` as a plain program: it loads each file named on the
 * command line (or standard input) and exits 0 unless something crashed or
 * broke an invariant, so it can replay a crash file or a corpus.  Built with
 * -DWASP_LIBFUZZER it is a libFuzzer target instead; -DWASP_FUZZ_JSON or
 * -DWASP_FUZZ_YAML aims it at one syntax rather than at the sniffing entry
 * point.  tests/fixtures/load/README says how to run it.
 *
 * Invariants checked (abort() on violation, which the fuzzer reports):
 * errors carry a code and a message, input errors a position; trees have
 * positions on every node, NUL-terminated scalars, string keys that are
 * unique per map, and no more than WASP_MAX_DEPTH levels of collections.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/load.h"

#if defined(WASP_FUZZ_JSON)
#define LOAD wl_load_json
#elif defined(WASP_FUZZ_YAML)
#define LOAD wl_load_yaml
#else
#define LOAD wl_load_text
#endif

/* Node visits per input: aliases may share subtrees, so a full walk of a
 * legal input can be large; the loader's own budget is what is tested. */
#define VISIT_BUDGET 200000

#define ENSURE(c)                                                        \
	do {                                                             \
		if (!(c)) {                                              \
			fprintf(stderr, "fuzz_load: invariant failed: %s " \
					"(%s:%d)\n", #c, __FILE__, __LINE__); \
			abort();                                         \
		}                                                        \
	} while (0)

static void walk(const wt_node *n, int depth, long *budget)
{
	if (--*budget < 0)
		return;
	ENSURE(n);
	ENSURE(n->src.line >= 1 && n->src.col >= 1);
	switch (n->type) {
	case WT_NULL:
	case WT_BOOL:
	case WT_NUM:
	case WT_STR:
		ENSURE(n->type == WT_NULL || n->str);
		if (n->str)
			ENSURE(n->str[n->len] == 0);
		break;
	case WT_SEQ:
	case WT_MAP: {
		ENSURE(depth < WASP_MAX_DEPTH);
		size_t k = n->type == WT_MAP ? 2 * n->n : n->n;
		ENSURE(k == 0 || n->items);
		for (size_t i = 0; i < k; i++) {
			if (n->type == WT_MAP && i % 2 == 0) {
				const wt_node *key = n->items[i];
				ENSURE(key && key->type == WT_STR && key->str);
				/* unique keys: the first match is this one */
				if (n->n <= 64 && !memchr(key->str, 0, key->len))
					ENSURE(wt_get(n, key->str) ==
					       n->items[i + 1]);
			}
			walk(n->items[i], depth + 1, budget);
		}
		break;
	}
	default:
		ENSURE(!"bad node type");
	}
}

static void one(const uint8_t *data, size_t size)
{
	wa_arena *a = wa_new();
	if (!a)
		return;
	wt_doc d;
	wasp_error e;
	int rc = LOAD(a, (const char *)data, size, "fuzz", &d, &e);
	if (rc) {
		ENSURE(e.code == rc && e.msg[0]);
		if (rc == WASP_EINPUT)
			ENSURE(e.line >= 1 && e.col >= 1 && e.file[0]);
	} else {
		long budget = VISIT_BUDGET;
		ENSURE(d.file && (d.nroots == 0 || d.roots));
		for (size_t i = 0; i < d.nroots; i++) {
			ENSURE(d.roots[i]->type != WT_NULL);
			walk(d.roots[i], 0, &budget);
		}
	}
	wa_destroy(a);
}

#define FUZZ_NAME "fuzz_load"
#include "fuzz_main.h"
