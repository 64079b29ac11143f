/*
 * history_int.h: what the history/ files share and nothing outside sees:
 * the open store and its one SQL path.  A statement's text is the same
 * for both stores (parameters $1, $2, ... in order of appearance, every
 * value sent as text); history_sqlite.c and history_pg.c each run it on
 * their library and hand back the rows as strings.
 */
#ifndef SB_HISTORY_INT_H
#define SB_HISTORY_INT_H

#include <stddef.h>

#include "history.h"

struct sb_history {
    int pg;             /* 1: PostgreSQL (libpq), 0: SQLite file */
    void *db;           /* sqlite3 * or PGconn * */
    char where[1024];   /* the path, or the URI without its password */
};

/* The rows a statement answered: cell (r, c) is cells[r * ncols + c],
 * NULL for SQL NULL. */
struct hist_rows {
    char **cells;
    size_t nrows;
    int ncols;
};
void hist_rows_free(struct hist_rows *rows);

/* Runs sql with params (text, NULL for SQL NULL); rows (may be NULL)
 * receives what it answered.  0, or -1 with one line in err. */
int hist_sqlite_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
                    struct hist_rows *rows, char *err, size_t errlen);
int hist_sqlite_open(struct sb_history *h, const char *path, char *err, size_t errlen);
void hist_sqlite_close(struct sb_history *h);

int hist_pg_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
                struct hist_rows *rows, char *err, size_t errlen);
int hist_pg_open(struct sb_history *h, const char *conninfo, char *err, size_t errlen);
void hist_pg_close(struct sb_history *h);

/* The store's own statement path: one of the two above. */
int hist_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
             struct hist_rows *rows, char *err, size_t errlen);

#endif
