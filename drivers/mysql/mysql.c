/*
 * mysql driver: MySQL and MariaDB through the libmysqlclient C API (works
 * with MariaDB Connector/C and Oracle's libmysqlclient 8).  This file holds
 * the options, process and thread setup, connections, plain queries and
 * their results, server counters and the driver table; prepared statements
 * are in mysql_stmt.c, bulk load in mysql_bulk.c, nonblocking statements
 * (MariaDB Connector/C only) in mysql_async.c, error classification in
 * mysql_errors.c, and the wire-protocol fast path of execute and the
 * transaction statements in mysql_wire.c / mysql_wire_proto.c.  Transactions are left to the host, which sends BEGIN,
 * COMMIT and ROLLBACK as queries: so a client multiplexed on a thread sends
 * them nonblocking like any other statement.
 */
#include "mysql_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <errmsg.h>

#define MAX_HOSTS 256

enum ssl_mode { SSL_OFF, SSL_PREFERRED, SSL_REQUIRED, SSL_VERIFY_CA,
                SSL_VERIFY_IDENTITY };

static const struct sbd_option mysql_options_list[] = {
    {"mysql-host", SBD_OPT_LIST, "localhost",
     "MySQL server host; a comma list spreads connections round-robin"},
    {"mysql-port", SBD_OPT_LIST, "3306",
     "MySQL server port; a comma list is spread like the hosts"},
    {"mysql-socket", SBD_OPT_STRING, NULL,
     "MySQL unix socket file (used instead of host and port)"},
    {"mysql-user", SBD_OPT_STRING, "sbtest", "MySQL user"},
    {"mysql-password", SBD_OPT_SECRET, NULL,
     "MySQL password (default: $MYSQL_PWD)"},
    {"mysql-password-file", SBD_OPT_STRING, NULL,
     "file whose first line is the MySQL password"},
    {"mysql-db", SBD_OPT_STRING, "sbtest", "MySQL database name"},
    {"mysql-load-data", SBD_OPT_BOOL, "on",
     "prepare loads rows with LOAD DATA LOCAL INFILE from memory when the server allows it"},
    {"mysql-ssl", SBD_OPT_STRING, "off",
     "TLS: off, on, DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY"},
    {"mysql-ssl-ca", SBD_OPT_STRING, NULL,
     "file with the certificate authority for TLS"},
    {"mysql-ignore-errors", SBD_OPT_LIST, "1213,1020,1205",
     "error numbers to retry (comma list) or 'all'"},
    {"mysql-wire", SBD_OPT_BOOL, "on",
     "run prepared statements (execute) and BEGIN/COMMIT/ROLLBACK over the "
     "client/server protocol directly instead of through Connector/C "
     "(no allocation per statement); off: Connector/C for everything"},
    {"mysql-dry-run", SBD_OPT_BOOL, "off",
     "send nothing to a server and pretend every statement succeeds (sysbench's option): "
     "sbench runs the null driver instead"},
    {NULL, 0, NULL, NULL}
};

/* Settings parsed by init; read-only while threads run. */
static const struct sbd_host *host;
int sbmy_load_data;
static int wire;                      /* --mysql-wire */
static char *host_storage;            /* the --mysql-host copy, split */
static const char *hosts[MAX_HOSTS];
static int nhosts;
static unsigned ports[MAX_HOSTS];
static int nports;
static const char *sock_path;
static const char *user;
static const char *db;
static const char *password;          /* NULL: none */
static char password_file_buf[1024];
static enum ssl_mode ssl_mode;
static const char *ssl_ca;
static char client_version_buf[96];

const char *sbmy_secret = "";
struct sbmy_ignore sbmy_ignored;
int sbmy_query_timeout;

/* --- errors --- */

static void set_error(sbd_conn *c, int status, unsigned code,
                      const char *sqlstate, const char *msg)
{
    c->err.status = status;
    c->err.native_code = (long)code;
    if (sqlstate != NULL && strlen(sqlstate) == 5)
        memcpy(c->err.sqlstate, sqlstate, 6);
    else
        c->err.sqlstate[0] = 0;
    sbmy_copy_message(c->err.message, sizeof c->err.message, msg, sbmy_secret);
}

int sbmy_conn_fail(sbd_conn *c)
{
    unsigned code = mysql_errno(c->mysql);
    int status = sbmy_classify(code, &sbmy_ignored);
    set_error(c, status, code, mysql_sqlstate(c->mysql), mysql_error(c->mysql));
    return status;
}

int sbmy_stmt_fail(sbd_conn *c, MYSQL_STMT *st)
{
    unsigned code = mysql_stmt_errno(st);
    int status = sbmy_classify(code, &sbmy_ignored);
    set_error(c, status, code, mysql_stmt_sqlstate(st), mysql_stmt_error(st));
    return status;
}

int sbmy_server_error(sbd_conn *c, unsigned code, const char *sqlstate,
                      const char *msg)
{
    int status = sbmy_classify(code, &sbmy_ignored);
    set_error(c, status, code, sqlstate, msg);
    return status;
}

int sbmy_fail(sbd_conn *c, const char *msg)
{
    set_error(c, SBD_ERROR, 0, NULL, msg);
    return SBD_ERROR;
}

/* --- small conversions --- */

size_t sbmy_i64_to_text(int64_t v, char *p)
{
    char tmp[24];
    size_t n = 0, o = 0;
    uint64_t u = (v < 0) ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        p[o++] = '-';
    while (n > 0)
        p[o++] = tmp[--n];
    return o;
}

/* Parses a decimal integer of len bytes; 0 on success, -1 if it is not one
 * or does not fit in int64_t. */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    uint64_t v = 0;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return -1;
    for (; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = (v == (uint64_t)INT64_MAX + 1) ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)v;
    }
    return 0;
}

static double parse_double(const char *s, size_t len)
{
    char buf[80];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return strtod(buf, NULL);
}

int sbmy_column_type(enum enum_field_types t)
{
    switch (t) {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_LONGLONG:
    case MYSQL_TYPE_YEAR:
        return SBD_TYPE_INT;
    case MYSQL_TYPE_FLOAT:
    case MYSQL_TYPE_DOUBLE:
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_NEWDECIMAL:
        return SBD_TYPE_DOUBLE;
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_NEWDATE:
        return SBD_TYPE_DATE;
    case MYSQL_TYPE_TIME:
        return SBD_TYPE_TIME;
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP:
        return SBD_TYPE_DATETIME;
    case MYSQL_TYPE_NULL:
        return SBD_TYPE_NULL;
    default:
        return SBD_TYPE_STRING;
    }
}

/* --- options --- */

static int parse_ssl_mode(const char *v, enum ssl_mode *out)
{
    static const struct { const char *name; enum ssl_mode mode; } names[] = {
        {"off", SSL_OFF}, {"disabled", SSL_OFF}, {"on", SSL_REQUIRED},
        {"required", SSL_REQUIRED}, {"preferred", SSL_PREFERRED},
        {"verify_ca", SSL_VERIFY_CA}, {"verify_identity", SSL_VERIFY_IDENTITY},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(v, names[i].name) == 0) {
            *out = names[i].mode;
            return 0;
        }
    return -1;
}

static int read_password_file(const char *path, char *errbuf, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(errbuf, errlen, "cannot open --mysql-password-file '%s': %s",
                 path, strerror(errno));
        return -1;
    }
    password_file_buf[0] = 0;
    if (fgets(password_file_buf, sizeof password_file_buf, f) == NULL &&
        ferror(f)) {
        snprintf(errbuf, errlen, "cannot read --mysql-password-file '%s'", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    size_t n = strcspn(password_file_buf, "\r\n");
    password_file_buf[n] = 0;
    return 0;
}

/* Splits the host list into hosts[]. */
static int parse_hosts(const char *list, char *errbuf, size_t errlen)
{
    free(host_storage);
    host_storage = strdup(list != NULL ? list : "localhost");
    if (host_storage == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return -1;
    }
    nhosts = 0;
    for (char *save = NULL, *t = strtok_r(host_storage, ", ", &save); t != NULL;
         t = strtok_r(NULL, ", ", &save)) {
        if (nhosts == MAX_HOSTS) {
            snprintf(errbuf, errlen, "--mysql-host: more than %d hosts", MAX_HOSTS);
            return -1;
        }
        hosts[nhosts++] = t;
    }
    if (nhosts == 0)
        hosts[nhosts++] = "localhost";
    return 0;
}

static int parse_ports(const char *list, char *errbuf, size_t errlen)
{
    const char *p = list != NULL ? list : "3306";
    nports = 0;
    while (*p != 0) {
        while (*p == ',' || *p == ' ')
            p++;
        if (*p == 0)
            break;
        unsigned long v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= 65535)
            v = v * 10 + (unsigned long)(*p++ - '0');
        if (p == start || v == 0 || v > 65535 || (*p != 0 && *p != ',' && *p != ' ')) {
            snprintf(errbuf, errlen, "--mysql-port: invalid port in '%s'", list);
            return -1;
        }
        if (nports == MAX_HOSTS) {
            snprintf(errbuf, errlen, "--mysql-port: more than %d ports", MAX_HOSTS);
            return -1;
        }
        ports[nports++] = (unsigned)v;
    }
    if (nports == 0)
        ports[nports++] = 3306;
    return 0;
}

/* s itself (caller's storage) when it is a non-empty string, else NULL. */
static const char *nonempty(const char *s)
{
    return (s != NULL && *s != 0) ? s : NULL;
}

static int mysql_drv_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    host = h;
    sbmy_load_data = h->opt_bool("mysql-load-data");
    wire = h->opt_bool("mysql-wire");
    sbmy_query_timeout = h->query_timeout > 0 ? h->query_timeout : 0;
    if (parse_hosts(h->opt_str("mysql-host"), errbuf, errlen) != 0 ||
        parse_ports(h->opt_str("mysql-port"), errbuf, errlen) != 0)
        return SBD_ERROR;
    sock_path = nonempty(h->opt_str("mysql-socket"));
    user = h->opt_str("mysql-user");
    db = nonempty(h->opt_str("mysql-db"));
    ssl_ca = nonempty(h->opt_str("mysql-ssl-ca"));

    const char *ssl = h->opt_str("mysql-ssl");
    if (parse_ssl_mode(ssl != NULL ? ssl : "off", &ssl_mode) != 0) {
        snprintf(errbuf, errlen,
                 "--mysql-ssl: '%s' is not one of off, on, DISABLED, PREFERRED, "
                 "REQUIRED, VERIFY_CA, VERIFY_IDENTITY", ssl);
        return SBD_ERROR;
    }
    if (sbmy_parse_ignore(h->opt_str("mysql-ignore-errors"), &sbmy_ignored,
                          errbuf, errlen) != 0)
        return SBD_ERROR;

    const char *pwfile = nonempty(h->opt_str("mysql-password-file"));
    password = NULL;
    if (h->opt_is_set("mysql-password")) {
        if (pwfile != NULL) {
            snprintf(errbuf, errlen,
                     "give only one of --mysql-password and --mysql-password-file");
            return SBD_ERROR;
        }
        password = h->opt_str("mysql-password");
    } else if (pwfile != NULL) {
        if (read_password_file(pwfile, errbuf, errlen) != 0)
            return SBD_ERROR;
        password = password_file_buf;
    } else {
        password = getenv("MYSQL_PWD");
    }
    sbmy_secret = password != NULL ? password : "";

    if (mysql_library_init(0, NULL, NULL) != 0) {
        snprintf(errbuf, errlen, "mysql_library_init failed");
        return SBD_ERROR;
    }
#ifdef SBMY_MARIADB_CLIENT
    snprintf(client_version_buf, sizeof client_version_buf,
             "MariaDB Connector/C %s", mysql_get_client_info());
#else
    snprintf(client_version_buf, sizeof client_version_buf, "libmysqlclient %s",
             mysql_get_client_info());
#endif
    return SBD_OK;
}

static void mysql_drv_done(void)
{
    mysql_library_end();
    free(host_storage);
    host_storage = NULL;
    nhosts = 0;
}

static int mysql_drv_thread_init(void)
{
    return mysql_thread_init() == 0 ? SBD_OK : SBD_ERROR;
}

static void mysql_drv_thread_done(void)
{
    mysql_thread_end();
}

/* Static buffer filled by init; "" before init. */
static const char *mysql_drv_client_version(void)
{
    return client_version_buf;
}

/* --- connections --- */

/* Applies --mysql-ssl and --mysql-ssl-ca to m; 0 or -1. */
static int apply_ssl(MYSQL *m)
{
    int rc = 0;
    if (ssl_ca != NULL && ssl_mode != SSL_OFF)
        rc |= mysql_options(m, MYSQL_OPT_SSL_CA, ssl_ca);
#ifdef SBMY_MARIADB_CLIENT
    /* Connector/C has no SSL mode: it uses TLS when asked, but without
     * certificate verification it falls back to plain text when the server
     * has no TLS (connect checks REQUIRED afterwards); verification checks
     * the host name too, so VERIFY_CA acts as VERIFY_IDENTITY. */
    sbmy_bool enforce = ssl_mode >= SSL_REQUIRED;
    sbmy_bool verify = ssl_mode >= SSL_VERIFY_CA;
    if (ssl_mode == SSL_PREFERRED)
        rc |= mysql_ssl_set(m, NULL, NULL, ssl_ca, NULL, NULL) != 0;
    if (ssl_mode != SSL_PREFERRED)
        rc |= mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &enforce);
    rc |= mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
#else
    unsigned mode;
    switch (ssl_mode) {
    case SSL_OFF: mode = SSL_MODE_DISABLED; break;
    case SSL_PREFERRED: mode = SSL_MODE_PREFERRED; break;
    case SSL_REQUIRED: mode = SSL_MODE_REQUIRED; break;
    case SSL_VERIFY_CA: mode = SSL_MODE_VERIFY_CA; break;
    default: mode = SSL_MODE_VERIFY_IDENTITY; break;
    }
    rc |= mysql_options(m, MYSQL_OPT_SSL_MODE, &mode);
#endif
    return rc != 0 ? -1 : 0;
}

/* "MariaDB 10.11.19" or "MySQL 8.0.36" from the server's version string. */
static void format_server_version(sbd_conn *c)
{
    const char *v = mysql_get_server_info(c->mysql);
    if (v == NULL)
        v = "";
    const char *prefix = strstr(v, "MariaDB") != NULL ? "MariaDB " : "MySQL ";
    size_t n = strcspn(v, "-");
    if (n > sizeof c->server_version - 16)
        n = sizeof c->server_version - 16;
    snprintf(c->server_version, sizeof c->server_version, "%s%.*s", prefix,
             (int)n, v);
}

static int mysql_drv_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    *out = NULL;
    memset(err, 0, sizeof *err);
    err->status = SBD_ERROR;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL || (c->mysql = mysql_init(NULL)) == NULL) {
        free(c);
        snprintf(err->message, sizeof err->message, "mysql: out of memory");
        return SBD_ERROR;
    }
    int slot = thread_id < 0 ? 0 : thread_id;
    const char *hostname = sock_path != NULL ? "localhost" : hosts[slot % nhosts];
    unsigned port = ports[slot % nports];
    char where[300];
    if (sock_path != NULL)
        snprintf(where, sizeof where, "socket %.250s", sock_path);
    else
        snprintf(where, sizeof where, "%.250s:%u", hostname, port);

    unsigned ct = host->connect_timeout > 0 ? (unsigned)host->connect_timeout : 0;
    unsigned qt = host->query_timeout > 0 ? (unsigned)host->query_timeout : 0;
    int optrc = 0;
    if (ct > 0)
        optrc |= mysql_options(c->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
    if (qt > 0) {
        optrc |= mysql_options(c->mysql, MYSQL_OPT_READ_TIMEOUT, &qt);
        optrc |= mysql_options(c->mysql, MYSQL_OPT_WRITE_TIMEOUT, &qt);
    }
#ifdef SBMY_NONBLOCK
    /* the non-blocking API (mysql_async.c); blocking calls work as before */
    optrc |= mysql_options(c->mysql, MYSQL_OPT_NONBLOCK, 0);
#endif
    if (sock_path != NULL) {
        unsigned proto = MYSQL_PROTOCOL_SOCKET;
        optrc |= mysql_options(c->mysql, MYSQL_OPT_PROTOCOL, &proto);
    }
    if (host->opt_bool("mysql-load-data")) {
        /* LOAD DATA LOCAL for bulk loads; the connection's infile handler
         * (sbmy_bulk_attach) serves only sbench's own buffer, never a file */
        unsigned one = 1;
        optrc |= mysql_options(c->mysql, MYSQL_OPT_LOCAL_INFILE, &one);
    }
    if (optrc != 0 || apply_ssl(c->mysql) != 0) {
        snprintf(err->message, sizeof err->message,
                 "mysql: cannot set connection options for %s", where);
        mysql_close(c->mysql);
        free(c);
        return SBD_ERROR;
    }
    if (mysql_real_connect(c->mysql, hostname, user, password, db, port,
                           sock_path, 0) == NULL) {
        unsigned code = mysql_errno(c->mysql);
        char msg[1024];
        snprintf(msg, sizeof msg, "mysql: cannot connect to %s as user '%s'%s%s: %s",
                 where, user != NULL ? user : "", db != NULL ? ", database " : "",
                 db != NULL ? db : "", mysql_error(c->mysql));
        err->status = sbmy_classify(code, NULL);
        err->native_code = (long)code;
        const char *ss = mysql_sqlstate(c->mysql);
        if (ss != NULL && strlen(ss) == 5)
            memcpy(err->sqlstate, ss, 6);
        sbmy_copy_message(err->message, sizeof err->message, msg, sbmy_secret);
        mysql_close(c->mysql);
        free(c);
        return err->status;
    }
    sbmy_bulk_attach(c);
    if (ssl_mode >= SSL_REQUIRED && mysql_get_ssl_cipher(c->mysql) == NULL) {
        snprintf(err->message, sizeof err->message,
                 "mysql: connected to %.300s without TLS although --mysql-ssl "
                 "requires it (does the server have TLS enabled?)", where);
        err->sqlstate[0] = 0;
        mysql_close(c->mysql);
        free(c);
        return SBD_ERROR;
    }
    format_server_version(c);
    sbmy_wire_setup(c, wire);
    *out = c;
    return SBD_OK;
}

static void mysql_drv_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
#ifdef SBMY_NONBLOCK
    sbmy_async_free(c);
#endif
    sbmy_release_result(c);
    while (c->stmts != NULL)
        sbmy_close_stmt(c, c->stmts);
    sbmy_bulk_free(c);
    if (c->wire_execs > 0)
        host->log(SBD_LOG_DEBUG, "%ld statements went over the wire protocol fast path",
                  c->wire_execs);
    mw_free(&c->wire);
    mysql_close(c->mysql);
    free(c);
}

/* Owned by c, valid until the next call on c; never NULL. */
static const struct sbd_error *mysql_drv_last_error(sbd_conn *c)
{
    return &c->err;
}

/* Static string; never fails. */
static const char *mysql_drv_dialect(sbd_conn *c)
{
    (void)c;
    return "mysql";
}

/* Owned by c, set at connect; never NULL. */
static const char *mysql_drv_server_version(sbd_conn *c)
{
    return c->server_version;
}

/* --- plain queries --- */

/* Discards further results of the last statement (a CALL sends a final
 * status result), so the next statement is not "out of sync". */
static void drain_results(sbd_conn *c)
{
    while (mysql_more_results(c->mysql)) {
        if (mysql_next_result(c->mysql) != 0)
            break;
        MYSQL_RES *r = mysql_store_result(c->mysql);
        if (r != NULL)
            mysql_free_result(r);
    }
}

void sbmy_release_result(sbd_conn *c)
{
    if (c->res_kind == RES_QUERY) {
        mysql_free_result(c->res);
        c->res = NULL;
        drain_results(c);
    } else if (c->res_kind == RES_STMT) {
        mysql_stmt_free_result(c->cur->st);
        c->cur = NULL;
    } else if (c->res_kind == RES_WIRE) {
        c->cur = NULL;
    }
    c->res_kind = RES_NONE;
}

void sbmy_result_begin(sbd_conn *c, struct sbd_result_info *info)
{
    sbmy_release_result(c);
    info->affected_rows = -1;
    info->nrows = 0;
    info->nfields = 0;
}

int sbmy_query_stored(sbd_conn *c, MYSQL_RES *res, struct sbd_result_info *info)
{
    if (res == NULL) {
        if (mysql_field_count(c->mysql) != 0)
            return sbmy_conn_fail(c);
        info->affected_rows = (int64_t)mysql_affected_rows(c->mysql);
        drain_results(c);
        return SBD_OK;
    }
    c->res = res;
    c->res_kind = RES_QUERY;
    c->nfields = mysql_num_fields(res);
    c->fields = mysql_fetch_fields(res);
    info->affected_rows = 0;
    info->nrows = (int64_t)mysql_num_rows(res);
    info->nfields = (int)c->nfields;
    return SBD_OK;
}

static int mysql_drv_query(sbd_conn *c, const char *sql, size_t len,
                           struct sbd_result_info *info)
{
    sbmy_result_begin(c, info);
    if (sbmy_wire_query_ok(c, sql, len))
        return sbmy_wire_query(c, sql, len, info);
    if (mysql_real_query(c->mysql, sql, (unsigned long)len) != 0)
        return sbmy_conn_fail(c);
    return sbmy_query_stored(c, mysql_store_result(c->mysql), info);
}

static int fetch_query_row(sbd_conn *c, struct sbd_value *row)
{
    MYSQL_ROW r = mysql_fetch_row(c->res);
    if (r == NULL)
        return SBD_DONE;
    unsigned long *lens = mysql_fetch_lengths(c->res);
    for (unsigned i = 0; i < c->nfields; i++) {
        struct sbd_value *v = &row[i];
        int t = sbmy_column_type(c->fields[i].type);
        v->type = t;
        v->is_null = r[i] == NULL;
        v->i = 0;
        v->d = 0;
        v->s = NULL;
        v->len = 0;
        if (v->is_null)
            continue;
        if (t == SBD_TYPE_INT) {
            if (parse_i64(r[i], lens[i], &v->i) != 0) {
                /* BIGINT UNSIGNED above INT64_MAX */
                v->type = SBD_TYPE_DOUBLE;
                v->d = parse_double(r[i], lens[i]);
            }
        } else if (t == SBD_TYPE_DOUBLE) {
            v->d = parse_double(r[i], lens[i]);
        } else {
            if (t == SBD_TYPE_NULL)
                v->type = SBD_TYPE_STRING;
            v->s = r[i];
            v->len = lens[i];
        }
    }
    return SBD_OK;
}

static int mysql_drv_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->res_kind == RES_QUERY)
        return fetch_query_row(c, row);
    if (c->res_kind == RES_STMT)
        return sbmy_stmt_fetch(c, c->cur, row);
    if (c->res_kind == RES_WIRE)
        return sbmy_wire_fetch(c, row);
    return SBD_DONE;
}

static void mysql_drv_free_result(sbd_conn *c)
{
    sbmy_release_result(c);
}

/* --- server counters --- */

static int mysql_drv_server_counters(sbd_conn *c, struct sbd_server_counters *out)
{
    static const char sql[] =
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', "
        "'Com_rollback', 'Com_select', 'Com_insert', 'Com_update', "
        "'Com_delete', 'Questions')";
    static const struct { const char *name; size_t off; } map[] = {
        {"Com_commit", offsetof(struct sbd_server_counters, commits)},
        {"Com_rollback", offsetof(struct sbd_server_counters, rollbacks)},
        {"Com_select", offsetof(struct sbd_server_counters, selects)},
        {"Com_insert", offsetof(struct sbd_server_counters, inserts)},
        {"Com_update", offsetof(struct sbd_server_counters, updates)},
        {"Com_delete", offsetof(struct sbd_server_counters, deletes)},
        {"Questions", offsetof(struct sbd_server_counters, statements)},
    };
    out->commits = out->rollbacks = out->selects = -1;
    out->inserts = out->updates = out->deletes = out->statements = -1;
    struct sbd_result_info info;
    int rc = mysql_drv_query(c, sql, sizeof sql - 1, &info);
    if (rc != SBD_OK)
        return rc;
    if (info.nfields != 2) {
        sbmy_release_result(c);
        return sbmy_fail(c, "mysql: SHOW GLOBAL STATUS returned an unexpected shape");
    }
    MYSQL_ROW r;
    while ((r = mysql_fetch_row(c->res)) != NULL) {
        if (r[0] == NULL || r[1] == NULL)
            continue;
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
            int64_t v;
            if (strcasecmp(r[0], map[i].name) == 0 &&
                parse_i64(r[1], strlen(r[1]), &v) == 0)
                *(int64_t *)((char *)out + map[i].off) = v;
        }
    }
    sbmy_release_result(c);
    /* Questions counts every statement when it starts, these SHOWs too:
     * leave out this connection's own, so that the difference of two
     * reads on one connection is exactly what the others sent */
    c->counter_reads++;
    if (out->statements >= 0)
        out->statements -= c->counter_reads;
    return SBD_OK;
}

/* --- driver table --- */

#ifdef SBMY_NONBLOCK
#define SBMY_CAP_NONBLOCKING SBD_CAP_NONBLOCKING
#else
#define SBMY_CAP_NONBLOCKING 0
#endif

static const struct sbd_driver mysql_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "mysql",
    .description = "MySQL and MariaDB (libmysqlclient API)",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD | SBD_CAP_BACKSLASH_ESC |
            SBD_CAP_SERVER_COUNTERS | SBMY_CAP_NONBLOCKING,
    .options = mysql_options_list,
    .init = mysql_drv_init,
    .done = mysql_drv_done,
    .thread_init = mysql_drv_thread_init,
    .thread_done = mysql_drv_thread_done,
    .client_version = mysql_drv_client_version,
    .connect = mysql_drv_connect,
    .disconnect = mysql_drv_disconnect,
    .last_error = mysql_drv_last_error,
    .dialect = mysql_drv_dialect,
    .server_version = mysql_drv_server_version,
    .query = mysql_drv_query,
    .fetch_row = mysql_drv_fetch_row,
    .free_result = mysql_drv_free_result,
    .prepare = sbmy_prepare,
    .execute = sbmy_execute,
    .close_stmt = sbmy_close_stmt,
    .bulk_begin = sbmy_bulk_begin,
    .bulk_row = sbmy_bulk_row,
    .bulk_end = sbmy_bulk_end,
    .server_counters = mysql_drv_server_counters,
#ifdef SBMY_NONBLOCK
    .socket = sbmy_socket,
    .send_query = sbmy_send_query,
    .send_execute = sbmy_send_execute,
    .poll_result = sbmy_poll_result,
#endif
};

/* Static driver table; never fails. */
SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &mysql_driver;
}
