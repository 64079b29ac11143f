/*
 * Socket helpers shared by the drivers' wire-protocol fast paths (pgsql,
 * mysql): waiting for a socket with an optional deadline, writing a whole
 * request and reading what an answer has so far.  Part of the drivers'
 * common library (meson.build here); no state, no allocation.
 */
#ifndef SBENCH_DRIVERS_SOCK_IO_H
#define SBENCH_DRIVERS_SOCK_IO_H

#include <stddef.h>
#include <stdint.h>

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Milliseconds on the monotonic clock, for deadlines. */
int64_t sbc_now_ms(void);

/* Waits until fd is ready for `events` (POLLIN, POLLOUT), or has failed
 * (the next call on it tells), at most until `deadline` (sbc_now_ms()
 * time; 0: no deadline).  0, or -1 with errno (ETIMEDOUT at the deadline). */
int sbc_wait(int fd, short events, int64_t deadline);

/* Writes the n bytes at p, waiting for room when the socket is
 * nonblocking and full, until `deadline` as sbc_wait.  0, or -1 with
 * errno (EPIPE when the peer is gone). */
int sbc_send_all(int fd, const void *p, size_t n, int64_t deadline);

/* Reads what fd has into p (at most n bytes).  With `block`, waits for
 * data: first with poll when `wait` (the caller knows nothing can be there
 * yet, or the socket is nonblocking), until `deadline` as sbc_wait; else
 * never waits: -2 when nothing is there now (-1 with ETIMEDOUT once the
 * deadline has passed).  The byte count (> 0), 0 at the end of the stream,
 * or -1 with errno.  Inline: it runs once or twice per statement, in the
 * fast paths' read loops. */
static inline long sbc_recv(int fd, void *p, size_t n, int block, int wait,
                            int64_t deadline)
{
    int wait_first = wait;
    for (;;) {
        if (wait && sbc_wait(fd, POLLIN, deadline) != 0)
            return -1;
        ssize_t k = recv(fd, p, n, block ? 0 : MSG_DONTWAIT);
        if (k >= 0)
            return (long)k;
        if (errno == EINTR) {
            wait = wait_first;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!block) {
                if (deadline > 0 && sbc_now_ms() >= deadline) {
                    errno = ETIMEDOUT;
                    return -1;
                }
                return -2;
            }
            wait = 1;
        } else {
            return -1;
        }
    }
}

#endif /* SBENCH_DRIVERS_SOCK_IO_H */
