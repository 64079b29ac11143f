/*
 * lost.h: what a worker does when one of its connections is lost, before
 * it reconnects (core/event.c's failure policy calls it): it backs off when losses repeat
 * with nothing done in between, and it stops the run when the server
 * breaks the protocol (SQLSTATE 08P01, which the wire fast paths give a
 * violation) again right after a fresh connection: reconnecting a
 * thousand times a second to a server that answers every statement with
 * garbage measures nothing.
 *
 * Whose losses: a worker's with one client, or under --clients each
 * client's own (core/clients_step.c keeps one sb_lost per client and
 * points w->lost_now at it while the client's code runs).  "Nothing done
 * in between": no statement of that client succeeded since its last
 * reconnect (the sum of the thread's statement counters, counted only
 * while the client runs: its answers completed on resuming, which on the
 * io_uring loop are all of them, and its code), so the count means the same on
 * every I/O path: the io_uring loop hands in a whole batch of answers at
 * once, and the losses of other clients in the batch are not this
 * client's streak.
 * The backoff is 10 ms after the second such loss in a row, doubling up to
 * 1 s; any success resets it.  At the 2nd, 4th, 8th ... loss in a row one
 * line on stderr says why (the reports only count reconnects).
 * sb_lost_before_reconnect is not on the statement path (called only
 * when a connection was lost); sb_lost_step_begin/_end are, as a load and
 * a branch per resumed client.
 */
#ifndef SB_LOST_H
#define SB_LOST_H

#include <stddef.h>
#include <stdint.h>

#include <sbench/driver.h>

struct sb_worker;

/* A worker's (or a client's) memory of its lost connections; zero is the
 * start state. */
struct sb_lost {
    uint64_t mark;     /* the thread's successful statements at the last
                          reconnect, or at the start of the client's
                          current step */
    int streak;        /* losses in a row with nothing done in between */
};

/* The successful statements of w's thread so far. */
uint64_t sb_lost_thread_done(const struct sb_worker *w);

/* Around each run of a client's code (--clients): what the thread counts
 * meanwhile is that client's.  Before: the mark moves past the other
 * clients' successes; after: a success ends its streak.  A load and a
 * branch while no loss of the client is pending. */
static inline void sb_lost_step_begin(struct sb_lost *l, const struct sb_worker *w)
{
    if (l->streak > 0)
        l->mark = sb_lost_thread_done(w);
}

static inline void sb_lost_step_end(struct sb_lost *l, const struct sb_worker *w)
{
    if (l->streak > 0 && sb_lost_thread_done(w) != l->mark)
        l->streak = 0;
}

/* Called when a connection of worker w was lost with err, before the
 * reconnect.  Sleeps the backoff (returning early when the run stops) and
 * returns 0 to reconnect, or -1 with one line in msg[0..len) when the run
 * must stop: a protocol violation repeated right after a fresh
 * connection. */
int sb_lost_before_reconnect(struct sb_lost *l, struct sb_worker *w,
                             const struct sbd_error *err, char *msg, size_t len);

#endif /* SB_LOST_H */
