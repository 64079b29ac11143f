/*
 * pgsql driver: options, process setup (init/done), connections and error
 * messages.  Reads the user's options once in init; connect builds the
 * libpq keyword list from them, leaving unset ones to libpq's environment
 * variables ($PGHOST, $PGPASSWORD, ...).  Every message is made one line
 * and has any password masked.
 */
#include "pgsql_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct sbd_option pgd_options[] = {
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
    {"pgsql-wire", SBD_OPT_BOOL, "on",
     "run statements over the wire protocol directly instead of through "
     "libpq's result objects: the same messages, no allocation per query, "
     "fewer client instructions; off on TLS/GSS-encrypted sessions"},
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
static int wire;                /* --pgsql-wire */
locale_t pgd_c_locale;         /* for strtod_l: the user's locale may use ',' */
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

/* Status of a server error with SQLSTATE state (may be NULL). */
static int classify(int conn_bad, const char *state)
{
    if (conn_bad)
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

int pgd_server_error(sbd_conn *c, const char *state, const char *msg, int conn_bad)
{
    if (msg == NULL || *msg == 0)
        msg = "unknown error (no message from the server)";
    int st = classify(conn_bad, state);
    set_error(&c->err, st, state, NULL, msg);
    return st;
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
    return pgd_server_error(c, state, msg, PQstatus(c->pg) == CONNECTION_BAD);
}

int pgd_fail(sbd_conn *c, const char *msg)
{
    set_error(&c->err, SBD_ERROR, NULL, NULL, msg);
    return SBD_ERROR;
}

int pgd_lost(sbd_conn *c, const char *msg)
{
    set_error(&c->err, SBD_CONN_LOST, NULL, NULL, msg);
    return SBD_CONN_LOST;
}

void pgd_notice(const char *severity, const char *msg)
{
    struct sbd_error tmp;
    set_message(&tmp, NULL, msg);
    host->log(SBD_LOG_DEBUG, "server %s: %s", severity ? severity : "NOTICE", tmp.message);
}

/* ---- init -------------------------------------------------------------- */

/* The option's value (owned by the host, valid for the run) when the user
 * gave it, or when libpq's environment variable env is unset (then our
 * default); NULL to let libpq decide, or when there is no value at all. */
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

/* Maps --pgsql-isolation to SQL (a static string); NULL if not a level we
 * know. */
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

int pgd_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    host = h;
    pgd_done(); /* forget a previous init */
    pgd_client_version(); /* fill its buffer before threads start */
    pgd_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (pgd_c_locale == (locale_t)0) {
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

    wire = h->opt_bool("pgsql-wire");
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

void pgd_done(void)
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
    if (pgd_c_locale != (locale_t)0) {
        freelocale(pgd_c_locale);
        pgd_c_locale = (locale_t)0;
    }
}

/* Static string "libpq 15.20"; never fails. */
const char *pgd_client_version(void)
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
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    pgd_notice(PQresultErrorField(res, PG_DIAG_SEVERITY),
               msg ? msg : PQresultErrorMessage(res));
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

void pgd_free_stmt(struct sbd_stmt *s)
{
    if (s == NULL)
        return;
    free(s->types);
    free(s->values);
    free(s->buf);
    free(s);
}

int pgd_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
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
        pgd_disconnect(c);
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
            pgd_disconnect(c);
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
    pgd_wire_setup(c, wire);
    *out = c;
    return SBD_OK;
}

void pgd_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
    if (c->wire_execs > 0)
        host->log(SBD_LOG_DEBUG, "%ld statements went over the wire protocol fast path",
                  c->wire_execs);
    pgd_clear_result(c);
    pgd_sock_blocking(c, 0);
    while (c->stmts != NULL) {
        struct sbd_stmt *s = c->stmts;
        c->stmts = s->next;
        pgd_free_stmt(s);
    }
    pgd_copy_free(c);
    pgd_wire_free(&c->wire);
    free(c->pipe_out);
    if (c->async_res != NULL)
        PQclear(c->async_res);
    if (c->pg != NULL)
        PQfinish(c->pg);
    free(c->kinds);
    free(c->sql);
    free(c);
}

/* Owned by c; describes its last failed call.  Never NULL. */
const struct sbd_error *pgd_last_error(sbd_conn *c) { return &c->err; }

/* Static string; never NULL. */
const char *pgd_dialect(sbd_conn *c) { (void)c; return "postgresql"; }

/* Owned by c, valid until disconnect; "PostgreSQL " alone if the server
 * did not report its version.  Never NULL. */
const char *pgd_server_version(sbd_conn *c) { return c->version; }

