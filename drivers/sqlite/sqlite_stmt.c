/*
 * sqlite driver: statements.  Plain queries (through the statement cache,
 * sqlite_cache.c), prepared statements, result rows stepped lazily, and
 * transactions: a bare BEGIN, as text or prepared, and the driver's own
 * begin() run what --sqlite-begin says (begin_stmt).  Bulk load is in
 * sqlite_bulk.c.
 *
 * Hot path (query, execute, fetch_row): no allocation once a statement's
 * string buffer is large enough; column values point into SQLite's row.
 */
#include "sqlite_int.h"
#include "../common/buf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- helpers */

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

/* Ends the current result: resets (cached or host statement) or finalizes
 * (one-off statement) it, so it holds no lock and no snapshot. */
void sqlite_finish_current(sbd_conn *c)
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
    sqlite_finish_current(c);
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
    if (!sqlite_cfg.begin_auto)
        return c->st_begin;
    sqlite3_int64 now = sqlite3_total_changes64(c->db);
    int immediate = now != c->changes_at_begin || c->lock_lost;
    c->changes_at_begin = now;
    c->lock_lost = 0;
    return immediate ? c->st_begin_immediate : c->st_begin;
}

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

int sqlite_query(sbd_conn *c, const char *sql, size_t len,
                 struct sbd_result_info *info)
{
    sqlite_finish_current(c);
    if (len > INT_MAX)
        return sqlite_driver_error(c, "SQL text too long for SQLite");
    uint64_t h = sqlite_hash_bytes(sql, len);
    sqlite3_stmt *st = sqlite_cache_lookup(c, sql, len, h);
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
    int cached = sqlite_cache_insert(c, sql, len, h, st);
    return start_stmt(c, st, !cached, info);
}

const char *sqlite_field_name(sbd_conn *c, int i)
{
    if (c->cur == NULL || i < 0 || i >= c->cur_ncols)
        return NULL;
    return sqlite3_column_name(c->cur, i);
}

int sqlite_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->cur == NULL)
        return SBD_DONE;
    if (c->cur_state == CUR_ROW_PENDING) {
        c->cur_state = CUR_ROW_READ;
        sqlite_fill_row(c->cur, c->cur_ncols, row);
        return SBD_OK;
    }
    int rc = sqlite3_step(c->cur);
    if (rc == SQLITE_ROW) {
        sqlite_fill_row(c->cur, c->cur_ncols, row);
        return SBD_OK;
    }
    int status = rc == SQLITE_DONE ? SBD_DONE : sqlite_error(c, rc);
    sqlite_finish_current(c);
    return status;
}

void sqlite_free_result(sbd_conn *c) { sqlite_finish_current(c); }

/* ---------------------------------------------------- prepared statements */

/* On success *out is owned by c until close_stmt or disconnect. */
int sqlite_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                   const int *param_types, sbd_stmt **out)
{
    (void)param_types;   /* bound by the type each value carries */
    *out = NULL;
    sqlite_finish_current(c);
    if (len > INT_MAX)
        return sqlite_driver_error(c, "SQL text too long for SQLite");
    int ilen = (int)len;
    if (is_bare_begin(sql, len)) {
        sql = sqlite_cfg.begin_sql;
        ilen = -1;
    }
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v3(c->db, sql, ilen, SQLITE_PREPARE_PERSISTENT,
                                &st, &tail);
    if (rc != SQLITE_OK)
        return sqlite_error(c, rc);
    if (st == NULL)
        return sqlite_driver_error(c, "cannot prepare an empty statement");
    if (ilen >= 0 && tail != NULL && !is_blank(tail, sql + len)) {
        sqlite3_finalize(st);
        return sqlite_driver_error(c, "cannot prepare more than one statement at once");
    }
    if (sqlite3_bind_parameter_count(st) != nparams) {
        char msg[128];
        snprintf(msg, sizeof msg, "statement has %d parameters but %d were declared",
                 sqlite3_bind_parameter_count(st), nparams);
        sqlite3_finalize(st);
        return sqlite_driver_error(c, msg);
    }
    struct sbd_stmt *s = calloc(1, sizeof *s);
    if (s == NULL) {
        sqlite3_finalize(st);
        return sqlite_driver_error(c, "out of memory");
    }
    s->st = st;
    s->nparams = nparams;
    s->is_begin = ilen < 0;
    sbc_link_add(&c->stmts, &s->link);
    *out = s;
    return SBD_OK;
}

int sqlite_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                   int nparams, struct sbd_result_info *info)
{
    sqlite_finish_current(c);
    sqlite3_reset(s->st);
    if (nparams != s->nparams)
        return sqlite_driver_error(c, "execute: wrong number of parameters");
    /* The row steps in fetch_row still read the parameters, so string
     * values are copied into the statement's own buffer. */
    size_t need = 0;
    for (int i = 0; i < nparams; i++)
        if (!params[i].is_null && sqlite_is_text_type(params[i].type) && params[i].s)
            need += params[i].len;
    if (need > s->strcap) {
        char *p = sbc_grow(s->strbuf, &s->strcap, need, 1, 64);
        if (p == NULL)
            return sqlite_driver_error(c, "out of memory");
        s->strbuf = p;
    }
    int status = sqlite_bind_values(c, s->st, params, nparams, s->strbuf);
    if (status != SBD_OK)
        return status;
    return start_stmt(c, s->is_begin ? begin_stmt(c) : s->st, 0, info);
}

void sqlite_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    if (c->cur == s->st)
        sqlite_finish_current(c);
    sbc_link_remove(&c->stmts, &s->link);
    sqlite_stmt_free(s);
}

void sqlite_stmt_free(sbd_stmt *s)
{
    sqlite3_finalize(s->st);
    free(s->strbuf);
    free(s);
}

/* ----------------------------------------------------------- transactions */

int sqlite_begin(sbd_conn *c) { return run_simple(c, begin_stmt(c)); }

int sqlite_commit(sbd_conn *c) { return run_simple(c, c->st_commit); }

int sqlite_rollback(sbd_conn *c)
{
    sqlite_finish_current(c);
    /* SQLite may already have rolled back (e.g. after SQLITE_FULL); a
     * rollback with no transaction open is then not an error. */
    if (sqlite3_get_autocommit(c->db))
        return SBD_OK;
    return run_simple(c, c->st_rollback);
}

