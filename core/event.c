/*
 * One event's bookkeeping, shared by the one-client loop and the client
 * loop (see event.h).
 */
#include "event.h"

#include <math.h>

int64_t sb_event_gap(struct sb_worker *w, double mean_gap_ns)
{
    if (w->run->rate_fixed)
        return (int64_t)mean_gap_ns;
    return (int64_t)(-log(1.0 - sb_rand_double(&w->rand)) * mean_gap_ns);
}

int sb_event_reopen(struct sb_worker *w, struct sb_conn_list *l)
{
    struct sb_conn *failed;
    if (sb_conn_list_reopen(l, &failed) == SBD_OK)
        return 0;
    sb_stats_count_error(&w->stats, failed->err.sqlstate, failed->err.native_code, SBD_CONN_LOST, 0);
    return -1;
}

/* --rate: sleeps until the worker's next arrival is due.  Returns its
 * scheduled time, or -1 when a stop request came first. */
static int64_t next_arrival(struct sb_worker *w)
{
    struct sb_run *run = w->run;
    /* this thread's share of the arrivals */
    double mean_gap_ns = 1e9 * run->threads / run->rate;
    if (w->scheduled == 0)
        w->scheduled = sb_now_ns();
    w->scheduled += sb_event_gap(w, mean_gap_ns);
    int64_t now = sb_now_ns();
    while (now < w->scheduled && !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
        int64_t d = w->scheduled - now;
        sb_sleep_ns(d > 50000000LL ? 50000000LL : d);
        now = sb_now_ns();
    }
    if (atomic_load_explicit(&run->stop, memory_order_relaxed))
        return -1;
    /* latency counts from the scheduled start, so a stalled server shows
     * (no coordinated omission); the lag is kept apart */
    sb_histogram_record(w->stats.lag, now - w->scheduled);
    return w->scheduled;
}

int sb_event_next_paced(struct sb_worker *w, int64_t now, struct sb_event *ev)
{
    struct sb_run *run = w->run;
    for (;;) {
        if (!sb_event_may_start(run))
            return 0;
        if (run->rate > 0 && (now = next_arrival(w)) < 0)
            return 0;
        ev->t0 = now;
        ev->open = 1;
        if (!run->reconnect_per_event || sb_event_reopen(w, &w->conns) == 0)
            return 1;
        /* no connection: not an event; no busy loop on a dead server */
        sb_event_abandon(w, ev);
        sb_sleep_ns(10000000LL);
        now = sb_now_ns();
    }
}

void sb_event_abandon(struct sb_worker *w, struct sb_event *ev)
{
    w->event_type = -1;
    ev->open = 0;
    ev->retries = 0;
}
