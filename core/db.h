/*
 * The connection facade between workloads and drivers.  It owns what every
 * driver would otherwise repeat: counting and timing statements by kind and
 * name, emulating prepared statements with literal SQL (--db-ps-mode=disable,
 * or drivers without server-side statements), sysbench's bulk_insert_*
 * batching, bulk loads for drivers without a native one, and re-preparing
 * statements after a reconnect.  Drivers only talk to the database and
 * classify errors.
 *
 * One statement path, as fio's queue() serves sync and async engines alike:
 * a statement is described by a request (struct sb_req: a query's text, a
 * prepared statement, or a transaction verb) and handed to sb_conn_submit.
 * Submit either completes it (a blocking call, or a driver that can only
 * block: it runs, is counted and timed, and its result is current) or
 * queues it (sent, its answer still to come: reported apart, *queued).  Queued statements
 * are recorded in one ring per connection: depth 1 normally, --pipeline
 * deep when the connection pipelines.  sb_conn_complete reads answers
 * without blocking, oldest first, until at most `target` statements are in
 * flight; sb_conn_wait does the same blocking.  Every answer is counted and
 * timed (from its send) exactly as a blocking statement would be.  The
 * first failure among answers is kept and returned by the completion that
 * reads it; the statements after it still run (each is its own unit, as
 * without pipelining) but their failures are consequences and not reported.
 * A blocking submit first waits for every answer and leaves pipeline mode.
 *
 * One sb_conn belongs to one thread.  Nothing here allocates per query once
 * buffers have grown to their working size.
 */
#ifndef SB_DB_H
#define SB_DB_H

#include <sbench/driver.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct sb_stmt;

/* Transaction verbs.  A driver with its own begin/commit/rollback gets
 * them as calls (always blocking); otherwise they are sent as SQL. */
enum sb_txn { SB_TXN_NONE = 0, SB_TXN_BEGIN, SB_TXN_COMMIT, SB_TXN_ROLLBACK };

/* One statement to run: exactly one of a query's text, a prepared
 * statement or a transaction verb.  Build it with sb_req_query,
 * sb_stmt_request or sb_req_txn. */
struct sb_req {
    const char *sql;           /* a query's text (len bytes, not NUL-terminated) */
    size_t len;
    struct sb_stmt *stmt;      /* or a prepared statement */
    enum sb_txn verb;          /* or a transaction verb */
    enum sb_qkind kind;        /* what it is counted as */
    int stream;                /* a query whose rows stream (the driver's
                                  query_stream, when it has one; always
                                  run blocking) */
};

/* A connection: opaque outside core/ (its insides are core/db_int.h's);
 * the binding reads it through the accessors below. */
struct sb_conn;

/* Global settings the facade needs; set once before threads start.  drv
 * is the loader's full-size table: a capability bit is set only when its
 * calls are there. */
void sb_db_setup(const struct sbd_driver *drv, int emulate_ps, int64_t max_bulk_bytes);
/* --pipeline=depth (0 = off).  Returns the depth connections will use: 0
 * when the driver cannot pipeline. */
int sb_db_set_pipeline(int depth);
const struct sbd_driver *sb_db_driver(void);

/* Opens a connection for thread_id, counting into stats (never NULL).
 * Returns NULL on failure with details in *err.  The caller owns the
 * connection; free with sb_conn_close. */
struct sb_conn *sb_conn_open(int thread_id, struct sb_thread_stats *stats, struct sbd_error *err);
/* Records the phases of c's opening that the driver saw (driver ABI 1.6)
 * into its stats, beside the connection time its opener recorded, and
 * times its first statement answered (sb_conn_reconnect does both
 * itself).  Not on the statement path. */
void sb_conn_note_phases(struct sb_conn *c);
/* Disconnects, frees its statements and itself.  NULL is a no-op. */
void sb_conn_close(struct sb_conn *c);
/* Closes the driver connection but keeps the statements' texts, so that
 * sb_conn_reconnect can bring them back; statements fail with
 * SBD_CONN_LOST until then. */
void sb_conn_disconnect(struct sb_conn *c);
/* Drops and reopens the driver connection; statements are prepared again
 * on their next execute.  Returns SBD_OK or SBD_CONN_LOST (c->err).
 * count_reconnect: count it as a reconnect (not for --reconnect=transaction,
 * which reopens before every event). */
int sb_conn_reconnect(struct sb_conn *c, int count_reconnect);

/* ---- the statement path ---- */

static inline struct sb_req sb_req_query(const char *sql, size_t len)
{
    struct sb_req r = {sql, len, NULL, SB_TXN_NONE, sb_classify_sql(sql, len), 0};
    return r;
}
static inline struct sb_req sb_req_query_stream(const char *sql, size_t len)
{
    struct sb_req r = {sql, len, NULL, SB_TXN_NONE, sb_classify_sql(sql, len), 1};
    return r;
}
static inline struct sb_req sb_req_txn(enum sb_txn verb)
{
    struct sb_req r = {NULL, 0, NULL, verb,
                       verb == SB_TXN_BEGIN ? SB_Q_BEGIN : verb == SB_TXN_COMMIT ? SB_Q_COMMIT
                                                                                : SB_Q_ROLLBACK,
                       0};
    return r;
}
/* 1 when the request ends a transaction (COMMIT, ROLLBACK, END). */
int sb_req_ends_txn(const struct sb_req *r);

/* 1 when the connection's driver can have a statement in flight (queue). */
int sb_conn_can_queue(const struct sb_conn *c);
/* How many statements may stay in flight before r can be submitted
 * (queued when `queue`) without blocking: -1 when it can go now.  Lets a
 * caller that can yield wait with sb_conn_complete first; sb_conn_submit
 * waits blocking otherwise. */
int sb_conn_submit_target(const struct sb_conn *c, const struct sb_req *r, int queue);
/* Runs r.  queue = 0: completes it (a blocking call; queued may be NULL).
 * queue = 1: sends it without waiting when the driver can (*queued = 1:
 * in flight, its answer read by a completion below), otherwise completes
 * it (*queued = 0).  Returns SBD_OK (sent, or completed: counted, its
 * result current) or the error (sb_conn_error, sb_conn_error_sql).  A
 * query's text need not outlive the call.  The steps, in db.c: refuse a
 * closed connection, make room (wait for answers), what goes on the wire,
 * clear the last result, the statement's record, complete or send. */
int sb_conn_submit(struct sb_conn *c, const struct sb_req *r, int queue, int *queued);
/* Reads answers without blocking until at most target statements are in
 * flight (every one after a failure).  SBD_AGAIN while that does not hold
 * (poll sb_conn_socket for reading, and for writing when *want_write);
 * otherwise the first failure among the answers read since the last
 * completion (into c->err), or SBD_OK; also kept in c->done_rc. */
int sb_conn_complete(struct sb_conn *c, int target, int *want_write);
/* sb_conn_complete with the target of the last call: what a scheduler
 * calls when the connection's socket is ready. */
int sb_conn_resume(struct sb_conn *c, int *want_write);
/* sb_conn_complete, blocking in poll() until it holds. */
int sb_conn_wait(struct sb_conn *c, int target);
/* The file descriptor to poll while statements are in flight, -1 if none. */
int sb_conn_socket(struct sb_conn *c);

/* --io=uring: connections opened from now on let the host move their
 * statements' bytes (struct sbd_driver's host_io) when the driver can.
 * Returns 1 when it can, else 0 (everything stays on the driver's I/O). */
int sb_db_set_host_io(int on);
/* The host's next I/O step for c's one statement in flight: 1 and *io
 * filled (send io->out_len bytes, receive up to io->in_room; both 0: none
 * left, sb_conn_resume reports what failed), or 0 when the driver does
 * this statement's I/O itself (poll sb_conn_socket).  Its result goes to
 * sb_conn_io_done (bytes, 0 at the end of the stream, -errno), then
 * sb_conn_resume parses it. */
int sb_conn_io_want(struct sb_conn *c, struct sbd_io *io);
/* What sb_conn_io_want answered so far in this process: bit 1 set when a
 * statement's bytes went through the host, bit 2 when one took the
 * driver's own I/O (sb_conn_wait's blocking steps are not counted). */
int sb_db_io_seen(void);
void sb_conn_io_done(struct sb_conn *c, enum sbd_io_kind kind, long result);

/* Blocking conveniences over sb_conn_submit. */
static inline int sb_conn_run(struct sb_conn *c, struct sb_req r)
{
    return sb_conn_submit(c, &r, 0, NULL);
}
static inline int sb_conn_query(struct sb_conn *c, const char *sql, size_t len)
{
    return sb_conn_run(c, sb_req_query(sql, len));
}

/* ---- what the binding reads of a connection (no field of it) ---- */

/* The last error (valid until the connection's next call; never NULL). */
const struct sbd_error *sb_conn_error(const struct sb_conn *c);
/* The statement that failed last, *len bytes (not NUL-terminated), or
 * NULL when none is known.  Owned by the connection, valid as the error. */
const char *sb_conn_error_sql(const struct sb_conn *c, size_t *len);
/* Bumps with every statement sent: a result object taken at generation g
 * is the current result while sb_conn_result_gen(c) == g. */
uint64_t sb_conn_result_gen(const struct sb_conn *c);
/* 1 when the last statement answered has a result set to fetch. */
int sb_conn_has_result(const struct sb_conn *c);
/* The last answered statement's result (nfields, nrows, affected rows);
 * owned by the connection, never NULL. */
const struct sbd_result_info *sb_conn_result_info(const struct sb_conn *c);
/* The row sb_conn_fetch read, result_info()->nfields values; owned by the
 * connection, valid until its next fetch or statement. */
const struct sbd_value *sb_conn_row(const struct sb_conn *c);
/* 1 when statements queued on c go in pipeline mode (--pipeline). */
int sb_conn_pipelines(const struct sb_conn *c);
/* The outcome of c's last completion (sb_conn_complete, resume, wait). */
int sb_conn_outcome(const struct sb_conn *c);
/* 1 while c has answers to read or a failure among them not yet returned. */
int sb_conn_busy(const struct sb_conn *c);
/* The driver's SQL dialect ("ansi" while disconnected) and the server's
 * version ("" when unknown): static or owned by the driver connection. */
const char *sb_conn_dialect(const struct sb_conn *c);
const char *sb_conn_server_version(const struct sb_conn *c);
/* 1 between sb_conn_bulk_insert_init and _done. */
int sb_conn_bulk_inserting(const struct sb_conn *c);
/* Between sb_conn_bulk_load_begin and _end: the columns' types
 * (*ncols of them; owned by the connection); NULL outside a bulk load. */
const int *sb_conn_bulk_load_types(const struct sb_conn *c, int *ncols);

/* Next row of the current result (sb_conn_row): SBD_OK, SBD_DONE or error. */
int sb_conn_fetch(struct sb_conn *c);
void sb_conn_free_result(struct sb_conn *c);
/* The name the server gave column i (0-based) of the current result, or
 * NULL (no result, i out of range, a driver that cannot name columns);
 * owned by the driver connection, valid until its next call. */
const char *sb_conn_field_name(const struct sb_conn *c, int i);

/* Waits for every answer and leaves pipeline mode (before a call that
 * blocks or must not run while statements are in flight).  Returns the
 * first failure among the answers (c->err) or SBD_OK. */
int sb_conn_drain(struct sb_conn *c);

/* ---- prepared statements (db_stmt.c) ---- */

/* Prepares sql.  Returns the statement (owned by the connection until
 * sb_stmt_close or sb_conn_close) or NULL with details in c->err and, for
 * an error of the driver, c->err_sql = sql (the caller's text). */
struct sb_stmt *sb_stmt_prepare(struct sb_conn *c, const char *sql, size_t len);
/* Names the statement: its count and latency are reported under `name`.
 * Returns 0, or -1 when no more names fit. */
int sb_stmt_set_name(struct sb_stmt *s, const char *name);
/* Creates the next parameter slot of the given type; returns its index or
 * -1 when the statement has no more placeholders. */
int sb_stmt_param_create(struct sb_stmt *s, int type, size_t maxlen);
/* Binds created parameters to placeholders: order[i] is the created
 * parameter for placeholder i.  Returns 0 or -1 on a bad index. */
int sb_stmt_bind(struct sb_stmt *s, const int *order, int n);
/* Sets parameter `slot` to a string (copied into the slot's storage). */
int sb_stmt_set_str(struct sb_stmt *s, int slot, const char *v, size_t len);
/* Storage of at least len bytes for slot's string; the caller writes into
 * it then calls sb_stmt_set_len.  NULL when out of memory. */
char *sb_stmt_str_buf(struct sb_stmt *s, int slot, size_t len);
void sb_stmt_set_len(struct sb_stmt *s, int slot, size_t len);
/* Waits for the statements of s's connection in flight, then closes s and
 * frees it.  NULL is a no-op. */
void sb_stmt_close(struct sb_stmt *s);

/* A statement is opaque outside core/ (its insides are core/db_int.h's).
 * What the binding needs of one it reads once, when it prepares the
 * statement or creates a parameter, and keeps: running the statement and
 * setting an integer parameter call nothing here. */
/* Placeholders in the text, and parameters created so far. */
int sb_stmt_nparams(const struct sb_stmt *s);
int sb_stmt_ncreated(const struct sb_stmt *s);
/* The request that runs s (sb_conn_submit), to keep and pass each time. */
struct sb_req sb_stmt_request(struct sb_stmt *s);
/* Parameter slot's value, written in place by the caller (its type is the
 * slot's; a string's bytes go through sb_stmt_set_str or sb_stmt_str_buf),
 * valid until sb_stmt_close; and a string slot's longest value (0: no
 * limit).  slot is one sb_stmt_param_create returned. */
struct sbd_value *sb_stmt_param(struct sb_stmt *s, int slot);
size_t sb_stmt_param_maxlen(const struct sb_stmt *s, int slot);

/* ---- bulk loads (db_bulk.c) ---- */

/* sysbench's multi-row INSERT batching. */
int sb_conn_bulk_insert_init(struct sb_conn *c, const char *prefix, size_t len);
int sb_conn_bulk_insert_next(struct sb_conn *c, const char *values, size_t len);
int sb_conn_bulk_insert_done(struct sb_conn *c);

/* Fast loads for prepare: native bulk load when the driver has one,
 * multi-row INSERTs otherwise.  Rows count into stats->loaded_rows. */
int sb_conn_bulk_load_begin(struct sb_conn *c, const char *table, const char *const *cols,
                            const int *types, int ncols);
int sb_conn_bulk_load_row(struct sb_conn *c, const struct sbd_value *vals);
int sb_conn_bulk_load_end(struct sb_conn *c);
/* Largest multi-row INSERT to build, in bytes (--db-bulk-bytes). */
int64_t sb_db_bulk_max(void);

/* A list of connections (not owned): those a worker's or a client's
 * script opened, for --reconnect=transaction.  Starts zeroed; free with
 * sb_conn_list_free. */
struct sb_conn_list {
    struct sb_conn **c;
    int n, cap;
};
/* Adds c; 0, or -1 when out of memory. */
int sb_conn_list_add(struct sb_conn_list *l, struct sb_conn *c);
/* Removes c (no-op when absent). */
void sb_conn_list_remove(struct sb_conn_list *l, const struct sb_conn *c);
void sb_conn_list_free(struct sb_conn_list *l);
/* Reopens every connection of l (--reconnect=transaction: not counted as
 * reconnects; the time counts as connection time).  SBD_OK, or the first
 * failure (that connection's err). */
int sb_conn_list_reopen(struct sb_conn_list *l, struct sb_conn **failed);

/* Prepares on the driver every statement of l's connections whose
 * parameter types are known (none, or created and bound) and that is not
 * prepared yet: called when a worker's scripts are initialised, before the
 * clock starts, so that the first window does not pay for the prepares (as
 * sysbench prepares at con:prepare).  A statement the server refuses stays
 * unprepared, its error for its first execute to report. */
void sb_conn_list_prepare_ready(struct sb_conn_list *l);

/* Counts '?' placeholders outside quoted strings. */
int sb_count_placeholders(const char *sql, size_t len);

#endif
