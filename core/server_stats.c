/*
 * The server's own counters and settings around a run (server_stats.h).
 */
#include "server_stats.h"

#include <stdio.h>
#include <string.h>

#include "db_int.h"
#include "script.h"

/* One read of the counters on w's connection (opened the first time).
 * Returns 1 when read. */
static int read_counters(struct sb_run *run, struct sb_server_watch *w,
                         struct sbd_server_counters *out, int want_version)
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
    int ok = d->server_counters(w->reader->dc, out) == SBD_OK;
    if (!ok && !want_version) {
        /* the counters' connection was lost (a server restart): the
         * counters are cumulative, so a new connection reads them on */
        struct sbd_error err;
        sb_conn_close(w->reader);
        w->reader = sb_conn_open(0, &run->control->stats, &err);
        if (w->reader == NULL) {
            snprintf(w->why, sizeof w->why, "no connection for the counters: %.240s", err.message);
            return 0;
        }
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
    w->have = read_counters(run, w, &w->before, 1);
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
    if (r->server_counters_valid)
        sb_server_counters_diff(&r->server, &after, &w->before);
    else if (w->why[0]) /* expected but missing: never silently */
        fprintf(stderr, "sbench: no cross-check with the server's counters: %s %s\n",
                w->have ? "after the run," : "before the run,", w->why);
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
    if (failed || sb_interrupted || !run->server_settings || strcmp(format, "json") != 0 ||
        run->script_ops->server_settings == NULL)
        return;
    if (run->script_ops->server_settings(run->control, buf, len) < 0 && run->verbosity >= 4)
        fprintf(stderr, "sbench: the server's settings were not read: %s\n", run->control->error);
}
