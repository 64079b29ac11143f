/*
 * One event's life as every layer sees it: whether it may start (stop
 * request, --events, a --rate arrival, --reconnect=transaction), how it
 * ended (one outcome vocabulary for the core and the binding), and its
 * recording (latency, busy time, late events, per-client counts).  The
 * one-client loop (the binding's, around the script's event()) and the
 * client loop (core/clients.c) both go through here.
 *
 * Runs on the worker's thread, on the measured path: no allocation, no
 * lock, no formatting; one clock read per event where the loop can share
 * the end of one event with the start of the next.  What runs once per
 * event is inline below; the worker's in_event flag (forced shutdown) is
 * the loop's to set, once around its events.
 */
#ifndef SB_EVENT_H
#define SB_EVENT_H

#include <stdint.h>

#include "run.h"

struct sb_conn_list;

/* How an event (or one step of a client's event) ended. */
enum sb_event_outcome {
    SB_EVENT_DONE = 0,   /* completed: recorded */
    SB_EVENT_WAIT,       /* a client's event waits for a statement's answer */
    SB_EVENT_RESTART,    /* an ignorable error: run the same event again */
    SB_EVENT_STOP,       /* cut short by a stop request: not recorded */
    SB_EVENT_FAILED,     /* failed after --max-retries: counted as failed */
    SB_EVENT_QUIT,       /* the script ended its loop (event() returned a
                            value other than nil or false): not recorded,
                            and no more events here */
    SB_EVENT_FATAL       /* the run stops; the worker's error says why */
};

/* The event a one-client loop runs: its start (scheduled, under --rate)
 * and whether it began and has not ended (a restart keeps it). */
struct sb_event {
    int64_t t0;
    int open;
    int retries;         /* restarts so far (--max-retries) */
};

/* The one-client loop's next event, given the clock now: 1 with ev->t0
 * set (now, or under --rate its scheduled start after sleeping until it
 * is due; with --reconnect=transaction the worker's connections are
 * reopened first and that time counts in the event), or 0 when the run is
 * over (stop requested, --events reached).  An event still open (being
 * restarted) is returned as it is. */
static inline int sb_event_next(struct sb_worker *w, int64_t now, struct sb_event *ev);
/* Its uncommon cases (--rate, --reconnect=transaction). */
int sb_event_next_paced(struct sb_worker *w, int64_t now, struct sb_event *ev);

/* 1 when another event may start: no stop requested and --events not
 * reached (an event started is counted against --events here). */
static inline int sb_event_may_start(struct sb_run *run);

/* The gap to the worker's next --rate arrival, in ns, for a mean gap of
 * mean_gap_ns (Poisson, or fixed with --rate-distribution=fixed). */
int64_t sb_event_gap(struct sb_worker *w, double mean_gap_ns);

/* --reconnect=transaction: reopens the connections of l before an event
 * (blocking; the time counts in the connection-time statistics).  0, or
 * -1 when one could not be opened (counted as an error of w). */
int sb_event_reopen(struct sb_worker *w, struct sb_conn_list *l);

/* An event completed with the given latency: recorded in the worker's
 * statistics, as client `client`'s (its index among the worker's clients,
 * or -1 for a one-client worker), and as an event of the worker's
 * event_type when the script gave one (which is then cleared). */
static inline void sb_event_record(struct sb_worker *w, int64_t latency, int client);

/* The one-client loop's event ended at `end`: recorded (and counted as
 * retried when it was restarted), and closed. */
static inline void sb_event_close(struct sb_worker *w, struct sb_event *ev, int64_t end);
/* The one-client loop's event is given up (failed after --max-retries, or
 * cut short by a stop request): closed without a latency (and without its
 * type). */
void sb_event_abandon(struct sb_worker *w, struct sb_event *ev);

/* ---- inline: once per event ---- */

static inline int sb_event_may_start(struct sb_run *run)
{
    if (atomic_load_explicit(&run->stop, memory_order_relaxed))
        return 0;
    return !run->event_limit ||
           atomic_fetch_add_explicit(&run->events_started, 1, memory_order_relaxed) <
               run->event_limit;
}

static inline int sb_event_next(struct sb_worker *w, int64_t now, struct sb_event *ev)
{
    struct sb_run *run = w->run;
    if (ev->open)
        return 1;
    if (run->paced)
        return sb_event_next_paced(w, now, ev);
    if (!sb_event_may_start(run))
        return 0;
    ev->t0 = now;
    ev->open = 1;
    return 1;
}

static inline void sb_event_record(struct sb_worker *w, int64_t latency, int client)
{
    struct sb_thread_stats *st = &w->stats;
    sb_histogram_record(st->latency, latency); /* its sum is the busy time */
    if (w->run->latency_limit_ns && latency > w->run->latency_limit_ns)
        SB_ADD(st->late_events, 1);
    SB_ADD(st->events, 1);
    if (client >= 0)
        SB_ADD(w->client_events[client], 1);
    if (w->event_type >= 0) {
        sb_stats_record_type(st, w->event_type, latency);
        w->event_type = -1;
    }
}

static inline void sb_event_close(struct sb_worker *w, struct sb_event *ev, int64_t end)
{
    if (ev->retries > 0) {
        SB_ADD(w->stats.retried_events, 1);
        ev->retries = 0;
    }
    sb_event_record(w, end - ev->t0, -1);
    ev->open = 0;
}

#endif
