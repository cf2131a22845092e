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
 *	wgl_begin(&e, 0);
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
} wgl_env;

/* mem_limit_mb > 0: glp_mem_limit (tests provoke a fault with it). */
void wgl_begin(wgl_env *e, int mem_limit_mb);
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
} wgl_watch;

/* True when it terminated the search. */
bool wgl_watch_step(glp_tree *T, wgl_watch *w);

#endif
