/*
 * check_verify.c -- the independent checker catches each kind of violation.
 *
 * Plans are written by hand as JSON and read with wasp_plan_from_text, so
 * no solver is involved; the cluster is tests/fixtures/plan/cluster.yaml
 * (rack r1 lies under two blocks, which separates value and path mode).
 */
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLUSTER "tests/fixtures/plan/cluster.yaml"

/* One placement / waiting entry in namespace ml. */
#define P(pod, node) "{\"namespace\":\"ml\",\"pod\":\"" pod "\",\"node\":\"" node "\"}"
#define W(kind, name)                                                        \
	"{\"namespace\":\"ml\",\"name\":\"" name "\",\"kind\":\"" kind         \
	"\",\"pods\":1,\"priority\":0,\"reason\":\"test\"}"

/* The correct plan: train on n2, job's two pending pods on n3, the
 * selector pod on the ssd node, the lone pod on the unlabelled node. */
#define GOOD                                                                 \
	P("train-0", "n2") "," P("train-1", "n2") "," P("train-2", "n2") ","     \
	P("train-3", "n2") "," P("job-1", "n3") "," P("job-2", "n3") ","         \
	P("sel-0", "n1") "," P("lone-0", "n5")

static wasp_plan *plan_json(const char *dmode, const char *places,
			    const char *waits)
{
	char *text = NULL;
	size_t n = (size_t)snprintf(NULL, 0, "x%s%s%s", dmode, places, waits) +
		   256;
	text = malloc(n);
	ck_assert_ptr_nonnull(text);
	snprintf(text, n,
		 "{\"apiVersion\":\"wasp.dev/v1alpha1\",\"kind\":\"Plan\","
		 "\"summary\":{\"domainMode\":\"%s\"},"
		 "\"placements\":[%s],\"waiting\":[%s]}",
		 dmode, places, waits);
	wasp_plan *p = NULL;
	wasp_error e;
	char buf[1024];
	int rc = wasp_plan_from_text(&p, text, strlen(text), "plan.json", &e);
	ck_assert_msg(rc == WASP_OK, "plan does not load: %s",
		      wasp_error_format(&e, buf, sizeof buf));
	free(text);
	return p;
}

/* Check a plan against the fixture; returns the violation count and
 * leaves the report in *report (free with wasp_free). */
static size_t check(const char *dmode, const char *places, const char *waits,
		    char **report)
{
	wasp_snapshot *s = tu_load_file(CLUSTER);
	wasp_plan *p = plan_json(dmode, places, waits);
	size_t nv = 99;
	wasp_error e;
	ck_assert_int_eq(wasp_check(s, p, &nv, report, &e), WASP_OK);
	ck_assert_ptr_nonnull(*report);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
	return nv;
}

#define EXPECT(nv, rep, want)                                                \
	do {                                                                 \
		ck_assert_msg((nv) == 1, "expected 1 violation, got %zu:\n%s", \
			      (nv), (rep));                                  \
		ck_assert_str_eq((rep), want "\n");                          \
	} while (0)

START_TEST(accepts_correct_plan)
{
	char *r;
	size_t nv = check("value", GOOD, "", &r);
	ck_assert_msg(nv == 0, "%s", r);
	ck_assert_str_eq(r, "");
	wasp_free(r);
	nv = check("path", GOOD, W("Pod", "ghost-free") "", &r);
	/* a waiting entry naming no pod is itself a violation */
	EXPECT(nv, r, "waiting pod ml/ghost-free: no such pod in the snapshot");
	wasp_free(r);
	nv = check("path", GOOD, "", &r);
	ck_assert_msg(nv == 0, "%s", r);
	wasp_free(r);
}
END_TEST

START_TEST(over_capacity)
{
	char *r;
	size_t nv = check("value",
			  P("train-0", "n1") "," P("train-1", "n1") ","
			  P("train-2", "n1") "," P("train-3", "n1"),
			  "", &r);
	EXPECT(nv, r, "node n1: nvidia.com/gpu over allocatable: 14 > 8 "
		      "(bound 6 + placed 8)");
	wasp_free(r);
}
END_TEST

START_TEST(untolerated_taint)
{
	char *r;
	size_t nv = check("value", P("lone-0", "n4"), "", &r);
	ck_assert_msg(nv == 1, "%s", r);
	ck_assert_msg(!strncmp(r, "pod ml/lone-0 on node n4: ", 26), "%s", r);
	ck_assert_msg(strstr(r, "taint") != NULL, "%s", r);
	wasp_free(r);
}
END_TEST

START_TEST(selector_mismatch)
{
	char *r;
	size_t nv = check("value", P("sel-0", "n2"), "", &r);
	ck_assert_msg(nv == 1, "%s", r);
	ck_assert_msg(!strncmp(r, "pod ml/sel-0 on node n2: ", 25), "%s", r);
	wasp_free(r);
	/* and on the ssd node it is fine */
	nv = check("value", P("sel-0", "n1"), "", &r);
	ck_assert_msg(nv == 0, "%s", r);
	wasp_free(r);
}
END_TEST

START_TEST(gang_counts_running_pods)
{
	char *r;
	/* job: minCount 3, job-0 already runs on n2 */
	size_t nv = check("value", P("job-1", "n3"), "", &r);
	EXPECT(nv, r, "gang ml/job: 1 pods placed + 1 running < minCount 3");
	wasp_free(r);
	nv = check("value", P("job-1", "n3") "," P("job-2", "n1"), "", &r);
	ck_assert_msg(nv == 0, "%s", r);
	wasp_free(r);
	/* train: minCount 4, nothing running */
	nv = check("value",
		   P("train-0", "n2") "," P("train-1", "n2") ","
		   P("train-2", "n2"),
		   "", &r);
	EXPECT(nv, r, "gang ml/train: 3 pods placed + 0 running < minCount 4");
	wasp_free(r);
}
END_TEST

START_TEST(topology_value_and_path)
{
	char *r;
	/* n2 is b1/r1, n3 is b2/r1: one domain by value, two by path */
	const char *split = P("train-0", "n2") "," P("train-1", "n2") ","
			    P("train-2", "n3") "," P("train-3", "n3");
	size_t nv = check("value", split, "", &r);
	ck_assert_msg(nv == 0, "%s", r);
	wasp_free(r);
	nv = check("path", split, "", &r);
	EXPECT(nv, r, "group ml/train: pods span more than one "
		      "example.com/rack domain: b1/r1 (node n2) and b2/r1 "
		      "(node n3, pod train-2)");
	wasp_free(r);
	/* two racks: a violation in both modes */
	const char *racks = P("train-0", "n2") "," P("train-1", "n2") ","
			    P("train-2", "n6") "," P("train-3", "n6");
	nv = check("value", racks, "", &r);
	EXPECT(nv, r, "group ml/train: pods span more than one "
		      "example.com/rack domain: r1 (node n2) and r2 (node n6, "
		      "pod train-2)");
	wasp_free(r);
	nv = check("path", racks, "", &r);
	ck_assert_msg(nv == 1, "%s", r);
	wasp_free(r);
	/* a node without the label */
	nv = check("value",
		   P("train-0", "n2") "," P("train-1", "n2") ","
		   P("train-2", "n2") "," P("train-3", "n5"),
		   "", &r);
	EXPECT(nv, r, "group ml/train: pod train-3 on node n5, which lacks "
		      "topology label example.com/rack");
	wasp_free(r);
}
END_TEST

START_TEST(unknown_pod_and_node)
{
	char *r;
	size_t nv = check("value", P("ghost", "n1") "," P("lone-0", "n9"), "",
			  &r);
	ck_assert_msg(nv == 2, "%s", r);
	ck_assert_str_eq(r, "pod ml/ghost: no such pod in the snapshot\n"
			    "pod ml/lone-0: placed on node n9, which is not in "
			    "the snapshot\n");
	wasp_free(r);
}
END_TEST

START_TEST(double_placement_and_bound_pod)
{
	char *r;
	size_t nv = check("value", P("lone-0", "n5") "," P("lone-0", "n2"), "",
			  &r);
	EXPECT(nv, r, "pod ml/lone-0: placed twice (on n5 and on n2)");
	wasp_free(r);
	nv = check("value", P("job-0", "n3"), "", &r);
	EXPECT(nv, r, "pod ml/job-0: placed on n3 but already bound to n2");
	wasp_free(r);
}
END_TEST

START_TEST(waiting_and_placed)
{
	char *r;
	size_t nv = check("value", GOOD, W("PodGroup", "train"), &r);
	EXPECT(nv, r, "group ml/train: listed as waiting but 4 of its pods "
		      "are placed");
	wasp_free(r);
	nv = check("value", GOOD, W("Pod", "lone-0"), &r);
	EXPECT(nv, r, "pod ml/lone-0: listed as waiting but placed on n5");
	wasp_free(r);
	nv = check("value", "", W("PodGroup", "nope"), &r);
	EXPECT(nv, r, "waiting group ml/nope: no such PodGroup in the snapshot");
	wasp_free(r);
	nv = check("value", "", W("PodGroup", "train") "," W("PodGroup", "train"),
		   &r);
	EXPECT(nv, r, "group ml/train: listed as waiting twice");
	wasp_free(r);
	/* waiting but not placed: fine */
	nv = check("value", "", W("PodGroup", "train") "," W("Pod", "lone-0"),
		   &r);
	ck_assert_msg(nv == 0, "%s", r);
	wasp_free(r);
}
END_TEST

START_TEST(several_violations_in_order)
{
	char *r;
	size_t nv = check("value",
			  P("train-0", "n1") "," P("train-1", "n1") ","
			  P("train-2", "n1") "," P("lone-0", "n4"),
			  "", &r);
	ck_assert_msg(nv == 3, "%s", r);
	/* placements first, then capacity, then groups */
	const char *a = strstr(r, "pod ml/lone-0 on node n4");
	const char *b = strstr(r, "node n1: nvidia.com/gpu over allocatable: "
				  "12 > 8 (bound 6 + placed 6)");
	const char *c = strstr(r, "gang ml/train: 3 pods placed + 0 running "
				  "< minCount 4");
	ck_assert_msg(a && b && c && a < b && b < c, "%s", r);
	wasp_free(r);
}
END_TEST

START_TEST(api_arguments)
{
	wasp_snapshot *s = tu_load_file(CLUSTER);
	wasp_plan *p = plan_json("value", GOOD, "");
	size_t nv = 7;
	wasp_error e;
	ck_assert_int_eq(wasp_check(NULL, p, &nv, NULL, &e), WASP_EINVAL);
	ck_assert_int_eq(e.code, WASP_EINVAL);
	ck_assert_int_eq(wasp_check(s, NULL, &nv, NULL, &e), WASP_EINVAL);
	ck_assert_int_eq(wasp_check(s, p, NULL, NULL, &e), WASP_EINVAL);
	/* the report is optional */
	ck_assert_int_eq(wasp_check(s, p, &nv, NULL, &e), WASP_OK);
	ck_assert_uint_eq(nv, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* A plan from the solver passes, in both domain modes. */
START_TEST(solved_plans_verify)
{
	wasp_snapshot *s = tu_load_file(CLUSTER);
	for (int dm = 0; dm < 2; dm++) {
		wasp_options o;
		wasp_options_init(&o);
		o.mode = WASP_MODE_GREEDY;
		o.domain_mode = dm;
		wasp_plan *p = tu_solve(s, &o);
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "train"), 4);
		ck_assert_int_eq(tu_placed_in_group(p, "ml", "job"), 2);
		ck_assert_str_eq(tu_node_of(p, "ml", "sel-0"), "n1");
		ck_assert_ptr_nonnull(tu_node_of(p, "ml", "lone-0"));
		ck_assert_ptr_null(tu_wait_reason(p, "ml", "train"));
		wasp_plan_stats st;
		wasp_plan_stats_get(p, &st);
		ck_assert_uint_eq(st.placed_pods, 8);
		ck_assert_uint_eq(st.admitted_groups, 2);
		ck_assert_uint_eq(st.waiting_groups, 0);
		ck_assert_str_eq(st.status, "greedy");
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
}
END_TEST


/* The summary of a solve: mode choice in words, status, counts, usage. */
START_TEST(solve_summary)
{
	wasp_snapshot *s = tu_load_file(CLUSTER);
	wasp_snapshot_stats ss;
	wasp_snapshot_stats_get(s, &ss);
	ck_assert_uint_eq(ss.nodes, 6);
	ck_assert_uint_eq(ss.pods, 10);
	ck_assert_uint_eq(ss.pods_pending, 8);
	ck_assert_uint_eq(ss.pods_bound, 2);
	ck_assert_uint_eq(ss.groups, 2);

	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_str_eq(p->sum.mode, "greedy");
	ck_assert_str_eq(p->sum.mode_reason, "greedy: requested");
	ck_assert_str_eq(p->sum.status, "greedy");
	ck_assert(isnan(p->sum.objective) && isnan(p->sum.gap));
	ck_assert_int_eq(p->sum.placed_pods, 8);
	ck_assert_int_eq(p->sum.tiers.nprio, 1);
	ck_assert_double_eq(p->sum.tiers.work[0], 8);
	/* n1 (run-1), n2 (job-0) are busy; n3..n6 free before */
	ck_assert_int_eq(p->sum.free_nodes_before, 4);
	/* utilisation over schedulable nodes (all six), in units */
	int gpu = -1;
	for (int i = 0; i < p->sum.nutil; i++)
		if (!strcmp(p->sum.util[i].resource, "nvidia.com/gpu"))
			gpu = i;
	ck_assert_int_ge(gpu, 0);
	ck_assert_double_eq(p->sum.util[gpu].alloc, 48);
	ck_assert_double_eq(p->sum.util[gpu].before, 6);
	ck_assert_double_eq(p->sum.util[gpu].after, 14);
	/* the rack/block warning of the topology reaches the plan */
	bool nest = false;
	for (int i = 0; i < p->nwarnings; i++)
		nest |= strstr(p->warnings[i], "do not nest") != NULL;
	ck_assert(nest);
	/* where the gang went */
	ck_assert_int_eq(p->nadmit, 2);
	ck_assert_str_eq(p->admit[1].group, "train");
	ck_assert_str_eq(p->admit[1].key, "example.com/rack");
	ck_assert_ptr_nonnull(p->admit[1].domain);
	ck_assert_int_eq(p->admit[0].running, 1);
	wasp_plan_free(p);

	p = tu_solve_mode(s, WASP_MODE_AUTO);
	ck_assert_msg(!strncmp(p->sum.mode_reason, "auto: model has ", 16),
		      "%s", p->sum.mode_reason);
	ck_assert_int_eq(p->sum.placed_pods, 8);
	if (!strcmp(p->sum.mode, "ilp")) {
		ck_assert_str_eq(p->sum.status, "optimal");
		ck_assert(!isnan(p->sum.objective));
		ck_assert_int_gt(p->sum.cols, 0);
	}
	wasp_plan_free(p);

	/* too little time left: greedy only, and it says why */
	wasp_options o;
	wasp_options_init(&o);
	o.time_limit_s = 0.2;
	o.start_time = wasp_now();
	p = tu_solve(s, &o);
	ck_assert_str_eq(p->sum.mode, "greedy");
	/* (on a machine too loaded to reach greedy within 0.2 s, greedy
	 * itself stops at the limit, and says that instead) */
	ck_assert_msg(strstr(p->sum.mode_reason, "left after greedy; greedy "
						 "only") ||
			  strstr(p->sum.mode_reason, "the time limit was "
						     "reached in greedy"),
		      "%s", p->sum.mode_reason);
	wasp_plan_free(p);

	/* the tier-1 unit */
	wasp_options_init(&o);
	o.mode = WASP_MODE_GREEDY;
	o.value_resource = "nvidia.com/gpu";
	p = tu_solve(s, &o);
	ck_assert_str_eq(p->sum.value, "nvidia.com/gpu");
	ck_assert_double_eq(p->sum.tiers.work[0], 8);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

START_TEST(solve_cancel_and_options)
{
	wasp_snapshot *s = tu_load_file(CLUSTER);
	wasp_options o;
	wasp_options_init(&o);
	ck_assert_int_eq(o.mode, WASP_MODE_AUTO);
	ck_assert_int_eq(o.domain_mode, WASP_DOMAIN_VALUE);
	ck_assert(o.time_limit_s == WASP_DEFAULT_TIME_LIMIT_S && o.gap == 0 &&
		  !o.cancel);
	/* cancelled before the solve: still a (valid, empty) plan, every
	 * group waiting with the reason */
	int stop = 1;
	o.cancel = &stop;
	wasp_plan *p = tu_solve(s, &o);
	ck_assert_int_eq(p->nplace, 0);
	ck_assert_int_gt(p->nwait, 0);
	ck_assert_ptr_nonnull(strstr(p->wait[0].reason, "cancelled"));
	wasp_plan_free(p);
	wasp_error e;
	wasp_options_init(&o);
	o.mode = 9;
	ck_assert_int_eq(wasp_solve(s, &o, &p, &e), WASP_EINVAL);
	wasp_options_init(&o);
	o.domain_mode = 2;
	ck_assert_int_eq(wasp_solve(s, &o, &p, &e), WASP_EINVAL);
	ck_assert_int_eq(wasp_solve(NULL, &o, &p, &e), WASP_EINVAL);
	ck_assert_int_eq(wasp_solve(s, &o, NULL, &e), WASP_EINVAL);
	/* the benchmark baselines go through the same call */
	wasp_options_init(&o);
	o.mode = WASP_MODE_BESTFIT;
	p = tu_solve(s, &o);
	ck_assert_str_eq(p->sum.mode, "bestfit");
	ck_assert_str_eq(p->sum.status, "baseline");
	wasp_plan_free(p);
	o.mode = WASP_MODE_PODWISE;
	ck_assert_int_eq(wasp_solve(s, &o, &p, &e), WASP_OK);
	ck_assert_str_eq(p->sum.mode, "podwise");
	wasp_plan_free(p);
	/* NULL options: the defaults; the plan passes the verifier (the
	 * podwise one above breaks gangs by design) */
	ck_assert_int_eq(wasp_solve(s, NULL, &p, &e), WASP_OK);
	size_t nv = 1;
	ck_assert_int_eq(wasp_check(s, p, &nv, NULL, &e), WASP_OK);
	ck_assert_uint_eq(nv, 0);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Waiting entries: a gang that cannot fit (PodGroup) and a lone pod that
 * cannot fit (Pod), each with a reason; the small pod is placed. */
static const char *tight =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: '8', pods: '10', nvidia.com/gpu: '4'}}\n"
    "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
    "metadata: {name: big, namespace: ml}\n"
    "spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 100}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big-0, namespace: ml}\n"
    "spec: {priority: 100, schedulingGroup: {podGroupName: big}, containers: "
    "[{name: c, resources: {requests: {nvidia.com/gpu: '4'}}}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big-1, namespace: ml}\n"
    "spec: {priority: 100, schedulingGroup: {podGroupName: big}, containers: "
    "[{name: c, resources: {requests: {nvidia.com/gpu: '4'}}}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: huge, namespace: web}\n"
    "spec: {containers: [{name: c, resources: {requests: {nvidia.com/gpu: "
    "'16'}}}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: small, namespace: web}\n"
    "spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n";

START_TEST(solve_waiting)
{
	wasp_snapshot *s = tu_load(tight);
	for (int m = WASP_MODE_AUTO; m <= WASP_MODE_ILP; m++) {
		wasp_plan *p = tu_solve_mode(s, m);
		ck_assert_int_eq(p->nwait, 2);
		/* priority first */
		ck_assert_str_eq(p->wait[0].group, "big");
		ck_assert_str_eq(p->wait[0].kind, "PodGroup");
		ck_assert_int_eq(p->wait[0].pods, 2);
		ck_assert_int_eq(p->wait[0].priority, 100);
		ck_assert_str_eq(p->wait[1].ns, "web");
		ck_assert_str_eq(p->wait[1].group, "huge");
		ck_assert_str_eq(p->wait[1].kind, "Pod");
		ck_assert_int_eq(p->wait[1].pods, 1);
		ck_assert(p->wait[0].reason && *p->wait[0].reason);
		ck_assert(p->wait[1].reason && *p->wait[1].reason);
		ck_assert_str_eq(tu_node_of(p, "web", "small"), "n1");
		ck_assert_int_eq(p->sum.waiting_groups, 2);
		ck_assert_int_eq(p->sum.admitted_groups, 0);
		ck_assert_int_eq(p->sum.free_nodes_before, 1);
		ck_assert_int_eq(p->sum.free_nodes_after, 0);
		char *t = wasp_plan_render(p, WASP_FORMAT_TEXT, NULL);
		ck_assert_msg(strstr(t, p->wait[0].reason), "%s", t);
		wasp_free(t);
		wasp_plan_free(p);
	}
	wasp_snapshot_free(s);
}
END_TEST

/* One snapshot, several threads solving and checking at once: the same
 * placements as a solve on its own. */
struct job {
	const wasp_snapshot *s;
	int mode;
	wasp_plan *p;
	size_t nviol;
	int rc;
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	wasp_options o;
	wasp_options_init(&o);
	o.mode = j->mode;
	o.threads = 1;
	j->rc = wasp_solve(j->s, &o, &j->p, NULL);
	if (!j->rc)
		j->rc = wasp_check(j->s, j->p, &j->nviol, NULL, NULL);
	return NULL;
}

START_TEST(concurrent_solves)
{
	wasp_snapshot *s = tu_load_file(CLUSTER);
	wasp_plan *ref[3];
	for (int m = 0; m < 3; m++)
		ref[m] = tu_solve_mode(s, m);
	struct job jobs[6];
	pthread_t th[6];
	for (int i = 0; i < 6; i++) {
		jobs[i] = (struct job){.s = s, .mode = i % 3};
		ck_assert_int_eq(pthread_create(&th[i], NULL, run_job, &jobs[i]),
				 0);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(jobs[i].rc, WASP_OK);
		ck_assert_uint_eq(jobs[i].nviol, 0);
		const wasp_plan *a = jobs[i].p, *b = ref[i % 3];
		ck_assert_int_eq(a->nplace, b->nplace);
		for (int k = 0; k < a->nplace; k++) {
			ck_assert_str_eq(a->place[k].pod, b->place[k].pod);
			ck_assert_str_eq(a->place[k].node, b->place[k].node);
		}
		wasp_plan_free(jobs[i].p);
	}
	for (int m = 0; m < 3; m++)
		wasp_plan_free(ref[m]);
	wasp_snapshot_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, accepts_correct_plan);
	tcase_add_test(tc, over_capacity);
	tcase_add_test(tc, untolerated_taint);
	tcase_add_test(tc, selector_mismatch);
	tcase_add_test(tc, gang_counts_running_pods);
	tcase_add_test(tc, topology_value_and_path);
	tcase_add_test(tc, unknown_pod_and_node);
	tcase_add_test(tc, double_placement_and_bound_pod);
	tcase_add_test(tc, waiting_and_placed);
	tcase_add_test(tc, several_violations_in_order);
	tcase_add_test(tc, api_arguments);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("solved");
	tcase_add_test(te, solved_plans_verify);
	tcase_add_test(te, solve_summary);
	tcase_add_test(te, solve_cancel_and_options);
	tcase_add_test(te, solve_waiting);
	tcase_add_test(te, concurrent_solves);
	suite_add_tcase(s, te);
	return tu_run(s);
}
