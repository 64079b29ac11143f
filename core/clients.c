/*
 * Clients multiplexed on one worker thread (--clients > --threads).  The
 * thread runs an event loop over its clients: it starts an event on an
 * idle client (at once, or when a --rate arrival is due), polls the
 * sockets of all clients waiting for the server in one ppoll() and
 * resumes those whose answer is complete; with --io=uring the loop of
 * clients_ring.c does the waiting instead.  The steps both loops take
 * (running, resuming and starting clients, the end after a fatal error)
 * are in clients_step.c, below both.
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
            int r = sb_client_resume(cs->w, c, &p->busy);
            if (r < 0)
                return -1;
            if (r > 0) {
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

/* After a fatal error: the statements still in flight are answered and
 * counted, without running the clients' code, until SETTLE_NS passed;
 * the connections of those still waiting are closed then. */
static void settle(struct sb_clients *cs)
{
    int64_t deadline = sb_now_ns() + SETTLE_NS;
    for (;;) {
        int np = 0;
        for (int i = 0; i < cs->n; i++) {
            struct client *c = &cs->cl[i];
            if (c->state != C_WAIT || sb_client_settle(c))
                continue;
            cs->pf[np].fd = sb_conn_socket(c->conn);
            cs->pf[np].events = (short)(POLLIN | (c->want_write ? POLLOUT : 0));
            cs->pf[np++].revents = 0;
        }
        int64_t left = sb_clients_settle_left(deadline);
        if (np == 0 || left == 0)
            break;
        left = left < TICK_NS ? left : TICK_NS;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)left};
        (void)ppoll(cs->pf, (nfds_t)np, &ts, NULL);
    }
    sb_clients_settle_rest(cs, deadline);
    sb_clients_abandon(cs);
}

/* The poll() loop proper. */
static int run_passes(struct sb_clients *cs)
{
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
            if ((p.mean_gap_ns > 0 || p.profiled) && wait > 0)
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

int sb_clients_loop(struct sb_clients *cs)
{
    if (cs->w->run->io == SB_IO_URING)
        return sb_clients_ring_loop(cs);
    if (run_passes(cs) == 0)
        return 0;
    settle(cs);
    return -1;
}
