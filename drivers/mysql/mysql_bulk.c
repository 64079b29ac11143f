/*
 * mysql driver: bulk load for `prepare` as multi-row
 * INSERT INTO t (cols) VALUES (...),(...) statements built in one
 * connection-owned buffer of a few MiB (kept below the server's
 * max_allowed_packet), flushed whenever the next row would not fit.
 * Strings are escaped with mysql_real_escape_string straight into the
 * buffer, unless they are plain ASCII (copied as they are); integers are
 * written by hand.
 */
#include "mysql_int.h"
#include "../common/buf.h"
#include "../../lib/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BULK_TARGET ((size_t)256 << 10)   /* bytes per INSERT statement */
#define PACKET_SLACK 1024               /* headroom below max_allowed_packet */
#define MAX_NUM_TEXT 40                 /* an int64 or a %.17g double */

/* 1 when s is printable ASCII without quotes or backslashes: such a
 * string needs no escaping whatever the connection's character set. */
static int plain_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch >= 0x7f || ch == '\'' || ch == '"' || ch == '\\')
            return 0;
    }
    return 1;
}

/* Grows the buffer to hold at least `need` bytes; 0 or -1. */
static int reserve(sbd_conn *c, size_t need)
{
    char *nb = sbc_grow(c->bulk_buf, &c->bulk_cap, need, 1, 4096);
    if (nb == NULL)
        return -1;
    c->bulk_buf = nb;
    return 0;
}

static void append(sbd_conn *c, const char *s, size_t n)
{
    memcpy(c->bulk_buf + c->bulk_len, s, n);
    c->bulk_len += n;
}

/* max_allowed_packet of the session, or 0 if it cannot be read; *infile
 * is set when the server accepts LOAD DATA LOCAL. */
static size_t max_packet(sbd_conn *c, int *infile)
{
    static const char sql[] = "SELECT @@max_allowed_packet, @@local_infile";
    *infile = 0;
    if (mysql_real_query(c->mysql, sql, sizeof sql - 1) != 0)
        return 0;
    MYSQL_RES *res = mysql_store_result(c->mysql);
    if (res == NULL)
        return 0;
    size_t v = 0;
    MYSQL_ROW r = mysql_fetch_row(res);
    if (r != NULL && r[0] != NULL)
        v = (size_t)strtoull(r[0], NULL, 10);
    if (r != NULL && r[1] != NULL)
        *infile = strcmp(r[1], "1") == 0 || strcasecmp(r[1], "ON") == 0;
    mysql_free_result(res);
    return v;
}

/* ---- LOAD DATA LOCAL from memory ---- */

static int ld_init(void **ptr, const char *filename, void *userdata)
{
    (void)filename;
    sbd_conn *c = userdata;
    *ptr = c;
    return c->ld_active ? 0 : 1;
}

static int ld_read(void *ptr, char *buf, unsigned int len)
{
    sbd_conn *c = ptr;
    size_t left = c->bulk_len - c->ld_pos;
    size_t n = left < len ? left : len;
    memcpy(buf, c->bulk_buf + c->ld_pos, n);
    c->ld_pos += n;
    return (int)n;
}

static void ld_end(void *ptr) { (void)ptr; }

static int ld_error(void *ptr, char *msg, unsigned int len)
{
    sbd_conn *c = ptr;
    snprintf(msg, len, "%s", c->ld_active ? "LOAD DATA read error"
                                          : "sbench does not send files: LOAD DATA LOCAL refused");
    return 2000; /* CR_UNKNOWN_ERROR */
}

void myd_bulk_attach(sbd_conn *c)
{
    mysql_set_local_infile_handler(c->mysql, ld_init, ld_read, ld_end, ld_error, c);
}

int myd_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                    const int *types, int ncolumns)
{
    if (c->bulk_active)
        return myd_fail(c, "mysql: bulk_begin while a bulk load is active");
    if (ncolumns <= 0)
        return myd_fail(c, "mysql: bulk_begin needs at least one column");
    myd_release_result(c);
    int infile;
    size_t packet = max_packet(c, &infile);
    if (packet == 0)
        return myd_conn_fail(c);
    c->bulk_ld = infile && myd_cfg.load_data;
    c->bulk_limit = BULK_TARGET;
    if (packet > 2 * PACKET_SLACK && packet - PACKET_SLACK < c->bulk_limit)
        c->bulk_limit = packet - PACKET_SLACK;

    int *nt = realloc(c->bulk_types, (size_t)ncolumns * sizeof *nt);
    if (nt == NULL)
        return myd_fail(c, "mysql: out of memory");
    c->bulk_types = nt;
    memcpy(nt, types, (size_t)ncolumns * sizeof *nt);
    c->bulk_ncols = ncolumns;

    size_t plen = strlen("INSERT INTO  () VALUES ") + strlen(table);
    for (int i = 0; i < ncolumns; i++)
        plen += strlen(columns[i]) + 1;
    if (reserve(c, plen + c->bulk_limit) != 0)
        return myd_fail(c, "mysql: out of memory for the bulk buffer");
    c->bulk_len = 0;
    if (c->bulk_ld) {
        /* the buffer holds tab-separated rows; the statement stays apart */
        free(c->ld_sql);
        c->ld_sql = malloc(plen + 64);
        if (c->ld_sql == NULL)
            return myd_fail(c, "mysql: out of memory");
        size_t n = (size_t)sprintf(c->ld_sql, "LOAD DATA LOCAL INFILE 'sbench-bulk' INTO TABLE %s (",
                                   table);
        for (int i = 0; i < ncolumns; i++)
            n += (size_t)sprintf(c->ld_sql + n, "%s%s", i ? "," : "", columns[i]);
        strcpy(c->ld_sql + n, ")");
        c->bulk_prefix_len = 0;
        c->bulk_rows = 0;
        c->bulk_active = 1;
        return SBD_OK;
    }
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
    if (c->bulk_ld) {
        c->ld_pos = 0;
        c->ld_active = 1;
        if (mysql_real_query(c->mysql, c->ld_sql, (unsigned long)strlen(c->ld_sql)) != 0)
            rc = myd_conn_fail(c);
        c->ld_active = 0;
    } else if (mysql_real_query(c->mysql, c->bulk_buf, (unsigned long)c->bulk_len) != 0) {
        rc = myd_conn_fail(c);
    }
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
        return sbc_i64_to_text((int64_t)d, p);
    int n = snprintf(p, MAX_NUM_TEXT, "%.17g", d);
    return n > 0 ? (size_t)n : 0;
}

/* Writes a string for LOAD DATA's default text format at p: backslash
 * escapes for the characters that would end a field or a line. */
static char *put_ld_string(const char *s, size_t len, char *p)
{
    for (size_t k = 0; k < len; k++) {
        char ch = s[k];
        switch (ch) {
        case '\\': *p++ = '\\'; *p++ = '\\'; break;
        case '\t': *p++ = '\\'; *p++ = 't'; break;
        case '\n': *p++ = '\\'; *p++ = 'n'; break;
        case '\r': *p++ = '\\'; *p++ = 'r'; break;
        case '\0': *p++ = '\\'; *p++ = '0'; break;
        default: *p++ = ch;
        }
    }
    return p;
}

int myd_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    if (!c->bulk_active)
        return myd_fail(c, "mysql: bulk_row without bulk_begin");
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
        return myd_fail(c, "mysql: out of memory for the bulk buffer");
    /* Two formats: a VALUES tuple of SQL literals, or a line of LOAD
     * DATA's default text format (tab between fields, \N for NULL). */
    int ld = c->bulk_ld;
    char *p = c->bulk_buf + c->bulk_len;
    if (!ld) {
        if (c->bulk_rows > 0)
            *p++ = ',';
        *p++ = '(';
    }
    for (int i = 0; i < c->bulk_ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (i > 0)
            *p++ = ld ? '\t' : ',';
        if (v->is_null || v->type == SBD_TYPE_NULL) {
            memcpy(p, ld ? "\\N" : "NULL", ld ? 2 : 4);
            p += ld ? 2 : 4;
        } else if (v->type == SBD_TYPE_INT) {
            p += sbc_i64_to_text(v->i, p);
        } else if (v->type == SBD_TYPE_DOUBLE) {
            size_t n = double_to_text(v->d, p);
            if (n == 0)
                return myd_fail(c, "mysql: bulk_row: NaN or infinity cannot be stored");
            p += n;
        } else if (v->s != NULL && plain_ascii(v->s, v->len)) {
            /* the common case (sbench's own random strings): nothing to
             * escape in either format or any character set */
            if (!ld)
                *p++ = '\'';
            memcpy(p, v->s, v->len);
            p += v->len;
            if (!ld)
                *p++ = '\'';
        } else if (ld) {
            p = put_ld_string(v->s != NULL ? v->s : "", v->s != NULL ? v->len : 0, p);
        } else {
            *p++ = '\'';
            unsigned long n = mysql_real_escape_string(c->mysql, p,
                                                       v->s != NULL ? v->s : "",
                                                       (unsigned long)(v->s != NULL ? v->len : 0));
            if (n == (unsigned long)-1)
                return myd_conn_fail(c);
            p += n;
            *p++ = '\'';
        }
    }
    *p++ = ld ? '\n' : ')';
    c->bulk_len = (size_t)(p - c->bulk_buf);
    c->bulk_rows++;
    return SBD_OK;
}

int myd_bulk_end(sbd_conn *c)
{
    if (!c->bulk_active)
        return myd_fail(c, "mysql: bulk_end without bulk_begin");
    int rc = flush(c);
    c->bulk_active = 0;
    return rc;
}

void myd_bulk_free(sbd_conn *c)
{
    free(c->bulk_buf);
    free(c->bulk_types);
    free(c->ld_sql);
    c->bulk_buf = NULL;
    c->bulk_types = NULL;
    c->ld_sql = NULL;
    c->bulk_cap = c->bulk_len = 0;
    c->bulk_active = 0;
}
