/*
 * check_html.c -- the HTML report (wasp_report_html): the structure of
 * the picture (one element per domain and per node or aggregate, counted
 * against the snapshot), names and counts against the plan, wholly free
 * domains recomputed here from the snapshot and the plan, aggregation
 * over the threshold with drill-down anchors, escaping of hostile names,
 * the evictions and what they buy, and the API's refusals.  Every plan
 * solved here goes through the verifier (tu_solve); hand-made plans are
 * checked too, and the page must say what the check said.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RACK "example.com/rack"
#define GPU "nvidia.com/gpu"

/* ------------------------------------------------------------ helpers */

static int count(const char *hay, const char *end, const char *needle)
{
	int n = 0;
	size_t l = strlen(needle);
	for (const char *p = hay; (p = strstr(p, needle)) && (!end || p < end);
	     p += l)
		n++;
	return n;
}

/* [*from, *to) of the element with id="id" up to the next marker. */
static void section(const char *page, const char *id, const char *stop,
		    const char **from, const char **to)
{
	char key[64];
	snprintf(key, sizeof key, "id=\"%s\"", id);
	*from = strstr(page, key);
	ck_assert_msg(*from, "no element %s", key);
	*to = strstr(*from, stop);
	ck_assert_ptr_nonnull(*to);
}

/* Every tag of the page is one the report writes, with no event
 * handler, no source and only in-page links: text never opens a tag. */
static void assert_tags_allowed(const char *page)
{
	static const char *const ok[] = {
	    "!DOCTYPE", "html", "head", "meta", "title", "style", "body",
	    "h1", "h2", "h3", "p", "div", "nav", "a", "section", "table",
	    "tr", "th", "td", "ul", "li", "span", "i", "b", "svg", "defs",
	    "pattern", "rect", "g", "path", "use", "text", "details",
	    "summary", "footer"};
	for (const char *p = strchr(page, '<'); p; p = strchr(p + 1, '<')) {
		const char *n = p + 1 + (p[1] == '/');
		size_t len = strspn(n, "!ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "abcdefghijklmnopqrstuvwxyz0123456789");
		bool found = false;
		for (size_t i = 0; i < sizeof ok / sizeof ok[0] && !found; i++)
			found = strlen(ok[i]) == len && !strncmp(ok[i], n, len);
		ck_assert_msg(found, "unexpected tag <%.*s", (int)len, n);
		const char *end = strchr(p, '>');
		ck_assert_ptr_nonnull(end);
		for (const char *q = p; q < end; q++) {
			ck_assert_msg(strncmp(q, " on", 3) || q[3] == ' ',
				      "event handler in <%.*s", (int)len, n);
			ck_assert(strncmp(q, " src=", 5));
			if (!strncmp(q, "href=\"", 6))
				ck_assert_msg(q[6] == '#', "link out: %.40s", q);
		}
	}
}

/* The page is self-contained: no script, nothing fetched. */
static void assert_self_contained(const char *page)
{
	assert_tags_allowed(page);
	ck_assert(!strncmp(page, "<!DOCTYPE html>", 15));
	ck_assert_ptr_nonnull(strstr(page, "Content-Security-Policy"));
	ck_assert_ptr_nonnull(strstr(page, "default-src 'none'"));
	ck_assert_ptr_null(strstr(page, "<script"));
	ck_assert_ptr_null(strstr(page, "<link"));
	ck_assert_ptr_null(strstr(page, "<img"));
	ck_assert_ptr_null(strstr(page, "@import"));
	int http = count(page, NULL, "http");
	int ns = count(page, NULL, "http://www.w3.org/2000/svg\"");
	int csp = count(page, NULL, "http-equiv");
	ck_assert_int_eq(http, ns + csp);
	/* url( only for the patterns defined in the page */
	ck_assert_int_eq(count(page, NULL, "url("),
			 count(page, NULL, "url(#"));
	ck_assert(strstr(page, "</html>\n") &&
		  !strcmp(strstr(page, "</html>\n"), "</html>\n"));
}

static char *page_of(const wasp_snapshot *s, const wasp_plan *p, int detail)
{
	wasp_error e;
	memset(&e, 0, sizeof e);
	char *page = wasp_report_html(s, p, detail, &e);
	ck_assert_msg(page, "wasp_report_html: %s", e.msg);
	assert_self_contained(page);
	return page;
}

/* Pods of ns/group the node titles say were placed: the sum of
 * "+ ns/group: ... (k pods)" lines. */
static int pods_in_titles(const char *page, const char *ns, const char *g)
{
	char key[512];
	snprintf(key, sizeof key, "\n  + %s/%s: ", ns, g);
	int sum = 0;
	/* node titles end the line "(k pods)"; aggregates' "k pods" */
	for (const char *p = page; (p = strstr(p, key)); p += strlen(key)) {
		const char *q = strchr(p + strlen(key), '(');
		const char *eol = strpbrk(p + strlen(key), "\n<");
		if (q && eol && q < eol)
			sum += atoi(q + 1);
	}
	return sum;
}

/* Pods on node n after the plan, from the snapshot and the plan. */
static int pods_after(const wasp_snapshot *s, const wasp_plan *p, int n)
{
	const char *name = s->nodes[n].name;
	int k = 0;
	for (int i = 0; i < s->npods; i++)
		k += !s->pods[i].terminal && s->pods[i].node == n;
	for (int i = 0; i < p->nplace; i++)
		k += !strcmp(p->place[i].node, name);
	for (int i = 0; i < p->nevict; i++)
		k -= !strcmp(p->evict[i].node, name);
	for (int i = 0; i < p->nmove; i++)
		k += !strcmp(p->move[i].to, name) - !strcmp(p->move[i].from,
							    name);
	return k;
}

/* Domains of label `key` wholly free after the plan, counted here. */
static int free_domains(const wasp_snapshot *s, const wasp_plan *p,
			const char *key)
{
	int nfree = 0;
	for (int n = 0; n < s->nnodes; n++) {
		const char *v = ws_label(&s->nodes[n], key);
		if (!v)
			continue;
		bool first = true, fr = true;
		for (int m = 0; m < s->nnodes && first; m++) {
			const char *w = ws_label(&s->nodes[m], key);
			if (!w || strcmp(v, w))
				continue;
			if (m < n)
				first = false; /* counted at its first node */
			fr = fr && pods_after(s, p, m) == 0;
		}
		nfree += first && fr;
	}
	return nfree;
}

static int distinct_values(const wasp_snapshot *s, const char *key)
{
	int k = 0;
	for (int n = 0; n < s->nnodes; n++) {
		const char *v = ws_label(&s->nodes[n], key);
		bool first = v != NULL;
		for (int m = 0; m < n && first; m++) {
			const char *w = ws_label(&s->nodes[m], key);
			first = !w || strcmp(v, w);
		}
		k += first;
	}
	return k;
}

/* ------------------------------------------------------------ tests */

/* The bundled example, drawn node by node: 2 blocks + 4 racks, 16
 * nodes, every node named, the groups' pods as the plan says. */
START_TEST(test_gpu16_structure)
{
	wasp_snapshot *s = tu_load_file("models/examples/gpu16.yaml");
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_ILP); /* verified */
	char *page = page_of(s, p, 0);
	const char *o, *oe;
	section(page, "overview", "</svg>", &o, &oe);
	ck_assert_int_eq(count(o, oe, "<g class=\"dm"),
			 distinct_values(s, "example.com/block") +
			     distinct_values(s, RACK));
	ck_assert_int_eq(count(o, oe, "<g class=\"dm"), 6);
	ck_assert_int_eq(count(o, oe, "<g class=\"nd"), (int)s->nnodes);
	ck_assert_int_eq(count(page, NULL, "<g class=\"ag"), 0);
	ck_assert_int_eq(count(page, NULL, "class=\"pic drill\""), 0);
	for (int n = 0; n < s->nnodes; n++) {
		char t[300];
		snprintf(t, sizeof t, "<title>%s\n", s->nodes[n].name);
		ck_assert_msg(strstr(o, t) && strstr(o, t) < oe, "node %s",
			      s->nodes[n].name);
	}
	/* the plan's page: verdict, counts, groups */
	ck_assert_ptr_nonnull(strstr(page, "the plan is valid"));
	ck_assert_int_gt(p->nadmit, 0);
	int placed = 0;
	for (int i = 0; i < p->nadmit; i++) {
		const wpl_admit *a = &p->admit[i];
		ck_assert_int_eq(pods_in_titles(o, a->ns, a->group), a->pods);
		char leg[300];
		snprintf(leg, sizeof leg, " %s/%s (%d pod%s)</li>", a->ns,
			 a->group, a->pods, a->pods == 1 ? "" : "s");
		ck_assert_msg(strstr(page, leg), "legend %s", leg);
		placed += a->pods;
	}
	ck_assert_int_eq(placed, p->nplace);
	for (int i = 0; i < p->nwait; i++) {
		ck_assert_ptr_nonnull(strstr(page, p->wait[i].group));
		ck_assert_ptr_nonnull(strstr(page, p->wait[i].reason));
	}
	/* free nodes and domains, recomputed */
	int fn = 0;
	for (int n = 0; n < s->nnodes; n++)
		fn += pods_after(s, p, n) == 0;
	ck_assert_int_eq(count(o, oe, "<g class=\"nd fr"), fn);
	ck_assert_int_eq(count(o, oe, "<g class=\"dm fr"),
			 free_domains(s, p, RACK) +
			     free_domains(s, p, "example.com/block"));
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Three racks of two nodes; one runs a pod, a 2-pod gang takes a whole
 * rack: exactly one rack is left wholly free and is marked so. */
START_TEST(test_free_domain_marked)
{
	tu_buf b = {0};
	const char *racks[] = {"r1", "r1", "r2", "r2", "r3", "r3"};
	for (int i = 0; i < 6; i++)
		tu_printf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
			      "  name: n%d\n  labels: {" RACK ": %s}\nstatus:\n"
			      "  allocatable: {cpu: \"64\", pods: \"110\", "
			      GPU ": \"8\"}\n", i, racks[i]);
	tu_pod_yaml(&b, "busy", NULL, "n0", 2, 100);
	tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: "
		      "PodGroup\nmetadata: {name: g, namespace: ml}\nspec:\n"
		      "  priority: 100\n  schedulingPolicy: {gang: {minCount: 2}}\n"
		      "  schedulingConstraints: {topology: [{key: " RACK "}]}\n");
	tu_pod_yaml(&b, "g-0", "g", NULL, 8, 100);
	tu_pod_yaml(&b, "g-1", "g", NULL, 8, 100);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_int_eq(p->nplace, 2);
	char *page = page_of(s, p, 0);
	const char *o, *oe;
	section(page, "overview", "</svg>", &o, &oe);
	ck_assert_int_eq(free_domains(s, p, RACK), 1);
	ck_assert_int_eq(count(o, oe, "<g class=\"dm fr"), 1);
	const char *fr = strstr(o, "<g class=\"dm fr");
	/* the marked rack is the one the plan left alone */
	const char *used = p->place[0].node;
	const char *free_rack = strcmp(used, "n2") && strcmp(used, "n3")
				    ? "r2" : "r3";
	char t[64];
	snprintf(t, sizeof t, "<title>" RACK "=%s:", free_rack);
	ck_assert_ptr_eq(strstr(fr, "<title>"), strstr(fr, t));
	ck_assert_ptr_nonnull(strstr(fr, "FREE</text>"));
	/* the free rack's two nodes and n1 */
	ck_assert_int_eq(count(o, oe, "<g class=\"nd fr"), 3);
	/* each rack's GPUs before and after, in its title */
	const char *fig[] = {"2 in use before, 2 after",
			     "0 in use before, 16 after",
			     "0 in use before, 0 after"};
	for (int i = 0; i < 3; i++) {
		char want[128];
		snprintf(want, sizeof want, ": 2 nodes\n" GPU ": 16 "
			 "allocatable, %s", fig[i]);
		ck_assert_msg(count(o, oe, want) == 1, "%s", want);
	}
	/* the gang's colour class is on the two nodes it took */
	ck_assert_int_eq(count(o, oe, "<path class=\"g0\""), 2);
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* Over the threshold: one cell per rack, block boxes linking to one
 * drill-down section each, and every node once in those sections. */
START_TEST(test_aggregated)
{
	wasp_snapshot *s = tu_load_file("models/examples/gpu16.yaml");
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	char *page = page_of(s, p, 8);
	const char *o, *oe;
	section(page, "overview", "</svg>", &o, &oe);
	ck_assert_int_eq(count(o, oe, "<g class=\"ag"),
			 distinct_values(s, RACK));
	ck_assert_int_eq(count(o, oe, "<g class=\"dm"),
			 distinct_values(s, "example.com/block"));
	ck_assert_int_eq(count(o, oe, "<g class=\"nd"), 0);
	ck_assert_int_eq(count(page, NULL, "class=\"pic drill\""), 2);
	ck_assert_int_eq(count(page, NULL, "<g class=\"nd"), (int)s->nnodes);
	/* each link of the overview leads to a section of the page */
	int links = 0;
	for (const char *q = o; (q = strstr(q, "<a href=\"#d")) && q < oe;
	     q++) {
		int id = atoi(q + 11);
		char want[64];
		snprintf(want, sizeof want, "<div class=\"pic drill\" "
			 "id=\"d%d\">", id);
		ck_assert_msg(strstr(page, want), "no section d%d", id);
		links++;
	}
	ck_assert_int_eq(links, 2);
	free(page);
	/* the same plan under the threshold: no aggregate */
	page = page_of(s, p, 16);
	ck_assert_int_eq(count(page, NULL, "<g class=\"ag"), 0);
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* A generated cluster over the default threshold (512 nodes). */
START_TEST(test_generated_default_threshold)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.nodes = 640;
	g.levels = 2;
	g.fanout = 8;
	g.gangs = 20;
	wasp_error e;
	char *txt = wasp_gen(&g, &e);
	ck_assert_ptr_nonnull(txt);
	wasp_snapshot *s = tu_load(txt);
	free(txt);
	ck_assert_int_gt(s->nnodes, 512);
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	char *page = page_of(s, p, 0);
	const char *o, *oe;
	section(page, "overview", "</svg>", &o, &oe);
	ck_assert_int_eq(count(o, oe, "<g class=\"ag"),
			 distinct_values(s, RACK));
	ck_assert_int_eq(count(page, NULL, "class=\"pic drill\""),
			 distinct_values(s, "example.com/block"));
	ck_assert_int_eq(count(page, NULL, "<g class=\"nd"), (int)s->nnodes);
	for (int i = 0; i < p->nadmit; i++)
		ck_assert_int_eq(pods_in_titles(page, p->admit[i].ns,
						p->admit[i].group),
				 p->admit[i].pods);
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

#define EVIL_NODE "n<q>&amp;\"x'"
#define EVIL_POD "p<script>alert(1)" /* names may not hold a slash */
#define EVIL_GROUP "g<img src=x onerror=alert(1)>"

/* Hostile names in the snapshot reach the page escaped only. */
START_TEST(test_escaping)
{
	tu_buf b = {0};
	/* EVIL_NODE in YAML's double quotes */
	tu_printf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
		      "  name: \"n<q>&amp;\\\"x'\"\n  labels: {" RACK
		      ": '<r>'}\nstatus:\n  allocatable: {cpu: \"64\", "
		      "pods: \"110\", " GPU ": \"8\"}\n");
	tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: "
		      "PodGroup\nmetadata: {name: '%s', namespace: ml}\n"
		      "spec:\n  schedulingPolicy: {gang: {minCount: 1}}\n",
		  EVIL_GROUP);
	tu_printf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: '%s',"
		      " namespace: ml}\nspec:\n  schedulingGroup: "
		      "{podGroupName: '%s'}\n  containers:\n  - name: c\n"
		      "    resources: {requests: {" GPU ": \"4\"}}\n",
		  EVIL_POD, EVIL_GROUP);
	/* and one that cannot fit, so a reason shows */
	tu_printf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: "
		      "'big<i>', namespace: ml}\nspec:\n  containers:\n  - "
		      "name: c\n    resources: {requests: {" GPU ": \"16\"}}\n");
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_int_eq(p->nplace, 1);
	ck_assert_int_eq(p->nwait, 1);
	char *page = page_of(s, p, 0);
	ck_assert_ptr_null(strstr(page, "<q>"));
	ck_assert_ptr_null(strstr(page, "<i>"));
	ck_assert_ptr_null(strstr(page, "<r>"));
	ck_assert_ptr_null(strstr(page, "\"x'"));
	ck_assert_ptr_nonnull(strstr(page, "n&lt;q&gt;&amp;amp;&quot;x&#39;"));
	ck_assert_ptr_nonnull(strstr(page, "g&lt;img src=x onerror=alert(1)"
					   "&gt;"));
	ck_assert_ptr_nonnull(strstr(page, "big&lt;i&gt;"));
	free(page);
	wasp_plan_free(p);

	/* A hand-made plan naming things the snapshot lacks: checked, the
	 * violations shown escaped, the rows left out of the picture. */
	p = wpl_new();
	ck_assert_ptr_nonnull(p);
	p->sum.status = "greedy<x>";
	p->nplace = 1;
	p->place = wa_calloc(p->arena, 1, sizeof *p->place);
	p->place[0] = (wpl_place){"ml", "ghost<u>", EVIL_NODE, NULL};
	p->nwait = 1;
	p->wait = wa_calloc(p->arena, 1, sizeof *p->wait);
	p->wait[0] = (wpl_wait){"ml", "w<s>", "PodGroup", 1, 0,
				"because <em>reasons</em> & more"};
	size_t nviol = 0;
	wasp_error e;
	ck_assert_int_eq(wasp_check(s, p, &nviol, NULL, &e), WASP_OK);
	ck_assert_int_gt(nviol, 0);
	page = page_of(s, p, 0);
	ck_assert_ptr_nonnull(strstr(page, "the plan is INVALID"));
	ck_assert_ptr_nonnull(strstr(page, "ghost&lt;u&gt;"));
	ck_assert_ptr_null(strstr(page, "<u>"));
	ck_assert_ptr_null(strstr(page, "<s>"));
	ck_assert_ptr_null(strstr(page, "<em>"));
	ck_assert_ptr_null(strstr(page, "<x>"));
	ck_assert_ptr_nonnull(strstr(page, "because &lt;em&gt;reasons&lt;/em"
					   "&gt; &amp; more"));
	ck_assert_ptr_nonnull(strstr(page, "1 row of the plan names a pod"));
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* A low-priority pod fills the only GPU node; a high-priority gang
 * evicts it: the eviction is drawn on that node, counted in its rack and
 * listed, and the
 * table of what the evictions buy appears when the plan carries it. */
START_TEST(test_evictions_and_buy)
{
	tu_buf b = {0};
	tu_printf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
		      "  name: n0\n  labels: {" RACK ": r1}\nstatus:\n"
		      "  allocatable: {cpu: \"64\", pods: \"110\", " GPU
		      ": \"8\"}\n");
	/* a CPU node beside it: drawn by CPU, left out of the GPU sums */
	tu_printf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n"
		      "  name: n1\n  labels: {" RACK ": r1}\nstatus:\n"
		      "  allocatable: {cpu: \"64\", pods: \"110\"}\n");
	tu_pod_yaml(&b, "low", NULL, "n0", 8, 10);
	tu_printf(&b, "---\napiVersion: scheduling.k8s.io/v1beta1\nkind: "
		      "PodGroup\nmetadata: {name: hi, namespace: ml}\nspec:\n"
		      "  priority: 1000\n"
		      "  schedulingPolicy: {gang: {minCount: 1}}\n"
		      "  schedulingConstraints: {topology: [{key: " RACK
		      "}]}\n");
	tu_pod_yaml(&b, "hi-0", "hi", NULL, 8, 1000);
	wasp_snapshot *s = tu_load_buf(&b);
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_int_eq(p->nevict, 1);
	ck_assert_int_eq(p->nplace, 1);
	char *page = page_of(s, p, 0);
	const char *o, *oe;
	section(page, "overview", "</svg>", &o, &oe);
	ck_assert_int_eq(count(o, oe, "<path class=\"e\""), 1);
	ck_assert_int_eq(count(o, oe, "<path class=\"g0\""), 1);
	ck_assert_ptr_nonnull(strstr(page, "<td>ml/low</td><td>n0</td>"));
	ck_assert_ptr_nonnull(strstr(o, "<title>" RACK "=r1: 2 nodes\n" GPU
					": 8 allocatable, 8 in use before, 8 "
					"after\n1 pod evicted"));
	ck_assert_ptr_null(strstr(page, "What the evictions buy"));
	free(page);

	p->nbuy = 2;
	p->buy = wa_calloc(p->arena, 2, sizeof *p->buy);
	p->buy[0] = (wpl_buy){1000, 1, 0};
	p->buy[1] = (wpl_buy){10, 0, 1};
	page = page_of(s, p, 0);
	ck_assert_ptr_nonnull(strstr(page, "What the evictions buy"));
	ck_assert_ptr_nonnull(strstr(page,
	    "<tr><td class=\"n\">1000</td><td class=\"n\">1</td><td "
	    "class=\"n\">0</td><td class=\"n\">+1</td></tr>"));
	ck_assert_ptr_nonnull(strstr(page,
	    "<tr><td class=\"n\">10</td><td class=\"n\">0</td><td "
	    "class=\"n\">1</td><td class=\"n\">-1</td></tr>"));
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

/* GPUs as DRA devices: nodes are drawn by their devices, and the
 * devices the node titles say the plan takes are the plan's claims'. */
START_TEST(test_dra_devices)
{
	wasp_gen_options g;
	wasp_gen_options_init(&g);
	g.nodes = 16;
	g.fanout = 2;
	g.gangs = 4;
	g.dra = 1;
	wasp_error e;
	char *txt = wasp_gen(&g, &e);
	ck_assert_ptr_nonnull(txt);
	wasp_snapshot *s = tu_load(txt);
	free(txt);
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	ck_assert_int_gt(p->nclaims, 0);
	char *page = page_of(s, p, 0);
	const char *o, *oe;
	section(page, "overview", "</svg>", &o, &oe);
	ck_assert_int_eq(count(o, oe, "\ndevices (DRA): 8 allocatable\n"),
			 (int)s->nnodes);
	int want = 0, got = 0;
	for (int i = 0; i < p->nclaims; i++)
		want += p->claims[i].nresults;
	for (const char *q = o; (q = strstr(q, "\n  + ")) && q < oe; q++)
		got += atoi(strstr(q, ": ") + 2);
	ck_assert_int_eq(got, want);
	free(page);
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

START_TEST(test_api_refusals)
{
	wasp_snapshot *s = tu_load_file("models/examples/gpu16.yaml");
	wasp_plan *p = tu_solve_mode(s, WASP_MODE_GREEDY);
	wasp_error e;
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(wasp_report_html(NULL, p, 0, &e));
	ck_assert_int_eq(e.code, WASP_EINVAL);
	ck_assert_ptr_null(wasp_report_html(s, NULL, 0, &e));
	ck_assert_int_eq(e.code, WASP_EINVAL);
	ck_assert_ptr_null(wasp_plan_render(p, WASP_FORMAT_HTML, &e));
	ck_assert_int_eq(e.code, WASP_EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "wasp_report_html"));
	wasp_plan_free(p);
	wasp_snapshot_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("html");
	TCase *t = tcase_create("html");
	tcase_add_test(t, test_gpu16_structure);
	tcase_add_test(t, test_free_domain_marked);
	tcase_add_test(t, test_aggregated);
	tcase_add_test(t, test_generated_default_threshold);
	tcase_add_test(t, test_escaping);
	tcase_add_test(t, test_evictions_and_buy);
	tcase_add_test(t, test_dra_devices);
	tcase_add_test(t, test_api_refusals);
	suite_add_tcase(s, t);
	return tu_run(s);
}
