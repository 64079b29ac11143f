/*
 * drvcheck: the nonblocking (ABI 1.1) and pipelined (ABI 1.2) calls, with
 * statements every server answers the same way (SELECT <integer>, a
 * syntax error, BEGIN/COMMIT), so any driver with the capability passes
 * them, the null driver included; with stored data (drvcheck_t, made by
 * drvcheck.c) also pipelined parameters, affected rows and the order in
 * which statements see each other's changes.  Pipelined answers are
 * compared one by one with those of the same statements run blocking:
 * driver.h says every statement runs "exactly as if it had been sent
 * alone".  Host I/O (ABI 1.4): the same statements with the host moving
 * their bytes one at a time.
 */
#include "drvcheck.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The answer just completed (rc, info) is one row holding want. */
static void expect_int(sbd_conn *c, int rc, const struct sbd_result_info *info, int64_t want,
                       const char *what)
{
    struct sbd_value row[4];
    CHECK(rc == SBD_OK && info->nfields == 1, c, what);
    CHECK(drv->fetch_row(c, row) == SBD_OK && value_int(&row[0]) == want, c, what);
    CHECK(drv->fetch_row(c, row) == SBD_DONE, c, what);
    drv->free_result(c);
}

void check_nonblocking_basics(sbd_conn *c)
{
    CHECK(drv->struct_size >= offsetof(struct sbd_driver, poll_result) + sizeof drv->poll_result &&
          drv->socket && drv->send_query && drv->send_execute && drv->poll_result, NULL,
          "SBD_CAP_NONBLOCKING: socket, send_query, send_execute and poll_result present");
    alarm(120); /* a call that blocks for good ends the check */
    struct sbd_result_info info;

    expect_int(c, nb_query(c, "SELECT 11", &info), &info, 11, "nonblocking SELECT 11");
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, "SELECT 12", 9, 0, NULL, &st) == SBD_OK, c, "prepare SELECT 12");
    CHECK(drv->send_execute(c, st, NULL, 0) == SBD_OK, c, "send_execute SELECT 12");
    expect_int(c, nb_wait(c, &info, NULL), &info, 12, "nonblocking execute SELECT 12");
    expect_int(c, drv->execute(c, st, NULL, 0, &info), &info, 12,
               "blocking execute after a nonblocking one");
    drv->close_stmt(c, st);

    CHECK(nb_query(c, not_sql, &info) == SBD_ERROR, c, "nonblocking syntax error: SBD_ERROR");
    const struct sbd_error *e = drv->last_error(c);
    CHECK(e->status == SBD_ERROR && e->message[0] != 0, c, "nonblocking error has a message");
    expect_int(c, nb_query(c, "SELECT 14", &info), &info, 14, "nonblocking: usable after an error");

    /* two connections in flight, answers read in the other order; then a
     * connection closed with its statement in flight */
    sbd_conn *c2 = NULL;
    struct sbd_error cerr;
    CHECK(drv->connect(0, &c2, &cerr) == SBD_OK, NULL, "second connection");
    CHECK(drv->send_query(c, "SELECT 21", 9) == SBD_OK &&
          drv->send_query(c2, "SELECT 22", 9) == SBD_OK, c, "two statements in flight");
    expect_int(c2, nb_wait(c2, &info, NULL), &info, 22, "second connection's answer");
    expect_int(c, nb_wait(c, &info, NULL), &info, 21, "first connection's answer");
    CHECK(drv->send_query(c2, "SELECT 23", 9) == SBD_OK, c2, "send before disconnect");
    drv->disconnect(c2);
    alarm(0);
}

/* ---- pipelining ---- */

/* One statement of a sequence: text, or the prepared statement. */
struct step {
    const char *sql;         /* NULL: send_execute of the prepared one */
};

/* What a statement answered: status, SQLSTATE, columns, first value. */
struct outcome {
    int status;
    char sqlstate[6];
    int nfields;
    int64_t value;
};

static void record(sbd_conn *c, int rc, const struct sbd_result_info *info, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    o->status = rc;
    o->value = -1;
    o->nfields = -1;
    if (rc != SBD_OK) {
        snprintf(o->sqlstate, sizeof o->sqlstate, "%s", drv->last_error(c)->sqlstate);
        return;
    }
    o->nfields = info->nfields;
    struct sbd_value row[8];
    if (info->nfields > 0 && info->nfields <= 8) {
        if (drv->fetch_row(c, row) == SBD_OK)
            o->value = value_int(&row[0]);
        drv->free_result(c);
    }
}

static void run_blocking(sbd_conn *c, const struct step *s, int n, sbd_stmt *st,
                         struct outcome *out)
{
    for (int i = 0; i < n; i++) {
        struct sbd_result_info info;
        int rc = s[i].sql ? drv->query(c, s[i].sql, strlen(s[i].sql), &info)
                          : drv->execute(c, st, NULL, 0, &info);
        record(c, rc, &info, &out[i]);
    }
}

static void run_pipelined(sbd_conn *c, const struct step *s, int n, sbd_stmt *st,
                          struct outcome *out)
{
    CHECK(drv->pipeline(c, 1) == SBD_OK, c, "pipeline(1) with nothing in flight");
    for (int i = 0; i < n; i++) {
        int rc = s[i].sql ? drv->send_query(c, s[i].sql, strlen(s[i].sql))
                          : drv->send_execute(c, st, NULL, 0);
        CHECK(rc == SBD_OK, c, "pipelined send before earlier answers came");
    }
    for (int i = 0; i < n; i++) {
        struct sbd_result_info info;
        int rc = nb_wait(c, &info, NULL);
        record(c, rc, &info, &out[i]);
    }
    CHECK(drv->pipeline(c, 0) == SBD_OK, c, "pipeline(0) after every answer was read");
}

/* The sequence answers the same pipelined as blocking. */
static void same_as_blocking(sbd_conn *c, const char *name, const struct step *s, int n,
                             sbd_stmt *st, struct outcome *blocking)
{
    struct outcome piped[16];
    run_blocking(c, s, n, st, blocking);
    run_pipelined(c, s, n, st, piped);
    for (int i = 0; i < n; i++) {
        const struct outcome *a = &blocking[i], *b = &piped[i];
        if (a->status == b->status && a->nfields == b->nfields && a->value == b->value &&
            strcmp(a->sqlstate, b->sqlstate) == 0) {
            checks++;
            continue;
        }
        char what[300];
        snprintf(what, sizeof what, "pipelined %s, statement %d (%s): status %d '%s' value %lld "
                 "where blocking gave %d '%s' value %lld", name, i + 1,
                 s[i].sql ? s[i].sql : "prepared", b->status, b->sqlstate, (long long)b->value,
                 a->status, a->sqlstate, (long long)a->value);
        fail(NULL, what);
    }
}

/* Pipelined parameters, affected rows, and a statement seeing the change
 * of the one before it (drvcheck_t has ids 101..1000, k = id * 7). */
static void check_pipeline_data(sbd_conn *c)
{
    struct sbd_result_info info;
    struct sbd_value row[4];
    const char *sel = "SELECT id, k FROM drvcheck_t WHERE id = ?";
    const char *upd = "UPDATE drvcheck_t SET c = ? WHERE id BETWEEN ? AND ?";
    int t_int = SBD_TYPE_INT;
    int t_upd[] = {SBD_TYPE_STRING, SBD_TYPE_INT, SBD_TYPE_INT};
    sbd_stmt *ss = NULL, *us = NULL;
    CHECK(drv->prepare(c, sel, strlen(sel), 1, &t_int, &ss) == SBD_OK, c, "prepare select");
    CHECK(drv->prepare(c, upd, strlen(upd), 3, t_upd, &us) == SBD_OK, c, "prepare update");
    CHECK(drv->pipeline(c, 1) == SBD_OK, c, "pipeline(1)");
    for (int id = 601; id <= 610; id++) {
        struct sbd_value p = {.type = SBD_TYPE_INT, .i = id};
        CHECK(drv->send_execute(c, ss, &p, 1) == SBD_OK, c, "pipelined send_execute select");
        p.i = -1; /* the driver must not need params after the call */
    }
    char val[] = "pl-xx";
    struct sbd_value up[3] = {
        {.type = SBD_TYPE_STRING, .s = val, .len = 2},
        {.type = SBD_TYPE_INT, .i = 701},
        {.type = SBD_TYPE_INT, .i = 704},
    };
    CHECK(drv->send_execute(c, us, up, 3) == SBD_OK, c, "pipelined send_execute update");
    memset(val, 'z', 2);
    const char *cnt = "SELECT COUNT(*) FROM drvcheck_t WHERE c = 'pl'";
    CHECK(drv->send_query(c, cnt, strlen(cnt)) == SBD_OK, c, "pipelined count");
    for (int id = 601; id <= 610; id++) {
        CHECK(nb_wait(c, &info, NULL) == SBD_OK && info.nfields == 2, c, "pipelined select");
        CHECK(drv->fetch_row(c, row) == SBD_OK && value_int(&row[0]) == id &&
              value_int(&row[1]) == id * 7, c, "pipelined select: its own parameter, in order");
        CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "pipelined select: one row");
        drv->free_result(c);
    }
    CHECK(nb_wait(c, &info, NULL) == SBD_OK && info.affected_rows == 4, c,
          "pipelined update: 4 rows");
    expect_int(c, nb_wait(c, &info, NULL), &info, 4,
               "pipelined count sees the update before it, with the string copied at send");
    CHECK(drv->pipeline(c, 0) == SBD_OK, c, "pipeline(0)");
    drv->close_stmt(c, ss);
    drv->close_stmt(c, us);
}

void check_pipeline(sbd_conn *c, int stores_data)
{
    CHECK(drv->struct_size >= offsetof(struct sbd_driver, pipeline) + sizeof drv->pipeline &&
          drv->pipeline && (drv->caps & SBD_CAP_NONBLOCKING), NULL,
          "SBD_CAP_PIPELINE: pipeline present, with SBD_CAP_NONBLOCKING");
    alarm(120);
    struct sbd_result_info info;
    CHECK(drv->pipeline(c, 1) == SBD_OK && drv->pipeline(c, 0) == SBD_OK, c,
          "pipeline on and off with nothing sent");
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, "SELECT 7", 8, 0, NULL, &st) == SBD_OK, c, "prepare SELECT 7");

    /* a failed statement in autocommit, then in a transaction: the
     * answers after it are those it gets without pipelining */
    const struct step autocommit[] = {{"SELECT 1"}, {NULL}, {not_sql}, {"SELECT 3"}, {NULL}};
    const struct step in_txn[] = {{"BEGIN"}, {"SELECT 1"}, {not_sql}, {"SELECT 3"}, {NULL},
                                  {"COMMIT"}, {"SELECT 5"}};
    const struct step good_txn[] = {{"BEGIN"}, {"SELECT 1"}, {NULL}, {"COMMIT"}, {"SELECT 6"}};
    struct outcome o[16];
    same_as_blocking(c, "autocommit", autocommit, 5, st, o);
    CHECK(o[0].value == 1 && o[1].value == 7 && o[2].status == SBD_ERROR && o[3].value == 3 &&
          o[4].value == 7, c, "autocommit sequence: 1, 7, an error, 3, 7");
    same_as_blocking(c, "transaction with an error", in_txn, 7, st, o);
    CHECK(o[2].status == SBD_ERROR && o[5].status == SBD_OK && o[6].value == 5, c,
          "transaction with an error: the error, COMMIT ends the transaction, 5 after it");
    same_as_blocking(c, "transaction", good_txn, 5, st, o);
    CHECK(o[1].value == 1 && o[2].value == 7 && o[3].status == SBD_OK && o[4].value == 6, c,
          "transaction: 1, 7, COMMIT, 6");

    /* forty in flight, answered oldest first */
    CHECK(drv->pipeline(c, 1) == SBD_OK, c, "pipeline(1)");
    for (int i = 1; i <= 40; i++) {
        char sql[32];
        int n = snprintf(sql, sizeof sql, "SELECT %d", i);
        CHECK(drv->send_query(c, sql, (size_t)n) == SBD_OK, c, "pipelined send of forty");
        memset(sql, ' ', sizeof sql); /* the driver must not need the text after the call */
    }
    for (int i = 1; i <= 40; i++)
        expect_int(c, nb_wait(c, &info, NULL), &info, i, "forty pipelined answers, in order");
    CHECK(drv->pipeline(c, 0) == SBD_OK, c, "pipeline(0)");
    drv->close_stmt(c, st);
    CHECK(query_int(c, "SELECT 99") == 99, c, "blocking query after pipeline mode");
    if (stores_data)
        check_pipeline_data(c);

    /* a connection closed in pipeline mode with answers in flight */
    sbd_conn *c2 = NULL;
    struct sbd_error cerr;
    CHECK(drv->connect(0, &c2, &cerr) == SBD_OK, NULL, "second connection");
    CHECK(drv->pipeline(c2, 1) == SBD_OK, c2, "pipeline(1)");
    for (int i = 0; i < 3; i++)
        CHECK(drv->send_query(c2, "SELECT 1", 8) == SBD_OK, c2, "pipelined send");
    drv->disconnect(c2);
    alarm(0);
}

/* ---- host I/O (ABI 1.4) ---- */

/* Moves the statement in flight's bytes as the host would, one byte per
 * send and per receive (so the driver parses answers cut anywhere), and
 * returns poll_result's final status.  A statement the driver moves itself
 * (io_want 0) is waited for as nb_wait does. */
static int host_wait(sbd_conn *c, struct sbd_result_info *info)
{
    for (int i = 0; i < 200000; i++) {
        int want_write = 0;
        int rc = drv->poll_result(c, info, &want_write);
        if (rc != SBD_AGAIN)
            return rc;
        struct sbd_io io;
        if (!drv->io_want(c, &io))
            return nb_wait(c, info, NULL);
        CHECK(io.fd >= 0, c, "io_want: a socket");
        if (io.out_len > 0) {
            ssize_t k = send(io.fd, io.out, 1, MSG_NOSIGNAL);
            drv->io_done(c, SBD_IO_SENT, k < 0 ? -errno : (long)k);
        } else if (io.in_room > 0) {
            struct pollfd pf = {.fd = io.fd, .events = POLLIN};
            poll(&pf, 1, 1000);
            ssize_t k = recv(io.fd, io.in, 1, MSG_DONTWAIT);
            if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                continue;
            drv->io_done(c, SBD_IO_RECEIVED, k < 0 ? -errno : (long)k);
        } else {
            CHECK(0, c, "io_want: nothing to move, yet poll_result says SBD_AGAIN");
            return SBD_ERROR;
        }
    }
    fail(c, "host I/O statement did not end");
    return SBD_ERROR;
}

void check_host_io(void)
{
    CHECK(drv->host_io && drv->io_want && drv->io_done, NULL,
          "SBD_CAP_HOST_IO: host_io, io_want and io_done present");
    alarm(120);
    sbd_conn *c = NULL;
    struct sbd_error cerr;
    CHECK(drv->connect(0, &c, &cerr) == SBD_OK, NULL, "connection for host I/O");
    int on = drv->host_io(c, 1);
    CHECK(on == SBD_OK || on == SBD_UNSUPPORTED, c, "host_io(1): SBD_OK or SBD_UNSUPPORTED");
    if (on != SBD_OK) {
        printf("note host_io refused on this connection: host I/O not checked\n");
        drv->disconnect(c);
        alarm(0);
        return;
    }
    struct sbd_result_info info;
    CHECK(drv->send_query(c, "SELECT 31", 9) == SBD_OK, c, "host I/O: send_query");
    expect_int(c, host_wait(c, &info), &info, 31, "host I/O: SELECT 31, one byte at a time");
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, "SELECT 32", 9, 0, NULL, &st) == SBD_OK, c, "host I/O: prepare SELECT 32");
    for (int i = 0; i < 3; i++) {
        CHECK(drv->send_execute(c, st, NULL, 0) == SBD_OK, c, "host I/O: send_execute");
        expect_int(c, host_wait(c, &info), &info, 32, "host I/O: execute SELECT 32");
    }
    expect_int(c, drv->execute(c, st, NULL, 0, &info), &info, 32,
               "blocking execute on a host I/O connection");
    CHECK(drv->send_query(c, not_sql, strlen(not_sql)) == SBD_OK, c, "host I/O: send a syntax error");
    CHECK(host_wait(c, &info) == SBD_ERROR && drv->last_error(c)->message[0] != 0, c,
          "host I/O: syntax error is SBD_ERROR with a message");
    CHECK(drv->send_execute(c, st, NULL, 0) == SBD_OK, c, "host I/O: send after an error");
    expect_int(c, host_wait(c, &info), &info, 32, "host I/O: usable after an error");
    /* the host's receive finds the end of the stream: the connection is lost */
    CHECK(drv->send_execute(c, st, NULL, 0) == SBD_OK, c, "host I/O: send before the end");
    struct sbd_io io;
    int rc = SBD_AGAIN;
    if (drv->io_want(c, &io)) {
        int want_write = 0;
        drv->io_done(c, SBD_IO_SENT, (long)io.out_len); /* as if sent; never read */
        drv->io_done(c, SBD_IO_RECEIVED, 0);
        rc = drv->poll_result(c, &info, &want_write);
    }
    CHECK(rc == SBD_CONN_LOST, c, "host I/O: end of stream on receive is SBD_CONN_LOST");
    drv->disconnect(c);
    alarm(0);
}
