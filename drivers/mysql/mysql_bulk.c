/*
 * mysql driver: bulk load for `prepare` as multi-row
 * INSERT INTO t (cols) VALUES (...),(...) statements built in one
 * connection-owned buffer of a few MiB (kept below the server's
 * max_allowed_packet), flushed whenever the next row would not fit.
 * Strings are escaped with mysql_real_escape_string straight into the
 * buffer; integers are written by hand.
 */
#include "mysql_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BULK_TARGET ((size_t)256 << 10)   /* bytes per INSERT statement */
#define PACKET_SLACK 1024               /* headroom below max_allowed_packet */
#define MAX_NUM_TEXT 40                 /* an int64 or a %.17g double */

/* Grows the buffer to hold at least `need` bytes; 0 or -1. */
static int reserve(sbd_conn *c, size_t need)
{
    if (need <= c->bulk_cap)
        return 0;
    size_t cap = c->bulk_cap > 0 ? c->bulk_cap : 4096;
    while (cap < need)
        cap *= 2;
    char *nb = realloc(c->bulk_buf, cap);
    if (nb == NULL)
        return -1;
    c->bulk_buf = nb;
    c->bulk_cap = cap;
    return 0;
}

static void append(sbd_conn *c, const char *s, size_t n)
{
    memcpy(c->bulk_buf + c->bulk_len, s, n);
    c->bulk_len += n;
}

/* max_allowed_packet of the session, or 0 if it cannot be read. */
static size_t max_packet(sbd_conn *c)
{
    static const char sql[] = "SELECT @@max_allowed_packet";
    if (mysql_real_query(c->mysql, sql, sizeof sql - 1) != 0)
        return 0;
    MYSQL_RES *res = mysql_store_result(c->mysql);
    if (res == NULL)
        return 0;
    size_t v = 0;
    MYSQL_ROW r = mysql_fetch_row(res);
    if (r != NULL && r[0] != NULL)
        v = (size_t)strtoull(r[0], NULL, 10);
    mysql_free_result(res);
    return v;
}

int sbmy_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                    const int *types, int ncolumns)
{
    if (c->bulk_active)
        return sbmy_fail(c, "mysql: bulk_begin while a bulk load is active");
    if (ncolumns <= 0)
        return sbmy_fail(c, "mysql: bulk_begin needs at least one column");
    sbmy_release_result(c);
    size_t packet = max_packet(c);
    if (packet == 0)
        return sbmy_conn_fail(c);
    c->bulk_limit = BULK_TARGET;
    if (packet > 2 * PACKET_SLACK && packet - PACKET_SLACK < c->bulk_limit)
        c->bulk_limit = packet - PACKET_SLACK;

    int *nt = realloc(c->bulk_types, (size_t)ncolumns * sizeof *nt);
    if (nt == NULL)
        return sbmy_fail(c, "mysql: out of memory");
    c->bulk_types = nt;
    memcpy(nt, types, (size_t)ncolumns * sizeof *nt);
    c->bulk_ncols = ncolumns;

    size_t plen = strlen("INSERT INTO  () VALUES ") + strlen(table);
    for (int i = 0; i < ncolumns; i++)
        plen += strlen(columns[i]) + 1;
    if (reserve(c, plen + c->bulk_limit) != 0)
        return sbmy_fail(c, "mysql: out of memory for the bulk buffer");
    c->bulk_len = 0;
    append(c, "INSERT INTO ", 12);
    append(c, table, strlen(table));
    append(c, " (", 2);
    for (int i = 0; i < ncolumns; i++) {
        if (i > 0)
            append(c, ",", 1);
        append(c, columns[i], strlen(columns[i]));
    }
    append(c, ") VALUES ", 9);
    c->bulk_prefix_len = c->bulk_len;
    c->bulk_rows = 0;
    c->bulk_active = 1;
    return SBD_OK;
}

static int flush(sbd_conn *c)
{
    if (c->bulk_rows == 0)
        return SBD_OK;
    int rc = SBD_OK;
    if (mysql_real_query(c->mysql, c->bulk_buf, (unsigned long)c->bulk_len) != 0)
        rc = sbmy_conn_fail(c);
    c->bulk_len = c->bulk_prefix_len;
    c->bulk_rows = 0;
    return rc;
}

/* Writes d as SQL text at p (room for MAX_NUM_TEXT); bytes written, or 0
 * for NaN and infinities, which SQL cannot hold. */
static size_t double_to_text(double d, char *p)
{
    if (!isfinite(d))
        return 0;
    if (d == floor(d) && fabs(d) < 1e15)
        return sbmy_i64_to_text((int64_t)d, p);
    int n = snprintf(p, MAX_NUM_TEXT, "%.17g", d);
    return n > 0 ? (size_t)n : 0;
}

int sbmy_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    if (!c->bulk_active)
        return sbmy_fail(c, "mysql: bulk_row without bulk_begin");
    size_t need = 3;   /* ",(" and ")" */
    for (int i = 0; i < c->bulk_ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (v->is_null || v->type == SBD_TYPE_NULL)
            need += 5;
        else if (v->type == SBD_TYPE_INT || v->type == SBD_TYPE_DOUBLE)
            need += MAX_NUM_TEXT + 1;
        else
            need += 2 * v->len + 4;
    }
    if (c->bulk_rows > 0 && c->bulk_len + need > c->bulk_limit) {
        int rc = flush(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (reserve(c, c->bulk_len + need + 1) != 0)
        return sbmy_fail(c, "mysql: out of memory for the bulk buffer");
    char *p = c->bulk_buf + c->bulk_len;
    if (c->bulk_rows > 0)
        *p++ = ',';
    *p++ = '(';
    for (int i = 0; i < c->bulk_ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (i > 0)
            *p++ = ',';
        if (v->is_null || v->type == SBD_TYPE_NULL) {
            memcpy(p, "NULL", 4);
            p += 4;
        } else if (v->type == SBD_TYPE_INT) {
            p += sbmy_i64_to_text(v->i, p);
        } else if (v->type == SBD_TYPE_DOUBLE) {
            size_t n = double_to_text(v->d, p);
            if (n == 0)
                return sbmy_fail(c, "mysql: bulk_row: NaN or infinity cannot be stored");
            p += n;
        } else {
            *p++ = '\'';
            unsigned long n = mysql_real_escape_string(c->mysql, p,
                                                       v->s != NULL ? v->s : "",
                                                       (unsigned long)(v->s != NULL ? v->len : 0));
            if (n == (unsigned long)-1)
                return sbmy_conn_fail(c);
            p += n;
            *p++ = '\'';
        }
    }
    *p++ = ')';
    c->bulk_len = (size_t)(p - c->bulk_buf);
    c->bulk_rows++;
    return SBD_OK;
}

int sbmy_bulk_end(sbd_conn *c)
{
    if (!c->bulk_active)
        return sbmy_fail(c, "mysql: bulk_end without bulk_begin");
    int rc = flush(c);
    c->bulk_active = 0;
    return rc;
}

void sbmy_bulk_free(sbd_conn *c)
{
    free(c->bulk_buf);
    free(c->bulk_types);
    c->bulk_buf = NULL;
    c->bulk_types = NULL;
    c->bulk_cap = c->bulk_len = 0;
    c->bulk_active = 0;
}
