/*
 * pgsql driver: the connection's socket mode and transport choice, which
 * every path sets before it does I/O: pgd_sock_blocking (the blocking fast
 * path's socket, libpq's nonblocking one) and pgd_wire_off (the fast path
 * given up, libpq's transport from then on).  The bottom of the driver's
 * files: it calls none of them.
 */
#include "pgsql_int.h"

#include <fcntl.h>

/* The fast path stops serving c for good (pgsql_wire.c and pgd_error when
 * the connection is lost or a notification arrives). */
void pgd_wire_off(sbd_conn *c)
{
    c->wire_on = 0;
    if (!c->wire_pipe) /* else when the pipeline is left */
        c->tp = &pgd_tp_libpq;
}

/* libpq keeps its socket nonblocking and waits with poll() before each
 * read: three system calls per statement.  The blocking fast path turns
 * the socket blocking instead, so that recv waits by itself (two: send,
 * recv; each costs a few microseconds on a virtual machine), and turns it
 * back before libpq does I/O on it again (its other files call this with 0 before
 * every libpq call that reads or writes).  The nonblocking paths pass
 * MSG_DONTWAIT and work in either mode.  Only a change costs an fcntl. */
void pgd_sock_blocking(sbd_conn *c, int on)
{
    if (c->sock_blocking == on)
        return;
    int fd = PQsocket(c->pg);
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl < 0 || fcntl(fd, F_SETFL, on ? fl & ~O_NONBLOCK : fl | O_NONBLOCK) < 0)
        return; /* left as it was: the paths work either way, slower */
    c->sock_blocking = on;
}
