/*
 * compare_gate.c: the verdict of `sbench history gate --fail-slower=PCT`
 * on one series of sessions: fail when the newest change point of the
 * series (compare_changes.c) is a slowdown whose whole 95% interval lies
 * below -PCT%.  A series with no change point passes, so when nothing
 * changed the gate fails at most as often as a change point is found by
 * chance (alpha).
 */
#include "compare_sessions.h"

#include <math.h>
#include <string.h>

int cmp_history_gate(const double *v, int n, double fail_slower_pct, double alpha, struct cmp_gate_verdict *out)
{
    struct cmp_change c[CMP_HS_MAX_CHANGES];
    memset(out, 0, sizeof *out);
    if (cmp_change_points(v, n, alpha, c, CMP_HS_MAX_CHANGES, &out->changes) != 0)
        return -1;
    if (out->changes == 0)
        return 0;
    out->last = c[out->changes - 1];
    double limit = log(1 - fail_slower_pct / 100);
    out->fail = out->last.achievable && out->last.high < 0 && out->last.high < limit;
    return 0;
}
