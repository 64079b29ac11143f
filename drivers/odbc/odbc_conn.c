/*
 * odbc driver: connection strings and connections.
 * odbc_connstr_build (called once by init, odbc.c) builds the connection
 * string and records every password it knows of (odbc_secrets.c scrubs
 * them from messages).  connect opens a
 * connection with the string, names its dialect from the DBMS name and
 * allocates its statement handle for plain queries; disconnect frees
 * everything the connection owns.
 */
#include "odbc_int.h"
#include "../common/buf.h"
#include "../common/error.h"
#include "../common/password.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* Small string builder, used only outside the hot path.               */

/* Zero-initialised is empty; after a failed allocation oom is set and adds
 * do nothing.  p (NULL until something was added) is owned by the caller
 * (free). */
struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
};

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    char *p = sbc_grow(b->p, &b->cap, b->len + n + 1, 1, 128);
    if (p == NULL) {
        b->oom = 1;
        return;
    }
    b->p = p;
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
            odbc_secret_add(v.p);
        free(v.p);
    }
}

/* ------------------------------------------------------------------ */
/* The connection string.                                              */

int odbc_connstr_build(const char *dsn, const char *cs, const char *user, const char *pw,
                       char *errbuf, size_t errlen)
{
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
        odbc_secret_add(sbc_secret(pw, names)); /* not when it is also the user or DSN */
    }
    if (b.oom || b.p == NULL) {
        free(b.p);
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }
    odbc_cfg.conn_str = b.p;
    size_t mcap = b.len + 16;
    odbc_cfg.conn_str_masked = malloc(mcap);
    if (odbc_cfg.conn_str_masked == NULL) {
        snprintf(errbuf, errlen, "out of memory");
        return SBD_ERROR;
    }
    odbc_mask_pwd(odbc_cfg.conn_str, odbc_cfg.conn_str_masked, mcap);
    /* end with ';' so that text after it in a message is never taken for
     * part of a masked value when messages are scrubbed again */
    size_t ml = strlen(odbc_cfg.conn_str_masked);
    if (ml > 0 && odbc_cfg.conn_str_masked[ml - 1] != ';' && ml + 2 <= mcap)
        memcpy(odbc_cfg.conn_str_masked + ml, ";", 2);
    return SBD_OK;
}

/* ------------------------------------------------------------------ */
/* Connections.                                                        */

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

void odbc_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
    if (c->cur)
        SQLFreeStmt(c->cur, SQL_CLOSE);
    odbc_bulk_free(c);
    for (struct sbc_link *l; (l = sbc_link_pop(&c->stmts)) != NULL;)
        odbc_stmt_free((sbd_stmt *)l);
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

/* The connection string of a new connection: odbc_cfg.conn_str, with
 * PWD= the output of --odbc-password-command when it is given (*own: a
 * string to wipe and free, NULL when conn_str itself is used; *token: the
 * password, to mask in errors and free).  NULL with err filled when the
 * command fails. */
static const char *connect_string(char **own, char **token, struct sbd_error *err)
{
    *own = *token = NULL;
    if (odbc_cfg.pwcmd.command == NULL)
        return odbc_cfg.conn_str;
    char msg[300];
    if ((*token = sbc_pwcmd_get(&odbc_cfg.pwcmd, msg, sizeof msg)) == NULL) {
        odbc_set_error(err, SBD_ERROR, msg);
        return NULL;
    }
    struct sbuf b = {0};
    sb_add(&b, odbc_cfg.conn_str);
    if (b.len > 0 && b.p[b.len - 1] != ';')
        sb_add(&b, ";");
    sb_add_kv(&b, "PWD", *token);
    if (b.oom || b.p == NULL) {
        sbc_password_free(b.p);
        sbc_password_free(*token);
        *token = NULL;
        odbc_set_error(err, SBD_ERROR, "out of memory");
        return NULL;
    }
    return *own = b.p;
}

int odbc_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    (void)thread_id;
    *out = NULL;
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return odbc_set_error(err, SBD_ERROR, "out of memory");
    SQLRETURN rc = SQLAllocHandle(SQL_HANDLE_DBC, odbc_cfg.env, &c->dbc);
    if (!SQL_SUCCEEDED(rc)) {
        odbc_diag(err, SQL_HANDLE_ENV, odbc_cfg.env, rc, NULL, "cannot allocate a connection handle");
        err->status = SBD_ERROR;
        c->dbc = SQL_NULL_HDBC;
        odbc_disconnect(c);
        return SBD_ERROR;
    }
    if (odbc_cfg.host->connect_timeout > 0)
        SQLSetConnectAttr(c->dbc, SQL_ATTR_LOGIN_TIMEOUT,
                          (SQLPOINTER)(uintptr_t)odbc_cfg.host->connect_timeout, 0);
    char *own, *token;
    const char *cs = connect_string(&own, &token, err);
    rc = cs != NULL ? SQLDriverConnect(c->dbc, NULL, (SQLCHAR *)cs, SQL_NTS, NULL, 0, NULL,
                                       SQL_DRIVER_NOPROMPT)
                    : SQL_ERROR;
    sbc_password_free(own);
    if (cs != NULL && !SQL_SUCCEEDED(rc)) {
        char what[300];
        snprintf(what, sizeof what, "cannot connect to %.250s", odbc_cfg.conn_str_masked);
        odbc_diag(err, SQL_HANDLE_DBC, c->dbc, rc, NULL, what);
        sbc_error_mask(err, token);
    }
    sbc_password_free(token);
    if (!SQL_SUCCEEDED(rc)) {
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
        if (!atomic_flag_test_and_set(&odbc_cfg.warned_unknown))
            odbc_cfg.host->log(SBD_LOG_WARN, "unknown database '%s': using ANSI SQL",
                      name[0] ? name : "?");
    }
    if (odbc_alloc_stmt(c, &c->qh) != SBD_OK) {
        *err = c->err;
        err->status = SBD_ERROR;
        odbc_disconnect(c);
        return SBD_ERROR;
    }
    *out = c;
    return SBD_OK;
}

/* The connection's last error: owned by c, never NULL. */
const struct sbd_error *odbc_last_error(sbd_conn *c) { return &c->err; }

/* Static string, never NULL. */
const char *odbc_dialect(sbd_conn *c) { return c->dialect; }

/* "DBMS-name DBMS-version": owned by c, never NULL. */
const char *odbc_server_version(sbd_conn *c) { return c->server_version; }

