/*
 * mysql driver: nonblocking statements (ABI 1.1 socket, send_query,
 * send_execute, poll_result) on MariaDB Connector/C's non-blocking API.
 * Built only when the client library has it (meson defines MYD_NONBLOCK);
 * Oracle's libmysqlclient lacks it and the driver then stays blocking.
 *
 * A statement runs in two phases, each a foo_start() / foo_cont() pair:
 * the query or execute, then storing its result set (if any) on the client,
 * so poll_result ends a statement in exactly the state the blocking query
 * and execute leave, and shares their final steps (myd_query_stored,
 * myd_stmt_has_rows, myd_stmt_stored) and error classification.  The
 * connection is opened with MYSQL_OPT_NONBLOCK; the library then runs the
 * blocking calls (prepare, bulk load, counters) as before.
 *
 * --db-query-timeout: the library's read/write timeout covers one wait for
 * the socket; here a statement gets the whole timeout from its send, and a
 * poll_result after that resumes the library with MYSQL_WAIT_TIMEOUT,
 * which ends the statement as the blocking timeout does (lost connection).
 * The host calls poll_result now and then even without socket events, so
 * a server that never answers is noticed.
 *
 * The final results of a CALL (drained after its first result) are read
 * blocking, as the blocking query does.
 *
 * While --mysql-wire allows it, executes and the transaction statements
 * go over the wire fast path instead (phase ASYNC_WIRE, mysql_wire.c):
 * the request is sent at once, poll_result reads the answer.  This file
 * holds the driver table's calls, which pick the path; the library's
 * phases are mysql_async_lib.c's, below both paths (the fast path hands
 * it what it does not serve).
 */
#include "mysql_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int myd_socket(sbd_conn *c)
{
    return (int)mysql_get_socket(c->mysql);
}

/* Checks that nothing is in flight and starts the statement like the
 * blocking calls do. */
static int async_begin(sbd_conn *c)
{
    if (c->async_phase != ASYNC_IDLE)
        return myd_fail(c, "mysql: a statement is already in flight on this connection");
    myd_result_begin(c, &c->async_info);
    c->async_stmt = NULL;
    c->async_deadline = myd_cfg.query_timeout > 0
                            ? now_ns() + (int64_t)myd_cfg.query_timeout * 1000000000LL
                            : 0;
    return SBD_OK;
}

int myd_send_query(sbd_conn *c, const char *sql, size_t len)
{
    int rc = async_begin(c);
    return rc != SBD_OK ? rc : c->tp->send_query(c, sql, len);
}

int myd_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams)
{
    int rc = async_begin(c);
    return rc != SBD_OK ? rc : c->tp->send_execute(c, s, params, nparams);
}

int myd_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write)
{
    *want_write = 0;
    if (c->async_phase == ASYNC_IDLE)
        return myd_fail(c, "mysql: poll_result: no statement in flight");
    if (c->async_phase == ASYNC_WIRE) {
        int rc = myd_wire_poll(c, &c->async_info);
        if (rc == SBD_AGAIN)
            return SBD_AGAIN;
        myd_async_finish(c, rc);
    }
    if (c->async_phase != ASYNC_DONE) {
        /* resume with what the library waited for: if it did not happen
         * yet, the library finds nothing to read and waits again */
        int events = c->async_wait & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE);
        if (c->async_deadline != 0 && now_ns() >= c->async_deadline)
            events = MYSQL_WAIT_TIMEOUT;
        myd_lib_resume(c, events);
    }
    if (c->async_phase != ASYNC_DONE) {
        *want_write = (c->async_wait & MYSQL_WAIT_WRITE) != 0;
        return SBD_AGAIN;
    }
    c->async_phase = ASYNC_IDLE;
    c->async_stmt = NULL;
    *info = c->async_info;
    return c->async_rc;
}

void myd_async_free(sbd_conn *c)
{
    if (c->async_phase == ASYNC_WIRE) {
        myd_wire_abandon(c);
    } else if (c->async_phase != ASYNC_IDLE && c->async_phase != ASYNC_DONE) {
        /* closing would first read the rest of the answer: cut it off */
        mariadb_cancel(c->mysql);
    }
    c->async_phase = ASYNC_IDLE;
    c->async_stmt = NULL;
    free(c->async_sql);
    c->async_sql = NULL;
    c->async_sql_cap = 0;
}
