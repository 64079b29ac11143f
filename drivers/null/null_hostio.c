/*
 * The null driver's host I/O (ABI 1.4): the host (sbench's io_uring loop,
 * or its blocking wait) moves a statement's bytes, as it does for the
 * pgsql and mysql wire paths, so that path is tested without a server.
 * host_io(conn, 1) gives the connection a socketpair: the host's end
 * (fd[0]) and the model server's end (fd[1]).  send_query/send_execute
 * only build the request (the statement as the server will parse it);
 * io_want asks the host to send it, alone; once io_done reports it all
 * sent, the server end reads it, runs it (null_serve: counted there, so
 * the server counts exactly the statements whose bytes arrived) and
 * writes its answer, which io_want then asks the host to receive.  A lost
 * connection (--null-fail-status=lost) closes the server's end instead:
 * the host's receive sees the end of the stream.  A failed send or
 * receive, or an answer that comes back changed, loses the connection.
 * Refused (SBD_UNSUPPORTED: the driver's own I/O) with --null-delay-us,
 * whose answers only the driver's timer makes ready, and in pipeline
 * mode io_want leaves statements to the driver's own I/O.
 */
#include "null_int.h"
#include "common/error.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void close_pair(sbd_conn *c)
{
    for (int i = 0; i < 2; i++)
        if (c->hio.fd[i] >= 0)
            close(c->hio.fd[i]);
    c->hio.fd[0] = c->hio.fd[1] = -1;
    c->hio.on = 0;
}

void null_hio_init(sbd_conn *c)
{
    c->hio.fd[0] = c->hio.fd[1] = -1;
}

void null_hio_close(sbd_conn *c)
{
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
    c->hio.sent = 0;
    c->hio.got = 0;
    c->hio.err = 0;
    c->hio.state = HIO_SEND;
    return SBD_OK;
}

int null_io_want(sbd_conn *c, struct sbd_io *io)
{
    if (!c->hio.on || c->hio.state == HIO_IDLE)
        return 0;
    memset(io, 0, sizeof *io);
    io->fd = c->hio.fd[0];
    if (c->hio.state == HIO_SEND) {
        io->out = (const char *)&c->hio.req + c->hio.sent;
        io->out_len = sizeof c->hio.req - c->hio.sent;
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

/* The model server takes the whole request from its end, runs it and
 * answers (or, for a lost connection, closes its end). */
static void serve_request(sbd_conn *c)
{
    struct null_sql req;
    ssize_t n = recv(c->hio.fd[1], &req, sizeof req, MSG_DONTWAIT);
    if (n != (ssize_t)sizeof req || memcmp(&req, &c->hio.req, sizeof req) != 0) {
        fail_io(c, EPROTO); /* the bytes that arrived are not the request */
        return;
    }
    null_serve(c, &req, &c->hio.kept);
    c->hio.state = HIO_RECV;
    if (c->hio.kept.status == SBD_CONN_LOST) {
        shutdown(c->hio.fd[1], SHUT_RDWR);
        return;
    }
    if (send(c->hio.fd[1], &c->hio.kept, sizeof c->hio.kept, MSG_DONTWAIT | MSG_NOSIGNAL) !=
        (ssize_t)sizeof c->hio.kept)
        fail_io(c, errno ? errno : EIO);
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
        if (c->hio.sent == sizeof c->hio.req)
            serve_request(c);
    } else if (kind == SBD_IO_RECEIVED && c->hio.state == HIO_RECV) {
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
    if (c->hio.err == 0 && c->hio.kept.status == SBD_CONN_LOST)
        return null_deliver(c, &c->hio.kept, info); /* the server closed its end */
    c->lost = 1;
    return sbc_error(&c->err, SBD_CONN_LOST, 0, "08006", NULL,
                     "null driver: the host's %s failed: %s", c->hio.sent < sizeof c->hio.req ? "send" : "receive",
                     c->hio.err ? strerror(c->hio.err) : "the end of the stream");
}
