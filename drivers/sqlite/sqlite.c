/*
 * SQLite driver (sbench-sqlite.so): sbench's embedded default database.
 *
 * One sqlite3 handle per connection, all on one database file, opened in
 * multi-thread mode (SQLITE_OPEN_NOMUTEX: the host uses each connection from
 * one thread at a time).  Writers on other connections are waited for with
 * sqlite3_busy_timeout; whatever still ends as SQLITE_BUSY or SQLITE_LOCKED
 * is reported as SBD_RETRY so the host reruns the transaction.
 *
 * Results are stepped lazily: query/execute step the first row (so errors
 * surface there) and fetch_row steps on.  Column values point into SQLite's
 * own row memory, valid until the next step, i.e. the next call on the
 * connection.  query() keeps a per-connection cache of prepared statements
 * keyed by the SQL bytes, so repeated texts (BEGIN, COMMIT, ...) are not
 * compiled again.  A bare "BEGIN" (or "START TRANSACTION") sent as SQL means
 * what --sqlite-begin says, like the driver's own begin().
 *
 * --sqlite-begin=auto (the default): a connection begins DEFERRED until one
 * of its transactions writes, then IMMEDIATE.  With two writers, a DEFERRED
 * transaction that reads first and writes later cannot upgrade its lock
 * while the other writes (SQLITE_BUSY at once, whatever the busy timeout),
 * so a read-write workload retried about a third of its transactions;
 * IMMEDIATE takes the write lock at BEGIN and waits for it.  Read-only
 * connections stay DEFERRED, so readers still run side by side.
 *
 * This file holds the driver table, the options and process setup (init
 * reads the options once into sqlite_cfg).  The other files:
 * sqlite_conn.c connections, sqlite_errors.c errors and their status,
 * sqlite_stmt.c queries, prepared statements, results and transactions,
 * sqlite_cache.c the per-connection cache of statements run as text,
 * sqlite_types.c values to and from SQLite, sqlite_bulk.c bulk load,
 * sqlite_int.h what they share.
 */
#include "sqlite_int.h"

#include <limits.h>
#include <stdio.h>
#include <strings.h>

struct sqlite_settings sqlite_cfg;

static const struct sbd_option sqlite_options[] = {
    {"sqlite-db", SBD_OPT_STRING, "sbtest.db", "path of the database file"},
    {"sqlite-journal-mode", SBD_OPT_STRING, "wal",
     "PRAGMA journal_mode: delete, truncate, persist, memory, wal, off"},
    {"sqlite-synchronous", SBD_OPT_STRING, "normal",
     "PRAGMA synchronous: off, normal, full, extra"},
    {"sqlite-busy-timeout", SBD_OPT_INT, "10000",
     "milliseconds to wait for a lock held by another connection"},
    {"sqlite-begin", SBD_OPT_STRING, "auto",
     "what BEGIN means: deferred, immediate, exclusive, or auto (deferred until the "
     "connection's transactions write, then immediate: no lock upgrades to retry)"},
    {NULL, 0, NULL, NULL}
};

/* -------------------------------------------------------------- lifetime */

static int sqlite_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    static const char *const journal_modes[] = {
        "delete", "truncate", "persist", "memory", "wal", "off", NULL};
    static const char *const sync_modes[] = {
        "off", "normal", "full", "extra", NULL};
    int ok = 0;

    sqlite_cfg.host = h;
    if (!sqlite3_threadsafe()) {
        snprintf(errbuf, errlen, "libsqlite3 was built without thread support");
        return SBD_ERROR;
    }
    sqlite_cfg.db_path = h->opt_str("sqlite-db");
    if (sqlite_cfg.db_path == NULL || sqlite_cfg.db_path[0] == 0) {
        snprintf(errbuf, errlen, "--sqlite-db must name a database file");
        return SBD_ERROR;
    }
    sqlite_cfg.journal_mode = h->opt_str("sqlite-journal-mode");
    for (int i = 0; sqlite_cfg.journal_mode && journal_modes[i]; i++)
        if (strcasecmp(sqlite_cfg.journal_mode, journal_modes[i]) == 0)
            ok = 1;
    if (!ok) {
        snprintf(errbuf, errlen, "--sqlite-journal-mode='%s' is not one of "
                 "delete, truncate, persist, memory, wal, off",
                 sqlite_cfg.journal_mode ? sqlite_cfg.journal_mode : "");
        return SBD_ERROR;
    }
    sqlite_cfg.synchronous = h->opt_str("sqlite-synchronous");
    ok = 0;
    for (int i = 0; sqlite_cfg.synchronous && sync_modes[i]; i++)
        if (strcasecmp(sqlite_cfg.synchronous, sync_modes[i]) == 0)
            ok = 1;
    if (!ok) {
        snprintf(errbuf, errlen, "--sqlite-synchronous='%s' is not one of "
                 "off, normal, full, extra", sqlite_cfg.synchronous ? sqlite_cfg.synchronous : "");
        return SBD_ERROR;
    }
    long long bt = h->opt_int("sqlite-busy-timeout");
    if (bt < 0 || bt > INT_MAX) {
        snprintf(errbuf, errlen, "--sqlite-busy-timeout must be between 0 and %d "
                 "milliseconds", INT_MAX);
        return SBD_ERROR;
    }
    sqlite_cfg.busy_timeout_ms = (int)bt;
    const char *b = h->opt_str("sqlite-begin");
    sqlite_cfg.begin_auto = b && strcasecmp(b, "auto") == 0;
    if (sqlite_cfg.begin_auto || (b && strcasecmp(b, "deferred") == 0))
        sqlite_cfg.begin_sql = "BEGIN DEFERRED";
    else if (b && strcasecmp(b, "immediate") == 0)
        sqlite_cfg.begin_sql = "BEGIN IMMEDIATE";
    else if (b && strcasecmp(b, "exclusive") == 0)
        sqlite_cfg.begin_sql = "BEGIN EXCLUSIVE";
    else {
        snprintf(errbuf, errlen, "--sqlite-begin='%s' is not one of auto, deferred, "
                 "immediate, exclusive", b ? b : "");
        return SBD_ERROR;
    }
    snprintf(sqlite_cfg.version, sizeof sqlite_cfg.version, "SQLite %s", sqlite3_libversion());
    return SBD_OK;
}

/* Static string, e.g. "SQLite 3.40.1". */
static const char *sqlite_client_version(void) { return sqlite_cfg.version; }

static const struct sbd_driver sqlite_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "sqlite",
    .description = "SQLite database file (embedded, the default)",
    .caps = SBD_CAP_PREPARED | SBD_CAP_BULK_LOAD,
    .options = sqlite_options,
    .init = sqlite_init,
    .client_version = sqlite_client_version,
    .connect = sqlite_connect,
    .disconnect = sqlite_disconnect,
    .last_error = sqlite_last_error,
    .dialect = sqlite_dialect,
    .server_version = sqlite_server_version,
    .query = sqlite_query,
    .fetch_row = sqlite_fetch_row,
    .field_name = sqlite_field_name,
    .free_result = sqlite_free_result,
    .prepare = sqlite_prepare,
    .execute = sqlite_execute,
    .close_stmt = sqlite_close_stmt,
    .begin = sqlite_begin,
    .commit = sqlite_commit,
    .rollback = sqlite_rollback,
    .bulk_begin = sqlite_bulk_begin,
    .bulk_row = sqlite_bulk_row,
    .bulk_end = sqlite_bulk_end,
};

/* Returns the driver's static description; never fails. */
SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &sqlite_driver;
}
