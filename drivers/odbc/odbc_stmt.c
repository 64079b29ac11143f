/*
 * odbc driver: statements.  Plain queries (SQLExecDirect on the
 * connection's query handle), prepared statements with parameters bound
 * once to buffers on the statement, and fetching result rows
 * (SQLGetData per column).  Transactions are in odbc_txn.c, bulk load in
 * odbc_bulk.c.
 *
 * Hot path (query, execute, fetch_row): no allocation once the
 * connection's and statement's buffers are large enough, no formatting
 * except on errors.
 */
#include "odbc_int.h"
#include "../common/buf.h"
#include "../common/error.h"
#include "../common/value.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Allocates a statement handle on c with the query timeout applied. */
int odbc_alloc_stmt(sbd_conn *c, SQLHSTMT *out)
{
    SQLRETURN rc = SQLAllocHandle(SQL_HANDLE_STMT, c->dbc, out);
    if (!SQL_SUCCEEDED(rc)) {
        *out = SQL_NULL_HSTMT;
        return odbc_conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc, "cannot allocate a statement");
    }
    if (odbc_cfg.host->query_timeout > 0) {
        rc = SQLSetStmtAttr(*out, SQL_ATTR_QUERY_TIMEOUT,
                            (SQLPOINTER)(uintptr_t)odbc_cfg.host->query_timeout, 0);
        if (!SQL_SUCCEEDED(rc) && !atomic_flag_test_and_set(&odbc_cfg.warned_timeout)) {
            struct sbd_error e;
            odbc_diag(&e, SQL_HANDLE_STMT, *out, rc, c->dialect, "query timeout not set");
            odbc_cfg.host->log(SBD_LOG_WARN, "%s", e.message);
        }
    }
    return SBD_OK;
}

/* ------------------------------------------------------------------ */
/* Results.                                                            */

/* Makes room for ncols result columns in the connection's arrays (grows
 * only; allocates on the first wide result). */
static int ensure_cols(sbd_conn *c, int ncols)
{
    if (ncols <= c->cols_cap)
        return SBD_OK;
    size_t tcap = (size_t)c->cols_cap, bcap = tcap; /* both grow alike */
    int *t = sbc_grow(c->qtypes, &tcap, (size_t)ncols, sizeof *t, 8);
    if (t == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
    c->qtypes = t;
    struct odbc_colbuf *b = sbc_grow(c->cols, &bcap, (size_t)ncols, sizeof *b, 8);
    if (b == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
    memset(b + c->cols_cap, 0, (bcap - (size_t)c->cols_cap) * sizeof *b);
    c->cols = b;
    c->cols_cap = (int)bcap;
    return SBD_OK;
}

void odbc_close_cursor(sbd_conn *c)
{
    if (c->cur) {
        SQLFreeStmt(c->cur, SQL_CLOSE);
        c->cur = SQL_NULL_HSTMT;
    }
    c->ncols = 0;
}

/* Common end of query and execute: rc is what SQLExecDirect/SQLExecute
 * returned on h; s is the prepared statement or NULL. */
static int finish_exec(sbd_conn *c, SQLHSTMT h, SQLRETURN rc, sbd_stmt *s,
                       struct sbd_result_info *info)
{
    info->affected_rows = 0;
    info->nrows = 0;
    info->nfields = 0;
    if (rc == SQL_NO_DATA) /* searched UPDATE/DELETE that hit no row */
        return SBD_OK;
    if (!SQL_SUCCEEDED(rc)) {
        int st = odbc_conn_diag(c, SQL_HANDLE_STMT, h, rc, NULL);
        SQLFreeStmt(h, SQL_CLOSE);
        return st;
    }
    SQLSMALLINT n = 0;
    rc = SQLNumResultCols(h, &n);
    if (!SQL_SUCCEEDED(rc)) {
        int st = odbc_conn_diag(c, SQL_HANDLE_STMT, h, rc, "SQLNumResultCols");
        SQLFreeStmt(h, SQL_CLOSE);
        return st;
    }
    if (n <= 0) {
        SQLLEN rows = -1;
        if (!SQL_SUCCEEDED(SQLRowCount(h, &rows)))
            rows = -1;
        info->affected_rows = rows;
        return SBD_OK;
    }
    int st = ensure_cols(c, n);
    if (st != SBD_OK)
        return st;
    if (s != NULL) {
        if (s->ncols != n) { /* first execute: describe once */
            int *t = realloc(s->ctypes, (size_t)n * sizeof *t);
            if (t == NULL)
                return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
            s->ctypes = t;
            s->ncols = -1;
            if ((st = odbc_describe(c, h, n, t)) != SBD_OK) {
                SQLFreeStmt(h, SQL_CLOSE);
                return st;
            }
            s->ncols = n;
        }
        c->ctypes = s->ctypes;
    } else {
        if ((st = odbc_describe(c, h, n, c->qtypes)) != SBD_OK) {
            SQLFreeStmt(h, SQL_CLOSE);
            return st;
        }
        c->ctypes = c->qtypes;
    }
    c->cur = h;
    c->ncols = n;
    info->nrows = -1;
    info->nfields = n;
    return SBD_OK;
}

int odbc_query(sbd_conn *c, const char *sql, size_t len,
               struct sbd_result_info *info)
{
    odbc_close_cursor(c);
    if (len > 0x7fffffff)
        return odbc_set_error(&c->err, SBD_ERROR, "statement too long");
    SQLRETURN rc = SQLExecDirect(c->qh, (SQLCHAR *)sql, (SQLINTEGER)len);
    return finish_exec(c, c->qh, rc, NULL, info);
}

/* Reads column i (0-based) of the current row as character data (or, for
 * a BYTES column, as its raw bytes: SQL_C_BINARY) into the column's
 * buffer, growing it as needed. */
static int get_string(sbd_conn *c, int i, struct sbd_value *v)
{
    int binary = v->type == SBD_TYPE_BYTES;
    SQLSMALLINT ctype = binary ? SQL_C_BINARY : SQL_C_CHAR;
    size_t nul = binary ? 0 : 1; /* character data ends with a NUL */
    struct odbc_colbuf *b = &c->cols[i];
    char *p = sbc_grow(b->buf, &b->cap, ODBC_STR_INIT, 1, ODBC_STR_INIT);
    if (p == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
    b->buf = p;
    size_t got = 0;
    for (;;) {
        SQLLEN ind = 0;
        SQLRETURN rc = SQLGetData(c->cur, (SQLUSMALLINT)(i + 1), ctype,
                                  b->buf + got, (SQLLEN)(b->cap - got), &ind);
        if (rc == SQL_NO_DATA)
            break;
        if (!SQL_SUCCEEDED(rc))
            return odbc_conn_diag(c, SQL_HANDLE_STMT, c->cur, rc, "SQLGetData");
        if (ind == SQL_NULL_DATA) {
            v->is_null = 1;
            v->s = "";
            v->len = 0;
            return SBD_OK;
        }
        size_t room = b->cap - got - nul;
        if (rc == SQL_SUCCESS || (ind != SQL_NO_TOTAL && (size_t)ind <= room)) {
            got += (size_t)ind;
            break;
        }
        /* truncated: keep what came, grow, fetch the rest */
        got += room;
        size_t need = ind == SQL_NO_TOTAL ? b->cap + 1 : got + ((size_t)ind - room) + 1;
        p = sbc_grow(b->buf, &b->cap, need, 1, 0); /* at least doubles */
        if (p == NULL)
            return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
        b->buf = p;
    }
    v->is_null = 0;
    v->s = b->buf;
    v->len = got;
    return SBD_OK;
}

const char *odbc_field_name(sbd_conn *c, int i)
{
    SQLSMALLINT len = 0, type = 0, digits = 0, nullable = 0;
    SQLULEN size = 0;
    if (c->cur == SQL_NULL_HSTMT || i < 0 || i >= c->ncols)
        return NULL;
    SQLRETURN rc = SQLDescribeCol(c->cur, (SQLUSMALLINT)(i + 1), (SQLCHAR *)c->field_name,
                                  (SQLSMALLINT)sizeof c->field_name, &len, &type, &size, &digits,
                                  &nullable);
    return SQL_SUCCEEDED(rc) ? c->field_name : NULL;
}

int odbc_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->cur == SQL_NULL_HSTMT)
        return SBD_DONE;
    SQLRETURN rc = SQLFetch(c->cur);
    if (rc == SQL_NO_DATA)
        return SBD_DONE;
    if (!SQL_SUCCEEDED(rc))
        return odbc_conn_diag(c, SQL_HANDLE_STMT, c->cur, rc, "SQLFetch");
    for (int i = 0; i < c->ncols; i++) {
        struct sbd_value *v = &row[i];
        SQLLEN ind = 0;
        sbc_value_reset(v, c->ctypes[i], 0);
        if (v->type == SBD_TYPE_INT) {
            SQLBIGINT x = 0;
            rc = SQLGetData(c->cur, (SQLUSMALLINT)(i + 1), SQL_C_SBIGINT, &x, 0, &ind);
            v->i = x;
        } else if (v->type == SBD_TYPE_DOUBLE) {
            rc = SQLGetData(c->cur, (SQLUSMALLINT)(i + 1), SQL_C_DOUBLE, &v->d, 0, &ind);
        } else {
            int st = get_string(c, i, v);
            if (st != SBD_OK)
                return st;
            continue;
        }
        if (!SQL_SUCCEEDED(rc))
            return odbc_conn_diag(c, SQL_HANDLE_STMT, c->cur, rc, "SQLGetData");
        if (ind == SQL_NULL_DATA)
            v->is_null = 1;
    }
    return SBD_OK;
}

void odbc_free_result(sbd_conn *c) { odbc_close_cursor(c); }

/* ------------------------------------------------------------------ */
/* Prepared statements.                                                */

void odbc_stmt_free(sbd_stmt *s)
{
    if (s->h != SQL_NULL_HSTMT)
        SQLFreeHandle(SQL_HANDLE_STMT, s->h);
    for (int i = 0; i < s->nparams; i++)
        free(s->params[i].buf);
    free(s->params);
    free(s->ctypes);
    free(s);
}

static int bind_param(sbd_conn *c, sbd_stmt *s, int i)
{
    struct odbc_param *p = &s->params[i];
    SQLPOINTER ptr;
    SQLLEN buflen = 0;
    SQLULEN colsize = p->colsize;
    if (p->ctype == SQL_C_SBIGINT)
        ptr = &p->i;
    else if (p->ctype == SQL_C_DOUBLE)
        ptr = &p->d;
    else {
        ptr = p->buf;
        buflen = (SQLLEN)p->cap;
        if (p->sqltype == SQL_VARCHAR || p->sqltype == SQL_LONGVARBINARY)
            colsize = p->cap - 1;
    }
    SQLRETURN rc = SQLBindParameter(s->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT,
                                    p->ctype, p->sqltype, colsize, 0, ptr,
                                    buflen, &p->ind);
    if (!SQL_SUCCEEDED(rc))
        return odbc_conn_diag(c, SQL_HANDLE_STMT, s->h, rc, "SQLBindParameter");
    return SBD_OK;
}
int odbc_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                 const int *param_types_in, sbd_stmt **out)
{
    *out = NULL;
    odbc_close_cursor(c);
    if (len > 0x7fffffff || nparams < 0)
        return odbc_set_error(&c->err, SBD_ERROR, "prepare: bad statement length or parameter count");
    sbd_stmt *s = calloc(1, sizeof *s);
    if (s == NULL)
        return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
    s->ncols = -1;
    if (nparams > 0) {
        s->params = calloc((size_t)nparams, sizeof *s->params);
        if (s->params == NULL) {
            free(s);
            return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
        }
    }
    s->nparams = nparams;
    int st = odbc_alloc_stmt(c, &s->h);
    if (st != SBD_OK) {
        odbc_stmt_free(s);
        return st;
    }
    SQLRETURN rc = SQLPrepare(s->h, (SQLCHAR *)sql, (SQLINTEGER)len);
    if (!SQL_SUCCEEDED(rc)) {
        st = odbc_conn_diag(c, SQL_HANDLE_STMT, s->h, rc, NULL);
        odbc_stmt_free(s);
        return st;
    }
    for (int i = 0; i < nparams; i++) {
        struct odbc_param *p = &s->params[i];
        size_t bytes;
        p->type = param_types_in[i];
        odbc_param_types(p->type, &p->ctype, &p->sqltype, &p->colsize, &bytes);
        if (bytes > 0) {
            p->buf = calloc(1, bytes);
            if (p->buf == NULL) {
                odbc_stmt_free(s);
                return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
            }
            p->cap = bytes;
        }
        p->ind = SQL_NULL_DATA;
        if ((st = bind_param(c, s, i)) != SBD_OK) {
            odbc_stmt_free(s);
            return st;
        }
    }
    sbc_link_add(&c->stmts, &s->link);
    *out = s;
    return SBD_OK;
}

/* Copies one parameter value into its bound buffer; grows the buffer and
 * rebinds only when a longer string arrives. */
static int set_param(sbd_conn *c, sbd_stmt *s, int i, const struct sbd_value *v)
{
    struct odbc_param *p = &s->params[i];
    if (v->is_null || v->type == SBD_TYPE_NULL) {
        p->ind = SQL_NULL_DATA;
        return SBD_OK;
    }
    if (p->ctype == SQL_C_SBIGINT) {
        p->i = v->type == SBD_TYPE_DOUBLE ? (SQLBIGINT)v->d : (SQLBIGINT)v->i;
        p->ind = 0;
        return SBD_OK;
    }
    if (p->ctype == SQL_C_DOUBLE) {
        p->d = v->type == SBD_TYPE_INT ? (double)v->i : v->d;
        p->ind = 0;
        return SBD_OK;
    }
    size_t len = v->s ? v->len : 0;
    if (len + 1 > p->cap) {
        char *nb = sbc_grow(p->buf, &p->cap, len + 1, 1, ODBC_STR_INIT);
        if (nb == NULL)
            return odbc_set_error(&c->err, SBD_ERROR, "out of memory");
        p->buf = nb;
        int st = bind_param(c, s, i);
        if (st != SBD_OK)
            return st;
    }
    if (len > 0)
        memcpy(p->buf, v->s, len);
    p->buf[len] = 0;
    p->ind = (SQLLEN)len;
    return SBD_OK;
}

int odbc_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                 int nparams, struct sbd_result_info *info)
{
    odbc_close_cursor(c);
    if (nparams != s->nparams) {
        info->affected_rows = -1;
        info->nrows = 0;
        info->nfields = 0;
        return sbc_error(&c->err, SBD_ERROR, 0, NULL, NULL,
                         "execute: %d parameters given, the statement has %d",
                         nparams, s->nparams);
    }
    for (int i = 0; i < nparams; i++) {
        int st = set_param(c, s, i, &params[i]);
        if (st != SBD_OK)
            return st;
    }
    SQLRETURN rc = SQLExecute(s->h);
    return finish_exec(c, s->h, rc, s, info);
}

void odbc_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    if (c->cur == s->h)
        odbc_close_cursor(c);
    sbc_link_remove(&c->stmts, &s->link);
    odbc_stmt_free(s);
}

