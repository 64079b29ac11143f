/*
 * sb_report_fill (report_fill.h): the one place a struct sb_report is made
 * from tallies, for the window, checkpoint and final reports alike.
 */
#include "report_fill.h"

#include <string.h>

#include "event_types.h"

void sb_report_fill(struct sb_report *r, enum sb_report_kind kind, const struct sb_run *run,
                    const struct sb_report_span *s)
{
    const struct sb_tally *t = s->span;
    memset(r, 0, sizeof *r);
    /* every report: counts, latencies, percentiles, event types */
    sb_snapshot_diff(&r->d, &s->end->snap, &s->start->snap);
    r->latency = t->lat;
    r->percentile = run->percentile;
    r->no_sql = run->no_database;
    r->percentiles = run->percentiles;
    r->npercentiles = run->npercentiles;
    for (int k = 0; k < SB_Q_NKINDS; k++)
        r->kind[k] = t->kind[k];
    r->lag = run->rate > 0 ? t->lag : NULL;
    r->ntypes = t->snap.ntypes;
    for (int ty = 0; ty < r->ntypes; ty++) {
        r->type_name[ty] = sb_event_type_name(ty);
        r->type_latency[ty] = t->type[ty];
    }
    r->seconds = s->seconds;
    r->elapsed = s->elapsed;
    r->threads = s->threads;
    r->sampled = s->sampled;
    if (kind == SB_REPORT_WINDOW)
        return;
    /* checkpoints and the final report: the whole-run sections */
    r->connect = t->conn;
    for (int p = 0; p < SB_CONN_NPHASES; p++)
        r->connect_phase[p] = t->conn_phase[p];
    r->thread_events = t->thread_events;
    r->thread_busy_ns = t->thread_busy_ns;
    if (s->nclients > 0) {
        r->client_events = t->client_events;
        r->clients = s->nclients;
    }
    r->latency_limit_ms = (double)run->latency_limit_ns / 1e6;
    r->pipeline = run->pipeline;
    r->sections = run->sections.n > 0 ? &run->sections : NULL;
    if (kind == SB_REPORT_FINAL)
        r->histogram = run->histogram;
}
