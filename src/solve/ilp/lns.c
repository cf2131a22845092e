/*
 * lns.c -- large neighbourhood search (doc/formulation.md §12): from the
 * constructive plan, free the placements in a few topology domains,
 * solve that sub-ILP with everything else fixed, keep what improves.
 *
 * A neighbourhood is a set of domains of one key (the coarsest whose
 * domains hold at most WLNS_MAX_NODES nodes), at most WLNS_MAX_NODES
 * nodes in all.  Its sub-problem (lns_sub.c) holds the groups whose pods
 * all lie there (admitted or not), up to WLNS_MAX_WAIT waiting groups
 * that may fit there, and the units wholly on its nodes; the pods of
 * every other group stay, and their use is taken off the nodes' room.
 * It is a wp_problem like any other, solved by wilp_solve_tuned.
 *
 * Where a group keyed to the next coarser key (a block) waits, two more
 * kinds of neighbourhood take turns with these: a few of one block's
 * racks (make_part_hoods), and a whole block where only the top
 * priority's block-keyed groups are free (block_hoods).  Where they do
 * not apply, top neighbourhoods of two or more of the key's domains
 * take turns instead, only the top priority's groups free (tops_apply),
 * so that a gang keyed to one domain meets another.  Where running
 * units may be evicted, the search also makes the smallest-pods-first
 * plan and goes on from it if it beats the first sweep's (alt_start).
 *
 * Determinism: the domains are ordered by their slack (free room and
 * room held by evictable units, a deterministic score) and cut into
 * neighbourhoods the same way on every machine; a batch of WLNS_BATCH
 * neighbourhoods is solved on OpenMP threads from the same plan, and the
 * answers are merged in batch order, each only when the whole plan stays
 * feasible (wp_sol_feasible) and gets lexicographically better.  So the
 * plan does not depend on the thread count unless a sub-solve or the
 * run hit its time limit (counted in wilp_lns_stats.cut).
 */
#include "solve/ilp/lns_int.h"
#include "solve/greedy/greedy.h"

#include <math.h>
#include <omp.h>

/* The key neighbourhoods are made of: the coarsest whose largest domain
 * has at most WLNS_MAX_NODES nodes and that has two domains or more;
 * -1: none. */
static int lns_key(const wp_problem *p)
{
	const wtp_topo *t = p->topo;
	for (int k = 0; t && k < t->nkeys; k++) {
		const wtp_key *key = &t->keys[k];
		int mx = 0;
		for (int d = 0; d < key->ndom; d++)
			if (key->dom_nnodes[d] > mx)
				mx = key->dom_nnodes[d];
		if (key->ndom >= 2 && mx <= WLNS_MAX_NODES && mx >= 2)
			return k;
	}
	return -1;
}

bool wilp_lns_applies(const wp_problem *p, const char **why)
{
	const char *w = NULL;
	if (p->snap->dra)
		w = "device claims";
	else if (p->nmcls)
		w = "moves (--rebalance)";
	else if (p->ncomps)
		w = "CompositePodGroup trees";
	for (int g = 0; !w && g < p->ngroups; g++)
		if (p->groups[g].tas)
			w = "topology annotations";
	if (!w && lns_key(p) < 0)
		w = "no topology key with small domains";
	if (why)
		*why = w;
	return w == NULL;
}

/* Slack of a domain: its nodes' free room plus the room of evictable
 * units on them, each resource over the largest node allocatable. */
static void domain_slack(const wp_problem *p, const wtp_key *key,
			 const int64_t *ev, double *slack)
{
	int nr = p->nres;
	double *scale = calloc((size_t)nr + 1, sizeof *scale);
	if (!scale)
		return;
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < nr; r++) {
			double a = (double)p->snap->nodes[n].alloc[r];
			if (a > scale[r])
				scale[r] = a;
		}
	for (int d = 0; d < key->ndom; d++) {
		double s = 0;
		for (int i = 0; i < key->dom_nnodes[d]; i++) {
			int n = key->dom_nodes[d][i];
			for (int r = 0; r < nr; r++)
				if (scale[r] > 0)
					s += (double)(p->free[(size_t)n * nr + r] +
						      ev[(size_t)n * nr + r]) /
					     scale[r];
		}
		slack[d] = s;
	}
	free(scale);
}

/* Room held by evictable units per node and resource. */
static int64_t *evictable_room(const wp_problem *p)
{
	int nr = p->nres;
	int64_t *ev = calloc((size_t)p->nnodes * nr + 1, sizeof *ev);
	int32_t top;
	if (!ev || !wpe_top_priority(p, &top))
		return ev;
	for (int u = 0; u < p->nunits; u++) {
		const wp_unit *un = &p->units[u];
		if (un->priority >= top || un->keep)
			continue;
		for (int i = 0; i < un->npods; i++) {
			const ws_pod *pod = &p->snap->pods[un->pods[i]];
			if (pod->node < 0)
				continue;
			for (int r = 0; r < nr; r++)
				ev[(size_t)pod->node * nr + r] += pod->req[r];
		}
	}
	return ev;
}

/* Round r's neighbourhoods: the domains by slack, dealt into
 * neighbourhoods of at most per nodes (WLNS_MAX_NODES; WLNS_TOP_NODES
 * for the top ones).  Round 0 keeps runs of
 * consecutive domains (the roomiest together); later rounds deal them out
 * with stride r + 1, so that other domains meet.  Fills nb (node lists,
 * -1 terminated, each in an arena block) and returns their count. */
static int make_hoods(const wtp_key *key, const int *order, int round,
		      int per, wa_arena *a, int ***out)
{
	int nd = key->ndom;
	int cap = nd + 1, nh = 0;
	int **hood = wa_calloc(a, cap, sizeof *hood);
	unsigned char *used = wa_calloc(a, nd + 1, 1);
	if (!hood || !used)
		return -1;
	int stride = round + 1;
	for (int start = 0; start < stride; start++) {
		int *cur = NULL, ncur = 0;
		for (int i = start; i < nd; i += stride) {
			int d = order[i];
			if (used[d])
				continue;
			int sz = key->dom_nnodes[d];
			if (cur && ncur + sz > per) {
				cur[ncur] = -1;
				cur = NULL;
			}
			if (!cur) {
				cur = wa_calloc(a, per + 1, sizeof *cur);
				if (!cur)
					return -1;
				hood[nh++] = cur;
				ncur = 0;
			}
			used[d] = 1;
			for (int k = 0; k < sz; k++)
				cur[ncur++] = key->dom_nodes[d][k];
		}
		if (cur)
			cur[ncur] = -1;
	}
	*out = hood;
	return nh;
}

/* Part neighbourhoods (WLNS_PART_NODES): where some group waiting in
 * the plan is keyed to the parent of the search's key, the search's
 * domains are also dealt within each parent domain, parents in the
 * order of their roomiest domain, a parent's domains in slack order with
 * stride r + 1 in round r, at most WLNS_PART_NODES nodes each.  So a
 * block-keyed gang, which no rack holds, is offered a few racks of its
 * block, and the block-keyed gangs placed there are freed. */
static bool parts_apply(const wp_problem *p, const wtp_key *key,
			const wp_sol *s)
{
	if (key->parent < 0 || !key->dom_parent)
		return false;
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].key == key->parent && !p->groups[g].invalid &&
		    !s->admit[g])
			return true;
	return false;
}

static int make_part_hoods(const wp_problem *p, const wtp_key *key,
			   const int *order, int round, wa_arena *a,
			   int ***out)
{
	const wtp_key *pk = &p->topo->keys[key->parent];
	int nd = key->ndom, np = pk->ndom, per = WLNS_PART_NODES;
	int **hood = wa_calloc(a, nd + 1, sizeof *hood);
	int *cnt = wa_calloc(a, np + 1, sizeof *cnt);
	int *off = wa_calloc(a, np + 1, sizeof *off);
	int *fill = wa_calloc(a, np + 1, sizeof *fill);
	int *porder = wa_calloc(a, np + 1, sizeof *porder);
	int *list = wa_calloc(a, nd + 1, sizeof *list);
	if (!hood || !cnt || !off || !fill || !porder || !list)
		return -1;
	int npo = 0, nh = 0;
	for (int i = 0; i < nd; i++) {
		int pd = key->dom_parent[order[i]];
		if (pd < 0)
			continue;
		if (!cnt[pd]++)
			porder[npo++] = pd;
	}
	for (int i = 0, at = 0; i < npo; i++) {
		off[porder[i]] = at;
		at += cnt[porder[i]];
	}
	for (int i = 0; i < nd; i++) {
		int pd = key->dom_parent[order[i]];
		if (pd >= 0)
			list[off[pd] + fill[pd]++] = order[i];
	}
	int stride = round + 1;
	for (int j = 0; j < npo; j++) {
		const int *seg = list + off[porder[j]];
		int m = cnt[porder[j]];
		if (m < 2)
			continue; /* the plain neighbourhoods have it */
		int *cur = NULL, ncur = 0;
		for (int start = 0; start < stride && start < m; start++)
			for (int i = start; i < m; i += stride) {
				int d = seg[i], sz = key->dom_nnodes[d];
				if (cur && ncur + sz > per) {
					cur[ncur] = -1;
					cur = NULL;
				}
				if (!cur) {
					cur = wa_calloc(a, per + 1,
							sizeof *cur);
					if (!cur)
						return -1;
					hood[nh++] = cur;
					ncur = 0;
				}
				for (int k = 0; k < sz; k++)
					cur[ncur++] = key->dom_nodes[d][k];
			}
		if (cur)
			cur[ncur] = -1;
	}
	*out = hood;
	return nh;
}

/* Block neighbourhoods: each whole domain of the parent key (a block),
 * the roomiest first (the slack of its domains), where only the top
 * priority's groups keyed to the parent are free or offered
 * (lns_hood.focus_key): the block-keyed gangs a block spreads over all
 * its racks, which no part neighbourhood frees, swapped for waiting
 * ones with smaller pods, in a sub-ILP small enough for its time
 * although the block has more than WLNS_PART_NODES nodes.  Where the
 * parent's domains are larger than WLNS_PART_NODES. */
static bool blocks_apply(const wp_problem *p, const wtp_key *key)
{
	const wtp_key *pk = &p->topo->keys[key->parent];
	for (int d = 0; d < pk->ndom; d++)
		if (pk->dom_nnodes[d] > WLNS_PART_NODES)
			return true;
	return false;
}

static int block_hoods(const wp_problem *p, const wtp_key *key,
		       const double *slack, wa_arena *a, int ***out)
{
	const wtp_key *pk = &p->topo->keys[key->parent];
	int np = pk->ndom;
	double *ps = wa_calloc(a, np + 1, sizeof *ps);
	int *ord = wa_calloc(a, np + 1, sizeof *ord);
	int *tmp = wa_calloc(a, np + 1, sizeof *tmp);
	int **hood = wa_calloc(a, np + 1, sizeof *hood);
	if (!ps || !ord || !tmp || !hood)
		return -1;
	for (int d = 0; d < key->ndom; d++)
		if (key->dom_parent[d] >= 0)
			ps[key->dom_parent[d]] += slack[d];
	for (int d = 0; d < np; d++)
		ord[d] = d;
	wis_sort(ord, tmp, np, wis_desc, ps);
	int nh = 0;
	for (int i = 0; i < np; i++) {
		int d = ord[i], sz = pk->dom_nnodes[d];
		if (sz < 2)
			continue;
		int *cur = wa_calloc(a, sz + 1, sizeof *cur);
		if (!cur)
			return -1;
		memcpy(cur, pk->dom_nodes[d], sizeof *cur * sz);
		cur[sz] = -1;
		hood[nh++] = cur;
	}
	*out = hood;
	return nh;
}

/* Top neighbourhoods (WLNS_TOP_NODES): domains of the search's key
 * dealt as by make_hoods into neighbourhoods of up to WLNS_TOP_NODES
 * nodes, where only the top priority's groups are free or offered
 * (WLNS_FOCUS_TOP).  Where two domains fit in one: a gang keyed to a
 * domain (a block, where the search's domains are blocks) then meets
 * another domain it may move to, which no plain neighbourhood offers.
 * Only where the part neighbourhoods do not apply: those already move
 * gangs between the key's domains within their parent, and at 10,000
 * nodes, where the search runs to its deadline, a fourth kind took
 * their time (mixed-10000: 17,742 top-priority pods against 17,748,
 * median of 3; bench/README.md, "Top neighbourhoods"). */
static bool tops_apply(const wtp_key *key)
{
	int a = INT32_MAX, b = INT32_MAX;
	for (int d = 0; d < key->ndom; d++) {
		int n = key->dom_nnodes[d];
		if (n < a) {
			b = a;
			a = n;
		} else if (n < b)
			b = n;
	}
	return key->ndom >= 2 && (long)a + b <= WLNS_TOP_NODES;
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* One batch: solve the neighbourhoods [h0, h1) from sol on threads, then
 * merge their answers in order.  Returns how many were taken, -1 NOMEM. */
static int run_batch(const wp_problem *p, const wasp_options *o,
		     wb_deadline dl, double sub_s, int **hood, int h0, int h1,
		     int focus_key, wp_sol *sol, lns_track *t,
		     wilp_lns_stats *st)
{
	int nb = h1 - h0;
	lns_hood H[WLNS_BATCH];
	memset(H, 0, sizeof H);
	int nt = o && o->threads > 0 ? o->threads : omp_get_max_threads();
	if (nt > nb)
		nt = nb;
	if (nt < 1)
		nt = 1;
	for (int i = 0; i < nb; i++) {
		int n = 0;
		while (hood[h0 + i][n] >= 0)
			n++;
		H[i].nodes = hood[h0 + i];
		H[i].nnodes = n;
		qsort(H[i].nodes, (size_t)n, sizeof *H[i].nodes, cmp_int);
	}
	/* per group its pods placed in each neighbourhood (per class its
	 * slot on each node there: a few nodes of many); in all: t */
	int ng = p->ngroups;
	long *gcnt = calloc((size_t)nb * ng + 1, sizeof *gcnt);
	if (!gcnt)
		return -1;
	for (int i = 0; i < nb; i++) {
		long *gin = gcnt + (size_t)i * ng;
		for (int c = 0; c < p->nclasses; c++)
			for (int k = 0; k < H[i].nnodes; k++) {
				int sl = wp_slot(p, c, H[i].nodes[k]);
				if (sl >= 0)
					gin[p->classes[c].group] +=
					    wp_x(sol, sl);
			}
		H[i].gin = gin;
		H[i].gtot = t->gtot;
	}
	/* the sub-problems are read from sol before any merge */
	int bad = 0;
	for (int i = 0; i < nb; i++) {
		H[i].wait_skip = i;
		H[i].focus_key = focus_key;
		if (wlns_sub_build(p, sol, &H[i]) < 0)
			bad = 1;
	}
	free(gcnt); /* read by the builds only */
	if (bad) {
		for (int i = 0; i < nb; i++)
			wlns_sub_free(&H[i]);
		return -1;
	}
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
	for (int i = 0; i < nb; i++) {
		if (!H[i].sub || wdl_passed(dl, WDL_MARGIN_PHASE_S))
			continue;
		wb_deadline sdl = wdl_sooner(dl, WDL_MARGIN_PHASE_S);
		double cap = wb_now() + sub_s;
		/* a work budget stops each sub-ILP by its node count, so
		 * that the plan is the same on any machine (doc/library.md,
		 * "Determinism"); only the run's deadline caps it then */
		if ((!o || o->work_limit <= 0) &&
		    (wdl_is_none(sdl) || sdl.at > cap))
			sdl = wdl_at(cap);
		wasp_options so = *o;
		so.threads = 1;
		wasp_error e;
		werr_clear(&e);
		H[i].out = wp_sol_new(H[i].sub, H[i].a);
		if (!H[i].out)
			continue;
		wilp_stats sst;
		/* the root's cuts and dive (doc/formulation.md §6b) were
		 * measured on whole models, not on neighbourhoods: off */
		wilp_tune tu;
		wilp_tune_init(&tu);
		tu.root_cuts = 0;
		if (wilp_solve_tuned(H[i].sub, &so, sdl, H[i].warm, H[i].out,
				     &sst, &tu, &e) == 0) {
			H[i].solved = true;
			H[i].improved = sst.improved;
			/* optimal, or the start proven optimal */
			H[i].proven = sst.gap == 0 && isnan(sst.top_gap);
		}
	}
	int taken = 0;
	for (int i = 0; i < nb; i++) {
		st->tried += H[i].sub != NULL;
		st->cut += H[i].sub && H[i].solved && !H[i].proven;
		if (H[i].sub && H[i].solved && H[i].improved) {
			int r = wlns_merge(p, &H[i], sol, t);
			if (r < 0) {
				for (int k = 0; k < nb; k++)
					wlns_sub_free(&H[k]);
				return -1;
			}
			taken += r;
		}
	}
	for (int i = 0; i < nb; i++)
		wlns_sub_free(&H[i]);
	return taken;
}

/* The other start: where running units may be evicted, the restarts do
 * not run the pass that takes each level's smallest pods first (its
 * lower levels hold room a search from it cannot free; restarts.c), yet
 * where many small top-priority pods wait behind a few large ones it
 * admits far more than a search from the largest-first plan reaches
 * (mixed-10000: 16,198 top-priority pods against 13,533 after the
 * first sweep; bench/README.md, "At scale").  The search makes it up
 * front and, after its first sweep, goes on from it if it is still
 * better.  NULL: not made (NOMEM or an error; the search goes on). */
static wp_sol *alt_start(const wp_problem *p, const wasp_options *o,
			 wa_arena *a)
{
	wp_sol *s = wp_sol_new(p, a);
	wasp_error e;
	werr_clear(&e);
	const char *why;
	if (!s || wgr_solve_seeded(p, o, s, WGR_SEED_SMALL, &e) ||
	    wp_sol_feasible(p, s, &why))
		return NULL;
	return s;
}

int wilp_lns(const wp_problem *p, const wasp_options *o, wb_deadline dl,
	     wp_sol *sol, wilp_lns_stats *st, wasp_error *err)
{
	return wilp_lns_rounds(p, o, dl, WLNS_MAX_ROUNDS, 0, sol, st, err);
}

int wilp_lns_rounds(const wp_problem *p, const wasp_options *o,
		    wb_deadline dl, int rounds, double sub_s, wp_sol *sol,
		    wilp_lns_stats *st, wasp_error *err)
{
	if (sub_s <= 0)
		sub_s = WLNS_SUB_S;
	double t0 = wb_now();
	memset(st, 0, sizeof *st);
	if (!wilp_lns_applies(p, NULL))
		return WASP_OK;
	int k = lns_key(p);
	const wtp_key *key = &p->topo->keys[k];
	st->key = key->label;
	if (key->parent >= 0)
		st->part_key = p->topo->keys[key->parent].label;
	wa_arena *a = wa_new();
	int64_t *ev = evictable_room(p);
	double *slack = a ? wa_calloc(a, key->ndom + 1, sizeof *slack) : NULL;
	int *order = a ? wa_calloc(a, key->ndom + 1, sizeof *order) : NULL;
	int *tmp = a ? wa_calloc(a, key->ndom + 1, sizeof *tmp) : NULL;
	lns_track tr;
	tr.gtot = a ? wa_calloc(a, (size_t)p->ngroups + 1, sizeof *tr.gtot)
		    : NULL;
	if (!ev || !slack || !order || !tmp || !tr.gtot) {
		free(ev);
		wa_destroy(a);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	/* the other start (see alt_start), made while time is plenty */
	wp_sol *alt = NULL;
	double range, most;
	if (wpe_evict_range(p, &range, &most) &&
	    (wdl_is_none(dl) || dl.at - wb_now() >= WLNS_ALT_MIN_S))
		alt = alt_start(p, o, a);
	wlns_track_init(p, sol, &tr);
	int rc = WASP_OK;
	/* sweeps take turns: the plain neighbourhoods, the block ones and
	 * the part ones, where these apply, else the top ones; a kind is
	 * done after a sweep of it that improved nothing (and had none
	 * cut, or can get no more time), until an improvement; all done
	 * ends the search.  The block sweep comes right after the plain
	 * one: it frees what most holds the top priority back
	 * (bench/README.md) */
	enum { K_PLAIN, K_PART, K_BLOCK, K_TOP, K_N };
	int seq[K_N], kinds = 0;
	seq[kinds++] = K_PLAIN;
	if (parts_apply(p, key, sol)) {
		if (blocks_apply(p, key))
			seq[kinds++] = K_BLOCK;
		seq[kinds++] = K_PART;
	} else if (tops_apply(key)) {
		seq[kinds++] = K_TOP;
	}
	double ksub[K_N] = {
	    [K_PLAIN] = sub_s,
	    [K_PART] = sub_s,
	    [K_BLOCK] = sub_s > WLNS_BLOCK_SUB_S ? sub_s : WLNS_BLOCK_SUB_S,
	    [K_TOP] = sub_s};
	bool done[K_N] = {false};
	for (int round = 0; round < rounds * kinds; round++) {
		int kind = seq[round % kinds];
		int sweep = round / kinds;
		if (done[kind])
			continue;
		/* slack from the problem, not the plan: the order is
		 * the same whatever the earlier rounds did */
		domain_slack(p, key, ev, slack);
		for (int d = 0; d < key->ndom; d++)
			order[d] = d;
		wis_sort(order, tmp, key->ndom, wis_desc, slack);
		int **hood = NULL;
		int nh = kind == K_BLOCK  ? block_hoods(p, key, slack, a, &hood)
			 : kind == K_PART ? make_part_hoods(p, key, order,
							    sweep, a, &hood)
					  : make_hoods(key, order, sweep,
						       kind == K_TOP
							   ? WLNS_TOP_NODES
							   : WLNS_MAX_NODES,
						       a, &hood);
		if (nh < 0) {
			rc = werr(err, WASP_ENOMEM, "out of memory");
			break;
		}
		int before = st->improved, cut = st->cut, tried = st->tried;
		for (int h = 0; h < nh; h += WLNS_BATCH) {
			if (wdl_passed(dl, WDL_MARGIN_PHASE_S) ||
			    (o && o->cancel && *o->cancel)) {
				st->deadline = true;
				break;
			}
			int e = h + WLNS_BATCH < nh ? h + WLNS_BATCH : nh;
			int focus = kind == K_BLOCK ? key->parent
				    : kind == K_TOP ? WLNS_FOCUS_TOP
						    : -1;
			int t = run_batch(p, o, dl, ksub[kind], hood, h, e,
					  focus, sol, &tr, st);
			if (t < 0) {
				rc = werr(err, WASP_ENOMEM, "out of memory");
				break;
			}
			st->improved += t;
		}
		st->rounds++;
		if (kind == K_PART) {
			st->part_tried += st->tried - tried;
			st->part_improved += st->improved - before;
		} else if (kind == K_BLOCK) {
			st->block_tried += st->tried - tried;
			st->block_improved += st->improved - before;
		} else if (kind == K_TOP) {
			st->top_tried += st->tried - tried;
			st->top_improved += st->improved - before;
		}
		/* after the first plain sweep (or the deadline in it), the
		 * other start when it is still better: the search goes on
		 * from it */
		if (alt && kind == K_PLAIN && !rc) {
			wp_value va;
			wp_evaluate(p, alt, &va);
			if (wp_value_cmp(&va, &tr.v) > 0) {
				wp_sol_copy(p, sol, alt);
				wlns_track_init(p, sol, &tr);
				st->alt = true;
				st->improved++;
			}
			alt = NULL;
		}
		if (rc || st->deadline)
			break;
		/* a sweep that improved nothing ends its kind, unless
		 * sub-ILPs were cut: then the next gets twice the time */
		if (st->improved == before) {
			if (st->cut == cut || ksub[kind] * 2 > WLNS_SUB_MAX_S)
				done[kind] = true;
			else
				ksub[kind] *= 2;
		} else
			memset(done, 0, sizeof done);
		bool all = true;
		for (int k2 = 0; k2 < kinds; k2++)
			all = all && done[seq[k2]];
		if (all)
			break;
	}
	free(ev);
	wa_destroy(a);
	st->seconds = wb_now() - t0;
	return rc;
}
