/*
 * The run described as one JSON object, the "run" member of the final JSON
 * report: versions, driver, server and its settings, the clients' I/O path,
 * workload, every option (secrets masked), seed, host, start and end time.
 */
#include "run_meta.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../lib/jsonw.h"
#include "../lib/options.h"
#include "shard.h"
#include "sysinfo.h"

void sb_iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *sb_run_io_name(const struct sb_run *run)
{
    /* the ring moved every statement's bytes, or for some it only waited
     * for readiness and the driver moved them (no host I/O in the driver,
     * libpq's path, TLS, a pipeline, a --db-query-timeout deadline) */
    if (run->io == SB_IO_URING)
        return (run->io_seen & 2) ? "io_uring_poll" : "io_uring";
    return run->clients > run->threads ? "poll" : "blocking";
}

void sb_run_meta_json(const struct sb_run *run, const char *server_version, const char *server_settings,
                      const char *start, const char *end, char *b, size_t len)
{
    static struct sb_sysinfo si; /* read once: a run has one host */
    static int si_read;
    if (!si_read) {
        sb_sysinfo_read(&si);
        si_read = 1;
    }
    struct sb_jw j;
    sb_jw_init(&j, b, len);
    sb_jw_raw(&j, "{");
    sb_jw_key(&j, "sbench_version", 1);
    sb_jw_str(&j, SB_VERSION);
    sb_jw_key(&j, "driver", 0);
    sb_jw_str(&j, run->drv->name);
    sb_jw_key(&j, "client_version", 0);
    sb_jw_str(&j, run->drv->client_version ? run->drv->client_version() : "");
    sb_jw_key(&j, "server_version", 0);
    sb_jw_str(&j, server_version ? server_version : "");
    if (server_settings && *server_settings) {
        sb_jw_key(&j, "server_settings", 0);
        sb_jw_raw(&j, server_settings);
    }
    if (!run->no_database) { /* what moved the statements' bytes (--io, --clients) */
        sb_jw_key(&j, "io", 0);
        sb_jw_str(&j, sb_run_io_name(run));
    }
    sb_jw_key(&j, "workload", 0);
    sb_jw_str(&j, run->script_name);
    sb_jw_key(&j, "script", 0);
    sb_jw_str(&j, run->script);
    sb_jw_key(&j, "random_seed", 0);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)run->workers[0]->rand.seed);
    sb_jw_raw(&j, seed);
    sb_jw_key(&j, "host", 0);
    sb_sysinfo_json(&j, &si);
    sb_jw_key(&j, "start_time", 0);
    sb_jw_str(&j, start);
    if (end) {
        sb_jw_key(&j, "end_time", 0);
        sb_jw_str(&j, end);
    }
    sb_jw_key(&j, "options", 0);
    sb_jw_raw(&j, "{");
    const struct sb_options *o = run->opts;
    int first = 1;
    for (int i = 0; i < sb_options_count(o); i++) {
        const struct sb_opt *p = sb_options_at(o, i);
        const char *v = p->value ? p->value : p->def;
        if (v == NULL || strcmp(p->name, "help") == 0 || strcmp(p->name, "version") == 0)
            continue;
        sb_jw_key(&j, p->name, first);
        first = 0;
        char shown[4096];
        sb_jw_str(&j, sb_opt_shown(p, p->name, v, shown, sizeof shown));
    }
    sb_jw_raw(&j, "}");
    if (run->shard.given) { /* core/shard.c */
        char shard[512];
        sb_jw_key(&j, "shard", 0);
        if (sb_shard_meta_json(&run->shard, shard, sizeof shard) < sizeof shard)
            sb_jw_raw(&j, shard);
        else
            j.truncated = 1;
    }
    sb_jw_raw(&j, "}");
    if (j.truncated) /* keep it valid */
        snprintf(b, len, "{\"truncated\":true}");
}
