/*
 * mysql driver: connections.  connect applies the
 * settings mysql.c read at init (host and port round-robin by thread,
 * timeouts, TLS, LOAD DATA LOCAL) and picks the connection's transport
 * (myd_wire_setup); disconnect frees everything.  The top of the driver's
 * files: it calls the paths below and none calls it.
 */
#include "mysql_int.h"
#include "../common/error.h"
#include "../common/password.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- connections ------------------------------------------------------- */

/* Applies --mysql-ssl and --mysql-ssl-ca to m; 0 or -1. */
static int apply_ssl(MYSQL *m)
{
    int rc = 0;
    if (myd_cfg.ssl_ca != NULL && myd_cfg.ssl_mode != MYD_SSL_OFF)
        rc |= mysql_options(m, MYSQL_OPT_SSL_CA, myd_cfg.ssl_ca);
    if (myd_cfg.ssl_cipher != NULL && myd_cfg.ssl_mode != MYD_SSL_OFF)
        rc |= mysql_options(m, MYSQL_OPT_SSL_CIPHER, myd_cfg.ssl_cipher);
#ifdef MYD_MARIADB_CLIENT
    /* Connector/C has no SSL mode: it uses TLS when asked, but without
     * certificate verification it falls back to plain text when the server
     * has no TLS (connect checks REQUIRED afterwards); verification checks
     * the host name too, so VERIFY_CA acts as VERIFY_IDENTITY. */
    myd_bool enforce = myd_cfg.ssl_mode >= MYD_SSL_REQUIRED;
    myd_bool verify = myd_cfg.ssl_mode >= MYD_SSL_VERIFY_CA;
    if (myd_cfg.ssl_mode == MYD_SSL_PREFERRED)
        rc |= mysql_ssl_set(m, NULL, NULL, myd_cfg.ssl_ca, NULL, NULL) != 0;
    if (myd_cfg.ssl_mode != MYD_SSL_PREFERRED)
        rc |= mysql_options(m, MYSQL_OPT_SSL_ENFORCE, &enforce);
    rc |= mysql_options(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
#else
    unsigned mode;
    switch (myd_cfg.ssl_mode) {
    case MYD_SSL_OFF: mode = SSL_MODE_DISABLED; break;
    case MYD_SSL_PREFERRED: mode = SSL_MODE_PREFERRED; break;
    case MYD_SSL_REQUIRED: mode = SSL_MODE_REQUIRED; break;
    case MYD_SSL_VERIFY_CA: mode = SSL_MODE_VERIFY_CA; break;
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

/* Sets the connection options of m (timeouts, nonblocking API, socket,
 * LOAD DATA LOCAL, TLS).  0, or -1 when the library refused one. */
static int set_options(MYSQL *m)
{
    const struct sbd_host *h = myd_cfg.host;
    unsigned ct = h->connect_timeout > 0 ? (unsigned)h->connect_timeout : 0;
    unsigned qt = h->query_timeout > 0 ? (unsigned)h->query_timeout : 0;
    int rc = 0;
    if (ct > 0)
        rc |= mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
    if (qt > 0) {
        rc |= mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &qt);
        rc |= mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &qt);
    }
#ifdef MYD_NONBLOCK
    /* the non-blocking API (mysql_async.c); blocking calls work as before */
    rc |= mysql_options(m, MYSQL_OPT_NONBLOCK, 0);
#endif
    if (myd_cfg.sock_path != NULL) {
        unsigned proto = MYSQL_PROTOCOL_SOCKET;
        rc |= mysql_options(m, MYSQL_OPT_PROTOCOL, &proto);
    }
    if (myd_cfg.compression) /* the wire fast path is off then (mysql.c) */
        rc |= mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
    if (myd_cfg.defaults_file != NULL)
        rc |= mysql_options(m, MYSQL_READ_DEFAULT_FILE, myd_cfg.defaults_file);
    if (myd_cfg.defaults_group != NULL)
        rc |= mysql_options(m, MYSQL_READ_DEFAULT_GROUP, myd_cfg.defaults_group);
    if (myd_cfg.load_data) {
        /* LOAD DATA LOCAL for bulk loads; the connection's infile handler
         * (myd_bulk_attach) serves only sbench's own buffer, never a file */
        unsigned one = 1;
        rc |= mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &one);
    }
    if (myd_cfg.ssl_from_file) /* --mysql-defaults-file's ssl-* options decide */
        return rc != 0 ? -1 : 0;
    return rc != 0 || apply_ssl(m) != 0 ? -1 : 0;
}

/* Closes the half-made connection c and returns err's status. */
static int connect_failed(sbd_conn *c, struct sbd_error *err)
{
    if (c != NULL && c->mysql != NULL)
        mysql_close(c->mysql);
    free(c);
    return err->status;
}

/* Opens c->mysql to hostname:port (or the socket; `where` names it in
 * messages) with the password given or the command's token (a token
 * refused with ER_ACCESS_DENIED_ERROR is fetched again on a new handle,
 * sbc_pwcmd_reject).  0, or -1 with err filled (c->mysql may then be a
 * handle to close). */
static int open_my(sbd_conn *c, const char *hostname, unsigned port, const char *where,
                   struct sbd_error *err)
{
    const struct myd_settings *cfg = &myd_cfg;
    for (int attempt = 1;; attempt++) {
        if ((c->mysql = mysql_init(NULL)) == NULL) {
            sbc_error(err, SBD_ERROR, 0, NULL, NULL, "mysql: out of memory");
            return -1;
        }
        if (set_options(c->mysql) != 0) {
            sbc_error(err, SBD_ERROR, 0, NULL, NULL,
                      "mysql: cannot set connection options for %s", where);
            return -1;
        }
        char *token = NULL; /* --mysql-password-command's output */
        if (cfg->pwcmd.command != NULL) {
            char msg[300];
            if ((token = sbc_pwcmd_get(&myd_cfg.pwcmd, msg, sizeof msg)) == NULL) {
                sbc_error(err, SBD_ERROR, 0, "08001", NULL, "%s", msg);
                return -1;
            }
        }
        MYSQL *up = myd_real_connect_timed(c->mysql, hostname, cfg->user,
                                           token != NULL ? token : cfg->password, cfg->db,
                                           port, cfg->sock_path, &c->phases);
        unsigned code = up == NULL ? mysql_errno(c->mysql) : 0;
        /* 1045 ER_ACCESS_DENIED_ERROR: the token may have rotated */
        int retry = code == 1045 && token != NULL &&
                    sbc_pwcmd_reject(&myd_cfg.pwcmd, token, attempt);
        if (up == NULL && !retry) {
            sbc_error(err, myd_classify(code, NULL), (long)code, mysql_sqlstate(c->mysql),
                      cfg->secret, "mysql: cannot connect to %s as user '%s'%s%s: %s", where,
                      cfg->user != NULL ? cfg->user : "", cfg->db != NULL ? ", database " : "",
                      cfg->db != NULL ? cfg->db : "", mysql_error(c->mysql));
            sbc_error_mask(err, token);
        }
        sbc_password_free(token); /* Connector/C keeps its own copy */
        if (up != NULL)
            return 0;
        if (!retry)
            return -1;
        mysql_close(c->mysql);
        c->mysql = NULL;
    }
}

/* On success *out is a new connection owned by the caller (free with
 * myd_disconnect); on failure *out is NULL and err says why. */
int myd_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    const struct myd_settings *cfg = &myd_cfg;
    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        sbc_error(err, SBD_ERROR, 0, NULL, NULL, "mysql: out of memory");
        return connect_failed(c, err);
    }
    const char *hostname = cfg->sock_path != NULL ? "localhost"
                           : cfg->host_from_file ? NULL : sbc_list_pick(&cfg->hosts, thread_id);
    unsigned port = cfg->port_from_file
                    ? 0 : (unsigned)strtoul(sbc_list_pick(&cfg->ports, thread_id), NULL, 10);
    char where[300];
    if (hostname == NULL || port == 0)
        snprintf(where, sizeof where, "the server of %.250s", cfg->defaults_file);
    else if (cfg->sock_path != NULL)
        snprintf(where, sizeof where, "socket %.250s", cfg->sock_path);
    else
        snprintf(where, sizeof where, "%.250s:%u", hostname, port);
    if (open_my(c, hostname, port, where, err) != 0)
        return connect_failed(c, err);
    myd_bulk_attach(c);
    if (cfg->ssl_mode >= MYD_SSL_REQUIRED && mysql_get_ssl_cipher(c->mysql) == NULL) {
        sbc_error(err, SBD_ERROR, 0, NULL, NULL,
                  "mysql: connected to %.300s without TLS although --mysql-ssl "
                  "requires it (does the server have TLS enabled?)", where);
        return connect_failed(c, err);
    }
    format_server_version(c);
    myd_wire_setup(c, cfg->wire);
    *out = c;
    return SBD_OK;
}

void myd_connect_phases(sbd_conn *c, struct sbd_connect_phases *out)
{
    *out = c->phases;
}

void myd_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
#ifdef MYD_NONBLOCK
    myd_async_free(c);
#endif
    myd_release_result(c);
    while (c->stmts != NULL)
        myd_close_stmt(c, c->stmts);
    myd_bulk_free(c);
    if (c->wire_execs > 0)
        myd_cfg.host->log(SBD_LOG_DEBUG, "%ld statements went over the wire protocol fast path",
                  c->wire_execs);
    myd_wire_free(&c->wire);
    mysql_close(c->mysql);
    free(c);
}

/* Owned by c, valid until the next call on c; never NULL. */
const struct sbd_error *myd_last_error(sbd_conn *c)
{
    return &c->err;
}

/* Static string; never fails. */
const char *myd_dialect(sbd_conn *c)
{
    (void)c;
    return "mysql";
}

/* Owned by c, set at connect; never NULL. */
const char *myd_server_version(sbd_conn *c)
{
    return c->server_version;
}
