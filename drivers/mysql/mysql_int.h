/*
 * mysql driver internals shared by its files (mysql.c lists them): the
 * settings, the connection and statement structs, and each file's
 * functions the others call.  Nonblocking statements are built only with
 * MariaDB Connector/C, which defines MYD_NONBLOCK.  Not part of the ABI.
 */
#ifndef SBENCH_MYSQL_INT_H
#define SBENCH_MYSQL_INT_H

#include <sbench/driver.h>

#include <mysql.h>

#include "mysql_errors.h"
#include "mysql_wire.h"
#include "../common/host_io.h"
#include "../common/list.h"
#include "../common/password_cmd.h"
#include "../common/transport.h"

/* The boolean type of MYSQL_BIND.is_null/.error and of mysql_options flags:
 * my_bool in MariaDB Connector/C and MySQL < 8, bool in libmysqlclient 8. */
#if defined(MARIADB_PACKAGE_VERSION_ID) || defined(MARIADB_BASE_VERSION)
#define MYD_MARIADB_CLIENT 1
typedef my_bool myd_bool;
#elif MYSQL_VERSION_ID >= 80000
#include <stdbool.h>
typedef bool myd_bool;
#else
typedef my_bool myd_bool;
#endif

enum { RES_NONE = 0, RES_QUERY, RES_STMT, RES_WIRE };

/* Phase of a nonblocking statement (mysql_async.c). */
enum { ASYNC_IDLE = 0, ASYNC_QUERY, ASYNC_STORE, ASYNC_EXECUTE, ASYNC_STMT_STORE,
       ASYNC_DONE, ASYNC_WIRE };

/* How a connection's statements travel: through the client library
 * (myd_tp_lib: mysql_stmt.c, mysql_async.c) or over the wire fast path
 * (myd_tp_wire: mysql_wire.c).  myd_wire_setup picks one at connect, and
 * the fast path puts the library's in for good when it gives the
 * connection up.  The driver table's calls check what every transport
 * needs (nothing in flight, the parameter count) and call through the
 * connection's, so no call tests which path to take.  The wire transport
 * hands what it does not serve to the library's functions (myd_lib_*).
 * The sends exist with MYD_NONBLOCK only (NULL otherwise). */
extern const struct sbc_transport myd_tp_lib, myd_tp_wire;

struct sbd_stmt {
    struct sbd_stmt *prev, *next;   /* the connection's open statements */
    MYSQL_STMT *st;
    int nparams;
    MYSQL_BIND *pbind;              /* nparams each, set up at prepare */
    unsigned long *plen;
    myd_bool *pnull;
    unsigned ncols;
    MYSQL_BIND *rbind;              /* ncols each */
    int *rtype;                     /* enum sbd_type of each column */
    int64_t *rint;
    double *rdbl;
    unsigned long *rlen;
    myd_bool *rnull, *rerr;
    char **rbuf;                    /* string columns: grown when too small */
    unsigned long *rcap;
    /* wire fast path (mysql_wire.c) */
    int wire_ok;                    /* result columns it decodes exactly */
    int wire_select;                /* a SELECT: may be re-run on Connector/C */
    struct myd_col *wcols;           /* ncols each: the latest metadata */
    struct myd_col *pcols;           /* ncols each: as prepared (the bindings) */
    MYSQL_RES *names;               /* the result's metadata, read when a
                                       workload asks for a column's name */
};

struct sbd_conn {
    MYSQL *mysql;
    struct sbd_connect_phases phases; /* what opening it cost */
    const struct sbc_transport *tp; /* never NULL once connected */
    struct sbd_error err;
    int64_t counter_reads;          /* server_counters calls on this conn */
    int64_t counter_selects;        /* the sampler's SELECTs on it (mysql_sample.c) */
    int sampler_ps;                 /* mysql_sample.c: 0 not asked yet, 1 the
                                       waits from performance_schema, 2 not */
    int res_kind;                   /* RES_* */
    MYSQL_RES *res;                 /* RES_QUERY */
    int streamed;                   /* res is mysql_use_result's: its rows
                                       are read as they are fetched */
    MYSQL_FIELD *fields;
    unsigned nfields;
    struct sbd_stmt *cur;           /* RES_STMT, RES_WIRE: statement with a result */
    struct sbd_stmt *stmts;         /* open statements */
    char server_version[96];
    /* bulk load (mysql_bulk.c) */
    int bulk_active;
    int bulk_ncols;
    int *bulk_types;
    char *bulk_buf;
    size_t bulk_cap, bulk_len, bulk_prefix_len, bulk_limit;
    long bulk_rows;
    int bulk_ld;                    /* loading with LOAD DATA LOCAL */
    int ld_active;                  /* a LOAD DATA of ours is running */
    size_t ld_pos;                  /* bytes of bulk_buf already served */
    char *ld_sql;                   /* LOAD DATA statement, owned */
    /* nonblocking statement (mysql_async.c) */
    int async_phase;                /* ASYNC_* */
    int async_wait;                 /* MYSQL_WAIT_* the library waits for */
    int async_rc;                   /* ASYNC_DONE: the statement's status */
    struct sbd_result_info async_info; /* ... and its info */
    int64_t async_deadline;         /* CLOCK_MONOTONIC ns; 0: no timeout */
    struct sbd_stmt *async_stmt;    /* ASYNC_EXECUTE, ASYNC_STMT_STORE */
    char *async_sql;                /* copy of the query text, owned */
    size_t async_sql_len, async_sql_cap;
    /* wire fast path (mysql_wire.c) */
    long wire_execs;                /* statements it served (logged at debug) */
    void *tls;                      /* Connector/C's SSL object on an encrypted
                                       session the fast path serves
                                       (mysql_tls.c), else NULL */
    int tls_sock_flags;             /* its socket's file status flags as
                                       Connector/C keeps them */
    int wire_row;                   /* RES_WIRE: next row to fetch */
    /* host I/O (ABI 1.4, mysql_wire.c): with host.on, the nonblocking
     * fast path's requests are only built (host.active), the host moves
     * their bytes and reports them with io_done */
    struct sbc_host_io host;
    struct sbd_stmt *wire_async;    /* ASYNC_WIRE: the statement executed,
                                       NULL for a transaction statement */
    struct myd_wire wire;
};

enum myd_ssl_mode { MYD_SSL_OFF, MYD_SSL_PREFERRED, MYD_SSL_REQUIRED, MYD_SSL_VERIFY_CA,
                   MYD_SSL_VERIFY_IDENTITY };

/* Settings read once by init (mysql.c); read-only while threads run. */
struct myd_settings {
    const struct sbd_host *host;
    struct sbc_list hosts, ports;   /* each at least one item */
    const char *sock_path;          /* NULL: TCP to hosts and ports */
    const char *defaults_file;      /* --mysql-defaults-file, NULL: none */
    const char *defaults_group;     /* --mysql-defaults-group, NULL: none */
    int host_from_file, port_from_file, ssl_from_file; /* not given: the file decides */
    const char *user, *db;          /* db NULL: none */
    char *password_given;           /* --mysql-password(-file), owned */
    const char *password;           /* in use: that or $MYSQL_PWD; NULL: none */
    const char *secret;             /* password, "" if none: masked in messages */
    struct sbc_pwcmd pwcmd;         /* --mysql-password-command: run at connect */
    enum myd_ssl_mode ssl_mode;
    const char *ssl_ca;
    const char *ssl_cipher;         /* --mysql-ssl-cipher, NULL: the library's */
    int compression;                /* --mysql-compression (the wire fast path off) */
    struct myd_ignore ignored;      /* --mysql-ignore-errors */
    int load_data;                  /* --mysql-load-data */
    int wire;                       /* --mysql-wire */
    int query_timeout;              /* --db-query-timeout in seconds, 0: none */
    size_t max_answer;              /* --db-max-result-bytes: the fast path's
                                       largest answer */
};
extern struct myd_settings myd_cfg;

/* mysql_conn.c: connections (the driver table's members of the same
 * names).  On success *out is a new connection owned by the caller (free
 * with myd_disconnect); on failure *out is NULL and err says why. */
int myd_connect(int thread_id, sbd_conn **out, struct sbd_error *err);
void myd_disconnect(sbd_conn *c);
/* Owned by c, valid until its next call; never NULL. */
const struct sbd_error *myd_last_error(sbd_conn *c);
/* Static string. */
const char *myd_dialect(sbd_conn *c);
/* Owned by c, set at connect; never NULL. */
const char *myd_server_version(sbd_conn *c);

/* mysql_fail.c: fill c->err from the connection's / statement's last error; return the
 * status (SBD_RETRY, SBD_CONN_LOST or SBD_ERROR). */
int myd_conn_fail(sbd_conn *c);
int myd_stmt_fail(sbd_conn *c, MYSQL_STMT *st);
/* Fill c->err with a driver-side error (no native code) and return
 * SBD_ERROR. */
int myd_fail(sbd_conn *c, const char *msg);
/* Fill c->err from a server error (ERR packet) or a client-side one with
 * a native code, classified as Connector/C's errors are; the status. */
int myd_server_error(sbd_conn *c, unsigned code, const char *sqlstate,
                      const char *msg);
/* mysql_stmt.c: plain queries and results (the driver table's members
 * of the same names). */
int myd_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
/* query_stream (ABI 1.3): the query through Connector/C with
 * mysql_use_result, on either transport (the wire fast path leaves the
 * stream at a packet boundary between statements). */
int myd_query_stream(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
int myd_fetch_row(sbd_conn *c, struct sbd_value *row);
/* The name of column i of the current result, or NULL. */
const char *myd_field_name(sbd_conn *c, int i);
void myd_free_result(sbd_conn *c);
int myd_server_counters(sbd_conn *c, struct sbd_server_counters *out);
/* mysql_sample.c: the sampler's counters and active-session sample. */
int myd_server_sample(sbd_conn *c, struct sbd_server_sample *out);
int myd_server_waits(sbd_conn *c, struct sbd_wait *out, int max, int *n);
/* Releases any current result (query or statement). */
void myd_release_result(sbd_conn *c);
/* Start of every query and execute: releases the current result and sets
 * info to "no result yet". */
void myd_result_begin(sbd_conn *c, struct sbd_result_info *info);
/* End of a query whose mysql_store_result returned res (NULL: none or
 * failed): makes res the current result and fills info; the status. */
int myd_query_stored(sbd_conn *c, MYSQL_RES *res, struct sbd_result_info *info);
/* mysql_stmt.c: query and execute through the library (myd_tp_lib's;
 * myd_result_begin done, parameter count checked). */
int myd_lib_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
int myd_lib_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                    int nparams, struct sbd_result_info *info);
/* mysql_types.c: enum sbd_type of a column of MySQL type t. */
int myd_column_type(enum enum_field_types t);
/* mysql_types.c: fills v from a text-protocol value s[0..len) (NULL: SQL
 * NULL) of a column reported as `type`: integers and doubles parsed (a
 * BIGINT UNSIGNED above INT64_MAX becomes a DOUBLE), strings pointing at
 * s. */
void myd_text_value(struct sbd_value *v, int type, const char *s, size_t len);

/* mysql_stmt.c: prepared statements. */
int myd_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                 const int *types, sbd_stmt **out);
int myd_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                 int nparams, struct sbd_result_info *info);
/* The pieces of myd_execute, shared with the nonblocking execute:
 * myd_stmt_bind starts the execute (myd_result_begin) and binds params;
 * after a successful mysql_stmt_execute, myd_stmt_has_rows is 0 (info's
 * affected rows set) when no result set follows, 1 when it must be stored;
 * myd_stmt_stored ends the execute once mysql_stmt_store_result returned
 * (failed != 0 when it did not succeed).  All return an enum sbd_status
 * except myd_stmt_has_rows. */
int myd_stmt_bind(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                   int nparams, struct sbd_result_info *info);
int myd_stmt_has_rows(sbd_stmt *s, struct sbd_result_info *info);
int myd_stmt_stored(sbd_conn *c, sbd_stmt *s, int failed, struct sbd_result_info *info);
int myd_stmt_fetch(sbd_conn *c, sbd_stmt *s, struct sbd_value *row);
void myd_close_stmt(sbd_conn *c, sbd_stmt *s);

/* mysql_bulk.c */
int myd_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                    const int *types, int ncolumns);
int myd_bulk_row(sbd_conn *c, const struct sbd_value *values);
int myd_bulk_end(sbd_conn *c);
void myd_bulk_free(sbd_conn *c);
/* Installs the connection's LOAD DATA LOCAL handler, which serves the
 * bulk buffer during sbench's own loads and refuses every other request
 * (a server cannot make sbench read a file). */
void myd_bulk_attach(sbd_conn *c);

/* mysql_connect_poll.c: mysql_real_connect (client flags 0) with its
 * phases timed into *ph where Connector/C shows them (-1 each otherwise). */
MYSQL *myd_real_connect_timed(MYSQL *m, const char *host, const char *user, const char *pw,
                              const char *db, unsigned port, const char *sock,
                              struct sbd_connect_phases *ph);
/* The phases of c's opening (driver table's connect_phases). */
void myd_connect_phases(sbd_conn *c, struct sbd_connect_phases *out);

/* mysql_async.c (MYD_NONBLOCK only): the ABI 1.1 nonblocking calls. */
int myd_socket(sbd_conn *c);
int myd_send_query(sbd_conn *c, const char *sql, size_t len);
int myd_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                      int nparams);
int myd_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write);
/* Before mysql_close: breaks off a statement still in flight without
 * reading the rest of its answer, and frees the query text copy. */
void myd_async_free(sbd_conn *c);
/* mysql_async_lib.c: the library's sends (myd_tp_lib's; async_begin
 * done). */
int myd_lib_send_query(sbd_conn *c, const char *sql, size_t len);
int myd_lib_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                         int nparams);
/* The statement in flight is over with status rc (an error already set);
 * poll_result reports it. */
void myd_async_finish(sbd_conn *c, int rc);
/* Resumes the library's statement in flight with the MYSQL_WAIT_* events
 * that occurred (MYSQL_WAIT_TIMEOUT: past its deadline). */
void myd_lib_resume(sbd_conn *c, int events);

/* mysql_wire.c: the fast path.  myd_wire_setup picks the connection's
 * transport at connect (myd_tp_wire with --mysql-wire, no compression,
 * TLS only through mysql_tls.c; else myd_tp_lib).  mysql_wire_stmt.c: myd_wire_stmt_setup
 * at prepare whether
 * statement s may use it (1, 0, -1 when out of memory); myd_wire_fetch
 * serves the rows of its answer (RES_WIRE).  mysql_wire.c: for a
 * nonblocking statement it sent (phase ASYNC_WIRE), myd_wire_poll reads what has come, SBD_AGAIN
 * until the answer is complete, then its status as the blocking calls
 * give it (a result whose types changed since prepare is an error here:
 * the parameters are gone).  mysql_wire_stmt.c: myd_wire_abandon before
 * closing with a statement in flight. */
void myd_wire_setup(sbd_conn *c, int enabled);
/* mysql_tls.c: the fast path's I/O through the session's TLS (c->tls
 * set).  myd_tls_session: the SSL object of m's TLS session when the fast
 * path can use it and its socket's flags, else NULL (and *why, when m is
 * encrypted).  myd_tls_recv is sbc_recv (sock_io.h) through it, polling
 * only when nothing is decrypted yet; myd_tls_send_all is sbc_send_all. */
#ifdef MYD_TLS_FAST_PATH
void *myd_tls_session(MYSQL *m, int *sock_flags, const char **why);
long myd_tls_recv(sbd_conn *c, int fd, void *p, size_t n, int block, int64_t deadline);
int myd_tls_send_all(sbd_conn *c, int fd, const void *p, size_t n, int64_t deadline);
#else /* built without OpenSSL's headers or Connector/C's ma_pvio.h */
static inline void *myd_tls_session(MYSQL *m, int *sock_flags, const char **why)
{
    (void)sock_flags;
    *why = mysql_get_ssl_cipher(m) != NULL ? "sbench was built without its TLS fast path" : NULL;
    return NULL;
}
#define myd_tls_recv(c, fd, p, n, block, deadline) (errno = EPROTO, -1L)
#define myd_tls_send_all(c, fd, p, n, deadline) (errno = EPROTO, -1)
#endif
int myd_wire_stmt_setup(sbd_stmt *s, const char *sql, size_t len,
                        const MYSQL_FIELD *f);
int myd_wire_fetch(sbd_conn *c, struct sbd_value *row);
int myd_wire_poll(sbd_conn *c, struct sbd_result_info *info);
void myd_wire_abandon(sbd_conn *c);
#if defined(MYD_NONBLOCK) && defined(MYD_MARIADB_CLIENT)
/* host I/O (struct sbd_driver's host_io, io_want, io_done): the fast
 * path's nonblocking statements only */
#define MYD_CAP_HOST_IO SBD_CAP_HOST_IO
int myd_host_io(sbd_conn *c, int on);
int myd_io_want(sbd_conn *c, struct sbd_io *io);
void myd_io_done(sbd_conn *c, enum sbd_io_kind kind, long result);
#else
#define MYD_CAP_HOST_IO 0
#endif
/* What the fast path answers when the result cannot be fetched as
 * Connector/C would (a column's type changed since prepare into one it
 * does not convert): the statement, a SELECT, is run again on Connector/C,
 * which serves it from then on. */
#define MYD_WIRE_AGAIN (-100)

#endif
