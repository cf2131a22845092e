/*
 * html_int.h -- the picture behind the HTML report (doc/output.md, "The
 * HTML report"), shared by html_model.c (which builds it from a snapshot
 * and a plan) and render_html.c (which draws it).
 *
 * The picture is a tree of boxes: the topology domains (read in path mode,
 * so every domain has one parent; keys whose domains are all single nodes,
 * such as kubernetes.io/hostname, are left out), with the nodes in the
 * finest domain that holds them.  Each node carries its main resource
 * (the cluster's accelerator resource where the node has it, else CPU)
 * (or, on nodes with DRA devices and without it, the devices; the
 * resource index s->nres stands for them) split into what runs and stays, what is evicted, what moves out, what
 * moves in, and what the plan places, per admitted group.
 */
#ifndef WASP_HTML_INT_H
#define WASP_HTML_INT_H

#include "model/topology.h"
#include "plan/plan.h"
#include "plan/sbuf.h"

/* Bar segment kinds; WH_GROUP + i is the plan's admitted group i. */
enum wh_kind {
	WH_RUN = 0,   /* running before and after                        */
	WH_EVICT,     /* running before, evicted by the plan             */
	WH_MOVE_OUT,  /* running before, moved away by the plan          */
	WH_MOVE_IN,   /* moved here by the plan                          */
	WH_LONE,      /* placed pods without an admitted PodGroup        */
	WH_GROUP
};

/* New placements of one group on one node. */
typedef struct wh_new {
	int kind;      /* WH_LONE or WH_GROUP + admit index */
	int pods;
	int64_t amt;   /* milli-units of the node's main resource */
} wh_new;

typedef struct wh_node {
	int res;          /* snapshot resource drawn for this node; s->nres:
			     its DRA devices (in thousands, as milli-units) */
	int64_t alloc;    /* its allocatable, milli-units                 */
	int64_t run, evict, move_out, move_in; /* milli-units            */
	int pods_before, pods_after;
	int evicted;      /* pods the plan evicts here                    */
	wh_new *news;     /* sorted by kind                               */
	int nnew;
	int dom;          /* the box holding it (wh_dom index, 0: root)   */
	bool unsched;     /* cordoned or not ready                        */
} wh_node;

typedef struct wh_dom {
	const char *key;   /* its topology key; NULL for the root          */
	const char *name;  /* the key's value (last path component)        */
	int level;         /* 0 root, 1.. the kept keys coarse to fine      */
	int parent;        /* -1 for the root                               */
	int *kids, nkids;  /* child domains, by name in natural order       */
	int *nodes, nnodes; /* nodes directly here, likewise                */
	int total;         /* nodes under it                                */
	bool free_before, free_after; /* no pod on any of its nodes        */
	/* over its nodes drawn by the picture's main resource (wh_pic.main),
	 * milli-units: allocatable, in use before and after; and the pods
	 * evicted from all its nodes */
	int64_t alloc, before, after;
	int evicted;
} wh_dom;

typedef struct wh_pic {
	wa_arena *a;
	const ws_snapshot *s;
	const wasp_plan *p;
	int accel;          /* the accelerator resource, -1: none          */
	int cpu;            /* the cpu resource, -1: none                  */
	bool devices;       /* some node is drawn by its DRA devices       */
	int main;           /* what domains sum: accel, else the devices
			       (s->nres) if any, else cpu                */
	wh_node *nodes;     /* per snapshot node                           */
	wh_dom *doms;       /* doms[0] is the root                         */
	int ndoms;
	int nlev;           /* kept topology keys                          */
	const char **lev_key; /* their labels, coarse to fine               */
	int unmatched;      /* plan rows naming no pod or node of the snapshot */
} wh_pic;

/* Build the picture in arena a.  WASP_OK or WASP_ENOMEM. */
int wh_build(const ws_snapshot *s, const wasp_plan *p, wa_arena *a,
	     wh_pic *out, wasp_error *err);

/* ---- html_svg.c: drawing ---- */

/* The picture section: legend, the overview SVG and, when the cluster
 * has more than detail_nodes nodes, the overview by finest domain with
 * one drill-down SVG per domain one level up, linked by anchors. */
void wh_picture(sbuf *b, const wh_pic *pc, int detail_nodes);
/* CSS rules of the segment kinds, one per admitted group included. */
void wh_css_kinds(sbuf *b, int nadmit);
/* A 12x12 swatch of a segment kind, inline. */
void wh_swatch(sbuf *b, int kind);
/* The hidden SVG holding the hatch patterns and shared shapes. */
void wh_defs(sbuf *b);
/* A quantity of resource r (milli-units) as Kubernetes writes it. */
void wh_qty(sbuf *b, const ws_snapshot *s, int r, int64_t milli);

#endif
