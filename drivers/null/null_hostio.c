/*
 * The null driver's host I/O (ABI 1.4): the host (sbench's io_uring loop,
 * or its blocking wait) moves a statement's bytes, as it does for the
 * pgsql and mysql wire paths, so that path is tested without a server.
 * host_io(conn, 1) gives the connection a socketpair: the host's end
 * (fd[0]) and the model server's end (fd[1]), which null_hostsrv.c's
 * thread serves as a server would.  send_query/send_execute only build
 * the request (the statement as the server will parse it); io_want asks
 * the host to send it and, in the same step, to receive its answer, as
 * the wire paths do: the io_uring loop then links the send to the
 * receive, and the answer comes while it waits in the kernel.  A lost
 * connection (--null-fail-status=lost) closes the server's end instead:
 * the host's receive sees the end of the stream.  A failed send or
 * receive, or an answer that comes back changed, loses the connection.
 * Refused (SBD_UNSUPPORTED: the driver's own I/O) with --null-delay-us,
 * whose answers only the driver's timer makes ready, and in pipeline
 * mode io_want leaves statements to the driver's own I/O.
 *
 * How the host moved the bytes shows in one count, logged at debug level
 * at disconnect: the statements whose send the host reported done before
 * their answer was written.  A send linked to its receive is reported
 * with the receive, after the answer: none; a send and a receive the host
 * does one after the other report nearly every send first.
 */#include "null_int.h"
#include "common/error.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void close_pair(sbd_conn *c)
{
    null_hsrv_remove(c);
    c->hio.on = 0;
}

void null_hio_init(sbd_conn *c)
{
    c->hio.fd[0] = c->hio.fd[1] = -1;
    c->hio.slot = -1;
}

void null_hio_close(sbd_conn *c)
{
    if (c->hio.stmts > 0)
        null_cfg.host->log(SBD_LOG_DEBUG, "null driver: %lld statements on host I/O, %lld "
                           "reported sent before their answer was written",
                           (long long)c->hio.stmts, (long long)c->hio.sent_early);
    close_pair(c);
}

int null_host_io(sbd_conn *c, int on)
{
    if (c->qn > 0 || c->hio.state != HIO_IDLE)
        return null_misuse(c, "host_io while a statement is in flight");
    if (!on) {
        close_pair(c);
        return SBD_OK;
    }
    if (null_cfg.delay_ns > 0 || c->hio.on)
        return c->hio.on ? SBD_OK : SBD_UNSUPPORTED;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->hio.fd) != 0) {
        c->hio.fd[0] = c->hio.fd[1] = -1;
        return SBD_UNSUPPORTED; /* no descriptors left: the driver's own I/O */
    }
    if (null_hsrv_add(c) != 0) {
        close_pair(c);
        return SBD_UNSUPPORTED; /* no server thread: the driver's own I/O */
    }
    c->hio.on = 1;
    return SBD_OK;
}

int null_hio_takes(const sbd_conn *c)
{
    return c->hio.on && !c->pipeline;
}

int null_hio_send(sbd_conn *c, const struct null_sql *s)
{
    if (c->hio.state != HIO_IDLE)
        return null_misuse(c, "a send while a statement is in flight");
    c->hio.req = *s;
    memset(&c->hio.kept, 0, sizeof c->hio.kept);
    c->hio.sent = 0;
    c->hio.got = 0;
    c->hio.err = 0;
    c->hio.srv_err = 0;
    atomic_store_explicit(&c->hio.answered, 0, memory_order_relaxed);
    c->hio.stmts++;
    c->hio.state = HIO_SEND; /* the server thread reads none of this before
                                the request's bytes come (after the host's send) */
    return SBD_OK;
}

int null_io_want(sbd_conn *c, struct sbd_io *io)
{
    if (!c->hio.on || c->hio.state == HIO_IDLE)
        return 0;
    memset(io, 0, sizeof *io);
    io->fd = c->hio.fd[0];
    if (c->hio.state == HIO_SEND) { /* the rest of the request, and its answer */
        io->out = (const char *)&c->hio.req + c->hio.sent;
        io->out_len = sizeof c->hio.req - c->hio.sent;
        io->in = (char *)&c->hio.ans + c->hio.got;
        io->in_room = sizeof c->hio.ans - c->hio.got;
    } else if (c->hio.state == HIO_RECV) {
        io->in = (char *)&c->hio.ans + c->hio.got;
        io->in_room = sizeof c->hio.ans - c->hio.got;
    } /* HIO_FAILED: nothing to move, poll_result reports */
    return 1;
}

static void fail_io(sbd_conn *c, int err)
{
    c->hio.err = err;
    c->hio.state = HIO_FAILED;
}

void null_io_done(sbd_conn *c, enum sbd_io_kind kind, long result)
{
    if (c->hio.state == HIO_FAILED || c->hio.state == HIO_IDLE)
        return;
    if (result < 0) {
        fail_io(c, (int)-result);
        return;
    }
    if (kind == SBD_IO_SENT && c->hio.state == HIO_SEND) {
        if ((size_t)result > sizeof c->hio.req - c->hio.sent) {
            fail_io(c, EPROTO); /* more sent than was asked */
            return;
        }
        c->hio.sent += (size_t)result;
        if (c->hio.sent < sizeof c->hio.req)
            return;
        if (!atomic_load_explicit(&c->hio.answered, memory_order_acquire))
            c->hio.sent_early++;
        c->hio.state = HIO_RECV;
    } else if (kind == SBD_IO_RECEIVED) { /* may come before its send's report */
        if (result == 0 || (size_t)result > sizeof c->hio.ans - c->hio.got) {
            fail_io(c, result == 0 ? 0 : EPROTO); /* 0: the end of the stream */
            return;
        }
        c->hio.got += (size_t)result;
    }
}

int null_hio_poll(sbd_conn *c, struct sbd_result_info *info)
{
    int state = c->hio.state;
    if (state == HIO_SEND || (state == HIO_RECV && c->hio.got < sizeof c->hio.ans))
        return SBD_AGAIN;
    c->hio.state = HIO_IDLE;
    if (state == HIO_RECV) {
        /* the answer came back through the socket: whole and unchanged */
        if (memcmp(&c->hio.ans, &c->hio.kept, sizeof c->hio.ans) == 0)
            return null_deliver(c, &c->hio.ans, info);
        c->hio.err = EPROTO;
    }
    memset(info, 0, sizeof *info);
    if (c->hio.err == 0 && c->hio.srv_err != 0)
        c->hio.err = c->hio.srv_err; /* the server refused what came */
    if (c->hio.err == 0 && c->hio.kept.status == SBD_CONN_LOST)
        return null_deliver(c, &c->hio.kept, info); /* the server closed its end */
    c->lost = 1;
    return sbc_error(&c->err, SBD_CONN_LOST, 0, "08006", NULL,
                     "null driver: the host's %s failed: %s", c->hio.sent < sizeof c->hio.req ? "send" : "receive",
                     c->hio.err ? strerror(c->hio.err) : "the end of the stream");
}
