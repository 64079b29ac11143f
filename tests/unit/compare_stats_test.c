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
 *    about as often as measured when this test was written;
 *  - the paired test: Wilcoxon's signed-rank distribution against every
 *    sign pattern enumerated, p-values against ones computed in Python
 *    from first principles, its interval against the inverted brute-force
 *    test, simulated interleaved A/A and a 5% shift;
 *  - Benjamini-Hochberg adjusted p-values against a hand computation.
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

/* ---- paired: Wilcoxon signed-rank, Hodges-Lehmann on Walsh averages ---- */

/* brute force: every one of the 2^n sign patterns of ranks 1..n, T+ =
 * the sum of the ranks given a + sign; counts[t]++ */
static void brute_sr_counts(int n, double *counts)
{
    for (int t = 0; t <= n * (n + 1) / 2; t++)
        counts[t] = 0;
    for (uint32_t mask = 0; mask < (1u << n); mask++) {
        int t = 0;
        for (int i = 0; i < n; i++)
            if (mask & (1u << i))
                t += i + 1;
        counts[t]++;
    }
}

static void test_sr_cdf(void)
{
    double c[200];
    for (int n = 1; n <= 14; n++) {
        brute_sr_counts(n, c);
        double cum = 0, total = pow(2, n);
        for (int t = 0; t <= n * (n + 1) / 2; t++) {
            cum += c[t];
            double got = cmp_sr_cdf(n, t);
            CHECK(fabs(got - cum / total) < 1e-12, "P(T+<=%d | n=%d) = %g, brute force %g", t, n, got, cum / total);
        }
    }
    /* the tables' two-sided 5% critical values: n=8 -> 3, n=10 -> 8 */
    CHECK(fabs(cmp_sr_cdf(8, 3) - 5.0 / 256) < 1e-15 && cmp_sr_cdf(8, 4) > 0.025, "n=8: critical value 3");
    CHECK(fabs(cmp_sr_cdf(10, 8) - 25.0 / 1024) < 1e-15 && cmp_sr_cdf(10, 9) > 0.025, "n=10: critical value 8");
    CHECK(cmp_min_pairs(0.95) == 6, "6 pairs reach 95%% (got %d)", cmp_min_pairs(0.95));
}

/*
 * p-values computed independently, in Python from first principles (every
 * sign pattern of the mid ranks of |d| enumerated, d = log(b) - log(a),
 * as in the code, so that 101/100 and 100/101 tie exactly):
 *   def exact_p(d):
 *       d = [x for x in d if x != 0]; absd = sorted(abs(x) for x in d)
 *       rank = lambda v: sum(x < v for x in absd) + (sum(x == v for x in absd) + 1) / 2
 *       r = [rank(abs(x)) for x in d]; t = sum(q for q, x in zip(r, d) if x > 0)
 *       sums = [sum(q for q, s in zip(r, signs) if s) for signs in product([0, 1], repeat=len(d))]
 *       return t, min(1, 2 * min(sum(s <= t for s in sums), sum(s >= t for s in sums)) / len(sums))
 * The second set has tied |d| (mid ranks 5.5 and 2.5), the third no shift.
 */
static void test_paired_known(void)
{
    static const struct {
        int n;
        double a[10], b[10], t, p;
    } cases[] = {
        {8, {100, 104, 97, 101, 99, 103, 102, 98}, {103, 108, 99, 104, 101, 108, 104, 101}, 36.0, 0.0078125},
        {10, {100, 104, 97, 101, 99, 103, 102, 98, 105, 96}, {101, 103, 99, 100, 101, 104, 101, 99, 106, 97}, 43.0,
         0.125},
        {6, {500, 520, 480, 510, 490, 530}, {505, 515, 490, 500, 495, 540}, 15.0, 0.4375},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cmp_shift sh;
        CHECK(cmp_compare_paired(cases[i].a, cases[i].b, cases[i].n, 0.95, &sh) == 0, "paired compare");
        CHECK(sh.paired && sh.n == cases[i].n && fabs(sh.u - cases[i].t) < 1e-12, "case %zu: T+ %g, want %g", i,
              sh.u, cases[i].t);
        CHECK(fabs(sh.p_value - cases[i].p) < 1e-12, "case %zu: p %.10g, want %.10g", i, sh.p_value, cases[i].p);
        CHECK(sh.significant == (sh.p_value <= 0.05), "case %zu: interval [%g, %g] and p %g disagree", i, sh.low,
              sh.high, sh.p_value);
    }
    /* the interval inverts the test: shifting b by its ends flips the
     * verdict (brute-force T+ over the 2^8 patterns) */
    double a[8], b[8], d[8];
    for (int i = 0; i < 8; i++) {
        a[i] = cases[0].a[i];
        b[i] = cases[0].b[i];
    }
    struct cmp_shift sh;
    cmp_compare_paired(a, b, 8, 0.95, &sh);
    double c[40];
    brute_sr_counts(8, c);
    int bad = 0;
    for (double delta = -0.02; delta < 0.08; delta += 0.0002) {
        for (int i = 0; i < 8; i++)
            d[i] = log(b[i] / a[i]) - delta;
        int t = 0;
        for (int i = 0; i < 8; i++) { /* ranks of |d| (no ties on this grid but at the ends) */
            int r = 1;
            for (int j = 0; j < 8; j++)
                r += fabs(d[j]) < fabs(d[i]);
            t += d[i] > 0 ? r : 0;
        }
        double lo = 0, hi = 0;
        for (int v = 0; v <= 36; v++) {
            lo += v <= t ? c[v] : 0;
            hi += v >= t ? c[v] : 0;
        }
        int acc = 2 * fmin(lo, hi) / 256 > 0.05;
        int in = delta > sh.low + 1e-9 && delta < sh.high - 1e-9;
        if (in != acc && fabs(delta - sh.low) > 1e-4 && fabs(delta - sh.high) > 1e-4)
            bad++;
    }
    CHECK(bad == 0, "%d grid shifts disagree with the paired interval [%g, %g]", bad, sh.low, sh.high);
    double same[8] = {5, 6, 7, 8, 9, 10, 11, 12};
    cmp_compare_paired(same, same, 8, 0.95, &sh);
    CHECK(sh.p_value == 1 && !sh.significant && sh.estimate == 0, "A against itself, paired: no difference");
    double few[5] = {1, 2, 3, 4, 5};
    cmp_compare_paired(few, same, 5, 0.95, &sh);
    CHECK(!sh.achievable && !sh.significant, "5 pairs cannot reach 95%%");
    double neg[2] = {1, -1};
    CHECK(cmp_compare_paired(neg, same, 2, 0.95, &sh) != 0, "a negative throughput is refused");
}

/* Simulated interleaved pairs: each pair shares a machine factor (a slow
 * moment hits both runs; lognormal 8%, and 1 in 10 pairs 30% slower),
 * each run adds its own 3% noise.  A/A: the paired test's false-positive
 * rate is its exact size (<= 5%); a 5% shift: found more often paired than
 * by Mann-Whitney on the same runs (the pairing removes the shared part). */
static void test_paired_simulated(void)
{
    const int trials = 20000, n = 8;
    double c[40];
    brute_sr_counts(n, c);
    double cum = 0, size = 0;
    for (int t = 0; t <= n * (n + 1) / 2; t++) {
        cum += c[t];
        if (cum / 256 <= 0.025 + 1e-12)
            size = 2 * cum / 256;
    }
    int fp = 0, found_paired = 0, found_mw = 0, covered = 0;
    double a[8], b[8];
    for (int t = 0; t < trials; t++) {
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                double machine = 1000 * exp(0.08 * gauss()) * (unif() < 0.1 ? 0.7 : 1);
                a[i] = machine * exp(0.03 * gauss());
                b[i] = machine * exp(0.03 * gauss()) * (pass ? 1.05 : 1);
            }
            struct cmp_shift sh, mw;
            cmp_compare_paired(a, b, n, 0.95, &sh);
            if (pass == 0) {
                fp += sh.p_value <= 0.05;
                continue;
            }
            cmp_compare(a, n, b, n, 0.95, &mw);
            found_paired += sh.significant && sh.low > 0;
            found_mw += mw.significant && mw.low > 0;
            covered += sh.low <= log(1.05) && log(1.05) <= sh.high;
        }
    }
    double rate = (double)fp / trials, se = sqrt(size * (1 - size) / trials);
    printf("paired, %d pairs: A/A false positives %.4f (exact size %.4f); a 5%% shift found %.4f paired, %.4f "
           "unpaired; coverage %.4f\n", n, rate, size, (double)found_paired / trials, (double)found_mw / trials,
           (double)covered / trials);
    CHECK(size <= 0.05 && fabs(rate - size) < 4 * se, "paired: false-positive rate %.4f, exact size %.4f", rate,
          size);
    CHECK((double)covered / trials >= 1 - size - 4 * se, "paired: coverage %.4f", (double)covered / trials);
    CHECK(found_paired > 1.5 * found_mw, "pairing finds a 5%% shift more often (%d vs %d of %d)", found_paired,
          found_mw, trials);
}

/* Benjamini-Hochberg, by hand: p = .01 .04 .03 .005 (m = 4) -> sorted
 * .005 .01 .03 .04, times m/rank: .02 .02 .04 .04, cumulative minimum from
 * the top: the same. */
static void test_bh(void)
{
    double p[] = {0.01, 0.04, 0.03, 0.005}, q[4];
    CHECK(cmp_bh_adjust(p, 4, q) == 0, "bh");
    double want[] = {0.02, 0.04, 0.04, 0.02};
    for (int i = 0; i < 4; i++)
        CHECK(fabs(q[i] - want[i]) < 1e-15, "BH q[%d] = %g, want %g", i, q[i], want[i]);
    double p2[] = {0.5, 0.01, 0.9}, q2[3]; /* 0.01*3 = .03, 0.5*3/2 = .75, 0.9 */
    cmp_bh_adjust(p2, 3, q2);
    CHECK(fabs(q2[1] - 0.03) < 1e-15 && fabs(q2[0] - 0.75) < 1e-15 && fabs(q2[2] - 0.9) < 1e-15,
          "BH: %g %g %g", q2[0], q2[1], q2[2]);
}

int main(void)
{
    test_mw_cdf();
    test_median_ci();
    test_hl_interval();
    test_simulated();
    test_sr_cdf();
    test_paired_known();
    test_paired_simulated();
    test_bh();
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
