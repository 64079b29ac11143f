/*
 * One worker thread's io_uring (--io=uring): the sends, receives and
 * socket waits of all the connections the thread drives go to the kernel
 * together and come back together, one system call per pass of the
 * thread's event loop (core/clients.c) instead of two or three per
 * statement.  A thin layer over liburing; built without it (no
 * liburing-dev), sb_ring_available says why and nothing else is called.
 * A ring belongs to the thread that created it.
 */
#ifndef SB_IO_RING_H
#define SB_IO_RING_H

#include <stddef.h>
#include <stdint.h>

struct sb_ring;

/* A completion: the tag given when the operation was queued, and its
 * result (bytes, poll events, or -errno). */
struct sb_ring_done {
    uint64_t tag;
    long result;
};

/* 1 when this process can use io_uring; else 0 and why in err. */
int sb_ring_available(char *err, size_t errlen);

/* A ring for about `ops` operations in flight at once.  The caller owns
 * it (sb_ring_destroy); NULL with the reason in err when the kernel or the
 * build refuses. */
struct sb_ring *sb_ring_create(int ops, char *err, size_t errlen);

/* Waits for every operation still in flight (cancelling them first) and
 * frees the ring.  NULL is a no-op. */
void sb_ring_destroy(struct sb_ring *r);

/* Queues a send of buf[0..len) on fd (all of it: the kernel retries a
 * short send) and, after it, a receive of at most room bytes into in;
 * either may be left out (len or room 0).  A successful send posts no
 * completion when the kernel can skip it; a failed one posts its error
 * and its receive is cancelled (-ECANCELED: the ring returns that one
 * itself, right after the send's error, where the kernel posts nothing).
 * 0, or -1 when the ring is full even after submitting what it holds. */
int sb_ring_send_recv(struct sb_ring *r, int fd, const void *buf, size_t len,
                      uint64_t send_tag, void *in, size_t room, uint64_t recv_tag);
/* Queues a one-shot wait for `events` (POLLIN, POLLOUT) on fd.  0 or -1. */
int sb_ring_poll(struct sb_ring *r, int fd, unsigned events, uint64_t tag);
/* Queues the cancellation of the operation tagged `tag` (its completion
 * then comes with -ECANCELED, or with its result if it was done). */
int sb_ring_cancel(struct sb_ring *r, uint64_t tag);

/* Submits what is queued and waits until at least one completion is there
 * or timeout_ns passed; copies up to max (at least 2) completions into out.  Returns
 * how many (0 at the timeout), or -1 with errno. */
int sb_ring_wait(struct sb_ring *r, int64_t timeout_ns, struct sb_ring_done *out, int max);

/* Operations queued or in flight whose completion has not been returned. */
int sb_ring_pending(const struct sb_ring *r);

/* 1 when a successful send posts no completion (IOSQE_CQE_SKIP_SUCCESS). */
int sb_ring_skips_sends(const struct sb_ring *r);

#endif
