/*
 * rebalance.c -- nightly rebalancing (rebalance.h).
 *
 * Domains of the finest topology key whose domains hold several nodes (or
 * single nodes when there is none) that are not wholly free are tried fewest pods first; each of their
 * running pods, largest first, goes best-fit to a busy node outside the
 * domains being freed.  A domain is freed whole or not at all, so a move
 * never happens without a domain to show for it.
 */
#include "run/rebalance.h"

#include <stdlib.h>
#include <string.h>

#include "model/dra.h"
#include "reduce/movable.h"
#include "reduce/units.h"
#include "model/quantity.h"
#include "base/sort.h"

typedef struct rb {
	const ws_snapshot *s;
	int nres, nn;
	int64_t *use;          /* nnodes * nres after the plan            */
	unsigned char *busy;   /* something runs or is placed there       */
	unsigned char *dirty;  /* evictions there: not a destination      */
	unsigned char *gone;   /* node of a domain being freed            */
	unsigned char *placed; /* the plan places pods there              */
	int *at;               /* npods: node after the plan, -1          */
	int *movable;          /* npods: 1 if the pod may move            */
} rb;

static bool node_free(const rb *R, int n)
{
	for (int r = 0; r < R->nres; r++)
		if (R->use[(size_t)n * R->nres + r])
			return false;
	return true;
}

static double fullness(const rb *R, int n)
{
	const ws_node *nd = &R->s->nodes[n];
	double f = 0;
	for (int r = 0; r < R->nres; r++)
		if (nd->alloc[r] > 0)
			f += (double)R->use[(size_t)n * R->nres + r] /
			     (double)nd->alloc[r];
	return f;
}

/* Best-fit destination for pod pi, or -1. */
static int dest(const rb *R, int pi)
{
	const ws_pod *pod = &R->s->pods[pi];
	int best = -1;
	double bf = -1;
	for (int n = 0; n < R->nn; n++) {
		if (R->gone[n] || R->dirty[n] || !R->busy[n])
			continue;
		const ws_node *nd = &R->s->nodes[n];
		int r = 0;
		while (r < R->nres &&
		       R->use[(size_t)n * R->nres + r] + pod->req[r] <=
			   nd->alloc[r])
			r++;
		if (r < R->nres || !ws_pod_fits_node_static(pod, nd, NULL))
			continue;
		double f = fullness(R, n);
		if (f > bf) {
			bf = f;
			best = n;
		}
	}
	return best;
}

static void apply(rb *R, int pi, int from, int to)
{
	const ws_pod *pod = &R->s->pods[pi];
	for (int r = 0; r < R->nres; r++) {
		R->use[(size_t)from * R->nres + r] -= pod->req[r];
		R->use[(size_t)to * R->nres + r] += pod->req[r];
	}
	R->at[pi] = to;
}

static int cmp_size(const void *va, const void *vb, const rb *R)
{
	int a = *(const int *)va, b = *(const int *)vb;
	const ws_pod *x = &R->s->pods[a], *y = &R->s->pods[b];
	for (int r = R->nres - 1; r >= 0; r--)
		if (x->req[r] != y->req[r])
			return x->req[r] > y->req[r] ? -1 : 1;
	return (a > b) - (a < b);
}

/* Pods of request req that fit in the best domain of key (or the whole
 * cluster), with use[] in use; schedulable nodes only. */
static int gang_fit(const rb *R, const wtp_key *key, const int64_t *use,
		    const int64_t *req)
{
	const ws_snapshot *s = R->s;
	int nd = key ? key->ndom : 1, best = 0;
	for (int d = 0; d < nd; d++) {
		long tot = 0;
		int cnt = key ? key->dom_nnodes[d] : R->nn;
		for (int i = 0; i < cnt; i++) {
			int n = key ? key->dom_nodes[d][i] : i;
			const ws_node *nd_ = &s->nodes[n];
			if (!ws_node_schedulable(nd_, NULL))
				continue;
			long fit = -1;
			for (int r = 0; r < R->nres; r++) {
				if (req[r] <= 0)
					continue;
				int64_t f = nd_->alloc[r] -
					    use[(size_t)n * R->nres + r];
				long q = f < req[r] ? 0 : (long)(f / req[r]);
				if (fit < 0 || q < fit)
					fit = q;
			}
			tot += fit > 0 ? fit : 0;
		}
		if (tot > best)
			best = tot > INT32_MAX ? INT32_MAX : (int)tot;
	}
	return best;
}

/* Pods by request vector, then index (for common_shape). */
static int cmp_req(const void *ctx, int a, int b)
{
	const ws_snapshot *s = ctx;
	int c = memcmp(s->pods[a].req, s->pods[b].req,
		       sizeof *s->pods[a].req * s->nres);
	return c ? c : (a > b) - (a < b);
}

/* The commonest request vector among pending pods (else running ones):
 * index of the first pod that has it (ties: the shape seen first), -1
 * when there are none, -2 out of memory.  Sorted, not scanned pairwise:
 * quadratic scans cost a second at 10^4 pods (bench/README.md,
 * "Keeping the time limit"). */
static int common_shape(const ws_snapshot *s, wa_arena *a)
{
	int *v = wa_calloc(a, (size_t)s->npods + 1, sizeof *v);
	int *tmp = wa_calloc(a, (size_t)s->npods + 1, sizeof *tmp);
	if (!v || !tmp)
		return -2;
	for (int pass = 0; pass < 2; pass++) {
		int n = 0;
		for (int i = 0; i < s->npods; i++) {
			const ws_pod *x = &s->pods[i];
			if (!x->terminal && ws_pod_pending(x) == (pass == 0))
				v[n++] = i;
		}
		wis_sort(v, tmp, n, cmp_req, s);
		int best = -1, bestn = 0;
		size_t sz = sizeof *s->pods[0].req * s->nres;
		for (int i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && !memcmp(s->pods[v[i]].req,
							 s->pods[v[j]].req, sz);
			     j++)
				;
			/* v[i] is the shape's first pod */
			if (j - i > bestn || (j - i == bestn && v[i] < best)) {
				bestn = j - i;
				best = v[i];
			}
		}
		if (best >= 0)
			return best;
	}
	return -1;
}

/* Count the wholly free domains of every key (or nodes), for figures. */
static void count_free(const rb *R, const wtp_topo *t, int *out)
{
	for (int k = 0; t && k < t->nkeys; k++) {
		const wtp_key *key = &t->keys[k];
		out[k] = 0;
		for (int d = 0; d < key->ndom; d++) {
			bool f = true;
			for (int i = 0; i < key->dom_nnodes[d] && f; i++)
				f = node_free(R, key->dom_nodes[d][i]);
			out[k] += f;
		}
	}
}

#define RB_NOMEM(err) werr(err, WASP_ENOMEM, "out of memory rebalancing")

/* The working arrays, and the --protect selector. */
static int rb_init(rb *R, const ws_snapshot *s, const wasp_options *o,
		   wa_arena *a, ws_expr **sel, int *nsel, wasp_error *err)
{
	int nres = s->nres, nn = s->nnodes;
	R->s = s;
	R->nres = nres;
	R->nn = nn;
	R->use = wa_calloc(a, (size_t)nn * nres + 1, sizeof *R->use);
	R->busy = wa_calloc(a, (size_t)nn + 1, 1);
	R->dirty = wa_calloc(a, (size_t)nn + 1, 1);
	R->gone = wa_calloc(a, (size_t)nn + 1, 1);
	R->placed = wa_calloc(a, (size_t)nn + 1, 1);
	R->at = wa_calloc(a, (size_t)s->npods + 1, sizeof *R->at);
	R->movable = wa_calloc(a, (size_t)s->npods + 1, sizeof *R->movable);
	*nsel = o ? wrb_selector(a, o->protect, sel) : 0;
	if (!R->use || !R->busy || !R->dirty || !R->gone || !R->placed ||
	    !R->at || !R->movable)
		return RB_NOMEM(err);
	if (*nsel < 0)
		return werr(err, WASP_EINVAL, "bad --protect selector '%s' "
			    "(want key=value, key!=value, key or !key, "
			    "comma-separated)", o->protect);
	return WASP_OK;
}

/* The cluster after the plan's placements and evictions (and which
 * running pods may move); then the solvers' moves (moves that admit
 * work), which come first: a pod moves at most once. */
static void rb_after_plan(rb *R, const wtp_topo *t, const wasp_plan *pl,
			  const ws_expr *sel, int nsel, int *fb)
{
	const ws_snapshot *s = R->s;
	int nres = R->nres;
	for (int i = 0; i < s->npods; i++) {
		const ws_pod *pod = &s->pods[i];
		R->at[i] = pod->terminal || ws_pod_pending(pod) ? -1 : pod->node;
	}
	for (int i = 0; i < pl->nevict; i++) {
		int pi = ws_pod_index(s, pl->evict[i].ns, pl->evict[i].pod);
		if (pi >= 0 && s->pods[pi].node >= 0) {
			R->dirty[s->pods[pi].node] = 1;
			R->at[pi] = -1;
		}
	}
	for (int i = 0; i < s->npods; i++) {
		int n = R->at[i];
		if (n < 0)
			continue;
		const ws_pod *pod = &s->pods[i];
		for (int r = 0; r < nres; r++)
			R->use[(size_t)n * nres + r] += pod->req[r];
		R->movable[i] = wrb_movable(s, i, sel, nsel);
	}
	for (int i = 0; i < pl->nplace; i++) {
		int pi = ws_pod_index(s, pl->place[i].ns, pl->place[i].pod);
		int n = ws_node_index(s, pl->place[i].node);
		if (pi < 0 || n < 0)
			continue;
		for (int r = 0; r < nres; r++)
			R->use[(size_t)n * nres + r] += s->pods[pi].req[r];
		R->placed[n] = 1;
	}
	count_free(R, t, fb);
	for (int i = 0; i < pl->nmove; i++) {
		int pi = ws_pod_index(s, pl->move[i].ns, pl->move[i].pod);
		int to = ws_node_index(s, pl->move[i].to);
		if (pi < 0 || to < 0 || R->at[pi] < 0)
			continue;
		apply(R, pi, R->at[pi], to);
		R->movable[pi] = 0;
	}
	for (int n = 0; n < R->nn; n++)
		R->busy[n] = !node_free(R, n);
}

/* The finest key with domains of several nodes (hostname-like keys free
 * single nodes, which freeing a domain does as well), or NULL: nodes. */
static const wtp_key *finest_key(const wtp_topo *t)
{
	int nk = t ? t->nkeys : 0;
	for (int k = nk - 1; k >= 0; k--)
		for (int d = 0; d < t->keys[k].ndom; d++)
			if (t->keys[k].dom_nnodes[d] > 1)
				return &t->keys[k];
	return NULL;
}

/* Node i of domain d (of key, or node d itself without a key). */
static int dom_node(const wtp_key *key, int d, int i)
{
	return key ? key->dom_nodes[d][i] : d;
}

static bool in_dom(const wtp_key *key, int d, int n)
{
	return key ? key->node_dom[n] == d : n == d;
}

/* The busy domain with the fewest pods to move, all movable, within the
 * move budget; -1: none. */
static int pick_domain(const rb *R, const wtp_key *key, int nd, int moves,
		       int maxm)
{
	const ws_snapshot *s = R->s;
	int best = -1, bestn = 0;
	for (int d = 0; d < nd; d++) {
		int nodes = key ? key->dom_nnodes[d] : 1, cnt = 0;
		bool ok = true, anybusy = false;
		for (int i = 0; i < nodes && ok; i++) {
			int n = dom_node(key, d, i);
			if (R->gone[n] || R->placed[n] || R->dirty[n])
				ok = false;
			anybusy |= R->busy[n];
		}
		if (!ok || !anybusy)
			continue;
		for (int i = 0; i < s->npods && ok; i++) {
			int n = R->at[i];
			if (n < 0 || !in_dom(key, d, n))
				continue;
			ok = R->movable[i];
			cnt++;
		}
		if (ok && cnt > 0 && moves + cnt <= maxm &&
		    (best < 0 || cnt < bestn)) {
			best = d;
			bestn = cnt;
		}
	}
	return best;
}

/* Move every running pod of domain d elsewhere, largest first, or none
 * (rolled back, and the domain stays out of later passes).  order and
 * from get the pods moved and where from; returns how many, 0 when the
 * domain could not be freed. */
static int free_domain(rb *R, const wtp_key *key, int d, int *order,
		       int *from)
{
	const ws_snapshot *s = R->s;
	int nodes = key ? key->dom_nnodes[d] : 1, no = 0;
	for (int i = 0; i < nodes; i++)
		R->gone[dom_node(key, d, i)] = 1;
	for (int i = 0; i < s->npods; i++) {
		int n = R->at[i];
		if (n >= 0 && R->gone[n] && in_dom(key, d, n))
			order[no++] = i;
	}
	/* largest first (insertion sort: a domain holds few pods) */
	for (int i = 1; i < no; i++)
		for (int j = i;
		     j > 0 && cmp_size(&order[j - 1], &order[j], R) > 0; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	int k = 0;
	for (; k < no; k++) {
		int to = dest(R, order[k]);
		if (to < 0)
			break;
		from[k] = R->at[order[k]];
		apply(R, order[k], from[k], to);
	}
	if (k == no)
		return no;
	while (k-- > 0)
		apply(R, order[k], R->at[order[k]], from[k]);
	for (int i = 0; i < nodes; i++)
		R->placed[dom_node(key, d, i)] = 1;
	for (int i = 0; i < nodes; i++)
		R->gone[dom_node(key, d, i)] = 0;
	return 0;
}

/* Append the moves of pods order[0..no) (from[k] -> where they are now). */
static int record_moves(const rb *R, wasp_plan *pl, size_t *cap,
			const int *order, const int *from, int no)
{
	const ws_snapshot *s = R->s;
	for (int k = 0; k < no; k++) {
		const ws_pod *pod = &s->pods[order[k]];
		const ws_group *g =
		    pod->group >= 0 ? &s->groups[pod->group] : NULL;
		wpl_move mv = {
		    .ns = wa_strdup(pl->arena, pod->ns),
		    .pod = wa_strdup(pl->arena, pod->name),
		    .from = wa_strdup(pl->arena, s->nodes[from[k]].name),
		    .to = wa_strdup(pl->arena, s->nodes[R->at[order[k]]].name),
		    .group = g ? wa_strdup(pl->arena, g->name) : NULL};
		if (!mv.ns || !mv.pod || !mv.from || !mv.to ||
		    (g && !mv.group) ||
		    WA_PUSH(pl->arena, pl->move, pl->nmove, *cap, mv))
			return -1;
	}
	return 0;
}

/* Free whole domains of the finest key, fewest pods first, within
 * --max-moves. */
static int rb_free_domains(rb *R, const wtp_key *key,
			   const wasp_options *o, wasp_plan *pl, wa_arena *a,
			   wasp_error *err)
{
	const ws_snapshot *s = R->s;
	int nd = key ? key->ndom : R->nn;
	int maxm = o && o->max_moves > 0 ? o->max_moves : INT32_MAX;
	size_t cap = (size_t)pl->nmove;
	int moves = pl->nmove;
	int *order = wa_calloc(a, (size_t)s->npods + 1, sizeof(int));
	int *from = wa_calloc(a, (size_t)s->npods + 1, sizeof(int));
	if (!order || !from)
		return RB_NOMEM(err);
	/* the run's time limit holds here too: the moves so far stand */
	wb_deadline dl = wdl_after(o && o->start_time > 0 ? o->start_time
							  : wb_now(),
				   o ? o->time_limit_s : 0);
	for (int pass = 0; pass < nd; pass++) {
		if (wdl_passed(dl, WDL_MARGIN_PHASE_S) ||
		    (o && o->cancel && *o->cancel)) {
			if (wpl_add_warning(pl, "rebalancing stopped early (time "
						"limit or cancel): the moves "
						"found by then are kept"))
				return RB_NOMEM(err);
			break;
		}
		int best = pick_domain(R, key, nd, moves, maxm);
		if (best < 0)
			break;
		int no = free_domain(R, key, best, order, from);
		if (no == 0)
			continue;
		if (record_moves(R, pl, &cap, order, from, no))
			return RB_NOMEM(err);
		moves += no;
		/* a pod moves once: a domain it went to is not freed later */
		for (int k = 0; k < no; k++)
			R->movable[order[k]] = 0;
		int nodes = key ? key->dom_nnodes[best] : 1;
		for (int i = 0; i < nodes; i++)
			R->busy[dom_node(key, best, i)] = 0;
	}
	return WASP_OK;
}

/* Where the snapshot's pending pods share one shape: how many such gangs
 * fit per domain before and after the moves. */
static int gang_report(const rb *R, const wtp_key *key, wasp_plan *pl,
		       wa_arena *a, wasp_error *err)
{
	const ws_snapshot *s = R->s;
	int nres = R->nres, nn = R->nn;
	int shape = common_shape(s, a);
	if (shape == -2)
		return RB_NOMEM(err);
	if (shape < 0)
		return WASP_OK;
	const ws_pod *sp = &s->pods[shape];
	char *txt = "", q[48];
	for (int r = 0; r < nres; r++) {
		if (r == WS_RES_PODS || !sp->req[r])
			continue;
		wq_format(sp->req[r], wq_is_bytes_resource(s->res[r]), q,
			  sizeof q);
		txt = wa_printf(pl->arena, "%s%s%s %s", txt, *txt ? ", " : "",
				q, s->res[r]);
		if (!txt)
			break;
	}
	int64_t *before =
	    wa_calloc(a, (size_t)nn * nres + 1, sizeof *before);
	if (!txt || !before)
		return werr(err, WASP_ENOMEM, "out of memory");
	for (int n = 0; n < nn; n++)
		memcpy(before + (size_t)n * nres, s->nodes[n].used,
		       sizeof *before * nres);
	pl->gang_shape = *txt ? txt : "1 pod";
	pl->gang_key = key ? wa_strdup(pl->arena, key->label) : NULL;
	pl->gang_before = gang_fit(R, key, before, sp->req);
	pl->gang_after = gang_fit(R, key, R->use, sp->req);
	return WASP_OK;
}

/* Wholly free domains per key before (fb) and after (fa), and whole
 * free nodes after. */
static int frag_report(const rb *R, const wtp_topo *t, wasp_plan *pl,
		       const int *fb, const int *fa, wasp_error *err)
{
	const ws_snapshot *s = R->s;
	int nk = t ? t->nkeys : 0;
	pl->sum.moved_pods = pl->nmove;
	pl->sum.tiers.moves = pl->nmove;
	pl->frag = wa_calloc(pl->arena, (size_t)nk + 1, sizeof *pl->frag);
	if (!pl->frag)
		return RB_NOMEM(err);
	for (int k = 0; k < nk; k++) {
		pl->frag[k].key = wa_strdup(pl->arena, t->keys[k].label);
		pl->frag[k].before = fb[k];
		pl->frag[k].after = fa[k];
		if (!pl->frag[k].key)
			return werr(err, WASP_ENOMEM, "out of memory");
	}
	pl->nfrag = nk;
	pl->sum.free_nodes_after = 0;
	for (int n = 0; n < R->nn; n++)
		pl->sum.free_nodes_after +=
		    ws_node_schedulable(&s->nodes[n], NULL) && node_free(R, n);
	return WASP_OK;
}

int wrb_rebalance(const ws_snapshot *s, const wtp_topo *t,
		  const wasp_options *o, wasp_plan *pl, wasp_error *err)
{
	wa_arena *a = wa_new();
	if (!a)
		return RB_NOMEM(err);
	rb R;
	memset(&R, 0, sizeof R);
	ws_expr *sel = NULL;
	int nsel = 0;
	int nk = t ? t->nkeys : 0;
	int *fb = wa_calloc(a, (size_t)nk + 1, sizeof(int));
	int *fa = wa_calloc(a, (size_t)nk + 1, sizeof(int));
	int rc = rb_init(&R, s, o, a, &sel, &nsel, err);
	if (!rc && (!fb || !fa))
		rc = RB_NOMEM(err);
	const wtp_key *key = finest_key(t);
	if (!rc) {
		rb_after_plan(&R, t, pl, sel, nsel, fb);
		rc = rb_free_domains(&R, key, o, pl, a, err);
	}
	if (!rc) {
		count_free(&R, t, fa);
		rc = gang_report(&R, key, pl, a, err);
	}
	if (!rc)
		rc = frag_report(&R, t, pl, fb, fa, err);
	wa_destroy(a);
	return rc;
}
