/*
 * history_list.c: `sbench history list`, `trend` and `export`: the runs a
 * filter selects as a table, as a series of comparable runs, as CSV or
 * JSON.
 */
#include "history_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The runs c's filter selects; 0, or -1 after one line on stderr. */
static int selected(struct hist_cmd *c, struct sb_hist_runs *runs)
{
    char err[1024];
    if (sb_history_query(c->h, &c->f, runs, err, sizeof err) != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        return -1;
    }
    return 0;
}

/* A figure as text, "-" when the run had none. */
static const char *fig(double v, const char *fmt, char *buf, size_t len)
{
    if (!isfinite(v))
        return "-";
    snprintf(buf, len, fmt, v);
    return buf;
}

/* The labels on one line ("a=1,b=2"). */
static void labels_line(const char *labels, char *buf, size_t len)
{
    snprintf(buf, len, "%s", labels ? labels : "");
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ',';
}

int hist_cmd_list(struct hist_cmd *c)
{
    struct sb_hist_runs runs;
    if (c->nargs > 0) {
        fprintf(stderr, "sbench history list: takes no argument ('%s'; filters are options)\n", c->args[0]);
        return 2;
    }
    if (selected(c, &runs) != 0)
        return 1;
    fprintf(c->out, "%-6s %-19s %-22s %-30s %-8s %12s %10s  %s\n", "ID", "TIME (UTC)", "WORKLOAD", "TARGET",
            "CONFIG", "TPS", "P95 (ms)", "LABELS");
    for (size_t i = 0; i < runs.n; i++) {
        const struct sb_hist_run *r = &runs.v[i];
        char when[32], target[256], tps[32], p95[32], labels[512];
        hist_time_text(r->time, when, sizeof when);
        hist_target_text(r, target, sizeof target);
        if (r->target && *r->target)
            snprintf(target, sizeof target, "%s", r->target);
        labels_line(r->labels, labels, sizeof labels);
        fprintf(c->out, "%-6lld %-19s %-22s %-30s %-8.8s %12s %10s  %s\n", (long long)r->id, when,
                r->workload, target, r->options_digest, fig(r->tps, "%.2f", tps, sizeof tps),
                fig(r->lat_p95_ms, "%.3f", p95, sizeof p95), labels);
    }
    fprintf(c->out, "%zu run%s in %s\n", runs.n, runs.n == 1 ? "" : "s", sb_history_where(c->h));
    sb_hist_runs_free(&runs);
    return 0;
}

int hist_series(struct hist_cmd *c, struct sb_hist_runs *runs)
{
    struct sb_hist_filter newest = c->f;
    newest.limit = 1;
    char err[1024];
    if (sb_history_query(c->h, &newest, runs, err, sizeof err) != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        return -1;
    }
    if (runs->n == 0)
        return 0;
    struct sb_hist_run *last = &runs->v[0];
    struct sb_hist_filter f = c->f;
    char target[256];
    hist_target_text(last, target, sizeof target);
    f.workload = last->workload;
    f.options_digest = last->options_digest;
    f.target = last->target && *last->target ? last->target : target;
    f.with_report = 1;
    struct sb_hist_runs all;
    if (sb_history_query(c->h, &f, &all, err, sizeof err) != 0) {
        fprintf(stderr, "sbench history: %s\n", err);
        sb_hist_runs_free(runs);
        return -1;
    }
    fprintf(c->out, "Trend of %s, options digest %s, target %s: %zu run%s\n", last->workload,
            last->options_digest, f.target, all.n, all.n == 1 ? "" : "s");
    sb_hist_runs_free(runs);
    *runs = all;
    return 0;
}

int hist_cmd_trend(struct hist_cmd *c)
{
    struct sb_hist_runs runs;
    if (hist_series(c, &runs) != 0)
        return 1;
    if (runs.n == 0) {
        fprintf(stderr, "sbench history trend: no run matches in %s\n", sb_history_where(c->h));
        return 1;
    }
    fprintf(c->out, "%-6s %-19s %12s %22s %8s %10s  %s\n", "ID", "TIME (UTC)", "TPS", "95% INTERVAL (windows)",
            "VS FIRST", "P95 (ms)", "LABELS");
    double first = runs.v[0].tps;
    for (size_t i = 0; i < runs.n; i++) {
        const struct sb_hist_run *r = &runs.v[i];
        struct hist_windows w;
        hist_windows_of(r, &w);
        char when[32], ci[64] = "-", vs[32] = "-", p95[32], labels[512];
        hist_time_text(r->time, when, sizeof when);
        if (w.n >= 2)
            snprintf(ci, sizeof ci, "%.2f .. %.2f", w.mean - w.half, w.mean + w.half);
        if (first > 0 && isfinite(r->tps))
            snprintf(vs, sizeof vs, "%+.1f%%", 100.0 * (r->tps - first) / first);
        labels_line(r->labels, labels, sizeof labels);
        fprintf(c->out, "%-6lld %-19s %12.2f %22s %8s %10s  %s\n", (long long)r->id, when, r->tps, ci, vs,
                fig(r->lat_p95_ms, "%.3f", p95, sizeof p95), labels);
    }
    int rc = hist_trend_changes(c, &runs, -1, NULL, NULL) != 0; /* history_changes_view.c */
    sb_hist_runs_free(&runs);
    return rc;
}
