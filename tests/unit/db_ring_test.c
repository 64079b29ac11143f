/*
 * db_ring_test.c: the statement ring of core/db.c (one slot per statement
 * from its send to its answer, --pipeline deep) on the null driver, loaded
 * as sbench loads it.  What each case expects is known apart from db.c:
 * the null server's own counters (it counts a statement when it runs it),
 * the statement numbers in its error messages, and the order it answers.
 *   - a ring of 4 wrapping round 5 times: 20 queued inserts, each counted
 *     once by sbench and by the server, never more than 4 in flight;
 *   - the first failure among answers is the one reported (its statement
 *     number), the statements after it still run and are counted;
 *   - a blocking statement after queued ones waits for them first;
 *   - host I/O (the bytes moved by the caller, as the io_uring loop does):
 *     a request sent in two parts is run once, its answer counted once; a
 *     request built but never sent is never run, even when the connection
 *     is closed with it (nothing sends it at teardown);
 *   - a lost connection empties the ring.
 * Usage: db_ring_test PATH_TO_NULL_DRIVER.so
 */
#include <sbench/driver.h>

#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "check.h"
#include "db.h"
#include "driver_loader.h"
#include "options.h"
#include "stats.h"

static const struct sbd_driver *drv;
static struct sb_thread_stats st;
static struct sb_options *opts;

/* The null server's statements of a kind so far (its server_counters, read
 * on a connection of its own: reading them is no statement). */
static int64_t server_inserts(void)
{
    struct sbd_error err;
    sbd_conn *dc = NULL;
    CHECK(drv->connect(0, &dc, &err) == SBD_OK, "connect: %s", err.message);
    struct sbd_server_counters sc;
    memset(&sc, 0, sizeof sc);
    CHECK(drv->server_counters(dc, &sc) == SBD_OK, "server_counters");
    drv->disconnect(dc);
    return sc.inserts;
}

static struct sb_conn *open_conn(void)
{
    struct sbd_error err;
    struct sb_conn *c = sb_conn_open(0, &st, &err);
    CHECK(c != NULL, "sb_conn_open: %s", err.message);
    return c;
}

static int submit_sql(struct sb_conn *c, const char *sql, int queue, int *queued)
{
    struct sb_req r = sb_req_query(sql, strlen(sql));
    return sb_conn_submit(c, &r, queue, queued);
}

static int submit(struct sb_conn *c, int queue, int *queued)
{
    return submit_sql(c, "INSERT INTO t VALUES (1)", queue, queued);
}

/* A statement the null server refuses (42601, naming its number). */
static const char bad[] = "1 is no statement";

/* Loads the null driver with the options given as "--name=value". */
static void load(const char *path, int argc, char **argv)
{
    char err[512];
    drv = sb_driver_load(path, "null", err, sizeof err);
    CHECK(drv != NULL, "load %s: %s", path, err);
    opts = sb_options_create();
    sb_options_add(opts, "db-connect-timeout", SB_OPT_INT, SB_SRC_CORE, "0", "", NULL, 0, 100);
    sb_options_add(opts, "db-query-timeout", SB_OPT_INT, SB_SRC_CORE, "0", "", NULL, 0, 100);
    sb_options_add(opts, "db-debug", SB_OPT_BOOL, SB_SRC_CORE, "off", "", NULL, 0, 0);
    sb_driver_register_options(drv, opts);
    const char **words;
    int nwords;
    CHECK(sb_options_parse_argv(opts, argc, argv, &words, &nwords, err, sizeof err) == 0, "%s", err);
    CHECK(sb_options_resolve(opts, 1, err, sizeof err) == 0, "%s", err);
    CHECK(drv->init(sb_host_create(opts, "null"), err, sizeof err) == SBD_OK, "init: %s", err);
    CHECK(sb_stats_init(&st, 0.01) == 0, "stats");
    sb_db_setup(drv, 0, 0);
}

static void ring_wraps(void)
{
    CHECK(sb_db_set_pipeline(4) == 4, "the null driver pipelines");
    struct sb_conn *c = open_conn();
    int64_t s0 = server_inserts();
    uint64_t q0 = SB_GET(st.queries[SB_Q_INSERT]);
    for (int i = 0; i < 20; i++) {
        int queued = 0;
        CHECK(submit(c, 1, &queued) == SBD_OK && queued, "queued insert %d", i + 1);
        /* at most the ring's depth in flight: the server ran all but them */
        int64_t ran = server_inserts() - s0;
        CHECK(ran == i + 1, "the server ran %lld of %d sent", (long long)ran, i + 1);
        CHECK((int64_t)(SB_GET(st.queries[SB_Q_INSERT]) - q0) >= i + 1 - 4,
              "counted %llu after %d sent (depth 4)",
              (unsigned long long)(SB_GET(st.queries[SB_Q_INSERT]) - q0), i + 1);
    }
    CHECK(sb_conn_wait(c, 0) == SBD_OK, "wait: %s", sb_conn_error(c)->message);
    CHECK(SB_GET(st.queries[SB_Q_INSERT]) - q0 == 20, "counted %llu of 20",
          (unsigned long long)(SB_GET(st.queries[SB_Q_INSERT]) - q0));
    CHECK(server_inserts() - s0 == 20, "the server ran %lld", (long long)(server_inserts() - s0));
    CHECK(sb_conn_drain(c) == SBD_OK, "drain");
    sb_conn_close(c);
    PASS("a ring of 4 wrapping round 5 times: 20 sent, 20 run, 20 counted");
}

static void first_failure_kept(void)
{
    struct sb_conn *c = open_conn();
    uint64_t q0 = SB_GET(st.queries[SB_Q_INSERT]);
    int64_t s0 = server_inserts();
    for (int i = 0; i < 4; i++) { /* statement 3 is refused */
        int queued = 0;
        CHECK(submit_sql(c, i == 2 ? bad : "INSERT INTO t VALUES (1)", 1, &queued) == SBD_OK && queued,
              "queued %d", i + 1);
    }
    int rc = sb_conn_wait(c, 0);
    CHECK(rc == SBD_ERROR, "the wait reports the failure (%d)", rc);
    CHECK(strstr(sb_conn_error(c)->message, "statement 3 ") != NULL, "the first failure: %s",
          sb_conn_error(c)->message);
    CHECK(SB_GET(st.queries[SB_Q_INSERT]) - q0 == 3, "statements 1, 2, 4 counted: %llu",
          (unsigned long long)(SB_GET(st.queries[SB_Q_INSERT]) - q0));
    CHECK(server_inserts() - s0 == 3, "the server ran 3 without error: %lld",
          (long long)(server_inserts() - s0));
    /* a blocking statement behind queued ones: they are answered first */
    int queued = 0;
    CHECK(submit(c, 1, &queued) == SBD_OK && queued, "statement 5 queued");
    CHECK(submit_sql(c, bad, 0, &queued) == SBD_ERROR && !queued, "statement 6 (blocking) fails");
    CHECK(strstr(sb_conn_error(c)->message, "statement 6 ") != NULL, "its own error: %s",
          sb_conn_error(c)->message);
    CHECK(SB_GET(st.queries[SB_Q_INSERT]) - q0 == 4, "statement 5 counted before 6 ran");
    CHECK(sb_conn_drain(c) == SBD_OK, "drain");
    sb_conn_close(c);
    sb_db_set_pipeline(0);
    PASS("the first failure among answers is reported; the rest run, counted");
}

/* One send or receive of what io_want asks, at most `cap` bytes. */
static void io_step(struct sb_conn *c, size_t cap)
{
    struct sbd_io io;
    CHECK(sb_conn_io_want(c, &io) == 1, "io_want");
    if (io.out_len > 0) {
        size_t n = io.out_len < cap ? io.out_len : cap;
        ssize_t k = send(io.fd, io.out, n, MSG_NOSIGNAL);
        CHECK(k == (ssize_t)n, "send");
        sb_conn_io_done(c, SBD_IO_SENT, (long)k);
    } else {
        CHECK(io.in_room > 0, "something to receive");
        ssize_t k = recv(io.fd, io.in, io.in_room < cap ? io.in_room : cap, 0);
        CHECK(k > 0, "recv");
        sb_conn_io_done(c, SBD_IO_RECEIVED, (long)k);
    }
}

static void host_io(void)
{
    CHECK(sb_db_set_host_io(1) == 1, "the null driver offers host I/O");
    struct sb_conn *c = open_conn();
    uint64_t q0 = SB_GET(st.queries[SB_Q_INSERT]);
    int64_t s0 = server_inserts();
    int queued = 0, ww;
    CHECK(submit(c, 1, &queued) == SBD_OK && queued, "queued");
    CHECK(sb_conn_complete(c, 0, &ww) == SBD_AGAIN, "not answered before it is sent");
    io_step(c, 5); /* the request in two parts */
    CHECK(server_inserts() - s0 == 0, "not run before all of it is sent");
    io_step(c, 1 << 20);
    /* the null driver's model server runs on a thread of its own: it
     * executes the request soon after the last byte arrives, not during
     * the send (wait for it, at most 5 s, then check it ran once) */
    for (int i = 0; i < 5000 && server_inserts() - s0 == 0; i++)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    CHECK(server_inserts() - s0 == 1, "run once it is all sent");
    CHECK(sb_conn_complete(c, 0, &ww) == SBD_AGAIN, "not answered before the answer is in");
    int steps = 0;
    int rc;
    while ((rc = sb_conn_complete(c, 0, &ww)) == SBD_AGAIN && steps++ < 100)
        io_step(c, 7); /* the answer in 7-byte parts */
    CHECK(rc == SBD_OK, "answered: %d %s", rc, sb_conn_error(c)->message);
    CHECK(steps > 1, "the answer came in %d parts", steps);
    CHECK(SB_GET(st.queries[SB_Q_INSERT]) - q0 == 1, "counted once");
    /* built, never sent, the connection closed: never run */
    CHECK(submit(c, 1, &queued) == SBD_OK && queued, "queued");
    sb_conn_disconnect(c);
    CHECK(server_inserts() - s0 == 1, "an unsent request is never run: %lld",
          (long long)(server_inserts() - s0));
    CHECK(SB_GET(st.queries[SB_Q_INSERT]) - q0 == 1, "nor counted");
    sb_conn_close(c);
    PASS("host I/O: sent in parts, run once, counted once; never sent, never run");
}

static void lost_empties_ring(void)
{
    /* a driver's lost connection: what was in flight died with it */
    struct sb_conn *c = open_conn();
    int queued = 0, ww;
    CHECK(submit(c, 1, &queued) == SBD_OK && queued, "queued");
    io_step(c, 1 << 20);
    sb_conn_disconnect(c); /* the answer is never read */
    CHECK(sb_conn_complete(c, 0, &ww) == SBD_OK, "nothing left in flight after a disconnect");
    CHECK(submit(c, 1, &queued) == SBD_CONN_LOST, "a closed connection refuses");
    CHECK(sb_conn_reconnect(c, 0) == SBD_OK, "reconnect");
    CHECK(submit(c, 1, &queued) == SBD_OK && queued, "queued after the reconnect");
    CHECK(sb_conn_wait(c, 0) == SBD_OK, "the blocking wait moves the host's bytes itself");
    sb_conn_close(c);
    sb_db_set_host_io(0);
    PASS("a disconnect empties the ring; a reconnected one works");
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: db_ring_test PATH_TO_NULL_DRIVER.so");
    char *args[] = {argv[0]};
    load(argv[1], 1, args);
    ring_wraps();
    first_failure_kept();
    host_io();
    lost_empties_ring();
    sb_stats_free(&st);
    printf("%d passed, 0 failed\n", passed);
    return 0;
}
