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
 *
 * This file holds the driver table, the options and process setup
 * (init/done): init checks the options, has the connection string built
 * once into odbc_cfg (odbc_connstr_build) and allocates the ODBC
 * environment.  The other files: odbc_conn.c
 * connection strings, password masking and connections, odbc_errors.c
 * diagnostics and their classification, odbc_stmt.c queries, prepared
 * statements and results, odbc_types.c type mapping, odbc_txn.c
 * transactions, odbc_bulk.c bulk load through parameter arrays,
 * odbc_int.h what they share.
 */
#include "odbc_int.h"
#include "../common/password.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef SBD_ODBC_DM_BUILD_VERSION
#define SBD_ODBC_DM_BUILD_VERSION "2"
#endif

struct odbc_settings odbc_cfg = {
    .warned_unknown = ATOMIC_FLAG_INIT,
    .warned_timeout = ATOMIC_FLAG_INIT,
};
static char client_ver[128];

static const struct sbd_option odbc_options[] = {
    {"odbc-dsn", SBD_OPT_STRING, NULL,
     "ODBC data source name (odbc.ini section); this or --odbc-connstr"},
    {"odbc-connstr", SBD_OPT_STRING, NULL,
     "full ODBC connection string, e.g. 'Driver=X;Server=h;Database=d;'"},
    {"odbc-user", SBD_OPT_STRING, NULL, "user name, appended as UID="},
    {"odbc-password", SBD_OPT_SECRET, NULL, "password, appended as PWD="},
    {"odbc-password-file", SBD_OPT_STRING, NULL,
     "file whose first line is the password"},
    {"odbc-password-command", SBD_OPT_STRING, NULL,
     "command (run by /bin/sh) whose output's first line is the password, "
     "appended as PWD= at each new connection (see --password-ttl)"},
    {"password-ttl", SBD_OPT_INT, "0",
     "seconds new connections reuse a password command's output (0: the "
     "command runs at every connection)"},
    {NULL, 0, NULL, NULL}
};

/* Value of a driver option, NULL when unset or empty; owned by the host
 * for the whole run. */
static const char *opt(const char *name)
{
    const char *v = odbc_cfg.host->opt_str(name);
    return v && *v ? v : NULL;
}

static void odbc_done(void)
{
    if (odbc_cfg.env != SQL_NULL_HENV)
        SQLFreeHandle(SQL_HANDLE_ENV, odbc_cfg.env);
    odbc_cfg.env = SQL_NULL_HENV;
    sbc_password_free(odbc_cfg.conn_str); /* holds the password: wiped */
    free(odbc_cfg.conn_str_masked);
    odbc_cfg.conn_str = odbc_cfg.conn_str_masked = NULL;
    odbc_forget_secrets();
    sbc_pwcmd_free(&odbc_cfg.pwcmd);
}

static int odbc_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    odbc_cfg.host = h;
    atomic_flag_clear(&odbc_cfg.warned_unknown);
    atomic_flag_clear(&odbc_cfg.warned_timeout);

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
    if (sbc_pwcmd_init(&odbc_cfg.pwcmd, h, "odbc", pw != NULL, errbuf, errlen) != 0) {
        sbc_password_free(pw);
        return SBD_ERROR;
    }
    int st = odbc_connstr_build(dsn, cs, user, pw, errbuf, errlen);
    sbc_password_free(pw);
    if (st != SBD_OK)
        return st;

    SQLRETURN rc = SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &odbc_cfg.env);
    if (!SQL_SUCCEEDED(rc)) {
        snprintf(errbuf, errlen, "cannot allocate an ODBC environment handle");
        return SBD_ERROR;
    }
    rc = SQLSetEnvAttr(odbc_cfg.env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER)(uintptr_t)SQL_OV_ODBC3, 0);
    if (!SQL_SUCCEEDED(rc)) {
        struct sbd_error e;
        odbc_diag(&e, SQL_HANDLE_ENV, odbc_cfg.env, rc, NULL, "cannot select ODBC 3");
        snprintf(errbuf, errlen, "%s", e.message);
        return SBD_ERROR;
    }

    /* Driver manager version: asked of an unconnected connection handle. */
    snprintf(client_ver, sizeof client_ver, "unixODBC %s", SBD_ODBC_DM_BUILD_VERSION);
    SQLHDBC dbc;
    if (SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_DBC, odbc_cfg.env, &dbc))) {
        char ver[64] = "";
        SQLSMALLINT len = 0;
        if (SQL_SUCCEEDED(SQLGetInfo(dbc, SQL_DM_VER, ver, sizeof ver, &len)) && ver[0])
            snprintf(client_ver, sizeof client_ver, "unixODBC %s (DM %s)",
                     SBD_ODBC_DM_BUILD_VERSION, ver);
        SQLFreeHandle(SQL_HANDLE_DBC, dbc);
    }
    odbc_cfg.host->log(SBD_LOG_DEBUG, "connection string: %s", odbc_cfg.conn_str_masked);
    return SBD_OK;
}

/* "unixODBC VERSION (DM x.y)": static storage, never NULL. */
static const char *odbc_client_version(void)
{
    return client_ver[0] ? client_ver : "unixODBC " SBD_ODBC_DM_BUILD_VERSION;
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
    .field_name = odbc_field_name,
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
