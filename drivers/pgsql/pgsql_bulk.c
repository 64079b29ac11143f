/*
 * pgsql driver: bulk load for `prepare` through COPY table (cols) FROM STDIN
 * in text format.  Rows are encoded into a per-connection buffer of about
 * 1 MiB (grown only for a row larger than that) and sent with
 * PQputCopyData when it is full; bulk_end sends the rest, ends the COPY and
 * reports the server's verdict (constraint errors surface there).
 */
#include "pgsql_int.h"
#include "../../lib/text.h"

#include <stdlib.h>
#include <string.h>

#define COPY_BUF_SIZE (1u << 20)

/* Appends s[0..len) escaped for COPY text format at p, which must have
 * room for 2 * len bytes; returns the new end (inside the same buffer). */
static char *put_escaped(char *p, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        switch (ch) {
        case '\\': *p++ = '\\'; *p++ = '\\'; break;
        case '\t': *p++ = '\\'; *p++ = 't'; break;
        case '\n': *p++ = '\\'; *p++ = 'n'; break;
        case '\r': *p++ = '\\'; *p++ = 'r'; break;
        default: *p++ = ch;
        }
    }
    return p;
}

static int is_null(const struct sbd_value *v)
{
    return v->is_null || v->type == SBD_TYPE_NULL;
}

/* Sends what is buffered; on failure leaves COPY state and returns the
 * error status. */
static int flush(sbd_conn *c)
{
    if (c->copy_len == 0)
        return SBD_OK;
    if (PQputCopyData(c->pg, c->copy_buf, (int)c->copy_len) != 1) {
        int st = pgd_error(c, NULL);
        struct sbd_error keep = c->err;
        pgd_copy_abort(c, "client failed to send data");
        c->err = keep;
        return st;
    }
    c->copy_len = 0;
    return SBD_OK;
}

int pgd_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                   const int *types, int ncolumns)
{
    (void)types; /* each value carries its type */
    pgd_clear_result(c);
    pgd_sock_blocking(c, 0);
    if (c->in_copy)
        return pgd_fail(c, "bulk_begin: a bulk load is already in progress");
    if (ncolumns <= 0 || table == NULL || columns == NULL)
        return pgd_fail(c, "bulk_begin: no table or columns");
    size_t len = strlen(table) + 40;
    for (int i = 0; i < ncolumns; i++)
        len += strlen(columns[i]) + 2;
    char *sql = malloc(len);
    if (sql == NULL)
        return pgd_fail(c, "out of memory");
    char *p = sql;
    memcpy(p, "COPY ", 5), p += 5;
    size_t n = strlen(table);
    memcpy(p, table, n), p += n;
    *p++ = ' ';
    *p++ = '(';
    for (int i = 0; i < ncolumns; i++) {
        if (i > 0)
            *p++ = ',', *p++ = ' ';
        n = strlen(columns[i]);
        memcpy(p, columns[i], n), p += n;
    }
    memcpy(p, ") FROM STDIN", 13);

    if (c->copy_buf == NULL) {
        c->copy_buf = malloc(COPY_BUF_SIZE);
        if (c->copy_buf == NULL) {
            free(sql);
            return pgd_fail(c, "out of memory for the COPY buffer");
        }
        c->copy_cap = COPY_BUF_SIZE;
    }
    PGresult *res = pgd_pq_exec(c, sql);
    free(sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        int st = PQresultStatus(res) == PGRES_FATAL_ERROR
                 ? pgd_error(c, res) : pgd_fail(c, "bulk_begin: COPY did not start");
        PQclear(res);
        return st;
    }
    PQclear(res);
    c->in_copy = 1;
    c->copy_ncols = ncolumns;
    c->copy_len = 0;
    return SBD_OK;
}

int pgd_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    if (!c->in_copy)
        return pgd_fail(c, "bulk_row: no bulk load in progress");
    size_t need = 1;
    for (int i = 0; i < c->copy_ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (is_null(v))
            need += 3;
        else if (v->type == SBD_TYPE_INT || v->type == SBD_TYPE_DOUBLE)
            need += PGD_NUM_MAX + 1;
        else
            need += 2 * v->len + 1;
    }
    if (c->copy_len + need > c->copy_cap) {
        int st = flush(c);
        if (st != SBD_OK)
            return st;
        if (need > c->copy_cap) {
            char *b = realloc(c->copy_buf, need);
            if (b == NULL) {
                pgd_copy_abort(c, "client out of memory");
                return pgd_fail(c, "out of memory for a bulk load row");
            }
            c->copy_buf = b;
            c->copy_cap = need;
        }
    }
    char *p = c->copy_buf + c->copy_len;
    for (int i = 0; i < c->copy_ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (i > 0)
            *p++ = '\t';
        if (is_null(v)) {
            *p++ = '\\';
            *p++ = 'N';
        } else if (v->type == SBD_TYPE_INT) {
            p += sbc_i64_to_text(v->i, p);
        } else if (v->type == SBD_TYPE_DOUBLE) {
            p += pgd_fmt_double(p, v->d);
        } else {
            p = put_escaped(p, v->s, v->len);
        }
    }
    *p++ = '\n';
    c->copy_len = (size_t)(p - c->copy_buf);
    return SBD_OK;
}

int pgd_bulk_end(sbd_conn *c)
{
    if (!c->in_copy)
        return pgd_fail(c, "bulk_end: no bulk load in progress");
    int st = flush(c);
    if (st != SBD_OK)
        return st;
    c->in_copy = 0;
    pgd_pq_deadline(c);
    if (PQputCopyEnd(c->pg, NULL) != 1) {
        st = pgd_error(c, NULL);
        PGresult *r;
        while ((r = pgd_pq_get(c)) != NULL)
            PQclear(r);
        return st;
    }
    st = SBD_OK;
    PGresult *res;
    while ((res = pgd_pq_get(c)) != NULL) {
        if (st == SBD_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
            st = pgd_error(c, res);
        PQclear(res);
    }
    /* libpq may have noticed a dead connection only now */
    if (st == SBD_OK && PQstatus(c->pg) == CONNECTION_BAD)
        st = pgd_error(c, NULL);
    return st;
}

void pgd_copy_free(sbd_conn *c)
{
    free(c->copy_buf);
    c->copy_buf = NULL;
    c->copy_len = c->copy_cap = 0;
    c->in_copy = 0;
}
