/*
 * What the binding reads of a connection (db.h's accessors): struct
 * sb_conn is private to core/ (db_int.h), so a binding depends on these
 * few calls and not on the facade's bookkeeping.
 */
#include "db_int.h"

const struct sbd_error *sb_conn_error(const struct sb_conn *c)
{
    return &c->err;
}

const char *sb_conn_error_sql(const struct sb_conn *c, size_t *len)
{
    *len = c->err_sql ? c->err_sql_len : 0;
    return c->err_sql;
}

uint64_t sb_conn_result_gen(const struct sb_conn *c)
{
    return c->result_gen;
}

int sb_conn_has_result(const struct sb_conn *c)
{
    return c->has_result;
}

const struct sbd_result_info *sb_conn_result_info(const struct sb_conn *c)
{
    return &c->info;
}

const struct sbd_value *sb_conn_row(const struct sb_conn *c)
{
    return c->row;
}

int sb_conn_pipelines(const struct sb_conn *c)
{
    return c->pipelines;
}

int sb_conn_outcome(const struct sb_conn *c)
{
    return c->done_rc;
}

int sb_conn_busy(const struct sb_conn *c)
{
    return c->n > 0 || c->first_rc != SBD_OK;
}

const char *sb_conn_dialect(const struct sb_conn *c)
{
    return c->dc ? c->drv->dialect(c->dc) : "ansi";
}

const char *sb_conn_server_version(const struct sb_conn *c)
{
    return c->dc && c->drv->server_version ? c->drv->server_version(c->dc) : "";
}

int sb_conn_bulk_inserting(const struct sb_conn *c)
{
    return c->bulk_active;
}

const int *sb_conn_bulk_load_types(const struct sb_conn *c, int *ncols)
{
    *ncols = c->bl_active ? c->bl_ncols : 0;
    return c->bl_active ? c->bl_types : NULL;
}
