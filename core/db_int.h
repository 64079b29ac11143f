/*
 * The insides of a connection (struct sb_conn): private to core/.  The
 * facade's files (db.c, db_stmt.c, db_bulk.c) and the core's own users
 * (event.c, server_stats.c) include it; every other folder sees the
 * opaque struct and the accessors of db.h.
 */
#ifndef SB_DB_INT_H
#define SB_DB_INT_H

#include "db.h"

/* A statement sent and not answered yet (a slot of the connection's ring). */
struct sb_inflight {
    enum sb_qkind kind;        /* what it is counted as */
    int named;                 /* named slot, -1 */
    int64_t t0;                /* when it was sent */
    const char *sql;           /* its text, for error messages */
    size_t sql_len;
    char *text;                /* owned copy when the caller's text may go away */
    size_t text_cap;
};

struct sb_conn {
    const struct sbd_driver *drv;
    sbd_conn *dc;                 /* NULL while disconnected */
    int thread_id;
    int emulate_ps;               /* 1: statements are literal SQL */
    struct sb_thread_stats *stats;
    struct sbd_result_info info;  /* of the last statement answered */
    int has_result;
    uint64_t result_gen;          /* bumps with every statement sent */
    struct sbd_value *row;        /* fetch buffer, row_cap values */
    int row_cap;
    char *sql;                    /* scratch for literal SQL */
    size_t sql_cap;
    struct sbd_error err;         /* copy of the last error */
    const char *err_sql;          /* statement that failed (may be NULL) */
    size_t err_sql_len;
    struct sb_stmt **stmts;       /* open statements, for re-prepare */
    int nstmts, stmts_cap;
    /* statements in flight, oldest first: a ring of `depth` slots */
    struct sb_inflight *ring;
    int depth;                    /* 1, or --pipeline when the connection pipelines */
    int pipelines;                /* queued statements go in pipeline mode */
    int pipelining;               /* the driver is in pipeline mode now */
    int head, n;                  /* oldest slot, statements in flight */
    int wait_target;              /* of the last completion (sb_conn_resume) */
    int done_rc;                  /* outcome of the last completion */
    int first_rc;                 /* first failure among answers not yet returned */
    struct sbd_error first_err;   /* its details and statement */
    const char *first_sql;
    size_t first_sql_len;
    int txn_over;                 /* a COMMIT/ROLLBACK answered after the kept
                                     failure ended the failed transaction: the
                                     next blocking ROLLBACK has nothing to do */
    /* sysbench bulk_insert_* */
    char *bulk;
    size_t bulk_len, bulk_cap, bulk_prefix_len;
    int bulk_rows;
    int bulk_active;              /* between bulk_insert_init and _done */
    /* bulk_load_* */
    int bl_active, bl_native, bl_ncols;
    int bl_types[32];
};

/* 1 when s must be prepared (blocking) before it is sent. */
static inline int sb_stmt_needs_prepare(const struct sb_stmt *s)
{
    return s->ds == NULL && s->c->dc != NULL && !s->c->emulate_ps && !s->declined;
}

#endif
