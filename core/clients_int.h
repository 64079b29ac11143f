/*
 * The insides of a worker thread's set of clients (core/clients.c), shared
 * by its two event loops: the poll() one (clients.c) and the io_uring one
 * (clients_ring.c, --io=uring), and the steps both take (clients_step.c).
 * Private to those three files.
 */
#ifndef SB_CLIENTS_INT_H
#define SB_CLIENTS_INT_H

#include <sbench/driver.h>

#include <poll.h>
#include <stdint.h>

#include "db.h"
#include "run.h"

enum { C_IDLE, C_WAIT, C_QUIT, C_DONE }; /* C_QUIT: done, not yet off the active count */

struct client {
    void *script;           /* the binding's client (core/script.h) */
    struct sb_conn_list conns; /* connections its code opened (not owned) */
    int idx;                /* in the set; w->client_events[idx] */
    int state;              /* C_* */
    struct sb_conn *conn;   /* C_WAIT: the connection with a statement in flight */
    int polled;             /* poll_result tried since the send */
    int want_write;
    int64_t t0;             /* start of the current event (scheduled, under --rate) */
    /* the io_uring loop: the step queued for the statement in flight, and
     * which of its operations are still in the kernel */
    struct sbd_io io;
    int send_busy, recv_busy, poll_busy;
    int send_silent;        /* its send completes unseen, before its receive */
    int io_sent;            /* bytes of the statement in flight went to the kernel */
    int unsent;             /* after a fatal error: its request is not sent at all */
    struct sb_lost lost;    /* its own lost connections (lost.h) */
};

struct sb_clients {
    struct sb_worker *w;
    int n;
    struct client *cl;
    struct pollfd *pf;      /* scratch for one ppoll() */
    int *who;               /* pf[k] is the socket of cl[who[k]] */
};

/* Every this often a thread asks each of its waiting clients' drivers for
 * the answer even without a socket event, so that a driver can end a
 * statement past --db-query-timeout when the server never answers. */
#define TICK_NS 100000000LL

/* The loop's state between its passes. */
struct pass {
    int active;             /* clients that may still start events */
    int busy;               /* clients inside an event */
    int next;               /* where the next round robin starts */
    double mean_gap_ns;     /* --rate: this thread's mean gap, 0 = none */
    int profiled;           /* --clients-profile: clients may be left idle */
    int allowed;            /* --clients-profile: this thread's clients the
                               profile lets run now (the last pass's count) */
    int64_t due;            /* --rate: the oldest arrival not started */
};

/* After a fatal error, how long the statements still in flight may take
 * to be answered (counted as they come) before their connections are
 * closed: the bound of every loop's teardown. */
#define SETTLE_NS 1000000000LL

/* clients_step.c: the steps both loops take. */

/* The state of cs's first pass. */
void sb_clients_pass_init(struct sb_clients *cs, struct pass *p);
/* How long a pass may wait for the server: until the next --rate arrival
 * when a client is idle to take it, at most 100 ms (10 ms under
 * --clients-profile, which may wake an idle client). */
int64_t sb_clients_wait_ns(const struct pass *p);
/* Starts events on idle clients (round robin; --rate arrivals), and takes
 * the clients that are done off the active count.  -1 on a fatal error. */
int sb_clients_start_idle(struct sb_clients *cs, struct pass *p);
/* Runs client c (start: a new event) until it waits for the server or its
 * event ends, and records the event.  -1 on a fatal error (w->error). */
int sb_client_run(struct sb_worker *w, struct client *c, int start, int *busy);
/* Resumes client c if the answer it waits for is complete: 1 when it was
 * (its code ran on), 0 while it still waits, -1 on a fatal error. */
int sb_client_resume(struct sb_worker *w, struct client *c, int *busy);

/* After a fatal error: drives client c's connection (C_WAIT) towards the
 * answers of everything it has in flight, counting them, without running
 * the client's code.  1 when none is left (c is then C_DONE), 0 while
 * answers are due (c->want_write: the socket must become writable). */
int sb_client_settle(struct client *c);
/* Nanoseconds left before `deadline`; 0 once it passed or on SIGINT/SIGTERM
 * (a stop asked during a teardown is honoured at once). */
int64_t sb_clients_settle_left(int64_t deadline);
/* After the loop's own settle, the clients' other connections with answers
 * due (pipelined statements) are answered, counted, until `deadline`. */
void sb_clients_settle_rest(struct sb_clients *cs, int64_t deadline);
/* Closes the connection of every client still waiting, and every other
 * connection of theirs with answers due (a statement is
 * never sent again), says on stderr how many had sent theirs (which the
 * server may have run uncounted), and returns how many it closed. */
int sb_clients_abandon(struct sb_clients *cs);

/* clients_ring.c: sb_clients_loop on the thread's io_uring. */
int sb_clients_ring_loop(struct sb_clients *cs);

#endif
