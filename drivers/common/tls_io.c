/*
 * TLS helpers of the wire-protocol fast paths: see tls_io.h.  Moved here
 * from the pgsql driver when the mysql driver's fast path took TLS too.
 */
#include "tls_io.h"
#include "sock_io.h"

#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

void sbc_tls_prepare(SSL *ssl)
{
    SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

static int chunk(size_t n)
{
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* errno for a failed SSL call's SSL_get_error e. */
static int tls_errno(int e)
{
    if (e == SSL_ERROR_SYSCALL && errno != 0)
        return errno;
    return EPROTO;
}

/* The end of the stream: the server's close_notify, or (OpenSSL 3) its
 * socket closed without one. */
static int tls_eof(int e)
{
    if (e == SSL_ERROR_ZERO_RETURN)
        return 1;
    if (e == SSL_ERROR_SYSCALL && errno == 0)
        return 1;
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING
    if (e == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
        return 1;
#endif
    return 0;
}

long sbc_tls_recv(SSL *ssl, int fd, void *p, size_t n, int block, int wait, int64_t deadline)
{
    for (;;) {
        /* bytes already decrypted need no wait: the socket may be empty */
        if (wait && SSL_pending(ssl) == 0 && sbc_wait(fd, POLLIN, deadline) != 0)
            return -1;
        ERR_clear_error();
        errno = 0;
        int k = SSL_read(ssl, p, chunk(n));
        if (k > 0)
            return k;
        int e = SSL_get_error(ssl, k);
        if (tls_eof(e))
            return 0;
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            errno = tls_errno(e);
            return -1;
        }
        if (deadline > 0 && sbc_now_ms() >= deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (!block)
            return -2;
        if (e == SSL_ERROR_WANT_WRITE) {
            if (sbc_wait(fd, POLLOUT, deadline) != 0)
                return -1;
            wait = 0;
        } else {
            wait = 1;
        }
    }
}

long sbc_tls_send(SSL *ssl, const void *p, size_t n, short *waits_for)
{
    ERR_clear_error();
    errno = 0;
    int k = SSL_write(ssl, p, chunk(n));
    if (k > 0)
        return k;
    int e = SSL_get_error(ssl, k);
    if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
        *waits_for = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
        errno = EAGAIN;
        return -1;
    }
    errno = tls_eof(e) ? EPIPE : tls_errno(e);
    return -1;
}

int sbc_tls_send_all(SSL *ssl, int fd, const void *p, size_t n, int64_t deadline)
{
    size_t off = 0;
    while (off < n) {
        short ev = 0;
        long k = sbc_tls_send(ssl, (const char *)p + off, n - off, &ev);
        if (k > 0)
            off += (size_t)k;
        else if (errno != EAGAIN || sbc_wait(fd, ev, deadline) != 0)
            return -1;
    }
    return 0;
}
