/*
 * pgsql driver: opening a libpq connection step by step
 * (PQconnectStartParams + PQconnectPoll) to time its phases: the TCP
 * connect, the TLS handshake, the startup and authentication exchange up
 * to the server's first ready-for-query (struct sbd_connect_phases).
 * libpq ignores connect_timeout in this mode: the deadline (the
 * connection's connect_timeout) is kept here, over the whole connection
 * (all of libpq's hosts and attempts, where libpq gives each its own).
 */
#include "pgsql_int.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits until pg's socket is ready for st (reading or writing) or the
 * deadline (0: none) passed.  0 ready, -1 the deadline passed. */
static int wait_socket(PGconn *pg, PostgresPollingStatusType st, int64_t deadline)
{
    for (;;) {
        int ms = 1000;
        if (deadline > 0) {
            int64_t left = deadline - mono_ns();
            if (left <= 0)
                return -1;
            ms = left < 1000000000 ? (int)(left / 1000000) + 1 : 1000;
        }
        struct pollfd p = {.fd = PQsocket(pg),
                           .events = st == PGRES_POLLING_READING ? POLLIN : POLLOUT};
        if (p.fd < 0)
            return 0; /* PQconnectPoll reports the failure */
        int r = poll(&p, 1, ms);
        if (r > 0 || (r < 0 && errno != EINTR))
            return 0;
    }
}

/* The times of the state changes of one connection attempt. */
struct marks {
    int64_t t0, made, tls_end;
    int saw_tls;
};

static void note_state(struct marks *m, ConnStatusType cs, int64_t t)
{
    switch (cs) {
    case CONNECTION_NEEDED:
    case CONNECTION_STARTED: /* (again: libpq tries another host or mode) */
        m->made = m->tls_end = -1;
        m->saw_tls = 0;
        break;
    case CONNECTION_SSL_STARTUP:
        if (m->made < 0)
            m->made = t;
        m->saw_tls = 1;
        break;
    default:
        if (m->made < 0)
            m->made = t;
        /* past the handshake (libpq goes back to MADE, then sends the
         * startup message) */
        if (m->saw_tls && m->tls_end < 0)
            m->tls_end = t;
        break;
    }
}

/* The connection's connect_timeout (--db-connect-timeout's, or the
 * connection string's), seconds; 0: none. */
static int timeout_of(PGconn *pg)
{
    int s = 0;
    PQconninfoOption *opts = PQconninfo(pg);
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (strcmp(o->keyword, "connect_timeout") == 0 && o->val != NULL)
            s = atoi(o->val);
    PQconninfoFree(opts);
    return s > 0 ? (s < 2 ? 2 : s) : 0; /* libpq's own minimum is 2 s */
}

PGconn *pgd_connect_poll(const char *const *kw, const char *const *val, int expand,
                         struct sbd_connect_phases *ph, int *timed_out)
{
    struct marks m = {.t0 = mono_ns(), .made = -1, .tls_end = -1};
    *timed_out = 0;
    ph->tcp_ns = ph->tls_ns = ph->auth_ns = -1;
    PGconn *pg = PQconnectStartParams(kw, val, expand);
    if (pg == NULL || PQstatus(pg) == CONNECTION_BAD)
        return pg;
    int timeout_s = timeout_of(pg);
    int64_t deadline = timeout_s > 0 ? m.t0 + (int64_t)timeout_s * 1000000000 : 0;
    note_state(&m, PQstatus(pg), mono_ns());
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        if (wait_socket(pg, st, deadline) != 0) {
            *timed_out = 1;
            return pg;
        }
        st = PQconnectPoll(pg);
        note_state(&m, PQstatus(pg), mono_ns());
    }
    if (st != PGRES_POLLING_OK)
        return pg;
    int64_t end = mono_ns();
    if (m.made < 0)
        m.made = end;
    ph->tcp_ns = m.made - m.t0;
    ph->tls_ns = PQsslInUse(pg) && m.tls_end >= m.made ? m.tls_end - m.made : 0;
    ph->auth_ns = end - m.made - ph->tls_ns;
    return pg;
}
