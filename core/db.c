/*
 * Connection facade implementation (see db.h).
 */
#include "db.h"
#include "driver_loader.h"
#include "run.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sbd_driver *drv;
static int emulate_all;
static int64_t bulk_max = 512 * 1024;
static int pipe_depth;   /* --pipeline, 0 when off or the driver cannot */

void sb_db_setup(const struct sbd_driver *d, int emulate_ps, int64_t max_bulk_bytes)
{
    drv = d;
    emulate_all = emulate_ps;
    if (max_bulk_bytes > 0)
        bulk_max = max_bulk_bytes;
}

const struct sbd_driver *sb_db_driver(void) { return drv; }

int sb_db_set_pipeline(int depth)
{
    int can = drv && (drv->caps & SBD_CAP_PIPELINE) && (drv->caps & SBD_CAP_NONBLOCKING) &&
              SB_DRV_HAS(drv, pipeline) && SB_DRV_HAS(drv, poll_result) &&
              SB_DRV_HAS(drv, send_query) && SB_DRV_HAS(drv, send_execute) &&
              SB_DRV_HAS(drv, socket);
    pipe_depth = can && depth > 0 ? depth : 0;
    return pipe_depth;
}

/* Grows *buf to at least need bytes.  Returns 0, or -1 when out of memory
 * (the old buffer stays valid). */
static int grow(char **buf, size_t *cap, size_t need)
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

size_t sb_i64_to_text(int64_t v, char *out)
{
    char tmp[24];
    size_t n = 0, len = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = tmp[--n];
    out[len] = 0;
    return len;
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

static void set_error(struct sb_conn *c, int status, const char *sql, size_t len)
{
    c->cur_named = -1;
    if (c->dc) {
        const struct sbd_error *e = drv->last_error(c->dc);
        c->err = *e;
    } else {
        memset(&c->err, 0, sizeof c->err);
        snprintf(c->err.message, sizeof c->err.message, "not connected");
    }
    c->err.status = status;
    c->err_sql = sql;
    c->err_sql_len = len;
}

struct sb_conn *sb_conn_open(int thread_id, struct sb_thread_stats *stats, struct sbd_error *err)
{
    struct sb_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(err->message, sizeof err->message, "out of memory");
        err->status = SBD_ERROR;
        return NULL;
    }
    c->drv = drv;
    c->thread_id = thread_id;
    c->stats = stats;
    c->emulate_ps = emulate_all;
    c->cur_named = -1;
    memset(err, 0, sizeof *err);
    if (pipe_depth > 0) {
        c->pipe = calloc((size_t)pipe_depth, sizeof *c->pipe);
        if (c->pipe == NULL) {
            snprintf(err->message, sizeof err->message, "out of memory");
            err->status = SBD_ERROR;
            free(c);
            return NULL;
        }
        c->pipe_max = pipe_depth;
    }
    if (drv->connect(thread_id, &c->dc, err) != SBD_OK || c->dc == NULL) {
        if (err->status == SBD_OK)
            err->status = SBD_ERROR;
        free(c->pipe);
        free(c);
        return NULL;
    }
    return c;
}

void sb_conn_close(struct sb_conn *c)
{
    if (c == NULL)
        return;
    while (c->nstmts > 0)
        sb_stmt_close(c->stmts[c->nstmts - 1]);
    if (c->dc) {
        if (c->has_result)
            drv->free_result(c->dc);
        drv->disconnect(c->dc);
    }
    for (int i = 0; i < c->pipe_max; i++)
        free(c->pipe[i].text);
    free(c->pipe);
    free(c->stmts);
    free(c->row);
    free(c->sql);
    free(c->bulk);
    free(c);
}

static int driver_prepare(struct sb_stmt *s)
{
    struct sb_conn *c = s->c;
    s->ds = NULL;
    if (c->emulate_ps)
        return SBD_OK;
    int rc = drv->prepare(c->dc, s->sql, s->sql_len, s->nparams, s->types, &s->ds);
    if (rc == SBD_UNSUPPORTED) {
        s->ds = NULL;
        return SBD_OK; /* emulate this one */
    }
    if (rc != SBD_OK)
        set_error(c, rc, s->sql, s->sql_len);
    return rc;
}

void sb_conn_disconnect(struct sb_conn *c)
{
    if (c->dc) {
        if (c->has_result)
            drv->free_result(c->dc);
        /* the driver frees its statements with the connection: no
         * round trip per statement, and nothing sent to a dead socket */
        for (int i = 0; i < c->nstmts; i++)
            c->stmts[i]->ds = NULL;
        drv->disconnect(c->dc);
        c->dc = NULL;
    }
    c->has_result = 0;
    c->pipe_on = c->pipe_n = c->pipe_head = c->pipe_waiting = 0;
    c->pipe_rc = SBD_OK;
    c->pipe_txn_over = 0;
    c->pending = 0;
}

/* Reopens the driver connection; statements are prepared again lazily, on
 * their next execute, so a reconnect costs only what is used next. */
static int reopen(struct sb_conn *c)
{
    sb_conn_disconnect(c);
    struct sbd_error e;
    memset(&e, 0, sizeof e);
    int64_t t0 = sb_now_ns();
    if (drv->connect(c->thread_id, &c->dc, &e) != SBD_OK || c->dc == NULL) {
        c->dc = NULL;
        c->err = e;
        c->err.status = SBD_CONN_LOST;
        c->err_sql = NULL;
        return SBD_CONN_LOST;
    }
    sb_stats_note_connect(c->stats, sb_now_ns() - t0);
    for (int i = 0; i < c->nstmts; i++)
        c->stmts[i]->ds = NULL;
    return SBD_OK;
}

int sb_conn_reconnect(struct sb_conn *c)
{
    int rc = reopen(c);
    if (rc == SBD_OK)
        SB_ADD(c->stats->reconnects, 1);
    return rc;
}

int sb_conn_reopen(struct sb_conn *c)
{
    return reopen(c);
}

static int ensure_row(struct sb_conn *c, int nfields)
{
    if (nfields <= c->row_cap)
        return 0;
    struct sbd_value *r = realloc(c->row, (size_t)nfields * sizeof *r);
    if (r == NULL)
        return -1;
    c->row = r;
    c->row_cap = nfields;
    return 0;
}

/* Records a statement that succeeded: latency by kind and name, the
 * current result, the count.  SBD_OK, or SBD_ERROR when out of memory. */
static int count_ok(struct sb_conn *c, int kind, int named, int64_t lat)
{
    sb_histogram_record(c->stats->kind_latency[kind], lat);
    if (named >= 0) {
        struct sb_named_stat *ns = &c->stats->named[named];
        sb_histogram_record(ns->latency, lat);
        SB_ADD(ns->count, 1);
    }
    c->has_result = c->info.nfields > 0;
    if (c->has_result && ensure_row(c, c->info.nfields) != 0) {
        drv->free_result(c->dc);
        c->has_result = 0;
        snprintf(c->err.message, sizeof c->err.message, "out of memory");
        return SBD_ERROR;
    }
    SB_ADD(c->stats->queries[kind], 1);
    return SBD_OK;
}

static int after_exec(struct sb_conn *c, int rc, int kind, const char *sql, size_t len,
                      int64_t t0)
{
    c->result_gen++;
    int named = c->cur_named;
    c->cur_named = -1;
    if (rc != SBD_OK) {
        c->has_result = 0;
        set_error(c, rc, sql, len);
        return rc;
    }
    return count_ok(c, kind, named, sb_now_ns() - t0);
}

static int pipe_quiesce(struct sb_conn *c);

static int raw_query(struct sb_conn *c, const char *sql, size_t len, int kind)
{
    if (c->dc == NULL) {
        set_error(c, SBD_CONN_LOST, sql, len);
        return SBD_CONN_LOST;
    }
    if (c->pipe_on) {
        int rc = pipe_quiesce(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (c->has_result) {
        drv->free_result(c->dc);
        c->has_result = 0;
    }
    memset(&c->info, 0, sizeof c->info);
    int64_t t0 = sb_now_ns();
    int rc = drv->query(c->dc, sql, len, &c->info);
    return after_exec(c, rc, kind, sql, len, t0);
}

int sb_conn_query(struct sb_conn *c, const char *sql, size_t len)
{
    return raw_query(c, sql, len, sb_classify_sql(sql, len));
}

int sb_conn_fetch(struct sb_conn *c)
{
    if (!c->has_result || c->dc == NULL)
        return SBD_DONE;
    int rc = drv->fetch_row(c->dc, c->row);
    if (rc != SBD_OK && rc != SBD_DONE)
        set_error(c, rc, NULL, 0);
    return rc;
}

void sb_conn_free_result(struct sb_conn *c)
{
    if (c->has_result && c->dc)
        drv->free_result(c->dc);
    c->has_result = 0;
}

static int txn(struct sb_conn *c, int (*fn)(sbd_conn *), const char *sql)
{
    c->cur_named = -1; /* not a named statement's, even after one failed early */
    if (fn == NULL)
        return raw_query(c, sql, strlen(sql), SB_Q_TXN);
    if (c->dc == NULL) {
        set_error(c, SBD_CONN_LOST, sql, strlen(sql));
        return SBD_CONN_LOST;
    }
    if (c->pipe_on) {
        int rc = pipe_quiesce(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (c->has_result) {
        drv->free_result(c->dc);
        c->has_result = 0;
    }
    int64_t t0 = sb_now_ns();
    int rc = fn(c->dc);
    if (rc != SBD_OK) {
        set_error(c, rc, sql, strlen(sql));
        return rc;
    }
    sb_histogram_record(c->stats->kind_latency[SB_Q_TXN], sb_now_ns() - t0);
    SB_ADD(c->stats->queries[SB_Q_TXN], 1);
    return SBD_OK;
}

int sb_conn_begin(struct sb_conn *c) { return txn(c, drv->begin, "BEGIN"); }
int sb_conn_commit(struct sb_conn *c) { return txn(c, drv->commit, "COMMIT"); }
int sb_conn_rollback(struct sb_conn *c)
{
    if (c->pipe_txn_over && c->pipe_n == 0) {
        /* the server already rolled the failed transaction back when the
         * COMMIT sent behind the failed statement arrived */
        c->pipe_txn_over = 0;
        return SBD_OK;
    }
    return txn(c, drv->rollback, "ROLLBACK");
}

/* ---- prepared statements ---- */

struct sb_stmt *sb_stmt_prepare(struct sb_conn *c, const char *sql, size_t len)
{
    struct sb_stmt *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->c = c;
    s->sql = malloc(len + 1);
    s->nparams = sb_count_placeholders(sql, len);
    int n = s->nparams > 0 ? s->nparams : 1;
    s->types = calloc((size_t)n, sizeof *s->types);
    s->vals = calloc((size_t)n, sizeof *s->vals);
    s->strbuf = calloc((size_t)n, sizeof *s->strbuf);
    s->strcap = calloc((size_t)n, sizeof *s->strcap);
    s->order = calloc((size_t)n, sizeof *s->order);
    s->ordered = calloc((size_t)n, sizeof *s->ordered);
    if (!s->sql || !s->types || !s->vals || !s->strbuf || !s->strcap || !s->order || !s->ordered)
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
    /* The driver learns the types only at the first bind; statements are
     * prepared lazily on first execute so the types are known then. */
    c->stmts[c->nstmts++] = s;
    return s;
oom:
    free(s->sql); free(s->types); free(s->vals); free(s->strbuf); free(s->strcap);
    free(s->order); free(s->ordered); free(s);
    snprintf(c->err.message, sizeof c->err.message, "out of memory");
    return NULL;
}

int sb_stmt_param_create(struct sb_stmt *s, int type, size_t maxlen)
{
    if (s->ncreated >= s->nparams)
        return -1;
    int k = s->ncreated++;
    s->types[k] = type;
    s->vals[k].type = type;
    s->vals[k].is_null = 1;
    if (type == SBD_TYPE_STRING || type >= SBD_TYPE_TIME) {
        size_t cap = maxlen > 0 ? maxlen : 64;
        if (grow(&s->strbuf[k], &s->strcap[k], cap) != 0)
            return -1;
        s->vals[k].s = s->strbuf[k];
    }
    if (s->ds && s->c->dc) { /* types changed: prepare again on next execute */
        pipe_quiesce(s->c);
        s->c->drv->close_stmt(s->c->dc, s->ds);
        s->ds = NULL;
    }
    return k;
}

int sb_stmt_bind(struct sb_stmt *s, const int *order, int n)
{
    if (n > s->nparams)
        return -1;
    s->identity = 1;
    for (int i = 0; i < n; i++) {
        if (order[i] < 0 || order[i] >= s->ncreated)
            return -1;
        s->order[i] = order[i];
        if (order[i] != i)
            s->identity = 0;
    }
    /* placeholder types follow the bound parameters */
    int types_changed = 0;
    for (int i = 0; i < n; i++) {
        int t = s->vals[s->order[i]].type;
        if (s->types[i] != t)
            types_changed = 1;
    }
    if (types_changed) {
        int tmp[256];
        for (int i = 0; i < n && i < 256; i++)
            tmp[i] = s->vals[s->order[i]].type;
        for (int i = 0; i < n && i < 256; i++)
            s->types[i] = tmp[i];
        if (s->ds && s->c->dc) {
            pipe_quiesce(s->c);
            s->c->drv->close_stmt(s->c->dc, s->ds);
            s->ds = NULL;
        }
    }
    return 0;
}

char *sb_stmt_str_buf(struct sb_stmt *s, int slot, size_t len)
{
    if (grow(&s->strbuf[slot], &s->strcap[slot], len + 1) != 0)
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
    char *b = sb_stmt_str_buf(s, slot, len);
    if (b == NULL)
        return -1;
    memcpy(b, v, len);
    b[len] = 0;
    sb_stmt_set_len(s, slot, len);
    return 0;
}

/* Appends a SQL literal for v to c->sql at *pos. */
static int append_literal(struct sb_conn *c, size_t *pos, const struct sbd_value *v)
{
    if (grow(&c->sql, &c->sql_cap, *pos + 64 + (v->type >= SBD_TYPE_STRING ? v->len * 2 + 2 : 0)) != 0)
        return -1;
    char *o = c->sql + *pos;
    if (v->is_null || v->type == SBD_TYPE_NULL) {
        memcpy(o, "NULL", 4);
        *pos += 4;
    } else if (v->type == SBD_TYPE_INT) {
        *pos += sb_i64_to_text(v->i, o);
    } else if (v->type == SBD_TYPE_DOUBLE) {
        *pos += (size_t)snprintf(o, 40, "%.17g", v->d);
    } else {
        int bs = (drv->caps & SBD_CAP_BACKSLASH_ESC) != 0;
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

static const struct sbd_value *bound_values(struct sb_stmt *s)
{
    if (s->identity)
        return s->vals;
    for (int i = 0; i < s->nparams; i++)
        s->ordered[i] = s->vals[s->order[i]];
    return s->ordered;
}

/* Writes s with vals as literals into c->sql; returns its length or -1. */
static long build_emulated(struct sb_stmt *s, const struct sbd_value *vals)
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
            if (append_literal(c, &pos, &vals[p++]) != 0)
                return -1;
            continue;
        }
        if (grow(&c->sql, &c->sql_cap, pos + 2) != 0)
            return -1;
        c->sql[pos++] = ch;
    }
    return (long)pos;
}

static int execute_emulated(struct sb_stmt *s, const struct sbd_value *vals)
{
    long n = build_emulated(s, vals);
    if (n < 0)
        return SBD_ERROR;
    return raw_query(s->c, s->c->sql, (size_t)n, s->kind);
}

int sb_stmt_set_name(struct sb_stmt *s, const char *name)
{
    s->named = sb_stats_named_slot(s->c->stats, name);
    return s->named >= 0 ? 0 : -1;
}

int sb_stmt_execute(struct sb_stmt *s)
{
    struct sb_conn *c = s->c;
    c->cur_named = s->named;
    if (c->dc == NULL) {
        set_error(c, SBD_CONN_LOST, s->sql, s->sql_len);
        return SBD_CONN_LOST;
    }
    if (c->pipe_on) {
        int rc = pipe_quiesce(c);
        if (rc != SBD_OK)
            return rc;
    }
    const struct sbd_value *vals = bound_values(s);
    if (c->emulate_ps)
        return execute_emulated(s, vals);
    if (s->ds == NULL) {
        int rc = driver_prepare(s);
        if (rc != SBD_OK)
            return rc;
        if (s->ds == NULL) /* driver declined: emulate */
            return execute_emulated(s, vals);
    }
    if (c->has_result) {
        drv->free_result(c->dc);
        c->has_result = 0;
    }
    memset(&c->info, 0, sizeof c->info);
    int64_t t0 = sb_now_ns();
    int rc = drv->execute(c->dc, s->ds, vals, s->nparams, &c->info);
    return after_exec(c, rc, s->kind, s->sql, s->sql_len, t0);
}

/* ---- nonblocking statements ---- */

int sb_conn_can_send(const struct sb_conn *c)
{
    return c->dc != NULL && (drv->caps & SBD_CAP_NONBLOCKING) && SB_DRV_HAS(drv, socket) &&
           SB_DRV_HAS(drv, send_query) && SB_DRV_HAS(drv, send_execute) &&
           SB_DRV_HAS(drv, poll_result);
}

int sb_conn_socket(struct sb_conn *c)
{
    return c->dc ? drv->socket(c->dc) : -1;
}

/* Common start of every send: like raw_query before the driver call. */
static int send_start(struct sb_conn *c, const char *sql, size_t len, int kind)
{
    if (c->dc == NULL) {
        set_error(c, SBD_CONN_LOST, sql, len);
        return SBD_CONN_LOST;
    }
    if (c->pipe_on) {
        int rc = pipe_quiesce(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (c->has_result) {
        drv->free_result(c->dc);
        c->has_result = 0;
    }
    memset(&c->info, 0, sizeof c->info);
    c->pend_kind = kind;
    c->pend_sql = sql;
    c->pend_sql_len = len;
    c->pend_t0 = sb_now_ns();
    return SBD_OK;
}

/* The driver's answer to a send: in flight, or failed like after_exec. */
static int send_done(struct sb_conn *c, int rc)
{
    if (rc == SBD_OK) {
        c->pending = 1;
        return SBD_OK;
    }
    return after_exec(c, rc, c->pend_kind, c->pend_sql, c->pend_sql_len, c->pend_t0);
}

static int raw_send(struct sb_conn *c, const char *sql, size_t len, int kind)
{
    int rc = send_start(c, sql, len, kind);
    if (rc != SBD_OK)
        return rc;
    return send_done(c, drv->send_query(c->dc, sql, len));
}

int sb_conn_query_send(struct sb_conn *c, const char *sql, size_t len)
{
    return raw_send(c, sql, len, sb_classify_sql(sql, len));
}

int sb_conn_txn_send(struct sb_conn *c, int which)
{
    static const char *const sql[] = {"BEGIN", "COMMIT", "ROLLBACK"};
    int (*fn)(sbd_conn *) = which == 0 ? drv->begin : which == 1 ? drv->commit : drv->rollback;
    if (fn != NULL)
        return SBD_UNSUPPORTED; /* the driver's own call, blocking */
    c->cur_named = -1;
    return raw_send(c, sql[which], strlen(sql[which]), SB_Q_TXN);
}

int sb_stmt_execute_send(struct sb_stmt *s)
{
    struct sb_conn *c = s->c;
    c->cur_named = s->named;
    if (c->dc == NULL) {
        set_error(c, SBD_CONN_LOST, s->sql, s->sql_len);
        return SBD_CONN_LOST;
    }
    if (c->pipe_on) {
        int rc = pipe_quiesce(c);
        if (rc != SBD_OK)
            return rc;
    }
    const struct sbd_value *vals = bound_values(s);
    if (!c->emulate_ps && s->ds == NULL) {
        int rc = driver_prepare(s); /* blocking, once per statement */
        if (rc != SBD_OK)
            return rc;
    }
    if (c->emulate_ps || s->ds == NULL) {
        long n = build_emulated(s, vals);
        if (n < 0)
            return SBD_ERROR;
        return raw_send(c, c->sql, (size_t)n, s->kind);
    }
    int rc = send_start(c, s->sql, s->sql_len, s->kind);
    if (rc != SBD_OK)
        return rc;
    return send_done(c, drv->send_execute(c->dc, s->ds, vals, s->nparams));
}

static int pipe_poll(struct sb_conn *c, int *want_write);

int sb_conn_poll(struct sb_conn *c, int *want_write)
{
    *want_write = 0;
    if (c->pipe_waiting)
        return pipe_poll(c, want_write);
    if (!c->pending)
        return c->async_rc;
    int rc = c->dc ? drv->poll_result(c->dc, &c->info, want_write) : SBD_CONN_LOST;
    if (rc == SBD_AGAIN)
        return rc;
    c->pending = 0;
    c->async_rc = after_exec(c, rc, c->pend_kind, c->pend_sql, c->pend_sql_len, c->pend_t0);
    return c->async_rc;
}

/* ---- pipelining (--pipeline) ---- */

int sb_pipe_enabled(const struct sb_conn *c) { return c->pipe_max > 0 && c->dc != NULL; }

int sb_pipe_has_room(const struct sb_conn *c) { return c->pipe_n < c->pipe_max; }

int sb_pipe_needs_prepare(const struct sb_stmt *s)
{
    return s->c->dc != NULL && !s->c->emulate_ps && s->ds == NULL;
}

/* Sends one statement in pipeline mode: a prepared one (ds) or text (kept
 * in the ring entry when copy_text, for error messages). */
static int pipe_send(struct sb_conn *c, int kind, const char *sql, size_t len, int copy_text,
                     sbd_stmt *ds, const struct sbd_value *vals, int nparams)
{
    int named = c->cur_named;
    c->cur_named = -1;
    if (c->dc == NULL) {
        set_error(c, SBD_CONN_LOST, sql, len);
        return SBD_CONN_LOST;
    }
    if (c->has_result) {
        drv->free_result(c->dc);
        c->has_result = 0;
    }
    if (!c->pipe_on) {
        int rc = drv->pipeline(c->dc, 1);
        if (rc != SBD_OK) {
            set_error(c, rc, sql, len);
            return rc;
        }
        c->pipe_on = 1;
    }
    struct sb_pipe_entry *e = &c->pipe[(c->pipe_head + c->pipe_n) % c->pipe_max];
    e->kind = kind;
    e->named = named;
    e->sql = sql;
    e->sql_len = len;
    if (copy_text) {
        if (grow(&e->text, &e->text_cap, len + 1) != 0) {
            snprintf(c->err.message, sizeof c->err.message, "out of memory");
            c->err.status = SBD_ERROR;
            return SBD_ERROR;
        }
        memcpy(e->text, sql, len);
        e->sql = e->text;
    }
    memset(&c->info, 0, sizeof c->info);
    e->t0 = sb_now_ns();
    int rc = ds ? drv->send_execute(c->dc, ds, vals, nparams) : drv->send_query(c->dc, sql, len);
    if (rc != SBD_OK) {
        set_error(c, rc, sql, len);
        if (rc == SBD_CONN_LOST)
            c->pipe_n = 0;
        return rc;
    }
    if (c->pipe_n > 0)
        SB_ADD(c->stats->pipelined, 1);
    c->pipe_n++;
    c->pipe_txn_over = 0;
    c->result_gen++;
    return SBD_OK;
}

int sb_conn_query_pipe(struct sb_conn *c, const char *sql, size_t len)
{
    return pipe_send(c, sb_classify_sql(sql, len), sql, len, 1, NULL, NULL, 0);
}

int sb_conn_txn_pipe(struct sb_conn *c, int which)
{
    static const char *const sql[] = {"BEGIN", "COMMIT", "ROLLBACK"};
    int (*fn)(sbd_conn *) = which == 0 ? drv->begin : which == 1 ? drv->commit : drv->rollback;
    if (fn != NULL)
        return SBD_UNSUPPORTED;
    return pipe_send(c, SB_Q_TXN, sql[which], strlen(sql[which]), 0, NULL, NULL, 0);
}

int sb_stmt_execute_pipe(struct sb_stmt *s)
{
    struct sb_conn *c = s->c;
    c->cur_named = s->named;
    if (c->dc != NULL && !c->emulate_ps && s->ds == NULL) {
        /* preparing blocks, and is not allowed in pipeline mode */
        int rc = pipe_quiesce(c);
        if (rc == SBD_OK)
            rc = driver_prepare(s);
        if (rc != SBD_OK) {
            c->cur_named = -1;
            return rc;
        }
    }
    const struct sbd_value *vals = bound_values(s);
    if (c->emulate_ps || s->ds == NULL) {
        long n = build_emulated(s, vals);
        if (n < 0)
            return SBD_ERROR;
        int rc = pipe_send(c, s->kind, c->sql, (size_t)n, 1, NULL, NULL, 0);
        return rc;
    }
    return pipe_send(c, s->kind, s->sql, s->sql_len, 0, s->ds, vals, s->nparams);
}

/* The oldest statement's answer came with status rc: count it, or keep it
 * as the failure to report (only the first one). */
static void pipe_complete(struct sb_conn *c, int rc)
{
    struct sb_pipe_entry *e = &c->pipe[c->pipe_head];
    c->pipe_head = (c->pipe_head + 1) % c->pipe_max;
    c->pipe_n--;
    if (c->pipe_rc != SBD_OK && e->kind == SB_Q_TXN && sb_sql_ends_txn(e->sql, e->sql_len))
        c->pipe_txn_over = 1; /* COMMIT/ROLLBACK after the failure */
    if (rc == SBD_OK) {
        if (count_ok(c, e->kind, e->named, sb_now_ns() - e->t0) == SBD_OK)
            return;
        rc = SBD_ERROR;
    } else {
        c->has_result = 0;
        set_error(c, rc, e->sql, e->sql_len);
    }
    if (c->pipe_rc != SBD_OK)
        return;
    c->pipe_rc = rc;
    c->pipe_err = c->err;
    c->pipe_err.status = rc;
    c->pipe_err_sql = e->sql;
    c->pipe_err_sql_len = e->sql_len;
}

/* Ends a wait: returns the kept failure (into c->err) or SBD_OK. */
static int pipe_settle(struct sb_conn *c)
{
    int rc = c->pipe_rc;
    c->pipe_waiting = 0;
    c->pending = 0;
    c->pipe_rc = SBD_OK;
    if (rc != SBD_OK) {
        c->err = c->pipe_err;
        c->err_sql = c->pipe_err_sql;
        c->err_sql_len = c->pipe_err_sql_len;
    }
    c->async_rc = rc;
    return rc;
}

static int pipe_poll(struct sb_conn *c, int *want_write)
{
    while (c->pipe_n > c->pipe_target) {
        int rc = c->dc ? drv->poll_result(c->dc, &c->info, want_write) : SBD_CONN_LOST;
        if (rc == SBD_AGAIN)
            return rc;
        pipe_complete(c, rc);
        if (c->pipe_rc != SBD_OK)
            c->pipe_target = 0; /* after a failure, read every answer */
        if (rc == SBD_CONN_LOST) {
            c->pipe_n = 0; /* the rest died with the connection */
            c->pipe_on = 0;
        }
    }
    *want_write = 0;
    return pipe_settle(c);
}

int sb_pipe_wait_start(struct sb_conn *c, int target)
{
    c->pipe_target = target;
    if (c->pipe_n <= target && c->pipe_rc == SBD_OK)
        return pipe_settle(c);
    c->pipe_waiting = 1;
    c->pending = 1;
    if (c->pipe_rc != SBD_OK)
        c->pipe_target = 0;
    return SBD_AGAIN;
}

int sb_pipe_wait(struct sb_conn *c, int target)
{
    int rc = sb_pipe_wait_start(c, target);
    while (rc == SBD_AGAIN) {
        int ww = 0;
        rc = sb_conn_poll(c, &ww);
        if (rc != SBD_AGAIN)
            break;
        struct pollfd pfd = {.fd = sb_conn_socket(c), .events = (short)(POLLIN | (ww ? POLLOUT : 0))};
        while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
            ;
    }
    return rc;
}

/* Before a blocking call: every answer read, pipeline mode left.  Returns
 * the first failure among the answers (c->err) or SBD_OK. */
static int pipe_quiesce(struct sb_conn *c)
{
    if (!c->pipe_on)
        return SBD_OK;
    int rc = c->pipe_n > 0 || c->pipe_rc != SBD_OK ? sb_pipe_wait(c, 0) : SBD_OK;
    if (c->dc != NULL && c->pipe_on) {
        int r = drv->pipeline(c->dc, 0);
        if (r != SBD_OK && rc == SBD_OK) {
            set_error(c, r, NULL, 0);
            rc = r;
        }
    }
    c->pipe_on = 0;
    return rc;
}

void sb_stmt_close(struct sb_stmt *s)
{
    if (s == NULL)
        return;
    struct sb_conn *c = s->c;
    if (s->ds && c->dc) {
        pipe_quiesce(c);
        if (c->has_result) {
            drv->free_result(c->dc);
            c->has_result = 0;
        }
        drv->close_stmt(c->dc, s->ds);
    }
    for (int i = 0; i < c->nstmts; i++)
        if (c->stmts[i] == s) {
            c->stmts[i] = c->stmts[--c->nstmts];
            break;
        }
    for (int i = 0; i < s->nparams; i++)
        free(s->strbuf[i]);
    free(s->sql); free(s->types); free(s->vals); free(s->strbuf); free(s->strcap);
    free(s->order); free(s->ordered);
    free(s);
}

/* ---- sysbench bulk_insert_* ---- */

int sb_conn_bulk_insert_init(struct sb_conn *c, const char *prefix, size_t len)
{
    if (grow(&c->bulk, &c->bulk_cap, (size_t)bulk_max + len + 1024) != 0)
        return SBD_ERROR;
    memcpy(c->bulk, prefix, len);
    c->bulk_prefix_len = c->bulk_len = len;
    c->bulk_rows = 0;
    return SBD_OK;
}

static int bulk_flush(struct sb_conn *c)
{
    if (c->bulk_rows == 0)
        return SBD_OK;
    int rc = raw_query(c, c->bulk, c->bulk_len, SB_Q_INSERT);
    c->bulk_len = c->bulk_prefix_len;
    c->bulk_rows = 0;
    if (rc == SBD_OK)
        sb_conn_free_result(c);
    return rc;
}

int sb_conn_bulk_insert_next(struct sb_conn *c, const char *values, size_t len)
{
    if (c->bulk_rows > 0 && c->bulk_len + len + 1 > (size_t)bulk_max) {
        int rc = bulk_flush(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (grow(&c->bulk, &c->bulk_cap, c->bulk_len + len + 2) != 0)
        return SBD_ERROR;
    if (c->bulk_rows > 0)
        c->bulk[c->bulk_len++] = ',';
    memcpy(c->bulk + c->bulk_len, values, len);
    c->bulk_len += len;
    c->bulk_rows++;
    return SBD_OK;
}

int sb_conn_bulk_insert_done(struct sb_conn *c)
{
    return bulk_flush(c);
}

/* ---- bulk_load_* ---- */

int sb_conn_bulk_load_begin(struct sb_conn *c, const char *table, const char *const *cols,
                            const int *types, int ncols)
{
    if (ncols <= 0 || ncols > 32) {
        snprintf(c->err.message, sizeof c->err.message, "bulk load needs 1 to 32 columns");
        return SBD_ERROR;
    }
    c->bl_ncols = ncols;
    memcpy(c->bl_types, types, sizeof(int) * (size_t)ncols);
    c->bl_native = (drv->caps & SBD_CAP_BULK_LOAD) && SB_DRV_HAS(drv, bulk_begin) &&
                   SB_DRV_HAS(drv, bulk_row) && SB_DRV_HAS(drv, bulk_end);
    c->bl_active = 1;
    if (c->pipe_on) {
        int rc = pipe_quiesce(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (c->bl_native) {
        sb_conn_free_result(c);
        int rc = drv->bulk_begin(c->dc, table, cols, types, ncols);
        if (rc != SBD_OK)
            set_error(c, rc, NULL, 0);
        return rc;
    }
    char prefix[2048];
    size_t n = (size_t)snprintf(prefix, sizeof prefix, "INSERT INTO %s (", table);
    for (int i = 0; i < ncols && n < sizeof prefix - 100; i++)
        n += (size_t)snprintf(prefix + n, sizeof prefix - n, "%s%s", i ? ", " : "", cols[i]);
    n += (size_t)snprintf(prefix + n, sizeof prefix - n, ") VALUES ");
    return sb_conn_bulk_insert_init(c, prefix, n);
}

int sb_conn_bulk_load_row(struct sb_conn *c, const struct sbd_value *vals)
{
    SB_ADD(c->stats->loaded_rows, 1);
    if (c->bl_native) {
        int rc = drv->bulk_row(c->dc, vals);
        if (rc != SBD_OK)
            set_error(c, rc, NULL, 0);
        return rc;
    }
    size_t pos = 0;
    if (grow(&c->sql, &c->sql_cap, 2) != 0)
        return SBD_ERROR;
    c->sql[pos++] = '(';
    for (int i = 0; i < c->bl_ncols; i++) {
        if (i) {
            if (grow(&c->sql, &c->sql_cap, pos + 2) != 0)
                return SBD_ERROR;
            c->sql[pos++] = ',';
        }
        if (append_literal(c, &pos, &vals[i]) != 0)
            return SBD_ERROR;
    }
    if (grow(&c->sql, &c->sql_cap, pos + 2) != 0)
        return SBD_ERROR;
    c->sql[pos++] = ')';
    return sb_conn_bulk_insert_next(c, c->sql, pos);
}

int sb_conn_bulk_load_end(struct sb_conn *c)
{
    if (!c->bl_active)
        return SBD_OK;
    c->bl_active = 0;
    if (c->bl_native) {
        int rc = drv->bulk_end(c->dc);
        if (rc != SBD_OK)
            set_error(c, rc, NULL, 0);
        return rc;
    }
    return sb_conn_bulk_insert_done(c);
}
