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
 * and writes pass no MSG_DONTWAIT) and drivers/common/tls_io.c, which
 * moves the bytes.
 */
#include "pgsql_int.h"
#include "../common/tls_io.h"

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
        sbc_tls_prepare(ssl);
    return ssl;
}

long pgd_tls_recv(sbd_conn *c, int fd, void *p, size_t n, int block, int wait, int64_t deadline)
{
    /* libpq's socket reads take no MSG_DONTWAIT: the socket's own mode
     * decides whether SSL_read may wait */
    pgd_sock_blocking(c, block);
    return sbc_tls_recv(c->tls, fd, p, n, block, wait, deadline);
}

int pgd_tls_send_all(sbd_conn *c, int fd, const void *p, size_t n, int64_t deadline)
{
    return sbc_tls_send_all(c->tls, fd, p, n, deadline);
}

long pgd_tls_send_some(sbd_conn *c, const void *p, size_t n)
{
    short ev;
    pgd_sock_blocking(c, 0);
    return sbc_tls_send(c->tls, p, n, &ev);
}
