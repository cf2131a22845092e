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
param qpods{Q} integer >= 0, default 1; /* pods of one unit             */
param maxevict integer >= 0, default 0; /* --max-evictions, 0: no limit */

/* Moves (--rebalance, doc/formulation.md 4c): move classes of running
 * pods on one home node that may move to the nodes MY lists (home
 * included); mq: the eviction class of the same pods when they may also
 * be evicted. */
set MC default {};
set MY within MC cross N default setof{i in MC, n in N: 0 > 1} (i, n);
param mhome{MC} symbolic in N;
param mcnt{MC} integer >= 0;
param mprio{MC} integer;
param mq{MC} symbolic, default '';
param muse{MC, R} integer >= 0, default 0; /* one pod's requests      */
param maxmoves integer >= 0, default 0;   /* 0: no limit              */

set K;                        /* topology keys that groups require       */
set D{K};                     /* domains of a key                        */
set DN{k in K, d in D[k]} within N; /* nodes of a domain                 */
set GK within G;              /* groups with a required key              */
param gkey{GK} symbolic in K;
param fixed{GK} symbolic, default '';  /* domain its running pods hold    */
/* Packing: the domains of two or more nodes at every topology key (also
 * keys no group uses), as (key, domain) pairs, and their nodes. */
set FD dimen 2 default setof{k in K, n in N: 0 > 1} (k, n);
set FDN{FD} within N;

/* CompositePodGroups (trees of groups; empty without them). */
set H default {};             /* composites                              */
param hpar{H} symbolic, default '';  /* parent composite, '' at a root   */
param gpar{G} symbolic, default '';  /* a group's parent composite       */
param hmin{H} integer >= 1, default 1; /* children to admit (minGroupCount) */
param hrun{H} integer >= 0, default 0; /* children admitted already      */
param husable{H} binary, default 1;
set HK within H default {};   /* composites with a required key          */
param hkey{HK} symbolic in K;
param hfixed{HK} symbolic, default '';
/* (g, h): group g lies below composite h (at any depth) */
set UNDER within G cross H default setof{g in G, h in H: 0 > 1} (g, h);

/* Annotations: tas[g] = 1 gives the group an admission variable. */
param tas{G} binary, default 0;
set GX within G default {};   /* groups with an exclusive key            */
param xkey{GX} symbolic in K;
param xfixed{GX} symbolic, default '';  /* domain its running pods hold  */
/* (g, d): domain d of g's exclusive key is held by another group */
set XBAN dimen 2 default setof{g in GX, k in K: 0 > 1} (g, k);
set GL dimen 2 default setof{g in G, l in 1..3: 0 > 1} (g, l);
param skey{GL} symbolic in K; /* slice layer l of group g: key, size      */
param ssize{GL} integer >= 1;
/* Preferred level (compactness tiers): (g, k, d) when group g may put
 * pods in domain d of key k, its preferred level or a coarser one; kord
 * orders the keys coarse to fine. */
set PW dimen 3 default setof{g in G, k in K, d in D[k]: 0 > 1} (g, k, d);
param kord{K} integer, default 0;

/* ------------------------------------------------------- derived data */

/* Nodes whose staying wholly free counts in the packing tier. */
set NU := setof{(c, n) in E: empty[n] = 1} n;

/* Domains whose staying wholly free counts in the packing tier too (one
 * each, like a node): every node empty now, some in NU (a domain of
 * nodes outside NU only is free whatever the solution). */
set FU := setof{(k, d) in FD: (forall{n in FDN[k, d]} empty[n] = 1)
	and card(FDN[k, d] inter NU) > 0} (k, d);
/* The packing tier's range. */
param MP := card(NU) + card(FU);

/* Pending priority levels and the largest value of each tier. */
set P := setof{c in C} prio[grp[c]];
param M{p in P} := sum{c in C: prio[grp[c]] = p} val[c] * cnt[c];

/* The eviction tier (kept cost) and the budget tier (selected pods the
 * classes may take, minus violations), with their largest values. */
param MQ := sum{vq in Q} qcost[vq] * qk[vq];
param MM := sum{i in MC} mcnt[i];  /* the moves tier's range (it is
				      minus the pods moved)             */
/* eviction classes whose pods are a move class (their rows are the
 * move terms) */
set QM := setof{i in MC: mq[i] != ''} mq[i];
param V{j in B} := sum{vq in Q} bsel[vq, j] * qk[vq];
param MB := sum{j in B} V[j];

/* Compactness tiers, one per key with preferred-level domains, coarse
 * first, between moves and packing: MW[k] domains can stay unused;
 * WC[k] = (1 + MP) prod_{finer k'} (1 + MW[k']); CW = all of them. */
set KW := setof{(g, k, d) in PW} k;
param MW{k in KW} := sum{(g, k2, d) in PW: k2 = k} 1;
param WC{k in KW} := (1 + MP) * prod{k2 in KW: kord[k2] > kord[k]}
	(1 + MW[k2]);
param CW := prod{k in KW} (1 + MW[k]);

/* DRA (see "DRA device claims" below): the ways of a (class, node) pair
 * met more than one way (or one way that is not every request's first
 * alternative), the ways of shared claims, and the firstAvailable tier:
 * ypen / zpen = the sum of the alternatives' indexes of a way (0: the
 * first), MA its range. */
set YW dimen 3;
var y{YW} integer >= 0;
set ZW dimen 2;
var zw{ZW} binary;
param ypen{YW} integer >= 0, default 0;
param zpen{ZW} integer >= 0, default 0;
param MA := sum{(c, n, wy) in YW} ypen[c, n, wy] * cnt[c]
	+ sum{(i, wy) in ZW} zpen[i, wy];

/* Tier weights, with S = (1 + MP) CW: S for moves, S (1 + MM) for
 * evictions, S (1 + MM) (1 + MQ) for budgets, S (1 + MM) (1 + MQ)
 * (1 + MB) for the firstAvailable tier (negative), W[p] = S (1 + MM)
 * (1 + MQ) (1 + MB) (1 + MA) prod_{q < p} (1 + M[q]) for work.
 * Each exceeds everything below it at its largest: no amount of lower
 * tiers outvotes one unit of a higher one (doc/formulation.md). */
param S := (1 + MP) * CW;
param W{p in P} := S * (1 + MM) * (1 + MQ) * (1 + MB) * (1 + MA)
	* prod{q in P: q < p} (1 + M[q]);

/* Capacity levels: a class counts at its group's priority, or below
 * everything when the group may not preempt (it never uses freed room). */
param eprio{c in C} := if mayp[grp[c]] = 1 then prio[grp[c]] else -2147483648;
set PL := setof{c in C} eprio[c];
/* a pod moved in uses no room an eviction freed: the lowest level */
set PLM := PL union setof{(i, n) in MY} -2147483648;

/* Whether node n lies in a domain of group g's key. */
param indom{g in GK, n in N} :=
	sum{d in D[gkey[g]]: n in DN[gkey[g], d]} 1;

/* ----------------------------------------------------------- variables */

var x{(c, n) in E} integer >= 0, <= cnt[c];   /* pods of c on n           */
var a{G} binary;                               /* gang (or tree group)
						  admitted                 */
var ah{H} binary;                              /* composite admitted       */
var th{h in HK, d in D[hkey[h]]} binary;       /* composite's domain       */
var e{g in GX, d in D[xkey[g]]} binary;        /* exclusive domain         */
var ks{(g, l) in GL, d in D[skey[g, l]]} integer >= 0; /* slices in d     */
var t{g in GK, d in D[gkey[g]]} binary;        /* g's domain               */
var u{NU} binary;                              /* n stays wholly free      */
var vd{FU} binary;                             /* so does domain (k, d)    */
var q{vq in Q} integer >= 0, <= qk[vq];          /* units of vq kept running */
var w{j in B} integer >= 0, <= V[j];           /* V minus j's violations   */
var wp{PW} binary;                             /* the domain holds none of
						  the group's pods         */
var ym{(i, n) in MY} integer >= 0, <= mcnt[i]; /* moved pods of i on n   */

/* ----------------------------------------------------------- objective */

maximize value:
	sum{(c, n) in E} W[prio[grp[c]]] * val[c] * x[c, n]
	- S * (1 + MM) * (1 + MQ) * (1 + MB)
	  * (sum{(c, n, wy) in YW} ypen[c, n, wy] * y[c, n, wy]
	     + sum{(i, wy) in ZW} zpen[i, wy] * zw[i, wy])
	+ S * (1 + MM) * (1 + MQ) * sum{j in B} w[j]
	+ S * (1 + MM) * sum{vq in Q} qcost[vq] * q[vq]
	- S * sum{(i, n) in MY: n != mhome[i]} ym[i, n]
	+ sum{(g, k, d) in PW} WC[k] * wp[g, k, d]
	+ sum{n in NU} u[n] + sum{(k, d) in FU} vd[k, d];

/* --------------------------------------------------------- constraints */

/* A class places at most its pods; a gang's (or a tree group's) only
 * when admitted. */
s.t. class_count{c in C}:
	sum{(c, n) in E} x[c, n]
	<= cnt[c] * (if gang[grp[c]] = 1 or gpar[grp[c]] != '' or
			tas[grp[c]] = 1 then a[grp[c]] else 1);

/* An admitted gang places at least min_need pods; a basic group in a
 * tree at least one. */
s.t. gang_min{g in G: gang[g] = 1 or gpar[g] != '' or tas[g] = 1}:
	sum{(c, n) in E: grp[c] = g} x[c, n]
	>= (if gang[g] = 1 then min_need[g] else 1) * a[g];

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

/* Trees: a child only with its parent; an admitted composite admits
 * hmin children (running ones count); its key holds every pod below it
 * in one domain, the one its running pods hold if any. */
s.t. tree_up{g in G: gpar[g] != ''}:
	a[g] <= ah[gpar[g]];
s.t. tree_up_h{h in H: hpar[h] != ''}:
	ah[h] <= ah[hpar[h]];
s.t. tree_min{h in H}:
	sum{g in G: gpar[g] = h} a[g] + sum{k in H: hpar[k] = h} ah[k]
	+ hrun[h] >= hmin[h] * ah[h];
s.t. tree_dead{h in H: husable[h] = 0}:
	ah[h] = 0;
s.t. tree_one{h in HK}:
	sum{d in D[hkey[h]]} th[h, d] = ah[h];
s.t. tree_in{h in HK, d in D[hkey[h]]}:
	sum{(c, n) in E: (grp[c], h) in UNDER and n in DN[hkey[h], d]} x[c, n]
	<= (sum{c in C: (grp[c], h) in UNDER} cnt[c]) * th[h, d];
s.t. tree_off{(c, n) in E, h in HK: (grp[c], h) in UNDER and
	      sum{d in D[hkey[h]]: n in DN[hkey[h], d]} 1 = 0}:
	x[c, n] = 0;
s.t. tree_held{h in HK, d in D[hkey[h]]: hfixed[h] != '' and d != hfixed[h]}:
	th[h, d] = 0;

/* Exclusive topology: one domain of the key per admitted group, pods
 * only there and on nodes with the key, none in a domain another group
 * holds, at most one group per domain. */
s.t. excl_one{g in GX}:
	sum{d in D[xkey[g]]} e[g, d] = a[g];
s.t. excl_in{g in GX, d in D[xkey[g]]}:
	sum{(c, n) in E: grp[c] = g and n in DN[xkey[g], d]} x[c, n]
	<= size[g] * e[g, d];
s.t. excl_off{(c, n) in E: grp[c] in GX and
	      sum{d in D[xkey[grp[c]]]: n in DN[xkey[grp[c]], d]} 1 = 0}:
	x[c, n] = 0;
s.t. excl_ban{(g, d) in XBAN}:
	e[g, d] = 0;
s.t. excl_held{g in GX, d in D[xkey[g]]: xfixed[g] != '' and d != xfixed[g]}:
	e[g, d] = 0;
s.t. excl_one_group{k in K, d in D[k]}:
	sum{g in GX: xkey[g] = k} e[g, d] <= 1;

/* Slices: the pods of g in each domain of a slice key are a multiple of
 * the slice size; none on nodes without the key. */
s.t. slice{(g, l) in GL, d in D[skey[g, l]]}:
	sum{(c, n) in E: grp[c] = g and n in DN[skey[g, l], d]} x[c, n]
	= ssize[g, l] * ks[g, l, d];
s.t. slice_off{(c, n) in E, (g, l) in GL: grp[c] = g and
	       sum{d in D[skey[g, l]]: n in DN[skey[g, l], d]} 1 = 0}:
	x[c, n] = 0;

/* Preferred level: a domain counted as unused holds none of the
 * group's pods (the compactness tiers count such domains). */
s.t. pref_unused{(g, k, d) in PW}:
	sum{(c, n) in E: grp[c] = g and n in DN[k, d]} x[c, n]
	<= size[g] * (1 - wp[g, k, d]);

/* Capacity per node, resource and level (a node over-committed in a
 * resource takes no pod that requests it): pods counting at or below the
 * level, plus the kept units below it, fit the free capacity plus what
 * evicting every unit below the level would free.  Freed room thus serves
 * only strictly higher priorities (doc/formulation.md §4b). */
s.t. capacity{n in N, r in R, l in PLM: (exists{(c, n) in E} req[c, r] > 0)
	      or (exists{(i, n) in MY: mhome[i] != n} muse[i, r] > 0)}:
	sum{(c, n) in E: eprio[c] <= l} req[c, r] * x[c, n]
	+ sum{vq in Q: qprio[vq] < l and vq not in QM} quse[vq, n, r] * q[vq]
	+ sum{(i, n) in MY} muse[i, r] * ym[i, n]
	- sum{i in MC: mhome[i] = n and mq[i] != '' and mprio[i] >= l}
		muse[i, r] * q[mq[i]]
	<= max(free[n, r], 0)
	+ sum{vq in Q: qprio[vq] < l and vq not in QM} quse[vq, n, r] * qk[vq]
	+ sum{i in MC: mhome[i] = n and not (mq[i] != '' and mprio[i] >= l)}
		muse[i, r] * mcnt[i];

/* Moves: a move class's pods kept (all, or q of its eviction class) are
 * on its nodes; at most maxmoves pods off their home. */
s.t. move_keep{i in MC: mq[i] != ''}:
	sum{(i, n) in MY} ym[i, n] = q[mq[i]];
s.t. move_all{i in MC: mq[i] = ''}:
	sum{(i, n) in MY} ym[i, n] = mcnt[i];
s.t. max_moves{z in 1..1: maxmoves > 0}:
	sum{(i, n) in MY: n != mhome[i]} ym[i, n] <= maxmoves;

/* --max-evictions: at most maxevict pods evicted (evicted = qk - q). */
s.t. max_evictions{z in 1..1: maxevict > 0}:
	sum{vq in Q} qpods[vq] * (qk[vq] - q[vq]) <= maxevict;

/* Violations of a budget: at least the evicted pods it selects beyond
 * what it allows (evicted = qk - q). */
s.t. budget{j in B}:
	w[j] - sum{vq in Q} bsel[vq, j] * q[vq] <= allowed[j];

/* Preemption leaves a node that is already over-committed alone. */
s.t. overcommitted{(c, n) in E: mayp[grp[c]] = 1 and
		   (exists{vq in Q, r in R} quse[vq, n, r] > 0) and
		   (exists{r in R} free[n, r] < 0)}:
	x[c, n] = 0;

/* DRA device claims (doc/dra.md, doc/formulation.md §3b); empty without
 * them.  xdev: pods of a class whose own claims the node's free devices
 * hold (the class alone).  YW: the ways (firstAvailable alternative per
 * request, matchAttribute value per constraint) of a (class, node) pair
 * that can be met more than one way; y splits x by way.  Each device row
 * is Hall's condition for one set of device kinds on its node: the
 * devices the pods' demands on those kinds take (dcoef per pod of a
 * class met one way, ycoef per pod of a way) fit in the free devices of
 * the union of the kinds. */
param xdev{E} integer >= 0, default 1000000000;
set DR;
param dnode{DR} symbolic in N;
param drhs{DR} integer >= 0;
param dcoef{DR, C} integer >= 0, default 0;
param ycoef{DR, YW} integer >= 0, default 0;
set DS dimen 2;        /* (row, device): a shared claim may take it */
param dscoef{DS} integer >= 0, default 1; /* a counter row: its amount */
/* Allocated claims whose devices evictions free: HC the
 * claims, HQ their holders' eviction classes (a holding unit is a class
 * of its own, qk = 1), hcoef the claim's devices in a row's union.  The
 * rows' kinds already leave a freed device out for classes whose
 * priority is not strictly above every holder's. */
set HC;
set HQ within HC cross Q;
param hcoef{DR, HC} integer >= 0, default 0;
var fr{HC} binary;
s.t. hfree{(h, vq) in HQ}:
	fr[h] + q[vq] <= 1;

/* Shared claims (a PodGroup's claim, a ResourceClaim named by pods) not
 * yet allocated: ZW their ways (an alternative per request, a value per
 * matchAttribute constraint), zc the devices a way asks of a request, SW
 * the (claim, request, device) pairs a way may take, SZ which ways, LI
 * the nodes where users of a claim may run, UC which classes use it, FAR
 * the (node, device) pairs where the device does not reach the node. */
set SW dimen 3;
set SZ dimen 4;
set LI dimen 2;
set UC dimen 2;
set FAR dimen 2;
set ZI := setof{(i, wy) in ZW} i;            /* shared claims modelled */
set ZQ := setof{(i, rq, d) in SW} (i, rq);    /* their requests          */
set SD := setof{(i, rq, d) in SW} d;          /* their devices           */
param iq{ZI} integer >= 0;
set RQ := setof{(i, rq) in ZQ} rq;
param zc{ZW, RQ} integer >= 0, default 0;
var sd{SW} binary;
var lz{LI} binary;

s.t. zone{i in ZI}:
	sum{(i, wy) in ZW} zw[i, wy] <= 1;
s.t. scount{(i, rq) in ZQ}:
	sum{(i, rq, d) in SW} sd[i, rq, d] = sum{(i, wy) in ZW} zc[i, wy, rq] * zw[i, wy];
s.t. sway{(i, rq, d) in SW}:
	sd[i, rq, d] <= sum{(i, rq, d, wy) in SZ} zw[i, wy];
s.t. lpods{(i, n) in LI}:
	sum{(c, i) in UC: (c, n) in E} x[c, n]
	<= (sum{(c, i) in UC} cnt[c]) * lz[i, n];
s.t. lreach{(i, n) in LI}:
	sum{(i, rq, d) in SW: (n, d) in FAR} sd[i, rq, d] + iq[i] * lz[i, n] <= iq[i];
s.t. lway{(i, n) in LI}:
	lz[i, n] <= sum{(i, wy) in ZW} zw[i, wy];
s.t. sdev{d in SD}:
	sum{(i, rq, d) in SW} sd[i, rq, d] <= 1;
/* a pod of a class using a shared claim runs only where l allows */
s.t. luse{(c, i) in UC, n in N: (c, n) in E and not ((i, n) in LI)}:
	x[c, n] = 0;

s.t. device_fit{(c, n) in E}:
	x[c, n] <= xdev[c, n];
s.t. ways{(c, n) in E: exists{(c2, n2, wy) in YW} c2 = c and n2 = n}:
	sum{(c, n, wy) in YW} y[c, n, wy] = x[c, n];
s.t. devices{r in DR}:
	sum{(c, n) in E: n = dnode[r]} dcoef[r, c] * x[c, n]
	+ sum{(c, n, wy) in YW: n = dnode[r]} ycoef[r, c, n, wy] * y[c, n, wy]
	+ sum{(r, d) in DS, (i, rq, d) in SW} dscoef[r, d] * sd[i, rq, d]
	- sum{h in HC} hcoef[r, h] * fr[h]
	<= drhs[r];

/* A node counted as wholly free holds no placed pod. */
s.t. stays_free{n in NU}:
	sum{(c, n) in E} x[c, n] <= (sum{c in C} cnt[c]) * (1 - u[n]);

/* A domain counted as wholly free has every node of NU in it free. */
s.t. dom_free{(k, d) in FU, n in FDN[k, d] inter NU}:
	vd[k, d] <= u[n];

solve;

printf "wasp.mod: value = %.1f\n", value;
end;
