/*
 * watch.c -- a step of the run that a cancel can leave behind
 * (watch.h): the step on a helper thread, the calling thread waiting
 * for it, the cancel flag and the step's progress reports.
 */
#define _POSIX_C_SOURCE 200809L

#include "run/watch.h"
#include "base/clock.h"

#include <string.h>
#include <time.h>

static void *worker(void *arg)
{
	wsv_watch *w = arg;
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
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	w->started = false;
}
