/*
 * Waiting on a socket and sending a whole buffer (see sock.h).
 */
#include "sock.h"

#include <errno.h>
#include <sys/socket.h>
#include <time.h>

int64_t sb_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sb_sock_wait(int fd, short events, int stop_fd, int64_t deadline)
{
    struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = stop_fd, .events = POLLIN}};
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            int64_t left = deadline - sb_mono_ms();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            ms = left > 1000000000 ? 1000000000 : (int)left;
        }
        int r = poll(p, stop_fd >= 0 ? 2 : 1, ms);
        if (r > 0 && stop_fd >= 0 && p[1].revents) {
            errno = ECANCELED;
            return -1;
        }
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

int sb_send_all(int fd, const void *buf, size_t n, int stop_fd, int64_t deadline)
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
            if (sb_sock_wait(fd, POLLOUT, stop_fd, deadline) != 0)
                return -1;
        } else {
            if (k == 0)
                errno = EPIPE;
            return -1;
        }
    }
    return 0;
}
