/*
 * compare_stats_test.c: the statistics of `sbench compare`
 * (compare/compare_stats.c) against independent computations:
 *  - the exact distribution of Mann-Whitney's U against brute-force
 *    enumeration of every split of n+m ranks (a different algorithm);
 *  - the median's order-statistic interval against binomial sums;
 *  - the Hodges-Lehmann interval against the interval found by inverting
 *    the brute-force test over a grid of shifts;
 *  - simulated A/A comparisons (lognormal noise with outliers): the
 *    false-positive rate is the test's exact size (within 4 standard
 *    errors); simulated known shifts: the interval covers the true
 *    shift as often as its exact level says, and a 20% shift is found
 *    about as often as measured when this test was written.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../compare/compare_stats.h"

static int failures, checks;

#define CHECK(cond, ...)                        \
    do {                                        \
        checks++;                               \
        if (!(cond)) {                          \
            failures++;                         \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                \
            printf("\n");                       \
        }                                       \
    } while (0)

/* brute force: over every subset of size n of ranks 1..n+m (bit masks),
 * U = rank sum - n(n+1)/2; counts[u]++ */
static void brute_counts(int n, int m, double *counts)
{
    int N = n + m;
    for (int u = 0; u <= n * m; u++)
        counts[u] = 0;
    for (uint32_t mask = 0; mask < (1u << N); mask++) {
        if (__builtin_popcount(mask) != n)
            continue;
        int s = 0;
        for (int i = 0; i < N; i++)
            if (mask & (1u << i))
                s += i + 1;
        counts[s - n * (n + 1) / 2]++;
    }
}

static void test_mw_cdf(void)
{
    double c[200];
    for (int n = 1; n <= 7; n++)
        for (int m = 1; m <= 7; m++) {
            brute_counts(n, m, c);
            double total = 0, cum = 0;
            for (int u = 0; u <= n * m; u++)
                total += c[u];
            for (int u = 0; u <= n * m; u++) {
                cum += c[u];
                double got = cmp_mw_cdf(n, m, u);
                CHECK(fabs(got - cum / total) < 1e-12, "P(U<=%d | %d,%d) = %g, brute force %g", u, n, m, got,
                      cum / total);
            }
        }
    CHECK(fabs(cmp_mw_cdf(3, 3, 0) - 1.0 / 20) < 1e-15, "P(U<=0|3,3) = 1/20");
    CHECK(cmp_min_repeats(0.95) == 4, "4 repeats per side reach 95%% (got %d)", cmp_min_repeats(0.95));
    CHECK(cmp_mw_cdf(0, 3, 0) < 0, "bad size refused");
}

static double binom_cdf(int n, int k)
{
    double s = 0;
    for (int i = 0; i <= k; i++) {
        double c = 1;
        for (int j = 0; j < i; j++)
            c = c * (n - j) / (j + 1);
        s += c;
    }
    return s / pow(2, n);
}

static void test_median_ci(void)
{
    double x[40];
    for (int n = 1; n <= 40; n++) {
        for (int i = 0; i < n; i++)
            x[i] = (double)((i * 7919) % n) + 0.5; /* a permutation of 0.5 .. n-0.5 */
        struct cmp_interval ci;
        cmp_median_ci(x, n, 0.95, &ci);
        /* independent: the largest k with coverage >= 0.95, else 1 */
        int k = 1;
        for (int kk = 1; kk <= (n + 1) / 2; kk++)
            if (1 - 2 * binom_cdf(n, kk - 1) >= 0.95)
                k = kk;
        CHECK(ci.low == k - 0.5 && ci.high == n - k + 0.5, "n=%d: interval [%g, %g], want [%g, %g]", n, ci.low,
              ci.high, k - 0.5, n - k + 0.5);
        CHECK(fabs(ci.level - (1 - 2 * binom_cdf(n, k - 1))) < 1e-12, "n=%d: level %g", n, ci.level);
    }
    double three[] = {3, 1, 2};
    CHECK(cmp_median(three, 3) == 2, "median of 3");
    double four[] = {4, 1, 3, 2};
    CHECK(cmp_median(four, 4) == 2.5, "median of 4");
}

/* brute-force two-sided exact test of b against a shifted by delta (on
 * logs): rejects at 5%? */
static int brute_rejects(const double *la, int n, const double *lb, int m, double delta, int *crit)
{
    double c[200];
    brute_counts(n, m, c);
    double total = 0;
    for (int u = 0; u <= n * m; u++)
        total += c[u];
    int k = -1;
    double cum = 0;
    for (int u = 0; u <= n * m; u++) {
        cum += c[u];
        if (cum / total <= 0.025 + 1e-12)
            k = u;
    }
    *crit = k;
    int U = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            U += lb[j] - delta > la[i];
    return k >= 0 && (U <= k || U >= n * m - k);
}

static void test_hl_interval(void)
{
    double a[] = {100, 104, 97, 101, 99, 103}, b[] = {111, 108, 115, 109, 112, 110, 113};
    double la[7], lb[7];
    for (int n = 4; n <= 6; n++)
        for (int m = 4; m <= 7; m++) {
            for (int i = 0; i < n; i++)
                la[i] = log(a[i]);
            for (int j = 0; j < m; j++)
                lb[j] = log(b[j]);
            struct cmp_shift sh;
            CHECK(cmp_compare(a, n, b, m, 0.95, &sh) == 0, "compare");
            /* the accepted shifts on a fine grid lie within [low, high],
             * and shifts just inside both ends are accepted */
            int crit, bad = 0;
            for (double d = -0.05; d < 0.25; d += 0.0005) {
                int in = d >= sh.low && d < sh.high;
                int acc = !brute_rejects(la, n, lb, m, d, &crit);
                if (in != acc && fabs(d - sh.low) > 1e-9 && fabs(d - sh.high) > 1e-9)
                    bad++;
            }
            CHECK(bad == 0, "n=%d m=%d: %d grid shifts disagree with the interval [%g, %g]", n, m, bad, sh.low,
                  sh.high);
            CHECK(sh.achievable && sh.significant && sh.low > 0, "n=%d m=%d: b is faster", n, m);
        }
    double x[] = {5, 6, 7};
    struct cmp_shift sh;
    cmp_compare(x, 3, x, 3, 0.95, &sh);
    CHECK(!sh.achievable && !sh.significant, "3 vs 3 cannot reach 95%%");
    double y[] = {5, 6, 7, 8, 9};
    cmp_compare(y, 5, y, 5, 0.95, &sh);
    CHECK(sh.achievable && !sh.significant && sh.estimate == 0 && sh.p_value == 1,
          "A against itself: no difference (estimate %g, p %g)", sh.estimate, sh.p_value);
    double neg[] = {1, -1};
    CHECK(cmp_compare(neg, 2, y, 5, 0.95, &sh) != 0, "a negative throughput is refused");
}

/* xorshift + Box-Muller: no libc rand, reproducible */
static uint64_t rs = 88172645463325252ULL;
static double unif(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return ((rs >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}
/* a run's throughput: lognormal 5% noise, 1 in 10 runs 30% slower (a
 * neighbour on a shared machine) */
static double noisy(double mean)
{
    return mean * exp(0.05 * gauss()) * (unif() < 0.1 ? 0.7 : 1);
}

static void test_simulated(void)
{
    const int trials = 20000;
    for (int n = 5; n <= 8; n += 3) {
        double c[200];
        brute_counts(n, n, c);
        double total = 0, cum = 0, size = 0;
        for (int u = 0; u <= n * n; u++)
            total += c[u];
        for (int u = 0; u <= n * n; u++) {
            cum += c[u];
            if (cum / total <= 0.025 + 1e-12)
                size = 2 * cum / total;
        }
        int fp = 0, covered = 0, found = 0;
        double a[8], b[8];
        for (int t = 0; t < trials; t++) {
            for (int i = 0; i < n; i++) {
                a[i] = noisy(1000);
                b[i] = noisy(1000);
            }
            struct cmp_shift sh;
            cmp_compare(a, n, b, n, 0.95, &sh);
            fp += sh.significant;
            for (int i = 0; i < n; i++)
                b[i] = noisy(1200);
            cmp_compare(a, n, b, n, 0.95, &sh);
            covered += sh.low <= log(1.2) && log(1.2) <= sh.high;
            found += sh.significant && sh.low > 0;
        }
        double rate = (double)fp / trials, se = sqrt(size * (1 - size) / trials);
        printf("n=%d: A/A false positives %.4f (exact size %.4f), coverage of a 20%% shift %.4f, found %.4f\n", n,
               rate, size, (double)covered / trials, (double)found / trials);
        CHECK(fabs(rate - size) < 4 * se, "n=%d: false-positive rate %.4f, exact size %.4f", n, rate, size);
        CHECK(size <= 0.05, "n=%d: exact size %.4f above 5%%", n, size);
        /* the interval's exact level is 1 - size */
        CHECK((double)covered / trials >= 1 - size - 4 * se, "n=%d: coverage %.4f below %.4f", n,
              (double)covered / trials, 1 - size);
        /* power with these outliers (measured: 0.59 at 5 repeats, 0.85 at 8) */
        CHECK((double)found / trials >= (n == 5 ? 0.5 : 0.8), "n=%d: a 20%% shift found in %.4f of trials", n,
              (double)found / trials);
    }
}

int main(void)
{
    test_mw_cdf();
    test_median_ci();
    test_hl_interval();
    test_simulated();
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
