/*
 * Per-thread statistics: counters written by one worker thread only
 * (relaxed atomic stores, no read-modify-write, no lock) and read by the
 * reporter, which merges them into a plain snapshot when it reports.
 */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

/* Statement kinds, classified once per prepared statement. */
enum sb_qkind {
    SB_Q_SELECT = 0,
    SB_Q_INSERT,
    SB_Q_UPDATE,
    SB_Q_DELETE,
    SB_Q_TXN,      /* BEGIN, COMMIT, ROLLBACK */
    SB_Q_OTHER,
    SB_Q_NKINDS
};

struct sb_thread_stats {
    _Atomic uint64_t events;
    _Atomic uint64_t queries[SB_Q_NKINDS];
    _Atomic uint64_t ignored_errors;   /* events restarted after a retryable error */
    _Atomic uint64_t reconnects;
    _Atomic uint64_t failed_events;    /* events that failed for good */
    _Atomic int64_t busy_ns;           /* sum of event latencies */
    _Atomic int in_event;              /* 1 while an event runs (forced shutdown) */
    _Atomic uint64_t loaded_rows;      /* rows written by bulk loads (prepare) */
    _Atomic uint64_t connects;         /* connections opened */
    _Atomic int64_t connect_ns;        /* total time spent opening them */
    _Atomic int64_t connect_min_ns, connect_max_ns;
    sb_histogram *latency;             /* event latencies, ns; owned */
} __attribute__((aligned(64)));

/* Single-writer increment: a plain load and store, race-free for readers. */
#define SB_ADD(field, n) \
    atomic_store_explicit(&(field), atomic_load_explicit(&(field), memory_order_relaxed) + (n), \
                          memory_order_relaxed)
#define SB_GET(field) atomic_load_explicit(&(field), memory_order_relaxed)

/* A merged, plain copy. */
struct sb_snapshot {
    double time;                       /* seconds since the run started */
    uint64_t events;
    uint64_t queries[SB_Q_NKINDS];
    uint64_t ignored_errors, reconnects, failed_events;
    int64_t busy_ns;
    uint64_t connects;
    int64_t connect_ns, connect_min_ns, connect_max_ns;
};

/* Sums the counters of n threads into out (time is left alone). */
void sb_stats_snapshot(struct sb_thread_stats *const *threads, int n, struct sb_snapshot *out);
/* Merges the threads' histograms into dst (which is reset first). */
void sb_stats_merge_latency(struct sb_thread_stats *const *threads, int n, sb_histogram *dst);

static inline uint64_t sb_snap_reads(const struct sb_snapshot *s) { return s->queries[SB_Q_SELECT]; }
static inline uint64_t sb_snap_writes(const struct sb_snapshot *s)
{
    return s->queries[SB_Q_INSERT] + s->queries[SB_Q_UPDATE] + s->queries[SB_Q_DELETE];
}
static inline uint64_t sb_snap_other(const struct sb_snapshot *s)
{
    return s->queries[SB_Q_TXN] + s->queries[SB_Q_OTHER];
}
static inline uint64_t sb_snap_total(const struct sb_snapshot *s)
{
    return sb_snap_reads(s) + sb_snap_writes(s) + sb_snap_other(s);
}

/* Classifies a statement by its first keyword. */
int sb_classify_sql(const char *sql, size_t len);

#endif
