/*
 * odbc driver internals shared by its files (odbc.c lists them): the
 * process-wide settings, the connection and statement structs, and each
 * file's functions the others call.  Not part of the ABI; only the
 * driver's files include it.
 */
#ifndef SBENCH_ODBC_INT_H
#define SBENCH_ODBC_INT_H

#include <sbench/driver.h>

#include "../common/password_cmd.h"
#include "../common/link.h"

#include <sql.h>
#include <sqlext.h>

#include <stdatomic.h>
#include <stddef.h>

/* First size of string buffers (parameters, result columns). */
#define ODBC_STR_INIT 256

/* Process-wide state, set by odbc_init and released by odbc_done
 * (odbc.c); read-only while threads run, but for the two warnings each
 * logged once. */
struct odbc_settings {
    const struct sbd_host *host;
    SQLHENV env;
    char *conn_str;              /* full connection string, with the password */
    char *conn_str_masked;       /* the same with PWD=*** (for messages) */
    struct sbc_pwcmd pwcmd;      /* --odbc-password-command: PWD= at each connect */
    atomic_flag warned_unknown;  /* "unknown database" logged */
    atomic_flag warned_timeout;  /* "query timeout not set" logged */
};
extern struct odbc_settings odbc_cfg;

/* Per-column buffer for string results; grown only when too small. */
struct odbc_colbuf {
    char *buf;
    size_t cap;
};

/* One parameter of a prepared statement, bound once to these members. */
struct odbc_param {
    int type;               /* enum sbd_type the statement was prepared with */
    SQLSMALLINT ctype, sqltype;
    SQLULEN colsize;
    SQLLEN ind;
    SQLBIGINT i;
    double d;
    char *buf;              /* strings, dates: owned, cap bytes */
    size_t cap;
};

struct sbd_stmt {
    struct sbc_link link;   /* first: in the connection's open statements */
    SQLHSTMT h;
    int nparams;
    struct odbc_param *params;
    int ncols;              /* -1 until the first execute described them */
    int *ctypes;            /* enum sbd_type per result column */
};
/* the connection's list holds links: a link is its statement */
_Static_assert(offsetof(struct sbd_stmt, link) == 0, "link must come first");

/* State of a bulk load between bulk_begin and bulk_end (odbc_bulk.c). */
struct odbc_bulk;

struct sbd_conn {
    SQLHDBC dbc;
    SQLHSTMT qh;            /* statement handle for plain queries */
    SQLHSTMT cur;           /* handle whose result is open, NULL if none */
    int ncols;              /* columns of the open result */
    char field_name[256];   /* odbc_field_name's answer */
    const int *ctypes;      /* their enum sbd_type (qtypes or a stmt's) */
    int *qtypes;            /* column types of the last plain query */
    struct odbc_colbuf *cols; /* string buffers, one per column */
    int cols_cap;           /* entries in qtypes and cols */
    int in_txn;             /* begin() switched autocommit off */
    const char *dialect;
    char server_version[192];
    struct sbc_link *stmts; /* open statements (sbd_stmt's link) */
    struct odbc_bulk *bulk;
    struct sbd_error err;
};

/* --- odbc_conn.c: connection strings, passwords, connections --- */

/* Builds odbc_cfg.conn_str and odbc_cfg.conn_str_masked (PWD=***) from
 * --odbc-dsn or --odbc-connstr (one of dsn and cs is NULL), user and pw
 * (NULL: not given), and records every password they hold for
 * odbc_scrub.  SBD_OK, or SBD_ERROR with "out of memory" in errbuf (what
 * was built is freed by odbc_done). */
int odbc_connstr_build(const char *dsn, const char *cs, const char *user, const char *pw,
                       char *errbuf, size_t errlen);

/* --- odbc_secrets.c: passwords kept out of messages --- */

/* Masks msg (NUL-terminated, cap bytes) in place: PWD= values and every
 * known password become ***. */
void odbc_scrub(char *msg, size_t cap);
/* Writes `in` to out (outlen bytes, always terminated) with the value of
 * every PWD= / PASSWORD= keyword replaced by ***. */
void odbc_mask_pwd(const char *in, char *out, size_t outlen);
/* Records a copy of s (NULL or empty: nothing) to scrub from messages. */
void odbc_secret_add(const char *s);
/* Wipes and frees the passwords recorded. */
void odbc_forget_secrets(void);

/* odbc_stmt.c: allocates a statement handle on c with the query timeout
 * applied: SBD_OK and *out a handle owned by the caller (SQLFreeHandle), or
 * an error status with *out SQL_NULL_HSTMT and c->err filled. */
int odbc_alloc_stmt(sbd_conn *c, SQLHSTMT *out);

/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int odbc_connect(int thread_id, sbd_conn **out, struct sbd_error *err);
void odbc_disconnect(sbd_conn *c);
const struct sbd_error *odbc_last_error(sbd_conn *c);
const char *odbc_dialect(sbd_conn *c);
const char *odbc_server_version(sbd_conn *c);

/* --- odbc_errors.c: diagnostics to struct sbd_error --- */

/* Fills e from the first diagnostic record of handle h (after a call that
 * returned rc); `what` (may be NULL) prefixes the message, which is made
 * one line with every password masked. */
void odbc_diag(struct sbd_error *e, SQLSMALLINT htype, SQLHANDLE h,
               SQLRETURN rc, const char *dialect, const char *what);
/* Fills e with a message of the driver's own; returns status. */
int odbc_set_error(struct sbd_error *e, int status, const char *msg);
/* odbc_diag into c->err with c's dialect; returns the status. */
int odbc_conn_diag(sbd_conn *c, SQLSMALLINT htype, SQLHANDLE h, SQLRETURN rc,
                   const char *what);

/* --- odbc_types.c: sbench types to and from ODBC's --- */

/* Describes the ncols result columns of h into types (enum sbd_type). */
int odbc_describe(sbd_conn *c, SQLHSTMT h, int ncols, int *types);
/* Chooses C and SQL types for an sbench type; *bytes is the buffer size
 * for character data (0 for numbers), *colsize the ODBC column size. */
void odbc_param_types(int type, SQLSMALLINT *ctype, SQLSMALLINT *sqltype,
                      SQLULEN *colsize, size_t *bytes);

/* --- odbc_stmt.c: queries, prepared statements, results --- */

/* Closes the open result, if any. */
void odbc_close_cursor(sbd_conn *c);
/* Frees s and its handle; s must be off the connection's list. */
void odbc_stmt_free(sbd_stmt *s);
/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int odbc_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info);
int odbc_fetch_row(sbd_conn *c, struct sbd_value *row);
/* The name of column i of the open result (SQLDescribeCol), or NULL. */
const char *odbc_field_name(sbd_conn *c, int i);
void odbc_free_result(sbd_conn *c);
int odbc_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                 const int *param_types_in, sbd_stmt **out);
int odbc_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                 int nparams, struct sbd_result_info *info);
void odbc_close_stmt(sbd_conn *c, sbd_stmt *s);

/* --- odbc_txn.c: transactions through autocommit and SQLEndTran --- */

int odbc_set_autocommit(sbd_conn *c, int on);
/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int odbc_begin(sbd_conn *c);
int odbc_commit(sbd_conn *c);
int odbc_rollback(sbd_conn *c);

/* --- odbc_bulk.c: bulk load through parameter arrays --- */

/* Ends a bulk load that is still running (rolling back what it owns);
 * no-op without one. */
void odbc_bulk_free(sbd_conn *c);
/* The driver table's calls (ownership and failure as include/sbench/driver.h
 * says). */
int odbc_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                    const int *types, int ncolumns);
int odbc_bulk_row(sbd_conn *c, const struct sbd_value *values);
int odbc_bulk_end(sbd_conn *c);

#endif /* SBENCH_ODBC_INT_H */
