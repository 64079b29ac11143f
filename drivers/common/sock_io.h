/*
 * Socket helpers shared by the drivers' wire-protocol fast paths (pgsql,
 * mysql): waiting for a socket with an optional deadline, and writing a
 * whole request.  Part of the drivers' common library (meson.build here);
 * no state, no allocation.
 */
#ifndef SBENCH_DRIVERS_SOCK_IO_H
#define SBENCH_DRIVERS_SOCK_IO_H

#include <stddef.h>
#include <stdint.h>

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

#endif /* SBENCH_DRIVERS_SOCK_IO_H */
