/*
 * A tally of every worker's statistics at one moment (see tally.h).
 */
#include "tally.h"

#include <stdlib.h>

struct sb_tally *sb_tally_create(const sb_histogram *tmpl, int nthreads, int nclients)
{
    struct sb_tally *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->nthreads = nthreads;
    t->nclients = nclients;
    t->lat = sb_histogram_clone_empty(tmpl);
    t->lag = sb_histogram_clone_empty(tmpl);
    t->conn = sb_histogram_clone_empty(tmpl);
    int ok = t->lat && t->lag && t->conn;
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        ok = (t->conn_phase[p] = sb_histogram_clone_empty(tmpl)) != NULL && ok;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        ok = (t->kind[k] = sb_histogram_clone_empty(tmpl)) != NULL && ok;
    t->thread_events = calloc((size_t)nthreads, sizeof *t->thread_events);
    t->thread_busy_ns = calloc((size_t)nthreads, sizeof *t->thread_busy_ns);
    ok = ok && t->thread_events && t->thread_busy_ns;
    if (nclients > 0) {
        t->client_events = calloc((size_t)nclients, sizeof *t->client_events);
        ok = ok && t->client_events;
    }
    if (!ok) {
        sb_tally_destroy(t);
        return NULL;
    }
    return t;
}

void sb_tally_destroy(struct sb_tally *t)
{
    if (t == NULL)
        return;
    sb_histogram_destroy(t->lat);
    sb_histogram_destroy(t->lag);
    sb_histogram_destroy(t->conn);
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        sb_histogram_destroy(t->conn_phase[p]);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_destroy(t->kind[k]);
    for (int ty = 0; ty < SB_MAX_TYPES; ty++)
        sb_histogram_destroy(t->type[ty]);
    free(t->thread_events);
    free(t->thread_busy_ns);
    free(t->client_events);
    free(t);
}

/* Events of each client, by client id (sbench.cid): a multiplexing worker
 * counts its clients tid + i * T at client_events[i]; a worker with one
 * connection is client tid. */
static void take_clients(struct sb_tally *t, const struct sb_run *run)
{
    int n = t->nclients;
    for (int tid = 0; tid < t->nthreads; tid++) {
        const struct sb_worker *w = run->workers[tid];
        if (w->nclients == 0) {
            if (tid < n)
                t->client_events[tid] = SB_GET(w->stats.events);
            continue;
        }
        for (int i = 0; i < w->nclients; i++) {
            int cid = tid + i * t->nthreads;
            if (cid < n)
                t->client_events[cid] = SB_GET(w->client_events[i]);
        }
    }
}

/* t's histogram of event type ty, made (empty, shaped like t->lat) when
 * missing; NULL when out of memory. */
static sb_histogram *type_hist(struct sb_tally *t, int ty)
{
    if (t->type[ty] == NULL)
        t->type[ty] = sb_histogram_clone_empty(t->lat);
    return t->type[ty];
}

/* Merges every thread's event latencies into t->lat, and takes each
 * thread's events and busy time from what was merged of it: the buckets
 * read once, so that the counts and the histograms of one tally agree
 * while the workers run. */
static void take_events(struct sb_tally *t, struct sb_thread_stats *const *ts)
{
    sb_histogram_reset(t->lat);
    for (int i = 0; i < t->nthreads; i++) {
        uint64_t n0 = sb_histogram_count(t->lat);
        int64_t s0 = sb_histogram_sum(t->lat);
        sb_histogram_add(t->lat, ts[i]->latency);
        t->thread_events[i] = sb_histogram_count(t->lat) - n0 + SB_GET(ts[i]->script_events);
        t->thread_busy_ns[i] = sb_histogram_sum(t->lat) - s0; /* the events' latencies */
    }
}

void sb_tally_take(struct sb_tally *t, const struct sb_run *run, struct sb_thread_stats *const *ts)
{
    int n = t->nthreads;
    sb_stats_snapshot(ts, n, &t->snap);
    take_events(t, ts);
    sb_stats_merge_lag(ts, n, t->lag);
    sb_stats_merge_connect(ts, n, t->conn);
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        sb_stats_merge_connect_phase(ts, n, p, t->conn_phase[p]);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_stats_merge_kind(ts, n, k, t->kind[k]);
    for (int ty = 0; ty < t->snap.ntypes; ty++)
        if (type_hist(t, ty))
            sb_stats_merge_type(ts, n, ty, t->type[ty]);
    /* The counters were read a moment before the histograms, while the
     * workers ran: a few events apart.  Each count that has a histogram is
     * taken from it (a worker records the latency, then counts), so a
     * window's or the warmup base's events, statements and types are those
     * of its latencies, and subtracting two tallies leaves them equal.
     * What a script counted itself (sb_counter_inc) has no latency and is
     * added as it is.  A type's units (sbench.event_type's) are the
     * counters' as read: in a window they may be a few events apart from
     * its count; in the final report, after the workers stopped, exact. */
    uint64_t script_events = 0, script_queries[SB_Q_NKINDS] = {0};
    for (int i = 0; i < n; i++) { /* counted by the script: no latency */
        script_events += SB_GET(ts[i]->script_events);
        for (int k = 0; k < SB_Q_NKINDS; k++)
            script_queries[k] += SB_GET(ts[i]->script_queries[k]);
    }
    t->snap.events = sb_histogram_count(t->lat) + script_events;
    t->snap.busy_ns = sb_histogram_sum(t->lat);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        t->snap.queries[k] = sb_histogram_count(t->kind[k]) + script_queries[k];
    for (int ty = 0; ty < t->snap.ntypes; ty++)
        if (t->type[ty])
            t->snap.type_count[ty] = sb_histogram_count(t->type[ty]);
    take_clients(t, run);
}

void sb_tally_copy(struct sb_tally *d, const struct sb_tally *s)
{
    d->snap = s->snap;
    sb_histogram_copy(d->lat, s->lat);
    sb_histogram_copy(d->lag, s->lag);
    sb_histogram_copy(d->conn, s->conn);
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        sb_histogram_copy(d->conn_phase[p], s->conn_phase[p]);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_copy(d->kind[k], s->kind[k]);
    for (int ty = 0; ty < SB_MAX_TYPES; ty++)
        if (s->type[ty] && type_hist(d, ty))
            sb_histogram_copy(d->type[ty], s->type[ty]);
    for (int i = 0; i < d->nthreads; i++) {
        d->thread_events[i] = s->thread_events[i];
        d->thread_busy_ns[i] = s->thread_busy_ns[i];
    }
    for (int i = 0; i < d->nclients; i++)
        d->client_events[i] = s->client_events[i];
}

void sb_tally_sub(struct sb_tally *d, const struct sb_tally *s)
{
    sb_histogram_subtract(d->lat, s->lat);
    sb_histogram_subtract(d->lag, s->lag);
    sb_histogram_subtract(d->conn, s->conn);
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        sb_histogram_subtract(d->conn_phase[p], s->conn_phase[p]);
    for (int k = 0; k < SB_Q_NKINDS; k++)
        sb_histogram_subtract(d->kind[k], s->kind[k]);
    for (int ty = 0; ty < SB_MAX_TYPES; ty++)
        if (d->type[ty] && s->type[ty])
            sb_histogram_subtract(d->type[ty], s->type[ty]);
    for (int i = 0; i < d->nthreads; i++) {
        d->thread_events[i] -= s->thread_events[i];
        d->thread_busy_ns[i] -= s->thread_busy_ns[i];
    }
    for (int i = 0; i < d->nclients; i++)
        d->client_events[i] -= s->client_events[i];
}
