/*
 * sqlite driver: bulk load for `prepare` through one prepared INSERT
 * stepped per row.  Outside a transaction of the host's, the load runs in
 * its own (BEGIN IMMEDIATE), committed every BULK_COMMIT_ROWS rows.
 */
#include "sqlite_int.h"
#include "../common/insert.h"

#include <stdlib.h>

#define BULK_COMMIT_ROWS 50000

int sqlite_bulk_begin(sbd_conn *c, const char *table,
                      const char *const *columns, const int *types,
                      int ncolumns)
{
    (void)types;
    sqlite_finish_current(c);
    if (c->bulk != NULL)
        return sqlite_driver_error(c, "bulk load already in progress");
    if (ncolumns <= 0)
        return sqlite_driver_error(c, "bulk load needs at least one column");
    char *sql = sbc_insert_sql(table, columns, ncolumns);
    if (sql == NULL)
        return sqlite_driver_error(c, "out of memory");

    int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                &c->bulk, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
        c->bulk = NULL;
        return sqlite_error(c, rc);
    }
    c->bulk_ncols = ncolumns;
    c->bulk_rows = 0;
    c->bulk_failed = 0;
    /* Inside a transaction of the host's, load into it and leave it open. */
    c->bulk_own_txn = sqlite3_get_autocommit(c->db);
    if (c->bulk_own_txn) {
        rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            int status = sqlite_error(c, rc);
            sqlite3_finalize(c->bulk);
            c->bulk = NULL;
            return status;
        }
    }
    return SBD_OK;
}

int sqlite_bulk_row(sbd_conn *c, const struct sbd_value *values)
{
    if (c->bulk == NULL)
        return sqlite_driver_error(c, "bulk_row without bulk_begin");
    if (c->bulk_failed)
        return sqlite_driver_error(c, "bulk load aborted by an earlier error");
    /* Stepped and reset right here, so binding STATIC needs no copy. */
    int status = sqlite_bind_values(c, c->bulk, values, c->bulk_ncols, NULL);
    if (status != SBD_OK)
        return status;
    int rc = sqlite3_step(c->bulk);
    status = rc == SQLITE_DONE ? SBD_OK : sqlite_error(c, rc);
    sqlite3_reset(c->bulk);
    if (status != SBD_OK)
        return status;
    if (c->bulk_own_txn && ++c->bulk_rows % BULK_COMMIT_ROWS == 0) {
        rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            c->bulk_failed = 1;
            return sqlite_error(c, rc);
        }
    }
    return SBD_OK;
}

int sqlite_bulk_end(sbd_conn *c)
{
    if (c->bulk == NULL)
        return sqlite_driver_error(c, "bulk_end without bulk_begin");
    sqlite3_finalize(c->bulk);
    c->bulk = NULL;
    if (!c->bulk_own_txn || sqlite3_get_autocommit(c->db))
        return c->bulk_failed ? sqlite_driver_error(c, "bulk load aborted") : SBD_OK;
    int rc = sqlite3_exec(c->db, c->bulk_failed ? "ROLLBACK" : "COMMIT",
                          NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int status = sqlite_error(c, rc);
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return status;
    }
    return c->bulk_failed ? sqlite_driver_error(c, "bulk load aborted") : SBD_OK;
}

