/*
 * export.c -- the model written out as LP, MPS (GLPK's writers) or GMPL
 * data for models/wasp.mod, which the cross-checks of doc/formulation.md
 * §7 solve with other solvers.
 */
#define _GNU_SOURCE /* memfd_create; open_memstream */
#include "solve/ilp/ilp_int.h"
#include "base/outfile.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A GMPL symbol: the name in single quotes, or a stand-in when too long
 * for MathProg (100 characters). */
static void dat_sym(FILE *f, const char *s, char kind, int idx)
{
	if (strlen(s) > WILP_SYM_MAX - 2) {
		fprintf(f, "'~%c%d'", kind, idx);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void dat_group(FILE *f, const wp_problem *p, int g)
{
	char gb[600];
	dat_sym(f, wilp_group_name(p, g, gb, sizeof gb), 'g', g);
}

/* Does an exclusive, slice or preferred annotation name key k (the
 * preferred level's coarser keys count too)? */
static bool key_in_tas(const wp_problem *p, int k)
{
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta)
			continue;
		if (ta->excl == k)
			return true;
		for (int l = 0; l < ta->nslices; l++)
			if (ta->slice_key[l] == k)
				return true;
		for (int q = ta->pref; q >= 0 && q < 64;
		     q = p->topo->keys[q].parent)
			if (q == k)
				return true;
	}
	return false;
}

/* Preferred levels (doc/formulation.md §9): the (group, key, domain) triples
 * with a w column (the group has a column in the domain) and the keys' order,
 * which fixes the compactness tiers' order (coarse first). */
static void dat_pref(FILE *f, const wm *m)
{
	const wp_problem *p = m->p;
	fprintf(f, "\nset PW :=");
	unsigned char seen[64] = { 0 };
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_W)
			continue;
		int g = m->cref[j] / 64, k = m->cref[j] % 64;
		const wtp_key *key = &p->topo->keys[k];
		seen[k] = 1;
		fprintf(f, "\n (");
		dat_group(f, p, g);
		fputc(',', f);
		dat_sym(f, key->label, 'k', k);
		fputc(',', f);
		dat_sym(f, key->dom_name[m->cdom[j]], 'd', m->cdom[j]);
		fputc(')', f);
	}
	fprintf(f, ";\nparam kord :=");
	for (int k = 0; k < 64 && p->topo && k < p->topo->nkeys; k++)
		if (seen[k]) {
			fprintf(f, "\n ");
			dat_sym(f, p->topo->keys[k].label, 'k', k);
			fprintf(f, " %d", k);
		}
	fprintf(f, ";\n");
}

/* Exclusive and slice annotations (doc/formulation.md §9). */
static void dat_tas(FILE *f, const wp_problem *p)
{
	fprintf(f, "\nparam tas :=");
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].tas) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fprintf(f, " 1");
		}
	fprintf(f, ";\nset GX :=");
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].tas && p->groups[g].tas->excl >= 0) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
		}
	fprintf(f, ";\nparam xkey :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta || ta->excl < 0)
			continue;
		fprintf(f, "\n ");
		dat_group(f, p, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[ta->excl].label, 'k', ta->excl);
	}
	fprintf(f, ";\nparam xfixed :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta || ta->excl < 0 || ta->excl_fixed < 0)
			continue;
		fprintf(f, "\n ");
		dat_group(f, p, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[ta->excl].dom_name[ta->excl_fixed],
			'd', ta->excl_fixed);
	}
	fprintf(f, ";\nset XBAN :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		if (!ta || ta->excl < 0)
			continue;
		const wtp_key *k = &p->topo->keys[ta->excl];
		for (int d = 0; d < k->ndom; d++) {
			int own = p->excl_owner[ta->excl][d];
			if (own == -1 || own == p->groups[g].sg)
				continue;
			fprintf(f, "\n (");
			dat_group(f, p, g);
			fputc(',', f);
			dat_sym(f, k->dom_name[d], 'd', d);
			fputc(')', f);
		}
	}
	fprintf(f, ";\nparam : GL : skey ssize :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_tas *ta = p->groups[g].tas;
		for (int l = 0; ta && l < ta->nslices; l++) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fprintf(f, " %d ", l + 1);
			dat_sym(f, p->topo->keys[ta->slice_key[l]].label, 'k',
				ta->slice_key[l]);
			fprintf(f, " %d", ta->slice_size[l]);
		}
	}
	fprintf(f, ";\n");
}

static void dat_comp(FILE *f, const wp_problem *p, int h)
{
	char hb[600];
	/* a prefix keeps composite names apart from group names */
	char nb[620];
	snprintf(nb, sizeof nb, "H:%s", wilp_comp_name(p, h, hb, sizeof hb));
	dat_sym(f, nb, 'h', h);
}

/* Group g, or component g when `comp`: its symbol, key and fixed domain. */
static void dat_ent(FILE *f, const wp_problem *p, bool comp, int g)
{
	if (comp)
		dat_comp(f, p, g);
	else
		dat_group(f, p, g);
}

static void dat_ent_key(const wp_problem *p, bool comp, int g, int *key,
			int *dom)
{
	*key = comp ? p->comps[g].key : p->groups[g].key;
	*dom = comp ? p->comps[g].fixed_dom : p->groups[g].fixed_dom;
}

/* The topology of the groups (or the components): the set of those with
 * a key, the param of their keys and the param of their fixed domains;
 * the last ";" is the caller's. */
static void dat_keyed(FILE *f, const wp_problem *p, bool comp,
		      const char *set, const char *kpar, const char *fpar)
{
	int n = comp ? p->ncomps : p->ngroups, key, dom;
	fprintf(f, "set %s :=", set);
	for (int g = 0; g < n; g++) {
		dat_ent_key(p, comp, g, &key, &dom);
		if (key < 0)
			continue;
		fprintf(f, "\n ");
		dat_ent(f, p, comp, g);
	}
	fprintf(f, ";\nparam %s :=", kpar);
	for (int g = 0; g < n; g++) {
		dat_ent_key(p, comp, g, &key, &dom);
		if (key < 0)
			continue;
		fprintf(f, "\n ");
		dat_ent(f, p, comp, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[key].label, 'k', key);
	}
	fprintf(f, ";\nparam %s :=", fpar);
	for (int g = 0; g < n; g++) {
		dat_ent_key(p, comp, g, &key, &dom);
		if (key < 0 || dom < 0)
			continue;
		fprintf(f, "\n ");
		dat_ent(f, p, comp, g);
		fputc(' ', f);
		dat_sym(f, p->topo->keys[key].dom_name[dom], 'd', dom);
	}
}

static void dat_under(FILE *f, const wp_problem *p, int h, int top)
{
	const wp_comp *c = &p->comps[h];
	for (int i = 0; i < c->nkids; i++) {
		int k = c->kids[i];
		if (k < 0) {
			dat_under(f, p, -1 - k, top);
			continue;
		}
		fprintf(f, "\n (");
		dat_group(f, p, k);
		fputc(',', f);
		dat_comp(f, p, top);
		fputc(')', f);
	}
}

/* CompositePodGroups (doc/formulation.md §9): H, parents, minimum,
 * running children, keys and the group-below-composite relation. */
static void dat_trees(FILE *f, const wp_problem *p)
{
	fprintf(f, "\nset H :=");
	for (int h = 0; h < p->ncomps; h++) {
		fprintf(f, "\n ");
		dat_comp(f, p, h);
	}
	fprintf(f, ";\nparam : hmin hrun husable :=");
	for (int h = 0; h < p->ncomps; h++) {
		const wp_comp *c = &p->comps[h];
		fprintf(f, "\n ");
		dat_comp(f, p, h);
		fprintf(f, " %d %d %d", c->min_groups > 0 ? c->min_groups : 1,
			c->nrunning, !c->invalid && c->fixed_dom != -2);
	}
	fprintf(f, ";\nparam hpar :=");
	for (int h = 0; h < p->ncomps; h++)
		if (p->comps[h].parent >= 0) {
			fprintf(f, "\n ");
			dat_comp(f, p, h);
			fputc(' ', f);
			dat_comp(f, p, p->comps[h].parent);
		}
	fprintf(f, ";\nparam gpar :=");
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].pcomp) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fputc(' ', f);
			dat_comp(f, p, p->groups[g].pcomp - 1);
		}
	fprintf(f, ";\n");
	dat_keyed(f, p, true, "HK", "hkey", "hfixed");
	fprintf(f, ";\nset UNDER :=");
	for (int h = 0; h < p->ncomps; h++)
		dat_under(f, p, h, h);
	fprintf(f, ";\n");
}

/* Moves (doc/formulation.md §4c): the move classes, their nodes, and
 * --max-moves. */
static void dat_moves(const wm *m, FILE *f, const int64_t *unit)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	fprintf(f, "\nset MC :=");
	for (int i = 0; i < p->nmcls; i++)
		fprintf(f, "%s'm%d'", i % 10 ? " " : "\n ", i);
	fprintf(f, ";\nset MY :=");
	for (int i = 0; i < p->nmcls; i++)
		for (int k = 0; k < p->mcls[i].nelig; k++) {
			int n = p->mcls[i].elig[k];
			fprintf(f, "\n ('m%d',", i);
			dat_sym(f, s->nodes[n].name, 'n', n);
			fputc(')', f);
		}
	fprintf(f, ";\nparam : mhome mcnt mprio :=");
	for (int i = 0; i < p->nmcls; i++) {
		const wp_mclass *mc = &p->mcls[i];
		fprintf(f, "\n 'm%d' ", i);
		dat_sym(f, s->nodes[mc->home].name, 'n', mc->home);
		fprintf(f, " %d %ld", mc->count, (long)mc->priority);
	}
	fprintf(f, ";\nparam mq :=");
	for (int i = 0; i < p->nmcls; i++)
		if (m->mc_qc[i] >= 0)
			fprintf(f, "\n 'm%d' 'e%d'", i, m->mc_qc[i]);
	fprintf(f, ";\nparam muse :=");
	for (int i = 0; i < p->nmcls; i++)
		for (int r = 0; r < p->nres; r++) {
			if (p->mcls[i].req[r] <= 0)
				continue;
			fprintf(f, "\n 'm%d' ", i);
			dat_sym(f, s->res[r], 'r', r);
			fprintf(f, " %lld",
				(long long)(p->mcls[i].req[r] / unit[r]));
		}
	fprintf(f, ";\nparam maxmoves := %d;\n", p->nmcls ? p->max_moves
							 : 0);
}

/* Was (n, dev) written for an earlier L column (another claim)? */
static bool far_seen(const wm *m, int j, int n, int dev)
{
	for (int k = 1; k < j; k++) {
		if (m->ckind[k] != WM_L || m->cdom[k] != n)
			continue;
		for (int e = m->dv_shead[dev]; e >= 0; e = m->dv_s[e].next)
			if (m->dv_s[e].inst == m->cref[k])
				return true;
	}
	return false;
}

/* Shared claims' ways, devices and nodes (models/wasp.mod, "shared
 * claims"): instance 'iI', request 'rQ', device 'dD', way 'wK'. */
static void dat_insts(FILE *f, const wm *m)
{
	const wp_problem *p = m->p;
	const ws_dra *d = p->snap->dra;
	int ni = d && m->dv_irec ? d->ninsts : 0;
	fprintf(f, "set ZW :=");
	for (int i = 0; i < ni; i++)
		for (int w = 0; w < m->dv_irec[i].nw; w++)
			fprintf(f, " ('i%d', 'w%d')", i, w);
	fprintf(f, ";\nparam zpen :=");
	for (int i = 0; i < ni; i++)
		for (int w = 0; w < m->dv_irec[i].nw; w++) {
			int pen = (int)wilp_dv_col_pen(m,
			    m->dv_irec[i].zfirst + w);
			if (pen)
				fprintf(f, " 'i%d' 'w%d' %d", i, w, pen);
		}
	fprintf(f, ";\nparam iq :=");
	for (int i = 0; i < ni; i++)
		if (m->dv_irec[i].nw)
			fprintf(f, " 'i%d' %d", i, m->dv_irec[i].q);
	fprintf(f, ";\nparam zc :=");
	for (int i = 0; i < ni; i++) {
		const dvinst *I = &m->dv_irec[i];
		const wdr_spec *sp = I->nw ? &d->specs[I->spec] : NULL;
		for (int w = 0; w < I->nw; w++)
			for (int r = 0; r < sp->nreqs; r++)
				fprintf(f, "\n 'i%d' 'w%d' 'r%d' %d", i, w, r,
					sp->reqs[r].alts[I->alt[w * sp->nreqs
								 + r]].count);
	}
	fprintf(f, ";\nset SW :=");
	for (int k = 0; k < m->dv_ns; k++)
		fprintf(f, "\n ('i%d', 'r%d', 'd%d')", m->dv_s[k].inst,
			m->dv_s[k].req, m->dv_s[k].dev);
	fprintf(f, ";\nset SZ :=");
	for (int k = 0; k < m->dv_ns; k++) {
		const dvinst *I = &m->dv_irec[m->dv_s[k].inst];
		for (int w = 0; w < I->nw; w++)
			if (wilp_dvi_in(m, I, w, m->dv_s[k].req, m->dv_s[k].dev))
				fprintf(f, "\n ('i%d', 'r%d', 'd%d', 'w%d')",
					m->dv_s[k].inst, m->dv_s[k].req,
					m->dv_s[k].dev, w);
	}
	fprintf(f, ";\nset LI :=");
	for (int j = 1; j <= m->ncols; j++)
		if (m->ckind[j] == WM_L) {
			fprintf(f, "\n ('i%d', ", m->cref[j]);
			dat_sym(f, p->snap->nodes[m->cdom[j]].name, 'n',
				m->cdom[j]);
			fprintf(f, ")");
		}
	fprintf(f, ";\nset UC :=");
	for (int c = 0; ni && c < p->nclasses; c++)
		for (int k = 0; m->cpc[c] && k < m->cpc[c]->n; k++) {
			int i = m->cpc[c]->c[k].inst;
			if (i >= 0 && m->dv_irec[i].nw)
				fprintf(f, " ('c%d', 'i%d')", c, i);
		}
	/* devices that do not reach a node of LI */
	fprintf(f, ";\nset FAR :=");
	for (int j = 1; j <= m->ncols; j++) {
		if (m->ckind[j] != WM_L)
			continue;
		int n = m->cdom[j];
		for (int dev = 0; dev < d->ndevs; dev++) {
			bool mine = false;
			for (int k = m->dv_shead[dev]; k >= 0 && !mine;
			     k = m->dv_s[k].next)
				mine = m->dv_s[k].inst == m->cref[j];
			if (!mine || far_seen(m, j, n, dev) ||
			    wdr_reaches(p->snap, &d->devs[dev], n))
				continue;
			fprintf(f, "\n (");
			dat_sym(f, p->snap->nodes[n].name, 'n', n);
			fprintf(f, ", 'd%d')", dev);
		}
	}
	fprintf(f, ";\n");
}

/* A way of slot sl as a YW member: 'cC' node 'wK'. */
static void dat_way(FILE *f, const wm *m, int sl, int w)
{
	const wp_problem *p = m->p;
	int c = wp_slot_class(p, sl);
	int n = p->classes[c].elig[sl - p->classes[c].off];
	fprintf(f, " 'c%d' ", c);
	dat_sym(f, p->snap->nodes[n].name, 'n', n);
	fprintf(f, " 'w%d'", w - m->dv_wbeg[sl]);
}

/* "set NAME[key, domain] := its nodes;" */
static void dat_dom_nodes(FILE *f, const ws_snapshot *s, const char *name,
			  const wtp_key *key, int k, int d)
{
	fprintf(f, "set %s[", name);
	dat_sym(f, key->label, 'k', k);
	fputc(',', f);
	dat_sym(f, key->dom_name[d], 'd', d);
	fprintf(f, "] :=");
	for (int i = 0; i < key->dom_nnodes[d]; i++) {
		int n = key->dom_nodes[d][i];
		fputc(' ', f);
		dat_sym(f, s->nodes[n].name, 'n', n);
	}
	fprintf(f, ";\n");
}

/* The data file's opening comments: sizes, the tier-1 unit, whether the
 * single weighted objective is exact. */
static void dat_header(FILE *f, const wm *m, int64_t vg)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	fprintf(f, "# GMPL data for models/wasp.mod, written by wasp.\n");
	fprintf(f, "# %d classes, %d nodes, %d groups; tier-1 unit: %s",
		p->nclasses, p->nnodes, p->ngroups,
		p->value_res < 0 ? "pods" : s->res[p->value_res]);
	if (p->value_res >= 0)
		fprintf(f, " (one unit = %lld milli)", (long long)vg);
	fprintf(f, "\n");
	if (m->nblock == 1)
		fprintf(f, "# The single weighted objective is exact here "
			"(largest coefficient %.0f <= 2^30):\n# wasp solves "
			"this very objective.\n", m->maxcoef);
	else
		fprintf(f, "# The single weighted objective is NOT exact in "
			"floating point here (largest\n# coefficient %.4g > "
			"2^30): wasp solves %d blocks of tiers one after the "
			"other.\n", m->maxcoef, m->nblock);
}

/* unit[r]: the gcd of what classes, running units and move classes
 * request of resource r (1 if none), noted in the file. */
static void dat_units(FILE *f, const wm *m, int64_t *unit)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	for (int r = 0; r < p->nres; r++) {
		for (int c = 0; c < p->nclasses; c++)
			if (p->classes[c].req[r] > 0)
				unit[r] = wp_gcd(unit[r], p->classes[c].req[r]);
		/* and what running units hold (preemption) */
		for (int qc = 0; qc < m->nqc; qc++) {
			const wp_unit *un =
			    &p->units[m->qc_units[m->qc_beg[qc]]];
			for (int i = 0; i < un->npods; i++)
				if (s->pods[un->pods[i]].req[r] > 0)
					unit[r] = wp_gcd(unit[r],
					    s->pods[un->pods[i]].req[r]);
		}
		for (int i = 0; i < p->nmcls; i++) /* moves (§4c) */
			if (p->mcls[i].req[r] > 0)
				unit[r] = wp_gcd(unit[r], p->mcls[i].req[r]);
		if (!unit[r])
			unit[r] = 1;
		fprintf(f, "# %s: one unit = %lld milli\n", s->res[r],
			(long long)unit[r]);
	}
}

/* Resources, nodes, groups, classes and their eligible nodes; per class
 * its group, count, value and requests; per node its free capacity and
 * emptiness; per group its gang parameters (doc/formulation.md §1). */
static void dat_sets(FILE *f, const wm *m, const int64_t *unit,
		     int64_t vg)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	fprintf(f, "data;\n\nset R :=");
	for (int r = 0; r < p->nres; r++) {
		fputc(' ', f);
		dat_sym(f, s->res[r], 'r', r);
	}
	fprintf(f, ";\nset N :=");
	for (int n = 0; n < p->nnodes; n++) {
		fprintf(f, n % 8 ? " " : "\n ");
		dat_sym(f, s->nodes[n].name, 'n', n);
	}
	fprintf(f, ";\nset G :=");
	for (int g = 0; g < p->ngroups; g++) {
		fprintf(f, "\n ");
		dat_group(f, p, g);
	}
	fprintf(f, ";\nset C :=");
	for (int c = 0; c < p->nclasses; c++)
		fprintf(f, "%s'c%d'", c % 10 ? " " : "\n ", c);
	fprintf(f, ";\nset E :=");
	for (int c = 0; c < p->nclasses; c++)
		for (int k = 0; k < p->classes[c].nelig; k++) {
			fprintf(f, "\n ('c%d',", c);
			dat_sym(f, s->nodes[p->classes[c].elig[k]].name, 'n',
				p->classes[c].elig[k]);
			fputc(')', f);
		}
	fprintf(f, ";\n\nparam grp :=");
	for (int c = 0; c < p->nclasses; c++) {
		fprintf(f, "\n 'c%d' ", c);
		dat_group(f, p, p->classes[c].group);
	}
	fprintf(f, ";\nparam cnt :=");
	for (int c = 0; c < p->nclasses; c++)
		fprintf(f, "\n 'c%d' %d", c, p->classes[c].count);
	fprintf(f, ";\nparam val :=");
	for (int c = 0; c < p->nclasses; c++)
		fprintf(f, "\n 'c%d' %lld", c,
			(long long)wilp_class_value(p, c, vg));
	fprintf(f, ";\nparam req :=");
	for (int c = 0; c < p->nclasses; c++)
		for (int r = 0; r < p->nres; r++) {
			if (!p->classes[c].req[r])
				continue;
			fprintf(f, "\n 'c%d' ", c);
			dat_sym(f, s->res[r], 'r', r);
			fprintf(f, " %lld",
				(long long)(p->classes[c].req[r] / unit[r]));
		}
	fprintf(f, ";\nparam free :=");
	for (int n = 0; n < p->nnodes; n++)
		for (int r = 0; r < p->nres; r++) {
			int64_t v = p->free[(size_t)n * p->nres + r];
			/* floor division, also for negative free */
			v = v >= 0 ? v / unit[r]
				   : -((-v + unit[r] - 1) / unit[r]);
			if (!v)
				continue;
			fprintf(f, "\n ");
			dat_sym(f, s->nodes[n].name, 'n', n);
			fputc(' ', f);
			dat_sym(f, s->res[r], 'r', r);
			fprintf(f, " %lld", (long long)v);
		}
	fprintf(f, ";\nparam empty :=");
	for (int n = 0; n < p->nnodes; n++) {
		fprintf(f, "\n ");
		dat_sym(f, s->nodes[n].name, 'n', n);
		fprintf(f, " %d", wp_node_empty(p, n));
	}
	fprintf(f, ";\nparam : gang min_need size prio usable :=");
	for (int g = 0; g < p->ngroups; g++) {
		const wp_group *gr = &p->groups[g];
		fprintf(f, "\n ");
		dat_group(f, p, g);
		fprintf(f, " %d %d %d %ld %d", gr->gang, gr->min_need,
			gr->size, (long)gr->priority,
			!gr->invalid && gr->fixed_dom != -2);
	}
	fprintf(f, ";\n");
}

/* Topology keys that groups, composites or annotations use, their
 * domains and nodes, the groups' keys, and the packing domains (two or
 * more nodes; doc/formulation.md §3, §4). */
static void dat_topology(FILE *f, const wp_problem *p)
{
	const ws_snapshot *s = p->snap;
	/* topology: keys used by groups */
	int nk = p->topo ? p->topo->nkeys : 0;
	fprintf(f, "\nset K :=");
	for (int k = 0; k < nk; k++) {
		bool used = false;
		for (int g = 0; g < p->ngroups; g++)
			used |= p->groups[g].key == k;
		for (int h = 0; h < p->ncomps; h++)
			used |= p->comps[h].key == k;
		used |= key_in_tas(p, k);
		if (!used)
			continue;
		fputc(' ', f);
		dat_sym(f, p->topo->keys[k].label, 'k', k);
	}
	fprintf(f, ";\n");
	for (int k = 0; k < nk; k++) {
		const wtp_key *key = &p->topo->keys[k];
		bool used = false;
		for (int g = 0; g < p->ngroups; g++)
			used |= p->groups[g].key == k;
		for (int h = 0; h < p->ncomps; h++)
			used |= p->comps[h].key == k;
		used |= key_in_tas(p, k);
		if (!used)
			continue;
		fprintf(f, "set D[");
		dat_sym(f, key->label, 'k', k);
		fprintf(f, "] :=");
		for (int d = 0; d < key->ndom; d++) {
			fputc(' ', f);
			dat_sym(f, key->dom_name[d], 'd', d);
		}
		fprintf(f, ";\n");
		for (int d = 0; d < key->ndom; d++)
			dat_dom_nodes(f, s, "DN", key, k, d);
	}
	dat_keyed(f, p, false, "GK", "gkey", "fixed");
	fprintf(f, ";\n");
	/* packing: the domains of two or more nodes at every key */
	fprintf(f, "\nset FD :=");
	for (int k = 0; k < nk; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++) {
			if (key->dom_nnodes[d] < 2)
				continue;
			fprintf(f, "\n (");
			dat_sym(f, key->label, 'k', k);
			fputc(',', f);
			dat_sym(f, key->dom_name[d], 'd', d);
			fputc(')', f);
		}
	}
	fprintf(f, ";\n");
	for (int k = 0; k < nk; k++) {
		const wtp_key *key = &p->topo->keys[k];
		for (int d = 0; d < key->ndom; d++)
			if (key->dom_nnodes[d] >= 2)
				dat_dom_nodes(f, s, "FDN", key, k, d);
	}
}

/* Preemption (doc/formulation.md §4b): who may preempt, the eviction
 * classes with their size, priority, cost and use, and the
 * PodDisruptionBudgets over them. */
static void dat_preempt(FILE *f, const wm *m, const int64_t *unit)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	/* preemption: eviction classes and who may preempt */
	fprintf(f, "\nparam mayp :=");
	for (int g = 0; g < p->ngroups; g++)
		if (!wpe_may_preempt(p, g)) {
			fprintf(f, "\n ");
			dat_group(f, p, g);
			fprintf(f, " 0");
		}
	fprintf(f, ";\nset Q :=");
	for (int qc = 0; qc < m->nqc; qc++)
		fprintf(f, "%s'e%d'", qc % 10 ? " " : "\n ", qc);
	fprintf(f, ";\nparam : qk qprio qcost :=");
	for (int qc = 0; qc < m->nqc; qc++)
		fprintf(f, "\n 'e%d' %d %ld %.0f", qc, wilp_q_ub(m, qc),
			(long)wilp_q_prio(m, qc), wilp_q_cost(m, qc));
	fprintf(f, ";\nparam quse :=");
	for (int qc = 0; qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npods; i++) {
			int n = s->pods[un->pods[i]].node;
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				seen = s->pods[un->pods[j]].node == n;
			for (int r = 0; !seen && r < p->nres; r++) {
				int64_t u = wilp_q_use(m, qc, n, r);
				if (!u)
					continue;
				fprintf(f, "\n 'e%d' ", qc);
				dat_sym(f, s->nodes[n].name, 'n', n);
				fputc(' ', f);
				dat_sym(f, s->res[r], 'r', r);
				fprintf(f, " %lld", (long long)(u / unit[r]));
			}
		}
	}
	fprintf(f, ";\nset B :=");
	for (int j = 0; j < s->npdbs; j++)
		if (m->wcol && m->wcol[j])
			fprintf(f, " 'b%d'", j);
	fprintf(f, ";\nparam allowed :=");
	for (int j = 0; j < s->npdbs; j++)
		if (m->wcol && m->wcol[j])
			fprintf(f, "\n 'b%d' %d", j, p->pdb_allowed[j]);
	fprintf(f, ";\nparam bsel :=");
	for (int qc = 0; m->wcol && qc < m->nqc; qc++) {
		const wp_unit *un = &p->units[m->qc_units[m->qc_beg[qc]]];
		for (int i = 0; i < un->npdb; i++)
			if (m->wcol[un->pdb[i]])
				fprintf(f, "\n 'e%d' 'b%d' %d", qc, un->pdb[i],
					un->pdbn[i]);
	}
	fprintf(f, ";\n");
	/* --max-evictions: pods per unit and the cap (written only when
	 * set, so other models' data stay as they were) */
	if (p->max_evictions > 0 && m->nqc > 0) {
		fprintf(f, "param qpods :=");
		for (int qc = 0; qc < m->nqc; qc++)
			fprintf(f, "\n 'e%d' %d", qc, wilp_q_pods(m, qc));
		fprintf(f, ";\nparam maxevict := %d;\n", p->max_evictions);
	}
}

/* DRA (doc/formulation.md §3b): per-class device fit, the ways of slots
 * met more than one way, shared claims, the device rows and their terms,
 * and the claims that evictions free.  Empty sets without devices. */
static void dat_devices(FILE *f, const wm *m)
{
	const wp_problem *p = m->p;
	const ws_snapshot *s = p->snap;
	/* DRA: per-class device fit and the device rows (empty without) */
	if (m->cpc) {
		fprintf(f, "\nparam xdev :=");
		for (int c = 0; c < p->nclasses; c++) {
			if (!m->cpc[c])
				continue;
			for (int k = 0; k < p->classes[c].nelig; k++) {
				int n = p->classes[c].elig[k];
				fprintf(f, "\n 'c%d' ", c);
				dat_sym(f, s->nodes[n].name, 'n', n);
				/* a slot that a shared claim rules out
				 * (its devices do not reach n) holds 0 */
				int sl = p->classes[c].off + k;
				int fit = wdr_fit(wilp_dv_fit_state(m, c),
						  m->cpc[c], n,
						  p->classes[c].count);
				if (m->xcol[sl] && m->cub[m->xcol[sl]] < fit)
					fit = (int)m->cub[m->xcol[sl]];
				fprintf(f, " %d", fit);
			}
		}
		fprintf(f, ";\n");
	}
	/* ways of slots met more than one way: 'c' node 'wK' */
	fprintf(f, "set YW :=");
	for (int sl = 0; m->dv_wbeg && sl < p->nx; sl++) {
		if (!m->xcol[sl])
			continue;
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++)
			if (m->dv_ycol[w])
				dat_way(f, m, sl, w);
	}
	fprintf(f, ";\nparam ypen :=");
	for (int sl = 0; m->dv_wbeg && sl < p->nx; sl++) {
		if (!m->xcol[sl])
			continue;
		for (int w = m->dv_wbeg[sl]; w < m->dv_wend[sl]; w++)
			if (m->dv_ycol[w] && m->dv_wpen[w]) {
				dat_way(f, m, sl, w);
				fprintf(f, " %d", m->dv_wpen[w]);
			}
	}
	fprintf(f, ";\nparam ycoef :=");
	for (int i = 0; i < m->dy.n; i++) {
		const wdterm *t = &m->dy.t[i];
		fprintf(f, "\n %d ", t->row + 1);
		dat_way(f, m, m->cdom[m->dv_ycol[t->ref]], t->ref);
		fprintf(f, " %d", t->coef);
	}
	fprintf(f, ";\n");
	dat_insts(f, m);
	fprintf(f, "set DR :=");
	for (int i = 0; i < m->dr.n; i++)
		fprintf(f, " %d", i + 1);
	fprintf(f, ";\nparam dnode :=");
	for (int i = 0; i < m->dr.n; i++) {
		fprintf(f, "\n %d ", i + 1);
		dat_sym(f, s->nodes[m->dr.t[i].ref].name, 'n', m->dr.t[i].ref);
	}
	fprintf(f, ";\nparam drhs :=");
	for (int i = 0; i < m->dr.n; i++)
		fprintf(f, "\n %d %d", i + 1, m->dr.t[i].coef);
	fprintf(f, ";\nparam dcoef :=");
	for (int i = 0; i < m->dt.n; i++)
		fprintf(f, "\n %d 'c%d' %d", m->dt.t[i].row + 1,
			m->dt.t[i].ref, m->dt.t[i].coef);
	/* devices of each row's union that shared claims may take */
	fprintf(f, ";\nset DS :=");
	for (int i = 0; i < m->ds.n; i++)
		fprintf(f, "\n (%d, 'd%d')", m->ds.t[i].row + 1, m->ds.t[i].ref);
	fprintf(f, ";\nparam dscoef :=");
	for (int i = 0; i < m->ds.n; i++)
		if (m->ds.t[i].coef > 1)
			fprintf(f, "\n %d 'd%d' %d", m->ds.t[i].row + 1,
				m->ds.t[i].ref, m->ds.t[i].coef);
	/* claims whose devices evictions free (§3b, §4b): their holder
	 * classes and their devices in each row's union */
	fprintf(f, ";\nset HC :=");
	for (int i = 0; i < m->nfr; i++)
		fprintf(f, " 'h%d'", i);
	fprintf(f, ";\nset HQ :=");
	for (int i = 0; i < m->nfr; i++)
		for (int k = m->fr_qbeg[i]; k < m->fr_qbeg[i + 1]; k++)
			fprintf(f, "\n ('h%d', 'e%d')", i, m->fr_q[k]);
	fprintf(f, ";\nparam hcoef :=");
	for (int i = 0; i < m->dh.n; i++)
		fprintf(f, "\n %d 'h%d' %d", m->dh.t[i].row + 1,
			m->dh.t[i].ref, m->dh.t[i].coef);
	fprintf(f, ";\n");
}

/* The GMPL data into f; 0, or -1 when out of memory. */
static int write_dat(const wm *m, FILE *f)
{
	const wp_problem *p = m->p;
	int64_t vg = wilp_value_gcd(p);
	dat_header(f, m, vg);
	/* Requests and free capacity per resource in units of the gcd of
	 * the requests (free rounded down: exact for integer counts), so
	 * that no coefficient needs more digits than necessary; glpsol's
	 * tolerances misjudge raw milli-byte coefficients. */
	int64_t *unit = calloc((size_t)p->nres + 1, sizeof *unit);
	if (!unit)
		return -1;
	dat_units(f, m, unit);
	dat_sets(f, m, unit, vg);
	dat_topology(f, p);
	dat_preempt(f, m, unit);
	dat_moves(m, f, unit);
	if (p->ncomps)
		dat_trees(f, p);
	dat_devices(f, m);
	dat_tas(f, p);
	dat_pref(f, m);
	fprintf(f, "\nend;\n");
	free(unit);
	return ferror(f) ? -1 : 0;
}

/* The GMPL data as text (malloc'd) in *text, *len. */
static int dat_text(const wm *m, char **text, size_t *len, wasp_error *err)
{
	*text = NULL;
	FILE *f = open_memstream(text, len);
	if (!f)
		return werr(err, WASP_ENOMEM, "out of memory");
	int bad = write_dat(m, f);
	if (fclose(f) | bad) {
		free(*text);
		*text = NULL;
		return werr(err, WASP_ENOMEM, "out of memory writing the "
			    "GMPL data");
	}
	return WASP_OK;
}

typedef struct export_state {
	wm m;
	wilp_run run;
} export_state;

/* GLPK writes only to named files: it writes into an anonymous
 * in-memory file (its name under /proc/self/fd), whose text is then
 * written out by wo_write, so that a full disk or a device is seen
 * there (GLPK does not check its last flush). */
static int glpk_text(export_state *X, int format, char **text,
		     size_t *len, wasp_error *err)
{
	wilp_run *r = &X->run;
	int fd = memfd_create("wasp-export", MFD_CLOEXEC);
	if (fd < 0)
		return werr(err, WASP_EIO, "cannot make an in-memory file: "
			    "%s", strerror(errno));
	char name[64];
	snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
	if (wilp_glpk_begin(r, err)) {
		close(fd);
		return WASP_ENOMEM;
	}
	if (setjmp(r->env.jb)) {
		close(fd);
		return wgl_fault(&r->env, err);
	}
	r->env.P = glp_create_prob();
	wilp_load_prob(&X->m, r->env.P, -1, NULL);
	if (r->o->export_top_tier)
		for (int j = 1; j <= X->m.ncols; j++)
			glp_set_obj_coef(r->env.P, j,
					 X->m.ctier[j] == 0 ? X->m.cval[j] : 0);
	r->env.msglen = 0;
	r->env.msg[0] = 0;
	int old = glp_term_out(GLP_ON); /* its message, into env.msg */
	int rc = format == WASP_EXPORT_LP
		     ? glp_write_lp(r->env.P, NULL, name)
		     : glp_write_mps(r->env.P, GLP_MPS_FILE, NULL, name);
	glp_term_out(old);
	wgl_end(&r->env);
	struct stat st;
	if (rc || fstat(fd, &st)) {
		close(fd);
		char *m = r->env.msg, *nl;
		while ((nl = strchr(m, '\n')) && nl[1])
			m = nl + 1; /* GLPK's last line says why */
		if ((nl = strchr(m, '\n')))
			*nl = 0;
		return werr(err, WASP_EIO, "GLPK could not write the model: "
			    "%s", rc ? m : strerror(errno));
	}
	*len = (size_t)st.st_size;
	*text = malloc(*len + 1);
	size_t got = 0;
	while (*text && got < *len) {
		ssize_t k = pread(fd, *text + got, *len - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	if (!*text || got < *len) {
		int code = *text ? WASP_EIO : WASP_ENOMEM;
		free(*text);
		*text = NULL;
		return werr(err, code, "cannot read the written model back");
	}
	return WASP_OK;
}

int wilp_export(const wp_problem *p, const wasp_options *o, int format,
		const char *path, wasp_error *err)
{
	if (format != WASP_EXPORT_LP && format != WASP_EXPORT_MPS &&
	    format != WASP_EXPORT_DAT)
		return werr(err, WASP_EINVAL, "unknown export format %d",
			    format);
	if (o->export_top_tier && format == WASP_EXPORT_DAT)
		return werr(err, WASP_EINVAL, "the top tier alone is written "
			    "as LP or MPS, not as GMPL data (models/wasp.mod "
			    "states its own objective)");
	wa_arena *ar = wa_new();
	export_state *X = ar ? wa_alloc(ar, sizeof *X) : NULL;
	if (!X) {
		wa_destroy(ar);
		return werr(err, WASP_ENOMEM, "out of memory");
	}
	int rc = wm_build(&X->m, p, ar, WILP_MAX_COEF, false, true,
			  wdl_none(), NULL);
	if (rc) {
		wa_destroy(ar);
		return werr(err, rc, "out of memory building the ILP");
	}
	char *text = NULL;
	size_t len = 0;
	X->run.o = o;
	rc = format == WASP_EXPORT_DAT ? dat_text(&X->m, &text, &len, err)
				       : glpk_text(X, format, &text, &len, err);
	wa_destroy(ar);
	if (!rc)
		rc = wo_write(path, text, len, err);
	free(text);
	return rc;
}
