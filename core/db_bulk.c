/*
 * Bulk loads of the connection facade (see db.h): sysbench's
 * bulk_insert_init/next/done (multi-row INSERTs of at most --db-bulk-bytes)
 * and bulk_load_* for prepare (the driver's native load when it has one,
 * such as COPY or LOAD DATA LOCAL; multi-row INSERTs of literals
 * otherwise).  The INSERTs go through sb_conn_submit like any statement.
 */
#include "db_int.h"

#include <stdio.h>
#include <string.h>

int sb_conn_bulk_insert_init(struct sb_conn *c, const char *prefix, size_t len)
{
    if (sb_db_grow(&c->bulk, &c->bulk_cap, (size_t)sb_db_bulk_max() + len + 1024) != 0)
        return SBD_ERROR;
    memcpy(c->bulk, prefix, len);
    c->bulk_prefix_len = c->bulk_len = len;
    c->bulk_rows = 0;
    c->bulk_active = 1;
    return SBD_OK;
}

static int bulk_flush(struct sb_conn *c)
{
    if (c->bulk_rows == 0)
        return SBD_OK;
    struct sb_req r = sb_req_query(c->bulk, c->bulk_len);
    r.kind = SB_Q_INSERT;
    int rc = sb_conn_submit(c, &r, 0, NULL);
    c->bulk_len = c->bulk_prefix_len;
    c->bulk_rows = 0;
    if (rc == SBD_OK)
        sb_conn_free_result(c);
    return rc;
}

int sb_conn_bulk_insert_next(struct sb_conn *c, const char *values, size_t len)
{
    if (c->bulk_rows > 0 && c->bulk_len + len + 1 > (size_t)sb_db_bulk_max()) {
        int rc = bulk_flush(c);
        if (rc != SBD_OK)
            return rc;
    }
    if (sb_db_grow(&c->bulk, &c->bulk_cap, c->bulk_len + len + 2) != 0)
        return SBD_ERROR;
    if (c->bulk_rows > 0)
        c->bulk[c->bulk_len++] = ',';
    memcpy(c->bulk + c->bulk_len, values, len);
    c->bulk_len += len;
    c->bulk_rows++;
    return SBD_OK;
}

int sb_conn_bulk_insert_done(struct sb_conn *c)
{
    c->bulk_active = 0;
    return bulk_flush(c);
}

static int driver_error(struct sb_conn *c, int rc)
{
    if (rc != SBD_OK && c->dc) {
        c->err = *c->drv->last_error(c->dc);
        c->err.status = rc;
        c->err_sql = NULL;
    }
    return rc;
}

int sb_conn_bulk_load_begin(struct sb_conn *c, const char *table, const char *const *cols,
                            const int *types, int ncols)
{
    if (ncols <= 0 || ncols > 32) {
        snprintf(c->err.message, sizeof c->err.message, "bulk load needs 1 to 32 columns");
        return SBD_ERROR;
    }
    if (c->dc == NULL) {
        snprintf(c->err.message, sizeof c->err.message, "not connected");
        c->err.status = SBD_CONN_LOST;
        return SBD_CONN_LOST;
    }
    c->bl_ncols = ncols;
    memcpy(c->bl_types, types, sizeof(int) * (size_t)ncols);
    c->bl_native = (c->drv->caps & SBD_CAP_BULK_LOAD) != 0;
    c->bl_active = 1;
    int rc = sb_conn_drain(c);
    if (rc != SBD_OK)
        return rc;
    if (c->bl_native) {
        sb_conn_free_result(c);
        return driver_error(c, c->drv->bulk_begin(c->dc, table, cols, types, ncols));
    }
    char prefix[2048];
    size_t n = (size_t)snprintf(prefix, sizeof prefix, "INSERT INTO %s (", table);
    for (int i = 0; i < ncols && n < sizeof prefix - 100; i++)
        n += (size_t)snprintf(prefix + n, sizeof prefix - n, "%s%s", i ? ", " : "", cols[i]);
    n += (size_t)snprintf(prefix + n, sizeof prefix - n, ") VALUES ");
    return sb_conn_bulk_insert_init(c, prefix, n);
}

int sb_conn_bulk_load_row(struct sb_conn *c, const struct sbd_value *vals)
{
    SB_ADD(c->stats->loaded_rows, 1);
    if (c->bl_native)
        return driver_error(c, c->drv->bulk_row(c->dc, vals));
    size_t pos = 0;
    if (sb_db_grow(&c->sql, &c->sql_cap, 2) != 0)
        return SBD_ERROR;
    c->sql[pos++] = '(';
    for (int i = 0; i < c->bl_ncols; i++) {
        if (i) {
            if (sb_db_grow(&c->sql, &c->sql_cap, pos + 2) != 0)
                return SBD_ERROR;
            c->sql[pos++] = ',';
        }
        if (sb_db_append_literal(c, &pos, &vals[i]) != 0)
            return SBD_ERROR;
    }
    if (sb_db_grow(&c->sql, &c->sql_cap, pos + 2) != 0)
        return SBD_ERROR;
    c->sql[pos++] = ')';
    return sb_conn_bulk_insert_next(c, c->sql, pos);
}

int sb_conn_bulk_load_end(struct sb_conn *c)
{
    if (!c->bl_active)
        return SBD_OK;
    c->bl_active = 0;
    if (c->bl_native)
        return driver_error(c, c->drv->bulk_end(c->dc));
    return sb_conn_bulk_insert_done(c);
}
