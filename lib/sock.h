/*
 * Waiting on a socket and sending a whole buffer, one way for the core
 * (the Prometheus exporter, core/prometheus.c) and the drivers' wire fast
 * paths (drivers/common/sock_io.c): every wait bounded by a deadline, an
 * interrupted call resumed, a stop descriptor honoured at once.
 */
#ifndef SB_SOCK_H
#define SB_SOCK_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

/* Milliseconds of the monotonic clock: the deadlines' time. */
int64_t sb_mono_ms(void);

/* Waits until fd is ready for `events` (POLLIN, POLLOUT), or has failed
 * (the next call on it tells), at most until `deadline` (sb_mono_ms()
 * time; 0: none), and no longer once stop_fd (-1: none) is readable.
 * 0, or -1 with errno: ETIMEDOUT at the deadline, ECANCELED at the stop. */
int sb_sock_wait(int fd, short events, int stop_fd, int64_t deadline);

/* Sends the n bytes at p (MSG_NOSIGNAL), waiting for room when the socket
 * is nonblocking and full as sb_sock_wait does.  0, or -1 with errno
 * (EPIPE when the peer is gone). */
int sb_send_all(int fd, const void *p, size_t n, int stop_fd, int64_t deadline);

#endif
