/*
 * The insides of a connection (struct sb_conn) and of a prepared statement
 * (struct sb_stmt): private to core/.  The facade's files (db_sql.c below
 * db.c, then db_stmt.c, db_bulk.c, db_view.c) and the core's own users
 * (server_stats.c) include it; every other folder sees the opaque structs
 * and the accessors of db.h.
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
    int first_pending;            /* 1 from a worker's connect to its first
                                     statement answered (timed as first_query) */
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

/* A prepared statement (opaque outside core/: see db.h). */
struct sb_stmt {
    struct sb_conn *c;
    sbd_stmt *ds;                 /* driver statement, NULL when emulated */
    int declined;                 /* the driver would not prepare it: emulated */
    char *sql;                    /* owned copy of the text */
    size_t sql_len;
    enum sb_qkind kind;           /* what it is counted as */
    int named;                    /* slot in stats->named, -1 if unnamed */
    int nparams;                  /* placeholders in the text */
    int ncreated;                 /* parameters created by bind_create */
    int *types;                   /* enum sbd_type per placeholder */
    struct sbd_value *vals;       /* values per created parameter */
    char **strbuf;                /* owned string storage per parameter */
    size_t *strcap;
    size_t *maxlen;               /* a string parameter's longest value (bind_create's
                                     max_len; 0 = no limit): longer ones are cut, as
                                     sysbench's CHAR/VARCHAR parameters are */
    int *order;                   /* placeholder i -> created parameter */
    int bound;                    /* sb_stmt_bind has run: the types are known */
    int identity;                 /* order[i] == i for all i */
    struct sbd_value *ordered;    /* gathered values when not identity */
};

/* ---- db_sql.c: what a statement puts on the wire (calls neither db.c
 * nor db_stmt.c, and never waits for the connection) ---- */

/* Prepares s on the driver, or leaves it to be emulated when the driver
 * declines.  Returns SBD_OK or the error (c->err). */
int sb_stmt_driver_prepare(struct sb_stmt *s);
/* The parameter values in placeholder order. */
const struct sbd_value *sb_stmt_values(struct sb_stmt *s);
/* Writes s with its values as literals into c->sql; returns the length or
 * -1 when out of memory. */
long sb_stmt_build_literal(struct sb_stmt *s, const struct sbd_value *vals);
/* Appends a SQL literal for v to c->sql at *pos; 0 or -1 (out of memory). */
int sb_db_append_literal(struct sb_conn *c, size_t *pos, const struct sbd_value *v);
/* Grows *buf to at least need bytes; 0, or -1 when out of memory (the old
 * buffer stays valid). */
int sb_db_grow(char **buf, size_t *cap, size_t need);
/* Closes s's driver statement and frees s, taking it off its connection's
 * list.  Nothing of the connection may be in flight (sb_conn_quiesce). */
void sb_stmt_free(struct sb_stmt *s);

/* db.c: before s's driver statement is closed, waits for every statement
 * of c in flight and frees the result (nothing to do when s has none). */
void sb_conn_quiesce(struct sb_conn *c, const struct sb_stmt *s);

/* 1 when s must be prepared (blocking) before it is sent. */
static inline int sb_stmt_needs_prepare(const struct sb_stmt *s)
{
    return s->ds == NULL && s->c->dc != NULL && !s->c->emulate_ps && !s->declined;
}

#endif
