/*
 * One event's bookkeeping, shared by the one-client loop and the client
 * loop, and the one failure policy of every binding (see event.h).
 */
#include "event.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "lost.h"
#include "rate_profile.h"

int64_t sb_event_gap(struct sb_worker *w, double mean_gap_ns)
{
    if (w->run->rate_fixed)
        return (int64_t)mean_gap_ns;
    return (int64_t)(-log(1.0 - sb_rand_double(&w->rand)) * mean_gap_ns);
}

int64_t sb_event_next_due(struct sb_worker *w, int64_t prev, double mean_gap_ns)
{
    const struct sb_run *run = w->run;
    const struct sb_rate_profile *rp = run->rate_profile;
    if (rp == NULL)
        return prev + sb_event_gap(w, mean_gap_ns);
    /* the profile's arrivals one of this thread's stands for, at any
     * rate: its share is fixed (run->rate is the profile's peak, or a
     * shard's part of it: sb_shard_apply splits it) */
    double per = mean_gap_ns * rp->peak / 1e9;
    double e = run->rate_fixed ? 1.0 : -log(1.0 - sb_rand_double(&w->rand));
    w->rate_mass += e * per;
    double t = sb_rate_profile_time_of(rp, w->rate_mass, &w->rate_cursor);
    return t < 1e9 ? run->start_ns + (int64_t)(t * 1e9) : INT64_MAX / 4; /* rate 0 from there on */
}

int sb_event_clients_active(const struct sb_run *run, int64_t now)
{
    if (run->clients_profile == NULL)
        return run->clients;
    return (int)(sb_rate_profile_rate(run->clients_profile, (double)(now - run->start_ns) / 1e9) + 0.5);
}

/* The one-client loop under --clients-profile: waits while this thread's
 * client is not among the active ones.  0 when a stop request came. */
static int wait_until_active(struct sb_worker *w, int64_t *now)
{
    struct sb_run *run = w->run;
    while (w->id >= sb_event_clients_active(run, *now)) {
        if (atomic_load_explicit(&run->stop, memory_order_relaxed))
            return 0;
        sb_sleep_ns(SB_EVENT_PROFILE_POLL_NS);
        *now = sb_now_ns();
    }
    return 1;
}

/* The run's arrivals due in [from, to) (ns): the backlog of an arrival
 * scheduled at `from` not started at `to`. */
static double arrivals_between(const struct sb_run *run, int64_t from, int64_t to)
{
    const struct sb_rate_profile *rp = run->rate_profile;
    if (rp == NULL)
        return (double)(to - from) / 1e9 * run->rate;
    return (sb_rate_profile_mass(rp, (double)(to - run->start_ns) / 1e9) -
            sb_rate_profile_mass(rp, (double)(from - run->start_ns) / 1e9)) * run->rate / rp->peak;
}

int sb_event_reopen(struct sb_worker *w, struct sb_conn_list *l)
{
    struct sb_conn *failed;
    if (sb_conn_list_reopen(l, &failed) == SBD_OK)
        return 0;
    const struct sbd_error *err = sb_conn_error(failed);
    sb_stats_count_error(&w->stats, err->sqlstate, err->native_code, SBD_CONN_LOST, 0);
    return -1;
}

/* --rate that cannot be delivered: sysbench 1.0.20 queues the arrivals
 * its workers have not started, 100000 at most (--rate-backlog-max), and
 * when the queue is full stops the run with this line and exit status 1
 * (measured: a 10 ms event at --rate=50100 fails after 2 s).  Each thread
 * here has its own share of the arrivals, rate / threads: its backlog is
 * lag * rate / threads, and its share of the queue max / threads, so the
 * test is lag * rate > max.  0: no limit (sbench pgbench -R, as pgbench). */
#define RATE_BACKLOG_MSG "The event queue is full. This means the worker threads are unable to keep " \
                         "up with the specified event generation rate"

int sb_event_backlog_full(struct sb_worker *w, int64_t due, int64_t t)
{
    struct sb_run *run = w->run;
    if (run->rate_backlog_max <= 0 || t <= due || arrivals_between(run, due, t) <= run->rate_backlog_max)
        return 0;
    snprintf(w->error, sizeof w->error, "%s", RATE_BACKLOG_MSG);
    w->failed = 1;
    atomic_store(&run->fatal, 1);
    atomic_store(&run->stop, 1);
    return 1;
}

/* --rate: sleeps until the worker's next arrival is due.  Returns its
 * scheduled time (*now: the clock after the sleep), or -1 when a stop
 * request came first or the arrivals fell too far behind
 * (sb_event_backlog_full). */
static int64_t next_arrival(struct sb_worker *w, int64_t *now)
{
    struct sb_run *run = w->run;
    /* this thread's share of the arrivals */
    double mean_gap_ns = 1e9 * run->threads / run->rate;
    if (w->scheduled == 0)
        w->scheduled = sb_now_ns();
    w->scheduled = sb_event_next_due(w, w->scheduled, mean_gap_ns);
    int64_t t = sb_now_ns();
    if (t > w->scheduled && sb_event_backlog_full(w, w->scheduled, t))
        return -1;
    while (t < w->scheduled && !atomic_load_explicit(&run->stop, memory_order_relaxed)) {
        int64_t d = w->scheduled - t;
        sb_sleep_ns(d > 50000000LL ? 50000000LL : d);
        t = sb_now_ns();
    }
    *now = t;
    return atomic_load_explicit(&run->stop, memory_order_relaxed) ? -1 : w->scheduled;
}

int64_t sb_event_begin_paced(struct sb_worker *w, struct sb_conn_list *l, int64_t now, int64_t due)
{
    int64_t t0 = now;
    if (w->run->rate > 0) {
        /* latency counts from the scheduled start, so a stalled server
         * shows (no coordinated omission); the lag is kept apart */
        sb_histogram_record(w->stats.lag, now - due);
        t0 = due;
        if (due < w->run->warm_end_ns && now >= w->run->warm_end_ns) /* said at the end */
            atomic_fetch_add_explicit(&w->warmup_carried, 1, memory_order_relaxed);
    }
    if (w->run->reconnect_per_event) {
        if (sb_event_reopen(w, l) != 0)
            return -1;
        /* as pgbench -C: the reconnection is not in the latency (it is in
         * the connection time), except under --rate, whose events count
         * from their arrival */
        if (w->run->rate <= 0)
            t0 = sb_now_ns();
    }
    return t0;
}

int sb_event_next_paced(struct sb_worker *w, int64_t now, struct sb_event *ev)
{
    struct sb_run *run = w->run;
    for (;;) {
        if (run->clients_profile && !wait_until_active(w, &now))
            return 0;
        if (!sb_event_may_start(run))
            return 0;
        int64_t due = now;
        if (run->rate > 0 && (due = next_arrival(w, &now)) < 0)
            return 0;
        int64_t t0 = sb_event_begin_paced(w, &w->conns, now, due);
        if (t0 >= 0) {
            ev->t0 = t0;
            ev->open = 1;
            return 1;
        }
        /* no connection: not an event; no busy loop on a dead server */
        sb_event_abandon(w, ev);
        sb_sleep_ns(SB_EVENT_NO_CONN_PAUSE_NS);
        now = sb_now_ns();
    }
}

void sb_event_abandon(struct sb_worker *w, struct sb_event *ev)
{
    w->event_type = -1;
    w->event_units = 1;
    ev->open = 0;
    ev->retries = 0;
}

/* ---- the failure policy ---- */

int sb_event_error_ignorable(const struct sb_run *run, int status, const char *sqlstate)
{
    if (status == SBD_RETRY || status == SBD_CONN_LOST)
        return 1;
    if (sqlstate == NULL || strlen(sqlstate) != 5)
        return 0;
    for (int i = 0; i < run->nignore_sqlstates; i++)
        if (memcmp(run->ignore_sqlstates[i], sqlstate, 5) == 0)
            return 1;
    return 0;
}

void sb_event_error_ignored(struct sb_worker *w, int status, const char *sqlstate, long native)
{
    SB_ADD(w->stats.ignored_errors, 1);
    sb_stats_count_error(&w->stats, sqlstate, native, status, 0);
}

/* Reconnects c, trying again with a bounded back-off (10 ms doubling up
 * to 1 s, 20 tries) until it works or a stop request comes.  Returns
 * SBD_OK or the last error (c->err). */
static int reconnect(struct sb_worker *w, struct sb_conn *c)
{
    int64_t delay_ns = 10000000LL;
    int rc = SBD_CONN_LOST;
    for (int attempt = 0; attempt < 20; attempt++) {
        rc = sb_conn_reconnect(c, 1);
        if (rc == SBD_OK || atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            return rc;
        sb_sleep_ns(delay_ns);
        delay_ns = delay_ns * 2 > 1000000000LL ? 1000000000LL : delay_ns * 2;
    }
    return rc;
}

/* A restartable statement error: its connection rolls back, or reconnects
 * when it was lost.  SB_EVENT_RESTART, or the outcome that ends the
 * event (w->error set for a fatal one). */
static int recover(struct sb_worker *w, const struct sb_event_error *e)
{
    struct sb_conn *c = e->conn;
    int status = e->status;
    if (c && status != SBD_CONN_LOST &&
        sb_conn_run(c, sb_req_txn(SB_TXN_ROLLBACK)) == SBD_CONN_LOST)
        status = SBD_CONN_LOST;
    if (c == NULL || status != SBD_CONN_LOST)
        return SB_EVENT_RESTART;
    if (!w->run->db_reconnect) {
        snprintf(w->error, sizeof w->error, "lost the connection (%s) and --db-reconnect=off: stopping",
                 sb_conn_error(c)->message);
        return SB_EVENT_FATAL;
    }
    struct sb_lost *lost = w->lost_now ? w->lost_now : &w->lost; /* the client's, or the worker's */
    if (sb_lost_before_reconnect(lost, w, sb_conn_error(c), w->error, sizeof w->error) != 0)
        return SB_EVENT_FATAL;
    if (reconnect(w, c) != SBD_OK) {
        if (atomic_load_explicit(&w->run->stop, memory_order_relaxed))
            return SB_EVENT_STOP;
        snprintf(w->error, sizeof w->error, "lost the connection and could not reconnect: %s",
                 sb_conn_error(c)->message);
        return SB_EVENT_FATAL;
    }
    return SB_EVENT_RESTART;
}

/* The event of w is given up: counted as failed, by its type too. */
static int give_up(struct sb_worker *w)
{
    SB_ADD(w->stats.failed_events, 1);
    if (w->event_type >= 0)
        SB_ADD(w->stats.types[w->event_type].failed, 1);
    return SB_EVENT_FAILED;
}

/* sb_event_failed's decision, before the observer hears it. */
static int decide(struct sb_worker *w, const struct sb_event_error *e, int *retries,
                  sb_restart_hook hook, void *hook_ctx)
{
    struct sb_run *run = w->run;
    if (!e->restart || e->give_up) { /* an ignorable one was counted where it was raised */
        if (e->sql && !e->restart)
            sb_stats_count_error(&w->stats, e->sqlstate, e->native, e->status, 1);
        if (!e->give_up)
            return SB_EVENT_FATAL;
    }
    if (e->sql) {
        int r = recover(w, e);
        if (r != SB_EVENT_RESTART)
            return r;
    } else if (!e->give_up) { /* the script's own restart request */
        SB_ADD(w->stats.ignored_errors, 1);
    }
    if (e->give_up)
        return give_up(w);
    if (hook != NULL && hook(hook_ctx) < 0)
        return SB_EVENT_FATAL;
    if (atomic_load_explicit(&run->stop, memory_order_relaxed))
        return SB_EVENT_STOP;
    (*retries)++;
    int ty = w->event_type; /* the failed event's type */
    if (ty >= 0)
        SB_ADD(w->stats.types[ty].retries, 1);
    if (run->max_retries > 0 && *retries > run->max_retries)
        return give_up(w);
    return SB_EVENT_RESTART;
}

static sb_event_failure_observer failure_observer;

void sb_event_observe_failures(sb_event_failure_observer f) { failure_observer = f; }

int sb_event_failed(struct sb_worker *w, const struct sb_event_error *e, int *retries,
                    sb_restart_hook hook, void *hook_ctx)
{
    int outcome = decide(w, e, retries, hook, hook_ctx);
    if (failure_observer != NULL)
        failure_observer(w, e, outcome, *retries);
    return outcome;
}
