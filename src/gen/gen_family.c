/*
 * gen_family.c -- the families other than gpu (enum wgen_family in
 * gen.h): NVLink-domain racks, a cluster fragmented so that no rack is
 * free, and mixed CPU / GPU pools with services and lone pods.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_int.h"

/* ------------------------------------------------------------ families */

/*
 * The families other than gpu share the emitter and the cluster tree above
 * but have their own node, running-pod and pending-pod writers, so that the
 * gpu family's bytes (and its PRNG stream) stay exactly as they were.
 */

#define CPU_SLOTS 8 /* a CPU-only node is cut into 8 slots of 7 CPUs */
#define POOL_KEY "example.com/pool"
#define GPU_TAINT "nvidia.com/gpu"

/* Is node i CPU-only (mixed family)?  Spread evenly, deterministically. */
static int is_cpu_node(const gen *g, int i)
{
	if (g->o->family != WGEN_FAMILY_MIXED)
		return 0;
	double f = g->o->cpu_nodes;
	return (long long)((i + 1) * f) > (long long)(i * f);
}

static int node_slots(const gen *g, int i)
{
	return is_cpu_node(g, i) ? CPU_SLOTS : g->slots;
}

static void emit_cpu_requests(gen *g, int k)
{
	emitter *e = &g->em;
	char q[32];
	wem_map(e, "requests");
	snprintf(q, sizeof q, "%lld", (NODE_CPU_M - 8000) * k / CPU_SLOTS /
		 1000);
	wem_str(e, "cpu", q);
	snprintf(q, sizeof q, "%lldGi", (NODE_MEM_GI - 64) * k / CPU_SLOTS);
	wem_str(e, "memory", q);
	wem_end(e);
}

static void emit_nodes_x(gen *g)
{
	emitter *e = &g->em;
	int mixed = g->o->family == WGEN_FAMILY_MIXED;
	char name[32];
	for (int i = 0; i < g->nnodes; i++) {
		int cpu = is_cpu_node(g, i);
		wgen_node_head(g, i, name, sizeof name);
		if (mixed)
			wem_str(e, POOL_KEY, cpu ? "cpu" : "gpu");
		wem_end(e);
		wem_end(e);
		if (mixed && !cpu) {
			/* GPU nodes repel everything that does not ask */
			wem_map(e, "spec");
			wem_seq(e, "taints");
			wem_map(e, NULL);
			wem_str(e, "key", GPU_TAINT);
			wem_str(e, "value", "present");
			wem_str(e, "effect", "NoSchedule");
			wem_end(e);
			wem_end(e);
			wem_end(e);
		}
		wgen_emit_node_status(g, !cpu);
	}
}

/* A basic-policy PodGroup: pods scheduled one by one, no gang. */
static void emit_basic_group(gen *g, const char *ns, const char *name, int pc)
{
	emitter *e = &g->em;
	wem_head(e, "scheduling.k8s.io/v1beta1", "PodGroup", name, ns);
	wem_map(e, "spec");
	wem_map(e, "schedulingPolicy");
	wem_entry(e, "basic");
	wgb_puts(&e->b, e->json ? "{}" : " {}\n");
	wem_end(e);
	wem_str(e, "priorityClassName", g->pc_name[pc]);
	wem_int(e, "priority", g->pc_value[pc]);
	wem_end(e);
	wem_end(e);
}

/* A pod of the new families: `k` GPUs (or, cpu_only, k CPU slots), on
 * `node` (running) or pending; GPU pods of the mixed family tolerate the
 * GPU nodes' taint. */
static void emit_pod_x(gen *g, const char *ns, const char *name,
		       const char *group, int pc, int k, int cpu_only,
		       const char *node)
{
	emitter *e = &g->em;
	int gpu = !cpu_only && g->o->gpus_per_node > 0;
	wgen_pod_head(g, ns, name, group, pc, node);
	if (gpu && g->o->family == WGEN_FAMILY_MIXED) {
		wem_seq(e, "tolerations");
		wem_map(e, NULL);
		wem_str(e, "key", GPU_TAINT);
		wem_str(e, "operator", "Exists");
		wem_str(e, "effect", "NoSchedule");
		wem_end(e);
		wem_end(e);
	}
	wem_seq(e, "containers");
	wem_map(e, NULL);
	wem_str(e, "name", node ? "server" : cpu_only ? "app" : "worker");
	wem_str(e, "image", cpu_only ? "registry.example.com/web/api:1.0"
				    : "registry.example.com/ml/trainer:1.0");
	wem_map(e, "resources");
	if (cpu_only) {
		emit_cpu_requests(g, k);
	} else {
		wgen_emit_requests(g, "requests", k, 1);
		if (gpu)
			wem_gpu_limit(e, k);
	}
	wem_pod_end(e, node != NULL);
}

/* Per-node state of the running pods, shared by the placement phases. */
typedef struct runstate {
	int *free_slots, *npods, *open, *pos;
	int nopen;
	int id; /* next run-NNNNNN */
} runstate;

/* One running pod of k slots on node i (k <= its free slots). */
static void run_one(gen *g, runstate *r, int i, int k)
{
	char name[48], node[32];
	int cpu = is_cpu_node(g, i);
	r->free_slots[i] -= k;
	r->npods[i]++;
	/* mostly low priorities hold the running capacity */
	int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
	if (pc > 0 && rnd_unit(&g->rng) < 0.5)
		pc = 0;
	snprintf(name, sizeof name, "run-%06d", r->id++);
	wgen_node_name(g, i, node, sizeof node);
	int grouped = rnd_unit(&g->rng) < 0.4;
	if (grouped)
		wgen_emit_podgroup(g, "serve", name, 1, NULL, pc);
	emit_pod_x(g, "serve", name, grouped ? name : NULL, pc, k, cpu, node);
}

/*
 * Fill the candidate nodes `cand` (all of one slot size) with running pods
 * of the given sizes until `target` slots are taken, as emit_running does;
 * returns the slots used.
 */
static long long run_fill(gen *g, runstate *r, const int *cand, int ncand,
			  long long target, const int *sizes, int nsizes)
{
	long long used = 0;
	r->nopen = 0;
	for (int c = 0; c < ncand; c++) {
		int i = cand[c];
		if (r->free_slots[i] > 0 && r->npods[i] < RUN_PODS_PER_NODE) {
			r->pos[i] = r->nopen;
			r->open[r->nopen++] = i;
		}
	}
	while (used < target && r->nopen > 0) {
		int k = sizes[rnd_below(&g->rng, (uint64_t)nsizes)];
		if (k > target - used)
			k = (int)(target - used);
		int pick = -1;
		for (int t = 0; t < 8 && pick < 0; t++) {
			int i = r->open[rnd_below(&g->rng,
						  (uint64_t)r->nopen)];
			if (r->free_slots[i] >= k)
				pick = i;
		}
		if (pick < 0) {
			pick = r->open[rnd_below(&g->rng, (uint64_t)r->nopen)];
			k = r->free_slots[pick];
		}
		run_one(g, r, pick, k);
		used += k;
		if (r->free_slots[pick] == 0 ||
		    r->npods[pick] >= RUN_PODS_PER_NODE) {
			int p = r->pos[pick], last = r->open[--r->nopen];
			r->open[p] = last;
			r->pos[last] = p;
		}
	}
	return used;
}

/* Pod sizes for running pods: 1, 2, 4 and whole nodes, capped at `cap`;
 * returns how many. */
static int run_sizes(int slots, int cap, int *out)
{
	int cand[4] = {1, 2, 4, slots}, n = 0;
	for (int j = 0; j < 4; j++)
		if (cand[j] <= cap && cand[j] <= slots &&
		    (n == 0 || cand[j] > out[n - 1]))
			out[n++] = cand[j];
	return n;
}

/* Gang size in pods, up to `max`: powers of two favoured. */
static int gang_size(gen *g, int max)
{
	if (max <= 2)
		return max;
	if (rnd_unit(&g->rng) < 0.6) {
		int maxe = 1;
		while ((2 << maxe) <= max)
			maxe++;
		return 1 << (1 + rnd_below(&g->rng, (uint64_t)maxe));
	}
	return 2 + (int)rnd_below(&g->rng, (uint64_t)(max - 1));
}

/* Widen a constraint no domain could hold: rack -> block -> none. */
static const char *widen(const gen *g, const char *key, long long need,
			 long long rack_cap, long long block_cap)
{
	if (key == wgen_level_key[2] && need > rack_cap)
		key = g->levels >= 2 && block_cap >= need ? wgen_level_key[1]
							  : NULL;
	if (key == wgen_level_key[1] && need > block_cap)
		key = NULL;
	return key;
}

static void emit_gang_x(gen *g, int i, int size, int min_count, int k,
			const char *key, int pc)
{
	char name[48], pod[64];
	snprintf(name, sizeof name, "gang-%05d", i);
	wgen_emit_podgroup(g, "train", name, min_count, key, pc);
	for (int j = 0; j < size; j++) {
		snprintf(pod, sizeof pod, "%s-%d", name, j);
		emit_pod_x(g, "train", pod, name, pc, k, 0, NULL);
	}
}

/*
 * nvlink: a rack is one NVLink domain of rack_nodes nodes.  Running pods of
 * 1, 2 or a whole node's GPUs scatter over the racks; gangs ask for whole
 * nodes (most) or single GPUs in fours, so a gang is a multiple of 4 GPUs
 * on 4-GPU nodes, and most must sit in one rack.
 */
/* The rest of a gang of `size` pods of k GPUs once its size is drawn:
 * minCount (size, or up to a quarter less), a rack constraint with
 * probability p_rack, else a block one up to p_block, widened when the
 * minimum does not fit; a priority class; then the objects. */
static void gang_rest(gen *g, int i, int size, int k, double p_rack,
		      double p_block, long long rack_cap, long long block_cap)
{
	int min_count = size;
	if (rnd_unit(&g->rng) < 0.3)
		min_count -= (int)rnd_below(&g->rng, (uint64_t)(size / 4 + 1));
	double u = rnd_unit(&g->rng);
	const char *key = u < p_rack ? wgen_level_key[2]
			: u < p_block && g->levels >= 2 ? wgen_level_key[1]
			: NULL;
	key = widen(g, key, (long long)min_count * k, rack_cap, block_cap);
	int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
	emit_gang_x(g, i, size, min_count, k, key, pc);
}

static int gen_nvlink(gen *g, runstate *r)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots, n = g->nnodes;
	int *cand = malloc(sizeof *cand * (size_t)n);
	if (!cand)
		return -1;
	for (int i = 0; i < n; i++)
		cand[i] = i;
	int sizes[4];
	int ns = run_sizes(S, S, sizes);
	long long target = (long long)(o->busy * (double)n * S + 0.5);
	run_fill(g, r, cand, n, target, sizes, ns);
	free(cand);

	long long rack_cap = (long long)g->per_rack * S;
	long long block_cap = g->levels >= 2 ? rack_cap * g->fanout : 0;
	for (int i = 0; i < o->gangs; i++) {
		int k, size;
		if (o->max_gang < 4 || rnd_unit(&g->rng) < 0.7) {
			k = S;
			size = gang_size(g, o->max_gang);
		} else {
			k = 1;
			size = 4 * (1 + (int)rnd_below(&g->rng,
						       (uint64_t)(o->max_gang /
								  4)));
		}
		double u = rnd_unit(&g->rng);
		const char *key = u < 0.75 ? wgen_level_key[2]
				: u < 0.9 && g->levels >= 2 ? wgen_level_key[1]
				: NULL;
		key = widen(g, key, (long long)size * k, rack_cap, block_cap);
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		/* rigid: a partial NVLink job is no job */
		emit_gang_x(g, i, size, size, k, key, pc);
	}
	return 0;
}

/*
 * fragmented: every rack gets a small running pod first, so no rack is
 * wholly free; then pods of 1 to 4 slots (never whole nodes) fill about
 * `busy` of the slots at random, leaving a node's worth free at least.
 * Gangs are capped below the free total: capacity exists, but a gang that
 * wants whole nodes in one rack may find none.
 */
static int gen_fragmented(gen *g, runstate *r)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots, n = g->nnodes;
	long long total = (long long)n * S;
	long long reserve = S > 2 ? S : 2;
	long long target = (long long)(o->busy * (double)total + 0.5);
	long long used = 0;
	int *cand = malloc(sizeof *cand * (size_t)n);
	if (!cand)
		return -1;
	for (int i = 0; i < n; i++)
		cand[i] = i;
	for (int rk = 0; rk < g->nracks; rk++) {
		int i = rk * g->per_rack +
			(int)rnd_below(&g->rng, (uint64_t)g->per_rack);
		int k = S >= 2 ? 1 + (int)rnd_below(&g->rng, 2) : 1;
		run_one(g, r, i, k);
		used += k;
	}
	if (target > total - reserve)
		target = total - reserve;
	int sizes[4];
	int ns = run_sizes(S, S > 1 ? S / 2 : 1, sizes);
	if (target > used)
		used += run_fill(g, r, cand, n, target - used, sizes, ns);
	free(cand);

	long long free_total = total - used;
	long long rack_cap = (long long)g->per_rack * S;
	long long block_cap = g->levels >= 2 ? rack_cap * g->fanout : 0;
	for (int i = 0; i < o->gangs; i++) {
		int shapes[3] = {S, S / 2, 1};
		double u = rnd_unit(&g->rng);
		int k = shapes[u < 0.5 ? 0 : u < 0.8 ? 1 : 2];
		if (k < 1)
			k = 1;
		int size = gang_size(g, o->max_gang);
		/* the largest gang still needs less than what is free */
		if ((long long)size * k >= free_total) {
			k = 1;
			if (size >= free_total)
				size = (int)(free_total - 1);
		}
		if (size < 1)
			size = 1;
		gang_rest(g, i, size, k, 0.6, 0.85, rack_cap, block_cap);
	}
	return 0;
}

/*
 * mixed: CPU-only nodes (untainted, no GPUs) among GPU nodes tainted
 * nvidia.com/gpu=present:NoSchedule.  Both pools are about `busy` full.
 * Pending: GPU gangs (tolerating the taint), basic-policy services of CPU
 * pods or single-GPU inference pods, and lone pods without a group.
 */
static int gen_mixed(gen *g, runstate *r)
{
	const wasp_gen_options *o = g->o;
	int S = g->slots, n = g->nnodes, ncpu = 0, ngpu = 0;
	int *cand = malloc(sizeof *cand * (size_t)n);
	int *rack_gpu = calloc((size_t)g->nracks, sizeof *rack_gpu);
	if (!cand || !rack_gpu) {
		free(cand), free(rack_gpu);
		return -1;
	}
	/* GPU nodes first in cand, CPU nodes from the end */
	for (int i = 0; i < n; i++) {
		if (is_cpu_node(g, i)) {
			cand[n - 1 - ncpu++] = i;
		} else {
			cand[ngpu++] = i;
			rack_gpu[i / g->per_rack]++;
		}
	}
	int sizes[4], ns;
	ns = run_sizes(S, S, sizes);
	run_fill(g, r, cand, ngpu,
		 (long long)(o->busy * (double)ngpu * S + 0.5), sizes, ns);
	ns = run_sizes(CPU_SLOTS, CPU_SLOTS, sizes);
	run_fill(g, r, cand + ngpu, ncpu,
		 (long long)(o->busy * (double)ncpu * CPU_SLOTS + 0.5), sizes,
		 ns);
	free(cand);

	/* the roomiest rack and block, in GPUs, for widening */
	long long rack_cap = 0, block_cap = 0, cur = 0;
	int rpb = g->levels >= 2 ? g->fanout : g->nracks;
	for (int rk = 0; rk < g->nracks; rk++) {
		long long c = (long long)rack_gpu[rk] * S;
		if (c > rack_cap)
			rack_cap = c;
		cur += c;
		if ((rk + 1) % rpb == 0 || rk + 1 == g->nracks) {
			if (cur > block_cap)
				block_cap = cur;
			cur = 0;
		}
	}
	if (g->levels < 2)
		block_cap = 0;
	free(rack_gpu);

	char name[48], pod[64];
	for (int i = 0; i < o->gangs; i++) {
		int shapes[4] = {S, S / 2, S / 4, 1};
		double u = rnd_unit(&g->rng);
		int k = shapes[u < 0.4 ? 0 : u < 0.65 ? 1 : u < 0.8 ? 2 : 3];
		if (k < 1)
			k = 1;
		int size = gang_size(g, o->max_gang);
		gang_rest(g, i, size, k, 0.45, 0.7, rack_cap, block_cap);
	}
	int max_rep = o->max_gang / 4 > 1 ? o->max_gang / 4 : 1;
	for (int i = 0; i < o->services; i++) {
		int gpu = rnd_unit(&g->rng) < 0.3;
		int k = gpu ? 1 : 1 + (int)rnd_below(&g->rng, 2);
		int reps = 1 + (int)rnd_below(&g->rng, (uint64_t)max_rep);
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		snprintf(name, sizeof name, "svc-%05d", i);
		emit_basic_group(g, "web", name, pc);
		for (int j = 0; j < reps; j++) {
			snprintf(pod, sizeof pod, "%s-%d", name, j);
			emit_pod_x(g, "web", pod, name, pc, k, !gpu, NULL);
		}
	}
	for (int i = 0; i < o->lone_pods; i++) {
		int gpu = rnd_unit(&g->rng) < 0.3;
		int pc = (int)rnd_below(&g->rng, (uint64_t)g->npc);
		snprintf(pod, sizeof pod, "lone-%05d", i);
		emit_pod_x(g, "web", pod, NULL, pc, 1, !gpu, NULL);
	}
	return 0;
}

int wgen_emit_family(gen *g)
{
	runstate r;
	int n = g->nnodes, rc = -1;
	memset(&r, 0, sizeof r);
	r.free_slots = malloc(sizeof *r.free_slots * (size_t)n);
	r.npods = calloc((size_t)n, sizeof *r.npods);
	r.open = malloc(sizeof *r.open * (size_t)n);
	r.pos = malloc(sizeof *r.pos * (size_t)n);
	if (r.free_slots && r.npods && r.open && r.pos) {
		for (int i = 0; i < n; i++)
			r.free_slots[i] = node_slots(g, i);
		emit_nodes_x(g);
		switch (g->o->family) {
		case WGEN_FAMILY_NVLINK:
			rc = gen_nvlink(g, &r);
			break;
		case WGEN_FAMILY_FRAGMENTED:
			rc = gen_fragmented(g, &r);
			break;
		case WGEN_FAMILY_MIXED:
			rc = gen_mixed(g, &r);
			break;
		}
	}
	free(r.free_slots), free(r.npods), free(r.open), free(r.pos);
	return rc;
}
