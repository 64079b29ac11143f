/*
 * mysql driver: the server's evidence for the host's sampler (ABI 1.6):
 * the counters of one moment from SHOW GLOBAL STATUS (InnoDB's buffer
 * pool, rows, redo log, row locks, purge history) and one active-session
 * sample (the current database's other sessions in PROCESSLIST, a session
 * whose transaction waits for a row lock named "Lock:row lock wait").
 * Runs on the counters' connection only; Questions counts each statement
 * here, and Com_select each sample, so they are added to counter_reads
 * and counter_selects and left out as server_counters does (mysql_stmt.c).
 * Each read's answer is due within SBD_SAMPLE_TIMEOUT_MS (a silent server
 * must not hold the reporting thread).  Where performance_schema is on
 * (with its events_waits_current consumer), a session's wait in progress
 * is named by its instrument; else by its state (wait_events_now says
 * which).
 */
#include "mysql_int.h"
#include "../../lib/text.h"
#include "../common/sock_io.h"

#include <poll.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* sql on c, its answer due within SBD_SAMPLE_TIMEOUT_MS: sent as a
 * nonblocking statement (mysql_async.c) whose deadline is the sampler's;
 * past it the library ends it as a lost connection.  Without Connector/C's
 * nonblocking API, the blocking query (bounded by --db-query-timeout
 * only). */
static int bounded_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
#ifdef MYD_NONBLOCK
    int rc = myd_send_query(c, sql, len);
    if (rc != SBD_OK)
        return rc;
    int64_t deadline = sbc_now_ms() + SBD_SAMPLE_TIMEOUT_MS;
    c->async_deadline = deadline * 1000000; /* the sampler's, not --db-query-timeout's */
    for (;;) {
        int want_write;
        rc = myd_poll_result(c, info, &want_write);
        if (rc != SBD_AGAIN)
            return rc;
        /* ready, or the deadline: poll_result then ends the statement */
        sbc_wait(myd_socket(c), want_write ? POLLOUT : POLLIN, deadline);
    }
#else
    return myd_query(c, sql, len, info);
#endif
}

/* A statement of this file, counted as one of this connection's own. */
static int own_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    c->counter_reads++;
    int rc = bounded_query(c, sql, len, info);
    if (rc == SBD_OK && (info->nfields != 2 || c->res_kind != RES_QUERY)) {
        myd_release_result(c);
        return myd_fail(c, "mysql: the sampler's query returned an unexpected shape");
    }
    return rc;
}

/* Where each status variable goes; *_sub: subtracted from another. */
enum { V_REQ, V_READS, V_INS, V_UPD, V_DEL, NV };
static const struct { const char *name; int off; } status_map[] = {
    {"Com_commit", offsetof(struct sbd_server_sample, commits)},
    {"Com_rollback", offsetof(struct sbd_server_sample, rollbacks)},
    {"Questions", offsetof(struct sbd_server_sample, statements)},
    {"Innodb_deadlocks", offsetof(struct sbd_server_sample, deadlocks)},
    {"Innodb_rows_read", offsetof(struct sbd_server_sample, rows_read)},
    {"Innodb_os_log_written", offsetof(struct sbd_server_sample, wal_bytes)},
    {"Innodb_log_waits", offsetof(struct sbd_server_sample, wal_waits)},
    {"Innodb_buffer_pool_pages_flushed", offsetof(struct sbd_server_sample, buffers_written)},
    {"Innodb_row_lock_waits", offsetof(struct sbd_server_sample, lock_waits)},
    {"Innodb_row_lock_time", offsetof(struct sbd_server_sample, lock_wait_ms)},
    {"Innodb_row_lock_current_waits", offsetof(struct sbd_server_sample, locks_waiting_now)},
    {"Innodb_history_list_length", offsetof(struct sbd_server_sample, history_length_now)},
    {"Innodb_buffer_pool_read_requests", -1 - V_REQ},
    {"Innodb_buffer_pool_reads", -1 - V_READS},
    {"Innodb_rows_inserted", -1 - V_INS},
    {"Innodb_rows_updated", -1 - V_UPD},
    {"Innodb_rows_deleted", -1 - V_DEL},
};

/* Once per connection: whether performance_schema names the sessions'
 * waits (on, with the consumers events_waits_current needs), into
 * c->sampler_ps.  A server without performance_schema's tables is one
 * with it off.  SBD_OK, or a lost connection's status. */
static int ps_probe(sbd_conn *c)
{
    static const char sql[] =
        "SELECT @@performance_schema, (SELECT COUNT(*) FROM performance_schema.setup_consumers "
        "WHERE ENABLED = 'YES' AND NAME IN ('global_instrumentation', 'thread_instrumentation', "
        "'events_waits_current'))";
    if (c->sampler_ps != 0)
        return SBD_OK;
    struct sbd_result_info info;
    c->counter_selects++; /* Com_select counts it: left out as Questions */
    int rc = own_query(c, sql, sizeof sql - 1, &info);
    if (rc == SBD_CONN_LOST)
        return rc;
    c->sampler_ps = 2;
    if (rc != SBD_OK)
        return SBD_OK;
    MYSQL_ROW r = mysql_fetch_row(c->res);
    if (r != NULL && r[0] != NULL && r[1] != NULL && strcmp(r[0], "1") == 0 && strcmp(r[1], "3") == 0)
        c->sampler_ps = 1;
    myd_release_result(c);
    return SBD_OK;
}

int myd_server_sample(sbd_conn *c, struct sbd_server_sample *out)
{
    int st = ps_probe(c);
    if (st != SBD_OK)
        return st;
    if (offsetof(struct sbd_server_sample, wait_events_now) + sizeof(int64_t) <= out->struct_size)
        out->wait_events_now = c->sampler_ps == 1;
    static const char sql[] =
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback', 'Questions', "
        "'Innodb_deadlocks', 'Innodb_rows_read', 'Innodb_os_log_written', 'Innodb_log_waits', "
        "'Innodb_buffer_pool_pages_flushed', 'Innodb_row_lock_waits', 'Innodb_row_lock_time', "
        "'Innodb_row_lock_current_waits', 'Innodb_history_list_length', "
        "'Innodb_buffer_pool_read_requests', 'Innodb_buffer_pool_reads', 'Innodb_rows_inserted', "
        "'Innodb_rows_updated', 'Innodb_rows_deleted')";
    struct sbd_result_info info;
    int rc = own_query(c, sql, sizeof sql - 1, &info);
    if (rc != SBD_OK)
        return rc;
    int64_t v[NV] = {-1, -1, -1, -1, -1};
    MYSQL_ROW r;
    while ((r = mysql_fetch_row(c->res)) != NULL) {
        int64_t x;
        if (r[0] == NULL || r[1] == NULL || sbc_text_to_i64(r[1], strlen(r[1]), &x) != 0)
            continue;
        for (size_t i = 0; i < sizeof status_map / sizeof status_map[0]; i++) {
            int off = status_map[i].off;
            if (strcasecmp(r[0], status_map[i].name) != 0)
                continue;
            if (off < 0)
                v[-1 - off] = x;
            else if ((size_t)off + sizeof(int64_t) <= out->struct_size)
                *(int64_t *)((char *)out + off) = x;
        }
    }
    myd_release_result(c);
    if (out->statements >= 0)
        out->statements -= c->counter_reads;
    if (v[V_REQ] >= 0 && v[V_READS] >= 0) {
        out->blks_read = v[V_READS];
        out->blks_hit = v[V_REQ] - v[V_READS];
    }
    if (v[V_INS] >= 0 && v[V_UPD] >= 0 && v[V_DEL] >= 0)
        out->rows_written = v[V_INS] + v[V_UPD] + v[V_DEL];
    return SBD_OK;
}

int myd_server_waits(sbd_conn *c, struct sbd_wait *out, int max, int *n)
{
    /* cancelled by MySQL after 2 s (its MAX_EXECUTION_TIME hint; MariaDB
     * reads it as a comment).  Not by MariaDB's max_statement_time: a
     * statement it kills while it fills these information_schema tables
     * crashed MariaDB 10.11 (signal 11 in ha_maria::drop_table, freeing
     * the query's temporary table), seen under the soak test's load */
#define WAITS_HINT "SELECT /*+ MAX_EXECUTION_TIME(2000) */ "
#define WAITS_FROM "FROM information_schema.PROCESSLIST p LEFT JOIN information_schema.INNODB_TRX t " \
                   "ON t.trx_mysql_thread_id = p.ID "
#define WAITS_WHERE "WHERE p.COMMAND <> 'Sleep' AND p.ID <> CONNECTION_ID() " \
                    "AND p.DB = DATABASE() GROUP BY w ORDER BY 2 DESC"
    static const char states_sql[] =
        WAITS_HINT "IF(t.trx_state = 'LOCK WAIT', 'Lock:row lock wait', "
        "CONCAT('State:', IF(p.STATE = '', p.COMMAND, p.STATE))) AS w, COUNT(*) "
        WAITS_FROM WAITS_WHERE;
    /* with performance_schema: a session's wait in progress, by its
     * instrument ("Wait:wait/io/file/innodb/innodb_log_file") */
    static const char events_sql[] =
        WAITS_HINT "IF(t.trx_state = 'LOCK WAIT', 'Lock:row lock wait', IF(e.EVENT_NAME IS NOT NULL, "
        "CONCAT('Wait:', e.EVENT_NAME), CONCAT('State:', IF(p.STATE = '', p.COMMAND, p.STATE)))) "
        "AS w, COUNT(*) " WAITS_FROM
        "LEFT JOIN performance_schema.threads h ON h.PROCESSLIST_ID = p.ID "
        "LEFT JOIN performance_schema.events_waits_current e ON e.THREAD_ID = h.THREAD_ID "
        "AND e.END_EVENT_ID IS NULL " WAITS_WHERE;
    struct sbd_result_info info;
    *n = 0;
    int st = ps_probe(c);
    if (st != SBD_OK)
        return st;
    c->counter_selects++; /* Com_select counts it: left out as Questions */
    const char *buf = c->sampler_ps == 1 ? events_sql : states_sql;
    size_t len = strlen(buf);
    int rc = own_query(c, buf, len, &info);
    if (rc != SBD_OK)
        return rc;
    MYSQL_ROW r;
    while ((r = mysql_fetch_row(c->res)) != NULL) {
        int64_t x;
        if (*n >= max || r[0] == NULL || r[1] == NULL ||
            sbc_text_to_i64(r[1], strlen(r[1]), &x) != 0)
            continue;
        snprintf(out[*n].name, sizeof out[*n].name, "%s", r[0]);
        out[*n].sessions = x;
        (*n)++;
    }
    myd_release_result(c);
    return SBD_OK;
}
