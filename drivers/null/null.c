/*
 * null driver: accepts every statement and does nothing, so the core (run
 * loop, Lua binding, statistics, reports) can be tested and profiled without
 * a database.  SELECTs return --null-rows rows of one integer column.  Also
 * the smallest complete example of the driver ABI.
 */
#include <sbench/driver.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sbd_conn {
    struct sbd_error err;
    int64_t rows_left;
    int64_t next_value;
};

struct sbd_stmt {
    int is_select;
};

static const struct sbd_host *host;
static long long rows_per_select;

static const struct sbd_option null_options[] = {
    {"null-rows", SBD_OPT_INT, "1", "rows each SELECT returns"},
    {"null-fail-connect", SBD_OPT_BOOL, "off",
     "refuse every connection (for testing error paths)"},
    {NULL, 0, NULL, NULL}
};

static int is_select(const char *sql, size_t len)
{
    while (len > 0 && (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '(')) {
        sql++;
        len--;
    }
    return len >= 6 && strncasecmp(sql, "select", 6) == 0;
}

static int null_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    host = h;
    rows_per_select = h->opt_int("null-rows");
    if (rows_per_select < 0) {
        snprintf(errbuf, errlen, "--null-rows must be >= 0");
        return SBD_ERROR;
    }
    return SBD_OK;
}

static const char *null_client_version(void) { return "null 1"; }

static int null_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    (void)thread_id;
    *out = NULL;
    if (host->opt_bool("null-fail-connect")) {
        err->status = SBD_ERROR;
        err->native_code = 0;
        strcpy(err->sqlstate, "08001");
        snprintf(err->message, sizeof err->message,
                 "null driver: connection refused (--null-fail-connect)");
        return SBD_ERROR;
    }
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        err->status = SBD_ERROR;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SBD_ERROR;
    }
    *out = c;
    return SBD_OK;
}

static void null_disconnect(sbd_conn *c) { free(c); }

static const struct sbd_error *null_last_error(sbd_conn *c) { return &c->err; }

static const char *null_dialect(sbd_conn *c) { (void)c; return "ansi"; }

static const char *null_server_version(sbd_conn *c) { (void)c; return "null"; }

static void start_result(sbd_conn *c, int select, struct sbd_result_info *info)
{
    c->rows_left = select ? rows_per_select : 0;
    c->next_value = 1;
    info->affected_rows = select ? 0 : 1;
    info->nrows = c->rows_left;
    info->nfields = select ? 1 : 0;
}

static int null_query(sbd_conn *c, const char *sql, size_t len,
                      struct sbd_result_info *info)
{
    start_result(c, is_select(sql, len), info);
    return SBD_OK;
}

static int null_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if (c->rows_left <= 0)
        return SBD_DONE;
    c->rows_left--;
    row[0].type = SBD_TYPE_INT;
    row[0].is_null = 0;
    row[0].i = c->next_value++;
    return SBD_OK;
}

static void null_free_result(sbd_conn *c) { c->rows_left = 0; }

static int null_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                        const int *types, sbd_stmt **out)
{
    (void)c; (void)nparams; (void)types;
    sbd_stmt *s = malloc(sizeof *s);
    if (s == NULL)
        return SBD_ERROR;
    s->is_select = is_select(sql, len);
    *out = s;
    return SBD_OK;
}

static int null_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *p,
                        int n, struct sbd_result_info *info)
{
    (void)p; (void)n;
    start_result(c, s->is_select, info);
    return SBD_OK;
}

static void null_close_stmt(sbd_conn *c, sbd_stmt *s) { (void)c; free(s); }

static const struct sbd_driver null_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "null",
    .description = "does nothing; for testing sbench itself",
    .caps = SBD_CAP_PREPARED,
    .options = null_options,
    .init = null_init,
    .client_version = null_client_version,
    .connect = null_connect,
    .disconnect = null_disconnect,
    .last_error = null_last_error,
    .dialect = null_dialect,
    .server_version = null_server_version,
    .query = null_query,
    .fetch_row = null_fetch_row,
    .free_result = null_free_result,
    .prepare = null_prepare,
    .execute = null_execute,
    .close_stmt = null_close_stmt,
};

SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &null_driver;
}
