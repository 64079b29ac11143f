/*
 * sqlite_concurrency_test: several writers on one SQLite file through the
 * sqlite driver, loaded with dlopen exactly like sbench does.
 *
 *   sqlite_concurrency_test path/to/sbench-sqlite.so
 *
 * 4 threads, each with its own connection, run 500 transactions of
 *   BEGIN; UPDATE t SET v=v+1 WHERE id=?; INSERT INTO log VALUES(?); COMMIT
 * and rerun a transaction (after ROLLBACK) whenever a call says SBD_RETRY.
 * In the end SUM(v) and COUNT(*) FROM log must both be exactly 4*500:
 * nothing lost, nothing counted twice (log's key rejects a second insert).
 * Rounds vary --sqlite-begin and --sqlite-busy-timeout (0 forces retries);
 * one round reads before writing in a deferred transaction, which SQLite
 * answers with SQLITE_BUSY_SNAPSHOT; with auto (the default) the same
 * retries at most once per connection.  Also checks option validation and the
 * error for a database in a missing directory.  Exits 0 on success.
 */
#include <sbench/driver.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NTHREADS = 4, NTXN = 500, NKEYS = 10 };

static const struct sbd_driver *drv;

/* options of the current round: name=value pairs, else driver defaults */
static const char *opt_names[8];
static const char *opt_values[8];
static int nopts;

static const char *h_opt_str(const char *name)
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

static long long h_opt_int(const char *name)
{
    const char *v = h_opt_str(name);
    return v ? strtoll(v, NULL, 10) : 0;
}

static int h_opt_bool(const char *name)
{
    const char *v = h_opt_str(name);
    return v && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0);
}

static void h_log(int level, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sqlite_concurrency_test: log[%d]: ", level);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static const struct sbd_host host = {
    .struct_size = sizeof host, .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR, .opt_str = h_opt_str,
    .opt_is_set = h_opt_is_set, .opt_int = h_opt_int, .opt_bool = h_opt_bool,
    .log = h_log, .connect_timeout = 10, .query_timeout = 0,
};

static void die(sbd_conn *c, const char *what)
{
    fprintf(stderr, "sqlite_concurrency_test: FAILED: %s", what);
    if (c) {
        const struct sbd_error *e = drv->last_error(c);
        fprintf(stderr, " [status %d, native %ld, sqlstate '%s': %s]",
                e->status, e->native_code, e->sqlstate, e->message);
    }
    fputc('\n', stderr);
    exit(1);
}

static void run(sbd_conn *c, const char *sql)
{
    struct sbd_result_info info;
    if (drv->query(c, sql, strlen(sql), &info) != SBD_OK)
        die(c, sql);
    drv->free_result(c);
}

static int64_t query_int(sbd_conn *c, const char *sql)
{
    struct sbd_result_info info;
    struct sbd_value row[1];
    if (drv->query(c, sql, strlen(sql), &info) != SBD_OK)
        die(c, sql);
    if (drv->fetch_row(c, row) != SBD_OK || row[0].type != SBD_TYPE_INT)
        die(c, "integer row expected");
    drv->free_result(c);
    return row[0].i;
}

struct worker {
    pthread_t th;
    int id;
    int read_first;     /* SELECT the row before updating it */
    long retries;
};

/* One attempt of transaction n; returns the first status that is not OK. */
static int attempt(sbd_conn *c, struct worker *w, int n, sbd_stmt *sel,
                   sbd_stmt *upd, sbd_stmt *ins)
{
    struct sbd_result_info info;
    int rc;
    /* odd threads send BEGIN/COMMIT and a literal INSERT as SQL text (the
     * driver's statement cache), even ones use the ABI calls */
    if (w->id % 2)
        rc = drv->query(c, "BEGIN", 5, &info);
    else
        rc = drv->begin(c);
    if (rc != SBD_OK)
        return rc;
    struct sbd_value key = {.type = SBD_TYPE_INT, .i = (w->id * 7 + n) % NKEYS + 1};
    if (w->read_first) {
        struct sbd_value row[1];
        if ((rc = drv->execute(c, sel, &key, 1, &info)) != SBD_OK)
            return rc;
        while ((rc = drv->fetch_row(c, row)) == SBD_OK)
            ;
        if (rc != SBD_DONE)
            return rc;
    }
    if ((rc = drv->execute(c, upd, &key, 1, &info)) != SBD_OK)
        return rc;
    if (info.affected_rows != 1)
        die(c, "UPDATE should change exactly one row");
    int64_t logid = (int64_t)w->id * NTXN + n;
    if (w->id % 2) {
        char sql[64];
        int len = snprintf(sql, sizeof sql, "INSERT INTO log VALUES(%lld)", (long long)logid);
        rc = drv->query(c, sql, (size_t)len, &info);
    } else {
        struct sbd_value v = {.type = SBD_TYPE_INT, .i = logid};
        rc = drv->execute(c, ins, &v, 1, &info);
    }
    if (rc != SBD_OK)
        return rc;
    if (w->id % 2)
        return drv->query(c, "COMMIT", 6, &info);
    return drv->commit(c);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    sbd_conn *c = NULL;
    struct sbd_error cerr;
    memset(&cerr, 0, sizeof cerr);
    if (drv->connect(w->id, &c, &cerr) != SBD_OK) {
        fprintf(stderr, "sqlite_concurrency_test: FAILED: connect: %s\n", cerr.message);
        exit(1);
    }
    sbd_stmt *sel, *upd, *ins;
    int t_int = SBD_TYPE_INT;
    const char *s1 = "SELECT v FROM t WHERE id = ?";
    const char *s2 = "UPDATE t SET v = v + 1 WHERE id = ?";
    const char *s3 = "INSERT INTO log VALUES(?)";
    if (drv->prepare(c, s1, strlen(s1), 1, &t_int, &sel) != SBD_OK ||
        drv->prepare(c, s2, strlen(s2), 1, &t_int, &upd) != SBD_OK ||
        drv->prepare(c, s3, strlen(s3), 1, &t_int, &ins) != SBD_OK)
        die(c, "prepare");
    for (int n = 0; n < NTXN; n++) {
        int rc;
        while ((rc = attempt(c, w, n, sel, upd, ins)) == SBD_RETRY) {
            w->retries++;
            if (drv->rollback(c) != SBD_OK)
                die(c, "rollback after a retryable error");
        }
        if (rc != SBD_OK)
            die(c, "transaction");
    }
    drv->close_stmt(c, sel);
    drv->close_stmt(c, upd);
    drv->close_stmt(c, ins);
    drv->disconnect(c);
    return NULL;
}

static void remove_db(const char *path)
{
    char p[512];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-journal", path);
    unlink(p);
}

static void set_opts(const char *db, const char *begin, const char *busy)
{
    nopts = 0;
    opt_names[nopts] = "sqlite-db";           opt_values[nopts++] = db;
    opt_names[nopts] = "sqlite-begin";        opt_values[nopts++] = begin;
    opt_names[nopts] = "sqlite-busy-timeout"; opt_values[nopts++] = busy;
}

static void check_errors(const char *dir)
{
    char errbuf[512] = "";
    set_opts("x.db", "later", "10000");
    if (drv->init(&host, errbuf, sizeof errbuf) != SBD_ERROR || errbuf[0] == 0 ||
        strchr(errbuf, '\n') != NULL)
        die(NULL, "--sqlite-begin=later must be refused with one line");
    printf("sqlite_concurrency_test: bad option -> %s\n", errbuf);

    char path[512];
    snprintf(path, sizeof path, "%s/no/such/dir/x.db", dir);
    set_opts(path, "deferred", "10000");
    if (drv->init(&host, errbuf, sizeof errbuf) != SBD_OK)
        die(NULL, errbuf);
    sbd_conn *c = NULL;
    struct sbd_error err;
    memset(&err, 0, sizeof err);
    if (drv->connect(0, &c, &err) == SBD_OK || c != NULL)
        die(NULL, "connect in a missing directory must fail");
    if (strstr(err.message, path) == NULL || strchr(err.message, '\n') != NULL)
        die(NULL, "connect error must be one line naming the path");
    printf("sqlite_concurrency_test: missing directory -> %s\n", err.message);
    if (drv->done)
        drv->done();
}

static long round_(const char *dir, int no, const char *begin, const char *busy,
                   int read_first)
{
    char path[512], errbuf[512] = "";
    snprintf(path, sizeof path, "%s/round%d.db", dir, no);
    remove_db(path);
    set_opts(path, begin, busy);
    if (drv->init(&host, errbuf, sizeof errbuf) != SBD_OK)
        die(NULL, errbuf);

    sbd_conn *c = NULL;
    struct sbd_error cerr;
    memset(&cerr, 0, sizeof cerr);
    if (drv->connect(0, &c, &cerr) != SBD_OK)
        die(NULL, cerr.message);
    run(c, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
    run(c, "CREATE TABLE log(x INTEGER PRIMARY KEY)");
    for (int i = 1; i <= NKEYS; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "INSERT INTO t VALUES(%d, 0)", i);
        run(c, sql);
    }

    struct worker w[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (struct worker){.id = i, .read_first = read_first};
        if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0)
            die(NULL, "pthread_create");
    }
    long retries = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(w[i].th, NULL);
        retries += w[i].retries;
    }

    int64_t sum = query_int(c, "SELECT SUM(v) FROM t");
    int64_t cnt = query_int(c, "SELECT COUNT(*) FROM log");
    printf("sqlite_concurrency_test: begin=%s busy-timeout=%s%s: sum %lld, "
           "log rows %lld, retries %ld\n", begin, busy,
           read_first ? " read-first" : "", (long long)sum, (long long)cnt, retries);
    if (sum != NTHREADS * NTXN || cnt != NTHREADS * NTXN)
        die(NULL, "lost or double-counted transactions");
    drv->disconnect(c);
    if (drv->done)
        drv->done();
    remove_db(path);
    return retries;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sqlite_concurrency_test sbench-sqlite.so\n");
        return 2;
    }
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (so == NULL) {
        fprintf(stderr, "sqlite_concurrency_test: %s\n", dlerror());
        return 1;
    }
    sbd_entry_fn entry = (sbd_entry_fn)dlsym(so, SBD_ENTRY_SYMBOL);
    if (entry == NULL)
        die(NULL, "entry symbol");
    drv = entry();
    if (drv->abi_major != SBD_ABI_MAJOR || !drv->begin || !drv->commit || !drv->rollback)
        die(NULL, "driver ABI / transaction calls");

    char dir[] = "/tmp/sbench-sqlite-test-XXXXXX";
    if (mkdtemp(dir) == NULL)
        die(NULL, "mkdtemp");
    check_errors(dir);
    round_(dir, 1, "deferred", "10000", 0);
    round_(dir, 2, "immediate", "10000", 0);
    round_(dir, 3, "deferred", "0", 0);
    round_(dir, 4, "deferred", "10000", 1);
    round_(dir, 5, "immediate", "10000", 1);
    /* auto (the default): a connection's first transaction is deferred,
     * the ones after a write immediate, so read-then-write transactions
     * retry at most once per connection instead of all the time */
    long deferred = round_(dir, 6, "deferred", "10000", 1);
    long autom = round_(dir, 7, "auto", "10000", 1);
    if (autom > NTHREADS)
        die(NULL, "--sqlite-begin=auto retried more than once per connection");
    printf("sqlite_concurrency_test: read-first retries: deferred %ld, auto %ld\n", deferred,
           autom);
    rmdir(dir);
    printf("sqlite_concurrency_test: passed\n");
    return 0;
}
