/* A scheduler plugin's life: a snapshot, an arriving gang, one placement,
 * assume, forget.  doc/library.md, "Scheduler plugins". */
#include <stdio.h>
#include <string.h>
#include <wasp.h>

static const char cluster[] =
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
    "  labels: {example.com/rack: r1}\n"
    "status: {allocatable: {cpu: \"64\", pods: \"110\", nvidia.com/gpu: \"8\"}}\n"
    "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n"
    "  labels: {example.com/rack: r1}\n"
    "status: {allocatable: {cpu: \"64\", pods: \"110\", nvidia.com/gpu: \"8\"}}\n";

/* What the informers saw arrive: a gang of two pods in one rack. */
static const char arriving[] =
    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
    "metadata: {name: train, namespace: ml}\n"
    "spec:\n  schedulingPolicy: {gang: {minCount: 2}}\n"
    "  schedulingConstraints: {topology: [{key: example.com/rack}]}\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: train-0, namespace: ml}\n"
    "spec:\n  schedulingGroup: {podGroupName: train}\n"
    "  containers: [{name: c, resources: {requests: {nvidia.com/gpu: \"6\"}}}]\n"
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: train-1, namespace: ml}\n"
    "spec:\n  schedulingGroup: {podGroupName: train}\n"
    "  containers: [{name: c, resources: {requests: {nvidia.com/gpu: \"6\"}}}]\n";

static int fail(const char *what, const wasp_error *err)
{
	char msg[1024];
	fprintf(stderr, "%s: %s\n", what, wasp_error_format(err, msg, sizeof msg));
	return 1;
}

int main(void)
{
	wasp_error err;
	wasp_snapshot *s0 = NULL, *s1 = NULL, *s2 = NULL, *s3 = NULL;
	wasp_delta *d = NULL;
	wasp_plan *p = NULL;
	int rc = 1;

	if (wasp_snapshot_from_text(&s0, cluster, strlen(cluster), "cluster",
				    &err))
		return fail("load", &err);
	/* a new version with the arrivals; s0 stays valid for other threads */
	if (wasp_delta_new(&d, &err) ||
	    wasp_delta_put(d, arriving, strlen(arriving), "watch", &err) ||
	    wasp_snapshot_apply(s0, d, &s1, &err)) {
		rc = fail("delta", &err);
		goto out;
	}

	wasp_options o;
	wasp_options_init(&o);
	o.work_limit = 100; /* reproducible: count passes, not seconds */
	if (wasp_place(s1, WASP_GROUP_PODGROUP, "ml", "train", &o, 50, &p,
		       &err)) {
		rc = fail("place", &err);
		goto out;
	}
	size_t nviol = 1;
	if (wasp_check(s1, p, &nviol, NULL, &err) || nviol) {
		fprintf(stderr, "the plan does not verify\n");
		goto out;
	}
	wasp_group_result g;
	wasp_plan_group_get(p, 0, &g);
	if (!g.admitted) {
		printf("%s/%s waits: %s\n", g.ns, g.name, g.reason);
		goto out;
	}
	for (size_t i = 0; i < wasp_plan_placement_count(p); i++) {
		wasp_placement x;
		wasp_plan_placement_get(p, i, &x);
		printf("bind %s/%s to %s\n", x.ns, x.pod, x.node);
	}
	/* the binds are on their way: later calls see them as bound */
	if (wasp_snapshot_assume(s1, p, &s2, &err)) {
		rc = fail("assume", &err);
		goto out;
	}
	/* a bind failed: drop the assumption */
	if (wasp_snapshot_forget(s2, WASP_GROUP_PODGROUP, "ml", "train", &s3,
				 &err)) {
		rc = fail("forget", &err);
		goto out;
	}
	rc = 0;
out:
	wasp_plan_free(p);
	wasp_delta_free(d);
	wasp_snapshot_free(s3);
	wasp_snapshot_free(s2);
	wasp_snapshot_free(s1);
	wasp_snapshot_free(s0);
	return rc;
}
