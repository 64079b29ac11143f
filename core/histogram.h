/*
 * histogram.h: log-linear latency histogram (values in nanoseconds) in the
 * style of HdrHistogram.  One histogram per worker thread records latencies
 * on the hot path (O(1), no lock, no allocation); a reporter thread merges
 * the workers' histograms once per second and asks for percentiles.
 *
 * Layout: identical to HdrHistogram's counts array, so an encoder for the
 * HdrHistogram interval log (V2 compressed payload) can write our counts in
 * index order unchanged.  With
 *
 *   s   = significant figures = ceil(-log10(precision)), 1..5
 *         (precision 0.01 -> 2 digits, 0.001 -> 3; 0.05 -> 2)
 *   L   = HdrHistogram "lowest discernible value"
 *         = max(1, floor(lowest * precision))   (NOT `lowest` itself, see below)
 *   H   = HdrHistogram "highest trackable value" = highest
 *
 * the derived parameters are exactly HdrHistogram's:
 *
 *   unit_magnitude                  = floor(log2(L))
 *   sub_bucket_count_magnitude      = ceil(log2(2 * 10^s))
 *   sub_bucket_half_count_magnitude = sub_bucket_count_magnitude - 1
 *   sub_bucket_count                = 2^sub_bucket_count_magnitude
 *   sub_bucket_half_count           = sub_bucket_count / 2
 *   bucket_count                    = HdrHistogram's buckets_needed_to_cover(H)
 *   counts_len                      = (bucket_count + 1) * sub_bucket_half_count
 *
 * and a value v lands at HdrHistogram's counts_index(v).  What this API
 * calls "bucket i" is HdrHistogram's counts[i] (HdrHistogram's own word
 * "bucket" means a power-of-two group of sub-buckets).  An encoder writes:
 * lowestTrackableValue = L, highestTrackableValue = H, significant figures
 * = s, normalizing index offset 0, conversion ratio 1.0, then counts[0 ..
 * counts_len-1]; sb_histogram_hdr_layout() returns all of these.
 *
 * Why L = lowest * precision: HdrHistogram's relative-error guarantee
 * (10^-s) only holds for values >= L * sub_bucket_half_count; below that
 * the resolution is the fixed unit 2^unit_magnitude.  Choosing the unit as
 * lowest * precision makes every value >= lowest reported within
 * `precision` relative error, which is what `precision` promises here.
 *
 * Error bound: a percentile is reported as the highest value equivalent to
 * the exact value's bucket (clamped to [min, max]), so the report r and the
 * exact value e satisfy e <= r and (r - e) / e < precision for lowest <= e.
 *
 * Concurrency: one writer (the owning worker) calls record/record_n/reset;
 * any number of readers may concurrently call the const functions and use
 * the histogram as the src of add/subtract/copy.  All shared fields are C11
 * atomics accessed with memory_order_relaxed (the writer does load+store,
 * never a read-modify-write, so it pays nothing on x86/arm64).  A reader may
 * see a snapshot in which count/sum/min/max and the buckets are from
 * slightly different instants; functions that need consistency (add,
 * subtract, copy, percentile) derive totals from the buckets they read.
 */
#ifndef SB_HISTOGRAM_H
#define SB_HISTOGRAM_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct sb_histogram sb_histogram;

/* The layout is in this header only so that recording, once per event and
 * per statement, can be inline; everything else goes through the
 * functions below. */
struct sb_histogram {
    /* Layout: fixed at creation, read-only afterwards. */
    int64_t lowest;                 /* create() argument; values below clamp up */
    int64_t highest;                /* create() argument; values above clamp down */
    double precision;               /* create() argument */
    int64_t hdr_lowest;             /* HdrHistogram lowest discernible value */
    int sig_figs;
    int unit_magnitude;
    int sub_bucket_count_magnitude;
    int sub_bucket_half_count_magnitude;
    int32_t sub_bucket_count;
    int32_t sub_bucket_half_count;
    int32_t bucket_count;
    int32_t counts_len;
    uint64_t sub_bucket_mask;       /* (sub_bucket_count - 1) << unit_magnitude */
    int index_shift_base;           /* unit_magnitude + sub_bucket_count_magnitude */

    /* Written by the owning thread only (relaxed load + relaxed store). */
    _Atomic uint64_t total;
    _Atomic uint64_t sum;           /* two's-complement int64 sum, wraps */
    _Atomic int64_t min;            /* INT64_MAX when empty */
    _Atomic int64_t max;            /* INT64_MIN when empty */
    _Atomic uint64_t counts[];      /* counts_len entries */
};

static inline int sb_hist_clz64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(x);
#else
    int n = 0;
    while (!(x & (UINT64_C(1) << 63))) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

/* HdrHistogram's counts_index for a value clamped to [lowest, highest]. */
static inline int32_t sb_hist_index(const sb_histogram *h, int64_t v)
{
    v = v < h->lowest ? h->lowest : v > h->highest ? h->highest : v;
    int pow2ceiling = 64 - sb_hist_clz64((uint64_t)v | h->sub_bucket_mask);
    int bucket = pow2ceiling - h->index_shift_base;
    int32_t sub = (int32_t)(v >> (bucket + h->unit_magnitude));
    return ((int32_t)(bucket + 1) << h->sub_bucket_half_count_magnitude)
           + sub - h->sub_bucket_half_count;
}

/* Records `value` n times (writer thread only). */
static inline void sb_histogram_record_many(sb_histogram *h, int64_t value, uint64_t n)
{
    _Atomic uint64_t *c = &h->counts[sb_hist_index(h, value)];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
    atomic_store_explicit(&h->total, atomic_load_explicit(&h->total, memory_order_relaxed) + n,
                          memory_order_relaxed);
    atomic_store_explicit(&h->sum,
                          atomic_load_explicit(&h->sum, memory_order_relaxed) +
                              (uint64_t)value * n,
                          memory_order_relaxed);
    if (value < atomic_load_explicit(&h->min, memory_order_relaxed))
        atomic_store_explicit(&h->min, value, memory_order_relaxed);
    if (value > atomic_load_explicit(&h->max, memory_order_relaxed))
        atomic_store_explicit(&h->max, value, memory_order_relaxed);
}

/*
 * New empty histogram.  lowest >= 1 (e.g. 1000 = 1 us), highest >= 2*lowest
 * (e.g. 3600e9 = 1 h), precision in [1e-5, 1) (e.g. 0.01).
 * Returns a new histogram owned by the caller (free with
 * sb_histogram_destroy), or NULL on bad arguments or when out of memory.
 */
sb_histogram *sb_histogram_create(int64_t lowest, int64_t highest, double precision);

/* Frees h; NULL is a no-op. */
void sb_histogram_destroy(sb_histogram *h);

/*
 * Records one value (writer thread only).  Values below `lowest` (including
 * zero and negatives) are counted in the bucket of `lowest`, values above
 * `highest` in the bucket of `highest`; min, max and sum still see the raw
 * value.  O(1): one bit-scan, no branch on the bucket layout.
 */
static inline void sb_histogram_record(sb_histogram *h, int64_t value)
{
    sb_histogram_record_many(h, value, 1);
}

/* Records `value` n times (writer thread only); n = 0 records nothing. */
void sb_histogram_record_n(sb_histogram *h, int64_t value, uint64_t n);

/* Empties h (writer thread only, or while no thread records into h). */
void sb_histogram_reset(sb_histogram *h);

/* 1 when a and b have the same layout (same create() arguments), else 0. */
int sb_histogram_same_layout(const sb_histogram *a, const sb_histogram *b);

/*
 * dst += src bucket-wise; min/max/sum combined exactly.  dst must not be
 * written by another thread meanwhile; src may be live.  Returns 0, or -1
 * (dst unchanged) when the layouts differ.
 */
int sb_histogram_add(sb_histogram *dst, const sb_histogram *src);

/*
 * dst -= src bucket-wise, where src is an earlier snapshot of the same
 * cumulative histogram: gives the reporting window cumulative_now -
 * cumulative_before.  The result's sum is dst.sum - src.sum (exact); its
 * min/max are the lowest/highest equivalent values of its first/last
 * non-empty bucket, clamped to dst's previous [min, max] (exact min/max of a
 * window cannot be recovered from two snapshots).  Returns 0; -1 (dst
 * unchanged) when the layouts differ; 1 when some src bucket exceeded dst's
 * (src was not an earlier snapshot; those buckets saturate at 0).
 */
int sb_histogram_subtract(sb_histogram *dst, const sb_histogram *src);

/*
 * dst = src (counts, total, sum, min, max).  Layouts must match; when they
 * differ dst is left unchanged (check with sb_histogram_same_layout).
 */
void sb_histogram_copy(sb_histogram *dst, const sb_histogram *src);

/*
 * New empty histogram with h's layout.  Returns a histogram owned by the
 * caller (sb_histogram_destroy), or NULL when out of memory.
 */
sb_histogram *sb_histogram_clone_empty(const sb_histogram *h);

/* Number of recorded values. */
uint64_t sb_histogram_count(const sb_histogram *h);
/* Exact smallest / largest recorded value; 0 when empty. */
int64_t sb_histogram_min(const sb_histogram *h);
int64_t sb_histogram_max(const sb_histogram *h);
/* Exact sum of recorded values (wraps modulo 2^64 on overflow). */
int64_t sb_histogram_sum(const sb_histogram *h);
/* sum / count (exact sum); 0 when empty. */
double sb_histogram_mean(const sb_histogram *h);
/* Population standard deviation computed from the buckets (each value taken
 * as its bucket's midpoint, clamped to [min, max]); 0 when empty. */
double sb_histogram_stddev(const sb_histogram *h);

/*
 * The value at or below which pct% of the values fall: with n values, the
 * value of rank ceil(pct/100 * n) (1-based, sorted ascending), reported as
 * the highest equivalent value of its bucket, clamped to [min, max].
 * pct is clamped to (0, 100]; returns 0 when empty.
 */
int64_t sb_histogram_percentile(const sb_histogram *h, double pct);

/* Rank used by sb_histogram_percentile for n values (1..n; 0 when n == 0). */
uint64_t sb_histogram_rank(double pct, uint64_t n);

/*
 * Bucket iteration, HdrHistogram counts-array order (i = counts index).
 * Buckets are ascending and contiguous; bucket i covers the values
 * [bucket_lowest(i), bucket_highest(i)].  Buckets below the bucket of
 * `lowest` are always empty (values there are clamped up).
 */
int sb_histogram_bucket_count(const sb_histogram *h);
int64_t sb_histogram_bucket_lowest(const sb_histogram *h, int i);
int64_t sb_histogram_bucket_highest(const sb_histogram *h, int i);
uint64_t sb_histogram_count_at(const sb_histogram *h, int i);
/* Counts index (bucket) that `value` is recorded in, after clamping. */
int sb_histogram_index_of(const sb_histogram *h, int64_t value);

/*
 * Adds n values to bucket i, for a decoder restoring counts that carry no
 * values (an encoded histogram): the count grows by n, min and max widen
 * to the bucket's bounds and the sum by n times its middle; replace them
 * with sb_histogram_set_summary when the exact figures are known.  Only
 * while no thread records into h.  Returns 0, or -1 (h unchanged) when i
 * is not a bucket of h.
 */
int sb_histogram_add_to_bucket(sb_histogram *h, int i, uint64_t n);

/* Sets h's exact min, max and sum, known from elsewhere (a report that
 * carried them beside the buckets); only while no thread records into h.
 * An empty h stays empty. */
void sb_histogram_set_summary(sb_histogram *h, int64_t min, int64_t max, int64_t sum);

/* HdrHistogram parameters of h's layout, for an interval-log encoder. */
typedef struct sb_histogram_hdr_params {
    int64_t lowest_discernible_value;  /* HdrHistogram L (see top comment) */
    int64_t highest_trackable_value;   /* H == highest */
    int significant_figures;           /* s */
    int unit_magnitude;
    int sub_bucket_count_magnitude;
    int sub_bucket_half_count_magnitude;
    int32_t sub_bucket_count;
    int32_t sub_bucket_half_count;
    int32_t bucket_count;              /* HdrHistogram's bucket_count */
    int32_t counts_len;                /* == sb_histogram_bucket_count() */
    int64_t lowest;                    /* create() arguments, for reference */
    double precision;
} sb_histogram_hdr_params;

void sb_histogram_hdr_layout(const sb_histogram *h, sb_histogram_hdr_params *out);

#endif /* SB_HISTOGRAM_H */
