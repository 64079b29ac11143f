/*
 * The null driver's model server on the far end of host I/O's
 * socketpairs (null_hostio.c): one thread for the process, as a real
 * server is another party, so that the host may hand the kernel a
 * statement's send linked to the receive of its answer (sbench's io_uring
 * loop does so against real servers) and the answer comes while the host
 * waits in the kernel.  The thread waits with epoll on the server's end
 * of every connection that took host I/O, reads a request when it has
 * come whole, runs it (null_serve: counted there, so the server counts
 * exactly the statements whose bytes arrived) and writes the answer, or
 * for a lost connection (--null-fail-status=lost) shuts its end, so that
 * the host's receive sees the end of the stream.  Request bytes that are
 * not the request the driver built shut the end too (hio.srv_err).
 *
 * The connections are found through a table of slots under one lock,
 * taken by the thread for each request it serves and by the host only
 * when a connection takes or leaves host I/O (null_hsrv_add,
 * null_hsrv_remove: the descriptors are closed under it, so the thread
 * never touches a connection that is gone): never on the statement path.
 * The host reads what the thread wrote (the answer, the connection's
 * transaction state) only after the answer's bytes came through the
 * socket, and the thread writes nothing of the connection after them.
 * null_hsrv_stop (the driver's done) ends the thread.  The thread is
 * named SBD_MODEL_SERVER_THREAD (driver.h), so that a probe from outside
 * (sbench compare) counts its CPU as the server's, not the client's.
 */
#include "null_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define STOP_TAG UINT64_MAX

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int running;
    int ep, stop_fd;
    pthread_t thread;
    sbd_conn **slots;
    int nslots;
} srv = {.ep = -1, .stop_fd = -1};

/* Ends c's server side: nothing more will be answered on it. */
static void refuse(sbd_conn *c, int err)
{
    c->hio.srv_err = err;
    atomic_store_explicit(&c->hio.answered, 1, memory_order_release);
    shutdown(c->hio.fd[1], SHUT_RDWR);
    epoll_ctl(srv.ep, EPOLL_CTL_DEL, c->hio.fd[1], NULL); /* else EOF wakes the thread on */
}

/* The whole request srv_req came: run it and answer (or close the end). */
static void answer(sbd_conn *c)
{
    struct null_hio *h = &c->hio;
    if (memcmp(&h->srv_req, &h->req, sizeof h->req) != 0) {
        refuse(c, EPROTO); /* the bytes that arrived are not the request */
        return;
    }
    null_serve(c, &h->srv_req, &h->kept);
    if (h->kept.status == SBD_CONN_LOST) {
        refuse(c, 0);
        return;
    }
    atomic_store_explicit(&h->answered, 1, memory_order_release);
    if (send(h->fd[1], &h->kept, sizeof h->kept, MSG_DONTWAIT | MSG_NOSIGNAL) !=
        (ssize_t)sizeof h->kept)
        refuse(c, errno ? errno : EIO);
}

/* What c's end has: request bytes, each request answered once whole. */
static void serve(sbd_conn *c)
{
    struct null_hio *h = &c->hio;
    for (;;) {
        ssize_t n = recv(h->fd[1], (char *)&h->srv_req + h->srv_got, sizeof h->srv_req - h->srv_got,
                         MSG_DONTWAIT);
        if (n == 0) /* the host's end is closed: nothing more to serve */
            epoll_ctl(srv.ep, EPOLL_CTL_DEL, h->fd[1], NULL);
        if (n <= 0)
            return;
        h->srv_got += (size_t)n;
        if (h->srv_got == sizeof h->srv_req) {
            h->srv_got = 0;
            answer(c);
        }
    }
}

static void *run(void *arg)
{
    (void)arg;
    /* the server's thread, not the client's, for whoever watches it
     * (sbench compare's probe: driver.h) */
    prctl(PR_SET_NAME, SBD_MODEL_SERVER_THREAD, 0, 0, 0);
    struct epoll_event ev[32];
    for (;;) {
        int n = epoll_wait(srv.ep, ev, 32, -1);
        if (n < 0 && errno != EINTR)
            return NULL;
        for (int k = 0; k < n; k++) {
            uint64_t tag = ev[k].data.u64;
            if (tag == STOP_TAG)
                return NULL;
            int slot = (int)(tag & 0xffffffffu), fd = (int)(tag >> 32);
            pthread_mutex_lock(&lock);
            /* a connection gone since epoll_wait, or its slot taken by
             * another (whose descriptor differs), is left alone */
            sbd_conn *c = slot < srv.nslots ? srv.slots[slot] : NULL;
            if (c != NULL && c->hio.fd[1] == fd)
                serve(c);
            pthread_mutex_unlock(&lock);
        }
    }
}

/* Under the lock: the thread and its epoll, the first time.  0 or -1. */
static int start(void)
{
    if (srv.running)
        return 0;
    srv.ep = epoll_create1(EPOLL_CLOEXEC);
    srv.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = STOP_TAG};
    if (srv.ep < 0 || srv.stop_fd < 0 || epoll_ctl(srv.ep, EPOLL_CTL_ADD, srv.stop_fd, &ev) != 0 ||
        pthread_create(&srv.thread, NULL, run, NULL) != 0) {
        if (srv.ep >= 0)
            close(srv.ep);
        if (srv.stop_fd >= 0)
            close(srv.stop_fd);
        srv.ep = srv.stop_fd = -1;
        return -1;
    }
    srv.running = 1;
    return 0;
}

/* Under the lock: a free slot for c (the table grown when full), or -1. */
static int free_slot(void)
{
    for (int i = 0; i < srv.nslots; i++)
        if (srv.slots[i] == NULL)
            return i;
    int n = srv.nslots ? 2 * srv.nslots : 16;
    sbd_conn **p = realloc(srv.slots, (size_t)n * sizeof *p);
    if (p == NULL)
        return -1;
    memset(p + srv.nslots, 0, (size_t)(n - srv.nslots) * sizeof *p);
    srv.slots = p;
    int i = srv.nslots;
    srv.nslots = n;
    return i;
}

int null_hsrv_add(sbd_conn *c)
{
    pthread_mutex_lock(&lock);
    int slot = start() == 0 ? free_slot() : -1;
    struct epoll_event ev = {.events = EPOLLIN,
                             .data.u64 = (uint64_t)(uint32_t)c->hio.fd[1] << 32 | (uint32_t)slot};
    if (slot >= 0 && epoll_ctl(srv.ep, EPOLL_CTL_ADD, c->hio.fd[1], &ev) == 0) {
        srv.slots[slot] = c;
        c->hio.slot = slot;
    } else {
        slot = -1;
    }
    pthread_mutex_unlock(&lock);
    return slot >= 0 ? 0 : -1;
}

void null_hsrv_remove(sbd_conn *c)
{
    pthread_mutex_lock(&lock);
    if (c->hio.slot >= 0) {
        epoll_ctl(srv.ep, EPOLL_CTL_DEL, c->hio.fd[1], NULL);
        srv.slots[c->hio.slot] = NULL;
        c->hio.slot = -1;
    }
    for (int i = 0; i < 2; i++)
        if (c->hio.fd[i] >= 0)
            close(c->hio.fd[i]);
    c->hio.fd[0] = c->hio.fd[1] = -1;
    pthread_mutex_unlock(&lock);
}

void null_hsrv_stop(void)
{
    pthread_mutex_lock(&lock);
    int running = srv.running;
    srv.running = 0;
    pthread_mutex_unlock(&lock);
    if (!running)
        return;
    uint64_t one = 1;
    while (write(srv.stop_fd, &one, sizeof one) < 0 && errno == EINTR)
        ;
    pthread_join(srv.thread, NULL);
    close(srv.ep);
    close(srv.stop_fd);
    srv.ep = srv.stop_fd = -1;
    free(srv.slots);
    srv.slots = NULL;
    srv.nslots = 0;
}
