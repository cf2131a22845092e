/*
 * reasons.c -- why a group waits: texts with the numbers in them (what
 * the best domain holds, what a pod requests), in device terms when the
 * devices are what is short (doc/output.md).
 */
#include "solve/greedy/greedy_int.h"
#include "model/quantity.h"

#include <stdint.h>
#include <string.h>

const char *wgr_short_name(const char *label)
{
	const char *s = strrchr(label, '/');
	return s ? s + 1 : label;
}

const char *wgr_plural(int64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The request of class c that matters, as "8 nvidia.com/gpu": in domain
 * d of k the resource that limits the class most there; otherwise (the
 * whole cluster: too many nodes to scan per waiting group) the scarcest
 * request relative to the largest node. */
static const char *describe_req(gs *G, int c, const wtp_key *k, int d)
{
	const wp_class *cl = &G->p->classes[c];
	const cinfo *ci = &G->ci[c];
	if (ci->nr == 0)
		return "nothing";
	int best_r = ci->rl[0];
	int64_t best = INT64_MAX;
	for (int i = 0; k && d >= 0 && i < ci->nr; i++) {
		int r = ci->rl[i];
		int64_t sum = 0;
		for (int j = 0; j < k->dom_nnodes[d]; j++) {
			int n = k->dom_nodes[d][j];
			if (!wgr_elig_bit(ci, n))
				continue;
			int64_t f = G->fr[(size_t)n * G->nres + r];
			if (f >= cl->req[r])
				sum += f / cl->req[r];
		}
		if (sum < best) {
			best = sum;
			best_r = r;
		}
	}
	/* the pod limit binds, yet something else is requested: name the
	 * largest other request so the reader knows the pod */
	if (best_r == WS_RES_PODS)
		for (int i = 0; i < ci->nr; i++)
			if (ci->rl[i] != WS_RES_PODS) {
				best_r = ci->rl[i];
				break;
			}
	if (best_r == WS_RES_PODS)
		return "1 pod slot";
	char q[64];
	const char *name = G->s->res[best_r];
	wq_format(cl->req[best_r], wq_is_bytes_resource(name), q, sizeof q);
	return wa_printf(G->ra, "%s %s", q, name);
}

/* The main class of a group for messages: the first in placement order. */
static const char *pods_of(gs *G, const wp_group *wg, int c, int npods,
			   const wtp_key *k, int d)
{
	if (npods == 1)
		return wg->nclasses == 1
			   ? wa_printf(G->ra, "a pod of %s",
				       describe_req(G, c, k, d))
			   : "1 pod";
	if (wg->nclasses > 1)
		return wa_printf(G->ra, "%d pods", npods);
	return wa_printf(G->ra, "%d pods of %s each", npods,
			 describe_req(G, c, k, d));
}

const char *wgr_explain(gs *G, const wp_group *wg, const int *corder,
			const wtp_key *k, const dcand *cd, int ncd,
			int need, int tried)
{
	wa_arena *a = G->ra;
	const wp_problem *p = G->p;
	int c0 = corder[0];
	/* pods no node can ever take */
	int reach = 0;
	const char *none = NULL;
	for (int i = 0; i < wg->nclasses; i++) {
		const wp_class *cl = &p->classes[corder[i]];
		if (cl->nelig > 0)
			reach += cl->count;
		else if (!none)
			none = cl->why_none;
	}
	if (none && reach < (need > 0 ? need : 1))
		return wa_printf(a, "no node matches: %s", none);
	int best = -1;
	for (int i = 0; i < ncd; i++)
		if (best < 0 || cd[i].bound > cd[best].bound)
			best = i;
	int64_t bb = best >= 0 ? cd[best].bound : 0;
	if (bb >= need && tried > 0)
		return wa_printf(a, "the roll-up promised room for %d pod%s "
				 "but they did not fit together in any of "
				 "the %d %s tried", need,
				 wgr_plural(need, "", "s"), tried,
				 k ? "domains" : "placements");
	if (!k) {
		if (wg->gang && wg->nclasses > 1)
			return wa_printf(a, "only %lld of %d required pods fit "
					 "anywhere in the cluster",
					 (long long)bb, need);
		if (wg->gang)
			return wa_printf(a, "only %lld of %d required pods fit "
					 "anywhere in the cluster (%s each)",
					 (long long)bb, need,
					 describe_req(G, c0, NULL, -1));
		return wa_printf(a, "no eligible node has room for %s "
				 "(%d eligible node%s)",
				 pods_of(G, wg, c0, 1, NULL, -1),
				 p->classes[c0].nelig,
				 wgr_plural(p->classes[c0].nelig, "", "s"));
	}
	const char *sn = wgr_short_name(k->label);
	if (wg->fixed_dom >= 0) {
		int d = wg->fixed_dom;
		/* a led pass's hint (wgr_solve_led: the bound's
		 * whole-gang answer) rides on fixed_dom where the group
		 * had none, that is, no running pods */
		bool led = G->hint && G->hint[wg - p->groups] >= 0 &&
			   wg->nbound == 0;
		const char *pin = led ? "the plan (led by the bound's "
					"whole-gang answer) gave it"
				      : "its running pods pin it to";
		const char *more = led ? "" : "more ";
		if (wg->nclasses > 1)
			return wa_printf(a, "%s %s %s, which has room for %lld "
					 "of the %d %spods it needs", pin, sn,
					 k->dom_name[d], (long long)bb, need,
					 more);
		return wa_printf(a, "%s %s %s, which has room for %lld of the "
				 "%d %spod%s it needs (%s each)", pin, sn,
				 k->dom_name[d], (long long)bb, need, more,
				 wgr_plural(need, "", "s"),
				 describe_req(G, c0, k, d));
	}
	if (best < 0)
		return wa_printf(a, "no node has the label %s", k->label);
	const char *what = pods_of(G, wg, c0, need, k, cd[best].d);
	if (bb == 0)
		return wa_printf(a, "no %s domain has room for %s", k->label,
				 what);
	return wa_printf(a, "no %s domain has room for %s; the best %s (%s) "
			 "fits %lld", k->label, what, sn,
			 k->dom_name[cd[best].d], (long long)bb);
}

/* Eligible nodes tried per shared claim for a waiting reason. */
#define WGR_SHARED_NODES 4096

/* The pods' own claims fit, yet the group waits: when a shared claim its
 * pods use is what fails, say which and how (NULL otherwise). */
static const char *shared_reason(gs *G, const wp_group *wg)
{
	const wp_problem *p = G->p;
	const wdr_state *st = G->dra;
	const ws_dra *d = st->d;
	for (int i = 0; i < wg->nclasses; i++) {
		int c = wg->classes[i];
		const wdr_podc *pc = G->cpc[c];
		const wp_class *cl = &p->classes[c];
		for (int k = 0; pc && k < pc->n; k++) {
			int in = pc->c[k].inst;
			if (in < 0)
				continue;
			const wdr_inst *I = &d->insts[in];
			int al = st->inst_alloc[in];
			if (al >= 0) {
				const wdr_alloc *A = &st->allocs[al];
				int rch = 0;
				for (int e = 0; e < cl->nelig; e++) {
					bool all = true;
					for (int r = 0; r < A->n && all; r++)
						all = wdr_reaches(G->s,
						    &d->devs[st->res[A->first
								     + r].dev],
						    cl->elig[e]);
					rch += all;
				}
				if (rch == cl->nelig)
					continue; /* not what binds */
				return wa_printf(G->ra, "shared claim %s/%s "
				    "has its devices already (allocated for "
				    "node %s); they reach %d of the %d "
				    "eligible nodes, which did not hold the "
				    "pods", I->ns, I->name,
				    G->s->nodes[A->node].name, rch,
				    cl->nelig);
			}
			wdr_result *out = wa_calloc(G->tmp, WDR_MAX_RESULTS,
						    sizeof *out);
			if (!out)
				return NULL;
			int ok = 0, tried = 0;
			for (int e = 0; e < cl->nelig &&
			     tried < WGR_SHARED_NODES; e++, tried++)
				ok += wdr_alloc_spec(st, &d->specs[I->spec],
						     cl->elig[e], st->taken,
						     NULL, 0, out,
						     WDR_MAX_RESULTS) >= 0;
			if (!ok)
				return wa_printf(G->ra, "shared claim %s/%s "
				    "cannot be allocated from any one of "
				    "the %d eligible node%s tried: no node "
				    "reaches enough free matching devices",
				    I->ns, I->name, tried,
				    wgr_plural(tried, "", "s"));
			if (ok < tried)
				return wa_printf(G->ra, "shared claim %s/%s "
				    "can be allocated from only %d of the "
				    "%d eligible nodes tried, and the pods "
				    "that share it did not fit there",
				    I->ns, I->name, ok, tried);
		}
	}
	return NULL;
}

/* Per claim list (G->rsf): what a waiting reason sums over the
 * eligible nodes, each node's share kept at its node version (valid when
 * the devices keep to their nodes, gs.dev_local), so that only the
 * nodes that changed since are counted again. */
typedef struct rsfit {
	int32_t *node;             /* per node: its fit at ver[]      */
	uint32_t *ver;
	const unsigned char *bits; /* the eligibility summed over      */
	int64_t sum;
	/* the same for the reason text's counts (wdr_explain_node) */
	wdr_xnode *x;
	uint32_t *xver;
	const unsigned char *xbits;
} rsfit;

/* The per-claim-list entry of G->rsf, or NULL (no memory). */
static rsfit *rs_entry(gs *G, const wdr_podc *pc)
{
	if (!G->rsf && !(G->rsf = wa_calloc(G->tmp, (size_t)G->dr_nsig + 1,
					    sizeof *G->rsf)))
		return NULL;
	return &G->rsf[pc->sig];
}

/* wdr_explain's node counts over class c's eligible nodes, kept per
 * node at its version as dev_fit_sum keeps the fits.  false: not kept
 * (devices not local, no memory). */
static bool dev_explain_sum(gs *G, int c, const wdr_podc *pc,
			    wdr_xnode *sum)
{
	if (!G->dev_local || pc->sig >= G->dr_nsig)
		return false;
	rsfit *f = rs_entry(G, pc);
	if (!f)
		return false;
	const cinfo *ci = &G->ci[c];
	if (!f->x) {
		f->x = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof *f->x);
		f->xver = wa_calloc(G->tmp, (size_t)G->nn + 1,
				    sizeof *f->xver);
		if (!f->x || !f->xver) {
			f->x = NULL;
			return false;
		}
	}
	if (f->xbits != ci->bits) { /* versions start at 1 */
		memset(f->xver, 0, (size_t)G->nn * sizeof *f->xver);
		f->xbits = ci->bits;
	}
	*sum = (wdr_xnode){0, 0, 0};
	for (int n = 0; n < G->nn; n++) {
		if (!wgr_elig_bit(ci, n))
			continue;
		wdr_xnode *x = &f->x[n];
		if (f->xver[n] != G->nver[n]) {
			if (!wdr_explain_node(G->dra, pc, n, x))
				return false;
			f->xver[n] = G->nver[n];
		}
		sum->best = x->best > sum->best ? x->best : sum->best;
		sum->tainted += x->tainted;
		sum->ctr += x->ctr;
	}
	return true;
}

/* The device fit of claim list pc summed over class c's eligible
 * nodes; -1: not kept (devices not local, no memory). */
static int64_t dev_fit_sum(gs *G, int c, const wdr_podc *pc)
{
	if (!G->dev_local || pc->sig >= G->dr_nsig)
		return -1;
	rsfit *f = rs_entry(G, pc);
	if (!f)
		return -1;
	const cinfo *ci = &G->ci[c];
	if (!f->node) {
		f->node = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(int32_t));
		f->ver = wa_calloc(G->tmp, (size_t)G->nn + 1, sizeof(uint32_t));
		if (!f->node || !f->ver) {
			f->node = NULL;
			return -1;
		}
	}
	if (f->bits != ci->bits) { /* versions start at 1: all recounted */
		memset(f->ver, 0, (size_t)G->nn * sizeof *f->ver);
		memset(f->node, 0, (size_t)G->nn * sizeof *f->node);
		f->sum = 0;
		f->bits = ci->bits;
	}
	for (int n = 0; n < G->nn; n++) {
		if (f->ver[n] == G->nver[n] || !wgr_elig_bit(ci, n))
			continue;
		int32_t nf = (int32_t)wdr_fit(G->dra, pc, n, 4096);
		f->sum += nf - f->node[n];
		f->node[n] = nf;
		f->ver[n] = G->nver[n];
	}
	return f->sum;
}

/* A group with device claims that could not be placed: when the devices
 * (not cpu or memory) are what is short, say so in device terms.  The
 * device fit over the nodes and the text are cached per (claim list, key,
 * eligible nodes) until a group is admitted: a failed try leaves the
 * allocation state as it was. */
const char *wgr_device_reason(gs *G, const wp_group *wg,
			      const wtp_key *k, int need)
{
	const wp_problem *p = G->p;
	const wp_class *dc = NULL;
	int c0 = -1;
	for (int i = 0; i < wg->nclasses && !dc; i++)
		if (G->cpc[wg->classes[i]]) {
			c0 = wg->classes[i];
			dc = &p->classes[c0];
		}
	if (!dc)
		return NULL;
	const wdr_podc *pc = G->cpc[c0];
	size_t slot = (size_t)pc->sig * G->dr_nk + (size_t)(wg->key + 1);
	bool cache = G->dr_text && pc->sig < G->dr_nsig &&
		     wg->key + 1 < G->dr_nk;
	bool valid = cache && G->dr_ver[slot] == G->dra_commit + 1 &&
		     G->dr_elig[slot] == dc->elig;
	int64_t fit;
	if (valid) {
		fit = G->dr_fit[slot];
	} else {
		/* Pods the devices alone would admit, node by node. */
		fit = dev_fit_sum(G, c0, pc);
		if (fit < 0 || G->ix_check) {
			/* the checked pass (wgr_solve_checked) counts
			 * again and compares */
			int64_t all = 0;
			for (int j = 0; j < dc->nelig; j++)
				all += wdr_fit(G->dra, pc, dc->elig[j], 4096);
			if (fit >= 0) {
				G->ix_checks++;
				G->ix_bad += all != fit;
			}
			fit = all;
		}
		if (cache) {
			G->dr_fit[slot] = fit;
			G->dr_elig[slot] = dc->elig;
			G->dr_text[slot] = NULL;
			G->dr_ver[slot] = G->dra_commit + 1;
		}
	}
	if (fit >= need && !pc->why && need > 0)
		return shared_reason(G, wg);
	if (cache && G->dr_text[slot])
		return G->dr_text[slot];
	const char *where = k ? wa_printf(G->tmp, "in any %s domain",
					  k->label)
			      : "in the cluster";
	if (!where)
		return NULL;
	wdr_xnode sum;
	const char *text = NULL;
	bool kept = dev_explain_sum(G, c0, pc, &sum);
	if (kept)
		text = wdr_explain_sum(G->dra, dc->pods, dc->count, &sum, where,
				       (long long)fit, need, G->ra);
	if (!kept || G->ix_check) {
		/* the checked pass counts every node again and compares */
		const char *all = wdr_explain(G->dra, dc->pods, dc->count,
					      dc->elig, dc->nelig, where,
					      (long long)fit, need, G->ra);
		if (kept) {
			G->ix_checks++;
			G->ix_bad += !text || !all || strcmp(text, all);
		}
		text = all;
	}
	if (cache)
		G->dr_text[slot] = text;
	return text;
}
