/*
 * histogram_test.c: unit tests for core/histogram.c.  Checks percentile
 * accuracy against exact percentiles of sorted data, exact count/sum/min/max,
 * merge and window subtraction, clamping, and the HdrHistogram layout.
 * Exits 1 with a message on the first failure; prints "N passed, 0 failed".
 */
#include "../../core/histogram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Test-local generator (splitmix64), independent of lib/rand.c. */
static uint64_t tstate = 12345;
static uint64_t next_u64(void)
{
    uint64_t z = (tstate += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double next_double(void) { return (double)(next_u64() >> 11) * 0x1.0p-53; }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

#define N 1000000
#define LO INT64_C(1000)            /* 1 us */
#define HI INT64_C(3600000000000)   /* 1 h */
#define TOP INT64_C(10000000000)    /* 10 s: top of the generated values */

static int64_t clampv(double v)
{
    if (v < (double)LO) return LO;
    if (v > (double)TOP) return TOP;
    return (int64_t)v;
}

enum { UNIFORM, EXPONENTIAL, BIMODAL, LOGUNIFORM, NSETS };
static const char *set_names[NSETS] = { "uniform", "exponential", "bimodal", "log-uniform" };

static void gen(int kind, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double u = next_double();
        switch (kind) {
        case UNIFORM: v[i] = clampv((double)LO + u * (double)(TOP - LO)); break;
        case EXPONENTIAL: v[i] = clampv((double)LO - log1p(-u) * 1e6); break; /* mean ~1 ms */
        case BIMODAL:
            if (u < 0.7)
                v[i] = clampv(150e3 + next_double() * 100e3);      /* 150-250 us */
            else
                v[i] = clampv(40e6 - log1p(-next_double()) * 20e6); /* >= 40 ms, long tail */
            break;
        default: v[i] = clampv(exp(log(1e3) + u * (log(1e10) - log(1e3)))); break;
        }
    }
}

static const double pcts[] = { 50, 90, 95, 99, 99.9, 99.99, 100 };
#define NPCTS (sizeof pcts / sizeof pcts[0])

static void test_accuracy(double precision)
{
    int64_t *v = malloc(N * sizeof *v);
    CHECK(v != NULL, "malloc");
    for (int kind = 0; kind < NSETS; kind++) {
        sb_histogram *h = sb_histogram_create(LO, HI, precision);
        CHECK(h != NULL, "create");
        gen(kind, v, N);
        int64_t sum = 0;
        for (size_t i = 0; i < N; i++) {
            sb_histogram_record(h, v[i]);
            sum += v[i];
        }
        qsort(v, N, sizeof *v, cmp_i64);
        CHECK(sb_histogram_count(h) == N, "count %llu", (unsigned long long)sb_histogram_count(h));
        CHECK(sb_histogram_sum(h) == sum, "sum");
        CHECK(sb_histogram_min(h) == v[0], "min %lld vs %lld", (long long)sb_histogram_min(h), (long long)v[0]);
        CHECK(sb_histogram_max(h) == v[N - 1], "max");
        CHECK(fabs(sb_histogram_mean(h) - (double)sum / N) < 1e-6 * (double)sum / N, "mean");

        double m = (double)sum / N, acc = 0;
        for (size_t i = 0; i < N; i++)
            acc += ((double)v[i] - m) * ((double)v[i] - m);
        double sd = sqrt(acc / N), hsd = sb_histogram_stddev(h);
        CHECK(fabs(hsd - sd) <= precision * sd + 1.0, "%s stddev %.1f vs exact %.1f",
              set_names[kind], hsd, sd);

        for (size_t k = 0; k < NPCTS; k++) {
            /* exact: value at rank ceil(pct/100*n), 1-based */
            uint64_t rank = sb_histogram_rank(pcts[k], N);
            CHECK(rank == (uint64_t)ceil(pcts[k] / 100.0 * N - 1e-6), "rank");
            int64_t exact = v[rank - 1];
            int64_t got = sb_histogram_percentile(h, pcts[k]);
            double err = (double)(got - exact) / (double)exact;
            CHECK(got >= exact && err <= precision,
                  "%s p%g precision %g: got %lld exact %lld err %g", set_names[kind],
                  pcts[k], precision, (long long)got, (long long)exact, err);
            CHECK(got >= v[0] && got <= v[N - 1], "percentile outside [min,max]");
        }
        sb_histogram_destroy(h);
    }
    free(v);
}

static void test_rank(void)
{
    CHECK(sb_histogram_rank(50, 10) == 5, "rank 50/10");
    CHECK(sb_histogram_rank(51, 10) == 6, "rank 51/10");
    CHECK(sb_histogram_rank(99.9, 1000000) == 999000, "rank 99.9");
    CHECK(sb_histogram_rank(99.99, 1000000) == 999900, "rank 99.99");
    CHECK(sb_histogram_rank(33.4, 1000) == 334, "rank 33.4");
    CHECK(sb_histogram_rank(100, 7) == 7, "rank 100");
    CHECK(sb_histogram_rank(0.0001, 7) == 1, "rank tiny");
    CHECK(sb_histogram_rank(150, 7) == 7, "rank >100");
    CHECK(sb_histogram_rank(50, 0) == 0, "rank empty");
}

static void test_merge(void)
{
    sb_histogram *all = sb_histogram_create(LO, HI, 0.01);
    sb_histogram *part[4], *merged = sb_histogram_clone_empty(all);
    CHECK(all && merged, "create");
    for (int k = 0; k < 4; k++) {
        part[k] = sb_histogram_clone_empty(all);
        CHECK(part[k] != NULL, "clone");
        CHECK(sb_histogram_same_layout(part[k], all), "layout");
    }
    int64_t v[1000];
    for (int round = 0; round < 200; round++) {
        gen(round % NSETS, v, 1000);
        for (int i = 0; i < 1000; i++) {
            sb_histogram_record(all, v[i]);
            sb_histogram_record(part[(i + round) % 4], v[i]);
        }
    }
    sb_histogram_record(part[2], 7);            /* below lowest */
    sb_histogram_record(all, 7);
    sb_histogram_record_n(part[3], HI * 2, 3);  /* above highest */
    sb_histogram_record_n(all, HI * 2, 3);
    for (int k = 0; k < 4; k++)
        CHECK(sb_histogram_add(merged, part[k]) == 0, "add");
    CHECK(sb_histogram_count(merged) == sb_histogram_count(all), "count");
    CHECK(sb_histogram_sum(merged) == sb_histogram_sum(all), "sum");
    CHECK(sb_histogram_min(merged) == 7 && sb_histogram_max(merged) == HI * 2, "min/max");
    int n = sb_histogram_bucket_count(all);
    for (int i = 0; i < n; i++)
        CHECK(sb_histogram_count_at(merged, i) == sb_histogram_count_at(all, i), "bucket %d", i);
    for (size_t k = 0; k < NPCTS; k++)
        CHECK(sb_histogram_percentile(merged, pcts[k]) == sb_histogram_percentile(all, pcts[k]), "pct");

    sb_histogram *other = sb_histogram_create(LO, HI, 0.001);
    CHECK(other != NULL, "create");
    CHECK(sb_histogram_add(merged, other) == -1, "layout mismatch must fail");
    CHECK(sb_histogram_subtract(merged, other) == -1, "layout mismatch must fail");
    CHECK(sb_histogram_count(merged) == sb_histogram_count(all), "unchanged");

    /* copy */
    sb_histogram *cp = sb_histogram_clone_empty(all);
    CHECK(cp && sb_histogram_count(cp) == 0, "clone empty");
    sb_histogram_copy(cp, all);
    CHECK(sb_histogram_count(cp) == sb_histogram_count(all) && sb_histogram_sum(cp) == sb_histogram_sum(all)
          && sb_histogram_min(cp) == 7 && sb_histogram_max(cp) == HI * 2, "copy summary");
    for (int i = 0; i < n; i++)
        CHECK(sb_histogram_count_at(cp, i) == sb_histogram_count_at(all, i), "copy bucket %d", i);
    sb_histogram_reset(cp);
    CHECK(sb_histogram_count(cp) == 0 && sb_histogram_sum(cp) == 0 && sb_histogram_min(cp) == 0
          && sb_histogram_max(cp) == 0 && sb_histogram_percentile(cp, 99) == 0
          && sb_histogram_mean(cp) == 0 && sb_histogram_stddev(cp) == 0, "reset");
    for (int i = 0; i < n; i++)
        CHECK(sb_histogram_count_at(cp, i) == 0, "reset bucket");

    for (int k = 0; k < 4; k++)
        sb_histogram_destroy(part[k]);
    sb_histogram_destroy(all);
    sb_histogram_destroy(merged);
    sb_histogram_destroy(other);
    sb_histogram_destroy(cp);
}

static void test_subtract(void)
{
    sb_histogram *cum = sb_histogram_create(LO, HI, 0.01);
    sb_histogram *second = sb_histogram_clone_empty(cum);
    CHECK(cum && second, "create");
    int64_t v[5000];
    gen(LOGUNIFORM, v, 5000);
    for (int i = 0; i < 5000; i++)
        sb_histogram_record(cum, v[i]);
    sb_histogram *snap1 = sb_histogram_clone_empty(cum);
    CHECK(snap1 != NULL, "clone");
    sb_histogram_copy(snap1, cum);

    gen(BIMODAL, v, 5000);
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (int i = 0; i < 5000; i++) {
        sb_histogram_record(cum, v[i]);
        sb_histogram_record(second, v[i]);
        if (v[i] < mn) mn = v[i];
        if (v[i] > mx) mx = v[i];
    }
    sb_histogram *win = sb_histogram_clone_empty(cum);
    CHECK(win != NULL, "clone");
    sb_histogram_copy(win, cum);
    CHECK(sb_histogram_subtract(win, snap1) == 0, "subtract");
    CHECK(sb_histogram_count(win) == 5000, "window count");
    CHECK(sb_histogram_sum(win) == sb_histogram_sum(second), "window sum");
    int n = sb_histogram_bucket_count(cum);
    for (int i = 0; i < n; i++)
        CHECK(sb_histogram_count_at(win, i) == sb_histogram_count_at(second, i), "window bucket %d", i);
    /* min/max come from bucket bounds: within one bucket of the exact ones */
    int64_t wmin = sb_histogram_min(win), wmax = sb_histogram_max(win);
    CHECK(wmin <= mn && sb_histogram_index_of(win, wmin) == sb_histogram_index_of(win, mn),
          "window min %lld vs %lld", (long long)wmin, (long long)mn);
    CHECK(wmax >= mx && sb_histogram_index_of(win, wmax) == sb_histogram_index_of(win, mx),
          "window max %lld vs %lld", (long long)wmax, (long long)mx);
    for (size_t k = 0; k < NPCTS; k++) {
        int64_t p = sb_histogram_percentile(win, pcts[k]);
        CHECK(p >= wmin && p <= wmax, "window percentile inside [min,max]");
        CHECK(sb_histogram_index_of(win, p) == sb_histogram_index_of(win, sb_histogram_percentile(second, pcts[k])),
              "window percentile bucket");
    }

    /* Window of nothing: empty. */
    sb_histogram_copy(win, cum);
    CHECK(sb_histogram_subtract(win, cum) == 0, "self subtract");
    CHECK(sb_histogram_count(win) == 0 && sb_histogram_min(win) == 0 && sb_histogram_max(win) == 0
          && sb_histogram_sum(win) == 0 && sb_histogram_percentile(win, 50) == 0, "empty window");

    /* src not a snapshot of dst: saturates and says so */
    sb_histogram_reset(win);
    sb_histogram_record(win, 5000);
    CHECK(sb_histogram_subtract(win, cum) == 1, "saturation reported");
    for (int i = 0; i < n; i++)
        CHECK(sb_histogram_count_at(win, i) == 0 || i == sb_histogram_index_of(win, 5000), "saturated bucket");

    sb_histogram_destroy(cum);
    sb_histogram_destroy(second);
    sb_histogram_destroy(snap1);
    sb_histogram_destroy(win);
}

static void test_min_max_clamp(void)
{
    sb_histogram *h = sb_histogram_create(LO, HI, 0.01);
    CHECK(h != NULL, "create");
    CHECK(sb_histogram_percentile(h, 50) == 0 && sb_histogram_min(h) == 0 && sb_histogram_max(h) == 0,
          "empty is 0");

    /* A single value: every percentile is exactly that value. */
    sb_histogram_record(h, 123457);
    for (size_t k = 0; k < NPCTS; k++)
        CHECK(sb_histogram_percentile(h, pcts[k]) == 123457, "single value p%g", pcts[k]);
    CHECK(sb_histogram_percentile(h, 0.0001) == 123457, "tiny pct");
    CHECK(sb_histogram_stddev(h) == 0.0, "stddev of one value %g", sb_histogram_stddev(h));

    /* All-equal values. */
    sb_histogram_reset(h);
    sb_histogram_record_n(h, 987654321, 1000);
    for (int i = 0; i < 1000; i++)
        sb_histogram_record(h, 987654321);
    CHECK(sb_histogram_count(h) == 2000, "count");
    CHECK(sb_histogram_sum(h) == INT64_C(987654321) * 2000, "sum");
    for (size_t k = 0; k < NPCTS; k++)
        CHECK(sb_histogram_percentile(h, pcts[k]) == 987654321, "all-equal p%g", pcts[k]);

    /* Out of range: counted in the first/last bucket, min/max/sum exact. */
    sb_histogram_reset(h);
    sb_histogram_record(h, 5);
    sb_histogram_record(h, -3);
    sb_histogram_record(h, HI * 100);
    CHECK(sb_histogram_min(h) == -3 && sb_histogram_max(h) == HI * 100, "exact min/max");
    CHECK(sb_histogram_sum(h) == 2 + HI * 100, "exact sum");
    int first = sb_histogram_index_of(h, LO), last = sb_histogram_index_of(h, HI);
    CHECK(sb_histogram_index_of(h, 5) == first && sb_histogram_index_of(h, INT64_MIN) == first, "low clamp");
    CHECK(sb_histogram_index_of(h, INT64_MAX) == last, "high clamp");
    CHECK(last < sb_histogram_bucket_count(h), "last index in range");
    CHECK(sb_histogram_count_at(h, first) == 2 && sb_histogram_count_at(h, last) == 1, "clamped counts");
    CHECK(sb_histogram_percentile(h, 50) >= -3 && sb_histogram_percentile(h, 50) <= HI * 100, "in [min,max]");
    CHECK(sb_histogram_percentile(h, 100) == sb_histogram_bucket_highest(h, last), "p100 is last bucket");
    CHECK(sb_histogram_percentile(h, 10) == sb_histogram_bucket_highest(h, first), "p10 is first bucket");

    /* Only a value below lowest: percentile clamped to it. */
    sb_histogram_reset(h);
    sb_histogram_record(h, 5);
    CHECK(sb_histogram_percentile(h, 50) == 5 && sb_histogram_percentile(h, 100) == 5, "clamped to min/max");

    /* n == 0 records nothing. */
    sb_histogram_record_n(h, 1, 0);
    CHECK(sb_histogram_count(h) == 1 && sb_histogram_min(h) == 5, "record_n 0");
    sb_histogram_destroy(h);
}

static void test_layout(void)
{
    /* Bad arguments. */
    CHECK(sb_histogram_create(0, 1000, 0.01) == NULL, "lowest 0");
    CHECK(sb_histogram_create(1000, 1999, 0.01) == NULL, "highest < 2*lowest");
    CHECK(sb_histogram_create(1000, HI, 0.0) == NULL, "precision 0");
    CHECK(sb_histogram_create(1000, HI, 1.0) == NULL, "precision 1");
    CHECK(sb_histogram_create(1000, HI, NAN) == NULL, "precision NaN");
    CHECK(sb_histogram_create(1000, HI, 1e-6) == NULL, "precision too fine");
    sb_histogram_destroy(NULL);

    /* HdrHistogram reference layout: hdr_init(1, 3600e6, 3) has sub bucket
     * count 2048, bucket count 22, counts length 23552. */
    sb_histogram *h = sb_histogram_create(1, INT64_C(3600000000), 0.001);
    CHECK(h != NULL, "create");
    sb_histogram_hdr_params p;
    sb_histogram_hdr_layout(h, &p);
    CHECK(p.significant_figures == 3 && p.lowest_discernible_value == 1 && p.unit_magnitude == 0, "params");
    CHECK(p.sub_bucket_count == 2048 && p.sub_bucket_half_count == 1024
          && p.sub_bucket_half_count_magnitude == 10, "sub buckets");
    CHECK(p.bucket_count == 22 && p.counts_len == 23552, "bucket_count %d counts_len %d",
          (int)p.bucket_count, (int)p.counts_len);
    CHECK(sb_histogram_bucket_count(h) == 23552, "bucket_count()");
    /* HdrHistogram's equivalent-value ranges at 3 significant digits. */
    static const int64_t eq[][2] = { { 8180, 8183 }, { 8191, 8191 }, { 8193, 8199 },
                                     { 9995, 9999 }, { 10007, 10007 }, { 10008, 10015 } };
    for (size_t k = 0; k < sizeof eq / sizeof eq[0]; k++)
        CHECK(sb_histogram_bucket_highest(h, sb_histogram_index_of(h, eq[k][0])) == eq[k][1],
              "highest equivalent of %lld", (long long)eq[k][0]);
    CHECK(sb_histogram_index_of(h, 2047) == 2047 && sb_histogram_index_of(h, 2048) == 2048
          && sb_histogram_index_of(h, 4096) == 3072, "counts index");
    sb_histogram_destroy(h);

    /* precision -> significant figures -> layout, and contiguous buckets
     * whose values map back to themselves. */
    static const struct { double prec; int s; int64_t unit; } cases[] = {
        { 0.1, 1, 100 }, { 0.05, 2, 50 }, { 0.01, 2, 10 }, { 0.001, 3, 1 }, { 0.0001, 4, 1 } };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        h = sb_histogram_create(LO, HI, cases[k].prec);
        CHECK(h != NULL, "create %g", cases[k].prec);
        sb_histogram_hdr_layout(h, &p);
        CHECK(p.significant_figures == cases[k].s, "sig figs for %g: %d", cases[k].prec, p.significant_figures);
        CHECK(p.lowest_discernible_value == cases[k].unit, "unit for %g", cases[k].prec);
        CHECK(p.sub_bucket_half_count >= pow(10, p.significant_figures), "half count covers 10^s");
        int first = sb_histogram_index_of(h, LO), last = sb_histogram_index_of(h, HI);
        CHECK(sb_histogram_bucket_lowest(h, 0) == 0, "starts at 0");
        for (int i = 0; i + 1 < sb_histogram_bucket_count(h); i++)
            CHECK(sb_histogram_bucket_lowest(h, i + 1) == sb_histogram_bucket_highest(h, i) + 1,
                  "contiguous at %d", i);
        for (int i = first; i <= last; i++) {
            int64_t lo = sb_histogram_bucket_lowest(h, i), hi = sb_histogram_bucket_highest(h, i);
            if (lo >= LO)
                CHECK(sb_histogram_index_of(h, lo) == i, "lowest maps back");
            if (hi <= HI)
                CHECK(sb_histogram_index_of(h, hi) == i, "highest maps back");
            /* relative width bound for buckets holding values >= lowest */
            int64_t from = lo > LO ? lo : LO;
            CHECK((double)(hi - from) / (double)from < cases[k].prec, "bucket %d too wide", i);
        }
        sb_histogram_destroy(h);
    }
}

int main(void)
{
    test_rank();
    PASS("rank");
    test_layout();
    PASS("layout");
    test_accuracy(0.01);
    PASS("accuracy at 1%");
    test_accuracy(0.001);
    PASS("accuracy at 0.1%");
    test_merge();
    PASS("merge/copy/reset");
    test_subtract();
    PASS("subtract");
    test_min_max_clamp();
    PASS("min/max/clamp");
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
