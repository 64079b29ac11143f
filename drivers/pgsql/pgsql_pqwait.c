/*
 * pgsql driver: libpq's blocking calls, bounded.  PQexec, PQprepare and
 * PQgetResult wait for the server as long as it takes: a server that
 * answers one byte a second, or never, holds them forever.  These do what
 * they do (send, then read the results to the end and keep the last, as
 * PQexecFinish does) with the wait in between bounded by the client-side
 * query limit (--db-query-timeout plus PGD_TIMEOUT_GRACE_MS; none without
 * it).  Past it the socket is shut down, libpq finds the connection
 * closed, and pgd_error reports the timeout instead of libpq's "server
 * closed the connection unexpectedly".  Not on the statement path of the
 * wire fast path (pgsql_wire.c has its own deadline): used by prepare,
 * SET/RESET, COPY, the session's setup SQL and every statement of a
 * session libpq serves (TLS).  The nonblocking statements libpq sends
 * (pgsql_async.c: --clients with --pgsql-wire=off or TLS) keep the same
 * deadline: pgd_pq_expired, asked each time the host polls one.
 */
#include "pgsql_int.h"
#include "../common/sock_io.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

void pgd_pq_deadline(sbd_conn *c)
{
    c->pq_deadline = pgd_cfg.wire_timeout_ms > 0 ? sbc_now_ms() + pgd_cfg.wire_timeout_ms : 0;
    c->pq_timed_out = 0;
}

/* Past the deadline: the socket is shut down, so that libpq finds the
 * connection closed and pgd_error names the timeout. */
static void time_out(sbd_conn *c, int fd)
{
    c->pq_timed_out = 1;
    shutdown(fd, SHUT_RDWR);
    PQconsumeInput(c->pg); /* libpq sees the end of the stream */
}

/* Waits until libpq has flushed the request and holds a whole result (or
 * has failed: PQgetResult then says so), at most until the deadline; past
 * it the connection is shut down and c->pq_timed_out set. */
static void wait_result(sbd_conn *c)
{
    int fd = PQsocket(c->pg);
    for (;;) {
        int f = PQflush(c->pg); /* 0 in blocking mode: all sent */
        if (f < 0 || !PQconsumeInput(c->pg))
            return;
        if (f == 0 && !PQisBusy(c->pg))
            return;
        if (fd < 0 || sbc_wait(fd, f == 1 ? POLLIN | POLLOUT : POLLIN, c->pq_deadline) != 0) {
            if (errno == ETIMEDOUT)
                time_out(c, fd);
            return;
        }
    }
}

int pgd_pq_expired(sbd_conn *c)
{
    if (c->pq_deadline == 0 || sbc_now_ms() < c->pq_deadline)
        return 0;
    time_out(c, PQsocket(c->pg));
    return 1;
}

PGresult *pgd_pq_get(sbd_conn *c)
{
    if (!c->pq_timed_out)
        wait_result(c);
    return PQgetResult(c->pg);
}

PGresult *pgd_pq_last(sbd_conn *c, int sent)
{
    if (!sent)
        return NULL;
    PGresult *last = NULL, *r;
    while ((r = pgd_pq_get(c)) != NULL) {
        if (last != NULL)
            PQclear(last);
        last = r;
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH ||
            PQstatus(c->pg) == CONNECTION_BAD)
            break;
    }
    return last;
}

PGresult *pgd_pq_exec(sbd_conn *c, const char *sql)
{
    pgd_pq_deadline(c);
    return pgd_pq_last(c, PQsendQuery(c->pg, sql));
}
