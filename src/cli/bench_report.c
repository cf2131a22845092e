/*
 * bench_report.c -- what `wasp bench` writes: the text table on standard
 * output (one line per instance and solver, with the instance's facts
 * above its rows), and PREFIX.csv / PREFIX.json with one record per row.
 * bench/README.md explains every column.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/bench_int.h"

/* Write `path` through a temporary file and rename (no half files). */
static int write_atomic(const char *path, const char *text, size_t len)
{
	size_t n = strlen(path) + 16;
	char *tmp = xmalloc(n);
	snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
	int rc = bench_write_all(tmp, text, len);
	if (!rc && rename(tmp, path))
		rc = -1;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}


static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, fmt, v);
}

static void fmt_long(char *buf, size_t n, long v)
{
	if (v < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%ld", v);
}

/* "96/64/0": admitted GPUs (or pods) per priority, highest first. */
static void fmt_prio(char *buf, size_t n, const row *r, const ifacts *f,
		     int pods)
{
	size_t used = 0;
	buf[0] = 0;
	if (!r->m.ok || !f->manifests || f->nprio == 0) {
		snprintf(buf, n, "-");
		return;
	}
	for (int i = 0; i < f->nprio && used + 1 < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%ld",
					 i ? "/" : "", pods ? r->m.pods_prio[i]
							    : r->m.gpus_prio[i]);
}

static double row_gap_pct(const row *r)
{
	return !r->m.ok || isnan(r->m.gap) ? NAN : 100 * r->m.gap;
}

static const char *row_status(const row *r)
{
	if (strcmp(r->state, "ok"))
		return r->state;
	return r->m.ok ? r->m.status : "no-metrics";
}

void bench_print_header(FILE *f)
{
	fprintf(f, "%-12s %-7s %-8s %5s %-12s %5s %-14s %6s %6s %6s %6s %5s "
		"%6s %7s %7s %4s\n", "INSTANCE", "SOLVER", "STATUS", "PODS",
		"PODS/PRIO", "GPUS", "GPUS/PRIO", "STRAND", "SPREAD", "FREE-N",
		"FREE-R", "EVICT", "GAP%", "TIME-S", "MEM-MB", "VIOL");
}

void bench_print_row(FILE *f, const suite *su, const row *r,
		     const ifacts *fa)
{
	char ap[24], ag[24], pr[64], pp[64], st[24], sp[24], fn[24], frr[24],
	    ev[24], gp[24], vi[24], tm[24], mb[24];
	const pmetrics *m = &r->m;
	int has = !strcmp(r->state, "ok") && m->ok;
	fmt_long(ap, sizeof ap, has ? m->adm_pods : -1);
	fmt_long(ag, sizeof ag, has ? m->adm_gpus : -1);
	if (has) {
		fmt_prio(pr, sizeof pr, r, fa, 0);
		fmt_prio(pp, sizeof pp, r, fa, 1);
	} else {
		snprintf(pr, sizeof pr, "-");
		snprintf(pp, sizeof pp, "-");
	}
	fmt_long(st, sizeof st, has ? m->stranded_gpus : -1);
	fmt_long(sp, sizeof sp, has ? m->spread_gpus : -1);
	fmt_long(fn, sizeof fn, has ? m->free_nodes : -1);
	fmt_long(frr, sizeof frr, has ? m->free_racks : -1);
	fmt_long(ev, sizeof ev, has ? m->evicted : -1);
	fmt_num(gp, sizeof gp, !strcmp(r->state, "ok") ? row_gap_pct(r) : NAN,
		"%.2f");
	fmt_long(vi, sizeof vi, has ? m->violations : -1);
	fmt_num(tm, sizeof tm, !strcmp(r->state, "ok") ? r->t_total : NAN,
		"%.3f");
	fmt_num(mb, sizeof mb, r->peak_kb > 0 ? r->peak_kb / 1024.0 : NAN,
		"%.1f");
	fprintf(f, "%-12s %-7s %-8s %5s %-12s %5s %-14s %6s %6s %6s %6s %5s "
		"%6s %7s %7s %4s\n", su->in[r->inst].name,
		bench_solver_name[r->solver], row_status(r), ap, pp, ag, pr, st,
		sp, fn, frr, ev, gp, tm, mb, vi);
	if (strcmp(r->state, "ok") && r->msg[0])
		fprintf(f, "    %s\n", r->msg);
}

static void csv_field(FILE *f, const char *s, int last)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

/* One CSV/JSON cell, the longest (mode_reason) included. */
#define CELL 512

static const char *const csv_cols[] = {
    "suite", "instance", "solver", "state", "status", "mode", "nodes",
    "racks", "gpus", "free_gpus_before", "pending_pods", "pending_gpus",
    "pending_groups", "time_limit_s", "admitted_groups", "waiting_groups",
    "placed_pods", "admitted_pods", "admitted_pods_by_priority",
    "admitted_gpus", "admitted_gpus_by_priority", "priorities", "stranded_gpus",
    "partial_gangs", "spread_gpus", "spread_groups", "free_nodes_before",
    "free_nodes", "free_racks_before",
    "free_racks", "evictions", "objective", "bound", "gap", "violations",
    "time_s", "load_s", "solve_s", "peak_mb", "mode_reason", "note"};
#define NCOLS (sizeof csv_cols / sizeof csv_cols[0])

/* One row's values as strings, in csv_cols order ("" when unknown). */
static void row_values(const suite *su, const row *r, const ifacts *fa,
		       char vals[NCOLS][CELL])
{
	const instance *in = &su->in[r->inst];
	const pmetrics *m = &r->m;
	int ok = !strcmp(r->state, "ok");
	int has = ok && m->ok;
	int q = has && fa->manifests;
	int i = 0;
#define PUT(...) snprintf(vals[i++], CELL, __VA_ARGS__)
#define PUTL(cond, v) ((cond) && (v) >= 0 ? PUT("%ld", (long)(v)) : PUT("%s", ""))
#define PUTD(cond, v) ((cond) && !isnan(v) ? PUT("%.10g", (double)(v)) : PUT("%s", ""))
#define PUTP(cond, pods) ((cond) ? fmt_prio(vals[i++], CELL, r, fa, pods) \
				 : (void)PUT("%s", ""))
	PUT("%s", su->name);
	PUT("%s", in->name);
	PUT("%s", bench_solver_name[r->solver]);
	PUT("%s", r->state);
	PUT("%s", ok ? row_status(r) : "");
	PUT("%s", has ? m->mode : "");
	PUTL(fa->manifests, fa->nodes);
	PUTL(fa->manifests, fa->racks);
	PUTL(fa->manifests, fa->gpus);
	PUTL(fa->manifests, fa->free_gpus);
	PUTL(fa->manifests, fa->pending_pods);
	PUTL(fa->manifests, fa->pending_gpus);
	PUTL(fa->manifests, fa->pending_groups);
	PUT("%g", in->time);
	PUTL(has, m->admitted_groups);
	PUTL(has, m->waiting_groups);
	PUTL(has, m->placed_pods);
	PUTL(q, m->adm_pods);
	PUTP(q, 1);
	PUTL(q, m->adm_gpus);
	PUTP(q, 0);
	{
		char pr[256];
		size_t u = 0;
		pr[0] = 0;
		for (int k = 0; fa->manifests && k < fa->nprio; k++)
			u += (size_t)snprintf(pr + u, sizeof pr - u, "%s%d",
					      k ? "/" : "", (int)fa->prio[k]);
		PUT("%s", pr);
	}
	PUTL(q, m->stranded_gpus);
	PUTL(q, m->partial_gangs);
	PUTL(q, m->spread_gpus);
	PUTL(q, m->spread_groups);
	PUTL(fa->manifests, fa->free_nodes);
	PUTL(q, m->free_nodes);
	PUTL(fa->manifests, fa->free_racks);
	PUTL(q, m->free_racks);
	PUTL(has, m->evicted);
	PUTD(has, m->objective);
	PUTD(has, m->bound);
	PUTD(has, m->gap);
	PUTL(has, m->violations);
	PUTD(ok, r->t_total);
	PUTD(ok, r->t_load);
	PUTD(ok, r->t_solve);
	PUTD(r->peak_kb > 0, r->peak_kb / 1024.0);
	PUT("%s", has ? m->mode_reason : "");
	PUT("%s", r->msg[0] ? r->msg : m->note);
#undef PUT
#undef PUTL
#undef PUTD
#undef PUTP
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Columns whose values are numbers in the JSON (the rest are strings). */
static int col_numeric(size_t k)
{
	static const char *const text[] = {
	    "suite", "instance", "solver", "state", "status", "mode",
	    "admitted_pods_by_priority", "admitted_gpus_by_priority",
	    "priorities", "mode_reason", "note"};
	for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
		if (!strcmp(csv_cols[k], text[i]))
			return 0;
	return 1;
}

int bench_write_results(const char *prefix, const suite *su, row *rows,
			int nrows, ifacts *facts, const char *argv_line)
{
	size_t n = strlen(prefix) + 8;
	char *csv = xmalloc(n), *js = xmalloc(n);
	snprintf(csv, n, "%s.csv", prefix);
	snprintf(js, n, "%s.json", prefix);
	char (*vals)[CELL] = xmalloc(NCOLS * CELL);
	char *buf = NULL;
	size_t blen = 0;
	int rc = 0;

	/* CSV */
	FILE *f = open_memstream(&buf, &blen);
	if (!f) {
		rc = -1;
		goto out;
	}
	for (size_t k = 0; k < NCOLS; k++)
		csv_field(f, csv_cols[k], k + 1 == NCOLS);
	for (int i = 0; i < nrows; i++) {
		row_values(su, &rows[i], &facts[rows[i].inst], vals);
		for (size_t k = 0; k < NCOLS; k++)
			csv_field(f, vals[k], k + 1 == NCOLS);
	}
	fclose(f);
	if (write_atomic(csv, buf, blen))
		rc = -1;
	free(buf);
	buf = NULL;

	/* JSON */
	f = open_memstream(&buf, &blen);
	if (!f) {
		rc = -1;
		goto out;
	}
	char date[64];
	time_t t = time(NULL);
	struct tm tmv;
	gmtime_r(&t, &tmv);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
	fprintf(f, "{\n  \"suite\": ");
	json_string(f, su->name);
	fprintf(f, ",\n  \"date\": \"%s\",\n  \"command\": ", date);
	json_string(f, argv_line);
	fprintf(f, ",\n  \"wasp\": \"%s\",\n  \"cpus\": %ld,\n  \"rows\": [",
		wasp_version(), sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0; i < nrows; i++) {
		row_values(su, &rows[i], &facts[rows[i].inst], vals);
		fprintf(f, "%s\n    {", i ? "," : "");
		for (size_t k = 0; k < NCOLS; k++) {
			fprintf(f, "%s\"%s\": ", k ? ", " : "", csv_cols[k]);
			if (!vals[k][0])
				fputs("null", f);
			else if (col_numeric(k))
				fputs(vals[k], f);
			else
				json_string(f, vals[k]);
		}
		fputc('}', f);
	}
	fprintf(f, "\n  ]\n}\n");
	fclose(f);
	if (write_atomic(js, buf, blen))
		rc = -1;
	free(buf);
out:
	if (rc)
		fprintf(stderr, "wasp bench: cannot write %s or %s: %s\n", csv,
			js, strerror(errno));
	free(vals);
	free(csv);
	free(js);
	return rc;
}


void bench_print_instance(FILE *f, const instance *in, const ifacts *fa,
			  const char *note)
{
	if (!fa->manifests) {
		fprintf(f, "# %s: %s%s%s\n", in->name, in->file ? in->file : "",
			note && *note ? ": " : "", note ? note : "");
		return;
	}
	fprintf(f, "# %s: %ld nodes, %ld racks, %ld GPUs (%ld free, %ld "
		"whole nodes free); %ld pending pods in %ld groups asking "
		"%ld GPUs; limit %g s\n", in->name, fa->nodes, fa->racks,
		fa->gpus, fa->free_gpus, fa->free_nodes, fa->pending_pods,
		fa->pending_groups, fa->pending_gpus, in->time);
}
