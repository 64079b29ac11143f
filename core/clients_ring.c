/*
 * The clients' event loop on the thread's io_uring (--io=uring; the poll()
 * loop is in clients.c).  Each pass starts events on idle clients, queues
 * the I/O of every client waiting for the server and hands it all to the
 * kernel in one io_uring_enter that also waits for the first completion:
 * a statement whose bytes the host moves (the driver's host I/O: its
 * request's send linked to the receive of its answer), or else a wait on
 * the connection's socket after which the driver reads as in the poll()
 * loop.  A client is resumed only when none of its operations is in the
 * kernel any more, so its connection's buffers are never moved or freed
 * under a pending receive.  A statement's bytes go to the kernel once:
 * after a fatal error (settle) only what is already there is finished,
 * under the deadline SETTLE_NS, then every operation still pending is
 * cancelled and waited for (sb_ring_destroy) and the connections of the
 * clients still waiting are closed, so that nothing the kernel may have
 * sent is sent again by the teardown.
 *
 * Nothing here allocates, formats or locks once the loop runs.
 */
#include "clients.h"
#include "clients_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "event.h"
#include "io_ring.h"
#include "run.h"

enum { OP_SEND = 1, OP_RECV = 2, OP_POLL = 3 };
#define TAG(i, op) ((uint64_t)(i) << 2 | (uint64_t)(op))

static int ring_full(struct sb_worker *w)
{
    snprintf(w->error, sizeof w->error, "io_uring: no room to queue a request");
    return -1;
}

/* Client c's statement can go on without the kernel: resumed (its code
 * runs on), or after a fatal error (p NULL) settled (its answers counted,
 * its code never run again).  -1 on a fatal error. */
static int proceed(struct sb_clients *cs, struct client *c, struct pass *p)
{
    if (p == NULL)
        return sb_client_settle(c), 0;
    return sb_client_resume(cs->w, c, &p->busy);
}

/* Queues the I/O of every client waiting for the server that has nothing
 * in the kernel: its statement's send and receive (host I/O) or a wait on
 * its socket (the driver's own I/O, tried once first as the poll() loop
 * does: what was sent may be answered already).  After a fatal error (p
 * NULL) no request is sent that had not started: only what was already
 * in the kernel is finished.  -1 on a fatal error. */
static int arm_waiting(struct sb_clients *cs, struct sb_ring *ring, struct pass *p)
{
    struct sb_worker *w = cs->w;
    int skips = sb_ring_skips_sends(ring);
    for (int i = 0; i < cs->n; i++) {
        struct client *c = &cs->cl[i];
        if (c->state != C_WAIT || c->send_busy || c->recv_busy || c->poll_busy)
            continue;
        struct sbd_io *io = &c->io;
        if (sb_conn_io_want(c->conn, io)) {
            if (io->out_len == 0 && io->in_room == 0) {
                /* nothing left to move: its failure is known */
                if (proceed(cs, c, p) < 0)
                    return -1;
                if (c->state == C_WAIT && sb_conn_io_want(c->conn, io) &&
                    io->out_len == 0 && io->in_room == 0) {
                    if (p == NULL)
                        continue; /* left to sb_clients_abandon */
                    snprintf(w->error, sizeof w->error,
                             "driver %s asks for no I/O and ends no statement", w->run->drv->name);
                    return -1;
                }
                i--; /* its next statement, if it sent one, waits too */
                continue;
            }
            if (p == NULL && !c->io_sent) {
                c->unsent = 1; /* never sent: left so (sb_clients_abandon) */
                continue;
            }
            if (sb_ring_send_recv(ring, io->fd, io->out, io->out_len, TAG(i, OP_SEND),
                                  io->in, io->in_room, TAG(i, OP_RECV)) < 0)
                return ring_full(w);
            /* a send linked to its receive completes before it, and
             * reports only a failure */
            c->send_silent = io->out_len > 0 && skips && io->in_room > 0;
            c->send_busy = io->out_len > 0 && !c->send_silent;
            c->recv_busy = io->in_room > 0;
            c->io_sent = 1;
            continue;
        }
        if (!c->polled) {
            c->polled = 1;
            if (proceed(cs, c, p) < 0)
                return -1;
            if (c->state != C_WAIT || !c->polled) { /* done, or its next statement */
                i--;
                continue;
            }
        }
        if (sb_ring_poll(ring, sb_conn_socket(c->conn),
                         POLLIN | (c->want_write ? POLLOUT : 0), TAG(i, OP_POLL)) < 0)
            return ring_full(w);
        c->poll_busy = 1;
    }
    return 0;
}

/* One completion for client c (p NULL: after a fatal error).  -1 on a
 * fatal error. */
static int completed(struct sb_clients *cs, struct sb_ring *ring, struct pass *p,
                     const struct sb_ring_done *d)
{
    struct sb_worker *w = cs->w;
    int i = (int)(d->tag >> 2);
    if (i < 0 || i >= cs->n)
        return 0;
    struct client *c = &cs->cl[i];
    switch ((int)(d->tag & 3)) {
    case OP_SEND: { /* a silent send comes only when it failed */
        int linked = c->send_silent; /* then its receive's -ECANCELED follows */
        c->send_busy = c->send_silent = 0;
        sb_conn_io_done(c->conn, SBD_IO_SENT, d->result);
        if (d->result > 0 && (size_t)d->result < c->io.out_len) {
            /* the rest of a short send (the receive stays queued) */
            c->io.out = (const char *)c->io.out + d->result;
            c->io.out_len -= (size_t)d->result;
            if (sb_ring_send_recv(ring, c->io.fd, c->io.out, c->io.out_len, TAG(i, OP_SEND),
                                  NULL, 0, 0) < 0)
                return ring_full(w);
            c->send_busy = 1;
        } else if (d->result <= 0 && d->result != -ECANCELED && c->recv_busy && !linked) {
            /* no answer will come to a request not sent */
            if (sb_ring_cancel(ring, TAG(i, OP_RECV)) < 0)
                return ring_full(w);
        }
        break;
    }
    case OP_RECV:
        c->recv_busy = 0;
        if (c->send_silent) {
            c->send_silent = 0;
            if (d->result == -ECANCELED)
                c->send_busy = 1; /* its send failed: that completion follows */
            else /* a linked receive starts only after the whole send */
                sb_conn_io_done(c->conn, SBD_IO_SENT, (long)c->io.out_len);
        }
        sb_conn_io_done(c->conn, SBD_IO_RECEIVED, d->result);
        break;
    case OP_POLL:
        c->poll_busy = 0;
        break;
    default:
        return 0;
    }
    if (c->state == C_WAIT && !c->send_busy && !c->recv_busy && !c->poll_busy)
        return proceed(cs, c, p);
    return 0;
}

/* The loop proper; the caller frees the ring, which waits for what is
 * still in the kernel. */
static int run_passes(struct sb_clients *cs, struct sb_ring *ring, struct sb_ring_done *done,
                      int max)
{
    struct sb_worker *w = cs->w;
    struct pass p;
    sb_clients_pass_init(cs, &p);
    int64_t next_tick = sb_now_ns() + TICK_NS;
    while (p.active > 0) {
        if (sb_clients_start_idle(cs, &p) < 0 || arm_waiting(cs, ring, &p) < 0)
            return -1;
        int64_t wait = sb_clients_wait_ns(&p);
        if (sb_ring_pending(ring) == 0) {
            if ((p.mean_gap_ns > 0 || p.profiled) && wait > 0)
                sb_sleep_ns(wait < 50000000LL ? wait : 50000000LL);
            continue;
        }
        int nd = sb_ring_wait(ring, wait, done, max);
        if (nd < 0) {
            snprintf(w->error, sizeof w->error, "io_uring: %s", strerror(errno));
            return -1;
        }
        for (int k = 0; k < nd; k++)
            if (completed(cs, ring, &p, &done[k]) < 0)
                return -1;
        int64_t now = sb_now_ns();
        if (now < next_tick)
            continue;
        next_tick = now + TICK_NS;
        /* the driver's own I/O: let it see a --db-query-timeout pass */
        for (int i = 0; i < cs->n; i++) {
            struct client *c = &cs->cl[i];
            if (c->state == C_WAIT && c->polled && !c->send_busy && !c->recv_busy &&
                sb_client_resume(w, c, &p.busy) < 0)
                return -1;
        }
    }
    return 0;
}

/* After a fatal error: what is in the kernel is finished and its answers
 * counted, without running the clients' code, until SETTLE_NS passed or
 * a signal; what remains is cancelled by sb_ring_destroy.  The fatal
 * error stays the one reported. */
static void settle(struct sb_clients *cs, struct sb_ring *ring, struct sb_ring_done *done, int max,
                   int64_t deadline)
{
    struct sb_worker *w = cs->w;
    char fatal[sizeof w->error];
    memcpy(fatal, w->error, sizeof fatal);
    for (;;) {
        if (arm_waiting(cs, ring, NULL) < 0)
            break;
        int64_t left = sb_clients_settle_left(deadline);
        if (sb_ring_pending(ring) == 0 || left == 0)
            break;
        int nd = sb_ring_wait(ring, left < TICK_NS ? left : TICK_NS, done, max);
        for (int k = 0; k < nd; k++)
            if (completed(cs, ring, NULL, &done[k]) < 0)
                break;
        if (nd < 0)
            break;
    }
    memcpy(w->error, fatal, sizeof fatal);
}

int sb_clients_ring_loop(struct sb_clients *cs)
{
    struct sb_worker *w = cs->w;
    char err[200];
    int max = 3 * cs->n + 8;
    struct sb_ring_done *done = calloc((size_t)max, sizeof *done);
    struct sb_ring *ring = done != NULL ? sb_ring_create(2 * cs->n + 8, err, sizeof err) : NULL;
    if (ring == NULL) {
        /* its connections wait for the host's I/O already: no quiet
         * fallback to poll() here (sb_ring_available said yes before) */
        snprintf(w->error, sizeof w->error, "io_uring for this thread's clients: %s (run with --io=poll)",
                 done == NULL ? "out of memory" : err);
        free(done);
        return -1;
    }
    int rc = run_passes(cs, ring, done, max);
    int64_t deadline = sb_now_ns() + SETTLE_NS;
    if (rc < 0)
        settle(cs, ring, done, max, deadline);
    sb_ring_destroy(ring); /* cancels what is left, and waits for the kernel */
    if (rc < 0) { /* after: no buffer of theirs is in the kernel */
        sb_clients_settle_rest(cs, deadline);
        sb_clients_abandon(cs);
    }
    free(done);
    return rc;
}
