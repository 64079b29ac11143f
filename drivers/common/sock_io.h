/*
 * Socket helpers shared by the drivers' wire-protocol fast paths (pgsql,
 * mysql): waiting for a socket with an optional deadline, and writing a
 * whole request.  Compiled into each driver that uses them; no state, no
 * allocation.
 */
#ifndef SBENCH_DRIVERS_SOCK_IO_H
#define SBENCH_DRIVERS_SOCK_IO_H

#include <stddef.h>
#include <stdint.h>

/* Milliseconds on the monotonic clock, for deadlines. */
int64_t sbio_now_ms(void);

/* Waits until fd is ready for `events` (POLLIN, POLLOUT), or has failed
 * (the next call on it tells), at most until `deadline` (sbio_now_ms()
 * time; 0: no deadline).  0, or -1 with errno (ETIMEDOUT at the deadline). */
int sbio_wait(int fd, short events, int64_t deadline);

/* Writes the n bytes at p, waiting for room when the socket is
 * nonblocking and full, until `deadline` as sbio_wait.  0, or -1 with
 * errno (EPIPE when the peer is gone). */
int sbio_send_all(int fd, const void *p, size_t n, int64_t deadline);

#endif /* SBENCH_DRIVERS_SOCK_IO_H */
