/*
 * Clients multiplexed on one worker thread (--clients > --threads): the
 * thread's client coroutines and the event loop that drives them (events
 * started at once or on --rate arrivals, one poll() over the sockets of
 * the clients waiting for the server, --reconnect=transaction per client).
 * A set belongs to the worker thread that created it.
 */
#ifndef SB_CLIENTS_H
#define SB_CLIENTS_H

#include <sbench/driver.h>

struct sb_worker;
struct sb_conn;
struct sb_clients;

/* 1 when the driver can run many connections on one thread. */
int sb_clients_can_multiplex(const struct sbd_driver *d);

/* Allocates the set of worker w's w->nclients clients (nothing created in
 * Lua yet).  Returns it, or NULL when out of memory (w->error set).  Free
 * with sb_clients_destroy, after lua_close of w's state: the connections
 * of the clients point at their client until they are collected. */
struct sb_clients *sb_clients_create(struct sb_worker *w);
void sb_clients_destroy(struct sb_clients *cs);

/* Creates every client in w's Lua state and runs its thread_init.
 * Returns 0, or -1 with w->error set. */
int sb_clients_init(struct sb_clients *cs);

/* Runs events until the run stops (or --events is reached) and every
 * event in flight has ended; counts them per thread and per client.
 * Returns 0, or -1 on a fatal error (w->error set). */
int sb_clients_loop(struct sb_clients *cs);

/* Runs every client's thread_done.  Returns 0, or -1 with w->error set. */
int sb_clients_done(struct sb_clients *cs);

#endif
