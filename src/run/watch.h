/*
 * watch.h -- a step of the run that a cancel can leave behind.
 *
 * The improvement step (the ILP, cbc, the neighbourhood search) can take
 * a second or more to notice a cancel and clean up after itself: GLPK's
 * set-up and factorisations do not report, and freeing a model of
 * millions of nonzeros takes time.  wsv_watch_run runs such a step on a
 * helper thread while the calling thread waits; once *cancel is set and
 * the step has not returned within WSV_WATCH_GRACE_S, the wait ends with
 * the step abandoned, so that the run can make its plan from what it
 * had before the step (doc/library.md, "Time limits and cancelling").
 * wsv_watch_join then waits for the step's own end; it must be called
 * before the run returns (the step reads the run's problem and options).
 *
 * The step's progress reports are relayed: they reach the caller's
 * callback from the waiting (calling) thread, and none after an abandon.
 */
#ifndef WASP_RUN_WATCH_H
#define WASP_RUN_WATCH_H

#include <pthread.h>
#include <stdbool.h>

#include "wasp.h"

/* After a cancel, how long the step may take to return on its own (a
 * small model's branch and bound stops cleanly and keeps its
 * incumbent) before it is left behind. */
#define WSV_WATCH_GRACE_S 0.01
/* How often the waiting thread looks at the flag and relays progress. */
#define WSV_WATCH_TICK_S 0.001
/* The nice value of a step left behind (Linux; see watch.c). */
#define WSV_WATCH_NICE 10

typedef int (*wsv_step_fn)(void *arg, const wasp_options *o);

typedef struct wsv_watch {
	pthread_t th;
	int tid;            /* the helper's thread id (Linux), 0: unknown */
	int nice;           /* the process's nice value, to restore       */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool started;       /* th runs (or ran) the step                  */
	bool done;          /* the step returned                          */
	bool abandoned;     /* the wait ended on a cancel before that     */
	int rc;             /* the step's return, once done               */
	wsv_step_fn fn;
	void *arg;
	const wasp_options *caller; /* the run's options                 */
	wasp_options o;     /* the step's: progress goes through relay    */
	bool have_pr;       /* a report waits to be delivered             */
	wasp_progress pr;
} wsv_watch;

/* Run fn(arg, options) and wait for it, or until a cancel has waited
 * WSV_WATCH_GRACE_S.  Returns fn's code, or WASP_ECANCELED with
 * w->abandoned set.  Without o->cancel, or when no thread can be
 * started, fn runs in the calling thread (w->started false). */
int wsv_watch_run(wsv_watch *w, wsv_step_fn fn, void *arg,
		  const wasp_options *o);
/* Wait for an abandoned step to end and release the thread; a no-op
 * when nothing was started.  Safe to call twice. */
void wsv_watch_join(wsv_watch *w);

#endif
