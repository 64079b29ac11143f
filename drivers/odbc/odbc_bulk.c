/*
 * odbc driver: bulk load for `prepare` through one prepared INSERT, with
 * column-wise parameter arrays of BULK_ROWS rows when the ODBC driver
 * keeps SQL_ATTR_PARAMSET_SIZE (else a row per SQLExecute).  Outside a
 * transaction of the host's, the load runs in its own, committed every
 * BULK_COMMIT_ROWS rows; a failure rolls it back at once.
 */
#include "odbc_int.h"
#include "../common/buf.h"
#include "../common/error.h"
#include "../common/insert.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Rows per SQLExecute when the ODBC driver takes parameter arrays. */
#define BULK_ROWS 1000
/* Rows between commits during a bulk load. */
#define BULK_COMMIT_ROWS 5000

/* State of a bulk load between bulk_begin and bulk_end. */
struct odbc_bulk {
    SQLHSTMT h;
    int ncols;
    int *types;             /* enum sbd_type per column */
    size_t rows_max;        /* rows per SQLExecute: BULK_ROWS or 1 */
    size_t paramset;        /* SQL_ATTR_PARAMSET_SIZE currently set */
    size_t nrows;           /* rows waiting in the arrays */
    size_t since_commit;
    int own_txn;            /* autocommit was switched off by bulk_begin */
    int failed;             /* status of a failed flush, 0 if none */
    char **data;            /* per column: rows_max values, column-wise */
    SQLLEN **ind;           /* per column: rows_max indicators */
    size_t *width;          /* per column: bytes per value */
    SQLUSMALLINT *status;   /* per row status after SQLExecute */
};

/* ------------------------------------------------------------------ */
/* Bulk load: one prepared INSERT, parameter arrays when available.     */

/* The load's own transaction, if it has one, is rolled back and
 * autocommit is on again. */
static void roll_back_own_txn(sbd_conn *c, struct odbc_bulk *b)
{
    if (!b->own_txn)
        return;
    SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
    SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT, (SQLPOINTER)(uintptr_t)SQL_AUTOCOMMIT_ON,
                      SQL_IS_UINTEGER);
    b->own_txn = 0;
}

void odbc_bulk_free(sbd_conn *c)
{
    struct odbc_bulk *b = c->bulk;
    if (b == NULL)
        return;
    if (b->h != SQL_NULL_HSTMT)
        SQLFreeHandle(SQL_HANDLE_STMT, b->h);
    roll_back_own_txn(c, b);
    for (int i = 0; i < b->ncols; i++) {
        if (b->data)
            free(b->data[i]);
        if (b->ind)
            free(b->ind[i]);
    }
    free(b->data);
    free(b->ind);
    free(b->width);
    free(b->types);
    free(b->status);
    free(b);
    c->bulk = NULL;
}

static int bulk_bind(sbd_conn *c, struct odbc_bulk *b, int i)
{
    SQLSMALLINT ctype, sqltype;
    SQLULEN colsize;
    size_t bytes;
    odbc_param_types(b->types[i], &ctype, &sqltype, &colsize, &bytes);
    if (sqltype == SQL_VARCHAR)
        colsize = b->width[i] - 1;
    SQLRETURN rc = SQLBindParameter(b->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT,
                                    ctype, sqltype, colsize, 0, b->data[i],
                                    bytes ? (SQLLEN)b->width[i] : 0, b->ind[i]);
    if (!SQL_SUCCEEDED(rc))
        return odbc_conn_diag(c, SQL_HANDLE_STMT, b->h, rc, "bulk: SQLBindParameter");
    return SBD_OK;
}

/* Records a failed load: the rows of the load's own transaction are rolled
 * back and autocommit is on again at once, so the connection stays usable
 * even if bulk_end is never called.  Returns status. */
static int bulk_fail(sbd_conn *c, struct odbc_bulk *b, int status)
{
    b->failed = status;
    roll_back_own_txn(c, b);
    return status;
}

/* Sends the rows waiting in the arrays; commits every BULK_COMMIT_ROWS
 * rows when the load owns the transaction. */
static int bulk_flush(sbd_conn *c, struct odbc_bulk *b)
{
    if (b->nrows == 0)
        return SBD_OK;
    SQLRETURN rc;
    if (b->rows_max > 1 && b->paramset != b->nrows) {
        rc = SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE,
                            (SQLPOINTER)(uintptr_t)b->nrows, 0);
        if (!SQL_SUCCEEDED(rc))
            return bulk_fail(c, b, odbc_conn_diag(c, SQL_HANDLE_STMT, b->h, rc,
                                         "bulk: SQL_ATTR_PARAMSET_SIZE"));
        b->paramset = b->nrows;
    }
    rc = SQLExecute(b->h);
    if (!SQL_SUCCEEDED(rc) && rc != SQL_NO_DATA)
        return bulk_fail(c, b, odbc_conn_diag(c, SQL_HANDLE_STMT, b->h, rc, NULL));
    if (b->rows_max > 1) {
        for (size_t r = 0; r < b->nrows; r++)
            if (b->status[r] == SQL_PARAM_ERROR)
                return bulk_fail(c, b, odbc_conn_diag(c, SQL_HANDLE_STMT, b->h, SQL_ERROR, NULL));
    }
    SQLFreeStmt(b->h, SQL_CLOSE);
    b->since_commit += b->nrows;
    b->nrows = 0;
    if (b->own_txn && b->since_commit >= BULK_COMMIT_ROWS) {
        rc = SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_COMMIT);
        if (!SQL_SUCCEEDED(rc))
            return bulk_fail(c, b, odbc_conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc, "bulk: commit"));
        b->since_commit = 0;
    }
    return SBD_OK;
}

/* Parameter arrays: accepted only if the driver keeps the size.  Sets
 * b->rows_max (BULK_ROWS, or 1 without arrays) and the statement's
 * attributes to match; never fails (no arrays is the fallback). */
static void choose_rows(struct odbc_bulk *b)
{
    b->rows_max = 1;
    SQLRETURN rc = SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE,
                                  (SQLPOINTER)(uintptr_t)BULK_ROWS, 0);
    if (rc == SQL_SUCCESS) {
        SQLULEN got = 0;
        if (SQL_SUCCEEDED(SQLGetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE, &got, 0, NULL)) &&
            got == BULK_ROWS)
            b->rows_max = BULK_ROWS;
    }
    if (b->rows_max > 1) {
        b->status = calloc(b->rows_max, sizeof *b->status);
        if (b->status == NULL ||
            !SQL_SUCCEEDED(SQLSetStmtAttr(b->h, SQL_ATTR_PARAM_BIND_TYPE,
                                          (SQLPOINTER)(uintptr_t)SQL_PARAM_BIND_BY_COLUMN, 0)) ||
            !SQL_SUCCEEDED(SQLSetStmtAttr(b->h, SQL_ATTR_PARAM_STATUS_PTR, b->status, 0)))
            b->rows_max = 1;
    }
    if (b->rows_max == 1) {
        SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE, (SQLPOINTER)(uintptr_t)1, 0);
        SQLSetStmtAttr(b->h, SQL_ATTR_PARAM_STATUS_PTR, NULL, 0);
    }
    b->paramset = b->rows_max;
}

/* Allocates each column's arrays of b->rows_max values and indicators and
 * binds them.  SBD_OK, or an error status with c->err filled (the caller
 * frees the load). */
static int bind_columns(sbd_conn *c, struct odbc_bulk *b)
{
    int st;
    for (int i = 0; i < b->ncols; i++) {
        SQLSMALLINT ctype, sqltype;
        SQLULEN colsize;
        size_t bytes;
        odbc_param_types(b->types[i], &ctype, &sqltype, &colsize, &bytes);
        b->width[i] = bytes ? bytes : (ctype == SQL_C_DOUBLE ? sizeof(double)
                                                              : sizeof(SQLBIGINT));
        b->data[i] = malloc(b->rows_max * b->width[i]);
        b->ind[i] = malloc(b->rows_max * sizeof(SQLLEN));
        if (b->data[i] == NULL || b->ind[i] == NULL)
            return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
        if ((st = bulk_bind(c, b, i)) != SBD_OK)
            return st;
    }
    return SBD_OK;
}

int odbc_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                    const int *types, int ncolumns)
{
    if (c->bulk)
        return odbc_set_error(&c->err, SBD_ERROR, "bulk_begin: a bulk load is already running");
    if (ncolumns <= 0)
        return odbc_set_error(&c->err, SBD_ERROR, "bulk_begin: no columns");
    odbc_close_cursor(c);
    struct odbc_bulk *b = calloc(1, sizeof *b);
    if (b == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
    c->bulk = b;
    b->h = SQL_NULL_HSTMT;

    char *sql = sbc_insert_sql(table, columns, ncolumns);
    b->types = malloc((size_t)ncolumns * sizeof *b->types);
    b->data = calloc((size_t)ncolumns, sizeof *b->data);
    b->ind = calloc((size_t)ncolumns, sizeof *b->ind);
    b->width = calloc((size_t)ncolumns, sizeof *b->width);
    if (sql == NULL || b->types == NULL || b->data == NULL || b->ind == NULL || b->width == NULL) {
        free(sql);
        odbc_bulk_free(c);
        return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
    }
    b->ncols = ncolumns;
    memcpy(b->types, types, (size_t)ncolumns * sizeof *types);

    int st = odbc_alloc_stmt(c, &b->h);
    if (st == SBD_OK) {
        SQLRETURN rc = SQLPrepare(b->h, (SQLCHAR *)sql, SQL_NTS);
        if (!SQL_SUCCEEDED(rc))
            st = odbc_conn_diag(c, SQL_HANDLE_STMT, b->h, rc, "bulk: prepare");
    }
    free(sql);
    if (st != SBD_OK) {
        odbc_bulk_free(c);
        return st;
    }

    choose_rows(b);
    odbc_cfg.host->log(SBD_LOG_DEBUG, "bulk load into %s: %zu rows per execute", table, b->rows_max);

    if ((st = bind_columns(c, b)) != SBD_OK) {
        odbc_bulk_free(c);
        return st;
    }
    if (!c->in_txn) {
        if ((st = odbc_set_autocommit(c, 0)) != SBD_OK) {
            odbc_bulk_free(c);
            return st;
        }
        b->own_txn = 1;
    }
    return SBD_OK;
}

int odbc_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    struct odbc_bulk *b = c->bulk;
    if (b == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "bulk_row: no bulk load running");
    if (b->failed)
        return b->failed;
    /* A string longer than its column's slots: send what is waiting, then
     * widen the slots. */
    for (int i = 0; i < b->ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (b->types[i] == SBD_TYPE_INT || b->types[i] == SBD_TYPE_DOUBLE ||
            v->is_null || v->s == NULL || v->len + 1 <= b->width[i])
            continue;
        int st = bulk_flush(c, b);
        if (st != SBD_OK)
            return st;
        /* the width doubles; the array holds rows_max values of it (the
         * rows were sent: nothing to keep) */
        char *nd = sbc_grow(b->data[i], &b->width[i], v->len + 1, b->rows_max, 0);
        if (nd == NULL)
            return bulk_fail(c, b, odbc_set_error(&c->err, SBD_ERROR, "out of memory"));
        b->data[i] = nd;
        if ((st = bulk_bind(c, b, i)) != SBD_OK)
            return bulk_fail(c, b, st);
    }
    size_t r = b->nrows;
    for (int i = 0; i < b->ncols; i++) {
        const struct sbd_value *v = &values[i];
        SQLLEN *ind = &b->ind[i][r];
        if (v->is_null || v->type == SBD_TYPE_NULL) {
            *ind = SQL_NULL_DATA;
            continue;
        }
        *ind = 0;
        if (b->types[i] == SBD_TYPE_INT) {
            SQLBIGINT x = v->type == SBD_TYPE_DOUBLE ? (SQLBIGINT)v->d : (SQLBIGINT)v->i;
            memcpy(b->data[i] + r * sizeof x, &x, sizeof x);
        } else if (b->types[i] == SBD_TYPE_DOUBLE) {
            double d = v->type == SBD_TYPE_INT ? (double)v->i : v->d;
            memcpy(b->data[i] + r * sizeof d, &d, sizeof d);
        } else {
            size_t len = v->s ? v->len : 0;
            char *dst = b->data[i] + r * b->width[i];
            if (len > 0)
                memcpy(dst, v->s, len);
            dst[len] = 0;
            *ind = (SQLLEN)len;
        }
    }
    b->nrows++;
    if (b->nrows == b->rows_max)
        return bulk_flush(c, b);
    return SBD_OK;
}

int odbc_bulk_end(sbd_conn *c)
{
    struct odbc_bulk *b = c->bulk;
    if (b == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "bulk_end: no bulk load running");
    int st = b->failed ? b->failed : bulk_flush(c, b);
    if (st == SBD_OK && b->own_txn) {
        SQLRETURN rc = SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_COMMIT);
        if (!SQL_SUCCEEDED(rc))
            st = odbc_conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc, "bulk: commit");
        else {
            b->own_txn = 0;
            st = odbc_set_autocommit(c, 1);
        }
    }
    odbc_bulk_free(c); /* rolls back and restores autocommit if still owned */
    return st;
}

