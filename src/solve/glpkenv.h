/*
 * glpkenv.h -- GLPK inside library code: no printing, no abort.
 *
 * GLPK prints to stdout and calls abort() on a fault.  Between wgl_begin
 * and wgl_end its terminal output goes into e->msg and a fault longjmps to
 * the caller's setjmp(e->jb), after which wgl_fault frees GLPK's memory
 * for this thread and turns the message into WASP_ESOLVER.  Every GLPK
 * object lives and dies in the calling thread (c-stack.md).
 *
 *	wgl_env e = {0};
 *	if (wgl_begin(&e, 0))
 *		return werr(err, WASP_ENOMEM, "out of memory");
 *	if (setjmp(e.jb))
 *		return wgl_fault(&e, err);
 *	e.P = glp_create_prob(); ...
 *	wgl_end(&e);
 */
#ifndef WASP_GLPKENV_H
#define WASP_GLPKENV_H

#include <glpk.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/clock.h"
#include "base/error.h"

typedef struct wgl_env {
	jmp_buf jb;
	char msg[480];      /* GLPK's latest terminal text               */
	size_t msglen;
	bool own_env;       /* wgl_begin created the thread's environment */
	glp_prob *P;        /* deleted by wgl_end                         */
	volatile const int *cancel; /* polled inside wgl_simplex          */
	bool polling;       /* the hook acts on *cancel (in wgl_simplex)  */
	bool cancelled;     /* the hook longjmped for *cancel             */
	double grace;       /* seconds a seen cancel may wait (intopt)    */
	double seen;        /* when the hook first saw it, 0: not yet     */
} wgl_env;

/* mem_limit_mb > 0: glp_mem_limit (tests provoke a fault with it).
 * WASP_ENOMEM when GLPK's environment cannot be made (then no GLPK call
 * may follow: GLPK would abort), else 0. */
int wgl_begin(wgl_env *e, int mem_limit_mb);
void wgl_end(wgl_env *e);
/* After a longjmp: free GLPK's state, return WASP_ESOLVER with its text. */
int wgl_fault(wgl_env *e, wasp_error *err);

/* The branch-and-cut callback's common part: tracks the best bound,
 * stops before the deadline (GLPK checks tm_lim only between nodes, and
 * one step can take seconds: the longest step seen so far must fit), on
 * *cancel, and once the bound proves the incumbent (all objective
 * coefficients integers: no solution lies between incumbent and
 * incumbent + 1), and injects `inject` at the first GLP_IHEUR. */
#define WGL_STEP_MARGIN_S 0.02 /* stop this close to the deadline */
typedef struct wgl_watch {
	wb_deadline deadline; /* stop before it (WGL_STEP_MARGIN_S) */
	volatile const int *cancel;
	double last, maxstep; /* set last = now, maxstep = LP time    */
	bool int_obj;       /* integer coefficients                    */
	const double *inject;
	bool injected, inject_ok;
	bool stopped;       /* by deadline or cancel                   */
	bool int_opt;       /* by the proof                            */
	double bound;
	bool have_bound;
	bool have_cap;      /* a bound known before the search (root cuts, */
	double cap;         /* ilp/gomory.h): bound never exceeds it        */
} wgl_watch;

/* Whether the search must stop now: cancelled, within
 * WGL_STEP_MARGIN_S of the deadline, or `steps` of the longest step seen
 * would cross it.  wgl_watch_step uses 1.2 steps; strong branching
 * (ilp/branch.c), which adds to the current step, uses more. */
bool wgl_watch_late(const wgl_watch *w, double now, double steps);

/* glp_simplex under the deadline (its tm_lim, which GLPK checks every
 * iteration) and *e->cancel: GLPK reports its progress to the terminal
 * hook every WGL_POLL_MS, and the hook longjmps to e->jb with
 * e->cancelled set once *e->cancel is (doc/library.md, "Cancelling").
 * The caller's setjmp then calls wgl_cancelled, not wgl_fault.  Returns
 * glp_simplex's code (GLP_ETMLIM at the deadline); sp's tm_lim and
 * message settings are its own. */
#define WGL_POLL_MS 10
int wgl_simplex(wgl_env *e, glp_prob *P, const glp_smcp *sp,
		wb_deadline dl);
/* wgl_simplex until dl, and once more until retry_dl when GLPK fails
 * numerically (GLP_EFAIL, ESING, ECOND: an unscaled basis gone bad with
 * tier weights up to 2^30): scaled, from a fresh basis, by the dual
 * simplex.  sp is the caller's and is changed for the retry. */
int wgl_simplex_retry(wgl_env *e, glp_prob *P, glp_smcp *sp,
		      wb_deadline dl, wb_deadline retry_dl);
/* glp_intopt the same way: the search callback stops the search cleanly
 * at its steps (wgl_watch_step); the hook's longjmp comes only when a
 * cancel has waited WGL_CANCEL_GRACE_S inside one step (a node's LP, a
 * cut round), and drops the block's incumbent. */
#define WGL_CANCEL_GRACE_S 0.03
int wgl_intopt(wgl_env *e, glp_prob *P, const glp_iocp *ip);

/* Between GLPK calls of a long loop (every WGL_POLL_EVERY + 1 steps):
 * the same longjmp as inside wgl_simplex once *e->cancel is set.  e may
 * be NULL. */
#define WGL_POLL_EVERY 1023
void wgl_poll(wgl_env *e);
/* After the longjmp of a cancel: free GLPK's state for this thread. */
void wgl_cancelled(wgl_env *e);

/* True when it terminated the search. */
bool wgl_watch_step(glp_tree *T, wgl_watch *w);
/* w->bound lowered to w->cap when that is known and lower (each step,
 * and once more after the search). */
void wgl_watch_cap(wgl_watch *w);

#endif
