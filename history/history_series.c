/*
 * history_series.c: the trend's series, which `trend` shows and `gate`
 * judges: the runs like the newest one the filter selects (its workload,
 * options digest and target).
 */
#include "history_cli.h"

#include <stdio.h>

/* The trend's series: the runs like the newest selected one (its
 * workload, options digest and target), with their reports. */
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
