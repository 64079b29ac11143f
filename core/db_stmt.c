/*
 * Prepared statements of the connection facade (see db.h): their texts,
 * parameters and values, lazy preparation on the driver (at the first
 * execute, when the parameter types are known; again after a reconnect),
 * and the literal SQL that emulates them (--db-ps-mode=disable, or a driver
 * that declines to prepare).  Running a statement is sb_conn_submit's job
 * (db.c).
 */
#include "db_int.h"
#include "../lib/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the driver's prepare takes no parameter types (SBD_CAP_UNTYPED_PREPARE). */
static int untyped(const struct sb_stmt *s)
{
    return (s->c->drv->caps & SBD_CAP_UNTYPED_PREPARE) != 0;
}

/* A statement without placeholders is prepared on the driver now, so that
 * one the server cannot prepare (a missing table, a syntax error) fails at
 * con:prepare, as on sysbench's MySQL driver; so is one with placeholders
 * when the driver's prepare takes no types (MySQL: sysbench fails there,
 * at thread_init).  Otherwise one with placeholders waits for its first
 * execute, when the parameter types are known (bind_create comes after
 * prepare): preparing it with guessed types would prepare most statements
 * twice (the server's counters show each Parse/Close), so its errors
 * surface at the first execute, with its text, as on sysbench's PostgreSQL
 * driver.  Those whose types thread_init bound are prepared at its end,
 * before the clock starts (sb_conn_list_prepare_ready).  SBD_OK, or the
 * error (c->err). */
static int prepare_now(struct sb_stmt *s)
{
    if ((s->nparams > 0 && !untyped(s)) || !sb_stmt_needs_prepare(s))
        return SBD_OK;
    return sb_stmt_driver_prepare(s);
}

struct sb_stmt *sb_stmt_prepare(struct sb_conn *c, const char *sql, size_t len)
{
    struct sb_stmt *s = calloc(1, sizeof *s);
    if (s == NULL)
        goto oom;
    s->c = c;
    s->sql = malloc(len + 1);
    s->nparams = sb_count_placeholders(sql, len);
    int n = s->nparams > 0 ? s->nparams : 1;
    s->types = calloc((size_t)n, sizeof *s->types);
    s->vals = calloc((size_t)n, sizeof *s->vals);
    s->strbuf = calloc((size_t)n, sizeof *s->strbuf);
    s->strcap = calloc((size_t)n, sizeof *s->strcap);
    s->maxlen = calloc((size_t)n, sizeof *s->maxlen);
    s->order = calloc((size_t)n, sizeof *s->order);
    s->ordered = calloc((size_t)n, sizeof *s->ordered);
    if (!s->sql || !s->types || !s->vals || !s->strbuf || !s->strcap || !s->maxlen || !s->order ||
        !s->ordered)
        goto oom;
    if (c->nstmts == c->stmts_cap) {
        int ncap = c->stmts_cap ? c->stmts_cap * 2 : 16;
        struct sb_stmt **p = realloc(c->stmts, (size_t)ncap * sizeof *p);
        if (p == NULL)
            goto oom;
        c->stmts = p;
        c->stmts_cap = ncap;
    }
    memcpy(s->sql, sql, len);
    s->sql[len] = 0;
    s->sql_len = len;
    s->kind = sb_classify_sql(sql, len);
    s->named = -1;
    s->identity = 1;
    for (int i = 0; i < s->nparams; i++) {
        s->order[i] = i;
        s->types[i] = SBD_TYPE_INT;
        s->vals[i].type = SBD_TYPE_INT;
        s->vals[i].is_null = 1;
    }
    c->stmts[c->nstmts++] = s;
    if (prepare_now(s) != SBD_OK) {
        sb_stmt_close(s); /* frees s->sql: the error quotes the caller's text */
        c->err_sql = sql;
        c->err_sql_len = len;
        return NULL;
    }
    return s;
oom:
    if (s) {
        free(s->sql); free(s->types); free(s->vals); free(s->strbuf); free(s->strcap);
        free(s->maxlen); free(s->order); free(s->ordered); free(s);
    }
    memset(&c->err, 0, sizeof c->err);
    c->err.status = SBD_ERROR;
    snprintf(c->err.message, sizeof c->err.message, "out of memory");
    return NULL;
}

int sb_stmt_set_name(struct sb_stmt *s, const char *name)
{
    s->named = sb_stats_named_slot(s->c->stats, name);
    return s->named >= 0 ? 0 : -1;
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

/* The driver statement no longer matches the parameter types: it is
 * closed and prepared again at the next execute. */
static void forget_driver_stmt(struct sb_stmt *s)
{
    struct sb_conn *c = s->c;
    if (untyped(s)) /* the types go with each execute */
        return;
    if (s->ds && c->dc) {
        sb_conn_drain(c);
        c->drv->close_stmt(c->dc, s->ds);
    }
    s->ds = NULL;
}

int sb_stmt_param_create(struct sb_stmt *s, int type, size_t maxlen)
{
    if (s->ncreated >= s->nparams)
        return -1;
    int k = s->ncreated++;
    if (type == SBD_TYPE_BYTES && s->c->drv->abi_minor < 3)
        type = SBD_TYPE_STRING; /* a driver older than ABI 1.3 knows no BYTES */
    s->types[k] = type;
    s->vals[k].type = type;
    s->vals[k].is_null = 1;
    if (type == SBD_TYPE_STRING || type == SBD_TYPE_BYTES)
        s->maxlen[k] = maxlen;
    if (type == SBD_TYPE_STRING || type >= SBD_TYPE_TIME) {
        size_t cap = maxlen > 0 ? maxlen : 64;
        if (sb_db_grow(&s->strbuf[k], &s->strcap[k], cap) != 0)
            return -1;
        s->vals[k].s = s->strbuf[k];
    }
    forget_driver_stmt(s);
    return k;
}

int sb_stmt_bind(struct sb_stmt *s, const int *order, int n)
{
    if (n > s->nparams)
        return -1;
    for (int i = 0; i < n; i++)
        if (order[i] < 0 || order[i] >= s->ncreated)
            return -1;
    s->identity = 1;
    int types_changed = 0;
    for (int i = 0; i < n; i++) {
        s->order[i] = order[i];
        if (order[i] != i)
            s->identity = 0;
        /* placeholder types follow the bound parameters */
        int t = s->vals[order[i]].type;
        if (s->types[i] != t) {
            s->types[i] = t;
            types_changed = 1;
        }
    }
    if (types_changed)
        forget_driver_stmt(s);
    s->bound = 1;
    return 0;
}

void sb_conn_list_prepare_ready(struct sb_conn_list *l)
{
    for (int i = 0; i < l->n; i++) {
        struct sb_conn *c = l->c[i];
        for (int k = 0; k < c->nstmts; k++) {
            struct sb_stmt *s = c->stmts[k];
            int ready = s->nparams == 0 || (s->ncreated >= s->nparams && s->bound);
            if (ready && sb_stmt_needs_prepare(s) && sb_stmt_driver_prepare(s) != SBD_OK) {
                s->ds = NULL; /* again at its first execute, which reports it */
                c->err_sql = NULL;
            }
        }
    }
}

char *sb_stmt_str_buf(struct sb_stmt *s, int slot, size_t len)
{
    if (sb_db_grow(&s->strbuf[slot], &s->strcap[slot], len + 1) != 0)
        return NULL;
    s->vals[slot].s = s->strbuf[slot];
    return s->strbuf[slot];
}

void sb_stmt_set_len(struct sb_stmt *s, int slot, size_t len)
{
    s->vals[slot].len = len;
    s->vals[slot].is_null = 0;
}

int sb_stmt_set_str(struct sb_stmt *s, int slot, const char *v, size_t len)
{
    if (s->maxlen[slot] > 0 && len > s->maxlen[slot])
        len = s->maxlen[slot];
    char *b = sb_stmt_str_buf(s, slot, len);
    if (b == NULL)
        return -1;
    memcpy(b, v, len);
    b[len] = 0;
    sb_stmt_set_len(s, slot, len);
    return 0;
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

void sb_stmt_close(struct sb_stmt *s)
{
    if (s == NULL)
        return;
    struct sb_conn *c = s->c;
    if (s->ds && c->dc) {
        sb_conn_drain(c);
        sb_conn_free_result(c);
        c->drv->close_stmt(c->dc, s->ds);
    }
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
