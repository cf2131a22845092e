/*
 * watch.c -- a step of the run that a cancel can leave behind
 * (watch.h): the step on a helper thread, the calling thread waiting
 * for it, the cancel flag and the step's progress reports.
 */
#define _GNU_SOURCE /* syscall, setpriority on one thread (Linux) */

#include "run/watch.h"
#include "base/clock.h"

#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static void *worker(void *arg)
{
	wsv_watch *w = arg;
#ifdef __linux__
	pthread_mutex_lock(&w->mu);
	w->tid = (int)syscall(SYS_gettid);
	pthread_mutex_unlock(&w->mu);
#endif
	int rc = w->fn(w->arg, &w->o);
	pthread_mutex_lock(&w->mu);
	w->rc = rc;
	w->done = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* The step's progress callback: the latest report waits for the
 * calling thread (doc/library.md, "Progress"). */
static void relay(const wasp_progress *pr, void *ctx)
{
	wsv_watch *w = ctx;
	pthread_mutex_lock(&w->mu);
	if (!w->abandoned) {
		w->pr = *pr;
		w->have_pr = true;
		pthread_cond_signal(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
}

static void tick(wsv_watch *w)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)(WSV_WATCH_TICK_S * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&w->cv, &w->mu, &ts);
}

/* A step left behind only has to stop: on Linux (where a thread has
 * its own nice value) it gets a low priority while the plan is made and
 * written, so as not to compete with them for the CPU; back to the
 * process's own when the run waits for it (where that is allowed: an
 * unprivileged process may not raise a priority again, and the step
 * then ends a little later). */
static void renice(wsv_watch *w, int nice)
{
#ifdef __linux__
	if (w->tid > 0)
		(void)setpriority(PRIO_PROCESS, (id_t)w->tid, nice);
#else
	(void)w;
	(void)nice;
#endif
}

/* With w->mu held. */
static void lower(wsv_watch *w)
{
#ifdef __linux__
	w->nice = getpriority(PRIO_PROCESS, 0); /* this thread's */
#endif
	renice(w, WSV_WATCH_NICE);
}

static bool start(wsv_watch *w)
{
	pthread_condattr_t ca;
	if (pthread_condattr_init(&ca))
		return false;
	bool ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
		  pthread_cond_init(&w->cv, &ca) == 0;
	pthread_condattr_destroy(&ca);
	if (!ok)
		return false;
	if (pthread_mutex_init(&w->mu, NULL)) {
		pthread_cond_destroy(&w->cv);
		return false;
	}
	if (pthread_create(&w->th, NULL, worker, w)) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		return false;
	}
	return true;
}

int wsv_watch_run(wsv_watch *w, wsv_step_fn fn, void *arg,
		  const wasp_options *o)
{
	memset(w, 0, sizeof *w);
	w->fn = fn;
	w->arg = arg;
	w->caller = o;
	w->o = *o;
	if (!o->cancel)
		return fn(arg, o);
	if (o->progress) {
		w->o.progress = relay;
		w->o.progress_ctx = w;
	}
	if (!start(w)) {
		w->o = *o;
		return fn(arg, o);
	}
	w->started = true;
	double seen = 0;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (w->have_pr) {
			wasp_progress pr = w->pr;
			w->have_pr = false;
			pthread_mutex_unlock(&w->mu);
			o->progress(&pr, o->progress_ctx);
			pthread_mutex_lock(&w->mu);
			continue;
		}
		if (w->done)
			break;
		if (*o->cancel) {
			double now = wb_now();
			if (seen == 0)
				seen = now;
			else if (now - seen >= WSV_WATCH_GRACE_S) {
				w->abandoned = true;
				lower(w);
				break;
			}
		}
		tick(w);
	}
	int rc = w->abandoned ? WASP_ECANCELED : w->rc;
	pthread_mutex_unlock(&w->mu);
	if (!w->abandoned)
		wsv_watch_join(w);
	return rc;
}

void wsv_watch_join(wsv_watch *w)
{
	if (!w->started)
		return;
	if (w->abandoned)
		renice(w, w->nice);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	w->started = false;
}
