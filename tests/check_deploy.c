/*
 * check_deploy.c -- the manifests in deploy/ and the Dockerfile, read with
 * wasp's own YAML loader (doc/deploy.md): the RBAC is least privilege (the
 * read role only gets and lists exactly what `wasp snapshot` captures, the
 * apply role only creates evictions and patches pods), the CronJob runs
 * the loop as non-root with the options ConfigMap and memory from the
 * bench figures, and preemption is off by default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "io/load.h"
#include "testutil.h"

static wa_arena *ar;

static void setup(void) { ar = wa_new(); }
static void teardown(void) { wa_destroy(ar); }

/* The object of kind/name in deploy/FILE (fails the test if absent). */
static const wt_node *object(const char *file, const char *kind,
			     const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "deploy/%s", file);
	wt_doc doc;
	wasp_error e;
	ck_assert_msg(wl_load_file(ar, tu_src_path(rel), &doc, &e) == WASP_OK,
		      "%s: %s", rel, e.msg);
	for (size_t i = 0; i < doc.nroots; i++) {
		const wt_node *k = wt_get(doc.roots[i], "kind");
		const wt_node *n = wt_path(doc.roots[i], "metadata.name");
		if (k && n && !strcmp(k->str, kind) && !strcmp(n->str, name))
			return doc.roots[i];
	}
	ck_abort_msg("%s: no %s %s", rel, kind, name);
	return NULL;
}

static const char *str(const wt_node *m, const char *path)
{
	const wt_node *v = wt_path(m, path);
	ck_assert_msg(v && (v->type == WT_STR || v->type == WT_NUM ||
			    v->type == WT_BOOL),
		      "no scalar at %s", path);
	return v->str;
}

static bool seq_has(const wt_node *seq, const char *s)
{
	for (size_t i = 0; seq && i < seq->n; i++)
		if (!strcmp(seq->items[i]->str, s))
			return true;
	return false;
}

/* Every (group, resource) a ClusterRole grants, with its verbs. */
static int grants(const wt_node *role, const char *group, const char *res,
		  const char *verb)
{
	const wt_node *rules = wt_get(role, "rules");
	int n = 0;
	for (size_t i = 0; rules && i < rules->n; i++) {
		const wt_node *r = rules->items[i];
		if (seq_has(wt_get(r, "apiGroups"), group) &&
		    seq_has(wt_get(r, "resources"), res) &&
		    seq_has(wt_get(r, "verbs"), verb))
			n++;
	}
	return n;
}

/* The kinds `wasp snapshot` reads (src/cli/snapshot.c, doc/snapshot.md). */
static const char *const read_kinds[][2] = {
    {"", "nodes"}, {"", "pods"},
    {"scheduling.k8s.io", "priorityclasses"},
    {"scheduling.k8s.io", "podgroups"},
    {"scheduling.k8s.io", "workloads"},
    {"scheduling.k8s.io", "compositepodgroups"},
    {"scheduling.x-k8s.io", "podgroups"},
    {"scheduling.volcano.sh", "podgroups"},
    {"kueue.x-k8s.io", "topologies"},
    {"policy", "poddisruptionbudgets"},
    {"resource.k8s.io", "resourceslices"},
    {"resource.k8s.io", "deviceclasses"},
    {"resource.k8s.io", "resourceclaims"},
    {"resource.k8s.io", "resourceclaimtemplates"}};

START_TEST(test_read_role)
{
	const wt_node *r = object("rbac-read.yaml", "ClusterRole", "wasp-read");
	for (size_t i = 0; i < sizeof read_kinds / sizeof *read_kinds; i++) {
		ck_assert_msg(grants(r, read_kinds[i][0], read_kinds[i][1],
				     "list") == 1, "list %s", read_kinds[i][1]);
		ck_assert_int_eq(grants(r, read_kinds[i][0], read_kinds[i][1],
					"get"), 1);
	}
	/* nothing but get and list, no wildcards */
	const wt_node *rules = wt_get(r, "rules");
	for (size_t i = 0; i < rules->n; i++) {
		const wt_node *v = wt_get(rules->items[i], "verbs");
		for (size_t k = 0; k < v->n; k++)
			ck_assert_msg(!strcmp(v->items[k]->str, "get") ||
					  !strcmp(v->items[k]->str, "list"),
				      "verb %s", v->items[k]->str);
		const wt_node *rs = wt_get(rules->items[i], "resources");
		ck_assert(!seq_has(rs, "*"));
		ck_assert(!seq_has(wt_get(rules->items[i], "apiGroups"), "*"));
	}
	const wt_node *b = object("rbac-read.yaml", "ClusterRoleBinding",
				  "wasp-read");
	ck_assert_str_eq(str(b, "roleRef.name"), "wasp-read");
	const wt_node *s = wt_get(b, "subjects")->items[0];
	ck_assert_str_eq(str(s, "name"), "wasp");
	ck_assert_str_eq(str(s, "namespace"), "wasp-system");
}
END_TEST

START_TEST(test_apply_role)
{
	const wt_node *r = object("rbac-apply.yaml", "ClusterRole",
				  "wasp-apply");
	ck_assert_int_eq(grants(r, "", "pods/eviction", "create"), 1);
	ck_assert_int_eq(grants(r, "", "pods", "patch"), 1);
	/* and nothing else: two rules of one verb each */
	const wt_node *rules = wt_get(r, "rules");
	ck_assert_int_eq(rules->n, 2);
	for (size_t i = 0; i < rules->n; i++) {
		ck_assert_int_eq(wt_get(rules->items[i], "verbs")->n, 1);
		ck_assert_int_eq(wt_get(rules->items[i], "resources")->n, 1);
	}
	ck_assert(!grants(r, "", "pods", "delete"));
}
END_TEST

START_TEST(test_cronjob)
{
	const wt_node *cj = object("cronjob.yaml", "CronJob", "wasp-nightly");
	ck_assert_str_eq(str(cj, "metadata.namespace"), "wasp-system");
	ck_assert_str_eq(str(cj, "spec.concurrencyPolicy"), "Forbid");
	const wt_node *pod = wt_path(cj, "spec.jobTemplate.spec.template.spec");
	ck_assert_ptr_nonnull(pod);
	ck_assert_str_eq(str(pod, "serviceAccountName"), "wasp");
	ck_assert_str_eq(str(pod, "restartPolicy"), "Never");
	ck_assert_str_eq(str(pod, "securityContext.runAsNonRoot"), "true");
	ck_assert_int_ne(atoi(str(pod, "securityContext.runAsUser")), 0);
	const wt_node *c = wt_get(pod, "containers")->items[0];
	ck_assert_str_eq(wt_get(c, "command")->items[0]->str,
			 "/usr/local/bin/wasp-nightly");
	ck_assert_str_eq(str(c, "securityContext.allowPrivilegeEscalation"),
			 "false");
	ck_assert_str_eq(str(c, "securityContext.readOnlyRootFilesystem"),
			 "true");
	const wt_node *ef = wt_get(c, "envFrom")->items[0];
	ck_assert_str_eq(str(ef, "configMapRef.name"), "wasp-options");
	/* memory: doc/deploy.md, a whole auto run peaks at 0.6-1.1 GB at
	 * 10,000 nodes (bench/README.md): within the limit */
	const char *req = str(c, "resources.requests.memory");
	const char *lim = str(c, "resources.limits.memory");
	ck_assert_str_eq(req, "1Gi");
	ck_assert_str_eq(lim, "2Gi");
	/* the plans are kept on the claim */
	const wt_node *v = wt_get(pod, "volumes");
	bool pvc = false;
	for (size_t i = 0; i < v->n; i++)
		pvc |= wt_path(v->items[i], "persistentVolumeClaim.claimName") &&
		       !strcmp(str(v->items[i],
				   "persistentVolumeClaim.claimName"),
			       "wasp-plans");
	ck_assert(pvc);
	object("pvc.yaml", "PersistentVolumeClaim", "wasp-plans");
	object("serviceaccount.yaml", "ServiceAccount", "wasp");
}
END_TEST

START_TEST(test_options)
{
	const wt_node *cm = object("configmap.yaml", "ConfigMap",
				   "wasp-options");
	ck_assert_msg(strstr(str(cm, "data.WASP_PLAN_OPTIONS"),
			     "--preempt never"), "preemption is off");
	ck_assert_str_eq(str(cm, "data.WASP_APPLY"), "no");
}
END_TEST

/* The Dockerfile: Debian 12 stages, a non-root final user, the nightly
 * script installed where the CronJob runs it. */
START_TEST(test_dockerfile)
{
	char *t = tu_slurp(tu_src_path("Dockerfile"));
	ck_assert_ptr_nonnull(t);
	int from = 0, debian = 0;
	const char *user = NULL;
	for (char *l = strtok(t, "\n"); l; l = strtok(NULL, "\n")) {
		if (!strncmp(l, "FROM ", 5)) {
			from++;
			debian += !strncmp(l + 5, "debian:12", 9);
		}
		if (!strncmp(l, "USER ", 5))
			user = l + 5;
		if (!strncmp(l, "COPY deploy/nightly.sh", 22))
			ck_assert(strstr(l, "/usr/local/bin/wasp-nightly"));
	}
	ck_assert_int_ge(from, 2);     /* multi-stage */
	ck_assert_int_eq(debian, 2);   /* build and final stage */
	ck_assert_ptr_nonnull(user);   /* the last USER is not root */
	ck_assert(strncmp(user, "root", 4) && strncmp(user, "0", 1));
	free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("deploy");
	TCase *tc = tcase_create("manifests");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_read_role);
	tcase_add_test(tc, test_apply_role);
	tcase_add_test(tc, test_cronjob);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_dockerfile);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
