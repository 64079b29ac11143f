/*
 * mysql driver: the client/server protocol fast path for executes and for
 * the transaction statements (BEGIN, COMMIT, ROLLBACK, START TRANSACTION)
 * sent as plain queries.  Sends the request that mysql_wire_proto.c
 * builds with one send() on Connector/C's own socket, reads the answer
 * with recv() until it is complete (a request/answer exchange is strictly
 * sequential, so nothing follows the answer and no byte of a later one is
 * read) and serves the result rows from the connection's buffer, without
 * Connector/C's per-execute request buffer, metadata memroot and row
 * blocks.  The nonblocking statements of --clients (mysql_async.c) take
 * the same path: the request is sent at once, and each poll_result parses
 * what the socket has (recv with MSG_DONTWAIT) until the answer is whole.
 *
 * Used only while Connector/C is idle (no result of its own pending, no
 * nonblocking statement of its own or LOAD DATA in flight), the session
 * is not compressed (an encrypted one goes through Connector/C's own
 * OpenSSL session: mysql_tls.c), and the statement's result columns
 * are of types mysql_wire_proto.c fetches exactly as Connector/C's fetch
 * into the driver's bindings does; everything else stays on Connector/C,
 * which finds the connection where it left it: its per-command sequence
 * ids restart at 0; server_status, affected rows, insert id and warning
 * count of the handle are updated from the fast path's OK/EOF packets;
 * and column definitions the server sends again at an execute (it does
 * only when they change) are copied into the statement's fields.
 *
 * Hot path: no allocation (buffers on the connection only grow), no
 * locks, no printf-style formatting except on errors; two system calls
 * per statement (send, recv) when the answer fits in one read.
 */
#include "mysql_int.h"
#include "../common/buf.h"
#include "../common/sock_io.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define MYD_CLIENT_DEPRECATE_EOF (1UL << 24)
#define MYD_CLIENT_ZSTD_COMPRESSION (1UL << 26)
#define MYD_CLIENT_QUERY_ATTRIBUTES (1UL << 27)
#define MYD_CR_SERVER_GONE 2006    /* as Connector/C reports a failed send */
#define MYD_CR_SERVER_LOST 2013    /* ... and a failed or timed-out read */

#ifdef MYD_MARIADB_CLIENT

/* The fast path serves a connection from connect on when --mysql-wire
 * allows it, the session is not compressed and, when encrypted, its TLS
 * session is one mysql_tls.c can use.  It may
 * then take every statement of myd_tp_wire's: between the driver's calls
 * Connector/C is idle (the driver table's calls refuse a statement while
 * one is in flight and first release the current result, which reads it
 * to its end; LOAD DATA runs inside bulk_end only), so the socket is at a
 * packet boundary with nothing unread. */
void myd_wire_setup(sbd_conn *c, int enabled)
{
    MYSQL *m = c->mysql;
    unsigned long flags = m->client_flag & m->server_capabilities;
    memset(&c->wire, 0, sizeof c->wire);
    c->wire.deprecate_eof = (flags & MYD_CLIENT_DEPRECATE_EOF) != 0;
    /* TLS: the fast path writes and reads through Connector/C's own
     * OpenSSL session (mysql_tls.c); it stays off when that cannot be
     * reached or is not the OpenSSL sbench links (the reason is logged at
     * --db-debug).  Compression frames packets differently; query
     * attributes (MySQL 8) change COM_QUERY. */
    const char *why = NULL;
    c->tls = enabled ? myd_tls_session(m, &c->tls_sock_flags, &why) : NULL;
    if (why != NULL)
        myd_cfg.host->log(SBD_LOG_DEBUG, "mysql: the wire fast path is off on this TLS "
                          "session: %s", why);
    int on = enabled && why == NULL &&
             (m->client_flag & CLIENT_COMPRESS) == 0 &&
             (flags & MYD_CLIENT_ZSTD_COMPRESSION) == 0 &&
             (flags & MYD_CLIENT_QUERY_ATTRIBUTES) == 0;
    c->tp = on ? &myd_tp_wire : &myd_tp_lib;
}

/* Leading keyword of sql is one of the transaction statements, whose
 * answer is an OK or ERR packet. */
static int is_txn_statement(const char *sql, size_t len)
{
    static const struct { const char *w; size_t n; } words[] = {
        {"BEGIN", 5}, {"COMMIT", 6}, {"ROLLBACK", 8}, {"START", 5},
    };
    size_t i = 0;
    while (i < len && (sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r'))
        i++;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t n = words[k].n;
        if (len - i >= n && strncasecmp(sql + i, words[k].w, n) == 0 &&
            (len - i == n || sql[i + n] == ' ' || sql[i + n] == '\t' ||
             sql[i + n] == '\n' || sql[i + n] == '\r' || sql[i + n] == ';'))
            return 1;
    }
    return 0;
}

/* ---- socket ------------------------------------------------------------ */

/* fill's status for an answer over --db-max-result-bytes. */
#define FILL_TOO_BIG (-3)

/* Appends what the socket has to w->in (nothing follows an answer, so
 * whatever comes belongs to it).  1 when bytes came, 0 at end of stream,
 * -1 with errno; with `nonblock`, -2 when nothing is there yet;
 * FILL_TOO_BIG when the answer would pass --db-max-result-bytes (w->in
 * never holds more). */
static int fill(sbd_conn *c, int fd, struct myd_wire *w, int64_t deadline, int nonblock)
{
    size_t max = myd_cfg.max_answer;
    size_t want = sbc_answer_want(w->need, w->in_len, max);
    if (want == 0)
        return FILL_TOO_BIG;
    if (myd_wire_reserve(w, want) != 0) {
        errno = ENOMEM;
        return -1;
    }
    /* keep the byte myd_wire_reserve adds for the last string terminator */
    size_t room = w->in_cap - 1 - w->in_len;
    if (room > max - w->in_len)
        room = max - w->in_len;
    long k = c->tls != NULL ? myd_tls_recv(c, fd, w->in + w->in_len, room, !nonblock, deadline)
                           : sbc_recv(fd, w->in + w->in_len, room, !nonblock,
                                      deadline > 0 && !nonblock, deadline);
    if (k > 0) {
        w->in_len += (size_t)k;
        return 1;
    }
    return (int)k;
}

/* The connection is unusable: the stream is broken or out of step.  Shut
 * the socket so that Connector/C, too, sees it gone; the fast path never
 * serves this connection again.  Reported with the code Connector/C gives
 * (CR_SERVER_GONE_ERROR for a failed send, CR_SERVER_LOST for a failed
 * read), so it is classified the same. */
static int lost_code(sbd_conn *c, unsigned code, const char *what, int err)
{
    char msg[300];
    const char *head = code == MYD_CR_SERVER_GONE ? "Server has gone away"
                                                   : "Lost connection to server during query";
    c->tp = &myd_tp_lib;
    shutdown(mysql_get_socket(c->mysql), SHUT_RDWR);
    if (err != 0)
        snprintf(msg, sizeof msg, "%s (%s: %s)", head, what, strerror(err));
    else
        snprintf(msg, sizeof msg, "%s (%s)", head, what);
    return myd_server_error(c, code, "HY000", msg);
}

static int lost(sbd_conn *c, const char *what, int err)
{
    return lost_code(c, MYD_CR_SERVER_LOST, what, err);
}

/* Sends w->out, the answer to be parsed as `binary` (execute) or not.
 * SBD_OK, or the lost connection's status. */
static int wire_send(sbd_conn *c, int binary, const struct myd_col *known, int nknown,
                     int64_t deadline)
{
    struct myd_wire *w = &c->wire;
    c->wire_execs++;
    myd_wire_begin(w, binary, known, nknown);
    int fd = (int)mysql_get_socket(c->mysql);
    if ((c->tls != NULL ? myd_tls_send_all(c, fd, w->out, w->out_len, deadline)
                        : sbc_send_all(fd, w->out, w->out_len, deadline)) != 0)
        return lost_code(c, MYD_CR_SERVER_GONE, "sending the statement", errno);
    return SBD_OK;
}

/* Reads the answer to its end (with `nonblock`, what is there now).
 * SBD_OK when it is complete, SBD_AGAIN (nonblock) when more must come,
 * or the lost connection's status. */
static int wire_recv(sbd_conn *c, int64_t deadline, int nonblock)
{
    struct myd_wire *w = &c->wire;
    int fd = (int)mysql_get_socket(c->mysql);
    for (;;) {
        int step = myd_wire_parse(w);
        if (step == MYD_WIRE_DONE)
            break;
        if (step == MYD_WIRE_BAD) {
            /* SQLSTATE 08P01 tells the core the server broke the protocol */
            int rc = lost(c, w->bad, 0);
            memcpy(c->err.sqlstate, "08P01", 6);
            return rc;
        }
        int got;
        if (c->host.active) { /* what the host's I/O brought, or its failure */
            struct sbc_host_io *h = &c->host;
            if (h->send_failed)
                return lost_code(c, MYD_CR_SERVER_GONE, "sending the statement", h->err);
            errno = h->err;
            got = h->big ? FILL_TOO_BIG : h->eof ? 0 : h->err ? -1 : -2;
        } else {
            got = fill(c, fd, w, deadline, nonblock);
        }
        if (got == -2)
            return SBD_AGAIN;
        if (got == FILL_TOO_BIG) {
            char what[100];
            snprintf(what, sizeof what, "an answer over --db-max-result-bytes (%zu bytes)",
                     myd_cfg.max_answer);
            return lost(c, what, 0);
        }
        if (got <= 0) {
            int err = errno;
            if (got == 0)
                return lost(c, "server closed the connection", 0);
            return lost(c, err == ETIMEDOUT ? "no complete answer within --db-query-timeout"
                                            : "receiving the answer", err);
        }
    }
    /* what Connector/C's handle says after the same answer */
    MYSQL *m = c->mysql;
    m->server_status = w->status;
    m->warning_count = w->warnings;
    if (w->kind == MYD_WIRE_RES_OK) {
        m->affected_rows = w->affected_rows;
        m->insert_id = w->insert_id;
    }
    return SBD_OK;
}

static int64_t query_deadline(void)
{
    return myd_cfg.query_timeout > 0 ? sbc_now_ms() + (int64_t)myd_cfg.query_timeout * 1000 : 0;
}

static int server_error(sbd_conn *c)
{
    struct myd_wire *w = &c->wire;
    char msg[MYSQL_ERRMSG_SIZE];
    size_t n = w->err_msg_len < sizeof msg - 1 ? w->err_msg_len : sizeof msg - 1;
    memcpy(msg, w->in + w->err_msg, n);
    msg[n] = 0;
    return myd_server_error(c, w->err_code, w->err_state, msg);
}

/* ---- execute and query ---------------------------------------------------- */

/* Builds the execute of s and the columns an answer without metadata
 * has: those Connector/C knows for the statement (the server sends them
 * again only when they change, to whichever path executes it then).
 * SBD_OK, MYD_WIRE_AGAIN (Connector/C's view is not usable: let it run
 * the statement) or an error status. */
static int execute_build(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                         int nparams)
{
    MYSQL_STMT *st = s->st;
    if (s->ncols > 0 && (st->fields == NULL || st->field_count != s->ncols))
        return MYD_WIRE_AGAIN;
    if (myd_wire_build_execute(&c->wire, (uint32_t)st->stmt_id, params, nparams) != 0)
        return myd_fail(c, "mysql: execute: out of memory for parameters, or over "
                            "1 GB");
    for (unsigned i = 0; i < s->ncols; i++) {
        s->wcols[i].type = (unsigned char)st->fields[i].type;
        s->wcols[i].flags = (unsigned short)st->fields[i].flags;
    }
    return SBD_OK;
}

/* Turns the complete answer to an execute of s into the connection's
 * result and info, as myd_stmt_has_rows / myd_stmt_stored do for
 * Connector/C's.  `rerun`: a SELECT whose values cannot be fetched as
 * Connector/C would may be run again there (MYD_WIRE_AGAIN). */
static int execute_answer(sbd_conn *c, sbd_stmt *s, struct sbd_result_info *info,
                          int rerun)
{
    struct myd_wire *w = &c->wire;
    MYSQL_STMT *st = s->st;
    switch (w->kind) {
    case MYD_WIRE_RES_ERR:
        return server_error(c);
    case MYD_WIRE_RES_OK:
        info->affected_rows = (int64_t)w->affected_rows;
        return SBD_OK;
    case MYD_WIRE_RES_ROWS: {
        int same = (unsigned)w->ncols == s->ncols;
        if (same && w->meta_sent)
            for (int i = 0; i < w->ncols; i++) {
                /* new metadata: Connector/C must decode a later answer
                 * that leaves it out as the server expects, so it learns
                 * the columns as its own execute would have */
                MYSQL_FIELD *f = &st->fields[i];
                f->type = (enum enum_field_types)w->cols[i].type;
                f->flags = w->cols[i].flags;
                f->decimals = w->cols[i].decimals;
                f->charsetnr = w->cols[i].charset;
                f->length = w->cols[i].length;
            }
        for (int i = 0; same && i < w->ncols; i++)
            same = myd_wire_convertible(w->cols[i].type, &s->pcols[i]);
        if (!same) {
            /* Connector/C would convert these values in ways the fast
             * path does not repeat: it serves this statement from now on */
            s->wire_ok = 0;
            if (rerun && s->wire_select)
                return MYD_WIRE_AGAIN;
            return myd_fail(c, "mysql: execute: the result columns changed their "
                                "types since prepare; run with --mysql-wire=off");
        }
        if (myd_wire_conv_reserve(w) != 0)
            return myd_fail(c, "mysql: out of memory for a result");
        c->res_kind = RES_WIRE;
        c->cur = s;
        c->wire_row = 0;
        info->affected_rows = 0;
        info->nrows = w->nrows;
        info->nfields = w->ncols;
        return SBD_OK;
    }
    default:
        return lost(c, "no result in the answer", 0);
    }
}

/* The answer to a transaction statement. */
static int query_answer(sbd_conn *c, struct sbd_result_info *info)
{
    struct myd_wire *w = &c->wire;
    if (w->kind == MYD_WIRE_RES_ERR)
        return server_error(c);
    if (w->kind == MYD_WIRE_RES_OK) {
        info->affected_rows = (int64_t)w->affected_rows;
        return SBD_OK;
    }
    /* a transaction statement never returns rows; the answer was read
     * whole, so the connection stays usable */
    return myd_fail(c, "mysql: a transaction statement returned a result set");
}

/* The blocking execute of s; MYD_WIRE_AGAIN when Connector/C must run it
 * (execute_build, execute_answer say when). */
static int run_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                       int nparams, struct sbd_result_info *info)
{
    int rc = execute_build(c, s, params, nparams);
    if (rc != SBD_OK)
        return rc;
    int64_t deadline = query_deadline();
    rc = wire_send(c, 1, s->wcols, (int)s->ncols, deadline);
    if (rc == SBD_OK)
        rc = wire_recv(c, deadline, 0);
    return rc != SBD_OK ? rc : execute_answer(c, s, info, 1);
}

static int wire_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                        int nparams, struct sbd_result_info *info)
{
    if (s->wire_ok) {
        int rc = run_execute(c, s, params, nparams, info);
        if (rc != MYD_WIRE_AGAIN)
            return rc;
        myd_result_begin(c, info); /* s->wire_ok is 0 now */
    }
    return myd_lib_execute(c, s, params, nparams, info);
}

/* Transaction statements over the wire; the others on Connector/C. */
static int wire_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    if (!is_txn_statement(sql, len))
        return myd_lib_query(c, sql, len, info);
    if (myd_wire_build_query(&c->wire, sql, len) != 0)
        return myd_fail(c, "mysql: query: out of memory");
    int64_t deadline = query_deadline();
    int rc = wire_send(c, 0, NULL, 0, deadline);
    if (rc == SBD_OK)
        rc = wire_recv(c, deadline, 0);
    return rc != SBD_OK ? rc : query_answer(c, info);
}

/* ---- nonblocking statements (mysql_async.c) ------------------------------- */

#ifdef MYD_NONBLOCK
/* wire_send for a nonblocking statement: with host I/O on, only built (the
 * host sends it), unless a deadline bounds the answer: only the driver's
 * own reads keep it.  Apart from wire_send, so that the blocking path
 * stays as it was (inlined, no test per statement). */
static int wire_send_nb(sbd_conn *c, int binary, const struct myd_col *known, int nknown,
                        int64_t deadline)
{
    if (c->host.on) {
        sbc_host_io_begin(&c->host, deadline != 0);
        if (c->host.active) {
            c->wire_execs++;
            myd_wire_begin(&c->wire, binary, known, nknown);
            return SBD_OK;
        }
    }
    return wire_send(c, binary, known, nknown, deadline);
}

/* The sends start phase ASYNC_WIRE: myd_wire_poll reads the answer, and
 * a failure to send is reported by poll_result, as the library's are. */
static int wire_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                             int nparams)
{
    if (nparams == s->nparams && s->wire_ok) {
        int rc = execute_build(c, s, params, nparams);
        if (rc != MYD_WIRE_AGAIN) {
            c->async_phase = ASYNC_WIRE;
            if (rc == SBD_OK) {
                c->wire_async = s;
                rc = wire_send_nb(c, 1, s->wcols, (int)s->ncols, c->async_deadline / 1000000);
            }
            if (rc != SBD_OK)
                myd_async_finish(c, rc);
            return SBD_OK;
        }
    }
    return myd_lib_send_execute(c, s, params, nparams);
}

static int wire_send_query(sbd_conn *c, const char *sql, size_t len)
{
    if (!is_txn_statement(sql, len))
        return myd_lib_send_query(c, sql, len);
    c->async_phase = ASYNC_WIRE;
    c->wire_async = NULL;
    int rc = myd_wire_build_query(&c->wire, sql, len) != 0
             ? myd_fail(c, "mysql: query: out of memory")
             : wire_send_nb(c, 0, NULL, 0, c->async_deadline / 1000000);
    if (rc != SBD_OK)
        myd_async_finish(c, rc);
    return SBD_OK;
}
#endif

int myd_wire_poll(sbd_conn *c, struct sbd_result_info *info)
{
    int rc = c->host.active && c->host.sent < c->wire.out_len && c->host.err == 0
                 ? SBD_AGAIN /* the host has not sent it all yet */
                 : wire_recv(c, c->async_deadline / 1000000, 1);
    if (rc != SBD_AGAIN)
        c->host.active = 0;
    if (rc != SBD_OK)
        return rc;
    sbd_stmt *s = c->wire_async;
    c->wire_async = NULL;
    return s != NULL ? execute_answer(c, s, info, 0) : query_answer(c, info);
}

#ifdef MYD_NONBLOCK
/* ---- host I/O (ABI 1.4) ------------------------------------------------- */

int myd_host_io(sbd_conn *c, int on)
{
    if (on && (c->tp != &myd_tp_wire || c->tls != NULL))
        return SBD_UNSUPPORTED; /* Connector/C does its own I/O; TLS records
                                   are made by the session's SSL object */
    if (c->async_phase != ASYNC_IDLE)
        return myd_fail(c, "mysql: host_io: a statement is in flight");
    c->host.on = on;
    return SBD_OK;
}

/* What the host is to move for the statement in flight: the rest of the
 * request, and room for the answer after what came, grown as fill grows
 * it (host_io.h; nothing once a failure is known: poll_result reports). */
int myd_io_want(sbd_conn *c, struct sbd_io *io)
{
    if (!c->host.active || c->async_phase != ASYNC_WIRE)
        return 0;
    struct myd_wire *w = &c->wire;
    size_t room = 0;
    if (!sbc_host_io_failed(&c->host)) {
        size_t max = myd_cfg.max_answer;
        size_t want = sbc_host_io_grow_to(&c->host, w->need, w->in_len, max);
        if (want > 0 && myd_wire_reserve(w, want) != 0)
            c->host.err = ENOMEM;
        else if (want > 0) /* keep the byte myd_wire_reserve adds for a terminator */
            room = (w->in_cap - 1 < max ? w->in_cap - 1 : max) - w->in_len;
    }
    sbc_host_io_fill(&c->host, io, (int)mysql_get_socket(c->mysql), w->out, w->out_len,
                     w->in + w->in_len, room);
    return 1;
}

void myd_io_done(sbd_conn *c, enum sbd_io_kind kind, long result)
{
    struct myd_wire *w = &c->wire;
    sbc_host_io_done(&c->host, kind, result, w->out_len, &w->in_len, w->in_cap - 1 - w->in_len);
}
#endif

/* The fast path: executes of statements whose results it decodes, and
 * the transaction statements; everything else on Connector/C. */
const struct sbc_transport myd_tp_wire = {
    .query = wire_query,
    .execute = wire_execute,
#ifdef MYD_NONBLOCK
    .send_query = wire_send_query,
    .send_execute = wire_send_execute,
#endif
};

#else /* libmysqlclient: its handle's layout differs; no fast path */

void myd_wire_setup(sbd_conn *c, int enabled)
{
    (void)enabled;
    c->tp = &myd_tp_lib;
}

#endif
