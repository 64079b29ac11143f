/*
 * mysql driver: a nonblocking statement on Connector/C's non-blocking API
 * (MYD_NONBLOCK only; the driver table's calls are mysql_async.c's): the
 * library's sends (myd_tp_lib's send_query and send_execute, which the
 * fast path also hands what it does not serve) and the phases a
 * statement runs through, each a foo_start() / foo_cont() pair: the query
 * or execute, then storing its result set (if any) on the client, ending
 * in the state the blocking calls leave (myd_query_stored,
 * myd_stmt_has_rows, myd_stmt_stored).
 */
#include "mysql_int.h"

#include <stdlib.h>
#include <string.h>

void myd_async_finish(sbd_conn *c, int rc)
{
    c->async_phase = ASYNC_DONE;
    c->async_rc = rc;
    c->async_wait = 0;
}

/* Runs the statement on from its current phase until the library waits
 * for the socket (c->async_wait set) or the statement is over.  `start`:
 * the phase has not begun yet; else `events` are the MYSQL_WAIT_* that
 * occurred. */
static void advance(sbd_conn *c, int start, int events)
{
    for (;;) {
        int w = 0, ir = 0;
        MYSQL_RES *res = NULL;
        MYSQL_STMT *st = c->async_stmt != NULL ? c->async_stmt->st : NULL;
        switch (c->async_phase) {
        case ASYNC_QUERY:
            w = start ? mysql_real_query_start(&ir, c->mysql, c->async_sql,
                                               (unsigned long)c->async_sql_len)
                      : mysql_real_query_cont(&ir, c->mysql, events);
            if (w != 0)
                break;
            if (ir != 0) {
                myd_async_finish(c, myd_conn_fail(c));
                return;
            }
            c->async_phase = ASYNC_STORE;
            start = 1;
            continue;
        case ASYNC_STORE:
            w = start ? mysql_store_result_start(&res, c->mysql)
                      : mysql_store_result_cont(&res, c->mysql, events);
            if (w != 0)
                break;
            myd_async_finish(c, myd_query_stored(c, res, &c->async_info));
            return;
        case ASYNC_EXECUTE:
            w = start ? mysql_stmt_execute_start(&ir, st)
                      : mysql_stmt_execute_cont(&ir, st, events);
            if (w != 0)
                break;
            if (ir != 0) {
                myd_async_finish(c, myd_stmt_fail(c, st));
                return;
            }
            if (!myd_stmt_has_rows(c->async_stmt, &c->async_info)) {
                myd_async_finish(c, SBD_OK);
                return;
            }
            c->async_phase = ASYNC_STMT_STORE;
            start = 1;
            continue;
        case ASYNC_STMT_STORE:
            w = start ? mysql_stmt_store_result_start(&ir, st)
                      : mysql_stmt_store_result_cont(&ir, st, events);
            if (w != 0)
                break;
            myd_async_finish(c, myd_stmt_stored(c, c->async_stmt, ir != 0, &c->async_info));
            return;
        default:
            return;
        }
        c->async_wait = w;
        return;
    }
}

int myd_lib_send_query(sbd_conn *c, const char *sql, size_t len)
{
    /* the library may still write from the text after _start returns */
    if (len > c->async_sql_cap) {
        char *p = realloc(c->async_sql, len);
        if (p == NULL)
            return myd_fail(c, "mysql: out of memory for query text");
        c->async_sql = p;
        c->async_sql_cap = len;
    }
    if (len > 0)
        memcpy(c->async_sql, sql, len);
    c->async_sql_len = len;
    c->async_phase = ASYNC_QUERY;
    advance(c, 1, 0);
    return SBD_OK;
}

int myd_lib_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                         int nparams)
{
    int rc = myd_stmt_bind(c, s, params, nparams, &c->async_info);
    if (rc != SBD_OK)
        return rc;
    /* the execute packet is built from params in _start: they may go */
    c->async_stmt = s;
    c->async_phase = ASYNC_EXECUTE;
    advance(c, 1, 0);
    return SBD_OK;
}

void myd_lib_resume(sbd_conn *c, int events)
{
    advance(c, 0, events);
}
