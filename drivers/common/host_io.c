/*
 * Host I/O bookkeeping shared by the wire fast paths (host_io.h).
 */
#include "host_io.h"
#include "buf.h"

#include <errno.h>

void sbc_host_io_begin(struct sbc_host_io *h, int own)
{
    h->active = h->on && !own;
    h->sent = 0;
    h->err = h->send_failed = h->eof = h->big = 0;
}

size_t sbc_host_io_grow_to(struct sbc_host_io *h, size_t need, size_t in_len, size_t max)
{
    size_t want = sbc_answer_want(need, in_len, max);
    if (want == 0)
        h->big = 1;
    return want;
}

void sbc_host_io_fill(const struct sbc_host_io *h, struct sbd_io *io, int fd, const void *out,
                      size_t out_len, void *in, size_t room)
{
    int failed = sbc_host_io_failed(h);
    io->fd = fd;
    io->out = (const char *)out + h->sent;
    io->out_len = h->err ? 0 : out_len - h->sent;
    io->in = failed ? NULL : in;
    io->in_room = failed ? 0 : room;
}

void sbc_host_io_done(struct sbc_host_io *h, enum sbd_io_kind kind, long result, size_t out_len,
                      size_t *in_len, size_t room)
{
    if (!h->active || result == -EINTR || result == -EAGAIN || result == -ECANCELED)
        return; /* nothing moved: the host asks again */
    if (kind == SBD_IO_SENT) {
        if (result > 0 && h->sent + (size_t)result <= out_len) {
            h->sent += (size_t)result;
        } else if (h->err == 0) {
            h->err = result < 0 ? (int)-result : EPIPE;
            h->send_failed = 1;
        }
    } else if (result > 0 && (size_t)result <= room) {
        *in_len += (size_t)result;
    } else if (result == 0) {
        h->eof = 1;
    } else if (h->err == 0) {
        h->err = result < 0 ? (int)-result : EIO;
    }
}
