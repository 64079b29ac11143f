/*
 * pgsql driver: the wire-protocol fast path, as two transports (pgd_tp_wire,
 * and pgd_tp_wire_pipe in pipeline mode; see struct sbc_transport).  Sends
 * the very messages PQsendQueryPrepared and PQexec would
 * (pgsql_wire_proto.c builds them) with one send() on libpq's own socket,
 * reads the answer with recv() up to ReadyForQuery into the connection's
 * buffer and serves the result rows from there, without libpq's PGresult
 * (a malloc'ed object with per-column descriptors and per-value copies):
 * about half of the client's instructions per point select.  Chosen at
 * connect for unencrypted sessions (pgd_wire_setup says why that is
 * safe); SET and RESET, COPY (bulk load) and everything but statements
 * stay on libpq, which finds the connection exactly where it left it.
 *
 * Executes and plain queries (a simple-protocol Query, as PQexec sends)
 * take it blocking, nonblocking (send_one, wire_poll: --clients) and
 * pipelined (pipe_send, pipe_poll: --pipeline).
 *
 * Hot path: no allocation (buffers on the connection only grow), no
 * locks, no printf-style formatting; two system calls per statement (send,
 * and a recv on the socket made blocking: pgd_sock_blocking) when the
 * answer fits in one read, and two on the nonblocking path too (the
 * host's one poll covers all its connections).
 */
#include "pgsql_int.h"
#include "../common/buf.h"
#include "../common/sock_io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

static void on_notice(void *arg, const char *severity, const char *msg)
{
    (void)arg;
    pgd_notice(severity, msg);
}

/* The fast path serves a connection from connect on when --pgsql-wire
 * allows it and the session is unencrypted: under TLS or GSS encryption
 * the socket carries ciphertext that only libpq can produce and read.
 *
 * Why it may then take every statement of pgd_tp_wire's: libpq is idle
 * between the driver's calls, and its buffers hold nothing of ours.  Every
 * libpq call of this driver that waits for an answer reads it through
 * ReadyForQuery (PQexec, the PQgetResult loop of pgsql_stmt.c, poll_result
 * until in_flight is 0), and libpq reads from the socket only while it
 * waits for one, so the socket is at a message boundary with nothing
 * unsent; the driver table's calls refuse a statement while one is in
 * flight or a bulk load (COPY) runs, and a pipeline on this path is the
 * fast path's own (pgd_tp_wire_pipe).  The server sends an idle session
 * nothing unasked except a NotificationResponse (after LISTEN: the fast
 * path then hands the connection to libpq for good, see pump) and a FATAL
 * error just before it closes the connection (read at the start of the
 * next answer: the connection is lost, as libpq would report it).  When
 * libpq finds the connection broken, pgd_error hands it to libpq too, so
 * that libpq's own message reports it. */
void pgd_wire_setup(sbd_conn *c, int enabled)
{
    c->wire.notice = on_notice;
    c->wire.notice_arg = NULL;
    /* TLS: the fast path writes and reads through libpq's SSL object */
    c->tls = pgd_tls_session(c->pg);
    int encrypted = PQsslInUse(c->pg) != 0 && c->tls == NULL;
#ifdef HAVE_PQGSSENCINUSE
    encrypted = encrypted || PQgssEncInUse(c->pg) != 0;
#endif
    c->wire_on = enabled && !encrypted;
    c->tp = c->wire_on ? &pgd_tp_wire : &pgd_tp_libpq;
    if (c->wire_on && pgd_cfg.wire_timeout_ms > 0) {
        /* the blocking path's first recv of an answer waits without a
         * poll: this bounds it (libpq never blocks in recv: its socket
         * stays nonblocking while it works, so this changes nothing for
         * libpq).  The later reads poll with the answer's deadline. */
        struct timeval tv = {.tv_sec = pgd_cfg.wire_timeout_ms / 1000,
                             .tv_usec = (pgd_cfg.wire_timeout_ms % 1000) * 1000};
        setsockopt(PQsocket(c->pg), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
}

/* Sets the deadline of the answer to the request being sent: now plus
 * --db-query-timeout and PGD_TIMEOUT_GRACE_MS (a clock read per statement
 * only when the timeout is set). */
static void set_deadline(sbd_conn *c)
{
    c->wire_deadline = pgd_cfg.wire_timeout_ms > 0 ? sbc_now_ms() + pgd_cfg.wire_timeout_ms : 0;
}

/* Writes the whole request, through the session's TLS when it has one. */
static inline int send_all(sbd_conn *c, int fd, const void *p, size_t n)
{
    return c->tls != NULL ? pgd_tls_send_all(c, fd, p, n, 0) : sbc_send_all(fd, p, n, 0);
}

/* fill's status for an answer over --db-max-result-bytes. */
#define FILL_TOO_BIG (-3)

/* Appends what the socket has to w->in, first waiting for it when `wait`
 * (the first read of an answer: it cannot be there yet, and recv would
 * only say EAGAIN), never past `deadline` (sbc_now_ms() time, 0: none).
 * With `block` 0 it never waits: -2 when the socket has nothing now.
 * 1 when bytes came, 0 at end of stream, -1 with errno (ENOMEM when the
 * buffer cannot grow, ETIMEDOUT past the deadline), FILL_TOO_BIG when the
 * answer would pass --db-max-result-bytes (w->in never holds more). */
static int fill(sbd_conn *c, int fd, struct pgd_wire *w, int wait, int block, int64_t deadline)
{
    size_t max = pgd_cfg.max_answer;
    size_t want = sbc_answer_want(w->need, w->in_len, max);
    if (want == 0)
        return FILL_TOO_BIG;
    if (pgd_wire_reserve(w, want) != 0) {
        errno = ENOMEM;
        return -1;
    }
    size_t room = w->in_cap - w->in_len;
    if (room > max - w->in_len)
        room = max - w->in_len;
    long k = c->tls != NULL ? pgd_tls_recv(c, fd, w->in + w->in_len, room, block, wait, deadline)
                            : sbc_recv(fd, w->in + w->in_len, room, block, wait, deadline);
    if (k > 0) {
        w->in_len += (size_t)k;
        return 1;
    }
    return (int)k;
}

/* The connection is unusable: the stream is broken or out of step.  Shut
 * the socket so that libpq, too, sees it gone instead of reading the rest
 * of a message; the fast path never serves this connection again.  `err`
 * is an errno value, or 0. */
static int lost(sbd_conn *c, const char *what, int err)
{
    char msg[200];
    pgd_wire_off(c);
    c->wire_flight = 0;
    shutdown(PQsocket(c->pg), SHUT_RDWR);
    if (err != 0)
        snprintf(msg, sizeof msg, "connection to the server lost: %s: %s", what,
                 strerror(err));
    else
        snprintf(msg, sizeof msg, "connection to the server lost: %s", what);
    return pgd_lost(c, msg);
}

/* The server broke the protocol: lost, with SQLSTATE 08P01
 * (protocol_violation), which tells the core it is no network failure. */
static int violation(sbd_conn *c, const char *what)
{
    int rc = lost(c, what, 0);
    memcpy(c->err.sqlstate, "08P01", 6);
    return rc;
}

/* Why fill failed (got <= 0 or FILL_TOO_BIG, errno in err), as lost()
 * reports it. */
static int fill_failed(sbd_conn *c, int got, int err)
{
    char what[120];
    if (got == FILL_TOO_BIG) {
        snprintf(what, sizeof what, "an answer over --db-max-result-bytes (%zu bytes)",
                 pgd_cfg.max_answer);
        return lost(c, what, 0);
    }
    if (got == 0)
        return lost(c, "server closed the connection unexpectedly", 0);
    if (err == ETIMEDOUT) {
        snprintf(what, sizeof what, "no complete answer within --db-query-timeout "
                 "(%d s, and %d ms of grace)", (pgd_cfg.wire_timeout_ms - PGD_TIMEOUT_GRACE_MS) / 1000,
                 PGD_TIMEOUT_GRACE_MS);
        return lost(c, what, 0);
    }
    return lost(c, "receiving the answer", err);
}

/* ---- execute ----------------------------------------------------------- */

/* Turns the parsed answer into the connection's result, as take_result
 * does for the PGresult libpq would have built from the same messages. */
static int answer(sbd_conn *c, struct sbd_result_info *info)
{
    struct pgd_wire *w = &c->wire;
    struct sbd_result_info dummy;
    info = pgd_info_none(info, &dummy);
    if (w->copy)
        return pgd_fail(c, PGD_COPY_MSG);
    if (w->has_error)
        return pgd_server_error(c, w->err_state ? w->in + w->err_state : NULL,
                                w->err_msg ? w->in + w->err_msg : NULL, 0);
    if (w->has_desc) {
        /* a row-returning statement changes (RETURNING) as many rows as it
         * returns, as take_result says */
        c->wire_res = 1;
        c->nrows = w->nrows;
        c->nfields = w->nfields;
        c->row = 0;
        info->affected_rows = w->nrows;
        info->nrows = w->nrows;
        info->nfields = w->nfields;
        return SBD_OK;
    }
    if (w->tag != 0) {
        info->affected_rows = pgd_wire_tag_rows(w->in + w->tag);
        return SBD_OK;
    }
    if (w->empty)
        return SBD_OK;
    return pgd_fail(c, "the server sent no result");
}

/* Starts a request: forgets the previous answer.  The request is then
 * built in w->out. */
static void begin(sbd_conn *c)
{
    c->wire_execs++;
    pgd_wire_begin(&c->wire);
}

/* Reads and parses the answer to the request in flight up to its end, and
 * makes it the connection's result.  `block`: wait for the server (the
 * first read waits before it tries: the answer cannot be there yet); else
 * SBD_AGAIN as soon as the socket has nothing more. */
static int pump_from(sbd_conn *c, int block, int host, struct sbd_result_info *info);

static int pump(sbd_conn *c, int block, struct sbd_result_info *info)
{
    return pump_from(c, block, 0, info);
}

/* pump, reading the socket itself unless `host` (the host delivers the
 * bytes: SBD_AGAIN as soon as the parser needs more). */
static int pump_from(sbd_conn *c, int block, int host, struct sbd_result_info *info)
{
    struct pgd_wire *w = &c->wire;
    int fd = PQsocket(c->pg);
    /* a blocking socket's recv waits by itself (SO_RCVTIMEO bounds it
     * under --db-query-timeout); the later reads of an answer with a
     * deadline poll until it */
    int wait = block && !c->sock_blocking;
    int64_t deadline = c->wire_deadline;
    for (;;) {
        int step = pgd_wire_parse(w);
        if (step == PGD_WIRE_DONE)
            break;
        if (step == PGD_WIRE_BAD)
            return violation(c, w->bad);
        if (step == PGD_WIRE_COPY_IN && c->wire_pipe)
            return lost(c, "COPY in a pipeline (libpq refuses it too)", 0);
        if (step == PGD_WIRE_COPY_IN) {
            /* what pgd_copy_abort does through PQputCopyEnd (rare: sent
             * blocking even on the nonblocking path) */
            if (pgd_wire_build_copy_fail(w, PGD_COPY_REASON, !w->simple) != 0)
                return lost(c, "out of memory leaving COPY", 0);
            if (send_all(c, fd, w->out, w->out_len) != 0)
                return lost(c, "sending CopyFail", errno);
            continue;
        }
        if (host)
            return SBD_AGAIN;
        int got = fill(c, fd, w, wait, block, deadline);
        wait = block && deadline > 0;
        if (got == -2)
            return SBD_AGAIN;
        if (got <= 0 || got == FILL_TOO_BIG) {
            int err = errno;
            c->wire_flight = 0;
            /* a FATAL error (terminated backend, shutdown) comes just
             * before the end of the stream, or a reset */
            if (w->has_error) {
                lost(c, "", 0);
                return pgd_server_error(c, w->err_state ? w->in + w->err_state : NULL,
                                        w->err_msg ? w->in + w->err_msg : NULL, 1);
            }
            return fill_failed(c, got, err);
        }
    }
    c->wire_flight = 0;
    /* A session that LISTENs gets notifications while idle, which could
     * arrive in pieces between two statements: leave it to libpq.  After
     * an idle session's FATAL error (logged as a notice, as libpq does),
     * libpq, too, finds the end of the stream and reports the connection
     * lost at the next statement. */
    if (w->notified || w->closing)
        pgd_wire_off(c);
    return answer(c, info);
}

/* Builds, in c->wire.out, s's execute with params or, with s NULL, the
 * simple Query sql.  SBD_OK, or the failure's status. */
static int build(sbd_conn *c, sbd_stmt *s, const char *sql, size_t len,
                 const struct sbd_value *params, int nparams)
{
    c->wire.result_binary = s != NULL && s->result_binary;
    int bad = s != NULL ? pgd_wire_build(&c->wire, s->name, params, nparams)
                        : pgd_wire_build_query(&c->wire, sql, len);
    if (bad)
        return pgd_fail(c, "out of memory for the statement, or over the protocol's "
                           "1 GB message size");
    return SBD_OK;
}

/* The blocking fast path: builds s's execute (or, with s NULL, the simple
 * Query sql), sends it on the socket made blocking and reads the answer. */
static int run_blocking(sbd_conn *c, sbd_stmt *s, const char *sql, size_t len,
                        const struct sbd_value *params, int nparams,
                        struct sbd_result_info *info)
{
    begin(c);
    int rc = build(c, s, sql, len, params, nparams);
    if (rc != SBD_OK)
        return rc;
    c->wire.simple = s == NULL;
    set_deadline(c);
    pgd_sock_blocking(c, 1);
    if (send_all(c, PQsocket(c->pg), c->wire.out, c->wire.out_len) != 0)
        return lost(c, "sending the statement", errno);
    return pump(c, 1, info);
}

static int wire_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                        int nparams, struct sbd_result_info *info)
{
    return run_blocking(c, s, NULL, 0, params, nparams, info);
}

/* SET and RESET go to libpq (pgd_wire_query_ok says why). */
static int wire_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    if (!pgd_wire_query_ok(sql, len))
        return pgd_pq_query(c, sql, len, info);
    return run_blocking(c, NULL, sql, len, NULL, 0, info);
}

/* ---- nonblocking ------------------------------------------------------- */

/* Sends what is left of buf[0..len) after c->wire_sent bytes without
 * waiting.  0 when all of it is out, 1 when the socket is full, -1 with
 * errno. */
static int send_some(sbd_conn *c, const char *buf, size_t len)
{
    int fd = PQsocket(c->pg);
    while (c->wire_sent < len) {
        long k;
        if (c->tls != NULL)
            k = pgd_tls_send_some(c, buf + c->wire_sent, len - c->wire_sent);
        else
            k = send(fd, buf + c->wire_sent, len - c->wire_sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k > 0)
            c->wire_sent += (size_t)k;
        else if (k < 0 && errno == EINTR)
            continue;
        else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        else {
            if (k == 0)
                errno = EPIPE;
            return -1;
        }
    }
    return 0;
}

static int wire_poll(sbd_conn *c, struct sbd_result_info *info, int *want_write);

/* Sends s's execute with params (or, with s NULL, the simple Query sql)
 * without waiting for the answer. */
static int send_one(sbd_conn *c, sbd_stmt *s, const char *sql, size_t len,
                    const struct sbd_value *params, int nparams)
{
    begin(c);
    int rc = build(c, s, sql, len, params, nparams);
    if (rc != SBD_OK)
        return rc;
    c->wire.simple = s == NULL;
    c->wire_sent = 0;
    c->wire_fresh = 1;
    set_deadline(c);
    /* the host sends it (host I/O), unless a deadline bounds the answer:
     * only the driver's own reads keep it */
    if (c->host.on) /* else host.active is 0 */
        sbc_host_io_begin(&c->host, c->wire_deadline != 0);
    if (c->host.active) {
        c->wire_fresh = 0;
    } else if (send_some(c, c->wire.out, c->wire.out_len) < 0) {
        return lost(c, "sending the statement", errno);
    }
    c->wire_flight = 1;
    c->in_flight = 1;
    c->poll = wire_poll;
    return SBD_OK;
}

static int wire_send_query(sbd_conn *c, const char *sql, size_t len)
{
    if (!pgd_wire_query_ok(sql, len))
        return pgd_pq_send_query(c, sql, len);
    return send_one(c, NULL, sql, len, NULL, 0);
}

static int wire_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                             int nparams)
{
    return send_one(c, s, NULL, 0, params, nparams);
}

static int host_poll(sbd_conn *c, struct sbd_result_info *info);

/* poll_result for what send_one sent. */
static int wire_poll(sbd_conn *c, struct sbd_result_info *info, int *want_write)
{
    if (c->host.active)
        return host_poll(c, info);
    if (c->wire_sent < c->wire.out_len) {
        int r = send_some(c, c->wire.out, c->wire.out_len);
        if (r < 0) {
            c->wire_flight = 0;
            c->in_flight = 0;
            return lost(c, "sending the statement", errno);
        }
        if (r > 0) {
            *want_write = 1;
            return SBD_AGAIN;
        }
    }
    if (c->wire_fresh) {
        /* the host's first try right after the send: the answer cannot
         * be there yet, and recv would only say EAGAIN */
        c->wire_fresh = 0;
        return SBD_AGAIN;
    }
    int rc = pump(c, 0, info);
    if (rc != SBD_AGAIN)
        c->in_flight = 0;
    return rc;
}

/* ---- host I/O (ABI 1.4) ------------------------------------------------- */

int pgd_host_io(sbd_conn *c, int on)
{
    if (on && (!c->wire_on || c->tls != NULL))
        return SBD_UNSUPPORTED; /* libpq does its own I/O; TLS records are
                                   made by the session's SSL object */
    if (c->in_flight)
        return pgd_fail(c, "host_io: a statement is in flight");
    c->host.on = on;
    return SBD_OK;
}

/* What the host is to move for the statement in flight: the rest of the
 * request, and room for the answer after what came, grown as fill grows
 * it (host_io.h; nothing once a failure is known: poll_result reports). */
int pgd_io_want(sbd_conn *c, struct sbd_io *io)
{
    if (!c->host.active || !c->in_flight)
        return 0;
    struct pgd_wire *w = &c->wire;
    size_t room = 0;
    if (!sbc_host_io_failed(&c->host)) {
        size_t max = pgd_cfg.max_answer;
        size_t want = sbc_host_io_grow_to(&c->host, w->need, w->in_len, max);
        if (want > 0 && pgd_wire_reserve(w, want) != 0)
            c->host.err = ENOMEM;
        else if (want > 0)
            room = (w->in_cap < max ? w->in_cap : max) - w->in_len;
    }
    sbc_host_io_fill(&c->host, io, PQsocket(c->pg), w->out, w->out_len, w->in + w->in_len, room);
    return 1;
}

void pgd_io_done(sbd_conn *c, enum sbd_io_kind kind, long result)
{
    struct pgd_wire *w = &c->wire;
    sbc_host_io_done(&c->host, kind, result, w->out_len, &w->in_len, w->in_cap - w->in_len);
}

/* poll_result of a statement whose bytes the host moves: parses what came,
 * and reports a failure of the host's I/O as fill's are reported. */
static int host_poll(sbd_conn *c, struct sbd_result_info *info)
{
    struct pgd_wire *w = &c->wire;
    struct sbc_host_io *h = &c->host;
    int rc = SBD_AGAIN;
    if (h->err == 0 && h->sent == w->out_len)
        rc = pump_from(c, 0, 1, info);
    if (rc == SBD_AGAIN && sbc_host_io_failed(h)) {
        c->wire_flight = 0;
        if (h->send_failed)
            rc = lost(c, "sending the statement", h->err);
        else if (w->has_error && !h->big) {
            /* a FATAL error just before the end of the stream */
            lost(c, "", 0);
            rc = pgd_server_error(c, w->err_state ? w->in + w->err_state : NULL,
                                  w->err_msg ? w->in + w->err_msg : NULL, 1);
        } else
            rc = fill_failed(c, h->big ? FILL_TOO_BIG : h->eof ? 0 : -1, h->err);
    }
    if (rc != SBD_AGAIN) {
        c->in_flight = 0;
        h->active = 0;
    }
    return rc;
}

/* ---- pipelined (--pipeline) -------------------------------------------- */

/* Enters pipeline mode on the fast path (instead of libpq's): the
 * connection's transport becomes pgd_tp_wire_pipe. */
static int pipe_on(sbd_conn *c)
{
    c->tp = &pgd_tp_wire_pipe;
    c->wire_pipe = 1;
    c->pipeline = 1;
    c->pipe_out_len = c->wire_sent = 0;
    c->wire_answered = 0;
    pgd_wire_begin(&c->wire);
    c->wire.pipelined = 1;
    /* every answer is parsed as a simple Query's, which is also right for
     * a prepared statement's (it has one result) */
    c->wire.simple = 1;
    return SBD_OK;
}

/* Leaves it, with nothing in flight: back to pgd_tp_wire, or to libpq's
 * transport when the fast path gave the connection up meanwhile. */
static void pipe_off(sbd_conn *c)
{
    c->tp = c->wire_on ? &pgd_tp_wire : &pgd_tp_libpq;
    c->wire_pipe = 0;
    c->pipeline = 0;
    c->wire.pipelined = 0;
    c->wire_answered = 0;
    c->pipe_out_len = c->wire_sent = 0;
}

static int pipe_poll(sbd_conn *c, struct sbd_result_info *info, int *want_write);

/* Queues s's execute (or, with s NULL, the Query sql) behind the
 * statements not sent yet and sends what the socket takes. */
static int pipe_send(sbd_conn *c, sbd_stmt *s, const char *sql, size_t len,
                     const struct sbd_value *params, int nparams)
{
    struct pgd_wire *w = &c->wire;
    if (c->wire_sent == c->pipe_out_len)
        c->pipe_out_len = c->wire_sent = 0;
    w->out_len = 0;
    int rc = build(c, s, sql, len, params, nparams);
    if (rc != SBD_OK)
        return rc;
    /* queue it behind what is not sent yet; the queue only grows */
    char *q = sbc_grow(c->pipe_out, &c->pipe_out_cap, c->pipe_out_len + w->out_len, 1, 4096);
    if (q == NULL)
        return pgd_fail(c, "out of memory for the statement");
    c->pipe_out = q;
    memcpy(c->pipe_out + c->pipe_out_len, w->out, w->out_len);
    c->pipe_out_len += w->out_len;
    c->wire_execs++;
    if (c->in_flight == 0)
        set_deadline(c);
    c->in_flight++;
    c->wire_flight = 1;
    c->poll = pipe_poll;
    if (send_some(c, c->pipe_out, c->pipe_out_len) < 0) {
        c->in_flight = 0;
        return lost(c, "sending the statement", errno);
    }
    return SBD_OK;
}

/* poll_result in a wire pipeline: answers oldest first. */
static int pipe_poll(sbd_conn *c, struct sbd_result_info *info, int *want_write)
{
    if (c->wire_sent < c->pipe_out_len) {
        int r = send_some(c, c->pipe_out, c->pipe_out_len);
        if (r < 0) {
            c->in_flight = 0;
            return lost(c, "sending the statement", errno);
        }
        if (r > 0)
            *want_write = 1; /* and read on: the server may be waiting
                                for us to read before it reads more */
    }
    if (c->wire_answered) {
        /* the previous answer was handed out: its result is replaced now,
         * as the libpq path's is by the next result */
        pgd_clear_result(c);
        pgd_wire_next(&c->wire);
        c->wire_answered = 0;
        set_deadline(c); /* the next answer's */
    }
    int rc = pump(c, 0, info);
    if (rc == SBD_AGAIN)
        return rc;
    if (rc == SBD_CONN_LOST) { /* the rest died with the connection */
        c->in_flight = 0;
        c->wire_flight = 0;
        return rc;
    }
    c->in_flight--;
    c->wire_flight = c->in_flight > 0;
    c->wire_answered = 1;
    return rc;
}

static int pipe_send_query(sbd_conn *c, const char *sql, size_t len)
{
    return pipe_send(c, NULL, sql, len, NULL, 0);
}

static int pipe_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                             int nparams)
{
    return pipe_send(c, s, NULL, 0, params, nparams);
}

/* ---- the transports ---------------------------------------------------- */

/* pgd_tp_wire is never in pipeline mode: it only enters it. */
static int wire_pipeline(sbd_conn *c, int on)
{
    return on ? pipe_on(c) : SBD_OK;
}

/* pgd_tp_wire_pipe is always in it: it only leaves it. */
static int pipe_pipeline(sbd_conn *c, int on)
{
    if (!on)
        pipe_off(c);
    return SBD_OK;
}

/* The fast path: every statement over the wire except SET and RESET. */
const struct sbc_transport pgd_tp_wire = {
    .query = wire_query,
    .execute = wire_execute,
    .send_query = wire_send_query,
    .send_execute = wire_send_execute,
    .pipeline = wire_pipeline,
};

/* In a wire pipeline: what is sent is queued behind the statements in
 * flight.  A blocking statement (which the host sends only with nothing in
 * flight) goes through libpq, which is not in pipeline mode. */
const struct sbc_transport pgd_tp_wire_pipe = {
    .query = pgd_pq_query,
    .execute = pgd_pq_execute,
    .send_query = pipe_send_query,
    .send_execute = pipe_send_execute,
    .pipeline = pipe_pipeline,
};
