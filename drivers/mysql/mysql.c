/*
 * mysql driver: MySQL and MariaDB through the libmysqlclient C API (works
 * with MariaDB Connector/C and Oracle's libmysqlclient 8), with a
 * wire-protocol fast path.  This file holds the driver table, the options
 * and process and thread setup: init reads the user's options once into
 * myd_cfg.  The other files, each calling only those after it (no
 * circle: tests/layout/layout.py): mysql_conn.c connections;
 * mysql_async.c the nonblocking calls (MariaDB Connector/C only), which
 * pick the path; mysql_wire.c the fast path, which hands what it does not
 * serve to the library's calls below; mysql_async_lib.c the library's
 * nonblocking phases; mysql_bulk.c bulk load; mysql_stmt.c queries,
 * prepared statements and results through the library; mysql_wire_stmt.c the fast path's
 * pieces the library's path calls too; mysql_fail.c a connection's
 * errors; mysql_wire_row.c, mysql_wire_proto.c the fast path's messages,
 * mysql_types.c column types and number text, mysql_errors.c error
 * classification; mysql_int.h what they share.  Transactions are left to
 * the host, which sends BEGIN, COMMIT and ROLLBACK as queries: so a client
 * multiplexed on a thread sends them nonblocking like any other
 * statement.
 */
#include "mysql_int.h"
#include "../common/error.h"
#include "../common/password.h"
#include "../common/password_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct sbd_option options[] = {
    {"mysql-host", SBD_OPT_LIST, "localhost",
     "MySQL server host; a comma list spreads connections round-robin"},
    {"mysql-port", SBD_OPT_LIST, "3306",
     "MySQL server port; a comma list is spread like the hosts"},
    {"mysql-socket", SBD_OPT_STRING, NULL,
     "MySQL unix socket file (used instead of host and port)"},
    {"mysql-user", SBD_OPT_STRING, "sbtest", "MySQL user"},
    {"mysql-defaults-file", SBD_OPT_STRING, NULL,
     "an option file (my.cnf format) the client library reads at each connect: "
     "its [client] group and --mysql-defaults-group, with any option the library "
     "takes there (ssl-cert, ssl-key, init-command, plugin-dir, default-auth...); "
     "--mysql-* options given override it, and sbench's defaults step aside for it"},
    {"mysql-defaults-group", SBD_OPT_STRING, NULL,
     "a group of the option file read besides [client] (MYSQL_READ_DEFAULT_GROUP)"},
    {"mysql-password", SBD_OPT_SECRET, NULL,
     "MySQL password (default: $MYSQL_PWD)"},
    {"mysql-password-file", SBD_OPT_STRING, NULL,
     "file whose first line is the MySQL password"},
    {"mysql-password-command", SBD_OPT_STRING, NULL,
     "command (run by /bin/sh) whose output's first line is the password, run "
     "at each new connection: a token that expires (see --password-ttl)"},
    {"password-ttl", SBD_OPT_INT, "0",
     "seconds new connections reuse a password command's output (0: the "
     "command runs at every connection)"},
    {"mysql-db", SBD_OPT_STRING, "sbtest", "MySQL database name"},
    {"mysql-load-data", SBD_OPT_BOOL, "on",
     "prepare loads rows with LOAD DATA LOCAL INFILE from memory when the server allows it"},
    {"mysql-ssl", SBD_OPT_STRING, "off",
     "TLS: off, on (sysbench's: TLS when the server has it, as PREFERRED), DISABLED, PREFERRED, "
     "REQUIRED, VERIFY_CA, VERIFY_IDENTITY"},
    {"mysql-ssl-cipher", SBD_OPT_STRING, NULL,
     "use specific cipher for SSL connections (sysbench's option)"},
    {"mysql-compression", SBD_OPT_BOOL, "off",
     "use compression, if available in the client library (sysbench's option; "
     "everything then goes through Connector/C)"},
    {"mysql-debug", SBD_OPT_BOOL, "off",
     "sysbench's 'trace all client library calls': accepted; Connector/C's release "
     "builds trace nothing (--db-debug prints sbench's driver messages)"},
    {"mysql-ssl-ca", SBD_OPT_STRING, NULL,
     "file with the certificate authority for TLS"},
    {"mysql-ignore-errors", SBD_OPT_LIST, "1213,1020,1205",
     "error numbers to retry (comma list) or 'all'"},
    {"mysql-wire", SBD_OPT_BOOL, "on",
     "run prepared statements (execute) and BEGIN/COMMIT/ROLLBACK over the "
     "client/server protocol directly instead of through Connector/C "
     "(no allocation per statement; TLS through Connector/C's OpenSSL session); "
     "off: Connector/C for everything"},
    {"mysql-dry-run", SBD_OPT_BOOL, "off",
     "send nothing to a server and pretend every statement succeeds (sysbench's option): "
     "sbench runs the null driver instead"},
    {NULL, 0, NULL, NULL}
};

struct myd_settings myd_cfg;
static char client_version_buf[96];

static int parse_ssl_mode(const char *v, enum myd_ssl_mode *out)
{
    static const struct { const char *name; enum myd_ssl_mode mode; } names[] = {
        {"off", MYD_SSL_OFF}, {"disabled", MYD_SSL_OFF}, {"on", MYD_SSL_PREFERRED},
        {"required", MYD_SSL_REQUIRED}, {"preferred", MYD_SSL_PREFERRED},
        {"verify_ca", MYD_SSL_VERIFY_CA}, {"verify_identity", MYD_SSL_VERIFY_IDENTITY},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(v, names[i].name) == 0) {
            *out = names[i].mode;
            return 0;
        }
    return -1;
}

/* Checks every item of the --mysql-port list: a number 1..65535.  0, or
 * -1 with one line in errbuf. */
static int check_ports(const struct sbc_list *ports, const char *value, char *errbuf,
                       size_t errlen)
{
    for (int i = 0; i < ports->n; i++) {
        const char *p = ports->items[i];
        unsigned long v = 0;
        size_t k = 0;
        for (; p[k] >= '0' && p[k] <= '9' && v <= 65535; k++)
            v = v * 10 + (unsigned long)(p[k] - '0');
        if (p[k] != 0 || v == 0 || v > 65535) {
            snprintf(errbuf, errlen, "--mysql-port: invalid port in '%s'", value);
            return -1;
        }
    }
    return 0;
}

/* s itself (caller's storage) when it is a non-empty string, else NULL. */
static const char *nonempty(const char *s)
{
    return (s != NULL && *s != 0) ? s : NULL;
}

/* Where and as whom to connect, into myd_cfg.  0, or -1 with one line in
 * errbuf. */
/* The option's value when the user gave it, or when no option file takes
 * its place (then our default); NULL when the file decides. */
static const char *setting(const struct sbd_host *h, const char *opt)
{
    int given = h->opt_is_set ? h->opt_is_set(opt) : 1;
    return given || myd_cfg.defaults_file == NULL ? h->opt_str(opt) : NULL;
}

/* --mysql-defaults-file and --mysql-defaults-group into myd_cfg; the file
 * must be readable now (the library would skip it in silence). */
static int read_option_file(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    struct myd_settings *cfg = &myd_cfg;
    cfg->defaults_file = nonempty(h->opt_str("mysql-defaults-file"));
    cfg->defaults_group = nonempty(h->opt_str("mysql-defaults-group"));
    if (cfg->defaults_group != NULL && cfg->defaults_file == NULL) {
        snprintf(errbuf, errlen, "--mysql-defaults-group needs --mysql-defaults-file");
        return -1;
    }
    FILE *f = cfg->defaults_file != NULL ? fopen(cfg->defaults_file, "r") : NULL;
    if (cfg->defaults_file != NULL && f == NULL) {
        snprintf(errbuf, errlen, "--mysql-defaults-file: cannot read %.200s: %s",
                 cfg->defaults_file, strerror(errno));
        return -1;
    }
    if (f != NULL)
        fclose(f);
    return 0;
}

static int read_connection(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    struct myd_settings *cfg = &myd_cfg;
    if (read_option_file(h, errbuf, errlen) != 0)
        return -1;
    const char *hl = setting(h, "mysql-host"), *pl = setting(h, "mysql-port");
    cfg->host_from_file = hl == NULL && cfg->defaults_file != NULL;
    cfg->port_from_file = pl == NULL && cfg->defaults_file != NULL;
    if (sbc_list_parse(&cfg->hosts, hl != NULL ? hl : "localhost", "--mysql-host",
                       "host name", errbuf, errlen) != 0 ||
        sbc_list_parse(&cfg->ports, pl != NULL ? pl : "3306", "--mysql-port", "port",
                       errbuf, errlen) != 0 ||
        check_ports(&cfg->ports, pl, errbuf, errlen) != 0)
        return -1;
    cfg->sock_path = nonempty(h->opt_str("mysql-socket"));
    cfg->user = setting(h, "mysql-user");
    cfg->db = nonempty(setting(h, "mysql-db"));
    cfg->ssl_from_file = setting(h, "mysql-ssl") == NULL;
    cfg->ssl_ca = nonempty(h->opt_str("mysql-ssl-ca"));
    cfg->ssl_cipher = nonempty(h->opt_str("mysql-ssl-cipher"));
    cfg->compression = h->opt_bool("mysql-compression");
    const char *ssl = h->opt_str("mysql-ssl");
    if (parse_ssl_mode(ssl != NULL ? ssl : "off", &cfg->ssl_mode) != 0) {
        snprintf(errbuf, errlen,
                 "--mysql-ssl: '%s' is not one of off, on, DISABLED, PREFERRED, "
                 "REQUIRED, VERIFY_CA, VERIFY_IDENTITY", ssl);
        return -1;
    }
    if (sbc_password_get(h, "mysql", &cfg->password_given, errbuf, errlen) != 0 ||
        sbc_pwcmd_init(&cfg->pwcmd, h, "mysql", cfg->password_given != NULL, errbuf,
                       errlen) != 0)
        return -1;
    cfg->password = cfg->password_given != NULL ? cfg->password_given : getenv("MYSQL_PWD");
    const char *names[] = {cfg->user ? cfg->user : "", cfg->db ? cfg->db : "", NULL};
    cfg->secret = sbc_secret(cfg->password, names);
    return 0;
}

/* Frees what init kept; a second call is a no-op. */
static void free_settings(void)
{
    sbc_list_free(&myd_cfg.hosts);
    sbc_list_free(&myd_cfg.ports);
    sbc_password_free(myd_cfg.password_given);
    sbc_pwcmd_free(&myd_cfg.pwcmd);
    myd_cfg.password_given = NULL;
    myd_cfg.password = NULL;
    myd_cfg.secret = "";
}

static int myd_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    free_settings();
    myd_cfg.host = h;
    myd_cfg.load_data = h->opt_bool("mysql-load-data");
    myd_cfg.wire = h->opt_bool("mysql-wire") && !h->opt_bool("mysql-compression");
    myd_cfg.query_timeout = h->query_timeout > 0 ? h->query_timeout : 0;
    long long max = h->opt_int("db-max-result-bytes");
    myd_cfg.max_answer = max > 0 ? (size_t)max : (size_t)1 << 30;
    if (read_connection(h, errbuf, errlen) != 0 ||
        myd_parse_ignore(h->opt_str("mysql-ignore-errors"), &myd_cfg.ignored,
                         errbuf, errlen) != 0)
        return SBD_ERROR;
    if (mysql_library_init(0, NULL, NULL) != 0) {
        snprintf(errbuf, errlen, "mysql_library_init failed");
        return SBD_ERROR;
    }
#ifdef MYD_MARIADB_CLIENT
    snprintf(client_version_buf, sizeof client_version_buf,
             "MariaDB Connector/C %s", mysql_get_client_info());
#else
    snprintf(client_version_buf, sizeof client_version_buf, "libmysqlclient %s",
             mysql_get_client_info());
#endif
    return SBD_OK;
}

static void myd_done(void)
{
    mysql_library_end();
    free_settings();
}

static int myd_thread_init(void)
{
    return mysql_thread_init() == 0 ? SBD_OK : SBD_ERROR;
}

static void myd_thread_done(void)
{
    mysql_thread_end();
}

/* Static buffer filled by init; "" before init. */
static const char *myd_client_version(void)
{
    return client_version_buf;
}

/* --- driver table --- */

#ifdef MYD_NONBLOCK
#define MYD_CAP_NONBLOCKING SBD_CAP_NONBLOCKING
#else
#define MYD_CAP_NONBLOCKING 0
#endif

static const struct sbd_driver mysql_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "mysql",
    .description = "MySQL and MariaDB (libmysqlclient API)",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD | SBD_CAP_BACKSLASH_ESC |
            SBD_CAP_SERVER_COUNTERS | MYD_CAP_NONBLOCKING | SBD_CAP_STREAM | MYD_CAP_HOST_IO |
            SBD_CAP_SERVER_SAMPLE |
            SBD_CAP_UNTYPED_PREPARE, /* mysql_stmt_prepare takes no types: a missing
                                        table fails at con:prepare, as in sysbench */
    .options = options,
    .init = myd_init,
    .done = myd_done,
    .thread_init = myd_thread_init,
    .thread_done = myd_thread_done,
    .client_version = myd_client_version,
    .connect = myd_connect,
    .disconnect = myd_disconnect,
    .last_error = myd_last_error,
    .dialect = myd_dialect,
    .server_version = myd_server_version,
    .query = myd_query,
    .fetch_row = myd_fetch_row,
    .free_result = myd_free_result,
    .prepare = myd_prepare,
    .execute = myd_execute,
    .close_stmt = myd_close_stmt,
    .bulk_begin = myd_bulk_begin,
    .bulk_row = myd_bulk_row,
    .bulk_end = myd_bulk_end,
    .server_counters = myd_server_counters,
#ifdef MYD_NONBLOCK
    .socket = myd_socket,
    .send_query = myd_send_query,
    .send_execute = myd_send_execute,
    .poll_result = myd_poll_result,
#endif
    .query_stream = myd_query_stream,
    .field_name = myd_field_name,
    .connect_phases = myd_connect_phases,
#if MYD_CAP_HOST_IO
    .host_io = myd_host_io,
    .io_want = myd_io_want,
    .io_done = myd_io_done,
#endif
    .server_sample = myd_server_sample,
    .server_waits = myd_server_waits,
};

/* Static driver table; never fails. */
SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &mysql_driver;
}
