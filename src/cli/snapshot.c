/*
 * snapshot.c -- `wasp snapshot`: capture exactly the objects wasp reads
 * from a cluster, through kubectl, into one file written atomically
 * (doc/snapshot.md).
 *
 * kubectl is asked once which resources the cluster serves
 * (`api-resources -o name`, fully qualified: podgroups.scheduling.k8s.io,
 * so several PodGroup CRDs never clash), then once for every served kind
 * wasp reads (`get a,b,c -o json`); kinds not served are skipped with one
 * line each.  With --namespace, pods bound to nodes in other namespaces
 * are fetched too (a second get), since they hold capacity.  The items
 * become one kind: List, which is loaded back before the command ends so
 * that a capture wasp cannot read is reported at once.
 */
#define _POSIX_C_SOURCE 200809L

#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/kubectl.h"

/* The kinds wasp reads, by their fully qualified resource names (core
 * kinds have no group), in the order they are listed. */
static const char *const kinds[] = {
    "nodes",
    "pods",
    "priorityclasses.scheduling.k8s.io",
    "podgroups.scheduling.k8s.io",
    "workloads.scheduling.k8s.io",
    "compositepodgroups.scheduling.k8s.io",
    "podgroups.scheduling.x-k8s.io",
    "podgroups.scheduling.volcano.sh",
    "topologies.kueue.x-k8s.io",
    "poddisruptionbudgets.policy",
    "resourceslices.resource.k8s.io",
    "deviceclasses.resource.k8s.io",
    "resourceclaims.resource.k8s.io",
    "resourceclaimtemplates.resource.k8s.io",
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

const char snapshot_help[] =
"Usage: wasp snapshot [OPTIONS]\n"
"\n"
"Capture the objects wasp reads from the current cluster through kubectl\n"
"(Nodes, Pods, PriorityClasses, the PodGroup kinds, Workloads,\n"
"CompositePodGroups, Kueue Topologies, PodDisruptionBudgets and the DRA\n"
"kinds) into one kind: List, written atomically.  Kinds the cluster does\n"
"not serve are skipped with one line each.  The plain kubectl command:\n"
"\n"
"  kubectl get nodes,pods,priorityclasses.scheduling.k8s.io,... -A -o json\n"
"\n"
"with the served kinds of doc/snapshot.md.\n"
"\n"
"Options:\n"
"  -o, --output FILE       write to FILE atomically (default: standard\n"
"                          output)\n"
"      --kubeconfig FILE   kubectl's --kubeconfig\n"
"      --context NAME      kubectl's --context\n"
"  -n, --namespace NS      namespaced kinds from NS only (running pods of\n"
"                          other namespaces are still read: they hold\n"
"                          capacity); default: all namespaces\n"
"      --kubectl PATH      the kubectl to run (default: kubectl on PATH)\n"
"  -q, --quiet             no notes on standard error\n"
"  -h, --help              show this help\n"
"\n"
"Exit status: 0 written, 2 usage or a capture wasp cannot read (the file\n"
"is still written, to inspect), 3 kubectl or I/O error.\n";

/* The served resource names, one per line of `api-resources -o name`. */
static bool served(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		if (len == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* Append the items of one kubectl JSON List to items; CLI_OK or an exit
 * status after a message. */
static int take_items(const char *text, const char *what, cJSON *items)
{
	cJSON *doc = cJSON_Parse(text);
	cJSON *it = doc ? cJSON_GetObjectItemCaseSensitive(doc, "items")
			: NULL;
	if (!cJSON_IsArray(it)) {
		fprintf(stderr, "wasp snapshot: kubectl %s: the output is not "
				"a JSON List\n", what);
		cJSON_Delete(doc);
		return CLI_INTERNAL;
	}
	cJSON *e;
	while ((e = cJSON_DetachItemFromArray(it, 0)))
		cJSON_AddItemToArray(items, e);
	cJSON_Delete(doc);
	return CLI_OK;
}

/* Load what was captured, as `wasp plan` would: a summary, or the
 * first error (exit 2). */
static int check_capture(const char *text, const char *name, int quiet)
{
	wasp_snapshot *s = NULL;
	wasp_error err;
	char buf[1024];
	memset(&err, 0, sizeof err);
	if (wasp_snapshot_from_text(&s, text, strlen(text), name, &err)) {
		fprintf(stderr, "wasp snapshot: the capture does not load: "
				"%s\n", wasp_error_format(&err, buf, sizeof buf));
		return CLI_INPUT;
	}
	if (!quiet) {
		wasp_snapshot_stats st;
		wasp_snapshot_stats_get(s, &st);
		fprintf(stderr, "wasp snapshot: %zu nodes, %zu pods (%zu "
				"pending), %zu groups\n", st.nodes, st.pods,
			st.pods_pending, st.groups);
	}
	wasp_snapshot_free(s);
	return CLI_OK;
}

int cmd_snapshot(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"namespace", required_argument, NULL, 'n'},
	    WKC_LONG_OPTIONS,
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	wkc kc = {"kubectl", NULL, NULL};
	const char *out = NULL, *ns = NULL;
	int quiet = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:qh", longs, NULL)) != -1) {
		if (wkc_option(&kc, c, optarg))
			continue;
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': ns = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(snapshot_help, stdout); return CLI_OK;
		default:
			fprintf(stderr, "Try 'wasp snapshot --help' for more "
					"information.\n");
			return CLI_INPUT;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wasp snapshot: unexpected argument '%s'\n"
				"Try 'wasp snapshot --help' for more "
				"information.\n", argv[optind]);
		return CLI_INPUT;
	}
	if (ns && !*ns) {
		fprintf(stderr, "wasp snapshot: empty --namespace\n");
		return CLI_INPUT;
	}

	/* 1. what the cluster serves */
	char *list = NULL;
	const char *ar[] = {"api-resources", "-o", "name", NULL};
	int rc = wkc_run(&kc, ar, NULL, &list);
	if (rc)
		return rc;
	/* 2. one get for the served kinds */
	size_t len = 1;
	for (size_t i = 0; i < NKINDS; i++)
		len += strlen(kinds[i]) + 1;
	char *names = calloc(len, 1);
	if (!names) {
		free(list);
		fprintf(stderr, "wasp snapshot: out of memory\n");
		return CLI_INTERNAL;
	}
	for (size_t i = 0; i < NKINDS; i++) {
		if (!served(list, kinds[i])) {
			if (!quiet)
				fprintf(stderr, "wasp snapshot: skipped %s: "
						"not served by the cluster\n",
					kinds[i]);
			continue;
		}
		if (*names)
			strcat(names, ",");
		strcat(names, kinds[i]);
	}
	cJSON *doc = cJSON_CreateObject(), *items = cJSON_CreateArray();
	cJSON_AddStringToObject(doc, "apiVersion", "v1");
	cJSON_AddStringToObject(doc, "kind", "List");
	cJSON_AddItemToObject(doc, "items", items);
	char *got = NULL;
	bool pods = served(list, "pods");
	free(list);
	if (*names) {
		const char *get[8];
		int g = 0;
		get[g++] = "get";
		get[g++] = names;
		if (ns) {
			get[g++] = "-n";
			get[g++] = ns;
		} else {
			get[g++] = "-A";
		}
		get[g++] = "-o";
		get[g++] = "json";
		get[g] = NULL;
		rc = wkc_run(&kc, get, NULL, &got);
		if (!rc)
			rc = take_items(got, "get", items);
		free(got);
		got = NULL;
	}
	/* 3. with a namespace: pods elsewhere that hold capacity */
	if (!rc && ns && pods) {
		char sel[WKC_MAX_ARG];
		snprintf(sel, sizeof sel,
			 "--field-selector=spec.nodeName!=,"
			 "metadata.namespace!=%s", ns);
		const char *get[] = {"get", "pods", "-A", sel, "-o", "json",
				     NULL};
		rc = wkc_run(&kc, get, NULL, &got);
		if (!rc)
			rc = take_items(got, "get pods", items);
		free(got);
	}
	free(names);
	char *text = rc ? NULL : cJSON_Print(doc);
	cJSON_Delete(doc);
	if (rc)
		return rc;
	if (!text) {
		fprintf(stderr, "wasp snapshot: out of memory\n");
		return CLI_INTERNAL;
	}
	size_t tl = strlen(text);
	char *file = malloc(tl + 2);
	if (!file) {
		free(text);
		fprintf(stderr, "wasp snapshot: out of memory\n");
		return CLI_INTERNAL;
	}
	memcpy(file, text, tl);
	memcpy(file + tl, "\n", 2);
	free(text);
	rc = write_output(out, file, tl + 1);
	if (!rc)
		rc = check_capture(file, out ? out : "<stdout>", quiet);
	free(file);
	return rc;
}
