/*
 * compare_stats.h: the statistics of `sbench compare`, pure functions of
 * arrays of numbers (no I/O, nothing allocated that outlives a call).
 *
 * Throughput of one point (a target at a thread count) is summarised by the
 * median of its repeats with the distribution-free confidence interval of
 * the median (order statistics: [x(k), x(n+1-k)] with the binomial
 * coverage).  Two targets are compared with the exact two-sided
 * Mann-Whitney (Wilcoxon rank-sum) test on their repeats, and the size of
 * the difference is the Hodges-Lehmann estimate of the shift of
 * log(throughput) (the median of all pairwise differences) with its exact
 * confidence interval (Moses; the interval that inverts the same test).
 * Rank methods assume nothing about the shape of the run-to-run noise (on
 * a shared machine it has outliers and is not normal), their false
 * positive rate is at most alpha for any distribution, and the interval
 * and the test always agree.  Their price: with few repeats some
 * confidence levels cannot be reached (3 and 3 repeats: at best 90%); the
 * functions say so instead of pretending.
 */
#ifndef SB_COMPARE_STATS_H
#define SB_COMPARE_STATS_H

/* Largest number of repeats per side the exact distributions handle. */
#define CMP_STATS_MAX_N 200

/* Median of x[0..n-1] (the mean of the two middle values when n is
 * even); 0 when n == 0.  x is not modified. */
double cmp_median(const double *x, int n);

/* Confidence interval of the median from order statistics: low/high are
 * x(k) and x(n+1-k) (sorted, 1-based) for the largest k whose coverage
 * 1 - 2 P(Bin(n, 1/2) <= k-1) is at least conf; with too few values for
 * conf, k = 1 and level is the (lower) coverage of [min, max]. */
struct cmp_interval {
    double low, high;
    double level;               /* the coverage actually achieved */
};
void cmp_median_ci(const double *x, int n, double conf, struct cmp_interval *out);

/* Exact null distribution of the Mann-Whitney U statistic for sample
 * sizes n and m (no ties): P(U <= u).  u may be fractional (ties: mid
 * ranks), then P(U <= floor(u)).  n, m in 1..CMP_STATS_MAX_N.  Returns
 * -1 on bad sizes or when out of memory. */
double cmp_mw_cdf(int n, int m, double u);

/* b against a: the shift of log(b) - log(a). */
struct cmp_shift {
    int n, m;
    double u;                   /* U of b: pairs with b > a (ties 1/2) */
    double p_value;             /* exact two-sided */
    double estimate;            /* Hodges-Lehmann, log ratio b/a */
    double low, high;           /* the interval (log ratio); valid when achievable */
    double level;               /* its exact coverage (>= conf when achievable) */
    int achievable;             /* 0: n and m too small to reach conf */
    int significant;            /* achievable and the interval excludes 0 */
    int paired;                 /* 1: cmp_compare_paired (u is T+, n = m pairs) */
};

/*
 * Compares b[0..m-1] with a[0..n-1] (all > 0) at confidence conf (0.95).
 * Returns 0, or -1 when a size is out of range, a value is not positive,
 * or out of memory.
 */
int cmp_compare(const double *a, int n, const double *b, int m, double conf,
                struct cmp_shift *out);

/* Smallest number of repeats per side (both equal) at which conf can be
 * reached. */
int cmp_min_repeats(double conf);

/*
 * Paired: b[i] against a[i], i = 0..n-1 (runs made side by side, so a
 * slow moment of the machine hits both).  The exact two-sided Wilcoxon
 * signed-rank test on the differences d = log(b) - log(a) (zero
 * differences dropped, ties given mid ranks and the exact distribution of
 * T+ for those ranks), the Hodges-Lehmann estimate
 * (the median of the Walsh averages (d_i + d_j) / 2, i <= j) and its exact
 * interval (the Walsh averages of ranks k+1 and N-k, inverting the same
 * test, for untied differences).  out->u is T+, out->n = out->m = n, out->paired = 1.  Returns 0,
 * or -1 when n is out of range, a value is not positive, or out of memory.
 */
int cmp_compare_paired(const double *a, const double *b, int n, double conf, struct cmp_shift *out);

/* Exact null distribution of T+ for n nonzero differences: P(T+ <= t)
 * (fractional t: P(T+ <= floor(t))).  -1 on a bad n or out of memory. */
double cmp_sr_cdf(int n, double t);

/* Smallest number of pairs at which the signed-rank test can reach conf. */
int cmp_min_pairs(double conf);

/* Benjamini-Hochberg adjusted p-values of p[0..m-1] into q (the smallest
 * false discovery rate at which each would be rejected).  Returns 0, or -1
 * when out of memory. */
int cmp_bh_adjust(const double *p, int m, double *q);

#endif
