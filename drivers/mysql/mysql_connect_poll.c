/*
 * mysql driver: mysql_real_connect timed in two phases where Connector/C
 * lets us see them.  On MariaDB Connector/C's non-blocking API
 * (MYD_NONBLOCK) the connect runs as mysql_real_connect_start/_cont: the
 * library's first wait, for writability while connect() is in progress,
 * ends the TCP phase (a connect that did not wait, a Unix socket's, ends
 * at the first wait); the rest, the greeting, TLS and authentication up
 * to the server's OK, is the auth phase (the library yields only when a
 * read would block, so the TLS handshake inside it cannot be told apart:
 * tls -1).  Without that API
 * (Oracle's libmysqlclient) the connect is one blocking call and every
 * phase is -1: the report shows the total only.
 */
#include "mysql_int.h"

#include <errno.h>
#include <poll.h>
#include <time.h>

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#ifdef MYD_NONBLOCK
/* Waits for what `want` (MYSQL_WAIT_*) asks on m's socket; the
 * MYSQL_WAIT_* that occurred (MYSQL_WAIT_TIMEOUT when the library's
 * timeout passed). */
static int wait_for(MYSQL *m, int want)
{
    struct pollfd p = {.fd = mysql_get_socket(m), .events = 0};
    if (want & MYSQL_WAIT_READ)
        p.events |= POLLIN;
    if (want & MYSQL_WAIT_WRITE)
        p.events |= POLLOUT;
    if (want & MYSQL_WAIT_EXCEPT)
        p.events |= POLLPRI;
    int64_t deadline = (want & MYSQL_WAIT_TIMEOUT)
                       ? mono_ns() + (int64_t)mysql_get_timeout_value_ms(m) * 1000000 : 0;
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            int64_t left = deadline - mono_ns();
            if (left <= 0)
                return MYSQL_WAIT_TIMEOUT;
            ms = (int)(left / 1000000) + 1;
        }
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return MYSQL_WAIT_TIMEOUT;
        if (r < 0)
            return want & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE); /* the library sees the error */
        int got = 0;
        if (p.revents & (POLLIN | POLLHUP | POLLERR))
            got |= MYSQL_WAIT_READ;
        if (p.revents & (POLLOUT | POLLHUP | POLLERR))
            got |= MYSQL_WAIT_WRITE;
        if (p.revents & POLLPRI)
            got |= MYSQL_WAIT_EXCEPT;
        return got & want ? got & want : want & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE);
    }
}
#endif

MYSQL *myd_real_connect_timed(MYSQL *m, const char *host, const char *user, const char *pw,
                              const char *db, unsigned port, const char *sock,
                              struct sbd_connect_phases *ph)
{
    ph->tcp_ns = ph->tls_ns = ph->auth_ns = -1;
#ifdef MYD_NONBLOCK
    int64_t t0 = mono_ns(), tcp_end = -1;
    MYSQL *ret = NULL;
    int want = mysql_real_connect_start(&ret, m, host, user, pw, db, port, sock, 0);
    while (want != 0) {
        if (tcp_end < 0 && !(want & MYSQL_WAIT_WRITE))
            tcp_end = mono_ns(); /* connected without waiting (a Unix socket) */
        int got = wait_for(m, want);
        if (tcp_end < 0)
            tcp_end = mono_ns(); /* the wait of the connect() in progress ended */
        want = mysql_real_connect_cont(&ret, m, got);
    }
    if (ret != NULL) {
        int64_t end = mono_ns();
        if (tcp_end < 0)
            tcp_end = end;
        ph->tcp_ns = tcp_end - t0;
        ph->auth_ns = end - tcp_end;
    }
    return ret;
#else
    return mysql_real_connect(m, host, user, pw, db, port, sock, 0);
#endif
}
