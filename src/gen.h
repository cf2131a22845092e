/*
 * gen.h -- deterministic instance generator (wasp gen).
 *
 * A multi-level GPU cluster (levels above the host: superblock/block/rack),
 * running pods that occupy about `busy` of the GPUs, and pending gangs of
 * mixed sizes and priorities with rack- or block-level topology constraints,
 * written as ordinary manifests (Nodes, Pods, PodGroups, PriorityClasses, a
 * kueue Topology).  Same options, same bytes, on every machine: the
 * generator uses its own PRNG (splitmix64), never rand().
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

/* The defaults `wasp gen` uses without flags (wasp_gen_options_init may
 * simply call this): seed 1, 2 levels, fanout 4, 64 nodes, 8 GPUs per node,
 * busy 0.5, 8 gangs of at most 16 pods, 3 priorities, YAML. */
void wgen_options_default(wasp_gen_options *g);

/* The manifests as one malloc'd NUL-terminated string (free with free() or
 * wasp_free), or NULL with err filled (WASP_EINVAL, WASP_ENOMEM). */
char *wgen_generate(const wasp_gen_options *g, wasp_error *err);

#endif
