/* wasp.mod -- the wasp placement ILP in GNU MathProg (GMPL).
 *
 * A second, independent statement of the integer program that src/ilp.c
 * builds (doc/formulation.md): run it on the data that
 * `wasp export --dat FILE.dat SNAPSHOT` writes,
 *
 *   glpsol -m models/wasp.mod -d FILE.dat -o FILE.out
 *
 * and the optimum equals the objective wasp reports for the same snapshot
 * (tests/check_ilp.c compares them on generated instances).  This model
 * keeps every variable and every capacity row and uses plain big-M links;
 * the C translator prunes columns that cannot be non-zero, skips rows that
 * cannot bind, tightens the big-Ms and adds symmetry-breaking rows.  Those
 * change the LP relaxation, never the integer optimum.
 */

/* ---------------------------------------------------------------- data */

set R;                        /* resources ("pods" first)                 */
set N;                        /* nodes                                   */
set G;                        /* groups: PodGroups and lone-pod groups   */
set C;                        /* pod classes (identical pending pods)    */
set E within C cross N;       /* eligible (class, node) pairs            */

param grp{C} symbolic in G;   /* the class's group                      */
param cnt{C} integer >= 0;    /* pending pods in the class              */
param val{C} integer >= 0;    /* tier-1 value of one pod: 1, or its
				 request of the value resource in units  */
param req{C, R} integer >= 0, default 0;  /* in the data's units per resource */
param free{N, R} integer, default 0;      /* allocatable - bound use, same units */
param empty{N} binary;        /* no pod bound to the node                */

param gang{G} binary;         /* all-or-nothing group                    */
param min_need{G} integer >= 0; /* gang: pending pods needed to admit    */
param size{G} integer >= 0;   /* pending pods of the group               */
param prio{G} integer;        /* priority                                */
param usable{G} binary;       /* 0: invalid, or its running pods span
				 several domains (it cannot grow)        */

set K;                        /* topology keys that groups require       */
set D{K};                     /* domains of a key                        */
set DN{k in K, d in D[k]} within N; /* nodes of a domain                 */
set GK within G;              /* groups with a required key              */
param gkey{GK} symbolic in K;
param fixed{GK} symbolic, default '';  /* domain its running pods hold    */

/* ------------------------------------------------------- derived data */

/* Nodes whose staying wholly free counts in the packing tier. */
set NU := setof{(c, n) in E: empty[n] = 1} n;

/* Pending priority levels and the largest value of each tier. */
set P := setof{c in C} prio[grp[c]];
param M{p in P} := sum{c in C: prio[grp[c]] = p} val[c] * cnt[c];

/* Tier weights: W[p] = (1 + |NU|) * prod_{q < p} (1 + M[q]).  Then
 * W[p] > sum_{q < p} W[q] M[q] + |NU|: no amount of lower tiers outvotes
 * one unit of a higher one (doc/formulation.md has the proof). */
param W{p in P} := (1 + card(NU)) * prod{q in P: q < p} (1 + M[q]);

/* Whether node n lies in a domain of group g's key. */
param indom{g in GK, n in N} :=
	sum{d in D[gkey[g]]: n in DN[gkey[g], d]} 1;

/* ----------------------------------------------------------- variables */

var x{(c, n) in E} integer >= 0, <= cnt[c];   /* pods of c on n           */
var a{G} binary;                               /* gang admitted            */
var t{g in GK, d in D[gkey[g]]} binary;        /* g's domain               */
var u{NU} binary;                              /* n stays wholly free      */

/* ----------------------------------------------------------- objective */

maximize value:
	sum{(c, n) in E} W[prio[grp[c]]] * val[c] * x[c, n]
	+ sum{n in NU} u[n];

/* --------------------------------------------------------- constraints */

/* A class places at most its pods; a gang's only when admitted. */
s.t. class_count{c in C}:
	sum{(c, n) in E} x[c, n]
	<= cnt[c] * (if gang[grp[c]] = 1 then a[grp[c]] else 1);

/* An admitted gang places at least min_need pods. */
s.t. gang_min{g in G: gang[g] = 1}:
	sum{(c, n) in E: grp[c] = g} x[c, n] >= min_need[g] * a[g];

/* Groups that cannot be placed place nothing. */
s.t. unusable{(c, n) in E: usable[grp[c]] = 0}:
	x[c, n] = 0;

/* Required topology: one domain of the key (exactly one for an admitted
 * gang, at most one for basic groups), all pods in it, none on nodes
 * without the key, and only the domain the running pods already hold. */
s.t. one_domain{g in GK: gang[g] = 1}:
	sum{d in D[gkey[g]]} t[g, d] = a[g];
s.t. at_most_one{g in GK: gang[g] = 0}:
	sum{d in D[gkey[g]]} t[g, d] <= 1;
s.t. in_domain{g in GK, d in D[gkey[g]]}:
	sum{(c, n) in E: grp[c] = g and n in DN[gkey[g], d]} x[c, n]
	<= size[g] * t[g, d];
s.t. off_key{(c, n) in E: grp[c] in GK and indom[grp[c], n] = 0}:
	x[c, n] = 0;
s.t. held_domain{g in GK, d in D[gkey[g]]: fixed[g] != '' and d != fixed[g]}:
	t[g, d] = 0;

/* Capacity per node and resource (a node over-committed in a resource
 * takes no pod that requests it). */
s.t. capacity{n in N, r in R: exists{(c, n) in E} req[c, r] > 0}:
	sum{(c, n) in E} req[c, r] * x[c, n] <= max(free[n, r], 0);

/* DRA device claims (doc/dra.md); empty without them.  xdev: pods of a
 * class whose own claims the node's free devices hold (the class alone,
 * matchAttribute partitions counted exactly); each device row limits the
 * devices the node's pods take of some kinds to the free devices of those
 * kinds (one row per kind, one for all kinds together). */
param xdev{E} integer >= 0, default 1000000000;
set DR;
param dnode{DR} symbolic in N;
param drhs{DR} integer >= 0;
param dcoef{DR, C} integer >= 0, default 0;

s.t. device_fit{(c, n) in E}:
	x[c, n] <= xdev[c, n];
s.t. devices{r in DR}:
	sum{(c, n) in E: n = dnode[r]} dcoef[r, c] * x[c, n] <= drhs[r];

/* A node counted as wholly free holds no placed pod. */
s.t. stays_free{n in NU}:
	sum{(c, n) in E} x[c, n] <= (sum{c in C} cnt[c]) * (1 - u[n]);

solve;

printf "wasp.mod: value = %.1f\n", value;
end;
