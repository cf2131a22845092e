/*
 * gomory.h -- Gomory mixed-integer cuts at the root, with integer slacks
 * (gomory.c; doc/formulation.md §6b, "Gomory cuts with integer slacks").
 *
 * GLPK's own Gomory cuts treat every row's slack as continuous.  In
 * wasp's node model every row has integer coefficients and bounds over
 * integer columns, so its slack is an integer, and a cut that uses that
 * is stronger.  A cut whose coefficients scale to integers is scaled,
 * so that its own slack is an integer in the next round too (cbc's
 * Gomory cuts do the same; with both, cbc's root reaches the optimum on
 * gpu-64/s14 and nvlink-72, and so does this).
 *
 * wgm_root runs rounds of these cuts on a copy of the root LP.  The
 * cuts go into the model only where they closed nearly all of the
 * root's gap to the incumbent: there the search is left to find the
 * plan.  Elsewhere they change GLPK's search for better or worse by
 * chance (doc/formulation.md §6b), and only their bound is kept.
 */
#ifndef WASP_ILP_GOMORY_H
#define WASP_ILP_GOMORY_H

#include <glpk.h>
#include <stdbool.h>

#include "base/arena.h"
#include "base/clock.h"
#include "solve/glpkenv.h"

#define WGM_MAX_CUTS 50      /* cuts per round: the most fractional    */
#define WGM_MAX_ROUNDS 20    /* rounds at the root                      */
#define WGM_MAX_STALL 3      /* rounds in a row that gain nothing       */
#define WGM_MAX_RANGE 1e6    /* largest over smallest |coefficient|     */
#define WGM_MAX_DEN 1000     /* denominators tried in the scaling       */
#define WGM_MAX_MULT 1000000 /* largest common multiple of them         */
/* The share of the gap between the root LP and the incumbent that the
 * rounds must close for their cuts to go into the model. */
#define WGM_KEEP_SHARE 0.9

typedef struct wgm_result {
	int rounds;        /* rounds run                                  */
	int added;         /* cuts made over all rounds                   */
	int kept;          /* cut rows added to P                         */
	double z0;         /* the root LP's objective                     */
	double z1;         /* after the rounds: a bound on every plan     */
} wgm_result;

/* P's LP is solved to optimality (a maximisation; every column
 * integer, as in wasp's models).  The rounds run on a copy of P, until
 * WGM_MAX_STALL rounds in a row move the bound by less than a unit
 * (int_obj: the objective is integral at every solution) or by less than
 * 1e-6 relatively, or dl passes.  When they closed at least keep_share
 * of z0 - incumbent (incumbent NAN: none, keep when they gained), the
 * cuts binding at the end are added to P and P is solved again;
 * otherwise P is not touched.  lp (may be NULL) receives the copy with
 * every cut of the last round, solved (NULL when its LP failed), for
 * the caller to dive on (dive.h) and delete.  Returns 0, WASP_ENOMEM
 * (P not touched), or WASP_ESOLVER when P's LP failed after the cuts
 * were added and again without them. */
int wgm_root(glp_prob *P, wa_arena *ar, double incumbent, bool int_obj,
	     double keep_share, wgl_env *e, wb_deadline dl, glp_prob **lp,
	     wgm_result *out);

#endif
