/*
 * Connection facade: connections and the one statement path (see db.h).
 * What a statement puts on the wire (its values, its literal SQL, its
 * driver statement) is db_sql.c's, below this file; the statements' life
 * for the binding (prepare, parameters, close) is db_stmt.c's, above it;
 * bulk loads are db_bulk.c's.
 *
 * Every statement, blocking or not, pipelined or not, takes one slot of
 * the connection's ring from its send to its answer: submit fills the
 * slot and either completes it at once (a blocking driver call) or leaves
 * it in flight; complete_oldest counts, times and frees the oldest slot
 * when its answer is in.  The opening checks are in submit alone.
 */
#include "db_int.h"
#include "clock.h"

#include <errno.h>
#include <stdatomic.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sbd_driver *drv;
static int emulate_all;
static int pipe_depth;   /* --pipeline, 0 when off or the driver cannot */
static int host_io;      /* --io=uring and the driver has host I/O */
static int64_t bulk_max = 512 * 1024;
/* Set once by the io_uring loop's first statement of each kind: its bytes
 * moved by the host (the ring), or by the driver itself (the ring only
 * waited for readiness).  Read by the JSON report's run.io. */
static atomic_int io_seen_host, io_seen_own;


void sb_db_setup(const struct sbd_driver *d, int emulate_ps, int64_t max_bulk_bytes)
{
    drv = d;
    emulate_all = emulate_ps;
    if (max_bulk_bytes > 0)
        bulk_max = max_bulk_bytes;
}

const struct sbd_driver *sb_db_driver(void) { return drv; }

int64_t sb_db_bulk_max(void) { return bulk_max; }

int sb_db_set_host_io(int on)
{
    host_io = on && drv && (drv->caps & SBD_CAP_HOST_IO);
    return host_io;
}

/* The connection just opened moves its statements' bytes through the
 * host when --io=uring asks for it and the driver takes it (it may refuse
 * a connection: TLS, a client library's own path). */
static void offer_host_io(struct sb_conn *c)
{
    if (host_io && c->dc != NULL)
        (void)drv->host_io(c->dc, 1);
}

static int conn_io_want(struct sb_conn *c, struct sbd_io *io)
{
    return host_io && c->dc != NULL && c->n == 1 && drv->io_want(c->dc, io);
}

int sb_conn_io_want(struct sb_conn *c, struct sbd_io *io)
{
    int r = conn_io_want(c, io);
    atomic_int *seen = r ? &io_seen_host : &io_seen_own;
    if (!atomic_load_explicit(seen, memory_order_relaxed)) /* a store once per run */
        atomic_store_explicit(seen, 1, memory_order_relaxed);
    return r;
}

int sb_db_io_seen(void)
{
    return (atomic_load(&io_seen_host) ? 1 : 0) | (atomic_load(&io_seen_own) ? 2 : 0);
}

void sb_conn_io_done(struct sb_conn *c, enum sbd_io_kind kind, long result)
{
    if (c->dc != NULL)
        drv->io_done(c->dc, kind, result);
}

/* One step of the host's I/O done here, blocking (sb_conn_wait outside the
 * io_uring loop): what is left of the request, or else one receive. */
static void io_step_here(struct sb_conn *c, const struct sbd_io *io)
{
    struct pollfd pfd = {.fd = io->fd, .events = io->out_len > 0 ? POLLOUT : POLLIN};
    if (io->out_len == 0 && io->in_room == 0)
        return; /* a failure is known: the next completion reports it */
    while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
        ;
    ssize_t k = io->out_len > 0
                    ? send(io->fd, io->out, io->out_len, MSG_NOSIGNAL | MSG_DONTWAIT)
                    : recv(io->fd, io->in, io->in_room, MSG_DONTWAIT);
    drv->io_done(c->dc, io->out_len > 0 ? SBD_IO_SENT : SBD_IO_RECEIVED, k < 0 ? -errno : (long)k);
}

int sb_db_set_pipeline(int depth)
{
    int can = drv && (drv->caps & SBD_CAP_PIPELINE) && (drv->caps & SBD_CAP_NONBLOCKING);
    pipe_depth = can && depth > 0 ? depth : 0;
    return pipe_depth;
}

/* Copies the error of the driver's last call (or "not connected") into
 * c->err, with the statement it belongs to. */
static void set_error(struct sb_conn *c, int status, const char *sql, size_t len)
{
    if (c->dc) {
        c->err = *drv->last_error(c->dc);
    } else {
        memset(&c->err, 0, sizeof c->err);
        snprintf(c->err.message, sizeof c->err.message, "not connected");
    }
    c->err.status = status;
    c->err_sql = sql;
    c->err_sql_len = len;
}

static void set_oom(struct sb_conn *c)
{
    memset(&c->err, 0, sizeof c->err);
    c->err.status = SBD_ERROR;
    snprintf(c->err.message, sizeof c->err.message, "out of memory");
}

void sb_conn_note_phases(struct sb_conn *c)
{
    c->first_pending = c->stats != NULL;
    if (c->stats == NULL || drv->connect_phases == NULL)
        return;
    struct sbd_connect_phases p = {-1, -1, -1};
    drv->connect_phases(c->dc, &p);
    int64_t ns[SB_CONN_NPHASES] = {[SB_CONN_TCP] = p.tcp_ns, [SB_CONN_TLS] = p.tls_ns,
                                   [SB_CONN_AUTH] = p.auth_ns, [SB_CONN_FIRST] = -1};
    sb_stats_note_connect_phases(c->stats, ns);
}

struct sb_conn *sb_conn_open(int thread_id, struct sb_thread_stats *stats, struct sbd_error *err)
{
    memset(err, 0, sizeof *err);
    struct sb_conn *c = calloc(1, sizeof *c);
    int depth = pipe_depth > 0 ? pipe_depth : 1;
    if (c != NULL)
        c->ring = calloc((size_t)depth, sizeof *c->ring);
    if (c == NULL || c->ring == NULL) {
        snprintf(err->message, sizeof err->message, "out of memory");
        err->status = SBD_ERROR;
        free(c);
        return NULL;
    }
    c->drv = drv;
    c->thread_id = thread_id;
    c->stats = stats;
    c->emulate_ps = emulate_all;
    c->depth = depth;
    c->pipelines = pipe_depth > 0;
    if (drv->connect(thread_id, &c->dc, err) != SBD_OK || c->dc == NULL) {
        if (err->status == SBD_OK)
            err->status = SBD_ERROR;
        free(c->ring);
        free(c);
        return NULL;
    }
    offer_host_io(c);
    return c;
}

void sb_conn_close(struct sb_conn *c)
{
    if (c == NULL)
        return;
    while (c->nstmts > 0) {
        sb_conn_quiesce(c, c->stmts[c->nstmts - 1]);
        sb_stmt_free(c->stmts[c->nstmts - 1]);
    }
    sb_conn_disconnect(c);
    for (int i = 0; i < c->depth; i++)
        free(c->ring[i].text);
    free(c->ring);
    free(c->stmts);
    free(c->row);
    free(c->sql);
    free(c->bulk);
    free(c);
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
    c->pipelining = c->n = c->head = 0;
    c->first_rc = SBD_OK;
    c->txn_over = 0;
}

int sb_conn_reconnect(struct sb_conn *c, int count_reconnect)
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
    sb_conn_note_phases(c);
    offer_host_io(c);
    if (count_reconnect)
        SB_ADD(c->stats->reconnects, 1);
    return SBD_OK;
}

int sb_conn_list_add(struct sb_conn_list *l, struct sb_conn *c)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        struct sb_conn **p = realloc(l->c, (size_t)cap * sizeof *p);
        if (p == NULL)
            return -1;
        l->c = p;
        l->cap = cap;
    }
    l->c[l->n++] = c;
    return 0;
}

void sb_conn_list_remove(struct sb_conn_list *l, const struct sb_conn *c)
{
    for (int i = 0; i < l->n; i++)
        if (l->c[i] == c) {
            l->c[i] = l->c[--l->n];
            return;
        }
}

void sb_conn_list_free(struct sb_conn_list *l)
{
    free(l->c);
    l->c = NULL;
    l->n = l->cap = 0;
}

int sb_conn_list_reopen(struct sb_conn_list *l, struct sb_conn **failed)
{
    for (int i = 0; i < l->n; i++) {
        int rc = sb_conn_reconnect(l->c[i], 0);
        if (rc != SBD_OK) {
            *failed = l->c[i];
            return rc;
        }
    }
    return SBD_OK;
}

/* ---- the statement path ---- */

int sb_req_ends_txn(const struct sb_req *r)
{
    return r->kind == SB_Q_COMMIT || r->kind == SB_Q_ROLLBACK;
}

int sb_conn_can_queue(const struct sb_conn *c)
{
    return c->dc != NULL && (drv->caps & SBD_CAP_NONBLOCKING);
}

/* The driver's own call for a verb, or NULL when it is sent as SQL. */
static int (*txn_call(enum sb_txn verb))(sbd_conn *)
{
    switch (verb) {
    case SB_TXN_BEGIN: return drv->begin;
    case SB_TXN_COMMIT: return drv->commit;
    case SB_TXN_ROLLBACK: return drv->rollback;
    default: return NULL;
    }
}

/* Whether r really goes in flight when the caller asks to queue it. */
static int queues(const struct sb_req *r, int queue)
{
    return queue && (drv->caps & SBD_CAP_NONBLOCKING) &&
           (r->verb == SB_TXN_NONE || txn_call(r->verb) == NULL);
}

int sb_conn_submit_target(const struct sb_conn *c, const struct sb_req *r, int queue)
{
    if (c->dc == NULL)
        return -1;
    int busy = c->n > 0 || c->first_rc != SBD_OK;
    if (!queues(r, queue) || (r->stmt && sb_stmt_needs_prepare(r->stmt)))
        return busy || c->pipelining ? 0 : -1;
    return c->n >= c->depth ? c->depth - 1 : -1;
}

/* Counts statement e, answered with status rc: latency by kind and name,
 * the current result, the count; or its error into c->err.  Returns rc
 * (SBD_ERROR when the row buffer cannot grow). */
static int account(struct sb_conn *c, const struct sb_inflight *e, int rc)
{
    if (rc != SBD_OK) {
        c->has_result = 0;
        set_error(c, rc, e->sql, e->sql_len);
        if (rc == SBD_CONN_LOST) { /* what was in flight died with it */
            c->n = 0;
            c->pipelining = 0;
        }
        return rc;
    }
    int64_t lat = sb_now_ns() - e->t0;
    sb_histogram_record(c->stats->kind_latency[e->kind], lat);
    if (__builtin_expect(c->first_pending, 0)) { /* a worker's new connection */
        c->first_pending = 0;
        sb_histogram_record(c->stats->connect_phase[SB_CONN_FIRST], lat);
    }
    if (e->named >= 0) {
        struct sb_named_stat *ns = &c->stats->named[e->named];
        sb_histogram_record(ns->latency, lat);
        SB_ADD(ns->count, 1);
    }
    c->has_result = c->info.nfields > 0;
    if (c->has_result && c->info.nfields > c->row_cap) {
        struct sbd_value *row = realloc(c->row, (size_t)c->info.nfields * sizeof *row);
        if (row == NULL) {
            drv->free_result(c->dc);
            c->has_result = 0;
            set_oom(c);
            return SBD_ERROR;
        }
        c->row = row;
        c->row_cap = c->info.nfields;
    }
    SB_ADD(c->stats->queries[e->kind], 1);
    return SBD_OK;
}

/* The oldest statement in flight was answered with status rc: count it,
 * or keep its failure to report (only the first one). */
static void complete_oldest(struct sb_conn *c, int rc)
{
    struct sb_inflight *e = &c->ring[c->head];
    c->head = c->head + 1 == c->depth ? 0 : c->head + 1;
    c->n--;
    if (c->first_rc != SBD_OK && (e->kind == SB_Q_COMMIT || e->kind == SB_Q_ROLLBACK))
        c->txn_over = 1; /* a COMMIT/ROLLBACK behind the failure ended it */
    rc = account(c, e, rc);
    if (rc == SBD_OK || c->first_rc != SBD_OK)
        return;
    c->first_rc = rc;
    c->first_err = c->err;
    c->first_sql = c->err_sql;
    c->first_sql_len = c->err_sql_len;
}

/* Ends a completion: the kept failure (into c->err) or SBD_OK. */
static int settle(struct sb_conn *c)
{
    int rc = c->first_rc;
    c->first_rc = SBD_OK;
    if (rc != SBD_OK) {
        c->err = c->first_err;
        c->err.status = rc;
        c->err_sql = c->first_sql;
        c->err_sql_len = c->first_sql_len;
    }
    c->done_rc = rc;
    return rc;
}

int sb_conn_complete(struct sb_conn *c, int target, int *want_write)
{
    *want_write = 0;
    c->wait_target = target;
    while (c->n > (c->first_rc != SBD_OK ? 0 : target)) {
        int rc = c->dc ? drv->poll_result(c->dc, &c->info, want_write) : SBD_CONN_LOST;
        if (rc == SBD_AGAIN)
            return rc;
        complete_oldest(c, rc);
    }
    *want_write = 0;
    return settle(c);
}

int sb_conn_resume(struct sb_conn *c, int *want_write)
{
    return sb_conn_complete(c, c->wait_target, want_write);
}

int sb_conn_socket(struct sb_conn *c)
{
    return c->dc && c->n > 0 ? drv->socket(c->dc) : -1;
}

int sb_conn_wait(struct sb_conn *c, int target)
{
    int ww;
    int rc = sb_conn_complete(c, target, &ww);
    while (rc == SBD_AGAIN) {
        struct sbd_io io;
        if (conn_io_want(c, &io)) {
            io_step_here(c, &io);
            rc = sb_conn_complete(c, target, &ww);
            continue;
        }
        struct pollfd pfd = {.fd = sb_conn_socket(c), .events = (short)(POLLIN | (ww ? POLLOUT : 0))};
        while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
            ;
        rc = sb_conn_complete(c, target, &ww);
    }
    return rc;
}

int sb_conn_drain(struct sb_conn *c)
{
    int rc = c->n > 0 || c->first_rc != SBD_OK ? sb_conn_wait(c, 0) : SBD_OK;
    if (c->pipelining && c->dc != NULL) {
        int r = drv->pipeline(c->dc, 0);
        if (r != SBD_OK && rc == SBD_OK) {
            set_error(c, r, NULL, 0);
            rc = r;
        }
    }
    c->pipelining = 0;
    return rc;
}

/* sb_conn_submit's uncommon work before a send, when statements are in
 * flight, a pipeline is open or a failed transaction was ended: waiting
 * (blocking) for room or for every answer.  SBD_OK to go on (*skip = 1
 * when r is a ROLLBACK with nothing left to do: the server already rolled
 * the failed transaction back), or the error. */
static int make_room(struct sb_conn *c, const struct sb_req *r, int queue, int *skip)
{
    if (r->verb == SB_TXN_ROLLBACK && c->txn_over && c->n == 0 && !queues(r, queue)) {
        c->txn_over = 0;
        *skip = 1;
        return SBD_OK;
    }
    int target = sb_conn_submit_target(c, r, queue);
    return target == 0 ? sb_conn_drain(c) : target > 0 ? sb_conn_wait(c, target) : SBD_OK;
}

/* The SQL a transaction verb is sent as, when the driver has no call. */
static const char *const txn_sql[] = {"", "BEGIN", "COMMIT", "ROLLBACK"};
static const size_t txn_len[] = {0, 5, 6, 8};

/* What goes on the wire for one request: text, or a driver statement and
 * its values. */
struct wire {
    const char *sql;
    size_t len;
    int transient;                /* the text may not outlive the call */
    int nparams, named;
    sbd_stmt *ds;                 /* NULL: send the text */
    const struct sbd_value *vals;
};

/* A request on a closed connection fails as lost, naming its text. */
static int refuse_closed(struct sb_conn *c, const struct sb_req *r)
{
    const struct sb_stmt *s = r->stmt;
    set_error(c, SBD_CONN_LOST, s ? s->sql : r->verb ? txn_sql[r->verb] : r->sql,
              s ? s->sql_len : r->verb ? txn_len[r->verb] : r->len);
    return SBD_CONN_LOST;
}

/* Fills *w for r: a statement prepared now if it must be (blocking), its
 * values in placeholder order, or its literal SQL when emulated; a verb's
 * text; a query's text.  SBD_OK or the error (c->err). */
static inline int wire_of(struct sb_conn *c, const struct sb_req *r, struct wire *w)
{
    struct sb_stmt *s = r->stmt;
    w->transient = 1;
    w->nparams = 0;
    w->named = -1;
    w->ds = NULL;
    w->vals = NULL;
    if (s == NULL) {
        int verb = r->verb != SB_TXN_NONE;
        w->sql = verb ? txn_sql[r->verb] : r->sql;
        w->len = verb ? txn_len[r->verb] : r->len;
        w->transient = !verb;
        return SBD_OK;
    }
    int rc;
    if (sb_stmt_needs_prepare(s) && (rc = sb_stmt_driver_prepare(s)) != SBD_OK)
        return rc;
    w->named = s->named;
    w->vals = s->identity ? s->vals : sb_stmt_values(s);
    if (s->ds != NULL) {
        w->ds = s->ds;
        w->sql = s->sql;
        w->len = s->sql_len;
        w->nparams = s->nparams;
        w->transient = 0;
        return SBD_OK;
    }
    long n = sb_stmt_build_literal(s, w->vals); /* emulated: literal SQL in c->sql */
    if (n < 0) {
        set_oom(c);
        return SBD_ERROR;
    }
    w->sql = c->sql;
    w->len = (size_t)n;
    return SBD_OK;
}

/* The previous result goes; a queued statement on a pipelining connection
 * enters pipeline mode.  SBD_OK or the error. */
static inline int clear_for_send(struct sb_conn *c, int queued, const struct wire *w)
{
    if (c->has_result) {
        drv->free_result(c->dc);
        c->has_result = 0;
    }
    if (queued && c->pipelines && !c->pipelining) {
        int rc = drv->pipeline(c->dc, 1);
        if (rc != SBD_OK) {
            set_error(c, rc, w->sql, w->len);
            return rc;
        }
        c->pipelining = 1;
    }
    return SBD_OK;
}

/* The record of the statement about to be sent: *here for a blocking one
 * (it lives for the call), the ring's next slot for a queued one (with its
 * own copy of a transient text).  NULL when out of memory (c->err). */
static inline struct sb_inflight *record_of(struct sb_conn *c, const struct sb_req *r, int queued,
                                            const struct wire *w, struct sb_inflight *here)
{
    struct sb_inflight *e = here;
    if (queued) {
        int i = c->head + c->n;
        e = &c->ring[i >= c->depth ? i - c->depth : i];
    }
    e->kind = r->kind;
    e->named = w->named;
    e->sql = w->sql;
    e->sql_len = w->len;
    if (queued && w->transient) {
        if (sb_db_grow(&e->text, &e->text_cap, w->len + 1) != 0) {
            set_oom(c);
            return NULL;
        }
        memcpy(e->text, w->sql, w->len);
        e->sql = e->text;
    }
    memset(&c->info, 0, sizeof c->info);
    c->result_gen++;
    e->t0 = sb_now_ns();
    return e;
}

/* Runs the statement to its answer (the driver's own verb call, execute or
 * query), counted and timed.  Its status. */
static inline int complete_here(struct sb_conn *c, const struct sb_req *r, const struct wire *w,
                                struct sb_inflight *e)
{
    int (*own)(sbd_conn *) = r->verb != SB_TXN_NONE ? txn_call(r->verb) : NULL;
    int rc;
    if (own)
        rc = own(c->dc);
    else if (w->ds)
        rc = drv->execute(c->dc, w->ds, w->vals, w->nparams, &c->info);
    else if (r->stream && (drv->caps & SBD_CAP_STREAM))
        rc = drv->query_stream(c->dc, w->sql, w->len, &c->info);
    else
        rc = drv->query(c->dc, w->sql, w->len, &c->info);
    return account(c, e, rc);
}

/* Sends the statement without waiting; it joins the ring.  SBD_OK, or the
 * error of a send that failed (counted; what was in flight stays). */
static inline int send_queued(struct sb_conn *c, const struct wire *w, struct sb_inflight *e)
{
    int rc = w->ds ? drv->send_execute(c->dc, w->ds, w->vals, w->nparams)
                   : drv->send_query(c->dc, w->sql, w->len);
    if (rc != SBD_OK)
        return account(c, e, rc);
    if (c->n > 0)
        SB_ADD(c->stats->pipelined, 1);
    c->n++;
    c->txn_over = 0;
    return SBD_OK;
}

int sb_conn_submit(struct sb_conn *c, const struct sb_req *r, int queue, int *queued)
{
    int q = queue && !r->stream && queues(r, queue);
    if (queued != NULL)
        *queued = 0;
    if (c->dc == NULL)
        return refuse_closed(c, r);
    int rc, skip = 0;
    if (c->n > 0 || c->pipelining || c->first_rc != SBD_OK || c->txn_over) {
        if ((rc = make_room(c, r, queue, &skip)) != SBD_OK || skip)
            return rc;
    }
    struct wire w;
    if ((rc = wire_of(c, r, &w)) != SBD_OK || (rc = clear_for_send(c, q, &w)) != SBD_OK)
        return rc;
    struct sb_inflight here, *e = record_of(c, r, q, &w, &here);
    if (e == NULL)
        return SBD_ERROR;
    if (!q)
        return complete_here(c, r, &w, e);
    if ((rc = send_queued(c, &w, e)) == SBD_OK)
        *queued = 1;
    return rc;
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

const char *sb_conn_field_name(const struct sb_conn *c, int i)
{
    if (!c->has_result || c->dc == NULL || drv->field_name == NULL || i < 0 || i >= c->info.nfields)
        return NULL;
    return drv->field_name(c->dc, i);
}

void sb_conn_free_result(struct sb_conn *c)
{
    if (c->has_result && c->dc)
        drv->free_result(c->dc);
    c->has_result = 0;
}

void sb_conn_quiesce(struct sb_conn *c, const struct sb_stmt *s)
{
    if (s->ds && c->dc) {
        sb_conn_drain(c);
        sb_conn_free_result(c);
    }
}
