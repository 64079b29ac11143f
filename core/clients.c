/*
 * Clients multiplexed on one worker thread (--clients > --threads).  The
 * thread runs an event loop over its clients: it starts an event on an
 * idle client (at once, or when a --rate arrival is due), polls the
 * sockets of all clients waiting for the server in one ppoll() and
 * resumes those whose answer is complete; with --io=uring the loop of
 * clients_ring.c does the waiting instead (this file's helpers, shared
 * through clients_int.h, do the rest).
 *
 * --rate: the thread gets rate * its clients / all clients of the
 * arrivals.  Arrivals are a sequence of scheduled times; `due` is the
 * oldest one not started yet, so the queue of arrivals waiting for an idle
 * client is implicit (every scheduled time up to now) and costs nothing.
 * An event's latency counts from its scheduled time (no coordinated
 * omission); the schedule lag is kept apart.  At stop, arrivals still
 * queued are dropped, not counted.
 *
 * Nothing here allocates, formats or locks once the loop runs.
 */
#include "clients.h"
#include "clients_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "event.h"
#include "run.h"
#include "script.h"

int sb_clients_can_multiplex(const struct sbd_driver *d)
{
    return d && (d->caps & SBD_CAP_NONBLOCKING);
}

struct sb_clients *sb_clients_create(struct sb_worker *w)
{
    struct sb_clients *cs = calloc(1, sizeof *cs);
    int n = w->nclients;
    if (cs != NULL) {
        cs->w = w;
        cs->n = n;
        cs->cl = calloc((size_t)n, sizeof *cs->cl);
        cs->pf = calloc((size_t)n, sizeof *cs->pf);
        cs->who = calloc((size_t)n, sizeof *cs->who);
    }
    if (cs == NULL || cs->cl == NULL || cs->pf == NULL || cs->who == NULL) {
        snprintf(w->error, sizeof w->error, "out of memory (%d clients)", n);
        sb_clients_destroy(cs);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        cs->cl[i].idx = i;
    return cs;
}

void sb_clients_destroy(struct sb_clients *cs)
{
    if (cs == NULL)
        return;
    for (int i = 0; cs->cl && i < cs->n; i++)
        sb_conn_list_free(&cs->cl[i].conns);
    free(cs->cl);
    free(cs->pf);
    free(cs->who);
    free(cs);
}

/* Runs `name` of client c (thread_init, thread_done) with its connections
 * listed as its own. */
static int client_call(struct sb_worker *w, struct client *c, const char *name)
{
    w->conn_list = &c->conns;
    int rc = w->run->script_ops->client_call(w, c->script, name);
    w->conn_list = &w->conns;
    return rc < 0 ? -1 : 0;
}

int sb_clients_init(struct sb_clients *cs)
{
    struct sb_worker *w = cs->w;
    for (int i = 0; i < cs->n; i++) {
        w->conn_list = &cs->cl[i].conns;
        cs->cl[i].script = w->run->script_ops->client_create(w, w->id + i * w->run->threads);
        w->conn_list = &w->conns;
        if (cs->cl[i].script == NULL || client_call(w, &cs->cl[i], "thread_init") < 0)
            return -1;
        sb_conn_list_prepare_ready(&cs->cl[i].conns); /* before the clock starts */
    }
    return 0;
}

int sb_clients_done(struct sb_clients *cs)
{
    for (int i = 0; i < cs->n; i++)
        if (client_call(cs->w, &cs->cl[i], "thread_done") < 0)
            return -1;
    return 0;
}

/* Records the event like the one-connection loop does, and in the
 * client's own count. */
int sb_client_run(struct sb_worker *w, struct client *c, int start, int *busy)
{
    struct sb_thread_stats *st = &w->stats;
    for (;;) {
        struct sb_conn *conn = NULL;
        w->conn_list = &c->conns;
        int r = w->run->script_ops->client_step(w, c->script, start, &conn);
        w->conn_list = &w->conns;
        switch (r) {
        case SB_EVENT_WAIT:
            c->state = C_WAIT;
            c->conn = conn;
            c->polled = 0;
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

int sb_client_resume(struct sb_worker *w, struct client *c, int *busy)
{
    if (sb_conn_resume(c->conn, &c->want_write) == SBD_AGAIN)
        return 0;
    return sb_client_run(w, c, 0, busy);
}

/* Round robin from the one after the last started, so that under --rate
 * every client gets its turn. */
int sb_clients_start_idle(struct sb_clients *cs, struct pass *p)
{
    struct sb_worker *w = cs->w;
    struct sb_run *run = w->run;
    struct sb_thread_stats *st = &w->stats;
    int n = cs->n, first = p->next; /* `next` moves on while this pass starts events */
    int stopping = atomic_load_explicit(&run->stop, memory_order_relaxed);
    int64_t now = sb_now_ns();
    for (int k = 0; k < n; k++) {
        int i = first + k < n ? first + k : first + k - n;
        struct client *c = &cs->cl[i];
        if (c->state == C_QUIT || (c->state == C_IDLE && stopping)) {
            c->state = C_DONE;
            p->active--;
            continue;
        }
        if (c->state != C_IDLE)
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
            p->due += sb_event_gap(w, p->mean_gap_ns);
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

/* Gathers the sockets of the clients waiting for an answer into cs->pf
 * (each tried once first: what was sent may be answered already).
 * Returns how many, or -1 on a fatal error. */
static int gather_waiting(struct sb_clients *cs, struct pass *p)
{
    int np = 0;
    for (int i = 0; i < cs->n; i++) {
        struct client *c = &cs->cl[i];
        if (c->state != C_WAIT)
            continue;
        if (!c->polled) { /* flush what was sent; the answer may be in */
            c->polled = 1;
            if (sb_conn_resume(c->conn, &c->want_write) != SBD_AGAIN) {
                if (sb_client_run(cs->w, c, 0, &p->busy) < 0)
                    return -1;
                i--; /* its next statement, if it sent one, waits too */
                continue;
            }
        }
        cs->pf[np].fd = sb_conn_socket(c->conn);
        cs->pf[np].events = (short)(POLLIN | (c->want_write ? POLLOUT : 0));
        cs->pf[np].revents = 0;
        cs->who[np++] = i;
    }
    return np;
}

void sb_clients_pass_init(struct sb_clients *cs, struct pass *p)
{
    struct sb_worker *w = cs->w;
    struct sb_run *run = w->run;
    /* --rate: this thread's share is proportional to its clients, so each
     * client is offered the same load when clients do not divide evenly */
    memset(p, 0, sizeof *p);
    p->active = cs->n;
    p->mean_gap_ns = run->rate > 0 ? 1e9 * run->clients / (run->rate * cs->n) : 0;
    p->due = p->mean_gap_ns > 0 ? sb_now_ns() + sb_event_gap(w, p->mean_gap_ns) : 0;
}

int64_t sb_clients_wait_ns(const struct pass *p)
{
    /* wait for an answer, or until the next arrival when a client is idle
     * to take it (with none idle, arrivals queue up) */
    int64_t wait = 100000000LL;
    if (p->mean_gap_ns > 0 && p->active - p->busy > 0) {
        int64_t d = p->due - sb_now_ns();
        wait = d < 0 ? 0 : d < wait ? d : wait;
    }
    return wait;
}

int sb_clients_loop(struct sb_clients *cs)
{
    if (cs->w->run->io == SB_IO_URING)
        return sb_clients_ring_loop(cs);
    struct sb_worker *w = cs->w;
    struct client *cl = cs->cl;
    int n = cs->n;
    struct pass p;
    sb_clients_pass_init(cs, &p);
    int64_t next_tick = sb_now_ns() + TICK_NS;
    while (p.active > 0) {
        if (sb_clients_start_idle(cs, &p) < 0)
            return -1;
        int np = gather_waiting(cs, &p);
        if (np < 0)
            return -1;
        int64_t wait = sb_clients_wait_ns(&p);
        if (np == 0) {
            if (p.mean_gap_ns > 0 && wait > 0)
                sb_sleep_ns(wait < 50000000LL ? wait : 50000000LL);
            continue;
        }
        struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000LL), .tv_nsec = (long)(wait % 1000000000LL)};
        int r = ppoll(cs->pf, (nfds_t)np, &ts, NULL);
        if (r < 0 && errno != EINTR) {
            snprintf(w->error, sizeof w->error, "poll: %s", strerror(errno));
            return -1;
        }
        for (int k = 0; r > 0 && k < np; k++)
            if (cs->pf[k].revents != 0 && sb_client_resume(w, &cl[cs->who[k]], &p.busy) < 0)
                return -1;
        int64_t now = sb_now_ns();
        if (now < next_tick)
            continue;
        next_tick = now + TICK_NS;
        for (int i = 0; i < n; i++)
            if (cl[i].state == C_WAIT && cl[i].polled && sb_client_resume(w, &cl[i], &p.busy) < 0)
                return -1;
    }
    return 0;
}
