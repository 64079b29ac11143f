/*
 * pgsql driver internals shared by its files (pgsql.c lists them): the
 * settings, the connection and statement structs, and each file's
 * functions the others call.  Not part of the ABI; only the driver's
 * files include it.
 */
#ifndef SBENCH_PGSQL_INT_H
#define SBENCH_PGSQL_INT_H

#include <sbench/driver.h>

#include <libpq-fe.h>
#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include "pgsql_errors.h"
#include "pgsql_wire.h"
#include "../common/host_io.h"
#include "../common/list.h"
#include "../common/password_cmd.h"
#include "../common/transport.h"

/* A COPY statement run as a query or execute: the reason sent with
 * CopyFail, and the error reported. */
#define PGD_COPY_REASON "COPY through query is not supported"
#define PGD_COPY_MSG "COPY FROM STDIN / TO STDOUT cannot run as a plain query; " \
                     "use the bulk load calls"

/* Room for any integer or double that pgd_fmt_double and sbc_i64_to_text
 * write. */
#define PGD_NUM_MAX 32

/* The server cancels a statement at --db-query-timeout (statement_timeout)
 * and sends its error; the client gives up on an answer that is still not
 * complete this much later, and drops the connection. */
#define PGD_TIMEOUT_GRACE_MS 500

/* Settings read once by pgd_init (pgsql.c); read-only while threads run. */
struct pgd_settings {
    const struct sbd_host *host;
    struct sbc_list hosts;        /* empty: leave the host to libpq ($PGHOST) */
    const char *port, *user, *dbname, *sslmode, *sslrootcert; /* NULL: libpq's */
    char port_buf[8], ctimeout_buf[16];
    char *password;               /* NULL: leave it to libpq */
    const char *conninfo;         /* --pgsql-conninfo, NULL if not given */
    char *conninfo_password;      /* its password, for masking only */
    struct sbc_pwcmd pwcmd;       /* --pgsql-password-command: run at connect */
    const char *secret;           /* what messages mask: the password, unless it is
                                     also the user or database name (sbc_secret) */
    char session_sql[200];        /* run after connecting, "" if nothing */
    int wire;                     /* --pgsql-wire */
    int wire_timeout_ms;          /* the fast path's client-side limit for
                                     one answer (--db-query-timeout plus
                                     PGD_TIMEOUT_GRACE_MS), 0: none */
    size_t max_answer;            /* --db-max-result-bytes */
    locale_t c_locale;            /* for strtod_l: the user's locale may use ',' */
};
extern struct pgd_settings pgd_cfg;

/* How a connection's statements travel: through libpq (pgd_tp_libpq:
 * pgsql_stmt.c, pgsql_async.c) or over the wire fast path (pgd_tp_wire and,
 * in pipeline mode, pgd_tp_wire_pipe: pgsql_wire.c).  pgd_wire_setup picks
 * one at connect; entering and leaving a wire pipeline switch between the
 * two wire ones, and pgd_wire_off puts libpq's in for good when the fast
 * path gives the connection up.  The driver table's calls check what
 * every transport needs (no bulk load, nothing in flight, the parameter
 * count) and call through the connection's, so no call tests which path
 * to take.  A transport may hand a statement it does not serve to libpq's
 * (the wire path does so with SET and RESET). */
extern const struct sbc_transport pgd_tp_libpq, pgd_tp_wire, pgd_tp_wire_pipe;

struct sbd_stmt {
    struct sbd_stmt *next;        /* list of the connection's statements */
    char name[32];                /* server-side name, unique per conn */
    int nparams;
    int *types;                   /* enum sbd_type of each parameter */
    const char **values;          /* PQexecPrepared's paramValues */
    char *buf;                    /* text of all parameters, NUL-separated */
    size_t bufcap;
    /* PQexecPrepared's paramLengths and paramFormats: NULL unless a
     * parameter is SBD_TYPE_BYTES (sent in binary format, 1) */
    int *lengths;
    int *formats;
    /* every result column is bytea, as its first answer showed
     * (pgd_learn_columns): from its second execute on, results are asked
     * for in binary format (PQexecPrepared's resultFormat 1, the fast
     * path's Bind), raw bytes on the wire instead of twice as many hex
     * digits.  No extra message: a Describe would be one more implicit
     * transaction the server counts. */
    int described;
    int result_binary;
};

struct sbd_conn {
    PGconn *pg;
    const struct sbc_transport *tp; /* never NULL once connected */
    /* poll_result of the path that sent what is in flight */
    int (*poll)(sbd_conn *c, struct sbd_result_info *info, int *want_write);
    struct sbd_error err;
    int64_t counter_reads;        /* server_counters calls on this conn */
    int sampler_ready;            /* pgsql_sample.c's session set up */
    char version[64];             /* "PostgreSQL 15.20" */
    struct sbd_connect_phases phases; /* what opening it cost */

    /* current result: a PGresult, or (wire_res) the fast path's answer */
    PGresult *res;
    int wire_res;
    int nrows, nfields, row;
    unsigned char *kinds;         /* per column: enum sbd_type to report */
    int kinds_cap;

    char *sql;                    /* NUL-terminated copy of query text */
    size_t sql_cap;

    struct sbd_stmt *stmts;
    unsigned long next_stmt_id;

    /* nonblocking statements (pgsql_async.c) */
    int nonblocking;              /* PQsetnonblocking done */
    int in_flight;                /* statements sent, not yet answered */
    int flushing;                 /* PQflush has more to send */
    PGresult *async_res;          /* last result received so far */
    sbd_stmt *async_stmt;         /* the statement in flight without a
                                     pipeline, not yet described; else NULL */
    int pipeline;                 /* in libpq pipeline mode (--pipeline) */
    int sync_due;                 /* pipeline: the oldest statement is
                                     answered, its Sync result is not */

    /* wire-protocol fast path (pgsql_wire.c): wire_on while --pgsql-wire
     * is on, the session is unencrypted and the fast path has not given
     * up on the connection (c->tp is one of its transports then) */
    int wire_on;
    void *tls;                    /* libpq's SSL object on an encrypted
                                     session (pgsql_tls.c), else NULL */
    int64_t wire_deadline;        /* sbc_now_ms() time the answer in flight
                                     must be complete by, 0: none */
    long wire_execs;              /* statements it served (logged at debug) */
    int wire_simple;              /* the request is a simple Query */
    int wire_flight;              /* nonblocking: its answer is awaited */
    int wire_fresh;               /* nonblocking: not polled since the send */
    size_t wire_sent;             /* nonblocking: bytes of the request sent
                                     (wire.out, or pipe_out when pipelined) */
    int wire_pipe;                /* --pipeline on the fast path */
    int sock_blocking;            /* the fast path made the socket blocking
                                     (pgd_sock_blocking) */
    int wire_answered;            /* pipelined: an answer was handed out,
                                     pgd_wire_next is due */
    /* host I/O (ABI 1.4, pgsql_wire.c): with host.on, the nonblocking
     * fast path's statements are only built (host.active), the host moves
     * their bytes and reports them with io_done */
    struct sbc_host_io host;
    char *pipe_out;               /* pipelined: requests queued to send */
    size_t pipe_out_len, pipe_out_cap;
    struct pgd_wire wire;

    /* bulk load (pgsql_bulk.c) */
    int in_copy;
    int64_t pq_deadline;          /* pgsql_pqwait.c: libpq's answer is due by
                                     then (sbc_now_ms() time), 0: no limit */
    int pq_timed_out;             /* it was not: the socket is shut down */
    int copy_ncols;
    char *copy_buf;
    size_t copy_len, copy_cap;
};

/* pgsql.c: process setup (the driver table's members of the same names). */
int pgd_init(const struct sbd_host *h, char *errbuf, size_t errlen);
void pgd_done(void);
/* Static "libpq 15.20"; never fails. */
const char *pgd_client_version(void);

/* pgsql_conn.c: connections.  On success *out is a new connection owned
 * by the caller (free with pgd_disconnect); on failure *out is NULL and
 * err says why. */
int pgd_connect(int thread_id, sbd_conn **out, struct sbd_error *err);
void pgd_disconnect(sbd_conn *c);
/* Owned by c, valid until its next call. */
const struct sbd_error *pgd_last_error(sbd_conn *c);
/* Static string. */
const char *pgd_dialect(sbd_conn *c);
/* Owned by c, valid until disconnect. */
const char *pgd_server_version(sbd_conn *c);

/* pgsql_fail.c: fills err: status, SQLSTATE (may be NULL), "prefix msg"
 * (prefix may be NULL) with both passwords libpq may use masked.  Returns
 * status. */
int pgd_set_error(struct sbd_error *err, int status, const char *sqlstate, const char *prefix,
                  const char *msg);
/* pgsql_fail.c: fills conn->err from res (may be NULL: then from the
 * connection's message) and returns the status it classified. */
int pgd_error(sbd_conn *c, const PGresult *res);
/* pgsql_fail.c: fills conn->err from a server error's SQLSTATE and primary
 * message (either may be NULL) and returns its status, classified as
 * pgd_error does; conn_bad: the connection is known to be gone. */
int pgd_server_error(sbd_conn *c, const char *sqlstate, const char *msg, int conn_bad);
/* pgsql_fail.c: sets conn->err to SBD_ERROR with a fixed message. */
int pgd_fail(sbd_conn *c, const char *msg);
/* pgsql_fail.c: sets conn->err to SBD_CONN_LOST with msg. */
int pgd_lost(sbd_conn *c, const char *msg);
/* pgsql_fail.c: logs a server notice at debug level, as libpq's notice
 * receiver does for this driver. */
void pgd_notice(const char *severity, const char *msg);
/* pgsql_stmt.c: the driver table's statement calls. */
int pgd_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
int pgd_fetch_row(sbd_conn *c, struct sbd_value *row);
void pgd_free_result(sbd_conn *c);
/* The name the server gave column i of the current result (PQfname, or the
 * fast path's RowDescription), or NULL. */
const char *pgd_field_name(sbd_conn *c, int i);

/* pgsql_connect_poll.c: PQconnectStartParams's connection, driven to its
 * end (or failure, or its connect_timeout: *timed_out) with its phases
 * timed into *ph (-1 each when it failed).  NULL: out of memory. */
PGconn *pgd_connect_poll(const char *const *kw, const char *const *val, int expand,
                         struct sbd_connect_phases *ph, int *timed_out);
/* The phases of c's opening (driver table's connect_phases). */
void pgd_connect_phases(sbd_conn *c, struct sbd_connect_phases *out);
/* On success *out is owned by c until pgd_close_stmt or disconnect. */
int pgd_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                const int *param_types, sbd_stmt **out);
int pgd_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                int nparams, struct sbd_result_info *info);
void pgd_close_stmt(sbd_conn *c, sbd_stmt *s);
/* Frees a statement's memory (NULL: nothing), not the server's. */
void pgd_free_stmt(struct sbd_stmt *s);
/* After s's first successful answer (c's current result): notes whether
 * every result column is bytea (s->result_binary).  Once per statement. */
void pgd_learn_columns(sbd_conn *c, sbd_stmt *s);
int pgd_server_counters(sbd_conn *c, struct sbd_server_counters *out);
/* pgsql_sample.c: the sampler's counters and active-session sample. */
int pgd_server_sample(sbd_conn *c, struct sbd_server_sample *out);
int pgd_server_waits(sbd_conn *c, struct sbd_wait *out, int max, int *n);
/* pgsql_stmt.c: releases the current result, if any. */
void pgd_clear_result(sbd_conn *c);
/* pgsql_stmt.c: takes the connection out of COPY IN/OUT state, discarding
 * what was sent; used after a failure and for a COPY run through query. */
void pgd_copy_abort(sbd_conn *c, const char *reason);
/* pgsql_stmt.c, for pgsql_async.c: takes ownership of res (NULL: the send
 * failed) and makes it the current result, as query does; copies sql into
 * c->sql NUL-terminated (0, or -1 out of memory); writes the text of
 * params into s->values (SBD_OK or the failure's status). */
int pgd_take_result(sbd_conn *c, PGresult *res, struct sbd_result_info *info);
/* Sets info (dummy when info is NULL) to "no result" and returns the one
 * to fill, for the functions that make a statement's answer the result. */
static inline struct sbd_result_info *pgd_info_none(struct sbd_result_info *info,
                                                    struct sbd_result_info *dummy)
{
    if (info == NULL)
        info = dummy;
    info->affected_rows = 0;
    info->nrows = 0;
    info->nfields = 0;
    return info;
}
int pgd_copy_sql(sbd_conn *c, const char *sql, size_t len);
int pgd_fill_params(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams);

/* pgsql_stmt.c: query and execute through libpq (pgd_tp_libpq's). */
int pgd_pq_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
int pgd_pq_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams,
                   struct sbd_result_info *info);

/* pgsql_async.c: the driver table's nonblocking and pipeline calls, and
 * libpq's (pgd_tp_libpq's) sends, poll and pipeline mode. */
int pgd_socket(sbd_conn *c);
int pgd_send_query(sbd_conn *c, const char *sql, size_t len);
int pgd_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params, int nparams);
int pgd_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write);
int pgd_pipeline(sbd_conn *c, int on);
/* pgsql_tls.c: the fast path's I/O through the session's TLS (c->tls
 * set): pgd_tls_recv and pgd_tls_send_all are sbc_recv and sbc_send_all
 * (sock_io.h) through it; pgd_tls_send_some writes once without waiting:
 * the byte count, or -1 with errno (EAGAIN: full; call again with the same
 * bytes). */
void *pgd_tls_session(PGconn *pg);
long pgd_tls_recv(sbd_conn *c, int fd, void *p, size_t n, int block, int wait, int64_t deadline);
int pgd_tls_send_all(sbd_conn *c, int fd, const void *p, size_t n, int64_t deadline);
long pgd_tls_send_some(sbd_conn *c, const void *p, size_t n);

/* pgsql_wire.c: host I/O (struct sbd_driver's host_io, io_want, io_done) */
int pgd_host_io(sbd_conn *c, int on);
int pgd_io_want(sbd_conn *c, struct sbd_io *io);
void pgd_io_done(sbd_conn *c, enum sbd_io_kind kind, long result);
int pgd_pq_send_query(sbd_conn *c, const char *sql, size_t len);
int pgd_pq_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                        int nparams);
int pgd_pq_pipeline(sbd_conn *c, int on);

/* pgsql_types.c: sbd_type of a column of type OID `oid` (int, double or
 * string), as the driver reports it on both paths. */
int pgd_type_kind(unsigned oid);
/* pgsql_types.c: writes d as PostgreSQL text (at most PGD_NUM_MAX bytes,
 * not NUL-terminated) and returns the length. */
size_t pgd_fmt_double(char *dst, double d);
/* pgsql_types.c: an integer column's text as a number (0 if it is not
 * one: the server produced it). */
int64_t pgd_parse_int(const char *s, size_t len);
/* pgsql_types.c: sets v->i and v->d of a non-NULL result value from its
 * NUL-terminated text when its type is INT or DOUBLE. */
void pgd_convert_value(struct sbd_value *v);

/* pgsql_wire.c: the fast path.  pgd_wire_setup picks the connection's
 * transport at connect (pgd_tp_wire when --pgsql-wire allows it and the
 * session is unencrypted, else pgd_tp_libpq). */
void pgd_wire_setup(sbd_conn *c, int enabled);
/* pgsql_sock.c: pgd_wire_off gives the fast path up for good (libpq's
 * transport from the next statement on, or when a wire pipeline is
 * left). */
void pgd_wire_off(sbd_conn *c);
/* pgsql_sock.c: makes libpq's socket blocking (1: the blocking fast
 * path) or nonblocking again (0: before libpq does I/O on it). */
void pgd_sock_blocking(sbd_conn *c, int on);

/* pgsql_bulk.c: bulk load through COPY ... FROM STDIN; free with
 * pgd_copy_free at disconnect. */
/* pgsql_pqwait.c: libpq's blocking calls with the client-side query
 * limit.  pgd_pq_deadline starts the limit for a request; pgd_pq_get is
 * PQgetResult waiting at most until it; pgd_pq_last(c, sent) reads the
 * results of the request just sent (sent: what PQsend* returned; NULL
 * when 0) to the end and returns the last, stopping at a COPY state or a
 * broken connection, as PQexec does (owned by the caller: PQclear);
 * pgd_pq_exec is PQexec so bounded.  Past the limit the connection is
 * broken and pgd_error reports the timeout. */
void pgd_pq_deadline(sbd_conn *c);
PGresult *pgd_pq_get(sbd_conn *c);
PGresult *pgd_pq_last(sbd_conn *c, int sent);
PGresult *pgd_pq_exec(sbd_conn *c, const char *sql);
/* For a nonblocking statement (pgsql_async.c): 1 when its deadline has
 * passed, the connection then broken as above; 0 before it or without
 * --db-query-timeout. */
int pgd_pq_expired(sbd_conn *c);

int pgd_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                   const int *types, int ncolumns);
int pgd_bulk_row(sbd_conn *c, const struct sbd_value *values);
int pgd_bulk_end(sbd_conn *c);
void pgd_copy_free(sbd_conn *c);

#endif /* SBENCH_PGSQL_INT_H */
