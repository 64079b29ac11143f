/*
 * lost.h: what a worker does when one of its connections is lost, before
 * it reconnects (core/event.c's failure policy calls it): it backs off when losses repeat
 * with nothing done in between, and it stops the run when the server
 * breaks the protocol (SQLSTATE 08P01, which the wire fast paths give a
 * violation) again right after a fresh connection: reconnecting a
 * thousand times a second to a server that answers every statement with
 * garbage measures nothing.
 *
 * "Nothing done in between": no statement of the worker succeeded since
 * its last reconnect (the sum of its statement counters is unchanged).
 * The backoff is 10 ms after the second such loss in a row, doubling up to
 * 1 s; any success resets it.  At the 2nd, 4th, 8th ... loss in a row one
 * line on stderr says why (the reports only count reconnects).  Not on the statement path: called only
 * when a connection was lost.
 */
#ifndef SB_LOST_H
#define SB_LOST_H

#include <stddef.h>
#include <stdint.h>

#include <sbench/driver.h>

struct sb_worker;

/* A worker's memory of its lost connections; zero is the start state. */
struct sb_lost {
    uint64_t mark;     /* its successful statements at the last reconnect */
    int streak;        /* losses in a row with nothing done in between */
};

/* Called when a connection of worker w was lost with err, before the
 * reconnect.  Sleeps the backoff (returning early when the run stops) and
 * returns 0 to reconnect, or -1 with one line in msg[0..len) when the run
 * must stop: a protocol violation repeated right after a fresh
 * connection. */
int sb_lost_before_reconnect(struct sb_lost *l, struct sb_worker *w,
                             const struct sbd_error *err, char *msg, size_t len);

#endif /* SB_LOST_H */
