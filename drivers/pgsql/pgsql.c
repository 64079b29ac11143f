/*
 * pgsql driver: PostgreSQL through libpq, with a wire-protocol fast path.
 * This file holds the driver table, the options and process setup
 * (init/done): init reads the user's options once into pgd_cfg, leaving
 * unset ones to libpq's environment variables ($PGHOST, $PGPASSWORD, ...).
 * The other files, each calling only those after it (no circle:
 * tests/layout/layout.py): pgsql_conn.c connections; pgsql_wire.c the
 * fast path (it hands SET, RESET and the like to libpq's calls below);
 * pgsql_async.c libpq's nonblocking statements and pipelines, pgsql_bulk.c
 * bulk load (COPY); pgsql_stmt.c libpq's queries, prepared statements and
 * every result's rows; pgsql_fail.c a connection's errors; pgsql_sock.c
 * the socket's mode and the fast path given up; pgsql_pqwait.c libpq's
 * bounded waits, pgsql_wire_proto.c the fast path's messages,
 * pgsql_types.c column types and number text, pgsql_errors.c SQLSTATE
 * classification; pgsql_int.h what they share.
 */
#include "pgsql_int.h"
#include "../common/list.h"
#include "../common/error.h"
#include "../common/password.h"
#include "../common/password_cmd.h"
#include "../../lib/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct sbd_option options[] = {
    {"pgsql-conninfo", SBD_OPT_STRING, NULL,
     "a libpq connection string or URI (postgresql://...) with any keyword "
     "libpq takes (sslcert, sslsni, target_session_attrs, service...); "
     "--pgsql-* options given override its parts, and sbench's defaults "
     "step aside for it"},
    {"pgsql-host", SBD_OPT_LIST, "localhost",
     "server host, IP address or unix socket directory; a list a,b spreads "
     "connections round-robin by thread (unset: $PGHOST, else localhost)"},
    {"pgsql-port", SBD_OPT_INT, "5432", "server port (unset: $PGPORT, else 5432)"},
    {"pgsql-user", SBD_OPT_STRING, "sbtest", "user name (unset: $PGUSER, else sbtest)"},
    {"pgsql-password", SBD_OPT_SECRET, NULL,
     "password (unset: $PGPASSWORD or ~/.pgpass)"},
    {"pgsql-password-file", SBD_OPT_STRING, NULL,
     "file whose first line is the password"},
    {"pgsql-password-command", SBD_OPT_STRING, NULL,
     "command (run by /bin/sh) whose output's first line is the password, run "
     "at each new connection: a token that expires (see --password-ttl)"},
    {"password-ttl", SBD_OPT_INT, "0",
     "seconds new connections reuse a password command's output (0: the "
     "command runs at every connection)"},
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
     "fewer client instructions; TLS sessions through libpq's OpenSSL session, off on GSS-encrypted ones"},
    {NULL, 0, NULL, NULL}
};

struct pgd_settings pgd_cfg;
static char client_version_buf[32];

/* ---- init -------------------------------------------------------------- */

/* The option's value (owned by the host, valid for the run) when the user
 * gave it, or when neither --pgsql-conninfo nor libpq's environment
 * variable env is set (then our default); NULL to let libpq decide, or when
 * there is no value at all. */
static const char *setting(const char *opt, const char *env)
{
    const struct sbd_host *h = pgd_cfg.host;
    int given = h->opt_is_set ? h->opt_is_set(opt) : 1;
    if (!given && (pgd_cfg.conninfo != NULL || (env != NULL && getenv(env) != NULL)))
        return NULL;
    return h->opt_str(opt);
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

/* --pgsql-conninfo into pgd_cfg: checked once with libpq's own parser (one
 * line naming the problem, nothing of the string quoted: it may hold the
 * password), and its password kept so that messages mask it. */
static int read_conninfo(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    struct pgd_settings *cfg = &pgd_cfg;
    const char *ci = h->opt_str("pgsql-conninfo");
    cfg->conninfo = ci != NULL && *ci != 0 ? ci : NULL;
    if (cfg->conninfo == NULL)
        return SBD_OK;
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(cfg->conninfo, &msg);
    if (opts == NULL) {
        const char *m = msg ? msg : "out of memory";
        int n = (int)strcspn(m, "\"\n:");
        snprintf(errbuf, errlen, "--pgsql-conninfo: not a libpq connection string or URI (%.*s)",
                 n, m);
        PQfreemem(msg);
        return SBD_ERROR;
    }
    for (PQconninfoOption *o = opts; o->keyword != NULL; o++)
        if (strcmp(o->keyword, "password") == 0 && o->val != NULL && *o->val != 0)
            cfg->conninfo_password = strdup(o->val);
    PQconninfoFree(opts);
    return SBD_OK;
}

/* The connection settings (libpq keywords) into pgd_cfg.  SBD_OK, or
 * SBD_ERROR with one line in errbuf. */
static int read_connection(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    struct pgd_settings *cfg = &pgd_cfg;
    if (read_conninfo(h, errbuf, errlen) != SBD_OK)
        return SBD_ERROR;
    const char *hl = setting("pgsql-host", "PGHOST");
    if (hl != NULL &&
        sbc_list_parse(&cfg->hosts, hl, "--pgsql-host", "host name", errbuf, errlen) != 0)
        return SBD_ERROR;
    cfg->port = NULL;
    if (setting("pgsql-port", "PGPORT") != NULL) {
        long long p = h->opt_int("pgsql-port");
        if (p < 1 || p > 65535) {
            snprintf(errbuf, errlen, "--pgsql-port must be 1..65535, not %lld", p);
            return SBD_ERROR;
        }
        sbc_i64_to_text(p, cfg->port_buf);
        cfg->port = cfg->port_buf;
    }
    cfg->user = setting("pgsql-user", "PGUSER");
    cfg->dbname = setting("pgsql-db", "PGDATABASE");
    cfg->sslmode = setting("pgsql-sslmode", "PGSSLMODE");
    cfg->sslrootcert = setting("pgsql-sslrootcert", "PGSSLROOTCERT");
    static const char *const modes[] = {"disable", "allow", "prefer", "require",
                                        "verify-ca", "verify-full"};
    if (cfg->sslmode != NULL) {
        size_t i = 0;
        while (i < sizeof modes / sizeof modes[0] && strcmp(cfg->sslmode, modes[i]) != 0)
            i++;
        if (i == sizeof modes / sizeof modes[0]) {
            snprintf(errbuf, errlen, "--pgsql-sslmode: '%s' is not one of disable, "
                     "allow, prefer, require, verify-ca, verify-full", cfg->sslmode);
            return SBD_ERROR;
        }
    }
    if (sbc_password_get(h, "pgsql", &cfg->password, errbuf, errlen) != 0 ||
        sbc_pwcmd_init(&cfg->pwcmd, h, "pgsql", cfg->password != NULL, errbuf, errlen) != 0)
        return SBD_ERROR;
    const char *names[] = {cfg->user ? cfg->user : "", cfg->dbname ? cfg->dbname : "", NULL};
    cfg->secret = sbc_secret(cfg->password ? cfg->password : cfg->conninfo_password, names);
    int ctimeout = h->struct_size > offsetof(struct sbd_host, connect_timeout)
                   ? h->connect_timeout : 0;
    cfg->ctimeout_buf[0] = 0;
    if (ctimeout > 0)
        sbc_i64_to_text(ctimeout, cfg->ctimeout_buf);
    return SBD_OK;
}

/* The SQL every session runs first (isolation level, statement timeout)
 * into pgd_cfg.session_sql.  SBD_OK, or SBD_ERROR with one line in
 * errbuf. */
static int read_session(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    char *sql = pgd_cfg.session_sql;
    size_t cap = sizeof pgd_cfg.session_sql;
    int qtimeout = h->struct_size > offsetof(struct sbd_host, query_timeout)
                   ? h->query_timeout : 0;
    sql[0] = 0;
    const char *iso = h->opt_str("pgsql-isolation");
    const char *level = NULL;
    if (iso != NULL && (level = isolation_sql(iso)) == NULL) {
        snprintf(errbuf, errlen, "--pgsql-isolation: '%s' is not one of "
                 "read-committed, repeatable-read, serializable", iso);
        return SBD_ERROR;
    }
    size_t n = 0;
    if (level != NULL)
        n += (size_t)snprintf(sql, cap, "SET SESSION CHARACTERISTICS AS TRANSACTION "
                              "ISOLATION LEVEL %s; ", level);
    if (qtimeout > 0)
        snprintf(sql + n, cap - n, "SET statement_timeout = %lld", (long long)qtimeout * 1000);
    return SBD_OK;
}

int pgd_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    pgd_done(); /* forget a previous init */
    pgd_cfg.host = h;
    pgd_client_version(); /* fill its buffer before threads start */
    pgd_cfg.c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (pgd_cfg.c_locale == (locale_t)0) {
        snprintf(errbuf, errlen, "cannot create the C locale: %s", strerror(errno));
        return SBD_ERROR;
    }
    if (read_connection(h, errbuf, errlen) != SBD_OK || read_session(h, errbuf, errlen) != SBD_OK)
        return SBD_ERROR;
    pgd_cfg.wire = h->opt_bool("pgsql-wire");
    int qtimeout = h->struct_size > offsetof(struct sbd_host, query_timeout)
                   ? h->query_timeout : 0;
    pgd_cfg.wire_timeout_ms = qtimeout > 0 ? qtimeout * 1000 + PGD_TIMEOUT_GRACE_MS : 0;
    long long max = h->opt_int("db-max-result-bytes");
    pgd_cfg.max_answer = max > 0 ? (size_t)max : (size_t)1 << 30;
    return SBD_OK;
}

void pgd_done(void)
{
    sbc_list_free(&pgd_cfg.hosts);
    sbc_password_free(pgd_cfg.password);
    sbc_pwcmd_free(&pgd_cfg.pwcmd);
    pgd_cfg.password = NULL;
    sbc_password_free(pgd_cfg.conninfo_password);
    pgd_cfg.conninfo_password = NULL;
    pgd_cfg.secret = "";
    if (pgd_cfg.c_locale != (locale_t)0)
        freelocale(pgd_cfg.c_locale);
    pgd_cfg.c_locale = (locale_t)0;
}

/* Static "libpq 15.20"; never fails. */
const char *pgd_client_version(void)
{
    if (client_version_buf[0] == 0) {
        int v = PQlibVersion();
        char tmp[32];
        size_t n = 0;
        memcpy(tmp, "libpq ", 6);
        n = 6;
        n += sbc_i64_to_text(v / 10000, tmp + n);
        tmp[n++] = '.';
        n += sbc_i64_to_text(v % 10000, tmp + n);
        memcpy(client_version_buf, tmp, n + 1);
    }
    return client_version_buf;
}

/* ---- the driver -------------------------------------------------------- */

static const struct sbd_driver pgsql_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "pgsql",
    .description = "PostgreSQL through libpq",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD | SBD_CAP_SERVER_COUNTERS |
            SBD_CAP_NONBLOCKING | SBD_CAP_PIPELINE | SBD_CAP_HOST_IO | SBD_CAP_SERVER_SAMPLE,
    .options = options,
    .init = pgd_init,
    .done = pgd_done,
    .client_version = pgd_client_version,
    .connect = pgd_connect,
    .disconnect = pgd_disconnect,
    .last_error = pgd_last_error,
    .dialect = pgd_dialect,
    .server_version = pgd_server_version,
    .query = pgd_query,
    .fetch_row = pgd_fetch_row,
    .free_result = pgd_free_result,
    .prepare = pgd_prepare,
    .execute = pgd_execute,
    .close_stmt = pgd_close_stmt,
    .bulk_begin = pgd_bulk_begin,
    .bulk_row = pgd_bulk_row,
    .bulk_end = pgd_bulk_end,
    .server_counters = pgd_server_counters,
    .socket = pgd_socket,
    .send_query = pgd_send_query,
    .send_execute = pgd_send_execute,
    .poll_result = pgd_poll_result,
    .pipeline = pgd_pipeline,
    .host_io = pgd_host_io,
    .io_want = pgd_io_want,
    .io_done = pgd_io_done,
    .field_name = pgd_field_name,
    .server_sample = pgd_server_sample,
    .server_waits = pgd_server_waits,
    .connect_phases = pgd_connect_phases,
};

/* The driver table: static, never NULL, never fails. */
SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &pgsql_driver;
}
