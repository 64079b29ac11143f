/*
 * The traced driver: a driver table that takes the real driver's place
 * for `sbench WORKLOAD trace` and passes every call on, recording each
 * statement exactly as the real driver received it (its text, or its
 * prepared statement and bound values), its answer and its latency.  The
 * engine's statement path is not changed: a run without a trace never
 * meets this file.
 *
 * The table has no pipelining and no host I/O calls, so that at most one
 * statement is in flight per connection: a statement sent without waiting
 * (clients under --clients, each on its own connection) is recorded from
 * its send to its answer, and its record is whole before the connection's
 * next statement starts.  A record waits for the rows the workload fetches
 * (drivers that count rows only as they are read) and is written when
 * the result is freed or the connection's next call starts.
 *
 * --trace-rollback: a statement outside the workload's transactions runs
 * inside one the trace opens (BEGIN), the workload's COMMIT is sent as
 * ROLLBACK, and the trace's own transaction is rolled back before the
 * workload's BEGIN and when the connection closes.  Every statement the
 * trace adds is in the trace, marked.  (A statement that commits on its
 * own, such as MySQL's DDL, still commits.)
 */
#include "trace_int.h"
#include "trace_driver.h"

#include "../core/clock.h"
#include "../core/stats.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const struct sbd_driver *in; /* the real driver */
static struct sbd_driver traced;
static int rollback_mode;
static _Thread_local int conns_opened; /* numbers a thread's connections */

struct tconn {
    sbd_conn *in;
    int tid, no;
    uint64_t seq;
    int next_stmt;
    int in_txn;      /* the workload's transaction is open */
    int own_txn;     /* --trace-rollback's transaction is open */
    /* the record of the statement in flight (sent, its answer to come) or
     * waiting for its rows (pending) */
    int pending;
    int64_t t0;
    int kind;                     /* enum sb_qkind, for after() */
    struct trace_rec rec;
    struct sbd_error err;
    char *sql;
    size_t sql_cap;
    struct sbd_value *vals;
    int vals_cap;
    char *blob;
    size_t blob_cap;
};

#define TC(c) ((struct tconn *)(void *)(c))

static void flush(struct tconn *c)
{
    if (!c->pending)
        return;
    c->pending = 0;
    trace_out_stmt(c->tid, c->no, c->seq++, &c->rec);
}

/* Keeps r as c's record, with its own copies of the text and the values
 * (the caller's go away after the call).  Out of memory: the text
 * and values are left out and the note says so. */
static void keep(struct tconn *c, const struct trace_rec *r)
{
    c->rec = *r;
    size_t vcap = (size_t)c->vals_cap * sizeof *c->vals, blob = 0;
    for (int i = 0; i < r->nparams; i++)
        if (r->params[i].s != NULL && !r->params[i].is_null)
            blob += r->params[i].len;
    if ((r->sql && trace_grow((void **)&c->sql, &c->sql_cap, r->len + 1) != 0) ||
        trace_grow((void **)&c->vals, &vcap, (size_t)r->nparams * sizeof *c->vals) != 0 ||
        trace_grow((void **)&c->blob, &c->blob_cap, blob + 1) != 0) {
        c->rec.sql = NULL;
        c->rec.nparams = 0;
        c->rec.note = "out of memory: text and values left out";
    } else {
        c->vals_cap = (int)(vcap / sizeof *c->vals);
        if (r->sql) {
            memcpy(c->sql, r->sql, r->len);
            c->rec.sql = c->sql;
        }
        size_t at = 0;
        for (int i = 0; i < r->nparams; i++) {
            c->vals[i] = r->params[i];
            if (r->params[i].s != NULL && !r->params[i].is_null) {
                memcpy(c->blob + at, r->params[i].s, r->params[i].len);
                c->vals[i].s = c->blob + at;
                at += r->params[i].len;
            }
        }
        c->rec.params = c->vals;
    }
}

/* The calls a record can be of. */
enum op { OP_QUERY, OP_STREAM, OP_EXECUTE, OP_PREPARE, OP_BEGIN, OP_COMMIT, OP_ROLLBACK };

struct call {
    enum op op;
    const char *sql;
    size_t len;
    struct trace_stmt *stmt;
    const struct sbd_value *params;
    int nparams;
    const int *types;            /* OP_PREPARE */
    sbd_stmt **made;             /* OP_PREPARE */
    const char *note;
};

static int inner_call(struct tconn *c, const struct call *k, struct sbd_result_info *info)
{
    switch (k->op) {
    case OP_QUERY: return in->query(c->in, k->sql, k->len, info);
    case OP_STREAM: return in->query_stream(c->in, k->sql, k->len, info);
    case OP_EXECUTE: return in->execute(c->in, k->stmt->in, k->params, k->nparams, info);
    case OP_PREPARE: return in->prepare(c->in, k->sql, k->len, k->nparams, k->types, k->made);
    case OP_BEGIN: return in->begin(c->in);
    case OP_COMMIT: return in->commit(c->in);
    default: return in->rollback(c->in);
    }
}

static const enum trace_what what_of[] = {TRACE_QUERY, TRACE_QUERY, TRACE_EXECUTE, TRACE_PREPARE,
                                          TRACE_BEGIN, TRACE_COMMIT, TRACE_ROLLBACK};

/* The record of call k starts: the previous one written, k's text and
 * values kept, the clock read. */
static void start(struct tconn *c, const struct call *k)
{
    flush(c);
    struct trace_rec r = {
        .what = what_of[k->op], .sql = k->sql, .len = k->len, .note = k->note,
        .stmt_no = k->op == OP_PREPARE ? c->next_stmt : k->stmt ? k->stmt->no : 0,
        .params = k->op == OP_EXECUTE ? k->params : NULL, .nparams = k->op == OP_EXECUTE ? k->nparams : 0,
    };
    keep(c, &r);
    c->t0 = sb_now_ns();
}

/* The answer came (status rc, info): the record is whole but for the rows
 * the workload will read (written now when it has none or failed). */
static int finish(struct tconn *c, int rc, const struct sbd_result_info *info)
{
    c->rec.latency_ns = sb_now_ns() - c->t0;
    c->rec.status = rc;
    c->rec.info = *info;
    c->rec.fetched = 0;
    if (rc != SBD_OK) {
        c->err = *in->last_error(c->in);
        c->rec.err = &c->err;
    }
    c->pending = 1;
    if (rc != SBD_OK || info->nfields == 0)
        flush(c);
    return rc;
}

/* Runs call k on the real driver to its answer, recorded. */
static int traced_call(struct tconn *c, const struct call *k, struct sbd_result_info *info)
{
    struct sbd_result_info none;
    if (info == NULL)
        info = &none;
    memset(info, 0, sizeof *info);
    start(c, k);
    int rc = inner_call(c, k, info);
    if (k->op == OP_PREPARE && rc == SBD_UNSUPPORTED)
        return rc; /* the host emulates it: its executes are the queries */
    return finish(c, rc, info);
}

/* A transaction verb the trace sends itself (--trace-rollback): the
 * driver's own call, or its SQL. */
static int own_verb(struct tconn *c, enum op verb, const char *note)
{
    int has = verb == OP_BEGIN ? in->begin != NULL : in->rollback != NULL;
    struct call k = {.op = has ? verb : OP_QUERY, .note = note};
    if (!has) {
        k.sql = verb == OP_BEGIN ? "BEGIN" : "ROLLBACK";
        k.len = strlen(k.sql);
    }
    struct sbd_result_info info;
    int rc = traced_call(c, &k, &info);
    if (rc == SBD_OK && info.nfields > 0)
        in->free_result(c->in);
    flush(c);
    return rc;
}

/* Before a statement of kind `kind` (enum sb_qkind) under --trace-rollback:
 * the trace's own transaction opened or ended.  SBD_OK or the error. */
static int before(struct tconn *c, int kind)
{
    if (!rollback_mode)
        return SBD_OK;
    if (kind == SB_Q_BEGIN && c->own_txn) {
        c->own_txn = 0;
        return own_verb(c, OP_ROLLBACK, "--trace-rollback: its transaction ends before the workload's BEGIN");
    }
    if (kind != SB_Q_BEGIN && kind != SB_Q_COMMIT && kind != SB_Q_ROLLBACK && !c->in_txn && !c->own_txn) {
        int rc = own_verb(c, OP_BEGIN, "--trace-rollback: the statement runs in a transaction rolled back");
        c->own_txn = rc == SBD_OK;
        return rc;
    }
    return SBD_OK;
}

static void after(struct tconn *c, int kind, int rc)
{
    if (kind == SB_Q_BEGIN && rc == SBD_OK)
        c->in_txn = 1;
    if (kind == SB_Q_COMMIT || kind == SB_Q_ROLLBACK)
        c->in_txn = c->own_txn = 0;
}

/* ---- the table's calls ---- */

/* Calls of the driver that take a connection but send nothing the trace
 * shows: passed to the real connection (the real driver's own functions,
 * copied with the table, would get the trace's). */
static const char *t_field_name(sbd_conn *conn, int i)
{
    return in->field_name(TC(conn)->in, i);
}

static int t_server_sample(sbd_conn *conn, struct sbd_server_sample *out)
{
    return in->server_sample(TC(conn)->in, out);
}

static int t_server_waits(sbd_conn *conn, struct sbd_wait *out, int max, int *n)
{
    return in->server_waits(TC(conn)->in, out, max, n);
}

static void t_connect_phases(sbd_conn *conn, struct sbd_connect_phases *out)
{
    in->connect_phases(TC(conn)->in, out);
}

static int t_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    struct tconn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        memset(err, 0, sizeof *err);
        err->status = SBD_ERROR;
        strcpy(err->message, "out of memory");
        *out = NULL;
        return SBD_ERROR;
    }
    int rc = in->connect(thread_id, &c->in, err);
    if (rc != SBD_OK || c->in == NULL) {
        free(c);
        *out = NULL;
        return rc != SBD_OK ? rc : SBD_ERROR;
    }
    c->tid = thread_id;
    c->no = conns_opened++;
    c->next_stmt = 1;
    *out = (sbd_conn *)(void *)c;
    return SBD_OK;
}

static void t_disconnect(sbd_conn *conn)
{
    struct tconn *c = TC(conn);
    if (c == NULL)
        return;
    flush(c);
    if (rollback_mode && (c->in_txn || c->own_txn))
        own_verb(c, OP_ROLLBACK, "--trace-rollback: the connection closes");
    in->disconnect(c->in);
    free(c->sql);
    free(c->vals);
    free(c->blob);
    free(c);
}

static const struct sbd_error *t_last_error(sbd_conn *c) { return in->last_error(TC(c)->in); }
static const char *t_dialect(sbd_conn *c) { return in->dialect(TC(c)->in); }
static const char *t_server_version(sbd_conn *c) { return in->server_version(TC(c)->in); }

/* A query's text: a transaction verb as text follows the verbs' rules. */
static int text_call(sbd_conn *conn, enum op op, const char *sql, size_t len, struct sbd_result_info *info)
{
    struct tconn *c = TC(conn);
    int kind = sb_classify_sql(sql, len);
    int rc = before(c, kind);
    if (rc != SBD_OK)
        return rc;
    struct call k = {.op = op, .sql = sql, .len = len};
    if (rollback_mode && kind == SB_Q_COMMIT) {
        k.sql = "ROLLBACK";
        k.len = 8;
        k.note = "--trace-rollback: the workload's COMMIT sent as ROLLBACK";
    }
    rc = traced_call(c, &k, info);
    after(c, kind, rc);
    return rc;
}

static int t_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    return text_call(c, OP_QUERY, sql, len, info);
}

static int t_query_stream(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    return text_call(c, OP_STREAM, sql, len, info);
}

static int t_fetch_row(sbd_conn *conn, struct sbd_value *row)
{
    struct tconn *c = TC(conn);
    int rc = in->fetch_row(c->in, row);
    if (rc == SBD_OK && c->pending)
        c->rec.fetched++;
    return rc;
}

static void t_free_result(sbd_conn *conn)
{
    struct tconn *c = TC(conn);
    in->free_result(c->in);
    flush(c);
}

static int t_prepare(sbd_conn *conn, const char *sql, size_t len, int nparams, const int *types,
                     sbd_stmt **out)
{
    struct tconn *c = TC(conn);
    struct trace_stmt *s = malloc(sizeof *s + len + 1);
    if (s == NULL)
        return SBD_ERROR;
    memcpy(s->sql, sql, len);
    s->sql[len] = 0;
    s->len = len;
    s->in = NULL;
    struct call k = {.op = OP_PREPARE, .sql = sql, .len = len, .nparams = nparams, .types = types,
                     .made = &s->in};
    int rc = traced_call(c, &k, NULL);
    if (rc != SBD_OK) {
        free(s);
        *out = NULL;
        return rc;
    }
    s->no = c->next_stmt++;
    *out = (sbd_stmt *)(void *)s;
    return SBD_OK;
}

static int t_execute(sbd_conn *conn, sbd_stmt *stmt, const struct sbd_value *params, int nparams,
                     struct sbd_result_info *info)
{
    struct tconn *c = TC(conn);
    struct trace_stmt *s = (struct trace_stmt *)(void *)stmt;
    int kind = sb_classify_sql(s->sql, s->len);
    int rc = before(c, kind);
    if (rc != SBD_OK)
        return rc;
    struct call k = {.op = OP_EXECUTE, .sql = s->sql, .len = s->len, .stmt = s, .params = params,
                     .nparams = nparams};
    rc = traced_call(c, &k, info);
    after(c, kind, rc);
    return rc;
}

static void t_close_stmt(sbd_conn *conn, sbd_stmt *stmt)
{
    struct trace_stmt *s = (struct trace_stmt *)(void *)stmt;
    if (s == NULL)
        return;
    struct tconn *c = TC(conn);
    flush(c);
    int64_t t0 = sb_now_ns();
    in->close_stmt(c->in, s->in);
    struct trace_rec r = {.what = TRACE_CLOSE, .stmt_no = s->no, .status = SBD_OK,
                          .latency_ns = sb_now_ns() - t0};
    trace_out_stmt(c->tid, c->no, c->seq++, &r);
    free(s);
}

static int verb_call(sbd_conn *conn, enum op op, int kind)
{
    struct tconn *c = TC(conn);
    int rc = before(c, kind);
    if (rc != SBD_OK)
        return rc;
    struct call k = {.op = op};
    if (rollback_mode && op == OP_COMMIT) {
        k.op = OP_ROLLBACK;
        k.note = "--trace-rollback: the workload's COMMIT sent as ROLLBACK";
    }
    rc = traced_call(c, &k, NULL);
    after(c, kind, rc);
    return rc;
}

static int t_begin(sbd_conn *c) { return verb_call(c, OP_BEGIN, SB_Q_BEGIN); }
static int t_commit(sbd_conn *c) { return verb_call(c, OP_COMMIT, SB_Q_COMMIT); }
static int t_rollback(sbd_conn *c) { return verb_call(c, OP_ROLLBACK, SB_Q_ROLLBACK); }

/* ---- nonblocking statements (one in flight per connection: the traced
 * table has no pipeline): recorded from the send to the answer ---- */

static int t_socket(sbd_conn *c) { return in->socket(TC(c)->in); }

/* Sends call k (a query's text or an execute); its record waits for the
 * answer (t_poll_result).  A send that fails is recorded at once. */
static int send_call(struct tconn *c, struct call *k, int kind)
{
    int rc = before(c, kind);
    if (rc != SBD_OK)
        return rc;
    if (rollback_mode && kind == SB_Q_COMMIT && k->op == OP_QUERY) {
        k->sql = "ROLLBACK";
        k->len = 8;
        k->note = "--trace-rollback: the workload's COMMIT sent as ROLLBACK";
    }
    start(c, k);
    c->kind = kind;
    rc = k->op == OP_EXECUTE ? in->send_execute(c->in, k->stmt->in, k->params, k->nparams)
                             : in->send_query(c->in, k->sql, k->len);
    if (rc != SBD_OK) {
        struct sbd_result_info none = {0, 0, 0};
        after(c, kind, finish(c, rc, &none));
    }
    return rc;
}

static int t_send_query(sbd_conn *conn, const char *sql, size_t len)
{
    struct call k = {.op = OP_QUERY, .sql = sql, .len = len};
    return send_call(TC(conn), &k, sb_classify_sql(sql, len));
}

static int t_send_execute(sbd_conn *conn, sbd_stmt *stmt, const struct sbd_value *params, int nparams)
{
    struct trace_stmt *s = (struct trace_stmt *)(void *)stmt;
    struct call k = {.op = OP_EXECUTE, .sql = s->sql, .len = s->len, .stmt = s, .params = params,
                     .nparams = nparams};
    return send_call(TC(conn), &k, sb_classify_sql(s->sql, s->len));
}

static int t_poll_result(sbd_conn *conn, struct sbd_result_info *info, int *want_write)
{
    struct tconn *c = TC(conn);
    int rc = in->poll_result(c->in, info, want_write);
    if (rc == SBD_AGAIN)
        return rc;
    after(c, c->kind, finish(c, rc, info));
    return rc;
}

static int t_bulk_begin(sbd_conn *c, const char *table, const char *const *cols, const int *types, int n)
{
    return in->bulk_begin(TC(c)->in, table, cols, types, n);
}
static int t_bulk_row(sbd_conn *c, const struct sbd_value *v) { return in->bulk_row(TC(c)->in, v); }
static int t_bulk_end(sbd_conn *c) { return in->bulk_end(TC(c)->in); }
static int t_server_counters(sbd_conn *c, struct sbd_server_counters *out)
{
    return in->server_counters(TC(c)->in, out);
}

const struct sbd_driver *trace_driver(const struct sbd_driver *real, int rollback)
{
    in = real;
    rollback_mode = rollback;
    traced = *real;
    traced.caps &= ~(SBD_CAP_PIPELINE | SBD_CAP_HOST_IO);
    traced.connect = t_connect;
    traced.disconnect = t_disconnect;
    traced.last_error = t_last_error;
    traced.dialect = t_dialect;
    traced.server_version = t_server_version;
    traced.query = t_query;
    traced.fetch_row = t_fetch_row;
    traced.free_result = t_free_result;
    traced.prepare = t_prepare;
    traced.execute = t_execute;
    traced.close_stmt = t_close_stmt;
    traced.begin = real->begin ? t_begin : NULL;
    traced.commit = real->commit ? t_commit : NULL;
    traced.rollback = real->rollback ? t_rollback : NULL;
    traced.bulk_begin = real->bulk_begin ? t_bulk_begin : NULL;
    traced.bulk_row = real->bulk_row ? t_bulk_row : NULL;
    traced.bulk_end = real->bulk_end ? t_bulk_end : NULL;
    traced.server_counters = real->server_counters ? t_server_counters : NULL;
    traced.query_stream = real->query_stream ? t_query_stream : NULL;
    int nb = (real->caps & SBD_CAP_NONBLOCKING) != 0;
    traced.socket = nb ? t_socket : NULL;
    traced.send_query = nb ? t_send_query : NULL;
    traced.send_execute = nb ? t_send_execute : NULL;
    traced.poll_result = nb ? t_poll_result : NULL;
    traced.pipeline = NULL;
    traced.host_io = NULL;
    traced.io_want = NULL;
    traced.io_done = NULL;
    /* every member that takes a connection is the trace's (a member the
     * real table lacks stays NULL: its struct_size is the host's) */
    traced.field_name = real->field_name ? t_field_name : NULL;
    traced.server_sample = real->server_sample ? t_server_sample : NULL;
    traced.server_waits = real->server_waits ? t_server_waits : NULL;
    traced.connect_phases = real->connect_phases ? t_connect_phases : NULL;
    return &traced;
}
