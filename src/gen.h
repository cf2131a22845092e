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

char *wgen_generate(const wasp_gen_options *g, wasp_error *err);

#endif
