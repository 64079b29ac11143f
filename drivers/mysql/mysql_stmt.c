/*
 * mysql driver: statements through the client library.  Plain queries and
 * their results (mysql_store_result), server-side prepared statements
 * (mysql_stmt_* API), and the server's own statement counters.  Parameter
 * and result MYSQL_BIND arrays are allocated once at prepare; execute only
 * points the parameter binds at the caller's values, and a string column
 * whose value does not fit its buffer grows that buffer once and is
 * refetched with mysql_stmt_fetch_column.  Results are buffered on the
 * client.  While the connection allows it, execute and the transaction
 * statements run over the wire fast path instead (mysql_wire.c).
 */
#include "mysql_int.h"
#include "../../lib/text.h"
#include "../common/value.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- plain queries ----------------------------------------------------- */

/* Discards further results of the last statement (a CALL sends a final
 * status result), so the next statement is not "out of sync". */
static void drain_results(sbd_conn *c)
{
    while (mysql_more_results(c->mysql)) {
        if (mysql_next_result(c->mysql) != 0)
            break;
        MYSQL_RES *r = mysql_store_result(c->mysql);
        if (r != NULL)
            mysql_free_result(r);
    }
}

void myd_release_result(sbd_conn *c)
{
    if (c->res_kind == RES_QUERY) {
        mysql_free_result(c->res); /* streamed: reads the rest first */
        c->res = NULL;
        c->streamed = 0;
        drain_results(c);
    } else if (c->res_kind == RES_STMT) {
        mysql_stmt_free_result(c->cur->st);
        c->cur = NULL;
    } else if (c->res_kind == RES_WIRE) {
        c->cur = NULL;
    }
    c->res_kind = RES_NONE;
}

void myd_result_begin(sbd_conn *c, struct sbd_result_info *info)
{
    myd_release_result(c);
    info->affected_rows = -1;
    info->nrows = 0;
    info->nfields = 0;
}

int myd_query_stored(sbd_conn *c, MYSQL_RES *res, struct sbd_result_info *info)
{
    if (res == NULL) {
        if (mysql_field_count(c->mysql) != 0)
            return myd_conn_fail(c);
        info->affected_rows = (int64_t)mysql_affected_rows(c->mysql);
        drain_results(c);
        return SBD_OK;
    }
    c->res = res;
    c->res_kind = RES_QUERY;
    c->nfields = mysql_num_fields(res);
    c->fields = mysql_fetch_fields(res);
    info->affected_rows = 0;
    info->nrows = (int64_t)mysql_num_rows(res);
    info->nfields = (int)c->nfields;
    return SBD_OK;
}

/* What query and execute check on every transport: nothing in flight;
 * releases the current result.  SBD_OK or the failure's status. */
static int stmt_start(sbd_conn *c, struct sbd_result_info *info)
{
    if (c->async_phase != ASYNC_IDLE)
        return myd_fail(c, "mysql: a statement is already in flight on this connection");
    myd_result_begin(c, info);
    return SBD_OK;
}

int myd_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    int rc = stmt_start(c, info);
    return rc != SBD_OK ? rc : c->tp->query(c, sql, len, info);
}

int myd_lib_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    if (mysql_real_query(c->mysql, sql, (unsigned long)len) != 0)
        return myd_conn_fail(c);
    return myd_query_stored(c, mysql_store_result(c->mysql), info);
}

int myd_query_stream(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    int rc = stmt_start(c, info);
    if (rc != SBD_OK)
        return rc;
    if (mysql_real_query(c->mysql, sql, (unsigned long)len) != 0)
        return myd_conn_fail(c);
    rc = myd_query_stored(c, mysql_use_result(c->mysql), info);
    if (rc == SBD_OK && c->res_kind == RES_QUERY) {
        c->streamed = 1;
        info->nrows = -1; /* not known until the last row came */
    }
    return rc;
}

static int fetch_query_row(sbd_conn *c, struct sbd_value *row)
{
    MYSQL_ROW r = mysql_fetch_row(c->res);
    if (r == NULL) /* a streamed result's end, or its read failing */
        return c->streamed && mysql_errno(c->mysql) != 0 ? myd_conn_fail(c) : SBD_DONE;
    unsigned long *lens = mysql_fetch_lengths(c->res);
    for (unsigned i = 0; i < c->nfields; i++)
        myd_text_value(&row[i], myd_column_type(c->fields[i].type), r[i], lens[i]);
    return SBD_OK;
}

int myd_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->res_kind == RES_QUERY)
        return fetch_query_row(c, row);
    if (c->res_kind == RES_STMT)
        return myd_stmt_fetch(c, c->cur, row);
    if (c->res_kind == RES_WIRE)
        return myd_wire_fetch(c, row);
    return SBD_DONE;
}

const char *myd_field_name(sbd_conn *c, int i)
{
    if (i < 0)
        return NULL;
    if (c->res_kind == RES_QUERY)
        return (unsigned)i < c->nfields ? c->fields[i].name : NULL;
    if ((c->res_kind != RES_STMT && c->res_kind != RES_WIRE) || c->cur == NULL ||
        (unsigned)i >= c->cur->ncols)
        return NULL;
    if (c->cur->names == NULL) /* once per statement, when first asked */
        c->cur->names = mysql_stmt_result_metadata(c->cur->st);
    if (c->cur->names == NULL || (unsigned)i >= mysql_num_fields(c->cur->names))
        return NULL;
    return mysql_fetch_fields(c->cur->names)[i].name;
}

void myd_free_result(sbd_conn *c)
{
    myd_release_result(c);
}

/* ---- server counters --------------------------------------------------- */

int myd_server_counters(sbd_conn *c, struct sbd_server_counters *out)
{
    static const char sql[] =
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', "
        "'Com_rollback', 'Com_select', 'Com_insert', 'Com_update', "
        "'Com_delete', 'Questions')";
    static const struct { const char *name; size_t off; } map[] = {
        {"Com_commit", offsetof(struct sbd_server_counters, commits)},
        {"Com_rollback", offsetof(struct sbd_server_counters, rollbacks)},
        {"Com_select", offsetof(struct sbd_server_counters, selects)},
        {"Com_insert", offsetof(struct sbd_server_counters, inserts)},
        {"Com_update", offsetof(struct sbd_server_counters, updates)},
        {"Com_delete", offsetof(struct sbd_server_counters, deletes)},
        {"Questions", offsetof(struct sbd_server_counters, statements)},
    };
    out->commits = out->rollbacks = out->selects = -1;
    out->inserts = out->updates = out->deletes = out->statements = -1;
    struct sbd_result_info info;
    int rc = myd_query(c, sql, sizeof sql - 1, &info);
    if (rc != SBD_OK)
        return rc;
    if (info.nfields != 2) {
        myd_release_result(c);
        return myd_fail(c, "mysql: SHOW GLOBAL STATUS returned an unexpected shape");
    }
    MYSQL_ROW r;
    while ((r = mysql_fetch_row(c->res)) != NULL) {
        if (r[0] == NULL || r[1] == NULL)
            continue;
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
            int64_t v;
            if (strcasecmp(r[0], map[i].name) == 0 &&
                sbc_text_to_i64(r[1], strlen(r[1]), &v) == 0)
                *(int64_t *)((char *)out + map[i].off) = v;
        }
    }
    myd_release_result(c);
    /* Questions counts every statement when it starts, these SHOWs too:
     * leave out this connection's own, so that the difference of two
     * reads on one connection is exactly what the others sent */
    c->counter_reads++;
    if (out->statements >= 0)
        out->statements -= c->counter_reads;
    if (out->selects >= 0) /* the sampler's active-session samples */
        out->selects -= c->counter_selects;
    return SBD_OK;
}

/* ---- prepared statements ------------------------------------------------ */

/* First capacity of a string result buffer. */
#define MIN_STR_CAP 16
#define MAX_INITIAL_STR_CAP 4096

static void free_stmt(sbd_stmt *s)
{
    if (s == NULL)
        return;
    if (s->rbuf != NULL)
        for (unsigned i = 0; i < s->ncols; i++)
            free(s->rbuf[i]);
    free(s->pbind);
    free(s->plen);
    free(s->pnull);
    free(s->rbind);
    free(s->rtype);
    free(s->rint);
    free(s->rdbl);
    free(s->rlen);
    free(s->rnull);
    free(s->rerr);
    free(s->rbuf);
    free(s->rcap);
    free(s->wcols);
    if (s->names != NULL)
        mysql_free_result(s->names);
    free(s);
}

static int bind_param_type(int type)
{
    switch (type) {
    case SBD_TYPE_INT: return MYSQL_TYPE_LONGLONG;
    case SBD_TYPE_DOUBLE: return MYSQL_TYPE_DOUBLE;
    case SBD_TYPE_NULL: return MYSQL_TYPE_NULL;
    case SBD_TYPE_BYTES: return MYSQL_TYPE_BLOB;
    default: return MYSQL_TYPE_STRING;
    }
}

/* Allocates the parameter arrays; 0 or -1 (out of memory). */
static int setup_params(sbd_stmt *s, const int *types)
{
    size_t n = s->nparams > 0 ? (size_t)s->nparams : 1;
    s->pbind = calloc(n, sizeof *s->pbind);
    s->plen = calloc(n, sizeof *s->plen);
    s->pnull = calloc(n, sizeof *s->pnull);
    if (s->pbind == NULL || s->plen == NULL || s->pnull == NULL)
        return -1;
    for (int i = 0; i < s->nparams; i++) {
        s->pbind[i].buffer_type = bind_param_type(types != NULL ? types[i] : SBD_TYPE_STRING);
        s->pbind[i].length = &s->plen[i];
        s->pbind[i].is_null = &s->pnull[i];
    }
    return 0;
}

/* Allocates and binds the result arrays from the statement's metadata;
 * 0, or -1 with *oom set when memory ran out (else a statement error). */
static int setup_results(sbd_stmt *s, const char *sql, size_t len, int *oom)
{
    *oom = 0;
    MYSQL_RES *meta = mysql_stmt_result_metadata(s->st);
    if (meta == NULL) {
        if (mysql_stmt_errno(s->st) != 0)
            return -1;
        s->wire_ok = myd_wire_stmt_setup(s, sql, len, NULL);
        return 0;
    }
    s->ncols = mysql_num_fields(meta);
    MYSQL_FIELD *f = mysql_fetch_fields(meta);
    size_t n = s->ncols > 0 ? s->ncols : 1;
    s->rbind = calloc(n, sizeof *s->rbind);
    s->rtype = calloc(n, sizeof *s->rtype);
    s->rint = calloc(n, sizeof *s->rint);
    s->rdbl = calloc(n, sizeof *s->rdbl);
    s->rlen = calloc(n, sizeof *s->rlen);
    s->rnull = calloc(n, sizeof *s->rnull);
    s->rerr = calloc(n, sizeof *s->rerr);
    s->rbuf = calloc(n, sizeof *s->rbuf);
    s->rcap = calloc(n, sizeof *s->rcap);
    if (s->rbind == NULL || s->rtype == NULL || s->rint == NULL ||
        s->rdbl == NULL || s->rlen == NULL || s->rnull == NULL ||
        s->rerr == NULL || s->rbuf == NULL || s->rcap == NULL) {
        mysql_free_result(meta);
        *oom = 1;
        return -1;
    }
    for (unsigned i = 0; i < s->ncols; i++) {
        MYSQL_BIND *b = &s->rbind[i];
        int t = myd_column_type(f[i].type);
        s->rtype[i] = t;
        b->is_null = &s->rnull[i];
        b->error = &s->rerr[i];
        b->length = &s->rlen[i];
        if (t == SBD_TYPE_INT) {
            b->buffer_type = MYSQL_TYPE_LONGLONG;
            b->buffer = &s->rint[i];
            b->is_unsigned = (f[i].flags & UNSIGNED_FLAG) != 0;
        } else if (t == SBD_TYPE_DOUBLE) {
            b->buffer_type = MYSQL_TYPE_DOUBLE;
            b->buffer = &s->rdbl[i];
        } else {
            unsigned long cap = f[i].length + 1;
            if (cap < MIN_STR_CAP)
                cap = MIN_STR_CAP;
            if (cap > MAX_INITIAL_STR_CAP)
                cap = MAX_INITIAL_STR_CAP;
            s->rbuf[i] = malloc(cap);
            if (s->rbuf[i] == NULL) {
                mysql_free_result(meta);
                *oom = 1;
                return -1;
            }
            s->rcap[i] = cap;
            b->buffer_type = MYSQL_TYPE_STRING;
            b->buffer = s->rbuf[i];
            b->buffer_length = cap;
        }
    }
    int ok = myd_wire_stmt_setup(s, sql, len, f);
    mysql_free_result(meta);
    if (ok < 0) {
        *oom = 1;
        return -1;
    }
    s->wire_ok = ok;
    if (s->ncols > 0 && mysql_stmt_bind_result(s->st, s->rbind) != 0)
        return -1;
    return 0;
}

/* On success *out is owned by c until myd_close_stmt or disconnect; on
 * failure *out is NULL and c's error is set. */
int myd_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                 const int *types, sbd_stmt **out)
{
    *out = NULL;
    sbd_stmt *s = calloc(1, sizeof *s);
    if (s == NULL)
        return myd_fail(c, "mysql: out of memory");
    s->st = mysql_stmt_init(c->mysql);
    if (s->st == NULL) {
        free(s);
        return myd_conn_fail(c);
    }
    int rc = SBD_OK, oom = 0;
    if (mysql_stmt_prepare(s->st, sql, (unsigned long)len) != 0) {
        rc = myd_stmt_fail(c, s->st);
    } else if (mysql_stmt_param_count(s->st) != (unsigned long)(nparams < 0 ? 0 : nparams)) {
        rc = myd_fail(c, "mysql: prepare: the number of '?' placeholders differs "
                          "from the number of parameters declared");
    } else {
        s->nparams = nparams < 0 ? 0 : nparams;
        if (setup_params(s, types) != 0)
            rc = myd_fail(c, "mysql: out of memory");
        else if (setup_results(s, sql, len, &oom) != 0)
            rc = oom ? myd_fail(c, "mysql: out of memory") : myd_stmt_fail(c, s->st);
    }
    if (rc != SBD_OK) {
        mysql_stmt_close(s->st);
        free_stmt(s);
        return rc;
    }
    s->next = c->stmts;
    if (c->stmts != NULL)
        c->stmts->prev = s;
    c->stmts = s;
    *out = s;
    return SBD_OK;
}

int myd_stmt_bind(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                   int nparams, struct sbd_result_info *info)
{
    myd_result_begin(c, info);
    if (nparams != s->nparams)
        return myd_fail(c, "mysql: execute: wrong number of parameters");
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        MYSQL_BIND *b = &s->pbind[i];
        s->pnull[i] = v->is_null || v->type == SBD_TYPE_NULL;
        b->is_unsigned = 0;
        switch (v->type) {
        case SBD_TYPE_INT:
            b->buffer_type = MYSQL_TYPE_LONGLONG;
            b->buffer = (void *)&v->i;
            break;
        case SBD_TYPE_DOUBLE:
            b->buffer_type = MYSQL_TYPE_DOUBLE;
            b->buffer = (void *)&v->d;
            break;
        case SBD_TYPE_NULL:
            b->buffer_type = MYSQL_TYPE_NULL;
            b->buffer = NULL;
            break;
        default: /* strings, dates/times in their string form, bytes */
            b->buffer_type = v->type == SBD_TYPE_BYTES ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
            b->buffer = (void *)(v->s != NULL ? v->s : "");
            s->plen[i] = (unsigned long)(v->s != NULL ? v->len : 0);
            b->buffer_length = s->plen[i];
            break;
        }
    }
    if (nparams > 0 && mysql_stmt_bind_param(s->st, s->pbind) != 0)
        return myd_stmt_fail(c, s->st);
    return SBD_OK;
}

int myd_stmt_has_rows(sbd_stmt *s, struct sbd_result_info *info)
{
    if (s->ncols == 0 || mysql_stmt_field_count(s->st) == 0) {
        info->affected_rows = (int64_t)mysql_stmt_affected_rows(s->st);
        return 0;
    }
    return 1;
}

int myd_stmt_stored(sbd_conn *c, sbd_stmt *s, int failed, struct sbd_result_info *info)
{
    if (failed) {
        int rc = myd_stmt_fail(c, s->st);
        mysql_stmt_free_result(s->st);
        return rc;
    }
    c->res_kind = RES_STMT;
    c->cur = s;
    info->affected_rows = 0;
    info->nrows = (int64_t)mysql_stmt_num_rows(s->st);
    info->nfields = (int)s->ncols;
    return SBD_OK;
}

int myd_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                int nparams, struct sbd_result_info *info)
{
    int rc = stmt_start(c, info);
    if (rc != SBD_OK)
        return rc;
    if (nparams != s->nparams)
        return myd_fail(c, "mysql: execute: wrong number of parameters");
    return c->tp->execute(c, s, params, nparams, info);
}

int myd_lib_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                    int nparams, struct sbd_result_info *info)
{
    int rc = myd_stmt_bind(c, s, params, nparams, info);
    if (rc != SBD_OK)
        return rc;
    if (mysql_stmt_execute(s->st) != 0)
        return myd_stmt_fail(c, s->st);
    if (!myd_stmt_has_rows(s, info))
        return SBD_OK;
    return myd_stmt_stored(c, s, mysql_stmt_store_result(s->st) != 0, info);
}

/* The current row had string columns longer than their buffers: grows those
 * buffers and refetches the columns. */
static int refetch_truncated(sbd_conn *c, sbd_stmt *s)
{
    int rebind = 0;
    for (unsigned i = 0; i < s->ncols; i++) {
        MYSQL_BIND *b = &s->rbind[i];
        if (b->buffer_type != MYSQL_TYPE_STRING || s->rnull[i] ||
            s->rlen[i] <= s->rcap[i])
            continue;
        unsigned long want = s->rlen[i] + 1;
        if (want < 2 * s->rcap[i])
            want = 2 * s->rcap[i];
        char *nb = realloc(s->rbuf[i], want);
        if (nb == NULL)
            return myd_fail(c, "mysql: out of memory for a result column");
        s->rbuf[i] = nb;
        s->rcap[i] = want;
        b->buffer = nb;
        b->buffer_length = want;
        rebind = 1;
        if (mysql_stmt_fetch_column(s->st, b, i, 0) != 0)
            return myd_stmt_fail(c, s->st);
    }
    if (rebind && mysql_stmt_bind_result(s->st, s->rbind) != 0)
        return myd_stmt_fail(c, s->st);
    return SBD_OK;
}

int myd_stmt_fetch(sbd_conn *c, sbd_stmt *s, struct sbd_value *row)
{
    int rc = mysql_stmt_fetch(s->st);
    if (rc == MYSQL_NO_DATA)
        return SBD_DONE;
    if (rc == 1)
        return myd_stmt_fail(c, s->st);
    if (rc == MYSQL_DATA_TRUNCATED && (rc = refetch_truncated(c, s)) != SBD_OK)
        return rc;
    for (unsigned i = 0; i < s->ncols; i++) {
        struct sbd_value *v = &row[i];
        sbc_value_reset(v, s->rtype[i], s->rnull[i] != 0);
        if (v->is_null)
            continue;
        switch (s->rtype[i]) {
        case SBD_TYPE_INT:
            if (s->rbind[i].is_unsigned && s->rint[i] < 0) {
                v->type = SBD_TYPE_DOUBLE; /* BIGINT UNSIGNED above INT64_MAX */
                v->d = (double)(uint64_t)s->rint[i];
            } else {
                v->i = s->rint[i];
            }
            break;
        case SBD_TYPE_DOUBLE:
            v->d = s->rdbl[i];
            break;
        case SBD_TYPE_NULL:
            v->type = SBD_TYPE_STRING;
            /* fall through */
        default:
            v->s = s->rbuf[i];
            v->len = s->rlen[i] < s->rcap[i] ? s->rlen[i] : s->rcap[i];
            break;
        }
    }
    return SBD_OK;
}

void myd_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    if ((c->res_kind == RES_STMT || c->res_kind == RES_WIRE) && c->cur == s)
        myd_release_result(c);
    if (c->wire_async == s) {
        /* closed with its nonblocking execute still in flight on the wire
         * fast path: nothing can read that answer any more */
        myd_wire_abandon(c);
    }
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        c->stmts = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    mysql_stmt_close(s->st);
    free_stmt(s);
}

/* The client library's transport: every statement through it. */
const struct sbc_transport myd_tp_lib = {
    .query = myd_lib_query,
    .execute = myd_lib_execute,
#ifdef MYD_NONBLOCK
    .send_query = myd_lib_send_query,
    .send_execute = myd_lib_send_execute,
#endif
};
