/*
 * history_record.c: one record built from an sbench JSON report (its
 * interval lines and final line, docs/report-json.md), which is untrusted
 * when imported: every line is checked by results/report_check.c, the
 * windows against the final line, before any figure is taken.  The run's
 * identity, its options digest, its target and its command line (secrets
 * masked) are derived here, the same for a run recorded as it ends and
 * for its report imported later, so that importing it adds nothing.
 */
#include "history.h"
#include "history_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/shard.h"
#include "../results/json_get.h"
#include "../results/report_check.h"

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
#define FNV_START UINT64_C(0xcbf29ce484222325)

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Options that describe where results go or what the record is called,
 * not what was measured. */
static int shapes_measurement(const char *name)
{
    static const char *const not[] = {"report-interval", "report-checkpoints", "label", "history",
                                      "rand-seed", NULL};
    for (int i = 0; not[i]; i++)
        if (strcmp(name, not[i]) == 0)
            return 0;
    return sb_shard_option_must_agree(name);
}

/* FNV-1a 64 over "name=value\n" of the options that shape the measurement,
 * in name order, after the workload and the driver. */
static void options_digest(json_object *run, char out[17])
{
    json_object *opts = sb_json_member(run, "options");
    uint64_t h = fnv(fnv(fnv(FNV_START, sb_json_str(run, "workload")), "\n"), sb_json_str(run, "driver"));
    const char *keys[1024];
    size_t n = 0;
    if (opts && json_object_is_type(opts, json_type_object)) {
        json_object_object_foreach(opts, key, val) {
            if (n < sizeof keys / sizeof keys[0] && json_object_is_type(val, json_type_string) &&
                shapes_measurement(key))
                keys[n++] = key;
        }
    }
    qsort(keys, n, sizeof keys[0], by_key);
    for (size_t i = 0; i < n; i++)
        h = fnv(fnv(fnv(fnv(h, keys[i]), "="), sb_json_str(opts, keys[i])), "\n");
    snprintf(out, 17, "%016" PRIx64, h);
}

/* Seconds since the epoch of "YYYY-MM-DDTHH:MM:SSZ", or -1. */
static double iso_seconds(const char *s)
{
    struct tm tm = {0};
    if (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                            &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = timegm(&tm);
    return t == (time_t)-1 ? -1 : (double)t;
}

/* The run's identity: a shard set's run id, else a digest of what makes
 * the run one (its times, host, seed, count). */
static char *run_identity(json_object *fin, json_object *run)
{
    char buf[96];
    const char *set = sb_json_str(sb_json_at(run, "merge"), "run_id");
    if (set == NULL)
        set = sb_json_str(sb_json_at(run, "shard"), "run_id");
    if (set != NULL && *set) {
        snprintf(buf, sizeof buf, "%.90s", set);
        return strdup(buf);
    }
    char seed[32], count[32];
    json_object *s = sb_json_member(run, "random_seed");
    snprintf(seed, sizeof seed, "%s", s ? json_object_get_string(s) : "");
    snprintf(count, sizeof count, "%" PRId64, sb_json_int(fin, "transactions"));
    uint64_t h = FNV_START;
    const char *parts[] = {sb_json_str(run, "start_time"), sb_json_str(run, "end_time"),
                           sb_json_str(sb_json_member(run, "host"), "name"), seed, count,
                           sb_json_str(run, "workload"), sb_json_str(run, "driver")};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = fnv(fnv(h, parts[i]), "|");
    snprintf(buf, sizeof buf, "%016" PRIx64, h);
    return strdup(buf);
}

/* The target: the driver and its --DRIVER-host, -port, -db options. */
static void target_of(json_object *run, struct sb_hist_run *r)
{
    json_object *opts = sb_json_member(run, "options");
    const char *drv = sb_json_str(run, "driver");
    char key[96];
    r->driver = hist_strdup(drv);
    snprintf(key, sizeof key, "%.40s-host", drv ? drv : "");
    r->host = hist_strdup(sb_json_str(opts, key));
    snprintf(key, sizeof key, "%.40s-port", drv ? drv : "");
    const char *port = sb_json_str(opts, key);
    r->port = port ? atoi(port) : 0;
    snprintf(key, sizeof key, "%.40s-db", drv ? drv : "");
    r->dbname = hist_strdup(sb_json_str(opts, key));
}

/* A latency percentile of the final line in ms, NAN when not reported. */
static double percentile(json_object *fin, const char *p)
{
    json_object *v = sb_json_member(sb_json_at(fin, "latency_ms.percentiles"), p);
    return v ? sb_json_num_of(v) : NAN;
}

/* The figures of the final line (checked). */
static void figures(json_object *fin, struct sb_hist_run *r)
{
    r->tps = sb_json_num(fin, "tps");
    r->qps = sb_json_num(fin, "qps");
    r->transactions = sb_json_num(fin, "transactions");
    r->seconds = sb_json_num(fin, "seconds");
    r->errors = sb_json_num(fin, "failed_transactions") + sb_json_num(fin, "ignored_errors");
    r->reconnects = sb_json_num(fin, "reconnects");
    json_object *lat = sb_json_member(fin, "latency_ms");
    int any = sb_json_num(lat, "count") > 0;
    r->lat_avg_ms = any ? sb_json_num(lat, "avg") : NAN;
    r->lat_max_ms = any ? sb_json_num(lat, "max") : NAN;
    r->lat_p50_ms = percentile(fin, "50");
    r->lat_p95_ms = percentile(fin, "95");
    r->lat_p99_ms = percentile(fin, "99");
    /* TPC-C: committed New-Order transactions per minute */
    json_object *no = sb_json_at(fin, "types.new_order");
    r->nopm = no && r->seconds > 0 ? sb_json_num(no, "count") * 60.0 / r->seconds : NAN;
}

/* The report's lines checked; *fin the final line (a new reference). */
static int check_lines(const char *buf, size_t len, json_object **fin, char *err, size_t errlen)
{
    struct sb_json_lines jl;
    struct sb_report_windows w = {0};
    json_object *o = NULL;
    char why[512];
    int rc = sb_json_lines_init(&jl, buf, len, why, sizeof why);
    *fin = NULL;
    while (rc == 0 && (rc = sb_json_lines_next(&jl, &o, why, sizeof why)) == 1) {
        const char *type = sb_json_str(o, "type");
        rc = -1;
        if (*fin != NULL)
            snprintf(why, sizeof why, "a line after the final line");
        else if (type == NULL || (strcmp(type, "interval") != 0 && strcmp(type, "final") != 0))
            snprintf(why, sizeof why, "not an sbench report line (no \"type\" interval or final)");
        else if (sb_report_line_check(o, why, sizeof why) != 0)
            ;
        else if (strcmp(type, "interval") == 0) {
            sb_report_windows_add(&w, o);
            rc = 0;
        } else if (sb_json_at(o, "run.merge") != NULL || sb_report_windows_check(&w, o, why, sizeof why) == 0) {
            /* a merged set's windows are its shards' aligned on one clock
             * (merge checked each shard's against its own final line) */
            *fin = json_object_get(o);
            rc = 0;
        }
        json_object_put(o);
    }
    if (rc == 0 && *fin == NULL)
        snprintf(why, sizeof why, "no final line (the run did not finish its report)"), rc = -1;
    if (rc < 0) {
        if (jl.line > 0)
            snprintf(err, errlen, "line %d: %s", jl.line, why);
        else
            snprintf(err, errlen, "%s", why);
        json_object_put(*fin);
        *fin = NULL;
    }
    sb_json_lines_close(&jl);
    return rc < 0 ? -1 : 0;
}

size_t sb_hist_window_tps(const struct sb_hist_run *r, double *out, size_t max)
{
    if (r->report == NULL)
        return 0;
    struct sb_json_lines jl;
    json_object *o = NULL;
    char err[256];
    size_t n = 0;
    if (sb_json_lines_init(&jl, r->report, strlen(r->report), err, sizeof err) == 0)
        while (sb_json_lines_next(&jl, &o, err, sizeof err) == 1) {
            const char *type = sb_json_str(o, "type");
            double tps = sb_json_num(o, "tps");
            if (type && strcmp(type, "interval") == 0 && isfinite(tps) && sb_json_num(o, "seconds") > 0.5) {
                if (n < max)
                    out[n] = tps;
                n++;
            }
            json_object_put(o);
        }
    sb_json_lines_close(&jl);
    return n;
}

int sb_hist_run_from_report(const char *buf, size_t len, const char *source, const char *cmdline,
                            const char *const *labels, int nlabels, struct sb_hist_run *r,
                            char *err, size_t errlen)
{
    json_object *fin;
    memset(r, 0, sizeof *r);
    if (check_lines(buf, len, &fin, err, errlen) != 0)
        return -1;
    json_object *run = sb_json_member(fin, "run");
    double t = iso_seconds(sb_json_str(run, "start_time"));
    if (run == NULL || t < 0 || sb_json_str(run, "workload") == NULL) {
        snprintf(err, errlen, "the final line has no \"run\" with its workload and start_time");
        json_object_put(fin);
        return -1;
    }
    char digest[17];
    options_digest(run, digest);
    r->time = t;
    r->run_id = run_identity(fin, run);
    r->session = hist_strdup(r->run_id);
    r->source = hist_strdup(source);
    r->cmdline = hist_masked(cmdline ? cmdline : "");
    r->workload = hist_strdup(sb_json_str(run, "workload"));
    r->options_digest = hist_strdup(digest);
    target_of(run, r);
    r->target = hist_strdup("");
    r->point = r->repeat = -1;
    r->labels = hist_labels_joined(labels, nlabels);
    figures(fin, r);
    json_object *host = sb_json_member(run, "host"), *load = sb_json_elem(sb_json_member(host, "loadavg"), 0);
    double cpus = sb_json_num(host, "cpus");
    r->host_load = load && cpus > 0 ? sb_json_num_of(load) / cpus : NAN;
    r->server_version = hist_strdup(sb_json_str(run, "server_version"));
    r->sbench_version = hist_strdup(sb_json_str(run, "sbench_version"));
    r->driver_version = hist_strdup(sb_json_str(run, "client_version"));
    r->report = strndup(buf, len);
    json_object_put(fin);
    if (!r->run_id || !r->session || !r->source || !r->cmdline || !r->workload || !r->options_digest ||
        !r->driver || !r->host || !r->dbname || !r->target || !r->labels || !r->server_version ||
        !r->sbench_version || !r->driver_version || !r->report) {
        sb_hist_run_free(r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
