/*
 * What every worker of a run measured, merged at one moment (a tally):
 * the summed counters, the merged histograms, and the events of each
 * thread and each client.  The reporter keeps a few (now, the previous
 * window, the warmup base) and subtracts them.  Per-thread and per-client
 * arrays are sized by the run's real thread and client counts.  Only the
 * reporting thread uses a tally; nothing here runs per event.
 */
#ifndef SB_TALLY_H
#define SB_TALLY_H

#include <stdint.h>

#include "histogram.h"
#include "run.h"
#include "stats.h"

struct sb_tally {
    struct sb_snapshot snap;
    sb_histogram *lat, *kind[SB_Q_NKINDS], *lag, *conn;
    sb_histogram *conn_phase[SB_CONN_NPHASES]; /* the phases of conn */
    sb_histogram *type[SB_MAX_TYPES]; /* event types' latencies, made when
                                         the type first shows (NULL before) */
    int nthreads;
    uint64_t *thread_events;     /* [nthreads] */
    int64_t *thread_busy_ns;     /* [nthreads] */
    int nclients;                /* by client id (sbench.cid); 0 = not counted */
    uint64_t *client_events;     /* [nclients], NULL when nclients is 0 */
};

/* A tally for nthreads threads and nclients clients, histograms shaped
 * like tmpl, all zero.  Returns it (free with sb_tally_destroy), or NULL
 * when out of memory. */
struct sb_tally *sb_tally_create(const sb_histogram *tmpl, int nthreads, int nclients);
/* NULL is a no-op. */
void sb_tally_destroy(struct sb_tally *t);

/* Reads the statistics ts[0..t->nthreads-1] of run's workers (the
 * same order as run->workers) into t. */
void sb_tally_take(struct sb_tally *t, const struct sb_run *run, struct sb_thread_stats *const *ts);
/* d = s (same shape). */
void sb_tally_copy(struct sb_tally *d, const struct sb_tally *s);
/* d -= s: histograms and per-thread/per-client counts; the snapshot is
 * left alone (sb_snapshot_diff says how counters subtract). */
void sb_tally_sub(struct sb_tally *d, const struct sb_tally *s);

#endif
