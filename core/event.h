/*
 * One event's life as every layer sees it: whether it may start (stop
 * request, --events, a --rate arrival, --reconnect=transaction), how it
 * ended (one outcome vocabulary for the core and the binding), what
 * follows a failure (the one failure policy: ignorable, roll back or
 * reconnect, retries, --max-retries), and its recording (latency, busy
 * time, late events, per-client counts).  The
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
 * reopened first, and the event starts after that unless under --rate,
 * as pgbench -C's latency), or 0 when the run is
 * over (stop requested, --events reached).  An event still open (being
 * restarted) is returned as it is. */
static inline int sb_event_next(struct sb_worker *w, int64_t now, struct sb_event *ev);
/* Its uncommon cases (--rate, --reconnect=transaction). */
int sb_event_next_paced(struct sb_worker *w, int64_t now, struct sb_event *ev);

/* The start of an event under --rate or --reconnect=transaction (run->
 * paced), the same for the one-client loop and the client loop: under
 * --rate the event starts at its arrival `due` (the lag, now - due, is
 * recorded), otherwise now; with --reconnect=transaction the connections
 * of l are reopened first (then, without --rate, the event starts after
 * them: pgbench -C's latency leaves the connection out).  Returns the
 * event's start, or -1 when a connection could not be reopened (counted
 * as an error; not an event: the caller pauses SB_EVENT_NO_CONN_PAUSE_NS
 * before the next one). */
int64_t sb_event_begin_paced(struct sb_worker *w, struct sb_conn_list *l, int64_t now, int64_t due);
#define SB_EVENT_NO_CONN_PAUSE_NS 10000000LL

/* 1 when another event may start: no stop requested and --events not
 * reached (an event started is counted against --events here). */
static inline int sb_event_may_start(struct sb_run *run);

/* The gap to the worker's next --rate arrival, in ns, for a mean gap of
 * mean_gap_ns (Poisson, or fixed with --rate-distribution=fixed). */
int64_t sb_event_gap(struct sb_worker *w, double mean_gap_ns);

/* The worker's next --rate arrival after the one at `prev` (ns): prev
 * plus sb_event_gap, or under --rate-profile the time at which the
 * profile's arrivals reach this thread's next share (the same Poisson
 * draw, its mean gap scaled by the rate at that time). */
int64_t sb_event_next_due(struct sb_worker *w, int64_t prev, double mean_gap_ns);

/* --clients-profile: how many clients may run events at `now` (the
 * clients numbered below it; --clients when there is no profile). */
int sb_event_clients_active(const struct sb_run *run, int64_t now);
/* How often a client left idle by --clients-profile looks again. */
#define SB_EVENT_PROFILE_POLL_NS 10000000LL

/* --rate-backlog-max: 1 when the arrival due at `due` is not started at
 * `now` and more than --rate-backlog-max arrivals of the run fell due
 * since (sysbench's full event queue): the run then stops, w->error says
 * sysbench's FATAL line, and the run exits 1.  Both loops ask it. */
int sb_event_backlog_full(struct sb_worker *w, int64_t due, int64_t now);

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

/* ---- a failed event: the failure policy ---- */

/* The error that ended an event, as the binding saw it. */
struct sb_event_error {
    int restart;             /* it asks for the event to run again: an SQL
                                error judged ignorable where it was raised
                                (sb_event_error_ignorable, or the script's
                                sql_error_ignorable hook), or the script's
                                own restart request */
    int sql;                 /* a statement's error: the fields below hold */
    int status;              /* its driver status (SBD_RETRY, SBD_CONN_LOST, ...) */
    const char *sqlstate;    /* "" when none */
    long native;             /* the server's own error number */
    struct sb_conn *conn;    /* the connection it came from; NULL when unknown */
    int give_up;             /* the script gives the event up now, whatever
                                --max-retries says (pgbench's --max-tries,
                                workloads/pgbench.lua): counted as failed
                                after its connection rolls back */
};

/* The script's hook before an event runs again (sbench.hooks.
 * before_restart_event): 0, or -1 when it failed (w->error set). */
typedef int (*sb_restart_hook)(void *ctx);

/* 1 when a statement's error may restart its event whatever the script
 * says: a deadlock or serialization failure (SBD_RETRY), a lost
 * connection, or a SQLSTATE of --db-ignore-sqlstates.  What the binding
 * asks first, where the error is raised (a script's pcall sees the
 * verdict, as in sysbench). */
int sb_event_error_ignorable(const struct sb_run *run, int status, const char *sqlstate);
/* A statement's error was judged ignorable: counted as an ignored error
 * and in the worker's errors by SQLSTATE (where it is raised, as sysbench
 * counts it, whether it then restarts the event or a pcall catches it). */
void sb_event_error_ignored(struct sb_worker *w, int status, const char *sqlstate, long native);

/* The one failure policy: the event of w failed with e.  An error that
 * asks no restart is fatal (a statement's is counted as a fatal error;
 * w->error is the caller's to set, from the error's text).  Otherwise the
 * connection it came from rolls back, or, lost, reconnects (--db-reconnect,
 * with the one back-off of core/lost.h and a bounded retry); the hook runs
 * (when not NULL); *retries counts the restart, and the event's type
 * (w->event_type) its retry; past --max-retries the event is counted as
 * failed.  An error the script gives up (e->give_up, restartable or not)
 * rolls back, or reconnects, like a restartable one, and is counted as
 * failed at once (a statement's error not counted where it was raised is
 * counted here, once).  Returns SB_EVENT_RESTART (run the same event
 * again), SB_EVENT_FAILED (give it up, counted), SB_EVENT_STOP (a stop
 * request came: not counted) or SB_EVENT_FATAL (the run stops; w->error
 * says why unless it asked no restart).  Not on the measured path. */
int sb_event_failed(struct sb_worker *w, const struct sb_event_error *e, int *retries,
                    sb_restart_hook hook, void *hook_ctx);
/* Hears every decision of sb_event_failed (the attempt's error, the
 * outcome it returns, the restarts so far), on the worker's thread: set
 * once before the threads start (`sbench WORKLOAD trace`, author/), NULL
 * otherwise.  On the failure path only. */
typedef void (*sb_event_failure_observer)(const struct sb_worker *w, const struct sb_event_error *e,
                                          int outcome, int retries);
void sb_event_observe_failures(sb_event_failure_observer f);


/* An event ended well: counted as retried when it had restarts (*retries,
 * reset).  The one place a retried event is counted. */
static inline void sb_event_count_retried(struct sb_worker *w, int *retries)
{
    if (*retries > 0) {
        SB_ADD(w->stats.retried_events, 1);
        *retries = 0;
    }
}

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
        sb_stats_record_type(st, w->event_type, latency, w->event_units);
        w->event_type = -1;
        w->event_units = 1;
    }
}

static inline void sb_event_close(struct sb_worker *w, struct sb_event *ev, int64_t end)
{
    sb_event_count_retried(w, &ev->retries);
    sb_event_record(w, end - ev->t0, -1);
    ev->open = 0;
}

#endif
