/*
 * odbc driver (sbench-odbc.so): benchmarks any database reachable through an
 * ODBC driver manager (unixODBC), first of all IBM DB2 through its CLI/ODBC
 * driver, but also PostgreSQL (psqlODBC), MariaDB/MySQL (MariaDB
 * Connector/ODBC) and SQLite (sqliteodbc).  Uses only ODBC 3 core and
 * level-1 calls that DB2 CLI provides as well.
 *
 * Hot path: query/execute/fetch_row allocate nothing once the connection's
 * and statement's buffers are large enough, and format nothing except on
 * errors.  Transactions are driven through SQL_ATTR_AUTOCOMMIT and
 * SQLEndTran, never through BEGIN/COMMIT text.
 */
#include <sbench/driver.h>
#include "../common/error.h"
#include "../common/password.h"

#include <sql.h>
#include <sqlext.h>

#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef SBD_ODBC_DM_BUILD_VERSION
#define SBD_ODBC_DM_BUILD_VERSION "2"
#endif

/* Rows per SQLExecute when the ODBC driver takes parameter arrays. */
#define BULK_ROWS 1000
/* Rows between commits during a bulk load. */
#define BULK_COMMIT_ROWS 5000
/* First size of string buffers (parameters, result columns). */
#define STR_INIT 256

/* Per-column buffer for string results; grown only when too small. */
struct colbuf {
    char *buf;
    size_t cap;
};

/* One parameter of a prepared statement, bound once to these members. */
struct param {
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
    struct sbd_stmt *prev, *next; /* the connection's open statements */
    SQLHSTMT h;
    int nparams;
    struct param *params;
    int ncols;              /* -1 until the first execute described them */
    int *ctypes;            /* enum sbd_type per result column */
};

/* State of a bulk load between bulk_begin and bulk_end. */
struct bulk {
    SQLHSTMT h;
    int ncols;
    int *types;             /* enum sbd_type per column */
    size_t rows_max;        /* rows per SQLExecute: BULK_ROWS or 1 */
    size_t paramset;        /* SQL_ATTR_PARAMSET_SIZE currently set */
    size_t nrows;           /* rows waiting in the arrays */
    size_t since_commit;
    int own_txn;            /* autocommit was switched off by bulk_begin */
    int failed;             /* status of a failed flush, 0 if none */
    char **data;            /* per column: rows_max values, column-wise */
    SQLLEN **ind;           /* per column: rows_max indicators */
    size_t *width;          /* per column: bytes per value */
    SQLUSMALLINT *status;   /* per row status after SQLExecute */
};

struct sbd_conn {
    SQLHDBC dbc;
    SQLHSTMT qh;            /* statement handle for plain queries */
    SQLHSTMT cur;           /* handle whose result is open, NULL if none */
    int ncols;              /* columns of the open result */
    const int *ctypes;      /* their enum sbd_type (qtypes or a stmt's) */
    int *qtypes;            /* column types of the last plain query */
    struct colbuf *cols;    /* string buffers, one per column */
    int cols_cap;           /* entries in qtypes and cols */
    int in_txn;             /* begin() switched autocommit off */
    const char *dialect;
    char server_version[192];
    struct sbd_stmt *stmts;
    struct bulk *bulk;
    struct sbd_error err;
};

/* --- process-wide state, set by init and released by done --- */
static const struct sbd_host *host;
static SQLHENV env;
static char *conn_str;        /* full connection string, with the password */
static char *conn_str_masked; /* the same with PWD=*** (for messages) */
static char *secrets[4];      /* passwords to scrub from messages */
static int nsecrets;
static char client_ver[128];
static atomic_flag warned_unknown = ATOMIC_FLAG_INIT;
static atomic_flag warned_timeout = ATOMIC_FLAG_INIT;

static const struct sbd_option odbc_options[] = {
    {"odbc-dsn", SBD_OPT_STRING, NULL,
     "ODBC data source name (odbc.ini section); this or --odbc-connstr"},
    {"odbc-connstr", SBD_OPT_STRING, NULL,
     "full ODBC connection string, e.g. 'Driver=X;Server=h;Database=d;'"},
    {"odbc-user", SBD_OPT_STRING, NULL, "user name, appended as UID="},
    {"odbc-password", SBD_OPT_SECRET, NULL, "password, appended as PWD="},
    {"odbc-password-file", SBD_OPT_STRING, NULL,
     "file whose first line is the password"},
    {NULL, 0, NULL, NULL}
};

/* ------------------------------------------------------------------ */
/* Small string builder, used only outside the hot path.               */

struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
};

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void sb_add(struct sbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

/* Appends KEY=VALUE; to a connection string, in braces when the value
 * would otherwise be misread (';', braces, surrounding blanks). */
static void sb_add_kv(struct sbuf *b, const char *key, const char *val)
{
    size_t n = strlen(val);
    int brace = strpbrk(val, ";{}") != NULL ||
                (n > 0 && (isspace((unsigned char)val[0]) ||
                           isspace((unsigned char)val[n - 1])));
    sb_add(b, key);
    sb_add(b, "=");
    if (!brace) {
        sb_add(b, val);
    } else {
        sb_add(b, "{");
        for (const char *s = val; *s; s++)
            sb_add(b, *s == '}' ? "}}" : (char[2]){*s, 0});
        sb_add(b, "}");
    }
    sb_add(b, ";");
}

/* ------------------------------------------------------------------ */
/* Masking passwords in connection strings and messages.               */

/* Writes `in` to out (outlen bytes, always terminated) with the value of
 * every PWD= / PASSWORD= keyword replaced by ***. */
static void mask_pwd(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    if (outlen == 0)
        return;
    while (*in && o + 1 < outlen) {
        size_t klen = 0;
        if (strncasecmp(in, "pwd=", 4) == 0)
            klen = 4;
        else if (strncasecmp(in, "password=", 9) == 0)
            klen = 9;
        if (klen == 0) {
            out[o++] = *in++;
            continue;
        }
        for (size_t k = 0; k < klen && o + 1 < outlen; k++)
            out[o++] = *in++;
        if (*in == '{') {             /* braced value, '}}' is a brace */
            in++;
            while (*in) {
                if (*in == '}' && in[1] == '}')
                    in += 2;
                else if (*in == '}') {
                    in++;
                    break;
                } else
                    in++;
            }
        } else {
            while (*in && *in != ';' && !isspace((unsigned char)*in))
                in++;
        }
        for (const char *m = "***"; *m && o + 1 < outlen; m++)
            out[o++] = *m;
    }
    out[o] = 0;
}

/* Masks msg (NUL-terminated, cap bytes) in place: PWD= values and every
 * known password become ***. */
static void scrub(char *msg, size_t cap)
{
    char tmp[1024];
    if (cap > sizeof tmp)
        cap = sizeof tmp;
    mask_pwd(msg, tmp, cap);
    for (int k = 0; k < nsecrets; k++)
        sbc_mask(tmp, cap, secrets[k]);
    memcpy(msg, tmp, strlen(tmp) + 1);
}

/* ------------------------------------------------------------------ */
/* Errors.                                                             */

static int classify(const char *state, long native, const char *dialect)
{
    if (strncmp(state, "40", 2) == 0)
        return SBD_RETRY;           /* 40001, 40P01, 40003, ... */
    if (strcmp(state, "HYT00") == 0 || strcmp(state, "HYT01") == 0)
        return SBD_RETRY;           /* timeouts */
    if (strcmp(state, "57014") == 0)
        return SBD_RETRY;           /* statement cancelled: how psqlODBC
                                       (statement_timeout) and DB2 report
                                       SQL_ATTR_QUERY_TIMEOUT expiring */
    if (strncmp(state, "08", 2) == 0)
        return SBD_CONN_LOST;
    if (strncmp(state, "57P0", 4) == 0)
        return SBD_CONN_LOST;       /* PostgreSQL: session terminated,
                                       server shutting down */
    if (dialect == NULL)
        return SBD_ERROR;
    if (strcmp(dialect, "mysql") == 0) {
        if (native == 1213 || native == 1205)   /* deadlock, lock wait */
            return SBD_RETRY;
        if (native == 1969 || native == 3024)   /* statement time limit */
            return SBD_RETRY;
        if (native == 2006 || native == 2013 || native == 2055 ||
            native == 1927 || native == 5013 || native == 5014)
            /* gone away, lost, killed; Connector/C network read/write */
            return SBD_CONN_LOST;
    } else if (strcmp(dialect, "db2") == 0) {
        if (native == -911 || native == -913)   /* deadlock/timeout */
            return SBD_RETRY;
        if (native == -30081 || native == -30080)/* communication error */
            return SBD_CONN_LOST;
    } else if (strcmp(dialect, "sqlite") == 0) {
        if (native == 5 || native == 6)         /* BUSY, LOCKED */
            return SBD_RETRY;
    }
    return SBD_ERROR;
}

/* Fills e from the first diagnostic record of handle h (after a call that
 * returned rc); `what` (may be NULL) prefixes the message, which is made
 * one line with every password masked. */
static void diag(struct sbd_error *e, SQLSMALLINT htype, SQLHANDLE h,
                 SQLRETURN rc, const char *dialect, const char *what)
{
    SQLCHAR state[6] = "";
    SQLINTEGER native = 0;
    SQLCHAR msg[1024] = "";
    SQLSMALLINT mlen = 0;
    SQLRETURN r = SQL_ERROR;
    char text[1024];

    if (h != SQL_NULL_HANDLE && rc != SQL_INVALID_HANDLE)
        r = SQLGetDiagRec(htype, h, 1, state, &native, msg, sizeof msg, &mlen);
    if (SQL_SUCCEEDED(r)) {
        snprintf(text, sizeof text, "%s%s%s", what ? what : "", what ? ": " : "",
                 (char *)msg);
    } else {
        state[0] = 0;
        native = 0;
        snprintf(text, sizeof text, "%s: ODBC call failed with return code %d (no diagnostics)",
                 what ? what : "odbc", (int)rc);
    }
    scrub(text, sizeof text);
    sbc_error(e, classify((char *)state, native, dialect), native, (char *)state, NULL,
              "%s", text);
}

static int set_error(struct sbd_error *e, int status, const char *msg)
{
    return sbc_error(e, status, 0, NULL, NULL, "%s", msg);
}

static int conn_diag(sbd_conn *c, SQLSMALLINT htype, SQLHANDLE h, SQLRETURN rc,
                     const char *what)
{
    diag(&c->err, htype, h, rc, c->dialect, what);
    return c->err.status;
}

/* ------------------------------------------------------------------ */
/* Process lifetime.                                                   */

/* Value of a driver option, NULL when unset or empty; owned by the host
 * for the whole run. */
static const char *opt(const char *name)
{
    const char *v = host->opt_str(name);
    return v && *v ? v : NULL;
}

static void add_secret(const char *s)
{
    if (s && *s && nsecrets < (int)(sizeof secrets / sizeof secrets[0]))
        secrets[nsecrets++] = strdup(s);
}

/* Records the values of PWD=/PASSWORD= found in a user's connection
 * string, so that they are scrubbed from messages too. */
static void collect_connstr_secrets(const char *cs)
{
    const char *p = cs;
    while (*p) {
        while (*p == ';' || isspace((unsigned char)*p))
            p++;
        const char *key = p;
        while (*p && *p != '=' && *p != ';')
            p++;
        if (*p != '=')
            continue;
        size_t klen = (size_t)(p - key);
        while (klen > 0 && isspace((unsigned char)key[klen - 1]))
            klen--;
        int is_pwd = (klen == 3 && strncasecmp(key, "pwd", 3) == 0) ||
                     (klen == 8 && strncasecmp(key, "password", 8) == 0);
        p++;
        struct sbuf v = {0};
        if (*p == '{') {
            p++;
            while (*p) {
                if (*p == '}' && p[1] == '}') {
                    sb_addn(&v, p, 1);
                    p += 2;
                } else if (*p == '}') {
                    p++;
                    break;
                } else
                    sb_addn(&v, p++, 1);
            }
            while (*p && *p != ';')
                p++;
        } else {
            const char *s = p;
            while (*p && *p != ';')
                p++;
            sb_addn(&v, s, (size_t)(p - s));
        }
        if (is_pwd && v.p)
            add_secret(v.p);
        free(v.p);
    }
}

static void odbc_done(void)
{
    if (env != SQL_NULL_HENV)
        SQLFreeHandle(SQL_HANDLE_ENV, env);
    env = SQL_NULL_HENV;
    if (conn_str)
        memset(conn_str, 0, strlen(conn_str));
    free(conn_str);
    free(conn_str_masked);
    conn_str = conn_str_masked = NULL;
    for (int k = 0; k < nsecrets; k++) {
        memset(secrets[k], 0, strlen(secrets[k]));
        free(secrets[k]);
        secrets[k] = NULL;
    }
    nsecrets = 0;
}

static int odbc_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    host = h;
    atomic_flag_clear(&warned_unknown);
    atomic_flag_clear(&warned_timeout);

    const char *dsn = opt("odbc-dsn");
    const char *cs = opt("odbc-connstr");
    const char *user = opt("odbc-user");
    char *pw = NULL;                /* --odbc-password(-file), owned */

    if (dsn == NULL && cs == NULL) {
        snprintf(errbuf, errlen, "one of --odbc-dsn or --odbc-connstr is required");
        return SBD_ERROR;
    }
    if (dsn != NULL && cs != NULL) {
        snprintf(errbuf, errlen, "give only one of --odbc-dsn and --odbc-connstr");
        return SBD_ERROR;
    }
    if (sbc_password_get(h, "odbc", &pw, errbuf, errlen) != 0)
        return SBD_ERROR;

    odbc_done(); /* a second init starts from scratch */
    struct sbuf b = {0};
    if (dsn != NULL) {
        sb_add_kv(&b, "DSN", dsn);
    } else {
        sb_add(&b, cs);
        if (b.len > 0 && b.p[b.len - 1] != ';' && (user || pw))
            sb_add(&b, ";");
        collect_connstr_secrets(cs);
    }
    if (user)
        sb_add_kv(&b, "UID", user);
    if (pw) {
        sb_add_kv(&b, "PWD", pw);
        const char *names[] = {user ? user : "", dsn ? dsn : "", NULL};
        add_secret(sbc_secret(pw, names)); /* not when it is also the user or DSN */
    }
    sbc_password_free(pw);
    if (b.oom || b.p == NULL) {
        free(b.p);
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }
    conn_str = b.p;
    size_t mcap = b.len + 16;
    conn_str_masked = malloc(mcap);
    if (conn_str_masked == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }
    mask_pwd(conn_str, conn_str_masked, mcap);
    /* end with ';' so that text after it in a message is never taken for
     * part of a masked value when messages are scrubbed again */
    size_t ml = strlen(conn_str_masked);
    if (ml > 0 && conn_str_masked[ml - 1] != ';' && ml + 2 <= mcap)
        memcpy(conn_str_masked + ml, ";", 2);

    SQLRETURN rc = SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &env);
    if (!SQL_SUCCEEDED(rc)) {
        snprintf(errbuf, errlen, "cannot allocate an ODBC environment handle");
        return SBD_ERROR;
    }
    rc = SQLSetEnvAttr(env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER)(uintptr_t)SQL_OV_ODBC3, 0);
    if (!SQL_SUCCEEDED(rc)) {
        struct sbd_error e;
        diag(&e, SQL_HANDLE_ENV, env, rc, NULL, "cannot select ODBC 3");
        snprintf(errbuf, errlen, "%s", e.message);
        return SBD_ERROR;
    }

    /* Driver manager version: asked of an unconnected connection handle. */
    snprintf(client_ver, sizeof client_ver, "unixODBC %s", SBD_ODBC_DM_BUILD_VERSION);
    SQLHDBC dbc;
    if (SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_DBC, env, &dbc))) {
        char ver[64] = "";
        SQLSMALLINT len = 0;
        if (SQL_SUCCEEDED(SQLGetInfo(dbc, SQL_DM_VER, ver, sizeof ver, &len)) && ver[0])
            snprintf(client_ver, sizeof client_ver, "unixODBC %s (DM %s)",
                     SBD_ODBC_DM_BUILD_VERSION, ver);
        SQLFreeHandle(SQL_HANDLE_DBC, dbc);
    }
    host->log(SBD_LOG_DEBUG, "connection string: %s", conn_str_masked);
    return SBD_OK;
}

/* "unixODBC VERSION (DM x.y)": static storage, never NULL. */
static const char *odbc_client_version(void)
{
    return client_ver[0] ? client_ver : "unixODBC " SBD_ODBC_DM_BUILD_VERSION;
}

/* ------------------------------------------------------------------ */
/* Connections.                                                        */

/* Allocates a statement handle on c with the query timeout applied. */
static int alloc_stmt(sbd_conn *c, SQLHSTMT *out)
{
    SQLRETURN rc = SQLAllocHandle(SQL_HANDLE_STMT, c->dbc, out);
    if (!SQL_SUCCEEDED(rc)) {
        *out = SQL_NULL_HSTMT;
        return conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc, "cannot allocate a statement");
    }
    if (host->query_timeout > 0) {
        rc = SQLSetStmtAttr(*out, SQL_ATTR_QUERY_TIMEOUT,
                            (SQLPOINTER)(uintptr_t)host->query_timeout, 0);
        if (!SQL_SUCCEEDED(rc) && !atomic_flag_test_and_set(&warned_timeout)) {
            struct sbd_error e;
            diag(&e, SQL_HANDLE_STMT, *out, rc, c->dialect, "query timeout not set");
            host->log(SBD_LOG_WARN, "%s", e.message);
        }
    }
    return SBD_OK;
}

/* Dialect for a DBMS name: a static string, or NULL when unknown. */
static const char *pick_dialect(const char *dbms)
{
    if (strstr(dbms, "PostgreSQL"))
        return "postgresql";
    if (strstr(dbms, "MySQL") || strstr(dbms, "MariaDB"))
        return "mysql";
    if (strstr(dbms, "SQLite"))
        return "sqlite";
    if (strncmp(dbms, "DB2", 3) == 0)
        return "db2";
    return NULL;
}

static void free_bulk(sbd_conn *c);
static void free_stmt(sbd_stmt *s);

static void odbc_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
    if (c->cur)
        SQLFreeStmt(c->cur, SQL_CLOSE);
    free_bulk(c);
    while (c->stmts) {
        sbd_stmt *s = c->stmts;
        c->stmts = s->next;
        free_stmt(s);
    }
    if (c->qh != SQL_NULL_HSTMT)
        SQLFreeHandle(SQL_HANDLE_STMT, c->qh);
    if (c->dbc != SQL_NULL_HDBC) {
        if (c->in_txn)
            SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
        SQLDisconnect(c->dbc);
        SQLFreeHandle(SQL_HANDLE_DBC, c->dbc);
    }
    for (int i = 0; i < c->cols_cap; i++)
        free(c->cols[i].buf);
    free(c->cols);
    free(c->qtypes);
    free(c);
}

static int odbc_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    (void)thread_id;
    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return set_error(err, SBD_ERROR, "out of memory");
    SQLRETURN rc = SQLAllocHandle(SQL_HANDLE_DBC, env, &c->dbc);
    if (!SQL_SUCCEEDED(rc)) {
        diag(err, SQL_HANDLE_ENV, env, rc, NULL, "cannot allocate a connection handle");
        err->status = SBD_ERROR;
        c->dbc = SQL_NULL_HDBC;
        odbc_disconnect(c);
        return SBD_ERROR;
    }
    if (host->connect_timeout > 0)
        SQLSetConnectAttr(c->dbc, SQL_ATTR_LOGIN_TIMEOUT,
                          (SQLPOINTER)(uintptr_t)host->connect_timeout, 0);
    rc = SQLDriverConnect(c->dbc, NULL, (SQLCHAR *)conn_str, SQL_NTS, NULL, 0,
                          NULL, SQL_DRIVER_NOPROMPT);
    if (!SQL_SUCCEEDED(rc)) {
        char what[300];
        snprintf(what, sizeof what, "cannot connect to %.250s", conn_str_masked);
        diag(err, SQL_HANDLE_DBC, c->dbc, rc, NULL, what);
        err->status = SBD_ERROR;
        SQLFreeHandle(SQL_HANDLE_DBC, c->dbc);
        c->dbc = SQL_NULL_HDBC;
        odbc_disconnect(c);
        return SBD_ERROR;
    }

    char name[96] = "", ver[64] = "";
    SQLSMALLINT len = 0;
    if (!SQL_SUCCEEDED(SQLGetInfo(c->dbc, SQL_DBMS_NAME, name, sizeof name, &len)))
        name[0] = 0;
    if (!SQL_SUCCEEDED(SQLGetInfo(c->dbc, SQL_DBMS_VER, ver, sizeof ver, &len)))
        ver[0] = 0;
    snprintf(c->server_version, sizeof c->server_version, "%s %s", name, ver);
    c->dialect = pick_dialect(name);
    if (c->dialect == NULL) {
        c->dialect = "ansi";
        if (!atomic_flag_test_and_set(&warned_unknown))
            host->log(SBD_LOG_WARN, "unknown database '%s': using ANSI SQL",
                      name[0] ? name : "?");
    }
    if (alloc_stmt(c, &c->qh) != SBD_OK) {
        *err = c->err;
        err->status = SBD_ERROR;
        odbc_disconnect(c);
        return SBD_ERROR;
    }
    *out = c;
    return SBD_OK;
}

/* The connection's last error: owned by c, never NULL. */
static const struct sbd_error *odbc_last_error(sbd_conn *c) { return &c->err; }

/* Static string, never NULL. */
static const char *odbc_dialect(sbd_conn *c) { return c->dialect; }

/* "DBMS-name DBMS-version": owned by c, never NULL. */
static const char *odbc_server_version(sbd_conn *c) { return c->server_version; }

/* ------------------------------------------------------------------ */
/* Results.                                                            */

static int map_type(SQLSMALLINT t)
{
    switch (t) {
    case SQL_BIT:
    case SQL_TINYINT:
    case SQL_SMALLINT:
    case SQL_INTEGER:
    case SQL_BIGINT:
        return SBD_TYPE_INT;
    case SQL_REAL:
    case SQL_FLOAT:
    case SQL_DOUBLE:
    case SQL_DECIMAL:
    case SQL_NUMERIC:
        return SBD_TYPE_DOUBLE;
    case SQL_TYPE_DATE:
    case SQL_DATE:
        return SBD_TYPE_DATE;
    case SQL_TYPE_TIME:
    case SQL_TIME:
        return SBD_TYPE_TIME;
    case SQL_TYPE_TIMESTAMP:
    case SQL_TIMESTAMP:
        return SBD_TYPE_DATETIME;
    default:
        return SBD_TYPE_STRING;
    }
}

static int describe(sbd_conn *c, SQLHSTMT h, int ncols, int *types)
{
    for (int i = 0; i < ncols; i++) {
        SQLSMALLINT dt = 0, dd = 0, nl = 0, namelen = 0;
        SQLULEN size = 0;
        SQLRETURN rc = SQLDescribeCol(h, (SQLUSMALLINT)(i + 1), NULL, 0, &namelen,
                                      &dt, &size, &dd, &nl);
        if (!SQL_SUCCEEDED(rc))
            return conn_diag(c, SQL_HANDLE_STMT, h, rc, "SQLDescribeCol");
        types[i] = map_type(dt);
    }
    return SBD_OK;
}

/* Makes room for ncols result columns in the connection's arrays (grows
 * only; allocates on the first wide result). */
static int ensure_cols(sbd_conn *c, int ncols)
{
    if (ncols <= c->cols_cap)
        return SBD_OK;
    int cap = c->cols_cap ? c->cols_cap : 8;
    while (cap < ncols)
        cap *= 2;
    int *t = realloc(c->qtypes, (size_t)cap * sizeof *t);
    if (t == NULL)
        return set_error(&c->err, SBD_ERROR, "out of memory");
    c->qtypes = t;
    struct colbuf *b = realloc(c->cols, (size_t)cap * sizeof *b);
    if (b == NULL)
        return set_error(&c->err, SBD_ERROR, "out of memory");
    memset(b + c->cols_cap, 0, (size_t)(cap - c->cols_cap) * sizeof *b);
    c->cols = b;
    c->cols_cap = cap;
    return SBD_OK;
}

static void close_cursor(sbd_conn *c)
{
    if (c->cur) {
        SQLFreeStmt(c->cur, SQL_CLOSE);
        c->cur = SQL_NULL_HSTMT;
    }
    c->ncols = 0;
}

/* Common end of query and execute: rc is what SQLExecDirect/SQLExecute
 * returned on h; s is the prepared statement or NULL. */
static int finish_exec(sbd_conn *c, SQLHSTMT h, SQLRETURN rc, sbd_stmt *s,
                       struct sbd_result_info *info)
{
    info->affected_rows = 0;
    info->nrows = 0;
    info->nfields = 0;
    if (rc == SQL_NO_DATA) /* searched UPDATE/DELETE that hit no row */
        return SBD_OK;
    if (!SQL_SUCCEEDED(rc)) {
        int st = conn_diag(c, SQL_HANDLE_STMT, h, rc, NULL);
        SQLFreeStmt(h, SQL_CLOSE);
        return st;
    }
    SQLSMALLINT n = 0;
    rc = SQLNumResultCols(h, &n);
    if (!SQL_SUCCEEDED(rc)) {
        int st = conn_diag(c, SQL_HANDLE_STMT, h, rc, "SQLNumResultCols");
        SQLFreeStmt(h, SQL_CLOSE);
        return st;
    }
    if (n <= 0) {
        SQLLEN rows = -1;
        if (!SQL_SUCCEEDED(SQLRowCount(h, &rows)))
            rows = -1;
        info->affected_rows = rows;
        return SBD_OK;
    }
    int st = ensure_cols(c, n);
    if (st != SBD_OK)
        return st;
    if (s != NULL) {
        if (s->ncols != n) { /* first execute: describe once */
            int *t = realloc(s->ctypes, (size_t)n * sizeof *t);
            if (t == NULL)
                return set_error(&c->err, SBD_ERROR, "out of memory");
            s->ctypes = t;
            s->ncols = -1;
            if ((st = describe(c, h, n, t)) != SBD_OK) {
                SQLFreeStmt(h, SQL_CLOSE);
                return st;
            }
            s->ncols = n;
        }
        c->ctypes = s->ctypes;
    } else {
        if ((st = describe(c, h, n, c->qtypes)) != SBD_OK) {
            SQLFreeStmt(h, SQL_CLOSE);
            return st;
        }
        c->ctypes = c->qtypes;
    }
    c->cur = h;
    c->ncols = n;
    info->nrows = -1;
    info->nfields = n;
    return SBD_OK;
}

static int odbc_query(sbd_conn *c, const char *sql, size_t len,
                      struct sbd_result_info *info)
{
    close_cursor(c);
    if (len > 0x7fffffff)
        return set_error(&c->err, SBD_ERROR, "statement too long");
    SQLRETURN rc = SQLExecDirect(c->qh, (SQLCHAR *)sql, (SQLINTEGER)len);
    return finish_exec(c, c->qh, rc, NULL, info);
}

/* Reads column i (0-based) of the current row as character data into the
 * column's buffer, growing it as needed. */
static int get_string(sbd_conn *c, int i, struct sbd_value *v)
{
    struct colbuf *b = &c->cols[i];
    if (b->cap == 0) {
        b->buf = malloc(STR_INIT);
        if (b->buf == NULL)
            return set_error(&c->err, SBD_ERROR, "out of memory");
        b->cap = STR_INIT;
    }
    size_t got = 0;
    for (;;) {
        SQLLEN ind = 0;
        SQLRETURN rc = SQLGetData(c->cur, (SQLUSMALLINT)(i + 1), SQL_C_CHAR,
                                  b->buf + got, (SQLLEN)(b->cap - got), &ind);
        if (rc == SQL_NO_DATA)
            break;
        if (!SQL_SUCCEEDED(rc))
            return conn_diag(c, SQL_HANDLE_STMT, c->cur, rc, "SQLGetData");
        if (ind == SQL_NULL_DATA) {
            v->is_null = 1;
            v->s = "";
            v->len = 0;
            return SBD_OK;
        }
        size_t room = b->cap - got - 1;
        if (rc == SQL_SUCCESS || (ind != SQL_NO_TOTAL && (size_t)ind <= room)) {
            got += (size_t)ind;
            break;
        }
        /* truncated: keep what came, grow, fetch the rest */
        got += room;
        size_t need = ind == SQL_NO_TOTAL ? b->cap * 2 : got + ((size_t)ind - room) + 1;
        if (need < b->cap * 2)
            need = b->cap * 2;
        char *p = realloc(b->buf, need);
        if (p == NULL)
            return set_error(&c->err, SBD_ERROR, "out of memory");
        b->buf = p;
        b->cap = need;
    }
    v->is_null = 0;
    v->s = b->buf;
    v->len = got;
    return SBD_OK;
}

static int odbc_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->cur == SQL_NULL_HSTMT)
        return SBD_DONE;
    SQLRETURN rc = SQLFetch(c->cur);
    if (rc == SQL_NO_DATA)
        return SBD_DONE;
    if (!SQL_SUCCEEDED(rc))
        return conn_diag(c, SQL_HANDLE_STMT, c->cur, rc, "SQLFetch");
    for (int i = 0; i < c->ncols; i++) {
        struct sbd_value *v = &row[i];
        SQLLEN ind = 0;
        v->type = c->ctypes[i];
        v->is_null = 0;
        v->i = 0;
        v->d = 0;
        v->s = NULL;
        v->len = 0;
        if (v->type == SBD_TYPE_INT) {
            SQLBIGINT x = 0;
            rc = SQLGetData(c->cur, (SQLUSMALLINT)(i + 1), SQL_C_SBIGINT, &x, 0, &ind);
            v->i = x;
        } else if (v->type == SBD_TYPE_DOUBLE) {
            rc = SQLGetData(c->cur, (SQLUSMALLINT)(i + 1), SQL_C_DOUBLE, &v->d, 0, &ind);
        } else {
            int st = get_string(c, i, v);
            if (st != SBD_OK)
                return st;
            continue;
        }
        if (!SQL_SUCCEEDED(rc))
            return conn_diag(c, SQL_HANDLE_STMT, c->cur, rc, "SQLGetData");
        if (ind == SQL_NULL_DATA)
            v->is_null = 1;
    }
    return SBD_OK;
}

static void odbc_free_result(sbd_conn *c) { close_cursor(c); }

/* ------------------------------------------------------------------ */
/* Prepared statements.                                                */

static void free_stmt(sbd_stmt *s)
{
    if (s->h != SQL_NULL_HSTMT)
        SQLFreeHandle(SQL_HANDLE_STMT, s->h);
    for (int i = 0; i < s->nparams; i++)
        free(s->params[i].buf);
    free(s->params);
    free(s->ctypes);
    free(s);
}

static int bind_param(sbd_conn *c, sbd_stmt *s, int i)
{
    struct param *p = &s->params[i];
    SQLPOINTER ptr;
    SQLLEN buflen = 0;
    SQLULEN colsize = p->colsize;
    if (p->ctype == SQL_C_SBIGINT)
        ptr = &p->i;
    else if (p->ctype == SQL_C_DOUBLE)
        ptr = &p->d;
    else {
        ptr = p->buf;
        buflen = (SQLLEN)p->cap;
        if (p->sqltype == SQL_VARCHAR)
            colsize = p->cap - 1;
    }
    SQLRETURN rc = SQLBindParameter(s->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT,
                                    p->ctype, p->sqltype, colsize, 0, ptr,
                                    buflen, &p->ind);
    if (!SQL_SUCCEEDED(rc))
        return conn_diag(c, SQL_HANDLE_STMT, s->h, rc, "SQLBindParameter");
    return SBD_OK;
}

/* Chooses C and SQL types for an sbench type; *bytes is the buffer size
 * for character data (0 for numbers), *colsize the ODBC column size. */
static void param_types(int type, SQLSMALLINT *ctype, SQLSMALLINT *sqltype,
                        SQLULEN *colsize, size_t *bytes)
{
    *colsize = 0;
    *bytes = 0;
    switch (type) {
    case SBD_TYPE_INT:
        *ctype = SQL_C_SBIGINT;
        *sqltype = SQL_BIGINT;
        *colsize = 19;
        break;
    case SBD_TYPE_DOUBLE:
        *ctype = SQL_C_DOUBLE;
        *sqltype = SQL_DOUBLE;
        *colsize = 15;
        break;
    case SBD_TYPE_DATE:
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_TYPE_DATE;
        *colsize = 10;
        *bytes = 32;
        break;
    case SBD_TYPE_TIME:
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_TYPE_TIME;
        *colsize = 8;
        *bytes = 32;
        break;
    case SBD_TYPE_DATETIME:
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_TYPE_TIMESTAMP;
        *colsize = 19;
        *bytes = 32;
        break;
    default: /* STRING, NULL */
        *ctype = SQL_C_CHAR;
        *sqltype = SQL_VARCHAR;
        *bytes = STR_INIT;
        *colsize = STR_INIT - 1;
        break;
    }
}

static int odbc_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                        const int *param_types_in, sbd_stmt **out)
{
    *out = NULL;
    close_cursor(c);
    if (len > 0x7fffffff || nparams < 0)
        return set_error(&c->err, SBD_ERROR, "prepare: bad statement length or parameter count");
    sbd_stmt *s = calloc(1, sizeof *s);
    if (s == NULL)
        return set_error(&c->err, SBD_ERROR, "out of memory");
    s->ncols = -1;
    if (nparams > 0) {
        s->params = calloc((size_t)nparams, sizeof *s->params);
        if (s->params == NULL) {
            free(s);
            return set_error(&c->err, SBD_ERROR, "out of memory");
        }
    }
    s->nparams = nparams;
    int st = alloc_stmt(c, &s->h);
    if (st != SBD_OK) {
        free_stmt(s);
        return st;
    }
    SQLRETURN rc = SQLPrepare(s->h, (SQLCHAR *)sql, (SQLINTEGER)len);
    if (!SQL_SUCCEEDED(rc)) {
        st = conn_diag(c, SQL_HANDLE_STMT, s->h, rc, NULL);
        free_stmt(s);
        return st;
    }
    for (int i = 0; i < nparams; i++) {
        struct param *p = &s->params[i];
        size_t bytes;
        p->type = param_types_in[i];
        param_types(p->type, &p->ctype, &p->sqltype, &p->colsize, &bytes);
        if (bytes > 0) {
            p->buf = calloc(1, bytes);
            if (p->buf == NULL) {
                free_stmt(s);
                return set_error(&c->err, SBD_ERROR, "out of memory");
            }
            p->cap = bytes;
        }
        p->ind = SQL_NULL_DATA;
        if ((st = bind_param(c, s, i)) != SBD_OK) {
            free_stmt(s);
            return st;
        }
    }
    s->next = c->stmts;
    if (c->stmts)
        c->stmts->prev = s;
    c->stmts = s;
    *out = s;
    return SBD_OK;
}

/* Copies one parameter value into its bound buffer; grows the buffer and
 * rebinds only when a longer string arrives. */
static int set_param(sbd_conn *c, sbd_stmt *s, int i, const struct sbd_value *v)
{
    struct param *p = &s->params[i];
    if (v->is_null || v->type == SBD_TYPE_NULL) {
        p->ind = SQL_NULL_DATA;
        return SBD_OK;
    }
    if (p->ctype == SQL_C_SBIGINT) {
        p->i = v->type == SBD_TYPE_DOUBLE ? (SQLBIGINT)v->d : (SQLBIGINT)v->i;
        p->ind = 0;
        return SBD_OK;
    }
    if (p->ctype == SQL_C_DOUBLE) {
        p->d = v->type == SBD_TYPE_INT ? (double)v->i : v->d;
        p->ind = 0;
        return SBD_OK;
    }
    size_t len = v->s ? v->len : 0;
    if (len + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : STR_INIT;
        while (cap < len + 1)
            cap *= 2;
        char *nb = realloc(p->buf, cap);
        if (nb == NULL)
            return set_error(&c->err, SBD_ERROR, "out of memory");
        p->buf = nb;
        p->cap = cap;
        int st = bind_param(c, s, i);
        if (st != SBD_OK)
            return st;
    }
    if (len > 0)
        memcpy(p->buf, v->s, len);
    p->buf[len] = 0;
    p->ind = (SQLLEN)len;
    return SBD_OK;
}

static int odbc_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                        int nparams, struct sbd_result_info *info)
{
    close_cursor(c);
    if (nparams != s->nparams) {
        info->affected_rows = -1;
        info->nrows = 0;
        info->nfields = 0;
        return sbc_error(&c->err, SBD_ERROR, 0, NULL, NULL,
                         "execute: %d parameters given, the statement has %d",
                         nparams, s->nparams);
    }
    for (int i = 0; i < nparams; i++) {
        int st = set_param(c, s, i, &params[i]);
        if (st != SBD_OK)
            return st;
    }
    SQLRETURN rc = SQLExecute(s->h);
    return finish_exec(c, s->h, rc, s, info);
}

static void odbc_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    if (c->cur == s->h)
        close_cursor(c);
    if (s->prev)
        s->prev->next = s->next;
    else
        c->stmts = s->next;
    if (s->next)
        s->next->prev = s->prev;
    free_stmt(s);
}

/* ------------------------------------------------------------------ */
/* Transactions.                                                       */

static int set_autocommit(sbd_conn *c, int on)
{
    SQLRETURN rc = SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT,
                                     (SQLPOINTER)(uintptr_t)(on ? SQL_AUTOCOMMIT_ON
                                                                : SQL_AUTOCOMMIT_OFF),
                                     SQL_IS_UINTEGER);
    if (!SQL_SUCCEEDED(rc))
        return conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc,
                         on ? "autocommit on" : "autocommit off");
    return SBD_OK;
}

static int odbc_begin(sbd_conn *c)
{
    close_cursor(c);
    int st = set_autocommit(c, 0);
    if (st == SBD_OK)
        c->in_txn = 1;
    return st;
}

/* Ends the transaction with SQL_COMMIT or SQL_ROLLBACK and turns autocommit
 * back on.  A failed commit is rolled back before autocommit returns, so
 * that switching autocommit on cannot commit it. */
static int end_txn(sbd_conn *c, SQLSMALLINT how)
{
    close_cursor(c);
    SQLRETURN rc = SQLEndTran(SQL_HANDLE_DBC, c->dbc, how);
    int st = SBD_OK;
    if (!SQL_SUCCEEDED(rc)) {
        st = conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc,
                       how == SQL_COMMIT ? "commit" : "rollback");
        if (how == SQL_COMMIT)
            SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
    }
    if (c->in_txn) {
        c->in_txn = 0;
        if (st == SBD_OK)
            st = set_autocommit(c, 1);
        else
            SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT,
                              (SQLPOINTER)(uintptr_t)SQL_AUTOCOMMIT_ON, SQL_IS_UINTEGER);
    }
    return st;
}

static int odbc_commit(sbd_conn *c) { return end_txn(c, SQL_COMMIT); }

static int odbc_rollback(sbd_conn *c) { return end_txn(c, SQL_ROLLBACK); }

/* ------------------------------------------------------------------ */
/* Bulk load: one prepared INSERT, parameter arrays when available.     */

static void free_bulk(sbd_conn *c)
{
    struct bulk *b = c->bulk;
    if (b == NULL)
        return;
    if (b->h != SQL_NULL_HSTMT)
        SQLFreeHandle(SQL_HANDLE_STMT, b->h);
    if (b->own_txn) {
        SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
        SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT,
                          (SQLPOINTER)(uintptr_t)SQL_AUTOCOMMIT_ON, SQL_IS_UINTEGER);
    }
    for (int i = 0; i < b->ncols; i++) {
        if (b->data)
            free(b->data[i]);
        if (b->ind)
            free(b->ind[i]);
    }
    free(b->data);
    free(b->ind);
    free(b->width);
    free(b->types);
    free(b->status);
    free(b);
    c->bulk = NULL;
}

static int bulk_bind(sbd_conn *c, struct bulk *b, int i)
{
    SQLSMALLINT ctype, sqltype;
    SQLULEN colsize;
    size_t bytes;
    param_types(b->types[i], &ctype, &sqltype, &colsize, &bytes);
    if (sqltype == SQL_VARCHAR)
        colsize = b->width[i] - 1;
    SQLRETURN rc = SQLBindParameter(b->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT,
                                    ctype, sqltype, colsize, 0, b->data[i],
                                    bytes ? (SQLLEN)b->width[i] : 0, b->ind[i]);
    if (!SQL_SUCCEEDED(rc))
        return conn_diag(c, SQL_HANDLE_STMT, b->h, rc, "bulk: SQLBindParameter");
    return SBD_OK;
}

/* Records a failed load: the rows of the load's own transaction are rolled
 * back and autocommit is on again at once, so the connection stays usable
 * even if bulk_end is never called.  Returns status. */
static int bulk_fail(sbd_conn *c, struct bulk *b, int status)
{
    b->failed = status;
    if (b->own_txn) {
        SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_ROLLBACK);
        SQLSetConnectAttr(c->dbc, SQL_ATTR_AUTOCOMMIT,
                          (SQLPOINTER)(uintptr_t)SQL_AUTOCOMMIT_ON, SQL_IS_UINTEGER);
        b->own_txn = 0;
    }
    return status;
}

/* Sends the rows waiting in the arrays; commits every BULK_COMMIT_ROWS
 * rows when the load owns the transaction. */
static int bulk_flush(sbd_conn *c, struct bulk *b)
{
    if (b->nrows == 0)
        return SBD_OK;
    SQLRETURN rc;
    if (b->rows_max > 1 && b->paramset != b->nrows) {
        rc = SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE,
                            (SQLPOINTER)(uintptr_t)b->nrows, 0);
        if (!SQL_SUCCEEDED(rc))
            return bulk_fail(c, b, conn_diag(c, SQL_HANDLE_STMT, b->h, rc,
                                         "bulk: SQL_ATTR_PARAMSET_SIZE"));
        b->paramset = b->nrows;
    }
    rc = SQLExecute(b->h);
    if (!SQL_SUCCEEDED(rc) && rc != SQL_NO_DATA)
        return bulk_fail(c, b, conn_diag(c, SQL_HANDLE_STMT, b->h, rc, NULL));
    if (b->rows_max > 1) {
        for (size_t r = 0; r < b->nrows; r++)
            if (b->status[r] == SQL_PARAM_ERROR)
                return bulk_fail(c, b, conn_diag(c, SQL_HANDLE_STMT, b->h, SQL_ERROR, NULL));
    }
    SQLFreeStmt(b->h, SQL_CLOSE);
    b->since_commit += b->nrows;
    b->nrows = 0;
    if (b->own_txn && b->since_commit >= BULK_COMMIT_ROWS) {
        rc = SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_COMMIT);
        if (!SQL_SUCCEEDED(rc))
            return bulk_fail(c, b, conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc, "bulk: commit"));
        b->since_commit = 0;
    }
    return SBD_OK;
}

static int odbc_bulk_begin(sbd_conn *c, const char *table, const char *const *columns,
                           const int *types, int ncolumns)
{
    if (c->bulk)
        return set_error(&c->err, SBD_ERROR, "bulk_begin: a bulk load is already running");
    if (ncolumns <= 0)
        return set_error(&c->err, SBD_ERROR, "bulk_begin: no columns");
    close_cursor(c);
    struct bulk *b = calloc(1, sizeof *b);
    if (b == NULL)
        return set_error(&c->err, SBD_ERROR, "out of memory");
    c->bulk = b;
    b->h = SQL_NULL_HSTMT;

    struct sbuf q = {0};
    sb_add(&q, "INSERT INTO ");
    sb_add(&q, table);
    sb_add(&q, " (");
    for (int i = 0; i < ncolumns; i++) {
        sb_add(&q, i ? ", " : "");
        sb_add(&q, columns[i]);
    }
    sb_add(&q, ") VALUES (");
    for (int i = 0; i < ncolumns; i++)
        sb_add(&q, i ? ", ?" : "?");
    sb_add(&q, ")");
    b->types = malloc((size_t)ncolumns * sizeof *b->types);
    b->data = calloc((size_t)ncolumns, sizeof *b->data);
    b->ind = calloc((size_t)ncolumns, sizeof *b->ind);
    b->width = calloc((size_t)ncolumns, sizeof *b->width);
    if (q.oom || b->types == NULL || b->data == NULL || b->ind == NULL || b->width == NULL) {
        free(q.p);
        free_bulk(c);
        return set_error(&c->err, SBD_ERROR, "out of memory");
    }
    b->ncols = ncolumns;
    memcpy(b->types, types, (size_t)ncolumns * sizeof *types);

    int st = alloc_stmt(c, &b->h);
    if (st == SBD_OK) {
        SQLRETURN rc = SQLPrepare(b->h, (SQLCHAR *)q.p, SQL_NTS);
        if (!SQL_SUCCEEDED(rc))
            st = conn_diag(c, SQL_HANDLE_STMT, b->h, rc, "bulk: prepare");
    }
    free(q.p);
    if (st != SBD_OK) {
        free_bulk(c);
        return st;
    }

    /* Parameter arrays: accepted only if the driver keeps the size. */
    b->rows_max = 1;
    SQLRETURN rc = SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE,
                                  (SQLPOINTER)(uintptr_t)BULK_ROWS, 0);
    if (rc == SQL_SUCCESS) {
        SQLULEN got = 0;
        if (SQL_SUCCEEDED(SQLGetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE, &got, 0, NULL)) &&
            got == BULK_ROWS)
            b->rows_max = BULK_ROWS;
    }
    if (b->rows_max > 1) {
        b->status = calloc(b->rows_max, sizeof *b->status);
        if (b->status == NULL ||
            !SQL_SUCCEEDED(SQLSetStmtAttr(b->h, SQL_ATTR_PARAM_BIND_TYPE,
                                          (SQLPOINTER)(uintptr_t)SQL_PARAM_BIND_BY_COLUMN, 0)) ||
            !SQL_SUCCEEDED(SQLSetStmtAttr(b->h, SQL_ATTR_PARAM_STATUS_PTR, b->status, 0)))
            b->rows_max = 1;
    }
    if (b->rows_max == 1) {
        SQLSetStmtAttr(b->h, SQL_ATTR_PARAMSET_SIZE, (SQLPOINTER)(uintptr_t)1, 0);
        SQLSetStmtAttr(b->h, SQL_ATTR_PARAM_STATUS_PTR, NULL, 0);
    }
    b->paramset = b->rows_max;
    host->log(SBD_LOG_DEBUG, "bulk load into %s: %zu rows per execute", table, b->rows_max);

    for (int i = 0; i < ncolumns; i++) {
        SQLSMALLINT ctype, sqltype;
        SQLULEN colsize;
        size_t bytes;
        param_types(types[i], &ctype, &sqltype, &colsize, &bytes);
        b->width[i] = bytes ? bytes : (ctype == SQL_C_DOUBLE ? sizeof(double)
                                                              : sizeof(SQLBIGINT));
        b->data[i] = malloc(b->rows_max * b->width[i]);
        b->ind[i] = malloc(b->rows_max * sizeof(SQLLEN));
        if (b->data[i] == NULL || b->ind[i] == NULL) {
            free_bulk(c);
            return set_error(&c->err, SBD_ERROR, "out of memory");
        }
        if ((st = bulk_bind(c, b, i)) != SBD_OK) {
            free_bulk(c);
            return st;
        }
    }
    if (!c->in_txn) {
        if ((st = set_autocommit(c, 0)) != SBD_OK) {
            free_bulk(c);
            return st;
        }
        b->own_txn = 1;
    }
    return SBD_OK;
}

static int odbc_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    struct bulk *b = c->bulk;
    if (b == NULL)
        return set_error(&c->err, SBD_ERROR, "bulk_row: no bulk load running");
    if (b->failed)
        return b->failed;
    /* A string longer than its column's slots: send what is waiting, then
     * widen the slots. */
    for (int i = 0; i < b->ncols; i++) {
        const struct sbd_value *v = &values[i];
        if (b->types[i] == SBD_TYPE_INT || b->types[i] == SBD_TYPE_DOUBLE ||
            v->is_null || v->s == NULL || v->len + 1 <= b->width[i])
            continue;
        int st = bulk_flush(c, b);
        if (st != SBD_OK)
            return st;
        size_t w = b->width[i];
        while (w < v->len + 1)
            w *= 2;
        char *nd = realloc(b->data[i], b->rows_max * w);
        if (nd == NULL)
            return bulk_fail(c, b, set_error(&c->err, SBD_ERROR, "out of memory"));
        b->data[i] = nd;
        b->width[i] = w;
        if ((st = bulk_bind(c, b, i)) != SBD_OK)
            return bulk_fail(c, b, st);
    }
    size_t r = b->nrows;
    for (int i = 0; i < b->ncols; i++) {
        const struct sbd_value *v = &values[i];
        SQLLEN *ind = &b->ind[i][r];
        if (v->is_null || v->type == SBD_TYPE_NULL) {
            *ind = SQL_NULL_DATA;
            continue;
        }
        *ind = 0;
        if (b->types[i] == SBD_TYPE_INT) {
            SQLBIGINT x = v->type == SBD_TYPE_DOUBLE ? (SQLBIGINT)v->d : (SQLBIGINT)v->i;
            memcpy(b->data[i] + r * sizeof x, &x, sizeof x);
        } else if (b->types[i] == SBD_TYPE_DOUBLE) {
            double d = v->type == SBD_TYPE_INT ? (double)v->i : v->d;
            memcpy(b->data[i] + r * sizeof d, &d, sizeof d);
        } else {
            size_t len = v->s ? v->len : 0;
            char *dst = b->data[i] + r * b->width[i];
            if (len > 0)
                memcpy(dst, v->s, len);
            dst[len] = 0;
            *ind = (SQLLEN)len;
        }
    }
    b->nrows++;
    if (b->nrows == b->rows_max)
        return bulk_flush(c, b);
    return SBD_OK;
}

static int odbc_bulk_end(sbd_conn *c)
{
    struct bulk *b = c->bulk;
    if (b == NULL)
        return set_error(&c->err, SBD_ERROR, "bulk_end: no bulk load running");
    int st = b->failed ? b->failed : bulk_flush(c, b);
    if (st == SBD_OK && b->own_txn) {
        SQLRETURN rc = SQLEndTran(SQL_HANDLE_DBC, c->dbc, SQL_COMMIT);
        if (!SQL_SUCCEEDED(rc))
            st = conn_diag(c, SQL_HANDLE_DBC, c->dbc, rc, "bulk: commit");
        else {
            b->own_txn = 0;
            st = set_autocommit(c, 1);
        }
    }
    free_bulk(c); /* rolls back and restores autocommit if still owned */
    return st;
}

/* ------------------------------------------------------------------ */

static const struct sbd_driver odbc_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "odbc",
    .description = "any ODBC data source through unixODBC (DB2 CLI, PostgreSQL, MariaDB, SQLite)",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD,
    .options = odbc_options,
    .init = odbc_init,
    .done = odbc_done,
    .client_version = odbc_client_version,
    .connect = odbc_connect,
    .disconnect = odbc_disconnect,
    .last_error = odbc_last_error,
    .dialect = odbc_dialect,
    .server_version = odbc_server_version,
    .query = odbc_query,
    .fetch_row = odbc_fetch_row,
    .free_result = odbc_free_result,
    .prepare = odbc_prepare,
    .execute = odbc_execute,
    .close_stmt = odbc_close_stmt,
    .begin = odbc_begin,
    .commit = odbc_commit,
    .rollback = odbc_rollback,
    .bulk_begin = odbc_bulk_begin,
    .bulk_row = odbc_bulk_row,
    .bulk_end = odbc_bulk_end,
};

/* The driver's vtable: static, never NULL. */
SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &odbc_driver;
}
