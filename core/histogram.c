/*
 * histogram.c: log-linear latency histogram with HdrHistogram's counts-array
 * layout; see histogram.h for the layout, the precision guarantee and the
 * single-writer / many-reader concurrency rules.
 */
#include "histogram.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RELAXED memory_order_relaxed


/* ---- small helpers ----------------------------------------------------- */

static inline int floor_log2(uint64_t x) /* x != 0 */
{
    return 63 - sb_hist_clz64(x);
}

/* Converts a two's-complement bit pattern back to int64 without relying on
 * implementation-defined conversion. */
static inline int64_t u2i(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

static inline uint64_t ld(const _Atomic uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *)p, RELAXED);
}

static inline int64_t ldi(const _Atomic int64_t *p)
{
    return atomic_load_explicit((_Atomic int64_t *)p, RELAXED);
}

/* HdrHistogram bucket (power-of-two group) of counts index i, and the
 * lowest value at that index. */
static inline int64_t index_lowest(const sb_histogram *h, int32_t i, int *bucket_out)
{
    int bucket = (i >> h->sub_bucket_half_count_magnitude) - 1;
    int32_t sub = (i & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
    if (bucket < 0) {
        sub -= h->sub_bucket_half_count;
        bucket = 0;
    }
    *bucket_out = bucket;
    return (int64_t)sub << (bucket + h->unit_magnitude);
}

static inline int64_t index_highest(const sb_histogram *h, int32_t i)
{
    int bucket;
    int64_t lo = index_lowest(h, i, &bucket);
    return lo + ((INT64_C(1) << (bucket + h->unit_magnitude)) - 1);
}

/* ---- creation ---------------------------------------------------------- */

sb_histogram *sb_histogram_create(int64_t lowest, int64_t highest, double precision)
{
    if (lowest < 1 || highest > (INT64_C(1) << 62) || highest / 2 < lowest)
        return NULL;
    if (!(precision > 0.0 && precision < 1.0)) /* also rejects NaN */
        return NULL;

    /* precision -> significant figures: smallest s with 10^-s <= precision
     * (the epsilon keeps 0.01 at 2 despite log10 rounding). */
    int s = (int)ceil(-log10(precision) - 1e-9);
    if (s < 1)
        s = 1;
    if (s > 5)
        return NULL;

    int64_t hdr_lowest = (int64_t)floor((double)lowest * precision);
    if (hdr_lowest < 1)
        hdr_lowest = 1;

    int64_t largest_single_unit = 2;
    for (int k = 0; k < s; k++)
        largest_single_unit *= 10;
    int count_mag = 0;                 /* ceil(log2(largest_single_unit)) */
    while ((INT64_C(1) << count_mag) < largest_single_unit)
        count_mag++;
    int half_mag = (count_mag > 1 ? count_mag : 1) - 1;
    int unit_mag = floor_log2((uint64_t)hdr_lowest);
    if (unit_mag + half_mag > 61)
        return NULL;

    int32_t sub_bucket_count = (int32_t)1 << (half_mag + 1);
    int32_t half_count = sub_bucket_count / 2;

    /* HdrHistogram's buckets_needed_to_cover_value(highest). */
    int64_t smallest_untrackable = (int64_t)sub_bucket_count << unit_mag;
    int32_t bucket_count = 1;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > INT64_MAX / 2) {
            bucket_count++;
            break;
        }
        smallest_untrackable <<= 1;
        bucket_count++;
    }
    int64_t counts_len = ((int64_t)bucket_count + 1) * half_count;
    if (counts_len > INT32_MAX / 2)
        return NULL;

    size_t size = offsetof(sb_histogram, counts) + (size_t)counts_len * sizeof(_Atomic uint64_t);
    size = (size + 63) / 64 * 64; /* aligned_alloc wants a multiple; 64 avoids false sharing */
    sb_histogram *h = aligned_alloc(64, size);
    if (!h)
        return NULL;

    h->lowest = lowest;
    h->highest = highest;
    h->precision = precision;
    h->hdr_lowest = hdr_lowest;
    h->sig_figs = s;
    h->unit_magnitude = unit_mag;
    h->sub_bucket_count_magnitude = half_mag + 1;
    h->sub_bucket_half_count_magnitude = half_mag;
    h->sub_bucket_count = sub_bucket_count;
    h->sub_bucket_half_count = half_count;
    h->bucket_count = bucket_count;
    h->counts_len = (int32_t)counts_len;
    h->sub_bucket_mask = (uint64_t)(sub_bucket_count - 1) << unit_mag;
    h->index_shift_base = unit_mag + half_mag + 1;

    atomic_init(&h->total, 0);
    atomic_init(&h->sum, 0);
    atomic_init(&h->min, INT64_MAX);
    atomic_init(&h->max, INT64_MIN);
    for (int32_t i = 0; i < h->counts_len; i++)
        atomic_init(&h->counts[i], 0);
    return h;
}

void sb_histogram_destroy(sb_histogram *h)
{
    free(h);
}

sb_histogram *sb_histogram_clone_empty(const sb_histogram *h)
{
    return sb_histogram_create(h->lowest, h->highest, h->precision);
}

int sb_histogram_same_layout(const sb_histogram *a, const sb_histogram *b)
{
    return a->lowest == b->lowest && a->highest == b->highest &&
           a->hdr_lowest == b->hdr_lowest && a->sig_figs == b->sig_figs &&
           a->counts_len == b->counts_len;
}

/* ---- recording (writer thread) ----------------------------------------- */

void sb_histogram_record_n(sb_histogram *h, int64_t value, uint64_t n)
{
    if (n)
        sb_histogram_record_many(h, value, n);
}

static void set_empty_summary(sb_histogram *h)
{
    atomic_store_explicit(&h->total, 0, RELAXED);
    atomic_store_explicit(&h->sum, 0, RELAXED);
    atomic_store_explicit(&h->min, INT64_MAX, RELAXED);
    atomic_store_explicit(&h->max, INT64_MIN, RELAXED);
}

void sb_histogram_reset(sb_histogram *h)
{
    for (int32_t i = 0; i < h->counts_len; i++)
        atomic_store_explicit(&h->counts[i], 0, RELAXED);
    set_empty_summary(h);
}

/* ---- combining --------------------------------------------------------- */

int sb_histogram_add(sb_histogram *dst, const sb_histogram *src)
{
    if (!sb_histogram_same_layout(dst, src))
        return -1;
    uint64_t added = 0;
    for (int32_t i = 0; i < src->counts_len; i++) {
        uint64_t c = ld(&src->counts[i]);
        if (c) {
            atomic_store_explicit(&dst->counts[i], ld(&dst->counts[i]) + c, RELAXED);
            added += c;
        }
    }
    if (!added)
        return 0;
    atomic_store_explicit(&dst->total, ld(&dst->total) + added, RELAXED);
    atomic_store_explicit(&dst->sum, ld(&dst->sum) + ld(&src->sum), RELAXED);
    int64_t smin = ldi(&src->min), smax = ldi(&src->max);
    if (smin < ldi(&dst->min))
        atomic_store_explicit(&dst->min, smin, RELAXED);
    if (smax > ldi(&dst->max))
        atomic_store_explicit(&dst->max, smax, RELAXED);
    return 0;
}

int sb_histogram_subtract(sb_histogram *dst, const sb_histogram *src)
{
    if (!sb_histogram_same_layout(dst, src))
        return -1;
    int saturated = 0;
    uint64_t total = 0;
    int32_t first = -1, last = -1;
    for (int32_t i = 0; i < dst->counts_len; i++) {
        uint64_t d = ld(&dst->counts[i]), s = ld(&src->counts[i]);
        if (s > d) {
            saturated = 1;
            d = 0;
        } else {
            d -= s;
        }
        if (s)
            atomic_store_explicit(&dst->counts[i], d, RELAXED);
        if (d) {
            total += d;
            if (first < 0)
                first = i;
            last = i;
        }
    }
    if (!total) {
        set_empty_summary(dst);
        return saturated;
    }
    int64_t old_min = ldi(&dst->min), old_max = ldi(&dst->max);
    int64_t lo = index_lowest(dst, first, &(int){0});
    int64_t hi = index_highest(dst, last);
    if (lo < old_min)
        lo = old_min;
    if (lo > old_max)
        lo = old_max;
    if (hi > old_max)
        hi = old_max;
    if (hi < old_min)
        hi = old_min;
    atomic_store_explicit(&dst->total, total, RELAXED);
    atomic_store_explicit(&dst->sum, ld(&dst->sum) - ld(&src->sum), RELAXED);
    atomic_store_explicit(&dst->min, lo, RELAXED);
    atomic_store_explicit(&dst->max, hi, RELAXED);
    return saturated;
}

void sb_histogram_copy(sb_histogram *dst, const sb_histogram *src)
{
    if (dst == src || !sb_histogram_same_layout(dst, src))
        return;
    uint64_t total = 0;
    for (int32_t i = 0; i < src->counts_len; i++) {
        uint64_t c = ld(&src->counts[i]);
        atomic_store_explicit(&dst->counts[i], c, RELAXED);
        total += c;
    }
    if (!total) {
        set_empty_summary(dst);
        return;
    }
    atomic_store_explicit(&dst->total, total, RELAXED);
    atomic_store_explicit(&dst->sum, ld(&src->sum), RELAXED);
    atomic_store_explicit(&dst->min, ldi(&src->min), RELAXED);
    atomic_store_explicit(&dst->max, ldi(&src->max), RELAXED);
}

int sb_histogram_add_to_bucket(sb_histogram *h, int i, uint64_t n)
{
    if (i < 0 || i >= h->counts_len)
        return -1;
    if (n == 0)
        return 0;
    int b;
    int64_t lo = index_lowest(h, i, &b), hi = index_highest(h, i);
    atomic_store_explicit(&h->counts[i], ld(&h->counts[i]) + n, RELAXED);
    atomic_store_explicit(&h->total, ld(&h->total) + n, RELAXED);
    atomic_store_explicit(&h->sum, ld(&h->sum) + n * (uint64_t)(lo + (hi - lo) / 2), RELAXED);
    if (lo < ldi(&h->min))
        atomic_store_explicit(&h->min, lo, RELAXED);
    if (hi > ldi(&h->max))
        atomic_store_explicit(&h->max, hi, RELAXED);
    return 0;
}

void sb_histogram_set_summary(sb_histogram *h, int64_t min, int64_t max, int64_t sum)
{
    if (ld(&h->total) == 0)
        return;
    atomic_store_explicit(&h->min, min, RELAXED);
    atomic_store_explicit(&h->max, max, RELAXED);
    atomic_store_explicit(&h->sum, (uint64_t)sum, RELAXED);
}

/* ---- queries ----------------------------------------------------------- */

uint64_t sb_histogram_count(const sb_histogram *h)
{
    return ld(&h->total);
}

int64_t sb_histogram_min(const sb_histogram *h)
{
    int64_t mn = ldi(&h->min), mx = ldi(&h->max);
    return (ld(&h->total) == 0 || mn > mx) ? 0 : mn;
}

int64_t sb_histogram_max(const sb_histogram *h)
{
    int64_t mn = ldi(&h->min), mx = ldi(&h->max);
    return (ld(&h->total) == 0 || mn > mx) ? 0 : mx;
}

int64_t sb_histogram_sum(const sb_histogram *h)
{
    return u2i(ld(&h->sum));
}

double sb_histogram_mean(const sb_histogram *h)
{
    uint64_t n = ld(&h->total);
    return n ? (double)sb_histogram_sum(h) / (double)n : 0.0;
}

double sb_histogram_stddev(const sb_histogram *h)
{
    uint64_t n = ld(&h->total);
    if (!n)
        return 0.0;
    double mean = sb_histogram_mean(h);
    int64_t mn = sb_histogram_min(h), mx = sb_histogram_max(h);
    double acc = 0.0;
    uint64_t seen = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        uint64_t c = ld(&h->counts[i]);
        if (!c)
            continue;
        int b;
        int64_t lo = index_lowest(h, i, &b);
        double mid = (double)lo + (double)((INT64_C(1) << (b + h->unit_magnitude)) - 1) / 2.0;
        if (mid < (double)mn)
            mid = (double)mn;
        if (mid > (double)mx)
            mid = (double)mx;
        acc += (double)c * (mid - mean) * (mid - mean);
        seen += c;
    }
    return seen ? sqrt(acc / (double)seen) : 0.0;
}

uint64_t sb_histogram_rank(double pct, uint64_t n)
{
    if (!n)
        return 0;
    if (!(pct > 0.0))
        return 1;
    if (pct > 100.0)
        pct = 100.0;
    double x = pct / 100.0 * (double)n;
    x -= x * 1e-12; /* so 99.9% of 1e6 is 999000, not 999001 by rounding */
    double r = ceil(x);
    if (r < 1.0)
        return 1;
    if (r >= (double)n)
        return n;
    return (uint64_t)r;
}

int64_t sb_histogram_percentile(const sb_histogram *h, double pct)
{
    /* Total from the buckets themselves, so a concurrent writer cannot make
     * the target rank unreachable. */
    uint64_t n = 0;
    for (int32_t i = 0; i < h->counts_len; i++)
        n += ld(&h->counts[i]);
    if (!n)
        return 0;
    uint64_t rank = sb_histogram_rank(pct, n);
    int64_t mn = sb_histogram_min(h), mx = sb_histogram_max(h);
    uint64_t cum = 0;
    int64_t v = mx;
    for (int32_t i = 0; i < h->counts_len; i++) {
        cum += ld(&h->counts[i]);
        if (cum >= rank) {
            v = index_highest(h, i);
            break;
        }
    }
    if (v > mx)
        v = mx;
    if (v < mn)
        v = mn;
    return v;
}

/* ---- iteration --------------------------------------------------------- */

int sb_histogram_bucket_count(const sb_histogram *h)
{
    return h->counts_len;
}

int64_t sb_histogram_bucket_lowest(const sb_histogram *h, int i)
{
    int b;
    return index_lowest(h, i, &b);
}

int64_t sb_histogram_bucket_highest(const sb_histogram *h, int i)
{
    return index_highest(h, i);
}

uint64_t sb_histogram_count_at(const sb_histogram *h, int i)
{
    return (i >= 0 && i < h->counts_len) ? ld(&h->counts[i]) : 0;
}

int sb_histogram_index_of(const sb_histogram *h, int64_t value)
{
    return sb_hist_index(h, value);
}

void sb_histogram_hdr_layout(const sb_histogram *h, sb_histogram_hdr_params *out)
{
    out->lowest_discernible_value = h->hdr_lowest;
    out->highest_trackable_value = h->highest;
    out->significant_figures = h->sig_figs;
    out->unit_magnitude = h->unit_magnitude;
    out->sub_bucket_count_magnitude = h->sub_bucket_count_magnitude;
    out->sub_bucket_half_count_magnitude = h->sub_bucket_half_count_magnitude;
    out->sub_bucket_count = h->sub_bucket_count;
    out->sub_bucket_half_count = h->sub_bucket_half_count;
    out->bucket_count = h->bucket_count;
    out->counts_len = h->counts_len;
    out->lowest = h->lowest;
    out->precision = h->precision;
}
