/*
 * Prepared statements of the connection facade for the binding (see
 * db.h): made from their texts, their parameters created, bound and set,
 * lazy preparation on the driver (at the first execute, when the parameter
 * types are known; again after a reconnect), what the binding keeps of one,
 * and closing.  Above db.c (it waits for a connection's statements in
 * flight before a driver statement is closed); what a statement puts on
 * the wire is db_sql.c's, and running it is sb_conn_submit's (db.c).
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

void sb_stmt_close(struct sb_stmt *s)
{
    if (s == NULL)
        return;
    sb_conn_quiesce(s->c, s);
    sb_stmt_free(s);
}

int sb_stmt_nparams(const struct sb_stmt *s) { return s->nparams; }
int sb_stmt_ncreated(const struct sb_stmt *s) { return s->ncreated; }
struct sbd_value *sb_stmt_param(struct sb_stmt *s, int slot) { return &s->vals[slot]; }
size_t sb_stmt_param_maxlen(const struct sb_stmt *s, int slot) { return s->maxlen[slot]; }

struct sb_req sb_stmt_request(struct sb_stmt *s)
{
    struct sb_req r = {NULL, 0, s, SB_TXN_NONE, s->kind, 0};
    return r;
}
