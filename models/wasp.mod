/* wasp.mod -- the wasp placement and preemption ILP in GNU MathProg (GMPL).
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

/* Preemption (doc/formulation.md, 4b): eviction classes of running units
 * that some group could evict, in keep form (q = units kept running). */
set Q default {};
param qk{Q} integer >= 0;     /* units in the class                      */
param qprio{Q} integer;       /* their priority                          */
param qcost{Q} integer >= 0;  /* tier-2 cost of evicting one unit        */
param quse{Q, N, R} integer >= 0, default 0; /* one unit's use, data units */
param mayp{G} binary, default 1; /* the group may preempt               */
set B default {};             /* PodDisruptionBudgets over the classes    */
param allowed{B} integer >= 0; /* disruptions the budget allows          */
param bsel{Q, B} integer >= 0, default 0; /* pods of one unit it selects */

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

/* The eviction tier (kept cost) and the budget tier (selected pods the
 * classes may take, minus violations), with their largest values. */
param MQ := sum{e in Q} qcost[e] * qk[e];
param V{j in B} := sum{e in Q} bsel[e, j] * qk[e];
param MB := sum{j in B} V[j];

/* Tier weights: 1 + |NU| for evictions, (1 + |NU|) (1 + MQ) for budgets,
 * W[p] = (1 + |NU|) (1 + MQ) (1 + MB) prod_{q < p} (1 + M[q]) for work.
 * Each exceeds everything below it at its largest: no amount of lower
 * tiers outvotes one unit of a higher one (doc/formulation.md). */
param W{p in P} := (1 + card(NU)) * (1 + MQ) * (1 + MB)
	* prod{q in P: q < p} (1 + M[q]);

/* Capacity levels: a class counts at its group's priority, or below
 * everything when the group may not preempt (it never uses freed room). */
param eprio{c in C} := if mayp[grp[c]] = 1 then prio[grp[c]] else -2147483648;
set PL := setof{c in C} eprio[c];

/* Whether node n lies in a domain of group g's key. */
param indom{g in GK, n in N} :=
	sum{d in D[gkey[g]]: n in DN[gkey[g], d]} 1;

/* ----------------------------------------------------------- variables */

var x{(c, n) in E} integer >= 0, <= cnt[c];   /* pods of c on n           */
var a{G} binary;                               /* gang admitted            */
var t{g in GK, d in D[gkey[g]]} binary;        /* g's domain               */
var u{NU} binary;                              /* n stays wholly free      */
var q{e in Q} integer >= 0, <= qk[e];          /* units of e kept running  */
var w{j in B} integer >= 0, <= V[j];           /* V minus j's violations   */

/* ----------------------------------------------------------- objective */

maximize value:
	sum{(c, n) in E} W[prio[grp[c]]] * val[c] * x[c, n]
	+ (1 + card(NU)) * (1 + MQ) * sum{j in B} w[j]
	+ (1 + card(NU)) * sum{e in Q} qcost[e] * q[e]
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

/* Capacity per node, resource and level (a node over-committed in a
 * resource takes no pod that requests it): pods counting at or below the
 * level, plus the kept units below it, fit the free capacity plus what
 * evicting every unit below the level would free.  Freed room thus serves
 * only strictly higher priorities (DESIGN.md section 5). */
s.t. capacity{n in N, r in R, l in PL: exists{(c, n) in E} req[c, r] > 0}:
	sum{(c, n) in E: eprio[c] <= l} req[c, r] * x[c, n]
	+ sum{e in Q: qprio[e] < l} quse[e, n, r] * q[e]
	<= max(free[n, r], 0) + sum{e in Q: qprio[e] < l} quse[e, n, r] * qk[e];

/* Violations of a budget: at least the evicted pods it selects beyond
 * what it allows (evicted = qk - q). */
s.t. budget{j in B}:
	w[j] - sum{e in Q} bsel[e, j] * q[e] <= allowed[j];

/* Preemption leaves a node that is already over-committed alone. */
s.t. overcommitted{(c, n) in E: mayp[grp[c]] = 1 and
		   (exists{e in Q, r in R} quse[e, n, r] > 0) and
		   (exists{r in R} free[n, r] < 0)}:
	x[c, n] = 0;

/* A node counted as wholly free holds no placed pod. */
s.t. stays_free{n in NU}:
	sum{(c, n) in E} x[c, n] <= (sum{c in C} cnt[c]) * (1 - u[n]);

solve;

printf "wasp.mod: value = %.1f\n", value;
end;
