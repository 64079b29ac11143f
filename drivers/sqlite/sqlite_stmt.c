/*
 * SQLite driver (sbench-sqlite.so): sbench's embedded default database.
 *
 * One sqlite3 handle per connection, all on one database file, opened in
 * multi-thread mode (SQLITE_OPEN_NOMUTEX: the host uses each connection from
 * one thread at a time).  Writers on other connections are waited for with
 * sqlite3_busy_timeout; whatever still ends as SQLITE_BUSY or SQLITE_LOCKED
 * is reported as SBD_RETRY so the host reruns the transaction.
 *
 * Results are stepped lazily: query/execute step the first row (so errors
 * surface there) and fetch_row steps on.  Column values point into SQLite's
 * own row memory, valid until the next step, i.e. the next call on the
 * connection.  query() keeps a per-connection cache of prepared statements
 * keyed by the SQL bytes, so repeated texts (BEGIN, COMMIT, ...) are not
 * compiled again.  A bare "BEGIN" (or "START TRANSACTION") sent as SQL means
 * what --sqlite-begin says, like the driver's own begin().
 *
 * --sqlite-begin=auto (the default): a connection begins DEFERRED until one
 * of its transactions writes, then IMMEDIATE.  With two writers, a DEFERRED
 * transaction that reads first and writes later cannot upgrade its lock
 * while the other writes (SQLITE_BUSY at once, whatever the busy timeout),
 * so a read-write workload retried about a third of its transactions;
 * IMMEDIATE takes the write lock at BEGIN and waits for it.  Read-only
 * connections stay DEFERRED, so readers still run side by side.
 */
#include <sbench/driver.h>
#include "../common/error.h"

#include <sqlite3.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CACHE_SIZE 64
#define BULK_COMMIT_ROWS 50000

struct sbd_stmt {
    sqlite3_stmt *st;
    int nparams;
    int is_begin;          /* a bare BEGIN: runs what begin_stmt chooses */
    char *strbuf;          /* copies of string parameters, bound STATIC */
    size_t strcap;
    struct sbd_stmt *prev, *next;
};

struct cache_entry {
    uint64_t hash;
    uint64_t last_used;    /* 0: slot empty */
    char *sql;             /* key bytes, buffer reused across evictions */
    size_t len, cap;
    sqlite3_stmt *st;
};

enum { CUR_NONE, CUR_ROW_PENDING, CUR_ROW_READ };

struct sbd_conn {
    sqlite3 *db;
    struct sbd_error err;

    /* current result */
    sqlite3_stmt *cur;
    int cur_state;
    int cur_owned;         /* finalize (not just reset) when finished */
    int cur_ncols;

    struct cache_entry cache[CACHE_SIZE];
    uint64_t tick;

    sqlite3_stmt *st_begin, *st_commit, *st_rollback;
    sqlite3_stmt *st_begin_immediate;   /* --sqlite-begin=auto, once it wrote */
    sqlite3_int64 changes_at_begin;     /* sqlite3_total_changes64 at the last BEGIN */
    int lock_lost;                      /* a statement since then was refused a lock */
    struct sbd_stmt *stmts;   /* prepared by the host, freed at disconnect */

    /* bulk load */
    sqlite3_stmt *bulk;
    int bulk_ncols;
    int bulk_own_txn;
    int bulk_failed;
    long bulk_rows;
};

static const struct sbd_host *host;
static const char *db_path;
static const char *journal_mode;
static const char *synchronous;
static int busy_timeout_ms;
static const char *begin_sql;
static int begin_auto;      /* --sqlite-begin=auto */
static char version[64];

static const struct sbd_option sqlite_options[] = {
    {"sqlite-db", SBD_OPT_STRING, "sbtest.db", "path of the database file"},
    {"sqlite-journal-mode", SBD_OPT_STRING, "wal",
     "PRAGMA journal_mode: delete, truncate, persist, memory, wal, off"},
    {"sqlite-synchronous", SBD_OPT_STRING, "normal",
     "PRAGMA synchronous: off, normal, full, extra"},
    {"sqlite-busy-timeout", SBD_OPT_INT, "10000",
     "milliseconds to wait for a lock held by another connection"},
    {"sqlite-begin", SBD_OPT_STRING, "auto",
     "what BEGIN means: deferred, immediate, exclusive, or auto (deferred until the "
     "connection's transactions write, then immediate: no lock upgrades to retry)"},
    {NULL, 0, NULL, NULL}
};

/* ---------------------------------------------------------------- errors */

static int status_of(int rc)
{
    int prim = rc & 0xff;
    return (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) ? SBD_RETRY : SBD_ERROR;
}

/* Records error rc of the last SQLite call on c; returns the sbd status. */
static int sqlite_error(sbd_conn *c, int rc)
{
    const char *msg = sqlite3_errmsg(c->db);
    /* errmsg can lag behind when the code came from the driver itself */
    if (msg == NULL || strcmp(msg, "not an error") == 0)
        msg = sqlite3_errstr(rc);
    if (status_of(rc) == SBD_RETRY)
        c->lock_lost = 1; /* --sqlite-begin=auto: the retry begins IMMEDIATE */
    return sbc_error(&c->err, status_of(rc), rc,
                     (rc & 0xff) == SQLITE_CONSTRAINT ? "23000" : NULL, NULL, "%s", msg);
}

/* Records an error found by the driver itself (not by SQLite). */
static int driver_error(sbd_conn *c, const char *msg)
{
    return sbc_error(&c->err, SBD_ERROR, 0, NULL, NULL, "%s", msg);
}

/* ---------------------------------------------------------------- helpers */

static int is_blank(const char *p, const char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != ';')
            return 0;
    return 1;
}

/* Skips whitespace; returns the new position. */
static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int match_word(const char **pp, const char *end, const char *word)
{
    size_t n = strlen(word);
    const char *p = *pp;
    if ((size_t)(end - p) < n || strncasecmp(p, word, n) != 0)
        return 0;
    p += n;
    if (p < end && (*p == '_' || (*p >= 'a' && *p <= 'z') ||
                    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
        return 0;
    *pp = p;
    return 1;
}

/* "BEGIN", "BEGIN TRANSACTION", "BEGIN WORK" or "START TRANSACTION" with no
 * mode: the statement --sqlite-begin gives a meaning to. */
static int is_bare_begin(const char *sql, size_t len)
{
    const char *end = sql + len, *p = skip_ws(sql, end);
    if (match_word(&p, end, "begin")) {
        p = skip_ws(p, end);
        if (!match_word(&p, end, "transaction"))
            (void)match_word(&p, end, "work");
    } else if (match_word(&p, end, "start")) {
        p = skip_ws(p, end);
        if (!match_word(&p, end, "transaction"))
            return 0;
    } else {
        return 0;
    }
    return is_blank(p, end);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Ends the current result: resets (cached or host statement) or finalizes
 * (one-off statement) it, so it holds no lock and no snapshot. */
static void finish_current(sbd_conn *c)
{
    if (c->cur == NULL)
        return;
    if (c->cur_owned)
        sqlite3_finalize(c->cur);
    else
        sqlite3_reset(c->cur);
    c->cur = NULL;
    c->cur_state = CUR_NONE;
    c->cur_owned = 0;
    c->cur_ncols = 0;
}

/* Steps st's first row and makes it the current result. */
static int start_stmt(sbd_conn *c, sqlite3_stmt *st, int owned,
                      struct sbd_result_info *info)
{
    sqlite3_int64 before = sqlite3_total_changes64(c->db);
    int rc = sqlite3_step(st);
    int ncols = sqlite3_column_count(st);

    info->nfields = ncols;
    if (rc == SQLITE_ROW) {
        info->affected_rows = 0;
        info->nrows = -1;
        c->cur = st;
        c->cur_owned = owned;
        c->cur_state = CUR_ROW_PENDING;
        c->cur_ncols = ncols;
        return SBD_OK;
    }
    if (rc == SQLITE_DONE) {
        /* sqlite3_changes keeps the count of the last DML; only trust it
         * when this statement changed something. */
        info->affected_rows = sqlite3_total_changes64(c->db) != before
                                  ? sqlite3_changes64(c->db) : 0;
        info->nrows = 0;
        if (owned)
            sqlite3_finalize(st);
        else
            sqlite3_reset(st);
        return SBD_OK;
    }
    int status = sqlite_error(c, rc);
    if (owned)
        sqlite3_finalize(st);
    else
        sqlite3_reset(st);
    info->affected_rows = -1;
    info->nrows = 0;
    info->nfields = 0;
    return status;
}

/* Steps a statement with no interesting result to its end and resets it. */
static int run_simple(sbd_conn *c, sqlite3_stmt *st)
{
    int rc;
    finish_current(c);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    int status = rc == SQLITE_DONE ? SBD_OK : sqlite_error(c, rc);
    sqlite3_reset(st);
    return status;
}

/* The BEGIN to run now: --sqlite-begin's, or with auto, IMMEDIATE when the
 * connection wrote anything since its last BEGIN (its transactions write)
 * or was refused a lock since (the transaction being retried), else
 * DEFERRED. */
static sqlite3_stmt *begin_stmt(sbd_conn *c)
{
    if (!begin_auto)
        return c->st_begin;
    sqlite3_int64 now = sqlite3_total_changes64(c->db);
    int immediate = now != c->changes_at_begin || c->lock_lost;
    c->changes_at_begin = now;
    c->lock_lost = 0;
    return immediate ? c->st_begin_immediate : c->st_begin;
}

/* ---------------------------------------------------------- statement cache */

static sqlite3_stmt *cache_lookup(sbd_conn *c, const char *sql, size_t len,
                                  uint64_t h)
{
    for (int i = 0; i < CACHE_SIZE; i++) {
        struct cache_entry *e = &c->cache[i];
        if (e->last_used != 0 && e->hash == h && e->len == len &&
            memcmp(e->sql, sql, len) == 0) {
            e->last_used = ++c->tick;
            return e->st;
        }
    }
    return NULL;
}

/* Puts st in the cache, evicting the least recently used entry.  On memory
 * shortage st is simply not cached: returns 0 and the caller owns st. */
static int cache_insert(sbd_conn *c, const char *sql, size_t len, uint64_t h,
                        sqlite3_stmt *st)
{
    struct cache_entry *victim = &c->cache[0];
    for (int i = 0; i < CACHE_SIZE; i++) {
        if (c->cache[i].last_used < victim->last_used)
            victim = &c->cache[i];
        if (victim->last_used == 0)
            break;
    }
    if (victim->cap < len || victim->sql == NULL) {
        char *p = realloc(victim->sql, len ? len : 1);
        if (p == NULL)
            return 0;
        victim->sql = p;
        victim->cap = len ? len : 1;
    }
    if (victim->last_used != 0)
        sqlite3_finalize(victim->st);
    memcpy(victim->sql, sql, len);
    victim->len = len;
    victim->hash = h;
    victim->st = st;
    victim->last_used = ++c->tick;
    return 1;
}

/* -------------------------------------------------------------- lifetime */

static int sqlite_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    static const char *const journal_modes[] = {
        "delete", "truncate", "persist", "memory", "wal", "off", NULL};
    static const char *const sync_modes[] = {
        "off", "normal", "full", "extra", NULL};
    int ok = 0;

    host = h;
    if (!sqlite3_threadsafe()) {
        snprintf(errbuf, errlen, "libsqlite3 was built without thread support");
        return SBD_ERROR;
    }
    db_path = h->opt_str("sqlite-db");
    if (db_path == NULL || db_path[0] == 0) {
        snprintf(errbuf, errlen, "--sqlite-db must name a database file");
        return SBD_ERROR;
    }
    journal_mode = h->opt_str("sqlite-journal-mode");
    for (int i = 0; journal_mode && journal_modes[i]; i++)
        if (strcasecmp(journal_mode, journal_modes[i]) == 0)
            ok = 1;
    if (!ok) {
        snprintf(errbuf, errlen, "--sqlite-journal-mode='%s' is not one of "
                 "delete, truncate, persist, memory, wal, off",
                 journal_mode ? journal_mode : "");
        return SBD_ERROR;
    }
    synchronous = h->opt_str("sqlite-synchronous");
    ok = 0;
    for (int i = 0; synchronous && sync_modes[i]; i++)
        if (strcasecmp(synchronous, sync_modes[i]) == 0)
            ok = 1;
    if (!ok) {
        snprintf(errbuf, errlen, "--sqlite-synchronous='%s' is not one of "
                 "off, normal, full, extra", synchronous ? synchronous : "");
        return SBD_ERROR;
    }
    long long bt = h->opt_int("sqlite-busy-timeout");
    if (bt < 0 || bt > INT_MAX) {
        snprintf(errbuf, errlen, "--sqlite-busy-timeout must be between 0 and %d "
                 "milliseconds", INT_MAX);
        return SBD_ERROR;
    }
    busy_timeout_ms = (int)bt;
    const char *b = h->opt_str("sqlite-begin");
    begin_auto = b && strcasecmp(b, "auto") == 0;
    if (begin_auto || (b && strcasecmp(b, "deferred") == 0))
        begin_sql = "BEGIN DEFERRED";
    else if (b && strcasecmp(b, "immediate") == 0)
        begin_sql = "BEGIN IMMEDIATE";
    else if (b && strcasecmp(b, "exclusive") == 0)
        begin_sql = "BEGIN EXCLUSIVE";
    else {
        snprintf(errbuf, errlen, "--sqlite-begin='%s' is not one of auto, deferred, "
                 "immediate, exclusive", b ? b : "");
        return SBD_ERROR;
    }
    snprintf(version, sizeof version, "SQLite %s", sqlite3_libversion());
    return SBD_OK;
}

/* Static string, e.g. "SQLite 3.40.1". */
static const char *sqlite_client_version(void) { return version; }

/* ------------------------------------------------------------ connections */

static void free_conn(sbd_conn *c)
{
    finish_current(c);
    if (c->bulk)
        sqlite3_finalize(c->bulk);
    while (c->stmts) {
        struct sbd_stmt *s = c->stmts;
        c->stmts = s->next;
        sqlite3_finalize(s->st);
        free(s->strbuf);
        free(s);
    }
    for (int i = 0; i < CACHE_SIZE; i++) {
        if (c->cache[i].last_used != 0)
            sqlite3_finalize(c->cache[i].st);
        free(c->cache[i].sql);
    }
    sqlite3_finalize(c->st_begin);
    sqlite3_finalize(c->st_commit);
    sqlite3_finalize(c->st_rollback);
    sqlite3_finalize(c->st_begin_immediate);
    sqlite3_close(c->db);   /* rolls back an open transaction */
    free(c);
}

static int connect_fail(sbd_conn *c, struct sbd_error *err, int rc,
                        const char *what)
{
    sbc_error(err, status_of(rc), rc, NULL, NULL, "SQLite database '%s': %s: %s",
              db_path, what, c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
    free_conn(c);
    return err->status;
}

static int prepare_fixed(sbd_conn *c, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
}

/* On success *out is a new connection owned by the caller until
 * disconnect; on failure *out is NULL and err says why in one line. */
static int sqlite_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    (void)thread_id;
    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return sbc_error(err, SBD_ERROR, SQLITE_NOMEM, NULL, NULL, "out of memory");
    int rc = sqlite3_open_v2(db_path, &c->db, SQLITE_OPEN_READWRITE |
                             SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return connect_fail(c, err, rc, "cannot open");
    sqlite3_extended_result_codes(c->db, 1);
    sqlite3_busy_timeout(c->db, busy_timeout_ms);

    char sql[64];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", journal_mode);
    rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        /* Changing the journal mode needs an exclusive lock, and SQLite
         * returns SQLITE_BUSY without calling the busy handler when two
         * connections switch a fresh file at once (prepare/run with
         * --threads > 1): retry for up to --sqlite-busy-timeout. */
        for (int waited = 0;; waited += 10) {
            rc = sqlite3_step(st);
            if ((rc & 0xff) != SQLITE_BUSY || waited >= busy_timeout_ms)
                break;
            sqlite3_reset(st);
            sqlite3_sleep(10);
        }
        if (rc == SQLITE_ROW) {
            const char *got = (const char *)sqlite3_column_text(st, 0);
            if (got && strcasecmp(got, journal_mode) != 0 && thread_id == 0)
                host->log(SBD_LOG_WARN, "journal mode of '%s' is %s, not %s",
                          db_path, got, journal_mode);
            rc = SQLITE_OK;
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return connect_fail(c, err, rc, "cannot set journal_mode");
    snprintf(sql, sizeof sql, "PRAGMA synchronous=%s", synchronous);
    rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return connect_fail(c, err, rc, "cannot set synchronous");

    if ((rc = prepare_fixed(c, begin_sql, &c->st_begin)) != SQLITE_OK ||
        (rc = prepare_fixed(c, "COMMIT", &c->st_commit)) != SQLITE_OK ||
        (rc = prepare_fixed(c, "ROLLBACK", &c->st_rollback)) != SQLITE_OK ||
        (begin_auto && (rc = prepare_fixed(c, "BEGIN IMMEDIATE", &c->st_begin_immediate)) != SQLITE_OK))
        return connect_fail(c, err, rc, "cannot prepare transaction statements");
    *out = c;
    return SBD_OK;
}

static void sqlite_disconnect(sbd_conn *c)
{
    if (c != NULL)
        free_conn(c);
}

/* Owned by c, valid until its next failing call. */
static const struct sbd_error *sqlite_last_error(sbd_conn *c) { return &c->err; }

static const char *sqlite_dialect(sbd_conn *c) { (void)c; return "sqlite"; }

/* Static string, e.g. "SQLite 3.40.1". */
static const char *sqlite_server_version(sbd_conn *c) { (void)c; return version; }

/* ---------------------------------------------------------------- queries */

/* Text with more than one statement: runs all but the last to their end,
 * the last one becomes the result.  Not cached; rare. */
static int run_multi(sbd_conn *c, sqlite3_stmt *st, const char *tail,
                     const char *end, struct sbd_result_info *info)
{
    for (;;) {
        if (is_blank(tail, end)) {
            if (st == NULL)
                break;
            return start_stmt(c, st, 1, info);
        }
        if (st != NULL) {
            int rc;
            while ((rc = sqlite3_step(st)) == SQLITE_ROW)
                ;
            if (rc != SQLITE_DONE) {
                int status = sqlite_error(c, rc);
                sqlite3_finalize(st);
                return status;
            }
            sqlite3_finalize(st);
            st = NULL;
        }
        const char *next = NULL;
        int rc = sqlite3_prepare_v2(c->db, tail, (int)(end - tail), &st, &next);
        if (rc != SQLITE_OK)
            return sqlite_error(c, rc);
        tail = next;
    }
    info->affected_rows = 0;
    info->nrows = 0;
    info->nfields = 0;
    return SBD_OK;
}

static int sqlite_query(sbd_conn *c, const char *sql, size_t len,
                        struct sbd_result_info *info)
{
    finish_current(c);
    if (len > INT_MAX)
        return driver_error(c, "SQL text too long for SQLite");
    uint64_t h = hash_bytes(sql, len);
    sqlite3_stmt *st = cache_lookup(c, sql, len, h);
    if (st != NULL)
        return start_stmt(c, st, 0, info);
    if (is_bare_begin(sql, len))
        return start_stmt(c, begin_stmt(c), 0, info);

    const char *tail = NULL;
    int rc = sqlite3_prepare_v3(c->db, sql, (int)len, SQLITE_PREPARE_PERSISTENT,
                                &st, &tail);
    if (rc != SQLITE_OK)
        return sqlite_error(c, rc);
    if (tail != NULL && !is_blank(tail, sql + len))
        return run_multi(c, st, tail, sql + len, info);
    if (st == NULL) {   /* only blanks or comments */
        info->affected_rows = 0;
        info->nrows = 0;
        info->nfields = 0;
        return SBD_OK;
    }
    int cached = cache_insert(c, sql, len, h, st);
    return start_stmt(c, st, !cached, info);
}

static void fill_row(sqlite3_stmt *st, int ncols, struct sbd_value *row)
{
    for (int i = 0; i < ncols; i++) {
        struct sbd_value *v = &row[i];
        v->is_null = 0;
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
            v->type = SBD_TYPE_INT;
            v->i = sqlite3_column_int64(st, i);
            break;
        case SQLITE_FLOAT:
            v->type = SBD_TYPE_DOUBLE;
            v->d = sqlite3_column_double(st, i);
            break;
        case SQLITE_TEXT:
            v->type = SBD_TYPE_STRING;
            v->s = (const char *)sqlite3_column_text(st, i);
            v->len = (size_t)sqlite3_column_bytes(st, i);
            if (v->s == NULL) { /* out of memory while converting */
                v->s = "";
                v->len = 0;
            }
            break;
        case SQLITE_BLOB:
            v->type = SBD_TYPE_STRING;
            v->s = sqlite3_column_blob(st, i);
            v->len = (size_t)sqlite3_column_bytes(st, i);
            if (v->s == NULL)   /* zero-length blob */
                v->s = "";
            break;
        default:
            v->type = SBD_TYPE_NULL;
            v->is_null = 1;
            v->s = NULL;
            v->len = 0;
            break;
        }
    }
}

static int sqlite_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->cur == NULL)
        return SBD_DONE;
    if (c->cur_state == CUR_ROW_PENDING) {
        c->cur_state = CUR_ROW_READ;
        fill_row(c->cur, c->cur_ncols, row);
        return SBD_OK;
    }
    int rc = sqlite3_step(c->cur);
    if (rc == SQLITE_ROW) {
        fill_row(c->cur, c->cur_ncols, row);
        return SBD_OK;
    }
    int status = rc == SQLITE_DONE ? SBD_DONE : sqlite_error(c, rc);
    finish_current(c);
    return status;
}

static void sqlite_free_result(sbd_conn *c) { finish_current(c); }

/* ---------------------------------------------------- prepared statements */

/* On success *out is owned by c until close_stmt or disconnect. */
static int sqlite_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                          const int *param_types, sbd_stmt **out)
{
    (void)param_types;   /* bound by the type each value carries */
    *out = NULL;
    finish_current(c);
    if (len > INT_MAX)
        return driver_error(c, "SQL text too long for SQLite");
    int ilen = (int)len;
    if (is_bare_begin(sql, len)) {
        sql = begin_sql;
        ilen = -1;
    }
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v3(c->db, sql, ilen, SQLITE_PREPARE_PERSISTENT,
                                &st, &tail);
    if (rc != SQLITE_OK)
        return sqlite_error(c, rc);
    if (st == NULL)
        return driver_error(c, "cannot prepare an empty statement");
    if (ilen >= 0 && tail != NULL && !is_blank(tail, sql + len)) {
        sqlite3_finalize(st);
        return driver_error(c, "cannot prepare more than one statement at once");
    }
    if (sqlite3_bind_parameter_count(st) != nparams) {
        char msg[128];
        snprintf(msg, sizeof msg, "statement has %d parameters but %d were declared",
                 sqlite3_bind_parameter_count(st), nparams);
        sqlite3_finalize(st);
        return driver_error(c, msg);
    }
    struct sbd_stmt *s = calloc(1, sizeof *s);
    if (s == NULL) {
        sqlite3_finalize(st);
        return driver_error(c, "out of memory");
    }
    s->st = st;
    s->nparams = nparams;
    s->is_begin = ilen < 0;
    s->next = c->stmts;
    if (c->stmts)
        c->stmts->prev = s;
    c->stmts = s;
    *out = s;
    return SBD_OK;
}

static int is_text_type(int type)
{
    return type == SBD_TYPE_STRING || type == SBD_TYPE_TIME ||
           type == SBD_TYPE_DATE || type == SBD_TYPE_DATETIME;
}

/* Binds values[0..n-1] to st.  Strings are bound SQLITE_STATIC: with buf
 * (may be NULL) they are first copied there, as it must outlive the call;
 * without, the caller steps and resets st before returning. */
static int bind_values(sbd_conn *c, sqlite3_stmt *st, const struct sbd_value *v,
                       int n, char *buf)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        if (v[i].is_null || v[i].type == SBD_TYPE_NULL) {
            rc = sqlite3_bind_null(st, i + 1);
        } else if (v[i].type == SBD_TYPE_INT) {
            rc = sqlite3_bind_int64(st, i + 1, v[i].i);
        } else if (v[i].type == SBD_TYPE_DOUBLE) {
            rc = sqlite3_bind_double(st, i + 1, v[i].d);
        } else if (is_text_type(v[i].type)) {
            const char *s = v[i].s;
            if (v[i].len == 0 || s == NULL) {
                s = "";
            } else if (buf != NULL) {
                memcpy(buf, s, v[i].len);
                s = buf;
                buf += v[i].len;
            }
            if (v[i].len > INT_MAX)
                return driver_error(c, "string parameter too long for SQLite");
            rc = sqlite3_bind_text(st, i + 1, s, (int)v[i].len, SQLITE_STATIC);
        } else {
            return driver_error(c, "unknown parameter type");
        }
    }
    return rc == SQLITE_OK ? SBD_OK : sqlite_error(c, rc);
}

static int sqlite_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                          int nparams, struct sbd_result_info *info)
{
    finish_current(c);
    sqlite3_reset(s->st);
    if (nparams != s->nparams)
        return driver_error(c, "execute: wrong number of parameters");
    /* The row steps in fetch_row still read the parameters, so string
     * values are copied into the statement's own buffer. */
    size_t need = 0;
    for (int i = 0; i < nparams; i++)
        if (!params[i].is_null && is_text_type(params[i].type) && params[i].s)
            need += params[i].len;
    if (need > s->strcap) {
        size_t cap = s->strcap ? s->strcap : 64;
        while (cap < need)
            cap *= 2;
        char *p = realloc(s->strbuf, cap);
        if (p == NULL)
            return driver_error(c, "out of memory");
        s->strbuf = p;
        s->strcap = cap;
    }
    int status = bind_values(c, s->st, params, nparams, s->strbuf);
    if (status != SBD_OK)
        return status;
    return start_stmt(c, s->is_begin ? begin_stmt(c) : s->st, 0, info);
}

static void sqlite_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    if (c->cur == s->st)
        finish_current(c);
    if (s->prev)
        s->prev->next = s->next;
    else
        c->stmts = s->next;
    if (s->next)
        s->next->prev = s->prev;
    sqlite3_finalize(s->st);
    free(s->strbuf);
    free(s);
}

/* ----------------------------------------------------------- transactions */

static int sqlite_begin(sbd_conn *c) { return run_simple(c, begin_stmt(c)); }

static int sqlite_commit(sbd_conn *c) { return run_simple(c, c->st_commit); }

static int sqlite_rollback(sbd_conn *c)
{
    finish_current(c);
    /* SQLite may already have rolled back (e.g. after SQLITE_FULL); a
     * rollback with no transaction open is then not an error. */
    if (sqlite3_get_autocommit(c->db))
        return SBD_OK;
    return run_simple(c, c->st_rollback);
}

/* -------------------------------------------------------------- bulk load */

static int sqlite_bulk_begin(sbd_conn *c, const char *table,
                             const char *const *columns, const int *types,
                             int ncolumns)
{
    (void)types;
    finish_current(c);
    if (c->bulk != NULL)
        return driver_error(c, "bulk load already in progress");
    if (ncolumns <= 0)
        return driver_error(c, "bulk load needs at least one column");
    size_t len = strlen("INSERT INTO () VALUES()") + strlen(table) + 1;
    for (int i = 0; i < ncolumns; i++)
        len += strlen(columns[i]) + 3;
    char *sql = malloc(len);
    if (sql == NULL)
        return driver_error(c, "out of memory");
    char *p = sql;
    p += sprintf(p, "INSERT INTO %s(", table);
    for (int i = 0; i < ncolumns; i++)
        p += sprintf(p, "%s%s", i ? "," : "", columns[i]);
    p += sprintf(p, ") VALUES(");
    for (int i = 0; i < ncolumns; i++)
        p += sprintf(p, "%s?", i ? "," : "");
    sprintf(p, ")");

    int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                &c->bulk, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        c->bulk = NULL;
        return sqlite_error(c, rc);
    }
    c->bulk_ncols = ncolumns;
    c->bulk_rows = 0;
    c->bulk_failed = 0;
    /* Inside a transaction of the host's, load into it and leave it open. */
    c->bulk_own_txn = sqlite3_get_autocommit(c->db);
    if (c->bulk_own_txn) {
        rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            int status = sqlite_error(c, rc);
            sqlite3_finalize(c->bulk);
            c->bulk = NULL;
            return status;
        }
    }
    return SBD_OK;
}

static int sqlite_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    if (c->bulk == NULL)
        return driver_error(c, "bulk_row without bulk_begin");
    if (c->bulk_failed)
        return driver_error(c, "bulk load aborted by an earlier error");
    /* Stepped and reset right here, so binding STATIC needs no copy. */
    int status = bind_values(c, c->bulk, values, c->bulk_ncols, NULL);
    if (status != SBD_OK)
        return status;
    int rc = sqlite3_step(c->bulk);
    status = rc == SQLITE_DONE ? SBD_OK : sqlite_error(c, rc);
    sqlite3_reset(c->bulk);
    if (status != SBD_OK)
        return status;
    if (c->bulk_own_txn && ++c->bulk_rows % BULK_COMMIT_ROWS == 0) {
        rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            c->bulk_failed = 1;
            return sqlite_error(c, rc);
        }
    }
    return SBD_OK;
}

static int sqlite_bulk_end(sbd_conn *c)
{
    if (c->bulk == NULL)
        return driver_error(c, "bulk_end without bulk_begin");
    sqlite3_finalize(c->bulk);
    c->bulk = NULL;
    if (!c->bulk_own_txn || sqlite3_get_autocommit(c->db))
        return c->bulk_failed ? driver_error(c, "bulk load aborted") : SBD_OK;
    int rc = sqlite3_exec(c->db, c->bulk_failed ? "ROLLBACK" : "COMMIT",
                          NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int status = sqlite_error(c, rc);
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return status;
    }
    return c->bulk_failed ? driver_error(c, "bulk load aborted") : SBD_OK;
}

static const struct sbd_driver sqlite_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "sqlite",
    .description = "SQLite database file (embedded, the default)",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD,
    .options = sqlite_options,
    .init = sqlite_init,
    .client_version = sqlite_client_version,
    .connect = sqlite_connect,
    .disconnect = sqlite_disconnect,
    .last_error = sqlite_last_error,
    .dialect = sqlite_dialect,
    .server_version = sqlite_server_version,
    .query = sqlite_query,
    .fetch_row = sqlite_fetch_row,
    .free_result = sqlite_free_result,
    .prepare = sqlite_prepare,
    .execute = sqlite_execute,
    .close_stmt = sqlite_close_stmt,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .bulk_begin = sqlite_bulk_begin,
    .bulk_row = sqlite_bulk_row,
    .bulk_end = sqlite_bulk_end,
};

/* Returns the driver's static description; never fails. */
SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &sqlite_driver;
}
