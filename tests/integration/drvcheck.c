/*
 * drvcheck: driver ABI conformance check against a real database.
 *
 *   drvcheck [--no-data] path/to/sbench-NAME.so [--option=value ...]
 *
 * (installed as sbench-drvcheck, for drivers built outside this tree:
 * docs/writing-a-driver.md)
 *
 * Loads the driver exactly as sbench does, connects with the given driver
 * options, and exercises every ABI call: plain queries, prepared statements
 * with each parameter type, result fetching, bulk load (or multi-row
 * INSERT), transactions, affected-row counts and error classification;
 * with SBD_CAP_NONBLOCKING also the nonblocking calls (ABI 1.1): results,
 * affected rows, prepared executes, errors, two connections in flight at
 * once, a deadlock reported as SBD_RETRY and a disconnect mid-statement;
 * with SBD_CAP_PIPELINE the pipelined calls (ABI 1.2), answer by answer
 * against the same statements run blocking (drvcheck_async.c); binary
 * BYTES values and, with SBD_CAP_STREAM, streamed results (ABI 1.3,
 * drvcheck_bytes.c); with SBD_CAP_HOST_IO the host I/O calls (ABI 1.4).  Every
 * value read back is compared with what was written.
 *
 * The null driver stores nothing, nor (by its author's word) does a
 * driver checked with --no-data: they get every check that needs no stored
 * data (SELECT <integer>, syntax errors, the nonblocking and pipelined
 * calls); the null driver also the checks of its own model
 * (drvcheck_null.c).
 * Exits 0 when all checks pass, 1 on the first failure (with the check's
 * name).
 */
#include "drvcheck.h"

#include <dlfcn.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define ABI_TEXT STR(SBD_ABI_MAJOR) "." STR(SBD_ABI_MINOR)

#define MAX_OPTS 64
static const char *opt_names[MAX_OPTS];
static const char *opt_values[MAX_OPTS];
static int nopts;
const struct sbd_driver *drv;
int checks;
const char *const not_sql = "*** not sql ***";

const char *h_opt_str(const char *name)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(opt_names[i], name) == 0)
            return opt_values[i];
    for (const struct sbd_option *o = drv->options; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o->default_value;
    return NULL;
}

static int h_opt_is_set(const char *name)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(opt_names[i], name) == 0)
            return 1;
    return 0;
}

long long h_opt_int(const char *name)
{
    const char *v = h_opt_str(name);
    return v ? strtoll(v, NULL, 10) : 0;
}

static int h_opt_bool(const char *name)
{
    const char *v = h_opt_str(name);
    return v && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0 ||
                 strcmp(v, "true") == 0 || strcmp(v, "yes") == 0);
}

static void h_log(int level, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "drvcheck: log[%d]: ", level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void fail(sbd_conn *c, const char *what)
{
    fprintf(stderr, "drvcheck: FAILED: %s", what);
    if (c) {
        const struct sbd_error *e = drv->last_error(c);
        fprintf(stderr, " [status %d, native %ld, sqlstate '%s': %s]",
                e->status, e->native_code, e->sqlstate, e->message);
    }
    fputc('\n', stderr);
    exit(1);
}

void run(sbd_conn *c, const char *sql, struct sbd_result_info *info)
{
    char what[600];
    snprintf(what, sizeof what, "query: %s", sql);
    CHECK(drv->query(c, sql, strlen(sql), info) == SBD_OK, c, what);
}

int64_t value_int(const struct sbd_value *v)
{
    if (v->type == SBD_TYPE_INT)
        return v->i;
    if (v->type == SBD_TYPE_DOUBLE)
        return (int64_t)v->d;
    char buf[64];
    size_t n = v->len < 63 ? v->len : 63;
    memcpy(buf, v->s, n);
    buf[n] = 0;
    return strtoll(buf, NULL, 10);
}

int64_t query_int(sbd_conn *c, const char *sql)
{
    struct sbd_result_info info;
    struct sbd_value row[4];
    run(c, sql, &info);
    CHECK(info.nfields == 1, c, "one column expected");
    CHECK(drv->fetch_row(c, row) == SBD_OK, c, "a row expected");
    int64_t v = value_int(&row[0]);
    CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "exactly one row expected");
    drv->free_result(c);
    return v;
}

int txn(sbd_conn *c, int (*fn)(sbd_conn *), const char *sql)
{
    struct sbd_result_info info;
    if (fn)
        return fn(c);
    return drv->query(c, sql, strlen(sql), &info);
}

/* ---- nonblocking statements (ABI 1.1) ---- */

/* Waits with poll() for the statement in flight on c to end; poll_result's
 * final status.  *agains counts the SBD_AGAIN answers. */
int nb_wait(sbd_conn *c, struct sbd_result_info *info, int *agains)
{
    for (int i = 0; i < 600; i++) {
        int want_write = 0;
        int rc = drv->poll_result(c, info, &want_write);
        if (rc != SBD_AGAIN)
            return rc;
        if (agains)
            (*agains)++;
        struct pollfd pf = {.fd = drv->socket(c),
                            .events = (short)(POLLIN | (want_write ? POLLOUT : 0))};
        CHECK(pf.fd >= 0, c, "socket of a connection with a statement in flight");
        poll(&pf, 1, 100);
    }
    fail(c, "nonblocking statement did not end within 60 s");
    return SBD_ERROR;
}

/* send_query then nb_wait; the status of whichever failed. */
int nb_query(sbd_conn *c, const char *sql, struct sbd_result_info *info)
{
    int rc = drv->send_query(c, sql, strlen(sql));
    return rc != SBD_OK ? rc : nb_wait(c, info, NULL);
}

static void check_nonblocking(sbd_conn *c)
{
    alarm(120); /* a call that blocks for good ends the check */
    struct sbd_result_info info;
    struct sbd_value row[4];

    /* (presence of the calls: check_nonblocking_basics) */
    /* a SELECT with rows, read after poll_result like after query */
    const char *sel = "SELECT id, k FROM drvcheck_t WHERE id BETWEEN 201 AND 205 ORDER BY id";
    CHECK(nb_query(c, sel, &info) == SBD_OK, c, "nonblocking select");
    CHECK(info.nfields == 2 && (info.nrows == 5 || info.nrows == -1), c,
          "nonblocking select: 2 columns, 5 rows");
    for (int id = 201; id <= 205; id++) {
        CHECK(drv->fetch_row(c, row) == SBD_OK, c, "nonblocking select: fetch row");
        CHECK(row[0].type == SBD_TYPE_INT && row[0].i == id && row[1].i == id * 7, c,
              "nonblocking select: values");
    }
    CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "nonblocking select: 5 rows");
    drv->free_result(c);

    /* DML: affected rows */
    CHECK(nb_query(c, "UPDATE drvcheck_t SET c = 'nb' WHERE id BETWEEN 201 AND 210", &info) ==
          SBD_OK, c, "nonblocking update");
    CHECK(info.affected_rows == 10 && info.nfields == 0, c, "nonblocking update: 10 rows");
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t WHERE c = 'nb'") == 10, c,
          "nonblocking update: rows changed");

    /* prepared statements: a SELECT and an UPDATE with parameters */
    const char *psel = "SELECT id, k, c FROM drvcheck_t WHERE id = ?";
    int t_int = SBD_TYPE_INT;
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, psel, strlen(psel), 1, &t_int, &st) == SBD_OK, c, "prepare select");
    for (int id = 301; id <= 320; id++) {
        struct sbd_value p = {.type = SBD_TYPE_INT, .i = id};
        CHECK(drv->send_execute(c, st, &p, 1) == SBD_OK, c, "send_execute select");
        p.i = -1; /* the driver must not need params after the call */
        CHECK(nb_wait(c, &info, NULL) == SBD_OK, c, "nonblocking execute select");
        CHECK(info.nfields == 3, c, "nonblocking execute: 3 columns");
        CHECK(drv->fetch_row(c, row) == SBD_OK && row[0].i == id && row[1].i == id * 7, c,
              "nonblocking execute: values");
        CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "nonblocking execute: one row");
        drv->free_result(c);
        /* a blocking execute between nonblocking ones */
        p.i = id + 100;
        CHECK(drv->execute(c, st, &p, 1, &info) == SBD_OK && info.nfields == 3, c,
              "blocking execute after a nonblocking one");
        CHECK(drv->fetch_row(c, row) == SBD_OK && row[0].i == id + 100 &&
              row[1].i == (id + 100) * 7, c, "blocking execute after nonblocking: values");
        CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "blocking execute: one row");
        drv->free_result(c);
    }
    drv->close_stmt(c, st);
    const char *pupd = "UPDATE drvcheck_t SET c = ? WHERE id BETWEEN ? AND ?";
    int t_upd[] = {SBD_TYPE_STRING, SBD_TYPE_INT, SBD_TYPE_INT};
    CHECK(drv->prepare(c, pupd, strlen(pupd), 3, t_upd, &st) == SBD_OK, c, "prepare update");
    char val[] = "nb-exec-xx";
    struct sbd_value up[3] = {
        {.type = SBD_TYPE_STRING, .s = val, .len = 7},
        {.type = SBD_TYPE_INT, .i = 401},
        {.type = SBD_TYPE_INT, .i = 404},
    };
    CHECK(drv->send_execute(c, st, up, 3) == SBD_OK, c, "send_execute update");
    memset(val, 'z', sizeof val - 1);
    CHECK(nb_wait(c, &info, NULL) == SBD_OK && info.affected_rows == 4, c,
          "nonblocking execute update: 4 rows");
    drv->close_stmt(c, st);
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t WHERE c = 'nb-exec'") == 4, c,
          "nonblocking execute update: string parameter copied at send");

    /* an error: status, SQLSTATE, and the connection stays usable */
    const char *bad = "SELECT * FROM drvcheck_no_such_table";
    CHECK(nb_query(c, bad, &info) == SBD_ERROR, c, "nonblocking: missing table fails");
    const struct sbd_error *e = drv->last_error(c);
    CHECK(e->status == SBD_ERROR && strlen(e->sqlstate) == 5 && e->message[0] != 0, c,
          "nonblocking error has a SQLSTATE and a message");
    printf("drvcheck: nonblocking missing table -> native %ld, sqlstate '%s'\n",
           e->native_code, e->sqlstate);
    CHECK(nb_query(c, "SELECT COUNT(*) FROM drvcheck_t", &info) == SBD_OK &&
          drv->fetch_row(c, row) == SBD_OK, c, "nonblocking: usable after an error");
    drv->free_result(c);

    /* two connections in flight at once, then a deadlock between them:
     * one of the two gets SBD_RETRY (which one is the server's choice) */
    sbd_conn *c2 = NULL;
    struct sbd_error cerr;
    CHECK(drv->connect(0, &c2, &cerr) == SBD_OK, NULL, "second connection");
    const char *cnt = "SELECT COUNT(*) FROM drvcheck_t WHERE id > 200";
    CHECK(drv->send_query(c, cnt, strlen(cnt)) == SBD_OK &&
          drv->send_query(c2, cnt, strlen(cnt)) == SBD_OK, c, "two statements in flight");
    CHECK(nb_wait(c2, &info, NULL) == SBD_OK && drv->fetch_row(c2, row) == SBD_OK, c2,
          "second connection's answer");
    CHECK(nb_wait(c, &info, NULL) == SBD_OK && drv->fetch_row(c, row) == SBD_OK, c,
          "first connection's answer");
    drv->free_result(c);
    drv->free_result(c2);

    CHECK(txn(c, drv->begin, "BEGIN") == SBD_OK, c, "begin");
    CHECK(txn(c2, drv->begin, "BEGIN") == SBD_OK, c2, "begin");
    run(c, "UPDATE drvcheck_t SET k = k + 1 WHERE id = 501", &info);
    run(c2, "UPDATE drvcheck_t SET k = k + 1 WHERE id = 502", &info);
    const char *lock = "UPDATE drvcheck_t SET k = k + 1 WHERE id = 502";
    CHECK(drv->send_query(c, lock, strlen(lock)) == SBD_OK, c, "send a statement that waits");
    int agains = 0, rc1 = SBD_AGAIN, want_write;
    for (int i = 0; i < 3 && rc1 == SBD_AGAIN; i++) {
        usleep(100000);
        rc1 = drv->poll_result(c, &info, &want_write);
        agains += rc1 == SBD_AGAIN;
    }
    CHECK(rc1 == SBD_AGAIN && agains == 3, c, "poll_result: SBD_AGAIN while a lock is held");
    const char *lock2 = "UPDATE drvcheck_t SET k = k + 1 WHERE id = 501";
    int rc2 = drv->query(c2, lock2, strlen(lock2), &info);
    if (rc2 != SBD_OK)
        CHECK(rc2 == SBD_RETRY && drv->last_error(c2)->status == SBD_RETRY, c2,
              "deadlock is SBD_RETRY (blocking)");
    if (rc2 == SBD_RETRY)
        CHECK(txn(c2, drv->rollback, "ROLLBACK") == SBD_OK, c2, "rollback");
    rc1 = nb_wait(c, &info, NULL);
    if (rc1 != SBD_OK)
        CHECK(rc1 == SBD_RETRY && drv->last_error(c)->status == SBD_RETRY, c,
              "deadlock is SBD_RETRY (nonblocking)");
    CHECK((rc1 == SBD_RETRY) != (rc2 == SBD_RETRY), c, "exactly one deadlock victim");
    printf("drvcheck: nonblocking deadlock: victim %s (native %ld)\n",
           rc1 == SBD_RETRY ? "nonblocking" : "blocking",
           drv->last_error(rc1 == SBD_RETRY ? c : c2)->native_code);
    CHECK(txn(c, drv->rollback, "ROLLBACK") == SBD_OK, c, "rollback");
    if (rc2 == SBD_OK)
        CHECK(txn(c2, drv->rollback, "ROLLBACK") == SBD_OK, c2, "rollback");

    /* a connection closed while its statement waits: disconnect returns
     * at once (the lock holder cannot let go before it does) */
    CHECK(txn(c2, drv->begin, "BEGIN") == SBD_OK, c2, "begin");
    run(c2, "UPDATE drvcheck_t SET k = k + 1 WHERE id = 503", &info);
    const char *wait3 = "UPDATE drvcheck_t SET k = k + 1 WHERE id = 503";
    CHECK(drv->send_query(c, wait3, strlen(wait3)) == SBD_OK, c, "send a statement that waits");
    CHECK(drv->poll_result(c, &info, &want_write) == SBD_AGAIN, c, "waiting");
    drv->disconnect(c);
    CHECK(txn(c2, drv->rollback, "ROLLBACK") == SBD_OK, c2, "rollback");
    drv->disconnect(c2);
    alarm(0);
}

/* PostgreSQL: errors of prepared statements are classified like those of
 * plain queries: a lock not available (NOWAIT) restarts the event, a
 * statement in a failed transaction is an error, and the connection goes
 * on after both. */
static void check_pgsql_errors(sbd_conn *c)
{
    struct sbd_result_info info;
    struct sbd_value row[1];
    sbd_conn *c2 = NULL;
    struct sbd_error cerr;
    CHECK(drv->connect(0, &c2, &cerr) == SBD_OK, NULL, "second connection");
    CHECK(txn(c2, drv->begin, "BEGIN") == SBD_OK, c2, "begin");
    run(c2, "SELECT id FROM drvcheck_t WHERE id = 600 FOR UPDATE", &info);
    drv->free_result(c2);
    const char *nowait = "SELECT k FROM drvcheck_t WHERE id = ? FOR UPDATE NOWAIT";
    int t_int = SBD_TYPE_INT;
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, nowait, strlen(nowait), 1, &t_int, &st) == SBD_OK, c, "prepare nowait");
    struct sbd_value p = {.type = SBD_TYPE_INT, .i = 600};
    CHECK(drv->execute(c, st, &p, 1, &info) == SBD_RETRY, c, "locked row: SBD_RETRY");
    const struct sbd_error *e = drv->last_error(c);
    CHECK(e->status == SBD_RETRY && strcmp(e->sqlstate, "55P03") == 0 &&
          strstr(e->message, "lock") != NULL, c, "locked row: 55P03 with its message");
    CHECK(txn(c2, drv->rollback, "ROLLBACK") == SBD_OK, c2, "rollback");
    drv->disconnect(c2);
    CHECK(drv->execute(c, st, &p, 1, &info) == SBD_OK && drv->fetch_row(c, row) == SBD_OK &&
          row[0].i == 600 * 7, c, "row free again");
    drv->free_result(c);

    CHECK(txn(c, drv->begin, "BEGIN") == SBD_OK, c, "begin");
    const char *bad = "SELECT 1 / 0";
    CHECK(drv->query(c, bad, strlen(bad), &info) == SBD_ERROR, c, "division by zero");
    CHECK(drv->execute(c, st, &p, 1, &info) == SBD_ERROR, c, "execute in a failed transaction");
    e = drv->last_error(c);
    CHECK(strcmp(e->sqlstate, "25P02") == 0 && e->message[0] != 0, c,
          "failed transaction: 25P02 with a message");
    CHECK(txn(c, drv->rollback, "ROLLBACK") == SBD_OK, c, "rollback");
    drv->close_stmt(c, st);
}

/* ---- every driver, database or not ---- */

/* A SELECT of a literal, a prepared one, a syntax error. */
static void check_basics(sbd_conn *c)
{
    CHECK(query_int(c, "SELECT 42") == 42, c, "SELECT 42 answers 42");
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, "SELECT 7", 8, 0, NULL, &st) == SBD_OK, c, "prepare SELECT 7");
    for (int i = 0; i < 2; i++) {
        struct sbd_result_info info;
        struct sbd_value row[1];
        CHECK(drv->execute(c, st, NULL, 0, &info) == SBD_OK && info.nfields == 1, c,
              "execute SELECT 7");
        CHECK(drv->fetch_row(c, row) == SBD_OK && value_int(&row[0]) == 7, c,
              "prepared SELECT 7 answers 7");
        CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "prepared SELECT 7: one row");
        drv->free_result(c);
    }
    drv->close_stmt(c, st);
    struct sbd_result_info info;
    CHECK(drv->query(c, not_sql, strlen(not_sql), &info) == SBD_ERROR, c,
          "a statement that is not SQL fails with SBD_ERROR");
    const struct sbd_error *e = drv->last_error(c);
    CHECK(e->status == SBD_ERROR && e->message[0] != 0, c, "syntax error has a message");
    printf("drvcheck: syntax error -> native %ld, sqlstate '%s'\n", e->native_code, e->sqlstate);
    CHECK(query_int(c, "SELECT 43") == 43, c, "usable after a syntax error");
}

/* ---- a database: what is written is read back ---- */

/* Creates drvcheck_t with 1000 rows and checks loading, prepared
 * statements of every parameter type, transactions and errors against
 * the values written. */
static void check_stored_data(sbd_conn *c)
{
    struct sbd_result_info info;
    drv->query(c, "DROP TABLE drvcheck_t", 21, &info);
    run(c, "CREATE TABLE drvcheck_t (id INTEGER NOT NULL PRIMARY KEY, "
           "k INTEGER NOT NULL, c CHAR(20) NOT NULL, f DOUBLE PRECISION)", &info);

    /* Load 1000 rows: bulk when offered, multi-row INSERT otherwise. */
    enum { NROWS = 1000 };
    int64_t expect_sum = 0;
    if ((drv->caps & SBD_CAP_BULK_LOAD) && drv->bulk_begin) {
        const char *cols[] = {"id", "k", "c", "f"};
        int types[] = {SBD_TYPE_INT, SBD_TYPE_INT, SBD_TYPE_STRING, SBD_TYPE_DOUBLE};
        CHECK(drv->bulk_begin(c, "drvcheck_t", cols, types, 4) == SBD_OK, c, "bulk_begin");
        for (int i = 1; i <= NROWS; i++) {
            char cbuf[32];
            int n = snprintf(cbuf, sizeof cbuf, "row-%d", i);
            struct sbd_value v[4] = {
                {.type = SBD_TYPE_INT, .i = i},
                {.type = SBD_TYPE_INT, .i = i * 7},
                {.type = SBD_TYPE_STRING, .s = cbuf, .len = (size_t)n},
                {.type = SBD_TYPE_DOUBLE, .d = i / 4.0, .is_null = (i % 10 == 0)},
            };
            expect_sum += i * 7;
            CHECK(drv->bulk_row(c, v) == SBD_OK, c, "bulk_row");
        }
        CHECK(drv->bulk_end(c) == SBD_OK, c, "bulk_end");
    } else {
        for (int i = 1; i <= NROWS; i++) {
            char sql[256];
            if (i % 10 == 0)
                snprintf(sql, sizeof sql, "INSERT INTO drvcheck_t VALUES (%d, %d, 'row-%d', NULL)", i, i * 7, i);
            else
                snprintf(sql, sizeof sql, "INSERT INTO drvcheck_t VALUES (%d, %d, 'row-%d', %g)", i, i * 7, i, i / 4.0);
            expect_sum += i * 7;
            run(c, sql, &info);
        }
    }
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t") == NROWS, c, "row count after load");
    CHECK(query_int(c, "SELECT SUM(k) FROM drvcheck_t") == expect_sum, c, "sum after load");
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t WHERE f IS NULL") == NROWS / 10, c,
          "NULLs loaded");

    const struct sbd_error *e;

    /* Prepared SELECT with an INT parameter: values and types come back. */
    const char *sel = "SELECT id, k, c, f FROM drvcheck_t WHERE id = ?";
    int t_int = SBD_TYPE_INT;
    sbd_stmt *st = NULL;
    CHECK(drv->prepare(c, sel, strlen(sel), 1, &t_int, &st) == SBD_OK, c, "prepare select");
    for (int id = 1; id <= 50; id++) {
        struct sbd_value p = {.type = SBD_TYPE_INT, .i = id};
        struct sbd_value row[4];
        CHECK(drv->execute(c, st, &p, 1, &info) == SBD_OK, c, "execute select");
        CHECK(info.nfields == 4, c, "4 columns");
        CHECK(drv->fetch_row(c, row) == SBD_OK, c, "fetch prepared row");
        CHECK(row[0].type == SBD_TYPE_INT && row[0].i == id, c, "id as integer");
        CHECK(row[1].type == SBD_TYPE_INT && row[1].i == id * 7, c, "k as integer");
        char want[32];
        int wn = snprintf(want, sizeof want, "row-%d", id);
        size_t len = row[2].len;
        while (len > 0 && row[2].s[len - 1] == ' ')
            len--; /* CHAR padding differs between databases */
        CHECK(row[2].type == SBD_TYPE_STRING && len == (size_t)wn &&
              memcmp(row[2].s, want, len) == 0, c, "c as string");
        if (id % 10 == 0)
            CHECK(row[3].is_null, c, "NULL double");
        else
            CHECK(!row[3].is_null && row[3].type == SBD_TYPE_DOUBLE && row[3].d == id / 4.0, c,
                  "double value");
        CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "one row per id");
        drv->free_result(c);
    }
    drv->close_stmt(c, st);

    /* Prepared UPDATE with INT and STRING parameters: affected rows. */
    const char *upd = "UPDATE drvcheck_t SET c = ? WHERE id BETWEEN ? AND ?";
    int t_upd[] = {SBD_TYPE_STRING, SBD_TYPE_INT, SBD_TYPE_INT};
    CHECK(drv->prepare(c, upd, strlen(upd), 3, t_upd, &st) == SBD_OK, c, "prepare update");
    struct sbd_value up[3] = {
        {.type = SBD_TYPE_STRING, .s = "changed-xx", .len = 7},
        {.type = SBD_TYPE_INT, .i = 101},
        {.type = SBD_TYPE_INT, .i = 110},
    };
    CHECK(drv->execute(c, st, up, 3, &info) == SBD_OK, c, "execute update");
    CHECK(info.affected_rows == 10, c, "update affected 10 rows");
    drv->free_result(c);
    drv->close_stmt(c, st);
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t WHERE c = 'changed'") == 10, c,
          "string parameter stored without the bytes past len");

    /* Prepared SELECT of several rows, then with a NULL parameter (no
     * rows); a prepared INSERT that fails (duplicate key) and the next
     * execute on the same connection; affected rows of INSERT/DELETE. */
    const char *rng = "SELECT id, f, c FROM drvcheck_t WHERE id BETWEEN ? AND ? ORDER BY id";
    int t_rng[] = {SBD_TYPE_INT, SBD_TYPE_INT};
    CHECK(drv->prepare(c, rng, strlen(rng), 2, t_rng, &st) == SBD_OK, c, "prepare range");
    for (int pass = 0; pass < 2; pass++) {
        struct sbd_value pr[2] = {
            {.type = SBD_TYPE_INT, .i = 5},
            {.type = SBD_TYPE_INT, .i = 24, .is_null = pass == 1},
        };
        struct sbd_value row[3];
        CHECK(drv->execute(c, st, pr, 2, &info) == SBD_OK, c, "execute range");
        CHECK(info.nfields == 3, c, "range: 3 columns");
        CHECK(info.nrows == -1 || info.nrows == (pass == 0 ? 20 : 0), c, "range: nrows");
        int got = 0;
        while (drv->fetch_row(c, row) == SBD_OK) {
            int id = 5 + got++;
            CHECK(row[0].type == SBD_TYPE_INT && !row[0].is_null && row[0].i == id, c,
                  "range: ids in order");
            CHECK(id % 10 == 0 ? row[1].is_null
                               : (!row[1].is_null && row[1].d == id / 4.0), c,
                  "range: double or NULL");
            CHECK(row[2].type == SBD_TYPE_STRING && row[2].len >= 5 &&
                  memcmp(row[2].s, "row-", 4) == 0, c, "range: string");
        }
        CHECK(got == (pass == 0 ? 20 : 0), c, pass == 0 ? "range: 20 rows"
                                                        : "NULL parameter: no rows");
        drv->free_result(c);
    }
    drv->close_stmt(c, st);

    const char *ins = "INSERT INTO drvcheck_t (id, k, c, f) VALUES (?, ?, ?, ?)";
    int t_ins[] = {SBD_TYPE_INT, SBD_TYPE_INT, SBD_TYPE_STRING, SBD_TYPE_DOUBLE};
    CHECK(drv->prepare(c, ins, strlen(ins), 4, t_ins, &st) == SBD_OK, c, "prepare insert");
    struct sbd_value iv[4] = {
        {.type = SBD_TYPE_INT, .i = 500},
        {.type = SBD_TYPE_INT, .i = 1},
        {.type = SBD_TYPE_STRING, .s = "dup", .len = 3},
        {.type = SBD_TYPE_DOUBLE, .is_null = 1},
    };
    CHECK(drv->execute(c, st, iv, 4, &info) == SBD_ERROR, c, "prepared duplicate key fails");
    e = drv->last_error(c);
    CHECK(e->status == SBD_ERROR && e->message[0] != 0, c, "execute error has a message");
    printf("drvcheck: prepared duplicate key -> native %ld, sqlstate '%s': %s\n",
           e->native_code, e->sqlstate, e->message);
    iv[0].i = NROWS + 1;
    iv[3].is_null = 0;
    iv[3].d = 0.125;
    CHECK(drv->execute(c, st, iv, 4, &info) == SBD_OK, c, "execute insert after an error");
    CHECK(info.affected_rows == 1, c, "insert affected 1 row");
    drv->free_result(c);
    drv->close_stmt(c, st);
    const char *del = "DELETE FROM drvcheck_t WHERE id >= ?";
    CHECK(drv->prepare(c, del, strlen(del), 1, &t_int, &st) == SBD_OK, c, "prepare delete");
    struct sbd_value dv = {.type = SBD_TYPE_INT, .i = NROWS + 1};
    CHECK(drv->execute(c, st, &dv, 1, &info) == SBD_OK, c, "execute delete");
    CHECK(info.affected_rows == 1, c, "delete affected 1 row");
    drv->free_result(c);
    drv->close_stmt(c, st);

    /* Transactions: a rolled-back delete leaves the rows, a committed one
     * removes them. */
    CHECK(txn(c, drv->begin, "BEGIN") == SBD_OK, c, "begin");
    run(c, "DELETE FROM drvcheck_t WHERE id <= 100", &info);
    CHECK(info.affected_rows == 100, c, "delete affected 100 rows");
    CHECK(txn(c, drv->rollback, "ROLLBACK") == SBD_OK, c, "rollback");
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t") == NROWS, c, "rollback kept rows");
    CHECK(txn(c, drv->begin, "BEGIN") == SBD_OK, c, "begin");
    run(c, "DELETE FROM drvcheck_t WHERE id <= 100", &info);
    CHECK(txn(c, drv->commit, "COMMIT") == SBD_OK, c, "commit");
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t") == NROWS - 100, c, "commit removed rows");

    /* Errors: a missing table is a plain error with a message; a duplicate
     * key too; the connection stays usable. */
    const char *bad = "SELECT * FROM drvcheck_no_such_table";
    CHECK(drv->query(c, bad, strlen(bad), &info) == SBD_ERROR, c, "missing table fails");
    e = drv->last_error(c);
    CHECK(e->status == SBD_ERROR && e->message[0] != 0, c, "error has a message");
    printf("drvcheck: missing table -> native %ld, sqlstate '%s': %s\n", e->native_code,
           e->sqlstate, e->message);
    const char *dup = "INSERT INTO drvcheck_t VALUES (500, 1, 'dup', NULL)";
    CHECK(drv->query(c, dup, strlen(dup), &info) == SBD_ERROR, c, "duplicate key fails");
    CHECK(query_int(c, "SELECT COUNT(*) FROM drvcheck_t") == NROWS - 100, c,
          "connection usable after errors");

    if (strcmp(drv->name, "pgsql") == 0)
        check_pgsql_errors(c);
}

static const char usage[] =
    "usage: drvcheck [--no-data] DRIVER.so [--option=value ...]\n"
    "  checks every call of the driver ABI " ABI_TEXT " against the database the driver\n"
    "  options connect to; --no-data: the driver stores nothing (like the null driver),\n"
    "  skip the checks that read stored rows back\n";

/* ABI 1.5: the names the server gives a result's columns (an alias as
 * written, a column's own name), of a query's result and of a prepared
 * statement's (executed twice), before and after the first row is read;
 * NULL past the last column. */
static void check_field_names(sbd_conn *c)
{
    struct sbd_result_info info;
    struct sbd_value row[3];
    run(c, "SELECT id AS first_col, k, 3 AS MiXed3 FROM drvcheck_t WHERE id = 500", &info);
    CHECK(info.nfields == 3, c, "field names: 3 columns");
    /* a name is valid until the next call: each compared when read */
    const char *a = drv->field_name(c, 0);
    CHECK(a && strcmp(a, "first_col") == 0, c, "field_name: an alias");
    const char *b = drv->field_name(c, 1);
    CHECK(b && strcmp(b, "k") == 0, c, "field_name: a column's own name");
    const char *m = drv->field_name(c, 2);
    CHECK(m && (strcmp(m, "MiXed3") == 0 || strcmp(m, "mixed3") == 0), c,
          "field_name: an unquoted alias (folded to lower case by PostgreSQL)");
    CHECK(drv->field_name(c, 3) == NULL && drv->field_name(c, -1) == NULL, c,
          "field_name: NULL out of range");
    CHECK(drv->fetch_row(c, row) == SBD_OK, c, "field names: one row");
    a = drv->field_name(c, 0);
    CHECK(a && strcmp(a, "first_col") == 0, c, "field_name after a row was read");
    CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "field names: one row only");
    drv->free_result(c);
    if (!(drv->caps & SBD_CAP_PREPARED))
        return;
    const char *sel = "SELECT k AS second_col, id FROM drvcheck_t WHERE id = ?";
    int t_int = SBD_TYPE_INT;
    sbd_stmt *st;
    CHECK(drv->prepare(c, sel, strlen(sel), 1, &t_int, &st) == SBD_OK, c, "field names: prepare");
    struct sbd_value p = {.type = SBD_TYPE_INT, .i = 501};
    for (int i = 0; i < 2; i++) { /* the second execute: its own names still */
        CHECK(drv->execute(c, st, &p, 1, &info) == SBD_OK && info.nfields == 2, c,
              "field names: execute");
        a = drv->field_name(c, 0);
        CHECK(a && strcmp(a, "second_col") == 0, c, "field_name of a prepared statement's result");
        b = drv->field_name(c, 1);
        CHECK(b && strcmp(b, "id") == 0, c, "field_name of a prepared statement's result: 2nd");
        while (drv->fetch_row(c, row) == SBD_OK)
            ;
        drv->free_result(c);
    }
    drv->close_stmt(c, st);
}

int main(int argc, char **argv)
{
    int no_data = 0, first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(argv[first], "--version") == 0) {
            printf("drvcheck (sbench driver ABI " ABI_TEXT ")\n");
            return 0;
        } else if (strcmp(argv[first], "--no-data") == 0) {
            no_data = 1;
        } else {
            fprintf(stderr, "drvcheck: unknown flag '%s' before DRIVER.so (see --help)\n", argv[first]);
            return 2;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "drvcheck: no DRIVER.so given (usage: drvcheck [--no-data] DRIVER.so "
                        "[--option=value ...])\n");
        return 2;
    }
    argv += first - 1;
    argc -= first - 1;
    for (int i = 2; i < argc && nopts < MAX_OPTS; i++) {
        char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || strchr(a, '=') == NULL) {
            fprintf(stderr, "drvcheck: bad argument '%s'\n", a);
            return 2;
        }
        char *eq = strchr(a, '=');
        *eq = 0;
        opt_names[nopts] = a + 2;
        opt_values[nopts++] = eq + 1;
    }
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "drvcheck: %s\n", dlerror());
        return 1;
    }
    sbd_entry_fn entry = (sbd_entry_fn)dlsym(so, SBD_ENTRY_SYMBOL);
    CHECK(entry != NULL, NULL, "entry symbol exported");
    drv = entry();
    CHECK(drv->abi_major == SBD_ABI_MAJOR, NULL, "ABI major matches");
    CHECK(drv->struct_size >= offsetof(struct sbd_driver, bulk_begin), NULL,
          "struct_size covers required members");
    CHECK(drv->init && drv->connect && drv->disconnect && drv->last_error &&
          drv->dialect && drv->query && drv->fetch_row && drv->free_result &&
          drv->prepare && drv->execute && drv->close_stmt, NULL,
          "required members present");

    struct sbd_host host = {
        .struct_size = sizeof host, .abi_major = SBD_ABI_MAJOR,
        .abi_minor = SBD_ABI_MINOR, .opt_str = h_opt_str,
        .opt_is_set = h_opt_is_set, .opt_int = h_opt_int, .opt_bool = h_opt_bool, .log = h_log,
        .connect_timeout = 10, .query_timeout = 0,
    };
    char errbuf[512] = "";
    CHECK(drv->init(&host, errbuf, sizeof errbuf) == SBD_OK, NULL, errbuf);
    if (drv->thread_init)
        CHECK(drv->thread_init() == SBD_OK, NULL, "thread_init");

    sbd_conn *c = NULL;
    struct sbd_error cerr;
    memset(&cerr, 0, sizeof cerr);
    if (drv->connect(0, &c, &cerr) != SBD_OK) {
        fprintf(stderr, "drvcheck: FAILED: connect: %s\n", cerr.message);
        return 1;
    }
    const char *dialect = drv->dialect(c);
    printf("drvcheck: driver %s, client %s, server %s, dialect %s\n", drv->name,
           drv->client_version ? drv->client_version() : "?",
           drv->server_version ? drv->server_version(c) : "?", dialect);

    /* the null driver stores nothing, nor does one checked with --no-data */
    int stores_data = !no_data && strcmp(drv->name, "null") != 0;
    check_basics(c);
    if (stores_data) {
        check_stored_data(c);
        check_abi_1_3(c);
        if (drv->field_name)
            check_field_names(c);
    }
    if (drv->caps & SBD_CAP_NONBLOCKING)
        check_nonblocking_basics(c);
    if (drv->caps & SBD_CAP_HOST_IO)
        check_host_io();
    if (drv->caps & SBD_CAP_PIPELINE)
        check_pipeline(c, stores_data);
    if (strcmp(drv->name, "null") == 0)
        check_null_model(c);

    if (stores_data && (drv->caps & SBD_CAP_NONBLOCKING)) {
        check_nonblocking(c);
        memset(&cerr, 0, sizeof cerr);
        CHECK(drv->connect(0, &c, &cerr) == SBD_OK, NULL, "reconnect after the nonblocking checks");
    }

    /* A query with an empty result set. */
    struct sbd_result_info info;
    struct sbd_value row[1];
    if (stores_data) {
        run(c, "SELECT id FROM drvcheck_t WHERE id < 0", &info);
        CHECK(drv->fetch_row(c, row) == SBD_DONE, c, "empty result");
        drv->free_result(c);
    }

    if (drv->server_counters && (drv->caps & SBD_CAP_SERVER_COUNTERS)) {
        struct sbd_server_counters sc;
        CHECK(drv->server_counters(c, &sc) == SBD_OK, c, "server_counters");
        printf("drvcheck: server counters: commits %lld selects %lld\n",
               (long long)sc.commits, (long long)sc.selects);
    }

    if (stores_data)
        run(c, "DROP TABLE drvcheck_t", &info);
    drv->disconnect(c);
    if (drv->thread_done)
        drv->thread_done();
    if (drv->done)
        drv->done();
    printf("drvcheck: %s: %d checks passed\n", drv->name, checks);
    return 0;
}
