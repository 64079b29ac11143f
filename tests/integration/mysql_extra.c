/*
 * mysql_extra: checks of sbench-mysql.so beyond drvcheck, against a real
 * server, through the driver ABI exactly as sbench loads it:
 *   - a lock wait timeout (1205) and a real deadlock (1213, two threads)
 *     come back as SBD_RETRY, and the connection stays usable;
 *   - a connection killed from another session comes back as
 *     SBD_CONN_LOST;
 *   - prepared results with strings longer than their first buffer
 *     (truncation refetch), DATE/DATETIME/TIME, BIGINT UNSIGNED, NULL
 *     parameters, DECIMAL;
 *   - bulk load of strings with quotes, backslashes and NUL bytes;
 *   - server counters move.
 *
 *   mysql_extra path/to/sbench-mysql.so --mysql-...=... [...]
 * Exits 0 when everything passed, 1 on the first failure.
 */
#include <sbench/driver.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPTS 32
static const char *names[MAX_OPTS], *values[MAX_OPTS];
static int nopts, nchecks;
static const struct sbd_driver *drv;

/* Value from argv or the driver's default (static storage); NULL if none. */
static const char *opt_str(const char *name)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(names[i], name) == 0)
            return values[i];
    for (const struct sbd_option *o = drv->options; o != NULL && o->name != NULL; o++)
        if (strcmp(o->name, name) == 0)
            return o->default_value;
    return NULL;
}

static int opt_is_set(const char *name)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

static long long opt_int(const char *name)
{
    const char *v = opt_str(name);
    return v != NULL ? atoll(v) : 0;
}

static int opt_bool(const char *name)
{
    const char *v = opt_str(name);
    return v != NULL && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0);
}

static void host_log(int level, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mysql_extra: log[%d]: ", level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void check(int ok, sbd_conn *c, const char *what)
{
    nchecks++;
    if (ok)
        return;
    fprintf(stderr, "mysql_extra: FAILED: %s", what);
    if (c != NULL) {
        const struct sbd_error *e = drv->last_error(c);
        fprintf(stderr, " [status %d, native %ld, sqlstate '%s': %s]", e->status,
                e->native_code, e->sqlstate, e->message);
    }
    fputc('\n', stderr);
    exit(1);
}

static int q(sbd_conn *c, const char *sql)
{
    struct sbd_result_info info;
    int rc = drv->query(c, sql, strlen(sql), &info);
    drv->free_result(c);
    return rc;
}

static void run(sbd_conn *c, const char *sql)
{
    char what[300];
    snprintf(what, sizeof what, "query: %.250s", sql);
    check(q(c, sql) == SBD_OK, c, what);
}

static int64_t int_of(sbd_conn *c, const char *sql)
{
    struct sbd_result_info info;
    struct sbd_value v[2];
    check(drv->query(c, sql, strlen(sql), &info) == SBD_OK, c, sql);
    check(drv->fetch_row(c, v) == SBD_OK, c, "a row");
    check(v[0].type == SBD_TYPE_INT && !v[0].is_null, c, "an integer");
    drv->free_result(c);
    return v[0].i;
}

/* A new connection owned by the caller (drv->disconnect); exits on failure. */
static sbd_conn *open_conn(void)
{
    sbd_conn *c = NULL;
    struct sbd_error e;
    if (drv->connect(0, &c, &e) != SBD_OK) {
        fprintf(stderr, "mysql_extra: FAILED: connect: %s\n", e.message);
        exit(1);
    }
    return c;
}

/* --- deadlock --- */

struct waiter {
    sbd_conn *c;
    const char *sql;
    int rc;
};

/* Thread body; returns NULL, the result is in the struct waiter. */
static void *wait_thread(void *arg)
{
    struct waiter *w = arg;
    if (drv->thread_init != NULL)
        drv->thread_init();
    w->rc = q(w->c, w->sql);
    if (drv->thread_done != NULL)
        drv->thread_done();
    return NULL;
}

static void test_locks(void)
{
    sbd_conn *a = open_conn(), *b = open_conn();
    run(a, "DROP TABLE IF EXISTS mx_lock");
    run(a, "CREATE TABLE mx_lock (id INT PRIMARY KEY, v INT) ENGINE=InnoDB");
    run(a, "INSERT INTO mx_lock VALUES (1, 0), (2, 0)");

    /* Lock wait timeout: a holds row 1, b waits one second. */
    run(b, "SET SESSION innodb_lock_wait_timeout = 1");
    run(a, "BEGIN");
    run(a, "UPDATE mx_lock SET v = v + 1 WHERE id = 1");
    run(b, "BEGIN");
    int rc = q(b, "UPDATE mx_lock SET v = v + 1 WHERE id = 1");
    check(rc == SBD_RETRY, b, "lock wait timeout is SBD_RETRY");
    check(drv->last_error(b)->native_code == 1205, b, "native code 1205");
    check(strcmp(drv->last_error(b)->sqlstate, "HY000") == 0, b, "sqlstate HY000");
    run(b, "ROLLBACK");
    run(a, "ROLLBACK");

    /* Deadlock: a holds 1 and waits for 2 (in a thread), b holds 2 and
     * asks for 1. */
    run(a, "SET SESSION innodb_lock_wait_timeout = 20");
    run(b, "SET SESSION innodb_lock_wait_timeout = 20");
    run(a, "BEGIN");
    run(b, "BEGIN");
    run(a, "UPDATE mx_lock SET v = v + 1 WHERE id = 1");
    run(b, "UPDATE mx_lock SET v = v + 1 WHERE id = 2");
    struct waiter w = {a, "UPDATE mx_lock SET v = v + 1 WHERE id = 2", -1};
    pthread_t t;
    check(pthread_create(&t, NULL, wait_thread, &w) == 0, NULL, "thread");
    usleep(300000); /* let a block on row 2 */
    int rb = q(b, "UPDATE mx_lock SET v = v + 1 WHERE id = 1");
    pthread_join(t, NULL);
    sbd_conn *victim = (rb == SBD_RETRY) ? b : a;
    int victim_rc = (rb == SBD_RETRY) ? rb : w.rc;
    check(victim_rc == SBD_RETRY, victim, "deadlock is SBD_RETRY");
    check(drv->last_error(victim)->native_code == 1213, victim, "native code 1213");
    check(strcmp(drv->last_error(victim)->sqlstate, "40001") == 0, victim, "sqlstate 40001");
    check((rb == SBD_OK) != (w.rc == SBD_OK), NULL, "exactly one side survives");
    run(a, "ROLLBACK");
    run(b, "ROLLBACK");
    check(int_of(a, "SELECT COUNT(*) FROM mx_lock") == 2, a, "usable after deadlock");
    run(a, "DROP TABLE mx_lock");

    /* A connection killed by another session is lost. */
    int64_t id = int_of(b, "SELECT CONNECTION_ID()");
    char kill[64];
    snprintf(kill, sizeof kill, "KILL CONNECTION %lld", (long long)id);
    run(a, kill);
    rc = q(b, "SELECT 1");
    check(rc == SBD_CONN_LOST, b, "killed connection is SBD_CONN_LOST");
    printf("mysql_extra: killed connection -> native %ld: %s\n",
           drv->last_error(b)->native_code, drv->last_error(b)->message);
    drv->disconnect(a);
    drv->disconnect(b);
}

/* --- types and long values --- */

static void test_types(void)
{
    sbd_conn *c = open_conn();
    run(c, "DROP TABLE IF EXISTS mx_types");
    run(c, "CREATE TABLE mx_types (id INT PRIMARY KEY, t MEDIUMTEXT, d DATE, dt DATETIME, "
           "tm TIME, u BIGINT UNSIGNED, dec_ DECIMAL(10,2), n INT)");
    enum { BIG = 100000 };
    char *big = malloc(BIG);
    check(big != NULL, NULL, "malloc");
    for (int i = 0; i < BIG; i++)
        big[i] = (char)('a' + i % 26);
    const char *ins = "INSERT INTO mx_types VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    int types[] = {SBD_TYPE_INT, SBD_TYPE_STRING, SBD_TYPE_DATE, SBD_TYPE_DATETIME,
                   SBD_TYPE_TIME, SBD_TYPE_INT, SBD_TYPE_DOUBLE, SBD_TYPE_INT};
    sbd_stmt *st;
    check(drv->prepare(c, ins, strlen(ins), 8, types, &st) == SBD_OK, c, "prepare insert");
    struct sbd_result_info info;
    for (int id = 1; id <= 3; id++) {
        size_t len = id == 1 ? 10 : (id == 2 ? BIG : 5000);
        struct sbd_value p[8] = {
            {.type = SBD_TYPE_INT, .i = id},
            {.type = SBD_TYPE_STRING, .s = big, .len = len},
            {.type = SBD_TYPE_DATE, .s = "2024-02-29", .len = 10},
            {.type = SBD_TYPE_DATETIME, .s = "2024-02-29 13:14:15", .len = 19},
            {.type = SBD_TYPE_TIME, .s = "01:02:03", .len = 8},
            {.type = SBD_TYPE_INT, .i = INT64_MAX},
            {.type = SBD_TYPE_DOUBLE, .d = 12.25},
            {.type = SBD_TYPE_INT, .is_null = 1},
        };
        check(drv->execute(c, st, p, 8, &info) == SBD_OK, c, "execute insert");
        check(info.affected_rows == 1, c, "one row inserted");
    }
    drv->close_stmt(c, st);
    run(c, "UPDATE mx_types SET u = u + 10 WHERE id = 3");

    const char *sel = "SELECT id, t, d, dt, tm, u, dec_, n FROM mx_types ORDER BY id";
    check(drv->prepare(c, sel, strlen(sel), 0, NULL, &st) == SBD_OK, c, "prepare select");
    for (int round = 0; round < 2; round++) {
        check(drv->execute(c, st, NULL, 0, &info) == SBD_OK, c, "execute select");
        check(info.nfields == 8 && info.nrows == 3, c, "3 rows of 8 columns");
        struct sbd_value r[8];
        for (int id = 1; id <= 3; id++) {
            size_t len = id == 1 ? 10 : (id == 2 ? BIG : 5000);
            check(drv->fetch_row(c, r) == SBD_OK, c, "fetch");
            check(r[0].type == SBD_TYPE_INT && r[0].i == id, c, "id");
            check(r[1].type == SBD_TYPE_STRING && r[1].len == len &&
                  memcmp(r[1].s, big, len) == 0, c, "long text refetched whole");
            check(r[2].type == SBD_TYPE_DATE && r[2].len == 10 &&
                  memcmp(r[2].s, "2024-02-29", 10) == 0, c, "date");
            check(r[3].type == SBD_TYPE_DATETIME &&
                  memcmp(r[3].s, "2024-02-29 13:14:15", 19) == 0, c, "datetime");
            check(r[4].type == SBD_TYPE_TIME && memcmp(r[4].s, "01:02:03", 8) == 0, c, "time");
            if (id == 3)
                check(r[5].type == SBD_TYPE_DOUBLE && r[5].d > 9.2e18, c,
                      "unsigned above INT64_MAX as double");
            else
                check(r[5].type == SBD_TYPE_INT && r[5].i == INT64_MAX, c, "bigint max");
            check(r[6].type == SBD_TYPE_DOUBLE && r[6].d == 12.25, c, "decimal");
            check(r[7].is_null, c, "NULL parameter stored as NULL");
        }
        check(drv->fetch_row(c, r) == SBD_DONE, c, "3 rows only");
    }
    drv->free_result(c);

    /* The same through a plain query. */
    check(drv->query(c, sel, strlen(sel), &info) == SBD_OK, c, "query select");
    struct sbd_value r[8];
    for (int id = 1; id <= 3; id++) {
        size_t len = id == 1 ? 10 : (id == 2 ? BIG : 5000);
        check(drv->fetch_row(c, r) == SBD_OK, c, "fetch");
        check(r[0].type == SBD_TYPE_INT && r[0].i == id, c, "query id");
        check(r[1].len == len && memcmp(r[1].s, big, len) == 0, c, "query long text");
        check(r[2].type == SBD_TYPE_DATE && memcmp(r[2].s, "2024-02-29", 10) == 0, c,
              "query date");
        check(r[5].type == (id == 3 ? SBD_TYPE_DOUBLE : SBD_TYPE_INT), c, "query unsigned");
        check(r[6].type == SBD_TYPE_DOUBLE && r[6].d == 12.25, c, "query decimal");
        check(r[7].is_null, c, "query NULL");
    }
    check(drv->fetch_row(c, r) == SBD_DONE, c, "query: 3 rows only");
    drv->close_stmt(c, st); /* closing the statement of a finished result */
    run(c, "DROP TABLE mx_types");

    /* Bulk load of awkward strings, and more rows than one statement holds. */
    run(c, "DROP TABLE IF EXISTS mx_bulk");
    run(c, "CREATE TABLE mx_bulk (id INT PRIMARY KEY, s VARBINARY(200), x DOUBLE)");
    const char *cols[] = {"id", "s", "x"};
    int bt[] = {SBD_TYPE_INT, SBD_TYPE_STRING, SBD_TYPE_DOUBLE};
    static const char awkward[] = "it's a \\ back'slash \"q\" \0nul\n\r\x1a end";
    check(drv->bulk_begin(c, "mx_bulk", cols, bt, 3) == SBD_OK, c, "bulk_begin");
    enum { NB = 60000 };
    for (int i = 1; i <= NB; i++) {
        struct sbd_value v[3] = {
            {.type = SBD_TYPE_INT, .i = -i},
            {.type = SBD_TYPE_STRING, .s = awkward, .len = sizeof awkward - 1},
            {.type = SBD_TYPE_DOUBLE, .d = i * 0.1},
        };
        check(drv->bulk_row(c, v) == SBD_OK, c, "bulk_row");
    }
    check(drv->bulk_end(c) == SBD_OK, c, "bulk_end");
    check(int_of(c, "SELECT COUNT(*) FROM mx_bulk") == NB, c, "bulk row count");
    check(int_of(c, "SELECT MIN(id) FROM mx_bulk") == -NB, c, "negative ints");
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM mx_bulk WHERE LENGTH(s) = %zu",
             sizeof awkward - 1);
    check(int_of(c, sql) == NB, c, "awkward strings kept their length");
    check(drv->query(c, "SELECT s, x FROM mx_bulk WHERE id = -7", 38, &info) == SBD_OK, c,
          "select awkward");
    check(drv->fetch_row(c, r) == SBD_OK && r[0].len == sizeof awkward - 1 &&
          memcmp(r[0].s, awkward, sizeof awkward - 1) == 0 && r[1].d == 7 * 0.1, c,
          "awkward string and double round-trip");
    drv->free_result(c);
    run(c, "DROP TABLE mx_bulk");

    /* A CALL's trailing status result must not break the next query. */
    run(c, "DROP PROCEDURE IF EXISTS mx_proc");
    run(c, "CREATE PROCEDURE mx_proc() SELECT 42");
    check(drv->query(c, "CALL mx_proc()", 14, &info) == SBD_OK, c, "CALL");
    check(drv->fetch_row(c, r) == SBD_OK && r[0].i == 42, c, "CALL result");
    drv->free_result(c);
    run(c, "CALL mx_proc()");
    check(int_of(c, "SELECT 7") == 7, c, "query after CALL");
    run(c, "DROP PROCEDURE mx_proc");

    struct sbd_server_counters s1, s2;
    check(drv->server_counters(c, &s1) == SBD_OK, c, "counters");
    run(c, "SELECT 1");
    run(c, "BEGIN");
    run(c, "COMMIT");
    check(drv->server_counters(c, &s2) == SBD_OK, c, "counters again");
    check(s2.selects > s1.selects && s2.commits > s1.commits &&
          s2.statements > s1.statements && s1.inserts >= 0 && s1.updates >= 0 &&
          s1.deletes >= 0 && s1.rollbacks >= 0, c, "counters move");
    free(big);
    drv->disconnect(c);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mysql_extra sbench-mysql.so [--option=value ...]\n");
        return 2;
    }
    for (int i = 2; i < argc && nopts < MAX_OPTS; i++) {
        char *eq = strchr(argv[i], '=');
        if (strncmp(argv[i], "--", 2) != 0 || eq == NULL) {
            fprintf(stderr, "mysql_extra: bad argument '%s'\n", argv[i]);
            return 2;
        }
        *eq = 0;
        names[nopts] = argv[i] + 2;
        values[nopts++] = eq + 1;
    }
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (so == NULL) {
        fprintf(stderr, "mysql_extra: %s\n", dlerror());
        return 1;
    }
    sbd_entry_fn entry = (sbd_entry_fn)dlsym(so, SBD_ENTRY_SYMBOL);
    check(entry != NULL, NULL, "entry symbol");
    drv = entry();
    struct sbd_host host = {
        .struct_size = sizeof host, .abi_major = SBD_ABI_MAJOR, .abi_minor = SBD_ABI_MINOR,
        .opt_str = opt_str, .opt_is_set = opt_is_set, .opt_int = opt_int,
        .opt_bool = opt_bool, .log = host_log, .connect_timeout = 10, .query_timeout = 60,
    };
    char err[512] = "";
    check(drv->init(&host, err, sizeof err) == SBD_OK, NULL, err);
    if (drv->thread_init != NULL)
        drv->thread_init();
    test_locks();
    test_types();
    if (drv->thread_done != NULL)
        drv->thread_done();
    drv->done();
    printf("mysql_extra: %d checks passed\n", nchecks);
    return 0;
}
