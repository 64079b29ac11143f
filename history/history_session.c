/*
 * history_session.c: one session against a saved session, the session
 * being the unit (history_stats.h): the difference of their medians set
 * against the spread between earlier sessions of the same configuration,
 * with Student's t for the few sessions a history holds.
 */
#include "history_stats.h"


#include <math.h>
#include <stdio.h>
#include <string.h>

/* Continued fraction of the regularised incomplete beta (modified Lentz). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = fabs(d) < tiny ? tiny : d;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m, num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        for (int step = 0; step < 2; step++) {
            d = 1 + num * d;
            d = fabs(d) < tiny ? tiny : d;
            c = 1 + num / c;
            c = fabs(c) < tiny ? tiny : c;
            d = 1 / d;
            h *= d * c;
            num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        }
        if (fabs(d * c - 1) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double hs_t_pvalue(double t, int df)
{
    if (df < 1 || !isfinite(t))
        return isfinite(t) ? 1 : 0;
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double hs_t975(int df)
{
    double lo = 0, hi = 1e6;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (hs_t_pvalue(mid, df) > 0.05)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

int hs_session_compare(double a, double b, const double *past, int k, struct hs_session_shift *out, char *why,
                       size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (why && whylen)
        why[0] = 0;
    if (k < 0 || !(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
        return -1;
    out->estimate = log(b / a);
    out->sessions = k;
    if (k < HS_MIN_HISTORY) {
        if (why)
            snprintf(why, whylen,
                     "the runs were taken in two sessions, and the drift between sessions is unknown: %d earlier "
                     "session%s of this configuration in the history, %d needed",
                     k, k == 1 ? "" : "s", HS_MIN_HISTORY);
        out->low = out->high = out->estimate;
        out->p_value = 1;
        return 0;
    }
    double mean = 0, ss = 0;
    for (int i = 0; i < k; i++) {
        if (!(past[i] > 0))
            return -1;
        mean += log(past[i]) / k;
    }
    for (int i = 0; i < k; i++)
        ss += (log(past[i]) - mean) * (log(past[i]) - mean);
    double s = sqrt(ss / (k - 1)), se = s * sqrt(2.0);
    out->between_sd = s;
    out->achievable = 1;
    double half = hs_t975(k - 1) * se;
    out->low = out->estimate - half;
    out->high = out->estimate + half;
    out->p_value = se > 0 ? hs_t_pvalue(out->estimate / se, k - 1) : out->estimate == 0 ? 1 : 0;
    out->significant = out->low > 0 || out->high < 0;
    return 0;
}
