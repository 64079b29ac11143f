/*
 * Host I/O (ABI 1.4) for the drivers' wire fast paths (pgsql, mysql): the
 * state of a statement whose bytes the host moves, and the two steps every
 * such driver takes the same way: what to move next (io_want) and the
 * bookkeeping of what moved (io_done).  The driver keeps its request in
 * out[0..out_len) and its answer in a buffer it grows itself; a failure of
 * the host's I/O is kept here for poll_result to report.  Part of the
 * drivers' common library; no allocation.
 */
#ifndef SBENCH_DRIVERS_HOST_IO_H
#define SBENCH_DRIVERS_HOST_IO_H

#include <sbench/driver.h>

#include <stddef.h>

struct sbc_host_io {
    int on;            /* host_io(conn, 1) accepted */
    int active;        /* the statement in flight is the host's */
    size_t sent;       /* bytes of its request sent */
    int err;           /* errno of the host's failed send or receive */
    int send_failed;   /* ... it was the send */
    int eof;           /* the host's receive saw the end of the stream */
    int big;           /* the answer passed the driver's largest answer */
};

/* A statement begins on the host's I/O (h->on), or on the driver's own
 * (active 0) when `own` says so (a deadline only the driver keeps). */
void sbc_host_io_begin(struct sbc_host_io *h, int own);

/* 1 when the host has nothing to move any more: poll_result must report
 * the failure kept here. */
static inline int sbc_host_io_failed(const struct sbc_host_io *h)
{
    return h->err != 0 || h->eof || h->big;
}

/* How many bytes the answer buffer must hold before the next receive:
 * the parser's `need` or 4 kB more than `in_len`, at most `max`.  0 when
 * the answer already reached `max` (h->big is set then). */
size_t sbc_host_io_grow_to(struct sbc_host_io *h, size_t need, size_t in_len, size_t max);

/* Fills *io: the rest of the request out[0..out_len) after h->sent, and
 * `room` bytes at `in` to receive into (nothing once a failure is known). */
void sbc_host_io_fill(const struct sbc_host_io *h, struct sbd_io *io, int fd, const void *out,
                      size_t out_len, void *in, size_t room);

/* io_done: accounts a send of out_len's request or a receive into the
 * room io_want offered (*in_len grows; room: what it offered at most). */
void sbc_host_io_done(struct sbc_host_io *h, enum sbd_io_kind kind, long result, size_t out_len,
                      size_t *in_len, size_t room);

#endif /* SBENCH_DRIVERS_HOST_IO_H */
