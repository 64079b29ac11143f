/*
 * The null driver's nonblocking and pipelined calls (ABI 1.1 and 1.2), the
 * reference for how a driver keeps the rules of driver.h.  A send hands
 * the statement to the server at once (null_serve) and queues its answer;
 * the answer is ready --null-delay-us after the previous answer was ready
 * or after its own send, whichever is later, so several in flight come
 * back in order, spaced like a server that runs one statement at a time.
 * With --null-slots=N the server has N slots shared by all connections: a
 * statement waits for the slot free soonest, so the process is answered
 * at most N / --null-delay-us statements a second (a server of known
 * capacity: its throughput stops growing at N connections).
 * The connection's descriptor is readable exactly when poll_result has
 * something to return: with a delay, a timerfd armed at the oldest answer's
 * ready time; without one, an eventfd, readable while anything is in
 * flight (arming a timerfd at a time already past costs ~20 us a call on a
 * virtual machine, an eventfd write ~1 us).  Calls the ABI forbids in a state fail with HY010 (null_misuse),
 * so the null driver catches a host that breaks the rules.  Nothing here
 * allocates per statement: the queue grows only when more answers are in
 * flight than ever before on the connection.
 */
#include "null_int.h"
#include "common/buf.h"
#include "common/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* --null-slots: the server's N slots shared by every connection of the
 * process, each the time it is free again.  The model server is shared
 * state by nature (it stands for one database): a mutex guards it, taken
 * once per statement, only when --null-slots is set. */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t slot_free_ns[NULL_MAX_SLOTS];

/* The start of a statement ready to start at t: the slot free soonest is
 * taken until the statement's answer is ready. */
static int64_t take_slot(int64_t t)
{
    pthread_mutex_lock(&slots_lock);
    int best = 0;
    for (int i = 1; i < null_cfg.slots; i++)
        if (slot_free_ns[i] < slot_free_ns[best])
            best = i;
    if (slot_free_ns[best] > t)
        t = slot_free_ns[best];
    slot_free_ns[best] = t + null_cfg.delay_ns;
    pthread_mutex_unlock(&slots_lock);
    return t;
}

int64_t null_next_ready(sbd_conn *c)
{
    if (null_cfg.delay_ns == 0)
        return 0; /* ready at once: no clock needed */
    int64_t t = now_ns();
    if (c->last_ready_ns > t)
        t = c->last_ready_ns;
    if (null_cfg.slots > 0)
        t = take_slot(t);
    c->last_ready_ns = t + null_cfg.delay_ns;
    return c->last_ready_ns;
}

void null_wait_until(int64_t t)
{
    if (t == 0)
        return;
    struct timespec ts = {.tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
        ; /* EINTR: sleep on to the same time */
}

int null_async_open(sbd_conn *c, struct sbd_error *err)
{
    c->fd = null_cfg.delay_ns > 0 ? timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)
                                  : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (c->fd < 0)
        return sbc_error(err, SBD_ERROR, 0, "08001", NULL,
                         "null driver: no timerfd/eventfd for the connection (too many open files?)");
    return SBD_OK;
}

void null_async_close(sbd_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->q);
    c->q = NULL;
    c->qcap = c->qn = c->qhead = 0;
}

/* After the oldest answer changed (a send to an empty queue, a delivery):
 * the descriptor readable exactly when the new oldest answer is ready. */
static void arm(sbd_conn *c)
{
    if (null_cfg.delay_ns == 0) {
        /* every answer is ready at once: readable while one is in flight */
        uint64_t one = 1;
        if ((c->qn > 0) != c->armed_ns) {
            c->armed_ns = c->qn > 0;
            ssize_t n = c->armed_ns ? write(c->fd, &one, sizeof one) : read(c->fd, &one, sizeof one);
            (void)n;
        }
        return;
    }
    int64_t t = c->qn > 0 ? c->q[c->qhead].ready_ns : 0;
    if (t > 0 && c->armed_ns > 0 && c->armed_ns <= t && t <= now_ns())
        return; /* the last expiry is still unread and this answer is ready too */
    /* an absolute time in the past fires at once; zero disarms; either
     * clears an expiry not yet read */
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = t / 1000000000LL;
    its.it_value.tv_nsec = t % 1000000000LL;
    timerfd_settime(c->fd, TFD_TIMER_ABSTIME, &its, NULL);
    c->armed_ns = t;
}

int null_socket(sbd_conn *c) { return c->fd; }

/* The queue slot for one more answer, owned by c; NULL when out of memory
 * (the queue is then as it was). */
static struct null_answer *slot(sbd_conn *c)
{
    if (c->qn == c->qcap) {
        size_t cap = (size_t)c->qcap;
        struct null_answer *q = sbc_grow(c->q, &cap, cap + 1, sizeof *q, 4);
        if (q == NULL)
            return NULL;
        /* the answers that had wrapped round to the front now follow the
         * others (the queue at least doubled, so they fit) */
        memcpy(q + c->qcap, q, (size_t)c->qhead * sizeof *q);
        c->q = q;
        c->qcap = (int)cap;
    }
    return &c->q[(c->qhead + c->qn) % c->qcap];
}

static int send_sql(sbd_conn *c, const struct null_sql *s)
{
    if ((c->qn > 0 && !c->pipeline) || null_hio_busy(c))
        return null_misuse(c, "a send while a statement is in flight, outside pipeline mode");
    if (c->streaming)
        return null_misuse(c, "a send while a streamed result is being read");
    if (c->lost && c->qn == 0) {
        /* the loss was read: a send fails at once.  (Before that, sends
         * are queued and answered "lost", like writes into a socket whose
         * peer is gone, so the answers that came before the loss are
         * still read.) */
        struct null_answer a;
        null_serve(c, s, &a);
        struct sbd_result_info info;
        return null_deliver(c, &a, &info);
    }
    if (null_hio_takes(c))
        return null_hio_send(c, s); /* the host sends it (null_hostio.c) */
    struct null_answer *a = slot(c);
    if (a == NULL)
        return null_misuse(c, "out of memory for the answer queue");
    null_serve(c, s, a);
    a->ready_ns = null_next_ready(c);
    if (++c->qn == 1)
        arm(c);
    return SBD_OK;
}

int null_send_query(sbd_conn *c, const char *sql, size_t len)
{
    struct null_sql s = null_parse(sql, len);
    return send_sql(c, &s);
}

int null_send_execute(sbd_conn *c, sbd_stmt *st, const struct sbd_value *p, int n)
{
    (void)p; (void)n;
    return send_sql(c, &st->sql);
}

int null_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write)
{
    *want_write = 0;
    if (null_hio_busy(c))
        return null_hio_poll(c, info);
    if (c->qn == 0)
        return null_misuse(c, "poll_result with nothing in flight");
    struct null_answer a = c->q[c->qhead];
    if (a.ready_ns > 0 && now_ns() < a.ready_ns)
        return SBD_AGAIN;
    c->qhead = (c->qhead + 1) % c->qcap;
    c->qn--;
    arm(c);
    return null_deliver(c, &a, info);
}

int null_pipeline(sbd_conn *c, int on)
{
    if (null_hio_busy(c))
        return null_misuse(c, "pipeline while a statement is in flight on the host's I/O");
    if (on && c->qn > 0 && !c->pipeline)
        return null_misuse(c, "pipeline(1) while a statement is in flight");
    if (!on && c->qn > 0)
        return null_misuse(c, "pipeline(0) while statements are in flight");
    c->pipeline = on != 0;
    return SBD_OK;
}
