/*
 * TLS helpers shared by the drivers' wire-protocol fast paths (pgsql,
 * mysql): sbc_recv and sbc_send_all of sock_io.h through a client
 * library's own OpenSSL session (libpq's, Connector/C's), which made the
 * handshake and checked the certificates and keeps the session between
 * the fast path's calls.  The socket's mode is the caller's business: with
 * a blocking socket SSL_read and SSL_write wait in the kernel, with a
 * nonblocking one they ask and these wait with poll, never past the
 * deadline.  Not in the common library (meson.build here): compiled into
 * the drivers that link OpenSSL (pgsql, mysql) only; no state, no
 * allocation.
 */
#ifndef SBENCH_DRIVERS_TLS_IO_H
#define SBENCH_DRIVERS_TLS_IO_H
#include <stddef.h>
#include <stdint.h>

struct ssl_st; /* OpenSSL's SSL */

/* Lets a request be retried from where it stopped, from a buffer that may
 * have moved (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER). */
void sbc_tls_prepare(struct ssl_st *ssl);

/* sbc_recv through ssl: bytes already decrypted are read without waiting;
 * with `wait` (or after SSL_read asked for more) it polls fd first.  The
 * byte count (> 0), 0 at the end of the stream (close_notify, or a close
 * without one), -1 with errno (ETIMEDOUT past `deadline`), -2 when !block
 * and nothing is there now. */
long sbc_tls_recv(struct ssl_st *ssl, int fd, void *p, size_t n, int block, int wait,
                  int64_t deadline);

/* One SSL_write of p[0..n): > 0 bytes, or -1 with errno (EAGAIN: call
 * again with the same bytes once fd is ready for *waits_for). */
long sbc_tls_send(struct ssl_st *ssl, const void *p, size_t n, short *waits_for);

/* sbc_send_all through ssl: 0, or -1 with errno (EPIPE when the peer is
 * gone, ETIMEDOUT past `deadline`); a byte is never sent twice. */
int sbc_tls_send_all(struct ssl_st *ssl, int fd, const void *p, size_t n, int64_t deadline);

#endif /* SBENCH_DRIVERS_TLS_IO_H */
