/*
 * gen.h -- deterministic instance generator (wasp gen).
 *
 * A multi-level GPU cluster (levels above the host: superblock/block/rack),
 * running pods that occupy about `busy` of the GPUs, and pending gangs of
 * mixed sizes and priorities with rack- or block-level topology constraints,
 * written as ordinary manifests (Nodes, Pods, PodGroups, PriorityClasses, a
 * kueue Topology).  Same options, same bytes, on every machine: the
 * generator uses its own PRNG (splitmix64), never rand().
 *
 * Families (wasp_gen_options.family) reshape the cluster and the workload:
 * NVLink-domain racks, a cluster fragmented so that no rack is free, and
 * mixed CPU / GPU pools with services and lone pods (see enum wgen_family).
 */
#ifndef WASP_GEN_H
#define WASP_GEN_H

#include "wasp.h"

/* Bounds on the generator options (WASP_EINVAL outside them). */
#define WGEN_MAX_NODES      1000000
#define WGEN_MAX_FANOUT     1024
#define WGEN_MAX_GPUS       1024
#define WGEN_MAX_GANGS      1000000
#define WGEN_MAX_GANG       100000
#define WGEN_MAX_PRIORITIES 16

#define WGEN_MAX_RACK_NODES 1024

/* wasp_gen_options.family */
enum wgen_family {
	WGEN_FAMILY_GPU = 0,        /* fat tree of 8-GPU nodes (the original)  */
	WGEN_FAMILY_NVLINK = 1,     /* racks of 18 x 4-GPU nodes (NVLink
				       domains) under blocks; 4-GPU-multiple
				       gangs with a rack constraint           */
	WGEN_FAMILY_FRAGMENTED = 2, /* no rack wholly free, yet more free GPUs
				       than the largest gang needs            */
	WGEN_FAMILY_MIXED = 3,      /* CPU-only and tainted GPU nodes, gangs
				       plus basic-policy services and lone pods */
	/* CompositePodGroup trees are not a family: the `trees` option adds
	 * them to any family (wgen_emit_trees, gen_workload.c). */
	WGEN_NFAMILIES
};

/* Family defaults for options left at 0 / not given. */
#define WGEN_NVLINK_RACK_NODES 18
#define WGEN_NVLINK_GPUS       4

/* The defaults `wasp gen` uses without flags (wasp_gen_options_init may
 * simply call this): seed 1, 2 levels, fanout 4, 64 nodes, 8 GPUs per node,
 * busy 0.5, 8 gangs of at most 16 pods, 3 priorities, YAML; family gpu,
 * and for the other families rack_nodes 0 (18), cpu_nodes 0.25, services 4,
 * lone_pods 8. */
void wgen_options_default(wasp_gen_options *g);

/* The manifests as one malloc'd NUL-terminated string (free with free() or
 * wasp_free), or NULL with err filled (WASP_EINVAL, WASP_ENOMEM). */
char *wgen_generate(const wasp_gen_options *g, wasp_error *err);

#endif
