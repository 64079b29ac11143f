/*
 * history_pg.c: the history store in a PostgreSQL database, so that
 * several machines share one history (--history=postgresql://... or a
 * libpq DSN): connect (bounded by connect_timeout), run one statement
 * with text parameters and keep its rows.  Built when libpq is found;
 * without it the store says so.
 */
#include "history_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SB_HAVE_LIBPQ
#include <libpq-fe.h>

/* The last line of libpq's message (it may hold several). */
static void pg_message(const char *msg, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", msg && *msg ? msg : "unknown error");
    char *nl;
    while ((nl = strrchr(err, '\n')) != NULL && nl[1] == '\0')
        *nl = '\0';
    for (char *p = err; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

int hist_pg_open(struct sb_history *h, const char *conninfo, char *err, size_t errlen)
{
    /* a bounded wait: connect_timeout 10 s unless the URI or DSN, read
     * after it, gives its own */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *vals[] = {"10", "sbench history", conninfo, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (c == NULL || PQstatus(c) != CONNECTION_OK) {
        pg_message(c ? PQerrorMessage(c) : "out of memory", err, errlen);
        PQfinish(c);
        return -1;
    }
    /* every wait bounded: a lock held by another session, a slow server */
    PGresult *r = PQexec(c, "SET client_min_messages = warning; SET statement_timeout = 30000");
    PQclear(r);
    h->db = c;
    return 0;
}

void hist_pg_close(struct sb_history *h)
{
    PQfinish(h->db);
    h->db = NULL;
}

/* The rows of res into rows.  0, or -1 (out of memory). */
static int keep_rows(PGresult *res, struct hist_rows *rows)
{
    int nr = PQntuples(res), nc = PQnfields(res);
    if (nr == 0)
        return 0;
    char **cells = realloc(rows->cells, (rows->nrows + (size_t)nr) * (size_t)nc * sizeof *cells);
    if (cells == NULL)
        return -1;
    rows->cells = cells;
    rows->ncols = nc;
    for (int r = 0; r < nr; r++) {
        char **row = cells + rows->nrows * (size_t)nc;
        for (int c = 0; c < nc; c++)
            row[c] = NULL;
        rows->nrows++;
        for (int c = 0; c < nc; c++)
            if (!PQgetisnull(res, r, c) && (row[c] = strdup(PQgetvalue(res, r, c))) == NULL)
                return -1;
    }
    return 0;
}

int hist_pg_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
                struct hist_rows *rows, char *err, size_t errlen)
{
    PGresult *res = PQexecParams(h->db, sql, nparams, NULL, params, NULL, NULL, 0);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        pg_message(res ? PQresultErrorMessage(res) : PQerrorMessage(h->db), err, errlen);
        PQclear(res);
        return -1;
    }
    int rc = rows ? keep_rows(res, rows) : 0;
    PQclear(res);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

#else /* no libpq at build time */

int hist_pg_open(struct sb_history *h, const char *conninfo, char *err, size_t errlen)
{
    (void)h;
    (void)conninfo;
    snprintf(err, errlen, "this sbench was built without libpq: a PostgreSQL history is not available");
    return -1;
}

void hist_pg_close(struct sb_history *h)
{
    (void)h;
}

int hist_pg_sql(struct sb_history *h, const char *sql, const char *const *params, int nparams,
                struct hist_rows *rows, char *err, size_t errlen)
{
    (void)h, (void)sql, (void)params, (void)nparams, (void)rows;
    snprintf(err, errlen, "no PostgreSQL support");
    return -1;
}
#endif
