/*
 * gen_int.h -- the generator's internal contract (gen.h is its face to
 * the library).
 *
 *   gen.c           the options (wasp_gen_option_set) and wgen_generate,
 *                   which runs the phases below in a fixed order
 *   gen_emit.c      the output buffer and the YAML/JSON emitter (wem_*)
 *   gen_cluster.c   Topology, PriorityClasses, Nodes, the DRA objects
 *   gen_workload.c  the gpu family's running pods and pending gangs, and
 *                   the CompositePodGroup trees
 *   gen_family.c    the nvlink, fragmented and mixed families
 *
 * Every phase appends to one emitter and draws from one splitmix64 stream
 * (gen.rng), in the order wgen_generate calls them: moving a draw changes
 * every byte after it, so same options must keep giving the same bytes.
 * The emitter never fails midway; running out of memory sets gbuf.oom and
 * later writes are dropped (wgen_generate reports WASP_ENOMEM).
 */
#ifndef WASP_GEN_INT_H
#define WASP_GEN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "gen/gen.h"

/* ------------------------------------------------------------ PRNG */

/* Uniform in [0, n), n >= 1 (multiply-shift: no modulo bias to speak of,
 * and the same on every platform). */
static inline uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)wrng_next(s) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double rnd_unit(uint64_t *s)
{
	return wrng_unit(s);
}

/* ------------------------------------------------------------ emitter */

typedef struct gbuf {
	char *p;
	size_t n, cap;
	int oom;
} gbuf;

void wgb_puts(gbuf *b, const char *s);

/*
 * One writer for both syntaxes.  YAML comes out in kubectl's block style
 * (sequence items at their key's indentation); JSON is indented by two.
 * Containers must not be empty (the generator never asks for one).
 */
#define EM_DEPTH 16

typedef struct emitter {
	gbuf b;
	int json;
	int ndocs;
	int top; /* index of the innermost open container, -1: none */
	struct em_level {
		int type;
		int indent; /* YAML: column of entries; JSON: indentation */
		int count;
		int dash;   /* YAML map opened as a sequence item */
	} st[EM_DEPTH];
} emitter;

/* Start (JSON: the List and its items) and finish the output. */
void wem_begin(emitter *e, int json);
void wem_finish(emitter *e);
/* Start an entry of the current container: key (NULL for a sequence
 * item).  YAML leaves the cursor after "key:" or "- "; JSON after
 * `"key": `. */
void wem_entry(emitter *e, const char *key);
/* Open a map or a sequence under key (NULL: as a sequence item); wem_end
 * closes the innermost one. */
void wem_map(emitter *e, const char *key);
void wem_seq(emitter *e, const char *key);
void wem_end(emitter *e);
/* Scalars under key (NULL: as a sequence item); strings are quoted where
 * YAML would read them as something else. */
void wem_str(emitter *e, const char *key, const char *val);
void wem_bool(emitter *e, const char *key, int v);
void wem_int(emitter *e, const char *key, long long v);
/* A top-level object: a YAML document, or an item of the JSON List. */
void wem_doc(emitter *e);
/* A top-level object's head: apiVersion, kind and metadata (name, and
 * namespace unless ns is NULL). */
void wem_head(emitter *e, const char *api, const char *kind,
	      const char *name, const char *ns);
/* resources.limits: k nvidia.com/gpu. */
void wem_gpu_limit(emitter *e, int k);
/* Close a pod's resources, container, containers and spec; its phase. */
void wem_pod_end(emitter *e, int running);

/* ------------------------------------------------------------ cluster */

#define NODE_CPU_M 64000LL
#define NODE_MEM_GI 512LL
#define NODE_PODS 110
#define RUN_PODS_PER_NODE 100 /* leave room under the pods limit */

/* Label keys for the levels above the host, coarse to fine; --levels L
 * uses the last L (gen_cluster.c). */
extern const char *const wgen_level_key[3];

typedef struct gen {
	const wasp_gen_options *o;
	uint64_t rng;
	emitter em;
	int levels, fanout;
	int nracks, per_rack, nnodes;
	int slots;      /* scheduling units per node: GPUs, or 8 CPU slots */
	int namew;      /* digits in node names                           */
	int npc;
	char pc_name[WGEN_MAX_PRIORITIES][16];
	int pc_value[WGEN_MAX_PRIORITIES];
	const char *parent; /* emit_podgroup: the parent composite, or NULL */
	int *dev_next;  /* --dra: next unallocated device per node       */
} gen;

/* gen_cluster.c */
void wgen_node_name(const gen *g, int i, char *buf, size_t size);
/* Requests for `k` slots: GPUs plus CPU and memory in proportion, leaving
 * 8 CPUs and 64Gi of every node to the system so GPUs bind first. */
void wgen_emit_requests(gen *g, const char *key, int k, int with_gpu);
void wgen_emit_topology(gen *g);
void wgen_emit_priority_classes(gen *g);
/* --dra: the DeviceClass and the claim templates. */
void wgen_emit_dra_common(gen *g);
/* The claim of a running pod: k devices of its node, allocated. */
void wgen_emit_run_claim(gen *g, const char *pod, int node, int k);
/* A Node's opening, shared by every family: the object up to its topology
 * and hostname labels, with the labels map left open for more. */
void wgen_node_head(gen *g, int i, char *name, size_t size);
/* A Node's status, shared by every family: capacity and allocatable
 * (GPUs when gpu), Ready; closes the Node. */
void wgen_emit_node_status(gen *g, int gpu);
/* The gpu family's Nodes. */
void wgen_emit_nodes(gen *g);

/* gen_workload.c; the int functions return -1 on out of memory */
void wgen_emit_podgroup(gen *g, const char *ns, const char *name,
			int min_count, const char *topo_key, int pc);
/* A Pod's opening, shared by every family: head, spec (left open) with
 * its node (running), group and priority. */
void wgen_pod_head(gen *g, const char *ns, const char *name,
		   const char *group, int pc, const char *node);
void wgen_emit_pod(gen *g, const char *ns, const char *name,
		   const char *group, int pc, int k, const char *node);
int wgen_emit_running_groups(gen *g);
int wgen_emit_running(gen *g);
void wgen_emit_gangs(gen *g);
void wgen_emit_trees(gen *g);

/* gen_family.c: nodes, running and pending pods of a family other than
 * gpu; -1 on out of memory. */
int wgen_emit_family(gen *g);

#endif
