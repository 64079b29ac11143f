/*
 * pgsql driver: the fast path's bytes through the session's TLS.  libpq
 * makes the TLS session (handshake, certificates, sslmode) and keeps it;
 * on an encrypted connection the fast path writes its requests with
 * SSL_write and reads its answers with SSL_read on libpq's own SSL object
 * (PQsslStruct), whose I/O goes through libpq's socket as libpq's would.
 * So the requests and answers are the same bytes as on a plain session,
 * encrypted once, without libpq's result objects.  pgsql_wire.c calls
 * these only for an encrypted session (c->tls); plain ones go straight to
 * the socket helpers (drivers/common/sock_io.h).
 * Calls only pgsql_sock.c below it (the socket's mode: libpq's reads
 * and writes pass no MSG_DONTWAIT).
 */
#include "pgsql_int.h"
#include "../common/sock_io.h"

#include <limits.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

/* The session's SSL object when libpq encrypts with OpenSSL, else NULL
 * (plain, or an encryption the fast path does not speak: GSS). */
void *pgd_tls_session(PGconn *pg)
{
    if (!PQsslInUse(pg))
        return NULL;
    SSL *ssl = PQsslStruct(pg, "OpenSSL");
    /* requests are retried from where they stopped, and a pipeline's
     * buffer may move while its tail waits for room */
    if (ssl != NULL)
        SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return ssl;
}

static int chunk(size_t n)
{
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* errno for a failed SSL call's result k (after SSL_get_error). */
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

long pgd_tls_recv(sbd_conn *c, int fd, void *p, size_t n, int block, int wait, int64_t deadline)
{
    SSL *ssl = c->tls;
    /* libpq's socket reads take no MSG_DONTWAIT: the socket's own mode
     * decides whether SSL_read may wait */
    pgd_sock_blocking(c, block);
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

/* One SSL_write of what is left; > 0 bytes, or -1 with errno (EAGAIN: the
 * socket is full, call again with the same bytes). */
static long tls_send(SSL *ssl, const char *p, size_t n, short *waits_for)
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

int pgd_tls_send_all(sbd_conn *c, int fd, const void *p, size_t n, int64_t deadline)
{
    SSL *ssl = c->tls;
    size_t off = 0;
    while (off < n) {
        short ev = 0;
        long k = tls_send(ssl, (const char *)p + off, n - off, &ev);
        if (k > 0)
            off += (size_t)k;
        else if (errno != EAGAIN || sbc_wait(fd, ev, deadline) != 0)
            return -1;
    }
    return 0;
}

long pgd_tls_send_some(sbd_conn *c, const void *p, size_t n)
{
    short ev;
    pgd_sock_blocking(c, 0);
    return tls_send(c->tls, p, n, &ev);
}
