/*
 * The server's own counters and settings around a run (server_stats.h),
 * and whether the counters started again from zero in between (a server
 * restart, a statistics reset).
 */
#include "server_stats.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../lib/text.h"
#include "clock.h"
#include "db_int.h"
#include "script.h"

/* A column of the origin query as a non-negative integer, or -1. */
static int64_t value_i64(const struct sbd_value *v)
{
    int64_t x;
    if (v->is_null)
        return -1;
    if (v->type == SBD_TYPE_INT)
        return v->i >= 0 ? v->i : -1;
    if (v->s == NULL || sbc_text_to_i64(v->s, v->len, &x) != 0 || x < 0)
        return -1;
    return x;
}

/* A query on the counters' connection, outside the driver's counts, whose
 * answer is two columns: PostgreSQL's one row of two counts (nx NULL:
 * into x and y), or MariaDB's SHOW STATUS rows (name, value) where the
 * rows named nx and ny (NULL: none) give x and y.  -1 for NULL, absent or
 * not a count.  Returns 1 when the server answered that shape. */
static int two_values(const struct sbd_driver *d, sbd_conn *dc, const char *sql, const char *nx,
                      const char *ny, int64_t *x, int64_t *y)
{
    struct sbd_result_info info;
    struct sbd_value row[2];
    int rows = 0, rc = SBD_ERROR;
    *x = *y = -1;
    if (d->query(dc, sql, strlen(sql), &info) != SBD_OK)
        return 0;
    while (info.nfields == 2 && rows < 16 && (rc = d->fetch_row(dc, row)) == SBD_OK) {
        rows++;
        const char *name = row[0].is_null || row[0].s == NULL ? "" : row[0].s;
        size_t len = row[0].is_null || row[0].s == NULL ? 0 : row[0].len;
        if (nx == NULL) {
            *x = value_i64(&row[0]);
            *y = value_i64(&row[1]);
        } else if (len == strlen(nx) && strncasecmp(name, nx, len) == 0) {
            *x = value_i64(&row[1]);
        } else if (ny != NULL && len == strlen(ny) && strncasecmp(name, ny, len) == 0) {
            *y = value_i64(&row[1]);
        }
    }
    d->free_result(dc);
    return info.nfields == 2 && rows > 0 && rc == SBD_DONE && (nx != NULL || rows == 1);
}

/* When the counters last started from zero, as an interval of the
 * monotonic clock [lo, hi] (MariaDB: from its Uptime, in whole seconds) or
 * as the server's own timestamp of its last statistics reset (PostgreSQL:
 * lo == hi, microseconds).
 * Run outside the window the counters cover (before the first read, after
 * the last), so that its statement is not in the run's counts. */
static void read_origin(struct sb_run *run, struct sb_server_watch *w, struct sb_counters_origin *o)
{
    const struct sbd_driver *d = run->drv;
    o->known = 0;
    if (w->reader == NULL || w->reader->dc == NULL)
        return;
    const char *dialect = d->dialect(w->reader->dc);
    int64_t a, b;
    if (strcmp(dialect, "postgresql") == 0) {
        /* not pg_postmaster_start_time(): a clean restart (-m fast) keeps
         * the counters, only one after a crash (-m immediate) discards
         * them, and that one also sets pg_stat_bgwriter.stats_reset */
        if (two_values(d, w->reader->dc,
                       "SELECT (extract(epoch FROM (SELECT stats_reset FROM pg_stat_bgwriter)) "
                       "* 1000000)::bigint, (extract(epoch FROM stats_reset) * 1000000)::bigint "
                       "FROM pg_stat_database WHERE datname = current_database()",
                       NULL, NULL, &a, &b) && (a >= 0 || b >= 0)) {
            o->lo = o->hi = b > a ? b : a;
            o->known = 1;
        }
    } else if (strcmp(dialect, "mysql") == 0) {
        int64_t t0 = sb_now_ns();
        /* not Uptime_since_flush_status: FLUSH STATUS leaves the global
         * Com_* and Questions as they are (MariaDB 10.11) */
        if (two_values(d, w->reader->dc, "SHOW GLOBAL STATUS WHERE Variable_name = 'Uptime'",
                       "Uptime", NULL, &a, &b) && a >= 0) {
            /* a is in whole seconds, rounded down */
            o->lo = t0 - (a + 1) * 1000000000LL;
            o->hi = sb_now_ns() - a * 1000000000LL;
            o->known = 1;
        }
    }
}

/* Whether the counters can be read at all, and w's connection for them
 * (opened the first time).  Returns 1 when open. */
static int reader_open(struct sb_run *run, struct sb_server_watch *w)
{
    const struct sbd_driver *d = run->drv;
    if (!run->server_counters || !(d->caps & SBD_CAP_SERVER_COUNTERS) ||
        d->struct_size < offsetof(struct sbd_driver, server_counters) + sizeof(d->server_counters) ||
        d->server_counters == NULL)
        return 0;
    if (w->reader == NULL) {
        struct sbd_error err;
        w->reader = sb_conn_open(0, &run->control->stats, &err);
        if (w->reader == NULL) {
            snprintf(w->why, sizeof w->why, "no connection for the counters: %.240s", err.message);
            return 0;
        }
    }
    return 1;
}

/* One read of the counters on w's connection.  Returns 1 when read. */
static int read_counters(struct sb_run *run, struct sb_server_watch *w,
                         struct sbd_server_counters *out, int want_version)
{
    const struct sbd_driver *d = run->drv;
    if (!reader_open(run, w))
        return 0;
    int ok = d->server_counters(w->reader->dc, out) == SBD_OK;
    if (!ok && !want_version) {
        /* the counters' connection was lost (a server restart, a killed
         * backend): a new connection reads them on, and the origins read
         * before and after tell whether they were reset */
        sb_conn_close(w->reader);
        w->reader = NULL;
        w->reopened = 1;
        if (!reader_open(run, w))
            return 0;
        ok = d->server_counters(w->reader->dc, out) == SBD_OK;
    }
    if (!ok)
        snprintf(w->why, sizeof w->why, "the driver could not read them");
    if (want_version && d->server_version)
        snprintf(w->version, sizeof w->version, "%s", d->server_version(w->reader->dc));
    return ok;
}

void sb_server_watch_start(struct sb_run *run, struct sb_server_watch *w)
{
    if (reader_open(run, w))
        read_origin(run, w, &w->origin);
    w->have = read_counters(run, w, &w->before, 1);
}

/* Why the counters read after the run are not the run's: "" when they
 * are.  A counter that went down, a moved origin, or a lost connection
 * with no origin to tell whether the server restarted. */
static const char *reset_reason(const struct sb_server_watch *w, const struct sb_counters_origin *o,
                                int down)
{
    if (w->origin.known && o->known && (o->lo > w->origin.hi || o->hi < w->origin.lo))
        return "they started again from zero: the server restarted or its statistics were reset";
    if (down)
        return "a counter went down: the server restarted or its statistics were reset";
    if (w->reopened && !(w->origin.known && o->known))
        return "the counters' connection was lost and the server does not tell whether it "
               "restarted";
    return "";
}

void sb_server_watch_end(struct sb_run *run, struct sb_server_watch *w, struct sb_report *r)
{
    struct sbd_server_counters after = {0};
    for (int tries = 0; w->have && tries < 10; tries++) {
        sb_sleep_ns(200000000LL);
        struct sbd_server_counters a;
        if (!read_counters(run, w, &a, 0))
            break;
        int stable = tries > 0 && a.commits == after.commits && a.statements == after.statements;
        after = a;
        r->server_counters_valid = 1;
        if (stable)
            break;
    }
    if (r->server_counters_valid) {
        struct sb_counters_origin o;
        read_origin(run, w, &o);
        int down = sb_server_counters_diff(&r->server, &after, &w->before);
        const char *why = reset_reason(w, &o, down);
        if (why[0]) {
            r->server_reset = 1;
            r->server_reset_why = why;
            struct sbd_server_counters unknown = {-1, -1, -1, -1, -1, -1, -1};
            r->server = unknown;
            fprintf(stderr, "sbench: no cross-check with the server's counters, the run's are "
                    "unknown: during the run %s\n", why);
        }
    } else if (w->why[0]) { /* expected but missing: never silently */
        fprintf(stderr, "sbench: no cross-check with the server's counters: %s %s\n",
                w->have ? "after the run," : "before the run,", w->why);
    }
}

void sb_server_watch_close(struct sb_server_watch *w)
{
    sb_conn_close(w->reader);
    w->reader = NULL;
}

void sb_server_settings_read(struct sb_run *run, const char *format, int failed, char *buf,
                             size_t len)
{
    buf[0] = 0;
    /* for a JSON report, and for the run history's copy (history/) */
    if (failed || sb_interrupted || !run->server_settings ||
        (strcmp(format, "json") != 0 && run->history_json == NULL) || run->script_ops->server_settings == NULL)
        return;
    if (run->script_ops->server_settings(run->control, buf, len) < 0 && run->verbosity >= 4)
        fprintf(stderr, "sbench: the server's settings were not read: %s\n", run->control->error);
}
