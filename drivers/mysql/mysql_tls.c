/*
 * mysql driver: the fast path's bytes through the session's TLS.
 * MariaDB Connector/C makes the TLS session (handshake, certificates,
 * --mysql-ssl's verification) and keeps it; on an encrypted connection
 * the fast path writes its requests with SSL_write and reads its answers
 * with SSL_read on Connector/C's own SSL object, reached through its
 * plugin API headers (ma_pvio.h, ma_tls.h: the connection's pvio->ctls->ssl
 * with the OpenSSL backend), whose I/O goes through Connector/C's socket as
 * its own does.  Connector/C keeps using that object between the fast
 * path's calls, so the record state stays one stream.  The requests and
 * answers are the same bytes as on a plain session, encrypted once.
 * mysql_wire.c calls these only for an encrypted session (c->tls); plain
 * ones go straight to the socket helpers (drivers/common/sock_io.h).  The
 * bytes are moved by drivers/common/tls_io.c, as the pgsql driver's are.
 * The socket's mode is Connector/C's (blocking: its TLS reads wait in the
 * kernel) between the fast path's calls; a call that must not wait in the
 * kernel (a nonblocking statement's read, or one with a deadline) turns
 * it nonblocking for its own SSL_read/SSL_write and back before it
 * returns, waiting with poll until the deadline.  A blocking call with no
 * deadline leaves it as it is: no system call more than a plain session's
 * (OpenSSL's read-ahead, on during the fast path's reads only, takes an
 * answer in one read).
 */
#include "mysql_int.h"
#include "../common/tls_io.h"

#ifdef MYD_MARIADB_CLIENT
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>

/* ma_pvio.h declares the session's TLS object only under HAVE_TLS, and
 * the ma_tls.h it then includes first needs uchar, which ma_pvio.h
 * declares after it (C11 allows the same typedef twice) */
#ifndef HAVE_TLS
#define HAVE_TLS 1
#endif
typedef unsigned char uchar;
#include <ma_pvio.h>

/* The session's SSL object when Connector/C encrypts m with the OpenSSL
 * this driver links (the same library, the same version: its SSL object is
 * then ours to call) on its own socket, whose mode it notes; else NULL
 * and, when m is encrypted, *why says why the fast path cannot serve it. */
void *myd_tls_session(MYSQL *m, int *sock_flags, const char **why)
{
    *why = NULL;
    if (mysql_get_ssl_cipher(m) == NULL)
        return NULL;
    const char *lib = NULL;
    if (mariadb_get_infov(m, MARIADB_TLS_LIBRARY, &lib) != 0 || lib == NULL ||
        strcmp(lib, OpenSSL_version(OPENSSL_VERSION)) != 0) {
        *why = "Connector/C's TLS library is not the OpenSSL sbench links";
        return NULL;
    }
    MARIADB_PVIO *pvio = m->net.pvio;
    SSL *ssl = pvio != NULL && pvio->ctls != NULL ? pvio->ctls->ssl : NULL;
    int fd = (int)mysql_get_socket(m);
    if (ssl == NULL || SSL_get_fd(ssl) != fd) {
        *why = "the TLS session does not write to the connection's socket";
        return NULL;
    }
    *sock_flags = fcntl(fd, F_GETFL);
    if (*sock_flags < 0) {
        *why = "the connection's socket mode cannot be read";
        return NULL;
    }
    sbc_tls_prepare(ssl); /* a request is retried from where it stopped */
    return ssl;
}

/* Turns fd nonblocking (`on`) or back to Connector/C's mode.  0, or -1
 * with errno. */
static int sock_nonblocking(sbd_conn *c, int fd, int on)
{
    if (c->tls_sock_flags & O_NONBLOCK)
        return 0;
    return fcntl(fd, F_SETFL, on ? c->tls_sock_flags | O_NONBLOCK : c->tls_sock_flags) < 0 ? -1 : 0;
}

/* Back to Connector/C's mode after a call that turned fd nonblocking,
 * keeping that call's errno. */
static void sock_restore(sbd_conn *c, int fd)
{
    int e = errno;
    sock_nonblocking(c, fd, 0);
    errno = e;
}

long myd_tls_recv(sbd_conn *c, int fd, void *p, size_t n, int block, int64_t deadline)
{
    int nb = !block || deadline > 0; /* must not wait in the kernel */
    if (nb && sock_nonblocking(c, fd, 1) != 0)
        return -1;
    /* read-ahead: one read takes what the socket has (an answer, usually)
     * instead of a record's header and then its body; off again once
     * nothing is buffered (between answers: nothing follows one), so that
     * Connector/C's own reads and waits find the session as they left it */
    SSL *ssl = c->tls;
    SSL_set_read_ahead(ssl, 1);
    long k = sbc_tls_recv(ssl, fd, p, n, block, 0, deadline);
    if (!SSL_has_pending(ssl))
        SSL_set_read_ahead(ssl, 0);
    if (nb)
        sock_restore(c, fd);
    return k;
}

int myd_tls_send_all(sbd_conn *c, int fd, const void *p, size_t n, int64_t deadline)
{
    int nb = deadline > 0;
    if (nb && sock_nonblocking(c, fd, 1) != 0)
        return -1;
    int rc = sbc_tls_send_all(c->tls, fd, p, n, deadline);
    if (nb)
        sock_restore(c, fd);
    return rc;
}
#endif
