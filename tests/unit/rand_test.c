/*
 * rand_test.c: unit tests for lib/rand.c: reproducibility per (seed,
 * stream), range and rough uniformity of uniform draws, the shape of the
 * gaussian, special, pareto and zipfian distributions, unique values and
 * string templates.  Seeds are fixed, so results are deterministic.
 * Exits 1 with a message on the first failure; prints "N passed, 0 failed".
 */
#include "../../lib/rand.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define DRAWS 1000000

static void test_seeding(void)
{
    sb_rand a, b, c, d;
    sb_rand_seed(&a, 42, 0);
    sb_rand_seed(&b, 42, 0);
    sb_rand_seed(&c, 42, 1);
    sb_rand_seed(&d, 43, 0);
    int same_c = 0, same_d = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = sb_rand_u64(&a);
        CHECK(x == sb_rand_u64(&b), "same seed and stream must repeat (draw %d)", i);
        same_c += x == sb_rand_u64(&c);
        same_d += x == sb_rand_u64(&d);
    }
    CHECK(same_c == 0 && same_d == 0, "other stream/seed must differ (%d, %d)", same_c, same_d);

    /* Distributions are reproducible too. */
    sb_rand_seed(&a, 7, 3);
    sb_rand_seed(&b, 7, 3);
    for (int i = 0; i < 1000; i++) {
        CHECK(sb_rand_zipfian(&a, 1, 1000, 0.8) == sb_rand_zipfian(&b, 1, 1000, 0.8), "zipf repeat");
        CHECK(sb_rand_special(&a, 1, 1000, 12, 1, 75) == sb_rand_special(&b, 1, 1000, 12, 1, 75), "special");
        CHECK(sb_rand_unique(&a) == sb_rand_unique(&b), "unique repeat");
    }

    /* Negative streams are distinct streams too. */
    sb_rand_seed(&a, 42, -1);
    sb_rand_seed(&b, 42, 1);
    CHECK(sb_rand_u64(&a) != sb_rand_u64(&b), "stream -1 vs 1");

    /* Seed 0: from the clock, recorded so the run can be repeated. */
    sb_rand_seed(&a, 0, 5);
    CHECK(a.seed != 0 && a.stream == 5, "clock seed recorded");
    sb_rand_seed(&b, a.seed, 5);
    for (int i = 0; i < 100; i++)
        CHECK(sb_rand_u64(&a) == sb_rand_u64(&b), "clock seed replays");
}

static void test_uniform(void)
{
    sb_rand r;
    sb_rand_seed(&r, 1, 0);
    int hits[11] = { 0 };
    for (int i = 0; i < 100000; i++) {
        int64_t v = sb_rand_uniform(&r, -5, 5);
        CHECK(v >= -5 && v <= 5, "out of range %lld", (long long)v);
        hits[v + 5]++;
    }
    for (int i = 0; i < 11; i++)
        CHECK(hits[i] > 8000 && hits[i] < 10200, "value %d hit %d times", i - 5, hits[i]);

    int top[3] = { 0 };
    for (int i = 0; i < 3000; i++) {
        int64_t v = sb_rand_uniform(&r, INT64_MAX - 2, INT64_MAX);
        CHECK(v >= INT64_MAX - 2, "top range");
        top[INT64_MAX - v]++;
        v = sb_rand_uniform(&r, INT64_MIN, INT64_MIN + 1);
        CHECK(v == INT64_MIN || v == INT64_MIN + 1, "bottom range");
    }
    CHECK(top[0] && top[1] && top[2], "top range ends");
    int neg = 0;
    for (int i = 0; i < 1000; i++)
        neg += sb_rand_uniform(&r, INT64_MIN, INT64_MAX) < 0;
    CHECK(neg > 400 && neg < 600, "full int64 range");
    CHECK(sb_rand_uniform(&r, 7, 7) == 7, "degenerate range");
    for (int i = 0; i < 100; i++) {
        int64_t v = sb_rand_uniform(&r, 10, 1);
        CHECK(v >= 1 && v <= 10, "swapped bounds");
    }

    /* Chi-square over 10 bins, 9 degrees of freedom: 27.88 is p = 0.001. */
    long bins[10] = { 0 }, dbins[10] = { 0 };
    for (int i = 0; i < DRAWS; i++) {
        bins[sb_rand_uniform(&r, 0, 999) / 100]++;
        double d = sb_rand_double(&r);
        CHECK(d >= 0.0 && d < 1.0, "double range");
        dbins[(int)(d * 10)]++;
    }
    double chi = 0, dchi = 0, e = DRAWS / 10.0;
    for (int i = 0; i < 10; i++) {
        chi += (bins[i] - e) * (bins[i] - e) / e;
        dchi += (dbins[i] - e) * (dbins[i] - e) / e;
    }
    CHECK(chi < 27.88, "uniform chi-square %.2f", chi);
    CHECK(dchi < 27.88, "double chi-square %.2f", dchi);

    /* A range that is not a power of two near 2^63: no modulo bias means
     * both halves get about half. */
    int64_t b = (INT64_C(3) << 61);  /* 3 * 2^61 values: biased mod would skew */
    long low = 0;
    for (int i = 0; i < 200000; i++)
        low += sb_rand_uniform(&r, 0, b - 1) < b / 2;
    CHECK(low > 98000 && low < 102000, "halves %ld", low);
}

static void test_gaussian(void)
{
    sb_rand r;
    sb_rand_seed(&r, 2, 0);
    double sum = 0;
    long middle = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t v = sb_rand_gaussian(&r, 1, 999, 12);
        CHECK(v >= 1 && v <= 999, "gaussian out of range");
        sum += (double)v;
        middle += v >= 334 && v <= 666;
    }
    double mean = sum / DRAWS;
    CHECK(fabs(mean - 500) < 5, "gaussian mean %.2f", mean);
    CHECK(middle > DRAWS * 0.8, "middle third has %.3f of the mass", (double)middle / DRAWS);
    /* iter 1 is uniform */
    middle = 0;
    for (int i = 0; i < 100000; i++) {
        int64_t v = sb_rand_gaussian(&r, 1, 999, 1);
        middle += v >= 334 && v <= 666;
    }
    CHECK(middle > 32000 && middle < 34700, "iter 1 is uniform (%ld)", middle);
    /* extreme range does not overflow */
    double m = 0; /* in units of 2^63; one draw has sd 1/6 */
    for (int i = 0; i < 1000; i++)
        m += (double)sb_rand_gaussian(&r, INT64_MIN, INT64_MAX, 12) / 0x1.0p63 / 1000;
    CHECK(fabs(m) < 0.03, "full-range gaussian mean %g (units of 2^63)", m);
}

static void check_special(sb_rand *r, double pct, double res, double lo_share, double hi_share)
{
    const int64_t a = 1, b = 100000;
    const int64_t n = b - a + 1;
    int64_t d = (int64_t)floor(n * pct / 100);
    int64_t start = a + (n - d) / 2;
    long in_block = 0, below = 0, above = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t v = sb_rand_special(r, a, b, 12, pct, res);
        CHECK(v >= a && v <= b, "special out of range");
        if (v < start)
            below++;
        else if (v >= start + d)
            above++;
        else
            in_block++;
    }
    double share = (double)in_block / DRAWS;
    CHECK(share >= lo_share && share <= hi_share,
          "pct %g res %g: block of %lld values got %.4f of draws", pct, res, (long long)d, share);
    CHECK(below > 0 && above > 0, "values outside the block occur");
}

static void test_special(void)
{
    sb_rand r;
    sb_rand_seed(&r, 3, 0);
    /* res% plus the gaussian's own mass on the block (about 5% and 24% of
     * the remaining draws for these two settings) */
    check_special(&r, 1, 75, 0.75, 0.78);
    check_special(&r, 5, 90, 0.91, 0.935);
    /* degenerate inputs */
    CHECK(sb_rand_special(&r, 5, 5, 12, 1, 75) == 5, "one value");
    for (int i = 0; i < 1000; i++) {
        int64_t v = sb_rand_special(&r, 1, 10, 12, 1, 75);
        CHECK(v >= 1 && v <= 10, "tiny range");
        v = sb_rand_special(&r, INT64_MIN, INT64_MAX, 12, 1, 75);
        (void)v;
    }
}

static void test_pareto(void)
{
    sb_rand r;
    sb_rand_seed(&r, 4, 0);
    long low10 = 0, low20 = 0, hit_a = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t v = sb_rand_pareto(&r, 1, 1000, 0.2);
        CHECK(v >= 1 && v <= 1000, "pareto out of range %lld", (long long)v);
        low10 += v <= 100;
        low20 += v <= 200;
        hit_a += v == 1;
    }
    CHECK(low10 > DRAWS * 0.5, "pareto lowest 10%% got %.3f", (double)low10 / DRAWS);
    CHECK(fabs((double)low20 / DRAWS - 0.8) < 0.01, "pareto 80/20: %.3f", (double)low20 / DRAWS);
    CHECK(hit_a > 0, "pareto reaches a");
    long t = 0;
    for (int i = 0; i < 100000; i++)
        t += sb_rand_pareto(&r, 1, 10, 0.5) <= 5; /* h 0.5 is uniform */
    CHECK(t > 48500 && t < 51500, "pareto h=0.5 uniform (%ld)", t);
}

static void test_zipfian(void)
{
    sb_rand r;
    sb_rand_seed(&r, 5, 0);
    long low10 = 0, c1 = 0, c2 = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t v = sb_rand_zipfian(&r, 1, 1000, 0.8);
        CHECK(v >= 1 && v <= 1000, "zipf out of range %lld", (long long)v);
        low10 += v <= 100;
        c1 += v == 1;
        c2 += v == 2;
    }
    CHECK(low10 > DRAWS * 0.3, "zipf lowest 10%% got %.3f", (double)low10 / DRAWS);
    double ratio = (double)c1 / (double)c2;
    CHECK(fabs(ratio - pow(2, 0.8)) < 0.05, "P(1)/P(2) = %.3f, want %.3f", ratio, pow(2, 0.8));

    /* Exact pmf on a small range, several exponents (1.0 included): chi-square
     * with 9 degrees of freedom under 27.88 (p = 0.001). */
    static const double thetas[] = { 0.5, 0.8, 1.0, 1.5, 3.0 };
    for (size_t t = 0; t < sizeof thetas / sizeof thetas[0]; t++) {
        double th = thetas[t], z = 0, pmf[10];
        long cnt[10] = { 0 };
        for (int k = 1; k <= 10; k++)
            z += pow(k, -th);
        for (int k = 1; k <= 10; k++)
            pmf[k - 1] = pow(k, -th) / z;
        const int n = 500000;
        for (int i = 0; i < n; i++) {
            int64_t v = sb_rand_zipfian(&r, 11, 20, th);
            CHECK(v >= 11 && v <= 20, "zipf small range");
            cnt[v - 11]++;
        }
        double chi = 0;
        for (int k = 0; k < 10; k++) {
            double e = pmf[k] * n;
            chi += (cnt[k] - e) * (cnt[k] - e) / e;
        }
        CHECK(chi < 27.88, "zipf theta %g chi-square %.2f", th, chi);
    }

    /* Alternating ranges (cache invalidation) stay correct; huge ranges work. */
    for (int i = 0; i < 10000; i++) {
        int64_t v = sb_rand_zipfian(&r, 1, 10, 0.8), w = sb_rand_zipfian(&r, 100, 200, 0.9);
        CHECK(v >= 1 && v <= 10 && w >= 100 && w <= 200, "alternating ranges");
        int64_t x = sb_rand_zipfian(&r, 0, INT64_MAX - 1, 0.8);
        CHECK(x >= 0, "huge range");
    }
    CHECK(sb_rand_zipfian(&r, 9, 9, 0.8) == 9, "one value");
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_unique(void)
{
    sb_rand r;
    sb_rand_seed(&r, 6, 0);
    uint32_t *v = malloc(DRAWS * sizeof *v);
    CHECK(v != NULL, "malloc");
    for (int i = 0; i < DRAWS; i++)
        v[i] = sb_rand_unique(&r);
    /* not just a counter: consecutive values are scattered */
    long ascending = 0;
    for (int i = 1; i < DRAWS; i++)
        ascending += v[i] > v[i - 1];
    CHECK(ascending > DRAWS * 0.45 && ascending < DRAWS * 0.55, "unique looks random");
    qsort(v, DRAWS, sizeof *v, cmp_u32);
    for (int i = 1; i < DRAWS; i++)
        CHECK(v[i] != v[i - 1], "duplicate unique value %u", v[i]);
    free(v);
}

static void test_strings(void)
{
    sb_rand r;
    sb_rand_seed(&r, 7, 0);
    const char *tmpl = "###-@@@-xyz#";
    size_t tl = strlen(tmpl);
    char out[32];
    int digit_seen[10] = { 0 }, letter_seen[26] = { 0 };
    for (int i = 0; i < 10000; i++) {
        memset(out, '!', sizeof out);
        sb_rand_string(&r, tmpl, tl + 1, out);
        CHECK(out[tl] == '\0', "terminated");
        for (size_t k = 0; k < tl; k++) {
            if (tmpl[k] == '#') {
                CHECK(isdigit((unsigned char)out[k]), "digit at %zu: '%c'", k, out[k]);
                digit_seen[out[k] - '0'] = 1;
            } else if (tmpl[k] == '@') {
                CHECK(out[k] >= 'a' && out[k] <= 'z', "letter at %zu: '%c'", k, out[k]);
                letter_seen[out[k] - 'a'] = 1;
            } else {
                CHECK(out[k] == tmpl[k], "literal copied");
            }
        }
    }
    for (int i = 0; i < 10; i++)
        CHECK(digit_seen[i], "digit %d never produced", i);
    for (int i = 0; i < 26; i++)
        CHECK(letter_seen[i], "letter %c never produced", 'a' + i);

    /* len == strlen: exactly the template's length, no terminator */
    memset(out, '!', sizeof out);
    sb_rand_string(&r, tmpl, tl, out);
    CHECK(out[tl] == '!' && out[tl - 1] != '!', "no terminator when len == strlen");
    /* shorter len truncates */
    memset(out, '!', sizeof out);
    sb_rand_string(&r, tmpl, 4, out);
    CHECK(out[3] == '-' && out[4] == '!', "truncated to len");
    /* longer len stops at the template's end */
    memset(out, '!', sizeof out);
    sb_rand_string(&r, "@#", sizeof out, out);
    CHECK(strlen(out) == 2 && out[3] == '!', "stops at template end");

    char vs[65];
    int seen_min = 0, seen_max = 0;
    for (int i = 0; i < 10000; i++) {
        memset(vs, '!', sizeof vs);
        size_t n = sb_rand_varstring(&r, 5, 10, vs);
        CHECK(n >= 5 && n <= 10 && strlen(vs) == n, "varstring length %zu", n);
        for (size_t k = 0; k < n; k++)
            CHECK(isalnum((unsigned char)vs[k]), "varstring char");
        seen_min |= n == 5;
        seen_max |= n == 10;
    }
    CHECK(seen_min && seen_max, "varstring length ends");
    CHECK(sb_rand_varstring(&r, 0, 0, vs) == 0 && vs[0] == '\0', "empty varstring");
    CHECK(sb_rand_varstring(&r, 64, 64, vs) == 64 && vs[64] == '\0', "fixed varstring");
}

int main(void)
{
    test_seeding();
    PASS("seeding");
    test_uniform();
    PASS("uniform");
    test_gaussian();
    PASS("gaussian");
    test_special();
    PASS("special");
    test_pareto();
    PASS("pareto");
    test_zipfian();
    PASS("zipfian");
    test_unique();
    PASS("unique");
    test_strings();
    PASS("strings");
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
