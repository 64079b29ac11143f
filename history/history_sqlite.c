/*
 * history_sqlite.c: the history store in a SQLite file (the default, one
 * per user): open it (its folder made), wait up to 30 s for another
 * writer (not after Ctrl-C), run one statement with text parameters and
 * keep its rows.
 */
#include "history_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "../core/run.h" /* sb_interrupted */

/* Another writer holds the file: wait for it in 10 ms steps, at most 30 s,
 * and not after Ctrl-C. */
#define BUSY_WAIT_MS 30000
static int busy_wait(void *arg, int count)
{
    (void)arg;
    if (sb_interrupted || count * 10 >= BUSY_WAIT_MS)
        return 0;
    sqlite3_sleep(10);
    return 1;
}

/* Makes the folders above path (mkdir -p of its dirname). */
static void make_parents(const char *path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0777); /* an error shows when the file is opened */
        *p = '/';
    }
}

int hist_sqlite_open(struct sb_history *h, const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    make_parents(path);
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_handler(db, busy_wait, NULL);
    h->db = db;
    return 0;
}

void hist_sqlite_close(struct sb_history *h)
{
    sqlite3_close(h->db);
    h->db = NULL;
}

/* Appends the current row of st to rows.  0, or -1 (out of memory). */
static int keep_row(sqlite3_stmt *st, struct hist_rows *rows)
{
    int nc = sqlite3_column_count(st);
    char **cells = realloc(rows->cells, (rows->nrows + 1) * (size_t)nc * sizeof *cells);
    if (cells == NULL)
        return -1;
    rows->cells = cells;
    rows->ncols = nc;
    char **row = cells + rows->nrows * (size_t)nc;
    for (int c = 0; c < nc; c++)
        row[c] = NULL;
    rows->nrows++;
    for (int c = 0; c < nc; c++) {
        char num[32]; /* a double exactly (SQLite's own text keeps 15 digits) */
        const char *t = num;
        if (sqlite3_column_type(st, c) == SQLITE_FLOAT)
            snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, c));
        else
            t = (const char *)sqlite3_column_text(st, c);
        if (t != NULL && (row[c] = strdup(t)) == NULL)
            return -1;
    }
    return 0;
}

int hist_sqlite_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
                    struct hist_rows *rows, char *err, size_t errlen)
{
    sqlite3 *db = h->db;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    for (int i = 0; i < nparams; i++) {
        int rc = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC)
                           : sqlite3_bind_null(st, i + 1);
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "%s", sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return -1;
        }
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (rows && keep_row(st, rows) != 0) {
            snprintf(err, errlen, "out of memory");
            sqlite3_finalize(st);
            return -1;
        }
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}
