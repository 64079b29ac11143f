/*
 * What a statement puts on the wire (see db.h): its placeholders counted,
 * its values in placeholder order, its text with the values as literals
 * (--db-ps-mode=disable, or a driver that declines to prepare), its driver
 * statement prepared and freed, and the growable buffers the texts live in.
 * The lowest file of the connection facade: db.c (the statement path) and
 * db_stmt.c (the statements' life for the binding) call it; it calls
 * neither, and never waits for the connection.
 */
#include "db_int.h"
#include "../lib/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_db_grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    char *p = realloc(*buf, n);
    if (p == NULL)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

int sb_count_placeholders(const char *sql, size_t len)
{
    int n = 0;
    char quote = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = sql[i];
        if (quote) {
            if (ch == quote)
                quote = 0;
        } else if (ch == '\'' || ch == '"' || ch == '`') {
            quote = ch;
        } else if (ch == '?') {
            n++;
        }
    }
    return n;
}

int sb_stmt_driver_prepare(struct sb_stmt *s)
{
    struct sb_conn *c = s->c;
    s->ds = NULL;
    int rc = c->drv->prepare(c->dc, s->sql, s->sql_len, s->nparams, s->types, &s->ds);
    if (rc == SBD_UNSUPPORTED) {
        s->ds = NULL;
        s->declined = 1; /* emulated from now on */
        return SBD_OK;
    }
    if (rc != SBD_OK) {
        c->err = *c->drv->last_error(c->dc);
        c->err.status = rc;
        c->err_sql = s->sql;
        c->err_sql_len = s->sql_len;
    }
    return rc;
}

const struct sbd_value *sb_stmt_values(struct sb_stmt *s)
{
    if (s->identity)
        return s->vals;
    for (int i = 0; i < s->nparams; i++)
        s->ordered[i] = s->vals[s->order[i]];
    return s->ordered;
}

/* Bytes as a hex literal: '\\x..'::bytea on PostgreSQL, X'..' elsewhere
 * (MySQL, SQLite, DB2 and the SQL standard's binary string literal). */
static size_t append_hex_literal(struct sb_conn *c, char *o, const struct sbd_value *v)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *dialect = c->drv->dialect != NULL ? c->drv->dialect(c->dc) : NULL;
    int pg = dialect != NULL && strcmp(dialect, "postgresql") == 0;
    size_t n = 0;
    if (pg) {
        memcpy(o, "'\\x", 3);
        n = 3;
    } else {
        memcpy(o, "X'", 2);
        n = 2;
    }
    for (size_t i = 0; i < v->len; i++) {
        unsigned char b = (unsigned char)v->s[i];
        o[n++] = hex[b >> 4];
        o[n++] = hex[b & 15];
    }
    o[n++] = '\'';
    if (pg) {
        memcpy(o + n, "::bytea", 7);
        n += 7;
    }
    return n;
}

int sb_db_append_literal(struct sb_conn *c, size_t *pos, const struct sbd_value *v)
{
    if (sb_db_grow(&c->sql, &c->sql_cap,
                   *pos + 64 + (v->type >= SBD_TYPE_STRING ? v->len * 2 + 2 : 0)) != 0)
        return -1;
    char *o = c->sql + *pos;
    if (v->is_null || v->type == SBD_TYPE_NULL) {
        memcpy(o, "NULL", 4);
        *pos += 4;
    } else if (v->type == SBD_TYPE_INT) {
        *pos += sbc_i64_to_text(v->i, o);
    } else if (v->type == SBD_TYPE_DOUBLE) {
        *pos += (size_t)snprintf(o, 40, "%.17g", v->d);
    } else if (v->type == SBD_TYPE_BYTES) {
        *pos += append_hex_literal(c, o, v);
    } else {
        int bs = (c->drv->caps & SBD_CAP_BACKSLASH_ESC) != 0;
        size_t n = 0;
        o[n++] = '\'';
        for (size_t i = 0; i < v->len; i++) {
            char ch = v->s[i];
            if (ch == '\'' || (bs && ch == '\\'))
                o[n++] = ch;
            o[n++] = ch;
        }
        o[n++] = '\'';
        *pos += n;
    }
    return 0;
}

long sb_stmt_build_literal(struct sb_stmt *s, const struct sbd_value *vals)
{
    struct sb_conn *c = s->c;
    size_t pos = 0;
    int p = 0;
    char quote = 0;
    for (size_t i = 0; i < s->sql_len; i++) {
        char ch = s->sql[i];
        if (quote) {
            if (ch == quote)
                quote = 0;
        } else if (ch == '\'' || ch == '"' || ch == '`') {
            quote = ch;
        } else if (ch == '?' && p < s->nparams) {
            if (sb_db_append_literal(c, &pos, &vals[p++]) != 0)
                return -1;
            continue;
        }
        if (sb_db_grow(&c->sql, &c->sql_cap, pos + 2) != 0)
            return -1;
        c->sql[pos++] = ch;
    }
    return (long)pos;
}

void sb_stmt_free(struct sb_stmt *s)
{
    if (s == NULL)
        return;
    struct sb_conn *c = s->c;
    if (s->ds && c->dc)
        c->drv->close_stmt(c->dc, s->ds);
    for (int i = 0; i < c->nstmts; i++)
        if (c->stmts[i] == s) {
            c->stmts[i] = c->stmts[--c->nstmts];
            break;
        }
    for (int i = 0; i < s->nparams; i++)
        free(s->strbuf[i]);
    free(s->sql); free(s->types); free(s->vals); free(s->strbuf); free(s->strcap);
    free(s->maxlen); free(s->order); free(s->ordered);
    free(s);
}
