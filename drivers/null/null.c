/*
 * null driver: a whole plugin that needs no database, so the core (run
 * loop, statement path, --clients, --pipeline, Lua binding, statistics,
 * reports, retries and reconnects) can be tested and profiled without a
 * server.  It is the reference implementation of the driver ABI's
 * capabilities but one: blocking, prepared and streamed statements here,
 * nonblocking and pipelined ones in null_async.c, host I/O (the host moves
 * the bytes: sbench's io_uring loop) in null_hostio.c with its server
 * thread in null_hostsrv.c, and server counters
 * from the model server in null_server.c, which says what each statement
 * answers.  It has
 * no bulk load (SBD_CAP_BULK_LOAD): a workload's prepare falls back to
 * multi-row INSERTs on it, as on any driver without one.
 *
 * Options: --null-rows (rows of a SELECT), --null-delay-us (time each
 * answer takes, for blocking calls too), --null-slots (N slots shared by
 * all connections: a server of known capacity), --null-fail-every and
 * --null-fail-status (deterministic injected failures: retry, error or a
 * lost connection), --null-fail-connect (refuse every connection).  The
 * environment's SBENCH_NULL_SERVER_DELAY_US is the model server's own
 * setting (it replaces --null-delay-us and shows in the server's
 * version): a server changed behind a benchmark whose options stay.
 */
#include "null_int.h"
#include "common/error.h"
#include "common/value.h"

#include <stdlib.h>

static const struct sbd_option null_options[] = {
    {"null-rows", SBD_OPT_INT, "1", "rows each SELECT returns (SELECT <integer> returns that number)"},
    {"null-delay-us", SBD_OPT_INT, "0",
     "each answer is ready this many microseconds after the previous one (or after its "
     "statement was sent, whichever is later); blocking calls wait as long"},
    {"null-slots", SBD_OPT_INT, "0",
     "the server runs at most N statements at once, over all connections (each takes "
     "--null-delay-us): a server of known capacity, N / delay statements a second; 0 = no limit"},
    {"null-fail-every", SBD_OPT_INT, "0",
     "the Nth, 2Nth, ... statement of each connection fails (BEGIN, COMMIT and ROLLBACK "
     "excepted; a new connection counts from 0); 0 = never"},
    {"null-fail-status", SBD_OPT_STRING, "retry",
     "how --null-fail-every fails: retry (SQLSTATE 40001), error (23505) or lost (the "
     "connection is gone, 08006)"},
    {"null-fail-connect", SBD_OPT_BOOL, "off",
     "refuse every connection (for testing error paths)"},
    {"null-dialect", SBD_OPT_STRING, "ansi",
     "SQL dialect the connections report, so workloads write that dialect's SQL (--mysql-dry-run "
     "sets mysql)"},
    {NULL, 0, NULL, NULL}
};

static int null_init(const struct sbd_host *h, char *errbuf, size_t errlen)
{
    return null_config_read(h, errbuf, errlen);
}

static const char *null_client_version(void) { return "null 2"; }

static int null_connect(int thread_id, sbd_conn **out, struct sbd_error *err)
{
    (void)thread_id;
    *out = NULL;
    if (null_cfg.host->opt_bool("null-fail-connect"))
        return sbc_error(err, SBD_ERROR, 0, "08001", NULL,
                         "null driver: connection refused (--null-fail-connect)");
    sbd_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return sbc_error(err, SBD_ERROR, 0, NULL, NULL, "out of memory");
    null_hio_init(c);
    if (null_async_open(c, err) != SBD_OK) {
        free(c);
        return SBD_ERROR;
    }
    *out = c;
    return SBD_OK;
}

static void null_disconnect(sbd_conn *c)
{
    if (c == NULL)
        return;
    null_end_session(c);
    while (c->stmts != NULL) { /* its statements go with it */
        sbd_stmt *s = c->stmts;
        c->stmts = s->next;
        free(s);
    }
    null_hio_close(c);
    null_async_close(c);
    free(c);
}

static const struct sbd_error *null_last_error(sbd_conn *c) { return &c->err; }

static const char *null_dialect(sbd_conn *c)
{
    (void)c;
    const char *d = null_cfg.host->opt_str("null-dialect");
    return d && *d ? d : "ansi";
}

static const char *null_server_version(sbd_conn *c) { (void)c; return null_cfg.server_version; }

/* Why a blocking call may not run now, or NULL when it may. */
static const char *busy(const sbd_conn *c)
{
    if (c->qn > 0 || null_hio_busy(c))
        return "a blocking call while statements are in flight";
    if (c->streaming)
        return "a call while a streamed result is being read (fetch_row to SBD_DONE or free_result first)";
    if (c->pipeline)
        return "a blocking call in pipeline mode";
    return NULL;
}

/* Every blocking statement: served, then waited for like its answer. */
static int run_blocking(sbd_conn *c, const struct null_sql *s, struct sbd_result_info *info)
{
    const char *why = busy(c);
    if (why)
        return null_misuse(c, why);
    struct null_answer a;
    null_serve(c, s, &a);
    null_wait_until(null_next_ready(c));
    return null_deliver(c, &a, info);
}

static int null_query(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    struct null_sql s = null_parse(sql, len);
    return run_blocking(c, &s, info);
}

/* A streamed result (ABI 1.3): the rows come as fetch_row asks (the model
 * server makes them then), the count is not known ahead (nrows -1), and
 * until the last row or free_result the connection takes nothing else. */
static int null_query_stream(sbd_conn *c, const char *sql, size_t len, struct sbd_result_info *info)
{
    int rc = null_query(c, sql, len, info);
    if (rc == SBD_OK && info->nfields > 0) {
        info->nrows = -1;
        c->streaming = 1;
    }
    return rc;
}

static int null_execute(sbd_conn *c, sbd_stmt *s, const struct sbd_value *p, int n,
                        struct sbd_result_info *info)
{
    (void)p; (void)n;
    return run_blocking(c, &s->sql, info);
}

static int null_fetch_row(sbd_conn *c, struct sbd_value *row)
{
    if ((c->qn > 0 && !c->pipeline) || null_hio_busy(c))
        return null_misuse(c, "fetch_row while a statement is in flight");
    if (c->rows_left <= 0) {
        c->streaming = 0;
        return SBD_DONE;
    }
    c->rows_left--;
    sbc_value_reset(&row[0], SBD_TYPE_INT, 0);
    row[0].i = c->next_value++;
    return SBD_OK;
}

static void null_free_result(sbd_conn *c)
{
    if ((c->qn > 0 && !c->pipeline) || null_hio_busy(c))
        null_cfg.host->log(SBD_LOG_ERROR, "free_result while a statement is in flight "
                           "(the host broke a rule of driver.h)");
    c->rows_left = 0;
    c->streaming = 0;
}

/* Prepares on the server: no statement, nothing counted. */
static int null_prepare(sbd_conn *c, const char *sql, size_t len, int nparams,
                        const int *types, sbd_stmt **out)
{
    (void)nparams; (void)types;
    *out = NULL;
    const char *why = busy(c);
    if (why)
        return null_misuse(c, why);
    if (c->lost) {
        struct null_answer a;
        struct sbd_result_info info;
        null_serve(c, &(struct null_sql){NK_OTHER, 0, 0}, &a);
        return null_deliver(c, &a, &info);
    }
    sbd_stmt *s = malloc(sizeof *s);
    if (s == NULL)
        return null_misuse(c, "out of memory for a prepared statement");
    s->sql = null_parse(sql, len);
    s->next = c->stmts;
    c->stmts = s;
    *out = s;
    return SBD_OK;
}

static void null_close_stmt(sbd_conn *c, sbd_stmt *s)
{
    const char *why = busy(c);
    if (why)
        null_cfg.host->log(SBD_LOG_ERROR, "close_stmt: %s (the host broke a rule of driver.h)", why);
    sbd_stmt **p = &c->stmts; /* a few per connection; not on the statement path */
    while (*p != NULL && *p != s)
        p = &(*p)->next;
    if (*p == s)
        *p = s->next;
    free(s);
}

/* The process is done with the driver: the host I/O's server thread ends. */
static void null_done(void)
{
    null_hsrv_stop();
}

static const struct sbd_driver null_driver = {
    .struct_size = sizeof(struct sbd_driver),
    .abi_major = SBD_ABI_MAJOR,
    .abi_minor = SBD_ABI_MINOR,
    .name = "null",
    .description = "does nothing, answers like a server; for testing sbench itself",
    .caps = SBD_CAP_PREPARED | SBD_CAP_NONBLOCKING | SBD_CAP_PIPELINE | SBD_CAP_SERVER_COUNTERS |
            SBD_CAP_STREAM | SBD_CAP_HOST_IO,
    .options = null_options,
    .init = null_init,
    .done = null_done,
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
    .server_counters = null_server_counters,
    .socket = null_socket,
    .send_query = null_send_query,
    .send_execute = null_send_execute,
    .poll_result = null_poll_result,
    .pipeline = null_pipeline,
    .query_stream = null_query_stream,
    .host_io = null_host_io,
    .io_want = null_io_want,
    .io_done = null_io_done,
};

SBD_EXPORT const struct sbd_driver *SBD_ENTRY(void)
{
    return &null_driver;
}
