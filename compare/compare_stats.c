/*
 * compare_stats.c: medians, their order-statistic intervals, and the exact
 * Mann-Whitney test with the Hodges-Lehmann shift and its interval (see
 * compare_stats.h for why these).  The exact null distribution of U comes
 * from the Gaussian binomial coefficient [n+m choose n]_q, whose
 * coefficient of q^u counts the orderings of the two samples with U = u.
 */
#include "compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A sorted copy of x: owned by the caller (free), NULL when out of memory. */
static double *sorted_copy(const double *x, int n)
{
    double *s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
    if (s == NULL)
        return NULL;
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s;
}

double cmp_median(const double *x, int n)
{
    if (n <= 0)
        return 0;
    double *s = sorted_copy(x, n);
    if (s == NULL)
        return 0;
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

/* P(Bin(n, 1/2) <= k) */
static double binom_half_cdf(int n, int k)
{
    double p = 0, c = 1; /* C(n, i) */
    for (int i = 0; i <= k && i <= n; i++) {
        p += c;
        c = c * (n - i) / (i + 1);
    }
    return p / pow(2.0, n);
}

void cmp_median_ci(const double *x, int n, double conf, struct cmp_interval *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return;
    double *s = sorted_copy(x, n);
    if (s == NULL)
        return;
    int k = 1;
    while (k + 1 <= (n + 1) / 2 && 1 - 2 * binom_half_cdf(n, k) >= conf)
        k++;
    out->low = s[k - 1];
    out->high = s[n - k];
    out->level = 1 - 2 * binom_half_cdf(n, k - 1);
    if (out->level > 1)
        out->level = 1;
    free(s);
}

/* The coefficients of [n+m choose n]_q, u = 0..n*m, into c (n*m+1
 * entries).  Returns 0, or -1 when out of memory. */
static int mw_counts(int n, int m, double *c)
{
    int deg = n * m;
    /* poly[k] = [N choose k]_q for the current N, k = 0..n */
    double *poly = calloc((size_t)(n + 1) * (size_t)(deg + 1), sizeof *poly);
    if (poly == NULL)
        return -1;
#define P(k) (poly + (size_t)(k) * (size_t)(deg + 1))
    P(0)[0] = 1;
    for (int N = 1; N <= n + m; N++) {
        int kmax = N < n ? N : n;
        for (int k = kmax; k >= 1; k--) {
            /* [N,k] = [N-1,k-1] + q^k [N-1,k] */
            double *pk = P(k), *pk1 = P(k - 1);
            for (int u = deg; u >= 0; u--) {
                double shifted = u >= k ? pk[u - k] : 0;
                pk[u] = pk1[u] + shifted;
            }
        }
    }
    memcpy(c, P(n), sizeof *c * (size_t)(deg + 1));
#undef P
    free(poly);
    return 0;
}

double cmp_mw_cdf(int n, int m, double u)
{
    if (n < 1 || m < 1 || n > CMP_STATS_MAX_N || m > CMP_STATS_MAX_N)
        return -1;
    int deg = n * m;
    double *c = malloc(sizeof *c * (size_t)(deg + 1));
    if (c == NULL || mw_counts(n, m, c) != 0) {
        free(c);
        return -1;
    }
    double total = 0, below = 0;
    for (int v = 0; v <= deg; v++) {
        total += c[v];
        if (v <= floor(u))
            below += c[v];
    }
    free(c);
    return below / total;
}

int cmp_min_repeats(double conf)
{
    /* P(U <= 0) = 1 / C(2n, n) must be <= (1 - conf) / 2 */
    for (int n = 1; n <= CMP_STATS_MAX_N; n++) {
        double c = 1;
        for (int i = 1; i <= n; i++)
            c = c * (n + i) / i;
        if (1 / c <= (1 - conf) / 2)
            return n;
    }
    return CMP_STATS_MAX_N;
}

/* The interval of a shift from its null distribution, one rule for both
 * tests: v[0..nv) sorted (the pairwise differences, or the Walsh
 * averages), c[0..nv] the null counts of the statistic (of `total` in
 * all).  The critical value is the largest k with P(stat <= k) <=
 * (1 - conf) / 2; the interval is [v[k], v[nv-k-1]] with its exact level.
 * When no k reaches conf, the widest interval there is, [min, max], with
 * its (too low) coverage, not achievable. */
static void shift_interval(const double *v, int nv, const double *c, double total, double conf,
                           struct cmp_shift *out)
{
    double alpha2 = (1 - conf) / 2, cum = 0;
    int k = -1;
    for (int x = 0; x <= nv; x++) {
        cum += c[x];
        if (cum / total <= alpha2 + 1e-12)
            k = x;
        else
            break;
    }
    if (k >= 0 && k < nv - k) {
        double tail = 0;
        for (int x = 0; x <= k; x++)
            tail += c[x];
        out->achievable = 1;
        out->low = v[k];
        out->high = v[nv - k - 1];
        out->level = 1 - 2 * tail / total;
        out->significant = out->low > 0 || out->high < 0;
    } else {
        out->low = v[0];
        out->high = v[nv - 1];
        out->level = 1 - 2 * c[0] / total;
    }
}

int cmp_compare(const double *a, int n, const double *b, int m, double conf,
                struct cmp_shift *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->m = m;
    if (n < 1 || m < 1 || n > CMP_STATS_MAX_N || m > CMP_STATS_MAX_N)
        return -1;
    for (int i = 0; i < n; i++)
        if (!(a[i] > 0))
            return -1;
    for (int j = 0; j < m; j++)
        if (!(b[j] > 0))
            return -1;
    int nm = n * m;
    double *d = malloc(sizeof *d * (size_t)nm);
    double *c = malloc(sizeof *c * (size_t)(nm + 1));
    if (d == NULL || c == NULL || mw_counts(n, m, c) != 0) {
        free(d);
        free(c);
        return -1;
    }
    double u = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            d[i * m + j] = log(b[j]) - log(a[i]);
            u += b[j] > a[i] ? 1 : b[j] == a[i] ? 0.5 : 0;
        }
    qsort(d, (size_t)nm, sizeof *d, cmp_double);
    out->u = u;
    out->estimate = nm % 2 ? d[nm / 2] : (d[nm / 2 - 1] + d[nm / 2]) / 2;

    double total = 0;
    for (int v = 0; v <= nm; v++)
        total += c[v];
    /* exact two-sided p: twice the smaller tail at u (mid ranks: the
     * tails at floor and ceil) */
    double lo_tail = 0, hi_tail = 0;
    for (int v = 0; v <= nm; v++) {
        if (v <= floor(u))
            lo_tail += c[v];
        if (v >= ceil(u))
            hi_tail += c[v];
    }
    double p = 2 * fmin(lo_tail, hi_tail) / total;
    out->p_value = p > 1 ? 1 : p;

    shift_interval(d, nm, c, total, conf, out);
    free(d);
    free(c);
    return 0;
}

/* Counts of subsets of {1..n} by their sum t = 0..n(n+1)/2 into c (the
 * null distribution of Wilcoxon's T+: every sign pattern equally likely). */
static void sr_counts(int n, double *c)
{
    int deg = n * (n + 1) / 2;
    for (int t = 0; t <= deg; t++)
        c[t] = t == 0;
    for (int i = 1; i <= n; i++)
        for (int t = i * (i + 1) / 2; t >= i; t--)
            c[t] += c[t - i];
}

double cmp_sr_cdf(int n, double t)
{
    if (n < 1 || n > CMP_STATS_MAX_N)
        return -1;
    int deg = n * (n + 1) / 2;
    double *c = malloc(sizeof *c * (size_t)(deg + 1));
    if (c == NULL)
        return -1;
    sr_counts(n, c);
    double below = 0, total = 0;
    for (int v = 0; v <= deg; v++) {
        total += c[v];
        if (v <= floor(t))
            below += c[v];
    }
    free(c);
    return below / total;
}

int cmp_min_pairs(double conf)
{
    /* P(T+ <= 0) = 2^-n must be <= (1 - conf) / 2 */
    int n = 1;
    while (n < CMP_STATS_MAX_N && pow(0.5, n) > (1 - conf) / 2)
        n++;
    return n;
}

/* The exact two-sided signed-rank p-value of the differences d[0..n-1]:
 * zero differences dropped, ties in |d| given mid ranks, and the null
 * distribution of T+ for those very ranks (every sign pattern equally
 * likely; doubled ranks keep the sums integers).  *t gets T+.  Returns the
 * p-value, 1 when every difference is 0, -1 when out of memory. */
static double signed_rank_p(const double *d, int n, double *t)
{
    int *r2 = malloc(sizeof *r2 * (size_t)(n > 0 ? n : 1));
    double *c = malloc(sizeof *c * (size_t)(n * (n + 1) + 1));
    if (r2 == NULL || c == NULL) {
        free(r2);
        free(c);
        return -1;
    }
    int k = 0, t2 = 0;
    for (int i = 0; i < n; i++) {
        if (d[i] == 0)
            continue;
        int below = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            below += d[j] != 0 && fabs(d[j]) < fabs(d[i]);
            equal += d[j] != 0 && fabs(d[j]) == fabs(d[i]);
        }
        r2[k] = 2 * below + equal + 1; /* twice the mid rank of the tied group */
        t2 += d[i] > 0 ? r2[k] : 0;
        k++;
    }
    *t = t2 / 2.0;
    double p = 1;
    if (k > 0) {
        int deg = k * (k + 1); /* the sum of all doubled ranks */
        for (int v = 0; v <= deg; v++)
            c[v] = v == 0;
        int reach = 0;
        for (int i = 0; i < k; i++) {
            reach += r2[i];
            for (int v = reach; v >= r2[i]; v--)
                c[v] += c[v - r2[i]];
        }
        double total = 0, lo_tail = 0, hi_tail = 0;
        for (int v = 0; v <= deg; v++) {
            total += c[v];
            lo_tail += v <= t2 ? c[v] : 0;
            hi_tail += v >= t2 ? c[v] : 0;
        }
        p = 2 * fmin(lo_tail, hi_tail) / total;
        p = p > 1 ? 1 : p;
    }
    free(r2);
    free(c);
    return p;
}

int cmp_compare_paired(const double *a, const double *b, int n, double conf, struct cmp_shift *out)
{
    memset(out, 0, sizeof *out);
    out->n = out->m = n;
    out->paired = 1;
    if (n < 1 || n > CMP_STATS_MAX_N)
        return -1;
    for (int i = 0; i < n; i++)
        if (!(a[i] > 0) || !(b[i] > 0))
            return -1;
    int nw = n * (n + 1) / 2;
    double *d = malloc(sizeof *d * (size_t)n), *w = malloc(sizeof *w * (size_t)nw);
    double *c = malloc(sizeof *c * (size_t)(nw + 1));
    if (d == NULL || w == NULL || c == NULL) {
        free(d);
        free(w);
        free(c);
        return -1;
    }
    for (int i = 0; i < n; i++)
        d[i] = log(b[i]) - log(a[i]);
    /* Walsh averages: the Hodges-Lehmann estimate is their median */
    int q = 0;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            w[q++] = (d[i] + d[j]) / 2;
    qsort(w, (size_t)nw, sizeof *w, cmp_double);
    out->estimate = nw % 2 ? w[nw / 2] : (w[nw / 2 - 1] + w[nw / 2]) / 2;

    double t = 0, p = signed_rank_p(d, n, &t);
    if (p < 0) {
        free(d);
        free(w);
        free(c);
        return -1;
    }
    out->u = t;
    out->p_value = p;
    /* the interval: Walsh averages k+1 and nw-k (1-based) for the largest
     * k with P(T+ <= k) <= (1 - conf) / 2, over all n pairs */
    sr_counts(n, c);
    shift_interval(w, nw, c, pow(2.0, n), conf, out);
    free(d);
    free(w);
    free(c);
    return 0;
}

int cmp_bh_adjust(const double *p, int m, double *q)
{
    if (m <= 0)
        return 0;
    int *order = malloc(sizeof *order * (size_t)m);
    if (order == NULL)
        return -1;
    for (int i = 0; i < m; i++)
        order[i] = i;
    /* indices by increasing p (insertion sort: m is a few hundred at most) */
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && p[order[j - 1]] > p[order[j]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    double running = 1;
    for (int r = m; r >= 1; r--) {
        double v = p[order[r - 1]] * m / r;
        running = v < running ? v : running;
        q[order[r - 1]] = running;
    }
    free(order);
    return 0;
}
