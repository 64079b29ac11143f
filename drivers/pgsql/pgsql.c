/*
 * pgsql driver: PostgreSQL through libpq.  Options and connections, plain
 * queries and result fetching, server-side prepared statements, error
 * classification by SQLSTATE and the server's own transaction counters.
 * Bulk load (COPY) is in pgsql_copy.c, number formatting in pgsql_text.c.
 *
 * Hot path (query, execute, fetch_row): no allocation by this file and no
 * printf-style formatting; buffers live on the connection or statement and
 * only grow.  libpq itself allocates each PGresult.
 */
#include "pgsql_int.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Type OIDs from PostgreSQL's pg_type.dat (stable across versions). */
enum {
    OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26,
    OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700
};

static const struct sbd_option pg_options[] = {
    {"pgsql-host", SBD_OPT_LIST, "localhost",
     "server host, IP address or unix socket directory; a list a,b spreads "
     "connections round-robin by thread (unset: $PGHOST, else localhost)"},
    {"pgsql-port", SBD_OPT_INT, "5432", "server port (unset: $PGPORT, else 5432)"},
    {"pgsql-user", SBD_OPT_STRING, "sbtest", "user name (unset: $PGUSER, else sbtest)"},
    {"pgsql-password", SBD_OPT_SECRET, NULL,
     "password (unset: $PGPASSWORD or ~/.pgpass)"},
    {"pgsql-password-file", SBD_OPT_STRING, NULL,
     "file whose first line is the password"},
    {"pgsql-db", SBD_OPT_STRING, "sbtest", "database (unset: $PGDATABASE, else sbtest)"},
    {"pgsql-sslmode", SBD_OPT_STRING, "prefer",
     "disable, allow, prefer, require, verify-ca or verify-full "
     "(unset: $PGSSLMODE, else prefer)"},
    {"pgsql-sslrootcert", SBD_OPT_STRING, NULL,
     "file of CA certificates to verify the server with"},
    {"pgsql-isolation", SBD_OPT_STRING, NULL,
     "read-committed, repeatable-read or serializable: isolation level of "
     "every transaction (unset: the server's default)"},
    {NULL, 0, NULL, NULL}
};

/* Settings resolved by init; read-only while threads run. */
static const struct sbd_host *host;
static char **hosts;            /* NULL: leave the host to libpq ($PGHOST) */
static char *hosts_text;        /* the copy hosts[] point into */
static int nhosts;
static const char *port, *user, *dbname, *sslmode, *sslrootcert;
static char port_buf[8], ctimeout_buf[16];
static char *password;          /* heap; NULL: leave it to libpq */
static char session_sql[200];   /* run after connecting, "" if nothing */
static locale_t c_locale;       /* for strtod_l: the user's locale may use ',' */
static char client_version_buf[32];

/* ---- messages ---------------------------------------------------------- */

/* Replaces every occurrence of secret (when long enough to be one) in msg. */
static void scrub(char *msg, const char *secret)
{
    size_t n = secret ? strlen(secret) : 0;
    if (n < 4)
        return;
    char *p;
    while ((p = strstr(msg, secret)) != NULL) {
        memcpy(p, "***", 3);
        memmove(p + 3, p + n, strlen(p + n) + 1);
    }
}

/* Copies msg into err->message as one line: whitespace runs (newlines,
 * tabs) become one space, ends trimmed, passwords masked. */
static void set_message(struct sbd_error *err, const char *prefix, const char *msg)
{
    size_t n = 0, cap = sizeof err->message - 1;
    int space = 0;
    for (int part = 0; part < 2; part++) {
        const char *s = part == 0 ? prefix : msg;
        for (; s && *s && n < cap; s++) {
            if (isspace((unsigned char)*s)) {
                space = n > 0;
                continue;
            }
            if (space && n < cap - 1)
                err->message[n++] = ' ';
            space = 0;
            err->message[n++] = *s;
        }
        if (part == 0 && n > 0)
            space = 1;
    }
    err->message[n] = 0;
    scrub(err->message, password);
    scrub(err->message, getenv("PGPASSWORD"));
}

static void set_error(struct sbd_error *err, int status, const char *sqlstate,
                      const char *prefix, const char *msg)
{
    err->status = status;
    err->native_code = 0;
    err->sqlstate[0] = 0;
    if (sqlstate != NULL && strlen(sqlstate) == 5)
        memcpy(err->sqlstate, sqlstate, 6);
    set_message(err, prefix, msg);
}

static int classify(PGconn *pg, const char *state)
{
    if (PQstatus(pg) == CONNECTION_BAD)
        return SBD_CONN_LOST;
    if (state == NULL || strlen(state) != 5)
        return SBD_ERROR;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
        strcmp(state, "55P03") == 0)
        return SBD_RETRY;
    if (strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
        strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0)
        return SBD_CONN_LOST;
    return SBD_ERROR;
}

int pgd_error(sbd_conn *c, const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (msg == NULL || *msg == 0)
        msg = res ? PQresultErrorMessage(res) : NULL;
    if (msg == NULL || *msg == 0)
        msg = PQerrorMessage(c->pg);
    if (msg == NULL || *msg == 0)
        msg = "unknown error (no message from libpq)";
    int st = classify(c->pg, state);
    set_error(&c->err, st, state, NULL, msg);
    return st;
}

int pgd_fail(sbd_conn *c, const char *msg)
{
    set_error(&c->err, SBD_ERROR, NULL, NULL, msg);
    return SBD_ERROR;
}

/* ---- init -------------------------------------------------------------- */

/* The option's value when the user gave it, or when libpq's environment
 * variable env is unset (then our default); NULL to let libpq decide. */
static const char *setting(const char *opt, const char *env)
{
    int given = host->opt_is_set ? host->opt_is_set(opt) : 1;
    if (!given && env != NULL && getenv(env) != NULL)
        return NULL;
    return host->opt_str(opt);
}

/* Splits "a,b" into hosts[]; empty items are refused. */
static int split_hosts(const char *list, char *errbuf, size_t errlen)
{
    size_t len = strlen(list);
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += list[i] == ',';
    hosts = calloc((size_t)n, sizeof *hosts);
    char *copy = hosts_text = malloc(len + 1);
    if (hosts == NULL || copy == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }
    memcpy(copy, list, len + 1);
    char *p = copy;
    for (nhosts = 0; nhosts < n; nhosts++) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = 0;
        if (*p == 0) {
            snprintf(errbuf, errlen, "--pgsql-host: empty host name in '%s'", list);
            return SBD_ERROR;
        }
        hosts[nhosts] = p;
        p = comma ? comma + 1 : p + strlen(p);
    }
    return SBD_OK;
}

static int read_password_file(const char *path, char *errbuf, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(errbuf, errlen, "--pgsql-password-file: cannot open %s: %s",
                 path, strerror(errno));
        return SBD_ERROR;
    }
    char line[1024];
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = 0;
    fclose(f);
    line[strcspn(line, "\r\n")] = 0;
    password = strdup(line);
    explicit_bzero(line, sizeof line);
    if (password == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }
    return SBD_OK;
}

/* Maps --pgsql-isolation to SQL; NULL if not a level we know. */
static const char *isolation_sql(const char *v)
{
    char norm[32];
    size_t n = strlen(v);
    if (n >= sizeof norm)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        norm[i] = (v[i] == '_' || v[i] == ' ') ? '-' : (char)tolower((unsigned char)v[i]);
    if (strcmp(norm, "read-committed") == 0)
        return "READ COMMITTED";
    if (strcmp(norm, "repeatable-read") == 0)
        return "REPEATABLE READ";
    if (strcmp(norm, "serializable") == 0)
        return "SERIALIZABLE";
    return NULL;
}

static void pgsql_done(void);

static int pgsql_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    host = h;
    pgsql_done(); /* forget a previous init */
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (c_locale == (locale_t)0) {
        snprintf(errbuf, errlen, "cannot create the C locale: %s", strerror(errno));
        return SBD_ERROR;
    }

    const char *hl = setting("pgsql-host", "PGHOST");
    if (hl != NULL && split_hosts(hl, errbuf, errlen) != SBD_OK)
        return SBD_ERROR;
    port = NULL;
    if (setting("pgsql-port", "PGPORT") != NULL) {
        long long p = h->opt_int("pgsql-port");
        if (p < 1 || p > 65535) {
            snprintf(errbuf, errlen, "--pgsql-port must be 1..65535, not %lld", p);
            return SBD_ERROR;
        }
        port_buf[pgd_fmt_int(port_buf, p)] = 0;
        port = port_buf;
    }
    user = setting("pgsql-user", "PGUSER");
    dbname = setting("pgsql-db", "PGDATABASE");
    sslmode = setting("pgsql-sslmode", "PGSSLMODE");
    sslrootcert = setting("pgsql-sslrootcert", "PGSSLROOTCERT");
    static const char *const modes[] = {"disable", "allow", "prefer", "require",
                                        "verify-ca", "verify-full"};
    if (sslmode != NULL) {
        size_t i = 0;
        while (i < sizeof modes / sizeof modes[0] && strcmp(sslmode, modes[i]) != 0)
            i++;
        if (i == sizeof modes / sizeof modes[0]) {
            snprintf(errbuf, errlen, "--pgsql-sslmode: '%s' is not one of disable, "
                     "allow, prefer, require, verify-ca, verify-full", sslmode);
            return SBD_ERROR;
        }
    }

    const char *pw = h->opt_str("pgsql-password");
    const char *pwfile = h->opt_str("pgsql-password-file");
    if (pw != NULL && pwfile != NULL) {
        snprintf(errbuf, errlen, "give --pgsql-password or --pgsql-password-file, not both");
        return SBD_ERROR;
    }
    if (pwfile != NULL && read_password_file(pwfile, errbuf, errlen) != SBD_OK)
        return SBD_ERROR;
    if (pw != NULL && (password = strdup(pw)) == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }

    int ctimeout = h->struct_size > offsetof(struct sbd_host, connect_timeout)
                   ? h->connect_timeout : 0;
    int qtimeout = h->struct_size > offsetof(struct sbd_host, query_timeout)
                   ? h->query_timeout : 0;
    ctimeout_buf[0] = 0;
    if (ctimeout > 0)
        ctimeout_buf[pgd_fmt_int(ctimeout_buf, ctimeout)] = 0;

    session_sql[0] = 0;
    const char *iso = h->opt_str("pgsql-isolation");
    const char *level = NULL;
    if (iso != NULL && (level = isolation_sql(iso)) == NULL) {
        snprintf(errbuf, errlen, "--pgsql-isolation: '%s' is not one of "
                 "read-committed, repeatable-read, serializable", iso);
        return SBD_ERROR;
    }
    size_t n = 0;
    if (level != NULL)
        n += (size_t)snprintf(session_sql, sizeof session_sql,
                              "SET SESSION CHARACTERISTICS AS TRANSACTION "
                              "ISOLATION LEVEL %s; ", level);
    if (qtimeout > 0)
        snprintf(session_sql + n, sizeof session_sql - n,
                 "SET statement_timeout = %lld", (long long)qtimeout * 1000);
    return SBD_OK;
}

static void pgsql_done(void)
{
    free(hosts_text);
    hosts_text = NULL;
    free(hosts);
    hosts = NULL;
    nhosts = 0;
    if (password != NULL) {
        explicit_bzero(password, strlen(password));
        free(password);
        password = NULL;
    }
    if (c_locale != (locale_t)0) {
        freelocale(c_locale);
        c_locale = (locale_t)0;
    }
}

/* Static string "libpq 15.20"; never fails. */
static const char *pgsql_client_version(void)
{
    if (client_version_buf[0] == 0) {
        int v = PQlibVersion();
        char tmp[32];
        size_t n = 0;
        memcpy(tmp, "libpq ", 6);
        n = 6;
        n += pgd_fmt_int(tmp + n, v / 10000);
        tmp[n++] = '.';
        n += pgd_fmt_int(tmp + n, v % 10000);
        tmp[n] = 0;
        memcpy(client_version_buf, tmp, n + 1);
    }
    return client_version_buf;
}

/* ---- connections ------------------------------------------------------- */

static void on_notice(void *arg, const PGresult *res)
{
    (void)arg;
    const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    struct sbd_error tmp;
    set_message(&tmp, NULL, msg ? msg : PQresultErrorMessage(res));
    host->log(SBD_LOG_DEBUG, "server %s: %s", sev ? sev : "NOTICE", tmp.message);
}

/* Fills err for a failed connect so that the message names the server. */
static void connect_error(PGconn *pg, const char *h, struct sbd_error *err)
{
    const char *msg = pg ? PQerrorMessage(pg) : "out of memory";
    char prefix[300] = "";
    if (strstr(msg, "connection to server") == NULL) {
        const char *ph = pg ? PQhost(pg) : NULL;
        const char *pp = pg ? PQport(pg) : NULL;
        snprintf(prefix, sizeof prefix, "connecting to host \"%s\" port %s:",
                 ph && *ph ? ph : (h ? h : "(libpq default)"),
                 pp && *pp ? pp : (port ? port : "(libpq default)"));
    }
    set_error(err, SBD_ERROR, "08001", prefix, msg);
}

static void pgsql_disconnect(sbd_conn *c);

static void free_stmt(struct sbd_stmt *s)
{
    if (s == NULL)
        return;
    free(s->types);
    free(s->values);
    free(s->buf);
    free(s);
}

static int pgsql_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    const char *kw[16], *val[16];
    int n = 0;
    const char *h = nhosts > 0 ? hosts[(unsigned)thread_id % (unsigned)nhosts] : NULL;
#define KV(k, v) do { if ((v) != NULL) { kw[n] = (k); val[n] = (v); n++; } } while (0)
    KV("host", h);
    KV("port", port);
    KV("user", user);
    KV("password", password);
    KV("dbname", dbname);
    KV("sslmode", sslmode);
    KV("sslrootcert", sslrootcert);
    KV("connect_timeout", ctimeout_buf[0] ? ctimeout_buf : NULL);
    KV("application_name", "sbench");
#undef KV
    kw[n] = NULL;
    val[n] = NULL;

    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        set_error(err, SBD_ERROR, NULL, NULL, "out of memory");
        return SBD_ERROR;
    }
    c->pg = PQconnectdbParams(kw, val, 0);
    if (c->pg == NULL || PQstatus(c->pg) != CONNECTION_OK) {
        connect_error(c->pg, h, err);
        pgsql_disconnect(c);
        return SBD_ERROR;
    }
    PQsetNoticeReceiver(c->pg, on_notice, NULL);

    if (session_sql[0] != 0) {
        PGresult *res = PQexec(c->pg, session_sql);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            pgd_error(c, res);
            PQclear(res);
            set_error(err, SBD_ERROR, c->err.sqlstate, "session setup failed:",
                      c->err.message);
            pgsql_disconnect(c);
            return SBD_ERROR;
        }
        PQclear(res);
    }

    /* "15.20 (Debian 15.20-0+deb12u1)" -> "PostgreSQL 15.20" */
    const char *sv = PQparameterStatus(c->pg, "server_version");
    size_t vn = sv ? strcspn(sv, " ") : 0;
    if (vn > sizeof c->version - 12)
        vn = sizeof c->version - 12;
    memcpy(c->version, "PostgreSQL ", 11);
    memcpy(c->version + 11, sv ? sv : "", vn);
    c->version[11 + vn] = 0;
    *out = c;
    return SBD_OK;
}

static void pgsql_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
    pgd_clear_result(c);
    while (c->stmts != NULL) {
        struct sbd_stmt *s = c->stmts;
        c->stmts = s->next;
        free_stmt(s);
    }
    pgd_copy_free(c);
    if (c->pg != NULL)
        PQfinish(c->pg);
    free(c->kinds);
    free(c->sql);
    free(c);
}

static const struct sbd_error *pgsql_last_error(sbd_conn *c) { return &c->err; }

static const char *pgsql_dialect(sbd_conn *c) { (void)c; return "postgresql"; }

static const char *pgsql_server_version(sbd_conn *c) { return c->version; }

/* ---- results ----------------------------------------------------------- */

void pgd_clear_result(sbd_conn *c)
{
    if (c->res != NULL) {
        PQclear(c->res);
        c->res = NULL;
    }
    c->nrows = c->nfields = c->row = 0;
}

void pgd_copy_abort(sbd_conn *c, const char *reason)
{
    /* While in COPY state, PQgetResult reports that state again. */
    PGresult *r = PQgetResult(c->pg);
    ExecStatusType st = PQresultStatus(r);
    PQclear(r);
    if (st == PGRES_COPY_OUT) {
        char *buf;
        while (PQgetCopyData(c->pg, &buf, 0) > 0)
            PQfreemem(buf);
    } else if (st == PGRES_COPY_IN || st == PGRES_COPY_BOTH) {
        PQputCopyEnd(c->pg, reason);
    }
    while ((r = PQgetResult(c->pg)) != NULL)
        PQclear(r);
    c->in_copy = 0;
}

static int64_t cmd_tuples(PGresult *res)
{
    const char *t = PQcmdTuples(res);
    return pgd_parse_int(t, strlen(t));
}

/* Takes ownership of res (from PQexec/PQexecPrepared) and fills info. */
static int take_result(sbd_conn *c, PGresult *res, struct sbd_result_info *info)
{
    struct sbd_result_info dummy;
    if (info == NULL)
        info = &dummy;
    info->affected_rows = 0;
    info->nrows = 0;
    info->nfields = 0;
    switch (PQresultStatus(res)) {
    case PGRES_TUPLES_OK: {
        int nf = PQnfields(res);
        if (nf > c->kinds_cap) {
            unsigned char *k = realloc(c->kinds, (size_t)nf);
            if (k == NULL) {
                PQclear(res);
                return pgd_fail(c, "out of memory for result columns");
            }
            c->kinds = k;
            c->kinds_cap = nf;
        }
        for (int i = 0; i < nf; i++) {
            switch (PQftype(res, i)) {
            case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
                c->kinds[i] = SBD_TYPE_INT;
                break;
            case OID_FLOAT4: case OID_FLOAT8: case OID_NUMERIC:
                c->kinds[i] = SBD_TYPE_DOUBLE;
                break;
            default:
                c->kinds[i] = SBD_TYPE_STRING;
            }
        }
        c->res = res;
        c->nrows = PQntuples(res);
        c->nfields = nf;
        c->row = 0;
        info->affected_rows = cmd_tuples(res);
        info->nrows = c->nrows;
        info->nfields = nf;
        return SBD_OK;
    }
    case PGRES_COMMAND_OK:
        info->affected_rows = cmd_tuples(res);
        PQclear(res);
        return SBD_OK;
    case PGRES_EMPTY_QUERY:
        PQclear(res);
        return SBD_OK;
    case PGRES_COPY_IN:
    case PGRES_COPY_OUT:
    case PGRES_COPY_BOTH:
        PQclear(res);
        pgd_copy_abort(c, "COPY through query is not supported");
        return pgd_fail(c, "COPY FROM STDIN / TO STDOUT cannot run as a plain "
                           "query; use the bulk load calls");
    default: {
        int st = pgd_error(c, res);
        PQclear(res);
        return st;
    }
    }
}

static int pgsql_query(sbd_conn *c, const char *sql, size_t len,
                       struct sbd_result_info *info)
{
    pgd_clear_result(c);
    if (c->in_copy)
        return pgd_fail(c, "a bulk load is in progress on this connection");
    if (len + 1 > c->sql_cap) {
        size_t cap = c->sql_cap ? c->sql_cap : 256;
        while (cap < len + 1)
            cap *= 2;
        char *p = realloc(c->sql, cap);
        if (p == NULL)
            return pgd_fail(c, "out of memory for query text");
        c->sql = p;
        c->sql_cap = cap;
    }
    memcpy(c->sql, sql, len);
    c->sql[len] = 0;
    return take_result(c, PQexec(c->pg, c->sql), info);
}

static int pgsql_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->res == NULL || c->row >= c->nrows)
        return SBD_DONE;
    int r = c->row++;
    for (int i = 0; i < c->nfields; i++) {
        struct sbd_value *v = &row[i];
        v->type = c->kinds[i];
        v->i = 0;
        v->d = 0;
        if (PQgetisnull(c->res, r, i)) {
            v->is_null = 1;
            v->s = NULL;
            v->len = 0;
            continue;
        }
        v->is_null = 0;
        v->s = PQgetvalue(c->res, r, i);
        v->len = (size_t)PQgetlength(c->res, r, i);
        if (v->type == SBD_TYPE_INT) {
            v->i = pgd_parse_int(v->s, v->len);
            v->d = (double)v->i;
        } else if (v->type == SBD_TYPE_DOUBLE) {
            v->d = strtod_l(v->s, NULL, c_locale);
        }
    }
    return SBD_OK;
}

static void pgsql_free_result(sbd_conn *c) { pgd_clear_result(c); }

/* ---- prepared statements ----------------------------------------------- */

/* Copies sql to dst (when not NULL) with every '?' outside string
 * literals, quoted identifiers, dollar quotes and comments replaced by $1,
 * $2, ...  Returns the number of placeholders; *outlen gets the length. */
static int translate(const char *sql, size_t len, char *dst, size_t *outlen)
{
    size_t i = 0, o = 0;
    int nph = 0;
#define PUT(x) do { char put_ = (x); if (dst) dst[o] = put_; o++; } while (0)
    while (i < len) {
        char ch = sql[i];
        int ident_before = i > 0 && (isalnum((unsigned char)sql[i - 1]) ||
                                     sql[i - 1] == '_' || sql[i - 1] == '$');
        if (ch == '\'') {
            /* E'..' strings take backslash escapes */
            int esc = i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e') &&
                      !(i > 1 && (isalnum((unsigned char)sql[i - 2]) || sql[i - 2] == '_'));
            PUT(sql[i++]);
            while (i < len && sql[i] != '\'') {
                if (esc && sql[i] == '\\' && i + 1 < len)
                    PUT(sql[i++]);
                PUT(sql[i++]);
            }
            if (i < len)
                PUT(sql[i++]);
        } else if (ch == '"') {
            PUT(sql[i++]);
            while (i < len && sql[i] != '"')
                PUT(sql[i++]);
            if (i < len)
                PUT(sql[i++]);
        } else if (ch == '-' && i + 1 < len && sql[i + 1] == '-') {
            while (i < len && sql[i] != '\n')
                PUT(sql[i++]);
        } else if (ch == '/' && i + 1 < len && sql[i + 1] == '*') {
            int depth = 0;
            do {
                if (sql[i] == '/' && i + 1 < len && sql[i + 1] == '*') {
                    depth++;
                    PUT(sql[i++]);
                } else if (sql[i] == '*' && i + 1 < len && sql[i + 1] == '/') {
                    depth--;
                    PUT(sql[i++]);
                }
                PUT(sql[i++]);
            } while (i < len && depth > 0);
        } else if (ch == '$' && !ident_before) {
            /* $tag$ ... $tag$ (tag may be empty); $1 is left alone */
            size_t t = i + 1;
            while (t < len && (isalnum((unsigned char)sql[t]) || sql[t] == '_') &&
                   !(t == i + 1 && isdigit((unsigned char)sql[t])))
                t++;
            if (t < len && sql[t] == '$') {
                size_t taglen = t + 1 - i, end = t + 1;
                while (end + taglen <= len && memcmp(sql + end, sql + i, taglen) != 0)
                    end++;
                end = end + taglen <= len ? end + taglen : len;
                while (i < end)
                    PUT(sql[i++]);
            } else {
                PUT(sql[i++]);
            }
        } else if (ch == '?') {
            char num[12];
            size_t nn = pgd_fmt_int(num, ++nph);
            PUT('$');
            for (size_t k = 0; k < nn; k++)
                PUT(num[k]);
            i++;
        } else {
            PUT(sql[i++]);
        }
    }
#undef PUT
    *outlen = o;
    return nph;
}

/* Parameter type OIDs for PQprepare.  INT is declared int8 so that `? + 1`
 * and `SELECT ?` have a type, and `int4col = $1::int8` still uses the
 * index (int4/int8 share a btree operator family).  Everything else is
 * left to the server to infer from context (0): declaring text or float8
 * would turn `charcol = $1` or `numericcol = $1` into a cast of the column
 * and lose its index. */
static Oid param_oid(int type)
{
    return type == SBD_TYPE_INT ? OID_INT8 : 0;
}

static int pgsql_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                         const int *types, sbd_stmt **out)
{
    *out = NULL;
    pgd_clear_result(c);
    if (c->in_copy)
        return pgd_fail(c, "a bulk load is in progress on this connection");
    if (nparams < 0 || (nparams > 0 && types == NULL))
        return pgd_fail(c, "prepare: bad parameter list");
    size_t tlen;
    int nph = translate(sql, len, NULL, &tlen);
    if (nph != nparams) {
        char msg[120];
        snprintf(msg, sizeof msg, "prepare: the statement has %d '?' placeholders "
                 "but %d parameter types were given", nph, nparams);
        return pgd_fail(c, msg);
    }
    struct sbd_stmt *s = calloc(1, sizeof *s);
    char *text = malloc(tlen + 1);
    Oid *oids = malloc(sizeof *oids * (size_t)(nparams + 1));
    if (s != NULL) {
        s->nparams = nparams;
        s->types = malloc(sizeof *s->types * (size_t)(nparams + 1));
        s->values = calloc((size_t)nparams + 1, sizeof *s->values);
        s->bufcap = (size_t)nparams * (PGD_NUM_MAX + 1) + 256;
        s->buf = malloc(s->bufcap);
    }
    if (s == NULL || text == NULL || oids == NULL || s->types == NULL ||
        s->values == NULL || s->buf == NULL) {
        free_stmt(s);
        free(text);
        free(oids);
        return pgd_fail(c, "out of memory for a prepared statement");
    }
    translate(sql, len, text, &tlen);
    text[tlen] = 0;
    for (int i = 0; i < nparams; i++) {
        s->types[i] = types[i];
        oids[i] = param_oid(types[i]);
    }
    memcpy(s->name, "sbench_", 7);
    s->name[7 + pgd_fmt_int(s->name + 7, (int64_t)++c->next_stmt_id)] = 0;

    PGresult *res = PQprepare(c->pg, s->name, text, nparams, oids);
    free(text);
    free(oids);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        int st = pgd_error(c, res);
        PQclear(res);
        free_stmt(s);
        return st;
    }
    PQclear(res);
    s->next = c->stmts;
    c->stmts = s;
    *out = s;
    return SBD_OK;
}

static int pgsql_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *params,
                         int nparams, struct sbd_result_info *info)
{
    pgd_clear_result(c);
    if (c->in_copy)
        return pgd_fail(c, "a bulk load is in progress on this connection");
    if (nparams != s->nparams)
        return pgd_fail(c, "execute: parameter count differs from prepare");
    size_t need = 0;
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        if (v->is_null || v->type == SBD_TYPE_NULL)
            continue;
        need += (v->type == SBD_TYPE_INT || v->type == SBD_TYPE_DOUBLE)
                ? PGD_NUM_MAX + 1 : v->len + 1;
    }
    if (need > s->bufcap) {
        size_t cap = s->bufcap * 2 > need ? s->bufcap * 2 : need;
        char *b = realloc(s->buf, cap);
        if (b == NULL)
            return pgd_fail(c, "out of memory for parameters");
        s->buf = b;
        s->bufcap = cap;
    }
    /* Text-format parameters are NUL-terminated (libpq ignores lengths for
     * them), so every value is copied into the statement's buffer. */
    char *p = s->buf;
    for (int i = 0; i < nparams; i++) {
        const struct sbd_value *v = &params[i];
        if (v->is_null || v->type == SBD_TYPE_NULL) {
            s->values[i] = NULL;
            continue;
        }
        s->values[i] = p;
        if (v->type == SBD_TYPE_INT) {
            p += pgd_fmt_int(p, v->i);
        } else if (v->type == SBD_TYPE_DOUBLE) {
            p += pgd_fmt_double(p, v->d);
        } else if (v->len > 0) {
            memcpy(p, v->s, v->len);
            p += v->len;
        }
        *p++ = 0;
    }
    return take_result(c, PQexecPrepared(c->pg, s->name, nparams, s->values,
                                         NULL, NULL, 0), info);
}

static void pgsql_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    if (s == NULL)
        return;
    for (struct sbd_stmt **pp = &c->stmts; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    /* Free the server side too.  In a failed transaction DEALLOCATE fails
     * and the statement lingers until disconnect: harmless. */
    if (!c->in_copy && PQstatus(c->pg) == CONNECTION_OK) {
        char sql[48];
        memcpy(sql, "DEALLOCATE ", 11);
        memcpy(sql + 11, s->name, strlen(s->name) + 1);
        PQclear(PQexec(c->pg, sql));
    }
    free_stmt(s);
}

/* ---- server counters --------------------------------------------------- */

/* Transactions committed and rolled back in the current database, from
 * pg_stat_database.  Since PostgreSQL 15 each backend keeps its counts in
 * local memory and flushes them to shared memory when it goes idle, at most
 * once a second (and within ~10 s when it stays idle), so other sessions'
 * latest transactions may be missing for about a second: read the counters
 * after the workers have stopped and a short pause.  This session's own
 * counts are flushed first with pg_stat_force_next_flush() (PG 15+), and
 * pg_stat_clear_snapshot() makes sure a cached snapshot is not reused.
 * The queries run here count as transactions themselves. */
static int pgsql_server_counters(sbd_conn *c, struct sbd_server_counters *out)
{
    pgd_clear_result(c);
    if (c->in_copy)
        return pgd_fail(c, "a bulk load is in progress on this connection");
    PGresult *res;
    if (PQserverVersion(c->pg) >= 150000) {
        res = PQexec(c->pg, "SELECT pg_stat_force_next_flush()");
        if (PQresultStatus(res) != PGRES_TUPLES_OK) {
            int st = pgd_error(c, res);
            PQclear(res);
            return st;
        }
        PQclear(res);
    }
    res = PQexec(c->pg, "SELECT pg_stat_clear_snapshot(); "
                        "SELECT xact_commit, xact_rollback FROM pg_stat_database "
                        "WHERE datname = current_database()");
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 ||
        PQnfields(res) != 2) {
        int st = PQresultStatus(res) == PGRES_TUPLES_OK
                 ? pgd_fail(c, "pg_stat_database has no row for this database")
                 : pgd_error(c, res);
        PQclear(res);
        return st;
    }
    out->commits = pgd_parse_int(PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
    out->rollbacks = pgd_parse_int(PQgetvalue(res, 0, 1), (size_t)PQgetlength(res, 0, 1));
    out->selects = out->inserts = out->updates = out->deletes = -1;
    out->statements = -1;
    PQclear(res);
    return SBD_OK;
}

/* ---- the driver -------------------------------------------------------- */

static const struct sbd_driver pgsql_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "pgsql",
    .description = "PostgreSQL through libpq",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD | SBD_CAP_SERVER_COUNTERS,
    .options = pg_options,
    .init = pgsql_init,
    .done = pgsql_done,
    .client_version = pgsql_client_version,
    .connect = pgsql_connect,
    .disconnect = pgsql_disconnect,
    .last_error = pgsql_last_error,
    .dialect = pgsql_dialect,
    .server_version = pgsql_server_version,
    .query = pgsql_query,
    .fetch_row = pgsql_fetch_row,
    .free_result = pgsql_free_result,
    .prepare = pgsql_prepare,
    .execute = pgsql_execute,
    .close_stmt = pgsql_close_stmt,
    .bulk_begin = pgd_bulk_begin,
    .bulk_row = pgd_bulk_row,
    .bulk_end = pgd_bulk_end,
    .server_counters = pgsql_server_counters,
};

SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &pgsql_driver;
}
