/*
 * html_svg.c -- the picture of the HTML report: the topology as nested
 * boxes in inline SVG, each node with two bars (its main resource before
 * and after the plan), coloured by who uses it (doc/output.md, "The HTML
 * report").
 *
 * Layout is shelf packing: a box's children go left to right and wrap at
 * a width that shrinks with depth; a box holding only nodes wraps at
 * WH_LEAF_COLS nodes.  The same function measures (first pass) and draws
 * (second pass), so the two agree by construction.
 *
 * Above detail_nodes nodes the overview draws each finest domain as one
 * cell with the same two bars over all its nodes (fractions of each
 * node's main resource, averaged), and every domain one level up gets a
 * drill-down section of its own, with every node, behind an anchor.
 *
 * Bars are stroked paths (one per segment kind and node), and the node
 * backgrounds are <use> of shared shapes, which keeps a 10,000-node page
 * within a few megabytes.
 */
#include "plan/html_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/quantity.h"

#define WH_NODE_W 64      /* a node cell                              */
#define WH_AGG_W 66       /* an aggregate cell                        */
#define WH_CELL_H 40
#define WH_PAD 6          /* inside a domain box                      */
#define WH_HEAD 20        /* a domain box's header line               */
#define WH_GAP 5          /* between cells and boxes                  */
#define WH_PAGE_W 1200    /* the widest box                           */
#define WH_LEAF_COLS 8    /* nodes per row in a box of nodes only     */
#define WH_BAR_X 4
#define WH_BAR1_Y 19.5    /* middle of the "before" bar (9 px high)   */
#define WH_BAR2_Y 31.5    /* middle of the "after" bar                */
#define WH_NAME_CHARS 10  /* node names longer than this are cut      */
#define WH_LEGEND_GROUPS 24 /* groups named in the legend             */
#define WH_TITLE_GROUPS 8 /* groups named in an aggregate's title     */
#define WH_HEAD_FIGURES_W 330 /* boxes this wide have figures in their
				  header line                          */
#define WH_MAX_SEGS 64    /* segments of one bar; the rest would not
			     show anyway                              */

typedef struct dctx {
	sbuf *b;
	const wh_pic *pc;
	bool agg;         /* overview by finest domain                    */
	int drill;        /* level of the drill-down domains              */
	int *w, *h;       /* measured size per domain                     */
	double *fb, *fa;  /* per kind: fractions before/after (aggregates) */
	int64_t *ab, *aa, *al; /* per resource: before, after, allocatable */
	int *gp;          /* per kind: pods placed (aggregates)           */
	int nkinds;
} dctx;

/* ------------------------------------------------------------ kinds */

static void kind_class(int kind, char *buf, size_t size)
{
	static const char *const fixed[] = {"r", "e", "mo", "mi", "lp"};
	if (kind < WH_GROUP)
		snprintf(buf, size, "%s", fixed[kind]);
	else
		snprintf(buf, size, "g%d", kind - WH_GROUP);
}

void wh_css_kinds(sbuf *b, int nadmit)
{
	sb_puts(b, ".r{fill:#9aa4b1;stroke:#9aa4b1}"
		   ".e{fill:url(#pe);stroke:url(#pe)}"
		   ".mo{fill:url(#pm);stroke:url(#pm)}"
		   ".mi{fill:#7b4fa6;stroke:#7b4fa6}"
		   ".lp{fill:#222;stroke:#222}\n");
	for (int i = 0; i < nadmit; i++) {
		/* golden-angle hues, three lightness steps */
		double hue = fmod(i * 137.508 + 200, 360);
		int light = 42 + 9 * (i % 3);
		sb_printf(b, ".g%d{fill:hsl(%.0f,70%%,%d%%);stroke:hsl(%.0f,"
			     "70%%,%d%%)}\n", i, hue, light, hue, light);
	}
}

void wh_swatch(sbuf *b, int kind)
{
	char c[24];
	kind_class(kind, c, sizeof c);
	sb_printf(b, "<svg class=\"sw\" width=\"12\" height=\"12\"><rect "
		     "class=\"%s\" width=\"12\" height=\"12\"/></svg>", c);
}

void wh_defs(sbuf *b)
{
	sb_printf(b,
	    "<svg width=\"0\" height=\"0\" style=\"position:absolute\" "
	    "aria-hidden=\"true\"><defs>"
	    "<pattern id=\"pe\" width=\"4\" height=\"4\" patternUnits="
	    "\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect "
	    "width=\"4\" height=\"4\" fill=\"#f4b6b6\"/><rect width=\"2\" "
	    "height=\"4\" fill=\"#d62728\"/></pattern>"
	    "<pattern id=\"pm\" width=\"4\" height=\"4\" patternUnits="
	    "\"userSpaceOnUse\" patternTransform=\"rotate(-45)\"><rect "
	    "width=\"4\" height=\"4\" fill=\"#e3d3f0\"/><rect width=\"2\" "
	    "height=\"4\" fill=\"#7b4fa6\"/></pattern>"
	    "<g id=\"nb\"><rect class=\"cb\" width=\"%d\" height=\"%d\"/>"
	    "<path class=\"fb\" d=\"M%d %.1fh%dM%d %.1fh%d\"/></g>"
	    "<g id=\"ab\"><rect class=\"cb\" width=\"%d\" height=\"%d\"/>"
	    "<path class=\"fb\" d=\"M%d %.1fh%dM%d %.1fh%d\"/></g>"
	    "</defs></svg>\n",
	    WH_NODE_W, WH_CELL_H, WH_BAR_X, WH_BAR1_Y, WH_NODE_W - 2 * WH_BAR_X,
	    WH_BAR_X, WH_BAR2_Y, WH_NODE_W - 2 * WH_BAR_X, WH_AGG_W, WH_CELL_H,
	    WH_BAR_X, WH_BAR1_Y, WH_AGG_W - 2 * WH_BAR_X, WH_BAR_X, WH_BAR2_Y,
	    WH_AGG_W - 2 * WH_BAR_X);
}

void wh_qty(sbuf *b, const ws_snapshot *s, int r, int64_t milli)
{
	char buf[64];
	if (r == s->nres) {
		sb_printf(b, "%lld", (long long)(milli / 1000));
		return;
	}
	wq_format(milli, wq_is_bytes_resource(s->res[r]), buf, sizeof buf);
	sb_puts(b, buf);
}

/* The name of what a node's bars measure. */
static const char *res_name(const ws_snapshot *s, int r)
{
	return r == s->nres ? "devices (DRA)" : s->res[r];
}

/* "kueue.x-k8s.io/rack" -> "rack" */
static const char *short_key(const char *key)
{
	const char *s = key ? strrchr(key, '/') : NULL;
	return s ? s + 1 : key ? key : "";
}

static void group_name(sbuf *b, const wasp_plan *p, int kind)
{
	if (kind == WH_LONE) {
		sb_puts(b, "pods without a group");
		return;
	}
	const wpl_admit *a = &p->admit[kind - WH_GROUP];
	sb_html(b, a->ns);
	sb_puts(b, "/");
	sb_html(b, a->group);
}

/* A name cut to `max` characters (not inside a UTF-8 sequence). */
static void cut_name(sbuf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max) {
		sb_html(b, s);
		return;
	}
	n = max - 1;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	char buf[64];
	snprintf(buf, sizeof buf, "%.*s", (int)n, s);
	sb_html(b, buf);
	sb_puts(b, "\xe2\x80\xa6");
}

/* ------------------------------------------------------------ bars */

typedef struct seg {
	int kind;
	double frac;
} seg;

/* One stroked path per segment.  The running work that stays opens both
 * bars, so one path draws it in both. */
static void bars(sbuf *b, int width, double run, const seg *before, int nb,
		 const seg *after, int na)
{
	double full = width - 2 * WH_BAR_X;
	double r = fmin(run, 1) * full;
	if (r > 0)
		sb_printf(b, "<path class=\"r\" d=\"M%d %.1fh%.1f"
			     "M%d %.1fh%.1f\"/>",
			  WH_BAR_X, WH_BAR1_Y, r, WH_BAR_X, WH_BAR2_Y, r);
	else
		r = 0;
	for (int pass = 0; pass < 2; pass++) {
		const seg *sg = pass ? after : before;
		int n = pass ? na : nb;
		double x = r, y = pass ? WH_BAR2_Y : WH_BAR1_Y;
		for (int i = 0; i < n; i++) {
			if (sg[i].frac <= 0 || x >= full)
				continue;
			/* at least a pixel, so one small pod shows */
			double w = fmax(sg[i].frac * full, 1);
			if (x + w > full)
				w = full - x;
			char c[24];
			kind_class(sg[i].kind, c, sizeof c);
			sb_printf(b, "<path class=\"%s\" d=\"M%.1f %.1fh%.1f\"/>",
				  c, WH_BAR_X + x, y, w);
			x += w;
		}
	}
}

/* ------------------------------------------------------------ cells */

static int64_t after_used(const wh_node *w)
{
	int64_t u = w->run + w->move_in;
	for (int i = 0; i < w->nnew; i++)
		u += w->news[i].amt;
	return u;
}

static void node_title(dctx *c, int n)
{
	const ws_snapshot *s = c->pc->s;
	const wh_node *w = &c->pc->nodes[n];
	sbuf *b = c->b;
	int r = w->res;
	sb_puts(b, "<title>");
	sb_html(b, s->nodes[n].name);
	sb_puts(b, "\n");
	sb_html(b, res_name(s, r));
	sb_puts(b, ": ");
	wh_qty(b, s, r, w->alloc);
	sb_puts(b, " allocatable\nbefore: ");
	wh_qty(b, s, r, w->run + w->evict + w->move_out);
	sb_puts(b, " in use");
	if (w->evict) {
		sb_puts(b, ", ");
		wh_qty(b, s, r, w->evict);
		sb_puts(b, " evicted");
	}
	if (w->move_out) {
		sb_puts(b, ", ");
		wh_qty(b, s, r, w->move_out);
		sb_puts(b, " moving away");
	}
	sb_puts(b, "\nafter: ");
	wh_qty(b, s, r, after_used(w));
	sb_puts(b, " in use");
	if (w->move_in) {
		sb_puts(b, ", ");
		wh_qty(b, s, r, w->move_in);
		sb_puts(b, " moved in");
	}
	for (int i = 0; i < w->nnew; i++) {
		sb_puts(b, "\n  + ");
		group_name(b, c->pc->p, w->news[i].kind);
		sb_puts(b, ": ");
		wh_qty(b, s, r, w->news[i].amt);
		sb_printf(b, " (%d pod%s)", w->news[i].pods,
			  w->news[i].pods == 1 ? "" : "s");
	}
	sb_printf(b, "\npods: %d before, %d after", w->pods_before,
		  w->pods_after);
	if (w->pods_after == 0)
		sb_puts(b, "; wholly free after the plan");
	if (w->unsched)
		sb_puts(b, "\nnot schedulable (cordoned or not ready)");
	sb_puts(b, "</title>");
}

static double frac(int64_t amt, int64_t alloc)
{
	return alloc > 0 ? (double)amt / (double)alloc : 0;
}

static void draw_node(dctx *c, int n, int x, int y)
{
	const wh_node *w = &c->pc->nodes[n];
	sbuf *b = c->b;
	sb_printf(b, "<g class=\"nd%s%s\" transform=\"translate(%d,%d)\">",
		  w->pods_after == 0 ? " fr" : "", w->unsched ? " u" : "", x,
		  y);
	node_title(c, n);
	sb_puts(b, "<use href=\"#nb\"/><text x=\"4\" y=\"11\">");
	cut_name(b, c->pc->s->nodes[n].name, WH_NAME_CHARS);
	sb_puts(b, "</text>");
	seg before[2] = {{WH_EVICT, frac(w->evict, w->alloc)},
			 {WH_MOVE_OUT, frac(w->move_out, w->alloc)}};
	seg after[WH_MAX_SEGS];
	int na = 0;
	after[na++] = (seg){WH_MOVE_IN, frac(w->move_in, w->alloc)};
	for (int i = 0; i < w->nnew && na < WH_MAX_SEGS; i++)
		after[na++] = (seg){w->news[i].kind,
				    frac(w->news[i].amt, w->alloc)};
	bars(b, WH_NODE_W, frac(w->run, w->alloc), before, 2, after, na);
	sb_puts(b, "</g>");
}

/* One cell for a set of nodes: bars of averaged fractions. */
static void draw_agg(dctx *c, const char *label, int dom, const int *nodes,
		     int nn, bool free_after, int x, int y)
{
	const wh_pic *pc = c->pc;
	const ws_snapshot *s = pc->s;
	sbuf *b = c->b;
	int counted = 0, pb = 0, pa = 0;
	double run = 0;
	memset(c->fb, 0, sizeof(double) * (size_t)c->nkinds);
	memset(c->fa, 0, sizeof(double) * (size_t)c->nkinds);
	memset(c->gp, 0, sizeof(int) * (size_t)c->nkinds);
	size_t nr = (size_t)s->nres + 1; /* and the devices */
	memset(c->ab, 0, sizeof(int64_t) * nr);
	memset(c->aa, 0, sizeof(int64_t) * nr);
	memset(c->al, 0, sizeof(int64_t) * nr);
	for (int i = 0; i < nn; i++) {
		const wh_node *w = &pc->nodes[nodes[i]];
		pb += w->pods_before;
		pa += w->pods_after;
		c->ab[w->res] += w->run + w->evict + w->move_out;
		c->aa[w->res] += after_used(w);
		c->al[w->res] += w->alloc;
		for (int k = 0; k < w->nnew; k++)
			c->gp[w->news[k].kind] += w->news[k].pods;
		if (w->alloc <= 0)
			continue;
		counted++;
		run += frac(w->run, w->alloc);
		c->fb[WH_EVICT] += frac(w->evict, w->alloc);
		c->fb[WH_MOVE_OUT] += frac(w->move_out, w->alloc);
		c->fa[WH_MOVE_IN] += frac(w->move_in, w->alloc);
		for (int k = 0; k < w->nnew; k++)
			c->fa[w->news[k].kind] += frac(w->news[k].amt,
						       w->alloc);
	}
	double dn = counted ? counted : 1;
	sb_printf(b, "<g class=\"ag%s\" transform=\"translate(%d,%d)\">"
		     "<title>", free_after ? " fr" : "", x, y);
	sb_html(b, label);
	sb_printf(b, ": %d node%s", nn, nn == 1 ? "" : "s");
	for (size_t r = 0; r < nr; r++) {
		if (!c->al[r])
			continue;
		sb_puts(b, "\n");
		sb_html(b, res_name(s, (int)r));
		sb_puts(b, ": ");
		wh_qty(b, s, (int)r, c->al[r]);
		sb_puts(b, " allocatable, ");
		wh_qty(b, s, (int)r, c->ab[r]);
		sb_puts(b, " in use before, ");
		wh_qty(b, s, (int)r, c->aa[r]);
		sb_puts(b, " after");
	}
	sb_printf(b, "\npods: %d before, %d after", pb, pa);
	for (int k = WH_LONE, shown = 0; k < c->nkinds; k++) {
		if (!c->gp[k])
			continue;
		if (shown++ == WH_TITLE_GROUPS) {
			sb_puts(b, "\n  + more");
			break;
		}
		sb_puts(b, "\n  + ");
		group_name(b, pc->p, k);
		sb_printf(b, ": %d pod%s", c->gp[k], c->gp[k] == 1 ? "" : "s");
	}
	if (free_after)
		sb_puts(b, "\nwholly free after the plan");
	if (dom >= 0)
		sb_puts(b, "\nclick for its nodes");
	sb_puts(b, "</title><use href=\"#ab\"/><text x=\"4\" y=\"11\">");
	cut_name(b, label, WH_NAME_CHARS - 2);
	sb_puts(b, "</text>");
	seg before[2] = {{WH_EVICT, c->fb[WH_EVICT] / dn},
			 {WH_MOVE_OUT, c->fb[WH_MOVE_OUT] / dn}};
	seg after[WH_MAX_SEGS];
	int na = 0;
	for (int k = WH_MOVE_IN; k < c->nkinds && na < WH_MAX_SEGS; k++)
		if (c->fa[k] > 0)
			after[na++] = (seg){k, c->fa[k] / dn};
	bars(b, WH_AGG_W, run / dn, before, 2, after, na);
	sb_puts(b, "</g>");
}

/* ------------------------------------------------------------ layout */

typedef struct shelf {
	int x, y, rowh, maxx, pad, maxw;
} shelf;

static void shelf_place(shelf *s, int w, int h, int *px, int *py)
{
	if (s->x > s->pad && s->x + w > s->maxw - s->pad) {
		s->x = s->pad;
		s->y += s->rowh + WH_GAP;
		s->rowh = 0;
	}
	*px = s->x;
	*py = s->y;
	s->x += w + WH_GAP;
	if (h > s->rowh)
		s->rowh = h;
	if (s->x - WH_GAP > s->maxx)
		s->maxx = s->x - WH_GAP;
}

static bool is_cell(const dctx *c, int d)
{
	return c->agg && c->pc->doms[d].level == c->pc->nlev && d;
}

static void draw_box(dctx *c, int d, int x, int y);

/* Lay out the children of box d (or of the root) and, when emit, draw
 * them; the size goes to c->w[d], c->h[d]. */
static void layout(dctx *c, int d, bool emit)
{
	const wh_dom *x = &c->pc->doms[d];
	bool root = d == 0;
	shelf s = {0};
	s.pad = root ? 0 : WH_PAD;
	s.x = s.maxx = s.pad;
	s.y = root ? 0 : WH_HEAD;
	s.maxw = WH_PAGE_W - 2 * (WH_PAD + 1) * x->level;
	if (!x->nkids && !c->agg) {
		int leaf = 2 * WH_PAD + WH_LEAF_COLS * (WH_NODE_W + WH_GAP);
		if (leaf < s.maxw)
			s.maxw = leaf;
	}
	int px, py;
	for (int i = 0; i < x->nkids; i++) {
		int k = x->kids[i];
		bool cell = is_cell(c, k);
		if (!cell && !emit)
			layout(c, k, false);
		shelf_place(&s, cell ? WH_AGG_W : c->w[k],
			    cell ? WH_CELL_H : c->h[k], &px, &py);
		if (!emit)
			continue;
		bool link = c->agg && c->pc->doms[k].level == c->drill;
		if (link)
			sb_printf(c->b, "<a href=\"#d%d\">", k);
		if (cell)
			draw_agg(c, c->pc->doms[k].name, k, c->pc->doms[k].nodes,
				 c->pc->doms[k].nnodes,
				 c->pc->doms[k].free_after, px, py);
		else
			draw_box(c, k, px, py);
		if (link)
			sb_puts(c->b, "</a>");
	}
	if (c->agg && x->nnodes) {
		shelf_place(&s, WH_AGG_W, WH_CELL_H, &px, &py);
		if (emit) {
			char label[64];
			snprintf(label, sizeof label, "%d other node%s",
				 x->nnodes, x->nnodes == 1 ? "" : "s");
			bool fr = true;
			for (int i = 0; i < x->nnodes; i++)
				fr = fr && !c->pc->nodes[x->nodes[i]].pods_after;
			/* inside a linked drill-down box: no nested link */
			bool link = d == 0 || x->level < c->drill;
			if (link)
				sb_puts(c->b, "<a href=\"#dn\">");
			draw_agg(c, label, link ? 0 : -1, x->nodes, x->nnodes,
				 fr, px, py);
			if (link)
				sb_puts(c->b, "</a>");
		}
	} else {
		for (int i = 0; i < x->nnodes; i++) {
			shelf_place(&s, WH_NODE_W, WH_CELL_H, &px, &py);
			if (emit)
				draw_node(c, x->nodes[i], px, py);
		}
	}
	c->w[d] = s.maxx + s.pad;
	c->h[d] = s.y + s.rowh + s.pad;
}

static void draw_box(dctx *c, int d, int x, int y)
{
	const wh_dom *m = &c->pc->doms[d];
	sbuf *b = c->b;
	bool freed = m->free_after && !m->free_before;
	sb_printf(b, "<g class=\"dm%s\" transform=\"translate(%d,%d)\">"
		     "<title>", m->free_after ? " fr" : "", x, y);
	sb_html(b, m->key);
	sb_puts(b, "=");
	sb_html(b, m->name);
	sb_printf(b, ": %d node%s", m->total, m->total == 1 ? "" : "s");
	const ws_snapshot *s = c->pc->s;
	int r = c->pc->main;
	if (m->alloc) {
		sb_puts(b, "\n");
		sb_html(b, res_name(s, r));
		sb_puts(b, ": ");
		wh_qty(b, s, r, m->alloc);
		sb_puts(b, " allocatable, ");
		wh_qty(b, s, r, m->before);
		sb_puts(b, " in use before, ");
		wh_qty(b, s, r, m->after);
		sb_puts(b, " after");
	}
	if (m->evicted)
		sb_printf(b, "\n%d pod%s evicted", m->evicted,
			  m->evicted == 1 ? "" : "s");
	if (m->free_after)
		sb_puts(b, freed ? "\nwholly free after the plan (freed by it)"
				 : "\nwholly free, before and after the plan");
	sb_printf(b, "</title><rect class=\"db\" width=\"%d\" height=\"%d\"/>"
		     "<text class=\"dh\" x=\"%d\" y=\"14\">",
		  c->w[d], c->h[d], WH_PAD);
	sb_html(b, short_key(m->key));
	sb_puts(b, " ");
	sb_html(b, m->name);
	sb_printf(b, " \xc2\xb7 %d node%s", m->total, m->total == 1 ? "" : "s");
	/* in use before -> after, where the box is wide enough */
	if (m->alloc && c->w[d] >= WH_HEAD_FIGURES_W) {
		sb_puts(b, " \xc2\xb7 ");
		sb_html(b, short_key(res_name(s, r)));
		sb_puts(b, " ");
		wh_qty(b, s, r, m->before);
		sb_puts(b, " \xe2\x86\x92 ");
		wh_qty(b, s, r, m->after);
		sb_puts(b, " of ");
		wh_qty(b, s, r, m->alloc);
	}
	if (m->evicted && c->w[d] >= WH_HEAD_FIGURES_W)
		sb_printf(b, " \xc2\xb7 %d evicted", m->evicted);
	sb_printf(b, "%s</text>",
		  m->free_after ? (freed ? " \xc2\xb7 FREED" : " \xc2\xb7 FREE")
				: "");
	layout(c, d, true);
	sb_puts(b, "</g>");
}

/* One SVG: box d's content (the root: the whole overview). */
static void svg(dctx *c, int d, const char *label)
{
	sbuf *b = c->b;
	layout(c, d, false);
	int w = c->w[d], h = c->h[d];
	sb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		     "aria-label=\"", w + 2, h + 2, w + 2, h + 2);
	sb_html(b, label);
	sb_puts(b, "\"><g transform=\"translate(1,1)\">");
	if (d)
		draw_box(c, d, 0, 0);
	else
		layout(c, 0, true);
	sb_puts(b, "</g></svg>\n");
}

/* A flat SVG of nodes outside every drill-down domain. */
static void svg_nodes(dctx *c, const int *nodes, int nn)
{
	shelf s = {0};
	s.maxw = WH_PAGE_W;
	int px, py;
	for (int pass = 0; pass < 2; pass++) {
		shelf t = s;
		for (int i = 0; i < nn; i++) {
			shelf_place(&t, WH_NODE_W, WH_CELL_H, &px, &py);
			if (pass)
				draw_node(c, nodes[i], px, py);
		}
		if (!pass)
			sb_printf(c->b, "<svg xmlns=\"http://www.w3.org/2000/"
				  "svg\" width=\"%d\" height=\"%d\" role=\"img\""
				  " aria-label=\"nodes\">", t.maxx + 1,
				  t.y + t.rowh + 1);
	}
	sb_puts(c->b, "</svg>\n");
}

/* ------------------------------------------------------------ legend */

static void legend(dctx *c)
{
	const wh_pic *pc = c->pc;
	const wasp_plan *p = pc->p;
	sbuf *b = c->b;
	sb_puts(b, "<p class=\"note\">Each node shows two bars: above, its ");
	if (pc->accel >= 0) {
		sb_html(b, pc->s->res[pc->accel]);
		sb_puts(b, pc->devices ? " (DRA devices, else CPU, on nodes "
					 "without it)"
				       : " (CPU on nodes without it)");
	} else {
		sb_puts(b, pc->devices ? "DRA devices (CPU on nodes without)"
				       : "CPU");
	}
	sb_puts(b, " before the plan; below, after it.  Hover over a node "
		   "or a domain for its figures.</p>\n<ul class=\"legend\">");
	static const char *const fixed[] = {
	    "running, stays", "evicted by the plan", "moving away",
	    "moved here", "placed, no PodGroup"};
	for (int k = 0; k <= WH_LONE; k++) {
		sb_puts(b, "<li>");
		wh_swatch(b, k);
		sb_printf(b, " %s</li>", fixed[k]);
	}
	sb_puts(b, "<li><svg class=\"sw\" width=\"12\" height=\"12\"><rect "
		   "class=\"cb\" width=\"12\" height=\"12\"/></svg> free</li>"
		   "<li><svg class=\"sw\" width=\"22\" height=\"12\"><g "
		   "class=\"dm fr\"><rect class=\"db\" width=\"22\" "
		   "height=\"12\"/></g></svg> domain or node left wholly "
		   "free</li></ul>\n");
	if (!p->nadmit)
		return;
	sb_puts(b, "<ul class=\"legend\">");
	for (int i = 0; i < p->nadmit && i < WH_LEGEND_GROUPS; i++) {
		sb_puts(b, "<li>");
		wh_swatch(b, WH_GROUP + i);
		sb_puts(b, " ");
		group_name(b, p, WH_GROUP + i);
		sb_printf(b, " (%d pod%s)</li>", p->admit[i].pods,
			  p->admit[i].pods == 1 ? "" : "s");
	}
	if (p->nadmit > WH_LEGEND_GROUPS)
		sb_printf(b, "<li>and %d more groups: see <a href=\"#admitted\">"
			     "Admitted</a></li>", p->nadmit - WH_LEGEND_GROUPS);
	sb_puts(b, "</ul>\n");
}

/* ------------------------------------------------------------ entry */

void wh_picture(sbuf *b, const wh_pic *pc, int detail_nodes)
{
	const ws_snapshot *s = pc->s;
	dctx c = {.b = b, .pc = pc};
	c.nkinds = WH_GROUP + pc->p->nadmit;
	size_t nr = (size_t)s->nres + 1; /* and the devices */
	c.w = wa_calloc(pc->a, (size_t)pc->ndoms, sizeof *c.w);
	c.h = wa_calloc(pc->a, (size_t)pc->ndoms, sizeof *c.h);
	c.fb = wa_calloc(pc->a, (size_t)c.nkinds, sizeof *c.fb);
	c.fa = wa_calloc(pc->a, (size_t)c.nkinds, sizeof *c.fa);
	c.gp = wa_calloc(pc->a, (size_t)c.nkinds, sizeof *c.gp);
	c.ab = wa_calloc(pc->a, nr, sizeof *c.ab);
	c.aa = wa_calloc(pc->a, nr, sizeof *c.aa);
	c.al = wa_calloc(pc->a, nr, sizeof *c.al);
	if (!c.w || !c.h || !c.fb || !c.fa || !c.gp || !c.ab || !c.aa ||
	    !c.al) {
		b->fail = true;
		return;
	}
	c.agg = s->nnodes > detail_nodes && pc->nlev > 0;
	c.drill = pc->nlev >= 2 ? pc->nlev - 1 : pc->nlev;

	sb_puts(b, "<section id=\"picture\"><h2>The cluster, before and "
		   "after</h2>\n");
	legend(&c);
	if (c.agg)
		sb_printf(b, "<p class=\"note\">%d nodes: one cell per %s "
			     "domain; click a %s for its nodes.</p>\n",
			  s->nnodes, short_key(pc->lev_key[pc->nlev - 1]),
			  short_key(pc->lev_key[c.drill - 1]));
	sb_puts(b, "<div class=\"pic\" id=\"overview\">");
	svg(&c, 0, "the cluster");
	sb_puts(b, "</div>\n");
	if (!c.agg) {
		sb_puts(b, "</section>\n");
		return;
	}
	/* drill-down: each domain of the drill level, then the rest */
	c.agg = false;
	for (int d = 1; d < pc->ndoms; d++) {
		if (pc->doms[d].level != c.drill)
			continue;
		sb_printf(b, "<div class=\"pic drill\" id=\"d%d\"><h3>", d);
		sb_html(b, short_key(pc->doms[d].key));
		sb_puts(b, " ");
		sb_html(b, pc->doms[d].name);
		sb_puts(b, " <a href=\"#overview\">(back to the overview)"
			   "</a></h3>");
		svg(&c, d, pc->doms[d].name);
		sb_puts(b, "</div>\n");
	}
	int *rest = wa_calloc(pc->a, (size_t)s->nnodes + 1, sizeof *rest);
	if (!rest) {
		b->fail = true;
		return;
	}
	int nrest = 0;
	for (int n = 0; n < s->nnodes; n++) {
		int d = pc->nodes[n].dom;
		while (d > 0 && pc->doms[d].level > c.drill)
			d = pc->doms[d].parent;
		if (d == 0 || pc->doms[d].level != c.drill)
			rest[nrest++] = n;
	}
	if (nrest) {
		sb_printf(b, "<div class=\"pic drill\" id=\"dn\"><h3>%d "
			     "node%s outside every ", nrest,
			  nrest == 1 ? "" : "s");
		sb_html(b, short_key(pc->lev_key[c.drill - 1]));
		sb_puts(b, " <a href=\"#overview\">(back to the overview)"
			   "</a></h3>");
		svg_nodes(&c, rest, nrest);
		sb_puts(b, "</div>\n");
	}
	sb_puts(b, "</section>\n");
}
