/*
 * gen.c -- deterministic instance generator behind `wasp gen`: its options
 * and the order of its phases.
 *
 * Builds a fat-tree GPU cluster (up to three labelled levels above the
 * host), fills about `busy` of its GPUs with running pods scattered at
 * random (so racks end up fragmented, as in real clusters), and adds pending
 * gangs of mixed sizes, priorities and topology constraints.  The result is
 * written as ordinary Kubernetes manifests, YAML documents or a kubectl-style
 * JSON List, through one small emitter so both syntaxes carry the same
 * objects.  All randomness comes from a local splitmix64 stream seeded by
 * the options: same options, same bytes, everywhere.  gen_int.h lists the
 * files of the phases.
 */
#include "gen/gen.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "gen/gen_int.h"

void wgen_options_default(wasp_gen_options *g)
{
	memset(g, 0, sizeof *g);
	g->seed = 1;
	g->levels = 2;
	g->fanout = 4;
	g->nodes = 64;
	g->gpus_per_node = 8;
	g->busy = 0.5;
	g->gangs = 8;
	g->max_gang = 16;
	g->priorities = 3;
	g->json = 0;
	g->family = WGEN_FAMILY_GPU;
	g->rack_nodes = 0;
	g->cpu_nodes = 0.25;
	g->services = 4;
	g->lone_pods = 8;
	g->given = 0;
}

/* ------------------------------------------------------------ options */

static const char *const family_names[WGEN_NFAMILIES] = {
    "gpu", "nvlink", "fragmented", "mixed"};

enum opt_type { OT_U64, OT_INT, OT_DBL, OT_BOOL, OT_FAMILY };

/* The one table of option names, types and ranges: `wasp gen` and the
 * bench harness both go through wasp_gen_option_set. */
static const struct gen_opt {
	const char *name;
	int type;
	double lo, hi;
	size_t off;
} gen_opts[] = {
    {"seed", OT_U64, 0, 0, offsetof(wasp_gen_options, seed)},
    {"levels", OT_INT, 1, 3, offsetof(wasp_gen_options, levels)},
    {"fanout", OT_INT, 1, WGEN_MAX_FANOUT,
     offsetof(wasp_gen_options, fanout)},
    {"nodes", OT_INT, 1, WGEN_MAX_NODES, offsetof(wasp_gen_options, nodes)},
    {"gpus", OT_INT, 0, WGEN_MAX_GPUS,
     offsetof(wasp_gen_options, gpus_per_node)},
    {"busy", OT_DBL, 0, 1, offsetof(wasp_gen_options, busy)},
    {"gangs", OT_INT, 0, WGEN_MAX_GANGS, offsetof(wasp_gen_options, gangs)},
    {"max-gang", OT_INT, 1, WGEN_MAX_GANG,
     offsetof(wasp_gen_options, max_gang)},
    {"priorities", OT_INT, 1, WGEN_MAX_PRIORITIES,
     offsetof(wasp_gen_options, priorities)},
    {"json", OT_BOOL, 0, 1, offsetof(wasp_gen_options, json)},
    {"family", OT_FAMILY, 0, WGEN_NFAMILIES - 1,
     offsetof(wasp_gen_options, family)},
    {"rack-nodes", OT_INT, 0, WGEN_MAX_RACK_NODES,
     offsetof(wasp_gen_options, rack_nodes)},
    {"cpu-nodes", OT_DBL, 0, 0.95, offsetof(wasp_gen_options, cpu_nodes)},
    {"services", OT_INT, 0, WGEN_MAX_GANGS,
     offsetof(wasp_gen_options, services)},
    {"lone-pods", OT_INT, 0, WGEN_MAX_GANGS,
     offsetof(wasp_gen_options, lone_pods)},
    {"trees", OT_INT, 0, WGEN_MAX_GANGS, offsetof(wasp_gen_options, trees)},
    {"dra", OT_BOOL, 0, 1, offsetof(wasp_gen_options, dra)},
    {"running-pods", OT_INT, 0, WGEN_MAX_NODES * 100,
     offsetof(wasp_gen_options, running_pods)},
    {"running-groups", OT_INT, 0, WGEN_MAX_NODES * 100,
     offsetof(wasp_gen_options, running_groups)},
    {"preemptible", OT_BOOL, 0, 1, offsetof(wasp_gen_options, preemptible)},
};
#define NOPTS (sizeof gen_opts / sizeof gen_opts[0])
#define GIVEN_GPUS (1u << 4) /* bit of "gpus" in gen_opts */

int wasp_gen_option_set(wasp_gen_options *g, const char *name,
			const char *value, wasp_error *err)
{
	const struct gen_opt *o = NULL;
	size_t k;
	char *end;

	werr_clear(err);
	if (!g || !name || !value)
		return werr(err, WASP_EINVAL, "wasp_gen_option_set: NULL "
			    "argument");
	for (k = 0; k < NOPTS && !o; k++)
		if (!strcmp(gen_opts[k].name, name))
			o = &gen_opts[k];
	if (!o)
		return werr(err, WASP_EINVAL, "unknown generator option '%s' "
			    "(seed, levels, fanout, nodes, gpus, busy, gangs, "
			    "max-gang, priorities, json, family, rack-nodes, "
			    "cpu-nodes, services, lone-pods, trees, dra, "
			    "running-pods, running-groups, preemptible)", name);
	char *field = (char *)g + o->off;
	errno = 0;
	switch (o->type) {
	case OT_U64: {
		unsigned long long v = strtoull(value, &end, 0);
		if (end == value || *end || errno || value[0] == '-')
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected a non-negative integer)",
				    name, value);
		*(uint64_t *)(void *)field = v;
		break;
	}
	case OT_INT: {
		long v = strtol(value, &end, 10);
		if (end == value || *end || errno || v < o->lo || v > o->hi)
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected an integer from %.0f to %.0f)",
				    name, value, o->lo, o->hi);
		*(int *)(void *)field = (int)v;
		break;
	}
	case OT_DBL: {
		double v = strtod(value, &end);
		if (end == value || *end || errno || !(v >= o->lo) ||
		    !(v <= o->hi))
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected a number from %g to %g)", name,
				    value, o->lo, o->hi);
		*(double *)(void *)field = v;
		break;
	}
	case OT_BOOL: {
		int v;
		if (!strcmp(value, "1") || !strcmp(value, "true"))
			v = 1;
		else if (!strcmp(value, "0") || !strcmp(value, "false"))
			v = 0;
		else
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected true or false)", name, value);
		*(int *)(void *)field = v;
		break;
	}
	case OT_FAMILY: {
		int v = -1;
		for (int f = 0; f < WGEN_NFAMILIES; f++)
			if (!strcmp(value, family_names[f]))
				v = f;
		if (v < 0)
			return werr(err, WASP_EINVAL, "invalid %s value '%s' "
				    "(expected gpu, nvlink, fragmented or "
				    "mixed)", name, value);
		*(int *)(void *)field = v;
		break;
	}
	}
	g->given |= 1u << (o - gen_opts);
	return WASP_OK;
}

/* The options as the generator uses them: family defaults filled in. */
static void resolve_options(const wasp_gen_options *in, wasp_gen_options *o)
{
	*o = *in;
	if (o->family == WGEN_FAMILY_NVLINK) {
		if (!(o->given & GIVEN_GPUS))
			o->gpus_per_node = WGEN_NVLINK_GPUS;
		if (o->rack_nodes == 0)
			o->rack_nodes = WGEN_NVLINK_RACK_NODES;
	}
}

static int check_options(const wasp_gen_options *o, wasp_error *err)
{
	if (o->dra && o->family != WGEN_FAMILY_GPU)
		return werr(err, WASP_EINVAL, "--dra is supported with the gpu "
			    "family only");
	if (o->levels < 1 || o->levels > 3)
		return werr(err, WASP_EINVAL, "levels must be 1, 2 or 3 "
			    "(got %d)", o->levels);
	if (o->fanout < 1 || o->fanout > WGEN_MAX_FANOUT)
		return werr(err, WASP_EINVAL, "fanout must be 1..%d (got %d)",
			    WGEN_MAX_FANOUT, o->fanout);
	if (o->nodes < 1 || o->nodes > WGEN_MAX_NODES)
		return werr(err, WASP_EINVAL, "nodes must be 1..%d (got %d)",
			    WGEN_MAX_NODES, o->nodes);
	if (o->gpus_per_node < 0 || o->gpus_per_node > WGEN_MAX_GPUS)
		return werr(err, WASP_EINVAL, "gpus per node must be 0..%d "
			    "(got %d)", WGEN_MAX_GPUS, o->gpus_per_node);
	if (!(o->busy >= 0 && o->busy <= 1))
		return werr(err, WASP_EINVAL, "busy must be a fraction in "
			    "0..1 (got %g)", o->busy);
	if (o->trees < 0 || o->trees > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "trees must be 0..%d (got %d)",
			    WGEN_MAX_GANGS, o->trees);
	if (o->gangs < 0 || o->gangs > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "gangs must be 0..%d (got %d)",
			    WGEN_MAX_GANGS, o->gangs);
	if (o->max_gang < 1 || o->max_gang > WGEN_MAX_GANG)
		return werr(err, WASP_EINVAL, "max gang must be 1..%d (got %d)",
			    WGEN_MAX_GANG, o->max_gang);
	if (o->priorities < 1 || o->priorities > WGEN_MAX_PRIORITIES)
		return werr(err, WASP_EINVAL, "priorities must be 1..%d "
			    "(got %d)", WGEN_MAX_PRIORITIES, o->priorities);
	if (o->running_pods < 0 || o->running_pods > WGEN_MAX_NODES * 100)
		return werr(err, WASP_EINVAL, "running pods must be 0..%d "
			    "(got %d)", WGEN_MAX_NODES * 100, o->running_pods);
	if (o->running_groups < 0 ||
	    (o->running_groups > 0 && o->running_pods == 0) ||
	    o->running_groups > o->running_pods)
		return werr(err, WASP_EINVAL, "running groups need running "
			    "pods, at least one per group (got %d groups, "
			    "%d pods)", o->running_groups, o->running_pods);
	if ((o->running_pods > 0 || o->preemptible) &&
	    o->family != WGEN_FAMILY_GPU)
		return werr(err, WASP_EINVAL, "--running-pods and --preemptible "
			    "are supported with the gpu family only");
	if (o->family < 0 || o->family >= WGEN_NFAMILIES)
		return werr(err, WASP_EINVAL, "family must be 0..%d (got %d)",
			    WGEN_NFAMILIES - 1, o->family);
	if (o->family == WGEN_FAMILY_GPU)
		return WASP_OK; /* the knobs below are not read */
	if (o->rack_nodes < 0 || o->rack_nodes > WGEN_MAX_RACK_NODES)
		return werr(err, WASP_EINVAL, "rack nodes must be 0..%d "
			    "(got %d)", WGEN_MAX_RACK_NODES, o->rack_nodes);
	if (!(o->cpu_nodes >= 0 && o->cpu_nodes <= 0.95))
		return werr(err, WASP_EINVAL, "cpu nodes must be a fraction "
			    "in 0..0.95 (got %g)", o->cpu_nodes);
	if (o->services < 0 || o->services > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "services must be 0..%d (got "
			    "%d)", WGEN_MAX_GANGS, o->services);
	if (o->lone_pods < 0 || o->lone_pods > WGEN_MAX_GANGS)
		return werr(err, WASP_EINVAL, "lone pods must be 0..%d (got "
			    "%d)", WGEN_MAX_GANGS, o->lone_pods);
	if ((o->family == WGEN_FAMILY_NVLINK ||
	     o->family == WGEN_FAMILY_MIXED) && o->gpus_per_node < 1)
		return werr(err, WASP_EINVAL, "family %s needs gpus >= 1",
			    family_names[o->family]);
	return WASP_OK;
}

char *wgen_generate(const wasp_gen_options *in, wasp_error *err)
{
	gen g;
	wasp_gen_options eff, *o = &eff;

	werr_clear(err);
	if (!in) {
		werr(err, WASP_EINVAL, "no generator options");
		return NULL;
	}
	resolve_options(in, &eff);
	if (check_options(o, err))
		return NULL;
	memset(&g, 0, sizeof g);
	g.o = o;
	g.rng = o->seed;
	g.levels = o->levels;
	g.fanout = o->fanout;
	long long racks = 1;
	for (int j = 0; j < g.levels; j++) {
		racks *= g.fanout;
		if (racks > WGEN_MAX_NODES) {
			werr(err, WASP_EINVAL, "fanout %d over %d levels "
			     "makes more than %d racks", g.fanout, g.levels,
			     WGEN_MAX_NODES);
			return NULL;
		}
	}
	if (o->family == WGEN_FAMILY_NVLINK) {
		/* fixed-size racks; enough whole blocks to hold the nodes */
		long long unit = racks / g.fanout;
		long long need = (o->nodes + o->rack_nodes - 1) / o->rack_nodes;
		racks = (need + unit - 1) / unit * unit;
		if (racks * o->rack_nodes > WGEN_MAX_NODES) {
			werr(err, WASP_EINVAL, "%lld nodes after filling the "
			     "blocks: more than %d", racks * o->rack_nodes,
			     WGEN_MAX_NODES);
			return NULL;
		}
	}
	g.nracks = (int)racks;
	g.per_rack = o->family == WGEN_FAMILY_NVLINK
			 ? o->rack_nodes
			 : (int)((o->nodes + racks - 1) / racks);
	if ((long long)g.per_rack * racks > WGEN_MAX_NODES) {
		werr(err, WASP_EINVAL, "%lld nodes after filling the tree: "
		     "more than %d", (long long)g.per_rack * racks,
		     WGEN_MAX_NODES);
		return NULL;
	}
	g.nnodes = g.per_rack * g.nracks;
	g.slots = o->gpus_per_node > 0 ? o->gpus_per_node : 8;
	/* exactly N running pods, or an error: never silently fewer */
	long long room = (long long)g.nnodes *
			 (g.slots < RUN_PODS_PER_NODE ? g.slots
						      : RUN_PODS_PER_NODE);
	if (o->running_pods > room) {
		werr(err, WASP_EINVAL, "--running-pods %d: the %d nodes have "
		     "room for %lld one-GPU pods", o->running_pods, g.nnodes,
		     room);
		return NULL;
	}
	g.namew = 3;
	for (int n = g.nnodes - 1; n >= 1000; n /= 10)
		g.namew++;

	wem_begin(&g.em, o->json);
	if (!o->json) {
		char head[384];
		int n = snprintf(head, sizeof head,
			 "# wasp gen --seed %llu --levels %d --fanout %d "
			 "--nodes %d --gpus %d --busy %g --gangs %d "
			 "--max-gang %d --priorities %d",
			 (unsigned long long)o->seed, o->levels, o->fanout,
			 o->nodes, o->gpus_per_node, o->busy, o->gangs,
			 o->max_gang, o->priorities);
		/* the whole command, so the header regenerates the file */
		if (o->family == WGEN_FAMILY_NVLINK)
			snprintf(head + n, sizeof head - (size_t)n,
				 " --family nvlink --rack-nodes %d",
				 o->rack_nodes);
		else if (o->family == WGEN_FAMILY_FRAGMENTED)
			snprintf(head + n, sizeof head - (size_t)n,
				 " --family fragmented");
		else if (o->family == WGEN_FAMILY_MIXED)
			snprintf(head + n, sizeof head - (size_t)n,
				 " --family mixed --cpu-nodes %g --services %d"
				 " --lone-pods %d", o->cpu_nodes, o->services,
				 o->lone_pods);
		if (o->trees > 0) {
			size_t hn = strlen(head);
			snprintf(head + hn, sizeof head - hn, " --trees %d",
				 o->trees);
		}
		if (o->dra) {
			size_t hn = strlen(head);
			snprintf(head + hn, sizeof head - hn, " --dra");
		}
		if (o->running_pods > 0) {
			size_t hn = strlen(head);
			snprintf(head + hn, sizeof head - hn,
				 " --running-pods %d --running-groups %d%s",
				 o->running_pods, o->running_groups,
				 o->preemptible ? " --preemptible" : "");
		}
		wgb_puts(&g.em.b, head);
		wgb_puts(&g.em.b, "\n");
	}
	wgen_emit_topology(&g);
	wgen_emit_priority_classes(&g);
	if (o->dra && o->gpus_per_node > 0) {
		g.dev_next = calloc((size_t)g.nnodes + 1, sizeof(int));
		if (!g.dev_next)
			g.em.b.oom = 1;
		else
			wgen_emit_dra_common(&g);
	}
	if (o->family == WGEN_FAMILY_GPU) {
		wgen_emit_nodes(&g);
		if (!g.em.b.oom && (o->running_pods > 0
					    ? wgen_emit_running_groups(&g)
					    : wgen_emit_running(&g)))
			g.em.b.oom = 1;
		wgen_emit_gangs(&g);
	} else if (wgen_emit_family(&g)) {
		g.em.b.oom = 1;
	}
	free(g.dev_next);
	g.dev_next = NULL;
	wgen_emit_trees(&g);
	wem_finish(&g.em);
	if (g.em.b.oom || !g.em.b.p) {
		free(g.em.b.p);
		werr(err, WASP_ENOMEM, "out of memory generating the instance");
		return NULL;
	}
	return g.em.b.p;
}
