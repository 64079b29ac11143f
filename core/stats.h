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

#include "event_types.h"
#include "histogram.h"

struct sbd_server_counters; /* <sbench/driver.h> */

/* Statement kinds, classified once per prepared statement. */
enum sb_qkind {
    SB_Q_SELECT = 0,
    SB_Q_INSERT,
    SB_Q_UPDATE,
    SB_Q_DELETE,
    SB_Q_BEGIN,    /* BEGIN, START TRANSACTION */
    SB_Q_COMMIT,   /* COMMIT, END */
    SB_Q_ROLLBACK,
    SB_Q_OTHER,
    SB_Q_NKINDS
};

/* Errors of one kind (SQLSTATE + native code) in one thread.  The writer
 * fills the key, then publishes the entry by bumping nerrors with release
 * order; readers load nerrors with acquire order. */
#define SB_MAX_ERROR_KINDS 16
struct sb_error_count {
    char sqlstate[6];
    long native_code;
    int status;                        /* enum sbd_status */
    _Atomic uint64_t ignored;          /* restarted the event */
    _Atomic uint64_t fatal;            /* stopped the event for good */
};

/* Statements a workload named (con:prepare(sql, name)): count and latency
 * per name, per thread.  A slot is filled at prepare time and published
 * by bumping nnamed with release order. */
#define SB_MAX_NAMED 64
struct sb_named_stat {
    char name[40];
    _Atomic uint64_t count;
    sb_histogram *latency;             /* owned */
};

/* Events of one type (core/event_types.h) in one thread: the latency
 * histogram is created by the thread the first time it records one and
 * published with release order (NULL until then). */
struct sb_type_stat {
    _Atomic uint64_t count;            /* completed */
    _Atomic uint64_t retries;          /* restarts after a retryable error */
    _Atomic uint64_t failed;           /* given up after --max-retries */
    _Atomic uint64_t units;            /* what the completed events counted
                                          (sbench.event_type's units: 1 each
                                          unless the script said) */
    sb_histogram *_Atomic latency;     /* owned */
};

/* The phases of opening a connection that the driver reports (driver ABI
 * 1.6, struct sbd_connect_phases): TCP connect, TLS handshake, startup and
 * authentication; then the first statement answered on it, which the core
 * times (not part of the connection time).  Names: sb_conn_phase_names
 * ("tcp", "tls", "auth", "first_query"). */
enum { SB_CONN_TCP, SB_CONN_TLS, SB_CONN_AUTH, SB_CONN_FIRST, SB_CONN_NPHASES };
extern const char *const sb_conn_phase_names[SB_CONN_NPHASES];

struct sb_thread_stats {
    _Atomic uint64_t events;
    _Atomic uint64_t queries[SB_Q_NKINDS];
    _Atomic uint64_t ignored_errors;   /* events restarted after a retryable error */
    _Atomic uint64_t reconnects;
    _Atomic uint64_t failed_events;    /* events that failed for good */
    _Atomic int in_event;              /* 1 while an event runs (forced shutdown) */
    _Atomic uint64_t loaded_rows;      /* rows written by bulk loads (prepare) */
    _Atomic uint64_t connects;         /* connections opened */
    _Atomic int64_t connect_ns;        /* total time spent opening them */
    _Atomic int64_t connect_min_ns, connect_max_ns;
    _Atomic uint64_t retried_events;   /* events that succeeded after a retry */
    _Atomic uint64_t late_events;      /* events slower than --latency-limit */
    _Atomic uint64_t pipelined;        /* --pipeline: statements sent while
                                          earlier ones were in flight */
    /* what a script counted itself (sysbench's ffi sb_counter_inc), also in
     * events and queries: the counts that have no latency, which a tally
     * adds to its histograms' counts (core/tally.c) */
    _Atomic uint64_t script_events;
    _Atomic uint64_t script_queries[SB_Q_NKINDS];
    _Atomic int nerrors;               /* entries used in errors[] */
    struct sb_error_count errors[SB_MAX_ERROR_KINDS];
    sb_histogram *latency;             /* event latencies, ns; owned */
    sb_histogram *kind_latency[SB_Q_NKINDS]; /* statement latencies by kind */
    sb_histogram *connect_latency;     /* connection open times */
    sb_histogram *connect_phase[SB_CONN_NPHASES]; /* their phases (a TLS
                                          phase only on TLS sessions) */
    sb_histogram *lag;                 /* --rate: start minus scheduled start */
    double precision;                  /* of the histograms */
    _Atomic int nnamed;
    struct sb_named_stat named[SB_MAX_NAMED];
    struct sb_type_stat types[SB_MAX_TYPES];
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
    uint64_t retried_events, late_events;
    uint64_t pipelined;           /* --pipeline: statements sent behind others */
    int nerrors;
    struct { char sqlstate[6]; long native_code; int status; uint64_t ignored, fatal; }
        errors[SB_MAX_ERROR_KINDS * 4];
    int ntypes;                   /* event types registered (event_types.h) */
    uint64_t type_count[SB_MAX_TYPES], type_retries[SB_MAX_TYPES], type_failed[SB_MAX_TYPES];
    uint64_t type_units[SB_MAX_TYPES]; /* units of the completed events */
};

/* Counts one error in thread stats s (single writer). */
void sb_stats_count_error(struct sb_thread_stats *s, const char *sqlstate, long native,
                          int status, int fatal);
/* The slot of statement name `name` in s, created if new (not on the
 * measured path: at prepare).  -1 when the table is full or out of memory. */
int sb_stats_named_slot(struct sb_thread_stats *s, const char *name);
/* Records an event of type ty (0 <= ty < SB_MAX_TYPES) that took ns and
 * counted `units` (single writer; allocates the type's histogram the first
 * time only). */
void sb_stats_record_type(struct sb_thread_stats *s, int ty, int64_t ns, uint64_t units);
/* Merges type ty's event latencies of n threads into dst (reset first). */
void sb_stats_merge_type(struct sb_thread_stats *const *threads, int n, int ty, sb_histogram *dst);
/* Records one connection open that took ns (single writer). */
void sb_stats_note_connect(struct sb_thread_stats *s, int64_t ns);
/* Records the phases of that connection (ns; negative: not seen; a TLS
 * phase of 0: no TLS, not recorded). */
void sb_stats_note_connect_phases(struct sb_thread_stats *s, const int64_t ns[SB_CONN_NPHASES]);
/* Merges phase p's times of n threads into dst (reset first). */
void sb_stats_merge_connect_phase(struct sb_thread_stats *const *threads, int n, int p,
                                  sb_histogram *dst);
/* The range of every latency histogram, ns: 1 us to 1 h. */
#define SB_HIST_LOWEST_NS INT64_C(1000)
#define SB_HIST_HIGHEST_NS (INT64_C(3600) * 1000000000)
/* Creates the thread's histograms; -1 when out of memory. */
int sb_stats_init(struct sb_thread_stats *s, double precision);
void sb_stats_free(struct sb_thread_stats *s);
/* Merges kind k's statement latencies of n threads into dst (reset first). */
void sb_stats_merge_kind(struct sb_thread_stats *const *threads, int n, int k, sb_histogram *dst);
void sb_stats_merge_connect(struct sb_thread_stats *const *threads, int n, sb_histogram *dst);
void sb_stats_merge_lag(struct sb_thread_stats *const *threads, int n, sb_histogram *dst);
/* Names of statement kinds for reports: "select", "insert", ... */
extern const char *const sb_qkind_names[SB_Q_NKINDS];

/* Sums the counters of n threads into out (time is left alone). */
void sb_stats_snapshot(struct sb_thread_stats *const *threads, int n, struct sb_snapshot *out);
/* d = a - b: what happened between snapshot b and the later a.  Counts and
 * errors by kind are differences (kinds with nothing left are dropped);
 * connection counts and time stay a's (cumulative). */
void sb_snapshot_diff(struct sb_snapshot *d, const struct sb_snapshot *a, const struct sb_snapshot *b);
/* The members of struct sbd_server_counters in their order, by their names
 * in the JSON report ("commits", ..., "statements"), and member i of c. */
#define SB_SERVER_COUNTERS 7
extern const char *const sb_server_counter_names[SB_SERVER_COUNTERS];
int64_t *sb_server_counter_at(struct sbd_server_counters *c, int i);
/* d = a - b for the server's own counters, member by member; a member
 * unknown (-1) in either read, or lower in a than in b (the server reset
 * it), is -1 in d: d never holds a negative count.  Returns how many
 * members went down (0: no reset seen in the counters themselves). */
int sb_server_counters_diff(struct sbd_server_counters *d, const struct sbd_server_counters *a,
                            const struct sbd_server_counters *b);
/* Merges the threads' histograms into dst (which is reset first). */
void sb_stats_merge_latency(struct sb_thread_stats *const *threads, int n, sb_histogram *dst);

static inline uint64_t sb_snap_reads(const struct sb_snapshot *s) { return s->queries[SB_Q_SELECT]; }
static inline uint64_t sb_snap_writes(const struct sb_snapshot *s)
{
    return s->queries[SB_Q_INSERT] + s->queries[SB_Q_UPDATE] + s->queries[SB_Q_DELETE];
}
static inline uint64_t sb_snap_other(const struct sb_snapshot *s)
{
    return s->queries[SB_Q_BEGIN] + s->queries[SB_Q_COMMIT] + s->queries[SB_Q_ROLLBACK] +
           s->queries[SB_Q_OTHER];
}
static inline uint64_t sb_snap_total(const struct sb_snapshot *s)
{
    return sb_snap_reads(s) + sb_snap_writes(s) + sb_snap_other(s);
}

/* Classifies a statement by its first keyword. */
int sb_classify_sql(const char *sql, size_t len);
/* 1 for a statement that ends a transaction (COMMIT, ROLLBACK, END), 0 for
 * anything else, BEGIN and START TRANSACTION included. */
int sb_sql_ends_txn(const char *sql, size_t len);

#endif
