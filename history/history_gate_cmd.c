/*
 * history_gate_cmd.c: `sbench history gate --fail-slower=PCT` (docs/
 * history.md, "Change points and the gate"): the trend's change points
 * (history_changes_view.c), then exit status 3 when the newest of them is
 * a slowdown whose whole 95% interval lies past -PCT%, else 0.
 */
#include "history_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "history_stats.h"
#include "../lib/options.h"

static double pct(double logratio)
{
    return (exp(logratio) - 1) * 100;
}

int hist_cmd_gate(struct hist_cmd *c)
{
    const char *fs = sb_opt_str(c->o, "fail-slower");
    char *end;
    double limit = fs ? strtod(fs, &end) : -1;
    if (fs == NULL || *end || !(limit >= 0 && limit < 100)) {
        fprintf(stderr, "sbench history gate: --fail-slower=PCT is needed, a percentage from 0 to under 100\n");
        return 2;
    }
    struct sb_hist_runs runs;
    if (hist_series(c, &runs) != 0)
        return 1;
    if (runs.n == 0) {
        fprintf(stderr, "sbench history gate: no run matches in %s\n", sb_history_where(c->h));
        return 1;
    }
    struct hs_gate_verdict g;
    long long from = 0;
    int rc = hist_trend_changes(c, &runs, limit, &g, &from) != 0 ? 1 : 0;
    if (rc == 0 && g.fail) {
        fprintf(c->out, "\ngate --fail-slower=%g: FAIL: the newest runs sit after a slowdown of %.1f%% (95%% CI "
                "%.1f%% to %.1f%%) from run %lld on, more than %g%%\n", limit, -pct(g.last.estimate),
                -pct(g.last.high), -pct(g.last.low), from, limit);
        rc = 3;
    } else if (rc == 0) {
        fprintf(c->out, "\ngate --fail-slower=%g: pass (%s)\n", limit,
                g.changes == 0 ? "no change point found" : "the newest change point is not a slowdown whose whole 95% "
                "interval lies past the limit");
    }
    sb_hist_runs_free(&runs);
    return rc;
}
