/*
 * sqlite driver: connections.  connect opens the database file in
 * multi-thread mode, sets the busy timeout, the journal mode and
 * synchronous from the settings, and prepares the transaction statements
 * once; disconnect finalizes every statement the connection owns and
 * closes it (which rolls back an open transaction).
 */
#include "sqlite_int.h"
#include "../common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ connections */

static void free_conn(sbd_conn *c)
{
    sqlite_finish_current(c);
    if (c->bulk)
        sqlite3_finalize(c->bulk);
    for (struct sbc_link *l; (l = sbc_link_pop(&c->stmts)) != NULL;)
        sqlite_stmt_free((sbd_stmt *)l);
    for (int i = 0; i < SQLITE_DRV_CACHE_SIZE; i++) {
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
    sbc_error(err, sqlite_status_of(rc), rc, NULL, NULL, "SQLite database '%s': %s: %s",
              sqlite_cfg.db_path, what, c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
    free_conn(c);
    return err->status;
}

static int prepare_fixed(sbd_conn *c, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
}

/* On success *out is a new connection owned by the caller until
 * disconnect; on failure *out is NULL and err says why in one line. */
int sqlite_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    (void)thread_id;
    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return sbc_error(err, SBD_ERROR, SQLITE_NOMEM, NULL, NULL, "out of memory");
    int rc = sqlite3_open_v2(sqlite_cfg.db_path, &c->db, SQLITE_OPEN_READWRITE |
                             SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return connect_fail(c, err, rc, "cannot open");
    sqlite3_extended_result_codes(c->db, 1);
    sqlite3_busy_timeout(c->db, sqlite_cfg.busy_timeout_ms);

    char sql[64];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s", sqlite_cfg.journal_mode);
    rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        /* Changing the journal mode needs an exclusive lock, and SQLite
         * returns SQLITE_BUSY without calling the busy handler when two
         * connections switch a fresh file at once (prepare/run with
         * --threads > 1): retry for up to --sqlite-busy-timeout. */
        for (int waited = 0;; waited += 10) {
            rc = sqlite3_step(st);
            if ((rc & 0xff) != SQLITE_BUSY || waited >= sqlite_cfg.busy_timeout_ms)
                break;
            sqlite3_reset(st);
            sqlite3_sleep(10);
        }
        if (rc == SQLITE_ROW) {
            const char *got = (const char *)sqlite3_column_text(st, 0);
            if (got && strcasecmp(got, sqlite_cfg.journal_mode) != 0 && thread_id == 0)
                sqlite_cfg.host->log(SBD_LOG_WARN, "journal mode of '%s' is %s, not %s",
                          sqlite_cfg.db_path, got, sqlite_cfg.journal_mode);
            rc = SQLITE_OK;
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return connect_fail(c, err, rc, "cannot set journal_mode");
    snprintf(sql, sizeof sql, "PRAGMA synchronous=%s", sqlite_cfg.synchronous);
    rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return connect_fail(c, err, rc, "cannot set synchronous");

    if ((rc = prepare_fixed(c, sqlite_cfg.begin_sql, &c->st_begin)) != SQLITE_OK ||
        (rc = prepare_fixed(c, "COMMIT", &c->st_commit)) != SQLITE_OK ||
        (rc = prepare_fixed(c, "ROLLBACK", &c->st_rollback)) != SQLITE_OK ||
        (sqlite_cfg.begin_auto && (rc = prepare_fixed(c, "BEGIN IMMEDIATE", &c->st_begin_immediate)) != SQLITE_OK))
        return connect_fail(c, err, rc, "cannot prepare transaction statements");
    *out = c;
    return SBD_OK;
}

void sqlite_disconnect(sbd_conn *c)
{
    if (c != NULL)
        free_conn(c);
}

/* Owned by c, valid until its next failing call. */
const struct sbd_error *sqlite_last_error(sbd_conn *c) { return &c->err; }

const char *sqlite_dialect(sbd_conn *c) { (void)c; return "sqlite"; }

/* Static string, e.g. "SQLite 3.40.1". */
const char *sqlite_server_version(sbd_conn *c) { (void)c; return sqlite_cfg.version; }

