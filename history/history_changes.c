/*
 * history_changes.c: change points of a series of sessions (see
 * history_stats.h for the method and what it promises): binary
 * segmentation with circular cuts, each cut scored by the difference of
 * the mean log throughput of its two groups and tested by permutations of
 * the segment, then each step
 * measured by the difference of the mean log throughput of the pieces
 * around it with Welch's 95% interval.
 */
#include "history_stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The largest score over the ways to cut x[0..n-1] (log throughput) in
 * two groups: an interval [i, j) against the rest, every piece at least
 * HS_MIN_SEGMENT long (i == 0 or j == n: one change, else two, the
 * circular binary segmentation of Olshen et al. 2004, which finds a dip
 * that came back).  The score is the difference of the groups' means
 * times sqrt(l (n - l) / n), l the interval's length: the two-sample
 * statistic without its variance, which is the same for every ordering
 * of the segment.  *at_i, *at_j: the best cut. */
static double best_split(const double *x, int n, double *prefix, int *at_i, int *at_j)
{
    prefix[0] = 0;
    for (int k = 0; k < n; k++)
        prefix[k + 1] = prefix[k] + x[k];
    double total = prefix[n], best = -1;
    for (int i = 0; i + HS_MIN_SEGMENT <= n; i++) {
        if (i > 0 && i < HS_MIN_SEGMENT)
            continue;
        for (int j = i + HS_MIN_SEGMENT; j <= n; j++) {
            int l = j - i, rest = n - l;
            if ((j < n && n - j < HS_MIN_SEGMENT) || rest < HS_MIN_SEGMENT)
                continue;
            double in = prefix[j] - prefix[i];
            double z = fabs(in / l - (total - in) / rest) * sqrt((double)l * rest / n);
            if (z > best + 1e-12) {
                best = z;
                *at_i = i;
                *at_j = j;
            }
        }
    }
    return best;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The permutation p-value of the best split of r[0..n-1] (score obs):
 * the share of random orderings whose best score reaches obs, counting
 * the observed one.  perm is scratch of n. */
static double permutation_p(const double *r, int n, double obs, double *perm, double *prefix)
{
    uint64_t seed = 0x9E3779B97F4A7C15u ^ (uint64_t)n;
    int reach = 1, i, j;
    memcpy(perm, r, sizeof *perm * (size_t)n);
    for (int b = 0; b < HS_PERMUTATIONS; b++) {
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(next_random(&seed) % (uint64_t)(i + 1));
            double t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        reach += best_split(perm, n, prefix, &i, &j) >= obs - 1e-9;
    }
    return (double)reach / (HS_PERMUTATIONS + 1);
}

struct search {
    const double *v;
    double *r, *perm, *prefix;
    double alpha;
    struct hs_change *out;
    int max, found;
};

/* Tests segment [lo, hi) and, when it has a change, both sides of it. */
static void segment(struct search *s, int lo, int hi)
{
    int n = hi - lo, i = 0, j = 0;
    if (n < 2 * HS_MIN_SEGMENT || s->found >= s->max)
        return;
    for (int k = 0; k < n; k++)
        s->r[k] = log(s->v[lo + k]);
    double obs = best_split(s->r, n, s->prefix, &i, &j);
    double p = permutation_p(s->r, n, obs, s->perm, s->prefix);
    if (p > s->alpha)
        return;
    int cuts[2], ncuts = 0;
    if (i > 0)
        cuts[ncuts++] = lo + i;
    if (j < n && s->found + ncuts < s->max)
        cuts[ncuts++] = lo + j;
    for (int c = 0; c < ncuts && s->found < s->max; c++)
        s->out[s->found++] = (struct hs_change){.at = cuts[c], .p_value = p};
    int from = lo;
    for (int c = 0; c < ncuts; c++) {
        segment(s, from, cuts[c]);
        from = cuts[c];
    }
    segment(s, from, hi);
}

static int by_at(const void *a, const void *b)
{
    return ((const struct hs_change *)a)->at - ((const struct hs_change *)b)->at;
}

/* Mean and variance of log v[from..to). */
static void log_moments(const double *v, int from, int to, double *mean, double *var)
{
    int n = to - from;
    double m = 0, ss = 0;
    for (int i = from; i < to; i++)
        m += log(v[i]) / n;
    for (int i = from; i < to; i++)
        ss += (log(v[i]) - m) * (log(v[i]) - m);
    *mean = m;
    *var = n > 1 ? ss / (n - 1) : 0;
}

/* The step of each change point, between its neighbours: the difference
 * of the pieces' mean log throughput, Welch's interval (the pieces'
 * spreads may differ: a change can bring a noisier server). */
static void measure_steps(const double *v, int n, struct hs_change *c, int found)
{
    qsort(c, (size_t)found, sizeof *c, by_at);
    for (int i = 0; i < found; i++) {
        int from = i ? c[i - 1].at : 0, to = i + 1 < found ? c[i + 1].at : n;
        int na = c[i].at - from, nb = to - c[i].at;
        double ma, va, mb, vb;
        log_moments(v, from, c[i].at, &ma, &va);
        log_moments(v, c[i].at, to, &mb, &vb);
        double se2 = va / na + vb / nb;
        double df = se2 > 0 ? se2 * se2 / (va * va / ((double)na * na * (na - 1)) +
                                           vb * vb / ((double)nb * nb * (nb - 1)))
                            : na + nb - 2;
        double half = hs_t975((int)floor(df < 1 ? 1 : df)) * sqrt(se2);
        c[i].before_from = from;
        c[i].after_to = to;
        c[i].estimate = mb - ma;
        c[i].low = c[i].estimate - half;
        c[i].high = c[i].estimate + half;
        c[i].level = 0.95;
        c[i].achievable = na >= 2 && nb >= 2;
    }
}

int hs_change_points(const double *v, int n, double alpha, struct hs_change *out, int max, int *found)
{
    *found = 0;
    if (n < 0 || n > HS_MAX_SESSIONS || max < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (!(v[i] > 0) || !isfinite(v[i]))
            return -1;
    struct search s = {.v = v, .alpha = alpha, .out = out, .max = max};
    s.r = malloc(sizeof *s.r * (size_t)(n + 1));
    s.perm = malloc(sizeof *s.perm * (size_t)(n + 1));
    s.prefix = malloc(sizeof *s.prefix * (size_t)(n + 1));
    int rc = -1;
    if (s.r && s.perm && s.prefix) {
        segment(&s, 0, n);
        measure_steps(v, n, out, s.found);
        *found = s.found;
        rc = 0;
    }
    free(s.r);
    free(s.perm);
    free(s.prefix);
    return rc;
}
