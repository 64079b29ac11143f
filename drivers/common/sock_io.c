/*
 * Socket helpers of the wire-protocol fast paths: see sock_io.h.
 */
#include "sock_io.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

int64_t sbc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sbc_wait(int fd, short events, int64_t deadline)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            int64_t left = deadline - sbc_now_ms();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            ms = left > 1000000000 ? 1000000000 : (int)left;
        }
        int r = poll(&p, 1, ms);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

int sbc_send_all(int fd, const void *buf, size_t n, int64_t deadline)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (k < 0 && errno == EINTR) {
            continue;
        } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (sbc_wait(fd, POLLOUT, deadline) != 0)
                return -1;
        } else {
            if (k == 0)
                errno = EPIPE;
            return -1;
        }
    }
    return 0;
}
