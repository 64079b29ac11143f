/*
 * The steps of a worker thread's clients that both of its event loops take
 * (the poll() one in clients.c, the io_uring one in clients_ring.c): a
 * client run until it waits for the server or its event ends, resumed when
 * its answer is in, idle clients started (round robin, --rate arrivals),
 * how long a pass may wait; and, after a fatal error, the statements still
 * in flight finished without running any client's code, under one deadline
 * (SETTLE_NS), the connections of those still unanswered then closed, so
 * that no statement is ever sent twice and no teardown waits unbounded.
 * Both loops call down into this file; it calls neither.
 *
 * Nothing here allocates, formats or locks while the run goes on.
 */
#include "clients_int.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "event.h"
#include "run.h"
#include "script.h"

/* Runs client c's code until it waits or its event ends; records the
 * event like the one-connection loop does, and in the client's own count. */
static int client_steps(struct sb_worker *w, struct client *c, int start, int *busy)
{
    struct sb_thread_stats *st = &w->stats;
    for (;;) {
        struct sb_conn *conn = NULL;
        w->conn_list = &c->conns;
        w->lost_now = &c->lost; /* a loss now is c's */
        int r = w->run->script_ops->client_step(w, c->script, start, &conn);
        w->lost_now = NULL;
        w->conn_list = &w->conns;
        switch (r) {
        case SB_EVENT_WAIT:
            c->state = C_WAIT;
            c->conn = conn;
            c->polled = 0;
            c->io_sent = 0;
            return 0;
        case SB_EVENT_RESTART:
            start = 1;
            continue;
        case SB_EVENT_DONE:
            sb_event_record(w, sb_now_ns() - c->t0, c->idx);
            /* fall through */
        case SB_EVENT_STOP:   /* not counted */
        case SB_EVENT_FAILED: /* counted as failed */
        case SB_EVENT_QUIT:   /* not counted, and the client is done */
            c->state = r == SB_EVENT_QUIT ? C_QUIT : C_IDLE;
            (*busy)--;
            atomic_store_explicit(&st->in_event, *busy, memory_order_relaxed);
            return 0;
        default:
            return -1;
        }
    }
}

/* What the thread counts from here to sb_lost_step_end is client c's own
 * (lost.h): its answers completed on resuming (on the io_uring loop all
 * of them: the kernel moved the bytes) and the statements its code ran. */
int sb_client_run(struct sb_worker *w, struct client *c, int start, int *busy)
{
    sb_lost_step_begin(&c->lost, w);
    int r = client_steps(w, c, start, busy);
    sb_lost_step_end(&c->lost, w);
    return r;
}

int sb_client_resume(struct sb_worker *w, struct client *c, int *busy)
{
    sb_lost_step_begin(&c->lost, w);
    int r = sb_conn_resume(c->conn, &c->want_write) == SBD_AGAIN ? 0
            : client_steps(w, c, 0, busy) < 0                    ? -1
                                                                 : 1;
    sb_lost_step_end(&c->lost, w);
    return r;
}

/* --rate with --clients-profile (and no --rate-profile): this thread's
 * share of the arrivals is its part of the clients the profile lets run
 * (mine of active), so that the run's arrivals keep to --rate whatever
 * the number of active clients; a thread with none takes no arrivals, and
 * starts afresh from now when it has some again (no backlog of the time
 * it had none). */
static void share_rate(struct sb_worker *w, struct pass *p, int mine, int active, int64_t now)
{
    const struct sb_run *run = w->run;
    if (run->rate <= 0 || run->rate_profile != NULL)
        return;
    double gap = mine > 0 ? 1e9 * active / (run->rate * mine) : 0;
    if (gap > 0 && p->mean_gap_ns == 0)
        p->due = sb_event_next_due(w, now, gap);
    p->mean_gap_ns = gap;
}

/* Round robin from the one after the last started, so that under --rate
 * every client gets its turn. */
int sb_clients_start_idle(struct sb_clients *cs, struct pass *p)
{
    struct sb_worker *w = cs->w;
    struct sb_run *run = w->run;
    struct sb_thread_stats *st = &w->stats;
    int n = cs->n, first = p->next; /* `next` moves on while this pass starts events */
    int64_t now = sb_now_ns();
    /* arrivals queued past --rate-backlog-max stop the run as the
     * one-client loop's do (its events in flight end as at any stop) */
    if (p->mean_gap_ns > 0 && p->due < now)
        (void)sb_event_backlog_full(w, p->due, now);
    int stopping = atomic_load_explicit(&run->stop, memory_order_relaxed);
    /* --clients-profile: client idx is the run's tid + idx * threads */
    int active = p->profiled ? sb_event_clients_active(run, now) : 0;
    if (p->profiled && !stopping) { /* only the clients that may be active are looked at */
        int mine = active > w->id ? (active - w->id + run->threads - 1) / run->threads : 0;
        if (mine < n)
            n = mine;
        if (first >= n)
            first = 0;
        share_rate(w, p, mine, active, now);
    }
    p->allowed = n;
    for (int k = 0; k < n; k++) {
        int i = first + k < n ? first + k : first + k - n;
        struct client *c = &cs->cl[i];
        if (c->state == C_QUIT || (c->state == C_IDLE && stopping)) {
            c->state = C_DONE;
            p->active--;
            continue;
        }
        if (c->state != C_IDLE || (p->profiled && w->id + i * run->threads >= active))
            continue;
        if (p->mean_gap_ns > 0 && p->due > now)
            break; /* no arrival waiting */
        if (!sb_event_may_start(run)) {
            c->state = C_DONE;
            p->active--;
            continue;
        }
        int64_t due = now;
        if (p->mean_gap_ns > 0) { /* this arrival is taken */
            due = p->due;
            p->due = sb_event_next_due(w, p->due, p->mean_gap_ns);
        }
        p->next = i + 1 < n ? i + 1 : 0;
        p->busy++;
        atomic_store_explicit(&st->in_event, p->busy, memory_order_relaxed);
        c->t0 = run->paced ? sb_event_begin_paced(w, &c->conns, now, due) : now;
        if (c->t0 < 0) { /* no connection: as the one-client loop */
            p->busy--;
            atomic_store_explicit(&st->in_event, p->busy, memory_order_relaxed);
            sb_sleep_ns(SB_EVENT_NO_CONN_PAUSE_NS);
            break;
        }
        if (sb_client_run(w, c, 1, &p->busy) < 0)
            return -1;
        now = sb_now_ns();
    }
    return 0;
}

void sb_clients_pass_init(struct sb_clients *cs, struct pass *p)
{
    struct sb_worker *w = cs->w;
    struct sb_run *run = w->run;
    /* --rate: this thread's share is proportional to its clients, so each
     * client is offered the same load when clients do not divide evenly */
    memset(p, 0, sizeof *p);
    p->active = cs->n;
    p->profiled = run->clients_profile != NULL;
    p->mean_gap_ns = run->rate > 0 ? 1e9 * run->clients / (run->rate * cs->n) : 0;
    p->due = p->mean_gap_ns > 0 ? sb_event_next_due(w, sb_now_ns(), p->mean_gap_ns) : 0;
}

int64_t sb_clients_wait_ns(const struct pass *p)
{
    /* wait for an answer, or until the next arrival when a client is idle
     * to take it (with none idle, arrivals queue up; under
     * --clients-profile only a client the profile lets run can take it:
     * a thread with none, its arrivals due, waited 0 and spun a core) */
    int64_t wait = p->profiled ? SB_EVENT_PROFILE_POLL_NS : 100000000LL;
    if (p->mean_gap_ns > 0 && p->active - p->busy > 0 && (!p->profiled || p->allowed > p->busy)) {
        int64_t d = p->due - sb_now_ns();
        wait = d < 0 ? 0 : d < wait ? d : wait;
    }
    return wait;
}

int sb_client_settle(struct client *c)
{
    int ww;
    if (sb_conn_complete(c->conn, 0, &ww) == SBD_AGAIN) {
        c->want_write = ww;
        return 0;
    }
    c->state = C_DONE; /* its answers are counted; its code does not run again */
    return 1;
}

int64_t sb_clients_settle_left(int64_t deadline)
{
    int64_t left = deadline - sb_now_ns();
    return sb_interrupted || left < 0 ? 0 : left;
}

/* A connection other than the one its client waits on with answers due
 * (pipelined statements, on the driver's own I/O): answered until the
 * deadline, one poll at a time.  A statement the host would move itself
 * is left (its connection is closed by sb_clients_abandon). */
static void settle_conn(struct sb_conn *conn, int64_t deadline)
{
    int ww;
    struct sbd_io io;
    while (sb_conn_busy(conn) && sb_conn_complete(conn, 0, &ww) == SBD_AGAIN &&
           !sb_conn_io_want(conn, &io)) {
        int64_t left = sb_clients_settle_left(deadline);
        if (left == 0)
            return;
        struct pollfd pfd = {.fd = sb_conn_socket(conn), .events = (short)(POLLIN | (ww ? POLLOUT : 0))};
        (void)poll(&pfd, 1, (int)((left < TICK_NS ? left : TICK_NS) / 1000000) + 1);
    }
}

void sb_clients_settle_rest(struct sb_clients *cs, int64_t deadline)
{
    for (int i = 0; i < cs->n; i++) {
        struct client *c = &cs->cl[i];
        for (int k = 0; k < c->conns.n; k++)
            if (!(c->state == C_WAIT && c->conns.c[k] == c->conn) && sb_conn_busy(c->conns.c[k]))
                settle_conn(c->conns.c[k], deadline);
    }
}

int sb_clients_abandon(struct sb_clients *cs)
{
    int n = 0, sent = 0;
    for (int i = 0; i < cs->n; i++) {
        struct client *c = &cs->cl[i];
        for (int k = 0; k < c->conns.n; k++) {
            struct sb_conn *conn = c->conns.c[k];
            if (c->state == C_WAIT && conn == c->conn) {
                sent += !c->unsent;
            } else if (sb_conn_busy(conn)) {
                sent++;
            } else {
                continue;
            }
            sb_conn_disconnect(conn); /* what it had in flight is never sent again */
            n++;
        }
        if (c->state == C_WAIT)
            c->state = C_DONE;
    }
    if (sent > 0)
        fprintf(stderr, "sbench: thread %d: %d connection%s closed with a statement still unanswered "
                        "after the fatal error (not counted; the server may have run it)\n",
                cs->w->id, sent, sent > 1 ? "s" : "");
    return n;
}
