/*
 * gen_workload.c -- the generated workload of the gpu family: PodGroups
 * and Pods, running pods scattered at random until about `busy` of the
 * GPUs are taken (so racks end up fragmented, as in real clusters), the
 * preemption benchmark's running gangs, pending gangs of mixed sizes,
 * priorities and topology constraints, and pending CompositePodGroup trees.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_int.h"

static void emit_podgroup_x(gen *g, const char *ns, const char *name,
			    int min_count, const char *topo_key, int pc,
			    int all);

void wgen_emit_podgroup(gen *g, const char *ns, const char *name,
			int min_count, const char *topo_key, int pc)
{
	emit_podgroup_x(g, ns, name, min_count, topo_key, pc, 0);
}

/* all: disruptionMode all (the group is preempted whole). */
static void emit_podgroup_x(gen *g, const char *ns, const char *name,
			    int min_count, const char *topo_key, int pc,
			    int all)
{
	emitter *e = &g->em;
	wem_head(e, "scheduling.k8s.io/v1beta1", "PodGroup", name, ns);
	wem_map(e, "spec");
	wem_map(e, "schedulingPolicy");
	wem_map(e, "gang");
	wem_int(e, "minCount", min_count);
	wem_end(e);
	wem_end(e);
	if (g->parent)
		wem_str(e, "parentCompositePodGroupName", g->parent);
	if (topo_key) {
		wem_map(e, "schedulingConstraints");
		wem_seq(e, "topology");
		wem_map(e, NULL);
		wem_str(e, "key", topo_key);
		wem_end(e);
		wem_end(e);
		wem_end(e);
	}
	if (all) {
		wem_map(e, "disruptionMode");
		wem_map(e, "all");
		wem_end(e);
		wem_end(e);
	}
	wem_str(e, "priorityClassName", g->pc_name[pc]);
	wem_int(e, "priority", g->pc_value[pc]);
	wem_end(e);
	wem_end(e);
}

/* A Pod's opening, shared by every family: head, spec (left open) with
 * its node (running), group and priority. */
void wgen_pod_head(gen *g, const char *ns, const char *name,
		   const char *group, int pc, const char *node)
{
	emitter *e = &g->em;
	wem_head(e, "v1", "Pod", name, ns);
	wem_map(e, "spec");
	if (node)
		wem_str(e, "nodeName", node);
	if (group) {
		wem_map(e, "schedulingGroup");
		wem_str(e, "podGroupName", group);
		wem_end(e);
	}
	wem_str(e, "priorityClassName", g->pc_name[pc]);
	wem_int(e, "priority", g->pc_value[pc]);
}

void wgen_emit_pod(gen *g, const char *ns, const char *name,
		   const char *group, int pc, int k, const char *node)
{
	emitter *e = &g->em;
	wgen_pod_head(g, ns, name, group, pc, node);
	if (g->o->dra && g->o->gpus_per_node > 0) {
		char cn[64];
		wem_seq(e, "resourceClaims");
		wem_map(e, NULL);
		wem_str(e, "name", "gpu");
		if (node) {
			snprintf(cn, sizeof cn, "%s-gpu", name);
			wem_str(e, "resourceClaimName", cn);
		} else {
			snprintf(cn, sizeof cn, "gpu-%d", k);
			wem_str(e, "resourceClaimTemplateName", cn);
		}
		wem_end(e);
		wem_end(e);
	}
	wem_seq(e, "containers");
	wem_map(e, NULL);
	wem_str(e, "name", node ? "server" : "worker");
	wem_str(e, "image", "registry.example.com/ml/trainer:1.0");
	wem_map(e, "resources");
	wgen_emit_requests(g, "requests", k, 1);
	if (g->o->gpus_per_node > 0 && !g->o->dra)
		wem_gpu_limit(e, k);
	wem_pod_end(e, node != NULL);
}

/*
 * The preemption benchmark's running pods: exactly running_pods pods of
 * one GPU on random nodes with room, at the lowest priority, round-robin
 * into running_groups gangs (minCount 1; disruptionMode all when
 * preemptible).
 */
int wgen_emit_running_groups(gen *g)
{
	const wasp_gen_options *o = g->o;
	int n = g->nnodes, S = g->slots, G = o->running_groups;
	int N = o->running_pods;
	char name[48], node[32];
	if (G > 0) {
		for (int i = 0; i < G; i++) {
			snprintf(name, sizeof name, "job-%05d", i);
			emit_podgroup_x(g, "serve", name, 1, NULL, 0,
					o->preemptible);
		}
	}
	int *free_slots = malloc(sizeof *free_slots * (size_t)n);
	int *open = malloc(sizeof *open * (size_t)n);
	int *pos = malloc(sizeof *pos * (size_t)n);
	if (!free_slots || !open || !pos) {
		free(free_slots), free(open), free(pos);
		return -1;
	}
	int nopen = n;
	for (int i = 0; i < n; i++) {
		free_slots[i] = S < RUN_PODS_PER_NODE ? S : RUN_PODS_PER_NODE;
		open[i] = pos[i] = i;
	}
	for (int id = 0; id < N && nopen > 0; id++) {
		int pick = open[rnd_below(&g->rng, (uint64_t)nopen)];
		if (--free_slots[pick] == 0) {
			int p = pos[pick], last = open[--nopen];
			open[p] = last;
			pos[last] = p;
		}
		wgen_node_name(g, pick, node, sizeof node);
		char grp[48];
		if (G > 0)
			snprintf(grp, sizeof grp, "job-%05d", id % G);
		snprintf(name, sizeof name, "run-%06d", id);
		if (o->dra && o->gpus_per_node > 0)
			wgen_emit_run_claim(g, name, pick, 1);
		/* all running pods at the lowest class, as their groups */
		wgen_emit_pod(g, "serve", name, G > 0 ? grp : NULL, 0, 1, node);
	}
	free(free_slots), free(open), free(pos);
	return 0;
}

/*
 * Running pods: sizes 1, 2, 4 or a whole node's slots, each dropped on a
 * random node that still has room, until about `busy` of all slots are
 * taken.  Nodes with room sit in an open list (swap-remove), so every pick
 * is O(1) even at busy = 1.
 */
int wgen_emit_running(gen *g)
{
	int n = g->nnodes, S = g->slots;
	long long total = (long long)n * S;
	long long target = (long long)(g->o->busy * (double)total + 0.5);
	int *free_slots = malloc(sizeof *free_slots * (size_t)n);
	int *npods = calloc((size_t)n, sizeof *npods);
	int *open = malloc(sizeof *open * (size_t)n);
	int *pos = malloc(sizeof *pos * (size_t)n);
	if (!free_slots || !npods || !open || !pos) {
		free(free_slots), free(npods), free(open), free(pos);
		return -1;
	}
	int nopen = n;
	for (int i = 0; i < n; i++) {
		free_slots[i] = S;
		open[i] = pos[i] = i;
	}
	long long used = 0;
	int id = 0;
	char name[48], node[32];
	while (used < target && nopen > 0) {
		int sizes[4] = {1, 2, 4, S};
		int k = sizes[rnd_below(&g->rng, 4)];
		if (k > S)
			k = S;
		if (k > target - used)
			k = (int)(target - used);
		int pick = -1;
		for (int t = 0; t < 8 && pick < 0; t++) {
			int i = open[rnd_below(&g->rng, (uint64_t)nopen)];
			if (free_slots[i] >= k)
				pick = i;
		}
		if (pick < 0) {
			pick = open[rnd_below(&g->rng, (uint64_t)nopen)];
			k = free_slots[pick];
		}
		free_slots[pick] -= k;
		npods[pick]++;
		used += k;
		if (free_slots[pick] == 0 || npods[pick] >= RUN_PODS_PER_NODE) {
			int p = pos[pick], last = open[--nopen];
			open[p] = last;
			pos[last] = p;
		}
		/* mostly low priorities hold the running capacity */
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		if (pc > 0 && rnd_unit(&g->rng) < 0.5)
			pc = 0;
		snprintf(name, sizeof name, "run-%06d", id);
		wgen_node_name(g, pick, node, sizeof node);
		int grouped = rnd_unit(&g->rng) < 0.4;
		if (grouped)
			wgen_emit_podgroup(g, "serve", name, 1, NULL, pc);
		if (g->o->dra && g->o->gpus_per_node > 0)
			wgen_emit_run_claim(g, name, pick, k);
		wgen_emit_pod(g, "serve", name, grouped ? name : NULL, pc, k,
			      node);
		id++;
	}
	free(free_slots), free(npods), free(open), free(pos);
	return 0;
}

/*
 * Pending gangs: pods of one shape (a whole node's GPUs, half, a quarter,
 * or one), sizes favouring powers of two, minCount the size or a little
 * less, a rack or block constraint or none.  A constraint that no domain
 * could ever hold is widened, so most gangs are placeable in principle and
 * the interesting question is which ones fit together.
 */
void wgen_emit_gangs(gen *g)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots;
	long long rack_cap = (long long)g->per_rack * S;
	long long block_cap = g->levels >= 2 ? rack_cap * g->fanout : 0;
	char name[48], pod[64];
	for (int i = 0; i < o->gangs; i++) {
		int shapes[4] = {S, S / 2, S / 4, 1};
		double u = rnd_unit(&g->rng);
		int k = shapes[u < 0.4 ? 0 : u < 0.65 ? 1 : u < 0.8 ? 2 : 3];
		if (k < 1)
			k = 1;
		int size;
		if (o->max_gang <= 2) {
			size = o->max_gang;
		} else if (rnd_unit(&g->rng) < 0.6) {
			int maxe = 1;
			while ((2 << maxe) <= o->max_gang)
				maxe++;
			size = 1 << (1 + rnd_below(&g->rng, (uint64_t)maxe));
		} else {
			size = 2 + (int)rnd_below(&g->rng,
						  (uint64_t)(o->max_gang - 1));
		}
		int min_count = size;
		if (rnd_unit(&g->rng) < 0.3)
			min_count -= (int)rnd_below(&g->rng,
						    (uint64_t)(size / 4 + 1));
		const char *key = NULL;
		u = rnd_unit(&g->rng);
		if (u < 0.45)
			key = wgen_level_key[2];
		else if (u < 0.7)
			key = g->levels >= 2 ? wgen_level_key[1]
					     : wgen_level_key[2];
		long long need = (long long)min_count * k;
		if (key == wgen_level_key[2] && need > rack_cap)
			key = block_cap >= need ? wgen_level_key[1] : NULL;
		if (key == wgen_level_key[1] && need > block_cap)
			key = NULL;
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		if (o->preemptible)
			pc = g->npc - 1;
		snprintf(name, sizeof name, "gang-%05d", i);
		wgen_emit_podgroup(g, "train", name, min_count, key, pc);
		for (int j = 0; j < size; j++) {
			snprintf(pod, sizeof pod, "%s-%d", name, j);
			wgen_emit_pod(g, "train", pod, name, pc, k, NULL);
		}
	}
}

/*
 * Pending CompositePodGroup trees (doc/formulation.md §9).  Depth 2: a
 * root confined to a block (or the coarsest level) with 2..8 PodGroup
 * children, some confined to a rack.  Depth 3 (when there are at least
 * three levels): a root confined to a superblock with 2..4 middle
 * composites, each confined to a block, with 2..4 leaves.  minGroupCount
 * is the number of children or a little less; each tree has one priority.
 */
static void emit_cpg(gen *g, const char *name, const char *parent, int mgc,
		     const char *key, int pc)
{
	emitter *e = &g->em;
	wem_head(e, "scheduling.k8s.io/v1alpha3", "CompositePodGroup", name,
		 "train");
	wem_map(e, "spec");
	if (parent)
		wem_str(e, "parentCompositePodGroupName", parent);
	wem_map(e, "schedulingPolicy");
	wem_map(e, "gang");
	wem_int(e, "minGroupCount", mgc);
	wem_end(e);
	wem_end(e);
	if (key) {
		wem_map(e, "schedulingConstraints");
		wem_seq(e, "topology");
		wem_map(e, NULL);
		wem_str(e, "key", key);
		wem_end(e);
		wem_end(e);
		wem_end(e);
	}
	wem_str(e, "priorityClassName", g->pc_name[pc]);
	wem_int(e, "priority", g->pc_value[pc]);
	wem_end(e);
	wem_end(e);
}

/* A leaf gang of 1..4 pods of k slots under g->parent. */
static void emit_leaf(gen *g, const char *name, const char *key, int pc)
{
	int S = g->slots;
	int shapes[3] = {S / 2, S / 4, 1};
	int k = shapes[rnd_below(&g->rng, 3)];
	if (k < 1)
		k = 1;
	int size = 1 + (int)rnd_below(&g->rng, 4);
	char pod[96];
	wgen_emit_podgroup(g, "train", name, size, key, pc);
	for (int j = 0; j < size; j++) {
		snprintf(pod, sizeof pod, "%s-%d", name, j);
		wgen_emit_pod(g, "train", pod, name, pc, k, NULL);
	}
}

void wgen_emit_trees(gen *g)
{
	const wasp_gen_options *o = g->o;
	char name[64], mid[80], leaf[96];
	const char *rack = wgen_level_key[2];
	const char *block = g->levels >= 2 ? wgen_level_key[1]
					   : wgen_level_key[2];
	for (int i = 0; i < o->trees; i++) {
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		snprintf(name, sizeof name, "tree-%05d", i);
		int deep = g->levels >= 3 && rnd_unit(&g->rng) < 0.4;
		if (!deep) {
			int nk = 2 + (int)rnd_below(&g->rng, 7);
			int mgc = nk - (int)rnd_below(&g->rng, 2);
			emit_cpg(g, name, NULL, mgc, block, pc);
			for (int j = 0; j < nk; j++) {
				snprintf(leaf, sizeof leaf, "%s-g%d", name, j);
				g->parent = name;
				emit_leaf(g, leaf,
					  rnd_unit(&g->rng) < 0.5 ? rack
								  : NULL, pc);
				g->parent = NULL;
			}
			continue;
		}
		int nm = 2 + (int)rnd_below(&g->rng, 3);
		emit_cpg(g, name, NULL, nm - (int)rnd_below(&g->rng, 2),
			 wgen_level_key[0], pc);
		for (int m = 0; m < nm; m++) {
			snprintf(mid, sizeof mid, "%s-m%d", name, m);
			int nk = 2 + (int)rnd_below(&g->rng, 3);
			emit_cpg(g, mid, name, nk - (int)rnd_below(&g->rng, 2),
				 block, pc);
			for (int j = 0; j < nk; j++) {
				snprintf(leaf, sizeof leaf, "%s-g%d", mid, j);
				g->parent = mid;
				emit_leaf(g, leaf,
					  rnd_unit(&g->rng) < 0.5 ? rack
								  : NULL, pc);
				g->parent = NULL;
			}
		}
	}
}
