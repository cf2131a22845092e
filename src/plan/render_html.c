/*
 * render_html.c -- the HTML report (render_html.h): the page around the
 * picture.  First what an operator must know before approving the plan
 * (does it check against the snapshot, what it evicts and what that
 * buys), then the summary, the picture (html_svg.c), and the tables:
 * admitted, waiting, evictions, moves, device claims, warnings.
 *
 * The page is one file: CSS inline, SVG inline, no script, and a
 * Content-Security-Policy that forbids fetching anything, so it reads
 * the same offline and a name that slipped through could not load a
 * thing.  Every string from the snapshot or the plan goes through
 * sb_html.
 */
#include "plan/render_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/html_int.h"
#include "plan/verify.h"

#define WR_VIOLATIONS_SHOWN 50 /* check report lines on the page */
#define WR_NODES_SHOWN 8       /* nodes listed per admitted group */
#define WR_EVICT_OPEN 20       /* eviction lists this long show open */

static const char css[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#1d232a}"
"h1{font-size:22px;margin:0 0 4px}"
"h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d5dae0}"
"h3{font-size:14px;margin:18px 0 6px}nav a{margin-right:12px}\n"
".verdict{padding:8px 12px;border-radius:4px;font-weight:600;margin:8px 0}"
".ok{background:#e3f4e6;color:#17572a}.bad{background:#fde4e4;"
"color:#8a1010}.warn{background:#fff4d6;color:#6b4a00}\n"
".cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}"
".card{border:1px solid #d5dae0;border-radius:6px;padding:6px 12px;"
"min-width:110px}.card b{display:block;font-size:22px}"
".card.hot{border-color:#d62728}\n"
"table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 10px;"
"border-bottom:1px solid #e6e9ed;text-align:left;vertical-align:top}"
"th{background:#f3f5f7}td.n,th.n{text-align:right;"
"font-variant-numeric:tabular-nums}\n"
".meter{display:inline-block;width:160px;height:12px;background:#e8ebef;"
"position:relative;vertical-align:middle}.meter i{position:absolute;"
"left:0;top:0;height:6px;background:#8d97a5}.meter i.a{top:6px;"
"background:#3a78c2}\n"
".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;"
"gap:4px 16px;margin:6px 0}.sw{vertical-align:-1px}"
".sw .cb{fill:#fff;stroke:#b8c0ca}.note{color:#555;margin:4px 0}"
".pic{overflow-x:auto;margin:8px 0}.pic svg{max-width:100%;height:auto}"
".pdb{color:#8a1010;font-weight:600}\n"
"svg text{font:10px system-ui,sans-serif;fill:#1d232a}"
".fb{stroke:#eef1f4;stroke-width:9;fill:none}"
".nd path,.ag path{stroke-width:9;fill:none}"
".nd use,.ag use{fill:#fff;stroke:#b8c0ca}"
".nd.fr use,.ag.fr use{stroke:#2a9d48;stroke-width:2}"
".nd.u use{fill:#e9ebee;stroke-dasharray:3 2}\n"
".db{fill:#f7f8fa;stroke:#aab3be}.dm .dm .db{fill:#fff}"
".dm.fr>.db{stroke:#2a9d48;stroke-width:2;stroke-dasharray:6 3;"
"fill:#eefaf0}.dh{font-weight:600;font-size:11px}"
"a .ag:hover use,a .dm:hover>.db{stroke:#3a78c2;stroke-width:2}\n";

static const char *nz(const char *s)
{
	return s && *s ? s : "-";
}

static void esc_or_dash(sbuf *b, const char *s)
{
	sb_html(b, nz(s));
}

static void ns_name(sbuf *b, const char *ns, const char *name)
{
	esc_or_dash(b, ns);
	sb_puts(b, "/");
	esc_or_dash(b, name);
}

static void num(sbuf *b, double v)
{
	char buf[40];
	fmt_num(v, buf, sizeof buf);
	sb_puts(b, isfinite(v) ? buf : "-");
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

/* ------------------------------------------------------------ head */

static void head(sbuf *b, const wasp_plan *p)
{
	const wpl_summary *s = &p->sum;
	sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		   "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-"
		   "Security-Policy\" content=\"default-src 'none'; "
		   "style-src 'unsafe-inline'\">\n<meta name=\"viewport\" "
		   "content=\"width=device-width\">\n");
	sb_printf(b, "<title>wasp plan: %d pods placed, %d evicted, %d "
		     "moved</title>\n<style>",
		  s->placed_pods, s->evicted_pods, s->moved_pods);
	sb_puts(b, css);
	wh_css_kinds(b, p->nadmit);
	sb_puts(b, "</style></head><body>\n");
}

/* The check against the snapshot, and plan rows the picture lacks. */
static void verdict(sbuf *b, const wasp_plan *p, const wh_pic *pc,
		    size_t nviol, const char *rep)
{
	const wpl_summary *s = &p->sum;
	sb_printf(b, "<h1>wasp plan</h1>\n<p>%d pod%s placed: %d group%s "
		     "admitted, %d waiting; %d pod%s evicted, %d moved.</p>\n",
		  s->placed_pods, plural(s->placed_pods), s->admitted_groups,
		  plural(s->admitted_groups), s->waiting_groups,
		  s->evicted_pods, plural(s->evicted_pods), s->moved_pods);
	if (!nviol) {
		sb_printf(b, "<p class=\"verdict ok\">Checked against the "
			     "snapshot: the plan is valid (%d placement%s, "
			     "%d eviction%s, %d move%s).</p>\n",
			  p->nplace, plural(p->nplace), p->nevict,
			  plural(p->nevict), p->nmove, plural(p->nmove));
	} else {
		sb_printf(b, "<div class=\"verdict bad\">Checked against the "
			     "snapshot: the plan is INVALID, %zu violation%s."
			     "<ul>", nviol, nviol == 1 ? "" : "s");
		const char *line = rep ? rep : "";
		for (int i = 0; *line && i < WR_VIOLATIONS_SHOWN; i++) {
			const char *end = strchr(line, '\n');
			size_t n = end ? (size_t)(end - line) : strlen(line);
			char *one = malloc(n + 1);
			if (!one) {
				b->fail = true;
				return;
			}
			memcpy(one, line, n);
			one[n] = 0;
			sb_puts(b, "<li>");
			sb_html(b, one);
			sb_puts(b, "</li>");
			free(one);
			line = end ? end + 1 : line + n;
		}
		if (nviol > WR_VIOLATIONS_SHOWN)
			sb_puts(b, "<li>...</li>");
		sb_puts(b, "</ul></div>\n");
	}
	if (pc->unmatched)
		sb_printf(b, "<p class=\"verdict warn\">%d row%s of the plan "
			     "name%s a pod or node this snapshot does not have "
			     "and %s left out of the picture.</p>\n",
			  pc->unmatched, plural(pc->unmatched),
			  pc->unmatched == 1 ? "s" : "",
			  pc->unmatched == 1 ? "is" : "are");
	sb_puts(b, "<nav><a href=\"#summary\">Summary</a><a href=\"#picture\">"
		   "Picture</a><a href=\"#details\">Solve</a>"
		   "<a href=\"#admitted\">Admitted</a><a href=\""
		   "#waiting\">Waiting</a>");
	if (p->nevict)
		sb_puts(b, "<a href=\"#evictions\">Evictions</a>");
	if (p->nmove)
		sb_puts(b, "<a href=\"#moves\">Moves</a>");
	sb_puts(b, "</nav>\n");
}

/* ------------------------------------------------------------ summary */

static void card(sbuf *b, const char *what, int v, bool hot)
{
	sb_printf(b, "<div class=\"card%s\"><b>%d</b>%s</div>",
		  hot && v ? " hot" : "", v, what);
}

static void row_start(sbuf *b, const char *th)
{
	sb_printf(b, "<tr><th>%s</th><td>", th);
}

static void summary(sbuf *b, const wasp_plan *p)
{
	const wpl_summary *s = &p->sum;
	sb_puts(b, "<section id=\"summary\"><h2>Summary</h2>"
		   "<div class=\"cards\">");
	card(b, "pods placed", s->placed_pods, false);
	card(b, "groups admitted", s->admitted_groups, false);
	card(b, "groups waiting", s->waiting_groups, false);
	card(b, "pods evicted", s->evicted_pods, true);
	if (p->pdb_violations)
		card(b, "PDB violations", p->pdb_violations, true);
	card(b, "pods moved", s->moved_pods, false);
	card(b, "free nodes before", s->free_nodes_before, false);
	card(b, "free nodes after", s->free_nodes_after, false);
	sb_puts(b, "</div></section>\n");
}

/* A quantity in resource units, as Kubernetes writes it when exact. */
static void units(sbuf *b, const char *res, double v)
{
	char buf[64];
	fmt_units(res, v, buf, sizeof buf);
	sb_puts(b, isfinite(v) ? buf : "-");
}

static void details(sbuf *b, const wasp_plan *p)
{
	const wpl_summary *s = &p->sum;
	sb_puts(b, "<section id=\"details\"><h2>The solve</h2><table>");
	row_start(b, "mode");
	esc_or_dash(b, s->mode);
	if (s->mode_reason) {
		sb_puts(b, " (");
		sb_html(b, s->mode_reason);
		sb_puts(b, ")");
	}
	sb_puts(b, "</td></tr>");
	row_start(b, "status");
	esc_or_dash(b, s->status);
	sb_puts(b, "</td></tr>");
	row_start(b, "objective, bound, gap");
	num(b, s->objective);
	sb_puts(b, ", ");
	num(b, s->bound);
	sb_puts(b, ", ");
	if (isfinite(s->gap))
		sb_printf(b, "%.3g%%", 100 * s->gap);
	else
		sb_puts(b, "-");
	sb_puts(b, "</td></tr>");
	row_start(b, "admitted work by priority");
	if (!s->tiers.nprio)
		sb_puts(b, "nothing pending");
	for (int i = 0; i < s->tiers.nprio && i < WP_MAX_TIERS; i++) {
		sb_printf(b, "%spriority %d: ", i ? "; " : "",
			  (int)s->tiers.prio[i]);
		num(b, s->tiers.work[i]);
	}
	sb_puts(b, " (");
	esc_or_dash(b, s->value);
	sb_puts(b, ")</td></tr>");
	row_start(b, "other tiers");
	sb_puts(b, "PDB violations ");
	num(b, s->tiers.pdb_violations);
	sb_puts(b, ", evictions ");
	num(b, s->tiers.evictions);
	sb_puts(b, ", moves ");
	num(b, s->tiers.moves);
	sb_puts(b, ", packing ");
	num(b, s->tiers.packing);
	sb_puts(b, "</td></tr>");
	row_start(b, "domains");
	esc_or_dash(b, s->domain_mode);
	for (int i = 0; i < p->nfrag; i++) {
		sb_puts(b, "; free ");
		esc_or_dash(b, p->frag[i].key);
		sb_printf(b, " domains %d before the moves, %d after",
			  p->frag[i].before, p->frag[i].after);
	}
	sb_puts(b, "</td></tr>");
	if (p->gang_shape) {
		row_start(b, "largest gang");
		esc_or_dash(b, p->gang_shape);
		sb_puts(b, " in one ");
		sb_html(b, p->gang_key ? p->gang_key : "cluster");
		sb_printf(b, ": %d before the plan, %d after</td></tr>",
			  p->gang_before, p->gang_after);
	}
	row_start(b, "times");
	sb_printf(b, "load %.3f s, reduce %.3f s, greedy %.3f s, ilp %.3f s, "
		     "total %.3f s</td></tr>", s->t_load, s->t_reduce,
		  s->t_greedy, s->t_ilp, s->t_total);
	if (s->cols) {
		row_start(b, "model");
		sb_printf(b, "%d rows, %d columns (%d integer), %d nonzeros"
			     "</td></tr>", s->rows, s->cols, s->ints,
			  s->nonzeros);
	}
	sb_puts(b, "</table>\n");
	if (s->nutil) {
		sb_puts(b, "<table><tr><th>resource</th><th class=\"n\">"
			   "allocatable</th><th class=\"n\">before</th><th "
			   "class=\"n\">after</th><th>in use (grey before, "
			   "blue after)</th></tr>");
		for (int i = 0; i < s->nutil; i++) {
			const wpl_util *u = &s->util[i];
			double pb = u->alloc > 0 ? 100 * u->before / u->alloc
						 : 0;
			double pa = u->alloc > 0 ? 100 * u->after / u->alloc
						 : 0;
			sb_puts(b, "<tr><td>");
			esc_or_dash(b, u->resource);
			sb_puts(b, "</td><td class=\"n\">");
			units(b, u->resource, u->alloc);
			sb_puts(b, "</td><td class=\"n\">");
			units(b, u->resource, u->before);
			sb_printf(b, " (%.1f%%)</td><td class=\"n\">", pb);
			units(b, u->resource, u->after);
			sb_printf(b, " (%.1f%%)</td><td><span class=\"meter\">"
				     "<i style=\"width:%.1f%%\"></i><i "
				     "class=\"a\" style=\"width:%.1f%%\"></i>"
				     "</span></td></tr>",
				  pa, fmin(pb, 100), fmin(pa, 100));
		}
		sb_puts(b, "</table>\n");
	}
	sb_puts(b, "</section>\n");
}

/* ------------------------------------------------------------ tables */

/* Nodes of each admitted group, from the picture: "n1 x2, n2 x2". */
static void group_nodes(sbuf *b, const wh_pic *pc, int kind, int *shown,
			int *total)
{
	const ws_snapshot *s = pc->s;
	for (int n = 0; n < s->nnodes; n++) {
		const wh_node *w = &pc->nodes[n];
		for (int i = 0; i < w->nnew; i++) {
			if (w->news[i].kind != kind)
				continue;
			if (shown[kind] < WR_NODES_SHOWN) {
				if (shown[kind]++)
					sb_puts(b, ", ");
				sb_html(b, s->nodes[n].name);
				sb_printf(b, " \xc3\x97%d", w->news[i].pods);
			}
			total[kind]++;
		}
	}
}

static void admitted(sbuf *b, const wasp_plan *p, const wh_pic *pc)
{
	sb_printf(b, "<section id=\"admitted\"><h2>Admitted (%d group%s)"
		     "</h2>\n", p->nadmit, plural(p->nadmit));
	if (!p->nadmit) {
		sb_puts(b, "<p>None.</p></section>\n");
		return;
	}
	size_t nk = (size_t)(WH_GROUP + p->nadmit);
	int *shown = calloc(nk, sizeof *shown), *total = calloc(nk,
								 sizeof *total);
	if (!shown || !total) {
		free(shown);
		free(total);
		b->fail = true;
		return;
	}
	sb_puts(b, "<table><tr><th></th><th>group</th><th class=\"n\">pods "
		   "placed / pending</th><th class=\"n\">running</th><th "
		   "class=\"n\">priority</th><th>domain</th><th>nodes (pods)"
		   "</th></tr>\n");
	for (int i = 0; i < p->nadmit; i++) {
		const wpl_admit *a = &p->admit[i];
		sb_puts(b, "<tr><td>");
		wh_swatch(b, WH_GROUP + i);
		sb_puts(b, "</td><td>");
		ns_name(b, a->ns, a->group);
		sb_printf(b, "</td><td class=\"n\">%d / %d</td><td class=\"n\">"
			     "%d</td><td class=\"n\">%d</td><td>", a->pods,
			  a->pending, a->running, (int)a->priority);
		if (a->key) {
			sb_html(b, a->key);
			sb_puts(b, "=");
			esc_or_dash(b, a->domain);
		} else {
			sb_puts(b, "-");
		}
		sb_puts(b, "</td><td>");
		group_nodes(b, pc, WH_GROUP + i, shown, total);
		if (total[WH_GROUP + i] > shown[WH_GROUP + i])
			sb_printf(b, ", ... (%d nodes)", total[WH_GROUP + i]);
		sb_puts(b, "</td></tr>\n");
	}
	sb_puts(b, "</table></section>\n");
	free(shown);
	free(total);
}

static void waiting(sbuf *b, const wasp_plan *p)
{
	sb_printf(b, "<section id=\"waiting\"><h2>Waiting (%d)</h2>\n",
		  p->nwait);
	if (!p->nwait) {
		sb_puts(b, "<p>Nothing waits.</p></section>\n");
		return;
	}
	sb_puts(b, "<table><tr><th>group</th><th>kind</th><th class=\"n\">"
		   "pods</th><th class=\"n\">priority</th><th>reason</th>"
		   "</tr>\n");
	for (int i = 0; i < p->nwait; i++) {
		const wpl_wait *w = &p->wait[i];
		sb_puts(b, "<tr><td>");
		ns_name(b, w->ns, w->group);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, w->kind);
		sb_printf(b, "</td><td class=\"n\">%d</td><td class=\"n\">%d"
			     "</td><td>", w->pods, (int)w->priority);
		esc_or_dash(b, w->reason);
		sb_puts(b, "</td></tr>\n");
	}
	sb_puts(b, "</table></section>\n");
}

/* What the evictions buy: admitted pods per priority with and without. */
static void buy(sbuf *b, const wasp_plan *p)
{
	if (p->nbuy <= 0 || !p->buy)
		return;
	sb_puts(b, "<h3 id=\"buy\">What the evictions buy</h3><table><tr><th "
		   "class=\"n\">priority</th><th class=\"n\">pods admitted "
		   "with the evictions</th><th class=\"n\">without</th><th "
		   "class=\"n\">gained</th></tr>\n");
	for (int i = 0; i < p->nbuy; i++) {
		const wpl_buy *x = &p->buy[i];
		sb_printf(b, "<tr><td class=\"n\">%d</td><td class=\"n\">%d"
			     "</td><td class=\"n\">%d</td><td class=\"n\">"
			     "%+d</td></tr>\n", (int)x->priority, x->with,
			  x->without, x->with - x->without);
	}
	sb_puts(b, "</table>\n");
}

static void evictions(sbuf *b, const wasp_plan *p)
{
	if (!p->nevict && p->nbuy <= 0)
		return;
	sb_printf(b, "<section id=\"evictions\"><h2>Evictions (%d pod%s",
		  p->nevict, plural(p->nevict));
	if (p->pdb_violations)
		sb_printf(b, "; <span class=\"pdb\">%d PodDisruptionBudget "
			     "violation%s</span>", p->pdb_violations,
			  plural(p->pdb_violations));
	sb_puts(b, ")</h2>\n");
	buy(b, p);
	if (p->nevict) {
		sb_printf(b, "<details%s><summary>the %d evicted pod%s</summary>",
			  p->nevict <= WR_EVICT_OPEN ? " open" : "", p->nevict,
			  plural(p->nevict));
		sb_puts(b, "<table><tr><th>pod</th><th>node</th><th class=\"n\">"
			   "priority</th><th>whole group</th><th>for</th><th "
			   "class=\"n\">its priority</th><th>PDB</th></tr>\n");
	}
	for (int i = 0; i < p->nevict; i++) {
		const wpl_evict *x = &p->evict[i];
		sb_puts(b, "<tr><td>");
		ns_name(b, x->ns, x->pod);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, x->node);
		sb_printf(b, "</td><td class=\"n\">%d</td><td>",
			  (int)x->priority);
		esc_or_dash(b, x->unit);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, x->by_kind);
		sb_puts(b, " ");
		ns_name(b, x->by_ns, x->by);
		sb_printf(b, "</td><td class=\"n\">%d</td><td>%s</td></tr>\n",
			  (int)x->by_priority,
			  x->pdb_violation ? "<span class=\"pdb\">violated"
					     "</span>"
					   : "");
	}
	if (p->nevict)
		sb_puts(b, "</table></details>");
	sb_puts(b, "</section>\n");
}

static void moves(sbuf *b, const wasp_plan *p)
{
	if (!p->nmove)
		return;
	sb_printf(b, "<section id=\"moves\"><h2>Moves (%d pod%s)</h2><table>"
		     "<tr><th>pod</th><th>group</th><th>from</th><th>to</th>"
		     "</tr>\n", p->nmove, plural(p->nmove));
	for (int i = 0; i < p->nmove; i++) {
		const wpl_move *x = &p->move[i];
		sb_puts(b, "<tr><td>");
		ns_name(b, x->ns, x->pod);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, x->group);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, x->from);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, x->to);
		sb_puts(b, "</td></tr>\n");
	}
	sb_puts(b, "</table></section>\n");
}

static void claims(sbuf *b, const wasp_plan *p)
{
	if (!p->nclaims)
		return;
	sb_printf(b, "<section id=\"claims\"><h2>Device claims (%d)</h2>"
		     "<table><tr><th>claim</th><th>node</th><th>devices "
		     "(request: driver/pool/device)</th></tr>\n", p->nclaims);
	for (int i = 0; i < p->nclaims; i++) {
		const wpl_claim *x = &p->claims[i];
		sb_puts(b, "<tr><td>");
		ns_name(b, x->ns, x->name);
		sb_puts(b, "</td><td>");
		esc_or_dash(b, x->node);
		sb_puts(b, "</td><td>");
		for (int k = 0; k < x->nresults; k++) {
			const wpl_result *r = &x->results[k];
			sb_puts(b, k ? "; " : "");
			esc_or_dash(b, r->request);
			sb_puts(b, ": ");
			esc_or_dash(b, r->driver);
			sb_puts(b, "/");
			esc_or_dash(b, r->pool);
			sb_puts(b, "/");
			esc_or_dash(b, r->device);
		}
		sb_puts(b, "</td></tr>\n");
	}
	sb_puts(b, "</table></section>\n");
}

static void warnings(sbuf *b, const wasp_plan *p, const ws_snapshot *s)
{
	if (!p->nwarnings && !s->nwarnings)
		return;
	sb_puts(b, "<section id=\"warnings\"><h2>Warnings</h2><ul>");
	for (int pass = 0; pass < 2; pass++) {
		int n = pass ? s->nwarnings : p->nwarnings;
		for (int i = 0; i < n; i++) {
			sb_puts(b, "<li>");
			sb_html(b, pass ? s->warnings[i] : p->warnings[i]);
			sb_puts(b, pass ? " (snapshot)</li>" : "</li>");
		}
	}
	sb_puts(b, "</ul></section>\n");
}

/* ------------------------------------------------------------ entry */

char *wr_html(const ws_snapshot *s, const wasp_plan *p, int detail_nodes,
	      wasp_error *err)
{
	wa_arena *a = wa_new();
	if (!a) {
		werr(err, WASP_ENOMEM, "out of memory rendering the plan");
		return NULL;
	}
	if (detail_nodes <= 0)
		detail_nodes = WR_HTML_DETAIL_NODES;
	wh_pic pc;
	size_t nviol = 0;
	char *rep = NULL;
	if (wh_build(s, p, a, &pc, err) ||
	    wv_check(s, p, a, &nviol, &rep, err)) {
		wa_destroy(a);
		return NULL;
	}
	sbuf b = {0};
	head(&b, p);
	wh_defs(&b);
	verdict(&b, p, &pc, nviol, rep);
	summary(&b, p);
	evictions(&b, p);
	wh_picture(&b, &pc, detail_nodes);
	details(&b, p);
	admitted(&b, p, &pc);
	waiting(&b, p);
	moves(&b, p);
	claims(&b, p);
	warnings(&b, p, s);
	sb_printf(&b, "<footer class=\"note\"><p>wasp %s, plan %s.</p>"
		      "</footer>\n</body></html>\n",
		  WASP_VERSION, WASP_PLAN_API_VERSION);
	wa_destroy(a);
	return sb_finish(&b, err);
}
