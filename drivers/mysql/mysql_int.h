/*
 * MySQL driver internals shared by mysql.c (options, connections, plain
 * queries, counters), mysql_stmt.c (prepared statements), mysql_bulk.c
 * (bulk load) and mysql_async.c (nonblocking statements, built only with
 * MariaDB Connector/C, which defines SBMY_NONBLOCK).  Not part of the ABI.
 */
#ifndef SBENCH_MYSQL_INT_H
#define SBENCH_MYSQL_INT_H

#include <sbench/driver.h>

#include <mysql.h>

#include "mysql_errors.h"
#include "mysql_wire.h"

/* The boolean type of MYSQL_BIND.is_null/.error and of mysql_options flags:
 * my_bool in MariaDB Connector/C and MySQL < 8, bool in libmysqlclient 8. */
#if defined(MARIADB_PACKAGE_VERSION_ID) || defined(MARIADB_BASE_VERSION)
#define SBMY_MARIADB_CLIENT 1
typedef my_bool sbmy_bool;
#elif MYSQL_VERSION_ID >= 80000
#include <stdbool.h>
typedef bool sbmy_bool;
#else
typedef my_bool sbmy_bool;
#endif

enum { RES_NONE = 0, RES_QUERY, RES_STMT, RES_WIRE };

/* Phase of a nonblocking statement (mysql_async.c). */
enum { ASYNC_IDLE = 0, ASYNC_QUERY, ASYNC_STORE, ASYNC_EXECUTE, ASYNC_STMT_STORE,
       ASYNC_DONE, ASYNC_WIRE };

struct sbd_stmt {
    struct sbd_stmt *prev, *next;   /* the connection's open statements */
    MYSQL_STMT *st;
    int nparams;
    MYSQL_BIND *pbind;              /* nparams each, set up at prepare */
    unsigned long *plen;
    sbmy_bool *pnull;
    unsigned ncols;
    MYSQL_BIND *rbind;              /* ncols each */
    int *rtype;                     /* enum sbd_type of each column */
    int64_t *rint;
    double *rdbl;
    unsigned long *rlen;
    sbmy_bool *rnull, *rerr;
    char **rbuf;                    /* string columns: grown when too small */
    unsigned long *rcap;
    /* wire fast path (mysql_wire.c) */
    int wire_ok;                    /* result columns it decodes exactly */
    int wire_select;                /* a SELECT: may be re-run on Connector/C */
    struct mw_col *wcols;           /* ncols each: the latest metadata */
    struct mw_col *pcols;           /* ncols each: as prepared (the bindings) */
};

struct sbd_conn {
    MYSQL *mysql;
    struct sbd_error err;
    int64_t counter_reads;          /* server_counters calls on this conn */
    int res_kind;                   /* RES_* */
    MYSQL_RES *res;                 /* RES_QUERY */
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
    /* wire fast path (mysql_wire.c): wire_on while --mysql-wire=on, the
     * session is unencrypted and uncompressed and the fast path has not
     * lost the connection */
    int wire_on;
    long wire_execs;                /* statements it served (logged at debug) */
    int wire_row;                   /* RES_WIRE: next row to fetch */
    struct sbd_stmt *wire_async;    /* ASYNC_WIRE: the statement executed,
                                       NULL for a transaction statement */
    struct mysql_wire wire;
};

/* Password in use (never printed; masked in messages), "" if none. */
extern const char *sbmy_secret;
extern struct sbmy_ignore sbmy_ignored;

/* Fill c->err from the connection's / statement's last error; return the
 * status (SBD_RETRY, SBD_CONN_LOST or SBD_ERROR). */
int sbmy_conn_fail(sbd_conn *c);
int sbmy_stmt_fail(sbd_conn *c, MYSQL_STMT *st);
/* Fill c->err with a driver-side error (no native code) and return
 * SBD_ERROR. */
int sbmy_fail(sbd_conn *c, const char *msg);
/* Fill c->err from a server error (ERR packet) or a client-side one with
 * a native code, classified as Connector/C's errors are; the status. */
int sbmy_server_error(sbd_conn *c, unsigned code, const char *sqlstate,
                      const char *msg);
/* Releases any current result (query or statement). */
void sbmy_release_result(sbd_conn *c);
/* Start of every query and execute: releases the current result and sets
 * info to "no result yet". */
void sbmy_result_begin(sbd_conn *c, struct sbd_result_info *info);
/* End of a query whose mysql_store_result returned res (NULL: none or
 * failed): makes res the current result and fills info; the status. */
int sbmy_query_stored(sbd_conn *c, MYSQL_RES *res, struct sbd_result_info *info);
/* enum sbd_type of a column of MySQL type t. */
int sbmy_column_type(enum enum_field_types t);
/* Writes v in decimal at p (room for 21 bytes); returns bytes written. */
size_t sbmy_i64_to_text(int64_t v, char *p);

/* mysql_stmt.c */
int sbmy_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                 const int *types, sbd_stmt **out);
int sbmy_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                 int nparams, struct sbd_result_info *info);
/* The pieces of sbmy_execute, shared with the nonblocking execute:
 * sbmy_stmt_bind starts the execute (sbmy_result_begin) and binds params;
 * after a successful mysql_stmt_execute, sbmy_stmt_has_rows is 0 (info's
 * affected rows set) when no result set follows, 1 when it must be stored;
 * sbmy_stmt_stored ends the execute once mysql_stmt_store_result returned
 * (failed != 0 when it did not succeed).  All return an enum sbd_status
 * except sbmy_stmt_has_rows. */
int sbmy_stmt_bind(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                   int nparams, struct sbd_result_info *info);
int sbmy_stmt_has_rows(sbd_stmt *s, struct sbd_result_info *info);
int sbmy_stmt_stored(sbd_conn *c, sbd_stmt *s, int failed, struct sbd_result_info *info);
int sbmy_stmt_fetch(sbd_conn *c, sbd_stmt *s, struct sbd_value *row);
void sbmy_close_stmt(sbd_conn *c, sbd_stmt *s);

/* mysql_bulk.c */
int sbmy_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                    const int *types, int ncolumns);
int sbmy_bulk_row(sbd_conn *c, const struct sbd_value *values);
int sbmy_bulk_end(sbd_conn *c);
void sbmy_bulk_free(sbd_conn *c);
/* Installs the connection's LOAD DATA LOCAL handler, which serves the
 * bulk buffer during sbench's own loads and refuses every other request
 * (a server cannot make sbench read a file). */
void sbmy_bulk_attach(sbd_conn *c);
/* --mysql-load-data, read once at init. */
extern int sbmy_load_data;

/* mysql_async.c (SBMY_NONBLOCK only): the ABI 1.1 nonblocking calls. */
int sbmy_socket(sbd_conn *c);
int sbmy_send_query(sbd_conn *c, const char *sql, size_t len);
int sbmy_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                      int nparams);
int sbmy_poll_result(sbd_conn *c, struct sbd_result_info *info, int *want_write);
/* Before mysql_close: breaks off a statement still in flight without
 * reading the rest of its answer, and frees the query text copy. */
void sbmy_async_free(sbd_conn *c);
/* --db-query-timeout in seconds (0 = none), read at init. */
extern int sbmy_query_timeout;

/* mysql_wire.c: the fast path.  sbmy_wire_setup decides at connect
 * whether it may serve c (--mysql-wire, no TLS, no compression);
 * sbmy_wire_ready says whether it may run now (Connector/C idle);
 * sbmy_wire_query_ok whether plain query sql is a transaction statement
 * it runs; sbmy_wire_stmt_setup at prepare whether statement s may use it
 * (1, 0, -1 when out of memory); sbmy_wire_execute runs s with params
 * (count already checked, sbmy_result_begin done) and makes its answer
 * the current result (RES_WIRE), sbmy_wire_fetch serves its rows;
 * sbmy_wire_query runs a transaction statement. */
void sbmy_wire_setup(sbd_conn *c, int enabled);
int sbmy_wire_ready(sbd_conn *c);
int sbmy_wire_query_ok(sbd_conn *c, const char *sql, size_t len);
int sbmy_wire_stmt_setup(sbd_stmt *s, const char *sql, size_t len,
                         const MYSQL_FIELD *f);
int sbmy_wire_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                      int nparams, struct sbd_result_info *info);
int sbmy_wire_query(sbd_conn *c, const char *sql, size_t len,
                    struct sbd_result_info *info);
int sbmy_wire_fetch(sbd_conn *c, struct sbd_value *row);
/* The same for nonblocking statements (mysql_async.c, phase ASYNC_WIRE):
 * sbmy_wire_send_execute / sbmy_wire_send_query send the request (the
 * former may answer SBMY_WIRE_AGAIN: run it on Connector/C); then
 * sbmy_wire_poll reads what has come, SBD_AGAIN until the answer is
 * complete, then its status as the blocking calls give it (a result whose
 * types changed since prepare is an error here: the parameters are gone);
 * sbmy_wire_abandon before closing with a statement in flight. */
int sbmy_wire_send_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                           int nparams);
int sbmy_wire_send_query(sbd_conn *c, const char *sql, size_t len);
int sbmy_wire_poll(sbd_conn *c, struct sbd_result_info *info);
void sbmy_wire_abandon(sbd_conn *c);
/* sbmy_wire_execute's answer when the result cannot be fetched as
 * Connector/C would (a column's type changed since prepare into one it
 * does not convert): the statement, a SELECT, is run again on Connector/C,
 * which serves it from then on. */
#define SBMY_WIRE_AGAIN (-100)

#endif
