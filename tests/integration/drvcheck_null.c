/*
 * drvcheck: the null driver's own model (drivers/null/null_server.c and
 * null_async.c), beyond what every driver passes: answers ready
 * --null-delay-us apart and in order, the socket readable exactly when
 * the oldest answer is, the rules of driver.h enforced with HY010, and
 * the transactions and server counters of its model server, counted here
 * statement by statement.  Run with and without --null-delay-us.
 */
#include "drvcheck.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int readable(int fd, int timeout_ms)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    return poll(&pf, 1, timeout_ms) == 1 && (pf.revents & POLLIN);
}

static int one_int(sbd_conn *c, int rc, const struct sbd_result_info *info, int64_t want)
{
    struct sbd_value row[1];
    int ok = rc == SBD_OK && info->nfields == 1 && drv->fetch_row(c, row) == SBD_OK &&
             row[0].i == want && drv->fetch_row(c, row) == SBD_DONE;
    drv->free_result(c);
    return ok;
}

static int hy010(sbd_conn *c, int rc)
{
    return rc == SBD_ERROR && strcmp(drv->last_error(c)->sqlstate, "HY010") == 0;
}

/* Three pipelined answers: each not before i x delay after the sends,
 * readable exactly when complete; then a blocking call waits as long. */
static void check_timing(sbd_conn *c, int64_t delay)
{
    int fd = drv->socket(c);
    struct sbd_result_info info;
    int want_write;
    CHECK(fd >= 0 && !readable(fd, 0), c, "socket: not readable with nothing in flight");
    CHECK(drv->pipeline(c, 1) == SBD_OK, c, "pipeline(1)");
    int64_t t0 = now_ns();
    for (int i = 1; i <= 3; i++) {
        char sql[16];
        int n = snprintf(sql, sizeof sql, "SELECT %d", i);
        CHECK(drv->send_query(c, sql, (size_t)n) == SBD_OK, c, "pipelined send");
    }
    for (int i = 1; i <= 3; i++) {
        int early = readable(fd, 0);
        CHECK(!early || now_ns() - t0 >= i * delay, c, "socket not readable before the answer is ready");
        int rc = drv->poll_result(c, &info, &want_write);
        if (rc != SBD_AGAIN) {
            CHECK(now_ns() - t0 >= i * delay, c, "an answer not before i x --null-delay-us");
        } else {
            CHECK(!early, c, "socket readable: poll_result answers");
            CHECK(readable(fd, 5000), c, "socket readable when the answer is ready");
            CHECK(now_ns() - t0 >= i * delay, c, "socket readable not before i x --null-delay-us");
            rc = drv->poll_result(c, &info, &want_write);
            CHECK(rc != SBD_AGAIN, c, "socket readable: poll_result answers");
        }
        CHECK(one_int(c, rc, &info, i), c, "pipelined answers in order");
    }
    int64_t took = now_ns() - t0;
    CHECK(took < 3 * delay + 2000000000LL, c, "three answers within 3 x delay (+2 s)");
    CHECK(!readable(fd, 0), c, "socket not readable once every answer was read");
    CHECK(drv->pipeline(c, 0) == SBD_OK, c, "pipeline(0)");
    t0 = now_ns();
    CHECK(query_int(c, "SELECT 5") == 5 && now_ns() - t0 >= delay, c,
          "a blocking call waits --null-delay-us too");
    printf("drvcheck: null: 3 pipelined answers in %.1f ms (delay %.1f ms)\n", took / 1e6,
           delay / 1e6);
}

/* Calls driver.h forbids in the state the connection is in. */
static void check_rules(sbd_conn *c)
{
    struct sbd_result_info info;
    struct sbd_value row[1];
    int want_write;
    CHECK(hy010(c, drv->poll_result(c, &info, &want_write)), c,
          "poll_result with nothing in flight: HY010");
    CHECK(drv->send_query(c, "SELECT 1", 8) == SBD_OK, c, "send");
    CHECK(hy010(c, drv->query(c, "SELECT 2", 8, &info)), c,
          "a blocking call with a statement in flight: HY010");
    CHECK(hy010(c, drv->send_query(c, "SELECT 3", 8)), c,
          "a second send outside pipeline mode: HY010");
    CHECK(hy010(c, drv->fetch_row(c, row)), c, "fetch_row with a statement in flight: HY010");
    CHECK(hy010(c, drv->pipeline(c, 1)), c, "pipeline(1) with a statement in flight: HY010");
    CHECK(one_int(c, nb_wait(c, &info, NULL), &info, 1), c,
          "the statement in flight answers after the refused calls");
    CHECK(drv->pipeline(c, 1) == SBD_OK && drv->send_query(c, "SELECT 4", 8) == SBD_OK, c,
          "pipelined send");
    CHECK(hy010(c, drv->pipeline(c, 0)), c, "pipeline(0) with a statement in flight: HY010");
    CHECK(hy010(c, drv->query(c, "SELECT 2", 8, &info)), c,
          "a blocking call in pipeline mode: HY010");
    CHECK(one_int(c, nb_wait(c, &info, NULL), &info, 4), c, "pipelined answer");
    CHECK(drv->pipeline(c, 0) == SBD_OK, c, "pipeline(0) with nothing in flight");
    /* it keeps no rows: a count is 0, so a workload's catalog query says
     * its table does not exist yet */
    CHECK(query_int(c, "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE tablename = 'x'") == 0, c,
          "SELECT COUNT(*) answers 0");
    CHECK(query_int(c, " select count ( * ) from t") == 0, c, "select count ( * ) answers 0");
}

static void counters(sbd_conn *c, struct sbd_server_counters *out)
{
    CHECK(drv->server_counters(c, out) == SBD_OK, c, "server_counters");
}

/* Statements of known kinds against the counters' differences. */
static void check_counters(sbd_conn *c)
{
    struct sbd_server_counters a, b;
    struct sbd_result_info info;
    counters(c, &a);
    counters(c, &b);
    CHECK(memcmp(&a, &b, sizeof a) == 0, c, "reading the counters counts nothing");
    /* committed: 6 statements */
    const char *ok[] = {"BEGIN", "SELECT 1", "INSERT INTO t VALUES (1)", "update t SET a = 2",
                        "  DELETE FROM t", "COMMIT"};
    for (int i = 0; i < 6; i++)
        run(c, ok[i], &info);
    /* a failed transaction: 2 statements answered, the COMMIT rolls back */
    run(c, "BEGIN", &info);
    CHECK(drv->query(c, not_sql, strlen(not_sql), &info) == SBD_ERROR &&
          strcmp(drv->last_error(c)->sqlstate, "42601") == 0, c, "syntax error: 42601");
    CHECK(drv->query(c, "SELECT 1", 8, &info) == SBD_ERROR &&
          strcmp(drv->last_error(c)->sqlstate, "25P02") == 0, c,
          "after an error in a transaction: 25P02");
    run(c, "COMMIT", &info);
    /* rolled back: 3; pipelined: 3 selects and an insert */
    run(c, "BEGIN", &info);
    CHECK(query_int(c, "SELECT 9") == 9, c, "SELECT 9");
    run(c, "ROLLBACK", &info);
    CHECK(drv->pipeline(c, 1) == SBD_OK, c, "pipeline(1)");
    const char *piped[] = {"SELECT 1", "SELECT 2", "INSERT INTO t VALUES (3)", "SELECT 3"};
    for (int i = 0; i < 4; i++)
        CHECK(drv->send_query(c, piped[i], strlen(piped[i])) == SBD_OK, c, "pipelined send");
    for (int i = 0; i < 4; i++)
        CHECK(nb_wait(c, &info, NULL) == SBD_OK, c, "pipelined answer");
    drv->free_result(c);
    CHECK(drv->pipeline(c, 0) == SBD_OK, c, "pipeline(0)");
    /* --null-rows rows for a SELECT of no literal */
    run(c, "SELECT c FROM sbtest1 WHERE id = 1", &info);
    long long rows = h_opt_int("null-rows");
    struct sbd_value row[1];
    for (long long i = 1; i <= rows; i++)
        CHECK(drv->fetch_row(c, row) == SBD_OK && row[0].i == i, c, "--null-rows rows: 1, 2, ...");
    CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "--null-rows rows, no more");
    drv->free_result(c);
    /* a transaction open when its connection closes is rolled back */
    sbd_conn *c2 = NULL;
    struct sbd_error cerr;
    CHECK(drv->connect(0, &c2, &cerr) == SBD_OK, NULL, "second connection");
    run(c2, "BEGIN", &info);
    drv->disconnect(c2);
    counters(c, &b);
    int64_t want[7] = {1, 3, 6, 2, 1, 1, 17}; /* commits .. statements */
    const char *names[7] = {"commits", "rollbacks", "selects", "inserts", "updates", "deletes",
                            "statements"};
    int64_t *pa = &a.commits, *pb = &b.commits;
    for (int i = 0; i < 7; i++) {
        char what[160];
        snprintf(what, sizeof what, "server counters: %s %lld, expected %lld", names[i],
                 (long long)(pb[i] - pa[i]), (long long)want[i]);
        CHECK(pb[i] - pa[i] == want[i], c, what);
    }
}

void check_null_model(sbd_conn *c)
{
    CHECK(h_opt_int("null-fail-every") == 0, NULL,
          "the null model checks run without --null-fail-every");
    alarm(60);
    check_timing(c, h_opt_int("null-delay-us") * 1000);
    check_rules(c);
    check_counters(c);
    alarm(0);
}
