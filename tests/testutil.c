/*
 * testutil.c -- helpers shared by the Check suites (see testutil.h).
 *
 * tu_solve is the gate every test plan passes: solve, then wasp_check, and
 * fail the test with the verifier's report if a single violation shows.
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"
#include "io/load.h"
#include "run/run.h"
#include "solve/greedy/greedy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fmt_err(const wasp_error *e, char *buf, size_t n)
{
	return wasp_error_format(e, buf, n);
}

wasp_snapshot *tu_load(const char *text)
{
	wasp_snapshot *s = NULL;
	wasp_error e;
	char buf[1024];
	memset(&e, 0, sizeof e);
	int rc = wasp_snapshot_from_text(&s, text, strlen(text), "test.yaml",
					 &e);
	ck_assert_msg(rc == WASP_OK, "snapshot does not load: %s",
		      fmt_err(&e, buf, sizeof buf));
	ck_assert_ptr_nonnull(s);
	return s;
}

wasp_error tu_load_fail(const char *text)
{
	wasp_snapshot *s = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	int rc = wasp_snapshot_from_text(&s, text, strlen(text), "test.yaml",
					 &e);
	if (rc == WASP_OK)
		wasp_snapshot_free(s);
	ck_assert_msg(rc != WASP_OK, "snapshot loaded but should not have");
	ck_assert_int_eq(e.code, rc);
	ck_assert_ptr_null(s);
	return e;
}

const char *tu_src_path(const char *relpath)
{
	static char buf[4096];
	const char *dir = getenv("WASP_SRCDIR");
	snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : ".", relpath);
	return buf;
}

wasp_snapshot *tu_load_file(const char *relpath)
{
	const char *path = tu_src_path(relpath);
	wasp_snapshot *s = NULL;
	wasp_error e;
	char buf[1024];
	memset(&e, 0, sizeof e);
	int rc = wasp_snapshot_load(&s, &path, 1, &e);
	ck_assert_msg(rc == WASP_OK, "%s does not load: %s", path,
		      fmt_err(&e, buf, sizeof buf));
	return s;
}

wasp_plan *tu_solve(const wasp_snapshot *s, const wasp_options *o)
{
	wasp_options def;
	if (!o) {
		wasp_options_init(&def);
		def.mode = WASP_MODE_GREEDY;
		o = &def;
	}
	wasp_plan *p = NULL;
	wasp_error e;
	char buf[1024];
	memset(&e, 0, sizeof e);
	int rc = wasp_solve(s, o, &p, &e);
	ck_assert_msg(rc == WASP_OK, "solve failed: %s",
		      fmt_err(&e, buf, sizeof buf));
	ck_assert_ptr_nonnull(p);

	size_t nv = 0;
	char *report = NULL;
	rc = wasp_check(s, p, &nv, &report, &e);
	ck_assert_msg(rc == WASP_OK, "check failed: %s",
		      fmt_err(&e, buf, sizeof buf));
	if (nv) {
		char *json = wasp_plan_render(p, WASP_FORMAT_TEXT, NULL);
		ck_assert_msg(nv == 0, "the plan has %zu violations:\n%s\n%s",
			      nv, report, json ? json : "");
	}
	wasp_free(report);
	return p;
}

wasp_plan *tu_greedy_threads_same(const wasp_gen_options *g)
{
	wasp_error e;
	char *text = wasp_gen(g, &e);
	ck_assert_msg(text != NULL, "wasp_gen: %s", e.msg);
	wasp_snapshot *s = tu_load(text);
	wasp_free(text);
	wasp_plan *pl[2];
	char *json[2];
	for (int t = 0; t < 2; t++) {
		wasp_options o;
		wasp_options_init(&o);
		o.mode = WASP_MODE_GREEDY;
		o.threads = t + 1;
		pl[t] = tu_solve(s, &o);
		json[t] = wasp_plan_render(pl[t], WASP_FORMAT_JSON, NULL);
		ck_assert_ptr_nonnull(json[t]);
	}
	ck_assert_int_eq(pl[0]->nplace, pl[1]->nplace);
	for (int i = 0; i < pl[0]->nplace; i++) {
		ck_assert_str_eq(pl[0]->place[i].pod, pl[1]->place[i].pod);
		ck_assert_str_eq(pl[0]->place[i].node, pl[1]->place[i].node);
	}
	ck_assert_int_eq(pl[0]->nwait, pl[1]->nwait);
	for (int i = 0; i < pl[0]->nwait; i++)
		ck_assert_str_eq(pl[0]->wait[i].reason, pl[1]->wait[i].reason);
	/* the texts differ only in timings: compare from the placements on */
	const char *a = strstr(json[0], "\"placements\""),
		   *b = strstr(json[1], "\"placements\"");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(a, b);
	wasp_free(json[0]);
	wasp_free(json[1]);
	wasp_plan_free(pl[1]);
	wasp_snapshot_free(s);
	return pl[0];
}

/* threads 0: the runtime default (wasp_options_init's) */
static wasp_plan *solve_on(const wasp_snapshot *s, int mode, int threads)
{
	wasp_options o;
	wasp_options_init(&o);
	o.mode = mode;
	o.threads = threads;
	return tu_solve(s, &o);
}

wasp_plan *tu_solve_mode(const wasp_snapshot *s, int mode)
{
	return solve_on(s, mode, 0);
}

wasp_plan *tu_solve_serial(const wasp_snapshot *s, int mode)
{
	return solve_on(s, mode, 1);
}

const char *tu_node_of(const wasp_plan *p, const char *ns, const char *pod)
{
	for (int i = 0; i < p->nplace; i++)
		if (!strcmp(p->place[i].ns, ns) && !strcmp(p->place[i].pod, pod))
			return p->place[i].node;
	return NULL;
}

int tu_placed_in_group(const wasp_plan *p, const char *ns, const char *group)
{
	int n = 0;
	for (int i = 0; i < p->nplace; i++)
		if (p->place[i].group && !strcmp(p->place[i].ns, ns) &&
		    !strcmp(p->place[i].group, group))
			n++;
	return n;
}

const char *tu_wait_reason(const wasp_plan *p, const char *ns,
			   const char *group)
{
	for (int i = 0; i < p->nwait; i++)
		if (!strcmp(p->wait[i].ns, ns) &&
		    !strcmp(p->wait[i].group, group))
			return p->wait[i].reason ? p->wait[i].reason : "";
	return NULL;
}

void tu_printf(tu_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->buf = realloc(b->buf, b->cap);
		ck_assert_ptr_nonnull(b->buf);
	}
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

wasp_snapshot *tu_load_buf(tu_buf *b)
{
	wasp_snapshot *s = tu_load(b->buf);
	free(b->buf);
	memset(b, 0, sizeof *b);
	return s;
}

void tu_pod_head_yaml(tu_buf *b, const char *name, const char *group,
		      const char *node, int prio)
{
	tu_printf(b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, "
		  "namespace: ml}\nspec:\n  priority: %d\n", name, prio);
	if (group)
		tu_printf(b, "  schedulingGroup: {podGroupName: %s}\n", group);
	if (node)
		tu_printf(b, "  nodeName: %s\n", node);
}

void tu_pod_yaml(tu_buf *b, const char *name, const char *group,
		 const char *node, int gpus, int prio)
{
	tu_pod_head_yaml(b, name, group, node, prio);
	tu_printf(b, "  containers:\n  - name: c\n    resources: {requests: "
		  "{cpu: \"1\", nvidia.com/gpu: \"%d\"}}\n", gpus);
}

void tu_node_yaml(tu_buf *b, const char *name, const char *labels)
{
	tu_printf(b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
		     "  name: %s\n",
		  name);
	if (labels)
		tu_printf(b, "  labels: {%s}\n", labels);
	tu_printf(b, "status:\n  allocatable: {cpu: \"64\", memory: 512Gi, "
		     "pods: \"110\", nvidia.com/gpu: \"8\"}\n");
}

void tu_nodes_yaml(tu_buf *b, int count)
{
	for (int i = 0; i < count; i++) {
		char n[16];
		snprintf(n, sizeof n, "n%d", i);
		tu_node_yaml(b, n, NULL);
	}
}

void tu_gang_min_yaml(tu_buf *b, const char *name, int size, int min,
			  int gpus, int prio, const char *key)
{
	tu_printf(b, "---\napiVersion: scheduling.k8s.io/v1beta1\n"
		     "kind: PodGroup\nmetadata: {name: %s, namespace: ml}\n"
		     "spec:\n",
		  name);
	if (prio)
		tu_printf(b, "  priority: %d\n", prio);
	tu_printf(b, "  schedulingPolicy: {gang: {minCount: %d}}\n", min);
	if (key)
		tu_printf(b, "  schedulingConstraints: {topology: [{key: "
			     "%s}]}\n",
			  key);
	for (int i = 0; i < size; i++) {
		char pod[32];
		snprintf(pod, sizeof pod, "%s-%d", name, i);
		tu_pod_yaml(b, pod, name, NULL, gpus, prio);
	}
}

void tu_group_yaml(tu_buf *b, const char *name, int min, const char *key,
		   int prio, const char *extra)
{
	tu_printf(b, "---\napiVersion: scheduling.k8s.io/v1beta1\n"
		     "kind: PodGroup\nmetadata: {name: %s, namespace: ml}\n"
		     "spec:\n  priority: %d\n",
		  name, prio);
	if (min > 0)
		tu_printf(b, "  schedulingPolicy: {gang: {minCount: %d}}\n",
			  min);
	else
		tu_printf(b, "  schedulingPolicy: {basic: {}}\n");
	if (key)
		tu_printf(b, "  schedulingConstraints: {topology: [{key: "
			     "%s}]}\n",
			  key);
	tu_printf(b, "%s", extra);
}

int tu_run(Suite *s)
{
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_ENV);
	int f = srunner_ntests_failed(r);
	srunner_free(r);
	return f ? EXIT_FAILURE : EXIT_SUCCESS;
}

void tu_sol_verified(const wasp_snapshot *s, const wp_problem *p,
		     const wp_sol *x, const wp_sol *floor, const char *label)
{
	const char *why = NULL;
	ck_assert_msg(wp_sol_feasible(p, x, &why) == 0, "%s: %s", label,
		      why);
	if (floor) {
		wp_value vx, vf;
		wp_evaluate(p, x, &vx);
		wp_evaluate(p, floor, &vf);
		ck_assert_msg(wp_value_cmp(&vx, &vf) >= 0,
			      "%s: worse than greedy", label);
	}
	size_t nv;
	char *rep = tu_sol_report(s, p, x, &nv);
	ck_assert_msg(nv == 0, "%s: verifier: %s", label, rep ? rep : "");
	wasp_free(rep);
}

char *tu_sol_report(const wasp_snapshot *s, const wp_problem *p,
		    const wp_sol *x, size_t *nv)
{
	wasp_plan *pl = NULL;
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(wpl_from_sol(p, x, &pl, &e), 0);
	char *rep = NULL;
	*nv = 9;
	ck_assert_int_eq(wasp_check(s, pl, nv, &rep, &e), 0);
	wasp_plan_free(pl);
	return rep;
}

void tu_sol_same(const wp_problem *p, const wp_sol *a, const wp_sol *b,
		 const char *label)
{
	for (int s = 0; s < p->nx; s++)
		ck_assert_msg(wp_x(a, s) == wp_x(b, s), "%s: slot %d: %d vs %d",
			      label, s, wp_x(a, s), wp_x(b, s));
	for (int g = 0; g < p->ngroups; g++)
		ck_assert_msg(a->admit[g] == b->admit[g],
			      "%s: group %d: admitted %d vs %d", label, g,
			      (int)a->admit[g], (int)b->admit[g]);
	for (int u = 0; u < p->nunits; u++)
		ck_assert_msg(a->evict[u] == b->evict[u],
			      "%s: unit %d: evicted %d vs %d", label, u,
			      (int)a->evict[u], (int)b->evict[u]);
}

char *tu_slurp(const char *path)
{
	char *text = NULL;
	size_t len;
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_msg(wl_read_file(path, &text, &len, &e) == WASP_OK,
		      "cannot read %s: %s", path, e.msg);
	return text;
}

/* tu_tool_value, and NAN as well when `need` (unless NULL) is in no line
 * of the output (cbc's "Optimal solution found"). */
static double tool_value_if(const char *cmd, const char *key,
			    const char *need)
{
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	char line[512];
	double got = NAN;
	bool seen = need == NULL;
	while (fgets(line, sizeof line, f)) {
		const char *q = strstr(line, key);
		if (q)
			got = strtod(q + strlen(key), NULL);
		if (need && strstr(line, need))
			seen = true;
	}
	pclose(f);
	return seen ? got : NAN;
}

/* Objective of cbc on the exported LP and of glpsol on models/wasp.mod
 * with the exported data; NAN when the tool is missing. */
double tu_tool_value(const char *cmd, const char *key)
{
	return tool_value_if(cmd, key, NULL);
}

bool tu_have_cbc(void)
{
	return access("/usr/bin/cbc", X_OK) == 0 ||
	       access("/usr/local/bin/cbc", X_OK) == 0;
}

bool tu_have_glpsol(void)
{
	return access("/usr/bin/glpsol", X_OK) == 0 ||
	       access("/usr/local/bin/glpsol", X_OK) == 0;
}

double tu_ext_obj(const wasp_snapshot *s, const wasp_options *o, int fmt)
{
	char path[64], cmd[1024];
	snprintf(path, sizeof path, "/tmp/wasp-pe-%d.%s", (int)getpid(),
		 fmt == WASP_EXPORT_MPS ? "mps" : "dat");
	ck_assert_int_eq(wasp_export(s, o, fmt, path, NULL), WASP_OK);
	double z;
	if (fmt == WASP_EXPORT_MPS) {
		/* maximise; only a run cbc proves optimal counts */
		snprintf(cmd, sizeof cmd, "cbc %s -max -solve 2>&1", path);
		z = tool_value_if(cmd, "Objective value:",
				  "Optimal solution found");
	} else {
		snprintf(cmd, sizeof cmd, "glpsol -m %s -d %s 2>&1",
			 tu_src_path("models/wasp.mod"), path);
		z = tu_tool_value(cmd, "wasp.mod: value =");
	}
	if (!getenv("WASP_KEEP"))
		unlink(path);
	return z;
}

void tu_ext_agree(const wasp_snapshot *s, const wasp_options *o, double obj,
		  bool cbc, int seed)
{
	if (cbc && tu_have_cbc()) {
		double want = tu_ext_obj(s, o, WASP_EXPORT_MPS);
		ck_assert_msg(fabs(want - obj) < 0.5,
			      "seed %d: cbc %.1f, wasp %.1f", seed, want, obj);
	}
	if (tu_have_glpsol()) {
		double want = tu_ext_obj(s, o, WASP_EXPORT_DAT);
		ck_assert_msg(fabs(want - obj) < 0.5,
			      "seed %d: glpsol on wasp.mod %.1f, wasp %.1f",
			      seed, want, obj);
	}
}

void tu_dump_seed(int seed, const char *yaml)
{
	const char *want = getenv("WASP_PE_DUMP");
	if (!want || seed != atoi(want))
		return;
	FILE *f = fopen("/tmp/wasp-pe-dump.yaml", "w");
	if (f) {
		fputs(yaml, f);
		fclose(f);
	}
}

/* WASP_KEEP=1 keeps the exported files (and exact_random says on which
 * seeds the ILP beats greedy, i.e. its own allocation is the plan's). */
void tu_ilp_cross_check(const wasp_snapshot *s, double obj, int seed)
{
	if (system("cbc -quit >/dev/null 2>&1") != 0 ||
	    system("glpsol --version >/dev/null 2>&1") != 0) {
		fprintf(stderr, "cbc or glpsol absent, "
				"cross-check skipped\n");
		return;
	}
	char dir[] = "/tmp/wasp-xchk-XXXXXX", lp[64], dat[64], cmd[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(lp, sizeof lp, "%s/m.lp", dir);
	snprintf(dat, sizeof dat, "%s/m.dat", dir);
	wasp_options o;
	wasp_options_init(&o);
	o.mode = WASP_MODE_ILP;
	ck_assert_int_eq(wasp_export(s, &o, WASP_EXPORT_LP, lp, NULL), WASP_OK);
	ck_assert_int_eq(wasp_export(s, &o, WASP_EXPORT_DAT, dat, NULL),
			 WASP_OK);
	snprintf(cmd, sizeof cmd, "cbc %s -solve 2>&1", lp);
	double c = tu_tool_value(cmd, "Objective value:");
	snprintf(cmd, sizeof cmd, "glpsol -m %s -d %s 2>&1",
		 tu_src_path("models/wasp.mod"), dat);
	double g = tu_tool_value(cmd, "wasp.mod: value = ");
	if (!getenv("WASP_KEEP")) {
		unlink(lp);
		unlink(dat);
		rmdir(dir);
	}
	ck_assert_msg(fabs(c - obj) < 0.5, "seed %d: cbc %.1f, wasp %.1f (%s)",
		      seed, c, obj, dir);
	ck_assert_msg(fabs(g - obj) < 0.5, "seed %d: glpsol on wasp.mod "
		      "%.1f, wasp %.1f", seed, g, obj);
}

wasp_snapshot *tu_gen_load(const wasp_gen_options *g)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	char *text = wasp_gen(g, &e);
	ck_assert_msg(text != NULL, "gen: %s", e.msg);
	wasp_snapshot *s = tu_load(text);
	wasp_free(text);
	return s;
}

void tu_inst_load(tu_inst *in, wasp_snapshot *snap)
{
	wasp_error e;
	memset(in, 0, sizeof *in);
	memset(&e, 0, sizeof e);
	in->snap = snap;
	wasp_options_init(&in->o);
	in->a = wa_new();
	ck_assert_ptr_nonnull(in->a);
	ck_assert_int_eq(wsv_problem(in->snap, &in->o, in->a, &in->p, &e), 0);
	in->greedy = wp_sol_new(in->p, in->a);
	ck_assert_int_eq(wgr_solve(in->p, &in->o, in->greedy, &e), 0);
}

void tu_inst_gen(tu_inst *in, const wasp_gen_options *g)
{
	tu_inst_load(in, tu_gen_load(g));
}

void tu_gen_args(wasp_gen_options *g, const char *args)
{
	wasp_gen_options_init(g);
	char buf[512];
	ck_assert_uint_lt(strlen(args), sizeof buf);
	strcpy(buf, args);
	char *save = NULL;
	for (char *k = strtok_r(buf, " ", &save); k;
	     k = strtok_r(NULL, " ", &save)) {
		char *v = strtok_r(NULL, " ", &save);
		ck_assert_ptr_nonnull(v);
		wasp_error e;
		memset(&e, 0, sizeof e);
		ck_assert_msg(wasp_gen_option_set(g, k, v, &e) == 0, "%s",
			      e.msg);
	}
}

void tu_inst_free(tu_inst *in)
{
	wa_destroy(in->a);
	wasp_snapshot_free(in->snap);
}
