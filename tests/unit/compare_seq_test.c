/*
 * compare_seq_test.c: the sequential rule of `sbench compare
 * --repeats=auto` (compare/compare_seq.c) on simulated sequences of
 * repeats whose truth is known:
 *  - A/A (both targets the same lognormal noise, with outliers): the share
 *    of sequences that call a difference at any look is at most the stated
 *    5% (within 3 standard errors of the simulation), while the naive rule
 *    (95% at every look) is measured above it on the same sequences, so
 *    the check can fail;
 *  - a known 15% difference: stopped before the maximum, with the right
 *    sign, in nearly every sequence; its interval covers the true shift;
 *  - A/A with little noise: stopped early by the width, no difference;
 *  - the looks and levels against a hand computation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../compare/compare_seq.h"

static int failures, checks;

#define CHECK(cond, ...)                        \
    do {                                        \
        checks++;                               \
        if (!(cond)) {                          \
            failures++;                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);       \
            fputc('\n', stderr);                \
        }                                       \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

/* throughput 1000 * exp(shift + noise), noise normal with sd, and one
 * run in 20 a slow outlier (the machine's hiccup) */
static double draw(double shift, double sd)
{
    double z = sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
    double x = 1000 * exp(shift + sd * z);
    return uniform() < 0.05 ? x * 0.7 : x;
}

struct outcome {
    int n;          /* repeats per target when stopped */
    int called;     /* a difference called */
    double est, low, high;
};

/* One sequence up to max repeats; naive: 95% at every look instead. */
static struct outcome sequence(double shift, double sd, int max, double width, int naive)
{
    double a[CMP_STATS_MAX_N], b[CMP_STATS_MAX_N];
    struct outcome o = {0};
    int first = cmp_seq_first_look(max);
    for (int n = 1; n <= max; n++) {
        a[n - 1] = draw(0, sd);
        b[n - 1] = draw(shift, sd);
        if (n < (naive ? cmp_min_repeats(0.95) : first))
            continue;
        struct cmp_shift sh;
        int settled = naive ? (cmp_compare(a, n, b, n, 0.95, &sh) == 0 && sh.significant)
                            : cmp_seq_look(a, n, b, n, max, width, &sh);
        o = (struct outcome){n, sh.significant, sh.estimate, sh.low, sh.high};
        if (settled)
            break;
    }
    return o;
}

int main(void)
{
    /* max 20: at 6 repeats 1/C(12,6) = 1/924 <= 0.05/15/2; at 5,
     * 1/C(10,5) = 1/252 > 0.05/16/2 */
    CHECK(cmp_seq_first_look(20) == 6, "first look %d", cmp_seq_first_look(20));
    CHECK(cmp_seq_looks(20) == 15, "looks %d", cmp_seq_looks(20));
    CHECK(fabs(cmp_seq_conf(20) - (1 - 0.05 / 15)) < 1e-12, "conf %g", cmp_seq_conf(20));
    CHECK(cmp_seq_first_look(4) == 4 && cmp_seq_looks(4) == 1, "max 4: one look");

    const int sims = 1000, max = 20;
    int called = 0, naive_called = 0;
    for (int i = 0; i < sims; i++) {
        called += sequence(0, 0.03, max, 0.0, 0).called;
        naive_called += sequence(0, 0.03, max, 0.0, 1).called;
    }
    double se = sqrt(0.05 * 0.95 / sims);
    printf("A/A, %d sequences of up to %d repeats: sequential rule called %d (%.1f%%), naive 95%% per look %d (%.1f%%)\n",
           sims, max, called, 100.0 * called / sims, naive_called, 100.0 * naive_called / sims);
    CHECK(called <= sims * (0.05 + 3 * se), "A/A false calls %d of %d", called, sims);
    CHECK(naive_called > sims * (0.05 + 3 * se), "the naive rule's false calls %d of %d not above 5%%: the check "
                                                 "cannot tell a wrong rule", naive_called, sims);

    /* a known 15% difference at 3% noise */
    int right = 0, early = 0, covered = 0;
    long stop_sum = 0;
    for (int i = 0; i < 300; i++) {
        struct outcome o = sequence(log(1.15), 0.03, max, 5.0, 0);
        right += o.called && o.est > 0;
        early += o.n < max;
        covered += o.low <= log(1.15) && log(1.15) <= o.high;
        stop_sum += o.n;
    }
    printf("15%% faster: right verdict %d of 300, stopped before %d in %d, mean stop %.1f repeats, interval covers %d\n",
           right, max, early, stop_sum / 300.0, covered);
    CHECK(right >= 291, "right verdicts %d of 300", right);
    CHECK(early >= 291, "stopped early %d of 300", early);
    CHECK(covered >= 285, "covered %d of 300", covered);

    /* A/A at 0.5% noise, width 5%: settled by the width, no difference */
    int by_width = 0, aa_called = 0;
    for (int i = 0; i < 300; i++) {
        struct outcome o = sequence(0, 0.005, max, 5.0, 0);
        by_width += o.n < max && !o.called;
        aa_called += o.called;
    }
    printf("A/A at 0.5%% noise: stopped by the width %d of 300, called %d\n", by_width, aa_called);
    CHECK(by_width >= 250, "stopped by the width %d of 300", by_width);
    CHECK(aa_called <= 30, "called %d of 300", aa_called);

    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
