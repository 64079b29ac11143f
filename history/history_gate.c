/*
 * history_gate.c: the verdict of `sbench history gate --fail-slower=PCT`
 * on one series of sessions: fail when the newest change point of the
 * series (history_changes.c) is a slowdown whose whole 95% interval lies
 * below -PCT%.  A series with no change point passes, so when nothing
 * changed the gate fails at most as often as a change point is found by
 * chance (alpha).
 */
#include "history_stats.h"

#include <math.h>
#include <string.h>

int hs_gate(const double *v, int n, double fail_slower_pct, double alpha, struct hs_gate_verdict *out)
{
    struct hs_change c[HS_MAX_CHANGES];
    memset(out, 0, sizeof *out);
    if (hs_change_points(v, n, alpha, c, HS_MAX_CHANGES, &out->changes) != 0)
        return -1;
    if (out->changes == 0)
        return 0;
    out->last = c[out->changes - 1];
    double limit = log(1 - fail_slower_pct / 100);
    out->fail = out->last.achievable && out->last.high < 0 && out->last.high < limit;
    return 0;
}
