/*
 * glpkenv.c -- GLPK's terminal and error hooks for library use
 * (glpkenv.h).  Shared by the node model (ilp/driver.c) and the part
 * model (ilp/agg_glpk.c).
 */
#include "solve/glpkenv.h"
#include "base/clock.h"

#include <limits.h>
#include <string.h>

#include "wasp.h"

static int term_hook(void *info, const char *s)
{
	wgl_env *e = info;
	size_t n = strlen(s);
	if (e->msglen + n >= sizeof e->msg) {
		/* keep the latest text: the fatal message comes last */
		e->msglen = 0;
	}
	if (n >= sizeof e->msg)
		n = sizeof e->msg - 1;
	memcpy(e->msg + e->msglen, s, n);
	e->msglen += n;
	e->msg[e->msglen] = '\0';
	if (e->polling && e->cancel && *e->cancel) {
		double now = wb_now();
		if (e->seen == 0)
			e->seen = now;
		if (now - e->seen >= e->grace)
			wgl_poll(e); /* GLPK's state is dropped */
	}
	return 1; /* never print */
}

void wgl_poll(wgl_env *e)
{
	if (e && e->cancel && *e->cancel) {
		e->cancelled = true;
		e->polling = false;
		longjmp(e->jb, 2);
	}
}

static void err_hook(void *info)
{
	wgl_env *e = info;
	longjmp(e->jb, 1);
}

int wgl_begin(wgl_env *e, int mem_limit_mb)
{
	e->polling = e->cancelled = false;
	int rc = glp_init_env();
	/* 2: no memory for it; GLPK would abort() at its next call */
	if (rc != 0 && rc != 1)
		return WASP_ENOMEM;
	e->own_env = rc == 0;
	glp_term_out(GLP_OFF);
	glp_term_hook(term_hook, e);
	glp_error_hook(err_hook, e);
	if (mem_limit_mb > 0)
		glp_mem_limit(mem_limit_mb);
	return 0;
}

void wgl_end(wgl_env *e)
{
	if (e->P)
		glp_delete_prob(e->P);
	e->P = NULL;
	glp_error_hook(NULL, NULL);
	glp_term_hook(NULL, NULL);
	if (e->own_env)
		glp_free_env();
}

/* After a GLPK fault: GLPK's state is undefined, only freeing it is
 * allowed (this frees every GLPK object of the calling thread). */
int wgl_fault(wgl_env *e, wasp_error *err)
{
	glp_free_env();
	e->P = NULL;
	char *s = e->msg;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	for (char *q = s; *q; q++)
		if (*q == '\n')
			*q = ';';
	return werr(err, WASP_ESOLVER, "GLPK failed: %s",
		    n ? s : "(no message)");
}

int wgl_simplex(wgl_env *e, glp_prob *P, const glp_smcp *sp,
		wb_deadline dl)
{
	glp_smcp s = *sp;
	double left = wdl_left(dl, 0);
	if (left <= 0.0005)
		return GLP_ETMLIM;
	s.tm_lim = left * 1000 > INT_MAX / 2 ? INT_MAX / 2
					     : (int)(left * 1000) + 1;
	/* progress lines only feed term_hook's poll; never printed */
	s.msg_lev = GLP_MSG_ON;
	s.out_frq = WGL_POLL_MS;
	s.out_dly = 0;
	e->polling = true;
	e->grace = 0;
	int old = glp_term_out(GLP_ON); /* else the hook is never called */
	int rc = glp_simplex(P, &s);
	glp_term_out(old);
	e->polling = false;
	return rc;
}

int wgl_simplex_retry(wgl_env *e, glp_prob *P, glp_smcp *sp,
		      wb_deadline dl, wb_deadline retry_dl)
{
	int rc = wgl_simplex(e, P, sp, dl);
	if (rc != GLP_EFAIL && rc != GLP_ESING && rc != GLP_ECOND)
		return rc;
	glp_scale_prob(P, GLP_SF_AUTO);
	glp_adv_basis(P, 0);
	sp->meth = GLP_DUALP;
	return wgl_simplex(e, P, sp, retry_dl);
}

int wgl_intopt(wgl_env *e, glp_prob *P, const glp_iocp *ip)
{
	glp_iocp s = *ip;
	s.msg_lev = GLP_MSG_ON; /* node LPs report too: the hook polls */
	s.out_frq = WGL_POLL_MS;
	s.out_dly = 0;
	e->polling = true;
	e->grace = WGL_CANCEL_GRACE_S;
	e->seen = 0;
	int old = glp_term_out(GLP_ON);
	int rc = glp_intopt(P, &s);
	glp_term_out(old);
	e->polling = false;
	return rc;
}

void wgl_cancelled(wgl_env *e)
{
	e->polling = false;
	glp_free_env();
	e->P = NULL;
}

bool wgl_watch_late(const wgl_watch *w, double now, double steps)
{
	if (w->cancel && *w->cancel)
		return true;
	return !wdl_is_none(w->deadline) &&
	       (now >= w->deadline.at - WGL_STEP_MARGIN_S ||
		now + steps * w->maxstep > w->deadline.at);
}

void wgl_watch_cap(wgl_watch *w)
{
	if (w->have_cap && (!w->have_bound || w->bound > w->cap)) {
		w->bound = w->cap;
		w->have_bound = true;
	}
}

bool wgl_watch_step(glp_tree *T, wgl_watch *w)
{
	int reason = glp_ios_reason(T);
	if (reason == GLP_ISELECT || reason == GLP_IBRANCH ||
	    reason == GLP_IHEUR) {
		int bn = glp_ios_best_node(T);
		if (bn) {
			w->bound = glp_ios_node_bound(T, bn);
			w->have_bound = true;
		}
		wgl_watch_cap(w);
	}
	double now = wb_now();
	if (now - w->last > w->maxstep)
		w->maxstep = now - w->last;
	w->last = now;
	if (wgl_watch_late(w, now, 1.2)) {
		w->stopped = true;
		glp_ios_terminate(T);
		return true;
	}
	if (w->int_obj && w->have_bound) {
		glp_prob *Q = glp_ios_get_prob(T);
		if (glp_mip_status(Q) == GLP_FEAS &&
		    w->bound < glp_mip_obj_val(Q) + 1 - 1e-6) {
			w->int_opt = true;
			glp_ios_terminate(T);
			return true;
		}
	}
	if (reason == GLP_IHEUR && w->inject && !w->injected) {
		w->injected = true;
		w->inject_ok = glp_ios_heur_sol(T, (double *)w->inject) == 0;
	}
	return false;
}
