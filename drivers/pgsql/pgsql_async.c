/*
 * pgsql driver: nonblocking statements (socket, send_query, send_execute,
 * poll_result: --clients) and pipelines (--pipeline) through libpq.  The
 * wire fast path's own are in pgsql_wire.c.  No allocation by this file;
 * libpq allocates each PGresult.
 */
#include "pgsql_int.h"

#include <errno.h>
#include <poll.h>

int pgd_socket(sbd_conn *c) { return PQsocket(c->pg); }

/* Checks that a statement can be sent and puts the connection in
 * nonblocking mode (PQexec and friends ignore it and still block). */
static int async_start(sbd_conn *c)
{
    if (!c->pipeline || c->in_flight == 0)
        pgd_clear_result(c);
    if (c->in_copy)
        return pgd_fail(c, "a bulk load is in progress on this connection");
    if (c->in_flight && !c->pipeline)
        return pgd_fail(c, "a statement is already in flight on this connection");
    if (!c->nonblocking) {
        if (PQsetnonblocking(c->pg, 1) != 0)
            return pgd_error(c, NULL);
        c->nonblocking = 1;
    }
    return SBD_OK;
}

/* After PQsend*: in pipeline mode every statement gets its own Sync, so
 * the server runs it as it would without pipelining (PQexecPrepared also
 * ends each statement with a Sync); PQpipelineSync flushes too. */
static int async_sent(sbd_conn *c, int ok)
{
    if (ok && c->pipeline)
        ok = PQpipelineSync(c->pg);
    if (!ok)
        return pgd_error(c, NULL);
    if (c->in_flight == 0) /* the oldest answer's --db-query-timeout */
        pgd_pq_deadline(c);
    c->in_flight++;
    c->flushing = 1;
    return SBD_OK;
}

int pgd_send_query(sbd_conn *c, const char *sql, size_t len)
{
    c->async_stmt = NULL;
    int rc = async_start(c);
    return rc != SBD_OK ? rc : c->tp->send_query(c, sql, len);
}

int pgd_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams)
{
    int rc = async_start(c);
    if (rc != SBD_OK)
        return rc;
    if (nparams != s->nparams)
        return pgd_fail(c, "execute: parameter count differs from prepare");
    c->async_stmt = !s->described && !c->pipeline ? s : NULL; /* learnt at its answer */
    return c->tp->send_execute(c, s, params, nparams);
}

static int pq_poll(sbd_conn *c, struct sbd_result_info *info, int *want_write);

int pgd_pq_send_query(sbd_conn *c, const char *sql, size_t len)
{
    pgd_sock_blocking(c, 0);
    if (pgd_copy_sql(c, sql, len) != 0)
        return pgd_fail(c, "out of memory for query text");
    c->poll = pq_poll;
    /* pipeline mode allows only the extended protocol: one statement */
    if (c->pipeline)
        return async_sent(c, PQsendQueryParams(c->pg, c->sql, 0, NULL, NULL, NULL, NULL, 0));
    return async_sent(c, PQsendQuery(c->pg, c->sql));
}

int pgd_pq_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                        int nparams)
{
    pgd_sock_blocking(c, 0);
    int rc = pgd_fill_params(c, s, params, nparams);
    if (rc != SBD_OK)
        return rc;
    c->poll = pq_poll;
    return async_sent(c, PQsendQueryPrepared(c->pg, s->name, nparams, s->values,
                                             s->lengths, s->formats, s->result_binary));
}

/* Ends the statement in flight with status st (an error already set).  In
 * pipeline mode a broken connection ends them all. */
static int async_fail(sbd_conn *c, int st)
{
    if (c->async_res != NULL) {
        PQclear(c->async_res);
        c->async_res = NULL;
    }
    if (c->pipeline && PQstatus(c->pg) == CONNECTION_OK && c->in_flight > 0) {
        c->in_flight--;
        c->sync_due = 1;
    } else {
        c->in_flight = 0;
        c->sync_due = 0;
    }
    c->flushing = 0;
    return st;
}

/* The oldest statement's answer is complete: its last result (the first
 * error, if one came) becomes the current result. */
static int async_done(sbd_conn *c, struct sbd_result_info *info)
{
    PGresult *last = c->async_res;
    c->async_res = NULL;
    if (c->pipeline) {
        c->sync_due = 1; /* its Sync's result comes next */
        if (c->in_flight > 1) /* the next answer's limit starts now */
            pgd_pq_deadline(c);
    } else {
        c->in_flight = 0;
    }
    if (last == NULL) {
        if (c->pipeline)
            c->in_flight--;
        return pgd_fail(c, "the server sent no result");
    }
    if (c->pipeline) {
        c->in_flight--;
        pgd_clear_result(c);
    }
    return pgd_take_result(c, last, info);
}

int pgd_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write)
{
    *want_write = 0;
    if (!c->in_flight)
        return pgd_fail(c, "poll_result: no statement in flight");
    int rc = c->poll(c, info, want_write);
    if (c->async_stmt != NULL && rc != SBD_AGAIN) {
        if (rc == SBD_OK)
            pgd_learn_columns(c, c->async_stmt);
        c->async_stmt = NULL;
    }
    return rc;
}

/* Reads the results libpq has complete.  SBD_AGAIN while the oldest
 * statement's answer is not; then its status as query/execute give it. */
static int pq_results(sbd_conn *c, struct sbd_result_info *info)
{
    while (!PQisBusy(c->pg)) {
        PGresult *r = PQgetResult(c->pg);
        if (c->sync_due) {
            /* pipeline: the Sync after the previous statement */
            if (r == NULL)
                break; /* not there yet */
            ExecStatusType st = PQresultStatus(r);
            PQclear(r);
            if (st == PGRES_PIPELINE_SYNC)
                c->sync_due = 0;
            continue;
        }
        if (r == NULL)
            return async_done(c, info);
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) {
            /* pgd_take_result aborts the COPY (blocking) and fails */
            if (c->async_res != NULL)
                PQclear(c->async_res);
            c->async_res = NULL;
            c->in_flight = 0;
            return pgd_take_result(c, r, info);
        }
        int keep_old = c->async_res != NULL &&
                       PQresultStatus(c->async_res) == PGRES_FATAL_ERROR;
        if (keep_old) {
            PQclear(r);
        } else {
            if (c->async_res != NULL)
                PQclear(c->async_res);
            c->async_res = r;
        }
    }
    return SBD_AGAIN;
}

/* poll_result for what libpq sent: flushes the rest of the request, then
 * reads what the socket has. */
static int pq_poll(sbd_conn *c, struct sbd_result_info *info, int *want_write)
{
    pgd_sock_blocking(c, 0);
    if (c->flushing) {
        int f = PQflush(c->pg);
        if (f < 0)
            return async_fail(c, pgd_error(c, NULL));
        if (f == 1) {
            /* wait for write space; reading too (libpq's advice) */
            if (!PQconsumeInput(c->pg))
                return async_fail(c, pgd_error(c, NULL));
            if (pgd_pq_expired(c))
                return async_fail(c, pgd_error(c, NULL));
            *want_write = 1;
            return SBD_AGAIN;
        }
        c->flushing = 0;
    }
    if (!PQconsumeInput(c->pg))
        return async_fail(c, pgd_error(c, NULL));
    int rc = pq_results(c, info);
    /* no complete answer by --db-query-timeout (plus grace), as the
     * blocking path: the connection is broken, pgd_error says why */
    if (rc == SBD_AGAIN && pgd_pq_expired(c))
        return async_fail(c, pgd_error(c, NULL));
    return rc;
}

/* Waits until the connection's socket is readable.  0, or -1 on error. */
static int pqsocket_wait(sbd_conn *c)
{
    struct pollfd pfd = {.fd = PQsocket(c->pg), .events = POLLIN};
    int r;
    while ((r = poll(&pfd, 1, -1)) < 0 && errno == EINTR)
        ;
    return r < 0 ? -1 : 0;
}

int pgd_pipeline(sbd_conn *c, int on)
{
    if (on == c->pipeline)
        return SBD_OK;
    if (on) {
        int rc = async_start(c);
        if (rc != SBD_OK)
            return rc;
    } else if (c->in_flight > 0) {
        return pgd_fail(c, "pipeline: statements are still in flight");
    }
    return c->tp->pipeline(c, on);
}

/* Enters or leaves libpq's pipeline mode.  Leaving first reads the last
 * Sync result, which may still be due after the last statement's answer. */
int pgd_pq_pipeline(sbd_conn *c, int on)
{
    pgd_sock_blocking(c, 0);
    if (on) {
        if (!PQenterPipelineMode(c->pg))
            return pgd_error(c, NULL);
        c->pipeline = 1;
        c->sync_due = 0;
        return SBD_OK;
    }
    while (c->sync_due) {
        /* the Sync's result follows its statement's: it is at most one
         * network read away */
        if (PQisBusy(c->pg)) {
            if (pqsocket_wait(c) != 0 || !PQconsumeInput(c->pg))
                return pgd_error(c, NULL);
            continue;
        }
        PGresult *r = PQgetResult(c->pg);
        if (r == NULL)
            continue;
        ExecStatusType st = PQresultStatus(r);
        PQclear(r);
        if (st == PGRES_PIPELINE_SYNC)
            c->sync_due = 0;
    }
    if (!PQexitPipelineMode(c->pg))
        return pgd_error(c, NULL);
    c->pipeline = 0;
    return SBD_OK;
}

/* libpq's transport: every statement through libpq. */
const struct sbc_transport pgd_tp_libpq = {
    .query = pgd_pq_query,
    .execute = pgd_pq_execute,
    .send_query = pgd_pq_send_query,
    .send_execute = pgd_pq_send_execute,
    .pipeline = pgd_pq_pipeline,
};
