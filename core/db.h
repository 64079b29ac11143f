/*
 * The connection facade between workloads and drivers.  It owns what every
 * driver would otherwise repeat: counting statements by kind, emulating
 * prepared statements with literal SQL (--db-ps-mode=disable, or drivers
 * without server-side statements), sysbench's bulk_insert_* batching, bulk
 * loads for drivers without a native one, and re-preparing statements after
 * a reconnect.  Drivers only talk to the database and classify errors.
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

/* A statement sent in pipeline mode and not answered yet. */
struct sb_pipe_entry {
    int kind;                     /* enum sb_qkind */
    int named;                    /* named slot, -1 */
    int64_t t0;                   /* when it was sent */
    const char *sql;              /* its text, for error messages */
    size_t sql_len;
    char *text;                   /* owned copy of a plain query's text */
    size_t text_cap;
};

struct sb_conn {
    const struct sbd_driver *drv;
    sbd_conn *dc;                 /* NULL while disconnected */
    int thread_id;
    int emulate_ps;               /* 1: statements are literal SQL */
    struct sb_thread_stats *stats;
    struct sbd_result_info info;  /* of the last query/execute */
    int has_result;
    uint64_t result_gen;          /* bumps on every query/execute */
    struct sbd_value *row;        /* fetch buffer, row_cap values */
    int row_cap;
    char *sql;                    /* scratch for literal SQL */
    size_t sql_cap;
    struct sbd_error err;         /* copy of the last error */
    int cur_named;                /* named slot of the statement in flight, -1 */
    const char *err_sql;          /* statement that failed (may be NULL) */
    size_t err_sql_len;
    struct sb_stmt **stmts;       /* open statements, for re-prepare */
    int nstmts, stmts_cap;
    /* sysbench bulk_insert_* */
    char *bulk;
    size_t bulk_len, bulk_cap, bulk_prefix_len;
    int bulk_rows;
    /* bulk_load_* */
    int bl_active, bl_native, bl_ncols;
    int bl_types[32];
    /* a nonblocking statement in flight (sb_conn_*_send) */
    int pending;
    int pend_kind;
    const char *pend_sql;
    size_t pend_sql_len;
    int64_t pend_t0;
    int async_rc;                 /* its outcome, once sb_conn_poll finished */
    /* --pipeline: statements sent and not answered yet, oldest first */
    int pipe_max;                 /* ring size; 0 = this connection does not pipeline */
    int pipe_on;                  /* the driver is in pipeline mode */
    struct sb_pipe_entry *pipe;   /* ring of pipe_max entries */
    int pipe_head, pipe_n;
    int pipe_waiting;             /* sb_conn_poll drains to pipe_target */
    int pipe_target;
    int pipe_rc;                  /* first failure among the answers since the last wait */
    struct sbd_error pipe_err;    /* its details and statement */
    const char *pipe_err_sql;
    size_t pipe_err_sql_len;
    int pipe_txn_over;            /* a COMMIT/ROLLBACK answered after the kept
                                     failure ended the failed transaction: the
                                     next sb_conn_rollback has nothing to do */
    void *pipe_owner;             /* the Lua binding's: state that sent them */
    int pipe_listed;              /* the Lua binding's: on its worker's list */
};

struct sb_stmt {
    struct sb_conn *c;
    sbd_stmt *ds;                 /* driver statement, NULL when emulated */
    char *sql;                    /* owned copy of the text */
    size_t sql_len;
    int kind;                     /* enum sb_qkind */
    int named;                    /* slot in stats->named, -1 if unnamed */
    int nparams;                  /* placeholders in the text */
    int ncreated;                 /* parameters created by bind_create */
    int *types;                   /* enum sbd_type per placeholder */
    struct sbd_value *vals;       /* values per created parameter */
    char **strbuf;                /* owned string storage per parameter */
    size_t *strcap;
    int *order;                   /* placeholder i -> created parameter */
    int identity;                 /* order[i] == i for all i */
    struct sbd_value *ordered;    /* gathered values when not identity */
};

/* Global settings the facade needs; set once before threads start. */
void sb_db_setup(const struct sbd_driver *drv, int emulate_ps, int64_t max_bulk_bytes);
/* --pipeline=depth (0 = off).  Returns the depth connections will use: 0
 * when the driver cannot pipeline. */
int sb_db_set_pipeline(int depth);
const struct sbd_driver *sb_db_driver(void);

/* Opens a connection for thread_id, counting into stats (never NULL).
 * Returns NULL on failure with details in *err.  The caller owns the
 * connection; free with sb_conn_close. */
struct sb_conn *sb_conn_open(int thread_id, struct sb_thread_stats *stats, struct sbd_error *err);
/* Disconnects, frees its statements and itself.  NULL is a no-op. */
void sb_conn_close(struct sb_conn *c);
/* Closes the driver connection but keeps the statements' texts, so that
 * sb_conn_reconnect can bring them back; calls fail with SBD_CONN_LOST
 * until then. */
void sb_conn_disconnect(struct sb_conn *c);
/* Drops and reopens the driver connection and re-prepares every open
 * statement.  Returns SBD_OK or an error status (details in c->err). */
int sb_conn_reconnect(struct sb_conn *c);

/* Like sb_conn_reconnect but not counted as a reconnect: what
 * --reconnect=transaction does before every event. */
int sb_conn_reopen(struct sb_conn *c);

/* Runs one statement.  Returns an enum sbd_status; on failure c->err holds
 * the details. */
int sb_conn_query(struct sb_conn *c, const char *sql, size_t len);
/* Next row of the current result into c->row: SBD_OK, SBD_DONE or error. */
int sb_conn_fetch(struct sb_conn *c);
void sb_conn_free_result(struct sb_conn *c);
int sb_conn_begin(struct sb_conn *c);
int sb_conn_commit(struct sb_conn *c);
int sb_conn_rollback(struct sb_conn *c);

/* Prepares sql.  Returns the statement (owned by the connection until
 * sb_stmt_close or sb_conn_close) or NULL with details in c->err. */
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
int sb_stmt_execute(struct sb_stmt *s);
void sb_stmt_close(struct sb_stmt *s);

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

/* Nonblocking statements (drivers with SBD_CAP_NONBLOCKING), for client
 * coroutines.  sb_conn_can_send: the driver can.  The *_send calls start
 * what sb_conn_query / sb_stmt_execute / sb_conn_begin... would do and
 * return SBD_OK when it is in flight, else the error exactly as the
 * blocking call (nothing in flight).  sb_conn_poll: SBD_AGAIN while the
 * answer is incomplete (poll sb_conn_socket for reading, and writing when
 * *want_write), else the outcome (also in c->async_rc), with the same
 * timing, counting and result as the blocking call.  sql given to
 * sb_conn_query_send must stay valid until the statement completes. */
int sb_conn_can_send(const struct sb_conn *c);
int sb_conn_socket(struct sb_conn *c);
int sb_conn_query_send(struct sb_conn *c, const char *sql, size_t len);
int sb_stmt_execute_send(struct sb_stmt *s);
/* which: 0 BEGIN, 1 COMMIT, 2 ROLLBACK.  Returns SBD_UNSUPPORTED (nothing
 * done) when the driver has its own begin/commit/rollback: call the
 * blocking one then. */
int sb_conn_txn_send(struct sb_conn *c, int which);
int sb_conn_poll(struct sb_conn *c, int *want_write);

/* Pipelining (--pipeline, drivers with SBD_CAP_PIPELINE).  A pipelined
 * statement is sent without waiting for its answer; answers are read in
 * order, each counted and timed like a blocking statement (latency from
 * its send to its answer).  The first failure among them is kept and
 * returned by the next wait; the statements after it still run (each has
 * its own sync point, as without pipelining) but their failures are
 * consequences and not reported.  The current result is that of the last
 * statement answered.  Every blocking call on the connection first waits
 * for all answers and leaves pipeline mode.
 *
 * sb_pipe_enabled: the connection pipelines.  sb_pipe_has_room: fewer than
 * pipe_max statements in flight (the sends require it).  The sends return
 * SBD_OK when in flight, else the error (nothing sent).  sb_conn_txn_pipe
 * returns SBD_UNSUPPORTED when the driver has its own begin/commit.
 * sb_pipe_wait_start: when at most `target` statements are in flight,
 * returns the kept failure (or SBD_OK) and forgets it; otherwise
 * SBD_AGAIN, and sb_conn_poll then reads answers until that holds (all
 * of them after a failure).  sb_pipe_wait does the same blocking. */
int sb_pipe_enabled(const struct sb_conn *c);
/* 1 when sb_stmt_execute_pipe must first prepare s, which waits for every
 * answer on its connection. */
int sb_pipe_needs_prepare(const struct sb_stmt *s);
int sb_pipe_has_room(const struct sb_conn *c);
int sb_conn_query_pipe(struct sb_conn *c, const char *sql, size_t len);
int sb_stmt_execute_pipe(struct sb_stmt *s);
int sb_conn_txn_pipe(struct sb_conn *c, int which);
int sb_pipe_wait_start(struct sb_conn *c, int target);
int sb_pipe_wait(struct sb_conn *c, int target);

/* Counts '?' placeholders outside quoted strings. */
int sb_count_placeholders(const char *sql, size_t len);
/* Writes v as decimal into out (at least 21 bytes); returns the length. */
size_t sb_i64_to_text(int64_t v, char *out);

#endif
