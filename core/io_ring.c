/*
 * One worker thread's io_uring (io_ring.h), over liburing.  Tags are the
 * caller's; the top bit marks, inside, a send whose success posts no
 * completion, so that only completions the caller waits for count as
 * pending.  On kernels from 6.1 (IORING_SETUP_DEFER_TASKRUN accepted) a
 * send is linked to its receive and skips its completion on success
 * (IOSQE_CQE_SKIP_SUCCESS; with MSG_WAITALL the kernel finishes a short
 * send itself): one completion per statement, and the kernel runs the
 * completions' work only inside the thread's one io_uring_enter per pass.
 * Older kernels get a plain ring: sends and receives each complete.
 * When a send that skips its success fails, the kernel posts its error
 * and no completion at all for the receive linked to it (io_uring_enter(2),
 * IOSQE_CQE_SKIP_SUCCESS: "CQEs for all linked requests will be
 * omitted"): the send's tag therefore carries its receive's, and the ring
 * returns that receive as cancelled (-ECANCELED) right after the send's
 * error, so that no receive stays counted as pending for ever (a run whose
 * every connection over a Unix socket was killed at once hung so: the
 * sends failed with EPIPE, #39).
 */
#include "io_ring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SB_HAVE_URING
#include <liburing.h>
#include <sys/socket.h>

#define SILENT_BIT (1ULL << 63)  /* a send that completes only on failure */
#define CANCEL_TAG (~0ULL >> 1)  /* our own cancellations: never returned */
/* A silent send's data: SILENT_BIT, its tag above LINK_SHIFT, its
 * receive's below; tags that do not fit are not linked. */
#define LINK_SHIFT 31
#define LINK_MASK ((1ULL << LINK_SHIFT) - 1)

struct sb_ring {
    struct io_uring ring;
    int linked;                  /* send+receive linked, sends skip success */
    int pending;                 /* completions still to come */
};

int sb_ring_available(char *err, size_t errlen)
{
    struct io_uring ring;
    int rc = io_uring_queue_init(4, &ring, 0);
    if (rc < 0) {
        snprintf(err, errlen, "io_uring is not available here: %s", strerror(-rc));
        return 0;
    }
    io_uring_queue_exit(&ring);
    return 1;
}

struct sb_ring *sb_ring_create(int ops, char *err, size_t errlen)
{
    struct sb_ring *r = calloc(1, sizeof *r);
    if (r == NULL) {
        snprintf(err, errlen, "out of memory for the io_uring");
        return NULL;
    }
    unsigned entries = 8;
    while (entries < (unsigned)ops + 8 && entries < 32768)
        entries *= 2;
    /* DEFER_TASKRUN: completions' work runs only when this thread enters
     * the kernel to wait, so they come in batches (Linux 6.1) */
    int rc = io_uring_queue_init(entries, &r->ring,
                                 IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
    if (rc == 0) {
        r->linked = (r->ring.features & IORING_FEAT_CQE_SKIP) != 0;
    } else {
        rc = io_uring_queue_init(entries, &r->ring, 0);
        if (rc < 0) {
            snprintf(err, errlen, "io_uring is not available here: %s", strerror(-rc));
            free(r);
            return NULL;
        }
    }
    return r;
}

/* A free submission entry, submitting what is queued when there is none. */
static struct io_uring_sqe *sqe_of(struct sb_ring *r)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (sqe == NULL && io_uring_submit(&r->ring) >= 0)
        sqe = io_uring_get_sqe(&r->ring);
    return sqe;
}

int sb_ring_send_recv(struct sb_ring *r, int fd, const void *buf, size_t len,
                      uint64_t send_tag, void *in, size_t room, uint64_t recv_tag)
{
    int link = r->linked && len > 0 && room > 0 && send_tag <= LINK_MASK && recv_tag <= LINK_MASK;
    if (io_uring_sq_space_left(&r->ring) < 2 && io_uring_submit(&r->ring) < 0)
        return -1;
    if (len > 0) {
        struct io_uring_sqe *sqe = sqe_of(r);
        if (sqe == NULL)
            return -1;
        io_uring_prep_send(sqe, fd, buf, len, MSG_NOSIGNAL | MSG_WAITALL);
        if (link) {
            sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
            io_uring_sqe_set_data64(sqe, SILENT_BIT | send_tag << LINK_SHIFT | recv_tag);
        } else {
            io_uring_sqe_set_data64(sqe, send_tag);
            r->pending++;
        }
    }
    if (room > 0) {
        struct io_uring_sqe *sqe = sqe_of(r);
        if (sqe == NULL)
            return -1;
        io_uring_prep_recv(sqe, fd, in, room, 0);
        io_uring_sqe_set_data64(sqe, recv_tag);
        r->pending++;
    }
    return 0;
}

int sb_ring_poll(struct sb_ring *r, int fd, unsigned events, uint64_t tag)
{
    struct io_uring_sqe *sqe = sqe_of(r);
    if (sqe == NULL)
        return -1;
    io_uring_prep_poll_add(sqe, fd, events);
    io_uring_sqe_set_data64(sqe, tag);
    r->pending++;
    return 0;
}

int sb_ring_cancel(struct sb_ring *r, uint64_t tag)
{
    struct io_uring_sqe *sqe = sqe_of(r);
    if (sqe == NULL)
        return -1;
    io_uring_prep_cancel64(sqe, tag, 0);
    io_uring_sqe_set_data64(sqe, CANCEL_TAG);
    r->pending++;
    return 0;
}

/* Copies the completions there are into out (at most max, our own
 * cancellations left out; a failed silent send takes two: its error, then
 * its receive's cancellation, which the kernel does not post).  How many. */
static int reap(struct sb_ring *r, struct sb_ring_done *out, int max)
{
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    int n = 0;
    io_uring_for_each_cqe(&r->ring, head, cqe) {
        uint64_t tag = io_uring_cqe_get_data64(cqe);
        if (n == max || ((tag & SILENT_BIT) && n + 2 > max))
            break;
        seen++;
        if (tag & SILENT_BIT) { /* a failed silent send: it was not counted */
            out[n].tag = (tag & ~SILENT_BIT) >> LINK_SHIFT;
            out[n++].result = cqe->res;
            r->pending--; /* its receive, which posts nothing */
            out[n].tag = tag & LINK_MASK;
            out[n++].result = -ECANCELED;
            continue;
        }
        r->pending--;
        if (tag == CANCEL_TAG)
            continue;
        out[n].tag = tag;
        out[n++].result = cqe->res;
    }
    io_uring_cq_advance(&r->ring, seen);
    return n;
}

int sb_ring_wait(struct sb_ring *r, int64_t timeout_ns, struct sb_ring_done *out, int max)
{
    struct __kernel_timespec ts = {.tv_sec = timeout_ns / 1000000000LL,
                                   .tv_nsec = timeout_ns % 1000000000LL};
    struct io_uring_cqe *cqe;
    int rc = io_uring_submit_and_wait_timeout(&r->ring, &cqe, 1, &ts, NULL);
    if (rc < 0 && rc != -ETIME && rc != -EINTR) {
        errno = -rc;
        return -1;
    }
    return reap(r, out, max);
}

int sb_ring_pending(const struct sb_ring *r)
{
    return r->pending;
}

int sb_ring_skips_sends(const struct sb_ring *r)
{
    return r->linked;
}

void sb_ring_destroy(struct sb_ring *r)
{
    if (r == NULL)
        return;
    if (r->pending > 0) {
        /* the kernel may still write into the connections' buffers: cancel
         * everything and wait (bounded: 50 x 100 ms) until it is done */
        struct io_uring_sqe *sqe = sqe_of(r);
        if (sqe != NULL) {
            io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
            io_uring_sqe_set_data64(sqe, CANCEL_TAG);
            r->pending++;
        }
        struct sb_ring_done d[64];
        for (int i = 0; i < 50 && r->pending > 0; i++)
            if (sb_ring_wait(r, 100000000LL, d, 64) < 0)
                break;
    }
    io_uring_queue_exit(&r->ring);
    free(r);
}

#else /* built without liburing */

int sb_ring_available(char *err, size_t errlen)
{
    snprintf(err, errlen, "this sbench was built without io_uring (liburing-dev)");
    return 0;
}

struct sb_ring *sb_ring_create(int ops, char *err, size_t errlen)
{
    (void)ops;
    sb_ring_available(err, errlen);
    return NULL;
}

void sb_ring_destroy(struct sb_ring *r) { (void)r; }
int sb_ring_send_recv(struct sb_ring *r, int fd, const void *buf, size_t len,
                      uint64_t send_tag, void *in, size_t room, uint64_t recv_tag)
{
    (void)r, (void)fd, (void)buf, (void)len, (void)send_tag, (void)in, (void)room, (void)recv_tag;
    return -1;
}
int sb_ring_poll(struct sb_ring *r, int fd, unsigned events, uint64_t tag)
{
    (void)r, (void)fd, (void)events, (void)tag;
    return -1;
}
int sb_ring_cancel(struct sb_ring *r, uint64_t tag) { (void)r, (void)tag; return -1; }
int sb_ring_wait(struct sb_ring *r, int64_t timeout_ns, struct sb_ring_done *out, int max)
{
    (void)r, (void)timeout_ns, (void)out, (void)max;
    errno = ENOSYS;
    return -1;
}
int sb_ring_pending(const struct sb_ring *r) { (void)r; return 0; }
int sb_ring_skips_sends(const struct sb_ring *r) { (void)r; return 0; }
#endif
